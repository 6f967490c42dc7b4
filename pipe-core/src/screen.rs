//! The pipe screen trait: `struct pipe_screen`.
//!
//! A screen is per device and shared by all its contexts (`Send + Sync`,
//! held as `Arc<dyn Screen>`). Resources, fences and capabilities belong to
//! the screen; state objects, views and queries belong to a context.

use std::sync::Arc;

use crate::caps::Caps;
use crate::context::Context;
use crate::error::PipeResult;
use crate::format::Format;
use crate::object::Object;
use crate::resource::{BindFlags, Resource, ResourceTemplate, Target};

/// `enum pipe_reset_status`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResetStatus {
    NoReset,
    GuiltyContextReset,
    InnocentContextReset,
    UnknownContextReset,
}

/// Description of a fence: which context made it and whether it is
/// re-usable (reset by `fence_server_sync`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FenceDesc {
    /// Id of the creating context (0: the screen).
    pub context_id: u64,
    pub reusable: bool,
}

/// `struct pipe_fence_handle`.
pub type Fence = Arc<Object<FenceDesc>>;

/// Page size of a sparse texture (`get_sparse_texture_virtual_page_size`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SparsePageSize {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

/// `struct pipe_screen`.
pub trait Screen: Send + Sync {
    /// `get_name`: the device name.
    fn name(&self) -> &str;
    /// `get_param`, `get_shader_param`, `get_compute_param`: all answers.
    fn caps(&self) -> &Caps;
    /// `is_format_supported`. `sample_count` 0 or 1 means single-sampled.
    fn is_format_supported(
        &self,
        format: Format,
        target: Target,
        sample_count: u32,
        storage_sample_count: u32,
        bind: BindFlags,
    ) -> bool;
    /// `resource_create`.
    fn resource_create(&self, template: &ResourceTemplate) -> PipeResult<Resource>;
    /// `resource_destroy`: drops the caller's reference. The memory is
    /// released once no context, view or in-flight batch uses it.
    fn resource_destroy(&self, resource: Resource);
    /// `context_create`.
    fn context_create(self: Arc<Self>) -> PipeResult<Box<dyn Context>>;
    /// `fence_finish`: waits up to `timeout_ns` (0 polls, `u64::MAX`
    /// waits forever). Returns whether the fence signalled. When no signal
    /// of the fence is submitted yet and `ctx` holds one (it made the
    /// deferred fence, or `fence_server_signal`ed it), flushes `ctx` first.
    /// A signal only another context holds needs that context's flush:
    /// until then the call polls within its timeout.
    fn fence_finish(
        &self,
        ctx: Option<&mut dyn Context>,
        fence: &Fence,
        timeout_ns: u64,
    ) -> PipeResult<bool>;
    /// A re-usable fence (spec: "Fences"), shared by this screen's
    /// contexts: `fence_server_signal` queues a signal, `fence_server_sync`
    /// waits for the earliest submitted unconsumed one and so resets the
    /// fence, and `fence_finish` waits for that one without resetting.
    /// Signals pair with waits first in, first out in the order their
    /// batches are submitted; an unflushed signal is not in that order yet.
    /// This is the in-process form of what Gallium's
    /// `create_fence_fd(PIPE_FD_TYPE_SYNCOBJ)` imports (GL_EXT_semaphore);
    /// pipe-core has no fd import.
    fn create_reusable_fence(&self) -> PipeResult<Fence>;
    /// `get_timestamp`: the GPU clock in nanoseconds.
    fn get_timestamp(&self) -> PipeResult<u64>;
    /// `get_sparse_texture_virtual_page_size`: the page sizes for
    /// `format`/`target`/`multi_sample`.
    fn get_sparse_texture_virtual_page_size(
        &self,
        target: Target,
        multi_sample: bool,
        format: Format,
    ) -> PipeResult<Vec<SparsePageSize>>;
    /// `get_sample_position`: standard position of `index` in a pattern of
    /// `sample_count` samples, in [0, 1).
    fn get_sample_position(&self, sample_count: u32, index: u32) -> Option<[f32; 2]>;
    /// `get_sample_pixel_grid`: the pixels (width, height) that one set of
    /// programmable sample locations covers for `sample_count` samples;
    /// `set_sample_locations` takes one byte per sample of each of them.
    /// (1, 1) where locations are not programmable.
    fn get_sample_pixel_grid(&self, sample_count: u32) -> (u32, u32) {
        let _ = sample_count;
        (1, 1)
    }
}
