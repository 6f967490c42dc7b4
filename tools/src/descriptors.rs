//! `pipe-bench descriptors`: what one descriptor change per draw costs
//! with each Vulkan descriptor strategy, on raw Vulkan (ash), so that
//! pipe-vk's choice (issue 7: "Descriptors: choose a strategy (push
//! descriptors, update templates or descriptor buffers) and justify it")
//! rests on a figure measured on the device rather than on folklore.
//!
//! # What is measured
//!
//! Two scenarios, each a loop of draws that changes **one** binding
//! between consecutive draws (state A on even draws, state B on odd ones):
//!
//! - **UBO change**: one `UNIFORM_BUFFER` (16 B) read by the fragment
//!   shader, alternating between two `VkBuffer`s;
//! - **texture change**: one `COMBINED_IMAGE_SAMPLER`, alternating between
//!   two 4x4 RGBA8 textures (one NEAREST sampler).
//!
//! The set and binding numbers are spirv-gen's binding model
//! ([`spirv_gen::binding`], as pipe-vk lays out its sets): fragment UBO
//! slot 0 is set 0, binding 64; fragment sampler view 0 is set 1, binding
//! 128 (set 0 is then an empty layout). The strategies (not every one
//! exists for textures):
//!
//! | key | per draw |
//! |---|---|
//! | `baseline` | nothing but `vkCmdDraw`: one set bound once (the floor) |
//! | `push` | `vkCmdPushDescriptorSetKHR` |
//! | `push_template` | `vkCmdPushDescriptorSetWithTemplateKHR` |
//! | `sets` | `vkAllocateDescriptorSets` from a pool, `vkUpdateDescriptorSets`, `vkCmdBindDescriptorSets` (pipe-vk's per-draw texture path); the pool is reset after the wait |
//! | `sets_template` | as `sets`, with `vkUpdateDescriptorSetWithTemplate` |
//! | `sets_prealloc` | `vkUpdateDescriptorSets` + `vkCmdBindDescriptorSets` of a set allocated before timing (allocation cost excluded) |
//! | `sets_cached` | `vkCmdBindDescriptorSets` only: one set per state, written before timing (Zink's descriptor caching, when every lookup hits) |
//! | `dynamic_offset` | UBO only: `vkCmdBindDescriptorSets` of one `UNIFORM_BUFFER_DYNAMIC` set with the other dynamic offset (both states live in one buffer) |
//! | `descriptor_buffer` | `VK_EXT_descriptor_buffer`: `vkGetDescriptorEXT` into the next slot of a host-visible descriptor buffer, `vkCmdSetDescriptorBufferOffsetsEXT` |
//! | `descriptor_buffer_cached` | `vkCmdSetDescriptorBufferOffsetsEXT` only: the two descriptors were written before timing (what caching descriptors per resource gives) |
//!
//! A strategy the device lacks (no `VK_KHR_push_descriptor`, no
//! `descriptorBuffer` or `bufferDeviceAddress`) is reported as skipped,
//! with the reason.
//!
//! # How
//!
//! Every draw is `vkCmdDraw(3 vertices, 1 instance)` into a 1x1 RGBA8
//! target with dynamic rendering; there are no vertex buffers: the vertex
//! shader makes a full-screen triangle from `gl_VertexIndex` and scales it
//! by `gl_InstanceIndex`, and every draw but the last two uses
//! `firstInstance` 0, so its three vertices are all (0, 0) and the
//! triangle is degenerate: what is measured is the per-draw CPU cost of
//! recording and of the driver. One repetition, timed as a whole, is:
//! begin the command buffer, record `--draws` draws in one rendering
//! instance (plus a copy of the target to a readback buffer), submit, wait
//! for the fence, then recycle what the next batch would (reset the
//! command pool, and for `sets`/`sets_template` the descriptor pool): the
//! cost of a batch in steady state, as pipe-vk pays it. k draws/s = draws
//! / time / 1000. Repetitions are interleaved across strategies (one
//! repetition of each, then the next), so every strategy sees the same
//! machine conditions; the first round is an untimed warm-up. The
//! reported figure is the **median** of the timed repetitions, and the
//! ratio is against the same scenario's `baseline` in the same run.
//!
//! # Correctness
//!
//! A broken path must not report a figure: the last two draws are not
//! degenerate (`firstInstance` 1) and the pipeline adds their colours
//! (blend ONE + ONE onto a cleared target). The fragment shader outputs
//! the UBO's value or the texel, so the target ends as A + B (or A + A
//! for `baseline`) only if both bindings reached the draws they were
//! meant for; the pixel is read back after every repetition and compared
//! with the sum computed here. A mismatch or any Vulkan error marks the
//! strategy FAILED and the command exits 1. Validation-layer messages
//! (`--validation`; pipe-vk's messenger records them) also fail the run.
//!
//! # Bounds
//!
//! Lavapipe backs every pushed descriptor set and every allocated set
//! with a memory mapping until the command buffer or pool is reset, and
//! crashes past `vm.max_map_count` (about 65k); pipe-vk flushes a batch
//! after 16384 descriptor updates for that reason. The default batch is
//! that size, `--draws` is capped at [`MAX_DRAWS`], and sets allocated
//! for `sets_prealloc` are freed after each repetition.

use std::ffi::c_void;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

use ash::vk;
use pipe_vk::device;
use pipe_vk::instance::Instance;
use spirv_gen::binding::{binding_for, DescClass};
use spirv_gen::emit::Target;
use spirv_gen::ir::Stage;
use spirv_gen::passes::VariantKey;

use crate::json_str;

/// Draws per repetition: pipe-vk's `MAX_DESCRIPTOR_UPDATES_PER_BATCH`.
pub const DEFAULT_DRAWS: u32 = 16_384;
/// Most draws per repetition (see the module doc's "Bounds").
pub const MAX_DRAWS: u32 = 32_768;
/// Timed repetitions per strategy.
pub const DEFAULT_REPETITIONS: u32 = 7;

/// State A and state B, as RGBA8 UNORM bytes: the UBO holds them as
/// floats (byte / 255), the textures as texels.
const COLOR_A: [u8; 4] = [64, 128, 0, 64];
const COLOR_B: [u8; 4] = [128, 0, 64, 128];
/// Size of each UBO range the shader reads (one vec4).
const UBO_RANGE: u64 = 16;
/// Width and height of the two textures.
const TEX_SIZE: u32 = 4;
const TARGET_FORMAT: vk::Format = vk::Format::R8G8B8A8_UNORM;

/// Full-screen triangle from `gl_VertexIndex` (-1,-1), (3,-1), (-1,3),
/// scaled by `gl_InstanceIndex`: instance 0 is degenerate at (0, 0).
const VS: &str = "shader vertex
in @vid : i32 builtin=vertex_index
in @iid : i32 builtin=instance_index
out @gl_pos : f32x4 builtin=position
fn main {
  %0 : i32 = load @vid
  %1 : i32 = load @iid
  %2 : i32 = const 1
  %3 : i32 = const 4
  %4 : i32 = iand %0, %2
  %5 : i32 = ishr %0, %2
  %6 : i32 = imul %4, %3
  %7 : i32 = imul %5, %3
  %8 : i32 = isub %6, %2
  %9 : i32 = isub %7, %2
  %10 : i32 = imul %8, %1
  %11 : i32 = imul %9, %1
  %12 : f32 = i2f %10
  %13 : f32 = i2f %11
  %14 : f32 = const 0.0
  %15 : f32 = const 1.0
  %16 : f32x4 = vec %12, %13, %14, %15
  store @gl_pos, %16
}
";

/// Outputs the first vec4 of fragment UBO slot 0.
const FS_UBO: &str = "shader fragment
out @frag : f32x4 location=0
ubo @u slot=0 size=16
fn main {
  %0 : u32 = const 0
  %1 : f32x4 = load_ubo @u, %0
  store @frag, %1
}
";

/// Outputs the texel at the centre of fragment sampler view 0.
const FS_TEX: &str = "shader fragment
out @frag : f32x4 location=0
texture @t slot=0 dim=2d sampled=float
fn main {
  %0 : f32x2 = const 0.5, 0.5
  %1 : f32x4 = tex @t, coord=%0
  store @frag, %1
}
";

/// What `pipe-bench descriptors` was asked to do.
pub struct Config {
    /// Device selector (index or name substring); `None`: `PIPE_VK_DEVICE`.
    pub device: Option<String>,
    /// Khronos validation layer (timings become meaningless).
    pub validation: bool,
    /// Draws per repetition (even, 2..=[`MAX_DRAWS`]).
    pub draws: u32,
    /// Timed repetitions (after one untimed warm-up round).
    pub repetitions: u32,
}

/// The binding that changes between draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scenario {
    Ubo,
    Texture,
}

impl Scenario {
    pub const ALL: [Scenario; 2] = [Scenario::Ubo, Scenario::Texture];

