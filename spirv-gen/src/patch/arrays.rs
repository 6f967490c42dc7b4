//! Descriptor arrays of a SPIR-V passthrough shader (GL's
//! `uniform sampler2D s[3]`, arrays of uniform or shader buffer blocks,
//! of images), in spirv-gen's binding model.
//!
//! GL gives an array of opaque types (or blocks) consecutive binding
//! points from its own: `layout(binding = 2) uniform sampler2D s[3]`
//! takes texture units 2, 3 and 4. The binding model has one descriptor
//! per slot (`binding = stage * slots + slot`), so element `k` of an
//! array at binding `b` is the descriptor at `b + k`:
//! [`split_descriptor_arrays`] turns each array variable into one
//! variable per element, and [`super::ir_resources`] reads it as that
//! many resources. An array of arrays (`sampler2D s[2][3]`,
//! ARB_arrays_of_arrays) is first made one array of its elements in GL's
//! order ([`Patcher::flatten_descriptor_arrays`]): `s[i][j]` is element
//! `i * 3 + j`, at binding point `b + i * 3 + j`, as GLSL 4.60's 4.4.5
//! assigns them.
//!
//! A dynamic index (GL allows dynamically uniform ones: `texture(s[i],
//! uv)` in a loop) is unrolled first ([`Patcher::unroll_dynamic_indices`]):
//! the instructions from the access chain to the last one depending on
//! it, in its block, are repeated in the cases of an `OpSwitch` on the
//! index, one per element with a constant index, and the values they
//! leave for the rest of the shader meet in `OpPhi`s of the switch's
//! merge block, which takes the rest of the block. The instructions
//! between that do not depend on the element are repeated too, so
//! side effects keep their order (one case runs); the block's own branch
//! may depend on them. Images and pointers cannot meet in an `OpPhi`, so
//! where one made from an element is used in another block (optimizers
//! load an element once for several blocks), its making is repeated in
//! front of that use first ([`Patcher::rematerialize_elements`]), and
//! unrolled there. A loop header block cannot also head the switch:
//! where the access is in one (spirv-opt's `do { } while` loops are a
//! single block), the header's body moves to a block of its own first
//! ([`Patcher::split_loop_header`]). An index read from another element
//! (which would multiply the copies) is refused, and the copies of a
//! module are bounded. An index out of range takes
//! the last element (GL leaves it undefined).

use std::collections::{HashMap, HashSet};

use rspirv::dr::{self, Instruction, Operand};
use rspirv::spirv::{Decoration, Op, StorageClass, Word};

use super::{literal, model_of, selection_merge, Num, Patcher};
use crate::{Error, Result};

/// The longest descriptor array: a stage's bindings in the widest set
/// of the binding model.
const MAX_ELEMENTS: u32 = 32;

/// The most instructions the unrolling of a module's dynamic indices
/// copies.
const MAX_COPIES: usize = 1 << 16;

/// One descriptor array: its variable, element type and length.
pub(crate) struct DescriptorArray {
    pub var: Word,
    pub class: StorageClass,
    pub elem: Word,
    pub len: u32,
    /// Each use: (access chain, constant first index).
    pub uses: Vec<(Word, u32)>,
}

/// The `stage` entry point `entry` of a SPIR-V module with each
/// descriptor array split into one variable per element, at consecutive
/// bindings, and the access chains into it taking the element's
/// variable. The words unchanged where it has none.
pub fn split_descriptor_arrays(
    words: &[u32],
    stage: crate::ir::Stage,
    entry: &str,
) -> Result<Vec<u32>> {
    let mut p = Patcher::open(
        words,
        "SPIR-V descriptor arrays",
        entry,
        &[model_of(stage)],
        "descriptor arrays",
    )?;
    p.flatten_descriptor_arrays()?;
    p.unroll_dynamic_indices()?;
    let arrays = p.descriptor_arrays()?;
    if arrays.is_empty() {
        return Ok(words.to_vec());
    }
    for a in arrays {
        p.split(a)?;
    }
    p.finish()
}

/// An access chain into an array of arrays of descriptors: function,
/// block, instruction, and its indices' replacement (the flat index, and
/// the instructions that compute it, in front of the chain).
struct FlatChain {
    f: usize,
    b: usize,
    i: usize,
    index: Word,
    code: Vec<Instruction>,
}

/// A global variable with a descriptor set and binding.
pub(crate) struct DescriptorVar {
    pub var: Word,
    pub set: u32,
    pub binding: u32,
    pub class: StorageClass,
    /// Its pointee type (`None` in a damaged module).
    pub pointee: Option<Word>,
}

