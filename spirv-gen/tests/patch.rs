//! `spirv_gen::patch::vertex_fixups` on frontend SPIR-V: every fix-up on
//! spirv-gen's own output and on a glslang-style module (access chains,
//! inputs sharing a location, a helper function), for SPIR-V 1.0, 1.3
//! and 1.6, checked by spirv-val and by the patched module's shape; and
//! the inputs it refuses. What the converted values are is checked on a
//! device by pipe-cts (`pipe.draw.vertex_format.spirv.*`).

mod common;

use common::disassemble;
use rspirv::dr::{self, Operand};
use rspirv::spirv::{Decoration, Op, StorageClass};
use spirv_gen::emit::Target;
use spirv_gen::passes::{FetchFixup, VertexFixup};
use spirv_gen::patch::vertex_fixups;
use spirv_tools::assembler::{self, Assembler};
use spirv_tools::val::{self, Validator};
use spirv_tools::TargetEnv;

const GLSLANG: &str = include_str!("../../tests/src/cases/vertex_format_spirv.spvasm");

/// A fragment shader writing green.
const FS_GREEN: &str = "shader fragment
out @frag : f32x4 location=0
fn main {
  %0 : f32x4 = const 0.0, 1.0, 0.0, 1.0
  store @frag, %0
}
";

fn assemble(text: &str, env: TargetEnv) -> Vec<u32> {
    let a = assembler::create(Some(env));
    a.assemble(text, assembler::AssemblerOptions::default())
        .unwrap_or_else(|e| panic!("spirv-as: {e}\n{text}"))
        .as_words()
        .to_vec()
}

fn validate(words: &[u32], env: TargetEnv, what: &str) {
    if let Err(e) = val::create(Some(env)).validate(words, None) {
        panic!("{what}: spirv-val: {e}\n{}", disassemble(words));
    }
}

/// Every fix-up, with the attribute's components as the input's and as
/// two, for an `f32x4` input at location 1 (`f64x4`/`u64x3` for split64).
fn all_fixups() -> Vec<(FetchFixup, &'static str)> {
    use VertexFixup as V;
    let mut out = Vec::new();
    for fix in [
        V::SwapRb,
        V::Uscaled,
        V::Sscaled,
        V::A2b10g10r10Unorm,
        V::A2b10g10r10Snorm,
        V::A2b10g10r10Uscaled,
        V::A2b10g10r10Sscaled,
        V::A2r10g10b10Unorm,
        V::A2r10g10b10Snorm,
        V::A2r10g10b10Uscaled,
        V::A2r10g10b10Sscaled,
        V::Unorm32,
        V::Snorm32,
        V::Fixed32,
    ] {
        for comps in [0, 2] {
            out.push((
                FetchFixup {
                    comps,
                    ..FetchFixup::new(1, fix)
                },
                "f32x4",
            ));
        }
    }
    for (comps, upper) in [(2, None), (4, Some(2))] {
        out.push((
            FetchFixup {
                location: 1,
                fixup: V::Double,
                comps,
                upper,
            },
            "f32x4",
        ));
    }
    for (ty, comps, upper) in [
        ("f64x4", 0, None),
        ("f64x2", 2, None),
        ("u64x3", 3, Some(2)),
        ("i64", 1, None),
    ] {
        out.push((
            FetchFixup {
                location: 1,
                fixup: V::Split64,
                comps,
                upper,
            },
            ty,
        ));
    }
    out
}

fn ir_vs(input: &str) -> String {
    let conv = match input {
        "f32x4" => "  %2 : f32x4 = mov %1\n",
        "f64x4" => "  %2 : f32x4 = f2f %1\n",
        "f64x2" => "  %3 : f32x2 = f2f %1\n  %2 : f32x4 = vec %3, %3\n",
        "u64x3" => "  %3 : f32x3 = u2f %1\n  %4 : f32 = const 1.0\n  %2 : f32x4 = vec %3, %4\n",
        _ => "  %3 : f32 = i2f %1\n  %2 : f32x4 = vec %3, %3, %3, %3\n",
    };
    format!(
        "shader vertex
in @pos : f32x4 location=0
in @a : {input} location=1
out @gl_pos : f32x4 builtin=position
out @c : f32x4 location=0
fn main {{
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  %1 : {input} = load @a
{conv}  store @c, %2
}}
"
    )
}

/// The module's `Input` variables by location, and the module.
fn inputs_by_location(words: &[u32]) -> (Vec<(u32, dr::Instruction)>, dr::Module) {
    let m = dr::load_words(words).unwrap();
    let mut out = Vec::new();
    for a in &m.annotations {
        if let [Operand::IdRef(t), Operand::Decoration(Decoration::Location), Operand::LiteralBit32(l)] =
            a.operands.as_slice()
        {
            if let Some(v) = m.types_global_values.iter().find(|i| {
                i.result_id == Some(*t)
                    && i.class.opcode == Op::Variable
                    && i.operands.first() == Some(&Operand::StorageClass(StorageClass::Input))
            }) {
                out.push((*l, v.clone()));
            }
        }
    }
    out.sort_by_key(|(l, _)| *l);
    (out, m)
}

#[test]
fn every_fixup_on_emitted_spirv_validates() {
    for target in [Target::Vulkan1_1, Target::Vulkan1_3] {
        for (f, ty) in all_fixups() {
            let src = ir_vs(ty);
            let s = spirv_gen::text::parse(&src).unwrap_or_else(|e| panic!("{e}\n{src}"));
            let words = spirv_gen::emit::emit(&s, target).unwrap();
            let what = format!("{f:?} on {ty} ({})", target.name());
            let out = vertex_fixups(&words, "main", &[f]).unwrap_or_else(|e| panic!("{what}: {e}"));
            validate(&out, common::env(target), &what);
            // One input at location 1 (and one at `upper`), none private
            // left with a location.
            let (inputs, m) = inputs_by_location(&out);
            let locs: Vec<u32> = inputs.iter().map(|(l, _)| *l).collect();
            let want_upper = matches!(
                (f.fixup, f.comps, ty),
                (VertexFixup::Double, 4, _)
                    | (VertexFixup::Split64, 0, "f64x4")
                    | (VertexFixup::Split64, 3, _)
            );
            let mut want = vec![0, 1];
            if want_upper {
                want.push(f.upper.unwrap_or(2));
            }
            assert_eq!(locs, want, "{what}\n{}", disassemble(&out));
            let privates = m
                .types_global_values
                .iter()
                .filter(|i| {
                    i.class.opcode == Op::Variable
                        && i.operands.first() == Some(&Operand::StorageClass(StorageClass::Private))
                })
                .count();
            assert_eq!(privates, 1, "{what}");
        }
    }
}

#[test]
fn glslang_style_module_validates() {
    use VertexFixup as V;
    for env in [
        TargetEnv::Vulkan_1_0,
        TargetEnv::Vulkan_1_1,
        TargetEnv::Vulkan_1_3,
    ] {
        let words = assemble(GLSLANG, env);
        validate(&words, env, "the module itself");
        for fix in [V::Fixed32, V::SwapRb, V::A2r10g10b10Snorm, V::Uscaled] {
            let what = format!("{fix:?} ({env:?})");
            let out = vertex_fixups(&words, "main", &[FetchFixup::new(1, fix)])
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            validate(&out, env, &what);
            let (inputs, m) = inputs_by_location(&out);
            assert_eq!(
                inputs.iter().map(|(l, _)| *l).collect::<Vec<_>>(),
                [0, 1],
                "{what}: both inputs at location 1 become one"
            );
            // SPIR-V 1.4 and later list the private variables in the
            // interface, earlier versions may not.
            let iface = m.entry_points[0].operands.len() - 3;
            let spirv14 = m.header.as_ref().unwrap().version() >= (1, 4);
            assert_eq!(iface, if spirv14 { 6 } else { 4 }, "{what}");
            // The entry code stores both private variables after the
            // function's variables, before the shader's own code (its
            // load of location 0).
            let private: Vec<u32> = m
                .types_global_values
                .iter()
                .filter(|i| {
                    i.class.opcode == Op::Variable
                        && i.operands.first() == Some(&Operand::StorageClass(StorageClass::Private))
                })
                .filter_map(|i| i.result_id)
                .collect();
            assert_eq!(private.len(), 2, "{what}");
            let pos = inputs[0].1.result_id.unwrap();
            let main = m.functions.last().unwrap();
            let insts = &main.blocks[0].instructions;
            assert_eq!(insts[0].class.opcode, Op::Variable, "{what}");
            let first_own = insts
                .iter()
                .position(|i| i.class.opcode == Op::Load && i.operands[0] == Operand::IdRef(pos))
                .unwrap();
            let stored: Vec<usize> = (0..insts.len())
                .filter(|&k| {
                    insts[k].class.opcode == Op::Store
                        && matches!(insts[k].operands[0], Operand::IdRef(v) if private.contains(&v))
                })
                .collect();
            assert_eq!(stored.len(), 2, "{what}");
            assert!(stored[1] < first_own, "{what}\n{}", disassemble(&out));
        }
        // No fix-up: the words unchanged.
        assert_eq!(vertex_fixups(&words, "main", &[]).unwrap(), words);
        // A fix-up at a location nothing reads: no change but the words'
        // round trip.
        let out = vertex_fixups(&words, "main", &[FetchFixup::new(5, V::Fixed32)]).unwrap();
        validate(&out, env, "unread location");
        assert_eq!(inputs_by_location(&out).0.len(), 3);
    }
}

/// Replaces `from` with `to` in the glslang-style module's text.
fn variant(from: &str, to: &str) -> String {
    assert!(GLSLANG.contains(from), "{from}");
    GLSLANG.replace(from, to)
}

#[test]
fn refuses_what_it_cannot_convert() {
    use VertexFixup as V;
    let env = TargetEnv::Vulkan_1_0;
    let fx = |l| [FetchFixup::new(l, V::Fixed32)];
    let err = |text: &str, f: &[FetchFixup], entry: &str| {
        let words = assemble(text, env);
        validate(&words, env, "the refused module itself");
        vertex_fixups(&words, entry, f).unwrap_err().msg
    };
    // No such entry point.
    assert!(err(GLSLANG, &fx(1), "other").contains("entry point \"other\""));
    // A matrix input covering location 2 (and one at location 1).
    let mat = variant(
        "%ptr_in_v2 = OpTypePointer Input %v2float",
        "%ptr_in_v2 = OpTypePointer Input %v2float\n%m2 = OpTypeMatrix %v2float 2\n\
         %ptr_in_m2 = OpTypePointer Input %m2\n%m = OpVariable %ptr_in_m2 Input",
    )
    .replace("%gl_pos %c\n", "%gl_pos %c %m\n")
    .replace(
        "OpDecorate %c Location 0",
        "OpDecorate %c Location 0\nOpDecorate %m Location 2",
    );
    let e = err(&mat, &fx(3), "main");
    assert!(e.contains("inside the input"), "{e}");
    let e = err(&mat, &fx(2), "main");
    assert!(e.contains("array, matrix or struct"), "{e}");
    // An integer input for a float fix-up.
    let int = GLSLANG
        .replace("OpDecorate %a Location 1", "OpDecorate %a Location 3")
        .replace("OpDecorate %b Location 1", "OpDecorate %b Location 3")
        .replace(
            "%pos = OpVariable %ptr_in_v4 Input",
            "%pos = OpVariable %ptr_in_v4 Input\n%ptr_in_i = OpTypePointer Input %int\n\
             %k = OpVariable %ptr_in_i Input",
        )
        .replace("%gl_pos %c\n", "%gl_pos %c %k\n")
        .replace(
            "OpDecorate %c Location 0",
            "OpDecorate %c Location 0\nOpDecorate %k Location 1",
        );
    let e = err(&int, &fx(1), "main");
    assert!(e.contains("must be 32-bit float"), "{e}");
    // The upper half of a double at a location another input holds.
    let e = err(
        GLSLANG,
        &[FetchFixup {
            location: 1,
            fixup: V::Double,
            comps: 4,
            upper: Some(0),
        }],
        "main",
    );
    assert!(e.contains("is taken"), "{e}");
    // Not SPIR-V.
    assert!(vertex_fixups(&[1, 2, 3], "main", &fx(1))
        .unwrap_err()
        .msg
        .contains("does not parse"));
}

/// The shipped binary of the glslang-style module is its text,
/// assembled.
#[test]
fn glslang_style_binary_matches_its_text() {
    let bin = include_bytes!("../../tests/src/cases/vertex_format_spirv.spv");
    let words: Vec<u32> = bin
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(words, assemble(GLSLANG, TargetEnv::Vulkan_1_0));
}

const PER_VERTEX_GLSLANG: &str = include_str!("../../tests/src/cases/per_vertex_spirv.spvasm");

fn words_of(bin: &[u8]) -> Vec<u32> {
    bin.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn per_vertex_binary_matches_its_text() {
    assert_eq!(
        words_of(include_bytes!("../../tests/src/cases/per_vertex_spirv.spv")),
        assemble(PER_VERTEX_GLSLANG, TargetEnv::Vulkan_1_0)
    );
}

/// The stores of the point size `size` in a patched module (stores whose
/// value is a constant with its bits).
fn size_stores(words: &[u32], size: f32) -> usize {
    let m = dr::load_words(words).unwrap();
    let consts: Vec<u32> = m
        .types_global_values
        .iter()
        .filter(|i| {
            i.class.opcode == Op::Constant && i.operands == [Operand::LiteralBit32(size.to_bits())]
        })
        .filter_map(|i| i.result_id)
        .collect();
    m.functions
        .iter()
        .flat_map(|f| &f.blocks)
        .flat_map(|b| &b.instructions)
        .filter(|i| {
            i.class.opcode == Op::Store
                && matches!(i.operands.get(1), Some(Operand::IdRef(v)) if consts.contains(v))
        })
        .count()
}

#[test]
fn point_size_on_every_last_stage() {
    use spirv_gen::patch::point_size;
    let vs = VS_POSITION;
    let vs_writes = "shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
out @ps : f32 builtin=point_size
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  %1 : f32 = const 1.0
  store @ps, %1
}
";
    let gs = GS_TWO_POINTS;
    let tes = "shader tess_eval mode=isolines spacing=equal winding=ccw point_mode
in @pos : f32x4[32] builtin=position
out @gl_pos : f32x4 builtin=position
fn main {
  %0 : i32 = const 0
  %1 : f32x4 = load @pos, %0
  store @gl_pos, %1
}
";
    // (source, fixed, stores of the size expected: 0 where the shader's
    // own size stays).
    for (what, src, fixed, want) in [
        ("vs", vs, false, 1),
        ("vs, fixed", vs, true, 1),
        ("vs writing its size", vs_writes, false, 0),
        ("vs writing its size, fixed", vs_writes, true, 1),
        ("gs: before each emit", gs, false, 2),
        ("tes", tes, true, 1),
    ] {
        let s = spirv_gen::text::parse(src).unwrap_or_else(|e| panic!("{what}: {e}"));
        for target in [Target::Vulkan1_1, Target::Vulkan1_3] {
            let words = spirv_gen::emit::emit(&s, target).unwrap();
            let out =
                point_size(&words, "main", 2.5, fixed).unwrap_or_else(|e| panic!("{what}: {e}"));
            validate(&out, common::env(target), what);
            assert_eq!(
                size_stores(&out, 2.5),
                want,
                "{what}\n{}",
                disassemble(&out)
            );
            if want == 0 {
                assert_eq!(out, words, "{what}: unchanged");
            }
        }
    }
    // glslang's gl_PerVertex block: the member is written through an
    // access chain, in the entry point named, not the other one.
    let words = assemble(PER_VERTEX_GLSLANG, TargetEnv::Vulkan_1_0);
    for (entry, fixed, want) in [
        ("main", false, 0),
        ("main", true, 1),
        ("unwritten", false, 1),
        ("unwritten", true, 1),
    ] {
        let what = format!("glslang {entry}, fixed {fixed}");
        let out = point_size(&words, entry, 2.5, fixed).unwrap_or_else(|e| panic!("{what}: {e}"));
        validate(&out, TargetEnv::Vulkan_1_0, &what);
        assert_eq!(size_stores(&out, 2.5), want, "{what}");
        // No new output variable: the block's member is used.
        let (_, m) = inputs_by_location(&out);
        let outputs = m
            .types_global_values
            .iter()
            .filter(|i| {
                i.class.opcode == Op::Variable
                    && i.operands.first() == Some(&Operand::StorageClass(StorageClass::Output))
            })
            .count();
        assert_eq!(outputs, 1, "{what}");
    }
    // gl_PerVertex redeclared without gl_PointSize: a PointSize
    // variable of its own beside the block, as the IR lowering adds.
    let no_member = "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint Vertex %main \"main\" %out
OpMemberDecorate %pv 0 BuiltIn Position
OpDecorate %pv Block
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%v4float = OpTypeVector %float 4
%pv = OpTypeStruct %v4float
%ptr = OpTypePointer Output %pv
%out = OpVariable %ptr Output
%main = OpFunction %void None %fn
%l = OpLabel
OpReturn
OpFunctionEnd
";
    let w = assemble(no_member, TargetEnv::Vulkan_1_0);
    validate(&w, TargetEnv::Vulkan_1_0, "block without PointSize");
    let out = point_size(&w, "main", 2.5, false).unwrap();
    validate(
        &out,
        TargetEnv::Vulkan_1_0,
        "block without PointSize, patched",
    );
    assert_eq!(size_stores(&out, 2.5), 1);
    // A fragment shader is not a vertex stage.
    let fs = spirv_gen::text::parse(FS_GREEN).unwrap();
    let w = spirv_gen::emit::emit(&fs, Target::Vulkan1_1).unwrap();
    assert!(point_size(&w, "main", 2.5, false)
        .unwrap_err()
        .msg
        .contains("entry point"));
}

#[test]
fn entry_points_by_name() {
    use spirv_gen::ir::Stage;
    use spirv_gen::patch::{check_entry_point, entry_point_as_main};
    let words = assemble(PER_VERTEX_GLSLANG, TargetEnv::Vulkan_1_0);
    check_entry_point(&words, Stage::Vertex, "unwritten").unwrap();
    let e = check_entry_point(&words, Stage::Fragment, "main")
        .unwrap_err()
        .msg;
    assert!(
        e.contains(
            "no Fragment entry point \"main\" (it has: Vertex \"main\", Vertex \"unwritten\", Vertex \"clip\")"
        ),
        "{e}"
    );
    // "unwritten" becomes main, the old main a spare name.
    let out = entry_point_as_main(&words, Stage::Vertex, "unwritten").unwrap();
    validate(&out, TargetEnv::Vulkan_1_0, "renamed");
    let m = dr::load_words(&out).unwrap();
    let names: Vec<(String, u32)> = m
        .entry_points
        .iter()
        .map(|ep| match ep.operands.as_slice() {
            [_, Operand::IdRef(f), Operand::LiteralString(n), ..] => (n.clone(), *f),
            _ => unreachable!(),
        })
        .collect();
    let orig = dr::load_words(&words).unwrap();
    let unwritten_fn = orig.functions[1].def.as_ref().unwrap().result_id.unwrap();
    assert_eq!(names.len(), 3);
    assert!(
        names.contains(&("main".to_string(), unwritten_fn)),
        "{names:?}"
    );
    assert!(names.iter().any(|(n, _)| n == "main_0"), "{names:?}");
    // "main" is left alone; a missing name is an error.
    assert_eq!(
        entry_point_as_main(&words, Stage::Vertex, "main").unwrap(),
        words
    );
    assert!(entry_point_as_main(&words, Stage::Vertex, "nope").is_err());
}

