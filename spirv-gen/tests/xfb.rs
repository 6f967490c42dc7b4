//! Transform feedback: the `xfb_*`/`stream` output attributes (text form,
//! validator, emitter) and the [`lower_xfb`] pass, with every emitted
//! module spirv-val'd for both targets.
mod common;

use spirv_gen::ir::*;
use spirv_gen::passes::xfb::{lower_xfb, nth_output, XfbCapture};
use spirv_gen::passes::{self, VariantKey};
use spirv_gen::text::{parse, print};
use spirv_gen::validate::validate;

const VS: &str = "shader vertex
in @a_pos : f32x4 location=0
in @a_col : f32x4 location=1
out @pos : f32x4 builtin=position
out @col : f32x4 location=0
out @tc : f32x2 location=1
out @id : u32 location=2 flat
fn main {
  %0 : f32x4 = load @a_pos
  %1 : f32x4 = load @a_col
  store @pos, %0
  store @col, %1
  %2 : f32x2 = swizzle %1, xy
  store @tc, %2
  %3 : u32 = const 7
  store @id, %3
}
";

fn cap(output: u32, start: u32, n: u32, buffer: u32, offset: u32) -> XfbCapture {
    XfbCapture {
        output,
        start_component: start,
        num_components: n,
        buffer,
        offset,
        stream: 0,
    }
}

/// Lowers `src` with `captures`, then the GL lowerings of `key`; checks
/// the result validates, emits and passes spirv-val; returns it.
fn captured(src: &str, captures: &[XfbCapture], strides: [u32; 4], key: &str) -> Shader {
    let mut s = parse(src).unwrap();
    validate(&s).unwrap();
    lower_xfb(&mut s, captures, strides).unwrap();
    validate(&s).unwrap_or_else(|e| panic!("{e}\n{}", print(&s)));
    passes::lower(&mut s, &VariantKey::parse(key).unwrap()).unwrap();
    passes::optimize(&mut s);
    validate(&s).unwrap_or_else(|e| panic!("{e}\n{}", print(&s)));
    common::emit_and_validate("xfb", &s);
    s
}

fn xfb_of(s: &Shader, name: &str) -> Option<(Xfb, u32)> {
    let io = s.var(s.find_var(name)?).io()?;
    io.xfb.map(|x| (x, io.stream))
}

fn disasm(s: &Shader) -> String {
    let words = spirv_gen::emit::emit(s, spirv_gen::emit::Target::Vulkan1_3).unwrap();
    common::disassemble(&words)
}

#[test]
fn outputs_are_named_in_declaration_order() {
    let s = parse(VS).unwrap();
    let name = |i| nth_output(&s, i).map(|v| s.var(v).name.clone());
    assert_eq!(name(0).as_deref(), Some("pos"));
    assert_eq!(name(3).as_deref(), Some("id"));
    assert_eq!(name(4), None);
}

#[test]
fn whole_outputs_are_decorated_in_place() {
    // Interleaved: col (16 bytes) then id (4 bytes) in buffer 0; tc alone
    // in buffer 1.
    let s = captured(
        VS,
        &[cap(1, 0, 4, 0, 0), cap(3, 0, 1, 0, 16), cap(2, 0, 2, 1, 0)],
        [20, 8, 0, 0],
        "",
    );
    let x = |b, o, st| Xfb {
        buffer: b,
        offset: o,
        stride: st,
    };
    assert_eq!(xfb_of(&s, "col"), Some((x(0, 0, 20), 0)));
    assert_eq!(xfb_of(&s, "id"), Some((x(0, 16, 20), 0)));
    assert_eq!(xfb_of(&s, "tc"), Some((x(1, 0, 8), 0)));
    // No copies were needed.
    assert_eq!(
        s.vars.iter().filter(|v| v.name.starts_with("xfb")).count(),
        0
    );
    let d = disasm(&s);
    for want in [
        "OpCapability TransformFeedback",
        " Xfb\n",
        "XfbBuffer 1",
        "XfbStride 20",
        "Offset 16",
    ] {
        assert!(d.contains(want), "missing {want:?}:\n{d}");
    }
}

