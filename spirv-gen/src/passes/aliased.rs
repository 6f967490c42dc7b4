//! Aliased rasterization: GL's single-sample rasterization of points and
//! filled triangles on a multisampled framebuffer with multisampling
//! disabled (Gallium's rasterizer `multisample` off,
//! `glDisable(GL_MULTISAMPLE)`).
//!
//! GL then produces a fragment for each pixel whose centre is inside the
//! primitive, and covers all of its samples. Vulkan always rasterizes
//! with the attachments' sample count and has no mode for this (its
//! Bresenham lines do it for lines). A fragment shader can only remove
//! coverage, so the emulation draws a larger primitive and removes what
//! GL would not draw.
//!
//! An application geometry shader widens its own triangles in the same
//! way ([`lower_aliased_gs`]), through the same code ([`emit_expanded`]).
//!
//! Points ([`lower_aliased_points`], [`lower_aliased_points_fs`]) are
//! drawn one pixel larger, and the fragment shader keeps the pixels whose
//! centre is in the original square. Triangles:
//!
//! 1. [`aliased_triangles_gs`], a generated geometry shader after the
//!    vertex shader, moves each edge of the triangle outward (in window
//!    space) by the half-extent of a pixel across it, `(|n.x| + |n.y|) / 2`
//!    for the edge's unit normal `n`: every pixel whose centre is in the
//!    original triangle then has all of its samples in the new one (the
//!    conservative rasterization trick of GPU Gems 2, chapter 42). The new
//!    vertices are extrapolated from the old ones with barycentric
//!    weights, perspective-correct for smooth varyings and the position
//!    (so depth, clip distances and every varying keep their planes),
//!    screen-linear for `noperspective` ones; flat and integer varyings
//!    (and GL's colours under flat shading, which the fragment shader
//!    reads flat) are copied from the corresponding vertex, so the
//!    provoking vertex's values are unchanged. It also writes the `f32x3`
//!    `aliased_edges` at [`ALIASED_EDGES_LOCATION`]: each original edge's
//!    signed window-space distance, positive inside, times the new
//!    vertex's `w`. Interpolated perspective-correctly, that gives the
//!    distance at the fragment (linear in window space) over the
//!    interpolated `1 / w`: the distance times a positive factor, whose
//!    sign is all the fragment shader reads. (Passed `noperspective`,
//!    the distance itself would interpolate exactly, but lavapipe's
//!    clipper interpolates `noperspective` attributes wrongly for
//!    triangles far outside the viewport: `clipped_triangle` in
//!    pipe-cts.)
//! 2. [`lower_aliased_triangles_fs`] discards the fragment when a
//!    distance at the pixel centre is negative, and writes the
//!    triangle's depth at the pixel centre (`FragCoord.z`), so that every
//!    sample gets the pixel's one depth, as in GL; not where the shader
//!    runs per sample, writes its own depth or runs its fragment tests
//!    early.
//!
//! User clip planes and, with depth clipping, the near and far planes
//! are tested at the pixel centre the same way (their clip edges are
//! aliased in GL too): see [`aliased_triangles_gs`].
//!
//! Ties (a pixel centre on an edge) go to one of the two triangles that
//! share the edge: each distance is shifted by 1/512 pixel, towards the
//! inside or the outside depending on the edge's direction, and the two
//! triangles see the edge in opposite directions. Positions are snapped
//! to at least 8 bits of subpixel precision, so the shift is below any
//! distinct distance of a pixel centre from a snapped edge along the
//! axes.
//!
//! A triangle the geometry shader cannot expand safely (a vertex with
//! `w <= 0`, which would need clipping first; no area; an extrapolated
//! vertex behind the eye) is emitted unchanged, with distances that keep
//! every fragment: it is rasterized with sample coverage, as without the
//! emulation.

use super::gl::{
    discard_first_if, driver_varying, get_builtin, get_push, insert_at_vertex_end, replace_loads,
    Emit,
};
use super::strips::element;
use crate::binding::{push, ALIASED_CLIP_LOCATION, ALIASED_EDGES_LOCATION, ALIASED_POINT_LOCATION};
use crate::error::{Error, Result};
use crate::ir::*;

/// Name of the edge distance varying.
pub const ALIASED_EDGES_NAME: &str = "aliased_edges";

/// Name of the clip distance varying (user clip planes).
pub const ALIASED_CLIP_NAME: &str = "aliased_clip";

/// The components of `aliased_clip` that hold the near and far depth
/// planes' distances (see [`aliased_triangles_gs`]).
pub const DEPTH_CLIP_COMPONENTS: [u32; 2] = [6, 7];

/// Whether the depth planes fit beside the user clip planes `clip_planes`
/// (their components and two more `ClipDistance` elements, of GL's 8).
pub fn depth_clip_fits(clip_planes: u8) -> bool {
    clip_planes & 0xc0 == 0
}

/// The `ClipDistance` elements (a mask) that hold the depth planes'
/// distances of a triangle left unchanged, after user planes
/// `clip_planes`: the last stage's clip lowering must keep them.
pub fn depth_clip_distance_bits(clip_planes: u8) -> u8 {
    let n_clip = 8 - clip_planes.leading_zeros();
    0b11 << n_clip
}

fn clip_var(output: bool) -> Variable {
    let mut v = driver_varying(
        ALIASED_CLIP_NAME,
        ALIASED_CLIP_LOCATION,
        Interp::Smooth,
        Type::vec4(),
        output,
    );
    v.array = Some(2);
    v
}

/// The locations the generated shader writes itself.
fn reserved(loc: u32, count: u32) -> bool {
    let end = loc.saturating_add(count);
    (loc..end).contains(&ALIASED_EDGES_LOCATION)
        || (loc..end).contains(&ALIASED_CLIP_LOCATION)
        || (loc..end).contains(&(ALIASED_CLIP_LOCATION + 1))
}

fn edges_var(output: bool) -> Variable {
    driver_varying(
        ALIASED_EDGES_NAME,
        ALIASED_EDGES_LOCATION,
        Interp::Smooth,
        Type::float(32, 3),
        output,
    )
}

/// Whether `prev`'s outputs can all be forwarded by
/// [`aliased_triangles_gs`]: a vertex or tessellation evaluation shader
/// whose built-in outputs are only the position, point size and clip and
/// cull distances, and nothing at [`ALIASED_EDGES_LOCATION`] or the two
/// locations from [`ALIASED_CLIP_LOCATION`].
pub fn can_expand(prev: &Shader) -> bool {
    matches!(prev.stage, Stage::Vertex | Stage::TessEval) && outputs_expandable(&prev.vars)
}

/// [`can_expand`]'s test of the outputs among `vars`.
fn outputs_expandable(vars: &[Variable]) -> bool {
    vars.iter().all(|v| {
        let Some(io) = v.io().filter(|_| v.is_output()) else {
            return true;
        };
        let builtin_ok = matches!(
            io.builtin,
            None | Some(
                BuiltIn::Position
                    | BuiltIn::PointSize
                    | BuiltIn::ClipDistance
                    | BuiltIn::CullDistance
            )
        );
        // Arrays of user varyings are extrapolated element by element;
        // clip and cull distances are arrays too (see
        // `aliased_triangles_gs`).
        builtin_ok
            && (v.array.is_none()
                || matches!(
                    io.builtin,
                    None | Some(BuiltIn::ClipDistance | BuiltIn::CullDistance)
                ))
            && !io.patch
            && !io
                .location
                .is_some_and(|l| reserved(l, v.array.unwrap_or(1)))
    })
}

