//! Shaders: from spirv-gen IR (or SPIR-V passthrough) to `VkShaderModule`s.
//!
//! A shader CSO keeps its template (the IR object or the words). Modules are
//! compiled lazily, when a pipeline first needs them, per variant key: the
//! spirv-gen [`VariantKey`] pipe-vk fills from bound state (GL lowerings).
//! IR is validated when the CSO is created, so a bad shader is an
//! `InvalidArgument` at `create_*_state`, not at draw time. The emitter's
//! target follows the device's API version. SPIR-V passthrough shaders are
//! used as given, except that a vertex shader gets its vertex fetch
//! fix-ups, the last vertex stage GL's point size, clip distance enables
//! and clip-space depth range, and a fragment shader per-sample
//! interpolation, zeros for the inputs nothing writes and no outputs
//! without a colour buffer, patched in (`spirv_gen::patch`).

use hashbrown::HashMap;
use std::sync::Arc;

use ash::vk;
use pipe_core::shader::{ShaderCode, ShaderState};
use pipe_core::state::ShaderStage;
use pipe_core::{PipeError, PipeResult};
use spirv_gen::passes::VariantKey;

use crate::instance::vk_err;
use crate::memory::DeviceShared;
use crate::pipeline::TopologyClass;

/// The IR type a frontend passes in `ShaderCode::Ir`.
pub type Ir = spirv_gen::ir::Shader;

fn stage_of(s: spirv_gen::ir::Stage) -> ShaderStage {
    use spirv_gen::ir::Stage as S;
    match s {
        S::Vertex => ShaderStage::Vertex,
        S::TessCtrl => ShaderStage::TessCtrl,
        S::TessEval => ShaderStage::TessEval,
        S::Geometry => ShaderStage::Geometry,
        S::Fragment => ShaderStage::Fragment,
        S::Compute => ShaderStage::Compute,
    }
}

pub(crate) fn ir_stage(s: ShaderStage) -> spirv_gen::ir::Stage {
    use spirv_gen::ir::Stage as S;
    match s {
        ShaderStage::Vertex => S::Vertex,
        ShaderStage::TessCtrl => S::TessCtrl,
        ShaderStage::TessEval => S::TessEval,
        ShaderStage::Geometry => S::Geometry,
        ShaderStage::Fragment => S::Fragment,
        ShaderStage::Compute => S::Compute,
    }
}

/// Checks a shader template when its CSO is created.
pub fn check_template(state: &ShaderState) -> PipeResult<()> {
    match &state.code {
        ShaderCode::SpirV { words, entry_point } => {
            if words.first() != Some(&0x0723_0203) || words.len() < 5 {
                return Err(PipeError::invalid(
                    "shader: not a SPIR-V module (bad magic or header)",
                ));
            }
            spirv_gen::patch::check_entry_point(words, ir_stage(state.stage), entry_point)
                .map_err(|e| PipeError::invalid(format!("shader: {e}")))?;
            crate::streamout::check_stream_output(state)
        }
        ShaderCode::Ir(any) => {
            let ir = any.downcast_ref::<Ir>().ok_or_else(|| {
                PipeError::invalid("shader: ShaderCode::Ir must hold a spirv_gen::ir::Shader")
            })?;
            if stage_of(ir.stage) != state.stage {
                return Err(PipeError::invalid(format!(
                    "shader: the IR is a {:?} shader, the template says {}",
                    ir.stage,
                    state.stage.short_name()
                )));
            }
            spirv_gen::validate::validate(ir)
                .map_err(|e| PipeError::invalid(format!("shader: {e}")))?;
            crate::streamout::check_stream_output(state)
        }
    }
}

/// Whether the shader exchanges floats atomically in an image (GLSL 4.50's
/// `imageAtomicExchange` on an `r32f` image): an IR `image_atomic` on an
/// `r32f` image, or, in SPIR-V words, an `OpAtomicExchange` of a 32-bit
/// float through an `OpImageTexelPointer`.
pub fn float_image_atomics(code: &ShaderCode) -> bool {
    match code {
        ShaderCode::Ir(any) => any.downcast_ref::<Ir>().is_some_and(|ir| {
            let mut found = false;
            spirv_gen::ir::walk_instrs(&ir.body, &mut |i| {
                if let spirv_gen::ir::Op::Intrinsic(spirv_gen::ir::Intrinsic::ImageAtomic {
                    var,
                    ..
                }) = &i.op
                {
                    found |= matches!(
                        &ir.var(*var).kind,
                        spirv_gen::ir::VarKind::Image(im)
                            if im.format == spirv_gen::ir::ImageFormat::R32f
                    );
                }
            });
            found
        }),
        ShaderCode::SpirV { words, .. } => {
            // OpTypeFloat (22) %id 32; OpImageTexelPointer (60) %ty %id
            // ...; OpAtomicExchange (229) %ty %id %pointer ...
            let mut floats = Vec::new();
            let mut texel_pointers = Vec::new();
            let mut found = false;
            for inst in spirv_instructions(words) {
                let arg = |k: usize| inst.get(k).copied();
                match inst[0] & 0xffff {
                    22 if arg(2) == Some(32) => floats.extend(arg(1)),
                    60 => texel_pointers.extend(arg(2)),
                    229 => {
                        found |= arg(1).is_some_and(|t| floats.contains(&t))
                            && arg(3).is_some_and(|p| texel_pointers.contains(&p));
                    }
                    _ => {}
                }
            }
            found
        }
    }
}

/// The instructions of a SPIR-V module after its 5-word header, each as
/// its words (opcode and word count first), the last one cut at the end
/// of the words.
fn spirv_instructions(words: &[u32]) -> impl Iterator<Item = &[u32]> {
    let mut i = 5;
    std::iter::from_fn(move || {
        let w = *words.get(i)?;
        let len = ((w >> 16) as usize).max(1);
        let inst = &words[i..(i + len).min(words.len())];
        i += len;
        Some(inst)
    })
}

/// Fails when the shader needs a device feature pipe-vk found missing
/// (features its words need, beyond the declarations
/// `crate::descriptors::check_image_features` checks).
pub fn check_device_features(dev: &DeviceShared, what: &str, code: &ShaderCode) -> PipeResult<()> {
    if float_image_atomics(code)
        && dev
            .device
            .features
            .shader_atomic_float
            .shader_image_float32_atomics
            != vk::TRUE
    {
        return Err(PipeError::unsupported(format!(
            "{what}: imageAtomicExchange on an r32f image needs shaderImageFloat32Atomics \
             (VK_EXT_shader_atomic_float), which the device lacks"
        )));
    }
    Ok(())
}

/// Checks that a shader only uses bindings the draw path provides:
/// uniform buffers in slots `0..ubo_slots` and sampler views in slots
/// `0..TEX_SLOTS` (images and shader buffers are checked by
/// `crate::descriptors` when the pipeline's layout is made).
pub fn check_draw_bindings(state: &ShaderState, ubo_slots: u32) -> PipeResult<()> {
    use spirv_gen::patch::IrResource;
    let any = match &state.code {
        ShaderCode::Ir(any) => any,
        ShaderCode::SpirV { .. } => {
            // SPIR-V passthrough: the descriptors it uses, read from the
            // words, must be in the binding model, with the IR's limits.
            let what = format!("{} shader (SPIR-V passthrough)", state.stage.short_name());
            for r in spirv_resources(state)? {
                let refused = match r {
                    IrResource::Ubo { slot } if slot >= ubo_slots => format!(
                        "uniform buffer slot {slot} (pipe-vk binds slots 0..{ubo_slots} so far)"
                    ),
                    IrResource::Texture(t) if t.slot >= crate::pipeline::TEX_SLOTS => format!(
                        "texture slot {} (pipe-vk binds slots 0..{})",
                        t.slot,
                        crate::pipeline::TEX_SLOTS
                    ),
                    _ => continue,
                };
                return Err(PipeError::unsupported(format!(
                    "{what} uses {refused}, which pipe-vk cannot bind in draws"
                )));
            }
            return Ok(());
        }
    };
    let Some(ir) = any.downcast_ref::<Ir>() else {
        return Ok(());
    };
    use spirv_gen::ir::VarKind;
    for v in &ir.vars {
        let what = match &v.kind {
            VarKind::Ubo { slot, .. } if *slot >= ubo_slots => {
                format!("uniform buffer slot {slot} (pipe-vk binds slots 0..{ubo_slots} so far)")
            }
            VarKind::Texture(t) if t.slot >= crate::pipeline::TEX_SLOTS => {
                format!(
                    "texture slot {} (pipe-vk binds slots 0..{})",
                    t.slot,
                    crate::pipeline::TEX_SLOTS
                )
            }
            _ => continue,
        };
        return Err(PipeError::unsupported(format!(
            "{} shader uses {what}, which pipe-vk cannot bind in draws",
            state.stage.short_name()
        )));
    }
    Ok(())
}

/// The descriptors a SPIR-V passthrough shader uses, read from its words
/// as IR resources (none for IR); those outside the binding model are
/// `Unsupported`.
pub(crate) fn spirv_resources(
    state: &ShaderState,
) -> PipeResult<Vec<spirv_gen::patch::IrResource>> {
    match &state.code {
        ShaderCode::SpirV { words, entry_point } => {
            spirv_gen::patch::ir_resources(words, ir_stage(state.stage), entry_point).map_err(|e| {
                PipeError::unsupported(format!(
                    "{} shader (SPIR-V passthrough): {e}, which pipe-vk cannot bind in draws",
                    state.stage.short_name()
                ))
            })
        }
        ShaderCode::Ir(_) => Ok(Vec::new()),
    }
}

