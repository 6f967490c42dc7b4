//! Compute: `launch_grid` and global bindings.
//!
//! Design (Zink's `zink_launch_grid`, simplified):
//!
//! - **Interface.** The first launch of a compute CSO derives its
//!   [`Interface`] (which Gallium slots of each class it uses, with the
//!   shader's view types, its push constant size, local size and shared
//!   memory) from the spirv-gen IR. A SPIR-V passthrough module gets the
//!   default interface ([`SLOTS`] slots of every class, sampled images and
//!   storage images, no buffer textures); only its `LocalSize` execution
//!   mode and its use of push constants are read from the words.
//! - **Layouts.** Descriptor sets follow spirv-gen's binding model for the
//!   compute stage (stage index 5): set 0 uniform buffers at
//!   `5 * 16 + slot`, set 1 sampler views at `5 * 32 + slot` (combined image
//!   samplers, or uniform texel buffers for buffer textures), set 2 images at
//!   `5 * 32 + slot` (storage images, or storage texel buffers for buffer
//!   images), set 3 shader buffers at `5 * 32 + slot`. Because one binding
//!   has one descriptor type, a layout is built per *interface signature*
//!   (the list of (binding, type) of each set) and shared by every CSO
//!   with that signature. Slots `0..SLOTS` of each class are supported; a
//!   shader using more is `Unsupported` when its CSO is created. The push
//!   constant range is the graphics layout's (every stage, the driver
//!   block's size), so compute and graphics layouts stay compatible for
//!   push constants; compute pushes zeros when its shader reads them (the
//!   driver block has no compute fields).
//! - **Pipelines** are cached per (CSO id, variable shared memory) and
//!   created with `DISPATCH_BASE` (for `grid_base`). spirv-gen sizes shared
//!   memory from the shader's own declarations, so the variable amount only
//!   takes part in the limit check (and in the key, for when the emitter
//!   can size a shared block at pipeline creation). A dying CSO's pipelines
//!   go through `batches.defer_destroy_pipeline`; its modules are destroyed
//!   at once (pipelines do not reference modules).
//! - **Descriptors** are written into sets allocated per launch from the
//!   batch's pools (`Batches::alloc_set`), which live until the batch
//!   retires. Unbound uniform and shader buffers get a zeroed dummy buffer;
//!   an unbound texture or image that an IR shader declares is an
//!   `InvalidArgument` (there is no dummy of every dimension and type).
//!   Buffer images get `VkBufferView`s created per launch; they are
//!   destroyed once their buffer is idle (no unflushed use, last use
//!   completed), which implies the batch that used them has retired.
//! - **Synchronization.** Every access is declared before the dispatch
//!   with stage `COMPUTE_SHADER`: `UNIFORM_READ` for uniform buffers,
//!   `SHADER_SAMPLED_READ` for sampler views (layout
//!   `SHADER_READ_ONLY_OPTIMAL`, or `GENERAL` when the same image is also
//!   bound as a storage image), `SHADER_STORAGE_READ` (+ `WRITE` when the
//!   writable mask or image access says so) for shader buffers and images
//!   (layout `GENERAL`); the indirect buffer is read at `DRAW_INDIRECT`
//!   with `INDIRECT_COMMAND_READ`. The tracker turns conflicts into one
//!   barrier before the dispatch.
//! - **Block size.** A shader with a fixed `local_size` must be launched
//!   with that block (`InvalidArgument` otherwise). A `local_size=variable`
//!   shader (GL's `ARB_compute_variable_group_size`) gets a module and
//!   pipeline per block size, its IR specialized by
//!   `spirv_gen::passes::specialize_workgroup_size` (Zink uses
//!   specialization constants instead); the block is checked against the
//!   device's limits. Partial last blocks (`last_block`) and INPUT memory
//!   are `Unsupported`.
//! - **Global bindings** are buffer device addresses: with
//!   `bufferDeviceAddress`, every buffer has `SHADER_DEVICE_ADDRESS` usage
//!   and gpu-allocator allocates with the device-address flag, so
//!   `set_global_binding` returns `vkGetBufferDeviceAddress` (shaders reach
//!   it with spirv-gen's `load_global`/`store_global`). Every bound buffer
//!   counts as read and written by each dispatch; one whose storage was
//!   renamed since binding is refused at launch (its address changed).

use std::sync::Arc;

use ash::vk;
use hashbrown::HashMap;
use pipe_core::resource::BindFlags;
use pipe_core::shader::{ComputeState, GridInfo, ShaderCode, ShaderState, StreamOutputInfo};
use pipe_core::state::ShaderStage;
use pipe_core::{PipeError, PipeResult, Resource};
use smallvec::SmallVec;
use spirv_gen::binding;
use spirv_gen::ir::{Dim, ImageInfo, TextureInfo, VarKind};
use spirv_gen::passes::VariantKey;

use crate::context::VkContext;
use crate::descriptors::{buffer_size, Desc};
use crate::instance::vk_err;
use crate::memory::DeviceShared;
use crate::resource::{vk_resource, ResourceObject};
use crate::sync::Access;

/// Slots of each class (uniform buffers, sampler views, images, shader
/// buffers) that compute shaders may use.
pub const SLOTS: u32 = 8;

