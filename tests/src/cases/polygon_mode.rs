//! `pipe.draw.polygon_mode.*`: quads, quad strips and polygons in polygon
//! mode `LINE` and `POINT` draw what GL draws: each polygon's boundary
//! edges, without the diagonals of the triangles pipe-vk splits it into,
//! and each polygon vertex once (pipe-vk's `prim::Edges` with the
//! generated geometry shader and `spirv_gen::passes::polygon_edges`).
//! The triangles stay triangles, so culling still applies.
//!
//! Vertices sit on pixel centres of the 16x16 target, so the axis-aligned
//! outlines light exactly the pixels between their corners (each edge
//! leaves out its last pixel, which the next edge starts with), and a
//! point of size 1 lights exactly its vertex's pixel. The expected images
//! are exact: a diagonal would light interior pixels, a vertex drawn
//! twice would add its colour twice under additive blending.
//!
//! `pipe.draw.polygon_mode.edge_flags.*`: GL's explicit edge flags, a
//! vertex shader's `slot=edge` output (here from a vertex attribute, as
//! st/mesa passes `glEdgeFlag` through): a vertex whose flag is 0 begins
//! a non-boundary edge, which line mode does not draw, and is not drawn
//! in point mode; for separate triangles, quads and polygons only (strips
//! and fans ignore them). Where a hidden edge meets a drawn one, which of
//! the two lines lights the shared vertex's pixel is the rasterizer's
//! choice, so those pixels are not checked.

use pipe_core::draw::{DrawInfo, DrawStartCountBias, IndexSource, PrimType};
use pipe_core::state::*;

use crate::cases::draw::{bind_vec4_streams, bind_vertices, check_image, clear_color, setup};
use crate::harness::{
    bind_program, bind_rasterizer, env_with, set_color, step, unorm, Env, FS_UBO_COLOR,
    VS_PASSTHROUGH,
};
use crate::{test_case, Outcome, TestContext};

type R = Result<(), Outcome>;

/// Vertex at the centre of pixel (x, y).
pub(crate) fn px(x: u32, y: u32) -> [f32; 4] {
    [
        (x as f32 + 0.5) / 8.0 - 1.0,
        (y as f32 + 0.5) / 8.0 - 1.0,
        0.0,
        1.0,
    ]
}

pub(crate) fn verts(pixels: &[(u32, u32)]) -> Vec<f32> {
    pixels.iter().flat_map(|&(x, y)| px(x, y)).collect()
}

/// Whether pixel (x, y) is on the outline of the rectangle with corner
/// pixels (x0, y0) and (x1, y1).
pub(crate) fn on_rect(x: u32, y: u32, (x0, y0, x1, y1): (u32, u32, u32, u32)) -> bool {
    let inx = (x0..=x1).contains(&x);
    let iny = (y0..=y1).contains(&y);
    (inx && (y == y0 || y == y1)) || (iny && (x == x0 || x == x1))
}

pub(crate) const COLOR: [f32; 4] = [1.0, 0.5, 0.25, 1.0];

/// What a case draws.
#[derive(Clone, Copy, PartialEq)]
enum Shape {
    /// Two quads, corners (2, 2)-(6, 12) and (9, 2)-(13, 12).
    Quads,
    /// The same two quads as indices into four-vertex groups, with
    /// primitive restart between them (it splits nothing for quads).
    QuadsIndexed,
    /// A quad strip of two quads: (2, 2)-(7, 12) and (7, 2)-(12, 12).
    QuadStrip,
    /// A pentagon outlining the rectangle (2, 2)-(12, 12), with a fifth
    /// vertex in the middle of its bottom side.
    Polygon,
    /// Quad A as `Quads`, quad B wound the other way, back faces culled.
    QuadsCulled,
}