/// Stores of 1.0 into clip distances, counted by element index (the last
/// access chain index, a constant), in a patched module.
fn clip_one_stores(words: &[u32]) -> Vec<u32> {
    let m = dr::load_words(words).unwrap();
    let konst = |id: u32| {
        m.types_global_values
            .iter()
            .find(|i| i.result_id == Some(id) && i.class.opcode == Op::Constant)
            .and_then(|i| match i.operands.first() {
                Some(Operand::LiteralBit32(v)) => Some(*v),
                _ => None,
            })
    };
    let insts: Vec<&dr::Instruction> = m
        .functions
        .iter()
        .flat_map(|f| &f.blocks)
        .flat_map(|b| &b.instructions)
        .collect();
    let mut out = Vec::new();
    for st in insts.iter().filter(|i| i.class.opcode == Op::Store) {
        let (Some(Operand::IdRef(p)), Some(Operand::IdRef(v))) =
            (st.operands.first(), st.operands.get(1))
        else {
            continue;
        };
        if konst(*v) != Some(1.0f32.to_bits()) {
            continue;
        }
        if let Some(chain) = insts
            .iter()
            .find(|i| i.result_id == Some(*p) && i.class.opcode == Op::AccessChain)
        {
            if let Some(Operand::IdRef(last)) = chain.operands.last() {
                out.extend(konst(*last));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn clip_distance_enables() {
    use spirv_gen::patch::clip_disable;
    let vs = "shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
out @cd : f32[3] builtin=clip_distance
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  %1 : f32 = swizzle %0, x
  %2 : i32 = const 0
  store @cd, %2, %1
  %3 : i32 = const 1
  store @cd, %3, %1
  %4 : i32 = const 2
  store @cd, %4, %1
}
";
    let gs = "shader geometry input=points output=points max_vertices=2 invocations=1
in @pos : f32x4[1] builtin=position
out @gl_pos : f32x4 builtin=position
out @cd : f32[2] builtin=clip_distance
fn main {
  %0 : i32 = const 0
  %1 : f32x4 = load @pos, %0
  store @gl_pos, %1
  %2 : f32 = swizzle %1, x
  store @cd, %0, %2
  emit_vertex
  emit_vertex
  end_primitive
}
";
    let plain = VS_POSITION;
    // (what, source, enables, 1.0 stores by element).
    for (what, src, enabled, want) in [
        ("vs, all off", vs, 0u8, vec![0, 1, 2]),
        ("vs, 0 and 2 on", vs, 0b101, vec![1]),
        ("vs, all on", vs, 0b111, vec![]),
        ("vs, more on than written", vs, 0xff, vec![]),
        ("gs: at each emit", gs, 0b10, vec![0, 0]),
        ("no clip distance", plain, 0, vec![]),
    ] {
        let s = spirv_gen::text::parse(src).unwrap_or_else(|e| panic!("{what}: {e}"));
        for target in [Target::Vulkan1_1, Target::Vulkan1_3] {
            let words = spirv_gen::emit::emit(&s, target).unwrap();
            let out =
                clip_disable(&words, "main", enabled).unwrap_or_else(|e| panic!("{what}: {e}"));
            validate(&out, common::env(target), what);
            assert_eq!(clip_one_stores(&out), want, "{what}\n{}", disassemble(&out));
            if want.is_empty() {
                assert_eq!(out, words, "{what}: unchanged");
            }
        }
    }
    // glslang's block: only the entry point writing gl_ClipDistance
    // changes, through the block member.
    let words = assemble(PER_VERTEX_GLSLANG, TargetEnv::Vulkan_1_0);
    let out = clip_disable(&words, "clip", 0).unwrap();
    validate(&out, TargetEnv::Vulkan_1_0, "glslang clip");
    // (The 1.0 at element 1 is entry point main's gl_PointSize.)
    assert_eq!(clip_one_stores(&words), vec![1]);
    assert_eq!(clip_one_stores(&out), vec![0, 1]);
    assert_eq!(clip_disable(&words, "clip", 1).unwrap(), words);
    assert_eq!(clip_disable(&words, "main", 0).unwrap(), words);
}

/// A glslang-style fragment shader: a flat input at location 1 read
/// through an access chain, an input block whose members have locations
/// 2 and 5, and a mat2 input at location 6.
const FS_GLSLANG: &str = "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint Fragment %main \"main\" %v %blk %mat %frag %fc
OpExecutionMode %main OriginUpperLeft
OpDecorate %v Location 1
OpDecorate %v Flat
OpDecorate %Blk Block
OpMemberDecorate %Blk 0 Location 2
OpMemberDecorate %Blk 1 Location 5
OpDecorate %mat Location 6
OpDecorate %frag Location 0
OpDecorate %fc BuiltIn FragCoord
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%v4float = OpTypeVector %float 4
%v2float = OpTypeVector %float 2
%mat2 = OpTypeMatrix %v2float 2
%int = OpTypeInt 32 1
%int_0 = OpConstant %int 0
%int_1 = OpConstant %int 1
%Blk = OpTypeStruct %v4float %v4float
%ptr_in_v4 = OpTypePointer Input %v4float
%ptr_in_f = OpTypePointer Input %float
%ptr_in_blk = OpTypePointer Input %Blk
%ptr_in_mat = OpTypePointer Input %mat2
%ptr_out_v4 = OpTypePointer Output %v4float
%v = OpVariable %ptr_in_v4 Input
%blk = OpVariable %ptr_in_blk Input
%mat = OpVariable %ptr_in_mat Input
%fc = OpVariable %ptr_in_v4 Input
%frag = OpVariable %ptr_out_v4 Output
%main = OpFunction %void None %fn
%l = OpLabel
%px = OpAccessChain %ptr_in_f %v %int_0
%x = OpLoad %float %px
%pb = OpAccessChain %ptr_in_v4 %blk %int_1
%b = OpLoad %v4float %pb
%y = OpCompositeExtract %float %b 1
%m = OpLoad %mat2 %mat
%c0 = OpCompositeExtract %v2float %m 0
%z = OpCompositeExtract %float %c0 0
%o = OpCompositeConstruct %v4float %x %y %z %x
OpStore %frag %o
OpReturn
OpFunctionEnd
";

#[test]
fn interfaces_and_zeroed_inputs() {
    use spirv_gen::ir::Stage;
    use spirv_gen::patch::{interface_locations, zero_inputs};
    let vs = "shader vertex
in @pos : f32x4 location=0
in @n : f32x3 location=4
out @gl_pos : f32x4 builtin=position
out @c : f32x4 location=0
out @arr : f32x4[2] location=3
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  store @c, %0
  %1 : i32 = const 1
  store @arr, %1, %0
}
";
    let s = spirv_gen::text::parse(vs).unwrap();
    for target in [Target::Vulkan1_1, Target::Vulkan1_3] {
        let w = spirv_gen::emit::emit(&s, target).unwrap();
        assert_eq!(
            interface_locations(&w, Stage::Vertex, "main", true).unwrap(),
            0b11001,
            "outputs, builtins left out"
        );
        assert_eq!(
            interface_locations(&w, Stage::Vertex, "main", false).unwrap(),
            0b10001
        );
    }
    for env in [TargetEnv::Vulkan_1_0, TargetEnv::Vulkan_1_3] {
        let w = assemble(FS_GLSLANG, env);
        validate(&w, env, "the fragment shader itself");
        // 1, the block's 2 and 5, the matrix's 6 and 7.
        let reads = interface_locations(&w, Stage::Fragment, "main", false).unwrap();
        assert_eq!(reads, 1 << 1 | 1 << 2 | 1 << 5 | 1 << 6 | 1 << 7);
        assert_eq!(
            interface_locations(&w, Stage::Fragment, "main", true).unwrap(),
            1
        );
        // Location 1 and the matrix zeroed; the block only partly in the
        // mask: its member 0 (location 2) reads zero, member 1 (5) becomes
        // an input of its own.
        let out = zero_inputs(&w, "main", 1 << 1 | 1 << 2 | 1 << 6 | 1 << 7).unwrap();
        validate(&out, env, "zeroed");
        let m = dr::load_words(&out).unwrap();
        let private = m
            .types_global_values
            .iter()
            .filter(|i| {
                i.class.opcode == Op::Variable
                    && i.operands.first() == Some(&Operand::StorageClass(StorageClass::Private))
            })
            .count();
        assert_eq!(private, 3, "{}", disassemble(&out));
        assert_eq!(
            interface_locations(&out, Stage::Fragment, "main", false).unwrap(),
            1 << 5,
            "the block's written member is still read"
        );
        assert!(
            !m.annotations
                .iter()
                .any(|a| a.operands.get(1) == Some(&Operand::Decoration(Decoration::Flat))),
            "Flat left on a private variable"
        );
        let nulls = m
            .types_global_values
            .iter()
            .filter(|i| i.class.opcode == Op::ConstantNull)
            .count();
        assert_eq!(nulls, 3);
        // A block with a location of its own: its members follow it.
        let at_var = FS_GLSLANG
            .replace(
                "OpMemberDecorate %Blk 0 Location 2\n",
                "OpDecorate %blk Location 2\n",
            )
            .replace("OpMemberDecorate %Blk 1 Location 5\n", "");
        let w2 = assemble(&at_var, env);
        validate(&w2, env, "block at a location");
        assert_eq!(
            interface_locations(&w2, Stage::Fragment, "main", false).unwrap(),
            1 << 1 | 1 << 2 | 1 << 3 | 1 << 6 | 1 << 7
        );
        // The whole block unwritten: it goes too.
        let out = zero_inputs(&w, "main", 1 << 2 | 1 << 5).unwrap();
        validate(&out, env, "block zeroed");
        // Its struct, now a private variable's, is no interface block:
        // no Block, no member locations.
        let m = dr::load_words(&out).unwrap();
        let left: Vec<String> = m
            .annotations
            .iter()
            .filter(|a| {
                matches!(
                    a.operands.get(1).or(a.operands.get(2)),
                    Some(Operand::Decoration(Decoration::Block))
                ) || (a.class.opcode == Op::MemberDecorate
                    && a.operands.get(2) == Some(&Operand::Decoration(Decoration::Location)))
            })
            .map(|a| format!("{:?} {:?}", a.class.opcode, a.operands))
            .collect();
        assert!(left.is_empty(), "{left:?}\n{}", disassemble(&out));
        assert_eq!(
            interface_locations(&out, Stage::Fragment, "main", false).unwrap(),
            1 << 1 | 1 << 6 | 1 << 7,
            "{}",
            disassemble(&out)
        );
        // Written in part, likewise (its members are inputs of their own).
        let out = zero_inputs(&w, "main", 1 << 2).unwrap();
        validate(&out, env, "block zeroed in part");
        let m = dr::load_words(&out).unwrap();
        assert!(!m
            .annotations
            .iter()
            .any(|a| a.operands.get(1) == Some(&Operand::Decoration(Decoration::Block))));
        // Nothing in the mask: unchanged.
        assert_eq!(zero_inputs(&w, "main", 1 << 3).unwrap(), w);
        assert_eq!(zero_inputs(&w, "main", 0).unwrap(), w);
    }
}

/// The `OpFMul`s by 0.5 (the depth conversion's) in a module.
fn halves(words: &[u32]) -> usize {
    let m = dr::load_words(words).unwrap();
    let half: Vec<u32> = m
        .types_global_values
        .iter()
        .filter(|i| {
            i.class.opcode == Op::Constant
                && i.operands == [Operand::LiteralBit32(0.5f32.to_bits())]
        })
        .filter_map(|i| i.result_id)
        .collect();
    m.functions
        .iter()
        .flat_map(|f| &f.blocks)
        .flat_map(|b| &b.instructions)
        .filter(|i| {
            i.class.opcode == Op::FMul
                && i.operands
                    .iter()
                    .any(|o| matches!(o, Operand::IdRef(id) if half.contains(id)))
        })
        .count()
}

#[test]
fn depth_range_conversion() {
    use spirv_gen::patch::clip_halfz;
    let vs = VS_POSITION;
    let gs = GS_TWO_POINTS;
    let no_pos = "shader vertex
in @pos : f32x4 location=0
out @c : f32x4 location=0
fn main {
  %0 : f32x4 = load @pos
  store @c, %0
}
";
    for (what, src, want) in [("vs", vs, 1), ("gs", gs, 2), ("no position", no_pos, 0)] {
        let s = spirv_gen::text::parse(src).unwrap();
        for target in [Target::Vulkan1_1, Target::Vulkan1_3] {
            let words = spirv_gen::emit::emit(&s, target).unwrap();
            let out = clip_halfz(&words, "main").unwrap_or_else(|e| panic!("{what}: {e}"));
            validate(&out, common::env(target), what);
            assert_eq!(halves(&out), want, "{what}\n{}", disassemble(&out));
            if want == 0 {
                assert_eq!(out, words);
            }
        }
    }
    let words = assemble(PER_VERTEX_GLSLANG, TargetEnv::Vulkan_1_0);
    for entry in ["main", "unwritten", "clip"] {
        let out = clip_halfz(&words, entry).unwrap();
        validate(&out, TargetEnv::Vulkan_1_0, entry);
        assert_eq!(halves(&out), 1, "{entry}");
    }
}

#[test]
fn unbound_colour_outputs() {
    use spirv_gen::ir::Stage;
    use spirv_gen::patch::{interface_locations, unbound_outputs};
    // Outputs at 0, 1 (written through an access chain) and 2.
    let fs = "shader fragment
out @o0 : f32x4 location=0
out @o1 : f32x4 location=1
out @o2 : f32x4 location=2
fn main {
  %0 : f32x4 = const 0.0, 1.0, 0.0, 1.0
  store @o0, %0
  store @o1, %0
  store @o2, %0
}
";
    let s = spirv_gen::text::parse(fs).unwrap();
    for target in [Target::Vulkan1_1, Target::Vulkan1_3] {
        let w = spirv_gen::emit::emit(&s, target).unwrap();
        assert_eq!(
            interface_locations(&w, Stage::Fragment, "main", true).unwrap(),
            0b111
        );
        let out = unbound_outputs(&w, "main", 0b1010).unwrap();
        validate(&out, common::env(target), "location 1 dropped");
        assert_eq!(
            interface_locations(&out, Stage::Fragment, "main", true).unwrap(),
            0b101
        );
        assert_eq!(unbound_outputs(&w, "main", 0b1000).unwrap(), w);
    }
    // glslang-style: the output written through an access chain.
    let text = FS_GLSLANG.replace(
        "OpStore %frag %o",
        "%pf = OpAccessChain %ptr_out_f %frag %int_1\nOpStore %pf %x",
    );
    let text = text.replace(
        "%ptr_out_v4 = OpTypePointer Output %v4float",
        "%ptr_out_v4 = OpTypePointer Output %v4float\n%ptr_out_f = OpTypePointer Output %float",
    );
    let w = assemble(&text, TargetEnv::Vulkan_1_0);
    validate(&w, TargetEnv::Vulkan_1_0, "glslang-style");
    let out = unbound_outputs(&w, "main", 1).unwrap();
    validate(
        &out,
        TargetEnv::Vulkan_1_0,
        "glslang-style, location 0 dropped",
    );
    assert_eq!(
        interface_locations(&out, Stage::Fragment, "main", true).unwrap(),
        0
    );
}

#[test]
fn descriptors_of_a_module() {
    use spirv_gen::ir::{BaseType, Dim, ImageFormat, ImageInfo, Stage, TextureInfo};
    use spirv_gen::patch::{ir_resources, IrResource as R};
    let fs = "shader fragment
ubo @u slot=1 size=16
texture @t slot=2 dim=2d sampled=float
texture @tb slot=3 dim=buffer sampled=uint
ssbo @b slot=0
ssbo @ro slot=4 readonly
image @im slot=1 dim=2d format=rgba8 readonly
texture @unused slot=5 dim=2d sampled=float
out @frag : f32x4 location=0
fn main {
  %0 : f32x2 = const 0.5, 0.5
  %1 : f32x4 = tex @t, coord=%0
  %2 : i32 = const 0
  %3 : u32x4 = tex @tb, coord=%2
  %4 : u32 = const 0
  %5 : f32x4 = load_ssbo @b, %4
  %6 : f32x4 = load_ubo @u, %4
  %7 : i32x2 = const 0, 0
  %8 : f32x4 = image_load @im, %7
  %13 : f32x4 = load_ssbo @ro, %4
  %9 : f32x4 = fadd %1, %13
  %10 : f32x4 = fadd %9, %5
  %11 : f32x4 = fadd %10, %6
  %12 : f32x4 = fadd %11, %8
  store @frag, %12
}
";
    let s = spirv_gen::text::parse(fs).unwrap_or_else(|e| panic!("{e}"));
    for target in [Target::Vulkan1_1, Target::Vulkan1_3] {
        let w = spirv_gen::emit::emit(&s, target).unwrap();
        let mut got = ir_resources(&w, Stage::Fragment, "main").unwrap();
        // The driver constant buffer (slot 15), if the emitter declares
        // it, is not the shader's.
        got.retain(|r| *r != R::Ubo { slot: 15 });
        let tex = |slot, dim, sampled| {
            R::Texture(TextureInfo {
                slot,
                dim,
                arrayed: false,
                ms: false,
                shadow: false,
                sampled,
            })
        };
        let mut want = vec![
            R::Ubo { slot: 1 },
            tex(2, Dim::D2, BaseType::Float),
            tex(3, Dim::Buffer, BaseType::Uint),
            R::Ssbo {
                slot: 0,
                readonly: false,
            },
            R::Ssbo {
                slot: 4,
                readonly: true,
            },
            R::Image(ImageInfo {
                slot: 1,
                dim: Dim::D2,
                arrayed: false,
                ms: false,
                format: ImageFormat::Rgba8,
                sampled: BaseType::Float,
                readonly: true,
                writeonly: false,
            }),
        ];
        let key = |r: &R| format!("{r:?}");
        got.sort_by_key(key);
        want.sort_by_key(key);
        assert_eq!(got, want, "{}", disassemble(&w));
        // Asked for as a vertex shader, the module is refused.
        assert!(ir_resources(&w, Stage::Vertex, "main").is_err());
    }
}

#[test]
fn vertex_outputs_as_ir() {
    use spirv_gen::patch::vertex_outputs;
    let vs = "shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
out @cd : f32[2] builtin=clip_distance
out @c : f32x4 location=0
out @i : i32x2 location=1 flat
out @n : f32x3 location=2 component=0 noperspective
out @a : f32x4[2] location=3 centroid
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  store @c, %0
  %1 : i32x2 = const 1, 2
  store @i, %1
  %2 : f32x3 = swizzle %0, xyz
  store @n, %2
  %3 : i32 = const 1
  store @a, %3, %0
  %4 : f32 = swizzle %0, x
  store @cd, %3, %4
}
";
    let s = spirv_gen::text::parse(vs).unwrap();
    let w = spirv_gen::emit::emit(&s, Target::Vulkan1_3).unwrap();
    let ir = vertex_outputs(&w, "main").unwrap();
    let text = spirv_gen::text::print(&ir);
    for want in [
        ": f32x4 location=0",
        ": i32x2 location=1 flat",
        ": f32x3 location=2 noperspective",
        ": f32x4[2] location=3 centroid",
        "@position : f32x4 builtin=position",
        "@clip_distance : f32[2] builtin=clip_distance",
    ] {
        assert!(text.contains(want), "{want} not in\n{text}");
    }
    assert!(!text.contains("point_size"), "{text}");
    // The pass-through control shader builds from it and validates.
    let tcs = spirv_gen::passes::tess::passthrough_tcs(&ir, 3).unwrap();
    common::emit_and_validate("tcs from SPIR-V outputs", &tcs);
    // glslang's gl_PerVertex block: the position it writes; the point
    // size and distances it declares but does not write are left out.
    let words = assemble(PER_VERTEX_GLSLANG, TargetEnv::Vulkan_1_0);
    let text = spirv_gen::text::print(&vertex_outputs(&words, "unwritten").unwrap());
    assert!(text.contains("builtin=position"), "{text}");
    assert!(
        !text.contains("point_size") && !text.contains("clip"),
        "{text}"
    );
    let text = spirv_gen::text::print(&vertex_outputs(&words, "clip").unwrap());
    assert!(
        text.contains("@clip_distance : f32[1] builtin=clip_distance"),
        "{text}"
    );
    // An evaluation shader's, which the generated geometry shaders
    // forward; the aliased-triangle one builds from them and validates.
    let tes = "shader tess_eval mode=triangles spacing=equal winding=ccw
in @pos : f32x4[32] builtin=position
in @c : f32x4[32] location=0
out @gl_pos : f32x4 builtin=position
out @o : f32x4 location=2 noperspective
fn main {
  %0 : i32 = const 0
  %1 : f32x4 = load @pos, %0
  store @gl_pos, %1
  %2 : f32x4 = load @c, %0
  store @o, %2
}
";
    let w =
        spirv_gen::emit::emit(&spirv_gen::text::parse(tes).unwrap(), Target::Vulkan1_3).unwrap();
    let ir = vertex_outputs(&w, "main").unwrap();
    let text = spirv_gen::text::print(&ir);
    assert!(text.contains(": f32x4 location=2 noperspective"), "{text}");
    assert!(text.contains("builtin=position"), "{text}");
    assert!(spirv_gen::passes::aliased::can_expand(&ir));
    let gs = spirv_gen::passes::aliased::aliased_triangles_gs(&ir, false, 0x1, Some(false), false)
        .unwrap();
    common::emit_and_validate("aliased gs from SPIR-V evaluation outputs", &gs);
    // A fragment shader has no vertex outputs to give.
    assert!(vertex_outputs(&assemble(FS_GLSLANG, TargetEnv::Vulkan_1_0), "main").is_err());
}

#[test]
fn per_sample_interpolation() {
    use spirv_gen::patch::sample_interpolation;
    let has = |m: &dr::Module, target: Option<u32>, member: Option<u32>, d: Decoration| {
        m.annotations
            .iter()
            .any(|a| match (member, a.operands.as_slice()) {
                (None, [Operand::IdRef(t), Operand::Decoration(x), ..]) => {
                    Some(*t) == target && *x == d
                }
                (
                    Some(k),
                    [Operand::IdRef(t), Operand::LiteralBit32(j), Operand::Decoration(x), ..],
                ) => Some(*t) == target && *j == k && *x == d,
                _ => false,
            })
    };
    let text = FS_GLSLANG.replace(
        "OpDecorate %mat Location 6",
        "OpDecorate %mat Location 6\nOpDecorate %mat Centroid",
    );
    for env in [TargetEnv::Vulkan_1_0, TargetEnv::Vulkan_1_3] {
        let w = assemble(&text, env);
        let out = sample_interpolation(&w, "main").unwrap();
        validate(&out, env, "per sample");
        let m = dr::load_words(&out).unwrap();
        // The variables, by their locations.
        let (inputs, _) = inputs_by_location(&out);
        let var_at = |l: u32| {
            inputs
                .iter()
                .find(|(x, _)| *x == l)
                .and_then(|(_, v)| v.result_id)
        };
        // Flat location 1 is left alone; the matrix at 6 is per sample,
        // its centroid gone.
        assert!(!has(&m, var_at(1), None, Decoration::Sample));
        assert!(has(&m, var_at(6), None, Decoration::Sample));
        assert!(!has(&m, var_at(6), None, Decoration::Centroid));
        // The block's members are per sample.
        let blk_ty = m
            .types_global_values
            .iter()
            .find(|i| i.class.opcode == Op::TypeStruct)
            .and_then(|i| i.result_id);
        assert!(has(&m, blk_ty, Some(0), Decoration::Sample));
        assert!(has(&m, blk_ty, Some(1), Decoration::Sample));
        assert!(m.capabilities.iter().any(|c| c.operands
            == [Operand::Capability(
                rspirv::spirv::Capability::SampleRateShading
            )]));
        // Twice: nothing more to do.
        assert_eq!(sample_interpolation(&out, "main").unwrap(), out);
    }
}

/// A vertex shader writing only its position.
const VS_POSITION: &str = "shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
}
";