/// The compute stage's index in the binding model.
const STAGE: u32 = 5;

/// Global binding slots (`set_global_binding`).
const MAX_GLOBAL_BINDINGS: usize = 64;

const S: vk::PipelineStageFlags2 = vk::PipelineStageFlags2::COMPUTE_SHADER;
const UNIFORM_READ: Access = Access::new(S, vk::AccessFlags2::UNIFORM_READ);
const STORAGE_READ: Access = Access::new(S, vk::AccessFlags2::SHADER_STORAGE_READ);
const STORAGE_READ_WRITE: Access = Access::new(
    S,
    vk::AccessFlags2::from_raw(
        vk::AccessFlags2::SHADER_STORAGE_READ.as_raw()
            | vk::AccessFlags2::SHADER_STORAGE_WRITE.as_raw(),
    ),
);
const INDIRECT_READ: Access = Access::new(
    vk::PipelineStageFlags2::DRAW_INDIRECT,
    vk::AccessFlags2::INDIRECT_COMMAND_READ,
);

/// Size of the zeroed buffer bound to unbound buffer slots.
pub(crate) const DUMMY_SIZE: u64 = 256;

/// What a compute shader uses, by Gallium slot.
#[derive(Clone, Debug, Default)]
pub struct Interface {
    pub ubos: SmallVec<[u32; 8]>,
    /// Sampler views; `None` info for SPIR-V (a sampled image).
    pub textures: SmallVec<[(u32, Option<TextureInfo>); 8]>,
    /// Images; `None` info for SPIR-V (a storage image).
    pub images: SmallVec<[(u32, Option<ImageInfo>); 8]>,
    pub ssbos: SmallVec<[u32; 8]>,
    /// Bytes of push constants the shader reads (0: none).
    pub push: u32,
    /// The workgroup size the shader declares, when known.
    pub local_size: Option<[u32; 3]>,
    /// The workgroup size is the dispatch's block (`local_size=variable`).
    pub variable_block: bool,
    /// Shared memory the shader declares, in bytes (0 when unknown).
    pub shared: u32,
}

/// Bindings of one layout: per set, (binding, type), sorted.
type LayoutKey = [SmallVec<[(u32, vk::DescriptorType); 8]>; 4];

impl Interface {
    fn layout_key(&self) -> LayoutKey {
        let mut k: LayoutKey = Default::default();
        for &s in &self.ubos {
            k[0].push((
                STAGE * binding::MAX_CONSTANT_BUFFERS + s,
                vk::DescriptorType::UNIFORM_BUFFER,
            ));
        }
        for (s, t) in &self.textures {
            let ty = match t {
                Some(t) if t.dim == Dim::Buffer => vk::DescriptorType::UNIFORM_TEXEL_BUFFER,
                _ => vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
            };
            k[1].push((STAGE * binding::MAX_SAMPLER_VIEWS + s, ty));
        }
        for (s, i) in &self.images {
            let ty = match i {
                Some(i) if i.dim == Dim::Buffer => vk::DescriptorType::STORAGE_TEXEL_BUFFER,
                _ => vk::DescriptorType::STORAGE_IMAGE,
            };
            k[2].push((STAGE * binding::MAX_IMAGES + s, ty));
        }
        for &s in &self.ssbos {
            k[3].push((
                STAGE * binding::MAX_SHADER_BUFFERS + s,
                vk::DescriptorType::STORAGE_BUFFER,
            ));
        }
        for set in &mut k {
            set.sort_unstable_by_key(|(b, _)| *b);
        }
        k
    }
}

/// A pipeline layout of the compute binding model.
#[derive(Clone, Copy, Debug)]
struct Layout {
    sets: [vk::DescriptorSetLayout; 4],
    /// Which sets have bindings (the others are never bound).
    used: [bool; 4],
    layout: vk::PipelineLayout,
}

/// A compute CSO's derived data.
struct Program {
    iface: Interface,
    layout: Layout,
}

/// Compute pipelines, their layouts and per-launch objects of a context.
#[derive(Default)]
pub struct ComputeCache {
    modules: crate::shader::ModuleCache,
    programs: HashMap<u32, Arc<Program>>,
    layouts: HashMap<LayoutKey, Layout>,
    /// Per (CSO id, variable shared memory, block size of a variable-size
    /// shader or zeros).
    pipelines: HashMap<(u32, u32, [u32; 3]), vk::Pipeline>,
    /// Buffer views of buffer images, with the buffer they view; destroyed
    /// when the buffer is idle.
    pub(crate) texel_views: Vec<(vk::BufferView, Arc<ResourceObject>)>,
    dummy: Option<Arc<ResourceObject>>,
    /// `set_global_binding`: per slot, the resource and the storage whose
    /// address was returned (held, so that its memory and address stay
    /// valid, and are not reused by another buffer, while bound).
    globals: Vec<Option<(Resource, Arc<ResourceObject>)>>,
    /// Sampler for sampler views bound without a sampler state.
    default_sampler: Option<vk::Sampler>,
    /// Launches recorded and pipelines created (for tests and stats).
    pub launches: u64,
    pub pipelines_created: u64,
}

