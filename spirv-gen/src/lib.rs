//! spirv-gen: the shader IR of pipe-vk and its SPIR-V emitter.
//!
//! The path of a shader:
//!
//! 1. a frontend builds it with [`builder::Builder`], or it is parsed from
//!    the text form ([`text::parse`]);
//! 2. [`validate::validate`] checks it (types, SSA dominance, structured
//!    control flow, stage-legal intrinsics);
//! 3. pipe-vk specializes it per bound state with [`passes::lower`] and a
//!    [`passes::VariantKey`] (GL lowerings, then the vector splitting
//!    SPIR-V needs, [`passes::split`]), then optimizes
//!    ([`passes::optimize`]);
//! 4. [`emit::emit`] writes SPIR-V words for a [`emit::Target`]
//!    (Vulkan 1.1 / SPIR-V 1.3 by default, up to Vulkan 1.3 / SPIR-V 1.6).
//!
//! A frontend's own SPIR-V (ARB_gl_spirv) skips steps 1 to 3; what its
//! variants need is patched into the words by [`patch`].
//!
//! Gallium slots map to Vulkan descriptor sets and bindings as documented
//! in [`binding`], with the driver's push constant block and driver
//! constant buffer.

pub mod binding;
pub mod builder;
pub mod emit;
pub mod error;
pub mod ir;
pub mod passes;
pub mod patch;
pub mod text;
pub mod validate;

pub use error::{Error, Result};
pub use ir::Shader;

/// Parse, validate, lower with `key`, optimize and emit: the whole chain.
pub fn compile(src: &str, key: &passes::VariantKey, target: emit::Target) -> Result<Vec<u32>> {
    let mut s = text::parse(src)?;
    validate::validate(&s)?;
    passes::lower(&mut s, key)?;
    passes::optimize(&mut s);
    validate::validate(&s)?;
    emit::emit(&s, target)
}
