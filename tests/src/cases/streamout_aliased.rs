//! `pipe.streamout.aliased.*`: stream output while GL's multisampling is
//! off on a multisampled framebuffer (rasterizer `multisample` false).
//!
//! pipe-vk then rasterizes points and filled triangles enlarged and
//! removes in the fragment shader what GL would not draw
//! (`spirv_gen::passes::aliased`). What the rasterizer gets is not what
//! the shader wrote: the point size is one pixel larger, and a generated
//! geometry shader moves each triangle's vertices outward and
//! extrapolates its varyings. Transform feedback must still capture the
//! values the application's shader wrote, and the primitives it drew, in
//! their order.
//!
//! Each case checks both halves: the captured words, computed here from
//! the vertex data (or, for the order of strip triangles, which GL leaves
//! to the implementation, the words the same draw captures with
//! multisampling on), and the resolved image, from pixel-centre tests.

use pipe_core::draw::PrimType;
use pipe_core::shader::{ShaderState, StreamOutput};
use pipe_core::state::*;

use super::render::{begin_4x, check_lit, ndc, rasterizer, set_src, tri_inside, Px, UNORM};
use super::streamout::{
    bind_streams, check_words, draw, so, so_buffer, so_shader, target, words, SENTINEL,
};
use crate::harness::{step, Env};
use crate::{Outcome, TestContext};

type R = Result<(), Outcome>;
type Tri = [(f64, f64); 3];

const FG: Px = [1.0, 0.0, 0.0, 1.0];

/// Outputs: 0 position (= pos), 1 `a` = attr * 2 + (1, 2, 3, 4)
/// (smooth, extrapolated by the widening), 2 `id` = attr.x as an
/// integer plus 100 (flat).
const VS: &str = "shader vertex
in @pos : f32x4 location=0
in @attr : f32x4 location=1
out @gl_pos : f32x4 builtin=position
out @a : f32x4 location=0
out @id : u32 location=1 flat
fn main {
  %0 : f32x4 = load @pos
  %1 : f32x4 = load @attr
  store @gl_pos, %0
  %2 : f32x4 = const 2.0, 2.0, 2.0, 2.0
  %3 : f32x4 = fmul %1, %2
  %4 : f32x4 = const 1.0, 2.0, 3.0, 4.0
  %5 : f32x4 = fadd %3, %4
  store @a, %5
  %6 : f32 = swizzle %1, x
  %7 : u32 = f2u %6
  %8 : u32 = const 100
  %9 : u32 = iadd %7, %8
  store @id, %9
}
";

/// `a` at dword 0, `id` at 4, the position at 5: stride 9.
fn outs() -> Vec<StreamOutput> {
    vec![so(1, 0, 4, 0, 0), so(2, 0, 1, 0, 4), so(0, 0, 4, 0, 5)]
}
const STRIDE: u16 = 9;

/// One vertex: window position (z = 0.5, w = 1) and attribute.
struct Vert {
    pos: [f32; 4],
    attr: [f32; 4],
}

fn verts(window: &[(f64, f64)]) -> Vec<Vert> {
    window
        .iter()
        .enumerate()
        .map(|(i, &(x, y))| {
            let f = i as f32;
            Vert {
                pos: [ndc(x as f32), ndc(y as f32), 0.5, 1.0],
                attr: [f, 10.0 * f + 0.5, -3.0 * f, 0.25 * f],
            }
        })
        .collect()
}

/// The record VS leaves for `v` under [`outs`].
fn record(v: &Vert) -> Vec<u32> {
    let mut r = Vec::with_capacity(STRIDE as usize);
    r.extend(
        v.attr
            .iter()
            .zip([1.0f32, 2.0, 3.0, 4.0])
            .map(|(x, k)| (x * 2.0 + k).to_bits()),
    );
    r.push(v.attr[0] as u32 + 100);
    r.extend(v.pos.map(f32::to_bits));
    r
}

