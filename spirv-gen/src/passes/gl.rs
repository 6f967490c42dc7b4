//! GL lowerings: GL semantics Vulkan lacks, turned into plain IR per
//! variant key (as Zink's `zink_compiler.c` and NIR's `nir_lower_*` do).
//!
//! Design: each lowering is a function over the whole shader. They share
//! a few helpers: [`Emit`] builds instruction sequences with fresh SSA ids;
//! [`insert_at_exits`] places code before every `return` and at the end of
//! `main` (alpha test, clip planes); [`insert_before_emits`] does the same
//! before each geometry `emit_vertex`; [`replace_loads`] rewrites every
//! `load` of a variable into a sequence that defines the same SSA id.
//! Lowerings that do not apply to the shader's stage do nothing.
//!
//! Driver values come from the push constant block ([`get_push`],
//! [`push`]) or, for the 128-byte polygon stipple pattern, from the driver
//! constant buffer ([`get_driver_ubo`], [`binding::driver_ubo`]). Line
//! stipple needs a vertex-side pass as well as a fragment one; it lives in
//! [`super::line_stipple`] and its functions are re-exported here.

use super::{CompareFunc, FetchFixup, VertexFixup};
use crate::binding::{self, driver_ubo, push};
use crate::error::{Error, Result};
use crate::ir::*;
use std::collections::HashMap;

pub use super::line_stipple::{line_stipple_gs, lower_line_stipple_fs, lower_line_stipple_gs};

/// A small instruction-sequence builder over a shader's SSA ids.
pub struct Emit<'a> {
    pub s: &'a mut Shader,
    pub out: Vec<Node>,
}

