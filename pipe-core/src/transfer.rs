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
pub struct Transfer {
    pub resource: Resource,
    pub level: u32,
    pub usage: MapFlags,
    pub bx: PipeBox,
    /// Bytes between rows of blocks.
    pub stride: usize,
    /// Bytes between layers or 3D slices.
    pub layer_stride: usize,
    ptr: NonNull<u8>,
    len: usize,
    backend: Box<dyn Any>,
}

impl Transfer {
    /// Creates a transfer. Backends call this.
    ///
    /// # Safety
    /// `ptr` must be valid for reads and writes of `len` bytes until the
    /// transfer is passed to `transfer_unmap` (or dropped by the backend).
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

    /// The mapped bytes.
    pub fn data(&self) -> &[u8] {
        // SAFETY: `new`'s contract makes ptr valid for len bytes while the
        // transfer lives; the shared borrow of self prevents a concurrent
        // `data_mut` through this transfer.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    /// The mapped bytes, writable.
    pub fn data_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `data`; the exclusive borrow of self makes this the
        // only slice derived from this transfer.
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
/// will find it.
#[derive(Debug)]
pub struct UploadAllocation {
    pub resource: Resource,
    pub offset: u32,
    pub size: u32,
    ptr: NonNull<u8>,
}

impl UploadAllocation {
    /// Creates an allocation record. Backends call this.
    ///
    /// # Safety
    /// `ptr` must be valid for writes of `size` bytes until the next call
    /// to any upload function of the same uploader.
    pub unsafe fn new(resource: Resource, offset: u32, size: u32, ptr: NonNull<u8>) -> Self {
        UploadAllocation {
            resource,
            offset,
            size,
            ptr,
        }
    }

    /// The bytes to fill immediately (see "Uploading: Gotchas").
    pub fn data_mut(&mut self) -> &mut [u8] {
        // SAFETY: guaranteed by `new`'s contract; the allocation is not
        // Clone, so this is the only slice over the range.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.size as usize) }
    }
}