/// The geometry shader of step 1 (see the module docs): input
/// `triangles`, output `triangle_strip` with 3 vertices in the input's
/// order, one invocation. It declares `prev`'s outputs first, in `prev`'s
/// order, with `prev`'s qualifiers, then `primitive_id` (forwarded) and
/// `aliased_edges`; it reads [`push::VIEWPORT_SCALE`]. With
/// `flat_colors` (the fragment shader's flat shading,
/// [`super::gl::lower_flat_shade`]) GL's colours (slots `col0`, `col1`,
/// `bfc0`, `bfc1`) are copied like flat varyings: the fragment shader
/// reads them from the provoking vertex, which must keep its own value,
/// not the extrapolated one.
///
/// User clip planes (`clip_planes`, the last stage's key item, planes at
/// [`push::CLIP_PLANES`]): GL clips the triangle and rasterizes the
/// clipped polygon single-sampled, so the clip edges are aliased too.
/// Hardware clipping of the widened triangle would cut pixels along them
/// by sample. The shader writes `ClipDistance` 1 instead (no hardware
/// clipping of a widened triangle) and `aliased_clip` at
/// [`ALIASED_CLIP_LOCATION`], component `i` for plane `i`: the plane's
/// distance over `w`, extrapolated screen-linearly, times the new
/// vertex's `w` (perspective-correct, as `aliased_edges`; it is the
/// plane's distance at the new vertex). Its sign at a pixel centre is
/// that of the distance there, and the fragment shader discards where it
/// is negative. A triangle left unchanged (see the module docs)
/// keeps its real distances for the hardware. Where `prev` writes clip
/// distances itself (`gl_ClipDistance`), enabled distance `i` takes user
/// plane `i`'s place (its per-vertex value in place of the plane's dot
/// product; one it does not write never clips); its cull distances are
/// copied from each vertex, so the hardware culls what GL culls. Errors when
/// [`can_expand`] is false or `prev` writes no `f32x4` position. Lower it
/// as the last vertex stage afterwards (clip planes, depth range, point
/// size), like the line stipple geometry shader.
///
/// Depth clipping (`depth_clip`: `Some(clip_halfz)`): GL clips the
/// triangle at the near and far planes too, and the clip edges are
/// aliased like the others. The caller turns the hardware's depth
/// clipping off (and clamping on) for the draw, and the shader treats the
/// two planes as user planes: near `z + w >= 0` (`z >= 0` with
/// `clip_halfz`), far `w - z >= 0`, at components [`DEPTH_CLIP_COMPONENTS`]
/// of `aliased_clip`, which the fragment shader then tests too. A
/// triangle left unchanged is clipped by the hardware instead, with its
/// real depth distances in two more `ClipDistance` elements after the
/// user planes' (their mask bits are [`depth_clip_distance_bits`]). The
/// user planes must leave those components free
/// ([`depth_clip_fits`]).
///
/// With `adjacency` the input is `triangles_adjacency`: the triangle is
/// vertices 0, 2 and 4, as the rasterizer draws it without a geometry
/// shader, and the adjacent vertices are dropped.
pub fn aliased_triangles_gs(
    prev: &Shader,
    flat_colors: bool,
    clip_planes: u8,
    depth_clip: Option<bool>,
    adjacency: bool,
) -> Result<Shader> {
    aliased_triangles_gs_xfb(
        prev,
        flat_colors,
        clip_planes,
        depth_clip,
        adjacency,
        super::xfb::Takeover::default(),
    )
}

/// [`aliased_triangles_gs`] as the last vertex stage of a draw with
/// stream output: it captures `xfb.captures` (their registers numbered
/// among `prev`'s outputs, as `prev`'s own capture list names them), its
/// copies off `xfb.reserved` and the driver's locations. GL captures what `prev` wrote, so each captured register
/// is copied from the input vertex before each vertex is emitted (into a
/// local, [`super::xfb::lower_xfb_from`]'s source), not from the widened
/// vertex's outputs, and clip distances are captured though they are not
/// forwarded. The shader emits one triangle per input triangle, its
/// vertices in the input's order, so the records and the primitive counts
/// are those of the draw without it.
pub fn aliased_triangles_gs_xfb(
    prev: &Shader,
    flat_colors: bool,
    clip_planes: u8,
    depth_clip: Option<bool>,
    adjacency: bool,
    xfb: super::xfb::Takeover,
) -> Result<Shader> {
    let captures = xfb.captures;
    if depth_clip.is_some() && !depth_clip_fits(clip_planes) {
        return Err(Error::new(
            "aliased triangles GS: user clip planes 6 and 7 leave no room for the depth planes",
        ));
    }
    if !can_expand(prev) {
        return Err(Error::new(
            "aliased triangles GS: the previous stage must be a vertex or tess_eval shader \
             whose outputs a geometry shader can forward",
        ));
    }
    let mut gs = Shader::new(Stage::Geometry);
    let (input, stride) = if adjacency {
        (GsInput::TrianglesAdjacency, 2)
    } else {
        (GsInput::Triangles, 1)
    };
    gs.info.gs_input = Some(input);
    gs.info.gs_output = Some(GsOutput::TriangleStrip);
    gs.info.gs_max_vertices = Some(3);
    gs.info.gs_invocations = Some(1);
    // Clip distances the previous stage writes are not forwarded: they
    // take the user clip planes' place below. Cull distances are copied
    // from each vertex, so the hardware culls what GL would.
    let distances = |b: BuiltIn| {
        prev.vars
            .iter()
            .find(|v| v.is_output() && v.builtin() == Some(b))
    };
    let app_clip = distances(BuiltIn::ClipDistance).and_then(|v| v.array);
    let outputs: Vec<&Variable> = prev
        .vars
        .iter()
        .filter(|v| v.is_output() && v.builtin() != Some(BuiltIn::ClipDistance))
        .collect();
    let fw = super::line_stipple::forward_vars(&mut gs, &outputs, 3 * stride as u32);
    let app_clip_in = app_clip.map(|n| {
        let io = IoInfo {
            builtin: Some(BuiltIn::ClipDistance),
            ..Default::default()
        };
        let v = gs.add_var(Variable {
            name: "in_app_clip_distance".into(),
            kind: VarKind::Input(io),
            ty: Type::F32,
            array: Some(3 * stride as u32),
            inner: Some(n),
        });
        (v, n)
    });
    let pos_in = fw
        .position
        .ok_or_else(|| Error::new("aliased triangles GS: no f32x4 position to expand"))?;
    let (prim_in, prim_out, outs) = (fw.prim_in, fw.prim_out, fw.outs);
    let pairs: Vec<(VarId, IoInfo, Type)> = fw
        .ins
        .iter()
        .zip(&outputs)
        .map(|(&inp, v)| (inp, v.io().cloned().unwrap_or_default(), v.ty))
        .collect();
    let edges_out = gs.add_var(edges_var(true));
    let n_clip = 8 - clip_planes.leading_zeros();
    let n_hw = n_clip + if depth_clip.is_some() { 2 } else { 0 };
    let clip_out = (n_hw != 0).then(|| {
        let hw = get_builtin(&mut gs, true, BuiltIn::ClipDistance, Type::F32, Some(n_hw));
        (hw, gs.add_var(clip_var(true)))
    });
    let pc = get_push(&mut gs);
    // The captured registers' sources: a local per captured output of
    // `prev`, set from its input (see `Expand::shadows`).
    let mut sources = Vec::new();
    let mut shadows = Vec::new();
    let mut forwarded = fw.ins.iter();
    for (r, v) in prev.vars.iter().filter(|v| v.is_output()).enumerate() {
        let input = if v.builtin() == Some(BuiltIn::ClipDistance) {
            app_clip_in.map(|(i, _)| i)
        } else {
            forwarded.next().copied()
        };
        let Some(input) = input else {
            return Err(Error::new(format!(
                "aliased triangles GS: output @{} is not forwarded",
                v.name
            )));
        };
        if !captures.iter().any(|c| c.output as usize == r) {
            sources.push(input);
            continue;
        }
        let local = gs.add_var(Variable {
            name: format!("xfb_src_{}", v.name),
            kind: VarKind::Local,
            ty: v.ty,
            array: v.array,
            inner: None,
        });
        shadows.push((local, input, v.array));
        sources.push(local);
    }
    let mut e = Emit::new(&mut gs);
    // The input vertex of triangle vertex i.
    let vtx = [0, 1, 2].map(|i| e.i32(i * stride));
    let prim = e.load(prim_in, None);
    let x = Expand {
        shadows,
        vtx,
        pos: pos_in,
        app_clip: app_clip_in,
        pairs: pairs
            .into_iter()
            .zip(outs)
            .map(|((inp, io, ty), out)| (inp, io, ty, out))
            .collect(),
        prim: Some((prim, prim_out)),
        edges_out,
        clip_out,
        pc,
        flat_colors,
        clip_planes,
        depth_clip,
    };
    emit_expanded(&mut e, &x);
    gs.body = e.out;
    crate::validate::validate(&gs)?;
    if !captures.is_empty() {
        let reserved = xfb.reserved | super::xfb::DRIVER_LOCATIONS;
        super::xfb::lower_xfb_from(&mut gs, captures, xfb.strides, &sources, reserved)?;
        crate::validate::validate(&gs)?;
    }
    Ok(gs)
}

