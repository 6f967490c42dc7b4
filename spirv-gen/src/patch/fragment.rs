//! GL's fixed-function fragment state for a SPIR-V passthrough fragment
//! shader, as `passes::gl` lowers it for the IR:
//! - integer pixel centres ([`pixel_center_integer`]): `gl_FragCoord.xy`
//!   reads 0.5 less;
//! - polygon stipple ([`polygon_stipple`]) and window rectangles on
//!   devices without VK_EXT_discard_rectangles ([`window_rects`]): a test
//!   at the start of the entry point discards the fragment, reading the
//!   Vulkan `FragCoord` and the driver's constant buffer
//!   (`binding::driver_ubo`, declared here in spirv-gen's binding model,
//!   which pipe-vk binds for every pipeline);
//! - the alpha test ([`alpha_test`]): before each return of the entry
//!   point, the fragment is discarded when colour output 0's alpha fails
//!   the comparison;
//! - the fragment halves of emulated line stipple ([`line_stipple`]) and
//!   of polygon-mode edges ([`polygon_edges`]): a discard at the start,
//!   by what pipe-vk's generated geometry shader passes at the driver's
//!   varying locations.
//!
//! A discard is a new selection construct: the test's block branches to a
//! block holding `OpKill` (`OpTerminateInvocation` from SPIR-V 1.6) or on
//! to the rest. In a module that declares `DemoteToHelperInvocation`
//! ([`demote_discards`]), the tests at the start demote instead: their
//! block holds `OpDemoteToHelperInvocation` and branches on to the rest,
//! so the quad's derivatives stay defined. At the start, the entry block is split: its variables and
//! the test stay in a new first block, and the old one, which has no
//! predecessors, becomes the construct's merge block. At a return, the
//! return's block ends in the test and a new merge block returns.

use rspirv::dr::{Block, Instruction, Operand};
use rspirv::spirv::{BuiltIn, Capability, Decoration, ExecutionModel, Op, StorageClass, Word};

use super::{patch_entry, selection_merge, Num, Patcher};
use crate::binding::{self, driver_ubo, DescClass};
use crate::passes::CompareFunc;
use crate::{Error, Result};

/// GL's integer pixel centres (Gallium's `half_pixel_center` off) for the
/// fragment shader `entry`: `FragCoord` becomes a private variable set at
/// entry from the Vulkan one, `xy` less 0.5, as
/// `passes::gl::lower_frag_coord` does. A shader not reading it is left
/// alone.
pub fn pixel_center_integer(words: &[u32], entry: &str) -> Result<Vec<u32>> {
    patch_fragment(words, entry, "pixel centres", |p| {
        let Some(old) = p.input_builtin(BuiltIn::FragCoord) else {
            return Ok(false);
        };
        let v4 = Num::float(32, 4);
        let v4t = p.ty(v4);
        let real = p.add_frag_coord(v4t);
        let c = p.load(v4, real);
        let half = p.konst(Num::float(32, 1), u64::from(0.5f32.to_bits()));
        let zero = p.konst(Num::float(32, 1), 0);
        let d = p.b.constant_composite(v4t, [half, half, zero, zero]);
        let moved = p.op(Op::FSub, v4t, vec![Operand::IdRef(c), Operand::IdRef(d)]);
        p.privatize(old, v4t, StorageClass::Input, Some(moved))?;
        Ok(true)
    })
}

/// Whether demoting rather than discarding is worth it for the
/// fixed-function tests patched into a fragment shader module (as
/// `passes::gl::demote_worthwhile` for the IR): it samples with an
/// implicit level of detail, queries one or takes derivatives, and uses
/// no atomics and no `HelperInvocation`. Reads the instructions as
/// words; a damaged module answers `false`.
pub fn demote_worthwhile(words: &[u32]) -> bool {
    let (mut derivatives, mut unsafe_ops) = (false, false);
    let mut at = 5;
    while let Some(&first) = words.get(at) {
        let (count, op) = ((first >> 16) as usize, first & 0xffff);
        if count == 0 {
            return false;
        }
        match op {
            // OpImageSample{,Dref,Proj,ProjDref}ImplicitLod, OpImageQueryLod,
            // OpDPdx .. OpFwidthCoarse, the sparse implicit-LOD samples.
            87 | 89 | 91 | 93 | 105 | 207..=215 | 305 | 307 | 309 | 311 => derivatives = true,
            // OpAtomicLoad .. OpAtomicXor, OpAtomicFlag*, the float
            // atomics, OpIsHelperInvocationEXT.
            227..=242 | 318 | 319 | 5614 | 5615 | 6035 | 5381 => unsafe_ops = true,
            // OpDecorate %v BuiltIn HelperInvocation.
            71 if words.get(at + 2..at + 4) == Some(&[11, 23]) => unsafe_ops = true,
            _ => {}
        }
        at += count;
    }
    derivatives && !unsafe_ops
}