#[test]
fn component_subsets_and_builtins_go_through_copies() {
    // col.yz at offset 0, position.xy at offset 8, col whole at 16.
    let s = captured(
        VS,
        &[cap(1, 1, 2, 0, 0), cap(0, 0, 2, 0, 8), cap(1, 0, 4, 0, 16)],
        [32, 0, 0, 0],
        "last_vertex_stage",
    );
    let copy0 = s.find_var("xfb0_col").expect("copy of col.yz");
    let copy1 = s.find_var("xfb1_pos").expect("copy of position.xy");
    assert_eq!(s.var(copy0).ty, Type::float(32, 2));
    assert_eq!(s.var(copy1).ty, Type::float(32, 2));
    // Fresh locations after the shader's own (0..3).
    let loc = |v| s.var(v).io().unwrap().location;
    assert_eq!((loc(copy0), loc(copy1)), (Some(3), Some(4)));
    assert_eq!(xfb_of(&s, "col").map(|(x, _)| x.offset), Some(16));
    assert_eq!(xfb_of(&s, "pos"), None, "built-ins are never decorated");
    // The position copy is stored before the depth-range lowering (the
    // fmul by 0.5) rewrites the position: it captures what the shader
    // wrote.
    let txt = print(&s);
    let copy_store = txt.find("store @xfb1_pos").expect("copy store");
    let halfz = txt.find("fmul").expect("depth-range lowering");
    assert!(copy_store < halfz, "{txt}");
}

/// `lower_xfb_copies` decorates no output in place: a whole user output
/// is captured through a copy too, and the output itself stays
/// undecorated for the rasterizer.
#[test]
fn copies_only_decorate_no_output() {
    let mut s = parse(VS).unwrap();
    let caps = [cap(1, 0, 4, 0, 0), cap(3, 0, 1, 0, 16)];
    spirv_gen::passes::xfb::lower_xfb_copies(&mut s, &caps, [20, 0, 0, 0]).unwrap();
    validate(&s).unwrap_or_else(|e| panic!("{e}\n{}", print(&s)));
    assert_eq!(xfb_of(&s, "col"), None);
    assert_eq!(xfb_of(&s, "id"), None);
    let offset = |n: &str| xfb_of(&s, n).map(|(x, _)| x.offset);
    assert_eq!((offset("xfb0_col"), offset("xfb1_id")), (Some(0), Some(16)));
    common::emit_and_validate("xfb copies", &s);
}

/// An application geometry shader with an output at location 25, or 28.
fn gs_at(location: u32) -> String {
    format!(
        "shader geometry input=triangles output=triangle_strip max_vertices=3 invocations=1
in @p : f32x4[3] builtin=position
out @gl_pos : f32x4 builtin=position
out @a : f32x4 location={location}
fn main {{
  %0 : i32 = const 0
  %1 : i32 = const 1
  %2 : i32 = const 2
  %3 : f32x4 = load @p, %0
  %4 : f32x4 = load @p, %1
  %5 : f32x4 = load @p, %2
  store @gl_pos, %3
  store @a, %3
  emit_vertex
  store @gl_pos, %4
  store @a, %4
  emit_vertex
  store @gl_pos, %5
  store @a, %5
  emit_vertex
  end_primitive
}}
"
    )
}