impl<'a> Emit<'a> {
    pub fn new(s: &'a mut Shader) -> Emit<'a> {
        Emit { s, out: Vec::new() }
    }
    pub fn def(&mut self, ty: Type, op: Op) -> ValueId {
        let v = self.s.new_value();
        self.def_as(v, ty, op);
        v
    }
    pub fn def_as(&mut self, v: ValueId, ty: Type, op: Op) {
        self.out.push(Node::Instr(Instr {
            dest: Some((v, ty)),
            op,
            loc: None,
        }));
    }
    pub fn void(&mut self, op: Op) {
        self.out.push(Node::Instr(Instr {
            dest: None,
            op,
            loc: None,
        }));
    }
    pub fn konst(&mut self, ty: Type, bits: Vec<u64>) -> ValueId {
        self.def(ty, Op::Const(bits))
    }
    pub fn f32(&mut self, x: f32) -> ValueId {
        self.konst(Type::F32, vec![x.to_bits() as u64])
    }
    pub fn u32(&mut self, x: u32) -> ValueId {
        self.konst(Type::U32, vec![x as u64])
    }
    pub fn i32(&mut self, x: i32) -> ValueId {
        self.konst(Type::I32, vec![x as u32 as u64])
    }
    pub fn alu(&mut self, op: AluOp, ty: Type, srcs: &[ValueId]) -> ValueId {
        self.def(ty, Op::Alu(op, srcs.to_vec()))
    }
    pub fn load(&mut self, var: VarId, index: Option<ValueId>) -> ValueId {
        let ty = self.s.var(var).ty;
        self.def(ty, Op::Intrinsic(Intrinsic::Load { var, index }))
    }
    pub fn store(&mut self, var: VarId, index: Option<ValueId>, value: ValueId) {
        self.void(Op::Intrinsic(Intrinsic::Store { var, index, value }))
    }
    pub fn swizzle(&mut self, ty: Type, src: ValueId, comps: &[u8]) -> ValueId {
        self.def(
            ty.with_comps(comps.len() as u8),
            Op::Swizzle(src, comps.to_vec()),
        )
    }
}

/// Inserts `make()` before every `return` and at the end of `main` when it
/// falls through.
pub fn insert_at_exits(s: &mut Shader, make: &mut dyn FnMut(&mut Shader) -> Vec<Node>) {
    fn walk(body: &mut Vec<Node>, s: &mut Shader, make: &mut dyn FnMut(&mut Shader) -> Vec<Node>) {
        let mut i = 0;
        while i < body.len() {
            match &mut body[i] {
                Node::Jump(Jump::Return, _) => {
                    let code = make(s);
                    let n = code.len();
                    body.splice(i..i, code);
                    i += n;
                }
                Node::If(f) => {
                    walk(&mut f.then_body, s, make);
                    walk(&mut f.else_body, s, make);
                }
                Node::Loop(l) => walk(&mut l.body, s, make),
                _ => {}
            }
            i += 1;
        }
    }
    let mut body = std::mem::take(&mut s.body);
    walk(&mut body, s, make);
    if !body_terminates(&body) {
        body.extend(make(s));
    }
    s.body = body;
}

/// Inserts `make()` where a vertex's outputs are final: before every
/// `emit_vertex` of a geometry shader, at the exits of other stages.
pub fn insert_at_vertex_end(s: &mut Shader, make: &mut dyn FnMut(&mut Shader) -> Vec<Node>) {
    if s.stage == Stage::Geometry {
        insert_before_emits(s, make);
    } else {
        insert_at_exits(s, make);
    }
}

/// Inserts `make()` before every `emit_vertex`.
pub fn insert_before_emits(s: &mut Shader, make: &mut dyn FnMut(&mut Shader) -> Vec<Node>) {
    fn walk(body: &mut Vec<Node>, s: &mut Shader, make: &mut dyn FnMut(&mut Shader) -> Vec<Node>) {
        let mut i = 0;
        while i < body.len() {
            match &mut body[i] {
                Node::Instr(Instr {
                    op: Op::Intrinsic(Intrinsic::EmitVertex { .. }),
                    ..
                }) => {
                    let code = make(s);
                    let n = code.len();
                    body.splice(i..i, code);
                    i += n;
                }
                Node::If(f) => {
                    walk(&mut f.then_body, s, make);
                    walk(&mut f.else_body, s, make);
                }
                Node::Loop(l) => walk(&mut l.body, s, make),
                _ => {}
            }
            i += 1;
        }
    }
    let mut body = std::mem::take(&mut s.body);
    walk(&mut body, s, make);
    s.body = body;
}

/// Builds the replacement of one `load`: (shader, dest, type, index) → nodes.
pub type LoadRewrite<'a> = dyn FnMut(&mut Shader, ValueId, Type, Option<ValueId>) -> Vec<Node> + 'a;

/// Replaces each `load` of `var` (with its index) by `make(shader, dest,
/// type, index)`, which must define `dest`.
pub fn replace_loads(s: &mut Shader, var: VarId, make: &mut LoadRewrite) {
    fn walk(body: &mut Vec<Node>, s: &mut Shader, var: VarId, make: &mut LoadRewrite) {
        let mut i = 0;
        while i < body.len() {
            match &mut body[i] {
                Node::Instr(Instr {
                    dest: Some((d, t)),
                    op: Op::Intrinsic(Intrinsic::Load { var: v, index }),
                    ..
                }) if *v == var => {
                    let code = make(s, *d, *t, *index);
                    let n = code.len();
                    body.splice(i..=i, code);
                    i += n;
                    continue;
                }
                Node::If(f) => {
                    walk(&mut f.then_body, s, var, make);
                    walk(&mut f.else_body, s, var, make);
                }
                Node::Loop(l) => walk(&mut l.body, s, var, make),
                _ => {}
            }
            i += 1;
        }
    }
    let mut body = std::mem::take(&mut s.body);
    walk(&mut body, s, var, make);
    s.body = body;
}

fn io(builtin: Option<BuiltIn>, location: Option<u32>) -> IoInfo {
    IoInfo {
        builtin,
        location,
        ..Default::default()
    }
}

/// A varying a lowering adds at a fixed `location` (an output when
/// `output`, else an input): the driver's own, see [`binding`]'s
/// `*_LOCATION` constants.
pub(crate) fn driver_varying(
    name: &str,
    location: u32,
    interp: Interp,
    ty: Type,
    output: bool,
) -> Variable {
    let io = IoInfo {
        location: Some(location),
        interp,
        ..Default::default()
    };
    Variable {
        name: name.into(),
        kind: if output {
            VarKind::Output(io)
        } else {
            VarKind::Input(io)
        },
        ty,
        array: None,
        inner: None,
    }
}

/// The input named like the driver varying `var` (an earlier run of the
/// lowering added it), else `var`, added.
pub(crate) fn driver_input(s: &mut Shader, var: Variable) -> VarId {
    match s
        .vars
        .iter()
        .position(|v| v.is_input() && v.name == var.name)
    {
        Some(i) => VarId(i as u32),
        None => s.add_var(var),
    }
}

/// Finds or adds a built-in input/output.
pub fn get_builtin(
    s: &mut Shader,
    output: bool,
    b: BuiltIn,
    ty: Type,
    array: Option<u32>,
) -> VarId {
    if let Some(v) = s.find_builtin(output, b) {
        return v;
    }
    let info = io(Some(b), None);
    let kind = if output {
        VarKind::Output(info)
    } else {
        VarKind::Input(info)
    };
    s.add_var(Variable {
        name: b.name().into(),
        kind,
        ty,
        array,
        inner: None,
    })
}

/// Finds or adds the push constant block, at least [`push::SIZE`] bytes.
pub fn get_push(s: &mut Shader) -> VarId {
    for (i, v) in s.vars.iter_mut().enumerate() {
        if let VarKind::Push { size } = &mut v.kind {
            *size = (*size).max(push::SIZE);
            return VarId(i as u32);
        }
    }
    s.add_var(Variable {
        name: "pc".into(),
        kind: VarKind::Push { size: push::SIZE },
        ty: Type::U32,
        array: None,
        inner: None,
    })
}

/// Finds or adds the driver constant buffer (Gallium constant buffer
/// [`binding::DRIVER_UBO_SLOT`]), at least [`driver_ubo::SIZE`] bytes. A
/// constant buffer the shader itself declares at that slot is an error:
/// the slot is reserved.
pub fn get_driver_ubo(s: &mut Shader) -> Result<VarId> {
    const NAME: &str = "driver_ubo";
    for (i, v) in s.vars.iter_mut().enumerate() {
        if let VarKind::Ubo { slot, size } = &mut v.kind {
            if *slot == binding::DRIVER_UBO_SLOT {
                if v.name != NAME {
                    return Err(Error::new(format!(
                        "constant buffer slot {} (@{}) is reserved for the driver",
                        binding::DRIVER_UBO_SLOT,
                        v.name
                    )));
                }
                *size = (*size).max(driver_ubo::SIZE);
                return Ok(VarId(i as u32));
            }
        }
    }
    Ok(s.add_var(Variable {
        name: NAME.into(),
        kind: VarKind::Ubo {
            slot: binding::DRIVER_UBO_SLOT,
            size: driver_ubo::SIZE,
        },
        ty: Type::U32,
        array: None,
        inner: None,
    }))
}

fn color_output(s: &Shader) -> Option<VarId> {
    s.vars
        .iter()
        .position(|v| {
            v.is_output()
                && v.io()
                    .is_some_and(|io| io.location == Some(0) && io.builtin.is_none())
                && v.ty == Type::vec4()
        })
        .map(|i| VarId(i as u32))
}

/// Colour outputs with no colour buffer: the fragment outputs (not
/// built-ins) at the locations in `mask` become function-local variables,
/// so stores and loads stay valid and nothing reaches the interface (a
/// Vulkan output with no attachment, or with an unused one, draws
/// validation complaints; GL discards the values).
pub fn lower_unbound_outputs(s: &mut Shader, mask: u8) {
    if s.stage != Stage::Fragment {
        return;
    }
    for v in s.vars.iter_mut() {
        let unbound = matches!(&v.kind, VarKind::Output(io)
            if io.builtin.is_none()
                && io.location.is_some_and(|l| l < 8 && mask & (1 << l) != 0));
        if unbound {
            v.kind = VarKind::Local;
        }
    }
}

/// Alpha test: at every exit, discard when `color0.a <func> ref` fails.
pub fn lower_alpha_test(s: &mut Shader, func: CompareFunc, reference: f32) -> Result<()> {
    if s.stage != Stage::Fragment || func == CompareFunc::Always {
        return Ok(());
    }
    let color = color_output(s)
        .ok_or_else(|| Error::new("alpha test: no f32x4 colour output at location 0"))?;
    insert_at_exits(s, &mut |s| {
        let mut e = Emit::new(s);
        if func == CompareFunc::Never {
            e.out.push(Node::Jump(Jump::Discard, None));
            return e.out;
        }
        let c = e.load(color, None);
        let a = e.swizzle(Type::vec4(), c, &[3]);
        let r = e.f32(reference);
        let b = Type::BOOL;
        let pass = match func {
            CompareFunc::Less => e.alu(AluOp::Flt, b, &[a, r]),
            CompareFunc::Lequal => e.alu(AluOp::Fge, b, &[r, a]),
            CompareFunc::Greater => e.alu(AluOp::Flt, b, &[r, a]),
            CompareFunc::Gequal => e.alu(AluOp::Fge, b, &[a, r]),
            CompareFunc::Equal => e.alu(AluOp::Feq, b, &[a, r]),
            _ => e.alu(AluOp::Fneu, b, &[a, r]),
        };
        let fail = e.alu(AluOp::Bnot, b, &[pass]);
        e.out.push(Node::If(Box::new(If {
            cond: fail,
            then_body: vec![Node::Jump(Jump::Discard, None)],
            else_body: vec![],
            loc: None,
        })));
        e.out
    });
    Ok(())
}

/// User clip planes: `ClipDistance[i] = dot(position, plane[i])` with the
/// planes read from the push constants ([`push::CLIP_PLANES`]).
///
/// A shader that writes `ClipDistance` itself (`gl_ClipDistance`) keeps
/// its distances, but GL uses distance `i` only when bit `i` of `mask` is
/// set (`GL_CLIP_DISTANCEi`) where Vulkan uses every one written: the
/// others are overwritten with 1 (inside), as `nir_lower_clip_disable`
/// does. This runs for such a shader even when `mask` is 0.
pub fn lower_clip_planes(s: &mut Shader, mask: u8) -> Result<()> {
    if !s.stage.is_pre_raster() {
        return Ok(());
    }
    if let Some(clip) = s.find_builtin(true, BuiltIn::ClipDistance) {
        let n = s.var(clip).array.unwrap_or(1).min(8);
        if (0..n).all(|i| mask & (1 << i) != 0) {
            return Ok(());
        }
        let mut make = |s: &mut Shader| {
            let mut e = Emit::new(s);
            for i in (0..n).filter(|i| mask & (1 << i) == 0) {
                let one = e.f32(1.0);
                let idx = e.i32(i as i32);
                e.store(clip, Some(idx), one);
            }
            e.out
        };
        insert_at_vertex_end(s, &mut make);
        return Ok(());
    }
    if mask == 0 {
        return Ok(());
    }
    let pos = s
        .find_builtin(true, BuiltIn::Position)
        .ok_or_else(|| Error::new("clip planes: the shader writes no position"))?;
    let n = 8 - mask.leading_zeros();
    let clip = get_builtin(s, true, BuiltIn::ClipDistance, Type::F32, Some(n));
    let pc = get_push(s);
    let mut make = |s: &mut Shader| {
        let mut e = Emit::new(s);
        let p = e.load(pos, None);
        for i in 0..n {
            let d = if mask & (1 << i) != 0 {
                let off = e.u32(push::CLIP_PLANES + 16 * i);
                let plane = e.def(
                    Type::vec4(),
                    Op::Intrinsic(Intrinsic::LoadPush {
                        var: pc,
                        offset: off,
                    }),
                );
                e.alu(AluOp::Fdot, Type::F32, &[p, plane])
            } else {
                e.f32(1.0)
            };
            let idx = e.i32(i as i32);
            e.store(clip, Some(idx), d);
        }
        e.out
    };
    insert_at_vertex_end(s, &mut make);
    Ok(())
}

fn has_store(body: &[Node], var: VarId) -> bool {
    let mut found = false;
    walk_instrs(body, &mut |i| {
        if let Op::Intrinsic(Intrinsic::Store { var: v, .. }) = &i.op {
            found |= *v == var;
        }
    });
    found
}

/// Default point size: write `size` to PointSize when the shader does not,
/// or, with `fixed`, over what the shader writes (stored last: at the
/// exits, or before each geometry shader `emit_vertex`).
pub fn lower_point_size(s: &mut Shader, size: f32, fixed: bool) -> Result<()> {
    if !s.stage.is_pre_raster() {
        return Ok(());
    }
    if let Some(v) = s.find_builtin(true, BuiltIn::PointSize) {
        if has_store(&s.body, v) {
            if !fixed {
                return Ok(());
            }
            let mut make = |s: &mut Shader| {
                let mut e = Emit::new(s);
                let c = e.f32(size);
                e.store(v, None, c);
                e.out
            };
            insert_at_vertex_end(s, &mut make);
            return Ok(());
        }
    }
    let ps = get_builtin(s, true, BuiltIn::PointSize, Type::F32, None);
    let mut make = |s: &mut Shader| {
        let mut e = Emit::new(s);
        let c = e.f32(size);
        e.store(ps, None, c);
        e.out
    };
    if s.stage == Stage::Geometry {
        insert_before_emits(s, &mut make);
    } else {
        let code = make(s);
        s.body.splice(0..0, code);
    }
    Ok(())
}

fn is_color(io: &IoInfo) -> bool {
    matches!(
        io.slot,
        Some(GlSlot::Col0 | GlSlot::Col1 | GlSlot::Bfc0 | GlSlot::Bfc1)
    )
}

/// Flat shading: colour inputs of the fragment shader become flat.
pub fn lower_flat_shade(s: &mut Shader) {
    if s.stage != Stage::Fragment {
        return;
    }
    for v in &mut s.vars {
        if let VarKind::Input(io) = &mut v.kind {
            if is_color(io) {
                io.interp = Interp::Flat;
                io.sampling = Sampling::Center;
            }
        }
    }
}

/// Forced per-sample shading: interpolated inputs use `sample`. (pipe-vk
/// also enables `sampleShadingEnable` with `minSampleShading = 1`.)
pub fn lower_sample_shading(s: &mut Shader) {
    if s.stage != Stage::Fragment {
        return;
    }
    for v in &mut s.vars {
        if let VarKind::Input(io) = &mut v.kind {
            if io.builtin.is_none() && io.interp != Interp::Flat {
                io.sampling = Sampling::Sample;
            }
        }
    }
}

/// GL's fragment shader inputs with multisample rasterization disabled on
/// a multisampled framebuffer (GL 4.6, 15.2.2; GLSL's `gl_SampleID`):
/// the pixel is one sample, so `gl_SampleID` is 0, `gl_SamplePosition`
/// (0.5, 0.5), `gl_SampleMaskIn` has bit 0 alone (the fragment covers
/// it), and `sample` inputs are interpolated at the pixel centre. The
/// built-ins become locals set at entry, so Vulkan does not run the
/// shader per sample for reading them (the aliased emulations then
/// give the pixel one depth, `aliased::lower_aliased_triangles_fs`).
pub fn lower_single_sample(s: &mut Shader) {
    if s.stage != Stage::Fragment {
        return;
    }
    let mut set = Vec::new();
    for (i, v) in s.vars.iter_mut().enumerate() {
        let VarKind::Input(io) = &mut v.kind else {
            continue;
        };
        match io.builtin {
            Some(b @ (BuiltIn::SampleId | BuiltIn::SamplePos | BuiltIn::SampleMask)) => {
                v.kind = VarKind::Local;
                set.push((VarId(i as u32), b, v.ty, v.array));
            }
            None if io.sampling == Sampling::Sample => io.sampling = Sampling::Center,
            _ => {}
        }
    }
    if set.is_empty() {
        return;
    }
    let mut e = Emit::new(s);
    for (var, b, ty, array) in set {
        let value = |e: &mut Emit, first: bool| match b {
            BuiltIn::SamplePos => e.konst(ty, vec![u64::from(0.5f32.to_bits()); ty.comps as usize]),
            BuiltIn::SampleMask if first => e.konst(ty, vec![1; ty.comps as usize]),
            _ => e.konst(ty, vec![0; ty.comps as usize]),
        };
        match array {
            None => {
                let v = value(&mut e, true);
                e.store(var, None, v);
            }
            Some(n) => {
                for k in 0..n as i32 {
                    let v = value(&mut e, k == 0);
                    let idx = e.i32(k);
                    e.store(var, Some(idx), v);
                }
            }
        }
    }
    let code = e.out;
    s.body.splice(0..0, code);
}

/// `draw_index` as Gallium defines it: the call's `drawid_offset` (in
/// [`push::DRAW_ID`], which the driver also steps per draw when the call
/// increments the id) plus Vulkan's `DrawIndex`, which counts the draws
/// of one indirect or multi-draw command. A driver that records separate
/// direct draws (or one multi-draw whose draws share an id, such as
/// consecutive calls merged by pipe-vk) must therefore not let `DrawIndex`
/// count them: pipe-vk records direct draws of shaders that read the id
/// one by one ([`reads_draw_index`]), as Zink does.
pub fn lower_draw_index(s: &mut Shader) {
    let Some(di) = s.find_builtin(false, BuiltIn::DrawIndex) else {
        return;
    };
    let pc = get_push(s);
    replace_loads(s, di, &mut |s, dest, ty, _| {
        let mut e = Emit::new(s);
        let off = e.u32(push::DRAW_ID);
        let base = e.def(
            ty,
            Op::Intrinsic(Intrinsic::LoadPush {
                var: pc,
                offset: off,
            }),
        );
        let idx = e.load(di, None);
        e.def_as(dest, ty, Op::Alu(AluOp::Iadd, vec![base, idx]));
        e.out
    });
}

/// Subgroup votes as if each invocation ran alone: `vote_any` and
/// `vote_all` give their operand, `vote_eq` true. ARB_shader_group_vote
/// lets the set of invocations that vote together be a single one, so
/// this is GL's vote where the device has none in the stage (lavapipe
/// votes in fragment and compute shaders only).
pub fn lower_vote_trivial(s: &mut Shader) {
    walk_instrs_mut(&mut s.body, &mut |i| {
        if let Op::Intrinsic(Intrinsic::Vote { op, value }) = i.op {
            i.op = match op {
                VoteOp::Any | VoteOp::All => Op::Alu(AluOp::Mov, vec![value]),
                VoteOp::Eq => Op::Const(vec![1]),
            };
        }
    });
}

/// Whether the shader reads `draw_index` (see [`lower_draw_index`]).
pub fn reads_draw_index(s: &Shader) -> bool {
    s.find_builtin(false, BuiltIn::DrawIndex).is_some()
}

/// Fragment inputs the previous stage does not write (`mask`, bit i =
/// location i) become locals holding 0, as Zink's `rewrite_read_as_0`:
/// an input is turned when every location it spans is in `mask`; an
/// array of one location per element written in part keeps its written
/// elements as inputs of their own (Vulkan's validation refuses an input
/// location the previous stage does not write), and its
/// `interp_at_*`s interpolate the element's own input (zero for the
/// others), chosen by the index. Runs
/// after the lowerings that replace inputs (sprite coordinates, two-sided
/// colour), so those keep what they need.
pub fn lower_unwritten_inputs(s: &mut Shader, mask: u32) {
    if s.stage != Stage::Fragment || mask == 0 {
        return;
    }
    let unwritten = |k: u32| k < 32 && mask >> k & 1 == 1;
    // (variable, type, array length, its written elements' new inputs).
    let mut zeroed = Vec::new();
    let n_vars = s.vars.len();
    for i in 0..n_vars {
        let v = &s.vars[i];
        let VarKind::Input(io) = &v.kind else {
            continue;
        };
        if io.builtin.is_some() {
            continue;
        }
        let Some(l) = io.location else { continue };
        let n = v.array.unwrap_or(1);
        let locs = l..l.saturating_add(n);
        if locs.clone().all(unwritten) {
            let (ty, array) = (v.ty, v.array);
            s.vars[i].kind = VarKind::Local;
            zeroed.push((VarId(i as u32), ty, array, Vec::new()));
            continue;
        }
        // An array written in part, one location per element: the
        // written elements become inputs of their own, the others read
        // zero.
        let one_each = v.array.is_some() && v.locations(s.stage) == n;
        if !one_each || !locs.clone().any(unwritten) {
            continue;
        }
        let (ty, array, name, io) = (v.ty, v.array, v.name.clone(), io.clone());
        let mut parts = Vec::new();
        for k in 0..n {
            if unwritten(l + k) {
                parts.push(None);
                continue;
            }
            let part = s.add_var(Variable {
                name: format!("{name}_{k}"),
                kind: VarKind::Input(IoInfo {
                    location: Some(l + k),
                    ..io.clone()
                }),
                ty,
                array: None,
                inner: None,
            });
            parts.push(Some(part));
        }
        s.vars[i].kind = VarKind::Local;
        zeroed.push((VarId(i as u32), ty, array, parts));
    }
    if zeroed.is_empty() {
        return;
    }
    // Interpolation functions of a variable now local read it as it is
    // (zero), or, written in part, interpolate the element's input.
    for (var, _, _, parts) in &zeroed {
        if parts.is_empty() {
            interp_as_loads(&mut s.body, *var);
        } else if interpolates(&s.body, *var) {
            interp_parts(s, *var, parts);
        }
    }
    let mut e = Emit::new(s);
    for (var, ty, array, parts) in zeroed {
        let zero = e.konst(ty, vec![0; ty.comps as usize]);
        match array {
            None => e.store(var, None, zero),
            Some(n) => {
                for k in 0..n {
                    let value = match parts.get(k as usize).copied().flatten() {
                        Some(part) => e.load(part, None),
                        None => zero,
                    };
                    let idx = e.i32(k as i32);
                    e.store(var, Some(idx), value);
                }
            }
        }
    }
    let code = e.out;
    s.body.splice(0..0, code);
}

/// Whether `body` has an `interp_at_*` of `var`.
fn interpolates(body: &[Node], var: VarId) -> bool {
    body.iter().any(|n| match n {
        Node::Instr(i) => {
            matches!(i.op, Op::Intrinsic(Intrinsic::Interp { var: v, .. }) if v == var)
        }
        Node::If(f) => interpolates(&f.then_body, var) || interpolates(&f.else_body, var),
        Node::Loop(l) => interpolates(&l.body, var),
        Node::Jump(..) => false,
    })
}

/// Turns each `interp_at_* @var, %index, ...` of the array
/// `var` into the interpolation of each written element's own input
/// (`parts[k]`, `None` for an unwritten element, which reads zero), the
/// one at `index` selected: `index == k ? interp(part k) : ...`. Each
/// part is interpolated, so none is in control flow that depends on the
/// index.
fn interp_parts(s: &mut Shader, var: VarId, parts: &[Option<VarId>]) {
    type Types = HashMap<ValueId, Type>;
    fn walk(
        body: &mut Vec<Node>,
        s: &mut Shader,
        types: &Types,
        var: VarId,
        parts: &[Option<VarId>],
    ) {
        let mut i = 0;
        while i < body.len() {
            match &mut body[i] {
                Node::Instr(Instr {
                    dest: Some((d, t)),
                    op:
                        Op::Intrinsic(Intrinsic::Interp {
                            var: v,
                            index: Some(index),
                            at,
                        }),
                    ..
                }) if *v == var => {
                    let (d, t, index, at) = (*d, *t, *index, *at);
                    let index_ty = types.get(&index).copied().unwrap_or(Type::I32);
                    let mut e = Emit::new(s);
                    let mut acc = e.konst(t, vec![0; t.comps as usize]);
                    let written: Vec<(usize, VarId)> = parts
                        .iter()
                        .enumerate()
                        .filter_map(|(k, p)| p.map(|p| (k, p)))
                        .collect();
                    for (n, &(k, part)) in written.iter().enumerate() {
                        let value = e.def(
                            t,
                            Op::Intrinsic(Intrinsic::Interp {
                                var: part,
                                index: None,
                                at,
                            }),
                        );
                        let kk = e.konst(index_ty, vec![k as u64]);
                        let c = e.alu(AluOp::Ieq, Type::BOOL, &[index, kk]);
                        let select = Op::Alu(AluOp::Bcsel, vec![c, value, acc]);
                        if n + 1 == written.len() {
                            e.def_as(d, t, select);
                        } else {
                            acc = e.def(t, select);
                        }
                    }
                    let code = e.out;
                    let len = code.len();
                    body.splice(i..=i, code);
                    i += len;
                    continue;
                }
                Node::If(f) => {
                    walk(&mut f.then_body, s, types, var, parts);
                    walk(&mut f.else_body, s, types, var, parts);
                }
                Node::Loop(l) => walk(&mut l.body, s, types, var, parts),
                _ => {}
            }
            i += 1;
        }
    }
    fn collect(body: &[Node], types: &mut Types) {
        for n in body {
            match n {
                Node::Instr(Instr {
                    dest: Some((d, t)), ..
                }) => {
                    types.insert(*d, *t);
                }
                Node::If(f) => {
                    collect(&f.then_body, types);
                    collect(&f.else_body, types);
                }
                Node::Loop(l) => collect(&l.body, types),
                _ => {}
            }
        }
    }
    let mut types = Types::new();
    collect(&s.body, &mut types);
    let mut body = std::mem::take(&mut s.body);
    walk(&mut body, s, &types, var, parts);
    s.body = body;
}

/// Turns each `interp_at_*` of `var` in `body` into a `load`.
fn interp_as_loads(body: &mut [Node], var: VarId) {
    for n in body {
        match n {
            Node::Instr(i) => {
                if let Op::Intrinsic(Intrinsic::Interp { var: v, index, .. }) = i.op {
                    if v == var {
                        i.op = Op::Intrinsic(Intrinsic::Load { var, index });
                    }
                }
            }
            Node::If(f) => {
                interp_as_loads(&mut f.then_body, var);
                interp_as_loads(&mut f.else_body, var);
            }
            Node::Loop(l) => interp_as_loads(&mut l.body, var),
            Node::Jump(..) => {}
        }
    }
}

/// Framebuffer fetch reads at the fragment's pixel: declares the
/// `frag_coord` input the emitter reads for each `fbfetch` (it reads the
/// raw window position, not the GL-lowered one).
pub fn lower_fbfetch(s: &mut Shader) {
    if s.stage == Stage::Fragment && s.vars.iter().any(|v| matches!(v.kind, VarKind::FbFetch(_))) {
        get_builtin(s, false, BuiltIn::FragCoord, Type::vec4(), None);
    }
}

/// Framebuffer fetch on a layered framebuffer: every `fbfetch` variable
/// becomes `layered` (a 2D array image, read at the fragment's `Layer`,
/// which is declared).
pub fn lower_fbfetch_layered(s: &mut Shader) {
    if s.stage != Stage::Fragment || !s.vars.iter().any(|v| matches!(v.kind, VarKind::FbFetch(_))) {
        return;
    }
    for v in &mut s.vars {
        if let VarKind::FbFetch(f) = &mut v.kind {
            f.layered = true;
        }
    }
    get_builtin(s, false, BuiltIn::Layer, Type::I32, None);
}

/// Framebuffer fetch from colour buffers that are not 2D: the `fbfetch`
/// variables of the slots in `one_d` read a 1D image (at the fragment's
/// `x`; a 1D array at `(x, Layer)` when layered), those in `three_d` the
/// slices of a 3D image bound as a layered framebuffer (at `(x, y,
/// Layer)`, so they must be layered: run after
/// [`lower_fbfetch_layered`]).
pub fn lower_fbfetch_dims(s: &mut Shader, one_d: u8, three_d: u8) {
    if s.stage != Stage::Fragment || (one_d | three_d) == 0 {
        return;
    }
    for v in &mut s.vars {
        if let VarKind::FbFetch(f) = &mut v.kind {
            let bit = 1u32.checked_shl(f.slot).unwrap_or(0);
            if u32::from(one_d) & bit != 0 {
                f.dim = Dim::D1;
            } else if u32::from(three_d) & bit != 0 {
                f.dim = Dim::D3;
            }
        }
    }
}

/// Framebuffer fetch on a multisampled framebuffer: every `fbfetch`
/// variable becomes `ms`, and every fetch without a sample reads the
/// fragment's own (`SampleId`, added when missing; reading it makes the
/// shader run once per sample, which is what GL asks of a framebuffer
/// fetch on a multisampled buffer).
pub fn lower_fbfetch_ms(s: &mut Shader) {
    if s.stage != Stage::Fragment || !s.vars.iter().any(|v| matches!(v.kind, VarKind::FbFetch(_))) {
        return;
    }
    for v in &mut s.vars {
        if let VarKind::FbFetch(f) = &mut v.kind {
            f.ms = true;
        }
    }
    let sid = get_builtin(s, false, BuiltIn::SampleId, Type::I32, None);
    fn walk(body: &mut Vec<Node>, s: &mut Shader, sid: VarId) {
        let mut i = 0;
        while i < body.len() {
            match &mut body[i] {
                Node::Instr(Instr {
                    op: Op::Intrinsic(Intrinsic::FbFetch { sample, .. }),
                    ..
                }) if sample.is_none() => {
                    let mut e = Emit::new(s);
                    let v = e.load(sid, None);
                    let code = e.out;
                    if let Node::Instr(Instr {
                        op: Op::Intrinsic(Intrinsic::FbFetch { sample, .. }),
                        ..
                    }) = &mut body[i]
                    {
                        *sample = Some(v);
                    }
                    let n = code.len();
                    body.splice(i..i, code);
                    i += n;
                }
                Node::If(f) => {
                    walk(&mut f.then_body, s, sid);
                    walk(&mut f.else_body, s, sid);
                }
                Node::Loop(l) => walk(&mut l.body, s, sid),
                _ => {}
            }
            i += 1;
        }
    }
    let mut body = std::mem::take(&mut s.body);
    walk(&mut body, s, sid);
    s.body = body;
}

/// Two-sided colour: loads of col0/col1 select the back colour
/// (bfc0/bfc1, added at [`binding::BFC0_LOCATION`]/[`binding::BFC1_LOCATION`]
/// when missing) on back faces. Colours in `front_only` (bit 0 col0, bit
/// 1 col1) are left alone: the previous stage writes no back colour for
/// them.
pub fn lower_two_side(s: &mut Shader, front_only: u8) -> Result<()> {
    if s.stage != Stage::Fragment || front_only & 3 == 3 {
        return Ok(());
    }
    let ff = get_builtin(s, false, BuiltIn::FrontFacing, Type::BOOL, None);
    for (i, (front, back, loc)) in [
        (GlSlot::Col0, GlSlot::Bfc0, binding::BFC0_LOCATION),
        (GlSlot::Col1, GlSlot::Bfc1, binding::BFC1_LOCATION),
    ]
    .into_iter()
    .enumerate()
    {
        if front_only & (1 << i) != 0 {
            continue;
        }
        let Some(fi) = s
            .vars
            .iter()
            .position(|v| v.is_input() && v.io().and_then(|io| io.slot) == Some(front))
        else {
            continue;
        };
        let fvar = VarId(fi as u32);
        let bvar = match s
            .vars
            .iter()
            .position(|v| v.is_input() && v.io().and_then(|io| io.slot) == Some(back))
        {
            Some(b) => {
                let bvar = VarId(b as u32);
                let (f, b) = (s.var(fvar), s.var(bvar));
                if f.ty != b.ty || f.array != b.array {
                    return Err(Error::new(format!(
                        "two-sided colour: @{} and @{} differ in type",
                        f.name, b.name
                    )));
                }
                bvar
            }
            None => {
                let f = s.var(fvar).clone();
                let mut bio = f.io().cloned().unwrap_or_default();
                bio.location = Some(loc);
                bio.component = 0;
                bio.slot = Some(back);
                s.add_var(Variable {
                    name: back.name(),
                    kind: VarKind::Input(bio),
                    ty: f.ty,
                    array: f.array,
                    inner: f.inner,
                })
            }
        };
        replace_loads(s, fvar, &mut |s, dest, ty, index| {
            let mut e = Emit::new(s);
            let f = e.load(ff, None);
            let fc = e.load(fvar, index);
            let bc = e.load(bvar, index);
            e.def_as(dest, ty, Op::Alu(AluOp::Bcsel, vec![f, fc, bc]));
            e.out
        });
    }
    Ok(())
}

/// Point sprite coordinates: loads of texture coordinate slots in `mask`
/// become `(pc.x, pc.y or 1 - pc.y, 0, 1)`.
pub fn lower_sprite_coord(s: &mut Shader, mask: u8, upper_left: bool) -> Result<()> {
    if s.stage != Stage::Fragment {
        return Ok(());
    }
    let targets: Vec<VarId> = s
        .vars
        .iter()
        .enumerate()
        .filter(|(_, v)| {
            v.is_input() && matches!(v.io().and_then(|io| io.slot), Some(GlSlot::Tex(n)) if mask & (1 << n) != 0)
        })
        .map(|(i, _)| VarId(i as u32))
        .collect();
    if targets.is_empty() {
        return Ok(());
    }
    for &t in &targets {
        let v = s.var(t);
        if !v.ty.is_float() || v.ty.bits != 32 || v.ty.comps < 2 || v.array.is_some() {
            return Err(Error::new(format!(
                "sprite coord: @{} must be f32x2..4",
                v.name
            )));
        }
    }
    let pcv = get_builtin(s, false, BuiltIn::PointCoord, Type::float(32, 2), None);
    for t in targets {
        replace_loads(s, t, &mut |s, dest, ty, _| {
            let mut e = Emit::new(s);
            let pc = e.load(pcv, None);
            let x = e.swizzle(Type::F32, pc, &[0]);
            let mut y = e.swizzle(Type::F32, pc, &[1]);
            if !upper_left {
                let one = e.f32(1.0);
                y = e.alu(AluOp::Fsub, Type::F32, &[one, y]);
            }
            let mut comps = vec![x, y];
            if ty.comps >= 3 {
                comps.push(e.f32(0.0));
            }
            if ty.comps == 4 {
                comps.push(e.f32(1.0));
            }
            e.def_as(dest, ty, Op::Alu(AluOp::Vec, comps));
            e.out
        });
    }
    Ok(())
}

/// Inlined uniforms: `load_ubo` from constant buffer 0 at a constant offset
/// whose every word is in `values` becomes a constant.
pub fn lower_inline_uniforms(s: &mut Shader, values: &[(u32, u32)]) {
    if values.is_empty() {
        return;
    }
    let map: HashMap<u32, u32> = values.iter().copied().collect();
    let mut consts: HashMap<u32, u64> = HashMap::new();
    walk_instrs(&s.body, &mut |i| {
        if let (Some((v, t)), Op::Const(b)) = (i.dest, &i.op) {
            if t.comps == 1 && t.is_int() {
                consts.insert(v.0, b[0]);
            }
        }
    });
    let ubo0: Vec<VarId> = s
        .vars
        .iter()
        .enumerate()
        .filter(|(_, v)| matches!(v.kind, VarKind::Ubo { slot: 0, .. }))
        .map(|(i, _)| VarId(i as u32))
        .collect();
    walk_instrs_mut(&mut s.body, &mut |i| {
        let (Some((_, t)), Op::Intrinsic(Intrinsic::LoadUbo { var, offset })) = (i.dest, &i.op)
        else {
            return;
        };
        if !ubo0.contains(var) {
            return;
        }
        let Some(&off) = consts.get(&offset.0) else {
            return;
        };
        let off = off as u32 & !3;
        let per = if t.bits == 64 { 2 } else { 1 };
        let mut bits = Vec::new();
        for c in 0..t.comps as u32 {
            let mut v = 0u64;
            for k in 0..per {
                let Some(&w) = map.get(&(off + 4 * (c * per + k))) else {
                    return;
                };
                v |= (w as u64) << (32 * k);
            }
            bits.push(v);
        }
        i.op = Op::Const(bits);
    });
}

/// Constant buffer 0 read at a per-draw offset (key item
/// `ubo0_push_offset`): its variable is declared
/// [`binding::UBO0_WINDOW`] bytes long, and every `load_ubo` from it adds
/// the stage's word at [`push::UBO0_OFFSET`] (loaded once, at the start
/// of `main`) to its offset. pipe-vk binds a window of the stream buffer
/// that holds uploaded user constants there and pushes where in it the
/// current data starts, so that new user constants cost a push constant
/// instead of a new descriptor set (which on lavapipe costs an `mmap`).
/// Errors for stages other than vertex and fragment. A shader without
/// constant buffer 0 is left alone.
pub fn lower_ubo0_push_offset(s: &mut Shader) -> Result<()> {
    let word = match s.stage {
        Stage::Vertex => push::UBO0_OFFSET,
        Stage::Fragment => push::UBO0_OFFSET + 4,
        other => {
            return Err(Error::new(format!(
                "ubo0_push_offset: only vertex and fragment shaders, not {}",
                other.name()
            )))
        }
    };
    let mut ubo0 = Vec::new();
    for (i, v) in s.vars.iter_mut().enumerate() {
        if let VarKind::Ubo { slot: 0, size } = &mut v.kind {
            *size = binding::UBO0_WINDOW;
            ubo0.push(VarId(i as u32));
        }
    }
    if ubo0.is_empty() {
        return Ok(());
    }
    // The type of every value, for the offsets' own integer type.
    let mut types: HashMap<u32, Type> = HashMap::new();
    walk_instrs(&s.body, &mut |i| {
        if let Some((v, t)) = i.dest {
            types.insert(v.0, t);
        }
    });
    let pc = get_push(s);
    let mut e = Emit::new(s);
    let at = e.u32(word);
    let base = e.def(
        Type::U32,
        Op::Intrinsic(Intrinsic::LoadPush {
            var: pc,
            offset: at,
        }),
    );
    let prologue = e.out;
    fn walk(
        body: &mut Vec<Node>,
        s: &mut Shader,
        ubo0: &[VarId],
        base: ValueId,
        types: &HashMap<u32, Type>,
    ) {
        let mut i = 0;
        while i < body.len() {
            match &mut body[i] {
                Node::Instr(Instr {
                    op: Op::Intrinsic(Intrinsic::LoadUbo { var, offset }),
                    ..
                }) if ubo0.contains(var) => {
                    let ty = types.get(&offset.0).copied().unwrap_or(Type::U32);
                    let mut e = Emit::new(s);
                    let b = if ty == Type::U32 {
                        base
                    } else {
                        e.alu(AluOp::Bitcast, ty, &[base])
                    };
                    let sum = e.alu(AluOp::Iadd, ty, &[*offset, b]);
                    let mut code = e.out;
                    *offset = sum;
                    let n = code.len();
                    code.push(body[i].clone());
                    body.splice(i..=i, code);
                    i += n + 1;
                    continue;
                }
                Node::If(f) => {
                    walk(&mut f.then_body, s, ubo0, base, types);
                    walk(&mut f.else_body, s, ubo0, base, types);
                }
                Node::Loop(l) => walk(&mut l.body, s, ubo0, base, types),
                _ => {}
            }
            i += 1;
        }
    }
    let mut body = std::mem::take(&mut s.body);
    walk(&mut body, s, &ubo0, base, &types);
    body.splice(0..0, prologue);
    s.body = body;
    Ok(())
}

/// Moves the outputs (`output`) or inputs of `s` at location `from` to
/// `to`, for each `(from, to)` in `pairs` (key item `relocate` for
/// outputs). pipe-vk moves a vertex shader's high outputs down for the
/// geometry shader it generates after it, whose inputs it moves the same
/// way while its outputs keep the original locations, so the fragment
/// shader sees no difference. Variables packed into `from` by components
/// move together. Errors when `to` is taken by another variable of the
/// same direction, or a variable covers `from` with an array.
pub fn relocate_varyings(s: &mut Shader, pairs: &[(u32, u32)], output: bool) -> Result<()> {
    for &(from, to) in pairs {
        // Every variable at `from`: outputs packed into one location by
        // components (`component=`) move together.
        let mut found = Vec::new();
        for (i, v) in s.vars.iter().enumerate() {
            let Some(io) = v.io() else { continue };
            if v.is_output() != output || io.builtin.is_some() {
                continue;
            }
            let Some(loc) = io.location else { continue };
            let len = v.locations(s.stage);
            if (loc..loc + len).contains(&to) {
                return Err(Error::new(format!(
                    "relocate {from} -> {to}: location {to} is taken by @{}",
                    v.name
                )));
            }
            if (loc..loc + len).contains(&from) {
                if loc != from || len != 1 {
                    return Err(Error::new(format!(
                        "relocate {from} -> {to}: @{} is an array over location {from}",
                        v.name
                    )));
                }
                found.push(i);
            }
        }
        for i in found {
            if let Some(io) = s.vars[i].io_mut() {
                io.location = Some(to);
            }
        }
    }
    Ok(())
}

/// Adds the second input of a split 64-bit attribute: `comps` 32-bit
/// unsigned components at `location`, named after `var`. Errors when the
/// shader already has an input there.
fn add_upper_input(s: &mut Shader, var: VarId, location: u32, comps: u8) -> Result<VarId> {
    if s.vars
        .iter()
        .any(|v| v.is_input() && v.io().and_then(|io| io.location) == Some(location))
    {
        return Err(Error::new(format!(
            "vertex fix-up: location {location}, for the upper half of @{}, is taken",
            s.var(var).name
        )));
    }
    let mut v = s.var(var).clone();
    v.name = format!("{}_hi", v.name);
    v.ty = Type::uint(32, comps);
    if let VarKind::Input(io) = &mut v.kind {
        io.location = Some(location);
        io.component = 0;
    }
    Ok(s.add_var(v))
}

/// Loads the first `n` 64-bit components (`comp`, a scalar type) of an
/// attribute split into 32-bit unsigned pairs: components 0 and 1 from
/// `lo`, 2 and 3 from `hi`.
fn load_split_64(e: &mut Emit, lo: VarId, hi: Option<VarId>, n: u8, comp: Type) -> Vec<ValueId> {
    let lo = e.load(lo, None);
    let hi = hi.map(|h| e.load(h, None));
    (0..n)
        .map(|k| {
            // Three or four components always have the upper input.
            let (src, at) = if k < 2 {
                (lo, 2 * k)
            } else {
                (hi.unwrap_or(lo), 2 * (k - 2))
            };
            let pair = e.swizzle(Type::uint(32, 2), src, &[at, at + 1]);
            e.alu(AluOp::Bitcast, comp, &[pair])
        })
        .collect()
}

/// `comps` (scalars of `ty`'s component type) extended to `ty`'s
/// component count with GL's defaults for missing attribute components
/// (0, 0, 1), as one value of type `ty`.
fn widen_attr(e: &mut Emit, mut comps: Vec<ValueId>, ty: Type) -> Op {
    let one = Type { comps: 1, ..ty };
    comps.truncate(ty.comps as usize);
    for k in comps.len()..ty.comps as usize {
        let bits = if k == 3 {
            match one.base {
                BaseType::Float => one_bits_float(one.bits),
                _ => 1,
            }
        } else {
            0
        };
        comps.push(e.konst(one, vec![bits]));
    }
    if comps.len() == 1 {
        Op::Alu(AluOp::Mov, comps)
    } else {
        Op::Alu(AluOp::Vec, comps)
    }
}

/// The bits of 1.0 in a float of `bits` bits.
fn one_bits_float(bits: u8) -> u64 {
    match bits {
        16 => 0x3c00,
        64 => 1.0f64.to_bits(),
        _ => u64::from(1.0f32.to_bits()),
    }
}

/// [`VertexFixup::Split64`] for the 64-bit input `var`: it becomes 32-bit
/// unsigned pairs at its location and (three or four components read
/// from the element) at the second location `f.upper`, each pair bitcast
/// back to one component; components the element lacks read GL's
/// defaults (0, 0, 1). A three- or four-component input takes two
/// locations: refused when the element takes one (`f.comps` given and
/// no `f.upper`: not `dual_slot`), where the second would be another
/// element's.
fn split_64bit_input(s: &mut Shader, var: VarId, f: &FetchFixup) -> Result<()> {
    let ty = s.var(var).ty;
    let loc = f.location;
    if ty.bits != 64 || ty.is_bool() {
        return Err(Error::new(format!(
            "vertex fix-up split64: input at location {loc} must be 64-bit, not {ty}"
        )));
    }
    let n = ty.comps;
    if n > 2 && f.comps != 0 && f.upper.is_none() {
        return Err(Error::new(format!(
            "vertex fix-up split64: the {ty} input at location {loc} takes two locations, \
             and its element one (not dual_slot)"
        )));
    }
    // The components read from the element.
    let have = if f.comps == 0 { n } else { f.comps.min(n) };
    s.var_mut(var).ty = Type::uint(32, 2 * have.min(2));
    let upper = if have > 2 {
        let at = match f.upper {
            Some(at) => at,
            None => loc
                .checked_add(1)
                .ok_or_else(|| Error::new("vertex fix-up split64: location out of range"))?,
        };
        Some(add_upper_input(s, var, at, 2 * (have - 2))?)
    } else {
        None
    };
    let comp = Type { comps: 1, ..ty };
    replace_loads(s, var, &mut |s, dest, ty, _| {
        let mut e = Emit::new(s);
        let comps = load_split_64(&mut e, var, upper, have, comp);
        let op = widen_attr(&mut e, comps, ty);
        e.def_as(dest, ty, op);
        e.out
    });
    Ok(())
}

/// Component `i` (a `scalar`) of `v`, a value of `n` components.
fn component(e: &mut Emit, v: ValueId, n: u8, i: u8, scalar: Type) -> ValueId {
    if n == 1 {
        v
    } else {
        e.swizzle(scalar, v, &[i])
    }
}

/// Reads components `want` of the attribute fetched into `raw` (and `hi`,
/// the upper half of a split double) as GL's floats: those below `have`
/// converted by `fix`, the others GL's defaults (0, 0, 1).
fn fetch_attr(
    e: &mut Emit,
    (raw, hi): (VarId, Option<VarId>),
    fix: VertexFixup,
    have: u8,
    want: std::ops::Range<u8>,
) -> Vec<ValueId> {
    use VertexFixup as V;
    let x = e.load(raw, None);
    let hi = match hi {
        Some(h) if want.end > 2 => Some(e.load(h, None)),
        _ => None,
    };
    let signed = fix.is_signed();
    let (st, to_float) = if signed {
        (Type::I32, AluOp::I2f)
    } else {
        (Type::U32, AluOp::U2f)
    };
    want.map(|i| {
        if i >= have {
            return e.f32(if i == 3 { 1.0 } else { 0.0 });
        }
        match fix {
            V::SwapRb => component(e, x, 4, [2u8, 1, 0, 3][i as usize], Type::F32),
            // 64-bit inputs are split (`split_64bit_input`), not read here.
            V::Split64 => e.f32(0.0),
            V::Uscaled | V::Sscaled => {
                let c = component(e, x, have, i, st);
                e.alu(to_float, Type::F32, &[c])
            }
            V::Unorm32 | V::Snorm32 | V::Fixed32 => {
                // Converted and scaled (SNORM clamped to -1).
                let scale = match fix {
                    V::Unorm32 => 1.0 / 4_294_967_295.0f64,
                    V::Snorm32 => 1.0 / 2_147_483_647.0f64,
                    _ => 1.0 / 65536.0,
                } as f32;
                let c = component(e, x, have, i, st);
                let f = e.alu(to_float, Type::F32, &[c]);
                let k = e.f32(scale);
                let v = e.alu(AluOp::Fmul, Type::F32, &[f, k]);
                if fix == V::Snorm32 {
                    let lo = e.f32(-1.0);
                    e.alu(AluOp::Fmax, Type::F32, &[v, lo])
                } else {
                    v
                }
            }
            V::Double => {
                // Three or four components always have the upper input.
                let (src, at) = if i < 2 {
                    (x, 2 * i)
                } else {
                    (hi.unwrap_or(x), 2 * (i - 2))
                };
                let pair = e.swizzle(Type::uint(32, 2), src, &[at, at + 1]);
                let d = e.alu(AluOp::Bitcast, Type::float(64, 1), &[pair]);
                e.alu(AluOp::F2f, Type::F32, &[d])
            }
            V::A2b10g10r10Unorm
            | V::A2b10g10r10Snorm
            | V::A2b10g10r10Uscaled
            | V::A2b10g10r10Sscaled
            | V::A2r10g10b10Unorm
            | V::A2r10g10b10Snorm
            | V::A2r10g10b10Uscaled
            | V::A2r10g10b10Sscaled => {
                let (normalized, bgra) = fix.packed().unwrap_or_default();
                let field = match (bgra, i) {
                    (true, 0) => 2,
                    (true, 2) => 0,
                    _ => i,
                };
                let bits: i32 = if field == 3 { 2 } else { 10 };
                let off = e.i32(10 * i32::from(field));
                let cnt = e.i32(bits);
                let (src, extract) = if signed {
                    let si = e.alu(AluOp::Bitcast, Type::I32, &[x]);
                    (si, AluOp::IbitfieldExtract)
                } else {
                    (x, AluOp::UbitfieldExtract)
                };
                let v = e.alu(extract, st, &[src, off, cnt]);
                let vf = e.alu(to_float, Type::F32, &[v]);
                match (normalized, signed) {
                    (false, _) => vf,
                    (true, true) => {
                        let scale = e.f32(1.0 / ((1 << (bits - 1)) - 1) as f32);
                        let m = e.alu(AluOp::Fmul, Type::F32, &[vf, scale]);
                        let lo = e.f32(-1.0);
                        e.alu(AluOp::Fmax, Type::F32, &[m, lo])
                    }
                    (true, false) => {
                        let scale = e.f32(1.0 / ((1 << bits) - 1) as f32);
                        e.alu(AluOp::Fmul, Type::F32, &[vf, scale])
                    }
                }
            }
        }
    })
    .collect()
}

/// Vertex fetch fix-ups: the input at each location is fetched in a format
/// the device supports and converted back in the shader.
///
/// Several inputs may share a location, each at its own component (GL's
/// `layout(component = N)`): the first becomes the one input there,
/// reading the whole fetched attribute from component 0, and the others
/// unused locals; each input's loads read its components of the
/// converted attribute. The format's components (`FetchFixup::comps`)
/// are converted, the others read GL's defaults (0, 0, 1).
pub fn lower_vertex_fixups(s: &mut Shader, fixups: &[FetchFixup]) -> Result<()> {
    if s.stage != Stage::Vertex {
        return Ok(());
    }
    for f in fixups {
        let (loc, fix) = (f.location, f.fixup);
        let vars: Vec<VarId> = (0..s.vars.len())
            .filter(|&i| {
                let v = &s.vars[i];
                v.is_input() && v.io().and_then(|io| io.location) == Some(loc)
            })
            .map(|i| VarId(i as u32))
            .collect();
        let Some(&first) = vars.first() else {
            continue;
        };
        if fix == VertexFixup::Split64 {
            if vars.len() > 1 {
                return Err(Error::new(format!(
                    "vertex fix-up split64: location {loc} holds {} inputs; a 64-bit one \
                     takes it whole",
                    vars.len()
                )));
            }
            split_64bit_input(s, first, f)?;
            continue;
        }
        // Each input: (variable, first component, components).
        let mut parts = Vec::with_capacity(vars.len());
        for &v in &vars {
            let var = s.var(v);
            if !var.ty.is_float() || var.ty.bits != 32 || var.array.is_some() {
                return Err(Error::new(format!(
                    "vertex fix-up: input at location {loc} must be float, not {}",
                    var.ty
                )));
            }
            let c = var.io().map_or(0, |io| io.component).min(3) as u8;
            parts.push((v, c, var.ty.comps));
        }
        // The attribute components the shader reads, and those converted
        // from the element.
        let width = parts
            .iter()
            .map(|&(_, c, n)| c + n)
            .max()
            .unwrap_or(4)
            .min(4);
        let have = if f.comps == 0 {
            width
        } else {
            f.comps.min(width)
        };
        // The fetched attribute's input: `first`, from component 0, as
        // the fix-up reads it.
        let raw_ty = match fix {
            VertexFixup::SwapRb => Type::vec4(),
            VertexFixup::Uscaled | VertexFixup::Unorm32 => Type::uint(32, have),
            VertexFixup::Sscaled | VertexFixup::Snorm32 | VertexFixup::Fixed32 => {
                Type::int(32, have)
            }
            VertexFixup::Double => Type::uint(32, 2 * have.min(2)),
            _ => Type::U32,
        };
        let hi = if fix == VertexFixup::Double && have > 2 {
            let at = f.upper.ok_or_else(|| {
                Error::new(format!(
                    "vertex fix-up double: location {loc} has {have} components and no \
                     upper location"
                ))
            })?;
            Some(add_upper_input(s, first, at, 2 * (have - 2))?)
        } else {
            None
        };
        {
            let v = s.var_mut(first);
            v.ty = raw_ty;
            if let Some(io) = v.io_mut() {
                io.component = 0;
            }
        }
        for &(v, ..) in &parts[1..] {
            s.var_mut(v).kind = VarKind::Local;
        }
        // `first` first: the other inputs' new code loads it.
        for &(v, c, n) in &parts {
            replace_loads(s, v, &mut |s, dest, ty, _| {
                let mut e = Emit::new(s);
                let mine = fetch_attr(&mut e, (first, hi), fix, have, c..c + n);
                let op = if n == 1 { AluOp::Mov } else { AluOp::Vec };
                e.def_as(dest, ty, Op::Alu(op, mine));
                e.out
            });
        }
    }
    Ok(())
}

/// `gl_FragCoord` conventions: each read of the frag coord becomes the
/// Vulkan value adjusted to GL's lower-left origin (`y = FB_HEIGHT - y`,
/// the height from [`push::FB_HEIGHT`]) and/or integer pixel centres
/// (`xy -= 0.5`), as NIR's `nir_lower_wpos_ytransform` and
/// `nir_lower_wpos_center`. The flip comes first, so a lower-left integer
/// coordinate is `FB_HEIGHT - y - 0.5`.
pub fn lower_frag_coord(s: &mut Shader, lower_left: bool, integer_center: bool) -> Result<()> {
    if s.stage != Stage::Fragment || !(lower_left || integer_center) {
        return Ok(());
    }
    let Some(fc) = s.find_builtin(false, BuiltIn::FragCoord) else {
        return Ok(());
    };
    let pc = if lower_left { Some(get_push(s)) } else { None };
    replace_loads(s, fc, &mut |s, dest, ty, index| {
        let mut e = Emit::new(s);
        let raw = e.load(fc, index);
        let mut x = None;
        let mut y = None;
        if let Some(pc) = pc {
            let off = e.u32(push::FB_HEIGHT);
            let h = e.def(
                Type::F32,
                Op::Intrinsic(Intrinsic::LoadPush {
                    var: pc,
                    offset: off,
                }),
            );
            let y0 = e.swizzle(ty, raw, &[1]);
            y = Some(e.alu(AluOp::Fsub, Type::F32, &[h, y0]));
        }
        if integer_center {
            let half = e.f32(0.5);
            let x0 = e.swizzle(ty, raw, &[0]);
            x = Some(e.alu(AluOp::Fsub, Type::F32, &[x0, half]));
            let y0 = match y {
                Some(y) => y,
                None => e.swizzle(ty, raw, &[1]),
            };
            y = Some(e.alu(AluOp::Fsub, Type::F32, &[y0, half]));
        }
        let mut cur = raw;
        if let Some(x) = x {
            cur = e.def(ty, Op::Insert(cur, x, 0));
        }
        if let Some(y) = y {
            e.def_as(dest, ty, Op::Insert(cur, y, 1));
        }
        e.out
    });
    Ok(())
}

/// The fragment's pixel `(x, y)` as `u32`s (`FragCoord` truncated), and
/// the driver constant buffer, for the fixed-function tests lowered into
/// fragment shaders; `what` names the lowering in errors. Returns the
/// emitter with the code so far.
fn pixel_coords<'a>(s: &'a mut Shader, what: &str) -> Result<(Emit<'a>, VarId, ValueId, ValueId)> {
    let fc = get_builtin(s, false, BuiltIn::FragCoord, Type::vec4(), None);
    if s.var(fc).ty != Type::vec4() || s.var(fc).array.is_some() {
        return Err(Error::new(format!("{what}: frag coord must be f32x4")));
    }
    let ubo = get_driver_ubo(s)?;
    let mut e = Emit::new(s);
    let c = e.load(fc, None);
    let x = e.swizzle(Type::vec4(), c, &[0]);
    let y = e.swizzle(Type::vec4(), c, &[1]);
    let xu = e.alu(AluOp::F2u, Type::U32, &[x]);
    let yu = e.alu(AluOp::F2u, Type::U32, &[y]);
    Ok((e, ubo, xu, yu))
}