/// Makes the fixed-function tests patched into the fragment shader
/// `entry` afterwards demote the fragment to a helper invocation instead
/// of terminating it (as `passes::VariantKey::demote_discards` does for
/// the IR): declares the `DemoteToHelperInvocation` capability, with
/// `SPV_EXT_demote_to_helper_invocation` before SPIR-V 1.6. For devices
/// with `shaderDemoteToHelperInvocation` (Vulkan 1.3); a module that
/// declares the capability itself gets demoting tests without it.
pub fn demote_discards(words: &[u32], entry: &str) -> Result<Vec<u32>> {
    patch_fragment(words, entry, "demoting discards", |p| {
        if p.declares_demote() {
            return Ok(false);
        }
        p.capability(Capability::DemoteToHelperInvocation);
        let v16 = p
            .module()
            .header
            .as_ref()
            .is_some_and(|h| h.version() >= (1, 6));
        let ext = "SPV_EXT_demote_to_helper_invocation";
        let has_ext = p
            .module()
            .extensions
            .iter()
            .any(|i| i.operands.first() == Some(&Operand::LiteralString(ext.into())));
        if !v16 && !has_ext {
            p.b.extension(ext);
        }
        Ok(true)
    })
}

/// GL's polygon stipple for the fragment shader `entry`: at its start,
/// the fragment is discarded when bit `31 - (x mod 32)` of pattern word
/// `y mod 32` ([`driver_ubo::POLYGON_STIPPLE`]) is 0, `(x, y)` its Vulkan
/// pixel, as `passes::gl::lower_polygon_stipple` does.
pub fn polygon_stipple(words: &[u32], entry: &str) -> Result<Vec<u32>> {
    patch_fragment(words, entry, "polygon stipple", |p| {
        let mut code = Vec::new();
        let ubo = p.driver_ubo();
        let (x, y) = p.pixel(&mut code);
        let u = Num::int(false, 32, 1);
        let ut = p.ty(u);
        let m31 = p.konst(u, 31);
        let xm = p.emit(&mut code, Op::BitwiseAnd, ut, &[x, m31]);
        let ym = p.emit(&mut code, Op::BitwiseAnd, ut, &[y, m31]);
        let base = p.konst(u, u64::from(driver_ubo::POLYGON_STIPPLE / 4));
        let word = p.emit(&mut code, Op::IAdd, ut, &[ym, base]);
        let row = p.ubo_word(&mut code, ubo, word);
        let msb = p.konst(u, 0x8000_0000);
        let bit = p.emit(&mut code, Op::ShiftRightLogical, ut, &[msb, xm]);
        let on = p.emit(&mut code, Op::BitwiseAnd, ut, &[row, bit]);
        let zero = p.konst(u, 0);
        let bt = p.b.type_bool();
        let off = p.emit(&mut code, Op::IEqual, bt, &[on, zero]);
        p.discard_first_if(code, off)?;
        Ok(true)
    })
}

/// Window rectangles in the fragment shader `entry` (for devices without
/// VK_EXT_discard_rectangles): at its start, the fragment is discarded
/// when its pixel is inside none of the first `count` rectangles of
/// [`driver_ubo::WINDOW_RECTS`] (`include`), or inside one (exclude), as
/// `passes::gl::lower_window_rects` does.
pub fn window_rects(words: &[u32], entry: &str, include: bool, count: u8) -> Result<Vec<u32>> {
    if u32::from(count) > driver_ubo::MAX_WINDOW_RECTS {
        return Err(Error::new(format!(
            "window rectangles: {count} rectangles (at most {})",
            driver_ubo::MAX_WINDOW_RECTS
        )));
    }
    patch_fragment(words, entry, "window rectangles", |p| {
        let mut code = Vec::new();
        let ubo = p.driver_ubo();
        let (x, y) = p.pixel(&mut code);
        let u = Num::int(false, 32, 1);
        let bt = p.b.type_bool();
        let mut inside_any = None;
        for i in 0..u32::from(count) {
            let at = |k: u32| driver_ubo::WINDOW_RECTS / 4 + 4 * i + k;
            let mut c = [0; 4];
            for (k, c) in c.iter_mut().enumerate() {
                let w = p.konst(u, u64::from(at(k as u32)));
                *c = p.ubo_word(&mut code, ubo, w);
            }
            let a = p.emit(&mut code, Op::UGreaterThanEqual, bt, &[x, c[0]]);
            let b = p.emit(&mut code, Op::ULessThan, bt, &[x, c[2]]);
            let cy = p.emit(&mut code, Op::UGreaterThanEqual, bt, &[y, c[1]]);
            let d = p.emit(&mut code, Op::ULessThan, bt, &[y, c[3]]);
            let ab = p.emit(&mut code, Op::LogicalAnd, bt, &[a, b]);
            let cd = p.emit(&mut code, Op::LogicalAnd, bt, &[cy, d]);
            let inside = p.emit(&mut code, Op::LogicalAnd, bt, &[ab, cd]);
            inside_any = Some(match inside_any {
                None => inside,
                Some(prev) => p.emit(&mut code, Op::LogicalOr, bt, &[prev, inside]),
            });
        }
        let inside_any = match inside_any {
            Some(v) => v,
            None => p.b.constant_false(bt),
        };
        let cull = if include {
            p.emit(&mut code, Op::LogicalNot, bt, &[inside_any])
        } else {
            inside_any
        };
        p.discard_first_if(code, cull)?;
        Ok(true)
    })
}

