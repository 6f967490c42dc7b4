//! The no-op driver, after Gallium's `noop` driver.
//!
//! It accepts every call and draws nothing. CSO handles are real (the
//! hash-consing [`CsoTable`]s), objects are real [`Object`]s, transfers hand
//! out zeroed scratch memory, fences are always signalled. It serves three
//! purposes: it shows that the traits can be implemented and wrapped without
//! a GPU; it is the inner driver of the validation tests, which count the
//! calls that reached it ([`NoopScreen::calls`]) to prove that rejected input
//! never gets through; and it is a baseline for CPU-overhead measurements of
//! the layers above a driver.

use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::blit::BlitInfo;
use crate::caps::{Caps, DeviceType, ShaderCaps};
use crate::context::{Context, ResetCallback};
use crate::cso::{
    BlendHandle, ComputeHandle, CsoTable, DepthStencilAlphaHandle, RasterizerHandle, SamplerHandle,
    ShaderHandle, VertexElementsHandle,
};
use crate::draw::{DrawIndirectInfo, DrawInfo, DrawStartCountBias};
use crate::error::{PipeError, PipeResult};
use crate::flags::{
    BarrierFlags, ClearFlags, FlushFlags, MapFlags, ReferenceFlags, TextureBarrierFlags,
};
use crate::format::Format;
use crate::object::Object;
use crate::query::{
    PipelineStatistics, Query, QueryDesc, QueryFlags, QueryResult, QueryResultIndex, QueryType,
    QueryValueType, RenderCondMode,
};
use crate::resource::{BindFlags, PipeBox, Resource, ResourceTemplate, Target};
use crate::screen::{Fence, FenceDesc, ResetStatus, Screen, SparsePageSize};
use crate::shader::{ComputeState, ComputeStateInfo, GridInfo, ShaderState};
use crate::state::*;
use crate::transfer::{Transfer, UploadAllocation, Uploader};
use crate::view::{
    SamplerView, SamplerViewDesc, SamplerViewTemplate, StreamOutputTarget, StreamOutputTargetDesc,
    Surface, SurfaceDesc, SurfaceTemplate,
};

/// Caps of the no-op driver: generous, GL 4.6-class limits.
pub fn noop_caps() -> Caps {
    let stage = ShaderCaps {
        supported: true,
        max_inputs: 32,
        max_outputs: 32,
        max_const_buffer0_size: 65536,
        max_const_buffers: 16,
        max_texture_samplers: 32,
        max_sampler_views: 128,
        max_shader_buffers: 32,
        max_shader_images: 32,
        fp16: true,
        int64: true,
        fp64: true,
        int16: true,
        indirect_const_addr: true,
    };
    Caps {
        device_name: "noop".into(),
        driver_name: "noop".into(),
        device_type: DeviceType::Other,
        glsl_feature_level: 460,
        max_texture_2d_size: 16384,
        max_texture_3d_levels: 12,
        max_texture_cube_levels: 15,
        max_texture_array_layers: 2048,
        max_texel_buffer_elements: 1 << 27,
        max_render_targets: 8,
        max_dual_source_render_targets: 1,
        max_viewports: 16,
        max_window_rectangles: 8,
        framebuffer_color_sample_counts: 0b1_1111,
        framebuffer_depth_sample_counts: 0b1_1111,
        framebuffer_no_attachments_sample_counts: 0b1_1111,
        texture_multisample: true,
        texture_cube_array: true,
        max_texture_anisotropy: 16.0,
        max_texture_lod_bias: 16.0,
        min_texel_offset: -8,
        max_texel_offset: 7,
        min_texture_gather_offset: -32,
        max_texture_gather_offset: 31,
        texture_buffer_offset_alignment: 16,
        constant_buffer_offset_alignment: 16,
        shader_buffer_offset_alignment: 16,
        min_map_buffer_alignment: 64,
        max_constant_buffer_size: 65536,
        max_shader_buffer_size: 1 << 27,
        max_vertex_buffers: 32,
        max_vertex_attribs: 32,
        max_vertex_attrib_stride: 2048,
        vertex_attrib_element_aligned_only: false,
        max_vertex_element_src_offset: 2047,
        max_line_width: 255.0,
        max_point_size: 255.0,
        max_point_size_aa: 255.0,
        max_line_width_aa: 255.0,
        min_interpolation_offset: -0.5,
        max_interpolation_offset: 0.4375,
        interpolation_offset_bits: 4,
        dual_source_blend: true,
        programmable_sample_locations: true,
        max_vertex_stream: 3,
        stream_output: true,
        max_stream_output_buffers: 4,
        draw_indirect_count: true,
        sparse_buffer: true,
        sparse_buffer_page_size: 65536,
        sparse_texture: true,
        bindless_texture: true,
        compute: true,
        max_grid_size: [65535; 3],
        max_block_size: [1024, 1024, 64],
        max_threads_per_block: 1024,
        max_shared_memory: 32768,
        subgroup_size: 32,
        subgroup_sizes: 32,
        shader_group_vote: true,
        shader: [stage; 6],
        ..Caps::default()
    }
}

