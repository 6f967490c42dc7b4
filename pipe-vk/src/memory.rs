//! The device shared by a screen, its contexts and every resource, and the
//! memory policy.
//!
//! [`DeviceShared`] is held in an `Arc` by the screen, by every context and
//! by every Vulkan object that must outlive them (resource storage kept
//! alive by an in-flight batch). It owns, in drop order: the allocator
//! (gpu-allocator, suballocating; large images get dedicated allocations),
//! the screen's timeline semaphore, the logical device, the instance.
//!
//! Memory policy (Zink's, simplified): resources a frontend maps often
//! (STREAM/STAGING usage, persistent maps) live in host-visible memory and are
//! mapped directly; everything else asks for device-local memory. On lavapipe
//! both land in the one host-visible type, so `PIPE_VK_DEBUG=staging` makes
//! the driver *treat* device-local resources as unmappable, which forces the
//! staging-buffer paths a discrete GPU takes.
//!
//! Budget tracking: bytes and `VkDeviceMemory` blocks come from
//! gpu-allocator's report; [`DeviceShared::memory_stats`] exposes them.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use ash::vk;
use gpu_allocator::vulkan::{
    Allocation, AllocationCreateDesc, AllocationScheme, Allocator, AllocatorCreateDesc,
};
use gpu_allocator::{AllocationSizes, AllocatorDebugSettings, MemoryLocation};
use pipe_core::{PipeError, PipeResult};

use crate::device::{Device, PhysicalDevice};
use crate::instance::{vk_err, Instance};

/// Debug switches from `PIPE_VK_DEBUG` (comma separated).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DebugFlags {
    /// `staging`: never map device-local resources directly.
    pub staging: bool,
    /// `emulate_line_stipple`: stipple lines in shaders (the path of
    /// devices without stippled lines) even where the device has them.
    pub emulate_line_stipple: bool,
    /// `emulate_smooth_lines`: smooth single-sampled lines in shaders
    /// (`spirv_gen::passes::smooth_lines`, the path of devices that cannot
    /// draw them smooth) even where the device can.
    pub emulate_smooth_lines: bool,
    /// `no_draw_merge`: record every `draw_vbo` call on its own
    /// (`crate::merge` off), for comparisons.
    pub no_draw_merge: bool,
    /// `no_index_uint8`: draw 8-bit indices as devices without
    /// `VK_EXT_index_type_uint8` must (widened to 32 bits on the CPU).
    pub no_index_uint8: bool,
    /// `vertex_fixups`: fetch every vertex format that has a shader
    /// fix-up through it (`format::vertex_fetch`), as devices that cannot
    /// fetch it must.
    pub vertex_fixups: bool,
    /// `no_dynamic_blend`: bake blend state into pipelines, as devices
    /// without the VK_EXT_extended_dynamic_state3 blend states must.
    pub no_dynamic_blend: bool,
    /// `no_dynamic_rasterizer`: bake rasterizer state into pipelines, as
    /// devices without the VK_EXT_extended_dynamic_state3 rasterization
    /// states must (and the patch control point count, as devices
    /// without extended dynamic state 2's must).
    pub no_dynamic_rasterizer: bool,
    /// `no_cb0_push_offset`: bind every upload of user constants (constant
    /// buffer 0 of the vertex and fragment stages) as its own descriptor,
    /// instead of a window whose offset is pushed (`crate::draw`'s
    /// `cb0_window`), for comparisons.
    pub no_cb0_push_offset: bool,
    /// `no_dynamic_vertex_input`: bake vertex input into pipelines, as
    /// devices without VK_EXT_vertex_input_dynamic_state must.
    pub no_dynamic_vertex_input: bool,
    /// `no_query_in_rendering`: begin and end Vulkan queries only outside
    /// rendering instances (so a query's begin or end splits the instance
    /// it falls into), for comparisons (`crate::query`).
    pub no_query_in_rendering: bool,
    /// `no_discard_rectangles`: window rectangles always discard in the
    /// fragment shader, the path of devices without
    /// VK_EXT_discard_rectangles (`crate::discard_rectangles`).
    pub no_discard_rectangles: bool,
    /// `no_primitives_generated_query`: count `PRIMITIVES_GENERATED`
    /// through pipeline statistics, as devices without
    /// VK_EXT_primitives_generated_query must (`crate::query`).
    pub no_primitives_generated_query: bool,
    /// `no_xfb_draw`: draw-auto reads its vertex count back on the CPU,
    /// as devices without `transformFeedbackDraw` must
    /// (`crate::streamout`).
    pub no_xfb_draw: bool,
    /// `texel_aliases`: make every buffer view from a buffer aliasing the
    /// memory with the one texel-buffer usage the view needs
    /// (`ResourceObject::texel_view_buffer`), the path of formats a device
    /// supports for one of the two uses only.
    pub texel_aliases: bool,
}

