//! An application geometry shader's triangle strips, re-emitted one
//! triangle at a time, for the GL emulations that need each triangle's
//! own per-vertex values: multisampling off (`aliased::lower_aliased_gs`,
//! which widens each triangle) and line stipple on polygon-mode lines
//! (`line_stipple::lower_polygon_line_stipple_gs`, which gives each
//! triangle's vertices their place along its outline).
//!
//! [`each_strip_triangle`] turns the shader's outputs into locals (its
//! own writes stay as they are) and declares new outputs like them. At
//! each `emit_vertex` of stream 0 the locals' values go into a ring of
//! the strip's last three vertices; from the strip's third vertex on,
//! the caller's code emits the strip's latest triangle from the ring,
//! as a strip of its own. `end_primitive` starts a new strip. A strip's
//! odd triangles (vertices `t, t + 1, t + 2` with `t` odd) are handed
//! over reordered so that they keep their orientation, as GL draws them
//! (`t + 1, t, t + 2`), and their provoking vertex in its place: with
//! the first vertex provoking, `t, t + 2, t + 1` (a rotation of GL's
//! order).

use super::gl::Emit;
use crate::error::{Error, Result};
use crate::ir::*;

/// One output of the shader, as [`each_strip_triangle`] keeps it.
#[derive(Clone, Debug)]
pub(crate) struct RingOutput {
    /// The last three vertices' values: element `slot * len + j` is
    /// element `j` of the vertex at ring slot `slot` (`len` 1 for a
    /// non-array).
    pub ring: VarId,
    pub io: IoInfo,
    pub ty: Type,
    pub array: Option<u32>,
    /// The new output, where the output stays one.
    pub out: Option<VarId>,
}

/// Emits one triangle from the ring: (emitter, the ring slots of its
/// vertices in order, the shader's outputs).
pub(crate) type OnTriangle<'a> = dyn FnMut(&mut Emit, [ValueId; 3], &[RingOutput]) + 'a;

/// Element `j` of an array's vertex `v` in a ring (`len` elements each).
pub(crate) fn element(e: &mut Emit, v: ValueId, len: u32, j: u32) -> ValueId {
    let n = e.i32(len as i32);
    let base = e.alu(AluOp::Imul, Type::I32, &[v, n]);
    let j = e.i32(j as i32);
    e.alu(AluOp::Iadd, Type::I32, &[base, j])
}

/// Whether every `emit_vertex` and `end_primitive` of `body` is on
/// stream 0.
pub(crate) fn stream0_only(body: &[Node]) -> bool {
    body.iter().all(|n| match n {
        Node::Instr(Instr {
            op:
                Op::Intrinsic(Intrinsic::EmitVertex { stream } | Intrinsic::EndPrimitive { stream }),
            ..
        }) => *stream == 0,
        Node::If(f) => stream0_only(&f.then_body) && stream0_only(&f.else_body),
        Node::Loop(l) => stream0_only(&l.body),
        _ => true,
    })
}

