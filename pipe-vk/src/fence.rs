//! Fences: lists of (timeline semaphore, value) signals.
//!
//! A signal is a value cell plus the id of the context whose batch will
//! submit it. The cell holds `None` until that batch is submitted, then the
//! screen timeline's value the batch signals. Timeline values rise in
//! submission order across all contexts (one queue), so the value is also
//! the signal's place in the order in which signals reach the GPU.
//! Waiting on the CPU is `vkWaitSemaphores` on the screen's timeline.
//!
//! A one-shot fence holds the signal of the flush that made it (already
//! submitted, or `PIPE_FLUSH_DEFERRED`: the creating context's next
//! submission), plus one per context that `fence_server_signal`s it while
//! none is submitted. It is signalled once the earliest submitted of these
//! completes, and stays signalled (a later submission does not move it).
//!
//! A re-usable fence (spec: "Fences") holds the signals queued by
//! `fence_server_signal`, not yet consumed. The fence is signalled while a
//! submitted, unconsumed signal has completed. The order is first in,
//! first out *in submission order*:
//! - `fence_server_sync` consumes the earliest submitted signal (lowest
//!   timeline value) and makes the context's next batch wait for it. That
//!   consumption is the spec's reset: the fence is unsignalled again unless
//!   more submitted signals are queued, the next of which the next wait
//!   takes (one waiter per signal).
//! - `fence_finish` waits for that same signal without consuming it.
//! - A signal that its context has not flushed is not in the order yet:
//!   the spec requires an explicit flush to emit it, and until then it
//!   neither signals the fence nor holds back signals submitted after it
//!   was queued. Signals from different contexts are therefore taken in
//!   the order their batches were submitted, not the order of the
//!   `fence_server_signal` calls (which threads may make in any order).
//!
//! The spec lets a context flush implicitly in `fence_server_sync`, and
//! `fence_finish` flushes the context it is given (as for a deferred
//! fence): when no submitted signal exists and that context holds an
//! unflushed one, it is flushed first, so a context never waits for a
//! signal only it can submit. A signal held only by another context's
//! unflushed batch cannot be flushed from here: `fence_server_sync`
//! refuses it (all contexts share one queue, so a wait submitted ahead of
//! its signal would never finish), and `fence_finish` polls within its
//! timeout for another thread to flush it (timeout 0 returns at once; an
//! infinite timeout waits for that flush, as for another context's
//! deferred fence).

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use pipe_core::object::Object;
use pipe_core::screen::{Fence, FenceDesc};
use pipe_core::{Context, PipeError, PipeResult};

use crate::batch::FenceCell;
use crate::memory::DeviceShared;

/// One signal of a fence.
struct Signal {
    /// The context whose batch submits it.
    ctx: u64,
    /// Its timeline value once submitted.
    cell: FenceCell,
}

impl Signal {
    fn value(&self) -> Option<u64> {
        *self.cell.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Not submitted, and its batch is gone (a failed submission): it
    /// will never be.
    fn orphaned(&self) -> bool {
        Arc::strong_count(&self.cell) == 1 && self.value().is_none()
    }
}

/// Backend payload of a fence.
pub struct VkFence {
    /// One-shot: the creating flush's signal and `fence_server_signal`s.
    /// Re-usable: the unconsumed signals, in `fence_server_signal` order.
    signals: Mutex<Vec<Signal>>,
    dev: Arc<DeviceShared>,
}

impl VkFence {
    fn signals(&self) -> MutexGuard<'_, Vec<Signal>> {
        let mut s = self.signals.lock().unwrap_or_else(|p| p.into_inner());
        s.retain(|s| !s.orphaned());
        s
    }
}

/// Index and value of the earliest submitted signal.
fn earliest(signals: &[Signal]) -> Option<(usize, u64)> {
    signals
        .iter()
        .enumerate()
        .filter_map(|(i, s)| s.value().map(|v| (i, v)))
        .min_by_key(|&(_, v)| v)
}

/// Makes a one-shot fence signalled by `cell`, which context `ctx` fills.
pub fn new_fence(dev: &Arc<DeviceShared>, ctx: u64, cell: FenceCell) -> Fence {
    Object::new(
        FenceDesc {
            context_id: ctx,
            reusable: false,
        },
        VkFence {
            signals: Mutex::new(vec![Signal { ctx, cell }]),
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
            signals: Mutex::new(Vec::new()),
            dev: dev.clone(),
        },
    )
}

fn payload(fence: &Fence) -> PipeResult<&VkFence> {
    fence.backend_or_err::<VkFence>("fence")
}

/// The timeline value that signals the fence: its earliest submitted
/// (unconsumed) signal's. `None`: no signal is submitted.
pub fn fence_value(fence: &Fence) -> PipeResult<Option<u64>> {
    Ok(earliest(&payload(fence)?.signals()).map(|(_, v)| v))
}

/// Whether context `ctx` holds an unsubmitted signal of the fence (its
/// next submission carries it).
pub fn holds_unflushed(fence: &Fence, ctx: u64) -> PipeResult<bool> {
    Ok(payload(fence)?
        .signals()
        .iter()
        .any(|s| s.ctx == ctx && s.value().is_none()))
}

/// `fence_server_signal` by context `ctx`: returns the cell its next
/// submission must fill, or `None` when nothing is to be added (a one-shot
/// fence already submitted, or already carried by that submission).
pub fn add_signal(fence: &Fence, ctx: u64) -> PipeResult<Option<FenceCell>> {
    let p = payload(fence)?;
    let mut signals = p.signals();
    if !fence.desc().reusable && signals.iter().any(|s| s.value().is_some() || s.ctx == ctx) {
        return Ok(None);
    }
    let cell = FenceCell::default();
    signals.push(Signal {
        ctx,
        cell: cell.clone(),
    });
    Ok(Some(cell))
}

/// `fence_server_sync` on a re-usable fence: consumes its earliest
/// submitted signal and returns its value (`None`: no signal submitted).
pub fn take_signal(fence: &Fence) -> PipeResult<Option<u64>> {
    if !fence.desc().reusable {
        return Err(PipeError::invalid("take_signal: a one-shot fence"));
    }
    let mut signals = payload(fence)?.signals();
    Ok(earliest(&signals).map(|(i, v)| {
        signals.remove(i);
        v
    }))
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
        if let Some(ctx) = ctx {
            if holds_unflushed(fence, ctx.id())? {
                // The context's next submission carries a signal (its
                // deferred flush, or a fence_server_signal): submit it.
                ctx.flush(pipe_core::flags::FlushFlags::empty(), false)?;
                value = fence_value(fence)?;
            }
        }
    }
    // Nothing submitted: another thread's context has to flush (or, for
    // a re-usable fence, signal). Poll within the timeout.
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
