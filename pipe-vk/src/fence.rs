//! Fences: a (timeline semaphore, value) pair.
//!
//! The value lives in a shared cell so that a `PIPE_FLUSH_DEFERRED` fence
//! can exist before its batch is submitted: the cell holds `None` until the
//! creating context flushes, and `fence_finish` with that context flushes
//! it (the spec's rule). Waiting is `vkWaitSemaphores` on the screen's
//! timeline, with the caller's timeout.
//!
//! A re-usable fence is a queue of such cells: `fence_server_signal`
//! appends one, filled when that context's batch is submitted;
//! `fence_server_sync` takes the oldest and makes the next batch wait for
//! its value (the wait resets the fence, as the spec says); `fence_finish`
//! waits for the oldest without taking it. All contexts of a screen share
//! one queue, so a wait is refused unless its signal has been flushed:
//! on one queue, a wait submitted before its signal would never finish.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pipe_core::object::Object;
use pipe_core::screen::{Fence, FenceDesc};
use pipe_core::{Context, PipeError, PipeResult};

use crate::batch::FenceCell;
use crate::memory::DeviceShared;

/// What a fence waits for.
enum Kind {
    OneShot(FenceCell),
    /// Signals queued by `fence_server_signal`, oldest first.
    Reusable(Mutex<VecDeque<FenceCell>>),
}

/// Backend payload of a fence.
pub struct VkFence {
    kind: Kind,
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
            kind: Kind::OneShot(cell),
            dev: dev.clone(),
        },
    )
}

/// Makes a re-usable fence with no signal queued.
pub fn new_reusable_fence(dev: &Arc<DeviceShared>) -> Fence {
    Object::new(
        FenceDesc {
            context_id: 0,
            reusable: true,
        },
        VkFence {
            kind: Kind::Reusable(Mutex::new(VecDeque::new())),
            dev: dev.clone(),
        },
    )
}

fn payload(fence: &Fence) -> PipeResult<&VkFence> {
    fence.backend_or_err::<VkFence>("fence")
}

fn read(cell: &FenceCell) -> Option<u64> {
    *cell.lock().unwrap_or_else(|p| p.into_inner())
}

/// The fence's value cell (one-shot fences).
pub fn fence_cell(fence: &Fence) -> PipeResult<FenceCell> {
    match &payload(fence)?.kind {
        Kind::OneShot(c) => Ok(c.clone()),
        Kind::Reusable(_) => Err(PipeError::invalid("a re-usable fence has no single value")),
    }
}

/// The fence's timeline value (`None`: not submitted yet). For a
/// re-usable fence, the value of its oldest queued signal.
pub fn fence_value(fence: &Fence) -> PipeResult<Option<u64>> {
    Ok(match &payload(fence)?.kind {
        Kind::OneShot(c) => read(c),
        Kind::Reusable(q) => q
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .front()
            .and_then(read),
    })
}

/// `fence_server_signal` on a re-usable fence: queues a signal, returning
/// the cell the signalling batch fills at submission.
pub fn queue_signal(fence: &Fence) -> PipeResult<FenceCell> {
    match &payload(fence)?.kind {
        Kind::Reusable(q) => {
            let cell = FenceCell::default();
            q.lock()
                .unwrap_or_else(|p| p.into_inner())
                .push_back(cell.clone());
            Ok(cell)
        }
        Kind::OneShot(_) => Err(PipeError::invalid("queue_signal: a one-shot fence")),
    }
}

/// `fence_server_sync` on a re-usable fence: takes the oldest flushed
/// signal and returns its timeline value.
pub fn take_signal(fence: &Fence) -> PipeResult<u64> {
    let Kind::Reusable(q) = &payload(fence)?.kind else {
        return Err(PipeError::invalid("take_signal: a one-shot fence"));
    };
    let mut q = q.lock().unwrap_or_else(|p| p.into_inner());
    match q.front().map(read) {
        Some(Some(v)) => {
            q.pop_front();
            Ok(v)
        }
        Some(None) => Err(PipeError::invalid(
            "fence_server_sync: the re-usable fence's signal has not been flushed yet \
             (all contexts share one queue, so a wait must follow its signal's flush)",
        )),
        None => Err(PipeError::invalid(
            "fence_server_sync: the re-usable fence has no pending signal \
             (fence_server_signal and flush first)",
        )),
    }
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
        let d = fence.desc();
        if let Some(ctx) = ctx.filter(|c| d.reusable || c.id() == d.context_id) {
            // Deferred fence of this context (or a re-usable fence's
            // signal that may be in it): flushing submits its batch.
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