/// GL's alpha test for the fragment shader `entry`: before each return of
/// the entry point, the fragment is discarded when the alpha of colour
/// output 0 (a 32-bit float `vec4` at location 0) compared with
/// `reference` by `func` fails, as `passes::gl::lower_alpha_test` does.
/// An error without such an output, unless `func` needs no alpha.
pub fn alpha_test(
    words: &[u32],
    entry: &str,
    func: CompareFunc,
    reference: f32,
) -> Result<Vec<u32>> {
    if func == CompareFunc::Always {
        return Ok(words.to_vec());
    }
    patch_fragment(words, entry, "alpha test", |p| {
        let f = Num::float(32, 1);
        let ft = p.ty(f);
        let bt = p.b.type_bool();
        let color = if func == CompareFunc::Never {
            None
        } else {
            Some(p.color0().ok_or_else(|| {
                Error::new("SPIR-V alpha test: no 32-bit float vec4 colour output at location 0")
            })?)
        };
        let r = p.konst(f, u64::from(reference.to_bits()));
        let v4t = p.ty(Num::float(32, 4));
        let sites = p.discard_at_returns_if(&mut |p| {
            let mut code = Vec::new();
            let Some(color) = color else {
                let t = p.b.constant_true(bt);
                return (code, t);
            };
            let c = p.emit(&mut code, Op::Load, v4t, &[color]);
            let a = p.extract_in(&mut code, ft, c, 3);
            let pass = match func {
                CompareFunc::Less => p.emit(&mut code, Op::FOrdLessThan, bt, &[a, r]),
                CompareFunc::Lequal => p.emit(&mut code, Op::FOrdLessThanEqual, bt, &[a, r]),
                CompareFunc::Greater => p.emit(&mut code, Op::FOrdGreaterThan, bt, &[a, r]),
                CompareFunc::Gequal => p.emit(&mut code, Op::FOrdGreaterThanEqual, bt, &[a, r]),
                CompareFunc::Equal => p.emit(&mut code, Op::FOrdEqual, bt, &[a, r]),
                _ => p.emit(&mut code, Op::FUnordNotEqual, bt, &[a, r]),
            };
            let fail = p.emit(&mut code, Op::LogicalNot, bt, &[pass]);
            (code, fail)
        });
        if sites == 0 {
            return Err(Error::new(
                "SPIR-V alpha test: the entry point has no return to test before",
            ));
        }
        Ok(true)
    })
}

/// Emulated line stipple in the fragment shader `entry`, as
/// `passes::line_stipple::lower_line_stipple_fs` does: at its start, the
/// fragment is discarded when bit `floor(stipple_pos / factor) mod 16` of
/// the pattern is 0. `stipple_pos` is a new `noperspective` input at
/// [`binding::STIPPLE_POS_LOCATION`] that pipe-vk's generated geometry
/// shader writes (with `polygon`, the `(q, r, b0, b1)` of a polygon's
/// outline, `r` on the edge where `b0` is smallest); the pattern and
/// factor are the driver's push constant word
/// [`binding::push::LINE_STIPPLE`], declared here as the driver's push
/// block. An error when the shader uses that location or has push
/// constants of its own.
pub fn line_stipple(words: &[u32], entry: &str, polygon: bool) -> Result<Vec<u32>> {
    patch_fragment(words, entry, "line stipple", |p| {
        if p.input_at(binding::STIPPLE_POS_LOCATION).is_some() {
            return Err(Error::new(format!(
                "SPIR-V line stipple: input location {} is taken (pipe-vk passes the stipple \
                 position there)",
                binding::STIPPLE_POS_LOCATION
            )));
        }
        let f = Num::float(32, 1);
        let (ft, v4t) = (p.ty(f), p.ty(Num::float(32, 4)));
        let bt = p.b.type_bool();
        let sp = p.add_driver_input(
            if polygon { v4t } else { ft },
            binding::STIPPLE_POS_LOCATION,
            Some(Decoration::NoPerspective),
        );
        let push = p.driver_push_block()?;
        let mut code = Vec::new();
        let raw = p.emit(&mut code, Op::Load, if polygon { v4t } else { ft }, &[sp]);
        let pos = if polygon {
            let [q, r, b0, b1] = [0, 1, 2, 3].map(|k| p.extract_in(&mut code, ft, raw, k));
            let one = p.konst(f, u64::from(1.0f32.to_bits()));
            let b01 = p.emit(&mut code, Op::FAdd, ft, &[b0, b1]);
            let b2 = p.emit(&mut code, Op::FSub, ft, &[one, b01]);
            let lt1 = p.emit(&mut code, Op::FOrdLessThan, bt, &[b0, b1]);
            let lt2 = p.emit(&mut code, Op::FOrdLessThan, bt, &[b0, b2]);
            let third = p.emit(&mut code, Op::LogicalAnd, bt, &[lt1, lt2]);
            p.emit(&mut code, Op::Select, ft, &[third, r, q])
        } else {
            raw
        };
        // As the IR lowering: 1/256 pixel further on.
        let eps = p.konst(f, u64::from((1.0f32 / 256.0).to_bits()));
        let pos = p.emit(&mut code, Op::FAdd, ft, &[pos, eps]);
        let (pattern, factor) = p.line_stipple_pattern(&mut code, push);
        let q = p.emit(&mut code, Op::FDiv, ft, &[pos, factor]);
        let bit = p.line_stipple_bit(&mut code, pattern, q);
        let zero = p.konst(Num::int(false, 32, 1), 0);
        let off = p.emit(&mut code, Op::IEqual, bt, &[bit, zero]);
        p.discard_first_if(code, off)?;
        Ok(true)
    })
}

