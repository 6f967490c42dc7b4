//! The fixed binding model: how Gallium slots map to Vulkan descriptor sets
//! and bindings, and the layout of the driver's push constants.
//!
//! pipe-vk builds its descriptor set layouts from these constants, and the
//! emitter decorates variables with [`binding_for`], so the two agree by
//! construction.
//!
//! # Descriptor sets
//!
//! One descriptor set per resource class, shared by all stages of a
//! pipeline; bindings are stage-major, so each stage owns a contiguous range:
//!
//! | set | [`DescClass`] | Gallium state | Vulkan descriptor type | slots per stage |
//! |---|---|---|---|---|
//! | 0 | `Ubo` | `set_constant_buffer` | `UNIFORM_BUFFER` | [`MAX_CONSTANT_BUFFERS`] = 16 |
//! | 1 | `SamplerView` | `set_sampler_views` + `bind_sampler_states` | `COMBINED_IMAGE_SAMPLER` (`UNIFORM_TEXEL_BUFFER` for buffer textures) | [`MAX_SAMPLER_VIEWS`] = 32 |
//! | 2 | `Image` | `set_shader_images` | `STORAGE_IMAGE` (`STORAGE_TEXEL_BUFFER` for buffer images) | [`MAX_IMAGES`] = 32 |
//! | 3 | `Ssbo` | `set_shader_buffers` | `STORAGE_BUFFER` | [`MAX_SHADER_BUFFERS`] = 32 |
//!
//! Set 1 also holds the fragment shader's framebuffer-fetch images
//! (`SAMPLED_IMAGE`), after the sampler views of all stages: see
//! [`fbfetch_binding`].
//!
//! `binding = stage_index * slots_per_stage + slot`, with stage indices
//! vertex 0, tess_ctrl 1, tess_eval 2, geometry 3, fragment 4, compute 5
//! ([`crate::ir::Stage::index`]). A device that allows more sampler views can
//! raise the per-stage count with [`binding_for_with_stride`]; the default
//! emitter uses the fixed strides above.
//!
//! # Push constants
//!
//! The push constant block is the driver's: see [`push`] for its layout
//! (draw id, base vertex, line stipple, framebuffer height, default
//! tessellation levels, viewport scale, user clip planes). Its size is
//! [`push::SIZE`] bytes; a shader reads it with `load_push`.
//!
//! # The driver constant buffer
//!
//! Driver data too large for the push block lives in Gallium constant
//! buffer [`DRIVER_UBO_SLOT`] (the last one, 15) of the stage that reads
//! it; see [`driver_ubo`] for its layout. pipe-vk therefore exposes 15
//! constant buffers per stage to the frontend (GL needs 12 uniform blocks
//! plus the default block), and a shader whose lowering needs the driver
//! buffer must not declare that slot itself.
//!
//! The 32×32 polygon stipple pattern (128 bytes) is there rather than in
//! the push block: with the 8 user clip planes (128 bytes) and the 48-byte
//! header the block would need 304 bytes, more than the 256 bytes of
//! `maxPushConstantsSize` on lavapipe and most desktop drivers (Vulkan only
//! guarantees 128). The two cannot share bytes either: a push constant
//! update of a byte must name every stage whose range covers it
//! (VUID-vkCmdPushConstants-offset-01796), so one byte holds one value for
//! all stages.
//!
//! # Varyings
//!
//! Inputs and outputs carry explicit locations. The GL lowerings that add
//! varyings place them at fixed locations: [`BFC0_LOCATION`],
//! [`BFC1_LOCATION`] (two-sided colour), [`STIPPLE_POS_LOCATION`] (line
//! stipple emulation, and the barycentrics of polygons in line or point
//! mode), [`EDGE_MASK_LOCATION`] (their hidden edges),
//! [`ALIASED_POINT_LOCATION`] (aliased points' size),
//! [`ALIASED_EDGES_LOCATION`] (aliased triangles' edges),
//! [`ALIASED_CLIP_LOCATION`] (their clip distances). A shader that uses one of these locations itself
//! cannot take the lowering that adds it.

use crate::ir::Stage;

/// Resource classes, one descriptor set each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DescClass {
    Ubo,
    SamplerView,
    Image,
    Ssbo,
}

pub const SET_UBO: u32 = 0;
pub const SET_SAMPLER_VIEW: u32 = 1;
pub const SET_IMAGE: u32 = 2;
pub const SET_SSBO: u32 = 3;
/// Number of descriptor sets used.
pub const NUM_SETS: u32 = 4;

