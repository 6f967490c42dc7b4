//! Transfers: `transfer_map`/`unmap`, `buffer_subdata`, `texture_subdata`.
//!
//! Paths (Zink's `zink_resource.c` map logic, simplified):
//! - **Direct**: host-visible buffers are mapped in place. A read waits for
//!   pending GPU writes (after a barrier that makes them host visible); a
//!   write waits for any pending use, unless UNSYNCHRONIZED.
//! - **Rename**: `DISCARD_WHOLE_RESOURCE` on a busy buffer swaps in fresh
//!   storage (`VkResource::rename`); in-flight batches keep the old one.
//!   No wait.
//! - **Staging**: device-local buffers (or all of them under
//!   `PIPE_VK_DEBUG=staging`), `DISCARD_RANGE` on a busy buffer, and every
//!   texture go through a host-visible staging buffer: reads copy into it
//!   and wait; writes copy out of it at unmap (or at each
//!   `transfer_flush_region` with `FLUSH_EXPLICIT`).
//! - `DONTBLOCK` returns `PipeError::WouldBlock` wherever a path would wait.
//!
//! Texture staging data is tightly packed in blocks: `stride` is a row of
//! blocks, `layer_stride` a 2D slice; box z/depth are layers, cube faces or
//! 3D slices as the spec's box rules say.

use std::ptr::NonNull;
use std::sync::Arc;

use ash::vk;
use gpu_allocator::MemoryLocation;
use pipe_core::flags::MapFlags;
use pipe_core::resource::{BindFlags, PipeBox, Target};
use pipe_core::transfer::Transfer;
use pipe_core::{Format, PipeError, PipeResult, Resource};

use crate::context::VkContext;
use crate::resource::{create_buffer_object, vk_resource, ResourceObject};
use crate::sync::{access, Access};

/// Backend state of a transfer.
pub struct MapState {
    obj: Arc<ResourceObject>,
    staging: Option<Arc<ResourceObject>>,
    /// Whether writes still have to be copied from staging at unmap.
    pending_write: bool,
    /// Combined depth/stencil maps: the frontend sees Gallium's
    /// interleaved layout in this shadow, converted from/to Vulkan's
    /// per-aspect planes in the staging buffer.
    shadow: Option<(Vec<u8>, DsPacking)>,
}

/// Gallium layouts of the combined depth/stencil formats pipe-vk maps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DsPacking {
    /// `Z24_UNORM_S8_UINT`: depth in bits 0..24, stencil in 24..32.
    Z24S8,
    /// `Z32_FLOAT_S8X24_UINT`: a float depth, then a word whose low byte is
    /// stencil.
    Z32FS8X24,
}

impl DsPacking {
    fn of(format: Format) -> Option<Self> {
        match format {
            Format::Z24UnormS8Uint => Some(DsPacking::Z24S8),
            Format::Z32FloatS8X24Uint => Some(DsPacking::Z32FS8X24),
            _ => None,
        }
    }

    fn texel_bytes(self) -> usize {
        match self {
            DsPacking::Z24S8 => 4,
            DsPacking::Z32FS8X24 => 8,
        }
    }

    /// Vulkan planes (depth: 4 bytes per texel, then stencil: 1) to Gallium.
    fn pack(self, planes: &[u8], n: usize, out: &mut [u8]) {
        for i in 0..n {
            let d = u32::from_le_bytes([
                planes[i * 4],
                planes[i * 4 + 1],
                planes[i * 4 + 2],
                planes[i * 4 + 3],
            ]);
            let st = planes[4 * n + i];
            match self {
                DsPacking::Z24S8 => {
                    let v = (d & 0x00ff_ffff) | (u32::from(st) << 24);
                    out[i * 4..i * 4 + 4].copy_from_slice(&v.to_le_bytes());
                }
                DsPacking::Z32FS8X24 => {
                    out[i * 8..i * 8 + 4].copy_from_slice(&d.to_le_bytes());
                    out[i * 8 + 4..i * 8 + 8].copy_from_slice(&u32::from(st).to_le_bytes());
                }
            }
        }
    }

