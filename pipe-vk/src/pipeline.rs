//! Graphics pipelines: layout, key, cache.
//!
//! Pipelines use dynamic rendering and every dynamic state GL has a use
//! for, as Zink does:
//!
//! - always (Vulkan 1.3 core, extended dynamic state 1 and 2): viewport
//!   and scissor with count, cull mode, front face, topology, primitive
//!   restart, depth test/write/compare, depth bias and bounds, stencil
//!   test/ops/masks/reference, line width, blend constants, rasterizer
//!   discard ([`DYNAMIC_STATES`]);
//! - blend state: VK_EXT_extended_dynamic_state3's colour blend enable,
//!   equation and write mask and logic-op enable, with extended dynamic
//!   state 2's logic op ([`DYNAMIC_BLEND_STATES`],
//!   `DeviceShared::dynamic_blend`);
//! - rasterizer state: polygon mode, depth clamp, provoking vertex, line
//!   rasterization mode and stipple, depth clip enable (extended dynamic
//!   state 3, VK_EXT_line_rasterization, VK_EXT_depth_clip_enable) and
//!   depth bias enable ([`DYNAMIC_RASTERIZER_STATES`],
//!   `DeviceShared::dynamic_rasterizer`);
//! - multisample state: sample mask, alpha-to-coverage and alpha-to-one
//!   ([`DYNAMIC_SAMPLE_STATES`], `DeviceShared::dynamic_sample_state`);
//! - the patch control point count (extended dynamic state 2,
//!   `DeviceShared::dynamic_patch_control_points`);
//! - vertex input ([`VertexInput`], VK_EXT_vertex_input_dynamic_state,
//!   `DeviceShared::dynamic_vertex_input`).
//!
//! A change of dynamic state records commands instead of switching
//! pipelines; where the device lacks a group (or a debug switch bakes it,
//! as `PIPE_VK_DEBUG=no_dynamic_*`), that state goes in the key. What
//! remains in [`GfxKey`]: the shader CSOs and their variant keys (which
//! carry the rasterizer's shader lowerings and the vertex fetch
//! fix-ups), attachment formats, sample count and topology class, plus
//! the CSOs and values of the groups that are not dynamic (handles are
//! hash-consed, so a handle stands for its state). Not used from extended
//! dynamic state 3: the rasterization sample count (it comes with the
//! attachments, which are in the key anyway) and the states GL has no use
//! for. Pipelines are cached per key in the context and backed by a
//! `VkPipelineCache`.
//!
//! The pipeline layout follows spirv-gen's fixed binding model
//! (`spirv_gen::binding`): set 0 holds the uniform buffers of every stage;
//! set 1 holds the combined image samplers; both are allocated from the
//! batch's pools and cached per batch by content (`crate::draw`); sets 2-3
//! (images, shader buffers) are empty;
//! push constants span the driver block. Pipelines whose shaders use
//! images, shader buffers or texture buffers use an extended layout of
//! `crate::descriptors` instead (same set 0 and push constants, sets 1-3
//! made from their bindings): [`GfxInputs::layout`].
//!
//! Set 1 comes in two shapes, hence two pipeline layouts: the vertex and
//! fragment stages' 32 samplers (the common case), and all five graphics
//! stages' 80, for pipelines whose tessellation or geometry shaders sample.
//! With one 80-binding set for every pipeline, pipe-bench draw's
//! texture-change scenario ran at 26 k draws/s on lavapipe against 67-75
//! with 32 bindings, so only those pipelines pay for it. Set 0 and the push
//! constant range are the same in both, so switching keeps them bound.

use hashbrown::HashMap;

use ash::vk;
use pipe_core::draw::PrimType;
use pipe_core::state::*;
use pipe_core::{PipeError, PipeResult};
use smallvec::SmallVec;
use spirv_gen::binding;

use crate::instance::vk_err;
use crate::memory::DeviceShared;

/// Topology classes a pipeline is compiled for (the exact topology is
/// dynamic within its class).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TopologyClass {
    Point,
    Line,
    Triangle,
    Patch,
}

/// Vulkan topology of a pipe primitive, if Vulkan has it.
pub fn vk_topology(p: PrimType) -> Option<vk::PrimitiveTopology> {
    use vk::PrimitiveTopology as T;
    Some(match p {
        PrimType::Points => T::POINT_LIST,
        PrimType::Lines => T::LINE_LIST,
        PrimType::LineStrip => T::LINE_STRIP,
        PrimType::Triangles => T::TRIANGLE_LIST,
        PrimType::TriangleStrip => T::TRIANGLE_STRIP,
        PrimType::TriangleFan => T::TRIANGLE_FAN,
        PrimType::LinesAdjacency => T::LINE_LIST_WITH_ADJACENCY,
        PrimType::LineStripAdjacency => T::LINE_STRIP_WITH_ADJACENCY,
        PrimType::TrianglesAdjacency => T::TRIANGLE_LIST_WITH_ADJACENCY,
        PrimType::TriangleStripAdjacency => T::TRIANGLE_STRIP_WITH_ADJACENCY,
        PrimType::Patches => T::PATCH_LIST,
        PrimType::LineLoop | PrimType::Quads | PrimType::QuadStrip | PrimType::Polygon => {
            return None
        }
    })
}

/// The class of a Vulkan topology.
pub fn topology_class(t: vk::PrimitiveTopology) -> TopologyClass {
    use vk::PrimitiveTopology as T;
    match t {
        T::POINT_LIST => TopologyClass::Point,
        T::LINE_LIST
        | T::LINE_STRIP
        | T::LINE_LIST_WITH_ADJACENCY
        | T::LINE_STRIP_WITH_ADJACENCY => TopologyClass::Line,
        T::PATCH_LIST => TopologyClass::Patch,
        _ => TopologyClass::Triangle,
    }
}