/// Where [`emit_expanded`] reads a triangle's vertices and writes the
/// widened one: the generated shader's inputs ([`aliased_triangles_gs`])
/// or an application geometry shader's last three vertices
/// ([`lower_aliased_gs`]).
struct Expand {
    /// Captured values: (local, input, array length). Before vertex k is
    /// emitted, the local gets input vertex k's value, which transform
    /// feedback captures (see [`aliased_triangles_gs_xfb`]).
    shadows: Vec<(VarId, VarId, Option<u32>)>,
    /// Triangle vertex i's index into the sources (for an array source,
    /// its elements start at `vtx[i] * len`).
    vtx: [ValueId; 3],
    /// The `f32x4` clip positions.
    pos: VarId,
    /// Clip distances the shader wrote, and how many.
    app_clip: Option<(VarId, u32)>,
    /// Each forwarded value: (source, its qualifiers, type, output).
    pairs: Vec<(VarId, IoInfo, Type, VarId)>,
    /// The primitive id value and its output.
    prim: Option<(ValueId, VarId)>,
    edges_out: VarId,
    /// The hardware `ClipDistance` output and `aliased_clip`.
    clip_out: Option<(VarId, VarId)>,
    pc: VarId,
    flat_colors: bool,
    clip_planes: u8,
    depth_clip: Option<bool>,
}

