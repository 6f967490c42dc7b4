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
//! per aspect in Vulkan) use `vkCmdClearDepthStencilImage` on whole levels
//! and a render-area clear on boxes, as multisampled textures do.

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
                // Buffer copies would need each aspect's own packing; a
                // render-area clear writes both from the decoded value.
                return self.clear_texture_by_value(res, &obj, level, layer, layers, bx, data);
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
        if img.samples != vk::SampleCountFlags::TYPE_1 {
            // Buffer-to-image copies cannot write multisampled images: clear
            // with the value converted from the native texel.
            return self.clear_texture_by_value(res, &obj, level, layer, layers, bx, data);
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

impl VkContext {
    /// `clear_texture` where buffer-to-image copies cannot do it
    /// (multisampled textures, and boxes of combined depth/stencil levels):
    /// the native texel is converted to a clear value (floats for
    /// normalized and float formats, integers for pure-integer ones, depth
    /// and stencil for depth/stencil formats); a whole level clears with
    /// `vkCmdClear*Image`, a box with a render-area clear.
    #[allow(clippy::too_many_arguments)]
    fn clear_texture_by_value(
        &mut self,
        res: &Resource,
        obj: &Arc<ResourceObject>,
        level: u32,
        layer: u32,
        layers: u32,
        bx: &PipeBox,
        data: &[u8],
    ) -> PipeResult<()> {
        let t = res.desc();
        let f = t.format;
        let img = *obj
            .image()
            .ok_or_else(|| PipeError::invalid("clear of a buffer"))?;
        let unsupported = || PipeError::unsupported(format!("clear_texture of {f} by value"));
        let v = if img.aspect.contains(vk::ImageAspectFlags::COLOR) {
            let color = if f.is_pure_uint() {
                format::unpack_rgba_u32(f, data).ok_or_else(unsupported)?
            } else if f.is_pure_sint() {
                format::unpack_rgba_i32(f, data)
                    .ok_or_else(unsupported)?
                    .map(|x| x as u32)
            } else {
                format::unpack_rgba_f32(f, data)
                    .ok_or_else(unsupported)?
                    .map(f32::to_bits)
            };
            PendingClear {
                color,
                depth: 0.0,
                stencil: 0,
                aspect: img.aspect,
            }
        } else {
            PendingClear {
                color: [0; 4],
                depth: format::unpack_z_f32(f, data).unwrap_or(0.0),
                stencil: u32::from(format::unpack_s_u8(f, data).unwrap_or(0)),
                aspect: img.aspect,
            }
        };
        let (w, h, _) = t.level_extent(level).unwrap_or((0, 0, 0));
        let whole = bx.x == 0 && bx.y == 0 && bx.width as u32 == w && bx.height as u32 == h;
        if whole {
            for l in layer..layer + layers {
                self.execute_clear(obj, level, l, &v)?;
            }
            return Ok(());
        }
        let key = crate::view::ViewKey {
            view_type: if layers > 1 {
                vk::ImageViewType::TYPE_2D_ARRAY
            } else {
                vk::ImageViewType::TYPE_2D
            },
            format: img.format,
            swizzle: [vk::ComponentSwizzle::IDENTITY; 4],
            aspect: img.aspect,
            levels: (level, 1),
            layers: (layer, layers),
        };
        let view = obj.views.get(obj, key)?;
        let target = AttachmentTarget {
            obj: obj.clone(),
            view,
            aspect: img.aspect,
            level,
            first_layer: layer,
            layer_count: layers,
        };
        self.render_area_clear_target(
            &target,
            v,
            (bx.x as u32, bx.y as u32, bx.width as u32, bx.height as u32),
            false,
        )
    }
}

/// What a render-area clear renders to.
struct AttachmentTarget {
    obj: Arc<ResourceObject>,
    view: vk::ImageView,
    aspect: vk::ImageAspectFlags,
    level: u32,
    first_layer: u32,
    layer_count: u32,
}

// ---------------------------------------------------------------------------
// Surface clears and deferred clears
// ---------------------------------------------------------------------------

use hashbrown::HashMap;

use pipe_core::aux::{AuxMap, AuxOp, AuxState, AuxUsage, SliceLayout};
use pipe_core::flags::ClearFlags;
use pipe_core::state::ColorUnion;
use pipe_core::view::Surface;
use smallvec::SmallVec;

use crate::view::vk_surface;

/// A clear value waiting to be applied to one slice.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PendingClear {
    /// The four 32-bit words of a colour clear (interpreted by the format).
    pub color: [u32; 4],
    pub depth: f32,
    pub stencil: u32,
    /// Aspects the clear covers (always every aspect of the image: partial
    /// depth/stencil clears are never deferred).
    pub aspect: vk::ImageAspectFlags,
}