/// The texture slots a shader samples, as a mask (bit `slot`, below 32):
/// its IR's textures, or a SPIR-V passthrough shader's combined image
/// samplers at its stage's set 1 bindings.
pub fn texture_slots(state: &ShaderState) -> u32 {
    let bit = |slot: u32| 1u32.checked_shl(slot).unwrap_or(0);
    match &state.code {
        ShaderCode::Ir(any) => any.downcast_ref::<Ir>().map_or(0, |ir| {
            ir.vars.iter().fold(0, |m, v| match &v.kind {
                spirv_gen::ir::VarKind::Texture(t) => m | bit(t.slot),
                _ => m,
            })
        }),
        ShaderCode::SpirV { .. } => {
            spirv_resources(state)
                .unwrap_or_default()
                .iter()
                .fold(0, |m, r| match r {
                    spirv_gen::patch::IrResource::Texture(t) => m | bit(t.slot),
                    _ => m,
                })
        }
    }
}

/// What draws need to know of a shader CSO (`VkContext::shader_info`).
#[derive(Clone, Copy, Debug, Default)]
pub struct ShaderInfo {
    /// A vertex shader that reads the draw id ([`reads_draw_index`]).
    pub reads_draw_index: bool,
    /// A fragment shader's framebuffer-fetch colour buffers, as a mask
    /// (`descriptors::fbfetch_mask`).
    pub fbfetch: u32,
    /// The primitives a geometry or tessellation evaluation shader hands
    /// on ([`output_prim`]).
    pub output_prim: Option<TopologyClass>,
    /// Back colours (bit 0 bfc0, bit 1 bfc1) the shader does not write
    /// ([`missing_back_colors`]).
    pub missing_back_colors: u8,
    /// A fragment shader's colour output locations 0..8, as a mask.
    pub color_outputs: u8,
    /// Those of them with signed and with unsigned integer components
    /// ([`int_outputs`]); the others are floats.
    pub int_outputs: (u8, u8),
    /// The varying locations (bit i = location i) a vertex-processing
    /// shader writes, or a fragment shader reads ([`varying_locations`]).
    pub varyings: u32,
    /// A vertex shader writes GL's edge flag (`slot=edge`).
    pub edge_flag: bool,
    /// The texture slots the shader samples ([`texture_slots`]).
    pub textures: u32,
    /// What the shader captures with stream output when it is the last
    /// vertex stage (`crate::streamout::SoCapture::of`).
    pub capture: Option<crate::streamout::SoCapture>,
    /// A vertex shader's input locations ([`vertex_input_locations`]).
    pub vs_inputs: u32,
    /// A fragment shader reads clip or cull distances
    /// ([`reads_distances`]).
    pub reads_distances: bool,
    /// A fragment shader reads per-sample inputs ([`reads_samples`]).
    pub reads_samples: bool,
    /// A geometry shader of IR whose strips' triangles can be re-emitted
    /// one by one for polygon-mode line stipple
    /// (`spirv_gen::passes::line_stipple::can_restrip`): its
    /// `max_vertices` and output components per vertex.
    pub strip_gs: Option<(u32, u32)>,
    /// A SPIR-V geometry shader emitting line strips that line stipple
    /// emulation can patch (`spirv_gen::patch::line_stipple_gs`).
    pub spirv_line_strip_gs: bool,
    /// An IR geometry shader with a stream output capture list: the
    /// copies that capture may take where its strips are re-emitted
    /// (`compile`), and the room it has for them.
    pub gs_copies: Option<GsCopies>,
    /// The cull distances a vertex-processing shader writes (of IR, or
    /// read from a SPIR-V vertex or evaluation shader's words).
    pub cull_distances: u32,
    /// A geometry shader of IR whose triangles multisampling off can
    /// widen (`spirv_gen::passes::aliased::can_expand_gs`): its
    /// `max_vertices` and its output components per vertex.
    pub expandable_gs: Option<(u32, u32)>,
    /// A shader of IR that the smooth-line emulation can lower
    /// ([`smooth_lines_lowerable`]).
    pub smooth_lines: bool,
    /// Smooth-line ends ([`smooth_line_ends_possible`]): for a vertex or
    /// evaluation shader, the output components per vertex of the
    /// generated geometry shader that follows it.
    pub smooth_line_ends: Option<u32>,
}

/// See [`ShaderInfo::gs_copies`]: at most `count` copies of `components`
/// components in all (a capture decorated in place takes none), and
/// `room` locations free for them off the driver's varyings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GsCopies {
    pub count: u32,
    pub components: u32,
    pub room: u32,
}

impl GsCopies {
    /// The components the copies add, where they fit.
    pub fn fit(&self) -> Option<u32> {
        (self.count <= self.room).then_some(self.components)
    }
}

impl ShaderInfo {
    pub fn of(state: &ShaderState) -> ShaderInfo {
        ShaderInfo {
            reads_draw_index: state.stage == pipe_core::state::ShaderStage::Vertex
                && reads_draw_index(state),
            fbfetch: crate::descriptors::fbfetch_mask(state),
            output_prim: output_prim(state),
            missing_back_colors: missing_back_colors(state),
            color_outputs: color_outputs(state),
            int_outputs: int_outputs(state),
            varyings: varying_locations(state),
            edge_flag: writes_edge_flag(state),
            textures: texture_slots(state),
            capture: crate::streamout::SoCapture::of(state),
            vs_inputs: vertex_input_locations(state),
            reads_distances: state.stage == pipe_core::state::ShaderStage::Fragment
                && reads_distances(state),
            reads_samples: state.stage == pipe_core::state::ShaderStage::Fragment
                && reads_samples(state),
            expandable_gs: expandable_gs(state),
            smooth_lines: smooth_lines_lowerable(state),
            smooth_line_ends: smooth_line_ends_possible(state),
            gs_copies: gs_copies(state),
            spirv_line_strip_gs: match &state.code {
                ShaderCode::SpirV { words, entry_point }
                    if state.stage == ShaderStage::Geometry =>
                {
                    spirv_gen::patch::line_stipple_gs(words, entry_point, false)
                        .is_ok_and(|w| w != **words)
                }
                _ => false,
            },
            cull_distances: cull_distances(state),
            strip_gs: match &state.code {
                ShaderCode::Ir(any) => any
                    .downcast_ref::<Ir>()
                    .filter(|ir| spirv_gen::passes::line_stipple::can_restrip(ir))
                    .map(|ir| (ir.info.gs_max_vertices.unwrap_or(0), output_components(ir))),
                ShaderCode::SpirV { .. } => None,
            },
        }
    }
}

/// The interface locations a SPIR-V passthrough shader reads (`outputs`
/// false) or writes, read from its words; `None` for IR or where the
/// words cannot be read.
fn spirv_locations(state: &ShaderState, outputs: bool) -> Option<u32> {
    let ShaderCode::SpirV { words, entry_point } = &state.code else {
        return None;
    };
    spirv_gen::patch::interface_locations(words, ir_stage(state.stage), entry_point, outputs).ok()
}

/// Locations `l..l + n` of each pair, below 32, as a mask.
fn location_mask(spans: impl Iterator<Item = (u32, u32)>) -> u32 {
    spans.fold(0, |m, (l, n)| {
        (l..l.saturating_add(n))
            .filter(|&k| k < 32)
            .fold(m, |m, k| m | 1 << k)
    })
}

/// The input locations (bit i = location i, below 32) a vertex shader
/// reads: its IR inputs (a 64-bit vector of three or four components
/// takes two), or those read from a SPIR-V shader's words; all of them
/// where those cannot be read. 0 for other stages.
pub fn vertex_input_locations(state: &ShaderState) -> u32 {
    if state.stage != ShaderStage::Vertex {
        return 0;
    }
    let any = match &state.code {
        ShaderCode::Ir(any) => any,
        ShaderCode::SpirV { .. } => return spirv_locations(state, false).unwrap_or(u32::MAX),
    };
    let Some(ir) = any.downcast_ref::<Ir>() else {
        return u32::MAX;
    };
    let spans = ir.vars.iter().filter(|v| v.is_input()).filter_map(|v| {
        let io = v.io()?;
        if io.builtin.is_some() {
            return None;
        }
        let per = if v.ty.bits == 64 && v.ty.comps > 2 {
            2
        } else {
            1
        };
        Some((io.location?, v.array.unwrap_or(1).saturating_mul(per)))
    });
    location_mask(spans)
}

/// The outputs of `prev`, the stage a generated pass-through control or
/// geometry shader follows, as IR: its own, or a SPIR-V vertex or
/// evaluation shader's read from its words
/// (`spirv_gen::patch::vertex_outputs`: an IR vertex shader with those
/// outputs and no body). An error (its text) for what cannot be read
/// that way.
pub(crate) fn outputs_ir(prev: &ShaderState) -> Result<std::borrow::Cow<'_, Ir>, String> {
    match &prev.code {
        ShaderCode::Ir(any) => any
            .downcast_ref::<Ir>()
            .map(std::borrow::Cow::Borrowed)
            .ok_or_else(|| "not spirv-gen IR".to_string()),
        ShaderCode::SpirV { .. }
            if !matches!(prev.stage, ShaderStage::Vertex | ShaderStage::TessEval) =>
        {
            Err(format!(
                "a SPIR-V {} shader's outputs are not read",
                prev.stage.short_name()
            ))
        }
        ShaderCode::SpirV { words, entry_point } => {
            spirv_gen::patch::vertex_outputs(words, entry_point)
                .map(std::borrow::Cow::Owned)
                .map_err(|e| e.to_string())
        }
    }
}

