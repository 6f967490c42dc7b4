//! `pipe.draw.dynamic_blend.*` and `pipe.draw.dynamic_rasterizer.*`:
//! blend and rasterizer state set at draw time where the device has
//! VK_EXT_extended_dynamic_state3's blend and rasterization states
//! (pipe-vk's default on lavapipe), and baked into pipelines where it has
//! not (`PIPE_VK_DEBUG=no_dynamic_blend` / `no_dynamic_rasterizer`, the
//! `.static` cases). State changes within one command buffer must each
//! take effect, and dynamic state must not create pipelines. Likewise
//! `pipe.draw.dynamic_vertex_input.*` for vertex input
//! (VK_EXT_vertex_input_dynamic_state; `no_dynamic_vertex_input`).

use pipe_core::cso::BlendHandle;
use pipe_core::draw::{DrawInfo, DrawStartCountBias, PrimType};
use pipe_core::state::*;
use pipe_core::Context;

use super::draw::{bind_vertices, check_image, clear_color, draw, setup};
use crate::harness::{bind_program, env_with, step, unorm, Env, FS_UBO_COLOR, VS_PASSTHROUGH};
use crate::{test_case, Outcome, TestContext};

type R = Result<(), Outcome>;

/// Two triangles covering pixel columns `x0..x1` and rows `y0..y1` of
/// the 16x16 target (edges on pixel boundaries).
fn rect(x0: u32, y0: u32, x1: u32, y1: u32) -> Vec<f32> {
    let n = |v: u32| v as f32 / 8.0 - 1.0;
    let (a, b, c, d) = (n(x0), n(y0), n(x1), n(y1));
    vec![
        a, b, 0.0, 1.0, c, b, 0.0, 1.0, a, d, 0.0, 1.0, //
        a, d, 0.0, 1.0, c, b, 0.0, 1.0, c, d, 0.0, 1.0,
    ]
}

fn blend_state(e: &mut Env, rt: RtBlendState) -> Result<BlendHandle, Outcome> {
    let bs = BlendState {
        rt: [rt; MAX_COLOR_BUFS],
        ..Default::default()
    };
    step("create_blend_state", e.ctx.create_blend_state(&bs))
}

/// Additive blending, a green-only colour mask, then additive again,
/// into one command buffer: the left half gets `clear + (0.5, 0, 0)`,
/// the right half only the green of white, and the bottom-left quarter
/// the addition twice.
fn switches(ctx: &mut TestContext, dynamic: bool) -> R {
    let mut e = env_with(ctx, |o| o.no_dynamic_blend = Some(!dynamic))?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    let add = blend_state(&mut e, crate::harness::RT_ADDITIVE)?;
    let green_only = blend_state(
        &mut e,
        RtBlendState {
            colormask: ColorMask::G,
            ..Default::default()
        },
    )?;
    let bg = [0.25, 0.25, 0.25, 0.5];
    clear_color(&mut e, bg)?;
    // Increments of whole UNORM8 steps (0.4 = 102/255, 0.2 = 51/255), so
    // the sums are exact.
    let steps = [
        (add, (0, 0, 8, 16), [0.4f32, 0.0, 0.0, 0.0]),
        (green_only, (8, 0, 16, 16), [1.0, 1.0, 1.0, 1.0]),
        (add, (0, 0, 8, 8), [0.2, 0.0, 0.0, 0.0]),
    ];
    for (h, (x0, y0, x1, y1), c) in steps {
        step("bind_blend_state", e.ctx.bind_blend_state(Some(h)))?;
        crate::harness::set_color(&mut e, c)?;
        bind_vertices(&mut e, &rect(x0, y0, x1, y1), None)?;
        draw(&mut e, PrimType::Triangles, 0, 6, 1)?;
    }
    let b8 = unorm(bg);
    check_image(ctx, &mut e, &t, |x, y| {
        // Each sum adds to what the clear stored (either UNORM value
        // nearest the clear colour).
        Some(if x >= 8 {
            b8.with(1, 255)
        } else if y < 8 {
            b8.plus([153, 0, 0, 0])
        } else {
            b8.plus([102, 0, 0, 0])
        })
    })
}

