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