/// The locations outputs move to (`ModuleCache::generated_gs_relocation`),
/// as a mask.
pub(crate) fn relocation_targets(relocate: &[(u32, u32)]) -> u32 {
    relocate
        .iter()
        .fold(0, |m, &(_, to)| m | 1u32.checked_shl(to).unwrap_or(0))
}

/// The stream outputs `prev` captures, for a generated geometry shader
/// that follows it to capture in its place (`ModuleCache::line_stipple_gs`):
/// Gallium's list of an IR shader, or the `Xfb` decorations of a SPIR-V
/// one (`spirv_gen::patch::vertex_output_captures`), their registers
/// numbered among [`outputs_ir`]'s outputs; with the strides in bytes.
pub(crate) fn generated_gs_captures(
    prev: &ShaderState,
) -> PipeResult<(Vec<spirv_gen::passes::xfb::XfbCapture>, [u32; 4])> {
    match &prev.code {
        ShaderCode::SpirV { words, entry_point } => {
            spirv_gen::patch::vertex_output_captures(words, entry_point)
                .map(Option::unwrap_or_default)
                .map_err(|e| {
                    PipeError::unsupported(format!(
                        "a generated geometry shader cannot capture in place of the SPIR-V \
                         {} shader: {e}",
                        prev.stage.short_name()
                    ))
                })
        }
        ShaderCode::Ir(_) => Ok(crate::streamout::captures(&prev.stream_output)),
    }
}

/// Whether a SPIR-V passthrough shader has the `Xfb` execution mode
/// (OpExecutionMode (16) %entry Xfb (11)).
fn spirv_declares_xfb(state: &ShaderState) -> bool {
    let ShaderCode::SpirV { words, .. } = &state.code else {
        return false;
    };
    let mut i = 5;
    while let Some(&w) = words.get(i) {
        let (len, op) = ((w >> 16) as usize, w & 0xffff);
        if op == 16 && len >= 3 && words.get(i + 2) == Some(&11) {
            return true;
        }
        i += len.max(1);
    }
    false
}

/// Whether a vertex shader writes GL's edge flag: an output with
/// `slot=edge` (spirv-gen validates it is a vertex shader's `f32`). A
/// SPIR-V shader has no such semantic.
pub fn writes_edge_flag(state: &ShaderState) -> bool {
    let ShaderCode::Ir(any) = &state.code else {
        return false;
    };
    any.downcast_ref::<Ir>().is_some_and(|ir| {
        ir.vars.iter().any(|v| {
            v.is_output() && v.io().and_then(|io| io.slot) == Some(spirv_gen::ir::GlSlot::Edge)
        })
    })
}

/// Whether the smooth-line emulation can weigh the line's ends
/// (`VariantKey::smooth_line_ends`) with the shader: a vertex or
/// tessellation evaluation shader that the generated geometry shader
/// (`spirv_gen::passes::line_stipple::smooth_line_ends_gs`) can follow
/// (of SPIR-V: whose outputs `spirv_gen::patch::vertex_outputs` reads),
/// or a fragment shader whose inputs leave its locations (`stipple_pos`,
/// `smooth_line_len`) free. `Some` of the generated shader's output
/// components per vertex (the smooth-line varying's included; 0 for a
/// fragment shader) where possible. Whether the device's geometry
/// shaders read all of the outputs and write that many is
/// `VkContext::variant_keys`' to ask.
pub fn smooth_line_ends_possible(state: &ShaderState) -> Option<u32> {
    let ir = match (&state.code, state.stage) {
        (ShaderCode::SpirV { words, entry_point }, ShaderStage::Fragment) => {
            return spirv_gen::patch::smooth_lines_fs(words, entry_point, 1.0, true, false)
                .is_ok()
                .then_some(0);
        }
        (_, ShaderStage::Vertex | ShaderStage::TessEval) => {
            let ir = outputs_ir(state).ok()?;
            let gs = spirv_gen::passes::line_stipple::smooth_line_ends_gs(
                &ir,
                spirv_gen::ir::GsInput::Lines,
                false,
            )
            .ok()?;
            // And `smooth_line_clip`, which the last-stage lowering adds.
            return Some(output_components(&gs) + 3);
        }
        (ShaderCode::Ir(any), _) => any.downcast_ref::<Ir>()?,
        _ => return None,
    };
    let possible = match state.stage {
        ShaderStage::Fragment => {
            use spirv_gen::binding::{EDGE_MASK_LOCATION, STIPPLE_POS_LOCATION};
            ir.vars.iter().all(|v| {
                let Some(io) = v.io() else { return true };
                !(v.is_input()
                    && io.builtin.is_none()
                    && io.location.is_some_and(|l| {
                        // A 64-bit vec3 or vec4 takes two locations.
                        let per = if v.ty.bits == 64 && v.ty.comps > 2 {
                            2
                        } else {
                            1
                        };
                        let r = l..l.saturating_add(per * v.locations(ir.stage));
                        r.contains(&EDGE_MASK_LOCATION) || r.contains(&STIPPLE_POS_LOCATION)
                    }))
            })
        }
        _ => false,
    };
    possible.then_some(0)
}

/// Whether the smooth-line emulation (`spirv_gen::passes::smooth_lines`)
/// can lower the shader: nothing of its own at the emulation's location,
/// and, for a vertex processing stage, no `ViewportIndex` output (the
/// fragment shader maps positions with viewport 0's transform). SPIR-V
/// passthrough: where the patch (`spirv_gen::patch::smooth_lines` and
/// `smooth_lines_fs`) applies to the module as given.
pub fn smooth_lines_lowerable(state: &ShaderState) -> bool {
    let any = match &state.code {
        ShaderCode::Ir(any) => any,
        ShaderCode::SpirV { words, entry_point } => {
            return match state.stage {
                ShaderStage::Fragment => {
                    spirv_gen::patch::smooth_lines_fs(words, entry_point, 1.0, false, false).is_ok()
                }
                ShaderStage::Vertex | ShaderStage::TessEval | ShaderStage::Geometry => {
                    spirv_gen::patch::smooth_lines(words, entry_point).is_ok()
                }
                _ => false,
            };
        }
    };
    any.downcast_ref::<Ir>().is_some_and(|ir| {
        let location = spirv_gen::binding::SMOOTH_LINE_LOCATION;
        let fs = ir.stage == spirv_gen::ir::Stage::Fragment;
        ir.vars.iter().all(|v| {
            let Some(io) = v.io() else { return true };
            // A fragment shader's inputs, another stage's outputs.
            let own = io.builtin.is_none()
                && (if fs { v.is_input() } else { v.is_output() })
                && io.location.is_some_and(|l| {
                    (l..l.saturating_add(v.locations(ir.stage))).contains(&location)
                });
            let viewport =
                v.is_output() && io.builtin == Some(spirv_gen::ir::BuiltIn::ViewportIndex);
            !own && !viewport
        })
    })
}

/// The varying locations (bit i = location i, below 32) a shader hands
/// on (its per-vertex outputs) or, for a fragment shader, reads (its
/// inputs). SPIR-V: all of them for outputs (unknown, so taken as
/// written) and none for inputs (nothing is rewritten).
pub fn varying_locations(state: &ShaderState) -> u32 {
    let fs = state.stage == ShaderStage::Fragment;
    let ir = match &state.code {
        ShaderCode::Ir(any) => any.downcast_ref::<Ir>(),
        ShaderCode::SpirV { .. } => {
            // Read from the words for the stages that meet the fragment
            // shader; a control shader's (or an unreadable module's)
            // count as everything written and nothing read.
            let found = (state.stage != ShaderStage::TessCtrl)
                .then(|| spirv_locations(state, !fs))
                .flatten();
            return found.unwrap_or(if fs { 0 } else { u32::MAX });
        }
    };
    let Some(ir) = ir else {
        return if fs { 0 } else { u32::MAX };
    };
    let spans = ir
        .vars
        .iter()
        .filter(|v| if fs { v.is_input() } else { v.is_output() })
        .filter_map(|v| {
            let io = v.io()?;
            // GL's edge flag is no varying a fragment shader can read.
            if io.builtin.is_some() || io.patch || io.slot == Some(spirv_gen::ir::GlSlot::Edge) {
                return None;
            }
            let l = io.location?;
            // Per-vertex outputs of a tessellation control shader are
            // arrays over vertices: their element's locations.
            Some((l, v.locations(ir.stage)))
        });
    location_mask(spans)
}

