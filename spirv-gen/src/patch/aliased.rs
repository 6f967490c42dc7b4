//! GL's multisampling off (`passes::aliased`) for SPIR-V passthrough
//! shaders.
//!
//! Points: where the last vertex stage's vertex ends ([`aliased_points`],
//! as `passes::aliased::lower_aliased_points` gives it to the IR), the
//! point size (clamped to `1..=max_size - 1`) goes to a flat output at
//! [`ALIASED_POINT_LOCATION`] and `PointSize` becomes one more, so that
//! every sample of a pixel whose centre is in the original square is
//! covered; the fragment shader ([`aliased_points_fs`]) keeps those
//! pixels and reads `PointCoord` over the original square.
//!
//! Triangles: pipe-vk's generated geometry shader widens them (an IR
//! shader, `passes::aliased::aliased_triangles_gs`) and passes each
//! edge's window-space distance; the fragment shader
//! ([`aliased_triangles_fs`]) discards the pixels whose centre is outside
//! (or clipped) and gives every sample the centre's depth.
//!
//! The fragment halves add their inputs at the driver's locations and a
//! discard at the start of the entry point, as `fragment` does for the
//! fixed-function state.

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{BuiltIn, Capability, Decoration, ExecutionMode, Op, StorageClass, Word};

use super::fragment::patch_fragment;
use super::{patch_last_stage, Num, Patcher, POINT_SIZE};
use crate::binding::{ALIASED_CLIP_LOCATION, ALIASED_EDGES_LOCATION, ALIASED_POINT_LOCATION};
use crate::{Error, Result};

/// GLSL.std.450's `InterpolateAtOffset`.
const INTERPOLATE_AT_OFFSET: u32 = 78;

/// Aliased points for the last vertex stage `entry` of a SPIR-V module
/// (see the module documentation). Run after [`super::point_size`], so
/// `PointSize` is written; an error when the module has none, or uses
/// [`ALIASED_POINT_LOCATION`] itself.
///
/// Smooth points (`smooth`) are drawn two pixels larger instead, as
/// `passes::aliased::lower_aliased_points` draws them.
pub fn aliased_points(words: &[u32], entry: &str, max_size: f32, smooth: bool) -> Result<Vec<u32>> {
    patch_last_stage(words, entry, "aliased points", |p| {
        p.aliased_points(max_size, smooth)
    })
}

/// Aliased points for the fragment shader `entry` (see the module
/// documentation), as `passes::aliased::lower_aliased_points_fs` does:
/// at its start, the fragment is discarded unless its pixel centre is in
/// the point's original square (half-open, shifted by 1/512 pixel), the
/// offset from the point's centre being `(PointCoord - 0.5) * (size +
/// 1)`; the shader's own `PointCoord` reads the coordinate over the
/// original square. An error when the shader uses
/// [`ALIASED_POINT_LOCATION`] itself.
///
/// Smooth points (`smooth`; the square is two pixels wider), as
/// `passes::aliased::lower_aliased_points_fs` weighs them: the fragment's
/// coverage is the share of its pixel inside the point's circle,
/// integrated row by row; a fragment with none is discarded, and before
/// each return the alpha of every 32-bit float `vec4` colour output (and
/// element of an array of them) is multiplied by it.
pub fn aliased_points_fs(words: &[u32], entry: &str, smooth: bool) -> Result<Vec<u32>> {
    patch_fragment(words, entry, "aliased points", |p| {
        p.aliased_points_fs(smooth)
    })
}

/// GL's round multisampled points for the fragment shader `entry`, as
/// `passes::aliased::lower_round_points_fs` gives them to the IR: at its
/// start, the point's size is `1 / dFdx(PointCoord.x)`, the bits of the
/// samples (Vulkan's standard locations for `samples`) inside the circle
/// make a mask, and the fragment is discarded when it is empty; before
/// each return the mask goes to `SampleMask`, ANDed with the shader's
/// own where it writes one. An error for a count without standard
/// locations.
pub fn round_points_fs(words: &[u32], entry: &str, samples: u8) -> Result<Vec<u32>> {
    patch_fragment(words, entry, "round points", |p| p.round_points_fs(samples))
}

