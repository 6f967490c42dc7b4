//! The pipe context trait: `struct pipe_context`, method by method.
//!
//! Every method of `spec/gallium-context.rst` is here, in the spec's order,
//! with a doc comment naming its section. The trait is object safe so that
//! wrappers (the validation layer in [`crate::validate`], a trace recorder,
//! the no-op driver in [`crate::noop`]) implement it around a
//! `Box<dyn Context>`, as Gallium's trace/noop/ddebug drivers do. It has no
//! default methods on purpose: a wrapper that forgot a method must not compile.
//!
//! Conventions:
//! - Rust names drop the `pipe_` prefix; CSO triplets keep Gallium's names.
//! - Optional behaviour a driver lacks returns `PipeError::Unsupported`
//!   (where Gallium would leave a NULL function pointer).
//! - References move: passing a `Resource`/view by value hands the binding
//!   that reference (Gallium's `take_ownership`); slices of `Option<_>` bind
//!   and unbind ranges of slots.

use crate::blit::BlitInfo;
use crate::cso::{
    BlendHandle, ComputeHandle, DepthStencilAlphaHandle, RasterizerHandle, SamplerHandle,
    ShaderHandle, VertexElementsHandle,
};
use crate::draw::{DrawIndirectInfo, DrawInfo, DrawStartCountBias};
use crate::error::PipeResult;
use crate::flags::{
    BarrierFlags, ClearFlags, FlushFlags, MapFlags, ReferenceFlags, TextureBarrierFlags,
};
use crate::format::Format;
use crate::query::{
    Query, QueryFlags, QueryResult, QueryResultIndex, QueryType, QueryValueType, RenderCondMode,
};
use crate::resource::{PipeBox, Resource};
use crate::screen::{Fence, ResetStatus};
use crate::shader::{ComputeState, ComputeStateInfo, GridInfo, ShaderState};
use crate::state::{
    BlendColor, BlendState, ClipState, ColorUnion, ConstantBuffer, DebugCallback,
    DepthStencilAlphaState, FramebufferState, ImageView, PolyStipple, RasterizerState,
    SamplerState, ScissorState, ShaderBuffer, ShaderStage, StencilRef, TessState, VertexBuffer,
    VertexElement, ViewportState,
};
use crate::transfer::{Transfer, UploadAllocation, Uploader};
use crate::view::{SamplerView, SamplerViewTemplate, StreamOutputTarget, Surface, SurfaceTemplate};

/// Callback for device resets (`struct pipe_device_reset_callback`).
pub type ResetCallback = std::sync::Arc<dyn Fn(ResetStatus) + Send + Sync>;

/// `struct pipe_context`.
pub trait Context: Send {
    /// Identity of the context (unique per screen, non-zero), which fences
    /// record so that `fence_finish` flushes only the context that made a
    /// deferred fence. Wrappers forward the inner context's id.
    fn id(&self) -> u64;

    // ---------------------------------------------------------------------
    // CSO State
    // ---------------------------------------------------------------------

    /// CSO State, Blend: `create_blend_state`. Equal templates give equal
    /// handles.
    fn create_blend_state(&mut self, state: &BlendState) -> PipeResult<BlendHandle>;
    /// CSO State, Blend: `bind_blend_state` (`None` unbinds).
    fn bind_blend_state(&mut self, handle: Option<BlendHandle>) -> PipeResult<()>;
    /// CSO State, Blend: `delete_blend_state`.
    fn delete_blend_state(&mut self, handle: BlendHandle) -> PipeResult<()>;

    /// CSO State, Sampler: `create_sampler_state`.
    fn create_sampler_state(&mut self, state: &SamplerState) -> PipeResult<SamplerHandle>;
    /// CSO State, Sampler: `bind_sampler_states` for one stage, slots
    /// `start..start + samplers.len()`.
    fn bind_sampler_states(
        &mut self,
        stage: ShaderStage,
        start: u32,
        samplers: &[Option<SamplerHandle>],
    ) -> PipeResult<()>;
    /// CSO State, Sampler: `delete_sampler_state`.
    fn delete_sampler_state(&mut self, handle: SamplerHandle) -> PipeResult<()>;

