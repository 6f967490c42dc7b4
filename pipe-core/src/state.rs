//! State types: the CSO templates and the non-CSO binding state.
//!
//! These mirror `p_state.h` and `p_defines.h`. CSO templates (blend,
//! rasterizer, depth-stencil-alpha, sampler, vertex elements) implement
//! `Hash + Eq` so that [`crate::cso::CsoTable`] can hash-cons them: floats are
//! compared and hashed by their bit patterns, as Mesa's `cso_cache` does with
//! `memcmp`. Non-CSO state (viewports, scissors, clip planes...) is plain data.

use crate::format::Format;
use crate::resource::{PipeBox, Resource};
use crate::view::{SamplerView, Surface};

/// Implements `Hash` and `Eq` for a type with `f32` fields by hashing the
/// bit patterns of floats, so that hash-consing agrees with `memcmp`.
macro_rules! bitwise_hash_eq {
    ($ty:ty, |$s:ident| $key:expr) => {
        impl PartialEq for $ty {
            fn eq(&self, other: &Self) -> bool {
                let k = |$s: &$ty| $key;
                k(self) == k(other)
            }
        }
        impl Eq for $ty {}
        impl std::hash::Hash for $ty {
            fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
                let $s = self;
                $key.hash(state)
            }
        }
    };
}

/// Bit pattern of an `f32`, for hash-consing.
fn fb(v: f32) -> u32 {
    v.to_bits()
}

/// `enum pipe_shader_type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ShaderStage {
    Vertex = 0,
    TessCtrl = 1,
    TessEval = 2,
    Geometry = 3,
    Fragment = 4,
    Compute = 5,
}

impl ShaderStage {
    /// All stages in `pipe_shader_type` order.
    pub const ALL: [ShaderStage; 6] = [
        ShaderStage::Vertex,
        ShaderStage::TessCtrl,
        ShaderStage::TessEval,
        ShaderStage::Geometry,
        ShaderStage::Fragment,
        ShaderStage::Compute,
    ];

    /// Index in `pipe_shader_type` order.
    pub fn index(self) -> usize {
        self as usize
    }

    /// Short name (`vs`, `tcs`, `tes`, `gs`, `fs`, `cs`).
    pub fn short_name(self) -> &'static str {
        ["vs", "tcs", "tes", "gs", "fs", "cs"][self as usize]
    }
}

/// `PIPE_FUNC_*`: comparison functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum CompareFunc {
    #[default]
    Never,
    Less,
    Equal,
    LEqual,
    Greater,
    NotEqual,
    GEqual,
    Always,
}

/// `PIPE_BLEND_*`: blend equations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum BlendFunc {
    #[default]
    Add,
    Subtract,
    ReverseSubtract,
    Min,
    Max,
}

/// `PIPE_BLENDFACTOR_*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum BlendFactor {
    #[default]
    One,
    SrcColor,
    SrcAlpha,
    DstAlpha,
    DstColor,
    SrcAlphaSaturate,
    ConstColor,
    ConstAlpha,
    Src1Color,
    Src1Alpha,
    Zero,
    InvSrcColor,
    InvSrcAlpha,
    InvDstAlpha,
    InvDstColor,
    InvConstColor,
    InvConstAlpha,
    InvSrc1Color,
    InvSrc1Alpha,
}

impl BlendFactor {
    /// Whether the factor reads the second colour output (dual source).
    pub fn is_dual_source(self) -> bool {
        matches!(
            self,
            BlendFactor::Src1Color
                | BlendFactor::Src1Alpha
                | BlendFactor::InvSrc1Color
                | BlendFactor::InvSrc1Alpha
        )
    }
}

/// `PIPE_LOGICOP_*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum LogicOp {
    Clear,
    Nor,
    AndInverted,
    CopyInverted,
    AndReverse,
    Invert,
    Xor,
    Nand,
    And,
    Equiv,
    Noop,
    OrInverted,
    #[default]
    Copy,
    OrReverse,
    Or,
    Set,
}

bitflags::bitflags! {
    /// `PIPE_MASK_*` colour write mask.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    pub struct ColorMask: u8 {
        const R = 1;
        const G = 2;
        const B = 4;
        const A = 8;
        const RGBA = 15;
    }
}