    /// Gallium to Vulkan planes.
    fn unpack(self, packed: &[u8], n: usize, planes: &mut [u8]) {
        for i in 0..n {
            let (d, st) = match self {
                DsPacking::Z24S8 => {
                    let v = u32::from_le_bytes([
                        packed[i * 4],
                        packed[i * 4 + 1],
                        packed[i * 4 + 2],
                        packed[i * 4 + 3],
                    ]);
                    (v & 0x00ff_ffff, (v >> 24) as u8)
                }
                DsPacking::Z32FS8X24 => (
                    u32::from_le_bytes([
                        packed[i * 8],
                        packed[i * 8 + 1],
                        packed[i * 8 + 2],
                        packed[i * 8 + 3],
                    ]),
                    packed[i * 8 + 4],
                ),
            };
            planes[i * 4..i * 4 + 4].copy_from_slice(&d.to_le_bytes());
            planes[4 * n + i] = st;
        }
    }
}

/// A buffer region in texels-of-blocks layout for a texture box.
struct TexLayout {
    stride: usize,
    layer_stride: usize,
    size: usize,
}

fn tex_layout(res: &Resource, bx: &PipeBox) -> PipeResult<TexLayout> {
    let f = res.desc().format;
    let b = f.block();
    let bytes = (b.bits / 8).max(1) as usize;
    let cols = (bx.width as usize).div_ceil(b.width.max(1) as usize);
    let rows = (bx.height as usize).div_ceil(b.height.max(1) as usize);
    let stride = cols.checked_mul(bytes).ok_or(PipeError::OutOfMemory)?;
    let layer_stride = stride.checked_mul(rows).ok_or(PipeError::OutOfMemory)?;
    let size = layer_stride
        .checked_mul(bx.depth as usize)
        .ok_or(PipeError::OutOfMemory)?;
    Ok(TexLayout {
        stride,
        layer_stride,
        size,
    })
}

/// The `VkBufferImageCopy` regions of a texture box (one per aspect).
fn copy_regions(
    res: &Resource,
    obj: &ResourceObject,
    level: u32,
    bx: &PipeBox,
) -> PipeResult<Vec<vk::BufferImageCopy>> {
    let img = obj
        .image()
        .ok_or_else(|| PipeError::invalid("texture transfer on a buffer object"))?;
    let t = res.desc();
    let (layer, layers, z, depth) = if t.target == Target::Texture3D {
        (0, 1, bx.z, bx.depth as u32)
    } else {
        (bx.z as u32, bx.depth as u32, 0, 1)
    };
    let aspects = img.aspect;
    if aspects.contains(vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL) {
        if DsPacking::of(t.format).is_none() {
            return Err(PipeError::unsupported(format!(
                "mapping {} (a combined depth/stencil layout pipe-vk does not pack) is not supported",
                t.format
            )));
        }
        // Depth plane (4 bytes a texel) then stencil plane (1 byte).
        let n =
            u64::from(bx.width as u32) * u64::from(bx.height as u32) * u64::from(bx.depth as u32);
        let region = |aspect, offset| vk::BufferImageCopy {
            buffer_offset: offset,
            buffer_row_length: 0,
            buffer_image_height: 0,
            image_subresource: vk::ImageSubresourceLayers {
                aspect_mask: aspect,
                mip_level: level,
                base_array_layer: layer,
                layer_count: layers,
            },
            image_offset: vk::Offset3D {
                x: bx.x,
                y: bx.y,
                z,
            },
            image_extent: vk::Extent3D {
                width: bx.width as u32,
                height: bx.height as u32,
                depth,
            },
        };
        return Ok(vec![
            region(vk::ImageAspectFlags::DEPTH, 0),
            region(vk::ImageAspectFlags::STENCIL, 4 * n),
        ]);
    }
    Ok(vec![vk::BufferImageCopy {
        buffer_offset: 0,
        buffer_row_length: 0,
        buffer_image_height: 0,
        image_subresource: vk::ImageSubresourceLayers {
            aspect_mask: aspects,
            mip_level: level,
            base_array_layer: layer,
            layer_count: layers,
        },
        image_offset: vk::Offset3D {
            x: bx.x,
            y: bx.y,
            z,
        },
        image_extent: vk::Extent3D {
            width: bx.width as u32,
            height: bx.height as u32,
            depth,
        },
    }])
}