/// A 4x target cleared to black, drawing `VS` (capturing [`outs`]) with
/// the colour FG, multisampling `multisample`, and a stream-output buffer
/// of `records` records bound at offset 0.
fn begin(
    ctx: &mut TestContext,
    multisample: bool,
    records: u32,
) -> Result<
    (
        Env,
        super::render::Rt,
        pipe_core::Resource,
        pipe_core::Resource,
    ),
    Outcome,
> {
    let vs = so_shader(ShaderStage::Vertex, VS, outs(), [STRIDE, 0, 0, 0])?;
    let bytes = 4 * u32::from(STRIDE) * records;
    capture_setup(ctx, &vs, None, bytes, |r| r.multisample = multisample)
}

/// What [`capture_setup`] gives: the environment, the 4x target, the
/// texture to resolve it into, and the stream-output buffer.
type Setup = (
    Env,
    super::render::Rt,
    pipe_core::Resource,
    pipe_core::Resource,
);

/// A 4x target cleared to black (on a device with stream output),
/// drawing with `vs` (then `gs`) and `begin_4x`'s fragment shader in FG, the
/// rasterizer as `rast` sets it, and a stream-output buffer of `bytes`
/// (filled with the sentinel) bound at offset 0.
fn capture_setup(
    ctx: &mut TestContext,
    vs: &ShaderState,
    gs: Option<&ShaderState>,
    bytes: u32,
    rast: impl FnOnce(&mut RasterizerState),
) -> Result<Setup, Outcome> {
    let (mut e, t, resolved) = begin_4x(ctx, |_| {})?;
    super::streamout::require_so(&e)?;
    let h = step("create_vs_state", e.ctx.create_vs_state(vs))?;
    step("bind_vs_state", e.ctx.bind_vs_state(Some(h)))?;
    if let Some(gs) = gs {
        let h = step("create_gs_state", e.ctx.create_gs_state(gs))?;
        step("bind_gs_state", e.ctx.bind_gs_state(Some(h)))?;
    }
    rasterizer(&mut e, rast)?;
    set_src(&mut e, UNORM, FG)?;
    let b = so_buffer(&mut e, bytes)?;
    let tg = target(&mut e, &b, 0, bytes)?;
    super::streamout::set_targets(&mut e, &[&tg], &[Some(0)])?;
    Ok((e, t, resolved, b))
}

fn bind(e: &mut Env, vs: &[Vert]) -> R {
    let pos: Vec<f32> = vs.iter().flat_map(|v| v.pos).collect();
    let attr: Vec<f32> = vs.iter().flat_map(|v| v.attr).collect();
    bind_streams(e, &[&pos, &attr])
}

/// Whether pixel (x, y)'s centre is inside one of `tris`; `None` near
/// an edge.
fn lit(tris: &[Tri], x: u32, y: u32) -> Option<bool> {
    let mut any = false;
    for t in tris {
        let (inside, near) = tri_inside(t, x as f64 + 0.5, y as f64 + 0.5);
        if near < 0.01 {
            return None;
        }
        any |= inside;
    }
    Some(any)
}

/// A draw's capture with multisampling on (`reference`, the records of
/// triangles in Vulkan's order) holds each of `triangles` (its three
/// records, in some order: GL leaves a strip triangle's vertex order to
/// the implementation) and nothing past them; the same draw with
/// multisampling off (`off`) captures exactly the same words.
fn check_triangle_captures(
    what: &str,
    reference: &[u32],
    off: &[u32],
    triangles: &[[&[u32]; 3]],
) -> R {
    let stride = STRIDE as usize;
    for (n, want) in triangles.iter().enumerate() {
        let mut got: Vec<&[u32]> = (0..3)
            .map(|v| &reference[(3 * n + v) * stride..(3 * n + v + 1) * stride])
            .collect();
        let mut want = want.to_vec();
        got.sort();
        want.sort();
        if got != want {
            return Err(Outcome::fail(format!(
                "{what}, multisampling on: triangle {n} holds other records"
            )));
        }
    }
    if reference[3 * triangles.len() * stride..]
        .iter()
        .any(|&w| w != SENTINEL)
    {
        return Err(Outcome::fail(format!(
            "{what}, multisampling on: words past the {} triangles were written",
            triangles.len()
        )));
    }
    check_words(&format!("{what}, multisampling off"), off, reference)
}

