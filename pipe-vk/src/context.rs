//! The Vulkan pipe context.
//!
//! At this stage the context is the spine later issues hang work on: it
//! owns the context's CSO tables (hash-consed handles, see
//! `pipe_core::cso`) and the bound state ([`BoundState`]), which is what
//! draw-time pipeline keys and descriptor updates will be built from. Every
//! call that needs GPU work (resources, transfers, clears, draws, queries,
//! fences) returns `PipeError::Unsupported` naming the issue that brings it;
//! nothing pretends to have happened. A flush with nothing recorded is a
//! real no-op: there is no work to submit.

use std::sync::Arc;

use pipe_core::blit::BlitInfo;
use pipe_core::context::ResetCallback;
use pipe_core::cso::*;
use pipe_core::draw::{DrawIndirectInfo, DrawInfo, DrawStartCountBias};
use pipe_core::flags::*;
use pipe_core::query::*;
use pipe_core::resource::{PipeBox, Resource};
use pipe_core::screen::{Fence, ResetStatus};
use pipe_core::shader::{ComputeState, ComputeStateInfo, GridInfo, ShaderState};
use pipe_core::state::*;
use pipe_core::transfer::{Transfer, UploadAllocation, Uploader};
use pipe_core::view::*;
use pipe_core::{Context, Format, PipeError, PipeResult};

use ash::vk;

use crate::batch::Batches;
use crate::memory::DeviceShared;
use crate::resource::ResourceObject;
use crate::screen::VkScreen;
use crate::sync::{Access, Barriers};

/// State bound to the context (Gallium's "current state").
#[derive(Default)]
pub struct BoundState {
    pub blend: Option<BlendHandle>,
    pub rasterizer: Option<RasterizerHandle>,
    pub dsa: Option<DepthStencilAlphaHandle>,
    pub velems: Option<VertexElementsHandle>,
    pub shaders: [Option<ShaderHandle>; 5],
    pub compute: Option<ComputeHandle>,
    pub samplers: [[Option<SamplerHandle>; MAX_SAMPLERS]; 6],
    pub stencil_ref: StencilRef,
    pub blend_color: BlendColor,
    pub sample_mask: u32,
    pub min_samples: u32,
    pub clip: ClipState,
    pub stipple: PolyStipple,
    pub scissors: [ScissorState; MAX_VIEWPORTS],
    pub viewports: [ViewportState; MAX_VIEWPORTS],
    /// One past the highest viewport or scissor index set: how many
    /// viewports draws declare.
    pub num_viewports: u8,
    pub window_rects: (bool, Vec<ScissorState>),
    /// `set_sample_locations` (`crate::sample_locations`).
    pub sample_locations: Option<Vec<u8>>,
    /// Bumped by each `set_window_rectangles` and `set_sample_locations`:
    /// the draw records the dynamic rectangles and locations again when
    /// it changed (`DynState`).
    pub raster_ext_generation: u32,
    pub tess: TessState,
    pub patch_vertices: u8,
    pub inlinable: [Vec<u32>; 6],
    pub vertex_buffers: Vec<VertexBuffer>,
    pub framebuffer: FramebufferState,
}

/// Counters for tests and benchmarks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ContextStats {
    /// `DISCARD_WHOLE_RESOURCE` maps that renamed a busy buffer.
    pub renames: u64,
    /// Draws recorded.
    pub draws: u64,
    /// Of those, draws that joined the previous call's pending draws
    /// (`crate::merge`) instead of taking the full path.
    pub merged_draws: u64,
    /// Of those, draws that only rebound the vertex buffers set since the
    /// previous call's pending draws, and started pending draws of their
    /// own (`crate::merge`), instead of taking the full path.
    pub vb_rebind_draws: u64,
    /// Pipelines looked up and created.
    pub pipeline_lookups: u64,
    pub pipelines_created: u64,
}

/// How the elements of a vertex-elements CSO are fetched, in order
/// (`format::vertex_elements_fetch`).
pub(crate) type VertexFetch = Arc<[crate::format::ElementFetch]>;

