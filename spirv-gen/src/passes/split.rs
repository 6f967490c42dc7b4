//! Vector splitting where SPIR-V needs it (NIR's `nir_lower_alu_to_scalar`
//! with a filter that picks only what the target cannot express).
//!
//! SPIR-V has a vector form of nearly every ALU operation of the IR, and
//! the emitter handles the shape differences that need no new values (a
//! scalar `bcsel` condition is splatted, `fdot` of scalars is a multiply).
//! What it cannot express are the bitfield operations with one offset and
//! count per component: the IR allows, like NIR's `ubitfield_extract` /
//! `ibitfield_extract` / `bitfield_insert`, an `i32` vector of offsets and
//! counts, while `OpBitFieldUExtract`, `OpBitFieldSExtract` and
//! `OpBitFieldInsert` take scalar `Offset` and `Count` operands applied to
//! every component. Such an instruction is split into one scalar
//! instruction per component (vector sources are read with `swizzle`,
//! scalar ones are shared), and `vec` puts the results back together under
//! the original SSA id, so later uses are untouched.
//!
//! [`super::lower`] runs this pass last; the emitter rejects the unsplit
//! form with an error that names this pass.

use crate::ir::*;

/// Whether an ALU instruction of result type `t` over sources of types
/// `ts` must be split into scalars for SPIR-V.
pub fn needs_split(op: AluOp, t: Type, ts: &[Type]) -> bool {
    let first_scalar_operand = match op {
        AluOp::UbitfieldExtract | AluOp::IbitfieldExtract => 1,
        AluOp::BitfieldInsert => 2,
        _ => return false,
    };
    t.comps > 1 && ts.iter().skip(first_scalar_operand).any(|x| x.comps > 1)
}

/// Splits every instruction that [`needs_split`]; returns whether it
/// changed anything.
pub fn split_vectors(s: &mut Shader) -> bool {
    // Types of all values, to know which sources are vectors.
    let mut types: Vec<Option<Type>> = vec![None; s.next_value as usize];
    let mut any = false;
    walk_instrs(&s.body, &mut |i| {
        if let Some((v, t)) = i.dest {
            if let Some(slot) = types.get_mut(v.0 as usize) {
                *slot = Some(t);
            }
            if let Op::Alu(op, srcs) = &i.op {
                any |= matches!(
                    op,
                    AluOp::UbitfieldExtract | AluOp::IbitfieldExtract | AluOp::BitfieldInsert
                ) && t.comps > 1
                    && srcs.len() > 1;
            }
        }
    });
    if !any {
        return false;
    }
    let mut body = std::mem::take(&mut s.body);
    let changed = split_body(&mut body, s, &types);
    s.body = body;
    changed
}

fn split_body(body: &mut Vec<Node>, s: &mut Shader, types: &[Option<Type>]) -> bool {
    let mut changed = false;
    let mut i = 0;
    while i < body.len() {
        let replacement = match &mut body[i] {
            Node::Instr(ins) => split_instr(ins, s, types),
            Node::If(f) => {
                changed |= split_body(&mut f.then_body, s, types);
                changed |= split_body(&mut f.else_body, s, types);
                None
            }
            Node::Loop(l) => {
                changed |= split_body(&mut l.body, s, types);
                None
            }
            Node::Jump(..) => None,
        };
        match replacement {
            Some(code) => {
                let n = code.len();
                body.splice(i..=i, code);
                i += n;
                changed = true;
            }
            None => i += 1,
        }
    }
    changed
}

/// The scalar sequence replacing `ins`, or `None` when it stays.
fn split_instr(ins: &Instr, s: &mut Shader, types: &[Option<Type>]) -> Option<Vec<Node>> {
    let (dest, t) = ins.dest?;
    let Op::Alu(op, srcs) = &ins.op else {
        return None;
    };
    let ts: Vec<Type> = srcs
        .iter()
        .map(|v| types.get(v.0 as usize).copied().flatten())
        .collect::<Option<Vec<_>>>()?;
    if !needs_split(*op, t, &ts) {
        return None;
    }
    let mk = |dest: Option<(ValueId, Type)>, op: Op| {
        Node::Instr(Instr {
            dest,
            op,
            loc: ins.loc,
        })
    };
    let mut out = Vec::new();
    let mut comps = Vec::with_capacity(t.comps as usize);
    for c in 0..t.comps {
        let mut scalar_srcs = Vec::with_capacity(srcs.len());
        for (&v, st) in srcs.iter().zip(&ts) {
            if st.comps > 1 {
                let x = s.new_value();
                out.push(mk(Some((x, st.scalar())), Op::Swizzle(v, vec![c])));
                scalar_srcs.push(x);
            } else {
                scalar_srcs.push(v);
            }
        }
        let r = s.new_value();
        out.push(mk(Some((r, t.scalar())), Op::Alu(*op, scalar_srcs)));
        comps.push(r);
    }
    out.push(mk(Some((dest, t)), Op::Alu(AluOp::Vec, comps)));
    Some(out)
}