impl Patcher {
    /// Turns each array of arrays of descriptors (GL's `uniform sampler2D
    /// s[2][3]`, ARB_arrays_of_arrays) into one array of all its
    /// elements, in GL's order: the binding points of `s[i][j]` follow
    /// from `s`'s as `i * 3 + j` (GLSL 4.60, 4.4.5), which is what the
    /// flat array's element takes. Access chains give the flat index in
    /// place of theirs, computed in front of them when one is not a
    /// constant (the unrolling of dynamic indices then sees one index).
    /// An access that does not reach an element of the innermost array
    /// is refused.
    pub(crate) fn flatten_descriptor_arrays(&mut self) -> Result<()> {
        for d in self.descriptor_vars() {
            let Some(pointee) = d.pointee else { continue };
            let bad = |m: String| {
                Error::new(format!(
                    "SPIR-V descriptor set {} binding {} (%{}), an array of arrays: {m}",
                    d.set, d.binding, d.var
                ))
            };
            // The lengths, outermost first, and the innermost element.
            let mut dims = Vec::new();
            let mut elem = pointee;
            while let Some(t) = self.global(elem) {
                match (t.class.opcode, t.operands.as_slice()) {
                    (Op::TypeArray, [Operand::IdRef(e), Operand::IdRef(n)]) => {
                        let len = self
                            .global(*n)
                            .filter(|c| c.class.opcode == Op::Constant)
                            .and_then(|c| c.operands.first().and_then(literal))
                            .ok_or_else(|| bad("a length that is not a plain constant".into()))?;
                        // Deeper than any array of arrays GL can bind (a
                        // self-referential type, which only a damaged
                        // module has, ends here too).
                        if dims.len() > MAX_ELEMENTS as usize {
                            return Err(bad("more levels than a stage has bindings".into()));
                        }
                        dims.push(len);
                        elem = *e;
                    }
                    (Op::TypeRuntimeArray, _) if !dims.is_empty() => {
                        return Err(bad("a runtime-sized inner array".into()));
                    }
                    _ => break,
                }
            }
            if dims.len() < 2 {
                continue;
            }
            let total = dims
                .iter()
                .try_fold(1u32, |a, &n| a.checked_mul(n))
                .filter(|&n| n <= MAX_ELEMENTS)
                .ok_or_else(|| {
                    bad(format!(
                        "{dims:?} elements, more than a stage has bindings in any set \
                         ({MAX_ELEMENTS})"
                    ))
                })?;
            let chains = self.flat_chains(d.var, &dims).map_err(bad)?;
            let uint = Num {
                float: false,
                signed: false,
                bits: 32,
                comps: 1,
            };
            let n = self.konst(uint, u64::from(total));
            let flat = self.b.type_array(elem, n);
            let ptr = self.b.type_pointer(None, d.class, flat);
            // The variable takes the flat array's pointer type, behind
            // the types it needs.
            let globals = &mut self.b.module_mut().types_global_values;
            if let Some(at) = globals.iter().position(|i| i.result_id == Some(d.var)) {
                let mut v = globals.remove(at);
                v.result_type = Some(ptr);
                globals.push(v);
            }
            // Back to front, so the positions stay good.
            let m = self.b.module_mut();
            for c in chains.into_iter().rev() {
                let insts = &mut m.functions[c.f].blocks[c.b].instructions;
                let rest = insts[c.i].operands.split_off(1 + dims.len());
                insts[c.i].operands.truncate(1);
                insts[c.i].operands.push(Operand::IdRef(c.index));
                insts[c.i].operands.extend(rest);
                insts.splice(c.i..c.i, c.code);
            }
        }
        Ok(())
    }

    /// The access chains into `var`, an array of arrays of lengths
    /// `dims`, each with its flat index (see
    /// [`Patcher::flatten_descriptor_arrays`]); an error for any other
    /// use, a chain with fewer indices than `dims`, or a constant index
    /// out of range.
    fn flat_chains(
        &mut self,
        var: Word,
        dims: &[u32],
    ) -> std::result::Result<Vec<FlatChain>, String> {
        let uint = Num {
            float: false,
            signed: false,
            bits: 32,
            comps: 1,
        };
        let mut sites = Vec::new();
        for (f, func) in self.module().functions.iter().enumerate() {
            for (b, block) in func.blocks.iter().enumerate() {
                for (i, inst) in block.instructions.iter().enumerate() {
                    if !inst.operands.contains(&Operand::IdRef(var)) {
                        continue;
                    }
                    let chain =
                        matches!(inst.class.opcode, Op::AccessChain | Op::InBoundsAccessChain)
                            && inst.operands.first() == Some(&Operand::IdRef(var))
                            && !inst.operands[1..].contains(&Operand::IdRef(var));
                    if !chain {
                        return Err(format!(
                            "used by {:?} other than as the base of an access chain",
                            inst.class.opcode
                        ));
                    }
                    let indices: Vec<Word> = inst.operands[1..]
                        .iter()
                        .take(dims.len())
                        .filter_map(|o| match o {
                            Operand::IdRef(x) => Some(*x),
                            _ => None,
                        })
                        .collect();
                    if indices.len() < dims.len() {
                        return Err(format!(
                            "an access chain with {} of its {} indices; pipe-vk binds the \
                             elements of the innermost array only",
                            indices.len(),
                            dims.len()
                        ));
                    }
                    sites.push((f, b, i, indices));
                }
            }
        }
        let mut out = Vec::new();
        for (f, b, i, indices) in sites {
            let constants: Vec<Option<u32>> = indices
                .iter()
                .map(|&k| {
                    self.global(k)
                        .filter(|c| c.class.opcode == Op::Constant)
                        .and_then(|c| c.operands.first().and_then(literal))
                })
                .collect();
            if let Some(k) = constants
                .iter()
                .zip(dims)
                .find_map(|(c, &n)| c.filter(|&c| c >= n))
            {
                return Err(format!("index {k} out of range of its array ({dims:?})"));
            }
            if constants.iter().all(Option::is_some) {
                let flat = constants
                    .iter()
                    .zip(dims)
                    .fold(0u32, |a, (c, &n)| a * n + c.unwrap_or(0));
                let index = self.konst(uint, u64::from(flat));
                out.push(FlatChain {
                    f,
                    b,
                    i,
                    index,
                    code: Vec::new(),
                });
                continue;
            }
            for &k in &indices {
                let is_int32 = self
                    .type_of(f, k)
                    .and_then(|t| self.num(t))
                    .is_some_and(|n| !n.float && n.bits == 32 && n.comps == 1);
                if !is_int32 {
                    return Err(format!("index %{k} is not a 32-bit integer"));
                }
            }
            // ((i0 * n1 + i1) * n2 + i2) ...
            let ty = self.ty(uint);
            let mut code = Vec::new();
            let mut acc = indices[0];
            for (&k, &n) in indices.iter().zip(dims).skip(1) {
                let len = self.konst(uint, u64::from(n));
                let scaled = self.emit(&mut code, Op::IMul, ty, &[acc, len]);
                acc = self.emit(&mut code, Op::IAdd, ty, &[scaled, k]);
            }
            out.push(FlatChain {
                f,
                b,
                i,
                index: acc,
                code,
            });
        }
        Ok(out)
    }