    pub fn key(self) -> &'static str {
        match self {
            Scenario::Ubo => "ubo",
            Scenario::Texture => "texture",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Scenario::Ubo => "UBO change: one UNIFORM_BUFFER (16 B) switched between two buffers",
            Scenario::Texture => {
                "texture change: one COMBINED_IMAGE_SAMPLER switched between two 4x4 RGBA8 textures"
            }
        }
    }

    /// The strategies measured for this scenario, in report order.
    pub fn strategies(self) -> &'static [Strategy] {
        use Strategy::*;
        match self {
            Scenario::Ubo => &[
                Baseline,
                Push,
                PushTemplate,
                Sets,
                SetsTemplate,
                SetsPrealloc,
                SetsCached,
                DynamicOffset,
                DescriptorBuffer,
                DescriptorBufferCached,
            ],
            // No dynamic descriptor type exists for images.
            Scenario::Texture => &[
                Baseline,
                Push,
                PushTemplate,
                Sets,
                SetsTemplate,
                SetsPrealloc,
                SetsCached,
                DescriptorBuffer,
                DescriptorBufferCached,
            ],
        }
    }

    fn class(self) -> DescClass {
        match self {
            Scenario::Ubo => DescClass::Ubo,
            Scenario::Texture => DescClass::SamplerView,
        }
    }

    fn ty(self) -> vk::DescriptorType {
        match self {
            Scenario::Ubo => vk::DescriptorType::UNIFORM_BUFFER,
            Scenario::Texture => vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
        }
    }

    fn fs(self) -> &'static str {
        match self {
            Scenario::Ubo => FS_UBO,
            Scenario::Texture => FS_TEX,
        }
    }
}

/// A way to change the binding between two draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    Baseline,
    Push,
    PushTemplate,
    Sets,
    SetsTemplate,
    SetsPrealloc,
    SetsCached,
    DynamicOffset,
    DescriptorBuffer,
    DescriptorBufferCached,
}

impl Strategy {
    pub fn key(self) -> &'static str {
        match self {
            Strategy::Baseline => "baseline",
            Strategy::Push => "push",
            Strategy::PushTemplate => "push_template",
            Strategy::Sets => "sets",
            Strategy::SetsTemplate => "sets_template",
            Strategy::SetsPrealloc => "sets_prealloc",
            Strategy::SetsCached => "sets_cached",
            Strategy::DynamicOffset => "dynamic_offset",
            Strategy::DescriptorBuffer => "descriptor_buffer",
            Strategy::DescriptorBufferCached => "descriptor_buffer_cached",
        }
    }

    /// The commands recorded per draw besides `vkCmdDraw`.
    pub fn per_draw(self) -> &'static str {
        match self {
            Strategy::Baseline => "nothing (one set bound once)",
            Strategy::Push => "vkCmdPushDescriptorSetKHR",
            Strategy::PushTemplate => "vkCmdPushDescriptorSetWithTemplateKHR",
            Strategy::Sets => "vkAllocateDescriptorSets + vkUpdateDescriptorSets + vkCmdBindDescriptorSets",
            Strategy::SetsTemplate => {
                "vkAllocateDescriptorSets + vkUpdateDescriptorSetWithTemplate + vkCmdBindDescriptorSets"
            }
            Strategy::SetsPrealloc => {
                "vkUpdateDescriptorSets + vkCmdBindDescriptorSets (sets allocated untimed)"
            }
            Strategy::SetsCached => "vkCmdBindDescriptorSets of the state's set (written untimed)",
            Strategy::DynamicOffset => "vkCmdBindDescriptorSets with the other dynamic offset",
            Strategy::DescriptorBuffer => "vkGetDescriptorEXT + vkCmdSetDescriptorBufferOffsetsEXT",
            Strategy::DescriptorBufferCached => {
                "vkCmdSetDescriptorBufferOffsetsEXT (descriptors written untimed)"
            }
        }
    }

    fn layout_kind(self) -> LayoutKind {
        match self {
            Strategy::Baseline
            | Strategy::Sets
            | Strategy::SetsTemplate
            | Strategy::SetsPrealloc
            | Strategy::SetsCached => LayoutKind::Plain,
            Strategy::Push | Strategy::PushTemplate => LayoutKind::Push,
            Strategy::DynamicOffset => LayoutKind::Dynamic,
            Strategy::DescriptorBuffer | Strategy::DescriptorBufferCached => {
                LayoutKind::DescriptorBuffer
            }
        }
    }
}

/// What became of one strategy of one scenario.
pub enum Outcome {
    /// k draws/s of each timed repetition.
    Measured(Vec<f64>),
    /// The device lacks what the strategy needs.
    Skipped(String),
    /// A Vulkan error or a wrong read-back: no figure.
    Failed(String),
}

pub struct StrategyResult {
    pub scenario: Scenario,
    pub strategy: Strategy,
    pub outcome: Outcome,
}