fn layer_range(res: &Resource, bx: &PipeBox) -> (u32, u32) {
    if res.desc().target == Target::Texture3D {
        (0, 1)
    } else {
        (bx.z as u32, bx.depth as u32)
    }
}

impl VkContext {
    /// A host-visible staging buffer of at least `size` bytes. Idle ones
    /// (held by no batch and no transfer) are reused from a small
    /// per-context cache: a fresh allocation per map costs page faults and
    /// zeroing that dominate large uploads.
    fn staging(&mut self, size: u64) -> PipeResult<Arc<ResourceObject>> {
        const CACHE: usize = 4;
        self.retire();
        let idle = |o: &Arc<ResourceObject>| Arc::strong_count(o) == 1;
        let fits = |o: &Arc<ResourceObject>| match o.raw {
            crate::resource::Raw::Buffer { size: s, .. } => s >= size,
            _ => false,
        };
        if let Some(o) = self.staging_cache.iter().find(|o| idle(o) && fits(o)) {
            return Ok(o.clone());
        }
        let alloc = size.max(64 << 10).next_power_of_two();
        let obj = create_buffer_object(
            self.dev(),
            alloc,
            BindFlags::empty(),
            MemoryLocation::CpuToGpu,
            "staging",
        )?;
        if obj.mapped.is_none() {
            return Err(PipeError::unsupported("staging memory is not host visible"));
        }
        if self.staging_cache.len() < CACHE {
            self.staging_cache.push(obj.clone());
        } else if let Some(slot) = self
            .staging_cache
            .iter_mut()
            .filter(|o| idle(o))
            .min_by_key(|o| match o.raw {
                crate::resource::Raw::Buffer { size, .. } => size,
                _ => 0,
            })
        {
            *slot = obj.clone();
        }
        Ok(obj)
    }

    /// Waits (flushing this context if needed) until the CPU may access
    /// `obj`: for reading when `read`, else for writing.
    pub(crate) fn sync_for_cpu(
        &mut self,
        obj: &Arc<ResourceObject>,
        read: bool,
        dontblock: bool,
    ) -> PipeResult<()> {
        let busy = if read {
            obj.busy_for_cpu_read()
        } else {
            obj.busy_for_cpu_write()
        };
        if !busy {
            return Ok(());
        }
        if dontblock {
            return Err(PipeError::WouldBlock);
        }
        if self.batches_references(obj) {
            self.flush_internal()?;
        }
        // Another context's unflushed use is the frontend's business (the
        // spec: "only areas not yet used for rendering should be locked");
        // wait for what was submitted.
        let value = {
            let u = obj.usage();
            if read {
                u.last_write
            } else {
                u.last_use
            }
        };
        self.debug_message(pipe_core::state::DebugType::PerfInfo, 3, || {
            "transfer_map waited for the GPU".to_string()
        });
        self.dev().wait_value(value, u64::MAX)?;
        self.retire();
        Ok(())
    }