/// `struct pipe_rt_blend_state`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct RtBlendState {
    pub blend_enable: bool,
    pub rgb_func: BlendFunc,
    pub rgb_src_factor: BlendFactor,
    pub rgb_dst_factor: BlendFactor,
    pub alpha_func: BlendFunc,
    pub alpha_src_factor: BlendFactor,
    pub alpha_dst_factor: BlendFactor,
    pub colormask: ColorMask,
}

impl RtBlendState {
    /// Whether this buffer blends with the second colour output (dual
    /// source): blending is on and a factor reads it.
    pub fn uses_dual_source(&self) -> bool {
        self.blend_enable
            && [
                self.rgb_src_factor,
                self.rgb_dst_factor,
                self.alpha_src_factor,
                self.alpha_dst_factor,
            ]
            .iter()
            .any(|f| f.is_dual_source())
    }
}

/// Maximum colour buffers (`PIPE_MAX_COLOR_BUFS`).
pub const MAX_COLOR_BUFS: usize = 8;

/// `struct pipe_blend_state`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct BlendState {
    pub independent_blend_enable: bool,
    pub logicop_enable: bool,
    pub logicop_func: LogicOp,
    pub dither: bool,
    pub alpha_to_coverage: bool,
    pub alpha_to_coverage_dither: bool,
    pub alpha_to_one: bool,
    /// Number of render targets the state is meant for.
    pub max_rt: u8,
    pub rt: [RtBlendState; MAX_COLOR_BUFS],
}

/// `PIPE_POLYGON_MODE_*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum PolygonMode {
    #[default]
    Fill,
    Line,
    Point,
    FillRectangle,
}

bitflags::bitflags! {
    /// `PIPE_FACE_*`: which faces to cull.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    pub struct Face: u8 {
        const FRONT = 1;
        const BACK = 2;
    }
}

/// `struct pipe_rasterizer_state`.
#[derive(Clone, Copy, Debug, Default)]
pub struct RasterizerState {
    pub flatshade: bool,
    pub light_twoside: bool,
    pub clamp_vertex_color: bool,
    pub clamp_fragment_color: bool,
    pub front_ccw: bool,
    pub cull_face: Face,
    pub fill_front: PolygonMode,
    pub fill_back: PolygonMode,
    pub offset_point: bool,
    pub offset_line: bool,
    pub offset_tri: bool,
    pub scissor: bool,
    pub poly_smooth: bool,
    pub poly_stipple_enable: bool,
    pub point_smooth: bool,
    /// Bitmask of texture units whose coordinates are replaced by point coords.
    pub sprite_coord_enable: u16,
    /// Point-coord origin is the lower left (GL) instead of upper left.
    pub sprite_coord_mode_lower_left: bool,
    pub point_quad_rasterization: bool,
    pub point_size_per_vertex: bool,
    pub multisample: bool,
    pub no_ms_sample_mask_out: bool,
    pub force_persample_interp: bool,
    pub line_smooth: bool,
    pub line_stipple_enable: bool,
    pub line_last_pixel: bool,
    pub line_rectangular: bool,
    pub flatshade_first: bool,
    pub half_pixel_center: bool,
    pub bottom_edge_rule: bool,
    pub rasterizer_discard: bool,
    pub depth_clip_near: bool,
    pub depth_clip_far: bool,
    pub depth_clamp: bool,
    pub clip_halfz: bool,
    pub offset_units_unscaled: bool,
    /// Bitmask of enabled user clip planes / clip distances.
    pub clip_plane_enable: u8,
    pub line_stipple_factor: u8,
    pub line_stipple_pattern: u16,
    pub line_width: f32,
    pub point_size: f32,
    pub offset_units: f32,
    pub offset_scale: f32,
    pub offset_clamp: f32,
}

