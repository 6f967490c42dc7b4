//! Shader resources as descriptors, for every stage: sampler views
//! (textures and texture buffers), shader images (texture and buffer
//! images) and shader buffers.
//!
//! Design (Zink's `zink_descriptors.c`: one descriptor set per resource
//! class, laid out per program):
//!
//! - **The binding model** is spirv-gen's (`spirv_gen::binding`): set 0
//!   uniform buffers, set 1 sampler views (`COMBINED_IMAGE_SAMPLER`, or
//!   `UNIFORM_TEXEL_BUFFER` for texture buffers), set 2 images
//!   (`STORAGE_IMAGE`, or `STORAGE_TEXEL_BUFFER` for buffer images), set 3
//!   shader buffers (`STORAGE_BUFFER`); `binding = stage * slots + slot`.
//! - **Per-slot descriptors** ([`VkContext::storage_image`],
//!   [`VkContext::sampled_view`], [`VkContext::buffer_binding`]) check a
//!   bound resource against the shader's declaration and return the
//!   descriptor ([`Desc`]) and the access it implies ([`Use`]); the caller
//!   declares the access at its own pipeline stages. Compute
//!   (`crate::compute`) and draws share them.
//! - **Draws.** Pipelines whose shaders use only uniform buffers and
//!   sampled image textures keep `crate::pipeline`'s fixed layouts (set 0
//!   and the narrow or wide sampler set 1, cached per batch by content in
//!   `crate::draw`), so the
//!   common draw pays nothing for this module. A pipeline whose shaders
//!   declare an image, a shader buffer or a texture buffer gets an
//!   *extended layout* ([`GfxProgram`]): set 0 and the push constant
//!   range are the fixed layouts' (so set 0 stays bound across pipeline
//!   switches), sets 1-3 hold exactly the bindings its shaders declare,
//!   with the descriptor type each needs. Layouts are shared by every
//!   program with the same bindings. The program of a pipeline is kept by
//!   pipeline handle, found per draw by comparing with the last one.
//! - **Sets** of an extended draw are allocated from the batch's pools and
//!   written when the descriptors differ from what the command buffer has
//!   bound ([`BoundResources`]); otherwise nothing is recorded. Binding
//!   sets 1-3 with an extended layout may disturb the fixed layouts' set
//!   1 and the other way round, so each path forgets what the other has
//!   bound when it binds.
//! - **Unbound slots** in draws: shader buffers get a zeroed buffer,
//!   sampler views the transparent-black texture of `crate::draw` (image
//!   textures) or a zeroed texel buffer (texture buffers), so reads give
//!   zero; an unbound image the shader declares is an `InvalidArgument`
//!   (there is no dummy image of every dimension and format), as in
//!   compute.
//! - **Synchronization.** Every access is declared before the draw at the
//!   stages that use the resource: `SHADER_STORAGE_READ` (+ `WRITE` when
//!   the shader may write and the frontend marked it writable) for shader
//!   buffers and images (layout `GENERAL`), `SHADER_SAMPLED_READ` for
//!   sampler views (`GENERAL` when the same image is also a storage image
//!   of the draw). Uses of one resource by several stages and slots are
//!   merged into one declaration, so the tracker records the union.
//!   A write makes the next draw that touches the resource (or any other
//!   command) get a barrier; barriers cannot be recorded in a rendering
//!   instance, so `crate::draw` ends it first. This is also what
//!   `memory_barrier` needs (Zink ends the render pass and records a
//!   memory barrier): with every write tracked, the barrier is already
//!   there, and `memory_barrier` has nothing left to do.
//! - **Features.** Stores and atomics in vertex, tessellation and geometry
//!   shaders need `vertexPipelineStoresAndAtomics`, in fragment shaders
//!   `fragmentStoresAndAtomics`; caps report no images or shader buffers
//!   for stages without them, and such a pipeline is `Unsupported`.
//!   SPIR-V passthrough shaders declare theirs in the words, which
//!   `spirv_gen::patch::ir_resources` reads into the IR's terms.

use std::sync::Arc;

use ash::vk;
use hashbrown::HashMap;
use pipe_core::resource::{BindFlags, Target};
use pipe_core::shader::{ShaderCode, ShaderState};
use pipe_core::state::{ImageAccess, ImageView, ImageViewRange, ShaderStage};
use pipe_core::view::{SamplerView, ViewRange};
use pipe_core::{Format, PipeError, PipeResult, Resource};
use smallvec::SmallVec;
use spirv_gen::binding;
use spirv_gen::ir::{BaseType, Dim, ImageFormat, ImageInfo, TextureInfo, VarKind};

use crate::compute::DUMMY_SIZE;
use crate::context::VkContext;
use crate::instance::vk_err;
use crate::memory::DeviceShared;
use crate::resource::{vk_resource, Raw, ResourceObject};
use crate::sync::Access;

const STORAGE_READ_WRITE: vk::AccessFlags2 = vk::AccessFlags2::from_raw(
    vk::AccessFlags2::SHADER_STORAGE_READ.as_raw()
        | vk::AccessFlags2::SHADER_STORAGE_WRITE.as_raw(),
);

/// The image part of a [`Use`]: levels `first..=last`, layers
/// `(first, count)`, the layout of the descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ImageUse {
    pub levels: (u32, u32),
    pub layers: (u32, u32),
    pub layout: vk::ImageLayout,
}

/// The access a descriptor implies (its stages are the caller's).
pub(crate) struct Use {
    pub obj: Arc<ResourceObject>,
    /// `None` for a buffer.
    pub image: Option<ImageUse>,
    pub access: vk::AccessFlags2,
    pub write: bool,
}

/// Checks that the device has the features a declared storage image
/// needs (`what` names the shader in errors).
pub(crate) fn check_image_features(
    dev: &DeviceShared,
    what: &str,
    images: impl Iterator<Item = (u32, ImageInfo)>,
) -> PipeResult<()> {
    let core = &dev.device.features.core;
    for (slot, im) in images {
        let need = |ok: vk::Bool32, feature: &str| {
            if ok == vk::TRUE {
                Ok(())
            } else {
                Err(PipeError::unsupported(format!(
                    "{what}: image slot {slot} needs {feature}, which the device lacks"
                )))
            }
        };
        if im.format == ImageFormat::Unknown {
            if !im.writeonly {
                need(
                    core.shader_storage_image_read_without_format,
                    "shaderStorageImageReadWithoutFormat",
                )?;
            }
            if !im.readonly {
                need(
                    core.shader_storage_image_write_without_format,
                    "shaderStorageImageWriteWithoutFormat",
                )?;
            }
        }
        if im.ms {
            need(
                core.shader_storage_image_multisample,
                "shaderStorageImageMultisample",
            )?;
        }
        if im.format.is_extended() {
            need(
                core.shader_storage_image_extended_formats,
                "shaderStorageImageExtendedFormats",
            )?;
        }
    }
    Ok(())
}