/// The widened triangle of `x`'s three vertices, emitted as a strip of
/// three in their order (see [`aliased_triangles_gs`]), then
/// `end_primitive`.
fn emit_expanded(e: &mut Emit, x: &Expand) {
    let n_clip = 8 - x.clip_planes.leading_zeros();
    let n_hw = n_clip + if x.depth_clip.is_some() { 2 } else { 0 };
    let (clip_planes, depth_clip, flat_colors) = (x.clip_planes, x.depth_clip, x.flat_colors);
    let f = Type::F32;
    let f2 = Type::float(32, 2);
    let idx: Vec<ValueId> = (0..3).map(|i| e.i32(i)).collect();
    let vtx = x.vtx;
    let p: Vec<ValueId> = vtx.iter().map(|&i| e.load(x.pos, Some(i))).collect();
    let off = e.u32(push::VIEWPORT_SCALE);
    let scale = e.def(
        f2,
        Op::Intrinsic(Intrinsic::LoadPush {
            var: x.pc,
            offset: off,
        }),
    );
    let (zero, one, half) = (e.f32(0.0), e.f32(1.0), e.f32(0.5));
    let tiny = e.f32(1e-6);
    // Window positions (relative to the viewport centre) and w.
    let mut win = Vec::new();
    let mut w = Vec::new();
    let mut ok = e.konst(Type::BOOL, vec![1]);
    for &pi in &p {
        let xy = e.swizzle(f2, pi, &[0, 1]);
        let wi = e.swizzle(f, pi, &[3]);
        let ww = e.alu(AluOp::Vec, f2, &[wi, wi]);
        let ndc = e.alu(AluOp::Fdiv, f2, &[xy, ww]);
        win.push(e.alu(AluOp::Fmul, f2, &[ndc, scale]));
        let pos_w = e.alu(AluOp::Flt, Type::BOOL, &[tiny, wi]);
        ok = e.alu(AluOp::Band, Type::BOOL, &[ok, pos_w]);
        w.push(wi);
    }
    let cross = |e: &mut Emit, a: ValueId, b: ValueId| {
        let ax = e.swizzle(f, a, &[0]);
        let ay = e.swizzle(f, a, &[1]);
        let bx = e.swizzle(f, b, &[0]);
        let by = e.swizzle(f, b, &[1]);
        let l = e.alu(AluOp::Fmul, f, &[ax, by]);
        let r = e.alu(AluOp::Fmul, f, &[ay, bx]);
        e.alu(AluOp::Fsub, f, &[l, r])
    };
    let e01 = e.alu(AluOp::Fsub, f2, &[win[1], win[0]]);
    let e02 = e.alu(AluOp::Fsub, f2, &[win[2], win[0]]);
    let area = cross(e, e01, e02);
    let abs_area = e.alu(AluOp::Fabs, f, &[area]);
    let has_area = e.alu(AluOp::Flt, Type::BOOL, &[tiny, abs_area]);
    ok = e.alu(AluOp::Band, Type::BOOL, &[ok, has_area]);
    let o = e.alu(AluOp::Fsign, f, &[area]);
    // Edge i runs from vertex i to vertex i + 1: its inward unit normal
    // g, its pixel half-extent r and its tie shift s / 512.
    let mut g = Vec::new();
    let mut r = Vec::new();
    let mut shift = Vec::new();
    let eps = e.f32(1.0 / 512.0);
    for i in 0..3 {
        let d = e.alu(AluOp::Fsub, f2, &[win[(i + 1) % 3], win[i]]);
        let len = e.alu(AluOp::Flength, f, &[d]);
        let dx = e.swizzle(f, d, &[0]);
        let dy = e.swizzle(f, d, &[1]);
        let ndy = e.alu(AluOp::Fneg, f, &[dy]);
        let n = e.alu(AluOp::Vec, f2, &[ndy, dx]);
        let ol = e.alu(AluOp::Fdiv, f, &[o, len]);
        let olv = e.alu(AluOp::Vec, f2, &[ol, ol]);
        let gi = e.alu(AluOp::Fmul, f2, &[n, olv]);
        let ag = e.alu(AluOp::Fabs, f2, &[gi]);
        let (ax, ay) = (e.swizzle(f, ag, &[0]), e.swizzle(f, ag, &[1]));
        let sum = e.alu(AluOp::Fadd, f, &[ax, ay]);
        r.push(e.alu(AluOp::Fmul, f, &[sum, half]));
        // Antisymmetric in g: the triangle across the edge, which sees it
        // the other way, shifts the other way.
        let (gx, gy) = (e.swizzle(f, gi, &[0]), e.swizzle(f, gi, &[1]));
        let up = e.alu(AluOp::Flt, Type::BOOL, &[zero, gy]);
        let flat_y = e.alu(AluOp::Feq, Type::BOOL, &[gy, zero]);
        let right = e.alu(AluOp::Flt, Type::BOOL, &[zero, gx]);
        let fr = e.alu(AluOp::Band, Type::BOOL, &[flat_y, right]);
        let pos_side = e.alu(AluOp::Bor, Type::BOOL, &[up, fr]);
        let neg_eps = e.alu(AluOp::Fneg, f, &[eps]);
        shift.push(e.alu(AluOp::Bcsel, f, &[pos_side, eps, neg_eps]));
        g.push(gi);
    }
    let dist = |e: &mut Emit, i: usize, x: ValueId| {
        let rel = e.alu(AluOp::Fsub, f2, &[x, win[i]]);
        e.alu(AluOp::Fdot, f, &[g[i], rel])
    };
    let big = e.f32(1.0e6);
    let mut verts = Vec::new();
    for k in 0..3 {
        // Vertex k moves to where the shifted lines of edges k - 1 and k
        // meet: g_a . delta = -r_a, g_b . delta = -r_b.
        let (a, b) = ((k + 2) % 3, k);
        let (gax, gay) = (e.swizzle(f, g[a], &[0]), e.swizzle(f, g[a], &[1]));
        let (gbx, gby) = (e.swizzle(f, g[b], &[0]), e.swizzle(f, g[b], &[1]));
        let det = cross(e, g[a], g[b]);
        let abs_det = e.alu(AluOp::Fabs, f, &[det]);
        let min_det = e.f32(1e-3);
        let not_parallel = e.alu(AluOp::Flt, Type::BOOL, &[min_det, abs_det]);
        let t1 = e.alu(AluOp::Fmul, f, &[r[a], gby]);
        let t2 = e.alu(AluOp::Fmul, f, &[r[b], gay]);
        let nx = e.alu(AluOp::Fsub, f, &[t2, t1]);
        let t3 = e.alu(AluOp::Fmul, f, &[r[b], gax]);
        let t4 = e.alu(AluOp::Fmul, f, &[r[a], gbx]);
        let ny = e.alu(AluOp::Fsub, f, &[t4, t3]);
        let dx = e.alu(AluOp::Fdiv, f, &[nx, det]);
        let dy = e.alu(AluOp::Fdiv, f, &[ny, det]);
        let delta = e.alu(AluOp::Vec, f2, &[dx, dy]);
        let x = e.alu(AluOp::Fadd, f2, &[win[k], delta]);
        // Screen-space barycentrics of x, then perspective weights.
        let mut beta = Vec::new();
        for i in 0..3 {
            let u = e.alu(AluOp::Fsub, f2, &[win[(i + 1) % 3], x]);
            let v = e.alu(AluOp::Fsub, f2, &[win[(i + 2) % 3], x]);
            let c = cross(e, u, v);
            beta.push(e.alu(AluOp::Fdiv, f, &[c, area]));
        }
        let q: Vec<ValueId> = (0..3)
            .map(|i| e.alu(AluOp::Fdiv, f, &[beta[i], w[i]]))
            .collect();
        let qs = e.alu(AluOp::Fadd, f, &[q[0], q[1]]);
        let qs = e.alu(AluOp::Fadd, f, &[qs, q[2]]);
        let front = e.alu(AluOp::Flt, Type::BOOL, &[tiny, qs]);
        let mu: Vec<ValueId> = (0..3).map(|i| e.alu(AluOp::Fdiv, f, &[q[i], qs])).collect();
        // Times the new vertex's w, `1 / qs` (see the module docs).
        let t: Vec<ValueId> = (0..3)
            .map(|i| {
                let d = dist(e, i, x);
                let d = e.alu(AluOp::Fadd, f, &[d, shift[i]]);
                e.alu(AluOp::Fdiv, f, &[d, qs])
            })
            .collect();
        let vok = e.alu(AluOp::Band, Type::BOOL, &[not_parallel, front]);
        verts.push((beta, mu, t, vok, qs));
    }
    // One decision for the whole triangle.
    for (_, _, _, vok, _) in &verts {
        ok = e.alu(AluOp::Band, Type::BOOL, &[ok, *vok]);
    }
    // Each plane's distance at the vertices, and over w, with its
    // component of `aliased_clip` and its `ClipDistance` element: the
    // enabled user planes (or the previous stage's clip distances, which
    // GL's enables select the same way), then the depth planes.
    let mut plane_defs = Vec::new();
    let mut app_planes = Vec::new();
    for i in (0..n_clip).filter(|i| clip_planes & (1 << i) != 0) {
        if let Some((var, n)) = x.app_clip {
            // A distance it does not write does not clip.
            let d: Vec<ValueId> = (0..3)
                .map(|j| {
                    if i < n {
                        let idx = element(e, vtx[j], n, i);
                        e.load(var, Some(idx))
                    } else {
                        one
                    }
                })
                .collect();
            app_planes.push((i as usize, i as usize, d));
            continue;
        }
        let off = e.u32(push::CLIP_PLANES + 16 * i);
        let plane = e.def(
            Type::vec4(),
            Op::Intrinsic(Intrinsic::LoadPush {
                var: x.pc,
                offset: off,
            }),
        );
        plane_defs.push((i as usize, i as usize, plane));
    }
    if let Some(halfz) = depth_clip {
        let near_w = if halfz { zero } else { one };
        let minus_one = e.f32(-1.0);
        let near = e.alu(AluOp::Vec, Type::vec4(), &[zero, zero, one, near_w]);
        let far = e.alu(AluOp::Vec, Type::vec4(), &[zero, zero, minus_one, one]);
        let [cn, cf] = DEPTH_CLIP_COMPONENTS;
        plane_defs.push((cn as usize, n_clip as usize, near));
        plane_defs.push((cf as usize, n_clip as usize + 1, far));
    }
    let mut distances = app_planes;
    for (comp, hw_index, plane) in plane_defs {
        let d: Vec<ValueId> = p
            .iter()
            .map(|&pj| e.alu(AluOp::Fdot, f, &[pj, plane]))
            .collect();
        distances.push((comp, hw_index, d));
    }
    let mut planes = Vec::new();
    for (comp, hw_index, d) in distances {
        let dw: Vec<ValueId> = (0..3)
            .map(|j| e.alu(AluOp::Fdiv, f, &[d[j], w[j]]))
            .collect();
        planes.push((comp, hw_index, d, dw));
    }
    for (k, (beta, mu, t, _, qs)) in verts.into_iter().enumerate() {
        if let Some((hw_var, clip_var)) = x.clip_out {
            let mut comps = [big; 8];
            let mut hw = vec![one; n_hw as usize];
            for (comp, hw_index, d, dw) in &planes {
                let mut acc = None;
                for j in 0..3 {
                    let term = e.alu(AluOp::Fmul, f, &[beta[j], dw[j]]);
                    acc = Some(match acc {
                        None => term,
                        Some(a) => e.alu(AluOp::Fadd, f, &[a, term]),
                    });
                }
                // Over w, screen-linear; times the new vertex's w.
                let screen = acc.unwrap_or(zero);
                let at_vertex = e.alu(AluOp::Fdiv, f, &[screen, qs]);
                comps[*comp] = e.alu(AluOp::Bcsel, f, &[ok, at_vertex, big]);
                hw[*hw_index] = e.alu(AluOp::Bcsel, f, &[ok, one, d[k]]);
            }
            for (i, &v) in hw.iter().enumerate() {
                let idx = e.i32(i as i32);
                e.store(hw_var, Some(idx), v);
            }
            for half in 0..2 {
                let v = e.alu(AluOp::Vec, Type::vec4(), &comps[4 * half..4 * half + 4]);
                e.store(clip_var, Some(idx[half]), v);
            }
        }
        let pick = |e: &mut Emit, calc: ValueId, i: usize| {
            let keep = if i == k { one } else { zero };
            e.alu(AluOp::Bcsel, f, &[ok, calc, keep])
        };
        let beta: Vec<ValueId> = (0..3).map(|i| pick(e, beta[i], i)).collect();
        let mu: Vec<ValueId> = (0..3).map(|i| pick(e, mu[i], i)).collect();
        let t: Vec<ValueId> = t
            .into_iter()
            .map(|ti| e.alu(AluOp::Bcsel, f, &[ok, ti, big]))
            .collect();
        for &(inp, ref io, ty, out) in &x.pairs {
            let flat_color = flat_colors
                && matches!(
                    io.slot,
                    Some(GlSlot::Col0 | GlSlot::Col1 | GlSlot::Bfc0 | GlSlot::Bfc1)
                );
            let weights = match io.interp {
                // A captured copy (`xfb::lower_xfb_copies`): transform
                // feedback gets the vertex's own value.
                _ if io.xfb.is_some() => None,
                _ if io.builtin == Some(BuiltIn::Position) => Some(&mu),
                _ if io.builtin.is_some() || flat_color => None,
                Interp::Flat => None,
                Interp::NoPerspective => Some(&beta),
                Interp::Smooth => Some(&mu),
            };
            // An array varying: element by element, from the input's
            // flat index (vertex * len + element).
            let len = e.s.var(out).array;
            for j in 0..len.unwrap_or(1) {
                let at = |e: &mut Emit, i: usize| match len {
                    None => vtx[i],
                    Some(n) => element(e, vtx[i], n, j),
                };
                let value = match weights {
                    Some(wts) if ty.is_float() && ty.bits == 32 => {
                        let mut acc = None;
                        for (i, &wi) in wts.iter().enumerate() {
                            let index = at(e, i);
                            let vi = e.load(inp, Some(index));
                            let splat = if ty.comps > 1 {
                                e.alu(AluOp::Vec, ty, &vec![wi; ty.comps as usize])
                            } else {
                                wi
                            };
                            let term = e.alu(AluOp::Fmul, ty, &[vi, splat]);
                            acc = Some(match acc {
                                None => term,
                                Some(a) => e.alu(AluOp::Fadd, ty, &[a, term]),
                            });
                        }
                        acc.unwrap_or(zero)
                    }
                    _ => {
                        let index = at(e, k);
                        e.load(inp, Some(index))
                    }
                };
                let element = len.map(|_| e.i32(j as i32));
                e.store(out, element, value);
            }
        }
        if let Some((prim, prim_out)) = x.prim {
            e.store(prim_out, None, prim);
        }
        let tv = e.alu(AluOp::Vec, Type::float(32, 3), &t);
        e.store(x.edges_out, None, tv);
        for &(local, input, len) in &x.shadows {
            match len {
                None => {
                    let v = e.load(input, Some(vtx[k]));
                    e.store(local, None, v);
                }
                Some(n) => {
                    for j in 0..n {
                        let at = element(e, vtx[k], n, j);
                        let v = e.load(input, Some(at));
                        let to = e.i32(j as i32);
                        e.store(local, Some(to), v);
                    }
                }
            }
        }
        e.void(Op::Intrinsic(Intrinsic::EmitVertex { stream: 0 }));
    }
    e.void(Op::Intrinsic(Intrinsic::EndPrimitive { stream: 0 }));
}