impl Shape {
    fn vertices(self) -> Vec<(u32, u32)> {
        match self {
            Shape::Quads | Shape::QuadsIndexed => vec![
                (2, 2),
                (6, 2),
                (6, 12),
                (2, 12),
                (9, 2),
                (13, 2),
                (13, 12),
                (9, 12),
            ],
            Shape::QuadsCulled => vec![
                (2, 2),
                (6, 2),
                (6, 12),
                (2, 12),
                (9, 2),
                (9, 12),
                (13, 12),
                (13, 2),
            ],
            Shape::QuadStrip => vec![(2, 2), (2, 12), (7, 2), (7, 12), (12, 2), (12, 12)],
            Shape::Polygon => vec![(2, 2), (12, 2), (12, 12), (7, 12), (2, 12)],
        }
    }

    fn mode(self) -> PrimType {
        match self {
            Shape::Quads | Shape::QuadsIndexed | Shape::QuadsCulled => PrimType::Quads,
            Shape::QuadStrip => PrimType::QuadStrip,
            Shape::Polygon => PrimType::Polygon,
        }
    }

    /// The outlines GL draws in line mode.
    fn rects(self) -> Vec<(u32, u32, u32, u32)> {
        match self {
            Shape::Quads | Shape::QuadsIndexed => vec![(2, 2, 6, 12), (9, 2, 13, 12)],
            Shape::QuadsCulled => vec![(2, 2, 6, 12)],
            Shape::QuadStrip => vec![(2, 2, 7, 12), (7, 2, 12, 12)],
            Shape::Polygon => vec![(2, 2, 12, 12)],
        }
    }

    /// How often GL draws each pixel in point mode (once per polygon that
    /// has the vertex).
    fn point_count(self, x: u32, y: u32) -> u32 {
        let drawn = match self {
            Shape::QuadsCulled => self.vertices()[..4].to_vec(),
            Shape::QuadStrip => {
                // Two quads sharing (7, 2) and (7, 12).
                let v = self.vertices();
                [&v[..4], &v[2..]].concat()
            }
            _ => self.vertices(),
        };
        drawn.iter().filter(|&&p| p == (x, y)).count() as u32
    }
}

/// Draws `shape` in polygon mode `mode` (both faces), with the quads'
/// provoking vertex first or last, and checks the image: in line mode
/// exactly the outlines, in point mode each vertex pixel with the colour
/// added once per polygon that has it (additive blending of 0.25).
/// `stipple`: also stipple lines (pattern all ones), through the shader
/// emulation, which then shares the generated geometry shader.
fn case(ctx: &mut TestContext, shape: Shape, mode: PolygonMode, first: bool, stipple: bool) -> R {
    let (mut e, t, color) = begin(
        ctx,
        VS_PASSTHROUGH,
        mode,
        first,
        shape == Shape::QuadsCulled,
        stipple,
    )?;
    let points = mode == PolygonMode::Point;
    let v = shape.vertices();
    bind_vertices(&mut e, &verts(&v), None)?;
    let idx = [0u16, 1, 2, 3, 0xffff, 4, 5, 6, 7];
    match shape {
        Shape::QuadsIndexed => draw_mode(&mut e, shape.mode(), 0, Some(&idx))?,
        _ => draw_mode(&mut e, shape.mode(), v.len() as u32, None)?,
    }
    let lit = unorm(color);
    check_image(ctx, &mut e, &t, |x, y| {
        Some(if points {
            let k = shape.point_count(x, y);
            unorm(color.map(|c| c * k as f32))
        } else if shape.rects().iter().any(|&r| on_rect(x, y, r)) {
            lit
        } else {
            [0; 4].into()
        })
    })
}

