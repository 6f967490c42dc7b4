//! Explicit synchronization: access tracking and barrier batching.
//!
//! Every resource object tracks, per buffer or per image subresource
//! (level, layer), the last write and the reads since it (pipeline stage and
//! access mask), and for images the current layout. Before a command, the
//! context declares each access it makes ([`Barriers::buffer`],
//! [`Barriers::image`]); conflicting ones (read-after-write, write-after-read,
//! write-after-write, layout changes) produce a barrier; reads already made
//! visible to a stage produce none. The collected barriers are then emitted
//! as one `vkCmdPipelineBarrier2` ([`Barriers::flush`]). When nothing
//! conflicts, nothing is emitted; the count is kept for tests.
//!
//! All contexts of a screen submit to one queue, so tracking on the shared
//! object and ordering by submission is sound; the spec requires a flush
//! between contexts anyway.

use ash::vk;

/// A (stage, access) pair.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Access {
    pub stage: vk::PipelineStageFlags2,
    pub access: vk::AccessFlags2,
}

impl Access {
    pub const fn new(stage: vk::PipelineStageFlags2, access: vk::AccessFlags2) -> Self {
        Access { stage, access }
    }

    fn is_empty(&self) -> bool {
        self.stage.is_empty()
    }

    fn union(self, o: Access) -> Access {
        Access::new(self.stage | o.stage, self.access | o.access)
    }
}

/// Common accesses.
pub mod access {
    use super::Access;
    use ash::vk::{AccessFlags2 as A, PipelineStageFlags2 as S};

    pub const TRANSFER_READ: Access = Access::new(S::COPY, A::TRANSFER_READ);
    pub const TRANSFER_WRITE: Access = Access::new(S::COPY, A::TRANSFER_WRITE);
    pub const CLEAR_WRITE: Access = Access::new(S::CLEAR, A::TRANSFER_WRITE);
    /// `vkCmdFillBuffer`: the spec puts it in CLEAR, validation layers up
    /// to at least 1.3.239 treat it as COPY; naming both is correct under
    /// either reading.
    pub const FILL_WRITE: Access = Access::new(
        S::from_raw(S::CLEAR.as_raw() | S::COPY.as_raw()),
        A::TRANSFER_WRITE,
    );
    pub const BLIT_READ: Access = Access::new(S::BLIT, A::TRANSFER_READ);
    pub const BLIT_WRITE: Access = Access::new(S::BLIT, A::TRANSFER_WRITE);
    pub const RESOLVE_READ: Access = Access::new(S::RESOLVE, A::TRANSFER_READ);
    pub const RESOLVE_WRITE: Access = Access::new(S::RESOLVE, A::TRANSFER_WRITE);
    pub const HOST_READ: Access = Access::new(S::HOST, A::HOST_READ);
    pub const HOST_WRITE: Access = Access::new(S::HOST, A::HOST_WRITE);
    pub const SHADER_READ: Access = Access::new(S::ALL_COMMANDS, A::SHADER_READ);
    pub const ALL: Access = Access::new(
        S::ALL_COMMANDS,
        A::from_raw(A::MEMORY_READ.as_raw() | A::MEMORY_WRITE.as_raw()),
    );
}

/// Sync state of one buffer or one image subresource.
#[derive(Clone, Copy, Debug, Default)]
pub struct SyncState {
    pub layout: vk::ImageLayout,
    /// The last write, if not yet followed by a write-after barrier.
    pub write: Access,
    /// Reads since the last write that were made visible (or need no
    /// visibility because there was no write).
    pub reads: Access,
}

impl SyncState {
    /// Computes the barrier a new access needs and updates the state.
    /// Returns `(src, dst, old_layout)` when a barrier is needed.
    fn access(
        &mut self,
        a: Access,
        write: bool,
        layout: vk::ImageLayout,
    ) -> Option<(Access, Access, vk::ImageLayout)> {
        let old_layout = self.layout;
        let transition = layout != old_layout;
        let barrier = if transition || write {
            // Layout transitions and writes wait for everything before.
            let src = self.write.union(self.reads);
            if src.is_empty() && !transition {
                None
            } else {
                // Reads need only an execution dependency.
                Some((Access::new(src.stage, self.write.access), a))
            }
        } else if !self.write.is_empty()
            && (!self.reads.stage.contains(a.stage) || !self.reads.access.contains(a.access))
        {
            Some((self.write, a))
        } else {
            None
        };
        if transition || write {
            self.layout = layout;
            if write {
                self.write = a;
                self.reads = Access::default();
            } else {
                // A transition is a write; the new read is visible after it.
                self.write = Access::new(a.stage, vk::AccessFlags2::empty());
                self.reads = a;
            }
        } else {
            self.reads = self.reads.union(a);
        }
        barrier.map(|(src, dst)| {
            let src = if src.stage.is_empty() {
                Access::new(vk::PipelineStageFlags2::NONE, vk::AccessFlags2::NONE)
            } else {
                src
            };
            (src, dst, old_layout)
        })
    }
}

