//! Per-instruction emission: ALU ops (core SPIR-V and GLSL.std.450),
//! memory intrinsics (word-addressed buffers, variables, atomics, images,
//! barriers, GS emission, demote) and texture instructions.

use super::{Emitter, Target};
use crate::error::{Error, Result};
use crate::ir::*;
use rspirv::spirv::{self, Capability, Op as SOp, StorageClass, Word};

fn words(v: &[Word]) -> Vec<Word> {
    v.to_vec()
}

/// Up to `N` words on the stack (operand lists are short), more on the
/// heap.
struct Words<const N: usize> {
    buf: [Word; N],
    len: usize,
    more: Vec<Word>,
}

impl<const N: usize> Words<N> {
    fn new() -> Self {
        Words {
            buf: [0; N],
            len: 0,
            more: Vec::new(),
        }
    }
    fn push(&mut self, w: Word) {
        if self.len < N && self.more.is_empty() {
            self.buf[self.len] = w;
            self.len += 1;
        } else {
            if self.more.is_empty() {
                self.more.extend_from_slice(&self.buf[..self.len]);
            }
            self.more.push(w);
        }
    }
    fn extend(&mut self, ws: impl IntoIterator<Item = Word>) {
        for w in ws {
            self.push(w);
        }
    }
    fn as_slice(&self) -> &[Word] {
        if self.more.is_empty() {
            &self.buf[..self.len]
        } else {
            &self.more
        }
    }
}

/// GLSL.std.450 instruction numbers.
mod glsl {
    pub const ROUND_EVEN: u32 = 2;
    pub const TRUNC: u32 = 3;
    pub const FABS: u32 = 4;
    pub const SABS: u32 = 5;
    pub const FSIGN: u32 = 6;
    pub const SSIGN: u32 = 7;
    pub const FLOOR: u32 = 8;
    pub const CEIL: u32 = 9;
    pub const FRACT: u32 = 10;
    pub const SIN: u32 = 13;
    pub const COS: u32 = 14;
    pub const TAN: u32 = 15;
    pub const ASIN: u32 = 16;
    pub const ACOS: u32 = 17;
    pub const ATAN: u32 = 18;
    pub const SINH: u32 = 19;
    pub const COSH: u32 = 20;
    pub const TANH: u32 = 21;
    pub const ATAN2: u32 = 25;
    pub const POW: u32 = 26;
    pub const EXP: u32 = 27;
    pub const LOG: u32 = 28;
    pub const EXP2: u32 = 29;
    pub const LOG2: u32 = 30;
    pub const SQRT: u32 = 31;
    pub const INVERSE_SQRT: u32 = 32;
    pub const FMIN: u32 = 37;
    pub const UMIN: u32 = 38;
    pub const SMIN: u32 = 39;
    pub const FMAX: u32 = 40;
    pub const UMAX: u32 = 41;
    pub const SMAX: u32 = 42;
    pub const FCLAMP: u32 = 43;
    pub const UCLAMP: u32 = 44;
    pub const SCLAMP: u32 = 45;
    pub const FMIX: u32 = 46;
    pub const STEP: u32 = 48;
    pub const SMOOTH_STEP: u32 = 49;
    pub const FMA: u32 = 50;
    pub const LDEXP: u32 = 53;
    pub const PACK_SNORM_4X8: u32 = 54;
    pub const PACK_UNORM_4X8: u32 = 55;
    pub const PACK_SNORM_2X16: u32 = 56;
    pub const PACK_UNORM_2X16: u32 = 57;
    pub const PACK_HALF_2X16: u32 = 58;
    pub const UNPACK_SNORM_2X16: u32 = 60;
    pub const UNPACK_UNORM_2X16: u32 = 61;
    pub const UNPACK_HALF_2X16: u32 = 62;
    pub const UNPACK_SNORM_4X8: u32 = 63;
    pub const UNPACK_UNORM_4X8: u32 = 64;
    pub const LENGTH: u32 = 66;
    pub const DISTANCE: u32 = 67;
    pub const CROSS: u32 = 68;
    pub const NORMALIZE: u32 = 69;
    pub const FIND_ILSB: u32 = 73;
    pub const FIND_SMSB: u32 = 74;
    pub const FIND_UMSB: u32 = 75;
    pub const INTERPOLATE_AT_CENTROID: u32 = 76;
    pub const INTERPOLATE_AT_SAMPLE: u32 = 77;
    pub const INTERPOLATE_AT_OFFSET: u32 = 78;
}

