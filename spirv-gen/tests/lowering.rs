//! One unit test per GL lowering, checking the lowered IR (and that it
//! still validates and passes spirv-val).
mod common;

use spirv_gen::ir::*;
use spirv_gen::passes::{self, gl, CompareFunc, VariantKey};
use spirv_gen::text::{parse, print};
use spirv_gen::validate::validate;

const FS: &str = "shader fragment
in @col : f32x4 location=0 slot=col0
in @tc : f32x4 location=1 slot=tex2
out @frag : f32x4 location=0
fn main {
  %0 : f32x4 = load @col
  %1 : f32x4 = load @tc
  %2 : f32x4 = fadd %0, %1
  store @frag, %2
}
";

const VS: &str = "shader vertex
in @pos : f32x4 location=0
in @v : f32x4 location=1
out @gl_pos : f32x4 builtin=position
fn main {
  %0 : f32x4 = load @pos
  %1 : f32x4 = load @v
  %2 : f32x4 = fadd %0, %1
  store @gl_pos, %2
}
";

fn lowered(src: &str, key: &str) -> Shader {
    let mut s = parse(src).unwrap();
    validate(&s).unwrap();
    passes::lower(&mut s, &VariantKey::parse(key).unwrap()).unwrap();
    validate(&s).unwrap_or_else(|e| panic!("{e}\n{}", print(&s)));
    common::emit_and_validate(key, &s);
    s
}

fn count(s: &Shader, f: impl Fn(&Instr) -> bool) -> usize {
    let mut n = 0;
    walk_instrs(&s.body, &mut |i| n += f(i) as usize);
    n
}

fn has_discard(body: &[Node]) -> bool {
    body.iter().any(|n| match n {
        Node::Jump(Jump::Discard, _) => true,
        Node::If(i) => has_discard(&i.then_body) || has_discard(&i.else_body),
        Node::Loop(l) => has_discard(&l.body),
        _ => false,
    })
}

#[test]
fn alpha_test_all_functions() {
    let expect = [
        ("never", None),
        ("less", Some(AluOp::Flt)),
        ("equal", Some(AluOp::Feq)),
        ("lequal", Some(AluOp::Fge)),
        ("greater", Some(AluOp::Flt)),
        ("notequal", Some(AluOp::Fneu)),
        ("gequal", Some(AluOp::Fge)),
    ];
    for (f, op) in expect {
        let s = lowered(FS, &format!("alpha={f}:0.5"));
        assert!(has_discard(&s.body), "{f}: no discard");
        if let Some(op) = op {
            assert_eq!(
                count(&s, |i| matches!(&i.op, Op::Alu(o, _) if *o == op)),
                1,
                "{f}"
            );
            assert_eq!(
                count(&s, |i| matches!(&i.op, Op::Alu(AluOp::Bnot, _))),
                1,
                "{f}"
            );
            // The test reads the colour output back at the exit.
            let frag = s.find_var("frag").unwrap();
            assert_eq!(
                count(
                    &s,
                    |i| matches!(&i.op, Op::Intrinsic(Intrinsic::Load { var, .. }) if *var == frag)
                ),
                1
            );
        } else {
            assert!(matches!(s.body.last(), Some(Node::Jump(Jump::Discard, _))));
        }
    }
    let s = lowered(FS, "alpha=always:0.5");
    assert!(!has_discard(&s.body));
    // Reference value is in the IR.
    let mut s = parse(FS).unwrap();
    gl::lower_alpha_test(&mut s, CompareFunc::Greater, 0.25).unwrap();
    assert!(print(&s).contains("= const 0.25\n"));
}

#[test]
fn clip_planes_to_clip_distance() {
    let s = lowered(VS, "clip=0x5");
    let clip = s
        .find_builtin(true, BuiltIn::ClipDistance)
        .expect("clip distance output");
    assert_eq!(s.var(clip).array, Some(3));
    assert_eq!(
        count(&s, |i| matches!(
            &i.op,
            Op::Intrinsic(Intrinsic::LoadPush { .. })
        )),
        2
    );
    assert_eq!(count(&s, |i| matches!(&i.op, Op::Alu(AluOp::Fdot, _))), 2);
    assert_eq!(
        count(
            &s,
            |i| matches!(&i.op, Op::Intrinsic(Intrinsic::Store { var, .. }) if *var == clip)
        ),
        3
    );
    assert!(s.vars.iter().any(
        |v| matches!(v.kind, VarKind::Push { size } if size >= spirv_gen::binding::push::SIZE)
    ));
    let txt = print(&s);
    assert!(
        txt.contains(&format!(
            "= const {}\n",
            spirv_gen::binding::push::CLIP_PLANES
        )),
        "{txt}"
    );
}

#[test]
fn flat_shading_of_colours() {
    let s = lowered(FS, "flat");
    let col = s.var(s.find_var("col").unwrap());
    assert_eq!(col.io().unwrap().interp, Interp::Flat);
    let tc = s.var(s.find_var("tc").unwrap());
    assert_eq!(tc.io().unwrap().interp, Interp::Smooth);
}

#[test]
fn two_sided_colour() {
    let s = lowered(FS, "two_side");
    let bfc = s
        .vars
        .iter()
        .find(|v| v.io().and_then(|io| io.slot) == Some(GlSlot::Bfc0))
        .expect("bfc0 added");
    assert_eq!(
        bfc.io().unwrap().location,
        Some(spirv_gen::binding::BFC0_LOCATION)
    );
    assert!(s.find_builtin(false, BuiltIn::FrontFacing).is_some());
    assert_eq!(count(&s, |i| matches!(&i.op, Op::Alu(AluOp::Bcsel, _))), 1);
    // The select defines the SSA id the original load defined.
    assert!(print(&s).contains("%0 : f32x4 = bcsel"));
}

#[test]
fn default_point_size() {
    let s = lowered(VS, "point_size=3.0");
    let ps = s
        .find_builtin(true, BuiltIn::PointSize)
        .expect("point size output");
    assert_eq!(
        count(
            &s,
            |i| matches!(&i.op, Op::Intrinsic(Intrinsic::Store { var, .. }) if *var == ps)
        ),
        1
    );
    assert!(print(&s).contains("const 3.0"));
    // A shader that writes point size is left alone.
    let src = VS
        .replace(
            "out @gl_pos",
            "out @ps : f32 builtin=point_size\nout @gl_pos",
        )
        .replace(
            "  store @gl_pos, %2\n",
            "  store @gl_pos, %2\n  %3 : f32 = const 5.0\n  store @ps, %3\n",
        );
    let s = lowered(&src, "point_size=3.0");
    assert!(!print(&s).contains("const 3.0"));
}

#[test]
fn forced_sample_shading() {
    let s = lowered(FS, "sample_shading");
    for v in &s.vars {
        if v.is_input() {
            assert_eq!(v.io().unwrap().sampling, Sampling::Sample, "{}", v.name);
        }
    }
    // Flat inputs stay flat and are not per-sample.
    let s = lowered(FS, "flat,sample_shading");
    assert_eq!(
        s.var(s.find_var("col").unwrap()).io().unwrap().sampling,
        Sampling::Center
    );
}

#[test]
fn sprite_coord_replacement() {
    let s = lowered(FS, "sprite=0x4");
    assert!(s.find_builtin(false, BuiltIn::PointCoord).is_some());
    let tc = s.find_var("tc").unwrap();
    assert_eq!(
        count(
            &s,
            |i| matches!(&i.op, Op::Intrinsic(Intrinsic::Load { var, .. }) if *var == tc)
        ),
        0
    );
    assert_eq!(
        count(&s, |i| matches!(&i.op, Op::Alu(AluOp::Fsub, _))),
        1,
        "lower-left origin flips y"
    );
    let s = lowered(FS, "sprite=0x4,sprite_upper_left");
    assert_eq!(count(&s, |i| matches!(&i.op, Op::Alu(AluOp::Fsub, _))), 0);
    // Other slots are untouched.
    let s = lowered(FS, "sprite=0x1");
    assert!(s.find_builtin(false, BuiltIn::PointCoord).is_none());
}

#[test]
fn inlined_uniforms_fold_branches() {
    let src = "shader fragment
out @frag : f32x4 location=0
ubo @u slot=0 size=16
fn main {
  %0 : u32 = const 4
  %1 : u32 = load_ubo @u, %0
  %2 : u32 = const 0
  %3 : bool = ine %1, %2
  if %3 {
    %4 : f32x4 = const 1.0, 1.0, 1.0, 1.0
    store @frag, %4
  } else {
    %5 : f32x4 = const 0.0, 0.0, 0.0, 0.0
    store @frag, %5
  }
}
";
    let mut s = lowered(src, "inline=4:1");
    assert_eq!(
        count(&s, |i| matches!(
            &i.op,
            Op::Intrinsic(Intrinsic::LoadUbo { .. })
        )),
        0
    );
    passes::optimize(&mut s);
    validate(&s).unwrap();
    assert!(
        !s.body.iter().any(|n| matches!(n, Node::If(_))),
        "{}",
        print(&s)
    );
    assert!(print(&s).contains("const 1.0, 1.0, 1.0, 1.0"));
    // Offsets not in the key stay loads.
    let s = lowered(src, "inline=0:1");
    assert_eq!(
        count(&s, |i| matches!(
            &i.op,
            Op::Intrinsic(Intrinsic::LoadUbo { .. })
        )),
        1
    );
}

/// 64-bit vertex inputs split into 32-bit pairs: a dvec4 at location 1
/// becomes u32x4 inputs at locations 1 and 2, and four bitcasts rebuild
/// it; one- and three-component inputs take u32x2 halves.
#[test]
fn vertex_fetch_split64() {
    for (ty, lo, hi) in [
        ("f64x4", Type::uint(32, 4), Some(Type::uint(32, 4))),
        ("f64x3", Type::uint(32, 4), Some(Type::uint(32, 2))),
        ("f64x2", Type::uint(32, 4), None),
        ("u64", Type::uint(32, 2), None),
        ("i64x4", Type::uint(32, 4), Some(Type::uint(32, 4))),
    ] {
        let n: u32 = ty.split('x').nth(1).map_or(1, |n| n.parse().unwrap());
        let f = if n == 1 {
            "f32".to_string()
        } else {
            format!("f32x{n}")
        };
        let conv = if ty.starts_with('f') {
            "f2f"
        } else if ty.starts_with('u') {
            "u2f"
        } else {
            "i2f"
        };
        let src = format!(
            "shader vertex
in @pos : f32x4 location=0
in @d : {ty} location=1
in @next : f32x4 location={next}
out @gl_pos : f32x4 builtin=position
out @c : {f} location=0
fn main {{
  %0 : f32x4 = load @pos
  %1 : f32x4 = load @next
  %2 : f32x4 = fadd %0, %1
  store @gl_pos, %2
  %3 : {ty} = load @d
  %4 : {f} = {conv} %3
  store @c, %4
}}
",
            next = if n > 2 { 3 } else { 2 }
        );
        let s = lowered(&src, "vfetch=1:split64");
        let d = s.find_var("d").unwrap();
        assert_eq!(s.var(d).ty, lo, "{ty}");
        assert_eq!(s.var(d).io().unwrap().location, Some(1));
        let upper = s.find_var("d_hi");
        assert_eq!(upper.map(|u| s.var(u).ty), hi, "{ty}");
        if let Some(u) = upper {
            assert_eq!(s.var(u).io().unwrap().location, Some(2));
        }
        assert_eq!(
            count(&s, |i| matches!(&i.op, Op::Alu(AluOp::Bitcast, _))),
            n as usize,
            "{ty}"
        );
    }
    // A 64-bit input is an error for the 32-bit fix-ups, and split64
    // refuses a 32-bit input.
    let mut s = parse(VS).unwrap();
    let k = VariantKey::parse("vfetch=1:split64").unwrap();
    assert!(passes::lower(&mut s, &k).is_err());
}

const VS_DVEC4: &str = "shader vertex
in @d : f64x4 location=1
out @gl_pos : f32x4 builtin=position
fn main {
  %0 : f64x4 = load @d
  %1 : f32x4 = f2f %0
  store @gl_pos, %1
}
";

/// A dvec4 input takes two locations: fed by a dual-slot element of two
/// components (second location 2 given) it reads x and y from location 1
/// and nothing past the element (z and w are 0 and 1); fed by an element
/// that takes one location (components given, no second location) it is
/// refused, since location 2 is the next element's.
#[test]
fn vertex_fetch_split64_short_and_single_slot() {
    let s = lowered(VS_DVEC4, "vfetch=1:split64:2:2");
    assert_eq!(s.var(s.find_var("d").unwrap()).ty, Type::uint(32, 4));
    assert!(s.find_var("d_hi").is_none());
    assert_eq!(
        count(&s, |i| matches!(&i.op, Op::Alu(AluOp::Bitcast, _))),
        2
    );
    let s = lowered(VS_DVEC4, "vfetch=1:split64:4:2");
    let hi = s.find_var("d_hi").unwrap();
    assert_eq!(s.var(hi).io().unwrap().location, Some(2));
    let mut s = parse(VS_DVEC4).unwrap();
    let k = VariantKey::parse("vfetch=1:split64:2").unwrap();
    let e = passes::lower(&mut s, &k).unwrap_err();
    assert!(e.to_string().contains("dual_slot"), "{e}");
}

/// Two inputs sharing a location at components 0 and 2 (GL's
/// `layout(component = 2)`): one input remains there, from component 0
/// with the fetch type, and the other becomes an unused local; the
/// second input's components come from z and w of the converted
/// attribute.
#[test]
fn vertex_fetch_component_offsets() {
    let src = "shader vertex
in @a : f32x2 location=1
in @b : f32x2 location=1 component=2
out @gl_pos : f32x4 builtin=position
fn main {
  %0 : f32x2 = load @a
  %1 : f32x2 = load @b
  %2 : f32x4 = vec %0, %1
  store @gl_pos, %2
}
";
    let s = lowered(src, "vfetch=1:fixed32:4");
    let a = s.find_var("a").unwrap();
    assert_eq!(s.var(a).ty, Type::int(32, 4));
    assert_eq!(s.var(a).io().unwrap().component, 0);
    assert!(!s.var(s.find_var("b").unwrap()).is_input());
    assert_eq!(count(&s, |i| matches!(&i.op, Op::Alu(AluOp::I2f, _))), 4);
    // Alone at component 2 of a three-component element: z converted,
    // w GL's 1.0, from an input at component 0.
    let src = "shader vertex
in @b : f32x2 location=1 component=2
out @gl_pos : f32x4 builtin=position
fn main {
  %0 : f32x2 = load @b
  %1 : f32x4 = vec %0, %0
  store @gl_pos, %1
}
";
    let s = lowered(src, "vfetch=1:unorm32:3");
    let b = s.find_var("b").unwrap();
    assert_eq!(s.var(b).ty, Type::uint(32, 3));
    assert_eq!(s.var(b).io().unwrap().component, 0);
    assert!(print(&s).contains("const 1.0"), "{}", print(&s));
    // The upper half of a double goes to component 0 of its location.
    let s = lowered(src, "vfetch=1:double:3:5");
    let hi = s.find_var("b_hi").unwrap();
    assert_eq!(s.var(hi).io().unwrap().location, Some(5));
    assert_eq!(s.var(hi).io().unwrap().component, 0);
}

/// The fix-ups of formats with no Vulkan twin: 32-bit normalized and
/// fixed-point through the integer format (a 2-component format feeding
/// an f32x4 input reads z = 0 and w = 1 from the shader, not the scaled
/// integer defaults), GL_DOUBLE converted to float with its upper half
/// at a spare location, and the packed BGRA 10/10/10/2 formats.
#[test]
fn vertex_fetch_fixups_without_vulkan_format() {
    for (key, raw) in [
        ("vfetch=1:unorm32:2", Type::uint(32, 2)),
        ("vfetch=1:snorm32:2", Type::int(32, 2)),
        ("vfetch=1:fixed32:2", Type::int(32, 2)),
    ] {
        let s = lowered(VS, key);
        assert_eq!(s.var(s.find_var("v").unwrap()).ty, raw, "{key}");
        let text = print(&s);
        assert!(
            text.contains("const 0.0") && text.contains("const 1.0"),
            "{key}:\n{text}"
        );
    }
    let s = lowered(VS, "vfetch=1:double:4:7");
    assert_eq!(s.var(s.find_var("v").unwrap()).ty, Type::uint(32, 4));
    let hi = s.find_var("v_hi").unwrap();
    assert_eq!(s.var(hi).ty, Type::uint(32, 4));
    assert_eq!(s.var(hi).io().unwrap().location, Some(7));
    assert_eq!(count(&s, |i| matches!(&i.op, Op::Alu(AluOp::F2f, _))), 4);
    // Three or four doubles need the upper location.
    let mut s = parse(VS).unwrap();
    let k = VariantKey::parse("vfetch=1:double:3").unwrap();
    assert!(passes::lower(&mut s, &k).is_err());
    // Two doubles fit one location; z and w read 0 and 1.
    let s = lowered(VS, "vfetch=1:double:2");
    assert!(s.find_var("v_hi").is_none());
    assert_eq!(count(&s, |i| matches!(&i.op, Op::Alu(AluOp::F2f, _))), 2);
    for f in ["unorm", "snorm", "uscaled", "sscaled"] {
        let key = format!("vfetch=1:a2r10g10b10_{f}");
        let s = lowered(VS, &key);
        assert_eq!(s.var(s.find_var("v").unwrap()).ty, Type::U32, "{key}");
    }
    assert!(VariantKey::parse("vfetch=1:double:5").is_err());
    assert!(VariantKey::parse("vfetch=1:double:4:7:9").is_err());
}