pub const MAX_CONSTANT_BUFFERS: u32 = 16;
pub const MAX_SAMPLER_VIEWS: u32 = 32;
pub const MAX_IMAGES: u32 = 32;
pub const MAX_SHADER_BUFFERS: u32 = 32;
/// Number of stages (bindings per set = stages × slots).
pub const NUM_STAGES: u32 = 6;

/// Gallium constant-buffer slot reserved for the driver's own data (see
/// [`driver_ubo`]); the last of [`MAX_CONSTANT_BUFFERS`].
pub const DRIVER_UBO_SLOT: u32 = MAX_CONSTANT_BUFFERS - 1;

/// Location of the back-face colour 0 varying added by two-sided colour.
pub const BFC0_LOCATION: u32 = 30;
/// Location of the back-face colour 1 varying added by two-sided colour.
pub const BFC1_LOCATION: u32 = 31;
/// Location of the `f32` `noperspective` varying `stipple_pos` (window
/// distance along the line, in pixels) that line stipple emulation adds
/// to the last vertex stage's outputs and the fragment shader's inputs
/// ([`crate::passes::line_stipple`]).
pub const STIPPLE_POS_LOCATION: u32 = 29;
/// Location of the `flat` `u32` varying `edge_mask` (hidden edges or
/// vertices of a polygon drawn in line or point mode) that
/// [`crate::passes::line_stipple::polygon_edges_gs`] writes and
/// [`crate::passes::polygon_edges`] reads.
pub const EDGE_MASK_LOCATION: u32 = 28;
/// Location of the `flat` `f32` varying `aliased_point_size` (a point's
/// size before aliased-point emulation widened it) that
/// [`crate::passes::aliased::lower_aliased_points`] writes and
/// [`crate::passes::aliased::lower_aliased_points_fs`] reads.
pub const ALIASED_POINT_LOCATION: u32 = 27;
/// Location of the `noperspective` `f32x3` varying `aliased_edges` (a
/// triangle's window-space edge distances) that
/// [`crate::passes::aliased::aliased_triangles_gs`] writes and
/// [`crate::passes::aliased::lower_aliased_triangles_fs`] reads.
pub const ALIASED_EDGES_LOCATION: u32 = 26;
/// Location of the `f32x3` varying `smooth_line_clip` (a line vertex's
/// clip-space x, y and w) that [`crate::passes::smooth_lines`] adds to the
/// last vertex stage and reads in the fragment shader. It shares its
/// location with [`ALIASED_EDGES_LOCATION`], whose lowering is for filled
/// triangles only.
pub const SMOOTH_LINE_LOCATION: u32 = 26;
/// First of the two locations of the `noperspective` `f32x4[2]` varying
/// `aliased_clip` (user clip planes of aliased triangles, tested at the
/// pixel centre) that [`crate::passes::aliased::aliased_triangles_gs`]
/// writes and [`crate::passes::aliased::lower_aliased_triangles_fs`]
/// reads. It shares locations with [`ALIASED_POINT_LOCATION`] and
/// [`EDGE_MASK_LOCATION`], whose lowerings never run with it (points,
/// and polygons in line or point mode, are not filled triangles).
pub const ALIASED_CLIP_LOCATION: u32 = 27;
/// The locations above (26..=31) as a mask: the varyings the driver's GL
/// emulations add. Captured copies made for a shader that an emulation
/// lowers further stay off them (`passes::xfb::DRIVER_LOCATIONS`).
pub const DRIVER_LOCATIONS: u32 = 0xfc00_0000;
/// Bytes of the window of constant buffer 0 a shader lowered with
/// `ubo0_push_offset` declares and reads (at [`push::UBO0_OFFSET`] plus
/// its own offsets): the driver binds this many bytes and places data of
/// at most half of it anywhere in the first half.
pub const UBO0_WINDOW: u32 = 32 << 10;

impl DescClass {
    pub fn set(self) -> u32 {
        match self {
            DescClass::Ubo => SET_UBO,
            DescClass::SamplerView => SET_SAMPLER_VIEW,
            DescClass::Image => SET_IMAGE,
            DescClass::Ssbo => SET_SSBO,
        }
    }
    /// Slots per stage.
    pub fn max_slots(self) -> u32 {
        match self {
            DescClass::Ubo => MAX_CONSTANT_BUFFERS,
            DescClass::SamplerView => MAX_SAMPLER_VIEWS,
            DescClass::Image => MAX_IMAGES,
            DescClass::Ssbo => MAX_SHADER_BUFFERS,
        }
    }
}

/// `(set, binding)` of Gallium slot `slot` of class `class` in `stage`.
/// `None` when the slot is out of range.
pub fn binding_for(class: DescClass, stage: Stage, slot: u32) -> Option<(u32, u32)> {
    binding_for_with_stride(class, stage, slot, class.max_slots())
}

