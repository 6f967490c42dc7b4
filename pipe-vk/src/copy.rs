//! `resource_copy_region`: buffer to buffer and image to image copies.
//!
//! pipe-core has already checked boxes, formats (equal block size) and
//! overlap. Images copy with `vkCmdCopyImage` per aspect; box z/depth are
//! layers (or 3D slices). Compressed-to-uncompressed copies of equal block
//! size are legal in Vulkan and scale the extent by the block size.

use ash::vk;
use pipe_core::resource::{PipeBox, Target};
use pipe_core::{PipeError, PipeResult, Resource};

use crate::context::VkContext;
use crate::resource::vk_resource;
use crate::sync::access;

impl VkContext {
    /// Copies a box of an image into another place of the same image via a
    /// temporary buffer.
    fn copy_via_buffer(
        &mut self,
        res: &Resource,
        obj: &std::sync::Arc<crate::resource::ResourceObject>,
        level: u32,
        bx: &PipeBox,
        [dx, dy, dz]: [u32; 3],
        dst_level: u32,
    ) -> PipeResult<()> {
        let img = *obj
            .image()
            .ok_or_else(|| PipeError::invalid("copy of a buffer object"))?;
        let b = res.desc().format.block();
        let cols = (bx.width as u64).div_ceil(u64::from(b.width.max(1)));
        let rows = (bx.height as u64).div_ceil(u64::from(b.height.max(1)));
        let size = cols * rows * bx.depth as u64 * u64::from(b.bits / 8);
        let tmp = crate::resource::create_buffer_object(
            self.dev(),
            size,
            pipe_core::resource::BindFlags::empty(),
            gpu_allocator::MemoryLocation::GpuOnly,
            "copy bounce",
        )?;
        let tbuf = tmp.buffer().ok_or(PipeError::OutOfMemory)?;
        let is3d = res.desc().target == Target::Texture3D;
        let layers = |z: i32| {
            if is3d {
                (0, 1, z)
            } else {
                (z as u32, bx.depth as u32, 0)
            }
        };
        let (sl, sn, sz) = layers(bx.z);
        let (dl, dn, dzz) = layers(dz as i32);
        let depth = if is3d { bx.depth as u32 } else { 1 };
        let region = |layer, count, x, y, z, level| vk::BufferImageCopy {
            buffer_offset: 0,
            buffer_row_length: 0,
            buffer_image_height: 0,
            image_subresource: vk::ImageSubresourceLayers {
                aspect_mask: img.aspect,
                mip_level: level,
                base_array_layer: layer,
                layer_count: count,
            },
            image_offset: vk::Offset3D { x, y, z },
            image_extent: vk::Extent3D {
                width: bx.width as u32,
                height: bx.height as u32,
                depth,
            },
        };
        self.use_image(
            obj,
            level,
            if is3d { 0 } else { sl },
            sn,
            access::TRANSFER_READ,
            false,
            vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
            false,
        );
        self.use_buffer(&tmp, access::TRANSFER_WRITE, true);
        let cmd = self.cmd();
        let r = region(sl, sn, bx.x, bx.y, sz, level);
        // SAFETY: recording; layout set above; region validated.
        unsafe {
            self.dev().raw().cmd_copy_image_to_buffer(
                cmd,
                img.image,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                tbuf,
                &[r],
            )
        };
        self.use_buffer(&tmp, access::TRANSFER_READ, false);
        self.use_image(
            obj,
            dst_level,
            if is3d { 0 } else { dl },
            dn,
            access::TRANSFER_WRITE,
            true,
            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            false,
        );
        let cmd = self.cmd();
        let r = region(dl, dn, dx as i32, dy as i32, dzz, dst_level);
        // SAFETY: as above.
        unsafe {
            self.dev().raw().cmd_copy_buffer_to_image(
                cmd,
                tbuf,
                img.image,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &[r],
            )
        };
        Ok(())
    }

