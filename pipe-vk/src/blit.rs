//! `blit` and `generate_mipmap` on Vulkan's transfer commands, with the
//! shader blit (`crate::blitter`) for the rest.
//!
//! Design
//! ------
//! A Gallium blit copies a box of one texture level into a box of another,
//! converting formats, scaling with a filter, flipping (negative source
//! width/height), honouring a channel mask and a scissor. Vulkan has three
//! transfer commands that do subsets of that, and this module picks the
//! one that is legal and gives exactly the Gallium result, or refuses:
//!
//! - `vkCmdCopyImage` for 1:1, unflipped blits whose result is the source
//!   bits (same Vulkan format on both images, same reading of the data).
//!   It works for every format (compressed, multisampled with equal sample
//!   counts) and is bit-exact.
//! - `vkCmdBlitImage` for scaling, flips and format conversion between
//!   formats the device can blit (`BLIT_SRC`/`BLIT_DST`, plus
//!   `SAMPLED_IMAGE_FILTER_LINEAR` for linear filtering), following the
//!   Vulkan rules: integer only to integer of the same signedness,
//!   depth/stencil only to the same format and with NEAREST, single-sampled
//!   images only. A 1:1 blit always uses NEAREST: sample points are texel
//!   centres, so both filters give the texels themselves.
//! - `vkCmdResolveImage` for multisampled → single-sampled colour of the
//!   same format and size; any other colour resolve (scaled, flipped,
//!   converting) resolves into a temporary image first and blits from it.
//!
//! Formats: `vkCmdBlitImage` reads and writes the images' own Vulkan
//! formats, so a blit *format* (`info.src.format`, `info.dst.format`) is
//! honoured when it is stored in the image's Vulkan format and the
//! emulation swizzles of `crate::format::emulated` do not change the
//! meaning (an `L8` source read as `R8` would give (L, 0, 0, 1) where
//! Gallium wants (L, L, L, 1)). A *cast* (a blit format the image is not
//! stored as, e.g. sRGB on a UNORM image) is honoured only when both sides
//! use the same format on images of the same Vulkan format and the result
//! is the source bits (copies, or NEAREST blits of UNORM/integer data).
//!
//! Masks: transfer commands write whole texels, so a colour blit must
//! write every channel the destination format has; depth/stencil blits
//! write the aspects in the mask (and in both formats).
//!
//! Scissor: the destination box is clipped; the source is clipped the same
//! way along each axis where the blit is 1:1 (taking flips into account).
//! Clipping a scaled axis would change the sample positions of a transfer
//! command, so it is refused.
//!
//! Layers: box z/depth are array layers (cube faces) or, for 3D textures,
//! slices. 3D → 3D scales in z too; between a 3D and a layered image, one
//! region per slice maps layer i to slice z + i.
//!
//! Same subresource: a subresource cannot be TRANSFER_SRC and TRANSFER_DST
//! at once (and the regions may overlap), so such a blit first copies the
//! source box into a temporary image and blits from there.
//!
//! Other staging ([`Route`]): `vkCmdBlitImage` between a 3D image and
//! array layers other than layer 0 is not legal, so those blits go through
//! a temporary 3D image (array layers ↔ 3D slices is a legal copy). One
//! aspect of a combined depth/stencil format (mask Z or S on Z24S8) is
//! copied through a buffer, after a two-aspect blit into a temporary image
//! when scaled or flipped: buffer copies are the transfers that honour a
//! single aspect on every driver (lavapipe's image copies and blits copy
//! both aspects whatever the region says).
//!
//! Temporary images and buffers are created before the first command is
//! recorded; batches keep them alive until the GPU is done with them.
//!
//! Every refusal of the transfer path is `PipeError::Unsupported` naming
//! the reason, decided before anything is recorded. A refused blit, and
//! every blit with alpha blending or window rectangles, is then drawn by
//! the shader blit (`crate::blitter`, Mesa's `util_blitter` as Zink uses
//! it: transfer commands first, drawing otherwise); if that refuses too,
//! the error names both reasons.
//!
//! `generate_mipmap` blits level i to level i + 1 with LINEAR filtering for
//! the layer range (3D: the whole minified volume). When a transfer blit
//! cannot (integer formats, which it filters NEAREST; a view format other
//! than the image's, such as sRGB of UNORM, filtered in the view's space;
//! formats without blit support) the levels are drawn by shader blits. It
//! answers `false` (the frontend falls back) for depth/stencil,
//! multisampled, compressed and Y'CbCr formats, and formats that cannot be
//! sampled or rendered.

use std::sync::Arc;

use ash::vk;
use gpu_allocator::MemoryLocation;
use pipe_core::blit::{BlitInfo, BlitSurface};
use pipe_core::flags::BlitMask;
use pipe_core::format::Colorspace;
use pipe_core::resource::{BindFlags, ResourceTemplate, Target};
use pipe_core::state::{ScissorState, TexFilter};
use pipe_core::{Format, PipeError, PipeResult, Resource};

use crate::blitter::Corners;
use crate::context::VkContext;
use crate::format::{aspect_mask, emulated, vk_format, vk_format_or_emulated, EmulationKind};
use crate::resource::{
    create_buffer_object, create_object, vk_resource, ImageInfo, ResourceObject,
};
use crate::sync::{access, Access};

/// The error for everything a transfer command cannot do.
fn shader_blit(what: impl std::fmt::Display) -> PipeError {
    PipeError::unsupported(format!("blit: {what} needs a shader blit"))
}

/// The transfer command a blit uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Copy,
    Blit(vk::Filter),
    Resolve,
}

/// How a blit reaches its destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Route {
    /// `op` from the source to the destination.
    Direct,
    /// Resolve into a single-sampled temporary image, then `op` from it.
    ResolveFirst,
    /// Copy the source box into a temporary image, then `op` from it (the
    /// source and destination share a subresource).
    CopyFirst,
    /// Copy the source layers into a temporary 3D image, then `op` (a blit
    /// into a 3D image) from it: a blit between a 3D image and array layers
    /// other than layer 0 is not legal (VUID-vkCmdBlitImage-srcImage-00240).
    SourceAs3d,
    /// `op` (a blit from a 3D image) into a temporary 3D image, then copy its
    /// slices into the destination layers (same reason).
    DestAs3d,
    /// One aspect of a combined depth/stencil format, 1:1: image → buffer →
    /// image, the buffer copies being the transfers that honour a single
    /// aspect everywhere (lavapipe's image copies and blits copy whole
    /// texels whatever the aspect mask says).
    Bounce,
    /// One aspect, scaled or flipped: blit both aspects into a temporary
    /// image, then bounce the one aspect from there.
    BlitThenBounce,
}

