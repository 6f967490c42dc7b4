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

use pipe_core::draw::PrimType;
use pipe_core::state::*;

use crate::cases::draw::{bind_vertices, check_image, clear_color, draw, setup};
use crate::cases::polygon_mode::{on_rect, verts};
use crate::harness::{bind_program, bind_rasterizer, env, step, unorm, Env};
use crate::{Outcome, TestContext};

type R = Result<(), Outcome>;

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
    draw(&mut e, PrimType::Quads, 0, 8, 1)?;
    let color = unorm([1.0, 0.5, 0.25, 1.0]);
    check_image(ctx, &mut e, &t, |x, y| {
        Some(
            if on_rect(x, y, (2, 2, 6, 12)) || on_rect(x, y, (9, 2, 13, 12)) {
                color
            } else {
                [0; 4].into()
            },
        )
    })
}

crate::result_case!(
    "pipe.draw.review_s4.relocate.packed_high_output",
    quads_line_packed_high
);

/// A 4x multisampled colour buffer with an implicit resolve into the
/// single-sampled target `t.color` (`FramebufferState::resolve`, GL's
/// EXT_multisampled_render_to_texture): what the application sees is the
/// resolve target, which every clear and draw of the framebuffer reaches.
fn msrtt_setup(e: &mut Env) -> Result<crate::cases::draw::Target, Outcome> {
    use pipe_core::resource::{BindFlags, ResourceTemplate};
    use pipe_core::view::SurfaceTemplate;
    use pipe_core::Format;
    let t = setup(e, false)?;
    let mut mt =
        ResourceTemplate::texture_2d(Format::R8G8B8A8Unorm, 16, 16, BindFlags::RENDER_TARGET);
    mt.nr_samples = 4;
    if !e.screen.is_format_supported(
        mt.format,
        pipe_core::resource::Target::Texture2D,
        4,
        4,
        BindFlags::RENDER_TARGET,
    ) {
        return Err(Outcome::skip("no 4x RGBA8 render targets"));
    }
    let m = e.texture(&mt)?;
    let ms = step(
        "surface",
        e.ctx.create_surface(
            &m,
            &SurfaceTemplate {
                format: mt.format,
                level: 0,
                first_layer: 0,
                last_layer: 0,
            },
        ),
    )?;
    let fb = FramebufferState {
        width: 16,
        height: 16,
        layers: 1,
        samples: 4,
        cbufs: vec![Some(ms)],
        zsbuf: None,
        resolve: Some(t.color.clone()),
    };
    step("set_framebuffer_state", e.ctx.set_framebuffer_state(&fb))?;
    Ok(t)
}

/// A whole-framebuffer clear of a framebuffer with an implicit resolve,
/// read back from the resolve target: with `draw_first`, after a draw
/// (red over the whole target) that the clear must replace; without, a
/// clear alone. GL shows the clear colour either way.
fn msrtt_clear(ctx: &mut TestContext, draw_first: bool) -> R {
    const GREEN: [f32; 4] = [0.0, 1.0, 0.0, 1.0];
    let mut e = env(ctx, false)?;
    let t = msrtt_setup(&mut e)?;
    bind_program(
        &mut e,
        crate::harness::VS_PASSTHROUGH,
        crate::harness::FS_UBO_COLOR,
    )?;
    clear_color(&mut e, [0.0; 4])?;
    if draw_first {
        crate::harness::set_color(&mut e, [1.0, 0.0, 0.0, 1.0])?;
        let full = [
            -1.0, -1.0, 0.0, 1.0, 3.0, -1.0, 0.0, 1.0, -1.0, 3.0, 0.0, 1.0,
        ];
        bind_vertices(&mut e, &full, None)?;
        draw(&mut e, PrimType::Triangles, 0, 3, 1)?;
    }
    clear_color(&mut e, GREEN)?;
    check_image(ctx, &mut e, &t, |_, _| Some(unorm(GREEN)))
}

crate::bool_cases!(
    msrtt_clear,
    "pipe.draw.review_s4.clear.fb_resolve_clear_only",
    "pipe.draw.review_s4.clear.fb_resolve_after_draw"
);