/// A geometry shader emitting its point twice.
const GS_TWO_POINTS: &str =
    "shader geometry input=points output=points max_vertices=2 invocations=1
in @pos : f32x4[1] builtin=position
out @gl_pos : f32x4 builtin=position
fn main {
  %0 : i32 = const 0
  %1 : f32x4 = load @pos, %0
  store @gl_pos, %1
  emit_vertex
  store @gl_pos, %1
  emit_vertex
  end_primitive
}
";

/// A module from `tests/patch/` (the review's probes), assembled.
fn probe(name: &str, env: TargetEnv) -> Vec<u32> {
    let text = match name {
        "rec" => include_str!("patch/rec.spvasm"),
        "huge" => include_str!("patch/huge.spvasm"),
        "bigcomp" => include_str!("patch/bigcomp.spvasm"),
        "bigloc" => include_str!("patch/bigloc.spvasm"),
        "clipless" => include_str!("patch/clipless.spvasm"),
        "fs" => include_str!("patch/fs.spvasm"),
        "nonsem" => include_str!("patch/nonsem.spvasm"),
        "early_return" => include_str!("patch/early_return.spvasm"),
        "opline" => include_str!("patch/opline.spvasm"),
        "loopret" => include_str!("patch/loopret.spvasm"),
        "unreach" => include_str!("patch/unreach.spvasm"),
        "xfbnocap" => include_str!("patch/xfbnocap.spvasm"),
        "xfbarr" => include_str!("patch/xfbarr.spvasm"),
        "xfbstride" => include_str!("patch/xfbstride.spvasm"),
        "xfb64" => include_str!("patch/xfb64.spvasm"),
        "gsstream" => include_str!("patch/gsstream.spvasm"),
        "gspos" => include_str!("patch/gspos.spvasm"),
        "arrays" => include_str!("../../tests/src/cases/arrays_spirv.spvasm"),
        "dbg_vs" => include_str!("patch/dbg_vs.spvasm"),
        "dbg_nolocals" => include_str!("patch/dbg_nolocals.spvasm"),
        "dbg_rich" => include_str!("patch/dbg_rich.spvasm"),
        "dbg_phi" => include_str!("patch/dbg_phi.spvasm"),
        "sample_inputs" => include_str!("patch/sample_inputs.spvasm"),
        "sample_block_array" => include_str!("patch/sample_block_array.spvasm"),
        "block_array" => include_str!("patch/block_array.spvasm"),
        "matrix_inputs" => include_str!("patch/matrix_inputs.spvasm"),
        "dbg_fs" => include_str!("patch/dbg_fs.spvasm"),
        "dbg_vs13" => include_str!("patch/dbg_vs13.spvasm"),
        "dbg_fs13" => include_str!("patch/dbg_fs13.spvasm"),
        "gs_lines" => include_str!("patch/gs_lines.spvasm"),
        "gs_lines13" => include_str!("patch/gs_lines13.spvasm"),
        "interp_array" => include_str!("patch/interp_array.spvasm"),
        "interp_block" => include_str!("patch/interp_block.spvasm"),
        "smooth_arr" => include_str!("patch/smooth_arr.spvasm"),
        "two_elements" => include_str!("patch/two_elements.spvasm"),
        "point_coord" => include_str!("patch/point_coord.spvasm"),
        "smooth_kill" => include_str!("patch/smooth_kill.spvasm"),
        _ => include_str!("patch/interp.spvasm"),
    };
    assemble(text, env)
}

/// Line stipple patched into glslang's line-strip geometry shader (its
/// `gl_PerVertex` block, `EmitVertex` in a called function), SPIR-V 1.0
/// and 1.6: valid; a `noperspective` output at location 29 stored before
/// each of the three vertices; the strip restarted before
/// `OpEndPrimitive`; `Distance` for rectangular lines only. Other
/// outputs leave the words alone; location 29 taken is an error.
#[test]
fn line_stipple_gs_patch() {
    use spirv_gen::patch::line_stipple_gs;
    for (name, env) in [
        ("gs_lines", TargetEnv::Vulkan_1_0),
        ("gs_lines13", TargetEnv::Vulkan_1_3),
    ] {
        let words = probe(name, env);
        for rectangular in [false, true] {
            let out = line_stipple_gs(&words, "main", rectangular).unwrap();
            validate(&out, env, name);
            let text = disassemble(&out);
            let lines: Vec<&str> = text.lines().collect();
            let var = lines
                .iter()
                .find_map(|l| l.strip_suffix(" Location 29"))
                .and_then(|l| l.split_whitespace().nth(1))
                .unwrap_or_else(|| panic!("{name}: no output at location 29\n{text}"))
                .to_string();
            assert!(
                text.contains(&format!("OpDecorate {var} NoPerspective")),
                "{text}"
            );
            let stores = lines
                .iter()
                .filter(|l| l.trim().starts_with(&format!("OpStore {var} ")))
                .count();
            assert_eq!(
                stores, 1,
                "{name}: one store, in the function that emits\n{text}"
            );
            let end = lines
                .iter()
                .position(|l| l.contains("OpEndPrimitive"))
                .expect("OpEndPrimitive");
            assert!(
                lines[end - 1].contains("OpStore"),
                "{name}: no restart\n{text}"
            );
            let distance = lines
                .iter()
                .any(|l| l.contains("OpExtInst") && l.contains(" Distance "));
            assert_eq!(distance, rectangular, "{name}: the metric\n{text}");
        }
        let text = match name {
            "gs_lines" => include_str!("patch/gs_lines.spvasm"),
            _ => include_str!("patch/gs_lines13.spvasm"),
        };
        let tri = assemble(&text.replace("OutputLineStrip", "OutputTriangleStrip"), env);
        assert_eq!(line_stipple_gs(&tri, "main", false).unwrap(), tri);
        let taken = text.replace("OpDecorate %oc Location 0", "OpDecorate %oc Location 29");
        let e = line_stipple_gs(&assemble(&taken, env), "main", false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("location 29 is taken"), "{e}");
    }
}

/// Modules real compilers emit that the first version of the patches
/// refused or broke.
#[test]
fn real_compiler_shapes() {
    use spirv_gen::ir::Stage;
    use spirv_gen::patch::*;
    let env = TargetEnv::Vulkan_1_0;
    // `out gl_PerVertex { vec4 gl_Position; float gl_PointSize; }`: no
    // clip distances to disable (it was refused on every draw), the
    // depth range still converted.
    let w = probe("clipless", env);
    assert_eq!(clip_disable(&w, "main", 0).unwrap(), w);
    let out = clip_halfz(&w, "main").unwrap();
    validate(&out, env, "clipless, depth range");
    assert_eq!(halves(&out), 1);
    // NonSemantic debug info at module level (glslang -gV, DXC): read
    // and patched (the debug info kept; `debug_info_kept`), where rspirv
    // refused it.
    let w = probe("nonsem", TargetEnv::Vulkan_1_3);
    validate(&w, TargetEnv::Vulkan_1_3, "nonsem itself");
    check_entry_point(&w, Stage::Vertex, "main").unwrap();
    assert_eq!(
        interface_locations(&w, Stage::Vertex, "main", false).unwrap(),
        1
    );
    for out in [
        point_size(&w, "main", 2.0, true).unwrap(),
        clip_halfz(&w, "main").unwrap(),
        vertex_fixups(&w, "main", &[FetchFixup::new(0, VertexFixup::Fixed32)]).unwrap(),
    ] {
        validate(&out, TargetEnv::Vulkan_1_3, "nonsem patched");
    }
    // An unwritten input read through InterpolateAtCentroid: zeroed,
    // the interpolation a plain load of the private zero.
    let w = probe("interp", env);
    let out = zero_inputs(&w, "main", 1 << 3).unwrap();
    validate(&out, env, "interpolated input zeroed");
    let m = dr::load_words(&out).unwrap();
    assert!(!m
        .functions
        .iter()
        .flat_map(|f| &f.blocks)
        .flat_map(|b| &b.instructions)
        .any(|i| i.class.opcode == Op::ExtInst));
    // An Invariant output with no colour buffer, a RelaxedPrecision
    // centroid input nothing writes, OpLine, access chains of access
    // chains, OpCopyMemory and a helper function: valid after each patch.
    let w = probe("fs", env);
    validate(&w, env, "fs itself");
    for (what, out) in [
        (
            "unbound outputs",
            unbound_outputs(&w, "main", 0b10).unwrap(),
        ),
        (
            "zero inputs",
            zero_inputs(&w, "main", 1 << 1 | 1 << 2 | 1 << 3 | 1 << 4).unwrap(),
        ),
        ("per sample", sample_interpolation(&w, "main").unwrap()),
    ] {
        validate(&out, env, what);
    }
    // Two vertex entry points sharing the fixed-up input: refused with
    // SPIR-V 1.4 interfaces before; the variant keeps only "main".
    for env in [TargetEnv::Vulkan_1_0, TargetEnv::Vulkan_1_2] {
        let w = assemble(PER_VERTEX_GLSLANG, env);
        let out = vertex_fixups(&w, "main", &[FetchFixup::new(0, VertexFixup::SwapRb)]).unwrap();
        validate(&out, env, "fix-up with other entry points");
        assert_eq!(dr::load_words(&out).unwrap().entry_points.len(), 1);
    }
}

/// Bad input gives errors, not panics, hangs or aborts.
#[test]
fn bad_modules_are_errors() {
    use spirv_gen::ir::Stage;
    use spirv_gen::patch::*;
    let env = TargetEnv::Vulkan_1_0;
    // A self-referential struct (invalid; assembles) and a 4e9-element
    // input array: the reflection returns.
    let _ = interface_locations(&probe("rec", env), Stage::Fragment, "main", false);
    let huge = probe("huge", env);
    assert_eq!(
        interface_locations(&huge, Stage::Fragment, "main", false).unwrap() & 1,
        1
    );
    assert_eq!(zero_inputs(&huge, "main", u32::MAX).unwrap(), huge);
    // Component 0xffffffff, location 0xffffffff.
    let e = vertex_fixups(
        &probe("bigcomp", env),
        "main",
        &[FetchFixup::new(0, VertexFixup::SwapRb)],
    )
    .unwrap_err();
    assert!(e.msg.contains("component"), "{}", e.msg);
    let _ = vertex_fixups(
        &probe("bigloc", env),
        "main",
        &[FetchFixup {
            location: 0,
            fixup: VertexFixup::Double,
            comps: 4,
            upper: Some(u32::MAX),
        }],
    );
    // An id bound past the universal limit.
    let mut w = probe("clipless", env);
    w[3] = u32::MAX;
    assert!(point_size(&w, "main", 1.0, false)
        .unwrap_err()
        .msg
        .contains("bound"));
    // Truncated words.
    let w = probe("clipless", env);
    assert!(check_entry_point(&w[..w.len() - 1], Stage::Vertex, "main").is_err());
}

/// Damaged modules (words of valid ones changed at random, a fixed seed)
/// never make a patch or a reflection panic: each gives a result or an
/// error, as frontend input must.
#[test]
fn damaged_spirv_never_panics() {
    use spirv_gen::ir::Stage;
    use spirv_gen::patch::*;
    let sources = [
        (assemble(GLSLANG, TargetEnv::Vulkan_1_0), Stage::Vertex),
        (
            assemble(PER_VERTEX_GLSLANG, TargetEnv::Vulkan_1_3),
            Stage::Vertex,
        ),
        (assemble(FS_GLSLANG, TargetEnv::Vulkan_1_0), Stage::Fragment),
        (probe("fs", TargetEnv::Vulkan_1_0), Stage::Fragment),
        (probe("nonsem", TargetEnv::Vulkan_1_3), Stage::Vertex),
        (assemble(XFB_GLSLANG, TargetEnv::Vulkan_1_0), Stage::Vertex),
        (
            probe("early_return", TargetEnv::Vulkan_1_3),
            Stage::Fragment,
        ),
        (probe("arrays", TargetEnv::Vulkan_1_0), Stage::Fragment),
        (
            probe("sample_inputs", TargetEnv::Vulkan_1_0),
            Stage::Fragment,
        ),
        (probe("block_array", TargetEnv::Vulkan_1_0), Stage::Fragment),
        (
            probe("matrix_inputs", TargetEnv::Vulkan_1_0),
            Stage::Fragment,
        ),
        // Debug info, which the patches take out and put back.
        (probe("dbg_fs", TargetEnv::Vulkan_1_0), Stage::Fragment),
        (probe("dbg_vs13", TargetEnv::Vulkan_1_3), Stage::Vertex),
        (
            assemble(
                include_str!("../../tests/src/cases/array_loop_spirv.spvasm"),
                TargetEnv::Vulkan_1_0,
            ),
            Stage::Fragment,
        ),
        (probe("gs_lines13", TargetEnv::Vulkan_1_3), Stage::Geometry),
        (
            probe("interp_array", TargetEnv::Vulkan_1_0),
            Stage::Fragment,
        ),
        (
            probe("interp_block", TargetEnv::Vulkan_1_0),
            Stage::Fragment,
        ),
        (
            assemble(
                include_str!("../../tests/src/cases/array_opt_spirv.spvasm"),
                TargetEnv::Vulkan_1_0,
            ),
            Stage::Fragment,
        ),
        (
            assemble(
                include_str!("../../tests/src/cases/partial_blocks_fs_spirv.spvasm"),
                TargetEnv::Vulkan_1_0,
            ),
            Stage::Fragment,
        ),
        (
            assemble(
                include_str!("../../tests/src/cases/arrays_of_arrays_spirv.spvasm"),
                TargetEnv::Vulkan_1_0,
            ),
            Stage::Fragment,
        ),
        (
            assemble(
                include_str!("../../tests/src/cases/array_dowhile_spirv.spvasm"),
                TargetEnv::Vulkan_1_0,
            ),
            Stage::Fragment,
        ),
    ];
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for (words, stage) in &sources {
        for _ in 0..1000 {
            let mut w = words.clone();
            for _ in 0..1 + next() % 3 {
                let at = 5 + (next() as usize) % (w.len() - 5);
                w[at] = match next() % 4 {
                    0 => w[at] ^ (1 << (next() % 32)),
                    1 => (next() % 64) as u32,
                    2 => w[at].wrapping_add(1),
                    _ => u32::MAX,
                };
            }
            let fixups = [
                FetchFixup::new(1, VertexFixup::Fixed32),
                FetchFixup::new(0, VertexFixup::SwapRb),
            ];
            let r = std::panic::catch_unwind(|| {
                let _ = check_entry_point(&w, *stage, "main");
                let _ = interface_locations(&w, *stage, "main", true);
                let _ = interface_locations(&w, *stage, "main", false);
                let _ = ir_resources(&w, *stage, "main");
                let _ = entry_point_as_main(&w, *stage, "unwritten");
                let _ = xfb_layout(&w, *stage, "main");
                let _ = split_descriptor_arrays(&w, *stage, "main");
                let _ = drop_xfb(&w, *stage, "main");
                let _ = without_nonsemantic(&w);
                if *stage == Stage::Geometry {
                    let _ = line_stipple_gs(&w, "main", true);
                    let _ = clip_halfz(&w, "main");
                    let _ = point_size(&w, "main", 2.0, true);
                } else if *stage == Stage::Vertex {
                    let _ = vertex_outputs(&w, "main");
                    let _ = vertex_output_captures(&w, "main");
                    let _ = vertex_fixups(&w, "main", &fixups);
                    let _ = point_size(&w, "main", 2.0, true);
                    let _ = clip_disable(&w, "main", 0);
                    let _ = clip_halfz(&w, "main");
                    let all = XfbBuiltins {
                        position: true,
                        point_size: true,
                        clip_distance: true,
                    };
                    let _ = xfb_copy_builtins(&w, "main", all);
                    let _ = aliased_points(&w, "main", 64.0, false);
                    let _ = aliased_points(&w, "main", 64.0, true);
                    let _ = spirv_gen::patch::smooth_lines(&w, "main");
                    let _ = spirv_gen::patch::votes_trivial(&w, true);
                } else {
                    let _ = zero_inputs(&w, "main", u32::MAX);
                    // Written in part: the rebuilding paths.
                    let _ = zero_inputs(&w, "main", 1 << 2 | 1 << 3);
                    let _ = unbound_outputs(&w, "main", 0xff);
                    let _ = sample_interpolation(&w, "main");
                    let _ = single_sample(&w, "main");
                    let _ = pixel_center_integer(&w, "main");
                    let _ = polygon_stipple(&w, "main");
                    let _ = window_rects(&w, "main", true, 2);
                    let _ = alpha_test(&w, "main", spirv_gen::passes::CompareFunc::Less, 0.5);
                    let _ = line_stipple(&w, "main", true);
                    let _ = polygon_edges(&w, "main", true, true);
                    let _ = aliased_points_fs(&w, "main", false);
                    let _ = aliased_points_fs(&w, "main", true);
                    let _ = round_points_fs(&w, "main", 4);
                    let _ = aliased_triangles_fs(&w, "main", 0xff);
                    let _ = spirv_gen::patch::smooth_lines_fs(&w, "main", 1.5, true, false);
                }
            });
            if r.is_err() {
                panic!("a damaged {stage:?} module panicked:\n{w:?}");
            }
        }
    }
}