/// Ends a fixed-function test: `if cond { demote }`, and puts the code
/// before the shader's own. [`super::lower`] turns the demotes into
/// discards (`demotes_to_discards`) where the key does not ask for
/// demotion ([`super::VariantKey::demote_discards`]).
pub(crate) fn discard_first_if(mut e: Emit<'_>, cond: ValueId) {
    let demote = Node::Instr(Instr {
        dest: None,
        op: Op::Intrinsic(Intrinsic::Demote),
        loc: None,
    });
    e.out.push(Node::If(Box::new(If {
        cond,
        then_body: vec![demote],
        else_body: vec![],
        loc: None,
    })));
    let code = std::mem::take(&mut e.out);
    e.s.body.splice(0..0, code);
}

/// Whether demoting rather than discarding is worth it for the
/// fixed-function tests in this fragment shader
/// ([`super::VariantKey::demote_discards`]): it samples with an implicit
/// level of detail (`tex`, `txb`, `lod`), which needs the quad's other
/// fragments, and uses no atomics (a demoted invocation's atomics return
/// undefined values: a spin lock could spin for ever) and does not ask
/// whether it is a helper. Without, discarding costs nothing and ends
/// the invocation early.
pub fn demote_worthwhile(s: &Shader) -> bool {
    if s.stage != Stage::Fragment {
        return false;
    }
    let (mut derivatives, mut unsafe_ops) = (false, false);
    crate::ir::walk_instrs(&s.body, &mut |i| match &i.op {
        Op::Tex(t) => derivatives |= matches!(t.op, TexOp::Tex | TexOp::Txb | TexOp::Lod),
        Op::Intrinsic(
            Intrinsic::SsboAtomic { .. }
            | Intrinsic::SharedAtomic { .. }
            | Intrinsic::ImageAtomic { .. }
            | Intrinsic::IsHelper,
        ) => unsafe_ops = true,
        _ => {}
    });
    derivatives && !unsafe_ops
}