    pub(crate) fn do_transfer_map(
        &mut self,
        resource: &Resource,
        level: u32,
        usage: MapFlags,
        bx: &PipeBox,
    ) -> PipeResult<Transfer> {
        let vres = vk_resource(resource)?;
        let t = resource.desc();
        let read = usage.contains(MapFlags::READ);
        let write = usage.contains(MapFlags::WRITE);
        let unsync = usage.contains(MapFlags::UNSYNCHRONIZED);
        let dontblock = usage.contains(MapFlags::DONTBLOCK);
        let mut obj = vres.obj();

        if t.target == Target::Buffer {
            let (offset, len) = (bx.x as usize, bx.width as usize);
            if usage.contains(MapFlags::DISCARD_WHOLE_RESOURCE)
                && !unsync
                && obj.busy_for_cpu_write()
            {
                let loc = crate::resource::rename_location(t);
                let new = create_buffer_object(
                    self.dev(),
                    u64::from(t.width0),
                    t.bind,
                    loc,
                    "renamed buffer",
                )?;
                vres.rename(new.clone());
                self.stats.renames += 1;
                obj = new;
            }
            let busy_discard =
                usage.contains(MapFlags::DISCARD_RANGE) && !unsync && obj.busy_for_cpu_write();
            if let (Some(base), false) = (obj.mapped, busy_discard) {
                if !unsync {
                    if read {
                        self.make_host_visible(&obj)?;
                    }
                    self.sync_for_cpu(&obj, read && !write, dontblock)?;
                    if read && write {
                        self.sync_for_cpu(&obj, false, dontblock)?;
                    }
                }
                // SAFETY: offset + len lies inside the buffer (validated box)
                // and `base` maps the whole buffer.
                let ptr = unsafe { NonNull::new_unchecked(base.as_ptr().add(offset)) };
                let state = MapState {
                    obj,
                    staging: None,
                    pending_write: false,
                    shadow: None,
                };
                // SAFETY: the mapping lives as long as `obj`, which the
                // transfer's payload keeps alive.
                return Ok(unsafe {
                    Transfer::new(
                        resource.clone(),
                        level,
                        usage,
                        *bx,
                        len,
                        len,
                        ptr,
                        len,
                        Box::new(state),
                    )
                });
            }
            // Staging path.
            let staging = self.staging(len as u64)?;
            if read {
                if dontblock {
                    return Err(PipeError::WouldBlock);
                }
                let buf = obj
                    .buffer()
                    .ok_or_else(|| PipeError::invalid("buffer map of an image"))?;
                let sbuf = staging.buffer().ok_or(PipeError::OutOfMemory)?;
                self.use_buffer(&obj, access::TRANSFER_READ, false);
                self.use_buffer(&staging, access::TRANSFER_WRITE, true);
                let cmd = self.cmd();
                let region = vk::BufferCopy {
                    src_offset: offset as u64,
                    dst_offset: 0,
                    size: len as u64,
                };
                // SAFETY: recording; both buffers are live and the ranges in bounds.
                unsafe { self.dev().raw().cmd_copy_buffer(cmd, buf, sbuf, &[region]) };
                self.make_host_visible(&staging)?;
                self.sync_for_cpu(&staging, true, false)?;
            }
            let ptr = staging.mapped.ok_or(PipeError::OutOfMemory)?;
            let state = MapState {
                obj,
                staging: Some(staging),
                pending_write: write,
                shadow: None,
            };
            // SAFETY: the staging buffer is `len` bytes, mapped, and kept
            // alive by the payload.
            return Ok(unsafe {
                Transfer::new(
                    resource.clone(),
                    level,
                    usage,
                    *bx,
                    len,
                    len,
                    ptr,
                    len,
                    Box::new(state),
                )
            });
        }

        // Textures: always staged. Multisampled ones are resolved first
        // (the spec's "Transfers": averaged colour, first sample for
        // depth/stencil and integers).
        let packing = DsPacking::of(t.format);
        let layout = tex_layout(resource, bx)?;
        let texels = layout.size / t.format.block_size_bytes().max(1) as usize;
        let staging_size = match packing {
            Some(_) => texels * 5,
            None => layout.size,
        };
        let staging = self.staging(staging_size as u64)?;
        if read {
            if dontblock {
                return Err(PipeError::WouldBlock);
            }
            if t.samples() > 1 {
                obj = self.resolve_for_read(resource, &obj, bx)?;
            }
            let regions = copy_regions(resource, &obj, level, bx)?;
            let (l0, ln) = layer_range(resource, bx);
            self.use_image(
                &obj,
                level,
                l0,
                ln,
                access::TRANSFER_READ,
                false,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                false,
            );
            self.use_buffer(&staging, access::TRANSFER_WRITE, true);
            let img = obj.image().map(|i| i.image).unwrap_or_default();
            let sbuf = staging.buffer().unwrap_or_default();
            let cmd = self.cmd();
            // SAFETY: recording; the image is in TRANSFER_SRC_OPTIMAL after
            // the barrier; regions lie inside both.
            unsafe {
                self.dev().raw().cmd_copy_image_to_buffer(
                    cmd,
                    img,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    sbuf,
                    &regions,
                )
            };
            self.make_host_visible(&staging)?;
            self.sync_for_cpu(&staging, true, false)?;
        } else {
            // Validate the copy now so unmap cannot fail on it.
            copy_regions(resource, &obj, level, bx)?;
        }
        let mut ptr = staging.mapped.ok_or(PipeError::OutOfMemory)?;
        let shadow = match packing {
            Some(p) => {
                let mut v = vec![0u8; texels * p.texel_bytes()];
                if read {
                    // SAFETY: the staging buffer holds 5 bytes a texel, is
                    // mapped, and the GPU finished writing it (waited above).
                    let planes = unsafe { std::slice::from_raw_parts(ptr.as_ptr(), staging_size) };
                    p.pack(planes, texels, &mut v);
                }
                ptr = NonNull::new(v.as_mut_ptr()).ok_or(PipeError::OutOfMemory)?;
                Some((v, p))
            }
            None => None,
        };
        let state = MapState {
            obj,
            staging: Some(staging),
            pending_write: write,
            shadow,
        };
        // SAFETY: the staging buffer holds `size` bytes, is mapped and kept
        // alive by the payload.
        Ok(unsafe {
            Transfer::new(
                resource.clone(),
                level,
                usage,
                *bx,
                layout.stride,
                layout.layer_stride,
                ptr,
                layout.size,
                Box::new(state),
            )
        })
    }