/// The colour output locations (bit i = location i, below 8) of a
/// fragment shader (read from the words for SPIR-V; all of them where
/// that fails).
pub fn color_outputs(state: &ShaderState) -> u8 {
    if state.stage != ShaderStage::Fragment {
        return 0;
    }
    let any = match &state.code {
        ShaderCode::Ir(any) => any,
        ShaderCode::SpirV { .. } => {
            return spirv_locations(state, true).map_or(0xff, |m| (m & 0xff) as u8)
        }
    };
    let Some(ir) = any.downcast_ref::<Ir>() else {
        return 0xff;
    };
    ir.vars
        .iter()
        .filter(|v| v.is_output() && v.builtin().is_none())
        .filter_map(|v| v.io().and_then(|io| io.location))
        .filter(|&l| l < 8)
        .fold(0, |m, l| m | 1 << l)
}

/// A fragment shader's colour outputs (locations 0..8) with signed and
/// with unsigned integer components, as masks (none for other stages, or
/// where a SPIR-V shader's types cannot be read).
pub fn int_outputs(state: &ShaderState) -> (u8, u8) {
    if state.stage != ShaderStage::Fragment {
        return (0, 0);
    }
    let any = match &state.code {
        ShaderCode::Ir(any) => any,
        ShaderCode::SpirV { words, entry_point } => {
            return spirv_gen::patch::fragment_int_outputs(words, entry_point).unwrap_or((0, 0))
        }
    };
    let Some(ir) = any.downcast_ref::<Ir>() else {
        return (0, 0);
    };
    let mut masks = (0u8, 0u8);
    for v in ir
        .vars
        .iter()
        .filter(|v| v.is_output() && v.builtin().is_none())
    {
        let Some(l) = v.io().and_then(|io| io.location).filter(|&l| l < 8) else {
            continue;
        };
        match v.ty.base {
            spirv_gen::ir::BaseType::Int => masks.0 |= 1 << l,
            spirv_gen::ir::BaseType::Uint => masks.1 |= 1 << l,
            _ => {}
        }
    }
    masks
}

/// The back colours (bit 0 bfc0, bit 1 bfc1) a vertex-processing shader
/// has no output for: two-sided colour must not read them in the fragment
/// shader (`VariantKey::two_side_front_only`). A SPIR-V shader's outputs
/// carry no GL slots: its back colours are its outputs at pipe-vk's
/// BFC0/BFC1 locations (30, 31), where spirv-gen puts them.
pub fn missing_back_colors(state: &ShaderState) -> u8 {
    use spirv_gen::binding::{BFC0_LOCATION, BFC1_LOCATION};
    use spirv_gen::ir::GlSlot;
    let any = match &state.code {
        ShaderCode::Ir(any) => any,
        ShaderCode::SpirV { .. } => {
            if state.stage == ShaderStage::Fragment {
                return 0;
            }
            let written = varying_locations(state);
            return u8::from(written >> BFC0_LOCATION & 1 == 0)
                | u8::from(written >> BFC1_LOCATION & 1 == 0) << 1;
        }
    };
    let Some(ir) = any.downcast_ref::<Ir>() else {
        return 0;
    };
    let writes = |slot: GlSlot| {
        ir.vars
            .iter()
            .any(|v| v.is_output() && v.io().and_then(|io| io.slot) == Some(slot))
    };
    u8::from(!writes(GlSlot::Bfc0)) | u8::from(!writes(GlSlot::Bfc1)) << 1
}

/// The class of the primitives a geometry shader emits (its output
/// primitive) or a tessellation evaluation shader generates (points in
/// point mode, lines for isolines, else triangles): what the rasterizer
/// gets when the shader is the last pre-rasterization stage, Zink's
/// `rast_prim`. SPIR-V lets the tessellation control shader declare the
/// mode instead, so a SPIR-V control shader gets the value its modes
/// give (combined with the evaluation shader's by `VkContext::rast_prim`).
/// `None` for other stages and where nothing is declared.
pub fn output_prim(state: &ShaderState) -> Option<TopologyClass> {
    use pipe_core::state::ShaderStage as S;
    use spirv_gen::ir::{GsOutput, TessMode};
    if !matches!(state.stage, S::Geometry | S::TessEval | S::TessCtrl) {
        return None;
    }
    match &state.code {
        ShaderCode::Ir(any) => {
            let info = &any.downcast_ref::<Ir>()?.info;
            match state.stage {
                // The IR keeps the mode in the evaluation shader.
                S::TessCtrl => None,
                S::Geometry => info.gs_output.map(|o| match o {
                    GsOutput::Points => TopologyClass::Point,
                    GsOutput::LineStrip => TopologyClass::Line,
                    GsOutput::TriangleStrip => TopologyClass::Triangle,
                }),
                _ if info.tes_point_mode => Some(TopologyClass::Point),
                _ => info.tes_mode.map(|m| match m {
                    TessMode::Isolines => TopologyClass::Line,
                    TessMode::Triangles | TessMode::Quads => TopologyClass::Triangle,
                }),
            }
        }
        ShaderCode::SpirV { words, .. } => {
            // OpExecutionMode (16) %entry Mode: a geometry shader's
            // OutputPoints (27), OutputLineStrip (28), OutputTriangleStrip
            // (29); a tessellation evaluation shader's PointMode (10),
            // Isolines (25), Triangles (22), Quads (24). Triangles is
            // also a geometry shader's input primitive, in any order with
            // its output one.
            let gs = state.stage == S::Geometry;
            let (mut point_mode, mut class) = (false, None);
            let mut i = 5;
            while let Some(&w) = words.get(i) {
                let (len, op) = ((w >> 16) as usize, w & 0xffff);
                if op == 16 && len >= 3 {
                    match (gs, words.get(i + 2)) {
                        (true, Some(27)) => class = Some(TopologyClass::Point),
                        (true, Some(28)) | (false, Some(25)) => class = Some(TopologyClass::Line),
                        (true, Some(29)) | (false, Some(22 | 24)) => {
                            class = Some(TopologyClass::Triangle)
                        }
                        (false, Some(10)) => point_mode = true,
                        _ => {}
                    }
                }
                i += len.max(1);
            }
            if point_mode {
                Some(TopologyClass::Point)
            } else {
                class
            }
        }
    }
}

/// Whether a vertex shader reads the draw id (`gl_DrawID`): the IR's
/// `draw_index` input, or a SPIR-V `BuiltIn DrawIndex` decoration. Direct
/// draws of such shaders are recorded one by one (see
/// `spirv_gen::passes::gl::lower_draw_index`), not as multi-draws.
pub fn reads_draw_index(state: &ShaderState) -> bool {
    match &state.code {
        ShaderCode::Ir(any) => any
            .downcast_ref::<Ir>()
            .is_some_and(spirv_gen::passes::gl::reads_draw_index),
        // OpDecorate (71) %id BuiltIn (11) DrawIndex (4426).
        ShaderCode::SpirV { words, .. } => spirv_instructions(words)
            .any(|inst| inst.len() == 4 && inst[0] & 0xffff == 71 && inst[2..] == [11, 4426]),
    }
}

/// The emitter target for a device.
pub fn target_for(dev: &DeviceShared) -> spirv_gen::emit::Target {
    if dev.physical.properties.api_version >= vk::API_VERSION_1_3 {
        spirv_gen::emit::Target::Vulkan1_3
    } else {
        spirv_gen::emit::Target::Vulkan1_2
    }
}

