//! Smooth lines (GL's `LINE_SMOOTH`, Gallium's rasterizer `line_smooth`)
//! on a single-sampled target: each pixel's alpha must be the share of it
//! that the line's rectangle covers (width the line width, centred on the
//! segment), as GL's antialiasing application asks.
//!
//! The expected shares are computed here by sampling 64 x 64 positions
//! per pixel inside the rectangle, with no knowledge of how the driver
//! draws the lines (natively, `RECTANGULAR_SMOOTH`, or emulated in the
//! shaders where the device cannot, as on lavapipe single-sampled).
//! Pixels within 1.5 pixels (along the line) of an end are left out,
//! but for the emulation's lines with ends (below): devices treat the
//! ends their own way in practice (GL's rectangle ends at the vertices;
//! Mesa's draw module and Zink extend it).
//!
//! `.emulated` forces the shader emulation (`PIPE_VK_DEBUG=
//! emulate_smooth_lines`) where the device draws smooth lines itself;
//! it, `.emulated.tessellation`, `.emulated.rebind_width` and
//! `.emulated.spirv` (SPIR-V passthrough shaders) check the
//! ends too (`VariantKey::smooth_line_ends`: the pixels past an end and
//! those just inside weighed along the line as well). Without the ends,
//! they fail on lavapipe ("pixel (1, 2): alpha 0.25, want 0.125").
//! `.stipple.{native,emulated}` stipple a smooth line (the device's
//! stipple, and the shader emulation's generated geometry shader; where
//! the shaders draw the ends, as on lavapipe, both stipple in the
//! fragment shader) and check pixels away from the pattern's boundaries;
//! `.emulated.stipple` (and `.spirv`) check every pixel of stippled
//! lines, boundaries and ends included (GL's stippled smooth line: the
//! rectangle cut into pieces a pixel long, each kept or dropped by its
//! pattern bit).
//! `.rebind_width` changes nothing but the bound rasterizer (its width)
//! between draws, which keeps the last draw's pipeline lookup for the
//! other dynamic-only rasterizer fields.
//! The lines are drawn directly, through an application geometry shader,
//! and through tessellation (isolines), since the emulation lowers
//! whichever stage is last; one line has clip-space `w` of 2 (the same
//! window position), so the shader's perspective division is exercised.

use std::sync::Arc;

use pipe_core::draw::{DrawInfo, DrawStartCountBias, PrimType};
use pipe_core::flags::ClearFlags;
use pipe_core::resource::{BindFlags, ResourceTemplate};
use pipe_core::state::{
    ColorUnion, PolygonMode, RasterizerState, ShaderStage, VertexBuffer, VertexBufferSource,
    VertexElement,
};
use pipe_core::Format;

use super::render::{
    begin, begin_with, clear, draw_mode, ndc, rasterizer, read_color, resolve, set_src, Px, H,
    UNORM, W,
};
use crate::harness::{bind_program, bind_stage, f32s, step, Env, FS_UBO_COLOR, VS_PASSTHROUGH};
use crate::{test_case, Outcome, TestContext};

type R = Result<(), Outcome>;

/// A line: its ends in window coordinates, its width and the clip-space
/// `w` its vertices are given with.
#[derive(Clone, Copy)]
struct Line {
    a: (f32, f32),
    b: (f32, f32),
    width: f32,
    w: f32,
}

/// Horizontal (partial rows of 0.25 and 0.75), vertical and 2 wide
/// between pixel centres (columns of 0.7, 1, 0.3), diagonal at 45
/// degrees, and half a pixel wide on a row of centres (0.5); none within
/// a pixel of another.
const LINES: [Line; 4] = [
    Line {
        a: (1.5, 3.25),
        b: (14.5, 3.25),
        width: 1.0,
        w: 1.0,
    },
    Line {
        a: (12.3, 6.0),
        b: (12.3, 15.0),
        width: 2.0,
        w: 2.0,
    },
    Line {
        a: (1.5, 14.5),
        b: (8.5, 7.5),
        width: 1.5,
        w: 1.0,
    },
    Line {
        a: (1.5, 5.5),
        b: (9.5, 5.5),
        width: 0.5,
        w: 1.0,
    },
];

