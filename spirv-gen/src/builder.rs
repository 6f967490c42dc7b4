//! The Rust builder: what a frontend uses to create shaders.
//!
//! Design: the builder owns a [`Shader`] and a stack of open bodies (the
//! function body, then one per open `if` branch or `loop`). Instructions are
//! appended to the innermost open body. It remembers the type of every value
//! it created, so most helpers infer the destination type from their
//! sources (as `nir_builder` does). It performs no checking beyond what is
//! needed to build: run [`crate::validate`] on the result (or use
//! [`Builder::finish`], which does).

use crate::error::{Error, Result};
use crate::ir::*;

enum Frame {
    If {
        cond: ValueId,
        then_body: Option<Vec<Node>>,
        body: Vec<Node>,
    },
    Loop {
        body: Vec<Node>,
    },
}

/// Shader builder.
pub struct Builder {
    shader: Shader,
    types: Vec<Option<Type>>,
    body: Vec<Node>,
    stack: Vec<Frame>,
}

impl Builder {
    pub fn new(stage: Stage) -> Builder {
        Builder {
            shader: Shader::new(stage),
            types: Vec::new(),
            body: Vec::new(),
            stack: Vec::new(),
        }
    }
    pub fn stage(&self) -> Stage {
        self.shader.stage
    }
    /// Execution modes (workgroup size, GS/tess modes, …).
    pub fn info_mut(&mut self) -> &mut StageInfo {
        &mut self.shader.info
    }
    /// The type of a value created by this builder.
    pub fn type_of(&self, v: ValueId) -> Option<Type> {
        self.types.get(v.0 as usize).copied().flatten()
    }

    // -- variables ------------------------------------------------------

    pub fn var(&mut self, name: &str, kind: VarKind, ty: Type, array: Option<u32>) -> VarId {
        self.shader.add_var(Variable {
            name: name.into(),
            kind,
            ty,
            array,
            inner: None,
        })
    }
    /// An input at `location`.
    pub fn input(&mut self, name: &str, ty: Type, location: u32) -> VarId {
        let io = IoInfo {
            location: Some(location),
            ..Default::default()
        };
        self.var(name, VarKind::Input(io), ty, None)
    }
    /// An output at `location`.
    pub fn output(&mut self, name: &str, ty: Type, location: u32) -> VarId {
        let io = IoInfo {
            location: Some(location),
            ..Default::default()
        };
        self.var(name, VarKind::Output(io), ty, None)
    }
    /// An input with full interface info.
    pub fn input_io(&mut self, name: &str, ty: Type, array: Option<u32>, io: IoInfo) -> VarId {
        self.var(name, VarKind::Input(io), ty, array)
    }
    /// An output with full interface info.
    pub fn output_io(&mut self, name: &str, ty: Type, array: Option<u32>, io: IoInfo) -> VarId {
        self.var(name, VarKind::Output(io), ty, array)
    }
    /// A built-in input or output.
    pub fn builtin(
        &mut self,
        name: &str,
        output: bool,
        b: BuiltIn,
        ty: Type,
        array: Option<u32>,
    ) -> VarId {
        let io = IoInfo {
            builtin: Some(b),
            ..Default::default()
        };
        let kind = if output {
            VarKind::Output(io)
        } else {
            VarKind::Input(io)
        };
        self.var(name, kind, ty, array)
    }
    pub fn local(&mut self, name: &str, ty: Type) -> VarId {
        self.var(name, VarKind::Local, ty, None)
    }
    pub fn shared(&mut self, name: &str, ty: Type, len: u32) -> VarId {
        self.var(name, VarKind::Shared, ty, Some(len))
    }
    pub fn ubo(&mut self, name: &str, slot: u32, size: u32) -> VarId {
        self.var(name, VarKind::Ubo { slot, size }, Type::U32, None)
    }
    pub fn ssbo(&mut self, name: &str, slot: u32) -> VarId {
        self.var(
            name,
            VarKind::Ssbo {
                slot,
                readonly: false,
            },
            Type::U32,
            None,
        )
    }
    pub fn push_constants(&mut self, name: &str, size: u32) -> VarId {
        self.var(name, VarKind::Push { size }, Type::U32, None)
    }
    pub fn texture(&mut self, name: &str, info: TextureInfo) -> VarId {
        self.var(name, VarKind::Texture(info), Type::U32, None)
    }
    pub fn image(&mut self, name: &str, info: ImageInfo) -> VarId {
        self.var(name, VarKind::Image(info), Type::U32, None)
    }

    // -- instructions ---------------------------------------------------

