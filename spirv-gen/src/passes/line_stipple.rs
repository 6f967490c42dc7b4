//! Line stipple emulation (`glLineStipple`) for devices without stippled
//! lines in `VK_EXT_line_rasterization`, the way Zink does it
//! (`lower_line_stipple_gs` and `lower_line_stipple_fs` in
//! `zink_compiler.c`, with a generated pass-through geometry shader from
//! `nir_create_passthrough_gs`).
//!
//! A fragment shader cannot know how far along its line it is, so the
//! work is split in two:
//!
//! 1. The last vertex-processing stage gets a `noperspective` `f32` output
//!    `stipple_pos` at [`STIPPLE_POS_LOCATION`]: the distance in window
//!    pixels from the first vertex of the line strip. It is computed from
//!    the clip-space positions of consecutive vertices: clip → NDC
//!    (`xy / w`) → window (`× VIEWPORT_SCALE`, the Gallium viewport scale,
//!    half the viewport size, from [`push::VIEWPORT_SCALE`]); being
//!    `noperspective`, it interpolates linearly in window space along the
//!    line.
//!    - When that stage is a vertex or tessellation evaluation shader,
//!      [`line_stipple_gs`] generates a pass-through geometry shader
//!      (input `lines`, output `line_strip`, 2 vertices) that forwards every
//!      output of the previous stage and adds `stipple_pos`.
//!    - When it is an application geometry shader that emits line strips,
//!      [`lower_line_stipple_gs`] adds the computation before each
//!      `emit_vertex` of stream 0.
//!    - Polygons drawn in line mode stay triangles (culling, polygon
//!      offset and facing still apply): [`polygon_line_stipple_gs`]
//!      hands the fragment shader what it needs to find its place along
//!      the triangle's outline.
//! 2. [`lower_line_stipple_fs`] makes the fragment shader discard the
//!    fragment when bit `floor(stipple_pos / factor) mod 16` of the pattern
//!    is 0, with pattern and factor from [`push::LINE_STIPPLE`].
//!
//! # Distance metric
//!
//! As in Zink: for rectangular lines (Gallium's `line_rectangular`, Vulkan's
//! rectangular line mode) the segment length is the Euclidean window-space
//! distance; otherwise (Bresenham / non-rectangular lines) it is the
//! major-axis length `max(|dx|, |dy|)`, which is what GL's per-fragment
//! counter counts for non-antialiased lines.
//!
//! # Counter convention
//!
//! The counter (`stipple_pos`) is 0 at the first vertex of each output line
//! strip and grows by the window length of each segment along the strip.
//! What that means for GL primitives:
//!
//! - With the generated geometry shader (input `lines`), Vulkan runs one
//!   invocation per segment, so the pattern restarts at **every segment**:
//!   for `GL_LINES` (as GL specifies) and also for `GL_LINE_STRIP` and
//!   `GL_LINE_LOOP` (where GL would continue the counter along the strip).
//!   This is Mesa's (Zink's) behaviour too: a geometry shader with input
//!   `lines` cannot see the earlier segments of its strip.
//! - In an application geometry shader, the counter runs along all the
//!   vertices one invocation emits to stream 0 and restarts at each
//!   `end_primitive` of stream 0, i.e. per output strip, as GL specifies
//!   for line strips. Zink's `lower_line_stipple_gs` differs here: it does
//!   not reset its counters at `EndPrimitive`, so a second strip emitted by
//!   the same invocation continues from the first (gap included).
//!
//! Mesa tests each sample (it interpolates `stipple_pos` at every sample
//! and clears bits of the sample mask); this lowering tests once per
//! fragment shader invocation, with `stipple_pos` interpolated as an
//! ordinary input (no `sample` qualifier), and `discard`s the whole
//! fragment.

use super::gl::{get_push, Emit};
use crate::binding::{push, EDGE_MASK_LOCATION, STIPPLE_POS_LOCATION};
use crate::error::{Error, Result};
use crate::ir::*;

/// Name given to the `stipple_pos` varying when it is added.
pub const STIPPLE_POS_NAME: &str = "stipple_pos";

pub(crate) fn stipple_var(output: bool) -> Variable {
    super::gl::driver_varying(
        STIPPLE_POS_NAME,
        STIPPLE_POS_LOCATION,
        Interp::NoPerspective,
        Type::F32,
        output,
    )
}

/// The `stipple_pos` varying of `s` (an output when `output`, else an
/// input): `Ok(Some)` when an `f32` `noperspective` variable sits at
/// component 0 of [`STIPPLE_POS_LOCATION`], `Ok(None)` when nothing uses
/// that location, an error when something else does.
pub fn find_stipple_pos(s: &Shader, output: bool) -> Result<Option<VarId>> {
    for (i, v) in s.vars.iter().enumerate() {
        let Some(io) = v.io() else { continue };
        if v.is_output() != output || io.builtin.is_some() {
            continue;
        }
        let Some(loc) = io.location else { continue };
        let len = v.locations(s.stage);
        if !(loc..loc.saturating_add(len)).contains(&STIPPLE_POS_LOCATION) {
            continue;
        }
        if v.ty == Type::F32
            && v.array.is_none()
            && io.component == 0
            && io.interp == Interp::NoPerspective
            && !io.patch
        {
            return Ok(Some(VarId(i as u32)));
        }
        return Err(Error::new(format!(
            "line stipple: location {STIPPLE_POS_LOCATION} (@{}) is reserved for stipple_pos",
            v.name
        )));
    }
    Ok(None)
}

/// Viewport 0's scale ([`push::VIEWPORT_SCALE`]), and a clip-space
/// position's window-space `xy` relative to the viewport's centre (that
/// scale times its NDC) with its `w`.
fn window_of(
    e: &mut Emit,
    pc: VarId,
) -> (ValueId, impl Fn(&mut Emit, ValueId) -> (ValueId, ValueId)) {
    let (f, f2) = (Type::F32, Type::float(32, 2));
    let off = e.u32(push::VIEWPORT_SCALE);
    let scale = e.def(
        f2,
        Op::Intrinsic(Intrinsic::LoadPush {
            var: pc,
            offset: off,
        }),
    );
    let window = move |e: &mut Emit, p: ValueId| {
        let xy = e.swizzle(f2, p, &[0, 1]);
        let w = e.swizzle(f, p, &[3]);
        let ww = e.alu(AluOp::Vec, f2, &[w, w]);
        let ndc = e.alu(AluOp::Fdiv, f2, &[xy, ww]);
        (e.alu(AluOp::Fmul, f2, &[ndc, scale]), w)
    };
    (scale, window)
}