/// Copies made for a shader an emulation lowers further stay off the
/// driver's locations (26..=31), found by the review of the captured
/// re-emission: the aliased widening adds its edge distances at 26, the
/// polygon-line stipple its position at 29. `lower_xfb` itself keeps
/// taking them.
#[test]
fn copies_stay_off_driver_locations() {
    use spirv_gen::passes::xfb::DRIVER_LOCATIONS;
    use spirv_gen::passes::xfb::{copy_room, lower_xfb_copies, lower_xfb_reserving};
    let loc = |s: &Shader, n: &str| s.var(s.find_var(n).unwrap()).io().unwrap().location;
    let mut s = parse(&gs_at(25)).unwrap();
    assert_eq!(copy_room(&s, DRIVER_LOCATIONS), 25);
    lower_xfb_copies(&mut s, &[cap(1, 0, 4, 0, 0)], [16, 0, 0, 0]).unwrap();
    assert_eq!(loc(&s, "xfb0_a"), Some(0));
    spirv_gen::passes::aliased::lower_aliased_gs(&mut s, false, 0, None, true).unwrap();
    validate(&s).unwrap();
    let mut s = parse(&gs_at(28)).unwrap();
    lower_xfb_reserving(
        &mut s,
        &[cap(0, 0, 4, 0, 0)],
        [16, 0, 0, 0],
        DRIVER_LOCATIONS,
    )
    .unwrap();
    assert_eq!(loc(&s, "xfb0_gl_pos"), Some(0));
    spirv_gen::passes::line_stipple::lower_polygon_line_stipple_gs(&mut s, false, true).unwrap();
    validate(&s).unwrap();
    let mut s = parse(&gs_at(28)).unwrap();
    lower_xfb(&mut s, &[cap(0, 0, 4, 0, 0)], [16, 0, 0, 0]).unwrap();
    assert_eq!(loc(&s, "xfb0_gl_pos"), Some(29));
}

/// The aliased-triangle shader's capture keeps its copies off the
/// locations the caller reserves (where outputs move afterwards) and off
/// the driver's; with no room left it is an error, which pipe-vk checks
/// before choosing it (`pipe.streamout.aliased.no_room`).
#[test]
fn aliased_capture_reserves_locations() {
    use spirv_gen::passes::aliased::aliased_triangles_gs_xfb;
    use spirv_gen::passes::xfb::Takeover;
    let prev = parse(VS).unwrap();
    let caps = [cap(1, 0, 4, 0, 0), cap(0, 0, 4, 0, 16)];
    let xfb = Takeover {
        captures: &caps,
        strides: [32, 0, 0, 0],
        reserved: 1 << 3 | 1 << 5,
    };
    let gs = aliased_triangles_gs_xfb(&prev, false, 0, None, false, xfb).unwrap();
    let mut copies: Vec<u32> = gs
        .vars
        .iter()
        .filter(|v| v.name.starts_with("xfb"))
        .filter_map(|v| v.io()?.location)
        .collect();
    copies.sort();
    assert_eq!(copies, [4, 6]);
    common::emit_and_validate("aliased capture", &gs);
    let many: Vec<XfbCapture> = (0..24).map(|k| cap(1, k % 4, 1, 0, 4 * k)).collect();
    let xfb = Takeover {
        captures: &many,
        strides: [96, 0, 0, 0],
        reserved: 0,
    };
    let e = aliased_triangles_gs_xfb(&prev, false, 0, None, false, xfb).unwrap_err();
    assert!(e.to_string().contains("no free output location"), "{e}");
}

/// Copies take the locations past the shader's outputs first, then the
/// gaps below them: a shader with an output at location 30 (GL's back
/// colour) still has room for its captured copies.
#[test]
fn copies_fill_gaps_when_the_top_is_taken() {
    let src = VS.replace(
        "out @id : u32 location=2 flat",
        "out @id : u32 location=30 flat",
    );
    let caps: Vec<XfbCapture> = (0..4).map(|i| cap(0, i, 1, 0, 4 * i)).collect();
    let s = captured(&src, &caps, [16, 0, 0, 0], "last_vertex_stage");
    let locs: Vec<Option<u32>> = (0..4)
        .map(|i| {
            let v = s.find_var(&format!("xfb{i}_pos")).expect("copy");
            s.var(v).io().unwrap().location
        })
        .collect();
    assert_eq!(locs, [Some(31), Some(2), Some(3), Some(4)]);
    // Past 32 locations in all: an error, not a location out of range.
    let caps: Vec<XfbCapture> = (0..30).map(|i| cap(0, i % 4, 1, 0, 4 * i)).collect();
    let mut s = parse(&src).unwrap();
    let e = lower_xfb(&mut s, &caps, [120, 0, 0, 0]).unwrap_err();
    assert!(e.to_string().contains("no free output location"), "{e}");
}

