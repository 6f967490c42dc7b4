//! pipe-vk: Gallium's pipe screen and context on Vulkan, in the style of
//! Mesa's Zink.
//!
//! Entry point: [`create_screen`] opens the selected device (see
//! [`device`] for the selection rules) and returns an `Arc<dyn Screen>`
//! wrapped in pipe-core's validation layer. A frontend sees only pipe-core
//! types; ash types stay inside this crate.
//!
//! One file per concern, as in Zink:
//! - [`instance`]: loader, layers, debug messenger;
//! - [`device`]: physical-device selection, logical device and features;
//! - [`caps`]: the caps probe;
//! - [`format`]: pipe formats to Vulkan formats (and emulations);
//! - [`screen`]: the `Screen` implementation;
//! - [`context`]: the `Context` implementation;
//! - [`debug`]: validation-message collection (the test oracle).
//!
//! Environment: `PIPE_VK_DEVICE` (index or name substring),
//! `PIPE_VK_VALIDATION=1` (Khronos validation plus synchronization
//! validation).

pub mod caps;
pub mod context;
pub mod debug;
pub mod device;
pub mod format;
pub mod instance;
pub mod screen;

pub use screen::{create_screen, ScreenOptions, VkScreen};
