//! GL's smooth lines where the device cannot draw them
//! (`passes::smooth_lines`) for SPIR-V passthrough shaders.
//!
//! The last vertex stage ([`smooth_lines`]) writes its position's clip
//! `(x, y, w)` to a `vec3` output at [`SMOOTH_LINE_LOCATION`] where each
//! vertex ends; the fragment shader ([`smooth_lines_fs`]) maps the
//! interpolated point to window coordinates with viewport 0's transform
//! from the driver's push constants, takes the pixel's coverage across
//! the line from its distance to the pixel centre, discards a fragment
//! with none and weighs its colour outputs' alpha by it, as the IR
//! lowering does (with the line's ends, weighed along the line too, where
//! pipe-vk's generated geometry shader lengthened it).

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{BuiltIn, Decoration, Op, StorageClass, Word};

use super::fragment::patch_fragment;
use super::{patch_last_stage, Num, Patcher, POSITION};
use crate::binding::{self, EDGE_MASK_LOCATION, SMOOTH_LINE_LOCATION, STIPPLE_POS_LOCATION};
use crate::{Error, Result};

/// GLSL.std.450's `Floor`, `FMin`, `FMax`, `FClamp`, `Fma` and `Distance`.
const FLOOR: u32 = 8;
const FMIN: u32 = 37;
const FMAX: u32 = 40;
const FCLAMP: u32 = 43;
const FMA: u32 = 50;
const DISTANCE: u32 = 67;

/// Smooth lines for the last vertex stage `entry`: a `vec3` output at
/// [`SMOOTH_LINE_LOCATION`] takes `Position.xyw` before each return (each
/// emitted vertex of a geometry shader). An error when the shader has no
/// `Position` output, writes `ViewportIndex` (the fragment half uses
/// viewport 0's transform) or uses that location itself.
pub fn smooth_lines(words: &[u32], entry: &str) -> Result<Vec<u32>> {
    patch_last_stage(words, entry, "smooth lines", |p| p.smooth_lines())
}

/// Smooth lines for the fragment shader `entry`, lines `width` pixels
/// wide (see the module documentation). An error when the shader uses
/// [`SMOOTH_LINE_LOCATION`] itself or has push constants of its own.
/// `ends`: the lines come lengthened from
/// `passes::line_stipple::smooth_line_ends_gs`, and the coverage is also
/// weighed along the line, as `passes::smooth_lines` does with the key's
/// `smooth_line_ends` (inputs `stipple_pos` at [`STIPPLE_POS_LOCATION`]
/// and `smooth_line_len` at [`EDGE_MASK_LOCATION`], which must be free).
/// `stipple` (with `ends`): the line stipple is weighed into the
/// coverage along the line, as `passes::smooth_lines::lower_smooth_lines_fs`
/// does, in place of [`super::line_stipple`]'s test.
pub fn smooth_lines_fs(
    words: &[u32],
    entry: &str,
    width: f32,
    ends: bool,
    stipple: bool,
) -> Result<Vec<u32>> {
    patch_fragment(words, entry, "smooth lines", |p| {
        p.smooth_lines_fs(width, ends, stipple)
    })
}

impl Patcher {
    fn smooth_lines(&mut self) -> Result<bool> {
        let (var, member) = self
            .find_output_builtin(POSITION)?
            .ok_or_else(|| Error::new("SPIR-V smooth lines: the shader has no Position output"))?;
        let viewport = BuiltIn::ViewportIndex as u32;
        if self.find_output_builtin(viewport)?.is_some() {
            return Err(Error::new(
                "SPIR-V smooth lines: the shader writes ViewportIndex (the emulation maps \
                 positions with viewport 0's transform)",
            ));
        }
        let taken = self
            .interface_globals(StorageClass::Output)
            .into_iter()
            .flat_map(|(v, t)| self.var_locations(v, t))
            .any(|l| l == SMOOTH_LINE_LOCATION);
        if taken {
            return Err(Error::new(format!(
                "SPIR-V smooth lines: output location {SMOOTH_LINE_LOCATION} is taken \
                 (pipe-vk passes the line's clip position there)"
            )));
        }
        let f = Num::float(32, 1);
        let (ft, v3t, v4t) = (
            self.ty(f),
            self.ty(Num::float(32, 3)),
            self.ty(Num::float(32, 4)),
        );
        let out = self.add_variable(StorageClass::Output, v3t);
        self.b.decorate(
            out,
            Decoration::Location,
            [Operand::LiteralBit32(SMOOTH_LINE_LOCATION)],
        );
        let at = member.map(|m| self.konst(Num::int(true, 32, 1), u64::from(m)));
        let ptr_t = self.b.type_pointer(None, StorageClass::Output, v4t);
        let sites = self.at_vertex_ends(&mut |p| {
            let mut code = Vec::new();
            let ptr = match at {
                Some(m) => p.emit(&mut code, Op::AccessChain, ptr_t, &[var, m]),
                None => var,
            };
            let pos = p.emit(&mut code, Op::Load, v4t, &[ptr]);
            let [x, y, w] = [0, 1, 3].map(|k| p.extract_in(&mut code, ft, pos, k));
            let q = p.emit(&mut code, Op::CompositeConstruct, v3t, &[x, y, w]);
            code.push(Instruction::new(
                Op::Store,
                None,
                None,
                vec![Operand::IdRef(out), Operand::IdRef(q)],
            ));
            code
        });
        if sites == 0 {
            return Err(Error::new(
                "SPIR-V smooth lines: the entry point has no return (or a geometry shader \
                 emits no vertex)",
            ));
        }
        Ok(true)
    }