impl DebugFlags {
    /// Parses `PIPE_VK_DEBUG`.
    pub fn from_env() -> Self {
        let v = std::env::var("PIPE_VK_DEBUG").unwrap_or_default();
        let has = |flag: &str| v.split(',').any(|s| s.trim() == flag);
        DebugFlags {
            staging: has("staging"),
            emulate_line_stipple: has("emulate_line_stipple"),
            emulate_smooth_lines: has("emulate_smooth_lines"),
            no_draw_merge: has("no_draw_merge"),
            no_index_uint8: has("no_index_uint8"),
            vertex_fixups: has("vertex_fixups"),
            no_dynamic_blend: has("no_dynamic_blend"),
            no_dynamic_rasterizer: has("no_dynamic_rasterizer"),
            no_dynamic_vertex_input: has("no_dynamic_vertex_input"),
            no_cb0_push_offset: has("no_cb0_push_offset"),
            no_query_in_rendering: has("no_query_in_rendering"),
            no_discard_rectangles: has("no_discard_rectangles"),
            no_primitives_generated_query: has("no_primitives_generated_query"),
            no_xfb_draw: has("no_xfb_draw"),
            texel_aliases: has("texel_aliases"),
        }
    }
}

/// Images at least this large get a dedicated allocation.
const DEDICATED_IMAGE_BYTES: u64 = 32 << 20;

/// Memory statistics (for the memory benchmark and `pipe-info`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryStats {
    /// Bytes of live allocations.
    pub allocated_bytes: u64,
    /// Bytes of `VkDeviceMemory` blocks (allocated plus free space).
    pub capacity_bytes: u64,
    /// Number of `VkDeviceMemory` objects.
    pub device_memory_count: usize,
}

/// Usage and budget of one memory heap.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HeapBudget {
    pub heap: u32,
    pub size: u64,
    /// Bytes this process uses (VK_EXT_memory_budget), or what pipe-vk's
    /// allocator holds when the extension is missing.
    pub usage: u64,
    /// Bytes the process can use without trouble (the heap size without
    /// the extension).
    pub budget: u64,
}

/// State shared by a screen and everything created from it.
pub struct DeviceShared {
    allocator: Mutex<Option<Allocator>>,
    /// The screen's timeline semaphore: batch `n` signals value `n`.
    pub timeline: vk::Semaphore,
    /// Queue and the last timeline value submitted, under one lock so that
    /// values are signalled in submission order.
    pub queue: Mutex<QueueState>,
    /// Last value known to have completed (cache of the semaphore value).
    completed: AtomicU64,
    /// Storage renames of any resource by any context
    /// (`VkResource::rename`): a context's merged draws
    /// (`crate::merge`) bound storage looked up before, and end when it
    /// changes, whoever renamed it.
    pub renames: AtomicU64,
    pub debug: DebugFlags,
    debug_utils: Option<ash::ext::debug_utils::Device>,
    /// Loader for VK_KHR_dynamic_rendering on 1.2 devices (RenderDoc clamps
    /// lavapipe to 1.2); `None` uses the 1.3 core entry points.
    dynamic_rendering_khr: Option<ash::khr::dynamic_rendering::Device>,
    /// The pipeline cache shared by the screen's contexts (see
    /// `disk_cache`). Saved and destroyed in `Drop`.
    disk_cache: crate::disk_cache::DiskCache,
    /// VK_EXT_calibrated_timestamps, when the device domain is calibrateable.
    calibrated: Option<ash::ext::calibrated_timestamps::Device>,
    /// VK_EXT_sample_locations with variable locations
    /// (`crate::sample_locations`).
    pub sample_locations: Option<crate::sample_locations::Support>,
    /// VK_EXT_discard_rectangles, unless `no_discard_rectangles`
    /// (`crate::discard_rectangles`).
    pub discard_rectangles: Option<crate::discard_rectangles::Support>,
    /// VK_EXT_line_rasterization is enabled, and the device is lavapipe:
    /// looked up once, as draws ask (`dynamic_rasterizer`,
    /// the driver workarounds), and the lookups compare strings.
    line_rasterization: bool,
    lavapipe: bool,
    /// The stages in which the device runs subgroup votes
    /// (`VkPhysicalDeviceSubgroupProperties` with the VOTE operation);
    /// elsewhere votes are lowered ([`DeviceShared::subgroup_vote`]).
    subgroup_vote_stages: vk::ShaderStageFlags,
    pub device: Device,
    pub physical: PhysicalDevice,
    pub instance: Instance,
}