/// What makes a graphics pipeline.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GfxKey {
    pub vs: u32,
    pub tcs: Option<u32>,
    pub tes: Option<u32>,
    pub gs: Option<u32>,
    pub fs: Option<u32>,
    /// Control points per patch (tessellation pipelines only, and only
    /// where the count is not dynamic or the control shader is the
    /// generated pass-through one, which is built for the count:
    /// `DeviceShared::dynamic_patch_control_points`).
    pub patch_vertices: u8,
    /// The vertex-elements CSO, or `None` where vertex input is dynamic
    /// (`DeviceShared::dynamic_vertex_input`).
    pub velems: Option<u32>,
    /// Where vertex input is baked: the slots the elements read that are
    /// bound to the dummy buffer, fetched with stride 0
    /// (`VkContext::dummy_slots`).
    pub dummy_slots: u32,
    /// The blend CSO, or `None` where blend state is dynamic
    /// (`DeviceShared::dynamic_blend`): then only its alpha-to-coverage
    /// and alpha-to-one, which stay in the pipeline, are in `blend_ms`
    /// (`(false, false)` where they are dynamic too,
    /// `DeviceShared::dynamic_sample_state`).
    pub blend: Option<u32>,
    pub blend_ms: (bool, bool),
    /// The rasterizer CSO, or `None` where rasterizer state is dynamic
    /// (`DeviceShared::dynamic_rasterizer`).
    pub rasterizer: Option<u32>,
    pub color_formats: SmallVec<[vk::Format; 8]>,
    pub depth_format: vk::Format,
    pub stencil_format: vk::Format,
    pub samples: u32,
    /// A tessellation or geometry shader samples textures: the pipeline
    /// uses [`Layout::wide_layout`].
    pub wide_textures: bool,
    /// Colour attachments with a pure-integer format: Vulkan forbids
    /// blending on them (no BLEND feature), GL ignores blend state there.
    pub int_targets: u8,
    /// GL's sample mask, already cut to the sample count (`!0` when
    /// single-sampled, where GL ignores it; 0 where it is dynamic).
    pub sample_mask: u32,
    pub topology: TopologyClass,
    /// A generated geometry shader (line stipple emulation, polygon edge
    /// masks, aliased triangles) takes an adjacency primitive: its input must match the
    /// draw's topology, which is otherwise dynamic within its class.
    pub gs_adjacency: bool,
    /// The generated polygon-edge geometry shader also reads the vertex
    /// shader's explicit edge flags (`shader::GeneratedGs::edge_flags`).
    pub gs_edge_flags: bool,
    /// Variant keys of the last vertex-processing stage (clip planes,
    /// depth range, point size) and of the fragment shader; the other
    /// stages take the default key.
    pub vs_key: spirv_gen::passes::VariantKey,
    pub fs_key: spirv_gen::passes::VariantKey,
    /// `sampleLocationsEnable`: the draw uses programmable sample
    /// locations, dynamic in this pipeline (`crate::sample_locations`).
    pub sample_locations: bool,
    /// Window rectangles through VK_EXT_discard_rectangles: include mode
    /// and rectangle count; the rectangles are dynamic
    /// (`crate::discard_rectangles`).
    pub discard_rectangles: Option<(bool, u8)>,
    /// The polygon mode (raw `vk::PolygonMode`) of a tessellation
    /// pipeline on a device that needs one pipeline per polygon mode
    /// (`DeviceShared::tes_variants_follow_outputs`); FILL (0) otherwise.
    /// It stays dynamic state, set to this.
    pub tess_polygon_mode: i32,
}

/// The states a pipeline is built from (looked up from the key's handles).
pub struct GfxInputs<'a> {
    pub vs: vk::ShaderModule,
    pub tcs: Option<vk::ShaderModule>,
    pub tes: Option<vk::ShaderModule>,
    pub gs: Option<vk::ShaderModule>,
    pub fs: Option<vk::ShaderModule>,
    pub velems: &'a [VertexElement],
    /// How each element is fetched: the Vulkan format and the input
    /// location (`format::vertex_elements_fetch`).
    pub fetch: &'a [crate::format::ElementFetch],
    pub blend: &'a BlendState,
    pub rasterizer: &'a RasterizerState,
    /// The extended layout of a pipeline whose shaders use images, shader
    /// buffers or texture buffers (`crate::descriptors`).
    pub layout: Option<vk::PipelineLayout>,
    /// The input locations the vertex shader reads (bit i = location i;
    /// `shader::vertex_input_locations`): a baked vertex input keeps only
    /// their attributes.
    pub vs_inputs: u32,
    /// Slots bound to the dummy buffer (`GfxKey::dummy_slots`).
    pub dummy_slots: u32,
}

/// The line rasterization mode of a pipeline (`VK_EXT_line_rasterization`),
/// as Zink picks it: rectangular (smooth when asked) for
/// `line_rectangular`, else Bresenham (GL's non-antialiased lines).
/// Bresenham and smooth lines exclude alpha-to-coverage, alpha-to-one and
/// sample shading (VUID 02766), which `per_sample_ms` says are on. The
/// second value: whether the device stipples lines in that mode (and the
/// `emulate_line_stipple` debug switch is off); otherwise a stippled line
/// is emulated in shaders (`spirv_gen::passes::line_stipple`).
/// `samples`: the draw's sample count (smooth lines are the device's
/// only with one sample, or several with multisampling off, and where its
/// smooth lines work: `smooth_lines_native`).
pub fn line_rasterization(
    dev: &DeviceShared,
    r: &RasterizerState,
    per_sample_ms: bool,
    samples: u32,
) -> (vk::LineRasterizationModeEXT, bool) {
    let lf = &dev.device.features.line_rasterization;
    // Smooth lines are rectangular (st/mesa sets `line_rectangular` for
    // them); where the device cannot smooth them, the shaders may
    // (`VkContext::smooth_lines_emulated`), on a rectangular line.
    let line_mode = if r.line_rectangular || r.line_smooth {
        if smooth_lines_native(dev, r, per_sample_ms, samples) {
            vk::LineRasterizationModeEXT::RECTANGULAR_SMOOTH
        } else if lf.rectangular_lines == vk::TRUE {
            vk::LineRasterizationModeEXT::RECTANGULAR
        } else {
            vk::LineRasterizationModeEXT::DEFAULT
        }
    } else if lf.bresenham_lines == vk::TRUE && !per_sample_ms {
        vk::LineRasterizationModeEXT::BRESENHAM
    } else {
        vk::LineRasterizationModeEXT::DEFAULT
    };
    let stipple_ok = match line_mode {
        vk::LineRasterizationModeEXT::RECTANGULAR => lf.stippled_rectangular_lines,
        vk::LineRasterizationModeEXT::BRESENHAM => lf.stippled_bresenham_lines,
        vk::LineRasterizationModeEXT::RECTANGULAR_SMOOTH => lf.stippled_smooth_lines,
        _ => vk::FALSE,
    } == vk::TRUE
        && !dev.debug.emulate_line_stipple;
    (line_mode, stipple_ok)
}

