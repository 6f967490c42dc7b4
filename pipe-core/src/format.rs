//! Formats (placeholder: being written).