/// Draws a full-target triangle once after each of `binds` (a state
/// change) on a context whose screen bakes state or not (`opts`), and
/// checks
/// that dynamic state made one pipeline and baked state one per change.
fn count_pipelines(
    opts: pipe_vk::ScreenOptions,
    what: &str,
    dynamic: bool,
    binds: &mut [&mut dyn FnMut(&mut pipe_vk::context::VkContext) -> R],
) -> R {
    let screen = step("screen", pipe_vk::VkScreen::new(&opts))?;
    let full = [
        -1.0, -1.0, 0.0, 1.0, 3.0, -1.0, 0.0, 1.0, -1.0, 3.0, 0.0, 1.0,
    ];
    let mut c = super::draw::unwrapped_triangle_rig(&screen, 4, 4, &full)?;
    let before = c.stats().pipelines_created;
    for bind in binds.iter_mut() {
        bind(&mut c)?;
        let one = [DrawStartCountBias {
            start: 0,
            count: 3,
            index_bias: 0,
        }];
        step("draw", c.draw_vbo(&DrawInfo::default(), 0, None, &one))?;
    }
    let created = c.stats().pipelines_created - before;
    let want = if dynamic { 1 } else { binds.len() as u64 };
    if created != want {
        return Err(Outcome::fail(format!(
            "draws with {} {what} states created {created} pipelines, want {want} \
             (dynamic: {dynamic})",
            binds.len()
        )));
    }
    Ok(())
}

/// With dynamic blend, drawing with two blend states creates one
/// pipeline; with baked blend state, two.
fn pipelines(ctx: &mut TestContext, dynamic: bool) -> R {
    let mut opts = crate::harness::options(ctx);
    opts.no_dynamic_blend = Some(!dynamic);
    let bind = |colormask| {
        move |c: &mut pipe_vk::context::VkContext| -> R {
            let bs = BlendState {
                rt: [RtBlendState {
                    colormask,
                    ..Default::default()
                }; MAX_COLOR_BUFS],
                ..Default::default()
            };
            let h = step("blend", c.create_blend_state(&bs))?;
            step("bind blend", c.bind_blend_state(Some(h)))
        }
    };
    let (mut r, mut g) = (bind(ColorMask::R), bind(ColorMask::G));
    count_pipelines(opts, "blend", dynamic, &mut [&mut r, &mut g])
}

macro_rules! both {
    ($group:literal, $name:literal, $body:path) => {
        crate::bool_cases!(
            $body,
            concat!("pipe.draw.", $group, ".", $name, ".static"),
            concat!("pipe.draw.", $group, ".", $name, ".dynamic"),
        );
    };
}
both!("dynamic_blend", "switches", switches);
both!("dynamic_blend", "pipelines", pipelines);
both!("dynamic_rasterizer", "switches", raster_switches);
both!("dynamic_rasterizer", "pipelines", raster_pipelines);