/// Whether the device draws `r`'s lines smooth itself
/// (`RECTANGULAR_SMOOTH`): GL's smooth lines with `smoothLines`, not with
/// per-sample multisampling (`per_sample_ms`, VUID 02766). On a
/// multisampled framebuffer only with multisampling off: with it on, GL
/// ignores `LINE_SMOOTH` (the samples antialias the line), and pipe-vk
/// draws rectangular lines (lavapipe 25.0.7's smooth-line stage also
/// crashed there, in `check_opaque` under `aaline_flush`, once many
/// triangle setups were cached: state-fuzz seed 552, a 4-sample
/// framebuffer, smooth lines with adjacency). Only where the driver's
/// smooth lines work (`DeviceShared::device_smooth_lines`), and with one
/// sample only where the `emulate_smooth_lines` debug switch is off.
/// Single-sampled lines
/// narrower than a pixel are left to the emulation: an NVIDIA H100
/// (driver 580.159) draws a 0.5-wide smooth line as if 1 wide (alpha 1
/// on the row it centres on, where GL asks 0.5;
/// `pipe.render.smooth_lines.single_sample`).
pub fn smooth_lines_native(
    dev: &DeviceShared,
    r: &RasterizerState,
    per_sample_ms: bool,
    samples: u32,
) -> bool {
    r.line_smooth
        && dev.device.features.line_rasterization.smooth_lines == vk::TRUE
        && !per_sample_ms
        && dev.device_smooth_lines()
        && ((samples > 1 && !r.multisample)
            || (samples == 1 && !dev.debug.emulate_smooth_lines && r.line_width >= 1.0))
}

