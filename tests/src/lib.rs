//! pipe-cts library (placeholder: the runner is being written).

pub mod cases;
pub mod harness;