/// Whether the shader demotes fragments to helper invocations itself.
pub fn uses_demote(s: &Shader) -> bool {
    let mut any = false;
    crate::ir::walk_instrs(&s.body, &mut |i| {
        any |= matches!(i.op, Op::Intrinsic(Intrinsic::Demote));
    });
    any
}

/// Every `demote` as a `discard` (which terminates the invocation): for
/// devices without demotion, in shaders whose only demotes are the
/// fixed-function tests' (each the last node of its block).
pub fn demotes_to_discards(s: &mut Shader) {
    fn walk(body: &mut [Node]) {
        for n in body {
            match n {
                Node::Instr(i) if matches!(i.op, Op::Intrinsic(Intrinsic::Demote)) => {
                    *n = Node::Jump(Jump::Discard, None);
                }
                Node::If(i) => {
                    walk(&mut i.then_body);
                    walk(&mut i.else_body);
                }
                Node::Loop(l) => walk(&mut l.body),
                _ => {}
            }
        }
    }
    walk(&mut s.body);
}

/// Polygon stipple (Gallium's `pipe_poly_stipple`, NIR's
/// `nir_lower_pstipple_fs` with a buffer instead of a texture): at the
/// start of `main`, discard the fragment when bit `31 - (x mod 32)` of
/// pattern word `y mod 32` is 0, where `(x, y)` is the Vulkan
/// `FragCoord` and the pattern is [`driver_ubo::POLYGON_STIPPLE`].
///
/// The test runs first, as the fixed-function test it replaces does: the
/// fragment's side effects (buffer and image stores) never happen. With
/// [`super::VariantKey::demote_discards`] the fragment is demoted, so the
/// quad's derivatives stay defined; without, it is discarded, which
/// leaves them undefined where they depend on it, as Mesa's lowering
/// does.
pub fn lower_polygon_stipple(s: &mut Shader) -> Result<()> {
    if s.stage != Stage::Fragment {
        return Ok(());
    }
    let (mut e, ubo, xu, yu) = pixel_coords(s, "polygon stipple")?;
    let m31 = e.u32(31);
    let xm = e.alu(AluOp::Iand, Type::U32, &[xu, m31]);
    let ym = e.alu(AluOp::Iand, Type::U32, &[yu, m31]);
    let four = e.u32(4);
    let mut off = e.alu(AluOp::Imul, Type::U32, &[ym, four]);
    if driver_ubo::POLYGON_STIPPLE != 0 {
        let base = e.u32(driver_ubo::POLYGON_STIPPLE);
        off = e.alu(AluOp::Iadd, Type::U32, &[off, base]);
    }
    let row = e.def(
        Type::U32,
        Op::Intrinsic(Intrinsic::LoadUbo {
            var: ubo,
            offset: off,
        }),
    );
    let msb = e.u32(0x8000_0000);
    let bit = e.alu(AluOp::Ushr, Type::U32, &[msb, xm]);
    let on = e.alu(AluOp::Iand, Type::U32, &[row, bit]);
    let zero = e.u32(0);
    let off_px = e.alu(AluOp::Ieq, Type::BOOL, &[on, zero]);
    discard_first_if(e, off_px);
    Ok(())
}

