//! Review cases for the aliased (single-sample) rasterization emulation
//! of points and filled triangles on a multisampled framebuffer with the
//! rasterizer's `multisample` off (`spirv_gen::passes::aliased`): state
//! combinations the first cases (`pipe.render.msaa.aliased_*`) do not
//! cover. Expected images are computed here, from pixel-centre tests in
//! f64 (pixels whose centre is near an edge are not compared unless the
//! case is about ties).

use pipe_core::resource::{BindFlags, ResourceTemplate};
use pipe_core::state::*;
use pipe_core::Format;

use super::render::{
    begin, begin_4x, bind_dsa, check, check_lit, check_resolved, clear, draw, draw_mode, in_point,
    ndc, rasterizer, read_color, resolve, set_src, tri_inside, tris, Px, BLACK, H, TOL_U8, UNORM,
    W,
};
use crate::harness::{bind_program, step, Env, FS_UBO_COLOR, VS_PASSTHROUGH};
use crate::{Outcome, TestContext};

type R = Result<(), Outcome>;
type Tri = [(f64, f64); 3];
/// A case body, as [`KNOWN_GAPS`] keeps it.
type Body = fn(&mut TestContext) -> R;

const FG: Px = [1.0, 0.0, 0.0, 1.0];
const FG_GREEN: Px = [0.0, 1.0, 0.0, 1.0];

/// A single-sampled texture to resolve into.
fn resolved_tex(e: &mut Env) -> Result<pipe_core::Resource, Outcome> {
    let bind = BindFlags::RENDER_TARGET | BindFlags::SAMPLER_VIEW;
    e.texture(&ResourceTemplate::texture_2d(UNORM, W, H, bind))
}

/// A 4x target with a Z32F depth buffer, cleared to black and depth 1,
/// drawing through [`VS_PASSTHROUGH`] and `fs`, and a single-sampled
/// texture to resolve into.
fn begin_4x_depth(
    ctx: &mut TestContext,
    fs: &str,
) -> Result<(Env, super::render::Rt, pipe_core::Resource), Outcome> {
    let (mut e, t) = begin(ctx, UNORM, Some(Format::Z32Float), 4)?;
    let resolved = resolved_tex(&mut e)?;
    bind_program(&mut e, VS_PASSTHROUGH, fs)?;
    clear(
        &mut e,
        pipe_core::flags::ClearFlags::COLOR0 | pipe_core::flags::ClearFlags::DEPTH,
        ColorUnion::from_f32(BLACK),
        1.0,
        0,
        None,
    )?;
    Ok((e, t, resolved))
}

/// Whether pixel (x, y)'s centre is inside `t`; `None` when it is
/// within 0.01 pixel of an edge.
fn centre_in(t: &Tri, x: u32, y: u32) -> Option<bool> {
    let (inside, near) = tri_inside(t, x as f64 + 0.5, y as f64 + 0.5);
    (near >= 0.01).then_some(inside)
}

fn f32_tri(t: &Tri) -> [(f32, f32); 3] {
    t.map(|(x, y)| (x as f32, y as f32))
}

fn depth_less() -> DepthStencilAlphaState {
    DepthStencilAlphaState {
        depth_enabled: true,
        depth_writemask: true,
        depth_func: CompareFunc::Less,
        ..Default::default()
    }
}

/// Position at location 0, a colour (GL's COL0) at location 1.
const VS_COL0: &str = "shader vertex
in @pos : f32x4 location=0
in @col : f32x4 location=1
out @gl_pos : f32x4 builtin=position
out @c : f32x4 location=0 slot=col0
fn main {
  %0 : f32x4 = load @pos
  %1 : f32x4 = load @col
  store @gl_pos, %0
  store @c, %1
}
";

const FS_COL0: &str = "shader fragment
in @c : f32x4 location=0 slot=col0
out @frag : f32x4 location=0
fn main {
  %0 : f32x4 = load @c
  store @frag, %0
}
";

const TRI: Tri = [(1.3, 2.2), (13.7, 4.1), (5.2, 13.6)];

/// A depth-only draw (no fragment shader bound, depth 0.25) by
/// `depth_pass`, then a full-screen colour pass at depth 0.5 behind it
/// (multisampling on, depth test `less`): the background shows exactly
/// where `inside` says the depth-only draw covered pixels, whole.
fn behind_depth_only(
    ctx: &mut TestContext,
    what: &str,
    depth_pass: impl FnOnce(&mut Env) -> R,
    inside: impl Fn(u32, u32) -> Option<bool>,
) -> R {
    let (mut e, t, resolved) = begin_4x_depth(ctx, FS_UBO_COLOR)?;
    bind_dsa(&mut e, &depth_less())?;
    let fs = step(
        "create_fs_state",
        e.ctx.create_fs_state(&crate::harness::shader(
            ShaderStage::Fragment,
            FS_UBO_COLOR,
        )?),
    )?;
    step("bind_fs_state(None)", e.ctx.bind_fs_state(None))?;
    depth_pass(&mut e)?;
    step("bind_fs_state", e.ctx.bind_fs_state(Some(fs)))?;
    rasterizer(&mut e, |r| r.multisample = true)?;
    set_src(&mut e, UNORM, FG)?;
    draw(
        &mut e,
        &[
            -1.0, -1.0, 0.5, 1.0, 3.0, -1.0, 0.5, 1.0, -1.0, 3.0, 0.5, 1.0,
        ],
        false,
    )?;
    // Lit where the depth-only pass left the depth at the clear value.
    check_lit(ctx, &mut e, &t.color, &resolved, what, FG, |x, y| {
        inside(x, y).map(|i| !i)
    })
}

/// A depth-only aliased triangle writes depth for the pixels whose centre
/// is inside, all samples, and nothing else.
fn depth_only_triangle(ctx: &mut TestContext) -> R {
    behind_depth_only(
        ctx,
        "colour behind a depth-only triangle",
        |e| {
            rasterizer(e, |r| r.multisample = false)?;
            draw(e, &tris(&f32_tri(&TRI), 0.25), false)
        },
        |x, y| centre_in(&TRI, x, y),
    )
}
crate::result_case!(
    "pipe.render.msaa.aliased_review.depth_only_triangle",
    depth_only_triangle
);

/// A depth-only aliased triangle through the near plane (the generated
/// fragment shader tests the depth planes too): depth is written exactly
/// where the pixel centre is in the triangle and in front of the near
/// plane, not (clamped) beyond it. With the depth range [0, 1] the
/// later draw at NDC depth 0.5 is hidden where the written depth is below
/// its own.
fn depth_only_near_clip(ctx: &mut TestContext) -> R {
    let z = [-1.7f64, 0.2, 0.4];
    behind_depth_only(
        ctx,
        "colour behind a depth-only triangle through the near plane",
        |e| {
            // GL's depth range [0, 1]: window depth (z + 1) / 2.
            let vp = ViewportState {
                scale: [W as f32 / 2.0, H as f32 / 2.0, 0.5],
                translate: [W as f32 / 2.0, H as f32 / 2.0, 0.5],
                swizzle: Default::default(),
            };
            step("set_viewport_states", e.ctx.set_viewport_states(0, &[vp]))?;
            // GL's near plane z >= -w.
            rasterizer(e, |r| {
                r.multisample = false;
                r.clip_halfz = false;
            })?;
            let mut data = Vec::new();
            for (i, &(x, y)) in TRI.iter().enumerate() {
                data.extend([ndc(x as f32), ndc(y as f32), z[i] as f32, 1.0]);
            }
            draw(e, &data, false)
        },
        |x, y| {
            let depth = ndc_depth_at(&TRI, z, x, y);
            if (depth + 1.0).abs() < 0.002 || (depth - 0.5).abs() < 0.002 {
                return None;
            }
            Some(centre_in(&TRI, x, y)? && depth > -1.0 && depth < 0.5)
        },
    )
}
crate::result_case!(
    "pipe.render.msaa.aliased_review.depth_only_near_clip",
    depth_only_near_clip
);

/// The depth (w = 1) of triangle `t` with vertex depths `z` at pixel
/// (x, y)'s centre.
fn ndc_depth_at(t: &Tri, z: [f64; 3], x: u32, y: u32) -> f64 {
    let b = super::render::barycentric(t, (x as f64 + 0.5, y as f64 + 0.5));
    (0..3).map(|i| b[i] * z[i]).sum()
}

/// The same with points: a depth-only point of size 3 covers the 3x3
/// pixels whose centre is in its square, whole, and no more.
fn depth_only_point(ctx: &mut TestContext) -> R {
    let (cx, cy, s) = (8.3f32, 7.6f32, 3.0f32);
    behind_depth_only(
        ctx,
        "colour behind a depth-only point",
        |e| {
            rasterizer(e, |r| {
                r.multisample = false;
                r.point_size = s;
            })?;
            draw_mode(
                e,
                &[ndc(cx), ndc(cy), 0.25, 1.0],
                false,
                pipe_core::draw::PrimType::Points,
            )
        },
        |x, y| Some(in_point(x, y, (cx, cy, s))),
    )
}
crate::result_case!(
    "pipe.render.msaa.aliased_review.depth_only_point",
    depth_only_point
);