/// Line mode, fill mode, then rasterizer discard, in one command buffer:
/// the triangle (1.5, 1.5), (6.5, 1.5), (1.5, 6.5) drawn as its outline
/// (row 1 lit between the corners, its inside pixel (2, 2) clear), the
/// right half filled, and nothing from the discarded draw over
/// everything.
fn raster_switches(ctx: &mut TestContext, dynamic: bool) -> R {
    let mut e = env_with(ctx, |o| o.no_dynamic_rasterizer = Some(!dynamic))?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    let rs = |f: &dyn Fn(&mut RasterizerState)| {
        let mut r = RasterizerState {
            line_width: 1.0,
            clip_halfz: true,
            half_pixel_center: true,
            depth_clip_near: true,
            depth_clip_far: true,
            ..Default::default()
        };
        f(&mut r);
        r
    };
    let line = rs(&|r| {
        r.fill_front = PolygonMode::Line;
        r.fill_back = PolygonMode::Line;
    });
    let fill = rs(&|_| {});
    let discard = rs(&|r| r.rasterizer_discard = true);
    let mut handles = Vec::new();
    for r in [line, fill, discard] {
        handles.push(step("rasterizer", e.ctx.create_rasterizer_state(&r))?);
    }
    let c = [0.0f32, 1.0, 0.0, 1.0];
    clear_color(&mut e, [0.0; 4])?;
    crate::harness::set_color(&mut e, c)?;
    let n = |v: f32| v / 8.0 - 1.0;
    let tri = vec![
        n(1.5),
        n(1.5),
        0.0,
        1.0,
        n(6.5),
        n(1.5),
        0.0,
        1.0,
        n(1.5),
        n(6.5),
        0.0,
        1.0,
    ];
    let draws = [
        (handles[0], tri),
        (handles[1], rect(8, 0, 16, 16)),
        (handles[2], rect(0, 0, 16, 16)),
    ];
    for (h, verts) in draws {
        step(
            "bind_rasterizer_state",
            e.ctx.bind_rasterizer_state(Some(h)),
        )?;
        bind_vertices(&mut e, &verts, None)?;
        draw(&mut e, PrimType::Triangles, 0, (verts.len() / 4) as u32, 1)?;
    }
    check_image(ctx, &mut e, &t, |x, y| {
        if x >= 8 || (y == 1 && (2..=5).contains(&x)) {
            Some(unorm(c))
        } else if (x, y) == (2, 2) || x >= 7 || y >= 8 {
            Some([0; 4].into())
        } else {
            None
        }
    })
}

/// With dynamic rasterizer state, drawing with a fill-mode and a
/// line-mode rasterizer creates one pipeline; with baked state, two.
fn raster_pipelines(ctx: &mut TestContext, dynamic: bool) -> R {
    let mut opts = crate::harness::options(ctx);
    opts.no_dynamic_rasterizer = Some(!dynamic);
    let bind = |mode| {
        move |c: &mut pipe_vk::context::VkContext| -> R {
            let r = RasterizerState {
                fill_front: mode,
                fill_back: mode,
                line_width: 1.0,
                half_pixel_center: true,
                depth_clip_near: true,
                depth_clip_far: true,
                ..Default::default()
            };
            let h = step("rasterizer", c.create_rasterizer_state(&r))?;
            step("bind rasterizer", c.bind_rasterizer_state(Some(h)))
        }
    };
    let (mut fill, mut line) = (bind(PolygonMode::Fill), bind(PolygonMode::Line));
    count_pipelines(opts, "rasterizer", dynamic, &mut [&mut fill, &mut line])
}

both!("dynamic_vertex_input", "switches", vertex_input_switches);
both!("dynamic_vertex_input", "pipelines", vertex_input_pipelines);

/// Binds `elems` (a new CSO) and `data` as vertex buffer 0; returns the
/// CSO.
fn bind_layout(
    e: &mut Env,
    elems: &[VertexElement],
    data: &[f32],
) -> Result<pipe_core::cso::VertexElementsHandle, Outcome> {
    let h = step("velems", e.ctx.create_vertex_elements_state(elems))?;
    step("bind velems", e.ctx.bind_vertex_elements_state(Some(h)))?;
    let vb = VertexBuffer {
        buffer: Some(VertexBufferSource::User(std::sync::Arc::from(
            crate::harness::f32s(data),
        ))),
        buffer_offset: 0,
    };
    step("set_vertex_buffers", e.ctx.set_vertex_buffers(&[vb]))?;
    Ok(h)
}

