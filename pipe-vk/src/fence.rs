//! Fences: a (timeline semaphore, value) pair.
//!
//! The value lives in a shared cell so that a `PIPE_FLUSH_DEFERRED` fence
//! can exist before its batch is submitted: the cell holds `None` until the
//! creating context flushes, and `fence_finish` with that context flushes
//! it (the spec's rule). Waiting is `vkWaitSemaphores` on the screen's
//! timeline, with the caller's timeout.

use std::sync::Arc;
use std::time::{Duration, Instant};

use pipe_core::object::Object;
use pipe_core::screen::{Fence, FenceDesc};
use pipe_core::{Context, PipeError, PipeResult};

use crate::batch::FenceCell;
use crate::memory::DeviceShared;

/// Backend payload of a fence.
pub struct VkFence {
    cell: FenceCell,
    dev: Arc<DeviceShared>,
}

/// Makes a fence for `cell`.
pub fn new_fence(dev: &Arc<DeviceShared>, ctx: u64, cell: FenceCell) -> Fence {
    Object::new(
        FenceDesc {
            context_id: ctx,
            reusable: false,
        },
        VkFence {
            cell,
            dev: dev.clone(),
        },
    )
}

fn payload(fence: &Fence) -> PipeResult<&VkFence> {
    fence.backend_or_err::<VkFence>("fence")
}

/// The fence's value cell.
pub fn fence_cell(fence: &Fence) -> PipeResult<FenceCell> {
    Ok(payload(fence)?.cell.clone())
}

/// The fence's timeline value (`None`: not submitted yet).
pub fn fence_value(fence: &Fence) -> PipeResult<Option<u64>> {
    Ok(*payload(fence)?
        .cell
        .lock()
        .unwrap_or_else(|p| p.into_inner()))
}

/// `fence_finish`.
pub fn fence_finish(
    dev: &Arc<DeviceShared>,
    ctx: Option<&mut dyn Context>,
    fence: &Fence,
    timeout_ns: u64,
) -> PipeResult<bool> {
    let p = payload(fence)?;
    if !Arc::ptr_eq(&p.dev, dev) {
        return Err(PipeError::invalid(
            "fence_finish: the fence belongs to another screen",
        ));
    }
    let start = Instant::now();
    let mut value = fence_value(fence)?;
    if value.is_none() {
        if let Some(ctx) = ctx.filter(|c| c.id() == fence.desc().context_id) {
            // Deferred fence of this context: flushing submits its batch.
            ctx.flush(pipe_core::flags::FlushFlags::empty(), false)?;
            value = fence_value(fence)?;
        }
    }
    // Still deferred: another thread's context has to flush it. Poll
    // within the timeout.
    let value = loop {
        if let Some(v) = value {
            break v;
        }
        let elapsed = start.elapsed();
        if timeout_ns != u64::MAX && elapsed >= Duration::from_nanos(timeout_ns) {
            return Ok(false);
        }
        std::thread::sleep(Duration::from_micros(100));
        value = fence_value(fence)?;
    };
    let left = if timeout_ns == u64::MAX {
        u64::MAX
    } else {
        timeout_ns.saturating_sub(start.elapsed().as_nanos() as u64)
    };
    dev.wait_value(value, left)
}