    /// CSO State, Rasterizer: `create_rasterizer_state`.
    fn create_rasterizer_state(&mut self, state: &RasterizerState) -> PipeResult<RasterizerHandle>;
    /// CSO State, Rasterizer: `bind_rasterizer_state`.
    fn bind_rasterizer_state(&mut self, handle: Option<RasterizerHandle>) -> PipeResult<()>;
    /// CSO State, Rasterizer: `delete_rasterizer_state`.
    fn delete_rasterizer_state(&mut self, handle: RasterizerHandle) -> PipeResult<()>;

    /// CSO State, depth-stencil-alpha: `create_depth_stencil_alpha_state`.
    fn create_depth_stencil_alpha_state(
        &mut self,
        state: &DepthStencilAlphaState,
    ) -> PipeResult<DepthStencilAlphaHandle>;
    /// CSO State, depth-stencil-alpha: `bind_depth_stencil_alpha_state`.
    fn bind_depth_stencil_alpha_state(
        &mut self,
        handle: Option<DepthStencilAlphaHandle>,
    ) -> PipeResult<()>;
    /// CSO State, depth-stencil-alpha: `delete_depth_stencil_alpha_state`.
    fn delete_depth_stencil_alpha_state(
        &mut self,
        handle: DepthStencilAlphaHandle,
    ) -> PipeResult<()>;

    /// CSO State, Shader: `create_vs_state`.
    fn create_vs_state(&mut self, state: &ShaderState) -> PipeResult<ShaderHandle>;
    /// CSO State, Shader: `bind_vs_state`.
    fn bind_vs_state(&mut self, handle: Option<ShaderHandle>) -> PipeResult<()>;
    /// CSO State, Shader: `delete_vs_state`.
    fn delete_vs_state(&mut self, handle: ShaderHandle) -> PipeResult<()>;
    /// CSO State, Shader: `create_tcs_state`.
    fn create_tcs_state(&mut self, state: &ShaderState) -> PipeResult<ShaderHandle>;
    /// CSO State, Shader: `bind_tcs_state`.
    fn bind_tcs_state(&mut self, handle: Option<ShaderHandle>) -> PipeResult<()>;
    /// CSO State, Shader: `delete_tcs_state`.
    fn delete_tcs_state(&mut self, handle: ShaderHandle) -> PipeResult<()>;
    /// CSO State, Shader: `create_tes_state`.
    fn create_tes_state(&mut self, state: &ShaderState) -> PipeResult<ShaderHandle>;
    /// CSO State, Shader: `bind_tes_state`.
    fn bind_tes_state(&mut self, handle: Option<ShaderHandle>) -> PipeResult<()>;
    /// CSO State, Shader: `delete_tes_state`.
    fn delete_tes_state(&mut self, handle: ShaderHandle) -> PipeResult<()>;
    /// CSO State, Shader: `create_gs_state`.
    fn create_gs_state(&mut self, state: &ShaderState) -> PipeResult<ShaderHandle>;
    /// CSO State, Shader: `bind_gs_state`.
    fn bind_gs_state(&mut self, handle: Option<ShaderHandle>) -> PipeResult<()>;
    /// CSO State, Shader: `delete_gs_state`.
    fn delete_gs_state(&mut self, handle: ShaderHandle) -> PipeResult<()>;
    /// CSO State, Shader: `create_fs_state`.
    fn create_fs_state(&mut self, state: &ShaderState) -> PipeResult<ShaderHandle>;
    /// CSO State, Shader: `bind_fs_state`.
    fn bind_fs_state(&mut self, handle: Option<ShaderHandle>) -> PipeResult<()>;
    /// CSO State, Shader: `delete_fs_state`.
    fn delete_fs_state(&mut self, handle: ShaderHandle) -> PipeResult<()>;