/// Flat shading (`flatshade`, GL's `glShadeModel(GL_FLAT)`) of aliased
/// triangles: every pixel of a triangle gets its provoking vertex's
/// colour (the last vertex, or the first with `flatshade_first`). Two
/// triangles, as a strip (GL's provoking vertex of triangle i is vertex
/// i + 2, or i first) or as a fan (triangle i is vertices 0, i + 1,
/// i + 2; provoking i + 2, or i + 1 first).
fn flat_two_triangles(ctx: &mut TestContext, first: bool, fan: bool) -> R {
    let (mut e, t, resolved) = begin_4x(ctx, |_| {})?;
    bind_program(&mut e, VS_COL0, FS_COL0)?;
    rasterizer(&mut e, |r| {
        r.multisample = false;
        r.flatshade = true;
        r.flatshade_first = first;
    })?;
    let v = if fan {
        [(1.3, 1.2), (14.6, 2.3), (14.2, 13.8), (2.1, 14.7)]
    } else {
        [(1.3, 1.2), (14.6, 2.3), (2.1, 14.7), (14.2, 13.8)]
    };
    // Mid-range values: an extrapolated colour would not clamp back to
    // a vertex's.
    let col: [Px; 4] = [
        [0.6, 0.2, 0.4, 1.0],
        [0.2, 0.6, 0.4, 1.0],
        [0.4, 0.2, 0.6, 1.0],
        [0.6, 0.6, 0.2, 1.0],
    ];
    let mut data = Vec::new();
    for i in 0..4 {
        data.extend([ndc(v[i].0 as f32), ndc(v[i].1 as f32), 0.0, 1.0]);
        data.extend(col[i]);
    }
    let mode = if fan {
        pipe_core::draw::PrimType::TriangleFan
    } else {
        pipe_core::draw::PrimType::TriangleStrip
    };
    draw_mode(&mut e, &data, true, mode)?;
    resolve(&mut e, &t.color, &resolved)?;
    let got = read_color(&mut e, &resolved)?;
    let (t0, t1, (p0, p1)): (Tri, Tri, _) = if fan {
        (
            [v[0], v[1], v[2]],
            [v[0], v[2], v[3]],
            if first { (1, 2) } else { (2, 3) },
        )
    } else {
        (
            [v[0], v[1], v[2]],
            [v[1], v[2], v[3]],
            if first { (0, 1) } else { (2, 3) },
        )
    };
    check(
        ctx,
        "flat-shaded aliased triangles",
        &got,
        TOL_U8,
        |x, y| {
            let a = centre_in(&t0, x, y)?;
            let b = centre_in(&t1, x, y)?;
            Some(if a {
                col[p0]
            } else if b {
                col[p1]
            } else {
                BLACK
            })
        },
    )
}

fn flat_shading(ctx: &mut TestContext, first: bool) -> R {
    flat_two_triangles(ctx, first, false)
}
crate::bool_cases!(
    flat_shading,
    "pipe.render.msaa.aliased_review.flat_shading.last",
    "pipe.render.msaa.aliased_review.flat_shading.first"
);

/// Minimum sample shading (`set_min_samples(4)`) with multisampling off:
/// GL shades per sample only with multisampling on; the triangle still
/// covers whole pixels, exactly those whose centre is inside.
fn sample_shading(ctx: &mut TestContext) -> R {
    let (mut e, t, resolved) = begin_4x(ctx, |_| {})?;
    if !e.screen.caps().sample_shading {
        return Err(Outcome::skip("no sample shading"));
    }
    rasterizer(&mut e, |r| r.multisample = false)?;
    step("set_min_samples", e.ctx.set_min_samples(4))?;
    set_src(&mut e, UNORM, FG)?;
    draw(&mut e, &tris(&f32_tri(&TRI), 0.0), false)?;
    check_lit(
        ctx,
        &mut e,
        &t.color,
        &resolved,
        "aliased triangle, min_samples 4",
        FG,
        |x, y| centre_in(&TRI, x, y),
    )
}
crate::result_case!(
    "pipe.render.msaa.aliased_review.min_samples",
    sample_shading
);

/// A y-flipped viewport (negative scale, GL's lower-left origin drawn
/// into a top-down target): the window-space triangle is the mirror
/// image, and still covers exactly the pixels whose centre is inside.
fn y_flip(ctx: &mut TestContext) -> R {
    let (mut e, t, resolved) = begin_4x(ctx, |_| {})?;
    let vp = ViewportState {
        scale: [W as f32 / 2.0, -(H as f32) / 2.0, 1.0],
        translate: [W as f32 / 2.0, H as f32 / 2.0, 0.0],
        swizzle: Default::default(),
    };
    step("set_viewport_states", e.ctx.set_viewport_states(0, &[vp]))?;
    rasterizer(&mut e, |r| r.multisample = false)?;
    set_src(&mut e, UNORM, FG)?;
    draw(&mut e, &tris(&f32_tri(&TRI), 0.0), false)?;
    resolve(&mut e, &t.color, &resolved)?;
    let got = read_color(&mut e, &resolved)?;
    let flipped: Tri = TRI.map(|(x, y)| (x, H as f64 - y));
    check(ctx, "aliased triangle, y-flipped", &got, TOL_U8, |x, y| {
        centre_in(&flipped, x, y).map(|i| if i { FG } else { BLACK })
    })
}
crate::result_case!("pipe.render.msaa.aliased_review.y_flip", y_flip);

/// Very thin and very acute triangles: nothing outside the pixel-centre
/// set is drawn and no pixel centre inside is lost (additive blending
/// would show overlaps; each triangle is drawn alone).
fn thin_triangles(ctx: &mut TestContext) -> R {
    let thin: [Tri; 3] = [
        // A sliver 0.3 px thick, slanted.
        [(0.7, 1.1), (15.3, 4.6), (15.3, 4.9)],
        // A needle through pixel centres' neighbourhood, about 1 degree.
        [(1.2, 9.3), (15.6, 9.05), (15.6, 9.6)],
        // An acute spike pointing down.
        [(7.1, 15.7), (8.4, 11.2), (8.1, 11.2)],
    ];
    for (n, tri) in thin.iter().enumerate() {
        let (mut e, t, resolved) = begin_4x(ctx, |_| {})?;
        rasterizer(&mut e, |r| r.multisample = false)?;
        set_src(&mut e, UNORM, FG)?;
        draw(&mut e, &tris(&f32_tri(tri), 0.0), false)?;
        resolve(&mut e, &t.color, &resolved)?;
        let got = read_color(&mut e, &resolved)?;
        check(ctx, &format!("thin triangle {n}"), &got, TOL_U8, |x, y| {
            centre_in(tri, x, y).map(|i| if i { FG } else { BLACK })
        })?;
    }
    Ok(())
}
crate::result_case!(
    "pipe.render.msaa.aliased_review.thin_triangles",
    thin_triangles
);

/// The adjacency topologies with no geometry shader: the rasterizer draws
/// vertices 0, 2 and 4 of each primitive, aliased as a triangle list is;
/// the adjacent vertices, far outside the target, change nothing. The
/// same triangle is drawn first as a list in another colour, so the
/// adjacency draw follows a pipeline of the same topology class.
fn adjacency(ctx: &mut TestContext) -> R {
    use pipe_core::draw::PrimType;
    let tri: Tri = [(1.3, 2.2), (14.6, 6.1), (5.4, 13.7)];
    let v = f32_tri(&tri);
    let far = (40.0, -30.0);
    let pts = [v[0], far, v[1], far, v[2], far];
    for mode in [
        PrimType::TrianglesAdjacency,
        PrimType::TriangleStripAdjacency,
    ] {
        let (mut e, t, resolved) = begin_4x(ctx, |_| {})?;
        rasterizer(&mut e, |r| r.multisample = false)?;
        set_src(&mut e, UNORM, [0.0, 0.0, 1.0, 1.0])?;
        draw(&mut e, &tris(&v, 0.0), false)?;
        set_src(&mut e, UNORM, FG)?;
        draw_mode(&mut e, &tris(&pts, 0.0), false, mode)?;
        resolve(&mut e, &t.color, &resolved)?;
        let got = read_color(&mut e, &resolved)?;
        check(ctx, &format!("{mode:?}"), &got, TOL_U8, |x, y| {
            centre_in(&tri, x, y).map(|i| if i { FG } else { BLACK })
        })?;
    }
    Ok(())
}
crate::result_case!("pipe.render.msaa.aliased_review.adjacency", adjacency);