/// Three vertex layouts in one command buffer, each drawing a rectangle
/// in its own colour: x, y, z, w floats with stride 16 (left half); a
/// float to skip, then x, y with stride 12 (top right quarter); then,
/// after that CSO is deleted (a new one may take its id), x, y with
/// stride 8 (bottom right quarter).
fn vertex_input_switches(ctx: &mut TestContext, dynamic: bool) -> R {
    let mut e = env_with(ctx, |o| o.no_dynamic_vertex_input = Some(!dynamic))?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    clear_color(&mut e, [0.0; 4])?;
    let el = |offset, stride, format| VertexElement {
        src_offset: offset,
        src_stride: stride,
        vertex_buffer_index: 0,
        dual_slot: false,
        src_format: format,
        instance_divisor: 0,
    };
    // Keeps x, y of each vertex of `rect`, after `skip` leading floats.
    let xy = |v: Vec<f32>, skip: usize| -> Vec<f32> {
        v.chunks(4)
            .flat_map(|p| std::iter::repeat_n(9.0, skip).chain([p[0], p[1]]))
            .collect()
    };
    let (red, green, blue) = (
        [1.0f32, 0.0, 0.0, 1.0],
        [0.0f32, 1.0, 0.0, 1.0],
        [0.0f32, 0.0, 1.0, 1.0],
    );
    bind_layout(
        &mut e,
        &[el(0, 16, pipe_core::Format::R32G32B32A32Float)],
        &rect(0, 0, 8, 16),
    )?;
    crate::harness::set_color(&mut e, red)?;
    draw(&mut e, PrimType::Triangles, 0, 6, 1)?;
    let b = bind_layout(
        &mut e,
        &[el(4, 12, pipe_core::Format::R32G32Float)],
        &xy(rect(8, 0, 16, 8), 1),
    )?;
    crate::harness::set_color(&mut e, green)?;
    draw(&mut e, PrimType::Triangles, 0, 6, 1)?;
    step("unbind velems", e.ctx.bind_vertex_elements_state(None))?;
    step("delete velems", e.ctx.delete_vertex_elements_state(b))?;
    bind_layout(
        &mut e,
        &[el(0, 8, pipe_core::Format::R32G32Float)],
        &xy(rect(8, 8, 16, 16), 0),
    )?;
    crate::harness::set_color(&mut e, blue)?;
    draw(&mut e, PrimType::Triangles, 0, 6, 1)?;
    check_image(ctx, &mut e, &t, |x, y| {
        Some(unorm(if x < 8 {
            red
        } else if y < 8 {
            green
        } else {
            blue
        }))
    })
}

/// With dynamic vertex input, drawing with two vertex layouts (vec4 and
/// vec2 positions, no fetch fix-up) creates one pipeline; with baked
/// vertex input, two.
fn vertex_input_pipelines(ctx: &mut TestContext, dynamic: bool) -> R {
    let mut opts = crate::harness::options(ctx);
    opts.no_dynamic_vertex_input = Some(!dynamic);
    let bind = |format| {
        move |c: &mut pipe_vk::context::VkContext| -> R {
            let el = VertexElement {
                src_format: format,
                ..crate::harness::VEC4_ELEMENT
            };
            let h = step("velems", c.create_vertex_elements_state(&[el]))?;
            step("bind velems", c.bind_vertex_elements_state(Some(h)))
        }
    };
    let (mut vec4, mut vec2) = (
        bind(pipe_core::Format::R32G32B32A32Float),
        bind(pipe_core::Format::R32G32Float),
    );
    count_pipelines(
        opts,
        "vertex elements",
        dynamic,
        &mut [&mut vec4, &mut vec2],
    )
}