    /// CSO State, vertexelements: `create_vertex_elements_state`.
    fn create_vertex_elements_state(
        &mut self,
        elements: &[VertexElement],
    ) -> PipeResult<VertexElementsHandle>;
    /// CSO State, vertexelements: `bind_vertex_elements_state`.
    fn bind_vertex_elements_state(
        &mut self,
        handle: Option<VertexElementsHandle>,
    ) -> PipeResult<()>;
    /// CSO State, vertexelements: `delete_vertex_elements_state`.
    fn delete_vertex_elements_state(&mut self, handle: VertexElementsHandle) -> PipeResult<()>;

    // ---------------------------------------------------------------------
    // Resource Binding State
    // ---------------------------------------------------------------------

    /// Resource Binding State: `set_constant_buffer`. `None` unbinds.
    /// Passing the buffer by value is `take_ownership`.
    fn set_constant_buffer(
        &mut self,
        stage: ShaderStage,
        index: u32,
        buffer: Option<ConstantBuffer<'_>>,
    ) -> PipeResult<()>;
    /// Resource Binding State: `set_inlinable_constants` for constant
    /// buffer 0 of `stage`. Invalidated by `set_constant_buffer` and by
    /// binding a shader.
    fn set_inlinable_constants(&mut self, stage: ShaderStage, values: &[u32]) -> PipeResult<()>;
    /// Resource Binding State: `set_framebuffer_state`.
    fn set_framebuffer_state(&mut self, state: &FramebufferState) -> PipeResult<()>;
    /// Resource Binding State: `set_vertex_buffers`: binds `buffers` to
    /// slots `0..buffers.len()` and unbinds the rest.
    fn set_vertex_buffers(&mut self, buffers: &[VertexBuffer]) -> PipeResult<()>;

    // ---------------------------------------------------------------------
    // Non-CSO State
    // ---------------------------------------------------------------------

    /// Non-CSO State: `set_stencil_ref`.
    fn set_stencil_ref(&mut self, stencil_ref: StencilRef) -> PipeResult<()>;
    /// Non-CSO State: `set_blend_color`.
    fn set_blend_color(&mut self, color: &BlendColor) -> PipeResult<()>;
    /// Non-CSO State: `set_sample_mask`.
    fn set_sample_mask(&mut self, mask: u32) -> PipeResult<()>;
    /// Non-CSO State: `set_sample_locations` (`None`: default locations).
    /// Packed 4-bit x/y pairs per sample, per pixel of the grid.
    fn set_sample_locations(&mut self, locations: Option<&[u8]>) -> PipeResult<()>;
    /// Non-CSO State: `set_min_samples`.
    fn set_min_samples(&mut self, min_samples: u32) -> PipeResult<()>;
    /// Non-CSO State: `set_clip_state`.
    fn set_clip_state(&mut self, state: &ClipState) -> PipeResult<()>;
    /// Non-CSO State: `set_polygon_stipple`.
    fn set_polygon_stipple(&mut self, stipple: &PolyStipple) -> PipeResult<()>;
    /// Non-CSO State: `set_scissor_states` for viewports
    /// `start..start + scissors.len()`.
    fn set_scissor_states(&mut self, start: u32, scissors: &[ScissorState]) -> PipeResult<()>;
    /// Non-CSO State: `set_viewport_states`.
    fn set_viewport_states(&mut self, start: u32, viewports: &[ViewportState]) -> PipeResult<()>;
    /// Non-CSO State: `set_window_rectangles` (include or exclude mode).
    fn set_window_rectangles(&mut self, include: bool, rects: &[ScissorState]) -> PipeResult<()>;
    /// Non-CSO State: `set_tess_state` (default tessellation levels).
    fn set_tess_state(&mut self, state: &TessState) -> PipeResult<()>;
    /// Non-CSO State: `set_patch_vertices`.
    fn set_patch_vertices(&mut self, patch_vertices: u8) -> PipeResult<()>;
    /// Non-CSO State: `set_debug_callback` (`None` removes it).
    fn set_debug_callback(&mut self, callback: Option<DebugCallback>) -> PipeResult<()>;