/// 64-bit interface variables exist only as vertex inputs.
#[test]
fn wide_interface_only_on_vertex_inputs() {
    let fs = "shader fragment
in @d : f64x2 location=0 flat
out @frag : f32x4 location=0
fn main {
  %0 : f32x4 = const 0.0, 0.0, 0.0, 0.0
  store @frag, %0
}
";
    let e = validate(&parse(fs).unwrap()).unwrap_err();
    assert!(
        e.to_string().contains("64-bit only on vertex inputs"),
        "{e}"
    );
    // A dvec4 at location 31 would need location 32.
    let vs = "shader vertex
in @d : f64x4 location=31
out @gl_pos : f32x4 builtin=position
fn main {
  %0 : f32x4 = const 0.0, 0.0, 0.0, 1.0
  store @gl_pos, %0
}
";
    assert!(validate(&parse(vs).unwrap()).is_err());
    assert!(validate(&parse(&vs.replace("=31", "=30")).unwrap()).is_ok());
}

#[test]
fn vertex_fetch_fixups() {
    let s = lowered(VS, "vfetch=1:swap_rb");
    // The components of the fetched RGBA in the order z, y, x, w.
    let text = print(&s);
    let at = |c: &str| text.find(&format!("swizzle %3, {c}\n"));
    let order = ["z", "y", "x", "w"].map(at);
    assert!(
        order.iter().all(Option::is_some) && order.windows(2).all(|w| w[0] < w[1]),
        "{text}"
    );
    let s = lowered(VS, "vfetch=1:uscaled");
    assert_eq!(s.var(s.find_var("v").unwrap()).ty, Type::uint(32, 4));
    assert_eq!(count(&s, |i| matches!(&i.op, Op::Alu(AluOp::U2f, _))), 4);
    let s = lowered(VS, "vfetch=1:sscaled");
    assert_eq!(s.var(s.find_var("v").unwrap()).ty, Type::int(32, 4));
    let s = lowered(VS, "vfetch=1:a2b10g10r10_unorm");
    assert_eq!(s.var(s.find_var("v").unwrap()).ty, Type::U32);
    assert_eq!(
        count(&s, |i| matches!(&i.op, Op::Alu(AluOp::UbitfieldExtract, _))),
        4
    );
    let s = lowered(VS, "vfetch=1:a2b10g10r10_snorm");
    assert_eq!(
        count(&s, |i| matches!(&i.op, Op::Alu(AluOp::IbitfieldExtract, _))),
        4
    );
}

#[test]
fn key_text_form() {
    let k = VariantKey::parse("alpha=less:0.5,clip=0x3,flat,two_side,point_size=1.0,sample_shading,sprite=1,sprite_upper_left,inline=0:7,vfetch=2:swap_rb,polygon_stipple,lower_left_origin,pixel_center_integer,last_vertex_stage,clip_halfz,line_stipple,line_rectangular").unwrap();
    assert!(k.line_stipple && k.line_rectangular);
    assert!(VariantKey::parse("line_stipple=1").is_err());
    assert!(!VariantKey::default().line_stipple && !VariantKey::default().line_rectangular);
    assert!(k.polygon_stipple && k.lower_left_origin && k.pixel_center_integer);
    assert!(k.last_vertex_stage && k.clip_halfz);
    assert!(VariantKey::parse("clip_halfz=1").is_err());
    assert_eq!(k.alpha_test, Some((CompareFunc::Less, 0.5f32.to_bits())));
    assert_eq!(k.clip_planes, 3);
    assert!(k.flat_shade && k.two_side && k.sample_shading && k.sprite_upper_left);
    assert_eq!(k.inline_uniforms, vec![(0, 7)]);
    assert!(VariantKey::parse("bogus").is_err());
    assert!(VariantKey::parse("clip=0x100").is_err());
    assert!(VariantKey::parse("flat=1").is_err());
    assert_eq!(VariantKey::parse("").unwrap(), VariantKey::default());
}

#[test]
fn optimizations() {
    let src = "shader fragment
out @frag : f32x4 location=0
fn main {
  %0 : f32 = const 2.0
  %1 : f32 = const 3.0
  %2 : f32 = fmul %0, %1
  %3 : f32 = mov %2
  %4 : f32x4 = vec %3, %3, %3, %3
  %5 : f32x4 = swizzle %4, xyzw
  %6 : f32 = fadd %0, %1
  store @frag, %5
  return
  %7 : f32 = fadd %0, %1
}
";
    let mut s = parse(src).unwrap();
    validate(&s).unwrap();
    passes::optimize(&mut s);
    validate(&s).unwrap();
    let t = print(&s);
    assert!(
        t.contains("%5 : f32x4 = const 6.0, 6.0, 6.0, 6.0")
            || t.contains("%4 : f32x4 = const 6.0, 6.0, 6.0, 6.0"),
        "{t}"
    );
    assert!(!t.contains("fadd"), "dead code left: {t}");
    assert!(!t.contains("mov"), "{t}");
}

const FS_COORD: &str = "shader fragment
in @fc : f32x4 builtin=frag_coord
out @frag : f32x4 location=0
fn main {
  %0 : f32x4 = load @fc
  store @frag, %0
}
";

/// (component, ALU op defining the inserted value) of every `insert`.
fn inserts_on_frag_coord(s: &Shader) -> Vec<(u8, AluOp)> {
    let mut defs = std::collections::HashMap::new();
    walk_instrs(&s.body, &mut |i| {
        if let Some((v, _)) = i.dest {
            defs.insert(v, i.op.clone());
        }
    });
    let mut out = Vec::new();
    walk_instrs(&s.body, &mut |i| {
        if let Op::Insert(_, x, c) = &i.op {
            if let Some(Op::Alu(op, _)) = defs.get(x) {
                out.push((*c, *op));
            }
        }
    });
    out
}

#[test]
fn frag_coord_lower_left_origin() {
    let s = lowered(FS_COORD, "lower_left_origin");
    // y = FB_HEIGHT - y, read from the push constants.
    let txt = print(&s);
    assert!(
        txt.contains(&format!(
            "= const {}\n",
            spirv_gen::binding::push::FB_HEIGHT
        )),
        "{txt}"
    );
    assert_eq!(
        count(&s, |i| matches!(
            &i.op,
            Op::Intrinsic(Intrinsic::LoadPush { .. })
        )),
        1
    );
    assert_eq!(inserts_on_frag_coord(&s), vec![(1, AluOp::Fsub)]);
    // The FB height is the minuend: fsub %h, %y.
    let mut ok = false;
    walk_instrs(&s.body, &mut |i| {
        if let Op::Alu(AluOp::Fsub, srcs) = &i.op {
            let mut h = None;
            walk_instrs(&s.body, &mut |j| {
                if j.dest.map(|d| d.0) == Some(srcs[0]) {
                    h = Some(matches!(j.op, Op::Intrinsic(Intrinsic::LoadPush { .. })));
                }
            });
            ok = h == Some(true);
        }
    });
    assert!(ok, "{txt}");
    // The store still stores the original SSA id, now the adjusted value.
    assert!(txt.contains("%0 : f32x4 = insert"), "{txt}");
    assert!(s.vars.iter().any(
        |v| matches!(v.kind, VarKind::Push { size } if size >= spirv_gen::binding::push::SIZE)
    ));
}

#[test]
fn frag_coord_integer_centre() {
    let s = lowered(FS_COORD, "pixel_center_integer");
    assert_eq!(
        inserts_on_frag_coord(&s),
        vec![(0, AluOp::Fsub), (1, AluOp::Fsub)]
    );
    assert!(print(&s).contains("= const 0.5\n"));
    // No push constants without the flip.
    assert!(!s
        .vars
        .iter()
        .any(|v| matches!(v.kind, VarKind::Push { .. })));
    // Both: flip first, then the half pixel; three subtractions.
    let s = lowered(FS_COORD, "lower_left_origin,pixel_center_integer");
    assert_eq!(count(&s, |i| matches!(&i.op, Op::Alu(AluOp::Fsub, _))), 3);
    // A shader without frag coord is left alone; other stages too.
    let s = lowered(FS, "lower_left_origin,pixel_center_integer");
    assert_eq!(print(&s), print(&parse(FS).unwrap()));
}

#[test]
fn polygon_stipple_discards_by_pattern() {
    let s = lowered(FS, "polygon_stipple");
    // Frag coord and the driver constant buffer are added.
    assert!(s.find_builtin(false, BuiltIn::FragCoord).is_some());
    let ubo = s
        .vars
        .iter()
        .position(|v| {
            matches!(v.kind, VarKind::Ubo { slot, size }
                if slot == spirv_gen::binding::DRIVER_UBO_SLOT
                    && size >= spirv_gen::binding::driver_ubo::SIZE)
        })
        .expect("driver constant buffer");
    // The test comes first: `if` with a discard before the shader's code.
    let Some(Node::If(f)) = s.body.iter().find(|n| !matches!(n, Node::Instr(_))) else {
        panic!("no if: {}", print(&s));
    };
    assert!(matches!(
        f.then_body.as_slice(),
        [Node::Jump(Jump::Discard, _)]
    ));
    let first_load_col = s
        .body
        .iter()
        .position(|n| matches!(n, Node::Instr(Instr { op: Op::Intrinsic(Intrinsic::Load { var, .. }), .. }) if s.var(*var).name == "col"))
        .unwrap();
    let if_pos = s
        .body
        .iter()
        .position(|n| matches!(n, Node::If(_)))
        .unwrap();
    assert!(if_pos < first_load_col);
    // One row load from the driver buffer, x/y mod 32 and the MSB-first bit.
    assert_eq!(
        count(
            &s,
            |i| matches!(&i.op, Op::Intrinsic(Intrinsic::LoadUbo { var, .. }) if var.0 as usize == ubo)
        ),
        1
    );
    assert_eq!(count(&s, |i| matches!(&i.op, Op::Alu(AluOp::F2u, _))), 2);
    assert_eq!(count(&s, |i| matches!(&i.op, Op::Alu(AluOp::Ushr, _))), 1);
    let txt = print(&s);
    assert!(txt.contains("= const 31\n"), "{txt}");
    assert!(txt.contains("= const 2147483648\n"), "{txt}");
    // With the origin lowering, the stipple still reads the raw Vulkan
    // coordinate (one plain load), the shader's own read is adjusted.
    let s = lowered(FS_COORD, "polygon_stipple,lower_left_origin");
    let fc = s.find_builtin(false, BuiltIn::FragCoord).unwrap();
    assert_eq!(
        count(
            &s,
            |i| matches!(&i.op, Op::Intrinsic(Intrinsic::Load { var, .. }) if *var == fc)
        ),
        2
    );
    assert_eq!(count(&s, |i| matches!(&i.op, Op::Alu(AluOp::Fsub, _))), 1);
    // The slot is reserved: a shader's own constant buffer 15 is an error.
    let src = FS.replace("out @frag", "ubo @mine slot=15 size=16\nout @frag");
    let mut s = parse(&src).unwrap();
    let e = passes::lower(&mut s, &VariantKey::parse("polygon_stipple").unwrap()).unwrap_err();
    assert!(e.to_string().contains("reserved"), "{e}");
    // Vertex shaders are left alone.
    let s = lowered(VS, "polygon_stipple");
    assert!(!has_discard(&s.body));
}

#[test]
fn clip_space_depth_range() {
    let s = lowered(VS, "last_vertex_stage");
    // position.z = (z + w) * 0.5 at the exit, after the shader's store.
    let pos = s.find_builtin(true, BuiltIn::Position).unwrap();
    assert_eq!(
        count(
            &s,
            |i| matches!(&i.op, Op::Intrinsic(Intrinsic::Store { var, .. }) if *var == pos)
        ),
        2
    );
    assert_eq!(
        count(
            &s,
            |i| matches!(&i.op, Op::Intrinsic(Intrinsic::Load { var, .. }) if *var == pos)
        ),
        1
    );
    assert_eq!(count(&s, |i| matches!(&i.op, Op::Alu(AluOp::Fadd, _))), 2);
    assert_eq!(count(&s, |i| matches!(&i.op, Op::Alu(AluOp::Fmul, _))), 1);
    assert_eq!(count(&s, |i| matches!(&i.op, Op::Insert(_, _, 2))), 1);
    let txt = print(&s);
    assert!(
        txt.contains("swizzle %3, z\n") && txt.contains("swizzle %3, w\n"),
        "{txt}"
    );
    assert!(txt.contains("= const 0.5\n"), "{txt}");
    // clip_halfz set, or not the last stage: nothing.
    for key in ["last_vertex_stage,clip_halfz", "clip_halfz", ""] {
        let s = lowered(VS, key);
        assert_eq!(print(&s), print(&parse(VS).unwrap()), "{key}");
    }
    // Clip planes read the GL position: their dot comes before the depth fix-up.
    let s = lowered(VS, "last_vertex_stage,clip=0x1");
    let order: Vec<&str> = s
        .body
        .iter()
        .filter_map(|n| match n {
            Node::Instr(Instr {
                op: Op::Alu(AluOp::Fdot, _),
                ..
            }) => Some("dot"),
            Node::Instr(Instr {
                op: Op::Alu(AluOp::Fmul, _),
                ..
            }) => Some("halfz"),
            _ => None,
        })
        .collect();
    assert_eq!(order, ["dot", "halfz"]);
    // Geometry shaders: before each emit_vertex.
    let gs = "shader geometry input=points output=points max_vertices=2 invocations=1
in @pin : f32x4[1] builtin=position
out @pos : f32x4 builtin=position
fn main {
  %0 : i32 = const 0
  %1 : f32x4 = load @pin, %0
  store @pos, %1
  emit_vertex
  store @pos, %1
  emit_vertex
  end_primitive
}
";
    let s = lowered(gs, "last_vertex_stage");
    assert_eq!(count(&s, |i| matches!(&i.op, Op::Alu(AluOp::Fmul, _))), 2);
    let txt = print(&s);
    let first_emit = txt.find("emit_vertex").unwrap();
    assert!(txt[..first_emit].contains("fmul"), "{txt}");
    // Fragment shaders are left alone.
    let s = lowered(FS, "last_vertex_stage");
    assert_eq!(print(&s), print(&parse(FS).unwrap()));
}

#[test]
fn vector_splitting_for_spirv() {
    let src = "shader compute local_size=1,1,1
ssbo @b slot=0
fn main {
  %0 : u32 = const 0
  %1 : u32x4 = load_ssbo @b, %0
  %2 : i32x4 = const 0, 4, 8, 12
  %3 : i32 = const 4
  %4 : u32x4 = ubitfield_extract %1, %2, %3
  %5 : u32x4 = ubitfield_extract %1, %3, %3
  %6 : u32x4 = bitfield_insert %4, %5, %2, %2
  store_ssbo @b, %0, %6
}
";
    let mut s = parse(src).unwrap();
    validate(&s).unwrap();
    // Unsplit, the emitter refuses (with an error, not a panic).
    let e = spirv_gen::emit::emit(&s, spirv_gen::emit::Target::Vulkan1_1).unwrap_err();
    assert!(e.to_string().contains("split_vectors"), "{e}");
    assert!(passes::split::split_vectors(&mut s));
    validate(&s).unwrap_or_else(|e| panic!("{e}\n{}", print(&s)));
    // %4 (vector offsets) and %6 became 4 scalar ops each; %5 (scalar
    // offset and count) stays one vector op.
    let ext: Vec<Type> = {
        let mut v = Vec::new();
        walk_instrs(&s.body, &mut |i| {
            if let (Some((_, t)), Op::Alu(AluOp::UbitfieldExtract, _)) = (i.dest, &i.op) {
                v.push(t);
            }
        });
        v
    };
    assert_eq!(ext.iter().filter(|t| **t == Type::U32).count(), 4);
    assert_eq!(ext.iter().filter(|t| **t == Type::uint(32, 4)).count(), 1);
    assert_eq!(
        count(
            &s,
            |i| matches!((&i.op, i.dest), (Op::Alu(AluOp::BitfieldInsert, _), Some((_, t))) if t == Type::U32)
        ),
        4
    );
    // The results are put back together under the original ids.
    let txt = print(&s);
    assert!(txt.contains("%4 : u32x4 = vec "), "{txt}");
    assert!(txt.contains("%6 : u32x4 = vec "), "{txt}");
    assert!(
        txt.contains("%5 : u32x4 = ubitfield_extract %1, %3, %3"),
        "{txt}"
    );
    // Scalar offsets are shared; vector ones are read per component.
    assert!(txt.contains("swizzle %2, w"), "{txt}");
    // A second run finds nothing; lower() runs it for every key.
    assert!(!passes::split::split_vectors(&mut s));
    common::emit_and_validate("split", &s);
    let l = lowered(src, "");
    assert_eq!(count(&l, |i| matches!(&i.op, Op::Alu(AluOp::Vec, _))), 2);
}

// ---------------------------------------------------------------------------
// Line stipple emulation
// ---------------------------------------------------------------------------