impl ComputeCache {
    /// Destroys everything (the context waited for its batches).
    pub fn destroy(&mut self, device: &ash::Device) {
        self.modules.destroy(device);
        self.programs.clear();
        // SAFETY (for the block): the context's batches finished, so no
        // command buffer uses these objects any more.
        unsafe {
            for (_, p) in self.pipelines.drain() {
                device.destroy_pipeline(p, None);
            }
            for (_, l) in self.layouts.drain() {
                device.destroy_pipeline_layout(l.layout, None);
                for s in l.sets {
                    device.destroy_descriptor_set_layout(s, None);
                }
            }
            for (v, _) in self.texel_views.drain(..) {
                device.destroy_buffer_view(v, None);
            }
            if let Some(s) = self.default_sampler.take() {
                device.destroy_sampler(s, None);
            }
        }
        self.dummy = None;
    }

    /// Destroys the buffer views whose buffer no batch uses any more.
    pub(crate) fn collect_texel_views(&mut self, device: &ash::Device) {
        self.texel_views.retain(|(v, obj)| {
            if obj.busy_for_cpu_write() {
                return true;
            }
            // SAFETY: the buffer has no unflushed use and its last use
            // completed, so the batch that used the view has finished.
            unsafe { device.destroy_buffer_view(*v, None) };
            false
        });
    }