    pub(crate) fn do_resource_copy_region(
        &mut self,
        dst: &Resource,
        dst_level: u32,
        [dx, dy, dz]: [u32; 3],
        src: &Resource,
        src_level: u32,
        bx: &PipeBox,
    ) -> PipeResult<()> {
        if bx.is_empty() {
            return Ok(());
        }
        let so = vk_resource(src)?.obj();
        let dobj = vk_resource(dst)?.obj();
        if let (Some(sb), Some(db)) = (so.buffer(), dobj.buffer()) {
            let region = vk::BufferCopy {
                src_offset: bx.x as u64,
                dst_offset: u64::from(dx),
                size: bx.width as u64,
            };
            self.use_buffer(&so, access::TRANSFER_READ, false);
            self.use_buffer(&dobj, access::TRANSFER_WRITE, true);
            let cmd = self.cmd();
            // SAFETY: recording; ranges validated by pipe-core.
            unsafe { self.dev().raw().cmd_copy_buffer(cmd, sb, db, &[region]) };
            return Ok(());
        }
        let (Some(si), Some(di)) = (so.image().copied(), dobj.image().copied()) else {
            return Err(PipeError::invalid(
                "resource_copy_region: buffer/texture mix (pipe-core should have refused)",
            ));
        };
        let is3d = |r: &Resource| r.desc().target == Target::Texture3D;
        let (s_layer, s_count, s_z) = if is3d(src) {
            (0, 1, bx.z)
        } else {
            (bx.z as u32, bx.depth as u32, 0)
        };
        let (d_layer, d_count, d_z) = if is3d(dst) {
            (0, 1, dz as i32)
        } else {
            (dz, bx.depth as u32, 0)
        };
        let depth = if is3d(src) || is3d(dst) {
            bx.depth as u32
        } else {
            1
        };
        // Vulkan takes the extent in source texels, also for copies between
        // compressed and uncompressed formats of equal block size.
        let (ext_w, ext_h) = (bx.width as u32, bx.height as u32);
        let same_layers = s_count == d_count || depth > 1;
        if !same_layers {
            return Err(PipeError::invalid(
                "resource_copy_region: layer counts differ",
            ));
        }
        let region = vk::ImageCopy {
            src_subresource: vk::ImageSubresourceLayers {
                aspect_mask: si.aspect,
                mip_level: src_level,
                base_array_layer: s_layer,
                layer_count: if is3d(src) { 1 } else { s_count },
            },
            src_offset: vk::Offset3D {
                x: bx.x,
                y: bx.y,
                z: s_z,
            },
            dst_subresource: vk::ImageSubresourceLayers {
                aspect_mask: di.aspect,
                mip_level: dst_level,
                base_array_layer: d_layer,
                layer_count: if is3d(dst) { 1 } else { d_count },
            },
            dst_offset: vk::Offset3D {
                x: dx as i32,
                y: dy as i32,
                z: d_z,
            },
            extent: vk::Extent3D {
                width: ext_w,
                height: ext_h,
                depth,
            },
        };
        let (sl0, sln) = if is3d(src) {
            (0, 1)
        } else {
            (s_layer, s_count)
        };
        let (dl0, dln) = if is3d(dst) {
            (0, 1)
        } else {
            (d_layer, d_count)
        };
        let same_subresources = std::sync::Arc::ptr_eq(&so, &dobj)
            && src_level == dst_level
            && sl0 < dl0 + dln
            && dl0 < sl0 + sln;
        if same_subresources {
            // One subresource cannot be TRANSFER_SRC and TRANSFER_DST at
            // once, and GENERAL draws a performance warning: bounce through
            // a buffer (pipe-core has already ruled out overlapping boxes).
            return self.copy_via_buffer(src, &so, src_level, bx, [dx, dy, dz], dst_level);
        }
        self.use_image(
            &so,
            src_level,
            sl0,
            sln,
            access::TRANSFER_READ,
            false,
            vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
            false,
        );
        self.use_image(
            &dobj,
            dst_level,
            dl0,
            dln,
            access::TRANSFER_WRITE,
            true,
            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            false,
        );
        let cmd = self.cmd();
        // SAFETY: recording; layouts established by the barriers above;
        // regions validated by pipe-core.
        unsafe {
            self.dev().raw().cmd_copy_image(
                cmd,
                si.image,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                di.image,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &[region],
            )
        };
        Ok(())
    }
}