/// A vertex shader writing an array varying: the generated shader
/// extrapolates it element by element (the draw kept sample coverage
/// before, so edge pixels were partly covered). The fragment shader
/// reads element 1, which holds the colour.
fn array_varying(ctx: &mut TestContext) -> R {
    const VS_ARR: &str = "shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
out @col : f32x4[2] location=1
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  %1 : f32 = const 0.0
  %2 : f32 = const 1.0
  %3 : f32x4 = vec %1, %1, %2, %2
  %4 : i32 = const 0
  store @col, %4, %3
  %5 : f32x4 = vec %2, %1, %1, %2
  %6 : i32 = const 1
  store @col, %6, %5
}
";
    let tri: Tri = [(1.3, 2.2), (14.6, 6.1), (5.4, 13.7)];
    let (mut e, t, resolved) = begin_4x(ctx, |_| {})?;
    bind_program(&mut e, VS_ARR, super::draw::FS_COL1)?;
    rasterizer(&mut e, |r| r.multisample = false)?;
    draw(&mut e, &tris(&f32_tri(&tri), 0.0), false)?;
    resolve(&mut e, &t.color, &resolved)?;
    let got = read_color(&mut e, &resolved)?;
    check(ctx, "array varying", &got, TOL_U8, |x, y| {
        centre_in(&tri, x, y).map(|i| if i { FG } else { BLACK })
    })
}
crate::result_case!(
    "pipe.render.msaa.aliased_review.array_varying",
    array_varying
);

/// A vertex shader writing clip distances (`x + 0.25`, and 2, plane 0
/// enabled) and an array varying: the generated shader tests distance 0
/// at the pixel centre like a user clip plane, so the clip edge is
/// aliased too (the draw kept sample coverage and hardware clipping
/// before, so pixels along both were partly covered).
fn vs_clip_distance(ctx: &mut TestContext) -> R {
    let tri: Tri = [(1.3, 2.2), (14.6, 6.1), (5.4, 13.7)];
    let (mut e, t, resolved) = begin_4x(ctx, |_| {})?;
    bind_program(&mut e, super::draw::VS_CD2, super::draw::FS_COL)?;
    rasterizer(&mut e, |r| {
        r.multisample = false;
        r.clip_plane_enable = 1;
    })?;
    draw(&mut e, &tris(&f32_tri(&tri), 0.0), false)?;
    resolve(&mut e, &t.color, &resolved)?;
    let got = read_color(&mut e, &resolved)?;
    check(ctx, "clip distances", &got, TOL_U8, |x, y| {
        // Distance 0 is x + 0.25 in normalized coordinates: pixel
        // centres from x = 6 on are inside.
        let inside = centre_in(&tri, x, y)? && x >= 6;
        // The colour is the array's element 0, at location 1: red.
        Some(if inside { FG } else { BLACK })
    })
}
crate::result_case!(
    "pipe.render.msaa.aliased_review.vs_clip_distance",
    vs_clip_distance
);

/// Six user clip planes and four cull distances (the device's combined
/// limit is 8 on lavapipe and NVIDIA) with depth clipping: the aliased
/// near and far planes would need two `ClipDistance` elements more, so
/// the hardware clips at them (they are outside this triangle), and the
/// generated geometry shader declares 8 clip and cull distances, not 12.
/// Lavapipe and validation layer 1.3.239 take 12 as well, so on lavapipe
/// this checks the image only; a device that enforces its limit would
/// refuse the pipeline. On a device with a larger limit the planes stay
/// aliased; the image is the same.
fn clip_and_cull_limit(ctx: &mut TestContext) -> R {
    const VS: &str = "shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
out @cull : f32[4] builtin=cull_distance
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  %1 : f32 = const 1.0
  %2 : i32 = const 0
  store @cull, %2, %1
  %3 : i32 = const 1
  store @cull, %3, %1
  %4 : i32 = const 2
  store @cull, %4, %1
  %5 : i32 = const 3
  store @cull, %5, %1
}
";
    let (mut e, t, resolved) = begin_4x(ctx, |_| {})?;
    bind_program(&mut e, VS, FS_UBO_COLOR)?;
    set_src(&mut e, UNORM, FG)?;
    rasterizer(&mut e, |r| {
        r.multisample = false;
        r.clip_plane_enable = 0x3f;
        r.depth_clip_near = true;
        r.depth_clip_far = true;
    })?;
    // Planes that keep everything here: w >= 0.
    let mut ucp = [[0.0; 4]; 8];
    for p in ucp.iter_mut().take(6) {
        *p = [0.0, 0.0, 0.0, 1.0];
    }
    step("set_clip_state", e.ctx.set_clip_state(&ClipState { ucp }))?;
    draw(&mut e, &tris(&f32_tri(&TRI), 0.5), false)?;
    resolve(&mut e, &t.color, &resolved)?;
    let got = read_color(&mut e, &resolved)?;
    check(ctx, "clip and cull limit", &got, TOL_U8, |x, y| {
        Some(if centre_in(&TRI, x, y)? { FG } else { BLACK })
    })
}
crate::result_case!(
    "pipe.render.msaa.aliased_review.clip_and_cull_limit",
    clip_and_cull_limit
);

/// A triangle reaching far outside the viewport (which lavapipe clips at
/// the frustum) keeps its aliased edges where they cross the target. On
/// lavapipe it lost the pixels left of a line through about (9, 0) and
/// (1, 15) while the edge distances were `noperspective` varyings, which
/// lavapipe's clipper interpolates wrongly for such triangles; they are
/// perspective-correct now (`spirv_gen::passes::aliased`).
fn clipped_triangle(ctx: &mut TestContext) -> R {
    for tri in [
        [(1.3, 2.2), (60.0, 7.1), (5.4, 13.7)],
        [(-30.0, -20.0), (14.2, 3.3), (2.6, 50.0)],
    ] {
        let (mut e, t, resolved) = begin_4x(ctx, |_| {})?;
        rasterizer(&mut e, |r| r.multisample = false)?;
        set_src(&mut e, UNORM, FG)?;
        draw(&mut e, &tris(&f32_tri(&tri), 0.0), false)?;
        resolve(&mut e, &t.color, &resolved)?;
        let got = read_color(&mut e, &resolved)?;
        check(ctx, "clipped triangle", &got, TOL_U8, |x, y| {
            centre_in(&tri, x, y).map(|i| if i { FG } else { BLACK })
        })?;
    }
    Ok(())
}
crate::result_case!(
    "pipe.render.msaa.aliased_review.clipped_triangle",
    clipped_triangle
);

/// GL's single-sample rasterization gives each pixel one depth, the
/// triangle's at the pixel centre, in every sample it covers (not a
/// depth per sample): a triangle sloped in depth crossing a flat one
/// inside pixels makes each pixel wholly the one nearer at the centre.
/// With a depth per sample, pixels on the crossing line resolved to a
/// mix. With `per_sample` the fragment shader reads the sample id, which
/// GL makes 0 with multisampling off (the shader runs per pixel then;
/// `spirv_gen::passes::gl::lower_single_sample`): it ran per sample, each
/// sample with its own depth, and the case was a known gap.
fn per_pixel_depth(ctx: &mut TestContext, per_sample: bool) -> R {
    if per_sample && !crate::harness::screen(ctx)?.caps().sample_shading {
        return Err(Outcome::skip("no sample shading"));
    }
    let fs = if per_sample {
        FS_SAMPLE_ID
    } else {
        FS_UBO_COLOR
    };
    let (mut e, t, resolved) = begin_4x_depth(ctx, fs)?;
    bind_dsa(&mut e, &depth_less())?;
    rasterizer(&mut e, |r| r.multisample = false)?;
    // Window-space depth of the sloped triangle; it crosses 0.5 on the
    // line x + 0.7 y = 11.05.
    let s = |x: f64, y: f64| x + 0.7 * y - 11.05;
    let z = |x: f64, y: f64| 0.5 + 0.01 * s(x, y);
    let big = [(-1.0, -1.0), (40.0, -1.0), (-1.0, 40.0)];
    let verts = |zf: &dyn Fn(f64, f64) -> f64| -> Vec<f32> {
        big.iter()
            .flat_map(|&(x, y)| [ndc(x as f32), ndc(y as f32), zf(x, y) as f32, 1.0])
            .collect()
    };
    set_src(&mut e, UNORM, [1.0, 0.0, 0.0, 1.0])?;
    draw(&mut e, &verts(&|_, _| 0.5), false)?;
    set_src(&mut e, UNORM, FG_GREEN)?;
    draw(&mut e, &verts(&z), false)?;
    resolve(&mut e, &t.color, &resolved)?;
    let got = read_color(&mut e, &resolved)?;
    let centre = |x: u32, y: u32| s(f64::from(x) + 0.5, f64::from(y) + 0.5);
    let crossed = (0..H)
        .flat_map(|y| (0..W).map(move |x| (x, y)))
        .filter(|&(x, y)| (0.02..0.6).contains(&centre(x, y).abs()))
        .count();
    check(ctx, "per-pixel depth", &got, TOL_U8, |x, y| {
        let c = centre(x, y);
        (c.abs() >= 0.02).then_some(if c < 0.0 {
            FG_GREEN
        } else {
            [1.0, 0.0, 0.0, 1.0]
        })
    })?;
    if crossed < 8 {
        return Err(Outcome::fail(format!(
            "test geometry: only {crossed} pixels on the crossing line"
        )));
    }
    Ok(())
}
fn per_pixel_depth_per_pixel_shader(ctx: &mut TestContext) -> R {
    per_pixel_depth(ctx, false)
}
crate::result_case!(
    "pipe.render.msaa.aliased_review.per_pixel_depth",
    per_pixel_depth_per_pixel_shader
);
fn per_pixel_depth_per_sample_shader(ctx: &mut TestContext) -> R {
    per_pixel_depth(ctx, true)
}
crate::result_case!(
    "pipe.render.msaa.aliased_review.per_pixel_depth.per_sample_shader",
    per_pixel_depth_per_sample_shader
);