/// A tiny interpreter for the 32-bit code the line stipple lowerings
/// produce (constants, the ALU ops they use, variables, push constants,
/// structured control flow, geometry emission), so that the tests check
/// what the lowered code computes, not only its shape.
/// Runs a generated aliased-triangle geometry shader on one triangle of
/// clip-space positions `p` (input `id` 100 + k) with viewport scale
/// `scale` and user clip plane 0 = `plane` (when given); returns the 3
/// emitted vertices. With `adjacency` the triangle is input vertices 0,
/// 2 and 4, and 1, 3 and 5 are far away, with ids 900 + k.
fn run_aliased_gs(
    gs: &Shader,
    p: &[[f32; 4]; 3],
    scale: [f32; 2],
    plane: &[f32],
    adjacency: bool,
) -> Vec<std::collections::HashMap<String, Vec<u32>>> {
    let mut m = interp::Machine::new(gs);
    let stride = if adjacency { 2 } else { 1 };
    for (k, pk) in p.iter().enumerate() {
        let k = k as u32;
        m.set_f32("in_gl_pos", stride * k, pk);
        m.set("in_id", stride * k, vec![100 + k]);
        if adjacency {
            m.set_f32("in_gl_pos", 2 * k + 1, &[9.0, -7.0, 0.3, 1.0]);
            m.set("in_id", 2 * k + 1, vec![900 + k]);
        }
    }
    let o = (pc::VIEWPORT_SCALE / 4) as usize;
    m.push[o] = scale[0].to_bits();
    m.push[o + 1] = scale[1].to_bits();
    let c = (pc::CLIP_PLANES / 4) as usize;
    for (i, v) in plane.iter().enumerate() {
        m.push[c + i] = v.to_bits();
    }
    m.run();
    let out: Vec<_> = m.emitted.iter().flatten().cloned().collect();
    assert_eq!(out.len(), 3);
    out
}

/// The interpreter's emitted vertices, by primitive (`end_primitive`
/// ends one).
fn primitives(
    emitted: &[Option<std::collections::HashMap<String, Vec<u32>>>],
) -> Vec<Vec<std::collections::HashMap<String, Vec<u32>>>> {
    emitted
        .split(Option::is_none)
        .filter(|p| !p.is_empty())
        .map(|p| p.iter().flatten().cloned().collect())
        .collect()
}

/// An emitted vertex's output `n` as floats.
fn emitted_f32(e: &std::collections::HashMap<String, Vec<u32>>, n: &str) -> Vec<f32> {
    e[n].iter().map(|w| f32::from_bits(*w)).collect()
}

mod interp {
    use spirv_gen::ir::*;
    use std::collections::HashMap;

    pub struct Machine<'a> {
        s: &'a Shader,
        vals: HashMap<ValueId, (Type, Vec<u32>)>,
        /// Variable contents: element index → words.
        pub vars: HashMap<VarId, HashMap<u32, Vec<u32>>>,
        /// The push constant block, in 32-bit words.
        pub push: Vec<u32>,
        /// One entry per `emit_vertex` of stream 0 (the outputs at that
        /// point), `None` per `end_primitive` of stream 0.
        pub emitted: Vec<Option<HashMap<String, Vec<u32>>>>,
        pub discarded: bool,
    }

    enum Flow {
        Next,
        Break,
        Continue,
        Exit,
    }

    fn f(w: u32) -> f32 {
        f32::from_bits(w)
    }

    impl<'a> Machine<'a> {
        pub fn new(s: &'a Shader) -> Machine<'a> {
            Machine {
                s,
                vals: HashMap::new(),
                vars: HashMap::new(),
                push: vec![0; 64],
                emitted: Vec::new(),
                discarded: false,
            }
        }
        /// Sets element `index` of the variable called `name`.
        pub fn set(&mut self, name: &str, index: u32, words: Vec<u32>) {
            let v = self
                .s
                .find_var(name)
                .unwrap_or_else(|| panic!("no @{name}"));
            self.vars.entry(v).or_default().insert(index, words);
        }
        pub fn set_f32(&mut self, name: &str, index: u32, x: &[f32]) {
            self.set(name, index, x.iter().map(|x| x.to_bits()).collect());
        }
        pub fn run(&mut self) {
            let body = &self.s.body;
            let _ = self.block(body);
        }
        fn get(&self, v: ValueId) -> (Type, Vec<u32>) {
            self.vals
                .get(&v)
                .cloned()
                .unwrap_or_else(|| panic!("%{} unset", v.0))
        }
        fn block(&mut self, body: &[Node]) -> Flow {
            for n in body {
                let flow = match n {
                    Node::Instr(i) => self.instr(i),
                    Node::If(i) => {
                        let (_, c) = self.get(i.cond);
                        if c[0] != 0 {
                            self.block(&i.then_body)
                        } else {
                            self.block(&i.else_body)
                        }
                    }
                    Node::Loop(l) => {
                        let mut n = 0;
                        loop {
                            n += 1;
                            assert!(n < 10_000, "runaway loop");
                            match self.block(&l.body) {
                                Flow::Break => break Flow::Next,
                                Flow::Exit => break Flow::Exit,
                                _ => {}
                            }
                        }
                    }
                    Node::Jump(Jump::Break, _) => Flow::Break,
                    Node::Jump(Jump::Continue, _) => Flow::Continue,
                    Node::Jump(Jump::Return, _) => Flow::Exit,
                    Node::Jump(Jump::Discard, _) => {
                        self.discarded = true;
                        Flow::Exit
                    }
                };
                if !matches!(flow, Flow::Next) {
                    return flow;
                }
            }
            Flow::Next
        }
        fn index(&self, i: Option<ValueId>) -> u32 {
            i.map_or(0, |i| self.get(i).1[0])
        }
        fn instr(&mut self, i: &Instr) -> Flow {
            let words = match &i.op {
                Op::Const(b) => b.iter().map(|&x| x as u32).collect(),
                Op::Swizzle(v, c) => {
                    let (_, w) = self.get(*v);
                    c.iter().map(|&c| w[c as usize]).collect()
                }
                Op::Insert(v, x, c) => {
                    let mut w = self.get(*v).1;
                    w[*c as usize] = self.get(*x).1[0];
                    w
                }
                Op::Alu(op, srcs) => self.alu(*op, i.dest.unwrap().1, srcs),
                Op::Intrinsic(intr) => match intr {
                    // Inputs hold their values at the pixel centre: an
                    // offset of zero reads them as they are.
                    Intrinsic::Load { var, index } | Intrinsic::Interp { var, index, .. } => {
                        if let Intrinsic::Interp { at, .. } = intr {
                            let InterpAt::Offset(offset) = at else {
                                panic!("the interpreter interpolates at offsets only")
                            };
                            let o = self.get(*offset).1;
                            assert!(o.iter().all(|&w| f32::from_bits(w) == 0.0));
                        }
                        let idx = self.index(*index);
                        let comps = self.s.var(*var).ty.comps as usize;
                        self.vars
                            .get(var)
                            .and_then(|e| e.get(&idx))
                            .cloned()
                            .unwrap_or_else(|| vec![0; comps])
                    }
                    Intrinsic::Store { var, index, value } => {
                        let idx = self.index(*index);
                        let w = self.get(*value).1;
                        self.vars.entry(*var).or_default().insert(idx, w);
                        return Flow::Next;
                    }
                    Intrinsic::LoadPush { offset, .. } => {
                        let o = (self.get(*offset).1[0] / 4) as usize;
                        let n = i.dest.unwrap().1.comps as usize;
                        self.push[o..o + n].to_vec()
                    }
                    Intrinsic::EmitVertex { stream } => {
                        if *stream == 0 {
                            let mut snap = HashMap::new();
                            // Element 0 as `name`, element j > 0 of an
                            // array as `name[j]`.
                            for (k, v) in self.s.vars.iter().enumerate() {
                                if !v.is_output() {
                                    continue;
                                }
                                let Some(elems) = self.vars.get(&VarId(k as u32)) else {
                                    continue;
                                };
                                for (j, w) in elems {
                                    let name = match j {
                                        0 => v.name.clone(),
                                        j => format!("{}[{j}]", v.name),
                                    };
                                    snap.insert(name, w.clone());
                                }
                            }
                            self.emitted.push(Some(snap));
                        }
                        return Flow::Next;
                    }
                    Intrinsic::EndPrimitive { stream } => {
                        if *stream == 0 {
                            self.emitted.push(None);
                        }
                        return Flow::Next;
                    }
                    Intrinsic::SsboAtomic { .. } => vec![0],
                    Intrinsic::LoadUbo { var, offset } => {
                        // The buffer's words are element 0 of its variable.
                        let o = (self.get(*offset).1[0] / 4) as usize;
                        let n = i.dest.unwrap().1.comps as usize;
                        let words = self
                            .vars
                            .get(var)
                            .and_then(|e| e.get(&0))
                            .cloned()
                            .unwrap_or_default();
                        (o..o + n)
                            .map(|k| words.get(k).copied().unwrap_or(0))
                            .collect()
                    }
                    other => panic!("interp: {other:?}"),
                },
                other => panic!("interp: {other:?}"),
            };
            if let Some((v, t)) = i.dest {
                self.vals.insert(v, (t, words));
            }
            Flow::Next
        }
        fn alu(&self, op: AluOp, t: Type, srcs: &[ValueId]) -> Vec<u32> {
            let a: Vec<(Type, Vec<u32>)> = srcs.iter().map(|&s| self.get(s)).collect();
            let n = a.first().map_or(0, |x| x.1.len());
            let map2 = |g: &dyn Fn(u32, u32) -> u32| -> Vec<u32> {
                (0..n).map(|k| g(a[0].1[k], a[1].1[k])).collect()
            };
            let map1 =
                |g: &dyn Fn(u32) -> u32| -> Vec<u32> { a[0].1.iter().map(|&x| g(x)).collect() };
            let fb = |x: f32| x.to_bits();
            let b = |x: bool| x as u32;
            match op {
                AluOp::Vec => a.iter().flat_map(|x| x.1.clone()).collect(),
                AluOp::Mov | AluOp::Bitcast => a[0].1.clone(),
                AluOp::Fadd => map2(&|x, y| fb(f(x) + f(y))),
                AluOp::Fsub => map2(&|x, y| fb(f(x) - f(y))),
                AluOp::Fmul => map2(&|x, y| fb(f(x) * f(y))),
                AluOp::Fdiv => map2(&|x, y| fb(f(x) / f(y))),
                AluOp::Fmax => map2(&|x, y| fb(f(x).max(f(y)))),
                AluOp::Fmin => map2(&|x, y| fb(f(x).min(f(y)))),
                AluOp::Fmod => map2(&|x, y| fb(f(x) - f(y) * (f(x) / f(y)).floor())),
                AluOp::Fabs => map1(&|x| fb(f(x).abs())),
                AluOp::Fneg => map1(&|x| fb(-f(x))),
                AluOp::Fsign => map1(&|x| {
                    let v = f(x);
                    fb(if v > 0.0 {
                        1.0
                    } else if v < 0.0 {
                        -1.0
                    } else {
                        0.0
                    })
                }),
                AluOp::Flength => {
                    vec![fb((0..n).map(|k| f(a[0].1[k]).powi(2)).sum::<f32>().sqrt())]
                }
                AluOp::Ffloor => map1(&|x| fb(f(x).floor())),
                AluOp::Fsat => map1(&|x| fb(f(x).clamp(0.0, 1.0))),
                AluOp::Ffma => (0..n)
                    .map(|k| fb(f(a[0].1[k]).mul_add(f(a[1].1[k]), f(a[2].1[k]))))
                    .collect(),
                AluOp::Fdistance => {
                    let d: f32 = (0..n).map(|k| (f(a[0].1[k]) - f(a[1].1[k])).powi(2)).sum();
                    vec![fb(d.sqrt())]
                }
                AluOp::Fdot => vec![fb((0..n).map(|k| f(a[0].1[k]) * f(a[1].1[k])).sum())],
                AluOp::Iadd => map2(&|x, y| x.wrapping_add(y)),
                AluOp::Isub => map2(&|x, y| x.wrapping_sub(y)),
                AluOp::Imod => map2(&|x, y| (x as i32).rem_euclid(y as i32) as u32),
                AluOp::Imul => map2(&|x, y| x.wrapping_mul(y)),
                AluOp::Iand => map2(&|x, y| x & y),
                AluOp::Ushr => map2(&|x, y| x.checked_shr(y).unwrap_or(0)),
                AluOp::U2f => map1(&|x| fb(x as f32)),
                AluOp::B2f => map1(&|x| fb(if x != 0 { 1.0 } else { 0.0 })),
                AluOp::I2f => map1(&|x| fb(x as i32 as f32)),
                AluOp::F2u => map1(&|x| f(x) as u32),
                AluOp::F2i => map1(&|x| f(x) as i32 as u32),
                AluOp::Ieq => map2(&|x, y| b(x == y)),
                AluOp::Ine => map2(&|x, y| b(x != y)),
                AluOp::Ige => map2(&|x, y| b(x as i32 >= y as i32)),
                AluOp::Ilt => map2(&|x, y| b((x as i32) < y as i32)),
                AluOp::Flt => map2(&|x, y| b(f(x) < f(y))),
                AluOp::Fge => map2(&|x, y| b(f(x) >= f(y))),
                AluOp::Bnot => map1(&|x| b(x == 0)),
                AluOp::Feq => map2(&|x, y| b(f(x) == f(y))),
                AluOp::Ball => vec![b(a[0].1.iter().all(|&x| x != 0))],
                AluOp::Ior => map2(&|x, y| x | y),
                AluOp::Band => map2(&|x, y| b(x != 0 && y != 0)),
                AluOp::Bor => map2(&|x, y| b(x != 0 || y != 0)),
                AluOp::Bcsel => (0..t.comps as usize)
                    .map(|k| if a[0].1[k] != 0 { a[1].1[k] } else { a[2].1[k] })
                    .collect(),
                other => panic!("interp: ALU {other:?}"),
            }
        }
    }
}

use spirv_gen::binding::{push as pc, STIPPLE_POS_LOCATION};
use spirv_gen::passes::line_stipple::line_stipple_gs;

fn corpus_src(name: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus")
        .join(name);
    std::fs::read_to_string(p).unwrap()
}

/// The word pipe-vk pushes at `LINE_STIPPLE`: GL pattern and factor.
fn stipple_word(pattern: u16, gl_factor: u32) -> u32 {
    pattern as u32 | (gl_factor - 1) << 16
}

/// Whether the lowered fragment shader `s` keeps a fragment at
/// `stipple_pos` with push word `word`.
fn fs_keeps(s: &Shader, stipple_pos: f32, word: u32) -> bool {
    let mut m = interp::Machine::new(s);
    let sp = s
        .vars
        .iter()
        .find(|v| v.is_input() && v.io().unwrap().location == Some(STIPPLE_POS_LOCATION))
        .expect("stipple_pos input");
    m.set_f32(&sp.name, 0, &[stipple_pos]);
    m.push[(pc::LINE_STIPPLE / 4) as usize] = word;
    m.run();
    !m.discarded
}

#[test]
fn line_stipple_fs_discards_by_pattern() {
    let s = lowered(FS, "line_stipple");
    // The input: f32, noperspective, at the reserved location.
    let sp = s.find_var("stipple_pos").expect("stipple_pos input");
    let v = s.var(sp);
    assert!(v.is_input() && v.ty == Type::F32 && v.array.is_none());
    let io = v.io().unwrap();
    assert_eq!(io.location, Some(STIPPLE_POS_LOCATION));
    assert_eq!(io.interp, Interp::NoPerspective);
    assert!(s.vars.iter().any(
        |v| matches!(v.kind, VarKind::Push { size } if size >= spirv_gen::binding::push::SIZE)
    ));
    // One push load (the LINE_STIPPLE word), the test first, then the shader.
    assert_eq!(
        count(&s, |i| matches!(
            &i.op,
            Op::Intrinsic(Intrinsic::LoadPush { .. })
        )),
        1
    );
    let txt = print(&s);
    assert!(
        txt.contains(&format!("= const {}\n", pc::LINE_STIPPLE)),
        "{txt}"
    );
    let if_pos = s
        .body
        .iter()
        .position(|n| matches!(n, Node::If(_)))
        .unwrap();
    let first_col = s
        .body
        .iter()
        .position(|n| matches!(n, Node::Instr(Instr { op: Op::Intrinsic(Intrinsic::Load { var, .. }), .. }) if s.var(*var).name == "col"))
        .unwrap();
    assert!(if_pos < first_col, "{txt}");
    let Node::If(f) = &s.body[if_pos] else {
        unreachable!()
    };
    assert!(matches!(
        f.then_body.as_slice(),
        [Node::Jump(Jump::Discard, _)]
    ));
    assert_eq!(count(&s, |i| matches!(&i.op, Op::Alu(AluOp::Fmod, _))), 1);
    assert_eq!(count(&s, |i| matches!(&i.op, Op::Alu(AluOp::Fdiv, _))), 1);

    // What it computes: bit floor(pos / factor) mod 16 of the pattern,
    // least significant bit first, factor = GL factor (1..=256).
    let w = stipple_word(0x00ff, 2);
    for (pos, keep) in [
        (0.0, true),
        (0.5, true),
        (15.9, true),
        (16.0, false),
        (31.9, false),
        (32.0, true),
        (47.9, true),
        (48.5, false),
        (1000.0 * 32.0 + 1.0, true),
    ] {
        assert_eq!(fs_keeps(&s, pos, w), keep, "0x00ff x2 at {pos}");
    }
    let w = stipple_word(0b101, 1);
    for (pos, keep) in [
        (0.5, true),
        (1.5, false),
        (2.0, true),
        (3.99, false),
        (16.2, true),
    ] {
        assert_eq!(fs_keeps(&s, pos, w), keep, "0b101 x1 at {pos}");
    }
    // Factor 256 (field 255); only the last bit of the pattern on.
    let w = stipple_word(0x8000, 256);
    assert!(!fs_keeps(&s, 0.0, w));
    assert!(!fs_keeps(&s, 14.0 * 256.0 + 255.0, w));
    assert!(fs_keeps(&s, 15.0 * 256.0 + 0.5, w));
    assert!(!fs_keeps(&s, 16.0 * 256.0 + 0.5, w));
    // All on / all off; bits 24..32 of the word are ignored.
    for pos in [0.0, 3.0, 17.5, 1e6] {
        assert!(fs_keeps(&s, pos, stipple_word(0xffff, 3) | 0xff00_0000));
        assert!(!fs_keeps(&s, pos, stipple_word(0, 3)));
    }

    // A declared stipple_pos input is reused.
    let src = FS.replace(
        "out @frag",
        &format!("in @sp : f32 location={STIPPLE_POS_LOCATION} noperspective\nout @frag"),
    );
    let s = lowered(&src, "line_stipple");
    assert!(s.find_var("stipple_pos").is_none());
    assert!(fs_keeps(&s, 0.5, stipple_word(1, 1)));
    assert!(!fs_keeps(&s, 1.5, stipple_word(1, 1)));
    // Anything else at that location is an error, not a panic.
    for decl in [
        format!("in @x : f32x4 location={STIPPLE_POS_LOCATION}"),
        format!("in @x : f32 location={STIPPLE_POS_LOCATION}"),
        format!("in @x : f32x4[4] location={}", STIPPLE_POS_LOCATION - 2),
    ] {
        let src = FS.replace("out @frag", &format!("{decl}\nout @frag"));
        let mut s = parse(&src).unwrap();
        validate(&s).unwrap();
        let e = passes::lower(&mut s, &VariantKey::parse("line_stipple").unwrap()).unwrap_err();
        assert!(e.to_string().contains("reserved"), "{decl}: {e}");
    }
    // Vertex shaders are left alone (pipe-vk adds the geometry shader).
    let s = lowered(VS, "line_stipple");
    assert_eq!(print(&s), print(&parse(VS).unwrap()));
    // The rectangular flag alone does nothing.
    let s = lowered(FS, "line_rectangular");
    assert_eq!(print(&s), print(&parse(FS).unwrap()));
}

