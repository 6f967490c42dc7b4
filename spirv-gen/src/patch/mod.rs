//! Patching a frontend's own SPIR-V (ARB_gl_spirv passthrough) for state
//! that the IR path handles with a lowering pass.
//!
//! A SPIR-V passthrough shader is taken as its words; what a variant must
//! change in it is rewritten here on rspirv's data representation
//! (`rspirv::dr`), the way Mesa changes such a shader in NIR after
//! `spirv_to_nir`. So far that is:
//! - the vertex fetch fix-ups ([`vertex_fixups`]), with the same
//!   conversions as the IR's [`crate::passes::gl::lower_vertex_fixups`];
//! - GL's point size ([`point_size`]), as
//!   [`crate::passes::gl::lower_point_size`] gives it to the IR;
//! - GL's clip distance enables ([`clip_disable`]), as
//!   [`crate::passes::gl::lower_clip_planes`] applies them;
//! - GL's clip-space depth range ([`clip_halfz`]), as
//!   [`crate::passes::gl::lower_clip_halfz`] converts it;
//! - zeros for fragment shader inputs nothing writes ([`zero_inputs`],
//!   with the interfaces read by [`interface_locations`]), and colour
//!   outputs with no colour buffer dropped ([`unbound_outputs`]);
//! - per-sample interpolation under GL's sample shading
//!   ([`sample_interpolation`]);
//! - the entry point's name ([`entry_point_as_main`]);
//! - multisampling off: for points in the last vertex stage
//!   ([`aliased_points`]) and the fragment shader ([`aliased_points_fs`]),
//!   for triangles in the fragment shader ([`aliased_triangles_fs`]; see
//!   `aliased`);
//! - descriptor arrays split into one variable per element
//!   ([`split_descriptor_arrays`]; see `arrays`);
//! - integer pixel centres, polygon stipple, window rectangles, the
//!   alpha test, and the fragment halves of emulated line stipple and of
//!   polygon-mode edges in the fragment shader ([`pixel_center_integer`],
//!   [`polygon_stipple`], [`window_rects`], [`alpha_test`],
//!   [`line_stipple`], [`polygon_edges`]; see `fragment`).
//!
//! - transform feedback declared in the module kept to the last vertex
//!   stage ([`drop_xfb`]) and, for built-ins, captured before the patches
//!   above rewrite them ([`xfb_copy_builtins`]); see `xfb`.
//!
//! It also reads what pipe-vk needs to know of such a module: its entry
//! points ([`check_entry_point`]), interface locations
//! ([`interface_locations`]), descriptors ([`ir_resources`]) and
//! transform feedback layout ([`xfb_layout`]).
//!
//! The fix-ups keep the shader's own code intact: each input variable at
//! a fixed-up location becomes a `Private` variable of the same type, a
//! new `Input` variable takes its location in the type the device
//! fetches, and code at the start of the entry point converts that input
//! and stores it into the private variables. Access chains into the old
//! input are retyped to `Private` pointers; any other use of it as a
//! pointer (a function argument, say) is refused with an [`Error`], as is
//! an input a fix-up cannot convert (not 32-bit float, an array or a
//! matrix). Types are found or added through rspirv's `Builder`, which
//! declares each non-aggregate type once.

use rspirv::binary::Assemble;
use rspirv::dr::{self, Builder, Instruction, Operand};
use rspirv::spirv::{Capability, Decoration, ExecutionModel, Op, StorageClass, Word};
use std::collections::{HashMap, HashSet};

use crate::passes::{FetchFixup, VertexFixup};
use crate::{Error, Result};

mod aliased;
mod arrays;
mod debug;
pub use debug::without_nonsemantic;
mod fragment;
mod line_stipple;
mod smooth_lines;
mod votes;
mod xfb;
pub use aliased::{aliased_points, aliased_points_fs, aliased_triangles_fs, round_points_fs};
pub use arrays::split_descriptor_arrays;
pub use fragment::{
    alpha_test, demote_discards, demote_worthwhile, line_stipple, pixel_center_integer,
    polygon_edges, polygon_stipple, window_rects,
};
pub use line_stipple::line_stipple_gs;
pub use smooth_lines::{smooth_lines, smooth_lines_fs};
pub use votes::votes_trivial;
pub use xfb::{
    drop_xfb, vertex_output_captures, xfb_copy_builtins, xfb_layout, XfbBuiltins, XfbLayout,
};

/// Loads a SPIR-V module for reading or patching. Non-semantic
/// extended instructions (debug info such as
/// `NonSemantic.Shader.DebugInfo.100`, which glslang `-gV` and DXC emit,
/// some at module level where rspirv's loader refuses them) are taken
/// out first: they change nothing the shader computes, and a patch puts
/// them back where they were ([`Patcher::finish`], `debug`). `what`
/// names the caller in errors.
fn load(words: &[u32], what: &str) -> Result<dr::Module> {
    let bad = |m: String| Error::new(format!("{what}: the SPIR-V module does not parse: {m}"));
    if words.len() < 5 || words[0] != 0x0723_0203 {
        return Err(bad("no SPIR-V header".into()));
    }
    // The universal limit of ids (SPIR-V 2.17): a larger bound would
    // overflow the ids a patch adds.
    if words[3] > 0x3f_ffff {
        return Err(bad(format!("id bound {} exceeds 4194303", words[3])));
    }
    // Every instruction must fit (the splitting below stops at one that
    // does not).
    let mut i = 5;
    while i < words.len() {
        let len = (words[i] >> 16) as usize;
        if len == 0 || i + len > words.len() {
            return Err(bad(format!("instruction at word {i} runs past the end")));
        }
        i += len;
    }
    let keep = debug::strip(words);
    dr::load_words(&keep).map_err(|e| bad(e.to_string()))
}

/// Locations `at..at + n`, cut at 64 (only those below 32 matter; a
/// location at or past 32 keeps a variable out of every mask).
fn location_span(at: u32, n: u32) -> Vec<u32> {
    (at.min(64)..at.saturating_add(n).min(64)).collect()
}

/// The last vertex stage's execution models.
const LAST_STAGES: [ExecutionModel; 3] = [
    ExecutionModel::Vertex,
    ExecutionModel::TessellationEvaluation,
    ExecutionModel::Geometry,
];

/// Runs `patch` on the last-vertex-stage entry point `entry` of `words`
/// (`what` names it in errors); the words unchanged where it changes
/// nothing.
fn patch_last_stage(
    words: &[u32],
    entry: &str,
    what: &str,
    patch: impl FnOnce(&mut Patcher) -> Result<bool>,
) -> Result<Vec<u32>> {
    patch_entry(words, entry, &LAST_STAGES, what, patch)
}

/// [`patch_last_stage`] for an entry point of one of `models`.
fn patch_entry(
    words: &[u32],
    entry: &str,
    models: &[ExecutionModel],
    what: &str,
    patch: impl FnOnce(&mut Patcher) -> Result<bool>,
) -> Result<Vec<u32>> {
    let mut p = Patcher::open(words, &format!("SPIR-V {what}"), entry, models, what)?;
    if !patch(&mut p)? {
        return Ok(words.to_vec());
    }
    p.finish()
}

/// `OpSelectionMerge %merge None`.
fn selection_merge(merge: Word) -> Instruction {
    Instruction::new(
        Op::SelectionMerge,
        None,
        None,
        vec![
            Operand::IdRef(merge),
            Operand::SelectionControl(rspirv::spirv::SelectionControl::NONE),
        ],
    )
}

/// GLSL.std.450's FMax.
const GLSL_FMAX: u32 = 40;
/// `BuiltIn PointSize`, as a decoration's literal.
const POINT_SIZE: u32 = rspirv::spirv::BuiltIn::PointSize as u32;
/// `BuiltIn Position`, likewise.
const POSITION: u32 = rspirv::spirv::BuiltIn::Position as u32;
/// `BuiltIn ClipDistance`, likewise.
const CLIP_DISTANCE: u32 = rspirv::spirv::BuiltIn::ClipDistance as u32;

/// An interpolation (GLSL.std.450's `InterpolateAt*`, instruction `i`
/// of block `b` of function `f`) of an element of an input array: the
/// interpolant is an access chain of the array at `index`, then `rest`.
/// What replaces an interpolation (`Patcher::replace_interpolations`):
/// from the site, the instruction and its (result type, result id), the
/// code in its place.
type InterpolationRewrite<'a> = dyn FnMut(
        &mut Patcher,
        &ElementInterpolation,
        &Instruction,
        (Word, Word),
    ) -> Result<Vec<Instruction>>
    + 'a;

struct ElementInterpolation {
    f: usize,
    b: usize,
    i: usize,
    index: Word,
    rest: Vec<Operand>,
}

/// A scalar or vector type of the module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Num {
    /// `OpTypeFloat` (else an integer type).
    float: bool,
    signed: bool,
    bits: u32,
    comps: u32,
}

/// An input variable at a fixed-up location.
struct Input {
    var: Word,
    /// The pointee type.
    ty: Word,
    num: Num,
    component: u32,
}

/// Applies vertex fetch `fixups` to the vertex shader `entry` of a SPIR-V
/// module, returning the new words. Locations no input reads are left
/// alone, as in the IR.
pub fn vertex_fixups(words: &[u32], entry: &str, fixups: &[FetchFixup]) -> Result<Vec<u32>> {
    if fixups.is_empty() {
        return Ok(words.to_vec());
    }
    let mut p = Patcher::open(
        words,
        "SPIR-V vertex fix-up",
        entry,
        &[ExecutionModel::Vertex],
        "vertex fix-up",
    )?;
    for f in fixups {
        p.fixup(f)?;
    }
    p.finish()
}

fn model_of(stage: crate::ir::Stage) -> ExecutionModel {
    use crate::ir::Stage as S;
    match stage {
        S::Vertex => ExecutionModel::Vertex,
        S::TessCtrl => ExecutionModel::TessellationControl,
        S::TessEval => ExecutionModel::TessellationEvaluation,
        S::Geometry => ExecutionModel::Geometry,
        S::Fragment => ExecutionModel::Fragment,
        S::Compute => ExecutionModel::GLCompute,
    }
}

/// The module's entry points: (execution model, name).
fn entry_points(m: &dr::Module) -> impl Iterator<Item = (ExecutionModel, &str)> {
    m.entry_points
        .iter()
        .filter_map(|ep| match ep.operands.as_slice() {
            [Operand::ExecutionModel(x), _, Operand::LiteralString(n), ..] => {
                Some((*x, n.as_str()))
            }
            _ => None,
        })
}

/// Checks that a SPIR-V module parses and has an entry point `entry` for
/// `stage`.
pub fn check_entry_point(words: &[u32], stage: crate::ir::Stage, entry: &str) -> Result<()> {
    let m = load(words, "entry points")?;
    let model = model_of(stage);
    if entry_points(&m).any(|(x, n)| x == model && n == entry) {
        return Ok(());
    }
    let have: Vec<String> = entry_points(&m)
        .map(|(x, n)| format!("{x:?} \"{n}\""))
        .collect();
    Err(Error::new(format!(
        "the SPIR-V module has no {model:?} entry point \"{entry}\" (it has: {})",
        if have.is_empty() {
            "none".to_string()
        } else {
            have.join(", ")
        }
    )))
}

/// Renames the `stage` entry point `entry` to `main`, the name pipe-vk's
/// pipelines use for every stage, and another `stage` entry point that
/// was called `main` to a name no entry point has.
pub fn entry_point_as_main(
    words: &[u32],
    stage: crate::ir::Stage,
    entry: &str,
) -> Result<Vec<u32>> {
    if entry == "main" {
        return Ok(words.to_vec());
    }
    check_entry_point(words, stage, entry)?;
    let mut m = load(words, "entry points")?;
    let model = model_of(stage);
    let taken: HashSet<String> = entry_points(&m).map(|(_, n)| n.to_string()).collect();
    let spare = (0..)
        .map(|k| format!("main_{k}"))
        .find(|n| !taken.contains(n))
        .unwrap_or_default();
    for ep in &mut m.entry_points {
        if let [Operand::ExecutionModel(x), _, Operand::LiteralString(n), ..] =
            ep.operands.as_mut_slice()
        {
            if *x != model {
                continue;
            }
            if n == entry {
                *n = "main".to_string();
            } else if n == "main" {
                *n = spare.clone();
            }
        }
    }
    Ok(debug::NonSemantic::of(words).restore(m.assemble()))
}

/// GL's point size for the last vertex stage `entry` (vertex,
/// tessellation evaluation or geometry shader) of a SPIR-V module, as
/// `passes::gl::lower_point_size` gives the IR: `size` is written to
/// `PointSize` where the shader writes none, or, with `fixed` (Gallium's
/// `point_size_per_vertex` off), over what it writes. The store goes
/// before each return of the entry point, or before each `EmitVertex` of
/// a geometry shader. `PointSize` is the shader's own (a variable or a
/// member of its `gl_PerVertex` block), or a new output variable.
pub fn point_size(words: &[u32], entry: &str, size: f32, fixed: bool) -> Result<Vec<u32>> {
    patch_last_stage(words, entry, "point size", |p| p.point_size(size, fixed))
}

/// GL's clip-space depth range for the last vertex stage `entry` of a
/// SPIR-V module (Gallium's `clip_halfz` off, GL's default): where the
/// vertex ends, `gl_Position.z = (z + w) / 2` maps GL's [-1, 1] to
/// Vulkan's [0, 1], as `passes::gl::lower_clip_halfz` does. A shader
/// writing no position is left alone.
pub fn clip_halfz(words: &[u32], entry: &str) -> Result<Vec<u32>> {
    patch_last_stage(words, entry, "depth range", |p| p.clip_halfz())
}

/// The outputs of the vertex (or tessellation evaluation) shader `entry`
/// of a SPIR-V module, as a spirv-gen IR vertex shader with those
/// outputs and an empty body: what pipe-vk's generated shaders that
/// forward a vertex shader's outputs (the pass-through control shader,
/// `passes::tess::passthrough_tcs`) or the last vertex stage's (the
/// generated geometry shaders of `passes::line_stipple` and
/// `passes::aliased`) are built from; the IR shader stands for either
/// stage, as both hand on one vertex at a time. User outputs keep their location, component,
/// interpolation and type (scalars, vectors, arrays of them); the
/// position, point size and clip and cull distances it writes (plain or
/// in its `gl_PerVertex` block) become IR builtins. Output blocks and
/// matrices are refused.
pub fn vertex_outputs(words: &[u32], entry: &str) -> Result<crate::ir::Shader> {
    let module = load(words, "vertex outputs")?;
    let p = Patcher::new(module, entry, &VERTEX_OUTPUT_STAGES, "vertex outputs")?;
    Ok(p.vertex_outputs()?.0)
}

/// The SPIR-V output an output of [`vertex_outputs`] stands for: its
/// variable, and the member of an output block.
type OutputSource = (Word, Option<u32>);