    /// Drops the decorations and debug names of `ids`, which leave the
    /// module.
    fn forget_ids(&mut self, ids: &HashSet<Word>) {
        if ids.is_empty() {
            return;
        }
        let m = self.b.module_mut();
        let on = |i: &Instruction| matches!(i.operands.first(), Some(Operand::IdRef(t)) if ids.contains(t));
        m.annotations.retain(|a| {
            !(matches!(
                a.class.opcode,
                Op::Decorate | Op::DecorateId | Op::DecorateString
            ) && on(a))
        });
        m.debug_names.retain(|n| !on(n));
        for a in &mut m.annotations {
            if a.class.opcode == Op::GroupDecorate {
                let mut k = 0;
                a.operands.retain(|o| {
                    k += 1;
                    k == 1 || !matches!(o, Operand::IdRef(t) if ids.contains(t))
                });
            }
        }
        m.annotations
            .retain(|a| a.class.opcode != Op::GroupDecorate || a.operands.len() > 1);
        for id in ids {
            self.decorations.remove(id);
        }
    }

    /// The module's variables with a descriptor set and binding.
    pub(crate) fn descriptor_vars(&self) -> Vec<DescriptorVar> {
        self.module()
            .types_global_values
            .iter()
            .filter(|i| i.class.opcode == Op::Variable)
            .filter_map(|v| {
                let var = v.result_id?;
                let set = self.decoration(var, Decoration::DescriptorSet)??;
                let binding = self.decoration(var, Decoration::Binding)??;
                let Some(Operand::StorageClass(class)) = v.operands.first() else {
                    return None;
                };
                let pointee = v.result_type.and_then(|t| self.global(t)).and_then(|t| {
                    match t.operands.as_slice() {
                        [_, Operand::IdRef(x)] => Some(*x),
                        _ => None,
                    }
                });
                Some(DescriptorVar {
                    var,
                    set,
                    binding,
                    class: *class,
                    pointee,
                })
            })
            .collect()
    }

    /// The module's descriptor arrays (variables with a descriptor set
    /// and binding whose type is a sized array), with their uses; an
    /// error for a use pipe-vk cannot split (not an access chain with a
    /// constant first index in range: dynamic indices are unrolled
    /// first) and for runtime arrays.
    pub(crate) fn descriptor_arrays(&self) -> Result<Vec<DescriptorArray>> {
        let mut out = Vec::new();
        for d in self.descriptor_vars() {
            let DescriptorVar {
                var,
                set,
                binding,
                class,
                pointee,
            } = d;
            let Some(ty) = pointee.and_then(|t| self.global(t)) else {
                continue;
            };
            let bad = |m: String| {
                Error::new(format!(
                    "SPIR-V descriptor set {set} binding {binding} (%{var}): {m}"
                ))
            };
            let (elem, len) = match (ty.class.opcode, ty.operands.as_slice()) {
                (Op::TypeArray, [Operand::IdRef(e), Operand::IdRef(n)]) => {
                    let len = self
                        .global(*n)
                        .filter(|c| c.class.opcode == Op::Constant)
                        .and_then(|c| c.operands.first().and_then(literal))
                        .ok_or_else(|| {
                            bad("an array whose length is not a plain constant".into())
                        })?;
                    if len > MAX_ELEMENTS {
                        return Err(bad(format!(
                            "an array of {len}, more than a stage has bindings in any set \
                             ({MAX_ELEMENTS})"
                        )));
                    }
                    (*e, len)
                }
                (Op::TypeRuntimeArray, _) => {
                    return Err(bad(
                        "a runtime-sized descriptor array, which the binding model has no \
                         bindings for"
                            .into(),
                    ))
                }
                _ => continue,
            };
            let mut uses = Vec::new();
            for i in self
                .module()
                .functions
                .iter()
                .flat_map(|f| &f.blocks)
                .flat_map(|b| &b.instructions)
                .filter(|i| i.operands.contains(&Operand::IdRef(var)))
            {
                let chain = matches!(i.class.opcode, Op::AccessChain | Op::InBoundsAccessChain)
                    && i.operands.first() == Some(&Operand::IdRef(var));
                let index = match i.operands.get(1) {
                    Some(Operand::IdRef(k)) if chain => self
                        .global(*k)
                        .filter(|c| c.class.opcode == Op::Constant)
                        .and_then(|c| c.operands.first().and_then(literal)),
                    _ => None,
                };
                let Some(index) = index else {
                    return Err(bad(format!(
                        "the descriptor array is used by {:?} other than with a constant \
                         index; pipe-vk binds element k at binding {binding} + k and splits \
                         only constant indices",
                        i.class.opcode
                    )));
                };
                if index >= len {
                    return Err(bad(format!("index {index} of a descriptor array of {len}")));
                }
                let Some(id) = i.result_id else { continue };
                uses.push((id, index));
            }
            out.push(DescriptorArray {
                var,
                class,
                elem,
                len,
                uses,
            });
        }
        Ok(out)
    }