/// Emits the window-space length of the segment between clip-space
/// positions `p0` and `p1` (see the module docs for the metric).
fn window_len(e: &mut Emit, pc: VarId, p0: ValueId, p1: ValueId, rectangular: bool) -> ValueId {
    let f2 = Type::float(32, 2);
    let (_, window) = window_of(e, pc);
    let (a, _) = window(e, p0);
    let (b, _) = window(e, p1);
    if rectangular {
        e.alu(AluOp::Fdistance, Type::F32, &[a, b])
    } else {
        let d = e.alu(AluOp::Fsub, f2, &[b, a]);
        let ad = e.alu(AluOp::Fabs, f2, &[d]);
        let x = e.swizzle(f2, ad, &[0]);
        let y = e.swizzle(f2, ad, &[1]);
        e.alu(AluOp::Fmax, Type::F32, &[x, y])
    }
}

/// The segment between clip positions `p0` and `p1` lengthened by half
/// a pixel at each end in window space where both have `w > 0` and
/// `inside` (a bool) holds (else unchanged: its window positions mean
/// nothing, or it is clipped), its window length before that, and whether
/// it was lengthened.
fn lengthen(
    e: &mut Emit,
    pc: VarId,
    p0: ValueId,
    p1: ValueId,
    inside: ValueId,
) -> (Vec<ValueId>, ValueId, ValueId) {
    let (f, f2) = (Type::F32, Type::float(32, 2));
    let (scale, window) = window_of(e, pc);
    let (a, wa) = window(e, p0);
    let (b, wb) = window(e, p1);
    let len = e.alu(AluOp::Fdistance, f, &[a, b]);
    // Half a pixel along the segment (nothing for a point-like one).
    let d = e.alu(AluOp::Fsub, f2, &[b, a]);
    let tiny = e.f32(1e-6);
    let l = e.alu(AluOp::Fmax, f, &[len, tiny]);
    let half = e.f32(0.5);
    let k = e.alu(AluOp::Fdiv, f, &[half, l]);
    let kk = e.alu(AluOp::Vec, f2, &[k, k]);
    let ext = e.alu(AluOp::Fmul, f2, &[d, kk]);
    // Back to NDC, then clip space at each vertex's w.
    let ext_ndc = e.alu(AluOp::Fdiv, f2, &[ext, scale]);
    let zero = e.f32(0.0);
    let front_a = e.alu(AluOp::Flt, Type::BOOL, &[zero, wa]);
    let front_b = e.alu(AluOp::Flt, Type::BOOL, &[zero, wb]);
    let front = e.alu(AluOp::Band, Type::BOOL, &[front_a, front_b]);
    let front = e.alu(AluOp::Band, Type::BOOL, &[front, inside]);
    // A select, not a product: with w = 0 the extension is not finite.
    let front2 = e.alu(AluOp::Vec, Type::bool(2), &[front, front]);
    let zero2 = e.alu(AluOp::Vec, f2, &[zero, zero]);
    let ext_ndc = e.alu(AluOp::Bcsel, f2, &[front2, ext_ndc, zero2]);
    let moved = |e: &mut Emit, p: ValueId, w: ValueId, sign: f32| {
        let s = e.f32(sign);
        let sw = e.alu(AluOp::Fmul, f, &[s, w]);
        let sww = e.alu(AluOp::Vec, f2, &[sw, sw]);
        let dxy = e.alu(AluOp::Fmul, f2, &[ext_ndc, sww]);
        let (dx, dy) = (e.swizzle(f, dxy, &[0]), e.swizzle(f, dxy, &[1]));
        let z = e.f32(0.0);
        let dv = e.alu(AluOp::Vec, Type::vec4(), &[dx, dy, z, z]);
        e.alu(AluOp::Fadd, Type::vec4(), &[p, dv])
    };
    (
        vec![moved(e, p0, wa, -1.0), moved(e, p1, wb, 1.0)],
        len,
        front,
    )
}

/// Generates the pass-through geometry shader that line stipple needs
/// when the last vertex-processing stage `prev` is a vertex or
/// tessellation evaluation shader.
///
/// The result has input `lines`, output `line_strip`, `max_vertices=2`,
/// one invocation. For each output `@x` of `prev` it declares a
/// per-vertex input `@in_x` (same location, component, built-in and GL
/// slot; no interpolation qualifiers) and an output `@x` with `prev`'s
/// qualifiers, and copies vertex 0 then vertex 1 unchanged (same order,
/// so flat varyings keep their provoking vertex). It also forwards
/// `primitive_id` (without a geometry shader the fragment shader's
/// `PrimitiveId` is the primitive's index; with one it is what the
/// geometry shader writes) and writes `stipple_pos` (0 at vertex 0, the
/// segment's window length at vertex 1; see the module docs).
/// `rectangular` selects the distance metric. Array outputs (clip and
/// cull distances, array varyings) are copied element by element.
///
/// Errors (never panics) when `prev` is not a vertex or tess eval shader,
/// writes no `f32x4` position, writes a built-in a geometry shader cannot
/// write (a layer or viewport index), or uses [`STIPPLE_POS_LOCATION`].
/// The result is checked with [`crate::validate::validate`].
///
/// For pipe-vk: generate it from the previous stage *before* the
/// last-stage lowerings (so that the user clip planes are computed in
/// it, from its own output position), then lower the generated shader as the last
/// vertex stage (`last_vertex_stage`, `clip`, `clip_halfz`,
/// `point_size`); it reads [`push::VIEWPORT_SCALE`]. The generated
/// shader declares `prev`'s outputs first, in `prev`'s order, so a stream
/// output capture list written for `prev` (outputs named by declaration
/// index, see [`super::xfb`]) applies to it unchanged.
pub fn line_stipple_gs(prev: &Shader, rectangular: bool) -> Result<Shader> {
    stipple_gs(prev, rectangular, GsInput::Lines, Edges::None, None)
}