impl Patcher {
    /// The line stipple pattern (`uint`, 16 bits) and factor (`float`)
    /// from the driver's push word [`binding::push::LINE_STIPPLE`] of
    /// `push` (the driver's push block), as
    /// `passes::line_stipple::stipple_pattern`.
    pub(super) fn line_stipple_pattern(
        &mut self,
        code: &mut Vec<Instruction>,
        push: Word,
    ) -> (Word, Word) {
        let u = Num::int(false, 32, 1);
        let (ft, ut) = (self.ty(Num::float(32, 1)), self.ty(u));
        let zero = self.konst(u, 0);
        let at = self.konst(u, u64::from(binding::push::LINE_STIPPLE / 4));
        let ptr_t = self.b.type_pointer(None, StorageClass::PushConstant, ut);
        let ptr = self.emit(code, Op::AccessChain, ptr_t, &[push, zero, at]);
        let word = self.emit(code, Op::Load, ut, &[ptr]);
        let m16 = self.konst(u, 0xffff);
        let pattern = self.emit(code, Op::BitwiseAnd, ut, &[word, m16]);
        let sixteen = self.konst(u, 16);
        let hi = self.emit(code, Op::ShiftRightLogical, ut, &[word, sixteen]);
        let m8 = self.konst(u, 0xff);
        let f_minus_1 = self.emit(code, Op::BitwiseAnd, ut, &[hi, m8]);
        let one = self.konst(u, 1);
        let fu = self.emit(code, Op::IAdd, ut, &[f_minus_1, one]);
        (pattern, self.emit(code, Op::ConvertUToF, ft, &[fu]))
    }

    /// Bit `floor(q) mod 16` of `pattern`, a `uint` 0 or 1 (`q >= 0`),
    /// as `passes::line_stipple::stipple_bit`.
    pub(super) fn line_stipple_bit(
        &mut self,
        code: &mut Vec<Instruction>,
        pattern: Word,
        q: Word,
    ) -> Word {
        let (f, u) = (Num::float(32, 1), Num::int(false, 32, 1));
        let (ft, ut) = (self.ty(f), self.ty(u));
        let sixteen_f = self.konst(f, u64::from(16.0f32.to_bits()));
        let m = self.emit(code, Op::FMod, ft, &[q, sixteen_f]);
        let mi = self.emit(code, Op::ConvertFToU, ut, &[m]);
        let m15 = self.konst(u, 15);
        let index = self.emit(code, Op::BitwiseAnd, ut, &[mi, m15]);
        let shifted = self.emit(code, Op::ShiftRightLogical, ut, &[pattern, index]);
        let one = self.konst(u, 1);
        self.emit(code, Op::BitwiseAnd, ut, &[shifted, one])
    }
}