const XFB_GLSLANG: &str = include_str!("../../tests/src/cases/xfb_spirv.spvasm");

#[test]
fn xfb_binary_matches_its_text() {
    assert_eq!(
        words_of(include_bytes!("../../tests/src/cases/xfb_spirv.spv")),
        assemble(XFB_GLSLANG, TargetEnv::Vulkan_1_0)
    );
}

/// The glslang capture as captures of `vertex_outputs`' registers (`v`,
/// then the position, point size and clip distances the shader writes),
/// for a generated geometry shader to take over; refused where a
/// captured built-in is not written (no register names it).
#[test]
fn vertex_output_captures_of_glslang_block() {
    use spirv_gen::passes::xfb::XfbCapture;
    use spirv_gen::patch::{vertex_output_captures, vertex_outputs};
    let env = TargetEnv::Vulkan_1_0;
    let words = assemble(XFB_GLSLANG, env);
    let outs = vertex_outputs(&words, "main").unwrap();
    let names: Vec<&str> = outs
        .vars
        .iter()
        .filter(|v| v.is_output())
        .map(|v| v.name.as_str())
        .collect();
    assert_eq!(names, ["o0", "position", "point_size", "clip_distance"]);
    let cap = |output, n, buffer, offset| XfbCapture {
        output,
        start_component: 0,
        num_components: n,
        buffer,
        offset,
        stream: 0,
    };
    let (mut caps, strides) = vertex_output_captures(&words, "main").unwrap().unwrap();
    caps.sort_by_key(|c| (c.buffer, c.offset));
    assert_eq!(
        caps,
        [
            cap(1, 4, 0, 0),
            cap(3, 2, 0, 16),
            cap(2, 1, 0, 24),
            cap(0, 4, 1, 4)
        ]
    );
    assert_eq!(strides, [32, 20, 0, 0]);
    // Without the Xfb mode: nothing.
    assert_eq!(
        vertex_output_captures(&assemble(GLSLANG, env), "main").unwrap(),
        None
    );
    // The point size captured but never written.
    let unwritten = XFB_GLSLANG.replace("               OpStore %23 %float_3\n", "");
    assert_ne!(unwritten, XFB_GLSLANG);
    let e = vertex_output_captures(&assemble(&unwritten, env), "main")
        .unwrap_err()
        .to_string();
    assert!(e.contains("member 1") && e.contains("not written"), "{e}");
}

#[test]
fn gs_stipple_xfb_binary_matches_its_text() {
    assert_eq!(
        words_of(include_bytes!(
            "../../tests/src/cases/gs_stipple_xfb_spirv.spv"
        )),
        assemble(
            include_str!("../../tests/src/cases/gs_stipple_xfb_spirv.spvasm"),
            TargetEnv::Vulkan_1_0
        )
    );
}

#[test]
fn arrays_binary_matches_its_text() {
    assert_eq!(
        words_of(include_bytes!("../../tests/src/cases/arrays_spirv.spv")),
        assemble(
            include_str!("../../tests/src/cases/arrays_spirv.spvasm"),
            TargetEnv::Vulkan_1_0
        )
    );
}

#[test]
fn input_block_binary_matches_its_text() {
    assert_eq!(
        words_of(include_bytes!(
            "../../tests/src/cases/input_block_spirv.spv"
        )),
        assemble(
            include_str!("../../tests/src/cases/input_block_spirv.spvasm"),
            TargetEnv::Vulkan_1_0
        )
    );
}

/// 64-bit vectors of three or four components written in one of their
/// two locations (`partial_64_{vs,fs}_spirv.spvasm`: the vertex shader
/// writes a `dvec2` at 1, 3 and 5, the fragment shader reads a `dvec4`
/// at 1 and a `dvec3[2]` at 3): each written half becomes a `dvec2`
/// input at its location, nothing is read at 2, 4 or 6, and the module
/// validates. A `mat2x4` input at 1 written in its first column only
/// keeps that column (a `vec4` at 1). All of it unwritten, or all
/// written, is as before.
#[test]
fn zeroed_halves_of_64_bit_inputs() {
    use spirv_gen::ir::Stage;
    use spirv_gen::patch::{interface_locations, zero_inputs};
    let vs_text = include_str!("../../tests/src/cases/partial_64_vs_spirv.spvasm");
    let fs_text = include_str!("../../tests/src/cases/partial_64_fs_spirv.spvasm");
    for (bin, text) in [
        (
            &include_bytes!("../../tests/src/cases/partial_64_vs_spirv.spv")[..],
            vs_text,
        ),
        (
            &include_bytes!("../../tests/src/cases/partial_64_fs_spirv.spv")[..],
            fs_text,
        ),
    ] {
        assert_eq!(words_of(bin), assemble(text, TargetEnv::Vulkan_1_0));
    }
    let vs = assemble(vs_text, TargetEnv::Vulkan_1_0);
    let fs = assemble(fs_text, TargetEnv::Vulkan_1_0);
    let written = interface_locations(&vs, Stage::Vertex, "main", true).unwrap();
    let read = interface_locations(&fs, Stage::Fragment, "main", false).unwrap();
    let mask = read & !written;
    assert_eq!(mask, 1 << 2 | 1 << 4 | 1 << 6, "{read:#x} {written:#x}");
    let out = zero_inputs(&fs, "main", mask).unwrap();
    validate(&out, TargetEnv::Vulkan_1_0, "64-bit halves");
    let (inputs, m) = inputs_by_location(&out);
    let vector_of = |v: &dr::Instruction| -> Option<(u32, u32)> {
        let ptr = m
            .types_global_values
            .iter()
            .find(|i| i.result_id == v.result_type)?;
        let Some(Operand::IdRef(t)) = ptr.operands.get(1) else {
            return None;
        };
        let t = m
            .types_global_values
            .iter()
            .find(|i| i.result_id == Some(*t))?;
        let (Operand::IdRef(c), Operand::LiteralBit32(n)) = (&t.operands[0], &t.operands[1]) else {
            return None;
        };
        let c = m
            .types_global_values
            .iter()
            .find(|i| i.result_id == Some(*c))?;
        match c.operands.first() {
            Some(Operand::LiteralBit32(bits)) => Some((*bits, *n)),
            _ => None,
        }
    };
    let got: Vec<(u32, Option<(u32, u32)>)> =
        inputs.iter().map(|(l, v)| (*l, vector_of(v))).collect();
    assert_eq!(
        got,
        vec![(1, Some((64, 2))), (3, Some((64, 2))), (5, Some((64, 2)))],
        "{}",
        disassemble(&out)
    );
    // Every location unwritten, or none: the whole input is zeroed, or
    // the words stay.
    let all = zero_inputs(&fs, "main", 0x7e).unwrap();
    validate(&all, TargetEnv::Vulkan_1_0, "all unwritten");
    assert!(inputs_by_location(&all).0.is_empty());
    assert_eq!(zero_inputs(&fs, "main", 1 << 9).unwrap(), fs);
    // A matrix written in its first column.
    let glslang_matrix = include_str!("../../tests/src/cases/partial_matrix_fs_spirv.spvasm");
    assert_eq!(
        words_of(include_bytes!(
            "../../tests/src/cases/partial_matrix_fs_spirv.spv"
        )),
        assemble(glslang_matrix, TargetEnv::Vulkan_1_0)
    );
    let matrix = "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint Fragment %main \"main\" %frag %m
OpExecutionMode %main OriginUpperLeft
OpDecorate %frag Location 0
OpDecorate %m Location 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%v4 = OpTypeVector %float 4
%m24 = OpTypeMatrix %v4 2
%po = OpTypePointer Output %v4
%pm = OpTypePointer Input %m24
%frag = OpVariable %po Output
%m = OpVariable %pm Input
%main = OpFunction %void None %fn
%l = OpLabel
%x = OpLoad %m24 %m
%c0 = OpCompositeExtract %v4 %x 0
%c1 = OpCompositeExtract %v4 %x 1
%s = OpFAdd %v4 %c0 %c1
OpStore %frag %s
OpReturn
OpFunctionEnd
";
    let w = assemble(matrix, TargetEnv::Vulkan_1_0);
    let out = zero_inputs(&w, "main", 1 << 2).unwrap();
    validate(&out, TargetEnv::Vulkan_1_0, "matrix column");
    let (inputs, m) = inputs_by_location(&out);
    assert_eq!(inputs.len(), 1, "{}", disassemble(&out));
    assert_eq!(inputs[0].0, 1);
    let ty = m
        .types_global_values
        .iter()
        .find(|i| i.result_id == inputs[0].1.result_type)
        .unwrap();
    let pointee = m
        .types_global_values
        .iter()
        .find(|i| Some(&Operand::IdRef(i.result_id.unwrap_or(0))) == ty.operands.get(1))
        .unwrap();
    assert_eq!(pointee.class.opcode, Op::TypeVector);
}

#[test]
fn debug_info_binaries_match_their_text() {
    for (bin, text) in [
        (
            &include_bytes!("../../tests/src/cases/debug_info_vs_spirv.spv")[..],
            include_str!("../../tests/src/cases/debug_info_vs_spirv.spvasm"),
        ),
        (
            &include_bytes!("../../tests/src/cases/debug_info_fs_spirv.spv")[..],
            include_str!("../../tests/src/cases/debug_info_fs_spirv.spvasm"),
        ),
    ] {
        assert_eq!(words_of(bin), assemble(text, TargetEnv::Vulkan_1_0));
    }
}

/// A variable's decorations: (decoration, its literal).
type Decorations = Vec<(Decoration, Option<u32>)>;

/// The output variables of a module with their decorations.
fn output_decorations(words: &[u32]) -> Vec<(u32, Decorations)> {
    let m = dr::load_words(words).unwrap();
    m.types_global_values
        .iter()
        .filter(|i| {
            i.class.opcode == Op::Variable
                && i.operands.first() == Some(&Operand::StorageClass(StorageClass::Output))
        })
        .map(|v| {
            let id = v.result_id.unwrap();
            let decos = m
                .annotations
                .iter()
                .filter(|a| a.class.opcode == Op::Decorate && a.operands[0] == Operand::IdRef(id))
                .map(|a| {
                    let lit = match a.operands.get(2) {
                        Some(Operand::LiteralBit32(x)) => Some(*x),
                        _ => None,
                    };
                    match a.operands[1] {
                        Operand::Decoration(d) => (d, lit),
                        _ => unreachable!(),
                    }
                })
                .collect();
            (id, decos)
        })
        .collect()
}

/// `Offset` member decorations left in a module.
fn member_offsets(words: &[u32]) -> usize {
    dr::load_words(words)
        .unwrap()
        .annotations
        .iter()
        .filter(|a| {
            a.class.opcode == Op::MemberDecorate
                && a.operands.get(2) == Some(&Operand::Decoration(Decoration::Offset))
        })
        .count()
}

/// Transform feedback a module declares: its layout (and the
/// decorations refused), dropped from a stage that is not the last, and
/// captured built-ins moved to copies written before the patches that
/// rewrite them.
#[test]
fn transform_feedback_of_a_module() {
    use spirv_gen::ir::Stage;
    use spirv_gen::patch::{
        clip_disable, clip_halfz, drop_xfb, point_size, xfb_copy_builtins, xfb_layout, XfbBuiltins,
        XfbLayout,
    };
    let env = TargetEnv::Vulkan_1_0;
    let words = assemble(XFB_GLSLANG, env);
    let layout = XfbLayout {
        strides: [32, 20, 0, 0],
        buffers: 0b11,
        streams: 0b1,
    };
    assert_eq!(
        xfb_layout(&words, Stage::Vertex, "main").unwrap(),
        Some(layout)
    );
    // No Xfb mode, no layout.
    let plain = assemble(GLSLANG, env);
    assert_eq!(xfb_layout(&plain, Stage::Vertex, "main").unwrap(), None);

    let refused = |from: &str, to: &str, needle: &str| {
        assert!(XFB_GLSLANG.contains(from), "{from}");
        let w = assemble(&XFB_GLSLANG.replace(from, to), env);
        let e = xfb_layout(&w, Stage::Vertex, "main")
            .unwrap_err()
            .to_string();
        assert!(e.contains(needle), "{from} -> {to}: {e}");
    };
    refused(
        "OpDecorate %v XfbBuffer 1",
        "OpDecorate %v XfbBuffer 4",
        "XfbBuffer 4",
    );
    refused(
        "OpDecorate %v Offset 4",
        "OpDecorate %v Offset 8",
        "do not fit",
    );
    refused(
        "OpDecorate %v Offset 4",
        "OpDecorate %v Offset 6",
        "multiple of 4",
    );
    refused("OpDecorate %v XfbStride 20", "", "no XfbStride");
    refused("OpDecorate %v XfbBuffer 1", "", "no XfbBuffer");
    refused(
        "OpDecorate %v XfbBuffer 1",
        "OpDecorate %v XfbBuffer 0",
        "strides",
    );

    // Not the last stage: no Xfb mode and no capture decorations left.
    let dropped = drop_xfb(&words, Stage::Vertex, "main").unwrap();
    validate(&dropped, env, "drop_xfb");
    assert_eq!(xfb_layout(&dropped, Stage::Vertex, "main").unwrap(), None);
    assert_eq!(member_offsets(&dropped), 0);
    assert!(output_decorations(&dropped)
        .iter()
        .flat_map(|(_, d)| d)
        .all(|(d, _)| !matches!(
            d,
            Decoration::XfbBuffer | Decoration::XfbStride | Decoration::Offset
        )));
    assert_eq!(drop_xfb(&plain, Stage::Vertex, "main").unwrap(), plain);

    // Built-ins through copies: each captured one in turn, then all.
    let all = XfbBuiltins {
        position: true,
        point_size: true,
        clip_distance: true,
    };
    for (which, copies) in [
        (
            XfbBuiltins {
                position: true,
                ..XfbBuiltins::default()
            },
            1,
        ),
        (
            XfbBuiltins {
                point_size: true,
                ..XfbBuiltins::default()
            },
            1,
        ),
        (
            XfbBuiltins {
                clip_distance: true,
                ..XfbBuiltins::default()
            },
            1,
        ),
        (all, 3),
    ] {
        let out = xfb_copy_builtins(&words, "main", which).unwrap();
        validate(&out, env, &format!("{which:?}"));
        // Same layout, the copies' offsets taken off the block.
        assert_eq!(
            xfb_layout(&out, Stage::Vertex, "main").unwrap(),
            Some(layout)
        );
        assert_eq!(member_offsets(&out), 3 - copies, "{which:?}");
        let outs = output_decorations(&out);
        assert_eq!(outs.len(), 2 + copies, "{which:?}");
        for (_, d) in &outs[2..] {
            assert!(d.contains(&(Decoration::XfbBuffer, Some(0))), "{d:?}");
            assert!(d.contains(&(Decoration::XfbStride, Some(32))), "{d:?}");
        }
    }
    let out = xfb_copy_builtins(&words, "main", all).unwrap();
    // Locations past `v` (0): the position at 1, the point size at 2,
    // the two clip distances at 3 and 4; offsets as the block had them.
    let outs = output_decorations(&out);
    let at = |loc: u32, off: u32| {
        outs.iter().any(|(_, d)| {
            d.contains(&(Decoration::Location, Some(loc)))
                && d.contains(&(Decoration::Offset, Some(off)))
        })
    };
    assert!(at(1, 0) && at(2, 24) && at(3, 16), "{outs:?}");
    // The rewrites come after the copies, and the result validates.
    let mut w = point_size(&out, "main", 1.0, true).unwrap();
    w = clip_disable(&w, "main", 0).unwrap();
    w = clip_halfz(&w, "main").unwrap();
    validate(&w, env, "rewritten after the copies");
    let m = dr::load_words(&w).unwrap();
    let body = &m.functions[0].blocks.last().unwrap().instructions;
    let copy_ids: Vec<u32> = outs[2..].iter().map(|(id, _)| *id).collect();
    let last_copy = body
        .iter()
        .rposition(|i| {
            i.class.opcode == Op::Store
                && matches!(i.operands[0], Operand::IdRef(p) if copy_ids.contains(&p))
        })
        .unwrap();
    let first_rewrite = body
        .iter()
        .position(|i| i.class.opcode == Op::FMul)
        .unwrap();
    assert!(last_copy < first_rewrite, "{}", disassemble(&w));
    // Nothing captured: nothing to copy.
    assert_eq!(xfb_copy_builtins(&plain, "main", all).unwrap(), plain);
}

/// A geometry shader capturing two vertex streams into two buffers, as
/// spirv-gen emits it (variables, not a block): the streams and
/// buffers, and its position copied before each vertex it emits.
#[test]
fn transform_feedback_of_geometry_streams() {
    use spirv_gen::ir::Stage;
    use spirv_gen::patch::{xfb_copy_builtins, xfb_layout, XfbBuiltins, XfbLayout};
    let src = "shader geometry input=points output=points max_vertices=2 invocations=1
in @pin : f32x4[1] builtin=position
out @gl_pos : f32x4 builtin=position xfb_buffer=0 xfb_offset=16 xfb_stride=32
out @a : f32x4 location=0 xfb_buffer=0 xfb_offset=0 xfb_stride=32
out @b : f32x2 location=1 stream=1 xfb_buffer=1 xfb_offset=0 xfb_stride=8
fn main {
  %0 : i32 = const 0
  %1 : f32x4 = load @pin, %0
  store @gl_pos, %1
  store @a, %1
  emit_vertex
  %3 : f32x2 = swizzle %1, xy
  store @b, %3
  emit_vertex stream=1
}
";
    let ir = spirv_gen::text::parse(src).unwrap();
    for target in [Target::Vulkan1_3, Target::Vulkan1_1] {
        let env = common::env(target);
        let words = spirv_gen::emit::emit(&ir, target).unwrap();
        let layout = XfbLayout {
            strides: [32, 8, 0, 0],
            buffers: 0b11,
            streams: 0b11,
        };
        assert_eq!(
            xfb_layout(&words, Stage::Geometry, "main").unwrap(),
            Some(layout)
        );
        let which = XfbBuiltins {
            position: true,
            ..XfbBuiltins::default()
        };
        let out = xfb_copy_builtins(&words, "main", which).unwrap();
        validate(&out, env, "geometry copy");
        assert_eq!(
            xfb_layout(&out, Stage::Geometry, "main").unwrap(),
            Some(layout)
        );
        // One copy store before each of the two vertices.
        let m = dr::load_words(&out).unwrap();
        let body: Vec<&dr::Instruction> = m
            .functions
            .iter()
            .flat_map(|f| &f.blocks)
            .flat_map(|b| &b.instructions)
            .collect();
        let copy = output_decorations(&out)
            .into_iter()
            .find(|(_, d)| d.contains(&(Decoration::Location, Some(2))))
            .map(|(id, _)| id)
            .expect("a copy at location 2");
        let stores = body
            .iter()
            .filter(|i| i.class.opcode == Op::Store && i.operands[0] == Operand::IdRef(copy))
            .count();
        assert_eq!(stores, 2, "{}", disassemble(&out));
    }
}

