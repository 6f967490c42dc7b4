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
//! many resources. Only constant indices can be split; an array indexed
//! with anything else (GL allows dynamically uniform indices) is an
//! error, naming the variable.

use std::collections::HashMap;

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Decoration, Op, StorageClass, Word};

use super::{literal, load, model_of, Patcher};
use crate::{Error, Result};

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
    let module = load(words, "SPIR-V descriptor arrays")?;
    let mut p = Patcher::new(module, entry, &[model_of(stage)], "descriptor arrays")?;
    let arrays = p.descriptor_arrays()?;
    if arrays.is_empty() {
        return Ok(words.to_vec());
    }
    for a in arrays {
        p.split(a)?;
    }
    p.finish()
}

impl Patcher {
    /// The module's descriptor arrays (variables with a descriptor set
    /// and binding whose type is a sized array), with their uses; an
    /// error for a use pipe-vk cannot split (not an access chain with a
    /// constant first index in range) and for runtime arrays.
    pub(crate) fn descriptor_arrays(&self) -> Result<Vec<DescriptorArray>> {
        let mut out = Vec::new();
        for v in self
            .module()
            .types_global_values
            .iter()
            .filter(|i| i.class.opcode == Op::Variable)
        {
            let Some(var) = v.result_id else { continue };
            let (Some(Some(set)), Some(Some(binding))) = (
                self.decoration(var, Decoration::DescriptorSet),
                self.decoration(var, Decoration::Binding),
            ) else {
                continue;
            };
            let Some(Operand::StorageClass(class)) = v.operands.first() else {
                continue;
            };
            let pointee = v.result_type.and_then(|t| self.global(t)).and_then(|t| {
                match t.operands.as_slice() {
                    [_, Operand::IdRef(x)] => Some(*x),
                    _ => None,
                }
            });
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
                class: *class,
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