    /// Records the copy of written staging data back into the resource.
    /// `sub` is the flushed region relative to the mapped box.
    fn write_back(
        &mut self,
        transfer: &Transfer,
        state: &MapState,
        sub: &PipeBox,
    ) -> PipeResult<()> {
        let Some(staging) = &state.staging else {
            return Ok(());
        };
        let sbuf = staging.buffer().ok_or(PipeError::OutOfMemory)?;
        let res = transfer.resource();
        let bx = transfer.bx();
        if let Some(buf) = state.obj.buffer() {
            let region = vk::BufferCopy {
                src_offset: sub.x as u64,
                dst_offset: (bx.x + sub.x) as u64,
                size: sub.width as u64,
            };
            if region.size == 0 {
                return Ok(());
            }
            self.use_buffer(&state.obj, access::TRANSFER_WRITE, true);
            self.use_buffer(staging, access::TRANSFER_READ, false);
            let cmd = self.cmd();
            // SAFETY: recording; ranges in bounds (validated).
            unsafe { self.dev().raw().cmd_copy_buffer(cmd, sbuf, buf, &[region]) };
            return Ok(());
        }
        if let Some((shadow, packing)) = &state.shadow {
            // Combined depth/stencil: convert the whole box to Vulkan's
            // planes and copy both aspects.
            let texels = shadow.len() / packing.texel_bytes();
            let base = staging.mapped.ok_or(PipeError::OutOfMemory)?;
            // SAFETY: the staging buffer holds 5 bytes a texel and is
            // mapped; the GPU has not been given it yet (the copy is
            // recorded below).
            let planes = unsafe { std::slice::from_raw_parts_mut(base.as_ptr(), texels * 5) };
            packing.unpack(shadow, texels, planes);
            let regions = copy_regions(res, &state.obj, transfer.level(), &bx)?;
            let (l0, ln) = layer_range(res, &bx);
            self.use_image(
                &state.obj,
                transfer.level(),
                l0,
                ln,
                access::TRANSFER_WRITE,
                true,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                false,
            );
            self.use_buffer(staging, access::TRANSFER_READ, false);
            let img = state.obj.image().map(|i| i.image).unwrap_or_default();
            let cmd = self.cmd();
            // SAFETY: recording; layout set above; regions validated.
            unsafe {
                self.dev().raw().cmd_copy_buffer_to_image(
                    cmd,
                    sbuf,
                    img,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    &regions,
                )
            };
            return Ok(());
        }
        // Texture: copy the sub-box (relative to the mapped box).
        let abs = PipeBox::new(
            bx.x + sub.x,
            bx.y + sub.y,
            bx.z + sub.z,
            sub.width,
            sub.height,
            sub.depth,
        );
        if abs.is_empty() {
            return Ok(());
        }
        let mut regions = copy_regions(res, &state.obj, transfer.level(), &abs)?;
        let b = res.desc().format.block();
        let offset = (sub.z as usize) * transfer.layer_stride()
            + (sub.y as usize / b.height.max(1) as usize) * transfer.stride()
            + (sub.x as usize / b.width.max(1) as usize) * (b.bits / 8) as usize;
        let row_texels = (bx.width as u32).div_ceil(b.width.max(1)) * b.width.max(1);
        let rows_texels = (bx.height as u32).div_ceil(b.height.max(1)) * b.height.max(1);
        for r in &mut regions {
            r.buffer_offset = offset as u64;
            r.buffer_row_length = row_texels;
            r.buffer_image_height = rows_texels;
        }
        let (l0, ln) = layer_range(res, &abs);
        let (w, h, d) = res
            .desc()
            .level_extent(transfer.level())
            .unwrap_or((0, 0, 0));
        let is3d = res.desc().target == Target::Texture3D;
        let whole = abs.x == 0
            && abs.y == 0
            && abs.width as u32 == w
            && abs.height as u32 == h
            && (!is3d || (abs.z == 0 && abs.depth as u32 == d));
        let discard = whole
            && transfer
                .usage()
                .intersects(MapFlags::DISCARD_RANGE | MapFlags::DISCARD_WHOLE_RESOURCE);
        self.use_image(
            &state.obj,
            transfer.level(),
            l0,
            ln,
            access::TRANSFER_WRITE,
            true,
            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            discard,
        );
        self.use_buffer(staging, access::TRANSFER_READ, false);
        let img = state.obj.image().map(|i| i.image).unwrap_or_default();
        let cmd = self.cmd();
        // SAFETY: recording; the image is in TRANSFER_DST_OPTIMAL after the
        // barrier; regions lie inside both.
        unsafe {
            self.dev().raw().cmd_copy_buffer_to_image(
                cmd,
                sbuf,
                img,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &regions,
            )
        };
        Ok(())
    }