/// The no-op screen.
pub struct NoopScreen {
    caps: Caps,
    calls: Arc<AtomicU64>,
}

impl NoopScreen {
    /// A screen with [`noop_caps`].
    pub fn new() -> Arc<Self> {
        Self::with_caps(noop_caps())
    }

    /// A screen with the given caps.
    pub fn with_caps(caps: Caps) -> Arc<Self> {
        Arc::new(NoopScreen {
            caps,
            calls: Arc::new(AtomicU64::new(0)),
        })
    }

    /// Number of calls that reached this screen and its contexts.
    pub fn calls(&self) -> u64 {
        self.calls.load(Ordering::Relaxed)
    }

    fn count(&self) {
        self.calls.fetch_add(1, Ordering::Relaxed);
    }
}

impl Screen for NoopScreen {
    fn name(&self) -> &str {
        "noop"
    }
    fn caps(&self) -> &Caps {
        &self.caps
    }
    fn is_format_supported(&self, _: Format, _: Target, _: u32, _: u32, _: BindFlags) -> bool {
        true
    }
    fn resource_create(&self, template: &ResourceTemplate) -> PipeResult<Resource> {
        self.count();
        Ok(Object::new(template.clone(), ()))
    }
    fn resource_destroy(&self, resource: Resource) {
        self.count();
        drop(resource);
    }
    fn context_create(self: Arc<Self>) -> PipeResult<Box<dyn Context>> {
        self.count();
        Ok(Box::new(NoopContext {
            calls: self.calls.clone(),
            ..NoopContext::default()
        }))
    }
    fn fence_finish(&self, _: Option<&mut dyn Context>, _: &Fence, _: u64) -> PipeResult<bool> {
        self.count();
        Ok(true)
    }
    fn create_reusable_fence(&self) -> PipeResult<Fence> {
        self.count();
        Ok(Object::new(
            FenceDesc {
                context_id: 0,
                reusable: true,
            },
            (),
        ))
    }
    fn get_timestamp(&self) -> PipeResult<u64> {
        Ok(0)
    }
    fn get_sparse_texture_virtual_page_size(
        &self,
        _: Target,
        _: bool,
        _: Format,
    ) -> PipeResult<Vec<SparsePageSize>> {
        Ok(vec![SparsePageSize {
            x: 128,
            y: 128,
            z: 1,
        }])
    }
    fn get_sample_position(&self, _: u32, _: u32) -> Option<[f32; 2]> {
        Some([0.5, 0.5])
    }
}