/// The queue and its submission counter.
pub struct QueueState {
    pub queue: vk::Queue,
    pub last_submitted: u64,
}

impl DeviceShared {
    /// Whether vertex input is dynamic (VK_EXT_vertex_input_dynamic_state):
    /// pipelines then leave the vertex-elements CSO out of their key and
    /// the draw records it (`pipeline::VertexInput`). Off with
    /// `PIPE_VK_DEBUG=no_dynamic_vertex_input`.
    pub fn dynamic_vertex_input(&self) -> bool {
        !self.debug.no_dynamic_vertex_input
            && self
                .device
                .features
                .vertex_input_dynamic_state
                .vertex_input_dynamic_state
                == vk::TRUE
    }

    /// Whether depth clipping can be set apart from depth clamping
    /// (VK_EXT_depth_clip_enable; Gallium's `depth_clip_near`/`far`).
    /// Without it Vulkan clips exactly when it does not clamp, and the
    /// screen does not claim `depth_clip_disable`.
    pub fn separate_depth_clip(&self) -> bool {
        self.device.features.depth_clip_enable.depth_clip_enable == vk::TRUE
    }

    /// Whether shader modules may carry non-semantic instructions (debug
    /// info such as NonSemantic.Shader.DebugInfo.100): Vulkan 1.3, or
    /// VK_KHR_shader_non_semantic_info (enabled where the device has it;
    /// RenderDoc reports lavapipe as 1.2 with it).
    pub fn non_semantic_info(&self) -> bool {
        self.physical.properties.api_version >= vk::API_VERSION_1_3
            || self
                .physical
                .has_extension(ash::khr::shader_non_semantic_info::NAME)
    }

    /// Whether a fragment shader can sample one slice of a 3D image through
    /// a 2D view (VK_EXT_image_2d_view_of_3d's `sampler2DViewOf3D`), as
    /// framebuffer fetch of a 3D colour buffer does: such images are
    /// created `2D_VIEW_COMPATIBLE`.
    pub fn sampled_2d_view_of_3d(&self) -> bool {
        let f = &self.device.features.image_2d_view_of_3d;
        f.image2_d_view_of3_d == vk::TRUE && f.sampler2_d_view_of3_d == vk::TRUE
    }

