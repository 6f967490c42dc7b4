//! The text form: a line-oriented, canonical notation of the IR.
//!
//! ```text
//! shader fragment
//! in @color : f32x4 location=0 slot=col0
//! out @frag : f32x4 location=0
//! texture @t slot=0 dim=2d sampled=float
//! fn main {
//!   %0 : f32x4 = load @color
//!   store @frag, %0
//! }
//! ```
//!
//! [`print()`] writes the canonical form; [`parse()`] reads it (and a few
//! non-canonical spellings: any attribute order, extra blank space, `#`
//! comments), so `print(parse(t)) == t` holds for canonical text. Parse
//! errors carry line:column; the parser never panics.
//!
//! Interface attributes: `location=`, `component=`, `index=` (1 marks the
//! second source of dual-source blending, a fragment output at location
//! 0), `builtin=`, `slot=` (a GL semantic: `col0`, `col1`, `bfc0`, `bfc1`,
//! `tex0`..`tex7`, `edge`; [`crate::ir::GlSlot`]), `flat`/`noperspective`,
//! `centroid`/`sample`, `patch`, `invariant`.
//!
//! Arrays: `@v : f32x4[2]`; a per-vertex input (or a tessellation control
//! shader's per-vertex output) is an array over the vertices,
//! `@pos : f32x4[3] builtin=position`, and one whose element is itself an
//! array is written `@cd : f32[3][2] builtin=clip_distance` and indexed
//! flat, `load @cd, %i` with `%i = vertex * 2 + element`
//! ([`crate::ir::Variable::inner`]).

mod parse;
mod print;

pub use parse::parse;
pub use print::print;