/// What a blit will record.
#[derive(Clone, Copy, Debug)]
struct Plan {
    op: Op,
    aspect: vk::ImageAspectFlags,
    route: Route,
}

/// One side of a blit: the image, level and box in Vulkan terms.
#[derive(Clone)]
struct Side {
    obj: Arc<ResourceObject>,
    img: ImageInfo,
    desc: ResourceTemplate,
    level: u32,
    /// The format the blit reads or writes as.
    view: Format,
    /// Box corners per axis (x, y, z): `lo` inclusive, `hi` exclusive;
    /// `lo > hi` flips that axis. z counts layers, or slices of a 3D image.
    lo: [i64; 3],
    hi: [i64; 3],
}

impl Side {
    fn new(s: &BlitSurface) -> PipeResult<Side> {
        let obj = vk_resource(&s.resource)?.obj();
        let img = *obj
            .image()
            .ok_or_else(|| PipeError::invalid("blit: a side is a buffer"))?;
        let b = s.bx;
        let lo = [i64::from(b.x), i64::from(b.y), i64::from(b.z)];
        let hi = [
            lo[0] + i64::from(b.width),
            lo[1] + i64::from(b.height),
            lo[2] + i64::from(b.depth),
        ];
        Ok(Side {
            obj,
            img,
            desc: s.resource.desc().clone(),
            level: s.level,
            view: s.format,
            lo,
            hi,
        })
    }

    fn is3d(&self) -> bool {
        self.desc.target == Target::Texture3D
    }

    fn is1d(&self) -> bool {
        matches!(self.desc.target, Target::Texture1D | Target::Texture1DArray)
    }

    fn image_type(&self) -> vk::ImageType {
        if self.is3d() {
            vk::ImageType::TYPE_3D
        } else if self.is1d() {
            vk::ImageType::TYPE_1D
        } else {
            vk::ImageType::TYPE_2D
        }
    }

    fn samples(&self) -> u32 {
        self.img.samples.as_raw()
    }

    fn extent(&self, axis: usize) -> i64 {
        (self.hi[axis] - self.lo[axis]).abs()
    }

    fn min(&self, axis: usize) -> i64 {
        self.lo[axis].min(self.hi[axis])
    }

    fn flipped(&self, axis: usize) -> bool {
        self.lo[axis] > self.hi[axis]
    }

    fn is_empty(&self) -> bool {
        (0..3).any(|a| self.extent(a) == 0)
    }

    /// The level's (width, height, layers or slices).
    fn level_size(&self) -> PipeResult<[i64; 3]> {
        let (w, h, _) = self
            .desc
            .level_extent(self.level)
            .ok_or_else(|| PipeError::invalid("blit: level out of range"))?;
        let n = self.desc.level_layers(self.level).unwrap_or(1);
        Ok([i64::from(w), i64::from(h), i64::from(n)])
    }

    /// Checks the box against the level (pipe-core has done so already;
    /// this keeps a bad box from reaching Vulkan if it is bypassed).
    fn check_bounds(&self) -> PipeResult<()> {
        let size = self.level_size()?;
        for (a, &lim) in size.iter().enumerate() {
            let (lo, hi) = (self.min(a), self.min(a) + self.extent(a));
            if lo < 0 || hi > lim {
                return Err(PipeError::invalid(format!(
                    "blit: box {:?}..{:?} exceeds level {} ({size:?})",
                    self.lo, self.hi, self.level
                )));
            }
        }
        Ok(())
    }

    /// Array layers `(first, count)` the box touches (`(0, 1)` for 3D).
    fn layers(&self) -> (u32, u32) {
        if self.is3d() {
            (0, 1)
        } else {
            (
                u32::try_from(self.min(2)).unwrap_or(0),
                u32::try_from(self.extent(2)).unwrap_or(0),
            )
        }
    }

    /// Whether the box covers the whole level (all slices of a 3D level).
    fn whole_level(&self) -> bool {
        let Ok(size) = self.level_size() else {
            return false;
        };
        let axes = if self.is3d() { 3 } else { 2 };
        (0..axes).all(|a| self.min(a) == 0 && self.extent(a) == size[a])
    }

    /// The same box without flips.
    fn normalized(&self) -> Side {
        let mut s = self.clone();
        for a in 0..3 {
            s.lo[a] = self.min(a);
            s.hi[a] = self.min(a) + self.extent(a);
        }
        s
    }

    /// The template of a temporary image holding this side's box, with
    /// `samples` samples, as a 3D image when `as3d`.
    fn temp_template(&self, samples: u32, as3d: bool) -> PipeResult<ResourceTemplate> {
        let dim = |a: usize| {
            u32::try_from(self.extent(a))
                .map_err(|_| PipeError::invalid("blit: box too large for a temporary image"))
        };
        let (w, h, n) = (dim(0)?, dim(1)?, dim(2)?);
        let mut t = self.desc.clone();
        let is3d = as3d || self.is3d();
        t.target = match self.desc.target {
            _ if is3d => Target::Texture3D,
            Target::Texture1D | Target::Texture1DArray if n > 1 => Target::Texture1DArray,
            Target::Texture1D | Target::Texture1DArray => Target::Texture1D,
            _ if n > 1 => Target::Texture2DArray,
            _ => Target::Texture2D,
        };
        t.width0 = w;
        t.height0 = if self.is1d() { 1 } else { h };
        t.depth0 = if is3d { n } else { 1 };
        t.array_size = if is3d { 1 } else { n };
        t.last_level = 0;
        t.nr_samples = if samples > 1 { samples } else { 0 };
        t.nr_storage_samples = 0;
        t.usage = pipe_core::resource::Usage::Default;
        t.flags = pipe_core::resource::ResourceFlags::empty();
        Ok(t)
    }

    /// This side's box moved into a temporary image (`obj`/`img`, made
    /// from `temp_template`), flips kept.
    fn in_temp(&self, obj: Arc<ResourceObject>, img: ImageInfo, desc: ResourceTemplate) -> Side {
        let mut s = self.clone();
        for a in 0..3 {
            let m = self.min(a);
            s.lo[a] = self.lo[a] - m;
            s.hi[a] = self.hi[a] - m;
        }
        s.obj = obj;
        s.img = img;
        s.desc = desc;
        s.level = 0;
        s
    }
}