/// Multisampling off with an application geometry shader: it emits a
/// strip of four vertices (two triangles sharing a diagonal) with a flat
/// colour per vertex, and widens its own triangles
/// (`spirv_gen::passes::aliased::lower_aliased_gs`): exactly the pixels
/// whose centre is in a triangle get that triangle's provoking vertex's
/// colour, on every sample: the strip's second triangle, whose vertices
/// the shader reorders to keep its orientation, keeps its provoking
/// vertex (its first with `first`, else its last, GL's default). Draws
/// with an application geometry shader kept sample coverage before (the
/// edge pixels resolved to mixes).
fn app_gs_case(ctx: &mut TestContext, first: bool, cull: bool, clip: bool) -> R {
    if !crate::harness::screen(ctx)?.caps().shader[ShaderStage::Geometry.index()].supported {
        return Err(Outcome::skip("no geometry shaders"));
    }
    let v: [(f64, f64); 4] = [(2.3, 2.2), (1.6, 13.7), (13.6, 2.9), (14.2, 13.1)];
    let col: [Px; 4] = [
        [1.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, 1.0],
        [0.0, 0.0, 1.0, 1.0],
        [1.0, 1.0, 0.0, 1.0],
    ];
    let mut gs = String::from(
        "shader geometry input=points output=triangle_strip max_vertices=4 invocations=1
in @p : f32x4[1] builtin=position
out @gl_pos : f32x4 builtin=position
out @c : f32x4 location=0 flat
fn main {
",
    );
    for (k, ((x, y), c)) in v.iter().zip(&col).enumerate() {
        let (x, y) = (ndc(*x as f32), ndc(*y as f32));
        gs.push_str(&format!(
            "  %{a} : f32x4 = const {x:?}, {y:?}, 0.0, 1.0\n  store @gl_pos, %{a}\n  \
             %{b} : f32x4 = const {:?}, {:?}, {:?}, {:?}\n  store @c, %{b}\n  emit_vertex\n",
            c[0],
            c[1],
            c[2],
            c[3],
            a = 2 * k,
            b = 2 * k + 1
        ));
    }
    gs.push_str("  end_primitive\n}\n");
    const FS: &str = "shader fragment
in @c : f32x4 location=0 flat
out @frag : f32x4 location=0
fn main {
  %0 : f32x4 = load @c
  store @frag, %0
}
";
    let draw_with = |ctx: &mut TestContext, face: Face| {
        let (mut e, t, resolved) = begin_4x(ctx, |_| {})?;
        bind_program(&mut e, VS_PASSTHROUGH, FS)?;
        crate::harness::bind_stage(&mut e, ShaderStage::Geometry, &gs)?;
        rasterizer(&mut e, |r| {
            r.multisample = false;
            r.flatshade_first = first;
            r.cull_face = face;
            r.clip_plane_enable = u8::from(clip);
        })?;
        if clip {
            // Keeps clip-space x <= 0.0375 w: window x <= 8.3, so pixel
            // column 8 (centre 8.5) is out, though partly inside.
            let mut ucp = [[0.0; 4]; 8];
            ucp[0] = [-1.0, 0.0, 0.0, 0.0375];
            step("set_clip_state", e.ctx.set_clip_state(&ClipState { ucp }))?;
        }
        draw_mode(
            &mut e,
            &[0.0, 0.0, 0.0, 1.0],
            false,
            pipe_core::draw::PrimType::Points,
        )?;
        Ok::<_, Outcome>((e, t, resolved))
    };
    // Culling one face: the strip's two triangles face the same way
    // (the second one's reordered vertices keep its orientation), so one
    // of the two draws shows both and the other nothing.
    let mut faces = vec![Face::empty()];
    if cull {
        faces = vec![Face::BACK, Face::FRONT];
    }
    let mut drawn = 0;
    let mut last = None;
    for face in faces {
        let (mut e, t, resolved) = draw_with(ctx, face)?;
        resolve(&mut e, &t.color, &resolved)?;
        let got = read_color(&mut e, &resolved)?;
        if got.iter().all(|p| *p == BLACK) {
            continue;
        }
        drawn += 1;
        last = Some(got);
    }
    if drawn != 1 {
        return Err(Outcome::fail(format!(
            "{drawn} of the draws (each culling one face) drew something; want one"
        )));
    }
    let got = last.unwrap_or_default();
    // The strip's triangles and their provoking vertices.
    let tris: [(Tri, usize); 2] = [
        ([v[0], v[1], v[2]], if first { 0 } else { 2 }),
        ([v[1], v[2], v[3]], if first { 1 } else { 3 }),
    ];
    check(ctx, "application geometry shader", &got, TOL_U8, |x, y| {
        let mut got = Some(BLACK);
        if clip && x >= 8 {
            return got;
        }
        for (tri, provoking) in &tris {
            match centre_in(tri, x, y) {
                None => return None,
                Some(true) => got = Some(col[*provoking]),
                Some(false) => {}
            }
        }
        got
    })
}
fn app_gs(ctx: &mut TestContext, first: bool) -> R {
    app_gs_case(ctx, first, false, false)
}
fn app_gs_culled(ctx: &mut TestContext) -> R {
    app_gs_case(ctx, false, true, false)
}
crate::result_case!(
    "pipe.render.msaa.aliased_review.app_gs.culled",
    app_gs_culled
);
/// [`app_gs`] with user clip plane 0 keeping window x <= 8.3: the clip
/// edge is aliased too (column 8, a third inside, stays unlit).
fn app_gs_clip_plane(ctx: &mut TestContext) -> R {
    app_gs_case(ctx, false, false, true)
}
crate::result_case!(
    "pipe.render.msaa.aliased_review.app_gs.clip_plane",
    app_gs_clip_plane
);
crate::bool_cases!(
    app_gs,
    "pipe.render.msaa.aliased_review.app_gs.last",
    "pipe.render.msaa.aliased_review.app_gs.first"
);

/// A fragment shader reading `gl_SampleID`, `gl_SamplePosition` and
/// `gl_SampleMaskIn` with multisampling off sees one sample per pixel
/// (GL 4.6, 15.2.2; GLSL: "if multisample rasterization is disabled,
/// gl_SampleID will always be zero"): id 0, position (0.5, 0.5), mask
/// bit 0 alone. It writes (id / 4, position, mask / 4), so every pixel
/// whose centre is in the triangle resolves to (0, 0.5, 0.5, 0.25). Run
/// per sample (as it was), the resolve averaged ids 0..3 (0.375), the
/// sample positions and masks 1, 2, 4, 8.
fn sample_inputs(ctx: &mut TestContext) -> R {
    const FS: &str = "shader fragment
in @sid : i32 builtin=sample_id
in @spos : f32x2 builtin=sample_pos
in @smask : i32[1] builtin=sample_mask
out @frag : f32x4 location=0
fn main {
  %0 : i32 = load @sid
  %1 : f32 = i2f %0
  %2 : f32x2 = load @spos
  %3 : i32 = const 0
  %4 : i32 = load @smask, %3
  %5 : f32 = i2f %4
  %6 : f32 = const 0.25
  %7 : f32 = fmul %1, %6
  %8 : f32 = fmul %5, %6
  %9 : f32 = swizzle %2, x
  %10 : f32 = swizzle %2, y
  %11 : f32x4 = vec %7, %9, %10, %8
  store @frag, %11
}
";
    if !crate::harness::screen(ctx)?.caps().sample_shading {
        return Err(Outcome::skip("no sample shading"));
    }
    let (mut e, t, resolved) = begin_4x(ctx, |_| {})?;
    bind_program(&mut e, VS_PASSTHROUGH, FS)?;
    rasterizer(&mut e, |r| r.multisample = false)?;
    draw(&mut e, &tris(&f32_tri(&TRI), 0.5), false)?;
    super::render::check_resolved(
        ctx,
        &mut e,
        &t.color,
        &resolved,
        "sample inputs",
        TOL_U8,
        |x, y| {
            centre_in(&TRI, x, y).map(|inside| if inside { [0.0, 0.5, 0.5, 0.25] } else { BLACK })
        },
    )
}
crate::result_case!(
    "pipe.render.msaa.aliased_review.sample_inputs",
    sample_inputs
);

/// Two-sided colour (`light_twoside`) with a back colour at GL's BFC0
/// location 30 (moved below the geometry stage's inputs for the
/// generated shader) on a back-facing aliased triangle, and the front
/// colour on a front-facing one.
fn two_side(ctx: &mut TestContext) -> R {
    two_side_case(ctx, false)
}

/// [`two_side`] with the colours written by a tessellation evaluation
/// shader (patches of 3, levels 1: each patch is its triangle): its back
/// colour at location 30 moves below the geometry stage's inputs too (the
/// draw was refused before).
fn two_side_tes(ctx: &mut TestContext) -> R {
    two_side_case(ctx, true)
}
crate::result_case!("pipe.render.msaa.aliased_review.two_side_tes", two_side_tes);

fn two_side_case(ctx: &mut TestContext, tes: bool) -> R {
    const VS: &str = "shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
out @c0 : f32x4 location=0 slot=col0
out @b0 : f32x4 location=30 slot=bfc0
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  %1 : f32 = const 0.0
  %2 : f32 = const 1.0
  %3 : f32x4 = vec %2, %1, %1, %2
  %4 : f32x4 = vec %1, %1, %2, %2
  store @c0, %3
  store @b0, %4
}
";
    let (mut e, t, resolved) = begin_4x(ctx, |_| {})?;
    if tes {
        if !e.screen.caps().shader[ShaderStage::TessEval.index()].supported {
            return Err(Outcome::skip("no tessellation"));
        }
        bind_program(&mut e, VS_PASSTHROUGH, FS_COL0)?;
        // `draw::TES` (each patch its triangle), writing the colours too.
        let tes = super::draw::TES
            .replace(
                "out @gl_pos : f32x4 builtin=position\n",
                "out @gl_pos : f32x4 builtin=position\n\
                 out @c0 : f32x4 location=0 slot=col0\n\
                 out @b0 : f32x4 location=30 slot=bfc0\n",
            )
            .replace(
                "  store @gl_pos, %15\n}",
                "  store @gl_pos, %15\n\
                 \x20 %16 : f32 = const 0.0\n\
                 \x20 %17 : f32 = const 1.0\n\
                 \x20 %18 : f32x4 = vec %17, %16, %16, %17\n\
                 \x20 %19 : f32x4 = vec %16, %16, %17, %17\n\
                 \x20 store @c0, %18\n\
                 \x20 store @b0, %19\n}",
            );
        crate::harness::bind_stage(&mut e, ShaderStage::TessEval, &tes)?;
        crate::harness::tess_levels_1(&mut e, 3)?;
    } else {
        bind_program(&mut e, VS, FS_COL0)?;
    }
    rasterizer(&mut e, |r| {
        r.multisample = false;
        r.light_twoside = true;
        r.front_ccw = true;
    })?;
    let a: Tri = [(1.3, 1.2), (7.6, 1.9), (2.1, 14.3)];
    let b: Tri = [(9.3, 1.2), (14.6, 1.9), (10.1, 14.3)];
    let b_rev: Tri = [b[0], b[2], b[1]];
    let mut data = tris(&f32_tri(&a), 0.0);
    data.extend(tris(&f32_tri(&b_rev), 0.0));
    let mode = if tes {
        pipe_core::draw::PrimType::Patches
    } else {
        pipe_core::draw::PrimType::Triangles
    };
    draw_mode(&mut e, &data, false, mode)?;
    resolve(&mut e, &t.color, &resolved)?;
    let got = read_color(&mut e, &resolved)?;
    // Window y is down: (a) is clockwise on screen, so in GL's y-up
    // window coordinates... computed with Gallium's rule instead.
    let ccw = |t: &Tri| {
        let (ex, ey) = (t[0].0 - t[2].0, t[0].1 - t[2].1);
        let (fx, fy) = (t[1].0 - t[2].0, t[1].1 - t[2].1);
        ex * fy - ey * fx < 0.0
    };
    let front = |t: &Tri| ccw(t);
    let color = |t: &Tri| -> Px {
        if front(t) {
            [1.0, 0.0, 0.0, 1.0]
        } else {
            [0.0, 0.0, 1.0, 1.0]
        }
    };
    if front(&a) == front(&b_rev) {
        return Err(Outcome::fail(
            "test geometry: both triangles face the same way",
        ));
    }
    check(ctx, "two-sided aliased triangles", &got, TOL_U8, |x, y| {
        if centre_in(&a, x, y)? {
            return Some(color(&a));
        }
        if centre_in(&b, x, y)? {
            return Some(color(&b_rev));
        }
        Some(BLACK)
    })
}
crate::result_case!("pipe.render.msaa.aliased_review.two_side", two_side);