    /// The layout for `key`, created on first use.
    fn layout(&mut self, dev: &DeviceShared, key: LayoutKey, push_size: u32) -> PipeResult<Layout> {
        if let Some(l) = self.layouts.get(&key) {
            return Ok(*l);
        }
        let raw = dev.raw();
        let mut sets = [vk::DescriptorSetLayout::null(); 4];
        let mut used = [false; 4];
        let mut made = Vec::new();
        let cleanup = |made: &[vk::DescriptorSetLayout]| {
            for s in made {
                // SAFETY: just created, never used.
                unsafe { raw.destroy_descriptor_set_layout(*s, None) };
            }
        };
        for (i, set) in key.iter().enumerate() {
            let bindings: SmallVec<[vk::DescriptorSetLayoutBinding; 8]> = set
                .iter()
                .map(|&(b, ty)| {
                    vk::DescriptorSetLayoutBinding::default()
                        .binding(b)
                        .descriptor_type(ty)
                        .descriptor_count(1)
                        .stage_flags(vk::ShaderStageFlags::COMPUTE)
                })
                .collect();
            used[i] = !bindings.is_empty();
            let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
            // SAFETY: distinct bindings of core descriptor types.
            match unsafe { raw.create_descriptor_set_layout(&info, None) } {
                Ok(s) => {
                    sets[i] = s;
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
            size: push_size,
        }];
        let mut info = vk::PipelineLayoutCreateInfo::default().set_layouts(&sets);
        if push_size > 0 {
            info = info.push_constant_ranges(&ranges);
        }
        // SAFETY: the set layouts were just created.
        let layout = match unsafe { raw.create_pipeline_layout(&info, None) } {
            Ok(l) => l,
            Err(e) => {
                cleanup(&made);
                return Err(vk_err("vkCreatePipelineLayout", e));
            }
        };
        let l = Layout { sets, used, layout };
        self.layouts.insert(key, l);
        Ok(l)
    }
}

/// The compute CSO as a shader template (for `crate::shader`).
fn shader_state(state: &ComputeState) -> ShaderState {
    ShaderState {
        stage: ShaderStage::Compute,
        code: state.code.clone(),
        stream_output: StreamOutputInfo::default(),
    }
}

/// Size of the driver's push constant block on `dev` (as the graphics
/// layout computes it).
fn push_size(dev: &DeviceShared) -> u32 {
    binding::push::SIZE.min(dev.physical.properties.limits.max_push_constants_size) & !3
}

/// Checks a compute CSO when it is created: the IR validates and is a
/// compute shader, its slots, push constants and image types are within
/// what pipe-vk binds, its shared memory within the device limit.
pub(crate) fn check_state(dev: &DeviceShared, state: &ComputeState) -> PipeResult<()> {
    crate::shader::check_template(&shader_state(state))?;
    let iface = interface(dev, state, push_size(dev))?;
    let limit = dev
        .physical
        .properties
        .limits
        .max_compute_shared_memory_size;
    let total = u64::from(iface.shared) + u64::from(state.static_shared_mem);
    if total > u64::from(limit) {
        return Err(PipeError::invalid(format!(
            "create_compute_state: {total} bytes of shared memory exceed the device's {limit}"
        )));
    }
    Ok(())
}

fn unsupported<T>(what: impl std::fmt::Display) -> PipeResult<T> {
    Err(PipeError::unsupported(format!(
        "compute shader: {what} (pipe-vk binds slots 0..{SLOTS} of each class)"
    )))
}

/// Derives the interface of a compute CSO.
fn interface(dev: &DeviceShared, state: &ComputeState, push_limit: u32) -> PipeResult<Interface> {
    let iface = match &state.code {
        ShaderCode::Ir(any) => {
            let ir = any
                .downcast_ref::<crate::shader::Ir>()
                .ok_or_else(|| PipeError::invalid("compute shader: not spirv-gen IR"))?;
            ir_interface(ir)?
        }
        ShaderCode::SpirV { words, entry_point } => {
            spirv_interface(words, entry_point, push_limit)?
        }
    };
    if iface.push > push_limit {
        return Err(PipeError::unsupported(format!(
            "compute shader: {} bytes of push constants (the driver block has {push_limit})",
            iface.push
        )));
    }
    crate::shader::check_device_features(dev, "compute shader", &state.code)?;
    // Features the emitted capabilities need.
    let decls = iface
        .images
        .iter()
        .filter_map(|(s, im)| im.map(|im| (*s, im)));
    crate::descriptors::check_image_features(dev, "compute shader", decls)?;
    crate::descriptors::check_stage_limits(
        dev,
        "compute shader",
        [
            iface.ubos.len(),
            iface.textures.len(),
            iface.images.len(),
            iface.ssbos.len(),
        ],
    )?;
    Ok(iface)
}

/// The interface of a spirv-gen compute shader.
fn ir_interface(ir: &crate::shader::Ir) -> PipeResult<Interface> {
    let mut i = Interface {
        local_size: (!ir.info.local_size_variable)
            .then_some(ir.info.local_size)
            .flatten(),
        variable_block: ir.info.local_size_variable,
        ..Default::default()
    };
    for v in &ir.vars {
        match &v.kind {
            VarKind::Ubo { slot, .. } => {
                if *slot >= SLOTS {
                    return unsupported(format!("uniform buffer slot {slot}"));
                }
                if !i.ubos.contains(slot) {
                    i.ubos.push(*slot);
                }
            }
            VarKind::Ssbo { slot, .. } => {
                if *slot >= SLOTS {
                    return unsupported(format!("shader buffer slot {slot}"));
                }
                if !i.ssbos.contains(slot) {
                    i.ssbos.push(*slot);
                }
            }
            VarKind::Texture(t) => {
                if t.slot >= SLOTS {
                    return unsupported(format!("sampler view slot {}", t.slot));
                }
                match i.textures.iter().find(|(s, _)| *s == t.slot) {
                    None => i.textures.push((t.slot, Some(*t))),
                    Some((_, Some(o))) if (o.dim == Dim::Buffer) != (t.dim == Dim::Buffer) => {
                        return Err(PipeError::invalid(format!(
                            "compute shader: sampler view slot {} declared both as a buffer \
                             texture and as an image texture",
                            t.slot
                        )))
                    }
                    Some(_) => {}
                }
            }
            VarKind::Image(im) => {
                if im.slot >= SLOTS {
                    return unsupported(format!("image slot {}", im.slot));
                }
                match i.images.iter().find(|(s, _)| *s == im.slot) {
                    None => i.images.push((im.slot, Some(*im))),
                    Some((_, Some(o))) if (o.dim == Dim::Buffer) != (im.dim == Dim::Buffer) => {
                        return Err(PipeError::invalid(format!(
                            "compute shader: image slot {} declared both as a buffer image \
                             and as a texture image",
                            im.slot
                        )))
                    }
                    Some(_) => {}
                }
            }
            VarKind::Push { size } => i.push = i.push.max(*size),
            VarKind::Shared => {
                let comps = match v.ty.comps {
                    3 => 4,
                    c => u32::from(c),
                };
                let elem = comps * v.ty.storage_bits() / 8;
                let bytes = u64::from(elem) * u64::from(v.array.unwrap_or(1));
                i.shared = i
                    .shared
                    .saturating_add(u32::try_from(bytes).unwrap_or(u32::MAX));
            }
            _ => {}
        }
    }
    Ok(i)
}

/// The default interface of a SPIR-V module, with its `LocalSize` (for the
/// GLCompute entry point `entry`) and push constant use read from the
/// words.
fn spirv_interface(words: &[u32], entry: &str, push_limit: u32) -> PipeResult<Interface> {
    let bad = |m: &str| PipeError::invalid(format!("compute shader: SPIR-V {m}"));
    let mut entry_id = None;
    let mut sizes: SmallVec<[(u32, [u32; 3]); 2]> = SmallVec::new();
    let mut push = false;
    let mut builtin_size = false;
    let mut pos = 5usize;
    while pos < words.len() {
        let w = words[pos];
        let (count, op) = ((w >> 16) as usize, w & 0xffff);
        if count == 0 || pos + count > words.len() {
            return Err(bad("module is truncated or has a zero-length instruction"));
        }
        let ops = &words[pos + 1..pos + count];
        match (op, ops) {
            // OpEntryPoint GLCompute %id "name"
            (15, [5, id, name @ ..]) => {
                let bytes: Vec<u8> = name
                    .iter()
                    .flat_map(|w| w.to_le_bytes())
                    .take_while(|b| *b != 0)
                    .collect();
                if bytes == entry.as_bytes() {
                    entry_id = Some(*id);
                }
            }
            // OpExecutionMode %id LocalSize x y z
            (16, [id, 17, x, y, z, ..]) => sizes.push((*id, [*x, *y, *z])),
            // OpDecorate %c BuiltIn WorkgroupSize
            (71, [_, 11, 25, ..]) => builtin_size = true,
            // OpVariable %t %v PushConstant
            (59, [_, _, 9, ..]) => push = true,
            _ => {}
        }
        pos += count;
    }
    let id =
        entry_id.ok_or_else(|| bad(&format!("module has no GLCompute entry point {entry:?}")))?;
    let local_size = if builtin_size {
        None
    } else {
        sizes.iter().find(|(e, _)| *e == id).map(|(_, s)| *s)
    };
    Ok(Interface {
        ubos: (0..SLOTS).collect(),
        textures: (0..SLOTS).map(|s| (s, None)).collect(),
        images: (0..SLOTS).map(|s| (s, None)).collect(),
        ssbos: (0..SLOTS).collect(),
        push: if push { push_limit } else { 0 },
        local_size,
        // SPIR-V passthrough: the frontend's own module, with its own
        // (spec-constant) sizing if any; pipe-vk specializes nothing.
        variable_block: false,
        shared: 0,
    })
}

impl VkContext {
    /// The compute CSO's derived data, computed on first use.
    fn compute_program(&mut self, id: u32, state: &ComputeState) -> PipeResult<Arc<Program>> {
        if let Some(p) = self.compute_state.programs.get(&id) {
            return Ok(p.clone());
        }
        let dev = self.dev().clone();
        let push = self.pipelines.layout.push_size;
        let iface = interface(&dev, state, push)?;
        let layout = self.compute_state.layout(&dev, iface.layout_key(), push)?;
        let p = Arc::new(Program { iface, layout });
        self.compute_state.programs.insert(id, p.clone());
        Ok(p)
    }

