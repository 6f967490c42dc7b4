//! `draw_vbo`: state to pipeline, resources to barriers, rendering, draws.
//!
//! Order of work for a draw (Zink's `zink_draw_vbo`, simplified):
//! 1. look up (or build) the pipeline for the bound state;
//! 2. declare every resource access (vertex and index buffers, uniform
//!    buffers). Barriers cannot be recorded inside a rendering instance, so
//!    if any is needed the open instance is ended first;
//! 3. begin a rendering instance if none is open: the framebuffer's
//!    attachments are declared, and a pending deferred clear of a whole
//!    attachment becomes its CLEAR load op instead of a clear command;
//! 4. bind, set the dynamic state, push descriptors, draw.
//!
//! The instance stays open across draws and ends when a non-draw command
//! needs the command buffer, the framebuffer changes, or the batch flushes.
//!
//! Textures: every graphics stage samples combined image samplers (slots
//! 0..16) through a descriptor set allocated per draw from the batch's
//! pools; unbound slots a shader samples get a 1x1 black texture.
//!
//! Line loops, quads, quad strips, polygons and restart indices other
//! than all-ones go through `crate::prim`'s index rewriting. Indirect and
//! draw-auto draws that need it read their commands or vertex count back
//! on the CPU first (a wait), as Gallium's `util_draw_indirect` and
//! `util_draw_auto` do.
//!
//! Pipelines whose shaders use images, shader buffers or texture buffers
//! bind them through an extended layout (`crate::descriptors`).
//!
//! Stream output hooks in at steps 2 and 4 (`crate::streamout`): capture
//! is paused or its resume declared after every other access, and resumed
//! once the pipeline is bound; draw-auto draws with
//! `vkCmdDrawIndirectByteCountEXT`.
//!
//! Queries and render conditions hook in at the rendering instance's
//! start (`crate::query`, `crate::render_cond`).

use std::sync::Arc;

use hashbrown::HashMap;

use ash::vk;
use pipe_core::aux::AuxOp;
use pipe_core::cso::{
    BlendHandle, DepthStencilAlphaHandle, RasterizerHandle, SamplerHandle, ShaderHandle,
    VertexElementsHandle,
};
use pipe_core::draw::{DrawIndirectInfo, DrawInfo, DrawStartCountBias, IndexSource};
use pipe_core::query::PipelineStat;
use pipe_core::resource::{BindFlags, ResourceTemplate};
use pipe_core::state::*;
use pipe_core::transfer::Uploader;
use pipe_core::view::{SamplerView, Surface};
use pipe_core::{PipeError, PipeResult};
use smallvec::SmallVec;
use spirv_gen::passes::VariantKey;

use crate::clear::PendingClear;
use crate::context::VkContext;
use crate::pipeline::{topology_class, vk_topology, GfxInputs, GfxKey, TopologyClass, UBO_SLOTS};
use crate::resource::{vk_resource, ResourceObject};
use crate::sync::Access;
use crate::view::vk_surface;

const VERTEX_READ: Access = Access::new(
    vk::PipelineStageFlags2::VERTEX_ATTRIBUTE_INPUT,
    vk::AccessFlags2::VERTEX_ATTRIBUTE_READ,
);
const INDEX_READ: Access = Access::new(
    vk::PipelineStageFlags2::INDEX_INPUT,
    vk::AccessFlags2::INDEX_READ,
);
const UNIFORM_READ: Access = Access::new(
    vk::PipelineStageFlags2::from_raw(
        vk::PipelineStageFlags2::VERTEX_SHADER.as_raw()
            | vk::PipelineStageFlags2::FRAGMENT_SHADER.as_raw(),
    ),
    vk::AccessFlags2::UNIFORM_READ,
);

/// A uniform-buffer read by the graphics stage `stage`.
fn uniform_read(stage: ShaderStage) -> Access {
    Access::new(
        crate::descriptors::pipeline_stage(stage),
        vk::AccessFlags2::UNIFORM_READ,
    )
}
const INDIRECT_READ: Access = Access::new(
    vk::PipelineStageFlags2::DRAW_INDIRECT,
    vk::AccessFlags2::INDIRECT_COMMAND_READ,
);
/// Texture reads of any graphics stage. PRE_RASTERIZATION_SHADERS covers
/// vertex, tessellation and geometry shaders without naming stages whose
/// features a device may lack.
const SAMPLED_READ: Access = Access::new(
    vk::PipelineStageFlags2::from_raw(
        vk::PipelineStageFlags2::PRE_RASTERIZATION_SHADERS.as_raw()
            | vk::PipelineStageFlags2::FRAGMENT_SHADER.as_raw(),
    ),
    vk::AccessFlags2::SHADER_SAMPLED_READ,
);
const COLOR_ATTACHMENT: Access = Access::new(
    vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT,
    vk::AccessFlags2::from_raw(
        vk::AccessFlags2::COLOR_ATTACHMENT_READ.as_raw()
            | vk::AccessFlags2::COLOR_ATTACHMENT_WRITE.as_raw(),
    ),
);
const DEPTH_ATTACHMENT: Access = Access::new(
    vk::PipelineStageFlags2::from_raw(
        vk::PipelineStageFlags2::EARLY_FRAGMENT_TESTS.as_raw()
            | vk::PipelineStageFlags2::LATE_FRAGMENT_TESTS.as_raw(),
    ),
    vk::AccessFlags2::from_raw(
        vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_READ.as_raw()
            | vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_WRITE.as_raw(),
    ),
);

/// Descriptor updates after which a batch is flushed (see `do_draw_vbo`).
const MAX_DESCRIPTOR_UPDATES_PER_BATCH: u32 = 16_384;

/// The contents of set 0: (binding, buffer, offset, range) per uniform
/// buffer.
pub type UboKey = SmallVec<[(u32, u64, u64, u64); 16]>;
/// The contents of set 1: (binding | layout << 16, view, sampler) per
/// texture.
pub type TexKey = SmallVec<[(u32, u64, u64); 8]>;

/// What the current command buffer already has bound or set, so that
/// redundant commands are skipped.
#[derive(Default)]
pub struct DrawCache {
    pub cmd: vk::CommandBuffer,
    pub epoch: u64,
    pub pipeline: vk::Pipeline,
    pub ubos: UboKey,
    pub textures: TexKey,
    /// Set 0 and set 1 of the current batch, by content.
    pub ubo_sets: HashMap<UboKey, vk::DescriptorSet>,
    pub tex_sets: HashMap<TexKey, vk::DescriptorSet>,
    pub vbufs: SmallVec<[(u64, u64); 16]>,
    pub index: Option<(u64, u64, i32)>,
    pub push: PushBlock,
    pub dynamic: Option<DynState>,
    /// Sets 1-3 bound through an extended layout.
    pub resources: crate::descriptors::BoundResources,
}

/// The push constant block of a draw (`spirv_gen::binding::push`), built
/// per draw on the stack and compared with the last one recorded.
pub type PushBlock = SmallVec<[u8; 256]>;
const _: () = assert!(spirv_gen::binding::push::SIZE <= 256);

/// The dynamic state of a draw, compared with what was last set.
#[derive(Clone, Copy, PartialEq)]
pub struct DynState {
    /// The first viewport, and how many were set (the others are not
    /// compared: draws with several record them every time).
    viewport: [f32; 6],
    viewport_count: u8,
    scissor: [i32; 4],
    line_width: f32,
    depth_bias: [f32; 3],
    depth_bias_enable: bool,
    blend: [f32; 4],
    depth_bounds: [f32; 2],
    stencil: [u32; 6],
    cull: u32,
    front_ccw: bool,
    topology: i32,
    depth: (bool, bool, i32, bool),
    stencil_test: bool,
    ops: [i32; 8],
    restart: bool,
    /// Where blend state is dynamic: the blend CSO (`u32::MAX`: none),
    /// the integer colour buffers, the unbound ones and the colour buffer
    /// count it was set for.
    blend_state: Option<(u32, u8, u8, u8)>,
    /// Where rasterizer state is dynamic: its values.
    raster_state: Option<RasterStates>,
    /// Where vertex input is dynamic: the vertex-elements CSO
    /// (`u32::MAX`: none) and the slots on the dummy buffer.
    vertex_input: Option<(u32, u32)>,
    /// Where the patch control point count is dynamic and the draw
    /// tessellates: the count.
    patch_vertices: Option<u8>,
    /// Where the multisample state is dynamic: the sample count, the
    /// sample mask, alpha-to-coverage and alpha-to-one.
    sample_state: Option<(u32, u32, bool, bool)>,
    /// Where the pipeline tests window rectangles through
    /// VK_EXT_discard_rectangles: its key item and
    /// `BoundState::raster_ext_generation`.
    discard_rectangles: Option<((bool, u8), u32)>,
    /// Where the pipeline takes programmable sample locations: the sample
    /// count and `BoundState::raster_ext_generation`.
    sample_locations: Option<(u32, u32)>,
    discard: bool,
}

/// The dynamic rasterizer states (VK_EXT_extended_dynamic_state3 and
/// VK_EXT_line_rasterization) a draw records: from the rasterizer CSO,
/// whether the draw shades per sample (which rules out Bresenham and
/// smooth lines), and whether aliased triangles take over depth clipping
/// (`VkContext::aliased_depth_clip`).
#[derive(Clone, Copy, PartialEq)]
pub struct RasterStates {
    polygon_mode: i32,
    depth_clamp: bool,
    provoking_first: bool,
    line_mode: i32,
    stipple_enable: bool,
    /// The factor (1-256) and the pattern.
    stipple: (u32, u16),
    depth_clip: bool,
}

/// A uniform buffer binding (user data is uploaded when bound).
#[derive(Clone)]
pub struct UboBinding {
    pub resource: pipe_core::Resource,
    pub offset: u32,
    pub size: u32,
    /// Uploaded from user data (`ConstantBuffer::user_buffer`), so the
    /// resource is the constant stream buffer (see `cb0_window`).
    pub user: bool,
}

/// Records one draw of `info`'s instances: indexed (the index buffer
/// bound at `first_base`) or not.
///
/// # Safety
/// `cmd` is recording inside a rendering instance with the pipeline, and
/// for indexed draws the index buffer, bound.
unsafe fn record_draw(
    raw: &ash::Device,
    cmd: vk::CommandBuffer,
    info: &DrawInfo<'_>,
    d: &DrawStartCountBias,
    indexed: bool,
    first_base: u32,
) {
    // SAFETY: as the caller promises.
    unsafe {
        if indexed {
            raw.cmd_draw_indexed(
                cmd,
                d.count,
                info.instance_count,
                d.start - first_base,
                d.index_bias,
                info.start_instance,
            );
        } else {
            raw.cmd_draw(
                cmd,
                d.count,
                info.instance_count,
                d.start,
                info.start_instance,
            );
        }
    }
}

/// Little-endian indices of `size` bytes widened to u32.
fn widen(data: &[u8], size: usize) -> Vec<u32> {
    match size {
        1 => data.iter().map(|&b| u32::from(b)).collect(),
        2 => data
            .chunks_exact(2)
            .map(|c| u32::from(u16::from_le_bytes([c[0], c[1]])))
            .collect(),
        _ => data
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
    }
}

/// `set_inlinable_constants` values as (byte offset in constant buffer 0,
/// value) pairs: value i is the dword at offset 4 * i.
fn inline_uniforms(values: &[u32]) -> Vec<(u32, u32)> {
    values
        .iter()
        .enumerate()
        .map(|(i, v)| (4 * i as u32, *v))
        .collect()
}

/// Refuses a vertex shader whose 64-bit input (`dvec*`, `u64vec*`) is
/// not fed by a 64-bit element (`fixups` has no `split64` at its
/// location): pipe-vk fetches no 64-bit Vulkan format, and a 64-bit input
/// reading a 32-bit attribute is not allowed in Vulkan. A 32-bit input fed
/// by a 64-bit element is refused by the fix-up itself.
fn check_64bit_inputs(
    vs: &pipe_core::shader::ShaderState,
    fixups: &[spirv_gen::passes::FetchFixup],
) -> PipeResult<()> {
    let pipe_core::shader::ShaderCode::Ir(any) = &vs.code else {
        return Ok(());
    };
    let Some(ir) = any.downcast_ref::<crate::shader::Ir>() else {
        return Ok(());
    };
    for v in ir.vars.iter().filter(|v| v.is_input() && v.ty.bits == 64) {
        let Some(loc) = v.io().and_then(|io| io.location) else {
            continue;
        };
        let split = fixups
            .iter()
            .any(|f| f.location == loc && f.fixup == spirv_gen::passes::VertexFixup::Split64);
        if !split {
            return Err(PipeError::invalid(format!(
                "draw_vbo: the vertex shader's {} input @{} at location {loc} needs a 64-bit \
                 vertex element (R64*_UINT or _SINT, dual_slot for three or four components)",
                v.ty, v.name
            )));
        }
    }
    Ok(())
}

/// Whether draws shade per sample: GL's sample shading
/// (`set_min_samples` above 1, `force_persample_interp`) has no effect
/// with multisampling off (GL 4.6, 14.3.1.1: "If MULTISAMPLE or
/// SAMPLE_SHADING is disabled, sample shading has no effect"; st/mesa
/// passes 1 then, Gallium's state does not forbid more). The aliased
/// rasterization emulation that multisampling off selects also needs
/// its edge distances at the pixel centre, which NVIDIA interpolates at
/// each sample under sample shading (pipe.render.msaa.aliased_review.
/// min_samples drew half-covered pixels there).
fn sample_shading(rast: &RasterizerState, min_samples: u32) -> bool {
    rast.multisample && (rast.force_persample_interp || min_samples > 1)
}

/// The last-stage key `last` of a geometry shader that widens aliased
/// triangles (generated, or the application's), with the fragment key
/// `fs`'s items: flat-shaded colours keep their provoking vertex's
/// value, the user and depth planes the fragment shader tests, and the
/// depth planes' `ClipDistance` elements of a triangle left unchanged
/// stay as the shader writes them.
fn aliased_gs_key(fs: &VariantKey, last: &VariantKey) -> VariantKey {
    VariantKey {
        flat_shade: fs.flat_shade,
        aliased_clip_planes: fs.aliased_clip_planes,
        aliased_depth_clip: fs.aliased_depth_clip,
        clip_planes: match fs.aliased_depth_clip {
            Some(_) => {
                last.clip_planes
                    | spirv_gen::passes::aliased::depth_clip_distance_bits(fs.aliased_clip_planes)
            }
            None => last.clip_planes,
        },
        ..last.clone()
    }
}

fn compare_op(f: CompareFunc) -> vk::CompareOp {
    match f {
        CompareFunc::Never => vk::CompareOp::NEVER,
        CompareFunc::Less => vk::CompareOp::LESS,
        CompareFunc::Equal => vk::CompareOp::EQUAL,
        CompareFunc::LEqual => vk::CompareOp::LESS_OR_EQUAL,
        CompareFunc::Greater => vk::CompareOp::GREATER,
        CompareFunc::NotEqual => vk::CompareOp::NOT_EQUAL,
        CompareFunc::GEqual => vk::CompareOp::GREATER_OR_EQUAL,
        CompareFunc::Always => vk::CompareOp::ALWAYS,
    }
}

fn stencil_op(o: StencilOp) -> vk::StencilOp {
    match o {
        StencilOp::Keep => vk::StencilOp::KEEP,
        StencilOp::Zero => vk::StencilOp::ZERO,
        StencilOp::Replace => vk::StencilOp::REPLACE,
        StencilOp::Incr => vk::StencilOp::INCREMENT_AND_CLAMP,
        StencilOp::Decr => vk::StencilOp::DECREMENT_AND_CLAMP,
        StencilOp::IncrWrap => vk::StencilOp::INCREMENT_AND_WRAP,
        StencilOp::DecrWrap => vk::StencilOp::DECREMENT_AND_WRAP,
        StencilOp::Invert => vk::StencilOp::INVERT,
    }
}

impl VkContext {
    /// Ends the open rendering instance, if any.
    pub(crate) fn end_rendering(&mut self) {
        // Merged draws are recorded in the instance they were prepared in.
        self.end_draw_merge();
        if self.rendering {
            // Transform feedback, conditional rendering and queries begun
            // inside the instance must end inside it.
            self.so_pause();
            self.end_conditional_rendering();
            self.end_rendering_queries();
            let cmd = self.batches.cmd();
            self.dev().end_rendering(cmd);
            self.rendering = false;
        }
    }

    /// Takes a pending clear covering every slice of a surface with one
    /// value, to use as the CLEAR load op (the clear costs no command).
    fn take_clear_for_load(
        &mut self,
        obj: &Arc<ResourceObject>,
        level: u32,
        first: u32,
        count: u32,
    ) -> Option<PendingClear> {
        let mut guard = obj.clears.lock().unwrap_or_else(|p| p.into_inner());
        let dc = guard.as_mut()?;
        let v = dc.pending_value(level, first)?;
        let all = (first..first + count).all(|l| dc.pending_value(level, l) == Some(v));
        if !all {
            return None;
        }
        dc.consume(level, first..first + count, AuxOp::FullResolve)
            .ok()?;
        self.clear_stats.load_op += 1;
        Some(v)
    }

