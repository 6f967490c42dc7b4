//! Resources: Vulkan buffers and images behind pipe resources.
//!
//! As in Zink, a pipe resource ([`VkResource`], the payload of a
//! `pipe_core::Resource`) points to a *resource object* ([`ResourceObject`]:
//! the `VkBuffer`/`VkImage`, its memory and its sync state). The indirection
//! exists for renaming: `PIPE_MAP_DISCARD_WHOLE_RESOURCE` on a busy buffer
//! swaps in a fresh object instead of stalling. Batches hold `Arc`s of the
//! objects they use, so an object (and its memory) is destroyed only after
//! the last batch using it retires, whatever the frontend did meanwhile.
//!
//! Busy tracking ([`Usage`]): per object, the contexts with unflushed use
//! (read or write) and the highest timeline values of submitted reads and
//! writes. A CPU read must wait for pending writes; a CPU write for any use.

use std::ptr::NonNull;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use ash::vk;
use gpu_allocator::vulkan::Allocation;
use gpu_allocator::MemoryLocation;
use pipe_core::resource::{BindFlags, ResourceFlags, ResourceTemplate, Target, Usage as PipeUsage};
use pipe_core::{PipeError, PipeResult};
use smallvec::SmallVec;

use crate::clear::DeferredClears;
use crate::instance::vk_err;
use crate::memory::DeviceShared;
use crate::sync::SyncState;
use crate::view::ViewCache;

/// Image properties a resource object needs at command time.
#[derive(Clone, Copy, Debug)]
pub struct ImageInfo {
    pub image: vk::Image,
    pub format: vk::Format,
    pub aspect: vk::ImageAspectFlags,
    pub extent: vk::Extent3D,
    pub levels: u32,
    /// Array layers (cube faces included); 1 for 3D.
    pub layers: u32,
    /// `TYPE_3D` images are one subresource per level: accesses to any of
    /// their depth slices are tracked (and barriered) as layer 0.
    pub ty: vk::ImageType,
    pub samples: vk::SampleCountFlags,
    pub usage: vk::ImageUsageFlags,
}

/// The Vulkan object.
#[derive(Clone, Copy, Debug)]
pub enum Raw {
    Buffer { buffer: vk::Buffer, size: u64 },
    Image(ImageInfo),
}

/// Unflushed and submitted use of an object.
#[derive(Debug, Default)]
pub struct Usage {
    /// Contexts with unflushed commands using the object: (id, writes).
    pub unflushed: SmallVec<[(u64, bool); 2]>,
    /// Highest timeline value of a submitted batch that read or wrote it.
    pub last_use: u64,
    /// Highest timeline value of a submitted batch that wrote it.
    pub last_write: u64,
}

/// A buffer or image with its memory and tracking state.
pub struct ResourceObject {
    pub dev: Arc<DeviceShared>,
    pub raw: Raw,
    allocation: Mutex<Option<Allocation>>,
    /// Host pointer when the memory is host visible and may be mapped
    /// directly (never under `PIPE_VK_DEBUG=staging` for device-local
    /// resources).
    pub mapped: Option<NonNull<u8>>,
    /// Sync state: one entry for a buffer, `levels * layers` for an image
    /// (index `level * layers + layer`).
    pub sync: Mutex<Vec<SyncState>>,
    pub usage: Mutex<Usage>,
    /// Cached image views (destroyed with the object).
    pub views: ViewCache,
    /// Deferred clears of an attachment image (see `crate::clear`).
    pub clears: Mutex<Option<DeferredClears>>,
    /// Buffers aliasing this buffer's memory with one texel-buffer usage
    /// each (indexed by [`TexelUse`]), made on demand for views of formats
    /// the device supports for that use only ([`ResourceObject::texel_view_buffer`]).
    texel_aliases: [OnceLock<vk::Buffer>; 2],
}