/// Aliased triangles for the fragment shader `entry` (see the module
/// documentation), as `passes::aliased::lower_aliased_triangles_fs`
/// does: at its start, the fragment is discarded when an edge distance
/// (a `vec3` at [`ALIASED_EDGES_LOCATION`]) or, for the planes in
/// `clip_planes`, a clip distance (component `i` of the `vec4[2]` at
/// [`ALIASED_CLIP_LOCATION`]), read at the pixel centre, is negative
/// (their signs; both scaled by a positive factor, see
/// `passes::aliased`); and `FragDepth` takes the depth at the
/// pixel centre (`FragCoord.z`), unless the shader writes its own, runs
/// its fragment tests early or runs per sample (it reads `SampleId`,
/// `SamplePosition` or a `Sample` input). An error when the shader uses
/// those locations itself.
pub fn aliased_triangles_fs(words: &[u32], entry: &str, clip_planes: u8) -> Result<Vec<u32>> {
    patch_fragment(words, entry, "aliased triangles", |p| {
        p.aliased_triangles_fs(clip_planes)
    })
}

impl Patcher {
    fn aliased_points_fs(&mut self, smooth: bool) -> Result<bool> {
        if self.input_at(ALIASED_POINT_LOCATION).is_some() {
            return Err(Error::new(format!(
                "SPIR-V aliased points: input location {ALIASED_POINT_LOCATION} is taken \
                 (pipe-vk passes the point size there)"
            )));
        }
        let f = Num::float(32, 1);
        let (ft, v2t) = (self.ty(f), self.ty(Num::float(32, 2)));
        let bt = self.b.type_bool();
        let size_in = self.add_driver_input(ft, ALIASED_POINT_LOCATION, Some(Decoration::Flat));
        let widen = if smooth { 2.0f32 } else { 1.0 };
        let one = self.konst(f, u64::from(widen.to_bits()));
        let half = self.konst(f, u64::from(0.5f32.to_bits()));
        let real = self.add_builtin(StorageClass::Input, BuiltIn::PointCoord, v2t);
        // The shader's own reads: over the original square,
        // `(pc - 0.5) * (size + 1) / size + 0.5`.
        if let Some(old) = self
            .input_builtin(BuiltIn::PointCoord)
            .filter(|&v| v != real)
        {
            let pc = self.load(Num::float(32, 2), real);
            let size = self.load(f, size_in);
            let wide = self.op(Op::FAdd, ft, ids(&[size, one]));
            let scale = self.op(Op::FDiv, ft, ids(&[wide, size]));
            let halves = self.b.constant_composite(v2t, [half, half]);
            let d = self.op(Op::FSub, v2t, ids(&[pc, halves]));
            let d = self.op(Op::VectorTimesScalar, v2t, ids(&[d, scale]));
            let moved = self.op(Op::FAdd, v2t, ids(&[d, halves]));
            self.privatize(old, v2t, StorageClass::Input, Some(moved))?;
        }
        let mut code = Vec::new();
        let pc = self.emit(&mut code, Op::Load, v2t, &[real]);
        let size = self.emit(&mut code, Op::Load, ft, &[size_in]);
        let wide = self.emit(&mut code, Op::FAdd, ft, &[size, one]);
        if smooth {
            return self.smooth_point_coverage(code, (pc, size, wide));
        }
        let h = self.emit(&mut code, Op::FMul, ft, &[size, half]);
        let neg_h = self.emit(&mut code, Op::FNegate, ft, &[h]);
        let eps = self.konst(f, u64::from((1.0f32 / 512.0).to_bits()));
        let mut outside = self.b.constant_false(bt);
        for c in 0..2 {
            let x = self.extract_in(&mut code, ft, pc, c);
            let d = self.emit(&mut code, Op::FSub, ft, &[x, half]);
            let d = self.emit(&mut code, Op::FMul, ft, &[d, wide]);
            let d = self.emit(&mut code, Op::FAdd, ft, &[d, eps]);
            let below = self.emit(&mut code, Op::FOrdLessThan, bt, &[d, neg_h]);
            let above = self.emit(&mut code, Op::FOrdGreaterThanEqual, bt, &[d, h]);
            let o = self.emit(&mut code, Op::LogicalOr, bt, &[below, above]);
            outside = self.emit(&mut code, Op::LogicalOr, bt, &[outside, o]);
        }
        self.discard_first_if(code, outside)?;
        Ok(true)
    }

