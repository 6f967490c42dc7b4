//! pipe-core: the backend-free Gallium interface.
//!
//! This crate mirrors Gallium's `pipe_screen` and `pipe_context`
//! (see `shared/spec/gallium-context.rst`) as Rust traits, together with the
//! state types, formats, resources, queries and flags they use. A frontend
//! (a GL state tracker, a test suite) is written against this crate alone and
//! never names a Vulkan type.
//!
//! Layering, as in Gallium:
//! - [`Screen`] and [`Context`] are the driver interface (object safe).
//! - [`validate`] wraps any driver and rejects bad frontend input with
//!   `PipeError::InvalidArgument` before the driver sees it.
//! - [`noop`] is a driver that accepts everything and does nothing, like
//!   Gallium's noop driver; it proves the traits can be wrapped and backs the
//!   validation tests.
//!
//! Module map:
//! - [`error`]: the small `PipeError` enum.
//! - [`object`]: reference-counted driver objects with backend payloads.
//! - [`format`]: the `Format` enum and its description table.
//! - [`resource`], [`view`], [`state`], [`shader`], [`draw`], [`blit`],
//!   [`transfer`], [`query`], [`flags`], [`caps`]: the interface's types.
//! - [`cso`]: typed CSO handles and the hash-consing table.
//! - [`aux`]: the aux/resolve state machine of `spec/aux-state-machine.txt`.

pub mod aux;
pub mod blit;
pub mod caps;
pub mod context;
pub mod cso;
pub mod draw;
pub mod error;
pub mod flags;
pub mod format;
pub mod noop;
pub mod object;
pub mod query;
pub mod resource;
pub mod screen;
pub mod shader;
pub mod state;
pub mod transfer;
pub mod validate;
pub mod view;

pub use caps::Caps;
pub use context::Context;
pub use error::{PipeError, PipeResult};
pub use format::Format;
pub use resource::{PipeBox, Resource, ResourceTemplate, Target};
pub use screen::{Fence, Screen};