/// Two triangles of a list: the capture holds the six vertices' records
/// as the vertex shader wrote them (not the widened positions or the
/// extrapolated `a`), and the image is GL's aliased coverage.
fn triangles(ctx: &mut TestContext) -> R {
    let tris: [Tri; 2] = [
        [(1.3, 2.2), (13.7, 4.1), (5.2, 13.6)],
        [(9.6, 8.3), (15.4, 14.9), (10.1, 15.2)],
    ];
    let window: Vec<(f64, f64)> = tris.iter().flatten().copied().collect();
    let vs = verts(&window);
    let (mut e, t, resolved, b) = begin(ctx, false, 8)?;
    bind(&mut e, &vs)?;
    draw(&mut e, PrimType::Triangles, 6)?;
    let got = words(&mut e, &b)?;
    let want: Vec<u32> = vs.iter().flat_map(record).collect();
    check_words("captured triangles", &got, &want)?;
    check_lit(
        ctx,
        &mut e,
        &t.color,
        &resolved,
        "aliased triangles",
        FG,
        |x, y| lit(&tris, x, y),
    )
}
crate::result_case!("pipe.streamout.aliased.triangles", triangles);

/// A triangle strip of five vertices, drawn with flat shading's
/// provoking vertex last and first: the three triangles' records are
/// those the same draw captures with multisampling on (GL leaves the
/// order of a strip triangle's vertices to the implementation, and
/// Vulkan's follows the provoking vertex), each triangle holds the
/// vertices `i..i + 3`, and nothing past them is written.
fn triangle_strip(ctx: &mut TestContext) -> R {
    let window = [
        (1.2, 1.4),
        (2.3, 14.6),
        (8.1, 2.2),
        (9.3, 13.7),
        (15.2, 3.3),
    ];
    let vs = verts(&window);
    let tris: Vec<Tri> = (0..3)
        .map(|i| [window[i], window[i + 1], window[i + 2]])
        .collect();
    for first in [false, true] {
        let mut captured = Vec::new();
        for multisample in [true, false] {
            let (mut e, t, resolved, b) = begin(ctx, multisample, 10)?;
            rasterizer(&mut e, |r| {
                r.multisample = multisample;
                r.flatshade_first = first;
            })?;
            bind(&mut e, &vs)?;
            draw(&mut e, PrimType::TriangleStrip, 5)?;
            captured.push(words(&mut e, &b)?);
            if !multisample {
                check_lit(
                    ctx,
                    &mut e,
                    &t.color,
                    &resolved,
                    "aliased strip",
                    FG,
                    |x, y| lit(&tris, x, y),
                )?;
            }
        }
        let what = format!(
            "strip, provoking vertex {}",
            if first { "first" } else { "last" }
        );
        let want: Vec<Vec<u32>> = vs.iter().map(record).collect();
        let triangles: Vec<[&[u32]; 3]> = (0..3)
            .map(|t| [&want[t][..], &want[t + 1][..], &want[t + 2][..]])
            .collect();
        check_triangle_captures(&what, &captured[0], &captured[1], &triangles)?;
    }
    Ok(())
}
crate::result_case!("pipe.streamout.aliased.triangle_strip", triangle_strip);

/// An application geometry shader after [`VS`] that turns each triangle
/// into a parallelogram: a strip of its three vertices and a fourth,
/// `v1 + v2 - v0` (position and `a`; `id` the sum of the three).
const GS_PARALLELOGRAM: &str =
    "shader geometry input=triangles output=triangle_strip max_vertices=4 invocations=1
