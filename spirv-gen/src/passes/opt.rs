//! Optimization passes: constant folding (including `if` on a constant
//! condition), copy propagation and dead code elimination.
//!
//! Design: each pass is one linear walk over the structured body (NIR's
//! `nir_opt_constant_folding`, `nir_copy_prop`, `nir_opt_dce`).
//! [`optimize`] runs them to a fixed point (bounded number of rounds).
//! Passes never change what the shader computes for defined inputs, and
//! keep the IR valid.

use crate::ir::*;
use std::collections::{HashMap, HashSet};

/// Runs folding, copy propagation and DCE until nothing changes.
pub fn optimize(s: &mut Shader) {
    for _ in 0..8 {
        let mut progress = constant_fold(s);
        progress |= copy_prop(s);
        progress |= dce(s);
        if !progress {
            break;
        }
    }
}

fn mask(t: Type) -> u64 {
    if t.is_bool() {
        1
    } else if t.bits >= 64 {
        u64::MAX
    } else {
        (1u64 << t.bits) - 1
    }
}

fn sext(b: u64, bits: u8) -> i64 {
    let sh = 64 - bits.min(64) as u32;
    ((b << sh) as i64) >> sh
}

fn to_f(b: u64, t: Type) -> Option<f64> {
    match t.bits {
        32 => Some(f32::from_bits(b as u32) as f64),
        64 => Some(f64::from_bits(b)),
        _ => None,
    }
}

fn from_f(x: f64, t: Type) -> Option<u64> {
    match t.bits {
        32 => Some((x as f32).to_bits() as u64),
        64 => Some(x.to_bits()),
        _ => None,
    }
}

/// Folds one component of an ALU op over constant sources; `None` when
/// the op is not folded.
fn fold_comp(op: AluOp, t: Type, st: Type, a: &[u64]) -> Option<u64> {
    use AluOp::*;
    let m = mask(t);
    let f = |i: usize| to_f(a[i], st);
    let si = |i: usize| sext(a[i], st.bits);
    let r = match op {
        Fadd => from_f(f(0)? + f(1)?, t)?,
        Fsub => from_f(f(0)? - f(1)?, t)?,
        Fmul => from_f(f(0)? * f(1)?, t)?,
        Fneg => from_f(-f(0)?, t)?,
        Fabs => from_f(f(0)?.abs(), t)?,
        Fmin => from_f(f(0)?.min(f(1)?), t)?,
        Fmax => from_f(f(0)?.max(f(1)?), t)?,
        Ffloor => from_f(f(0)?.floor(), t)?,
        Feq => (f(0)? == f(1)?) as u64,
        Fneu => (f(0)? != f(1)?) as u64,
        Flt => (f(0)? < f(1)?) as u64,
        Fge => (f(0)? >= f(1)?) as u64,
        Iadd => a[0].wrapping_add(a[1]) & m,
        Isub => a[0].wrapping_sub(a[1]) & m,
        Imul => a[0].wrapping_mul(a[1]) & m,
        Ineg => a[0].wrapping_neg() & m,
        Iand => a[0] & a[1],
        Ior => a[0] | a[1],
        Ixor => a[0] ^ a[1],
        Inot => !a[0] & m,
        Ishl => a[0].checked_shl((a[1] % t.bits as u64) as u32)? & m,
        Ushr => (a[0] & m).checked_shr((a[1] % t.bits as u64) as u32)?,
        Ishr => (sext(a[0], t.bits) >> (a[1] % t.bits as u64)) as u64 & m,
        Umin => a[0].min(a[1]),
        Umax => a[0].max(a[1]),
        Imin => si(0).min(si(1)) as u64 & m,
        Imax => si(0).max(si(1)) as u64 & m,
        Ieq => (a[0] == a[1]) as u64,
        Ine => (a[0] != a[1]) as u64,
        Ult => (a[0] < a[1]) as u64,
        Uge => (a[0] >= a[1]) as u64,
        Ilt => (si(0) < si(1)) as u64,
        Ige => (si(0) >= si(1)) as u64,
        Band => a[0] & a[1],
        Bor => a[0] | a[1],
        Bxor => a[0] ^ a[1],
        Beq => (a[0] == a[1]) as u64,
        Bnot => (a[0] ^ 1) & 1,
        B2f => from_f(a[0] as f64, t)?,
        B2i => a[0],
        F2b => (f(0)? != 0.0) as u64,
        I2b => (a[0] != 0) as u64,
        I2f => from_f(si(0) as f64, t)?,
        U2f => from_f(a[0] as f64, t)?,
        Mov => a[0],
        _ => return None,
    };
    Some(r & m)
}