    /// Declares an attachment and returns its rendering info.
    fn attachment(
        &mut self,
        surface: &Surface,
        depth: bool,
    ) -> PipeResult<(vk::RenderingAttachmentInfo<'static>, vk::ImageAspectFlags)> {
        let s = vk_surface(surface)?;
        let obj = s.obj.clone();
        let clear = self.take_clear_for_load(&obj, s.level, s.first_layer, s.layer_count);
        let (access, layout) = if depth {
            (
                DEPTH_ATTACHMENT,
                vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
            )
        } else {
            (COLOR_ATTACHMENT, vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
        };
        // Also sampled by the draw (render-to-texture feedback): GENERAL,
        // the one layout both uses allow.
        let layout = if self.feedback_objs.contains(&(Arc::as_ptr(&obj) as usize)) {
            vk::ImageLayout::GENERAL
        } else {
            layout
        };
        self.use_image(
            &obj,
            s.level,
            s.first_layer,
            s.layer_count,
            access,
            true,
            layout,
            clear.is_some(),
        );
        let mut info = vk::RenderingAttachmentInfo::default()
            .image_view(s.view)
            .image_layout(layout)
            .load_op(vk::AttachmentLoadOp::LOAD)
            .store_op(vk::AttachmentStoreOp::STORE);
        if let Some(c) = clear {
            info = info
                .load_op(vk::AttachmentLoadOp::CLEAR)
                .clear_value(if depth {
                    vk::ClearValue {
                        depth_stencil: vk::ClearDepthStencilValue {
                            depth: c.depth,
                            stencil: c.stencil,
                        },
                    }
                } else {
                    vk::ClearValue {
                        color: vk::ClearColorValue { uint32: c.color },
                    }
                });
        }
        Ok((info, s.aspect))
    }

    /// Render-to-texture feedback (GL_ARB_texture_barrier): finds the
    /// framebuffer attachments whose image is also bound as a sampler
    /// view or a shader image of a graphics stage that has a shader, or
    /// that the fragment shader reads by framebuffer fetch. Both uses of such an image are then in
    /// `GENERAL` (a descriptor and an attachment of one subresource cannot
    /// be in two layouts), decided per image, which is conservative for
    /// views of other levels. Ordering needs nothing more: GL asks for a
    /// `texture_barrier` between a draw that writes texels and one that
    /// reads them; that call ends any draw merge (`crate::merge`), and the
    /// next draw's full path turns the earlier attachment writes followed
    /// by its reads into a barrier (ending the rendering instance). Merged
    /// draws with no call between them get no barrier, as GL allows.
    fn update_feedback(&mut self) -> PipeResult<()> {
        let fb = &self.bound().framebuffer;
        let mut atts: SmallVec<[(u32, usize); 9]> = SmallVec::new();
        for (i, c) in fb.cbufs.iter().enumerate() {
            if let Some(s) = c {
                atts.push((1 << i, Arc::as_ptr(&vk_surface(s)?.obj) as usize));
            }
        }
        if let Some(z) = &fb.zsbuf {
            atts.push((1 << 31, Arc::as_ptr(&vk_surface(z)?.obj) as usize));
        }
        let mut mask = 0u32;
        let mut objs: SmallVec<[usize; 4]> = SmallVec::new();
        // Colour buffers the fragment shader reads by framebuffer fetch.
        if let Some(h) = self.bound().shaders[ShaderStage::Fragment.index()] {
            let fetched = self.shader_info(h).fbfetch;
            for &(bit, a) in &atts {
                if bit & fetched != 0 {
                    mask |= bit;
                    if !objs.contains(&a) {
                        objs.push(a);
                    }
                }
            }
        }
        if !atts.is_empty() {
            // Only stages with a shader can read what is bound to them.
            let b = self.bound();
            let stages = || (0..ShaderStage::Compute.index()).filter(|&i| b.shaders[i].is_some());
            let sampled = stages()
                .flat_map(|i| self.views[i].iter().flatten())
                .filter_map(|v| v.backend::<crate::view::VkSamplerView>())
                .map(|p| Arc::as_ptr(&p.obj) as usize);
            let images = stages()
                .flat_map(|i| self.shader_images[i].iter().flatten())
                .filter_map(|i| vk_resource(&i.resource).ok())
                .map(|r| Arc::as_ptr(&r.obj()) as usize);
            for ptr in sampled.chain(images) {
                for &(bit, a) in &atts {
                    if a == ptr {
                        mask |= bit;
                        if !objs.contains(&ptr) {
                            objs.push(ptr);
                        }
                    }
                }
            }
        }
        self.feedback = mask;
        self.feedback_objs = objs;
        Ok(())
    }

    /// Opens a rendering instance on the bound framebuffer, unless one is
    /// open: for `clear` with an implicit resolve
    /// (`FramebufferState::resolve`), whose target only a rendering
    /// instance writes. The instance applies the deferred clears as its
    /// load ops and resolves when it ends, as one a draw opens would.
    pub(crate) fn begin_framebuffer_rendering(&mut self) -> PipeResult<()> {
        if self.rendering {
            return Ok(());
        }
        // The attachments' layouts (the next draw looks them up again).
        self.update_feedback()?;
        self.begin_rendering()
    }

    /// Opens a rendering instance on the bound framebuffer.
    fn begin_rendering(&mut self) -> PipeResult<()> {
        self.instance_feedback = self.feedback;
        let fb = self.bound().framebuffer.clone();
        let mut colors: SmallVec<[vk::RenderingAttachmentInfo<'static>; 8]> = SmallVec::new();
        for cbuf in &fb.cbufs {
            match cbuf {
                Some(s) => colors.push(self.attachment(s, false)?.0),
                None => colors
                    .push(vk::RenderingAttachmentInfo::default().image_view(vk::ImageView::null())),
            }
        }
        // The implicit resolve of cbufs[0] (GL_EXT_multisampled_render_to_
        // texture): Vulkan resolves at the end of every rendering instance,
        // so a framebuffer split into several instances resolves each time,
        // always from the whole multisampled content; the last one wins.
        if let (Some(r), Some(c0)) = (self.fb_resolve.clone(), colors.first_mut()) {
            let rs = vk_surface(&r)?;
            let obj = rs.obj.clone();
            self.use_image(
                &obj,
                rs.level,
                rs.first_layer,
                rs.layer_count,
                COLOR_ATTACHMENT,
                true,
                vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
                false,
            );
            let int = r.desc().template.format.is_pure_integer();
            *c0 = c0
                .resolve_mode(if int {
                    vk::ResolveModeFlags::SAMPLE_ZERO
                } else {
                    vk::ResolveModeFlags::AVERAGE
                })
                .resolve_image_view(rs.view)
                .resolve_image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL);
        }
        let zs = match &fb.zsbuf {
            Some(z) => Some(self.attachment(z, true)?),
            None => None,
        };
        let cmd = self.cmd();
        let mut info = vk::RenderingInfo::default()
            .render_area(vk::Rect2D {
                offset: vk::Offset2D { x: 0, y: 0 },
                extent: vk::Extent2D {
                    width: u32::from(fb.width).max(1),
                    height: u32::from(fb.height).max(1),
                },
            })
            .layer_count(framebuffer_layers(&fb))
            .color_attachments(&colors);
        if let Some((att, aspect)) = &zs {
            if aspect.contains(vk::ImageAspectFlags::DEPTH) {
                info = info.depth_attachment(att);
            }
            if aspect.contains(vk::ImageAspectFlags::STENCIL) {
                info = info.stencil_attachment(att);
            }
        }
        self.dev().begin_rendering(cmd, &info);
        self.rendering = true;
        Ok(())
    }

    /// The `VkSampler` of a sampler CSO, created on first use.
    pub(crate) fn vk_sampler(&mut self, h: SamplerHandle) -> PipeResult<vk::Sampler> {
        if let Some(s) = self.vk_samplers.get(&h.id()) {
            return Ok(*s);
        }
        let state = *self.sampler_table().get(h)?;
        let s = crate::sampler::create(self.dev(), &state)?;
        self.vk_samplers.insert(h.id(), s);
        Ok(s)
    }

    /// A 1x1 transparent-black texture and nearest sampler for unbound
    /// slots a shader samples.
    pub(crate) fn dummy_texture(&mut self) -> PipeResult<(SamplerView, vk::Sampler)> {
        if let Some(d) = &self.dummy_texture {
            return Ok(d.clone());
        }
        let t = ResourceTemplate::texture_2d(
            pipe_core::Format::R8G8B8A8Unorm,
            1,
            1,
            BindFlags::SAMPLER_VIEW,
        );
        let dev = self.dev().clone();
        let res = crate::resource::resource_create(&dev, &t)?;
        self.do_clear_texture(&res, 0, &pipe_core::PipeBox::rect(0, 0, 1, 1), &[0; 4])?;
        let view = crate::view::create_sampler_view(
            &res,
            &pipe_core::view::SamplerViewTemplate::whole(&t),
        )?;
        let sampler = crate::sampler::create(&dev, &SamplerState::default())?;
        self.dummy_texture = Some((view.clone(), sampler));
        Ok((view, sampler))
    }

    /// Declares the sampled textures of the bound graphics shaders and
    /// returns their descriptor writes (binding, image info).
    fn prepare_textures(&mut self) -> PipeResult<SmallVec<[(u32, vk::DescriptorImageInfo); 8]>> {
        let mut out = SmallVec::new();
        for stage in [
            ShaderStage::Vertex,
            ShaderStage::TessCtrl,
            ShaderStage::TessEval,
            ShaderStage::Geometry,
            ShaderStage::Fragment,
        ] {
            let Some(h) = self.bound().shaders[stage.index()] else {
                continue;
            };
            let mask = self.shader_info(h).textures;
            for slot in (0..32u32).filter(|s| mask >> s & 1 == 1) {
                let bound_view = self.views[stage.index()]
                    .get(slot as usize)
                    .cloned()
                    .flatten();
                let sampler_h = self.bound().samplers[stage.index()]
                    .get(slot as usize)
                    .copied()
                    .flatten();
                let (view, sampler) = match (bound_view, sampler_h) {
                    (Some(v), Some(s)) => (v, self.vk_sampler(s)?),
                    (Some(v), None) => {
                        let d = self.dummy_texture()?;
                        (v, d.1)
                    }
                    (None, _) => self.dummy_texture()?,
                };
                let payload = view.backend_or_err::<crate::view::VkSamplerView>("sampler view")?;
                let crate::view::VkView::Image(image_view) = payload.view else {
                    return Err(PipeError::invalid(format!(
                        "draw_vbo: sampler view slot {slot} of the {} shader is a texture \
                         buffer, but the shader samples an image there",
                        stage.short_name()
                    )));
                };
                let t = view.desc().template;
                let is3d = view.desc().texture.desc().target == pipe_core::Target::Texture3D;
                let layout = if self
                    .feedback_objs
                    .contains(&(Arc::as_ptr(&payload.obj) as usize))
                {
                    vk::ImageLayout::GENERAL
                } else {
                    vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL
                };
                if let pipe_core::view::ViewRange::Texture {
                    first_level,
                    last_level,
                    first_layer,
                    last_layer,
                } = t.range
                {
                    let (l0, ln) = if is3d {
                        (0, 1)
                    } else {
                        (first_layer, last_layer - first_layer + 1)
                    };
                    for level in first_level..=last_level {
                        self.use_image(
                            &payload.obj,
                            level,
                            l0,
                            ln,
                            SAMPLED_READ,
                            false,
                            layout,
                            false,
                        );
                    }
                }
                let binding = stage.index() as u32 * spirv_gen::binding::MAX_SAMPLER_VIEWS + slot;
                out.push((
                    binding,
                    vk::DescriptorImageInfo {
                        sampler,
                        image_view,
                        image_layout: layout,
                    },
                ));
            }
        }
        Ok(out)
    }

    /// A zeroed buffer bound where a shader may read an unbound slot.
    fn dummy_buffer(&mut self) -> PipeResult<Arc<ResourceObject>> {
        if let Some(d) = &self.dummy {
            return Ok(d.clone());
        }
        // Read at stride 0 (`dummy_slots`): past the largest element
        // offset (`max_vertex_element_src_offset`, 2047 on lavapipe and
        // NVIDIA) by the largest element, 32 bytes.
        let max_offset = pipe_core::Screen::caps(&**self.screen()).max_vertex_element_src_offset;
        let size = max_offset.min(1 << 16).next_multiple_of(256) + 256;
        let t =
            ResourceTemplate::buffer(size, BindFlags::CONSTANT_BUFFER | BindFlags::VERTEX_BUFFER);
        let dev = self.dev().clone();
        let res = crate::resource::resource_create(&dev, &t)?;
        let obj = vk_resource(&res)?.obj();
        // Zero it with a fill so its contents are defined.
        let buf = obj.buffer().ok_or(PipeError::OutOfMemory)?;
        self.use_buffer(&obj, crate::sync::access::FILL_WRITE, true);
        let cmd = self.cmd();
        // SAFETY: recording; the whole buffer (a multiple of 4 bytes).
        unsafe {
            self.dev()
                .raw()
                .cmd_fill_buffer(cmd, buf, 0, u64::from(size), 0)
        };
        // Never written again: one barrier to every way draws read it
        // (vertex input, and uniform reads of every graphics stage the
        // device has).
        // (This also keeps the validation layer 1.3.239 quiet where a
        // vertex buffer with an instance-rate binding lies just before
        // the dummy in memory: that layer checks instance-rate bindings
        // over `vertexCount * stride` bytes, past a short buffer's end,
        // a false positive later layers drop; an H100 run reported it
        // for `pipe.draw.instanced.divisor_one.staging` with vertex
        // input baked.)
        let core = &self.dev().device.features.core;
        let mut stages = VERTEX_READ.stage | UNIFORM_READ.stage;
        if core.tessellation_shader == vk::TRUE {
            stages |= vk::PipelineStageFlags2::TESSELLATION_CONTROL_SHADER
                | vk::PipelineStageFlags2::TESSELLATION_EVALUATION_SHADER;
        }
        if core.geometry_shader == vk::TRUE {
            stages |= vk::PipelineStageFlags2::GEOMETRY_SHADER;
        }
        let reads = Access::new(stages, VERTEX_READ.access | UNIFORM_READ.access);
        self.use_buffer(&obj, reads, false);
        self.dummy = Some(obj.clone());
        Ok(obj)
    }

    /// Stores a constant buffer binding (user data goes through the const
    /// uploader right away, as `u_upload` does for st/mesa).
    pub(crate) fn do_set_constant_buffer(
        &mut self,
        stage: ShaderStage,
        index: u32,
        cb: Option<ConstantBuffer<'_>>,
    ) -> PipeResult<()> {
        let binding = match cb {
            None => None,
            Some(cb) => match (cb.buffer, cb.user_buffer) {
                (Some(resource), _) => {
                    vk_resource(&resource)?;
                    Some(UboBinding {
                        resource,
                        offset: cb.buffer_offset,
                        size: cb.buffer_size,
                        user: false,
                    })
                }
                (None, Some(data)) => {
                    let bytes = data.get(..cb.buffer_size as usize).unwrap_or(data);
                    if bytes.is_empty() {
                        None
                    } else {
                        let (resource, offset) = self.do_upload_data(Uploader::Const, bytes, 16)?;
                        Some(UboBinding {
                            resource,
                            offset,
                            size: bytes.len() as u32,
                            user: true,
                        })
                    }
                }
                (None, None) => None,
            },
        };
        if let Some(slot) = self
            .ubos
            .get_mut(stage.index())
            .and_then(|s| s.get_mut(index as usize))
        {
            *slot = binding;
        }
        self.bound_mut().inlinable[stage.index()].clear();
        Ok(())
    }

    /// `draw_vbo` for the driver's own draws (the blitter, index
    /// rewriting): the full path, never merged (`crate::merge`).
    pub(crate) fn do_draw_vbo(
        &mut self,
        info: &DrawInfo<'_>,
        drawid_offset: u32,
        indirect: Option<&DrawIndirectInfo>,
        draws: &[DrawStartCountBias],
    ) -> PipeResult<()> {
        // Internal callers (the blitter, index rewriting) change bound
        // state without a context call, before and after their draws: the
        // state is looked up for this draw and again for the next.
        self.break_draw_merge();
        let r = self.draw_vbo_full(info, drawid_offset, indirect, draws, None);
        self.state_dirty = true;
        r
    }

    /// The vertex buffers the bound vertex elements read, as bindings,
    /// each declared to the batch: unbound slots, and offsets past a
    /// buffer's end, read the dummy buffer; user data is uploaded.
    fn vertex_buffer_bindings(&mut self) -> PipeResult<SmallVec<[(vk::Buffer, u64); 16]>> {
        let used = match self.bound().velems {
            Some(h) => {
                let elems = self.velems_table().get(h)?;
                check_vertex_alignment(elems, &self.bound().vertex_buffers)?;
                elems
                    .iter()
                    .map(|e| usize::from(e.vertex_buffer_index) + 1)
                    .max()
                    .unwrap_or(0)
            }
            None => 0,
        };
        let mut vbufs: SmallVec<[(vk::Buffer, u64); 16]> = SmallVec::new();
        for i in 0..used {
            let bound = self
                .bound()
                .vertex_buffers
                .get(i)
                .and_then(|vb| vb.buffer.clone().map(|b| (b, vb.buffer_offset)));
            let (obj, offset) = match bound {
                // At or past the end (`on_dummy`, which `dummy_slots`
                // reads): the dummy buffer.
                Some((VertexBufferSource::Resource(r), off)) if off >= r.desc().width0 => {
                    (self.dummy_buffer()?, 0)
                }
                Some((VertexBufferSource::Resource(r), off)) => {
                    (vk_resource(&r)?.obj(), u64::from(off))
                }
                Some((VertexBufferSource::User(data), off)) => {
                    let bytes = data.get(off as usize..).unwrap_or(&[]);
                    if bytes.is_empty() {
                        (self.dummy_buffer()?, 0)
                    } else {
                        let (r, o) = self.do_upload_data(Uploader::Stream, bytes, 4)?;
                        (vk_resource(&r)?.obj(), u64::from(o))
                    }
                }
                None => (self.dummy_buffer()?, 0),
            };
            self.use_buffer(&obj, VERTEX_READ, false);
            vbufs.push((obj.buffer().unwrap_or_default(), offset));
        }
        Ok(vbufs)
    }

    /// Binds `vbufs` in `cmd`, unless the command buffer has them bound.
    ///
    /// # Safety
    /// `cmd` is recording, and the buffers live until it retires.
    unsafe fn bind_vertex_buffers(&mut self, cmd: vk::CommandBuffer, vbufs: &[(vk::Buffer, u64)]) {
        let vb_key: SmallVec<[(u64, u64); 16]> = vbufs
            .iter()
            .map(|(b, o)| (vk::Handle::as_raw(*b), *o))
            .collect();
        if !vbufs.is_empty() && self.draw_cache.vbufs != vb_key {
            let bufs: SmallVec<[vk::Buffer; 16]> = vbufs.iter().map(|v| v.0).collect();
            let offs: SmallVec<[u64; 16]> = vbufs.iter().map(|v| v.1).collect();
            // SAFETY: as the caller promises.
            unsafe {
                self.dev()
                    .raw()
                    .cmd_bind_vertex_buffers(cmd, 0, &bufs, &offs)
            };
            self.draw_cache.vbufs = vb_key;
        }
    }

    /// A draw that merges with the last one but for the vertex buffers
    /// the frontend set in between (`merge::VbRebind`): the new ones are
    /// declared and bound in the open instance, and nothing else is
    /// looked up again. `false` (nothing bound) where that is not enough:
    /// user vertex data, or a declaration that needs a barrier or ended
    /// the instance (the dummy buffer's first fill); the full path then
    /// draws.
    pub(crate) fn rebind_vertex_buffers(&mut self, cmd: vk::CommandBuffer) -> PipeResult<bool> {
        let user = self
            .bound()
            .vertex_buffers
            .iter()
            .any(|vb| matches!(vb.buffer, Some(VertexBufferSource::User(_))));
        if user || !self.barriers.is_empty() {
            return Ok(false);
        }
        let vbufs = self.vertex_buffer_bindings()?;
        // The dummy buffer's first fill ends the instance.
        if !self.rendering || !self.barriers.is_empty() {
            return Ok(false);
        }
        // SAFETY: `cmd` is the batch's, recording the open instance the
        // pending draws were recorded in; the batch tracks the buffers.
        unsafe { self.bind_vertex_buffers(cmd, &vbufs) };
        Ok(true)
    }

    /// The full `draw_vbo` path. With `merge` (the call's key, when it
    /// may merge), the draws are left pending for the next calls to join
    /// (`crate::merge`) rather than recorded.
    pub(crate) fn draw_vbo_full(
        &mut self,
        info: &DrawInfo<'_>,
        drawid_offset: u32,
        indirect: Option<&DrawIndirectInfo>,
        draws: &[DrawStartCountBias],
        merge: Option<crate::merge::MergeKey>,
    ) -> PipeResult<()> {
        // Draw-auto: the vertex count comes from a stream-output target.
        let auto_target = indirect.and_then(|i| i.count_from_stream_output.clone());
        if auto_target.is_some() && info.index_size != 0 {
            return Err(PipeError::invalid(
                "draw_vbo: draw-auto draws are not indexed",
            ));
        }
        let restart =
            (info.primitive_restart && info.index_size != 0).then_some(info.restart_index);
        // 8-bit indices without VK_EXT_index_type_uint8 are widened on the
        // CPU, as Zink's u8 upconversion does.
        let widen_u8 = info.index_size == 1 && !self.index_uint8();
        let rewrite = widen_u8 || crate::prim::needs_rewrite(info.mode, info.index_size, restart);
        // Draw-auto takes its vertex count back to the CPU where the draw
        // is rewritten on the CPU, or where the device cannot draw from
        // the counter (no transformFeedbackDraw, or
        // `PIPE_VK_DEBUG=no_xfb_draw`): Gallium's `util_draw_auto`.
        if let Some(t) = &auto_target {
            if rewrite || !self.so_draw_auto_on_gpu() {
                if info.instance_count == 0 {
                    return Ok(());
                }
                let capture = self.so_capture_info()?.is_some();
                let count = self.so_draw_auto_vertex_count(t, capture)?;
                self.debug_message(DebugType::PerfInfo, 2, || {
                    format!(
                        "draw-auto {:?} draw read its vertex count back on the CPU (waits for \
                         the GPU)",
                        info.mode
                    )
                });
                let one = [DrawStartCountBias {
                    start: 0,
                    count,
                    index_bias: 0,
                }];
                return if rewrite {
                    self.draw_rewritten(info, drawid_offset, &one, restart)
                } else {
                    self.draw_vbo_full(info, drawid_offset, None, &one, None)
                };
            }
        }
        if rewrite {
            if let Some(ind) = indirect {
                return self.draw_indirect_rewritten(info, drawid_offset, ind, restart);
            }
            return self.draw_rewritten(info, drawid_offset, draws, restart);
        }
        let indirect = if auto_target.is_some() {
            None
        } else {
            indirect
        };
        let topology = vk_topology(info.mode).ok_or_else(|| {
            PipeError::unsupported(format!("{:?} needs index rewriting", info.mode))
        })?;
        if info.primitive_restart && info.index_size != 0 {
            let all_ones = match info.index_size {
                1 => 0xff,
                2 => 0xffff,
                _ => 0xffff_ffff,
            };
            if info.restart_index != all_ones {
                return Err(PipeError::unsupported(
                    "primitive restart with an index other than all ones",
                ));
            }
        }
        let vs = self.bound().shaders[ShaderStage::Vertex.index()]
            .ok_or_else(|| PipeError::invalid("draw_vbo: no vertex shader bound"))?;
        let unfed = self.unfed_vertex_inputs();
        if unfed != 0 {
            return Err(PipeError::invalid(format!(
                "draw_vbo: the vertex shader reads input location {}, which no vertex element \
                 feeds (a frontend gives GL's current attribute values as elements of stride 0)",
                unfed.trailing_zeros()
            )));
        }
        let fs = self.bound().shaders[ShaderStage::Fragment.index()];
        let tess = self.bound().shaders[ShaderStage::TessEval.index()].is_some();
        if tess != (info.mode == pipe_core::draw::PrimType::Patches) {
            return Err(PipeError::invalid(if tess {
                "draw_vbo: a tessellation evaluation shader is bound, so the mode must be patches"
            } else {
                "draw_vbo: patches need a tessellation evaluation shader"
            }));
        }
        if self.bound().shaders[ShaderStage::TessCtrl.index()].is_some() && !tess {
            return Err(PipeError::invalid(
                "draw_vbo: a tessellation control shader without an evaluation shader",
            ));
        }
        self.check_dual_source_targets()?;
        let empty = if auto_target.is_some() {
            info.instance_count == 0
        } else {
            draws.iter().all(|d| d.count == 0) || info.instance_count == 0
        };
        if indirect.is_none() && empty {
            return Ok(());
        }

        // 1. The pipeline.
        // With no call since the last draw (`state_dirty`, see
        // `merge::break_draw_merge`), the bound state is the same: so is
        // the pipeline for the same topology, and the feedback attachments.
        let dummy = self.dummy_slots();
        let pipeline = match self.last_pipeline {
            Some((t, p))
                if !self.state_dirty && t == topology && dummy == self.last_dummy_slots =>
            {
                p
            }
            _ => {
                let p = self.pipeline_for(vs, fs, topology)?;
                self.last_pipeline = Some((topology, p));
                p
            }
        };
        self.last_dummy_slots = dummy;

        let capture = self.so_capture_info()?;
        let auto = match &auto_target {
            Some(t) => match self.so_prepare_draw_auto(t, capture.is_some())? {
                Some(a) => Some(a),
                // The target holds no vertices.
                None => return Ok(()),
            },
            None => None,
        };

        // 2. Resource accesses (barriers are emitted outside rendering).
        // (Per draw: nothing here allocates for buffer resources.)
        let vbufs = self.vertex_buffer_bindings()?;
        let index = match (&info.index, info.index_size) {
            (IndexSource::Resource(r), 1 | 2 | 4) => {
                let obj = vk_resource(r)?.obj();
                self.use_buffer(&obj, INDEX_READ, false);
                Some((obj.buffer().unwrap_or_default(), 0u64, 0u32))
            }
            (IndexSource::User(data), 1 | 2 | 4) => {
                let size = usize::from(info.index_size);
                let lo = draws.iter().map(|d| d.start).min().unwrap_or(0) as usize;
                let hi = draws
                    .iter()
                    .map(|d| d.start as usize + d.count as usize)
                    .max()
                    .unwrap_or(0);
                let bytes = data.get(lo * size..hi * size).ok_or_else(|| {
                    PipeError::invalid("draw_vbo: user index data shorter than the draws")
                })?;
                let (r, o) = self.do_upload_data(Uploader::Stream, bytes, 4)?;
                let obj = vk_resource(&r)?.obj();
                self.use_buffer(&obj, INDEX_READ, false);
                Some((obj.buffer().unwrap_or_default(), u64::from(o), lo as u32))
            }
            _ => None,
        };
        let mut ubo_writes: SmallVec<[(u32, vk::DescriptorBufferInfo); 16]> = SmallVec::new();
        if self.bound().shaders[ShaderStage::Fragment.index()].is_some() || self.null_fs {
            let (obj, offset, range) = match self.driver_ubo.clone() {
                Some(b) => (
                    vk_resource(&b.resource)?.obj(),
                    u64::from(b.offset),
                    u64::from(b.size),
                ),
                None => (self.dummy_buffer()?, 0, 256),
            };
            self.use_buffer(&obj, UNIFORM_READ, false);
            ubo_writes.push((
                4 * spirv_gen::binding::MAX_CONSTANT_BUFFERS + spirv_gen::binding::DRIVER_UBO_SLOT,
                vk::DescriptorBufferInfo {
                    buffer: obj.buffer().unwrap_or_default(),
                    offset,
                    range,
                },
            ));
        }
        // The vertex and fragment stages' constant buffer 0 windows, for
        // set 0 and the push constants.
        let windows = [
            self.cb0_window(ShaderStage::Vertex)?,
            self.cb0_window(ShaderStage::Fragment)?,
        ];
        // The dummy buffer in unbound slots is declared once per draw.
        let mut dummy_read = false;
        for stage in [
            ShaderStage::Vertex,
            ShaderStage::TessCtrl,
            ShaderStage::TessEval,
            ShaderStage::Geometry,
            ShaderStage::Fragment,
        ] {
            if self.bound().shaders[stage.index()].is_none() {
                continue;
            }
            let window = match stage {
                ShaderStage::Vertex => windows[0],
                ShaderStage::Fragment => windows[1],
                _ => None,
            };
            for slot in 0..UBO_SLOTS {
                let b = self.ubos[stage.index()][slot as usize].clone();
                let (obj, offset, range) = match b {
                    // User constants read at a pushed offset: the window.
                    Some(b) if slot == 0 && window.is_some() => (
                        vk_resource(&b.resource)?.obj(),
                        window.map_or(0, |(base, _)| base),
                        u64::from(spirv_gen::binding::UBO0_WINDOW),
                    ),
                    Some(b) => (
                        vk_resource(&b.resource)?.obj(),
                        u64::from(b.offset),
                        u64::from(b.size.max(4)),
                    ),
                    None => (self.dummy_buffer()?, 0, 256),
                };
                let dummy = self.dummy.as_ref().is_some_and(|d| Arc::ptr_eq(d, &obj));
                // Each stage's own read: a buffer written on the device
                // (a copy, stream output) and read by a geometry shader
                // needs that stage in the barrier. (The dummy buffer's
                // fill has one barrier to every stage, `dummy_buffer`.)
                if !(dummy && dummy_read) {
                    self.use_buffer(&obj, uniform_read(stage), false);
                }
                dummy_read |= dummy;
                let binding =
                    stage.index() as u32 * spirv_gen::binding::MAX_CONSTANT_BUFFERS + slot;
                ubo_writes.push((
                    binding,
                    vk::DescriptorBufferInfo {
                        buffer: obj.buffer().unwrap_or_default(),
                        offset,
                        range,
                    },
                ));
            }
        }
        let indirect_bufs = match indirect {
            Some(ind) => {
                let b = ind.buffer.as_ref().ok_or_else(|| {
                    PipeError::invalid("draw_vbo: indirect draw without a buffer")
                })?;
                let obj = vk_resource(b)?.obj();
                self.use_buffer(&obj, INDIRECT_READ, false);
                let count = match &ind.indirect_draw_count {
                    Some(c) => {
                        let cobj = vk_resource(c)?.obj();
                        self.use_buffer(&cobj, INDIRECT_READ, false);
                        Some(cobj.buffer().unwrap_or_default())
                    }
                    None => None,
                };
                Some((obj.buffer().unwrap_or_default(), count))
            }
            None => None,
        };
        if self.state_dirty {
            self.update_feedback()?;
            // Both looked up for the current state (an early return
            // before here leaves the flag set for the next draw).
            self.state_dirty = false;
        }
        if self.rendering && self.instance_feedback != self.feedback {
            // The attachments' layouts change: a new instance.
            self.end_rendering();
        }
        let program = self.gfx_descriptors.program_of(pipeline);
        let (textures, resources) = match &program {
            Some(p) => (SmallVec::new(), self.prepare_gfx_resources(p)?),
            None => (self.prepare_textures()?, Vec::new()),
        };
        // Before stream output decides whether it stays active in the
        // open instance: resuming queries may have to end it.
        self.queries_capture(capture.is_some());
        self.prepare_resume_queries()?;
        self.declare_predicate_read();
        self.so_prepare_draw(capture.as_ref(), pipeline)?;
        if !self.barriers.is_empty() {
            self.end_rendering();
        }

        // 3. Rendering. Suspended queries begin again inside the instance
        // (outside it, in prepare_resume_queries, with
        // no_query_in_rendering).
        if !self.rendering {
            self.begin_rendering()?;
        }
        self.begin_conditional_rendering();
        self.resume_queries()?;
        let cmd = self.batches.cmd();
        let dev = self.dev().clone();
        let raw = dev.raw();

        // 4. Bind, state, draw. State already recorded in this command
        // buffer with the same values is not recorded again (bindings and
        // dynamic state persist across rendering instances and pipeline
        // binds within a command buffer).
        // A command buffer handle is reused after its batch retires, so the
        // cache is keyed by the batch (the submission count) too.
        let epoch = self.batches.submitted;
        if self.draw_cache.cmd != cmd || self.draw_cache.epoch != epoch {
            self.draw_cache = DrawCache {
                cmd,
                epoch,
                ..DrawCache::default()
            };
        }
        let ubo_key: UboKey = ubo_writes
            .iter()
            .map(|(b, i)| (*b, vk::Handle::as_raw(i.buffer), i.offset, i.range))
            .collect();
        let tex_key: TexKey = textures
            .iter()
            .map(|(b, i)| {
                (
                    // The layout too (GENERAL under feedback).
                    *b | (i.image_layout.as_raw() as u32) << 16,
                    vk::Handle::as_raw(i.image_view),
                    vk::Handle::as_raw(i.sampler),
                )
            })
            .collect();
        // Sets 0 (uniform buffers) and 1 (textures) are cached per batch
        // by content, as Zink's cached descriptor mode: a draw whose
        // bindings were bound before in this batch binds that set again,
        // with no allocation or update (pipe-bench descriptors: on
        // lavapipe, binding a set written earlier costs about a third of
        // a push descriptor or of writing a new set, which both map
        // memory per call).
        let ubo_set = if self.draw_cache.ubos == ubo_key {
            None
        } else {
            let set = match self.draw_cache.ubo_sets.get(&ubo_key) {
                Some(&set) => set,
                None => {
                    let set = self.batches.alloc_set(self.pipelines.layout.sets[0])?;
                    write_sets(raw, set, &ubo_writes, vk::DescriptorType::UNIFORM_BUFFER);
                    self.descriptor_updates += 1;
                    self.draw_cache.ubo_sets.insert(ubo_key.clone(), set);
                    set
                }
            };
            self.draw_cache.ubos = ubo_key;
            Some(set)
        };
        let tex_set = if self.draw_cache.textures == tex_key {
            None
        } else {
            // Samplers of the tessellation or geometry stages mean the
            // pipeline was built with the wide layout (see pipeline.rs).
            let per_stage = spirv_gen::binding::MAX_SAMPLER_VIEWS;
            let wide = textures
                .iter()
                .any(|(b, _)| (1..4).contains(&(b / per_stage)));
            let (dsl, layout) = if wide {
                (
                    self.pipelines.layout.wide_tex_set,
                    self.pipelines.layout.wide_layout,
                )
            } else {
                (self.pipelines.layout.sets[1], self.pipelines.layout.layout)
            };
            // The key says which layout (wide sets have other bindings).
            let set = match self.draw_cache.tex_sets.get(&tex_key) {
                Some(&set) => set,
                None => {
                    let set = self.batches.alloc_set(dsl)?;
                    write_sets(
                        raw,
                        set,
                        &textures,
                        vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
                    );
                    self.descriptor_updates += 1;
                    self.draw_cache.tex_sets.insert(tex_key.clone(), set);
                    set
                }
            };
            self.draw_cache.textures = tex_key;
            Some((set, layout))
        };
        // SAFETY (for the block): recording inside the rendering instance the
        // pipeline was built for (formats and samples are in its key); every
        // buffer is live and tracked by the batch.
        unsafe {
            if self.draw_cache.pipeline != pipeline {
                raw.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, pipeline);
                self.draw_cache.pipeline = pipeline;
            }
            self.set_dynamic_state(
                cmd,
                topology,
                info.primitive_restart && info.index_size != 0,
            )?;
            // Set 0 is the same layout in every graphics pipeline layout,
            // so binding it disturbs no other set.
            if let Some(set) = ubo_set {
                raw.cmd_bind_descriptor_sets(
                    cmd,
                    vk::PipelineBindPoint::GRAPHICS,
                    self.pipelines.layout.layout,
                    0,
                    &[set],
                    &[],
                );
            }
            if let Some((set, layout)) = tex_set {
                raw.cmd_bind_descriptor_sets(
                    cmd,
                    vk::PipelineBindPoint::GRAPHICS,
                    layout,
                    1,
                    &[set],
                    &[],
                );
                self.draw_cache.resources.invalidate();
            }
            if let Some(p) = &program {
                self.bind_gfx_resources(cmd, p, &resources)?;
            }
            self.bind_vertex_buffers(cmd, &vbufs);
            let mut block = self.push_block(&windows);
            if let Some(d) = block.get_mut(0..4) {
                d.copy_from_slice(&drawid_offset.to_le_bytes());
            }
            if self.draw_cache.push != block {
                raw.cmd_push_constants(
                    cmd,
                    self.pipelines.layout.layout,
                    vk::ShaderStageFlags::ALL,
                    0,
                    &block,
                );
                self.draw_cache.push = block;
            }
            if let Some(ty_buf) = index.map(|(buf, off, _)| (buf, off)) {
                let ty = match info.index_size {
                    1 => vk::IndexType::UINT8_EXT,
                    2 => vk::IndexType::UINT16,
                    _ => vk::IndexType::UINT32,
                };
                let ib = Some((vk::Handle::as_raw(ty_buf.0), ty_buf.1, ty.as_raw()));
                if self.draw_cache.index != ib {
                    raw.cmd_bind_index_buffer(cmd, ty_buf.0, ty_buf.1, ty);
                    self.draw_cache.index = ib;
                }
            }
            let first_base = index.map_or(0, |(_, _, f)| f);
            let layout = self.pipelines.layout.layout;
            if let Some(so) = &capture {
                self.so_resume(cmd, so)?;
            }
            if let Some((counter, stride)) = auto {
                self.so_draw_auto(
                    cmd,
                    info.instance_count,
                    info.start_instance,
                    counter,
                    stride,
                )?;
            } else if let (Some(ind), Some((buf, count))) = (indirect, indirect_bufs) {
                let indexed = index.is_some();
                let cmd_size = if indexed { 20 } else { 16 };
                let stride = if ind.draw_count > 1 {
                    ind.stride
                } else {
                    cmd_size
                };
                let off = u64::from(ind.offset);
                match (count, indexed) {
                    (Some(cb), true) => raw.cmd_draw_indexed_indirect_count(
                        cmd,
                        buf,
                        off,
                        cb,
                        u64::from(ind.indirect_draw_count_offset),
                        ind.draw_count,
                        stride,
                    ),
                    (Some(cb), false) => raw.cmd_draw_indirect_count(
                        cmd,
                        buf,
                        off,
                        cb,
                        u64::from(ind.indirect_draw_count_offset),
                        ind.draw_count,
                        stride,
                    ),
                    (None, true) => {
                        raw.cmd_draw_indexed_indirect(cmd, buf, off, ind.draw_count, stride)
                    }
                    (None, false) => raw.cmd_draw_indirect(cmd, buf, off, ind.draw_count, stride),
                }
            } else if let Some(key) =
                merge.filter(|_| capture.is_none() && !self.draw_id_read && self.can_merge())
            {
                self.start_draw_merge(key, cmd, draws);
            } else if draws.len() > 1
                && !info.increment_draw_id
                && !self.draw_id_read
                && self.multi_draw.is_some()
            {
                // Consecutive draws with no state change in between: one
                // vkCmdDrawMulti*EXT (how Zink reaches 8-10 M draws/s on
                // lavapipe). Not for vertex shaders that read the draw id,
                // which Vulkan's DrawIndex would count within the command
                // (`shader::reads_draw_index`): they take the loop below.
                self.record_multi_draw(cmd, info, draws, index.is_some(), first_base);
            } else {
                for (i, d) in draws.iter().enumerate() {
                    if info.increment_draw_id && i > 0 {
                        let id = (drawid_offset + i as u32).to_le_bytes();
                        raw.cmd_push_constants(cmd, layout, vk::ShaderStageFlags::ALL, 0, &id);
                        if let Some(d) = self.draw_cache.push.get_mut(0..4) {
                            d.copy_from_slice(&id);
                        }
                    }
                    if d.count == 0 {
                        continue;
                    }
                    record_draw(raw, cmd, info, d, index.is_some(), first_base);
                }
            }
        }
        self.stats.draws += draws.len() as u64;
        // lavapipe backs every descriptor push or set with a mapping until
        // the command buffer is reset; past ~65k per batch it runs out of
        // mappings (vm.max_map_count). Bound the work per batch.
        if self.descriptor_updates >= MAX_DESCRIPTOR_UPDATES_PER_BATCH {
            self.flush_internal()?;
        }
        Ok(())
    }

