//! Test cases (placeholder).
