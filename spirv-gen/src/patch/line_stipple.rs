//! Line stipple in a SPIR-V geometry shader that emits line strips, as
//! `passes::line_stipple::lower_line_stipple_gs` lowers an IR one: the
//! shader gets the `stipple_pos` output (a `noperspective` float at
//! [`binding::STIPPLE_POS_LOCATION`]), the running window-space length
//! along the strip, which the fragment shader's stipple test reads
//! (`fragment::line_stipple`).
//!
//! Before each vertex the shader emits, the patch adds the window length
//! from the strip's previous vertex (the segment's, in the metric of
//! `rectangular` lines: Euclidean, else the major axis) to a running
//! distance in private variables, writes it, and keeps the position;
//! each `OpEndPrimitive` starts a new strip. No branch is added (the
//! first vertex of a strip selects 0), so the blocks stay as they are.
//! The window scale comes from [`binding::push::VIEWPORT_SCALE`] in the
//! driver's push block, so a shader with push constants of its own is
//! refused. Run it after the other last-stage patches that change the
//! position's x, y or w (none does now: the depth-range conversion
//! changes z).

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Decoration, ExecutionMode, ExecutionModel, Op, StorageClass, Word};

use super::{Num, Patcher, POSITION};
use crate::binding;
use crate::{Error, Result};

/// Line stipple in the geometry shader `entry` of a SPIR-V module (see
/// the module docs). The words unchanged when it does not emit line
/// strips. An error when it writes no position, uses
/// [`binding::STIPPLE_POS_LOCATION`], or has push constants of its own.
pub fn line_stipple_gs(words: &[u32], entry: &str, rectangular: bool) -> Result<Vec<u32>> {
    super::patch_entry(
        words,
        entry,
        &[ExecutionModel::Geometry],
        "line stipple",
        |p| p.line_stipple_gs(rectangular),
    )
}

impl Patcher {
    /// Whether the entry point has the execution mode `mode`.
    pub(super) fn has_mode(&self, mode: ExecutionMode) -> bool {
        let entry_fn = self.entry_fn;
        self.module().execution_modes.iter().any(|m| {
            m.operands.first() == Some(&Operand::IdRef(entry_fn))
                && m.operands.get(1) == Some(&Operand::ExecutionMode(mode))
        })
    }