    /// The creation-time facts of a bound shader.
    pub(crate) fn shader_info(&self, h: ShaderHandle) -> crate::shader::ShaderInfo {
        self.shader_info
            .get(&h.cso.id())
            .copied()
            .unwrap_or_default()
    }

    /// Whether 8-bit index buffers are read by the device
    /// (`VK_EXT_index_type_uint8`, unless `PIPE_VK_DEBUG=no_index_uint8`).
    fn index_uint8(&self) -> bool {
        let dev = self.dev();
        dev.device.features.index_type_uint8.index_type_uint8 == vk::TRUE
            && !dev.debug.no_index_uint8
    }

    /// Draws a primitive type Vulkan lacks (or a restart index it does not
    /// recognize, or 8-bit indices it cannot read) through `crate::prim`'s
    /// index rewriting: each draw's
    /// indices (read back from an index buffer if needed) become a u32
    /// list of a Vulkan topology, uploaded and drawn indexed.
    fn draw_rewritten(
        &mut self,
        info: &DrawInfo<'_>,
        drawid_offset: u32,
        draws: &[DrawStartCountBias],
        restart: Option<u32>,
    ) -> PipeResult<()> {
        self.debug_message(DebugType::PerfInfo, 1, || {
            format!("{:?} drawn through CPU index rewriting", info.mode)
        });
        let provoking_last = !self.rasterizer_or_default()?.flatshade_first;
        let edges = self.polygon_edges(info.mode)?;
        let size = usize::from(info.index_size);
        // The index data, widened to u32, for indexed draws.
        let source: Option<Vec<u32>> = match &info.index {
            IndexSource::None => None,
            IndexSource::User(data) => Some(widen(data, size)),
            IndexSource::Resource(res) => {
                let len = res.desc().width0;
                let t = self.do_transfer_map(
                    res,
                    0,
                    pipe_core::flags::MapFlags::READ,
                    &pipe_core::PipeBox::range(0, len),
                )?;
                let bytes = t.to_vec();
                self.do_transfer_unmap(t)?;
                Some(widen(&bytes, size))
            }
        };
        for (i, d) in draws.iter().enumerate() {
            let slice = match &source {
                Some(all) => {
                    let lo = d.start as usize;
                    let hi = lo.saturating_add(d.count as usize);
                    Some(all.get(lo..hi).ok_or_else(|| {
                        PipeError::invalid("draw_vbo: indices past the end of the index data")
                    })?)
                }
                None => None,
            };
            let r = crate::prim::rewrite(
                info.mode,
                slice,
                d.start,
                d.count,
                restart,
                provoking_last,
                edges.map(|(e, _)| e),
            )?;
            if r.indices.is_empty() {
                continue;
            }
            let bytes: Vec<u8> = r.indices.iter().flat_map(|v| v.to_le_bytes()).collect();
            let sub = DrawInfo {
                mode: r.mode,
                index_size: 4,
                index: IndexSource::User(&bytes),
                primitive_restart: r.restart,
                restart_index: crate::prim::RESTART,
                increment_draw_id: false,
                ..info.clone()
            };
            let bias = if source.is_some() { d.index_bias } else { 0 };
            let one = [DrawStartCountBias {
                start: 0,
                count: r.indices.len() as u32,
                index_bias: bias,
            }];
            let id = if info.increment_draw_id {
                drawid_offset + i as u32
            } else {
                drawid_offset
            };
            if edges.is_some() {
                // The adjacency topology of an edge draw needs its own
                // pipeline: the last one (`last_pipeline`, keyed by
                // topology) must not serve a real adjacency draw, nor the
                // reverse.
                self.state_dirty = true;
                self.edge_draw = edges;
                let r = self.do_draw_vbo(&sub, id, None, &one);
                self.edge_draw = None;
                self.state_dirty = true;
                r?;
            } else {
                self.do_draw_vbo(&sub, id, None, &one)?;
            }
        }
        Ok(())
    }