    // ---------------------------------------------------------------------
    // Sampler Views
    // ---------------------------------------------------------------------

    /// Sampler Views: `set_sampler_views`: slots `start..start + views.len()`
    /// take the given views (`None` releases), and the next
    /// `unbind_trailing` slots are released too.
    fn set_sampler_views(
        &mut self,
        stage: ShaderStage,
        start: u32,
        views: &[Option<SamplerView>],
        unbind_trailing: u32,
    ) -> PipeResult<()>;
    /// Sampler Views: `create_sampler_view`; the format must be compatible
    /// with the texture's.
    fn create_sampler_view(
        &mut self,
        texture: &Resource,
        template: &SamplerViewTemplate,
    ) -> PipeResult<SamplerView>;
    /// Sampler Views: `sampler_view_destroy` (drops this reference).
    fn sampler_view_destroy(&mut self, view: SamplerView) -> PipeResult<()>;

    // ---------------------------------------------------------------------
    // Hardware Atomic buffers and Shader Resources
    // ---------------------------------------------------------------------

    /// Hardware Atomic buffers: `set_hw_atomic_buffers`.
    fn set_hw_atomic_buffers(
        &mut self,
        start: u32,
        buffers: &[Option<ShaderBuffer>],
    ) -> PipeResult<()>;
    /// Shader Resources: `set_shader_buffers`; bit i of `writable_bitmask`
    /// marks `buffers[i]` as written by the shader.
    fn set_shader_buffers(
        &mut self,
        stage: ShaderStage,
        start: u32,
        buffers: &[Option<ShaderBuffer>],
        writable_bitmask: u32,
    ) -> PipeResult<()>;
    /// Shader Resources: `set_shader_images`.
    fn set_shader_images(
        &mut self,
        stage: ShaderStage,
        start: u32,
        images: &[Option<ImageView>],
        unbind_trailing: u32,
    ) -> PipeResult<()>;

    // ---------------------------------------------------------------------
    // Surfaces and Stream output targets
    // ---------------------------------------------------------------------

    /// Surfaces: `create_surface`.
    fn create_surface(
        &mut self,
        texture: &Resource,
        template: &SurfaceTemplate,
    ) -> PipeResult<Surface>;
    /// Surfaces: `surface_destroy`.
    fn surface_destroy(&mut self, surface: Surface) -> PipeResult<()>;

    /// Stream output targets: `create_stream_output_target`.
    fn create_stream_output_target(
        &mut self,
        buffer: &Resource,
        buffer_offset: u32,
        buffer_size: u32,
    ) -> PipeResult<StreamOutputTarget>;
    /// Stream output targets: `stream_output_target_destroy`.
    fn stream_output_target_destroy(&mut self, target: StreamOutputTarget) -> PipeResult<()>;
    /// Stream output targets: `set_stream_output_targets`. `offsets[i]` is
    /// the internal offset to set, or `None` to append (Gallium's -1).
    fn set_stream_output_targets(
        &mut self,
        targets: &[Option<StreamOutputTarget>],
        offsets: &[Option<u32>],
    ) -> PipeResult<()>;
    /// Stream output targets: `stream_output_target_offset`.
    fn stream_output_target_offset(&mut self, target: &StreamOutputTarget) -> PipeResult<u32>;

    // ---------------------------------------------------------------------
    // Clearing
    // ---------------------------------------------------------------------