    /// The pipeline of compute CSO `id` for `shared` bytes of variable
    /// shared memory and, for a variable-size shader, workgroup size
    /// `block` (a module variant per size: the IR is specialized, where
    /// Zink uses specialization constants).
    fn compute_pipeline(
        &mut self,
        id: u32,
        shared: u32,
        block: Option<[u32; 3]>,
        state: &ComputeState,
        program: &Program,
    ) -> PipeResult<vk::Pipeline> {
        let dev = self.dev().clone();
        let key = (id, shared, block.unwrap_or([0; 3]));
        if let Some(p) = self.compute_state.pipelines.get(&key) {
            dev.disk_cache().count(false);
            return Ok(*p);
        }
        let variant = VariantKey {
            workgroup_size: block,
            ..VariantKey::default()
        };
        let module = self
            .compute_state
            .modules
            .get(&dev, id, &shader_state(state), &variant)?;
        // `crate::shader::compile` names every module's entry point
        // `main` (a SPIR-V module's own name reached the pipeline before,
        // which the module no longer had: lavapipe crashed).
        let entry = c"main";
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(entry);
        let info = vk::ComputePipelineCreateInfo::default()
            .flags(vk::PipelineCreateFlags::DISPATCH_BASE)
            .stage(stage)
            .layout(program.layout.layout);
        // SAFETY: a live module whose bindings the layout was derived from
        // (or, for SPIR-V passthrough, promised by the frontend).
        let p = unsafe {
            dev.raw()
                .create_compute_pipelines(dev.disk_cache().cache, &[info], None)
        }
        .map_err(|(_, e)| vk_err("vkCreateComputePipelines", e))?[0];
        dev.disk_cache().count(true);
        self.compute_state.pipelines_created += 1;
        self.compute_state.pipelines.insert(key, p);
        Ok(p)
    }

    /// Forgets compute CSO `id` (its last reference died): its pipelines
    /// are destroyed when the current batch retires, its modules now.
    pub(crate) fn retire_compute(&mut self, id: u32) {
        let cache = &mut self.compute_state;
        cache.programs.remove(&id);
        let keys: SmallVec<[(u32, u32, [u32; 3]); 4]> = cache
            .pipelines
            .keys()
            .filter(|k| k.0 == id)
            .copied()
            .collect();
        let mut dead = SmallVec::<[vk::Pipeline; 4]>::new();
        for k in keys {
            if let Some(p) = cache.pipelines.remove(&k) {
                dead.push(p);
            }
        }
        let modules = cache.modules.take(id);
        for p in dead {
            self.batches.defer_destroy_pipeline(p);
        }
        let dev = self.dev().clone();
        for m in modules {
            // SAFETY: pipelines do not reference their modules after
            // creation.
            unsafe { dev.raw().destroy_shader_module(m, None) };
        }
    }

    /// A zeroed buffer for unbound buffer slots.
    pub(crate) fn compute_dummy(&mut self) -> PipeResult<Arc<ResourceObject>> {
        if let Some(d) = &self.compute_state.dummy {
            return Ok(d.clone());
        }
        let dev = self.dev().clone();
        let obj = crate::resource::create_buffer_object(
            &dev,
            DUMMY_SIZE,
            BindFlags::SHADER_BUFFER | BindFlags::CONSTANT_BUFFER,
            gpu_allocator::MemoryLocation::GpuOnly,
            "compute dummy buffer",
        )?;
        let buf = obj.buffer().ok_or(PipeError::OutOfMemory)?;
        self.use_buffer(&obj, crate::sync::access::FILL_WRITE, true);
        let cmd = self.cmd();
        // SAFETY: recording; the whole buffer.
        unsafe { dev.raw().cmd_fill_buffer(cmd, buf, 0, DUMMY_SIZE, 0) };
        self.compute_state.dummy = Some(obj.clone());
        Ok(obj)
    }

