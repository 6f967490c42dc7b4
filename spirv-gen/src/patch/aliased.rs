//! GL's multisampling off for points drawn by a SPIR-V passthrough last
//! vertex stage, as `passes::aliased::lower_aliased_points` gives it to
//! the IR: where the vertex ends, the point size (clamped to
//! `1..=max_size - 1`) goes to a flat output at
//! [`ALIASED_POINT_LOCATION`] and `PointSize` becomes one more, so that
//! every sample of a pixel whose centre is in the original square is
//! covered; the fragment shader's half (an IR lowering) keeps those
//! pixels.

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Decoration, Op, StorageClass};

use super::{patch_last_stage, Num, Patcher, POINT_SIZE};
use crate::binding::ALIASED_POINT_LOCATION;
use crate::{Error, Result};

/// Aliased points for the last vertex stage `entry` of a SPIR-V module
/// (see the module documentation). Run after [`super::point_size`], so
/// `PointSize` is written; an error when the module has none, or uses
/// [`ALIASED_POINT_LOCATION`] itself.
pub fn aliased_points(words: &[u32], entry: &str, max_size: f32) -> Result<Vec<u32>> {
    patch_last_stage(words, entry, "aliased points", |p| {
        p.aliased_points(max_size)
    })
}

impl Patcher {
    fn aliased_points(&mut self, max_size: f32) -> Result<bool> {
        let (var, member) = self.find_output_builtin(POINT_SIZE)?.ok_or_else(|| {
            Error::new("SPIR-V aliased points: the shader has no PointSize output")
        })?;
        let taken = self
            .interface_globals(StorageClass::Output)
            .into_iter()
            .flat_map(|(v, t)| self.var_locations(v, t))
            .any(|l| l == ALIASED_POINT_LOCATION);
        if taken {
            return Err(Error::new(format!(
                "SPIR-V aliased points: output location {ALIASED_POINT_LOCATION} is taken \
                 (pipe-vk passes the point size there)"
            )));
        }
        let f = Num::float(32, 1);
        let ft = self.ty(f);
        let bt = self.b.type_bool();
        let out = self.add_variable(StorageClass::Output, ft);
        self.b.decorate(
            out,
            Decoration::Location,
            [Operand::LiteralBit32(ALIASED_POINT_LOCATION)],
        );
        self.b.decorate(out, Decoration::Flat, []);
        let one = self.konst(f, u64::from(1.0f32.to_bits()));
        let hi = self.konst(f, u64::from((max_size - 1.0).max(1.0).to_bits()));
        let sites = self.at_vertex_ends(&mut |p| {
            let (ptr, mut code) = p.output_element(var, member, None);
            let size = p.emit(&mut code, Op::Load, ft, &[ptr]);
            let low = p.emit(&mut code, Op::FOrdLessThan, bt, &[size, one]);
            let c = p.emit(&mut code, Op::Select, ft, &[low, one, size]);
            let high = p.emit(&mut code, Op::FOrdGreaterThan, bt, &[c, hi]);
            let c = p.emit(&mut code, Op::Select, ft, &[high, hi, c]);
            let wide = p.emit(&mut code, Op::FAdd, ft, &[c, one]);
            for (to, v) in [(ptr, wide), (out, c)] {
                code.push(Instruction::new(
                    Op::Store,
                    None,
                    None,
                    vec![Operand::IdRef(to), Operand::IdRef(v)],
                ));
            }
            code
        });
        if sites == 0 {
            return Err(Error::new(
                "SPIR-V aliased points: the entry point has no return (or a geometry shader \
                 no EmitVertex) to write the point size before",
            ));
        }
        Ok(true)
    }
}
