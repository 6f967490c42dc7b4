//! The context's stream and const uploaders (`u_upload_mgr`).
//!
//! Each uploader suballocates a persistently mapped, host-visible buffer
//! (1 MiB, or larger for a bigger request) with a bump pointer. Regions are
//! never reused: when the buffer is full a new one replaces it, and the old
//! one lives on for as long as a batch or the frontend references it. So
//! an upload never waits for the GPU and never needs a barrier (host writes
//! are visible to every later submission). `upload_unmap` has nothing to
//! do because the memory stays mapped; it exists for the spec's contract.

use std::ptr::NonNull;

use pipe_core::resource::{BindFlags, ResourceFlags, ResourceTemplate, Usage};
use pipe_core::transfer::{UploadAllocation, Uploader};
use pipe_core::{PipeError, PipeResult, Resource};

use crate::context::VkContext;
use crate::resource::vk_resource;

const DEFAULT_SIZE: u32 = 1 << 20;

/// One uploader's current buffer.
#[derive(Default)]
pub struct UploadRing {
    buffer: Option<Resource>,
    offset: u32,
    /// Buffers created so far (for tests and stats).
    pub buffers_created: u64,
}

impl VkContext {
    pub(crate) fn do_upload_alloc(
        &mut self,
        which: Uploader,
        size: u32,
        alignment: u32,
    ) -> PipeResult<UploadAllocation> {
        let bind = match which {
            Uploader::Stream => BindFlags::VERTEX_BUFFER | BindFlags::INDEX_BUFFER,
            Uploader::Const => BindFlags::CONSTANT_BUFFER,
        };
        let align = alignment.max(self.min_upload_alignment()).max(1);
        let ring = &mut self.uploaders[which as usize];
        let fits = |ring: &UploadRing| {
            ring.buffer.as_ref().and_then(|b| {
                let start = ring.offset.checked_next_multiple_of(align)?;
                let end = start.checked_add(size)?;
                (end <= b.desc().width0).then_some(start)
            })
        };
        let start = match fits(ring) {
            Some(s) => s,
            None => {
                let mut t = ResourceTemplate::buffer(size.max(DEFAULT_SIZE), bind);
                t.usage = Usage::Stream;
                t.flags = ResourceFlags::MAP_PERSISTENT | ResourceFlags::MAP_COHERENT;
                let dev = self.dev().clone();
                let res = crate::resource::resource_create(&dev, &t)?;
                let ring = &mut self.uploaders[which as usize];
                ring.buffer = Some(res);
                ring.offset = 0;
                ring.buffers_created += 1;
                0
            }
        };
        let ring = &mut self.uploaders[which as usize];
        let res = ring.buffer.clone().ok_or(PipeError::OutOfMemory)?;
        ring.offset = start + size;
        let obj = vk_resource(&res)?.obj();
        let base = obj
            .mapped
            .ok_or_else(|| PipeError::unsupported("upload memory is not host visible"))?;
        // SAFETY: start + size <= the buffer size (checked above) and the
        // buffer is mapped in full.
        let ptr = unsafe { NonNull::new_unchecked(base.as_ptr().add(start as usize)) };
        // SAFETY: the region [start, start + size) is handed out once (the
        // bump pointer moved past it) and `obj`, the keep-alive, owns the
        // mapping.
        Ok(unsafe { UploadAllocation::new(res, start, size, ptr, Box::new(obj)) })
    }

    pub(crate) fn do_upload_data(
        &mut self,
        which: Uploader,
        data: &[u8],
        alignment: u32,
    ) -> PipeResult<(Resource, u32)> {
        let size = u32::try_from(data.len()).map_err(|_| PipeError::OutOfMemory)?;
        let mut a = self.do_upload_alloc(which, size, alignment)?;
        a.data_mut().copy_from_slice(data);
        Ok((a.resource().clone(), a.offset()))
    }

    fn min_upload_alignment(&self) -> u32 {
        let c = pipe_core::Screen::caps(&**self.screen());
        c.constant_buffer_offset_alignment
            .max(c.shader_buffer_offset_alignment)
            .max(4)
    }
}