/// Passes each line on as a line strip.
const GS_LINES: &str = "shader geometry input=lines output=line_strip max_vertices=2 invocations=1
in @pos : f32x4[2] builtin=position
out @gl_pos : f32x4 builtin=position
fn main {
  %0 : i32 = const 0
  %1 : i32 = const 1
  %2 : f32x4 = load @pos, %0
  %3 : f32x4 = load @pos, %1
  store @gl_pos, %2
  emit_vertex
  store @gl_pos, %3
  emit_vertex
  end_primitive
}
";

/// A triangle drawn in polygon mode LINE: its edges, as lines (1 wide,
/// horizontal with rows of 0.25 and 0.75, vertical with columns of 0.75
/// and 0.25, and diagonal).
const TRIANGLE: [Line; 3] = [
    Line {
        a: (1.75, 1.25),
        b: (14.5, 1.25),
        width: 1.0,
        w: 1.0,
    },
    Line {
        a: (14.5, 1.25),
        b: (1.75, 14.0),
        width: 1.0,
        w: 1.0,
    },
    Line {
        a: (1.75, 14.0),
        b: (1.75, 1.25),
        width: 1.0,
        w: 1.0,
    },
];

#[derive(Clone, Copy, PartialEq)]
enum Via {
    Direct,
    Geometry,
    Tessellation,
    /// The edges of [`TRIANGLE`], in polygon mode LINE.
    PolygonLine,
    /// [`LINES`] from one vertex buffer, their rasterizer states (which
    /// differ in the width only) made first: between the draws, only the
    /// bound rasterizer changes.
    Rebind,
    /// [`LINES`], each drawn as a line and again (over it, the same
    /// pixels) as a line with adjacency, with nothing changed between:
    /// the emulation's generated geometry shader takes either input, so
    /// the two need pipelines of their own though the topology class and
    /// state are the same.
    Adjacency,
    /// [`LINES`] drawn directly and stippled with [`STIPPLE`]: the
    /// emulation's ends weigh the stipple into the coverage (GL's
    /// stippled smooth lines: a run of rectangles a pixel long, each kept
    /// or dropped by its bit), so the pixels a stipple boundary crosses
    /// are partly covered.
    Stippled,
}

/// [`Via::Stippled`]'s stipple: GL's factor 1, bits 0-5 and 10-13 on
/// (pattern 0x3c3f), so [`LINES`]' first (13 long, from x = 1.5) has
/// boundaries at pixel centres (6 and 10 pixels along) and both its ends
/// in runs that are on.
const STIPPLE: (u16, u32) = (0x3c3f, 1);

impl Line {
    /// The pixel centre's place along the line (0 at `a`) and its
    /// distance across it, in pixels.
    fn frame(&self, x: f32, y: f32) -> (f32, f32, f32) {
        let (dx, dy) = (self.b.0 - self.a.0, self.b.1 - self.a.1);
        let len = (dx * dx + dy * dy).sqrt();
        let (ux, uy) = (dx / len, dy / len);
        let (rx, ry) = (x - self.a.0, y - self.a.1);
        (rx * ux + ry * uy, (-rx * uy + ry * ux).abs(), len)
    }