impl Desc {
    /// What the descriptor points at, to compare with what is bound.
    fn key(&self) -> DescKey {
        use vk::Handle;
        match self {
            Desc::Buffer(s, b, _, [i]) => (*s as u8, *b, i.buffer.as_raw(), i.offset, i.range),
            Desc::Image(s, b, _, [i]) => (
                *s as u8,
                *b,
                i.image_view.as_raw(),
                i.sampler.as_raw(),
                i.image_layout.as_raw() as u64,
            ),
            Desc::Texel(s, b, _, [v]) => (*s as u8, *b, v.as_raw(), 0, 0),
        }
    }

    fn set(&self) -> usize {
        match self {
            Desc::Buffer(s, ..) | Desc::Image(s, ..) | Desc::Texel(s, ..) => *s,
        }
    }

    /// The write of this descriptor into `set`.
    pub(crate) fn write(&self, set: vk::DescriptorSet) -> vk::WriteDescriptorSet<'_> {
        let w = vk::WriteDescriptorSet::default().dst_set(set);
        match self {
            Desc::Buffer(_, b, ty, bi) => w.dst_binding(*b).descriptor_type(*ty).buffer_info(bi),
            Desc::Image(_, b, ty, ii) => w.dst_binding(*b).descriptor_type(*ty).image_info(ii),
            Desc::Texel(_, b, ty, tv) => {
                w.dst_binding(*b).descriptor_type(*ty).texel_buffer_view(tv)
            }
        }
    }
}

/// (set, binding, handle, offset or sampler, range or layout).
type DescKey = (u8, u32, u64, u64, u64);

/// The graphics stages, in binding-model order.
const GFX_STAGES: [ShaderStage; 5] = [
    ShaderStage::Vertex,
    ShaderStage::TessCtrl,
    ShaderStage::TessEval,
    ShaderStage::Geometry,
    ShaderStage::Fragment,
];

fn shader_stage_flags(st: ShaderStage) -> vk::ShaderStageFlags {
    match st {
        ShaderStage::Vertex => vk::ShaderStageFlags::VERTEX,
        ShaderStage::TessCtrl => vk::ShaderStageFlags::TESSELLATION_CONTROL,
        ShaderStage::TessEval => vk::ShaderStageFlags::TESSELLATION_EVALUATION,
        ShaderStage::Geometry => vk::ShaderStageFlags::GEOMETRY,
        ShaderStage::Fragment => vk::ShaderStageFlags::FRAGMENT,
        ShaderStage::Compute => vk::ShaderStageFlags::COMPUTE,
    }
}

/// The pipeline stage of shader stage `st`.
pub(crate) fn pipeline_stage(st: ShaderStage) -> vk::PipelineStageFlags2 {
    match st {
        ShaderStage::Vertex => vk::PipelineStageFlags2::VERTEX_SHADER,
        ShaderStage::TessCtrl => vk::PipelineStageFlags2::TESSELLATION_CONTROL_SHADER,
        ShaderStage::TessEval => vk::PipelineStageFlags2::TESSELLATION_EVALUATION_SHADER,
        ShaderStage::Geometry => vk::PipelineStageFlags2::GEOMETRY_SHADER,
        ShaderStage::Fragment => vk::PipelineStageFlags2::FRAGMENT_SHADER,
        ShaderStage::Compute => vk::PipelineStageFlags2::COMPUTE_SHADER,
    }
}

/// What one graphics stage declares beyond uniform buffers.
#[derive(Default)]
struct StageResources {
    textures: SmallVec<[TextureInfo; 4]>,
    images: SmallVec<[ImageInfo; 2]>,
    /// (slot, readonly)
    ssbos: SmallVec<[(u32, bool); 2]>,
    /// Colour buffers read by framebuffer fetch (fragment only).
    fbfetch: SmallVec<[u32; 2]>,
}

/// Bindings of sets 1-3 of an extended layout: (binding, type), sorted.
type LayoutKey = [SmallVec<[(u32, vk::DescriptorType); 8]>; 3];

/// An extended pipeline layout (see the module doc).
#[derive(Clone, Copy)]
struct ExtLayout {
    sets: [vk::DescriptorSetLayout; 4],
    /// Which of sets 1-3 have bindings.
    used: [bool; 4],
    layout: vk::PipelineLayout,
}

/// The resources of the graphics shaders of an extended pipeline.
pub(crate) struct GfxProgram {
    stages: [StageResources; 5],
    layout: ExtLayout,
}

impl GfxProgram {
    /// The pipeline layout its pipelines are built with.
    pub(crate) fn pipeline_layout(&self) -> vk::PipelineLayout {
        self.layout.layout
    }
}

/// Extended layouts and the programs of extended pipelines, per context.
#[derive(Default)]
pub struct GfxDescriptors {
    layouts: HashMap<LayoutKey, ExtLayout>,
    programs: HashMap<vk::Pipeline, Arc<GfxProgram>>,
    last: Option<(vk::Pipeline, Option<Arc<GfxProgram>>)>,
    /// Zeroed texel buffers for unbound texture buffers, per texel type
    /// (float, int, uint).
    dummy_texel: [Option<SamplerView>; 3],
    /// Texture-buffer sampler views used by recorded commands: a view
    /// owns its `VkBufferView`, so it must outlive them. Dropped once
    /// their buffer is idle (which implies those batches retired).
    held_views: Vec<(SamplerView, Arc<ResourceObject>)>,
    /// Draws recorded with an extended layout (for tests and stats).
    pub draws: u64,
}

impl GfxDescriptors {
    /// Keeps a texture-buffer view alive while commands use it.
    fn hold_view(&mut self, view: &SamplerView, obj: &Arc<ResourceObject>) {
        let p = Arc::as_ptr(view);
        if !self.held_views.iter().any(|(v, _)| Arc::as_ptr(v) == p) {
            self.held_views.push((view.clone(), obj.clone()));
        }
    }

    /// Drops the held views whose buffer no batch uses any more.
    pub(crate) fn collect_held_views(&mut self) {
        self.held_views.retain(|(_, obj)| obj.busy_for_cpu_write());
    }

    /// The program of `pipeline`, `None` for a pipeline of the fixed
    /// layouts.
    pub(crate) fn program_of(&mut self, pipeline: vk::Pipeline) -> Option<Arc<GfxProgram>> {
        if let Some((p, prog)) = &self.last {
            if *p == pipeline {
                return prog.clone();
            }
        }
        let prog = self.programs.get(&pipeline).cloned();
        self.last = Some((pipeline, prog.clone()));
        prog
    }

    /// Records the program of a new pipeline.
    pub(crate) fn insert(&mut self, pipeline: vk::Pipeline, program: Arc<GfxProgram>) {
        self.programs.insert(pipeline, program);
        self.last = None;
    }

    /// Forgets a pipeline that is being destroyed.
    pub(crate) fn forget(&mut self, pipeline: vk::Pipeline) {
        self.programs.remove(&pipeline);
        self.last = None;
    }