    fn cur(&mut self) -> &mut Vec<Node> {
        match self.stack.last_mut() {
            None => &mut self.body,
            Some(Frame::If { body, .. }) | Some(Frame::Loop { body }) => body,
        }
    }
    /// Appends a raw instruction with a destination of type `ty`.
    pub fn instr(&mut self, ty: Type, op: Op) -> ValueId {
        let v = self.shader.new_value();
        if self.types.len() <= v.0 as usize {
            self.types.resize(v.0 as usize + 1, None);
        }
        self.types[v.0 as usize] = Some(ty);
        self.cur().push(Node::Instr(Instr {
            dest: Some((v, ty)),
            op,
            loc: None,
        }));
        v
    }
    /// Appends an instruction without a destination.
    pub fn instr_void(&mut self, op: Op) {
        self.cur().push(Node::Instr(Instr {
            dest: None,
            op,
            loc: None,
        }));
    }
    fn ty(&self, v: ValueId) -> Type {
        self.type_of(v).unwrap_or(Type::F32)
    }

    pub fn const_bits(&mut self, ty: Type, bits: Vec<u64>) -> ValueId {
        self.instr(ty, Op::Const(bits))
    }
    pub fn const_f32(&mut self, x: f32) -> ValueId {
        self.const_bits(Type::F32, vec![x.to_bits() as u64])
    }
    pub fn const_vec4(&mut self, x: [f32; 4]) -> ValueId {
        self.const_bits(Type::vec4(), x.iter().map(|f| f.to_bits() as u64).collect())
    }
    pub fn const_u32(&mut self, x: u32) -> ValueId {
        self.const_bits(Type::U32, vec![x as u64])
    }
    pub fn const_i32(&mut self, x: i32) -> ValueId {
        self.const_bits(Type::I32, vec![x as u32 as u64])
    }
    pub fn const_bool(&mut self, b: bool) -> ValueId {
        self.const_bits(Type::BOOL, vec![b as u64])
    }
    pub fn undef(&mut self, ty: Type) -> ValueId {
        self.instr(ty, Op::Undef)
    }
    /// An ALU op with an explicit destination type.
    pub fn alu(&mut self, op: AluOp, ty: Type, srcs: &[ValueId]) -> ValueId {
        self.instr(ty, Op::Alu(op, srcs.to_vec()))
    }
    /// An ALU op whose destination type is inferred: same as the first
    /// source, bool for comparisons, scalar for reductions.
    pub fn alu_auto(&mut self, op: AluOp, srcs: &[ValueId]) -> ValueId {
        let t0 = srcs.first().map(|&s| self.ty(s)).unwrap_or(Type::F32);
        let ty = match op.sig() {
            AluSig::Cmp(..) => Type::bool(t0.comps),
            _ => match op {
                AluOp::Fdot | AluOp::Flength | AluOp::Fdistance => t0.scalar(),
                AluOp::Bany | AluOp::Ball => Type::BOOL,
                AluOp::Bcsel => srcs.get(1).map(|&s| self.ty(s)).unwrap_or(t0),
                _ => t0,
            },
        };
        self.alu(op, ty, srcs)
    }
    pub fn fadd(&mut self, a: ValueId, b: ValueId) -> ValueId {
        self.alu_auto(AluOp::Fadd, &[a, b])
    }
    pub fn fmul(&mut self, a: ValueId, b: ValueId) -> ValueId {
        self.alu_auto(AluOp::Fmul, &[a, b])
    }
    pub fn iadd(&mut self, a: ValueId, b: ValueId) -> ValueId {
        self.alu_auto(AluOp::Iadd, &[a, b])
    }
    pub fn bcsel(&mut self, c: ValueId, a: ValueId, b: ValueId) -> ValueId {
        self.alu_auto(AluOp::Bcsel, &[c, a, b])
    }
    /// Converts with `op` to `ty` (same component count as the source).
    pub fn conv(&mut self, op: AluOp, ty: Type, src: ValueId) -> ValueId {
        let comps = self.ty(src).comps;
        self.alu(op, ty.with_comps(comps), &[src])
    }
    /// Builds a vector from scalars (or smaller vectors).
    pub fn vec(&mut self, srcs: &[ValueId]) -> ValueId {
        let t0 = self.ty(srcs[0]);
        let n: u8 = srcs.iter().map(|&s| self.ty(s).comps).sum();
        self.alu(AluOp::Vec, t0.with_comps(n.clamp(1, 4)), srcs)
    }
    pub fn swizzle(&mut self, src: ValueId, comps: &[u8]) -> ValueId {
        let t = self.ty(src).with_comps(comps.len().clamp(1, 4) as u8);
        self.instr(t, Op::Swizzle(src, comps.to_vec()))
    }
    /// Extracts component `c`.
    pub fn channel(&mut self, src: ValueId, c: u8) -> ValueId {
        self.swizzle(src, &[c])
    }
    pub fn insert(&mut self, vec: ValueId, val: ValueId, c: u8) -> ValueId {
        let t = self.ty(vec);
        self.instr(t, Op::Insert(vec, val, c))
    }

    // -- memory ---------------------------------------------------------

