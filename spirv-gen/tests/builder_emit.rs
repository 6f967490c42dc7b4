//! Builder-made shaders, validated and spirv-val'd for both targets.
mod common;

use spirv_gen::builder::Builder;
use spirv_gen::ir::*;
use spirv_gen::validate::validate;

#[test]
fn fragment_texture_and_control_flow() {
    let mut b = Builder::new(Stage::Fragment);
    let uv = b.input("uv", Type::float(32, 2), 0);
    let out = b.output("color", Type::vec4(), 0);
    let t = b.texture(
        "tex",
        TextureInfo {
            slot: 0,
            dim: Dim::D2,
            arrayed: false,
            ms: false,
            shadow: false,
            sampled: BaseType::Float,
        },
    );
    let ubo = b.ubo("ubo", 0, 64);
    let acc = b.local("acc", Type::vec4());
    let c = b.load(uv);
    let s = b.tex(
        Type::vec4(),
        Tex {
            op: TexOp::Tex,
            var: t,
            srcs: TexSrcs {
                coord: Some(c),
                ..Default::default()
            },
            component: 0,
        },
    );
    b.store(acc, s);
    let off = b.const_u32(16);
    let k = b.load_ubo(ubo, Type::vec4(), off);
    let x = b.channel(k, 0);
    let zero = b.const_f32(0.0);
    let cond = b.alu_auto(AluOp::Flt, &[zero, x]);
    b.begin_if(cond);
    let a = b.load(acc);
    let m = b.fmul(a, k);
    b.store(acc, m);
    b.begin_else().unwrap();
    b.jump(Jump::Discard);
    b.end_if().unwrap();
    b.begin_loop();
    let a = b.load(acc);
    let w = b.channel(a, 3);
    let one = b.const_f32(1.0);
    let done = b.alu_auto(AluOp::Fge, &[w, one]);
    b.begin_if(done);
    b.jump(Jump::Break);
    b.end_if().unwrap();
    let a2 = b.alu_auto(AluOp::Fadd, &[w, one]);
    let a3 = b.insert(a, a2, 3);
    b.store(acc, a3);
    b.end_loop().unwrap();
    let r = b.load(acc);
    b.store(out, r);
    let s = b.finish().unwrap();
    validate(&s).unwrap();
    common::emit_and_validate("fragment_texture", &s);
}

#[test]
fn compute_ssbo_atomics_shared_barrier() {
    let mut b = Builder::new(Stage::Compute);
    b.info_mut().local_size = Some([64, 1, 1]);
    let gid = b.builtin(
        "gid",
        false,
        BuiltIn::GlobalInvocationId,
        Type::uint(32, 3),
        None,
    );
    let lid = b.builtin(
        "lidx",
        false,
        BuiltIn::LocalInvocationIndex,
        Type::U32,
        None,
    );
    let buf = b.ssbo("buf", 0);
    let sh = b.shared("tmp", Type::U32, 64);
    let g = b.load(gid);
    let x = b.channel(g, 0);
    let four = b.const_u32(4);
    let off = b.alu_auto(AluOp::Imul, &[x, four]);
    let v = b.load_ssbo(buf, Type::U32, off);
    let li = b.load(lid);
    b.store_index(sh, li, v);
    b.intrinsic(
        None,
        Intrinsic::Barrier {
            exec: Some(Scope::Workgroup),
            mem: Scope::Workgroup,
            modes: MemModes::SHARED,
        },
    );
    let one = b.const_u32(1);
    let old = b
        .intrinsic(
            Some(Type::U32),
            Intrinsic::SharedAtomic {
                var: sh,
                index: li,
                op: AtomicOp::Add,
                data: one,
                compare: None,
            },
        )
        .unwrap();
    let zero = b.const_u32(0);
    b.intrinsic(
        Some(Type::U32),
        Intrinsic::SsboAtomic {
            var: buf,
            offset: zero,
            op: AtomicOp::Umax,
            data: old,
            compare: None,
        },
    );
    let f = b.conv(AluOp::U2f, Type::F32, old);
    let d = b.conv(AluOp::F2f, Type::float(64, 1), f);
    b.store_ssbo(buf, off, d);
    let s = b.finish().unwrap();
    common::emit_and_validate("compute", &s);
}

/// The spirv-val hook really runs: a broken module is rejected.
#[test]
fn spirv_val_rejects_garbage() {
    let mut b = Builder::new(Stage::Compute);
    b.info_mut().local_size = Some([1, 1, 1]);
    let s = b.finish().unwrap();
    let mut words = spirv_gen::emit::emit(&s, spirv_gen::emit::Target::Vulkan1_1).unwrap();
    assert!(common::spirv_val(&words, spirv_gen::emit::Target::Vulkan1_1).is_ok());
    words.truncate(words.len() - 2);
    let e = common::spirv_val(&words, spirv_gen::emit::Target::Vulkan1_1).unwrap_err();
    assert!(!e.is_empty());
    eprintln!("{e}");
}