    /// Whether rasterizer state is dynamic (polygon mode, depth clamp,
    /// depth clip, provoking vertex, line rasterization mode and stipple
    /// from VK_EXT_extended_dynamic_state3 and VK_EXT_line_rasterization;
    /// depth bias enable from Vulkan 1.3; rasterizer discard is dynamic on
    /// every pipeline): pipelines
    /// then leave the rasterizer CSO out of their key. Off with
    /// `PIPE_VK_DEBUG=no_dynamic_rasterizer`.
    pub fn dynamic_rasterizer(&self) -> bool {
        let f = &self.device.features;
        let e3 = &f.extended_dynamic_state3;
        let t = |b: vk::Bool32| b == vk::TRUE;
        !self.debug.no_dynamic_rasterizer
            && (t(e3.extended_dynamic_state3_depth_clip_enable) || !self.separate_depth_clip())
            && t(e3.extended_dynamic_state3_polygon_mode)
            && t(e3.extended_dynamic_state3_depth_clamp_enable)
            && t(e3.extended_dynamic_state3_provoking_vertex_mode)
            && t(e3.extended_dynamic_state3_line_rasterization_mode)
            && t(e3.extended_dynamic_state3_line_stipple_enable)
            && t(f.provoking_vertex.provoking_vertex_last)
            && self.line_rasterization
    }

    /// Whether shaders of `stage` vote with the device's subgroup
    /// operations; otherwise each invocation votes alone
    /// (`spirv_gen::passes::gl::lower_vote_trivial`, which
    /// ARB_shader_group_vote allows).
    pub fn subgroup_vote(&self, stage: pipe_core::state::ShaderStage) -> bool {
        use pipe_core::state::ShaderStage as S;
        let flag = match stage {
            S::Vertex => vk::ShaderStageFlags::VERTEX,
            S::TessCtrl => vk::ShaderStageFlags::TESSELLATION_CONTROL,
            S::TessEval => vk::ShaderStageFlags::TESSELLATION_EVALUATION,
            S::Geometry => vk::ShaderStageFlags::GEOMETRY,
            S::Fragment => vk::ShaderStageFlags::FRAGMENT,
            S::Compute => vk::ShaderStageFlags::COMPUTE,
        };
        self.subgroup_vote_stages.contains(flag)
    }

    /// Whether a tessellation pipeline may draw in several polygon modes
    /// (dynamic `POLYGON_MODE_EXT`). A driver workaround turns it off on
    /// lavapipe: lavapipe 25.0.7 compiles a pipeline's evaluation shader
    /// for the vertex size its first draw needs, outputs llvmpipe adds
    /// included, and reuses it for later draws (its TES variant key lacks
    /// the output count, which its VS and GS keys have). With a fragment
    /// shader reading `FrontFacing`, LINE and POINT add a face output that
    /// FILL drops, so after a switch the shader wrote vertices at the old
    /// stride: wrong vertices, and past the end of llvmpipe's buffer when
    /// the new stride is smaller (heap corruption; state fuzz seeds 18,
    /// 48, 80; `pipe.draw.tessellation.polygon_mode_switch`). Each polygon
    /// mode then gets a pipeline of its own (`GfxKey::tess_polygon_mode`),
    /// whose evaluation shader sees that mode only. (Single-sampled smooth
    /// lines, the other stage that adds an output, are off there:
    /// `device_smooth_lines`.)
    pub fn tes_variants_follow_outputs(&self) -> bool {
        !self.lavapipe
    }

    /// Whether lines may be drawn smooth (`RECTANGULAR_SMOOTH`) at all. A
    /// driver workaround turns it off on lavapipe: there
    /// llvmpipe's smooth-line stage binds a fragment shader of its own in
    /// the middle of a draw, and when that needs a new triangle setup
    /// once llvmpipe holds 64 (they are keyed on the fragment inputs and
    /// the depth bias), evicting them flushes the draw module, which
    /// unbinds that shader inside the draw and leaves none for the rest
    /// of it: a SIGSEGV in lavapipe's queue thread (state fuzz seed 211;
    /// `lp_state_setup.c`'s `cull_setup_variants` calls `llvmpipe_finish`,
    /// found with a debug build of Mesa 25.0.7). The stage serves
    /// multisampled framebuffers too (seed 552 crashed there, with 4
    /// samples). Single-sampled smooth lines are then emulated in the
    /// shaders (`spirv_gen::passes::smooth_lines`), lines on a
    /// multisampled framebuffer with multisampling off are drawn
    /// rectangular, not antialiased (with it on GL ignores `LINE_SMOOTH`
    /// anyway: `pipeline::smooth_lines_native`). The same stage drew stray pixels of
    /// garbage for smooth lines from a geometry shader or tessellation
    /// (`pipe.draw.state_fuzz.smooth_lines_from_geometry`, single-sampled;
    /// its multisampled variants draw smooth lines correctly).
    pub fn device_smooth_lines(&self) -> bool {
        !self.lavapipe
    }