/// The Vulkan context.
pub struct VkContext {
    screen: Arc<VkScreen>,
    id: u64,
    pub(crate) batches: Batches,
    pub(crate) barriers: Barriers,
    pub(crate) stats: ContextStats,
    pub(crate) clear_stats: crate::clear::ClearStats,
    pub(crate) uploaders: [crate::upload::UploadRing; 2],
    pub(crate) staging_cache: Vec<Arc<ResourceObject>>,
    pub(crate) rendering: bool,
    /// Render-to-texture feedback (see `draw::feedback`): the objects of
    /// framebuffer attachments that the next draw also samples, and the
    /// attachments (bit i: `cbufs[i]`, bit 31: `zsbuf`) kept in `GENERAL`
    /// for it; `instance_feedback` is that mask for the open rendering
    /// instance.
    pub(crate) feedback_objs: smallvec::SmallVec<[usize; 4]>,
    pub(crate) feedback: u32,
    pub(crate) instance_feedback: u32,
    /// Single-sampled surface of `FramebufferState::resolve` (level 0,
    /// the layers of `cbufs[0]`): the resolve attachment of `cbufs[0]`.
    pub(crate) fb_resolve: Option<pipe_core::view::Surface>,
    pub(crate) pipelines: crate::pipeline::PipelineCache,
    pub(crate) modules: crate::shader::ModuleCache,
    pub(crate) ubos: [[Option<crate::draw::UboBinding>; MAX_CONSTANT_BUFFERS]; 6],
    pub(crate) dummy: Option<Arc<ResourceObject>>,
    /// What the current command buffer already has bound (see `draw`).
    pub(crate) draw_cache: crate::draw::DrawCache,
    /// Descriptor pushes and set allocations in the current batch.
    pub(crate) descriptor_updates: u32,
    /// VK_EXT_multi_draw entry points, when the feature is enabled.
    pub(crate) multi_draw: Option<ash::ext::multi_draw::Device>,
    /// VK_EXT_extended_dynamic_state2/3 entry points, where blend state
    /// is dynamic (`DeviceShared::dynamic_blend`).
    pub(crate) dynamic_blend: Option<(
        ash::ext::extended_dynamic_state2::Device,
        ash::ext::extended_dynamic_state3::Device,
    )>,
    /// VK_EXT_extended_dynamic_state3 and VK_EXT_line_rasterization entry
    /// points, where rasterizer state is dynamic
    /// (`DeviceShared::dynamic_rasterizer`).
    pub(crate) dynamic_rasterizer: Option<(
        ash::ext::extended_dynamic_state3::Device,
        ash::ext::line_rasterization::Device,
    )>,
    /// VK_EXT_extended_dynamic_state2 entry points, where the patch
    /// control point count is dynamic
    /// (`DeviceShared::dynamic_patch_control_points`).
    pub(crate) dynamic_patch: Option<ash::ext::extended_dynamic_state2::Device>,
    /// VK_EXT_vertex_input_dynamic_state entry points, where vertex input
    /// is dynamic (`DeviceShared::dynamic_vertex_input`).
    pub(crate) dynamic_vertex_input: Option<ash::ext::vertex_input_dynamic_state::Device>,
    /// The bound pipeline's fragment shader is the generated empty one
    /// (`ModuleCache::null_fs`): no shader is bound, but the draw needs the
    /// fragment-stage lowerings.
    pub(crate) null_fs: bool,
    /// The draw being recorded is `crate::prim`'s adjacency encoding of
    /// quads or polygons (or triangles with explicit edge flags) in line
    /// or point mode (set by `draw_rewritten` around it): `variant_keys`
    /// then asks for the hidden-edge lowering. The flag: the vertex
    /// shader's edge flags hide edges too.
    pub(crate) edge_draw: Option<(crate::prim::Edges, bool)>,
    /// The bound vertex shader writes GL's edge flag
    /// (`shader::ShaderInfo::edge_flag`), kept at bind time so that
    /// triangle-list pipelines test one bool before looking further
    /// (`draw::polygon_edges` reads the bound shader's own fact).
    pub(crate) vs_edge_flag: bool,
    /// What the current pipeline (`last_pipeline`) runs, as statistics
    /// spans need to know it (`query::StatsMark`).
    pub(crate) stats_mark: crate::query::StatsMark,
    /// The bound pipeline tests the depth planes of aliased triangles in
    /// the shader (`VariantKey::aliased_depth_clip`): the draw turns the
    /// hardware's depth clipping off and clamping on.
    pub(crate) aliased_depth_clip: bool,
    /// The bound pipeline stipples lines in its shaders
    /// (`VariantKey::line_stipple`): the device's stipple stays off.
    pub(crate) shader_line_stipple: bool,
    /// The bound state draws emulated smooth lines of this width
    /// (`VariantKey::smooth_lines`): the rasterized line is one pixel
    /// wider (`set_dynamic_state`).
    pub(crate) smooth_line_width: Option<f32>,
    /// The bound pipeline's vertex shader reads the draw id: direct draws
    /// are recorded one by one (`shader::reads_draw_index`).
    pub(crate) draw_id_read: bool,
    /// A context call (or a driver-internal draw) happened since the last
    /// draw looked up its pipeline and feedback attachments: set by
    /// `break_draw_merge`, cleared by the next full-path draw.
    pub(crate) state_dirty: bool,
    /// The pipeline of the last full-path draw and its topology, reused
    /// while `state_dirty` is clear.
    pub(crate) last_pipeline: Option<(vk::PrimitiveTopology, vk::Pipeline)>,
    /// The slots on the dummy buffer (`dummy_slots`) that the last
    /// full-path draw fetched with stride 0: its pipeline (where vertex
    /// input is baked) and its recorded vertex input hold them, so a draw
    /// that reuses either must have the same.
    pub(crate) last_dummy_slots: u32,
    /// Per vertex-elements CSO: each element's fetch format and shader
    /// fix-up (`format::vertex_fetch`).
    pub(crate) velem_fetch: hashbrown::HashMap<u32, VertexFetch>,
    /// What draws need to know of each shader CSO, found once at its
    /// creation rather than per draw.
    pub(crate) shader_info: hashbrown::HashMap<u32, crate::shader::ShaderInfo>,
    /// Draws of merged `draw_vbo` calls not recorded yet (`crate::merge`).
    pub(crate) merge: Option<crate::merge::PendingDraws>,
    /// The merge `set_vertex_buffers` ended, which a draw of the same key
    /// continues after rebinding them (`crate::merge`).
    pub(crate) vb_rebind: Option<crate::merge::VbRebind>,
    pub(crate) max_multi_draw: u32,
    /// The fragment stage's driver constant buffer (polygon stipple).
    pub(crate) driver_ubo: Option<crate::draw::UboBinding>,
    /// Bound sampler views per stage and slot.
    pub(crate) views: Vec<Vec<Option<SamplerView>>>,
    /// `VkSampler`s of live sampler CSOs, by CSO id.
    pub(crate) vk_samplers: hashbrown::HashMap<u32, vk::Sampler>,
    /// Bound shader buffers per stage and slot, with the writable mask.
    pub(crate) shader_buffers: Vec<Vec<Option<ShaderBuffer>>>,
    pub(crate) shader_buffers_writable: [u32; 6],
    /// Bound shader images per stage and slot.
    pub(crate) shader_images: Vec<Vec<Option<ImageView>>>,
    /// Compute pipelines and their layout (see `compute`).
    pub(crate) compute_state: crate::compute::ComputeCache,
    /// Extended graphics layouts (images, shader buffers, texture
    /// buffers; see `descriptors`).
    pub(crate) gfx_descriptors: crate::descriptors::GfxDescriptors,
    /// Sampler and view bound where a shader samples an unbound slot.
    pub(crate) dummy_texture: Option<(SamplerView, vk::Sampler)>,
    /// The shader blit's CSOs (see `blitter`).
    pub(crate) blitter: crate::blitter::Blitter,
    /// `render_condition_mem` (see `render_cond`).
    pub(crate) render_cond: crate::render_cond::RenderCondState,
    /// Stream-output targets and capture state (see `streamout`).
    pub(crate) streamout: crate::streamout::StreamOut,
    /// Queries (see `query`).
    pub(crate) queries: crate::query::Queries,
    blend: CsoTable<BlendState>,
    sampler: CsoTable<SamplerState>,
    rasterizer: CsoTable<RasterizerState>,
    dsa: CsoTable<DepthStencilAlphaState>,
    shader: CsoTable<ShaderState>,
    velems: CsoTable<Vec<VertexElement>>,
    compute: CsoTable<ComputeState>,
    bound: BoundState,
    pub(crate) debug_callback: Option<DebugCallback>,
    reset_callback: Option<ResetCallback>,
}

impl VkContext {
    pub(crate) fn new(screen: Arc<VkScreen>, id: u64) -> PipeResult<Self> {
        let batches = Batches::new(screen.shared().clone(), id)?;
        let dev = screen.shared().clone();
        let pipelines = crate::pipeline::PipelineCache::new(&dev)?;
        Ok(VkContext {
            screen,
            id,
            batches,
            barriers: Barriers::default(),
            stats: ContextStats::default(),
            clear_stats: Default::default(),
            uploaders: Default::default(),
            staging_cache: Vec::new(),
            rendering: false,
            feedback_objs: smallvec::SmallVec::new(),
            feedback: 0,
            instance_feedback: 0,
            fb_resolve: None,
            pipelines,
            modules: Default::default(),
            ubos: Default::default(),
            dummy: None,
            draw_cache: Default::default(),
            descriptor_updates: 0,
            merge: None,
            vb_rebind: None,
            null_fs: false,
            edge_draw: None,
            vs_edge_flag: false,
            stats_mark: Default::default(),
            aliased_depth_clip: false,
            shader_line_stipple: false,
            smooth_line_width: None,
            draw_id_read: false,
            shader_info: Default::default(),
            velem_fetch: Default::default(),
            state_dirty: true,
            last_pipeline: None,
            last_dummy_slots: 0,
            multi_draw: (dev.device.features.multi_draw.multi_draw == vk::TRUE)
                .then(|| ash::ext::multi_draw::Device::new(&dev.instance.raw, dev.raw())),
            max_multi_draw: crate::caps::max_multi_draw(&dev),
            dynamic_rasterizer: dev.dynamic_rasterizer().then(|| {
                (
                    ash::ext::extended_dynamic_state3::Device::new(&dev.instance.raw, dev.raw()),
                    ash::ext::line_rasterization::Device::new(&dev.instance.raw, dev.raw()),
                )
            }),
            dynamic_patch: dev.dynamic_patch_control_points().then(|| {
                ash::ext::extended_dynamic_state2::Device::new(&dev.instance.raw, dev.raw())
            }),
            dynamic_vertex_input: dev.dynamic_vertex_input().then(|| {
                ash::ext::vertex_input_dynamic_state::Device::new(&dev.instance.raw, dev.raw())
            }),
            dynamic_blend: dev.dynamic_blend().then(|| {
                (
                    ash::ext::extended_dynamic_state2::Device::new(&dev.instance.raw, dev.raw()),
                    ash::ext::extended_dynamic_state3::Device::new(&dev.instance.raw, dev.raw()),
                )
            }),
            driver_ubo: None,
            views: vec![vec![None; MAX_SHADER_SAMPLER_VIEWS]; 6],
            vk_samplers: Default::default(),
            dummy_texture: None,
            blitter: Default::default(),
            render_cond: crate::render_cond::RenderCondState {
                ext: (dev
                    .device
                    .features
                    .conditional_rendering
                    .conditional_rendering
                    == vk::TRUE)
                    .then(|| {
                        ash::ext::conditional_rendering::Device::new(&dev.instance.raw, dev.raw())
                    }),
                ..Default::default()
            },
            streamout: crate::streamout::StreamOut::new(&dev),
            queries: crate::query::Queries::new(&dev),
            shader_buffers: vec![vec![None; MAX_SHADER_BUFFERS]; 6],
            shader_buffers_writable: [0; 6],
            shader_images: vec![vec![None; MAX_SHADER_IMAGES]; 6],
            compute_state: Default::default(),
            gfx_descriptors: Default::default(),
            blend: CsoTable::new(),
            sampler: CsoTable::new(),
            rasterizer: CsoTable::new(),
            dsa: CsoTable::new(),
            shader: CsoTable::new(),
            velems: CsoTable::new(),
            compute: CsoTable::new(),
            bound: BoundState {
                sample_mask: !0,
                min_samples: 1,
                patch_vertices: 3,
                num_viewports: 1,
                ..BoundState::default()
            },
            debug_callback: None,
            reset_callback: None,
        })
    }