    /// Splits the descriptor array `a` into one variable per element.
    fn split(&mut self, a: DescriptorArray) -> Result<()> {
        let DescriptorArray {
            var,
            class,
            elem,
            len,
            uses,
        } = a;
        let binding = self
            .decoration(var, Decoration::Binding)
            .flatten()
            .unwrap_or(0);
        // The array's decorations, but its binding, go to each element.
        let decos: Vec<Instruction> = self
            .module()
            .annotations
            .iter()
            .filter(|i| {
                i.class.opcode == Op::Decorate
                    && i.operands.first() == Some(&Operand::IdRef(var))
                    && i.operands.get(1) != Some(&Operand::Decoration(Decoration::Binding))
            })
            .cloned()
            .collect();
        let in_interface = self.interface().contains(&var);
        let ptr = self.b.type_pointer(None, class, elem);
        let mut vars = Vec::new();
        for k in 0..len {
            let v = self.b.id();
            let globals = &mut self.b.module_mut().types_global_values;
            let mut at = globals
                .iter()
                .position(|i| i.result_id == Some(var))
                .unwrap_or(globals.len());
            // The pointer type, when new, moves in front of the variables.
            if let Some(p) = globals.iter().position(|i| i.result_id == Some(ptr)) {
                if p > at {
                    let t = globals.remove(p);
                    globals.insert(at, t);
                    at += 1;
                }
            }
            globals.insert(
                at,
                Instruction::new(
                    Op::Variable,
                    Some(ptr),
                    Some(v),
                    vec![Operand::StorageClass(class)],
                ),
            );
            for d in &decos {
                let mut d = d.clone();
                d.operands[0] = Operand::IdRef(v);
                self.b.module_mut().annotations.push(d);
            }
            let b = binding.checked_add(k).ok_or_else(|| {
                Error::new(format!("SPIR-V descriptor array %{var}: binding overflows"))
            })?;
            self.b
                .decorate(v, Decoration::Binding, [Operand::LiteralBit32(b)]);
            vars.push(v);
        }
        // Access chains: one index goes away, a chain of only that index
        // is the element's variable.
        let replaced: HashMap<Word, Word> =
            uses.iter().map(|&(id, k)| (id, vars[k as usize])).collect();
        // Chains of the array and one index go: their decorations and
        // names too.
        let removed: HashSet<Word> = self
            .module()
            .functions
            .iter()
            .flat_map(|f| &f.blocks)
            .flat_map(|b| &b.instructions)
            .filter(|i| {
                i.operands.len() <= 2 && i.result_id.is_some_and(|id| replaced.contains_key(&id))
            })
            .filter_map(|i| i.result_id)
            .collect();
        self.forget_ids(&removed);
        let m = self.b.module_mut();
        for f in &mut m.functions {
            for b in &mut f.blocks {
                b.instructions.retain_mut(|i| {
                    let chain = i.result_id.filter(|id| replaced.contains_key(id));
                    let Some(id) = chain else { return true };
                    if i.operands.len() <= 2 {
                        return false;
                    }
                    i.operands.remove(1);
                    i.operands[0] = Operand::IdRef(replaced[&id]);
                    true
                });
            }
        }
        let short: HashMap<Word, Word> = uses
            .iter()
            .map(|&(id, k)| (id, vars[k as usize]))
            .filter(|(id, _)| {
                !m.functions
                    .iter()
                    .flat_map(|f| &f.blocks)
                    .flat_map(|b| &b.instructions)
                    .any(|i| i.result_id == Some(*id))
            })
            .collect();
        for f in &mut m.functions {
            for b in &mut f.blocks {
                for i in &mut b.instructions {
                    for o in &mut i.operands {
                        if let Operand::IdRef(x) = o {
                            if let Some(v) = short.get(x) {
                                *x = *v;
                            }
                        }
                    }
                }
            }
        }
        // The array variable goes, with its decorations and names (a
        // decoration group names each element instead).
        for a in &mut m.annotations {
            if a.class.opcode == Op::GroupDecorate && a.operands[1..].contains(&Operand::IdRef(var))
            {
                a.operands.retain(|o| *o != Operand::IdRef(var));
                a.operands.extend(vars.iter().map(|&v| Operand::IdRef(v)));
            }
        }
        m.types_global_values.retain(|i| i.result_id != Some(var));
        m.annotations
            .retain(|i| i.operands.first() != Some(&Operand::IdRef(var)));
        m.debug_names
            .retain(|i| i.operands.first() != Some(&Operand::IdRef(var)));
        for ep in &mut m.entry_points {
            ep.operands.retain(|o| *o != Operand::IdRef(var));
            if in_interface {
                ep.operands.extend(vars.iter().map(|&v| Operand::IdRef(v)));
            }
        }
        self.decorations.remove(&var);
        Ok(())
    }
}