pub struct Report {
    pub device: String,
    pub driver: String,
    pub draws: u32,
    pub repetitions: u32,
    pub lp_num_threads: Option<String>,
    pub validation: bool,
    pub results: Vec<StrategyResult>,
    /// Messages the validation layer (or the driver) reported.
    pub messages: Vec<String>,
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

fn vkr(what: &'static str) -> impl Fn(vk::Result) -> String {
    move |e| format!("{what}: {e:?}")
}

fn align_up(v: u64, a: u64) -> u64 {
    v.div_ceil(a.max(1)) * a.max(1)
}

/// Every Vulkan object the benchmark creates, destroyed in reverse order
/// of creation when the [`Gpu`] goes.
enum Obj {
    Buffer(vk::Buffer),
    Memory(vk::DeviceMemory),
    Image(vk::Image),
    View(vk::ImageView),
    Sampler(vk::Sampler),
    Module(vk::ShaderModule),
    SetLayout(vk::DescriptorSetLayout),
    PipelineLayout(vk::PipelineLayout),
    Pipeline(vk::Pipeline),
    Pool(vk::DescriptorPool),
    Template(vk::DescriptorUpdateTemplate),
    CommandPool(vk::CommandPool),
    Fence(vk::Fence),
}

/// A host-visible, persistently mapped buffer with its own memory.
#[derive(Clone, Copy)]
struct Buf {
    buffer: vk::Buffer,
    ptr: *mut u8,
    size: u64,
    /// Device address (0 without `bufferDeviceAddress`).
    address: vk::DeviceAddress,
}

struct DescBufExt {
    loader: ash::ext::descriptor_buffer::Device,
    offset_alignment: u64,
    uniform_buffer_size: usize,
    combined_image_sampler_size: usize,
}

/// The instance, device and everything created on it.
struct Gpu {
    device: ash::Device,
    queue: vk::Queue,
    name: String,
    driver: String,
    push: Result<ash::khr::push_descriptor::Device, String>,
    descbuf: Result<DescBufExt, String>,
    /// `bufferDeviceAddress` is on (only when descriptor buffers are).
    bda: bool,
    memory: vk::PhysicalDeviceMemoryProperties,
    min_ubo_alignment: u64,
    objs: Vec<Obj>,
    cmd_pool: vk::CommandPool,
    cmd: vk::CommandBuffer,
    fence: vk::Fence,
    /// Last field: dropped after `Drop::drop` has destroyed the device.
    _instance: Instance,
}

impl Drop for Gpu {
    fn drop(&mut self) {
        let d = &self.device;
        // SAFETY: after the idle wait no command that uses the objects is
        // pending; each object was created on this device, is destroyed
        // once, children (in reverse creation order) before what they were
        // made from, and the device last.
        unsafe {
            let _ = d.device_wait_idle();
            for o in self.objs.drain(..).rev() {
                match o {
                    Obj::Buffer(x) => d.destroy_buffer(x, None),
                    Obj::Memory(x) => d.free_memory(x, None),
                    Obj::Image(x) => d.destroy_image(x, None),
                    Obj::View(x) => d.destroy_image_view(x, None),
                    Obj::Sampler(x) => d.destroy_sampler(x, None),
                    Obj::Module(x) => d.destroy_shader_module(x, None),
                    Obj::SetLayout(x) => d.destroy_descriptor_set_layout(x, None),
                    Obj::PipelineLayout(x) => d.destroy_pipeline_layout(x, None),
                    Obj::Pipeline(x) => d.destroy_pipeline(x, None),
                    Obj::Pool(x) => d.destroy_descriptor_pool(x, None),
                    Obj::Template(x) => d.destroy_descriptor_update_template(x, None),
                    Obj::CommandPool(x) => d.destroy_command_pool(x, None),
                    Obj::Fence(x) => d.destroy_fence(x, None),
                }
            }
            d.destroy_device(None);
        }
    }
}

impl Gpu {
    fn new(cfg: &Config) -> Result<Gpu, String> {
        let instance = Instance::new(cfg.validation).map_err(|e| format!("instance: {e}"))?;
        let selector = cfg
            .device
            .clone()
            .or_else(|| std::env::var("PIPE_VK_DEVICE").ok());
        let devices = device::enumerate(&instance).map_err(|e| e.to_string())?;
        let pd = device::select(devices, selector.as_deref()).map_err(|e| e.to_string())?;
        let name = pd.name();
        if pd.properties.api_version < vk::API_VERSION_1_3 {
            return Err(format!(
                "{name} supports Vulkan {:?}; the benchmark needs 1.3 (dynamic rendering, synchronization2)",
                pd.api_version()
            ));
        }
        let has_push = pd.has_extension(ash::khr::push_descriptor::NAME);
        let has_db = pd.has_extension(ash::ext::descriptor_buffer::NAME);

        let mut v12 = vk::PhysicalDeviceVulkan12Features::default();
        let mut v13 = vk::PhysicalDeviceVulkan13Features::default();
        let mut dbf = vk::PhysicalDeviceDescriptorBufferFeaturesEXT::default();
        {
            let mut f2 = vk::PhysicalDeviceFeatures2::default()
                .push_next(&mut v12)
                .push_next(&mut v13);
            if has_db {
                f2 = f2.push_next(&mut dbf);
            }
            // SAFETY: the chain holds 1.2/1.3 structs of a 1.3 device and
            // the descriptor-buffer struct only when it has the extension.
            unsafe { instance.raw.get_physical_device_features2(pd.raw, &mut f2) };
        }
        if v13.dynamic_rendering != vk::TRUE || v13.synchronization2 != vk::TRUE {
            return Err(format!("{name} lacks dynamicRendering or synchronization2"));
        }
        let descbuf_why = if !has_db {
            Some("VK_EXT_descriptor_buffer not supported")
        } else if dbf.descriptor_buffer != vk::TRUE {
            Some("descriptorBuffer feature not supported")
        } else if v12.buffer_device_address != vk::TRUE {
            Some("bufferDeviceAddress feature not supported")
        } else {
            None
        };
        let use_db = descbuf_why.is_none();

        let mut exts = Vec::new();
        if has_push {
            exts.push(ash::khr::push_descriptor::NAME.as_ptr());
        }
        if use_db {
            exts.push(ash::ext::descriptor_buffer::NAME.as_ptr());
        }
        let mut e12 = vk::PhysicalDeviceVulkan12Features::default().buffer_device_address(use_db);
        let mut e13 = vk::PhysicalDeviceVulkan13Features::default()
            .dynamic_rendering(true)
            .synchronization2(true);
        let mut edb =
            vk::PhysicalDeviceDescriptorBufferFeaturesEXT::default().descriptor_buffer(true);
        let priorities = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(pd.queue_family)
            .queue_priorities(&priorities)];
        let mut info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&exts)
            .push_next(&mut e12)
            .push_next(&mut e13);
        if use_db {
            info = info.push_next(&mut edb);
        }
        // SAFETY: every extension and feature enabled was reported by the
        // device; the pointers in `info` outlive the call.
        let device = unsafe { instance.raw.create_device(pd.raw, &info, None) }
            .map_err(vkr("vkCreateDevice"))?;
        // SAFETY: family `queue_family`, index 0 was requested above.
        let queue = unsafe { device.get_device_queue(pd.queue_family, 0) };
        // SAFETY: the physical device belongs to this instance.
        let memory = unsafe { instance.raw.get_physical_device_memory_properties(pd.raw) };
        let push = if has_push {
            Ok(ash::khr::push_descriptor::Device::new(
                &instance.raw,
                &device,
            ))
        } else {
            Err("VK_KHR_push_descriptor not supported".to_string())
        };
        let descbuf = match descbuf_why {
            Some(why) => Err(why.to_string()),
            None => {
                let mut p = vk::PhysicalDeviceDescriptorBufferPropertiesEXT::default();
                let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut p);
                // SAFETY: the device has the extension, so it knows the
                // chained struct.
                unsafe {
                    instance
                        .raw
                        .get_physical_device_properties2(pd.raw, &mut p2)
                };
                Ok(DescBufExt {
                    loader: ash::ext::descriptor_buffer::Device::new(&instance.raw, &device),
                    offset_alignment: p.descriptor_buffer_offset_alignment,
                    uniform_buffer_size: p.uniform_buffer_descriptor_size,
                    combined_image_sampler_size: p.combined_image_sampler_descriptor_size,
                })
            }
        };
        let mut gpu = Gpu {
            device,
            queue,
            name,
            driver: format!("{} {}", pd.driver_name, pd.driver_info),
            push,
            descbuf,
            bda: use_db,
            memory,
            min_ubo_alignment: pd.properties.limits.min_uniform_buffer_offset_alignment,
            objs: Vec::new(),
            cmd_pool: vk::CommandPool::null(),
            cmd: vk::CommandBuffer::null(),
            fence: vk::Fence::null(),
            _instance: instance,
        };
        let pool_info = vk::CommandPoolCreateInfo::default().queue_family_index(pd.queue_family);
        // SAFETY: a valid create info for this device.
        gpu.cmd_pool = unsafe { gpu.device.create_command_pool(&pool_info, None) }
            .map_err(vkr("vkCreateCommandPool"))?;
        gpu.objs.push(Obj::CommandPool(gpu.cmd_pool));
        let alloc = vk::CommandBufferAllocateInfo::default()
            .command_pool(gpu.cmd_pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: the pool was created just above.
        gpu.cmd = unsafe { gpu.device.allocate_command_buffers(&alloc) }
            .map_err(vkr("vkAllocateCommandBuffers"))?[0];
        // SAFETY: a valid create info.
        gpu.fence = unsafe {
            gpu.device
                .create_fence(&vk::FenceCreateInfo::default(), None)
        }
        .map_err(vkr("vkCreateFence"))?;
        gpu.objs.push(Obj::Fence(gpu.fence));
        Ok(gpu)
    }

    fn memory_type(&self, bits: u32, want: vk::MemoryPropertyFlags) -> Option<u32> {
        (0..self.memory.memory_type_count).find(|&i| {
            bits & (1 << i) != 0
                && self.memory.memory_types[i as usize]
                    .property_flags
                    .contains(want)
        })
    }

    /// Allocates memory for `reqs` (host-visible and coherent when
    /// `host`), with the device-address flag when that feature is on.
    fn allocate(
        &mut self,
        reqs: vk::MemoryRequirements,
        host: bool,
    ) -> Result<vk::DeviceMemory, String> {
        let ty = if host {
            self.memory_type(
                reqs.memory_type_bits,
                vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
            )
        } else {
            self.memory_type(reqs.memory_type_bits, vk::MemoryPropertyFlags::DEVICE_LOCAL)
                .or_else(|| {
                    self.memory_type(reqs.memory_type_bits, vk::MemoryPropertyFlags::empty())
                })
        }
        .ok_or("no suitable memory type")?;
        let mut flags =
            vk::MemoryAllocateFlagsInfo::default().flags(vk::MemoryAllocateFlags::DEVICE_ADDRESS);
        let mut info = vk::MemoryAllocateInfo::default()
            .allocation_size(reqs.size)
            .memory_type_index(ty);
        if self.bda && host {
            info = info.push_next(&mut flags);
        }
        // SAFETY: a valid allocate info; the type index is in range.
        let mem =
            unsafe { self.device.allocate_memory(&info, None) }.map_err(vkr("vkAllocateMemory"))?;
        self.objs.push(Obj::Memory(mem));
        Ok(mem)
    }

    /// A host-visible buffer of `size` bytes, mapped.
    fn buffer(&mut self, size: u64, usage: vk::BufferUsageFlags) -> Result<Buf, String> {
        let usage = if self.bda {
            usage | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS
        } else {
            usage
        };
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: a valid create info; the usage flags' features are on.
        let buffer =
            unsafe { self.device.create_buffer(&info, None) }.map_err(vkr("vkCreateBuffer"))?;
        // SAFETY: the buffer was just created.
        let reqs = unsafe { self.device.get_buffer_memory_requirements(buffer) };
        let mem = match self.allocate(reqs, true) {
            Ok(m) => m,
            Err(e) => {
                // SAFETY: unused and not tracked yet.
                unsafe { self.device.destroy_buffer(buffer, None) };
                return Err(e);
            }
        };
        // Tracked after its memory, so destroyed before it.
        self.objs.push(Obj::Buffer(buffer));
        // SAFETY: fresh buffer and memory of a compatible type and size;
        // the memory is host-visible and mapped once, for its lifetime.
        let ptr = unsafe {
            self.device
                .bind_buffer_memory(buffer, mem, 0)
                .map_err(vkr("vkBindBufferMemory"))?;
            self.device
                .map_memory(mem, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .map_err(vkr("vkMapMemory"))?
        };
        let address = if self.bda {
            // SAFETY: the buffer has SHADER_DEVICE_ADDRESS usage and is bound
            // to memory allocated with the DEVICE_ADDRESS flag.
            unsafe {
                self.device.get_buffer_device_address(
                    &vk::BufferDeviceAddressInfo::default().buffer(buffer),
                )
            }
        } else {
            0
        };
        Ok(Buf {
            buffer,
            ptr: ptr.cast(),
            size,
            address,
        })
    }

    /// A single-level 2D RGBA8 image in its own device memory, with a
    /// view.
    fn image(
        &mut self,
        size: u32,
        usage: vk::ImageUsageFlags,
    ) -> Result<(vk::Image, vk::ImageView), String> {
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(TARGET_FORMAT)
            .extent(vk::Extent3D {
                width: size,
                height: size,
                depth: 1,
            })
            .mip_levels(1)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        // SAFETY: RGBA8 UNORM optimal-tiling images with these usages are
        // required to be supported by every device.
        let image =
            unsafe { self.device.create_image(&info, None) }.map_err(vkr("vkCreateImage"))?;
        // SAFETY: the image was just created.
        let reqs = unsafe { self.device.get_image_memory_requirements(image) };
        let mem = match self.allocate(reqs, false) {
            Ok(m) => m,
            Err(e) => {
                // SAFETY: unused and not tracked yet.
                unsafe { self.device.destroy_image(image, None) };
                return Err(e);
            }
        };
        self.objs.push(Obj::Image(image));
        // SAFETY: fresh image and memory of a compatible type and size.
        unsafe { self.device.bind_image_memory(image, mem, 0) }
            .map_err(vkr("vkBindImageMemory"))?;
        let view_info = vk::ImageViewCreateInfo::default()
            .image(image)
            .view_type(vk::ImageViewType::TYPE_2D)
            .format(TARGET_FORMAT)
            .subresource_range(color_range());
        // SAFETY: the image is bound and the range is its only subresource.
        let view = unsafe { self.device.create_image_view(&view_info, None) }
            .map_err(vkr("vkCreateImageView"))?;
        self.objs.push(Obj::View(view));
        Ok((image, view))
    }

    fn shader(&mut self, src: &str) -> Result<vk::ShaderModule, String> {
        let words = spirv_gen::compile(src, &VariantKey::default(), Target::Vulkan1_1)
            .map_err(|e| format!("benchmark shader: {e}"))?;
        let info = vk::ShaderModuleCreateInfo::default().code(&words);
        // SAFETY: the words are SPIR-V from spirv-gen's emitter.
        let m = unsafe { self.device.create_shader_module(&info, None) }
            .map_err(vkr("vkCreateShaderModule"))?;
        self.objs.push(Obj::Module(m));
        Ok(m)
    }

    fn pool(
        &mut self,
        max_sets: u32,
        ty: vk::DescriptorType,
    ) -> Result<vk::DescriptorPool, String> {
        let sizes = [vk::DescriptorPoolSize {
            ty,
            descriptor_count: max_sets,
        }];
        let info = vk::DescriptorPoolCreateInfo::default()
            .max_sets(max_sets)
            .pool_sizes(&sizes);
        // SAFETY: a valid create info.
        let p = unsafe { self.device.create_descriptor_pool(&info, None) }
            .map_err(vkr("vkCreateDescriptorPool"))?;
        self.objs.push(Obj::Pool(p));
        Ok(p)
    }

    fn alloc_sets(
        &self,
        pool: vk::DescriptorPool,
        layout: vk::DescriptorSetLayout,
        n: usize,
    ) -> Result<Vec<vk::DescriptorSet>, String> {
        let layouts = vec![layout; n];
        let info = vk::DescriptorSetAllocateInfo::default()
            .descriptor_pool(pool)
            .set_layouts(&layouts);
        // SAFETY: pool and layout belong to this device; the pool was
        // sized for the sets the caller allocates from it.
        unsafe { self.device.allocate_descriptor_sets(&info) }
            .map_err(vkr("vkAllocateDescriptorSets"))
    }

    /// Records `body` into the command buffer, submits it and waits.
    fn one_shot(&self, body: impl FnOnce(vk::CommandBuffer)) -> Result<(), String> {
        let cmd = self.cmd;
        // SAFETY: the command buffer is idle (every submission is waited
        // for) and recorded by this thread only.
        unsafe {
            self.device
                .begin_command_buffer(cmd, &vk::CommandBufferBeginInfo::default())
                .map_err(vkr("vkBeginCommandBuffer"))?;
            body(cmd);
            self.device
                .end_command_buffer(cmd)
                .map_err(vkr("vkEndCommandBuffer"))?;
        }
        self.submit_wait()?;
        self.reset_commands()
    }

    fn submit_wait(&self) -> Result<(), String> {
        let cmds = [self.cmd];
        let submit = [vk::SubmitInfo::default().command_buffers(&cmds)];
        // SAFETY: the command buffer is executable; the fence is unsignaled
        // (reset after every wait).
        unsafe {
            self.device
                .queue_submit(self.queue, &submit, self.fence)
                .map_err(vkr("vkQueueSubmit"))?;
            self.device
                .wait_for_fences(&[self.fence], true, u64::MAX)
                .map_err(vkr("vkWaitForFences"))?;
            self.device
                .reset_fences(&[self.fence])
                .map_err(vkr("vkResetFences"))
        }
    }

    fn reset_commands(&self) -> Result<(), String> {
        // SAFETY: the pool's only command buffer has completed.
        unsafe {
            self.device
                .reset_command_pool(self.cmd_pool, vk::CommandPoolResetFlags::empty())
        }
        .map_err(vkr("vkResetCommandPool"))
    }
}

