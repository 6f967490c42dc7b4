//! Draw merging: consecutive `draw_vbo` calls with nothing in between
//! become one `vkCmdDrawMultiEXT` / `vkCmdDrawMultiIndexedEXT`.
//!
//! A GL frontend issues many small draws with no state change between
//! them (piglit drawoverhead's first scenarios). Each `draw_vbo` on the
//! full path looks up the pipeline, declares every bound buffer and view
//! to the tracker and compares the descriptors with the bound ones; for a
//! draw that changes nothing, all of that repeats the previous draw. Zink
//! gets its 8-10 M draws/s on lavapipe the same way, through
//! `u_threaded_context`, which merges such draws into one multi-draw.
//!
//! Design:
//!
//! - **What may merge.** A draw goes through the full path and, if it is
//!   *mergeable* ([`MergeKey::of`]: direct, not rewritten, no user index
//!   data, no draw id that increments within the call; and, found by the
//!   full path, no stream output, no vertex shader reading the draw id,
//!   which Vulkan's `DrawIndex` would count within the multi-draw, and no
//!   index rewriting such as 8-bit widening), its draws are
//!   kept as *pending* instead of being recorded, with the key of the
//!   call. A following `draw_vbo` with the same key appends its draws to
//!   the pending list and returns: everything the full path would record
//!   for it is already recorded for the first one.
//! - **What breaks a merge.** Every other entry point of the context
//!   (state setters, CSO creation and deletion, transfers, clears, blits,
//!   flushes, queries of state, ...) first calls
//!   [`VkContext::break_draw_merge`], which records the pending draws and
//!   forgets the key. So a merge only ever spans `draw_vbo` calls with no
//!   call of any kind between them, and the state the first draw saw is
//!   the state of every merged one. [`VkContext::end_rendering`] records
//!   them too (the safety net for internal paths), and draws made
//!   internally (the blitter, index rewriting) go through the full path
//!   after breaking any merge, and never start one.
//! - **What the key holds.** Everything of the call that the full path
//!   records, other than the draws' start, count and index bias: the
//!   mode, the index size and buffer, restart, the instance range, the draw
//!   id offset and the multiview mask.
//! - **Other contexts.** Another context may rename a shared buffer's
//!   storage (a discarding write while this context's batch uses it)
//!   without any call on this one. The full path would look the new
//!   storage up, so a rename anywhere on the screen
//!   (`DeviceShared::renames`) since the first call also ends the merge.
//! - **Vertex buffers alone.** `set_vertex_buffers` ends a merge but
//!   keeps its key ([`VbRebind`]): a draw with the same key, in the same
//!   command buffer and open rendering instance, with no other call and
//!   no rename since, declares and binds the new buffers and starts
//!   pending draws of its own, skipping the rest of the full path. User
//!   vertex data, or a declaration that needs a barrier, takes the full
//!   path. Under dynamic vertex input, `bind_vertex_elements_state` does
//!   the same when the new elements give the vertex shader the same
//!   fetch fix-ups (so the same pipeline): the draw records the new
//!   vertex input too (pipe-bench draw scenario 11). Elements with other
//!   fix-ups end the merge as any call does.
//! - **Storage writes.** The full path declares every bound resource per
//!   draw, so a shader buffer or image a draw writes makes the next
//!   full-path draw end the instance for a barrier. Merged and
//!   rebinding draws do not repeat those declarations, so draws that
//!   write storage are not ordered against each other there (a review
//!   found the difference). GL asks no more: writes by one draw are made
//!   visible to later draws by `glMemoryBarrier` (`memory_barrier`, a
//!   call, which ends the merge; the next draw's full path then declares
//!   the writes again and gets the barrier), which is also what Zink
//!   relies on.
//! - **Limits.** The pending list is recorded when it reaches
//!   `maxMultiDrawCount` (and [`MAX_PENDING`]), keeping the key. Draws
//!   with stream output active, or with no `VK_EXT_multi_draw`, take the
//!   full path every time.

use std::sync::atomic::Ordering;

use ash::vk;
use pipe_core::draw::{DrawIndirectInfo, DrawInfo, DrawStartCountBias, IndexSource, PrimType};
use smallvec::SmallVec;

use crate::context::VkContext;

/// Most draws kept pending before they are recorded.
pub(crate) const MAX_PENDING: usize = 4096;