    /// Indirect draws that need index rewriting (quads, quad strips,
    /// polygons and line loops, 8-bit indices without
    /// VK_EXT_index_type_uint8, a restart index other than all ones): the
    /// commands, and the count, are read back on the CPU (waiting for
    /// whatever the GPU still writes to them) and drawn through
    /// [`Self::draw_rewritten`], one direct draw each with its draw id, as
    /// Gallium's `util_draw_indirect` does for drivers without indirect
    /// draws (Zink's primitive conversion takes it too).
    fn draw_indirect_rewritten(
        &mut self,
        info: &DrawInfo<'_>,
        drawid_offset: u32,
        indirect: &DrawIndirectInfo,
        restart: Option<u32>,
    ) -> PipeResult<()> {
        let buffer = indirect
            .buffer
            .as_ref()
            .ok_or_else(|| PipeError::invalid("draw_vbo: an indirect draw without a buffer"))?;
        self.debug_message(DebugType::PerfInfo, 2, || {
            format!(
                "indirect {:?} draw read back on the CPU for index rewriting (waits for the GPU)",
                info.mode
            )
        });
        let read = |ctx: &mut Self, res: &pipe_core::Resource, offset: u32, len: u32| {
            let width = res.desc().width0;
            if offset.checked_add(len).is_none_or(|end| end > width) {
                return Err(PipeError::invalid(format!(
                    "draw_vbo: indirect data at {offset}..+{len} past the end of a {width}-byte \
                     buffer"
                )));
            }
            let t = ctx.do_transfer_map(
                res,
                0,
                pipe_core::flags::MapFlags::READ,
                &pipe_core::PipeBox::range(offset, len),
            )?;
            let bytes = t.to_vec();
            ctx.do_transfer_unmap(t)?;
            Ok(bytes)
        };
        let word = |b: &[u8], k: usize| {
            u32::from_le_bytes([b[4 * k], b[4 * k + 1], b[4 * k + 2], b[4 * k + 3]])
        };
        let mut n = indirect.draw_count;
        if let Some(count) = &indirect.indirect_draw_count {
            let b = read(self, count, indirect.indirect_draw_count_offset, 4)?;
            n = n.min(word(&b, 0));
        }
        if n == 0 {
            return Ok(());
        }
        let indexed = info.index_size != 0;
        let cmd_size: u32 = if indexed { 20 } else { 16 };
        let stride = if n > 1 { indirect.stride } else { cmd_size };
        let span = stride
            .checked_mul(n - 1)
            .and_then(|s| s.checked_add(cmd_size))
            .ok_or_else(|| PipeError::invalid("draw_vbo: indirect commands overflow"))?;
        let all = read(self, buffer, indirect.offset, span)?;
        for i in 0..n {
            let c = &all[(i * stride) as usize..(i * stride + cmd_size) as usize];
            // GL's (and Vulkan's) layouts: count, instances, first vertex
            // or index, [vertex offset,] first instance.
            let (count, instances, first) = (word(c, 0), word(c, 1), word(c, 2));
            let (bias, first_instance) = if indexed {
                (word(c, 3) as i32, word(c, 4))
            } else {
                (0, word(c, 3))
            };
            if count == 0 || instances == 0 {
                continue;
            }
            let sub = DrawInfo {
                instance_count: instances,
                start_instance: first_instance,
                increment_draw_id: false,
                ..info.clone()
            };
            let one = [DrawStartCountBias {
                start: first,
                count,
                index_bias: bias,
            }];
            self.draw_rewritten(&sub, drawid_offset.wrapping_add(i), &one, restart)?;
        }
        Ok(())
    }

    /// Whether a draw of `mode` hides the diagonals (polygon mode `LINE`)
    /// or repeated vertices (`POINT`) of its quads or polygons through
    /// `crate::prim`'s edge masks and a generated geometry shader
    /// (`spirv_gen::passes::polygon_edges`): for quads, quad strips and
    /// polygons, with no geometry or tessellation shader bound, on a
    /// device with geometry shaders, a vertex shader the generated one can
    /// follow (`ModuleCache::generated_gs_relocation`) and a fragment shader that
    /// leaves the mask's location free. Otherwise they are drawn as plain
    /// triangles, diagonals and all.
    ///
    /// The second value: the vertex shader's explicit edge flags
    /// (`slot=edge`) hide edges too. GL applies them to separate
    /// triangles, quads and polygons, not to strips and fans, whose edges
    /// are all boundary edges; so triangle lists take this path only with
    /// edge flags (drawn as they are, with
    /// `spirv_gen::passes::line_stipple::edge_flags_gs`; rewritten only
    /// when they need it anyway, e.g. for their indices).
    fn polygon_edges(
        &self,
        mode: pipe_core::draw::PrimType,
    ) -> PipeResult<Option<(crate::prim::Edges, bool)>> {
        use pipe_core::draw::PrimType as P;
        let b = self.bound();
        let flags = matches!(mode, P::Triangles | P::Quads | P::Polygon)
            && b.shaders[ShaderStage::Vertex.index()]
                .is_some_and(|vs| self.shader_info(vs).edge_flag);
        if !matches!(mode, P::Quads | P::QuadStrip | P::Polygon) && !flags {
            return Ok(None);
        }
        if b.shaders[ShaderStage::Geometry.index()].is_some()
            || b.shaders[ShaderStage::TessEval.index()].is_some()
            || self.dev().device.features.core.geometry_shader != vk::TRUE
        {
            return Ok(None);
        }
        let edges = match crate::pipeline::effective_polygon_mode(&self.rasterizer_or_default()?) {
            PolygonMode::Line => crate::prim::Edges::Lines,
            PolygonMode::Point => crate::prim::Edges::Points,
            _ => return Ok(None),
        };
        let Some(vs) = b.shaders[ShaderStage::Vertex.index()] else {
            return Ok(None);
        };
        // A fragment shader reading the mask's location itself keeps it.
        let mask_loc = 1u32 << spirv_gen::binding::EDGE_MASK_LOCATION;
        if let Some(fs) = b.shaders[ShaderStage::Fragment.index()] {
            if self.shader_info(fs).varyings & mask_loc != 0 {
                return Ok(None);
            }
        }
        let vs = self.shader_table().get(vs.cso)?;
        Ok(
            crate::shader::ModuleCache::generated_gs_relocation(self.dev(), vs)
                .map(|_| (edges, flags)),
        )
    }

    /// Records `draws` as `vkCmdDrawMultiEXT` / `vkCmdDrawMultiIndexedEXT`
    /// calls of at most `maxMultiDrawCount` draws each.
    pub(crate) fn record_multi_draw(
        &mut self,
        cmd: vk::CommandBuffer,
        info: &DrawInfo<'_>,
        draws: &[DrawStartCountBias],
        indexed: bool,
        first_base: u32,
    ) {
        let Some(md) = &self.multi_draw else { return };
        // Empty draws draw nothing, and left in they cost a whole
        // multi-draw on lavapipe 25.0.7, which skips one whose first draw
        // is empty (`pipe.draw.multi_draw.empty_draws`). They are left
        // out (multi-draws are not used where a shader reads the draw
        // index, which would count them).
        let kept: SmallVec<[DrawStartCountBias; 8]>;
        let draws = if draws.len() > 1 && draws.iter().any(|d| d.count == 0) {
            kept = draws.iter().copied().filter(|d| d.count != 0).collect();
            if kept.is_empty() {
                return;
            }
            &kept[..]
        } else {
            draws
        };
        if draws.len() == 1
            || (info.instance_count > 1 && !self.dev().multi_draw_instances_in_order())
        {
            // One draw: the plain command. lavapipe copies a multi-draw's
            // array when recording and allocates one again when
            // executing it (pipe-bench draw scenario 3, whose every
            // pending list is one draw long). Instanced draws on devices
            // whose multi-draws run instance by instance: one command
            // per draw.
            for d in draws {
                // SAFETY: as the multi-draws below.
                unsafe { record_draw(self.dev().raw(), cmd, info, d, indexed, first_base) };
            }
            return;
        }
        let max = self.max_multi_draw.max(1) as usize;
        let fp = md.fp();
        for chunk in draws.chunks(max) {
            if indexed {
                let infos: SmallVec<[vk::MultiDrawIndexedInfoEXT; 64]> = chunk
                    .iter()
                    .map(|d| vk::MultiDrawIndexedInfoEXT {
                        first_index: d.start - first_base,
                        index_count: d.count,
                        vertex_offset: d.index_bias,
                    })
                    .collect();
                // SAFETY: recording inside the rendering instance with the
                // pipeline and index buffer bound; the array holds
                // `len` tightly packed entries; a null vertex-offset pointer
                // selects each entry's own offset.
                unsafe {
                    (fp.cmd_draw_multi_indexed_ext)(
                        cmd,
                        infos.len() as u32,
                        infos.as_ptr(),
                        info.instance_count,
                        info.start_instance,
                        std::mem::size_of::<vk::MultiDrawIndexedInfoEXT>() as u32,
                        std::ptr::null(),
                    )
                };
            } else {
                let infos: SmallVec<[vk::MultiDrawInfoEXT; 64]> = chunk
                    .iter()
                    .map(|d| vk::MultiDrawInfoEXT {
                        first_vertex: d.start,
                        vertex_count: d.count,
                    })
                    .collect();
                // SAFETY: as above, without the index buffer.
                unsafe {
                    (fp.cmd_draw_multi_ext)(
                        cmd,
                        infos.len() as u32,
                        infos.as_ptr(),
                        info.instance_count,
                        info.start_instance,
                        std::mem::size_of::<vk::MultiDrawInfoEXT>() as u32,
                    )
                };
            }
        }
    }

    /// Sets every dynamic state the pipelines declare.
    ///
    /// # Safety
    /// `cmd` is recording, inside a rendering instance, with a pipeline of
    /// [`crate::pipeline::DYNAMIC_STATES`] bound.
    unsafe fn set_dynamic_state(
        &mut self,
        cmd: vk::CommandBuffer,
        topology: vk::PrimitiveTopology,
        restart: bool,
    ) -> PipeResult<()> {
        let raw = self.dev().raw().clone();
        let b = self.bound();
        let fb = &b.framebuffer;
        let (fw, fh) = (f32::from(fb.width.max(1)), f32::from(fb.height.max(1)));
        let rast = match b.rasterizer {
            Some(h) => *self.rasterizer_table().get(h)?,
            None => RasterizerState {
                line_width: 1.0,
                depth_clip_near: true,
                depth_clip_far: true,
                ..Default::default()
            },
        };
        let dsa = match b.dsa {
            Some(h) => *self.dsa_table().get(h)?,
            None => DepthStencilAlphaState::default(),
        };
        let limits = self.dev().physical.properties.limits;
        let viewport_of = |v: &ViewportState| {
            if v.scale == [0.0; 3] && v.translate == [0.0; 3] {
                vk::Viewport {
                    x: 0.0,
                    y: 0.0,
                    width: fw,
                    height: fh,
                    min_depth: 0.0,
                    max_depth: 1.0,
                }
            } else {
                let (near, far) = if rast.clip_halfz {
                    (v.translate[2], v.translate[2] + v.scale[2])
                } else {
                    (v.translate[2] - v.scale[2], v.translate[2] + v.scale[2])
                };
                vk_viewport(v, &limits, near.clamp(0.0, 1.0), far.clamp(0.0, 1.0))
            }
        };
        let full = vk::Rect2D {
            offset: vk::Offset2D { x: 0, y: 0 },
            extent: vk::Extent2D {
                width: u32::from(fb.width.max(1)),
                height: u32::from(fb.height.max(1)),
            },
        };
        let scissor_of = |s: &ScissorState| {
            if rast.scissor {
                let x0 = u32::from(s.minx).min(full.extent.width);
                let y0 = u32::from(s.miny).min(full.extent.height);
                let x1 = u32::from(s.maxx).min(full.extent.width);
                let y1 = u32::from(s.maxy).min(full.extent.height);
                vk::Rect2D {
                    offset: vk::Offset2D {
                        x: x0 as i32,
                        y: y0 as i32,
                    },
                    extent: vk::Extent2D {
                        width: x1.saturating_sub(x0),
                        height: y1.saturating_sub(y0),
                    },
                }
            } else {
                full
            }
        };
        let vp = viewport_of(&b.viewports[0]);
        let sc = scissor_of(&b.scissors[0]);
        let screen = self.screen().clone();
        let caps = pipe_core::Screen::caps(&*screen);
        // Every viewport the frontend set (GS/VS viewport_index picks
        // one); the usual single viewport stays on the cached path.
        let n_viewports = usize::from(b.num_viewports).clamp(1, caps.max_viewports.max(1) as usize);
        let (viewports, scissors): (SmallVec<[vk::Viewport; 1]>, SmallVec<[vk::Rect2D; 1]>) =
            if n_viewports > 1 {
                (
                    b.viewports[..n_viewports].iter().map(viewport_of).collect(),
                    b.scissors[..n_viewports].iter().map(scissor_of).collect(),
                )
            } else {
                (smallvec::smallvec![vp], smallvec::smallvec![sc])
            };
        // Emulated smooth lines are drawn one pixel wider, for the pixels
        // the line's edges cover in part (`VariantKey::smooth_lines`).
        let line_width = match self.smooth_line_width {
            Some(w) => (w + 1.0).clamp(1.0, caps.max_line_width.max(1.0)),
            None if caps.wide_lines => rast.line_width.clamp(1.0, caps.max_line_width.max(1.0)),
            None => 1.0,
        };
        let mut cull = vk::CullModeFlags::NONE;
        if rast.cull_face.contains(Face::FRONT) {
            cull |= vk::CullModeFlags::FRONT;
        }
        if rast.cull_face.contains(Face::BACK) {
            cull |= vk::CullModeFlags::BACK;
        }
        let face = |s: &StencilState| vk::StencilOpState {
            fail_op: stencil_op(s.fail_op),
            pass_op: stencil_op(s.zpass_op),
            depth_fail_op: stencil_op(s.zfail_op),
            compare_op: compare_op(s.func),
            compare_mask: u32::from(s.valuemask),
            write_mask: u32::from(s.writemask),
            reference: 0,
        };
        let front = face(&dsa.stencil[0]);
        let back = if dsa.stencil[1].enabled {
            face(&dsa.stencil[1])
        } else {
            front
        };
        let refs = b.stencil_ref.ref_value;
        let blend_color = b.blend_color.color;
        // Vulkan wants both bounds in [0, 1] (GL clamps them there); a
        // NaN bound, which GL leaves undefined, bounds nothing.
        let unit = |v: f64, nan: f32| {
            if v.is_nan() {
                nan
            } else {
                v.clamp(0.0, 1.0) as f32
            }
        };
        let depth_bounds = (
            unit(dsa.depth_bounds_min, 0.0),
            unit(dsa.depth_bounds_max, 1.0),
        );
        let offset_enabled = crate::pipeline::polygon_offset_enabled(&rast);
        // Dynamic blend state: per colour buffer, what the pipeline would
        // otherwise bake (`PipelineCache::create`).
        let blend_state = if self.dynamic_blend.is_some() {
            let (mut ints, mut unbound) = (0u8, 0u8);
            for (i, c) in fb.cbufs.iter().enumerate() {
                match c {
                    Some(s) if s.desc().template.format.is_pure_integer() => ints |= 1 << i,
                    Some(_) => {}
                    None => unbound |= 1 << i,
                }
            }
            Some((
                b.blend.map_or(u32::MAX, |h| h.id()),
                ints,
                unbound | self.mismatched_outputs(),
                fb.cbufs.len() as u8,
            ))
        } else {
            None
        };
        let raster_state = if self.dynamic_rasterizer.is_some() {
            let per_sample = self.per_sample_ms(&rast)?;
            let aliased_depth = self.aliased_depth_clip;
            let (line_mode, stipple_ok) = crate::pipeline::line_rasterization(
                self.dev(),
                &rast,
                per_sample,
                self.framebuffer_samples()?,
            );
            let mode = match crate::pipeline::effective_polygon_mode(&rast) {
                PolygonMode::Line => vk::PolygonMode::LINE,
                PolygonMode::Point => vk::PolygonMode::POINT,
                _ => vk::PolygonMode::FILL,
            };
            Some(RasterStates {
                polygon_mode: mode.as_raw(),
                depth_clamp: rast.depth_clamp || aliased_depth,
                provoking_first: rast.flatshade_first,
                line_mode: line_mode.as_raw(),
                stipple_enable: rast.line_stipple_enable && stipple_ok && !self.shader_line_stipple,
                stipple: (
                    u32::from(rast.line_stipple_factor) + 1,
                    rast.line_stipple_pattern,
                ),
                depth_clip: rast.depth_clip_near && !aliased_depth,
            })
        } else {
            None
        };
        let samples = self.framebuffer_samples()?;
        let sample_state = if self.dev().dynamic_sample_state() {
            // No fragment shader: nothing for alpha-to-coverage to read
            // (as in `pipeline_for`).
            let no_fs = b.shaders[ShaderStage::Fragment.index()].is_none();
            let (a2c, a2o) = match b.blend {
                _ if no_fs => (false, false),
                Some(h) => self.alpha_to_coverage_one(self.blend_table().get(h)?),
                None => (false, false),
            };
            Some((
                samples,
                effective_sample_mask(b.sample_mask, samples),
                a2c,
                a2o,
            ))
        } else {
            None
        };
        let patch_vertices = (topology == vk::PrimitiveTopology::PATCH_LIST
            && self.dev().dynamic_patch_control_points())
        .then_some(b.patch_vertices);
        let vertex_input = self
            .dynamic_vertex_input
            .is_some()
            .then(|| (b.velems.map_or(u32::MAX, |h| h.id()), self.dummy_slots()));
        // As the pipeline's key (`pipeline_for`).
        let generation = b.raster_ext_generation;
        let discard_rectangles = self.discard_rectangles_key().map(|k| (k, generation));
        let sample_locations = self
            .sample_locations_active(samples)
            .then_some((samples, generation));
        let state = DynState {
            viewport: [vp.x, vp.y, vp.width, vp.height, vp.min_depth, vp.max_depth],
            viewport_count: n_viewports as u8,
            scissor: [
                sc.offset.x,
                sc.offset.y,
                sc.extent.width as i32,
                sc.extent.height as i32,
            ],
            line_width,
            depth_bias: if offset_enabled {
                [rast.offset_units, rast.offset_clamp, rast.offset_scale]
            } else {
                [0.0; 3]
            },
            depth_bias_enable: offset_enabled,
            blend: blend_color,
            depth_bounds: [depth_bounds.0, depth_bounds.1],
            stencil: [
                front.compare_mask,
                back.compare_mask,
                front.write_mask,
                back.write_mask,
                u32::from(refs[0]),
                u32::from(refs[1]),
            ],
            cull: cull.as_raw(),
            front_ccw: rast.front_ccw,
            topology: topology.as_raw(),
            depth: (
                dsa.depth_enabled,
                dsa.depth_enabled && dsa.depth_writemask,
                compare_op(dsa.depth_func).as_raw(),
                dsa.depth_bounds_test && caps.depth_bounds_test,
            ),
            stencil_test: dsa.stencil[0].enabled,
            ops: [
                front.fail_op.as_raw(),
                front.pass_op.as_raw(),
                front.depth_fail_op.as_raw(),
                front.compare_op.as_raw(),
                back.fail_op.as_raw(),
                back.pass_op.as_raw(),
                back.depth_fail_op.as_raw(),
                back.compare_op.as_raw(),
            ],
            restart,
            blend_state,
            raster_state,
            vertex_input,
            sample_state,
            patch_vertices,
            discard_rectangles,
            sample_locations,
            discard: rast.rasterizer_discard,
        };
        if n_viewports == 1 && self.draw_cache.dynamic == Some(state) {
            return Ok(());
        }
        // Each state is recorded only when it changed (lavapipe revalidates
        // what is recorded, so a cull mode change records one command, not
        // every core state); the dynamic rasterizer and blend groups are
        // recorded as wholes.
        let prev = self.draw_cache.dynamic.filter(|_| n_viewports == 1);
        // Whether `f` of the state differs from what was recorded.
        macro_rules! changed {
            ($f:expr) => {
                prev.as_ref().map($f) != Some($f(&state))
            };
        }
        let vertex_input_changed = changed!(|d: &DynState| d.vertex_input);
        let sample_state_changed = changed!(|d: &DynState| d.sample_state);
        let patch_changed = changed!(|d: &DynState| d.patch_vertices);
        let raster_ext_changed =
            changed!(|d: &DynState| (d.discard_rectangles, d.sample_locations));
        let raster_changed = changed!(|d: &DynState| d.raster_state);
        let blend_changed = changed!(|d: &DynState| d.blend_state);
        let faces = [
            (vk::StencilFaceFlags::FRONT, front, 0),
            (vk::StencilFaceFlags::BACK, back, 1),
        ];
        // SAFETY: guaranteed by the caller.
        unsafe {
            if changed!(|d: &DynState| (d.viewport, d.viewport_count)) {
                raw.cmd_set_viewport_with_count(cmd, &viewports);
            }
            if changed!(|d: &DynState| (d.scissor, d.viewport_count)) {
                raw.cmd_set_scissor_with_count(cmd, &scissors);
            }
            if changed!(|d: &DynState| d.line_width) {
                raw.cmd_set_line_width(cmd, line_width);
            }
            if changed!(|d: &DynState| d.depth_bias) {
                let [units, clamp, scale] = state.depth_bias;
                raw.cmd_set_depth_bias(cmd, units, clamp, scale);
            }
            if changed!(|d: &DynState| d.blend) {
                raw.cmd_set_blend_constants(cmd, &blend_color);
            }
            if changed!(|d: &DynState| d.depth_bounds) {
                raw.cmd_set_depth_bounds(cmd, depth_bounds.0, depth_bounds.1.max(depth_bounds.0));
            }
            for (flags, s, i) in faces {
                if changed!(|d: &DynState| d.stencil[i]) {
                    raw.cmd_set_stencil_compare_mask(cmd, flags, s.compare_mask);
                }
                if changed!(|d: &DynState| d.stencil[2 + i]) {
                    raw.cmd_set_stencil_write_mask(cmd, flags, s.write_mask);
                }
                if changed!(|d: &DynState| d.stencil[4 + i]) {
                    raw.cmd_set_stencil_reference(cmd, flags, u32::from(refs[i]));
                }
                if changed!(|d: &DynState| [0, 1, 2, 3].map(|j| d.ops[4 * i + j])) {
                    raw.cmd_set_stencil_op(
                        cmd,
                        flags,
                        s.fail_op,
                        s.pass_op,
                        s.depth_fail_op,
                        s.compare_op,
                    );
                }
            }
            if changed!(|d: &DynState| d.cull) {
                raw.cmd_set_cull_mode(cmd, cull);
            }
            if changed!(|d: &DynState| d.front_ccw) {
                raw.cmd_set_front_face(
                    cmd,
                    if rast.front_ccw {
                        vk::FrontFace::COUNTER_CLOCKWISE
                    } else {
                        vk::FrontFace::CLOCKWISE
                    },
                );
            }
            if changed!(|d: &DynState| d.topology) {
                raw.cmd_set_primitive_topology(cmd, topology);
            }
            let (depth_test, depth_write, depth_op, bounds_test) = state.depth;
            if changed!(|d: &DynState| d.depth.0) {
                raw.cmd_set_depth_test_enable(cmd, depth_test);
            }
            if changed!(|d: &DynState| d.depth.1) {
                raw.cmd_set_depth_write_enable(cmd, depth_write);
            }
            if changed!(|d: &DynState| d.depth.2) {
                raw.cmd_set_depth_compare_op(cmd, vk::CompareOp::from_raw(depth_op));
            }
            if changed!(|d: &DynState| d.depth.3) {
                raw.cmd_set_depth_bounds_test_enable(cmd, bounds_test);
            }
            if changed!(|d: &DynState| d.stencil_test) {
                raw.cmd_set_stencil_test_enable(cmd, state.stencil_test);
            }
            if changed!(|d: &DynState| d.restart) {
                raw.cmd_set_primitive_restart_enable(cmd, restart);
            }
            if changed!(|d: &DynState| d.depth_bias_enable) {
                raw.cmd_set_depth_bias_enable(cmd, offset_enabled);
            }
            if changed!(|d: &DynState| d.discard) {
                raw.cmd_set_rasterizer_discard_enable(cmd, rast.rasterizer_discard);
            }
        }
        if vertex_input_changed && vertex_input.is_some() {
            // SAFETY: guaranteed by the caller; every pipeline declares
            // VK_DYNAMIC_STATE_VERTEX_INPUT_EXT where `vertex_input` is
            // set (`PipelineCache::create`).
            unsafe { self.record_vertex_input(cmd)? };
        }
        if raster_ext_changed {
            let dev = self.dev();
            let b = self.bound();
            if let (Some((key, _)), Some(s)) = (discard_rectangles, &dev.discard_rectangles) {
                // SAFETY: guaranteed by the caller; the pipeline's key has
                // this item, so it declares the rectangles dynamic with
                // this count (`PipelineCache::create`).
                unsafe { s.record(cmd, key, &b.window_rects.1) };
            }
            if let (Some((samples, _)), Some(s), Some(bytes)) =
                (sample_locations, &dev.sample_locations, &b.sample_locations)
            {
                // SAFETY: as above (`GfxKey::sample_locations`), and
                // `sample_locations_active` checked the length.
                unsafe { s.record(cmd, samples, bytes) };
            }
        }
        if let (true, Some(n), Some(eds2)) = (patch_changed, patch_vertices, &self.dynamic_patch) {
            // SAFETY: guaranteed by the caller; tessellation pipelines
            // declare the state where `patch_vertices` is set
            // (`PipelineCache::create`).
            unsafe { eds2.cmd_set_patch_control_points(cmd, u32::from(n.max(1))) };
        }
        if let (true, Some((samples, mask, a2c, a2o)), Some((eds3, _))) =
            (sample_state_changed, sample_state, &self.dynamic_rasterizer)
        {
            let count = vk::SampleCountFlags::from_raw(samples.max(1));
            // SAFETY: guaranteed by the caller; every pipeline declares
            // these states where `sample_state` is set
            // (`pipeline::DYNAMIC_SAMPLE_STATES`), and alpha-to-one where
            // the device has it (else the blend CSO cannot ask for it:
            // the screen does not claim it).
            unsafe {
                eds3.cmd_set_sample_mask(cmd, count, &[mask]);
                eds3.cmd_set_alpha_to_coverage_enable(cmd, a2c);
                if self.dev().device.features.core.alpha_to_one == vk::TRUE {
                    eds3.cmd_set_alpha_to_one_enable(cmd, a2o);
                }
            }
        }
        if let (true, Some(r), Some((eds3, lines))) =
            (raster_changed, raster_state, &self.dynamic_rasterizer)
        {
            // Each state only when it changed, as the core ones.
            let last = prev.and_then(|p| p.raster_state);
            macro_rules! changed {
                ($f:expr) => {
                    last.as_ref().map($f) != Some($f(&r))
                };
            }
            // SAFETY: guaranteed by the caller; every pipeline declares
            // these states (`pipeline::DYNAMIC_RASTERIZER_STATES`).
            unsafe {
                if changed!(|r: &RasterStates| r.polygon_mode) {
                    eds3.cmd_set_polygon_mode(cmd, vk::PolygonMode::from_raw(r.polygon_mode));
                }
                if changed!(|r: &RasterStates| r.depth_clamp) {
                    eds3.cmd_set_depth_clamp_enable(cmd, r.depth_clamp);
                }
                if changed!(|r: &RasterStates| r.provoking_first) {
                    eds3.cmd_set_provoking_vertex_mode(
                        cmd,
                        if r.provoking_first {
                            vk::ProvokingVertexModeEXT::FIRST_VERTEX
                        } else {
                            vk::ProvokingVertexModeEXT::LAST_VERTEX
                        },
                    );
                }
                if changed!(|r: &RasterStates| r.line_mode) {
                    eds3.cmd_set_line_rasterization_mode(
                        cmd,
                        vk::LineRasterizationModeEXT::from_raw(r.line_mode),
                    );
                }
                if changed!(|r: &RasterStates| r.stipple_enable) {
                    eds3.cmd_set_line_stipple_enable(cmd, r.stipple_enable);
                }
                if changed!(|r: &RasterStates| r.stipple) {
                    (lines.fp().cmd_set_line_stipple_ext)(cmd, r.stipple.0, r.stipple.1);
                }
                if self.dev().separate_depth_clip() && changed!(|r: &RasterStates| r.depth_clip) {
                    eds3.cmd_set_depth_clip_enable(cmd, r.depth_clip);
                }
            }
        }
        if let (true, Some((_, ints, unbound, n)), Some((eds2, eds3))) =
            (blend_changed, blend_state, &self.dynamic_blend)
        {
            // Looked up only when it changed.
            let bs = self.bound_blend()?;
            let n = usize::from(n);
            let rt = |i: usize| {
                if bs.independent_blend_enable {
                    bs.rt[i]
                } else {
                    bs.rt[0]
                }
            };
            let enables: SmallVec<[vk::Bool32; 8]> = (0..n)
                .map(|i| {
                    vk::Bool32::from(
                        rt(i).blend_enable && !bs.logicop_enable && ints & (1 << i) == 0,
                    )
                })
                .collect();
            let equations: SmallVec<[vk::ColorBlendEquationEXT; 8]> = (0..n)
                .map(|i| {
                    let r = rt(i);
                    vk::ColorBlendEquationEXT {
                        src_color_blend_factor: crate::pipeline::blend_factor(r.rgb_src_factor),
                        dst_color_blend_factor: crate::pipeline::blend_factor(r.rgb_dst_factor),
                        color_blend_op: crate::pipeline::blend_op(r.rgb_func),
                        src_alpha_blend_factor: crate::pipeline::blend_factor(r.alpha_src_factor),
                        dst_alpha_blend_factor: crate::pipeline::blend_factor(r.alpha_dst_factor),
                        alpha_blend_op: crate::pipeline::blend_op(r.alpha_func),
                    }
                })
                .collect();
            let masks: SmallVec<[vk::ColorComponentFlags; 8]> = (0..n)
                .map(|i| {
                    // Unbound slots write nothing, as in the baked path.
                    if unbound & (1 << i) != 0 {
                        vk::ColorComponentFlags::empty()
                    } else {
                        vk::ColorComponentFlags::from_raw(u32::from(rt(i).colormask.bits()))
                    }
                })
                .collect();
            let logic_op = self.dev().device.features.core.logic_op == vk::TRUE;
            // Pipelines without colour attachments declare none of these
            // (`PipelineCache::create`), and setting a state the bound
            // pipeline does not declare is invalid.
            if n > 0 {
                // SAFETY: guaranteed by the caller; the pipeline declares
                // these states (`pipeline::DYNAMIC_BLEND_STATES`), and the
                // arrays cover its colour attachments.
                unsafe {
                    eds3.cmd_set_color_blend_enable(cmd, 0, &enables);
                    eds3.cmd_set_color_blend_equation(cmd, 0, &equations);
                    eds3.cmd_set_color_write_mask(cmd, 0, &masks);
                    eds3.cmd_set_logic_op_enable(cmd, bs.logicop_enable && logic_op);
                    eds2.cmd_set_logic_op(cmd, crate::pipeline::logic_op(bs.logicop_func));
                }
            }
        }
        // Noted once everything is recorded: an error above (a state
        // object looked up) leaves the last recorded state, so the next
        // draw records what differs from it.
        self.draw_cache.dynamic = Some(state);
        Ok(())
    }