    /// Destroys the layouts (the context waited for its batches).
    pub fn destroy(&mut self, device: &ash::Device) {
        self.programs.clear();
        self.last = None;
        self.dummy_texel = Default::default();
        self.held_views.clear();
        // SAFETY (for the block): no batch of the context is executing,
        // so no pipeline or set uses the layouts; set 0 and the empty set
        // layout belong to `crate::pipeline` and are left alone.
        unsafe {
            for (_, l) in self.layouts.drain() {
                device.destroy_pipeline_layout(l.layout, None);
                for (i, s) in l.sets.iter().enumerate().skip(1) {
                    // Unused sets are the fixed layouts' empty one.
                    if l.used[i] {
                        device.destroy_descriptor_set_layout(*s, None);
                    }
                }
            }
        }
    }
}

/// What the command buffer has bound in sets 1-3 through an extended
/// layout (part of `crate::draw::DrawCache`).
#[derive(Default)]
pub struct BoundResources {
    /// The layout the sets were allocated for; null when nothing is.
    layout: vk::PipelineLayout,
    key: Vec<DescKey>,
    sets: [vk::DescriptorSet; 4],
    /// Whether `sets` are still bound (binding the fixed layouts' set 1
    /// may disturb them).
    bound: bool,
}

impl BoundResources {
    /// The fixed layouts' set 1 was bound: sets 1-3 must be bound again.
    pub(crate) fn invalidate(&mut self) {
        self.bound = false;
    }
}

/// The resources a shader declares: its IR's, or those a SPIR-V
/// passthrough shader uses, read from its words
/// (`spirv_gen::patch::ir_resources`).
fn stage_resources(state: &ShaderState) -> PipeResult<StageResources> {
    let mut r = StageResources::default();
    let ShaderCode::Ir(any) = &state.code else {
        use spirv_gen::patch::IrResource;
        for res in crate::shader::spirv_resources(state)? {
            match res {
                IrResource::Ubo { .. } => {}
                IrResource::Texture(t) => {
                    if !r.textures.iter().any(|o| o.slot == t.slot) {
                        r.textures.push(t);
                    }
                }
                IrResource::Image(im) => {
                    if !r.images.iter().any(|o| o.slot == im.slot) {
                        r.images.push(im);
                    }
                }
                IrResource::Ssbo { slot, readonly } => {
                    match r.ssbos.iter_mut().find(|(s, _)| *s == slot) {
                        Some(e) => e.1 &= readonly,
                        None => r.ssbos.push((slot, readonly)),
                    }
                }
            }
        }
        return Ok(r);
    };
    let Some(ir) = any.downcast_ref::<crate::shader::Ir>() else {
        return Ok(r);
    };
    let what = state.stage.short_name();
    for v in &ir.vars {
        match &v.kind {
            VarKind::Ssbo { slot, readonly } => {
                if *slot >= binding::MAX_SHADER_BUFFERS {
                    return Err(PipeError::unsupported(format!(
                        "{what} shader: shader buffer slot {slot} (pipe-vk binds 0..{})",
                        binding::MAX_SHADER_BUFFERS
                    )));
                }
                match r.ssbos.iter_mut().find(|(s, _)| s == slot) {
                    Some(e) => e.1 &= *readonly,
                    None => r.ssbos.push((*slot, *readonly)),
                }
            }
            VarKind::Image(im) => {
                if im.slot >= binding::MAX_IMAGES {
                    return Err(PipeError::unsupported(format!(
                        "{what} shader: image slot {} (pipe-vk binds 0..{})",
                        im.slot,
                        binding::MAX_IMAGES
                    )));
                }
                match r.images.iter().find(|o| o.slot == im.slot) {
                    None => r.images.push(*im),
                    Some(o) if (o.dim == Dim::Buffer) != (im.dim == Dim::Buffer) => {
                        return Err(PipeError::invalid(format!(
                            "{what} shader: image slot {} declared both as a buffer image and \
                             as a texture image",
                            im.slot
                        )))
                    }
                    Some(_) => {}
                }
            }
            VarKind::FbFetch(f) if !r.fbfetch.contains(&f.slot) => r.fbfetch.push(f.slot),
            VarKind::Texture(t) => match r.textures.iter().find(|o| o.slot == t.slot) {
                None => r.textures.push(*t),
                Some(o) if (o.dim == Dim::Buffer) != (t.dim == Dim::Buffer) => {
                    return Err(PipeError::invalid(format!(
                        "{what} shader: sampler view slot {} declared both as a texture buffer \
                         and as an image texture",
                        t.slot
                    )))
                }
                Some(_) => {}
            },
            _ => {}
        }
    }
    Ok(r)
}

/// Checks a stage's resources against the device's features and limits.
fn check_stage(dev: &DeviceShared, st: ShaderStage, r: &StageResources) -> PipeResult<()> {
    let what = format!("{} shader", st.short_name());
    let core = &dev.device.features.core;
    let stores = r.ssbos.iter().any(|(_, ro)| !ro) || r.images.iter().any(|i| !i.readonly);
    if stores {
        let (ok, feature) = if st == ShaderStage::Fragment {
            (core.fragment_stores_and_atomics, "fragmentStoresAndAtomics")
        } else {
            (
                core.vertex_pipeline_stores_and_atomics,
                "vertexPipelineStoresAndAtomics",
            )
        };
        if ok != vk::TRUE {
            return Err(PipeError::unsupported(format!(
                "{what}: writable shader buffers or images need {feature}, which the device \
                 lacks (declare them readonly)"
            )));
        }
    }
    check_image_features(dev, &what, r.images.iter().map(|i| (i.slot, *i)))?;
    check_stage_limits(
        dev,
        &what,
        [0, r.textures.len(), r.images.len(), r.ssbos.len()],
    )
}

/// The colour buffers a fragment shader reads with framebuffer fetch, as
/// a mask (bit `slot`). Cheap: run per draw.
pub(crate) fn fbfetch_mask(state: &ShaderState) -> u32 {
    let ShaderCode::Ir(any) = &state.code else {
        return 0;
    };
    let Some(ir) = any.downcast_ref::<crate::shader::Ir>() else {
        return 0;
    };
    ir.vars.iter().fold(0, |m, v| match &v.kind {
        VarKind::FbFetch(f) => m | 1u32.checked_shl(f.slot).unwrap_or(0),
        _ => m,
    })
}

/// Checks one stage's descriptor counts (uniform buffers, sampler views,
/// images, shader buffers) against the device's per-stage limits.
pub(crate) fn check_stage_limits(dev: &DeviceShared, what: &str, n: [usize; 4]) -> PipeResult<()> {
    let l = &dev.physical.properties.limits;
    let limits = [
        (
            l.max_per_stage_descriptor_uniform_buffers,
            "uniform buffers",
        ),
        (
            l.max_per_stage_descriptor_sampled_images
                .min(l.max_per_stage_descriptor_samplers),
            "sampler views",
        ),
        (l.max_per_stage_descriptor_storage_images, "images"),
        (l.max_per_stage_descriptor_storage_buffers, "shader buffers"),
    ];
    for (n, (max, class)) in n.into_iter().zip(limits) {
        if n > max as usize {
            return Err(PipeError::unsupported(format!(
                "{what}: {n} {class}, the device allows {max} per stage"
            )));
        }
    }
    Ok(())
}