// SAFETY: `mapped` points into memory owned by `allocation`, valid while the
// object lives; access to the bytes is synchronized by the transfer rules.
unsafe impl Send for ResourceObject {}
// SAFETY: as above; all mutable state is behind mutexes.
unsafe impl Sync for ResourceObject {}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl ResourceObject {
    /// Locks the sync state.
    pub fn sync(&self) -> MutexGuard<'_, Vec<SyncState>> {
        lock(&self.sync)
    }

    /// Locks the usage state.
    pub fn usage(&self) -> MutexGuard<'_, Usage> {
        lock(&self.usage)
    }

    /// The buffer, if this is one.
    pub fn buffer(&self) -> Option<vk::Buffer> {
        match self.raw {
            Raw::Buffer { buffer, .. } => Some(buffer),
            Raw::Image(_) => None,
        }
    }

    /// The image info, if this is an image.
    pub fn image(&self) -> Option<&ImageInfo> {
        match &self.raw {
            Raw::Image(i) => Some(i),
            Raw::Buffer { .. } => None,
        }
    }

    /// Whether the GPU (or an unflushed context) still writes the object.
    pub fn busy_for_cpu_read(&self) -> bool {
        let u = self.usage();
        u.unflushed.iter().any(|(_, w)| *w) || u.last_write > self.dev.completed_value()
    }

    /// Whether the GPU (or an unflushed context) still uses the object.
    pub fn busy_for_cpu_write(&self) -> bool {
        let u = self.usage();
        !u.unflushed.is_empty() || u.last_use > self.dev.completed_value()
    }

    /// Records use by context `ctx` in its current (unflushed) batch.
    pub fn mark_used(&self, ctx: u64, write: bool) {
        let mut u = self.usage();
        match u.unflushed.iter_mut().find(|(c, _)| *c == ctx) {
            Some(e) => e.1 |= write,
            None => u.unflushed.push((ctx, write)),
        }
    }

    /// Called when context `ctx` submits its batch with timeline `value`.
    pub fn mark_submitted(&self, ctx: u64, value: u64) {
        let mut u = self.usage();
        if let Some(pos) = u.unflushed.iter().position(|(c, _)| *c == ctx) {
            let (_, w) = u.unflushed.swap_remove(pos);
            u.last_use = u.last_use.max(value);
            if w {
                u.last_write = u.last_write.max(value);
            }
        }
    }
}

impl Drop for ResourceObject {
    fn drop(&mut self) {
        let dev = self.dev.raw();
        self.views.destroy(dev);
        // SAFETY: the last reference is gone, and batches hold references
        // until they retire, so the GPU no longer uses the object.
        unsafe {
            match self.raw {
                Raw::Buffer { buffer, .. } => {
                    for alias in self.texel_aliases.iter().filter_map(OnceLock::get) {
                        dev.destroy_buffer(*alias, None);
                    }
                    dev.destroy_buffer(buffer, None)
                }
                Raw::Image(i) => dev.destroy_image(i.image, None),
            }
        }
        if let Some(a) = lock(&self.allocation).take() {
            self.dev.free(a);
        }
    }
}

/// The backend payload of a pipe resource.
pub struct VkResource {
    obj: Mutex<Arc<ResourceObject>>,
}

impl VkResource {
    /// The current resource object.
    pub fn obj(&self) -> Arc<ResourceObject> {
        lock(&self.obj).clone()
    }

    /// Replaces the object (renaming); returns the old one. Counted in
    /// [`DeviceShared::renames`](crate::memory::DeviceShared::renames).
    pub fn rename(&self, new: Arc<ResourceObject>) -> Arc<ResourceObject> {
        new.dev
            .renames
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        std::mem::replace(&mut *lock(&self.obj), new)
    }
}

/// Looks up the payload of a pipe resource created by pipe-vk.
pub fn vk_resource(res: &pipe_core::Resource) -> PipeResult<&VkResource> {
    res.backend_or_err::<VkResource>("resource")
}

/// What a buffer view is for: the texel-buffer descriptor it fills.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TexelUse {
    /// A texture buffer (`UNIFORM_TEXEL_BUFFER`), for sampler views.
    Uniform = 0,
    /// A buffer image (`STORAGE_TEXEL_BUFFER`), for shader images.
    Storage = 1,
}

impl TexelUse {
    /// The format feature the use needs.
    pub(crate) fn feature(self) -> vk::FormatFeatureFlags {
        match self {
            TexelUse::Uniform => vk::FormatFeatureFlags::UNIFORM_TEXEL_BUFFER,
            TexelUse::Storage => vk::FormatFeatureFlags::STORAGE_TEXEL_BUFFER,
        }
    }