/// Points of a geometry shader with per-vertex sizes (the vertex's `z`)
/// are aliased like the vertex shader's: each covers exactly the pixels
/// whose centre is in its square.
fn gs_point_sizes(ctx: &mut TestContext) -> R {
    const GS: &str = "shader geometry input=points output=points max_vertices=1 invocations=1
in @pos : f32x4[1] builtin=position
out @gl_pos : f32x4 builtin=position
out @ps : f32 builtin=point_size
fn main {
  %0 : i32 = const 0
  %1 : f32x4 = load @pos, %0
  %2 : f32 = swizzle %1, z
  %3 : f32 = swizzle %1, x
  %4 : f32 = swizzle %1, y
  %5 : f32 = const 0.0
  %6 : f32 = const 1.0
  %7 : f32x4 = vec %3, %4, %5, %6
  store @gl_pos, %7
  store @ps, %2
  emit_vertex
  end_primitive
}
";
    let (mut e, t, resolved) = begin_4x(ctx, |_| {})?;
    if !e.screen.caps().shader[ShaderStage::Geometry.index()].supported {
        return Err(Outcome::skip("no geometry shaders"));
    }
    crate::harness::bind_stage(&mut e, ShaderStage::Geometry, GS)?;
    rasterizer(&mut e, |r| {
        r.multisample = false;
        r.point_size_per_vertex = true;
        r.point_size = 1.0;
    })?;
    set_src(&mut e, UNORM, FG)?;
    let pts = [
        (3.3f32, 4.6f32, 3.0f32),
        (10.2, 2.7, 2.0),
        (6.6, 11.4, 1.0),
        (12.4, 12.1, 4.5),
    ];
    let data: Vec<f32> = pts
        .iter()
        .flat_map(|&(x, y, s)| [ndc(x), ndc(y), s, 1.0])
        .collect();
    draw_mode(&mut e, &data, false, pipe_core::draw::PrimType::Points)?;
    check_lit(
        ctx,
        &mut e,
        &t.color,
        &resolved,
        "aliased geometry-shader points",
        FG,
        |x, y| Some(pts.iter().any(|&p| in_point(x, y, p))),
    )
}
crate::result_case!(
    "pipe.render.msaa.aliased_review.gs_point_sizes",
    gs_point_sizes
);

/// Point sprite coordinates with the lower-left origin
/// (`sprite_coord_mode_lower_left`) on an aliased point: texture
/// coordinate 0 reads `(u, 1 - v)` over the point's own square, where
/// `(u, v)` is the upper-left coordinate of the pixel centre; sizes near
/// 1 and large.
fn sprite_lower_left(ctx: &mut TestContext) -> R {
    const FS: &str = "shader fragment
in @t : f32x4 location=0 slot=tex0
out @frag : f32x4 location=0
fn main {
  %0 : f32x4 = load @t
  store @frag, %0
}
";
    for (cx, cy, s) in [(8.3f32, 7.6f32, 5.0f32), (7.2, 8.9, 1.0), (8.1, 7.7, 11.5)] {
        let (mut e, t, resolved) = begin_4x(ctx, |_| {})?;
        bind_program(&mut e, VS_PASSTHROUGH, FS)?;
        rasterizer(&mut e, |r| {
            r.multisample = false;
            r.point_size = s;
            r.point_quad_rasterization = true;
            r.sprite_coord_enable = 1;
            r.sprite_coord_mode_lower_left = true;
        })?;
        draw_mode(
            &mut e,
            &[ndc(cx), ndc(cy), 0.0, 1.0],
            false,
            pipe_core::draw::PrimType::Points,
        )?;
        resolve(&mut e, &t.color, &resolved)?;
        let got = read_color(&mut e, &resolved)?;
        check(
            ctx,
            &format!("sprite coordinates, size {s}"),
            &got,
            super::render::TOL_U8_2,
            |x, y| {
                if !in_point(x, y, (cx, cy, s)) {
                    return Some(BLACK);
                }
                let u = (x as f32 + 0.5 - (cx - s / 2.0)) / s;
                let v = (y as f32 + 0.5 - (cy - s / 2.0)) / s;
                Some([u, 1.0 - v, 0.0, 1.0])
            },
        )?;
    }
    Ok(())
}
crate::result_case!(
    "pipe.render.msaa.aliased_review.sprite_lower_left",
    sprite_lower_left
);