/// The stages [`vertex_outputs`] reads.
const VERTEX_OUTPUT_STAGES: [ExecutionModel; 2] = [
    ExecutionModel::Vertex,
    ExecutionModel::TessellationEvaluation,
];

impl Patcher {
    /// [`vertex_outputs`], and the SPIR-V output each of its outputs
    /// stands for, in order: (variable, block member).
    fn vertex_outputs(&self) -> Result<(crate::ir::Shader, Vec<OutputSource>)> {
        let p = self;
        let mut sources = Vec::new();
        let ir_type = |n: Num| -> Option<crate::ir::Type> {
            let bits = u8::try_from(n.bits).ok()?;
            let comps = u8::try_from(n.comps).ok()?;
            Some(match (n.float, n.signed) {
                (true, _) => crate::ir::Type::float(bits, comps),
                (false, true) => crate::ir::Type::int(bits, comps),
                (false, false) => crate::ir::Type::uint(bits, comps),
            })
        };
        // (element type, array length) of `ty`.
        let shape = |ty: Word| -> Option<(crate::ir::Type, Option<u32>)> {
            if let Some(n) = p.num(ty) {
                return Some((ir_type(n)?, None));
            }
            let t = p.global(ty)?;
            match (t.class.opcode, t.operands.as_slice()) {
                (Op::TypeArray, [Operand::IdRef(e), Operand::IdRef(len)]) => {
                    let len = p.global(*len)?.operands.first().and_then(literal)?;
                    Some((ir_type(p.num(*e)?)?, Some(len)))
                }
                _ => None,
            }
        };
        let mut text = String::from("shader vertex\n");
        for (k, (var, ty)) in p
            .interface_vars(StorageClass::Output)
            .into_iter()
            .enumerate()
        {
            let what = |m: &str| Error::new(format!("SPIR-V vertex output %{var}: {m}"));
            let (elem, array) = shape(ty)
                .ok_or_else(|| what("a block, matrix or struct, which pipe-vk cannot forward"))?;
            if array.is_some_and(|n| n == 0 || n > 32) {
                return Err(what("an array of more than 32 elements (or none)"));
            }
            let loc = p
                .decoration(var, Decoration::Location)
                .flatten()
                .ok_or_else(|| what("no location"))?;
            let mut line = format!("out @o{k} : {elem}");
            if let Some(n) = array {
                line += &format!("[{n}]");
            }
            line += &format!(" location={loc}");
            if let Some(Some(c)) = p.decoration(var, Decoration::Component) {
                if c != 0 {
                    line += &format!(" component={c}");
                }
            }
            if p.decoration(var, Decoration::Flat).is_some() {
                line += " flat";
            } else if p.decoration(var, Decoration::NoPerspective).is_some() {
                line += " noperspective";
            }
            if p.decoration(var, Decoration::Centroid).is_some() {
                line += " centroid";
            }
            text += &line;
            text.push('\n');
            sources.push((var, None));
        }
        for (builtin, name) in [
            (POSITION, "position"),
            (POINT_SIZE, "point_size"),
            (CLIP_DISTANCE, "clip_distance"),
            (rspirv::spirv::BuiltIn::CullDistance as u32, "cull_distance"),
        ] {
            let Some((var, member)) = p.find_output_builtin(builtin).ok().flatten() else {
                continue;
            };
            if !p.writes_output(var, member) {
                continue;
            }
            let ty = match builtin {
                POSITION => "f32x4".to_string(),
                POINT_SIZE => "f32".to_string(),
                _ => {
                    // The array's length, from the variable's (or member's)
                    // type.
                    let len = p
                        .output_builtin_len(var, member)
                        .filter(|&n| (1..=8).contains(&n))
                        .ok_or_else(|| {
                            Error::new(format!(
                                "SPIR-V vertex output {name}: not an array of 1 to 8 floats"
                            ))
                        })?;
                    format!("f32[{len}]")
                }
            };
            text += &format!("out @{name} : {ty} builtin={name}\n");
            sources.push((var, member));
        }
        text += "fn main {\n}\n";
        Ok((crate::text::parse(&text)?, sources))
    }
}

/// A descriptor of a SPIR-V module, as spirv-gen's IR declares it in
/// its binding model ([`crate::binding`]): what pipe-vk binds for a
/// SPIR-V passthrough shader ([`ir_resources`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IrResource {
    /// A uniform buffer in `slot`.
    Ubo { slot: u32 },
    /// A sampler view: a combined image sampler or a uniform texel
    /// buffer (`dim` buffer).
    Texture(crate::ir::TextureInfo),
    /// A storage image or storage texel buffer.
    Image(crate::ir::ImageInfo),
    /// A shader buffer, read-only when it is `NonWritable`.
    Ssbo { slot: u32, readonly: bool },
}

/// The descriptors the `stage` entry point `entry` of a SPIR-V module
/// uses, as IR resources: set 0 uniform buffers, set 1 sampler views,
/// set 2 images, set 3 shader buffers, at binding `stage * slots + slot`
/// of the entry point's own stage; a descriptor array of `n` at `slot`
/// is `n` resources at `slot..slot + n` (see `arrays`). Anything else
/// (another stage's binding, a runtime array, a dynamic index pipe-vk
/// cannot unroll, a separate sampler) is an error naming it.
pub fn ir_resources(
    words: &[u32],
    stage: crate::ir::Stage,
    entry: &str,
) -> Result<Vec<IrResource>> {
    use crate::binding::{DescClass, SET_IMAGE, SET_SAMPLER_VIEW, SET_SSBO, SET_UBO};
    use crate::ir::{BaseType, Dim, ImageFormat, ImageInfo, TextureInfo};
    let mut p = Patcher::new(
        load(words, "resources")?,
        entry,
        &[model_of(stage)],
        "resources",
    )?;
    // Arrays of arrays and dynamic indices as the variant will have them
    // (or the error).
    p.flatten_descriptor_arrays()?;
    p.unroll_dynamic_indices()?;
    let used = p.used_globals();
    // Descriptor arrays: element k at slot + k (`arrays`).
    let arrays: HashMap<Word, (Word, u32)> = p
        .descriptor_arrays()?
        .into_iter()
        .map(|a| (a.var, (a.elem, a.len)))
        .collect();
    let mut out = Vec::new();
    for d in p.descriptor_vars() {
        let arrays::DescriptorVar {
            var,
            set,
            binding,
            class: storage,
            pointee,
        } = d;
        if !used.contains(&var) {
            continue;
        }
        let bad = |m: &str| {
            Error::new(format!(
                "SPIR-V descriptor set {set} binding {binding} (%{var}): {m}"
            ))
        };
        let class = match set {
            SET_UBO => DescClass::Ubo,
            SET_SAMPLER_VIEW => DescClass::SamplerView,
            SET_IMAGE => DescClass::Image,
            SET_SSBO => DescClass::Ssbo,
            _ => return Err(bad("not a set of pipe-vk's binding model (0 to 3)")),
        };
        let stride = class.max_slots();
        if binding / stride != stage.index() {
            return Err(bad(&format!(
                "not in the {} stage's bindings ({} to {})",
                stage.name(),
                stage.index() * stride,
                stage.index() * stride + stride - 1
            )));
        }
        let slot = binding % stride;
        let pointee = pointee.ok_or_else(|| bad("no pointer type"))?;
        let (pointee, count) = arrays.get(&var).copied().unwrap_or((pointee, 1));
        if slot.saturating_add(count) > stride {
            return Err(bad(&format!(
                "an array of {count} past the stage's {stride} bindings of the set"
            )));
        }
        let ty = p.global(pointee).ok_or_else(|| bad("no type"))?;
        // OpTypeImage: Sampled Type, Dim, Depth, Arrayed, MS, Sampled,
        // Image Format.
        let image =
            |t: &Instruction| -> Option<(BaseType, Dim, bool, bool, bool, u32, ImageFormat)> {
                match t.operands.as_slice() {
                    [Operand::IdRef(st), Operand::Dim(d), Operand::LiteralBit32(depth), Operand::LiteralBit32(arr), Operand::LiteralBit32(ms), Operand::LiteralBit32(sampled), Operand::ImageFormat(f), ..] =>
                    {
                        let n = p.num(*st)?;
                        let base = match (n.float, n.signed) {
                            (true, _) => BaseType::Float,
                            (false, true) => BaseType::Int,
                            (false, false) => BaseType::Uint,
                        };
                        use rspirv::spirv::Dim as D;
                        let dim = match d {
                            D::Dim1D => Dim::D1,
                            D::Dim2D => Dim::D2,
                            D::Dim3D => Dim::D3,
                            D::DimCube => Dim::Cube,
                            D::DimRect => Dim::Rect,
                            D::DimBuffer => Dim::Buffer,
                            _ => return None,
                        };
                        let format = ImageFormat::ALL
                            .iter()
                            .copied()
                            .find(|x| crate::emit::spirv_format(*x) == *f)?;
                        Some((
                            base,
                            dim,
                            *depth == 1,
                            *arr != 0,
                            *ms != 0,
                            *sampled,
                            format,
                        ))
                    }
                    _ => None,
                }
            };
        let nonwritable = p.decoration(var, Decoration::NonWritable).is_some();
        let r = match (class, storage, ty.class.opcode) {
            (DescClass::Ubo, StorageClass::Uniform, Op::TypeStruct)
                if p.decoration(pointee, Decoration::BufferBlock).is_none() =>
            {
                IrResource::Ubo { slot }
            }
            (
                DescClass::SamplerView,
                StorageClass::UniformConstant,
                Op::TypeSampledImage | Op::TypeImage,
            ) => {
                let img = if ty.class.opcode == Op::TypeSampledImage {
                    match ty.operands.first() {
                        Some(Operand::IdRef(i)) => p.global(*i),
                        _ => None,
                    }
                } else {
                    Some(ty)
                };
                let (sampled, dim, shadow, arrayed, ms, how, _) = img
                    .and_then(image)
                    .ok_or_else(|| bad("an image type pipe-vk does not know"))?;
                let combined = ty.class.opcode == Op::TypeSampledImage;
                if combined == (dim == Dim::Buffer) || how == 2 {
                    return Err(bad(
                        "sampler views are combined image samplers, or sampled images of \
                         dimension Buffer",
                    ));
                }
                IrResource::Texture(TextureInfo {
                    slot,
                    dim,
                    arrayed,
                    ms,
                    shadow,
                    sampled,
                })
            }
            (DescClass::Image, StorageClass::UniformConstant, Op::TypeImage) => {
                let (sampled, dim, _, arrayed, ms, how, format) =
                    image(ty).ok_or_else(|| bad("an image type pipe-vk does not know"))?;
                if how != 2 {
                    return Err(bad("images are storage images (Sampled 2)"));
                }
                IrResource::Image(ImageInfo {
                    slot,
                    dim,
                    arrayed,
                    ms,
                    format,
                    sampled,
                    readonly: nonwritable,
                    writeonly: p.decoration(var, Decoration::NonReadable).is_some(),
                })
            }
            (
                DescClass::Ssbo,
                StorageClass::StorageBuffer | StorageClass::Uniform,
                Op::TypeStruct,
            ) => {
                // Read-only: the variable, or every member, NonWritable.
                let members = ty.operands.len() as u32;
                let all_members = members > 0
                    && (0..members).all(|k| {
                        p.module().annotations.iter().any(|a| {
                            a.class.opcode == Op::MemberDecorate
                                && a.operands.first() == Some(&Operand::IdRef(pointee))
                                && a.operands.get(1) == Some(&Operand::LiteralBit32(k))
                                && a.operands.get(2)
                                    == Some(&Operand::Decoration(Decoration::NonWritable))
                        })
                    });
                IrResource::Ssbo {
                    slot,
                    readonly: nonwritable || all_members,
                }
            }
            _ => {
                return Err(bad(
                    "not what pipe-vk binds in this set (set 0 uniform buffers, 1 sampler \
                     views, 2 storage images, 3 shader buffers)",
                ))
            }
        };
        out.extend((0..count).map(|k| r.at_slot(slot + k)));
    }
    Ok(out)
}

impl IrResource {
    /// The same resource in `slot`.
    fn at_slot(&self, slot: u32) -> IrResource {
        match *self {
            IrResource::Ubo { .. } => IrResource::Ubo { slot },
            IrResource::Texture(t) => IrResource::Texture(crate::ir::TextureInfo { slot, ..t }),
            IrResource::Image(i) => IrResource::Image(crate::ir::ImageInfo { slot, ..i }),
            IrResource::Ssbo { readonly, .. } => IrResource::Ssbo { slot, readonly },
        }
    }
}

/// The locations (bit `i` = location `i`, below 32) the `stage` entry
/// point `entry` of a SPIR-V module reads (`outputs` false) or writes:
/// its user-defined interface variables, builtins left out, blocks by
/// their members. What pipe-vk matches a fragment shader's inputs with.
pub fn interface_locations(
    words: &[u32],
    stage: crate::ir::Stage,
    entry: &str,
    outputs: bool,
) -> Result<u32> {
    let p = Patcher::new(
        load(words, "interface")?,
        entry,
        &[model_of(stage)],
        "interface",
    )?;
    let class = if outputs {
        StorageClass::Output
    } else {
        StorageClass::Input
    };
    Ok(p.interface_vars(class)
        .into_iter()
        .flat_map(|(var, ty)| p.var_locations(var, ty))
        .filter(|&l| l < 32)
        .fold(0, |m, l| m | 1 << l))
}

/// The colour outputs (locations 0..8) of the fragment entry point
/// `entry` of a SPIR-V module whose components are integers: the signed
/// ones, then the unsigned ones, as masks (bit `i` = location `i`). The
/// others are floats. Vulkan wants each output's numeric type to match
/// its colour attachment's format; pipe-vk compares the two.
pub fn fragment_int_outputs(words: &[u32], entry: &str) -> Result<(u8, u8)> {
    let p = Patcher::new(
        load(words, "fragment outputs")?,
        entry,
        &[ExecutionModel::Fragment],
        "fragment outputs",
    )?;
    let (mut sint, mut uint) = (0u8, 0u8);
    for (var, ty) in p.interface_vars(StorageClass::Output) {
        // The scalar under arrays and vectors.
        let mut t = ty;
        let signed = loop {
            let Some(i) = p.global(t) else { break None };
            match (i.class.opcode, i.operands.as_slice()) {
                (Op::TypeArray | Op::TypeVector, [Operand::IdRef(e), ..]) => t = *e,
                (Op::TypeInt, [_, Operand::LiteralBit32(s)]) => break Some(*s != 0),
                _ => break None,
            }
        };
        let Some(signed) = signed else { continue };
        for l in p.var_locations(var, ty).into_iter().filter(|&l| l < 8) {
            if signed {
                sint |= 1 << l;
            } else {
                uint |= 1 << l;
            }
        }
    }
    Ok((sint, uint))
}

