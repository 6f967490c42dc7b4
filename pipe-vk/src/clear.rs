//! `clear_buffer` and `clear_texture`.
//!
//! Buffers: a 4-byte-aligned clear whose value repeats every 4 bytes is one
//! `vkCmdFillBuffer`; anything else (1-, 2-, 8-, 12-, 16-byte values at any
//! alignment) copies a host-filled pattern from a staging buffer, which is
//! exact for every value size.
//!
//! Textures: the value is one texel (one block for compressed formats) in
//! the resource's own format, so replicating its bytes into a staging
//! buffer and copying buffer→image clears any box bit-exactly, with no
//! float round trip. Combined depth/stencil formats (whose buffer layout is
//! per aspect in Vulkan) use `vkCmdClearDepthStencilImage` on whole levels.

use std::sync::Arc;

use ash::vk;
use gpu_allocator::MemoryLocation;
use pipe_core::format;
use pipe_core::resource::{BindFlags, PipeBox, Target};
use pipe_core::{PipeError, PipeResult, Resource};

use crate::context::VkContext;
use crate::resource::{create_buffer_object, vk_resource, ResourceObject};
use crate::sync::access;

fn pattern_buffer(ctx: &VkContext, value: &[u8], size: usize) -> PipeResult<Arc<ResourceObject>> {
    let staging = create_buffer_object(
        ctx.dev(),
        size as u64,
        BindFlags::empty(),
        MemoryLocation::CpuToGpu,
        "clear pattern",
    )?;
    let ptr = staging
        .mapped
        .ok_or_else(|| PipeError::unsupported("staging memory is not host visible"))?;
    // SAFETY: the staging buffer is `size` bytes, mapped, and not yet used
    // by the GPU.
    let bytes = unsafe { std::slice::from_raw_parts_mut(ptr.as_ptr(), size) };
    for chunk in bytes.chunks_mut(value.len().max(1)) {
        let n = chunk.len();
        chunk.copy_from_slice(&value[..n]);
    }
    Ok(staging)
}

impl VkContext {
    pub(crate) fn do_clear_buffer(
        &mut self,
        res: &Resource,
        offset: u32,
        size: u32,
        value: &[u8],
    ) -> PipeResult<()> {
        if size == 0 {
            return Ok(());
        }
        let obj = vk_resource(res)?.obj();
        let buf = obj
            .buffer()
            .ok_or_else(|| PipeError::invalid("clear_buffer on a texture"))?;
        let word = match value.len() {
            1 => Some(u32::from_ne_bytes([value[0]; 4])),
            2 => Some(u32::from_ne_bytes([value[0], value[1], value[0], value[1]])),
            4 => Some(u32::from_ne_bytes([value[0], value[1], value[2], value[3]])),
            _ => None,
        };
        if let (Some(word), true) = (word, offset.is_multiple_of(4) && size.is_multiple_of(4)) {
            self.use_buffer(&obj, access::FILL_WRITE, true);
            let cmd = self.cmd();
            // SAFETY: recording; offset/size are 4-aligned and in range.
            unsafe {
                self.dev()
                    .raw()
                    .cmd_fill_buffer(cmd, buf, u64::from(offset), u64::from(size), word)
            };
            return Ok(());
        }
        let staging = pattern_buffer(self, value, size as usize)?;
        let sbuf = staging.buffer().ok_or(PipeError::OutOfMemory)?;
        self.use_buffer(&staging, access::TRANSFER_READ, false);
        self.use_buffer(&obj, access::TRANSFER_WRITE, true);
        let cmd = self.cmd();
        let region = vk::BufferCopy {
            src_offset: 0,
            dst_offset: u64::from(offset),
            size: u64::from(size),
        };
        // SAFETY: recording; ranges in bounds.
        unsafe { self.dev().raw().cmd_copy_buffer(cmd, sbuf, buf, &[region]) };
        Ok(())
    }