/// The stipple_pos values of each emitted vertex (`None` at each
/// end_primitive) of geometry shader `s` run with per-vertex positions
/// `pos` (input variable `pos_var`) and viewport scale `scale`.
fn gs_stipple(s: &Shader, pos_var: &str, pos: &[[f32; 4]], scale: [f32; 2]) -> Vec<Option<f32>> {
    let mut m = interp::Machine::new(s);
    for (k, p) in pos.iter().enumerate() {
        m.set_f32(pos_var, k as u32, p);
    }
    let o = (pc::VIEWPORT_SCALE / 4) as usize;
    m.push[o] = scale[0].to_bits();
    m.push[o + 1] = scale[1].to_bits();
    m.run();
    m.emitted
        .iter()
        .map(|e| {
            e.as_ref()
                .map(|e| f32::from_bits(e.get("stipple_pos").expect("stipple_pos written")[0]))
        })
        .collect()
}

fn window(p: [f32; 4], scale: [f32; 2]) -> [f32; 2] {
    [p[0] / p[3] * scale[0], p[1] / p[3] * scale[1]]
}

fn seg_len(a: [f32; 4], b: [f32; 4], scale: [f32; 2], rectangular: bool) -> f32 {
    let (a, b) = (window(a, scale), window(b, scale));
    let (dx, dy) = ((b[0] - a[0]).abs(), (b[1] - a[1]).abs());
    if rectangular {
        (dx * dx + dy * dy).sqrt()
    } else {
        dx.max(dy)
    }
}

fn close(a: &[Option<f32>], b: &[Option<f32>]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| match (x, y) {
            (Some(x), Some(y)) => (x - y).abs() <= 1e-3 * y.abs().max(1.0),
            (None, None) => true,
            _ => false,
        })
}

/// The polygon-mode variant: triangles in, the same triangle out, and
/// at each vertex `(q, r, b0, b1)` for the outline v2 -> v0 -> v1 -> v2
/// (lengths a, b, c): v0 (a, a, 1, 0), v1 (a + b, a + b, 0, 1), v2 (0,
/// a + b + c, 0, 0). The fragment-shader side takes it with
/// `line_stipple_polygon`.
#[test]
fn polygon_line_stipple_generated_gs() {
    use spirv_gen::passes::line_stipple::{polygon_line_stipple_gs, STIPPLE_POLY_NAME};
    let vs = parse(&corpus_src("vs_line_stipple.ir")).unwrap();
    let gs = polygon_line_stipple_gs(&vs, false).unwrap();
    validate(&gs).unwrap_or_else(|e| panic!("{e}\n{}", print(&gs)));
    common::emit_and_validate("polygon_line_stipple_gs", &gs);
    assert_eq!(gs.info.gs_input, Some(GsInput::Triangles));
    assert_eq!(gs.info.gs_output, Some(GsOutput::TriangleStrip));
    assert_eq!(gs.info.gs_max_vertices, Some(3));
    let sp = gs.var(gs.find_var(STIPPLE_POLY_NAME).unwrap());
    assert!(sp.is_output() && sp.ty == Type::vec4());
    assert_eq!(sp.io().unwrap().location, Some(STIPPLE_POS_LOCATION));
    assert_eq!(sp.io().unwrap().interp, Interp::NoPerspective);

    let scale = [100.0f32, -50.0];
    let p = [
        [-0.5, 0.0, 0.3, 1.0],
        [1.0, 1.0, 0.1, 2.0],
        [0.25, -0.75, 0.0, 1.0],
    ];
    for rect in [false, true] {
        let gs = polygon_line_stipple_gs(&vs, rect).unwrap();
        let mut m = interp::Machine::new(&gs);
        for (k, q) in p.iter().enumerate() {
            m.set_f32("in_gl_pos", k as u32, q);
        }
        let o = (pc::VIEWPORT_SCALE / 4) as usize;
        m.push[o] = scale[0].to_bits();
        m.push[o + 1] = scale[1].to_bits();
        m.run();
        let got: Vec<[f32; 4]> = m
            .emitted
            .iter()
            .flatten()
            .map(|e| {
                let w = &e[STIPPLE_POLY_NAME];
                [0, 1, 2, 3].map(|i| f32::from_bits(w[i]))
            })
            .collect();
        let a = seg_len(p[2], p[0], scale, rect);
        let b = seg_len(p[0], p[1], scale, rect);
        let c = seg_len(p[1], p[2], scale, rect);
        let want = [
            [a, a, 1.0, 0.0],
            [a + b, a + b, 0.0, 1.0],
            [0.0, a + b + c, 0.0, 0.0],
        ];
        assert_eq!(got.len(), 3, "rect={rect}");
        for (g, w) in got.iter().zip(want) {
            assert!(
                g.iter()
                    .zip(w)
                    .all(|(x, y)| (x - y).abs() <= 1e-3 * y.abs().max(1.0)),
                "rect={rect}: {got:?} vs {want:?}"
            );
        }
    }
    // The fragment side reads the f32x4 and passes spirv-val.
    let fs = lowered(FS, "line_stipple,line_stipple_polygon");
    let v = fs.var(fs.find_var(STIPPLE_POLY_NAME).unwrap());
    assert!(v.is_input() && v.ty == Type::vec4());
    assert!(has_discard(&fs.body));
}

/// `relocate=FROM:TO` moves an output's location (and
/// `relocate_varyings` an input's); a taken location is an error.
#[test]
fn relocate_outputs() {
    let vs = lowered(
        "shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
out @col : f32x4 location=0
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  store @col, %0
}
",
        "relocate=0:7",
    );
    let loc = |s: &Shader, name: &str| s.var(s.find_var(name).unwrap()).io().unwrap().location;
    let outs: Vec<Option<u32>> = vs
        .vars
        .iter()
        .filter(|v| v.is_output() && v.builtin().is_none())
        .map(|v| v.io().unwrap().location)
        .collect();
    assert!(
        outs.contains(&Some(7)) && !outs.contains(&Some(0)),
        "{outs:?}"
    );
    let mut fs = parse(FS).unwrap();
    spirv_gen::passes::gl::relocate_varyings(&mut fs, &[(1, 9)], false).unwrap();
    assert_eq!(loc(&fs, "tc"), Some(9));
    assert!(spirv_gen::passes::gl::relocate_varyings(&mut fs, &[(0, 9)], false).is_err());
}

/// `relocate`: outputs packed into one location by components move
/// together (moving one of them left the other past the geometry
/// stage's inputs).
#[test]
fn relocate_packed_outputs() {
    let vs = lowered(
        "shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
out @a : f32x2 location=20
out @b : f32x2 location=20 component=2
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  %1 : f32x2 = const 1.0, 0.5
  store @a, %1
  store @b, %1
}
",
        "relocate=20:3",
    );
    let loc = |name: &str| vs.var(vs.find_var(name).unwrap()).io().unwrap().location;
    assert_eq!((loc("a"), loc("b")), (Some(3), Some(3)));
}

/// `ubo0_push_offset`: constant buffer 0 grows to the window and every
/// load from it, constant or dynamic offset, reads at the stage's push
/// word plus its own offset; other buffers are untouched; other stages
/// are refused.
#[test]
fn ubo0_push_offset() {
    const SRC: &str = "shader fragment
in @sel : u32 location=0 flat
out @frag : f32x4 location=0
ubo @c slot=0 size=32
ubo @d slot=1 size=16
fn main {
  %0 : u32 = const 16
  %1 : f32x4 = load_ubo @c, %0
  %2 : u32 = load @sel
  %3 : f32x4 = load_ubo @c, %2
  %4 : u32 = const 0
  %5 : f32x4 = load_ubo @d, %4
  %6 : f32x4 = fadd %1, %3
  %7 : f32x4 = fadd %6, %5
  store @frag, %7
}
";
    use spirv_gen::binding::UBO0_WINDOW;
    let fs = lowered(SRC, "ubo0_push_offset");
    let size = |name: &str| match fs.var(fs.find_var(name).unwrap()).kind {
        VarKind::Ubo { size, .. } => size,
        _ => unreachable!(),
    };
    assert_eq!((size("c"), size("d")), (UBO0_WINDOW, 16));
    let mut m = interp::Machine::new(&fs);
    // Data at byte 256 of the window: word k holds k as f32.
    let words: Vec<u32> = (0..UBO0_WINDOW / 4).map(|k| (k as f32).to_bits()).collect();
    m.set("c", 0, words);
    m.set("d", 0, [100.0f32; 4].iter().map(|x| x.to_bits()).collect());
    m.set("sel", 0, vec![32]);
    m.push[(pc::UBO0_OFFSET / 4) as usize + 1] = 256;
    m.run();
    let out: Vec<f32> = m.vars[&fs.find_var("frag").unwrap()][&0]
        .iter()
        .map(|w| f32::from_bits(*w))
        .collect();
    // (256 + 16) / 4 = 68, (256 + 32) / 4 = 72: 68 + 72 + 100 = 240 in x.
    assert_eq!(out, vec![240.0, 242.0, 244.0, 246.0]);
    // The vertex stage reads the other word.
    let vs = lowered(
        "shader vertex
out @gl_pos : f32x4 builtin=position
ubo @c slot=0 size=16
fn main {
  %0 : u32 = const 0
  %1 : f32x4 = load_ubo @c, %0
  store @gl_pos, %1
}
",
        "ubo0_push_offset",
    );
    let mut m = interp::Machine::new(&vs);
    m.set("c", 0, (0..64u32).map(|k| (k as f32).to_bits()).collect());
    m.push[(pc::UBO0_OFFSET / 4) as usize] = 64;
    m.run();
    let out: Vec<f32> = m.vars[&vs.find_var("gl_pos").unwrap()][&0]
        .iter()
        .map(|w| f32::from_bits(*w))
        .collect();
    assert_eq!(out, vec![16.0, 17.0, 18.0, 19.0]);
    // Other stages cannot take it.
    let mut gs = parse(&corpus_src("gs_line_stipple_generated.ir")).unwrap();
    assert!(passes::lower(&mut gs, &VariantKey::parse("ubo0_push_offset").unwrap()).is_err());
}

/// The triangle the polygon-edge geometry shader tests draw.
const EDGE_TRIANGLE: [[f32; 4]; 3] = [
    [-0.5, 0.0, 0.3, 1.0],
    [1.0, 1.0, 0.1, 2.0],
    [0.25, -0.75, 0.0, 1.0],
];

/// Sets [`EDGE_TRIANGLE`] as adjacency input of `m` with the index
/// rewrite's markers for the hidden-edge mask `mask`: adjacency vertex
/// `2i + 1` on vertex `i` when edge `i` is drawn, on vertex `i + 1` when
/// it is hidden.
fn set_edge_markers(m: &mut interp::Machine, mask: u32) {
    let p = EDGE_TRIANGLE;
    for i in 0..3 {
        m.set_f32("in_gl_pos", 2 * i as u32, &p[i]);
        let a = if mask & (1 << i) != 0 {
            p[(i + 1) % 3]
        } else {
            p[i]
        };
        m.set_f32("in_gl_pos", 2 * i as u32 + 1, &a);
    }
}

/// `polygon_edges_gs`: triangles with adjacency in, the triangle
/// (vertices 0, 2, 4) out, and the hidden mask decoded from where the
/// adjacency vertices sit; the fragment side (`polygon_edges=`) discards
/// exactly the fragments of hidden edges (line mode) or vertices (point
/// mode), keeping a vertex that a visible edge ends at.
#[test]
fn polygon_edges() {
    use spirv_gen::passes::line_stipple::{polygon_edges_gs, EDGE_MASK_NAME, STIPPLE_POLY_NAME};
    let vs = parse(&corpus_src("vs_line_stipple.ir")).unwrap();
    let gs = polygon_edges_gs(&vs, false, false).unwrap();
    validate(&gs).unwrap_or_else(|e| panic!("{e}\n{}", print(&gs)));
    common::emit_and_validate("polygon_edges_gs", &gs);
    assert_eq!(gs.info.gs_input, Some(GsInput::TrianglesAdjacency));
    assert_eq!(gs.info.gs_output, Some(GsOutput::TriangleStrip));
    let em = gs.var(gs.find_var(EDGE_MASK_NAME).unwrap());
    assert!(em.is_output() && em.ty == Type::U32);
    assert_eq!(em.io().unwrap().interp, Interp::Flat);
    let p = EDGE_TRIANGLE;
    for mask in 0u32..8 {
        let mut m = interp::Machine::new(&gs);
        set_edge_markers(&mut m, mask);
        m.run();
        let emitted: Vec<_> = m.emitted.iter().flatten().collect();
        assert_eq!(emitted.len(), 3);
        for (k, e) in emitted.iter().enumerate() {
            assert_eq!(e[EDGE_MASK_NAME], vec![mask], "mask {mask:#b}");
            let pos: Vec<f32> = e["gl_pos"].iter().map(|w| f32::from_bits(*w)).collect();
            assert_eq!(pos, p[k], "vertex {k}");
        }
    }
    let keeps = |fs: &Shader, b: [f32; 3], mask: u32| {
        let mut m = interp::Machine::new(fs);
        m.set_f32(STIPPLE_POLY_NAME, 0, &[0.0, 0.0, b[0], b[1]]);
        m.set(EDGE_MASK_NAME, 0, vec![mask]);
        m.run();
        !m.discarded
    };
    let lines = lowered(FS, "polygon_edges=lines");
    let points = lowered(FS, "polygon_edges=points");
    for mask in 0u32..8 {
        let hidden = |i: usize| mask & (1 << i) != 0;
        for i in 0..3 {
            // The middle of edge i (vertex i to i + 1), and a point on it
            // near vertex i + 1.
            let mut mid = [0.0f32; 3];
            mid[i] = 0.5;
            mid[(i + 1) % 3] = 0.5;
            let mut near = [0.0f32; 3];
            near[i] = 0.01;
            near[(i + 1) % 3] = 0.99;
            for b in [mid, near] {
                assert_eq!(
                    keeps(&lines, b, mask),
                    !hidden(i),
                    "edge {i} {b:?} mask {mask:#b}"
                );
            }
            // Vertex i + 1 itself ends edges i and i + 1.
            let mut v = [0.0f32; 3];
            v[(i + 1) % 3] = 1.0;
            assert_eq!(
                keeps(&lines, v, mask),
                !hidden(i) || !hidden((i + 1) % 3),
                "vertex {} mask {mask:#b}",
                (i + 1) % 3
            );
            // Point mode: vertex i.
            let mut v = [0.0f32; 3];
            v[i] = 1.0;
            assert_eq!(
                keeps(&points, v, mask),
                !hidden(i),
                "point {i} mask {mask:#b}"
            );
        }
    }
    // With line stipple emulation both read the one varying.
    let both = lowered(FS, "line_stipple,line_stipple_polygon,polygon_edges=lines");
    let at29 = both
        .vars
        .iter()
        .filter(|v| v.is_input() && v.io().unwrap().location == Some(STIPPLE_POS_LOCATION))
        .count();
    assert_eq!(at29, 1);
}

