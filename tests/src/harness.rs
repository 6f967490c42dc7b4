//! Harness (placeholder).