    /// The `VkSampler` for compute sampler slot `slot`.
    fn compute_sampler(&mut self, slot: u32) -> PipeResult<vk::Sampler> {
        let h = self.bound().samplers[ShaderStage::Compute.index()]
            .get(slot as usize)
            .copied()
            .flatten();
        let dev = self.dev().clone();
        match h {
            Some(h) => {
                if let Some(s) = self.vk_samplers.get(&h.id()) {
                    return Ok(*s);
                }
                let state = *self.sampler_table().get(h)?;
                let s = crate::sampler::create(&dev, &state)?;
                self.vk_samplers.insert(h.id(), s);
                Ok(s)
            }
            None => {
                if let Some(s) = self.compute_state.default_sampler {
                    return Ok(s);
                }
                let s = crate::sampler::create(&dev, &Default::default())?;
                self.compute_state.default_sampler = Some(s);
                Ok(s)
            }
        }
    }

    /// Checks the grid and the indirect buffer; returns the indirect
    /// buffer object, if any.
    fn compute_grid(
        &self,
        info: &GridInfo,
        limits: &vk::PhysicalDeviceLimits,
    ) -> PipeResult<Option<Arc<ResourceObject>>> {
        let Some(r) = &info.indirect else {
            for i in 0..3 {
                let max = limits.max_compute_work_group_count[i];
                if u64::from(info.grid_base[i]) + u64::from(info.grid[i]) > u64::from(max) {
                    return Err(PipeError::invalid(format!(
                        "launch_grid: grid_base {:?} + grid {:?} exceeds the device's {:?}",
                        info.grid_base, info.grid, limits.max_compute_work_group_count
                    )));
                }
            }
            return Ok(None);
        };
        if info.grid_base != [0; 3] {
            return Err(PipeError::unsupported(
                "launch_grid: grid_base with an indirect dispatch (Vulkan's \
                 vkCmdDispatchIndirect has no base)",
            ));
        }
        let obj = vk_resource(r)?.obj();
        let end = u64::from(info.indirect_offset) + 12;
        if obj.buffer().is_none() || end > buffer_size(&obj) {
            return Err(PipeError::invalid(
                "launch_grid: the indirect buffer is too small for 12 bytes at the offset",
            ));
        }
        if !info.indirect_offset.is_multiple_of(4) {
            return Err(PipeError::invalid(
                "launch_grid: indirect offset not 4-byte aligned",
            ));
        }
        Ok(Some(obj))
    }

    /// Declares the uniform and shader buffers of `iface` and adds their
    /// descriptors.
    fn compute_buffers(
        &mut self,
        iface: &Interface,
        limits: &vk::PhysicalDeviceLimits,
        descs: &mut Vec<Desc>,
    ) -> PipeResult<()> {
        let cs = ShaderStage::Compute.index();
        for &slot in &iface.ubos {
            let b = self.ubos[cs].get(slot as usize).cloned().flatten();
            let (obj, bi) = self.buffer_binding(
                b.as_ref().map(|b| (&b.resource, b.offset, b.size)),
                limits.max_uniform_buffer_range,
            )?;
            self.use_buffer(&obj, UNIFORM_READ, false);
            descs.push(Desc::Buffer(
                0,
                STAGE * binding::MAX_CONSTANT_BUFFERS + slot,
                vk::DescriptorType::UNIFORM_BUFFER,
                [bi],
            ));
        }
        let writable = self.shader_buffers_writable[cs];
        for &slot in &iface.ssbos {
            let b = self.shader_buffers[cs]
                .get(slot as usize)
                .cloned()
                .flatten();
            let (obj, bi) = self.buffer_binding(
                b.as_ref()
                    .map(|b| (&b.buffer, b.buffer_offset, b.buffer_size)),
                limits.max_storage_buffer_range,
            )?;
            // The dummy is declared written: the shader may store to it.
            let write = b.is_none() || writable & (1 << slot) != 0;
            let access = if write {
                STORAGE_READ_WRITE
            } else {
                STORAGE_READ
            };
            self.use_buffer(&obj, access, write);
            descs.push(Desc::Buffer(
                3,
                STAGE * binding::MAX_SHADER_BUFFERS + slot,
                vk::DescriptorType::STORAGE_BUFFER,
                [bi],
            ));
        }
        Ok(())
    }