/// The pass-through geometry shader for polygons drawn in line mode
/// (`PolygonMode::Line`): [`line_stipple_gs`] with input `triangles` and
/// output `triangle_strip` (3 vertices, in order, so winding, culling,
/// polygon offset and the provoking vertex are the rasterizer's as
/// without it). Instead of `stipple_pos` it writes the `noperspective`
/// `f32x4` [`STIPPLE_POLY_NAME`] at [`STIPPLE_POS_LOCATION`], from which
/// [`lower_line_stipple_fs`] (with `polygon`) finds the fragment's
/// distance along the triangle's outline.
///
/// The counter runs along the edges v2 → v0, v0 → v1, v1 → v2 and
/// restarts at each triangle, the order of Mesa's draw module (llvmpipe's
/// and lavapipe's stippled polygon-mode lines). With `a`, `b`, `c` the
/// window lengths of those edges, the vertices carry `(q, r, b0, b1)`:
/// v0 `(a, a, 1, 0)`, v1 `(a + b, a + b, 0, 1)`, v2 `(0, a + b + c, 0,
/// 0)`. `q` interpolates to the distance on the first two edges and `r`
/// on the third, where the fragment shader tells them apart by the
/// smallest barycentric coordinate (`b0`, `b1`, `1 - b0 - b1`).
pub fn polygon_line_stipple_gs(prev: &Shader, rectangular: bool) -> Result<Shader> {
    stipple_gs(prev, rectangular, GsInput::Triangles, Edges::None, None)
}

/// [`polygon_line_stipple_gs`] for triangles of quads, quad strips and
/// polygons drawn in line or point mode, with input
/// `triangles_adjacency` as pipe-vk's index rewriting encodes them
/// (`pipe_vk::prim`, `Edges`): triangle vertices 0, 2 and 4, and
/// adjacency vertex `2i + 1` at the position of vertex `i` when edge (or
/// vertex) `i` is drawn, and elsewhere (at another vertex of the
/// triangle) when it is hidden. It emits the triangle as
/// [`polygon_line_stipple_gs`] does, and the `flat` `u32`
/// [`EDGE_MASK_NAME`] at [`EDGE_MASK_LOCATION`] (bit `i`: edge or vertex
/// `i` hidden), which [`super::polygon_edges`] reads. A hidden edge or
/// vertex whose marker coincides with it reads as drawn.
///
/// With `edge_flags`, GL's explicit edge flags hide more: `prev`'s
/// `slot=edge` output ([`GlSlot::Edge`]), read at triangle vertex `i`,
/// hides edge (or vertex) `i` when it is 0.0. The index rewriting orders
/// each triangle so that its edge `i` (vertex `i` to `i + 1`) is the
/// polygon's edge that starts at vertex `i`, so this is GL's rule: a
/// vertex flags the edge it begins. Errors when `prev` has no such
/// output.
pub fn polygon_edges_gs(prev: &Shader, rectangular: bool, edge_flags: bool) -> Result<Shader> {
    let edges = if edge_flags {
        Edges::WithFlags
    } else {
        Edges::Implicit
    };
    stipple_gs(prev, rectangular, GsInput::TrianglesAdjacency, edges, None)
}

/// [`polygon_edges_gs`] for plain triangle lists with GL's explicit edge
/// flags (`prev`'s `slot=edge` output): input `triangles`, no markers,
/// edge (or vertex) `i` hidden when vertex `i`'s flag is 0.0. Triangle
/// lists need no index rewriting for it: the flags are all there is.
/// Errors when `prev` has no flag output.
pub fn edge_flags_gs(prev: &Shader, rectangular: bool) -> Result<Shader> {
    stipple_gs(
        prev,
        rectangular,
        GsInput::Triangles,
        Edges::WithFlags,
        None,
    )
}

/// What a generated polygon geometry shader puts in the hidden-edge mask.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Edges {
    /// No mask (line stipple only).
    None,
    /// The adjacency markers of the index rewriting.
    Implicit,
    /// The markers, and the previous stage's edge flags.
    WithFlags,
}

/// [`line_stipple_gs`] (`lines` or `lines_adjacency`) or
/// [`polygon_line_stipple_gs`] (`triangles` or `triangles_adjacency`) for
/// the geometry-shader input `input`, so that draws of the adjacency
/// topologies get it too: of an adjacency primitive it emits the vertices
/// the rasterizer would draw without a geometry shader (1 and 2 of a line,
/// 0, 2 and 4 of a triangle) and drops the others. Errors for `points`.
pub fn line_stipple_gs_for(prev: &Shader, rectangular: bool, input: GsInput) -> Result<Shader> {
    if input == GsInput::Points {
        return Err(Error::new(
            "line stipple GS: points have no lines to stipple",
        ));
    }
    stipple_gs(prev, rectangular, input, Edges::None, None)
}

/// The generated geometry shader of smooth lines with their ends
/// (`VariantKey::smooth_line_ends`, see [`super::smooth_lines`]):
/// [`line_stipple_gs_for`] with rectangular lines, each segment
/// lengthened by half a pixel at both ends in window space (where both
/// vertices have `w > 0`), `stipple_pos` running from -1/2 to the
/// segment's window length + 1/2 (0 and the length at the vertices), and
/// the length in the `flat` `f32` varying `smooth_line_len` at
/// [`EDGE_MASK_LOCATION`] (which only polygons' shaders use otherwise).
///
/// A segment the near clip plane cuts (GL's `z = -w`, or `z = 0` with
/// `clip_halfz`: the positions are GL's, before the last stage's depth
/// conversion) is left as it is, and measured from where the plane cuts
/// it: the length is that of its visible part, and `stipple_pos` is 0 at
/// the cut where the first vertex is clipped off (values at the vertices
/// that clip-space interpolation takes to 0 there and to the visible
/// length at the other vertex), as GL's stipple counter starts with the
/// clipped segment's first fragment. Any other segment with a vertex at
/// or behind the eye (`w <= 0`) is left as it is, with `stipple_pos` 1/2
/// at both vertices and the largest float as its length, so the fragment
/// shader weighs it across only.
/// Errors as [`line_stipple_gs_for`], and for `prev` writing location
/// [`EDGE_MASK_LOCATION`].
pub fn smooth_line_ends_gs(prev: &Shader, input: GsInput, clip_halfz: bool) -> Result<Shader> {
    if !matches!(input, GsInput::Lines | GsInput::LinesAdjacency) {
        return Err(Error::new("smooth line ends GS: lines only"));
    }
    stipple_gs(prev, true, input, Edges::None, Some(clip_halfz))
}

/// Name given to the segment length varying of [`smooth_line_ends_gs`].
pub const SMOOTH_LINE_LEN_NAME: &str = "smooth_line_len";