    fn usage(self) -> vk::BufferUsageFlags {
        match self {
            TexelUse::Uniform => vk::BufferUsageFlags::UNIFORM_TEXEL_BUFFER,
            TexelUse::Storage => vk::BufferUsageFlags::STORAGE_TEXEL_BUFFER,
        }
    }

    fn name(self) -> &'static str {
        match self {
            TexelUse::Uniform => "uniform",
            TexelUse::Storage => "storage",
        }
    }
}

/// Both texel-buffer features: views of a format with both are made from
/// the buffer itself.
const BOTH_TEXEL_FEATURES: vk::FormatFeatureFlags = vk::FormatFeatureFlags::from_raw(
    vk::FormatFeatureFlags::UNIFORM_TEXEL_BUFFER.as_raw()
        | vk::FormatFeatureFlags::STORAGE_TEXEL_BUFFER.as_raw(),
);

impl ResourceObject {
    /// The `VkBuffer` a texel-buffer view of `vk_format` (pipe `format`)
    /// for `kind` is made from.
    ///
    /// Buffers carry both texel-buffer usages (`buffer_usage`), and a view
    /// takes its buffer's usage, so a view of the buffer itself needs a
    /// format with both features (VUID-VkBufferViewCreateInfo-buffer-00933
    /// and -00934). Formats with one only are common: on lavapipe the
    /// RGB32F/I/UI texture buffers GL 4.0 made core are uniform-only.
    /// VK_KHR_maintenance5 would let the view narrow its usage, but the
    /// validation layer pipe-vk is tested with (Debian's 1.3.239) predates
    /// it. So views of such formats are made from a second `VkBuffer` with
    /// that one usage, bound to the same memory (buffers may alias;
    /// [`ResourceObject::buffer_handles`] lists it, so every barrier of the
    /// object covers it). It is made at the first such view and lives as
    /// long as the object. `PIPE_VK_DEBUG=texel_aliases` takes this path
    /// for every format.
    pub(crate) fn texel_view_buffer(
        &self,
        call: &str,
        format: pipe_core::Format,
        vk_format: vk::Format,
        kind: TexelUse,
    ) -> PipeResult<vk::Buffer> {
        let Raw::Buffer { buffer, size } = self.raw else {
            return Err(PipeError::invalid(format!(
                "{call}: a buffer view of a texture"
            )));
        };
        let dev = &self.dev;
        // SAFETY: the physical device belongs to the instance.
        let features = unsafe {
            dev.instance
                .raw
                .get_physical_device_format_properties(dev.physical.raw, vk_format)
        }
        .buffer_features;
        if !features.contains(kind.feature()) {
            return Err(PipeError::unsupported(format!(
                "{call}: the device has no {} texel buffers of {format}",
                kind.name()
            )));
        }
        if features.contains(BOTH_TEXEL_FEATURES) && !dev.debug.texel_aliases {
            return Ok(buffer);
        }
        let slot = &self.texel_aliases[kind as usize];
        if let Some(alias) = slot.get() {
            return Ok(*alias);
        }
        // Made under the allocation's lock, so by one thread only.
        let allocation = lock(&self.allocation);
        if let Some(alias) = slot.get() {
            return Ok(*alias);
        }
        let allocation = allocation
            .as_ref()
            .ok_or_else(|| PipeError::invalid(format!("{call}: the buffer has no memory")))?;
        let raw = dev.raw();
        let info = vk::BufferCreateInfo::default()
            .size(size.max(1))
            .usage(kind.usage())
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: a valid create info with a core usage.
        let alias =
            unsafe { raw.create_buffer(&info, None) }.map_err(|e| vk_err("vkCreateBuffer", e))?;
        // SAFETY: both buffers were created on this device.
        let (req, own) = unsafe {
            (
                raw.get_buffer_memory_requirements(alias),
                raw.get_buffer_memory_requirements(buffer),
            )
        };
        // The memory's type is one of `own`'s; the spec does not promise
        // that a narrower usage keeps the alignment and size, so check.
        let fits = req.memory_type_bits & own.memory_type_bits == own.memory_type_bits
            && allocation.offset().is_multiple_of(req.alignment.max(1))
            && req.size <= allocation.size();
        if !fits {
            // SAFETY: unused buffer.
            unsafe { raw.destroy_buffer(alias, None) };
            return Err(PipeError::unsupported(format!(
                "{call}: {format} has {} texel buffer support only, and a buffer with that \
                 usage alone cannot share this buffer's memory on this device",
                kind.name()
            )));
        }
        // SAFETY: the memory range holds the buffer's requirements
        // (checked above); the alias lives no longer than the allocation
        // (both are released by `Drop`, the alias first).
        if let Err(e) =
            unsafe { raw.bind_buffer_memory(alias, allocation.memory(), allocation.offset()) }
        {
            // SAFETY: unused buffer.
            unsafe { raw.destroy_buffer(alias, None) };
            return Err(vk_err("vkBindBufferMemory", e));
        }
        dev.set_name(alias, &format!("{} texel alias of a buffer", kind.name()));
        // The slot is empty: it is only set here, under the lock.
        let _ = slot.set(alias);
        Ok(alias)
    }