/// Window rectangles (`GL_EXT_window_rectangles`) in the fragment shader,
/// for devices without `VK_EXT_discard_rectangles`: the fragment is
/// discarded when its pixel is inside none of the first `count` rectangles
/// of [`driver_ubo::WINDOW_RECTS`] (`include`), or inside any of them
/// (exclude). Include mode with no rectangle discards everything, as the
/// extension says. The test runs first, like the fixed-function test it
/// replaces, so the fragment's side effects never happen.
pub fn lower_window_rects(s: &mut Shader, include: bool, count: u8) -> Result<()> {
    if s.stage != Stage::Fragment {
        return Ok(());
    }
    if u32::from(count) > driver_ubo::MAX_WINDOW_RECTS {
        return Err(Error::new(format!(
            "window rectangles: {count} rectangles (at most {})",
            driver_ubo::MAX_WINDOW_RECTS
        )));
    }
    let (mut e, ubo, xu, yu) = pixel_coords(s, "window rectangles")?;
    let mut inside_any = None;
    for i in 0..u32::from(count) {
        let off = e.u32(driver_ubo::WINDOW_RECTS + 16 * i);
        let r = e.def(
            Type::uint(32, 4),
            Op::Intrinsic(Intrinsic::LoadUbo {
                var: ubo,
                offset: off,
            }),
        );
        let comp = |e: &mut Emit, k: u8| e.swizzle(Type::uint(32, 4), r, &[k]);
        let (minx, miny, maxx, maxy) = (
            comp(&mut e, 0),
            comp(&mut e, 1),
            comp(&mut e, 2),
            comp(&mut e, 3),
        );
        let a = e.alu(AluOp::Uge, Type::BOOL, &[xu, minx]);
        let b = e.alu(AluOp::Ult, Type::BOOL, &[xu, maxx]);
        let cy = e.alu(AluOp::Uge, Type::BOOL, &[yu, miny]);
        let d = e.alu(AluOp::Ult, Type::BOOL, &[yu, maxy]);
        let ab = e.alu(AluOp::Band, Type::BOOL, &[a, b]);
        let cd = e.alu(AluOp::Band, Type::BOOL, &[cy, d]);
        let inside = e.alu(AluOp::Band, Type::BOOL, &[ab, cd]);
        inside_any = Some(match inside_any {
            None => inside,
            Some(prev) => e.alu(AluOp::Bor, Type::BOOL, &[prev, inside]),
        });
    }
    let inside_any = match inside_any {
        Some(v) => v,
        None => e.konst(Type::BOOL, vec![0]),
    };
    let cull = if include {
        e.alu(AluOp::Bnot, Type::BOOL, &[inside_any])
    } else {
        inside_any
    };
    discard_first_if(e, cull);
    Ok(())
}