/// The set-up of a case: `vs` and a constant-colour fragment shader,
/// polygon mode `mode` on both faces, the provoking vertex `first` or
/// last, back faces culled or not, lines stippled (all ones, emulated)
/// or not, cleared to black. Returns the colour set: in point mode 0.25
/// with additive blending, so a pixel drawn k times reads 0.25 k.
fn begin(
    ctx: &mut TestContext,
    vs: &str,
    mode: PolygonMode,
    first: bool,
    culled: bool,
    stipple: bool,
) -> Result<(Env, crate::cases::draw::Target, [f32; 4]), Outcome> {
    let mut e: Env = env_with(ctx, |o| o.emulate_line_stipple = Some(stipple))?;
    if stipple && !e.screen.caps().line_stipple {
        return Err(Outcome::skip("no line stipple"));
    }
    let t = setup(&mut e, false)?;
    bind_program(&mut e, vs, FS_UBO_COLOR)?;
    bind_rasterizer(&mut e, |r| {
        r.fill_front = mode;
        r.fill_back = mode;
        r.flatshade_first = first;
        r.cull_face = if culled { Face::BACK } else { Face::empty() };
        r.line_stipple_enable = stipple;
        r.line_stipple_pattern = 0xffff;
    })?;
    let points = mode == PolygonMode::Point;
    let color = if points {
        [0.25, 0.25, 0.25, 0.25]
    } else {
        COLOR
    };
    if points {
        let mut bs = BlendState::default();
        bs.rt[0] = crate::harness::RT_ADDITIVE;
        let h = step("blend", e.ctx.create_blend_state(&bs))?;
        step("bind blend", e.ctx.bind_blend_state(Some(h)))?;
    }
    clear_color(&mut e, [0.0; 4])?;
    set_color(&mut e, color)?;
    Ok((e, t, color))
}

/// Registers `$run(ctx, $kind::$which, PolygonMode::$mode, first,
/// stipple)` as case `$prefix$name`, for each entry.
macro_rules! cases {
    ($run:ident, $kind:ident, $prefix:literal:
     $($name:literal => ($which:ident, $mode:ident, $first:expr, $stipple:expr)),+ $(,)?) => {
        $(
            const _: () = {
                fn run(ctx: &mut TestContext) -> Outcome {
                    Outcome::from_result($run(
                        ctx,
                        $kind::$which,
                        PolygonMode::$mode,
                        $first,
                        $stipple,
                    ))
                }
                test_case!(name = concat!($prefix, $name), run);
            };
        )+
    };
}

cases! {
    case, Shape, "pipe.draw.polygon_mode.":
    "quads.line" => (Quads, Line, false, false),
    "quads.line_first" => (Quads, Line, true, false),
    "quads.line_indexed_restart" => (QuadsIndexed, Line, false, false),
    "quads.line_culled" => (QuadsCulled, Line, false, false),
    "quads.line_stipple_emulated" => (Quads, Line, false, true),
    "quads.point" => (Quads, Point, false, false),
    "quads.point_first" => (Quads, Point, true, false),
    "quad_strip.line" => (QuadStrip, Line, false, false),
    "quad_strip.line_first" => (QuadStrip, Line, true, false),
    "quad_strip.point" => (QuadStrip, Point, false, false),
    "polygon.line" => (Polygon, Line, false, false),
    "polygon.line_first" => (Polygon, Line, true, false),
    "polygon.point" => (Polygon, Point, false, false),
    "polygon.point_first" => (Polygon, Point, true, false),
}

/// [`cases!`]'s cases with shaders given as SPIR-V passthrough: case
/// `$prefix$name$suffix` runs the case under `$wrap`.
/// - `.spirv_vs` (`harness::as_spirv_vs`): the vertex shader only, the
///   fragment shader IR; the generated geometry shader takes the vertex
///   shader's outputs from its words (`spirv_gen::patch::vertex_outputs`).
/// - `.spirv` (`harness::as_spirv`): every shader, so the fragment
///   shader's half (the hidden-edge discard, and the stipple with it) is
///   patched into its words (`spirv_gen::patch::polygon_edges`).
macro_rules! spirv_cases {
    ($run:ident, $kind:ident, $prefix:literal, $wrap:path, $suffix:literal:
     $($name:literal => ($which:ident, $mode:ident, $first:expr, $stipple:expr)),+ $(,)?) => {
        $(
            const _: () = {
                fn run(ctx: &mut TestContext) -> Outcome {
                    Outcome::from_result($wrap(|| {
                        $run(ctx, $kind::$which, PolygonMode::$mode, $first, $stipple)
                    }))
                }
                test_case!(name = concat!($prefix, $name, $suffix), run);
            };
        )+
    };
}