/// Whether [`lower_aliased_gs`] can widen the triangles of the geometry
/// shader `s`: it emits triangle strips on stream 0 only, writes an
/// `f32x4` position, and its other outputs are ones [`can_expand`]
/// allows (user varyings, point size, clip and cull distances, nothing at
/// the driver's aliased locations).
pub fn can_expand_gs(s: &Shader) -> bool {
    fn streams_ok(body: &[Node]) -> bool {
        body.iter().all(|n| match n {
            Node::Instr(Instr {
                op:
                    Op::Intrinsic(
                        Intrinsic::EmitVertex { stream } | Intrinsic::EndPrimitive { stream },
                    ),
                ..
            }) => *stream == 0,
            Node::If(f) => streams_ok(&f.then_body) && streams_ok(&f.else_body),
            Node::Loop(l) => streams_ok(&l.body),
            _ => true,
        })
    }
    s.stage == Stage::Geometry
        && s.info.gs_output == Some(GsOutput::TriangleStrip)
        && s.vars.iter().any(|v| {
            v.is_output() && v.builtin() == Some(BuiltIn::Position) && v.ty == Type::vec4()
        })
        && outputs_expandable(&s.vars)
        && streams_ok(&s.body)
}

/// Aliased triangles drawn by an application geometry shader (its half
/// of step 1; see the module docs): the shader's outputs become locals
/// it writes as before, and at each `emit_vertex` their values go into a
/// ring of the strip's last three vertices; from the strip's third
/// vertex on, each triangle is widened as [`aliased_triangles_gs`] widens
/// its input ([`emit_expanded`]) and emitted as a strip of its own,
/// through outputs declared like the old ones, with `aliased_edges` and,
/// with `clip_planes` or `depth_clip`, `aliased_clip` and the hardware
/// clip distances. `end_primitive` starts a new strip. A strip's odd
/// triangles keep their orientation and their provoking vertex (the
/// strip's first vertex of the triangle with `first_provoking`, else
/// its last). `max_vertices` triples (less two strips' worth: at most
/// `3 * (max - 2)`). Errors unless [`can_expand_gs`]; lower the last
/// vertex stage's state (clip planes, depth range, point size)
/// afterwards, as for the generated shader.
pub fn lower_aliased_gs(
    s: &mut Shader,
    flat_colors: bool,
    clip_planes: u8,
    depth_clip: Option<bool>,
    first_provoking: bool,
) -> Result<()> {
    if depth_clip.is_some() && !depth_clip_fits(clip_planes) {
        return Err(Error::new(
            "aliased triangles GS: user clip planes 6 and 7 leave no room for the depth planes",
        ));
    }
    if !can_expand_gs(s) {
        return Err(Error::new(
            "aliased triangles: the geometry shader must emit triangle strips on stream 0 with \
             outputs it can widen",
        ));
    }
    let own = s.vars.len();
    let edges_out = s.add_var(edges_var(true));
    let n_clip = 8 - clip_planes.leading_zeros();
    let n_hw = n_clip + if depth_clip.is_some() { 2 } else { 0 };
    // The shader's clip distances are read as the user planes' (as the
    // generated shader reads the previous stage's), not forwarded.
    let app_clip_len = s
        .vars
        .iter()
        .find(|v| v.is_output() && v.builtin() == Some(BuiltIn::ClipDistance))
        .map(|v| v.array.unwrap_or(1));
    // A new ClipDistance output: the shader's own becomes a local.
    let clip_out = (n_hw != 0).then(|| {
        let hw = s.add_var(Variable {
            name: "aliased_clip_distance".into(),
            kind: VarKind::Output(IoInfo {
                builtin: Some(BuiltIn::ClipDistance),
                ..Default::default()
            }),
            ty: Type::F32,
            array: Some(n_hw),
            inner: None,
        });
        (hw, s.add_var(clip_var(true)))
    });
    let pc = get_push(s);
    let keep = |io: &IoInfo| io.builtin != Some(BuiltIn::ClipDistance);
    let mut failed = None;
    super::strips::each_strip_triangle(s, own, &keep, first_provoking, 3, &mut |e, vtx, rings| {
        let ring_of = |b: BuiltIn| rings.iter().find(|r| r.io.builtin == Some(b));
        let Some(pos) = ring_of(BuiltIn::Position).filter(|r| r.ty == Type::vec4()) else {
            failed = Some("no f32x4 position");
            return;
        };
        // Rings of the shader's outputs (not the driver's new ones).
        let app_clip = app_clip_len.and_then(|n| {
            rings
                .iter()
                .find(|r| r.io.builtin == Some(BuiltIn::ClipDistance))
                .map(|r| (r.ring, n))
        });
        let pairs = rings
            .iter()
            .filter_map(|r| Some((r.ring, r.io.clone(), r.ty, r.out?)))
            .collect();
        let x = Expand {
            shadows: Vec::new(),
            vtx,
            pos: pos.ring,
            app_clip,
            pairs,
            prim: None,
            edges_out,
            clip_out,
            pc,
            flat_colors,
            clip_planes,
            depth_clip,
        };
        emit_expanded(e, &x);
    })?;
    if let Some(why) = failed {
        return Err(Error::new(format!("aliased triangles GS: {why}")));
    }
    crate::validate::validate(s)?;
    Ok(())
}