/// The fragment half of GL's polygon modes for quads and polygons (and
/// triangles with explicit edge flags), drawn as triangles whose hidden
/// edges a generated geometry shader marks, as
/// `passes::polygon_edges::lower_polygon_edges_fs` does for the IR: at
/// the start of `entry`, the fragment is discarded unless it is on a
/// shown edge (lines) or at a shown vertex (`points`). The geometry
/// shader passes the fragment's barycentric coordinates (`b0`, `b1` in
/// the `z`, `w` of a `noperspective` `vec4` at
/// [`binding::STIPPLE_POS_LOCATION`]) and the hidden-edge mask (a flat
/// `uint` at [`binding::EDGE_MASK_LOCATION`]). With `after_line_stipple`,
/// [`line_stipple`] (polygon form) has declared that `vec4` input, and it
/// is read; otherwise, and for the mask, an error when the shader uses
/// the location itself.
pub fn polygon_edges(
    words: &[u32],
    entry: &str,
    points: bool,
    after_line_stipple: bool,
) -> Result<Vec<u32>> {
    patch_fragment(words, entry, "polygon edges", |p| {
        let f = Num::float(32, 1);
        let u = Num::int(false, 32, 1);
        let (ft, ut, v4t) = (p.ty(f), p.ty(u), p.ty(Num::float(32, 4)));
        let bt = p.b.type_bool();
        let taken = |loc: u32, what: &str| {
            Error::new(format!(
                "SPIR-V polygon edges: input location {loc} is taken (pipe-vk passes the {what} \
                 there)"
            ))
        };
        let bary = match p.input_at(binding::STIPPLE_POS_LOCATION) {
            Some((v, ty)) if after_line_stipple && ty == v4t => v,
            Some(_) => return Err(taken(binding::STIPPLE_POS_LOCATION, "edge coordinates")),
            None => p.add_driver_input(
                v4t,
                binding::STIPPLE_POS_LOCATION,
                Some(Decoration::NoPerspective),
            ),
        };
        if p.input_at(binding::EDGE_MASK_LOCATION).is_some() {
            return Err(taken(binding::EDGE_MASK_LOCATION, "hidden-edge mask"));
        }
        let mask = p.add_driver_input(ut, binding::EDGE_MASK_LOCATION, Some(Decoration::Flat));
        let mut code = Vec::new();
        let raw = p.emit(&mut code, Op::Load, v4t, &[bary]);
        let m = p.emit(&mut code, Op::Load, ut, &[mask]);
        let b0 = p.extract_in(&mut code, ft, raw, 2);
        let b1 = p.extract_in(&mut code, ft, raw, 3);
        let one = p.konst(f, u64::from(1.0f32.to_bits()));
        let b01 = p.emit(&mut code, Op::FAdd, ft, &[b0, b1]);
        let b2 = p.emit(&mut code, Op::FSub, ft, &[one, b01]);
        // As the IR lowering: edge i (vertex i to i + 1) is opposite
        // vertex i + 2, whose coordinate is the smallest on it; at vertex
        // i coordinate i is the largest. A tolerance keeps rounding from
        // splitting a tie.
        let eps = p.konst(f, u64::from(1e-5f32.to_bits()));
        let (pick, extreme) = if points {
            let hi = p.emit(&mut code, Op::FOrdGreaterThan, bt, &[b0, b1]);
            let hi = p.emit(&mut code, Op::Select, ft, &[hi, b0, b1]);
            let top = p.emit(&mut code, Op::FOrdGreaterThan, bt, &[hi, b2]);
            let hi = p.emit(&mut code, Op::Select, ft, &[top, hi, b2]);
            ([b0, b1, b2], p.emit(&mut code, Op::FSub, ft, &[hi, eps]))
        } else {
            let lo = p.emit(&mut code, Op::FOrdLessThan, bt, &[b0, b1]);
            let lo = p.emit(&mut code, Op::Select, ft, &[lo, b0, b1]);
            let low = p.emit(&mut code, Op::FOrdLessThan, bt, &[lo, b2]);
            let lo = p.emit(&mut code, Op::Select, ft, &[low, lo, b2]);
            ([b2, b0, b1], p.emit(&mut code, Op::FAdd, ft, &[lo, eps]))
        };
        let zero = p.konst(u, 0);
        let mut visible = p.b.constant_false(bt);
        for (i, &c) in pick.iter().enumerate() {
            let on = if points {
                p.emit(&mut code, Op::FOrdGreaterThanEqual, bt, &[c, extreme])
            } else {
                p.emit(&mut code, Op::FOrdGreaterThanEqual, bt, &[extreme, c])
            };
            let bit = p.konst(u, 1 << i);
            let hidden = p.emit(&mut code, Op::BitwiseAnd, ut, &[m, bit]);
            let shown = p.emit(&mut code, Op::IEqual, bt, &[hidden, zero]);
            let v = p.emit(&mut code, Op::LogicalAnd, bt, &[on, shown]);
            visible = p.emit(&mut code, Op::LogicalOr, bt, &[visible, v]);
        }
        let hidden = p.emit(&mut code, Op::LogicalNot, bt, &[visible]);
        p.discard_first_if(code, hidden)?;
        Ok(true)
    })
}