    pub(crate) fn do_launch_grid(&mut self, info: &GridInfo) -> PipeResult<()> {
        // Queries resume outside rendering instances, where dispatches are.
        self.end_rendering();
        self.resume_queries()?;
        // Compute push constants share the command buffer's push-constant
        // storage with draws: make the next draw push its block again.
        self.draw_cache.push.clear();
        let dev = self.dev().clone();
        self.compute_state.collect_texel_views(dev.raw());
        self.gfx_descriptors.collect_held_views();
        let h = self
            .bound()
            .compute
            .ok_or_else(|| PipeError::invalid("launch_grid: no compute state bound"))?;
        let state = self.compute_table().get(h)?.clone();
        if !info.input.is_empty() || state.req_input_mem > 0 {
            return Err(PipeError::unsupported(
                "launch_grid: INPUT memory (req_input_mem) is not supported by pipe-vk",
            ));
        }
        let program = self.compute_program(h.id(), &state)?;
        let iface = &program.iface;
        let limits = dev.physical.properties.limits;
        let variable_block = if iface.variable_block {
            let b = info.block;
            let max = limits.max_compute_work_group_size;
            let threads = u64::from(b[0]) * u64::from(b[1]) * u64::from(b[2]);
            if b.contains(&0)
                || (0..3).any(|i| b[i] > max[i])
                || threads > u64::from(limits.max_compute_work_group_invocations)
            {
                return Err(PipeError::invalid(format!(
                    "launch_grid: block {b:?} is outside the device's limits ({max:?}, {} \
                     threads)",
                    limits.max_compute_work_group_invocations
                )));
            }
            Some(b)
        } else {
            if let Some(ls) = iface.local_size {
                if ls != info.block {
                    return Err(PipeError::invalid(format!(
                        "launch_grid: block {:?} differs from the shader's fixed local_size \
                         {ls:?}",
                        info.block
                    )));
                }
            }
            None
        };
        if info.last_block != [0; 3] && info.last_block != info.block {
            return Err(PipeError::unsupported(
                "launch_grid: partial last blocks (last_block) are not supported by pipe-vk",
            ));
        }
        let limits = dev.physical.properties.limits;
        let shared = u64::from(iface.shared)
            + u64::from(state.static_shared_mem)
            + u64::from(info.variable_shared_mem);
        if shared > u64::from(limits.max_compute_shared_memory_size) {
            return Err(PipeError::invalid(format!(
                "launch_grid: {shared} bytes of shared memory exceed the device's {}",
                limits.max_compute_shared_memory_size
            )));
        }
        let indirect = self.compute_grid(info, &limits)?;
        if indirect.is_none() && info.grid.contains(&0) {
            return Ok(());
        }
        let pipeline = self.compute_pipeline(
            h.id(),
            info.variable_shared_mem,
            variable_block,
            &state,
            &program,
        )?;

        // Declare every access and gather the descriptors. Images go
        // before textures: an image that is also sampled stays in GENERAL.
        let cs = ShaderStage::Compute.index();
        let mut descs: Vec<Desc> = Vec::new();
        self.compute_buffers(iface, &limits, &mut descs)?;
        self.declare_globals()?;
        let mut storage: SmallVec<[usize; 8]> = SmallVec::new();
        for &(slot, decl) in &iface.images {
            match self.shader_images[cs].get(slot as usize).cloned().flatten() {
                Some(img) => {
                    let (d, u) =
                        self.storage_image("launch_grid", ShaderStage::Compute, slot, decl, &img)?;
                    if u.image.is_some() {
                        storage.push(Arc::as_ptr(&u.obj) as usize);
                    }
                    self.declare_use(&u, S);
                    descs.push(d);
                }
                None if decl.is_some() => {
                    return Err(PipeError::invalid(format!(
                        "launch_grid: the compute shader uses image slot {slot}, which has no \
                         image bound"
                    )))
                }
                None => {}
            }
        }
        for &(slot, decl) in &iface.textures {
            match self.views[cs].get(slot as usize).cloned().flatten() {
                Some(view) => {
                    let sampler = self.compute_sampler(slot)?;
                    let (d, u) = self.sampled_view(
                        "launch_grid",
                        ShaderStage::Compute,
                        slot,
                        decl,
                        &view,
                        sampler,
                        &storage,
                    )?;
                    self.declare_use(&u, S);
                    descs.push(d);
                }
                None if decl.is_some() => {
                    return Err(PipeError::invalid(format!(
                        "launch_grid: the compute shader samples slot {slot}, which has no \
                         sampler view bound"
                    )))
                }
                None => {}
            }
        }
        if let Some(obj) = &indirect {
            self.use_buffer(obj, INDIRECT_READ, false);
        }
        self.record_dispatch(info, pipeline, &program, &descs, indirect.as_deref())?;
        self.compute_state.launches += 1;
        Ok(())
    }