/// Deferred-clear state of an attachment image, driven by
/// `pipe_core::aux`: a pending clear is a slice in state `Clear` (a fast
/// clear, in isl's terms, of a CCS_E-like usage whose "aux" is the stored
/// value). An access without aux (copy, map, blit, sampling) asks
/// `prepare_access(.., AuxUsage::None)`, which answers `FullResolve` for
/// such slices: the clear is then executed explicitly. A full overwrite
/// (`finish_write` with `full_surface`) drops it. A second clear before
/// either just replaces the value. Rendering (a later issue) will consume
/// it as a load op.
pub struct DeferredClears {
    map: AuxMap,
    values: HashMap<(u32, u32), PendingClear>,
}

fn aux_err(e: pipe_core::aux::AuxError) -> PipeError {
    PipeError::invalid(format!("deferred clear tracking: {e}"))
}

impl DeferredClears {
    /// State for an image of `levels` levels and `layers` layers.
    pub fn new(levels: u32, layers: u32) -> PipeResult<Self> {
        let map = AuxMap::new(
            AuxUsage::CcsE,
            SliceLayout::Array { layers },
            levels,
            AuxState::PassThrough,
        )
        .map_err(aux_err)?;
        Ok(DeferredClears {
            map,
            values: HashMap::new(),
        })
    }

    /// Number of slices with a pending clear.
    pub fn pending(&self) -> usize {
        self.values.len()
    }

    /// The pending clear of one slice.
    pub fn value(&self, level: u32, layer: u32) -> Option<PendingClear> {
        self.values.get(&(level, layer)).copied()
    }

    /// Applies `op` to a range of slices and forgets their pending values.
    pub fn apply(
        &mut self,
        level: u32,
        layers: std::ops::Range<u32>,
        op: AuxOp,
    ) -> Result<(), pipe_core::aux::AuxError> {
        self.map.apply_op(level..level + 1, layers.clone(), op)?;
        for l in layers {
            self.values.remove(&(level, l));
        }
        Ok(())
    }
}

/// Counters of clear work, for tests ("two clears in a row cost one").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClearStats {
    /// Clears recorded as pending.
    pub deferred: u64,
    /// `vkCmdClear*Image` commands executed to resolve pending clears.
    pub executed: u64,
    /// Pending clears dropped because the slice was fully overwritten.
    pub discarded: u64,
    /// Clears done immediately through a render-area load op.
    pub render_area: u64,
    /// Pending clears carried out by a draw's CLEAR load op.
    pub load_op: u64,
    /// Clears under the render condition (`vkCmdClearAttachments` under
    /// conditional rendering).
    pub predicated: u64,
}