    pub(crate) fn do_clear_texture(
        &mut self,
        res: &Resource,
        level: u32,
        bx: &PipeBox,
        data: &[u8],
    ) -> PipeResult<()> {
        if bx.is_empty() {
            return Ok(());
        }
        let obj = vk_resource(res)?.obj();
        let img = *obj
            .image()
            .ok_or_else(|| PipeError::invalid("clear_texture on a buffer"))?;
        let t = res.desc();
        let is3d = t.target == Target::Texture3D;
        let (layer, layers) = if is3d {
            (0, 1)
        } else {
            (bx.z as u32, bx.depth as u32)
        };
        let combined = img
            .aspect
            .contains(vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL);
        if combined {
            let (w, h, d) = t.level_extent(level).unwrap_or((0, 0, 0));
            let whole = bx.x == 0
                && bx.y == 0
                && bx.width as u32 == w
                && bx.height as u32 == h
                && (!is3d || bx.depth as u32 == d);
            if !whole {
                return Err(PipeError::unsupported(
                    "clear_texture of part of a combined depth/stencil level is not supported by pipe-vk yet",
                ));
            }
            let depth = format::unpack_z_f32(t.format, data).unwrap_or(0.0);
            let stencil = format::unpack_s_u8(t.format, data).unwrap_or(0);
            self.use_image(
                &obj,
                level,
                layer,
                layers,
                access::CLEAR_WRITE,
                true,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                true,
            );
            let cmd = self.cmd();
            let range = vk::ImageSubresourceRange {
                aspect_mask: img.aspect,
                base_mip_level: level,
                level_count: 1,
                base_array_layer: layer,
                layer_count: layers,
            };
            let value = vk::ClearDepthStencilValue {
                depth,
                stencil: u32::from(stencil),
            };
            // SAFETY: recording; the image is in TRANSFER_DST_OPTIMAL.
            unsafe {
                self.dev().raw().cmd_clear_depth_stencil_image(
                    cmd,
                    img.image,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    &value,
                    &[range],
                )
            };
            return Ok(());
        }
        let b = t.format.block();
        let cols = (bx.width as u32).div_ceil(b.width.max(1)) as usize;
        let rows = (bx.height as u32).div_ceil(b.height.max(1)) as usize;
        let slices = bx.depth as usize;
        let size = cols
            .checked_mul(rows)
            .and_then(|n| n.checked_mul(slices))
            .and_then(|n| n.checked_mul(data.len()))
            .ok_or(PipeError::OutOfMemory)?;
        let staging = pattern_buffer(self, data, size)?;
        let sbuf = staging.buffer().ok_or(PipeError::OutOfMemory)?;
        let (w, h, d) = t.level_extent(level).unwrap_or((0, 0, 0));
        let whole = bx.x == 0
            && bx.y == 0
            && bx.width as u32 == w
            && bx.height as u32 == h
            && (!is3d || (bx.z == 0 && bx.depth as u32 == d));
        self.use_buffer(&staging, access::TRANSFER_READ, false);
        self.use_image(
            &obj,
            level,
            layer,
            layers,
            access::TRANSFER_WRITE,
            true,
            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            whole,
        );
        let region = vk::BufferImageCopy {
            buffer_offset: 0,
            buffer_row_length: 0,
            buffer_image_height: 0,
            image_subresource: vk::ImageSubresourceLayers {
                aspect_mask: img.aspect,
                mip_level: level,
                base_array_layer: layer,
                layer_count: layers,
            },
            image_offset: vk::Offset3D {
                x: bx.x,
                y: bx.y,
                z: if is3d { bx.z } else { 0 },
            },
            image_extent: vk::Extent3D {
                width: bx.width as u32,
                height: bx.height as u32,
                depth: if is3d { bx.depth as u32 } else { 1 },
            },
        };
        let cmd = self.cmd();
        // SAFETY: recording; layout established above; region validated.
        unsafe {
            self.dev().raw().cmd_copy_buffer_to_image(
                cmd,
                sbuf,
                img.image,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &[region],
            )
        };
        Ok(())
    }
}