impl VkContext {
    /// The program of the bound graphics shaders when they need an
    /// extended layout (an image, a shader buffer or a texture buffer
    /// anywhere), else `None`. Called when a pipeline is built.
    pub(crate) fn gfx_program(&mut self) -> PipeResult<Option<Arc<GfxProgram>>> {
        let dev = self.dev().clone();
        let mut stages: [StageResources; 5] = Default::default();
        let mut extended = false;
        for (i, st) in GFX_STAGES.iter().enumerate() {
            let Some(h) = self.bound().shaders[st.index()] else {
                continue;
            };
            let r = stage_resources(self.shader_table().get(h.cso)?)?;
            extended |= !r.images.is_empty()
                || !r.ssbos.is_empty()
                || !r.fbfetch.is_empty()
                || r.textures.iter().any(|t| t.dim == Dim::Buffer);
            stages[i] = r;
        }
        if !extended {
            return Ok(None);
        }
        let mut key: LayoutKey = Default::default();
        for (i, st) in GFX_STAGES.iter().enumerate() {
            let r = &stages[i];
            check_stage(&dev, *st, r)?;
            let base = st.index() as u32;
            for t in &r.textures {
                let ty = if t.dim == Dim::Buffer {
                    vk::DescriptorType::UNIFORM_TEXEL_BUFFER
                } else {
                    vk::DescriptorType::COMBINED_IMAGE_SAMPLER
                };
                key[0].push((base * binding::MAX_SAMPLER_VIEWS + t.slot, ty));
            }
            for &slot in &r.fbfetch {
                let (_, b) = binding::fbfetch_binding(slot).ok_or_else(|| {
                    PipeError::invalid(format!("fragment shader: fbfetch slot {slot}"))
                })?;
                key[0].push((b, vk::DescriptorType::SAMPLED_IMAGE));
            }
            for im in &r.images {
                let ty = if im.dim == Dim::Buffer {
                    vk::DescriptorType::STORAGE_TEXEL_BUFFER
                } else {
                    vk::DescriptorType::STORAGE_IMAGE
                };
                key[1].push((base * binding::MAX_IMAGES + im.slot, ty));
            }
            for (slot, _) in &r.ssbos {
                key[2].push((
                    base * binding::MAX_SHADER_BUFFERS + slot,
                    vk::DescriptorType::STORAGE_BUFFER,
                ));
            }
        }
        for set in &mut key {
            set.sort_unstable_by_key(|(b, _)| *b);
        }
        let layout = self.ext_layout(&dev, key)?;
        Ok(Some(Arc::new(GfxProgram { stages, layout })))
    }

    /// The extended layout of `key`, created on first use.
    fn ext_layout(&mut self, dev: &DeviceShared, key: LayoutKey) -> PipeResult<ExtLayout> {
        if let Some(l) = self.gfx_descriptors.layouts.get(&key) {
            return Ok(*l);
        }
        let raw = dev.raw();
        let fixed = &self.pipelines.layout;
        // Sets 2 and 3 of the fixed layouts are empty.
        let empty = fixed.sets[2];
        let mut sets = [fixed.sets[0], empty, empty, empty];
        let mut used = [true, false, false, false];
        let mut made: SmallVec<[vk::DescriptorSetLayout; 3]> = SmallVec::new();
        let cleanup = |made: &[vk::DescriptorSetLayout]| {
            for s in made {
                // SAFETY: just created, never used.
                unsafe { raw.destroy_descriptor_set_layout(*s, None) };
            }
        };
        for (i, set) in key.iter().enumerate() {
            if set.is_empty() {
                continue;
            }
            let bindings: SmallVec<[vk::DescriptorSetLayoutBinding; 8]> = set
                .iter()
                .map(|&(b, ty)| {
                    // Bindings are stage-major: the stage is b / slots.
                    let per_stage = match i {
                        0 => binding::MAX_SAMPLER_VIEWS,
                        1 => binding::MAX_IMAGES,
                        _ => binding::MAX_SHADER_BUFFERS,
                    };
                    // Set 1 ends with the fragment shader's
                    // framebuffer-fetch images (`binding::fbfetch_binding`).
                    let st = GFX_STAGES
                        .get((b / per_stage) as usize)
                        .copied()
                        .unwrap_or(ShaderStage::Fragment);
                    vk::DescriptorSetLayoutBinding::default()
                        .binding(b)
                        .descriptor_type(ty)
                        .descriptor_count(1)
                        .stage_flags(shader_stage_flags(st))
                })
                .collect();
            let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
            // SAFETY: distinct bindings of core descriptor types.
            match unsafe { raw.create_descriptor_set_layout(&info, None) } {
                Ok(s) => {
                    sets[i + 1] = s;
                    used[i + 1] = true;
                    made.push(s);
                }
                Err(e) => {
                    cleanup(&made);
                    return Err(vk_err("vkCreateDescriptorSetLayout", e));
                }
            }
        }
        let ranges = [vk::PushConstantRange {
            stage_flags: vk::ShaderStageFlags::ALL,
            offset: 0,
            size: fixed.push_size,
        }];
        let info = vk::PipelineLayoutCreateInfo::default()
            .set_layouts(&sets)
            .push_constant_ranges(&ranges);
        // SAFETY: the set layouts are live; the push range is the fixed
        // layouts' (compatible for set 0 and push constants).
        let layout = match unsafe { raw.create_pipeline_layout(&info, None) } {
            Ok(l) => l,
            Err(e) => {
                cleanup(&made);
                return Err(vk_err("vkCreatePipelineLayout", e));
            }
        };
        let l = ExtLayout { sets, used, layout };
        self.gfx_descriptors.layouts.insert(key, l);
        Ok(l)
    }

    /// A zeroed texel buffer view sampling `base` texels, for an unbound
    /// texture buffer.
    fn dummy_texel_view(&mut self, base: BaseType) -> PipeResult<SamplerView> {
        let (i, format) = match base {
            BaseType::Int => (1, Format::R32G32B32A32Sint),
            BaseType::Uint => (2, Format::R32G32B32A32Uint),
            _ => (0, Format::R32G32B32A32Float),
        };
        if let Some(v) = &self.gfx_descriptors.dummy_texel[i] {
            return Ok(v.clone());
        }
        let t = pipe_core::ResourceTemplate::buffer(DUMMY_SIZE as u32, BindFlags::SAMPLER_VIEW);
        let dev = self.dev().clone();
        let res = crate::resource::resource_create(&dev, &t)?;
        // Zero it as the compute dummy was (a fill before any use).
        let buf = vk_resource(&res)?.obj();
        let raw_buf = buf.buffer().ok_or(PipeError::OutOfMemory)?;
        self.use_buffer(&buf, crate::sync::access::FILL_WRITE, true);
        let cmd = self.cmd();
        // SAFETY: recording outside rendering (`cmd()` ended it); the
        // whole buffer.
        unsafe { dev.raw().cmd_fill_buffer(cmd, raw_buf, 0, DUMMY_SIZE, 0) };
        let view = crate::view::create_sampler_view(
            &res,
            &pipe_core::view::SamplerViewTemplate {
                format,
                ..pipe_core::view::SamplerViewTemplate::whole(&t)
            },
        )?;
        self.gfx_descriptors.dummy_texel[i] = Some(view.clone());
        Ok(view)
    }