/// `polygon_edges_gs` with explicit edge flags: vertex i's `slot=edge`
/// output of 0.0 hides edge (vertex) i on top of the adjacency markers;
/// any other value leaves the markers' mask. The flag is forwarded as a
/// plain varying (the slot is the vertex shader's only); a previous stage
/// without one is an error.
#[test]
fn polygon_edges_explicit_flags() {
    use spirv_gen::passes::line_stipple::{polygon_edges_gs, EDGE_MASK_NAME};
    let vs_src = "shader vertex
in @pos : f32x4 location=0
in @flag : f32 location=1
out @gl_pos : f32x4 builtin=position
out @edge : f32 location=4 slot=edge
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  %1 : f32 = load @flag
  store @edge, %1
}
";
    let vs = parse(vs_src).unwrap();
    validate(&vs).unwrap();
    let gs = polygon_edges_gs(&vs, false, true).unwrap();
    validate(&gs).unwrap_or_else(|e| panic!("{e}\n{}", print(&gs)));
    common::emit_and_validate("polygon_edges_gs edge flags", &gs);
    for v in gs.vars.iter().filter(|v| v.io().is_some()) {
        assert_eq!(
            v.io().unwrap().slot,
            None,
            "@{} keeps the edge slot",
            v.name
        );
    }
    let p = EDGE_TRIANGLE;
    for markers in 0u32..8 {
        for flags in 0u32..8 {
            let mut m = interp::Machine::new(&gs);
            set_edge_markers(&mut m, markers);
            for i in 0..3 {
                // Flag values GL's frontends pass: 0.0 or 1.0 (and -0.0,
                // also false).
                let f = match (flags & (1 << i) != 0, i) {
                    (true, _) => 1.0f32,
                    (false, 1) => -0.0,
                    (false, _) => 0.0,
                };
                m.set_f32("in_edge", 2 * i as u32, &[f]);
                // The adjacency vertices' flags are never read.
                m.set_f32("in_edge", 2 * i as u32 + 1, &[f32::NAN]);
            }
            m.run();
            let emitted: Vec<_> = m.emitted.iter().flatten().collect();
            assert_eq!(emitted.len(), 3);
            let want = markers | (!flags & 7);
            for e in &emitted {
                assert_eq!(
                    e[EDGE_MASK_NAME],
                    vec![want],
                    "markers {markers:#b} flags {flags:#b}"
                );
            }
        }
    }
    // Plain triangle lists (`edge_flags_gs`): no markers, the flags alone.
    let tri = spirv_gen::passes::line_stipple::edge_flags_gs(&vs, false).unwrap();
    validate(&tri).unwrap_or_else(|e| panic!("{e}\n{}", print(&tri)));
    common::emit_and_validate("edge_flags_gs", &tri);
    assert_eq!(tri.info.gs_input, Some(GsInput::Triangles));
    for flags in 0u32..8 {
        let mut m = interp::Machine::new(&tri);
        for i in 0..3u32 {
            m.set_f32("in_gl_pos", i, &p[i as usize]);
            let f = if flags & (1 << i) != 0 { 1.0 } else { 0.0 };
            m.set_f32("in_edge", i, &[f]);
        }
        m.run();
        let emitted: Vec<_> = m.emitted.iter().flatten().collect();
        assert_eq!(emitted.len(), 3);
        for e in &emitted {
            assert_eq!(e[EDGE_MASK_NAME], vec![!flags & 7], "flags {flags:#b}");
        }
    }
    // Without a flag output.
    let plain = parse(&corpus_src("vs_line_stipple.ir")).unwrap();
    let err = polygon_edges_gs(&plain, false, true).unwrap_err();
    assert!(err.to_string().contains("slot=edge"), "{err}");
    // The other generated shaders that forward a flagged vertex shader's
    // outputs drop the slot too (it is a vertex shader output only).
    let tcs = spirv_gen::passes::tess::passthrough_tcs(&vs, 3).unwrap();
    validate(&tcs).unwrap_or_else(|e| panic!("{e}\n{}", print(&tcs)));
    let aliased =
        spirv_gen::passes::aliased::aliased_triangles_gs(&vs, false, 0, None, false).unwrap();
    validate(&aliased).unwrap_or_else(|e| panic!("{e}\n{}", print(&aliased)));
    // One edge flag per shader.
    let two = vs_src.replace(
        "out @edge : f32 location=4 slot=edge",
        "out @edge : f32 location=4 slot=edge\nout @edge2 : f32 location=6 slot=edge",
    );
    let err = validate(&parse(&two).unwrap()).unwrap_err();
    assert!(err.to_string().contains("slot=edge"), "{err}");
    // The slot belongs to vertex shader outputs of type f32.
    for (what, src) in [
        (
            "input",
            vs_src.replace("@flag : f32 location=1", "@flag : f32 location=1 slot=edge"),
        ),
        (
            "vector",
            vs_src
                .replace("@edge : f32 location=4", "@edge : f32x4 location=4")
                .replace("store @edge, %1", ""),
        ),
        (
            "fragment",
            "shader fragment\nin @edge : f32 location=4 slot=edge\nfn main {\n}\n".to_string(),
        ),
    ] {
        let s = parse(&src).unwrap_or_else(|e| panic!("{what}: {e}"));
        let err = validate(&s).expect_err(what);
        assert!(err.to_string().contains("slot=edge"), "{what}: {err}");
    }
}

/// `line_stipple_gs_for` with adjacency input: of (p0, p1, p2, p3) it
/// emits p1 and p2 (`lines_adjacency`), of a triangle with adjacency
/// vertices 0, 2 and 4; points are refused.
#[test]
fn line_stipple_generated_gs_adjacency() {
    use spirv_gen::passes::line_stipple::line_stipple_gs_for;
    let vs = parse(&corpus_src("vs_line_stipple.ir")).unwrap();
    for (input, n, picked) in [
        (GsInput::LinesAdjacency, 4u32, vec![1u32, 2]),
        (GsInput::TrianglesAdjacency, 6, vec![0, 2, 4]),
        (GsInput::Lines, 2, vec![0, 1]),
        (GsInput::Triangles, 3, vec![0, 1, 2]),
    ] {
        let gs = line_stipple_gs_for(&vs, false, input).unwrap();
        validate(&gs).unwrap_or_else(|e| panic!("{e}\n{}", print(&gs)));
        common::emit_and_validate("line_stipple_gs_for", &gs);
        assert_eq!(gs.info.gs_input, Some(input));
        let mut m = interp::Machine::new(&gs);
        for k in 0..n {
            m.set_f32("in_gl_pos", k, &[k as f32, 0.0, 0.0, 1.0]);
        }
        m.run();
        let xs: Vec<u32> = m
            .emitted
            .iter()
            .flatten()
            .map(|e| f32::from_bits(e["gl_pos"][0]) as u32)
            .collect();
        assert_eq!(xs, picked, "{input:?}");
    }
    assert!(line_stipple_gs_for(&vs, false, GsInput::Points).is_err());
}

/// `smooth_line_ends_gs`: each segment lengthened by half a pixel at
/// both ends in window space (w = 2 at one end: clip space scales),
/// `stipple_pos` from -1/2 to the length + 1/2, the length in
/// `smooth_line_len` at both vertices; a segment the near clip plane
/// cuts (z = -w, or z = 0 with `clip_halfz`) is left as it is and
/// measured from the cut; one with a vertex at or behind the eye (w <= 0)
/// that the plane does not cut where w > 0 is left as it is and weighed
/// across only. Lines with and without adjacency;
/// triangles and a previous stage writing location 28 are refused.
#[test]
fn smooth_line_ends_generated_gs() {
    use spirv_gen::passes::line_stipple::smooth_line_ends_gs;
    let vs = parse(&corpus_src("vs_line_stipple.ir")).unwrap();
    for input in [GsInput::Lines, GsInput::LinesAdjacency] {
        let gs = smooth_line_ends_gs(&vs, input, false).unwrap();
        validate(&gs).unwrap_or_else(|e| panic!("{e}\n{}", print(&gs)));
        common::emit_and_validate("smooth_line_ends_gs", &gs);
        let first = u32::from(input == GsInput::LinesAdjacency);
        // Viewport 16 x 8 (scale 8, 4): (-0.5, 0) to (0.5, 0) in NDC is
        // 8 pixels along x; w = 2 at the second vertex.
        let run = |a: [f32; 4], b: [f32; 4]| {
            let mut m = interp::Machine::new(&gs);
            for k in 0..input.vertices() {
                m.set_f32("in_gl_pos", k, &[7.0, 7.0, 0.0, 1.0]);
            }
            m.set_f32("in_gl_pos", first, &a);
            m.set_f32("in_gl_pos", first + 1, &b);
            let o = (pc::VIEWPORT_SCALE / 4) as usize;
            m.push[o] = 8f32.to_bits();
            m.push[o + 1] = 4f32.to_bits();
            m.run();
            let out: Vec<_> = m.emitted.iter().flatten().cloned().collect();
            assert_eq!(out.len(), 2);
            out
        };
        let out = run([-0.5, 0.0, 0.0, 1.0], [1.0, 0.0, 0.5, 2.0]);
        let p0 = emitted_f32(&out[0], "gl_pos");
        let p1 = emitted_f32(&out[1], "gl_pos");
        // Half a pixel is 1/16 in NDC x.
        assert_eq!(p0, vec![-0.5 - 0.0625, 0.0, 0.0, 1.0]);
        assert_eq!(p1, vec![1.0 + 0.125, 0.0, 0.5, 2.0]);
        assert_eq!(emitted_f32(&out[0], "stipple_pos"), vec![-0.5]);
        assert_eq!(emitted_f32(&out[1], "stipple_pos"), vec![8.5]);
        for o in &out {
            assert_eq!(emitted_f32(o, "smooth_line_len"), vec![8.0]);
        }
        // Cut by the near plane (z = -w): unchanged, measured from the
        // cut at x = 0 in NDC (t = 1/3 from (-0.5, 0, 0, 1) to
        // (1, 0, -3, 1)), 4 pixels from the visible vertex: 0 there and 4
        // at the cut (12 at the clipped vertex); with the first vertex
        // clipped off, 0 at the cut (-8 at that vertex, t = 2/3).
        let near = [-0.5, 0.0, 0.0, 1.0];
        let far = [1.0, 0.0, -3.0, 1.0];
        let close = |got: Vec<f32>, want: f32| {
            assert!((got[0] - want).abs() < 1e-4, "{got:?}, want {want}");
        };
        let out = run(near, far);
        assert_eq!(emitted_f32(&out[0], "gl_pos"), near.to_vec());
        assert_eq!(emitted_f32(&out[1], "gl_pos"), far.to_vec());
        close(emitted_f32(&out[0], "stipple_pos"), 0.0);
        close(emitted_f32(&out[1], "stipple_pos"), 12.0);
        let out = run(far, near);
        assert_eq!(emitted_f32(&out[0], "gl_pos"), far.to_vec());
        close(emitted_f32(&out[0], "stipple_pos"), -8.0);
        close(emitted_f32(&out[1], "stipple_pos"), 4.0);
        for o in &out {
            close(emitted_f32(o, "smooth_line_len"), 4.0);
        }
        // Behind the eye (w < 0) or at it (w = 0), not cut by the plane
        // where w > 0: unchanged, and weighed across only (1/2 along a
        // segment as long as a float goes).
        for w in [-1.0, 0.0] {
            let out = run([-0.5, 0.0, 0.0, 1.0], [0.5, 0.0, 0.0, w]);
            assert_eq!(emitted_f32(&out[0], "gl_pos"), vec![-0.5, 0.0, 0.0, 1.0]);
            assert_eq!(emitted_f32(&out[1], "gl_pos"), vec![0.5, 0.0, 0.0, w]);
            for o in &out {
                assert_eq!(emitted_f32(o, "stipple_pos"), vec![0.5]);
                assert_eq!(emitted_f32(o, "smooth_line_len"), vec![f32::MAX]);
            }
        }
    }
    // With `clip_halfz` the plane is z = 0: (-0.5, 0, 0.5, 1) to
    // (1, 0, -1, 1) is cut at t = 1/3 (x = 0), which z = -w would not cut.
    let gs = smooth_line_ends_gs(&vs, GsInput::Lines, true).unwrap();
    validate(&gs).unwrap_or_else(|e| panic!("{e}\n{}", print(&gs)));
    let mut m = interp::Machine::new(&gs);
    let (a, b) = ([-0.5, 0.0, 0.5, 1.0], [1.0, 0.0, -1.0, 1.0]);
    m.set_f32("in_gl_pos", 0, &a);
    m.set_f32("in_gl_pos", 1, &b);
    let o = (pc::VIEWPORT_SCALE / 4) as usize;
    m.push[o] = 8f32.to_bits();
    m.push[o + 1] = 4f32.to_bits();
    m.run();
    let out: Vec<_> = m.emitted.iter().flatten().cloned().collect();
    assert_eq!(emitted_f32(&out[0], "gl_pos"), a.to_vec());
    let along: Vec<f32> = out
        .iter()
        .map(|o| emitted_f32(o, "stipple_pos")[0])
        .collect();
    assert!(
        (along[0]).abs() < 1e-4 && (along[1] - 12.0).abs() < 1e-4,
        "{along:?}"
    );
    assert!((emitted_f32(&out[0], "smooth_line_len")[0] - 4.0).abs() < 1e-4);
    assert!(smooth_line_ends_gs(&vs, GsInput::Triangles, false).is_err());
    let taken = corpus_src("vs_line_stipple.ir")
        .replace("fn main {", "out @own : f32 location=28\nfn main {");
    let taken = parse(&taken).unwrap();
    assert!(smooth_line_ends_gs(&taken, GsInput::Lines, false).is_err());
    // An array from location 27 takes 28 too, as does a dvec4 there.
    for decl in [
        "out @own : f32x4[2] location=27",
        "out @own : f64x4 location=27",
    ] {
        let src =
            corpus_src("vs_line_stipple.ir").replace("fn main {", &format!("{decl}\nfn main {{"));
        let vs = parse(&src).unwrap_or_else(|e| panic!("{e}\n{src}"));
        assert!(
            smooth_line_ends_gs(&vs, GsInput::Lines, false).is_err(),
            "{decl}"
        );
        if let Err(e) = spirv_gen::passes::line_stipple::line_stipple_gs(&vs, false) {
            // Not for the location (29 is free).
            assert!(!e.to_string().contains("reserved"), "{decl}: {e}");
        }
    }
    // The fragment half: the key reads both varyings.
    let fs = lowered(FS, "smooth_lines=1.0,smooth_line_ends");
    for (name, loc) in [("stipple_pos", 29), ("smooth_line_len", 28)] {
        assert!(
            fs.vars
                .iter()
                .any(|v| v.name == name && v.is_input() && v.io().unwrap().location == Some(loc)),
            "{}",
            print(&fs)
        );
    }
}

/// Stippled smooth lines with their ends (key items `smooth_lines`,
/// `smooth_line_ends`, `line_stipple`): the fragment shader weighs the
/// coverage along the line by the stipple, the kept share of the pixel's
/// extent along it, `[s - 1/2, s + 1/2]` inside `[0, len]`, where GL's
/// rectangles one pixel (a factor) long each take a pattern bit; a pixel
/// whose share is 0 is discarded, and no pattern test discards on its own.
/// Run in the test interpreter on a pixel centred on the line (the
/// coverage across it is 1).
#[test]
fn smooth_lines_stippled_coverage() {
    use spirv_gen::binding::{EDGE_MASK_LOCATION, SMOOTH_LINE_LOCATION};
    let fs = lowered(FS, "smooth_lines=1.0,smooth_line_ends,line_stipple");
    let at = |loc: u32| {
        fs.vars
            .iter()
            .find(|v| v.is_input() && v.io().unwrap().location == Some(loc))
            .unwrap_or_else(|| panic!("no input at {loc}"))
            .name
            .clone()
    };
    let (clip, along, len_in) = (
        at(SMOOTH_LINE_LOCATION),
        at(STIPPLE_POS_LOCATION),
        at(EDGE_MASK_LOCATION),
    );
    let fc = fs
        .var(fs.find_builtin(false, BuiltIn::FragCoord).unwrap())
        .name
        .clone();
    // (GL pattern, GL factor, s, len) and the alpha expected: bits 0-5 and
    // 10-13 of 0x3c3f are on.
    let cases: [(u16, u32, f32, f32, f32); 9] = [
        (0x3c3f, 1, 0.0, 13.0, 0.5),  // the start: [0, 0.5]
        (0x3c3f, 1, -0.4, 13.0, 0.1), // past the start: [0, 0.1]
        (0x3c3f, 1, 3.0, 13.0, 1.0),  // inside a run that is on
        (0x3c3f, 1, 6.0, 13.0, 0.5),  // [5.5, 6): bit 5 on, bit 6 off
        (0x3c3f, 1, 8.0, 13.0, 0.0),  // inside the gap: discarded
        (0x3c3f, 1, 10.0, 13.0, 0.5), // [10, 10.5]: bit 10 on
        (0x3c3f, 1, 13.2, 13.0, 0.3), // past the end: [12.7, 13]
        (0x0001, 2, 1.8, 13.0, 0.7),  // bit 0 covers [0, 2)
        (0xfffe, 2, 1.8, 13.0, 0.3),  // bit 1 covers [2, 4)
    ];
    for (pattern, factor, s_, len, want) in cases {
        let mut m = interp::Machine::new(&fs);
        m.set_f32(&fc, 0, &[5.5, 3.5, 0.5, 1.0]);
        m.set_f32(&clip, 0, &[5.5, 3.5, 1.0]);
        m.set_f32(&along, 0, &[s_]);
        m.set_f32(&len_in, 0, &[len]);
        m.set_f32("col", 0, &[1.0, 1.0, 1.0, 1.0]);
        m.set_f32("tc", 0, &[0.0; 4]);
        let o = (pc::VIEWPORT_SCALE / 4) as usize;
        m.push[o] = 1f32.to_bits();
        m.push[o + 1] = 1f32.to_bits();
        m.push[(pc::LINE_STIPPLE / 4) as usize] = stipple_word(pattern, factor);
        m.run();
        let what = format!("pattern {pattern:#x}, factor {factor}, s {s_}");
        if want == 0.0 {
            assert!(m.discarded, "{what}");
            continue;
        }
        assert!(!m.discarded, "{what}");
        let frag = fs.find_var("frag").unwrap();
        let alpha = f32::from_bits(m.vars[&frag][&0][3]);
        assert!(
            (alpha - want).abs() < 1e-5,
            "{what}: alpha {alpha}, want {want}"
        );
    }
    // No separate pattern test: it would discard a fragment centred in a
    // gap whose pixel reaches into a run that is on.
    assert_eq!(count(&fs, |i| matches!(&i.op, Op::Alu(AluOp::Fmod, _))), 2);
}