impl VkContext {
    /// Before an access without aux to `level`, layers
    /// `first..first + count` of `obj`: executes pending clears, or drops
    /// them when the access overwrites the slices entirely (`discard`).
    pub(crate) fn resolve_clears(
        &mut self,
        obj: &Arc<ResourceObject>,
        level: u32,
        first: u32,
        count: u32,
        discard: bool,
    ) -> PipeResult<()> {
        let todo: Vec<(u32, PendingClear)> = {
            let mut guard = obj.clears.lock().unwrap_or_else(|p| p.into_inner());
            let Some(dc) = guard.as_mut() else {
                return Ok(());
            };
            if dc.values.is_empty() {
                return Ok(());
            }
            let layers = first..first.saturating_add(count);
            if discard {
                dc.map
                    .finish_write(level..level + 1, layers.clone(), AuxUsage::None, true)
                    .map_err(aux_err)?;
                for l in layers {
                    if dc.values.remove(&(level, l)).is_some() {
                        self.clear_stats.discarded += 1;
                    }
                }
                return Ok(());
            }
            let ops = dc
                .map
                .prepare_and_apply(level..level + 1, layers, AuxUsage::None, false)
                .map_err(aux_err)?;
            ops.iter()
                .filter(|s| s.op != AuxOp::None)
                .filter_map(|s| dc.values.remove(&(s.level, s.layer)).map(|v| (s.layer, v)))
                .collect()
        };
        for (layer, v) in todo {
            self.execute_clear(obj, level, layer, &v)?;
        }
        Ok(())
    }

    fn execute_clear(
        &mut self,
        obj: &Arc<ResourceObject>,
        level: u32,
        layer: u32,
        v: &PendingClear,
    ) -> PipeResult<()> {
        let img = *obj
            .image()
            .ok_or_else(|| PipeError::invalid("clear of a buffer"))?;
        self.use_image_tracked(
            obj,
            level,
            layer,
            1,
            access::CLEAR_WRITE,
            true,
            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            true,
        );
        let cmd = self.cmd();
        let range = vk::ImageSubresourceRange {
            aspect_mask: v.aspect,
            base_mip_level: level,
            level_count: 1,
            base_array_layer: layer,
            layer_count: 1,
        };
        let dev = self.dev().raw();
        if v.aspect.contains(vk::ImageAspectFlags::COLOR) {
            let value = vk::ClearColorValue { uint32: v.color };
            // SAFETY: recording; the slice is in TRANSFER_DST_OPTIMAL.
            unsafe {
                dev.cmd_clear_color_image(
                    cmd,
                    img.image,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    &value,
                    &[range],
                )
            };
        } else {
            let value = vk::ClearDepthStencilValue {
                depth: v.depth,
                stencil: v.stencil,
            };
            // SAFETY: as above.
            unsafe {
                dev.cmd_clear_depth_stencil_image(
                    cmd,
                    img.image,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    &value,
                    &[range],
                )
            };
        }
        self.clear_stats.executed += 1;
        Ok(())
    }

    /// Clears `rect` (x, y, w, h; `None`: all) of a surface's layers.
    /// Whole-level clears of all the image's aspects are deferred;
    /// anything else is done now as a render-area clear.
    pub(crate) fn clear_surface(
        &mut self,
        surface: &Surface,
        value: PendingClear,
        rect: Option<(u32, u32, u32, u32)>,
        predicated: bool,
    ) -> PipeResult<()> {
        let s = vk_surface(surface)?;
        let d = surface.desc();
        let (x, y, w, h) = rect.unwrap_or((0, 0, d.width, d.height));
        if w == 0 || h == 0 {
            return Ok(());
        }
        let whole = x == 0 && y == 0 && w == d.width && h == d.height;
        let all_aspects = value.aspect == s.aspect;
        let obj = s.obj.clone();
        // A predicated clear is neither deferred nor a load op (neither is
        // predicated): see `render_cond`.
        if predicated {
            return self.render_area_clear(surface, value, (x, y, w, h), true);
        }
        let can_defer = whole
            && all_aspects
            && obj
                .clears
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .is_some();
        if can_defer {
            // The deferred clear becomes the load op of the next rendering
            // instance: one still open (a draw before this clear) must
            // end, or the draws after the clear would join it and the
            // clear would land after them.
            if self.rendering {
                self.end_rendering();
            }
            let mut guard = obj.clears.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(dc) = guard.as_mut() {
                let layers = s.first_layer..s.first_layer + s.layer_count;
                dc.map
                    .apply_op(s.level..s.level + 1, layers.clone(), AuxOp::FastClear)
                    .map_err(aux_err)?;
                for l in layers {
                    dc.values.insert((s.level, l), value);
                }
                self.clear_stats.deferred += 1;
                return Ok(());
            }
        }
        self.render_area_clear(surface, value, (x, y, w, h), false)
    }