    /// Declares every resource of `program` for the next draw and returns
    /// the descriptors of sets 1-3.
    pub(crate) fn prepare_gfx_resources(&mut self, program: &GfxProgram) -> PipeResult<Vec<Desc>> {
        const CALL: &str = "draw_vbo";
        let dev = self.dev().clone();
        self.compute_state.collect_texel_views(dev.raw());
        self.gfx_descriptors.collect_held_views();
        let limits = dev.physical.properties.limits;
        let mut descs: Vec<Desc> = Vec::new();
        let mut uses: SmallVec<[(Use, vk::PipelineStageFlags2); 8]> = SmallVec::new();
        // Images in GENERAL: those that are also attachments of the draw
        // (render-to-texture feedback, see `draw::update_feedback`), then
        // the storage images, so that a sampled image that is also a
        // storage image of the draw stays in GENERAL too.
        let mut storage: SmallVec<[usize; 4]> = self.feedback_objs.clone();
        for (i, st) in GFX_STAGES.iter().enumerate() {
            for im in &program.stages[i].images {
                let img = self.shader_images[st.index()]
                    .get(im.slot as usize)
                    .cloned()
                    .flatten()
                    .ok_or_else(|| {
                        PipeError::invalid(format!(
                            "{CALL}: the {} shader uses image slot {}, which has no image bound",
                            st.short_name(),
                            im.slot
                        ))
                    })?;
                let (d, u) = self.storage_image(CALL, *st, im.slot, Some(*im), &img)?;
                if u.image.is_some() {
                    storage.push(Arc::as_ptr(&u.obj) as usize);
                }
                descs.push(d);
                merge_use(&mut uses, u, pipeline_stage(*st));
            }
        }
        for (i, st) in GFX_STAGES.iter().enumerate() {
            let writable = self.shader_buffers_writable[st.index()];
            for &(slot, readonly) in &program.stages[i].ssbos {
                let b = self.shader_buffers[st.index()]
                    .get(slot as usize)
                    .cloned()
                    .flatten();
                let (obj, bi) = self.buffer_binding(
                    b.as_ref()
                        .map(|b| (&b.buffer, b.buffer_offset, b.buffer_size)),
                    limits.max_storage_buffer_range,
                )?;
                // The dummy is declared written: the shader may store to it.
                let write = !readonly && (b.is_none() || writable & (1 << slot) != 0);
                let access = if write {
                    STORAGE_READ_WRITE
                } else {
                    vk::AccessFlags2::SHADER_STORAGE_READ
                };
                descs.push(Desc::Buffer(
                    3,
                    st.index() as u32 * binding::MAX_SHADER_BUFFERS + slot,
                    vk::DescriptorType::STORAGE_BUFFER,
                    [bi],
                ));
                let u = Use {
                    obj,
                    image: None,
                    access,
                    write,
                };
                merge_use(&mut uses, u, pipeline_stage(*st));
            }
        }
        for (i, st) in GFX_STAGES.iter().enumerate() {
            for t in &program.stages[i].textures {
                let bound = self.views[st.index()]
                    .get(t.slot as usize)
                    .cloned()
                    .flatten();
                let sampler_h = self.bound().samplers[st.index()]
                    .get(t.slot as usize)
                    .copied()
                    .flatten();
                let (d, u) = match bound {
                    Some(view) => {
                        let sampler = match sampler_h {
                            Some(s) => self.vk_sampler(s)?,
                            None => self.dummy_texture()?.1,
                        };
                        self.sampled_view(CALL, *st, t.slot, Some(*t), &view, sampler, &storage)?
                    }
                    None if t.dim == Dim::Buffer => {
                        let view = self.dummy_texel_view(t.sampled)?;
                        self.sampled_view(
                            CALL,
                            *st,
                            t.slot,
                            Some(*t),
                            &view,
                            vk::Sampler::null(),
                            &storage,
                        )?
                    }
                    None => {
                        // As the fixed layouts do: the 1x1 black texture,
                        // whatever the declaration.
                        let (view, sampler) = self.dummy_texture()?;
                        self.sampled_view(CALL, *st, t.slot, None, &view, sampler, &storage)?
                    }
                };
                descs.push(d);
                merge_use(&mut uses, u, pipeline_stage(*st));
            }
        }
        for &slot in &program.stages[4].fbfetch {
            let (d, u) = self.fbfetch_attachment(CALL, slot)?;
            descs.push(d);
            merge_use(&mut uses, u, vk::PipelineStageFlags2::FRAGMENT_SHADER);
        }
        for (u, stage) in &uses {
            self.declare_use(u, *stage);
        }
        self.gfx_descriptors.draws += 1;
        Ok(descs)
    }

    /// The image framebuffer fetch slot `slot` samples: colour buffer
    /// `slot` of the bound framebuffer, in `GENERAL` (as its attachment,
    /// see `draw::update_feedback`), read in the fragment stage. A write
    /// by an earlier draw is made visible by the tracker's barrier, which
    /// ends the rendering instance (what `texture_barrier` asks for
    /// between draws; within one draw, overlapping fragments are not
    /// ordered, as GL's non-coherent framebuffer fetch allows).
    fn fbfetch_attachment(&mut self, call: &str, slot: u32) -> PipeResult<(Desc, Use)> {
        let surface = self
            .bound()
            .framebuffer
            .cbufs
            .get(slot as usize)
            .cloned()
            .flatten()
            .ok_or_else(|| {
                PipeError::invalid(format!(
                    "{call}: the fragment shader fetches colour buffer {slot}, which is not bound"
                ))
            })?;
        let s = crate::view::vk_surface(&surface)?;
        let (_, b) = binding::fbfetch_binding(slot)
            .ok_or_else(|| PipeError::invalid(format!("{call}: fbfetch slot {slot}")))?;
        let layered = crate::draw::framebuffer_layers(&self.bound().framebuffer) > 1;
        let view = crate::view::fetch_view(self.dev(), s, layered)?;
        let d = Desc::Image(
            1,
            b,
            vk::DescriptorType::SAMPLED_IMAGE,
            [vk::DescriptorImageInfo {
                sampler: vk::Sampler::null(),
                image_view: view,
                image_layout: vk::ImageLayout::GENERAL,
            }],
        );
        let u = Use {
            obj: s.obj.clone(),
            image: Some(ImageUse {
                levels: (s.level, s.level),
                layers: (s.first_layer, s.layer_count),
                layout: vk::ImageLayout::GENERAL,
            }),
            access: vk::AccessFlags2::SHADER_SAMPLED_READ,
            write: false,
        };
        Ok((d, u))
    }