/// Whether the fragment shader entry point `entry` of a SPIR-V module
/// reads a clip or cull distance: an input decorated `ClipDistance` or
/// `CullDistance`, or an input block with such a member.
pub fn reads_distances(words: &[u32], entry: &str) -> Result<bool> {
    use rspirv::spirv::BuiltIn;
    let p = Patcher::new(
        load(words, "interface")?,
        entry,
        &[ExecutionModel::Fragment],
        "interface",
    )?;
    let distance = |o: Option<&Operand>| {
        matches!(
            o,
            Some(Operand::BuiltIn(
                BuiltIn::ClipDistance | BuiltIn::CullDistance
            ))
        )
    };
    Ok(p.interface_globals(StorageClass::Input)
        .into_iter()
        .any(|(var, ty)| {
            // The type, or an array's element type.
            let elem = p
                .global(ty)
                .filter(|i| i.class.opcode == Op::TypeArray)
                .and_then(|i| match i.operands.first() {
                    Some(Operand::IdRef(e)) => Some(*e),
                    _ => None,
                })
                .unwrap_or(ty);
            p.module().annotations.iter().any(|a| match a.class.opcode {
                Op::Decorate => {
                    a.operands.first() == Some(&Operand::IdRef(var)) && distance(a.operands.get(2))
                }
                Op::MemberDecorate => {
                    a.operands.first() == Some(&Operand::IdRef(elem)) && distance(a.operands.get(3))
                }
                _ => false,
            })
        }))
}

/// Fragment shader inputs whose locations all have their bit in `mask`
/// (the last vertex stage writes none of them) read zero: each becomes a
/// `Private` variable set to zero at the entry point, as
/// `passes::gl::lower_unwritten_inputs` does for the IR (Vulkan rejects
/// an input no stage writes). An input block whose members are all in
/// `mask` is zeroed whole; one written in part keeps its written members
/// as inputs of their own, and reads zeros in the others; so do arrays,
/// matrices and 64-bit vectors (a `dvec4`'s two locations) written in
/// part, by element, column and half. Inputs the shader interpolates
/// (`InterpolateAt*`) are rebuilt where each interpolation takes an
/// array element or a block member directly; others are left alone.
pub fn zero_inputs(words: &[u32], entry: &str, mask: u32) -> Result<Vec<u32>> {
    if mask == 0 {
        return Ok(words.to_vec());
    }
    let mut p = Patcher::open(
        words,
        "SPIR-V zero inputs",
        entry,
        &[ExecutionModel::Fragment],
        "zero inputs",
    )?;
    let mut changed = false;
    let unwritten =
        |locs: &[u32]| !locs.is_empty() && locs.iter().all(|&l| l < 32 && mask >> l & 1 == 1);
    for (var, ty) in p.interface_vars(StorageClass::Input) {
        let locs = p.var_locations(var, ty);
        if unwritten(&locs) {
            let null = p.null(ty);
            p.privatize(var, ty, StorageClass::Input, Some(null))?;
            changed = true;
            continue;
        }
        // An array, matrix or 64-bit vector written in part: its
        // written locations' parts (elements, columns, halves of a
        // vector) become inputs of their own, and the variable a private
        // one built from them and zeros at entry.
        // Not where the shader interpolates it at an offset or sample
        // (see `passes::gl::lower_unwritten_inputs`), for arrays and
        // blocks alike.
        if p.interpolated(var) {
            // An array of one location per element whose every
            // interpolation takes an element directly: each interpolates
            // the element's own input, selected by the index.
            let unwritten_at = |l: u32| unwritten(&[l]);
            if !locs.iter().any(|&l| unwritten(&[l])) {
                continue;
            }
            if p.interpolated_elements(var, ty, &locs) {
                p.rebuild_interpolated(var, ty, &locs, &unwritten_at)?;
                changed = true;
            } else if let Some(plan) = p.interpolated_members(var, ty, &unwritten_at) {
                // A block whose interpolations each take a member
                // directly: the interpolated members become inputs of
                // their own (or zeros), the rest as any block's.
                p.rebuild_interpolated_block(var, ty, &plan, &unwritten_at)?;
                changed = true;
            }
            continue;
        }
        // Arrays, matrices and 64-bit vectors alike.
        if p.struct_members(ty).is_none() {
            let unwritten_at = |l: u32| unwritten(&[l]);
            if !locs.iter().any(|&l| unwritten(&[l])) || !p.rebuildable(ty, &locs, &unwritten_at) {
                continue;
            }
            let decos = p.interface_decorations(var, None);
            let value = p.rebuilt_input(ty, &locs, &|l| unwritten(&[l]), &decos);
            p.privatize(var, ty, StorageClass::Input, Some(value))?;
            changed = true;
            continue;
        }
        // A block some of whose members (or their array elements)
        // nothing writes: each written member (element) becomes an input
        // of its own, and the block a private variable built from them
        // and zeros at entry.
        let Some(members) = p.member_locations(var, ty) else {
            continue;
        };
        let types = p.struct_members(ty).unwrap_or_default();
        let unwritten_at = |l: u32| unwritten(&[l]);
        if !members.iter().flatten().any(|&l| unwritten(&[l]))
            || members.iter().any(Vec::is_empty)
            || !types
                .iter()
                .zip(&members)
                .all(|(&t, locs)| p.rebuildable(t, locs, &unwritten_at))
        {
            continue;
        }
        let mut parts = Vec::new();
        for (k, (mty, locs)) in types.iter().zip(&members).enumerate() {
            // Interpolation, as the member or the block had it.
            let decos = p.interface_decorations(var, Some((ty, k as u32)));
            parts.push(p.rebuilt_input(*mty, locs, &|l| unwritten(&[l]), &decos));
        }
        let value = p.op(
            Op::CompositeConstruct,
            ty,
            parts.into_iter().map(Operand::IdRef).collect(),
        );
        p.privatize(var, ty, StorageClass::Input, Some(value))?;
        changed = true;
    }
    if !changed {
        return Ok(words.to_vec());
    }
    p.finish()
}

/// GL's fragment shader inputs with multisample rasterization disabled
/// on a multisampled framebuffer, as `passes::gl::lower_single_sample`
/// gives them to the IR: `SampleId` reads 0, `SamplePosition` (0.5,
/// 0.5), `SampleMask` bit 0 alone (each a private variable set at
/// entry), and inputs decorated `Sample` (members too) lose it, so they
/// are interpolated at the pixel centre and Vulkan runs the shader once
/// per pixel. A shader with none of them is left alone.
pub fn single_sample(words: &[u32], entry: &str) -> Result<Vec<u32>> {
    use rspirv::spirv::BuiltIn;
    let mut p = Patcher::open(
        words,
        "SPIR-V single sample",
        entry,
        &[ExecutionModel::Fragment],
        "single sample",
    )?;
    let mut changed = false;
    for (var, ty) in p.interface_globals(StorageClass::Input) {
        let builtin = p.decoration(var, Decoration::BuiltIn).flatten();
        let is = |b: BuiltIn| builtin == Some(b as u32);
        if !(is(BuiltIn::SampleId) || is(BuiltIn::SamplePosition) || is(BuiltIn::SampleMask)) {
            continue;
        }
        // The value: scalars of the variable's type (an array's element
        // type for the mask).
        let (elem, len) = match p.global(ty).map(|t| (t.class.opcode, t.operands.clone())) {
            Some((Op::TypeArray, ops)) => {
                let (Some(Operand::IdRef(e)), Some(Operand::IdRef(n))) = (ops.first(), ops.get(1))
                else {
                    continue;
                };
                let n = p
                    .global(*n)
                    .and_then(|c| c.operands.first().and_then(literal));
                (*e, n)
            }
            _ => (ty, None),
        };
        let Some(num) = p.num(elem).filter(|n| n.comps <= 4) else {
            return Err(Error::new(format!(
                "SPIR-V single sample: the sample input %{var} has a type pipe-vk cannot set"
            )));
        };
        let scalar = Num { comps: 1, ..num };
        let bits = if is(BuiltIn::SamplePosition) {
            u64::from(0.5f32.to_bits())
        } else {
            0
        };
        let comp = p.konst(scalar, bits);
        let mut v = if num.comps > 1 {
            let comps: Vec<Word> = vec![comp; num.comps as usize];
            p.b.constant_composite(elem, comps)
        } else {
            comp
        };
        if is(BuiltIn::SampleMask) && len.is_none() {
            v = p.konst(scalar, 1);
        }
        if let Some(n) = len {
            // `SampleMask` has a word per 32 samples.
            if n > 4 {
                return Err(Error::new(format!(
                    "SPIR-V single sample: the sample mask input %{var} has {n} words"
                )));
            }
            let one = p.konst(scalar, 1);
            let parts: Vec<Word> = (0..n).map(|k| if k == 0 { one } else { v }).collect();
            v = p.b.constant_composite(ty, parts);
        }
        p.privatize(var, ty, StorageClass::Input, Some(v))?;
        changed = true;
    }
    // `Sample` interpolation, on variables and block members (of a
    // block or an array of blocks).
    let inputs: Vec<(Word, Word)> = p
        .interface_vars(StorageClass::Input)
        .into_iter()
        .map(|(v, t)| (v, p.array_of(t).map_or(t, |(e, _)| e)))
        .chain(p.interface_vars(StorageClass::Input))
        .collect();
    let before = p.module().annotations.len();
    p.b.module_mut().annotations.retain(|a| {
        let target = match a.operands.first() {
            Some(Operand::IdRef(t)) => *t,
            _ => return true,
        };
        let sample = match a.class.opcode {
            Op::Decorate => a.operands.get(1) == Some(&Operand::Decoration(Decoration::Sample)),
            Op::MemberDecorate => {
                a.operands.get(2) == Some(&Operand::Decoration(Decoration::Sample))
            }
            _ => false,
        };
        !(sample && inputs.iter().any(|&(v, t)| v == target || t == target))
    });
    changed |= p.module().annotations.len() != before;
    if !changed {
        return Ok(words.to_vec());
    }
    p.finish()
}

/// GL's per-sample shading for a fragment shader (`set_min_samples`
/// above 1, `force_persample_interp`): its interpolated inputs (not flat,
/// not builtins) are decorated `Sample`, replacing `Centroid`, as
/// `passes::gl::lower_sample_shading` does; Vulkan's sample shading
/// alone may interpolate them at the pixel centre (lavapipe does).
/// Input blocks get it on their members.
pub fn sample_interpolation(words: &[u32], entry: &str) -> Result<Vec<u32>> {
    let mut p = Patcher::open(
        words,
        "SPIR-V sample shading",
        entry,
        &[ExecutionModel::Fragment],
        "sample shading",
    )?;
    let mut changed = false;
    for (var, ty) in p.interface_vars(StorageClass::Input) {
        if p.decoration(var, Decoration::Flat).is_some()
            || p.decoration(var, Decoration::Sample).is_some()
        {
            continue;
        }
        if p.global(ty)
            .is_some_and(|t| t.class.opcode == Op::TypeStruct)
        {
            // A block: each member that is neither flat nor per sample.
            let members = p.global(ty).map_or(0, |t| t.operands.len()) as u32;
            let m = p.b.module_mut();
            let has = |m: &dr::Module, k: u32, d: Decoration| {
                m.annotations.iter().any(|a| {
                    a.class.opcode == Op::MemberDecorate
                        && a.operands.first() == Some(&Operand::IdRef(ty))
                        && a.operands.get(1) == Some(&Operand::LiteralBit32(k))
                        && a.operands.get(2) == Some(&Operand::Decoration(d))
                })
            };
            for k in 0..members {
                if has(m, k, Decoration::Flat) || has(m, k, Decoration::Sample) {
                    continue;
                }
                m.annotations.retain(|a| {
                    !(a.class.opcode == Op::MemberDecorate
                        && a.operands.first() == Some(&Operand::IdRef(ty))
                        && a.operands.get(1) == Some(&Operand::LiteralBit32(k))
                        && a.operands.get(2) == Some(&Operand::Decoration(Decoration::Centroid)))
                });
                m.annotations.push(Instruction::new(
                    Op::MemberDecorate,
                    None,
                    None,
                    vec![
                        Operand::IdRef(ty),
                        Operand::LiteralBit32(k),
                        Operand::Decoration(Decoration::Sample),
                    ],
                ));
                changed = true;
            }
            continue;
        }
        let m = p.b.module_mut();
        m.annotations.retain(|a| {
            !(a.class.opcode == Op::Decorate
                && a.operands.first() == Some(&Operand::IdRef(var))
                && a.operands.get(1) == Some(&Operand::Decoration(Decoration::Centroid)))
        });
        p.b.decorate(var, Decoration::Sample, []);
        changed = true;
    }
    if !changed {
        return Ok(words.to_vec());
    }
    p.capability(Capability::SampleRateShading);
    p.finish()
}

/// Fragment shader colour outputs at the locations whose bit is set in
/// `mask` (no colour buffer bound there: GL's `GL_NONE` draw buffers)
/// become `Private` variables, as `passes::gl::lower_unbound_outputs`
/// does for the IR: Vulkan warns of an output with no attachment.
pub fn unbound_outputs(words: &[u32], entry: &str, mask: u8) -> Result<Vec<u32>> {
    if mask == 0 {
        return Ok(words.to_vec());
    }
    let mut p = Patcher::open(
        words,
        "SPIR-V unbound outputs",
        entry,
        &[ExecutionModel::Fragment],
        "unbound outputs",
    )?;
    let mut changed = false;
    for (var, ty) in p.interface_vars(StorageClass::Output) {
        let locs = p.var_locations(var, ty);
        if locs.is_empty() || !locs.iter().all(|&l| l < 8 && mask >> l & 1 == 1) {
            continue;
        }
        p.privatize(var, ty, StorageClass::Output, None)?;
        changed = true;
    }
    if !changed {
        return Ok(words.to_vec());
    }
    p.finish()
}

/// GL's clip distance enables for the last vertex stage `entry` of a
/// SPIR-V module: GL uses `gl_ClipDistance[i]` only where bit `i` of
/// `enabled` is set (`GL_CLIP_DISTANCEi`), Vulkan every one the shader
/// writes, so the others are overwritten with 1.0 (inside) where the
/// vertex ends, as `passes::gl::lower_clip_planes` (and Mesa's
/// `nir_lower_clip_disable`) does. A shader that writes no clip distance
/// is left alone.
pub fn clip_disable(words: &[u32], entry: &str, enabled: u8) -> Result<Vec<u32>> {
    patch_last_stage(words, entry, "clip distances", |p| p.clip_disable(enabled))
}

struct Patcher {
    b: Builder,
    /// Index of the entry point in `entry_points`.
    entry: usize,
    entry_fn: Word,
    model: ExecutionModel,
    /// SPIR-V 1.4 and later list every global the entry point uses in its
    /// interface, `Private` ones included.
    private_in_interface: bool,
    /// Decorations by target: (decoration, its literal, if one).
    decorations: HashMap<Word, Vec<(Decoration, Option<u32>)>>,
    /// Code to insert at the start of the entry point.
    code: Vec<Instruction>,
    glsl: Option<Word>,
    /// Inputs already rewritten (each location once).
    done: HashSet<u32>,
    /// The module's non-semantic instructions, which [`Patcher::finish`]
    /// puts back (set by [`Patcher::open`]).
    debug: debug::NonSemantic,
}

