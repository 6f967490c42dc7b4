//! Primitive conversion by index rewriting (being written).
