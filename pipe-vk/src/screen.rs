//! The Vulkan pipe screen: instance, chosen device, caps, format support.
//!
//! [`create_screen`] is the entry point. It returns the screen wrapped in
//! `pipe_core::validate::ValidatingScreen`, so frontend input is checked
//! before it reaches Vulkan. Options come from the environment the way
//! Mesa drivers read theirs: `PIPE_VK_DEVICE` (device selector) and
//! `PIPE_VK_VALIDATION=1` (Khronos validation plus synchronization
//! validation); [`ScreenOptions`] overrides both.
//!
//! Field order matters: the device is declared (and so dropped) before the
//! instance.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use ash::vk;
use pipe_core::caps::Caps;
use pipe_core::resource::{BindFlags, Resource, ResourceTemplate, Target};
use pipe_core::screen::{Fence, Screen, SparsePageSize};
use pipe_core::validate::ValidatingScreen;
use pipe_core::{Context, Format, PipeError, PipeResult};

use crate::context::VkContext;
use crate::device::{self, Device};
use crate::instance::Instance;
use crate::memory::{DebugFlags, DeviceShared};

/// How to open a screen. `None` fields fall back to the environment.
#[derive(Clone, Debug, Default)]
pub struct ScreenOptions {
    /// Device selector (index or name substring); `PIPE_VK_DEVICE`.
    pub device: Option<String>,
    /// Enable validation plus syncval; `PIPE_VK_VALIDATION=1`.
    pub validation: Option<bool>,
    /// Force the staging paths; `PIPE_VK_DEBUG=staging`.
    pub staging: Option<bool>,
    /// Force the shader emulation of line stipple;
    /// `PIPE_VK_DEBUG=emulate_line_stipple`.
    pub emulate_line_stipple: Option<bool>,
    /// Force the shader emulation of single-sampled smooth lines;
    /// `PIPE_VK_DEBUG=emulate_smooth_lines`.
    pub emulate_smooth_lines: Option<bool>,
    /// Record every `draw_vbo` call on its own; `PIPE_VK_DEBUG=no_draw_merge`.
    pub no_draw_merge: Option<bool>,
    /// Widen 8-bit indices on the CPU even where the device reads them;
    /// `PIPE_VK_DEBUG=no_index_uint8`.
    pub no_index_uint8: Option<bool>,
    /// Fetch vertex formats through their shader fix-ups;
    /// `PIPE_VK_DEBUG=vertex_fixups`.
    pub vertex_fixups: Option<bool>,
    /// Bake blend state into pipelines even where it can be dynamic;
    /// `PIPE_VK_DEBUG=no_dynamic_blend`.
    pub no_dynamic_blend: Option<bool>,
    /// Bake rasterizer state into pipelines even where it can be dynamic;
    /// `PIPE_VK_DEBUG=no_dynamic_rasterizer`.
    pub no_dynamic_rasterizer: Option<bool>,
    /// Bind every upload of user constants as its own descriptor;
    /// `PIPE_VK_DEBUG=no_cb0_push_offset`.
    pub no_cb0_push_offset: Option<bool>,
    /// Bake vertex input into pipelines even where it can be dynamic;
    /// `PIPE_VK_DEBUG=no_dynamic_vertex_input`.
    pub no_dynamic_vertex_input: Option<bool>,
    /// Begin and end queries only outside rendering instances;
    /// `PIPE_VK_DEBUG=no_query_in_rendering`.
    pub no_query_in_rendering: Option<bool>,
    /// Discard window rectangles in the fragment shader even where the
    /// device has VK_EXT_discard_rectangles;
    /// `PIPE_VK_DEBUG=no_discard_rectangles`.
    pub no_discard_rectangles: Option<bool>,
    /// Count `PRIMITIVES_GENERATED` through pipeline statistics even where
    /// the device has VK_EXT_primitives_generated_query;
    /// `PIPE_VK_DEBUG=no_primitives_generated_query`.
    pub no_primitives_generated_query: Option<bool>,
    /// Read draw-auto's vertex count back on the CPU even where the device
    /// draws from the counter; `PIPE_VK_DEBUG=no_xfb_draw`.
    pub no_xfb_draw: Option<bool>,
    /// Make every buffer view from a buffer aliasing the memory with one
    /// texel-buffer usage; `PIPE_VK_DEBUG=texel_aliases`.
    pub texel_aliases: Option<bool>,
}

impl ScreenOptions {
    /// Options from the environment only.
    pub fn from_env() -> Self {
        ScreenOptions::default()
    }