    fn smooth_lines_fs(&mut self, width: f32, ends: bool, stipple: bool) -> Result<bool> {
        if self.input_at(SMOOTH_LINE_LOCATION).is_some() {
            return Err(Error::new(format!(
                "SPIR-V smooth lines: input location {SMOOTH_LINE_LOCATION} is taken (pipe-vk \
                 passes the line's clip position there)"
            )));
        }
        for loc in [STIPPLE_POS_LOCATION, EDGE_MASK_LOCATION] {
            if ends && self.input_at(loc).is_some() {
                return Err(Error::new(format!(
                    "SPIR-V smooth lines: input location {loc} is taken (pipe-vk passes the \
                     line's ends there)"
                )));
            }
        }
        let f = Num::float(32, 1);
        let u = Num::int(false, 32, 1);
        let (ft, ut) = (self.ty(f), self.ty(u));
        let (v2t, v3t, v4t) = (
            self.ty(Num::float(32, 2)),
            self.ty(Num::float(32, 3)),
            self.ty(Num::float(32, 4)),
        );
        let bt = self.b.type_bool();
        let glsl = self.glsl_set();
        let clip_in = self.add_driver_input(v3t, SMOOTH_LINE_LOCATION, None);
        let push = self.driver_push_block()?;
        // The Vulkan `FragCoord`: the shader's own (its reads may be moved
        // by other patches, which keep the variable raw) or a new one.
        let fc_var = match self.input_builtin(BuiltIn::FragCoord) {
            Some(v) => v,
            None => self.add_builtin(StorageClass::Input, BuiltIn::FragCoord, v4t),
        };
        let coverage = self.add_variable(StorageClass::Private, ft);
        let mut code = Vec::new();
        let q = self.emit(&mut code, Op::Load, v3t, &[clip_in]);
        let [x, y, w] = [0, 1, 2].map(|k| self.extract_in(&mut code, ft, q, k));
        let xy = self.emit(&mut code, Op::CompositeConstruct, v2t, &[x, y]);
        let ww = self.emit(&mut code, Op::CompositeConstruct, v2t, &[w, w]);
        let ndc = self.emit(&mut code, Op::FDiv, v2t, &[xy, ww]);
        let ptr_t = self.b.type_pointer(None, StorageClass::PushConstant, ut);
        let word0 = self.konst(u, 0);
        let pair = |p: &mut Patcher, code: &mut Vec<Instruction>, offset: u32| {
            let comps: Vec<Word> = (0..2u32)
                .map(|k| {
                    let at = p.konst(u, u64::from(offset / 4 + k));
                    let ptr = p.emit(code, Op::AccessChain, ptr_t, &[push, word0, at]);
                    let w = p.emit(code, Op::Load, ut, &[ptr]);
                    p.emit(code, Op::Bitcast, ft, &[w])
                })
                .collect();
            p.emit(code, Op::CompositeConstruct, v2t, &comps)
        };
        let scale = pair(self, &mut code, binding::push::VIEWPORT_SCALE);
        let translate = pair(self, &mut code, binding::push::VIEWPORT_TRANSLATE);
        let scaled = self.emit(&mut code, Op::FMul, v2t, &[ndc, scale]);
        let on_line = self.emit(&mut code, Op::FAdd, v2t, &[scaled, translate]);
        let fc = self.emit(&mut code, Op::Load, v4t, &[fc_var]);
        let [cx, cy] = [0, 1].map(|k| self.extract_in(&mut code, ft, fc, k));
        let centre = self.emit(&mut code, Op::CompositeConstruct, v2t, &[cx, cy]);
        let d = self.ext(&mut code, ft, glsl, DISTANCE, &[centre, on_line]);
        // Overlap of [d - 1/2, d + 1/2] with [-h, h].
        let h = width.max(0.0) * 0.5;
        let half = self.konst(f, u64::from(0.5f32.to_bits()));
        let hk = self.konst(f, u64::from(h.to_bits()));
        let neg_hk = self.konst(f, u64::from((-h).to_bits()));
        let zero = self.konst(f, 0);
        let one = self.konst(f, u64::from(1.0f32.to_bits()));
        let top = self.emit(&mut code, Op::FAdd, ft, &[d, half]);
        let top = self.ext(&mut code, ft, glsl, FMIN, &[top, hk]);
        let bottom = self.emit(&mut code, Op::FSub, ft, &[d, half]);
        let bottom = self.ext(&mut code, ft, glsl, FMAX, &[bottom, neg_hk]);
        let c = self.emit(&mut code, Op::FSub, ft, &[top, bottom]);
        let mut c = self.ext(&mut code, ft, glsl, FCLAMP, &[c, zero, one]);
        if ends {
            // Overlap of [s - 1/2, s + 1/2] with [0, len].
            let s_in =
                self.add_driver_input(ft, STIPPLE_POS_LOCATION, Some(Decoration::NoPerspective));
            let len_in = self.add_driver_input(ft, EDGE_MASK_LOCATION, Some(Decoration::Flat));
            let s_ = self.emit(&mut code, Op::Load, ft, &[s_in]);
            let len = self.emit(&mut code, Op::Load, ft, &[len_in]);
            let top = self.emit(&mut code, Op::FAdd, ft, &[s_, half]);
            let top = self.ext(&mut code, ft, glsl, FMIN, &[top, len]);
            let bottom = self.emit(&mut code, Op::FSub, ft, &[s_, half]);
            let bottom = self.ext(&mut code, ft, glsl, FMAX, &[bottom, zero]);
            let a = if stipple {
                // The rectangles of bits k0 = floor(bottom / factor) and
                // k0 + 1, split at (k0 + 1) * factor.
                let (pattern, factor) = self.line_stipple_pattern(&mut code, push);
                let q = self.emit(&mut code, Op::FDiv, ft, &[bottom, factor]);
                let k0 = self.ext(&mut code, ft, glsl, FLOOR, &[q]);
                let k1 = self.emit(&mut code, Op::FAdd, ft, &[k0, one]);
                let split = self.emit(&mut code, Op::FMul, ft, &[k1, factor]);
                let first_end = self.ext(&mut code, ft, glsl, FMIN, &[top, split]);
                let first = self.emit(&mut code, Op::FSub, ft, &[first_end, bottom]);
                let first = self.ext(&mut code, ft, glsl, FCLAMP, &[first, zero, one]);
                let second = self.emit(&mut code, Op::FSub, ft, &[top, split]);
                let second = self.ext(&mut code, ft, glsl, FCLAMP, &[second, zero, one]);
                let bit0 = self.line_stipple_bit(&mut code, pattern, k0);
                let bit0 = self.emit(&mut code, Op::ConvertUToF, ft, &[bit0]);
                let bit1 = self.line_stipple_bit(&mut code, pattern, k1);
                let bit1 = self.emit(&mut code, Op::ConvertUToF, ft, &[bit1]);
                let kept = self.emit(&mut code, Op::FMul, ft, &[bit0, first]);
                self.ext(&mut code, ft, glsl, FMA, &[bit1, second, kept])
            } else {
                let a = self.emit(&mut code, Op::FSub, ft, &[top, bottom]);
                self.ext(&mut code, ft, glsl, FCLAMP, &[a, zero, one])
            };
            c = self.emit(&mut code, Op::FMul, ft, &[c, a]);
        }
        code.push(Instruction::new(
            Op::Store,
            None,
            None,
            vec![Operand::IdRef(coverage), Operand::IdRef(c)],
        ));
        let none = self.emit(&mut code, Op::FOrdLessThanEqual, bt, &[c, zero]);
        self.discard_first_if(code, none)?;
        self.weigh_colour_alpha(coverage);
        Ok(true)
    }
}