    fn var_ty(&self, var: VarId) -> Type {
        self.shader
            .vars
            .get(var.0 as usize)
            .map(|v| v.ty)
            .unwrap_or(Type::F32)
    }
    pub fn load(&mut self, var: VarId) -> ValueId {
        let t = self.var_ty(var);
        self.instr(t, Op::Intrinsic(Intrinsic::Load { var, index: None }))
    }
    pub fn load_index(&mut self, var: VarId, index: ValueId) -> ValueId {
        let t = self.var_ty(var);
        self.instr(
            t,
            Op::Intrinsic(Intrinsic::Load {
                var,
                index: Some(index),
            }),
        )
    }
    pub fn store(&mut self, var: VarId, value: ValueId) {
        self.instr_void(Op::Intrinsic(Intrinsic::Store {
            var,
            index: None,
            value,
        }))
    }
    pub fn store_index(&mut self, var: VarId, index: ValueId, value: ValueId) {
        self.instr_void(Op::Intrinsic(Intrinsic::Store {
            var,
            index: Some(index),
            value,
        }))
    }
    pub fn load_ubo(&mut self, var: VarId, ty: Type, offset: ValueId) -> ValueId {
        self.instr(ty, Op::Intrinsic(Intrinsic::LoadUbo { var, offset }))
    }
    pub fn load_ssbo(&mut self, var: VarId, ty: Type, offset: ValueId) -> ValueId {
        self.instr(ty, Op::Intrinsic(Intrinsic::LoadSsbo { var, offset }))
    }
    pub fn store_ssbo(&mut self, var: VarId, offset: ValueId, value: ValueId) {
        self.instr_void(Op::Intrinsic(Intrinsic::StoreSsbo { var, offset, value }))
    }
    /// A load through a `u64` buffer device address.
    pub fn load_global(&mut self, ty: Type, address: ValueId) -> ValueId {
        self.instr(ty, Op::Intrinsic(Intrinsic::LoadGlobal { address }))
    }
    /// A store through a `u64` buffer device address.
    pub fn store_global(&mut self, address: ValueId, value: ValueId) {
        self.instr_void(Op::Intrinsic(Intrinsic::StoreGlobal { address, value }))
    }
    pub fn load_push(&mut self, var: VarId, ty: Type, offset: ValueId) -> ValueId {
        self.instr(ty, Op::Intrinsic(Intrinsic::LoadPush { var, offset }))
    }
    pub fn intrinsic(&mut self, ty: Option<Type>, i: Intrinsic) -> Option<ValueId> {
        match ty {
            Some(t) => Some(self.instr(t, Op::Intrinsic(i))),
            None => {
                self.instr_void(Op::Intrinsic(i));
                None
            }
        }
    }
    pub fn tex(&mut self, ty: Type, tex: Tex) -> ValueId {
        self.instr(ty, Op::Tex(tex))
    }

    // -- control flow ---------------------------------------------------

    pub fn begin_if(&mut self, cond: ValueId) {
        self.stack.push(Frame::If {
            cond,
            then_body: None,
            body: Vec::new(),
        });
    }
    pub fn begin_else(&mut self) -> Result<()> {
        match self.stack.last_mut() {
            Some(Frame::If {
                then_body: t @ None,
                body,
                ..
            }) => {
                *t = Some(std::mem::take(body));
                Ok(())
            }
            _ => Err(Error::new("begin_else without an open if")),
        }
    }
    pub fn end_if(&mut self) -> Result<()> {
        match self.stack.pop() {
            Some(Frame::If {
                cond,
                then_body,
                body,
            }) => {
                let (then_body, else_body) = match then_body {
                    Some(t) => (t, body),
                    None => (body, Vec::new()),
                };
                let node = Node::If(Box::new(If {
                    cond,
                    then_body,
                    else_body,
                    loc: None,
                }));
                self.cur().push(node);
                Ok(())
            }
            Some(f) => {
                self.stack.push(f);
                Err(Error::new("end_if closes a loop"))
            }
            None => Err(Error::new("end_if without an open if")),
        }
    }
    pub fn begin_loop(&mut self) {
        self.stack.push(Frame::Loop { body: Vec::new() });
    }
    pub fn end_loop(&mut self) -> Result<()> {
        match self.stack.pop() {
            Some(Frame::Loop { body }) => {
                self.cur()
                    .push(Node::Loop(Box::new(Loop { body, loc: None })));
                Ok(())
            }
            Some(f) => {
                self.stack.push(f);
                Err(Error::new("end_loop closes an if"))
            }
            None => Err(Error::new("end_loop without an open loop")),
        }
    }
    pub fn jump(&mut self, j: Jump) {
        self.cur().push(Node::Jump(j, None));
    }

    /// Finishes without validating.
    pub fn finish_unchecked(mut self) -> Result<Shader> {
        if !self.stack.is_empty() {
            return Err(Error::new("unclosed if or loop"));
        }
        self.shader.body = std::mem::take(&mut self.body);
        Ok(self.shader)
    }
    /// Finishes and validates.
    pub fn finish(self) -> Result<Shader> {
        let s = self.finish_unchecked()?;
        crate::validate::validate(&s)?;
        Ok(s)
    }
}