    fn line_stipple_gs(&mut self, rectangular: bool) -> Result<bool> {
        if !self.has_mode(ExecutionMode::OutputLineStrip) {
            return Ok(false);
        }
        let (pos_var, pos_member) = self.find_output_builtin(POSITION)?.ok_or_else(|| {
            Error::new("SPIR-V line stipple: the geometry shader writes no position")
        })?;
        let taken = self
            .interface_globals(StorageClass::Output)
            .into_iter()
            .flat_map(|(v, t)| self.var_locations(v, t))
            .any(|l| l == binding::STIPPLE_POS_LOCATION);
        if taken {
            return Err(Error::new(format!(
                "SPIR-V line stipple: output location {} is taken (pipe-vk passes the stipple \
                 position there)",
                binding::STIPPLE_POS_LOCATION
            )));
        }
        let push = self.driver_push_block()?;
        let f = Num::float(32, 1);
        let (ft, v2t, v4t) = (
            self.ty(f),
            self.ty(Num::float(32, 2)),
            self.ty(Num::float(32, 4)),
        );
        let ut = self.ty(Num::int(false, 32, 1));
        let bt = self.b.type_bool();
        let out = self.add_variable(StorageClass::Output, ft);
        self.b.decorate(
            out,
            Decoration::Location,
            [Operand::LiteralBit32(binding::STIPPLE_POS_LOCATION)],
        );
        self.b.decorate(out, Decoration::NoPerspective, []);
        // The strip's state: started, distance, previous position.
        let started = self.add_variable(StorageClass::Private, bt);
        let dist = self.add_variable(StorageClass::Private, ft);
        let prev = self.add_variable(StorageClass::Private, v4t);
        let (no, yes) = (self.b.constant_false(bt), self.b.constant_true(bt));
        let zero = self.konst(f, 0);
        let one = self.konst(f, u64::from(1.0f32.to_bits()));
        let origin = self.b.constant_composite(v4t, [zero, zero, zero, one]);
        let store = |code: &mut Vec<Instruction>, to: Word, v: Word| {
            code.push(Instruction::new(
                Op::Store,
                None,
                None,
                vec![Operand::IdRef(to), Operand::IdRef(v)],
            ));
        };
        let restart = |code: &mut Vec<Instruction>| {
            store(code, started, no);
            store(code, dist, zero);
        };
        let mut entry = Vec::new();
        restart(&mut entry);
        store(&mut entry, prev, origin);
        self.code.extend(entry);
        // The viewport's half extent, as two words of the push block.
        let scale = |p: &mut Patcher, code: &mut Vec<Instruction>| {
            let ptr_t = p.b.type_pointer(None, StorageClass::PushConstant, ut);
            let word0 = p.konst(Num::int(false, 32, 1), 0);
            let comps: Vec<Word> = (0..2u32)
                .map(|k| {
                    let at = p.konst(
                        Num::int(false, 32, 1),
                        u64::from(binding::push::VIEWPORT_SCALE / 4 + k),
                    );
                    let ptr = p.emit(code, Op::AccessChain, ptr_t, &[push, word0, at]);
                    let w = p.emit(code, Op::Load, ut, &[ptr]);
                    p.emit(code, Op::Bitcast, ft, &[w])
                })
                .collect();
            p.emit(code, Op::CompositeConstruct, v2t, &comps)
        };
        let window = |p: &mut Patcher, code: &mut Vec<Instruction>, v: Word, s: Word| {
            let x = p.extract_in(code, ft, v, 0);
            let y = p.extract_in(code, ft, v, 1);
            let xy = p.emit(code, Op::CompositeConstruct, v2t, &[x, y]);
            let w = p.extract_in(code, ft, v, 3);
            let ww = p.emit(code, Op::CompositeConstruct, v2t, &[w, w]);
            let ndc = p.emit(code, Op::FDiv, v2t, &[xy, ww]);
            p.emit(code, Op::FMul, v2t, &[ndc, s])
        };
        let glsl = self.glsl_set();
        let sites = self.at_vertex_ends(&mut |p| {
            let mut code = Vec::new();
            // The position: the variable, or its member of the block.
            let ptr = match pos_member {
                None => pos_var,
                Some(k) => {
                    let pt = p.b.type_pointer(None, StorageClass::Output, v4t);
                    let at = p.konst(Num::int(true, 32, 1), u64::from(k));
                    p.emit(&mut code, Op::AccessChain, pt, &[pos_var, at])
                }
            };
            let pos = p.emit(&mut code, Op::Load, v4t, &[ptr]);
            let before = p.emit(&mut code, Op::Load, v4t, &[prev]);
            let s = scale(p, &mut code);
            let a = window(p, &mut code, before, s);
            let b = window(p, &mut code, pos, s);
            let len = if rectangular {
                ext(p, &mut code, glsl, ft, 67, &[a, b]) // Distance
            } else {
                let d = p.emit(&mut code, Op::FSub, v2t, &[b, a]);
                let ad = ext(p, &mut code, glsl, v2t, 4, &[d]); // FAbs
                let x = p.extract_in(&mut code, ft, ad, 0);
                let y = p.extract_in(&mut code, ft, ad, 1);
                ext(p, &mut code, glsl, ft, 40, &[x, y]) // FMax
            };
            let d0 = p.emit(&mut code, Op::Load, ft, &[dist]);
            let d1 = p.emit(&mut code, Op::FAdd, ft, &[d0, len]);
            let st = p.emit(&mut code, Op::Load, bt, &[started]);
            let d = p.emit(&mut code, Op::Select, ft, &[st, d1, d0]);
            store(&mut code, dist, d);
            store(&mut code, out, d);
            store(&mut code, prev, pos);
            store(&mut code, started, yes);
            code
        });
        if sites == 0 {
            return Err(Error::new(
                "SPIR-V line stipple: the geometry shader emits no vertex",
            ));
        }
        self.before_each(&[Op::EndPrimitive, Op::EndStreamPrimitive], &mut |_| {
            let mut code = Vec::new();
            restart(&mut code);
            code
        });
        Ok(true)
    }
}

/// `OpExtInst` of GLSL.std.450 instruction `inst` on `args`.
fn ext(
    p: &mut Patcher,
    code: &mut Vec<Instruction>,
    glsl: Word,
    ty: Word,
    inst: u32,
    args: &[Word],
) -> Word {
    let id = p.b.id();
    let mut ops = vec![Operand::IdRef(glsl), Operand::LiteralExtInstInteger(inst)];
    ops.extend(args.iter().map(|&a| Operand::IdRef(a)));
    code.push(Instruction::new(Op::ExtInst, Some(ty), Some(id), ops));
    id
}