    fn round_points_fs(&mut self, samples: u8) -> Result<bool> {
        let locations =
            crate::passes::aliased::standard_sample_locations(samples).ok_or_else(|| {
                Error::new(format!(
                    "SPIR-V round points: no standard locations for {samples} samples"
                ))
            })?;
        let f = Num::float(32, 1);
        let (ft, v2t) = (self.ty(f), self.ty(Num::float(32, 2)));
        let it = self.ty(Num::int(true, 32, 1));
        let bt = self.b.type_bool();
        // The shader's own PointCoord, else a new one (an entry point
        // may declare a built-in once).
        let pcv = match self.input_builtin(BuiltIn::PointCoord) {
            Some(v) => v,
            None => self.add_builtin(StorageClass::Input, BuiltIn::PointCoord, v2t),
        };
        let half = self.konst(f, u64::from(0.5f32.to_bits()));
        let one = self.konst(f, u64::from(1.0f32.to_bits()));
        let izero = self.konst(Num::int(true, 32, 1), 0);
        let mut code = Vec::new();
        let pc = self.emit(&mut code, Op::Load, v2t, &[pcv]);
        let x = self.extract_in(&mut code, ft, pc, 0);
        let y = self.extract_in(&mut code, ft, pc, 1);
        let dx = self.emit(&mut code, Op::DPdx, ft, &[x]);
        let size = self.emit(&mut code, Op::FDiv, ft, &[one, dx]);
        let r = self.emit(&mut code, Op::FMul, ft, &[size, half]);
        let r2 = self.emit(&mut code, Op::FMul, ft, &[r, r]);
        let cx = self.emit(&mut code, Op::FSub, ft, &[x, half]);
        let cx = self.emit(&mut code, Op::FMul, ft, &[cx, size]);
        let cy = self.emit(&mut code, Op::FSub, ft, &[y, half]);
        let cy = self.emit(&mut code, Op::FMul, ft, &[cy, size]);
        let mut mask = izero;
        for (k, &(sx, sy)) in locations.iter().enumerate() {
            let ox = self.konst(f, u64::from((sx - 0.5).to_bits()));
            let oy = self.konst(f, u64::from((sy - 0.5).to_bits()));
            let ox = self.emit(&mut code, Op::FAdd, ft, &[cx, ox]);
            let oy = self.emit(&mut code, Op::FAdd, ft, &[cy, oy]);
            let xx = self.emit(&mut code, Op::FMul, ft, &[ox, ox]);
            let yy = self.emit(&mut code, Op::FMul, ft, &[oy, oy]);
            let d2 = self.emit(&mut code, Op::FAdd, ft, &[xx, yy]);
            let inside = self.emit(&mut code, Op::FOrdLessThanEqual, bt, &[d2, r2]);
            let bit = self.konst(Num::int(true, 32, 1), 1 << k);
            let b = self.emit(&mut code, Op::Select, it, &[inside, bit, izero]);
            mask = self.emit(&mut code, Op::BitwiseOr, it, &[mask, b]);
        }
        let local = self.add_variable(StorageClass::Private, it);
        code.push(Instruction::new(
            Op::Store,
            None,
            None,
            vec![Operand::IdRef(local), Operand::IdRef(mask)],
        ));
        let none = self.emit(&mut code, Op::IEqual, bt, &[mask, izero]);
        self.discard_first_if(code, none)?;
        // The shader's own SampleMask output (an array of one integer),
        // or a new one.
        let own = self
            .interface_globals(StorageClass::Output)
            .into_iter()
            .find(|&(v, _)| {
                self.decoration(v, Decoration::BuiltIn) == Some(Some(BuiltIn::SampleMask as u32))
            });
        let (out, elem) = match own {
            Some((v, ty)) => {
                let (elem, _) = self.array_of(ty).ok_or_else(|| {
                    Error::new("SPIR-V round points: the SampleMask output is not an array")
                })?;
                (v, elem)
            }
            None => {
                let n = self.konst(Num::int(false, 32, 1), 1);
                let arr = self.b.type_array(it, n);
                (
                    self.add_builtin(StorageClass::Output, BuiltIn::SampleMask, arr),
                    it,
                )
            }
        };
        let ptr = self.b.type_pointer(None, StorageClass::Output, elem);
        // A shader with no return always discards: no mask to write.
        self.before_each(&[Op::Return], &mut |p| {
            let mut code = Vec::new();
            let m = p.emit(&mut code, Op::Load, it, &[local]);
            let at = p.emit(&mut code, Op::AccessChain, ptr, &[out, izero]);
            let m = if own.is_some() {
                let w = p.emit(&mut code, Op::Load, elem, &[at]);
                let m = if elem == it {
                    m
                } else {
                    p.emit(&mut code, Op::Bitcast, elem, &[m])
                };
                p.emit(&mut code, Op::BitwiseAnd, elem, &[w, m])
            } else {
                m
            };
            code.push(Instruction::new(
                Op::Store,
                None,
                None,
                vec![Operand::IdRef(at), Operand::IdRef(m)],
            ));
            code
        });
        Ok(true)
    }

