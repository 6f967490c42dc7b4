//! The crate's error type: a message, and where it happened when known
//! (a source position from the text form, and/or the SSA value concerned).
//!
//! Every fallible entry point (parser, validator, passes, emitter) returns
//! [`Error`]; none of them panics on bad input.

use crate::ir::{SrcLoc, ValueId};
use std::fmt;

/// An error with an optional source position and value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub msg: String,
    pub loc: Option<SrcLoc>,
    pub value: Option<ValueId>,
}

impl Error {
    pub fn new(msg: impl Into<String>) -> Error {
        Error {
            msg: msg.into(),
            loc: None,
            value: None,
        }
    }
    pub fn at(loc: Option<SrcLoc>, msg: impl Into<String>) -> Error {
        Error {
            msg: msg.into(),
            loc,
            value: None,
        }
    }
    pub fn with_value(mut self, v: Option<ValueId>) -> Error {
        self.value = v;
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(l) = self.loc {
            write!(f, "{l}: ")?;
        }
        write!(f, "error: {}", self.msg)?;
        if let Some(v) = self.value {
            write!(f, " (in %{})", v.0)?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;