bitwise_hash_eq!(RasterizerState, |s| (
    (
        s.flatshade,
        s.light_twoside,
        s.clamp_vertex_color,
        s.clamp_fragment_color,
        s.front_ccw,
        s.cull_face,
        s.fill_front,
        s.fill_back,
        s.offset_point,
        s.offset_line,
        s.offset_tri,
        s.scissor,
    ),
    (
        s.poly_smooth,
        s.poly_stipple_enable,
        s.point_smooth,
        s.sprite_coord_enable,
        s.sprite_coord_mode_lower_left,
        s.point_quad_rasterization,
        s.point_size_per_vertex,
        s.multisample,
        s.no_ms_sample_mask_out,
        s.force_persample_interp,
        s.line_smooth,
        s.line_stipple_enable,
    ),
    (
        s.line_last_pixel,
        s.line_rectangular,
        s.flatshade_first,
        s.half_pixel_center,
        s.bottom_edge_rule,
        s.rasterizer_discard,
        s.depth_clip_near,
        s.depth_clip_far,
        s.depth_clamp,
        s.clip_halfz,
        s.offset_units_unscaled,
        s.clip_plane_enable,
    ),
    (
        s.line_stipple_factor,
        s.line_stipple_pattern,
        fb(s.line_width),
        fb(s.point_size),
        fb(s.offset_units),
        fb(s.offset_scale),
        fb(s.offset_clamp),
    )
));

/// `PIPE_STENCIL_OP_*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum StencilOp {
    #[default]
    Keep,
    Zero,
    Replace,
    Incr,
    Decr,
    IncrWrap,
    DecrWrap,
    Invert,
}

/// `struct pipe_stencil_state` (one face).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct StencilState {
    pub enabled: bool,
    pub func: CompareFunc,
    pub fail_op: StencilOp,
    pub zpass_op: StencilOp,
    pub zfail_op: StencilOp,
    pub valuemask: u8,
    pub writemask: u8,
}

/// `struct pipe_depth_stencil_alpha_state`.
#[derive(Clone, Copy, Debug, Default)]
pub struct DepthStencilAlphaState {
    pub depth_enabled: bool,
    pub depth_writemask: bool,
    pub depth_func: CompareFunc,
    pub depth_bounds_test: bool,
    /// `stencil[0]` is the front face, `stencil[1]` the back face (used when
    /// its `enabled` is set: two-sided stencil).
    pub stencil: [StencilState; 2],
    pub alpha_enabled: bool,
    pub alpha_func: CompareFunc,
    pub alpha_ref_value: f32,
    pub depth_bounds_min: f64,
    pub depth_bounds_max: f64,
}

bitwise_hash_eq!(DepthStencilAlphaState, |s| (
    s.depth_enabled,
    s.depth_writemask,
    s.depth_func,
    s.depth_bounds_test,
    s.stencil,
    s.alpha_enabled,
    s.alpha_func,
    fb(s.alpha_ref_value),
    s.depth_bounds_min.to_bits(),
    s.depth_bounds_max.to_bits(),
));

/// `PIPE_TEX_WRAP_*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum TexWrap {
    #[default]
    Repeat,
    Clamp,
    ClampToEdge,
    ClampToBorder,
    MirrorRepeat,
    MirrorClamp,
    MirrorClampToEdge,
    MirrorClampToBorder,
}

/// `PIPE_TEX_FILTER_*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum TexFilter {
    #[default]
    Nearest,
    Linear,
}

/// `PIPE_TEX_MIPFILTER_*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum MipFilter {
    Nearest,
    Linear,
    #[default]
    None,
}

/// `PIPE_TEX_REDUCTION_*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ReductionMode {
    #[default]
    WeightedAverage,
    Min,
    Max,
}

/// `union pipe_color_union`: four 32-bit words read as float, uint or sint
/// according to the format they apply to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct ColorUnion(pub [u32; 4]);

impl ColorUnion {
    /// From floats.
    pub fn from_f32(v: [f32; 4]) -> Self {
        ColorUnion(v.map(f32::to_bits))
    }
    /// From unsigned integers.
    pub fn from_u32(v: [u32; 4]) -> Self {
        ColorUnion(v)
    }
    /// From signed integers.
    pub fn from_i32(v: [i32; 4]) -> Self {
        ColorUnion(v.map(|x| x as u32))
    }
    /// As floats.
    pub fn f32(&self) -> [f32; 4] {
        self.0.map(f32::from_bits)
    }
    /// As unsigned integers.
    pub fn u32(&self) -> [u32; 4] {
        self.0
    }
    /// As signed integers.
    pub fn i32(&self) -> [i32; 4] {
        self.0.map(|x| x as i32)
    }
}

