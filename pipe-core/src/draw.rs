//! Draw parameters (`struct pipe_draw_info` and friends).

use crate::resource::Resource;
use crate::view::StreamOutputTarget;

/// `enum mesa_prim`: primitive topology.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrimType {
    Points,
    Lines,
    LineLoop,
    LineStrip,
    Triangles,
    TriangleStrip,
    TriangleFan,
    Quads,
    QuadStrip,
    Polygon,
    LinesAdjacency,
    LineStripAdjacency,
    TrianglesAdjacency,
    TriangleStripAdjacency,
    Patches,
}

/// Where indices come from.
#[derive(Clone, Debug, Default)]
pub enum IndexSource<'a> {
    /// Non-indexed draw.
    #[default]
    None,
    /// An index buffer resource.
    Resource(Resource),
    /// User memory (uploaded by the driver).
    User(&'a [u8]),
}

/// `struct pipe_draw_info`.
#[derive(Clone, Debug)]
pub struct DrawInfo<'a> {
    pub mode: PrimType,
    /// 0 (non-indexed), 1, 2 or 4 bytes.
    pub index_size: u8,
    pub index: IndexSource<'a>,
    pub primitive_restart: bool,
    pub restart_index: u32,
    pub start_instance: u32,
    pub instance_count: u32,
    /// Lower and upper bound of the indices used (see "Drawing").
    pub min_index: u32,
    pub max_index: u32,
    pub index_bias_varies: bool,
    pub increment_draw_id: bool,
    /// Multiview mask (0: none).
    pub view_mask: u32,
}

impl Default for DrawInfo<'_> {
    fn default() -> Self {
        DrawInfo {
            mode: PrimType::Triangles,
            index_size: 0,
            index: IndexSource::None,
            primitive_restart: false,
            restart_index: 0,
            start_instance: 0,
            instance_count: 1,
            min_index: 0,
            max_index: u32::MAX,
            index_bias_varies: false,
            increment_draw_id: false,
            view_mask: 0,
        }
    }
}

/// `struct pipe_draw_start_count_bias`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct DrawStartCountBias {
    pub start: u32,
    pub count: u32,
    pub index_bias: i32,
}

/// `struct pipe_draw_indirect_info`.
#[derive(Clone, Debug, Default)]
pub struct DrawIndirectInfo {
    pub offset: u32,
    /// Stride between draws in bytes.
    pub stride: u32,
    pub draw_count: u32,
    pub indirect_draw_count_offset: u32,
    pub buffer: Option<Resource>,
    pub indirect_draw_count: Option<Resource>,
    /// Draw-auto: the vertex count comes from this target's internal offset,
    /// divided by the vertex stride the target was last captured with (its
    /// buffer's stride in that shader's `StreamOutputInfo`). Non-indexed;
    /// `buffer` must be `None`.
    pub count_from_stream_output: Option<StreamOutputTarget>,
}