fn fold_instr(
    i: &Instr,
    consts: &HashMap<u32, Vec<u64>>,
    types: &HashMap<u32, Type>,
) -> Option<Vec<u64>> {
    let (_, t) = i.dest?;
    let c = |v: &ValueId| consts.get(&v.0);
    match &i.op {
        Op::Alu(op, srcs) => {
            let cs: Vec<&Vec<u64>> = srcs.iter().map(c).collect::<Option<_>>()?;
            let st = *types.get(&srcs.first()?.0)?;
            match op {
                AluOp::Vec => Some(cs.into_iter().flatten().copied().collect()),
                AluOp::Bcsel => {
                    let n = t.comps as usize;
                    Some(
                        (0..n)
                            .map(|k| {
                                let cond = cs[0].get(k).or(cs[0].first()).copied().unwrap_or(0);
                                if cond != 0 {
                                    cs[1][k]
                                } else {
                                    cs[2][k]
                                }
                            })
                            .collect(),
                    )
                }
                _ => {
                    if !matches!(
                        op.sig(),
                        AluSig::Same(..) | AluSig::Cmp(..) | AluSig::Conv(..)
                    ) {
                        return None;
                    }
                    (0..t.comps as usize)
                        .map(|k| {
                            let a: Vec<u64> =
                                cs.iter().map(|v| v.get(k).copied().unwrap_or(0)).collect();
                            fold_comp(*op, t, st, &a)
                        })
                        .collect()
                }
            }
        }
        Op::Swizzle(v, comps) => {
            let cv = c(v)?;
            comps.iter().map(|&k| cv.get(k as usize).copied()).collect()
        }
        Op::Insert(v, x, k) => {
            let mut cv = c(v)?.clone();
            *cv.get_mut(*k as usize)? = *c(x)?.first()?;
            Some(cv)
        }
        _ => None,
    }
}

/// Constant folding. Returns whether anything changed.
pub fn constant_fold(s: &mut Shader) -> bool {
    let mut consts = HashMap::new();
    let mut types = HashMap::new();
    let mut body = std::mem::take(&mut s.body);
    let p = fold_body(&mut body, &mut consts, &mut types);
    s.body = body;
    p
}

fn fold_body(
    body: &mut Vec<Node>,
    consts: &mut HashMap<u32, Vec<u64>>,
    types: &mut HashMap<u32, Type>,
) -> bool {
    let mut progress = false;
    let mut i = 0;
    while i < body.len() {
        match &mut body[i] {
            Node::Instr(ins) => {
                if let Some((v, t)) = ins.dest {
                    types.insert(v.0, t);
                    if !matches!(ins.op, Op::Const(_)) {
                        if let Some(bits) = fold_instr(ins, consts, types) {
                            ins.op = Op::Const(bits);
                            progress = true;
                        }
                    }
                    if let Op::Const(b) = &ins.op {
                        consts.insert(v.0, b.clone());
                    }
                }
            }
            Node::If(f) => {
                if let Some(c) = consts.get(&f.cond.0).and_then(|c| c.first()).copied() {
                    let f = match std::mem::replace(&mut body[i], Node::Jump(Jump::Return, None)) {
                        Node::If(f) => f,
                        _ => unreachable!(),
                    };
                    let taken = if c != 0 { f.then_body } else { f.else_body };
                    // A taken branch containing break/continue still sits in
                    // its loop; splicing keeps the structure valid.
                    body.splice(i..=i, taken);
                    progress = true;
                    continue;
                }
                progress |= fold_body(&mut f.then_body, consts, types);
                progress |= fold_body(&mut f.else_body, consts, types);
            }
            Node::Loop(l) => progress |= fold_body(&mut l.body, consts, types),
            Node::Jump(..) => {}
        }
        i += 1;
    }
    progress
}