    /// The smooth-point half of [`Patcher::aliased_points_fs`], after
    /// `code` has loaded `PointCoord`, the size and the drawn square's
    /// side (`pc`, `size`, `wide`).
    fn smooth_point_coverage(
        &mut self,
        mut code: Vec<Instruction>,
        (pc, size, wide): (Word, Word, Word),
    ) -> Result<bool> {
        let f = Num::float(32, 1);
        let ft = self.ty(f);
        let bt = self.b.type_bool();
        let glsl = self.glsl_set();
        let half = self.konst(f, u64::from(0.5f32.to_bits()));
        let zero = self.konst(f, 0);
        let coverage = self.add_variable(StorageClass::Private, ft);
        // The pixel centre's offset from the point's centre (pixels),
        // then its share of the circle row by row, as the IR lowering
        // (`passes::aliased::smooth_point_share`): GLSL.std.450 Sqrt
        // (31), FMin (37), FMax (40), FClamp (43).
        let mut centre = [zero; 2];
        for (k, c) in centre.iter_mut().enumerate() {
            let x = self.extract_in(&mut code, ft, pc, k as u32);
            let d = self.emit(&mut code, Op::FSub, ft, &[x, half]);
            *c = self.emit(&mut code, Op::FMul, ft, &[d, wide]);
        }
        let [x, y] = centre;
        let r = self.emit(&mut code, Op::FMul, ft, &[size, half]);
        let r2 = self.emit(&mut code, Op::FMul, ft, &[r, r]);
        let left = self.emit(&mut code, Op::FSub, ft, &[x, half]);
        let right = self.emit(&mut code, Op::FAdd, ft, &[x, half]);
        let neg_r = self.emit(&mut code, Op::FNegate, ft, &[r]);
        let below = self.emit(&mut code, Op::FSub, ft, &[y, half]);
        let above = self.emit(&mut code, Op::FAdd, ft, &[y, half]);
        let lo = self.ext(&mut code, ft, glsl, 40, &[below, neg_r]);
        let hi = self.ext(&mut code, ft, glsl, 37, &[above, r]);
        let span = self.emit(&mut code, Op::FSub, ft, &[hi, lo]);
        let span = self.ext(&mut code, ft, glsl, 40, &[span, zero]);
        let rows = crate::passes::aliased::SMOOTH_POINT_ROWS;
        let n = self.konst(f, u64::from((1.0f32 / rows as f32).to_bits()));
        let step = self.emit(&mut code, Op::FMul, ft, &[span, n]);
        let mut sum = zero;
        for j in 0..rows {
            let at = self.konst(f, u64::from((j as f32 + 0.5).to_bits()));
            let at = self.emit(&mut code, Op::FMul, ft, &[step, at]);
            let dy = self.emit(&mut code, Op::FAdd, ft, &[lo, at]);
            let dy2 = self.emit(&mut code, Op::FMul, ft, &[dy, dy]);
            let w2 = self.emit(&mut code, Op::FSub, ft, &[r2, dy2]);
            let w2 = self.ext(&mut code, ft, glsl, 40, &[w2, zero]);
            let w = self.ext(&mut code, ft, glsl, 31, &[w2]);
            let neg = self.emit(&mut code, Op::FNegate, ft, &[w]);
            let hi = self.ext(&mut code, ft, glsl, 43, &[w, left, right]);
            let lo = self.ext(&mut code, ft, glsl, 43, &[neg, left, right]);
            let len = self.emit(&mut code, Op::FSub, ft, &[hi, lo]);
            sum = self.emit(&mut code, Op::FAdd, ft, &[sum, len]);
        }
        let c = self.emit(&mut code, Op::FMul, ft, &[sum, step]);
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

    /// GL's antialiasing application: before each return, the alpha of
    /// every 32-bit float `vec4` colour output (and element of an array of
    /// them) is multiplied by the private `f32` `coverage`.
    pub(super) fn weigh_colour_alpha(&mut self, coverage: Word) {
        let f = Num::float(32, 1);
        let (ft, v4t) = (self.ty(f), self.ty(Num::float(32, 4)));
        // `vec4` colour outputs, and arrays of them (draw buffers): the
        // element count, 0 for a plain one.
        let colours: Vec<(Word, u32)> = self
            .interface_globals(StorageClass::Output)
            .into_iter()
            .filter(|&(v, _)| self.decoration(v, Decoration::Location).is_some())
            .filter_map(|(v, ty)| {
                if self.num(ty) == Some(Num::float(32, 4)) {
                    return Some((v, 0));
                }
                let (elem, n) = self.array_of(ty)?;
                (self.num(elem) == Some(Num::float(32, 4))).then_some((v, n))
            })
            .collect();
        if colours.is_empty() {
            return;
        }
        let out_ptr = self.b.type_pointer(None, StorageClass::Output, v4t);
        let it = Num::int(true, 32, 1);
        // A shader with no return (it always discards) has nothing to
        // weigh.
        self.before_each(&[Op::Return], &mut |p| {
            let mut code = Vec::new();
            let c = p.emit(&mut code, Op::Load, ft, &[coverage]);
            for &(v, n) in &colours {
                let ptrs: Vec<Word> = if n == 0 {
                    vec![v]
                } else {
                    (0..n)
                        .map(|k| {
                            let k = p.konst(it, u64::from(k));
                            p.emit(&mut code, Op::AccessChain, out_ptr, &[v, k])
                        })
                        .collect()
                };
                for ptr in ptrs {
                    let value = p.emit(&mut code, Op::Load, v4t, &[ptr]);
                    let a = p.extract_in(&mut code, ft, value, 3);
                    let a = p.emit(&mut code, Op::FMul, ft, &[a, c]);
                    let id = p.b.id();
                    code.push(Instruction::new(
                        Op::CompositeInsert,
                        Some(v4t),
                        Some(id),
                        vec![
                            Operand::IdRef(a),
                            Operand::IdRef(value),
                            Operand::LiteralBit32(3),
                        ],
                    ));
                    code.push(Instruction::new(
                        Op::Store,
                        None,
                        None,
                        vec![Operand::IdRef(ptr), Operand::IdRef(id)],
                    ));
                }
            }
            code
        });
    }

    /// Appends the GLSL.std.450 instruction `inst` of `args` (result
    /// type `ty`) to `code`.
    pub(super) fn ext(
        &mut self,
        code: &mut Vec<Instruction>,
        ty: Word,
        set: Word,
        inst: u32,
        args: &[Word],
    ) -> Word {
        let id = self.b.id();
        let mut ops = vec![Operand::IdRef(set), Operand::LiteralExtInstInteger(inst)];
        ops.extend(args.iter().map(|&a| Operand::IdRef(a)));
        code.push(Instruction::new(Op::ExtInst, Some(ty), Some(id), ops));
        id
    }

    fn aliased_triangles_fs(&mut self, clip_planes: u8) -> Result<bool> {
        let mut reserved = vec![ALIASED_EDGES_LOCATION];
        if clip_planes != 0 {
            reserved.extend([ALIASED_CLIP_LOCATION, ALIASED_CLIP_LOCATION + 1]);
        }
        if let Some(&loc) = reserved.iter().find(|&&l| self.input_at(l).is_some()) {
            return Err(Error::new(format!(
                "SPIR-V aliased triangles: input location {loc} is taken (pipe-vk passes the \
                 edge and clip distances at {ALIASED_EDGES_LOCATION}..={})",
                ALIASED_CLIP_LOCATION + 1
            )));
        }
        let inputs = self.interface_globals(StorageClass::Input);
        let per_sample = inputs.iter().any(|&(v, _)| {
            self.decoration(v, Decoration::Sample).is_some()
                || [BuiltIn::SampleId, BuiltIn::SamplePosition]
                    .iter()
                    .any(|&b| self.decoration(v, Decoration::BuiltIn) == Some(Some(b as u32)))
        }) || self.module().annotations.iter().any(|a| {
            a.class.opcode == Op::MemberDecorate
                && a.operands.get(2) == Some(&Operand::Decoration(Decoration::Sample))
        });
        let writes_depth = self
            .interface_globals(StorageClass::Output)
            .iter()
            .any(|&(v, _)| {
                self.decoration(v, Decoration::BuiltIn) == Some(Some(BuiltIn::FragDepth as u32))
            });
        let entry_fn = self.entry_fn;
        let early = self.module().execution_modes.iter().any(|m| {
            m.operands.first() == Some(&Operand::IdRef(entry_fn))
                && m.operands.get(1)
                    == Some(&Operand::ExecutionMode(ExecutionMode::EarlyFragmentTests))
        });
        self.capability(Capability::InterpolationFunction);
        let set = self.glsl_set();
        let f = Num::float(32, 1);
        let (ft, v2t, v3t, v4t) = (
            self.ty(f),
            self.ty(Num::float(32, 2)),
            self.ty(Num::float(32, 3)),
            self.ty(Num::float(32, 4)),
        );
        let bt = self.b.type_bool();
        let mut code = Vec::new();
        // GL gives every sample of the pixel the triangle's depth at its
        // centre (see `passes::aliased::lower_aliased_triangles_fs`).
        if !writes_depth && !early && !per_sample {
            let fc = match self.input_builtin(BuiltIn::FragCoord) {
                Some(v) => v,
                None => self.add_builtin(StorageClass::Input, BuiltIn::FragCoord, v4t),
            };
            let depth = self.add_builtin(StorageClass::Output, BuiltIn::FragDepth, ft);
            self.b
                .execution_mode(entry_fn, ExecutionMode::DepthReplacing, []);
            let c = self.emit(&mut code, Op::Load, v4t, &[fc]);
            let z = self.extract_in(&mut code, ft, c, 2);
            code.push(Instruction::new(Op::Store, None, None, ids(&[depth, z])));
        }
        let edges = self.add_driver_input(v3t, ALIASED_EDGES_LOCATION, None);
        let zero = self.konst(f, 0);
        let centre = self.b.constant_composite(v2t, [zero, zero]);
        let at_centre = |p: &mut Patcher, code: &mut Vec<Instruction>, ty: Word, ptr: Word| {
            let id = p.id();
            code.push(Instruction::new(
                Op::ExtInst,
                Some(ty),
                Some(id),
                vec![
                    Operand::IdRef(set),
                    Operand::LiteralExtInstInteger(INTERPOLATE_AT_OFFSET),
                    Operand::IdRef(ptr),
                    Operand::IdRef(centre),
                ],
            ));
            id
        };
        let mut outside = self.b.constant_false(bt);
        let mut test = |p: &mut Patcher, code: &mut Vec<Instruction>, v: Word, k: u32| {
            let x = p.extract_in(code, ft, v, k);
            let neg = p.emit(code, Op::FOrdLessThan, bt, &[x, zero]);
            outside = p.emit(code, Op::LogicalOr, bt, &[outside, neg]);
        };
        let t = at_centre(self, &mut code, v3t, edges);
        for k in 0..3 {
            test(self, &mut code, t, k);
        }
        if clip_planes != 0 {
            // A new array type: the module's own one may carry an
            // ArrayStride, which an input must not.
            let two = self.konst(Num::int(false, 32, 1), 2);
            let arr = self.id();
            self.b
                .module_mut()
                .types_global_values
                .push(Instruction::new(
                    Op::TypeArray,
                    None,
                    Some(arr),
                    ids(&[v4t, two]),
                ));
            let clip = self.add_driver_input(arr, ALIASED_CLIP_LOCATION, None);
            let ptr_t = self.b.type_pointer(None, StorageClass::Input, v4t);
            for half in 0..2u32 {
                if clip_planes >> (4 * half) & 0xf == 0 {
                    continue;
                }
                let idx = self.konst(Num::int(true, 32, 1), u64::from(half));
                let ptr = self.emit(&mut code, Op::AccessChain, ptr_t, &[clip, idx]);
                let c = at_centre(self, &mut code, v4t, ptr);
                for k in (0..4).filter(|k| clip_planes & (1 << (4 * half + k)) != 0) {
                    test(self, &mut code, c, k);
                }
            }
        }
        self.discard_first_if(code, outside)?;
        Ok(true)
    }

    fn aliased_points(&mut self, max_size: f32, smooth: bool) -> Result<bool> {
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
        let least = crate::passes::aliased::point_min(smooth);
        let least = self.konst(f, u64::from(least.to_bits()));
        let widen = if smooth { 2.0f32 } else { 1.0 };
        let more = self.konst(f, u64::from(widen.to_bits()));
        let hi = self.konst(f, u64::from((max_size - widen).max(1.0).to_bits()));
        let sites = self.at_vertex_ends(&mut |p| {
            let (ptr, mut code) = p.output_element(var, member, None);
            let size = p.emit(&mut code, Op::Load, ft, &[ptr]);
            let low = p.emit(&mut code, Op::FOrdLessThan, bt, &[size, least]);
            let c = p.emit(&mut code, Op::Select, ft, &[low, least, size]);
            let high = p.emit(&mut code, Op::FOrdGreaterThan, bt, &[c, hi]);
            let c = p.emit(&mut code, Op::Select, ft, &[high, hi, c]);
            let wide = p.emit(&mut code, Op::FAdd, ft, &[c, more]);
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

/// Id operands.
fn ids(v: &[Word]) -> Vec<Operand> {
    v.iter().map(|&i| Operand::IdRef(i)).collect()
}