fn literal(op: &Operand) -> Option<u32> {
    match op {
        Operand::LiteralBit32(v) => Some(*v),
        _ => None,
    }
}

impl Patcher {
    /// A patcher for the entry point `entry` of one of the execution
    /// `models` (`what` names the patch in errors).
    ///
    /// The other entry points, and their execution modes, are dropped: a
    /// variant only runs this one, and a patch initializes what it
    /// changes in this one only.
    fn new(
        mut module: dr::Module,
        entry: &str,
        models: &[ExecutionModel],
        what: &str,
    ) -> Result<Patcher> {
        let version = module
            .header
            .as_ref()
            .map(|h| h.version())
            .ok_or_else(|| Error::new(format!("SPIR-V {what}: the module has no header")))?;
        let (index, entry_fn, model) = module
            .entry_points
            .iter()
            .enumerate()
            .find_map(|(i, ep)| match ep.operands.as_slice() {
                [Operand::ExecutionModel(m), Operand::IdRef(f), Operand::LiteralString(name), ..]
                    if name == entry && models.contains(m) =>
                {
                    Some((i, *f, *m))
                }
                _ => None,
            })
            .ok_or_else(|| {
                Error::new(format!(
                    "SPIR-V {what}: the module has no {models:?} entry point \"{entry}\""
                ))
            })?;
        let kept = module.entry_points.swap_remove(index);
        module.entry_points = vec![kept];
        let index = 0;
        module
            .execution_modes
            .retain(|m| matches!(m.operands.first(), Some(Operand::IdRef(f)) if *f == entry_fn));
        let mut decorations: HashMap<Word, Vec<(Decoration, Option<u32>)>> = HashMap::new();
        for a in &module.annotations {
            if a.class.opcode != Op::Decorate {
                continue;
            }
            if let [Operand::IdRef(t), Operand::Decoration(d), rest @ ..] = a.operands.as_slice() {
                decorations.entry(*t).or_default().push((
                    *d,
                    rest.first().and_then(|o| match o {
                        Operand::BuiltIn(b) => Some(*b as u32),
                        o => literal(o),
                    }),
                ));
            }
        }
        let glsl = module.ext_inst_imports.iter().find_map(|i| {
            matches!(i.operands.first(), Some(Operand::LiteralString(s)) if s == "GLSL.std.450")
                .then_some(i.result_id)
                .flatten()
        });
        Ok(Patcher {
            b: Builder::new_from_module(module),
            entry: index,
            entry_fn,
            model,
            private_in_interface: version >= (1, 4),
            decorations,
            code: Vec::new(),
            glsl,
            done: HashSet::new(),
            debug: debug::NonSemantic::default(),
        })
    }

    /// [`Patcher::new`] for the module `words` (loaded as [`load`] does,
    /// `load_what` naming it in errors), keeping its non-semantic
    /// instructions for [`Patcher::finish`].
    fn open(
        words: &[u32],
        load_what: &str,
        entry: &str,
        models: &[ExecutionModel],
        what: &str,
    ) -> Result<Patcher> {
        let mut p = Patcher::new(load(words, load_what)?, entry, models, what)?;
        p.debug = debug::NonSemantic::of(words);
        Ok(p)
    }

    fn module(&self) -> &dr::Module {
        self.b.module_ref()
    }

    fn decoration(&self, id: Word, d: Decoration) -> Option<Option<u32>> {
        self.decorations
            .get(&id)?
            .iter()
            .find(|(x, _)| *x == d)
            .map(|&(_, v)| v)
    }

    /// The definition of `id` among the types, constants and globals.
    fn global(&self, id: Word) -> Option<&Instruction> {
        self.module()
            .types_global_values
            .iter()
            .find(|i| i.result_id == Some(id))
    }

    /// `ty` as a scalar or vector type.
    fn num(&self, ty: Word) -> Option<Num> {
        let i = self.global(ty)?;
        match (i.class.opcode, i.operands.as_slice()) {
            (Op::TypeFloat, [Operand::LiteralBit32(bits), ..]) => Some(Num {
                float: true,
                signed: true,
                bits: *bits,
                comps: 1,
            }),
            (Op::TypeInt, [Operand::LiteralBit32(bits), Operand::LiteralBit32(s)]) => Some(Num {
                float: false,
                signed: *s != 0,
                bits: *bits,
                comps: 1,
            }),
            // Shaders' vectors have 2 to 4 components (8 and 16 are
            // kernels'); a damaged count is no vector, so nothing sizes
            // a list by it.
            (Op::TypeVector, [Operand::IdRef(c), Operand::LiteralBit32(n @ 2..=4)]) if *c != ty => {
                // The component is a scalar: no further recursion.
                let c = match self.global(*c)?.class.opcode {
                    Op::TypeFloat | Op::TypeInt => self.num(*c)?,
                    _ => return None,
                };
                Some(Num { comps: *n, ..c })
            }
            _ => None,
        }
    }

    /// The locations a variable of type `ty` takes.
    fn locations(&self, ty: Word) -> u32 {
        self.locations_at(ty, 0)
    }

    /// [`Self::locations`], `depth` types down (a self-referential type,
    /// which no valid module has, stops at a depth no interface reaches).
    fn locations_at(&self, ty: Word, depth: u32) -> u32 {
        let Some(i) = self.global(ty) else { return 1 };
        if depth > 16 {
            return 1;
        }
        match (i.class.opcode, i.operands.as_slice()) {
            (Op::TypeArray, [Operand::IdRef(e), Operand::IdRef(len)]) => {
                let n = self
                    .global(*len)
                    .and_then(|c| c.operands.first().and_then(literal))
                    .unwrap_or(1);
                n.saturating_mul(self.locations_at(*e, depth + 1))
            }
            (Op::TypeMatrix, [Operand::IdRef(col), Operand::LiteralBit32(n)]) => {
                n.saturating_mul(self.locations_at(*col, depth + 1))
            }
            (Op::TypeStruct, members) => members
                .iter()
                .map(|m| match m {
                    Operand::IdRef(t) => self.locations_at(*t, depth + 1),
                    _ => 0,
                })
                .fold(0u32, u32::saturating_add),
            _ => match self.num(ty) {
                Some(n) if n.bits == 64 && n.comps > 2 => 2,
                _ => 1,
            },
        }
    }

    /// The entry point's interface variables.
    fn interface(&self) -> Vec<Word> {
        self.module().entry_points[self.entry].operands[3..]
            .iter()
            .filter_map(|o| match o {
                Operand::IdRef(id) => Some(*id),
                _ => None,
            })
            .collect()
    }

    /// The entry point's interface variables of storage `class`, builtins
    /// left out: (variable, pointee type).
    fn interface_vars(&self, class: StorageClass) -> Vec<(Word, Word)> {
        self.interface_globals(class)
            .into_iter()
            .filter(|&(var, ty)| {
                if self.decoration(var, Decoration::BuiltIn).is_some() {
                    return false;
                }
                // A block of builtins (gl_PerVertex), or an array of
                // them (per-vertex inputs).
                let block = match self.global(ty) {
                    Some(a) if a.class.opcode == Op::TypeArray => match a.operands.first() {
                        Some(Operand::IdRef(e)) => *e,
                        _ => ty,
                    },
                    _ => ty,
                };
                !self.module().annotations.iter().any(|a| {
                    a.class.opcode == Op::MemberDecorate
                        && a.operands.first() == Some(&Operand::IdRef(block))
                        && a.operands.get(2) == Some(&Operand::Decoration(Decoration::BuiltIn))
                })
            })
            .collect()
    }

    /// Every interface variable of the entry point of storage `class`,
    /// builtins included: (variable, pointee type).
    fn interface_globals(&self, class: StorageClass) -> Vec<(Word, Word)> {
        let iface = self.interface();
        self.module()
            .types_global_values
            .iter()
            .filter(|i| {
                i.class.opcode == Op::Variable
                    && i.operands.first() == Some(&Operand::StorageClass(class))
                    && i.result_id.is_some_and(|id| iface.contains(&id))
            })
            .filter_map(|i| {
                let ptr = self.global(i.result_type?)?;
                match ptr.operands.as_slice() {
                    [_, Operand::IdRef(t)] => Some((i.result_id?, *t)),
                    _ => None,
                }
            })
            .collect()
    }

    /// The locations a user-defined interface variable `var` (of type
    /// `ty`) takes: from its `Location`, or a block's members' (none for
    /// a block of builtins).
    fn var_locations(&self, var: Word, ty: Word) -> Vec<u32> {
        if let Some(members) = self.member_locations(var, ty) {
            return members.into_iter().flatten().collect();
        }
        match self.decoration(var, Decoration::Location).flatten() {
            Some(l) => location_span(l, self.locations(ty)),
            None => Vec::new(),
        }
    }

    /// The member types of the struct `ty`; `None` when it is no struct.
    fn struct_members(&self, ty: Word) -> Option<Vec<Word>> {
        let t = self
            .global(ty)
            .filter(|t| t.class.opcode == Op::TypeStruct)?;
        Some(
            t.operands
                .iter()
                .filter_map(|o| match o {
                    Operand::IdRef(m) => Some(*m),
                    _ => None,
                })
                .collect(),
        )
    }

    /// The locations each member of the block `var` (of struct type `ty`)
    /// takes: its own `Location`, or the one after the previous member's
    /// (the first follows the variable's); empty for a member with
    /// neither. `None` when `ty` is no struct; no members for a block of
    /// builtins.
    fn member_locations(&self, var: Word, ty: Word) -> Option<Vec<Vec<u32>>> {
        let members = self.struct_members(ty)?;
        let member_decos = |d: Decoration| -> HashMap<u32, u32> {
            self.module()
                .annotations
                .iter()
                .filter(|a| a.class.opcode == Op::MemberDecorate)
                .filter_map(|a| match a.operands.as_slice() {
                    [Operand::IdRef(t), Operand::LiteralBit32(k), Operand::Decoration(x), rest @ ..]
                        if *t == ty && *x == d =>
                    {
                        Some((*k, rest.first().and_then(literal).unwrap_or(0)))
                    }
                    _ => None,
                })
                .collect()
        };
        if !member_decos(Decoration::BuiltIn).is_empty() {
            return Some(Vec::new());
        }
        let own = member_decos(Decoration::Location);
        let mut next = self.decoration(var, Decoration::Location).flatten();
        let mut out = Vec::new();
        for (k, m) in members.iter().enumerate() {
            let Some(at) = own.get(&(k as u32)).copied().or(next) else {
                out.push(Vec::new());
                continue;
            };
            let n = self.locations(*m);
            out.push(location_span(at, n));
            next = Some(at.saturating_add(n));
        }
        Some(out)
    }

    /// The entry point's `Input` variables with a location: (variable,
    /// pointee type, location).
    fn located_inputs(&self) -> Vec<(Word, Word, u32)> {
        self.interface_globals(StorageClass::Input)
            .into_iter()
            .filter_map(|(var, ty)| Some((var, ty, self.decoration(var, Decoration::Location)??)))
            .collect()
    }

    /// The inputs at `loc`; an error if an input taking several
    /// locations covers it.
    fn inputs_at(&self, loc: u32) -> Result<Vec<Input>> {
        let mut out = Vec::new();
        for (var, ty, at) in self.located_inputs() {
            let n = self.locations(ty);
            if at == loc {
                let num = self.num(ty).ok_or_else(|| {
                    Error::new(format!(
                        "SPIR-V vertex fix-up: the input %{var} at location {loc} is an array, \
                         matrix or struct, which a fetch fix-up cannot convert"
                    ))
                })?;
                let component = self.decoration(var, Decoration::Component).flatten();
                out.push(Input {
                    var,
                    ty,
                    num,
                    component: component.unwrap_or(0),
                });
            } else if at < loc && loc - at < n {
                return Err(Error::new(format!(
                    "SPIR-V vertex fix-up: location {loc} is inside the input %{var} (locations \
                     {at} to {}), which a fetch fix-up cannot convert",
                    at + n - 1
                )));
            }
        }
        Ok(out)
    }

    fn fixup(&mut self, f: &FetchFixup) -> Result<()> {
        let loc = f.location;
        let inputs = self.inputs_at(loc)?;
        if inputs.is_empty() {
            return Ok(());
        }
        if !self.done.insert(loc) {
            return Err(Error::new(format!(
                "SPIR-V vertex fix-up: two fix-ups for location {loc}"
            )));
        }
        if f.fixup == VertexFixup::Split64 {
            return self.split64(f, &inputs);
        }
        for i in &inputs {
            if i.component > 3 || i.num.comps > 4 || i.component + i.num.comps > 4 {
                return Err(Error::new(format!(
                    "SPIR-V vertex fix-up: the input %{} at location {loc} reaches past \
                     component 3",
                    i.var
                )));
            }
            if !i.num.float || i.num.bits != 32 {
                return Err(Error::new(format!(
                    "SPIR-V vertex fix-up: the input %{} at location {loc} must be 32-bit float \
                     for {}",
                    i.var,
                    f.fixup.name()
                )));
            }
        }
        let width = inputs
            .iter()
            .map(|i| i.component + i.num.comps)
            .max()
            .unwrap_or(4)
            .min(4);
        let have = if f.comps == 0 {
            width
        } else {
            u32::from(f.comps).min(width)
        };
        use VertexFixup as V;
        let signed = f.fixup.is_signed();
        let raw_num = match f.fixup {
            V::SwapRb => Num::float(32, 4),
            V::Uscaled | V::Unorm32 => Num::int(false, 32, have),
            V::Sscaled | V::Snorm32 | V::Fixed32 => Num::int(true, 32, have),
            V::Double => Num::int(false, 32, 2 * have.min(2)),
            _ => Num::int(false, 32, 1),
        };
        let ignore: Vec<Word> = inputs.iter().map(|i| i.var).collect();
        let raw = self.add_input(raw_num, loc, &ignore)?;
        let hi = if f.fixup == V::Double && have > 2 {
            let at = f.upper.ok_or_else(|| {
                Error::new(format!(
                    "SPIR-V vertex fix-up double: location {loc} has {have} components and no \
                     upper location"
                ))
            })?;
            Some(self.add_input(Num::int(false, 32, 2 * (have - 2)), at, &ignore)?)
        } else {
            None
        };
        let x = self.load(raw_num, raw);
        let hi = hi.map(|h| {
            let n = Num::int(false, 32, 2 * (have - 2));
            (self.load(n, h), n)
        });
        if f.fixup == V::Double {
            self.capability(Capability::Float64);
        }
        let f32t = Num::float(32, 1);
        let mut comps = Vec::with_capacity(4);
        for i in 0..width {
            let c = if i >= have {
                self.konst(f32t, u64::from(if i == 3 { 1.0f32 } else { 0.0 }.to_bits()))
            } else {
                self.convert(f.fixup, signed, (x, raw_num), hi, i)
            };
            comps.push(c);
        }
        for i in &inputs {
            let mine = &comps[i.component as usize..(i.component + i.num.comps) as usize];
            let v = self.construct(i.ty, i.num, mine);
            self.privatize(i.var, i.ty, StorageClass::Input, Some(v))?;
        }
        Ok(())
    }