in @p : f32x4[3] builtin=position
in @ia : f32x4[3] location=0
in @iid : u32[3] location=1 flat
out @gl_pos : f32x4 builtin=position
out @a : f32x4 location=0
out @id : u32 location=1 flat
fn main {
  %0 : i32 = const 0
  %1 : i32 = const 1
  %2 : i32 = const 2
  %10 : f32x4 = load @p, %0
  %11 : f32x4 = load @p, %1
  %12 : f32x4 = load @p, %2
  %13 : f32x4 = load @ia, %0
  %14 : f32x4 = load @ia, %1
  %15 : f32x4 = load @ia, %2
  %16 : u32 = load @iid, %0
  %17 : u32 = load @iid, %1
  %18 : u32 = load @iid, %2
  store @gl_pos, %10
  store @a, %13
  store @id, %16
  emit_vertex
  store @gl_pos, %11
  store @a, %14
  store @id, %17
  emit_vertex
  store @gl_pos, %12
  store @a, %15
  store @id, %18
  emit_vertex
  %19 : f32x4 = fadd %11, %12
  %20 : f32x4 = fsub %19, %10
  %21 : f32x4 = fadd %14, %15
  %22 : f32x4 = fsub %21, %13
  %23 : u32 = iadd %16, %17
  %24 : u32 = iadd %23, %18
  store @gl_pos, %20
  store @a, %22
  store @id, %24
  emit_vertex
  end_primitive
}
";

/// [`GS_PARALLELOGRAM`] capturing `a`, `id` and the position ([`outs`],
/// its registers numbered alike) with multisampling off: the shader
/// re-emits its strip's two triangles one by one, widened
/// (`spirv_gen::passes::aliased::lower_aliased_gs`), and captures through
/// copies it re-emits unchanged. The records are those the same draw
/// captures with multisampling on (two triangles, in Vulkan's order for
/// a strip's second triangle, with the provoking vertex first and last),
/// each triangle holds the vertices computed here, and the image is the
/// parallelogram's aliased coverage.
fn app_gs(ctx: &mut TestContext) -> R {
    app_gs_of(ctx, GS_PARALLELOGRAM)
}
crate::result_case!("pipe.streamout.aliased.app_gs", app_gs);

/// [`app_gs`] with the shader's `a` at location 25: the copies its
/// capture takes must stay off the driver's locations from 26 on (the
/// edge distances the widening adds there), in the gaps below.
fn app_gs_high_location(ctx: &mut TestContext) -> R {
    let src = GS_PARALLELOGRAM.replace("out @a : f32x4 location=0", "out @a : f32x4 location=25");
    app_gs_of(ctx, &src)
}
crate::result_case!(
    "pipe.streamout.aliased.app_gs.high_location",
    app_gs_high_location
);