/// What a draw call records besides its draws; equal keys, with no call
/// in between and no rename anywhere, mean equal commands (for the draws
/// that may merge at all, see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MergeKey {
    mode: PrimType,
    index_size: u8,
    /// The index buffer's resource id (0 for non-indexed draws).
    index: u64,
    primitive_restart: bool,
    restart_index: u32,
    start_instance: u32,
    instance_count: u32,
    drawid_offset: u32,
    view_mask: u32,
}

impl MergeKey {
    /// The key of a call that may merge, or `None`.
    pub(crate) fn of(
        info: &DrawInfo<'_>,
        drawid_offset: u32,
        indirect: Option<&DrawIndirectInfo>,
        draws: &[DrawStartCountBias],
    ) -> Option<MergeKey> {
        if indirect.is_some() || (info.increment_draw_id && draws.len() > 1) {
            return None;
        }
        let restart =
            (info.primitive_restart && info.index_size != 0).then_some(info.restart_index);
        if crate::prim::needs_rewrite(info.mode, info.index_size, restart) {
            return None;
        }
        let index = match (&info.index, info.index_size) {
            (_, 0) => 0,
            (IndexSource::Resource(r), _) => r.id(),
            // User index data is uploaded per call.
            _ => return None,
        };
        Some(MergeKey {
            mode: info.mode,
            index_size: info.index_size,
            index,
            primitive_restart: info.primitive_restart,
            restart_index: info.restart_index,
            start_instance: info.start_instance,
            instance_count: info.instance_count,
            drawid_offset,
            view_mask: info.view_mask,
        })
    }
}

/// A merge that `set_vertex_buffers` (or `bind_vertex_elements_state`
/// with the same fetch fix-ups, under dynamic vertex input) ended, and
/// nothing else since: a draw with the same key, in the same command
/// buffer and open rendering instance, with no rename anywhere, differs
/// from the merged ones only in the vertex buffers (and vertex input).
#[derive(Clone, Copy)]
pub(crate) struct VbRebind {
    key: MergeKey,
    renames: u64,
    cmd: vk::CommandBuffer,
    /// The vertex elements changed: the draw records the vertex input.
    vertex_input: bool,
}

impl VbRebind {
    /// The same, after a vertex elements change.
    pub(crate) fn with_vertex_input(self) -> VbRebind {
        VbRebind {
            vertex_input: true,
            ..self
        }
    }
}

/// Draws of merged calls, not recorded yet.
pub(crate) struct PendingDraws {
    pub(crate) key: MergeKey,
    /// `DeviceShared::renames` when the first call looked its resources
    /// up: a rename since (by another context; one by this context is a
    /// call, which ends the merge anyway) means a buffer the draws bound
    /// has new storage, which a new call must look up.
    renames: u64,
    cmd: vk::CommandBuffer,
    draws: SmallVec<[DrawStartCountBias; 16]>,
}

impl VkContext {
    /// `draw_vbo` from the frontend: appended to the pending draws when
    /// the call merges with them, else the full path.
    pub(crate) fn draw_vbo_merging(
        &mut self,
        info: &DrawInfo<'_>,
        drawid_offset: u32,
        indirect: Option<&DrawIndirectInfo>,
        draws: &[DrawStartCountBias],
    ) -> pipe_core::PipeResult<()> {
        let key = MergeKey::of(info, drawid_offset, indirect, draws);
        let renames = self.dev().renames.load(Ordering::Acquire);
        if let (Some(k), Some(p)) = (key, self.merge.as_mut()) {
            if p.key == k && p.renames == renames {
                p.draws
                    .extend(draws.iter().copied().filter(|d| d.count != 0));
                self.stats.draws += draws.len() as u64;
                self.stats.merged_draws += draws.len() as u64;
                if p.draws.len() >= self.merge_limit() {
                    self.record_pending_draws();
                }
                return Ok(());
            }
        }
        // Only the vertex buffers changed since a merge: rebound, the
        // draws start a new merge (pipe-bench draw scenario 3).
        if let (Some(k), Some(r)) = (key, self.vb_rebind.take()) {
            if r.key == k
                && r.renames == renames
                && self.rendering
                && !self.state_dirty
                && self.batches.current_cmd() == r.cmd
                && (!r.vertex_input || self.unfed_vertex_inputs() == 0)
                // Slots moving to or from the dummy buffer change the
                // strides the pipeline or recorded vertex input holds
                // (`dummy_slots`); a vertex input recorded anew takes
                // the new ones.
                && (r.vertex_input || self.dummy_slots() == self.last_dummy_slots)
                && self.rebind_vertex_buffers(r.cmd)?
            {
                if r.vertex_input {
                    // SAFETY: `r.cmd` is recording the open instance the
                    // merged draws were recorded in, whose pipeline
                    // declares the vertex input dynamic (`VbRebind` is
                    // only kept for a change under dynamic vertex input).
                    unsafe { self.record_vertex_input(r.cmd)? };
                    self.last_dummy_slots = self.dummy_slots();
                }
                self.start_draw_merge(k, r.cmd, draws);
                self.stats.draws += draws.len() as u64;
                self.stats.vb_rebind_draws += draws.len() as u64;
                return Ok(());
            }
        }
        self.end_draw_merge();
        self.draw_vbo_full(info, drawid_offset, indirect, draws, key)
    }

