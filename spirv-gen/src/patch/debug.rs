//! Non-semantic instructions (debug info such as
//! `NonSemantic.Shader.DebugInfo.100`, which glslang `-gV` and DXC emit
//! for source-level shader debugging in RenderDoc) kept through a patch.
//!
//! rspirv's loader refuses `OpExtInst` among the module's types and
//! globals, so `super::load` takes every instruction of a non-semantic
//! set out before loading. [`NonSemantic::of`] records each with an
//! anchor: the nearest instruction before it that has a result id (all
//! ids are kept by the patches, which only add new ones above the
//! module's bound), and how many instructions without one came between.
//! [`NonSemantic::restore`] puts them back into the patched words at
//! the same places: after the anchor and as many id-less instructions,
//! but never past the next instruction with a result id, a block's
//! merge or terminator instruction, or the end of a function, so that
//! an instruction the patch inserted after the anchor stays after it
//! and the debug instruction stays in its block.
//!
//! An instruction whose anchor the patch removed, or that names an id no
//! longer defined (a descriptor array split into its elements, say), is
//! dropped, and so is every one that names a dropped one: debug info
//! about the removed code goes, the rest stays valid.

use rspirv::spirv::Word;
use std::collections::{HashMap, HashSet};

/// `OpExtInstImport`, `OpExtInst`, `OpExtInstWithForwardRefsKHR`.
const OP_EXT_INST_IMPORT: u32 = 11;
const OP_EXT_INST: u32 = 12;
const OP_EXT_INST_FORWARD: u32 = 4433;

/// `OpPhi`.
const OP_PHI: u32 = 245;
/// NonSemantic.Shader.DebugInfo.100's `DebugFunctionDefinition`, which
/// must stay in its function's entry block.
const DEBUG_FUNCTION_DEFINITION: u32 = 101;

/// The non-semantic instructions of a module, by anchor.
#[derive(Default)]
pub(super) struct NonSemantic {
    /// (anchor, id-less instructions after it, the instruction's words).
    insts: Vec<(Word, u32, Vec<u32>)>,
    /// The module's NonSemantic.Shader.DebugInfo.100 imports.
    debug_info: HashSet<Word>,
}

/// Each instruction of `words` (after the header): (opcode, its words).
pub(super) fn instructions(words: &[u32]) -> impl Iterator<Item = (u32, &[u32])> {
    let mut i = 5.min(words.len());
    std::iter::from_fn(move || {
        let w = *words.get(i)?;
        let len = (w >> 16) as usize;
        if len == 0 || i + len > words.len() {
            return None;
        }
        let inst = &words[i..i + len];
        i += len;
        Some((w & 0xffff, inst))
    })
}

/// The result id of an instruction, where it has one (from rspirv's
/// grammar: whether its first operands are a result type and id).
fn result_id(op: u32, inst: &[u32]) -> Option<Word> {
    use rspirv::grammar::{OperandKind, INSTRUCTION_TABLE};
    use std::sync::OnceLock;
    // Per opcode: the word index of its result id, 0 for none.
    static AT: OnceLock<HashMap<u32, usize>> = OnceLock::new();
    let at = AT.get_or_init(|| {
        INSTRUCTION_TABLE
            .iter()
            .map(|g| {
                let kinds: Vec<OperandKind> = g.operands.iter().take(2).map(|o| o.kind).collect();
                let at = match kinds.as_slice() {
                    [OperandKind::IdResultType, OperandKind::IdResult, ..] => 2,
                    [OperandKind::IdResult, ..] => 1,
                    _ => 0,
                };
                (g.opcode as u32, at)
            })
            .collect()
    });
    match at.get(&op) {
        Some(&k) if k > 0 => inst.get(k).copied(),
        _ => None,
    }
}

/// Whether `words` is an instruction of a non-semantic set `sets`.
fn is_nonsemantic(op: u32, inst: &[u32], sets: &HashSet<Word>) -> bool {
    (op == OP_EXT_INST || op == OP_EXT_INST_FORWARD) && inst.len() >= 5 && sets.contains(&inst[3])
}