    /// Every `VkBuffer` through which the GPU reaches this buffer object's
    /// memory: the buffer and its texel aliases. A buffer memory barrier
    /// covers accesses through the buffer it names only, so the object's
    /// barriers name each.
    pub(crate) fn buffer_handles(&self) -> impl Iterator<Item = vk::Buffer> + '_ {
        self.buffer()
            .into_iter()
            .chain(self.texel_aliases.iter().filter_map(|a| a.get().copied()))
    }
}

fn buffer_usage(dev: &DeviceShared) -> vk::BufferUsageFlags {
    // As Zink does: every buffer may serve every core use, because GL lets
    // a frontend bind any buffer anywhere (a vertex buffer becomes a
    // texture buffer, an SSBO an index buffer) without recreating it. The
    // bind flags only steer the memory location. Transform feedback
    // buffers and counters too, when the device has them.
    let xfb = if dev.device.features.transform_feedback.transform_feedback == vk::TRUE {
        vk::BufferUsageFlags::TRANSFORM_FEEDBACK_BUFFER_EXT
            | vk::BufferUsageFlags::TRANSFORM_FEEDBACK_COUNTER_BUFFER_EXT
    } else {
        vk::BufferUsageFlags::empty()
    };
    xfb | vk::BufferUsageFlags::TRANSFER_SRC
        | vk::BufferUsageFlags::TRANSFER_DST
        | vk::BufferUsageFlags::UNIFORM_TEXEL_BUFFER
        | vk::BufferUsageFlags::STORAGE_TEXEL_BUFFER
        | vk::BufferUsageFlags::UNIFORM_BUFFER
        | vk::BufferUsageFlags::STORAGE_BUFFER
        | vk::BufferUsageFlags::INDEX_BUFFER
        | vk::BufferUsageFlags::VERTEX_BUFFER
        | vk::BufferUsageFlags::INDIRECT_BUFFER
        | if dev.device.features.v12.buffer_device_address == vk::TRUE {
            // `set_global_binding` may name any buffer.
            vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS
        } else {
            vk::BufferUsageFlags::empty()
        }
        | if dev
            .device
            .features
            .conditional_rendering
            .conditional_rendering
            == vk::TRUE
        {
            // `render_condition_mem` may name any buffer.
            vk::BufferUsageFlags::CONDITIONAL_RENDERING_EXT
        } else {
            vk::BufferUsageFlags::empty()
        }
}

/// Where a resource's memory should live.
fn location(t: &ResourceTemplate) -> MemoryLocation {
    if t.flags
        .intersects(ResourceFlags::MAP_PERSISTENT | ResourceFlags::MAP_COHERENT)
    {
        return MemoryLocation::CpuToGpu;
    }
    match t.usage {
        PipeUsage::Staging => MemoryLocation::GpuToCpu,
        PipeUsage::Stream | PipeUsage::Dynamic => MemoryLocation::CpuToGpu,
        PipeUsage::Default | PipeUsage::Immutable => MemoryLocation::GpuOnly,
    }
}