    /// Whether a `vkCmdDrawMulti*EXT` of several instances draws each
    /// draw's instances before the next draw, as Vulkan says (it is
    /// `drawCount` draws in sequence). A driver workaround turns it off on
    /// lavapipe: lavapipe 25.0.7 draws instance 0 of every draw, then
    /// instance 1 of every draw, ..., which blending and depth testing
    /// show (`pipe.draw.multi_draw.instance_order`). Instanced draws are
    /// then recorded one command each.
    pub fn multi_draw_instances_in_order(&self) -> bool {
        !self.lavapipe
    }

    /// Whether a compute pipeline must be bound before a pipeline
    /// statistics query begins. A driver workaround for lavapipe 25.0.7:
    /// its `vkCmdBeginQuery` of a statistics pool that counts compute
    /// invocations emits the compute state, and crashed (SIGSEGV in the
    /// queue thread) when no compute pipeline was bound and a draw had run
    /// in the command buffer (`pipe.query.pipeline_statistics.two_spans`
    /// without it). `query::Queries::dummy_compute` binds an empty one.
    pub fn stats_need_compute(&self) -> bool {
        self.lavapipe
    }

    /// Whether the patch control point count is dynamic
    /// (VK_EXT_extended_dynamic_state2's patch control points):
    /// tessellation pipelines whose control shader is the application's
    /// then leave it out of their key. Off with
    /// `PIPE_VK_DEBUG=no_dynamic_rasterizer`.
    pub fn dynamic_patch_control_points(&self) -> bool {
        !self.debug.no_dynamic_rasterizer
            && self
                .device
                .features
                .extended_dynamic_state2
                .extended_dynamic_state2_patch_control_points
                == vk::TRUE
    }

    /// Whether the multisample state GL keeps in its blend CSO and sample
    /// mask is dynamic (VK_EXT_extended_dynamic_state3's sample mask,
    /// alpha-to-coverage and alpha-to-one enables): pipelines then leave
    /// it out of their key. Only with dynamic rasterizer and blend state:
    /// alpha-to-coverage and alpha-to-one decide the line rasterization
    /// mode (VUID 02766), which must then be dynamic too, and they come
    /// from the blend CSO. Off with either of their debug switches.
    pub fn dynamic_sample_state(&self) -> bool {
        let e3 = &self.device.features.extended_dynamic_state3;
        let t = |b: vk::Bool32| b == vk::TRUE;
        self.dynamic_rasterizer()
            && self.dynamic_blend()
            && t(e3.extended_dynamic_state3_sample_mask)
            && t(e3.extended_dynamic_state3_alpha_to_coverage_enable)
            && (t(e3.extended_dynamic_state3_alpha_to_one_enable)
                || !t(self.device.features.core.alpha_to_one))
    }

    /// Whether blend state is dynamic (VK_EXT_extended_dynamic_state3's
    /// colour blend enable, equation and write mask and logic-op enable,
    /// with VK_EXT_extended_dynamic_state2's logic op): pipelines then
    /// leave it out of their key, so a blend change does not switch
    /// pipelines. Off with `PIPE_VK_DEBUG=no_dynamic_blend`.
    pub fn dynamic_blend(&self) -> bool {
        let f = &self.device.features;
        let e3 = &f.extended_dynamic_state3;
        let t = |b: vk::Bool32| b == vk::TRUE;
        !self.debug.no_dynamic_blend
            && t(e3.extended_dynamic_state3_color_blend_enable)
            && t(e3.extended_dynamic_state3_color_blend_equation)
            && t(e3.extended_dynamic_state3_color_write_mask)
            && t(e3.extended_dynamic_state3_logic_op_enable)
            && t(f.extended_dynamic_state2.extended_dynamic_state2_logic_op)
    }