    /// Clearing: `clear` of bound framebuffer buffers, honouring the render
    /// condition. `scissor` limits the region when given.
    fn clear(
        &mut self,
        buffers: ClearFlags,
        scissor: Option<&ScissorState>,
        color: &ColorUnion,
        depth: f64,
        stencil: u32,
    ) -> PipeResult<()>;
    /// Clearing: `clear_render_target`.
    #[allow(clippy::too_many_arguments)]
    fn clear_render_target(
        &mut self,
        dst: &Surface,
        color: &ColorUnion,
        dstx: u32,
        dsty: u32,
        width: u32,
        height: u32,
        render_condition_enabled: bool,
    ) -> PipeResult<()>;
    /// Clearing: `clear_depth_stencil` (`flags` selects depth and/or stencil).
    #[allow(clippy::too_many_arguments)]
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
    ) -> PipeResult<()>;
    /// Clearing: `clear_texture` with one texel in the resource's format.
    fn clear_texture(
        &mut self,
        resource: &Resource,
        level: u32,
        bx: &PipeBox,
        data: &[u8],
    ) -> PipeResult<()>;
    /// Clearing: `clear_buffer`: a memset with a multi-byte value;
    /// `size % value.len() == 0`.
    fn clear_buffer(
        &mut self,
        resource: &Resource,
        offset: u32,
        size: u32,
        value: &[u8],
    ) -> PipeResult<()>;

    /// Evaluating Depth Buffers: `evaluate_depth_buffer`.
    fn evaluate_depth_buffer(&mut self) -> PipeResult<()>;

    // ---------------------------------------------------------------------
    // Uploading
    // ---------------------------------------------------------------------

    /// Uploading: `u_upload_alloc` on the stream or const uploader.
    fn upload_alloc(
        &mut self,
        uploader: Uploader,
        size: u32,
        alignment: u32,
    ) -> PipeResult<UploadAllocation>;
    /// Uploading: `u_upload_data`; returns the buffer and offset.
    fn upload_data(
        &mut self,
        uploader: Uploader,
        data: &[u8],
        alignment: u32,
    ) -> PipeResult<(Resource, u32)>;
    /// Uploading: `u_upload_unmap`.
    fn upload_unmap(&mut self, uploader: Uploader) -> PipeResult<()>;

    // ---------------------------------------------------------------------
    // Drawing
    // ---------------------------------------------------------------------

    /// Drawing: `draw_vbo`. `draws` holds one start/count/bias per draw
    /// (multi-draw); `drawid_offset` is added to the draw id.
    fn draw_vbo(
        &mut self,
        info: &DrawInfo<'_>,
        drawid_offset: u32,
        indirect: Option<&DrawIndirectInfo>,
        draws: &[DrawStartCountBias],
    ) -> PipeResult<()>;

    // ---------------------------------------------------------------------
    // Queries
    // ---------------------------------------------------------------------

    /// Queries: `create_query`. `index` is the vertex stream, or the
    /// counter for `PipelineStatisticsSingle`.
    fn create_query(&mut self, query_type: QueryType, index: u32) -> PipeResult<Query>;
    /// Queries: `destroy_query`.
    fn destroy_query(&mut self, query: Query) -> PipeResult<()>;
    /// Queries: `begin_query` (resets previous results).
    fn begin_query(&mut self, query: &Query) -> PipeResult<()>;
    /// Queries: `end_query`.
    fn end_query(&mut self, query: &Query) -> PipeResult<()>;
    /// Queries: `get_query_result`. With `wait`, blocks until ready; without,
    /// returns `Ok(None)` when the result is not ready yet.
    fn get_query_result(&mut self, query: &Query, wait: bool) -> PipeResult<Option<QueryResult>>;
    /// Queries: `get_query_result_resource`: writes the result (or its
    /// availability) into a buffer without a CPU round trip.
    fn get_query_result_resource(
        &mut self,
        query: &Query,
        flags: QueryFlags,
        result_type: QueryValueType,
        index: QueryResultIndex,
        resource: &Resource,
        offset: u32,
    ) -> PipeResult<()>;
    /// Queries: `set_active_query_state`: pause or resume all non-driver
    /// queries except TIME_ELAPSED.
    fn set_active_query_state(&mut self, enable: bool) -> PipeResult<()>;

    // ---------------------------------------------------------------------
    // Conditional Rendering
    // ---------------------------------------------------------------------

    /// Conditional Rendering: `render_condition`. Drawing is skipped when the
    /// predicate equals `condition`; `None` disables.
    fn render_condition(
        &mut self,
        query: Option<&Query>,
        condition: bool,
        mode: RenderCondMode,
    ) -> PipeResult<()>;
    /// Conditional Rendering: `render_condition_mem` on a 32-bit value.
    fn render_condition_mem(
        &mut self,
        buffer: Option<&Resource>,
        offset: u32,
        condition: bool,
    ) -> PipeResult<()>;

    // ---------------------------------------------------------------------
    // Flushing, Fences, Resource Busy Queries
    // ---------------------------------------------------------------------

    /// Flushing: `flush`. Returns a fence when `want_fence` is set.
    fn flush(&mut self, flags: FlushFlags, want_fence: bool) -> PipeResult<Option<Fence>>;
    /// Flushing: `flush_resource` before external use.
    fn flush_resource(&mut self, resource: &Resource) -> PipeResult<()>;
    /// Fences: `fence_server_sync`: the GPU waits for `fence` before this
    /// context's next submission runs; on a re-usable fence, the wait takes
    /// (resets) one signal. May flush this context when it holds the
    /// signal to wait for (the spec allows it).
    fn fence_server_sync(&mut self, fence: &Fence) -> PipeResult<()>;
    /// Fences: `fence_server_signal`: the GPU signals `fence` when this
    /// context's current work is submitted (an explicit `flush` emits it).
    fn fence_server_signal(&mut self, fence: &Fence) -> PipeResult<()>;
    /// Resource Busy Queries: `is_resource_referenced` by unflushed work of
    /// this context.
    fn is_resource_referenced(
        &mut self,
        resource: &Resource,
        level: u32,
        layer: u32,
    ) -> PipeResult<ReferenceFlags>;

    // ---------------------------------------------------------------------
    // Blitting
    // ---------------------------------------------------------------------

    /// Blitting: `resource_copy_region` (a memcpy between compatible formats;
    /// no overlap).
    #[allow(clippy::too_many_arguments)]
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
    ) -> PipeResult<()>;
    /// Blitting: `blit` with scaling, conversion, resolve, scissor and
    /// window rectangles.
    fn blit(&mut self, info: &BlitInfo) -> PipeResult<()>;

    // ---------------------------------------------------------------------
    // Transfers
    // ---------------------------------------------------------------------

    /// Transfers: `transfer_map` (`buffer_map`/`texture_map`).
    fn transfer_map(
        &mut self,
        resource: &Resource,
        level: u32,
        usage: MapFlags,
        bx: &PipeBox,
    ) -> PipeResult<Transfer>;
    /// Transfers: `transfer_unmap`.
    fn transfer_unmap(&mut self, transfer: Transfer) -> PipeResult<()>;
    /// transfer_flush_region: range relative to the mapped box.
    fn transfer_flush_region(&mut self, transfer: &mut Transfer, bx: &PipeBox) -> PipeResult<()>;
    /// Transfers: `buffer_subdata`.
    fn buffer_subdata(
        &mut self,
        resource: &Resource,
        usage: MapFlags,
        offset: u32,
        data: &[u8],
    ) -> PipeResult<()>;
    /// Transfers: `texture_subdata`; `stride`/`layer_stride` describe `data`.
    #[allow(clippy::too_many_arguments)]
    fn texture_subdata(
        &mut self,
        resource: &Resource,
        level: u32,
        usage: MapFlags,
        bx: &PipeBox,
        data: &[u8],
        stride: usize,
        layer_stride: usize,
    ) -> PipeResult<()>;

    // ---------------------------------------------------------------------
    // Barriers and sparse
    // ---------------------------------------------------------------------

    /// texture_barrier.
    fn texture_barrier(&mut self, flags: TextureBarrierFlags) -> PipeResult<()>;
    /// memory_barrier.
    fn memory_barrier(&mut self, flags: BarrierFlags) -> PipeResult<()>;
    /// resource_commit: commit or uncommit a region of a sparse resource.
    fn resource_commit(
        &mut self,
        resource: &Resource,
        level: u32,
        bx: &PipeBox,
        commit: bool,
    ) -> PipeResult<()>;

    // ---------------------------------------------------------------------
    // Compute kernel execution and queries
    // ---------------------------------------------------------------------

    /// Compute kernel execution: `create_compute_state`.
    fn create_compute_state(&mut self, state: &ComputeState) -> PipeResult<ComputeHandle>;
    /// Compute kernel execution: `bind_compute_state`.
    fn bind_compute_state(&mut self, handle: Option<ComputeHandle>) -> PipeResult<()>;
    /// Compute kernel execution: `delete_compute_state`.
    fn delete_compute_state(&mut self, handle: ComputeHandle) -> PipeResult<()>;
    /// Compute kernel execution: `launch_grid`.
    fn launch_grid(&mut self, info: &GridInfo) -> PipeResult<()>;
    /// Compute kernel execution: `set_global_binding`: maps buffers into the
    /// GLOBAL space; returns their device addresses.
    fn set_global_binding(
        &mut self,
        first: u32,
        resources: &[Option<Resource>],
    ) -> PipeResult<Vec<u64>>;
    /// Compute kernel execution: `set_compute_resources`.
    fn set_compute_resources(&mut self, start: u32, surfaces: &[Option<Surface>])
        -> PipeResult<()>;
    /// get_compute_state_info.
    fn get_compute_state_info(&mut self, handle: ComputeHandle) -> PipeResult<ComputeStateInfo>;
    /// get_compute_state_subgroup_size for a block size.
    fn get_compute_state_subgroup_size(
        &mut self,
        handle: ComputeHandle,
        block: [u32; 3],
    ) -> PipeResult<u32>;

    // ---------------------------------------------------------------------
    // Mipmap generation, device resets, bindless
    // ---------------------------------------------------------------------

    /// Mipmap generation: `generate_mipmap`. `Ok(false)` when the driver
    /// cannot do it for this format/target (the frontend falls back).
    #[allow(clippy::too_many_arguments)]
    fn generate_mipmap(
        &mut self,
        resource: &Resource,
        format: Format,
        base_level: u32,
        last_level: u32,
        first_layer: u32,
        last_layer: u32,
    ) -> PipeResult<bool>;

    /// Device resets: `get_device_reset_status` (single-shot).
    fn get_device_reset_status(&mut self) -> ResetStatus;
    /// Device resets: `set_device_reset_callback`.
    fn set_device_reset_callback(&mut self, callback: Option<ResetCallback>) -> PipeResult<()>;

    /// Bindless: `create_texture_handle`.
    fn create_texture_handle(
        &mut self,
        view: &SamplerView,
        sampler: &SamplerState,
    ) -> PipeResult<u64>;
    /// Bindless: `delete_texture_handle`.
    fn delete_texture_handle(&mut self, handle: u64) -> PipeResult<()>;
    /// Bindless: `make_texture_handle_resident`.
    fn make_texture_handle_resident(&mut self, handle: u64, resident: bool) -> PipeResult<()>;
    /// Bindless: `create_image_handle`.
    fn create_image_handle(&mut self, image: &ImageView) -> PipeResult<u64>;
    /// Bindless: `delete_image_handle`.
    fn delete_image_handle(&mut self, handle: u64) -> PipeResult<()>;
    /// Bindless: `make_image_handle_resident` with the access it will get.
    fn make_image_handle_resident(
        &mut self,
        handle: u64,
        access: crate::state::ImageAccess,
        resident: bool,
    ) -> PipeResult<()>;
}