    pub(crate) fn do_transfer_unmap(&mut self, transfer: Transfer) -> PipeResult<()> {
        let state = transfer.backend::<MapState>().ok_or_else(|| {
            PipeError::invalid("transfer_unmap of a transfer not made by pipe-vk")
        })?;
        let explicit =
            transfer.usage().contains(MapFlags::FLUSH_EXPLICIT) && state.shadow.is_none();
        if state.pending_write && !explicit {
            let whole = PipeBox::new(
                0,
                0,
                0,
                transfer.bx().width,
                transfer.bx().height,
                transfer.bx().depth,
            );
            self.write_back(&transfer, state, &whole)?;
        }
        // Keep the staging buffer alive until the copy has executed.
        if let Some(s) = &state.staging {
            self.batches.track(s, false);
        }
        Ok(())
    }

    pub(crate) fn do_transfer_flush_region(
        &mut self,
        transfer: &mut Transfer,
        bx: &PipeBox,
    ) -> PipeResult<()> {
        let Some(state) = transfer.backend::<MapState>() else {
            return Err(PipeError::invalid(
                "transfer_flush_region of a transfer not made by pipe-vk",
            ));
        };
        if !state.pending_write || state.shadow.is_some() {
            // Depth/stencil shadows are converted and written once, at
            // unmap (flushing more than asked is allowed).
            return Ok(());
        }
        let (obj, staging) = (state.obj.clone(), state.staging.clone());
        let st = MapState {
            obj,
            staging,
            pending_write: true,
            shadow: None,
        };
        self.write_back(transfer, &st, bx)
    }

