//! Physical-device selection and logical-device creation.
//!
//! Selection follows the design card: `PIPE_VK_DEVICE` (a decimal index into
//! the enumeration order, or a case-insensitive substring of the device name)
//! wins; otherwise prefer a discrete GPU, then integrated, then virtual, then
//! a CPU implementation (lavapipe). Devices below Vulkan 1.2 are skipped.
//!
//! Feature policy: we query what the device has and enable what the driver
//! can use, never assume. Core features are enabled as reported except
//! `robustBufferAccess` (a cost GL only pays with robustness contexts).
//! Extension features are enabled through their feature structs when the
//! extension is present; the [`Features`] struct records what was enabled and
//! is the only source the caps probe reads. Under RenderDoc lavapipe reports
//! Vulkan 1.2 and hides some extensions; the 1.3 features then come from
//! their KHR extensions or are reported missing.

use std::ffi::{c_char, CStr};

use ash::vk;
use pipe_core::{PipeError, PipeResult};

use crate::instance::{vk_err, Instance};

/// Device extensions pipe-vk uses when present.
pub const WANTED_EXTENSIONS: &[&CStr] = &[
    ash::khr::push_descriptor::NAME,
    ash::khr::dynamic_rendering::NAME,
    ash::khr::synchronization2::NAME,
    ash::khr::timeline_semaphore::NAME,
    ash::ext::calibrated_timestamps::NAME,
    ash::khr::calibrated_timestamps::NAME,
    ash::ext::transform_feedback::NAME,
    ash::ext::conditional_rendering::NAME,
    ash::ext::multi_draw::NAME,
    ash::ext::index_type_uint8::NAME,
    ash::ext::custom_border_color::NAME,
    ash::ext::depth_clip_enable::NAME,
    ash::ext::line_rasterization::NAME,
    ash::ext::extended_dynamic_state::NAME,
    ash::ext::extended_dynamic_state2::NAME,
    ash::ext::extended_dynamic_state3::NAME,
    ash::ext::vertex_input_dynamic_state::NAME,
    ash::ext::provoking_vertex::NAME,
    ash::ext::primitive_topology_list_restart::NAME,
    ash::ext::sample_locations::NAME,
    ash::ext::discard_rectangles::NAME,
    ash::ext::shader_stencil_export::NAME,
    ash::ext::depth_clip_control::NAME,
    ash::ext::color_write_enable::NAME,
    ash::ext::memory_budget::NAME,
    ash::ext::vertex_attribute_divisor::NAME,
    ash::ext::non_seamless_cube_map::NAME,
    ash::ext::primitives_generated_query::NAME,
    ash::ext::image_2d_view_of_3d::NAME,
    ash::khr::shader_non_semantic_info::NAME,
    ash::ext::shader_atomic_float::NAME,
];

/// Everything known about the chosen physical device.
pub struct PhysicalDevice {
    pub raw: vk::PhysicalDevice,
    pub index: usize,
    pub properties: vk::PhysicalDeviceProperties,
    pub driver_name: String,
    pub driver_info: String,
    pub extensions: Vec<String>,
    pub queue_family: u32,
    pub queue_flags: vk::QueueFlags,
    pub timestamp_valid_bits: u32,
}