/// Copy propagation: uses of `mov`, one-source `vec` and identity
/// swizzles are replaced by their source. Returns whether anything changed.
pub fn copy_prop(s: &mut Shader) -> bool {
    let mut types: HashMap<u32, Type> = HashMap::new();
    let mut copies: HashMap<u32, ValueId> = HashMap::new();
    walk_instrs(&s.body, &mut |i| {
        if let Some((v, t)) = i.dest {
            types.insert(v.0, t);
            let src = match &i.op {
                Op::Alu(AluOp::Mov, s) if s.len() == 1 => Some(s[0]),
                Op::Alu(AluOp::Vec, s) if s.len() == 1 && types.get(&s[0].0) == Some(&t) => {
                    Some(s[0])
                }
                Op::Swizzle(src, comps)
                    if types.get(&src.0) == Some(&t)
                        && comps.iter().enumerate().all(|(k, &c)| k == c as usize) =>
                {
                    Some(*src)
                }
                _ => None,
            };
            if let Some(mut src) = src {
                while let Some(&n) = copies.get(&src.0) {
                    src = n;
                }
                copies.insert(v.0, src);
            }
        }
    });
    if copies.is_empty() {
        return false;
    }
    let mut changed = false;
    let map = |v: ValueId, changed: &mut bool| match copies.get(&v.0) {
        Some(&n) => {
            *changed = true;
            n
        }
        None => v,
    };
    fn rewrite(body: &mut [Node], f: &mut dyn FnMut(ValueId) -> ValueId) {
        for n in body {
            match n {
                Node::Instr(i) => i.map_srcs(&mut *f),
                Node::If(i) => {
                    i.cond = f(i.cond);
                    rewrite(&mut i.then_body, f);
                    rewrite(&mut i.else_body, f);
                }
                Node::Loop(l) => rewrite(&mut l.body, f),
                Node::Jump(..) => {}
            }
        }
    }
    rewrite(&mut s.body, &mut |v| map(v, &mut changed));
    changed
}

/// Dead code elimination: unused side-effect-free instructions, code after
/// a jump, and empty `if`s. Returns whether anything changed.
pub fn dce(s: &mut Shader) -> bool {
    let mut progress = false;
    loop {
        let mut used = HashSet::new();
        fn collect(body: &[Node], used: &mut HashSet<u32>) {
            for n in body {
                match n {
                    Node::Instr(i) => i.for_each_src(|v| {
                        used.insert(v.0);
                    }),
                    Node::If(f) => {
                        used.insert(f.cond.0);
                        collect(&f.then_body, used);
                        collect(&f.else_body, used);
                    }
                    Node::Loop(l) => collect(&l.body, used),
                    Node::Jump(..) => {}
                }
            }
        }
        collect(&s.body, &mut used);
        fn sweep(body: &mut Vec<Node>, used: &HashSet<u32>) -> bool {
            let mut changed = false;
            if let Some(p) = body.iter().position(Node::is_terminator) {
                if p + 1 < body.len() {
                    body.truncate(p + 1);
                    changed = true;
                }
            }
            let before = body.len();
            body.retain(|n| match n {
                Node::Instr(i) => {
                    i.has_side_effects() || i.dest.is_none_or(|(v, _)| used.contains(&v.0))
                }
                Node::If(f) => !(f.then_body.is_empty() && f.else_body.is_empty()),
                _ => true,
            });
            changed |= body.len() != before;
            for n in body.iter_mut() {
                match n {
                    Node::If(f) => {
                        changed |= sweep(&mut f.then_body, used);
                        changed |= sweep(&mut f.else_body, used);
                    }
                    Node::Loop(l) => changed |= sweep(&mut l.body, used),
                    _ => {}
                }
            }
            changed
        }
        if !sweep(&mut s.body, &used) {
            break;
        }
        progress = true;
    }
    progress
}