/// Whether the resource may be mapped directly, given its location and the
/// debug switches.
fn directly_mappable(dev: &DeviceShared, loc: MemoryLocation) -> bool {
    !(dev.debug.staging && loc == MemoryLocation::GpuOnly)
}

/// Creates a buffer object of `size` bytes.
pub fn create_buffer_object(
    dev: &Arc<DeviceShared>,
    size: u64,
    _bind: BindFlags,
    loc: MemoryLocation,
    name: &str,
) -> PipeResult<Arc<ResourceObject>> {
    let raw = dev.raw();
    let info = vk::BufferCreateInfo::default()
        .size(size.max(1))
        .usage(buffer_usage(dev))
        .sharing_mode(vk::SharingMode::EXCLUSIVE);
    // SAFETY: a valid create info; usage flags are core or of enabled
    // extensions.
    let buffer =
        unsafe { raw.create_buffer(&info, None) }.map_err(|e| vk_err("vkCreateBuffer", e))?;
    // SAFETY: the buffer was just created on this device.
    let req = unsafe { raw.get_buffer_memory_requirements(buffer) };
    let allocation = match dev.allocate(name, req, loc, true, None) {
        Ok(a) => a,
        Err(e) => {
            // SAFETY: unused buffer.
            unsafe { raw.destroy_buffer(buffer, None) };
            return Err(e);
        }
    };
    // SAFETY: memory and offset come from an allocation for these requirements.
    if let Err(e) =
        unsafe { raw.bind_buffer_memory(buffer, allocation.memory(), allocation.offset()) }
    {
        // SAFETY: unused buffer.
        unsafe { raw.destroy_buffer(buffer, None) };
        dev.free(allocation);
        return Err(vk_err("vkBindBufferMemory", e));
    }
    dev.set_name(buffer, name);
    let mapped = if directly_mappable(dev, loc) {
        allocation.mapped_ptr().map(|p| p.cast::<u8>())
    } else {
        None
    };
    Ok(Arc::new(ResourceObject {
        dev: dev.clone(),
        raw: Raw::Buffer { buffer, size },
        allocation: Mutex::new(Some(allocation)),
        mapped,
        sync: Mutex::new(vec![SyncState::default()]),
        usage: Mutex::new(Usage::default()),
        views: ViewCache::default(),
        clears: Mutex::new(None),
        texel_aliases: Default::default(),
    }))
}

fn image_usage(t: &ResourceTemplate, feats: vk::FormatFeatureFlags) -> vk::ImageUsageFlags {
    let mut u = vk::ImageUsageFlags::empty();
    let mut add = |cond: bool, flag| {
        if cond {
            u |= flag;
        }
    };
    add(
        feats.contains(vk::FormatFeatureFlags::TRANSFER_SRC),
        vk::ImageUsageFlags::TRANSFER_SRC,
    );
    add(
        feats.contains(vk::FormatFeatureFlags::TRANSFER_DST),
        vk::ImageUsageFlags::TRANSFER_DST,
    );
    add(
        feats.contains(vk::FormatFeatureFlags::SAMPLED_IMAGE),
        vk::ImageUsageFlags::SAMPLED,
    );
    add(
        feats.contains(vk::FormatFeatureFlags::COLOR_ATTACHMENT),
        vk::ImageUsageFlags::COLOR_ATTACHMENT,
    );
    add(
        feats.contains(vk::FormatFeatureFlags::DEPTH_STENCIL_ATTACHMENT),
        vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
    );
    add(
        t.bind.contains(BindFlags::SHADER_IMAGE)
            && feats.contains(vk::FormatFeatureFlags::STORAGE_IMAGE),
        vk::ImageUsageFlags::STORAGE,
    );
    u
}