    /// [`VertexFixup::Split64`]: the 64-bit input becomes 32-bit unsigned
    /// pairs, as `passes::gl` does it for the IR.
    fn split64(&mut self, f: &FetchFixup, inputs: &[Input]) -> Result<()> {
        let loc = f.location;
        let [i] = inputs else {
            return Err(Error::new(format!(
                "SPIR-V vertex fix-up split64: location {loc} holds {} inputs; a 64-bit one \
                 takes it whole",
                inputs.len()
            )));
        };
        let n = i.num;
        if n.bits != 64 || n.comps > 4 {
            return Err(Error::new(format!(
                "SPIR-V vertex fix-up split64: the input %{} at location {loc} must be 64-bit",
                i.var
            )));
        }
        if n.comps > 2 && f.comps != 0 && f.upper.is_none() {
            return Err(Error::new(format!(
                "SPIR-V vertex fix-up split64: the input %{} at location {loc} takes two \
                 locations, and its element one (not dual_slot)",
                i.var
            )));
        }
        let have = if f.comps == 0 {
            n.comps
        } else {
            u32::from(f.comps).min(n.comps)
        };
        let lo_num = Num::int(false, 32, 2 * have.min(2));
        let lo = self.add_input(lo_num, loc, &[i.var])?;
        let hi = if have > 2 {
            let at = match f.upper {
                Some(at) => at,
                None => loc.checked_add(1).ok_or_else(|| {
                    Error::new("SPIR-V vertex fix-up split64: location out of range")
                })?,
            };
            let hi_num = Num::int(false, 32, 2 * (have - 2));
            let h = self.add_input(hi_num, at, &[i.var])?;
            Some(self.load(hi_num, h))
        } else {
            None
        };
        let lo = self.load(lo_num, lo);
        let one = Num { comps: 1, ..n };
        let pair_num = Num::int(false, 32, 2);
        let mut comps = Vec::with_capacity(4);
        for k in 0..n.comps {
            let c = if k >= have {
                let bits = match (k, n.float) {
                    (3, true) => 1.0f64.to_bits(),
                    (3, false) => 1,
                    _ => 0,
                };
                self.konst(one, bits)
            } else {
                let (src, src_num, at) = match (k < 2, hi) {
                    (true, _) | (false, None) => (lo, lo_num, 2 * (k % 2)),
                    (false, Some(h)) => (h, Num::int(false, 32, 2 * (have - 2)), 2 * (k - 2)),
                };
                let pair = self.shuffle(pair_num, (src, src_num), &[at, at + 1]);
                let t = self.ty(one);
                self.op(Op::Bitcast, t, vec![Operand::IdRef(pair)])
            };
            comps.push(c);
        }
        let v = self.construct(i.ty, n, &comps);
        self.privatize(i.var, i.ty, StorageClass::Input, Some(v))
    }

    /// Converts component `i` of the fetched attribute (`x`, and `hi` for
    /// a double's components 2 and 3) to GL's float, as
    /// `passes::gl::fetch_attr` does.
    fn convert(
        &mut self,
        fix: VertexFixup,
        signed: bool,
        (x, xn): (Word, Num),
        hi: Option<(Word, Num)>,
        i: u32,
    ) -> Word {
        use VertexFixup as V;
        let f32t = Num::float(32, 1);
        let st = Num::int(signed, 32, 1);
        let to_float = if signed {
            Op::ConvertSToF
        } else {
            Op::ConvertUToF
        };
        let ft = self.ty(f32t);
        match fix {
            V::SwapRb => self.extract(f32t, (x, xn), [2, 1, 0, 3][i as usize]),
            V::Split64 => self.konst(f32t, 0),
            V::Uscaled | V::Sscaled => {
                let c = self.extract(st, (x, xn), i);
                self.op(to_float, ft, vec![Operand::IdRef(c)])
            }
            V::Unorm32 | V::Snorm32 | V::Fixed32 => {
                let scale = match fix {
                    V::Unorm32 => 1.0 / 4_294_967_295.0f64,
                    V::Snorm32 => 1.0 / 2_147_483_647.0f64,
                    _ => 1.0 / 65536.0,
                } as f32;
                let c = self.extract(st, (x, xn), i);
                let f = self.op(to_float, ft, vec![Operand::IdRef(c)]);
                let k = self.konst(f32t, u64::from(scale.to_bits()));
                let v = self.op(Op::FMul, ft, vec![Operand::IdRef(f), Operand::IdRef(k)]);
                if fix == V::Snorm32 {
                    self.fmax_minus_one(v)
                } else {
                    v
                }
            }
            V::Double => {
                // Three or four components always have the upper input.
                let (src, src_n, at) = match (i < 2, hi) {
                    (false, Some((h, hn))) => (h, hn, 2 * (i - 2)),
                    _ => (x, xn, 2 * (i % 2)),
                };
                let pair = self.shuffle(Num::int(false, 32, 2), (src, src_n), &[at, at + 1]);
                let dt = self.ty(Num::float(64, 1));
                let d = self.op(Op::Bitcast, dt, vec![Operand::IdRef(pair)]);
                self.op(Op::FConvert, ft, vec![Operand::IdRef(d)])
            }
            V::A2b10g10r10Unorm
            | V::A2b10g10r10Snorm
            | V::A2b10g10r10Uscaled
            | V::A2b10g10r10Sscaled
            | V::A2r10g10b10Unorm
            | V::A2r10g10b10Snorm
            | V::A2r10g10b10Uscaled
            | V::A2r10g10b10Sscaled => {
                let (normalized, bgra) = fix.packed().unwrap_or_default();
                let field = match (bgra, i) {
                    (true, 0) => 2,
                    (true, 2) => 0,
                    _ => i,
                };
                let bits: u32 = if field == 3 { 2 } else { 10 };
                let it = Num::int(true, 32, 1);
                let off = self.konst(it, u64::from(10 * field));
                let cnt = self.konst(it, u64::from(bits));
                let (src, extract) = if signed {
                    let t = self.ty(it);
                    let si = self.op(Op::Bitcast, t, vec![Operand::IdRef(x)]);
                    (si, Op::BitFieldSExtract)
                } else {
                    (x, Op::BitFieldUExtract)
                };
                let t = self.ty(st);
                let v = self.op(
                    extract,
                    t,
                    vec![
                        Operand::IdRef(src),
                        Operand::IdRef(off),
                        Operand::IdRef(cnt),
                    ],
                );
                let vf = self.op(to_float, ft, vec![Operand::IdRef(v)]);
                let scale = |b: u32| {
                    if signed {
                        (1 << (b - 1)) - 1
                    } else {
                        (1 << b) - 1
                    }
                };
                if !normalized {
                    return vf;
                }
                let k = self.konst(f32t, u64::from((1.0 / scale(bits) as f32).to_bits()));
                let m = self.op(Op::FMul, ft, vec![Operand::IdRef(vf), Operand::IdRef(k)]);
                if signed {
                    self.fmax_minus_one(m)
                } else {
                    m
                }
            }
        }
    }

    /// The module's `GLSL.std.450` import, found or added.
    fn glsl_set(&mut self) -> Word {
        match self.glsl {
            Some(s) => s,
            None => {
                let s = self.b.ext_inst_import("GLSL.std.450");
                self.glsl = Some(s);
                s
            }
        }
    }

    /// `max(v, -1.0)` (SNORM's clamp).
    fn fmax_minus_one(&mut self, v: Word) -> Word {
        let f32t = Num::float(32, 1);
        let lo = self.konst(f32t, u64::from((-1.0f32).to_bits()));
        let set = self.glsl_set();
        let ft = self.ty(f32t);
        self.op(
            Op::ExtInst,
            ft,
            vec![
                Operand::IdRef(set),
                Operand::LiteralExtInstInteger(GLSL_FMAX),
                Operand::IdRef(v),
                Operand::IdRef(lo),
            ],
        )
    }

    fn capability(&mut self, c: Capability) {
        let has = self
            .module()
            .capabilities
            .iter()
            .any(|i| i.operands.first() == Some(&Operand::Capability(c)));
        if !has {
            self.b.capability(c);
        }
    }

    /// The type `n`, found or declared.
    fn ty(&mut self, n: Num) -> Word {
        let scalar = if n.float {
            self.b.type_float(n.bits, None)
        } else {
            self.b.type_int(n.bits, u32::from(n.signed))
        };
        if n.comps == 1 {
            scalar
        } else {
            self.b.type_vector(scalar, n.comps)
        }
    }

    /// A scalar constant of type `n` with the bits `v`.
    fn konst(&mut self, n: Num, v: u64) -> Word {
        let t = self.ty(n);
        if n.bits == 64 {
            self.b.constant_bit64(t, v)
        } else {
            self.b.constant_bit32(t, v as u32)
        }
    }

    /// A new `OpConstantNull` of type `ty`.
    fn null(&mut self, ty: Word) -> Word {
        let id = self.b.id();
        self.b
            .module_mut()
            .types_global_values
            .push(Instruction::new(
                Op::ConstantNull,
                Some(ty),
                Some(id),
                vec![],
            ));
        id
    }

    /// Appends `op` (result type `ty`, id operands `args`) to `code`;
    /// returns its result.
    fn emit(&mut self, code: &mut Vec<Instruction>, op: Op, ty: Word, args: &[Word]) -> Word {
        let id = self.b.id();
        code.push(Instruction::new(
            op,
            Some(ty),
            Some(id),
            args.iter().map(|&a| Operand::IdRef(a)).collect(),
        ));
        id
    }

    /// Appends `op` to the entry code; returns its result.
    fn op(&mut self, op: Op, ty: Word, operands: Vec<Operand>) -> Word {
        let id = self.b.id();
        self.code
            .push(Instruction::new(op, Some(ty), Some(id), operands));
        id
    }

    fn load(&mut self, n: Num, var: Word) -> Word {
        let t = self.ty(n);
        self.op(Op::Load, t, vec![Operand::IdRef(var)])
    }

    /// Component `i` (a scalar of type `scalar`) of `v`, of type `vn`.
    fn extract(&mut self, scalar: Num, (v, vn): (Word, Num), i: u32) -> Word {
        if vn.comps == 1 {
            return v;
        }
        let t = self.ty(scalar);
        self.op(
            Op::CompositeExtract,
            t,
            vec![Operand::IdRef(v), Operand::LiteralBit32(i)],
        )
    }

    fn shuffle(&mut self, out: Num, (v, vn): (Word, Num), at: &[u32]) -> Word {
        if vn.comps == out.comps && at.iter().enumerate().all(|(k, &a)| k as u32 == a) {
            return v;
        }
        let t = self.ty(out);
        let mut ops = vec![Operand::IdRef(v), Operand::IdRef(v)];
        ops.extend(at.iter().map(|&a| Operand::LiteralBit32(a)));
        self.op(Op::VectorShuffle, t, ops)
    }

    /// A value of type `ty` (`n`) from its scalar components.
    fn construct(&mut self, ty: Word, n: Num, comps: &[Word]) -> Word {
        if n.comps == 1 {
            return comps[0];
        }
        self.op(
            Op::CompositeConstruct,
            ty,
            comps.iter().map(|&c| Operand::IdRef(c)).collect(),
        )
    }

    /// The interpolation decorations (and `Component`,
    /// `RelaxedPrecision`) of the input `var`, and with `member` (its
    /// block type and index) that member's: what an input taking part of
    /// it keeps.
    fn interface_decorations(
        &self,
        var: Word,
        member: Option<(Word, u32)>,
    ) -> Vec<(Decoration, Vec<Operand>)> {
        self.module()
            .annotations
            .iter()
            .filter_map(|a| match (a.class.opcode, a.operands.as_slice()) {
                (
                    Op::MemberDecorate,
                    [Operand::IdRef(t), Operand::LiteralBit32(m), Operand::Decoration(d), rest @ ..],
                ) if member == Some((*t, *m)) => Some((*d, rest.to_vec())),
                (Op::Decorate, [Operand::IdRef(t), Operand::Decoration(d), rest @ ..])
                    if *t == var =>
                {
                    Some((*d, rest.to_vec()))
                }
                _ => None,
            })
            .filter(|(d, _)| {
                matches!(
                    d,
                    Decoration::Flat
                        | Decoration::NoPerspective
                        | Decoration::Centroid
                        | Decoration::Sample
                        | Decoration::Component
                        | Decoration::RelaxedPrecision
                )
            })
            // Once each (the variable's and the member's may repeat).
            .fold(Vec::new(), |mut out, d| {
                if !out.iter().any(|(x, _)| *x == d.0) {
                    out.push(d);
                }
                out
            })
    }

    /// Whether the entry point's code interpolates `var` (or a part of
    /// it) with GLSL.std.450's `InterpolateAt*` (76..=78).
    fn interpolated(&self, var: Word) -> bool {
        self.interpolation_count(var) > 0
    }

    /// The value, built in the entry code, of an input part of type `ty`
    /// at locations `locs` (in order; an array's one per element): zero
    /// where every location is `unwritten`, else a load of a new input
    /// at its first location with the decorations `decos`, or, for an
    /// array written in part, its elements' values.
    fn rebuilt_input(
        &mut self,
        ty: Word,
        locs: &[u32],
        unwritten: &dyn Fn(u32) -> bool,
        decos: &[(Decoration, Vec<Operand>)],
    ) -> Word {
        if locs.iter().all(|&l| unwritten(l)) {
            return self.null(ty);
        }
        // An array (of elements taking the same number of locations
        // each) or a matrix (a location per column): part by part.
        let parts = self.array_of(ty).or_else(|| self.columns_of(ty));
        if let Some((elem, n)) =
            parts.filter(|&(_, n)| n > 0 && locs.len().is_multiple_of(n as usize))
        {
            let per = locs.len() / n as usize;
            let parts: Vec<Word> = locs
                .chunks(per)
                .map(|chunk| self.rebuilt_input(elem, chunk, unwritten, decos))
                .collect();
            return self.op(
                Op::CompositeConstruct,
                ty,
                parts.into_iter().map(Operand::IdRef).collect(),
            );
        }
        // A struct (a block's struct member, an element of an array of
        // blocks): member by member, each with the struct's
        // interpolation decorations of it added.
        if let Some(members) = self.struct_members(ty) {
            if let Some(spans) = self.sequential_members(ty, &members, locs.len()) {
                let mut parts = Vec::new();
                for (k, (&m, (at, n))) in members.iter().zip(spans).enumerate() {
                    let mut d = decos.to_vec();
                    for x in self.interface_decorations(0, Some((ty, k as u32))) {
                        if !d.iter().any(|(e, _)| *e == x.0) {
                            d.push(x);
                        }
                    }
                    parts.push(self.rebuilt_input(m, &locs[at..at + n], unwritten, &d));
                }
                return self.op(
                    Op::CompositeConstruct,
                    ty,
                    parts.into_iter().map(Operand::IdRef).collect(),
                );
            }
        }
        // A 64-bit vector of three or four components written in one of
        // its two locations: an input of its first two components, or of
        // the rest, and zeros in the other.
        if let Some(n) = self.wide_vector(ty).filter(|_| locs.len() == 2) {
            if locs.iter().any(|&l| unwritten(l)) {
                let halves = [
                    Num { comps: 2, ..n },
                    Num {
                        comps: n.comps - 2,
                        ..n
                    },
                ];
                let parts: Vec<Word> = halves
                    .into_iter()
                    .zip(locs)
                    .map(|(h, &l)| {
                        let t = self.ty(h);
                        self.rebuilt_input(t, &[l], unwritten, decos)
                    })
                    .collect();
                return self.op(
                    Op::CompositeConstruct,
                    ty,
                    parts.into_iter().map(Operand::IdRef).collect(),
                );
            }
        }
        self.new_input(ty, locs[0], decos).1
    }

