//! Subgroup votes for a stage where the device has none, in SPIR-V
//! passthrough shaders, as `passes::gl::lower_vote_trivial` does for the
//! IR: each invocation votes alone (a subgroup of one, which
//! ARB_shader_group_vote allows), so `OpGroupNonUniformAll` and
//! `OpGroupNonUniformAny` give their own predicate and
//! `OpGroupNonUniformAllEqual` gives `true`. The `GroupNonUniformVote`
//! capability goes once no vote is left.

use rspirv::binary::Assemble;
use rspirv::dr::{Builder, Instruction, Operand};
use rspirv::spirv::{Capability, Op};

use crate::{Error, Result};

/// Replaces every subgroup vote of the module `words` (any function)
/// by its single-invocation result. The words are returned unchanged
/// when there is none.
pub fn votes_trivial(words: &[u32]) -> Result<Vec<u32>> {
    // OpGroupNonUniformAll (334), Any (335), AllEqual (336).
    if !super::debug::instructions(words).any(|(op, _)| (334..=336).contains(&op)) {
        return Ok(words.to_vec());
    }
    // Non-semantic instructions (debug info) come out for rspirv and go
    // back at their places (`super::debug`); the votes keep their ids.
    let module = super::load(words, "SPIR-V votes")?;
    let is_vote = |i: &Instruction| {
        matches!(
            i.class.opcode,
            Op::GroupNonUniformAll | Op::GroupNonUniformAny | Op::GroupNonUniformAllEqual
        )
    };
    let any = module
        .functions
        .iter()
        .flat_map(|f| &f.blocks)
        .flat_map(|b| &b.instructions)
        .any(is_vote);
    if !any {
        return Ok(words.to_vec());
    }
    let mut b = Builder::new_from_module(module);
    // Each vote's result type (a bool, or a vector of bools is not a vote
    // result): `true` of it for AllEqual.
    let mut trues = Vec::new();
    for i in b
        .module_ref()
        .functions
        .iter()
        .flat_map(|f| &f.blocks)
        .flat_map(|b| &b.instructions)
        .filter(|i| i.class.opcode == Op::GroupNonUniformAllEqual)
    {
        let ty = i
            .result_type
            .ok_or_else(|| Error::new("SPIR-V votes: a vote has no result type"))?;
        if !trues.iter().any(|&(t, _)| t == ty) {
            trues.push((ty, 0));
        }
    }
    for (ty, c) in &mut trues {
        *c = b.constant_true(*ty);
    }
    for f in &mut b.module_mut().functions {
        for block in &mut f.blocks {
            for i in &mut block.instructions {
                if !is_vote(i) {
                    continue;
                }
                let (Some(ty), Some(id)) = (i.result_type, i.result_id) else {
                    return Err(Error::new("SPIR-V votes: a vote has no result"));
                };
                // Operands: the scope, then the predicate or value.
                let value = match i.class.opcode {
                    Op::GroupNonUniformAllEqual => trues
                        .iter()
                        .find(|&&(t, _)| t == ty)
                        .map(|&(_, c)| c)
                        .ok_or_else(|| Error::new("SPIR-V votes: a vote's type"))?,
                    _ => match i.operands.get(1) {
                        Some(Operand::IdRef(p)) => *p,
                        _ => return Err(Error::new("SPIR-V votes: a vote has no predicate")),
                    },
                };
                *i = Instruction::new(
                    Op::CopyObject,
                    Some(ty),
                    Some(id),
                    vec![Operand::IdRef(value)],
                );
            }
        }
    }
    let m = b.module_mut();
    m.capabilities.retain(|c| {
        c.operands.first() != Some(&Operand::Capability(Capability::GroupNonUniformVote))
    });
    Ok(super::debug::NonSemantic::of(words).restore(b.module().assemble()))
}