/// Runs `patch` on the fragment shader entry point `entry` of `words`;
/// the words unchanged where it changes nothing.
pub(super) fn patch_fragment(
    words: &[u32],
    entry: &str,
    what: &str,
    patch: impl FnOnce(&mut Patcher) -> Result<bool>,
) -> Result<Vec<u32>> {
    patch_entry(words, entry, &[ExecutionModel::Fragment], what, patch)
}

/// The debug name of the push constant block the patches declare, by
/// which a later patch finds it (an entry point may use one).
const DRIVER_PUSH_NAME: &str = "pipe_vk_push";

impl Patcher {
    pub(super) fn id(&mut self) -> Word {
        self.b.id()
    }

    /// The entry point's input variable (and its pointee type) that
    /// takes location `loc`, if any.
    pub(super) fn input_at(&self, loc: u32) -> Option<(Word, Word)> {
        self.interface_globals(StorageClass::Input)
            .into_iter()
            .find(|&(v, t)| self.var_locations(v, t).contains(&loc))
    }

    /// A new input of the driver's (a generated shader's varying) of type
    /// `ty` at `loc`, with the interpolation decoration `interp` (none:
    /// smooth).
    pub(super) fn add_driver_input(
        &mut self,
        ty: Word,
        loc: u32,
        interp: Option<Decoration>,
    ) -> Word {
        let var = self.add_variable(StorageClass::Input, ty);
        self.b
            .decorate(var, Decoration::Location, [Operand::LiteralBit32(loc)]);
        if let Some(d) = interp {
            self.b.decorate(var, d, []);
        }
        var
    }

    /// Component `k` (of type `ty`) of the composite `v`, in `code`.
    pub(super) fn extract_in(
        &mut self,
        code: &mut Vec<Instruction>,
        ty: Word,
        v: Word,
        k: u32,
    ) -> Word {
        let id = self.id();
        code.push(Instruction::new(
            Op::CompositeExtract,
            Some(ty),
            Some(id),
            vec![Operand::IdRef(v), Operand::LiteralBit32(k)],
        ));
        id
    }

    /// The entry point's input variable decorated `builtin`.
    pub(super) fn input_builtin(&self, builtin: BuiltIn) -> Option<Word> {
        self.interface_globals(StorageClass::Input)
            .into_iter()
            .map(|(v, _)| v)
            .find(|&v| self.decoration(v, Decoration::BuiltIn) == Some(Some(builtin as u32)))
    }

    /// A new `FragCoord` input of type `v4t`.
    fn add_frag_coord(&mut self, v4t: Word) -> Word {
        self.add_builtin(StorageClass::Input, BuiltIn::FragCoord, v4t)
    }

    /// A new `builtin` variable of storage `class` and type `ty`.
    pub(super) fn add_builtin(&mut self, class: StorageClass, builtin: BuiltIn, ty: Word) -> Word {
        let var = self.add_variable(class, ty);
        self.b
            .decorate(var, Decoration::BuiltIn, [Operand::BuiltIn(builtin)]);
        self.decorations
            .entry(var)
            .or_default()
            .push((Decoration::BuiltIn, Some(builtin as u32)));
        var
    }

    /// The fragment's Vulkan pixel as unsigned integers, loaded in `code`
    /// from the shader's `FragCoord` input (or a new one).
    fn pixel(&mut self, code: &mut Vec<Instruction>) -> (Word, Word) {
        let v4 = Num::float(32, 4);
        let v4t = self.ty(v4);
        let fc = match self.input_builtin(BuiltIn::FragCoord) {
            Some(v) => v,
            None => self.add_frag_coord(v4t),
        };
        let ft = self.ty(Num::float(32, 1));
        let ut = self.ty(Num::int(false, 32, 1));
        let c = self.emit(code, Op::Load, v4t, &[fc]);
        let mut out = [0; 2];
        for (k, o) in out.iter_mut().enumerate() {
            let comp = self.extract_in(code, ft, c, k as u32);
            *o = self.emit(code, Op::ConvertFToU, ut, &[comp]);
        }
        (out[0], out[1])
    }

    /// The driver's push constants (`binding::push`) as a block of 32-bit
    /// words: the one an earlier patch added (named
    /// [`DRIVER_PUSH_NAME`]), else a new one; an error when the shader has
    /// push constants of its own.
    pub(super) fn driver_push_block(&mut self) -> Result<Word> {
        let push_vars: Vec<Word> = self
            .module()
            .types_global_values
            .iter()
            .filter(|i| {
                i.class.opcode == Op::Variable
                    && i.operands.first()
                        == Some(&Operand::StorageClass(StorageClass::PushConstant))
            })
            .filter_map(|i| i.result_id)
            .collect();
        let driver = push_vars.iter().copied().find(|&v| {
            self.module().debug_names.iter().any(|n| {
                n.class.opcode == Op::Name
                    && n.operands.first() == Some(&Operand::IdRef(v))
                    && n.operands.get(1) == Some(&Operand::LiteralString(DRIVER_PUSH_NAME.into()))
            })
        });
        if let (Some(v), 1) = (driver, push_vars.len()) {
            return Ok(v);
        }
        if !push_vars.is_empty() {
            return Err(Error::new(
                "SPIR-V: the shader has push constants of its own, where pipe-vk's lowering \
                 reads the driver's",
            ));
        }
        let ut = self.ty(Num::int(false, 32, 1));
        let st = self.block_of_array(ut, binding::push::SIZE / 4, 4);
        let v = self.add_variable(StorageClass::PushConstant, st);
        self.b.name(v, DRIVER_PUSH_NAME);
        Ok(v)
    }