/// The segment length varying (an output when `output`).
pub(crate) fn smooth_line_len_var(output: bool) -> Variable {
    super::gl::driver_varying(
        SMOOTH_LINE_LEN_NAME,
        EDGE_MASK_LOCATION,
        Interp::Flat,
        Type::F32,
        output,
    )
}

/// The variables of a generated geometry shader that forwards the
/// previous stage's `outputs` ([`forward_vars`]).
pub(crate) struct ForwardVars {
    /// Per-vertex inputs `in_NAME` (arrays of the input vertex count,
    /// interpolation qualifiers dropped), in `outputs`' order.
    pub ins: Vec<VarId>,
    /// Outputs with the previous stage's names and qualifiers, in order.
    pub outs: Vec<VarId>,
    /// The input for the `f32x4` position, if there is one.
    pub position: Option<VarId>,
    /// `PrimitiveId` in and out (the fragment shader's primitive id is
    /// what the geometry shader writes).
    pub prim_in: VarId,
    pub prim_out: VarId,
}

/// Declares, in `gs`, the inputs for `outputs` (with `n_in` vertices),
/// then the primitive id input, then the outputs, then the primitive id
/// output: the previous stage's outputs come first and in order, so a
/// stream output capture list written for it applies unchanged. An array
/// output (clip distances, an array varying) becomes an array-of-arrays
/// input and an array output ([`copy_vertex_output`] copies it). The edge
/// flag's slot ([`GlSlot::Edge`], vertex shader outputs only) is dropped:
/// it is forwarded as a plain varying.
pub(crate) fn forward_vars(gs: &mut Shader, outputs: &[&Variable], n_in: u32) -> ForwardVars {
    let mut ins = Vec::new();
    let mut position = None;
    for v in outputs {
        let io = v.io().cloned().unwrap_or_default();
        let inp = gs.add_var(Variable {
            name: format!("in_{}", v.name),
            kind: VarKind::Input(IoInfo {
                interp: Interp::default(),
                sampling: Sampling::default(),
                invariant: false,
                slot: io.slot.filter(|&s| s != GlSlot::Edge),
                ..io
            }),
            ty: v.ty,
            array: Some(n_in),
            // An array output arrives as an array of arrays.
            inner: v.array,
        });
        if v.builtin() == Some(BuiltIn::Position) && v.ty == Type::vec4() {
            position = Some(inp);
        }
        ins.push(inp);
    }
    let prim = |output: bool, name: &str| Variable {
        name: name.into(),
        kind: {
            let io = IoInfo {
                builtin: Some(BuiltIn::PrimitiveId),
                ..Default::default()
            };
            if output {
                VarKind::Output(io)
            } else {
                VarKind::Input(io)
            }
        },
        ty: Type::I32,
        array: None,
        inner: None,
    };
    let prim_in = gs.add_var(prim(false, "in_primitive_id"));
    let outs = outputs
        .iter()
        .map(|v| {
            // The edge flag is the vertex shader's alone.
            let mut kind = v.kind.clone();
            if let VarKind::Output(io) = &mut kind {
                io.slot = io.slot.filter(|&s| s != GlSlot::Edge);
            }
            gs.add_var(Variable {
                name: v.name.clone(),
                kind,
                ty: v.ty,
                array: v.array,
                inner: None,
            })
        })
        .collect();
    let prim_out = gs.add_var(prim(true, "primitive_id"));
    ForwardVars {
        ins,
        outs,
        position,
        prim_in,
        prim_out,
    }
}

/// Copies input vertex `vertex` (also the constant `index`)'s value of a
/// [`forward_vars`] input to its output: an array (clip distances, an
/// array varying) element by element, from the array of arrays' flat
/// index.
pub(crate) fn copy_vertex_output(
    e: &mut Emit,
    inp: VarId,
    out: VarId,
    (vertex, index): (usize, ValueId),
) {
    match e.s.var(out).array {
        None => {
            let v = e.load(inp, Some(index));
            e.store(out, None, v);
        }
        Some(len) => {
            for j in 0..len as usize {
                let i = e.i32((vertex * len as usize + j) as i32);
                let v = e.load(inp, Some(i));
                let o = e.i32(j as i32);
                e.store(out, Some(o), v);
            }
        }
    }
}

/// Name given to the hidden-edge mask varying.
pub const EDGE_MASK_NAME: &str = "edge_mask";

/// The hidden-edge mask varying (an output when `output`).
pub(crate) fn edge_mask_var(output: bool) -> Variable {
    super::gl::driver_varying(
        EDGE_MASK_NAME,
        EDGE_MASK_LOCATION,
        Interp::Flat,
        Type::U32,
        output,
    )
}

/// Name given to the polygon-mode stipple varying.
pub const STIPPLE_POLY_NAME: &str = "stipple_poly";