/// The vertex input of a vertex-elements CSO: one binding per vertex
/// buffer used, with the stride, rate and instance divisor of its
/// elements (pipe-core checked that they agree per buffer), and one
/// attribute per element (two for a 64-bit element split into 32-bit
/// pairs), from the fetch formats and locations of
/// `format::vertex_elements_fetch`. Pipelines bake it, or, with
/// VK_EXT_vertex_input_dynamic_state (`DeviceShared::dynamic_vertex_input`),
/// it is recorded with `vkCmdSetVertexInputEXT` when the bound CSO
/// changes, so a vertex-elements change does not switch pipelines (only
/// the vertex shader's fetch fix-ups, which are in its variant key, do).
pub struct VertexInput {
    pub bindings: SmallVec<[vk::VertexInputBindingDescription2EXT<'static>; 16]>,
    pub attributes: SmallVec<[vk::VertexInputAttributeDescription2EXT<'static>; 16]>,
}

impl VertexInput {
    /// The vertex input of `velems` fetched as `fetch` says, with the
    /// slots in `dummy` (bound to the dummy buffer) at stride 0, so that
    /// no vertex reads past that small buffer. Errors when an element has
    /// no fetch format, or when an instance divisor above 1 meets a
    /// device without VK_EXT_vertex_attribute_divisor.
    pub fn new(
        dev: &DeviceShared,
        velems: &[VertexElement],
        fetch: &[crate::format::ElementFetch],
        dummy: u32,
    ) -> PipeResult<Self> {
        let divisor_ok = dev
            .device
            .features
            .vertex_attribute_divisor
            .vertex_attribute_instance_rate_divisor
            == vk::TRUE;
        let mut vi = VertexInput {
            bindings: SmallVec::new(),
            attributes: SmallVec::new(),
        };
        for (i, e) in velems.iter().enumerate() {
            let b = u32::from(e.vertex_buffer_index);
            let on_dummy = b < 32 && dummy >> b & 1 == 1;
            if !vi.bindings.iter().any(|x| x.binding == b) {
                if e.instance_divisor > 1 && !divisor_ok && !on_dummy {
                    return Err(PipeError::unsupported(
                        "instance divisors above 1 need VK_EXT_vertex_attribute_divisor",
                    ));
                }
                vi.bindings.push(if on_dummy {
                    vk::VertexInputBindingDescription2EXT::default()
                        .binding(b)
                        .stride(0)
                        .input_rate(vk::VertexInputRate::VERTEX)
                        .divisor(1)
                } else {
                    vk::VertexInputBindingDescription2EXT::default()
                        .binding(b)
                        .stride(e.src_stride)
                        .input_rate(if e.instance_divisor > 0 {
                            vk::VertexInputRate::INSTANCE
                        } else {
                            vk::VertexInputRate::VERTEX
                        })
                        .divisor(e.instance_divisor.max(1))
                });
            }
            let fetch = fetch.get(i).ok_or_else(|| {
                PipeError::invalid(format!("vertex element {i} has no fetch format"))
            })?;
            vi.attributes.push(
                vk::VertexInputAttributeDescription2EXT::default()
                    .location(fetch.location)
                    .binding(b)
                    .format(fetch.format)
                    .offset(e.src_offset),
            );
            if let Some((format, location)) = fetch.upper {
                vi.attributes.push(
                    vk::VertexInputAttributeDescription2EXT::default()
                        .location(location)
                        .binding(b)
                        .format(format)
                        .offset(e.src_offset + 16),
                );
            }
        }
        Ok(vi)
    }
}

/// The pipeline layouts of the binding model and their set layouts.
pub struct Layout {
    pub sets: [vk::DescriptorSetLayout; 4],
    pub layout: vk::PipelineLayout,
    /// Set 1 with the samplers of all five graphics stages.
    pub wide_tex_set: vk::DescriptorSetLayout,
    /// `layout` with `wide_tex_set` as set 1.
    pub wide_layout: vk::PipelineLayout,
    pub push_size: u32,
}

impl Layout {
    /// Creates the layout of the binding model on `dev`.
    pub fn new(dev: &DeviceShared) -> PipeResult<Self> {
        let raw = dev.raw();
        let gfx_stages = [
            vk::ShaderStageFlags::VERTEX,
            vk::ShaderStageFlags::TESSELLATION_CONTROL,
            vk::ShaderStageFlags::TESSELLATION_EVALUATION,
            vk::ShaderStageFlags::GEOMETRY,
            vk::ShaderStageFlags::FRAGMENT,
            vk::ShaderStageFlags::COMPUTE,
        ];
        // Set 0: uniform buffers. Only the slots pipe-vk binds today are
        // declared: the first UBO_SLOTS of each graphics stage (it was a
        // push-descriptor set, which holds at most maxPushDescriptors,
        // >= 32, bindings).
        let mut ubo = Vec::new();
        // The fragment stage's driver constant buffer (polygon stipple).
        ubo.push(
            vk::DescriptorSetLayoutBinding::default()
                .binding(4 * binding::MAX_CONSTANT_BUFFERS + binding::DRIVER_UBO_SLOT)
                .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::FRAGMENT),
        );
        for (stage, flags) in gfx_stages.iter().enumerate() {
            for slot in 0..UBO_SLOTS {
                ubo.push(
                    vk::DescriptorSetLayoutBinding::default()
                        .binding(stage as u32 * binding::MAX_CONSTANT_BUFFERS + slot)
                        .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER)
                        .descriptor_count(1)
                        .stage_flags(*flags),
                );
            }
        }
        let mut sets = [vk::DescriptorSetLayout::null(); 4];
        // Set 1: combined image samplers of the five graphics stages,
        // slots 0..TEX_SLOTS, allocated per draw from the batch's pools.
        let mut tex = Vec::new();
        let mut wide_tex = Vec::new();
        for stage in 0u32..5 {
            for slot in 0..TEX_SLOTS {
                let b = vk::DescriptorSetLayoutBinding::default()
                    .binding(stage * binding::MAX_SAMPLER_VIEWS + slot)
                    .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
                    .descriptor_count(1)
                    .stage_flags(gfx_stages[stage as usize]);
                if stage == 0 || stage == 4 {
                    tex.push(b);
                }
                wide_tex.push(b);
            }
        }
        for (i, set) in sets.iter_mut().enumerate() {
            let bindings: &[vk::DescriptorSetLayoutBinding] = match i {
                0 => &ubo,
                1 => &tex,
                _ => &[],
            };
            let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(bindings);
            // SAFETY: valid bindings.
            *set = unsafe { raw.create_descriptor_set_layout(&info, None) }
                .map_err(|e| vk_err("vkCreateDescriptorSetLayout", e))?;
        }
        let push_size =
            binding::push::SIZE.min(dev.physical.properties.limits.max_push_constants_size) & !3;
        let ranges = [vk::PushConstantRange {
            stage_flags: vk::ShaderStageFlags::ALL,
            offset: 0,
            size: push_size,
        }];
        let info = vk::PipelineLayoutCreateInfo::default()
            .set_layouts(&sets)
            .push_constant_ranges(&ranges);
        // SAFETY: the set layouts were just created.
        let layout = unsafe { raw.create_pipeline_layout(&info, None) }
            .map_err(|e| vk_err("vkCreatePipelineLayout", e))?;
        let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&wide_tex);
        // SAFETY: valid bindings.
        let wide_tex_set = unsafe { raw.create_descriptor_set_layout(&info, None) }
            .map_err(|e| vk_err("vkCreateDescriptorSetLayout", e))?;
        let wide_sets = [sets[0], wide_tex_set, sets[2], sets[3]];
        let info = vk::PipelineLayoutCreateInfo::default()
            .set_layouts(&wide_sets)
            .push_constant_ranges(&ranges);
        // SAFETY: the set layouts were just created.
        let wide_layout = unsafe { raw.create_pipeline_layout(&info, None) }
            .map_err(|e| vk_err("vkCreatePipelineLayout", e))?;
        Ok(Layout {
            sets,
            layout,
            wide_tex_set,
            wide_layout,
            push_size,
        })
    }

    /// Destroys the layout.
    pub fn destroy(&self, device: &ash::Device) {
        // SAFETY: no pipeline using the layout is still executing (the
        // context waited for its batches).
        unsafe {
            device.destroy_pipeline_layout(self.layout, None);
            device.destroy_pipeline_layout(self.wide_layout, None);
            device.destroy_descriptor_set_layout(self.wide_tex_set, None);
            for s in self.sets {
                device.destroy_descriptor_set_layout(s, None);
            }
        }
    }
}

/// Texture slots per stage (vertex and fragment) that pipe-vk binds.
pub const TEX_SLOTS: u32 = 16;

/// Uniform-buffer slots per stage that pipe-vk binds (5 graphics stages x
/// 5, plus the driver buffer, fit the 32 bindings a push-descriptor set
/// may hold, should set 0 become one again).
pub const UBO_SLOTS: u32 = 5;

pub(crate) fn blend_factor(f: BlendFactor) -> vk::BlendFactor {
    use vk::BlendFactor as V;
    match f {
        BlendFactor::One => V::ONE,
        BlendFactor::SrcColor => V::SRC_COLOR,
        BlendFactor::SrcAlpha => V::SRC_ALPHA,
        BlendFactor::DstAlpha => V::DST_ALPHA,
        BlendFactor::DstColor => V::DST_COLOR,
        BlendFactor::SrcAlphaSaturate => V::SRC_ALPHA_SATURATE,
        BlendFactor::ConstColor => V::CONSTANT_COLOR,
        BlendFactor::ConstAlpha => V::CONSTANT_ALPHA,
        BlendFactor::Src1Color => V::SRC1_COLOR,
        BlendFactor::Src1Alpha => V::SRC1_ALPHA,
        BlendFactor::Zero => V::ZERO,
        BlendFactor::InvSrcColor => V::ONE_MINUS_SRC_COLOR,
        BlendFactor::InvSrcAlpha => V::ONE_MINUS_SRC_ALPHA,
        BlendFactor::InvDstAlpha => V::ONE_MINUS_DST_ALPHA,
        BlendFactor::InvDstColor => V::ONE_MINUS_DST_COLOR,
        BlendFactor::InvConstColor => V::ONE_MINUS_CONSTANT_COLOR,
        BlendFactor::InvConstAlpha => V::ONE_MINUS_CONSTANT_ALPHA,
        BlendFactor::InvSrc1Color => V::ONE_MINUS_SRC1_COLOR,
        BlendFactor::InvSrc1Alpha => V::ONE_MINUS_SRC1_ALPHA,
    }
}