spirv_cases! {
    case, Shape, "pipe.draw.polygon_mode.", crate::harness::as_spirv_vs, ".spirv_vs":
    "quads.line" => (Quads, Line, false, false),
    "quads.line_stipple_emulated" => (Quads, Line, false, true),
    "polygon.point" => (Polygon, Point, false, false),
}

spirv_cases! {
    case, Shape, "pipe.draw.polygon_mode.", crate::harness::as_spirv, ".spirv":
    "quads.line" => (Quads, Line, false, false),
    "quads.line_first" => (Quads, Line, true, false),
    "quads.line_stipple_emulated" => (Quads, Line, false, true),
    "quads.point" => (Quads, Point, false, false),
    "polygon.point" => (Polygon, Point, false, false),
}

/// Passes a per-vertex edge flag (location 1's x) to `slot=edge`.
const VS_EDGE_FLAG: &str = "shader vertex
in @pos : f32x4 location=0
in @flag : f32x4 location=1
out @gl_pos : f32x4 builtin=position
out @edge : f32 location=5 slot=edge
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  %1 : f32x4 = load @flag
  %2 : f32 = swizzle %1, x
  store @edge, %2
}
";

/// What an edge-flag case draws: each vertex's pixel and edge flag.
#[derive(Clone, Copy, PartialEq)]
enum Flagged {
    /// Two triangles making the rectangle (2, 2)-(12, 12), their shared
    /// diagonal flagged off (from (12, 2) in the first, from (2, 12) in
    /// the second), and a small triangle at (13..15, 14..15) with every
    /// flag off.
    Triangles,
    /// The same, drawn through 16-bit indices in another order.
    TrianglesIndexed,
    /// The same, drawn by an indirect command.
    TrianglesIndirect,
    /// Quad (2, 2)-(6, 12) with every flag on, and quad (9, 2)-(13, 12)
    /// whose right and left edges (from (13, 2) and (9, 12)) are off.
    Quads,
    /// The pentagon of `Shape::Polygon` with the edge from (12, 12) to
    /// (7, 12) off.
    Polygon,
    /// `Shape::QuadStrip` with every flag off: ignored.
    QuadStrip,
    /// The rectangle (2, 2)-(12, 12) as a strip of two triangles, every
    /// flag off: ignored.
    TriangleStrip,
}

impl Flagged {
    fn vertices(self) -> Vec<((u32, u32), f32)> {
        let on = |v: &[(u32, u32)], flags: &[f32]| {
            v.iter().copied().zip(flags.iter().copied()).collect()
        };
        match self {
            Flagged::Triangles | Flagged::TrianglesIndexed | Flagged::TrianglesIndirect => on(
                &[
                    (2, 2),
                    (12, 2),
                    (2, 12),
                    (12, 2),
                    (12, 12),
                    (2, 12),
                    (13, 14),
                    (15, 14),
                    (14, 15),
                ],
                &[1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0],
            ),
            Flagged::Quads => on(
                &Shape::Quads.vertices(),
                &[1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0],
            ),
            Flagged::Polygon => on(&Shape::Polygon.vertices(), &[1.0, 1.0, 0.0, 1.0, 1.0]),
            Flagged::QuadStrip => on(&Shape::QuadStrip.vertices(), &[0.0; 6]),
            Flagged::TriangleStrip => on(&[(2, 2), (12, 2), (2, 12), (12, 12)], &[0.0; 4]),
        }
    }

