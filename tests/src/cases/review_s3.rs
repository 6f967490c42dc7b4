//! `pipe.draw.review_s3.*`: cases from a review of depth clip, dynamic vertex
//! input, dynamic sample state and quads/polygons in polygon mode `LINE`
//! and `POINT` (`pipe_vk::prim::Edges`). Each compares read-back pixels
//! with what GL draws, computed here.
//!
//! Vertices sit on pixel centres of the 16x16 target (as in
//! `polygon_mode`), so axis-aligned outlines light exactly the pixels
//! between their corners.

use pipe_core::draw::PrimType;
use pipe_core::state::*;

use crate::cases::draw::{bind_vertices, check_image, clear_color, draw, setup};
use crate::harness::{
    bind_program, bind_rasterizer, env, f32s, set_color, step, unorm, Env, FS_UBO_COLOR,
    VS_PASSTHROUGH,
};
use crate::{test_case, Outcome, TestContext};

type R = Result<(), Outcome>;

use crate::cases::polygon_mode::{on_rect, px, verts, COLOR};

/// Registers `pipe.draw.review_s3.polygon_mode.<name>` and
/// `<name>_first` for `body(ctx, first)`: the provoking-vertex
/// conventions, which split quads and polygons differently.
macro_rules! both_conventions {
    ($name:literal, $body:path) => {
        crate::bool_cases!(
            $body,
            concat!("pipe.draw.review_s3.polygon_mode.", $name),
            concat!("pipe.draw.review_s3.polygon_mode.", $name, "_first"),
        );
    };
}

/// A polygon whose first three vertices are collinear, in polygon mode
/// `LINE`: the rectangle (2, 2)-(12, 12) with an extra vertex in the
/// middle of its bottom side, listed first-side first. GL outlines the
/// polygon, bottom side included. Split into a fan from vertex 0, the
/// first triangle (p0 p1 p2) has no area: a rasterizer that drops it in
/// line mode loses the bottom side, which only that triangle carries.
/// `first`: the provoking-vertex convention (the fan's order differs).
fn degenerate_polygon_line(ctx: &mut TestContext, first: bool) -> R {
    let mut e = env(ctx, false)?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    bind_rasterizer(&mut e, |r| {
        r.fill_front = PolygonMode::Line;
        r.fill_back = PolygonMode::Line;
        r.flatshade_first = first;
    })?;
    clear_color(&mut e, [0.0; 4])?;
    set_color(&mut e, COLOR)?;
    let v = [(2, 2), (7, 2), (12, 2), (12, 12), (2, 12)];
    bind_vertices(&mut e, &verts(&v), None)?;
    draw(&mut e, PrimType::Polygon, 0, v.len() as u32, 1)?;
    check_image(ctx, &mut e, &t, |x, y| {
        Some(if on_rect(x, y, (2, 2, 12, 12)) {
            unorm(COLOR)
        } else {
            [0; 4].into()
        })
    })
}

both_conventions!("degenerate_fan_line", degenerate_polygon_line);

/// A quad in polygon mode `POINT` with the rasterizer's point size 3
/// (`point_size_per_vertex` off, the vertex shader writes none): GL draws
/// each of the 4 vertices as a 3x3 square around its pixel.
fn quad_point_size(ctx: &mut TestContext) -> R {
    let mut e = crate::harness::env(ctx, false)?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    bind_rasterizer(&mut e, |r| {
        r.fill_front = PolygonMode::Point;
        r.fill_back = PolygonMode::Point;
        r.point_size = 3.0;
    })?;
    clear_color(&mut e, [0.0; 4])?;
    set_color(&mut e, COLOR)?;
    let v = [(3, 3), (12, 3), (12, 12), (3, 12)];
    bind_vertices(&mut e, &verts(&v), None)?;
    draw(&mut e, PrimType::Quads, 0, 4, 1)?;
    check_image(ctx, &mut e, &t, |x, y| {
        let near = v
            .iter()
            .any(|&(vx, vy): &(u32, u32)| x.abs_diff(vx) <= 1 && y.abs_diff(vy) <= 1);
        Some(if near { unorm(COLOR) } else { [0; 4].into() })
    })
}