/// A dynamically indexed access chain into a descriptor array: function,
/// block and instruction, the array's length and the index.
struct DynamicChain {
    f: usize,
    b: usize,
    i: usize,
    len: u32,
    index: Word,
}

/// Whether `op` ends a block, or is the merge instruction before the end.
fn ends_block(op: Op) -> bool {
    matches!(
        op,
        Op::SelectionMerge
            | Op::LoopMerge
            | Op::Branch
            | Op::BranchConditional
            | Op::Switch
            | Op::Return
            | Op::ReturnValue
            | Op::Kill
            | Op::TerminateInvocation
            | Op::Unreachable
    )
}

impl Patcher {
    /// Unrolls every dynamically indexed access chain into a descriptor
    /// array (see the module documentation).
    pub(crate) fn unroll_dynamic_indices(&mut self) -> Result<()> {
        // Each unrolling removes one dynamic chain (its copies index
        // constants). The instructions copied are bounded, so that no
        // module, damaged or not, asks for unbounded work.
        let mut budget = MAX_COPIES;
        self.rematerialize_elements(&mut budget)?;
        while let Some(site) = self.dynamic_chain() {
            self.unroll(site, &mut budget)?;
        }
        Ok(())
    }

    /// Copies of `insts` with new result ids, each reading the copies of
    /// those before it; with the ids' map.
    fn copies(
        &mut self,
        insts: impl Iterator<Item = Instruction>,
    ) -> (Vec<Instruction>, HashMap<Word, Word>) {
        let mut remap: HashMap<Word, Word> = HashMap::new();
        let mut code = Vec::new();
        for mut x in insts {
            for o in &mut x.operands {
                if let Operand::IdRef(id) = o {
                    if let Some(to) = remap.get(id) {
                        *id = *to;
                    }
                }
            }
            if let Some(old) = x.result_id {
                let new = self.b.id();
                remap.insert(old, new);
                x.result_id = Some(new);
            }
            code.push(x);
        }
        (code, remap)
    }

    /// Repeats, in front of each use in another block, the instructions
    /// that make a pointer or image out of a dynamically indexed element
    /// of a descriptor array (the access chain, the load, `OpImage`):
    /// optimizers (spirv-opt's `-O`) load an element once and use it in
    /// several blocks, and an image cannot meet in an `OpPhi` after the
    /// unrolling. Each repetition is a chain of its own, unrolled in its
    /// block. A use by an `OpPhi` gets the repetition at the end of the
    /// predecessor it comes from. The chain's operands dominate it, and
    /// so every use, so the repetitions are valid where they go.
    fn rematerialize_elements(&mut self, budget: &mut usize) -> Result<()> {
        let arrays: HashSet<Word> = self
            .descriptor_vars()
            .iter()
            .filter(|d| {
                d.pointee
                    .and_then(|t| self.global(t))
                    .is_some_and(|t| t.class.opcode == Op::TypeArray)
            })
            .map(|d| d.var)
            .collect();
        if arrays.is_empty() {
            return Ok(());
        }
        let opaque = |p: &Patcher, ty: Option<Word>| {
            ty.and_then(|t| p.global(t)).is_some_and(|t| {
                matches!(
                    t.class.opcode,
                    Op::TypePointer | Op::TypeImage | Op::TypeSampler | Op::TypeSampledImage
                )
            })
        };
        for f in 0..self.module().functions.len() {
            // Opaque values derived from a dynamic element: id -> (block,
            // the instructions that make it, in order).
            let mut derived: HashMap<Word, (usize, Vec<Instruction>)> = HashMap::new();
            let blocks = self.module().functions[f].blocks.clone();
            for (b, block) in blocks.iter().enumerate() {
                for x in &block.instructions {
                    let Some(id) = x.result_id else { continue };
                    if !opaque(self, x.result_type) {
                        continue;
                    }
                    let chain = matches!(x.class.opcode, Op::AccessChain | Op::InBoundsAccessChain);
                    let from_array = chain
                        && matches!(x.operands.first(), Some(Operand::IdRef(a)) if arrays.contains(a))
                        && !matches!(x.operands.get(1), Some(Operand::IdRef(k))
                            if self.global(*k).is_some_and(|c| c.class.opcode == Op::Constant));
                    if from_array {
                        derived.insert(id, (b, vec![x.clone()]));
                        continue;
                    }
                    let parent = x.operands.iter().find_map(|o| match o {
                        Operand::IdRef(p) => derived.get(p).cloned(),
                        _ => None,
                    });
                    let makes = matches!(
                        x.class.opcode,
                        Op::Load
                            | Op::Image
                            | Op::CopyObject
                            | Op::AccessChain
                            | Op::InBoundsAccessChain
                    );
                    if let (Some((pb, mut path)), true) = (parent, makes) {
                        if pb == b {
                            path.push(x.clone());
                            derived.insert(id, (b, path));
                        }
                    }
                }
            }
            if derived.is_empty() {
                continue;
            }
            // Uses in other blocks: (block, instruction, operand, value);
            // an OpPhi's is placed at the end of the predecessor.
            let mut sites: Vec<(usize, usize, usize, Word)> = Vec::new();
            for (b, block) in blocks.iter().enumerate() {
                for (i, x) in block.instructions.iter().enumerate() {
                    for (k, o) in x.operands.iter().enumerate() {
                        let Operand::IdRef(v) = o else { continue };
                        let Some((db, _)) = derived.get(v) else {
                            continue;
                        };
                        if *db != b || x.class.opcode == Op::Phi {
                            sites.push((b, i, k, *v));
                        }
                    }
                }
            }
            // Back to front, so positions stay good; copies inserted in
            // front of each instruction so far.
            sites.sort_unstable();
            let mut shifted: HashMap<(usize, usize), usize> = HashMap::new();
            for (b, i, k, v) in sites.into_iter().rev() {
                let path = derived[&v].1.clone();
                *budget = budget.checked_sub(path.len()).ok_or_else(|| {
                    Error::new(
                        "SPIR-V descriptor arrays: the shader's dynamic indices need too many copies",
                    )
                })?;
                let (code, remap) = self.copies(path.iter().cloned());
                let value = remap[&v];
                let func = &mut self.b.module_mut().functions[f];
                let phi = func.blocks[b].instructions[i].class.opcode == Op::Phi;
                if phi {
                    // The predecessor's label follows the value.
                    let Some(Operand::IdRef(pred)) =
                        func.blocks[b].instructions[i].operands.get(k + 1).cloned()
                    else {
                        continue;
                    };
                    let Some(pb) = func
                        .blocks
                        .iter()
                        .position(|x| x.label.as_ref().and_then(|l| l.result_id) == Some(pred))
                    else {
                        continue;
                    };
                    let insts = &mut func.blocks[pb].instructions;
                    let at = insts
                        .iter()
                        .position(|x| ends_block(x.class.opcode))
                        .unwrap_or(insts.len());
                    insts.splice(at..at, code);
                } else {
                    // Copies for this instruction's later operands went in
                    // at `i` already: it sits past them and these.
                    let before = shifted.get(&(b, i)).copied().unwrap_or(0);
                    func.blocks[b].instructions.splice(i..i, code);
                    let n = before + path.len();
                    shifted.insert((b, i), n);
                    func.blocks[b].instructions[i + n].operands[k] = Operand::IdRef(value);
                    continue;
                }
                func.blocks[b].instructions[i].operands[k] = Operand::IdRef(value);
            }
        }
        Ok(())
    }

