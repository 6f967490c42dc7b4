//! `pipe.draw.review_s4.*`: cases from a review of user constants read
//! through a window of the constant stream buffer (`ubo0_push_offset`),
//! deferred clears between draws, generated geometry shaders after vertex
//! shaders with relocated outputs (`relocate`) and the hidden-edge
//! encoding, vertex-buffer format support, and the calls that end a draw
//! merge without a new state lookup. Each compares read-back pixels with
//! what GL draws, computed here.
//!
//! Vertices sit on pixel centres of the 16x16 target (as in
//! `polygon_mode`), so axis-aligned outlines light exactly the pixels
//! between their corners.

use pipe_core::draw::{DrawInfo, DrawStartCountBias, PrimType};
use pipe_core::state::*;

use crate::cases::draw::{bind_vertices, check_image, clear_color, setup};
use crate::cases::polygon_mode::{on_rect, verts};
use crate::harness::{bind_program, bind_rasterizer, env, step, unorm, Env};
use crate::{test_case, Outcome, TestContext};

type R = Result<(), Outcome>;

fn draw_mode(e: &mut Env, mode: PrimType, count: u32) -> R {
    let info = DrawInfo {
        mode,
        ..DrawInfo::default()
    };
    let draws = [DrawStartCountBias {
        start: 0,
        count,
        index_bias: 0,
    }];
    step("draw_vbo", e.ctx.draw_vbo(&info, 0, None, &draws))
}

/// Two quads (2, 2)-(6, 12) and (9, 2)-(13, 12).
const QUADS: [(u32, u32); 8] = [
    (2, 2),
    (6, 2),
    (6, 12),
    (2, 12),
    (9, 2),
    (13, 2),
    (13, 12),
    (9, 12),
];

/// Quads in polygon mode `LINE` whose vertex shader writes its colour as
/// two `f32x2` outputs packed into location 20 (components 0 and 2, GLSL's
/// `layout(location = 20, component = 2)`), past the 16 locations a
/// geometry shader reads on lavapipe: the generated polygon-edge geometry
/// shader needs them moved below (`relocate`), both of them. GL outlines
/// the quads in the colour, without diagonals.
fn quads_line_packed_high(ctx: &mut TestContext) -> R {
    const VS: &str = "shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
out @a : f32x2 location=20
out @b : f32x2 location=20 component=2
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  %1 : f32x2 = const 1.0, 0.5
  %2 : f32x2 = const 0.25, 1.0
  store @a, %1
  store @b, %2
}
";
    const FS: &str = "shader fragment
in @a : f32x2 location=20
in @b : f32x2 location=20 component=2
out @frag : f32x4 location=0
fn main {
  %0 : f32x2 = load @a
  %1 : f32x2 = load @b
  %2 : f32x4 = vec %0, %1
  store @frag, %2
}
";
    let mut e = env(ctx, false)?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS, FS)?;
    bind_rasterizer(&mut e, |r| {
        r.fill_front = PolygonMode::Line;
        r.fill_back = PolygonMode::Line;
    })?;
    clear_color(&mut e, [0.0; 4])?;
    bind_vertices(&mut e, &verts(&QUADS), None)?;
    draw_mode(&mut e, PrimType::Quads, 8)?;
    let color = unorm([1.0, 0.5, 0.25, 1.0]);
    check_image(ctx, &mut e, &t, |x, y| {
        Some(
            if on_rect(x, y, (2, 2, 6, 12)) || on_rect(x, y, (9, 2, 13, 12)) {
                color
            } else {
                [0; 4]
            },
        )
    })
}

const _: () = {
    fn run(ctx: &mut TestContext) -> Outcome {
        Outcome::from_result(quads_line_packed_high(ctx))
    }
    test_case!(
        name = "pipe.draw.review_s4.relocate.packed_high_output",
        run
    );
};
