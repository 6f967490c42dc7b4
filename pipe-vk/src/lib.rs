//! pipe-vk: Gallium's pipe screen and context on Vulkan (placeholder, being written).

pub mod debug;
pub mod format;