fn color_range() -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange {
        aspect_mask: vk::ImageAspectFlags::COLOR,
        base_mip_level: 0,
        level_count: 1,
        base_array_layer: 0,
        layer_count: 1,
    }
}

fn unorm(c: [u8; 4]) -> [f32; 4] {
    c.map(|v| f32::from(v) / 255.0)
}

/// The resources a scenario switches between.
enum Bindings {
    Ubo {
        /// State A and state B, one buffer each.
        buffers: [Buf; 2],
        /// Both states in one buffer, for `dynamic_offset`.
        dynamic: Buf,
        /// Offset of state B in `dynamic`.
        dynamic_stride: u64,
    },
    Texture {
        infos: [vk::DescriptorImageInfo; 2],
    },
}

/// One scenario's shaders, binding and resources.
struct ScenarioRig {
    scenario: Scenario,
    set: u32,
    binding: u32,
    vs: vk::ShaderModule,
    fs: vk::ShaderModule,
    bindings: Bindings,
    buffer_infos: [vk::DescriptorBufferInfo; 2],
    image_infos: [vk::DescriptorImageInfo; 2],
}

impl ScenarioRig {
    fn new(gpu: &mut Gpu, scenario: Scenario, vs: vk::ShaderModule) -> Result<ScenarioRig, String> {
        let (set, binding) = binding_for(scenario.class(), Stage::Fragment, 0)
            .ok_or("spirv-gen has no binding for fragment slot 0")?;
        let fs = gpu.shader(scenario.fs())?;
        let bindings = match scenario {
            Scenario::Ubo => {
                let write = |b: &Buf, offset: u64, c: [u8; 4]| {
                    let bytes: Vec<u8> = unorm(c).iter().flat_map(|f| f.to_le_bytes()).collect();
                    assert!(offset + bytes.len() as u64 <= b.size);
                    // SAFETY: the range lies inside the mapped buffer (checked
                    // just above), which no submitted work uses yet.
                    unsafe {
                        std::ptr::copy_nonoverlapping(
                            bytes.as_ptr(),
                            b.ptr.add(offset as usize),
                            bytes.len(),
                        )
                    };
                };
                let usage = vk::BufferUsageFlags::UNIFORM_BUFFER;
                let a = gpu.buffer(UBO_RANGE, usage)?;
                let b = gpu.buffer(UBO_RANGE, usage)?;
                write(&a, 0, COLOR_A);
                write(&b, 0, COLOR_B);
                let stride = align_up(UBO_RANGE, gpu.min_ubo_alignment);
                let dynamic = gpu.buffer(stride + UBO_RANGE, usage)?;
                write(&dynamic, 0, COLOR_A);
                write(&dynamic, stride, COLOR_B);
                Bindings::Ubo {
                    buffers: [a, b],
                    dynamic,
                    dynamic_stride: stride,
                }
            }
            Scenario::Texture => {
                let usage = vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_DST;
                let (ia, va) = gpu.image(TEX_SIZE, usage)?;
                let (ib, vb) = gpu.image(TEX_SIZE, usage)?;
                let sampler_info = vk::SamplerCreateInfo::default()
                    .mag_filter(vk::Filter::NEAREST)
                    .min_filter(vk::Filter::NEAREST)
                    .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
                    .address_mode_u(vk::SamplerAddressMode::CLAMP_TO_EDGE)
                    .address_mode_v(vk::SamplerAddressMode::CLAMP_TO_EDGE)
                    .address_mode_w(vk::SamplerAddressMode::CLAMP_TO_EDGE)
                    .max_lod(0.0);
                // SAFETY: a valid create info.
                let sampler = unsafe { gpu.device.create_sampler(&sampler_info, None) }
                    .map_err(vkr("vkCreateSampler"))?;
                gpu.objs.push(Obj::Sampler(sampler));
                let dev = &gpu.device;
                gpu.one_shot(|cmd| {
                    let barrier = |img, old, new, ss, sa, ds, da| {
                        vk::ImageMemoryBarrier2::default()
                            .image(img)
                            .old_layout(old)
                            .new_layout(new)
                            .src_stage_mask(ss)
                            .src_access_mask(sa)
                            .dst_stage_mask(ds)
                            .dst_access_mask(da)
                            .subresource_range(color_range())
                    };
                    let to_dst = [ia, ib].map(|i| {
                        barrier(
                            i,
                            vk::ImageLayout::UNDEFINED,
                            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                            vk::PipelineStageFlags2::NONE,
                            vk::AccessFlags2::NONE,
                            vk::PipelineStageFlags2::CLEAR,
                            vk::AccessFlags2::TRANSFER_WRITE,
                        )
                    });
                    let to_read = [ia, ib].map(|i| {
                        barrier(
                            i,
                            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                            vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
                            vk::PipelineStageFlags2::CLEAR,
                            vk::AccessFlags2::TRANSFER_WRITE,
                            vk::PipelineStageFlags2::FRAGMENT_SHADER,
                            vk::AccessFlags2::SHADER_SAMPLED_READ,
                        )
                    });
                    // SAFETY: recording into the one-shot command buffer;
                    // both images are bound and idle.
                    unsafe {
                        dev.cmd_pipeline_barrier2(
                            cmd,
                            &vk::DependencyInfo::default().image_memory_barriers(&to_dst),
                        );
                        for (img, c) in [(ia, COLOR_A), (ib, COLOR_B)] {
                            dev.cmd_clear_color_image(
                                cmd,
                                img,
                                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                                &vk::ClearColorValue { float32: unorm(c) },
                                &[color_range()],
                            );
                        }
                        dev.cmd_pipeline_barrier2(
                            cmd,
                            &vk::DependencyInfo::default().image_memory_barriers(&to_read),
                        );
                    }
                })?;
                let info = |view| vk::DescriptorImageInfo {
                    sampler,
                    image_view: view,
                    image_layout: vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
                };
                Bindings::Texture {
                    infos: [info(va), info(vb)],
                }
            }
        };
        let (buffer_infos, image_infos) = match &bindings {
            Bindings::Ubo { buffers, .. } => (
                buffers.map(|b| vk::DescriptorBufferInfo {
                    buffer: b.buffer,
                    offset: 0,
                    range: UBO_RANGE,
                }),
                [vk::DescriptorImageInfo::default(); 2],
            ),
            Bindings::Texture { infos } => ([vk::DescriptorBufferInfo::default(); 2], *infos),
        };
        Ok(ScenarioRig {
            scenario,
            set,
            binding,
            vs,
            fs,
            bindings,
            buffer_infos,
            image_infos,
        })
    }