pub(crate) fn blend_op(f: BlendFunc) -> vk::BlendOp {
    match f {
        BlendFunc::Add => vk::BlendOp::ADD,
        BlendFunc::Subtract => vk::BlendOp::SUBTRACT,
        BlendFunc::ReverseSubtract => vk::BlendOp::REVERSE_SUBTRACT,
        BlendFunc::Min => vk::BlendOp::MIN,
        BlendFunc::Max => vk::BlendOp::MAX,
    }
}

pub(crate) fn logic_op(op: LogicOp) -> vk::LogicOp {
    use vk::LogicOp as V;
    match op {
        LogicOp::Clear => V::CLEAR,
        LogicOp::Nor => V::NOR,
        LogicOp::AndInverted => V::AND_INVERTED,
        LogicOp::CopyInverted => V::COPY_INVERTED,
        LogicOp::AndReverse => V::AND_REVERSE,
        LogicOp::Invert => V::INVERT,
        LogicOp::Xor => V::XOR,
        LogicOp::Nand => V::NAND,
        LogicOp::And => V::AND,
        LogicOp::Equiv => V::EQUIVALENT,
        LogicOp::Noop => V::NO_OP,
        LogicOp::OrInverted => V::OR_INVERTED,
        LogicOp::Copy => V::COPY,
        LogicOp::OrReverse => V::OR_REVERSE,
        LogicOp::Or => V::OR,
        LogicOp::Set => V::SET,
    }
}

/// The one polygon mode Vulkan rasterizes both faces with, from GL's
/// front and back modes: the back face's when front faces are culled,
/// else the front face's (as Zink picks it). Different modes on two
/// faces that are both drawn cannot be had; the front's wins.
pub fn effective_polygon_mode(r: &RasterizerState) -> PolygonMode {
    if r.cull_face.contains(pipe_core::state::Face::FRONT)
        && !r.cull_face.contains(pipe_core::state::Face::BACK)
    {
        r.fill_back
    } else {
        r.fill_front
    }
}

/// Whether polygon offset (depth bias) applies: GL enables it per
/// polygon mode (`offset_tri` for filled polygons, GL_POLYGON_OFFSET_FILL;
/// `offset_line` and `offset_point` for polygons drawn in mode `LINE` or
/// `POINT`), for the mode the rasterizer draws with
/// ([`effective_polygon_mode`]), as Zink's `util_get_offset`. Vulkan's
/// depth bias acts on polygons only, so line and point primitives are
/// not offset whatever the flags say, as in GL.
pub fn polygon_offset_enabled(r: &RasterizerState) -> bool {
    match effective_polygon_mode(r) {
        PolygonMode::Fill | PolygonMode::FillRectangle => r.offset_tri,
        PolygonMode::Line => r.offset_line,
        PolygonMode::Point => r.offset_point,
    }
}

pub(crate) fn polygon_mode(m: PolygonMode) -> vk::PolygonMode {
    match m {
        PolygonMode::Fill | PolygonMode::FillRectangle => vk::PolygonMode::FILL,
        PolygonMode::Line => vk::PolygonMode::LINE,
        PolygonMode::Point => vk::PolygonMode::POINT,
    }
}

/// Dynamic states graphics pipelines declare when blend state is dynamic
/// (`DeviceShared::dynamic_blend`), besides [`DYNAMIC_STATES`].
pub const DYNAMIC_BLEND_STATES: [vk::DynamicState; 5] = [
    vk::DynamicState::COLOR_BLEND_ENABLE_EXT,
    vk::DynamicState::COLOR_BLEND_EQUATION_EXT,
    vk::DynamicState::COLOR_WRITE_MASK_EXT,
    vk::DynamicState::LOGIC_OP_ENABLE_EXT,
    vk::DynamicState::LOGIC_OP_EXT,
];

/// Dynamic states graphics pipelines declare when the multisample state
/// is dynamic (`DeviceShared::dynamic_sample_state`), with alpha-to-one
/// enable where the device has alpha-to-one.
pub const DYNAMIC_SAMPLE_STATES: [vk::DynamicState; 2] = [
    vk::DynamicState::SAMPLE_MASK_EXT,
    vk::DynamicState::ALPHA_TO_COVERAGE_ENABLE_EXT,
];

/// Dynamic states graphics pipelines declare when rasterizer state is
/// dynamic (`DeviceShared::dynamic_rasterizer`), with depth clip enable
/// where the device has VK_EXT_depth_clip_enable
/// (`DeviceShared::separate_depth_clip`).
pub const DYNAMIC_RASTERIZER_STATES: [vk::DynamicState; 6] = [
    vk::DynamicState::POLYGON_MODE_EXT,
    vk::DynamicState::DEPTH_CLAMP_ENABLE_EXT,
    vk::DynamicState::PROVOKING_VERTEX_MODE_EXT,
    vk::DynamicState::LINE_RASTERIZATION_MODE_EXT,
    vk::DynamicState::LINE_STIPPLE_ENABLE_EXT,
    vk::DynamicState::LINE_STIPPLE_EXT,
];