/// Re-emits the triangle strips of the geometry shader `s` (output
/// `triangle_strip`, stream 0 only) one triangle at a time (see the
/// module docs): `on_triangle(e, vertices, outputs)` emits a triangle
/// whose ring slots are `vertices` in order (and `end_primitive`), at
/// most `per_triangle` vertices. Outputs for which `keep` is false are
/// not declared again (the caller reads them from their ring). The
/// shader's own outputs are its variables below `own` (the caller's new
/// outputs come after them). `max_vertices` becomes
/// `per_triangle * (max - 2)` (at least one triangle's).
pub(crate) fn each_strip_triangle(
    s: &mut Shader,
    own: usize,
    keep: &dyn Fn(&IoInfo) -> bool,
    first_provoking: bool,
    per_triangle: u32,
    on_triangle: &mut OnTriangle,
) -> Result<()> {
    if s.stage != Stage::Geometry
        || s.info.gs_output != Some(GsOutput::TriangleStrip)
        || !stream0_only(&s.body)
    {
        return Err(Error::new(
            "strip triangles: the geometry shader must emit triangle strips on stream 0",
        ));
    }
    let olds: Vec<VarId> = (0..own.min(s.vars.len()) as u32)
        .map(VarId)
        .filter(|&v| s.var(v).is_output())
        .collect();
    let mut outputs = Vec::new();
    for old in olds {
        let v = s.var(old).clone();
        let io = v.io().cloned().unwrap_or_default();
        let len = v.array.unwrap_or(1);
        // Renamed (to a name no variable has), so the new output takes
        // the old name.
        let mut name = format!("{}_written", v.name);
        let mut n = 1;
        while s.find_var(&name).is_some() {
            name = format!("{}_written_{n}", v.name);
            n += 1;
        }
        s.vars[old.0 as usize].kind = VarKind::Local;
        s.vars[old.0 as usize].name = name;
        let ring = s.add_var(Variable {
            name: format!("{}_ring", v.name),
            kind: VarKind::Local,
            ty: v.ty,
            array: Some(3 * len),
            inner: None,
        });
        let out = keep(&io).then(|| {
            s.add_var(Variable {
                name: v.name.clone(),
                kind: v.kind.clone(),
                ty: v.ty,
                array: v.array,
                inner: None,
            })
        });
        outputs.push((
            old,
            RingOutput {
                ring,
                io,
                ty: v.ty,
                array: v.array,
                out,
            },
        ));
    }
    let count = s.add_var(Variable {
        name: "strip_vertices".into(),
        kind: VarKind::Local,
        ty: Type::I32,
        array: None,
        inner: None,
    });
    let max = s.info.gs_max_vertices.unwrap_or(3);
    s.info.gs_max_vertices = Some(per_triangle * max.saturating_sub(2).max(1));
    let rings: Vec<RingOutput> = outputs.iter().map(|(_, r)| r.clone()).collect();
    let i32t = Type::I32;
    let mut on_emit = |s: &mut Shader| -> Vec<Node> {
        let mut e = Emit::new(s);
        let c = e.load(count, None);
        let three = e.i32(3);
        let slot = e.alu(AluOp::Imod, i32t, &[c, three]);
        for (old, r) in &outputs {
            match r.array {
                None => {
                    let v = e.load(*old, None);
                    e.store(r.ring, Some(slot), v);
                }
                Some(n) => {
                    for j in 0..n {
                        let jv = e.i32(j as i32);
                        let v = e.load(*old, Some(jv));
                        let at = element(&mut e, slot, n, j);
                        e.store(r.ring, Some(at), v);
                    }
                }
            }
        }
        let one = e.i32(1);
        let c1 = e.alu(AluOp::Iadd, i32t, &[c, one]);
        e.store(count, None, c1);
        let full = e.alu(AluOp::Ige, Type::BOOL, &[c1, three]);
        let outer = std::mem::take(&mut e.out);
        // The strip's triangle t = c1 - 3: vertices t, t + 1, t + 2 at
        // ring slots t % 3, ...
        let mut e = Emit::new(e.s);
        let t = e.alu(AluOp::Isub, i32t, &[c1, three]);
        let slots: Vec<ValueId> = (0..3)
            .map(|k| {
                let kv = e.i32(k);
                let tk = e.alu(AluOp::Iadd, i32t, &[t, kv]);
                e.alu(AluOp::Imod, i32t, &[tk, three])
            })
            .collect();
        let odd_bit = e.alu(AluOp::Iand, i32t, &[t, one]);
        let odd = e.alu(AluOp::Ieq, Type::BOOL, &[odd_bit, one]);
        let pick = |e: &mut Emit, odd_slot: ValueId, even_slot: ValueId| {
            e.alu(AluOp::Bcsel, i32t, &[odd, odd_slot, even_slot])
        };
        let vtx = if first_provoking {
            // Odd: (t, t + 2, t + 1).
            let v1 = pick(&mut e, slots[2], slots[1]);
            let v2 = pick(&mut e, slots[1], slots[2]);
            [slots[0], v1, v2]
        } else {
            // Odd: (t + 1, t, t + 2).
            let v0 = pick(&mut e, slots[1], slots[0]);
            let v1 = pick(&mut e, slots[0], slots[1]);
            [v0, v1, slots[2]]
        };
        on_triangle(&mut e, vtx, &rings);
        let then_body = e.out;
        let mut out = outer;
        out.push(Node::If(Box::new(If {
            cond: full,
            then_body,
            else_body: Vec::new(),
            loc: None,
        })));
        out
    };
    let mut on_end = |s: &mut Shader| -> Vec<Node> {
        let mut e = Emit::new(s);
        let zero = e.i32(0);
        e.store(count, None, zero);
        e.out
    };
    fn walk(
        body: &mut Vec<Node>,
        s: &mut Shader,
        on_emit: &mut dyn FnMut(&mut Shader) -> Vec<Node>,
        on_end: &mut dyn FnMut(&mut Shader) -> Vec<Node>,
    ) {
        let mut i = 0;
        while i < body.len() {
            let code = match &mut body[i] {
                Node::Instr(Instr {
                    op: Op::Intrinsic(Intrinsic::EmitVertex { .. }),
                    ..
                }) => Some(on_emit(s)),
                Node::Instr(Instr {
                    op: Op::Intrinsic(Intrinsic::EndPrimitive { .. }),
                    ..
                }) => Some(on_end(s)),
                Node::If(f) => {
                    walk(&mut f.then_body, s, on_emit, on_end);
                    walk(&mut f.else_body, s, on_emit, on_end);
                    None
                }
                Node::Loop(l) => {
                    walk(&mut l.body, s, on_emit, on_end);
                    None
                }
                _ => None,
            };
            match code {
                Some(code) => {
                    let n = code.len();
                    body.splice(i..=i, code);
                    i += n;
                }
                None => i += 1,
            }
        }
    }
    let mut body = std::mem::take(&mut s.body);
    walk(&mut body, s, &mut on_emit, &mut on_end);
    let mut e = Emit::new(s);
    let zero = e.i32(0);
    e.store(count, None, zero);
    let mut code = e.out;
    code.append(&mut body);
    s.body = code;
    Ok(())
}