    /// Binds the sets of `descs` for `program`, writing new sets only when
    /// they differ from what the command buffer has bound.
    ///
    /// # Safety
    /// `cmd` is recording, with a pipeline of `program` bound.
    pub(crate) unsafe fn bind_gfx_resources(
        &mut self,
        cmd: vk::CommandBuffer,
        program: &GfxProgram,
        descs: &[Desc],
    ) -> PipeResult<()> {
        let layout = program.layout;
        let key: Vec<DescKey> = descs.iter().map(Desc::key).collect();
        let bound = &self.draw_cache.resources;
        let same = bound.layout == layout.layout && bound.key == key;
        if same && bound.bound {
            return Ok(());
        }
        let sets = if same {
            bound.sets
        } else {
            let mut sets = [vk::DescriptorSet::null(); 4];
            for ((set, dsl), used) in sets.iter_mut().zip(layout.sets).zip(layout.used).skip(1) {
                if used {
                    *set = self.batches.alloc_set(dsl)?;
                }
            }
            let writes: SmallVec<[vk::WriteDescriptorSet; 8]> =
                descs.iter().map(|d| d.write(sets[d.set()])).collect();
            // SAFETY: the sets were just allocated for the layout's set
            // layouts, whose bindings match `descs` by construction; the
            // views and buffers are live and tracked by the batch.
            unsafe { self.dev().raw().update_descriptor_sets(&writes, &[]) };
            self.descriptor_updates += 1;
            sets
        };
        let raw = self.dev().raw().clone();
        for (i, set) in sets.iter().enumerate().skip(1) {
            if layout.used[i] {
                // SAFETY: guaranteed by the caller; the set was allocated
                // for this layout's set `i`.
                unsafe {
                    raw.cmd_bind_descriptor_sets(
                        cmd,
                        vk::PipelineBindPoint::GRAPHICS,
                        layout.layout,
                        i as u32,
                        &[*set],
                        &[],
                    )
                };
            }
        }
        // The fixed layouts' set 1 may be disturbed now.
        self.draw_cache.textures.clear();
        self.draw_cache.resources = BoundResources {
            layout: layout.layout,
            key,
            sets,
            bound: true,
        };
        Ok(())
    }

    /// Declares a [`Use`] at `stage`.
    pub(crate) fn declare_use(&mut self, u: &Use, stage: vk::PipelineStageFlags2) {
        let a = Access::new(stage, u.access);
        match u.image {
            None => self.use_buffer(&u.obj, a, u.write),
            Some(i) => {
                for level in i.levels.0..=i.levels.1 {
                    self.use_image(
                        &u.obj, level, i.layers.0, i.layers.1, a, u.write, i.layout, false,
                    );
                }
            }
        }
    }
}

/// Adds `u` at `stage` to `uses`, merged with a use of the same
/// subresources.
fn merge_use(
    uses: &mut SmallVec<[(Use, vk::PipelineStageFlags2); 8]>,
    u: Use,
    stage: vk::PipelineStageFlags2,
) {
    let same = |e: &Use| Arc::ptr_eq(&e.obj, &u.obj) && e.image == u.image;
    match uses.iter_mut().find(|(e, _)| same(e)) {
        Some((e, s)) => {
            e.access |= u.access;
            e.write |= u.write;
            *s |= stage;
        }
        None => uses.push((u, stage)),
    }
}

/// The Vulkan view type a shader's image declaration needs.
pub(crate) fn expected_view_type(dim: Dim, arrayed: bool) -> Option<vk::ImageViewType> {
    use vk::ImageViewType as V;
    Some(match (dim, arrayed) {
        (Dim::D1, false) => V::TYPE_1D,
        (Dim::D1, true) => V::TYPE_1D_ARRAY,
        (Dim::D2 | Dim::Rect, false) => V::TYPE_2D,
        (Dim::D2 | Dim::Rect, true) => V::TYPE_2D_ARRAY,
        (Dim::D3, false) => V::TYPE_3D,
        (Dim::Cube, false) => V::CUBE,
        (Dim::Cube, true) => V::CUBE_ARRAY,
        _ => return None,
    })
}

/// The view type pipe-vk gives a view of `target` with `layers` layers
/// (as `crate::view` does for sampler views).
pub(crate) fn natural_view_type(target: Target, layers: u32) -> vk::ImageViewType {
    use vk::ImageViewType as V;
    match target {
        Target::Texture1D if layers > 1 => V::TYPE_1D_ARRAY,
        Target::Texture1D => V::TYPE_1D,
        Target::Texture1DArray => V::TYPE_1D_ARRAY,
        Target::Texture3D => V::TYPE_3D,
        Target::TextureCube => V::CUBE,
        Target::TextureCubeArray => V::CUBE_ARRAY,
        Target::Texture2DArray => V::TYPE_2D_ARRAY,
        _ if layers > 1 => V::TYPE_2D_ARRAY,
        _ => V::TYPE_2D,
    }
}

/// Whether a storage image view of `vt` may cover `layers` layers of a
/// resource of `target`.
pub(crate) fn storage_view_ok(vt: vk::ImageViewType, target: Target, layers: u32) -> bool {
    use vk::ImageViewType as V;
    use Target as T;
    match vt {
        V::TYPE_1D => matches!(target, T::Texture1D | T::Texture1DArray) && layers == 1,
        V::TYPE_1D_ARRAY => matches!(target, T::Texture1D | T::Texture1DArray),
        V::TYPE_2D => {
            matches!(target, T::Texture2D | T::TextureRect)
                || (matches!(
                    target,
                    T::Texture2DArray | T::TextureCube | T::TextureCubeArray
                ) && layers == 1)
        }
        V::TYPE_2D_ARRAY => matches!(
            target,
            T::Texture2D
                | T::TextureRect
                | T::Texture2DArray
                | T::TextureCube
                | T::TextureCubeArray
        ),
        V::TYPE_3D => target == T::Texture3D,
        V::CUBE => matches!(target, T::TextureCube | T::TextureCubeArray) && layers == 6,
        V::CUBE_ARRAY => {
            matches!(target, T::TextureCube | T::TextureCubeArray) && layers.is_multiple_of(6)
        }
        _ => false,
    }
}

/// The texel base type of a pipe format.
pub(crate) fn format_base(f: Format) -> BaseType {
    if f.is_pure_sint() {
        BaseType::Int
    } else if f.is_pure_uint() {
        BaseType::Uint
    } else {
        BaseType::Float
    }
}

