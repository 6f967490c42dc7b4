//! Vulkan instance creation: loader, layers, debug messenger.
//!
//! The instance asks for API 1.3 (the newest the Debian validation layer
//! 1.3.239 understands; devices may still report 1.4). Validation is turned
//! on by `PIPE_VK_VALIDATION=1` (or the screen option): we then enable
//! `VK_LAYER_KHRONOS_validation` explicitly and switch on synchronization
//! validation through `VkValidationFeaturesEXT`. A layer enabled from the
//! environment (`VK_LOADER_LAYERS_ENABLE=*validation`) works as well, since
//! the messenger is always installed when `VK_EXT_debug_utils` exists. The
//! messenger is also chained into `VkInstanceCreateInfo` so messages about
//! instance creation and destruction are not lost.

use std::ffi::{c_char, CStr};

use ash::vk;
use pipe_core::{PipeError, PipeResult};

use crate::debug;

const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

/// A Vulkan instance with its optional debug messenger.
pub struct Instance {
    pub entry: ash::Entry,
    pub raw: ash::Instance,
    pub debug_utils: Option<ash::ext::debug_utils::Instance>,
    messenger: vk::DebugUtilsMessengerEXT,
    /// Whether the validation layer was enabled by us.
    pub validation: bool,
}

pub(crate) fn vk_err(what: &str, e: vk::Result) -> PipeError {
    match e {
        vk::Result::ERROR_OUT_OF_HOST_MEMORY | vk::Result::ERROR_OUT_OF_DEVICE_MEMORY => {
            PipeError::OutOfMemory
        }
        vk::Result::ERROR_DEVICE_LOST => PipeError::DeviceLost,
        e => PipeError::Unsupported(format!("{what} failed: {e:?}")),
    }
}

impl Instance {
    /// Loads the Vulkan loader and creates the instance.
    pub fn new(validation: bool) -> PipeResult<Self> {
        // SAFETY: loading the system Vulkan loader runs its initialisers;
        // that is the documented way to use it.
        let entry = unsafe { ash::Entry::load() }
            .map_err(|e| PipeError::unsupported(format!("cannot load the Vulkan loader: {e}")))?;

        // SAFETY: entry is a loaded loader; the call has no preconditions.
        let layers = unsafe { entry.enumerate_instance_layer_properties() }
            .map_err(|e| vk_err("vkEnumerateInstanceLayerProperties", e))?;
        let has_layer = |name: &CStr| {
            layers
                .iter()
                .any(|l| l.layer_name_as_c_str().is_ok_and(|n| n == name))
        };
        if validation && !has_layer(VALIDATION_LAYER) {
            return Err(PipeError::unsupported(
                "validation requested but VK_LAYER_KHRONOS_validation is not installed \
                 (run ci/bootstrap.sh)",
            ));
        }
        // SAFETY: as above.
        let exts = unsafe { entry.enumerate_instance_extension_properties(None) }
            .map_err(|e| vk_err("vkEnumerateInstanceExtensionProperties", e))?;
        let has_ext = |name: &CStr| {
            exts.iter()
                .any(|e| e.extension_name_as_c_str().is_ok_and(|n| n == name))
        };
        let has_debug_utils = has_ext(ash::ext::debug_utils::NAME) || validation;

        let mut ext_names: Vec<*const c_char> = Vec::new();
        if has_debug_utils {
            ext_names.push(ash::ext::debug_utils::NAME.as_ptr());
        }
        let mut layer_names: Vec<*const c_char> = Vec::new();
        if validation {
            layer_names.push(VALIDATION_LAYER.as_ptr());
        }

        let app = vk::ApplicationInfo::default()
            .application_name(c"pipe-vk")
            .engine_name(c"pipe-vk")
            .api_version(vk::API_VERSION_1_3);
        let enabled_validation = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
        let mut validation_features =
            vk::ValidationFeaturesEXT::default().enabled_validation_features(&enabled_validation);
        let messenger_info = || {
            vk::DebugUtilsMessengerCreateInfoEXT::default()
                .message_severity(debug::messenger_severities())
                .message_type(debug::messenger_types())
                .pfn_user_callback(Some(debug::messenger_callback))
        };
        let mut chained_messenger_info = messenger_info();
        let mut info = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_extension_names(&ext_names)
            .enabled_layer_names(&layer_names);
        if has_debug_utils {
            info = info.push_next(&mut chained_messenger_info);
        }
        if validation {
            info = info.push_next(&mut validation_features);
        }
        // SAFETY: every pointer in `info` refers to locals that outlive the call.
        let raw = unsafe { entry.create_instance(&info, None) }
            .map_err(|e| vk_err("vkCreateInstance", e))?;

        let (debug_utils, messenger) = if has_debug_utils {
            let du = ash::ext::debug_utils::Instance::new(&entry, &raw);
            // SAFETY: the instance was created with VK_EXT_debug_utils.
            match unsafe { du.create_debug_utils_messenger(&messenger_info(), None) } {
                Ok(m) => (Some(du), m),
                Err(e) => {
                    // SAFETY: nothing else was created from the instance.
                    unsafe { raw.destroy_instance(None) };
                    return Err(vk_err("vkCreateDebugUtilsMessengerEXT", e));
                }
            }
        } else {
            (None, vk::DebugUtilsMessengerEXT::null())
        };
        Ok(Instance {
            entry,
            raw,
            debug_utils,
            messenger,
            validation,
        })
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        // SAFETY: the device (owned by the screen, dropped first) and every
        // other child object are gone; the messenger is the last child.
        unsafe {
            if let Some(du) = &self.debug_utils {
                du.destroy_debug_utils_messenger(self.messenger, None);
            }
            self.raw.destroy_instance(None);
        }
    }
}