crate::result_case!(
    "pipe.draw.review_s3.polygon_mode.quad_point_size",
    quad_point_size
);

/// Two quads in polygon mode `LINE` with user clip plane 0 = (1, 0, 0, 0)
/// (keeps clip-space x >= 0, pixel centres x >= 8): GL draws the parts of
/// the outlines right of the plane. Pixels 7 and 8, next to the plane,
/// are left out (where a clipped line starts is the rasterizer's call).
fn quads_line_clip_plane(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    bind_rasterizer(&mut e, |r| {
        r.fill_front = PolygonMode::Line;
        r.fill_back = PolygonMode::Line;
        r.clip_plane_enable = 1;
    })?;
    let mut clip = ClipState::default();
    clip.ucp[0] = [1.0, 0.0, 0.0, 0.0];
    step("set_clip_state", e.ctx.set_clip_state(&clip))?;
    clear_color(&mut e, [0.0; 4])?;
    set_color(&mut e, COLOR)?;
    // Quad A (2, 2)-(13, 6) crosses the plane, quad B (2, 9)-(6, 13) lies
    // left of it.
    let v = [
        (2, 2),
        (13, 2),
        (13, 6),
        (2, 6),
        (2, 9),
        (6, 9),
        (6, 13),
        (2, 13),
    ];
    bind_vertices(&mut e, &verts(&v), None)?;
    draw(&mut e, PrimType::Quads, 0, 8, 1)?;
    check_image(ctx, &mut e, &t, |x, y| {
        if x == 7 || x == 8 {
            return None;
        }
        Some(if x > 8 && on_rect(x, y, (2, 2, 13, 6)) {
            unorm(COLOR)
        } else {
            [0; 4].into()
        })
    })
}

crate::result_case!(
    "pipe.draw.review_s3.polygon_mode.quads_line_clip_plane",
    quads_line_clip_plane
);

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

/// Binds interleaved position and colour vertices (8 floats each).
fn bind_pos_col(e: &mut Env, data: &[f32]) -> R {
    let elem = |off: u32, loc_buf: u8| VertexElement {
        src_offset: off,
        src_stride: 32,
        vertex_buffer_index: loc_buf,
        dual_slot: false,
        src_format: pipe_core::Format::R32G32B32A32Float,
        instance_divisor: 0,
    };
    let ve = step(
        "vertex elements",
        e.ctx
            .create_vertex_elements_state(&[elem(0, 0), elem(16, 0)]),
    )?;
    step("bind velems", e.ctx.bind_vertex_elements_state(Some(ve)))?;
    step(
        "set_vertex_buffers",
        e.ctx.set_vertex_buffers(&[VertexBuffer {
            buffer: Some(VertexBufferSource::User(std::sync::Arc::from(f32s(data)))),
            buffer_offset: 0,
        }]),
    )
}

/// A quad in polygon mode `LINE` with flat-shaded per-vertex colours:
/// GL draws every edge in the colour of the quad's provoking vertex
/// (the fourth vertex, or with `flatshade_first` the first).
fn quad_line_flat(ctx: &mut TestContext, first: bool) -> R {
    let mut e = env(ctx, false)?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_FLAT, FS_FLAT)?;
    bind_rasterizer(&mut e, |r| {
        r.fill_front = PolygonMode::Line;
        r.fill_back = PolygonMode::Line;
        r.flatshade_first = first;
    })?;
    clear_color(&mut e, [0.0; 4])?;
    let cols = [
        [1.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, 1.0],
        [0.0, 0.0, 1.0, 1.0],
        [1.0, 1.0, 0.0, 1.0],
    ];
    let v = [(3, 3), (12, 3), (12, 12), (3, 12)];
    let data: Vec<f32> = v
        .iter()
        .zip(cols)
        .flat_map(|(&(x, y), c)| px(x, y).into_iter().chain(c))
        .collect();
    bind_pos_col(&mut e, &data)?;
    draw(&mut e, PrimType::Quads, 0, 4, 1)?;
    let want = if first { cols[0] } else { cols[3] };
    check_image(ctx, &mut e, &t, |x, y| {
        Some(if on_rect(x, y, (3, 3, 12, 12)) {
            unorm(want)
        } else {
            [0; 4].into()
        })
    })
}

