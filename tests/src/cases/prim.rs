//! `pipe.prim.*`: the primitive types Vulkan lacks (quads, quad strips,
//! polygons, line loops) and primitive restart with an index other than
//! all-ones, which pipe-vk draws by index rewriting (`pipe_vk::prim`).
//!
//! Same approach as `pipe.draw.*`: a 16x16 RGBA8 target with a full
//! viewport, so window coordinates are `8 * ndc + 8` and pixel (x, y) has
//! its centre at (x + 0.5, y + 0.5). Expected images are computed here from
//! the geometry: a pixel is covered when its centre lies inside the shape;
//! centres exactly on an outer edge (where the tie-breaking rule decides)
//! are skipped. Interior edges between the triangles a shape is cut into
//! are not skipped: the shape has one colour and a shared edge covers each
//! centre exactly once.
//!
//! - coverage (`quads`, `quad_strip`, `polygon`, `line_loop`): the shape
//!   drawn non-indexed and indexed (u8, u16, u32 user and buffer indices),
//!   with trailing vertices GL ignores, and a draw too short for one
//!   primitive that must draw nothing;
//! - `restart.*`: restart index 0xfffe on u32 (and u16) indices, compared
//!   before `index_bias`, with empty runs and too-short runs;
//! - `winding.*`: with back-face culling, a converted shape is culled exactly
//!   when a native triangle list with GL's orientation of that shape is;
//! - `provoking.*`: flat-shaded per-vertex colours show GL's provoking
//!   vertex (last vertex of a quad, first of a polygon, the closing segment
//!   of a line loop) under both conventions (`flatshade_first`). The
//!   first-vertex variants expect quads to follow the convention
//!   (`QUADS_FOLLOW_PROVOKING_VERTEX_CONVENTION`).
//!
//! Lines: the loop runs through pixel centres, so each side covers the
//! pixels it passes through with either line rasterization (diamond-exit or
//! rectangular); the corner pixels, where the rules differ, are skipped.

use std::sync::Arc;

use pipe_core::draw::{DrawInfo, DrawStartCountBias, IndexSource, PrimType};
use pipe_core::resource::{PipeBox, ResourceFlags};
use pipe_core::state::*;
use pipe_core::{Format, Resource};

use crate::harness::{
    bind_program, bind_render_target, bind_vertex_buffer, clear_color, draw_arrays, env, f32s,
    set_color, step, unorm, Env, FS_UBO_COLOR, VEC4_ELEMENT, VS_PASSTHROUGH,
};
use crate::{both_paths, Outcome, TestContext};

type R = Result<(), Outcome>;

const W: u32 = 16;
const H: u32 = 16;
const RESTART: u32 = 0xfffe;

const VS_FLAT: &str = "shader vertex
in @pos : f32x4 location=0
in @col : f32x4 location=1
out @gl_pos : f32x4 builtin=position
out @vcol : f32x4 location=0 flat
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  %1 : f32x4 = load @col
  store @vcol, %1
}
";

const FS_FLAT: &str = "shader fragment
in @vcol : f32x4 location=0 flat
out @frag : f32x4 location=0
fn main {
  %0 : f32x4 = load @vcol
  store @frag, %0
}
";

const BLACK: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

/// The vertex at window coordinates (x, y).
fn win(x: f32, y: f32) -> [f32; 4] {
    [x / 8.0 - 1.0, y / 8.0 - 1.0, 0.0, 1.0]
}

/// An axis-aligned rectangle as a GL quad: (x0,y0) (x1,y0) (x1,y1) (x0,y1).
fn rect(x0: f32, y0: f32, x1: f32, y1: f32) -> [[f32; 4]; 4] {
    [win(x0, y0), win(x1, y0), win(x1, y1), win(x0, y1)]
}