    fn debug_flags(&self) -> DebugFlags {
        let mut f = DebugFlags::from_env();
        if let Some(s) = self.staging {
            f.staging = s;
        }
        if let Some(s) = self.emulate_line_stipple {
            f.emulate_line_stipple = s;
        }
        if let Some(s) = self.emulate_smooth_lines {
            f.emulate_smooth_lines = s;
        }
        if let Some(s) = self.no_draw_merge {
            f.no_draw_merge = s;
        }
        if let Some(s) = self.no_index_uint8 {
            f.no_index_uint8 = s;
        }
        if let Some(s) = self.vertex_fixups {
            f.vertex_fixups = s;
        }
        if let Some(s) = self.no_dynamic_blend {
            f.no_dynamic_blend = s;
        }
        if let Some(s) = self.no_dynamic_rasterizer {
            f.no_dynamic_rasterizer = s;
        }
        if let Some(s) = self.no_dynamic_vertex_input {
            f.no_dynamic_vertex_input = s;
        }
        if let Some(s) = self.no_cb0_push_offset {
            f.no_cb0_push_offset = s;
        }
        if let Some(s) = self.no_query_in_rendering {
            f.no_query_in_rendering = s;
        }
        if let Some(s) = self.no_discard_rectangles {
            f.no_discard_rectangles = s;
        }
        if let Some(s) = self.no_primitives_generated_query {
            f.no_primitives_generated_query = s;
        }
        if let Some(s) = self.no_xfb_draw {
            f.no_xfb_draw = s;
        }
        if let Some(s) = self.texel_aliases {
            f.texel_aliases = s;
        }
        f
    }

    fn resolve(&self) -> (Option<String>, bool) {
        let device = self
            .device
            .clone()
            .or_else(|| std::env::var("PIPE_VK_DEVICE").ok());
        let validation = self.validation.unwrap_or_else(|| {
            std::env::var("PIPE_VK_VALIDATION").is_ok_and(|v| v == "1" || v == "true")
        });
        (device, validation)
    }
}

/// The Vulkan screen.
pub struct VkScreen {
    shared: Arc<DeviceShared>,
    caps: Caps,
    next_context_id: AtomicU64,
}

/// Opens a screen on the selected device, wrapped in the validation layer
/// of pipe-core.
pub fn create_screen(options: &ScreenOptions) -> PipeResult<Arc<dyn Screen>> {
    let raw = VkScreen::new(options)?;
    Ok(ValidatingScreen::new(raw))
}

impl VkScreen {
    /// Opens the unwrapped screen (for tools that need Vulkan details).
    pub fn new(options: &ScreenOptions) -> PipeResult<Arc<VkScreen>> {
        let (selector, validation) = options.resolve();
        let instance = Instance::new(validation)?;
        let devices = device::enumerate(&instance)?;
        let physical = device::select(devices, selector.as_deref())?;
        let device = Device::new(&instance, &physical)?;
        let debug = options.debug_flags();
        let mut caps = crate::caps::probe(&instance, &physical, &device.features);
        caps.index_uint8 &= !debug.no_index_uint8;
        if !caps.timeline_semaphore {
            return Err(PipeError::unsupported(format!(
                "{} lacks timelineSemaphore, which pipe-vk requires",
                physical.name()
            )));
        }
        tracing::info!(
            device = %physical.name(),
            driver = %physical.driver_name,
            validation,
            "pipe-vk screen created"
        );
        let shared = Arc::new(DeviceShared::new(instance, physical, device, debug)?);
        caps.programmable_sample_locations = shared.sample_locations.is_some();
        Ok(Arc::new(VkScreen {
            shared,
            caps,
            next_context_id: AtomicU64::new(1),
        }))
    }

    /// Every physical device the loader reports (for `pipe-info --list`).
    pub fn list_devices(validation: bool) -> PipeResult<Vec<(usize, String, String)>> {
        let instance = Instance::new(validation)?;
        Ok(device::enumerate(&instance)?
            .iter()
            .map(|d| (d.index, d.name(), format!("{:?}", d.properties.device_type)))
            .collect())
    }

    /// The enabled device extensions.
    pub fn enabled_extensions(&self) -> &[String] {
        &self.shared.device.features.extensions
    }

    /// Whether the validation layer was enabled by this screen.
    pub fn validation_enabled(&self) -> bool {
        self.shared.instance.validation
    }

