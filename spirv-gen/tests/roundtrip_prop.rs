//! Property test: builder-generated shaders print, parse and print back to
//! the same text, validate, and (for a share of cases) pass spirv-val.
mod common;

use proptest::prelude::*;
use spirv_gen::builder::Builder;
use spirv_gen::ir::*;
use spirv_gen::text::{parse, print};
use spirv_gen::validate::validate;

/// Interprets `ops` as a little program for the builder.
fn build(ops: &[u8]) -> Shader {
    let mut b = Builder::new(Stage::Fragment);
    let out = b.output("frag", Type::vec4(), 0);
    let input = b.input("v", Type::vec4(), 0);
    let acc = b.local("acc", Type::vec4());
    let tex = b.texture(
        "t",
        TextureInfo {
            slot: 0,
            dim: Dim::D2,
            arrayed: false,
            ms: false,
            shadow: false,
            sampled: BaseType::Float,
        },
    );
    let first = b.load(input);
    b.store(acc, first);
    // Pools of visible values per type, with a scope stack of their lengths.
    let mut v4 = vec![first];
    let mut f1 = vec![b.const_f32(0.5)];
    let mut bo = vec![b.const_bool(true)];
    let mut i1 = vec![b.const_i32(3)];
    let mut scopes: Vec<(u8, [usize; 4])> = Vec::new();
    let loops = |s: &Vec<(u8, [usize; 4])>| s.iter().filter(|x| x.0 == 0).count();
    for (k, &op) in ops.iter().enumerate() {
        let pick = |v: &Vec<ValueId>, salt: usize| v[(k * 7 + salt) % v.len()];
        match op % 22 {
            0 => f1.push(b.const_f32((k as f32) * 0.25 - 3.0)),
            1 => v4.push(b.const_vec4([k as f32, -1.5, 0.0, 1e-3])),
            2 => {
                let (x, y) = (pick(&v4, 1), pick(&v4, 2));
                v4.push(b.fadd(x, y))
            }
            3 => {
                let (x, y) = (pick(&f1, 1), pick(&f1, 3));
                f1.push(b.fmul(x, y))
            }
            4 => {
                let x = pick(&v4, 0);
                f1.push(b.channel(x, (k % 4) as u8))
            }
            5 => {
                let (a, c) = (pick(&f1, 0), pick(&f1, 1));
                v4.push(b.vec(&[a, c, a, c]))
            }
            6 => {
                let (x, y) = (pick(&f1, 0), pick(&f1, 2));
                bo.push(b.alu_auto(AluOp::Flt, &[x, y]))
            }
            7 if scopes.len() < 4 => {
                let c = pick(&bo, 0);
                b.begin_if(c);
                scopes.push((1, [v4.len(), f1.len(), bo.len(), i1.len()]));
            }
            8 | 9
                if scopes
                    .last()
                    .is_some_and(|s| s.0 != 0 && (op % 22 == 9 || s.0 == 1)) =>
            {
                let (_, l) = scopes.pop().unwrap();
                v4.truncate(l[0]);
                f1.truncate(l[1]);
                bo.truncate(l[2]);
                i1.truncate(l[3]);
                if op % 22 == 8 {
                    b.begin_else().unwrap();
                    scopes.push((2, l));
                } else {
                    b.end_if().unwrap();
                }
            }
            10 if scopes.len() < 4 => {
                b.begin_loop();
                scopes.push((0, [v4.len(), f1.len(), bo.len(), i1.len()]));
            }
            11 if loops(&scopes) > 0 => {
                let c = pick(&bo, 1);
                b.begin_if(c);
                b.jump(if k % 3 == 0 {
                    Jump::Continue
                } else {
                    Jump::Break
                });
                b.end_if().unwrap();
            }
            12 if scopes.last().is_some_and(|s| s.0 == 0) => {
                let c = pick(&bo, 2);
                b.begin_if(c);
                b.jump(Jump::Break);
                b.end_if().unwrap();
                let (_, l) = scopes.pop().unwrap();
                v4.truncate(l[0]);
                f1.truncate(l[1]);
                bo.truncate(l[2]);
                i1.truncate(l[3]);
                b.end_loop().unwrap();
            }
            13 => i1.push(b.const_i32(k as i32 - 10)),
            14 => {
                let (x, y) = (pick(&i1, 0), pick(&i1, 1));
                i1.push(b.iadd(x, y))
            }
            15 => {
                let x = pick(&i1, 0);
                f1.push(b.conv(AluOp::I2f, Type::F32, x))
            }
            16 => {
                let x = pick(&v4, 3);
                b.store(acc, x)
            }
            17 => v4.push(b.load(acc)),
            18 => {
                let (c, x, y) = (pick(&bo, 0), pick(&v4, 0), pick(&v4, 1));
                v4.push(b.bcsel(c, x, y))
            }
            19 => {
                let x = pick(&f1, 0);
                f1.push(b.alu_auto(AluOp::Fsin, &[x]))
            }
            20 => {
                let x = pick(&v4, 2);
                let c = b.swizzle(x, &[1, 0]);
                v4.push(b.tex(
                    Type::vec4(),
                    Tex {
                        op: TexOp::Tex,
                        var: tex,
                        srcs: TexSrcs {
                            coord: Some(c),
                            ..Default::default()
                        },
                        component: 0,
                    },
                ));
            }
            21 if k % 5 == 0 => {
                let c = pick(&bo, 3);
                b.begin_if(c);
                b.jump(if k % 2 == 0 {
                    Jump::Discard
                } else {
                    Jump::Return
                });
                b.end_if().unwrap();
            }
            _ => {}
        }
    }
    while let Some((kind, l)) = scopes.pop() {
        v4.truncate(l[0]);
        if kind == 0 {
            b.jump(Jump::Break);
            b.end_loop().unwrap();
        } else {
            b.end_if().unwrap();
        }
    }
    let r = b.load(acc);
    let x = v4[v4.len() - 1];
    let s = b.fadd(r, x);
    b.store(out, s);
    b.finish().expect("builder program must validate")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn print_parse_print(ops in proptest::collection::vec(any::<u8>(), 0..120)) {
        let s = build(&ops);
        let t = print(&s);
        let p = parse(&t).map_err(|e| TestCaseError::fail(format!("{e}\n{t}")))?;
        prop_assert_eq!(print(&p), t.clone());
        validate(&p).map_err(|e| TestCaseError::fail(format!("{e}\n{t}")))?;
        if ops.len() % 4 == 0 {
            common::emit_and_validate("prop", &p);
            let mut o = p.clone();
            spirv_gen::passes::optimize(&mut o);
            validate(&o).map_err(|e| TestCaseError::fail(format!("after optimize: {e}\n{}", print(&o))))?;
            common::emit_and_validate("prop-opt", &o);
        }
    }
}