    /// Records the bound vertex elements as the dynamic vertex input
    /// (where the device has it), and notes them in the recorded state.
    ///
    /// # Safety
    /// `cmd` is recording, with a pipeline bound (or to be bound before a
    /// draw) that declares VK_DYNAMIC_STATE_VERTEX_INPUT_EXT.
    pub(crate) unsafe fn record_vertex_input(&mut self, cmd: vk::CommandBuffer) -> PipeResult<()> {
        let Some(vi_ext) = &self.dynamic_vertex_input else {
            return Ok(());
        };
        let vi = match self.bound().velems {
            Some(h) => {
                let velems = self.velems_table().get(h)?;
                let fetch = self
                    .velem_fetch
                    .get(&h.id())
                    .ok_or_else(|| PipeError::invalid("draw_vbo: vertex elements state deleted"))?;
                crate::pipeline::VertexInput::new(self.dev(), velems, fetch, self.dummy_slots())?
            }
            None => crate::pipeline::VertexInput::new(self.dev(), &[], &[], 0)?,
        };
        // SAFETY: as the caller promises.
        unsafe { vi_ext.cmd_set_vertex_input(cmd, &vi.bindings, &vi.attributes) };
        let id = (
            self.bound().velems.map_or(u32::MAX, |h| h.id()),
            self.dummy_slots(),
        );
        if let Some(d) = self
            .draw_cache
            .dynamic
            .as_mut()
            .filter(|_| self.draw_cache.cmd == cmd)
        {
            d.vertex_input = Some(id);
        }
        Ok(())
    }

    /// The pipeline for the bound state and `topology`.
    fn pipeline_for(
        &mut self,
        vs: ShaderHandle,
        fs: Option<ShaderHandle>,
        topology: vk::PrimitiveTopology,
    ) -> PipeResult<vk::Pipeline> {
        let b = self.bound();
        let fb = &b.framebuffer;
        let mut color_formats = SmallVec::new();
        let mut samples = u32::from(fb.samples.max(1));
        let mut int_targets = 0u8;
        for (i, c) in fb.cbufs.iter().enumerate() {
            color_formats.push(match c {
                Some(s) => {
                    let vs = vk_surface(s)?;
                    if s.desc().template.format.is_pure_integer() {
                        int_targets |= 1 << i;
                    }
                    samples = s.desc().texture.desc().samples();
                    vs.format
                }
                None => vk::Format::UNDEFINED,
            });
        }
        let (mut depth_format, mut stencil_format) = (vk::Format::UNDEFINED, vk::Format::UNDEFINED);
        if let Some(z) = &fb.zsbuf {
            let s = vk_surface(z)?;
            samples = z.desc().texture.desc().samples();
            if s.aspect.contains(vk::ImageAspectFlags::DEPTH) {
                depth_format = s.format;
            }
            if s.aspect.contains(vk::ImageAspectFlags::STENCIL) {
                stencil_format = s.format;
            }
        }
        let (vs_key, fs_key) = self.variant_keys(topology, samples)?;
        let stage_id = |st: ShaderStage| b.shaders[st.index()].map(|h| h.cso.id());
        let (tcs, tes, gs) = (
            stage_id(ShaderStage::TessCtrl),
            stage_id(ShaderStage::TessEval),
            stage_id(ShaderStage::Geometry),
        );
        // A generated geometry shader follows the last vertex stage
        // (`stipple_gs` below).
        let generated_gs = gs.is_none()
            && (fs_key.line_stipple
                || fs_key.polygon_edges.is_some()
                || fs_key.aliased_triangles
                || fs_key.smooth_line_ends);
        let mut wide_textures = false;
        for st in [
            ShaderStage::TessCtrl,
            ShaderStage::TessEval,
            ShaderStage::Geometry,
        ] {
            if let Some(h) = b.shaders[st.index()] {
                wide_textures |= self.shader_info(h).textures != 0;
            }
        }
        // Blend state is recorded at draw time where it is dynamic
        // (`set_dynamic_state`); alpha-to-coverage and alpha-to-one stay
        // in the pipeline (they decide its line rasterization mode)
        // unless the multisample state is dynamic too.
        let dynamic_blend = self.dev().dynamic_blend();
        let dynamic_samples = self.dev().dynamic_sample_state();
        let blend_ms = match b.blend {
            _ if dynamic_samples => (false, false),
            // No fragment shader bound: there is no alpha for
            // alpha-to-coverage (or one) to use, and the generated null
            // fragment shader (`ModuleCache::null_fs`, run for the
            // discards of stipple, window rectangles and aliased
            // rasterization) has no colour output, which Vulkan requires
            // with alpha-to-coverage on.
            _ if fs.is_none() => (false, false),
            Some(h) => self.alpha_to_coverage_one(self.blend_table().get(h)?),
            None => (false, false),
        };
        let key = GfxKey {
            vs: vs.cso.id(),
            tcs,
            tes,
            gs,
            patch_vertices: if tes.is_some()
                && (tcs.is_none() || !self.dev().dynamic_patch_control_points())
            {
                b.patch_vertices
            } else {
                0
            },
            fs: fs.map(|h| h.cso.id()),
            velems: b
                .velems
                .map(|h| h.id())
                .filter(|_| !self.dev().dynamic_vertex_input()),
            dummy_slots: if self.dev().dynamic_vertex_input() {
                0
            } else {
                self.dummy_slots()
            },
            blend: b.blend.map(|h| h.id()).filter(|_| !dynamic_blend),
            blend_ms,
            rasterizer: b
                .rasterizer
                .map(|h| h.id())
                .filter(|_| !self.dev().dynamic_rasterizer()),
            color_formats,
            depth_format,
            stencil_format,
            samples,
            wide_textures,
            int_targets,
            sample_mask: if dynamic_samples {
                0
            } else {
                effective_sample_mask(b.sample_mask, samples)
            },
            topology: topology_class(topology),
            gs_adjacency: generated_gs && is_adjacency(topology),
            // Triangle lists take hidden-edge masks only for edge flags.
            gs_edge_flags: fs_key.polygon_edges.is_some()
                && gs.is_none()
                && (topology == vk::PrimitiveTopology::TRIANGLE_LIST
                    || self.edge_draw.is_some_and(|(_, flags)| flags)),
            vs_key: vs_key.clone(),
            fs_key: fs_key.clone(),
            sample_locations: self.sample_locations_active(samples),
            discard_rectangles: self.discard_rectangles_key(),
            tess_polygon_mode: if tes.is_some()
                && self.dev().dynamic_rasterizer()
                && !self.dev().tes_variants_follow_outputs()
            {
                let rast = self.rasterizer_or_default()?;
                crate::pipeline::polygon_mode(crate::pipeline::effective_polygon_mode(&rast))
                    .as_raw()
            } else {
                0
            },
        };
        // No fragment shader, but fragment-stage lowerings to apply: the
        // generated one (`ModuleCache::null_fs`), which reads the driver
        // constant buffer like any other.
        self.null_fs = fs.is_none()
            && (fs_key.polygon_stipple
                || fs_key.window_rects.is_some()
                || fs_key.line_stipple
                || fs_key.polygon_edges.is_some()
                || fs_key.aliased_points.is_some()
                || fs_key.round_points != 0
                || fs_key.aliased_triangles
                || fs_key.smooth_lines.is_some());
        let generated_from = if gs.is_some() {
            PipelineStat::GsPrimitives
        } else if generated_gs {
            PipelineStat::GsInvocations
        } else if tes.is_some() {
            PipelineStat::CInvocations
        } else {
            PipelineStat::IaPrimitives
        };
        self.stats_mark = crate::query::StatsMark {
            generated_gs,
            generated_from,
            clipper_discard: generated_from == PipelineStat::CInvocations
                && self.rasterizer_or_default()?.rasterizer_discard,
        };
        self.aliased_depth_clip = fs_key.aliased_depth_clip.is_some();
        self.smooth_line_width = fs_key.smooth_lines.map(f32::from_bits);
        self.shader_line_stipple = fs_key.line_stipple;
        self.draw_id_read = self.shader_info(vs).reads_draw_index;
        let dev = self.dev().clone();
        if let Some(p) = self.pipelines.lookup(&dev, &key) {
            return Ok(p);
        }
        self.report_spirv_unapplied(&vs_key, &fs_key)?;
        let vs_state = self.shader_table().get(vs.cso)?.clone();
        crate::shader::check_draw_bindings(&vs_state, UBO_SLOTS)?;
        check_64bit_inputs(&vs_state, &vs_key.vertex_fixups)?;
        if let Some(h) = fs {
            crate::shader::check_draw_bindings(self.shader_table().get(h.cso)?, UBO_SLOTS)?;
        }
        // A generated line stipple (or polygon edge) geometry shader (see
        // `variant_keys`) follows the vertex or tessellation evaluation
        // shader.
        let edges = fs_key.polygon_edges.is_some();
        let aliased = fs_key.aliased_triangles;
        let smooth_ends = fs_key.smooth_line_ends;
        let stipple_gs = generated_gs;
        // The last vertex-processing stage takes the clip/depth/point key.
        let last = [gs, tes].into_iter().flatten().next();
        let last = if stipple_gs { Some(u32::MAX) } else { last };
        let default_key = VariantKey::default();
        // A vertex shader followed by other stages still fetches (and
        // takes its inlined constants) as the last stage would.
        // Followed by a generated geometry shader, its outputs past the
        // device's geometry-shader inputs move down
        // (`ModuleCache::generated_gs_relocation`).
        let relocate_outputs = if stipple_gs && tes.is_none() {
            crate::shader::ModuleCache::generated_gs_relocation(&dev, &vs_state).unwrap_or_default()
        } else {
            Vec::new()
        };
        let vs_only_key = VariantKey {
            vertex_fixups: vs_key.vertex_fixups.clone(),
            inline_uniforms: vs_key.inline_uniforms.clone(),
            ubo0_push_offset: vs_key.ubo0_push_offset,
            relocate_outputs,
            ..VariantKey::default()
        };
        let vs_mod = self.modules.get(
            &dev,
            vs.cso.id(),
            &vs_state,
            if last.is_none() {
                &vs_key
            } else {
                &vs_only_key
            },
        )?;
        // A tessellation evaluation or geometry shader that is the last
        // stage takes the last-stage lowerings, not the vertex shader's
        // own items (its inlined constants and vertex fetch fix-ups).
        let last_key = VariantKey {
            inline_uniforms: Vec::new(),
            vertex_fixups: Vec::new(),
            ubo0_push_offset: false,
            ..vs_key.clone()
        };
        // An evaluation shader followed by a generated geometry shader
        // moves its outputs past the device's geometry-shader inputs down,
        // as the vertex shader does above.
        let tes_relocation = match tes {
            Some(id) if stipple_gs => {
                let h = self
                    .shader_table()
                    .handle_of(id)
                    .ok_or_else(|| PipeError::invalid("a bound shader state was deleted"))?;
                let st = self.shader_table().get(h)?;
                crate::shader::ModuleCache::generated_gs_relocation(&dev, st).unwrap_or_default()
            }
            _ => Vec::new(),
        };
        let tes_key = VariantKey {
            relocate_outputs: tes_relocation,
            ..VariantKey::default()
        };
        // An application geometry shader widening its own triangles
        // (multisampling off, `variant_keys`): the generated shader's
        // key items (below), and the provoking vertex Vulkan uses.
        // Likewise one stippling its polygon-mode lines (`variant_keys`
        // sets the last-stage key's `line_stipple_polygon`).
        let app_gs_key = if (aliased || last_key.line_stipple_polygon) && gs.is_some() {
            let rast = self.rasterizer_or_default()?;
            let last_provoking = !rast.flatshade_first
                && dev.device.features.provoking_vertex.provoking_vertex_last == vk::TRUE;
            let base = if aliased {
                VariantKey {
                    aliased_triangles: true,
                    ..aliased_gs_key(&fs_key, &last_key)
                }
            } else {
                last_key.clone()
            };
            VariantKey {
                gs_first_provoking: !last_provoking,
                ..base
            }
        } else {
            last_key.clone()
        };
        // Each stage's module, with `key` where it is the last vertex
        // stage (else the default key; the evaluation shader's relocation).
        let mut stage_mod =
            |id: Option<u32>, key: Option<&VariantKey>| -> PipeResult<Option<vk::ShaderModule>> {
                let Some(id) = id else { return Ok(None) };
                let handle = self
                    .shader_table()
                    .handle_of(id)
                    .ok_or_else(|| PipeError::invalid("a bound shader state was deleted"))?;
                let st = self.shader_table().get(handle)?.clone();
                crate::shader::check_draw_bindings(&st, UBO_SLOTS)?;
                let k = match key {
                    Some(k) => k,
                    None if st.stage == ShaderStage::TessEval => &tes_key,
                    None => &default_key,
                };
                Ok(Some(self.modules.get(&dev, id, &st, k)?))
            };
        let mut tcs_mod = stage_mod(tcs, None)?;
        let tes_mod = stage_mod(tes, (gs.is_none() && !stipple_gs).then_some(&last_key))?;
        let mut gs_mod = stage_mod(gs, Some(&app_gs_key))?;
        if stipple_gs {
            let prev = match tes {
                Some(id) => {
                    let h = self
                        .shader_table()
                        .handle_of(id)
                        .ok_or_else(|| PipeError::invalid("a bound shader state was deleted"))?;
                    (id, self.shader_table().get(h)?.clone())
                }
                None => (vs.cso.id(), vs_state.clone()),
            };
            let rectangular = self.rasterizer_or_default()?.line_rectangular;
            // Flat-shaded colours keep their provoking vertex's value
            // through the aliased-triangle shader (`line_stipple_gs`).
            let gs_key = if aliased {
                aliased_gs_key(&fs_key, &last_key)
            } else {
                last_key.clone()
            };
            gs_mod = Some(self.modules.line_stipple_gs(
                &dev,
                prev.0,
                &prev.1,
                crate::shader::GeneratedGs {
                    rectangular,
                    polygon: fs_key.line_stipple_polygon || edges || aliased,
                    edges,
                    edge_flags: key.gs_edge_flags,
                    adjacency: is_adjacency(topology),
                    aliased,
                    smooth_ends,
                    clip_halfz: smooth_ends && self.rasterizer_or_default()?.clip_halfz,
                },
                &gs_key,
            )?);
        }
        if let (None, Some(_)) = (tcs, tes) {
            // Tessellation without a control shader: the generated
            // pass-through one, with `set_tess_state`'s levels (it
            // forwards every vertex output, clip distances included).
            let pv = self.bound().patch_vertices;
            tcs_mod = Some(
                self.modules
                    .passthrough_tcs(&dev, vs.cso.id(), &vs_state, pv)?,
            );
        }
        let fs_mod = match fs {
            Some(h) => {
                let st = self.shader_table().get(h.cso)?.clone();
                Some(self.modules.get(&dev, h.cso.id(), &st, &fs_key)?)
            }
            None if self.null_fs => {
                // Only the discards: the other items need inputs or a
                // colour output the empty shader does not have.
                let key = VariantKey {
                    polygon_stipple: fs_key.polygon_stipple,
                    window_rects: fs_key.window_rects,
                    line_stipple: fs_key.line_stipple,
                    line_stipple_polygon: fs_key.line_stipple_polygon,
                    polygon_edges: fs_key.polygon_edges,
                    // The widened points and triangles of aliased
                    // rasterization need their discard even in a
                    // depth-only pass.
                    aliased_points: fs_key.aliased_points,
                    smooth_points: fs_key.smooth_points,
                    round_points: fs_key.round_points,
                    smooth_lines: fs_key.smooth_lines,
                    smooth_line_ends: fs_key.smooth_line_ends,
                    aliased_triangles: fs_key.aliased_triangles,
                    aliased_clip_planes: fs_key.aliased_clip_planes,
                    aliased_depth_clip: fs_key.aliased_depth_clip,
                    ..VariantKey::default()
                };
                Some(self.modules.null_fs(&dev, &key)?)
            }
            None => None,
        };
        let b = self.bound();
        let velems: Vec<VertexElement> = match b.velems {
            Some(h) => self.velems_table().get(h)?.clone(),
            None => Vec::new(),
        };
        let fetch: crate::context::VertexFetch = match b.velems {
            Some(h) => self
                .velem_fetch
                .get(&h.id())
                .ok_or_else(|| PipeError::invalid("draw_vbo: vertex elements state deleted"))?
                .clone(),
            None => Arc::from([]),
        };
        let blend = self.bound_blend()?;
        let rasterizer = match b.rasterizer {
            Some(h) => *self.rasterizer_table().get(h)?,
            None => RasterizerState {
                line_width: 1.0,
                ..Default::default()
            },
        };
        let program = self.gfx_program()?;
        let inputs = GfxInputs {
            vs: vs_mod,
            tcs: tcs_mod,
            tes: tes_mod,
            gs: gs_mod,
            fs: fs_mod,
            velems: &velems,
            fetch: &fetch,
            blend: &blend,
            rasterizer: &rasterizer,
            layout: program.as_ref().map(|p| p.pipeline_layout()),
            vs_inputs: self.shader_info(vs).vs_inputs,
            dummy_slots: key.dummy_slots,
        };
        let p = self.pipelines.create(&dev, key, &inputs)?;
        if let Some(program) = program {
            self.gfx_descriptors.insert(p, program);
        }
        self.debug_message(DebugType::ShaderInfo, 2, || {
            format!("compiled graphics pipeline #{}", self.pipelines.created)
        });
        Ok(p)
    }