both_conventions!("quad_line_flat", quad_line_flat);

/// A quad (3, 3)-(12, 12) in polygon mode `LINE` with 3-pixel lines: GL
/// draws the four sides 3 pixels wide (x-major sides as vertical spans
/// of 3, y-major ones as horizontal spans) and nothing inside them. The
/// pixels within 1 of a corner are left out (where wide lines end is the
/// rasterizer's call).
fn quad_line_wide(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    if e.screen.caps().max_line_width < 3.0 {
        return Err(Outcome::skip("no 3-pixel lines"));
    }
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    bind_rasterizer(&mut e, |r| {
        r.fill_front = PolygonMode::Line;
        r.fill_back = PolygonMode::Line;
        r.line_width = 3.0;
    })?;
    clear_color(&mut e, [0.0; 4])?;
    set_color(&mut e, COLOR)?;
    let v = [(3, 3), (12, 3), (12, 12), (3, 12)];
    bind_vertices(&mut e, &verts(&v), None)?;
    draw(&mut e, PrimType::Quads, 0, 4, 1)?;
    check_image(ctx, &mut e, &t, |x, y| {
        let corner = [(3, 3), (12, 3), (12, 12), (3, 12)]
            .iter()
            .any(|&(cx, cy): &(u32, u32)| x.abs_diff(cx) <= 1 && y.abs_diff(cy) <= 1);
        if corner {
            return None;
        }
        let band = |p: u32, a: u32| p.abs_diff(a) <= 1;
        let lit = ((4..=10).contains(&x) && (band(y, 3) || band(y, 12)))
            || ((4..=10).contains(&y) && (band(x, 3) || band(x, 12)));
        Some(if lit { unorm(COLOR) } else { [0; 4].into() })
    })
}

crate::result_case!(
    "pipe.draw.review_s3.polygon_mode.quad_line_wide",
    quad_line_wide
);

/// Two-sided colour (`light_twoside`) with quads in polygon mode `LINE`:
/// the vertex shader writes a front colour and a back colour (slot
/// `bfc0`); quad A (2, 2)-(6, 12) faces front, quad B (9, 2)-(13, 12) is
/// wound the other way. GL outlines A in the front colour and B in the
/// back colour, without diagonals.
fn quads_line_two_side(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    let t = setup(&mut e, false)?;
    bind_program(
        &mut e,
        crate::cases::rast_prim::VS_BACK_COLOR,
        crate::cases::rast_prim::FS_COLOR_VARYING,
    )?;
    bind_rasterizer(&mut e, |r| {
        r.fill_front = PolygonMode::Line;
        r.fill_back = PolygonMode::Line;
        r.light_twoside = true;
    })?;
    clear_color(&mut e, [0.0; 4])?;
    let v = [
        (2, 2),
        (6, 2),
        (6, 12),
        (2, 12),
        (9, 2),
        (9, 12),
        (13, 12),
        (13, 2),
    ];
    bind_vertices(&mut e, &verts(&v), None)?;
    draw(&mut e, PrimType::Quads, 0, 8, 1)?;
    // Which winding is front depends on the y direction; GL's default
    // is counter-clockwise in window coordinates with y up, and the
    // frontend's viewport decides. Take quad A's colour as the front one.
    let front = unorm([1.0, 0.5, 0.0, 1.0]);
    let back = unorm([0.0, 0.0, 1.0, 1.0]);
    let got = e.read_texture(
        &t.color,
        0,
        &pipe_core::resource::PipeBox::rect(0, 0, 16, 16),
    )?;
    let at = |x: u32, y: u32| {
        let i = ((y * 16 + x) * 4) as usize;
        [got[i], got[i + 1], got[i + 2], got[i + 3]]
    };
    // UNORM conversion may give either integer next to 127.5 (the
    // spec's "one of the two closest"): `front` accepts both.
    let (ca, cb) = if front.contains(at(4, 2)) {
        (front, back)
    } else {
        (back, front)
    };
    check_image(ctx, &mut e, &t, |x, y| {
        Some(if on_rect(x, y, (2, 2, 6, 12)) {
            ca
        } else if on_rect(x, y, (9, 2, 13, 12)) {
            cb
        } else {
            [0; 4].into()
        })
    })
}