    /// A new input of type `ty` at `location` with the decorations
    /// `decos`, and its value, loaded in the entry code.
    fn new_input(
        &mut self,
        ty: Word,
        location: u32,
        decos: &[(Decoration, Vec<Operand>)],
    ) -> (Word, Word) {
        let input = self.add_variable(StorageClass::Input, ty);
        self.b.decorate(
            input,
            Decoration::Location,
            [Operand::LiteralBit32(location)],
        );
        for (d, rest) in decos {
            self.b.decorate(input, *d, rest.clone());
        }
        let v = self.b.id();
        self.code.push(Instruction::new(
            Op::Load,
            Some(ty),
            Some(v),
            vec![Operand::IdRef(input)],
        ));
        (input, v)
    }

    /// Replaces each interpolation of `sites` (back to front, so the
    /// positions stay good) with the code `make` gives for it, from the
    /// site, the instruction and its (result type, result id).
    fn replace_interpolations(
        &mut self,
        sites: Vec<ElementInterpolation>,
        make: &mut InterpolationRewrite<'_>,
    ) -> Result<()> {
        for site in sites.into_iter().rev() {
            let (f, b, i) = (site.f, site.b, site.i);
            let x = self.module().functions[f].blocks[b].instructions[i].clone();
            let (Some(t), Some(result)) = (x.result_type, x.result_id) else {
                continue;
            };
            let code = make(self, &site, &x, (t, result))?;
            let insts = &mut self.b.module_mut().functions[f].blocks[b].instructions;
            insts.splice(i..=i, code);
        }
        Ok(())
    }

    /// Appends to `code` the interpolation `x` (at `site`) of the new
    /// input `input` instead of its interpolant (a chain from the old
    /// input: into `input` with the same indices after the first), with
    /// result `result`.
    fn interpolate_from(
        &mut self,
        site: &ElementInterpolation,
        x: &Instruction,
        input: Word,
        result: Word,
        code: &mut Vec<Instruction>,
    ) -> Result<()> {
        let ptr = self.interpolant_in(site.f, x, input, &site.rest, code)?;
        let mut ops = x.operands.clone();
        ops[2] = Operand::IdRef(ptr);
        code.push(Instruction::new(
            Op::ExtInst,
            x.result_type,
            Some(result),
            ops,
        ));
        Ok(())
    }

    /// The pointer an interpolation `x` (of function `f`) takes in place
    /// of its interpolant, a chain from the old input with the indices
    /// `rest` after the first: `input`, or a chain into it with `rest`,
    /// appended to `code`.
    fn interpolant_in(
        &mut self,
        f: usize,
        x: &Instruction,
        input: Word,
        rest: &[Operand],
        code: &mut Vec<Instruction>,
    ) -> Result<Word> {
        if rest.is_empty() {
            return Ok(input);
        }
        let chain = x.operands.get(2).cloned();
        let pt = self.module().functions[f]
            .blocks
            .iter()
            .flat_map(|bl| &bl.instructions)
            .find(|c| c.result_id.map(Operand::IdRef) == chain)
            .and_then(|c| c.result_type)
            .ok_or_else(|| Error::new("SPIR-V zero inputs: an interpolant has no type"))?;
        let id = self.b.id();
        let mut ops = vec![Operand::IdRef(input)];
        ops.extend(rest.iter().cloned());
        code.push(Instruction::new(Op::AccessChain, Some(pt), Some(id), ops));
        Ok(id)
    }

    /// The interpolations (GLSL.std.450's `InterpolateAt*`) of `var`'s
    /// elements whose interpolant is an access chain with `var` as its
    /// base.
    fn element_interpolations(&self, var: Word) -> Vec<ElementInterpolation> {
        let Some(glsl) = self.glsl else {
            return Vec::new();
        };
        let mut chains: HashMap<Word, (Word, Vec<Operand>)> = HashMap::new();
        let mut out = Vec::new();
        for (f, func) in self.module().functions.iter().enumerate() {
            for (b, block) in func.blocks.iter().enumerate() {
                for (i, x) in block.instructions.iter().enumerate() {
                    let chain = matches!(x.class.opcode, Op::AccessChain | Op::InBoundsAccessChain)
                        && x.operands.first() == Some(&Operand::IdRef(var));
                    if let (true, Some(id), Some(Operand::IdRef(k))) =
                        (chain, x.result_id, x.operands.get(1))
                    {
                        chains.insert(id, (*k, x.operands[2..].to_vec()));
                    }
                    let interp = x.class.opcode == Op::ExtInst
                        && x.operands.first() == Some(&Operand::IdRef(glsl))
                        && matches!(
                            x.operands.get(1),
                            Some(Operand::LiteralExtInstInteger(76..=78))
                        );
                    if !interp {
                        continue;
                    }
                    let Some(Operand::IdRef(ptr)) = x.operands.get(2) else {
                        continue;
                    };
                    if let Some((index, rest)) = chains.get(ptr) {
                        out.push(ElementInterpolation {
                            f,
                            b,
                            i,
                            index: *index,
                            rest: rest.clone(),
                        });
                    }
                }
            }
        }
        out
    }

    /// Whether every interpolation of `var` (an interface variable of
    /// type `ty` at `locs`) takes an element of it directly, and it is
    /// an array of 32-bit float scalars or vectors, one location each:
    /// what [`Patcher::rebuild_interpolated`] rebuilds.
    fn interpolated_elements(&self, var: Word, ty: Word, locs: &[u32]) -> bool {
        let Some((elem, n)) = self.array_of(ty) else {
            return false;
        };
        let float32 = self.num(elem).is_some_and(|x| x.float && x.bits == 32);
        let sites = self.element_interpolations(var);
        // 32-bit indices, which the selection compares with its own.
        let int32 = sites.iter().all(|x| {
            self.type_of(x.f, x.index)
                .and_then(|t| self.num(t))
                .is_some_and(|x| !x.float && x.bits == 32 && x.comps == 1)
        });
        let direct = sites.len();
        // Every interpolation found from any pointer derived from `var`
        // must be one of the direct ones.
        let all = self.interpolation_count(var);
        float32 && int32 && n as usize == locs.len() && direct == all && all > 0
    }

    /// For a block `var` of type `ty` whose every interpolation takes a
    /// member directly (`InterpolateAt*(blk.m)`, or a chain on into the
    /// member) and whose members [`Patcher::rebuild_interpolated_block`]
    /// can rebuild, each member's type, locations and whether it is
    /// interpolated. An interpolated member must be written or unwritten
    /// whole: its interpolations then take its own input, or read zero.
    fn interpolated_members(
        &self,
        var: Word,
        ty: Word,
        unwritten: &dyn Fn(u32) -> bool,
    ) -> Option<Vec<(Word, Vec<u32>, bool)>> {
        let types = self.struct_members(ty)?;
        let locs = self.member_locations(var, ty)?;
        if locs.iter().any(Vec::is_empty) || locs.len() != types.len() {
            return None;
        }
        let sites = self.element_interpolations(var);
        if sites.is_empty() || sites.len() != self.interpolation_count(var) {
            return None;
        }
        let mut interpolated = vec![false; types.len()];
        for x in &sites {
            let k = self.member_index(x.index)?;
            *interpolated.get_mut(k)? = true;
        }
        let plan: Vec<(Word, Vec<u32>, bool)> = types
            .into_iter()
            .zip(locs)
            .zip(interpolated)
            .map(|((t, l), i)| (t, l, i))
            .collect();
        let ok = plan.iter().all(|(t, l, i)| {
            if *i {
                l.iter().all(|&x| unwritten(x)) || !l.iter().any(|&x| unwritten(x))
            } else {
                self.rebuildable(*t, l, unwritten)
            }
        });
        ok.then_some(plan)
    }

    /// The member a constant index `id` names (an `OpConstant`).
    fn member_index(&self, id: Word) -> Option<usize> {
        let c = self.global(id).filter(|c| c.class.opcode == Op::Constant)?;
        c.operands.first().and_then(literal).map(|v| v as usize)
    }

    /// Rebuilds a block input written in part whose interpolations take
    /// members directly (`plan`, from [`Patcher::interpolated_members`]):
    /// an interpolated member that is written becomes an input of its
    /// own, which its interpolations now take (a chain on into it made
    /// anew); one that is not reads zero, interpolated or not; the other
    /// members as [`Patcher::rebuilt_input`] rebuilds them. The block is
    /// then a private variable built from them at entry.
    fn rebuild_interpolated_block(
        &mut self,
        var: Word,
        ty: Word,
        plan: &[(Word, Vec<u32>, bool)],
        unwritten: &dyn Fn(u32) -> bool,
    ) -> Result<()> {
        let sites = self.element_interpolations(var);
        let mut parts = Vec::new();
        let mut inputs: Vec<Option<Word>> = vec![None; plan.len()];
        for (k, (mty, locs, interpolated)) in plan.iter().enumerate() {
            // Interpolation, as the member or the block had it.
            let decos = self.interface_decorations(var, Some((ty, k as u32)));
            if !*interpolated || locs.iter().all(|&l| unwritten(l)) {
                parts.push(self.rebuilt_input(*mty, locs, unwritten, &decos));
                continue;
            }
            let (input, v) = self.new_input(*mty, locs[0], &decos);
            inputs[k] = Some(input);
            parts.push(v);
        }
        let value = self.op(
            Op::CompositeConstruct,
            ty,
            parts.into_iter().map(Operand::IdRef).collect(),
        );
        self.replace_interpolations(sites, &mut |p, site, x, (t, result)| {
            let member = p
                .member_index(site.index)
                .ok_or_else(|| Error::new("SPIR-V zero inputs: a member index is not constant"))?;
            Ok(match inputs.get(member).copied().flatten() {
                // Unwritten: the interpolation reads zero.
                None => {
                    let zero = p.null(t);
                    vec![Instruction::new(
                        Op::CopyObject,
                        Some(t),
                        Some(result),
                        vec![Operand::IdRef(zero)],
                    )]
                }
                Some(input) => {
                    let mut code = Vec::new();
                    p.interpolate_from(site, x, input, result, &mut code)?;
                    code
                }
            })
        })?;
        self.privatize(var, ty, StorageClass::Input, Some(value))
    }

    /// The interpolations of `var` or any pointer derived from it.
    fn interpolation_count(&self, var: Word) -> usize {
        let Some(glsl) = self.glsl else { return 0 };
        let mut derived: HashSet<Word> = HashSet::from_iter([var]);
        let insts = || {
            self.module()
                .functions
                .iter()
                .flat_map(|f| &f.blocks)
                .flat_map(|b| &b.instructions)
        };
        for i in insts() {
            let chain = matches!(
                i.class.opcode,
                Op::AccessChain | Op::InBoundsAccessChain | Op::CopyObject
            ) && matches!(i.operands.first(), Some(Operand::IdRef(b)) if derived.contains(b));
            if let (true, Some(id)) = (chain, i.result_id) {
                derived.insert(id);
            }
        }
        insts()
            .filter(|i| {
                i.class.opcode == Op::ExtInst
                    && i.operands.first() == Some(&Operand::IdRef(glsl))
                    && matches!(
                        i.operands.get(1),
                        Some(Operand::LiteralExtInstInteger(76..=78))
                    )
                    && matches!(i.operands.get(2), Some(Operand::IdRef(p)) if derived.contains(p))
            })
            .count()
    }

    /// Rebuilds the interpolated array `var` (see
    /// [`Patcher::interpolated_elements`]) written in part: each written
    /// element becomes an input of its own, the array a private
    /// variable built from them and zeros at entry, and each
    /// interpolation of `var[index]` (`...rest`) interpolates every
    /// written element's input, `index == k` selecting element k's
    /// (zero where none is).
    fn rebuild_interpolated(
        &mut self,
        var: Word,
        ty: Word,
        locs: &[u32],
        unwritten: &dyn Fn(u32) -> bool,
    ) -> Result<()> {
        let Some((elem, _)) = self.array_of(ty) else {
            return Ok(());
        };
        let sites = self.element_interpolations(var);
        let decos = self.interface_decorations(var, None);
        let mut parts = Vec::new();
        let mut values = Vec::new();
        for &l in locs {
            if unwritten(l) {
                parts.push(None);
                values.push(self.null(elem));
                continue;
            }
            let (input, v) = self.new_input(elem, l, &decos);
            parts.push(Some(input));
            values.push(v);
        }
        let value = self.op(
            Op::CompositeConstruct,
            ty,
            values.into_iter().map(Operand::IdRef).collect(),
        );
        let bool_ty = self.b.type_bool();
        let written: Vec<(usize, Word)> = parts
            .iter()
            .enumerate()
            .filter_map(|(k, p)| p.map(|p| (k, p)))
            .collect();
        let uint = Num {
            float: false,
            signed: false,
            bits: 32,
            comps: 1,
        };
        self.replace_interpolations(sites, &mut |p, site, x, (t, result)| {
            let comps = p.num(t).map_or(1, |n| n.comps);
            let cond_ty = if comps > 1 {
                p.b.type_vector(bool_ty, comps)
            } else {
                bool_ty
            };
            let mut code = Vec::new();
            let mut acc = p.null(t);
            for (n, &(k, part)) in written.iter().enumerate() {
                let interp = p.b.id();
                p.interpolate_from(site, x, part, interp, &mut code)?;
                let kk = p.konst(uint, k as u64);
                let eq = p.emit(&mut code, Op::IEqual, bool_ty, &[site.index, kk]);
                let cond = if comps > 1 {
                    let all = vec![eq; comps as usize];
                    p.emit(&mut code, Op::CompositeConstruct, cond_ty, &all)
                } else {
                    eq
                };
                let select = Instruction::new(
                    Op::Select,
                    Some(t),
                    Some(if n + 1 == written.len() {
                        result
                    } else {
                        p.b.id()
                    }),
                    vec![
                        Operand::IdRef(cond),
                        Operand::IdRef(interp),
                        Operand::IdRef(acc),
                    ],
                );
                acc = select.result_id.unwrap_or(acc);
                code.push(select);
            }
            Ok(code)
        })?;
        self.privatize(var, ty, StorageClass::Input, Some(value))
    }