    /// The first access chain into a descriptor array whose first index
    /// is not a constant.
    fn dynamic_chain(&self) -> Option<DynamicChain> {
        let m = self.module();
        let arrays: HashMap<Word, u32> = self
            .descriptor_vars()
            .into_iter()
            .filter_map(|d| {
                let t = self.global(d.pointee?)?;
                match (t.class.opcode, t.operands.as_slice()) {
                    (Op::TypeArray, [_, Operand::IdRef(n)]) => {
                        let len = self
                            .global(*n)
                            .filter(|c| c.class.opcode == Op::Constant)
                            .and_then(|c| c.operands.first().and_then(literal))?;
                        Some((d.var, len))
                    }
                    _ => None,
                }
            })
            .collect();
        if arrays.is_empty() {
            return None;
        }
        for (f, func) in m.functions.iter().enumerate() {
            for (b, block) in func.blocks.iter().enumerate() {
                for (i, inst) in block.instructions.iter().enumerate() {
                    if !matches!(inst.class.opcode, Op::AccessChain | Op::InBoundsAccessChain) {
                        continue;
                    }
                    let (Some(Operand::IdRef(base)), Some(Operand::IdRef(index))) =
                        (inst.operands.first(), inst.operands.get(1))
                    else {
                        continue;
                    };
                    let Some(&len) = arrays.get(base) else {
                        continue;
                    };
                    let constant = self
                        .global(*index)
                        .is_some_and(|c| c.class.opcode == Op::Constant);
                    if !constant && len > 0 {
                        return Some(DynamicChain {
                            f,
                            b,
                            i,
                            len,
                            index: *index,
                        });
                    }
                }
            }
        }
        None
    }

    /// The type of the value `id` of function `f` (a result of one of its
    /// instructions or parameters, or a global).
    pub(super) fn type_of(&self, f: usize, id: Word) -> Option<Word> {
        let func = &self.module().functions[f];
        func.parameters
            .iter()
            .chain(func.blocks.iter().flat_map(|b| &b.instructions))
            .chain(&self.module().types_global_values)
            .find(|i| i.result_id == Some(id))
            .and_then(|i| i.result_type)
    }