    /// Widens the viewport count to cover index `end - 1`.
    fn note_viewport_count(&mut self, end: usize) {
        let end = end.min(MAX_VIEWPORTS) as u8;
        self.bound.num_viewports = self.bound.num_viewports.max(end);
    }

    /// The shared device.
    pub(crate) fn dev(&self) -> &Arc<DeviceShared> {
        self.screen.shared()
    }

    /// The recording command buffer, with pending barriers emitted.
    pub(crate) fn cmd(&mut self) -> vk::CommandBuffer {
        // Transfer and barrier commands cannot go inside a rendering
        // instance: end it (the next draw begins a new one).
        self.end_rendering();
        let cmd = self.batches.cmd();
        self.barriers.flush(self.screen.shared().raw(), cmd);
        cmd
    }

    /// Declares an access to a whole buffer object in the current batch.
    pub(crate) fn use_buffer(&mut self, obj: &Arc<ResourceObject>, a: Access, write: bool) {
        if obj.buffer().is_some() {
            let mut sync = obj.sync();
            if let Some(st) = sync.first_mut() {
                self.barriers.buffer(st, obj.buffer_handles(), a, write);
            }
        }
        self.batches.track(obj, write);
    }

    /// Declares an access without aux to `level`, layers
    /// `first..first + count` of an image object in the current batch.
    /// Pending (deferred) clears of those slices run first, or are dropped
    /// when `discard` says the access overwrites them entirely.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn use_image(
        &mut self,
        obj: &Arc<ResourceObject>,
        level: u32,
        first: u32,
        count: u32,
        a: Access,
        write: bool,
        layout: vk::ImageLayout,
        discard: bool,
    ) {
        if let Err(e) = self.resolve_clears(obj, level, first, count, discard && write) {
            tracing::error!("deferred clear: {e}");
        }
        self.use_image_tracked(obj, level, first, count, a, write, layout, discard);
    }

    /// [`VkContext::use_image`] without the deferred-clear step.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn use_image_tracked(
        &mut self,
        obj: &Arc<ResourceObject>,
        level: u32,
        first: u32,
        count: u32,
        a: Access,
        write: bool,
        layout: vk::ImageLayout,
        discard: bool,
    ) {
        if let Some(img) = obj.image() {
            // A 3D level is one subresource, whatever slices are used.
            let (first, count) = if img.ty == vk::ImageType::TYPE_3D {
                (0, 1)
            } else {
                (first, count)
            };
            let mut sync = obj.sync();
            for layer in first..first.saturating_add(count).min(img.layers) {
                let idx = (level * img.layers + layer) as usize;
                if let Some(st) = sync.get_mut(idx) {
                    self.barriers.image(
                        st, img.image, img.aspect, level, layer, a, write, layout, discard,
                    );
                }
            }
        }
        self.batches.track(obj, write);
    }

    /// Whether the current batch uses `obj`.
    pub(crate) fn batches_references(&self, obj: &Arc<ResourceObject>) -> bool {
        self.batches.references(obj)
    }

    /// Submits the current batch; returns its timeline value.
    pub(crate) fn flush_internal(&mut self) -> PipeResult<u64> {
        self.end_rendering();
        // Vulkan queries end in the command buffer they began in; the next
        // draw or dispatch begins them again in the next one.
        self.suspend_queries();
        self.descriptor_updates = 0;
        if !self.barriers.is_empty() {
            let _ = self.cmd();
        }
        self.batches.flush()
    }

    /// Recycles finished batches.
    pub(crate) fn retire(&mut self) {
        self.batches.retire();
    }

    /// Counters for tests and benchmarks.
    pub fn stats(&self) -> ContextStats {
        ContextStats {
            pipeline_lookups: self.pipelines.lookups,
            pipelines_created: self.pipelines.created,
            ..self.stats
        }
    }

    /// Retires the pipelines whose key names CSO `id` of kind `kind`
    /// (depth-stencil-alpha and compute states are not in graphics keys).
    fn retire_pipelines_of(&mut self, kind: &str, id: u32) {
        match kind {
            "blend" => {
                self.retire_pipelines(|k| k.blend == Some(id));
                // Dynamic blend state recorded for this CSO is looked up
                // again: a later CSO may take the id.
                self.draw_cache.dynamic = None;
            }
            "rasterizer" => {
                self.retire_pipelines(|k| k.rasterizer == Some(id));
                self.draw_cache.dynamic = None;
            }
            _ => {}
        }
    }

    pub(crate) fn bound_mut(&mut self) -> &mut BoundState {
        &mut self.bound
    }
    pub(crate) fn velems_table(&self) -> &CsoTable<Vec<VertexElement>> {
        &self.velems
    }
    pub(crate) fn rasterizer_table(&self) -> &CsoTable<RasterizerState> {
        &self.rasterizer
    }
    pub(crate) fn dsa_table(&self) -> &CsoTable<DepthStencilAlphaState> {
        &self.dsa
    }
    pub(crate) fn blend_table(&self) -> &CsoTable<BlendState> {
        &self.blend
    }
    pub(crate) fn sampler_table(&self) -> &CsoTable<SamplerState> {
        &self.sampler
    }
    pub(crate) fn shader_table(&self) -> &CsoTable<ShaderState> {
        &self.shader
    }
    pub(crate) fn compute_table(&self) -> &CsoTable<ComputeState> {
        &self.compute
    }

    /// Number of `vkCmdPipelineBarrier2` calls recorded so far.
    pub fn barrier_count(&self) -> u64 {
        self.barriers.emitted
    }

    /// Counters of clear work.
    pub fn clear_stats(&self) -> crate::clear::ClearStats {
        self.clear_stats
    }

    /// Number of Vulkan image views cached on `resource`'s image.
    pub fn cached_view_count(&self, resource: &Resource) -> PipeResult<usize> {
        Ok(crate::resource::vk_resource(resource)?.obj().views.len())
    }

    /// Uploads the fragment stage's driver constant buffer
    /// (`spirv_gen::binding::driver_ubo`: the polygon stipple pattern and
    /// the window rectangles) after either changes; draws bind the latest.
    fn upload_driver_ubo(&mut self) -> PipeResult<()> {
        use spirv_gen::binding::driver_ubo;
        let mut bytes = vec![0u8; driver_ubo::SIZE as usize];
        for (i, w) in self.bound.stipple.stipple.iter().enumerate() {
            let o = driver_ubo::POLYGON_STIPPLE as usize + 4 * i;
            bytes[o..o + 4].copy_from_slice(&w.to_le_bytes());
        }
        for (i, r) in self.bound.window_rects.1.iter().enumerate() {
            let o = driver_ubo::WINDOW_RECTS as usize + 16 * i;
            let v = [r.minx, r.miny, r.maxx, r.maxy].map(u32::from);
            for (c, x) in v.iter().enumerate() {
                if let Some(d) = bytes.get_mut(o + 4 * c..o + 4 * c + 4) {
                    d.copy_from_slice(&x.to_le_bytes());
                }
            }
        }
        let (resource, offset) =
            self.do_upload_data(pipe_core::transfer::Uploader::Const, &bytes, 16)?;
        self.driver_ubo = Some(crate::draw::UboBinding {
            resource,
            offset,
            size: bytes.len() as u32,
            user: false,
        });
        Ok(())
    }

    /// Reports a driver message to the frontend's debug callback
    /// (`set_debug_callback`, surfacing as GL_KHR_debug messages), and to
    /// `tracing`.
    pub(crate) fn debug_message(&self, kind: DebugType, id: u32, text: impl FnOnce() -> String) {
        if let Some(cb) = &self.debug_callback {
            let msg = DebugMessage {
                kind,
                id,
                text: text(),
            };
            tracing::debug!(target: "pipe_vk::debug_callback", "{:?}: {}", msg.kind, msg.text);
            cb(&msg);
        }
    }

    /// Slices of `resource` with a deferred clear pending.
    pub fn pending_clears(&self, resource: &Resource) -> PipeResult<usize> {
        let obj = crate::resource::vk_resource(resource)?.obj();
        let guard = obj.clears.lock().unwrap_or_else(|p| p.into_inner());
        Ok(guard.as_ref().map_or(0, |d| d.pending()))
    }

    /// Number of batches submitted so far.
    pub fn submit_count(&self) -> u64 {
        self.batches.submitted
    }

    /// The bound state.
    pub fn bound(&self) -> &BoundState {
        &self.bound
    }

    /// The screen.
    pub fn screen(&self) -> &Arc<VkScreen> {
        &self.screen
    }

    fn create_shader(&mut self, state: &ShaderState) -> PipeResult<ShaderHandle> {
        crate::shader::check_template(state)?;
        crate::shader::check_device_features(
            self.dev(),
            &format!("{} shader", state.stage.short_name()),
            &state.code,
        )?;
        let (cso, _) = self.shader.create(state)?;
        self.shader_info
            .insert(cso.id(), crate::shader::ShaderInfo::of(state));
        Ok(ShaderHandle {
            cso,
            stage: state.stage,
        })
    }

    /// Fails unless `h` names a live shader of `stage` in this context:
    /// a handle carries its stage, but a stale one, or one of another
    /// context, may name a shader of another stage here (which Vulkan
    /// would get as the wrong stage's module).
    fn check_shader_stage(
        &self,
        what: &str,
        stage: ShaderStage,
        h: ShaderHandle,
    ) -> PipeResult<()> {
        let st = self.shader.get(h.cso)?;
        if st.stage != stage || h.stage != stage {
            return Err(PipeError::invalid(format!(
                "{what}: {:?} names a {:?} shader of this context, not a {stage:?} shader",
                h.cso, st.stage
            )));
        }
        Ok(())
    }

    fn bind_shader(&mut self, stage: ShaderStage, handle: Option<ShaderHandle>) -> PipeResult<()> {
        if let Some(h) = handle {
            self.check_shader_stage("bind shader state", stage, h)?;
        }
        self.bound.shaders[stage.index()] = handle;
        if stage == ShaderStage::Vertex {
            self.vs_edge_flag = handle.is_some_and(|h| self.shader_info(h).edge_flag);
        }
        // Binding a shader invalidates inlinable constants (spec).
        self.bound.inlinable[stage.index()].clear();
        Ok(())
    }

    fn delete_shader(&mut self, stage: ShaderStage, handle: ShaderHandle) -> PipeResult<()> {
        self.check_shader_stage("delete shader state", stage, handle)?;
        if self.shader.delete(handle.cso)?.is_some() {
            // The state died: its modules and pipelines go (pipelines when
            // the batches that may use them retire).
            let id = handle.cso.id();
            self.shader_info.remove(&id);
            for m in self.modules.take(id) {
                // SAFETY: modules are not referenced after pipeline creation.
                unsafe { self.dev().raw().destroy_shader_module(m, None) };
            }
            self.retire_pipelines(|k| k.vs == id || [k.tcs, k.tes, k.gs, k.fs].contains(&Some(id)));
        }
        let slot = &mut self.bound.shaders[stage.index()];
        if *slot == Some(handle) && !self.shader.contains(handle.cso) {
            *slot = None;
            if stage == ShaderStage::Vertex {
                self.vs_edge_flag = false;
            }
        }
        Ok(())
    }
}

