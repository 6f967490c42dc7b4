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
//! - [`memory`]: the shared device, allocator and memory policy;
//! - [`resource`]: buffers and images, renaming, busy tracking;
//! - [`sync`]: access tracking and batched barriers;
//! - [`batch`]: command buffers, submission, timeline, retirement;
//! - [`fence`]: fences as timeline values;
//! - [`transfer`]: maps, staging, subdata;
//! - [`copy`], [`clear`]: `resource_copy_region`, buffer/texture clears,
//!   surface clears and deferred clears (driven by `pipe_core::aux`);
//! - [`upload`]: the stream and const uploaders;
//! - [`view`]: sampler views and surfaces, with a per-image view cache;
//! - [`shader`], [`pipeline`], [`draw`]: shader variants, pipelines with
//!   dynamic rendering and dynamic state, and `draw_vbo`;
//! - [`merge`]: consecutive `draw_vbo` calls with nothing between them
//!   recorded as one multi-draw;
//! - [`streamout`]: stream output (transform feedback) and draw-auto;
//! - [`query`], [`render_cond`]: queries and conditional rendering;
//! - [`discard_rectangles`], [`sample_locations`]: window rectangles and
//!   programmable sample locations through their extensions;
//! - [`screen`]: the `Screen` implementation;
//! - [`context`]: the `Context` implementation;
//! - [`debug`]: validation-message collection (the test oracle).
//!
//! Environment: `PIPE_VK_DEVICE` (index or name substring),
//! `PIPE_VK_VALIDATION=1` (Khronos validation plus synchronization
//! validation), `PIPE_VK_DEBUG=staging` (force the staging paths of
//! discrete GPUs).

pub mod batch;
pub mod blit;
pub mod blitter;
pub mod caps;
pub mod clear;
pub mod compute;
pub mod context;
pub mod copy;
pub mod debug;
pub mod descriptors;
pub mod device;
pub mod discard_rectangles;
pub mod disk_cache;
pub mod draw;
pub mod fence;
pub mod format;
pub mod instance;
pub mod memory;
pub mod merge;
pub mod pipeline;
pub mod prim;
pub mod query;
pub mod render_cond;
pub mod resource;
pub mod sample_locations;
pub mod sampler;
pub mod screen;
pub mod shader;
pub mod streamout;
pub mod sync;
pub mod transfer;
pub mod upload;
pub mod view;

pub use screen::{create_screen, ScreenOptions, VkScreen};