/// The instructions of opcode `op` in a module's functions.
fn count_op(words: &[u32], op: Op) -> usize {
    dr::load_words(words)
        .unwrap()
        .functions
        .iter()
        .flat_map(|f| &f.blocks)
        .flat_map(|b| &b.instructions)
        .filter(|i| i.class.opcode == op)
        .count()
}

/// GL's fixed-function fragment state patched into fragment shaders of
/// every shape at hand (spirv-gen's SPIR-V 1.3 and 1.6, glslang's 1.0
/// with an input block, an early return and a function variable): each
/// validates, discards where it should (one discard at the start, or
/// one per return for the alpha test), reads the driver's constant
/// buffer at its binding, and stacks with the others.
#[test]
fn fixed_function_fragment_tests() {
    use spirv_gen::binding::{self, DescClass};
    use spirv_gen::ir::Stage;
    use spirv_gen::passes::CompareFunc;
    use spirv_gen::patch::{alpha_test, pixel_center_integer, polygon_stipple, window_rects};
    let ir = "shader fragment
in @c : f32x4 location=0
out @frag : f32x4 location=0
fn main {
  %0 : f32x4 = load @c
  store @frag, %0
}
";
    let ir = spirv_gen::text::parse(ir).unwrap();
    let mut shaders: Vec<(Vec<u32>, TargetEnv, usize)> = Vec::new();
    for target in [Target::Vulkan1_1, Target::Vulkan1_3] {
        let env = common::env(target);
        shaders.push((spirv_gen::emit::emit(&ir, target).unwrap(), env, 1));
    }
    for env in [TargetEnv::Vulkan_1_0, TargetEnv::Vulkan_1_3] {
        shaders.push((probe("early_return", env), env, 2));
        // OpLine among the entry block's variables (DXC's shape), returns
        // in a loop, a switch and an unreachable merge block.
        shaders.push((probe("opline", env), env, 1));
        shaders.push((probe("loopret", env), env, 3));
        shaders.push((probe("unreach", env), env, 3));
        shaders.push((
            assemble(
                include_str!("../../tests/src/cases/input_block_spirv.spvasm"),
                env,
            ),
            env,
            1,
        ));
    }
    let (set, bind) =
        binding::binding_for(DescClass::Ubo, Stage::Fragment, binding::DRIVER_UBO_SLOT).unwrap();
    for (words, env, returns) in shaders {
        let kills = |w: &[u32]| count_op(w, Op::Kill) + count_op(w, Op::TerminateInvocation);
        let before = kills(&words);
        let stippled = polygon_stipple(&words, "main").unwrap();
        validate(&stippled, env, "polygon stipple");
        assert_eq!(kills(&stippled), before + 1);
        let ubo = spirv_gen::patch::ir_resources(&stippled, Stage::Fragment, "main").unwrap();
        assert!(
            ubo.iter().any(|r| matches!(
                r,
                spirv_gen::patch::IrResource::Ubo { slot } if *slot == binding::DRIVER_UBO_SLOT
            )),
            "{ubo:?} (set {set} binding {bind})"
        );
        for (include, count) in [(true, 0), (true, 3), (false, 8)] {
            let w = window_rects(&words, "main", include, count).unwrap();
            validate(&w, env, &format!("window rects {include} {count}"));
            assert_eq!(kills(&w), before + 1);
        }
        assert!(window_rects(&words, "main", true, 9).is_err());
        for f in [CompareFunc::Less, CompareFunc::Never, CompareFunc::Notequal] {
            let w = alpha_test(&words, "main", f, 0.5).unwrap();
            validate(&w, env, &format!("alpha test {f:?}"));
            assert_eq!(kills(&w), before + returns, "{}", disassemble(&w));
        }
        assert_eq!(
            alpha_test(&words, "main", CompareFunc::Always, 0.5).unwrap(),
            words
        );
        let centred = pixel_center_integer(&words, "main").unwrap();
        validate(&centred, env, "pixel centres");
        // All of them, in pipe-vk's order.
        let mut w = pixel_center_integer(&words, "main").unwrap();
        w = window_rects(&w, "main", false, 2).unwrap();
        w = polygon_stipple(&w, "main").unwrap();
        w = alpha_test(&w, "main", CompareFunc::Gequal, 0.25).unwrap();
        validate(&w, env, "all");
        assert_eq!(kills(&w), before + 2 + returns);
    }
    // No vec4 colour output at location 0: refused, unless no alpha is
    // read.
    let fs = assemble(
        &include_str!("patch/early_return.spvasm")
            .replace("OpDecorate %frag Location 0", "OpDecorate %frag Location 1"),
        TargetEnv::Vulkan_1_0,
    );
    assert!(alpha_test(&fs, "main", CompareFunc::Less, 0.5)
        .unwrap_err()
        .msg
        .contains("colour output"));
    assert!(alpha_test(&fs, "main", CompareFunc::Never, 0.5).is_ok());
}

/// `demote_discards` first: the tests patched in at the start demote
/// the fragment and branch on (no kill added; the alpha test at the
/// returns still kills), the capability is declared once, the extension
/// only before SPIR-V 1.6; patching twice changes nothing. Valid for
/// Vulkan 1.3, where pipe-vk applies it.
#[test]
fn fixed_function_tests_demote() {
    use spirv_gen::passes::CompareFunc;
    use spirv_gen::patch::{alpha_test, demote_discards, polygon_stipple, window_rects};
    let ir = spirv_gen::text::parse(
        "shader fragment
in @c : f32x4 location=0
out @frag : f32x4 location=0
fn main {
  %0 : f32x4 = load @c
  store @frag, %0
}
",
    )
    .unwrap();
    let env = TargetEnv::Vulkan_1_3;
    let shaders = [
        (spirv_gen::emit::emit(&ir, Target::Vulkan1_3).unwrap(), 1),
        (spirv_gen::emit::emit(&ir, Target::Vulkan1_1).unwrap(), 1),
        (probe("early_return", TargetEnv::Vulkan_1_0), 2),
        (probe("loopret", TargetEnv::Vulkan_1_0), 3),
    ];
    for (words, returns) in shaders {
        let kills = |w: &[u32]| count_op(w, Op::Kill) + count_op(w, Op::TerminateInvocation);
        let before = kills(&words);
        let d = demote_discards(&words, "main").unwrap();
        assert_eq!(demote_discards(&d, "main").unwrap(), d);
        let mut w = window_rects(&d, "main", false, 2).unwrap();
        w = polygon_stipple(&w, "main").unwrap();
        w = alpha_test(&w, "main", CompareFunc::Gequal, 0.25).unwrap();
        validate(&w, env, "demoting tests");
        assert_eq!(count_op(&w, Op::DemoteToHelperInvocation), 2);
        assert_eq!(kills(&w), before + returns, "{}", disassemble(&w));
        let m = dr::load_words(&w).unwrap();
        let v16 = m.header.as_ref().unwrap().version() >= (1, 6);
        let ext = m.extensions.iter().any(|i| {
            i.operands.first()
                == Some(&Operand::LiteralString(
                    "SPV_EXT_demote_to_helper_invocation".into(),
                ))
        });
        assert_eq!(ext, !v16, "{}", disassemble(&w));
        // Not worth it in these modules: no implicit-LOD sampling.
        assert!(!spirv_gen::patch::demote_worthwhile(&words));
        // Without it, the same tests kill.
        let k = window_rects(&words, "main", false, 2).unwrap();
        assert_eq!(count_op(&k, Op::DemoteToHelperInvocation), 0);
        assert_eq!(kills(&k), before + 1);
    }
}

/// `demote_worthwhile` on modules: implicit-LOD sampling says yes, an
/// atomic or `HelperInvocation` no, explicit LOD no.
#[test]
fn demote_worthwhile_modules() {
    let src = common::DEMOTE_FS_TEMPLATE;
    let words = |op: &str, extra: &str| {
        let ir = spirv_gen::text::parse(&src.replace("OP", op).replace("EXTRA", extra)).unwrap();
        spirv_gen::emit::emit(&ir, Target::Vulkan1_3).unwrap()
    };
    use spirv_gen::patch::demote_worthwhile;
    assert!(demote_worthwhile(&words("tex @t, coord=%0", "")));
    assert!(!demote_worthwhile(&words("txl @t, coord=%0, lod=%5", "")));
    let atomic = "  %9 : u32 = const 0\n  %8 : u32 = ssbo_atomic @b, %9, %9, op=add\n";
    assert!(!demote_worthwhile(&words("tex @t, coord=%0", atomic)));
    let helper = "  %7 : bool = is_helper\n";
    assert!(!demote_worthwhile(&words("tex @t, coord=%0", helper)));
    assert!(!demote_worthwhile(&[0x0723_0203, 0x0001_0000, 0, 10, 0, 0]));
}

/// Descriptor arrays (GL's consecutive binding points): read as one
/// resource per element, split into one variable per element at
/// consecutive bindings, on SPIR-V 1.0 and (with every global in the
/// interface) 1.6; dynamic indices (also in a loop) unrolled into a
/// switch per access.
/// The texture and uniform buffer slots of `r`, sorted.
fn slots(r: &[spirv_gen::patch::IrResource]) -> (Vec<u32>, Vec<u32>) {
    use spirv_gen::patch::IrResource;
    let mut t = Vec::new();
    let mut u = Vec::new();
    for r in r {
        match r {
            IrResource::Texture(x) => t.push(x.slot),
            IrResource::Ubo { slot } => u.push(*slot),
            _ => panic!("{r:?}"),
        }
    }
    t.sort();
    u.sort();
    (t, u)
}

#[test]
fn descriptor_arrays_by_element() {
    use spirv_gen::ir::Stage;
    use spirv_gen::patch::{ir_resources, split_descriptor_arrays};
    let text = include_str!("../../tests/src/cases/arrays_spirv.spvasm");
    let v16 = text.replace(
        "OpEntryPoint Fragment %main \"main\" %frag %uv %idx",
        "OpEntryPoint Fragment %main \"main\" %frag %uv %idx %s %ubos",
    );
    for (src, env) in [
        (text.to_string(), TargetEnv::Vulkan_1_0),
        (v16, TargetEnv::Vulkan_1_3),
    ] {
        let w = assemble(&src, env);
        validate(&w, env, "arrays");
        assert_eq!(
            slots(&ir_resources(&w, Stage::Fragment, "main").unwrap()),
            (vec![2, 3, 4], vec![1, 2])
        );
        let out = split_descriptor_arrays(&w, Stage::Fragment, "main").unwrap();
        validate(&out, env, "split");
        // The elements used: textures 2 and 4, buffer 2.
        assert_eq!(
            slots(&ir_resources(&out, Stage::Fragment, "main").unwrap()),
            (vec![2, 4], vec![2]),
            "{}",
            disassemble(&out)
        );
        // No descriptor variable of an array type is left.
        let m = dr::load_words(&out).unwrap();
        let global = |id: u32| {
            m.types_global_values
                .iter()
                .find(|i| i.result_id == Some(id))
        };
        let pointee = |v: &dr::Instruction| match global(v.result_type?)?.operands.get(1) {
            Some(Operand::IdRef(t)) => global(*t),
            _ => None,
        };
        assert!(m
            .types_global_values
            .iter()
            .filter(|i| i.class.opcode == Op::Variable)
            .filter_map(pointee)
            .all(|t| t.class.opcode != Op::TypeArray));
        // Nothing to split: unchanged.
        let plain = probe("early_return", env);
        assert_eq!(
            split_descriptor_arrays(&plain, Stage::Fragment, "main").unwrap(),
            plain
        );
    }
    // Dynamic indices: the sampled texture and the uniform buffer's
    // value, each repeated per element in a switch.
    let dynamic = text
        .replace(
            "%p2 = OpAccessChain %psi %s %int_2",
            "%iv = OpLoad %int %idx\n%p2 = OpAccessChain %psi %s %iv",
        )
        .replace(
            "%pu = OpAccessChain %pv4u %ubos %int_1 %int_0",
            "%pu = OpAccessChain %pv4u %ubos %iv %int_0",
        );
    let w = assemble(&dynamic, TargetEnv::Vulkan_1_0);
    assert_eq!(
        slots(&ir_resources(&w, Stage::Fragment, "main").unwrap()),
        (vec![2, 3, 4], vec![1, 2])
    );
    let out = split_descriptor_arrays(&w, Stage::Fragment, "main").unwrap();
    validate(&out, TargetEnv::Vulkan_1_0, "dynamic indices");
    // The buffer's access lies among the texture's repeated
    // instructions: one switch for the texture, one per copy of it.
    assert_eq!(count_op(&out, Op::Switch), 4, "{}", disassemble(&out));
    assert_eq!(
        slots(&ir_resources(&out, Stage::Fragment, "main").unwrap()),
        (vec![2, 3, 4], vec![1, 2])
    );
    // The loop of glslang's shape: the body repeats per element.
    let looped = include_str!("../../tests/src/cases/array_loop_spirv.spvasm");
    assert_eq!(
        words_of(include_bytes!("../../tests/src/cases/array_loop_spirv.spv")),
        assemble(looped, TargetEnv::Vulkan_1_0)
    );
    let looped16 = looped.replace("%frag %uv\n", "%frag %uv %s\n");
    for (src, env) in [
        (looped, TargetEnv::Vulkan_1_0),
        (&looped16[..], TargetEnv::Vulkan_1_3),
    ] {
        let w = assemble(src, env);
        validate(&w, env, "loop itself");
        let out = split_descriptor_arrays(&w, Stage::Fragment, "main").unwrap();
        validate(&out, env, "loop");
        assert_eq!(count_op(&out, Op::ImageSampleImplicitLod), 3);
    }
    // A store between the element's load and its use is repeated with
    // them, in order.
    let store = dynamic.replace(
        "%r2 = OpImageSampleImplicitLod %v4 %t2 %c",
        "OpStore %frag %r0\n%r2 = OpImageSampleImplicitLod %v4 %t2 %c",
    );
    let w = assemble(&store, TargetEnv::Vulkan_1_0);
    let out = split_descriptor_arrays(&w, Stage::Fragment, "main").unwrap();
    validate(&out, TargetEnv::Vulkan_1_0, "a store among them");
}

/// Arrays of arrays of descriptors (`arrays_of_arrays_spirv.spvasm`,
/// glslang's `sampler2D s[2][3]` at texture slot 2 and `ubos[2][2]` at
/// buffer slot 1): `s[i][j]` is at slot `2 + i * 3 + j`, in GL's order.
/// Vulkan refuses the module as it is; split, it validates, its constant
/// `s[1][0]` samples slot 5 alone, and the loop's `s[i][2]` and
/// `ubos[i][1]` are unrolled over the flat arrays. A chain that stops at
/// the outer array, or a constant index out of its inner array's range,
/// is refused by name.
#[test]
fn descriptor_arrays_of_arrays() {
    use spirv_gen::ir::Stage;
    use spirv_gen::patch::{ir_resources, split_descriptor_arrays};
    let text = include_str!("../../tests/src/cases/arrays_of_arrays_spirv.spvasm");
    assert_eq!(
        words_of(include_bytes!(
            "../../tests/src/cases/arrays_of_arrays_spirv.spv"
        )),
        assemble(text, TargetEnv::Vulkan_1_0)
    );
    let w = assemble(text, TargetEnv::Vulkan_1_0);
    let all = (vec![2, 3, 4, 5, 6, 7], vec![1, 2, 3, 4]);
    assert_eq!(
        slots(&ir_resources(&w, Stage::Fragment, "main").unwrap()),
        all
    );
    let out = split_descriptor_arrays(&w, Stage::Fragment, "main").unwrap();
    validate(&out, TargetEnv::Vulkan_1_0, "arrays of arrays");
    assert_eq!(
        slots(&ir_resources(&out, Stage::Fragment, "main").unwrap()),
        all,
        "{}",
        disassemble(&out)
    );
    // One switch per loop access, over the six and four elements.
    assert_eq!(count_op(&out, Op::Switch), 2, "{}", disassemble(&out));
    assert_eq!(count_op(&out, Op::ImageSampleImplicitLod), 1 + 6);
    // Constant indices only: the elements used, at their flat slots.
    let constant = text
        .replace(
            "%42 = OpAccessChain %_ptr_UniformConstant_11 %s %41 %int_2",
            "%42 = OpAccessChain %_ptr_UniformConstant_11 %s %int_0 %int_2",
        )
        .replace(
            "%55 = OpAccessChain %_ptr_Uniform_v4float %ubos %53 %int_1 %int_0",
            "%55 = OpAccessChain %_ptr_Uniform_v4float %ubos %int_1 %int_0 %int_0",
        );
    assert_ne!(constant, text);
    let w = assemble(&constant, TargetEnv::Vulkan_1_0);
    let out = split_descriptor_arrays(&w, Stage::Fragment, "main").unwrap();
    validate(&out, TargetEnv::Vulkan_1_0, "constant indices");
    assert_eq!(
        slots(&ir_resources(&out, Stage::Fragment, "main").unwrap()),
        (vec![4, 5], vec![3])
    );
    // Refusals.
    let partial = text
        .replace(
            "%23 = OpAccessChain %_ptr_UniformConstant_11 %s %int_1 %int_0",
            "%row = OpAccessChain %_ptr_UniformConstant__arr_11_uint_3 %s %int_1\n\
         %23 = OpAccessChain %_ptr_UniformConstant_11 %row %int_0",
        )
        .replace(
            "%_ptr_UniformConstant_11 = OpTypePointer UniformConstant %11",
            "%_ptr_UniformConstant_11 = OpTypePointer UniformConstant %11\n\
         %_ptr_UniformConstant__arr_11_uint_3 = OpTypePointer UniformConstant %_arr_11_uint_3",
        );
    let out_of_range = text.replace("%s %int_1 %int_0", "%s %int_0 %uint_3");
    for (src, want) in [
        (partial, "1 of its 2 indices"),
        (out_of_range, "index 3 out of range"),
    ] {
        let w = assemble(&src, TargetEnv::Vulkan_1_0);
        for e in [
            split_descriptor_arrays(&w, Stage::Fragment, "main").unwrap_err(),
            ir_resources(&w, Stage::Fragment, "main").unwrap_err(),
        ] {
            let e = e.to_string();
            assert!(e.contains(want) && e.contains("array of arrays"), "{e}");
        }
    }
}

