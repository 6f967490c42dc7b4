//! Debug-utils messenger plumbing.
//!
//! Validation-layer messages are the test oracle of this project: every
//! Vulkan-touching test must run with zero of them. The messenger callback
//! appends every message it receives (validation, syncval, performance) to a
//! process-wide list; the test runner drains it after each test with
//! [`take_messages`] and fails the test if anything was reported.
//!
//! The list is process-wide rather than per-screen because the layer calls the
//! callback from whatever thread it likes and a test may create several
//! screens; the runner isolates tests in child processes, so one list per
//! process is one list per test group.

use std::sync::Mutex;

static MESSAGES: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Records one layer message. Called from the messenger callback.
pub fn record_message(msg: String) {
    let mut list = MESSAGES.lock().unwrap_or_else(|p| p.into_inner());
    list.push(msg);
}

/// Returns and clears every message recorded since the last call.
pub fn take_messages() -> Vec<String> {
    let mut list = MESSAGES.lock().unwrap_or_else(|p| p.into_inner());
    std::mem::take(&mut *list)
}

/// Number of messages recorded and not yet taken.
pub fn message_count() -> usize {
    MESSAGES.lock().unwrap_or_else(|p| p.into_inner()).len()
}

use ash::vk;
use std::ffi::CStr;

/// Severities the messenger subscribes to. INFO and VERBOSE carry loader
/// chatter (layer discovery, ICD selection) that is not a finding.
pub(crate) fn messenger_severities() -> vk::DebugUtilsMessageSeverityFlagsEXT {
    vk::DebugUtilsMessageSeverityFlagsEXT::WARNING | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR
}

/// Message types the messenger subscribes to.
pub(crate) fn messenger_types() -> vk::DebugUtilsMessageTypeFlagsEXT {
    vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
        | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
        | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE
}

/// The `PFN_vkDebugUtilsMessengerCallbackEXT` of every pipe-vk instance.
///
/// # Safety
/// Called by the Vulkan loader with a valid (or null) callback-data pointer.
pub(crate) unsafe extern "system" fn messenger_callback(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    _user: *mut std::ffi::c_void,
) -> vk::Bool32 {
    // SAFETY: the loader passes a pointer valid for the call, or null.
    let Some(data) = (unsafe { data.as_ref() }) else {
        return vk::FALSE;
    };
    let text = |p: *const std::ffi::c_char| {
        if p.is_null() {
            String::new()
        } else {
            // SAFETY: non-null strings in callback data are NUL-terminated
            // and valid for the duration of the callback.
            unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
        }
    };
    let id = text(data.p_message_id_name);
    let msg = text(data.p_message);
    if is_layer_false_positive(&id, &msg) {
        return vk::FALSE;
    }
    let line = format!("[{severity:?} {types:?}] {id}: {msg}");
    tracing::warn!(target: "pipe_vk::validation", "{line}");
    record_message(line);
    vk::FALSE
}

/// Messages of layer bugs, which are not recorded. Each names the bug.
///
/// - `UNASSIGNED-CoreValidation-Shader-InterfaceTypeMismatch` for colour
///   attachment 0 of format `VK_FORMAT_UNDEFINED`: alpha-to-coverage with
///   no colour buffer 0 keeps the fragment shader's output 0 (Vulkan
///   requires it, VUID-VkGraphicsPipelineCreateInfo-alphaToCoverageEnable-08891;
///   GL's alpha-to-coverage works with draw buffer 0 set to NONE), and
///   the pipeline's format for the unused attachment is UNDEFINED, whose
///   writes are discarded (KhronosGroup/Vulkan-Docs#2125). Layer 1.3.239
///   compares the output's type with the unused attachment's at pipeline
///   creation; later layers check fragment outputs at draw time against
///   the attachments bound (KhronosGroup/Vulkan-ValidationLayers#9569).
fn is_layer_false_positive(id: &str, msg: &str) -> bool {
    id == "UNASSIGNED-CoreValidation-Shader-InterfaceTypeMismatch"
        && msg.contains(
            "Attachment 0 of type `VK_FORMAT_UNDEFINED` does not match fragment shader output",
        )
}