crate::result_case!(
    "pipe.draw.review_s3.polygon_mode.quads_line_two_side",
    quads_line_two_side
);

/// Stream output of quads drawn in polygon mode `LINE` (the generated
/// polygon-edge geometry shader is then the last vertex stage): the
/// capture is that of the same draw in mode `FILL` (polygon mode acts
/// after stream output), two triangles of 3 vertices per quad, and the
/// rest of the buffer is untouched. Both with and without
/// `rasterizer_discard`.
fn quads_line_streamout(ctx: &mut TestContext, discard: bool) -> R {
    use pipe_core::flags::MapFlags;
    use pipe_core::resource::{BindFlags, ResourceTemplate};
    use pipe_core::shader::{StreamOutput, StreamOutputInfo};
    const SENTINEL: u32 = 0xdead_beef;
    const VS: &str = "shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
out @a : f32x4 location=0
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  %1 : f32x4 = const 1.0, 2.0, 3.0, 4.0
  %2 : f32x4 = fadd %0, %1
  store @a, %2
}
";
    let mut e = env(ctx, false)?;
    if !e.screen.caps().stream_output {
        return Err(Outcome::skip("no stream output"));
    }
    let _t = setup(&mut e, false)?;
    let mut st = crate::harness::shader(ShaderStage::Vertex, VS)?;
    st.stream_output = StreamOutputInfo {
        stride: [4, 0, 0, 0],
        output: vec![StreamOutput {
            register_index: 1,
            start_component: 0,
            num_components: 4,
            output_buffer: 0,
            dst_offset: 0,
            stream: 0,
        }],
    };
    let vs = step("create_vs_state", e.ctx.create_vs_state(&st))?;
    step("bind_vs_state", e.ctx.bind_vs_state(Some(vs)))?;
    let fs = step(
        "create_fs_state",
        e.ctx.create_fs_state(&crate::harness::shader(
            ShaderStage::Fragment,
            FS_UBO_COLOR,
        )?),
    )?;
    step("bind_fs_state", e.ctx.bind_fs_state(Some(fs)))?;
    set_color(&mut e, COLOR)?;
    let v = [
        (2, 2),
        (6, 2),
        (6, 12),
        (2, 12),
        (9, 2),
        (13, 2),
        (13, 12),
        (9, 12),
    ];
    bind_vertices(&mut e, &verts(&v), None)?;
    let capture = |e: &mut Env, mode: PolygonMode| -> Result<Vec<u32>, Outcome> {
        bind_rasterizer(e, |r| {
            r.fill_front = mode;
            r.fill_back = mode;
            r.rasterizer_discard = discard;
        })?;
        let size = 16 * 16;
        let t = ResourceTemplate::buffer(size, BindFlags::STREAM_OUTPUT | BindFlags::VERTEX_BUFFER);
        let b = step("resource_create", e.screen.resource_create(&t))?;
        let fill: Vec<u8> = (0..size / 4).flat_map(|_| SENTINEL.to_le_bytes()).collect();
        step(
            "buffer_subdata",
            e.ctx.buffer_subdata(&b, MapFlags::empty(), 0, &fill),
        )?;
        let target = step(
            "create_stream_output_target",
            e.ctx.create_stream_output_target(&b, 0, size),
        )?;
        step(
            "set_stream_output_targets",
            e.ctx.set_stream_output_targets(&[Some(target)], &[Some(0)]),
        )?;
        draw(e, PrimType::Quads, 0, 8, 1)?;
        step(
            "set_stream_output_targets",
            e.ctx.set_stream_output_targets(&[], &[]),
        )?;
        let bytes = e.read_buffer(&b, 0, size)?;
        Ok(bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    };
    let fill = capture(&mut e, PolygonMode::Fill)?;
    let line = capture(&mut e, PolygonMode::Line)?;
    // 12 vertices of 4 words, then sentinels.
    let words = 12 * 4;
    if fill[words - 1] == SENTINEL || fill[words] != SENTINEL {
        return Err(Outcome::fail("fill-mode capture is not 12 vertices"));
    }
    // Every captured vertex is one of the quads' (a = pos + (1, 2, 3, 4)).
    for rec in fill[..words].chunks(4) {
        let a: Vec<f32> = rec.iter().map(|w| f32::from_bits(*w)).collect();
        let pos = [a[0] - 1.0, a[1] - 2.0, a[2] - 3.0, a[3] - 4.0];
        if !v
            .iter()
            .any(|&(x, y)| px(x, y).iter().zip(pos).all(|(p, q)| (p - q).abs() < 1e-5))
        {
            return Err(Outcome::fail(format!("fill capture has {a:?}")));
        }
    }
    if let Some(i) = (0..fill.len()).find(|&i| fill[i] != line[i]) {
        return Err(Outcome::fail(format!(
            "line-mode capture differs at word {i}: {:#x}, fill {:#x}",
            line[i], fill[i]
        )));
    }
    Ok(())
}