/// As [`binding_for`], with `stride` slots per stage.
pub fn binding_for_with_stride(
    class: DescClass,
    stage: Stage,
    slot: u32,
    stride: u32,
) -> Option<(u32, u32)> {
    (slot < stride).then(|| (class.set(), stage.index() * stride + slot))
}

/// Colour buffers a fragment shader can fetch (`fbfetch`, GL's
/// `gl_LastFragData[]`): the `slot`s of `fbfetch` variables.
pub const MAX_FBFETCH_SLOTS: u32 = 8;

/// `(set, binding)` of the sampled image (`SAMPLED_IMAGE`, a view of the
/// bound colour buffer `slot`) that `fbfetch` slot `slot` reads with
/// `OpImageFetch` at the fragment's pixel: set 1 (the sampler views'
/// set), after every stage's sampler views, at
/// `NUM_STAGES * MAX_SAMPLER_VIEWS + slot`. `None` when the slot is out
/// of range.
///
/// Why not an input attachment: with dynamic rendering that needs
/// `VK_KHR_dynamic_rendering_local_read`, which the Khronos validation
/// layer of the project machines (1.3.239) does not know, so no such
/// draw could be validated. The sampled image is the render-to-texture
/// feedback path (both uses in `GENERAL`, a barrier between draws).
pub fn fbfetch_binding(slot: u32) -> Option<(u32, u32)> {
    (slot < MAX_FBFETCH_SLOTS).then_some((SET_SAMPLER_VIEW, NUM_STAGES * MAX_SAMPLER_VIEWS + slot))
}

/// Layout of the driver's push constant block (byte offsets).
///
/// | offset | type | contents | read by |
/// |---|---|---|---|
/// | 0 | `u32` | [`DRAW_ID`](push::DRAW_ID) | vertex |
/// | 4 | `i32` | [`BASE_VERTEX`](push::BASE_VERTEX) | vertex |
/// | 8 | `u32` | [`LINE_STIPPLE`](push::LINE_STIPPLE) | fragment, line stipple emulation |
/// | 12 | `f32` | [`FB_HEIGHT`](push::FB_HEIGHT) | fragment, lower-left origin |
/// | 16 | `f32x4` | [`DEFAULT_TESS_OUTER`](push::DEFAULT_TESS_OUTER) | tess control |
/// | 32 | `f32x2` | [`DEFAULT_TESS_INNER`](push::DEFAULT_TESS_INNER) | tess control |
/// | 40 | `f32x2` | [`VIEWPORT_SCALE`](push::VIEWPORT_SCALE) | geometry (line stipple emulation), fragment (smooth-line emulation) |
/// | 48 | `u32 [2]` | [`UBO0_OFFSET`](push::UBO0_OFFSET) | vertex, fragment |
/// | 56 | `f32x2` | [`VIEWPORT_TRANSLATE`](push::VIEWPORT_TRANSLATE) | fragment |
/// | 64 | `f32x4 [8]` | [`CLIP_PLANES`](push::CLIP_PLANES) | last pre-raster stage |
///
/// [`SIZE`](push::SIZE) = 192 bytes. A lowering that reads the block
/// declares (or grows) the shader's `push` variable to `SIZE`.
pub mod push {
    /// `u32` draw id (`gl_DrawID`): the call's `drawid_offset`, stepped
    /// per draw when it increments; `draw_index` reads it plus Vulkan's
    /// `DrawIndex` ([`crate::passes::gl::lower_draw_index`]).
    pub const DRAW_ID: u32 = 0;
    /// `i32` base vertex.
    pub const BASE_VERTEX: u32 = 4;
    /// `u32` line stipple: the 16-bit pattern in bits 0..16 (bit `i` is
    /// the `i`-th step of the pattern, least significant first, as GL),
    /// Gallium's `line_stipple_factor` in bits 16..24 (GL's repeat factor
    /// minus one, 0..=255, so that GL's 1..=256 fits), bits 24..32
    /// ignored. The driver writes `line_stipple_pattern |
    /// line_stipple_factor << 16` from the rasterizer state, as Zink does.
    ///
    /// Read by the fragment lowering of the line stipple emulation
    /// ([`crate::passes::line_stipple::lower_line_stipple_fs`], key item
    /// `line_stipple`): the fragment is discarded when bit
    /// `floor(stipple_pos / (factor_minus_one + 1)) mod 16` of the pattern
    /// is 0, where `stipple_pos` is the window-space distance from the
    /// start of the line strip that the last vertex stage computes (see
    /// [`VIEWPORT_SCALE`]). The emulation is for devices without stippled
    /// lines in `VK_EXT_line_rasterization` (`stippledRectangularLines` /
    /// `stippledBresenhamLines` with `vkCmdSetLineStippleEXT`, which
    /// lavapipe has and which should be used where present); see
    /// [`crate::passes::line_stipple`] for where the counter restarts.
    pub const LINE_STIPPLE: u32 = 8;
    /// `f32` framebuffer height in pixels: the lower-left origin lowering
    /// computes `gl_FragCoord.y = FB_HEIGHT - FragCoord.y`.
    pub const FB_HEIGHT: u32 = 12;
    /// `f32x4` default outer tessellation levels.
    pub const DEFAULT_TESS_OUTER: u32 = 16;
    /// `f32x2` default inner tessellation levels.
    pub const DEFAULT_TESS_INNER: u32 = 32;
    /// `f32x2` viewport scale of viewport 0, as Gallium's
    /// `pipe_viewport_state::scale[0..2]` (half the viewport width and
    /// height in pixels; the sign of y does not matter to its readers).
    ///
    /// Read by the line stipple emulation in the last vertex stage (the
    /// geometry shader from
    /// [`crate::passes::line_stipple::line_stipple_gs`], or an
    /// application geometry shader lowered with `line_stipple`) to map
    /// clip-space positions to window pixels: `window = xy / w * scale`
    /// (the viewport offset cancels in a distance).
    pub const VIEWPORT_SCALE: u32 = 40;
    /// `u32 [2]` the byte offset of constant buffer 0's data in the
    /// window bound at its slot, for the vertex (element 0) and fragment
    /// (element 1) stages, where the shader reads constant buffer 0 that
    /// way ([`crate::passes::gl::lower_ubo0_push_offset`], key item
    /// `ubo0_push_offset`): user constants then change by a push
    /// constant, not a new descriptor.
    pub const UBO0_OFFSET: u32 = 48;
    /// `f32x2` viewport translate of viewport 0, as Gallium's
    /// `pipe_viewport_state::translate[0..2]`: with [`VIEWPORT_SCALE`],
    /// window = NDC × scale + translate, in Vulkan framebuffer coordinates
    /// (upper-left origin). Read by the smooth-line emulation's fragment
    /// shader ([`crate::passes::smooth_lines::lower_smooth_lines_fs`]).
    pub const VIEWPORT_TRANSLATE: u32 = 56;
    /// `f32x4 [8]` user clip planes.
    pub const CLIP_PLANES: u32 = 64;
    /// Size of the block in bytes.
    pub const SIZE: u32 = CLIP_PLANES + 8 * 16;
}