/// Pixel centre inside the rectangle with integer bounds (no ties).
fn in_rect(x: u32, y: u32, r: (u32, u32, u32, u32)) -> bool {
    (r.0..r.2).contains(&x) && (r.1..r.3).contains(&y)
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Cover {
    In,
    Out,
    /// The centre lies on an outer edge: the tie rule decides.
    Edge,
}

/// Where pixel (x, y)'s centre lies relative to a rectangle with integer
/// bounds (never on an edge).
fn cover_rect(x: u32, y: u32, r: (u32, u32, u32, u32)) -> Cover {
    if in_rect(x, y, r) {
        Cover::In
    } else {
        Cover::Out
    }
}

/// Where pixel (x, y)'s centre lies relative to a convex polygon with
/// integer window-coordinate vertices (either orientation); exact.
fn convex(x: u32, y: u32, poly: &[(i64, i64)]) -> Cover {
    let (px, py) = (2 * i64::from(x) + 1, 2 * i64::from(y) + 1);
    let n = poly.len();
    let area: i64 = (0..n)
        .map(|i| {
            let (a, b) = (poly[i], poly[(i + 1) % n]);
            a.0 * b.1 - b.0 * a.1
        })
        .sum();
    let s = area.signum();
    let mut on_edge = false;
    for i in 0..n {
        let (a, b) = (poly[i], poly[(i + 1) % n]);
        let (ax, ay, bx, by) = (2 * a.0, 2 * a.1, 2 * b.0, 2 * b.1);
        let c = s * ((bx - ax) * (py - ay) - (by - ay) * (px - ax));
        if c < 0 {
            return Cover::Out;
        }
        on_edge |= c == 0;
    }
    if on_edge {
        Cover::Edge
    } else {
        Cover::In
    }
}

/// Whether pixel (x, y) is on the 1-pixel outline of the square whose
/// corners are the pixel centres of (lo, lo) and (hi, hi): Some(true) on a
/// side, Some(false) off the outline, None on a corner (skipped).
fn on_outline(x: u32, y: u32, lo: u32, hi: u32) -> Option<bool> {
    let xs = x == lo || x == hi;
    let ys = y == lo || y == hi;
    let xin = (lo..=hi).contains(&x);
    let yin = (lo..=hi).contains(&y);
    if xs && ys {
        None
    } else {
        Some((xs && yin) || (ys && xin))
    }
}

/// A 16x16 RGBA8 render target, bound with a full viewport and the
/// default rasterizer of [`rasterizer`].
fn setup(e: &mut Env) -> Result<Resource, Outcome> {
    let color = bind_render_target(e, Format::R8G8B8A8Unorm, W, H)?;
    rasterizer(e, Face::empty(), false, false)?;
    Ok(color)
}

/// An [`Env`] with [`setup`]'s target bound and the solid-colour program
/// (its colour set with [`set_color`]).
fn setup_solid(ctx: &TestContext, staging: bool) -> Result<(Env, Resource), Outcome> {
    let mut e = env(ctx, staging)?;
    let t = setup(&mut e)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    Ok((e, t))
}

/// Clears the target to black and sets the colour of the next draws.
fn clear_and_color(e: &mut Env, c: [f32; 4]) -> R {
    clear_color(e, BLACK)?;
    set_color(e, c)
}

/// Binds a rasterizer state with the given culling, front face and
/// provoking-vertex convention.
fn rasterizer(e: &mut Env, cull_face: Face, front_ccw: bool, flatshade_first: bool) -> R {
    let rs = RasterizerState {
        line_width: 1.0,
        clip_halfz: true,
        depth_clip_near: true,
        depth_clip_far: true,
        half_pixel_center: true,
        cull_face,
        front_ccw,
        flatshade_first,
        ..Default::default()
    };
    let h = step("rasterizer", e.ctx.create_rasterizer_state(&rs))?;
    step("bind rasterizer", e.ctx.bind_rasterizer_state(Some(h)))
}

/// Binds positions (and, when given, per-vertex colours at location 1,
/// interleaved) as vertex buffer 0.
fn bind_vertices(e: &mut Env, pos: &[[f32; 4]], colors: Option<&[[f32; 4]]>) -> R {
    let pos_elem = VEC4_ELEMENT;
    let (elems, data) = match colors {
        None => (vec![pos_elem], f32s(pos.as_flattened())),
        Some(cols) => {
            let mut v = Vec::with_capacity(pos.len() * 8);
            for (p, c) in pos.iter().zip(cols) {
                v.extend_from_slice(p);
                v.extend_from_slice(c);
            }
            let p = VertexElement {
                src_stride: 32,
                ..pos_elem
            };
            let c = VertexElement {
                src_offset: 16,
                ..p
            };
            (vec![p, c], f32s(&v))
        }
    };
    bind_vertex_buffer(e, &elems, VertexBufferSource::User(Arc::from(data)))
}

/// Index data of an indexed draw.
#[derive(Clone, Copy)]
enum Idx<'a> {
    U8(&'a [u8]),
    U16(&'a [u16]),
    /// u32 indices from user memory.
    U32(&'a [u32]),
    /// u32 indices from a buffer resource.
    U32Buffer(&'a [u32]),
}

/// An indexed draw of all of `idx`, with primitive restart on
/// `restart` when given.
fn draw_indexed(
    e: &mut Env,
    mode: PrimType,
    idx: Idx<'_>,
    restart: Option<u32>,
    index_bias: i32,
) -> R {
    let (size, count, bytes): (u8, usize, Vec<u8>) = match idx {
        Idx::U8(i) => (1, i.len(), i.to_vec()),
        Idx::U16(i) => (2, i.len(), i.iter().flat_map(|v| v.to_le_bytes()).collect()),
        Idx::U32(i) | Idx::U32Buffer(i) => {
            (4, i.len(), i.iter().flat_map(|v| v.to_le_bytes()).collect())
        }
    };
    let index = if let Idx::U32Buffer(_) = idx {
        let ib = e.buffer(bytes.len().max(4) as u32, ResourceFlags::empty())?;
        e.subdata(&ib, 0, &bytes)?;
        IndexSource::Resource(ib)
    } else {
        IndexSource::User(&bytes)
    };
    let info = DrawInfo {
        mode,
        index_size: size,
        index,
        primitive_restart: restart.is_some(),
        restart_index: restart.unwrap_or(0),
        ..DrawInfo::default()
    };
    step(
        "indexed draw_vbo",
        e.ctx.draw_vbo(
            &info,
            0,
            None,
            &[DrawStartCountBias {
                start: 0,
                count: count as u32,
                index_bias,
            }],
        ),
    )
}

/// Compares the target with `expect(x, y) -> Some(rgba)`; `None` pixels
/// (edge ties) are skipped. Writes the PNG triple on failure.
fn check_image<P: Into<crate::image::Rgba8Range>>(
    ctx: &TestContext,
    e: &mut Env,
    color: &Resource,
    tolerance: u8,
    expect: impl Fn(u32, u32) -> Option<P>,
) -> R {
    let got = e.read_texture(color, 0, &PipeBox::rect(0, 0, W, H))?;
    let want = crate::cases::draw::expected_image(&got, W, H, tolerance, expect);
    match ctx.compare_rgba8_ranges(&got, &want, W, H) {
        Outcome::Pass => Ok(()),
        o => Err(o),
    }
}

/// Colour or background by a coverage predicate.
fn paint(c: [f32; 4], inside: bool) -> Option<crate::image::Rgba8Range> {
    Some(unorm(if inside { c } else { BLACK }))
}

/// Colour by a convex-polygon coverage, edge ties skipped.
fn paint_convex(
    c: [f32; 4],
    x: u32,
    y: u32,
    poly: &[(i64, i64)],
) -> Option<crate::image::Rgba8Range> {
    match convex(x, y, poly) {
        Cover::In => Some(unorm(c)),
        Cover::Out => Some(unorm(BLACK)),
        Cover::Edge => None,
    }
}

// ---- coverage ----

/// Two quads (window x 2..6 y 2..14, x 8..14 y 4..10) followed by three
/// vertices of a screen-covering triangle that GL ignores (an incomplete
/// quad). Drawn non-indexed, then with u16 indices in another order, then
/// a 3-vertex quads draw that must draw nothing.
fn quads(ctx: &mut TestContext, staging: bool) -> R {
    let (mut e, t) = setup_solid(ctx, staging)?;
    let mut v = Vec::new();
    v.extend(rect(2.0, 2.0, 6.0, 14.0));
    v.extend(rect(8.0, 4.0, 14.0, 10.0));
    v.extend([win(0.0, 0.0), win(32.0, 0.0), win(0.0, 32.0)]);
    bind_vertices(&mut e, &v, None)?;
    let inside = |x, y| in_rect(x, y, (2, 2, 6, 14)) || in_rect(x, y, (8, 4, 14, 10));
    let red = [1.0, 0.0, 0.0, 1.0];
    clear_and_color(&mut e, red)?;
    draw_arrays(&mut e, PrimType::Quads, 0, 11)?;
    check_image(ctx, &mut e, &t, 0, |x, y| paint(red, inside(x, y)))?;

    let blue = [0.0, 0.0, 1.0, 1.0];
    clear_and_color(&mut e, blue)?;
    draw_indexed(
        &mut e,
        PrimType::Quads,
        Idx::U16(&[4, 5, 6, 7, 0, 1, 2, 3, 8, 9]),
        None,
        0,
    )?;
    draw_arrays(&mut e, PrimType::Quads, 8, 3)?;
    check_image(ctx, &mut e, &t, 0, |x, y| paint(blue, inside(x, y)))
}
both_paths!("pipe.prim.quads.coverage", quads);

/// Vertices 2c at (x_c, 3) and 2c+1 at (x_c, 13) for x_c = 2, 6, 10, 14:
/// three quads covering x 2..14, y 3..13, plus a ninth vertex GL ignores.
fn strip_vertices() -> Vec<[f32; 4]> {
    let mut v = Vec::new();
    for c in [2.0, 6.0, 10.0, 14.0] {
        v.push(win(c, 3.0));
        v.push(win(c, 13.0));
    }
    v
}

/// A quad strip, non-indexed with an odd trailing vertex, then with u8
/// indices walking it backwards, then a 3-vertex draw that draws nothing.
fn quad_strip(ctx: &mut TestContext, staging: bool) -> R {
    let (mut e, t) = setup_solid(ctx, staging)?;
    let mut v = strip_vertices();
    v.push(win(0.0, 0.0));
    bind_vertices(&mut e, &v, None)?;
    let inside = |x, y| in_rect(x, y, (2, 3, 14, 13));
    let green = [0.0, 1.0, 0.0, 1.0];
    clear_and_color(&mut e, green)?;
    draw_arrays(&mut e, PrimType::QuadStrip, 0, 9)?;
    check_image(ctx, &mut e, &t, 0, |x, y| paint(green, inside(x, y)))?;

    let c = [1.0, 0.0, 1.0, 1.0];
    clear_and_color(&mut e, c)?;
    draw_indexed(
        &mut e,
        PrimType::QuadStrip,
        Idx::U8(&[6, 7, 4, 5, 2, 3, 0, 1, 8]),
        None,
        0,
    )?;
    draw_arrays(&mut e, PrimType::QuadStrip, 6, 3)?;
    check_image(ctx, &mut e, &t, 0, |x, y| paint(c, inside(x, y)))
}
both_paths!("pipe.prim.quad_strip.coverage", quad_strip);

/// The pentagon of the polygon tests (window coordinates, counter-clockwise
/// with y up).
const PENTAGON: [(i64, i64); 5] = [(2, 2), (14, 2), (14, 8), (8, 14), (2, 8)];

fn pentagon_vertices() -> Vec<[f32; 4]> {
    PENTAGON
        .iter()
        .map(|&(x, y)| win(x as f32, y as f32))
        .collect()
}

/// A convex pentagon with two diagonal sides (ties on them skipped),
/// non-indexed, then from a u32 index buffer starting at another vertex
/// (another fan, same coverage), then a 2-vertex draw that draws nothing.
fn polygon(ctx: &mut TestContext, staging: bool) -> R {
    let (mut e, t) = setup_solid(ctx, staging)?;
    bind_vertices(&mut e, &pentagon_vertices(), None)?;
    let c = [0.0, 1.0, 1.0, 1.0];
    clear_and_color(&mut e, c)?;
    draw_arrays(&mut e, PrimType::Polygon, 0, 5)?;
    check_image(ctx, &mut e, &t, 0, |x, y| paint_convex(c, x, y, &PENTAGON))?;

    let c = [1.0, 1.0, 0.0, 1.0];
    clear_and_color(&mut e, c)?;
    draw_indexed(
        &mut e,
        PrimType::Polygon,
        Idx::U32Buffer(&[2, 3, 4, 0, 1]),
        None,
        0,
    )?;
    draw_arrays(&mut e, PrimType::Polygon, 0, 2)?;
    check_image(ctx, &mut e, &t, 0, |x, y| paint_convex(c, x, y, &PENTAGON))
}
both_paths!("pipe.prim.polygon.coverage", polygon);

/// The square loop through the pixel centres of (lo, lo) .. (hi, hi).
fn square_loop(lo: u32, hi: u32) -> [[f32; 4]; 4] {
    let (a, b) = (lo as f32 + 0.5, hi as f32 + 0.5);
    [win(a, a), win(b, a), win(b, b), win(a, b)]
}

/// A 1-pixel line loop around a square (pixels 3..=12): every side must
/// be drawn, the closing one included. Non-indexed, then u16 indices in
/// the other direction, then a 1-vertex loop that draws nothing.
fn line_loop(ctx: &mut TestContext, staging: bool) -> R {
    let (mut e, t) = setup_solid(ctx, staging)?;
    bind_vertices(&mut e, &square_loop(3, 12), None)?;
    let white = [1.0; 4];
    clear_and_color(&mut e, white)?;
    draw_arrays(&mut e, PrimType::LineLoop, 0, 4)?;
    let expect = |x, y| on_outline(x, y, 3, 12).and_then(|on| paint(white, on));
    check_image(ctx, &mut e, &t, 0, expect)?;

    clear_color(&mut e, BLACK)?;
    draw_indexed(&mut e, PrimType::LineLoop, Idx::U16(&[3, 2, 1, 0]), None, 0)?;
    draw_arrays(&mut e, PrimType::LineLoop, 0, 1)?;
    check_image(ctx, &mut e, &t, 0, expect)
}
both_paths!("pipe.prim.line_loop.coverage", line_loop);

// ---- primitive restart with 0xfffe ----

/// An axis-aligned rectangle as a triangle strip.
fn strip_rect(x0: f32, y0: f32, x1: f32, y1: f32) -> [[f32; 4]; 4] {
    [win(x0, y0), win(x0, y1), win(x1, y0), win(x1, y1)]
}

/// Triangle strips cut by restart index 0xfffe in u32 indices (which
/// Vulkan would read as an ordinary index): four rectangles, two per draw;
/// the second draw has `index_bias` 8 (the restart index is compared
/// before it) and leading, doubled and trailing restart indices.
fn restart_tri_strip(ctx: &mut TestContext, staging: bool) -> R {
    let (mut e, t) = setup_solid(ctx, staging)?;
    let mut v = Vec::new();
    v.extend(strip_rect(1.0, 1.0, 5.0, 5.0));
    v.extend(strip_rect(9.0, 2.0, 15.0, 6.0));
    v.extend(strip_rect(2.0, 9.0, 7.0, 15.0));
    v.extend(strip_rect(10.0, 10.0, 14.0, 13.0));
    bind_vertices(&mut e, &v, None)?;
    let (red, green) = ([1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 1.0]);
    clear_and_color(&mut e, red)?;
    let r = RESTART;
    draw_indexed(
        &mut e,
        PrimType::TriangleStrip,
        Idx::U32Buffer(&[0, 1, 2, 3, r, 4, 5, 6, 7]),
        Some(r),
        0,
    )?;
    set_color(&mut e, green)?;
    draw_indexed(
        &mut e,
        PrimType::TriangleStrip,
        Idx::U32(&[r, 0, 1, 2, 3, r, r, 4, 5, 6, 7, r]),
        Some(r),
        8,
    )?;
    check_image(ctx, &mut e, &t, 0, |x, y| {
        if in_rect(x, y, (1, 1, 5, 5)) || in_rect(x, y, (9, 2, 15, 6)) {
            Some(unorm(red))
        } else if in_rect(x, y, (2, 9, 7, 15)) || in_rect(x, y, (10, 10, 14, 13)) {
            Some(unorm(green))
        } else {
            Some(unorm(BLACK))
        }
    })
}
both_paths!("pipe.prim.restart.tri_strip_u32_fffe", restart_tri_strip);

/// 8-bit indices: a triangle strip cut by restart index 0xff (user
/// indices), then a triangle list from an index buffer resource with an
/// index bias, read natively (VK_EXT_index_type_uint8) or, with
/// `widen`, widened on the CPU as on devices without it
/// (`PIPE_VK_DEBUG=no_index_uint8`).
fn index_u8(ctx: &mut TestContext, staging: bool, widen: bool) -> R {
    let mut e = crate::harness::env_with(ctx, |o| {
        o.staging = Some(staging);
        o.no_index_uint8 = Some(widen);
    })?;
    let native = e.screen.caps().index_uint8;
    if !widen && !native {
        return Err(Outcome::skip("no VK_EXT_index_type_uint8"));
    }
    if widen && native {
        return Err(Outcome::fail(
            "caps.index_uint8 is still true with no_index_uint8",
        ));
    }
    // Which path drew: the CPU widening reports itself as index
    // rewriting through the debug callback.
    let rewrites = Arc::new(std::sync::atomic::AtomicU32::new(0));
    let seen = rewrites.clone();
    step(
        "set_debug_callback",
        e.ctx
            .set_debug_callback(Some(Arc::new(move |m: &DebugMessage| {
                if m.kind == DebugType::PerfInfo && m.text.contains("index rewriting") {
                    seen.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
            }))),
    )?;
    let t = setup(&mut e)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    let mut v = Vec::new();
    v.extend(strip_rect(1.0, 1.0, 5.0, 5.0));
    v.extend(strip_rect(9.0, 2.0, 15.0, 6.0));
    v.extend(strip_rect(2.0, 9.0, 7.0, 15.0));
    bind_vertices(&mut e, &v, None)?;
    let (red, green) = ([1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 1.0]);
    clear_and_color(&mut e, red)?;
    draw_indexed(
        &mut e,
        PrimType::TriangleStrip,
        Idx::U8(&[0, 1, 2, 3, 0xff, 4, 5, 6, 7]),
        Some(0xff),
        0,
    )?;
    // The third rectangle as a list (0 1 2, 2 1 3 of its strip order),
    // from a buffer, through an index bias of 8.
    let ib = e.buffer(8, ResourceFlags::empty())?;
    e.subdata(&ib, 0, &[0, 1, 2, 2, 1, 3, 0, 0])?;
    set_color(&mut e, green)?;
    let info = DrawInfo {
        mode: PrimType::Triangles,
        index_size: 1,
        index: IndexSource::Resource(ib),
        ..DrawInfo::default()
    };
    step(
        "u8 buffer draw_vbo",
        e.ctx.draw_vbo(
            &info,
            0,
            None,
            &[DrawStartCountBias {
                start: 0,
                count: 6,
                index_bias: 8,
            }],
        ),
    )?;
    let n = rewrites.load(std::sync::atomic::Ordering::Relaxed);
    if n != if widen { 2 } else { 0 } {
        return Err(Outcome::fail(format!(
            "{n} draws went through index rewriting (widened: {widen})"
        )));
    }
    check_image(ctx, &mut e, &t, 0, |x, y| {
        if in_rect(x, y, (1, 1, 5, 5)) || in_rect(x, y, (9, 2, 15, 6)) {
            Some(unorm(red))
        } else if in_rect(x, y, (2, 9, 7, 15)) {
            Some(unorm(green))
        } else {
            Some(unorm(BLACK))
        }
    })
}
both_paths!("pipe.prim.index_u8.native", index_u8, false);
both_paths!("pipe.prim.index_u8.widened", index_u8, true);

/// Quads cut by restart index 0xfffe: a full quad, a 3-vertex run (a
/// screen-covering triangle that must not be drawn) and a 5-vertex run
/// (one quad, one vertex dropped); u32 indices, then u16.
fn restart_quads(ctx: &mut TestContext, staging: bool) -> R {
    let (mut e, t) = setup_solid(ctx, staging)?;
    let mut v = Vec::new();
    v.extend(rect(1.0, 1.0, 5.0, 5.0));
    v.extend([win(0.0, 0.0), win(32.0, 0.0), win(0.0, 32.0)]);
    v.extend(rect(8.0, 8.0, 14.0, 14.0));
    v.push(win(0.0, 16.0));
    bind_vertices(&mut e, &v, None)?;
    let inside = |x, y| in_rect(x, y, (1, 1, 5, 5)) || in_rect(x, y, (8, 8, 14, 14));
    let r = RESTART;
    let idx = [0u32, 1, 2, 3, r, 4, 5, 6, r, 7, 8, 9, 10, 11];
    let c = [1.0, 0.5, 0.0, 1.0];
    clear_and_color(&mut e, c)?;
    draw_indexed(&mut e, PrimType::Quads, Idx::U32(&idx), Some(r), 0)?;
    check_image(ctx, &mut e, &t, 1, |x, y| paint(c, inside(x, y)))?;

    let idx16: Vec<u16> = idx.iter().map(|&i| i as u16).collect();
    clear_color(&mut e, BLACK)?;
    draw_indexed(&mut e, PrimType::Quads, Idx::U16(&idx16), Some(r), 0)?;
    check_image(ctx, &mut e, &t, 1, |x, y| paint(c, inside(x, y)))
}
both_paths!("pipe.prim.restart.quads_fffe", restart_quads);

/// Two line loops in one draw, cut by restart index 0xfffe in u32
/// indices: each square is closed and nothing joins them.
fn restart_line_loop(ctx: &mut TestContext, staging: bool) -> R {
    let (mut e, t) = setup_solid(ctx, staging)?;
    let mut v = Vec::new();
    v.extend(square_loop(2, 6));
    v.extend(square_loop(9, 13));
    bind_vertices(&mut e, &v, None)?;
    let white = [1.0; 4];
    clear_and_color(&mut e, white)?;
    let r = RESTART;
    draw_indexed(
        &mut e,
        PrimType::LineLoop,
        Idx::U32Buffer(&[0, 1, 2, 3, r, r, 4, 5, 6, 7, r, 0]),
        Some(r),
        0,
    )?;
    check_image(ctx, &mut e, &t, 0, |x, y| {
        match (on_outline(x, y, 2, 6), on_outline(x, y, 9, 13)) {
            (None, _) | (_, None) => None,
            (Some(a), Some(b)) => paint(white, a || b),
        }
    })
}
both_paths!("pipe.prim.restart.line_loop_u32_fffe", restart_line_loop);

// ---- winding ----

/// With back-face culling and either front face, a converted shape is
/// culled exactly when the same shape drawn as a native triangle list with
/// GL's orientation is (and one of the two front faces shows it).
fn winding(
    ctx: &mut TestContext,
    staging: bool,
    mode: PrimType,
    verts: &[[f32; 4]],
    reference: &[[f32; 4]],
    cover: &dyn Fn(u32, u32) -> Cover,
) -> R {
    let (mut e, t) = setup_solid(ctx, staging)?;
    let c = [1.0, 1.0, 1.0, 1.0];
    set_color(&mut e, c)?;
    let mut shown = 0;
    for front_ccw in [false, true] {
        rasterizer(&mut e, Face::BACK, front_ccw, false)?;
        // The native reference: all of the shape or nothing.
        bind_vertices(&mut e, reference, None)?;
        clear_color(&mut e, BLACK)?;
        draw_arrays(&mut e, PrimType::Triangles, 0, reference.len() as u32)?;
        let got = e.read_texture(&t, 0, &PipeBox::rect(0, 0, W, H))?;
        let lit = |x: u32, y: u32| got[((y * W + x) * 4) as usize] != 0;
        let inside: Vec<(u32, u32)> = (0..H)
            .flat_map(|y| (0..W).map(move |x| (x, y)))
            .filter(|&(x, y)| cover(x, y) == Cover::In)
            .collect();
        let visible = inside.iter().any(|&(x, y)| lit(x, y));
        let expect = |x: u32, y: u32| match cover(x, y) {
            Cover::Edge => None,
            Cover::In => paint(c, visible),
            Cover::Out => paint(c, false),
        };
        check_image(ctx, &mut e, &t, 0, expect)?;
        shown += usize::from(visible);
        // The converted shape.
        bind_vertices(&mut e, verts, None)?;
        clear_color(&mut e, BLACK)?;
        draw_arrays(&mut e, mode, 0, verts.len() as u32)?;
        check_image(ctx, &mut e, &t, 0, expect)?;
    }
    if shown != 1 {
        return Err(Outcome::fail(format!(
            "the reference triangles were visible under {shown} of the 2 front faces"
        )));
    }
    Ok(())
}

/// Two quads, one counter-clockwise and one clockwise (y up), each to be
/// culled with its own reference triangles.
fn winding_quads(ctx: &mut TestContext, staging: bool) -> R {
    let [a0, a1, a2, a3] = rect(2.0, 2.0, 7.0, 7.0);
    let [b0, b1, b2, b3] = rect(9.0, 9.0, 14.0, 14.0);
    // Quad B listed the other way round: q0 q3 q2 q1. The two have
    // opposite orientations, so each is checked on its own.
    let verts = [a0, a1, a2, a3, b0, b3, b2, b1];
    let reference = [a0, a1, a2, a0, a2, a3, b0, b3, b2, b0, b2, b1];
    winding(
        ctx,
        staging,
        PrimType::Quads,
        &verts[..4],
        &reference[..6],
        &|x, y| cover_rect(x, y, (2, 2, 7, 7)),
    )?;
    winding(
        ctx,
        staging,
        PrimType::Quads,
        &verts[4..],
        &reference[6..],
        &|x, y| cover_rect(x, y, (9, 9, 14, 14)),
    )
}
both_paths!("pipe.prim.winding.quads", winding_quads);

/// A quad strip of three quads; GL's quad i is (2i, 2i+1, 2i+3, 2i+2).
fn winding_quad_strip(ctx: &mut TestContext, staging: bool) -> R {
    let v = strip_vertices();
    let mut reference = Vec::new();
    for i in 0..3 {
        let (a, b, c, d) = (v[2 * i], v[2 * i + 1], v[2 * i + 2], v[2 * i + 3]);
        reference.extend([a, b, d, a, d, c]);
    }
    let cover = |x, y| cover_rect(x, y, (2, 3, 14, 13));
    winding(ctx, staging, PrimType::QuadStrip, &v, &reference, &cover)
}
both_paths!("pipe.prim.winding.quad_strip", winding_quad_strip);

/// The pentagon; reference: the fan (p0, pi, pi+1).
fn winding_polygon(ctx: &mut TestContext, staging: bool) -> R {
    let v = pentagon_vertices();
    let mut reference = Vec::new();
    for i in 1..v.len() - 1 {
        reference.extend([v[0], v[i], v[i + 1]]);
    }
    let cover = |x, y| convex(x, y, &PENTAGON);
    winding(ctx, staging, PrimType::Polygon, &v, &reference, &cover)
}
both_paths!("pipe.prim.winding.polygon", winding_polygon);

// ---- provoking vertex ----

/// Vertex i's colour: distinct, exact in UNORM8.
fn pal(i: usize) -> [f32; 4] {
    let i = i as u32;
    [
        (20 + 25 * i) as f32 / 255.0,
        (250 - 20 * i) as f32 / 255.0,
        ((70 * i) % 256) as f32 / 255.0,
        1.0,
    ]
}

/// Draws `verts` non-indexed with flat per-vertex colours `pal(i)` and
/// the given convention; `expect` gets (x, y) and returns the vertex whose
/// colour the pixel shows, `Some(None)` for background, `None` to skip.
fn provoking(
    ctx: &mut TestContext,
    staging: bool,
    mode: PrimType,
    verts: &[[f32; 4]],
    last: bool,
    expect: &dyn Fn(u32, u32) -> Option<Option<usize>>,
) -> R {
    let mut e = env(ctx, staging)?;
    let t = setup(&mut e)?;
    rasterizer(&mut e, Face::empty(), false, !last)?;
    bind_program(&mut e, VS_FLAT, FS_FLAT)?;
    let cols: Vec<[f32; 4]> = (0..verts.len()).map(pal).collect();
    bind_vertices(&mut e, verts, Some(&cols))?;
    clear_color(&mut e, BLACK)?;
    draw_arrays(&mut e, mode, 0, verts.len() as u32)?;
    check_image(ctx, &mut e, &t, 1, |x, y| {
        expect(x, y).map(|v| unorm(v.map_or(BLACK, pal)))
    })
}

/// Quads: each quad shows its last vertex (first with `flatshade_first`).
fn provoking_quads(ctx: &mut TestContext, staging: bool, last: bool) -> R {
    let mut v = Vec::new();
    v.extend(rect(2.0, 2.0, 6.0, 14.0));
    v.extend(rect(8.0, 4.0, 14.0, 10.0));
    let pv = |q: usize| if last { 4 * q + 3 } else { 4 * q };
    provoking(ctx, staging, PrimType::Quads, &v, last, &|x, y| {
        Some(if in_rect(x, y, (2, 2, 6, 14)) {
            Some(pv(0))
        } else if in_rect(x, y, (8, 4, 14, 10)) {
            Some(pv(1))
        } else {
            None
        })
    })
}
both_paths!("pipe.prim.provoking.quads.last", provoking_quads, true);
both_paths!("pipe.prim.provoking.quads.first", provoking_quads, false);

/// Quad strip: quad i shows vertex 2i+3 (2i with `flatshade_first`).
fn provoking_quad_strip(ctx: &mut TestContext, staging: bool, last: bool) -> R {
    let v = strip_vertices();
    provoking(ctx, staging, PrimType::QuadStrip, &v, last, &|x, y| {
        if !in_rect(x, y, (2, 3, 14, 13)) {
            return Some(None);
        }
        let i = ((x - 2) / 4) as usize;
        Some(Some(if last { 2 * i + 3 } else { 2 * i }))
    })
}
both_paths!(
    "pipe.prim.provoking.quad_strip.last",
    provoking_quad_strip,
    true
);
both_paths!(
    "pipe.prim.provoking.quad_strip.first",
    provoking_quad_strip,
    false
);

/// Polygon: the whole polygon shows vertex 0 under both conventions.
fn provoking_polygon(ctx: &mut TestContext, staging: bool, last: bool) -> R {
    let v = pentagon_vertices();
    provoking(
        ctx,
        staging,
        PrimType::Polygon,
        &v,
        last,
        &|x, y| match convex(x, y, &PENTAGON) {
            Cover::In => Some(Some(0)),
            Cover::Out => Some(None),
            Cover::Edge => None,
        },
    )
}
both_paths!("pipe.prim.provoking.polygon.last", provoking_polygon, true);
both_paths!(
    "pipe.prim.provoking.polygon.first",
    provoking_polygon,
    false
);

/// Line loop around pixels 3..=12: side i (v_i to v_i+1) shows v_i+1
/// (v_i with `flatshade_first`); the closing side (v3 to v0) shows v0
/// (v3).
fn provoking_line_loop(ctx: &mut TestContext, staging: bool, last: bool) -> R {
    let v = square_loop(3, 12);
    provoking(ctx, staging, PrimType::LineLoop, &v, last, &|x, y| {
        let on = on_outline(x, y, 3, 12)?;
        if !on {
            return Some(None);
        }
        // Sides: 0 bottom (y = 3), 1 right (x = 12), 2 top (y = 12),
        // 3 left (x = 3, the closing side).
        let side = match (x, y) {
            (_, 3) => 0,
            (12, _) => 1,
            (_, 12) => 2,
            _ => 3,
        };
        Some(Some(if last { (side + 1) % 4 } else { side }))
    })
}
both_paths!(
    "pipe.prim.provoking.line_loop.last",
    provoking_line_loop,
    true
);
both_paths!(
    "pipe.prim.provoking.line_loop.first",
    provoking_line_loop,
    false
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shaders_parse() {
        for src in [VS_PASSTHROUGH, FS_UBO_COLOR, VS_FLAT, FS_FLAT] {
            spirv_gen::text::parse(src).unwrap();
        }
    }

    #[test]
    fn convex_cover() {
        // The pentagon's diagonal side x + y = 22 passes through the
        // centre of pixel (10, 11): a tie.
        assert_eq!(convex(10, 11, &PENTAGON), Cover::Edge);
        assert_eq!(convex(8, 8, &PENTAGON), Cover::In);
        assert_eq!(convex(13, 13, &PENTAGON), Cover::Out);
        assert_eq!(convex(0, 0, &PENTAGON), Cover::Out);
        // Orientation does not matter.
        let rev: Vec<_> = PENTAGON.iter().rev().copied().collect();
        for y in 0..H {
            for x in 0..W {
                assert_eq!(convex(x, y, &PENTAGON), convex(x, y, &rev));
            }
        }
    }

    #[test]
    fn outline() {
        assert_eq!(on_outline(3, 3, 3, 12), None);
        assert_eq!(on_outline(4, 3, 3, 12), Some(true));
        assert_eq!(on_outline(3, 7, 3, 12), Some(true));
        assert_eq!(on_outline(7, 7, 3, 12), Some(false));
        assert_eq!(on_outline(13, 3, 3, 12), Some(false));
    }
}
