//! Views of resources: sampler views, surfaces and stream-output targets.
//!
//! Each is a reference-counted [`Object`] whose description holds the
//! resource it views (so a view keeps its resource alive, as Gallium's
//! `pipe_sampler_view::texture` reference does) plus the template it was
//! created from. Backends cache their Vulkan views per template.

use std::sync::Arc;

use crate::format::Format;
use crate::object::Object;
use crate::resource::{Resource, Target};

pub use crate::format::Swizzle;

/// The identity swizzle.
pub const SWIZZLE_IDENTITY: [Swizzle; 4] = [Swizzle::X, Swizzle::Y, Swizzle::Z, Swizzle::W];

/// Texture or buffer range of a sampler view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ViewRange {
    /// Mip levels and layers, both inclusive (`first_level..=last_level`).
    Texture {
        first_level: u32,
        last_level: u32,
        first_layer: u32,
        last_layer: u32,
    },
    /// Byte range of a texture buffer.
    Buffer { offset: u32, size: u32 },
}

/// `struct pipe_sampler_view` template.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SamplerViewTemplate {
    pub format: Format,
    pub target: Target,
    pub swizzle: [Swizzle; 4],
    pub range: ViewRange,
}

impl SamplerViewTemplate {
    /// A view of the whole of `res` with its own format and identity swizzle.
    pub fn whole(res: &crate::resource::ResourceTemplate) -> Self {
        let range = if res.target == Target::Buffer {
            ViewRange::Buffer {
                offset: 0,
                size: res.width0,
            }
        } else {
            ViewRange::Texture {
                first_level: 0,
                last_level: res.last_level,
                first_layer: 0,
                last_layer: res.array_size.max(1) - 1,
            }
        };
        SamplerViewTemplate {
            format: res.format,
            target: res.target,
            swizzle: SWIZZLE_IDENTITY,
            range,
        }
    }
}

/// Description of a created sampler view.
#[derive(Clone, Debug)]
pub struct SamplerViewDesc {
    pub texture: Resource,
    pub template: SamplerViewTemplate,
}

/// A sampler view.
pub type SamplerView = Arc<Object<SamplerViewDesc>>;

/// `struct pipe_surface` template: one level, a layer range (inclusive).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SurfaceTemplate {
    pub format: Format,
    pub level: u32,
    pub first_layer: u32,
    pub last_layer: u32,
}

/// Description of a created surface.
#[derive(Clone, Debug)]
pub struct SurfaceDesc {
    pub texture: Resource,
    pub template: SurfaceTemplate,
    /// Extent of the level.
    pub width: u32,
    pub height: u32,
}

/// A colour or depth/stencil surface.
pub type Surface = Arc<Object<SurfaceDesc>>;

/// Description of a stream-output target (`struct pipe_stream_output_target`).
#[derive(Clone, Debug)]
pub struct StreamOutputTargetDesc {
    pub buffer: Resource,
    pub buffer_offset: u32,
    pub buffer_size: u32,
}

/// A stream-output target.
pub type StreamOutputTarget = Arc<Object<StreamOutputTargetDesc>>;