    /// The vertex shader fetch fix-ups of vertex elements `h` (none for
    /// no elements; `None` for a CSO that is not live).
    fn vertex_fixups(
        &self,
        h: Option<VertexElementsHandle>,
    ) -> Option<impl Iterator<Item = spirv_gen::passes::FetchFixup> + '_> {
        let fetch: &[crate::format::ElementFetch] = match h {
            Some(h) => self.velem_fetch.get(&h.id())?,
            None => &[],
        };
        Some(fetch.iter().filter_map(|e| e.fixup))
    }

    /// Whether vertex elements `a` and `b` are live and give the vertex
    /// shader the same fetch fix-ups.
    pub(crate) fn same_vertex_fixups(
        &self,
        a: Option<VertexElementsHandle>,
        b: Option<VertexElementsHandle>,
    ) -> bool {
        match (self.vertex_fixups(a), self.vertex_fixups(b)) {
            (Some(x), Some(y)) => x.eq(y),
            _ => false,
        }
    }

    /// Whether depth-stencil-alpha states `a` and `b` are live and have
    /// the same alpha test: the fragment shader's only key item from the
    /// state (depth and stencil state are dynamic, `set_dynamic_state`).
    pub(crate) fn same_alpha_test(
        &self,
        a: Option<DepthStencilAlphaHandle>,
        b: Option<DepthStencilAlphaHandle>,
    ) -> bool {
        let key = |h: Option<DepthStencilAlphaHandle>| match h {
            Some(h) => self.dsa_table().get(h).ok().map(alpha_test),
            None => Some(None),
        };
        matches!((key(a), key(b)), (Some(x), Some(y)) if x == y)
    }

    /// Whether blend states `a` and `b` are live, blend state is dynamic
    /// (`set_dynamic_state`), and they agree on alpha-to-coverage and
    /// alpha-to-one: what pipelines and shader variants then take from
    /// the blend state (the multisample state where it is not dynamic,
    /// line rasterization, the fragment shader's unbound outputs and
    /// point and stipple emulations).
    pub(crate) fn same_blend_coverage(
        &self,
        a: Option<BlendHandle>,
        b: Option<BlendHandle>,
    ) -> bool {
        let key = |h: Option<BlendHandle>| match h {
            Some(h) => self
                .blend_table()
                .get(h)
                .ok()
                .map(|bs| (bs.alpha_to_coverage, bs.alpha_to_one)),
            None => Some((false, false)),
        };
        self.dev().dynamic_blend() && matches!((key(a), key(b)), (Some(x), Some(y)) if x == y)
    }

    /// Whether rasterizer states `a` and `b` are live, rasterizer state
    /// is dynamic, and they differ at most in what only dynamic state
    /// takes (`set_dynamic_state`): the front face, the scissor enable,
    /// polygon offset, the line width (not of smooth lines, whose emulation
    /// keys it), and the cull mode where it does not
    /// pick the polygon mode (`pipeline::effective_polygon_mode`). The
    /// other fields make shader variants (`variant_keys`).
    pub(crate) fn same_rasterizer_variants(
        &self,
        a: Option<RasterizerHandle>,
        b: Option<RasterizerHandle>,
    ) -> bool {
        let variant_part = |h: RasterizerHandle| {
            self.rasterizer_table()
                .get(h)
                .ok()
                .map(|r| RasterizerState {
                    front_ccw: false,
                    scissor: false,
                    offset_point: false,
                    offset_line: false,
                    offset_tri: false,
                    offset_units: 0.0,
                    offset_scale: 0.0,
                    offset_clamp: 0.0,
                    // Emulated smooth lines key their width
                    // (`VariantKey::smooth_lines`).
                    line_width: if r.line_smooth { r.line_width } else { 0.0 },
                    cull_face: if r.fill_front == r.fill_back {
                        Face::empty()
                    } else {
                        r.cull_face
                    },
                    ..*r
                })
        };
        if !self.dev().dynamic_rasterizer() {
            return false;
        }
        match (a, b) {
            (Some(a), Some(b)) => {
                matches!((variant_part(a), variant_part(b)), (Some(x), Some(y)) if x == y)
            }
            (a, b) => a == b,
        }
    }

    /// The bound rasterizer state (GL defaults when none is bound).
    fn rasterizer_or_default(&self) -> PipeResult<RasterizerState> {
        Ok(match self.bound().rasterizer {
            Some(h) => *self.rasterizer_table().get(h)?,
            None => RasterizerState {
                line_width: 1.0,
                point_size: 1.0,
                half_pixel_center: true,
                depth_clip_near: true,
                depth_clip_far: true,
                ..Default::default()
            },
        })
    }

    /// GL refuses a draw that blends with the second source into more
    /// draw buffers than `MAX_DUAL_SOURCE_DRAW_BUFFERS` (INVALID_OPERATION
    /// in `_mesa_valid_to_render`), and Vulkan forbids it
    /// (maxFragmentDualSrcAttachments, VUID-RuntimeSpirv-Fragment-06427):
    /// every colour buffer slot counts, bound or not (GL's draw buffers
    /// set to NONE count too, and so do Vulkan's unused attachments).
    fn check_dual_source_targets(&self) -> PipeResult<()> {
        let n = self.bound().framebuffer.cbufs.len();
        let max = pipe_core::Screen::caps(&**self.screen()).max_dual_source_render_targets;
        if n as u32 <= max {
            return Ok(());
        }
        let blend = self.bound_blend()?;
        let dual = (0..n).any(|i| {
            blend.rt[if blend.independent_blend_enable { i } else { 0 }].uses_dual_source()
        });
        if dual {
            return Err(PipeError::invalid(format!(
                "draw_vbo: dual-source blending into {n} colour buffers; the device blends \
                 into at most {max} with two sources"
            )));
        }
        Ok(())
    }

    /// The alpha-to-coverage and alpha-to-one flags of `bs` as drawn:
    /// both off when colour buffer 0 is an integer buffer, where GL says
    /// they have no effect (GL 4.6, alpha to coverage), and where Vulkan would read
    /// the alpha of an output whose type is not its buffer's (undefined,
    /// and left out of the interface by `mismatched_outputs`).
    fn alpha_to_coverage_one(&self, bs: &BlendState) -> (bool, bool) {
        let int0 = matches!(
            self.bound().framebuffer.cbufs.first(),
            Some(Some(s)) if s.desc().template.format.is_pure_integer()
        );
        if int0 {
            (false, false)
        } else {
            (bs.alpha_to_coverage, bs.alpha_to_one)
        }
    }

    /// The bound blend state; with none bound, GL's default (no
    /// blending, every channel written).
    fn bound_blend(&self) -> PipeResult<BlendState> {
        Ok(match self.bound().blend {
            Some(h) => *self.blend_table().get(h)?,
            None => BlendState {
                rt: [RtBlendState {
                    colormask: ColorMask::RGBA,
                    ..Default::default()
                }; MAX_COLOR_BUFS],
                ..Default::default()
            },
        })
    }

    /// The bound shader of the last vertex-processing stage: geometry,
    /// else tessellation evaluation, else vertex.
    pub(crate) fn last_vertex_shader(&self) -> Option<ShaderHandle> {
        let b = self.bound();
        [
            ShaderStage::Geometry,
            ShaderStage::TessEval,
            ShaderStage::Vertex,
        ]
        .into_iter()
        .find_map(|st| b.shaders[st.index()])
    }

    /// The width of the smooth lines a draw rasterizing `lines` emulates
    /// (see `variant_keys`), `None` where it draws none.
    fn smooth_lines_emulated(
        &self,
        rast: &RasterizerState,
        lines: bool,
        samples: u32,
    ) -> PipeResult<Option<f32>> {
        if !rast.line_smooth || !lines || samples > 1 {
            return Ok(None);
        }
        let dev = self.dev();
        if dev.device.features.core.wide_lines != vk::TRUE {
            return Ok(None);
        }
        if crate::pipeline::smooth_lines_native(dev, rast, self.per_sample_ms(rast)?, samples) {
            return Ok(None);
        }
        let b = self.bound();
        let last = self.last_vertex_shader();
        let lowerable =
            |h: Option<ShaderHandle>| h.is_none_or(|h| self.shader_info(h).smooth_lines);
        if last.is_none()
            || !lowerable(last)
            || !lowerable(b.shaders[ShaderStage::Fragment.index()])
        {
            return Ok(None);
        }
        Ok(Some(rast.line_width.max(0.0)))
    }

    /// Whether a draw with `rast` shades per sample or uses
    /// alpha-to-coverage or alpha-to-one on a multisampled framebuffer,
    /// which rules out Bresenham and smooth lines (VUID 02766): the
    /// condition `PipelineCache::create` applies to its key.
    fn per_sample_ms(&self, rast: &RasterizerState) -> PipeResult<bool> {
        let b = self.bound();
        let blend = match b.blend {
            Some(h) => {
                let bs = self.blend_table().get(h)?;
                bs.alpha_to_coverage || bs.alpha_to_one
            }
            None => false,
        };
        Ok(blend || (sample_shading(rast, b.min_samples) && self.framebuffer_samples()? > 1))
    }

    /// The sample count draws rasterize with: the attachments' (as
    /// `pipeline_for` keys it), else the framebuffer state's.
    /// The pipeline key item of the bound window rectangles where
    /// VK_EXT_discard_rectangles tests them (`crate::discard_rectangles`).
    fn discard_rectangles_key(&self) -> Option<(bool, u8)> {
        let (include, rects) = &self.bound().window_rects;
        self.dev().discard_rectangles.as_ref()?.key(*include, rects)
    }

    /// Whether draws to a framebuffer of `samples` samples use the
    /// locations of `set_sample_locations` (`crate::sample_locations`):
    /// they were given for that count.
    fn sample_locations_active(&self, samples: u32) -> bool {
        match (&self.dev().sample_locations, &self.bound().sample_locations) {
            (Some(s), Some(b)) => samples > 1 && s.len_for(samples) == Some(b.len()),
            _ => false,
        }
    }

    /// The vertex buffer slots the bound elements read that fetch from the
    /// dummy buffer (no buffer bound there, or an offset at or past its
    /// end; see `vertex_buffer_bindings`). They are fetched with stride 0
    /// (`pipeline::VertexInput::new`): with the element's own stride a
    /// draw of many vertices read far past the small dummy buffer (the API
    /// fuzz's seed 227, a synchronization hazard where vertex input is
    /// baked; robustBufferAccess is off).
    pub(crate) fn dummy_slots(&self) -> u32 {
        let Some(h) = self.bound().velems else {
            return 0;
        };
        let Ok(elems) = self.velems_table().get(h) else {
            return 0;
        };
        let vbs = &self.bound().vertex_buffers;
        elems.iter().fold(0, |m, e| {
            let i = usize::from(e.vertex_buffer_index);
            if i < 32 && on_dummy(vbs.get(i)) {
                m | 1 << i
            } else {
                m
            }
        })
    }

    /// The input locations of the bound vertex shader that no element of
    /// the bound vertex elements feeds (each element takes the next
    /// location, a dual-slot one two). Vulkan wants an attribute for every
    /// input (VUID-vkCmdDraw-Input-07939, and VUID-VkGraphicsPipeline
    /// CreateInfo-Input-07904 where vertex input is baked); Gallium
    /// frontends bind an element for each. 0 where the shader's inputs
    /// could not be read.
    pub(crate) fn unfed_vertex_inputs(&self) -> u32 {
        let Some(vs) = self.bound().shaders[ShaderStage::Vertex.index()] else {
            return 0;
        };
        let wanted = self.shader_info(vs).vs_inputs;
        if wanted == u32::MAX {
            return 0;
        }
        let bit = |l: u32| if l < 32 { 1u32 << l } else { 0 };
        let fed = match self.bound().velems {
            Some(h) => self.velem_fetch.get(&h.id()).map_or(0, |fetch| {
                // A dual-slot element's second location is its fix-up's
                // (`FetchFixup::upper`), also where no attribute reads it.
                fetch.iter().fold(0, |m, f| {
                    m | bit(f.location)
                        | f.upper.map_or(0, |(_, l)| bit(l))
                        | f.fixup.and_then(|x| x.upper).map_or(0, bit)
                })
            }),
            None => 0,
        };
        wanted & !fed
    }

    /// The colour buffers whose format's numeric type (float, signed or
    /// unsigned integer) is not that of the bound fragment shader's
    /// output at their location. GL leaves what such a draw writes there
    /// undefined; Vulkan wants the types to match. The output leaves the
    /// interface (`VariantKey::unbound_outputs`) and the buffer's write
    /// mask is empty: it keeps its contents.
    fn mismatched_outputs(&self) -> u8 {
        let b = self.bound();
        let Some(h) = b.shaders[ShaderStage::Fragment.index()] else {
            return 0;
        };
        let info = self.shader_info(h);
        let (sint, uint) = info.int_outputs;
        let mut mask = 0u8;
        for (i, c) in b.framebuffer.cbufs.iter().enumerate().take(8) {
            let Some(s) = c else { continue };
            if info.color_outputs >> i & 1 == 0 {
                continue;
            }
            let f = s.desc().template.format;
            if (f.is_pure_sint(), f.is_pure_uint()) != (sint >> i & 1 == 1, uint >> i & 1 == 1) {
                mask |= 1 << i;
            }
        }
        mask
    }

    fn framebuffer_samples(&self) -> PipeResult<u32> {
        let fb = &self.bound().framebuffer;
        let mut samples = u32::from(fb.samples.max(1));
        for s in fb.cbufs.iter().flatten().chain(fb.zsbuf.as_ref()) {
            samples = s.desc().texture.desc().samples();
        }
        Ok(samples)
    }

    /// The class of the primitives the rasterizer gets from a draw of
    /// `topology` (before polygon modes): the bound geometry shader's
    /// output, else the tessellation evaluation shader's, else the
    /// topology's.
    fn rast_prim(&self, topology: vk::PrimitiveTopology) -> TopologyClass {
        let b = self.bound();
        let info = |st: ShaderStage| b.shaders[st.index()].map(|h| self.shader_info(h).output_prim);
        let from_shaders = match info(ShaderStage::Geometry) {
            Some(gs) => gs,
            // Tessellation: the evaluation shader's mode, or (SPIR-V) the
            // control shader's; point mode in either makes points.
            None => match (info(ShaderStage::TessEval), info(ShaderStage::TessCtrl)) {
                (Some(tes), tcs) => {
                    let tcs = tcs.flatten();
                    if tes == Some(TopologyClass::Point) || tcs == Some(TopologyClass::Point) {
                        Some(TopologyClass::Point)
                    } else {
                        tes.or(tcs)
                    }
                }
                (None, _) => None,
            },
        };
        from_shaders.unwrap_or_else(|| topology_class(topology))
    }

    /// Whether the aliased-triangle geometry shader can follow the bound
    /// vertex or tessellation evaluation shader, or the application's
    /// geometry shader can widen its own triangles (`variant_keys`): for
    /// the generated one, a previous stage of IR or SPIR-V
    /// (the fragment shader's half is a lowering of the IR
    /// or a patch of SPIR-V, `shader::fragment_patches`), geometry shaders
    /// on the device, and outputs it can forward (below the device's
    /// geometry-shader inputs, or a vertex shader's movable there). With
    /// stream output the generated shader captures what the previous
    /// stage wrote (`aliased_triangles_gs_xfb`).
    fn aliased_triangles_possible(&self) -> PipeResult<bool> {
        let b = self.bound();
        if self.dev().device.features.core.geometry_shader != vk::TRUE {
            return Ok(false);
        }
        // An application geometry shader widens its own triangles
        // (`spirv_gen::passes::aliased::lower_aliased_gs`): an IR one
        // whose outputs allow it, and whose tripled vertices (with the
        // edge and clip distances added, at most 21 components) fit the
        // device's geometry output limits. Its capture goes through
        // copies it re-emits unchanged (`shader::compile`): GL captures a
        // strip's triangles separately, as re-emitted, in the order Vulkan
        // captures a strip's (`spirv_gen::passes::strips`).
        if let Some(h) = b.shaders[ShaderStage::Geometry.index()] {
            let Some((max, comps)) = self.shader_info(h).expandable_gs else {
                return Ok(false);
            };
            let Some(copies) = self.restrip_copies(h)? else {
                return Ok(false);
            };
            return Ok(self.restrip_fits(max, comps + copies + 21));
        }
        // The stage the geometry shader follows: the evaluation shader
        // with tessellation, else the vertex shader.
        let tes = b.shaders[ShaderStage::TessEval.index()];
        let Some(prev) = tes.or(b.shaders[ShaderStage::Vertex.index()]) else {
            return Ok(false);
        };
        let state = self.shader_table().get(prev.cso)?;
        // Its outputs, a SPIR-V shader's read from its words.
        let forwardable = crate::shader::outputs_ir(state)
            .is_ok_and(|ir| spirv_gen::passes::aliased::can_expand(&ir));
        // Outputs past the geometry stage's inputs must be movable below
        // them (`ModuleCache::generated_gs_relocation`).
        let relocation = crate::shader::ModuleCache::generated_gs_relocation(self.dev(), state);
        let (Some(relocate), true) = (relocation, forwardable) else {
            return Ok(false);
        };
        // With stream output, the shader captures in the previous stage's
        // place through copies: they must find locations, and its vertices
        // (with `aliased_clip` and up to 10 hardware clip distances, which
        // the shader built here lacks) must fit the output limits.
        if self.so_capture_info()?.is_none() {
            return Ok(true);
        }
        let (caps, strides) = crate::shader::generated_gs_captures(state)?;
        let Ok(ir) = crate::shader::outputs_ir(state) else {
            return Ok(false);
        };
        let xfb = spirv_gen::passes::xfb::Takeover {
            captures: &caps,
            strides,
            reserved: crate::shader::relocation_targets(&relocate),
        };
        let gs =
            spirv_gen::passes::aliased::aliased_triangles_gs_xfb(&ir, false, 0, None, false, xfb);
        let Ok(gs) = gs else {
            return Ok(false);
        };
        let comps = crate::shader::output_components(&gs) + 18;
        let limits = &self.dev().physical.properties.limits;
        Ok(comps <= limits.max_geometry_output_components
            && 3 * comps <= limits.max_geometry_total_output_components)
    }

    /// The output components the stream output copies of the bound
    /// application geometry shader `h` add where its strips are
    /// re-emitted (`ShaderInfo::gs_copies`): 0 without a capture; `None`
    /// when they find no room.
    fn restrip_copies(&self, h: pipe_core::cso::ShaderHandle) -> PipeResult<Option<u32>> {
        if self.so_capture_info()?.is_none() {
            return Ok(Some(0));
        }
        Ok(match self.shader_info(h).gs_copies {
            Some(c) => c.fit(),
            None => Some(0),
        })
    }

    /// Whether a geometry shader of `max` vertices, re-emitting its
    /// strips' triangles one by one (`spirv_gen::passes::strips`: up to
    /// `3 * (max - 2)` vertices) with `comps` output components each,
    /// fits the device's geometry output limits.
    fn restrip_fits(&self, max: u32, comps: u32) -> bool {
        let limits = &self.dev().physical.properties.limits;
        let vertices = 3 * max.saturating_sub(2).max(1);
        comps <= limits.max_geometry_output_components
            && vertices <= limits.max_geometry_output_vertices
            && vertices * comps <= limits.max_geometry_total_output_components
    }

    /// A Fallback debug message for each bound SPIR-V passthrough shader
    /// (the last vertex stage, the fragment shader) whose variant key
    /// asks for lowerings pipe-vk does not patch into SPIR-V
    /// (`shader::spirv_unapplied`): once per pipeline made.
    fn report_spirv_unapplied(&self, vs_key: &VariantKey, fs_key: &VariantKey) -> PipeResult<()> {
        if self.debug_callback.is_none() {
            return Ok(());
        }
        let b = self.bound();
        let last = [
            ShaderStage::Geometry,
            ShaderStage::TessEval,
            ShaderStage::Vertex,
        ]
        .into_iter()
        .find(|st| b.shaders[st.index()].is_some());
        for (stage, key) in last
            .map(|st| (st, vs_key))
            .into_iter()
            .chain([(ShaderStage::Fragment, fs_key)])
        {
            let Some(h) = b.shaders[stage.index()] else {
                continue;
            };
            if !matches!(
                self.shader_table().get(h.cso)?.code,
                pipe_core::shader::ShaderCode::SpirV { .. }
            ) {
                continue;
            }
            let missing = crate::shader::spirv_unapplied(key);
            if !missing.is_empty() {
                self.debug_message(DebugType::Fallback, 11, || {
                    let name = match stage {
                        ShaderStage::Vertex => "vertex",
                        ShaderStage::TessEval => "tessellation evaluation",
                        ShaderStage::Geometry => "geometry",
                        _ => "fragment",
                    };
                    format!(
                        "the {name} shader is SPIR-V passthrough: pipe-vk does not apply {} \
                         to it (the frontend's SPIR-V must)",
                        missing.join(", ")
                    )
                });
            }
        }
        Ok(())
    }

    /// The GL lowerings the bound state asks of the vertex (the last
    /// vertex stage here) and fragment shaders.
    fn variant_keys(
        &self,
        topology: vk::PrimitiveTopology,
        samples: u32,
    ) -> PipeResult<(VariantKey, VariantKey)> {
        let b = self.bound();
        let rast = self.rasterizer_or_default()?;
        let dsa = match b.dsa {
            Some(h) => *self.dsa_table().get(h)?,
            None => DepthStencilAlphaState::default(),
        };
        // What the rasterizer gets: the last pre-rasterization stage's
        // primitives (Zink's rast_prim), triangles in polygon modes.
        let prim = self.rast_prim(topology);
        let tri = prim == TopologyClass::Triangle;
        let mode = crate::pipeline::effective_polygon_mode(&rast);
        let fill = |m: PolygonMode| tri && mode == m;
        let points = prim == TopologyClass::Point || fill(PolygonMode::Point);
        let mut vs = VariantKey {
            last_vertex_stage: true,
            clip_halfz: rast.clip_halfz,
            clip_planes: rast.clip_plane_enable,
            ..Default::default()
        };
        // The rasterizer's size for points when the last vertex stage
        // writes none: also with `point_size_per_vertex` (GL leaves the
        // size undefined then; Vulkan requires one). A geometry or
        // tessellation shader may write it only with
        // shaderTessellationAndGeometryPointSize (without it, points are
        // 1 pixel there).
        let last_is_vs = b.shaders[ShaderStage::Geometry.index()].is_none()
            && b.shaders[ShaderStage::TessEval.index()].is_none();
        let psize_ok = last_is_vs
            || self
                .dev()
                .device
                .features
                .core
                .shader_tessellation_and_geometry_point_size
                == vk::TRUE;
        if points && psize_ok {
            // Clamped to the device's range, as GL clamps the size (Zink
            // clamps likewise): Vulkan leaves a `PointSize` of 0 or less
            // undefined (lavapipe draws 1-pixel points, NVIDIA none), and
            // a rasterizer's `point_size` of 0 (the CSO default) reached
            // the shaders unchanged (pipe.draw.polygon_mode.*.point,
            // pipe.draw.tessellation.default_levels on NVIDIA).
            let range = self.dev().physical.properties.limits.point_size_range;
            let size = rast.point_size.max(range[0]).min(range[1]);
            vs.point_size = Some(size.to_bits());
            // Without `point_size_per_vertex` the rasterizer's size wins
            // over one the shader writes.
            vs.point_size_fixed = !rast.point_size_per_vertex;
        }
        vs.inline_uniforms = inline_uniforms(&b.inlinable[ShaderStage::Vertex.index()]);
        vs.ubo0_push_offset = self.cb0_window(ShaderStage::Vertex)?.is_some();
        // Vertex formats fetched through a shader fix-up, by the input
        // location their element feeds.
        if let Some(f) = self.vertex_fixups(b.velems) {
            vs.vertex_fixups = f.collect();
        }
        let mut fs = VariantKey {
            flat_shade: rast.flatshade,
            two_side: rast.light_twoside,
            sample_shading: sample_shading(&rast, b.min_samples),
            // GL stipples polygons in fill mode only.
            polygon_stipple: rast.poly_stipple_enable && fill(PolygonMode::Fill),
            pixel_center_integer: !rast.half_pixel_center,
            ..Default::default()
        };
        // Fragment inputs the last vertex-processing stage does not write
        // read 0 (the driver's own varyings at 29-31 are left to their
        // lowerings).
        if let Some(h) = b.shaders[ShaderStage::Fragment.index()] {
            let written = self
                .last_vertex_shader()
                .map_or(0, |h| self.shader_info(h).varyings);
            fs.zero_inputs = self.shader_info(h).varyings & !written & !(0b111 << 29);
        }
        if rast.light_twoside {
            // Back colours the last vertex stage does not write keep the
            // front colour.
            fs.two_side_front_only = self
                .last_vertex_shader()
                .map_or(0, |h| self.shader_info(h).missing_back_colors);
        }
        fs.alpha_test = alpha_test(&dsa);
        if points {
            fs.sprite_coord = (rast.sprite_coord_enable & 0xff) as u8;
            fs.sprite_upper_left = !rast.sprite_coord_mode_lower_left;
        }
        // Multisampling off on a multisampled framebuffer: a fragment
        // shader that reads sample inputs sees one sample per pixel
        // (sample id 0, position at the centre;
        // `spirv_gen::passes::gl::lower_single_sample`) and runs once per
        // pixel.
        fs.single_sample = samples > 1
            && !rast.multisample
            && b.shaders[ShaderStage::Fragment.index()]
                .is_some_and(|h| self.shader_info(h).reads_samples);
        // GL also rasterizes points single-sampled and covers the whole
        // pixel; Vulkan has no such mode for points (lines take Bresenham
        // mode, which does it). The shaders emulate it (lowered into IR, patched into
        // SPIR-V) when the last vertex stage can size points.
        // Alpha-to-coverage and alpha-to-one need the sample coverage the
        // emulation replaces (GL ignores them with multisampling off, and
        // st/mesa clears them then): with either on, the draw keeps sample
        // coverage.
        let a2c = match b.blend {
            Some(h) => {
                let bs = self.blend_table().get(h)?;
                bs.alpha_to_coverage || bs.alpha_to_one
            }
            None => false,
        };
        // Not where the last vertex stage writes a varying at the location
        // the emulation passes the point size in.
        let point_location_free = || {
            self.last_vertex_shader().is_none_or(|h| {
                let at = 1 << spirv_gen::binding::ALIASED_POINT_LOCATION;
                self.shader_info(h).varyings & at == 0
            })
        };
        // GL's smooth points (POINT_SMOOTH, not sprites, where points are
        // not multisampled) likewise: drawn two pixels larger, the
        // fragment shader weighs each pixel's alpha by its share of the
        // point's circle (as radeonsi's `nir_lower_point_smooth` does, but
        // integrated over the pixel). Vulkan has no round points.
        let smooth = rast.point_smooth
            && !rast.point_quad_rasterization
            && (samples == 1 || !rast.multisample);
        if points
            && psize_ok
            && (smooth || (samples > 1 && !rast.multisample && !a2c))
            && point_location_free()
        {
            let max = self.dev().physical.properties.limits.point_size_range[1];
            vs.aliased_points = Some(max.to_bits());
            fs.aliased_points = vs.aliased_points;
            vs.smooth_points = smooth;
            fs.smooth_points = smooth;
            if smooth && vs.point_size.is_some() {
                // GL's smooth sizes go down to 0 (st/mesa's MinPointSizeAA),
                // below the device's range: the point is drawn larger
                // anyway, and the circle's coverage makes it faint.
                let size = rast.point_size.max(0.0).min(max);
                vs.point_size = Some(size.to_bits());
            }
        }
        // Multisampled points that are not sprites are round in GL (its
        // compatibility profile; GL 4.6 compatibility, 14.4.3), square in
        // Vulkan: the fragment shader keeps the samples inside the circle
        // (`spirv_gen::passes::aliased::lower_round_points_fs`), at the
        // standard locations (custom ones keep squares), for a fragment
        // shader run per pixel (one run per sample could not tell its
        // sample's place from `PointCoord`, which Vulkan may take at the
        // pixel centre: those keep squares too).
        let per_sample = || {
            fs.sample_shading
                || b.shaders[ShaderStage::Fragment.index()]
                    .is_some_and(|h| self.shader_info(h).reads_samples)
        };
        let standard = self
            .dev()
            .physical
            .properties
            .limits
            .standard_sample_locations;
        if points
            && samples > 1
            && rast.multisample
            && !rast.point_quad_rasterization
            && !per_sample()
            && standard == vk::TRUE
            && !self.sample_locations_active(samples)
            && spirv_gen::passes::aliased::standard_sample_locations(samples as u8).is_some()
        {
            fs.round_points = samples as u8;
        }
        // GL's smooth lines where lines are not multisampled, on a device
        // that cannot draw them smooth there (`pipeline::smooth_lines_native`):
        // the shaders weigh alpha by coverage
        // (`spirv_gen::passes::smooth_lines`), the line drawn one pixel
        // wider (`set_dynamic_state`); polygons in line mode too (GL's
        // LINE_SMOOTH applies to their edges); SPIR-V passthrough shaders
        // are patched (`spirv_gen::patch::smooth_lines`). Not where a
        // shader writes the viewport index or uses the emulation's
        // location (`shader::smooth_lines_lowerable`): those lines stay
        // aliased.
        let lines = prim == TopologyClass::Line || fill(PolygonMode::Line);
        if let Some(width) = self.smooth_lines_emulated(&rast, lines, samples)? {
            vs.smooth_lines = Some(width.to_bits());
            fs.smooth_lines = vs.smooth_lines;
        }
        // Filled triangles, likewise: a generated geometry shader after
        // the vertex shader widens each triangle and the fragment shader
        // keeps the pixels whose centre is in it
        // (`spirv_gen::passes::aliased`; of an adjacency topology it
        // takes the triangle's vertices and drops the adjacent ones), or
        // an application geometry shader widens its own. With stream
        // output the generated shader captures what the vertex shader
        // wrote, or the application's geometry shader captures what it
        // wrote. Not with a SPIR-V geometry shader, or outputs a geometry
        // shader cannot forward (`aliased_triangles_possible`).
        if fill(PolygonMode::Fill)
            && samples > 1
            && !rast.multisample
            && !a2c
            // The edge test interpolates at the pixel centre
            // (InterpolationFunction, which needs sampleRateShading).
            && self.dev().device.features.core.sample_rate_shading == vk::TRUE
            && self.aliased_triangles_possible()?
        {
            fs.aliased_triangles = true;
            // User clip planes are tested at the pixel centre, as GL's
            // clip edges are aliased too (`aliased_triangles_gs`), unless
            // the fragment shader reads the distances, which the
            // hardware then keeps (clipping by sample).
            let reads_distances = b.shaders[ShaderStage::Fragment.index()]
                .is_some_and(|h| self.shader_info(h).reads_distances);
            if !reads_distances {
                fs.aliased_clip_planes = rast.clip_plane_enable;
                // The near and far planes likewise, where the hardware's
                // depth clipping can be turned off apart from clamping.
                let dev = self.dev();
                // Their two `ClipDistance` elements must fit beside the
                // user planes' and the last vertex stage's cull distances.
                let last = self.last_vertex_shader();
                let culls = last.map_or(0, |h| self.shader_info(h).cull_distances);
                let n_clip = 8 - rast.clip_plane_enable.leading_zeros();
                let combined = dev
                    .physical
                    .properties
                    .limits
                    .max_combined_clip_and_cull_distances;
                if rast.depth_clip_near
                    && !rast.depth_clamp
                    && dev.separate_depth_clip()
                    && dev.device.features.core.depth_clamp == vk::TRUE
                    && spirv_gen::passes::aliased::depth_clip_fits(rast.clip_plane_enable)
                    && n_clip + 2 + culls <= combined
                {
                    fs.aliased_depth_clip = Some(rast.clip_halfz);
                }
            }
        }
        fs.inline_uniforms = inline_uniforms(&b.inlinable[ShaderStage::Fragment.index()]);
        fs.ubo0_push_offset = self.cb0_window(ShaderStage::Fragment)?.is_some();
        // Framebuffer fetch on a multisampled framebuffer reads each
        // sample (only fetching shaders get the key item, so the others
        // keep one variant for every sample count).
        // On a layered framebuffer it reads the fragment's layer.
        if let Some(h) = b.shaders[ShaderStage::Fragment.index()] {
            // Colour outputs with no colour buffer (a `None` slot, or past
            // the bound ones) leave the interface; output 0 stays for
            // alpha-to-coverage, which reads its alpha.
            let unbound = (0..8u8)
                .filter(|&i| !matches!(b.framebuffer.cbufs.get(usize::from(i)), Some(Some(_))))
                .fold(0u8, |m, i| m | 1 << i);
            let a2c = match b.blend {
                Some(h) => self.alpha_to_coverage_one(self.blend_table().get(h)?).0,
                None => false,
            };
            // So do outputs whose numeric type is not their colour
            // buffer's (`mismatched_outputs`).
            fs.unbound_outputs = (unbound | self.mismatched_outputs())
                & self.shader_info(h).color_outputs
                & if a2c { !1 } else { !0 };
            let fetches = self.shader_info(h).fbfetch != 0;
            fs.fbfetch_ms = fetches && samples > 1;
            fs.fbfetch_layered = fetches && framebuffer_layers(&b.framebuffer) > 1;
            if fetches {
                let (one_d, three_d) = crate::view::colour_buffer_dims(&b.framebuffer)?;
                let fetched = self.shader_info(h).fbfetch as u8;
                fs.fbfetch_1d = one_d & fetched;
                // One slice of a 3D image is read as 2D.
                fs.fbfetch_3d = if fs.fbfetch_layered {
                    three_d & fetched
                } else {
                    0
                };
            }
        }
        // Line stipple in shaders (spirv_gen::passes::line_stipple) where
        // the device cannot stipple this line mode: the fragment shader
        // discards by `stipple_pos`, which an application geometry shader
        // emitting line strips computes (its key), or else the generated
        // geometry shader of `pipeline_for`.
        // Polygons drawn in line mode keep their triangles, so culling
        // and polygon offset still apply: a generated geometry shader
        // gives the fragment shader its place along the outline
        // (`spirv_gen::passes::line_stipple::polygon_line_stipple_gs`).
        // Not done for an application geometry shader or for adjacency
        // topologies.
        // Quads and polygons (and rewritten triangles with explicit edge
        // flags) in line or point mode, drawn as adjacency triangles with
        // hidden-edge masks (`draw_rewritten`); and triangle lists with
        // explicit edge flags, drawn as they are, whose generated geometry
        // shader reads the flags alone.
        let edges = match topology {
            vk::PrimitiveTopology::TRIANGLE_LIST_WITH_ADJACENCY => self.edge_draw,
            vk::PrimitiveTopology::TRIANGLE_LIST if self.vs_edge_flag => {
                self.polygon_edges(pipe_core::draw::PrimType::Triangles)?
            }
            _ => None,
        };
        fs.polygon_edges = edges.map(|(e, _)| match e {
            crate::prim::Edges::Lines => spirv_gen::passes::PolygonEdges::Lines,
            crate::prim::Edges::Points => spirv_gen::passes::PolygonEdges::Points,
        });
        if self.vs_edge_flag
            && edges.is_none()
            && topology == vk::PrimitiveTopology::TRIANGLE_LIST
            && (fill(PolygonMode::Line) || fill(PolygonMode::Point))
        {
            self.debug_message(DebugType::Fallback, 10, || {
                "polygon mode: the vertex shader's edge flags are not applied (that needs a \
                 generated geometry shader: no application geometry or tessellation shader \
                 and a device with geometry shaders)"
                    .to_string()
            });
        }
        // Polygon-mode lines: of the draw's triangles (a generated
        // geometry shader), or an application geometry shader's
        // (re-emitted triangle by triangle, `strip_gs`; its capture is
        // re-emitted unchanged, each strip triangle once, in the order
        // Vulkan captures a strip's).
        let app_gs_strips = match b.shaders[ShaderStage::Geometry.index()] {
            None => None,
            Some(h) => Some(
                match (self.shader_info(h).strip_gs, self.restrip_copies(h)?) {
                    (Some((max, comps)), Some(copies)) => {
                        self.restrip_fits(max, comps + copies + 4)
                    }
                    _ => false,
                },
            ),
        };
        let polygon_lines = fill(PolygonMode::Line) && app_gs_strips != Some(false);
        if rast.line_stipple_enable && (prim == TopologyClass::Line || polygon_lines) {
            let blend = match b.blend {
                Some(h) => Some(*self.blend_table().get(h)?),
                None => None,
            };
            let per_sample_ms = blend.is_some_and(|bs| bs.alpha_to_coverage || bs.alpha_to_one)
                || (fs.sample_shading && b.framebuffer.samples > 1);
            let (_, native) = crate::pipeline::line_rasterization(
                self.dev(),
                &rast,
                per_sample_ms,
                self.framebuffer_samples()?,
            );
            if !native {
                let gs_lines = match b.shaders[ShaderStage::Geometry.index()] {
                    None => Some(false),
                    Some(h) => {
                        let st = self.shader_table().get(h.cso)?;
                        match &st.code {
                            pipe_core::shader::ShaderCode::Ir(any) => any
                                .downcast_ref::<crate::shader::Ir>()
                                .filter(|ir| {
                                    ir.info.gs_output == Some(spirv_gen::ir::GsOutput::LineStrip)
                                })
                                .map(|_| true),
                            // Patched where it emits line strips.
                            pipe_core::shader::ShaderCode::SpirV { .. } => {
                                self.shader_info(h).spirv_line_strip_gs.then_some(true)
                            }
                        }
                    }
                };
                if polygon_lines {
                    fs.line_stipple = true;
                    fs.line_stipple_polygon = true;
                    vs.line_rectangular = rast.line_rectangular;
                    if app_gs_strips.is_some() {
                        vs.line_stipple = true;
                        vs.line_stipple_polygon = true;
                    }
                } else if let Some(app_gs) =
                    // An application geometry shader computes the
                    // stipple position from what it emits, whatever its
                    // input; the generated one takes the draw's (with or
                    // without adjacency, `GfxKey::gs_adjacency`).
                    gs_lines
                {
                    fs.line_stipple = true;
                    vs.line_stipple = app_gs;
                    vs.line_rectangular = rast.line_rectangular;
                }
            }
        }
        // The emulated smooth lines' ends, where a generated geometry
        // shader can follow the last vertex stage and lengthen the
        // segments (`spirv_gen::passes::line_stipple::smooth_line_ends_gs`):
        // lines drawn as lines (not polygon edges), without an
        // application geometry shader, and without stream output from the
        // last stage. A stippled line is then stippled in the fragment
        // shader, weighed into the coverage along it (GL's stippled smooth
        // lines), from the generated shader's distance along it: the
        // device's stipple would count from the lengthened start, half a
        // pixel early.
        if fs.smooth_lines.is_some()
            && prim == TopologyClass::Line
            && !fs.line_stipple_polygon
            && b.shaders[ShaderStage::Geometry.index()].is_none()
            && self.dev().device.features.core.geometry_shader == vk::TRUE
        {
            let prev =
                b.shaders[ShaderStage::TessEval.index()].or(b.shaders[ShaderStage::Vertex.index()]);
            // Not where the stage captures stream output: the capture
            // would take the lengthened positions.
            // And where the device's geometry shaders read every output
            // (`ModuleCache::generated_gs_relocation`).
            let ok = |h: Option<ShaderHandle>| {
                h.is_some_and(|h| {
                    let info = self.shader_info(h);
                    let limits = &self.dev().physical.properties.limits;
                    // Its generated shader's vertices fit the device's
                    // geometry output limits.
                    info.smooth_line_ends.is_some_and(|comps| {
                        comps <= limits.max_geometry_output_components
                            && 2 * comps <= limits.max_geometry_total_output_components
                    }) && info.capture.is_none()
                        && self.shader_table().get(h.cso).is_ok_and(|st| {
                            crate::shader::ModuleCache::generated_gs_relocation(self.dev(), st)
                                .is_some()
                        })
                })
            };
            let fs_ok = b.shaders[ShaderStage::Fragment.index()]
                .is_none_or(|h| self.shader_info(h).smooth_line_ends.is_some());
            if ok(prev) && fs_ok {
                fs.smooth_line_ends = true;
                fs.line_stipple = rast.line_stipple_enable;
            }
        }
        // Window rectangles the device cannot test
        // (`crate::discard_rectangles`): the default state, exclude with
        // none, tests nothing.
        let (include, rects) = &b.window_rects;
        if (*include || !rects.is_empty()) && self.discard_rectangles_key().is_none() {
            fs.window_rects = Some((*include, rects.len().min(8) as u8));
        }
        Ok((vs, fs))
    }

    /// Where the vertex or fragment shader reads constant buffer 0 at a
    /// pushed offset (`spirv_gen::passes::gl::lower_ubo0_push_offset`, key
    /// item `ubo0_push_offset`): `(base, offset)`, the window of
    /// `UBO0_WINDOW` bytes of the constant stream buffer bound at the slot
    /// and where in it the current data starts.
    ///
    /// User constants (st/mesa's uniforms, uploaded per change) otherwise
    /// need a new descriptor set each time they change, which lavapipe
    /// pays with an `mmap`; with the window the set stays the same while
    /// the stream advances within it (the base moves in steps of half a
    /// window) and only the push constant changes. For IR shaders of the
    /// vertex and fragment stages whose constant buffer 0 is user data of
    /// at most half a window; off with `PIPE_VK_DEBUG=no_cb0_push_offset`.
    fn cb0_window(&self, stage: ShaderStage) -> PipeResult<Option<(u64, u32)>> {
        use spirv_gen::binding::UBO0_WINDOW;
        if self.dev().debug.no_cb0_push_offset
            || !matches!(stage, ShaderStage::Vertex | ShaderStage::Fragment)
        {
            return Ok(None);
        }
        let Some(Some(b)) = self.ubos.get(stage.index()).and_then(|s| s.first()) else {
            return Ok(None);
        };
        if !b.user || b.size > UBO0_WINDOW / 2 {
            return Ok(None);
        }
        let Some(h) = self.bound().shaders[stage.index()] else {
            return Ok(None);
        };
        if !matches!(
            self.shader_table().get(h.cso)?.code,
            pipe_core::shader::ShaderCode::Ir(_)
        ) {
            return Ok(None);
        }
        let (window, half) = (u64::from(UBO0_WINDOW), u64::from(UBO0_WINDOW / 2));
        let width = u64::from(b.resource.desc().width0);
        let limits = &self.dev().physical.properties.limits;
        // The window is one descriptor range: devices may bind as little
        // as 16 KiB (maxUniformBufferRange's minimum).
        if limits.max_uniform_buffer_range < UBO0_WINDOW {
            return Ok(None);
        }
        let align = limits.min_uniform_buffer_offset_alignment.max(1);
        let offset = u64::from(b.offset);
        if width < window {
            return Ok(None);
        }
        let base = (offset & !(half - 1)).min(width - window) / align * align;
        if offset < base || offset + u64::from(b.size) > base + window {
            return Ok(None);
        }
        Ok(Some((base, (offset - base) as u32)))
    }

    /// The driver push-constant block (`spirv_gen::binding::push`) for the
    /// bound state, with the vertex and fragment stages' constant buffer 0
    /// windows (`cb0_window`, looked up once per draw by the caller).
    fn push_block(&self, cb0_windows: &[Option<(u64, u32)>; 2]) -> PushBlock {
        use spirv_gen::binding::push;
        let size = self.pipelines.layout.push_size as usize;
        let mut p: PushBlock = smallvec::smallvec![0u8; size];
        let b = self.bound();
        let mut put = |off: u32, bytes: &[u8]| {
            if let Some(dst) = p.get_mut(off as usize..off as usize + bytes.len()) {
                dst.copy_from_slice(bytes);
            }
        };
        put(
            push::FB_HEIGHT,
            &f32::from(b.framebuffer.height).to_le_bytes(),
        );
        if let Some(h) = b.rasterizer {
            if let Ok(r) = self.rasterizer_table().get(h) {
                let word =
                    u32::from(r.line_stipple_pattern) | u32::from(r.line_stipple_factor) << 16;
                put(push::LINE_STIPPLE, &word.to_le_bytes());
            }
        }
        for (i, v) in b.tess.default_outer_level.iter().enumerate() {
            put(push::DEFAULT_TESS_OUTER + 4 * i as u32, &v.to_le_bytes());
        }
        for (i, v) in b.tess.default_inner_level.iter().enumerate() {
            put(push::DEFAULT_TESS_INNER + 4 * i as u32, &v.to_le_bytes());
        }
        for (i, w) in cb0_windows.iter().enumerate() {
            if let Some((_, rel)) = w {
                put(push::UBO0_OFFSET + 4 * i as u32, &rel.to_le_bytes());
            }
        }
        // Viewport 0's transform; the unset state is the whole
        // framebuffer, as `set_dynamic_state` draws it.
        let mut vp = b.viewports[0];
        if vp.scale == [0.0; 3] && vp.translate == [0.0; 3] {
            let fb = &b.framebuffer;
            let half = [
                f32::from(fb.width.max(1)) / 2.0,
                f32::from(fb.height.max(1)) / 2.0,
            ];
            vp.scale[..2].copy_from_slice(&half);
            vp.translate[..2].copy_from_slice(&half);
        }
        put(push::VIEWPORT_SCALE, &vp.scale[0].to_le_bytes());
        put(push::VIEWPORT_SCALE + 4, &vp.scale[1].to_le_bytes());
        put(push::VIEWPORT_TRANSLATE, &vp.translate[0].to_le_bytes());
        put(push::VIEWPORT_TRANSLATE + 4, &vp.translate[1].to_le_bytes());
        for (i, plane) in b.clip.ucp.iter().enumerate() {
            for (c, v) in plane.iter().enumerate() {
                put(
                    push::CLIP_PLANES + 16 * i as u32 + 4 * c as u32,
                    &v.to_le_bytes(),
                );
            }
        }
        p
    }

    /// Retires pipelines built from a deleted CSO (`pick` selects them):
    /// they are destroyed when the current batch retires.
    pub(crate) fn retire_pipelines(&mut self, pick: impl Fn(&GfxKey) -> bool) {
        for p in self.pipelines.take_matching(pick) {
            self.gfx_descriptors.forget(p);
            self.batches.defer_destroy_pipeline(p);
        }
    }
}