crate::bool_cases!(
    quads_line_streamout,
    "pipe.draw.review_s3.polygon_mode.quads_line_streamout",
    "pipe.draw.review_s3.polygon_mode.quads_line_streamout_discard"
);

/// A quad whose last two vertices coincide (a triangle given as a quad),
/// in polygon mode `POINT` with additive blending of 0.25: GL draws each
/// of the 4 vertices once, so the pixel of the coinciding pair gets 0.5
/// and the other two 0.25. `first`: the provoking-vertex convention.
fn quad_point_coincident(ctx: &mut TestContext, first: bool) -> R {
    let mut e = crate::harness::env(ctx, false)?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    bind_rasterizer(&mut e, |r| {
        r.fill_front = PolygonMode::Point;
        r.fill_back = PolygonMode::Point;
        r.flatshade_first = first;
    })?;
    let mut bs = BlendState::default();
    bs.rt[0] = crate::harness::RT_ADDITIVE;
    let h = step("blend", e.ctx.create_blend_state(&bs))?;
    step("bind blend", e.ctx.bind_blend_state(Some(h)))?;
    clear_color(&mut e, [0.0; 4])?;
    let c = [0.25; 4];
    set_color(&mut e, c)?;
    let v = [(3, 3), (12, 3), (12, 12), (12, 12)];
    bind_vertices(&mut e, &verts(&v), None)?;
    draw(&mut e, PrimType::Quads, 0, 4, 1)?;
    check_image(ctx, &mut e, &t, |x, y| {
        let k = v.iter().filter(|&&p| p == (x, y)).count() as f32;
        Some(unorm(c.map(|c| c * k)))
    })
}

both_conventions!("quad_point_coincident", quad_point_coincident);