#[test]
fn line_stipple_generated_gs() {
    let vs_src = corpus_src("vs_line_stipple.ir");
    let vs = parse(&vs_src).unwrap();
    validate(&vs).unwrap();
    let gs = line_stipple_gs(&vs, false).unwrap();
    validate(&gs).unwrap_or_else(|e| panic!("{e}\n{}", print(&gs)));
    common::emit_and_validate("line_stipple_gs", &gs);
    // The corpus holds exactly this shader (tests/corpus-src/gen.py).
    assert_eq!(
        print(&gs),
        corpus_src("gs_line_stipple_generated.ir"),
        "regenerate gs_line_stipple_generated in tests/corpus-src/gen.py"
    );
    assert_eq!(gs.stage, Stage::Geometry);
    assert_eq!(gs.info.gs_input, Some(GsInput::Lines));
    assert_eq!(gs.info.gs_output, Some(GsOutput::LineStrip));
    assert_eq!(gs.info.gs_max_vertices, Some(2));
    assert_eq!(gs.info.gs_invocations, Some(1));
    // Every output of the vertex shader: a per-vertex input with the same
    // interface slot, and an output identical to the vertex shader's.
    for v in vs.vars.iter().filter(|v| v.is_output()) {
        let vio = v.io().unwrap();
        let inp = gs.var(gs.find_var(&format!("in_{}", v.name)).unwrap());
        assert!(
            inp.is_input() && inp.array == Some(2) && inp.ty == v.ty,
            "{}",
            v.name
        );
        let iio = inp.io().unwrap();
        assert_eq!(
            (iio.location, iio.component, iio.builtin, iio.slot),
            (vio.location, vio.component, vio.builtin, vio.slot)
        );
        let out = gs.var(gs.find_var(&v.name).unwrap());
        assert_eq!((&out.kind, out.ty, out.array), (&v.kind, v.ty, v.array));
    }
    let sp = gs.var(gs.find_var("stipple_pos").unwrap());
    assert!(sp.is_output() && sp.ty == Type::F32);
    assert_eq!(sp.io().unwrap().location, Some(STIPPLE_POS_LOCATION));
    assert_eq!(sp.io().unwrap().interp, Interp::NoPerspective);
    assert!(gs.find_builtin(true, BuiltIn::PrimitiveId).is_some());
    assert!(gs.find_builtin(false, BuiltIn::PrimitiveId).is_some());
    let emits = count(&gs, |i| {
        matches!(i.op, Op::Intrinsic(Intrinsic::EmitVertex { stream: 0 }))
    });
    let ends = count(&gs, |i| {
        matches!(i.op, Op::Intrinsic(Intrinsic::EndPrimitive { stream: 0 }))
    });
    assert_eq!((emits, ends), (2, 1));
    assert!(print(&gs).contains(&format!("= const {}\n", pc::VIEWPORT_SCALE)));

    // What it computes: 0 at vertex 0, the window length at vertex 1; the
    // varyings of vertex k come from input element k.
    let scale = [100.0, -50.0];
    let p = [[-0.5, 0.0, 0.3, 1.0], [1.0, 1.0, 0.1, 2.0]];
    for rect in [false, true] {
        let gs = line_stipple_gs(&vs, rect).unwrap();
        let got = gs_stipple(&gs, "in_gl_pos", &p, scale);
        let want = [Some(0.0), Some(seg_len(p[0], p[1], scale, rect)), None];
        assert!(close(&got, &want), "rect={rect}: {got:?} vs {want:?}");
    }
    assert_eq!(seg_len(p[0], p[1], scale, false), 100.0);
    let mut m = interp::Machine::new(&gs);
    m.set_f32("in_vcolor", 0, &[1.0, 2.0, 3.0, 4.0]);
    m.set_f32("in_vcolor", 1, &[5.0, 6.0, 7.0, 8.0]);
    m.set("in_id", 1, vec![77]);
    m.set("in_primitive_id", 0, vec![9]);
    m.run();
    let e: Vec<_> = m.emitted.iter().flatten().collect();
    assert_eq!(e[0]["vcolor"], [1.0f32, 2.0, 3.0, 4.0].map(f32::to_bits));
    assert_eq!(e[1]["vcolor"], [5.0f32, 6.0, 7.0, 8.0].map(f32::to_bits));
    assert_eq!((e[0]["id"][0], e[1]["id"][0]), (0, 77));
    assert_eq!((e[0]["primitive_id"][0], e[1]["primitive_id"][0]), (9, 9));

    // Lowered as the last vertex stage; `line_stipple` on it is a no-op
    // (it already writes stipple_pos).
    let mut l = gs.clone();
    passes::lower(&mut l, &VariantKey::parse("line_stipple").unwrap()).unwrap();
    assert_eq!(print(&l), print(&gs));
    let mut l = gs.clone();
    passes::lower(
        &mut l,
        &VariantKey::parse("last_vertex_stage,clip=0x3,point_size=2.0,line_stipple").unwrap(),
    )
    .unwrap();
    passes::optimize(&mut l);
    validate(&l).unwrap();
    common::emit_and_validate("line_stipple_gs lowered", &l);
    assert!(l.find_builtin(true, BuiltIn::ClipDistance).is_some());

    // From a tess eval shader (isolines).
    let tes = parse(&corpus_src("tes_isolines_points.ir")).unwrap();
    let g = line_stipple_gs(&tes, true).unwrap();
    common::emit_and_validate("line_stipple_gs tes", &g);
    assert_eq!(
        count(&g, |i| matches!(&i.op, Op::Alu(AluOp::Fdistance, _))),
        1
    );
    assert_eq!(count(&g, |i| matches!(&i.op, Op::Alu(AluOp::Fmax, _))), 0);

    // What it cannot do is an error, never a panic.
    let errs = [
        (parse(FS).unwrap(), "vertex or tess_eval"),
        (
            parse(&VS.replace(
                "out @gl_pos : f32x4 builtin=position",
                "out @gl_pos : f32x4 location=0",
            ))
            .unwrap(),
            "no f32x4 position",
        ),
        (
            parse(&VS.replace(
                "out @gl_pos",
                &format!("out @x : f32 location={STIPPLE_POS_LOCATION}\nout @gl_pos"),
            ))
            .unwrap(),
            "reserved",
        ),
    ];
    for (s, want) in errs {
        let e = line_stipple_gs(&s, false).unwrap_err().to_string();
        assert!(e.contains(want), "{want}: {e}");
    }
}

/// The generated line stipple (and polygon edge) geometry shader forwards
/// array outputs of the vertex shader: clip and cull distances and array
/// varyings arrive as arrays of arrays, and vertex k's elements leave as
/// the output's. Also after the clip-plane lowering wrote the distances.
#[test]
fn line_stipple_gs_forwards_arrays() {
    use spirv_gen::passes::line_stipple::polygon_edges_gs;
    let vs = parse(
        &corpus_src("vs_cull_layer_outputs.ir")
            .replace("out @gl_pos", "out @arr : f32x4[2] location=3\nout @gl_pos"),
    )
    .unwrap();
    validate(&vs).unwrap();
    let gs = line_stipple_gs(&vs, false).unwrap();
    validate(&gs).unwrap_or_else(|e| panic!("{e}\n{}", print(&gs)));
    common::emit_and_validate("line_stipple_gs arrays", &gs);
    let text = print(&gs);
    for decl in [
        "in @in_cull : f32[2][2] builtin=cull_distance",
        "in @in_clipd : f32[2][1] builtin=clip_distance",
        "in @in_arr : f32x4[2][2] location=3",
        "out @cull : f32[2] builtin=cull_distance",
        "out @arr : f32x4[2] location=3",
    ] {
        assert!(text.contains(decl), "{decl}\n{text}");
    }
    let mut m = interp::Machine::new(&gs);
    for k in 0..2u32 {
        let base = 10.0 * k as f32;
        m.set_f32("in_gl_pos", k, &[k as f32, 0.0, 0.0, 1.0]);
        m.set_f32("in_cull", 2 * k, &[base + 1.0]);
        m.set_f32("in_cull", 2 * k + 1, &[base + 2.0]);
        m.set_f32("in_clipd", k, &[base + 3.0]);
        m.set_f32("in_arr", 2 * k, &[base + 4.0; 4]);
        m.set_f32("in_arr", 2 * k + 1, &[base + 5.0; 4]);
    }
    m.run();
    let out: Vec<_> = m.emitted.iter().flatten().collect();
    assert_eq!(out.len(), 2);
    for (k, e) in out.iter().enumerate() {
        let base = 10.0 * k as f32;
        assert_eq!(emitted_f32(e, "cull"), [base + 1.0], "vertex {k}");
        assert_eq!(emitted_f32(e, "cull[1]"), [base + 2.0], "vertex {k}");
        assert_eq!(emitted_f32(e, "clipd"), [base + 3.0], "vertex {k}");
        assert_eq!(emitted_f32(e, "arr"), [base + 4.0; 4], "vertex {k}");
        assert_eq!(emitted_f32(e, "arr[1]"), [base + 5.0; 4], "vertex {k}");
    }
    // Polygon edges (triangles_adjacency: vertices 0, 2 and 4).
    let gs = polygon_edges_gs(&vs, false, false).unwrap();
    validate(&gs).unwrap_or_else(|e| panic!("{e}\n{}", print(&gs)));
    common::emit_and_validate("polygon_edges_gs arrays", &gs);
    let mut m = interp::Machine::new(&gs);
    for k in 0..6u32 {
        m.set_f32("in_gl_pos", k, &[k as f32, (k % 2) as f32, 0.0, 1.0]);
        m.set_f32("in_cull", 2 * k + 1, &[k as f32]);
    }
    m.run();
    let got: Vec<f32> = m
        .emitted
        .iter()
        .flatten()
        .map(|e| emitted_f32(e, "cull[1]")[0])
        .collect();
    assert_eq!(got, [0.0, 2.0, 4.0]);
    // A vertex shader whose clip planes were lowered to distances.
    let gs = line_stipple_gs(&lowered(VS, "clip=0x1"), false).unwrap();
    validate(&gs).unwrap_or_else(|e| panic!("{e}\n{}", print(&gs)));
    common::emit_and_validate("line_stipple_gs lowered clip", &gs);
}

#[test]
fn line_stipple_in_application_gs() {
    let src = corpus_src("gs_line_stipple_strips.ir");
    let scale = [200.0, 100.0];
    // Two strips of two vertices each (end_primitive after vertex 1).
    let p = [
        [0.0, 0.0, 0.0, 1.0],
        [0.3, -0.4, 0.0, 1.0],
        [0.2, 0.2, 0.5, 2.0],
        [-0.6, 0.5, 0.5, 2.0],
    ];
    for rect in [false, true] {
        let key = if rect {
            "line_stipple,line_rectangular"
        } else {
            "line_stipple"
        };
        let s = lowered(&src, key);
        let sp = s.var(s.find_var("stipple_pos").unwrap());
        assert!(sp.is_output());
        assert_eq!(sp.io().unwrap().location, Some(STIPPLE_POS_LOCATION));
        assert_eq!(sp.io().unwrap().interp, Interp::NoPerspective);
        let got = gs_stipple(&s, "pos", &p, scale);
        let want = [
            Some(0.0),
            Some(seg_len(p[0], p[1], scale, rect)),
            None,
            Some(0.0),
            Some(seg_len(p[2], p[3], scale, rect)),
            None,
        ];
        assert!(
            close(&got, &want),
            "{key}: {got:?} vs {want:?}\n{}",
            print(&s)
        );
    }
    // The counter accumulates along a strip: gs_lines emits p0, the
    // midpoint, p1.
    let s = lowered(&corpus_src("gs_lines.ir"), "line_stipple");
    let p = [[-0.5, -0.5, 0.0, 1.0], [0.5, 0.1, 0.0, 2.0]];
    let mid = [0.0, -0.2, 0.0, 1.5];
    let got = gs_stipple(&s, "pos", &p, scale);
    let l1 = seg_len(p[0], mid, scale, false);
    let l2 = seg_len(mid, p[1], scale, false);
    let want = [Some(0.0), Some(l1), Some(l1 + l2), None];
    assert!(close(&got, &want), "{got:?} vs {want:?}");
    // The position read is the final one: with the depth-range lowering,
    // only z changes, so the distances stay the same.
    let s = lowered(&corpus_src("gs_lines.ir"), "line_stipple,last_vertex_stage");
    assert!(close(&gs_stipple(&s, "pos", &p, scale), &want));
    // Geometry shaders that do not emit lines are left alone.
    let src = corpus_src("gs_clip_halfz.ir");
    let s = lowered(&src, "line_stipple");
    assert_eq!(print(&s), src);
    // A geometry shader without a position is an error.
    let src = "shader geometry input=lines output=line_strip max_vertices=2 invocations=1
out @o : f32x4 location=0
fn main {
  %0 : f32x4 = const 0.0, 0.0, 0.0, 1.0
  store @o, %0
  emit_vertex
}
";
    let mut s = parse(src).unwrap();
    validate(&s).unwrap();
    let e = passes::lower(&mut s, &VariantKey::parse("line_stipple").unwrap()).unwrap_err();
    assert!(e.to_string().contains("position"), "{e}");
}

/// The generated pass-through TCS (`passes::tess`) passes spirv-val for
/// every patch size, forwarding a vertex shader's position and varyings.
#[test]
fn passthrough_tcs_passes_spirv_val() {
    let vs = parse(
        "shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
out @psz : f32 builtin=point_size
out @c : f32x4 location=0
out @i : i32x2 location=3 flat
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  %1 : f32 = const 1.0
  store @psz, %1
  store @c, %0
  %2 : i32 = const 5
  %3 : i32x2 = vec %2, %2
  store @i, %3
}
",
    )
    .unwrap();
    for n in [1, 3, 4, 16, 32] {
        let tcs = passes::tess::passthrough_tcs(&vs, n).unwrap();
        validate(&tcs).unwrap();
        common::emit_and_validate(&format!("passthrough tcs {n}"), &tcs);
    }
}

/// Window rectangles: a discard comes first, reading `count` rectangles
/// from the driver constant buffer; include mode negates the test; the
/// key's text form round-trips the mode and count; too many rectangles is
/// an error.
#[test]
fn window_rects_discard_first() {
    for (key, loads) in [
        ("window_rects=include:2", 2),
        ("window_rects=exclude:8", 8),
        ("window_rects=include:0", 0),
    ] {
        let s = lowered(FS, key);
        let Some(Node::If(f)) = s.body.iter().find(|n| !matches!(n, Node::Instr(_))) else {
            panic!("{key}: no if: {}", print(&s));
        };
        assert!(matches!(
            f.then_body.as_slice(),
            [Node::Jump(Jump::Discard, _)]
        ));
        let rect_loads = s
            .body
            .iter()
            .filter(|n| {
                matches!(n, Node::Instr(Instr { op: Op::Intrinsic(Intrinsic::LoadUbo { .. }), dest: Some((_, t)), .. }) if t.comps == 4)
            })
            .count();
        assert_eq!(rect_loads, loads, "{key}: {}", print(&s));
        let text = print(&s);
        assert_eq!(
            text.contains("bnot"),
            key.contains("include"),
            "{key}: {text}"
        );
    }
    let k = VariantKey::parse("window_rects=include:3").unwrap();
    assert_eq!(k.window_rects, Some((true, 3)));
    assert!(VariantKey::parse("window_rects=sideways:3").is_err());
    let mut s = parse(FS).unwrap();
    assert!(gl::lower_window_rects(&mut s, true, 9).is_err());
}

/// With `demote_discards`, every fixed-function test at the start demotes
/// the fragment (`if cond { demote }`, no discard left) and the shader
/// runs on; without, each discards. A shader that demotes itself gets
/// demoting tests without the key. All pass spirv-val.
#[test]
fn fixed_function_tests_demote() {
    let keys = "window_rects=exclude:2,polygon_stipple,smooth_lines=1.5";
    let is_demote = |i: &Instr| matches!(i.op, Op::Intrinsic(Intrinsic::Demote));
    let killing = lowered(FS, keys);
    assert!(has_discard(&killing.body));
    assert_eq!(count(&killing, is_demote), 0);
    let demoting = lowered(FS, &format!("{keys},demote_discards"));
    assert!(!has_discard(&demoting.body), "{}", print(&demoting));
    assert_eq!(count(&demoting, is_demote), 3, "{}", print(&demoting));
    // The colour store still happens after the tests (the helper's
    // outputs are dropped by the device, not by the shader).
    assert!(matches!(
        demoting
            .body
            .iter()
            .rev()
            .find(|n| matches!(n, Node::Instr(_))),
        Some(Node::Instr(Instr {
            op: Op::Intrinsic(Intrinsic::Store { .. }),
            ..
        }))
    ));
    let own = FS.replace("  store @frag, %2\n", "  store @frag, %2\n  demote\n");
    let s = lowered(&own, "window_rects=include:1");
    assert!(!has_discard(&s.body), "{}", print(&s));
    assert_eq!(count(&s, is_demote), 2, "{}", print(&s));
    assert!(
        VariantKey::parse("demote_discards")
            .unwrap()
            .demote_discards
    );
    assert!(VariantKey::parse("demote_discards=1").is_err());
    // Worth it where the shader samples with an implicit level of detail
    // and uses no atomics (nor asks whether it is a helper).
    let tex = common::DEMOTE_FS_TEMPLATE;
    let worth = |op: &str, extra: &str| {
        let src = tex.replace("OP", op).replace("EXTRA", extra);
        gl::demote_worthwhile(&parse(&src).unwrap_or_else(|e| panic!("{e}\n{src}")))
    };
    assert!(worth("tex @t, coord=%0", ""));
    assert!(!worth("txl @t, coord=%0, lod=%5", ""));
    let atomic = "  %9 : u32 = const 0\n  %8 : u32 = ssbo_atomic @b, %9, %9, op=add\n";
    assert!(!worth("tex @t, coord=%0", atomic));
    assert!(!gl::demote_worthwhile(&parse(FS).unwrap()));
}