/// The alpha test on aliased triangles: it keeps the fragments of the
/// first triangle (alpha 0.6 > 0.5), exactly the pixels whose centre is
/// inside, and removes the second (alpha 0.4). (No scissor here: lavapipe
/// lets one sample of 4 through in the row above and the column left of
/// a scissor rectangle, with or without the emulation.)
fn alpha_test(ctx: &mut TestContext) -> R {
    let (mut e, t, resolved) = begin_4x(ctx, |_| {})?;
    rasterizer(&mut e, |r| r.multisample = false)?;
    bind_dsa(
        &mut e,
        &DepthStencilAlphaState {
            alpha_enabled: true,
            alpha_func: CompareFunc::Greater,
            alpha_ref_value: 0.5,
            ..Default::default()
        },
    )?;
    let fg: Px = [0.8, 0.2, 0.4, 0.6];
    set_src(&mut e, UNORM, fg)?;
    draw(&mut e, &tris(&f32_tri(&TRI), 0.0), false)?;
    set_src(&mut e, UNORM, [0.2, 0.8, 0.4, 0.4])?;
    draw(&mut e, &tris(&f32_tri(&TRI), 0.0), false)?;
    check_lit(
        ctx,
        &mut e,
        &t.color,
        &resolved,
        "aliased triangle, alpha test",
        fg,
        |x, y| centre_in(&TRI, x, y),
    )
}
crate::result_case!("pipe.render.msaa.aliased_review.alpha_test", alpha_test);

/// Integer (flat), `f32x2` and `f32x3` varyings through the widened
/// triangle: the integer from the provoking (last) vertex, the float
/// ones interpolated perspective-correctly as without the emulation.
fn varying_types(ctx: &mut TestContext) -> R {
    const VS: &str = "shader vertex
in @pos : f32x4 location=0
in @col : f32x4 location=1
out @gl_pos : f32x4 builtin=position
out @a : f32x2 location=0
out @b : f32x3 location=1
out @k : u32 location=2 flat
fn main {
  %0 : f32x4 = load @pos
  %1 : f32x4 = load @col
  store @gl_pos, %0
  %2 : f32x2 = swizzle %1, xy
  %3 : f32x3 = swizzle %1, yzw
  store @a, %2
  store @b, %3
  %4 : f32 = swizzle %1, w
  %5 : f32 = const 255.0
  %6 : f32 = fmul %4, %5
  %7 : u32 = f2u %6
  store @k, %7
}
";
    const FS: &str = "shader fragment
in @a : f32x2 location=0
in @b : f32x3 location=1
in @k : u32 location=2 flat
out @frag : f32x4 location=0
fn main {
  %0 : f32x2 = load @a
  %1 : f32x3 = load @b
  %2 : u32 = load @k
  %3 : f32 = u2f %2
  %4 : f32 = const 255.0
  %5 : f32 = fdiv %3, %4
  %6 : f32 = swizzle %0, x
  %7 : f32 = swizzle %1, y
  %8 : f32 = swizzle %0, y
  %9 : f32 = swizzle %1, x
  %10 : f32 = fadd %8, %9
  %11 : f32 = const 0.5
  %12 : f32 = fmul %10, %11
  %13 : f32x4 = vec %6, %7, %12, %5
  store @frag, %13
}
";
    let (mut e, t, resolved) = begin_4x(ctx, |_| {})?;
    rasterizer(&mut e, |r| r.multisample = false)?;
    bind_program(&mut e, VS, FS)?;
    let win: Tri = [(1.3, 1.2), (14.7, 3.1), (4.2, 14.6)];
    let w = [1.0, 2.5, 0.6];
    let col: [[f64; 4]; 3] = [
        [0.9, 0.1, 0.3, 40.0 / 255.0],
        [0.2, 0.7, 0.8, 90.0 / 255.0],
        [0.4, 0.3, 0.1, 200.0 / 255.0],
    ];
    let mut data = Vec::new();
    for i in 0..3 {
        let (x, y) = (ndc(win[i].0 as f32), ndc(win[i].1 as f32));
        let wi = w[i] as f32;
        data.extend([x * wi, y * wi, 0.0, wi]);
        data.extend(col[i].map(|c| c as f32));
    }
    draw(&mut e, &data, true)?;
    check_resolved(
        ctx,
        &mut e,
        &t.color,
        &resolved,
        "aliased triangle varying types",
        super::render::TOL_U8_2,
        |x, y| {
            let (px, py) = (x as f64 + 0.5, y as f64 + 0.5);
            if !centre_in(&win, x, y)? {
                return Some(BLACK);
            }
            let b = super::render::barycentric(&win, (px, py));
            let q: Vec<f64> = (0..3).map(|i| b[i] / w[i]).collect();
            let qs: f64 = q.iter().sum();
            let smooth = |c: usize| (0..3).map(|i| q[i] / qs * col[i][c]).sum::<f64>();
            Some(
                [
                    smooth(0),
                    smooth(2),
                    (smooth(1) + smooth(1)) / 2.0,
                    col[2][3],
                ]
                .map(|v| v as f32),
            )
        },
    )
}
crate::result_case!(
    "pipe.render.msaa.aliased_review.varying_types",
    varying_types
);

/// A triangle with a vertex behind the eye (`w < 0`, crossing the near
/// plane): the geometry shader cannot widen it and passes it on
/// unchanged (sample coverage, as without the emulation). The draw
/// succeeds, and pixels well inside the visible part are drawn.
fn behind_eye(ctx: &mut TestContext) -> R {
    let (mut e, t, resolved) = begin_4x(ctx, |_| {})?;
    rasterizer(&mut e, |r| r.multisample = false)?;
    set_src(&mut e, UNORM, FG)?;
    // Clip-space vertices: two in front, one behind (w = -1), with
    // z = w / 2 (depth 0.5; the near plane z >= 0 is then w >= 0).
    let data = [
        -0.9f32, -0.9, 0.5, 1.0, //
        0.9, -0.9, 0.5, 1.0, //
        0.0, 1.0, -0.5, -1.0,
    ];
    draw(&mut e, &data, false)?;
    resolve(&mut e, &t.color, &resolved)?;
    let got = read_color(&mut e, &resolved)?;
    // The visible part (weights a, b, c of the vertices, w = 1 - 2c > 0):
    // y_ndc = (1.9c - 0.9) / (1 - 2c), |x_ndc| <= 0.9 (1 - c) / (1 - 2c).
    // It is above the front edge (window y 0.8) and widens upwards past
    // the viewport (at c = 0.4, y_ndc = -0.7 and |x_ndc| <= 2.7): pixel
    // centres below window y 3 near the middle column are inside.
    check(ctx, "triangle behind the eye", &got, TOL_U8, |x, y| {
        let (px, py) = (x as f64 + 0.5, y as f64 + 0.5);
        ((py > 3.0) && (px - 8.0).abs() < 3.0).then_some(FG)
    })
}
crate::result_case!("pipe.render.msaa.aliased_review.behind_eye", behind_eye);

/// User clip planes cutting aliased triangles: GL clips, then rasterizes
/// the clipped polygon single-sampled, so the clip edges are aliased too:
/// exactly the pixels whose centre is in the triangle and on the kept
/// side of every enabled plane. Plane 0 alone (x <= 8.3 in window
/// space), then planes 1 and 5 (y <= 9.7, x >= 4.4: the second group of
/// four) with vertices of different `w`.
fn clip_planes(ctx: &mut TestContext) -> R {
    // (enabled planes, (index, plane), vertex w, the kept side of a
    // window point or None near a plane).
    type Keep = fn(f64, f64) -> Option<bool>;
    type Case = (u8, Vec<(usize, [f32; 4])>, [f32; 3], Keep);
    let cases: [Case; 2] = [
        (
            1,
            vec![(0, [-1.0, 0.0, 0.0, ndc(8.3)])],
            [1.0, 1.0, 1.0],
            |px, _| ((px - 8.3).abs() >= 0.01).then_some(px < 8.3),
        ),
        (
            1 << 1 | 1 << 5,
            vec![
                (1, [0.0, -1.0, 0.0, ndc(9.7)]),
                (5, [1.0, 0.0, 0.0, -ndc(4.4)]),
            ],
            [1.0, 2.5, 0.6],
            |px, py| {
                if (px - 4.4).abs() < 0.01 || (py - 9.7).abs() < 0.01 {
                    return None;
                }
                Some(px > 4.4 && py < 9.7)
            },
        ),
    ];
    for (n, (mask, planes, w, keep)) in cases.into_iter().enumerate() {
        let (mut e, t, resolved) = begin_4x(ctx, |_| {})?;
        rasterizer(&mut e, |r| {
            r.multisample = false;
            r.clip_plane_enable = mask;
        })?;
        let mut ucp = [[0.0f32; 4]; 8];
        for (i, p) in planes {
            ucp[i] = p;
        }
        step("set_clip_state", e.ctx.set_clip_state(&ClipState { ucp }))?;
        set_src(&mut e, UNORM, FG)?;
        let mut data = Vec::new();
        for (i, &(x, y)) in TRI.iter().enumerate() {
            let wi = w[i];
            data.extend([ndc(x as f32) * wi, ndc(y as f32) * wi, 0.0, wi]);
        }
        draw(&mut e, &data, false)?;
        resolve(&mut e, &t.color, &resolved)?;
        let got = read_color(&mut e, &resolved)?;
        check(
            ctx,
            &format!("clip planes case {n}"),
            &got,
            TOL_U8,
            |x, y| {
                let inside = centre_in(&TRI, x, y)?;
                let kept = keep(x as f64 + 0.5, y as f64 + 0.5)?;
                Some(if inside && kept { FG } else { BLACK })
            },
        )?;
    }
    Ok(())
}
crate::result_case!("pipe.render.msaa.aliased_review.clip_planes", clip_planes);

