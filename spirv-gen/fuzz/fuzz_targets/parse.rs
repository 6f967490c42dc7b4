#![no_main]
//! Fuzz the text parser (and, for text that parses and validates, the
//! lowering, optimization and emission that follow).

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(s) = spirv_gen::text::parse(src) else {
        return;
    };
    // Printing must always work, and canonical text must round-trip.
    let t = spirv_gen::text::print(&s);
    if spirv_gen::validate::validate(&s).is_ok() {
        let again = spirv_gen::text::parse(&t).expect("printed text must parse");
        assert_eq!(spirv_gen::text::print(&again), t);
        let key = spirv_gen::passes::VariantKey::parse(
            "alpha=less:0.5,clip=0x3,two_side,flat,sprite=0x1,point_size=1.0,sample_shading,\
             polygon_stipple,lower_left_origin,pixel_center_integer,last_vertex_stage,\
             line_stipple",
        )
        .unwrap();
        let mut l = s.clone();
        if spirv_gen::passes::lower(&mut l, &key).is_ok() {
            spirv_gen::passes::optimize(&mut l);
            // Lowered and optimized IR stays valid and emits.
            spirv_gen::validate::validate(&l).expect("lowering keeps the IR valid");
            let _ = spirv_gen::emit::emit(&l, spirv_gen::emit::Target::Vulkan1_1);
        }
        let _ = spirv_gen::emit::emit(&s, spirv_gen::emit::Target::Vulkan1_3);
        // The line stipple geometry shader is valid whenever it is made.
        if let Ok(gs) = spirv_gen::passes::line_stipple::line_stipple_gs(&s, false) {
            spirv_gen::validate::validate(&gs).expect("generated geometry shader validates");
            let _ = spirv_gen::emit::emit(&gs, spirv_gen::emit::Target::Vulkan1_1);
        }
    }
});