impl Emitter<'_> {
    fn ext_inst(&mut self, ty: Word, inst: u32, args: &[Word]) -> Word {
        let g = self.glsl();
        let mut ops = Words::<8>::new();
        ops.push(g);
        ops.push(inst);
        ops.extend(args.iter().copied());
        self.op(SOp::ExtInst, ty, ops.as_slice())
    }

    /// Bitcast `v` (of IR type `from`) to `to`, or return it unchanged.
    fn bitcast(&mut self, v: Word, from: Type, to: Type) -> Word {
        if from == to {
            return v;
        }
        let t = self.ty(to);
        self.op(SOp::Bitcast, t, &[v])
    }

    /// Splat a scalar to `n` components.
    fn splat(&mut self, v: Word, t: Type, n: u8) -> Word {
        if n == 1 {
            return v;
        }
        let vt = self.ty(t.with_comps(n));
        self.op(SOp::CompositeConstruct, vt, &[v; 4][..(n as usize).min(4)])
    }

    pub(super) fn instr_inner(&mut self, i: &Instr) -> Result<Option<Word>> {
        let dt = i.dest.map(|d| d.1);
        match &i.op {
            Op::Const(bits) => {
                let t = dt.ok_or_else(|| Error::new("const without destination"))?;
                Ok(Some(self.constant(t, bits)))
            }
            Op::Undef => {
                let t = dt.ok_or_else(|| Error::new("undef without destination"))?;
                let ty = self.ty(t);
                let id = self.id();
                self.globals.inst_ids(SOp::Undef, Some(ty), Some(id), &[]);
                Ok(Some(id))
            }
            Op::Alu(op, srcs) => {
                let t = dt.ok_or_else(|| Error::new("ALU op without destination"))?;
                let mut v = Words::<4>::new();
                let mut ts = [Type::F32; 4];
                for (k, &s) in srcs.iter().enumerate() {
                    v.push(self.val(s)?);
                    if let Some(x) = ts.get_mut(k) {
                        *x = self.vty(s);
                    }
                }
                if srcs.len() > ts.len() {
                    return Err(Error::new(format!("{} has too many sources", op.name())));
                }
                self.alu(*op, t, v.as_slice(), &ts[..srcs.len()]).map(Some)
            }
            Op::Swizzle(src, comps) => {
                let t = dt.ok_or_else(|| Error::new("swizzle without destination"))?;
                let s = self.val(*src)?;
                let st = self.vty(*src);
                let ty = self.ty(t);
                Ok(Some(if st.comps == 1 {
                    let v = self.splat(s, st, comps.len() as u8);
                    if comps.len() == 1 {
                        self.op(SOp::CopyObject, ty, &[v])
                    } else {
                        v
                    }
                } else if comps.len() == 1 {
                    self.op(SOp::CompositeExtract, ty, &[s, comps[0] as u32])
                } else {
                    let mut ops = Words::<6>::new();
                    ops.extend([s, s]);
                    ops.extend(comps.iter().map(|&c| c as u32));
                    self.op(SOp::VectorShuffle, ty, ops.as_slice())
                }))
            }
            Op::Insert(vec, x, c) => {
                let t = dt.ok_or_else(|| Error::new("insert without destination"))?;
                let (v, xv) = (self.val(*vec)?, self.val(*x)?);
                let ty = self.ty(t);
                Ok(Some(if t.comps == 1 {
                    self.op(SOp::CopyObject, ty, &[xv])
                } else {
                    self.op(SOp::CompositeInsert, ty, &[xv, v, *c as u32])
                }))
            }
            Op::Intrinsic(intr) => self.intrinsic(intr, dt),
            Op::Tex(tex) => {
                let t = dt.ok_or_else(|| Error::new("texture op without destination"))?;
                self.tex(tex, t).map(Some)
            }
        }
    }

    fn alu(&mut self, op: AluOp, t: Type, v: &[Word], ts: &[Type]) -> Result<Word> {
        use AluOp::*;
        let ty = self.ty(t);
        let n = v.len();
        let need = |k: usize| {
            if n == k {
                Ok(())
            } else {
                Err(Error::new(format!("{} needs {k} sources", op.name())))
            }
        };
        let core = |e: &mut Self, o: SOp| e.op(o, ty, v);
        let ext = |e: &mut Self, x: u32| e.ext_inst(ty, x, v);
        let r = match op {
            Fadd => core(self, SOp::FAdd),
            Fsub => core(self, SOp::FSub),
            Fmul => core(self, SOp::FMul),
            Fdiv => core(self, SOp::FDiv),
            Fmod => core(self, SOp::FMod),
            Fneg => core(self, SOp::FNegate),
            Fabs => ext(self, glsl::FABS),
            Fsign => ext(self, glsl::FSIGN),
            Ffloor => ext(self, glsl::FLOOR),
            Fceil => ext(self, glsl::CEIL),
            Ftrunc => ext(self, glsl::TRUNC),
            FroundEven => ext(self, glsl::ROUND_EVEN),
            Ffract => ext(self, glsl::FRACT),
            Fmin => ext(self, glsl::FMIN),
            Fmax => ext(self, glsl::FMAX),
            Fclamp => ext(self, glsl::FCLAMP),
            Fsat => {
                need(1)?;
                let zero = self.const_float_splat(t, 0.0);
                let one = self.const_float_splat(t, 1.0);
                self.ext_inst(ty, glsl::FCLAMP, &[v[0], zero, one])
            }
            Ffma => ext(self, glsl::FMA),
            Flrp => ext(self, glsl::FMIX),
            Fstep => ext(self, glsl::STEP),
            Fsmoothstep => ext(self, glsl::SMOOTH_STEP),
            Frcp => {
                need(1)?;
                let one = self.const_float_splat(t, 1.0);
                self.op(SOp::FDiv, ty, &[one, v[0]])
            }
            Frsq => ext(self, glsl::INVERSE_SQRT),
            Fsqrt => ext(self, glsl::SQRT),
            Fexp2 => ext(self, glsl::EXP2),
            Flog2 => ext(self, glsl::LOG2),
            Fexp => ext(self, glsl::EXP),
            Flog => ext(self, glsl::LOG),
            Fpow => ext(self, glsl::POW),
            Fsin => ext(self, glsl::SIN),
            Fcos => ext(self, glsl::COS),
            Ftan => ext(self, glsl::TAN),
            Fasin => ext(self, glsl::ASIN),
            Facos => ext(self, glsl::ACOS),
            Fatan => ext(self, glsl::ATAN),
            Fatan2 => ext(self, glsl::ATAN2),
            Fsinh => ext(self, glsl::SINH),
            Fcosh => ext(self, glsl::COSH),
            Ftanh => ext(self, glsl::TANH),
            Fdot => {
                need(2)?;
                if ts[0].comps == 1 {
                    core(self, SOp::FMul)
                } else {
                    core(self, SOp::Dot)
                }
            }
            Fcross => ext(self, glsl::CROSS),
            Flength => ext(self, glsl::LENGTH),
            Fnormalize => ext(self, glsl::NORMALIZE),
            Fdistance => ext(self, glsl::DISTANCE),
            Fldexp => ext(self, glsl::LDEXP),
            Feq => core(self, SOp::FOrdEqual),
            Fneu => core(self, SOp::FUnordNotEqual),
            Flt => core(self, SOp::FOrdLessThan),
            Fge => core(self, SOp::FOrdGreaterThanEqual),
            Fisnan => core(self, SOp::IsNan),
            Fisinf => core(self, SOp::IsInf),
            Iadd => core(self, SOp::IAdd),
            Isub => core(self, SOp::ISub),
            Imul => core(self, SOp::IMul),
            Idiv => core(self, SOp::SDiv),
            Udiv => core(self, SOp::UDiv),
            Irem => core(self, SOp::SRem),
            Imod => core(self, SOp::SMod),
            Umod => core(self, SOp::UMod),
            Ineg => core(self, SOp::SNegate),
            Iabs => ext(self, glsl::SABS),
            Isign => ext(self, glsl::SSIGN),
            Imin => ext(self, glsl::SMIN),
            Imax => ext(self, glsl::SMAX),
            Umin => ext(self, glsl::UMIN),
            Umax => ext(self, glsl::UMAX),
            Iclamp => ext(self, glsl::SCLAMP),
            Uclamp => ext(self, glsl::UCLAMP),
            Ieq => core(self, SOp::IEqual),
            Ine => core(self, SOp::INotEqual),
            Ilt => core(self, SOp::SLessThan),
            Ige => core(self, SOp::SGreaterThanEqual),
            Ult => core(self, SOp::ULessThan),
            Uge => core(self, SOp::UGreaterThanEqual),
            Iand => core(self, SOp::BitwiseAnd),
            Ior => core(self, SOp::BitwiseOr),
            Ixor => core(self, SOp::BitwiseXor),
            Inot => core(self, SOp::Not),
            Ishl => core(self, SOp::ShiftLeftLogical),
            Ishr => core(self, SOp::ShiftRightArithmetic),
            Ushr => core(self, SOp::ShiftRightLogical),
            BitCount => core(self, SOp::BitCount),
            BitfieldReverse => core(self, SOp::BitReverse),
            FindLsb => ext(self, glsl::FIND_ILSB),
            UfindMsb => ext(self, glsl::FIND_UMSB),
            IfindMsb => ext(self, glsl::FIND_SMSB),
            UbitfieldExtract | IbitfieldExtract | BitfieldInsert
                if crate::passes::split::needs_split(op, t, ts) =>
            {
                return Err(Error::new(format!(
                    "{} with per-component offset/count has no SPIR-V form: \
                     run passes::split::split_vectors (passes::lower does)",
                    op.name()
                )))
            }
            UbitfieldExtract => core(self, SOp::BitFieldUExtract),
            IbitfieldExtract => core(self, SOp::BitFieldSExtract),
            BitfieldInsert => core(self, SOp::BitFieldInsert),
            Band => core(self, SOp::LogicalAnd),
            Bor => core(self, SOp::LogicalOr),
            Bxor => core(self, SOp::LogicalNotEqual),
            Bnot => core(self, SOp::LogicalNot),
            Beq => core(self, SOp::LogicalEqual),
            Bany | Ball => {
                need(1)?;
                if ts[0].comps == 1 {
                    self.op(SOp::CopyObject, ty, v)
                } else {
                    core(self, if op == Bany { SOp::Any } else { SOp::All })
                }
            }
            Bcsel => {
                need(3)?;
                let c = if ts[0].comps != t.comps {
                    self.splat(v[0], Type::BOOL, t.comps)
                } else {
                    v[0]
                };
                self.op(SOp::Select, ty, &[c, v[1], v[2]])
            }
            F2f => {
                need(1)?;
                if ts[0].bits == t.bits {
                    self.op(SOp::CopyObject, ty, v)
                } else {
                    core(self, SOp::FConvert)
                }
            }
            F2i => core(self, SOp::ConvertFToS),
            F2u => core(self, SOp::ConvertFToU),
            I2f => core(self, SOp::ConvertSToF),
            U2f => core(self, SOp::ConvertUToF),
            I2i | U2u => {
                need(1)?;
                if ts[0].bits == t.bits {
                    self.bitcast_or_copy(v[0], ts[0], t)
                } else if op == I2i {
                    core(self, SOp::SConvert)
                } else {
                    core(self, SOp::UConvert)
                }
            }
            B2f | B2i => {
                need(1)?;
                let one = if op == B2f {
                    self.const_float_splat(t, 1.0)
                } else {
                    self.const_int_splat(t, 1)
                };
                let zero = if op == B2f {
                    self.const_float_splat(t, 0.0)
                } else {
                    self.const_int_splat(t, 0)
                };
                self.op(SOp::Select, ty, &[v[0], one, zero])
            }
            F2b => {
                need(1)?;
                let zero = self.const_float_splat(ts[0], 0.0);
                self.op(SOp::FUnordNotEqual, ty, &[v[0], zero])
            }
            I2b => {
                need(1)?;
                let zero = self.const_int_splat(ts[0], 0);
                self.op(SOp::INotEqual, ty, &[v[0], zero])
            }
            Bitcast => {
                need(1)?;
                self.bitcast_or_copy(v[0], ts[0], t)
            }
            PackHalf2x16 => ext(self, glsl::PACK_HALF_2X16),
            UnpackHalf2x16 => ext(self, glsl::UNPACK_HALF_2X16),
            PackSnorm4x8 => ext(self, glsl::PACK_SNORM_4X8),
            UnpackSnorm4x8 => ext(self, glsl::UNPACK_SNORM_4X8),
            PackUnorm4x8 => ext(self, glsl::PACK_UNORM_4X8),
            UnpackUnorm4x8 => ext(self, glsl::UNPACK_UNORM_4X8),
            PackSnorm2x16 => ext(self, glsl::PACK_SNORM_2X16),
            UnpackSnorm2x16 => ext(self, glsl::UNPACK_SNORM_2X16),
            PackUnorm2x16 => ext(self, glsl::PACK_UNORM_2X16),
            UnpackUnorm2x16 => ext(self, glsl::UNPACK_UNORM_2X16),
            Fddx => core(self, SOp::DPdx),
            Fddy => core(self, SOp::DPdy),
            Fwidth => core(self, SOp::Fwidth),
            FddxFine | FddyFine | FddxCoarse | FddyCoarse => {
                self.cap(Capability::DerivativeControl);
                core(
                    self,
                    match op {
                        FddxFine => SOp::DPdxFine,
                        FddyFine => SOp::DPdyFine,
                        FddxCoarse => SOp::DPdxCoarse,
                        _ => SOp::DPdyCoarse,
                    },
                )
            }
            Vec => {
                if n == 1 {
                    self.op(SOp::CopyObject, ty, v)
                } else {
                    core(self, SOp::CompositeConstruct)
                }
            }
            Mov => self.op(SOp::CopyObject, ty, v),
        };
        Ok(r)
    }

    fn bitcast_or_copy(&mut self, v: Word, from: Type, to: Type) -> Word {
        if from == to {
            let ty = self.ty(to);
            self.op(SOp::CopyObject, ty, &[v])
        } else {
            self.bitcast(v, from, to)
        }
    }

    // -- memory -----------------------------------------------------------

    /// Pointer to the variable `var`, indexed by `index` when given.
    fn var_ptr(&mut self, var: VarId, index: Option<ValueId>) -> Result<(Word, Type)> {
        let info = *self
            .vars
            .get(var.0 as usize)
            .ok_or_else(|| Error::new("bad variable"))?;
        let vt = self.s.var(var).ty;
        let sc = info.sc.ok_or_else(|| Error::new("variable not declared"))?;
        match (index, self.s.var(var).inner) {
            (None, _) => Ok((info.id, vt)),
            (Some(i), None) => {
                let iv = self.val(i)?;
                let pt = self.ptr_ty(sc, info.elem);
                Ok((self.op(SOp::AccessChain, pt, &[info.id, iv]), vt))
            }
            // An array of arrays, indexed flat (`Variable::inner`): vertex
            // `i / inner`, element `i % inner`.
            (Some(i), Some(inner)) => {
                let (v, e) = match self.const_vals.get(i.0 as usize).copied().flatten() {
                    Some(c) => {
                        let c = c as u32;
                        (self.const_u32(c / inner), self.const_u32(c % inner))
                    }
                    None => {
                        let it = self.vty(i);
                        let iv = self.val(i)?;
                        let t = self.ty(it);
                        let (n, div, rem) = if it.base == BaseType::Int {
                            (self.const_i32(inner as i32), SOp::SDiv, SOp::SMod)
                        } else {
                            (self.const_u32(inner), SOp::UDiv, SOp::UMod)
                        };
                        (self.op(div, t, &[iv, n]), self.op(rem, t, &[iv, n]))
                    }
                };
                let pt = self.ptr_ty(sc, info.elem);
                Ok((self.op(SOp::AccessChain, pt, &[info.id, v, e]), vt))
            }
        }
    }

    /// The 32-bit word index `offset / 4 + k`: a known number, or a u32 id.
    fn word_index(&mut self, offset: ValueId, k: u32) -> Result<std::result::Result<u32, Word>> {
        let u = self.ty(Type::U32);
        if let Some(c) = self.const_vals.get(offset.0 as usize).copied().flatten() {
            return Ok(Ok((c as u32 >> 2).wrapping_add(k)));
        }
        let ot = self.vty(offset);
        let o = self.val(offset)?;
        let o = self.bitcast(o, ot, Type::U32);
        let two = self.const_u32(2);
        let w = self.op(SOp::ShiftRightLogical, u, &[o, two]);
        Ok(Err(if k == 0 {
            w
        } else {
            let kc = self.const_u32(k);
            self.op(SOp::IAdd, u, &[w, kc])
        }))
    }

    /// Pointer to 32-bit word `offset/4 + k` of a UBO/SSBO/push block.
    fn word_ptr(&mut self, var: VarId, offset: ValueId, k: u32) -> Result<Word> {
        let info = self.vars[var.0 as usize];
        let sc = info.sc.ok_or_else(|| Error::new("variable not declared"))?;
        let w = self.word_index(offset, k)?;
        let zero = self.const_u32(0);
        let u = self.ty(Type::U32);
        let pt = self.ptr_ty(sc, u);
        if sc == StorageClass::Uniform {
            // uvec4 data[]: element w / 4, component w % 4.
            let (a, c) = match w {
                Ok(n) => (self.const_u32(n >> 2), self.const_u32(n & 3)),
                Err(w) => {
                    let two = self.const_u32(2);
                    let three = self.const_u32(3);
                    let a = self.op(SOp::ShiftRightLogical, u, &[w, two]);
                    let c = self.op(SOp::BitwiseAnd, u, &[w, three]);
                    (a, c)
                }
            };
            Ok(self.op(SOp::AccessChain, pt, &[info.id, zero, a, c]))
        } else {
            let w = match w {
                Ok(n) => self.const_u32(n),
                Err(w) => w,
            };
            Ok(self.op(SOp::AccessChain, pt, &[info.id, zero, w]))
        }
    }

    fn load_words(&mut self, var: VarId, offset: ValueId, t: Type) -> Result<Word> {
        let u = self.ty(Type::U32);
        let per = if t.bits == 64 { 2 } else { 1 };
        let mut comps = Vec::new();
        for c in 0..t.comps as u32 {
            let mut words = Vec::new();
            for k in 0..per {
                let p = self.word_ptr(var, offset, c * per + k)?;
                words.push(self.op(SOp::Load, u, &[p]));
            }
            let w = if per == 2 {
                let u2 = self.ty(Type::uint(32, 2));
                let v = self.op(SOp::CompositeConstruct, u2, &words);
                self.bitcast(v, Type::uint(32, 2), t.scalar())
            } else {
                self.bitcast(words[0], Type::U32, t.scalar())
            };
            comps.push(w);
        }
        Ok(if comps.len() == 1 {
            comps[0]
        } else {
            let ty = self.ty(t);
            self.op(SOp::CompositeConstruct, ty, &comps)
        })
    }

    /// A `PhysicalStorageBuffer` pointer to `t` at a `u64` address
    /// (`OpConvertUToPtr`); switches the module to the
    /// `PhysicalStorageBuffer64` addressing model.
    fn global_ptr(&mut self, address: ValueId, t: Type) -> Result<Word> {
        self.uses_global = true;
        self.cap(Capability::PhysicalStorageBufferAddresses);
        if !self.target.at_least_1_5() {
            self.ext("SPV_KHR_physical_storage_buffer");
        }
        let pointee = self.ty(t);
        let pt = self.ptr_ty(StorageClass::PhysicalStorageBuffer, pointee);
        let a = self.val(address)?;
        Ok(self.op(SOp::ConvertUToPtr, pt, &[a]))
    }

    fn store_words(&mut self, var: VarId, offset: ValueId, value: ValueId) -> Result<()> {
        let t = self.vty(value);
        let v = self.val(value)?;
        let u = self.ty(Type::U32);
        let st = self.ty(t.scalar());
        let per = if t.bits == 64 { 2 } else { 1 };
        for c in 0..t.comps as u32 {
            let comp = if t.comps == 1 {
                v
            } else {
                self.op(SOp::CompositeExtract, st, &[v, c])
            };
            let words: Vec<Word> = if per == 2 {
                let u2 = self.bitcast(comp, t.scalar(), Type::uint(32, 2));
                (0..2)
                    .map(|k| self.op(SOp::CompositeExtract, u, &[u2, k]))
                    .collect()
            } else {
                vec![self.bitcast(comp, t.scalar(), Type::U32)]
            };
            for (k, w) in words.into_iter().enumerate() {
                let p = self.word_ptr(var, offset, c * per + k as u32)?;
                self.op_void(SOp::Store, &[p, w]);
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn atomic(
        &mut self,
        ptr: Word,
        scope: Scope,
        op: AtomicOp,
        t: Type,
        ptr_t: Type,
        data: ValueId,
        compare: Option<ValueId>,
    ) -> Result<Word> {
        if t.bits == 64 {
            self.cap(Capability::Int64Atomics);
        }
        let d = self.val(data)?;
        let d = self.bitcast(d, t, ptr_t);
        let ty = self.ty(ptr_t);
        let sc = self.const_u32(scope_id(scope));
        let sem = self.const_u32(0);
        let r = if op == AtomicOp::CompSwap {
            let c = self.val(compare.ok_or_else(|| Error::new("comp_swap without comparator"))?)?;
            let c = self.bitcast(c, t, ptr_t);
            self.op(SOp::AtomicCompareExchange, ty, &[ptr, sc, sem, sem, d, c])
        } else {
            let o = match op {
                AtomicOp::Add => SOp::AtomicIAdd,
                AtomicOp::Imin => SOp::AtomicSMin,
                AtomicOp::Umin => SOp::AtomicUMin,
                AtomicOp::Imax => SOp::AtomicSMax,
                AtomicOp::Umax => SOp::AtomicUMax,
                AtomicOp::And => SOp::AtomicAnd,
                AtomicOp::Or => SOp::AtomicOr,
                AtomicOp::Xor => SOp::AtomicXor,
                _ => SOp::AtomicExchange,
            };
            self.op(o, ty, &[ptr, sc, sem, d])
        };
        Ok(self.bitcast(r, ptr_t, t))
    }

    fn image_of(&mut self, var: VarId) -> Result<(Word, ImageInfo)> {
        let VarKind::Image(im) = self.s.var(var).kind.clone() else {
            return Err(Error::new("not an image"));
        };
        let info = self.vars[var.0 as usize];
        let v = self.op(SOp::Load, info.elem, &[info.id]);
        Ok((v, im))
    }

    fn intrinsic(&mut self, intr: &Intrinsic, dt: Option<Type>) -> Result<Option<Word>> {
        use Intrinsic::*;
        let t = dt.unwrap_or(Type::U32);
        Ok(match intr {
            Load { var, index } => {
                let (p, vt) = self.var_ptr(*var, *index)?;
                let ty = self.ty(vt);
                Some(self.op(SOp::Load, ty, &[p]))
            }
            Interp { var, index, at } => {
                self.cap(spirv::Capability::InterpolationFunction);
                let (p, vt) = self.var_ptr(*var, *index)?;
                let ty = self.ty(vt);
                Some(match at {
                    InterpAt::Offset(off) => {
                        let off = self.val(*off)?;
                        self.ext_inst(ty, glsl::INTERPOLATE_AT_OFFSET, &[p, off])
                    }
                    InterpAt::Sample(sample) => {
                        let sample = self.val(*sample)?;
                        self.ext_inst(ty, glsl::INTERPOLATE_AT_SAMPLE, &[p, sample])
                    }
                    InterpAt::Centroid => self.ext_inst(ty, glsl::INTERPOLATE_AT_CENTROID, &[p]),
                })
            }
            Store { var, index, value } => {
                let (p, _) = self.var_ptr(*var, *index)?;
                let v = self.val(*value)?;
                self.op_void(SOp::Store, &[p, v]);
                None
            }
            LoadUbo { var, offset } | LoadSsbo { var, offset } | LoadPush { var, offset } => {
                Some(self.load_words(*var, *offset, t)?)
            }
            StoreSsbo { var, offset, value } => {
                self.store_words(*var, *offset, *value)?;
                None
            }
            LoadGlobal { address } => {
                let p = self.global_ptr(*address, t)?;
                let ty = self.ty(t);
                // Aligned 4.
                Some(self.op(SOp::Load, ty, &[p, 0x2, 4]))
            }
            StoreGlobal { address, value } => {
                let vt = self.vty(*value);
                let p = self.global_ptr(*address, vt)?;
                let v = self.val(*value)?;
                self.op_void(SOp::Store, &[p, v, 0x2, 4]);
                None
            }
            SsboAtomic {
                var,
                offset,
                op,
                data,
                compare,
            } => {
                let p = self.word_ptr(*var, *offset, 0)?;
                Some(self.atomic(
                    p,
                    Scope::Device,
                    *op,
                    t,
                    Type::U32.with_base(BaseType::Uint),
                    *data,
                    *compare,
                )?)
            }
            SharedAtomic {
                var,
                index,
                op,
                data,
                compare,
            } => {
                let (p, vt) = self.var_ptr(*var, Some(*index))?;
                Some(self.atomic(p, Scope::Workgroup, *op, t, vt, *data, *compare)?)
            }
            ImageLoad { var, coord, sample } => {
                let (img, im) = self.image_of(*var)?;
                let c = self.val(*coord)?;
                let ty = self.ty(t);
                let mut ops = words(&[img, c]);
                if let Some(s) = sample {
                    let sv = self.val(*s)?;
                    ops.push(spirv::ImageOperands::SAMPLE.bits());
                    ops.push(sv);
                }
                let _ = im;
                Some(self.op(SOp::ImageRead, ty, &ops))
            }
            FbFetch { var, sample } => {
                // OpImageFetch at ivec2(FragCoord.xy): the fragment's own
                // pixel (and sample). `passes::lower` declares FragCoord.
                // A 1D colour buffer is read at x alone.
                let fc = self
                    .s
                    .find_builtin(false, BuiltIn::FragCoord)
                    .ok_or_else(|| Error::new("fbfetch needs frag_coord (run passes::lower)"))?;
                let fci = self.vars[fc.0 as usize];
                let v4 = self.ty(Type::vec4());
                let fcv = self.op(SOp::Load, v4, &[fci.id]);
                let (layered, one_d) = match &self.s.var(*var).kind {
                    VarKind::FbFetch(f) => (f.layered, f.dim == Dim::D1),
                    _ => (false, false),
                };
                let mut c = if one_d {
                    let f1 = self.ty(Type::F32);
                    let x = self.op(SOp::CompositeExtract, f1, &[fcv, 0]);
                    let i1 = self.ty(Type::I32);
                    self.op(SOp::ConvertFToS, i1, &[x])
                } else {
                    let v2 = self.ty(Type::F32.with_comps(2));
                    let xy = self.op(SOp::VectorShuffle, v2, &[fcv, fcv, 0, 1]);
                    let i2 = self.ty(Type::int(32, 2));
                    self.op(SOp::ConvertFToS, i2, &[xy])
                };
                if layered {
                    // (x[, y], Layer): `passes::lower` declares Layer. A 3D
                    // image's slice is its third coordinate.
                    let l = self.s.find_builtin(false, BuiltIn::Layer).ok_or_else(|| {
                        Error::new("layered fbfetch needs layer (run passes::lower)")
                    })?;
                    let li = self.vars[l.0 as usize];
                    let i1 = self.ty(Type::I32);
                    let lv = self.op(SOp::Load, i1, &[li.id]);
                    let n = if one_d { 2 } else { 3 };
                    let iv = self.ty(Type::int(32, n));
                    c = self.op(SOp::CompositeConstruct, iv, &[c, lv]);
                }
                let info = self.vars[var.0 as usize];
                let img = self.op(SOp::Load, info.elem, &[info.id]);
                let ty = self.ty(t);
                let mut ops = words(&[img, c]);
                match sample {
                    Some(s) => {
                        let sv = self.val(*s)?;
                        ops.push(spirv::ImageOperands::SAMPLE.bits());
                        ops.push(sv);
                    }
                    None => {
                        let zero = self.const_u32(0);
                        ops.push(spirv::ImageOperands::LOD.bits());
                        ops.push(zero);
                    }
                }
                Some(self.op(SOp::ImageFetch, ty, &ops))
            }
            ImageStore {
                var,
                coord,
                value,
                sample,
            } => {
                let (img, _) = self.image_of(*var)?;
                let c = self.val(*coord)?;
                let v = self.val(*value)?;
                let mut ops = words(&[img, c, v]);
                if let Some(s) = sample {
                    let sv = self.val(*s)?;
                    ops.push(spirv::ImageOperands::SAMPLE.bits());
                    ops.push(sv);
                }
                self.op_void(SOp::ImageWrite, &ops);
                None
            }
            ImageAtomic {
                var,
                coord,
                sample,
                op,
                data,
                compare,
            } => {
                let info = self.vars[var.0 as usize];
                let c = self.val(*coord)?;
                let s = match sample {
                    Some(s) => self.val(*s)?,
                    None => self.const_u32(0),
                };
                let st = self.ty(t);
                let pt = self.ptr_ty(StorageClass::Image, st);
                let p = self.op(SOp::ImageTexelPointer, pt, &[info.id, c, s]);
                Some(self.atomic(p, Scope::Device, *op, t, t, *data, *compare)?)
            }
            ImageSize { var } => {
                let (img, _) = self.image_of(*var)?;
                self.cap(Capability::ImageQuery);
                let ty = self.ty(t);
                Some(self.op(SOp::ImageQuerySize, ty, &[img]))
            }
            ImageSamples { var } => {
                let (img, _) = self.image_of(*var)?;
                self.cap(Capability::ImageQuery);
                let ty = self.ty(t);
                Some(self.op(SOp::ImageQuerySamples, ty, &[img]))
            }
            Barrier { exec, mem, modes } => {
                let mut sem = 0u32;
                if modes.0 != 0 {
                    sem |= spirv::MemorySemantics::ACQUIRE_RELEASE.bits();
                }
                if modes.contains(MemModes::BUFFER) {
                    sem |= spirv::MemorySemantics::UNIFORM_MEMORY.bits();
                }
                if modes.contains(MemModes::SHARED) {
                    sem |= spirv::MemorySemantics::WORKGROUP_MEMORY.bits();
                }
                if modes.contains(MemModes::IMAGE) {
                    sem |= spirv::MemorySemantics::IMAGE_MEMORY.bits();
                }
                let m = self.const_u32(scope_id(*mem));
                let s = self.const_u32(sem);
                match exec {
                    Some(e) => {
                        let e = self.const_u32(scope_id(*e));
                        self.op_void(SOp::ControlBarrier, &[e, m, s]);
                    }
                    None => self.op_void(SOp::MemoryBarrier, &[m, s]),
                }
                None
            }
            Demote => {
                self.demote_cap();
                self.op_void(SOp::DemoteToHelperInvocation, &[]);
                None
            }
            Vote { op, value } => {
                self.cap(spirv::Capability::GroupNonUniformVote);
                let b = self.ty(Type::BOOL);
                let scope = self.const_u32(scope_id(Scope::Subgroup));
                let v = self.val(*value)?;
                let o = match op {
                    VoteOp::Any => SOp::GroupNonUniformAny,
                    VoteOp::All => SOp::GroupNonUniformAll,
                    VoteOp::Eq => SOp::GroupNonUniformAllEqual,
                };
                Some(self.op(o, b, &[scope, v]))
            }
            IsHelper => {
                self.demote_cap();
                let b = self.ty(Type::BOOL);
                Some(self.op(SOp::IsHelperInvocationEXT, b, &[]))
            }
            EmitVertex { stream } | EndPrimitive { stream } => {
                let emit = matches!(intr, EmitVertex { .. });
                if *stream == 0 {
                    self.op_void(
                        if emit {
                            SOp::EmitVertex
                        } else {
                            SOp::EndPrimitive
                        },
                        &[],
                    );
                } else {
                    self.cap(Capability::GeometryStreams);
                    let s = self.const_u32(*stream);
                    self.op_void(
                        if emit {
                            SOp::EmitStreamVertex
                        } else {
                            SOp::EndStreamPrimitive
                        },
                        &[s],
                    );
                }
                None
            }
        })
    }

    fn demote_cap(&mut self) {
        self.cap(Capability::DemoteToHelperInvocation);
        if self.target != Target::Vulkan1_3 {
            self.ext("SPV_EXT_demote_to_helper_invocation");
        }
    }

    // -- textures ---------------------------------------------------------

    fn tex(&mut self, tx: &Tex, t: Type) -> Result<Word> {
        use TexOp::*;
        let VarKind::Texture(ti) = self.s.var(tx.var).kind.clone() else {
            return Err(Error::new("not a texture"));
        };
        let info = self.vars[tx.var.0 as usize];
        let var_ty = if ti.dim == Dim::Buffer {
            info.elem
        } else {
            let pointee = self
                .types
                .get(&super::TyKey::SampledImage(info.elem))
                .copied()
                .unwrap_or(info.elem);
            pointee
        };
        let si = self.op(SOp::Load, var_ty, &[info.id]);
        let img = if ti.dim == Dim::Buffer {
            si
        } else {
            self.op(SOp::Image, info.elem, &[si])
        };
        let ty = self.ty(t);
        let s = &tx.srcs;
        let opt = |e: &Self, o: Option<ValueId>| o.map(|v| e.val(v)).transpose();
        let mut coord = opt(self, s.coord)?;
        let i32t = Type::I32;
        // Rect textures are 2D images sampled with normalized coordinates.
        if ti.dim == Dim::Rect && matches!(tx.op, Tex | Txl | Tg4) {
            if let Some(c) = coord {
                self.cap(Capability::ImageQuery);
                let i2 = self.ty(Type::int(32, 2));
                let f2 = self.ty(Type::float(32, 2));
                let zero = self.const_i32(0);
                let size = self.op(SOp::ImageQuerySizeLod, i2, &[img, zero]);
                let fsize = self.op(SOp::ConvertSToF, f2, &[size]);
                coord = Some(self.op(SOp::FDiv, f2, &[c, fsize]));
            }
        }
        // Image operands, in mask-bit order.
        let mut mask = spirv::ImageOperands::NONE;
        let mut operands: Vec<Word> = Vec::new();
        let bias = opt(self, s.bias)?;
        let mut lod = opt(self, s.lod)?;
        if lod.is_none() && tx.op == Txf && ti.dim != Dim::Buffer {
            lod = Some(self.const_i32(0));
        }
        if let Some(b) = bias {
            mask |= spirv::ImageOperands::BIAS;
            operands.push(b);
        }
        if matches!(tx.op, Txl | Txf) {
            if let Some(l) = lod {
                mask |= spirv::ImageOperands::LOD;
                operands.push(l);
            }
        }
        if let (Some(dx), Some(dy)) = (opt(self, s.ddx)?, opt(self, s.ddy)?) {
            mask |= spirv::ImageOperands::GRAD;
            operands.push(dx);
            operands.push(dy);
        }
        if let Some(o) = s.offset {
            let ov = self.val(o)?;
            if self
                .const_vals
                .get(o.0 as usize)
                .is_some_and(|c| c.is_some())
            {
                mask |= spirv::ImageOperands::CONST_OFFSET;
            } else {
                self.cap(Capability::ImageGatherExtended);
                mask |= spirv::ImageOperands::OFFSET;
            }
            operands.push(ov);
        }
        if let Some(ms) = opt(self, s.ms_index)? {
            mask |= spirv::ImageOperands::SAMPLE;
            operands.push(ms);
        }
        if let Some(m) = opt(self, s.min_lod)? {
            self.cap(Capability::MinLod);
            mask |= spirv::ImageOperands::MIN_LOD;
            operands.push(m);
        }
        let tail = |mask: spirv::ImageOperands, operands: &[Word]| -> Vec<Word> {
            if mask.is_empty() {
                vec![]
            } else {
                let mut v = vec![mask.bits()];
                v.extend_from_slice(operands);
                v
            }
        };
        let c = || coord.ok_or_else(|| Error::new("texture op needs coord"));
        let dref = opt(self, s.comparator)?;
        Ok(match tx.op {
            Tex | Txb | Txl | Txd => {
                let implicit = matches!(tx.op, Tex | Txb);
                let (o, mut ops) = match (implicit, dref) {
                    (true, None) => (SOp::ImageSampleImplicitLod, words(&[si, c()?])),
                    (true, Some(d)) => (SOp::ImageSampleDrefImplicitLod, words(&[si, c()?, d])),
                    (false, None) => (SOp::ImageSampleExplicitLod, words(&[si, c()?])),
                    (false, Some(d)) => (SOp::ImageSampleDrefExplicitLod, words(&[si, c()?, d])),
                };
                ops.extend(tail(mask, &operands));
                self.op(o, ty, &ops)
            }
            Txf | TxfMs => {
                let mut ops = words(&[img, c()?]);
                ops.extend(tail(mask, &operands));
                self.op(SOp::ImageFetch, ty, &ops)
            }
            Tg4 => {
                let mut ops = match dref {
                    Some(d) => words(&[si, c()?, d]),
                    None => {
                        let comp = self.const_i32(tx.component as i32);
                        words(&[si, c()?, comp])
                    }
                };
                ops.extend(tail(mask, &operands));
                self.op(
                    if dref.is_some() {
                        SOp::ImageDrefGather
                    } else {
                        SOp::ImageGather
                    },
                    ty,
                    &ops,
                )
            }
            Txs => {
                self.cap(Capability::ImageQuery);
                if ti.ms || ti.dim == Dim::Buffer {
                    self.op(SOp::ImageQuerySize, ty, &[img])
                } else {
                    let l = match lod {
                        Some(l) => l,
                        None => self.const_i32(0),
                    };
                    self.op(SOp::ImageQuerySizeLod, ty, &[img, l])
                }
            }
            Lod => {
                self.cap(Capability::ImageQuery);
                self.op(SOp::ImageQueryLod, ty, &[si, c()?])
            }
            QueryLevels => {
                self.cap(Capability::ImageQuery);
                let _ = i32t;
                self.op(SOp::ImageQueryLevels, ty, &[img])
            }
            TextureSamples => {
                self.cap(Capability::ImageQuery);
                self.op(SOp::ImageQuerySamples, ty, &[img])
            }
        })
    }
}

fn scope_id(s: Scope) -> u32 {
    (match s {
        Scope::Invocation => spirv::Scope::Invocation,
        Scope::Subgroup => spirv::Scope::Subgroup,
        Scope::Workgroup => spirv::Scope::Workgroup,
        Scope::Device => spirv::Scope::Device,
        Scope::QueueFamily => spirv::Scope::QueueFamily,
    }) as u32
}