/// A literal string's bytes (before its terminating 0).
fn string_of(words: &[u32]) -> Vec<u8> {
    words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .take_while(|&b| b != 0)
        .collect()
}

/// The extended instruction sets a module imports whose name satisfies
/// `pred`.
fn imports(words: &[u32], pred: impl Fn(&[u8]) -> bool) -> HashSet<Word> {
    instructions(words)
        .filter(|(op, inst)| *op == OP_EXT_INST_IMPORT && inst.len() >= 3)
        .filter(|(_, inst)| pred(&string_of(&inst[2..])))
        .map(|(_, inst)| inst[1])
        .collect()
}

/// The non-semantic instruction sets a module imports.
fn nonsemantic_sets(words: &[u32]) -> HashSet<Word> {
    imports(words, |name| name.starts_with(b"NonSemantic."))
}

/// `words` without the instructions of non-semantic sets (their imports
/// stay): what rspirv loads.
pub(super) fn strip(words: &[u32]) -> Vec<u32> {
    let sets = nonsemantic_sets(words);
    let mut out = Vec::with_capacity(words.len());
    out.extend_from_slice(&words[..5.min(words.len())]);
    for (op, inst) in instructions(words) {
        if !is_nonsemantic(op, inst, &sets) {
            out.extend_from_slice(inst);
        }
    }
    out
}

/// `words` without its non-semantic instructions, their imports and the
/// `SPV_KHR_non_semantic_info` extension, for a device that does not
/// take them (Vulkan 1.2 without VK_KHR_shader_non_semantic_info);
/// `None` when it has none.
pub fn without_nonsemantic(words: &[u32]) -> Option<Vec<u32>> {
    let sets = nonsemantic_sets(words);
    if sets.is_empty() {
        return None;
    }
    let mut out = Vec::with_capacity(words.len());
    out.extend_from_slice(&words[..5.min(words.len())]);
    for (op, inst) in instructions(words) {
        let import = op == OP_EXT_INST_IMPORT && inst.len() >= 2 && sets.contains(&inst[1]);
        // OpExtension (10) "SPV_KHR_non_semantic_info".
        let extension = op == 10 && string_of(&inst[1..]) == b"SPV_KHR_non_semantic_info";
        if !(import || extension || is_nonsemantic(op, inst, &sets)) {
            out.extend_from_slice(inst);
        }
    }
    Some(out)
}

/// An instruction that ends a block, or must stay right before the one
/// that does.
fn ends_block(op: u32) -> bool {
    use rspirv::spirv::Op;
    [
        Op::Branch,
        Op::BranchConditional,
        Op::Switch,
        Op::Return,
        Op::ReturnValue,
        Op::Kill,
        Op::TerminateInvocation,
        Op::Unreachable,
        Op::SelectionMerge,
        Op::LoopMerge,
        Op::FunctionEnd,
        Op::IgnoreIntersectionKHR,
        Op::TerminateRayKHR,
        Op::EmitMeshTasksEXT,
    ]
    .iter()
    .any(|&o| o as u32 == op)
}

impl NonSemantic {
    /// The non-semantic instructions of `words` with their anchors (see
    /// the module documentation).
    pub(super) fn of(words: &[u32]) -> NonSemantic {
        let sets = nonsemantic_sets(words);
        let debug_info = imports(words, |name| name == b"NonSemantic.Shader.DebugInfo.100");
        let mut insts = Vec::new();
        let mut anchor = None;
        let mut skip = 0;
        for (op, inst) in instructions(words) {
            if is_nonsemantic(op, inst, &sets) {
                if let Some(a) = anchor {
                    insts.push((a, skip, inst.to_vec()));
                }
                continue;
            }
            match result_id(op, inst) {
                Some(id) => {
                    anchor = Some(id);
                    skip = 0;
                }
                None => skip += 1,
            }
        }
        NonSemantic { insts, debug_info }
    }