    /// A clear through `vkCmdBeginRendering` with CLEAR load ops and the
    /// render area set to the rectangle: pixels outside are untouched.
    /// `predicated`: under the render condition, through LOAD and a
    /// predicated `vkCmdClearAttachments` instead.
    fn render_area_clear(
        &mut self,
        surface: &Surface,
        v: PendingClear,
        rect: (u32, u32, u32, u32),
        predicated: bool,
    ) -> PipeResult<()> {
        let s = vk_surface(surface)?;
        let target = AttachmentTarget {
            obj: s.obj.clone(),
            view: s.view,
            aspect: s.aspect,
            level: s.level,
            first_layer: s.first_layer,
            layer_count: s.layer_count,
        };
        self.render_area_clear_target(&target, v, rect, predicated)
    }

    fn render_area_clear_target(
        &mut self,
        s: &AttachmentTarget,
        v: PendingClear,
        (x, y, w, h): (u32, u32, u32, u32),
        predicated: bool,
    ) -> PipeResult<()> {
        let obj = s.obj.clone();
        if predicated {
            self.declare_predicate_read();
        }
        let color = s.aspect.contains(vk::ImageAspectFlags::COLOR);
        let (layout, a) = if color {
            (
                vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
                Access::new(
                    vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT,
                    vk::AccessFlags2::COLOR_ATTACHMENT_WRITE
                        | vk::AccessFlags2::COLOR_ATTACHMENT_READ,
                ),
            )
        } else {
            (
                vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
                Access::new(
                    vk::PipelineStageFlags2::EARLY_FRAGMENT_TESTS
                        | vk::PipelineStageFlags2::LATE_FRAGMENT_TESTS,
                    vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_WRITE
                        | vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_READ,
                ),
            )
        };
        self.use_image(
            &obj,
            s.level,
            s.first_layer,
            s.layer_count,
            a,
            true,
            layout,
            false,
        );
        let cmd = self.cmd();
        let load = |cleared: bool| {
            if cleared && !predicated {
                vk::AttachmentLoadOp::CLEAR
            } else {
                vk::AttachmentLoadOp::LOAD
            }
        };
        let att = |aspect: vk::ImageAspectFlags| {
            vk::RenderingAttachmentInfo::default()
                .image_view(s.view)
                .image_layout(layout)
                .load_op(load(v.aspect.contains(aspect)))
                .store_op(vk::AttachmentStoreOp::STORE)
                .clear_value(if color {
                    vk::ClearValue {
                        color: vk::ClearColorValue { uint32: v.color },
                    }
                } else {
                    vk::ClearValue {
                        depth_stencil: vk::ClearDepthStencilValue {
                            depth: v.depth,
                            stencil: v.stencil,
                        },
                    }
                })
        };
        let color_att = [att(vk::ImageAspectFlags::COLOR)];
        let depth_att = att(vk::ImageAspectFlags::DEPTH);
        let stencil_att = att(vk::ImageAspectFlags::STENCIL);
        let mut info = vk::RenderingInfo::default()
            .render_area(vk::Rect2D {
                offset: vk::Offset2D {
                    x: x as i32,
                    y: y as i32,
                },
                extent: vk::Extent2D {
                    width: w,
                    height: h,
                },
            })
            .layer_count(s.layer_count);
        if color {
            info = info.color_attachments(&color_att);
        } else {
            if s.aspect.contains(vk::ImageAspectFlags::DEPTH) {
                info = info.depth_attachment(&depth_att);
            }
            if s.aspect.contains(vk::ImageAspectFlags::STENCIL) {
                info = info.stencil_attachment(&stencil_att);
            }
        }
        self.dev().begin_rendering(cmd, &info);
        if predicated {
            self.rendering = true;
            self.begin_conditional_rendering();
            let mut atts: SmallVec<[vk::ClearAttachment; 2]> = SmallVec::new();
            if color {
                atts.push(vk::ClearAttachment {
                    aspect_mask: vk::ImageAspectFlags::COLOR,
                    color_attachment: 0,
                    clear_value: vk::ClearValue {
                        color: vk::ClearColorValue { uint32: v.color },
                    },
                });
            } else {
                atts.push(vk::ClearAttachment {
                    aspect_mask: v.aspect & s.aspect,
                    color_attachment: 0,
                    clear_value: vk::ClearValue {
                        depth_stencil: vk::ClearDepthStencilValue {
                            depth: v.depth,
                            stencil: v.stencil,
                        },
                    },
                });
            }
            let rect = vk::ClearRect {
                rect: info.render_area,
                base_array_layer: 0,
                layer_count: s.layer_count,
            };
            // SAFETY: inside the rendering instance just begun, whose
            // attachments are the ones named; the rectangle is its render
            // area and the layers its layers.
            unsafe {
                self.dev()
                    .raw()
                    .cmd_clear_attachments(cmd, &atts, std::slice::from_ref(&rect))
            };
            self.clear_stats.predicated += 1;
            // Ends the conditional scope, then the instance.
            self.end_rendering();
        } else {
            self.dev().end_rendering(cmd);
        }
        self.clear_stats.render_area += 1;
        Ok(())
    }