/// Compiles a shader template with `key` to SPIR-V words.
/// `vote`: the device runs subgroup votes in the shader's stage
/// (`DeviceShared::subgroup_vote`); without, each invocation votes alone
/// (`spirv_gen::passes::gl::lower_vote_trivial` for the IR,
/// `spirv_gen::patch::votes_trivial` for SPIR-V).
pub fn compile(
    state: &ShaderState,
    key: &VariantKey,
    target: spirv_gen::emit::Target,
    vote: bool,
) -> PipeResult<Arc<[u32]>> {
    // The fixed-function tests in fragment shaders demote where that
    // keeps the quad's derivatives defined and is safe
    // (`spirv_gen::passes::gl::demote_worthwhile`): Vulkan 1.3 requires
    // `shaderDemoteToHelperInvocation`, which pipe-vk enables with the
    // other 1.3 features.
    let worthwhile = || match &state.code {
        ShaderCode::SpirV { words, .. } => spirv_gen::patch::demote_worthwhile(words),
        ShaderCode::Ir(any) => any
            .downcast_ref::<Ir>()
            .is_some_and(spirv_gen::passes::gl::demote_worthwhile),
    };
    let demoting;
    let key = if target == spirv_gen::emit::Target::Vulkan1_3
        && !key.demote_discards
        && state.stage == ShaderStage::Fragment
        && worthwhile()
    {
        demoting = VariantKey {
            demote_discards: true,
            ..key.clone()
        };
        &demoting
    } else {
        key
    };
    match &state.code {
        ShaderCode::SpirV { words, entry_point } => {
            // The frontend's own SPIR-V gets the fetch fix-ups, GL's point
            // size, clip distance enables and depth range, per-sample
            // interpolation, zeros for unwritten inputs and no unbound
            // colour outputs patched in; the other lowerings are its own.
            let err = |e: spirv_gen::Error| PipeError::unsupported(format!("shader variant: {e}"));
            // Descriptor arrays: one variable per element, at the
            // bindings the model gives its slots.
            let mut out: Option<Vec<u32>> = Some(
                spirv_gen::patch::split_descriptor_arrays(
                    words,
                    ir_stage(state.stage),
                    entry_point,
                )
                .map_err(err)?,
            )
            .filter(|w| w[..] != words[..]);
            // Pipelines name every stage's entry point `main`.
            if entry_point != "main" {
                out = Some(
                    spirv_gen::patch::entry_point_as_main(
                        out.as_deref().unwrap_or(words),
                        ir_stage(state.stage),
                        entry_point,
                    )
                    .map_err(err)?,
                );
            }
            // Votes where the stage has none, and SPV_KHR_subgroup_vote's
            // everywhere: each invocation votes alone.
            let w = out.as_deref().unwrap_or(words);
            out = Some(spirv_gen::patch::votes_trivial(w, !vote).map_err(err)?);
            if !key.vertex_fixups.is_empty() && state.stage == ShaderStage::Vertex {
                let w = out.as_deref().unwrap_or(words);
                out = Some(
                    spirv_gen::patch::vertex_fixups(w, "main", &key.vertex_fixups).map_err(err)?,
                );
            }
            let pre_raster = matches!(
                state.stage,
                ShaderStage::Vertex | ShaderStage::TessEval | ShaderStage::Geometry
            );
            // Transform feedback the module declares: GL captures the last
            // vertex stage only (Vulkan refuses the mode elsewhere), and
            // what the shader wrote, before the rewrites below.
            if pre_raster && spirv_declares_xfb(state) {
                let w = out.as_deref().unwrap_or(words);
                out = Some(if key.last_vertex_stage {
                    let which = spirv_gen::patch::XfbBuiltins {
                        position: !key.clip_halfz,
                        // Rewritten when fixed, or widened for aliased points.
                        point_size: key.point_size.is_some()
                            && (key.point_size_fixed || key.aliased_points.is_some()),
                        clip_distance: key.clip_planes != u8::MAX,
                    };
                    spirv_gen::patch::xfb_copy_builtins(w, "main", which).map_err(err)?
                } else {
                    spirv_gen::patch::drop_xfb(w, ir_stage(state.stage), "main").map_err(err)?
                });
            }
            if let (Some(size), true) = (key.point_size, pre_raster) {
                let w = out.as_deref().unwrap_or(words);
                out = Some(
                    spirv_gen::patch::point_size(
                        w,
                        "main",
                        f32::from_bits(size),
                        key.point_size_fixed,
                    )
                    .map_err(err)?,
                );
            }
            if let (Some(max), true) = (key.aliased_points, key.last_vertex_stage && pre_raster) {
                let w = out.as_deref().unwrap_or(words);
                out = Some(
                    spirv_gen::patch::aliased_points(
                        w,
                        "main",
                        f32::from_bits(max),
                        key.smooth_points,
                    )
                    .map_err(err)?,
                );
            }
            if let (Some(_), true) = (key.smooth_lines, key.last_vertex_stage && pre_raster) {
                let w = out.as_deref().unwrap_or(words);
                out = Some(spirv_gen::patch::smooth_lines(w, "main").map_err(err)?);
            }
            if state.stage == ShaderStage::Fragment {
                out = fragment_patches(out.as_deref().unwrap_or(words), key)
                    .map_err(err)?
                    .or(out);
            }
            if key.last_vertex_stage && pre_raster {
                let w = out.as_deref().unwrap_or(words);
                out =
                    Some(spirv_gen::patch::clip_disable(w, "main", key.clip_planes).map_err(err)?);
                if !key.clip_halfz {
                    let w = out.as_deref().unwrap_or(words);
                    out = Some(spirv_gen::patch::clip_halfz(w, "main").map_err(err)?);
                }
                // Last: it reads the position about to be emitted.
                if key.line_stipple && state.stage == ShaderStage::Geometry {
                    let w = out.as_deref().unwrap_or(words);
                    out = Some(
                        spirv_gen::patch::line_stipple_gs(w, "main", key.line_rectangular)
                            .map_err(err)?,
                    );
                }
            }
            Ok(out.map_or_else(|| words.clone(), Into::into))
        }
        ShaderCode::Ir(any) => {
            let ir = any
                .downcast_ref::<Ir>()
                .ok_or_else(|| PipeError::invalid("shader: not spirv-gen IR"))?;
            let mut s = ir.clone();
            let err = |e: spirv_gen::Error| PipeError::invalid(format!("shader variant: {e}"));
            // The last pre-raster stage captures its stream outputs; the
            // capture sees what the shader wrote, before the GL lowerings.
            // The capture's copies stay off the varyings this variant's
            // lowerings add: the aliased point size, and in a geometry
            // shader the stipple position and the aliased edge and clip
            // distances. A geometry shader that widens its triangles for
            // aliased rasterization captures through copies only, which
            // it re-emits unchanged (`spirv_gen::passes::aliased::
            // lower_aliased_gs`).
            if key.last_vertex_stage {
                use spirv_gen::passes::xfb;
                let (caps, strides) = crate::streamout::captures(&state.stream_output);
                let geometry = state.stage == ShaderStage::Geometry;
                let gs_lowered =
                    key.aliased_triangles || key.line_stipple || key.line_stipple_polygon;
                let reserved = if geometry && gs_lowered {
                    xfb::DRIVER_LOCATIONS
                } else if key.aliased_points.is_some() {
                    1 << spirv_gen::binding::ALIASED_POINT_LOCATION
                } else {
                    0
                } | if key.smooth_lines.is_some() {
                    1 << spirv_gen::binding::SMOOTH_LINE_LOCATION
                } else {
                    0
                };
                if geometry && key.aliased_triangles {
                    xfb::lower_xfb_copies(&mut s, &caps, strides)
                } else {
                    xfb::lower_xfb_reserving(&mut s, &caps, strides, reserved)
                }
                .map_err(|e| PipeError::invalid(format!("stream output: {e}")))?;
            }
            spirv_gen::passes::lower(&mut s, key).map_err(err)?;
            if !vote {
                spirv_gen::passes::gl::lower_vote_trivial(&mut s);
            }
            spirv_gen::passes::optimize(&mut s);
            let words = spirv_gen::emit::emit(&s, target).map_err(err)?;
            Ok(words.into())
        }
    }
}

/// The fragment state `key` asks of a SPIR-V passthrough fragment shader
/// (`words`), patched in the IR lowerings' order
/// (`spirv_gen::passes::lower`): the alpha test reads colour output 0
/// before unbound outputs go, the fixed-function discards read the
/// Vulkan `FragCoord` after the shader's own reads are adjusted. `None`
/// where nothing applies.
fn fragment_patches(words: &[u32], key: &VariantKey) -> spirv_gen::Result<Option<Vec<u32>>> {
    use spirv_gen::patch as p;
    let mut out: Option<Vec<u32>> = None;
    let mut apply = |f: &dyn Fn(&[u32]) -> spirv_gen::Result<Vec<u32>>| {
        let w = f(out.as_deref().unwrap_or(words))?;
        out = Some(w);
        spirv_gen::Result::Ok(())
    };
    let discards = key.window_rects.is_some()
        || key.polygon_stipple
        || key.line_stipple
        || key.polygon_edges.is_some()
        || key.aliased_points.is_some()
        || key.round_points != 0
        || key.aliased_triangles
        || key.smooth_lines.is_some();
    if discards && key.demote_discards {
        apply(&|w| p::demote_discards(w, "main"))?;
    }
    if key.sample_shading {
        apply(&|w| p::sample_interpolation(w, "main"))?;
    }
    if key.single_sample {
        apply(&|w| p::single_sample(w, "main"))?;
    }
    if key.zero_inputs != 0 {
        apply(&|w| p::zero_inputs(w, "main", key.zero_inputs))?;
    }
    if key.pixel_center_integer {
        apply(&|w| p::pixel_center_integer(w, "main"))?;
    }
    if let Some((include, count)) = key.window_rects {
        apply(&|w| p::window_rects(w, "main", include, count))?;
    }
    if key.polygon_stipple {
        apply(&|w| p::polygon_stipple(w, "main"))?;
    }
    // Smooth lines with their ends weigh the stipple into their coverage
    // (as `spirv_gen::passes::lower` does).
    let smooth_stipple = key.line_stipple && key.smooth_lines.is_some() && key.smooth_line_ends;
    if key.line_stipple && !smooth_stipple {
        apply(&|w| p::line_stipple(w, "main", key.line_stipple_polygon))?;
    }
    if let Some(edges) = key.polygon_edges {
        let points = edges == spirv_gen::passes::PolygonEdges::Points;
        let shared = key.line_stipple && key.line_stipple_polygon;
        apply(&|w| p::polygon_edges(w, "main", points, shared))?;
    }
    if key.aliased_points.is_some() {
        apply(&|w| p::aliased_points_fs(w, "main", key.smooth_points))?;
    }
    if key.round_points != 0 {
        apply(&|w| p::round_points_fs(w, "main", key.round_points))?;
    }
    if key.aliased_triangles {
        let depth = if key.aliased_depth_clip.is_some() {
            spirv_gen::passes::DEPTH_CLIP_MASK
        } else {
            0
        };
        apply(&|w| p::aliased_triangles_fs(w, "main", key.aliased_clip_planes | depth))?;
    }
    if let Some(width) = key.smooth_lines {
        let (width, ends) = (f32::from_bits(width), key.smooth_line_ends);
        apply(&|w| p::smooth_lines_fs(w, "main", width, ends, smooth_stipple))?;
    }
    if let Some((f, r)) = key.alpha_test {
        apply(&|w| p::alpha_test(w, "main", f, f32::from_bits(r)))?;
    }
    if key.unbound_outputs != 0 {
        apply(&|w| p::unbound_outputs(w, "main", key.unbound_outputs))?;
    }
    Ok(out)
}