/// `struct pipe_sampler_state`.
#[derive(Clone, Copy, Debug, Default)]
pub struct SamplerState {
    pub wrap_s: TexWrap,
    pub wrap_t: TexWrap,
    pub wrap_r: TexWrap,
    pub min_img_filter: TexFilter,
    pub min_mip_filter: MipFilter,
    pub mag_img_filter: TexFilter,
    pub compare_mode: bool,
    pub compare_func: CompareFunc,
    pub unnormalized_coords: bool,
    pub max_anisotropy: u8,
    pub seamless_cube_map: bool,
    /// Format the border colour is meant for (`None`: any).
    pub border_color_format: Option<Format>,
    pub border_color_is_integer: bool,
    pub reduction_mode: ReductionMode,
    pub lod_bias: f32,
    pub min_lod: f32,
    pub max_lod: f32,
    pub border_color: ColorUnion,
}

bitwise_hash_eq!(SamplerState, |s| (
    (
        s.wrap_s,
        s.wrap_t,
        s.wrap_r,
        s.min_img_filter,
        s.min_mip_filter,
        s.mag_img_filter,
        s.compare_mode,
        s.compare_func,
        s.unnormalized_coords,
        s.max_anisotropy,
        s.seamless_cube_map,
    ),
    (
        s.border_color_format,
        s.border_color_is_integer,
        s.reduction_mode,
        fb(s.lod_bias),
        fb(s.min_lod),
        fb(s.max_lod),
        s.border_color,
    )
));

/// `struct pipe_vertex_element`. Since Mesa 24 the stride lives here
/// (`src_stride`), not in the vertex buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VertexElement {
    pub src_offset: u32,
    pub src_stride: u32,
    pub vertex_buffer_index: u8,
    /// Whether the element reads two consecutive attribute slots (dvec3/4).
    pub dual_slot: bool,
    pub src_format: Format,
    /// 0: per vertex; n: advance every n instances.
    pub instance_divisor: u32,
}

/// `struct pipe_vertex_buffer`.
#[derive(Clone, Debug)]
pub enum VertexBufferSource {
    /// A buffer resource.
    Resource(Resource),
    /// A user-memory buffer (uploaded by the driver).
    User(std::sync::Arc<[u8]>),
}

/// `struct pipe_vertex_buffer`.
#[derive(Clone, Debug)]
pub struct VertexBuffer {
    pub buffer: Option<VertexBufferSource>,
    pub buffer_offset: u32,
}

/// `struct pipe_constant_buffer`. Passing it by value is Gallium's
/// `take_ownership = true`: the reference moves into the binding; a frontend
/// that keeps its own reference clones the `Arc` first (the refcount
/// increment a driver does when `take_ownership` is false).
#[derive(Clone, Debug)]
pub struct ConstantBuffer<'a> {
    pub buffer: Option<Resource>,
    pub buffer_offset: u32,
    pub buffer_size: u32,
    /// User memory to upload instead of `buffer`.
    pub user_buffer: Option<&'a [u8]>,
}

/// `struct pipe_shader_buffer`.
#[derive(Clone, Debug)]
pub struct ShaderBuffer {
    pub buffer: Resource,
    pub buffer_offset: u32,
    pub buffer_size: u32,
}

bitflags::bitflags! {
    /// `PIPE_IMAGE_ACCESS_*`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    pub struct ImageAccess: u8 {
        const READ = 1;
        const WRITE = 2;
        const COHERENT = 4;
        const VOLATILE = 8;
    }
}

/// `struct pipe_image_view`.
#[derive(Clone, Debug)]
pub struct ImageView {
    pub resource: Resource,
    pub format: Format,
    pub access: ImageAccess,
    pub shader_access: ImageAccess,
    pub range: ImageViewRange,
}

/// The part of a resource an image view covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImageViewRange {
    /// A texture level and layer range (inclusive).
    Texture {
        level: u32,
        first_layer: u32,
        last_layer: u32,
    },
    /// A byte range of a buffer.
    Buffer { offset: u32, size: u32 },
}

/// `struct pipe_stencil_ref`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct StencilRef {
    pub ref_value: [u8; 2],
}

/// `struct pipe_blend_color`.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct BlendColor {
    pub color: [f32; 4],
}

/// Maximum user clip planes (`PIPE_MAX_CLIP_PLANES`).
pub const MAX_CLIP_PLANES: usize = 8;

/// `struct pipe_clip_state`.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct ClipState {
    pub ucp: [[f32; 4]; MAX_CLIP_PLANES],
}

