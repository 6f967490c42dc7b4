//! Shared test helpers: spirv-val through the spirv-tools crate (installed
//! tools), and disassembly through rspirv.
#![allow(dead_code)]

use spirv_gen::emit::{self, Target};
use spirv_gen::ir::Shader;
use spirv_tools::val::Validator;

pub const TARGETS: [Target; 2] = [Target::Vulkan1_1, Target::Vulkan1_3];

pub fn env(t: Target) -> spirv_tools::TargetEnv {
    match t {
        Target::Vulkan1_1 => spirv_tools::TargetEnv::Vulkan_1_1,
        Target::Vulkan1_2 => spirv_tools::TargetEnv::Vulkan_1_2,
        Target::Vulkan1_3 => spirv_tools::TargetEnv::Vulkan_1_3,
    }
}

/// Runs spirv-val on `words` for `target`.
pub fn spirv_val(words: &[u32], target: Target) -> Result<(), String> {
    let v = spirv_tools::val::create(Some(env(target)));
    v.validate(words, None).map_err(|e| format!("{e}"))
}

/// Emits `s` for both targets and spirv-vals each; panics with the
/// disassembly on failure.
pub fn emit_and_validate(name: &str, s: &Shader) {
    for t in TARGETS {
        let words = emit::emit(s, t).unwrap_or_else(|e| panic!("{name}: emit failed: {e}"));
        if let Err(e) = spirv_val(&words, t) {
            panic!(
                "{name} ({}): spirv-val failed: {e}\n{}",
                t.name(),
                disassemble(&words)
            );
        }
    }
}

pub fn disassemble(words: &[u32]) -> String {
    use rspirv::binary::Disassemble;
    match rspirv::dr::load_words(words) {
        Ok(m) => m.disassemble(),
        Err(e) => format!("<cannot load: {e}>"),
    }
}

/// A fragment shader for the demote tests (`demote_worthwhile` in the IR
/// and on SPIR-V): `OP` is replaced with the instruction computing `%1`
/// (a texture access) and `EXTRA` with lines before the store.
#[allow(dead_code)]
pub const DEMOTE_FS_TEMPLATE: &str = "shader fragment
in @uv : f32x2 location=0
out @frag : f32x4 location=0
texture @t slot=0 dim=2d sampled=float
ssbo @b slot=0
fn main {
  %0 : f32x2 = load @uv
  %5 : f32 = const 0.0
  %1 : f32x4 = OP
EXTRA  store @frag, %1
}
";
