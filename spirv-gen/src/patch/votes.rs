//! Subgroup votes for a stage where the device has none, in SPIR-V
//! passthrough shaders, as `passes::gl::lower_vote_trivial` does for the
//! IR: each invocation votes alone (a subgroup of one, which
//! ARB_shader_group_vote allows), so `OpGroupNonUniformAll` and
//! `OpGroupNonUniformAny` give their own predicate and
//! `OpGroupNonUniformAllEqual` gives `true`. The `GroupNonUniformVote`
//! capability goes once no vote is left.
//!
//! SPV_KHR_subgroup_vote's `OpSubgroupAllKHR`, `OpSubgroupAnyKHR` and
//! `OpSubgroupAllEqualKHR`, which glslang emits for GL's
//! `anyInvocationARB` and the others when it compiles for OpenGL, go the
//! same way in every stage: Vulkan takes them only with
//! VK_EXT_shader_subgroup_vote, which pipe-vk does not enable (and they
//! need SPIR-V 1.3 to become `OpGroupNonUniform*` votes, where a GL
//! module is 1.0). Their capability and extension go with them.

use rspirv::binary::Assemble;
use rspirv::dr::{Builder, Instruction, Operand};
use rspirv::spirv::{Capability, Op};

use crate::{Error, Result};

/// Replaces the subgroup votes of the module `words` (any function) by
/// their single-invocation results: the SPV_KHR_subgroup_vote ones
/// always, the `OpGroupNonUniform*` ones with `non_uniform`. The words
/// are returned unchanged when there is none.
pub fn votes_trivial(words: &[u32], non_uniform: bool) -> Result<Vec<u32>> {
    // OpGroupNonUniformAll (334), Any (335), AllEqual (336);
    // OpSubgroupAllKHR (4428), AnyKHR (4429), AllEqualKHR (4430).
    let wanted =
        |op: u32| (non_uniform && (334..=336).contains(&op)) || (4428..=4430).contains(&op);
    // OpCapability (17) SubgroupVoteKHR (4431), should no vote use it.
    let khr_capability = |op: u32, inst: &[u32]| op == 17 && inst.get(1) == Some(&4431);
    if !super::debug::instructions(words).any(|(op, inst)| wanted(op) || khr_capability(op, inst)) {
        return Ok(words.to_vec());
    }
    // Non-semantic instructions (debug info) come out for rspirv and go
    // back at their places (`super::debug`); the votes keep their ids.
    let module = super::load(words, "SPIR-V votes")?;
    let is_vote = |i: &Instruction| {
        matches!(
            i.class.opcode,
            Op::SubgroupAllKHR | Op::SubgroupAnyKHR | Op::SubgroupAllEqualKHR
        ) || (non_uniform
            && matches!(
                i.class.opcode,
                Op::GroupNonUniformAll | Op::GroupNonUniformAny | Op::GroupNonUniformAllEqual
            ))
    };
    let all_equal = |op: Op| matches!(op, Op::GroupNonUniformAllEqual | Op::SubgroupAllEqualKHR);
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
        .filter(|i| is_vote(i) && all_equal(i.class.opcode))
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
                // Operands: the scope (not of the KHR votes), then the
                // predicate or value.
                let at = usize::from(
                    i.class.opcode != Op::SubgroupAllKHR && i.class.opcode != Op::SubgroupAnyKHR,
                );
                let value = if all_equal(i.class.opcode) {
                    trues
                        .iter()
                        .find(|&&(t, _)| t == ty)
                        .map(|&(_, c)| c)
                        .ok_or_else(|| Error::new("SPIR-V votes: a vote's type"))?
                } else {
                    match i.operands.get(at) {
                        Some(Operand::IdRef(p)) => *p,
                        _ => return Err(Error::new("SPIR-V votes: a vote has no predicate")),
                    }
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
    let mut gone = vec![Capability::SubgroupVoteKHR];
    if non_uniform {
        gone.push(Capability::GroupNonUniformVote);
    }
    m.capabilities.retain(
        |c| !matches!(c.operands.first(), Some(Operand::Capability(x)) if gone.contains(x)),
    );
    m.extensions.retain(|e| {
        e.operands.first() != Some(&Operand::LiteralString("SPV_KHR_subgroup_vote".into()))
    });
    Ok(super::debug::NonSemantic::of(words).restore(b.module().assemble()))
}