/// Channels (R, G, B, A bits of `BlitMask`) a colour format stores.
fn color_channels(f: Format) -> BlitMask {
    let d = f.desc();
    let mut m = BlitMask::empty();
    for (i, s) in d.swizzle.iter().enumerate() {
        if s.channel().is_some() {
            m |= BlitMask::from_bits_truncate(1 << i);
        }
    }
    m
}

/// Whether `vkCmdBlitImage` from an image stored as `sf`'s Vulkan format to
/// one stored as `df`'s computes Gallium's `sf` → `df` conversion, given
/// the emulations (view swizzles) of the two formats.
fn conversion_matches(sf: Format, df: Format) -> bool {
    if sf == df {
        return true;
    }
    let kind = |f: Format| {
        if vk_format(f).is_some() {
            None
        } else {
            emulated(f).map(|e| (e.kind, e.swizzle))
        }
    };
    match (kind(sf), kind(df)) {
        (None, None) => true,
        // The destination's alpha is not stored: whatever lands there is
        // never read.
        (None, Some((EmulationKind::VoidAlpha, _))) => true,
        // The source's alpha must read as one; fine when the destination
        // has no alpha to receive it.
        (Some((EmulationKind::VoidAlpha, _)), None | Some((EmulationKind::VoidAlpha, _))) => {
            !df.has_alpha()
        }
        // Same swizzle on both sides (L8 → L16, A8 → A16F): the stored
        // channels carry the same meaning.
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// Bytes per texel of one aspect of a depth/stencil format in a buffer.
fn aspect_bytes(f: vk::Format, aspect: vk::ImageAspectFlags) -> Option<u64> {
    use vk::Format as F;
    if aspect == vk::ImageAspectFlags::STENCIL {
        return matches!(
            f,
            F::S8_UINT | F::D16_UNORM_S8_UINT | F::D24_UNORM_S8_UINT | F::D32_SFLOAT_S8_UINT
        )
        .then_some(1);
    }
    if aspect == vk::ImageAspectFlags::DEPTH {
        return match f {
            F::D16_UNORM | F::D16_UNORM_S8_UINT => Some(2),
            F::X8_D24_UNORM_PACK32
            | F::D24_UNORM_S8_UINT
            | F::D32_SFLOAT
            | F::D32_SFLOAT_S8_UINT => Some(4),
            _ => None,
        };
    }
    None
}

/// Whether a NEAREST blit of `f` to itself returns the stored bits.
fn nearest_is_exact(f: Format) -> bool {
    !f.is_srgb() && (f.is_pure_integer() || f.is_unorm())
}

/// 0: not an integer format; 1: unsigned; 2: signed.
fn int_class(f: Format) -> u8 {
    if f.is_pure_uint() {
        1
    } else if f.is_pure_sint() {
        2
    } else {
        0
    }
}

impl VkContext {
    fn optimal_features(&self, f: vk::Format) -> vk::FormatFeatureFlags {
        let dev = self.dev();
        // SAFETY: the physical device belongs to this instance; the query has
        // no other preconditions.
        unsafe {
            dev.instance
                .raw
                .get_physical_device_format_properties(dev.physical.raw, f)
        }
        .optimal_tiling_features
    }

    /// Whether `vkCmdCopyImage` can copy `s`'s box into `d`'s (the caller
    /// has checked 1:1 and no flips and the formats).
    fn copy_legal(&self, s: &Side, d: &Side) -> bool {
        let types_ok = s.image_type() == d.image_type()
            || matches!(
                (s.image_type(), d.image_type()),
                (vk::ImageType::TYPE_2D, vk::ImageType::TYPE_3D)
                    | (vk::ImageType::TYPE_3D, vk::ImageType::TYPE_2D)
            );
        // Partial blocks of compressed formats: an extent that is not a
        // block multiple must reach the edge of both subresources.
        let b = s.desc.format.block();
        let (Ok(ss), Ok(ds)) = (s.level_size(), d.level_size()) else {
            return false;
        };
        let edge_ok = |a: usize, bs: u32| {
            let e = s.extent(a);
            e % i64::from(bs.max(1)) == 0 || (s.min(a) + e == ss[a] && d.min(a) + e == ds[a])
        };
        types_ok
            && s.img.format == d.img.format
            && s.img.samples == d.img.samples
            && s.img.usage.contains(vk::ImageUsageFlags::TRANSFER_SRC)
            && d.img.usage.contains(vk::ImageUsageFlags::TRANSFER_DST)
            && self.optimal_features(s.img.format).contains(
                vk::FormatFeatureFlags::TRANSFER_SRC | vk::FormatFeatureFlags::TRANSFER_DST,
            )
            && edge_ok(0, b.width)
            && edge_ok(1, b.height)
    }

    /// Checks what `vkCmdBlitImage` needs of both images, with `filter`.
    fn blit_legal(&self, s: &Side, d: &Side, filter: vk::Filter) -> PipeResult<()> {
        let sf = self.optimal_features(s.img.format);
        let df = self.optimal_features(d.img.format);
        let yuv = |x: &Side| x.desc.format.desc().colorspace == Colorspace::Yuv;
        if s.samples() != 1 || d.samples() != 1 {
            return Err(shader_blit("a scaled or converting multisampled blit"));
        }
        if yuv(s) || yuv(d) {
            return Err(shader_blit(
                "a scaled or converting blit of a Y'CbCr format",
            ));
        }
        if !sf.contains(vk::FormatFeatureFlags::BLIT_SRC)
            || !s.img.usage.contains(vk::ImageUsageFlags::TRANSFER_SRC)
        {
            return Err(shader_blit(format!(
                "a scaled or converting blit from {} (no BLIT_SRC)",
                s.desc.format
            )));
        }
        if !df.contains(vk::FormatFeatureFlags::BLIT_DST)
            || !d.img.usage.contains(vk::ImageUsageFlags::TRANSFER_DST)
        {
            return Err(shader_blit(format!(
                "a scaled or converting blit to {} (no BLIT_DST)",
                d.desc.format
            )));
        }
        if filter == vk::Filter::LINEAR
            && !sf.contains(vk::FormatFeatureFlags::SAMPLED_IMAGE_FILTER_LINEAR)
        {
            return Err(shader_blit(format!(
                "linear filtering of {} (no SAMPLED_IMAGE_FILTER_LINEAR)",
                s.desc.format
            )));
        }
        Ok(())
    }

    /// Chooses the commands for a blit, or refuses; `None`: nothing to
    /// write.
    fn plan(&self, s: &Side, d: &Side, info: &BlitInfo) -> PipeResult<Option<Plan>> {
        if (!s.is3d() || !d.is3d()) && s.extent(2) != d.extent(2) {
            return Err(shader_blit(format!(
                "a blit between {} and {} layers",
                s.extent(2),
                d.extent(2)
            )));
        }
        let one_to_one = (0..3).all(|a| s.extent(a) == d.extent(a));
        let flipped = (0..3).any(|a| s.flipped(a) || d.flipped(a));
        let plan = if info.mask.intersects(BlitMask::ZS) {
            self.plan_zs(s, d, info, one_to_one, flipped)?
        } else {
            self.plan_color(s, d, info, one_to_one, flipped)?
        };
        match plan {
            Some(p) if p.route == Route::Direct => Ok(Some(Plan {
                route: self.route(s, d, p.op)?,
                ..p
            })),
            other => Ok(other),
        }
    }

    /// How one command from `s` to `d` is recorded: directly, or staged
    /// through a temporary image.
    fn route(&self, s: &Side, d: &Side, op: Op) -> PipeResult<Route> {
        if matches!(op, Op::Blit(_)) && s.is3d() != d.is3d() {
            let layered = if s.is3d() { d } else { s };
            if layered.layers() != (0, 1) {
                let legal = if s.is3d() {
                    let t = self.virtual_temp(d, 1, true)?;
                    self.copy_legal(&t.normalized(), &d.normalized())
                } else {
                    let t = self.virtual_temp(s, 1, true)?;
                    self.copy_legal(&s.normalized(), &t.normalized())
                };
                if !legal {
                    return Err(shader_blit(format!(
                        "a scaled blit between a 3D image and layers of a {} image",
                        layered.desc.target.name()
                    )));
                }
                return Ok(if s.is3d() {
                    Route::DestAs3d
                } else {
                    Route::SourceAs3d
                });
            }
        }
        if same_subresource(s, d) {
            let both = vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST;
            if !s.img.usage.contains(both) {
                return Err(shader_blit(format!(
                    "a blit within one subresource of {}",
                    s.desc.format
                )));
            }
            return Ok(Route::CopyFirst);
        }
        Ok(Route::Direct)
    }

    fn plan_zs(
        &self,
        s: &Side,
        d: &Side,
        info: &BlitInfo,
        one_to_one: bool,
        flipped: bool,
    ) -> PipeResult<Option<Plan>> {
        let zs = vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL;
        if !s.img.aspect.intersects(zs) || !d.img.aspect.intersects(zs) {
            return Err(shader_blit("a depth/stencil blit between colour images"));
        }
        let mut aspect = vk::ImageAspectFlags::empty();
        if info.mask.contains(BlitMask::Z) {
            aspect |= vk::ImageAspectFlags::DEPTH;
        }
        if info.mask.contains(BlitMask::S) {
            aspect |= vk::ImageAspectFlags::STENCIL;
        }
        aspect &= aspect_mask(s.view) & aspect_mask(d.view) & s.img.aspect & d.img.aspect;
        if aspect.is_empty() {
            return Ok(None);
        }
        if s.img.format != d.img.format {
            return Err(shader_blit(format!(
                "a depth/stencil blit from {} to {}",
                s.desc.format, d.desc.format
            )));
        }
        let plan = |op, route| Ok(Some(Plan { op, aspect, route }));
        // Vulkan blits depth/stencil with NEAREST only (VUID-vkCmdBlitImage-
        // srcImage-00232); Gallium frontends (GL) never filter depth either.
        let nearest = Op::Blit(vk::Filter::NEAREST);
        if aspect != s.img.aspect {
            // One aspect of a combined format.
            if s.samples() > 1 || d.samples() > 1 || s.is3d() || d.is3d() {
                return Err(shader_blit(
                    "one aspect of a multisampled or 3D depth/stencil image",
                ));
            }
            let transfer = self.optimal_features(s.img.format).contains(
                vk::FormatFeatureFlags::TRANSFER_SRC | vk::FormatFeatureFlags::TRANSFER_DST,
            );
            let both = vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST;
            if !transfer || !s.img.usage.contains(both) || !d.img.usage.contains(both) {
                return Err(shader_blit(format!(
                    "one aspect of {} (no transfer usage)",
                    s.desc.format
                )));
            }
            if aspect_bytes(s.img.format, aspect).is_none() {
                return Err(shader_blit(format!("one aspect of {}", s.desc.format)));
            }
            if one_to_one && !flipped {
                return plan(Op::Copy, Route::Bounce);
            }
            self.blit_legal(s, d, vk::Filter::NEAREST)?;
            return plan(nearest, Route::BlitThenBounce);
        }
        if one_to_one && !flipped && self.copy_legal(s, d) {
            return plan(Op::Copy, Route::Direct);
        }
        if s.samples() > 1 && d.samples() == 1 {
            return Err(shader_blit("a multisampled depth/stencil resolve"));
        }
        self.blit_legal(s, d, vk::Filter::NEAREST)?;
        plan(nearest, Route::Direct)
    }

    fn plan_color(
        &self,
        s: &Side,
        d: &Side,
        info: &BlitInfo,
        one_to_one: bool,
        flipped: bool,
    ) -> PipeResult<Option<Plan>> {
        let color = vk::ImageAspectFlags::COLOR;
        if s.img.aspect != color || d.img.aspect != color {
            return Err(shader_blit("a colour blit of a depth/stencil image"));
        }
        let needed = color_channels(d.view);
        let mask = info.mask & BlitMask::RGBA;
        if !mask.intersects(needed) {
            return Ok(None);
        }
        if !mask.contains(needed) {
            return Err(shader_blit(format!(
                "a channel mask {mask:?} that leaves channels of {} untouched",
                d.view
            )));
        }
        // `exact`: the images are stored as the blit formats, and the Vulkan
        // conversion between them is Gallium's.
        let exact = vk_format_or_emulated(s.view) == Some(s.img.format)
            && vk_format_or_emulated(d.view) == Some(d.img.format)
            && conversion_matches(s.view, d.view);
        // `same_bits`: the result is the source bits.
        let same_bits = s.img.format == d.img.format
            && (s.view == d.view
                || (exact && vk_format_or_emulated(s.view) == vk_format_or_emulated(d.view)));
        let plan = |op| {
            Ok(Some(Plan {
                op,
                aspect: color,
                route: Route::Direct,
            }))
        };
        if one_to_one && !flipped && same_bits && self.copy_legal(s, d) {
            return plan(Op::Copy);
        }
        match (s.samples(), d.samples()) {
            (1, 1) => {}
            (a, b) if a == b => {
                return Err(shader_blit(
                    "a multisampled blit that is not a 1:1 copy of the same format",
                ))
            }
            (_, 1) => {
                let sf = self.optimal_features(s.img.format);
                let df = self.optimal_features(d.img.format);
                if one_to_one
                    && !flipped
                    && same_bits
                    && df.contains(vk::FormatFeatureFlags::COLOR_ATTACHMENT)
                    && s.img.usage.contains(vk::ImageUsageFlags::TRANSFER_SRC)
                    && d.img.usage.contains(vk::ImageUsageFlags::TRANSFER_DST)
                {
                    return plan(Op::Resolve);
                }
                // Resolve into a single-sampled image of the source's format
                // (a legal resolve target: the source is renderable), then
                // one command from there.
                if !sf.contains(vk::FormatFeatureFlags::COLOR_ATTACHMENT)
                    || !s.img.usage.contains(
                        vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST,
                    )
                {
                    return Err(shader_blit(format!("a resolve of {}", s.desc.format)));
                }
                let tmp = self.virtual_temp(s, 1, false)?;
                let Some(inner) = self.plan_color(&tmp, d, info, one_to_one, flipped)? else {
                    return Ok(None);
                };
                if inner.route != Route::Direct || self.route(&tmp, d, inner.op)? != Route::Direct {
                    return Err(shader_blit("a resolve into layers of a 3D image"));
                }
                return Ok(Some(Plan {
                    route: Route::ResolveFirst,
                    ..inner
                }));
            }
            _ => return Err(shader_blit("a blit into a multisampled image")),
        }
        // A cast (a blit format the image is not stored as) is kept when the
        // result is the source bits: same format both sides, same storage,
        // texels picked rather than filtered.
        let cast_ok = s.view == d.view
            && s.img.format == d.img.format
            && s.view.block() == s.desc.format.block()
            && (one_to_one || info.filter == TexFilter::Nearest)
            && nearest_is_exact(s.desc.format);
        if !exact && !cast_ok {
            return Err(shader_blit(format!(
                "a blit of {} as {} to {} as {}",
                s.desc.format, s.view, d.desc.format, d.view
            )));
        }
        if int_class(s.desc.format) != int_class(d.desc.format) {
            return Err(shader_blit(format!(
                "a blit from {} to {} (Vulkan blits integers only to integers of the same signedness)",
                s.desc.format, d.desc.format
            )));
        }
        // 1:1: sample points are texel centres, where both filters return
        // the texel. Integers are never filtered.
        let filter = if one_to_one || s.desc.format.is_pure_integer() {
            vk::Filter::NEAREST
        } else {
            match info.filter {
                TexFilter::Nearest => vk::Filter::NEAREST,
                TexFilter::Linear => vk::Filter::LINEAR,
            }
        };
        self.blit_legal(s, d, filter)?;
        plan(Op::Blit(filter))
    }

    /// The side a temporary copy of `s`'s box would be (for planning;
    /// nothing is created): `samples` samples, 3D when `as3d`.
    fn virtual_temp(&self, s: &Side, samples: u32, as3d: bool) -> PipeResult<Side> {
        let t = s.temp_template(samples, as3d)?;
        let img = ImageInfo {
            samples: vk::SampleCountFlags::from_raw(samples.max(1)),
            layers: t.array_size,
            levels: 1,
            ty: if as3d {
                vk::ImageType::TYPE_3D
            } else {
                s.img.ty
            },
            ..s.img
        };
        Ok(s.in_temp(s.obj.clone(), img, t))
    }

    /// Creates the image of a side made by `virtual_temp`.
    fn realize(&mut self, v: &Side) -> PipeResult<Side> {
        let obj = create_object(self.dev(), &v.desc, 0)?;
        let img = *obj
            .image()
            .ok_or_else(|| PipeError::invalid("blit: temporary image is a buffer"))?;
        if img.format != v.img.format || img.usage != v.img.usage {
            return Err(PipeError::unsupported(
                "blit: the temporary image differs from the planned one",
            ));
        }
        Ok(Side {
            obj,
            img,
            ..v.clone()
        })
    }

    pub(crate) fn do_blit(&mut self, info: &BlitInfo) -> PipeResult<()> {
        if info.window_rectangle_include && info.window_rectangles.is_empty() {
            // Inclusive with no rectangles: no pixel passes.
            return Ok(());
        }
        let mut src = Side::new(&info.src)?;
        let mut dst = Side::new(&info.dst)?;
        if src.is_empty() || dst.is_empty() {
            return Ok(());
        }
        if (0..3).any(|a| dst.flipped(a)) || src.flipped(2) {
            return Err(PipeError::invalid(
                "blit: flipped destination or source depth (flip the source x/y)",
            ));
        }
        src.check_bounds()?;
        dst.check_bounds()?;
        // 1D images have one row: a y flip or y range means nothing there.
        for s in [&mut src, &mut dst] {
            if s.is1d() {
                s.lo[1] = 0;
                s.hi[1] = 1;
            }
        }
        let corners = |s: &Side| Corners { lo: s.lo, hi: s.hi };
        let (sc, dc) = (corners(&src), corners(&dst));
        if !self.render_condition_set() {
            return self.unpredicated_blit(info, src, dst, sc, dc);
        }
        if info.render_condition_enable {
            // Transfer commands are never predicated: a predicated blit is
            // drawn (Zink's `blit_native` refuses it the same way), or,
            // when the blitter cannot draw it, decided on the CPU.
            match self.shader_blit(info, sc, dc) {
                Err(PipeError::Unsupported(_)) => {
                    if !self.render_condition_passes_on_cpu()? {
                        return Ok(());
                    }
                }
                other => return other,
            }
        }
        // The blitter's draws must not be predicated.
        let saved = self.suspend_render_condition();
        let r = self.unpredicated_blit(info, src, dst, sc, dc);
        self.resume_render_condition(saved);
        r
    }

    /// `blit` with no render condition in force.
    fn unpredicated_blit(
        &mut self,
        info: &BlitInfo,
        src: Side,
        dst: Side,
        sc: Corners,
        dc: Corners,
    ) -> PipeResult<()> {
        // Blending and window rectangles have no transfer command at all.
        let why = if info.alpha_blend {
            "alpha blending".to_string()
        } else if !info.window_rectangles.is_empty() {
            "window rectangles".to_string()
        } else {
            match self.transfer_blit(info, src, dst) {
                Err(PipeError::Unsupported(m)) => m,
                other => return other,
            }
        };
        // What transfer commands cannot do is drawn (util_blitter).
        self.shader_blit(info, sc, dc).map_err(|e| match e {
            PipeError::Unsupported(m) => PipeError::unsupported(format!(
                "blit: no transfer command does it ({why}), and {m}"
            )),
            e => e,
        })
    }

    /// The blit on transfer commands, or `Unsupported` (nothing recorded)
    /// when it needs the shader blit.
    fn transfer_blit(&mut self, info: &BlitInfo, mut src: Side, mut dst: Side) -> PipeResult<()> {
        if let Some(sc) = &info.scissor {
            if !clip(&mut src, &mut dst, sc)? {
                return Ok(());
            }
        }
        let Some(plan) = self.plan(&src, &dst, info)? else {
            return Ok(());
        };
        let (op, aspect) = (plan.op, plan.aspect);
        // Temporary images are created before anything is recorded, so that
        // a failure leaves the destination untouched.
        match plan.route {
            Route::Direct => self.record(op, &src, &dst, aspect),
            Route::ResolveFirst => {
                let t = self.realize(&self.virtual_temp(&src, 1, false)?)?;
                let color = vk::ImageAspectFlags::COLOR;
                self.record(Op::Resolve, &src.normalized(), &t.normalized(), color)?;
                self.record(op, &t, &dst, aspect)
            }
            Route::CopyFirst | Route::SourceAs3d => {
                let (samples, as3d) = if plan.route == Route::CopyFirst {
                    (src.samples(), false)
                } else {
                    (1, true)
                };
                let t = self.realize(&self.virtual_temp(&src, samples, as3d)?)?;
                self.record(Op::Copy, &src.normalized(), &t.normalized(), aspect)?;
                self.record(op, &t, &dst, aspect)
            }
            Route::DestAs3d => {
                let t = self.realize(&self.virtual_temp(&dst, 1, true)?)?;
                self.record(op, &src, &t, aspect)?;
                self.record(Op::Copy, &t.normalized(), &dst.normalized(), aspect)
            }
            Route::Bounce => self.bounce(&src, &dst, aspect),
            Route::BlitThenBounce => {
                let t = self.realize(&self.virtual_temp(&dst, 1, false)?)?;
                let all = t.img.aspect;
                self.record(op, &src, &t, all)?;
                self.bounce(&t.normalized(), &dst.normalized(), aspect)
            }
        }
    }

    /// Copies one aspect of `s`'s box to `d`'s (1:1, unflipped) through a
    /// buffer.
    fn bounce(&mut self, s: &Side, d: &Side, aspect: vk::ImageAspectFlags) -> PipeResult<()> {
        let bytes = aspect_bytes(s.img.format, aspect)
            .ok_or_else(|| shader_blit(format!("one aspect of {}", s.desc.format)))?;
        let regions = regions(s, d, aspect)?;
        let mut to_buffer = Vec::with_capacity(regions.len());
        let mut from_buffer = Vec::with_capacity(regions.len());
        let mut size = 0u64;
        for r in &regions {
            let c = to_copy(r);
            let at = |sub, offset| vk::BufferImageCopy {
                buffer_offset: size,
                buffer_row_length: 0,
                buffer_image_height: 0,
                image_subresource: sub,
                image_offset: offset,
                image_extent: c.extent,
            };
            to_buffer.push(at(c.src_subresource, c.src_offset));
            from_buffer.push(at(c.dst_subresource, c.dst_offset));
            // Depth/stencil buffer offsets must be multiples of 4.
            let region_size = [
                u64::from(c.extent.height),
                u64::from(c.extent.depth),
                u64::from(c.src_subresource.layer_count),
                bytes,
            ]
            .into_iter()
            .try_fold(u64::from(c.extent.width), u64::checked_mul)
            .and_then(|n| n.checked_next_multiple_of(4));
            size = region_size
                .and_then(|n| size.checked_add(n))
                .ok_or(PipeError::OutOfMemory)?;
        }
        let buf = create_buffer_object(
            self.dev(),
            size,
            BindFlags::empty(),
            MemoryLocation::GpuOnly,
            "blit aspect bounce",
        )?;
        let raw = buf.buffer().ok_or(PipeError::OutOfMemory)?;
        let (sl, sn) = s.layers();
        let (dl, dn) = d.layers();
        let src_layout = vk::ImageLayout::TRANSFER_SRC_OPTIMAL;
        let dst_layout = vk::ImageLayout::TRANSFER_DST_OPTIMAL;
        self.use_image(
            &s.obj,
            s.level,
            sl,
            sn,
            access::TRANSFER_READ,
            false,
            src_layout,
            false,
        );
        self.use_buffer(&buf, access::TRANSFER_WRITE, true);
        let cmd = self.cmd();
        // SAFETY: recording; the source is in TRANSFER_SRC_OPTIMAL; the
        // regions name one aspect and lie in the image and the buffer.
        unsafe {
            self.dev()
                .raw()
                .cmd_copy_image_to_buffer(cmd, s.img.image, src_layout, raw, &to_buffer)
        };
        self.use_buffer(&buf, access::TRANSFER_READ, false);
        self.use_image(
            &d.obj,
            d.level,
            dl,
            dn,
            access::TRANSFER_WRITE,
            true,
            dst_layout,
            false,
        );
        let cmd = self.cmd();
        // SAFETY: as above, for the destination in TRANSFER_DST_OPTIMAL.
        unsafe {
            self.dev().raw().cmd_copy_buffer_to_image(
                cmd,
                raw,
                d.img.image,
                dst_layout,
                &from_buffer,
            )
        };
        Ok(())
    }

    /// Records `op` from `s`'s box to `d`'s with the access declarations.
    fn record(
        &mut self,
        op: Op,
        s: &Side,
        d: &Side,
        aspect: vk::ImageAspectFlags,
    ) -> PipeResult<()> {
        let regions = regions(s, d, aspect)?;
        let (read, write): (Access, Access) = match op {
            Op::Copy => (access::TRANSFER_READ, access::TRANSFER_WRITE),
            Op::Blit(_) => (access::BLIT_READ, access::BLIT_WRITE),
            Op::Resolve => (access::RESOLVE_READ, access::RESOLVE_WRITE),
        };
        let (sl, sn) = s.layers();
        let (dl, dn) = d.layers();
        let discard = d.whole_level() && aspect == d.img.aspect;
        let src_layout = vk::ImageLayout::TRANSFER_SRC_OPTIMAL;
        let dst_layout = vk::ImageLayout::TRANSFER_DST_OPTIMAL;
        self.use_image(&s.obj, s.level, sl, sn, read, false, src_layout, false);
        self.use_image(&d.obj, d.level, dl, dn, write, true, dst_layout, discard);
        let cmd = self.cmd();
        let dev = self.dev().raw();
        let (si, di) = (s.img.image, d.img.image);
        match op {
            Op::Blit(filter) => {
                // SAFETY: recording; the layouts were established by the
                // barriers just emitted; `plan` checked formats, features,
                // usage, samples and filter, `regions` the offsets and layers.
                unsafe {
                    dev.cmd_blit_image(cmd, si, src_layout, di, dst_layout, &regions, filter)
                };
            }
            Op::Copy => {
                let r: Vec<vk::ImageCopy> = regions.iter().map(to_copy).collect();
                // SAFETY: as above; same format and sample count, 1:1.
                unsafe { dev.cmd_copy_image(cmd, si, src_layout, di, dst_layout, &r) };
            }
            Op::Resolve => {
                let r: Vec<vk::ImageResolve> = regions
                    .iter()
                    .map(|b| {
                        let c = to_copy(b);
                        vk::ImageResolve {
                            src_subresource: c.src_subresource,
                            src_offset: c.src_offset,
                            dst_subresource: c.dst_subresource,
                            dst_offset: c.dst_offset,
                            extent: c.extent,
                        }
                    })
                    .collect();
                // SAFETY: as above; multisampled to single-sampled colour of
                // the same format, 1:1, destination renderable.
                unsafe { dev.cmd_resolve_image(cmd, si, src_layout, di, dst_layout, &r) };
            }
        }
        Ok(())
    }

    pub(crate) fn do_generate_mipmap(
        &mut self,
        resource: &Resource,
        format: Format,
        base_level: u32,
        last_level: u32,
        first_layer: u32,
        last_layer: u32,
    ) -> PipeResult<bool> {
        let obj = vk_resource(resource)?.obj();
        let img = *obj
            .image()
            .ok_or_else(|| PipeError::invalid("generate_mipmap of a buffer"))?;
        let t = resource.desc().clone();
        if base_level >= last_level || last_level >= img.levels || first_layer > last_layer {
            return Err(PipeError::invalid(
                "generate_mipmap: level or layer range out of order",
            ));
        }
        let feats = self.optimal_features(img.format);
        let blittable = img.samples == vk::SampleCountFlags::TYPE_1
            && img.aspect == vk::ImageAspectFlags::COLOR
            && !format.is_pure_integer()
            && format.desc().colorspace != Colorspace::Yuv
            // The image's format must be the view's: filtering an sRGB view
            // of a UNORM image happens in the view's space.
            && vk_format_or_emulated(format) == Some(img.format)
            && feats.contains(
                vk::FormatFeatureFlags::BLIT_SRC
                    | vk::FormatFeatureFlags::BLIT_DST
                    | vk::FormatFeatureFlags::SAMPLED_IMAGE_FILTER_LINEAR,
            )
            && img
                .usage
                .contains(vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST);
        if !blittable {
            // The spec's conditional rendering covers draws, clears and
            // asked-for blits only: the blitter's draws are unpredicated.
            let saved = self.suspend_render_condition();
            let r = self.shader_mipmap(
                resource,
                format,
                base_level,
                last_level,
                first_layer,
                last_layer,
            );
            self.resume_render_condition(saved);
            return r;
        }
        let is3d = t.target == Target::Texture3D;
        let (first, count) = if is3d {
            (0, 1)
        } else {
            let count = (last_layer - first_layer).saturating_add(1);
            if first_layer.saturating_add(count) > img.layers {
                return Err(PipeError::invalid("generate_mipmap: layers out of range"));
            }
            (first_layer, count)
        };
        for level in base_level..last_level {
            let size = |l: u32| -> PipeResult<vk::Offset3D> {
                let (w, h, d) = t
                    .level_extent(l)
                    .ok_or_else(|| PipeError::invalid("generate_mipmap: level out of range"))?;
                let i = |v: u32| i32::try_from(v).map_err(|_| PipeError::OutOfMemory);
                Ok(vk::Offset3D {
                    x: i(w)?,
                    y: i(h)?,
                    z: if is3d { i(d)? } else { 1 },
                })
            };
            let sub = |l: u32| vk::ImageSubresourceLayers {
                aspect_mask: img.aspect,
                mip_level: l,
                base_array_layer: first,
                layer_count: count,
            };
            let region = vk::ImageBlit {
                src_subresource: sub(level),
                src_offsets: [vk::Offset3D::default(), size(level)?],
                dst_subresource: sub(level + 1),
                dst_offsets: [vk::Offset3D::default(), size(level + 1)?],
            };
            let src_layout = vk::ImageLayout::TRANSFER_SRC_OPTIMAL;
            let dst_layout = vk::ImageLayout::TRANSFER_DST_OPTIMAL;
            self.use_image(
                &obj,
                level,
                first,
                count,
                access::BLIT_READ,
                false,
                src_layout,
                false,
            );
            // Every texel of these layers of the level is overwritten.
            self.use_image(
                &obj,
                level + 1,
                first,
                count,
                access::BLIT_WRITE,
                true,
                dst_layout,
                true,
            );
            let cmd = self.cmd();
            // SAFETY: recording; levels `level` and `level + 1` are distinct
            // subresources in the layouts just established; the format has
            // BLIT_SRC/BLIT_DST/FILTER_LINEAR, the image TRANSFER usage and
            // one sample; the offsets are the levels' extents.
            unsafe {
                self.dev().raw().cmd_blit_image(
                    cmd,
                    img.image,
                    src_layout,
                    img.image,
                    dst_layout,
                    &[region],
                    vk::Filter::LINEAR,
                )
            };
        }
        Ok(true)
    }
}

impl VkContext {
    /// `generate_mipmap` by shader blits, for colour formats transfer
    /// blits cannot filter: integers (NEAREST), view formats other than the
    /// image's (an sRGB view of a UNORM image filters in linear space), and
    /// formats without `BLIT_SRC`/`BLIT_DST`. `false` when the format cannot
    /// be sampled or rendered (the frontend falls back).
    fn shader_mipmap(
        &mut self,
        resource: &Resource,
        format: Format,
        base_level: u32,
        last_level: u32,
        first_layer: u32,
        last_layer: u32,
    ) -> PipeResult<bool> {
        let t = resource.desc().clone();
        if t.samples() > 1
            || format.is_depth_or_stencil()
            || format.is_compressed()
            || format.desc().colorspace == Colorspace::Yuv
        {
            return Ok(false);
        }
        let is3d = t.target == Target::Texture3D;
        if !is3d && last_layer >= t.array_size.max(1) {
            return Err(PipeError::invalid("generate_mipmap: layers out of range"));
        }
        let filter = if format.is_pure_integer() {
            TexFilter::Nearest
        } else {
            TexFilter::Linear
        };
        for level in base_level..last_level {
            let side = |l: u32| -> PipeResult<BlitSurface> {
                let (w, h, d) = t
                    .level_extent(l)
                    .ok_or_else(|| PipeError::invalid("generate_mipmap: level out of range"))?;
                let i = |v: u32| i32::try_from(v).map_err(|_| PipeError::OutOfMemory);
                let (z, n) = if is3d {
                    (0, i(d)?)
                } else {
                    (i(first_layer)?, i(last_layer - first_layer + 1)?)
                };
                Ok(BlitSurface {
                    resource: resource.clone(),
                    level: l,
                    bx: pipe_core::PipeBox::new(0, 0, z, i(w)?, i(h)?, n),
                    format,
                })
            };
            let info = BlitInfo {
                dst: side(level + 1)?,
                src: side(level)?,
                mask: BlitMask::RGBA,
                filter,
                scissor: None,
                render_condition_enable: false,
                alpha_blend: false,
                window_rectangle_include: false,
                window_rectangles: Vec::new(),
            };
            let c = |s: &BlitSurface| Corners::of(&s.bx);
            match self.shader_blit(&info, c(&info.src), c(&info.dst)) {
                Ok(()) => {}
                // Refused before anything was recorded for this level.
                Err(PipeError::Unsupported(_)) => return Ok(false),
                Err(e) => return Err(e),
            }
        }
        Ok(true)
    }
}

/// Clips the destination to the scissor, and the source along the axes
/// where the blit is 1:1. `false`: nothing left to write.
fn clip(src: &mut Side, dst: &mut Side, sc: &ScissorState) -> PipeResult<bool> {
    let bounds = [
        (i64::from(sc.minx), i64::from(sc.maxx)),
        (i64::from(sc.miny), i64::from(sc.maxy)),
    ];
    for (a, (min, max)) in bounds.into_iter().enumerate() {
        let (d0, d1) = (dst.lo[a], dst.hi[a]);
        let (c0, c1) = (d0.max(min), d1.min(max));
        if c0 >= c1 {
            return Ok(false);
        }
        if (c0, c1) == (d0, d1) {
            continue;
        }
        if src.extent(a) != dst.extent(a) {
            return Err(shader_blit("a scissor that clips a scaled blit"));
        }
        let sign = if src.flipped(a) { -1 } else { 1 };
        src.lo[a] += (c0 - d0) * sign;
        src.hi[a] -= (d1 - c1) * sign;
        dst.lo[a] = c0;
        dst.hi[a] = c1;
    }
    Ok(true)
}

/// Whether the blit reads and writes a common subresource.
fn same_subresource(s: &Side, d: &Side) -> bool {
    if !Arc::ptr_eq(&s.obj, &d.obj) || s.level != d.level {
        return false;
    }
    let (sl, sn) = s.layers();
    let (dl, dn) = d.layers();
    sl < dl + dn && dl < sl + sn
}

fn i32_of(v: i64) -> PipeResult<i32> {
    i32::try_from(v).map_err(|_| PipeError::invalid("blit: coordinate out of range"))
}

fn u32_of(v: i64) -> PipeResult<u32> {
    u32::try_from(v).map_err(|_| PipeError::invalid("blit: coordinate out of range"))
}

/// The `vkCmdBlitImage` regions of a blit: one for images of the same
/// kind, one per slice between a 3D and a layered image.
fn regions(s: &Side, d: &Side, aspect: vk::ImageAspectFlags) -> PipeResult<Vec<vk::ImageBlit>> {
    let n = s.extent(2);
    if (!s.is3d() || !d.is3d()) && n != d.extent(2) {
        return Err(shader_blit("a blit between different layer counts"));
    }
    // (subresource first layer, layer count, z0, z1) for slice range i.
    let zs = |x: &Side, i: Option<i64>| -> PipeResult<(u32, u32, i32, i32)> {
        Ok(match (x.is3d(), i) {
            (true, None) => (0, 1, i32_of(x.lo[2])?, i32_of(x.hi[2])?),
            (true, Some(i)) => (0, 1, i32_of(x.lo[2] + i)?, i32_of(x.lo[2] + i + 1)?),
            (false, None) => (u32_of(x.lo[2])?, u32_of(x.extent(2))?, 0, 1),
            (false, Some(i)) => (u32_of(x.lo[2] + i)?, 1, 0, 1),
        })
    };
    let region = |i: Option<i64>| -> PipeResult<vk::ImageBlit> {
        let side = |x: &Side| -> PipeResult<(vk::ImageSubresourceLayers, [vk::Offset3D; 2])> {
            let (layer, count, z0, z1) = zs(x, i)?;
            Ok((
                vk::ImageSubresourceLayers {
                    aspect_mask: aspect,
                    mip_level: x.level,
                    base_array_layer: layer,
                    layer_count: count,
                },
                [
                    vk::Offset3D {
                        x: i32_of(x.lo[0])?,
                        y: i32_of(x.lo[1])?,
                        z: z0,
                    },
                    vk::Offset3D {
                        x: i32_of(x.hi[0])?,
                        y: i32_of(x.hi[1])?,
                        z: z1,
                    },
                ],
            ))
        };
        let (ss, so) = side(s)?;
        let (ds, dof) = side(d)?;
        Ok(vk::ImageBlit {
            src_subresource: ss,
            src_offsets: so,
            dst_subresource: ds,
            dst_offsets: dof,
        })
    };
    if s.is3d() == d.is3d() {
        Ok(vec![region(None)?])
    } else {
        (0..n).map(|i| region(Some(i))).collect()
    }
}

/// A blit region of a 1:1 unflipped blit as a copy region.
fn to_copy(b: &vk::ImageBlit) -> vk::ImageCopy {
    let [s0, s1] = b.src_offsets;
    vk::ImageCopy {
        src_subresource: b.src_subresource,
        src_offset: s0,
        dst_subresource: b.dst_subresource,
        dst_offset: b.dst_offsets[0],
        extent: vk::Extent3D {
            width: s1.x.abs_diff(s0.x),
            height: s1.y.abs_diff(s0.y),
            depth: s1.z.abs_diff(s0.z),
        },
    }
}