    /// The device's format properties for `format`, or `None` when pipe-vk
    /// has no Vulkan format for it.
    fn format_properties(&self, format: Format) -> Option<(vk::Format, vk::FormatProperties)> {
        let vkf = crate::format::vk_format_or_emulated(format)?;
        let mut props = vk::FormatProperties2::default();
        // SAFETY: the physical device belongs to this instance.
        unsafe {
            self.shared
                .instance
                .raw
                .get_physical_device_format_properties2(self.shared.physical.raw, vkf, &mut props)
        };
        let mut p = props.format_properties;
        // Swizzled emulations cannot be rendered to or stored (Zink's rule).
        if crate::format::vk_format(format).is_none() {
            if let Some(e) = crate::format::emulated(format) {
                if !e.renderable() {
                    let strip = vk::FormatFeatureFlags::COLOR_ATTACHMENT
                        | vk::FormatFeatureFlags::COLOR_ATTACHMENT_BLEND
                        | vk::FormatFeatureFlags::DEPTH_STENCIL_ATTACHMENT;
                    p.optimal_tiling_features &= !strip;
                }
                if !e.storage() {
                    p.optimal_tiling_features &= !vk::FormatFeatureFlags::STORAGE_IMAGE;
                    p.buffer_features &= !vk::FormatFeatureFlags::STORAGE_TEXEL_BUFFER;
                }
            }
        }
        Some((vkf, p))
    }
}

fn image_usage(bind: BindFlags) -> vk::ImageUsageFlags {
    let mut u = vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST;
    if bind.contains(BindFlags::SAMPLER_VIEW) {
        u |= vk::ImageUsageFlags::SAMPLED;
    }
    if bind.contains(BindFlags::RENDER_TARGET) {
        u |= vk::ImageUsageFlags::COLOR_ATTACHMENT;
    }
    if bind.contains(BindFlags::DEPTH_STENCIL) {
        u |= vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT;
    }
    if bind.contains(BindFlags::SHADER_IMAGE) {
        u |= vk::ImageUsageFlags::STORAGE;
    }
    u
}

impl Screen for VkScreen {
    fn name(&self) -> &str {
        &self.caps.device_name
    }

    fn caps(&self) -> &Caps {
        &self.caps
    }

    fn is_format_supported(
        &self,
        format: Format,
        target: Target,
        sample_count: u32,
        _storage_sample_count: u32,
        bind: BindFlags,
    ) -> bool {
        let samples = sample_count.max(1);
        // Vertex buffers: whatever pipe-vk fetches, natively or through
        // its shader fix-ups (formats Vulkan lacks included).
        let bind = if target == Target::Buffer && bind.contains(BindFlags::VERTEX_BUFFER) {
            if samples != 1 || !crate::format::vertex_fetchable(&self.shared, format) {
                return false;
            }
            let rest = bind - BindFlags::VERTEX_BUFFER;
            if rest.is_empty() {
                return true;
            }
            rest
        } else {
            bind
        };
        let Some((vkf, props)) = self.format_properties(format) else {
            return false;
        };
        if target == Target::Buffer {
            let f = props.buffer_features;
            let need = [
                (
                    BindFlags::VERTEX_BUFFER,
                    vk::FormatFeatureFlags::VERTEX_BUFFER,
                ),
                // A view of a format with one of the two features is made
                // from an alias with that usage alone
                // (`ResourceObject::texel_view_buffer`).
                (
                    BindFlags::SAMPLER_VIEW,
                    crate::resource::TexelUse::Uniform.feature(),
                ),
                (
                    BindFlags::SHADER_IMAGE,
                    crate::resource::TexelUse::Storage.feature(),
                ),
            ];
            let image_binds = BindFlags::RENDER_TARGET | BindFlags::DEPTH_STENCIL;
            // Buffer views have no swizzle for an emulated format.
            let views = BindFlags::SAMPLER_VIEW | BindFlags::SHADER_IMAGE;
            if bind.intersects(views) && crate::format::vk_format(format).is_none() {
                return false;
            }
            return samples == 1
                && !bind.intersects(image_binds)
                && need
                    .iter()
                    .all(|(b, feat)| !bind.contains(*b) || f.contains(*feat));
        }
        if bind.intersects(
            BindFlags::VERTEX_BUFFER | BindFlags::INDEX_BUFFER | BindFlags::CONSTANT_BUFFER,
        ) {
            return false;
        }
        let f = props.optimal_tiling_features;
        let need = [
            (
                BindFlags::SAMPLER_VIEW,
                vk::FormatFeatureFlags::SAMPLED_IMAGE,
            ),
            (
                BindFlags::RENDER_TARGET,
                vk::FormatFeatureFlags::COLOR_ATTACHMENT,
            ),
            (
                BindFlags::BLENDABLE,
                vk::FormatFeatureFlags::COLOR_ATTACHMENT_BLEND,
            ),
            (
                BindFlags::DEPTH_STENCIL,
                vk::FormatFeatureFlags::DEPTH_STENCIL_ATTACHMENT,
            ),
            (
                BindFlags::SHADER_IMAGE,
                vk::FormatFeatureFlags::STORAGE_IMAGE,
            ),
        ];
        if !need
            .iter()
            .all(|(b, feat)| !bind.contains(*b) || f.contains(*feat))
        {
            return false;
        }
        if f.is_empty() {
            return false;
        }
        let (ty, flags) = match target {
            Target::Texture1D | Target::Texture1DArray => {
                (vk::ImageType::TYPE_1D, vk::ImageCreateFlags::empty())
            }
            Target::Texture3D => (vk::ImageType::TYPE_3D, vk::ImageCreateFlags::empty()),
            Target::TextureCube | Target::TextureCubeArray => (
                vk::ImageType::TYPE_2D,
                vk::ImageCreateFlags::CUBE_COMPATIBLE,
            ),
            _ => (vk::ImageType::TYPE_2D, vk::ImageCreateFlags::empty()),
        };
        if samples > 1 && !matches!(target, Target::Texture2D | Target::Texture2DArray) {
            return false;
        }
        // SAFETY: the physical device belongs to this instance; the query has
        // no other preconditions.
        let ifp = unsafe {
            self.shared
                .instance
                .raw
                .get_physical_device_image_format_properties(
                    self.shared.physical.raw,
                    vkf,
                    ty,
                    vk::ImageTiling::OPTIMAL,
                    image_usage(bind),
                    flags,
                )
        };
        match ifp {
            Ok(p) => samples.is_power_of_two() && p.sample_counts.as_raw() & samples != 0,
            Err(_) => false,
        }
    }