/// Error for a call pipe-vk does not implement; `why` says why, and what
/// a frontend does instead.
fn unsupported_call<T>(call: &str, why: &str) -> PipeResult<T> {
    Err(PipeError::Unsupported(format!(
        "{call} is not supported by pipe-vk: {why}"
    )))
}

/// `$keeps(old, new)`: whether binding `new` in place of `old` leaves the
/// last draw's pipeline and feedback lookup valid (`state_dirty` stays
/// clear; see `merge::end_draw_merge`).
macro_rules! cso_triplet {
    ($table:ident, $slot:ident, $ty:ty, $handle:ty, $create:ident, $bind:ident, $delete:ident, $keeps:ident) => {
        fn $create(&mut self, state: &$ty) -> PipeResult<$handle> {
            self.break_draw_merge();
            Ok(self.$table.create(state)?.0)
        }
        fn $bind(&mut self, handle: Option<$handle>) -> PipeResult<()> {
            if self.$keeps(self.bound.$slot, handle) {
                self.end_draw_merge();
            } else {
                self.break_draw_merge();
            }
            if let Some(h) = handle {
                self.$table.get(h)?;
            }
            self.bound.$slot = handle;
            Ok(())
        }
        fn $delete(&mut self, handle: $handle) -> PipeResult<()> {
            self.break_draw_merge();
            if self.$table.delete(handle)?.is_some() {
                self.retire_pipelines_of(stringify!($slot), handle.id());
            }
            if self.bound.$slot == Some(handle) && !self.$table.contains(handle) {
                self.bound.$slot = None;
            }
            Ok(())
        }
    };
}

macro_rules! shader_triplet {
    ($stage:expr, $create:ident, $bind:ident, $delete:ident) => {
        fn $create(&mut self, state: &ShaderState) -> PipeResult<ShaderHandle> {
            self.break_draw_merge();
            self.create_shader(state)
        }
        fn $bind(&mut self, handle: Option<ShaderHandle>) -> PipeResult<()> {
            self.break_draw_merge();
            self.bind_shader($stage, handle)
        }
        fn $delete(&mut self, handle: ShaderHandle) -> PipeResult<()> {
            self.break_draw_merge();
            self.delete_shader($stage, handle)
        }
    };
}

macro_rules! unsupported {
    ($($name:ident($($arg:ident: $ty:ty),*) -> $ret:ty = $why:expr;)*) => {
        $(#[allow(clippy::too_many_arguments)]
        fn $name(&mut self, $($arg: $ty),*) -> PipeResult<$ret> {
            $(let _ = $arg;)*
            // Every entry point ends a draw merge (`crate::merge`), these
            // too, so that implementing them cannot forget it.
            self.break_draw_merge();
            unsupported_call(stringify!($name), $why)
        })*
    };
}

/// Why the bindless calls fail.
const BINDLESS: &str = "bindless textures and images are not implemented \
    (caps.bindless_texture is false)";