    /// The write of state `k` (no destination set: push descriptors).
    fn write(&self, k: usize) -> vk::WriteDescriptorSet<'_> {
        let w = vk::WriteDescriptorSet::default()
            .dst_binding(self.binding)
            .descriptor_type(self.scenario.ty());
        match self.scenario {
            Scenario::Ubo => w.buffer_info(&self.buffer_infos[k..k + 1]),
            Scenario::Texture => w.image_info(&self.image_infos[k..k + 1]),
        }
    }

    /// Template data for state `k`.
    fn template_data(&self, k: usize) -> *const c_void {
        match self.scenario {
            Scenario::Ubo => std::ptr::from_ref(&self.buffer_infos[k]).cast(),
            Scenario::Texture => std::ptr::from_ref(&self.image_infos[k]).cast(),
        }
    }

    fn template_stride(&self) -> usize {
        match self.scenario {
            Scenario::Ubo => size_of::<vk::DescriptorBufferInfo>(),
            Scenario::Texture => size_of::<vk::DescriptorImageInfo>(),
        }
    }
}

/// How a strategy's set layouts are made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LayoutKind {
    Plain,
    Push,
    Dynamic,
    DescriptorBuffer,
}

/// A descriptor buffer with one slot (a whole set) per draw.
struct Ring {
    buf: Buf,
    stride: u64,
    binding_offset: u64,
    descriptor_size: usize,
    usage: vk::BufferUsageFlags,
}

/// What one strategy of one scenario records with.
struct Job {
    scenario: usize,
    strategy: Strategy,
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
    pool: vk::DescriptorPool,
    /// `baseline` and `dynamic_offset`: `sets[0]`, bound once or per
    /// draw; `sets_cached`: the set of each state.
    sets: [vk::DescriptorSet; 2],
    template: vk::DescriptorUpdateTemplate,
    ring: Option<Ring>,
    dynamic_offsets: [u32; 2],
    expected: [u8; 4],
}

/// Per-job bookkeeping of the run.
struct Slot {
    scenario: Scenario,
    strategy: Strategy,
    job: Result<Job, Outcome>,
    samples: Vec<f64>,
}

fn create_job(
    gpu: &mut Gpu,
    rigs: &[ScenarioRig],
    scenario: usize,
    strategy: Strategy,
    draws: u32,
) -> Result<Job, Outcome> {
    let rig = &rigs[scenario];
    let kind = strategy.layout_kind();
    if kind == LayoutKind::Push {
        if let Err(why) = &gpu.push {
            return Err(Outcome::Skipped(why.clone()));
        }
    }
    if kind == LayoutKind::DescriptorBuffer {
        if let Err(why) = &gpu.descbuf {
            return Err(Outcome::Skipped(why.clone()));
        }
    }
    build_job(gpu, rig, scenario, strategy, draws).map_err(Outcome::Failed)
}

fn build_job(
    gpu: &mut Gpu,
    rig: &ScenarioRig,
    scenario: usize,
    strategy: Strategy,
    draws: u32,
) -> Result<Job, String> {
    let kind = strategy.layout_kind();
    let ty = match kind {
        LayoutKind::Dynamic => vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC,
        _ => rig.scenario.ty(),
    };
    // Set layouts 0..=set: the scenario's binding in the last, empty ones
    // below it.
    let mut set_layouts = Vec::new();
    for s in 0..=rig.set {
        let flags = match kind {
            LayoutKind::DescriptorBuffer => {
                vk::DescriptorSetLayoutCreateFlags::DESCRIPTOR_BUFFER_EXT
            }
            LayoutKind::Push if s == rig.set => {
                vk::DescriptorSetLayoutCreateFlags::PUSH_DESCRIPTOR_KHR
            }
            _ => vk::DescriptorSetLayoutCreateFlags::empty(),
        };
        let binding = [vk::DescriptorSetLayoutBinding::default()
            .binding(rig.binding)
            .descriptor_type(ty)
            .descriptor_count(1)
            .stage_flags(vk::ShaderStageFlags::FRAGMENT)];
        let bindings: &[_] = if s == rig.set { &binding } else { &[] };
        let info = vk::DescriptorSetLayoutCreateInfo::default()
            .flags(flags)
            .bindings(bindings);
        // SAFETY: a valid create info; push descriptors and descriptor
        // buffers are only asked for when the device has them.
        let l = unsafe { gpu.device.create_descriptor_set_layout(&info, None) }
            .map_err(vkr("vkCreateDescriptorSetLayout"))?;
        gpu.objs.push(Obj::SetLayout(l));
        set_layouts.push(l);
    }
    let set_layout = set_layouts[rig.set as usize];
    let info = vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts);
    // SAFETY: the set layouts were created above.
    let layout = unsafe { gpu.device.create_pipeline_layout(&info, None) }
        .map_err(vkr("vkCreatePipelineLayout"))?;
    gpu.objs.push(Obj::PipelineLayout(layout));
    let pipeline = pipeline(gpu, rig, layout, kind == LayoutKind::DescriptorBuffer)?;

    let mut job = Job {
        scenario,
        strategy,
        set_layout,
        layout,
        pipeline,
        pool: vk::DescriptorPool::null(),
        sets: [vk::DescriptorSet::null(); 2],
        template: vk::DescriptorUpdateTemplate::null(),
        ring: None,
        dynamic_offsets: [0; 2],
        expected: add(COLOR_A, COLOR_B),
    };
    let n = draws;
    match strategy {
        Strategy::Baseline => {
            job.expected = add(COLOR_A, COLOR_A);
            job.pool = gpu.pool(1, ty)?;
            job.sets[0] = gpu.alloc_sets(job.pool, set_layout, 1)?[0];
            let w = [rig.write(0).dst_set(job.sets[0])];
            // SAFETY: the set is fresh and unused.
            unsafe { gpu.device.update_descriptor_sets(&w, &[]) };
        }
        Strategy::SetsCached => {
            job.pool = gpu.pool(2, ty)?;
            let sets = gpu.alloc_sets(job.pool, set_layout, 2)?;
            job.sets = [sets[0], sets[1]];
            let w = [rig.write(0).dst_set(sets[0]), rig.write(1).dst_set(sets[1])];
            // SAFETY: the sets are fresh and unused.
            unsafe { gpu.device.update_descriptor_sets(&w, &[]) };
        }
        Strategy::Push => {}
        Strategy::PushTemplate | Strategy::SetsTemplate => {
            let entry = [vk::DescriptorUpdateTemplateEntry {
                dst_binding: rig.binding,
                dst_array_element: 0,
                descriptor_count: 1,
                descriptor_type: ty,
                offset: 0,
                stride: rig.template_stride(),
            }];
            let mut info =
                vk::DescriptorUpdateTemplateCreateInfo::default().descriptor_update_entries(&entry);
            if strategy == Strategy::PushTemplate {
                info = info
                    .template_type(vk::DescriptorUpdateTemplateType::PUSH_DESCRIPTORS_KHR)
                    .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
                    .pipeline_layout(layout)
                    .set(rig.set);
            } else {
                info = info
                    .template_type(vk::DescriptorUpdateTemplateType::DESCRIPTOR_SET)
                    .descriptor_set_layout(set_layout);
                job.pool = gpu.pool(n, ty)?;
            }
            // SAFETY: a valid create info for the layout above.
            job.template = unsafe { gpu.device.create_descriptor_update_template(&info, None) }
                .map_err(vkr("vkCreateDescriptorUpdateTemplate"))?;
            gpu.objs.push(Obj::Template(job.template));
        }
        Strategy::Sets | Strategy::SetsPrealloc => job.pool = gpu.pool(n, ty)?,
        Strategy::DynamicOffset => {
            let Bindings::Ubo {
                dynamic,
                dynamic_stride,
                ..
            } = &rig.bindings
            else {
                return Err("dynamic offsets need a buffer".into());
            };
            job.pool = gpu.pool(1, ty)?;
            job.sets[0] = gpu.alloc_sets(job.pool, set_layout, 1)?[0];
            let info = [vk::DescriptorBufferInfo {
                buffer: dynamic.buffer,
                offset: 0,
                range: UBO_RANGE,
            }];
            let w = [vk::WriteDescriptorSet::default()
                .dst_set(job.sets[0])
                .dst_binding(rig.binding)
                .descriptor_type(ty)
                .buffer_info(&info)];
            // SAFETY: the set is fresh and unused.
            unsafe { gpu.device.update_descriptor_sets(&w, &[]) };
            job.dynamic_offsets = [
                0,
                u32::try_from(*dynamic_stride).map_err(|_| "dynamic stride")?,
            ];
        }
        Strategy::DescriptorBuffer | Strategy::DescriptorBufferCached => {
            let cached = strategy == Strategy::DescriptorBufferCached;
            let slots = if cached { 2 } else { u64::from(n) };
            let ring = ring(gpu, rig, set_layout, slots)?;
            if cached {
                for k in 0..2 {
                    write_descriptor(gpu, rig, &ring, k, k as usize);
                }
            }
            job.ring = Some(ring);
        }
    }
    Ok(job)
}