    /// A new `Block` struct of one member at offset 0: an array of `len`
    /// `elem` with `stride` bytes between them. The types are new, so the
    /// decorations reach none of the shader's.
    fn block_of_array(&mut self, elem: Word, len: u32, stride: u32) -> Word {
        let n = self.konst(Num::int(false, 32, 1), u64::from(len));
        let arr = self.id();
        let st = self.id();
        let globals = &mut self.b.module_mut().types_global_values;
        globals.push(Instruction::new(
            Op::TypeArray,
            None,
            Some(arr),
            vec![Operand::IdRef(elem), Operand::IdRef(n)],
        ));
        globals.push(Instruction::new(
            Op::TypeStruct,
            None,
            Some(st),
            vec![Operand::IdRef(arr)],
        ));
        self.b.decorate(
            arr,
            Decoration::ArrayStride,
            [Operand::LiteralBit32(stride)],
        );
        self.b.decorate(st, Decoration::Block, []);
        self.b
            .member_decorate(st, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
        st
    }

    /// The driver's constant buffer (`binding::driver_ubo`) as a new
    /// `uvec4` array in a block, at its binding in spirv-gen's model.
    fn driver_ubo(&mut self) -> Word {
        let (set, bind) = binding::binding_for(
            DescClass::Ubo,
            crate::ir::Stage::Fragment,
            binding::DRIVER_UBO_SLOT,
        )
        .unwrap_or((0, 0));
        let u4 = self.ty(Num::int(false, 32, 4));
        let st = self.block_of_array(u4, driver_ubo::SIZE / 16, 16);
        let var = self.add_variable(StorageClass::Uniform, st);
        self.b
            .decorate(var, Decoration::DescriptorSet, [Operand::LiteralBit32(set)]);
        self.b
            .decorate(var, Decoration::Binding, [Operand::LiteralBit32(bind)]);
        var
    }

    /// Loads 32-bit word `word` (an unsigned id) of the driver constant
    /// buffer `ubo` in `code`.
    fn ubo_word(&mut self, code: &mut Vec<Instruction>, ubo: Word, word: Word) -> Word {
        let u = Num::int(false, 32, 1);
        let ut = self.ty(u);
        let two = self.konst(u, 2);
        let three = self.konst(u, 3);
        let zero = self.konst(u, 0);
        let vec = self.emit(code, Op::ShiftRightLogical, ut, &[word, two]);
        let comp = self.emit(code, Op::BitwiseAnd, ut, &[word, three]);
        let ptr_t = self.b.type_pointer(None, StorageClass::Uniform, ut);
        let ptr = self.emit(code, Op::AccessChain, ptr_t, &[ubo, zero, vec, comp]);
        self.emit(code, Op::Load, ut, &[ptr])
    }

    /// Colour output 0: a 32-bit float `vec4` output at location 0.
    fn color0(&self) -> Option<Word> {
        self.interface_globals(StorageClass::Output)
            .into_iter()
            .find(|&(v, ty)| {
                self.decoration(v, Decoration::Location) == Some(Some(0))
                    && self.decoration(v, Decoration::Index).flatten().unwrap_or(0) == 0
                    && self.num(ty) == Some(Num::float(32, 4))
            })
            .map(|(v, _)| v)
    }

    /// The instruction that discards the fragment.
    fn kill(&self) -> Instruction {
        let v16 = self
            .module()
            .header
            .as_ref()
            .is_some_and(|h| h.version() >= (1, 6));
        let op = if v16 {
            Op::TerminateInvocation
        } else {
            Op::Kill
        };
        Instruction::new(op, None, None, vec![])
    }

    /// A selection on `cond` ending `code`: the kill block and the merge
    /// block's label, and the instructions that end the test's block.
    fn discard_if(&mut self, code: &mut Vec<Instruction>, cond: Word) -> (Block, Word) {
        let kill = self.id();
        let merge = self.id();
        code.push(selection_merge(merge));
        code.push(Instruction::new(
            Op::BranchConditional,
            None,
            None,
            vec![
                Operand::IdRef(cond),
                Operand::IdRef(kill),
                Operand::IdRef(merge),
            ],
        ));
        let block = Block {
            label: Some(Instruction::new(Op::Label, None, Some(kill), vec![])),
            instructions: vec![self.kill()],
        };
        (block, merge)
    }

    /// The entry function's index among the module's functions.
    fn entry_function(&self) -> Result<usize> {
        let f = self.entry_fn;
        self.module()
            .functions
            .iter()
            .position(|x| x.def.as_ref().and_then(|d| d.result_id) == Some(f))
            .ok_or_else(|| Error::new("SPIR-V: the entry point has no function"))
    }

    /// Runs `code` (ending in `cond`) first in the entry point and
    /// discards the fragment where `cond` holds: the entry block splits
    /// (see the module documentation).
    pub(super) fn discard_first_if(
        &mut self,
        mut code: Vec<Instruction>,
        cond: Word,
    ) -> Result<()> {
        let fi = self.entry_function()?;
        let (kill, merge) = self.discard_if(&mut code, cond);
        let first = self.module().functions[fi]
            .blocks
            .first()
            .ok_or_else(|| Error::new("SPIR-V: the entry point has no body"))?;
        let old_label = first.label.as_ref().and_then(|l| l.result_id);
        let old_label = old_label.ok_or_else(|| Error::new("SPIR-V: a block has no label"))?;
        // The merge block keeps the old entry block's label (its
        // successors' OpPhi name it); the new entry block gets `merge`'s
        // fresh id instead, and branches to the old label.
        let f = &mut self.b.module_mut().functions[fi];
        let old = &mut f.blocks[0];
        // The variables, with the OpLines before them (SPIR-V 2.4).
        let vars = old
            .instructions
            .iter()
            .take_while(|i| matches!(i.class.opcode, Op::Variable | Op::Line | Op::NoLine))
            .count();
        let mut head: Vec<Instruction> = old.instructions.drain(..vars).collect();
        for i in &mut code {
            if i.class.opcode == Op::SelectionMerge {
                i.operands[0] = Operand::IdRef(old_label);
            }
            if i.class.opcode == Op::BranchConditional {
                i.operands[2] = Operand::IdRef(old_label);
            }
        }
        // Debug info that must stay in the entry block (after its
        // variables, or its label) moves with it.
        let new_anchor = head
            .iter()
            .rev()
            .find(|i| i.class.opcode == Op::Variable)
            .and_then(|i| i.result_id)
            .unwrap_or(merge);
        head.extend(code);
        let entry = Block {
            label: Some(Instruction::new(Op::Label, None, Some(merge), vec![])),
            instructions: head,
        };
        f.blocks.insert(0, entry);
        f.blocks.insert(1, kill);
        self.debug.entry_block_moved(old_label, new_anchor);
        if self.declares_demote() {
            // The fixed-function test demotes (`demote_discards`): the
            // quad's derivatives stay defined, the helper's stores do not
            // happen, and the shader runs on to the merge block.
            let f = &mut self.b.module_mut().functions[fi];
            f.blocks[1].instructions = vec![
                Instruction::new(Op::DemoteToHelperInvocation, None, None, vec![]),
                Instruction::new(Op::Branch, None, None, vec![Operand::IdRef(old_label)]),
            ];
        }
        Ok(())
    }

    /// Whether the module declares `DemoteToHelperInvocation` (from
    /// [`demote_discards`] or its own).
    fn declares_demote(&self) -> bool {
        self.module().capabilities.iter().any(|i| {
            i.operands.first() == Some(&Operand::Capability(Capability::DemoteToHelperInvocation))
        })
    }

    /// Before each return of the entry point, runs the code `make` gives
    /// (ending in a condition) and discards the fragment where it holds;
    /// returns how many returns there were.
    fn discard_at_returns_if(
        &mut self,
        make: &mut dyn FnMut(&mut Patcher) -> (Vec<Instruction>, Word),
    ) -> usize {
        let Ok(fi) = self.entry_function() else {
            return 0;
        };
        let mut sites = 0;
        let mut bi = 0;
        while bi < self.module().functions[fi].blocks.len() {
            let ends_in_return = self.module().functions[fi].blocks[bi]
                .instructions
                .last()
                .is_some_and(|i| i.class.opcode == Op::Return);
            if !ends_in_return {
                bi += 1;
                continue;
            }
            let (mut code, cond) = make(self);
            let (kill, merge) = self.discard_if(&mut code, cond);
            let ret = Block {
                label: Some(Instruction::new(Op::Label, None, Some(merge), vec![])),
                instructions: vec![Instruction::new(Op::Return, None, None, vec![])],
            };
            let blocks = &mut self.b.module_mut().functions[fi].blocks;
            let b = &mut blocks[bi];
            b.instructions.pop();
            b.instructions.extend(code);
            blocks.insert(bi + 1, kill);
            blocks.insert(bi + 2, ret);
            sites += 1;
            bi += 3;
        }
        sites
    }
}
