//! Dual-source blending outputs: `index=1` on a fragment output at
//! location 0 parses, prints back, validates, emits an `Index` decoration
//! and passes spirv-val; every other use of `index` is refused.
mod common;

use spirv_gen::emit::{self, Target};
use spirv_gen::text::{parse, print};
use spirv_gen::validate::validate;

const FS: &str = "shader fragment
out @c0 : f32x4 location=0
out @c1 : f32x4 location=0 index=1
fn main {
  %0 : f32x4 = const 1.0, 0.5, 0.25, 1.0
  %1 : f32x4 = const 0.0, 0.25, 0.5, 0.75
  store @c0, %0
  store @c1, %1
}
";

#[test]
fn index_one_round_trips_and_passes_spirv_val() {
    let s = parse(FS).unwrap();
    validate(&s).unwrap();
    let printed = print(&s);
    assert!(printed.contains("index=1"), "{printed}");
    assert_eq!(parse(&printed).unwrap(), s);
    common::emit_and_validate("dual_source", &s);
    let words = emit::emit(&s, Target::Vulkan1_3).unwrap();
    let dis = common::disassemble(&words);
    assert!(dis.contains("Index 1"), "{dis}");
}

#[test]
fn index_elsewhere_is_refused() {
    let bad = [
        // Not location 0.
        "shader fragment\nout @c : f32x4 location=1 index=1\nfn main {\n}\n",
        // Index other than 0 or 1.
        "shader fragment\nout @c : f32x4 location=0 index=2\nfn main {\n}\n",
        // An input.
        "shader fragment\nin @c : f32x4 location=0 index=1\nfn main {\n}\n",
        // Another stage.
        "shader vertex\nout @c : f32x4 location=0 index=1\nfn main {\n}\n",
    ];
    for src in bad {
        let s = parse(src).unwrap_or_else(|e| panic!("{e}\n{src}"));
        let e = validate(&s).expect_err(src).to_string();
        assert!(e.contains("index"), "{src}: {e}");
    }
}