/// Smooth and round points on glslang's fragment shaders: colour
/// outputs `o` and an array `o2[2]` each get their alpha weighed (three
/// components inserted); a shader whose only exit is a discard is
/// patched with nothing to weigh or mask (it was an error, failing draws
/// that worked before); both validate, in SPIR-V 1.0 and 1.6.
#[test]
fn smooth_and_round_points_shapes() {
    use spirv_gen::patch::{aliased_points_fs, round_points_fs};
    for env in [TargetEnv::Vulkan_1_0, TargetEnv::Vulkan_1_3] {
        let arr = probe("smooth_arr", env);
        let out = aliased_points_fs(&arr, "main", true).unwrap();
        validate(&out, env, "smooth, colour array");
        assert_eq!(
            count_op(&out, Op::CompositeInsert),
            3,
            "{}",
            disassemble(&out)
        );
        let kill = probe("smooth_kill", env);
        for (what, out) in [
            ("smooth", aliased_points_fs(&kill, "main", true)),
            ("round", round_points_fs(&kill, "main", 4)),
        ] {
            let out = out.unwrap_or_else(|e| panic!("{what}: {e}"));
            validate(&out, env, what);
        }
        let out = round_points_fs(&arr, "main", 8).unwrap();
        validate(&out, env, "round, colour array");
        // A shader reading PointCoord keeps one PointCoord input (an
        // entry point declares a built-in once; the patch added a second).
        let pc = probe("point_coord", env);
        let out = round_points_fs(&pc, "main", 4).unwrap();
        validate(&out, env, "round, PointCoord read");
        assert_eq!(
            disassemble(&out).matches("BuiltIn PointCoord").count(),
            1,
            "{}",
            disassemble(&out)
        );
    }
    // The IR lowering likewise weighs each element of an array output.
    let ir = "shader fragment
out @o : f32x4 location=0
out @o2 : f32x4[2] location=1
fn main {
  %0 : f32x4 = const 1.0, 1.0, 1.0, 1.0
  store @o, %0
  %1 : i32 = const 0
  store @o2, %1, %0
  %2 : i32 = const 1
  store @o2, %2, %0
}
";
    let mut s = spirv_gen::text::parse(ir).unwrap();
    let key = spirv_gen::passes::VariantKey::parse("aliased_points=64.0,smooth_points").unwrap();
    spirv_gen::passes::lower(&mut s, &key).unwrap();
    common::emit_and_validate("IR smooth points, colour array", &s);
    let words = spirv_gen::emit::emit(&s, Target::Vulkan1_3).unwrap();
    // Three colours rebuilt with their alpha weighed at the exit.
    let text = disassemble(&words);
    assert_eq!(text.matches("OpCompositeConstruct").count(), 3, "{text}");
}

/// spirv-opt's shape of a dynamically indexed sampler array
/// (`array_opt_spirv.spvasm`): the element loaded once and sampled in
/// two blocks, the first block's branch depending on the sample. The
/// load is repeated in front of the second block's use, both are
/// unrolled, and the module validates with every element reachable.
/// Both were refused.
#[test]
fn descriptor_arrays_optimized_shape() {
    use spirv_gen::ir::Stage;
    use spirv_gen::patch::{ir_resources, split_descriptor_arrays};
    let text = include_str!("../../tests/src/cases/array_opt_spirv.spvasm");
    assert_eq!(
        words_of(include_bytes!("../../tests/src/cases/array_opt_spirv.spv")),
        assemble(text, TargetEnv::Vulkan_1_0)
    );
    let w = assemble(text, TargetEnv::Vulkan_1_0);
    validate(&w, TargetEnv::Vulkan_1_0, "optimized itself");
    assert_eq!(
        slots(&ir_resources(&w, Stage::Fragment, "main").unwrap()),
        (vec![2, 3, 4, 5], vec![])
    );
    let out = split_descriptor_arrays(&w, Stage::Fragment, "main").unwrap();
    validate(&out, TargetEnv::Vulkan_1_0, "optimized, split");
    assert_eq!(
        slots(&ir_resources(&out, Stage::Fragment, "main").unwrap()),
        (vec![2, 3, 4, 5], vec![])
    );
    // Four cases per sample: the implicit-LOD one and the one repeated
    // in the second block.
    assert_eq!(count_op(&out, Op::Switch), 2, "{}", disassemble(&out));
    assert_eq!(count_op(&out, Op::ImageSampleImplicitLod), 4);
    assert_eq!(count_op(&out, Op::ImageSampleExplicitLod), 4);
    // One instruction using two elements made in another block
    // (`OpSampledImage` of `texs[i]` and `samps[i]`): both are repeated
    // in front of it, and it takes both copies (the second replacement
    // went into the first's copied access chain).
    let w = probe("two_elements", TargetEnv::Vulkan_1_0);
    validate(&w, TargetEnv::Vulkan_1_0, "two elements itself");
    let out = split_descriptor_arrays(&w, Stage::Fragment, "main")
        .unwrap_or_else(|e| panic!("two elements: {e}"));
    validate(&out, TargetEnv::Vulkan_1_0, "two elements, split");
}

/// Accesses in loop header blocks, as spirv-opt leaves `do { } while`
/// (a single-block loop, the header its own continue target) and
/// `while` conditions (pipe-cts draws both): the header's body moves to
/// a block of its own, which is unrolled; each validates, with one
/// switch of four samples. They were refused.
#[test]
fn descriptor_arrays_in_loop_headers() {
    use spirv_gen::ir::Stage;
    use spirv_gen::patch::split_descriptor_arrays;
    for (name, text, spv) in [
        (
            "do-while",
            include_str!("../../tests/src/cases/array_dowhile_spirv.spvasm"),
            &include_bytes!("../../tests/src/cases/array_dowhile_spirv.spv")[..],
        ),
        (
            "while",
            include_str!("../../tests/src/cases/array_while_spirv.spvasm"),
            &include_bytes!("../../tests/src/cases/array_while_spirv.spv")[..],
        ),
    ] {
        let w = assemble(text, TargetEnv::Vulkan_1_0);
        assert_eq!(words_of(spv), w, "{name}: the .spv is not its .spvasm");
        validate(&w, TargetEnv::Vulkan_1_0, name);
        let m = dr::load_words(&w).unwrap();
        let header = m.functions[0]
            .blocks
            .iter()
            .find(|b| {
                b.instructions
                    .iter()
                    .any(|i| i.class.opcode == Op::LoopMerge)
            })
            .unwrap();
        assert!(
            header
                .instructions
                .iter()
                .any(|i| i.class.opcode == Op::ImageSampleImplicitLod),
            "{name}: the sample is no longer in the loop header"
        );
        let out = split_descriptor_arrays(&w, Stage::Fragment, "main")
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        validate(&out, TargetEnv::Vulkan_1_0, name);
        assert_eq!(count_op(&out, Op::Switch), 1, "{}", disassemble(&out));
        assert_eq!(count_op(&out, Op::ImageSampleImplicitLod), 4);
        assert_eq!(count_op(&out, Op::LoopMerge), 1);
    }
    // A review's shapes: OpLines before and between the header's OpPhis
    // (they moved out of the header with the first split), a
    // self-continuing inner header that is the outer loop's continue
    // target, a header that is another loop's merge block, an infinite
    // single-block loop. Each validates.
    for (name, text) in [
        (
            "line before phi",
            include_str!("patch/arrays/q_a_line_before_phi.spvasm"),
        ),
        (
            "line between phis",
            include_str!("patch/arrays/q_d_line_between_phis.spvasm"),
        ),
        (
            "continue target is a loop",
            include_str!("patch/arrays/q_e_cont_is_loop.spvasm"),
        ),
        (
            "merge is a header",
            include_str!("patch/arrays/q_f_merge_is_header.spvasm"),
        ),
        ("infinite", include_str!("patch/arrays/q_g_infinite.spvasm")),
    ] {
        let w = assemble(text, TargetEnv::Vulkan_1_0);
        validate(&w, TargetEnv::Vulkan_1_0, name);
        let out = split_descriptor_arrays(&w, Stage::Fragment, "main")
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        validate(&out, TargetEnv::Vulkan_1_0, name);
    }
    // A header branching to two blocks of the body needs its merge for
    // that branch: refused by name (the split made an unstructured
    // selection).
    let w = assemble(
        include_str!("patch/arrays/q_b_header_cond_no_exit.spvasm"),
        TargetEnv::Vulkan_1_0,
    );
    validate(&w, TargetEnv::Vulkan_1_0, "two body targets");
    let e = split_descriptor_arrays(&w, Stage::Fragment, "main").unwrap_err();
    assert!(e.msg.contains("chooses between blocks"), "{e}");
}

/// Transform feedback layouts the IR's validation would refuse are
/// refused (a stride of 18, a double at offset 4, one buffer from two
/// streams, captured members of an array of blocks), and the mode with
/// nothing captured is a layout of no buffers; a geometry shader's
/// position is copied past a 64-bit output's two locations, keeping its
/// stream.
#[test]
fn transform_feedback_refusals() {
    use spirv_gen::ir::Stage;
    use spirv_gen::patch::{xfb_copy_builtins, xfb_layout, XfbBuiltins};
    let env = TargetEnv::Vulkan_1_0;
    for (name, stage, needle) in [
        ("xfbstride", Stage::Vertex, "multiple of 4"),
        ("xfb64", Stage::Vertex, "multiple of 8"),
        ("gsstream", Stage::Geometry, "streams 0 and 1"),
        ("xfbarr", Stage::Vertex, "array of blocks"),
    ] {
        let w = probe(name, env);
        validate(&w, env, name);
        let e = xfb_layout(&w, stage, "main").unwrap_err().to_string();
        assert!(e.contains(needle), "{name}: {e}");
    }
    let w = probe("xfbnocap", env);
    // pipe-cts's `pipe.streamout.spirv.nothing_captured` draws this.
    assert_eq!(words_of(include_bytes!("patch/xfbnocap.spv")), w);
    let l = xfb_layout(&w, Stage::Vertex, "main").unwrap().unwrap();
    assert_eq!((l.buffers, l.streams), (0, 0));
    let w = probe("gspos", env);
    let which = XfbBuiltins {
        position: true,
        ..XfbBuiltins::default()
    };
    let out = xfb_copy_builtins(&w, "main", which).unwrap();
    validate(&out, env, "gspos copy");
    assert_eq!(
        xfb_layout(&out, Stage::Geometry, "main").unwrap(),
        xfb_layout(&w, Stage::Geometry, "main").unwrap()
    );
}

/// Multisampling off for points in the last vertex stage: after the
/// point size patch, a vertex shader (spirv-gen's, and glslang's with a
/// `gl_PerVertex` block) and a geometry shader pass the clamped size at
/// location 27, flat, and validate; a module using that location, or
/// with no `PointSize`, is refused.
#[test]
fn aliased_points_last_stage() {
    use spirv_gen::binding::ALIASED_POINT_LOCATION;
    use spirv_gen::patch::{aliased_points, point_size};
    let mut modules = Vec::new();
    for target in [Target::Vulkan1_1, Target::Vulkan1_3] {
        for src in [VS_POSITION, GS_TWO_POINTS] {
            let ir = spirv_gen::text::parse(src).unwrap();
            modules.push((
                spirv_gen::emit::emit(&ir, target).unwrap(),
                common::env(target),
            ));
        }
    }
    for env in [TargetEnv::Vulkan_1_0, TargetEnv::Vulkan_1_3] {
        modules.push((assemble(PER_VERTEX_GLSLANG, env), env));
    }
    for (words, env) in modules {
        let sized = point_size(&words, "main", 3.0, true).unwrap();
        let out = aliased_points(&sized, "main", 64.0, false).unwrap();
        validate(&out, env, "aliased points");
        let outs = output_decorations(&out);
        assert!(
            outs.iter().any(|(_, d)| d
                .contains(&(Decoration::Location, Some(ALIASED_POINT_LOCATION)))
                && d.contains(&(Decoration::Flat, None))),
            "{}",
            disassemble(&out)
        );
    }
    // No PointSize.
    let ir = spirv_gen::text::parse(VS_POSITION).unwrap();
    let w = spirv_gen::emit::emit(&ir, Target::Vulkan1_3).unwrap();
    assert!(aliased_points(&w, "main", 64.0, false)
        .unwrap_err()
        .msg
        .contains("PointSize"));
    // Location 27 taken.
    let taken = "shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
out @ps : f32 builtin=point_size
out @x : f32x4 location=27
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  store @x, %0
  %1 : f32 = const 2.0
  store @ps, %1
}
";
    let ir = spirv_gen::text::parse(taken).unwrap();
    let w = spirv_gen::emit::emit(&ir, Target::Vulkan1_3).unwrap();
    assert!(aliased_points(&w, "main", 64.0, false)
        .unwrap_err()
        .msg
        .contains("taken"));
}

/// The descriptor array patches on the shapes a review tried: accesses
/// in a continue target, a selection header, a merge block, a switch
/// case falling through, a loop's merge block; a spec constant or null
/// index; OpInBoundsAccessChain with a copied pointer; a helper
/// function; two dynamic chains in one expression; OpLines in the
/// repeated instructions; a value used in a later block; names and
/// RelaxedPrecision or NonUniform decorations on the chains and loads
/// (which lost their ids); a store and a load of what it stored among
/// the repeated instructions (the load was moved before the store).
/// Each validates after the split, and the store stays before the load.
/// Refused, and fast: an index read from an element (`b[b[b[i].x].x]`,
/// whose copies multiplied by 32 at each level).
#[test]
fn descriptor_arrays_review_shapes() {
    use spirv_gen::ir::Stage;
    use spirv_gen::patch::{ir_resources, split_descriptor_arrays};
    let valid = [
        ("a_name", include_str!("patch/arrays/a_name.spvasm")),
        ("a_relaxed", include_str!("patch/arrays/a_relaxed.spvasm")),
        ("b_continue", include_str!("patch/arrays/b_continue.spvasm")),
        ("c_selhdr", include_str!("patch/arrays/c_selhdr.spvasm")),
        ("d_merge", include_str!("patch/arrays/d_merge.spvasm")),
        (
            "e_fallthrough",
            include_str!("patch/arrays/e_fallthrough.spvasm"),
        ),
        (
            "f_loopmerge",
            include_str!("patch/arrays/f_loopmerge.spvasm"),
        ),
        ("g_null", include_str!("patch/arrays/g_null.spvasm")),
        ("g_spec", include_str!("patch/arrays/g_spec.spvasm")),
        ("h_copy", include_str!("patch/arrays/h_copy.spvasm")),
        ("i_func", include_str!("patch/arrays/i_func.spvasm")),
        ("j_two", include_str!("patch/arrays/j_two.spvasm")),
        ("k_line", include_str!("patch/arrays/k_line.spvasm")),
        (
            "m_constname",
            include_str!("patch/arrays/m_constname.spvasm"),
        ),
        ("n_esc", include_str!("patch/arrays/n_esc.spvasm")),
        ("l_reorder", include_str!("patch/arrays/l_reorder.spvasm")),
        (
            "a_nonuniform",
            include_str!("patch/arrays/a_nonuniform.spvasm"),
        ),
    ];
    for (name, text) in valid {
        let env = if name == "a_nonuniform" {
            TargetEnv::Vulkan_1_2
        } else {
            TargetEnv::Vulkan_1_0
        };
        let w = assemble(text, env);
        validate(&w, env, name);
        let out = split_descriptor_arrays(&w, Stage::Fragment, "main")
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        validate(&out, env, name);
        ir_resources(&w, Stage::Fragment, "main").unwrap_or_else(|e| panic!("{name}: {e}"));
        if name == "l_reorder" {
            // In each case, the sample's store to the function variable
            // comes before the load of it.
            let m = dr::load_words(&out).unwrap();
            let acc = m.functions[0].blocks[0].instructions[0].result_id.unwrap();
            let mut cases = 0;
            for b in m.functions.iter().flat_map(|f| &f.blocks) {
                let at = |op: Op| {
                    b.instructions.iter().rposition(|i| {
                        i.class.opcode == op && i.operands.first() == Some(&Operand::IdRef(acc))
                    })
                };
                let samples = b
                    .instructions
                    .iter()
                    .any(|i| i.class.opcode == Op::ImageSampleImplicitLod);
                if let (true, Some(st), Some(ld)) = (samples, at(Op::Store), at(Op::Load)) {
                    assert!(st < ld, "{}", disassemble(&out));
                    cases += 1;
                }
            }
            assert_eq!(cases, 3, "{}", disassemble(&out));
        }
    }
    for (name, text, needle) in [(
        "n3",
        include_str!("patch/arrays/n3.spvasm"),
        "another descriptor array",
    )] {
        let w = assemble(text, TargetEnv::Vulkan_1_0);
        let t = std::time::Instant::now();
        for e in [
            split_descriptor_arrays(&w, Stage::Fragment, "main").unwrap_err(),
            ir_resources(&w, Stage::Fragment, "main").unwrap_err(),
        ] {
            assert!(e.msg.contains(needle), "{name}: {e}");
        }
        assert!(t.elapsed().as_secs() < 5, "{name}: {:?}", t.elapsed());
    }
}

/// The fragment half of emulated line stipple on the fragment shaders of
/// every shape at hand, for lines and polygon outlines: each validates
/// with one discard more and the stipple position at location 29,
/// noperspective. A shader using location 29, or with push constants of
/// its own, is refused.
#[test]
fn line_stipple_fragment_half() {
    use spirv_gen::binding::STIPPLE_POS_LOCATION;
    use spirv_gen::patch::line_stipple;
    let ir = spirv_gen::text::parse(FS_GREEN).unwrap();
    let mut shaders = Vec::new();
    for target in [Target::Vulkan1_1, Target::Vulkan1_3] {
        shaders.push((
            spirv_gen::emit::emit(&ir, target).unwrap(),
            common::env(target),
        ));
    }
    for env in [TargetEnv::Vulkan_1_0, TargetEnv::Vulkan_1_3] {
        shaders.push((probe("early_return", env), env));
        shaders.push((probe("opline", env), env));
    }
    for (words, env) in shaders {
        let kills = |w: &[u32]| count_op(w, Op::Kill) + count_op(w, Op::TerminateInvocation);
        for polygon in [false, true] {
            let out = line_stipple(&words, "main", polygon).unwrap();
            validate(&out, env, &format!("line stipple, polygon {polygon}"));
            assert_eq!(kills(&out), kills(&words) + 1);
            let m = dr::load_words(&out).unwrap();
            let at = m.annotations.iter().find_map(|a| match a.operands.as_slice() {
                [Operand::IdRef(t), Operand::Decoration(Decoration::Location), Operand::LiteralBit32(l)]
                    if *l == STIPPLE_POS_LOCATION =>
                {
                    Some(*t)
                }
                _ => None,
            });
            let at = at.expect("an input at location 29");
            assert!(m.annotations.iter().any(|a| a.operands
                == [
                    Operand::IdRef(at),
                    Operand::Decoration(Decoration::NoPerspective)
                ]));
        }
    }
    // Location 29 taken; push constants of its own.
    let taken = "shader fragment
in @x : f32x4 location=29
out @frag : f32x4 location=0
fn main {
  %0 : f32x4 = load @x
  store @frag, %0
}
";
    let w =
        spirv_gen::emit::emit(&spirv_gen::text::parse(taken).unwrap(), Target::Vulkan1_3).unwrap();
    assert!(line_stipple(&w, "main", false)
        .unwrap_err()
        .msg
        .contains("taken"));
    let pushes = "shader fragment
push @p size=16
out @frag : f32x4 location=0
fn main {
  %0 : u32 = const 0
  %1 : f32x4 = load_push @p, %0
  store @frag, %1
}
";
    let w =
        spirv_gen::emit::emit(&spirv_gen::text::parse(pushes).unwrap(), Target::Vulkan1_3).unwrap();
    assert!(line_stipple(&w, "main", false)
        .unwrap_err()
        .msg
        .contains("push constants"));
}

/// Inputs (variable, pointee type, location) and the `FragDepth`
/// outputs and `DepthReplacing` modes of a fragment shader.
fn fs_interface(words: &[u32]) -> (Vec<u32>, usize, usize) {
    let m = dr::load_words(words).unwrap();
    let locations: Vec<u32> = m
        .annotations
        .iter()
        .filter(|a| a.operands.get(1) == Some(&Operand::Decoration(Decoration::Location)))
        .filter_map(|a| match a.operands.get(2) {
            Some(Operand::LiteralBit32(l)) => Some(*l),
            _ => None,
        })
        .collect();
    let depth = m
        .annotations
        .iter()
        .filter(|a| a.operands.get(2) == Some(&Operand::BuiltIn(rspirv::spirv::BuiltIn::FragDepth)))
        .count();
    let replacing = m
        .execution_modes
        .iter()
        .filter(|e| {
            e.operands.get(1)
                == Some(&Operand::ExecutionMode(
                    rspirv::spirv::ExecutionMode::DepthReplacing,
                ))
        })
        .count();
    (locations, depth, replacing)
}