    /// Splits the loop header block `b` of function `f` in two: the header
    /// keeps its `OpPhi`s and `OpLoopMerge` and branches to a new block
    /// after it, which takes the rest (spirv-opt leaves loads of
    /// `do { } while` and `while` conditions in the header). Where the
    /// header was its own continue target (a single-block loop), the new
    /// block, which now takes the back edge, is. Predecessor labels of
    /// `OpPhi`s naming the header name the new block: every edge that
    /// left the header leaves it now. Returns the number of instructions
    /// kept before the merge (the `OpPhi`s, and `OpLine`s among them).
    ///
    /// Only where the header's branch stays structured in the new block:
    /// an `OpBranch`, or an `OpBranchConditional` one of whose targets
    /// leaves the loop's body (its merge block or continue target: a
    /// break or a continue). A conditional branch to two blocks of the
    /// body needs the header's merge, so that is refused (`Err`).
    fn split_loop_header(
        &mut self,
        f: usize,
        b: usize,
    ) -> std::result::Result<usize, &'static str> {
        let damaged = "a loop header is damaged";
        let block = &self.module().functions[f].blocks[b];
        let label = block
            .label
            .as_ref()
            .and_then(|l| l.result_id)
            .ok_or(damaged)?;
        let insts = &block.instructions;
        let kept = insts
            .iter()
            .take_while(|x| matches!(x.class.opcode, Op::Phi | Op::Line | Op::NoLine))
            .count();
        let at = insts
            .iter()
            .position(|x| x.class.opcode == Op::LoopMerge)
            .ok_or(damaged)?;
        if at + 2 != insts.len() || at < kept {
            return Err(damaged);
        }
        let exits: Vec<&Operand> = insts[at].operands.iter().take(2).collect();
        let branch = &insts[at + 1];
        let structured = match branch.class.opcode {
            Op::Branch => true,
            Op::BranchConditional => branch
                .operands
                .iter()
                .skip(1)
                .take(2)
                .any(|t| exits.contains(&t)),
            _ => false,
        };
        if !structured {
            return Err(
                "the access is in a loop header whose branch chooses between blocks of the \
                 loop's body",
            );
        }
        let phis = kept;
        let body = self.b.id();
        let blocks = &mut self.b.module_mut().functions[f].blocks;
        let mut rest = blocks[b].instructions.split_off(phis);
        let mut merge = rest.remove(at - phis);
        if merge.operands.get(1) == Some(&Operand::IdRef(label)) {
            merge.operands[1] = Operand::IdRef(body);
        }
        for x in blocks.iter_mut().flat_map(|x| &mut x.instructions) {
            if x.class.opcode == Op::Phi {
                for pair in x.operands.chunks_mut(2) {
                    if pair.get(1) == Some(&Operand::IdRef(label)) {
                        pair[1] = Operand::IdRef(body);
                    }
                }
            }
        }
        let header = &mut blocks[b].instructions;
        header.push(merge);
        header.push(Instruction::new(
            Op::Branch,
            None,
            None,
            vec![Operand::IdRef(body)],
        ));
        blocks.insert(
            b + 1,
            dr::Block {
                label: Some(Instruction::new(Op::Label, None, Some(body), vec![])),
                instructions: rest,
            },
        );
        Ok(phis)
    }

    /// Unrolls the dynamic access chain at `site` (see the module
    /// documentation).
    fn unroll(&mut self, site: DynamicChain, budget: &mut usize) -> Result<()> {
        let DynamicChain {
            f,
            b,
            i,
            len,
            index,
        } = site;
        let bad = |m: &str| {
            Error::new(format!(
                "SPIR-V descriptor array indexed with %{index}: {m}; pipe-vk repeats such an \
                 access once per element"
            ))
        };
        if len > MAX_ELEMENTS {
            return Err(bad(&format!("an array of {len}")));
        }
        let block = self.module().functions[f].blocks[b].clone();
        let label = block
            .label
            .as_ref()
            .and_then(|l| l.result_id)
            .ok_or_else(|| bad("a block has no label"))?;
        let insts = &block.instructions;
        if insts.iter().any(|x| x.class.opcode == Op::LoopMerge) {
            // A loop header cannot also head the switch: its body moves
            // to a block of its own first, and is unrolled there.
            let kept = self.split_loop_header(f, b).map_err(bad)?;
            let i = i
                .checked_sub(kept)
                .ok_or_else(|| bad("an OpPhi indexes the array"))?;
            return self.unroll(
                DynamicChain {
                    f,
                    b: b + 1,
                    i,
                    len,
                    index,
                },
                budget,
            );
        }
        let end = (i..insts.len())
            .find(|&j| ends_block(insts[j].class.opcode))
            .ok_or_else(|| bad("a block has no end"))?;
        let uses = |x: &Instruction, set: &HashSet<Word>| {
            x.operands
                .iter()
                .any(|o| matches!(o, Operand::IdRef(id) if set.contains(id)))
        };
        let mut tainted: HashSet<Word> = HashSet::new();
        tainted.extend(insts[i].result_id);
        let mut last = i;
        for (j, x) in insts.iter().enumerate().take(end).skip(i + 1) {
            if uses(x, &tainted) {
                tainted.extend(x.result_id);
                last = j;
            }
        }
        // The instructions from the chain to the last one depending on
        // it are repeated whole, those between that do not depend on it
        // too: exactly one case runs, so side effects keep their order.
        let in_region: Vec<usize> = (i..=last).collect();
        // An index read from an element (`b[b[i].x]`) would multiply the
        // copies at each level.
        let arrays: HashSet<Word> = self.descriptor_vars().iter().map(|d| d.var).collect();
        let nested = in_region.iter().skip(1).any(|&j| {
            matches!(insts[j].class.opcode, Op::AccessChain | Op::InBoundsAccessChain)
                && matches!(insts[j].operands.first(), Some(Operand::IdRef(a)) if arrays.contains(a))
                && matches!(insts[j].operands.get(1), Some(Operand::IdRef(k)) if tainted.contains(k))
        });
        if nested {
            return Err(bad(
                "another descriptor array is indexed with the element's value",
            ));
        }
        let copies = in_region.len().saturating_mul(len as usize);
        *budget = budget
            .checked_sub(copies)
            .ok_or_else(|| bad("the shader's dynamic indices need too many copies"))?;
        // Values of the repeated instructions used after them meet in
        // OpPhis; pointers and images cannot.
        let after: Vec<&Instruction> = insts[last + 1..]
            .iter()
            .chain(
                self.module().functions[f]
                    .blocks
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| *k != b)
                    .flat_map(|(_, x)| &x.instructions),
            )
            .collect();
        let used_after: HashSet<Word> = after
            .iter()
            .flat_map(|x| &x.operands)
            .filter_map(|o| match o {
                Operand::IdRef(id) => Some(*id),
                _ => None,
            })
            .collect();
        let mut escaping: Vec<(Word, Word)> = Vec::new();
        for &j in &in_region {
            let Some(id) = insts[j].result_id else {
                continue;
            };
            if !used_after.contains(&id) {
                continue;
            }
            let ty = insts[j]
                .result_type
                .ok_or_else(|| bad("a value has no type"))?;
            let opaque = self.global(ty).is_some_and(|t| {
                matches!(
                    t.class.opcode,
                    Op::TypePointer | Op::TypeImage | Op::TypeSampler | Op::TypeSampledImage
                )
            });
            if opaque {
                return Err(bad(
                    "a pointer or image from the array is used past the instructions that \
                     use it",
                ));
            }
            escaping.push((id, ty));
        }
        let index_ty = self
            .type_of(f, index)
            .ok_or_else(|| bad("the index has no type"))?;
        let n = self
            .num(index_ty)
            .filter(|n| !n.float && n.bits == 32 && n.comps == 1)
            .ok_or_else(|| bad("the index is not a 32-bit integer"))?;
        // Decorations of the repeated results go to each copy; the
        // originals that do not live on as an OpPhi lose theirs (and
        // their names).
        let region_ids: HashSet<Word> = in_region
            .iter()
            .filter_map(|&j| insts[j].result_id)
            .collect();
        let decorations: Vec<Instruction> = self
            .module()
            .annotations
            .iter()
            .filter(|a| {
                a.class.opcode == Op::Decorate
                    && matches!(a.operands.first(), Some(Operand::IdRef(t)) if region_ids.contains(t))
            })
            .cloned()
            .collect();
        let merge = self.b.id();
        let cases: Vec<Word> = (0..len).map(|_| self.b.id()).collect();
        let mut case_blocks = Vec::new();
        let mut phis: HashMap<Word, Vec<Operand>> = HashMap::new();
        for (k, &case) in cases.iter().enumerate() {
            let konst = self.konst(n, k as u64);
            // The chain takes the case's constant index.
            let region = in_region.iter().enumerate().map(|(r, &j)| {
                let mut x = insts[j].clone();
                if r == 0 {
                    x.operands[1] = Operand::IdRef(konst);
                }
                x
            });
            let (mut code, remap) = self.copies(region);
            for d in &decorations {
                if let Some(Operand::IdRef(t)) = d.operands.first() {
                    let mut d = d.clone();
                    d.operands[0] = Operand::IdRef(remap[t]);
                    self.b.module_mut().annotations.push(d);
                }
            }
            code.push(Instruction::new(
                Op::Branch,
                None,
                None,
                vec![Operand::IdRef(merge)],
            ));
            for (id, _) in &escaping {
                phis.entry(*id)
                    .or_default()
                    .extend([Operand::IdRef(remap[id]), Operand::IdRef(case)]);
            }
            case_blocks.push(dr::Block {
                label: Some(Instruction::new(Op::Label, None, Some(case), vec![])),
                instructions: code,
            });
        }
        let mut head: Vec<Instruction> = insts[..i].to_vec();
        head.push(selection_merge(merge));
        // The last element is the default.
        let mut switch = vec![
            Operand::IdRef(index),
            Operand::IdRef(cases[cases.len() - 1]),
        ];
        for (k, &case) in cases.iter().enumerate().take(cases.len() - 1) {
            switch.extend([Operand::LiteralBit32(k as u32), Operand::IdRef(case)]);
        }
        head.push(Instruction::new(Op::Switch, None, None, switch));
        let mut tail: Vec<Instruction> = escaping
            .iter()
            .map(|(id, ty)| {
                Instruction::new(
                    Op::Phi,
                    Some(*ty),
                    Some(*id),
                    phis.remove(id).unwrap_or_default(),
                )
            })
            .collect();
        tail.extend(insts[last + 1..].iter().cloned());
        let merge_block = dr::Block {
            label: Some(Instruction::new(Op::Label, None, Some(merge), vec![])),
            instructions: tail,
        };
        let gone: HashSet<Word> = region_ids
            .iter()
            .copied()
            .filter(|id| !escaping.iter().any(|(e, _)| e == id))
            .collect();
        self.forget_ids(&gone);
        let blocks = &mut self.b.module_mut().functions[f].blocks;
        blocks[b].instructions = head;
        // The block's successors now follow the merge block.
        for x in blocks.iter_mut().flat_map(|x| &mut x.instructions) {
            if x.class.opcode == Op::Phi {
                for pair in x.operands.chunks_mut(2) {
                    if pair.get(1) == Some(&Operand::IdRef(label)) {
                        pair[1] = Operand::IdRef(merge);
                    }
                }
            }
        }
        let at = b + 1;
        blocks.insert(at, merge_block);
        for (k, cb) in case_blocks.into_iter().enumerate() {
            blocks.insert(at + k, cb);
        }
        Ok(())
    }
}