    /// The share of pixel (px, py) inside the line's rectangle (and,
    /// with a stipple `(pattern, factor)`, in the rectangles of its bits
    /// that are on).
    fn share(&self, px: u32, py: u32, stipple: Option<(u16, u32)>) -> f32 {
        let n = 64;
        let mut inside = 0;
        for i in 0..n {
            for j in 0..n {
                let sx = px as f32 + (i as f32 + 0.5) / n as f32;
                let sy = py as f32 + (j as f32 + 0.5) / n as f32;
                let (along, across, len) = self.frame(sx, sy);
                let kept = stipple.is_none_or(|(pattern, factor)| {
                    let bit = (along / factor as f32).floor() as i64;
                    pattern >> bit.rem_euclid(16) & 1 == 1
                });
                if (0.0..=len).contains(&along) && across <= self.width / 2.0 && kept {
                    inside += 1;
                }
            }
        }
        inside as f32 / (n * n) as f32
    }

    /// Whether pixel (px, py) is near an end (left out of the checks) or
    /// past one.
    fn near_end(&self, px: u32, py: u32) -> bool {
        let (along, _, len) = self.frame(px as f32 + 0.5, py as f32 + 0.5);
        along < 1.5 || along > len - 1.5
    }

    /// Whether the line could touch pixel (px, py) at all.
    fn near(&self, px: u32, py: u32) -> bool {
        let (along, across, len) = self.frame(px as f32 + 0.5, py as f32 + 0.5);
        (-1.5..=len + 1.5).contains(&along) && across <= self.width / 2.0 + 1.5
    }
}

