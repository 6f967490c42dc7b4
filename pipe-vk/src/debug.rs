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
    let line = format!("[{severity:?} {types:?}] {id}: {msg}");
    tracing::warn!(target: "pipe_vk::validation", "{line}");
    record_message(line);
    vk::FALSE
}