/// Scratch memory behind a no-op transfer or upload. A `Vec` is used
/// because moving it does not move (or retag) its heap buffer, so a raw
/// pointer taken before the move stays valid.
struct Scratch(#[allow(dead_code)] Vec<u8>);

/// The no-op context. See the module doc.
#[derive(Default)]
pub struct NoopContext {
    calls: Arc<AtomicU64>,
    blend: CsoTable<BlendState>,
    sampler: CsoTable<SamplerState>,
    rasterizer: CsoTable<RasterizerState>,
    dsa: CsoTable<DepthStencilAlphaState>,
    shader: CsoTable<ShaderState>,
    velems: CsoTable<Vec<VertexElement>>,
    compute: CsoTable<ComputeState>,
    next_handle: u64,
}

impl NoopContext {
    fn count(&self) {
        self.calls.fetch_add(1, Ordering::Relaxed);
    }

    fn scratch(len: usize) -> (Scratch, NonNull<u8>) {
        let mut mem = vec![0u8; len.max(1)];
        let ptr = NonNull::new(mem.as_mut_ptr()).unwrap_or(NonNull::dangling());
        (Scratch(mem), ptr)
    }

    fn create_shader(&mut self, state: &ShaderState) -> PipeResult<ShaderHandle> {
        self.count();
        let (cso, _) = self.shader.create(state)?;
        Ok(ShaderHandle {
            cso,
            stage: state.stage,
        })
    }

    fn check_shader(&self, handle: Option<ShaderHandle>) -> PipeResult<()> {
        self.count();
        if let Some(h) = handle {
            self.shader.get(h.cso)?;
        }
        Ok(())
    }

    fn delete_shader(&mut self, handle: ShaderHandle) -> PipeResult<()> {
        self.count();
        self.shader.delete(handle.cso).map(drop)
    }

    fn handle(&mut self) -> u64 {
        self.next_handle += 1;
        self.next_handle
    }
}

macro_rules! cso_triplet {
    ($table:ident, $ty:ty, $handle:ty, $create:ident, $bind:ident, $delete:ident) => {
        fn $create(&mut self, state: &$ty) -> PipeResult<$handle> {
            self.count();
            Ok(self.$table.create(state)?.0)
        }
        fn $bind(&mut self, handle: Option<$handle>) -> PipeResult<()> {
            self.count();
            if let Some(h) = handle {
                self.$table.get(h)?;
            }
            Ok(())
        }
        fn $delete(&mut self, handle: $handle) -> PipeResult<()> {
            self.count();
            self.$table.delete(handle).map(drop)
        }
    };
}

macro_rules! accept {
    ($($name:ident($($arg:ident: $ty:ty),*);)*) => {
        $(fn $name(&mut self, $($arg: $ty),*) -> PipeResult<()> {
            $(let _ = $arg;)*
            self.count();
            Ok(())
        })*
    };
}

impl Context for NoopContext {
    fn id(&self) -> u64 {
        self as *const Self as usize as u64
    }
    cso_triplet!(
        blend,
        BlendState,
        BlendHandle,
        create_blend_state,
        bind_blend_state,
        delete_blend_state
    );
    cso_triplet!(
        rasterizer,
        RasterizerState,
        RasterizerHandle,
        create_rasterizer_state,
        bind_rasterizer_state,
        delete_rasterizer_state
    );
    cso_triplet!(
        dsa,
        DepthStencilAlphaState,
        DepthStencilAlphaHandle,
        create_depth_stencil_alpha_state,
        bind_depth_stencil_alpha_state,
        delete_depth_stencil_alpha_state
    );
    cso_triplet!(
        compute,
        ComputeState,
        ComputeHandle,
        create_compute_state,
        bind_compute_state,
        delete_compute_state
    );

    fn create_sampler_state(&mut self, state: &SamplerState) -> PipeResult<SamplerHandle> {
        self.count();
        Ok(self.sampler.create(state)?.0)
    }
    fn bind_sampler_states(
        &mut self,
        _: ShaderStage,
        _: u32,
        samplers: &[Option<SamplerHandle>],
    ) -> PipeResult<()> {
        self.count();
        for h in samplers.iter().flatten() {
            self.sampler.get(*h)?;
        }
        Ok(())
    }
    fn delete_sampler_state(&mut self, handle: SamplerHandle) -> PipeResult<()> {
        self.count();
        self.sampler.delete(handle).map(drop)
    }

    fn create_vs_state(&mut self, s: &ShaderState) -> PipeResult<ShaderHandle> {
        self.create_shader(s)
    }
    fn bind_vs_state(&mut self, h: Option<ShaderHandle>) -> PipeResult<()> {
        self.check_shader(h)
    }
    fn delete_vs_state(&mut self, h: ShaderHandle) -> PipeResult<()> {
        self.delete_shader(h)
    }
    fn create_tcs_state(&mut self, s: &ShaderState) -> PipeResult<ShaderHandle> {
        self.create_shader(s)
    }
    fn bind_tcs_state(&mut self, h: Option<ShaderHandle>) -> PipeResult<()> {
        self.check_shader(h)
    }
    fn delete_tcs_state(&mut self, h: ShaderHandle) -> PipeResult<()> {
        self.delete_shader(h)
    }
    fn create_tes_state(&mut self, s: &ShaderState) -> PipeResult<ShaderHandle> {
        self.create_shader(s)
    }
    fn bind_tes_state(&mut self, h: Option<ShaderHandle>) -> PipeResult<()> {
        self.check_shader(h)
    }
    fn delete_tes_state(&mut self, h: ShaderHandle) -> PipeResult<()> {
        self.delete_shader(h)
    }
    fn create_gs_state(&mut self, s: &ShaderState) -> PipeResult<ShaderHandle> {
        self.create_shader(s)
    }
    fn bind_gs_state(&mut self, h: Option<ShaderHandle>) -> PipeResult<()> {
        self.check_shader(h)
    }
    fn delete_gs_state(&mut self, h: ShaderHandle) -> PipeResult<()> {
        self.delete_shader(h)
    }
    fn create_fs_state(&mut self, s: &ShaderState) -> PipeResult<ShaderHandle> {
        self.create_shader(s)
    }
    fn bind_fs_state(&mut self, h: Option<ShaderHandle>) -> PipeResult<()> {
        self.check_shader(h)
    }
    fn delete_fs_state(&mut self, h: ShaderHandle) -> PipeResult<()> {
        self.delete_shader(h)
    }

    fn create_vertex_elements_state(
        &mut self,
        elements: &[VertexElement],
    ) -> PipeResult<VertexElementsHandle> {
        self.count();
        Ok(self.velems.create(&elements.to_vec())?.0)
    }
    fn bind_vertex_elements_state(
        &mut self,
        handle: Option<VertexElementsHandle>,
    ) -> PipeResult<()> {
        self.count();
        if let Some(h) = handle {
            self.velems.get(h)?;
        }
        Ok(())
    }
    fn delete_vertex_elements_state(&mut self, handle: VertexElementsHandle) -> PipeResult<()> {
        self.count();
        self.velems.delete(handle).map(drop)
    }

    fn set_constant_buffer(
        &mut self,
        _: ShaderStage,
        _: u32,
        _: Option<ConstantBuffer<'_>>,
    ) -> PipeResult<()> {
        self.count();
        Ok(())
    }

    accept! {
        set_inlinable_constants(stage: ShaderStage, values: &[u32]);
        set_framebuffer_state(state: &FramebufferState);
        set_vertex_buffers(buffers: &[VertexBuffer]);
        set_stencil_ref(stencil_ref: StencilRef);
        set_blend_color(color: &BlendColor);
        set_sample_mask(mask: u32);
        set_sample_locations(locations: Option<&[u8]>);
        set_min_samples(min_samples: u32);
        set_clip_state(state: &ClipState);
        set_polygon_stipple(stipple: &PolyStipple);
        set_scissor_states(start: u32, scissors: &[ScissorState]);
        set_viewport_states(start: u32, viewports: &[ViewportState]);
        set_window_rectangles(include: bool, rects: &[ScissorState]);
        set_tess_state(state: &TessState);
        set_patch_vertices(patch_vertices: u8);
        set_debug_callback(callback: Option<DebugCallback>);
        set_sampler_views(stage: ShaderStage, start: u32, views: &[Option<SamplerView>], unbind_trailing: u32);
        sampler_view_destroy(view: SamplerView);
        set_hw_atomic_buffers(start: u32, buffers: &[Option<ShaderBuffer>]);
        set_shader_buffers(stage: ShaderStage, start: u32, buffers: &[Option<ShaderBuffer>], writable_bitmask: u32);
        set_shader_images(stage: ShaderStage, start: u32, images: &[Option<ImageView>], unbind_trailing: u32);
        surface_destroy(surface: Surface);
        stream_output_target_destroy(target: StreamOutputTarget);
        set_stream_output_targets(targets: &[Option<StreamOutputTarget>], offsets: &[Option<u32>]);
        clear(buffers: ClearFlags, scissor: Option<&ScissorState>, color: &ColorUnion, depth: f64, stencil: u32);
        clear_texture(resource: &Resource, level: u32, bx: &PipeBox, data: &[u8]);
        clear_buffer(resource: &Resource, offset: u32, size: u32, value: &[u8]);
        evaluate_depth_buffer();
        upload_unmap(uploader: Uploader);
        destroy_query(query: Query);
        begin_query(query: &Query);
        end_query(query: &Query);
        get_query_result_resource(query: &Query, flags: QueryFlags, result_type: QueryValueType, index: QueryResultIndex, resource: &Resource, offset: u32);
        set_active_query_state(enable: bool);
        render_condition(query: Option<&Query>, condition: bool, mode: RenderCondMode);
        render_condition_mem(buffer: Option<&Resource>, offset: u32, condition: bool);
        flush_resource(resource: &Resource);
        fence_server_sync(fence: &Fence);
        fence_server_signal(fence: &Fence);
        blit(info: &BlitInfo);
        transfer_unmap(transfer: Transfer);
        transfer_flush_region(transfer: &mut Transfer, bx: &PipeBox);
        buffer_subdata(resource: &Resource, usage: MapFlags, offset: u32, data: &[u8]);
        texture_barrier(flags: TextureBarrierFlags);
        memory_barrier(flags: BarrierFlags);
        resource_commit(resource: &Resource, level: u32, bx: &PipeBox, commit: bool);
        launch_grid(info: &GridInfo);
        set_compute_resources(start: u32, surfaces: &[Option<Surface>]);
        set_device_reset_callback(callback: Option<ResetCallback>);
        delete_texture_handle(handle: u64);
        make_texture_handle_resident(handle: u64, resident: bool);
        delete_image_handle(handle: u64);
        make_image_handle_resident(handle: u64, access: ImageAccess, resident: bool);
    }

    fn create_sampler_view(
        &mut self,
        texture: &Resource,
        template: &SamplerViewTemplate,
    ) -> PipeResult<SamplerView> {
        self.count();
        Ok(Object::new(
            SamplerViewDesc {
                texture: texture.clone(),
                template: *template,
            },
            (),
        ))
    }
    fn create_surface(
        &mut self,
        texture: &Resource,
        template: &SurfaceTemplate,
    ) -> PipeResult<Surface> {
        self.count();
        let (width, height, _) = texture
            .desc()
            .level_extent(template.level)
            .ok_or_else(|| PipeError::invalid("create_surface: no such level"))?;
        Ok(Object::new(
            SurfaceDesc {
                texture: texture.clone(),
                template: *template,
                width,
                height,
            },
            (),
        ))
    }
    fn create_stream_output_target(
        &mut self,
        buffer: &Resource,
        buffer_offset: u32,
        buffer_size: u32,
    ) -> PipeResult<StreamOutputTarget> {
        self.count();
        Ok(Object::new(
            StreamOutputTargetDesc {
                buffer: buffer.clone(),
                buffer_offset,
                buffer_size,
            },
            (),
        ))
    }
    fn stream_output_target_offset(&mut self, _: &StreamOutputTarget) -> PipeResult<u32> {
        self.count();
        Ok(0)
    }
    #[allow(clippy::too_many_arguments)]
    fn clear_render_target(
        &mut self,
        _: &Surface,
        _: &ColorUnion,
        _: u32,
        _: u32,
        _: u32,
        _: u32,
        _: bool,
    ) -> PipeResult<()> {
        self.count();
        Ok(())
    }
    #[allow(clippy::too_many_arguments)]
    fn clear_depth_stencil(
        &mut self,
        _: &Surface,
        _: ClearFlags,
        _: f64,
        _: u32,
        _: u32,
        _: u32,
        _: u32,
        _: u32,
        _: bool,
    ) -> PipeResult<()> {
        self.count();
        Ok(())
    }
    fn upload_alloc(&mut self, _: Uploader, size: u32, _: u32) -> PipeResult<UploadAllocation> {
        self.count();
        let (mem, ptr) = Self::scratch(size as usize);
        let res = Object::new(ResourceTemplate::buffer(size, BindFlags::empty()), ());
        // SAFETY: `ptr` points into the scratch vector, which becomes the
        // allocation's keep-alive; moving a Vec does not move its buffer.
        Ok(unsafe { UploadAllocation::new(res, 0, size, ptr, Box::new(mem)) })
    }
    fn upload_data(&mut self, _: Uploader, data: &[u8], _: u32) -> PipeResult<(Resource, u32)> {
        self.count();
        let size = u32::try_from(data.len()).map_err(|_| PipeError::OutOfMemory)?;
        Ok((
            Object::new(ResourceTemplate::buffer(size, BindFlags::empty()), ()),
            0,
        ))
    }
    fn draw_vbo(
        &mut self,
        _: &DrawInfo<'_>,
        _: u32,
        _: Option<&DrawIndirectInfo>,
        _: &[DrawStartCountBias],
    ) -> PipeResult<()> {
        self.count();
        Ok(())
    }
    fn create_query(&mut self, query_type: QueryType, index: u32) -> PipeResult<Query> {
        self.count();
        Ok(Object::new(QueryDesc { query_type, index }, ()))
    }
    fn get_query_result(&mut self, query: &Query, _: bool) -> PipeResult<Option<QueryResult>> {
        self.count();
        Ok(Some(match query.desc().query_type {
            QueryType::OcclusionPredicate
            | QueryType::OcclusionPredicateConservative
            | QueryType::SoOverflowPredicate
            | QueryType::SoOverflowAnyPredicate
            | QueryType::GpuFinished => {
                QueryResult::Bool(query.desc().query_type == QueryType::GpuFinished)
            }
            QueryType::SoStatistics => QueryResult::SoStatistics {
                num_primitives_written: 0,
                primitives_storage_needed: 0,
            },
            QueryType::TimestampDisjoint => QueryResult::TimestampDisjoint {
                frequency: 1_000_000_000,
                disjoint: false,
            },
            QueryType::PipelineStatistics => {
                QueryResult::PipelineStatistics(PipelineStatistics::default())
            }
            _ => QueryResult::U64(0),
        }))
    }
    fn flush(&mut self, _: FlushFlags, want_fence: bool) -> PipeResult<Option<Fence>> {
        self.count();
        Ok(want_fence.then(|| {
            Object::new(
                FenceDesc {
                    context_id: 0,
                    reusable: false,
                },
                (),
            )
        }))
    }
    fn is_resource_referenced(
        &mut self,
        _: &Resource,
        _: u32,
        _: u32,
    ) -> PipeResult<ReferenceFlags> {
        self.count();
        Ok(ReferenceFlags::empty())
    }
    #[allow(clippy::too_many_arguments)]
    fn resource_copy_region(
        &mut self,
        _: &Resource,
        _: u32,
        _: u32,
        _: u32,
        _: u32,
        _: &Resource,
        _: u32,
        _: &PipeBox,
    ) -> PipeResult<()> {
        self.count();
        Ok(())
    }
    fn transfer_map(
        &mut self,
        resource: &Resource,
        level: u32,
        usage: MapFlags,
        bx: &PipeBox,
    ) -> PipeResult<Transfer> {
        self.count();
        let desc = resource.desc().format.desc();
        let bw = desc.block.width.max(1) as usize;
        let bh = desc.block.height.max(1) as usize;
        let stride =
            (bx.width.max(0) as usize).div_ceil(bw) * (desc.block.bits as usize / 8).max(1);
        let layer_stride = stride * (bx.height.max(0) as usize).div_ceil(bh);
        let len = layer_stride * bx.depth.max(0) as usize;
        let (mem, ptr) = Self::scratch(len);
        // SAFETY: `ptr` points into the scratch vector, which becomes the
        // transfer's payload and so lives as long as the transfer; moving a
        // Vec does not move its buffer. The bytes are zero-initialized.
        Ok(unsafe {
            Transfer::new(
                resource.clone(),
                level,
                usage,
                *bx,
                stride,
                layer_stride,
                ptr,
                len,
                Box::new(mem),
            )
        })
    }
    #[allow(clippy::too_many_arguments)]
    fn texture_subdata(
        &mut self,
        _: &Resource,
        _: u32,
        _: MapFlags,
        _: &PipeBox,
        _: &[u8],
        _: usize,
        _: usize,
    ) -> PipeResult<()> {
        self.count();
        Ok(())
    }
    fn set_global_binding(
        &mut self,
        _: u32,
        resources: &[Option<Resource>],
    ) -> PipeResult<Vec<u64>> {
        self.count();
        Ok(vec![0; resources.len()])
    }
    fn get_compute_state_info(&mut self, handle: ComputeHandle) -> PipeResult<ComputeStateInfo> {
        self.count();
        self.compute.get(handle)?;
        Ok(ComputeStateInfo {
            max_threads: 1024,
            preferred_simd_size: 32,
            simd_sizes: 32,
            private_memory: 0,
        })
    }
    fn get_compute_state_subgroup_size(
        &mut self,
        handle: ComputeHandle,
        _: [u32; 3],
    ) -> PipeResult<u32> {
        self.count();
        self.compute.get(handle)?;
        Ok(32)
    }
    fn generate_mipmap(
        &mut self,
        _: &Resource,
        _: Format,
        _: u32,
        _: u32,
        _: u32,
        _: u32,
    ) -> PipeResult<bool> {
        self.count();
        Ok(true)
    }
    fn get_device_reset_status(&mut self) -> ResetStatus {
        self.count();
        ResetStatus::NoReset
    }
    fn create_texture_handle(&mut self, _: &SamplerView, _: &SamplerState) -> PipeResult<u64> {
        self.count();
        Ok(self.handle())
    }
    fn create_image_handle(&mut self, _: &ImageView) -> PipeResult<u64> {
        self.count();
        Ok(self.handle())
    }
}
