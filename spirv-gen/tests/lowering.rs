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

#[test]
fn vertex_fetch_fixups() {
    let s = lowered(VS, "vfetch=1:swap_rb");
    assert!(print(&s).contains("swizzle %3, zyxw"), "{}", print(&s));
    let s = lowered(VS, "vfetch=1:uscaled");
    assert_eq!(s.var(s.find_var("v").unwrap()).ty, Type::uint(32, 4));
    assert_eq!(count(&s, |i| matches!(&i.op, Op::Alu(AluOp::U2f, _))), 1);
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
    let k = VariantKey::parse("alpha=less:0.5,clip=0x3,flat,two_side,point_size=1.0,sample_shading,sprite=1,sprite_upper_left,inline=0:7,vfetch=2:swap_rb").unwrap();
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
