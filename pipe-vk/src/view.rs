//! Sampler views, surfaces and their Vulkan image/buffer views.
//!
//! Vulkan views are cached on the resource object, keyed by everything that
//! makes a `VkImageViewCreateInfo` ([`ViewKey`]), and destroyed with the
//! object; creating the same pipe view twice reuses one `VkImageView`.
//!
//! Format handling: a view's pipe format maps to its Vulkan format directly
//! or through an emulation (`crate::format::emulated`), whose swizzle is
//! composed with the view's. Depth/stencil sampler views see the depth
//! aspect, except stencil-only formats (X24S8, S8) which see stencil.
//! Surfaces (attachments) use identity swizzles and every aspect.

use hashbrown::HashMap;
use std::sync::{Arc, Mutex};

use ash::vk;
use pipe_core::object::Object;
use pipe_core::resource::Target;
use pipe_core::view::{
    SamplerView, SamplerViewDesc, SamplerViewTemplate, Surface, SurfaceDesc, SurfaceTemplate,
    Swizzle, ViewRange,
};
use pipe_core::{Format, PipeError, PipeResult, Resource};

use crate::format::{emulated, vk_format, vk_swizzle};
use crate::instance::vk_err;
use crate::resource::{vk_resource, ResourceObject};

/// What identifies a Vulkan image view of one image.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ViewKey {
    pub view_type: vk::ImageViewType,
    pub format: vk::Format,
    pub swizzle: [vk::ComponentSwizzle; 4],
    pub aspect: vk::ImageAspectFlags,
    pub levels: (u32, u32),
    pub layers: (u32, u32),
}

/// The views of one image, created on demand.
#[derive(Default)]
pub struct ViewCache {
    views: Mutex<HashMap<ViewKey, vk::ImageView>>,
}

impl ViewCache {
    /// Returns the cached view for `key`, creating it if needed.
    pub fn get(&self, obj: &ResourceObject, key: ViewKey) -> PipeResult<vk::ImageView> {
        let mut map = self.views.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(v) = map.get(&key) {
            return Ok(*v);
        }
        let img = obj
            .image()
            .ok_or_else(|| PipeError::invalid("image view of a buffer"))?;
        let [r, g, b, a] = key.swizzle;
        let info = vk::ImageViewCreateInfo::default()
            .image(img.image)
            .view_type(key.view_type)
            .format(key.format)
            .components(vk::ComponentMapping { r, g, b, a })
            .subresource_range(vk::ImageSubresourceRange {
                aspect_mask: key.aspect,
                base_mip_level: key.levels.0,
                level_count: key.levels.1,
                base_array_layer: key.layers.0,
                layer_count: key.layers.1,
            });
        // SAFETY: the key was built from the image's own properties and a
        // validated template; the format is view-compatible (the image is
        // MUTABLE_FORMAT).
        let view = unsafe { obj.dev.raw().create_image_view(&info, None) }
            .map_err(|e| vk_err("vkCreateImageView", e))?;
        map.insert(key, view);
        Ok(view)
    }