    fn mode(self) -> PrimType {
        match self {
            Flagged::Triangles | Flagged::TrianglesIndexed | Flagged::TrianglesIndirect => {
                PrimType::Triangles
            }
            Flagged::Quads => PrimType::Quads,
            Flagged::Polygon => PrimType::Polygon,
            Flagged::QuadStrip => PrimType::QuadStrip,
            Flagged::TriangleStrip => PrimType::TriangleStrip,
        }
    }

    /// Line mode: whether pixel (x, y) is lit, `None` where not checked.
    fn line(self, x: u32, y: u32) -> Option<bool> {
        let outline = on_rect(x, y, (2, 2, 12, 12));
        match self {
            Flagged::Triangles | Flagged::TrianglesIndexed | Flagged::TrianglesIndirect => {
                // The diagonal's ends.
                if [(12, 2), (2, 12)].contains(&(x, y)) {
                    return None;
                }
                Some(outline)
            }
            Flagged::Quads => {
                // Each corner of quad 2 joins a drawn and a hidden edge.
                if [9, 13].contains(&x) && [2, 12].contains(&y) {
                    return None;
                }
                let q2 = (y == 2 || y == 12) && (9..=13).contains(&x);
                Some(on_rect(x, y, (2, 2, 6, 12)) || q2)
            }
            Flagged::Polygon => {
                if [(12, 12), (7, 12)].contains(&(x, y)) {
                    return None;
                }
                Some(outline && !(y == 12 && (8..=11).contains(&x)))
            }
            Flagged::QuadStrip => Some(Shape::QuadStrip.rects().iter().any(|&r| on_rect(x, y, r))),
            Flagged::TriangleStrip => {
                // The corners and the diagonal (12, 2)-(2, 12) are the
                // rasterizer's; the sides must be drawn.
                let corner = [2, 12].contains(&x) && [2, 12].contains(&y);
                if corner || (x + y).abs_diff(14) <= 1 {
                    return None;
                }
                Some(outline)
            }
        }
    }

    /// Point mode: how often pixel (x, y) is drawn (once per polygon
    /// that has the vertex flagged on).
    fn points(self, x: u32, y: u32) -> u32 {
        let v = self.vertices();
        let polygon_size = match self.mode() {
            PrimType::Triangles => 3,
            PrimType::Quads => 4,
            _ => v.len(),
        };
        // A polygon draws each of its vertices once.
        v.chunks(polygon_size)
            .filter(|p| p.iter().any(|&(q, f)| q == (x, y) && f != 0.0))
            .count() as u32
    }
}

/// Draws `which` with edge flags in polygon mode `mode`, the provoking
/// vertex first or last, lines stippled (all ones, emulated) or not, and
/// checks the image (see the module docs). The quad strip case first
/// draws `Flagged::Quads` and clears: the same pipeline state and
/// topology, whose generated geometry shader reads the flags, which the
/// strip's must not.
fn edge_flags(
    ctx: &mut TestContext,
    which: Flagged,
    mode: PolygonMode,
    first: bool,
    stipple: bool,
) -> R {
    let (mut e, t, color) = begin(ctx, VS_EDGE_FLAG, mode, first, false, stipple)?;
    if which == Flagged::QuadStrip {
        draw_flagged(&mut e, Flagged::Quads)?;
        clear_color(&mut e, [0.0; 4])?;
    }
    draw_flagged(&mut e, which)?;
    check_image(ctx, &mut e, &t, |x, y| {
        if mode == PolygonMode::Point {
            let k = which.points(x, y);
            Some(unorm(color.map(|c| c * k as f32)))
        } else {
            which
                .line(x, y)
                .map(|lit| if lit { unorm(color) } else { [0; 4].into() })
        }
    })
}