/// `emulated`: with `PIPE_VK_DEBUG=emulate_smooth_lines`, so the shader
/// emulation runs on devices that draw smooth lines themselves too.
fn smooth_lines(ctx: &mut TestContext, via: Via, emulated: bool) -> R {
    // The emulation weighs the ends where a generated geometry shader
    // can lengthen the lines (`VariantKey::smooth_line_ends`); devices'
    // own smooth lines are not checked there (GL's rectangle ends at the
    // vertices, but implementations differ).
    let ends = emulated
        && matches!(
            via,
            Via::Direct | Via::Tessellation | Via::Rebind | Via::Adjacency | Via::Stippled
        );
    let stipple = (via == Via::Stippled).then_some(STIPPLE);
    if stipple.is_some() && !ends {
        // The device's stipple on its own smooth lines keeps or drops
        // whole fragments.
        return Err(Outcome::fail(
            "stippled smooth lines are checked emulated only",
        ));
    }
    let (mut e, t) = begin_with(ctx, UNORM, None, 1, |o| {
        o.emulate_smooth_lines = Some(emulated);
    })?;
    if via == Via::Tessellation && !e.screen.caps().shader[ShaderStage::TessEval.index()].supported
    {
        return Err(Outcome::skip("no tessellation"));
    }
    if stipple.is_some() && !e.screen.caps().line_stipple {
        return Err(Outcome::skip("no line stipple"));
    }
    let fg = start(&mut e)?;
    match via {
        Via::Direct | Via::PolygonLine | Via::Rebind | Via::Adjacency | Via::Stippled => {}
        Via::Geometry => bind_stage(&mut e, ShaderStage::Geometry, GS_LINES)?,
        Via::Tessellation => {
            bind_stage(
                &mut e,
                ShaderStage::TessEval,
                super::rast_prim::TES_ISOLINES,
            )?;
            crate::harness::tess_levels_1(&mut e, 2)?;
        }
    }
    let lines: &[Line] = if via == Via::PolygonLine {
        rasterizer(&mut e, |r: &mut RasterizerState| {
            r.line_smooth = true;
            r.line_rectangular = true;
            r.line_width = 1.0;
            r.fill_front = PolygonMode::Line;
            r.fill_back = PolygonMode::Line;
        })?;
        let v: Vec<f32> = TRIANGLE
            .iter()
            .flat_map(|l| [ndc(l.a.0), ndc(l.a.1), 0.0, 1.0])
            .collect();
        draw_mode(&mut e, &v, false, PrimType::Triangles)?;
        &TRIANGLE
    } else {
        &LINES
    };
    if via == Via::Rebind {
        draw_rebinding(&mut e)?;
    }
    for l in lines
        .iter()
        .filter(|_| via != Via::PolygonLine && via != Via::Rebind)
    {
        rasterizer(&mut e, |r: &mut RasterizerState| {
            r.line_smooth = true;
            r.line_rectangular = true;
            r.line_width = l.width;
            if let Some((pattern, factor)) = stipple {
                r.line_stipple_enable = true;
                r.line_stipple_pattern = pattern;
                r.line_stipple_factor = (factor - 1) as u8;
            }
        })?;
        let clip = |ends: &[(f32, f32)]| -> Vec<f32> {
            ends.iter()
                .flat_map(|&(x, y)| [ndc(x) * l.w, ndc(y) * l.w, 0.0, l.w])
                .collect()
        };
        let mode = match via {
            Via::Tessellation => PrimType::Patches,
            _ => PrimType::Lines,
        };
        draw_mode(&mut e, &clip(&[l.a, l.b]), false, mode)?;
        if via == Via::Adjacency {
            // The neighbours continue the line (the rasterizer draws
            // vertices 1 and 2 only).
            let before = (2.0 * l.a.0 - l.b.0, 2.0 * l.a.1 - l.b.1);
            let after = (2.0 * l.b.0 - l.a.0, 2.0 * l.b.1 - l.a.1);
            let v = clip(&[before, l.a, l.b, after]);
            draw_mode(&mut e, &v, false, PrimType::LinesAdjacency)?;
        }
    }
    let got = read_color(&mut e, &t.color)?;
    let mut sums = vec![(0.0f32, 0.0f32); lines.len()];
    let mut partial = vec![0u32; lines.len()];
    let mut wrong: Vec<Option<String>> = vec![None; lines.len()];
    for py in 0..H {
        for px in 0..W {
            let p = got[(py * W + px) as usize];
            let near: Vec<usize> = (0..lines.len())
                .filter(|&k| lines[k].near(px, py))
                .collect();
            let Some(&k) = near.first() else {
                if p != [0.0; 4] {
                    return Err(Outcome::fail(format!(
                        "pixel ({px}, {py}) is {p:?}, far from every line"
                    )));
                }
                continue;
            };
            if p[3] > 0.0 && (0..3).any(|c| (p[c] - fg[c]).abs() > 1.5 / 255.0) {
                return Err(Outcome::fail(format!(
                    "pixel ({px}, {py}) is {p:?}: the line's colour where it has alpha"
                )));
            }
            // Left out: pixels by an end, and those two lines may draw
            // (by a corner of the triangle; the later one's alpha stays).
            let l = &lines[k];
            if near.len() > 1 || (!ends && l.near_end(px, py)) {
                continue;
            }
            let want = l.share(px, py, stipple);
            if (p[3] - want).abs() > 0.12 {
                // The first such pixel of each line, so that one run
                // shows which lines a device draws wrong.
                if wrong[k].is_none() {
                    wrong[k] = Some(format!(
                        "pixel ({px}, {py}): alpha {}, want {want} (its share of line {k}, {} \
                         wide)",
                        p[3], l.width
                    ));
                }
                continue;
            }
            if p[3] > 0.1 && p[3] < 0.9 {
                partial[k] += 1;
            }
            sums[k].0 += p[3];
            sums[k].1 += want;
        }
    }
    let wrong: Vec<String> = wrong.into_iter().flatten().collect();
    if !wrong.is_empty() {
        return Err(Outcome::fail(wrong.join("; ")));
    }
    for (k, &(got_sum, want_sum)) in sums.iter().enumerate() {
        if (got_sum - want_sum).abs() > 0.03 * want_sum + 1.0 / 255.0 {
            return Err(Outcome::fail(format!(
                "line {k}: alphas add up to {got_sum} away from its ends, its area there is \
                 {want_sum}"
            )));
        }
        if partial[k] == 0 {
            return Err(Outcome::fail(format!(
                "line {k}: no pixel is partly covered (not antialiased)"
            )));
        }
    }
    Ok(())
}