/// The GL lowerings `key` asks for that a SPIR-V passthrough shader does
/// not get (`compile` patches in the vertex fetch fix-ups, point size,
/// clip distance enables, depth range, transform feedback, unwritten
/// inputs, unbound outputs, per-sample interpolation, integer pixel
/// centres, window rectangles, polygon stipple, the fragment halves of
/// emulated line stipple, polygon-mode edges and multisampling off, and
/// the alpha test): what its frontend must do in its own SPIR-V.
/// Reported as a Fallback debug message when a pipeline is made.
///
/// What is left acts on GL's compatibility-profile colour and texture
/// coordinate varyings, which ARB_gl_spirv's SPIR-V cannot declare
/// (glslang refuses the compatibility profile for SPIR-V); a frontend
/// that emulates them in SPIR-V applies the state itself.
pub fn spirv_unapplied(key: &VariantKey) -> Vec<&'static str> {
    let mut out = Vec::new();
    let mut say = |on: bool, what| {
        if on {
            out.push(what);
        }
    };
    say(key.flat_shade, "flat-shaded colours (flatshade)");
    say(key.two_side, "two-sided colours (light_twoside)");
    say(
        key.sprite_coord != 0,
        "point sprite coordinates (sprite_coord_enable)",
    );
    out
}

/// See [`ShaderInfo::cull_distances`].
fn cull_distances(state: &ShaderState) -> u32 {
    use spirv_gen::ir::BuiltIn;
    if !matches!(
        state.stage,
        ShaderStage::Vertex | ShaderStage::TessEval | ShaderStage::Geometry
    ) {
        return 0;
    }
    outputs_ir(state).map_or(0, |ir| {
        ir.vars
            .iter()
            .filter(|v| v.is_output() && v.builtin() == Some(BuiltIn::CullDistance))
            .map(|v| v.array.unwrap_or(1))
            .sum()
    })
}

/// See [`ShaderInfo::expandable_gs`].
fn expandable_gs(state: &ShaderState) -> Option<(u32, u32)> {
    let ShaderCode::Ir(any) = &state.code else {
        return None;
    };
    let ir = any.downcast_ref::<Ir>()?;
    if !spirv_gen::passes::aliased::can_expand_gs(ir) {
        return None;
    }
    Some((ir.info.gs_max_vertices.unwrap_or(0), output_components(ir)))
}

/// See [`ShaderInfo::gs_copies`].
fn gs_copies(state: &ShaderState) -> Option<GsCopies> {
    let ShaderCode::Ir(any) = &state.code else {
        return None;
    };
    let ir = any.downcast_ref::<Ir>()?;
    let outputs = &state.stream_output.output;
    let room = spirv_gen::passes::xfb::copy_room(ir, spirv_gen::passes::xfb::DRIVER_LOCATIONS);
    (state.stage == ShaderStage::Geometry && !outputs.is_empty()).then(|| GsCopies {
        count: outputs.len() as u32,
        components: outputs.iter().map(|o| u32::from(o.num_components)).sum(),
        room: room as u32,
    })
}

/// The output components per vertex of `ir`.
pub(crate) fn output_components(ir: &Ir) -> u32 {
    ir.vars
        .iter()
        .filter(|v| v.is_output())
        .map(|v| u32::from(v.ty.comps) * v.array.unwrap_or(1))
        .sum()
}

/// Whether `state` has inputs that differ per sample: the sample id,
/// position or coverage mask, or `sample`-qualified inputs (what
/// `spirv_gen::passes::gl::lower_single_sample` changes). For SPIR-V, a
/// scan of the words for those decorations, `SampleMask` on an `Input`
/// variable only: a shader that writes the mask and reads no sample
/// input runs per pixel (and keeps round points, whose mask is ANDed
/// with its own).
fn reads_samples(state: &ShaderState) -> bool {
    use spirv_gen::ir::{BuiltIn, Sampling, VarKind};
    match &state.code {
        ShaderCode::Ir(any) => any.downcast_ref::<Ir>().is_some_and(|ir| {
            ir.vars.iter().any(|v| match &v.kind {
                VarKind::Input(io) => {
                    matches!(
                        io.builtin,
                        Some(BuiltIn::SampleId | BuiltIn::SamplePos | BuiltIn::SampleMask)
                    ) || io.sampling == Sampling::Sample
                }
                _ => false,
            })
        }),
        ShaderCode::SpirV { words, .. } => {
            // OpDecorate (71) %x Sample (17), or BuiltIn (11) SampleId
            // (18), SamplePosition (19); OpMemberDecorate (72) %t m
            // Sample; BuiltIn SampleMask (20) on an OpVariable (59) of
            // storage class Input (1).
            let mut masks: smallvec::SmallVec<[u32; 2]> = smallvec::SmallVec::new();
            let mut i = 5;
            while let Some(&w) = words.get(i) {
                let (len, op) = ((w >> 16) as usize, w & 0xffff);
                let at = |k: usize| words.get(i + k).copied();
                let hit = match op {
                    71 => {
                        if at(2) == Some(11) && at(3) == Some(20) {
                            masks.extend(at(1));
                        }
                        at(2) == Some(17) || (at(2) == Some(11) && matches!(at(3), Some(18..=19)))
                    }
                    72 => at(3) == Some(17),
                    59 => at(3) == Some(1) && at(2).is_some_and(|v| masks.contains(&v)),
                    _ => false,
                };
                if hit {
                    return true;
                }
                i += len.max(1);
            }
            false
        }
    }
}

/// Whether `state` reads clip or cull distances (an input decorated
/// so; read from a SPIR-V passthrough shader's words, where a module
/// that cannot be read counts as one that does).
fn reads_distances(state: &ShaderState) -> bool {
    use spirv_gen::ir::BuiltIn;
    match &state.code {
        ShaderCode::Ir(any) => any.downcast_ref::<Ir>().is_some_and(|ir| {
            ir.vars
                .iter()
                .filter(|v| v.is_input())
                .filter_map(|v| v.builtin())
                .any(|b| matches!(b, BuiltIn::ClipDistance | BuiltIn::CullDistance))
        }),
        ShaderCode::SpirV { words, entry_point } => {
            spirv_gen::patch::reads_distances(words, entry_point).unwrap_or(true)
        }
    }
}

/// What a generated geometry shader is for (`ModuleCache::line_stipple_gs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct GeneratedGs {
    /// Rectangular lines (the stipple distance is Euclidean).
    pub rectangular: bool,
    /// Triangles in (polygon-mode lines, edge masks, aliased triangles).
    pub polygon: bool,
    /// Hidden-edge masks (`crate::prim::Edges`).
    pub edges: bool,
    /// With `edges`: the vertex shader's explicit edge flags hide edges
    /// too (`spirv_gen::ir::GlSlot::Edge`).
    pub edge_flags: bool,
    /// The draw's topology has adjacency.
    pub adjacency: bool,
    /// Aliased (non-multisampled) triangles.
    pub aliased: bool,
    /// Smooth lines with their ends
    /// (`spirv_gen::passes::line_stipple::smooth_line_ends_gs`).
    pub smooth_ends: bool,
    /// With `smooth_ends`: the rasterizer's `clip_halfz` (where the near
    /// clip plane is, for segments it cuts); false otherwise.
    pub clip_halfz: bool,
}

/// Shader modules of one context, per (CSO id, variant key), and the
/// generated pass-through control shaders per (vertex shader CSO id,
/// patch size).
#[derive(Default)]
pub struct ModuleCache {
    modules: HashMap<(u32, VariantKey), vk::ShaderModule>,
    passthrough_tcs: HashMap<(u32, u8), vk::ShaderModule>,
    /// Generated line stipple geometry shaders per (previous stage's CSO
    /// id, rectangular lines, polygon-mode lines, last-stage key).
    /// Generated geometry shaders by (previous stage, (rectangular,
    /// polygon, edges, adjacency, aliased), key).
    stipple_gs: HashMap<(u32, GeneratedGs, VariantKey), vk::ShaderModule>,
    /// Generated fragment shaders for draws with none bound that still
    /// need the fragment-stage lowerings (see [`ModuleCache::null_fs`]).
    null_fs: HashMap<VariantKey, vk::ShaderModule>,
}

impl ModuleCache {
    /// The module for `cso` with `key`, compiling it on first use.
    pub fn get(
        &mut self,
        dev: &DeviceShared,
        cso: u32,
        state: &ShaderState,
        key: &VariantKey,
    ) -> PipeResult<vk::ShaderModule> {
        if let Some(m) = self.modules.get(&(cso, key.clone())) {
            return Ok(*m);
        }
        let mut words = compile(state, key, target_for(dev), dev.subgroup_vote(state.stage))?;
        // A frontend's debug info, where the device cannot take it.
        if !dev.non_semantic_info() {
            if let Some(w) = spirv_gen::patch::without_nonsemantic(&words) {
                words = w.into();
            }
        }
        let info = vk::ShaderModuleCreateInfo::default().code(&words);
        // SAFETY: the words are a SPIR-V module (emitted by spirv-gen, whose
        // output passes spirv-val, or passed through after a header check).
        let m = unsafe { dev.raw().create_shader_module(&info, None) }
            .map_err(|e| vk_err("vkCreateShaderModule", e))?;
        self.modules.insert((cso, key.clone()), m);
        Ok(m)
    }