/// Dynamic states every graphics pipeline declares. Rasterizer discard
/// is one so that a pipeline always has rasterization state: with it
/// statically on, the multisample state is ignored and validation takes
/// the pipeline for single-sampled, refusing it on a multisampled
/// framebuffer (VUID-vkCmdDraw-colorAttachmentCount-06188; Zink sets it
/// dynamically too). Depth bias enable is core Vulkan 1.3 dynamic state
/// like the other enables here, so it is dynamic also where the other
/// rasterizer states are baked (`PIPE_VK_DEBUG=no_dynamic_rasterizer`, or
/// no VK_EXT_extended_dynamic_state3): on NVIDIA 580 a baked
/// depthBiasEnable with a geometry shader did not offset
/// (`pipe.draw.review_s3.polygon_offset.line_line_mode.baked`).
pub const DYNAMIC_STATES: [vk::DynamicState; 21] = [
    vk::DynamicState::VIEWPORT_WITH_COUNT,
    vk::DynamicState::SCISSOR_WITH_COUNT,
    vk::DynamicState::LINE_WIDTH,
    vk::DynamicState::DEPTH_BIAS,
    vk::DynamicState::BLEND_CONSTANTS,
    vk::DynamicState::DEPTH_BOUNDS,
    vk::DynamicState::STENCIL_COMPARE_MASK,
    vk::DynamicState::STENCIL_WRITE_MASK,
    vk::DynamicState::STENCIL_REFERENCE,
    vk::DynamicState::CULL_MODE,
    vk::DynamicState::FRONT_FACE,
    vk::DynamicState::PRIMITIVE_TOPOLOGY,
    vk::DynamicState::DEPTH_TEST_ENABLE,
    vk::DynamicState::DEPTH_WRITE_ENABLE,
    vk::DynamicState::DEPTH_COMPARE_OP,
    vk::DynamicState::DEPTH_BOUNDS_TEST_ENABLE,
    vk::DynamicState::STENCIL_TEST_ENABLE,
    vk::DynamicState::STENCIL_OP,
    vk::DynamicState::PRIMITIVE_RESTART_ENABLE,
    vk::DynamicState::RASTERIZER_DISCARD_ENABLE,
    vk::DynamicState::DEPTH_BIAS_ENABLE,
];

/// A context's pipelines.
pub struct PipelineCache {
    pub layout: Layout,
    pipelines: HashMap<GfxKey, vk::Pipeline>,
    /// Lookups and creations (for `pipe-info`/tests: the hit rate).
    pub lookups: u64,
    pub created: u64,
}

impl PipelineCache {
    /// An empty cache with the universal layout.
    pub fn new(dev: &DeviceShared) -> PipeResult<Self> {
        let layout = Layout::new(dev)?;
        Ok(PipelineCache {
            layout,
            pipelines: HashMap::new(),
            lookups: 0,
            created: 0,
        })
    }

    /// The pipeline for `key`, if built.
    pub fn lookup(&mut self, dev: &DeviceShared, key: &GfxKey) -> Option<vk::Pipeline> {
        self.lookups += 1;
        let p = self.pipelines.get(key).copied();
        if p.is_some() {
            dev.disk_cache().count(false);
        }
        p
    }