    /// Whether [`Patcher::rebuilt_input`] can rebuild an input part of
    /// type `ty` at `locs` with new inputs at its written locations only:
    /// it is wholly written or unwritten, or an array, matrix or struct
    /// whose parts are (a struct's members at consecutive locations, none
    /// placing itself: an input of the struct's type would carry a
    /// block's member locations, so it is rebuilt member by member), or a
    /// 64-bit vector spanning two locations.
    fn rebuildable(&self, ty: Word, locs: &[u32], unwritten: &dyn Fn(u32) -> bool) -> bool {
        if locs.iter().all(|&l| unwritten(l)) {
            return true;
        }
        if let Some(members) = self.struct_members(ty) {
            // Member by member, at consecutive locations.
            return match self.sequential_members(ty, &members, locs.len()) {
                Some(spans) => members
                    .iter()
                    .zip(spans)
                    .all(|(&m, (at, n))| self.rebuildable(m, &locs[at..at + n], unwritten)),
                None => false,
            };
        }
        if !locs.iter().any(|&l| unwritten(l)) {
            return true;
        }
        if self.wide_vector(ty).is_some() {
            return locs.len() == 2;
        }
        let parts = self.array_of(ty).or_else(|| self.columns_of(ty));
        match parts.filter(|&(_, n)| n > 0 && locs.len().is_multiple_of(n as usize)) {
            Some((elem, n)) => locs
                .chunks(locs.len() / n as usize)
                .all(|chunk| self.rebuildable(elem, chunk, unwritten)),
            None => false,
        }
    }

    /// The struct `ty`'s members (types `members`) as (first, count)
    /// spans of the `total` locations it takes, each following the one
    /// before: `None` where a member places itself (Location, Component,
    /// BuiltIn) or the spans do not add up to `total`.
    fn sequential_members(
        &self,
        ty: Word,
        members: &[Word],
        total: usize,
    ) -> Option<Vec<(usize, usize)>> {
        let placed = self.module().annotations.iter().any(|a| {
            a.class.opcode == Op::MemberDecorate
                && a.operands.first() == Some(&Operand::IdRef(ty))
                && matches!(
                    a.operands.get(2),
                    Some(Operand::Decoration(
                        Decoration::Location | Decoration::Component | Decoration::BuiltIn
                    ))
                )
        });
        if placed {
            return None;
        }
        let mut at = 0;
        let mut spans = Vec::new();
        for &m in members {
            let n = self.locations(m) as usize;
            spans.push((at, n));
            at += n;
        }
        (at == total).then_some(spans)
    }

    /// `ty` as a 64-bit vector of three or four components, which takes
    /// two locations (its first two components in the first).
    fn wide_vector(&self, ty: Word) -> Option<Num> {
        self.num(ty).filter(|n| n.bits == 64 && n.comps > 2)
    }

    /// An `OpTypeMatrix` `ty`'s column type and column count.
    fn columns_of(&self, ty: Word) -> Option<(Word, u32)> {
        let t = self.global(ty)?;
        match (t.class.opcode, t.operands.as_slice()) {
            (Op::TypeMatrix, [Operand::IdRef(c), Operand::LiteralBit32(n)]) => Some((*c, *n)),
            _ => None,
        }
    }

    /// An `OpTypeArray` `ty`'s element type and length.
    fn array_of(&self, ty: Word) -> Option<(Word, u32)> {
        let t = self.global(ty)?;
        match (t.class.opcode, t.operands.as_slice()) {
            (Op::TypeArray, [Operand::IdRef(e), Operand::IdRef(n)]) => {
                let n = self.global(*n)?.operands.first().and_then(literal)?;
                Some((*e, n))
            }
            _ => None,
        }
    }

    /// A new `Input` variable of type `n` at `loc`, in the interface; an
    /// error if another input (not one of `replacing`) is there.
    fn add_input(&mut self, n: Num, loc: u32, replacing: &[Word]) -> Result<Word> {
        for (var, ty, at) in self.located_inputs() {
            if replacing.contains(&var) {
                continue;
            }
            if (at..at.saturating_add(self.locations(ty))).contains(&loc) {
                return Err(Error::new(format!(
                    "SPIR-V vertex fix-up: location {loc}, for a fetched attribute, is taken \
                     by the input %{var}"
                )));
            }
        }
        let t = self.ty(n);
        let var = self.add_variable(StorageClass::Input, t);
        self.b
            .decorate(var, Decoration::Location, [Operand::LiteralBit32(loc)]);
        self.decorations
            .entry(var)
            .or_default()
            .push((Decoration::Location, Some(loc)));
        Ok(var)
    }

    /// A new global variable of storage `class` and type `ty`, in the
    /// entry point's interface where SPIR-V lists it there (inputs and
    /// outputs; every global from SPIR-V 1.4).
    fn add_variable(&mut self, class: StorageClass, ty: Word) -> Word {
        let ptr = self.b.type_pointer(None, class, ty);
        let var = self.b.id();
        self.b
            .module_mut()
            .types_global_values
            .push(Instruction::new(
                Op::Variable,
                Some(ptr),
                Some(var),
                vec![Operand::StorageClass(class)],
            ));
        if self.private_in_interface || matches!(class, StorageClass::Input | StorageClass::Output)
        {
            let entry = self.entry;
            self.b.module_mut().entry_points[entry]
                .operands
                .push(Operand::IdRef(var));
        }
        var
    }