impl crate::clear::DeferredClears {
    /// The pending clear of one slice.
    pub fn pending_value(&self, level: u32, layer: u32) -> Option<PendingClear> {
        self.value(level, layer)
    }

    /// Records that the pending clears of a range were carried out by
    /// `op` (a load op counts as a full resolve) and forgets them.
    pub fn consume(
        &mut self,
        level: u32,
        layers: std::ops::Range<u32>,
        op: AuxOp,
    ) -> Result<(), pipe_core::aux::AuxError> {
        self.apply(level, layers, op)
    }
}

/// The resolve attachment for `FramebufferState::resolve`: level 0 of
/// `resolve`, the layers of `cbufs[0]`, in `cbufs[0]`'s format. Vulkan
/// requires a single-sampled image of the same format, at least as large
/// as the render area, resolving a multisampled attachment.
pub(crate) fn resolve_surface(
    fb: &pipe_core::state::FramebufferState,
    resolve: &pipe_core::Resource,
) -> PipeResult<pipe_core::view::Surface> {
    use pipe_core::resource::Target;
    let Some(Some(c0)) = fb.cbufs.first() else {
        return Err(PipeError::invalid(
            "framebuffer resolve needs a colour buffer in cbufs[0]",
        ));
    };
    let cd = c0.desc();
    let rd = resolve.desc();
    if cd.texture.desc().samples() <= 1 {
        return Err(PipeError::invalid(
            "framebuffer resolve needs a multisampled cbufs[0]",
        ));
    }
    if rd.samples() > 1
        || !matches!(
            rd.target,
            Target::Texture2D | Target::Texture2DArray | Target::TextureRect
        )
    {
        return Err(PipeError::invalid(
            "framebuffer resolve target must be a single-sampled 2D texture",
        ));
    }
    if rd.format != cd.template.format && rd.format != cd.texture.desc().format {
        return Err(PipeError::invalid(format!(
            "framebuffer resolve target is {}, cbufs[0] is {}",
            rd.format, cd.template.format
        )));
    }
    let (w, h, _) = rd.level_extent(0).unwrap_or((0, 0, 0));
    if w < u32::from(fb.width) || h < u32::from(fb.height) {
        return Err(PipeError::invalid(format!(
            "framebuffer resolve target is {w}x{h}, smaller than the {}x{} framebuffer",
            fb.width, fb.height
        )));
    }
    let t = cd.template;
    if t.last_layer >= rd.array_size.max(1) {
        return Err(PipeError::invalid(
            "framebuffer resolve target has fewer layers than cbufs[0]",
        ));
    }
    crate::view::create_surface(resolve, &pipe_core::view::SurfaceTemplate { level: 0, ..t })
}