/// Clip-space depth range (NIR's `nir_lower_clip_halfz`): in the last
/// stage before rasterization, GL's [-1, 1] depth becomes Vulkan's [0, 1]
/// with `position.z = (position.z + position.w) / 2` at every exit (before
/// each `emit_vertex` in a geometry shader). pipe-vk needs it when the
/// rasterizer's `clip_halfz` is off and the device lacks
/// `VK_EXT_depth_clip_control`.
pub fn lower_clip_halfz(s: &mut Shader) -> Result<()> {
    if !s.stage.is_pre_raster() {
        return Ok(());
    }
    let Some(pos) = s.find_builtin(true, BuiltIn::Position) else {
        return Ok(());
    };
    if s.var(pos).ty != Type::vec4() || s.var(pos).array.is_some() {
        return Err(Error::new("depth range: position must be an f32x4 output"));
    }
    let mut make = |s: &mut Shader| {
        let mut e = Emit::new(s);
        let p = e.load(pos, None);
        let z = e.swizzle(Type::vec4(), p, &[2]);
        let w = e.swizzle(Type::vec4(), p, &[3]);
        let zw = e.alu(AluOp::Fadd, Type::F32, &[z, w]);
        let half = e.f32(0.5);
        let nz = e.alu(AluOp::Fmul, Type::F32, &[zw, half]);
        let np = e.def(Type::vec4(), Op::Insert(p, nz, 2));
        e.store(pos, None, np);
        e.out
    };
    insert_at_vertex_end(s, &mut make);
    Ok(())
}