/// A triangle crossing the far plane (depth clipping on): GL clips it
/// there and rasterizes the clipped polygon single-sampled, so the far
/// clip edge is aliased too: exactly the pixels whose centre is in the
/// triangle with a depth below 1.
fn depth_clip_far(ctx: &mut TestContext) -> R {
    depth_clip_case(ctx, [0.2, 1.6, 0.4], false)
}
crate::result_case!(
    "pipe.render.msaa.aliased_review.depth_clip_far",
    depth_clip_far
);

/// The near plane likewise: GL's `z >= -w`, or `z >= 0` with
/// `clip_halfz`.
fn depth_clip_near(ctx: &mut TestContext) -> R {
    depth_clip_case(ctx, [-1.7, 0.2, 0.4], false)
}
crate::result_case!(
    "pipe.render.msaa.aliased_review.depth_clip_near",
    depth_clip_near
);
fn depth_clip_near_halfz(ctx: &mut TestContext) -> R {
    depth_clip_case(ctx, [-0.7, 0.2, 0.4], true)
}
crate::result_case!(
    "pipe.render.msaa.aliased_review.depth_clip_near_halfz",
    depth_clip_near_halfz
);

/// [`TRI`] with depths `z` (w = 1) drawn aliased with depth clipping on:
/// the pixels whose centre is in the triangle with a depth inside the
/// clip range ([-1, 1], or [0, 1] with `halfz`) are covered whole, the
/// others not at all.
fn depth_clip_case(ctx: &mut TestContext, z: [f64; 3], halfz: bool) -> R {
    let (mut e, t, resolved) = begin_4x(ctx, |_| {})?;
    rasterizer(&mut e, |r| {
        r.multisample = false;
        r.clip_halfz = halfz;
    })?;
    set_src(&mut e, UNORM, FG)?;
    let near = if halfz { 0.0 } else { -1.0 };
    let mut data = Vec::new();
    for (i, &(x, y)) in TRI.iter().enumerate() {
        data.extend([ndc(x as f32), ndc(y as f32), z[i] as f32, 1.0]);
    }
    draw(&mut e, &data, false)?;
    check_lit(
        ctx,
        &mut e,
        &t.color,
        &resolved,
        "triangle through a depth plane",
        FG,
        |x, y| {
            let depth = ndc_depth_at(&TRI, z, x, y);
            if (depth - 1.0).abs() < 0.002 || (depth - near).abs() < 0.002 {
                return None;
            }
            Some(centre_in(&TRI, x, y)? && depth < 1.0 && depth > near)
        },
    )
}

/// Cases kept out of the registered table because the driver cannot pass
/// them yet: (name, reason, body). Register one when its gap closes.
#[allow(dead_code)]
const KNOWN_GAPS: &[(&str, &str, Body)] = &[];

/// Flat shading with two-sided colour: a back-facing aliased triangle
/// shows its provoking vertex's back colour (GL's BFC0 at location 30,
/// moved below the geometry stage's inputs and back), a front-facing one
/// its provoking vertex's front colour; the colours differ per vertex.
fn two_side_flat(ctx: &mut TestContext, first: bool) -> R {
    const VS: &str = "shader vertex
in @pos : f32x4 location=0
in @col : f32x4 location=1
out @gl_pos : f32x4 builtin=position
out @c0 : f32x4 location=0 slot=col0
out @b0 : f32x4 location=30 slot=bfc0
fn main {
  %0 : f32x4 = load @pos
  %1 : f32x4 = load @col
  store @gl_pos, %0
  store @c0, %1
  %2 : f32x4 = swizzle %1, zxyw
  store @b0, %2
}
";
    let (mut e, t, resolved) = begin_4x(ctx, |_| {})?;
    bind_program(&mut e, VS, FS_COL0)?;
    rasterizer(&mut e, |r| {
        r.multisample = false;
        r.light_twoside = true;
        r.flatshade = true;
        r.flatshade_first = first;
        r.front_ccw = true;
    })?;
    let a: Tri = [(1.3, 1.2), (7.6, 1.9), (2.1, 14.3)];
    let b: Tri = [(9.3, 1.2), (10.1, 14.3), (14.6, 1.9)];
    let col: [Px; 3] = [
        [0.6, 0.2, 0.4, 1.0],
        [0.2, 0.6, 0.4, 1.0],
        [0.4, 0.2, 0.6, 1.0],
    ];
    let mut data = Vec::new();
    for t in [&a, &b] {
        for (i, &(x, y)) in t.iter().enumerate() {
            data.extend([ndc(x as f32), ndc(y as f32), 0.0, 1.0]);
            data.extend(col[i]);
        }
    }
    draw(&mut e, &data, true)?;
    resolve(&mut e, &t.color, &resolved)?;
    let got = read_color(&mut e, &resolved)?;
    // Gallium's winding rule (draw_pipe_cull.c) in window coordinates.
    let ccw = |t: &Tri| {
        let (ex, ey) = (t[0].0 - t[2].0, t[0].1 - t[2].1);
        let (fx, fy) = (t[1].0 - t[2].0, t[1].1 - t[2].1);
        ex * fy - ey * fx < 0.0
    };
    if ccw(&a) == ccw(&b) {
        return Err(Outcome::fail(
            "test geometry: both triangles face the same way",
        ));
    }
    let pv = if first { 0 } else { 2 };
    let shown = |t: &Tri| -> Px {
        let c = col[pv];
        if ccw(t) {
            c
        } else {
            [c[2], c[0], c[1], c[3]]
        }
    };
    check(
        ctx,
        "flat two-sided aliased triangles",
        &got,
        TOL_U8,
        |x, y| {
            if centre_in(&a, x, y)? {
                return Some(shown(&a));
            }
            if centre_in(&b, x, y)? {
                return Some(shown(&b));
            }
            Some(BLACK)
        },
    )
}
crate::bool_cases!(
    two_side_flat,
    "pipe.render.msaa.aliased_review.two_side_flat.last",
    "pipe.render.msaa.aliased_review.two_side_flat.first"
);

fn flat_fan(ctx: &mut TestContext, first: bool) -> R {
    flat_two_triangles(ctx, first, true)
}
crate::bool_cases!(
    flat_fan,
    "pipe.render.msaa.aliased_review.flat_fan.last",
    "pipe.render.msaa.aliased_review.flat_fan.first"
);

/// Culling, polygon offset and multi-pass depth on aliased triangles:
/// a first aliased pass writes both triangles' depth; a second pass of
/// the same triangles culls the back-facing one, and the front-facing one
/// passes the depth test on exactly its pixels: with `less` through the
/// polygon offset (-1 unit, slope factor -1), or with `equal` and no
/// offset (GL's invariance: the same primitive under the same state
/// gives the same depths).
fn cull_offset(ctx: &mut TestContext, equal: bool) -> R {
    let (mut e, t, resolved) = begin_4x_depth(ctx, FS_UBO_COLOR)?;
    let a: Tri = [(1.3, 1.2), (7.6, 1.9), (2.1, 14.3)];
    let b: Tri = [(9.3, 1.2), (10.1, 14.3), (14.6, 1.9)];
    let z = [0.2f32, 0.7, 0.4];
    let verts = |t: &Tri| -> Vec<f32> {
        t.iter()
            .enumerate()
            .flat_map(|(i, &(x, y))| [ndc(x as f32), ndc(y as f32), z[i], 1.0])
            .collect()
    };
    let mut data = verts(&a);
    data.extend(verts(&b));
    bind_dsa(&mut e, &depth_less())?;
    rasterizer(&mut e, |r| r.multisample = false)?;
    set_src(&mut e, UNORM, BLACK)?;
    draw(&mut e, &data, false)?;
    let ccw = |t: &Tri| {
        let (ex, ey) = (t[0].0 - t[2].0, t[0].1 - t[2].1);
        let (fx, fy) = (t[1].0 - t[2].0, t[1].1 - t[2].1);
        ex * fy - ey * fx < 0.0
    };
    if ccw(&a) == ccw(&b) {
        return Err(Outcome::fail(
            "test geometry: both triangles face the same way",
        ));
    }
    rasterizer(&mut e, |r| {
        r.multisample = false;
        r.front_ccw = true;
        r.cull_face = Face::BACK;
        r.offset_tri = !equal;
        r.offset_units = -1.0;
        r.offset_scale = -1.0;
    })?;
    if equal {
        bind_dsa(
            &mut e,
            &DepthStencilAlphaState {
                depth_enabled: true,
                depth_func: CompareFunc::Equal,
                ..Default::default()
            },
        )?;
    }
    set_src(&mut e, UNORM, FG)?;
    draw(&mut e, &data, false)?;
    check_lit(
        ctx,
        &mut e,
        &t.color,
        &resolved,
        "culled and offset aliased triangles",
        FG,
        |x, y| {
            let in_a = centre_in(&a, x, y)?;
            let in_b = centre_in(&b, x, y)?;
            Some((in_a && ccw(&a)) || (in_b && ccw(&b)))
        },
    )
}
crate::bool_cases!(
    cull_offset,
    "pipe.render.msaa.aliased_review.cull_offset.less_offset",
    "pipe.render.msaa.aliased_review.cull_offset.equal"
);