impl Context for VkContext {
    fn id(&self) -> u64 {
        self.id
    }
    cso_triplet!(
        blend,
        blend,
        BlendState,
        BlendHandle,
        create_blend_state,
        bind_blend_state,
        delete_blend_state,
        same_blend_coverage
    );
    cso_triplet!(
        rasterizer,
        rasterizer,
        RasterizerState,
        RasterizerHandle,
        create_rasterizer_state,
        bind_rasterizer_state,
        delete_rasterizer_state,
        same_rasterizer_variants
    );
    cso_triplet!(
        dsa,
        dsa,
        DepthStencilAlphaState,
        DepthStencilAlphaHandle,
        create_depth_stencil_alpha_state,
        bind_depth_stencil_alpha_state,
        delete_depth_stencil_alpha_state,
        same_alpha_test
    );
    fn create_compute_state(&mut self, state: &ComputeState) -> PipeResult<ComputeHandle> {
        self.break_draw_merge();
        crate::compute::check_state(self.dev(), state)?;
        Ok(self.compute.create(state)?.0)
    }
    fn bind_compute_state(&mut self, handle: Option<ComputeHandle>) -> PipeResult<()> {
        self.break_draw_merge();
        if let Some(h) = handle {
            self.compute.get(h)?;
        }
        self.bound.compute = handle;
        Ok(())
    }
    fn delete_compute_state(&mut self, handle: ComputeHandle) -> PipeResult<()> {
        self.break_draw_merge();
        if self.compute.delete(handle)?.is_some() {
            // Its pipelines go when the current batch retires.
            self.retire_compute(handle.id());
        }
        if self.bound.compute == Some(handle) && !self.compute.contains(handle) {
            self.bound.compute = None;
        }
        Ok(())
    }

    fn create_sampler_state(&mut self, state: &SamplerState) -> PipeResult<SamplerHandle> {
        self.break_draw_merge();
        Ok(self.sampler.create(state)?.0)
    }
    fn bind_sampler_states(
        &mut self,
        stage: ShaderStage,
        start: u32,
        samplers: &[Option<SamplerHandle>],
    ) -> PipeResult<()> {
        self.break_draw_merge();
        for h in samplers.iter().flatten() {
            self.sampler.get(*h)?;
        }
        let slots = &mut self.bound.samplers[stage.index()];
        for (i, h) in samplers.iter().enumerate() {
            if let Some(slot) = slots.get_mut(start as usize + i) {
                *slot = *h;
            }
        }
        Ok(())
    }
    fn delete_sampler_state(&mut self, handle: SamplerHandle) -> PipeResult<()> {
        self.break_draw_merge();
        if self.sampler.delete(handle)?.is_some() {
            if let Some(s) = self.vk_samplers.remove(&handle.id()) {
                self.batches.defer_destroy_sampler(s);
            }
        }
        if !self.sampler.contains(handle) {
            for slot in self.bound.samplers.iter_mut().flatten() {
                if *slot == Some(handle) {
                    *slot = None;
                }
            }
        }
        Ok(())
    }

    shader_triplet!(
        ShaderStage::Vertex,
        create_vs_state,
        bind_vs_state,
        delete_vs_state
    );
    shader_triplet!(
        ShaderStage::TessCtrl,
        create_tcs_state,
        bind_tcs_state,
        delete_tcs_state
    );
    shader_triplet!(
        ShaderStage::TessEval,
        create_tes_state,
        bind_tes_state,
        delete_tes_state
    );
    shader_triplet!(
        ShaderStage::Geometry,
        create_gs_state,
        bind_gs_state,
        delete_gs_state
    );
    shader_triplet!(
        ShaderStage::Fragment,
        create_fs_state,
        bind_fs_state,
        delete_fs_state
    );

    fn create_vertex_elements_state(
        &mut self,
        elements: &[VertexElement],
    ) -> PipeResult<VertexElementsHandle> {
        self.break_draw_merge();
        // How each element is fetched, settled (or refused) here rather
        // than at the first draw.
        let fetch = crate::format::vertex_elements_fetch(self.dev(), elements)?;
        let h = self.velems.create(&elements.to_vec())?.0;
        self.velem_fetch.insert(h.id(), fetch.into());
        Ok(h)
    }
    fn bind_vertex_elements_state(
        &mut self,
        handle: Option<VertexElementsHandle>,
    ) -> PipeResult<()> {
        // With dynamic vertex input, vertex elements reach the pipeline
        // only through the vertex shader's fetch fix-ups (`GfxKey`):
        // elements with the same fix-ups keep the last draw's pipeline
        // and feedback lookup, and the draw records the new vertex input
        // (`set_dynamic_state`), as Zink's dynamic vertex input does
        // (pipe-bench draw scenario 11).
        // A merge they end may then go on with the new vertex input
        // recorded and the vertex buffers rebound (`merge::VbRebind`).
        let rebind = if self.dynamic_vertex_input.is_some()
            && self.same_vertex_fixups(self.bound.velems, handle)
        {
            let rebind = self.vb_rebind_of_merge().or(self.vb_rebind);
            self.end_draw_merge();
            rebind
        } else {
            self.break_draw_merge();
            None
        };
        if let Some(h) = handle {
            self.velems.get(h)?;
        }
        self.bound.velems = handle;
        self.vb_rebind = rebind.map(crate::merge::VbRebind::with_vertex_input);
        Ok(())
    }
    fn delete_vertex_elements_state(&mut self, handle: VertexElementsHandle) -> PipeResult<()> {
        self.break_draw_merge();
        if self.velems.delete(handle)?.is_some() {
            let id = handle.id();
            self.velem_fetch.remove(&id);
            self.retire_pipelines(|k| k.velems == Some(id));
            // Dynamic vertex input recorded for this CSO is looked up
            // again: a later CSO may take the id.
            self.draw_cache.dynamic = None;
        }
        if self.bound.velems == Some(handle) && !self.velems.contains(handle) {
            self.bound.velems = None;
        }
        Ok(())
    }