    /// Writes the descriptors, binds and dispatches (barriers are emitted
    /// first by `cmd()`).
    fn record_dispatch(
        &mut self,
        info: &GridInfo,
        pipeline: vk::Pipeline,
        program: &Program,
        descs: &[Desc],
        indirect: Option<&ResourceObject>,
    ) -> PipeResult<()> {
        let cmd = self.cmd();
        let layout = program.layout;
        let mut sets = [vk::DescriptorSet::null(); 4];
        for (set, (&dsl, &used)) in sets.iter_mut().zip(layout.sets.iter().zip(&layout.used)) {
            if used {
                *set = self.batches.alloc_set(dsl)?;
            }
        }
        let writes: Vec<vk::WriteDescriptorSet> = descs
            .iter()
            .map(|d| match d {
                Desc::Buffer(s, b, ty, bi) => vk::WriteDescriptorSet::default()
                    .dst_set(sets[*s])
                    .dst_binding(*b)
                    .descriptor_type(*ty)
                    .buffer_info(bi),
                Desc::Image(s, b, ty, ii) => vk::WriteDescriptorSet::default()
                    .dst_set(sets[*s])
                    .dst_binding(*b)
                    .descriptor_type(*ty)
                    .image_info(ii),
                Desc::Texel(s, b, ty, tv) => vk::WriteDescriptorSet::default()
                    .dst_set(sets[*s])
                    .dst_binding(*b)
                    .descriptor_type(*ty)
                    .texel_buffer_view(tv),
            })
            .collect();
        let indirect_buf = match indirect {
            Some(obj) => Some(obj.buffer().ok_or(PipeError::OutOfMemory)?),
            None => None,
        };
        let dev = self.dev().clone();
        let raw = dev.raw();
        let push = vec![0u8; program.iface.push as usize];
        // SAFETY (for the block): recording outside any rendering instance
        // (`cmd()` ended it); the sets were allocated from this device's
        // pools for the layout's set layouts and are written with live
        // views and buffers that the batch tracks; the pipeline was built
        // with this layout (and DISPATCH_BASE); the grid and the indirect
        // range were checked against the limits and the buffer.
        unsafe {
            if !writes.is_empty() {
                raw.update_descriptor_sets(&writes, &[]);
            }
            raw.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, pipeline);
            for (i, set) in sets.iter().enumerate() {
                if layout.used[i] {
                    raw.cmd_bind_descriptor_sets(
                        cmd,
                        vk::PipelineBindPoint::COMPUTE,
                        layout.layout,
                        i as u32,
                        &[*set],
                        &[],
                    );
                }
            }
            if !push.is_empty() {
                raw.cmd_push_constants(cmd, layout.layout, vk::ShaderStageFlags::ALL, 0, &push);
            }
            match indirect_buf {
                Some(buf) => raw.cmd_dispatch_indirect(cmd, buf, u64::from(info.indirect_offset)),
                None if info.grid_base == [0; 3] => {
                    raw.cmd_dispatch(cmd, info.grid[0], info.grid[1], info.grid[2])
                }
                None => raw.cmd_dispatch_base(
                    cmd,
                    info.grid_base[0],
                    info.grid_base[1],
                    info.grid_base[2],
                    info.grid[0],
                    info.grid[1],
                    info.grid[2],
                ),
            }
        }
        Ok(())
    }

    /// `set_global_binding`: binds buffers for global memory access and
    /// returns their buffer device addresses (0 for `None`, which unbinds).
    pub(crate) fn do_set_global_binding(
        &mut self,
        first: u32,
        resources: &[Option<Resource>],
    ) -> PipeResult<Vec<u64>> {
        if self.dev().device.features.v12.buffer_device_address != vk::TRUE {
            return Err(PipeError::unsupported(
                "set_global_binding: the device has no bufferDeviceAddress",
            ));
        }
        let end = first as usize + resources.len();
        if end > MAX_GLOBAL_BINDINGS {
            return Err(PipeError::invalid(format!(
                "set_global_binding: slots {first}..{end} (pipe-vk has {MAX_GLOBAL_BINDINGS})"
            )));
        }
        let mut bound = Vec::with_capacity(resources.len());
        let mut addresses = Vec::with_capacity(resources.len());
        for r in resources {
            match r {
                None => {
                    bound.push(None);
                    addresses.push(0);
                }
                Some(r) => {
                    let obj = vk_resource(r)?.obj();
                    let buffer = obj.buffer().ok_or_else(|| {
                        PipeError::invalid("set_global_binding: a texture is not a buffer")
                    })?;
                    let info = vk::BufferDeviceAddressInfo::default().buffer(buffer);
                    // SAFETY: a live buffer created with SHADER_DEVICE_ADDRESS
                    // usage (every buffer has it when the feature is on) and
                    // bound to memory allocated with the device-address flag.
                    let a = unsafe { self.dev().raw().get_buffer_device_address(&info) };
                    bound.push(Some((r.clone(), obj)));
                    addresses.push(a);
                }
            }
        }
        let g = &mut self.compute_state.globals;
        if g.len() < end {
            g.resize(end, None);
        }
        for (i, b) in bound.into_iter().enumerate() {
            g[first as usize + i] = b;
        }
        Ok(addresses)
    }

    /// Declares every global binding as read and written by the next
    /// dispatch (a shader may reach any of them through an address). A
    /// buffer whose storage was renamed since it was bound
    /// (`DISCARD_WHOLE_RESOURCE`) has a new address: refused, the frontend
    /// must bind it again.
    fn declare_globals(&mut self) -> PipeResult<()> {
        let globals: SmallVec<[(Resource, Arc<ResourceObject>); 4]> = self
            .compute_state
            .globals
            .iter()
            .flatten()
            .cloned()
            .collect();
        for (r, bound) in globals {
            let obj = vk_resource(&r)?.obj();
            if !Arc::ptr_eq(&obj, &bound) {
                return Err(PipeError::invalid(
                    "launch_grid: a global binding's storage was replaced (a discarding map) \
                     after set_global_binding; bind it again for its new address",
                ));
            }
            self.use_buffer(&obj, STORAGE_READ_WRITE, true);
        }
        Ok(())
    }
}