/// The Vulkan format of a declared storage image format.
pub(crate) fn image_format_vk(f: ImageFormat) -> Option<vk::Format> {
    use vk::Format as V;
    use ImageFormat::*;
    Some(match f {
        Unknown => return None,
        Rgba32f => V::R32G32B32A32_SFLOAT,
        Rgba16f => V::R16G16B16A16_SFLOAT,
        R32f => V::R32_SFLOAT,
        Rgba8 => V::R8G8B8A8_UNORM,
        Rgba8Snorm => V::R8G8B8A8_SNORM,
        Rg32f => V::R32G32_SFLOAT,
        Rg16f => V::R16G16_SFLOAT,
        R16f => V::R16_SFLOAT,
        Rgba16 => V::R16G16B16A16_UNORM,
        Rgb10A2 => V::A2B10G10R10_UNORM_PACK32,
        Rg8 => V::R8G8_UNORM,
        R8 => V::R8_UNORM,
        Rgba32i => V::R32G32B32A32_SINT,
        Rgba16i => V::R16G16B16A16_SINT,
        Rgba8i => V::R8G8B8A8_SINT,
        R32i => V::R32_SINT,
        Rg32i => V::R32G32_SINT,
        Rgba32ui => V::R32G32B32A32_UINT,
        Rgba16ui => V::R16G16B16A16_UINT,
        Rgba8ui => V::R8G8B8A8_UINT,
        R32ui => V::R32_UINT,
        Rg32ui => V::R32G32_UINT,
        R11fG11fB10f => V::B10G11R11_UFLOAT_PACK32,
        Rg16 => V::R16G16_UNORM,
        R16 => V::R16_UNORM,
        Rgba16Snorm => V::R16G16B16A16_SNORM,
        Rg16Snorm => V::R16G16_SNORM,
        Rg8Snorm => V::R8G8_SNORM,
        R16Snorm => V::R16_SNORM,
        R8Snorm => V::R8_SNORM,
        Rg16i => V::R16G16_SINT,
        Rg8i => V::R8G8_SINT,
        R16i => V::R16_SINT,
        R8i => V::R8_SINT,
        Rgb10a2ui => V::A2B10G10R10_UINT_PACK32,
        Rg16ui => V::R16G16_UINT,
        Rg8ui => V::R8G8_UINT,
        R16ui => V::R16_UINT,
        R8ui => V::R8_UINT,
    })
}

/// One descriptor write, with its info.
pub(crate) enum Desc {
    Buffer(
        usize,
        u32,
        vk::DescriptorType,
        [vk::DescriptorBufferInfo; 1],
    ),
    Image(usize, u32, vk::DescriptorType, [vk::DescriptorImageInfo; 1]),
    Texel(usize, u32, vk::DescriptorType, [vk::BufferView; 1]),
}

/// Size of a buffer object.
pub(crate) fn buffer_size(obj: &ResourceObject) -> u64 {
    match obj.raw {
        Raw::Buffer { size, .. } => size,
        Raw::Image(_) => 0,
    }
}

impl VkContext {
    /// A buffer binding (uniform or storage) of `res` at `offset`, `size`
    /// bytes, clamped to the buffer and the device's range limit; the
    /// dummy when it is empty.
    pub(crate) fn buffer_binding(
        &mut self,
        res: Option<(&Resource, u32, u32)>,
        max_range: u32,
    ) -> PipeResult<(Arc<ResourceObject>, vk::DescriptorBufferInfo)> {
        if let Some((r, offset, size)) = res {
            let obj = vk_resource(r)?.obj();
            let total = buffer_size(&obj);
            let offset = u64::from(offset);
            let range = u64::from(size)
                .min(total.saturating_sub(offset))
                .min(u64::from(max_range));
            if let (Some(buffer), true) = (obj.buffer(), range > 0) {
                return Ok((
                    obj,
                    vk::DescriptorBufferInfo {
                        buffer,
                        offset,
                        range,
                    },
                ));
            }
        }
        let obj = self.compute_dummy()?;
        let buffer = obj.buffer().ok_or(PipeError::OutOfMemory)?;
        Ok((
            obj,
            vk::DescriptorBufferInfo {
                buffer,
                offset: 0,
                range: DUMMY_SIZE,
            },
        ))
    }

    /// The descriptor of image slot `slot` of `stage` (declared as `decl`,
    /// `None` for SPIR-V) and the access it implies (for a texture image,
    /// in `GENERAL`: sampled uses of the same image must then be too).
    /// `call` names the pipe call in errors.
    pub(crate) fn storage_image(
        &mut self,
        call: &str,
        stage: ShaderStage,
        slot: u32,
        decl: Option<ImageInfo>,
        img: &ImageView,
    ) -> PipeResult<(Desc, Use)> {
        let dev = self.dev().clone();
        let binding = stage.index() as u32 * binding::MAX_IMAGES + slot;
        let obj = vk_resource(&img.resource)?.obj();
        let write = decl.is_none_or(|d| !d.readonly)
            && (img.access.is_empty() || img.access.contains(ImageAccess::WRITE));
        let access = if write {
            STORAGE_READ_WRITE
        } else {
            vk::AccessFlags2::SHADER_STORAGE_READ
        };
        if let Some(b) = decl.map(|d| d.format.base().unwrap_or(d.sampled)) {
            if format_base(img.format) != b {
                return Err(PipeError::invalid(format!(
                    "{call}: image slot {slot} has format {}, the shader reads {b:?} texels",
                    img.format
                )));
            }
        }
        let vk_format = crate::format::vk_format(img.format).ok_or_else(|| {
            PipeError::unsupported(format!(
                "{call}: image format {} has no native Vulkan format",
                img.format
            ))
        })?;
        if let Some(d) = decl {
            if image_format_vk(d.format).is_some_and(|f| f != vk_format) {
                return Err(PipeError::invalid(format!(
                    "{call}: image slot {slot} has format {}, the shader declares {}",
                    img.format,
                    d.format.name()
                )));
            }
        }
        // SAFETY: the physical device belongs to the instance.
        let props = unsafe {
            dev.instance
                .raw
                .get_physical_device_format_properties(dev.physical.raw, vk_format)
        };
        match img.range {
            ImageViewRange::Buffer { offset, size } => {
                let Some(d) = decl else {
                    return Err(PipeError::unsupported(format!(
                        "{call}: buffer images with SPIR-V passthrough (its default layout \
                         has storage images only)"
                    )));
                };
                if d.dim != Dim::Buffer {
                    return Err(PipeError::invalid(format!(
                        "{call}: image slot {slot} holds a buffer, the shader declares a \
                         texture image"
                    )));
                }
                if obj.buffer().is_none() {
                    return Err(PipeError::invalid(format!(
                        "{call}: buffer image of a texture"
                    )));
                }
                let buffer = obj.texel_view_buffer(
                    call,
                    img.format,
                    vk_format,
                    crate::resource::TexelUse::Storage,
                )?;
                let texel = u64::from(img.format.block_size_bytes().max(1));
                let align = dev
                    .physical
                    .properties
                    .limits
                    .min_texel_buffer_offset_alignment
                    .max(1);
                let offset = u64::from(offset);
                let range =
                    u64::from(size).min(buffer_size(&obj).saturating_sub(offset)) / texel * texel;
                if range == 0 || !offset.is_multiple_of(align) {
                    return Err(PipeError::invalid(format!(
                        "{call}: image slot {slot}: empty or misaligned buffer range"
                    )));
                }
                let vi = vk::BufferViewCreateInfo::default()
                    .buffer(buffer)
                    .format(vk_format)
                    .offset(offset)
                    .range(range);
                // SAFETY: the format supports storage texel buffers, the
                // range lies in the buffer and is aligned.
                let view = unsafe { dev.raw().create_buffer_view(&vi, None) }
                    .map_err(|e| vk_err("vkCreateBufferView", e))?;
                self.compute_state.texel_views.push((view, obj.clone()));
                Ok((
                    Desc::Texel(2, binding, vk::DescriptorType::STORAGE_TEXEL_BUFFER, [view]),
                    Use {
                        obj,
                        image: None,
                        access,
                        write,
                    },
                ))
            }
            ImageViewRange::Texture {
                level,
                first_layer,
                last_layer,
            } => {
                let ii = *obj.image().ok_or_else(|| {
                    PipeError::invalid(format!("{call}: texture image of a buffer"))
                })?;
                let rt = img.resource.desc();
                if !ii.usage.contains(vk::ImageUsageFlags::STORAGE) {
                    return Err(PipeError::invalid(format!(
                        "{call}: image slot {slot}: the resource was not created with \
                         BindFlags::SHADER_IMAGE (or its format has no storage support)"
                    )));
                }
                if !props
                    .optimal_tiling_features
                    .contains(vk::FormatFeatureFlags::STORAGE_IMAGE)
                {
                    return Err(PipeError::unsupported(format!(
                        "{call}: {} cannot be a storage image on this device",
                        img.format
                    )));
                }
                let is3d = rt.target == Target::Texture3D;
                let layers = if is3d {
                    (0, 1)
                } else {
                    (first_layer, last_layer.saturating_sub(first_layer) + 1)
                };
                let vt = match decl {
                    Some(d) => {
                        let vt = expected_view_type(d.dim, d.arrayed).ok_or_else(|| {
                            PipeError::invalid(format!(
                                "{call}: image slot {slot} holds a texture, the shader \
                                 declares a buffer image"
                            ))
                        })?;
                        if d.ms != (rt.samples() > 1) || !storage_view_ok(vt, rt.target, layers.1) {
                            return Err(PipeError::invalid(format!(
                                "{call}: image slot {slot}: a {} view of {} layers does \
                                 not match the shader's {}{}{} image",
                                rt.target.name(),
                                layers.1,
                                d.dim.name(),
                                if d.arrayed { " array" } else { "" },
                                if d.ms { " multisample" } else { "" }
                            )));
                        }
                        vt
                    }
                    None => natural_view_type(rt.target, layers.1),
                };
                let key = crate::view::ViewKey {
                    view_type: vt,
                    format: vk_format,
                    swizzle: [vk::ComponentSwizzle::IDENTITY; 4],
                    aspect: ii.aspect,
                    levels: (level, 1),
                    layers,
                };
                let view = obj.views.get(&obj, key)?;
                Ok((
                    Desc::Image(
                        2,
                        binding,
                        vk::DescriptorType::STORAGE_IMAGE,
                        [vk::DescriptorImageInfo {
                            sampler: vk::Sampler::null(),
                            image_view: view,
                            image_layout: vk::ImageLayout::GENERAL,
                        }],
                    ),
                    Use {
                        obj,
                        image: Some(ImageUse {
                            levels: (level, level),
                            layers,
                            layout: vk::ImageLayout::GENERAL,
                        }),
                        access,
                        write,
                    },
                ))
            }
        }
    }