    /// Turns the interface variable `var` (pointee `ty`) of storage
    /// `class` into a `Private` variable, which the entry code
    /// initializes with `value` when given (an input's replacement; an
    /// output needs none, nothing reading it).
    fn privatize(
        &mut self,
        var: Word,
        ty: Word,
        class: StorageClass,
        value: Option<Word>,
    ) -> Result<()> {
        let private = self.b.type_pointer(None, StorageClass::Private, ty);
        // Pointer types by pointee, found or added as the retyping needs
        // them.
        let mut pointers: HashMap<Word, Word> = HashMap::new();
        let class_pointees: HashMap<Word, Word> = self
            .module()
            .types_global_values
            .iter()
            .filter(|i| i.class.opcode == Op::TypePointer)
            .filter_map(|i| match i.operands.as_slice() {
                [Operand::StorageClass(c), Operand::IdRef(t)] if *c == class => {
                    Some((i.result_id?, *t))
                }
                _ => None,
            })
            .collect();
        for (_, &pointee) in class_pointees.iter() {
            let p = self.b.type_pointer(None, StorageClass::Private, pointee);
            pointers.insert(pointee, p);
        }
        let private_in_interface = self.private_in_interface;
        let glsl = self.glsl;
        let m = self.b.module_mut();
        // The variable stays where it is (non-semantic debug info after it
        // may name it); its pointer type, when new, moves in front of it.
        let globals = &mut m.types_global_values;
        if let Some(at) = globals.iter().position(|i| i.result_id == Some(var)) {
            globals[at].result_type = Some(private);
            globals[at].operands = vec![Operand::StorageClass(StorageClass::Private)];
            if let Some(p) = globals.iter().position(|i| i.result_id == Some(private)) {
                if p > at {
                    let t = globals.remove(p);
                    globals.insert(at, t);
                }
            }
        }
        // A private variable keeps only RelaxedPrecision of its
        // decorations (interface ones such as Location, interpolation,
        // Invariant, Xfb would be invalid on it); group decorations stop
        // applying to it.
        m.annotations.retain(|a| {
            let on_var = matches!(
                a.class.opcode,
                Op::Decorate | Op::DecorateId | Op::DecorateString
            ) && a.operands.first() == Some(&Operand::IdRef(var));
            !on_var || a.operands.get(1) == Some(&Operand::Decoration(Decoration::RelaxedPrecision))
        });
        for a in &mut m.annotations {
            if a.class.opcode == Op::GroupDecorate {
                let mut k = 0;
                // Operand 0 is the group, the rest its targets.
                a.operands.retain(|o| {
                    k += 1;
                    k == 1 || *o != Operand::IdRef(var)
                });
            }
        }
        m.annotations
            .retain(|a| a.class.opcode != Op::GroupDecorate || a.operands.len() > 1);
        if !private_in_interface {
            for ep in &mut m.entry_points {
                ep.operands.retain(|o| *o != Operand::IdRef(var));
            }
        }
        // Retype the pointers derived from `var`, to a fixed point.
        let mut derived: HashSet<Word> = HashSet::from_iter([var]);
        loop {
            let mut changed = false;
            for f in &mut m.functions {
                for b in &mut f.blocks {
                    for i in &mut b.instructions {
                        let from_var = matches!(
                            i.class.opcode,
                            Op::AccessChain | Op::InBoundsAccessChain | Op::CopyObject
                        ) && matches!(i.operands.first(), Some(Operand::IdRef(base)) if derived.contains(base));
                        if !from_var {
                            continue;
                        }
                        let Some(id) = i.result_id else { continue };
                        if derived.insert(id) {
                            changed = true;
                        }
                        if let Some(p) = i
                            .result_type
                            .and_then(|t| class_pointees.get(&t))
                            .and_then(|t| pointers.get(t))
                        {
                            i.result_type = Some(*p);
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
        // GLSL.std.450's InterpolateAtCentroid, AtSample and AtOffset
        // (76, 77, 78) take an input pointer; of a variable now private
        // (an input nothing writes, zero), they become plain loads.
        for f in &mut m.functions {
            for b in &mut f.blocks {
                for i in &mut b.instructions {
                    let interp = i.class.opcode == Op::ExtInst
                        && glsl.is_some()
                        && i.operands.first() == glsl.map(Operand::IdRef).as_ref()
                        && matches!(
                            i.operands.get(1),
                            Some(Operand::LiteralExtInstInteger(76..=78))
                        )
                        && matches!(i.operands.get(2), Some(Operand::IdRef(p)) if derived.contains(p));
                    if interp {
                        let ptr = i.operands[2].clone();
                        *i = Instruction::new(Op::Load, i.result_type, i.result_id, vec![ptr]);
                    }
                }
            }
        }
        // What may use those pointers: loads, stores and copies, and the
        // access chains retyped above (non-semantic debug info is out of
        // the module while it is patched, see `debug`). Anything else (which spirv-val rejects for an
        // interface variable in the first place) is refused.
        for f in &m.functions {
            for b in &f.blocks {
                for i in &b.instructions {
                    let ok = matches!(
                        i.class.opcode,
                        Op::Load
                            | Op::AccessChain
                            | Op::InBoundsAccessChain
                            | Op::CopyObject
                            | Op::Store
                            | Op::CopyMemory
                            | Op::CopyMemorySized
                    );
                    if ok {
                        continue;
                    }
                    if i.operands
                        .iter()
                        .any(|o| matches!(o, Operand::IdRef(id) if derived.contains(id)))
                    {
                        return Err(Error::new(format!(
                            "SPIR-V: the {class:?} variable %{var} is used by {:?}, which \
                             pipe-vk cannot follow when it makes the variable private",
                            i.class.opcode
                        )));
                    }
                }
            }
        }
        if let Some(value) = value {
            self.code.push(Instruction::new(
                Op::Store,
                None,
                None,
                vec![Operand::IdRef(var), Operand::IdRef(value)],
            ));
        }
        self.undecorate_block(ty);
        Ok(())
    }

    /// After a privatized variable of pointee `ty`: when `ty` (or its
    /// element type) is a `Block` struct no interface variable uses any
    /// more, it loses `Block` and its members' interface decorations
    /// (locations, interpolation, built-ins, capture), which belong to
    /// interface blocks only.
    fn undecorate_block(&mut self, ty: Word) {
        let elem = match self.global(ty) {
            Some(i) if i.class.opcode == Op::TypeArray => match i.operands.first() {
                Some(Operand::IdRef(e)) => *e,
                _ => return,
            },
            _ => ty,
        };
        if self.decoration(elem, Decoration::Block).is_none() {
            return;
        }
        let m = self.module();
        let pointee = |ptr: Word| {
            m.types_global_values
                .iter()
                .find(|i| i.result_id == Some(ptr) && i.class.opcode == Op::TypePointer)
                .and_then(|i| match i.operands.as_slice() {
                    [Operand::StorageClass(_), Operand::IdRef(t)] => Some(*t),
                    _ => None,
                })
        };
        let still_used = m.types_global_values.iter().any(|i| {
            i.class.opcode == Op::Variable
                && matches!(
                    i.operands.first(),
                    Some(Operand::StorageClass(
                        StorageClass::Input | StorageClass::Output
                    ))
                )
                && i.result_type.and_then(pointee).is_some_and(|t| {
                    t == elem
                        || self.global(t).is_some_and(|a| {
                            a.class.opcode == Op::TypeArray
                                && a.operands.first() == Some(&Operand::IdRef(elem))
                        })
                })
        });
        if still_used {
            return;
        }
        let interface = |d: &Operand| {
            matches!(
                d,
                Operand::Decoration(
                    Decoration::Block
                        | Decoration::Location
                        | Decoration::Component
                        | Decoration::Flat
                        | Decoration::NoPerspective
                        | Decoration::Centroid
                        | Decoration::Sample
                        | Decoration::Patch
                        | Decoration::BuiltIn
                        | Decoration::Invariant
                        | Decoration::Stream
                        | Decoration::XfbBuffer
                        | Decoration::XfbStride
                )
            )
        };
        self.b.module_mut().annotations.retain(|a| {
            let d = match (a.class.opcode, a.operands.as_slice()) {
                (Op::Decorate, [Operand::IdRef(t), d, ..]) if *t == elem => d,
                (Op::MemberDecorate, [Operand::IdRef(t), _, d, ..]) if *t == elem => d,
                _ => return true,
            };
            !interface(d)
        });
        if let Some(ds) = self.decorations.get_mut(&elem) {
            ds.retain(|(d, _)| *d != Decoration::Block);
        }
    }

    /// The entry point's `builtin` output: (variable, member of its
    /// block), or `None` when it has none.
    fn find_output_builtin(&self, builtin: u32) -> Result<Option<(Word, Option<u32>)>> {
        let m = self.module();
        let outputs = self.interface_globals(StorageClass::Output);
        for &(var, _) in &outputs {
            if self.decorations.get(&var).is_some_and(|d| {
                d.iter()
                    .any(|&(x, v)| x == Decoration::BuiltIn && v == Some(builtin))
            }) {
                return Ok(Some((var, None)));
            }
        }
        // Builtin members of the output block: (struct, member, builtin).
        let members: Vec<(Word, u32, u32)> = m
            .annotations
            .iter()
            .filter(|a| a.class.opcode == Op::MemberDecorate)
            .filter_map(|a| match a.operands.as_slice() {
                [Operand::IdRef(t), Operand::LiteralBit32(k), Operand::Decoration(Decoration::BuiltIn), Operand::BuiltIn(b)] => {
                    Some((*t, *k, *b as u32))
                }
                _ => None,
            })
            .collect();
        for &(var, ty) in &outputs {
            if let Some(&(_, k, _)) = members.iter().find(|&&(t, _, b)| t == ty && b == builtin) {
                return Ok(Some((var, Some(k))));
            }
        }
        // None (a `gl_PerVertex` redeclared without it included): the
        // shader does not write it; point size adds a variable of its own
        // beside the block, as the IR lowering does.
        Ok(None)
    }

    /// The ids the entry point's functions (and the functions they call)
    /// refer to.
    fn used_globals(&self) -> HashSet<Word> {
        let reachable = self.reachable();
        let mut used: HashSet<Word> = HashSet::new();
        for f in self.module().functions.iter().filter(|f| {
            f.def
                .as_ref()
                .and_then(|d| d.result_id)
                .is_some_and(|id| reachable.contains(&id))
        }) {
            for i in f.blocks.iter().flat_map(|b| &b.instructions) {
                used.extend(i.operands.iter().filter_map(|o| match o {
                    Operand::IdRef(id) => Some(*id),
                    _ => None,
                }));
            }
        }
        used
    }

    /// The functions the entry point calls, itself included.
    fn reachable(&self) -> HashSet<Word> {
        let m = self.module();
        let mut seen: HashSet<Word> = HashSet::from_iter([self.entry_fn]);
        let mut todo = vec![self.entry_fn];
        while let Some(id) = todo.pop() {
            let Some(f) = m
                .functions
                .iter()
                .find(|f| f.def.as_ref().and_then(|d| d.result_id) == Some(id))
            else {
                continue;
            };
            for i in f.blocks.iter().flat_map(|b| &b.instructions) {
                if i.class.opcode == Op::FunctionCall {
                    if let Some(Operand::IdRef(callee)) = i.operands.first() {
                        if seen.insert(*callee) {
                            todo.push(*callee);
                        }
                    }
                }
            }
        }
        seen
    }

    /// Whether a store of the entry point (or a function it calls) writes
    /// the output `var` (its `member`): directly, or through access
    /// chains (whose first index is the member); a store of the whole
    /// block counts.
    fn writes_output(&self, var: Word, member: Option<u32>) -> bool {
        let m = self.module();
        let reachable = self.reachable();
        let konst = |id: Word| {
            self.global(id)
                .filter(|c| c.class.opcode == Op::Constant)
                .and_then(|c| c.operands.first().and_then(literal))
        };
        let insts = m
            .functions
            .iter()
            .filter(|f| {
                f.def
                    .as_ref()
                    .and_then(|d| d.result_id)
                    .is_some_and(|id| reachable.contains(&id))
            })
            .flat_map(|f| f.blocks.iter())
            .flat_map(|b| &b.instructions);
        // `roots`: the variable and copies of its pointer; `to_it`: what
        // points at the output (the roots too, a store of the whole
        // block counting). Access chains and copies follow their base (in
        // dominance order, so one pass over each function's blocks in
        // order sees the base first where it is in the same function;
        // pointers to outputs are no function arguments).
        let mut roots: HashSet<Word> = HashSet::from_iter([var]);
        let mut to_it: HashSet<Word> = HashSet::from_iter([var]);
        for i in insts.clone() {
            let (Some(Operand::IdRef(base)), Some(id)) = (i.operands.first(), i.result_id) else {
                continue;
            };
            match i.class.opcode {
                Op::CopyObject if roots.contains(base) => {
                    roots.insert(id);
                    to_it.insert(id);
                }
                Op::CopyObject if to_it.contains(base) => {
                    to_it.insert(id);
                }
                Op::AccessChain | Op::InBoundsAccessChain => {
                    let ours = if roots.contains(base) {
                        member.is_none()
                            || matches!(i.operands.get(1), Some(Operand::IdRef(f)) if konst(*f) == member)
                    } else {
                        to_it.contains(base)
                    };
                    if ours {
                        to_it.insert(id);
                    }
                }
                _ => {}
            }
        }
        insts.into_iter().any(|i| {
            matches!(
                i.class.opcode,
                Op::Store | Op::CopyMemory | Op::CopyMemorySized
            ) && matches!(i.operands.first(), Some(Operand::IdRef(p)) if to_it.contains(p))
        })
    }

    /// Inserts the code `make` gives before each return of the entry
    /// point, or each vertex a geometry shader emits (in any function it
    /// calls); returns how many places there were.
    fn at_vertex_ends(&mut self, make: &mut dyn FnMut(&mut Patcher) -> Vec<Instruction>) -> usize {
        if self.model == ExecutionModel::Geometry {
            self.before_each(&[Op::EmitVertex, Op::EmitStreamVertex], make)
        } else {
            self.before_each(&[Op::Return], make)
        }
    }

    /// Inserts the code `make` gives before each instruction of `sites`:
    /// returns of the entry point itself, or any of the others in every
    /// function the entry point calls; returns how many places there
    /// were.
    fn before_each(
        &mut self,
        sites: &[Op],
        make: &mut dyn FnMut(&mut Patcher) -> Vec<Instruction>,
    ) -> usize {
        let entry_only = sites.contains(&Op::Return);
        let entry_fn = self.entry_fn;
        let reachable = self.reachable();
        let mut count = 0usize;
        for fi in 0..self.module().functions.len() {
            let id = self.module().functions[fi]
                .def
                .as_ref()
                .and_then(|d| d.result_id);
            let wanted = if entry_only {
                id == Some(entry_fn)
            } else {
                id.is_some_and(|id| reachable.contains(&id))
            };
            if !wanted {
                continue;
            }
            for bi in 0..self.module().functions[fi].blocks.len() {
                let mut k = 0;
                while k < self.module().functions[fi].blocks[bi].instructions.len() {
                    let op = self.module().functions[fi].blocks[bi].instructions[k]
                        .class
                        .opcode;
                    if !sites.contains(&op) {
                        k += 1;
                        continue;
                    }
                    let code = make(self);
                    let n = code.len();
                    self.b.module_mut().functions[fi].blocks[bi]
                        .instructions
                        .splice(k..k, code);
                    k += n + 1;
                    count += 1;
                }
            }
        }
        count
    }

    /// A pointer to `f32` element `index` (if any) of the output `var`
    /// (its `member`), and the instructions that make it.
    fn output_element(
        &mut self,
        var: Word,
        member: Option<u32>,
        index: Option<u32>,
    ) -> (Word, Vec<Instruction>) {
        let it = Num::int(true, 32, 1);
        let mut indices: Vec<Word> = Vec::new();
        for k in member.into_iter().chain(index) {
            indices.push(self.konst(it, u64::from(k)));
        }
        if indices.is_empty() {
            return (var, Vec::new());
        }
        let ft = self.ty(Num::float(32, 1));
        let ptr_ty = self.b.type_pointer(None, StorageClass::Output, ft);
        let id = self.b.id();
        let mut ops = vec![Operand::IdRef(var)];
        ops.extend(indices.into_iter().map(Operand::IdRef));
        (
            id,
            vec![Instruction::new(
                Op::AccessChain,
                Some(ptr_ty),
                Some(id),
                ops,
            )],
        )
    }

    /// [`point_size`]: returns whether the module changes.
    fn point_size(&mut self, size: f32, fixed: bool) -> Result<bool> {
        let target = self.find_output_builtin(POINT_SIZE)?;
        if let Some((var, member)) = target {
            if !fixed && self.writes_output(var, member) {
                return Ok(false);
            }
        }
        let f32t = Num::float(32, 1);
        let ft = self.ty(f32t);
        let (var, member) = match target {
            Some(t) => t,
            None => {
                let var = self.add_variable(StorageClass::Output, ft);
                self.b.decorate(
                    var,
                    Decoration::BuiltIn,
                    [Operand::BuiltIn(rspirv::spirv::BuiltIn::PointSize)],
                );
                (var, None)
            }
        };
        match self.model {
            ExecutionModel::Geometry => self.capability(Capability::GeometryPointSize),
            ExecutionModel::TessellationEvaluation => {
                self.capability(Capability::TessellationPointSize)
            }
            _ => {}
        }
        let value = self.konst(f32t, u64::from(size.to_bits()));
        let sites = self.at_vertex_ends(&mut |p| {
            let (ptr, mut code) = p.output_element(var, member, None);
            code.push(Instruction::new(
                Op::Store,
                None,
                None,
                vec![Operand::IdRef(ptr), Operand::IdRef(value)],
            ));
            code
        });
        if sites == 0 {
            return Err(Error::new(
                "SPIR-V point size: the entry point has no return (or a geometry shader no \
                 EmitVertex) to write PointSize before",
            ));
        }
        Ok(true)
    }

    /// [`clip_halfz`]: returns whether the module changes.
    fn clip_halfz(&mut self) -> Result<bool> {
        let Some((var, member)) = self.find_output_builtin(POSITION)? else {
            return Ok(false);
        };
        if !self.writes_output(var, member) {
            return Ok(false);
        }
        let f32t = Num::float(32, 1);
        let v4 = Num::float(32, 4);
        let ft = self.ty(f32t);
        let v4t = self.ty(v4);
        let half = self.konst(f32t, u64::from(0.5f32.to_bits()));
        let ptr_ty = self.b.type_pointer(None, StorageClass::Output, v4t);
        let member_index = member.map(|k| self.konst(Num::int(true, 32, 1), u64::from(k)));
        self.at_vertex_ends(&mut |p| {
            let mut code = Vec::new();
            let ptr = match member_index {
                Some(k) => {
                    let id = p.b.id();
                    code.push(Instruction::new(
                        Op::AccessChain,
                        Some(ptr_ty),
                        Some(id),
                        vec![Operand::IdRef(var), Operand::IdRef(k)],
                    ));
                    id
                }
                None => var,
            };
            let mut op = |p: &mut Patcher, o: Op, t: Word, ops: Vec<Operand>| {
                let id = p.b.id();
                code.push(Instruction::new(o, Some(t), Some(id), ops));
                id
            };
            let pos = op(p, Op::Load, v4t, vec![Operand::IdRef(ptr)]);
            let z = op(
                p,
                Op::CompositeExtract,
                ft,
                vec![Operand::IdRef(pos), Operand::LiteralBit32(2)],
            );
            let w = op(
                p,
                Op::CompositeExtract,
                ft,
                vec![Operand::IdRef(pos), Operand::LiteralBit32(3)],
            );
            let zw = op(p, Op::FAdd, ft, vec![Operand::IdRef(z), Operand::IdRef(w)]);
            let nz = op(
                p,
                Op::FMul,
                ft,
                vec![Operand::IdRef(zw), Operand::IdRef(half)],
            );
            let np = op(
                p,
                Op::CompositeInsert,
                v4t,
                vec![
                    Operand::IdRef(nz),
                    Operand::IdRef(pos),
                    Operand::LiteralBit32(2),
                ],
            );
            code.push(Instruction::new(
                Op::Store,
                None,
                None,
                vec![Operand::IdRef(ptr), Operand::IdRef(np)],
            ));
            code
        });
        Ok(true)
    }

    /// [`clip_disable`]: returns whether the module changes.
    fn clip_disable(&mut self, enabled: u8) -> Result<bool> {
        let Some((var, member)) = self.find_output_builtin(CLIP_DISTANCE)? else {
            return Ok(false);
        };
        if !self.writes_output(var, member) {
            return Ok(false);
        }
        let len = self.output_builtin_len(var, member).ok_or_else(|| {
            Error::new("SPIR-V clip distances: ClipDistance is not a sized array")
        })?;
        let off: Vec<u32> = (0..len.min(8))
            .filter(|i| enabled & (1 << i) == 0)
            .collect();
        if off.is_empty() {
            return Ok(false);
        }
        let one = self.konst(Num::float(32, 1), u64::from(1.0f32.to_bits()));
        self.at_vertex_ends(&mut |p| {
            let mut code = Vec::new();
            for &i in &off {
                let (ptr, chain) = p.output_element(var, member, Some(i));
                code.extend(chain);
                code.push(Instruction::new(
                    Op::Store,
                    None,
                    None,
                    vec![Operand::IdRef(ptr), Operand::IdRef(one)],
                ));
            }
            code
        });
        Ok(true)
    }

    /// The length of the array output `var` (its `member`): a clip or
    /// cull distance array's.
    fn output_builtin_len(&self, var: Word, member: Option<u32>) -> Option<u32> {
        let ty = self
            .global(var)
            .and_then(|v| v.result_type)
            .and_then(|p| self.global(p))
            .and_then(|p| match p.operands.as_slice() {
                [_, Operand::IdRef(t)] => Some(*t),
                _ => None,
            });
        let ty = match (ty, member) {
            (Some(t), Some(k)) => self
                .global(t)
                .and_then(|s| match s.operands.get(k as usize) {
                    Some(Operand::IdRef(m)) => Some(*m),
                    _ => None,
                }),
            (t, None) => t,
            (None, Some(_)) => None,
        };
        ty.and_then(|t| self.global(t)).and_then(|a| {
            match (a.class.opcode, a.operands.as_slice()) {
                (Op::TypeArray, [_, Operand::IdRef(len)]) => self
                    .global(*len)
                    .and_then(|c| c.operands.first().and_then(literal)),
                _ => None,
            }
        })
    }

    /// Inserts the entry code after the entry function's variables and
    /// assembles the module, with its non-semantic instructions put back.
    fn finish(mut self) -> Result<Vec<u32>> {
        let entry_fn = self.entry_fn;
        let code = std::mem::take(&mut self.code);
        let m = self.b.module_mut();
        let f = m
            .functions
            .iter_mut()
            .find(|f| f.def.as_ref().and_then(|d| d.result_id) == Some(entry_fn))
            .ok_or_else(|| Error::new("SPIR-V vertex fix-up: the entry point has no function"))?;
        let block = f
            .blocks
            .first_mut()
            .ok_or_else(|| Error::new("SPIR-V vertex fix-up: the entry point has no body"))?;
        let at = block
            .instructions
            .iter()
            .rposition(|i| i.class.opcode == Op::Variable)
            .map_or(0, |p| p + 1);
        block.instructions.splice(at..at, code);
        Ok(self.debug.restore(self.b.module().assemble()))
    }
}

impl Num {
    fn float(bits: u32, comps: u32) -> Num {
        Num {
            float: true,
            signed: true,
            bits,
            comps,
        }
    }
    fn int(signed: bool, bits: u32, comps: u32) -> Num {
        Num {
            float: false,
            signed,
            bits,
            comps,
        }
    }
}