/// Layout of the driver constant buffer (Gallium constant buffer
/// [`DRIVER_UBO_SLOT`], byte offsets).
///
/// | offset | type | contents | read by |
/// |---|---|---|---|
/// | 0 | `u32 [32]` | [`POLYGON_STIPPLE`](driver_ubo::POLYGON_STIPPLE) | fragment |
/// | 128 | `u32x4 [8]` | [`WINDOW_RECTS`](driver_ubo::WINDOW_RECTS) | fragment |
///
/// [`SIZE`](driver_ubo::SIZE) = 256 bytes.
pub mod driver_ubo {
    /// `u32 [32]` polygon stipple pattern, as Gallium's
    /// `pipe_poly_stipple`: word `y` is row `FragCoord.y mod 32`, and bit
    /// `31 - (FragCoord.x mod 32)` of it (most significant bit first) says
    /// whether the fragment is drawn. Rows count in Vulkan framebuffer
    /// coordinates (upper-left origin); like st/mesa, pipe-vk flips the
    /// pattern for y-inverted framebuffers.
    pub const POLYGON_STIPPLE: u32 = 0;
    /// `u32x4 [8]` window rectangles (`GL_EXT_window_rectangles`, Gallium's
    /// `set_window_rectangles`): `(minx, miny, maxx, maxy)` each, min
    /// inclusive and max exclusive, in Vulkan framebuffer coordinates.
    /// Read by [`crate::passes::gl::lower_window_rects`] on devices without
    /// `VK_EXT_discard_rectangles`; how many are valid and the mode are
    /// in the variant key.
    pub const WINDOW_RECTS: u32 = 128;
    /// Most window rectangles (`PIPE_MAX_WINDOW_RECTANGLES`).
    pub const MAX_WINDOW_RECTS: u32 = 8;
    /// Size of the buffer in bytes.
    pub const SIZE: u32 = WINDOW_RECTS + 16 * MAX_WINDOW_RECTS;
}