    fn set_inlinable_constants(&mut self, stage: ShaderStage, values: &[u32]) -> PipeResult<()> {
        self.break_draw_merge();
        self.bound.inlinable[stage.index()] = values.to_vec();
        Ok(())
    }
    fn set_framebuffer_state(&mut self, state: &FramebufferState) -> PipeResult<()> {
        self.break_draw_merge();
        let resolve = match &state.resolve {
            Some(r) => Some(crate::draw::resolve_surface(state, r)?),
            None => None,
        };
        self.end_rendering();
        self.bound.framebuffer = state.clone();
        self.fb_resolve = resolve;
        Ok(())
    }
    fn set_vertex_buffers(&mut self, buffers: &[VertexBuffer]) -> PipeResult<()> {
        // A merge the new buffers end may go on with them rebound
        // (`merge::VbRebind`).
        let rebind = self.vb_rebind_of_merge().or(self.vb_rebind);
        self.end_draw_merge();
        self.bound.vertex_buffers = buffers.to_vec();
        self.vb_rebind = rebind;
        Ok(())
    }
    fn set_stencil_ref(&mut self, stencil_ref: StencilRef) -> PipeResult<()> {
        self.end_draw_merge();
        self.bound.stencil_ref = stencil_ref;
        Ok(())
    }
    fn set_blend_color(&mut self, color: &BlendColor) -> PipeResult<()> {
        self.end_draw_merge();
        self.bound.blend_color = *color;
        Ok(())
    }
    fn set_sample_mask(&mut self, mask: u32) -> PipeResult<()> {
        // A dynamic sample mask is in no pipeline's key, nor in the
        // shader variants' (`set_dynamic_state` records it).
        if self.dev().dynamic_sample_state() {
            self.end_draw_merge();
        } else {
            self.break_draw_merge();
        }
        self.bound.sample_mask = mask;
        Ok(())
    }
    fn set_sample_locations(&mut self, locations: Option<&[u8]>) -> PipeResult<()> {
        if let Some(bytes) = locations {
            let Some(support) = &self.dev().sample_locations else {
                return Err(PipeError::unsupported(
                    "set_sample_locations: the device has no VK_EXT_sample_locations with \
                     variable locations (caps.programmable_sample_locations is false)",
                ));
            };
            if !support.valid_len(bytes.len()) {
                return Err(PipeError::invalid(format!(
                    "set_sample_locations: {} bytes are no sample count's locations \
                     (one byte per sample of each pixel of get_sample_pixel_grid)",
                    bytes.len()
                )));
            }
        }
        self.break_draw_merge();
        self.bound.sample_locations = locations.map(<[u8]>::to_vec);
        self.bound.raster_ext_generation = self.bound.raster_ext_generation.wrapping_add(1);
        Ok(())
    }
    fn set_min_samples(&mut self, min_samples: u32) -> PipeResult<()> {
        self.break_draw_merge();
        self.bound.min_samples = min_samples;
        Ok(())
    }
    fn set_clip_state(&mut self, state: &ClipState) -> PipeResult<()> {
        self.break_draw_merge();
        self.bound.clip = *state;
        Ok(())
    }
    fn set_polygon_stipple(&mut self, stipple: &PolyStipple) -> PipeResult<()> {
        self.break_draw_merge();
        self.bound.stipple = *stipple;
        self.upload_driver_ubo()
    }
    fn set_scissor_states(&mut self, start: u32, scissors: &[ScissorState]) -> PipeResult<()> {
        self.end_draw_merge();
        for (i, s) in scissors.iter().enumerate() {
            if let Some(slot) = self.bound.scissors.get_mut(start as usize + i) {
                *slot = *s;
            }
        }
        self.note_viewport_count(start as usize + scissors.len());
        Ok(())
    }
    fn set_viewport_states(&mut self, start: u32, viewports: &[ViewportState]) -> PipeResult<()> {
        self.end_draw_merge();
        for (i, v) in viewports.iter().enumerate() {
            if let Some(slot) = self.bound.viewports.get_mut(start as usize + i) {
                *slot = *v;
            }
        }
        self.note_viewport_count(start as usize + viewports.len());
        Ok(())
    }
    fn set_window_rectangles(&mut self, include: bool, rects: &[ScissorState]) -> PipeResult<()> {
        self.break_draw_merge();
        self.bound.window_rects = (include, rects.to_vec());
        self.bound.raster_ext_generation = self.bound.raster_ext_generation.wrapping_add(1);
        self.upload_driver_ubo()
    }
    fn set_tess_state(&mut self, state: &TessState) -> PipeResult<()> {
        self.break_draw_merge();
        self.bound.tess = *state;
        Ok(())
    }
    fn set_patch_vertices(&mut self, patch_vertices: u8) -> PipeResult<()> {
        self.break_draw_merge();
        self.bound.patch_vertices = patch_vertices;
        Ok(())
    }
    fn set_debug_callback(&mut self, callback: Option<DebugCallback>) -> PipeResult<()> {
        self.break_draw_merge();
        self.debug_callback = callback;
        Ok(())
    }
    fn set_device_reset_callback(&mut self, callback: Option<ResetCallback>) -> PipeResult<()> {
        self.break_draw_merge();
        self.reset_callback = callback;
        Ok(())
    }
    fn get_device_reset_status(&mut self) -> ResetStatus {
        self.break_draw_merge();
        ResetStatus::NoReset
    }
    fn evaluate_depth_buffer(&mut self) -> PipeResult<()> {
        self.break_draw_merge();
        // Vulkan has no depth compression state visible to us: nothing to do.
        Ok(())
    }
    fn flush(&mut self, flags: FlushFlags, want_fence: bool) -> PipeResult<Option<Fence>> {
        self.break_draw_merge();
        let cell = if flags.contains(FlushFlags::DEFERRED) && self.batches.has_work() {
            // A fence without a submit: filled when this context flushes.
            Some(self.batches.deferred_fence())
        } else {
            let value = self.flush_internal()?;
            want_fence.then(|| Arc::new(std::sync::Mutex::new(Some(value))))
        };
        Ok(match (want_fence, cell) {
            (true, Some(cell)) => Some(crate::fence::new_fence(self.dev(), self.id, cell)),
            _ => None,
        })
    }
    fn get_compute_state_info(&mut self, handle: ComputeHandle) -> PipeResult<ComputeStateInfo> {
        self.break_draw_merge();
        self.compute.get(handle)?;
        let caps = pipe_core::Screen::caps(&*self.screen);
        Ok(ComputeStateInfo {
            max_threads: caps.max_threads_per_block,
            preferred_simd_size: caps.subgroup_size,
            simd_sizes: caps.subgroup_sizes,
            private_memory: 0,
        })
    }
    fn get_compute_state_subgroup_size(
        &mut self,
        handle: ComputeHandle,
        _block: [u32; 3],
    ) -> PipeResult<u32> {
        self.break_draw_merge();
        self.compute.get(handle)?;
        Ok(pipe_core::Screen::caps(&*self.screen).subgroup_size)
    }