fn add(a: [u8; 4], b: [u8; 4]) -> [u8; 4] {
    [0, 1, 2, 3].map(|i| a[i].saturating_add(b[i]))
}

fn ring(
    gpu: &mut Gpu,
    rig: &ScenarioRig,
    set_layout: vk::DescriptorSetLayout,
    slots: u64,
) -> Result<Ring, String> {
    let db = gpu.descbuf.as_ref().map_err(Clone::clone)?;
    // SAFETY: the layout was created with DESCRIPTOR_BUFFER_EXT and holds
    // `rig.binding`.
    let (size, binding_offset) = unsafe {
        (
            db.loader.get_descriptor_set_layout_size(set_layout),
            db.loader
                .get_descriptor_set_layout_binding_offset(set_layout, rig.binding),
        )
    };
    let (descriptor_size, usage) = match rig.scenario {
        Scenario::Ubo => (
            db.uniform_buffer_size,
            vk::BufferUsageFlags::RESOURCE_DESCRIPTOR_BUFFER_EXT,
        ),
        Scenario::Texture => (
            db.combined_image_sampler_size,
            vk::BufferUsageFlags::SAMPLER_DESCRIPTOR_BUFFER_EXT,
        ),
    };
    let stride = align_up(size.max(1), db.offset_alignment);
    if binding_offset + descriptor_size as u64 > stride {
        return Err(format!(
            "descriptor of {descriptor_size} B at offset {binding_offset} does not fit a set of {stride} B"
        ));
    }
    let buf = gpu.buffer(stride * slots, usage)?;
    Ok(Ring {
        buf,
        stride,
        binding_offset,
        descriptor_size,
        usage,
    })
}

/// Writes state `k`'s descriptor into slot `slot` of the ring.
fn write_descriptor(gpu: &Gpu, rig: &ScenarioRig, ring: &Ring, slot: u64, k: usize) {
    let Ok(db) = &gpu.descbuf else {
        return;
    };
    let at = slot * ring.stride + ring.binding_offset;
    debug_assert!(at + ring.descriptor_size as u64 <= ring.buf.size);
    // SAFETY: `at..at + descriptor_size` lies inside the mapped ring (the
    // slot is below the ring's slot count and the binding fits a slot,
    // checked by `ring`); no pending GPU work reads it (every repetition
    // is waited for before the next is recorded).
    let dst = unsafe {
        std::slice::from_raw_parts_mut(ring.buf.ptr.add(at as usize), ring.descriptor_size)
    };
    match &rig.bindings {
        Bindings::Ubo { buffers, .. } => {
            let addr = vk::DescriptorAddressInfoEXT::default()
                .address(buffers[k].address)
                .range(UBO_RANGE);
            let info = vk::DescriptorGetInfoEXT::default()
                .ty(vk::DescriptorType::UNIFORM_BUFFER)
                .data(vk::DescriptorDataEXT {
                    p_uniform_buffer: &addr,
                });
            // SAFETY: the address range lies in a live uniform buffer;
            // `dst` is the descriptor's size.
            unsafe { db.loader.get_descriptor(&info, dst) };
        }
        Bindings::Texture { infos } => {
            let info = vk::DescriptorGetInfoEXT::default()
                .ty(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
                .data(vk::DescriptorDataEXT {
                    p_combined_image_sampler: &infos[k],
                });
            // SAFETY: sampler and view are live; `dst` is the descriptor's
            // size.
            unsafe { db.loader.get_descriptor(&info, dst) };
        }
    }
}

fn pipeline(
    gpu: &mut Gpu,
    rig: &ScenarioRig,
    layout: vk::PipelineLayout,
    descriptor_buffer: bool,
) -> Result<vk::Pipeline, String> {
    let stages = [
        vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::VERTEX)
            .module(rig.vs)
            .name(c"main"),
        vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::FRAGMENT)
            .module(rig.fs)
            .name(c"main"),
    ];
    let vertex_input = vk::PipelineVertexInputStateCreateInfo::default();
    let input_assembly = vk::PipelineInputAssemblyStateCreateInfo::default()
        .topology(vk::PrimitiveTopology::TRIANGLE_LIST);
    let viewports = [vk::Viewport {
        x: 0.0,
        y: 0.0,
        width: 1.0,
        height: 1.0,
        min_depth: 0.0,
        max_depth: 1.0,
    }];
    let scissors = [vk::Rect2D {
        offset: vk::Offset2D { x: 0, y: 0 },
        extent: vk::Extent2D {
            width: 1,
            height: 1,
        },
    }];
    let viewport = vk::PipelineViewportStateCreateInfo::default()
        .viewports(&viewports)
        .scissors(&scissors);
    let raster = vk::PipelineRasterizationStateCreateInfo::default()
        .polygon_mode(vk::PolygonMode::FILL)
        .cull_mode(vk::CullModeFlags::NONE)
        .front_face(vk::FrontFace::COUNTER_CLOCKWISE)
        .line_width(1.0);
    let multisample = vk::PipelineMultisampleStateCreateInfo::default()
        .rasterization_samples(vk::SampleCountFlags::TYPE_1);
    // ONE + ONE: the last two draws add up (see the module doc).
    let attachments = [vk::PipelineColorBlendAttachmentState::default()
        .blend_enable(true)
        .src_color_blend_factor(vk::BlendFactor::ONE)
        .dst_color_blend_factor(vk::BlendFactor::ONE)
        .color_blend_op(vk::BlendOp::ADD)
        .src_alpha_blend_factor(vk::BlendFactor::ONE)
        .dst_alpha_blend_factor(vk::BlendFactor::ONE)
        .alpha_blend_op(vk::BlendOp::ADD)
        .color_write_mask(vk::ColorComponentFlags::RGBA)];
    let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&attachments);
    let formats = [TARGET_FORMAT];
    let mut rendering =
        vk::PipelineRenderingCreateInfo::default().color_attachment_formats(&formats);
    let flags = if descriptor_buffer {
        vk::PipelineCreateFlags::DESCRIPTOR_BUFFER_EXT
    } else {
        vk::PipelineCreateFlags::empty()
    };
    let info = vk::GraphicsPipelineCreateInfo::default()
        .flags(flags)
        .stages(&stages)
        .vertex_input_state(&vertex_input)
        .input_assembly_state(&input_assembly)
        .viewport_state(&viewport)
        .rasterization_state(&raster)
        .multisample_state(&multisample)
        .color_blend_state(&blend)
        .layout(layout)
        .push_next(&mut rendering);
    // SAFETY: every pointer in `info` refers to locals that outlive the
    // call; the modules and layout are live.
    let p = unsafe {
        gpu.device
            .create_graphics_pipelines(vk::PipelineCache::null(), &[info], None)
    }
    .map_err(|(_, e)| format!("vkCreateGraphicsPipelines: {e:?}"))?[0];
    gpu.objs.push(Obj::Pipeline(p));
    Ok(p)
}

/// The 1x1 target and its read-back buffer.
struct Target1x1 {
    image: vk::Image,
    view: vk::ImageView,
    readback: Buf,
}