/// Step 2 (see the module docs): at the start of `main`, discards the
/// fragment when a distance of `aliased_edges` is negative, or with
/// `clip_planes`, a distance of `aliased_clip` for an enabled plane (see
/// [`aliased_triangles_gs`]). Adds the inputs; errors when the shader
/// uses [`ALIASED_EDGES_LOCATION`] (or, with clip planes, the locations
/// of `aliased_clip`) itself. Does nothing in other stages.
pub fn lower_aliased_triangles_fs(s: &mut Shader, clip_planes: u8) -> Result<()> {
    if s.stage != Stage::Fragment {
        return Ok(());
    }
    for v in &s.vars {
        let Some(io) = v.io().filter(|_| v.is_input()) else {
            continue;
        };
        let Some(loc) = io.location.filter(|_| io.builtin.is_none()) else {
            continue;
        };
        let end = loc.saturating_add(v.locations(s.stage));
        let clip = clip_planes != 0
            && ((loc..end).contains(&ALIASED_CLIP_LOCATION)
                || (loc..end).contains(&(ALIASED_CLIP_LOCATION + 1)));
        if (loc..end).contains(&ALIASED_EDGES_LOCATION) || clip {
            return Err(Error::new(format!(
                "aliased triangles: location {loc} (@{}) is reserved for {ALIASED_EDGES_NAME} \
                 and {ALIASED_CLIP_NAME}",
                v.name
            )));
        }
    }
    let var = s.add_var(edges_var(false));
    let clip_in = (clip_planes != 0).then(|| s.add_var(clip_var(false)));
    // GL's single-sample rasterization gives the pixel one depth, the
    // triangle's at the pixel centre, for every sample it covers: the
    // shader writes `FragCoord.z`, which Vulkan gives at the centre where
    // the shader runs once per pixel. Not where it runs per sample (it
    // reads the sample id or position, or a sample-qualified input:
    // `FragCoord` is then at the sample, and moving its depth to the
    // centre by derivatives failed on NVIDIA), where it writes a depth
    // itself, or where its fragment tests run early (they would ignore
    // the write).
    let per_sample = s.vars.iter().filter(|v| v.is_input()).any(|v| {
        matches!(v.builtin(), Some(BuiltIn::SampleId | BuiltIn::SamplePos))
            || v.io().is_some_and(|io| io.sampling == Sampling::Sample)
    });
    let depth = (s.find_builtin(true, BuiltIn::FragDepth).is_none()
        && !s.info.early_fragment_tests
        && !per_sample)
        .then(|| {
            (
                get_builtin(s, false, BuiltIn::FragCoord, Type::vec4(), None),
                get_builtin(s, true, BuiltIn::FragDepth, Type::F32, None),
            )
        });
    let f = Type::F32;
    let mut e = Emit::new(s);
    if let Some((coord, frag_depth)) = depth {
        let fc = e.load(coord, None);
        let z = e.swizzle(f, fc, &[2]);
        e.store(frag_depth, None, z);
    }
    // At the pixel centre even where the shader runs per sample (it reads
    // the sample id or sample-qualified inputs): GL rasterizes the pixel
    // whole.
    let zero = e.f32(0.0);
    let centre = e.alu(AluOp::Vec, Type::float(32, 2), &[zero, zero]);
    let t = e.def(
        Type::float(32, 3),
        Op::Intrinsic(Intrinsic::Interp {
            var,
            index: None,
            at: InterpAt::Offset(centre),
        }),
    );
    let mut outside = e.konst(Type::BOOL, vec![0]);
    for c in 0..3u8 {
        let x = e.swizzle(f, t, &[c]);
        let neg = e.alu(AluOp::Flt, Type::BOOL, &[x, zero]);
        outside = e.alu(AluOp::Bor, Type::BOOL, &[outside, neg]);
    }
    if let Some(clip_in) = clip_in {
        for half in 0..2u8 {
            if clip_planes >> (4 * half) & 0xf == 0 {
                continue;
            }
            let idx = e.i32(i32::from(half));
            let c = e.def(
                Type::vec4(),
                Op::Intrinsic(Intrinsic::Interp {
                    var: clip_in,
                    index: Some(idx),
                    at: InterpAt::Offset(centre),
                }),
            );
            for comp in (0..4u8).filter(|c| clip_planes & (1 << (4 * half + c)) != 0) {
                let x = e.swizzle(f, c, &[comp]);
                let neg = e.alu(AluOp::Flt, Type::BOOL, &[x, zero]);
                outside = e.alu(AluOp::Bor, Type::BOOL, &[outside, neg]);
            }
        }
    }
    discard_first_if(e, outside);
    Ok(())
}

// --- Points -----------------------------------------------------------

/// Name of the aliased-point size varying ([`ALIASED_POINT_LOCATION`]).
pub const ALIASED_POINT_NAME: &str = "aliased_point_size";

/// Errors when a variable of the shader other than `name` uses `location`
/// for its input (`input`) or output.
pub(super) fn check_location_free(
    s: &Shader,
    location: u32,
    input: bool,
    name: &str,
) -> Result<()> {
    for v in &s.vars {
        let Some(io) = v.io() else { continue };
        if v.is_input() != input || io.builtin.is_some() {
            continue;
        }
        let Some(loc) = io.location else { continue };
        if (loc..loc.saturating_add(v.locations(s.stage))).contains(&location) && v.name != name {
            return Err(Error::new(format!(
                "location {location} (@{}) is reserved for {name}",
                v.name
            )));
        }
    }
    Ok(())
}

/// Vulkan's standard sample locations (the Vulkan specification's
/// multisampling chapter) of `samples` samples, in a pixel: x, y in
/// `[0, 1)`, y down. `None` for other counts.
pub fn standard_sample_locations(samples: u8) -> Option<&'static [(f32, f32)]> {
    const TWO: [(f32, f32); 2] = [(0.75, 0.75), (0.25, 0.25)];
    const FOUR: [(f32, f32); 4] = [
        (0.375, 0.125),
        (0.875, 0.375),
        (0.125, 0.625),
        (0.625, 0.875),
    ];
    const EIGHT: [(f32, f32); 8] = [
        (0.5625, 0.3125),
        (0.4375, 0.6875),
        (0.8125, 0.5625),
        (0.3125, 0.1875),
        (0.1875, 0.8125),
        (0.0625, 0.4375),
        (0.6875, 0.9375),
        (0.9375, 0.0625),
    ];
    const SIXTEEN: [(f32, f32); 16] = [
        (0.5625, 0.5625),
        (0.4375, 0.3125),
        (0.3125, 0.625),
        (0.75, 0.4375),
        (0.1875, 0.375),
        (0.625, 0.8125),
        (0.8125, 0.6875),
        (0.6875, 0.1875),
        (0.375, 0.875),
        (0.5, 0.0625),
        (0.25, 0.125),
        (0.125, 0.75),
        (0.0, 0.5),
        (0.9375, 0.25),
        (0.875, 0.9375),
        (0.0625, 0.0),
    ];
    match samples {
        2 => Some(&TWO),
        4 => Some(&FOUR),
        8 => Some(&EIGHT),
        16 => Some(&SIXTEEN),
        _ => None,
    }
}