/// Alpha-to-coverage on with no fragment shader bound (a depth-only pass
/// of an application that left the blend state on), 4x colour and depth
/// buffers: the draw writes depth (depth test ALWAYS), which a resolve
/// of nothing cannot show, so the case checks that it draws without
/// error or validation message, on a screen with the multisample state
/// dynamic or baked.
fn a2c_no_fs(ctx: &mut TestContext, dynamic: bool) -> R {
    use pipe_core::resource::{BindFlags, ResourceTemplate};
    use pipe_core::view::SurfaceTemplate;
    let mut e = crate::harness::env_with(ctx, |o| o.no_dynamic_rasterizer = Some(!dynamic))?;
    let surf = |e: &mut Env, f: pipe_core::Format, bind: BindFlags| {
        let mut t = ResourceTemplate::texture_2d(f, 16, 16, bind);
        t.nr_samples = 4;
        let r = e.texture(&t)?;
        step(
            "surface",
            e.ctx.create_surface(
                &r,
                &SurfaceTemplate {
                    format: f,
                    level: 0,
                    first_layer: 0,
                    last_layer: 0,
                },
            ),
        )
    };
    let cs = surf(
        &mut e,
        pipe_core::Format::R8G8B8A8Unorm,
        BindFlags::RENDER_TARGET,
    )?;
    let zs = surf(
        &mut e,
        pipe_core::Format::Z32Float,
        BindFlags::DEPTH_STENCIL,
    )?;
    let fb = FramebufferState {
        width: 16,
        height: 16,
        layers: 1,
        samples: 4,
        cbufs: vec![Some(cs)],
        zsbuf: Some(zs),
        resolve: None,
    };
    step("set_framebuffer_state", e.ctx.set_framebuffer_state(&fb))?;
    let vs = step(
        "create_vs_state",
        e.ctx.create_vs_state(&crate::harness::shader(
            ShaderStage::Vertex,
            VS_PASSTHROUGH,
        )?),
    )?;
    step("bind_vs_state", e.ctx.bind_vs_state(Some(vs)))?;
    step("bind_fs_state", e.ctx.bind_fs_state(None))?;
    bind_rasterizer(&mut e, |_| {})?;
    let mut bs = BlendState {
        alpha_to_coverage: true,
        ..Default::default()
    };
    bs.rt[0].colormask = ColorMask::RGBA;
    let h = step("blend", e.ctx.create_blend_state(&bs))?;
    step("bind blend", e.ctx.bind_blend_state(Some(h)))?;
    let dsa = DepthStencilAlphaState {
        depth_enabled: true,
        depth_writemask: true,
        depth_func: CompareFunc::Always,
        ..Default::default()
    };
    let h = step("dsa", e.ctx.create_depth_stencil_alpha_state(&dsa))?;
    step("bind dsa", e.ctx.bind_depth_stencil_alpha_state(Some(h)))?;
    let tri = [
        -1.0, -1.0, 0.5, 1.0, 3.0, -1.0, 0.5, 1.0, -1.0, 3.0, 0.5, 1.0,
    ];
    bind_vertices(&mut e, &tri, None)?;
    draw(&mut e, PrimType::Triangles, 0, 3, 1)?;
    e.finish()
}

const _: () = {
    fn dynamic(ctx: &mut TestContext) -> Outcome {
        Outcome::from_result(a2c_no_fs(ctx, true))
    }
    fn baked(ctx: &mut TestContext) -> Outcome {
        Outcome::from_result(a2c_no_fs(ctx, false))
    }
    test_case!(name = "pipe.draw.review_s3.msaa.a2c_no_fs.dynamic", dynamic);
    test_case!(name = "pipe.draw.review_s3.msaa.a2c_no_fs.baked", baked);
};

