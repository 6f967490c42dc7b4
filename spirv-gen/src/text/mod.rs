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
//! 0), `builtin=`, `slot=`, `flat`/`noperspective`, `centroid`/`sample`,
//! `patch`, `invariant`.

mod parse;
mod print;

pub use parse::parse;
pub use print::print;
