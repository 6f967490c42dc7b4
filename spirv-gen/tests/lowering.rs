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
    let k = VariantKey::parse("alpha=less:0.5,clip=0x3,flat,two_side,point_size=1.0,sample_shading,sprite=1,sprite_upper_left,inline=0:7,vfetch=2:swap_rb,polygon_stipple,lower_left_origin,pixel_center_integer,last_vertex_stage,clip_halfz").unwrap();
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