    /// What a draw needs to go on with the pending merge after
    /// `set_vertex_buffers` ends it.
    pub(crate) fn vb_rebind_of_merge(&self) -> Option<VbRebind> {
        self.merge.as_ref().map(|p| VbRebind {
            key: p.key,
            renames: p.renames,
            cmd: p.cmd,
            vertex_input: false,
        })
    }

    /// Keeps `draws` (of a call with `key`, everything else recorded in
    /// `cmd`) pending instead of recording them.
    pub(crate) fn start_draw_merge(
        &mut self,
        key: MergeKey,
        cmd: vk::CommandBuffer,
        draws: &[DrawStartCountBias],
    ) {
        let renames = self.dev().renames.load(Ordering::Acquire);
        self.merge = Some(PendingDraws {
            key,
            renames,
            cmd,
            draws: draws.iter().copied().filter(|d| d.count != 0).collect(),
        });
    }

    /// Whether a draw may start a merge: the device has multi-draw (else
    /// there is nothing to gain) and `PIPE_VK_DEBUG=no_draw_merge` is off.
    pub(crate) fn can_merge(&self) -> bool {
        self.multi_draw.is_some() && !self.dev().debug.no_draw_merge
    }

    fn merge_limit(&self) -> usize {
        (self.max_multi_draw as usize).clamp(1, MAX_PENDING)
    }

    /// Records the pending draws and ends the merge: called by every
    /// entry point of the context other than `draw_vbo`, and by the
    /// driver's own draws. It also marks the bound state as possibly
    /// changed (`VkContext::state_dirty`).
    pub(crate) fn break_draw_merge(&mut self) {
        self.end_draw_merge();
        // Whatever the call changes, the next draw looks its state up
        // again (`draw::draw_vbo_full`).
        self.state_dirty = true;
    }

    /// Records the pending draws and ends the merge, with the bound state
    /// unchanged (a `draw_vbo` that does not merge, `end_rendering`), or
    /// changed only in what every draw sets again (vertex buffers, the
    /// dynamic state of `set_dynamic_state`: viewports, scissors, stencil
    /// reference, blend colour, and dynamic vertex input with the same
    /// fetch fix-ups): `state_dirty` stays, so the next draw keeps the
    /// last draw's pipeline and feedback lookup. pipe-bench draw
    /// scenarios 3 (vertex buffer change) and 11 (vertex elements change)
    /// measure it.
    pub(crate) fn end_draw_merge(&mut self) {
        self.record_pending_draws();
        self.merge = None;
        self.vb_rebind = None;
    }

    /// Records the pending draws, keeping the key.
    fn record_pending_draws(&mut self) {
        let Some(p) = self.merge.as_mut() else { return };
        if p.draws.is_empty() {
            return;
        }
        let draws = std::mem::take(&mut p.draws);
        let (cmd, k) = (p.cmd, p.key);
        let info = DrawInfo {
            mode: k.mode,
            index_size: k.index_size,
            instance_count: k.instance_count,
            start_instance: k.start_instance,
            ..DrawInfo::default()
        };
        self.record_multi_draw(cmd, &info, &draws, k.index_size != 0, 0);
        if let Some(p) = self.merge.as_mut() {
            // Reuse the allocation.
            p.draws = draws;
            p.draws.clear();
        }
    }
}