#[test]
fn a_second_capture_of_one_output_is_a_copy() {
    let s = captured(
        VS,
        &[cap(1, 0, 4, 0, 0), cap(1, 0, 4, 1, 0)],
        [16, 16, 0, 0],
        "",
    );
    assert_eq!(xfb_of(&s, "col").map(|(x, _)| x.buffer), Some(0));
    assert_eq!(xfb_of(&s, "xfb1_col").map(|(x, _)| x.buffer), Some(1));
}

const GS: &str = "shader geometry input=points output=points max_vertices=2 invocations=1
in @pin : f32x4[1] builtin=position
out @pos : f32x4 builtin=position
out @a : f32x4 location=0
out @b : f32x2 location=1 stream=1
fn main {
  %0 : i32 = const 0
  %1 : f32x4 = load @pin, %0
  store @pos, %1
  store @a, %1
  emit_vertex
  %2 : f32x2 = swizzle %1, zw
  store @b, %2
  emit_vertex stream=1
  end_primitive stream=1
}
";

#[test]
fn geometry_streams() {
    // a (stream 0) into buffer 0; b (stream 1) whole into buffer 1; the x
    // of a again into buffer 2 from stream 1 (a copy, decorated Stream 1).
    let s = captured(
        GS,
        &[
            cap(1, 0, 4, 0, 0),
            XfbCapture {
                stream: 1,
                ..cap(2, 0, 2, 1, 0)
            },
            XfbCapture {
                stream: 1,
                ..cap(1, 0, 1, 2, 0)
            },
        ],
        [16, 8, 4, 0],
        "last_vertex_stage",
    );
    assert_eq!(xfb_of(&s, "b").map(|(x, st)| (x.buffer, st)), Some((1, 1)));
    assert_eq!(
        xfb_of(&s, "xfb2_a").map(|(x, st)| (x.buffer, st)),
        Some((2, 1))
    );
    let d = disasm(&s);
    for want in [
        "OpCapability GeometryStreams",
        "OpCapability TransformFeedback",
        "Stream 1",
        "OpEmitStreamVertex",
    ] {
        assert!(d.contains(want), "missing {want:?}:\n{d}");
    }
    // The copy is refreshed before each emit.
    let txt = print(&s);
    assert_eq!(txt.matches("store @xfb2_a").count(), 2, "{txt}");
}

#[test]
fn tess_eval_outputs_are_captured() {
    let src = "shader tess_eval mode=triangles spacing=equal winding=ccw
in @tc : f32x4[32] location=0
out @pos : f32x4 builtin=position
out @v : f32x3 location=0
fn main {
  %0 : i32 = const 0
  %1 : f32x4 = load @tc, %0
  store @pos, %1
  %2 : f32x3 = swizzle %1, xyz
  store @v, %2
}
";
    let s = captured(
        src,
        &[cap(1, 0, 3, 0, 4)],
        [16, 0, 0, 0],
        "last_vertex_stage",
    );
    assert_eq!(xfb_of(&s, "v").map(|(x, _)| x.offset), Some(4));
}