fn stipple_gs(
    prev: &Shader,
    rectangular: bool,
    input: GsInput,
    kind: Edges,
    // Smooth-line ends (`smooth_line_ends_gs`), with `clip_halfz`.
    ends: Option<bool>,
) -> Result<Shader> {
    let halfz = ends;
    let ends = ends.is_some();
    let edges = kind != Edges::None;
    let polygon = matches!(input, GsInput::Triangles | GsInput::TrianglesAdjacency);
    if !matches!(prev.stage, Stage::Vertex | Stage::TessEval) {
        return Err(Error::new(format!(
            "line stipple GS: the previous stage must be vertex or tess_eval, not {}",
            prev.stage.name()
        )));
    }
    let n: usize = if polygon { 3 } else { 2 };
    // Input vertices per primitive, and where the primitive's own are:
    // `first + step * k`.
    let n_in = input.vertices() as usize;
    let (first, step) = match input {
        GsInput::LinesAdjacency => (1, 1),
        GsInput::TrianglesAdjacency => (0, 2),
        _ => (0, 1),
    };
    let mut gs = Shader::new(Stage::Geometry);
    gs.info.gs_input = Some(input);
    gs.info.gs_output = Some(if polygon {
        GsOutput::TriangleStrip
    } else {
        GsOutput::LineStrip
    });
    gs.info.gs_max_vertices = Some(n as u32);
    gs.info.gs_invocations = Some(1);

    let mut outputs = Vec::new();
    for v in prev.vars.iter() {
        let VarKind::Output(io) = &v.kind else {
            continue;
        };
        let what = || format!("line stipple GS: output @{}", v.name);
        match io.builtin {
            Some(
                BuiltIn::Position
                | BuiltIn::PointSize
                | BuiltIn::ClipDistance
                | BuiltIn::CullDistance,
            )
            | None => {}
            Some(b) => {
                return Err(Error::new(format!(
                    "{}: built-in {} cannot be forwarded by a geometry shader",
                    what(),
                    b.name()
                )))
            }
        }
        if io.patch {
            return Err(Error::new(format!(
                "{}: patch outputs cannot be forwarded",
                what()
            )));
        }
        // The locations the output takes: an array one per element, a
        // 64-bit vector of three or four components two.
        let per = if v.ty.bits == 64 && v.ty.comps > 2 {
            2
        } else {
            1
        };
        let span = io
            .location
            .map(|l| l..l.saturating_add(per * v.locations(prev.stage)));
        let takes = |loc: u32| span.clone().is_some_and(|r| r.contains(&loc));
        if takes(STIPPLE_POS_LOCATION) {
            return Err(Error::new(format!(
                "{}: location {STIPPLE_POS_LOCATION} is reserved for stipple_pos",
                what()
            )));
        }
        if (edges || ends) && takes(EDGE_MASK_LOCATION) {
            return Err(Error::new(format!(
                "{}: location {EDGE_MASK_LOCATION} is reserved for {EDGE_MASK_NAME}",
                what()
            )));
        }
        outputs.push(v);
    }
    let fw = forward_vars(&mut gs, &outputs, n_in as u32);
    let pos_in = fw.position.ok_or_else(|| {
        Error::new("line stipple GS: the previous stage writes no f32x4 position")
    })?;
    let flag_in = match kind {
        Edges::WithFlags => {
            let k = outputs
                .iter()
                .position(|v| {
                    v.io().and_then(|io| io.slot) == Some(GlSlot::Edge) && v.ty == Type::F32
                })
                .ok_or_else(|| {
                    Error::new("polygon edges GS: the previous stage writes no slot=edge output")
                })?;
            Some(fw.ins[k])
        }
        _ => None,
    };
    let (prim_in, prim_out) = (fw.prim_in, fw.prim_out);
    let pairs: Vec<(VarId, VarId)> = fw.ins.into_iter().zip(fw.outs).collect();
    let stipple = gs.add_var(if polygon {
        Variable {
            name: STIPPLE_POLY_NAME.into(),
            ty: Type::vec4(),
            ..stipple_var(true)
        }
    } else {
        stipple_var(true)
    });
    let mask_out = edges.then(|| gs.add_var(edge_mask_var(true)));
    let len_out = ends.then(|| gs.add_var(smooth_line_len_var(true)));
    let pc = get_push(&mut gs);

    let mut e = Emit::new(&mut gs);
    let idx: Vec<ValueId> = (0..n).map(|i| e.i32((first + i * step) as i32)).collect();
    let mut p: Vec<ValueId> = idx.iter().map(|&i| e.load(pos_in, Some(i))).collect();
    // The hidden mask: adjacency vertex 2i + 1 is not on vertex i.
    let mask = if edges {
        let mut mask = e.u32(0);
        // The rewrite's markers, in adjacency input only.
        let markers = if input == GsInput::TrianglesAdjacency {
            &p[..]
        } else {
            &[]
        };
        for (i, &pi) in markers.iter().enumerate() {
            let j = e.i32(2 * i as i32 + 1);
            let a = e.load(pos_in, Some(j));
            let eq = e.alu(AluOp::Feq, Type::bool(4), &[a, pi]);
            let same = e.alu(AluOp::Ball, Type::BOOL, &[eq]);
            let (bit, zero) = (e.u32(1 << i), e.u32(0));
            let b = e.alu(AluOp::Bcsel, Type::U32, &[same, zero, bit]);
            mask = e.alu(AluOp::Ior, Type::U32, &[mask, b]);
        }
        // Explicit edge flags: vertex i's flag 0.0 hides edge (vertex) i.
        if let Some(flag) = flag_in {
            for (i, &vi) in idx.iter().enumerate() {
                let f = e.load(flag, Some(vi));
                let zero = e.f32(0.0);
                let off = e.alu(AluOp::Feq, Type::BOOL, &[f, zero]);
                let (bit, none) = (e.u32(1 << i), e.u32(0));
                let b = e.alu(AluOp::Bcsel, Type::U32, &[off, bit, none]);
                mask = e.alu(AluOp::Ior, Type::U32, &[mask, b]);
            }
        }
        Some(mask)
    } else {
        None
    };
    let mut len_value = None;
    let (values, prim): (Vec<ValueId>, ValueId) = if polygon {
        // Edges v2 -> v0 (a), v0 -> v1 (b), v1 -> v2 (c).
        let a = window_len(&mut e, pc, p[2], p[0], rectangular);
        let b = window_len(&mut e, pc, p[0], p[1], rectangular);
        let c = window_len(&mut e, pc, p[1], p[2], rectangular);
        let ab = e.alu(AluOp::Fadd, Type::F32, &[a, b]);
        let abc = e.alu(AluOp::Fadd, Type::F32, &[ab, c]);
        let (zero, one) = (e.f32(0.0), e.f32(1.0));
        let v4 = |e: &mut Emit, x: [ValueId; 4]| e.alu(AluOp::Vec, Type::vec4(), &x);
        let values = vec![
            v4(&mut e, [a, a, one, zero]),
            v4(&mut e, [ab, ab, zero, one]),
            v4(&mut e, [zero, abc, zero, zero]),
        ];
        (values, e.load(prim_in, None))
    } else if let Some(halfz) = halfz {
        let (f, b, v4) = (Type::F32, Type::BOOL, Type::vec4());
        let (p0, p1) = (p[0], p[1]);
        // Each vertex's side of the near clip plane (`d >= 0` inside).
        let near = |e: &mut Emit, p: ValueId| {
            let z = e.swizzle(f, p, &[2]);
            if halfz {
                z
            } else {
                let w = e.swizzle(f, p, &[3]);
                e.alu(AluOp::Fadd, f, &[z, w])
            }
        };
        let (d0, d1) = (near(&mut e, p0), near(&mut e, p1));
        let zero = e.f32(0.0);
        let in0 = e.alu(AluOp::Fge, b, &[d0, zero]);
        let in1 = e.alu(AluOp::Fge, b, &[d1, zero]);
        let inside = e.alu(AluOp::Band, b, &[in0, in1]);
        let (moved, len, front) = lengthen(&mut e, pc, p0, p1, inside);
        p = moved;
        // Cut by the plane at q = p0 + t (p1 - p0), t = d0 / (d0 - d1)
        // (used only where one vertex is on each side).
        let dd = e.alu(AluOp::Fsub, f, &[d0, d1]);
        let t = e.alu(AluOp::Fdiv, f, &[d0, dd]);
        let tv = e.alu(AluOp::Vec, v4, &[t, t, t, t]);
        let span = e.alu(AluOp::Fsub, v4, &[p1, p0]);
        let q = e.alu(AluOp::Ffma, v4, &[span, tv, p0]);
        let (_, window) = window_of(&mut e, pc);
        let (wa, w0) = window(&mut e, p0);
        let (wb, w1) = window(&mut e, p1);
        let (wq, wqw) = window(&mut e, q);
        let visible = |e: &mut Emit, w: ValueId| e.alu(AluOp::Flt, b, &[zero, w]);
        let (vis0, vis1, visq) = (
            visible(&mut e, w0),
            visible(&mut e, w1),
            visible(&mut e, wqw),
        );
        // The first vertex clipped off: from q to p1, whose values at
        // the vertices are -t / (1 - t) and 1 times the visible length.
        let out0 = e.alu(AluOp::Bnot, b, &[in0]);
        let cut0 = e.alu(AluOp::Band, b, &[out0, in1]);
        let cut0 = e.alu(AluOp::Band, b, &[cut0, vis1]);
        let cut0 = e.alu(AluOp::Band, b, &[cut0, visq]);
        let len0 = e.alu(AluOp::Fdistance, f, &[wq, wb]);
        let one = e.f32(1.0);
        // (Kept off 0: with a vertex on the plane the visible part is a
        // point, and 0 / 0 would be NaN.)
        let tiny = e.f32(1e-6);
        let omt = e.alu(AluOp::Fsub, f, &[one, t]);
        let omt = e.alu(AluOp::Fmax, f, &[omt, tiny]);
        let r = e.alu(AluOp::Fdiv, f, &[t, omt]);
        let r = e.alu(AluOp::Fneg, f, &[r]);
        let start0 = e.alu(AluOp::Fmul, f, &[r, len0]);
        // The second clipped off: from p0 to q, 0 and 1 / t times it.
        let out1 = e.alu(AluOp::Bnot, b, &[in1]);
        let cut1 = e.alu(AluOp::Band, b, &[in0, out1]);
        let cut1 = e.alu(AluOp::Band, b, &[cut1, vis0]);
        let cut1 = e.alu(AluOp::Band, b, &[cut1, visq]);
        let len1 = e.alu(AluOp::Fdistance, f, &[wa, wq]);
        let t_min = e.alu(AluOp::Fmax, f, &[t, tiny]);
        let end1 = e.alu(AluOp::Fdiv, f, &[len1, t_min]);
        let cut = e.alu(AluOp::Bor, b, &[cut0, cut1]);
        let cut_start = e.alu(AluOp::Bcsel, f, &[cut0, start0, zero]);
        let cut_end = e.alu(AluOp::Bcsel, f, &[cut0, len0, end1]);
        let cut_len = e.alu(AluOp::Bcsel, f, &[cut0, len0, len1]);
        // Elsewhere where the segment is not lengthened (a vertex at or
        // behind the eye), values that weigh nothing along it: every
        // fragment at 1/2 of a segment as long as a float goes.
        let half = e.f32(0.5);
        let neg_half = e.f32(-0.5);
        let endless = e.f32(f32::MAX);
        let other_start = e.alu(AluOp::Bcsel, f, &[cut, cut_start, half]);
        let other_end = e.alu(AluOp::Bcsel, f, &[cut, cut_end, half]);
        let other_len = e.alu(AluOp::Bcsel, f, &[cut, cut_len, endless]);
        let len_end = e.alu(AluOp::Fadd, f, &[len, half]);
        let start = e.alu(AluOp::Bcsel, f, &[front, neg_half, other_start]);
        let end = e.alu(AluOp::Bcsel, f, &[front, len_end, other_end]);
        len_value = Some(e.alu(AluOp::Bcsel, f, &[front, len, other_len]));
        let prim = e.load(prim_in, None);
        (vec![start, end], prim)
    } else {
        let len = window_len(&mut e, pc, p[0], p[1], rectangular);
        let prim = e.load(prim_in, None);
        (vec![e.f32(0.0), len], prim)
    };
    for k in 0..n {
        for &(inp, out) in &pairs {
            if inp == pos_in {
                e.store(out, None, p[k]);
            } else {
                copy_vertex_output(&mut e, inp, out, (first + k * step, idx[k]));
            }
        }
        e.store(prim_out, None, prim);
        e.store(stipple, None, values[k]);
        if let (Some(out), Some(m)) = (mask_out, mask) {
            e.store(out, None, m);
        }
        if let (Some(out), Some(len)) = (len_out, len_value) {
            e.store(out, None, len);
        }
        e.void(Op::Intrinsic(Intrinsic::EmitVertex { stream: 0 }));
    }
    e.void(Op::Intrinsic(Intrinsic::EndPrimitive { stream: 0 }));
    let body = e.out;
    gs.body = body;
    crate::validate::validate(&gs)?;
    Ok(gs)
}