/// Barriers collected for the next command.
#[derive(Default)]
pub struct Barriers {
    buffers: Vec<vk::BufferMemoryBarrier2<'static>>,
    images: Vec<vk::ImageMemoryBarrier2<'static>>,
    /// Number of `vkCmdPipelineBarrier2` calls emitted (for tests).
    pub emitted: u64,
}

impl Barriers {
    /// Declares an access to a whole buffer object, reached through
    /// `buffers` (the buffer and the buffers aliasing its memory: one
    /// barrier each, as a buffer barrier covers its own buffer only).
    pub fn buffer(
        &mut self,
        state: &mut SyncState,
        buffers: impl IntoIterator<Item = vk::Buffer>,
        a: Access,
        write: bool,
    ) {
        if let Some((src, dst, _)) = state.access(a, write, vk::ImageLayout::UNDEFINED) {
            for buffer in buffers {
                self.buffers.push(
                    vk::BufferMemoryBarrier2::default()
                        .src_stage_mask(src.stage)
                        .src_access_mask(src.access)
                        .dst_stage_mask(dst.stage)
                        .dst_access_mask(dst.access)
                        .buffer(buffer)
                        .offset(0)
                        .size(vk::WHOLE_SIZE),
                );
            }
        }
    }

    /// Declares an access to one image subresource. `discard` allows the
    /// old contents to be dropped (transition from UNDEFINED).
    #[allow(clippy::too_many_arguments)]
    pub fn image(
        &mut self,
        state: &mut SyncState,
        image: vk::Image,
        aspect: vk::ImageAspectFlags,
        level: u32,
        layer: u32,
        a: Access,
        write: bool,
        layout: vk::ImageLayout,
        discard: bool,
    ) {
        if let Some((src, dst, old)) = state.access(a, write, layout) {
            let old = if discard {
                vk::ImageLayout::UNDEFINED
            } else {
                old
            };
            // A pending barrier on this very subresource (the same image
            // bound twice, as two colour buffers or as a colour buffer and
            // a shader image): one command's barriers all start from the
            // layouts before it, so a second one would transition from a
            // layout the subresource is not yet in (VUID 01197; found by the
            // API fuzz, seed 1405). No command runs between the two, so
            // the pending one is extended: to the new layout and the second
            // access's stages and accesses.
            if let Some(i) = self.images.iter().position(|b| {
                let r = b.subresource_range;
                b.image == image
                    && (r.base_mip_level..r.base_mip_level + r.level_count).contains(&level)
                    && (r.base_array_layer..r.base_array_layer + r.layer_count).contains(&layer)
            }) {
                let b = self.images.remove(i);
                let r = b.subresource_range;
                // The other layers of the pending barrier keep it as it was.
                let part = |base: u32, count: u32| {
                    let mut p = b;
                    p.subresource_range.base_array_layer = base;
                    p.subresource_range.layer_count = count;
                    p
                };
                let before = layer - r.base_array_layer;
                let after = r.base_array_layer + r.layer_count - layer - 1;
                if before > 0 {
                    self.images.push(part(r.base_array_layer, before));
                }
                if after > 0 {
                    self.images.push(part(layer + 1, after));
                }
                let mut m = part(layer, 1);
                m.new_layout = layout;
                m.dst_stage_mask |= dst.stage;
                m.dst_access_mask |= dst.access;
                self.images.push(m);
                return;
            }
            // Merge with the previous barrier when it is the next layer of
            // the same level with identical masks.
            if let Some(last) = self.images.last_mut() {
                let r = last.subresource_range;
                if last.image == image
                    && r.base_mip_level == level
                    && r.base_array_layer + r.layer_count == layer
                    && last.old_layout == old
                    && last.new_layout == layout
                    && last.src_stage_mask == src.stage
                    && last.src_access_mask == src.access
                    && last.dst_stage_mask == dst.stage
                    && last.dst_access_mask == dst.access
                {
                    last.subresource_range.layer_count += 1;
                    return;
                }
            }
            self.images.push(
                vk::ImageMemoryBarrier2::default()
                    .src_stage_mask(src.stage)
                    .src_access_mask(src.access)
                    .dst_stage_mask(dst.stage)
                    .dst_access_mask(dst.access)
                    .old_layout(old)
                    .new_layout(layout)
                    .image(image)
                    .subresource_range(vk::ImageSubresourceRange {
                        aspect_mask: aspect,
                        base_mip_level: level,
                        level_count: 1,
                        base_array_layer: layer,
                        layer_count: 1,
                    }),
            );
        }
    }

    /// Whether anything is pending.
    pub fn is_empty(&self) -> bool {
        self.buffers.is_empty() && self.images.is_empty()
    }

