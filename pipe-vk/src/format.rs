//! Format mapping (placeholder: being written).