/// Inserts `before_emit()` before every `emit_vertex` of stream 0 and
/// `before_end()` before every `end_primitive` of stream 0.
fn insert_at_stream0(
    s: &mut Shader,
    before_emit: &mut dyn FnMut(&mut Shader) -> Vec<Node>,
    before_end: &mut dyn FnMut(&mut Shader) -> Vec<Node>,
) {
    type Make<'a> = &'a mut dyn FnMut(&mut Shader) -> Vec<Node>;
    fn walk(body: &mut Vec<Node>, s: &mut Shader, emit: Make, end: Make) {
        let mut i = 0;
        while i < body.len() {
            let code = match &mut body[i] {
                Node::Instr(Instr {
                    op: Op::Intrinsic(Intrinsic::EmitVertex { stream: 0 }),
                    ..
                }) => Some(emit(s)),
                Node::Instr(Instr {
                    op: Op::Intrinsic(Intrinsic::EndPrimitive { stream: 0 }),
                    ..
                }) => Some(end(s)),
                Node::If(f) => {
                    walk(&mut f.then_body, s, &mut *emit, &mut *end);
                    walk(&mut f.else_body, s, &mut *emit, &mut *end);
                    None
                }
                Node::Loop(l) => {
                    walk(&mut l.body, s, &mut *emit, &mut *end);
                    None
                }
                _ => None,
            };
            if let Some(code) = code {
                let n = code.len();
                body.splice(i..i, code);
                i += n;
            }
            i += 1;
        }
    }
    let mut body = std::mem::take(&mut s.body);
    walk(&mut body, s, before_emit, before_end);
    s.body = body;
}