    fn transfer_map(
        &mut self,
        resource: &Resource,
        level: u32,
        usage: MapFlags,
        bx: &PipeBox,
    ) -> PipeResult<Transfer> {
        self.break_draw_merge();
        self.do_transfer_map(resource, level, usage, bx)
    }
    fn transfer_unmap(&mut self, transfer: Transfer) -> PipeResult<()> {
        self.break_draw_merge();
        self.do_transfer_unmap(transfer)
    }
    fn transfer_flush_region(&mut self, transfer: &mut Transfer, bx: &PipeBox) -> PipeResult<()> {
        self.break_draw_merge();
        self.do_transfer_flush_region(transfer, bx)
    }
    fn buffer_subdata(
        &mut self,
        resource: &Resource,
        usage: MapFlags,
        offset: u32,
        data: &[u8],
    ) -> PipeResult<()> {
        self.break_draw_merge();
        self.do_buffer_subdata(resource, usage, offset, data)
    }
    fn texture_subdata(
        &mut self,
        resource: &Resource,
        level: u32,
        usage: MapFlags,
        bx: &PipeBox,
        data: &[u8],
        stride: usize,
        layer_stride: usize,
    ) -> PipeResult<()> {
        self.break_draw_merge();
        self.do_texture_subdata(resource, level, usage, bx, data, stride, layer_stride)
    }
    fn resource_copy_region(
        &mut self,
        dst: &Resource,
        dst_level: u32,
        dstx: u32,
        dsty: u32,
        dstz: u32,
        src: &Resource,
        src_level: u32,
        src_box: &PipeBox,
    ) -> PipeResult<()> {
        self.break_draw_merge();
        self.do_resource_copy_region(dst, dst_level, [dstx, dsty, dstz], src, src_level, src_box)
    }
    fn clear_buffer(
        &mut self,
        resource: &Resource,
        offset: u32,
        size: u32,
        value: &[u8],
    ) -> PipeResult<()> {
        self.break_draw_merge();
        self.do_clear_buffer(resource, offset, size, value)
    }
    fn clear_texture(
        &mut self,
        resource: &Resource,
        level: u32,
        bx: &PipeBox,
        data: &[u8],
    ) -> PipeResult<()> {
        self.break_draw_merge();
        self.do_clear_texture(resource, level, bx, data)
    }
    fn create_sampler_view(
        &mut self,
        texture: &Resource,
        template: &SamplerViewTemplate,
    ) -> PipeResult<SamplerView> {
        self.break_draw_merge();
        crate::view::create_sampler_view(texture, template)
    }
    fn sampler_view_destroy(&mut self, view: SamplerView) -> PipeResult<()> {
        self.break_draw_merge();
        drop(view);
        Ok(())
    }
    fn create_surface(
        &mut self,
        texture: &Resource,
        template: &SurfaceTemplate,
    ) -> PipeResult<Surface> {
        self.break_draw_merge();
        crate::view::create_surface(texture, template)
    }
    fn surface_destroy(&mut self, surface: Surface) -> PipeResult<()> {
        self.break_draw_merge();
        drop(surface);
        Ok(())
    }
    fn clear(
        &mut self,
        buffers: ClearFlags,
        scissor: Option<&ScissorState>,
        color: &ColorUnion,
        depth: f64,
        stencil: u32,
    ) -> PipeResult<()> {
        self.break_draw_merge();
        self.do_clear(buffers, scissor, color, depth, stencil)
    }
    fn clear_render_target(
        &mut self,
        dst: &Surface,
        color: &ColorUnion,
        dstx: u32,
        dsty: u32,
        width: u32,
        height: u32,
        render_condition_enabled: bool,
    ) -> PipeResult<()> {
        self.break_draw_merge();
        let v = crate::clear::PendingClear {
            color: color.u32(),
            depth: 0.0,
            stencil: 0,
            aspect: vk::ImageAspectFlags::COLOR,
        };
        self.clear_surface(
            dst,
            v,
            Some((dstx, dsty, width, height)),
            render_condition_enabled && self.render_condition_set(),
        )
    }
    fn clear_depth_stencil(
        &mut self,
        dst: &Surface,
        flags: ClearFlags,
        depth: f64,
        stencil: u32,
        dstx: u32,
        dsty: u32,
        width: u32,
        height: u32,
        render_condition_enabled: bool,
    ) -> PipeResult<()> {
        self.break_draw_merge();
        let s = crate::view::vk_surface(dst)?;
        let mut aspect = vk::ImageAspectFlags::empty();
        if flags.contains(ClearFlags::DEPTH) {
            aspect |= s.aspect & vk::ImageAspectFlags::DEPTH;
        }
        if flags.contains(ClearFlags::STENCIL) {
            aspect |= s.aspect & vk::ImageAspectFlags::STENCIL;
        }
        let v = crate::clear::PendingClear {
            color: [0; 4],
            depth: depth as f32,
            stencil: stencil & 0xff,
            aspect,
        };
        self.clear_surface(
            dst,
            v,
            Some((dstx, dsty, width, height)),
            render_condition_enabled && self.render_condition_set(),
        )
    }
    fn upload_alloc(
        &mut self,
        uploader: Uploader,
        size: u32,
        alignment: u32,
    ) -> PipeResult<UploadAllocation> {
        self.break_draw_merge();
        self.do_upload_alloc(uploader, size, alignment)
    }
    fn upload_data(
        &mut self,
        uploader: Uploader,
        data: &[u8],
        alignment: u32,
    ) -> PipeResult<(Resource, u32)> {
        self.break_draw_merge();
        self.do_upload_data(uploader, data, alignment)
    }
    fn upload_unmap(&mut self, _uploader: Uploader) -> PipeResult<()> {
        self.break_draw_merge();
        // The upload buffers stay persistently mapped (see `upload`).
        Ok(())
    }
    fn set_constant_buffer(
        &mut self,
        stage: ShaderStage,
        index: u32,
        buffer: Option<ConstantBuffer<'_>>,
    ) -> PipeResult<()> {
        self.break_draw_merge();
        self.do_set_constant_buffer(stage, index, buffer)
    }
    fn draw_vbo(
        &mut self,
        info: &DrawInfo<'_>,
        drawid_offset: u32,
        indirect: Option<&DrawIndirectInfo>,
        draws: &[DrawStartCountBias],
    ) -> PipeResult<()> {
        self.draw_vbo_merging(info, drawid_offset, indirect, draws)
    }
    fn set_sampler_views(
        &mut self,
        stage: ShaderStage,
        start: u32,
        views: &[Option<SamplerView>],
        unbind_trailing: u32,
    ) -> PipeResult<()> {
        self.break_draw_merge();
        for v in views.iter().flatten() {
            v.backend_or_err::<crate::view::VkSamplerView>("sampler view")?;
        }
        let slots = &mut self.views[stage.index()];
        let start = start as usize;
        for (i, v) in views.iter().enumerate() {
            if let Some(slot) = slots.get_mut(start + i) {
                *slot = v.clone();
            }
        }
        for i in 0..unbind_trailing as usize {
            if let Some(slot) = slots.get_mut(start + views.len() + i) {
                *slot = None;
            }
        }
        Ok(())
    }
    fn set_shader_buffers(
        &mut self,
        stage: ShaderStage,
        start: u32,
        buffers: &[Option<ShaderBuffer>],
        writable_bitmask: u32,
    ) -> PipeResult<()> {
        self.break_draw_merge();
        for b in buffers.iter().flatten() {
            crate::resource::vk_resource(&b.buffer)?;
        }
        let slots = &mut self.shader_buffers[stage.index()];
        for (i, b) in buffers.iter().enumerate() {
            if let Some(slot) = slots.get_mut(start as usize + i) {
                *slot = b.clone();
            }
        }
        let range = if buffers.len() >= 32 {
            u32::MAX
        } else {
            ((1u32 << buffers.len()) - 1) << start.min(31)
        };
        let w = &mut self.shader_buffers_writable[stage.index()];
        *w = (*w & !range) | (writable_bitmask.checked_shl(start).unwrap_or(0) & range);
        Ok(())
    }
    fn set_shader_images(
        &mut self,
        stage: ShaderStage,
        start: u32,
        images: &[Option<ImageView>],
        unbind_trailing: u32,
    ) -> PipeResult<()> {
        self.break_draw_merge();
        for img in images.iter().flatten() {
            crate::resource::vk_resource(&img.resource)?;
        }
        let slots = &mut self.shader_images[stage.index()];
        let start = start as usize;
        for (i, img) in images.iter().enumerate() {
            if let Some(slot) = slots.get_mut(start + i) {
                *slot = img.clone();
            }
        }
        for i in 0..unbind_trailing as usize {
            if let Some(slot) = slots.get_mut(start + images.len() + i) {
                *slot = None;
            }
        }
        Ok(())
    }
    fn launch_grid(&mut self, info: &GridInfo) -> PipeResult<()> {
        self.break_draw_merge();
        self.do_launch_grid(info)
    }
    fn set_global_binding(
        &mut self,
        first: u32,
        resources: &[Option<Resource>],
    ) -> PipeResult<Vec<u64>> {
        self.break_draw_merge();
        self.do_set_global_binding(first, resources)
    }
    fn blit(&mut self, info: &BlitInfo) -> PipeResult<()> {
        self.break_draw_merge();
        self.do_blit(info)
    }
    fn generate_mipmap(
        &mut self,
        resource: &Resource,
        format: Format,
        base_level: u32,
        last_level: u32,
        first_layer: u32,
        last_layer: u32,
    ) -> PipeResult<bool> {
        self.break_draw_merge();
        self.do_generate_mipmap(
            resource,
            format,
            base_level,
            last_level,
            first_layer,
            last_layer,
        )
    }
    fn flush_resource(&mut self, resource: &Resource) -> PipeResult<()> {
        self.break_draw_merge();
        // Nothing is shared with other processes yet; validate the object.
        crate::resource::vk_resource(resource).map(drop)
    }
    fn is_resource_referenced(
        &mut self,
        resource: &Resource,
        _level: u32,
        _layer: u32,
    ) -> PipeResult<ReferenceFlags> {
        self.break_draw_merge();
        let obj = crate::resource::vk_resource(resource)?.obj();
        let u = obj.usage();
        Ok(match u.unflushed.iter().find(|(c, _)| *c == self.id) {
            Some((_, true)) => ReferenceFlags::READ | ReferenceFlags::WRITE,
            Some((_, false)) => ReferenceFlags::READ,
            None => ReferenceFlags::empty(),
        })
    }
    fn fence_server_sync(&mut self, fence: &Fence) -> PipeResult<()> {
        self.break_draw_merge();
        // The earliest submitted signal (see `crate::fence`). With none,
        // a signal this context holds is flushed first (the spec allows
        // implicit flushes here): the wait then follows it on the queue.
        let reusable = fence.desc().reusable;
        let submitted = |fence: &Fence| {
            if reusable {
                // Takes the signal: the fence is unsignalled again.
                crate::fence::take_signal(fence)
            } else {
                crate::fence::fence_value(fence)
            }
        };
        let mut value = submitted(fence)?;
        if value.is_none() && crate::fence::holds_unflushed(fence, self.id)? {
            self.flush_internal()?;
            value = submitted(fence)?;
        }
        let Some(value) = value else {
            return Err(PipeError::invalid(if reusable {
                "fence_server_sync: the re-usable fence has no submitted signal (none queued, \
                 or only in other contexts' unflushed batches: the spec needs the signalling \
                 context's flush first, and on one queue a wait submitted ahead of its signal \
                 would never finish)"
            } else {
                "fence_server_sync: the fence's context has not flushed it yet"
            }));
        };
        if value > 0 {
            self.batches.wait_for(value);
        }
        Ok(())
    }
    fn fence_server_signal(&mut self, fence: &Fence) -> PipeResult<()> {
        self.break_draw_merge();
        // A re-usable fence queues one more signal, carried by this
        // context's next submission. A one-shot fence that has signalled
        // stays signalled (spec); one not submitted yet is also signalled
        // by this context's next submission.
        if let Some(cell) = crate::fence::add_signal(fence, self.id)? {
            self.batches.signal_on_submit(cell);
        }
        Ok(())
    }
    fn render_condition_mem(
        &mut self,
        buffer: Option<&Resource>,
        offset: u32,
        condition: bool,
    ) -> PipeResult<()> {
        self.break_draw_merge();
        self.do_render_condition_mem(buffer, offset, condition)
    }
    fn set_active_query_state(&mut self, enable: bool) -> PipeResult<()> {
        self.break_draw_merge();
        self.do_set_active_query_state(enable);
        Ok(())
    }
    fn create_query(&mut self, query_type: QueryType, index: u32) -> PipeResult<Query> {
        self.break_draw_merge();
        self.do_create_query(query_type, index)
    }
    fn destroy_query(&mut self, query: Query) -> PipeResult<()> {
        self.break_draw_merge();
        self.do_destroy_query(query)
    }
    fn begin_query(&mut self, query: &Query) -> PipeResult<()> {
        self.break_draw_merge();
        self.do_begin_query(query)
    }
    fn end_query(&mut self, query: &Query) -> PipeResult<()> {
        self.break_draw_merge();
        self.do_end_query(query)
    }
    fn get_query_result(&mut self, query: &Query, wait: bool) -> PipeResult<Option<QueryResult>> {
        self.break_draw_merge();
        self.do_get_query_result(query, wait)
    }
    fn get_query_result_resource(
        &mut self,
        query: &Query,
        flags: QueryFlags,
        result_type: QueryValueType,
        index: QueryResultIndex,
        resource: &Resource,
        offset: u32,
    ) -> PipeResult<()> {
        self.break_draw_merge();
        self.do_get_query_result_resource(query, flags, result_type, index, resource, offset)
    }
    fn render_condition(
        &mut self,
        query: Option<&Query>,
        condition: bool,
        mode: RenderCondMode,
    ) -> PipeResult<()> {
        self.break_draw_merge();
        match query {
            // No query: rendering is unconditional again, whichever call
            // set the condition (as render_condition_mem with none).
            None => self.do_render_condition_mem(None, 0, false),
            Some(q) => self.do_render_condition_query(q, condition, mode),
        }
    }
    fn texture_barrier(&mut self, _flags: TextureBarrierFlags) -> PipeResult<()> {
        self.break_draw_merge();
        // Accesses are tracked per resource, so the next draw's reads of a
        // written surface already get their barrier.
        Ok(())
    }
    fn memory_barrier(&mut self, _flags: BarrierFlags) -> PipeResult<()> {
        self.break_draw_merge();
        // Per-resource tracking covers GPU-GPU hazards, shader buffer and
        // image stores of draws and dispatches included: the next command
        // that touches a written resource gets its barrier (a draw ends
        // the rendering instance for it), which is what Zink's
        // memory_barrier records by hand. MAPPED_BUFFER: host
        // writes to persistent maps become visible at the next submission,
        // which every GPU use of the buffer is part of; memory is coherent.
        Ok(())
    }

