//! Shader and compute state templates.
//!
//! Gallium's `pipe_shader_state` carries either TGSI tokens or a `nir_shader *`
//! behind a type tag. pipe-core cannot name the shader IR (it depends on
//! nothing of ours), so [`ShaderCode`] carries either an opaque IR object
//! (pipe-vk downcasts it to `spirv_gen`'s shader type) or SPIR-V words for
//! frontends that compile their own (ARB_gl_spirv). IR objects hash and
//! compare by identity, SPIR-V by content, which is what the CSO table needs.

use std::any::Any;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use crate::resource::Resource;
use crate::state::{ShaderStage, MAX_SO_BUFFERS};

/// The code of a shader.
#[derive(Clone)]
pub enum ShaderCode {
    /// A driver-IR shader object (`PIPE_SHADER_IR_NIR` in Gallium). The
    /// backend downcasts it; a type it does not know is `InvalidArgument`.
    Ir(Arc<dyn Any + Send + Sync>),
    /// SPIR-V words with the entry point name.
    SpirV {
        words: Arc<[u32]>,
        entry_point: String,
    },
}

impl std::fmt::Debug for ShaderCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ShaderCode::Ir(ir) => write!(f, "Ir({:p})", Arc::as_ptr(ir)),
            ShaderCode::SpirV { words, entry_point } => {
                write!(f, "SpirV({} words, {entry_point:?})", words.len())
            }
        }
    }
}

impl PartialEq for ShaderCode {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (ShaderCode::Ir(a), ShaderCode::Ir(b)) => {
                std::ptr::addr_eq(Arc::as_ptr(a), Arc::as_ptr(b))
            }
            (
                ShaderCode::SpirV {
                    words: a,
                    entry_point: ea,
                },
                ShaderCode::SpirV {
                    words: b,
                    entry_point: eb,
                },
            ) => a == b && ea == eb,
            _ => false,
        }
    }
}

impl Eq for ShaderCode {}

impl Hash for ShaderCode {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match self {
            ShaderCode::Ir(ir) => (Arc::as_ptr(ir) as *const () as usize).hash(state),
            ShaderCode::SpirV { words, entry_point } => {
                words.hash(state);
                entry_point.hash(state);
            }
        }
    }
}

/// One output captured by stream output (`struct pipe_stream_output`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StreamOutput {
    /// The shader's output, counted in declaration order (TGSI's `OUT[n]`;
    /// for spirv-gen IR, the n-th output variable, built-ins included).
    pub register_index: u8,
    /// The first component captured. For an array output (clip or cull
    /// distances, an array varying) components count across the
    /// elements: component `k` is element `k / width`, component
    /// `k % width` of it (a capture stays in one element unless the
    /// elements are scalars).
    pub start_component: u8,
    /// 1 to 4.
    pub num_components: u8,
    pub output_buffer: u8,
    /// Offset in dwords.
    pub dst_offset: u16,
    pub stream: u8,
}

/// `struct pipe_stream_output_info`: what the last vertex-processing stage
/// (vertex, tessellation evaluation or geometry shader) writes to the bound
/// stream-output targets. Ignored on a shader that is not the last stage.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct StreamOutputInfo {
    /// Strides in dwords.
    pub stride: [u16; MAX_SO_BUFFERS],
    pub output: Vec<StreamOutput>,
}

/// `struct pipe_shader_state`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ShaderState {
    pub stage: ShaderStage,
    pub code: ShaderCode,
    pub stream_output: StreamOutputInfo,
}

/// `struct pipe_compute_state`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ComputeState {
    pub code: ShaderCode,
    /// Shared (LOCAL) memory in bytes beyond what the shader declares.
    pub static_shared_mem: u32,
    /// Size of the INPUT area in bytes.
    pub req_input_mem: u32,
}

/// `struct pipe_grid_info`.
#[derive(Clone, Debug, Default)]
pub struct GridInfo {
    /// Workgroup size.
    pub block: [u32; 3],
    /// Size of the last partial block, or zeros.
    pub last_block: [u32; 3],
    /// Number of workgroups.
    pub grid: [u32; 3],
    /// Base workgroup id.
    pub grid_base: [u32; 3],
    /// Indirect dispatch parameters (3 x u32 at `indirect_offset`).
    pub indirect: Option<Resource>,
    pub indirect_offset: u32,
    /// Data for the INPUT memory area.
    pub input: Vec<u8>,
    /// Variable shared memory size in bytes.
    pub variable_shared_mem: u32,
}

/// `struct pipe_compute_state_object_info`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ComputeStateInfo {
    pub max_threads: u32,
    pub preferred_simd_size: u32,
    /// Bitmask of SIMD sizes the kernel may run with.
    pub simd_sizes: u32,
    pub private_memory: u32,
}