    fn resource_create(&self, template: &ResourceTemplate) -> PipeResult<Resource> {
        crate::resource::resource_create(&self.shared, template)
    }

    fn resource_destroy(&self, resource: Resource) {
        drop(resource);
    }

    fn context_create(self: Arc<Self>) -> PipeResult<Box<dyn Context>> {
        let id = self.next_context_id.fetch_add(1, Ordering::Relaxed);
        Ok(Box::new(VkContext::new(self, id)?))
    }

    fn fence_finish(
        &self,
        ctx: Option<&mut dyn Context>,
        fence: &Fence,
        timeout_ns: u64,
    ) -> PipeResult<bool> {
        crate::fence::fence_finish(&self.shared, ctx, fence, timeout_ns)
    }
    fn create_reusable_fence(&self) -> PipeResult<Fence> {
        Ok(crate::fence::new_reusable_fence(&self.shared))
    }

    fn get_timestamp(&self) -> PipeResult<u64> {
        self.shared.gpu_timestamp_ns().unwrap_or_else(|| {
            Err(PipeError::unsupported(
                "get_timestamp needs VK_EXT_calibrated_timestamps (a TIMESTAMP query gives \
                 the device's time without it)",
            ))
        })
    }

    fn get_sparse_texture_virtual_page_size(
        &self,
        _target: Target,
        _multi_sample: bool,
        _format: Format,
    ) -> PipeResult<Vec<SparsePageSize>> {
        Err(PipeError::unsupported("pipe-vk has no sparse textures yet"))
    }

    fn get_sample_position(&self, sample_count: u32, index: u32) -> Option<[f32; 2]> {
        standard_sample_position(sample_count, index)
    }

    fn get_sample_pixel_grid(&self, sample_count: u32) -> (u32, u32) {
        self.shared
            .sample_locations
            .as_ref()
            .and_then(|s| s.grid(sample_count.max(1)))
            .map_or((1, 1), |g| (g.width, g.height))
    }
}