    fn create_stream_output_target(
        &mut self,
        buffer: &Resource,
        buffer_offset: u32,
        buffer_size: u32,
    ) -> PipeResult<StreamOutputTarget> {
        self.break_draw_merge();
        self.do_create_stream_output_target(buffer, buffer_offset, buffer_size)
    }
    fn stream_output_target_destroy(&mut self, target: StreamOutputTarget) -> PipeResult<()> {
        self.break_draw_merge();
        // Bound state and batches hold their own references.
        drop(target);
        Ok(())
    }
    fn set_stream_output_targets(
        &mut self,
        targets: &[Option<StreamOutputTarget>],
        offsets: &[Option<u32>],
    ) -> PipeResult<()> {
        self.break_draw_merge();
        self.do_set_stream_output_targets(targets, offsets)
    }
    fn stream_output_target_offset(&mut self, target: &StreamOutputTarget) -> PipeResult<u32> {
        self.break_draw_merge();
        self.do_stream_output_target_offset(target)
    }

    unsupported! {
        set_hw_atomic_buffers(start: u32, buffers: &[Option<ShaderBuffer>]) -> () = "there are no \
            hardware atomic counters, as in Zink; GL atomic counters are lowered to shader buffers";
        resource_commit(resource: &Resource, level: u32, bx: &PipeBox, commit: bool) -> () =
            "sparse resources are not implemented (they are refused at creation)";
        set_compute_resources(start: u32, surfaces: &[Option<Surface>]) -> () = "it is the legacy \
            compute interface; use set_shader_images and set_shader_buffers";
        create_texture_handle(view: &SamplerView, sampler: &SamplerState) -> u64 = BINDLESS;
        delete_texture_handle(handle: u64) -> () = BINDLESS;
        make_texture_handle_resident(handle: u64, resident: bool) -> () = BINDLESS;
        create_image_handle(image: &ImageView) -> u64 = BINDLESS;
        delete_image_handle(handle: u64) -> () = BINDLESS;
        make_image_handle_resident(handle: u64, access: ImageAccess, resident: bool) -> () = BINDLESS;
    }
}

impl Drop for VkContext {
    fn drop(&mut self) {
        // Context destruction flushes (as Gallium drivers do) and waits, so
        // that pipelines and modules can go.
        self.end_rendering();
        // Vulkan queries must not outlive their command buffer.
        self.suspend_queries();
        if let Err(e) = self.batches.finish() {
            tracing::error!("flush at context destruction failed: {e}");
        }
        let dev = self.screen.shared().clone();
        self.modules.destroy(dev.raw());
        self.pipelines.destroy(dev.raw());
        self.compute_state.destroy(dev.raw());
        self.gfx_descriptors.destroy(dev.raw());
        for (_, s) in self.vk_samplers.drain() {
            // SAFETY: the context's batches finished above.
            unsafe { dev.raw().destroy_sampler(s, None) };
        }
        if let Some((_, s)) = self.dummy_texture.take() {
            // SAFETY: as above.
            unsafe { dev.raw().destroy_sampler(s, None) };
        }
    }
}