/// Line stipple in an application geometry shader that emits line strips
/// (see the module docs): adds the `stipple_pos` output and, before each
/// `emit_vertex` of stream 0, adds the window length from the previous
/// vertex of the strip to the running distance and writes it; each
/// `end_primitive` of stream 0 restarts the strip. The position read is
/// the one about to be emitted, so this runs after the other lowerings
/// that change it.
///
/// Does nothing for other stages, for geometry shaders whose output is
/// not `line_strip`, and when the shader already writes `stipple_pos` (a
/// shader from [`line_stipple_gs`]). Errors when the shader writes no
/// `f32x4` position or [`STIPPLE_POS_LOCATION`] is taken.
pub fn lower_line_stipple_gs(s: &mut Shader, rectangular: bool) -> Result<()> {
    if s.stage != Stage::Geometry || s.info.gs_output != Some(GsOutput::LineStrip) {
        return Ok(());
    }
    if find_stipple_pos(s, true)?.is_some() {
        return Ok(());
    }
    let pos = s
        .find_builtin(true, BuiltIn::Position)
        .filter(|&p| s.var(p).ty == Type::vec4() && s.var(p).array.is_none())
        .ok_or_else(|| Error::new("line stipple: the geometry shader writes no f32x4 position"))?;
    let stipple = s.add_var(stipple_var(true));
    let pc = get_push(s);
    let local = |s: &mut Shader, name: &str, ty: Type| {
        s.add_var(Variable {
            name: name.into(),
            kind: VarKind::Local,
            ty,
            array: None,
            inner: None,
        })
    };
    let started = local(s, "stipple_started", Type::BOOL);
    let dist = local(s, "stipple_dist", Type::F32);
    let prev = local(s, "stipple_prev", Type::vec4());
    let mut restart = |s: &mut Shader| {
        let mut e = Emit::new(s);
        let f = e.konst(Type::BOOL, vec![0]);
        e.store(started, None, f);
        let z = e.f32(0.0);
        e.store(dist, None, z);
        e.out
    };
    let mut before_emit = |s: &mut Shader| {
        let mut e = Emit::new(s);
        let p = e.load(pos, None);
        let st = e.load(started, None);
        let mut inner = Emit::new(&mut *e.s);
        let pp = inner.load(prev, None);
        let len = window_len(&mut inner, pc, pp, p, rectangular);
        let d0 = inner.load(dist, None);
        let d1 = inner.alu(AluOp::Fadd, Type::F32, &[d0, len]);
        inner.store(dist, None, d1);
        let then_body = inner.out;
        e.out.push(Node::If(Box::new(If {
            cond: st,
            then_body,
            else_body: vec![],
            loc: None,
        })));
        let d = e.load(dist, None);
        e.store(stipple, None, d);
        e.store(prev, None, p);
        let t = e.konst(Type::BOOL, vec![1]);
        e.store(started, None, t);
        e.out
    };
    let prologue = restart(s);
    insert_at_stream0(s, &mut before_emit, &mut restart);
    s.body.splice(0..0, prologue);
    Ok(())
}

/// Whether [`lower_polygon_line_stipple_gs`] can re-emit the triangles
/// of the geometry shader `s`: it emits triangle strips, on stream 0
/// only.
pub fn can_restrip(s: &Shader) -> bool {
    s.stage == Stage::Geometry
        && s.info.gs_output == Some(GsOutput::TriangleStrip)
        && super::strips::stream0_only(&s.body)
}

/// Line stipple on the polygon-mode lines of an application geometry
/// shader that emits triangle strips (devices without stippled lines):
/// each triangle of its strips is emitted on its own
/// (`strips::each_strip_triangle`, keeping orientation and provoking
/// vertex, `first_provoking`) with `stipple_poly`, its vertices' places
/// along the triangle's outline, as [`polygon_line_stipple_gs`] gives
/// the generated shader's; the fragment shader's half is
/// [`lower_line_stipple_fs`] with `polygon`. Does nothing unless
/// [`can_restrip`]; an error when an output uses
/// [`STIPPLE_POS_LOCATION`] or there is no `f32x4` position.
pub fn lower_polygon_line_stipple_gs(
    s: &mut Shader,
    rectangular: bool,
    first_provoking: bool,
) -> Result<()> {
    if !can_restrip(s) {
        return Ok(());
    }
    for v in s.vars.iter().filter(|v| v.is_output()) {
        let Some(loc) = v.io().and_then(|io| io.location) else {
            continue;
        };
        if (loc..loc.saturating_add(v.locations(s.stage))).contains(&STIPPLE_POS_LOCATION) {
            return Err(Error::new(format!(
                "polygon line stipple: location {STIPPLE_POS_LOCATION} (@{}) is reserved for \
                 {STIPPLE_POLY_NAME}",
                v.name
            )));
        }
    }
    let own = s.vars.len();
    let stipple = s.add_var(Variable {
        name: STIPPLE_POLY_NAME.into(),
        ty: Type::vec4(),
        ..stipple_var(true)
    });
    let pc = get_push(s);
    let mut failed = false;
    super::strips::each_strip_triangle(
        s,
        own,
        &|_| true,
        first_provoking,
        3,
        &mut |e, vtx, rings| {
            let Some(pos) = rings
                .iter()
                .find(|r| r.io.builtin == Some(BuiltIn::Position) && r.ty == Type::vec4())
            else {
                failed = true;
                return;
            };
            let p: Vec<ValueId> = vtx.iter().map(|&v| e.load(pos.ring, Some(v))).collect();
            // As `stipple_gs`: edges v2 -> v0 (a), v0 -> v1 (b), v1 -> v2 (c).
            let a = window_len(e, pc, p[2], p[0], rectangular);
            let b = window_len(e, pc, p[0], p[1], rectangular);
            let c = window_len(e, pc, p[1], p[2], rectangular);
            let ab = e.alu(AluOp::Fadd, Type::F32, &[a, b]);
            let abc = e.alu(AluOp::Fadd, Type::F32, &[ab, c]);
            let (zero, one) = (e.f32(0.0), e.f32(1.0));
            let values = [
                e.alu(AluOp::Vec, Type::vec4(), &[a, a, one, zero]),
                e.alu(AluOp::Vec, Type::vec4(), &[ab, ab, zero, one]),
                e.alu(AluOp::Vec, Type::vec4(), &[zero, abc, zero, zero]),
            ];
            for k in 0..3 {
                for r in rings {
                    let Some(out) = r.out else { continue };
                    match r.array {
                        None => {
                            let v = e.load(r.ring, Some(vtx[k]));
                            e.store(out, None, v);
                        }
                        Some(n) => {
                            for j in 0..n {
                                let at = super::strips::element(e, vtx[k], n, j);
                                let v = e.load(r.ring, Some(at));
                                let jv = e.i32(j as i32);
                                e.store(out, Some(jv), v);
                            }
                        }
                    }
                }
                e.store(stipple, None, values[k]);
                e.void(Op::Intrinsic(Intrinsic::EmitVertex { stream: 0 }));
            }
            e.void(Op::Intrinsic(Intrinsic::EndPrimitive { stream: 0 }));
        },
    )?;
    if failed {
        return Err(Error::new(
            "polygon line stipple: the shader writes no f32x4 position",
        ));
    }
    crate::validate::validate(s)
}