    /// Emits the pending barriers as one `vkCmdPipelineBarrier2`.
    pub fn flush(&mut self, device: &ash::Device, cmd: vk::CommandBuffer) {
        if self.is_empty() {
            return;
        }
        let dep = vk::DependencyInfo::default()
            .buffer_memory_barriers(&self.buffers)
            .image_memory_barriers(&self.images);
        // SAFETY: cmd is in the recording state (the batch's buffer) and the
        // barriers name live objects of this device.
        unsafe { device.cmd_pipeline_barrier2(cmd, &dep) };
        self.emitted += 1;
        self.buffers.clear();
        self.images.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::access::*;
    use super::*;

    #[test]
    fn read_after_read_needs_nothing() {
        let mut s = SyncState::default();
        assert!(s
            .access(TRANSFER_READ, false, vk::ImageLayout::UNDEFINED)
            .is_none());
        assert!(s
            .access(TRANSFER_READ, false, vk::ImageLayout::UNDEFINED)
            .is_none());
    }

    #[test]
    fn raw_war_waw() {
        let l = vk::ImageLayout::UNDEFINED;
        let mut s = SyncState::default();
        assert!(s.access(TRANSFER_WRITE, true, l).is_none(), "first write");
        let (src, dst, _) = s.access(TRANSFER_READ, false, l).expect("RAW");
        assert_eq!(src, TRANSFER_WRITE);
        assert_eq!(dst, TRANSFER_READ);
        assert!(
            s.access(TRANSFER_READ, false, l).is_none(),
            "already visible"
        );
        let (src, _, _) = s.access(HOST_READ, false, l).expect("RAW to host");
        assert_eq!(src, TRANSFER_WRITE);
        let (src, _, _) = s.access(CLEAR_WRITE, true, l).expect("WAR");
        assert!(src.stage.contains(vk::PipelineStageFlags2::HOST));
        let (src, _, _) = s.access(TRANSFER_WRITE, true, l).expect("WAW");
        assert_eq!(src.access, vk::AccessFlags2::TRANSFER_WRITE);
    }

    /// Two accesses to one subresource before a flush make one barrier
    /// (a command's barriers all start from the layouts before it): from
    /// the first's old layout to the second's, to both accesses. Within a
    /// pending layer range, the other layers keep their barrier.
    #[test]
    fn one_subresource_twice_is_one_barrier() {
        use vk::ImageLayout as L;
        let img: vk::Image = vk::Handle::from_raw(1);
        // Layer `layer` of level 0: written to TRANSFER_DST, or read from
        // TRANSFER_SRC.
        let declare = |b: &mut Barriers, s: &mut SyncState, layer: u32, write: bool| {
            let (a, layout) = if write {
                (TRANSFER_WRITE, L::TRANSFER_DST_OPTIMAL)
            } else {
                (TRANSFER_READ, L::TRANSFER_SRC_OPTIMAL)
            };
            b.image(
                s,
                img,
                vk::ImageAspectFlags::COLOR,
                0,
                layer,
                a,
                write,
                layout,
                false,
            );
        };
        let mut b = Barriers::default();
        let mut s = SyncState::default();
        declare(&mut b, &mut s, 0, true);
        declare(&mut b, &mut s, 0, false);
        assert_eq!(b.images.len(), 1);
        let m = b.images[0];
        assert_eq!(
            (m.old_layout, m.new_layout),
            (L::UNDEFINED, L::TRANSFER_SRC_OPTIMAL)
        );
        assert!(m
            .dst_access_mask
            .contains(vk::AccessFlags2::TRANSFER_READ | vk::AccessFlags2::TRANSFER_WRITE));

        let mut b = Barriers::default();
        let mut states = [SyncState::default(); 3];
        for (l, st) in states.iter_mut().enumerate() {
            declare(&mut b, st, l as u32, true);
        }
        assert_eq!(b.images.len(), 1, "layers 0..3 in one barrier");
        declare(&mut b, &mut states[1], 1, false);
        let mut layers: Vec<(u32, L)> = b
            .images
            .iter()
            .flat_map(|m| {
                let r = m.subresource_range;
                (r.base_array_layer..r.base_array_layer + r.layer_count)
                    .map(move |l| (l, m.new_layout))
            })
            .collect();
        layers.sort_by_key(|&(l, _)| l);
        assert_eq!(
            layers,
            [
                (0, L::TRANSFER_DST_OPTIMAL),
                (1, L::TRANSFER_SRC_OPTIMAL),
                (2, L::TRANSFER_DST_OPTIMAL)
            ]
        );
    }

    #[test]
    fn layout_change_is_a_barrier() {
        let mut s = SyncState::default();
        let (_, _, old) = s
            .access(TRANSFER_WRITE, true, vk::ImageLayout::TRANSFER_DST_OPTIMAL)
            .expect("transition from undefined");
        assert_eq!(old, vk::ImageLayout::UNDEFINED);
        let (_, _, old) = s
            .access(TRANSFER_READ, false, vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
            .expect("dst->src");
        assert_eq!(old, vk::ImageLayout::TRANSFER_DST_OPTIMAL);
        assert!(s
            .access(TRANSFER_READ, false, vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
            .is_none());
    }
}