/// Binds `which`'s positions and flags and draws it.
fn draw_flagged(e: &mut Env, which: Flagged) -> R {
    let v = which.vertices();
    let pos: Vec<f32> = v.iter().flat_map(|&((x, y), _)| px(x, y)).collect();
    let flags: Vec<f32> = v.iter().flat_map(|&(_, f)| [f, 0.0, 0.0, 1.0]).collect();
    bind_vec4_streams(e, &[(&pos, 0), (&flags, 0)])?;
    if which == Flagged::TrianglesIndirect {
        // One command: 9 vertices from 0, one instance.
        let cmd: Vec<u8> = [v.len() as u32, 1, 0, 0]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        let ind = pipe_core::draw::DrawIndirectInfo {
            draw_count: 1,
            buffer: Some(e.buffer_with(&cmd)?),
            ..Default::default()
        };
        let info = DrawInfo {
            mode: which.mode(),
            ..DrawInfo::default()
        };
        return step(
            "draw_vbo (indirect)",
            e.ctx.draw_vbo(&info, 0, Some(&ind), &[]),
        );
    }
    // The indexed variant: the triangles in reverse order.
    let idx = [6u16, 7, 8, 3, 4, 5, 0, 1, 2];
    let indexed = which == Flagged::TrianglesIndexed;
    draw_mode(e, which.mode(), v.len() as u32, indexed.then_some(&idx[..]))
}

/// Draws `vertices` vertices of `mode` from vertex 0, or, with
/// `indices`, those 16-bit indices with primitive restart at 0xffff.
fn draw_mode(e: &mut Env, mode: PrimType, vertices: u32, indices: Option<&[u16]>) -> R {
    let bytes: Vec<u8> = indices
        .unwrap_or_default()
        .iter()
        .flat_map(|i| i.to_le_bytes())
        .collect();
    let (info, count) = match indices {
        Some(idx) => (
            DrawInfo {
                mode,
                index_size: 2,
                index: IndexSource::User(&bytes),
                primitive_restart: true,
                restart_index: 0xffff,
                ..DrawInfo::default()
            },
            idx.len() as u32,
        ),
        None => (
            DrawInfo {
                mode,
                ..DrawInfo::default()
            },
            vertices,
        ),
    };
    let draws = [DrawStartCountBias {
        start: 0,
        count,
        index_bias: 0,
    }];
    step("draw_vbo", e.ctx.draw_vbo(&info, 0, None, &draws))
}

/// The edge flag is no varying: a fragment shader input at its location
/// reads zero (what pipe-vk gives inputs nobody writes), not the flag.
/// Filled triangles whose flags are 1.0, drawn with a fragment shader
/// that writes (input at location 5, 1, 0, 1).
fn edge_flag_not_a_varying(ctx: &mut TestContext) -> R {
    let (mut e, t, _) = begin(ctx, VS_EDGE_FLAG, PolygonMode::Fill, false, false, false)?;
    let fs = "shader fragment
in @e : f32 location=5
out @color : f32x4 location=0
fn main {
  %0 : f32 = load @e
  %1 : f32 = const 0.0
  %2 : f32 = const 1.0
  %3 : f32x4 = vec %0, %2, %1, %2
  store @color, %3
}
";
    let h = step(
        "create_fs_state",
        e.ctx
            .create_fs_state(&crate::harness::shader(ShaderStage::Fragment, fs)?),
    )?;
    step("bind_fs_state", e.ctx.bind_fs_state(Some(h)))?;
    clear_color(&mut e, [0.0, 0.0, 0.0, 1.0])?;
    draw_flagged(&mut e, Flagged::Triangles)?;
    // The rectangle (2, 2)-(12, 12): its inside green, its edges not
    // checked (which triangle owns them is the rasterizer's rule).
    check_image(ctx, &mut e, &t, |x, y| {
        let inside = (3..=11).contains(&x) && (3..=11).contains(&y);
        let outside = !(2..=12).contains(&x) || !(2..=12).contains(&y);
        if inside {
            Some(unorm([0.0, 1.0, 0.0, 1.0]))
        } else if outside && !(13..=15).contains(&x) {
            Some(unorm([0.0, 0.0, 0.0, 1.0]))
        } else {
            None
        }
    })
}
test_case!(
    name = "pipe.draw.polygon_mode.edge_flags.not_a_varying",
    edge_flag_not_a_varying_run
);
fn edge_flag_not_a_varying_run(ctx: &mut TestContext) -> Outcome {
    Outcome::from_result(edge_flag_not_a_varying(ctx))
}