/// GL's polygon offset applies per polygon mode: `offset_tri`
/// (GL_POLYGON_OFFSET_FILL) to polygons drawn filled, `offset_line` to
/// polygons drawn in mode `LINE`, `offset_point` in mode `POINT`. A quad
/// (2, 2)-(13, 13) at depth 0.5 is drawn filled (colour A, no offset),
/// then the quad (3, 3)-(12, 12) at depth 0.5 in polygon mode `LINE`
/// (colour B) with depth test LEQUAL and a large offset enabled for one
/// polygon mode only (`which`: 0 fill, 1 line). GL offsets the outline
/// only when the line offset is on: then it fails the depth test and the
/// outline stays A; else it passes and is B. Inside, A; outside the
/// filled quad, black (its edge pixels, where tie-breaking decides, are
/// left out).
///
/// `triangles`: the line-mode quad is two triangles (diagonal (3, 3) to
/// (12, 12)) instead of a quad, so no generated geometry shader hides
/// the diagonal: with the line offset the diagonal is hidden by the
/// depth test too and the inside stays A; without it the inside is not
/// compared.
fn offset_per_mode(ctx: &mut TestContext, which: u8, dynamic: bool, triangles: bool) -> R {
    let mut e = crate::harness::env_with(ctx, |o| o.no_dynamic_rasterizer = Some(!dynamic))?;
    let t = setup(&mut e, true)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    let dsa = DepthStencilAlphaState {
        depth_enabled: true,
        depth_writemask: true,
        depth_func: CompareFunc::LEqual,
        ..Default::default()
    };
    let h = step("dsa", e.ctx.create_depth_stencil_alpha_state(&dsa))?;
    step("bind dsa", e.ctx.bind_depth_stencil_alpha_state(Some(h)))?;
    clear_color(&mut e, [0.0; 4])?;
    let quad = |x0: u32, x1: u32| -> Vec<f32> {
        [(x0, x0), (x1, x0), (x1, x1), (x0, x1)]
            .iter()
            .flat_map(|&(x, y)| {
                let mut p = px(x, y);
                p[2] = 0.5;
                p
            })
            .collect()
    };
    let a = [0.0, 1.0, 0.0, 1.0];
    let b = [1.0, 0.0, 1.0, 1.0];
    bind_rasterizer(&mut e, |_| {})?;
    set_color(&mut e, a)?;
    bind_vertices(&mut e, &quad(2, 13), None)?;
    draw(&mut e, PrimType::Quads, 0, 4, 1)?;
    bind_rasterizer(&mut e, |r| {
        r.fill_front = PolygonMode::Line;
        r.fill_back = PolygonMode::Line;
        r.offset_tri = which == 0;
        r.offset_line = which == 1;
        r.offset_units = 1000.0;
        r.offset_scale = 0.0;
    })?;
    set_color(&mut e, b)?;
    let line_offset = which == 1;
    if triangles {
        let q = quad(3, 12);
        let v = |i: usize| q[4 * i..4 * i + 4].to_vec();
        let tris = [v(0), v(1), v(2), v(0), v(2), v(3)].concat();
        bind_vertices(&mut e, &tris, None)?;
        draw(&mut e, PrimType::Triangles, 0, 6, 1)?;
    } else {
        bind_vertices(&mut e, &quad(3, 12), None)?;
        draw(&mut e, PrimType::Quads, 0, 4, 1)?;
    }
    check_image(ctx, &mut e, &t, |x, y| {
        if on_rect(x, y, (2, 2, 13, 13)) {
            return None;
        }
        Some(if on_rect(x, y, (3, 3, 12, 12)) {
            unorm(if line_offset { a } else { b })
        } else if (3..13).contains(&x) && (3..13).contains(&y) {
            if triangles && !line_offset {
                return None;
            }
            unorm(a)
        } else {
            [0; 4].into()
        })
    })
}

macro_rules! offset_cases {
    ($($name:literal => ($which:expr, $dynamic:expr, $triangles:expr)),+ $(,)?) => {
        $(
            const _: () = {
                fn run(ctx: &mut TestContext) -> Outcome {
                    Outcome::from_result(offset_per_mode(ctx, $which, $dynamic, $triangles))
                }
                test_case!(name = concat!("pipe.draw.review_s3.polygon_offset.", $name), run);
            };
        )+
    };
}

offset_cases! {
    "fill_only_line_mode.dynamic" => (0, true, false),
    "fill_only_line_mode.baked" => (0, false, false),
    "line_line_mode.dynamic" => (1, true, false),
    "line_line_mode.baked" => (1, false, false),
    "line_line_mode_triangles.dynamic" => (1, true, true),
    "line_line_mode_triangles.baked" => (1, false, true),
    "fill_only_line_mode_triangles.baked" => (0, false, true),
}