/// Vulkan's standard sample locations (`VkPhysicalDeviceLimits::
/// standardSampleLocations`), in pixel units [0, 1).
pub fn standard_sample_position(sample_count: u32, index: u32) -> Option<[f32; 2]> {
    const S1: &[[f32; 2]] = &[[0.5, 0.5]];
    const S2: &[[f32; 2]] = &[[0.75, 0.75], [0.25, 0.25]];
    const S4: &[[f32; 2]] = &[
        [0.375, 0.125],
        [0.875, 0.375],
        [0.125, 0.625],
        [0.625, 0.875],
    ];
    const S8: &[[f32; 2]] = &[
        [0.5625, 0.3125],
        [0.4375, 0.6875],
        [0.8125, 0.5625],
        [0.3125, 0.1875],
        [0.1875, 0.8125],
        [0.0625, 0.4375],
        [0.6875, 0.9375],
        [0.9375, 0.0625],
    ];
    const S16: &[[f32; 2]] = &[
        [0.5625, 0.5625],
        [0.4375, 0.3125],
        [0.3125, 0.625],
        [0.75, 0.4375],
        [0.1875, 0.375],
        [0.625, 0.8125],
        [0.8125, 0.6875],
        [0.6875, 0.1875],
        [0.375, 0.875],
        [0.5, 0.0625],
        [0.25, 0.125],
        [0.125, 0.75],
        [0.0, 0.5],
        [0.9375, 0.25],
        [0.875, 0.9375],
        [0.0625, 0.0],
    ];
    let table = match sample_count {
        0 | 1 => S1,
        2 => S2,
        4 => S4,
        8 => S8,
        16 => S16,
        _ => return None,
    };
    table.get(index as usize).copied()
}

impl VkScreen {
    /// The raw device, for tools and tests that check Vulkan-level facts.
    /// Frontends have no use for it.
    pub fn vk_device(&self) -> &ash::Device {
        &self.shared.device.raw
    }

    /// A context without pipe-core's validation wrapper, for tests and
    /// tools that read its counters ([`VkContext::barrier_count`]).
    pub fn create_vk_context(self: &Arc<Self>) -> PipeResult<VkContext> {
        let id = self.next_context_id.fetch_add(1, Ordering::Relaxed);
        VkContext::new(self.clone(), id)
    }

    /// Whether the staging paths are forced.
    pub fn staging_forced(&self) -> bool {
        self.shared.debug.staging
    }

    /// Whether draws record vertex input as dynamic state
    /// (VK_EXT_vertex_input_dynamic_state, unless
    /// `PIPE_VK_DEBUG=no_dynamic_vertex_input`).
    pub fn dynamic_vertex_input(&self) -> bool {
        self.shared.dynamic_vertex_input()
    }

    /// Whether rasterizer state is dynamic (VK_EXT_extended_dynamic_state3
    /// and VK_EXT_line_rasterization, unless
    /// `PIPE_VK_DEBUG=no_dynamic_rasterizer`).
    pub fn dynamic_rasterizer(&self) -> bool {
        self.shared.dynamic_rasterizer()
    }

    /// Whether blend state is dynamic (VK_EXT_extended_dynamic_state3,
    /// unless `PIPE_VK_DEBUG=no_dynamic_blend`).
    pub fn dynamic_blend(&self) -> bool {
        self.shared.dynamic_blend()
    }

    /// Whether the sample mask, alpha-to-coverage and alpha-to-one are
    /// dynamic state (VK_EXT_extended_dynamic_state3).
    pub fn dynamic_sample_state(&self) -> bool {
        self.shared.dynamic_sample_state()
    }

    /// Whether vertex formats with a shader fetch fix-up take it even
    /// where the device fetches them (`PIPE_VK_DEBUG=vertex_fixups`).
    pub fn vertex_fixups_forced(&self) -> bool {
        self.shared.debug.vertex_fixups
    }

    /// The state shared with contexts and resources.
    pub(crate) fn shared(&self) -> &Arc<DeviceShared> {
        &self.shared
    }

    /// The pipeline cache: its file, the bytes loaded at start, and the
    /// key lookups and pipelines created so far across contexts.
    pub fn pipeline_cache_info(&self) -> (Option<std::path::PathBuf>, usize, u64, u64) {
        let d = self.shared.disk_cache();
        (
            d.path().map(|p| p.to_path_buf()),
            d.loaded_bytes,
            d.lookups.load(std::sync::atomic::Ordering::Relaxed),
            d.created.load(std::sync::atomic::Ordering::Relaxed),
        )
    }

    /// Per-heap usage and budget.
    pub fn memory_budget(&self) -> Vec<crate::memory::HeapBudget> {
        self.shared.memory_budget()
    }

    /// Device memory in use (for the memory benchmark and tests).
    pub fn memory_stats(&self) -> crate::memory::MemoryStats {
        self.shared.memory_stats()
    }
}
