//! The one error type of the pipe interface.
//!
//! Gallium reports failure through NULL returns and booleans; we use
//! `Result<_, PipeError>` with a deliberately small enum. Call sites carry
//! their detail in the message of `InvalidArgument`/`Unsupported`, not in
//! new variants.

use std::fmt;

/// Errors returned by every fallible pipe-core call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PipeError {
    /// Host or device memory could not be allocated.
    OutOfMemory,
    /// The device was lost; the context is unusable (see "Device resets").
    DeviceLost,
    /// The request is valid but this driver or device cannot do it.
    Unsupported(String),
    /// The frontend passed something the interface does not allow.
    InvalidArgument(String),
    /// `PIPE_MAP_DONTBLOCK` (or a non-waiting query) would have had to wait.
    WouldBlock,
}

impl PipeError {
    /// Shorthand for `PipeError::InvalidArgument(msg.into())`.
    pub fn invalid(msg: impl Into<String>) -> Self {
        PipeError::InvalidArgument(msg.into())
    }

    /// Shorthand for `PipeError::Unsupported(msg.into())`.
    pub fn unsupported(msg: impl Into<String>) -> Self {
        PipeError::Unsupported(msg.into())
    }
}

impl fmt::Display for PipeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PipeError::OutOfMemory => f.write_str("out of memory"),
            PipeError::DeviceLost => f.write_str("device lost"),
            PipeError::Unsupported(m) => write!(f, "unsupported: {m}"),
            PipeError::InvalidArgument(m) => write!(f, "invalid argument: {m}"),
            PipeError::WouldBlock => f.write_str("operation would block"),
        }
    }
}

impl std::error::Error for PipeError {}

/// Result alias used throughout the interface.
pub type PipeResult<T> = Result<T, PipeError>;