/// A variable workgroup size: refused by the emitter until specialized;
/// the `workgroup_size` built-in becomes the chosen constant; a fixed-size
/// shader reading the built-in emits as is. All pass spirv-val.
#[test]
fn variable_workgroup_size() {
    let src = "shader compute local_size=variable
in @lid : u32x3 builtin=local_invocation_id
in @wgs : u32x3 builtin=workgroup_size
ssbo @out slot=0
fn main {
  %0 : u32x3 = load @wgs
  %1 : u32 = swizzle %0, x
  %2 : u32 = const 0
  store_ssbo @out, %2, %1
}
";
    let s = parse(src).unwrap();
    validate(&s).unwrap();
    assert!(print(&s).contains("local_size=variable"));
    assert_eq!(print(&parse(&print(&s)).unwrap()), print(&s));
    let err = spirv_gen::emit::emit(&s, spirv_gen::emit::Target::Vulkan1_3).unwrap_err();
    assert!(err.to_string().contains("variable workgroup size"), "{err}");
    let key = VariantKey::parse("workgroup_size=8x4x2").unwrap();
    assert_eq!(key.workgroup_size, Some([8, 4, 2]));
    let mut v = s.clone();
    passes::lower(&mut v, &key).unwrap();
    validate(&v).unwrap();
    assert_eq!(v.info.local_size, Some([8, 4, 2]));
    assert!(!v.info.local_size_variable);
    common::emit_and_validate("variable workgroup size 8x4x2", &v);
    let fixed = parse(&src.replace("local_size=variable", "local_size=16,1,1")).unwrap();
    common::emit_and_validate("fixed size reading workgroup_size", &fixed);
    assert!(passes::specialize_workgroup_size(&mut s.clone(), [0, 1, 1]).is_err());
}

/// Global memory through buffer device addresses: `load_global` and
/// `store_global` of 32-bit scalars and vectors at `u64` addresses (built
/// from two words of a UBO) emit under the PhysicalStorageBuffer64
/// addressing model and pass spirv-val for every target; other access
/// types are refused.
#[test]
fn global_memory() {
    let src = "shader compute local_size=1,1,1
ubo @addrs slot=0 size=16
fn main {
  %0 : u32 = const 0
  %1 : u32x2 = load_ubo @addrs, %0
  %2 : u64 = bitcast %1
  %3 : u32 = const 8
  %4 : u32x2 = load_ubo @addrs, %3
  %5 : u64 = bitcast %4
  %6 : u32x4 = load_global %2
  %7 : u32x4 = const 1, 2, 3, 4
  %8 : u32x4 = iadd %6, %7
  store_global %5, %8
  %9 : f32 = load_global %2
  store_global %5, %9
}
";
    let s = parse(src).unwrap();
    validate(&s).unwrap();
    assert_eq!(print(&parse(&print(&s)).unwrap()), print(&s));
    for t in [
        spirv_gen::emit::Target::Vulkan1_1,
        spirv_gen::emit::Target::Vulkan1_2,
        spirv_gen::emit::Target::Vulkan1_3,
    ] {
        let words = spirv_gen::emit::emit(&s, t).unwrap();
        common::spirv_val(&words, t).unwrap_or_else(|e| panic!("{t:?}: {e}"));
        let text = common::disassemble(&words);
        assert!(text.contains("PhysicalStorageBuffer64"), "{text}");
    }
    let bad = src.replace("%9 : f32 = load_global %2", "%9 : u64 = load_global %2");
    assert!(validate(&parse(&bad).unwrap()).is_err());
    let bad = src.replace("%6 : u32x4 = load_global %2", "%6 : u32x4 = load_global %0");
    assert!(parse(&bad)
        .map(|s| validate(&s))
        .map_or(true, |r| r.is_err()));
}

/// Inputs the previous stage does not write become zeroed locals; the
/// others stay inputs.
#[test]
fn unwritten_inputs_read_zero() {
    let s = lowered(FS, "zero_inputs=0x2");
    let tc = s.var(s.find_var("tc").unwrap());
    assert!(matches!(tc.kind, VarKind::Local), "{}", print(&s));
    assert!(s.var(s.find_var("col").unwrap()).is_input());
    assert!(
        print(&s).contains("const 0.0, 0.0, 0.0, 0.0"),
        "{}",
        print(&s)
    );
    // A mask that misses the input's location changes nothing.
    let s = lowered(FS, "zero_inputs=0x4");
    assert!(s.var(s.find_var("tc").unwrap()).is_input());
}

/// `aliased_triangles_gs`: the triangle grows so that every pixel whose
/// centre is inside has its whole square inside; the new position stays
/// on the triangle's plane (window position and depth are the old
/// triangle's, extrapolated); flat outputs are copied from the same
/// vertex; `aliased_edges` holds the original edges' window distances
/// (shifted by at most 1/512). A triangle with a vertex behind the eye is
/// emitted unchanged. The fragment side discards a negative distance.
#[test]
fn aliased_triangles() {
    use spirv_gen::passes::aliased::{aliased_triangles_gs, ALIASED_EDGES_NAME};
    let vs = parse(&corpus_src("vs_line_stipple.ir")).unwrap();
    let gs = aliased_triangles_gs(&vs, false, 0, None, false).unwrap();
    validate(&gs).unwrap_or_else(|e| panic!("{e}\n{}", print(&gs)));
    common::emit_and_validate("aliased_triangles_gs", &gs);
    let scale = [8.0f32, -8.0];
    let run = |p: &[[f32; 4]; 3]| run_aliased_gs(&gs, p, scale, &[], false);
    let f = emitted_f32;
    // Window positions 2x apart in w: (x, y) * w in clip space.
    let win = [[-4.0f32, -3.0], [5.0, -2.0], [0.5, 6.0]];
    let w = [1.0f32, 2.0, 0.5];
    let z = [0.2f32, 0.6, 0.4];
    let p: [[f32; 4]; 3] = std::array::from_fn(|i| {
        [
            win[i][0] / scale[0] * w[i],
            win[i][1] / scale[1] * w[i],
            z[i] * w[i],
            w[i],
        ]
    });
    let out = run(&p);
    // The plane of z/w over the window: z/w = a x + b y + c through the
    // three vertices.
    let solve = |v: [f32; 3]| {
        let (x, y) = (win.map(|q| q[0]), win.map(|q| q[1]));
        let det = (x[1] - x[0]) * (y[2] - y[0]) - (x[2] - x[0]) * (y[1] - y[0]);
        let a = ((v[1] - v[0]) * (y[2] - y[0]) - (v[2] - v[0]) * (y[1] - y[0])) / det;
        let b = ((x[1] - x[0]) * (v[2] - v[0]) - (x[2] - x[0]) * (v[1] - v[0])) / det;
        let c = v[0] - a * x[0] - b * y[0];
        move |px: f32, py: f32| a * px + b * py + c
    };
    let depth = solve(z);
    let edge = |i: usize, px: f32, py: f32| {
        let (a, b, c) = (win[i], win[(i + 1) % 3], win[(i + 2) % 3]);
        let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
        let len = (dx * dx + dy * dy).sqrt();
        let side = (dx * (c[1] - a[1]) - dy * (c[0] - a[0])).signum();
        side * (dx * (py - a[1]) - dy * (px - a[0])) / len
    };
    let mut grown = Vec::new();
    for (k, e) in out.iter().enumerate() {
        let pos = f(e, "gl_pos");
        let (px, py) = (pos[0] / pos[3] * scale[0], pos[1] / pos[3] * scale[1]);
        grown.push([px, py]);
        assert!(
            (pos[2] / pos[3] - depth(px, py)).abs() < 1e-4,
            "vertex {k}: depth off the plane"
        );
        assert_eq!(e["id"], vec![100 + k as u32], "flat output of vertex {k}");
        // Each distance times the vertex's w (perspective-correct).
        let t = f(e, ALIASED_EDGES_NAME);
        for (i, ti) in t.iter().enumerate() {
            assert!(
                (ti / pos[3] - edge(i, px, py)).abs() <= 1.0 / 512.0 + 1e-4,
                "edge {i} at {k}"
            );
        }
        // The new vertex lies outside each adjacent edge by its pixel
        // half-extent.
        assert!(edge(k, px, py) < -0.49 && edge((k + 2) % 3, px, py) < -0.49);
    }
    // Every corner of a pixel square whose centre is inside the original
    // triangle is inside the grown one.
    let inside_grown = |x: f32, y: f32| {
        (0..3).all(|i| {
            let (a, b, c) = (grown[i], grown[(i + 1) % 3], grown[(i + 2) % 3]);
            let s = ((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])).signum();
            s * ((b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0])) >= -1e-4
        })
    };
    for yi in -8..8 {
        for xi in -8..8 {
            let (cx, cy) = (xi as f32 + 0.5, yi as f32 + 0.5);
            if (0..3).all(|i| edge(i, cx, cy) > 0.0) {
                for (ox, oy) in [(-0.5, -0.5), (0.5, -0.5), (-0.5, 0.5), (0.5, 0.5)] {
                    assert!(inside_grown(cx + ox, cy + oy), "pixel ({xi}, {yi})");
                }
            }
        }
    }
    // A vertex behind the eye: unchanged, and no fragment discarded.
    let mut behind = p;
    behind[2][3] = -1.0;
    for (k, e) in run(&behind).iter().enumerate() {
        assert_eq!(f(e, "gl_pos"), behind[k].to_vec(), "vertex {k} moved");
        assert!(f(e, ALIASED_EDGES_NAME).iter().all(|&t| t > 1000.0));
    }
    let fs = lowered(FS, "aliased_triangles");
    let keeps = |t: [f32; 3]| {
        let mut m = interp::Machine::new(&fs);
        m.set_f32(ALIASED_EDGES_NAME, 0, &t);
        m.run();
        !m.discarded
    };
    assert!(keeps([0.0, 0.5, 3.0]));
    assert!(!keeps([0.5, -0.001, 3.0]));
    assert!(!keeps([0.5, 1.0, -2.0]));
}

/// `aliased_triangles_gs` with `triangles_adjacency` input (a draw of
/// that topology with no geometry shader): it reads vertices 0, 2 and 4
/// and emits exactly what it emits for that triangle alone; the adjacent
/// vertices (far away, with other flat ids) change nothing.
#[test]
fn aliased_triangles_adjacency() {
    use spirv_gen::passes::aliased::aliased_triangles_gs;
    let vs = parse(&corpus_src("vs_line_stipple.ir")).unwrap();
    let plain = aliased_triangles_gs(&vs, false, 0b1, Some(true), false).unwrap();
    let adj = aliased_triangles_gs(&vs, false, 0b1, Some(true), true).unwrap();
    validate(&adj).unwrap_or_else(|e| panic!("{e}\n{}", print(&adj)));
    common::emit_and_validate("aliased_triangles_gs adjacency", &adj);
    assert_eq!(
        adj.info.gs_input,
        Some(spirv_gen::ir::GsInput::TrianglesAdjacency)
    );
    let scale = [8.0f32, -8.0];
    let plane = [0.3f32, -0.5, 0.1, 0.2];
    for p in [
        [
            [-0.5f32, -0.4, 0.2, 1.0],
            [1.2, 0.3, 0.9, 2.0],
            [0.1, -0.6, 0.1, 0.5],
        ],
        // A vertex behind the eye: left unchanged.
        [
            [-0.5, -0.4, 0.2, 1.0],
            [0.4, 0.3, 0.1, -1.0],
            [0.1, 0.6, 0.1, 1.0],
        ],
    ] {
        let want = run_aliased_gs(&plain, &p, scale, &plane, false);
        let got = run_aliased_gs(&adj, &p, scale, &plane, true);
        assert_eq!(got, want);
    }
}

/// `aliased_triangles_gs` extrapolates an array varying element by
/// element as it does single varyings: each element leaves as a varying
/// with the same values and qualifiers would (with and without adjacency
/// input).
#[test]
fn aliased_triangles_array_varying() {
    use spirv_gen::passes::aliased::{aliased_triangles_gs, can_expand};
    let vs = parse(
        "shader vertex
in @p : f32x4 location=0
out @gl_pos : f32x4 builtin=position
out @arr : f32x4[2] location=3
out @s0 : f32x4 location=5
out @s1 : f32x4 location=6
fn main {
  %0 : f32x4 = load @p
  store @gl_pos, %0
  %1 : i32 = const 0
  store @arr, %1, %0
  store @s0, %0
  store @s1, %0
}
",
    )
    .unwrap();
    validate(&vs).unwrap();
    assert!(can_expand(&vs));
    let p = [
        [-0.5f32, -0.4, 0.2, 1.0],
        [1.2, 0.3, 0.9, 2.0],
        [0.1, -0.6, 0.1, 0.5],
    ];
    for adjacency in [false, true] {
        let gs = aliased_triangles_gs(&vs, false, 0, None, adjacency).unwrap();
        validate(&gs).unwrap_or_else(|e| panic!("{e}\n{}", print(&gs)));
        common::emit_and_validate("aliased_triangles_gs array varying", &gs);
        let stride = if adjacency { 2 } else { 1 };
        let mut m = interp::Machine::new(&gs);
        for (k, pk) in p.iter().enumerate() {
            let k = stride * k as u32;
            let a = [k as f32 + 1.0, 2.0 * k as f32, 0.5, -3.0];
            let b = [7.0 - k as f32, 1.0, k as f32 * k as f32, 4.0];
            m.set_f32("in_gl_pos", k, pk);
            m.set_f32("in_arr", 2 * k, &a);
            m.set_f32("in_arr", 2 * k + 1, &b);
            m.set_f32("in_s0", k, &a);
            m.set_f32("in_s1", k, &b);
        }
        let o = (pc::VIEWPORT_SCALE / 4) as usize;
        m.push[o] = 8f32.to_bits();
        m.push[o + 1] = (-8f32).to_bits();
        m.run();
        let out: Vec<_> = m.emitted.iter().flatten().collect();
        assert_eq!(out.len(), 3);
        for e in out {
            assert_eq!(e["arr"], e["s0"], "adjacency {adjacency}");
            assert_eq!(e["arr[1]"], e["s1"], "adjacency {adjacency}");
        }
    }
}

/// `aliased_triangles_gs` after a vertex shader that writes clip and cull
/// distances: an enabled clip distance is treated as a user clip plane
/// (the same `aliased_clip` component and hardware `ClipDistance` as a
/// plane giving the same distances), with adjacency input too; cull
/// distances are copied from each vertex.
#[test]
fn aliased_triangles_app_distances() {
    use spirv_gen::ir::BuiltIn;
    use spirv_gen::passes::aliased::{aliased_triangles_gs, can_expand, ALIASED_CLIP_NAME};
    let cd = parse(&corpus_src("vs_cull_layer_outputs.ir")).unwrap();
    assert!(can_expand(&cd));
    let plain = parse(&corpus_src("vs_line_stipple.ir")).unwrap();
    let scale = [8.0f32, -8.0];
    let plane = [0.3f32, -0.5, 0.1, 0.2];
    let p = [
        [-0.5f32, -0.4, 0.2, 1.0],
        [1.2, 0.3, 0.9, 2.0],
        [0.1, -0.6, 0.1, 0.5],
    ];
    let dot = |q: &[f32; 4]| (0..4).map(|i| q[i] * plane[i]).sum::<f32>();
    let want = {
        let gs = aliased_triangles_gs(&plain, false, 0b1, Some(true), false).unwrap();
        run_aliased_gs(&gs, &p, scale, &plane, false)
    };
    for adjacency in [false, true] {
        let gs = aliased_triangles_gs(&cd, false, 0b1, Some(true), adjacency).unwrap();
        validate(&gs).unwrap_or_else(|e| panic!("{e}\n{}", print(&gs)));
        common::emit_and_validate("aliased_triangles_gs app distances", &gs);
        let hw = gs
            .var(gs.find_builtin(true, BuiltIn::ClipDistance).unwrap())
            .name
            .clone();
        let stride = if adjacency { 2 } else { 1 };
        let mut m = interp::Machine::new(&gs);
        for (k, pk) in p.iter().enumerate() {
            let v = stride * k as u32;
            m.set_f32("in_gl_pos", v, pk);
            m.set_f32("in_app_clip_distance", v, &[dot(pk)]);
            m.set_f32("in_cull", 2 * v, &[10.0 + k as f32]);
            m.set_f32("in_cull", 2 * v + 1, &[-1.0 - k as f32]);
        }
        let o = (pc::VIEWPORT_SCALE / 4) as usize;
        m.push[o] = scale[0].to_bits();
        m.push[o + 1] = scale[1].to_bits();
        m.run();
        let out: Vec<_> = m.emitted.iter().flatten().collect();
        assert_eq!(out.len(), 3);
        for (k, e) in out.iter().enumerate() {
            let close = |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-4);
            let (g, w) = (
                emitted_f32(e, ALIASED_CLIP_NAME),
                emitted_f32(&want[k], ALIASED_CLIP_NAME),
            );
            assert!(close(&g, &w), "vertex {k}: {g:?} vs {w:?}");
            assert_eq!(
                emitted_f32(e, &hw),
                emitted_f32(&want[k], &hw),
                "vertex {k}"
            );
            assert_eq!(emitted_f32(e, "cull"), [10.0 + k as f32], "vertex {k}");
            assert_eq!(emitted_f32(e, "cull[1]"), [-1.0 - k as f32], "vertex {k}");
        }
    }
}