    /// `clear` of the bound framebuffer.
    pub(crate) fn do_clear(
        &mut self,
        buffers: ClearFlags,
        scissor: Option<&pipe_core::state::ScissorState>,
        color: &ColorUnion,
        depth: f64,
        stencil: u32,
    ) -> PipeResult<()> {
        let fb = self.bound().framebuffer.clone();
        // `clear` always honours the render condition.
        let predicated = self.render_condition_set();
        let rect = |sd: &pipe_core::view::SurfaceDesc| match scissor {
            None => None,
            Some(sc) => {
                let x0 = u32::from(sc.minx).min(sd.width);
                let y0 = u32::from(sc.miny).min(sd.height);
                let x1 = u32::from(sc.maxx).min(sd.width);
                let y1 = u32::from(sc.maxy).min(sd.height);
                Some((x0, y0, x1.saturating_sub(x0), y1.saturating_sub(y0)))
            }
        };
        for (i, cbuf) in fb.cbufs.iter().enumerate() {
            let Some(surf) = cbuf else { continue };
            if !buffers.contains(ClearFlags::from_bits_truncate(
                ClearFlags::COLOR0.bits() << i,
            )) {
                continue;
            }
            let v = PendingClear {
                color: color.u32(),
                depth: 0.0,
                stencil: 0,
                aspect: vk::ImageAspectFlags::COLOR,
            };
            self.clear_surface(surf, v, rect(surf.desc()), predicated)?;
        }
        if let Some(z) = &fb.zsbuf {
            let s = vk_surface(z)?;
            let mut aspect = vk::ImageAspectFlags::empty();
            if buffers.contains(ClearFlags::DEPTH) {
                aspect |= s.aspect & vk::ImageAspectFlags::DEPTH;
            }
            if buffers.contains(ClearFlags::STENCIL) {
                aspect |= s.aspect & vk::ImageAspectFlags::STENCIL;
            }
            if !aspect.is_empty() {
                let v = PendingClear {
                    color: [0; 4],
                    depth: depth as f32,
                    stencil: stencil & 0xff,
                    aspect,
                };
                self.clear_surface(z, v, rect(z.desc()), predicated)?;
            }
        }
        // With an implicit resolve of colour buffer 0, the resolve target
        // is what the application sees, and only a rendering instance on
        // the framebuffer writes it: a clear with no draw after it (or
        // with a deferred value, which the next instance would apply)
        // reaches it through one opened now.
        if self.fb_resolve.is_some()
            && buffers.contains(ClearFlags::COLOR0)
            && matches!(fb.cbufs.first(), Some(Some(_)))
        {
            self.begin_framebuffer_rendering()?;
        }
        Ok(())
    }
}

use crate::sync::Access;