/// GL's multisampled points that are not sprites (compatibility
/// profile, `POINT_SPRITE` off, multisampling on): the samples covered
/// are those inside the circle of diameter the point's size (GL 4.6
/// compatibility, 14.4.3), where Vulkan covers the square. The square
/// holds the circle, so the fragment shader keeps the samples in it: the
/// point's size is `1 / dFdx(PointCoord.x)` (read first, in uniform
/// control flow) and the pixel centre's offset from the point's centre
/// `(PointCoord - 0.5) * size`. The shader writes `SampleMask` with the
/// bits of the samples (at Vulkan's standard locations for `samples`)
/// inside the circle, ANDed with what the shader writes there itself,
/// and discards the fragment when none is. For a shader run per pixel
/// only: Vulkan lets `PointCoord` be taken at the pixel centre or at a
/// sample, so a shader run per sample could not tell where its sample
/// is from it. Runs after the lowerings that rewrite the shader's own
/// `PointCoord` reads (sprite coordinates).
pub fn lower_round_points_fs(s: &mut Shader, samples: u8) -> Result<()> {
    if s.stage != Stage::Fragment {
        return Ok(());
    }
    let locations = standard_sample_locations(samples).ok_or_else(|| {
        Error::new(format!(
            "round points: no standard locations for {samples} samples"
        ))
    })?;
    let f = Type::F32;
    let v2 = Type::float(32, 2);
    let pcv = get_builtin(s, false, BuiltIn::PointCoord, v2, None);
    let mut e = Emit::new(s);
    let pc = e.load(pcv, None);
    let x = e.swizzle(f, pc, &[0]);
    let y = e.swizzle(f, pc, &[1]);
    let dx = e.alu(AluOp::Fddx, f, &[x]);
    let size = e.alu(AluOp::Frcp, f, &[dx]);
    let half = e.f32(0.5);
    let r = e.alu(AluOp::Fmul, f, &[size, half]);
    let r2 = e.alu(AluOp::Fmul, f, &[r, r]);
    let cx = e.alu(AluOp::Fsub, f, &[x, half]);
    let cx = e.alu(AluOp::Fmul, f, &[cx, size]);
    let cy = e.alu(AluOp::Fsub, f, &[y, half]);
    let cy = e.alu(AluOp::Fmul, f, &[cy, size]);
    let inside = |e: &mut Emit<'_>, ox: ValueId, oy: ValueId| {
        let yy = e.alu(AluOp::Fmul, f, &[oy, oy]);
        let d2 = e.alu(AluOp::Ffma, f, &[ox, ox, yy]);
        e.alu(AluOp::Fge, Type::BOOL, &[r2, d2])
    };
    let mut mask = e.i32(0);
    for (k, &(sx, sy)) in locations.iter().enumerate() {
        let ox = e.f32(sx - 0.5);
        let ox = e.alu(AluOp::Fadd, f, &[cx, ox]);
        let oy = e.f32(sy - 0.5);
        let oy = e.alu(AluOp::Fadd, f, &[cy, oy]);
        let i = inside(&mut e, ox, oy);
        let bit = e.i32(1 << k);
        let zero = e.i32(0);
        let b = e.alu(AluOp::Bcsel, Type::I32, &[i, bit, zero]);
        mask = e.alu(AluOp::Ior, Type::I32, &[mask, b]);
    }
    let local = e.s.add_var(Variable {
        name: "round_point_mask".into(),
        kind: VarKind::Local,
        ty: Type::I32,
        array: None,
        inner: None,
    });
    e.store(local, None, mask);
    let zero = e.i32(0);
    let none = e.alu(AluOp::Ieq, Type::BOOL, &[mask, zero]);
    discard_first_if(e, none);
    // The shader's own SampleMask, if it writes one, is ANDed with it.
    let own = s.find_builtin(true, BuiltIn::SampleMask);
    let out = match own {
        Some(v) => v,
        None => get_builtin(s, true, BuiltIn::SampleMask, Type::I32, Some(1)),
    };
    super::gl::insert_at_exits(s, &mut |s| {
        let mut e = Emit::new(s);
        let m = e.load(local, None);
        let idx = e.i32(0);
        let m = match own {
            Some(v) => {
                let w = e.load(v, Some(idx));
                e.alu(AluOp::Iand, Type::I32, &[w, m])
            }
            None => m,
        };
        e.store(out, Some(idx), m);
        e.out
    });
    Ok(())
}

/// How many pixels larger than its size the last vertex stage draws a
/// point: one for aliased points, two for smooth ones.
fn point_widening(smooth: bool) -> f32 {
    if smooth {
        2.0
    } else {
        1.0
    }
}

/// The smallest size the last vertex stage passes on: 1 for aliased
/// points, and for smooth ones [`SMOOTH_POINT_MIN`] (GL's smallest
/// antialiased size is 0, which st/mesa lets through; the circle's
/// coverage makes a small point faint, not larger).
pub fn point_min(smooth: bool) -> f32 {
    if smooth {
        SMOOTH_POINT_MIN
    } else {
        1.0
    }
}

/// The smallest smooth point size drawn: sizes below are drawn at it (a
/// circle of area 8e-7 pixels, invisible), keeping the size a divisor.
pub const SMOOTH_POINT_MIN: f32 = 1.0 / 1024.0;

/// The smooth-point half of [`lower_aliased_points_fs`]: coverage from
/// `PointCoord` (`pcv`) over the square two pixels wider than the size
/// (`size_in`), the fragment discarded where it is zero, and each `f32x4`
/// colour output's alpha multiplied by it before every exit.
fn smooth_point_coverage(s: &mut Shader, pcv: VarId, size_in: VarId) -> Result<()> {
    let f = Type::F32;
    let coverage = s.add_var(Variable {
        name: "smooth_point_coverage".into(),
        kind: VarKind::Local,
        ty: f,
        array: None,
        inner: None,
    });
    let mut e = Emit::new(s);
    let pc = e.load(pcv, None);
    let size = e.load(size_in, None);
    let more = e.f32(point_widening(true));
    let half = e.f32(0.5);
    let wide = e.alu(AluOp::Fadd, f, &[size, more]);
    // The pixel centre's offset from the point's centre, in pixels.
    let mut centre = [half; 2];
    for (k, c) in centre.iter_mut().enumerate() {
        let x = e.swizzle(f, pc, &[k as u8]);
        let d = e.alu(AluOp::Fsub, f, &[x, half]);
        *c = e.alu(AluOp::Fmul, f, &[d, wide]);
    }
    let c = smooth_point_share(&mut e, size, centre);
    e.store(coverage, None, c);
    let zero = e.f32(0.0);
    let none = e.alu(AluOp::Fge, Type::BOOL, &[zero, c]);
    discard_first_if(e, none);
    weigh_colour_alpha(s, coverage);
    Ok(())
}

/// GL's antialiasing application: before each exit, the alpha of every
/// `f32x4` colour output (each element of an array of them; the second
/// colour of dual source blending too, as Mesa's `nir_lower_point_smooth`
/// and `nir_lower_aaline_fs`) is multiplied by the local `coverage`.
pub(super) fn weigh_colour_alpha(s: &mut Shader, coverage: VarId) {
    let f = Type::F32;
    let colours: Vec<VarId> = (0..s.vars.len())
        .map(|i| VarId(i as u32))
        .filter(|&v| {
            let x = s.var(v);
            x.is_output()
                && x.ty == Type::vec4()
                && x.io()
                    .is_some_and(|io| io.location.is_some() && io.builtin.is_none())
        })
        .collect();
    if colours.is_empty() {
        return;
    }
    super::gl::insert_at_exits(s, &mut |s| {
        let mut e = Emit::new(s);
        let c = e.load(coverage, None);
        for &v in &colours {
            // Each element of an array of colours (draw buffers).
            let elements: Vec<Option<u32>> = match e.s.var(v).array {
                Some(n) => (0..n).map(Some).collect(),
                None => vec![None],
            };
            for k in elements {
                let index = k.map(|k| e.i32(k as i32));
                let value = e.load(v, index);
                let rgb: Vec<ValueId> = (0..3u8).map(|k| e.swizzle(f, value, &[k])).collect();
                let a = e.swizzle(f, value, &[3]);
                let a = e.alu(AluOp::Fmul, f, &[a, c]);
                let out = e.alu(AluOp::Vec, Type::vec4(), &[rgb[0], rgb[1], rgb[2], a]);
                e.store(v, index, out);
            }
        }
        e.out
    });
}

/// The rows [`smooth_point_share`] integrates a pixel in.
pub const SMOOTH_POINT_ROWS: u32 = 8;

