//! pipe-core: the backend-free Gallium interface.
//!
//! This crate mirrors Gallium's `pipe_screen` and `pipe_context`
//! (see `shared/spec/gallium-context.rst`) as Rust traits, together with the
//! state types, formats, resources, queries and flags they use. A frontend
//! (a GL state tracker, a test suite) is written against this crate alone and
//! never names a Vulkan type.
//!
//! Module map:
//! - [`error`]: the small `PipeError` enum.
//! - [`format`]: the `Format` enum and its description table.
//! - [`aux`]: the aux/resolve state machine of `spec/aux-state-machine.txt`.

pub mod aux;
pub mod error;
pub mod format;

pub use error::{PipeError, PipeResult};