/// `struct pipe_poly_stipple`: 32x32 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct PolyStipple {
    pub stipple: [u32; 32],
}

/// `struct pipe_scissor_state`: `minx/miny` inclusive, `maxx/maxy` exclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct ScissorState {
    pub minx: u16,
    pub miny: u16,
    pub maxx: u16,
    pub maxy: u16,
}

/// `PIPE_VIEWPORT_SWIZZLE_*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ViewportSwizzle {
    #[default]
    PositiveX,
    NegativeX,
    PositiveY,
    NegativeY,
    PositiveZ,
    NegativeZ,
    PositiveW,
    NegativeW,
}

/// `struct pipe_viewport_state`: window = ndc * scale + translate.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct ViewportState {
    pub scale: [f32; 3],
    pub translate: [f32; 3],
    pub swizzle: [ViewportSwizzle; 4],
}

/// Maximum viewports and scissors (`PIPE_MAX_VIEWPORTS`).
pub const MAX_VIEWPORTS: usize = 16;
/// Maximum window rectangles (`PIPE_MAX_WINDOW_RECTANGLES`).
pub const MAX_WINDOW_RECTANGLES: usize = 8;
/// Maximum sampler views per stage (`PIPE_MAX_SHADER_SAMPLER_VIEWS`).
pub const MAX_SHADER_SAMPLER_VIEWS: usize = 128;
/// Maximum samplers per stage (`PIPE_MAX_SAMPLERS`).
pub const MAX_SAMPLERS: usize = 32;
/// Maximum constant buffers per stage (`PIPE_MAX_CONSTANT_BUFFERS`).
pub const MAX_CONSTANT_BUFFERS: usize = 32;
/// Maximum shader buffers per stage (`PIPE_MAX_SHADER_BUFFERS`).
pub const MAX_SHADER_BUFFERS: usize = 32;
/// Maximum shader images per stage (`PIPE_MAX_SHADER_IMAGES`).
pub const MAX_SHADER_IMAGES: usize = 64;
/// Maximum vertex buffers (`PIPE_MAX_ATTRIBS`).
pub const MAX_VERTEX_BUFFERS: usize = 32;
/// Maximum vertex elements (`PIPE_MAX_ATTRIBS`).
pub const MAX_VERTEX_ELEMENTS: usize = 32;
/// Maximum stream-output buffers (`PIPE_MAX_SO_BUFFERS`).
pub const MAX_SO_BUFFERS: usize = 4;
/// Maximum inlinable uniforms (`MAX_INLINABLE_UNIFORMS`).
pub const MAX_INLINABLE_UNIFORMS: usize = 4;
/// Maximum HW atomic buffers (`PIPE_MAX_HW_ATOMIC_BUFFERS`).
pub const MAX_HW_ATOMIC_BUFFERS: usize = 32;

/// `struct pipe_framebuffer_state`.
#[derive(Clone, Debug, Default)]
pub struct FramebufferState {
    pub width: u16,
    pub height: u16,
    pub layers: u16,
    pub samples: u8,
    /// Colour buffers; `None` entries are unbound slots.
    pub cbufs: Vec<Option<Surface>>,
    pub zsbuf: Option<Surface>,
    /// Implicit resolve target for `cbufs[0]`.
    pub resolve: Option<Resource>,
}

/// `struct pipe_tess_state` defaults (`PATCH_DEFAULT_*_LEVEL`).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct TessState {
    pub default_outer_level: [f32; 4],
    pub default_inner_level: [f32; 2],
}

/// Severity of a debug message (`enum util_debug_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DebugType {
    OutOfMemory,
    Error,
    ShaderInfo,
    PerfInfo,
    Info,
    Fallback,
    Conformance,
}

/// A message for the frontend's debug callback (`GL_KHR_debug`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DebugMessage {
    pub kind: DebugType,
    pub id: u32,
    pub text: String,
}

/// `struct util_debug_callback`.
pub type DebugCallback = std::sync::Arc<dyn Fn(&DebugMessage) + Send + Sync>;

/// Region argument of `clear_texture`, `resource_commit` and friends.
pub type Region = PipeBox;

/// Convenience: a sampler view slot array entry.
pub type SamplerViewSlot = Option<SamplerView>;