    /// Creates the allocator and the timeline on a new device.
    pub fn new(
        instance: Instance,
        physical: PhysicalDevice,
        device: Device,
        debug: DebugFlags,
    ) -> PipeResult<Self> {
        let mut type_info = vk::SemaphoreTypeCreateInfo::default()
            .semaphore_type(vk::SemaphoreType::TIMELINE)
            .initial_value(0);
        let info = vk::SemaphoreCreateInfo::default().push_next(&mut type_info);
        // SAFETY: timelineSemaphore is enabled (1.2 core feature, checked by
        // the caps probe and required by `VkScreen::new`).
        let timeline = unsafe { device.raw.create_semaphore(&info, None) }
            .map_err(|e| vk_err("vkCreateSemaphore", e))?;
        let allocator = Allocator::new(&AllocatorCreateDesc {
            instance: instance.raw.clone(),
            device: device.raw.clone(),
            physical_device: physical.raw,
            debug_settings: AllocatorDebugSettings::default(),
            buffer_device_address: device.features.v12.buffer_device_address == vk::TRUE,
            // Start with gpu-allocator's smallest block (4 MiB) and let
            // blocks double up to 64 MiB: small workloads waste little,
            // large ones need few VkDeviceMemory objects.
            allocation_sizes: AllocationSizes::new(4 << 20, 4 << 20)
                .with_max_device_memblock_size(64 << 20)
                .with_max_host_memblock_size(64 << 20),
        });
        let allocator = match allocator {
            Ok(a) => a,
            Err(e) => {
                // SAFETY: the semaphore was just created and is unused.
                unsafe { device.raw.destroy_semaphore(timeline, None) };
                return Err(PipeError::unsupported(format!("gpu-allocator: {e}")));
            }
        };
        let queue = device.queue;
        let debug_utils = instance
            .debug_utils
            .as_ref()
            .map(|_| ash::ext::debug_utils::Device::new(&instance.raw, &device.raw));
        let dynamic_rendering_khr = device
            .features
            .has(ash::khr::dynamic_rendering::NAME)
            .then(|| ash::khr::dynamic_rendering::Device::new(&instance.raw, &device.raw));
        let calibrated = device
            .features
            .has(ash::ext::calibrated_timestamps::NAME)
            .then(|| {
                let inst =
                    ash::ext::calibrated_timestamps::Instance::new(&instance.entry, &instance.raw);
                // SAFETY: the extension is enabled on this physical device.
                let domains =
                    unsafe { inst.get_physical_device_calibrateable_time_domains(physical.raw) };
                domains
                    .ok()
                    .filter(|d| d.contains(&vk::TimeDomainEXT::DEVICE))
                    .map(|_| {
                        ash::ext::calibrated_timestamps::Device::new(&instance.raw, &device.raw)
                    })
            })
            .flatten();
        let disk_cache = crate::disk_cache::DiskCache::new(&device.raw, &physical.properties);
        let sample_locations =
            crate::sample_locations::Support::probe(&instance, &physical, &device);
        let discard_rectangles =
            crate::discard_rectangles::Support::probe(&instance, &physical, &device)
                .filter(|_| !debug.no_discard_rectangles);
        let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
        let mut props2 = vk::PhysicalDeviceProperties2::default().push_next(&mut subgroup);
        // SAFETY: the physical device belongs to the instance; the chain
        // holds a core 1.1 struct.
        unsafe {
            instance
                .raw
                .get_physical_device_properties2(physical.raw, &mut props2)
        };
        let subgroup_vote_stages = if subgroup
            .supported_operations
            .contains(vk::SubgroupFeatureFlags::VOTE)
        {
            subgroup.supported_stages
        } else {
            vk::ShaderStageFlags::empty()
        };
        Ok(DeviceShared {
            subgroup_vote_stages,
            line_rasterization: device.features.has(ash::ext::line_rasterization::NAME),
            lavapipe: physical.driver_name.contains("llvmpipe"),
            disk_cache,
            calibrated,
            sample_locations,
            discard_rectangles,
            dynamic_rendering_khr,
            debug_utils,
            allocator: Mutex::new(Some(allocator)),
            timeline,
            queue: Mutex::new(QueueState {
                queue,
                last_submitted: 0,
            }),
            completed: AtomicU64::new(0),
            renames: AtomicU64::new(0),
            debug,
            device,
            physical,
            instance,
        })
    }