/// The share of a pixel inside a point's circle (diameter `size`), the
/// pixel's centre at `centre` from the point's centre (pixels): the
/// midpoint rule over [`SMOOTH_POINT_ROWS`] rows across the part of the
/// pixel's height the circle spans (`max(y - 0.5, -r)` to `min(y + 0.5,
/// r)`), with the length of each row inside the circle exact
/// (`clamp(w, x - 0.5, x + 0.5) - clamp(-w, x - 0.5, x + 0.5)` for the
/// chord's half-width `w`). Rows over the circle's span rather than the
/// whole pixel keep points smaller than a pixel (GL's smallest smooth
/// size is 0) as exact as large ones: within 0.015 of the pixel's share,
/// and a point's shares add up to its area within 1.5%, at sizes 0.1 to
/// 12 (rows over the whole pixel: 0.056, and a 0.1 point could vanish).
fn smooth_point_share(e: &mut Emit<'_>, size: ValueId, [x, y]: [ValueId; 2]) -> ValueId {
    let f = Type::F32;
    let half = e.f32(0.5);
    let zero = e.f32(0.0);
    let r = e.alu(AluOp::Fmul, f, &[size, half]);
    let r2 = e.alu(AluOp::Fmul, f, &[r, r]);
    let left = e.alu(AluOp::Fsub, f, &[x, half]);
    let right = e.alu(AluOp::Fadd, f, &[x, half]);
    let neg_r = e.alu(AluOp::Fneg, f, &[r]);
    let below = e.alu(AluOp::Fsub, f, &[y, half]);
    let above = e.alu(AluOp::Fadd, f, &[y, half]);
    let lo = e.alu(AluOp::Fmax, f, &[below, neg_r]);
    let hi = e.alu(AluOp::Fmin, f, &[above, r]);
    let span = e.alu(AluOp::Fsub, f, &[hi, lo]);
    let span = e.alu(AluOp::Fmax, f, &[span, zero]);
    let n = e.f32(1.0 / SMOOTH_POINT_ROWS as f32);
    let step = e.alu(AluOp::Fmul, f, &[span, n]);
    let mut sum = zero;
    for j in 0..SMOOTH_POINT_ROWS {
        let at = e.f32(j as f32 + 0.5);
        let at = e.alu(AluOp::Fmul, f, &[step, at]);
        let dy = e.alu(AluOp::Fadd, f, &[lo, at]);
        let dy2 = e.alu(AluOp::Fmul, f, &[dy, dy]);
        let w2 = e.alu(AluOp::Fsub, f, &[r2, dy2]);
        let w2 = e.alu(AluOp::Fmax, f, &[w2, zero]);
        let w = e.alu(AluOp::Fsqrt, f, &[w2]);
        let neg = e.alu(AluOp::Fneg, f, &[w]);
        let hi = e.alu(AluOp::Fclamp, f, &[w, left, right]);
        let lo = e.alu(AluOp::Fclamp, f, &[neg, left, right]);
        let len = e.alu(AluOp::Fsub, f, &[hi, lo]);
        sum = e.alu(AluOp::Fadd, f, &[sum, len]);
    }
    e.alu(AluOp::Fmul, f, &[sum, step])
}

fn aliased_point_var(output: bool) -> Variable {
    driver_varying(
        ALIASED_POINT_NAME,
        ALIASED_POINT_LOCATION,
        Interp::Flat,
        Type::F32,
        output,
    )
}

/// Aliased points, last vertex stage (see [`super::VariantKey::aliased_points`]):
/// the point size, clamped to `1..=max_size - 1`, goes to the flat output
/// `aliased_point_size`, and PointSize becomes that plus one (stored
/// last: at the exits, or before each geometry shader `emit_vertex`). A
/// pixel whose centre is in the original square then has every sample in
/// the widened one. Runs after [`super::gl::lower_point_size`], so PointSize is
/// written.
///
/// Smooth points (`smooth`) are drawn two pixels larger instead: every
/// sample of a pixel whose centre is within half a pixel of the point's
/// circle is covered, which [`lower_aliased_points_fs`] then weighs. Their
/// size is clamped from [`SMOOTH_POINT_MIN`], not 1 ([`point_min`]).
pub fn lower_aliased_points(s: &mut Shader, max_size: f32, smooth: bool) -> Result<()> {
    if !s.stage.is_pre_raster() {
        return Ok(());
    }
    check_location_free(s, ALIASED_POINT_LOCATION, false, ALIASED_POINT_NAME)?;
    let ps = get_builtin(s, true, BuiltIn::PointSize, Type::F32, None);
    let out = s.add_var(aliased_point_var(true));
    let widen = point_widening(smooth);
    let hi = (max_size - widen).max(1.0);
    let mut make = |s: &mut Shader| {
        let mut e = Emit::new(s);
        let size = e.load(ps, None);
        let low = e.f32(point_min(smooth));
        let top = e.f32(hi);
        let c = e.alu(AluOp::Fmax, Type::F32, &[size, low]);
        let c = e.alu(AluOp::Fmin, Type::F32, &[c, top]);
        let more = e.f32(widen);
        let wide = e.alu(AluOp::Fadd, Type::F32, &[c, more]);
        e.store(ps, None, wide);
        e.store(out, None, c);
        e.out
    };
    insert_at_vertex_end(s, &mut make);
    Ok(())
}

/// Aliased points, fragment shader: discards the fragment unless its
/// pixel centre is in the point's original square, and rescales the
/// shader's reads of PointCoord (and the sprite coordinates made from it)
/// to that square. The offset from the point's centre comes from
/// PointCoord over the widened square: `(pc - 0.5) * (size + 1)`. The
/// square is half-open, `[-size/2, size/2)` from the centre on each axis,
/// shifted by 1/512 pixel: the rasterizer snaps positions to at least 8
/// bits of subpixel precision, so a centre on the square's edge stays on
/// one side whatever the rounding of PointCoord.
///
/// Smooth points (`smooth`, GL's `POINT_SMOOTH` where points are not
/// multisampled; the square is two pixels wider): the fragment's
/// coverage is the share of its pixel inside the point's circle,
/// integrated row by row ([`smooth_point_share`]). A fragment with none
/// is
/// discarded, and before each exit the alpha of every `f32x4` colour
/// output (each element of an array of them; the second colour of dual
/// source blending too, as Mesa's `nir_lower_point_smooth`) is
/// multiplied by it (GL's antialiasing application, before the alpha
/// test).
pub fn lower_aliased_points_fs(s: &mut Shader, smooth: bool) -> Result<()> {
    if s.stage != Stage::Fragment {
        return Ok(());
    }
    let widen = point_widening(smooth);
    check_location_free(s, ALIASED_POINT_LOCATION, true, ALIASED_POINT_NAME)?;
    let size_in = super::gl::driver_input(s, aliased_point_var(false));
    let f = Type::F32;
    let v2 = Type::float(32, 2);
    let pcv = get_builtin(s, false, BuiltIn::PointCoord, v2, None);
    // The shader's own reads: the coordinate over the original square.
    replace_loads(s, pcv, &mut |s, dest, ty, index| {
        let mut e = Emit::new(s);
        let pc = e.load(pcv, index);
        let size = e.load(size_in, None);
        let more = e.f32(widen);
        let half = e.f32(0.5);
        let wide = e.alu(AluOp::Fadd, f, &[size, more]);
        let scale = e.alu(AluOp::Fdiv, f, &[wide, size]);
        let mut comps = Vec::new();
        for c in 0..2u8 {
            let x = e.swizzle(f, pc, &[c]);
            let d = e.alu(AluOp::Fsub, f, &[x, half]);
            let d = e.alu(AluOp::Fmul, f, &[d, scale]);
            comps.push(e.alu(AluOp::Fadd, f, &[d, half]));
        }
        e.def_as(dest, ty, Op::Alu(AluOp::Vec, comps));
        e.out
    });
    if smooth {
        return smooth_point_coverage(s, pcv, size_in);
    }
    let mut e = Emit::new(s);
    let pc = e.load(pcv, None);
    let size = e.load(size_in, None);
    let one = e.f32(1.0);
    let half = e.f32(0.5);
    let wide = e.alu(AluOp::Fadd, f, &[size, one]);
    let h = e.alu(AluOp::Fmul, f, &[size, half]);
    let neg_h = e.alu(AluOp::Fneg, f, &[h]);
    let eps = e.f32(1.0 / 512.0);
    let mut outside = e.konst(Type::BOOL, vec![0]);
    for c in 0..2u8 {
        let x = e.swizzle(f, pc, &[c]);
        let d = e.alu(AluOp::Fsub, f, &[x, half]);
        let d = e.alu(AluOp::Fmul, f, &[d, wide]);
        let d = e.alu(AluOp::Fadd, f, &[d, eps]);
        let below = e.alu(AluOp::Flt, Type::BOOL, &[d, neg_h]);
        let above = e.alu(AluOp::Fge, Type::BOOL, &[d, h]);
        let o = e.alu(AluOp::Bor, Type::BOOL, &[below, above]);
        outside = e.alu(AluOp::Bor, Type::BOOL, &[outside, o]);
    }
    discard_first_if(e, outside);
    Ok(())
}