    /// Resolves layers `bx.z..` of a multisampled texture into a temporary
    /// single-sampled image through a dynamic-rendering resolve (no draws):
    /// AVERAGE for float and normalized colour, SAMPLE_ZERO for integer
    /// colour and depth/stencil, as the spec's map rules ask.
    fn resolve_for_read(
        &mut self,
        res: &Resource,
        obj: &Arc<ResourceObject>,
        bx: &PipeBox,
    ) -> PipeResult<Arc<ResourceObject>> {
        let t = res.desc();
        let mut tt = t.clone();
        tt.nr_samples = 0;
        tt.nr_storage_samples = 0;
        let tmp = crate::resource::create_object(self.dev(), &tt, 0)?;
        let img = *obj
            .image()
            .ok_or_else(|| PipeError::invalid("resolve of a buffer"))?;
        let (first, count) = (bx.z as u32, bx.depth as u32);
        let key = |format| crate::view::ViewKey {
            view_type: if count > 1 {
                vk::ImageViewType::TYPE_2D_ARRAY
            } else {
                vk::ImageViewType::TYPE_2D
            },
            format,
            swizzle: [vk::ComponentSwizzle::IDENTITY; 4],
            aspect: img.aspect,
            levels: (0, 1),
            layers: (first, count),
        };
        let src_view = obj.views.get(obj, key(img.format))?;
        let dst_view = tmp.views.get(&tmp, key(img.format))?;
        let color = img.aspect.contains(vk::ImageAspectFlags::COLOR);
        let (layout, src_access, dst_access) = if color {
            (
                vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
                Access::new(
                    vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT,
                    vk::AccessFlags2::COLOR_ATTACHMENT_READ
                        | vk::AccessFlags2::COLOR_ATTACHMENT_WRITE,
                ),
                Access::new(
                    vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT,
                    vk::AccessFlags2::COLOR_ATTACHMENT_WRITE,
                ),
            )
        } else {
            let stages = vk::PipelineStageFlags2::EARLY_FRAGMENT_TESTS
                | vk::PipelineStageFlags2::LATE_FRAGMENT_TESTS
                | vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT;
            (
                vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
                Access::new(
                    stages,
                    vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_READ
                        | vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_WRITE
                        | vk::AccessFlags2::COLOR_ATTACHMENT_READ,
                ),
                Access::new(
                    stages,
                    vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_WRITE
                        | vk::AccessFlags2::COLOR_ATTACHMENT_WRITE,
                ),
            )
        };
        self.use_image(obj, 0, first, count, src_access, true, layout, false);
        self.use_image_tracked(&tmp, 0, first, count, dst_access, true, layout, true);
        let mode = if !color || t.format.is_pure_integer() {
            vk::ResolveModeFlags::SAMPLE_ZERO
        } else {
            vk::ResolveModeFlags::AVERAGE
        };
        let att = vk::RenderingAttachmentInfo::default()
            .image_view(src_view)
            .image_layout(layout)
            .resolve_mode(mode)
            .resolve_image_view(dst_view)
            .resolve_image_layout(layout)
            .load_op(vk::AttachmentLoadOp::LOAD)
            .store_op(vk::AttachmentStoreOp::STORE);
        let atts = [att];
        let mut info = vk::RenderingInfo::default()
            .render_area(vk::Rect2D {
                offset: vk::Offset2D { x: 0, y: 0 },
                extent: vk::Extent2D {
                    width: img.extent.width,
                    height: img.extent.height,
                },
            })
            .layer_count(count);
        if color {
            info = info.color_attachments(&atts);
        } else {
            if img.aspect.contains(vk::ImageAspectFlags::DEPTH) {
                info = info.depth_attachment(&atts[0]);
            }
            if img.aspect.contains(vk::ImageAspectFlags::STENCIL) {
                info = info.stencil_attachment(&atts[0]);
            }
        }
        let cmd = self.cmd();
        self.dev().begin_rendering(cmd, &info);
        self.dev().end_rendering(cmd);
        Ok(tmp)
    }

