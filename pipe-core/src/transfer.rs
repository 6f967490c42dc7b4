//! Transfers (`transfer_map`) and the upload helpers.
//!
//! A [`Transfer`] owns a CPU mapping of a box of one resource level. The
//! mapping stays valid until the transfer is handed back to
//! `transfer_unmap`, which consumes it, so the borrow checker rules out a use
//! after unmap. Persistent mappings may be read by the GPU while mapped; the
//! frontend synchronizes those, as in GL.

use std::any::Any;
use std::ptr::NonNull;

use crate::flags::MapFlags;
use crate::resource::{PipeBox, Resource};

/// `struct pipe_transfer` plus the mapped pointer.
///
/// The description fields are read-only (getters) so that the frontend
/// cannot change the box a backend copies back at unmap. The mapped bytes
/// are reached through [`Transfer::read_bytes`]/[`Transfer::write_bytes`],
/// which copy without creating Rust references to the mapping: two maps
/// of the same range (legal in Gallium) or a GPU writing under a persistent
/// map therefore cannot violate Rust's aliasing rules. [`Transfer::data`]
/// and [`Transfer::data_mut`] give slices for callers that can promise
/// exclusivity.
pub struct Transfer {
    resource: Resource,
    level: u32,
    usage: MapFlags,
    bx: PipeBox,
    stride: usize,
    layer_stride: usize,
    ptr: NonNull<u8>,
    len: usize,
    backend: Box<dyn Any>,
}

impl Transfer {
    /// Creates a transfer. Backends call this.
    ///
    /// # Safety
    /// `ptr` must be valid for reads and writes of `len` initialized bytes
    /// for as long as `backend` lives (the payload owns or pins the
    /// mapping, also if the transfer is dropped without `transfer_unmap`).
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn new(
        resource: Resource,
        level: u32,
        usage: MapFlags,
        bx: PipeBox,
        stride: usize,
        layer_stride: usize,
        ptr: NonNull<u8>,
        len: usize,
        backend: Box<dyn Any>,
    ) -> Self {
        Transfer {
            resource,
            level,
            usage,
            bx,
            stride,
            layer_stride,
            ptr,
            len,
            backend,
        }
    }

    /// The mapped resource.
    pub fn resource(&self) -> &Resource {
        &self.resource
    }

    /// The mapped level.
    pub fn level(&self) -> u32 {
        self.level
    }

    /// The map flags.
    pub fn usage(&self) -> MapFlags {
        self.usage
    }

    /// The mapped box.
    pub fn bx(&self) -> PipeBox {
        self.bx
    }

    /// Bytes between rows of blocks.
    pub fn stride(&self) -> usize {
        self.stride
    }

    /// Bytes between layers or 3D slices.
    pub fn layer_stride(&self) -> usize {
        self.layer_stride
    }

    /// Mapped bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the mapping is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Raw pointer to the first mapped byte (the box origin).
    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// Copies `out.len()` mapped bytes starting at `offset` into `out`.
    /// Returns `None` when the range is outside the mapping.
    pub fn read_bytes(&self, offset: usize, out: &mut [u8]) -> Option<()> {
        if offset.checked_add(out.len())? > self.len {
            return None;
        }
        // SAFETY: the range lies inside the mapping (checked), which `new`'s
        // contract keeps valid; a raw copy creates no reference to it.
        unsafe {
            std::ptr::copy(self.ptr.as_ptr().add(offset), out.as_mut_ptr(), out.len());
        }
        Some(())
    }

    /// Copies `data` into the mapping at `offset`. Returns `None` when the
    /// range is outside the mapping.
    pub fn write_bytes(&mut self, offset: usize, data: &[u8]) -> Option<()> {
        if offset.checked_add(data.len())? > self.len {
            return None;
        }
        // SAFETY: as in `read_bytes`.
        unsafe {
            std::ptr::copy(data.as_ptr(), self.ptr.as_ptr().add(offset), data.len());
        }
        Some(())
    }