/// Where edge flags cannot be applied they are ignored (every edge is
/// drawn) and the debug callback gets a `Fallback` message saying so:
/// here because the fragment shader reads the location the hidden-edge
/// mask would take (`spirv_gen::binding::EDGE_MASK_LOCATION`, 28).
fn edge_flags_not_applied(ctx: &mut TestContext) -> R {
    use pipe_core::state::{DebugMessage, DebugType};
    let (mut e, t, color) = begin(ctx, VS_EDGE_FLAG, PolygonMode::Line, false, false, false)?;
    let fs = "shader fragment
in @m : f32x4 location=28
out @color : f32x4 location=0
fn main {
  %0 : f32x4 = load @m
  %1 : f32x4 = const 1.0, 0.5, 0.25, 1.0
  %2 : f32x4 = fadd %0, %1
  store @color, %2
}
";
    let h = step(
        "create_fs_state",
        e.ctx
            .create_fs_state(&crate::harness::shader(ShaderStage::Fragment, fs)?),
    )?;
    step("bind_fs_state", e.ctx.bind_fs_state(Some(h)))?;
    let log: std::sync::Arc<std::sync::Mutex<Vec<DebugMessage>>> = Default::default();
    let sink = log.clone();
    step(
        "set_debug_callback",
        e.ctx
            .set_debug_callback(Some(std::sync::Arc::new(move |m: &DebugMessage| {
                if let Ok(mut l) = sink.lock() {
                    l.push(m.clone());
                }
            }))),
    )?;
    draw_flagged(&mut e, Flagged::Triangles)?;
    step("remove callback", e.ctx.set_debug_callback(None))?;
    let msgs = log.lock().map(|l| l.clone()).unwrap_or_default();
    if !msgs
        .iter()
        .any(|m| m.kind == DebugType::Fallback && m.text.contains("edge flags"))
    {
        return Err(Outcome::fail(format!("no Fallback message: {msgs:?}")));
    }
    // The flagged-off diagonal (12, 2)-(2, 12) is drawn: its middle pixel,
    // and the all-off triangle's vertex pixels.
    check_image(ctx, &mut e, &t, |x, y| {
        [(7, 7), (13, 14), (15, 14), (14, 15)]
            .contains(&(x, y))
            .then(|| unorm(color))
    })
}
test_case!(
    name = "pipe.draw.polygon_mode.edge_flags.not_applied",
    edge_flags_not_applied_run
);
fn edge_flags_not_applied_run(ctx: &mut TestContext) -> Outcome {
    Outcome::from_result(edge_flags_not_applied(ctx))
}

cases! {
    edge_flags, Flagged, "pipe.draw.polygon_mode.edge_flags.":
    "triangles.line" => (Triangles, Line, false, false),
    "triangles.line_indexed" => (TrianglesIndexed, Line, true, false),
    "triangles.line_indirect" => (TrianglesIndirect, Line, false, false),
    "triangles.line_stipple_emulated" => (Triangles, Line, false, true),
    "triangles.point" => (Triangles, Point, false, false),
    "triangles.point_first" => (Triangles, Point, true, false),
    "quads.line" => (Quads, Line, false, false),
    "quads.line_first" => (Quads, Line, true, false),
    "quads.line_stipple_emulated" => (Quads, Line, false, true),
    "quads.point" => (Quads, Point, false, false),
    "quads.point_first" => (Quads, Point, true, false),
    "polygon.line" => (Polygon, Line, false, false),
    "polygon.line_first" => (Polygon, Line, true, false),
    "polygon.point" => (Polygon, Point, true, false),
    "quad_strip.line_ignored" => (QuadStrip, Line, false, false),
    "triangle_strip.line_ignored" => (TriangleStrip, Line, false, false),
}