#[test]
fn text_form_round_trips() {
    let src = "shader geometry input=points output=points max_vertices=1 invocations=1
out @b : f32x2 location=1 xfb_buffer=2 xfb_offset=8 xfb_stride=16 stream=3
fn main {
  %0 : f32x2 = const 0.0, 1.0
  store @b, %0
  emit_vertex stream=3
}
";
    let s = parse(src).unwrap();
    validate(&s).unwrap();
    assert_eq!(print(&s), src);
    assert_eq!(
        xfb_of(&s, "b"),
        Some((
            Xfb {
                buffer: 2,
                offset: 8,
                stride: 16
            },
            3
        ))
    );
    common::emit_and_validate("round trip", &s);
    let e = parse(&src.replace(" xfb_stride=16", "")).unwrap_err();
    assert!(e.to_string().contains("go together"), "{e}");
}

#[test]
fn validator_rejects_bad_decorations() {
    let cases = [
        // Different strides for one buffer.
        (
            "out @a : f32x4 location=0 xfb_buffer=0 xfb_offset=0 xfb_stride=32\nout @b : f32x4 location=1 xfb_buffer=0 xfb_offset=16 xfb_stride=48",
            "strides",
        ),
        // Overlap.
        (
            "out @a : f32x4 location=0 xfb_buffer=0 xfb_offset=0 xfb_stride=32\nout @b : f32x4 location=1 xfb_buffer=0 xfb_offset=12 xfb_stride=32",
            "overlap",
        ),
        // Past the stride.
        (
            "out @a : f32x4 location=0 xfb_buffer=0 xfb_offset=8 xfb_stride=16",
            "exceeds",
        ),
        // Unaligned.
        (
            "out @a : f32 location=0 xfb_buffer=0 xfb_offset=2 xfb_stride=16",
            "multiples of 4",
        ),
        // Buffer out of range.
        (
            "out @a : f32 location=0 xfb_buffer=4 xfb_offset=0 xfb_stride=16",
            "out of range",
        ),
        // Streams belong to geometry shaders.
        ("out @a : f32 location=0 stream=1", "geometry"),
    ];
    for (decl, want) in cases {
        let src = format!("shader vertex\n{decl}\nfn main {{\n}}\n");
        let s = parse(&src).unwrap();
        let e = validate(&s).unwrap_err();
        assert!(e.to_string().contains(want), "{decl}: {e}");
    }
    let fs = "shader fragment\nout @c : f32x4 location=0 xfb_buffer=0 xfb_offset=0 xfb_stride=16\nfn main {\n}\n";
    let e = validate(&parse(fs).unwrap()).unwrap_err();
    assert!(e.to_string().contains("xfb only"), "{e}");
}

#[test]
fn lowering_rejects_what_it_cannot_capture() {
    let with_clip = "shader vertex
out @pos : f32x4 builtin=position
out @clip : f32[2] builtin=clip_distance
fn main {
}
";
    let fs = "shader fragment
out @c : f32x4 location=0
fn main {
}
";
    let with_arr = "shader vertex
out @pos : f32x4 builtin=position
out @arr : f32x4[2] location=0
fn main {
}
";
    let cases: [(&str, XfbCapture, &str); 6] = [
        (VS, cap(9, 0, 1, 0, 0), "no output 9"),
        (VS, cap(1, 2, 3, 0, 0), "components 2..5"),
        (VS, cap(1, 0, 4, 4, 0), "buffer 4"),
        (
            with_clip,
            cap(1, 1, 2, 0, 0),
            "components 1..3 of @clip, which has 2",
        ),
        (fs, cap(0, 0, 4, 0, 0), "fragment"),
        (with_arr, cap(1, 3, 2, 0, 0), "in one element"),
    ];
    for (src, c, want) in cases {
        let mut s = parse(src).unwrap();
        let e = lower_xfb(&mut s, &[c], [16, 16, 16, 16]).unwrap_err();
        assert!(e.to_string().contains(want), "{c:?}: {e}");
    }
    let mut s = parse(VS).unwrap();
    let e = lower_xfb(
        &mut s,
        &[XfbCapture {
            stream: 1,
            ..cap(1, 0, 4, 0, 0)
        }],
        [16, 0, 0, 0],
    )
    .unwrap_err();
    assert!(e.to_string().contains("stream 1 in a vertex"), "{e}");
}