/// On a multisampled framebuffer with multisampling on, GL ignores
/// `LINE_SMOOTH`: the samples antialias the line, and its colour's alpha
/// stays as it is. [`LINES`]' first (1 wide, along y = 3.25) over 4
/// samples at Vulkan's standard positions: row 2 has one sample inside
/// (y = 2.875), row 3 three (3.125 to 3.625), so the resolved alpha is
/// 0.25 and 0.75 there and the colour the line's times that share; a
/// line smoothed as well would be weighed twice. Pixels more than 1.5
/// pixels from the ends are checked; the rows off the line stay clear.
fn multisampled(ctx: &mut TestContext) -> R {
    let (mut e, t) = begin(ctx, UNORM, None, 4)?;
    let fg = start(&mut e)?;
    let l = LINES[0];
    rasterizer(&mut e, |r: &mut RasterizerState| {
        r.line_smooth = true;
        r.line_rectangular = true;
        r.line_width = l.width;
        r.multisample = true;
    })?;
    let v: Vec<f32> = [l.a, l.b]
        .iter()
        .flat_map(|&(x, y)| [ndc(x), ndc(y), 0.0, 1.0])
        .collect();
    draw_mode(&mut e, &v, false, PrimType::Lines)?;
    let bind = BindFlags::RENDER_TARGET | BindFlags::SAMPLER_VIEW;
    let resolved = e.texture(&ResourceTemplate::texture_2d(UNORM, W, H, bind))?;
    resolve(&mut e, &t.color, &resolved)?;
    let got = read_color(&mut e, &resolved)?;
    for py in 0..H {
        for px in 3..=12u32 {
            let share = match py {
                2 => 0.25,
                3 => 0.75,
                _ => 0.0,
            };
            let want: Px = std::array::from_fn(|c| fg[c] * share);
            let p = got[(py * W + px) as usize];
            if (0..4).any(|c| (p[c] - want[c]).abs() > 1.5 / 255.0) {
                return Err(Outcome::fail(format!(
                    "pixel ({px}, {py}): {p:?}, want {want:?} (the share of its samples \
                     inside the line, alpha unweighed)"
                )));
            }
        }
    }
    Ok(())
}