impl PhysicalDevice {
    /// Device name as a `String`.
    pub fn name(&self) -> String {
        self.properties
            .device_name_as_c_str()
            .map(|c| c.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// Whether the device exposes `ext`.
    pub fn has_extension(&self, ext: &CStr) -> bool {
        let ext = ext.to_string_lossy();
        self.extensions.iter().any(|e| *e == ext)
    }

    /// API version as (major, minor, patch).
    pub fn api_version(&self) -> (u32, u32, u32) {
        let v = self.properties.api_version;
        (
            vk::api_version_major(v),
            vk::api_version_minor(v),
            vk::api_version_patch(v),
        )
    }
}

/// An extension's properties struct `T`, read through
/// `vkGetPhysicalDeviceProperties2`. The device must expose the extension.
pub fn extension_properties<T>(instance: &Instance, pd: &PhysicalDevice) -> T
where
    T: vk::ExtendsPhysicalDeviceProperties2 + Default,
{
    let mut props = T::default();
    let mut props2 = vk::PhysicalDeviceProperties2::default().push_next(&mut props);
    // SAFETY: the physical device belongs to the instance, and the chain
    // holds the properties of an extension it exposes (the caller's
    // promise).
    unsafe {
        instance
            .raw
            .get_physical_device_properties2(pd.raw, &mut props2)
    };
    props
}

fn type_rank(t: vk::PhysicalDeviceType) -> u32 {
    match t {
        vk::PhysicalDeviceType::DISCRETE_GPU => 0,
        vk::PhysicalDeviceType::INTEGRATED_GPU => 1,
        vk::PhysicalDeviceType::VIRTUAL_GPU => 2,
        vk::PhysicalDeviceType::CPU => 3,
        _ => 4,
    }
}

/// Describes every physical device (for `pipe-info --list` and errors).
pub fn enumerate(instance: &Instance) -> PipeResult<Vec<PhysicalDevice>> {
    // SAFETY: the instance is valid.
    let raws = unsafe { instance.raw.enumerate_physical_devices() }
        .map_err(|e| vk_err("vkEnumeratePhysicalDevices", e))?;
    let mut out = Vec::new();
    for (index, raw) in raws.into_iter().enumerate() {
        let mut driver = vk::PhysicalDeviceDriverProperties::default();
        let mut props2 = vk::PhysicalDeviceProperties2::default().push_next(&mut driver);
        // SAFETY: raw comes from this instance; the chain holds a struct
        // every 1.2 device understands.
        unsafe {
            instance
                .raw
                .get_physical_device_properties2(raw, &mut props2)
        };
        let properties = props2.properties;
        let cstr = |s: Result<&CStr, _>| {
            s.map(|c: &CStr| c.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        let driver_name = cstr(driver.driver_name_as_c_str());
        let driver_info = cstr(driver.driver_info_as_c_str());
        // SAFETY: raw is a valid physical device.
        let exts = unsafe { instance.raw.enumerate_device_extension_properties(raw) }
            .map_err(|e| vk_err("vkEnumerateDeviceExtensionProperties", e))?;
        let extensions = exts
            .iter()
            .filter_map(|e| e.extension_name_as_c_str().ok())
            .map(|c| c.to_string_lossy().into_owned())
            .collect();
        // SAFETY: raw is a valid physical device.
        let families = unsafe {
            instance
                .raw
                .get_physical_device_queue_family_properties(raw)
        };
        let want = vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE;
        let Some((qf, fam)) = families
            .iter()
            .enumerate()
            .find(|(_, f)| f.queue_flags.contains(want) && f.queue_count > 0)
        else {
            continue;
        };
        out.push(PhysicalDevice {
            raw,
            index,
            properties,
            driver_name,
            driver_info,
            extensions,
            queue_family: qf as u32,
            queue_flags: fam.queue_flags,
            timestamp_valid_bits: fam.timestamp_valid_bits,
        });
    }
    Ok(out)
}

/// Picks a device per the module doc. `selector` is `PIPE_VK_DEVICE`.
pub fn select(devices: Vec<PhysicalDevice>, selector: Option<&str>) -> PipeResult<PhysicalDevice> {
    let usable = |d: &PhysicalDevice| d.properties.api_version >= vk::API_VERSION_1_2;
    let names = || {
        devices
            .iter()
            .map(|d| format!("{}: {}", d.index, d.name()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if let Some(sel) = selector.map(str::trim).filter(|s| !s.is_empty()) {
        let found = if let Ok(i) = sel.parse::<usize>() {
            devices.iter().position(|d| d.index == i)
        } else {
            let needle = sel.to_lowercase();
            devices
                .iter()
                .position(|d| d.name().to_lowercase().contains(&needle))
        };
        let Some(pos) = found else {
            return Err(PipeError::invalid(format!(
                "PIPE_VK_DEVICE={sel:?} matches no device (have: {})",
                names()
            )));
        };
        let mut devices = devices;
        let d = devices.swap_remove(pos);
        if !usable(&d) {
            return Err(PipeError::unsupported(format!(
                "device {:?} supports only Vulkan {:?}; pipe-vk needs 1.2",
                d.name(),
                d.api_version()
            )));
        }
        return Ok(d);
    }
    let list = names();
    devices
        .into_iter()
        .filter(usable)
        .min_by_key(|d| (type_rank(d.properties.device_type), d.index))
        .ok_or_else(|| {
            PipeError::unsupported(format!(
                "no Vulkan 1.2 device with a graphics+compute queue (have: {list})"
            ))
        })
}

/// The features pipe-vk enabled on its device.
#[derive(Clone, Default)]
pub struct Features {
    pub core: vk::PhysicalDeviceFeatures,
    pub v11: vk::PhysicalDeviceVulkan11Features<'static>,
    pub v12: vk::PhysicalDeviceVulkan12Features<'static>,
    pub v13: vk::PhysicalDeviceVulkan13Features<'static>,
    pub transform_feedback: vk::PhysicalDeviceTransformFeedbackFeaturesEXT<'static>,
    pub conditional_rendering: vk::PhysicalDeviceConditionalRenderingFeaturesEXT<'static>,
    pub multi_draw: vk::PhysicalDeviceMultiDrawFeaturesEXT<'static>,
    pub index_type_uint8: vk::PhysicalDeviceIndexTypeUint8FeaturesEXT<'static>,
    pub custom_border_color: vk::PhysicalDeviceCustomBorderColorFeaturesEXT<'static>,
    pub depth_clip_enable: vk::PhysicalDeviceDepthClipEnableFeaturesEXT<'static>,
    pub line_rasterization: vk::PhysicalDeviceLineRasterizationFeaturesEXT<'static>,
    pub vertex_input_dynamic_state: vk::PhysicalDeviceVertexInputDynamicStateFeaturesEXT<'static>,
    pub extended_dynamic_state: vk::PhysicalDeviceExtendedDynamicStateFeaturesEXT<'static>,
    pub extended_dynamic_state2: vk::PhysicalDeviceExtendedDynamicState2FeaturesEXT<'static>,
    pub extended_dynamic_state3: vk::PhysicalDeviceExtendedDynamicState3FeaturesEXT<'static>,
    pub provoking_vertex: vk::PhysicalDeviceProvokingVertexFeaturesEXT<'static>,
    pub vertex_attribute_divisor: vk::PhysicalDeviceVertexAttributeDivisorFeaturesKHR<'static>,
    pub non_seamless_cube_map: vk::PhysicalDeviceNonSeamlessCubeMapFeaturesEXT<'static>,
    pub primitives_generated_query: vk::PhysicalDevicePrimitivesGeneratedQueryFeaturesEXT<'static>,
    pub image_2d_view_of_3d: vk::PhysicalDeviceImage2DViewOf3DFeaturesEXT<'static>,
    /// `shaderImageFloat32Atomics`: GLSL's `imageAtomicExchange` on
    /// `r32f` images (core since GL 4.5).
    pub shader_atomic_float: vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT<'static>,
    /// Names of the enabled device extensions.
    pub extensions: Vec<String>,
}

// SAFETY: the feature structs are plain data; their p_next pointers are
// reset to null before the struct is stored (see `clear_chain`).
unsafe impl Send for Features {}
// SAFETY: as above, nothing behind a pointer is shared.
unsafe impl Sync for Features {}

impl Features {
    /// Whether an extension was enabled.
    pub fn has(&self, ext: &CStr) -> bool {
        let ext = ext.to_string_lossy();
        self.extensions.iter().any(|e| *e == ext)
    }

    fn clear_chain(&mut self) {
        self.v11.p_next = std::ptr::null_mut();
        self.v12.p_next = std::ptr::null_mut();
        self.v13.p_next = std::ptr::null_mut();
        self.transform_feedback.p_next = std::ptr::null_mut();
        self.conditional_rendering.p_next = std::ptr::null_mut();
        self.multi_draw.p_next = std::ptr::null_mut();
        self.index_type_uint8.p_next = std::ptr::null_mut();
        self.custom_border_color.p_next = std::ptr::null_mut();
        self.depth_clip_enable.p_next = std::ptr::null_mut();
        self.line_rasterization.p_next = std::ptr::null_mut();
        self.vertex_input_dynamic_state.p_next = std::ptr::null_mut();
        self.extended_dynamic_state.p_next = std::ptr::null_mut();
        self.extended_dynamic_state2.p_next = std::ptr::null_mut();
        self.extended_dynamic_state3.p_next = std::ptr::null_mut();
        self.provoking_vertex.p_next = std::ptr::null_mut();
        self.vertex_attribute_divisor.p_next = std::ptr::null_mut();
        self.non_seamless_cube_map.p_next = std::ptr::null_mut();
        self.primitives_generated_query.p_next = std::ptr::null_mut();
        self.image_2d_view_of_3d.p_next = std::ptr::null_mut();
        self.shader_atomic_float.p_next = std::ptr::null_mut();
    }
}

/// Builds the feature chain for `f`, restricted to the extensions in
/// `exts`, and calls `body` with the head of the chain.
fn with_chain<R>(
    f: &mut Features,
    api_13: bool,
    exts: &[&CStr],
    body: impl FnOnce(&mut vk::PhysicalDeviceFeatures2<'_>) -> R,
) -> R {
    let has = |e: &CStr| exts.contains(&e);
    let mut head = vk::PhysicalDeviceFeatures2::default().features(f.core);
    head = head.push_next(&mut f.v11).push_next(&mut f.v12);
    if api_13 {
        head = head.push_next(&mut f.v13);
    }
    if has(ash::ext::transform_feedback::NAME) {
        head = head.push_next(&mut f.transform_feedback);
    }
    if has(ash::ext::conditional_rendering::NAME) {
        head = head.push_next(&mut f.conditional_rendering);
    }
    if has(ash::ext::multi_draw::NAME) {
        head = head.push_next(&mut f.multi_draw);
    }
    if has(ash::ext::index_type_uint8::NAME) {
        head = head.push_next(&mut f.index_type_uint8);
    }
    if has(ash::ext::custom_border_color::NAME) {
        head = head.push_next(&mut f.custom_border_color);
    }
    if has(ash::ext::depth_clip_enable::NAME) {
        head = head.push_next(&mut f.depth_clip_enable);
    }
    if has(ash::ext::line_rasterization::NAME) {
        head = head.push_next(&mut f.line_rasterization);
    }
    if has(ash::ext::vertex_input_dynamic_state::NAME) {
        head = head.push_next(&mut f.vertex_input_dynamic_state);
    }
    if has(ash::ext::extended_dynamic_state::NAME) {
        head = head.push_next(&mut f.extended_dynamic_state);
    }
    if has(ash::ext::extended_dynamic_state2::NAME) {
        head = head.push_next(&mut f.extended_dynamic_state2);
    }
    if has(ash::ext::extended_dynamic_state3::NAME) {
        head = head.push_next(&mut f.extended_dynamic_state3);
    }
    if has(ash::ext::provoking_vertex::NAME) {
        head = head.push_next(&mut f.provoking_vertex);
    }
    if has(ash::ext::vertex_attribute_divisor::NAME) {
        head = head.push_next(&mut f.vertex_attribute_divisor);
    }
    if has(ash::ext::non_seamless_cube_map::NAME) {
        head = head.push_next(&mut f.non_seamless_cube_map);
    }
    if has(ash::ext::primitives_generated_query::NAME) {
        head = head.push_next(&mut f.primitives_generated_query);
    }
    if has(ash::ext::image_2d_view_of_3d::NAME) {
        head = head.push_next(&mut f.image_2d_view_of_3d);
    }
    if has(ash::ext::shader_atomic_float::NAME) {
        head = head.push_next(&mut f.shader_atomic_float);
    }
    body(&mut head)
}

/// A logical device with its queue.
pub struct Device {
    pub raw: ash::Device,
    pub queue: vk::Queue,
    pub features: Features,
}

impl Device {
    /// Creates the logical device on `pd` with the features of the module doc.
    pub fn new(instance: &Instance, pd: &PhysicalDevice) -> PipeResult<Self> {
        let api_13 = pd.properties.api_version >= vk::API_VERSION_1_3;
        let exts: Vec<&CStr> = WANTED_EXTENSIONS
            .iter()
            .copied()
            .filter(|e| pd.has_extension(e))
            // Promoted to 1.3 core: do not enable the extension as well.
            .filter(|e| {
                !(api_13
                    && (*e == ash::khr::dynamic_rendering::NAME
                        || *e == ash::khr::synchronization2::NAME
                        || *e == ash::khr::shader_non_semantic_info::NAME))
            })
            .filter(|e| *e != ash::khr::timeline_semaphore::NAME)
            // One calibrated-timestamps extension is enough, and it is the
            // EXT one where both exist: `memory.rs` calls the EXT entry
            // point, and the Debian validation layer (1.3.239) predates the
            // KHR promotion, so it warns about VK_KHR_calibrated_timestamps
            // on every device that has it (NVIDIA 580 exposes both).
            .filter(|e| {
                *e != ash::khr::calibrated_timestamps::NAME
                    || !pd.has_extension(ash::ext::calibrated_timestamps::NAME)
            })
            .collect();

        let mut f = Features::default();
        let core = with_chain(&mut f, api_13, &exts, |head| {
            // SAFETY: the chain only holds structs of extensions the device
            // exposes (or core 1.1-1.3 structs of its API version).
            unsafe { instance.raw.get_physical_device_features2(pd.raw, head) };
            head.features
        });
        f.core = core;
        f.clear_chain();

        // Policy: robustBufferAccess off; everything else as reported.
        f.core.robust_buffer_access = vk::FALSE;
        // Features that need extra extensions or cost without users.
        f.v12.buffer_device_address_capture_replay = vk::FALSE;
        f.v12.buffer_device_address_multi_device = vk::FALSE;
        f.v13.robust_image_access = vk::FALSE;

        let ext_ptrs: Vec<*const c_char> = exts.iter().map(|e| e.as_ptr()).collect();
        let priorities = [1.0f32];
        let queue_info = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(pd.queue_family)
            .queue_priorities(&priorities)];
        let raw = with_chain(&mut f, api_13, &exts, |head| {
            let info = vk::DeviceCreateInfo::default()
                .queue_create_infos(&queue_info)
                .enabled_extension_names(&ext_ptrs)
                .push_next(head);
            // SAFETY: every enabled feature was reported by the device and
            // every extension is exposed by it; pointers outlive the call.
            unsafe { instance.raw.create_device(pd.raw, &info, None) }
        })
        .map_err(|e| vk_err("vkCreateDevice", e))?;
        f.clear_chain();
        f.extensions = exts
            .iter()
            .map(|e| e.to_string_lossy().into_owned())
            .collect();
        // SAFETY: the family and index were requested at creation.
        let queue = unsafe { raw.get_device_queue(pd.queue_family, 0) };
        Ok(Device {
            raw,
            queue,
            features: f,
        })
    }
}

impl Drop for Device {
    fn drop(&mut self) {
        // SAFETY: the screen drops the device last among its children, after
        // waiting for idle; no object created from it survives.
        unsafe {
            let _ = self.raw.device_wait_idle();
            self.raw.destroy_device(None);
        }
    }
}