    /// Builds and caches the pipeline for `key`.
    pub fn create(
        &mut self,
        dev: &DeviceShared,
        key: GfxKey,
        inputs: &GfxInputs<'_>,
    ) -> PipeResult<vk::Pipeline> {
        let entry = c"main";
        let mut stages = vec![vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::VERTEX)
            .module(inputs.vs)
            .name(entry)];
        for (module, stage) in [
            (inputs.tcs, vk::ShaderStageFlags::TESSELLATION_CONTROL),
            (inputs.tes, vk::ShaderStageFlags::TESSELLATION_EVALUATION),
            (inputs.gs, vk::ShaderStageFlags::GEOMETRY),
            (inputs.fs, vk::ShaderStageFlags::FRAGMENT),
        ] {
            if let Some(m) = module {
                stages.push(
                    vk::PipelineShaderStageCreateInfo::default()
                        .stage(stage)
                        .module(m)
                        .name(entry),
                );
            }
        }
        // GL's tessellation domain has its origin at the lower left (as
        // its window coordinates): with Vulkan's default upper-left origin
        // the generated triangles' vertex order, and so their facing, is
        // reversed (Zink does the same, zink_pipeline.c).
        let mut domain_origin = vk::PipelineTessellationDomainOriginStateCreateInfo::default()
            .domain_origin(vk::TessellationDomainOrigin::LOWER_LEFT);
        let tess = vk::PipelineTessellationStateCreateInfo::default()
            .patch_control_points(u32::from(key.patch_vertices.max(1)))
            .push_next(&mut domain_origin);
        let mut vi_desc = VertexInput::new(dev, inputs.velems, inputs.fetch, inputs.dummy_slots)?;
        // GL lets vertex elements go unread; a baked attribute the shader
        // does not consume draws a validation performance warning (Zink
        // bakes only the attributes the shader reads, too). The upper
        // halves of split attributes are the fix-ups' own inputs.
        let uppers: SmallVec<[u32; 4]> = inputs
            .fetch
            .iter()
            .filter_map(|f| f.upper.map(|(_, location)| location))
            .collect();
        vi_desc.attributes.retain(|a| {
            uppers.contains(&a.location)
                || (a.location < 32 && inputs.vs_inputs >> a.location & 1 == 1)
        });
        let divisors: SmallVec<[vk::VertexInputBindingDivisorDescriptionKHR; 4]> = vi_desc
            .bindings
            .iter()
            .filter(|b| b.divisor > 1)
            .map(|b| vk::VertexInputBindingDivisorDescriptionKHR {
                binding: b.binding,
                divisor: b.divisor,
            })
            .collect();
        let bindings: SmallVec<[vk::VertexInputBindingDescription; 16]> = vi_desc
            .bindings
            .iter()
            .map(|b| vk::VertexInputBindingDescription {
                binding: b.binding,
                stride: b.stride,
                input_rate: b.input_rate,
            })
            .collect();
        let attrs: SmallVec<[vk::VertexInputAttributeDescription; 16]> = vi_desc
            .attributes
            .iter()
            .map(|a| vk::VertexInputAttributeDescription {
                location: a.location,
                binding: a.binding,
                format: a.format,
                offset: a.offset,
            })
            .collect();
        let mut divisor_info = vk::PipelineVertexInputDivisorStateCreateInfoKHR::default()
            .vertex_binding_divisors(&divisors);
        // With dynamic vertex input the pipeline has none: it is recorded
        // at draw time (`VertexInput`).
        let vi = vk::PipelineVertexInputStateCreateInfo::default();
        let vi = if dev.dynamic_vertex_input() {
            vi
        } else if divisors.is_empty() {
            vi.vertex_binding_descriptions(&bindings)
                .vertex_attribute_descriptions(&attrs)
        } else {
            vi.vertex_binding_descriptions(&bindings)
                .vertex_attribute_descriptions(&attrs)
                .push_next(&mut divisor_info)
        };
        let topology = match key.topology {
            TopologyClass::Point => vk::PrimitiveTopology::POINT_LIST,
            TopologyClass::Line => vk::PrimitiveTopology::LINE_LIST,
            TopologyClass::Triangle => vk::PrimitiveTopology::TRIANGLE_LIST,
            TopologyClass::Patch => vk::PrimitiveTopology::PATCH_LIST,
        };
        let ia = vk::PipelineInputAssemblyStateCreateInfo::default().topology(topology);
        let vp = vk::PipelineViewportStateCreateInfo::default();
        let r = inputs.rasterizer;
        // Aliased triangles test the depth planes in the shader
        // (`VariantKey::aliased_depth_clip`).
        let aliased_depth = key.fs_key.aliased_depth_clip.is_some();
        let rs = vk::PipelineRasterizationStateCreateInfo::default()
            .depth_clamp_enable(r.depth_clamp || aliased_depth)
            // Dynamic (`DYNAMIC_STATES`).
            .rasterizer_discard_enable(false)
            .polygon_mode(polygon_mode(effective_polygon_mode(r)))
            // Dynamic (`DYNAMIC_STATES`).
            .depth_bias_enable(false)
            .line_width(1.0);
        // GL's provoking vertex is the last one unless flatshade_first;
        // Vulkan's default is the first (VK_EXT_provoking_vertex).
        let mut provoking = vk::PipelineRasterizationProvokingVertexStateCreateInfoEXT::default()
            .provoking_vertex_mode(if r.flatshade_first {
                vk::ProvokingVertexModeEXT::FIRST_VERTEX
            } else {
                vk::ProvokingVertexModeEXT::LAST_VERTEX
            });
        let rs = if dev.device.features.provoking_vertex.provoking_vertex_last == vk::TRUE {
            rs.push_next(&mut provoking)
        } else {
            rs
        };
        // Line rasterization (VK_EXT_line_rasterization), as Zink picks it:
        // rectangular (smooth when asked) for `line_rectangular`, else
        // Bresenham (GL's non-antialiased lines); stipple with the factor
        // Gallium stores minus one. Bresenham and smooth lines exclude
        // alpha-to-coverage, alpha-to-one and sample shading (VUID 02766).
        let per_sample_ms = inputs.blend.alpha_to_coverage
            || inputs.blend.alpha_to_one
            || (key.fs_key.sample_shading && key.samples > 1);
        let (line_mode, stipple_ok) = line_rasterization(dev, r, per_sample_ms, key.samples);
        let mut line = vk::PipelineRasterizationLineStateCreateInfoEXT::default()
            .line_rasterization_mode(line_mode)
            // Not where the shaders stipple (stippled smooth lines with
            // their ends, `VkContext::variant_keys`).
            .stippled_line_enable(r.line_stipple_enable && stipple_ok && !key.fs_key.line_stipple)
            .line_stipple_factor(u32::from(r.line_stipple_factor) + 1)
            .line_stipple_pattern(r.line_stipple_pattern);
        let rs = if line_mode != vk::LineRasterizationModeEXT::DEFAULT {
            rs.push_next(&mut line)
        } else {
            rs
        };
        // Depth clipping apart from clamping (VK_EXT_depth_clip_enable):
        // without it Vulkan clips exactly when it does not clamp. Vulkan
        // has one switch for both planes; the near plane's decides, as in
        // Zink (pipe-vk claims no separate near/far clip).
        let mut depth_clip = vk::PipelineRasterizationDepthClipStateCreateInfoEXT::default()
            .depth_clip_enable(r.depth_clip_near && !aliased_depth);
        let rs = if dev.separate_depth_clip() {
            rs.push_next(&mut depth_clip)
        } else {
            rs
        };
        let samples = vk::SampleCountFlags::from_raw(key.samples.max(1));
        let per_sample = key.fs_key.sample_shading
            && key.samples > 1
            && dev.device.features.core.sample_rate_shading == vk::TRUE;
        // Where the sample state is dynamic, the key holds no sample mask,
        // alpha-to-coverage or alpha-to-one: the values here are ignored.
        let dynamic_samples = dev.dynamic_sample_state();
        let sample_mask = [key.sample_mask];
        let ms = vk::PipelineMultisampleStateCreateInfo::default()
            .rasterization_samples(samples)
            .sample_shading_enable(per_sample)
            .min_sample_shading(if per_sample { 1.0 } else { 0.0 })
            .alpha_to_coverage_enable(key.blend_ms.0)
            .alpha_to_one_enable(key.blend_ms.1);
        let ms = if dynamic_samples {
            ms
        } else {
            ms.sample_mask(&sample_mask)
        };
        // Programmable sample locations: enabled here, recorded at draw
        // time (`crate::sample_locations`); the locations below only fill
        // the ignored, dynamic field validly.
        let (grid, placeholder) = match &dev.sample_locations {
            Some(s) if key.sample_locations => s.placeholder(key.samples),
            _ => (vk::Extent2D::default(), Vec::new()),
        };
        let mut sample_locations = vk::PipelineSampleLocationsStateCreateInfoEXT::default()
            .sample_locations_enable(true)
            .sample_locations_info(
                vk::SampleLocationsInfoEXT::default()
                    .sample_locations_per_pixel(samples)
                    .sample_location_grid_size(grid)
                    .sample_locations(&placeholder),
            );
        let ms = if key.sample_locations {
            ms.push_next(&mut sample_locations)
        } else {
            ms
        };
        let ds = vk::PipelineDepthStencilStateCreateInfo::default();
        let b = inputs.blend;
        let atts: SmallVec<[vk::PipelineColorBlendAttachmentState; 8]> =
            (0..key.color_formats.len())
                .map(|i| {
                    let rt = if b.independent_blend_enable {
                        b.rt[i]
                    } else {
                        b.rt[0]
                    };
                    vk::PipelineColorBlendAttachmentState {
                        blend_enable: vk::Bool32::from(
                            rt.blend_enable && !b.logicop_enable && key.int_targets & (1 << i) == 0,
                        ),
                        src_color_blend_factor: blend_factor(rt.rgb_src_factor),
                        dst_color_blend_factor: blend_factor(rt.rgb_dst_factor),
                        color_blend_op: blend_op(rt.rgb_func),
                        src_alpha_blend_factor: blend_factor(rt.alpha_src_factor),
                        dst_alpha_blend_factor: blend_factor(rt.alpha_dst_factor),
                        alpha_blend_op: blend_op(rt.alpha_func),
                        // None for an unbound slot, or a buffer whose
                        // numeric type the output's is not: the fragment
                        // shader writes no output there (`unbound_outputs`).
                        color_write_mask: if key.color_formats[i] == vk::Format::UNDEFINED
                            || key.fs_key.unbound_outputs >> i & 1 == 1
                        {
                            vk::ColorComponentFlags::empty()
                        } else {
                            vk::ColorComponentFlags::from_raw(u32::from(rt.colormask.bits()))
                        },
                    }
                })
                .collect();
        let cb = vk::PipelineColorBlendStateCreateInfo::default()
            .logic_op_enable(b.logicop_enable)
            .logic_op(logic_op(b.logicop_func))
            .attachments(&atts);
        // Without colour attachments there is no blend state to set (the
        // commands need at least one attachment).
        let mut dynamic_states: SmallVec<[vk::DynamicState; 32]> =
            DYNAMIC_STATES.iter().copied().collect();
        if dev.dynamic_blend() && !key.color_formats.is_empty() {
            dynamic_states.extend_from_slice(&DYNAMIC_BLEND_STATES);
        }
        if dev.dynamic_vertex_input() {
            dynamic_states.push(vk::DynamicState::VERTEX_INPUT_EXT);
        }
        if key.topology == TopologyClass::Patch && dev.dynamic_patch_control_points() {
            dynamic_states.push(vk::DynamicState::PATCH_CONTROL_POINTS_EXT);
        }
        if dynamic_samples {
            dynamic_states.extend_from_slice(&DYNAMIC_SAMPLE_STATES);
            if dev.device.features.core.alpha_to_one == vk::TRUE {
                dynamic_states.push(vk::DynamicState::ALPHA_TO_ONE_ENABLE_EXT);
            }
        }
        if dev.dynamic_rasterizer() {
            dynamic_states.extend_from_slice(&DYNAMIC_RASTERIZER_STATES);
            if dev.separate_depth_clip() {
                dynamic_states.push(vk::DynamicState::DEPTH_CLIP_ENABLE_EXT);
            }
        }
        if key.sample_locations {
            dynamic_states.push(vk::DynamicState::SAMPLE_LOCATIONS_EXT);
        }
        if key.discard_rectangles.is_some() {
            dynamic_states.push(vk::DynamicState::DISCARD_RECTANGLE_EXT);
        }
        let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic_states);
        let (include, count) = key.discard_rectangles.unwrap_or_default();
        let mut discard_rectangles = vk::PipelineDiscardRectangleStateCreateInfoEXT::default()
            .discard_rectangle_mode(crate::discard_rectangles::mode(include));
        // The count without an array (ash's setter takes the array).
        discard_rectangles.discard_rectangle_count = u32::from(count);
        let mut rendering = vk::PipelineRenderingCreateInfo::default()
            .color_attachment_formats(&key.color_formats)
            .depth_attachment_format(key.depth_format)
            .stencil_attachment_format(key.stencil_format);
        let info = vk::GraphicsPipelineCreateInfo::default()
            .stages(&stages)
            .vertex_input_state(&vi)
            .input_assembly_state(&ia)
            .tessellation_state(&tess)
            .viewport_state(&vp)
            .rasterization_state(&rs)
            .multisample_state(&ms)
            .depth_stencil_state(&ds)
            .color_blend_state(&cb)
            .dynamic_state(&dynamic)
            .layout(if let Some(l) = inputs.layout {
                l
            } else if key.wide_textures {
                self.layout.wide_layout
            } else {
                self.layout.layout
            })
            .push_next(&mut rendering);
        // `pDiscardRectangles` is left out: the rectangles are dynamic.
        let info = if key.discard_rectangles.is_some() {
            info.push_next(&mut discard_rectangles)
        } else {
            info
        };
        // SAFETY: every state is consistent with the key (attachment counts
        // and formats, sample count) and the layout; modules are live.
        let p = unsafe {
            dev.raw()
                .create_graphics_pipelines(dev.disk_cache().cache, &[info], None)
        }
        .map_err(|(_, e)| vk_err("vkCreateGraphicsPipelines", e))?[0];
        self.created += 1;
        dev.disk_cache().count(true);
        self.pipelines.insert(key, p);
        Ok(p)
    }

    /// Removes the pipelines built from CSO `handle` (by `pick`) and
    /// returns them for deferred destruction.
    pub fn take_matching(&mut self, pick: impl Fn(&GfxKey) -> bool) -> Vec<vk::Pipeline> {
        let keys: Vec<GfxKey> = self.pipelines.keys().filter(|k| pick(k)).cloned().collect();
        keys.into_iter()
            .filter_map(|k| self.pipelines.remove(&k))
            .collect()
    }

    /// Destroys everything (the context waited for its batches).
    pub fn destroy(&mut self, device: &ash::Device) {
        // SAFETY: no batch of the context is executing any more.
        unsafe {
            for (_, p) in self.pipelines.drain() {
                device.destroy_pipeline(p, None);
            }
        }
        self.layout.destroy(device);
    }
}