fn app_gs_of(ctx: &mut TestContext, gs_src: &str) -> R {
    if !crate::harness::screen(ctx)?.caps().shader[ShaderStage::Geometry.index()].supported {
        return Err(Outcome::skip("no geometry shaders"));
    }
    let tri = [(2.3, 2.2), (1.6, 13.7), (13.6, 2.9)];
    let vs = verts(&tri);
    // The four vertices' records, as the shaders compute them.
    let mut recs: Vec<Vec<u32>> = vs.iter().map(record).collect();
    let f = |k: usize| -> Vec<f32> { recs[k].iter().map(|&w| f32::from_bits(w)).collect() };
    let (r0, r1, r2) = (f(0), f(1), f(2));
    let mut r3: Vec<u32> = (0..STRIDE as usize)
        .map(|i| ((r1[i] + r2[i]) - r0[i]).to_bits())
        .collect();
    r3[4] = recs[0][4] + recs[1][4] + recs[2][4];
    recs.push(r3);
    let p3 = (
        tri[1].0 + tri[2].0 - tri[0].0,
        tri[1].1 + tri[2].1 - tri[0].1,
    );
    let tris: [Tri; 2] = [tri, [tri[1], tri[2], p3]];
    for first in [false, true] {
        let mut captured = Vec::new();
        for multisample in [true, false] {
            let vsh = crate::harness::shader(ShaderStage::Vertex, VS)?;
            let gs = so_shader(ShaderStage::Geometry, gs_src, outs(), [STRIDE, 0, 0, 0])?;
            let bytes = 4 * u32::from(STRIDE) * 8;
            let (mut e, t, resolved, b) = capture_setup(ctx, &vsh, Some(&gs), bytes, |r| {
                r.multisample = multisample;
                r.flatshade_first = first;
            })?;
            bind(&mut e, &vs)?;
            draw(&mut e, PrimType::Triangles, 3)?;
            captured.push(words(&mut e, &b)?);
            if !multisample {
                check_lit(
                    ctx,
                    &mut e,
                    &t.color,
                    &resolved,
                    "parallelogram",
                    FG,
                    |x, y| lit(&tris, x, y),
                )?;
            }
        }
        let what = format!("provoking vertex {}", if first { "first" } else { "last" });
        let triangles = [[0usize, 1, 2], [1, 2, 3]].map(|t| t.map(|k| recs[k].as_slice()));
        check_triangle_captures(&what, &captured[0], &captured[1], &triangles)?;
    }
    Ok(())
}

/// A capture that does not fit the generated geometry shader: 24
/// one-component captures of 8 varyings (as packed GL varyings give),
/// which the vertex shader takes in place or in 24 locations of its own,
/// but which the aliased-triangle shader, capturing every register through
/// a copy beside the forwarded varyings and off the driver's locations,
/// has no room for. The draw falls back to drawing with sample coverage:
/// it succeeds, and captures what it captures with multisampling on.
fn no_room(ctx: &mut TestContext) -> R {
    let mut src = String::from(
        "shader vertex\nin @p : f32x4 location=0\nout @gl_pos : f32x4 builtin=position\n",
    );
    for i in 0..8 {
        src += &format!("out @o{i} : f32x4 location={i}\n");
    }
    src += "fn main {\n  %0 : f32x4 = load @p\n  store @gl_pos, %0\n";
    for i in 0..8 {
        src += &format!(
            "  %{} : f32x4 = const {i}.0, {i}.5, {i}.25, {i}.75\n",
            i + 1
        );
        src += &format!("  store @o{i}, %{}\n", i + 1);
    }
    src += "}\n";
    let outs: Vec<StreamOutput> = (0..24u32)
        .map(|k| so((1 + k / 3) as u8, (k % 3) as u8, 1, 0, k as u16))
        .collect();
    let pos: Vec<f32> = [(1.3f32, 2.2f32), (13.7, 4.1), (5.2, 13.6)]
        .iter()
        .flat_map(|&(x, y)| [ndc(x), ndc(y), 0.5, 1.0])
        .collect();
    // Register r (1..=8) is output r - 1: components 0..3 of the
    // constants above.
    let record: Vec<u32> = (0..24u32)
        .map(|k| (f64::from(k / 3) as f32 + [0.0, 0.5, 0.25][(k % 3) as usize]).to_bits())
        .collect();
    let want: Vec<u32> = (0..3).flat_map(|_| record.clone()).collect();
    for multisample in [true, false] {
        let vsh = so_shader(ShaderStage::Vertex, &src, outs.clone(), [24, 0, 0, 0])?;
        let (mut e, _, _, b) =
            capture_setup(ctx, &vsh, None, 4 * 24 * 4, |r| r.multisample = multisample)?;
        bind_streams(&mut e, &[&pos])?;
        draw(&mut e, PrimType::Triangles, 3)?;
        let what = format!("multisampling {}", if multisample { "on" } else { "off" });
        check_words(&what, &words(&mut e, &b)?, &want)?;
    }
    Ok(())
}
crate::result_case!("pipe.streamout.aliased.no_room", no_room);