/// The fragment halves of polygon-mode edges and of multisampling off
/// (points and triangles), patched into fragment shaders of every shape
/// at hand: each validates, adds one discard at the start and declares
/// its inputs at the driver's locations. Edges share the stipple
/// position with line stipple; the triangles' depth write is left out
/// where the shader writes its own, tests early or runs per sample; a
/// shader's own `PointCoord` reads go through a private copy; a shader
/// using a driver location is refused.
#[test]
fn multisampling_off_and_edge_fragment_patches() {
    use spirv_gen::binding::{
        ALIASED_CLIP_LOCATION, ALIASED_EDGES_LOCATION, ALIASED_POINT_LOCATION, EDGE_MASK_LOCATION,
        STIPPLE_POS_LOCATION,
    };
    use spirv_gen::patch::{
        aliased_points_fs, aliased_triangles_fs, line_stipple, polygon_edges, round_points_fs,
        sample_interpolation,
    };
    let ir = |extra: &str, store: &str| {
        format!(
            "shader fragment{extra}
in @c : f32x4 location=0
in @pc : f32x2 builtin=point_coord
out @frag : f32x4 location=0
out @d : f32 builtin=frag_depth
fn main {{
  %0 : f32x4 = load @c
  %1 : f32x2 = load @pc
  %2 : f32 = swizzle %1, x
  %3 : f32x4 = vec %2, %2, %2, %2
  %4 : f32x4 = fadd %0, %3
  store @frag, %4
{store}}}
"
        )
    };
    let emit = |src: &str, target| {
        let ir = spirv_gen::text::parse(src).unwrap_or_else(|e| panic!("{e}\n{src}"));
        spirv_gen::emit::emit(&ir, target).unwrap()
    };
    let plain = ir("", "").replace("out @d : f32 builtin=frag_depth\n", "");
    let mut shaders: Vec<(Vec<u32>, TargetEnv)> = Vec::new();
    for target in [Target::Vulkan1_1, Target::Vulkan1_3] {
        shaders.push((emit(&plain, target), common::env(target)));
    }
    for env in [TargetEnv::Vulkan_1_0, TargetEnv::Vulkan_1_3] {
        for name in ["early_return", "opline", "loopret", "unreach"] {
            shaders.push((probe(name, env), env));
        }
        shaders.push((
            assemble(
                include_str!("../../tests/src/cases/input_block_spirv.spvasm"),
                env,
            ),
            env,
        ));
    }
    let kills = |w: &[u32]| count_op(w, Op::Kill) + count_op(w, Op::TerminateInvocation);
    let at = |w: &[u32], loc: u32| fs_interface(w).0.iter().filter(|&&l| l == loc).count();
    for (words, env) in &shaders {
        let before = kills(words);
        for points in [false, true] {
            let w = polygon_edges(words, "main", points, false).unwrap();
            validate(&w, *env, &format!("polygon edges, points {points}"));
            assert_eq!(kills(&w), before + 1);
            assert_eq!(
                (at(&w, STIPPLE_POS_LOCATION), at(&w, EDGE_MASK_LOCATION)),
                (1, 1)
            );
        }
        // After polygon line stipple: one input at the stipple position,
        // both discards.
        let w = line_stipple(words, "main", true).unwrap();
        let w = polygon_edges(&w, "main", false, true).unwrap();
        validate(&w, *env, "stipple and edges");
        assert_eq!(kills(&w), before + 2);
        assert_eq!(at(&w, STIPPLE_POS_LOCATION), 1);
        let w = aliased_points_fs(words, "main", false).unwrap();
        validate(&w, *env, "aliased points");
        assert_eq!(kills(&w), before + 1);
        assert_eq!(at(&w, ALIASED_POINT_LOCATION), 1);
        // Round multisampled points: one discard, a SampleMask output.
        for samples in [2u8, 4, 8, 16] {
            let w = round_points_fs(words, "main", samples).unwrap();
            validate(&w, *env, &format!("round points x{samples}"));
            assert_eq!(kills(&w), before + 1);
            assert!(disassemble(&w).contains("BuiltIn SampleMask"));
        }
        assert!(round_points_fs(words, "main", 3).is_err());
        // Smooth points: the same input and discard, and each return
        // weighs the colour outputs' alpha (a component inserted per
        // `vec4` colour output and return).
        let w = aliased_points_fs(words, "main", true).unwrap();
        validate(&w, *env, "smooth points");
        assert_eq!(kills(&w), before + 1);
        assert_eq!(at(&w, ALIASED_POINT_LOCATION), 1);
        assert!(count_op(&w, Op::CompositeInsert) > count_op(words, Op::CompositeInsert));
        for planes in [0u8, 0x01, 0x31, 0xff] {
            let w = aliased_triangles_fs(words, "main", planes).unwrap();
            validate(&w, *env, &format!("aliased triangles, planes {planes:#x}"));
            assert_eq!(kills(&w), before + 1);
            let (locs, depth, replacing) = fs_interface(&w);
            assert_eq!((depth, replacing), (1, 1), "{}", disassemble(&w));
            assert!(locs.contains(&ALIASED_EDGES_LOCATION));
            assert_eq!(locs.contains(&ALIASED_CLIP_LOCATION), planes != 0);
        }
        // All of them stacked, as pipe-vk applies them (edges and
        // triangles never come together, points and triangles neither).
        let mut w = line_stipple(words, "main", true).unwrap();
        w = polygon_edges(&w, "main", true, true).unwrap();
        w = aliased_points_fs(&w, "main", false).unwrap();
        validate(&w, *env, "stacked");
        assert_eq!(kills(&w), before + 3);
    }
    let target = Target::Vulkan1_3;
    let env = common::env(target);
    // PointCoord: the shader's own reads take a private copy, rescaled;
    // the discard reads a new input.
    let w = aliased_points_fs(&emit(&plain, target), "main", false).unwrap();
    let m = dr::load_words(&w).unwrap();
    let point_coord_vars = m
        .annotations
        .iter()
        .filter(|a| {
            a.operands.get(2) == Some(&Operand::BuiltIn(rspirv::spirv::BuiltIn::PointCoord))
        })
        .count();
    assert_eq!(point_coord_vars, 1, "{}", disassemble(&w));
    assert!(disassemble(&w).contains("Private"), "{}", disassemble(&w));
    assert_eq!(count_op(&w, Op::FDiv), 1);
    // No depth write where the shader writes its own, tests early, or
    // runs per sample (after GL's sample shading).
    let own = emit(&ir("", "  %5 : f32 = const 0.5\n  store @d, %5\n"), target);
    let early = emit(
        &ir(" early_fragment_tests", "").replace("out @d : f32 builtin=frag_depth\n", ""),
        target,
    );
    let per_sample = sample_interpolation(&emit(&plain, target), "main").unwrap();
    for (what, words, depth) in [
        ("own depth", own, 1),
        ("early", early, 0),
        ("per sample", per_sample, 0),
    ] {
        let w = aliased_triangles_fs(&words, "main", 0x3).unwrap();
        validate(&w, env, what);
        let (_, d, r) = fs_interface(&w);
        assert_eq!((d, r), (depth, depth), "{what}: {}", disassemble(&w));
    }
    // A shader using a driver location is refused.
    let at_loc = |loc: u32| {
        emit(
            &plain.replace("location=0\nin", &format!("location={loc}\nin")),
            target,
        )
    };
    assert!(aliased_triangles_fs(&at_loc(ALIASED_EDGES_LOCATION), "main", 0).is_err());
    assert!(aliased_triangles_fs(&at_loc(ALIASED_CLIP_LOCATION + 1), "main", 0x10).is_err());
    assert!(aliased_triangles_fs(&at_loc(ALIASED_CLIP_LOCATION + 1), "main", 0).is_ok());
    assert!(aliased_points_fs(&at_loc(ALIASED_POINT_LOCATION), "main", false).is_err());
    assert!(polygon_edges(&at_loc(EDGE_MASK_LOCATION), "main", false, false).is_err());
    assert!(polygon_edges(&at_loc(STIPPLE_POS_LOCATION), "main", false, false).is_err());
}

/// The non-semantic instructions of a module: (DebugInfo instruction
/// number, count) over every `OpExtInst` of a `NonSemantic.` set.
fn nonsemantic_counts(words: &[u32]) -> std::collections::BTreeMap<u32, usize> {
    let mut sets = std::collections::HashSet::new();
    let mut out = std::collections::BTreeMap::new();
    let mut i = 5;
    while i < words.len() {
        let len = (words[i] >> 16) as usize;
        let op = words[i] & 0xffff;
        let inst = &words[i..i + len];
        if op == 11 {
            let name: Vec<u8> = inst[2..]
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .take_while(|&b| b != 0)
                .collect();
            if name.starts_with(b"NonSemantic.") {
                sets.insert(inst[1]);
            }
        }
        if op == 12 && sets.contains(&inst[3]) {
            *out.entry(inst[4]).or_default() += 1;
        }
        i += len;
    }
    out
}

/// glslang `-gVS` shaders (NonSemantic.Shader.DebugInfo.100: source,
/// types, functions, scopes, lines, declarations), through every patch
/// that applies to them: each result validates (spirv-val checks the
/// debug instructions too) and keeps every debug instruction, except,
/// after a descriptor array's split, those about the removed array.
#[test]
fn debug_info_kept() {
    use spirv_gen::passes::CompareFunc;
    use spirv_gen::patch::*;
    // glslang's SPIR-V 1.0 and (for Vulkan 1.3) 1.6.
    for (env, suffix) in [(TargetEnv::Vulkan_1_0, ""), (TargetEnv::Vulkan_1_3, "13")] {
        let vs = probe(&format!("dbg_vs{suffix}"), env);
        validate(&vs, env, "dbg_vs itself");
        let want = nonsemantic_counts(&vs);
        assert!(want.values().sum::<usize>() > 20, "{want:?}");
        let all = XfbBuiltins {
            position: true,
            point_size: true,
            clip_distance: true,
        };
        for (what, out) in [
            ("point size", point_size(&vs, "main", 2.0, true)),
            ("depth range", clip_halfz(&vs, "main")),
            ("clip enables", clip_disable(&vs, "main", 0)),
            (
                "fix-up",
                vertex_fixups(&vs, "main", &[FetchFixup::new(1, VertexFixup::SwapRb)]),
            ),
            ("aliased points", aliased_points(&vs, "main", 64.0, false)),
            ("xfb copies", xfb_copy_builtins(&vs, "main", all)),
        ] {
            let out = out.unwrap_or_else(|e| panic!("{what}: {e}"));
            validate(&out, env, what);
            assert_eq!(
                nonsemantic_counts(&out),
                want,
                "{what}: {}",
                disassemble(&out)
            );
        }
        let fs = probe(&format!("dbg_fs{suffix}"), env);
        validate(&fs, env, "dbg_fs itself");
        let want = nonsemantic_counts(&fs);
        let stage = spirv_gen::ir::Stage::Fragment;
        for (what, out) in [
            ("zero inputs", zero_inputs(&fs, "main", 1)),
            ("unbound outputs", unbound_outputs(&fs, "main", 1)),
            ("per sample", sample_interpolation(&fs, "main")),
            ("pixel centres", pixel_center_integer(&fs, "main")),
            ("polygon stipple", polygon_stipple(&fs, "main")),
            ("window rectangles", window_rects(&fs, "main", true, 2)),
            (
                "alpha test",
                alpha_test(&fs, "main", CompareFunc::Less, 0.5),
            ),
            ("aliased points", aliased_points_fs(&fs, "main", false)),
            ("aliased triangles", aliased_triangles_fs(&fs, "main", 0x3)),
            ("polygon edges", polygon_edges(&fs, "main", false, false)),
        ] {
            let out = out.unwrap_or_else(|e| panic!("{what}: {e}"));
            validate(&out, env, what);
            assert_eq!(
                nonsemantic_counts(&out),
                want,
                "{what}: {}",
                disassemble(&out)
            );
        }
        // For a device that cannot take it: all of it gone, the
        // extension and imports too.
        for (what, w) in [("vs", &vs), ("fs", &fs)] {
            let bare = without_nonsemantic(w).unwrap();
            validate(&bare, env, what);
            let text = disassemble(&bare);
            assert!(
                !text.contains("NonSemantic") && !text.contains("non_semantic"),
                "{text}"
            );
            assert!(text.contains("GLSL.std.450"), "{text}");
            assert!(without_nonsemantic(&bare).is_none());
        }
        // `s[pc.i]`: split into three variables and unrolled; the debug
        // info about the array variable goes, the rest stays.
        let out = split_descriptor_arrays(&fs, stage, "main").unwrap();
        validate(&out, env, "arrays");
        let got = nonsemantic_counts(&out);
        let total = |c: &std::collections::BTreeMap<u32, usize>| c.values().sum::<usize>();
        assert!(
            total(&got) < total(&want) && total(&got) + 3 >= total(&want),
            "{got:?} of {want:?}: {}",
            disassemble(&out)
        );
    }
}

/// Multisampling off: glslang's fragment shader reading `gl_SampleID`,
/// `gl_SamplePosition`, `gl_SampleMaskIn`, a `sample` input and a block
/// with a `sample` member (`patch/sample_inputs.spvasm`, SPIR-V 1.0 and,
/// assembled for it, 1.6): the built-ins become private variables set to
/// 0, (0.5, 0.5) and {1}, no `Sample` decoration is left, and the result
/// validates; a shader without them is unchanged. The IR lowering does
/// the same (`lower_single_sample`).
#[test]
fn single_sample_inputs() {
    use rspirv::spirv::BuiltIn;
    use spirv_gen::patch::single_sample;
    for env in [TargetEnv::Vulkan_1_0, TargetEnv::Vulkan_1_3] {
        // Its interface lists every global, as SPIR-V 1.4+ wants.
        let w = probe("sample_inputs", env);
        validate(&w, env, "sample inputs itself");
        let out = single_sample(&w, "main").unwrap();
        validate(&out, env, "single sample");
        let m = dr::load_words(&out).unwrap();
        let left: Vec<String> = m
            .annotations
            .iter()
            .filter(|a| {
                a.operands.iter().any(|o| {
                    matches!(
                        o,
                        Operand::Decoration(Decoration::Sample)
                            | Operand::BuiltIn(
                                BuiltIn::SampleId | BuiltIn::SamplePosition | BuiltIn::SampleMask
                            )
                    )
                })
            })
            .map(|a| format!("{:?} {:?}", a.class.opcode, a.operands))
            .collect();
        assert!(left.is_empty(), "{left:?}\n{}", disassemble(&out));
        let private = m
            .types_global_values
            .iter()
            .filter(|i| {
                i.class.opcode == Op::Variable
                    && i.operands.first() == Some(&Operand::StorageClass(StorageClass::Private))
            })
            .count();
        assert_eq!(private, 3, "{}", disassemble(&out));
        let text = disassemble(&out);
        assert!(text.contains(" 0.5"), "0.5 stored: {text}");
        // Nothing to change: the words as they were.
        let plain = probe("early_return", env);
        assert_eq!(single_sample(&plain, "main").unwrap(), plain);
        // An array of blocks with a `sample` member: the member
        // decoration (on the element struct) goes too.
        let w = probe("sample_block_array", env);
        let out = single_sample(&w, "main").unwrap();
        validate(&out, env, "single sample, array of blocks");
        assert!(
            !disassemble(&out).contains(" Sample\n"),
            "{}",
            disassemble(&out)
        );
    }
    // The IR lowering: the built-ins become locals, `sample` goes.
    let ir = "shader fragment
in @sid : i32 builtin=sample_id
in @spos : f32x2 builtin=sample_pos
in @smask : i32[1] builtin=sample_mask
in @a : f32x4 location=0 sample
out @frag : f32x4 location=0
fn main {
  %0 : i32 = load @sid
  %1 : f32 = i2f %0
  %2 : f32x2 = load @spos
  %3 : f32 = swizzle %2, x
  %4 : i32 = const 0
  %5 : i32 = load @smask, %4
  %6 : f32 = i2f %5
  %7 : f32x4 = load @a
  %8 : f32x4 = vec %1, %3, %6, %6
  %9 : f32x4 = fadd %7, %8
  store @frag, %9
}
";
    let mut s = spirv_gen::text::parse(ir).unwrap();
    let key = spirv_gen::passes::VariantKey::parse("single_sample").unwrap();
    spirv_gen::passes::lower(&mut s, &key).unwrap();
    let words = spirv_gen::emit::emit(&s, Target::Vulkan1_3).unwrap();
    validate(&words, common::env(Target::Vulkan1_3), "IR single sample");
    let text = disassemble(&words);
    for gone in [
        "SampleId",
        "SamplePosition",
        "BuiltIn SampleMask",
        "Sample\n",
        "SampleRateShading",
    ] {
        assert!(!text.contains(gone), "{gone} left:\n{text}");
    }
}

/// GLSL.std.450 `InterpolateAt*` instructions (76 to 78) in `words`.
fn count_interpolations(words: &[u32]) -> usize {
    let m = dr::load_words(words).unwrap();
    m.functions
        .iter()
        .flat_map(|f| &f.blocks)
        .flat_map(|b| &b.instructions)
        .filter(|i| {
            i.class.opcode == Op::ExtInst
                && matches!(
                    i.operands.get(1),
                    Some(Operand::LiteralExtInstInteger(76..=78))
                )
        })
        .count()
}

/// `zero_inputs(words, mask)`, validated, checking that the fragment
/// shader then reads exactly the locations `reads`.
fn zeroed_reads(words: &[u32], env: TargetEnv, mask: u32, reads: u32, what: &str) -> Vec<u32> {
    use spirv_gen::patch::{interface_locations, zero_inputs};
    let out = zero_inputs(words, "main", mask).unwrap();
    validate(&out, env, what);
    assert_eq!(
        interface_locations(&out, spirv_gen::ir::Stage::Fragment, "main", false).unwrap(),
        reads,
        "{what}: {}",
        disassemble(&out)
    );
    out
}