    /// A patch moved the start of a function's entry block from the
    /// block labelled `old` (now a later block) to after `new` (the new
    /// entry block's label or its last variable): the
    /// `DebugFunctionDefinition`s anchored to `old` follow it there.
    pub(super) fn entry_block_moved(&mut self, old: Word, new: Word) {
        let debug_info = &self.debug_info;
        for (anchor, skip, inst) in &mut self.insts {
            if *anchor == old
                && debug_info.contains(&inst[3])
                && inst[4] == DEBUG_FUNCTION_DEFINITION
            {
                *anchor = new;
                *skip = 0;
            }
        }
    }

    /// The patched module `words` with the instructions put back (see
    /// the module documentation).
    pub(super) fn restore(&self, words: Vec<u32>) -> Vec<u32> {
        if self.insts.is_empty() {
            return words;
        }
        let mut defined: HashSet<Word> = instructions(&words)
            .filter_map(|(op, inst)| result_id(op, inst))
            .collect();
        // Placed instructions by position in `insts`, dropped ones left
        // out.
        let mut by_anchor: HashMap<Word, Vec<usize>> = HashMap::new();
        for (k, (anchor, _, _)) in self.insts.iter().enumerate() {
            if defined.contains(anchor) {
                by_anchor.entry(*anchor).or_default().push(k);
            }
        }
        // Keep those whose ids are all defined, to a fixed point (a
        // dropped instruction drops those naming it). Operands from the
        // set's instruction number on are ids (SPV_KHR_non_semantic_info).
        let mut kept: HashSet<usize> = by_anchor.values().flatten().copied().collect();
        defined.extend(kept.iter().map(|&k| self.insts[k].2[2]));
        loop {
            let bad: Vec<usize> = kept
                .iter()
                .copied()
                .filter(|&k| {
                    let inst = &self.insts[k].2;
                    let ids = std::iter::once(inst[1]).chain(inst[3..4].iter().copied());
                    ids.chain(inst[5..].iter().copied())
                        .any(|id| !defined.contains(&id))
                })
                .collect();
            if bad.is_empty() {
                break;
            }
            for k in bad {
                kept.remove(&k);
                defined.remove(&self.insts[k].2[2]);
            }
        }
        let mut out = Vec::with_capacity(words.len() + self.insts.len() * 8);
        out.extend_from_slice(&words[..5.min(words.len())]);
        // The anchor's instructions still to place, and the id-less
        // instructions seen since it.
        let mut pending: Vec<usize> = Vec::new();
        let mut seen = 0u32;
        let flush = |out: &mut Vec<u32>, pending: &mut Vec<usize>, upto: Option<u32>| {
            pending.retain(|&k| {
                let (_, skip, inst) = &self.insts[k];
                if upto.is_none_or(|n| *skip <= n) {
                    out.extend_from_slice(inst);
                    false
                } else {
                    true
                }
            });
        };
        // A block's `OpPhi`s come first: nothing goes before or between
        // them, so an anchor's instructions wait for the last one (an
        // anchor among them, or the label before them, included).
        let all: Vec<(u32, &[u32])> = instructions(&words).collect();
        for (i, &(op, inst)) in all.iter().enumerate() {
            let id = result_id(op, inst);
            let phi = op == OP_PHI;
            if (id.is_some() && !phi) || ends_block(op) {
                flush(&mut out, &mut pending, None);
            }
            out.extend_from_slice(inst);
            let mine = |id: Word| {
                by_anchor
                    .get(&id)
                    .into_iter()
                    .flatten()
                    .copied()
                    .filter(|k| kept.contains(k))
            };
            match id {
                Some(id) if phi => pending.extend(mine(id)),
                Some(id) => {
                    seen = 0;
                    pending = mine(id).collect();
                }
                None => seen += 1,
            }
            if all.get(i + 1).is_none_or(|&(next, _)| next != OP_PHI) {
                flush(&mut out, &mut pending, Some(seen));
            }
        }
        flush(&mut out, &mut pending, None);
        out
    }
}