/// The lines' program and colour (returned), on a target cleared to
/// transparent black.
fn start(e: &mut Env) -> Result<Px, Outcome> {
    bind_program(e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    let fg: Px = [1.0, 0.5, 0.25, 1.0];
    set_src(e, UNORM, fg)?;
    clear(
        e,
        ClearFlags::COLOR0,
        ColorUnion::from_f32([0.0; 4]),
        1.0,
        0,
        None,
    )?;
    Ok(fg)
}

/// [`Via::Rebind`]'s draws.
fn draw_rebinding(e: &mut Env) -> R {
    let mut states = Vec::new();
    for l in &LINES {
        let r = RasterizerState {
            line_smooth: true,
            line_rectangular: true,
            line_width: l.width,
            half_pixel_center: true,
            depth_clip_near: true,
            depth_clip_far: true,
            ..Default::default()
        };
        states.push(step(
            "create_rasterizer_state",
            e.ctx.create_rasterizer_state(&r),
        )?);
    }
    let v: Vec<f32> = LINES
        .iter()
        .flat_map(|l| [l.a, l.b].map(|(x, y)| [ndc(x) * l.w, ndc(y) * l.w, 0.0, l.w]))
        .flatten()
        .collect();
    let el = VertexElement {
        src_offset: 0,
        src_stride: 16,
        vertex_buffer_index: 0,
        dual_slot: false,
        src_format: Format::R32G32B32A32Float,
        instance_divisor: 0,
    };
    let ve = step("velems", e.ctx.create_vertex_elements_state(&[el]))?;
    step("bind velems", e.ctx.bind_vertex_elements_state(Some(ve)))?;
    let vb = VertexBuffer {
        buffer: Some(VertexBufferSource::User(Arc::from(f32s(&v)))),
        buffer_offset: 0,
    };
    step("set_vertex_buffers", e.ctx.set_vertex_buffers(&[vb]))?;
    let info = DrawInfo {
        mode: PrimType::Lines,
        instance_count: 1,
        ..DrawInfo::default()
    };
    for (k, h) in states.into_iter().enumerate() {
        step(
            "bind_rasterizer_state",
            e.ctx.bind_rasterizer_state(Some(h)),
        )?;
        let draw = DrawStartCountBias {
            start: 2 * k as u32,
            count: 2,
            index_bias: 0,
        };
        step("draw_vbo", e.ctx.draw_vbo(&info, 0, None, &[draw]))?;
    }
    Ok(())
}

/// A stippled smooth line (factor 1, pattern 0x00ff: 8 pixels on, 8
/// off): [`LINES`]' first, from x = 1.5 along rows 2 (share 0.25) and 3
/// (0.75). Pixels whose centre is 2 to 5 pixels along (well inside the
/// first run) keep their shares; those 9 to 10 along (inside the gap)
/// are clear. `emulated`: the stipple in shaders too
/// (`PIPE_VK_DEBUG=emulate_line_stipple`, a generated geometry shader
/// that the smooth-line lowering then runs in).
fn stippled(ctx: &mut TestContext, emulated: bool) -> R {
    let (mut e, t) = begin_with(ctx, UNORM, None, 1, |o| {
        o.emulate_line_stipple = Some(emulated);
    })?;
    if !e.screen.caps().line_stipple {
        return Err(Outcome::skip("no line stipple"));
    }
    start(&mut e)?;
    let l = LINES[0];
    rasterizer(&mut e, |r: &mut RasterizerState| {
        r.line_smooth = true;
        r.line_rectangular = true;
        r.line_width = l.width;
        r.line_stipple_enable = true;
        r.line_stipple_factor = 0;
        r.line_stipple_pattern = 0x00ff;
    })?;
    let v: Vec<f32> = [l.a, l.b]
        .iter()
        .flat_map(|&(x, y)| [ndc(x), ndc(y), 0.0, 1.0])
        .collect();
    draw_mode(&mut e, &v, false, PrimType::Lines)?;
    let got = read_color(&mut e, &t.color)?;
    for py in [2u32, 3] {
        let want_on = if py == 2 { 0.25 } else { 0.75 };
        for px in 0..W {
            let along = px as f32 + 0.5 - l.a.0;
            let want = match along {
                a if (2.0..=5.0).contains(&a) => want_on,
                a if (9.0..=10.0).contains(&a) => 0.0,
                _ => continue,
            };
            let p = got[(py * W + px) as usize];
            if (p[3] - want).abs() > 0.12 {
                return Err(Outcome::fail(format!(
                    "pixel ({px}, {py}), {along} pixels along: alpha {}, want {want}",
                    p[3]
                )));
            }
        }
    }
    Ok(())
}

/// Stippled smooth lines that the near clip plane cuts, emulated with
/// their ends: GL's stipple counter starts at the clipped segment's first
/// fragment, and its rectangle ends where the plane cuts it. Drawn with
/// `w` = 1 and window x from 13.5 (z = -1.5, outside GL's `z >= -w`) to
/// 1.5 (z = 0), so the plane cuts at a third of the way, x = 9.5: visible
/// from 9.5 to 1.5, counted from 9.5 (row y = 3.25); and the same segment
/// the other way round with `clip_halfz` (plane `z >= 0`; y = 8.25),
/// counted from 1.5 up to the cut. Every
/// pixel is checked against its share of the visible line's kept
/// [`STIPPLE`] rectangles, but the one at the cut (the clipper's edge).
fn stippled_near_clip(ctx: &mut TestContext) -> R {
    let (mut e, t) = begin_with(ctx, UNORM, None, 1, |o| {
        o.emulate_smooth_lines = Some(true);
    })?;
    if !e.screen.caps().line_stipple {
        return Err(Outcome::skip("no line stipple"));
    }
    let fg = start(&mut e)?;
    let (far, near, cut) = (13.5, 1.5, 9.5);
    let vertex = |x: f32, y: f32, z: f32| [ndc(x), ndc(y), z, 1.0];
    for halfz in [false, true] {
        rasterizer(&mut e, |r: &mut RasterizerState| {
            r.line_smooth = true;
            r.line_rectangular = true;
            r.line_width = 1.0;
            r.line_stipple_enable = true;
            r.line_stipple_pattern = STIPPLE.0;
            r.line_stipple_factor = (STIPPLE.1 - 1) as u8;
            r.clip_halfz = halfz;
        })?;
        // The far vertex a third of the way past the plane (z + w = -0.5
        // against 1; z = -0.25 against 0.5).
        let v: Vec<f32> = if halfz {
            [vertex(near, 8.25, 0.5), vertex(far, 8.25, -0.25)].concat()
        } else {
            [vertex(far, 3.25, -1.5), vertex(near, 3.25, 0.0)].concat()
        };
        draw_mode(&mut e, &v, false, PrimType::Lines)?;
    }
    let got = read_color(&mut e, &t.color)?;
    let visible = [
        Line {
            a: (cut, 3.25),
            b: (near, 3.25),
            width: 1.0,
            w: 1.0,
        },
        Line {
            a: (near, 8.25),
            b: (cut, 8.25),
            width: 1.0,
            w: 1.0,
        },
    ];
    let mut wrong = Vec::new();
    for py in 0..H {
        for px in 0..W {
            let p = got[(py * W + px) as usize];
            let Some(l) = visible.iter().find(|l| l.near(px, py)) else {
                if p != [0.0; 4] {
                    return Err(Outcome::fail(format!(
                        "pixel ({px}, {py}) is {p:?}, far from both lines"
                    )));
                }
                continue;
            };
            if (px as f32 + 0.5 - cut).abs() < 1.0 {
                continue;
            }
            let want = l.share(px, py, Some(STIPPLE));
            if (p[3] - want).abs() > 0.02
                || (p[3] > 0.0 && (0..3).any(|c| (p[c] - fg[c]).abs() > 1.5 / 255.0))
            {
                wrong.push(format!(
                    "pixel ({px}, {py}): alpha {}, want {want}{}",
                    p[3],
                    if p[3] > 0.0 {
                        " (or not its colour)"
                    } else {
                        ""
                    }
                ));
            }
        }
    }
    if !wrong.is_empty() {
        return Err(Outcome::fail(format!(
            "{} (shares of the visible lines' kept stipple, counted from x = 9.5 on row 3 \
             and from x = 1.5 on row 8)",
            wrong.join("; ")
        )));
    }
    Ok(())
}

fn direct(ctx: &mut TestContext) -> Outcome {
    Outcome::from_result(smooth_lines(ctx, Via::Direct, false))
}
fn emulated(ctx: &mut TestContext) -> Outcome {
    Outcome::from_result(smooth_lines(ctx, Via::Direct, true))
}
fn emulated_tessellation(ctx: &mut TestContext) -> Outcome {
    Outcome::from_result(smooth_lines(ctx, Via::Tessellation, true))
}
fn emulated_rebind(ctx: &mut TestContext) -> Outcome {
    Outcome::from_result(smooth_lines(ctx, Via::Rebind, true))
}
fn emulated_adjacency(ctx: &mut TestContext) -> Outcome {
    Outcome::from_result(smooth_lines(ctx, Via::Adjacency, true))
}
fn emulated_stippled(ctx: &mut TestContext) -> Outcome {
    Outcome::from_result(smooth_lines(ctx, Via::Stippled, true))
}
fn emulated_stippled_near_clip(ctx: &mut TestContext) -> Outcome {
    Outcome::from_result(stippled_near_clip(ctx))
}
fn emulated_stippled_spirv(ctx: &mut TestContext) -> Outcome {
    Outcome::from_result(crate::harness::as_spirv(|| {
        smooth_lines(ctx, Via::Stippled, true)
    }))
}
fn emulated_spirv(ctx: &mut TestContext) -> Outcome {
    Outcome::from_result(crate::harness::as_spirv(|| {
        smooth_lines(ctx, Via::Direct, true)
    }))
}
fn geometry(ctx: &mut TestContext) -> Outcome {
    Outcome::from_result(smooth_lines(ctx, Via::Geometry, false))
}
fn tessellation(ctx: &mut TestContext) -> Outcome {
    Outcome::from_result(smooth_lines(ctx, Via::Tessellation, false))
}
/// Every shader SPIR-V passthrough (`spirv_gen::patch::smooth_lines` and
/// `smooth_lines_fs`): directly, and through the geometry shader.
fn spirv(ctx: &mut TestContext) -> Outcome {
    Outcome::from_result(
        crate::harness::as_spirv(|| smooth_lines(ctx, Via::Direct, false))
            .and_then(|()| crate::harness::as_spirv(|| smooth_lines(ctx, Via::Geometry, false))),
    )
}
fn stipple_native(ctx: &mut TestContext) -> Outcome {
    Outcome::from_result(stippled(ctx, false))
}
fn stipple_emulated(ctx: &mut TestContext) -> Outcome {
    Outcome::from_result(stippled(ctx, true))
}
fn rebind(ctx: &mut TestContext) -> Outcome {
    Outcome::from_result(smooth_lines(ctx, Via::Rebind, false))
}
fn polygon_line(ctx: &mut TestContext) -> Outcome {
    Outcome::from_result(smooth_lines(ctx, Via::PolygonLine, false))
}
test_case!(name = "pipe.render.smooth_lines.single_sample", direct);
test_case!(name = "pipe.render.smooth_lines.emulated", emulated);
fn multisampled_case(ctx: &mut TestContext) -> Outcome {
    Outcome::from_result(multisampled(ctx))
}
test_case!(
    name = "pipe.render.smooth_lines.multisampled",
    multisampled_case
);
test_case!(
    name = "pipe.render.smooth_lines.emulated.tessellation",
    emulated_tessellation
);
test_case!(
    name = "pipe.render.smooth_lines.emulated.rebind_width",
    emulated_rebind
);
test_case!(
    name = "pipe.render.smooth_lines.emulated.spirv",
    emulated_spirv
);
test_case!(
    name = "pipe.render.smooth_lines.emulated.adjacency",
    emulated_adjacency
);
test_case!(
    name = "pipe.render.smooth_lines.emulated.stipple",
    emulated_stippled
);
test_case!(
    name = "pipe.render.smooth_lines.emulated.stipple.near_clip",
    emulated_stippled_near_clip
);
test_case!(
    name = "pipe.render.smooth_lines.emulated.stipple.spirv",
    emulated_stippled_spirv
);
test_case!(name = "pipe.render.smooth_lines.geometry", geometry);
test_case!(name = "pipe.render.smooth_lines.tessellation", tessellation);
test_case!(name = "pipe.render.smooth_lines.polygon_line", polygon_line);
test_case!(name = "pipe.render.smooth_lines.spirv", spirv);
test_case!(name = "pipe.render.smooth_lines.rebind_width", rebind);
test_case!(
    name = "pipe.render.smooth_lines.stipple.native",
    stipple_native
);
test_case!(
    name = "pipe.render.smooth_lines.stipple.emulated",
    stipple_emulated
);