/// One repetition of `job`: returns the timed duration and the pixel.
fn repetition(
    gpu: &Gpu,
    rig: &ScenarioRig,
    target: &Target1x1,
    job: &Job,
    draws: u32,
) -> Result<(Duration, [u8; 4]), String> {
    let d = &gpu.device;
    let cmd = gpu.cmd;
    let n = draws as usize;
    let bind = vk::PipelineBindPoint::GRAPHICS;
    // Untimed: sets allocated before timing.
    let prealloc = if job.strategy == Strategy::SetsPrealloc {
        gpu.alloc_sets(job.pool, job.set_layout, n)?
    } else {
        Vec::new()
    };
    let writes = [rig.write(0), rig.write(1)];
    let data = [rig.template_data(0), rig.template_data(1)];
    let one_layout = [job.set_layout];
    let alloc_info = vk::DescriptorSetAllocateInfo::default()
        .descriptor_pool(job.pool)
        .set_layouts(&one_layout);

    let start = Instant::now();
    // SAFETY (for the block): the command buffer is idle and recorded by
    // this thread; every handle recorded is live; the target is 1x1 and
    // the pipeline was made for its format; each descriptor written or
    // allocated per draw is in a set or ring slot no pending work uses
    // (the previous repetition was waited for and its pools reset); the
    // descriptor-buffer paths only run when the device has the extension.
    unsafe {
        d.begin_command_buffer(
            cmd,
            &vk::CommandBufferBeginInfo::default()
                .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
        )
        .map_err(vkr("vkBeginCommandBuffer"))?;
        // The previous repetition's copy read the target and wrote the
        // read-back buffer.
        let to_attachment = [vk::ImageMemoryBarrier2::default()
            .image(target.image)
            .old_layout(vk::ImageLayout::UNDEFINED)
            .new_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
            .src_stage_mask(vk::PipelineStageFlags2::COPY)
            .src_access_mask(vk::AccessFlags2::NONE)
            .dst_stage_mask(vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT)
            .dst_access_mask(
                vk::AccessFlags2::COLOR_ATTACHMENT_READ | vk::AccessFlags2::COLOR_ATTACHMENT_WRITE,
            )
            .subresource_range(color_range())];
        let waw = [vk::MemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::COPY)
            .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
            .dst_stage_mask(vk::PipelineStageFlags2::COPY)
            .dst_access_mask(vk::AccessFlags2::TRANSFER_WRITE)];
        d.cmd_pipeline_barrier2(
            cmd,
            &vk::DependencyInfo::default()
                .memory_barriers(&waw)
                .image_memory_barriers(&to_attachment),
        );
        let color = [vk::RenderingAttachmentInfo::default()
            .image_view(target.view)
            .image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
            .load_op(vk::AttachmentLoadOp::CLEAR)
            .store_op(vk::AttachmentStoreOp::STORE)
            .clear_value(vk::ClearValue {
                color: vk::ClearColorValue { float32: [0.0; 4] },
            })];
        let rendering = vk::RenderingInfo::default()
            .render_area(vk::Rect2D {
                offset: vk::Offset2D { x: 0, y: 0 },
                extent: vk::Extent2D {
                    width: 1,
                    height: 1,
                },
            })
            .layer_count(1)
            .color_attachments(&color);
        d.cmd_begin_rendering(cmd, &rendering);
        d.cmd_bind_pipeline(cmd, bind, job.pipeline);
        // The last two draws cover the pixel; the others are degenerate.
        let draw = |i: usize| d.cmd_draw(cmd, 3, 1, 0, u32::from(i + 2 >= n));
        let set = rig.set;
        match job.strategy {
            Strategy::Baseline => {
                d.cmd_bind_descriptor_sets(cmd, bind, job.layout, set, &job.sets[..1], &[]);
                for i in 0..n {
                    draw(i);
                }
            }
            Strategy::SetsCached => {
                for i in 0..n {
                    let k = i & 1;
                    d.cmd_bind_descriptor_sets(
                        cmd,
                        bind,
                        job.layout,
                        set,
                        &job.sets[k..k + 1],
                        &[],
                    );
                    draw(i);
                }
            }
            Strategy::Push => {
                let push = gpu.push.as_ref().map_err(Clone::clone)?;
                for i in 0..n {
                    let k = i & 1;
                    push.cmd_push_descriptor_set(cmd, bind, job.layout, set, &writes[k..k + 1]);
                    draw(i);
                }
            }
            Strategy::PushTemplate => {
                let push = gpu.push.as_ref().map_err(Clone::clone)?;
                for i in 0..n {
                    push.cmd_push_descriptor_set_with_template(
                        cmd,
                        job.template,
                        job.layout,
                        set,
                        data[i & 1],
                    );
                    draw(i);
                }
            }
            Strategy::Sets => {
                for i in 0..n {
                    let s = d
                        .allocate_descriptor_sets(&alloc_info)
                        .map_err(vkr("vkAllocateDescriptorSets"))?[0];
                    d.update_descriptor_sets(&[writes[i & 1].dst_set(s)], &[]);
                    d.cmd_bind_descriptor_sets(cmd, bind, job.layout, set, &[s], &[]);
                    draw(i);
                }
            }
            Strategy::SetsTemplate => {
                for i in 0..n {
                    let s = d
                        .allocate_descriptor_sets(&alloc_info)
                        .map_err(vkr("vkAllocateDescriptorSets"))?[0];
                    d.update_descriptor_set_with_template(s, job.template, data[i & 1]);
                    d.cmd_bind_descriptor_sets(cmd, bind, job.layout, set, &[s], &[]);
                    draw(i);
                }
            }
            Strategy::SetsPrealloc => {
                for (i, &s) in prealloc.iter().enumerate() {
                    d.update_descriptor_sets(&[writes[i & 1].dst_set(s)], &[]);
                    d.cmd_bind_descriptor_sets(cmd, bind, job.layout, set, &[s], &[]);
                    draw(i);
                }
            }
            Strategy::DynamicOffset => {
                for i in 0..n {
                    d.cmd_bind_descriptor_sets(
                        cmd,
                        bind,
                        job.layout,
                        set,
                        &job.sets[..1],
                        &job.dynamic_offsets[i & 1..(i & 1) + 1],
                    );
                    draw(i);
                }
            }
            Strategy::DescriptorBuffer | Strategy::DescriptorBufferCached => {
                let db = gpu.descbuf.as_ref().map_err(Clone::clone)?;
                let ring = job.ring.as_ref().ok_or("no descriptor buffer")?;
                let bound = [vk::DescriptorBufferBindingInfoEXT::default()
                    .address(ring.buf.address)
                    .usage(ring.usage)];
                db.loader.cmd_bind_descriptor_buffers(cmd, &bound);
                let cached = job.strategy == Strategy::DescriptorBufferCached;
                for i in 0..n {
                    let k = i & 1;
                    let slot = if cached { k as u64 } else { i as u64 };
                    if !cached {
                        write_descriptor(gpu, rig, ring, slot, k);
                    }
                    db.loader.cmd_set_descriptor_buffer_offsets(
                        cmd,
                        bind,
                        job.layout,
                        set,
                        &[0],
                        &[slot * ring.stride],
                    );
                    draw(i);
                }
            }
        }
        d.cmd_end_rendering(cmd);
        let to_src = [vk::ImageMemoryBarrier2::default()
            .image(target.image)
            .old_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
            .new_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
            .src_stage_mask(vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT)
            .src_access_mask(vk::AccessFlags2::COLOR_ATTACHMENT_WRITE)
            .dst_stage_mask(vk::PipelineStageFlags2::COPY)
            .dst_access_mask(vk::AccessFlags2::TRANSFER_READ)
            .subresource_range(color_range())];
        d.cmd_pipeline_barrier2(
            cmd,
            &vk::DependencyInfo::default().image_memory_barriers(&to_src),
        );
        let region = [vk::BufferImageCopy {
            buffer_offset: 0,
            buffer_row_length: 0,
            buffer_image_height: 0,
            image_subresource: vk::ImageSubresourceLayers {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                mip_level: 0,
                base_array_layer: 0,
                layer_count: 1,
            },
            image_offset: vk::Offset3D { x: 0, y: 0, z: 0 },
            image_extent: vk::Extent3D {
                width: 1,
                height: 1,
                depth: 1,
            },
        }];
        d.cmd_copy_image_to_buffer(
            cmd,
            target.image,
            vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
            target.readback.buffer,
            &region,
        );
        let to_host = [vk::MemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::COPY)
            .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
            .dst_stage_mask(vk::PipelineStageFlags2::HOST)
            .dst_access_mask(vk::AccessFlags2::HOST_READ)];
        d.cmd_pipeline_barrier2(
            cmd,
            &vk::DependencyInfo::default().memory_barriers(&to_host),
        );
        d.end_command_buffer(cmd)
            .map_err(vkr("vkEndCommandBuffer"))?;
    }
    gpu.submit_wait()?;
    gpu.reset_commands()?;
    if matches!(job.strategy, Strategy::Sets | Strategy::SetsTemplate) {
        // SAFETY: the work that used the pool's sets has completed.
        unsafe { d.reset_descriptor_pool(job.pool, vk::DescriptorPoolResetFlags::empty()) }
            .map_err(vkr("vkResetDescriptorPool"))?;
    }
    let elapsed = start.elapsed();
    if job.strategy == Strategy::SetsPrealloc {
        // SAFETY: as above.
        unsafe { d.reset_descriptor_pool(job.pool, vk::DescriptorPoolResetFlags::empty()) }
            .map_err(vkr("vkResetDescriptorPool"))?;
    }
    let mut px = [0u8; 4];
    // SAFETY: the copy that wrote these 4 bytes has completed (fence) and
    // was made visible to the host by the HOST_READ barrier.
    unsafe { std::ptr::copy_nonoverlapping(target.readback.ptr, px.as_mut_ptr(), 4) };
    Ok((elapsed, px))
}