/// Writes `writes` (binding, descriptor) into the fresh set `set`.
trait DescriptorInfo {
    fn write(&self, w: vk::WriteDescriptorSet<'static>) -> vk::WriteDescriptorSet<'_>;
}

impl DescriptorInfo for vk::DescriptorBufferInfo {
    fn write(&self, w: vk::WriteDescriptorSet<'static>) -> vk::WriteDescriptorSet<'_> {
        w.buffer_info(std::slice::from_ref(self))
    }
}

impl DescriptorInfo for vk::DescriptorImageInfo {
    fn write(&self, w: vk::WriteDescriptorSet<'static>) -> vk::WriteDescriptorSet<'_> {
        w.image_info(std::slice::from_ref(self))
    }
}

fn write_sets<T: DescriptorInfo>(
    raw: &ash::Device,
    set: vk::DescriptorSet,
    descs: &[(u32, T)],
    ty: vk::DescriptorType,
) {
    let writes: SmallVec<[vk::WriteDescriptorSet; 16]> = descs
        .iter()
        .map(|(b, d)| {
            d.write(
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(*b)
                    .descriptor_type(ty),
            )
        })
        .collect();
    // SAFETY: `set` was just allocated from the batch's pool and is not
    // bound yet; each write names a binding of its layout with its type.
    unsafe { raw.update_descriptor_sets(&writes, &[]) };
}

/// The fragment shader's alpha test for `dsa` (`VariantKey::alpha_test`).
fn alpha_test(dsa: &DepthStencilAlphaState) -> Option<(spirv_gen::passes::CompareFunc, u32)> {
    use spirv_gen::passes::CompareFunc as C;
    dsa.alpha_enabled.then(|| {
        let f = match dsa.alpha_func {
            CompareFunc::Never => C::Never,
            CompareFunc::Less => C::Less,
            CompareFunc::Equal => C::Equal,
            CompareFunc::LEqual => C::Lequal,
            CompareFunc::Greater => C::Greater,
            CompareFunc::NotEqual => C::Notequal,
            CompareFunc::GEqual => C::Gequal,
            CompareFunc::Always => C::Always,
        };
        (f, dsa.alpha_ref_value.to_bits())
    })
}

/// GL's sample mask as the rasterizer takes it: cut to the sample count,
/// all ones when single-sampled (where GL ignores it).
fn effective_sample_mask(mask: u32, samples: u32) -> u32 {
    if samples > 1 {
        mask & (u32::MAX >> (32 - samples.min(32)))
    } else {
        !0
    }
}

/// Whether `t` has adjacency vertices (which only a geometry shader
/// reads; a generated one that takes plain lines or triangles cannot
/// follow it).
fn is_adjacency(t: vk::PrimitiveTopology) -> bool {
    use vk::PrimitiveTopology as T;
    matches!(
        t,
        T::LINE_LIST_WITH_ADJACENCY
            | T::LINE_STRIP_WITH_ADJACENCY
            | T::TRIANGLE_LIST_WITH_ADJACENCY
            | T::TRIANGLE_STRIP_WITH_ADJACENCY
    )
}

/// The Vulkan viewport of a Gallium one (finite: `set_viewport_states`
/// refuses others), kept inside what Vulkan accepts, as GL keeps its
/// viewports inside `MAX_VIEWPORT_DIMS` and `VIEWPORT_BOUNDS_RANGE`: the
/// extent is clamped to `maxViewportDimensions` (its sign kept for the
/// height, which may be negative), then the origin so that both edges lie
/// in `viewportBoundsRange`. A zero or negative width (GL's
/// `glViewport(x, y, 0, h)`, legal there) becomes a tiny positive one,
/// so everything still maps onto the viewport's left edge; Zink uses one
/// pixel, which lets thin primitives cover a column GL would not.
pub(crate) fn vk_viewport(
    v: &ViewportState,
    limits: &vk::PhysicalDeviceLimits,
    min_depth: f32,
    max_depth: f32,
) -> vk::Viewport {
    const MIN_EXTENT: f32 = 1.0 / 1024.0;
    let [bmin, bmax] = limits.viewport_bounds_range;
    let [mw, mh] = limits.max_viewport_dimensions.map(|d| d as f32);
    // `max` then `min` rather than `clamp`, which panics on bounds a
    // device with limits below the spec's minimums could invert.
    let width = (2.0 * v.scale[0]).max(MIN_EXTENT).min(mw);
    let height = (2.0 * v.scale[1])
        .abs()
        .max(MIN_EXTENT)
        .min(mh)
        .copysign(v.scale[1]);
    let x = (v.translate[0] - v.scale[0]).max(bmin).min(bmax - width);
    let y = (v.translate[1] - v.scale[1])
        .max(bmin.max(bmin - height))
        .min(bmax.min(bmax - height));
    vk::Viewport {
        x,
        y,
        width,
        height,
        min_depth,
        max_depth,
    }
}

/// Refuses vertex elements Vulkan cannot fetch: an address (the buffer's
/// offset plus the element's, with the stride) that is not a multiple of
/// the format's `vertex_alignment` (VUID-vkCmdDraw-None-02721). The
/// screen reports `vertex_attrib_element_aligned_only`, so a frontend
/// realigns such elements before it draws, as st/mesa does for Zink.
/// User vertex data is uploaded at 4-byte alignment, so its own offset
/// does not count.
fn check_vertex_alignment(elems: &[VertexElement], buffers: &[VertexBuffer]) -> PipeResult<()> {
    for (i, e) in elems.iter().enumerate() {
        let align = e.src_format.vertex_alignment();
        let base = match buffers.get(usize::from(e.vertex_buffer_index)) {
            Some(VertexBuffer {
                buffer: Some(VertexBufferSource::Resource(_)),
                buffer_offset,
            }) => *buffer_offset,
            _ => 0,
        };
        if (u64::from(base) + u64::from(e.src_offset)) % u64::from(align) != 0
            || e.src_stride % align != 0
        {
            return Err(PipeError::invalid(format!(
                "draw_vbo: vertex element {i} ({}) at offset {} of buffer {} (bound at {base}) \
                 with stride {} is not {align}-byte aligned; this screen fetches aligned \
                 elements only (caps.vertex_attrib_element_aligned_only)",
                e.src_format, e.src_offset, e.vertex_buffer_index, e.src_stride
            )));
        }
    }
    Ok(())
}

/// The layers a framebuffer renders: its `layers` (at least one), but no
/// more than any attachment has. A frontend may give more (Mesa's
/// `util_framebuffer_get_num_layers` takes the largest attachment), and a
/// rendering instance with more layers than an image view writes past
/// the image: lavapipe then corrupted other memory (the API fuzz's seeds
/// 476 and 484; Vulkan's layer 1.3.239 does not check it). GL discards
/// writes to layers an attachment does not have.
pub(crate) fn framebuffer_layers(fb: &FramebufferState) -> u32 {
    let layers = u32::from(fb.layers).max(1);
    fb.cbufs
        .iter()
        .flatten()
        .chain(fb.zsbuf.iter())
        .map(|s| {
            let t = &s.desc().template;
            t.last_layer.saturating_sub(t.first_layer) + 1
        })
        .fold(layers, u32::min)
}

/// Whether a vertex buffer slot fetches from the dummy buffer: nothing
/// bound, or an offset at or past the end of the data (as
/// `VkContext::vertex_buffer_bindings` binds it). Per draw, so it reads
/// the resource's size from its template, without locks.
fn on_dummy(vb: Option<&VertexBuffer>) -> bool {
    match vb.and_then(|v| v.buffer.as_ref().map(|b| (b, v.buffer_offset))) {
        None => true,
        Some((VertexBufferSource::User(d), off)) => off as usize >= d.len(),
        Some((VertexBufferSource::Resource(r), off)) => off >= r.desc().width0,
    }
}