/// Line stipple in the fragment shader (see the module docs): at the start
/// of `main`, discard the fragment when bit `floor(stipple_pos / factor)
/// mod 16` of the pattern is 0. The word at [`push::LINE_STIPPLE`] holds
/// the pattern in bits 0..16 and Gallium's `line_stipple_factor` (GL's
/// factor − 1, 0..=255) in bits 16..24, so `factor = bits 16..24 + 1`.
///
/// `stipple_pos` is added as an input at [`STIPPLE_POS_LOCATION`] (or
/// reused when the shader declares it). The test runs first, like polygon
/// stipple, so a discarded fragment has no side effects. Does nothing in
/// other stages.
pub fn lower_line_stipple_fs(s: &mut Shader, polygon: bool) -> Result<()> {
    if s.stage != Stage::Fragment {
        return Ok(());
    }
    let sp = match find_stipple_pos(s, false)? {
        Some(v) if !polygon => v,
        Some(v) => {
            return Err(Error::new(format!(
                "line stipple: location {STIPPLE_POS_LOCATION} (@{}) is reserved for {STIPPLE_POLY_NAME}",
                s.var(v).name
            )))
        }
        None if polygon => s.add_var(Variable {
            name: STIPPLE_POLY_NAME.into(),
            ty: Type::vec4(),
            ..stipple_var(false)
        }),
        None => s.add_var(stipple_var(false)),
    };
    let pc = get_push(s);
    let mut e = Emit::new(s);
    let raw = e.load(sp, None);
    let pos = if polygon {
        // (q, r, b0, b1) of `polygon_line_stipple_gs`: r on the edge
        // v1 -> v2 (where b0 is the smallest barycentric), else q.
        let f = Type::F32;
        let q = e.swizzle(f, raw, &[0]);
        let r = e.swizzle(f, raw, &[1]);
        let b0 = e.swizzle(f, raw, &[2]);
        let b1 = e.swizzle(f, raw, &[3]);
        let one = e.f32(1.0);
        let b01 = e.alu(AluOp::Fadd, f, &[b0, b1]);
        let b2 = e.alu(AluOp::Fsub, f, &[one, b01]);
        let lt1 = e.alu(AluOp::Flt, Type::BOOL, &[b0, b1]);
        let lt2 = e.alu(AluOp::Flt, Type::BOOL, &[b0, b2]);
        let third = e.alu(AluOp::Band, Type::BOOL, &[lt1, lt2]);
        e.alu(AluOp::Bcsel, f, &[third, r, q])
    } else {
        raw
    };
    // Pixel centres sit at whole distances along axis-aligned and
    // Bresenham lines; interpolation can land a hair below one, so the
    // counter is taken 1/256 pixel further on.
    let eps = e.f32(1.0 / 256.0);
    let pos = e.alu(AluOp::Fadd, Type::F32, &[pos, eps]);
    let (pattern, factor) = stipple_pattern(&mut e, pc);
    let q = e.alu(AluOp::Fdiv, Type::F32, &[pos, factor]);
    let bit = stipple_bit(&mut e, pattern, q);
    let zero = e.u32(0);
    let off_px = e.alu(AluOp::Ieq, Type::BOOL, &[bit, zero]);
    super::gl::discard_first_if(e, off_px);
    Ok(())
}

/// The line stipple pattern (`u32`, 16 bits) and factor (`f32`, 1 to
/// 256) from the driver's push word [`push::LINE_STIPPLE`] (the pattern
/// in bits 0-15, Gallium's factor, one less than GL's, in bits 16-23).
pub(crate) fn stipple_pattern(e: &mut Emit, pc: VarId) -> (ValueId, ValueId) {
    let off = e.u32(push::LINE_STIPPLE);
    let word = e.def(
        Type::U32,
        Op::Intrinsic(Intrinsic::LoadPush {
            var: pc,
            offset: off,
        }),
    );
    let m16 = e.u32(0xffff);
    let pattern = e.alu(AluOp::Iand, Type::U32, &[word, m16]);
    let sixteen = e.u32(16);
    let hi = e.alu(AluOp::Ushr, Type::U32, &[word, sixteen]);
    let m8 = e.u32(0xff);
    let f_minus_1 = e.alu(AluOp::Iand, Type::U32, &[hi, m8]);
    let one = e.u32(1);
    let fu = e.alu(AluOp::Iadd, Type::U32, &[f_minus_1, one]);
    (pattern, e.alu(AluOp::U2f, Type::F32, &[fu]))
}

/// Bit `floor(q) mod 16` of `pattern`, a `u32` 0 or 1 (`q >= 0`, a
/// distance along the line in units of the factor).
pub(crate) fn stipple_bit(e: &mut Emit, pattern: ValueId, q: ValueId) -> ValueId {
    let sixteen_f = e.f32(16.0);
    let m = e.alu(AluOp::Fmod, Type::F32, &[q, sixteen_f]);
    let mi = e.alu(AluOp::F2u, Type::U32, &[m]);
    let m15 = e.u32(15);
    let bit_index = e.alu(AluOp::Iand, Type::U32, &[mi, m15]);
    let shifted = e.alu(AluOp::Ushr, Type::U32, &[pattern, bit_index]);
    let one = e.u32(1);
    e.alu(AluOp::Iand, Type::U32, &[shifted, one])
}