/// A fragment shader reading `gl_ClipDistance` on an aliased triangle
/// with a user clip plane (x <= 8.3 in window space) reads the distance
/// (`(8.3 - x) / 8` at the pixel centre, as red), not the value the
/// widened triangle's hardware clipping is turned off with. The
/// hardware then clips by sample: the column the plane crosses is not
/// compared.
fn clip_distance_read(ctx: &mut TestContext) -> R {
    const FS: &str = "shader fragment
in @cd : f32[1] builtin=clip_distance
out @frag : f32x4 location=0
fn main {
  %0 : i32 = const 0
  %1 : f32 = load @cd, %0
  %2 : f32 = const 0.0
  %3 : f32 = const 1.0
  %4 : f32x4 = vec %1, %2, %2, %3
  store @frag, %4
}
";
    let (mut e, t, resolved) = begin_4x(ctx, |_| {})?;
    bind_program(&mut e, VS_PASSTHROUGH, FS)?;
    rasterizer(&mut e, |r| {
        r.multisample = false;
        r.clip_plane_enable = 1;
    })?;
    let mut ucp = [[0.0f32; 4]; 8];
    ucp[0] = [-1.0, 0.0, 0.0, ndc(8.3)];
    step("set_clip_state", e.ctx.set_clip_state(&ClipState { ucp }))?;
    draw(&mut e, &tris(&f32_tri(&TRI), 0.0), false)?;
    check_resolved(
        ctx,
        &mut e,
        &t.color,
        &resolved,
        "clip distance read",
        super::render::TOL_U8_2,
        |x, y| {
            let inside = centre_in(&TRI, x, y)?;
            let px = x as f64 + 0.5;
            if (px - 8.3).abs() < 1.0 {
                return None;
            }
            Some(if inside && px < 8.3 {
                [((8.3 - px) / 8.0) as f32, 0.0, 0.0, 1.0]
            } else {
                BLACK
            })
        },
    )
}
crate::result_case!(
    "pipe.render.msaa.aliased_review.clip_distance_read",
    clip_distance_read
);

/// A triangle with a vertex behind the eye (w < 0) crossing the near
/// plane: the geometry shader cannot widen it and leaves it to sample
/// coverage, so it must look exactly as the same draw with multisampling
/// on, where the hardware clips. With aliased depth clipping the
/// hardware's depth clipping is off for the draw, and the shader clips
/// such a triangle through two extra `ClipDistance` elements instead.
fn depth_clip_unexpanded(ctx: &mut TestContext) -> R {
    let (mut e, t, resolved) = begin_4x(ctx, |_| {})?;
    set_src(&mut e, UNORM, FG)?;
    let data = [
        -0.8, -0.8, 0.0, 1.0, //
        0.8, -0.6, 0.5, 1.0, //
        0.1, 0.9, -2.5, -0.5,
    ];
    let mut images = Vec::new();
    for multisample in [true, false] {
        rasterizer(&mut e, |r| r.multisample = multisample)?;
        clear(
            &mut e,
            pipe_core::flags::ClearFlags::COLOR0,
            pipe_core::state::ColorUnion::from_f32(BLACK),
            1.0,
            0,
            None,
        )?;
        draw(&mut e, &data, false)?;
        resolve(&mut e, &t.color, &resolved)?;
        images.push(read_color(&mut e, &resolved)?);
    }
    if images[0].iter().all(|p| p[0] == 0.0) {
        return Err(Outcome::fail("the multisampled draw covered nothing"));
    }
    check(
        ctx,
        "aliased draw of an unwidened triangle",
        &images[1],
        TOL_U8,
        |x, y| Some(images[0][(y * W + x) as usize]),
    )
}
crate::result_case!(
    "pipe.render.msaa.aliased_review.depth_clip_unexpanded",
    depth_clip_unexpanded
);

/// A fragment shader that reads the sample id runs once per sample, also
/// with multisampling off. GL still rasterizes the aliased triangle's
/// pixels whole: the edge test reads its distances at the pixel centre
/// (`interp_at_offset`), not at the sample, so exactly the pixels whose
/// centre is inside get the colour, on all their samples. The colour
/// does not depend on the sample id (it is multiplied by 0).
fn per_sample_shader(ctx: &mut TestContext) -> R {
    if !crate::harness::screen(ctx)?.caps().sample_shading {
        return Err(Outcome::skip("no sample shading"));
    }
    let (mut e, t, resolved) = begin_4x(ctx, |_| {})?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_SAMPLE_ID)?;
    rasterizer(&mut e, |r| r.multisample = false)?;
    set_src(&mut e, UNORM, FG)?;
    draw(&mut e, &tris(&f32_tri(&TRI), 0.5), false)?;
    check_lit(
        ctx,
        &mut e,
        &t.color,
        &resolved,
        "per-sample shader",
        FG,
        |x, y| centre_in(&TRI, x, y),
    )
}

/// The colour of constant buffer 0, from a shader that reads the sample
/// id (so it runs per sample); the id is multiplied by 0.
const FS_SAMPLE_ID: &str = "shader fragment
in @sid : i32 builtin=sample_id
out @frag : f32x4 location=0
ubo @c slot=0 size=16
fn main {
  %0 : u32 = const 0
  %1 : f32x4 = load_ubo @c, %0
  %2 : i32 = load @sid
  %3 : f32 = i2f %2
  %4 : f32 = const 0.0
  %5 : f32 = fmul %3, %4
  %6 : f32x4 = vec %5, %5, %5, %5
  %7 : f32x4 = fadd %1, %6
  store @frag, %7
}
";
crate::result_case!(
    "pipe.render.msaa.aliased_review.per_sample_shader",
    per_sample_shader
);

// The cases above with every shader SPIR-V passthrough, where their
// shaders need nothing of GL's compatibility profile (not
// `sprite_lower_left`, `two_side*`, `flat_*`: GL's colour and texture
// coordinate varyings) and that have a fragment shader: the fragment
// shader's half of the emulation is patched into its words
// (`spirv_gen::patch::{aliased_points_fs, aliased_triangles_fs}`).
// Not the `app_gs` ones: the geometry shader must be IR to widen its
// triangles.
crate::spirv_result_cases! {
    "pipe.render.msaa.aliased_review.min_samples" => sample_shading,
    "pipe.render.msaa.aliased_review.y_flip" => y_flip,
    "pipe.render.msaa.aliased_review.thin_triangles" => thin_triangles,
    "pipe.render.msaa.aliased_review.adjacency" => adjacency,
    "pipe.render.msaa.aliased_review.array_varying" => array_varying,
    "pipe.render.msaa.aliased_review.vs_clip_distance" => vs_clip_distance,
    "pipe.render.msaa.aliased_review.per_pixel_depth" => per_pixel_depth_per_pixel_shader,
    "pipe.render.msaa.aliased_review.gs_point_sizes" => gs_point_sizes,
    "pipe.render.msaa.aliased_review.alpha_test" => alpha_test,
    "pipe.render.msaa.aliased_review.varying_types" => varying_types,
    "pipe.render.msaa.aliased_review.behind_eye" => behind_eye,
    "pipe.render.msaa.aliased_review.clip_planes" => clip_planes,
    "pipe.render.msaa.aliased_review.depth_clip_far" => depth_clip_far,
    "pipe.render.msaa.aliased_review.depth_clip_near" => depth_clip_near,
    "pipe.render.msaa.aliased_review.depth_clip_near_halfz" => depth_clip_near_halfz,
    "pipe.render.msaa.aliased_review.cull_offset.less_offset" => |c| cull_offset(c, false),
    "pipe.render.msaa.aliased_review.clip_distance_read" => clip_distance_read,
    "pipe.render.msaa.aliased_review.depth_clip_unexpanded" => depth_clip_unexpanded,
    "pipe.render.msaa.aliased_review.clipped_triangle" => clipped_triangle,
    "pipe.render.msaa.aliased_review.per_sample_shader" => per_sample_shader,
    "pipe.render.msaa.aliased_review.per_pixel_depth.per_sample_shader" =>
        per_pixel_depth_per_sample_shader,
    "pipe.render.msaa.aliased_review.sample_inputs" => sample_inputs,
}