/// Creates the object behind a pipe resource.
pub fn create_object(
    dev: &Arc<DeviceShared>,
    t: &ResourceTemplate,
    id: u64,
) -> PipeResult<Arc<ResourceObject>> {
    let loc = location(t);
    if t.target == Target::Buffer {
        if t.flags.contains(ResourceFlags::SPARSE) {
            return Err(PipeError::unsupported(
                "sparse buffers are not supported by pipe-vk yet",
            ));
        }
        return create_buffer_object(
            dev,
            u64::from(t.width0),
            t.bind,
            loc,
            &format!("buffer #{id}"),
        );
    }
    if t.flags.contains(ResourceFlags::SPARSE) {
        return Err(PipeError::unsupported(
            "sparse textures are not supported by pipe-vk yet",
        ));
    }
    let format = crate::format::vk_format_or_emulated(t.format).ok_or_else(|| {
        PipeError::unsupported(format!("{} has no Vulkan format in pipe-vk yet", t.format))
    })?;
    let raw = dev.raw();
    // SAFETY: the physical device belongs to the instance.
    let props = unsafe {
        dev.instance
            .raw
            .get_physical_device_format_properties(dev.physical.raw, format)
    };
    let usage = image_usage(t, props.optimal_tiling_features);
    if usage.is_empty() {
        return Err(PipeError::unsupported(format!(
            "{} cannot be a texture on this device",
            t.format
        )));
    }
    let (image_type, flags, layers, depth) = match t.target {
        Target::Texture1D | Target::Texture1DArray => (
            vk::ImageType::TYPE_1D,
            vk::ImageCreateFlags::empty(),
            t.array_size,
            1,
        ),
        // Surfaces view depth slices as 2D array layers (as Zink does);
        // attachments need only this flag. Framebuffer fetch samples a
        // colour slice through a 2D view, which needs
        // VK_EXT_image_2d_view_of_3d's flag too (`crate::view::fetch_view`).
        Target::Texture3D => (
            vk::ImageType::TYPE_3D,
            if usage.contains(vk::ImageUsageFlags::COLOR_ATTACHMENT) && dev.sampled_2d_view_of_3d()
            {
                vk::ImageCreateFlags::TYPE_2D_ARRAY_COMPATIBLE
                    | vk::ImageCreateFlags::TYPE_2D_VIEW_COMPATIBLE_EXT
            } else if usage.intersects(
                vk::ImageUsageFlags::COLOR_ATTACHMENT
                    | vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
            ) {
                vk::ImageCreateFlags::TYPE_2D_ARRAY_COMPATIBLE
            } else {
                vk::ImageCreateFlags::empty()
            },
            1,
            t.depth0,
        ),
        Target::TextureCube | Target::TextureCubeArray => (
            vk::ImageType::TYPE_2D,
            vk::ImageCreateFlags::CUBE_COMPATIBLE,
            t.array_size,
            1,
        ),
        // 2D arrays that could hold cube faces may be viewed as cubes.
        Target::Texture2DArray
            if t.width0 == t.height0 && t.array_size >= 6 && t.samples() == 1 =>
        {
            (
                vk::ImageType::TYPE_2D,
                vk::ImageCreateFlags::CUBE_COMPATIBLE,
                t.array_size,
                1,
            )
        }
        _ => (
            vk::ImageType::TYPE_2D,
            vk::ImageCreateFlags::empty(),
            t.array_size,
            1,
        ),
    };
    // Views may cast to compatible formats (sampler views, surfaces).
    let mut flags = flags | vk::ImageCreateFlags::MUTABLE_FORMAT;
    // A depth attachment drawn with programmable sample locations must be
    // created for them (`crate::sample_locations`).
    if t.samples() > 1 && t.format.is_depth_or_stencil() && dev.sample_locations.is_some() {
        flags |= vk::ImageCreateFlags::SAMPLE_LOCATIONS_COMPATIBLE_DEPTH_EXT;
    }
    let samples = vk::SampleCountFlags::from_raw(t.samples());
    let extent = vk::Extent3D {
        width: t.width0,
        height: t.height0,
        depth,
    };
    // SAFETY: as above.
    let ifp = unsafe {
        dev.instance
            .raw
            .get_physical_device_image_format_properties(
                dev.physical.raw,
                format,
                image_type,
                vk::ImageTiling::OPTIMAL,
                usage,
                flags,
            )
    }
    .map_err(|_| {
        PipeError::unsupported(format!(
            "{} {} with usage {usage:?} is not supported",
            t.format,
            t.target.name()
        ))
    })?;
    if ifp.sample_counts.as_raw() & samples.as_raw() == 0
        || extent.width > ifp.max_extent.width
        || extent.height > ifp.max_extent.height
        || extent.depth > ifp.max_extent.depth
        || layers > ifp.max_array_layers
        || t.num_levels() > ifp.max_mip_levels
    {
        return Err(PipeError::unsupported(format!(
            "{} {}x{}x{} x{layers} with {} samples exceeds the device's image limits",
            t.format,
            extent.width,
            extent.height,
            extent.depth,
            t.samples()
        )));
    }
    let info = vk::ImageCreateInfo::default()
        .flags(flags)
        .image_type(image_type)
        .format(format)
        .extent(extent)
        .mip_levels(t.num_levels())
        .array_layers(layers)
        .samples(samples)
        .tiling(vk::ImageTiling::OPTIMAL)
        .usage(usage)
        .sharing_mode(vk::SharingMode::EXCLUSIVE)
        .initial_layout(vk::ImageLayout::UNDEFINED);
    // SAFETY: the parameters were checked against the image format
    // properties just above.
    let image = unsafe { raw.create_image(&info, None) }.map_err(|e| vk_err("vkCreateImage", e))?;
    // SAFETY: image of this device.
    let req = unsafe { raw.get_image_memory_requirements(image) };
    let name = format!("texture #{id}");
    let allocation = match dev.allocate(&name, req, MemoryLocation::GpuOnly, false, Some(image)) {
        Ok(a) => a,
        Err(e) => {
            // SAFETY: unused image.
            unsafe { raw.destroy_image(image, None) };
            return Err(e);
        }
    };
    // SAFETY: memory from an allocation for these requirements.
    if let Err(e) =
        unsafe { raw.bind_image_memory(image, allocation.memory(), allocation.offset()) }
    {
        // SAFETY: unused image.
        unsafe { raw.destroy_image(image, None) };
        dev.free(allocation);
        return Err(vk_err("vkBindImageMemory", e));
    }
    dev.set_name(image, &name);
    let aspect = vk_aspects(format);
    let count = (t.num_levels() * layers) as usize;
    let attachment = usage.intersects(
        vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
    );
    let clears = if attachment && t.target != Target::Texture3D {
        Some(DeferredClears::new(t.num_levels(), layers)?)
    } else {
        None
    };
    Ok(Arc::new(ResourceObject {
        dev: dev.clone(),
        raw: Raw::Image(ImageInfo {
            image,
            format,
            aspect,
            extent,
            levels: t.num_levels(),
            layers,
            ty: image_type,
            samples,
            usage,
        }),
        allocation: Mutex::new(Some(allocation)),
        mapped: None,
        sync: Mutex::new(vec![SyncState::default(); count]),
        usage: Mutex::new(Usage::default()),
        views: ViewCache::default(),
        clears: Mutex::new(clears),
        texel_aliases: Default::default(),
    }))
}