/// `aliased_triangles_gs` with user clip planes (0 and 5): the hardware
/// does not clip the widened triangle (ClipDistance 1), and
/// `aliased_clip` carries each enabled plane's distance over `w`,
/// screen-linear: at the grown vertices it takes the values of the window
/// function through the original vertices' `d / w` (whose sign at a
/// pixel centre is that of the distance there). Disabled components are
/// large. A triangle left unchanged keeps its real distances for the
/// hardware. The fragment side discards a negative enabled component.
#[test]
fn aliased_triangles_clip_planes() {
    use spirv_gen::ir::BuiltIn;
    use spirv_gen::passes::aliased::{aliased_triangles_gs, ALIASED_CLIP_NAME};
    let vs = parse(&corpus_src("vs_line_stipple.ir")).unwrap();
    let gs = aliased_triangles_gs(&vs, false, 0b10_0001, None, false).unwrap();
    validate(&gs).unwrap_or_else(|e| panic!("{e}\n{}", print(&gs)));
    common::emit_and_validate("aliased_triangles_gs clip", &gs);
    let mut last = gs.clone();
    passes::lower(
        &mut last,
        &VariantKey::parse("last_vertex_stage,clip=0x21").unwrap(),
    )
    .unwrap();
    validate(&last).unwrap_or_else(|e| panic!("{e}\n{}", print(&last)));
    common::emit_and_validate("aliased_triangles_gs clip, lowered", &last);
    let hw_name = gs
        .var(gs.find_builtin(true, BuiltIn::ClipDistance).unwrap())
        .name
        .clone();
    let scale = [8.0f32, -8.0];
    let plane = [0.3f32, -0.5, 0.1, 0.2];
    let run = |p: &[[f32; 4]; 3]| run_aliased_gs(&gs, p, scale, &plane, false);
    let f = emitted_f32;
    let win = [[-4.0f32, -3.0], [5.0, -2.0], [0.5, 6.0]];
    let w = [1.0f32, 2.0, 0.5];
    let p: [[f32; 4]; 3] = std::array::from_fn(|i| {
        [
            win[i][0] / scale[0] * w[i],
            win[i][1] / scale[1] * w[i],
            0.4 * w[i],
            w[i],
        ]
    });
    let dot = |q: &[f32; 4]| (0..4).map(|c| q[c] * plane[c]).sum::<f32>();
    let dw: [f32; 3] = std::array::from_fn(|j| dot(&p[j]) / w[j]);
    // The window-linear function through (win_j, dw_j).
    let (x, y) = (win.map(|q| q[0]), win.map(|q| q[1]));
    let det = (x[1] - x[0]) * (y[2] - y[0]) - (x[2] - x[0]) * (y[1] - y[0]);
    let a = ((dw[1] - dw[0]) * (y[2] - y[0]) - (dw[2] - dw[0]) * (y[1] - y[0])) / det;
    let b = ((x[1] - x[0]) * (dw[2] - dw[0]) - (x[2] - x[0]) * (dw[1] - dw[0])) / det;
    let c0 = dw[0] - a * x[0] - b * y[0];
    for (k, e) in run(&p).iter().enumerate() {
        let pos = f(e, "gl_pos");
        let (px, py) = (pos[0] / pos[3] * scale[0], pos[1] / pos[3] * scale[1]);
        // Over w, window-linear, times the vertex's w.
        let want = (a * px + b * py + c0) * pos[3];
        let clip = f(e, ALIASED_CLIP_NAME);
        assert!(
            (clip[0] - want).abs() < 1e-4 * want.abs().max(1.0),
            "vertex {k}: aliased_clip {} for {want}",
            clip[0]
        );
        assert!(
            clip[1..].iter().all(|&v| v > 1000.0),
            "vertex {k}: {clip:?}"
        );
        assert_eq!(
            f(e, &hw_name),
            vec![1.0],
            "vertex {k}: hardware clip distance"
        );
    }
    // A vertex behind the eye: unchanged, clipped by the hardware.
    let mut behind = p;
    behind[2][3] = -1.0;
    for (k, e) in run(&behind).iter().enumerate() {
        assert!(f(e, ALIASED_CLIP_NAME).iter().all(|&v| v > 1000.0));
        assert_eq!(f(e, &hw_name), vec![dot(&behind[k])], "vertex {k}");
    }
    let fs = lowered(FS, "aliased_triangles,aliased_clip_planes=0x21");
    let keeps = |c0: [f32; 4], c1: [f32; 4]| {
        let mut m = interp::Machine::new(&fs);
        m.set_f32("aliased_edges", 0, &[1.0, 1.0, 1.0]);
        m.set_f32(ALIASED_CLIP_NAME, 0, &c0);
        m.set_f32(ALIASED_CLIP_NAME, 1, &c1);
        m.run();
        !m.discarded
    };
    assert!(keeps([0.1, -5.0, -5.0, -5.0], [-5.0, 0.2, -5.0, -5.0]));
    assert!(!keeps([-0.1, 5.0, 5.0, 5.0], [5.0, 0.2, 5.0, 5.0]));
    assert!(!keeps([0.1, 5.0, 5.0, 5.0], [5.0, -0.2, 5.0, 5.0]));
}

/// An application geometry shader emitting a strip of five vertices
/// (three triangles), then one more triangle after `end_primitive`,
/// widened by `lower_aliased_gs`: each triangle of the strip comes out as
/// three vertices and an `end_primitive`, in the strip's orientation (an
/// odd triangle reordered), with its provoking vertex's flat output in
/// the provoking place (first or last), each vertex outside the
/// triangle's edges by the pixel half-extent, and the edge distances (times
/// w) of [`aliased_triangles`]. The result validates and passes spirv-val.
#[test]
fn aliased_triangles_app_gs() {
    use spirv_gen::passes::aliased::{can_expand_gs, lower_aliased_gs, ALIASED_EDGES_NAME};
    // Window positions of the strip's vertices (the push scale is 8).
    let strip = [
        [-4.0f32, -3.0],
        [-3.0, 4.0],
        [2.0, -3.5],
        [3.0, 5.0],
        [6.0, -2.0],
    ];
    let extra = [[-6.0f32, -6.0], [-2.0, -6.0], [-4.0, -1.0]];
    let mut src = String::from(
        "shader geometry input=points output=triangle_strip max_vertices=8 invocations=1
in @pos : f32x4[1] builtin=position
out @gl_pos : f32x4 builtin=position
out @id : u32 location=0 flat
out @c : f32x2 location=1
fn main {
",
    );
    let mut n = 0;
    let mut vertex = |src: &mut String, k: u32, q: [f32; 2]| {
        let (x, y) = (q[0] / 8.0, q[1] / -8.0);
        src.push_str(&format!(
            "  %{a} : f32x4 = const {x:?}, {y:?}, 0.5, 1.0\n  store @gl_pos, %{a}\n  \
             %{b} : u32 = const {k}\n  store @id, %{b}\n  %{c} : f32x2 = const {x:?}, {y:?}\n  \
             store @c, %{c}\n  emit_vertex\n",
            a = n,
            b = n + 1,
            c = n + 2
        ));
        n += 3;
    };
    for (k, q) in strip.iter().enumerate() {
        vertex(&mut src, k as u32, *q);
    }
    src.push_str("  end_primitive\n");
    for (k, q) in extra.iter().enumerate() {
        vertex(&mut src, 10 + k as u32, *q);
    }
    src.push_str("  end_primitive\n}\n");
    let app = parse(&src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    assert!(can_expand_gs(&app));
    let cross = |a: [f32; 2], b: [f32; 2], c: [f32; 2]| {
        (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    };
    for first in [false, true] {
        let mut gs = app.clone();
        lower_aliased_gs(&mut gs, false, 0, None, first).unwrap();
        validate(&gs).unwrap_or_else(|e| panic!("{e}\n{}", print(&gs)));
        common::emit_and_validate("lower_aliased_gs", &gs);
        assert_eq!(gs.info.gs_max_vertices, Some(18));
        let mut m = interp::Machine::new(&gs);
        let o = (pc::VIEWPORT_SCALE / 4) as usize;
        m.push[o] = 8.0f32.to_bits();
        m.push[o + 1] = (-8.0f32).to_bits();
        m.run();
        // Four triangles of three vertices, each ended.
        let prims = primitives(&m.emitted);
        assert_eq!(prims.len(), 4, "{:?}", m.emitted.len());
        // The triangles GL draws: the strip's (t, t + 1, t + 2), odd ones
        // as (t + 1, t, t + 2), and the extra one.
        let mut want: Vec<([[f32; 2]; 3], u32)> = Vec::new();
        for t in 0..3 {
            let tri = if t % 2 == 0 {
                [strip[t], strip[t + 1], strip[t + 2]]
            } else {
                [strip[t + 1], strip[t], strip[t + 2]]
            };
            // GL's provoking vertex of strip triangle t: t (first) or
            // t + 2 (last).
            want.push((tri, if first { t as u32 } else { t as u32 + 2 }));
        }
        want.push((extra, if first { 10 } else { 12 }));
        for (p, (tri, provoking)) in prims.iter().zip(&want) {
            assert_eq!(p.len(), 3);
            let win: Vec<[f32; 2]> = p
                .iter()
                .map(|v| {
                    let pos = emitted_f32(v, "gl_pos");
                    [pos[0] / pos[3] * 8.0, pos[1] / pos[3] * -8.0]
                })
                .collect();
            // Same orientation as GL's triangle.
            let (a, b) = (cross(win[0], win[1], win[2]), cross(tri[0], tri[1], tri[2]));
            assert!(a * b > 0.0, "orientation: {win:?} for {tri:?}");
            // The provoking place holds the provoking vertex's id.
            let place = if first { 0 } else { 2 };
            assert_eq!(p[place]["id"], vec![*provoking], "first {first}");
            // Each emitted vertex is its original's, moved outward: it
            // lies outside both adjacent edges, and the edge distances
            // over w match the original edges' distances there.
            let edge = |i: usize, q: [f32; 2]| {
                let (a, b, c) = (tri[i], tri[(i + 1) % 3], tri[(i + 2) % 3]);
                let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
                let side = (dx * (c[1] - a[1]) - dy * (c[0] - a[0])).signum();
                side * (dx * (q[1] - a[1]) - dy * (q[0] - a[0])) / dx.hypot(dy)
            };
            for (k, v) in p.iter().enumerate() {
                let pos = emitted_f32(v, "gl_pos");
                let t = emitted_f32(v, ALIASED_EDGES_NAME);
                let outside = (0..3).filter(|&i| edge(i, win[k]) < -0.49).count();
                assert_eq!(outside, 2, "vertex {k} of {tri:?}: {:?}", win[k]);
                for ti in &t {
                    let got = ti / pos[3];
                    // The emitted order may rotate the edges; compare the
                    // set of distances.
                    let any = (0..3).any(|e| (got - edge(e, win[k])).abs() <= 1.0 / 512.0 + 1e-4);
                    assert!(any, "edge distance {got} at {:?}", win[k]);
                }
            }
        }
    }
    // Outputs and locals named like the renamed outputs (`c_written`):
    // fresh names, no clash.
    let clash = "shader geometry input=triangles output=triangle_strip max_vertices=3 invocations=1
in @pos : f32x4[3] builtin=position
out @gl_pos : f32x4 builtin=position
out @c_written : f32x4 location=1
out @c : f32x4 location=0
fn main {
  %0 : i32 = const 0
  %1 : f32x4 = load @pos, %0
  store @gl_pos, %1
  store @c, %1
  store @c_written, %1
  emit_vertex
  emit_vertex
  emit_vertex
}
";
    let mut gs = parse(clash).unwrap();
    lower_aliased_gs(&mut gs, false, 0, None, false).unwrap();
    common::emit_and_validate("lower_aliased_gs, name clash", &gs);
    // The shader's own clip distances feed the user planes (a new
    // ClipDistance output is the driver's).
    let cd = src.replace(
        "out @c : f32x2 location=1\n",
        "out @c : f32x2 location=1\nout @cd : f32[1] builtin=clip_distance\n",
    );
    let mut gs = parse(&cd).unwrap();
    lower_aliased_gs(&mut gs, false, 0x1, Some(false), true).unwrap();
    validate(&gs).unwrap_or_else(|e| panic!("{e}\n{}", print(&gs)));
    common::emit_and_validate("lower_aliased_gs, clip distances", &gs);
    // Not for points, or a stream other than 0.
    let points = src.replace("output=triangle_strip", "output=points");
    assert!(!can_expand_gs(&parse(&points).unwrap()));
}

/// Polygon-mode line stipple in an application geometry shader emitting
/// a strip of four vertices: two triangles come out, each with
/// `stipple_poly` (the vertices' places along the triangle's outline,
/// and the barycentric markers) as the generated shader gives them; the
/// second triangle in GL's order (1, 0, 2 of its strip vertices).
#[test]
fn polygon_line_stipple_app_gs() {
    use spirv_gen::passes::line_stipple::{lower_polygon_line_stipple_gs, STIPPLE_POLY_NAME};
    let src = "shader geometry input=points output=triangle_strip max_vertices=4 invocations=1
in @pos : f32x4[1] builtin=position
out @gl_pos : f32x4 builtin=position
out @id : u32 location=0 flat
fn main {
  %0 : f32x4 = const -0.5, -0.5, 0.0, 1.0
  store @gl_pos, %0
  %1 : u32 = const 0
  store @id, %1
  emit_vertex
  %2 : f32x4 = const -0.5, 0.5, 0.0, 1.0
  store @gl_pos, %2
  %3 : u32 = const 1
  store @id, %3
  emit_vertex
  %4 : f32x4 = const 0.5, -0.5, 0.0, 1.0
  store @gl_pos, %4
  %5 : u32 = const 2
  store @id, %5
  emit_vertex
  %6 : f32x4 = const 0.5, 0.5, 0.0, 1.0
  store @gl_pos, %6
  %7 : u32 = const 3
  store @id, %7
  emit_vertex
  end_primitive
}
";
    let mut gs = parse(src).unwrap();
    lower_polygon_line_stipple_gs(&mut gs, false, false).unwrap();
    validate(&gs).unwrap_or_else(|e| panic!("{e}\n{}", print(&gs)));
    common::emit_and_validate("lower_polygon_line_stipple_gs", &gs);
    let mut m = interp::Machine::new(&gs);
    let o = (pc::VIEWPORT_SCALE / 4) as usize;
    m.push[o] = 8.0f32.to_bits();
    m.push[o + 1] = 8.0f32.to_bits();
    m.run();
    let prims = primitives(&m.emitted);
    assert_eq!(prims.len(), 2);
    let ids: Vec<Vec<u32>> = prims
        .iter()
        .map(|p| p.iter().map(|v| v["id"][0]).collect())
        .collect();
    assert_eq!(ids, vec![vec![0, 1, 2], vec![2, 1, 3]]);
    for p in &prims {
        let s: Vec<Vec<f32>> = p
            .iter()
            .map(|v| emitted_f32(v, STIPPLE_POLY_NAME))
            .collect();
        // (a, a, 1, 0), (a + b, a + b, 0, 1), (0, a + b + c, 0, 0).
        assert_eq!((s[0][2], s[0][3], s[1][2], s[1][3]), (1.0, 0.0, 0.0, 1.0));
        assert_eq!((s[2][0], s[2][2], s[2][3]), (0.0, 0.0, 0.0));
        assert!(
            s[0][0] > 0.0 && s[1][0] > s[0][0] && s[2][1] > s[1][1],
            "{s:?}"
        );
    }
}

/// Votes where the device has none: `vote_any` and `vote_all` give their
/// operand and `vote_eq` true (each invocation votes alone, which
/// ARB_shader_group_vote allows); the result validates and emits.
#[test]
fn vote_trivial() {
    let src = "shader compute local_size=4,1,1
in @gid : u32x3 builtin=global_invocation_id
ssbo @o slot=0
fn main {
  %0 : u32x3 = load @gid
  %1 : u32 = swizzle %0, x
  %2 : u32 = const 3
  %3 : bool = ieq %1, %2
  %4 : bool = vote_any %3
  %5 : bool = vote_all %3
  %6 : bool = vote_eq %0
  %7 : u32 = const 1
  %8 : u32 = const 0
  %9 : u32 = bcsel %4, %7, %8
  %10 : u32 = bcsel %5, %7, %8
  %11 : u32 = bcsel %6, %7, %8
  %12 : u32 = iadd %9, %10
  %13 : u32 = iadd %12, %11
  store_ssbo @o, %8, %13
}
";
    let mut s = parse(src).unwrap();
    validate(&s).unwrap();
    gl::lower_vote_trivial(&mut s);
    validate(&s).unwrap_or_else(|e| panic!("{e}\n{}", print(&s)));
    common::emit_and_validate("vote_trivial", &s);
    let votes = count(&s, |i| {
        matches!(i.op, Op::Intrinsic(Intrinsic::Vote { .. }))
    });
    assert_eq!(votes, 0, "{}", print(&s));
    let text = print(&s);
    assert!(text.contains("%4 : bool = mov %3"), "{text}");
    assert!(text.contains("%5 : bool = mov %3"), "{text}");
    assert!(text.contains("%6 : bool = const true"), "{text}");
}