/// Clip distances the vertex shader writes, captured, with user clip
/// plane 0 enabled: the generated geometry shader does not forward them
/// (the fragment shader tests plane 0 at the pixel centre), yet the
/// capture holds both distances as written, and the outputs declared
/// after them keep their registers. Distance 0 is `x + 0.5` in
/// normalized coordinates: pixel centres from window x = 4 on are
/// inside; distance 1 (`3 y`, never enabled) is captured only.
fn clip_distances(ctx: &mut TestContext) -> R {
    const VS_CD: &str = "shader vertex
in @pos : f32x4 location=0
in @attr : f32x4 location=1
out @gl_pos : f32x4 builtin=position
out @cd : f32[2] builtin=clip_distance
out @a : f32x4 location=0
fn main {
  %0 : f32x4 = load @pos
  %1 : f32x4 = load @attr
  store @gl_pos, %0
  %2 : f32 = swizzle %0, x
  %3 : f32 = const 0.5
  %4 : f32 = fadd %2, %3
  %5 : i32 = const 0
  store @cd, %5, %4
  %6 : f32 = swizzle %0, y
  %7 : f32 = const 3.0
  %8 : f32 = fmul %6, %7
  %9 : i32 = const 1
  store @cd, %9, %8
  store @a, %1
}
";
    let tri: Tri = [(1.3, 2.2), (14.6, 6.1), (5.4, 13.7)];
    let vs = verts(&tri);
    let outs = vec![so(1, 0, 2, 0, 0), so(2, 0, 4, 0, 2), so(0, 0, 4, 0, 6)];
    let vsh = so_shader(ShaderStage::Vertex, VS_CD, outs, [10, 0, 0, 0])?;
    let (mut e, t, resolved, b) = capture_setup(ctx, &vsh, None, 4 * 10 * 4, |r| {
        r.multisample = false;
        r.clip_plane_enable = 1;
    })?;
    bind(&mut e, &vs)?;
    draw(&mut e, PrimType::Triangles, 3)?;
    let got = words(&mut e, &b)?;
    let want: Vec<u32> = vs
        .iter()
        .flat_map(|v| {
            let cd = [v.pos[0] + 0.5, v.pos[1] * 3.0];
            cd.into_iter().chain(v.attr).chain(v.pos).map(f32::to_bits)
        })
        .collect();
    check_words("captured clip distances", &got, &want)?;
    check_lit(
        ctx,
        &mut e,
        &t.color,
        &resolved,
        "clipped triangle",
        FG,
        |x, y| Some(lit(&[tri], x, y)? && x >= 4),
    )
}
crate::result_case!("pipe.streamout.aliased.clip_distances", clip_distances);

/// Points whose size the vertex shader writes (`program_point_size`),
/// `gl_PointSize` captured: the capture holds the sizes written, not the
/// widened size the rasterizer gets nor one clamped to the device's
/// range (GL clamps at rasterization), and each point covers the pixels
/// whose centre is in its square.
fn point_size(ctx: &mut TestContext) -> R {
    point_size_of(ctx, VS_PSIZE)
}

/// [`point_size`] with a varying at location 26 in the vertex shader:
/// the copies its capture takes (of the two built-ins) must stay off 27,
/// where the aliased-point emulation passes the point's size (the
/// variant failed on the clash when they went past the highest output).
fn point_size_high_location(ctx: &mut TestContext) -> R {
    let src = VS_PSIZE
        .replace(
            "out @psize : f32 builtin=point_size\n",
            "out @psize : f32 builtin=point_size\nout @v : f32x4 location=26\n",
        )
        .replace(
            "  store @psize, %2\n",
            "  store @psize, %2\n  store @v, %1\n",
        );
    point_size_of(ctx, &src)
}
crate::result_case!(
    "pipe.streamout.aliased.point_size.high_location",
    point_size_high_location
);