    /// Makes GPU writes to `obj` visible to the host: records a barrier to
    /// HOST_READ in the current batch and counts it as a write, so that
    /// `sync_for_cpu` flushes and waits for the batch holding the barrier.
    pub(crate) fn make_host_visible(&mut self, obj: &Arc<ResourceObject>) -> PipeResult<()> {
        let pending = obj.sync().first().is_some_and(|s| {
            !s.write.access.is_empty() && !s.reads.access.contains(vk::AccessFlags2::HOST_READ)
        });
        if pending {
            self.use_buffer(obj, access::HOST_READ, false);
            self.batches.track(obj, true);
            // Put the barrier into the command stream now.
            let _ = self.cmd();
        }
        Ok(())
    }

    pub(crate) fn do_buffer_subdata(
        &mut self,
        resource: &Resource,
        usage: MapFlags,
        offset: u32,
        data: &[u8],
    ) -> PipeResult<()> {
        // GL's BufferSubData replaces the range: allow renaming when the
        // whole buffer is written, a staging upload otherwise.
        let mut flags = usage | MapFlags::WRITE;
        if !flags.contains(MapFlags::UNSYNCHRONIZED) {
            flags |= if offset == 0 && data.len() as u32 == resource.desc().width0 {
                MapFlags::DISCARD_WHOLE_RESOURCE
            } else {
                MapFlags::DISCARD_RANGE
            };
        }
        let bx = PipeBox::range(offset, data.len() as u32);
        let mut t = self.do_transfer_map(resource, 0, flags, &bx)?;
        t.write_bytes(0, data)
            .ok_or_else(|| PipeError::invalid("buffer_subdata: data larger than the map"))?;
        self.do_transfer_unmap(t)
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn do_texture_subdata(
        &mut self,
        resource: &Resource,
        level: u32,
        usage: MapFlags,
        bx: &PipeBox,
        data: &[u8],
        stride: usize,
        layer_stride: usize,
    ) -> PipeResult<()> {
        let mut t = self.do_transfer_map(
            resource,
            level,
            usage | MapFlags::WRITE | MapFlags::DISCARD_RANGE,
            bx,
        )?;
        let rows = t.layer_stride() / t.stride().max(1);
        let (ts, tls, depth) = (t.stride(), t.layer_stride(), bx.depth as usize);
        for z in 0..depth {
            for y in 0..rows {
                let s = z * layer_stride + y * stride;
                let d = z * tls + y * ts;
                let ok = data.get(s..s + ts).and_then(|src| t.write_bytes(d, src));
                if ok.is_none() {
                    return Err(PipeError::invalid(
                        "texture_subdata: data shorter than the box",
                    ));
                }
            }
        }
        self.do_transfer_unmap(t)
    }
}