/// Runs the benchmark (see the module doc).
pub fn run(cfg: &Config) -> Result<Report, String> {
    if cfg.draws < 2 || !cfg.draws.is_multiple_of(2) || cfg.draws > MAX_DRAWS {
        return Err(format!(
            "--draws must be even and in 2..={MAX_DRAWS}, got {}",
            cfg.draws
        ));
    }
    if cfg.repetitions == 0 {
        return Err("--repetitions must be at least 1".into());
    }
    let validation = cfg.validation
        || std::env::var("PIPE_VK_VALIDATION").is_ok_and(|v| v == "1" || v == "true");
    let cfg = Config {
        device: cfg.device.clone(),
        validation,
        draws: cfg.draws,
        repetitions: cfg.repetitions,
    };
    pipe_vk::debug::take_messages();
    let report = {
        let mut gpu = Gpu::new(&cfg)?;
        let vs = gpu.shader(VS)?;
        let rigs = Scenario::ALL
            .iter()
            .map(|&s| {
                ScenarioRig::new(&mut gpu, s, vs).map_err(|e| format!("{} setup: {e}", s.key()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let (image, view) = gpu.image(
            1,
            vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC,
        )?;
        let readback = gpu.buffer(256, vk::BufferUsageFlags::TRANSFER_DST)?;
        let target = Target1x1 {
            image,
            view,
            readback,
        };
        let mut slots: Vec<Slot> = Vec::new();
        for (si, s) in Scenario::ALL.iter().enumerate() {
            for &st in s.strategies() {
                slots.push(Slot {
                    scenario: *s,
                    strategy: st,
                    job: create_job(&mut gpu, &rigs, si, st, cfg.draws),
                    samples: Vec::new(),
                });
            }
        }
        // Round 0 is the warm-up.
        for round in 0..=cfg.repetitions {
            for slot in &mut slots {
                let Ok(job) = &slot.job else { continue };
                let rig = &rigs[job.scenario];
                match repetition(&gpu, rig, &target, job, cfg.draws) {
                    Ok((t, px)) if close(px, job.expected) => {
                        if round > 0 {
                            slot.samples
                                .push(f64::from(cfg.draws) / t.as_secs_f64().max(1e-9) / 1e3);
                        }
                    }
                    Ok((_, px)) => {
                        slot.job = Err(Outcome::Failed(format!(
                            "the pixel reads back {px:?}, expected {:?} (state {})",
                            job.expected,
                            if job.strategy == Strategy::Baseline {
                                "A + A"
                            } else {
                                "A + B"
                            }
                        )));
                    }
                    Err(e) => {
                        // The command buffer may have been left recording:
                        // let the other strategies start from a clean one.
                        // SAFETY: waiting for idle has no preconditions.
                        let _ = unsafe { gpu.device.device_wait_idle() };
                        gpu.reset_commands().map_err(|r| format!("{e}; then {r}"))?;
                        slot.job = Err(Outcome::Failed(e));
                    }
                }
            }
        }
        let results = slots
            .into_iter()
            .map(|slot| StrategyResult {
                scenario: slot.scenario,
                strategy: slot.strategy,
                outcome: match slot.job {
                    Ok(_) => Outcome::Measured(slot.samples),
                    Err(o) => o,
                },
            })
            .collect::<Vec<_>>();
        Report {
            device: gpu.name.clone(),
            driver: gpu.driver.clone(),
            draws: cfg.draws,
            repetitions: cfg.repetitions,
            lp_num_threads: std::env::var("LP_NUM_THREADS").ok(),
            validation: cfg.validation,
            results,
            messages: Vec::new(),
        }
    };
    // The device and instance are gone: every message has arrived.
    let mut report = report;
    report.messages = pipe_vk::debug::take_messages();
    Ok(report)
}

fn close(a: [u8; 4], b: [u8; 4]) -> bool {
    a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= 1)
}

impl Report {
    /// Whether a strategy failed or the layer reported anything: the
    /// command then exits 1.
    pub fn failed(&self) -> bool {
        !self.messages.is_empty()
            || self
                .results
                .iter()
                .any(|r| matches!(r.outcome, Outcome::Failed(_)))
    }

    /// Median k draws/s of a measured strategy.
    pub fn median(&self, scenario: Scenario, strategy: Strategy) -> Option<f64> {
        self.results
            .iter()
            .find(|r| r.scenario == scenario && r.strategy == strategy)
            .and_then(|r| match &r.outcome {
                Outcome::Measured(v) => Some(median(v)),
                _ => None,
            })
    }

    fn baseline(&self, scenario: Scenario) -> Option<f64> {
        self.median(scenario, Strategy::Baseline)
    }

    pub fn human(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "device: {} ({})", self.device, self.driver.trim());
        let _ = writeln!(
            s,
            "raw Vulkan; 1x1 RGBA8 target, dynamic rendering, degenerate triangles (the last two draws cover the \
             pixel and are checked);"
        );
        let _ = writeln!(
            s,
            "time of a repetition = begin + {} draws + submit + wait + reset (command pool; descriptor pool for sets*);",
            self.draws
        );
        let _ = writeln!(
            s,
            "figure = median of {} repetitions after 1 warm-up, interleaved across strategies; ratio = / same-run \
             baseline; LP_NUM_THREADS={}{}",
            self.repetitions,
            self.lp_num_threads.as_deref().unwrap_or("unset"),
            if self.validation {
                " (validation on: timings meaningless)"
            } else {
                ""
            }
        );
        for sc in Scenario::ALL {
            let base = self.baseline(sc);
            let _ = writeln!(s);
            let _ = writeln!(s, "{}", sc.label());
            let _ = writeln!(
                s,
                "  {:<26} {:>9} {:>9} {:>9} {:>8} {:>9} {:>7}  per draw, besides vkCmdDraw",
                "strategy", "k draws/s", "min", "max", "us/draw", "+us/draw", "ratio"
            );
            for r in self.results.iter().filter(|r| r.scenario == sc) {
                let key = r.strategy.key();
                match &r.outcome {
                    Outcome::Measured(v) => {
                        let m = median(v);
                        let min = v.iter().copied().fold(f64::INFINITY, f64::min);
                        let max = v.iter().copied().fold(0.0, f64::max);
                        let us = 1e3 / m.max(1e-9);
                        let (extra, ratio) = match base {
                            Some(b) if b > 0.0 => {
                                (format!("{:>9.3}", us - 1e3 / b), format!("{:>7.3}", m / b))
                            }
                            _ => (format!("{:>9}", "-"), format!("{:>7}", "-")),
                        };
                        let _ = writeln!(
                            s,
                            "  {key:<26} {m:>9.1} {min:>9.1} {max:>9.1} {us:>8.3} {extra} {ratio}  {}",
                            r.strategy.per_draw()
                        );
                    }
                    Outcome::Skipped(why) => {
                        let _ = writeln!(s, "  {key:<26} skipped: {why}");
                    }
                    Outcome::Failed(why) => {
                        let _ = writeln!(s, "  {key:<26} FAILED: {why}");
                    }
                }
            }
        }
        let _ = writeln!(s);
        let _ = writeln!(s, "validation messages: {}", self.messages.len());
        for m in self.messages.iter().take(20) {
            let _ = writeln!(s, "  {m}");
        }
        s
    }

    pub fn json(&self) -> String {
        let scenarios: Vec<String> = Scenario::ALL
            .iter()
            .map(|&sc| {
                let base = self.baseline(sc);
                let strategies: Vec<String> = self
                    .results
                    .iter()
                    .filter(|r| r.scenario == sc)
                    .map(|r| {
                        let head = format!(
                            "{{\"key\": \"{}\", \"per_draw\": {}",
                            r.strategy.key(),
                            json_str(r.strategy.per_draw())
                        );
                        match &r.outcome {
                            Outcome::Measured(v) => {
                                let m = median(v);
                                let samples: Vec<String> =
                                    v.iter().map(|x| format!("{x:.1}")).collect();
                                let ratio = base
                                    .filter(|b| *b > 0.0)
                                    .map(|b| format!("{:.4}", m / b))
                                    .unwrap_or_else(|| "null".into());
                                format!(
                                    "{head}, \"k_draws_s\": {m:.1}, \"us_per_draw\": {:.4}, \
                                     \"ratio_to_baseline\": {ratio}, \"samples\": [{}]}}",
                                    1e3 / m.max(1e-9),
                                    samples.join(", ")
                                )
                            }
                            Outcome::Skipped(why) => {
                                format!("{head}, \"skipped\": {}}}", json_str(why))
                            }
                            Outcome::Failed(why) => {
                                format!("{head}, \"failed\": {}}}", json_str(why))
                            }
                        }
                    })
                    .collect();
                format!(
                    "{{\"key\": \"{}\", \"label\": {}, \"strategies\": [{}]}}",
                    sc.key(),
                    json_str(sc.label()),
                    strategies.join(", ")
                )
            })
            .collect();
        let messages: Vec<String> = self.messages.iter().map(|m| json_str(m)).collect();
        format!(
            "{{\"benchmark\": \"descriptors\", \"device\": {}, \"driver\": {}, \"draws\": {}, \
             \"repetitions\": {}, \"lp_num_threads\": {}, \"validation\": {}, \"scenarios\": [{}], \
             \"validation_messages\": [{}]}}\n",
            json_str(&self.device),
            json_str(self.driver.trim()),
            self.draws,
            self.repetitions,
            self.lp_num_threads
                .as_deref()
                .map(json_str)
                .unwrap_or_else(|| "null".into()),
            self.validation,
            scenarios.join(", "),
            messages.join(", ")
        )
    }
}