    /// The descriptor of sampler view slot `slot` of `stage` (declared as
    /// `decl`, `None` for SPIR-V), sampled with `sampler`, and the access
    /// it implies. `storage` lists the objects bound as storage images
    /// (kept in `GENERAL`). `call` names the pipe call in errors.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn sampled_view(
        &mut self,
        call: &str,
        stage: ShaderStage,
        slot: u32,
        decl: Option<TextureInfo>,
        view: &SamplerView,
        sampler: vk::Sampler,
        storage: &[usize],
    ) -> PipeResult<(Desc, Use)> {
        let binding = stage.index() as u32 * binding::MAX_SAMPLER_VIEWS + slot;
        let payload = view.backend_or_err::<crate::view::VkSamplerView>("sampler view")?;
        let obj = payload.obj.clone();
        let t = view.desc().template;
        let rt = view.desc().texture.desc();
        if let Some(d) = decl {
            if format_base(t.format) != d.sampled {
                return Err(PipeError::invalid(format!(
                    "{call}: sampler view slot {slot} has format {}, the shader samples \
                     {:?} texels",
                    t.format, d.sampled
                )));
            }
        }
        let (iv, first_level, last_level, first_layer, last_layer) = match (payload.view, t.range) {
            (crate::view::VkView::Buffer(bv), _) => {
                if decl.is_none() {
                    return Err(PipeError::unsupported(format!(
                        "{call}: buffer textures with SPIR-V passthrough (its default \
                         layout has combined image samplers only)"
                    )));
                }
                if decl.is_some_and(|d| d.dim != Dim::Buffer) {
                    return Err(PipeError::invalid(format!(
                        "{call}: sampler view slot {slot} is a buffer view, the shader \
                         samples a texture"
                    )));
                }
                self.gfx_descriptors.hold_view(view, &obj);
                return Ok((
                    Desc::Texel(1, binding, vk::DescriptorType::UNIFORM_TEXEL_BUFFER, [bv]),
                    Use {
                        obj,
                        image: None,
                        access: vk::AccessFlags2::SHADER_SAMPLED_READ,
                        write: false,
                    },
                ));
            }
            (
                crate::view::VkView::Image(iv),
                ViewRange::Texture {
                    first_level,
                    last_level,
                    first_layer,
                    last_layer,
                },
            ) => (iv, first_level, last_level, first_layer, last_layer),
            (crate::view::VkView::Image(_), ViewRange::Buffer { .. }) => {
                return Err(PipeError::invalid(format!(
                    "{call}: sampler view slot {slot} is inconsistent"
                )))
            }
        };
        let (l0, ln) = if rt.target == Target::Texture3D {
            (0, 1)
        } else {
            (first_layer, last_layer.saturating_sub(first_layer) + 1)
        };
        if let Some(d) = decl {
            let want = expected_view_type(d.dim, d.arrayed).ok_or_else(|| {
                PipeError::invalid(format!(
                    "{call}: sampler view slot {slot} is a texture, the shader samples a \
                     buffer"
                ))
            })?;
            if natural_view_type(t.target, ln) != want || d.ms != (rt.samples() > 1) {
                return Err(PipeError::invalid(format!(
                    "{call}: sampler view slot {slot} ({} of {ln} layers) does not match \
                     the shader's {}{}{} texture",
                    t.target.name(),
                    d.dim.name(),
                    if d.arrayed { " array" } else { "" },
                    if d.ms { " multisample" } else { "" }
                )));
            }
        }
        let layout = if storage.contains(&(Arc::as_ptr(&obj) as usize)) {
            vk::ImageLayout::GENERAL
        } else {
            vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL
        };
        Ok((
            Desc::Image(
                1,
                binding,
                vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
                [vk::DescriptorImageInfo {
                    sampler,
                    image_view: iv,
                    image_layout: layout,
                }],
            ),
            Use {
                obj,
                image: Some(ImageUse {
                    levels: (first_level, last_level),
                    layers: (l0, ln),
                    layout,
                }),
                access: vk::AccessFlags2::SHADER_SAMPLED_READ,
                write: false,
            },
        ))
    }
}