/// An input array written in part (`zero_inputs`): the written elements
/// become inputs of their own at their locations, with the array's
/// interpolation, and the array a private variable; SPIR-V 1.1 and 1.6
/// validate. The IR lowering does the same (`lower_unwritten_inputs`).
#[test]
fn zeroed_array_elements() {
    use spirv_gen::ir::Stage;
    use spirv_gen::patch::{interface_locations, zero_inputs};
    let fs = "shader fragment
in @a : f32x4[3] location=4 noperspective
out @frag : f32x4 location=0
fn main {
  %0 : i32 = const 2
  %1 : f32x4 = load @a, %0
  store @frag, %1
}
";
    let ir = spirv_gen::text::parse(fs).unwrap();
    for target in [Target::Vulkan1_1, Target::Vulkan1_3] {
        let env = common::env(target);
        let w = spirv_gen::emit::emit(&ir, target).unwrap();
        let out = zeroed_reads(&w, env, 1 << 5, 1 << 4 | 1 << 6, "array written in part");
        assert_eq!(
            decorated(&out, Decoration::NoPerspective),
            2,
            "{}",
            disassemble(&out)
        );
        // Every element written: unchanged; none: zeroed whole.
        assert_eq!(zero_inputs(&w, "main", 1 << 3).unwrap(), w);
        let none = zero_inputs(&w, "main", 0b111 << 4).unwrap();
        assert_eq!(
            interface_locations(&none, Stage::Fragment, "main", false).unwrap(),
            0
        );
    }
    // A block member array written in part (glslang: `in B { vec4 x;
    // flat vec4 arr[2]; }` at location 1): x and arr[0] stay inputs,
    // arr[1] reads zero.
    for env in [TargetEnv::Vulkan_1_0, TargetEnv::Vulkan_1_3] {
        let w = probe("block_array", env);
        validate(&w, env, "block array itself");
        let what = "block member array written in part";
        let out = zeroed_reads(&w, env, 1 << 3, 1 << 1 | 1 << 2, what);
        assert_eq!(
            decorated(&out, Decoration::Flat),
            1,
            "arr[0]'s input keeps Flat: {}",
            disassemble(&out)
        );
    }
    // Matrices written in part (glslang: a block's `mat2 m` at 5..6 and
    // `mat2 loose[2]` at 7..10, columns at 5 and 9 unwritten): rebuilt
    // column by column, element by element; SPIR-V 1.0 and 1.6.
    for env in [TargetEnv::Vulkan_1_0, TargetEnv::Vulkan_1_3] {
        let w = probe("matrix_inputs", env);
        validate(&w, env, "matrix inputs itself");
        let all: u32 = (1..=10).fold(0, |m, l| m | 1 << l);
        let unwritten = 1 << 5 | 1 << 9;
        zeroed_reads(
            &w,
            env,
            unwritten,
            all & !unwritten,
            "matrices written in part",
        );
    }
    // Interpolated at an offset: each written element's own input is
    // interpolated there, and the index selects, in SPIR-V and IR.
    let interp = fs.replace(
        "  %1 : f32x4 = load @a, %0\n",
        "  %9 : f32 = const 0.25\n  %8 : f32x2 = vec %9, %9\n  %1 : f32x4 = interp_at_offset @a, %0, %8\n",
    );
    let ir2 = spirv_gen::text::parse(&interp).unwrap_or_else(|e| panic!("{e}\n{interp}"));
    let w = spirv_gen::emit::emit(&ir2, Target::Vulkan1_3).unwrap();
    let env = common::env(Target::Vulkan1_3);
    let out = zeroed_reads(&w, env, 1 << 5, 1 << 4 | 1 << 6, "interpolated array");
    assert_eq!(count_interpolations(&out), 2, "{}", disassemble(&out));
    let mut s2 = ir2.clone();
    spirv_gen::passes::lower(
        &mut s2,
        &spirv_gen::passes::VariantKey::parse("zero_inputs=0x20").unwrap(),
    )
    .unwrap();
    assert!(!s2.vars.iter().any(|v| v.is_input() && v.name == "a"));
    common::emit_and_validate("IR interpolated array written in part", &s2);
    let words = spirv_gen::emit::emit(&s2, Target::Vulkan1_3).unwrap();
    assert_eq!(count_interpolations(&words), 2, "{}", disassemble(&words));
    // glslang's shapes: an element at a dynamic index, at a constant
    // one, and a component of one (`interpolateAtSample(a[i].y, 0)`);
    // a[1] (location 2) unwritten. Two interpolations each, one per
    // written element; SPIR-V 1.0 and 1.6.
    for env in [TargetEnv::Vulkan_1_0, TargetEnv::Vulkan_1_3] {
        let w = probe("interp_array", env);
        validate(&w, env, "interpolated array itself");
        let out = zeroed_reads(
            &w,
            env,
            1 << 2,
            1 << 1 | 1 << 3 | 1 << 4,
            "glslang interpolations",
        );
        assert_eq!(count_interpolations(&out), 6, "{}", disassemble(&out));
    }
    let mut s = ir.clone();
    spirv_gen::passes::lower(
        &mut s,
        &spirv_gen::passes::VariantKey::parse("zero_inputs=0x20").unwrap(),
    )
    .unwrap();
    let locs: Vec<u32> = s
        .vars
        .iter()
        .filter(|v| v.is_input())
        .filter_map(|v| v.io()?.location)
        .collect();
    assert_eq!(locs, vec![4, 6]);
    common::emit_and_validate("IR array written in part", &s);
}

/// A block with a struct member and an array of blocks written in part
/// (`partial_blocks_fs_spirv.spvasm`: `blk { x; S s { p; q; } }` at 1 to
/// 3, `arr[2] { y; flat ivec4 z; }` at 4 to 7): rebuilt member by member
/// and element by element, the array's `flat` member keeping its
/// decoration, SPIR-V 1.0 and 1.6 valid; a wholly written struct member
/// beside an unwritten one is rebuilt too.
#[test]
fn zeroed_struct_members_and_block_arrays() {
    let text = include_str!("../../tests/src/cases/partial_blocks_fs_spirv.spvasm");
    assert_eq!(
        words_of(include_bytes!(
            "../../tests/src/cases/partial_blocks_fs_spirv.spv"
        )),
        assemble(text, TargetEnv::Vulkan_1_0)
    );
    let all: u32 = (1..=7).fold(0, |m, l| m | 1 << l);
    for env in [TargetEnv::Vulkan_1_0, TargetEnv::Vulkan_1_3] {
        let w = assemble(text, env);
        validate(&w, env, "blocks itself");
        for (unwritten, flat) in [
            (1 << 2 | 1 << 4 | 1 << 7, 1),
            (1 << 1, 0),
            (1 << 4 | 1 << 5, 1),
            (1 << 3 | 1 << 5 | 1 << 7, 0),
        ] {
            let what = format!("blocks, unwritten {unwritten:#x}");
            let out = zeroed_reads(&w, env, unwritten, all & !unwritten, &what);
            assert_eq!(
                decorated(&out, Decoration::Flat),
                flat,
                "{what}: {}",
                disassemble(&out)
            );
        }
    }
}

/// A damaged vector type of 2^32 - 1 components, interpolated (the
/// release-mode damaged-module fuzz found it): the rebuilding of
/// interpolated elements made a list of that many conditions and aborted
/// on memory. Such a type is no vector now: an error or the words back,
/// at once.
#[test]
fn huge_vector_interpolated() {
    let text = include_str!("patch/interp_array.spvasm")
        .replace("OpTypeVector %float 4", "OpTypeVector %float 4294967295");
    let w = assemble(&text, TargetEnv::Vulkan_1_0);
    let t = std::time::Instant::now();
    let _ = spirv_gen::patch::zero_inputs(&w, "main", 1 << 2);
    assert!(t.elapsed().as_secs() < 5, "{:?}", t.elapsed());
}

/// Blocks written in part whose members are interpolated
/// (`InterpolateAt*(blk.m)`): an interpolated member that is written
/// takes an input of its own (also through a chain on into it,
/// `blk.c[1]`), one that is not reads zero (the interpolation becomes a
/// copy of a null), and the block is rebuilt as before. They were left
/// alone, a validation error. An interpolated member written in part
/// stays left alone.
#[test]
fn zeroed_interpolated_members() {
    let text = include_str!("../../tests/src/cases/partial_interp_block_fs_spirv.spvasm");
    assert_eq!(
        words_of(include_bytes!(
            "../../tests/src/cases/partial_interp_block_fs_spirv.spv"
        )),
        assemble(text, TargetEnv::Vulkan_1_0)
    );
    let all: u32 = (1..=4).fold(0, |m, l| m | 1 << l);
    let chained = probe("interp_block", TargetEnv::Vulkan_1_0);
    for (what, w, unwritten, copies) in [
        (
            "a, c[1] written",
            assemble(text, TargetEnv::Vulkan_1_0),
            1 << 2 | 1 << 3,
            1,
        ),
        (
            "b written",
            assemble(text, TargetEnv::Vulkan_1_0),
            1 << 1 | 1 << 3 | 1 << 4,
            1,
        ),
        ("b unwritten, c interpolated", chained.clone(), 1 << 2, 1),
        ("a unwritten", chained, 1 << 1, 0),
    ] {
        validate(&w, TargetEnv::Vulkan_1_0, what);
        let out = zeroed_reads(&w, TargetEnv::Vulkan_1_0, unwritten, all & !unwritten, what);
        assert_eq!(
            count_op(&out, Op::CopyObject),
            copies,
            "{what}: {}",
            disassemble(&out)
        );
    }
    // `c` interpolated (c[1]) and written in part: left alone.
    let w = probe("interp_block", TargetEnv::Vulkan_1_0);
    let out = spirv_gen::patch::zero_inputs(&w, "main", 1 << 3).unwrap();
    assert_eq!(out, w);
}

/// Whether every NonSemantic.Shader.DebugInfo.100 `DebugFunctionDefinition`
/// (101) of `words` is in its function's first block (the debug-info
/// spec's rule; spirv-val 2023.1 does not check it).
fn function_definitions_in_entry_blocks(words: &[u32]) -> bool {
    let mut debug_set = None;
    let mut in_function = false;
    let mut labels = 0;
    let mut i = 5;
    let mut ok = true;
    while i < words.len() {
        let (len, op) = ((words[i] >> 16) as usize, words[i] & 0xffff);
        let inst = &words[i..i + len];
        match op {
            11 => {
                let name: Vec<u8> = inst[2..]
                    .iter()
                    .flat_map(|w| w.to_le_bytes())
                    .take_while(|&b| b != 0)
                    .collect();
                if name == b"NonSemantic.Shader.DebugInfo.100" {
                    debug_set = Some(inst[1]);
                }
            }
            54 => {
                in_function = true;
                labels = 0;
            }
            56 => in_function = false,
            248 => labels += 1,
            12 if in_function && Some(inst[3]) == debug_set && inst[4] == 101 => {
                ok &= labels == 1;
            }
            _ => {}
        }
        i += len;
    }
    ok
}

/// The review's debug-info shapes: a `main` with no variables, whose
/// `DebugFunctionDefinition` must stay in the entry block that the
/// discards at the start replace; glslang `-gVS` of a shader with
/// helper functions, loops, phis, input blocks, sample inputs and a
/// sampler array through every fragment patch; DXC-style code whose
/// unrolled array access turns values into `OpPhi`s, which a debug line
/// must not come before or between.
#[test]
fn debug_info_review_shapes() {
    use spirv_gen::ir::Stage;
    use spirv_gen::passes::CompareFunc;
    use spirv_gen::patch::*;
    // (dbg_rich is SPIR-V 1.0: its interface lists inputs and outputs
    // only.)
    for (env, name) in [
        (TargetEnv::Vulkan_1_0, "dbg_nolocals"),
        (TargetEnv::Vulkan_1_3, "dbg_nolocals"),
        (TargetEnv::Vulkan_1_0, "dbg_rich"),
    ] {
        {
            let w = probe(name, env);
            validate(&w, env, name);
            assert!(function_definitions_in_entry_blocks(&w));
            let mut outs = vec![
                ("polygon stipple", polygon_stipple(&w, "main")),
                ("window rectangles", window_rects(&w, "main", true, 1)),
                ("edges", polygon_edges(&w, "main", true, false)),
                ("aliased points", aliased_points_fs(&w, "main", false)),
                ("aliased triangles", aliased_triangles_fs(&w, "main", 1)),
                ("alpha", alpha_test(&w, "main", CompareFunc::Less, 0.5)),
                ("centres", pixel_center_integer(&w, "main")),
                ("zero", zero_inputs(&w, "main", u32::MAX)),
                ("single sample", single_sample(&w, "main")),
                ("per sample", sample_interpolation(&w, "main")),
                ("unbound", unbound_outputs(&w, "main", 1)),
                (
                    "arrays",
                    split_descriptor_arrays(&w, Stage::Fragment, "main"),
                ),
            ];
            if name == "dbg_nolocals" {
                outs.push(("line stipple", line_stipple(&w, "main", true)));
            }
            for (what, out) in outs {
                let out = out.unwrap_or_else(|e| panic!("{name} {what}: {e}"));
                validate(&out, env, &format!("{name} {what}"));
                assert!(
                    function_definitions_in_entry_blocks(&out),
                    "{name} {what}: DebugFunctionDefinition left the entry block"
                );
            }
        }
    }
    let env = TargetEnv::Vulkan_1_0;
    let w = probe("dbg_phi", env);
    validate(&w, env, "dbg_phi itself");
    let out = split_descriptor_arrays(&w, Stage::Fragment, "main").unwrap();
    validate(&out, env, "dbg_phi split");
}

/// How many variables (`OpDecorate`, not members) of `words` carry `d`.
fn decorated(words: &[u32], d: Decoration) -> usize {
    dr::load_words(words)
        .unwrap()
        .annotations
        .iter()
        .filter(|a| {
            a.class.opcode == Op::Decorate && a.operands.get(1) == Some(&Operand::Decoration(d))
        })
        .count()
}

/// Smooth-line emulation patched into glslang's modules, SPIR-V 1.0 and
/// 1.6, all valid: the vertex shader (position in `gl_PerVertex`) and the
/// line-strip geometry shader get a `vec3` output at location 26; the
/// fragment shaders weigh each colour output's alpha (an array's two
/// elements and the plain one: three components inserted), keep one
/// `FragCoord` where they read their own, and take nothing to weigh where
/// the only exit is a discard. Patching twice is refused (the location is
/// taken). With the ends, the fragment shader reads the distance along
/// the line and its length too.
#[test]
fn smooth_lines_shapes() {
    use spirv_gen::patch::{smooth_lines, smooth_lines_fs};
    let at_26 = |w: &[u32]| disassemble(w).contains("Location 26");
    for env in [TargetEnv::Vulkan_1_0, TargetEnv::Vulkan_1_3] {
        for (what, w) in [
            ("vertex", assemble(GLSLANG, env)),
            ("geometry", probe("gs_lines", env)),
        ] {
            let out = smooth_lines(&w, "main").unwrap_or_else(|e| panic!("{what}: {e}"));
            validate(&out, env, what);
            assert!(at_26(&out), "{what}: {}", disassemble(&out));
            let again = smooth_lines(&out, "main").unwrap_err().to_string();
            assert!(again.contains("location 26 is taken"), "{again}");
        }
        let arr = probe("smooth_arr", env);
        let out = smooth_lines_fs(&arr, "main", 1.5, false, false).unwrap();
        validate(&out, env, "fragment, colour array");
        assert!(at_26(&out));
        assert_eq!(
            count_op(&out, Op::CompositeInsert),
            3,
            "{}",
            disassemble(&out)
        );
        let again = smooth_lines_fs(&out, "main", 1.5, false, false)
            .unwrap_err()
            .to_string();
        assert!(again.contains("location 26 is taken"), "{again}");
        // With the ends: the distance along the line (noperspective, 29)
        // and its length (flat, 28) read too.
        let ends = smooth_lines_fs(&arr, "main", 1.5, true, false).unwrap();
        validate(&ends, env, "fragment with ends");
        let text = disassemble(&ends);
        for loc in ["Location 28", "Location 29", "NoPerspective", "Flat"] {
            assert!(text.contains(loc), "{loc}: {text}");
        }
        // Stippled too: the pattern weighs the coverage along the line
        // (two bits read, two `OpFMod`s).
        let stippled = smooth_lines_fs(&arr, "main", 1.5, true, true).unwrap();
        validate(&stippled, env, "fragment with stippled ends");
        assert_eq!(
            count_op(&stippled, Op::FMod),
            2,
            "{}",
            disassemble(&stippled)
        );
        let taken = smooth_lines_fs(&ends, "main", 1.5, false, false)
            .unwrap_err()
            .to_string();
        assert!(taken.contains("location 26 is taken"), "{taken}");
        let fc = spirv_gen::text::parse(
            "shader fragment
in @fc : f32x4 builtin=frag_coord
out @o : f32x4 location=0
fn main {
  %0 : f32x4 = load @fc
  store @o, %0
}
",
        )
        .unwrap();
        let (target, fc_env) = match env {
            TargetEnv::Vulkan_1_0 => (Target::Vulkan1_1, TargetEnv::Vulkan_1_1),
            _ => (Target::Vulkan1_3, env),
        };
        let own = spirv_gen::emit::emit(&fc, target).unwrap();
        let out = smooth_lines_fs(&own, "main", 1.0, false, false).unwrap();
        validate(&out, fc_env, "fragment reading FragCoord");
        assert_eq!(
            disassemble(&out).matches("BuiltIn FragCoord").count(),
            1,
            "{}",
            disassemble(&out)
        );
        let kill = probe("smooth_kill", env);
        let out = smooth_lines_fs(&kill, "main", 1.0, false, false).unwrap();
        validate(&out, env, "fragment, discard only");
    }
}

/// Votes patched out of an emitted vertex shader (each invocation votes
/// alone, `votes_trivial`): valid for Vulkan 1.1 and 1.3 with no vote
/// instruction and no `GroupNonUniformVote` capability left; the
/// predicate goes through unchanged (`any`, `all`), `vote_eq` is `true`.
/// A module without votes comes back as it was.
#[test]
fn votes_made_trivial() {
    use spirv_gen::patch::votes_trivial;
    let ir = spirv_gen::text::parse(
        "shader vertex
in @vid : i32 builtin=vertex_index
out @gl_pos : f32x4 builtin=position
ssbo @o slot=0
fn main {
  %0 : i32 = load @vid
  %1 : u32 = bitcast %0
  %2 : u32 = const 3
  %3 : bool = ieq %1, %2
  %4 : bool = vote_any %3
  %5 : bool = vote_all %3
  %6 : bool = vote_eq %1
  %7 : u32 = const 1
  %8 : u32 = const 0
  %9 : u32 = bcsel %4, %7, %8
  %10 : u32 = bcsel %5, %7, %8
  %11 : u32 = bcsel %6, %7, %8
  %12 : u32 = iadd %9, %10
  %13 : u32 = iadd %12, %11
  %14 : u32 = const 4
  %15 : u32 = imul %1, %14
  store_ssbo @o, %15, %13
  %16 : f32x4 = const 0.0, 0.0, 0.0, 1.0
  store @gl_pos, %16
}
",
    )
    .unwrap();
    for (target, env) in [
        (Target::Vulkan1_1, TargetEnv::Vulkan_1_1),
        (Target::Vulkan1_3, TargetEnv::Vulkan_1_3),
    ] {
        let w = spirv_gen::emit::emit(&ir, target).unwrap();
        let text = disassemble(&w);
        assert!(text.contains("OpGroupNonUniformAllEqual"), "{text}");
        let out = votes_trivial(&w, true).unwrap();
        validate(&out, env, "votes made trivial");
        let text = disassemble(&out);
        for gone in [
            "OpGroupNonUniformAll ",
            "OpGroupNonUniformAny",
            "OpGroupNonUniformAllEqual",
            "GroupNonUniformVote",
        ] {
            assert!(!text.contains(gone), "{gone} left:\n{text}");
        }
        assert_eq!(count_op(&out, Op::CopyObject), 3, "{text}");
        assert!(text.contains("OpConstantTrue"), "{text}");
        let plain = assemble(GLSLANG, TargetEnv::Vulkan_1_0);
        assert_eq!(votes_trivial(&plain, true).unwrap(), plain);
        // Without `non_uniform`, the GroupNonUniform votes stay.
        assert_eq!(votes_trivial(&w, false).unwrap(), w);
    }
}

const VOTE_KHR: &str = include_str!("../../tests/src/cases/vote_khr_spirv.spvasm");

/// glslang's OpenGL votes (SPV_KHR_subgroup_vote, SPIR-V 1.0) become
/// single-invocation votes whatever `non_uniform` says: valid for Vulkan
/// 1.0 with no KHR vote, capability or extension left, and three copies.
/// The pipe-cts binary is the text assembled.
#[test]
fn khr_votes_made_trivial() {
    use spirv_gen::patch::votes_trivial;
    let w = assemble(VOTE_KHR, TargetEnv::Vulkan_1_0);
    assert_eq!(
        words_of(include_bytes!("../../tests/src/cases/vote_khr_spirv.spv")),
        w
    );
    for non_uniform in [false, true] {
        let out = votes_trivial(&w, non_uniform).unwrap();
        validate(&out, TargetEnv::Vulkan_1_0, "KHR votes made trivial");
        let text = disassemble(&out);
        for gone in ["OpSubgroup", "SubgroupVoteKHR", "SPV_KHR_subgroup_vote"] {
            assert!(!text.contains(gone), "{gone} left:\n{text}");
        }
        assert_eq!(count_op(&out, Op::CopyObject), 3, "{text}");
    }
}
