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

use pipe_core::draw::{DrawInfo, DrawStartCountBias, IndexSource, PrimType};
use pipe_core::state::*;

use crate::cases::draw::{bind_vertices, check_image, clear_color, setup};
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
    // Point mode: lavapipe's workaround off (`DeviceShared::point_edges`);
    // one draw per case does not meet the crash it avoids.
    let mut e: Env = env_with(ctx, |o| {
        o.emulate_line_stipple = Some(stipple);
        o.point_edges = Some(true);
    })?;
    if stipple && !e.screen.caps().line_stipple {
        return Err(Outcome::skip("no line stipple"));
    }
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    bind_rasterizer(&mut e, |r| {
        r.fill_front = mode;
        r.fill_back = mode;
        r.flatshade_first = first;
        r.cull_face = if shape == Shape::QuadsCulled {
            Face::BACK
        } else {
            Face::empty()
        };
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
    let v = shape.vertices();
    bind_vertices(&mut e, &verts(&v), None)?;
    let n = v.len() as u32;
    let draws = [DrawStartCountBias {
        start: 0,
        count: if shape == Shape::QuadsIndexed { 9 } else { n },
        index_bias: 0,
    }];
    let idx: Vec<u8> = [0u16, 1, 2, 3, 0xffff, 4, 5, 6, 7]
        .iter()
        .flat_map(|i| i.to_le_bytes())
        .collect();
    let info = if shape == Shape::QuadsIndexed {
        DrawInfo {
            mode: shape.mode(),
            index_size: 2,
            index: IndexSource::User(&idx),
            primitive_restart: true,
            restart_index: 0xffff,
            ..DrawInfo::default()
        }
    } else {
        DrawInfo {
            mode: shape.mode(),
            ..DrawInfo::default()
        }
    };
    step("draw_vbo", e.ctx.draw_vbo(&info, 0, None, &draws))?;
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

macro_rules! cases {
    ($($name:literal => ($shape:ident, $mode:ident, $first:expr, $stipple:expr)),+ $(,)?) => {
        $(
            const _: () = {
                fn run(ctx: &mut TestContext) -> Outcome {
                    Outcome::from_result(case(
                        ctx,
                        Shape::$shape,
                        PolygonMode::$mode,
                        $first,
                        $stipple,
                    ))
                }
                test_case!(name = concat!("pipe.draw.polygon_mode.", $name), run);
            };
        )+
    };
}

cases! {
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