    /// The generated pass-through control shader (`spirv_gen::passes::
    /// tess`) for patches of `vertices` written by vertex shader `vs`.
    pub fn passthrough_tcs(
        &mut self,
        dev: &DeviceShared,
        vs: u32,
        vs_state: &ShaderState,
        vertices: u8,
    ) -> PipeResult<vk::ShaderModule> {
        if let Some(m) = self.passthrough_tcs.get(&(vs, vertices)) {
            return Ok(*m);
        }
        let ir = outputs_ir(vs_state).map_err(|e| {
            PipeError::unsupported(format!(
                "tessellation without a control shader: the pass-through control shader \
                 cannot forward the vertex shader's outputs: {e}"
            ))
        })?;
        let tcs = spirv_gen::passes::tess::passthrough_tcs(&ir, u32::from(vertices))
            .map_err(|e| PipeError::unsupported(format!("draw_vbo: {e}")))?;
        let words = spirv_gen::emit::emit(&tcs, target_for(dev))
            .map_err(|e| PipeError::invalid(format!("pass-through TCS: {e}")))?;
        let info = vk::ShaderModuleCreateInfo::default().code(&words);
        // SAFETY: spirv-gen output (its tests run it through spirv-val).
        let m = unsafe { dev.raw().create_shader_module(&info, None) }
            .map_err(|e| vk_err("vkCreateShaderModule", e))?;
        self.passthrough_tcs.insert((vs, vertices), m);
        Ok(m)
    }

    /// Whether a generated pass-through geometry shader
    /// ([`Self::line_stipple_gs`]) can follow `prev`, and how: `Some` of
    /// the output locations `prev` must move (`(from, to)`, key item
    /// `relocate`) when it is spirv-gen IR whose outputs are plain (no
    /// built-in besides position and point size, no arrays) and leave the
    /// generated shader's own outputs (`EDGE_MASK_LOCATION` and
    /// `STIPPLE_POS_LOCATION`) alone. The geometry stage reads fewer
    /// locations than the fragment stage (maxGeometryInputComponents: 16
    /// locations on lavapipe), and GL's back colours sit at 30 and 31: the
    /// outputs past the limit move to free locations below it, and the
    /// generated shader writes them back where they were. `None` where
    /// that cannot be done; pipe-vk then keeps the path without the shader
    /// (quads in line mode show their diagonals) or refuses the draw
    /// (line stipple emulation).
    pub fn generated_gs_relocation(
        dev: &DeviceShared,
        prev: &ShaderState,
    ) -> Option<Vec<(u32, u32)>> {
        use spirv_gen::binding::{EDGE_MASK_LOCATION, STIPPLE_POS_LOCATION};
        // A SPIR-V shader's capture moves into the generated shader,
        // where its decorations can say it (`generated_gs_captures`); its
        // outputs cannot move (below).
        let spirv = matches!(prev.code, ShaderCode::SpirV { .. });
        if spirv && spirv_declares_xfb(prev) && generated_gs_captures(prev).is_err() {
            return None;
        }
        let ir = outputs_ir(prev).ok()?;
        let limit = dev.physical.properties.limits.max_geometry_input_components / 4;
        let mut used = Vec::new();
        let mut high = Vec::new();
        for v in ir.vars.iter().filter(|v| v.is_output()) {
            let Some(io) = v.io() else { continue };
            use spirv_gen::ir::BuiltIn;
            match io.builtin {
                Some(
                    BuiltIn::Position
                    | BuiltIn::PointSize
                    | BuiltIn::ClipDistance
                    | BuiltIn::CullDistance,
                ) => continue,
                Some(_) => return None,
                None if io.patch => return None,
                None => {}
            }
            let loc = io.location?;
            let locs = loc..loc.saturating_add(v.array.unwrap_or(1));
            if locs.contains(&EDGE_MASK_LOCATION) || locs.contains(&STIPPLE_POS_LOCATION) {
                return None;
            }
            // Arrays stay where they are (all of their locations must be
            // below the limit); single locations may move.
            if v.array.is_some() && locs.end > limit {
                return None;
            }
            if loc >= limit {
                high.push(loc);
            }
            used.extend(locs);
        }
        high.sort_unstable();
        high.dedup();
        if spirv && !high.is_empty() {
            return None;
        }
        // Not onto the driver's varyings (26..=31), which the generated
        // shader's lowerings add.
        let driver = spirv_gen::binding::DRIVER_LOCATIONS;
        let mut free =
            (0..limit).filter(|&l| !used.contains(&l) && (l >= 32 || driver & (1 << l) == 0));
        high.into_iter()
            .map(|from| free.next().map(|to| (from, to)))
            .collect()
    }

    /// The generated line stipple geometry shader
    /// (`spirv_gen::passes::line_stipple::line_stipple_gs`, or
    /// `polygon_line_stipple_gs` for polygons drawn in line mode, or
    /// `polygon_edges_gs` for quads and polygons drawn in line or point
    /// mode with hidden-edge masks, `crate::prim::Edges`, or
    /// `edge_flags_gs` for triangle lists with explicit edge flags, or
    /// `spirv_gen::passes::aliased::aliased_triangles_gs` for filled
    /// triangles with multisampling disabled on a multisampled framebuffer)
    /// following `prev` (a vertex or tessellation evaluation shader),
    /// lowered with the last vertex stage's `key`, capturing `prev`'s
    /// stream outputs. The key's `flat_shade` and `aliased_clip_planes`
    /// (fragment-stage items, inert here) tell the aliased-triangle shader
    /// to copy GL's colours from their vertex, as the fragment shader
    /// reads them flat, and which user clip planes the fragment shader
    /// tests at the pixel centre instead of the hardware.
    pub fn line_stipple_gs(
        &mut self,
        dev: &DeviceShared,
        prev: u32,
        prev_state: &ShaderState,
        what: GeneratedGs,
        key: &VariantKey,
    ) -> PipeResult<vk::ShaderModule> {
        let GeneratedGs {
            rectangular,
            polygon,
            edges,
            edge_flags,
            adjacency,
            aliased,
            smooth_ends,
            clip_halfz,
        } = what;
        let k = (prev, what, key.clone());
        if let Some(m) = self.stipple_gs.get(&k) {
            return Ok(*m);
        }
        let ir = outputs_ir(prev_state).map_err(|e| {
            PipeError::unsupported(format!(
                "line stipple emulation: the generated geometry shader cannot forward the \
                 previous stage's outputs: {e}"
            ))
        })?;
        let ir = &*ir;
        // The generated shader reads every output of `prev`, those past
        // the device's geometry-shader inputs moved down (`pipeline_for`
        // gives the vertex or evaluation shader the same `relocate` key).
        let limit = dev.physical.properties.limits.max_geometry_input_components / 4;
        let relocate = Self::generated_gs_relocation(dev, prev_state);
        let Some(relocate) = relocate else {
            let high = ir
                .vars
                .iter()
                .filter(|v| v.is_output())
                .filter_map(|v| Some((v.name.clone(), v.io()?.location?)))
                .find(|(_, loc)| *loc >= limit);
            return Err(PipeError::unsupported(match high {
                Some((name, loc)) => format!(
                    "line stipple emulation: the generated geometry shader cannot read output \
                     @{name} at location {loc} (the device's geometry shaders read {limit} \
                     locations, and it cannot be moved below)"
                ),
                None => "line stipple emulation: the generated geometry shader cannot forward \
                         the previous stage's outputs"
                    .to_string(),
            }));
        };
        let err = |e: spirv_gen::Error| PipeError::unsupported(format!("line stipple GS: {e}"));
        use spirv_gen::ir::GsInput;
        let input = match (polygon, adjacency) {
            (false, false) => GsInput::Lines,
            (false, true) => GsInput::LinesAdjacency,
            (true, false) => GsInput::Triangles,
            (true, true) => GsInput::TrianglesAdjacency,
        };
        // As the last vertex stage it captures the previous stage's
        // stream outputs (it declares that stage's outputs first, in
        // order, so the capture's register numbers are the same). The
        // aliased-triangle shader captures the values that stage wrote,
        // not those of its widened vertices.
        let (caps, strides) = match key.last_vertex_stage {
            true => generated_gs_captures(prev_state)?,
            false => (Vec::new(), [0; 4]),
        };
        let mut gs = if aliased {
            spirv_gen::passes::aliased::aliased_triangles_gs_xfb(
                ir,
                key.flat_shade,
                key.aliased_clip_planes,
                key.aliased_depth_clip,
                adjacency,
                spirv_gen::passes::xfb::Takeover {
                    captures: &caps,
                    strides,
                    // Its outputs move there afterwards.
                    reserved: relocation_targets(&relocate),
                },
            )
        } else if edges && adjacency {
            spirv_gen::passes::line_stipple::polygon_edges_gs(ir, rectangular, edge_flags)
        } else if edges {
            // Triangle lists with explicit edge flags.
            spirv_gen::passes::line_stipple::edge_flags_gs(ir, rectangular)
        } else if smooth_ends {
            spirv_gen::passes::line_stipple::smooth_line_ends_gs(ir, input, clip_halfz)
        } else {
            spirv_gen::passes::line_stipple::line_stipple_gs_for(ir, rectangular, input)
        }
        .map_err(err)?;
        spirv_gen::passes::gl::relocate_varyings(&mut gs, &relocate, false).map_err(err)?;
        if !aliased {
            let reserved = spirv_gen::passes::xfb::DRIVER_LOCATIONS;
            spirv_gen::passes::xfb::lower_xfb_reserving(&mut gs, &caps, strides, reserved)
                .map_err(|e| PipeError::invalid(format!("stream output: {e}")))?;
        }
        // It computes `stipple_pos` itself: only the last-stage lowerings.
        let key = VariantKey {
            line_stipple: false,
            ..key.clone()
        };
        spirv_gen::passes::lower(&mut gs, &key).map_err(err)?;
        spirv_gen::passes::optimize(&mut gs);
        let words = spirv_gen::emit::emit(&gs, target_for(dev)).map_err(err)?;
        let info = vk::ShaderModuleCreateInfo::default().code(&words);
        // SAFETY: spirv-gen output (its tests run it through spirv-val).
        let m = unsafe { dev.raw().create_shader_module(&info, None) }
            .map_err(|e| vk_err("vkCreateShaderModule", e))?;
        self.stipple_gs.insert(k, m);
        Ok(m)
    }

