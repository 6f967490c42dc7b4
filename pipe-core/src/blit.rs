//! Blit parameters (`struct pipe_blit_info`).

use crate::flags::BlitMask;
use crate::format::Format;
use crate::resource::{PipeBox, Resource};
use crate::state::{ScissorState, TexFilter};

/// One side of a blit.
#[derive(Clone, Debug)]
pub struct BlitSurface {
    pub resource: Resource,
    pub level: u32,
    /// Region; negative width/height on the source flips.
    pub bx: PipeBox,
    /// Format to interpret the data as (may cast).
    pub format: Format,
}

/// `struct pipe_blit_info`.
#[derive(Clone, Debug)]
pub struct BlitInfo {
    pub dst: BlitSurface,
    pub src: BlitSurface,
    pub mask: BlitMask,
    pub filter: TexFilter,
    /// Destination clip rectangle.
    pub scissor: Option<ScissorState>,
    pub render_condition_enable: bool,
    /// Blend with the destination (used for the GL cursor).
    pub alpha_blend: bool,
    pub window_rectangle_include: bool,
    pub window_rectangles: Vec<ScissorState>,
}
