//! pipe-tools: the library half of the command-line tools.
//!
//! The binaries (`pipe-info`, `pipe-spirv`, `pipe-bench`) are single
//! files under `src/bin/`. Code that is big enough to want a module of
//! its own, or that more than one binary may use, lives here, so that a
//! binary stays a thin command-line front over it:
//!
//! - [`descriptors`]: `pipe-bench descriptors`, the raw-Vulkan comparison
//!   of descriptor strategies (issue 7);
//! - [`json_str`]: the JSON string literal the tools' `--json` output uses.

use std::fmt::Write as _;

pub mod descriptors;

/// A JSON string literal.
pub fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