    /// Number of cached views (for tests).
    pub fn len(&self) -> usize {
        self.views.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    /// Whether no view is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Destroys every view (the object is being destroyed).
    pub fn destroy(&self, device: &ash::Device) {
        let mut map = self.views.lock().unwrap_or_else(|p| p.into_inner());
        for (_, v) in map.drain() {
            // SAFETY: the owning object is being destroyed, so no batch uses
            // its views any more.
            unsafe { device.destroy_image_view(v, None) };
        }
    }
}

/// The Vulkan format and swizzle for viewing `format` (emulations included).
pub fn view_format(
    format: Format,
    swizzle: [Swizzle; 4],
) -> PipeResult<(vk::Format, [vk::ComponentSwizzle; 4])> {
    if let Some(f) = vk_format(format) {
        return Ok((f, swizzle.map(vk_swizzle)));
    }
    if let Some(e) = emulated(format) {
        return Ok((e.vk_format, e.compose(swizzle).map(vk_swizzle)));
    }
    Err(PipeError::unsupported(format!(
        "{format} has no Vulkan format"
    )))
}

fn view_type(target: Target, layer_count: u32) -> vk::ImageViewType {
    match target {
        Target::Texture1D => vk::ImageViewType::TYPE_1D,
        Target::Texture1DArray => vk::ImageViewType::TYPE_1D_ARRAY,
        Target::Texture3D => vk::ImageViewType::TYPE_3D,
        Target::TextureCube => vk::ImageViewType::CUBE,
        Target::TextureCubeArray => vk::ImageViewType::CUBE_ARRAY,
        Target::Texture2DArray => vk::ImageViewType::TYPE_2D_ARRAY,
        _ if layer_count > 1 => vk::ImageViewType::TYPE_2D_ARRAY,
        _ => vk::ImageViewType::TYPE_2D,
    }
}

/// Payload of a sampler view.
pub struct VkSamplerView {
    pub obj: Arc<ResourceObject>,
    pub view: VkView,
}

/// The Vulkan object behind a view.
#[derive(Clone, Copy, Debug)]
pub enum VkView {
    Image(vk::ImageView),
    /// Texel buffer views are owned by the payload (see `Drop`).
    Buffer(vk::BufferView),
}

impl Drop for VkSamplerView {
    fn drop(&mut self) {
        if let VkView::Buffer(v) = self.view {
            // SAFETY: the payload owns the buffer view; batches that used it
            // hold the sampler view (and so this payload) until they retire.
            unsafe { self.obj.dev.raw().destroy_buffer_view(v, None) };
        }
    }
}

/// Creates a sampler view.
pub fn create_sampler_view(texture: &Resource, t: &SamplerViewTemplate) -> PipeResult<SamplerView> {
    let obj = vk_resource(texture)?.obj();
    let view = match t.range {
        ViewRange::Buffer { offset, size } => {
            if obj.buffer().is_none() {
                return Err(PipeError::invalid("buffer view of a texture"));
            }
            // Buffer views have no swizzle: formats emulated with one
            // (L8 as R8) cannot be texture buffers.
            let format = vk_format(t.format).ok_or_else(|| {
                PipeError::unsupported(format!(
                    "create_sampler_view: {} texture buffers (buffer views have no swizzle \
                     to emulate it with)",
                    t.format
                ))
            })?;
            let buffer = obj.texel_view_buffer(
                "create_sampler_view",
                t.format,
                format,
                crate::resource::TexelUse::Uniform,
            )?;
            let info = vk::BufferViewCreateInfo::default()
                .buffer(buffer)
                .format(format)
                .offset(u64::from(offset))
                // Whole texels: the range's tail is not part of the view
                // (Vulkan wants a multiple, GL counts floor(size / texel)).
                .range(u64::from(size - size % t.format.block_size_bytes().max(1)));
            // SAFETY: range and alignment validated by pipe-core against
            // the device limits.
            let v = unsafe { obj.dev.raw().create_buffer_view(&info, None) }
                .map_err(|e| vk_err("vkCreateBufferView", e))?;
            VkView::Buffer(v)
        }
        ViewRange::Texture {
            first_level,
            last_level,
            first_layer,
            last_layer,
        } => {
            let (format, swizzle) = view_format(t.format, t.swizzle)?;
            let img = obj
                .image()
                .ok_or_else(|| PipeError::invalid("texture view of a buffer"))?;
            let aspect = if img.aspect.contains(vk::ImageAspectFlags::DEPTH) {
                if t.format.is_depth() {
                    vk::ImageAspectFlags::DEPTH
                } else {
                    vk::ImageAspectFlags::STENCIL
                }
            } else {
                img.aspect
            };
            let layers = if texture.desc().target == Target::Texture3D {
                (0, 1)
            } else {
                (first_layer, last_layer - first_layer + 1)
            };
            let key = ViewKey {
                view_type: view_type(t.target, layers.1),
                format,
                swizzle,
                aspect,
                levels: (first_level, last_level - first_level + 1),
                layers,
            };
            VkView::Image(obj.views.get(&obj, key)?)
        }
    };
    Ok(Object::new(
        SamplerViewDesc {
            texture: texture.clone(),
            template: *t,
        },
        VkSamplerView { obj, view },
    ))
}

/// Payload of a surface.
pub struct VkSurface {
    pub obj: Arc<ResourceObject>,
    pub view: vk::ImageView,
    pub format: vk::Format,
    pub aspect: vk::ImageAspectFlags,
    pub level: u32,
    pub first_layer: u32,
    pub layer_count: u32,
}

/// Creates a surface (an attachment view of one level and a layer range).
pub fn create_surface(texture: &Resource, t: &SurfaceTemplate) -> PipeResult<Surface> {
    let obj = vk_resource(texture)?.obj();
    let format = vk_format(t.format)
        .or_else(|| {
            emulated(t.format)
                .filter(|e| e.renderable())
                .map(|e| e.vk_format)
        })
        .ok_or_else(|| {
            PipeError::unsupported(format!("{} cannot be rendered to by pipe-vk", t.format))
        })?;
    let img = obj
        .image()
        .ok_or_else(|| PipeError::invalid("surface of a buffer"))?;
    let rt = texture.desc();
    let count = t.last_layer - t.first_layer + 1;
    // Attachments are 2D (array) views. A 3D level's depth slices are
    // viewed as the layers of a 2D array view (the image is
    // 2D_ARRAY_COMPATIBLE when it can be an attachment); the slices must
    // exist in that level.
    if rt.target == Target::Texture3D {
        if !img.usage.intersects(
            vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
        ) {
            return Err(PipeError::unsupported(format!(
                "create_surface: {} 3D textures cannot be rendered to on this device",
                rt.format
            )));
        }
        let depth = rt.level_extent(t.level).map_or(0, |e| e.2);
        if t.last_layer >= depth {
            return Err(PipeError::invalid(format!(
                "create_surface: slices {}..={} of a 3D level with {depth} slices",
                t.first_layer, t.last_layer
            )));
        }
    }
    let key = ViewKey {
        view_type: if count > 1 || rt.target.is_layered() {
            vk::ImageViewType::TYPE_2D_ARRAY
        } else if rt.target == Target::Texture1D {
            vk::ImageViewType::TYPE_1D
        } else {
            vk::ImageViewType::TYPE_2D
        },
        format,
        swizzle: [vk::ComponentSwizzle::IDENTITY; 4],
        aspect: img.aspect,
        levels: (t.level, 1),
        layers: (t.first_layer, count),
    };
    let key =
        if rt.target == Target::Texture1DArray || (rt.target == Target::Texture1D && count > 1) {
            ViewKey {
                view_type: vk::ImageViewType::TYPE_1D_ARRAY,
                ..key
            }
        } else {
            key
        };
    let view = obj.views.get(&obj, key)?;
    let (width, height, _) = rt
        .level_extent(t.level)
        .ok_or_else(|| PipeError::invalid("create_surface: no such level"))?;
    let aspect = img.aspect;
    Ok(Object::new(
        SurfaceDesc {
            texture: texture.clone(),
            template: *t,
            width,
            height,
        },
        VkSurface {
            obj,
            view,
            format,
            aspect,
            level: t.level,
            first_layer: t.first_layer,
            layer_count: count,
        },
    ))
}

/// The colour buffers (bit i = colour buffer i) of `fb` that are 1D images,
/// and those that are 3D images: the dimensions framebuffer fetch reads
/// them in (`fetch_view`; a 3D one as 3D only when layered).
pub(crate) fn colour_buffer_dims(fb: &pipe_core::state::FramebufferState) -> PipeResult<(u8, u8)> {
    let (mut one_d, mut three_d) = (0u8, 0u8);
    for (i, c) in fb.cbufs.iter().enumerate().take(8) {
        let Some(s) = c else { continue };
        match vk_surface(s)?.obj.image().map(|img| img.ty) {
            Some(vk::ImageType::TYPE_1D) => one_d |= 1 << i,
            Some(vk::ImageType::TYPE_3D) => three_d |= 1 << i,
            _ => {}
        }
    }
    Ok((one_d, three_d))
}

/// The view framebuffer fetch samples a colour surface through (at the
/// fragment's pixel): a 2D view of its layer, or on a layered
/// framebuffer (`layered`, the fragment shader's `fbfetch_layered`
/// variant) a 2D array view of its layers, read at the fragment's layer.
/// A slice of a 3D image is read through a 2D view of it
/// (VK_EXT_image_2d_view_of_3d, `DeviceShared::sampled_2d_view_of_3d`),
/// the slices of a layered one through a 3D view (a 2D array view of a 3D
/// image cannot be sampled), and a 1D image through a 1D (array) view:
/// the shader's `fbfetch_1d` and `fbfetch_3d` variants read those
/// (`colour_buffer_dims`).
pub(crate) fn fetch_view(
    dev: &crate::memory::DeviceShared,
    s: &VkSurface,
    layered: bool,
) -> PipeResult<vk::ImageView> {
    let img = s
        .obj
        .image()
        .ok_or_else(|| PipeError::invalid("framebuffer fetch of a buffer"))?;
    use vk::{ImageType as I, ImageViewType as V};
    let (view_type, layers) = match (img.ty, layered) {
        (I::TYPE_2D, true) => (V::TYPE_2D_ARRAY, (s.first_layer, s.layer_count)),
        (I::TYPE_2D, false) => (V::TYPE_2D, (s.first_layer, 1)),
        // Read at x (and the layer): `FbFetchInfo::dim`, key item
        // `fbfetch_1d`.
        (I::TYPE_1D, true) => (V::TYPE_1D_ARRAY, (s.first_layer, s.layer_count)),
        (I::TYPE_1D, false) => (V::TYPE_1D, (s.first_layer, 1)),
        // The slices of a layered 3D framebuffer: a 3D view, read at
        // slice `Layer` (key item `fbfetch_3d`), so the surface's first
        // slice must be the image's.
        (I::TYPE_3D, true) if s.first_layer == 0 => (V::TYPE_3D, (0, 1)),
        (I::TYPE_3D, true) => {
            return Err(PipeError::unsupported(format!(
                "framebuffer fetch from a layered 3D colour buffer starting at slice {} (it \
                 reads slices from 0)",
                s.first_layer
            )))
        }
        // One slice: a 2D view of it, where the device samples such
        // views (colour-attachment 3D images are then created
        // 2D_VIEW_COMPATIBLE, `resource`).
        (I::TYPE_3D, false) if dev.sampled_2d_view_of_3d() => (V::TYPE_2D, (s.first_layer, 1)),
        _ => {
            return Err(PipeError::unsupported(
                "framebuffer fetch from one slice of a 3D colour buffer needs \
                 VK_EXT_image_2d_view_of_3d",
            ))
        }
    };
    s.obj.views.get(
        &s.obj,
        ViewKey {
            view_type,
            format: s.format,
            swizzle: [vk::ComponentSwizzle::IDENTITY; 4],
            aspect: s.aspect,
            levels: (s.level, 1),
            layers,
        },
    )
}

/// The payload of a surface made by pipe-vk.
pub fn vk_surface(s: &Surface) -> PipeResult<&VkSurface> {
    s.backend_or_err::<VkSurface>("surface")
}