const VS_PSIZE: &str = "shader vertex
in @pos : f32x4 location=0
in @attr : f32x4 location=1
out @gl_pos : f32x4 builtin=position
out @psize : f32 builtin=point_size
fn main {
  %0 : f32x4 = load @pos
  %1 : f32x4 = load @attr
  store @gl_pos, %0
  %2 : f32 = swizzle %1, x
  store @psize, %2
}
";

fn point_size_of(ctx: &mut TestContext, vs_src: &str) -> R {
    let outs = vec![so(1, 0, 1, 0, 0), so(0, 0, 4, 0, 1)];
    let vs = so_shader(ShaderStage::Vertex, vs_src, outs, [5, 0, 0, 0])?;
    let (mut e, t, resolved, b) = capture_setup(ctx, &vs, None, 4 * 5 * 4, |r| {
        r.multisample = false;
        r.point_size_per_vertex = true;
    })?;
    let max = e.screen.caps().max_point_size;
    if max < 4.0 {
        return Err(Outcome::skip(format!("largest point size {max}")));
    }
    // Size, window centre. The last is far above the device's largest
    // size: it is captured as written, drawn at the largest size, at the
    // target's centre, so it covers the whole target.
    let points = [
        (3.0f32, (4.0f32, 4.0f32)),
        (2.5, (11.3, 4.6)),
        (1e4, (8.0, 8.0)),
    ];
    let pos: Vec<f32> = points
        .iter()
        .flat_map(|&(_, (x, y))| [ndc(x), ndc(y), 0.5, 1.0])
        .collect();
    let attr: Vec<f32> = points
        .iter()
        .flat_map(|&(s, _)| [s, 0.0, 0.0, 0.0])
        .collect();
    // The first two points alone, then the large one alone.
    bind_streams(&mut e, &[&pos[..8], &attr[..8]])?;
    draw(&mut e, PrimType::Points, 2)?;
    let small = |x: u32, y: u32| {
        let c = (x as f32 + 0.5, y as f32 + 0.5);
        let mut any = false;
        for &(s, (px, py)) in &points[..2] {
            let h = s / 2.0;
            let (dx, dy) = (c.0 - px, c.1 - py);
            if (dx.abs() - h).abs() < 0.01 || (dy.abs() - h).abs() < 0.01 {
                return None;
            }
            any |= dx >= -h && dx < h && dy >= -h && dy < h;
        }
        Some(any)
    };
    check_lit(
        ctx,
        &mut e,
        &t.color,
        &resolved,
        "aliased points",
        FG,
        small,
    )?;
    bind_streams(&mut e, &[&pos[8..], &attr[8..]])?;
    draw(&mut e, PrimType::Points, 1)?;
    let got = words(&mut e, &b)?;
    let want: Vec<u32> = points
        .iter()
        .zip(pos.chunks(4))
        .flat_map(|(&(s, _), p)| {
            [s.to_bits()]
                .into_iter()
                .chain(p.iter().map(|f| f.to_bits()))
        })
        .collect();
    check_words("captured point sizes", &got, &want)?;
    // The largest point covers the whole 16x16 target.
    check_lit(
        ctx,
        &mut e,
        &t.color,
        &resolved,
        "largest point",
        FG,
        |_, _| Some(true),
    )?;
    Ok(())
}
crate::result_case!("pipe.streamout.aliased.point_size", point_size);

crate::spirv_result_cases! {
    "pipe.streamout.aliased.triangles" => triangles,
    "pipe.streamout.aliased.triangle_strip" => triangle_strip,
    "pipe.streamout.aliased.point_size" => point_size,
    "pipe.streamout.aliased.clip_distances" => clip_distances,
}