    /// The ash device.
    pub fn raw(&self) -> &ash::Device {
        &self.device.raw
    }

    /// Allocates memory for `requirements`.
    pub fn allocate(
        &self,
        name: &str,
        requirements: vk::MemoryRequirements,
        location: MemoryLocation,
        linear: bool,
        dedicated_image: Option<vk::Image>,
    ) -> PipeResult<Allocation> {
        let scheme = match dedicated_image {
            Some(img) if requirements.size >= DEDICATED_IMAGE_BYTES => {
                AllocationScheme::DedicatedImage(img)
            }
            _ => AllocationScheme::GpuAllocatorManaged,
        };
        let mut guard = self.allocator.lock().unwrap_or_else(|p| p.into_inner());
        let alloc = guard.as_mut().ok_or(PipeError::DeviceLost)?;
        alloc
            .allocate(&AllocationCreateDesc {
                name,
                requirements,
                location,
                linear,
                allocation_scheme: scheme,
            })
            .map_err(|e| match e {
                gpu_allocator::AllocationError::OutOfMemory => PipeError::OutOfMemory,
                e => PipeError::unsupported(format!("allocation of {name}: {e}")),
            })
    }

    /// Frees an allocation.
    pub fn free(&self, allocation: Allocation) {
        let mut guard = self.allocator.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(a) = guard.as_mut() {
            if let Err(e) = a.free(allocation) {
                tracing::error!("gpu-allocator free failed: {e}");
            }
        }
    }

    /// Bytes and device-memory objects in use.
    pub fn memory_stats(&self) -> MemoryStats {
        let guard = self.allocator.lock().unwrap_or_else(|p| p.into_inner());
        match guard.as_ref() {
            Some(a) => {
                let r = a.generate_report();
                MemoryStats {
                    allocated_bytes: r.total_allocated_bytes,
                    capacity_bytes: r.total_capacity_bytes,
                    device_memory_count: r.blocks.len(),
                }
            }
            None => MemoryStats::default(),
        }
    }

    /// Per-heap usage and budget (the memory budget tracker). With
    /// VK_EXT_memory_budget the numbers are the driver's; without it the
    /// budget is the heap size and the usage what our allocator holds.
    pub fn memory_budget(&self) -> Vec<HeapBudget> {
        let inst = &self.instance.raw;
        let mut budget = vk::PhysicalDeviceMemoryBudgetPropertiesEXT::default();
        let has_budget = self.device.features.has(ash::ext::memory_budget::NAME);
        let mut props = vk::PhysicalDeviceMemoryProperties2::default();
        if has_budget {
            props = props.push_next(&mut budget);
        }
        // SAFETY: the chain holds only the struct of an enabled extension.
        unsafe { inst.get_physical_device_memory_properties2(self.physical.raw, &mut props) };
        let mp = props.memory_properties;
        let ours = self.memory_stats().capacity_bytes;
        (0..mp.memory_heap_count as usize)
            .map(|i| {
                let size = mp.memory_heaps[i].size;
                if has_budget {
                    HeapBudget {
                        heap: i as u32,
                        size,
                        usage: budget.heap_usage[i],
                        budget: budget.heap_budget[i],
                    }
                } else {
                    HeapBudget {
                        heap: i as u32,
                        size,
                        usage: ours,
                        budget: size,
                    }
                }
            })
            .collect()
    }

    /// The timeline value known to be complete (queries the semaphore).
    pub fn completed_value(&self) -> u64 {
        // SAFETY: the semaphore is a live timeline semaphore of this device.
        match unsafe { self.raw().get_semaphore_counter_value(self.timeline) } {
            Ok(v) => {
                self.completed.fetch_max(v, Ordering::AcqRel);
                v
            }
            Err(_) => self.completed.load(Ordering::Acquire),
        }
    }