/// The aspects of a Vulkan format.
pub fn vk_aspects(f: vk::Format) -> vk::ImageAspectFlags {
    match f {
        vk::Format::D16_UNORM | vk::Format::X8_D24_UNORM_PACK32 | vk::Format::D32_SFLOAT => {
            vk::ImageAspectFlags::DEPTH
        }
        vk::Format::S8_UINT => vk::ImageAspectFlags::STENCIL,
        vk::Format::D16_UNORM_S8_UINT
        | vk::Format::D24_UNORM_S8_UINT
        | vk::Format::D32_SFLOAT_S8_UINT => {
            vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL
        }
        _ => vk::ImageAspectFlags::COLOR,
    }
}

/// Creates a pipe resource.
pub fn resource_create(
    dev: &Arc<DeviceShared>,
    t: &ResourceTemplate,
) -> PipeResult<pipe_core::Resource> {
    // The id is only known after Object::new; name objects by a local counter.
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let obj = create_object(dev, t, id)?;
    Ok(pipe_core::object::Object::new(
        t.clone(),
        VkResource {
            obj: Mutex::new(obj),
        },
    ))
}

/// The location new storage of a renamed buffer needs.
pub fn rename_location(t: &ResourceTemplate) -> MemoryLocation {
    location(t)
}