    /// The fragment shader of a draw with none bound whose fixed-function
    /// state is done in the fragment shader (window rectangles, polygon
    /// and line stipple discard, the pixel-centre test of aliased points
    /// and triangles): an empty shader with `key`'s lowerings, so a
    /// depth-only pass is clipped, stippled and rasterized like any other.
    pub fn null_fs(
        &mut self,
        dev: &DeviceShared,
        key: &VariantKey,
    ) -> PipeResult<vk::ShaderModule> {
        if let Some(m) = self.null_fs.get(key) {
            return Ok(*m);
        }
        let err = |e: spirv_gen::Error| PipeError::invalid(format!("null fragment shader: {e}"));
        let mut fs = spirv_gen::Shader::new(spirv_gen::ir::Stage::Fragment);
        spirv_gen::passes::lower(&mut fs, key).map_err(err)?;
        spirv_gen::passes::optimize(&mut fs);
        let words = spirv_gen::emit::emit(&fs, target_for(dev)).map_err(err)?;
        let info = vk::ShaderModuleCreateInfo::default().code(&words);
        // SAFETY: spirv-gen output (its tests run it through spirv-val).
        let m = unsafe { dev.raw().create_shader_module(&info, None) }
            .map_err(|e| vk_err("vkCreateShaderModule", e))?;
        self.null_fs.insert(key.clone(), m);
        Ok(m)
    }

    /// Removes and returns the modules of a deleted CSO (with the
    /// shaders generated from it).
    pub fn take(&mut self, cso: u32) -> Vec<vk::ShaderModule> {
        let keys: Vec<_> = self
            .modules
            .keys()
            .filter(|(c, _)| *c == cso)
            .cloned()
            .collect();
        let tcs: Vec<_> = self
            .passthrough_tcs
            .keys()
            .filter(|(c, _)| *c == cso)
            .copied()
            .collect();
        let gs: Vec<_> = self
            .stipple_gs
            .keys()
            .filter(|(c, _, _)| *c == cso)
            .cloned()
            .collect();
        keys.into_iter()
            .filter_map(|k| self.modules.remove(&k))
            .chain(
                tcs.into_iter()
                    .filter_map(|k| self.passthrough_tcs.remove(&k)),
            )
            .chain(gs.into_iter().filter_map(|k| self.stipple_gs.remove(&k)))
            .collect()
    }

    /// Destroys every module.
    pub fn destroy(&mut self, device: &ash::Device) {
        for m in self
            .modules
            .drain()
            .map(|(_, m)| m)
            .chain(self.passthrough_tcs.drain().map(|(_, m)| m))
            .chain(self.stipple_gs.drain().map(|(_, m)| m))
            .chain(self.null_fs.drain().map(|(_, m)| m))
        {
            // SAFETY: modules are only referenced during pipeline creation;
            // pipelines do not keep them.
            unsafe { device.destroy_shader_module(m, None) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pipe_core::shader::StreamOutputInfo;

    fn ir_state(stage: ShaderStage, src: &str) -> ShaderState {
        ShaderState {
            stage,
            code: ShaderCode::Ir(Arc::new(spirv_gen::text::parse(src).unwrap())),
            stream_output: StreamOutputInfo::default(),
        }
    }

    /// The same shader as SPIR-V words, as a passthrough frontend gives it.
    fn spirv_state(ir: &ShaderState) -> ShaderState {
        let ShaderCode::Ir(any) = &ir.code else {
            unreachable!()
        };
        let s = any.downcast_ref::<Ir>().unwrap();
        let words = spirv_gen::emit::emit(s, spirv_gen::emit::Target::Vulkan1_3).unwrap();
        ShaderState {
            stage: ir.stage,
            code: ShaderCode::SpirV {
                words: words.into(),
                entry_point: "main".into(),
            },
            stream_output: StreamOutputInfo::default(),
        }
    }

    #[test]
    fn float_image_atomics_in_ir_and_words() {
        let cs = |format: &str, ty: &str, data: &str| {
            format!(
                "shader compute local_size=1,1,1
image @img slot=0 dim=2d format={format}
fn main {{
  %0 : i32x2 = const 0, 0
  %1 : {ty} = const {data}
  %2 : {ty} = image_atomic @img, %0, %1, op=exchange
}}
"
            )
        };
        for (src, want) in [
            (cs("r32f", "f32", "1.5"), true),
            (cs("r32ui", "u32", "1"), false),
            (cs("r32i", "i32", "1"), false),
        ] {
            let ir = ir_state(ShaderStage::Compute, &src);
            assert_eq!(float_image_atomics(&ir.code), want, "IR: {src}");
            let words = spirv_state(&ir);
            assert_eq!(float_image_atomics(&words.code), want, "SPIR-V: {src}");
        }
    }

    #[test]
    fn output_prim_of_geometry_and_tess_eval_shaders() {
        let gs = |out: &str| {
            format!(
                "shader geometry input=triangles output={out} max_vertices=1 invocations=1
in @pos : f32x4[3] builtin=position
out @gl_pos : f32x4 builtin=position
fn main {{
  %0 : i32 = const 0
  %1 : f32x4 = load @pos, %0
  store @gl_pos, %1
  emit_vertex
}}
"
            )
        };
        let tes = |mode: &str| {
            format!(
                "shader tess_eval mode={mode} spacing=equal winding=ccw
in @pos : f32x4[32] builtin=position
out @gl_pos : f32x4 builtin=position
fn main {{
  %0 : i32 = const 0
  %1 : f32x4 = load @pos, %0
  store @gl_pos, %1
}}
"
            )
        };
        let cases = [
            (ShaderStage::Geometry, gs("points"), TopologyClass::Point),
            (ShaderStage::Geometry, gs("line_strip"), TopologyClass::Line),
            (
                ShaderStage::Geometry,
                gs("triangle_strip"),
                TopologyClass::Triangle,
            ),
            (ShaderStage::TessEval, tes("isolines"), TopologyClass::Line),
            (
                ShaderStage::TessEval,
                tes("triangles"),
                TopologyClass::Triangle,
            ),
            (ShaderStage::TessEval, tes("quads"), TopologyClass::Triangle),
            (
                ShaderStage::TessEval,
                tes("isolines point_mode"),
                TopologyClass::Point,
            ),
        ];
        for (stage, src, want) in cases {
            let ir = ir_state(stage, &src);
            assert_eq!(output_prim(&ir), Some(want), "IR:\n{src}");
            assert_eq!(output_prim(&spirv_state(&ir)), Some(want), "SPIR-V:\n{src}");
        }
        let vs = ir_state(
            ShaderStage::Vertex,
            "shader vertex
in @p : f32x4 location=0
out @gl_pos : f32x4 builtin=position
fn main {
  %0 : f32x4 = load @p
  store @gl_pos, %0
}
",
        );
        assert_eq!(output_prim(&vs), None);

        // A SPIR-V control shader may carry the tessellation mode: its
        // IsoLines (25) execution mode gives lines; an IR one gives none.
        let tcs = ir_state(
            ShaderStage::TessCtrl,
            "shader tess_ctrl vertices=2
in @pos : f32x4[32] builtin=position
out @opos : f32x4[2] builtin=position
fn main {
  %0 : i32 = const 0
  %1 : f32x4 = load @pos, %0
  store @opos, %0, %1
}
",
        );
        assert_eq!(output_prim(&tcs), None);
        let spirv = spirv_state(&tcs);
        let ShaderCode::SpirV { words, .. } = &spirv.code else {
            unreachable!()
        };
        let mut w = words.to_vec();
        let mut i = 5;
        let at = loop {
            let (len, op) = ((w[i] >> 16) as usize, w[i] & 0xffff);
            if op == 16 {
                break i;
            }
            i += len;
        };
        let entry = w[at + 1];
        w.splice(at..at, [(3 << 16) | 16, entry, 25]);
        let with_mode = ShaderState {
            code: ShaderCode::SpirV {
                words: w.into(),
                entry_point: "main".into(),
            },
            ..spirv
        };
        assert_eq!(output_prim(&with_mode), Some(TopologyClass::Line));
    }
}