    /// Waits until the timeline reaches `value` or `timeout_ns` passes.
    /// Returns whether it was reached.
    pub fn wait_value(&self, value: u64, timeout_ns: u64) -> PipeResult<bool> {
        if self.completed.load(Ordering::Acquire) >= value {
            return Ok(true);
        }
        let sems = [self.timeline];
        let values = [value];
        let info = vk::SemaphoreWaitInfo::default()
            .semaphores(&sems)
            .values(&values);
        // SAFETY: the semaphore belongs to this device; the arrays outlive
        // the call.
        match unsafe { self.raw().wait_semaphores(&info, timeout_ns) } {
            Ok(()) => {
                self.completed.fetch_max(value, Ordering::AcqRel);
                Ok(true)
            }
            Err(vk::Result::TIMEOUT) => Ok(false),
            Err(e) => Err(vk_err("vkWaitSemaphores", e)),
        }
    }

    /// The screen's pipeline cache.
    pub fn disk_cache(&self) -> &crate::disk_cache::DiskCache {
        &self.disk_cache
    }

    /// `vkCmdBeginRendering` (core 1.3 or VK_KHR_dynamic_rendering).
    pub fn begin_rendering(&self, cmd: vk::CommandBuffer, info: &vk::RenderingInfo<'_>) {
        match &self.dynamic_rendering_khr {
            // SAFETY: the caller records into a command buffer of this device
            // with attachments in the layouts the info names.
            Some(khr) => unsafe { khr.cmd_begin_rendering(cmd, info) },
            // SAFETY: as above; core 1.3 dynamic rendering is enabled.
            None => unsafe { self.raw().cmd_begin_rendering(cmd, info) },
        }
    }

    /// `vkCmdEndRendering`.
    pub fn end_rendering(&self, cmd: vk::CommandBuffer) {
        match &self.dynamic_rendering_khr {
            // SAFETY: a rendering instance begun by `begin_rendering` is open.
            Some(khr) => unsafe { khr.cmd_end_rendering(cmd) },
            // SAFETY: as above.
            None => unsafe { self.raw().cmd_end_rendering(cmd) },
        }
    }

    /// The GPU clock in nanoseconds (`get_timestamp`), from a calibrated
    /// device-domain timestamp. `None` without VK_EXT_calibrated_timestamps.
    pub fn gpu_timestamp_ns(&self) -> Option<PipeResult<u64>> {
        let cal = self.calibrated.as_ref()?;
        let info =
            [vk::CalibratedTimestampInfoEXT::default().time_domain(vk::TimeDomainEXT::DEVICE)];
        // SAFETY: the DEVICE domain was reported calibrateable.
        let r = unsafe { cal.get_calibrated_timestamps(&info) };
        let period = f64::from(self.physical.properties.limits.timestamp_period);
        Some(match r {
            Ok((ticks, _deviation)) => {
                Ok((ticks.first().copied().unwrap_or(0) as f64 * period) as u64)
            }
            Err(e) => Err(vk_err("vkGetCalibratedTimestampsEXT", e)),
        })
    }

    /// Names a Vulkan object for debuggers (no-op without debug utils).
    pub fn set_name<H: vk::Handle>(&self, handle: H, name: &str) {
        let Some(loader) = &self.debug_utils else {
            return;
        };
        let Ok(cname) = std::ffi::CString::new(name) else {
            return;
        };
        let info = vk::DebugUtilsObjectNameInfoEXT::default()
            .object_handle(handle)
            .object_name(&cname);
        // SAFETY: the handle belongs to this device; the name outlives the call.
        let _ = unsafe { loader.set_debug_utils_object_name(&info) };
    }
}

impl Drop for DeviceShared {
    fn drop(&mut self) {
        // SAFETY: the last Arc is gone, so no context, resource or batch
        // remains; wait for the GPU, then destroy our children before the
        // device (dropped after this, then the instance).
        unsafe {
            let _ = self.device.raw.device_wait_idle();
            self.device.raw.destroy_semaphore(self.timeline, None);
        }
        self.disk_cache.save_and_destroy(&self.device.raw);
        let alloc = self
            .allocator
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        drop(alloc);
    }
}