/// A call that changes only per-draw state between two draws of one
/// command buffer, with nothing else in between: the first draw keeps
/// the old value, the second takes the new one. These calls keep the
/// last draw's pipeline lookup (`merge::end_draw_merge`) but must
/// end a pending merged draw, which would otherwise be recorded with the
/// new value. Colour = blend colour (CONSTANT_COLOR, ZERO on white).
/// Draw 1 covers column 0 (x 0..4), draw 2 column 1 (4..8), from one
/// vertex buffer by `start`, except:
/// - `blend_color`: red, then green;
/// - `viewport`: the second viewport moves 8 pixels right (column 3);
/// - `scissor`: the second scissor keeps the top half;
/// - `vertex_buffers`: both draw vertices 0..6, the second from another
///   buffer holding column 1.
fn per_draw_call(ctx: &mut TestContext, which: &str) -> R {
    let mut e = crate::harness::env(ctx, false)?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    crate::harness::bind_rasterizer(&mut e, |r| r.scissor = true)?;
    let bs = BlendState {
        rt: [RtBlendState {
            blend_enable: true,
            rgb_func: BlendFunc::Add,
            rgb_src_factor: BlendFactor::ConstColor,
            rgb_dst_factor: BlendFactor::Zero,
            alpha_func: BlendFunc::Add,
            alpha_src_factor: BlendFactor::ConstAlpha,
            alpha_dst_factor: BlendFactor::Zero,
            colormask: ColorMask::RGBA,
        }; MAX_COLOR_BUFS],
        ..Default::default()
    };
    let h = step("blend", e.ctx.create_blend_state(&bs))?;
    step("bind blend", e.ctx.bind_blend_state(Some(h)))?;
    let scissor = |e: &mut Env, maxy: u16| {
        let sc = ScissorState {
            minx: 0,
            miny: 0,
            maxx: 16,
            maxy,
        };
        step("set_scissor_states", e.ctx.set_scissor_states(0, &[sc]))
    };
    let viewport = |e: &mut Env, dx: f32| {
        let vp = ViewportState {
            scale: [8.0, 8.0, 1.0],
            translate: [8.0 + dx, 8.0, 0.0],
            swizzle: Default::default(),
        };
        step("set_viewport_states", e.ctx.set_viewport_states(0, &[vp]))
    };
    let blend = |e: &mut Env, c: [f32; 4]| {
        step(
            "set_blend_color",
            e.ctx.set_blend_color(&BlendColor { color: c }),
        )
    };
    let (red, green) = ([1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 1.0]);
    scissor(&mut e, 16)?;
    viewport(&mut e, 0.0)?;
    blend(&mut e, red)?;
    clear_color(&mut e, [0.0; 4])?;
    crate::harness::set_color(&mut e, [1.0; 4])?;
    let both = [rect(0, 0, 4, 16), rect(4, 0, 8, 16)].concat();
    if which == "vertex_buffers" {
        bind_vertices(&mut e, &rect(0, 0, 4, 16), None)?;
    } else {
        bind_vertices(&mut e, &both, None)?;
    }
    draw(&mut e, PrimType::Triangles, 0, 6, 1)?;
    let second = match which {
        "blend_color" => {
            blend(&mut e, green)?;
            6
        }
        "viewport" => {
            viewport(&mut e, 8.0)?;
            6
        }
        "scissor" => {
            scissor(&mut e, 8)?;
            6
        }
        _ => {
            let vb = VertexBuffer {
                buffer: Some(VertexBufferSource::User(std::sync::Arc::from(
                    crate::harness::f32s(&rect(4, 0, 8, 16)),
                ))),
                buffer_offset: 0,
            };
            step("set_vertex_buffers", e.ctx.set_vertex_buffers(&[vb]))?;
            0
        }
    };
    draw(&mut e, PrimType::Triangles, second, 6, 1)?;
    check_image(ctx, &mut e, &t, |x, y| {
        let c = match (which, x / 4) {
            (_, 0) => red,
            ("blend_color", 1) => green,
            ("viewport", 3) => red,
            ("scissor", 1) if y < 8 => red,
            ("vertex_buffers", 1) => red,
            _ => [0.0; 4],
        };
        Some(unorm(c))
    })
}
macro_rules! per_draw_cases {
    ($($name:literal),+ $(,)?) => {$(
        const _: () = {
            fn run(ctx: &mut TestContext) -> Outcome {
                Outcome::from_result(per_draw_call(ctx, $name))
            }
            test_case!(name = concat!("pipe.draw.dynamic_state.per_draw_call.", $name), run);
        };
    )+};
}
per_draw_cases!("blend_color", "viewport", "scissor", "vertex_buffers");
