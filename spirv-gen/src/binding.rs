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
//! `binding = stage_index * slots_per_stage + slot`, with stage indices
//! vertex 0, tess_ctrl 1, tess_eval 2, geometry 3, fragment 4, compute 5
//! ([`crate::ir::Stage::index`]). A device that allows more sampler views can
//! raise the per-stage count with [`binding_for_with_stride`]; the default
//! emitter uses the fixed strides above.
//!
//! # Push constants
//!
//! The push constant block is the driver's: see [`push`] for its layout
//! (draw id, base vertex, default tessellation levels, line stipple, viewport
//! transform bits, user clip planes). Its size is [`push::SIZE`] bytes; a
//! shader reads it with `load_push`.
//!
//! # Varyings
//!
//! Inputs and outputs carry explicit locations. The GL lowerings that add
//! varyings place them at fixed locations: [`BFC0_LOCATION`],
//! [`BFC1_LOCATION`].

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

/// Location of the back-face colour 0 varying added by two-sided colour.
pub const BFC0_LOCATION: u32 = 30;
/// Location of the back-face colour 1 varying added by two-sided colour.
pub const BFC1_LOCATION: u32 = 31;

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

/// Layout of the driver's push constant block (byte offsets).
pub mod push {
    /// `u32` draw id (`gl_DrawID`).
    pub const DRAW_ID: u32 = 0;
    /// `i32` base vertex.
    pub const BASE_VERTEX: u32 = 4;
    /// `u32` line stipple: pattern in bits 0..16, factor in bits 16..24.
    pub const LINE_STIPPLE: u32 = 8;
    /// `u32` viewport transform bits: bit 0 lower-left origin, bit 1
    /// half-pixel centre, bit 2 clip-space depth [-1,1].
    pub const VIEWPORT_BITS: u32 = 12;
    /// `f32x4` default outer tessellation levels.
    pub const DEFAULT_TESS_OUTER: u32 = 16;
    /// `f32x2` default inner tessellation levels.
    pub const DEFAULT_TESS_INNER: u32 = 32;
    /// `f32x2` viewport scale (for point sprites / stipple).
    pub const VIEWPORT_SCALE: u32 = 40;
    /// `f32x4 [8]` user clip planes.
    pub const CLIP_PLANES: u32 = 64;
    /// Size of the block in bytes.
    pub const SIZE: u32 = CLIP_PLANES + 8 * 16;
}