    /// All mapped bytes, copied out.
    pub fn to_vec(&self) -> Vec<u8> {
        let mut v = vec![0u8; self.len];
        let _ = self.read_bytes(0, &mut v);
        v
    }

    /// The mapped bytes as a slice.
    ///
    /// # Safety
    /// No other live transfer may map overlapping bytes for writing, and
    /// the GPU must not write them while the slice lives (so not during a
    /// PERSISTENT, COHERENT or UNSYNCHRONIZED map of memory in use).
    pub unsafe fn data(&self) -> &[u8] {
        // SAFETY: validity from `new`; exclusivity from the caller.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    /// The mapped bytes as a mutable slice.
    ///
    /// # Safety
    /// As for [`Transfer::data`], and no other live transfer may map
    /// overlapping bytes at all.
    pub unsafe fn data_mut(&mut self) -> &mut [u8] {
        // SAFETY: validity from `new`; exclusivity from the caller.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }

    /// The backend payload.
    pub fn backend<T: Any>(&self) -> Option<&T> {
        self.backend.downcast_ref::<T>()
    }

    /// The backend payload, mutable.
    pub fn backend_mut<T: Any>(&mut self) -> Option<&mut T> {
        self.backend.downcast_mut::<T>()
    }

    /// Splits the transfer into its backend payload (for `transfer_unmap`).
    pub fn into_backend(self) -> Box<dyn Any> {
        self.backend
    }
}

impl std::fmt::Debug for Transfer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transfer")
            .field("resource", &self.resource.id())
            .field("level", &self.level)
            .field("usage", &self.usage)
            .field("bx", &self.bx)
            .field("stride", &self.stride)
            .field("layer_stride", &self.layer_stride)
            .field("len", &self.len)
            .finish()
    }
}

/// Which of the context's two uploaders a call uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Uploader {
    /// `pipe_context::stream_uploader`: vertices, indices, everything else.
    Stream,
    /// `pipe_context::const_uploader`: constants.
    Const,
}

/// Result of `upload_alloc`: where the caller writes, and where the GPU
/// will find it. It owns (through its keep-alive payload) the memory it
/// points at, so it stays valid even after later upload calls.
pub struct UploadAllocation {
    resource: Resource,
    offset: u32,
    size: u32,
    ptr: NonNull<u8>,
    _keepalive: Box<dyn Any>,
}

impl UploadAllocation {
    /// Creates an allocation record. Backends call this.
    ///
    /// # Safety
    /// `ptr` must be valid for writes of `size` bytes while `keepalive`
    /// lives, and no other `UploadAllocation` may cover those bytes.
    pub unsafe fn new(
        resource: Resource,
        offset: u32,
        size: u32,
        ptr: NonNull<u8>,
        keepalive: Box<dyn Any>,
    ) -> Self {
        UploadAllocation {
            resource,
            offset,
            size,
            ptr,
            _keepalive: keepalive,
        }
    }

    /// The buffer the data lands in.
    pub fn resource(&self) -> &Resource {
        &self.resource
    }

    /// Offset of the data in the buffer.
    pub fn offset(&self) -> u32 {
        self.offset
    }

    /// Size of the allocation in bytes.
    pub fn size(&self) -> u32 {
        self.size
    }

    /// The bytes to fill immediately (see "Uploading: Gotchas").
    pub fn data_mut(&mut self) -> &mut [u8] {
        // SAFETY: `new`'s contract: valid while the keep-alive lives (as
        // long as self) and not covered by any other allocation; the
        // exclusive borrow makes this the only slice over it.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.size as usize) }
    }
}

impl std::fmt::Debug for UploadAllocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UploadAllocation")
            .field("resource", &self.resource.id())
            .field("offset", &self.offset)
            .field("size", &self.size)
            .finish()
    }
}
