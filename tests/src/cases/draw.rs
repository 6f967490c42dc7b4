//! `pipe.draw.*`: the first rendering tests. Shaders are spirv-gen text IR;
//! expected images are computed here from the geometry: a pixel is covered
//! when its centre lies inside the primitive. Pixels whose centre lies on
//! an edge (where the tie-breaking rule decides) are left out of the
//! comparison, and the tests say so.

use std::sync::Arc;

use pipe_core::draw::{DrawInfo, DrawStartCountBias, IndexSource, PrimType};
use pipe_core::flags::ClearFlags;
use pipe_core::resource::{BindFlags, PipeBox, ResourceFlags, ResourceTemplate};
use pipe_core::shader::{ShaderCode, ShaderState};
use pipe_core::state::*;
use pipe_core::view::SurfaceTemplate;
use pipe_core::{Context, Format, PipeError, Resource};

use crate::harness::{
    bind_program, bind_rasterizer, bind_stage, env, env_with, f32s, set_color, shader, step, unorm,
    Env, FS_UBO_COLOR, VS_PASSTHROUGH,
};
use crate::{both_paths, test_case, Outcome, TestContext};

type R = Result<(), Outcome>;

pub(crate) const W: u32 = 16;
const H: u32 = 16;

/// Position plus an offset, from two vertex inputs.
pub(crate) const VS_OFFSET: &str = "shader vertex
in @pos : f32x4 location=0
in @off : f32x4 location=1
out @gl_pos : f32x4 builtin=position
fn main {
  %0 : f32x4 = load @pos
  %1 : f32x4 = load @off
  %2 : f32x4 = fadd %0, %1
  store @gl_pos, %2
}
";

/// A 16x16 RGBA8 render target bound as the only colour buffer (and
/// optionally a Z32F depth buffer), with a full viewport.
pub(crate) struct Target {
    pub(crate) color: Resource,
    pub(crate) depth: Option<Resource>,
}

pub(crate) fn setup(e: &mut Env, with_depth: bool) -> Result<Target, Outcome> {
    setup_bind(e, with_depth, BindFlags::empty())
}

/// [`setup`] with `extra` bind flags on the colour buffer.
fn setup_bind(e: &mut Env, with_depth: bool, extra: BindFlags) -> Result<Target, Outcome> {
    let t = ResourceTemplate::texture_2d(
        Format::R8G8B8A8Unorm,
        W,
        H,
        BindFlags::RENDER_TARGET | BindFlags::SAMPLER_VIEW | extra,
    );
    let color = e.texture(&t)?;
    let cs = step(
        "surface",
        e.ctx.create_surface(
            &color,
            &SurfaceTemplate {
                format: t.format,
                level: 0,
                first_layer: 0,
                last_layer: 0,
            },
        ),
    )?;
    let (depth, zs) = if with_depth {
        let zt = ResourceTemplate::texture_2d(Format::Z32Float, W, H, BindFlags::DEPTH_STENCIL);
        let z = e.texture(&zt)?;
        let s = step(
            "depth surface",
            e.ctx.create_surface(
                &z,
                &SurfaceTemplate {
                    format: zt.format,
                    level: 0,
                    first_layer: 0,
                    last_layer: 0,
                },
            ),
        )?;
        (Some(z), Some(s))
    } else {
        (None, None)
    };
    let fb = FramebufferState {
        width: W as u16,
        height: H as u16,
        layers: 1,
        samples: 1,
        cbufs: vec![Some(cs)],
        zsbuf: zs,
        resolve: None,
    };
    step("set_framebuffer_state", e.ctx.set_framebuffer_state(&fb))?;
    let vp = ViewportState {
        scale: [W as f32 / 2.0, H as f32 / 2.0, 1.0],
        translate: [W as f32 / 2.0, H as f32 / 2.0, 0.0],
        swizzle: Default::default(),
    };
    step("viewport", e.ctx.set_viewport_states(0, &[vp]))?;
    let rs = RasterizerState {
        line_width: 1.0,
        clip_halfz: true,
        depth_clip_near: true,
        depth_clip_far: true,
        ..Default::default()
    };
    let h = step("rasterizer", e.ctx.create_rasterizer_state(&rs))?;
    step("bind rasterizer", e.ctx.bind_rasterizer_state(Some(h)))?;
    Ok(Target { color, depth })
}

/// Binds `verts` (x, y, z, w per vertex) as vertex buffer 0 and, when
/// given, per-instance offsets as buffer 1.
pub(crate) fn bind_vertices(e: &mut Env, verts: &[f32], instance_offsets: Option<&[f32]>) -> R {
    let mut elems = vec![VertexElement {
        src_offset: 0,
        src_stride: 16,
        vertex_buffer_index: 0,
        dual_slot: false,
        src_format: Format::R32G32B32A32Float,
        instance_divisor: 0,
    }];
    let mut vbs = vec![VertexBuffer {
        buffer: Some(VertexBufferSource::User(Arc::from(f32s(verts)))),
        buffer_offset: 0,
    }];
    if let Some(off) = instance_offsets {
        elems.push(VertexElement {
            vertex_buffer_index: 1,
            instance_divisor: 1,
            ..elems[0]
        });
        // A real buffer resource this time (the other path).
        let buf = e.buffer((off.len() * 4) as u32, ResourceFlags::empty())?;
        step(
            "subdata",
            e.ctx
                .buffer_subdata(&buf, pipe_core::flags::MapFlags::empty(), 0, &f32s(off)),
        )?;
        vbs.push(VertexBuffer {
            buffer: Some(VertexBufferSource::Resource(buf)),
            buffer_offset: 0,
        });
    }
    let ve = step(
        "vertex elements",
        e.ctx.create_vertex_elements_state(&elems),
    )?;
    step("bind velems", e.ctx.bind_vertex_elements_state(Some(ve)))?;
    step("set_vertex_buffers", e.ctx.set_vertex_buffers(&vbs))
}

/// Binds one vec4 attribute per stream, stream i at location i from user
/// vertex buffer i, with the given instance divisor (0: per vertex).
pub(crate) fn bind_vec4_streams(e: &mut Env, streams: &[(&[f32], u32)]) -> R {
    let elems: Vec<VertexElement> = (0..streams.len())
        .map(|i| VertexElement {
            src_offset: 0,
            src_stride: 16,
            vertex_buffer_index: i as u8,
            dual_slot: false,
            src_format: Format::R32G32B32A32Float,
            instance_divisor: streams[i].1,
        })
        .collect();
    let ve = step("velems", e.ctx.create_vertex_elements_state(&elems))?;
    step("bind velems", e.ctx.bind_vertex_elements_state(Some(ve)))?;
    let vbs: Vec<VertexBuffer> = streams
        .iter()
        .map(|(data, _)| VertexBuffer {
            buffer: Some(VertexBufferSource::User(Arc::from(f32s(data)))),
            buffer_offset: 0,
        })
        .collect();
    step("vbufs", e.ctx.set_vertex_buffers(&vbs))
}

pub(crate) fn clear_color(e: &mut Env, c: [f32; 4]) -> R {
    step(
        "clear",
        e.ctx.clear(
            ClearFlags::COLOR0 | ClearFlags::DEPTH,
            None,
            &ColorUnion::from_f32(c),
            1.0,
            0,
        ),
    )
}

pub(crate) fn draw(e: &mut Env, mode: PrimType, start: u32, count: u32, instances: u32) -> R {
    let info = DrawInfo {
        mode,
        instance_count: instances,
        ..DrawInfo::default()
    };
    step(
        "draw_vbo",
        e.ctx.draw_vbo(
            &info,
            0,
            None,
            &[DrawStartCountBias {
                start,
                count,
                index_bias: 0,
            }],
        ),
    )
}

/// Compares the target with `expect(x, y) -> Some(rgba)`: exact bytes
/// (`[u8; 4]`) or the values a UNORM conversion allows (`unorm(colour)`,
/// an [`Rgba8Range`](crate::image::Rgba8Range)); `None` pixels (edge
/// ties) are skipped. Writes the PNG triple on failure.
pub(crate) fn check_image<P: Into<crate::image::Rgba8Range>>(
    ctx: &TestContext,
    e: &mut Env,
    t: &Target,
    expect: impl Fn(u32, u32) -> Option<P>,
) -> R {
    let got = e.read_texture(&t.color, 0, &PipeBox::rect(0, 0, W, H))?;
    let want = expected_image(&got, W, H, 0, expect);
    match ctx.compare_rgba8_ranges(&got, &want, W, H) {
        Outcome::Pass => Ok(()),
        o => Err(o),
    }
}

/// One expectation per pixel from `expect`, widened by `tolerance`;
/// skipped (`None`) pixels expect exactly the value read back in `got`.
pub(crate) fn expected_image<P: Into<crate::image::Rgba8Range>>(
    got: &[u8],
    w: u32,
    h: u32,
    tolerance: u8,
    expect: impl Fn(u32, u32) -> Option<P>,
) -> Vec<crate::image::Rgba8Range> {
    let mut want = Vec::with_capacity((w * h) as usize);
    for y in 0..h {
        for x in 0..w {
            let i = (y * w + x) as usize * 4;
            want.push(match expect(x, y) {
                Some(px) => px.into().widen([tolerance; 4]),
                None => [got[i], got[i + 1], got[i + 2], got[i + 3]].into(),
            });
        }
    }
    want
}

/// Lower-left half of the target: NDC (-1,-1), (1,-1), (-1,1) map to window
/// (0,0), (16,0), (0,16); pixel centres with x + y + 1 < 16 are inside,
/// = 16 lie on the diagonal edge and are skipped.
fn triangle(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    let red = [1.0, 0.0, 0.0, 1.0];
    let black = [0.0, 0.0, 0.0, 1.0];
    set_color(&mut e, red)?;
    bind_vertices(
        &mut e,
        &[
            -1.0, -1.0, 0.0, 1.0, 1.0, -1.0, 0.0, 1.0, -1.0, 1.0, 0.0, 1.0,
        ],
        None,
    )?;
    clear_color(&mut e, black)?;
    draw(&mut e, PrimType::Triangles, 0, 3, 1)?;
    check_image(ctx, &mut e, &t, |x, y| match x + y + 1 {
        s if s < 16 => Some(unorm(red)),
        16 => None,
        _ => Some(unorm(black)),
    })
}
both_paths!("pipe.draw.triangle.ubo_color", triangle);

/// An indexed quad (two triangles, u16 and u32 indices, user and buffer
/// index data) covering window x 4..12, y 2..10 exactly: no edge ties.
fn indexed_quad(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    let (x0, x1, y0, y1) = (
        4.0 / 8.0 - 1.0,
        12.0 / 8.0 - 1.0,
        2.0 / 8.0 - 1.0,
        10.0 / 8.0 - 1.0,
    );
    bind_vertices(
        &mut e,
        &[
            x0, y0, 0.0, 1.0, x1, y0, 0.0, 1.0, x1, y1, 0.0, 1.0, x0, y1, 0.0, 1.0,
        ],
        None,
    )?;
    let green = [0.0, 1.0, 0.0, 1.0];
    let blue = [0.0, 0.0, 1.0, 1.0];
    clear_color(&mut e, [0.0; 4])?;
    set_color(&mut e, green)?;
    let idx16: Vec<u8> = [0u16, 1, 2, 0, 2, 3]
        .iter()
        .flat_map(|i| i.to_le_bytes())
        .collect();
    let info = DrawInfo {
        index_size: 2,
        index: IndexSource::User(&idx16),
        ..DrawInfo::default()
    };
    step(
        "indexed draw",
        e.ctx.draw_vbo(
            &info,
            0,
            None,
            &[DrawStartCountBias {
                start: 0,
                count: 6,
                index_bias: 0,
            }],
        ),
    )?;
    let inside = |x: u32, y: u32| (4..12).contains(&x) && (2..10).contains(&y);
    check_image(ctx, &mut e, &t, |x, y| {
        Some(if inside(x, y) {
            unorm(green)
        } else {
            [0; 4].into()
        })
    })?;
    // u32 indices from a buffer, only the second triangle (start = 3).
    let ib = e.buffer(24, ResourceFlags::empty())?;
    let idx32: Vec<u8> = [0u32, 1, 2, 0, 2, 3]
        .iter()
        .flat_map(|i| i.to_le_bytes())
        .collect();
    step(
        "index data",
        e.ctx
            .buffer_subdata(&ib, pipe_core::flags::MapFlags::empty(), 0, &idx32),
    )?;
    set_color(&mut e, blue)?;
    let info = DrawInfo {
        index_size: 4,
        index: IndexSource::Resource(ib),
        ..DrawInfo::default()
    };
    step(
        "indexed draw 2",
        e.ctx.draw_vbo(
            &info,
            0,
            None,
            &[DrawStartCountBias {
                start: 3,
                count: 3,
                index_bias: 0,
            }],
        ),
    )?;
    // Second triangle: (x0,y0), (x1,y1), (x0,y1) -> window pixels with
    // (x - 4) < (y - 2) * 1 strictly above the diagonal; on it: skipped.
    check_image(ctx, &mut e, &t, |x, y| {
        if !inside(x, y) {
            return Some([0; 4].into());
        }
        let (u, v) = (x as f32 + 0.5 - 4.0, y as f32 + 0.5 - 2.0);
        if (u - v).abs() < 1e-6 {
            None
        } else if u < v {
            Some(unorm(blue))
        } else {
            Some(unorm(green))
        }
    })
}
both_paths!("pipe.draw.indexed.u16_user_u32_buffer", indexed_quad);

/// Instancing: one quad drawn twice, the second instance moved right by
/// a per-instance attribute (divisor 1).
fn instanced(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_OFFSET, FS_UBO_COLOR)?;
    let (x0, x1, y0, y1) = (-1.0f32, -0.5, -1.0, -0.5); // window 0..4, 0..4
    let quad = [
        x0, y0, 0.0, 1.0, x1, y0, 0.0, 1.0, x1, y1, 0.0, 1.0, x0, y0, 0.0, 1.0, x1, y1, 0.0, 1.0,
        x0, y1, 0.0, 1.0,
    ];
    // Instance 1 moves by 1.0 in NDC x = 8 pixels.
    bind_vertices(
        &mut e,
        &quad,
        Some(&[0.0, 0.0, 0.0, 0.0, 1.0, 0.5, 0.0, 0.0]),
    )?;
    let c = [1.0, 1.0, 0.0, 1.0];
    set_color(&mut e, c)?;
    clear_color(&mut e, [0.0; 4])?;
    draw(&mut e, PrimType::Triangles, 0, 6, 2)?;
    check_image(ctx, &mut e, &t, |x, y| {
        let a = x < 4 && y < 4;
        let b = (8..12).contains(&x) && (4..8).contains(&y);
        Some(if a || b { unorm(c) } else { [0; 4].into() })
    })
}
both_paths!("pipe.draw.instanced.divisor_one", instanced);

/// Depth test LESS with a cleared depth buffer (the clear is the load op):
/// a far quad, then a near one overlapping it, then the far one again.
fn depth_test(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let t = setup(&mut e, true)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    let dsa = DepthStencilAlphaState {
        depth_enabled: true,
        depth_writemask: true,
        depth_func: CompareFunc::Less,
        ..Default::default()
    };
    let h = step("dsa", e.ctx.create_depth_stencil_alpha_state(&dsa))?;
    step("bind dsa", e.ctx.bind_depth_stencil_alpha_state(Some(h)))?;
    let quad = |x0: f32, x1: f32, z: f32| {
        let (y0, y1) = (-1.0f32, 1.0);
        vec![
            x0, y0, z, 1.0, x1, y0, z, 1.0, x1, y1, z, 1.0, x0, y0, z, 1.0, x1, y1, z, 1.0, x0, y1,
            z, 1.0,
        ]
    };
    // Far quad on window x 0..12 (z 0.75), near on 4..16 (z 0.25).
    let mut verts = quad(-1.0, 0.5, 0.75);
    verts.extend(quad(-0.5, 1.0, 0.25));
    bind_vertices(&mut e, &verts, None)?;
    clear_color(&mut e, [0.0; 4])?;
    let (red, green) = ([1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 1.0]);
    set_color(&mut e, red)?;
    draw(&mut e, PrimType::Triangles, 0, 6, 1)?;
    set_color(&mut e, green)?;
    draw(&mut e, PrimType::Triangles, 6, 6, 1)?;
    set_color(&mut e, red)?;
    draw(&mut e, PrimType::Triangles, 0, 6, 1)?;
    check_image(ctx, &mut e, &t, |x, _| {
        Some(if x >= 4 { unorm(green) } else { unorm(red) })
    })?;
    // The depth buffer holds the nearest z.
    let z = e.read_texture(
        t.depth.as_ref().ok_or_else(|| Outcome::fail("no depth"))?,
        0,
        &PipeBox::rect(0, 0, W, 1),
    )?;
    for x in 0..W as usize {
        let v = f32::from_le_bytes([z[x * 4], z[x * 4 + 1], z[x * 4 + 2], z[x * 4 + 3]]);
        let want = if x >= 4 { 0.25 } else { 0.75 };
        if (v - want).abs() > 1e-6 {
            return Err(Outcome::fail(format!(
                "depth at x={x} is {v}, expected {want}"
            )));
        }
    }
    Ok(())
}
both_paths!("pipe.draw.depth.less", depth_test);

/// Blending: (src alpha, 1 - src alpha) over a cleared colour.
fn blend(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    let mut bs = BlendState::default();
    bs.rt[0] = RtBlendState {
        blend_enable: true,
        rgb_func: BlendFunc::Add,
        rgb_src_factor: BlendFactor::SrcAlpha,
        rgb_dst_factor: BlendFactor::InvSrcAlpha,
        alpha_func: BlendFunc::Add,
        alpha_src_factor: BlendFactor::One,
        alpha_dst_factor: BlendFactor::Zero,
        colormask: ColorMask::RGBA,
    };
    let h = step("blend", e.ctx.create_blend_state(&bs))?;
    step("bind blend", e.ctx.bind_blend_state(Some(h)))?;
    bind_vertices(
        &mut e,
        &[
            -1.0, -1.0, 0.0, 1.0, 3.0, -1.0, 0.0, 1.0, -1.0, 3.0, 0.0, 1.0,
        ],
        None,
    )?;
    let dst = [0.0, 0.0, 1.0, 1.0];
    let src = [1.0, 0.0, 0.0, 0.25];
    clear_color(&mut e, dst)?;
    set_color(&mut e, src)?;
    draw(&mut e, PrimType::Triangles, 0, 3, 1)?;
    // 0.25 * src + 0.75 * dst, alpha = src alpha; UNORM8 rounding of each.
    let want = unorm([0.25, 0.0, 0.75, 0.25]).nearest();
    let got = e.read_texture(&t.color, 0, &PipeBox::rect(0, 0, W, H))?;
    for px in got.chunks(4) {
        for c in 0..4 {
            if px[c].abs_diff(want[c]) > 1 {
                return Err(Outcome::fail(format!(
                    "blended {px:?}, expected {want:?} (±1)"
                )));
            }
        }
    }
    Ok(())
}
both_paths!("pipe.draw.blend.src_alpha", blend);

/// Scissor: a full-screen triangle with the scissor test on.
fn scissor(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    let rs = RasterizerState {
        scissor: true,
        line_width: 1.0,
        clip_halfz: true,
        ..Default::default()
    };
    let h = step("rasterizer", e.ctx.create_rasterizer_state(&rs))?;
    step("bind", e.ctx.bind_rasterizer_state(Some(h)))?;
    step(
        "scissor",
        e.ctx.set_scissor_states(
            0,
            &[ScissorState {
                minx: 3,
                miny: 5,
                maxx: 9,
                maxy: 7,
            }],
        ),
    )?;
    bind_vertices(
        &mut e,
        &[
            -1.0, -1.0, 0.0, 1.0, 3.0, -1.0, 0.0, 1.0, -1.0, 3.0, 0.0, 1.0,
        ],
        None,
    )?;
    clear_color(&mut e, [0.0; 4])?;
    let c = [1.0, 1.0, 1.0, 1.0];
    set_color(&mut e, c)?;
    draw(&mut e, PrimType::Triangles, 0, 3, 1)?;
    check_image(ctx, &mut e, &t, |x, y| {
        Some(if (3..9).contains(&x) && (5..7).contains(&y) {
            unorm(c)
        } else {
            [0; 4].into()
        })
    })
}
both_paths!("pipe.draw.scissor.rect", scissor);

/// Bad input: no vertex shader, a topology that needs rewriting.
fn bad_draws(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    setup(&mut e, false)?;
    let one = [DrawStartCountBias {
        start: 0,
        count: 3,
        index_bias: 0,
    }];
    match e.ctx.draw_vbo(&DrawInfo::default(), 0, None, &one) {
        Err(PipeError::InvalidArgument(m)) if m.contains("vertex shader") => {}
        other => {
            return Err(Outcome::fail(format!(
                "draw without shaders gave {:?}",
                other
            )))
        }
    }
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    bind_vertices(&mut e, &[0.0; 16], None)?;
    // Indirect quads read their commands back on the CPU: a command past
    // the end of the buffer is an error, not a wrong picture.
    let ib = e.buffer(64, ResourceFlags::empty())?;
    let ind = pipe_core::draw::DrawIndirectInfo {
        offset: 56,
        draw_count: 1,
        buffer: Some(ib),
        ..Default::default()
    };
    match e.ctx.draw_vbo(
        &DrawInfo {
            mode: PrimType::Quads,
            ..DrawInfo::default()
        },
        0,
        Some(&ind),
        &[],
    ) {
        Err(PipeError::InvalidArgument(_)) => {}
        other => return Err(Outcome::fail(format!("indirect draw gave {:?}", other))),
    }
    // A command with 2^32 - 1 vertices: an error (the rewritten indices
    // would pass `prim::MAX_OUTPUT_INDICES`), not an index array of 24 GiB.
    let huge: Vec<u8> = [u32::MAX, 1, 0, 0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let hb = e.buffer(16, ResourceFlags::empty())?;
    step(
        "subdata",
        e.ctx
            .buffer_subdata(&hb, pipe_core::flags::MapFlags::empty(), 0, &huge),
    )?;
    let ind = pipe_core::draw::DrawIndirectInfo {
        draw_count: 1,
        buffer: Some(hb),
        ..Default::default()
    };
    let quads = DrawInfo {
        mode: PrimType::Quads,
        ..DrawInfo::default()
    };
    match e.ctx.draw_vbo(&quads, 0, Some(&ind), &[]) {
        Err(PipeError::InvalidArgument(_) | PipeError::OutOfMemory) => {}
        other => {
            return Err(Outcome::fail(format!(
                "huge indirect quads gave {:?}",
                other
            )))
        }
    }
    // Vertex elements Vulkan cannot fetch (VUID-vkCmdDraw-None-02721):
    // the screen says it fetches aligned elements only, and refuses the
    // others at the draw; a byte format at an odd offset draws.
    if !e.screen.caps().vertex_attrib_element_aligned_only {
        return Err(Outcome::fail(
            "caps.vertex_attrib_element_aligned_only is false",
        ));
    }
    let vb = e.buffer(4096, ResourceFlags::empty())?;
    let cases = [
        (
            "an odd element offset",
            Format::R32G32B32A32Float,
            2,
            16,
            0,
            false,
        ),
        (
            "an odd buffer offset",
            Format::R32G32B32A32Float,
            0,
            16,
            6,
            false,
        ),
        (
            "a stride of 6 for floats",
            Format::R32G32Float,
            0,
            6,
            0,
            false,
        ),
        (
            "bytes at an odd offset",
            Format::R8G8B8A8Unorm,
            1,
            5,
            3,
            true,
        ),
        ("floats, aligned", Format::R32G32B32A32Float, 4, 20, 8, true),
    ];
    for (what, format, offset, stride, buffer_offset, ok) in cases {
        let ve = step(
            "vertex elements",
            e.ctx.create_vertex_elements_state(&[VertexElement {
                src_offset: offset,
                src_stride: stride,
                src_format: format,
                ..crate::harness::VEC4_ELEMENT
            }]),
        )?;
        step("bind", e.ctx.bind_vertex_elements_state(Some(ve)))?;
        step(
            "set_vertex_buffers",
            e.ctx.set_vertex_buffers(&[VertexBuffer {
                buffer: Some(VertexBufferSource::Resource(vb.clone())),
                buffer_offset,
            }]),
        )?;
        match (e.ctx.draw_vbo(&DrawInfo::default(), 0, None, &one), ok) {
            (Ok(()), true) => {}
            (Err(PipeError::InvalidArgument(m)), false) if m.contains("aligned") => {}
            (other, _) => {
                return Err(Outcome::fail(format!(
                    "a draw with {what} gave {other:?}, want {}",
                    if ok { "Ok" } else { "an alignment error" }
                )))
            }
        }
    }
    // A vertex shader input no element feeds (Vulkan wants an attribute
    // for each): refused, after no elements, and after elements that
    // feed only another location, also right after a draw that could
    // merge with the next (the rebinding path of dynamic vertex input).
    // The API fuzz found these (validation errors where vertex input is
    // baked).
    let ok = |e: &mut Env| -> R {
        bind_vertices(e, &[0.0; 12], None)?;
        step("draw", e.ctx.draw_vbo(&DrawInfo::default(), 0, None, &one))
    };
    let element_at = |slot: u8| VertexElement {
        vertex_buffer_index: slot,
        ..crate::harness::VEC4_ELEMENT
    };
    let two_inputs = VS_OFFSET;
    for (what, vs, elems) in [
        ("no elements", VS_PASSTHROUGH, None),
        (
            "one element for two inputs",
            two_inputs,
            Some(vec![element_at(0)]),
        ),
    ] {
        bind_program(&mut e, vs, FS_UBO_COLOR)?;
        if vs == VS_PASSTHROUGH {
            ok(&mut e)?;
        }
        let ve = match elems {
            Some(els) => Some(step(
                "vertex elements",
                e.ctx.create_vertex_elements_state(&els),
            )?),
            None => None,
        };
        if vs != VS_PASSTHROUGH {
            // Both inputs fed first: the draw merges.
            let both = step(
                "vertex elements",
                e.ctx
                    .create_vertex_elements_state(&[element_at(0), element_at(0)]),
            )?;
            step("bind", e.ctx.bind_vertex_elements_state(Some(both)))?;
            // A buffer resource: user vertex data takes the full path.
            let vb = e.buffer(64, ResourceFlags::empty())?;
            step(
                "set_vertex_buffers",
                e.ctx.set_vertex_buffers(&[VertexBuffer {
                    buffer: Some(VertexBufferSource::Resource(vb)),
                    buffer_offset: 0,
                }]),
            )?;
            step("draw", e.ctx.draw_vbo(&DrawInfo::default(), 0, None, &one))?;
        }
        step("bind", e.ctx.bind_vertex_elements_state(ve))?;
        match e.ctx.draw_vbo(&DrawInfo::default(), 0, None, &one) {
            Err(PipeError::InvalidArgument(m)) if m.contains("no vertex element feeds") => {}
            other => {
                return Err(Outcome::fail(format!(
                    "a draw with {what} gave {other:?}, want an error"
                )))
            }
        }
    }
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    ok(&mut e)?;
    // A shader that is not valid IR is refused when created.
    let bad = "shader vertex\nout @gl_pos : f32x4 builtin=position\nfn main {\n  %0 : f32x4 = load @nope\n  store @gl_pos, %0\n}\n";
    match spirv_gen::text::parse(bad) {
        Err(_) => {}
        Ok(ir) => {
            let st = ShaderState {
                stage: ShaderStage::Vertex,
                code: ShaderCode::Ir(Arc::new(ir)),
                stream_output: Default::default(),
            };
            if !matches!(
                e.ctx.create_vs_state(&st),
                Err(PipeError::InvalidArgument(_))
            ) {
                return Err(Outcome::fail("invalid IR was accepted"));
            }
        }
    }
    Ok(())
}
both_paths!("pipe.draw.validate.bad_input", bad_draws);

/// A fragment shader whose colour outputs' numeric types are not their
/// buffers' (GL: what the draw writes there is undefined; Vulkan wants
/// them to match, and its validation layer warns): output 0 is float,
/// output 1 unsigned. Drawn twice over cleared buffers: into UNORM and
/// UINT buffers (types match: both written), then into UINT and UNORM
/// ones (neither matches: both keep their clear colours, and no
/// validation message). With `baked`, blend state is in the pipelines
/// (`PIPE_VK_DEBUG=no_dynamic_blend`); else it is dynamic state; `.spirv`
/// passes the shaders as SPIR-V (the output types read from the words).
/// The API fuzz (`pipe.api_fuzz`) found the validation warning. Lavapipe
/// keeps a buffer the shader has no output for even where its write mask
/// is not empty, so only the pixels of other devices depend on the mask.
fn mismatched_output_types(ctx: &mut TestContext, baked: bool) -> R {
    const FS: &str = "shader fragment
out @c0 : f32x4 location=0
out @c1 : u32x4 location=1
fn main {
  %0 : f32x4 = const 0.0, 1.0, 0.0, 1.0
  store @c0, %0
  %1 : u32x4 = const 1, 2, 3, 4
  store @c1, %1
}
";
    let mut e = crate::harness::env_with(ctx, |o| o.no_dynamic_blend = Some(baked))?;
    setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS)?;
    bind_vertices(
        &mut e,
        &[
            -1.0, -1.0, 0.0, 1.0, 3.0, -1.0, 0.0, 1.0, -1.0, 3.0, 0.0, 1.0,
        ],
        None,
    )?;
    let unorm_clear = ColorUnion::from_f32([0.0, 0.0, 1.0, 1.0]);
    let uint_clear = ColorUnion::from_u32([9, 9, 9, 9]);
    for swapped in [false, true] {
        let formats = if swapped {
            [Format::R8G8B8A8Uint, Format::R8G8B8A8Unorm]
        } else {
            [Format::R8G8B8A8Unorm, Format::R8G8B8A8Uint]
        };
        let mut texs = Vec::new();
        let mut surfs = Vec::new();
        for f in formats {
            let t = e.texture(&ResourceTemplate::texture_2d(
                f,
                W,
                H,
                BindFlags::RENDER_TARGET | BindFlags::SAMPLER_VIEW,
            ))?;
            let s = e.surface(&t, 0, 0, 0)?;
            let c = if f.is_pure_uint() {
                &uint_clear
            } else {
                &unorm_clear
            };
            crate::harness::clear_surface(&mut e, &s, c, [0, 0, W, H])?;
            texs.push(t);
            surfs.push(Some(s));
        }
        crate::harness::set_framebuffer(&mut e, W as u16, H as u16, surfs, None)?;
        crate::harness::draw_arrays(&mut e, PrimType::Triangles, 0, 3)?;
        let want: [[u8; 4]; 2] = if swapped {
            [[9; 4], [0, 0, 255, 255]]
        } else {
            [[0, 255, 0, 255], [1, 2, 3, 4]]
        };
        for (k, (t, w)) in texs.iter().zip(want).enumerate() {
            let got = e.read_texture(t, 0, &PipeBox::rect(0, 0, W, H))?;
            if let Some(p) = got.chunks_exact(4).find(|p| *p != w) {
                return Err(Outcome::fail(format!(
                    "{}: buffer {k} ({:?}) has {p:?}, want {w:?}",
                    if swapped {
                        "types unlike the outputs'"
                    } else {
                        "matching types"
                    },
                    formats[k]
                )));
            }
        }
    }
    Ok(())
}
const _: () = {
    fn dynamic(ctx: &mut TestContext) -> Outcome {
        Outcome::from_result(mismatched_output_types(ctx, false))
    }
    fn baked(ctx: &mut TestContext) -> Outcome {
        Outcome::from_result(mismatched_output_types(ctx, true))
    }
    test_case!(
        name = "pipe.draw.validate.mismatched_output_types.dynamic_blend",
        dynamic
    );
    fn spirv(ctx: &mut TestContext) -> Outcome {
        crate::harness::as_spirv(|| Outcome::from_result(mismatched_output_types(ctx, false)))
    }
    test_case!(
        name = "pipe.draw.validate.mismatched_output_types.baked_blend",
        baked
    );
    test_case!(
        name = "pipe.draw.validate.mismatched_output_types.spirv",
        spirv
    );
};

/// An unwrapped [`pipe_vk::context::VkContext`] (its counters are readable, which
/// they are not through the trait object) drawing `verts` (vec4
/// positions, user vertex buffer) into a `w` x `h` RGBA8 target with the
/// solid-colour program.
pub(crate) fn unwrapped_triangle_rig(
    screen: &Arc<pipe_vk::VkScreen>,
    w: u32,
    h: u32,
    verts: &[f32],
) -> Result<pipe_vk::context::VkContext, Outcome> {
    unwrapped_triangle_rig_rt(screen, w, h, verts).map(|(c, _)| c)
}

/// [`unwrapped_triangle_rig`], and its render target.
fn unwrapped_triangle_rig_rt(
    screen: &Arc<pipe_vk::VkScreen>,
    w: u32,
    h: u32,
    verts: &[f32],
) -> Result<(pipe_vk::context::VkContext, Resource), Outcome> {
    let mut c = step("context", screen.create_vk_context())?;
    let tex = step(
        "rt",
        pipe_core::Screen::resource_create(
            &**screen,
            &ResourceTemplate::texture_2d(Format::R8G8B8A8Unorm, w, h, BindFlags::RENDER_TARGET),
        ),
    )?;
    let s = step(
        "surface",
        c.create_surface(
            &tex,
            &SurfaceTemplate {
                format: Format::R8G8B8A8Unorm,
                level: 0,
                first_layer: 0,
                last_layer: 0,
            },
        ),
    )?;
    step(
        "fb",
        c.set_framebuffer_state(&FramebufferState {
            width: w as u16,
            height: h as u16,
            layers: 1,
            samples: 1,
            cbufs: vec![Some(s)],
            zsbuf: None,
            resolve: None,
        }),
    )?;
    let v = step(
        "vs",
        c.create_vs_state(&shader(ShaderStage::Vertex, VS_PASSTHROUGH)?),
    )?;
    let f = step(
        "fs",
        c.create_fs_state(&shader(ShaderStage::Fragment, FS_UBO_COLOR)?),
    )?;
    step("bind vs", c.bind_vs_state(Some(v)))?;
    step("bind fs", c.bind_fs_state(Some(f)))?;
    let ve = step(
        "velems",
        c.create_vertex_elements_state(&[crate::harness::VEC4_ELEMENT]),
    )?;
    step("bind velems", c.bind_vertex_elements_state(Some(ve)))?;
    step(
        "vb",
        c.set_vertex_buffers(&[VertexBuffer {
            buffer: Some(VertexBufferSource::User(Arc::from(f32s(verts)))),
            buffer_offset: 0,
        }]),
    )?;
    Ok((c, tex))
}

/// A pipe-vk screen with draw merging on or off, whatever PIPE_VK_DEBUG
/// says (cases that count merged draws).
pub(crate) fn merging_screen(
    ctx: &TestContext,
    merge: bool,
) -> Result<Arc<pipe_vk::VkScreen>, Outcome> {
    let mut opts = crate::harness::options(ctx);
    opts.no_draw_merge = Some(!merge);
    step("screen", pipe_vk::VkScreen::new(&opts))
}

/// One non-indexed draw of `count` vertices from 0 on an unwrapped
/// context.
pub(crate) fn draw_unwrapped(c: &mut pipe_vk::context::VkContext, count: u32) -> R {
    step(
        "draw",
        c.draw_vbo(
            &DrawInfo::default(),
            0,
            None,
            &[DrawStartCountBias {
                start: 0,
                count,
                index_bias: 0,
            }],
        ),
    )
}

/// Clears colour buffer 0 of an unwrapped context to transparent black.
fn clear_unwrapped(c: &mut pipe_vk::context::VkContext) -> R {
    step(
        "clear",
        c.clear(
            ClearFlags::COLOR0,
            None,
            &ColorUnion::from_f32([0.0; 4]),
            0.0,
            0,
        ),
    )
}

/// The two triangles of column `k` of eight (two pixels wide at W = 16),
/// full height, as vec4 positions.
fn column_quad(k: u32) -> Vec<f32> {
    column_quad_at(k, 0.0)
}

/// [`column_quad`] at depth `z`.
pub(crate) fn column_quad_at(k: u32, z: f32) -> Vec<f32> {
    let x0 = -1.0 + k as f32 * 0.25;
    let x1 = x0 + 0.25;
    let v = |x: f32, y: f32| [x, y, z, 1.0];
    [
        v(x0, -1.0),
        v(x1, -1.0),
        v(x0, 1.0),
        v(x1, -1.0),
        v(x1, 1.0),
        v(x0, 1.0),
    ]
    .concat()
}

/// Draws that change only the vertex buffers between them go on
/// without the full path (`pipe_vk::merge::VbRebind`): the new buffers
/// are declared and bound in the open instance. Columns of a 16x16
/// target, each drawn by one draw of six vertices after a
/// `set_vertex_buffers`: column 0 from buffer A, 1 from B at an offset of
/// 96 bytes, 2 from C; then an unbound slot and an offset past B's end
/// (both read the zeroed dummy buffer: nothing drawn); column 3 from user
/// data (the full path uploads it); column 4 from A at 96; column 5 from
/// D, which a copy on the GPU filled before the draws, so its vertex read
/// needs a barrier the open instance cannot hold (the full path ends the
/// instance for it). Columns 6 and 7 stay clear. Each column's colour is
/// checked, so a draw that kept the previous buffers (or drew nothing)
/// fails; syncval checks D's barrier. With VK_EXT_multi_draw, four draws
/// take the rebinding path (2, 3, 5 and 7), counted by the context: the
/// unbound slot's draw is the dummy buffer's first vertex read after its
/// fill, which needs a barrier too. Where buffer uploads are GPU copies
/// (device-local memory without host access, as on discrete GPUs, or
/// `PIPE_VK_DEBUG=staging`) only 5 and 7 do: B's and C's first reads need
/// barriers as well.
fn vertex_buffer_rebind(ctx: &mut TestContext) -> Outcome {
    Outcome::from_result(vertex_buffer_rebind_inner(ctx))
}

fn vertex_buffer_rebind_inner(ctx: &mut TestContext) -> R {
    let screen = merging_screen(ctx, true)?;
    let (mut c, rt) = unwrapped_triangle_rig_rt(&screen, W, H, &[0.0; 12])?;
    crate::harness::set_user_constants_on(
        &mut c,
        ShaderStage::Fragment,
        &f32s(&[0.0, 1.0, 0.0, 1.0]),
    )?;
    let buffer = |c: &mut pipe_vk::context::VkContext, data: &[f32]| -> Result<Resource, Outcome> {
        let bytes = f32s(data);
        let t = ResourceTemplate::buffer(bytes.len() as u32, BindFlags::VERTEX_BUFFER);
        let r = step("buffer", pipe_core::Screen::resource_create(&*screen, &t))?;
        step(
            "buffer_subdata",
            c.buffer_subdata(&r, pipe_core::flags::MapFlags::empty(), 0, &bytes),
        )?;
        Ok(r)
    };
    let junk = [7.0f32; 24];
    let a = buffer(&mut c, &[column_quad(0), column_quad(4)].concat())?;
    let b = buffer(&mut c, &[&junk[..], &column_quad(1)].concat())?;
    let cc = buffer(&mut c, &column_quad(2))?;
    let staged = buffer(&mut c, &column_quad(5))?;
    let d = buffer(&mut c, &[0.0; 24])?;
    step(
        "copy into D",
        c.resource_copy_region(&d, 0, 0, 0, 0, &staged, 0, &PipeBox::range(0, 96)),
    )?;
    clear_unwrapped(&mut c)?;
    let resource = |r: &Resource, offset: u32| VertexBuffer {
        buffer: Some(VertexBufferSource::Resource(r.clone())),
        buffer_offset: offset,
    };
    let sets: Vec<Vec<VertexBuffer>> = vec![
        vec![resource(&a, 0)],
        vec![resource(&b, 96)],
        vec![resource(&cc, 0)],
        vec![],
        vec![resource(&b, 4096)],
        vec![VertexBuffer {
            buffer: Some(VertexBufferSource::User(Arc::from(f32s(&column_quad(3))))),
            buffer_offset: 0,
        }],
        vec![resource(&a, 96)],
        vec![resource(&d, 0)],
    ];
    for vbs in &sets {
        step("set_vertex_buffers", c.set_vertex_buffers(vbs))?;
        draw_unwrapped(&mut c, 6)?;
    }
    let green = [0, 255, 0, 255];
    expect_columns(
        read_columns(&mut c, &rt)?,
        [green, green, green, green, green, green, [0; 4], [0; 4]],
    )?;
    let st = c.stats();
    let want = match (
        pipe_core::Screen::caps(&*screen).multi_draw,
        written_by_cpu(&b)?,
    ) {
        (false, _) => 0,
        // B's and C's uploads were GPU copies too: their first vertex
        // reads need barriers.
        (true, false) => 2,
        (true, true) => 4,
    };
    if st.vb_rebind_draws != want {
        return Err(Outcome::fail(format!(
            "{st:?}: want {want} draws that only rebound vertex buffers"
        )));
    }
    Ok(())
}
/// Whether `buffer_subdata` into `r` wrote its memory from the CPU
/// (host-visible memory, mapped directly). Otherwise the upload was a GPU
/// copy, whose first vertex read needs a barrier: default-usage buffers on
/// a discrete GPU (device-local memory without host access), and every
/// device-local buffer under `PIPE_VK_DEBUG=staging`.
fn written_by_cpu(r: &Resource) -> Result<bool, Outcome> {
    let vk = step("vk_resource", pipe_vk::resource::vk_resource(r))?;
    Ok(vk.obj().mapped.is_some())
}
test_case!(
    name = "pipe.draw.merge.vertex_buffer_rebind",
    vertex_buffer_rebind
);

/// Draws that change only the vertex elements (and vertex buffers)
/// between them, with the same fetch fix-ups, go on without the full
/// path under dynamic vertex input (`pipe_vk::merge::VbRebind`): the new
/// vertex input is recorded and the buffers rebound in the open instance.
/// Columns of a 16x16 target, each drawn by one draw of six vertices:
/// 0. vec4 positions from buffer A (the full path; the merge starts);
/// 1. elements of stride 32 at offset 0, and buffer I, which interleaves
///    columns 1 and 2;
/// 2. the same at offset 16, with no `set_vertex_buffers`: only the
///    elements change, so a draw that kept the old vertex input draws
///    column 1 again;
/// 3. two floats per vertex (z and w read GL's defaults, 0 and 1) from
///    buffer P, stride 8;
/// 4. vec4 positions from slot 1 (A at 96; slot 0 is A, unread);
/// 5. `R16G16B16A16_SSCALED` integers with w = 4, from buffer S;
/// 6. `R32G32_FIXED` (16.16) from buffer F: a fetch fix-up on every
///    device, so a new pipeline (the full path);
/// 7. vec4 positions from A at 192: the fix-ups change back (the full
///    path).
///
/// Each column's colour is checked, and the rebinding draws are counted
/// by the context: steps 1-5 with VK_EXT_multi_draw and dynamic vertex
/// input. Where buffer uploads are GPU copies (discrete GPUs, or
/// `PIPE_VK_DEBUG=staging`) the first reads of I, P and S need barriers (steps 1, 3 and 5 take the full
/// path); with `PIPE_VK_DEBUG=vertex_fixups` the scaled integers of step
/// 5 are fixed up in the shader (other fix-ups, the full path).
fn vertex_elements_rebind(ctx: &mut TestContext) -> Outcome {
    Outcome::from_result(vertex_elements_rebind_inner(ctx))
}

fn vertex_elements_rebind_inner(ctx: &mut TestContext) -> R {
    let screen = merging_screen(ctx, true)?;
    let (mut c, rt) = unwrapped_triangle_rig_rt(&screen, W, H, &[0.0; 12])?;
    crate::harness::set_user_constants_on(
        &mut c,
        ShaderStage::Fragment,
        &f32s(&[0.0, 0.0, 1.0, 1.0]),
    )?;
    let buffer = |c: &mut pipe_vk::context::VkContext, bytes: &[u8]| -> Result<Resource, Outcome> {
        let t = ResourceTemplate::buffer(bytes.len() as u32, BindFlags::VERTEX_BUFFER);
        let r = step("buffer", pipe_core::Screen::resource_create(&*screen, &t))?;
        step(
            "buffer_subdata",
            c.buffer_subdata(&r, pipe_core::flags::MapFlags::empty(), 0, bytes),
        )?;
        Ok(r)
    };
    // Column k's six vertices, each `[x, y, z, w]`.
    let quad = |k: u32| -> Vec<[f32; 4]> {
        column_quad(k)
            .chunks(4)
            .map(|v| [v[0], v[1], v[2], v[3]])
            .collect()
    };
    let a = buffer(
        &mut c,
        &f32s(&[column_quad(0), column_quad(4), column_quad(7)].concat()),
    )?;
    let interleaved: Vec<f32> = quad(1)
        .iter()
        .zip(quad(2))
        .flat_map(|(p, q)| p.iter().chain(q.iter()).copied().collect::<Vec<_>>())
        .collect();
    let i = buffer(&mut c, &f32s(&interleaved))?;
    let xy: Vec<f32> = quad(3).iter().flat_map(|v| [v[0], v[1]]).collect();
    let p = buffer(&mut c, &f32s(&xy))?;
    // x and y times 4 are whole numbers; w = 4 divides them back.
    let scaled: Vec<u8> = quad(5)
        .iter()
        .flat_map(|v| [4.0 * v[0], 4.0 * v[1], 0.0, 4.0])
        .flat_map(|f| (f as i16).to_le_bytes())
        .collect();
    let sb = buffer(&mut c, &scaled)?;
    let fixed: Vec<u8> = quad(6)
        .iter()
        .flat_map(|v| [v[0], v[1]])
        .flat_map(|f| ((f * 65536.0) as i32).to_le_bytes())
        .collect();
    let fb = buffer(&mut c, &fixed)?;
    clear_unwrapped(&mut c)?;
    let element = |format: Format, stride: u32, offset: u32, slot: u8| VertexElement {
        src_offset: offset,
        src_stride: stride,
        vertex_buffer_index: slot,
        dual_slot: false,
        src_format: format,
        instance_divisor: 0,
    };
    let resource = |r: &Resource, offset: u32| VertexBuffer {
        buffer: Some(VertexBufferSource::Resource(r.clone())),
        buffer_offset: offset,
    };
    let steps: Vec<(VertexElement, Option<Vec<VertexBuffer>>)> = vec![
        (crate::harness::VEC4_ELEMENT, Some(vec![resource(&a, 0)])),
        (
            element(Format::R32G32B32A32Float, 32, 0, 0),
            Some(vec![resource(&i, 0)]),
        ),
        (element(Format::R32G32B32A32Float, 32, 16, 0), None),
        (
            element(Format::R32G32Float, 8, 0, 0),
            Some(vec![resource(&p, 0)]),
        ),
        (
            element(Format::R32G32B32A32Float, 16, 0, 1),
            Some(vec![resource(&a, 0), resource(&a, 96)]),
        ),
        (
            element(Format::R16G16B16A16Sscaled, 8, 0, 0),
            Some(vec![resource(&sb, 0)]),
        ),
        (
            element(Format::R32G32Fixed, 8, 0, 0),
            Some(vec![resource(&fb, 0)]),
        ),
        (crate::harness::VEC4_ELEMENT, Some(vec![resource(&a, 192)])),
    ];
    // Created first: a creation is a call that ends the merge.
    let mut cso = Vec::new();
    for (e, _) in &steps {
        cso.push(step(
            "create_vertex_elements_state",
            c.create_vertex_elements_state(std::slice::from_ref(e)),
        )?);
    }
    for ((_, vbs), &ve) in steps.iter().zip(&cso) {
        step(
            "bind_vertex_elements_state",
            c.bind_vertex_elements_state(Some(ve)),
        )?;
        if let Some(vbs) = vbs {
            step("set_vertex_buffers", c.set_vertex_buffers(vbs))?;
        }
        draw_unwrapped(&mut c, 6)?;
    }
    expect_columns(read_columns(&mut c, &rt)?, [[0, 0, 255, 255]; 8])?;
    let st = c.stats();
    let staging = !written_by_cpu(&i)?;
    let rebinding = [
        !staging,
        true,
        !staging,
        true,
        !staging && !screen.vertex_fixups_forced(),
    ];
    let want = if pipe_core::Screen::caps(&*screen).multi_draw && screen.dynamic_vertex_input() {
        rebinding.iter().filter(|&&r| r).count() as u64
    } else {
        0
    };
    if st.vb_rebind_draws != want {
        return Err(Outcome::fail(format!(
            "{st:?}: want {want} draws that only rebound vertex input and buffers"
        )));
    }
    Ok(())
}
test_case!(
    name = "pipe.draw.merge.vertex_elements_rebind",
    vertex_elements_rebind
);

/// A depth-stencil-alpha change that keeps the alpha test, and a sample
/// mask change where the mask is dynamic state, keep the last draw's
/// pipeline (pipe-vk looks it up only after other changes); an alpha
/// test change takes a new fragment shader variant. Columns of a 16x16
/// target, one draw each, colour (0, 1, 0, 0.5), no blending:
/// 0. state A: no alpha test (drawn; the first lookup);
/// 1. state B: no alpha test, other depth and stencil state (drawn);
/// 2. alpha test GREATER 0.6 (killed);
/// 3. GREATER 0.4 (drawn);
/// 4. GREATER 0.4 with other depth state (drawn);
/// 5. sample mask 0 (drawn: GL applies no sample mask to single-sampled
///    framebuffers);
/// 6. sample mask all ones, alpha test LESS 0.4 (killed);
/// 7. state A again (drawn).
///
/// The pixels are checked, and the context's pipeline lookups counted:
/// at draws 0, 2, 3, 6 and 7, and 5 where the sample mask is baked into
/// pipelines.
fn dsa_change_keeps_pipeline(ctx: &mut TestContext) -> Outcome {
    Outcome::from_result(dsa_change_keeps_pipeline_inner(ctx))
}

fn dsa_change_keeps_pipeline_inner(ctx: &mut TestContext) -> R {
    let screen = merging_screen(ctx, true)?;
    let alpha = |func: CompareFunc, r: f32| DepthStencilAlphaState {
        alpha_enabled: true,
        alpha_func: func,
        alpha_ref_value: r,
        ..Default::default()
    };
    let other_depth = |s: DepthStencilAlphaState| DepthStencilAlphaState {
        depth_func: CompareFunc::Greater,
        depth_writemask: true,
        depth_bounds_max: 0.5,
        ..s
    };
    let state_a = DepthStencilAlphaState::default();
    let mut state_b = other_depth(state_a);
    state_b.stencil[0].writemask = 0x0f;
    let states = [
        state_a,
        state_b,
        alpha(CompareFunc::Greater, 0.6),
        alpha(CompareFunc::Greater, 0.4),
        other_depth(alpha(CompareFunc::Greater, 0.4)),
        alpha(CompareFunc::Less, 0.4),
    ];
    let drawn = [0, 255, 0, 128];
    let killed = [0; 4];
    let want = if screen.dynamic_sample_state() { 5 } else { 6 };
    let got = column_changes(
        &screen,
        &mut |c| {
            // Created first: a creation is a call that changes nothing
            // bound, but ends the merge like any other.
            states
                .iter()
                .map(|s| {
                    step(
                        "create_depth_stencil_alpha_state",
                        c.create_depth_stencil_alpha_state(s),
                    )
                })
                .collect::<Result<Vec<_>, _>>()
        },
        &mut |c, cso, k| {
            let dsa = match k {
                0..=4 => k,
                5 => return step("set_sample_mask", c.set_sample_mask(0)),
                6 => {
                    step("set_sample_mask", c.set_sample_mask(!0))?;
                    5
                }
                _ => 0,
            };
            step(
                "bind_depth_stencil_alpha_state",
                c.bind_depth_stencil_alpha_state(Some(cso[dsa])),
            )
        },
        want,
    )?;
    expect_columns(
        got,
        [drawn, drawn, killed, drawn, drawn, drawn, killed, drawn],
    )
}

/// Columns of a 16x16 target cleared to 0, one draw of colour (0, 1, 0,
/// 0.5) each, after `change(context, csos, column)` (`csos` made by
/// `create` before the clear): checks that each column is one colour and
/// the context's pipeline lookups against `lookups`, and returns the
/// columns' colours.
fn column_changes<T>(
    screen: &Arc<pipe_vk::VkScreen>,
    create: &mut dyn FnMut(&mut pipe_vk::context::VkContext) -> Result<Vec<T>, Outcome>,
    change: &mut dyn FnMut(&mut pipe_vk::context::VkContext, &[T], usize) -> R,
    lookups: u64,
) -> Result<[[u8; 4]; 8], Outcome> {
    let (mut c, rt) = unwrapped_triangle_rig_rt(screen, W, H, &[0.0; 12])?;
    crate::harness::set_user_constants_on(
        &mut c,
        ShaderStage::Fragment,
        &f32s(&[0.0, 1.0, 0.0, 0.5]),
    )?;
    let cso = create(&mut c)?;
    let mut vbs = Vec::new();
    for k in 0..8 {
        let t = ResourceTemplate::buffer(96, BindFlags::VERTEX_BUFFER);
        let r = step("buffer", pipe_core::Screen::resource_create(&**screen, &t))?;
        step(
            "buffer_subdata",
            c.buffer_subdata(
                &r,
                pipe_core::flags::MapFlags::empty(),
                0,
                &f32s(&column_quad(k)),
            ),
        )?;
        vbs.push(VertexBuffer {
            buffer: Some(VertexBufferSource::Resource(r)),
            buffer_offset: 0,
        });
    }
    clear_unwrapped(&mut c)?;
    for (k, vb) in vbs.iter().enumerate() {
        change(&mut c, &cso, k)?;
        step(
            "set_vertex_buffers",
            c.set_vertex_buffers(std::slice::from_ref(vb)),
        )?;
        draw_unwrapped(&mut c, 6)?;
    }
    let columns = read_columns(&mut c, &rt)?;
    let st = c.stats();
    if st.pipeline_lookups != lookups {
        return Err(Outcome::fail(format!(
            "{st:?}: want {lookups} pipeline lookups"
        )));
    }
    Ok(columns)
}

/// The colours of the eight two-pixel columns of `rt` (16x16 RGBA8),
/// failing unless each column is one colour.
fn read_columns(
    c: &mut pipe_vk::context::VkContext,
    rt: &Resource,
) -> Result<[[u8; 4]; 8], Outcome> {
    let t = step(
        "map",
        c.transfer_map(
            rt,
            0,
            pipe_core::flags::MapFlags::READ,
            &PipeBox::rect(0, 0, W, H),
        ),
    )?;
    let bytes = t.to_vec();
    let stride = t.stride();
    step("unmap", c.transfer_unmap(t))?;
    let px = |x: usize, y: usize| -> [u8; 4] {
        let o = y * stride + 4 * x;
        [bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]]
    };
    let columns: [[u8; 4]; 8] = std::array::from_fn(|k| px(2 * k, 0));
    for y in 0..H as usize {
        for x in 0..W as usize {
            if px(x, y) != columns[x / 2] {
                return Err(Outcome::fail(format!(
                    "pixel ({x}, {y}) is {:?}, but ({}, 0) of its column is {:?}",
                    px(x, y),
                    2 * (x / 2),
                    columns[x / 2]
                )));
            }
        }
    }
    Ok(columns)
}

/// Fails unless the columns' colours are `want`.
/// Compares read-back columns with the wanted ones, allowing one step of
/// UNORM rounding per channel: an alpha of 0.5 is 127.5 codes, which
/// Vulkan lets a device round either way (lavapipe stores 128, NVIDIA
/// 127).
fn expect_columns(got: [[u8; 4]; 8], want: [[u8; 4]; 8]) -> R {
    let close = |a: [u8; 4], b: [u8; 4]| (0..4).all(|i| a[i].abs_diff(b[i]) <= 1);
    match (0..8).find(|&k| !close(got[k], want[k])) {
        Some(k) => Err(Outcome::fail(format!(
            "column {k} is {:?}, want {:?} within 1 (all columns: {got:?})",
            got[k], want[k]
        ))),
        None => Ok(()),
    }
}
test_case!(
    name = "pipe.draw.merge.dsa_change",
    dsa_change_keeps_pipeline
);

/// A blend state change that keeps alpha-to-coverage and alpha-to-one,
/// where blend state is dynamic, keeps the last draw's pipeline; one
/// that changes them takes a new lookup. Columns as
/// `pipe.draw.merge.dsa_change` (colour (0, 1, 0, 0.5) on 0):
/// 0. blending off (the first lookup);
/// 1. SRC_ALPHA, ONE_MINUS_SRC_ALPHA: (0, 0.5, 0, 0.25);
/// 2. green written alone: (0, 1, 0, 0);
/// 3. alpha-to-coverage on, nothing written (a lookup);
/// 4. blending off (a lookup);
/// 5. blending on again;
/// 6. and 7. the states of columns 2 and 0.
///
/// Without dynamic blend state (`PIPE_VK_DEBUG=no_dynamic_blend`) every
/// change takes a lookup.
fn blend_change_keeps_pipeline(ctx: &mut TestContext) -> Outcome {
    Outcome::from_result(blend_change_keeps_pipeline_inner(ctx))
}

fn blend_change_keeps_pipeline_inner(ctx: &mut TestContext) -> R {
    let screen = merging_screen(ctx, true)?;
    let rt = |blend_enable: bool, colormask: ColorMask| RtBlendState {
        blend_enable,
        rgb_func: BlendFunc::Add,
        rgb_src_factor: BlendFactor::SrcAlpha,
        rgb_dst_factor: BlendFactor::InvSrcAlpha,
        alpha_func: BlendFunc::Add,
        alpha_src_factor: BlendFactor::SrcAlpha,
        alpha_dst_factor: BlendFactor::InvSrcAlpha,
        colormask,
    };
    let state = |r: RtBlendState, a2c: bool| {
        let mut s = BlendState {
            alpha_to_coverage: a2c,
            ..Default::default()
        };
        s.rt[0] = r;
        s
    };
    let states = [
        state(rt(false, ColorMask::RGBA), false),
        state(rt(true, ColorMask::RGBA), false),
        state(rt(false, ColorMask::G), false),
        state(rt(false, ColorMask::empty()), true),
    ];
    let order = [0, 1, 2, 3, 0, 1, 2, 0];
    let lookups = if screen.dynamic_blend() { 3 } else { 8 };
    let got = column_changes(
        &screen,
        &mut |c| {
            states
                .iter()
                .map(|s| step("create_blend_state", c.create_blend_state(s)))
                .collect::<Result<Vec<_>, _>>()
        },
        &mut |c, cso, k| step("bind_blend_state", c.bind_blend_state(Some(cso[order[k]]))),
        lookups,
    )?;
    expect_columns(
        got,
        [
            [0, 255, 0, 128],
            [0, 128, 0, 64],
            [0, 255, 0, 0],
            [0; 4],
            [0, 255, 0, 128],
            [0, 128, 0, 64],
            [0, 255, 0, 0],
            [0, 255, 0, 128],
        ],
    )
}
test_case!(
    name = "pipe.draw.merge.blend_change",
    blend_change_keeps_pipeline
);

/// A rasterizer change in what only dynamic state takes (cull mode,
/// front face, scissor enable, polygon offset, line width), where
/// rasterizer state is dynamic, keeps the last draw's pipeline; a change
/// that makes other shader variants (flat shading) takes a new lookup.
/// Columns as `pipe.draw.merge.dsa_change` (colour (0, 1, 0, 0.5) on 0;
/// the scissor rectangle is column 0):
/// 0. no culling (the first lookup);
/// 1. both faces culled;
/// 2. the scissor test on;
/// 3. polygon offset on;
/// 4. line width 3;
/// 5. flat shading (a lookup);
/// 6. back faces culled, front faces counter-clockwise (a lookup);
/// 7. the same with front faces clockwise: columns 6 and 7 have the same
///    winding, so exactly one of them is drawn.
///
/// Without dynamic rasterizer state every change takes a lookup.
fn rasterizer_change_keeps_pipeline(ctx: &mut TestContext) -> Outcome {
    Outcome::from_result(rasterizer_change_keeps_pipeline_inner(ctx))
}

fn rasterizer_change_keeps_pipeline_inner(ctx: &mut TestContext) -> R {
    let screen = merging_screen(ctx, true)?;
    let base = RasterizerState {
        line_width: 1.0,
        half_pixel_center: true,
        depth_clip_near: true,
        depth_clip_far: true,
        ..Default::default()
    };
    let states = [
        base,
        RasterizerState {
            cull_face: Face::FRONT | Face::BACK,
            ..base
        },
        RasterizerState {
            scissor: true,
            ..base
        },
        RasterizerState {
            offset_tri: true,
            offset_units: 4.0,
            offset_scale: 1.0,
            ..base
        },
        RasterizerState {
            line_width: 3.0,
            ..base
        },
        RasterizerState {
            flatshade: true,
            ..base
        },
        RasterizerState {
            cull_face: Face::BACK,
            front_ccw: true,
            ..base
        },
        RasterizerState {
            cull_face: Face::BACK,
            front_ccw: false,
            ..base
        },
    ];
    let lookups = if screen.dynamic_rasterizer() { 3 } else { 8 };
    let got = column_changes(
        &screen,
        &mut |c| {
            step(
                "set_scissor_states",
                c.set_scissor_states(
                    0,
                    &[ScissorState {
                        minx: 0,
                        miny: 0,
                        maxx: 2,
                        maxy: H as u16,
                    }],
                ),
            )?;
            states
                .iter()
                .map(|s| step("create_rasterizer_state", c.create_rasterizer_state(s)))
                .collect::<Result<Vec<_>, _>>()
        },
        &mut |c, cso, k| {
            step(
                "bind_rasterizer_state",
                c.bind_rasterizer_state(Some(cso[k])),
            )
        },
        lookups,
    )?;
    let drawn = [0, 255, 0, 128];
    let killed = [0; 4];
    // Whichever winding the columns have: one of 6 and 7 culled.
    let (six, seven) = if got[6] == drawn {
        (drawn, killed)
    } else {
        (killed, drawn)
    };
    expect_columns(
        got,
        [drawn, killed, killed, drawn, drawn, drawn, six, seven],
    )
}
test_case!(
    name = "pipe.draw.merge.rasterizer_change",
    rasterizer_change_keeps_pipeline
);

/// A clear followed by a draw costs no clear command: the pending clear
/// becomes the CLEAR load op. Pipelines are cached across draws.
fn clear_as_load_op(ctx: &mut TestContext) -> Outcome {
    Outcome::from_result(clear_as_load_op_inner(ctx))
}

fn clear_as_load_op_inner(ctx: &mut TestContext) -> R {
    // It counts merged draws.
    let screen = merging_screen(ctx, true)?;
    let vk_ctx = step("context", screen.create_vk_context())?;
    let mut e = Env {
        screen: screen.clone(),
        ctx: Box::new(vk_ctx),
    };
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    set_color(&mut e, [1.0, 0.0, 0.0, 1.0])?;
    bind_vertices(
        &mut e,
        &[
            -1.0, -1.0, 0.0, 1.0, 1.0, -1.0, 0.0, 1.0, -1.0, 1.0, 0.0, 1.0,
        ],
        None,
    )?;
    clear_color(&mut e, [0.0, 0.0, 0.0, 1.0])?;
    for _ in 0..3 {
        draw(&mut e, PrimType::Triangles, 0, 3, 1)?;
    }
    let _ = e.read_texture(&t.color, 0, &PipeBox::rect(0, 0, 1, 1))?;
    drop(t);
    // Downcast is impossible through the trait object; re-run the same
    // sequence on an unwrapped context to read its counters.
    let mut c = unwrapped_triangle_rig(&screen, W, H, &[0.0; 12])?;
    clear_unwrapped(&mut c)?;
    for _ in 0..3 {
        draw_unwrapped(&mut c, 3)?;
    }
    let cs = c.clear_stats();
    if cs.executed != 0 || cs.load_op != 1 {
        return Err(Outcome::fail(format!(
            "clear then draws: {cs:?} (want 0 executed, 1 load op)"
        )));
    }
    // The second and third draws change nothing: with VK_EXT_multi_draw
    // they join the first one's pending draws (pipe_vk::merge); without
    // it they take the full path but reuse the last pipeline. Either way
    // one pipeline lookup.
    let st = c.stats();
    let merged = if pipe_core::Screen::caps(&*screen).multi_draw {
        2
    } else {
        0
    };
    if st.pipelines_created != 1 || st.merged_draws != merged || st.pipeline_lookups != 1 {
        return Err(Outcome::fail(format!(
            "pipeline cache: {st:?} (want 1 created, {merged} merged, 1 lookup)"
        )));
    }
    Ok(())
}
test_case!(name = "pipe.draw.clear.load_op", clear_as_load_op);

const VS_UV: &str = "shader vertex
in @pos : f32x4 location=0
in @uv : f32x4 location=1
out @gl_pos : f32x4 builtin=position
out @vuv : f32x2 location=0
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  %1 : f32x4 = load @uv
  %2 : f32x2 = swizzle %1, xy
  store @vuv, %2
}
";

const FS_TEX: &str = "shader fragment
in @uv : f32x2 location=0
out @frag : f32x4 location=0
texture @t slot=0 dim=2d sampled=float
fn main {
  %0 : f32x2 = load @uv
  %1 : f32x4 = tex @t, coord=%0
  store @frag, %1
}
";

/// Texturing: a full-screen quad samples a 4x4 texture with NEAREST
/// filtering; `scale` repeats it (wrap REPEAT). Pixel (x, y) has
/// uv = scale * (x + 0.5) / 16, so it shows texel
/// floor(uv * 4) mod 4 = floor(scale * (x + 0.5) / 4) mod 4.
fn textured(ctx: &mut TestContext, staging: bool, scale: f32, wrap: TexWrap) -> R {
    let mut e = env(ctx, staging)?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_UV, FS_TEX)?;
    let tt = ResourceTemplate::texture_2d(Format::R8G8B8A8Unorm, 4, 4, BindFlags::SAMPLER_VIEW);
    let tex = e.texture(&tt)?;
    let texels: Vec<u8> = (0..16u8)
        .flat_map(|i| [i * 16, 255 - i * 16, (i % 4) * 60, 255])
        .collect();
    e.write_texture(&tex, 0, &PipeBox::rect(0, 0, 4, 4), &texels)?;
    let view = step(
        "view",
        e.ctx
            .create_sampler_view(&tex, &pipe_core::view::SamplerViewTemplate::whole(&tt)),
    )?;
    let ss = SamplerState {
        wrap_s: wrap,
        wrap_t: wrap,
        min_mip_filter: MipFilter::None,
        ..Default::default()
    };
    let sh = step("sampler", e.ctx.create_sampler_state(&ss))?;
    step(
        "bind sampler",
        e.ctx
            .bind_sampler_states(ShaderStage::Fragment, 0, &[Some(sh)]),
    )?;
    step(
        "set_sampler_views",
        e.ctx
            .set_sampler_views(ShaderStage::Fragment, 0, &[Some(view)], 0),
    )?;
    // Interleaved position + uv: two elements on two buffers for clarity.
    let pos = [
        -1.0f32, -1.0, 0.0, 1.0, 3.0, -1.0, 0.0, 1.0, -1.0, 3.0, 0.0, 1.0,
    ];
    let uv = [
        0.0f32,
        0.0,
        0.0,
        0.0,
        2.0 * scale,
        0.0,
        0.0,
        0.0,
        0.0,
        2.0 * scale,
        0.0,
        0.0,
    ];
    bind_vec4_streams(&mut e, &[(&pos, 0), (&uv, 0)])?;
    clear_color(&mut e, [0.0; 4])?;
    draw(&mut e, PrimType::Triangles, 0, 3, 1)?;
    check_image(ctx, &mut e, &t, |x, y| {
        let coord = |p: u32| {
            let v = scale * (p as f32 + 0.5) / 4.0;
            // Texel edges fall between pixels for these scales; clamp for
            // CLAMP_TO_EDGE.
            let i = v.floor() as i32;
            match wrap {
                TexWrap::Repeat => i.rem_euclid(4) as usize,
                _ => i.clamp(0, 3) as usize,
            }
        };
        let i = (coord(y) * 4 + coord(x)) * 4;
        Some([texels[i], texels[i + 1], texels[i + 2], texels[i + 3]])
    })
}

fn textured_nearest(ctx: &mut TestContext, staging: bool) -> R {
    textured(ctx, staging, 1.0, TexWrap::ClampToEdge)
}
both_paths!("pipe.draw.texture.nearest", textured_nearest);

fn textured_repeat(ctx: &mut TestContext, staging: bool) -> R {
    textured(ctx, staging, 2.0, TexWrap::Repeat)
}
both_paths!("pipe.draw.texture.wrap_repeat", textured_repeat);

fn textured_clamp(ctx: &mut TestContext, staging: bool) -> R {
    textured(ctx, staging, 2.0, TexWrap::ClampToEdge)
}
both_paths!("pipe.draw.texture.wrap_clamp_to_edge", textured_clamp);

const FULL: [f32; 12] = [
    -1.0, -1.0, 0.0, 1.0, 3.0, -1.0, 0.0, 1.0, -1.0, 3.0, 0.0, 1.0,
];

/// Alpha test (a GL lowering in the fragment shader): with GREATER 0.5 an
/// alpha of 0.25 draws nothing; with LESS it draws everything.
fn alpha_test(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    bind_vertices(&mut e, &FULL, None)?;
    let c = [0.0, 1.0, 0.0, 0.25];
    set_color(&mut e, c)?;
    for (func, drawn) in [
        (CompareFunc::Greater, false),
        (CompareFunc::Less, true),
        (CompareFunc::Never, false),
        (CompareFunc::Always, true),
    ] {
        let dsa = DepthStencilAlphaState {
            alpha_enabled: true,
            alpha_func: func,
            alpha_ref_value: 0.5,
            ..Default::default()
        };
        let h = step("dsa", e.ctx.create_depth_stencil_alpha_state(&dsa))?;
        step("bind dsa", e.ctx.bind_depth_stencil_alpha_state(Some(h)))?;
        clear_color(&mut e, [0.0; 4])?;
        draw(&mut e, PrimType::Triangles, 0, 3, 1)?;
        check_image(ctx, &mut e, &t, |_, _| {
            Some(if drawn { unorm(c) } else { [0; 4].into() })
        })
        .map_err(|o| Outcome::fail(format!("alpha func {func:?}: {o:?}")))?;
    }
    Ok(())
}
both_paths!("pipe.draw.gl.alpha_test", alpha_test);
crate::spirv_variant!("pipe.draw.gl.alpha_test", alpha_test);

/// User clip plane 0 = (1, 0, 0, 0) keeps x >= 0 in clip space: pixel
/// centres at NDC x = (x + 0.5) / 8 - 1 >= 0, i.e. x >= 8.
fn clip_plane(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    bind_rasterizer(&mut e, |r| r.clip_plane_enable = 1)?;
    let mut clip = ClipState::default();
    clip.ucp[0] = [1.0, 0.0, 0.0, 0.0];
    step("set_clip_state", e.ctx.set_clip_state(&clip))?;
    bind_vertices(&mut e, &FULL, None)?;
    let c = [1.0, 0.0, 1.0, 1.0];
    set_color(&mut e, c)?;
    clear_color(&mut e, [0.0; 4])?;
    draw(&mut e, PrimType::Triangles, 0, 3, 1)?;
    check_image(ctx, &mut e, &t, |x, _| {
        Some(if x >= 8 { unorm(c) } else { [0; 4].into() })
    })
}
both_paths!("pipe.draw.gl.clip_plane", clip_plane);

/// Polygon stipple: rows alternate 0xAAAAAAAA / 0x55555555; bit
/// 31 - (x mod 32) of row y decides, so (x + y) even pixels are drawn.
fn polygon_stipple(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    bind_rasterizer(&mut e, |r| r.poly_stipple_enable = true)?;
    let mut p = PolyStipple::default();
    for (y, w) in p.stipple.iter_mut().enumerate() {
        *w = if y % 2 == 0 { 0xAAAA_AAAA } else { 0x5555_5555 };
    }
    step("set_polygon_stipple", e.ctx.set_polygon_stipple(&p))?;
    bind_vertices(&mut e, &FULL, None)?;
    let c = [1.0, 1.0, 0.0, 1.0];
    set_color(&mut e, c)?;
    clear_color(&mut e, [0.0; 4])?;
    draw(&mut e, PrimType::Triangles, 0, 3, 1)?;
    check_image(ctx, &mut e, &t, |x, y| {
        Some(if (x + y) % 2 == 0 {
            unorm(c)
        } else {
            [0; 4].into()
        })
    })
}
both_paths!("pipe.draw.gl.polygon_stipple", polygon_stipple);
crate::spirv_variant!("pipe.draw.gl.polygon_stipple", polygon_stipple);

/// `(fract(x), fract(y), x / 16, 1)` of `gl_FragCoord`.
const FS_FRAG_COORD: &str = "shader fragment
in @fc : f32x4 builtin=frag_coord
out @frag : f32x4 location=0
fn main {
  %0 : f32x4 = load @fc
  %1 : f32x4 = ffract %0
  %2 : f32 = swizzle %0, x
  %3 : f32 = const 0.0625
  %4 : f32 = fmul %2, %3
  %5 : f32 = swizzle %1, x
  %6 : f32 = swizzle %1, y
  %7 : f32 = const 1.0
  %8 : f32x4 = vec %5, %6, %4, %7
  store @frag, %8
}
";

/// GL's pixel centres as `gl_FragCoord` reads them: half-integers with
/// Gallium's `half_pixel_center`, integers without (GLSL's
/// `pixel_center_integer`, a fragment shader lowering: `xy - 0.5`).
fn pixel_centers(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_FRAG_COORD)?;
    bind_vertices(&mut e, &FULL, None)?;
    for half in [true, false] {
        bind_rasterizer(&mut e, |r| r.half_pixel_center = half)?;
        clear_color(&mut e, [0.0; 4])?;
        draw(&mut e, PrimType::Triangles, 0, 3, 1)?;
        let off = if half { 0.5 } else { 0.0 };
        check_image(ctx, &mut e, &t, |x, _| {
            Some(unorm([off, off, (x as f32 + off) / 16.0, 1.0]))
        })
        .map_err(|o| Outcome::fail(format!("half_pixel_center {half}: {o:?}")))?;
    }
    Ok(())
}
both_paths!("pipe.draw.gl.pixel_centers", pixel_centers);
crate::spirv_variant!("pipe.draw.gl.pixel_centers", pixel_centers);

/// GL's clip-space depth [-1, 1] (clip_halfz off): a quad at z = 0 with a
/// GL viewport (z scale 0.5, translate 0.5) lands at depth 0.5.
fn gl_depth_range(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let t = setup(&mut e, true)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    bind_rasterizer(&mut e, |r| r.clip_halfz = false)?;
    let vp = ViewportState {
        scale: [8.0, 8.0, 0.5],
        translate: [8.0, 8.0, 0.5],
        swizzle: Default::default(),
    };
    step("viewport", e.ctx.set_viewport_states(0, &[vp]))?;
    let dsa = DepthStencilAlphaState {
        depth_enabled: true,
        depth_writemask: true,
        depth_func: CompareFunc::Less,
        ..Default::default()
    };
    let h = step("dsa", e.ctx.create_depth_stencil_alpha_state(&dsa))?;
    step("bind dsa", e.ctx.bind_depth_stencil_alpha_state(Some(h)))?;
    bind_vertices(&mut e, &FULL, None)?;
    set_color(&mut e, [1.0; 4])?;
    clear_color(&mut e, [0.0; 4])?;
    draw(&mut e, PrimType::Triangles, 0, 3, 1)?;
    let z = e.read_texture(
        t.depth.as_ref().ok_or_else(|| Outcome::fail("no depth"))?,
        0,
        &PipeBox::rect(0, 0, W, H),
    )?;
    for (i, px) in z.chunks(4).enumerate() {
        let v = f32::from_le_bytes([px[0], px[1], px[2], px[3]]);
        if (v - 0.5).abs() > 1e-6 {
            return Err(Outcome::fail(format!(
                "depth of pixel {i} is {v}, expected 0.5"
            )));
        }
    }
    Ok(())
}
both_paths!("pipe.draw.gl.depth_range_minus_one_to_one", gl_depth_range);

const VS_COLOR: &str = "shader vertex
in @pos : f32x4 location=0
in @color : f32x4 location=1
out @gl_pos : f32x4 builtin=position
out @vcolor : f32x4 location=0 slot=col0
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  %1 : f32x4 = load @color
  store @vcolor, %1
}
";

const FS_COLOR: &str = "shader fragment
in @col : f32x4 location=0 slot=col0
out @frag : f32x4 location=0
fn main {
  %0 : f32x4 = load @col
  store @frag, %0
}
";

/// Flat shading of colour varyings (a lowering) with GL's provoking
/// vertex: the last vertex by default, the first with flatshade_first.
fn flat_shading(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_COLOR, FS_COLOR)?;
    let colors = [
        1.0f32, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0,
    ];
    bind_vec4_streams(&mut e, &[(&FULL, 0), (&colors, 0)])?;
    for (first, want) in [
        (false, [0.0f32, 0.0, 1.0, 1.0]),
        (true, [1.0, 0.0, 0.0, 1.0]),
    ] {
        bind_rasterizer(&mut e, |r| {
            r.flatshade = true;
            r.flatshade_first = first;
        })?;
        clear_color(&mut e, [0.0; 4])?;
        draw(&mut e, PrimType::Triangles, 0, 3, 1)?;
        check_image(ctx, &mut e, &t, |_, _| Some(unorm(want)))
            .map_err(|o| Outcome::fail(format!("flatshade_first={first}: {o:?}")))?;
    }
    Ok(())
}
both_paths!("pipe.draw.gl.flat_shading_provoking_vertex", flat_shading);

/// Four 4x4 squares on the diagonal, as 6 vertices each.
fn diagonal_squares() -> Vec<f32> {
    let mut v = Vec::new();
    for k in 0..4 {
        let x0 = k as f32 * 0.5 - 1.0;
        let (x1, y0, y1) = (x0 + 0.5, x0, x0 + 0.5);
        v.extend_from_slice(&[
            x0, y0, 0.0, 1.0, x1, y0, 0.0, 1.0, x1, y1, 0.0, 1.0, x0, y0, 0.0, 1.0, x1, y1, 0.0,
            1.0, x0, y1, 0.0, 1.0,
        ]);
    }
    v
}

fn on_diagonal(x: u32, y: u32, which: &[u32]) -> bool {
    which
        .iter()
        .any(|&k| (4 * k..4 * k + 4).contains(&x) && (4 * k..4 * k + 4).contains(&y))
}

/// Multi-draw: several start/count pairs in one draw_vbo (merged into one
/// vkCmdDrawMulti*EXT where available), non-indexed and indexed.
fn multi_draw(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    bind_vertices(&mut e, &diagonal_squares(), None)?;
    let c = [0.0, 1.0, 1.0, 1.0];
    set_color(&mut e, c)?;
    clear_color(&mut e, [0.0; 4])?;
    let d = |k: u32| DrawStartCountBias {
        start: 6 * k,
        count: 6,
        index_bias: 0,
    };
    step(
        "multi draw",
        e.ctx
            .draw_vbo(&DrawInfo::default(), 0, None, &[d(0), d(2), d(3)]),
    )?;
    check_image(ctx, &mut e, &t, |x, y| {
        Some(if on_diagonal(x, y, &[0, 2, 3]) {
            unorm(c)
        } else {
            [0; 4].into()
        })
    })?;
    // Indexed: identity indices, draws with index_bias selecting squares.
    let idx: Vec<u8> = (0u16..6).flat_map(|i| i.to_le_bytes()).collect();
    let info = DrawInfo {
        index_size: 2,
        index: IndexSource::User(&idx),
        ..DrawInfo::default()
    };
    clear_color(&mut e, [0.0; 4])?;
    let di = |k: i32| DrawStartCountBias {
        start: 0,
        count: 6,
        index_bias: 6 * k,
    };
    step(
        "multi draw indexed",
        e.ctx.draw_vbo(&info, 0, None, &[di(1), di(3)]),
    )?;
    check_image(ctx, &mut e, &t, |x, y| {
        Some(if on_diagonal(x, y, &[1, 3]) {
            unorm(c)
        } else {
            [0; 4].into()
        })
    })
}
both_paths!("pipe.draw.multi_draw.arrays_and_elements", multi_draw);

/// Multi-draws with an empty draw first, between or last: the others
/// draw. lavapipe 25.0.7 skipped a whole multi-draw whose first draw was
/// empty (found by `pipe.draw.state_fuzz.diff.no_draw_merge`, where the
/// merged path, which leaves empty draws out, drew and the unmerged one
/// did not); pipe-vk leaves empty draws out of its multi-draws.
fn multi_draw_empty(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    bind_vertices(&mut e, &diagonal_squares(), None)?;
    let c = [1.0, 1.0, 0.0, 1.0];
    set_color(&mut e, c)?;
    let idx: Vec<u8> = (0u16..24).flat_map(|i| i.to_le_bytes()).collect();
    let d = |k: u32, count: u32| DrawStartCountBias {
        start: 6 * k,
        count,
        index_bias: 0,
    };
    for indexed in [false, true] {
        let info = if indexed {
            DrawInfo {
                index_size: 2,
                index: IndexSource::User(&idx),
                ..DrawInfo::default()
            }
        } else {
            DrawInfo::default()
        };
        for (empty_at, drawn) in [(0, [1, 3]), (1, [0, 3]), (2, [0, 2])] {
            let mut draws = vec![d(drawn[0], 6), d(drawn[1], 6)];
            draws.insert(empty_at, d(2 - empty_at as u32 % 2, 0));
            clear_color(&mut e, [0.0; 4])?;
            step("multi draw", e.ctx.draw_vbo(&info, 0, None, &draws))?;
            check_image(ctx, &mut e, &t, |x, y| {
                Some(if on_diagonal(x, y, &drawn) {
                    unorm(c)
                } else {
                    [0; 4].into()
                })
            })
            .map_err(|o| match o {
                Outcome::Fail(m) => Outcome::fail(format!(
                    "indexed {indexed}, empty draw {empty_at} of {draws:?}: {m}"
                )),
                o => o,
            })?;
        }
    }
    Ok(())
}
both_paths!("pipe.draw.multi_draw.empty_draws", multi_draw_empty);

/// Indirect draws: commands in a buffer (GL's layout, the same as
/// Vulkan's), several at once, and with a count buffer.
fn indirect(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    bind_vertices(&mut e, &diagonal_squares(), None)?;
    let c = [1.0, 0.5, 0.0, 1.0];
    set_color(&mut e, c)?;
    // Non-indexed commands: count, instances, first vertex, first instance.
    let cmds: Vec<u32> = vec![6, 1, 0, 0, 6, 1, 18, 0, 6, 1, 12, 0];
    let buf = e.buffer(64, ResourceFlags::empty())?;
    let bytes: Vec<u8> = cmds.iter().flat_map(|v| v.to_le_bytes()).collect();
    step(
        "commands",
        e.ctx
            .buffer_subdata(&buf, pipe_core::flags::MapFlags::empty(), 0, &bytes),
    )?;
    let count = e.buffer(16, ResourceFlags::empty())?;
    step(
        "count",
        e.ctx.buffer_subdata(
            &count,
            pipe_core::flags::MapFlags::empty(),
            4,
            &2u32.to_le_bytes(),
        ),
    )?;
    clear_color(&mut e, [0.0; 4])?;
    let ind = pipe_core::draw::DrawIndirectInfo {
        offset: 0,
        stride: 16,
        draw_count: 2,
        buffer: Some(buf.clone()),
        ..Default::default()
    };
    step(
        "indirect",
        e.ctx.draw_vbo(&DrawInfo::default(), 0, Some(&ind), &[]),
    )?;
    check_image(ctx, &mut e, &t, |x, y| {
        Some(if on_diagonal(x, y, &[0, 3]) {
            unorm(c)
        } else {
            [0; 4].into()
        })
    })?;
    if e.screen.caps().draw_indirect_count {
        // Up to 3 commands from offset 16, but the count buffer says 2.
        clear_color(&mut e, [0.0; 4])?;
        let ind = pipe_core::draw::DrawIndirectInfo {
            offset: 16,
            stride: 16,
            draw_count: 3,
            buffer: Some(buf),
            indirect_draw_count: Some(count),
            indirect_draw_count_offset: 4,
            ..Default::default()
        };
        step(
            "indirect count",
            e.ctx.draw_vbo(&DrawInfo::default(), 0, Some(&ind), &[]),
        )?;
        check_image(ctx, &mut e, &t, |x, y| {
            Some(if on_diagonal(x, y, &[3, 2]) {
                unorm(c)
            } else {
                [0; 4].into()
            })
        })?;
    }
    Ok(())
}
both_paths!("pipe.draw.indirect.commands_and_count", indirect);

/// The quad of square `k` of `diagonal_squares`, as 4 vertices.
fn square_quad(k: u32) -> [f32; 16] {
    let x0 = k as f32 * 0.5 - 1.0;
    let x1 = x0 + 0.5;
    [
        x0, x0, 0.0, 1.0, x1, x0, 0.0, 1.0, x1, x1, 0.0, 1.0, x0, x1, 0.0, 1.0,
    ]
}

/// Indirect draws that need index rewriting, read back on the CPU:
/// quads with two instances and a first instance (instance 1 moves a
/// square one step down the diagonal), from commands a GPU copy wrote
/// just before and a count buffer that cuts the last; indexed quads with
/// a restart index other than all ones and a vertex offset; and 8-bit
/// indices, which the device is told not to read
/// (`no_index_uint8`).
fn indirect_rewritten(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env_with(ctx, |o| {
        o.staging = Some(staging);
        o.no_index_uint8 = Some(true);
    })?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_OFFSET, FS_UBO_COLOR)?;
    let quads: Vec<f32> = (0..4).flat_map(square_quad).collect();
    bind_vertices(
        &mut e,
        &quads,
        Some(&[0.0, 0.0, 0.0, 0.0, 0.5, 0.5, 0.0, 0.0]),
    )?;
    let c = [0.0, 0.5, 1.0, 1.0];
    set_color(&mut e, c)?;
    let words = |w: &[u32]| -> Vec<u8> { w.iter().flat_map(|v| v.to_le_bytes()).collect() };
    let upload = |e: &mut Env, bytes: &[u8]| -> Result<Resource, Outcome> {
        let b = e.buffer(bytes.len() as u32, ResourceFlags::empty())?;
        step(
            "subdata",
            e.ctx
                .buffer_subdata(&b, pipe_core::flags::MapFlags::empty(), 0, bytes),
        )?;
        Ok(b)
    };
    let indirect = |buf: &Resource, n: u32, stride: u32, count: Option<&Resource>| {
        pipe_core::draw::DrawIndirectInfo {
            offset: 0,
            stride,
            draw_count: n,
            buffer: Some(buf.clone()),
            indirect_draw_count: count.cloned(),
            ..Default::default()
        }
    };
    let quads_info = DrawInfo {
        mode: PrimType::Quads,
        ..DrawInfo::default()
    };
    // Square 0 twice (squares 0 and 1), square 2 from instance 1 (square
    // 3), and square 2 plain, which the count of 2 leaves out.
    let cmds = words(&[4, 2, 0, 0, 4, 1, 8, 1, 4, 1, 8, 0]);
    let src = upload(&mut e, &cmds)?;
    let buf = e.buffer(cmds.len() as u32, ResourceFlags::empty())?;
    let len = cmds.len() as u32;
    step(
        "copy commands",
        e.ctx
            .resource_copy_region(&buf, 0, 0, 0, 0, &src, 0, &PipeBox::range(0, len)),
    )?;
    let count = upload(&mut e, &words(&[2]))?;
    let count = e.screen.caps().draw_indirect_count.then_some(count);
    let n = if count.is_some() { 3 } else { 2 };
    clear_color(&mut e, [0.0; 4])?;
    let ind = indirect(&buf, n, 16, count.as_ref());
    step(
        "indirect quads",
        e.ctx.draw_vbo(&quads_info, 0, Some(&ind), &[]),
    )?;
    check_image(ctx, &mut e, &t, |x, y| {
        Some(if on_diagonal(x, y, &[0, 1, 3]) {
            unorm(c)
        } else {
            [0; 4].into()
        })
    })?;
    // Indexed, 16-bit, restart index 100: squares 0 and 2, then square 0
    // moved by a vertex offset of 4 (square 1).
    let idx: Vec<u8> = [0u16, 1, 2, 3, 100, 8, 9, 10, 11]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let ibuf = upload(&mut e, &idx)?;
    let cmds = upload(&mut e, &words(&[9, 1, 0, 0, 0, 4, 1, 0, 4, 0]))?;
    clear_color(&mut e, [0.0; 4])?;
    let info = DrawInfo {
        mode: PrimType::Quads,
        index_size: 2,
        index: IndexSource::Resource(ibuf),
        primitive_restart: true,
        restart_index: 100,
        ..DrawInfo::default()
    };
    let ind = indirect(&cmds, 2, 20, None);
    step(
        "indirect indexed quads",
        e.ctx.draw_vbo(&info, 0, Some(&ind), &[]),
    )?;
    check_image(ctx, &mut e, &t, |x, y| {
        Some(if on_diagonal(x, y, &[0, 1, 2]) {
            unorm(c)
        } else {
            [0; 4].into()
        })
    })?;
    // 8-bit indices as triangles (widened on the CPU): square 3.
    let ibuf = upload(&mut e, &[12, 13, 14, 12, 14, 15, 0, 0])?;
    let cmds = upload(&mut e, &words(&[6, 1, 0, 0, 0]))?;
    clear_color(&mut e, [0.0; 4])?;
    let info = DrawInfo {
        mode: PrimType::Triangles,
        index_size: 1,
        index: IndexSource::Resource(ibuf),
        ..DrawInfo::default()
    };
    let ind = indirect(&cmds, 1, 20, None);
    step("indirect u8", e.ctx.draw_vbo(&info, 0, Some(&ind), &[]))?;
    check_image(ctx, &mut e, &t, |x, y| {
        Some(if on_diagonal(x, y, &[3]) {
            unorm(c)
        } else {
            [0; 4].into()
        })
    })
}
both_paths!("pipe.draw.indirect.rewritten", indirect_rewritten);

/// Instance divisor 2: instances 0-3 read offsets 0, 0, 1, 1.
fn divisor_two(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_OFFSET, FS_UBO_COLOR)?;
    let sq = diagonal_squares();
    // Offsets move square 0 by one square (0.5 NDC) diagonally.
    let offs = [0.0f32, 0.0, 0.0, 0.0, 0.5, 0.5, 0.0, 0.0];
    bind_vec4_streams(&mut e, &[(&sq, 0), (&offs, 2)])?;
    let c = [0.5, 0.5, 1.0, 1.0];
    set_color(&mut e, c)?;
    clear_color(&mut e, [0.0; 4])?;
    // 4 instances of square 0: two at square 0, two at square 1.
    draw(&mut e, PrimType::Triangles, 0, 6, 4)?;
    check_image(ctx, &mut e, &t, |x, y| {
        Some(if on_diagonal(x, y, &[0, 1]) {
            unorm(c)
        } else {
            [0; 4].into()
        })
    })
}
both_paths!("pipe.draw.instanced.divisor_two", divisor_two);

pub(crate) const GS_DUP: &str =
    "shader geometry input=triangles output=triangle_strip max_vertices=6 invocations=1
in @pos : f32x4[3] builtin=position
out @gl_pos : f32x4 builtin=position
fn main {
  %0 : i32 = const 0
  %1 : i32 = const 1
  %2 : i32 = const 2
  %3 : f32x4 = load @pos, %0
  %4 : f32x4 = load @pos, %1
  %5 : f32x4 = load @pos, %2
  store @gl_pos, %3
  emit_vertex
  store @gl_pos, %4
  emit_vertex
  store @gl_pos, %5
  emit_vertex
  end_primitive
  %6 : f32x4 = const 1.0, 0.0, 0.0, 0.0
  %7 : f32x4 = fadd %3, %6
  %8 : f32x4 = fadd %4, %6
  %9 : f32x4 = fadd %5, %6
  store @gl_pos, %7
  emit_vertex
  store @gl_pos, %8
  emit_vertex
  store @gl_pos, %9
  emit_vertex
  end_primitive
}
";

/// A geometry shader emits each triangle twice, the copy moved right by
/// 1.0 in NDC (8 pixels).
fn geometry_shader(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    if !e.screen.caps().shader[ShaderStage::Geometry.index()].supported {
        return Err(Outcome::skip("no geometry shaders"));
    }
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    let g = step(
        "create_gs_state",
        e.ctx
            .create_gs_state(&shader(ShaderStage::Geometry, GS_DUP)?),
    )?;
    step("bind_gs_state", e.ctx.bind_gs_state(Some(g)))?;
    bind_vertices(&mut e, &diagonal_squares(), None)?;
    let c = [1.0, 0.0, 0.5, 1.0];
    set_color(&mut e, c)?;
    clear_color(&mut e, [0.0; 4])?;
    draw(&mut e, PrimType::Triangles, 0, 6, 1)?;
    check_image(ctx, &mut e, &t, |x, y| {
        let inside = y < 4 && (x < 4 || (8..12).contains(&x));
        Some(if inside { unorm(c) } else { [0; 4].into() })
    })?;
    step("unbind gs", e.ctx.bind_gs_state(None))?;
    step("delete gs", e.ctx.delete_gs_state(g))
}
both_paths!("pipe.draw.geometry.duplicate", geometry_shader);

const GS_VIEWPORTS: &str =
    "shader geometry input=triangles output=triangle_strip max_vertices=6 invocations=1
in @pos : f32x4[3] builtin=position
out @gl_pos : f32x4 builtin=position
out @vp : i32 builtin=viewport_index
fn main {
  %0 : i32 = const 0
  %1 : i32 = const 1
  %2 : i32 = const 2
  %3 : f32x4 = load @pos, %0
  %4 : f32x4 = load @pos, %1
  %5 : f32x4 = load @pos, %2
  store @vp, %0
  store @gl_pos, %3
  emit_vertex
  store @vp, %0
  store @gl_pos, %4
  emit_vertex
  store @vp, %0
  store @gl_pos, %5
  emit_vertex
  end_primitive
  store @vp, %1
  store @gl_pos, %3
  emit_vertex
  store @vp, %1
  store @gl_pos, %4
  emit_vertex
  store @vp, %1
  store @gl_pos, %5
  emit_vertex
  end_primitive
}
";

/// Multiple viewports and scissors: a geometry shader emits each triangle
/// to viewport 0 (left half of the target) and viewport 1 (right half);
/// scissor 1 keeps rows 0..8 only. The left half of NDC is drawn, so
/// columns 0..4 (all rows) and 8..12 (rows 0..8) are covered.
fn multiple_viewports(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    if !e.screen.caps().shader[ShaderStage::Geometry.index()].supported {
        return Err(Outcome::skip("no geometry shaders"));
    }
    if e.screen.caps().max_viewports < 2 {
        return Err(Outcome::skip("one viewport only"));
    }
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    let g = step(
        "create_gs_state",
        e.ctx
            .create_gs_state(&shader(ShaderStage::Geometry, GS_VIEWPORTS)?),
    )?;
    step("bind_gs_state", e.ctx.bind_gs_state(Some(g)))?;
    let (hw, h) = (W as f32 / 4.0, H as f32 / 2.0);
    let vps: Vec<ViewportState> = (0..2)
        .map(|i| ViewportState {
            scale: [hw, h, 1.0],
            translate: [hw + i as f32 * 2.0 * hw, h, 0.0],
            swizzle: Default::default(),
        })
        .collect();
    step("viewports", e.ctx.set_viewport_states(0, &vps))?;
    let rs = RasterizerState {
        scissor: true,
        line_width: 1.0,
        clip_halfz: true,
        ..Default::default()
    };
    let rh = step("rasterizer", e.ctx.create_rasterizer_state(&rs))?;
    step("bind", e.ctx.bind_rasterizer_state(Some(rh)))?;
    let sc = |maxy| ScissorState {
        minx: 0,
        miny: 0,
        maxx: W as u16,
        maxy,
    };
    step(
        "scissors",
        e.ctx.set_scissor_states(0, &[sc(H as u16), sc(8)]),
    )?;
    // The left half of NDC: x in [-1, 0], all of y.
    let quad = [
        -1.0, -1.0, 0.0, 1.0, 0.0, -1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, -1.0, -1.0, 0.0, 1.0, 0.0,
        1.0, 0.0, 1.0, -1.0, 1.0, 0.0, 1.0,
    ];
    bind_vertices(&mut e, &quad, None)?;
    let c = [0.0, 1.0, 0.5, 1.0];
    set_color(&mut e, c)?;
    clear_color(&mut e, [0.0; 4])?;
    draw(&mut e, PrimType::Triangles, 0, 6, 1)?;
    check_image(ctx, &mut e, &t, |x, y| {
        let inside = x < 4 || ((8..12).contains(&x) && y < 8);
        Some(if inside { unorm(c) } else { [0; 4].into() })
    })?;
    step("unbind gs", e.ctx.bind_gs_state(None))?;
    step("delete gs", e.ctx.delete_gs_state(g))
}
both_paths!("pipe.draw.viewport.multiple", multiple_viewports);

const GS_TEX: &str =
    "shader geometry input=triangles output=triangle_strip max_vertices=3 invocations=1
in @pos : f32x4[3] builtin=position
out @gl_pos : f32x4 builtin=position
out @col : f32x4 location=0
texture @t slot=0 dim=2d sampled=float
fn main {
  %0 : i32 = const 0
  %1 : i32 = const 1
  %2 : i32 = const 2
  %3 : f32x2 = const 0.75, 0.25
  %4 : f32 = const 0.0
  %5 : f32x4 = txl @t, coord=%3, lod=%4
  %6 : f32x4 = load @pos, %0
  %7 : f32x4 = load @pos, %1
  %8 : f32x4 = load @pos, %2
  store @col, %5
  store @gl_pos, %6
  emit_vertex
  store @col, %5
  store @gl_pos, %7
  emit_vertex
  store @col, %5
  store @gl_pos, %8
  emit_vertex
  end_primitive
}
";

const FS_VARYING: &str = "shader fragment
in @col : f32x4 location=0
out @frag : f32x4 location=0
fn main {
  %0 : f32x4 = load @col
  store @frag, %0
}
";

/// A 2x2 RGBA8 texture with four distinct texels (row-major), its whole
/// view and a nearest, no-mip sampler.
fn texture_2x2(
    e: &mut Env,
) -> Result<
    (
        [[u8; 4]; 4],
        pipe_core::view::SamplerView,
        pipe_core::cso::SamplerHandle,
    ),
    Outcome,
> {
    let tt = ResourceTemplate::texture_2d(Format::R8G8B8A8Unorm, 2, 2, BindFlags::SAMPLER_VIEW);
    let tex = e.texture(&tt)?;
    let texels: [[u8; 4]; 4] = [
        [10, 20, 30, 255],
        [200, 40, 90, 255],
        [50, 60, 70, 255],
        [80, 90, 100, 255],
    ];
    e.write_texture(&tex, 0, &PipeBox::rect(0, 0, 2, 2), texels.as_flattened())?;
    let view = step(
        "view",
        e.ctx
            .create_sampler_view(&tex, &pipe_core::view::SamplerViewTemplate::whole(&tt)),
    )?;
    let ss = SamplerState {
        min_mip_filter: MipFilter::None,
        ..Default::default()
    };
    let sh = step("sampler", e.ctx.create_sampler_state(&ss))?;
    Ok((texels, view, sh))
}

/// Textures outside VS/FS: a geometry shader samples texel (1, 0) of a
/// 2x2 texture bound to the geometry stage (nothing bound to the fragment
/// stage) and hands it to the fragment shader; the target shows it.
fn geometry_texture(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    if !e.screen.caps().shader[ShaderStage::Geometry.index()].supported {
        return Err(Outcome::skip("no geometry shaders"));
    }
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_VARYING)?;
    let g = step(
        "create_gs_state",
        e.ctx
            .create_gs_state(&shader(ShaderStage::Geometry, GS_TEX)?),
    )?;
    step("bind_gs_state", e.ctx.bind_gs_state(Some(g)))?;
    let (texels, view, sh) = texture_2x2(&mut e)?;
    step(
        "bind sampler",
        e.ctx
            .bind_sampler_states(ShaderStage::Geometry, 0, &[Some(sh)]),
    )?;
    step(
        "set_sampler_views",
        e.ctx
            .set_sampler_views(ShaderStage::Geometry, 0, &[Some(view)], 0),
    )?;
    bind_vertices(
        &mut e,
        &[
            -1.0, -1.0, 0.0, 1.0, 3.0, -1.0, 0.0, 1.0, -1.0, 3.0, 0.0, 1.0,
        ],
        None,
    )?;
    clear_color(&mut e, [0.0; 4])?;
    draw(&mut e, PrimType::Triangles, 0, 3, 1)?;
    check_image(ctx, &mut e, &t, |_, _| Some(texels[1]))?;
    step("unbind gs", e.ctx.bind_gs_state(None))?;
    step("delete gs", e.ctx.delete_gs_state(g))
}
both_paths!("pipe.draw.geometry.texture", geometry_texture);

const FS_TXL_CONST: &str = "shader fragment
out @frag : f32x4 location=0
texture @t slot=0 dim=2d sampled=float
fn main {
  %0 : f32x2 = const 0.25, 0.75
  %1 : f32 = const 0.0
  %2 : f32x4 = txl @t, coord=%0, lod=%1
  store @frag, %2
}
";

/// Switching pipeline layouts in one command buffer: a draw sampling in
/// the fragment stage (texel (0, 1)) fills the target, then a draw whose
/// geometry shader samples (texel (1, 0), the wide layout) covers the left
/// half. Both results must show, under validation.
fn texture_layout_switch(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    if !e.screen.caps().shader[ShaderStage::Geometry.index()].supported {
        return Err(Outcome::skip("no geometry shaders"));
    }
    let t = setup(&mut e, false)?;
    let (texels, view, sh) = texture_2x2(&mut e)?;
    for stage in [ShaderStage::Fragment, ShaderStage::Geometry] {
        step(
            "bind sampler",
            e.ctx.bind_sampler_states(stage, 0, &[Some(sh)]),
        )?;
        step(
            "set_sampler_views",
            e.ctx.set_sampler_views(stage, 0, &[Some(view.clone())], 0),
        )?;
    }
    clear_color(&mut e, [0.0; 4])?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_TXL_CONST)?;
    bind_vertices(
        &mut e,
        &[
            -1.0, -1.0, 0.0, 1.0, 3.0, -1.0, 0.0, 1.0, -1.0, 3.0, 0.0, 1.0,
        ],
        None,
    )?;
    draw(&mut e, PrimType::Triangles, 0, 3, 1)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_VARYING)?;
    let g = step(
        "create_gs_state",
        e.ctx
            .create_gs_state(&shader(ShaderStage::Geometry, GS_TEX)?),
    )?;
    step("bind_gs_state", e.ctx.bind_gs_state(Some(g)))?;
    let left = [
        -1.0, -1.0, 0.0, 1.0, 0.0, -1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, -1.0, -1.0, 0.0, 1.0, 0.0,
        1.0, 0.0, 1.0, -1.0, 1.0, 0.0, 1.0,
    ];
    bind_vertices(&mut e, &left, None)?;
    draw(&mut e, PrimType::Triangles, 0, 6, 1)?;
    check_image(ctx, &mut e, &t, |x, _| {
        Some(if x < W / 2 { texels[1] } else { texels[2] })
    })?;
    step("unbind gs", e.ctx.bind_gs_state(None))?;
    step("delete gs", e.ctx.delete_gs_state(g))
}
both_paths!(
    "pipe.draw.geometry.texture_layout_switch",
    texture_layout_switch
);

/// Line stipple: a horizontal line through pixel centres of row 8 with
/// factor 2 (Gallium stores 1) and pattern 0x3333 (two bits on, two off,
/// from bit 0): pixel x is lit when bit (x / 2) % 16 of the pattern is,
/// so columns 0..4 and 8..12 (the rest is past the 16-pixel target).
fn line_stipple(ctx: &mut TestContext, staging: bool) -> R {
    line_stipple_on(ctx, env(ctx, staging)?)
}
both_paths!("pipe.draw.line_stipple.factor2_3333", line_stipple);

/// The same through the shader emulation that devices without stippled
/// lines take (`PIPE_VK_DEBUG=emulate_line_stipple`): a generated geometry
/// shader computes the distance along the line, the fragment shader
/// discards by the pattern.
fn line_stipple_emulated(ctx: &mut TestContext, staging: bool) -> R {
    let e = crate::harness::env_with(ctx, |o| {
        o.staging = Some(staging);
        o.emulate_line_stipple = Some(true);
    })?;
    line_stipple_on(ctx, e)
}
both_paths!(
    "pipe.draw.line_stipple.emulated.factor2_3333",
    line_stipple_emulated
);
crate::spirv_variant!(
    "pipe.draw.line_stipple.emulated.factor2_3333",
    line_stipple_emulated
);

fn line_stipple_on(ctx: &mut TestContext, mut e: Env) -> R {
    if !e.screen.caps().line_stipple {
        return Err(Outcome::skip("no line stipple"));
    }
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    let (factor, pattern) = (2u32, 0x3333u16);
    let rs = RasterizerState {
        line_width: 1.0,
        clip_halfz: true,
        line_stipple_enable: true,
        line_stipple_factor: (factor - 1) as u8,
        line_stipple_pattern: pattern,
        ..Default::default()
    };
    let rh = step("rasterizer", e.ctx.create_rasterizer_state(&rs))?;
    step("bind", e.ctx.bind_rasterizer_state(Some(rh)))?;
    let ndc = |px: f32, size: u32| px / (size as f32 / 2.0) - 1.0;
    let y = ndc(8.5, H);
    let line = [ndc(0.5, W), y, 0.0, 1.0, ndc(16.5, W), y, 0.0, 1.0];
    bind_vertices(&mut e, &line, None)?;
    let c = [1.0, 0.5, 0.0, 1.0];
    set_color(&mut e, c)?;
    clear_color(&mut e, [0.0; 4])?;
    draw(&mut e, PrimType::Lines, 0, 2, 1)?;
    check_image(ctx, &mut e, &t, |x, yy| {
        let lit = yy == 8 && pattern & (1 << ((x / factor) % 16)) != 0;
        Some(if lit { unorm(c) } else { [0; 4].into() })
    })
}

pub(crate) const TCS: &str = "shader tess_ctrl vertices=3
in @pos : f32x4[32] builtin=position
in @iid : i32 builtin=invocation_id
out @opos : f32x4[3] builtin=position
out @outer : f32[4] builtin=tess_level_outer
out @inner : f32[2] builtin=tess_level_inner
fn main {
  %0 : i32 = load @iid
  %1 : f32x4 = load @pos, %0
  store @opos, %0, %1
  %2 : i32 = const 0
  %3 : bool = ieq %0, %2
  if %3 {
    %4 : f32 = const 1.0
    %5 : i32 = const 1
    %6 : i32 = const 2
    store @outer, %2, %4
    store @outer, %5, %4
    store @outer, %6, %4
    store @inner, %2, %4
  }
}
";

pub(crate) const TES: &str = "shader tess_eval mode=triangles spacing=equal winding=ccw
in @pos : f32x4[32] builtin=position
in @tc : f32x3 builtin=tess_coord
out @gl_pos : f32x4 builtin=position
fn main {
  %0 : f32x3 = load @tc
  %1 : i32 = const 0
  %2 : i32 = const 1
  %3 : i32 = const 2
  %4 : f32x4 = load @pos, %1
  %5 : f32x4 = load @pos, %2
  %6 : f32x4 = load @pos, %3
  %7 : f32 = swizzle %0, x
  %8 : f32 = swizzle %0, y
  %9 : f32 = swizzle %0, z
  %10 : f32x4 = vec %7, %7, %7, %7
  %11 : f32x4 = vec %8, %8, %8, %8
  %12 : f32x4 = vec %9, %9, %9, %9
  %13 : f32x4 = fmul %4, %10
  %14 : f32x4 = ffma %5, %11, %13
  %15 : f32x4 = ffma %6, %12, %14
  store @gl_pos, %15
}
";

/// Tessellation with levels 1: each 3-vertex patch becomes its triangle,
/// so two patches cover square 1 exactly.
fn tessellation(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    if !e.screen.caps().shader[ShaderStage::TessEval.index()].supported {
        return Err(Outcome::skip("no tessellation"));
    }
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    let tc = step(
        "tcs",
        e.ctx.create_tcs_state(&shader(ShaderStage::TessCtrl, TCS)?),
    )?;
    let te = step(
        "tes",
        e.ctx.create_tes_state(&shader(ShaderStage::TessEval, TES)?),
    )?;
    step("bind tcs", e.ctx.bind_tcs_state(Some(tc)))?;
    step("bind tes", e.ctx.bind_tes_state(Some(te)))?;
    step("patch vertices", e.ctx.set_patch_vertices(3))?;
    bind_vertices(&mut e, &diagonal_squares(), None)?;
    let c = [0.25, 0.75, 0.25, 1.0];
    set_color(&mut e, c)?;
    clear_color(&mut e, [0.0; 4])?;
    // Triangles as patches without tessellation would be an error.
    match e.ctx.draw_vbo(
        &DrawInfo::default(),
        0,
        None,
        &[DrawStartCountBias {
            start: 6,
            count: 6,
            index_bias: 0,
        }],
    ) {
        Err(PipeError::InvalidArgument(_)) => {}
        other => {
            return Err(Outcome::fail(format!(
                "triangles with a TES bound gave {other:?}"
            )))
        }
    }
    draw(&mut e, PrimType::Patches, 6, 6, 1)?;
    check_image(ctx, &mut e, &t, |x, y| {
        Some(if on_diagonal(x, y, &[1]) {
            unorm(c)
        } else {
            [0; 4].into()
        })
    })
}
both_paths!("pipe.draw.tessellation.passthrough", tessellation);

/// Tessellation without a control shader after a vertex shader that
/// writes a clip distance of -1 (and no plane enabled): only the last
/// stage's distances clip, and the evaluation shader writes none, so the
/// patches are drawn as in `pipe.draw.tessellation.passthrough` (the
/// generated control shader forwards the distances, which nothing reads).
fn tessellation_vs_clip_distance(ctx: &mut TestContext) -> R {
    const VS_CD: &str = "shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
out @cd : f32[1] builtin=clip_distance
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  %1 : f32 = const -1.0
  %2 : i32 = const 0
  store @cd, %2, %1
}
";
    let mut e = env(ctx, false)?;
    if !e.screen.caps().shader[ShaderStage::TessEval.index()].supported {
        return Err(Outcome::skip("no tessellation"));
    }
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_CD, FS_UBO_COLOR)?;
    bind_stage(&mut e, ShaderStage::TessEval, TES)?;
    crate::harness::tess_levels_1(&mut e, 3)?;
    bind_vertices(&mut e, &diagonal_squares(), None)?;
    let c = [0.25, 0.75, 0.25, 1.0];
    set_color(&mut e, c)?;
    clear_color(&mut e, [0.0; 4])?;
    draw(&mut e, PrimType::Patches, 6, 6, 1)?;
    check_image(ctx, &mut e, &t, |x, y| {
        Some(if on_diagonal(x, y, &[1]) {
            unorm(c)
        } else {
            [0; 4].into()
        })
    })
}
crate::result_case!(
    "pipe.draw.tessellation.vs_clip_distance",
    tessellation_vs_clip_distance
);

/// A vertex shader writing two clip distances (`x + 0.25`, and 2) and an
/// array varying, for the stages that read them per vertex
/// (`gl_in[i].gl_ClipDistance[j]`, arrays of arrays in the IR).
pub(crate) const VS_CD2: &str = "shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
out @cd : f32[2] builtin=clip_distance
out @col : f32x4[2] location=1
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  %1 : f32 = swizzle %0, x
  %2 : f32 = const 0.25
  %3 : f32 = fadd %1, %2
  %4 : i32 = const 0
  store @cd, %4, %3
  %5 : f32 = const 2.0
  %6 : i32 = const 1
  store @cd, %6, %5
  %7 : f32 = const 0.0
  %8 : f32 = const 1.0
  %9 : f32x4 = vec %8, %7, %7, %8
  store @col, %4, %9
  %10 : f32x4 = vec %7, %8, %7, %8
  store @col, %6, %10
}
";

/// The fragment shader of [`VS_CD2`]'s stages: the colour input.
pub(crate) const FS_COL: &str = "shader fragment
in @col : f32x4 location=1
out @o : f32x4 location=0
fn main {
  %0 : f32x4 = load @col
  store @o, %0
}
";

/// The fragment shader of [`VS_CD2`] alone: the array varying's
/// element 1.
pub(crate) const FS_COL1: &str = "shader fragment
in @col : f32x4[2] location=1
out @o : f32x4 location=0
fn main {
  %0 : i32 = const 1
  %1 : f32x4 = load @col, %0
  store @o, %1
}
";

/// Square 1 of `diagonal_squares` (pixels 4..8) where [`VS_CD2`]'s
/// `x + 0.25` is positive at the pixel centre (x 6 and 7), in green.
fn square_1_right_half(x: u32, y: u32) -> Option<crate::image::Rgba8Range> {
    Some(if on_diagonal(x, y, &[1]) && x >= 6 {
        unorm([0.0, 1.0, 0.0, 1.0])
    } else {
        [0; 4].into()
    })
}

/// Tessellation without a control shader, whose evaluation shader reads
/// the vertex shader's clip distances (`gl_in[i].gl_ClipDistance[j]`)
/// through the generated control shader, which forwards them as arrays
/// of arrays, and its array varying's element 1. It writes `cd[0] *
/// cd[1] / 2` interpolated: clipping at x = -0.25 with plane 0 enabled,
/// which drops element 1 (were it not forwarded, it would read 0 and clip
/// everything).
fn tessellation_tes_reads_vs_clip_distance(ctx: &mut TestContext) -> R {
    const TES_CD: &str = "shader tess_eval mode=triangles spacing=equal winding=ccw
in @pos : f32x4[32] builtin=position
in @cd : f32[32][2] builtin=clip_distance
in @col : f32x4[32][2] location=1
in @tc : f32x3 builtin=tess_coord
out @gl_pos : f32x4 builtin=position
out @ocd : f32[1] builtin=clip_distance
out @ocol : f32x4 location=1
local @acc : f32x4
local @d : f32
fn main {
  %0 : f32x3 = load @tc
  %1 : f32 = const 0.0
  %2 : f32x4 = vec %1, %1, %1, %1
  store @acc, %2
  store @d, %1
  %3 : f32 = const 0.5
  %4 : i32 = const 2
  %5 : i32 = const 1
  %6 : f32 = swizzle %0, x
  %7 : f32 = swizzle %0, y
  %8 : f32 = swizzle %0, z
  %9 : i32 = const 0
  %10 : f32x4 = load @pos, %9
  %11 : f32x4 = load @pos, %5
  %12 : f32x4 = load @pos, %4
  %13 : f32x4 = vec %6, %6, %6, %6
  %14 : f32x4 = vec %7, %7, %7, %7
  %15 : f32x4 = vec %8, %8, %8, %8
  %16 : f32x4 = fmul %10, %13
  %17 : f32x4 = ffma %11, %14, %16
  %18 : f32x4 = ffma %12, %15, %17
  store @gl_pos, %18
  %19 : f32 = load @cd, %9
  %20 : f32 = load @cd, %5
  %21 : f32 = fmul %19, %20
  %22 : i32 = const 3
  %23 : f32 = load @cd, %4
  %24 : f32 = load @cd, %22
  %25 : f32 = fmul %23, %24
  %26 : i32 = const 4
  %27 : i32 = const 5
  %28 : f32 = load @cd, %26
  %29 : f32 = load @cd, %27
  %30 : f32 = fmul %28, %29
  %31 : f32 = fmul %21, %6
  %32 : f32 = ffma %25, %7, %31
  %33 : f32 = ffma %30, %8, %32
  %34 : f32 = fmul %33, %3
  store @ocd, %9, %34
  %35 : f32x4 = load @col, %5
  store @ocol, %35
}
";
    square_1_through(ctx, ShaderStage::TessEval, TES_CD)
}

/// Draws square 1 of `diagonal_squares` through [`VS_CD2`], `stage`'s
/// shader `src` (as patches of 3 with levels 1 for an evaluation shader)
/// and [`FS_COL`], with plane 0 enabled, and checks
/// [`square_1_right_half`].
fn square_1_through(ctx: &mut TestContext, stage: ShaderStage, src: &str) -> R {
    let mut e = env(ctx, false)?;
    if !e.screen.caps().shader[stage.index()].supported {
        return Err(Outcome::skip(format!("no {stage:?} shaders")));
    }
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_CD2, FS_COL)?;
    bind_stage(&mut e, stage, src)?;
    bind_rasterizer(&mut e, |r| r.clip_plane_enable = 1)?;
    let prim = if stage == ShaderStage::TessEval {
        crate::harness::tess_levels_1(&mut e, 3)?;
        PrimType::Patches
    } else {
        PrimType::Triangles
    };
    bind_vertices(&mut e, &diagonal_squares(), None)?;
    clear_color(&mut e, [0.0; 4])?;
    draw(&mut e, prim, 6, 6, 1)?;
    check_image(ctx, &mut e, &t, square_1_right_half)
}
/// Tessellated triangles face as their patches do (GL's tessellation
/// domain has its origin at the lower left; Vulkan's default upper-left
/// origin reverses the generated triangles' vertex order): square 1 as
/// patches through [`TES`] (`ccw`) and square 2 as triangles, both
/// clockwise in GL's window coordinates (back faces with `front_ccw`), are
/// both culled with back faces culled and both drawn with front faces
/// culled.
fn tessellation_facing(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    if !e.screen.caps().shader[ShaderStage::TessEval.index()].supported {
        return Err(Outcome::skip("no tessellation"));
    }
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    bind_vertices(&mut e, &diagonal_squares(), None)?;
    let c = [0.25, 0.75, 0.25, 1.0];
    set_color(&mut e, c)?;
    for cull in [Face::BACK, Face::FRONT] {
        bind_rasterizer(&mut e, |r| {
            r.front_ccw = true;
            r.cull_face = cull;
        })?;
        clear_color(&mut e, [0.0; 4])?;
        bind_stage(&mut e, ShaderStage::TessEval, TES)?;
        crate::harness::tess_levels_1(&mut e, 3)?;
        draw(&mut e, PrimType::Patches, 6, 6, 1)?;
        step("unbind tes", e.ctx.bind_tes_state(None))?;
        draw(&mut e, PrimType::Triangles, 12, 6, 1)?;
        check_image(ctx, &mut e, &t, |x, y| {
            Some(if cull == Face::FRONT && on_diagonal(x, y, &[1, 2]) {
                unorm(c)
            } else {
                [0; 4].into()
            })
        })?;
    }
    Ok(())
}
crate::result_case!("pipe.draw.tessellation.facing", tessellation_facing);

/// Green for front faces, red for back faces.
const FS_FACING: &str = "shader fragment
in @ff : bool builtin=front_facing
out @frag : f32x4 location=0
fn main {
  %0 : bool = load @ff
  %1 : f32x4 = const 0.0, 1.0, 0.0, 1.0
  %2 : f32x4 = const 1.0, 0.0, 0.0, 1.0
  %3 : f32x4 = bcsel %0, %1, %2
  store @frag, %3
}
";

/// One tessellation program, a fragment shader reading `front_facing`,
/// and the polygon mode switched between draws: square 0 as patches
/// (levels 1) in LINE or POINT mode, square 2 in FILL mode, in both
/// orders. Square 2 must be filled exactly, the square-0 draw must light
/// pixels (three for lines, one for points) and nothing outside square 0
/// (one pixel of slack), all of it green (front faces: clockwise with
/// `front_ccw` off).
///
/// lavapipe 25.0.7 compiles its evaluation shader with the vertex size
/// of the first draw's outputs and reuses it when llvmpipe's unfilled
/// stage adds or drops the face output it needs for LINE and POINT with
/// such a fragment shader (its TES variant key lacks the output count):
/// the second draw's vertices were read at the wrong stride, and with
/// more tessellated vertices the shader wrote past its buffer (the heap
/// corruption of state fuzz seeds 18, 48, 80 and others). The workaround
/// (`DeviceShared::tes_variants_follow_outputs`) gives each polygon mode
/// a pipeline of its own.
fn tessellation_polygon_modes(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    if !e.screen.caps().shader[ShaderStage::TessEval.index()].supported {
        return Err(Outcome::skip("no tessellation"));
    }
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_FACING)?;
    bind_stage(&mut e, ShaderStage::TessEval, TES)?;
    crate::harness::tess_levels_1(&mut e, 3)?;
    bind_vertices(&mut e, &diagonal_squares(), None)?;
    let green = unorm([0.0, 1.0, 0.0, 1.0]);
    let mode = |e: &mut Env, m: PolygonMode| {
        bind_rasterizer(e, |r| {
            r.fill_front = m;
            r.fill_back = m;
        })
    };
    for (unfilled, fill_first) in [
        (PolygonMode::Line, false),
        (PolygonMode::Line, true),
        (PolygonMode::Point, false),
        (PolygonMode::Point, true),
    ] {
        let what = format!(
            "{unfilled:?} {}",
            if fill_first {
                "after FILL"
            } else {
                "before FILL"
            }
        );
        clear_color(&mut e, [0.0; 4])?;
        for fill in [fill_first, !fill_first] {
            if fill {
                mode(&mut e, PolygonMode::Fill)?;
                draw(&mut e, PrimType::Patches, 12, 6, 1)?;
            } else {
                mode(&mut e, unfilled)?;
                draw(&mut e, PrimType::Patches, 0, 6, 1)?;
            }
        }
        let got = e.read_texture(&t.color, 0, &PipeBox::rect(0, 0, W, H))?;
        let mut unfilled_lit = 0;
        for (i, p) in got.chunks_exact(4).enumerate() {
            let (x, y) = (i as u32 % W, i as u32 / W);
            let lit = p != [0, 0, 0, 0];
            let square_2 = on_diagonal(x, y, &[2]);
            let near_0 = x < 5 && y < 5;
            if (square_2 || lit) && !green.contains([p[0], p[1], p[2], p[3]]) {
                return Err(Outcome::fail(format!(
                    "{what}: pixel ({x}, {y}) is {p:?}, expected green{}",
                    if square_2 { " (square 2, filled)" } else { "" }
                )));
            }
            if lit && !square_2 && !near_0 {
                return Err(Outcome::fail(format!(
                    "{what}: pixel ({x}, {y}) is lit, outside squares 0 and 2"
                )));
            }
            unfilled_lit += u32::from(lit && near_0);
        }
        // Points sit on pixel corners, some outside the target.
        let least = if unfilled == PolygonMode::Line { 3 } else { 1 };
        if unfilled_lit < least {
            return Err(Outcome::fail(format!(
                "{what}: square 0 lit {unfilled_lit} pixels"
            )));
        }
    }
    Ok(())
}
crate::result_case!(
    "pipe.draw.tessellation.polygon_mode_switch",
    tessellation_polygon_modes
);

crate::result_case!(
    "pipe.draw.tessellation.tes_reads_vs_clip_distance",
    tessellation_tes_reads_vs_clip_distance
);

/// A geometry shader reading each vertex's clip distances
/// (`gl_in[i].gl_ClipDistance[j]`) and array varying (arrays of arrays in
/// the IR), indexed with a loop counter: it passes `cd[0] * cd[1] / 2`
/// on as its clip distance 0 and `col[1]` as its colour, so plane 0 clips
/// at x = -0.25 and the rest is green.
fn gs_reads_per_vertex_arrays(ctx: &mut TestContext) -> R {
    const GS_CD: &str =
        "shader geometry input=triangles output=triangle_strip max_vertices=3 invocations=1
in @pos : f32x4[3] builtin=position
in @cd : f32[3][2] builtin=clip_distance
in @col : f32x4[3][2] location=1
out @gl_pos : f32x4 builtin=position
out @ocd : f32[1] builtin=clip_distance
out @ocol : f32x4 location=1
local @v : i32
fn main {
  %0 : i32 = const 0
  %1 : i32 = const 1
  %2 : i32 = const 2
  %3 : i32 = const 3
  %4 : f32 = const 0.5
  store @v, %0
  loop {
    %5 : i32 = load @v
    %6 : bool = ige %5, %3
    if %6 {
      break
    }
    %7 : f32x4 = load @pos, %5
    store @gl_pos, %7
    %8 : i32 = imul %5, %2
    %9 : i32 = iadd %8, %1
    %10 : f32 = load @cd, %8
    %11 : f32 = load @cd, %9
    %12 : f32 = fmul %10, %11
    %13 : f32 = fmul %12, %4
    store @ocd, %0, %13
    %14 : f32x4 = load @col, %9
    store @ocol, %14
    emit_vertex
    %15 : i32 = iadd %5, %1
    store @v, %15
  }
  end_primitive
}
";
    square_1_through(ctx, ShaderStage::Geometry, GS_CD)
}
crate::result_case!(
    "pipe.draw.geometry.reads_per_vertex_arrays",
    gs_reads_per_vertex_arrays
);

/// Line stipple emulation (forced; a generated geometry shader) after a
/// vertex shader writing clip distances and an array varying: the
/// generated shader forwards both (it refused the draw before), so plane
/// 0 clips the line at x = -0.25 and the rest takes `col[1]`, green. The
/// pattern draws every pixel.
fn stipple_gs_forwards_arrays(ctx: &mut TestContext) -> R {
    let mut e = env_with(ctx, |o| o.emulate_line_stipple = Some(true))?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_CD2, FS_COL1)?;
    bind_rasterizer(&mut e, |r| {
        r.clip_plane_enable = 1;
        r.line_stipple_enable = true;
        r.line_stipple_pattern = 0xffff;
    })?;
    // Through the centres of row 8.
    let y = 8.5 / 8.0 - 1.0;
    bind_vertices(&mut e, &[-1.0, y, 0.0, 1.0, 1.0, y, 0.0, 1.0], None)?;
    clear_color(&mut e, [0.0; 4])?;
    draw(&mut e, PrimType::Lines, 0, 2, 1)?;
    check_image(ctx, &mut e, &t, |x, y| {
        Some(match (x, y) {
            (15, 8) => return None,
            (6.., 8) => unorm([0.0, 1.0, 0.0, 1.0]),
            _ => unorm([0.0; 4]),
        })
    })
}
crate::result_case!(
    "pipe.draw.line_stipple.emulated_forwards_arrays",
    stipple_gs_forwards_arrays
);

/// Two patch sizes in one command buffer with one control shader (3
/// output vertices; it reads input vertices 0-2): 3-vertex patches over
/// square 0, then 4-vertex patches (the fourth vertex far off screen,
/// unread) over square 2. The count is dynamic state where the device has
/// extended dynamic state 2's patch control points, else in the pipeline
/// (`no_dynamic_rasterizer`).
fn patch_sizes(ctx: &mut TestContext, dynamic: bool) -> R {
    let mut e = env_with(ctx, |o| o.no_dynamic_rasterizer = Some(!dynamic))?;
    if !e.screen.caps().shader[ShaderStage::TessEval.index()].supported {
        return Err(Outcome::skip("no tessellation"));
    }
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    bind_stage(&mut e, ShaderStage::TessCtrl, TCS)?;
    bind_stage(&mut e, ShaderStage::TessEval, TES)?;
    let c = [0.75, 0.25, 0.5, 1.0];
    set_color(&mut e, c)?;
    clear_color(&mut e, [0.0; 4])?;
    let squares = diagonal_squares();
    let square = |k: usize| &squares[k * 24..(k + 1) * 24];
    step("patch vertices", e.ctx.set_patch_vertices(3))?;
    bind_vertices(&mut e, square(0), None)?;
    draw(&mut e, PrimType::Patches, 0, 6, 1)?;
    let junk = [9.0, 9.0, 0.0, 1.0];
    let mut four = Vec::new();
    for tri in square(2).chunks(12) {
        four.extend_from_slice(tri);
        four.extend_from_slice(&junk);
    }
    step("patch vertices", e.ctx.set_patch_vertices(4))?;
    bind_vertices(&mut e, &four, None)?;
    draw(&mut e, PrimType::Patches, 0, 8, 1)?;
    check_image(ctx, &mut e, &t, |x, y| {
        Some(if on_diagonal(x, y, &[0, 2]) {
            unorm(c)
        } else {
            [0; 4].into()
        })
    })
}
crate::bool_cases!(
    patch_sizes,
    "pipe.draw.tessellation.patch_sizes.static",
    "pipe.draw.tessellation.patch_sizes.dynamic",
);

/// Driver messages reach the frontend's debug callback: a pipeline
/// compile and a CPU index rewrite (quads) are reported; removing the
/// callback stops the reports.
fn debug_callback(ctx: &mut TestContext, staging: bool) -> R {
    use std::sync::Mutex;
    let mut e = env(ctx, staging)?;
    setup(&mut e, false)?;
    let log: Arc<Mutex<Vec<DebugMessage>>> = Arc::default();
    let sink = log.clone();
    let cb: DebugCallback = Arc::new(move |m: &DebugMessage| {
        sink.lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(m.clone())
    });
    step("set_debug_callback", e.ctx.set_debug_callback(Some(cb)))?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    set_color(&mut e, [1.0; 4])?;
    bind_vertices(
        &mut e,
        &[
            -1.0, -1.0, 0.0, 1.0, 0.0, -1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, -1.0, 0.0, 0.0, 1.0,
        ],
        None,
    )?;
    draw(&mut e, PrimType::Quads, 0, 4, 1)?;
    let msgs = log.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let has = |kind: DebugType, needle: &str| {
        msgs.iter()
            .any(|m| m.kind == kind && m.text.contains(needle))
    };
    if !has(DebugType::PerfInfo, "index rewriting") || !has(DebugType::ShaderInfo, "pipeline") {
        return Err(Outcome::fail(format!("debug messages: {msgs:?}")));
    }
    step("remove callback", e.ctx.set_debug_callback(None))?;
    let before = log.lock().unwrap_or_else(|p| p.into_inner()).len();
    draw(&mut e, PrimType::Quads, 0, 4, 1)?;
    let after = log.lock().unwrap_or_else(|p| p.into_inner()).len();
    if before != after {
        return Err(Outcome::fail(
            "messages arrived after the callback was removed",
        ));
    }
    Ok(())
}
both_paths!("pipe.draw.debug_callback.driver_messages", debug_callback);

/// Rendering into one depth slice of a 3D texture's level 1 (4x4x2 of
/// 8x8x4): the slice's pixels are drawn, the other slice keeps its clear.
fn render_to_3d_slice(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let _ = setup(&mut e, false)?; // rasterizer and programs as elsewhere
    let mut t = ResourceTemplate::texture_2d(
        Format::R8G8B8A8Unorm,
        8,
        8,
        BindFlags::RENDER_TARGET | BindFlags::SAMPLER_VIEW,
    );
    t.target = pipe_core::Target::Texture3D;
    t.depth0 = 4;
    t.last_level = 1;
    let tex = e.texture(&t)?;
    let zero = vec![0u8; 4 * 4 * 2 * 4];
    e.write_texture(&tex, 1, &PipeBox::new(0, 0, 0, 4, 4, 2), &zero)?;
    let s = step(
        "surface",
        e.ctx.create_surface(
            &tex,
            &SurfaceTemplate {
                format: t.format,
                level: 1,
                first_layer: 1,
                last_layer: 1,
            },
        ),
    )?;
    let fb = FramebufferState {
        width: 4,
        height: 4,
        layers: 1,
        samples: 1,
        cbufs: vec![Some(s)],
        zsbuf: None,
        resolve: None,
    };
    step("set_framebuffer_state", e.ctx.set_framebuffer_state(&fb))?;
    let vp = ViewportState {
        scale: [2.0, 2.0, 1.0],
        translate: [2.0, 2.0, 0.0],
        swizzle: Default::default(),
    };
    step("viewport", e.ctx.set_viewport_states(0, &[vp]))?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    let c = [0.2, 0.4, 0.6, 0.8];
    set_color(&mut e, c)?;
    // The left half: NDC x in [-1, 0] covers pixel columns 0 and 1.
    bind_vertices(
        &mut e,
        &[
            -1.0, -1.0, 0.0, 1.0, 0.0, -1.0, 0.0, 1.0, -1.0, 1.0, 0.0, 1.0, //
            -1.0, 1.0, 0.0, 1.0, 0.0, -1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0,
        ],
        None,
    )?;
    draw(&mut e, PrimType::Triangles, 0, 6, 1)?;
    let got = e.read_texture(&tex, 1, &PipeBox::new(0, 0, 0, 4, 4, 2))?;
    let mut want = zero.clone();
    for y in 0..4usize {
        for x in 0..2usize {
            let i = ((16 + y * 4) + x) * 4;
            want[i..i + 4].copy_from_slice(&unorm(c).nearest());
        }
    }
    if got != want {
        return Err(Outcome::fail(format!(
            "3D level 1: got {got:?}, expected {want:?}"
        )));
    }
    Ok(())
}
both_paths!("pipe.draw.render_to_3d_slice", render_to_3d_slice);

/// Isolines in point mode, one line per patch: the vertices are at
/// `u = i / outer[1]`, placed at pixel columns `u * 15` of the row given
/// by the patch's vertex (x = (30u + 1) / 16 - 1 in NDC).
const TES_ISOLINE_POINTS: &str =
    "shader tess_eval mode=isolines spacing=equal winding=ccw point_mode
in @pos : f32x4[32] builtin=position
in @tc : f32x3 builtin=tess_coord
out @gl_pos : f32x4 builtin=position
out @psz : f32 builtin=point_size
fn main {
  %0 : f32x3 = load @tc
  %1 : f32 = swizzle %0, x
  %2 : f32 = const 1.875
  %3 : f32 = const -0.9375
  %4 : f32 = ffma %1, %2, %3
  %5 : i32 = const 0
  %6 : f32x4 = load @pos, %5
  %7 : f32 = swizzle %6, y
  %8 : f32 = const 0.0
  %9 : f32 = const 1.0
  %10 : f32x4 = vec %4, %7, %8, %9
  store @gl_pos, %10
  store @psz, %9
}
";

/// Tessellation with no control shader bound: the driver's generated
/// pass-through control shader applies `set_tess_state`'s default levels.
/// Each patch (one vertex) is one isoline cut into `outer[1]` segments,
/// drawn as its `outer[1] + 1` points; rows 2, 7 and 12 are drawn with
/// levels 3, 5 and 15 (the last after a `set_tess_state` between draws).
fn tessellation_default_levels(ctx: &mut TestContext, staging: bool) -> R {
    tessellation_default_levels_with(ctx, staging, None)
}

/// [`tessellation_default_levels`] with the vertex (and evaluation)
/// shader `spirv`: as spirv-gen's SPIR-V passthrough (`"spirv"`), or the
/// glslang-style vertex shader of `per_vertex_spirv.spvasm` writing
/// `gl_Position` in its `gl_PerVertex` block (`"glslang"`). The
/// generated control shader forwards the outputs read from the words
/// (`spirv_gen::patch::vertex_outputs`); it was refused before.
fn tessellation_default_levels_with(
    ctx: &mut TestContext,
    staging: bool,
    spirv: Option<&str>,
) -> R {
    let mut e = env(ctx, staging)?;
    if !e.screen.caps().shader[ShaderStage::TessEval.index()].supported {
        return Err(Outcome::skip("no tessellation"));
    }
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    bind_stage(&mut e, ShaderStage::TessEval, TES_ISOLINE_POINTS)?;
    if let Some(how) = spirv {
        let target = spirv_gen::emit::Target::Vulkan1_3;
        let vs = if how == "glslang" {
            let words: Vec<u32> = include_bytes!("per_vertex_spirv.spv")
                .chunks_exact(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            ShaderState {
                stage: ShaderStage::Vertex,
                code: ShaderCode::SpirV {
                    words: Arc::from(words),
                    entry_point: "unwritten".into(),
                },
                stream_output: Default::default(),
            }
        } else {
            crate::harness::spirv_shader(ShaderStage::Vertex, VS_PASSTHROUGH, target)?
        };
        let v = step("vs", e.ctx.create_vs_state(&vs))?;
        step("bind vs", e.ctx.bind_vs_state(Some(v)))?;
        let tes = crate::harness::spirv_shader(ShaderStage::TessEval, TES_ISOLINE_POINTS, target)?;
        let h = step("tes", e.ctx.create_tes_state(&tes))?;
        step("bind tes", e.ctx.bind_tes_state(Some(h)))?;
    }
    step("patch vertices", e.ctx.set_patch_vertices(1))?;
    let c = [1.0, 0.5, 0.0, 1.0];
    set_color(&mut e, c)?;
    clear_color(&mut e, [0.0; 4])?;
    // Row r's centre is at NDC y = (2r + 1) / 16 - 1.
    let row_y = |r: u32| (2 * r + 1) as f32 / 16.0 - 1.0;
    let rows = [(2u32, 3u32), (7, 5), (12, 15)];
    let verts: Vec<f32> = rows
        .iter()
        .flat_map(|&(r, _)| [0.0, row_y(r), 0.0, 1.0])
        .collect();
    bind_vertices(&mut e, &verts, None)?;
    for (i, &(_, k)) in rows.iter().enumerate() {
        step(
            "set_tess_state",
            e.ctx.set_tess_state(&TessState {
                default_outer_level: [1.0, k as f32, 1.0, 1.0],
                default_inner_level: [1.0, 1.0],
            }),
        )?;
        draw(&mut e, PrimType::Patches, i as u32, 1, 1)?;
    }
    check_image(ctx, &mut e, &t, |x, y| {
        let lit = rows.iter().any(|&(r, k)| y == r && (x * k) % 15 == 0);
        Some(if lit { unorm(c) } else { [0; 4].into() })
    })
}
both_paths!(
    "pipe.draw.tessellation.default_levels",
    tessellation_default_levels
);
const _: () = {
    fn spirv(ctx: &mut TestContext) -> Outcome {
        Outcome::from_result(tessellation_default_levels_with(ctx, false, Some("spirv")))
    }
    fn glslang(ctx: &mut TestContext) -> Outcome {
        Outcome::from_result(tessellation_default_levels_with(
            ctx,
            false,
            Some("glslang"),
        ))
    }
    test_case!(name = "pipe.draw.tessellation.default_levels.spirv", spirv);
    test_case!(
        name = "pipe.draw.tessellation.default_levels.glslang",
        glslang
    );
};

const FULLSCREEN: [f32; 24] = [
    -1.0, -1.0, 0.0, 1.0, 1.0, -1.0, 0.0, 1.0, -1.0, 1.0, 0.0, 1.0, //
    -1.0, 1.0, 0.0, 1.0, 1.0, -1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0,
];

fn rect(minx: u16, miny: u16, maxx: u16, maxy: u16) -> ScissorState {
    ScissorState {
        minx,
        miny,
        maxx,
        maxy,
    }
}

/// Window rectangles (GL_EXT_window_rectangles): a full-screen draw lands
/// inside the rectangles in include mode and outside them in exclude
/// mode; include mode with none culls everything; exclude with none (the
/// default) culls nothing. Min edges are inclusive, max edges exclusive.
/// `shader`: the fragment-shader fallback even where the device has
/// VK_EXT_discard_rectangles (`PIPE_VK_DEBUG=no_discard_rectangles`).
fn window_rectangles(ctx: &mut TestContext, staging: bool, shader: bool) -> R {
    let mut e = crate::harness::env_with(ctx, |o| {
        o.staging = Some(staging);
        o.no_discard_rectangles = Some(shader);
    })?;
    if e.screen.caps().max_window_rectangles < 2 {
        return Err(Outcome::skip("fewer than 2 window rectangles"));
    }
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    bind_vertices(&mut e, &FULLSCREEN, None)?;
    let c = [0.0, 0.5, 1.0, 1.0];
    set_color(&mut e, c)?;
    let rects = [rect(1, 2, 5, 9), rect(4, 8, 12, 11)];
    let inside = |x: u32, y: u32| {
        rects.iter().any(|r| {
            x >= u32::from(r.minx)
                && x < u32::from(r.maxx)
                && y >= u32::from(r.miny)
                && y < u32::from(r.maxy)
        })
    };
    for (include, list, name) in [
        (true, &rects[..], "include"),
        (false, &rects[..], "exclude"),
        (true, &[][..], "include none"),
        (false, &[][..], "exclude none"),
    ] {
        clear_color(&mut e, [0.0; 4])?;
        step(
            "set_window_rectangles",
            e.ctx.set_window_rectangles(include, list),
        )?;
        draw(&mut e, PrimType::Triangles, 0, 6, 1)?;
        check_image(ctx, &mut e, &t, |x, y| {
            let drawn = if list.is_empty() {
                !include
            } else {
                inside(x, y) == include
            };
            Some(if drawn { unorm(c) } else { [0; 4].into() })
        })
        .map_err(|o| Outcome::fail(format!("{name}: {o:?}")))?;
    }
    Ok(())
}
both_paths!(
    "pipe.draw.window_rectangles.modes",
    window_rectangles,
    false
);
both_paths!(
    "pipe.draw.window_rectangles.modes_shader_discard",
    window_rectangles,
    true
);
crate::spirv_variant!(
    "pipe.draw.window_rectangles.modes_shader_discard",
    window_rectangles,
    true
);

/// Window rectangles changing between draws into the same target, with
/// no clear between: mode and rectangles switch, the rectangles are
/// unbound and bound again with the same values, and include mode with
/// none keeps nothing. Each pixel ends with the colour of the last draw
/// whose test it passed.
fn window_rectangles_switches(ctx: &mut TestContext, shader: bool) -> R {
    let mut e = crate::harness::env_with(ctx, |o| o.no_discard_rectangles = Some(shader))?;
    if e.screen.caps().max_window_rectangles < 3 {
        return Err(Outcome::skip("fewer than 3 window rectangles"));
    }
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    bind_vertices(&mut e, &FULLSCREEN, None)?;
    let (r1, r2, r3) = (rect(0, 0, 6, 7), rect(9, 3, 16, 5), rect(3, 2, 11, 14));
    let steps: [(bool, Vec<ScissorState>, [f32; 4]); 6] = [
        (false, vec![], [1.0, 0.0, 0.0, 1.0]),
        (true, vec![r1, r2], [0.0, 1.0, 0.0, 1.0]),
        (false, vec![r3], [0.0, 0.0, 1.0, 1.0]),
        (true, vec![], [1.0, 1.0, 1.0, 1.0]),
        (true, vec![r2, r3, r1], [1.0, 1.0, 0.0, 1.0]),
        (false, vec![r1, r2], [0.0, 1.0, 1.0, 1.0]),
    ];
    clear_color(&mut e, [0.0; 4])?;
    for (include, rects, c) in &steps {
        step(
            "set_window_rectangles",
            e.ctx.set_window_rectangles(*include, rects),
        )?;
        set_color(&mut e, *c)?;
        draw(&mut e, PrimType::Triangles, 0, 6, 1)?;
    }
    let inside = |r: &ScissorState, x: u32, y: u32| {
        (u32::from(r.minx)..u32::from(r.maxx)).contains(&x)
            && (u32::from(r.miny)..u32::from(r.maxy)).contains(&y)
    };
    check_image(ctx, &mut e, &t, |x, y| {
        let last = steps
            .iter()
            .rev()
            .find(|(include, rects, _)| rects.iter().any(|r| inside(r, x, y)) == *include);
        Some(last.map_or([0; 4].into(), |s| unorm(s.2)))
    })
}
fn window_rectangles_switches_device(ctx: &mut TestContext) -> Outcome {
    Outcome::from_result(window_rectangles_switches(ctx, false))
}
fn window_rectangles_switches_shader(ctx: &mut TestContext) -> Outcome {
    Outcome::from_result(window_rectangles_switches(ctx, true))
}
test_case!(
    name = "pipe.draw.window_rectangles.switches",
    window_rectangles_switches_device
);
test_case!(
    name = "pipe.draw.window_rectangles.switches_shader_discard",
    window_rectangles_switches_shader
);

/// Window rectangles with no fragment shader bound (a depth-only pass):
/// the draw still gets the rectangle test (pipe-vk generates a fragment
/// shader for it), so depth outside the excluded rectangle is written and
/// depth inside keeps the clear value.
fn window_rectangles_no_fs(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    if e.screen.caps().max_window_rectangles < 1 {
        return Err(Outcome::skip("no window rectangles"));
    }
    let t = setup(&mut e, true)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    step("unbind fs", e.ctx.bind_fs_state(None))?;
    let dsa = DepthStencilAlphaState {
        depth_enabled: true,
        depth_writemask: true,
        depth_func: CompareFunc::Always,
        ..Default::default()
    };
    let h = step("dsa", e.ctx.create_depth_stencil_alpha_state(&dsa))?;
    step("bind dsa", e.ctx.bind_depth_stencil_alpha_state(Some(h)))?;
    let mut quad = FULLSCREEN;
    for v in quad.chunks_exact_mut(4) {
        v[2] = 0.5;
    }
    bind_vertices(&mut e, &quad, None)?;
    step(
        "clear depth",
        e.ctx.clear(
            ClearFlags::DEPTH,
            None,
            &ColorUnion::from_f32([0.0; 4]),
            1.0,
            0,
        ),
    )?;
    let r = rect(4, 2, 12, 9);
    step(
        "set_window_rectangles",
        e.ctx.set_window_rectangles(false, &[r]),
    )?;
    draw(&mut e, PrimType::Triangles, 0, 6, 1)?;
    let z = t
        .depth
        .as_ref()
        .ok_or_else(|| Outcome::fail("no depth buffer"))?;
    let got = e.read_texture(z, 0, &PipeBox::rect(0, 0, W, H))?;
    for (i, d) in got.chunks_exact(4).enumerate() {
        let (x, y) = (i as u32 % W, i as u32 / W);
        let inside = (4..12).contains(&x) && (2..9).contains(&y);
        let want = if inside { 1.0 } else { 0.5 };
        let v = f32::from_ne_bytes([d[0], d[1], d[2], d[3]]);
        if v != want {
            return Err(Outcome::fail(format!(
                "depth at ({x}, {y}) is {v}, want {want}"
            )));
        }
    }
    Ok(())
}
both_paths!(
    "pipe.draw.window_rectangles.no_fragment_shader",
    window_rectangles_no_fs
);

/// Window rectangles apply to draws only, not to clears or blits (spec:
/// `set_window_rectangles`); more rectangles than the maximum, and
/// inverted ones, are errors.
fn window_rectangles_scope(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let t = setup(&mut e, false)?;
    step(
        "set_window_rectangles",
        e.ctx.set_window_rectangles(true, &[rect(0, 0, 2, 2)]),
    )?;
    let c = [1.0, 1.0, 0.0, 1.0];
    clear_color(&mut e, c)?;
    check_image(ctx, &mut e, &t, |_, _| Some(unorm(c)))?;
    // A blit into the bound colour buffer from a green texture.
    let src = e.texture(&ResourceTemplate::texture_2d(
        Format::R8G8B8A8Unorm,
        W,
        H,
        BindFlags::SAMPLER_VIEW,
    ))?;
    let green: Vec<u8> = [0u8, 255, 0, 255].repeat((W * H) as usize);
    e.write_texture(&src, 0, &PipeBox::rect(0, 0, W, H), &green)?;
    let whole = |r: &Resource| pipe_core::blit::BlitSurface {
        resource: r.clone(),
        level: 0,
        bx: PipeBox::rect(0, 0, W, H),
        format: Format::R8G8B8A8Unorm,
    };
    let info = pipe_core::blit::BlitInfo {
        dst: whole(&t.color),
        src: whole(&src),
        mask: pipe_core::flags::BlitMask::RGBA,
        filter: TexFilter::Nearest,
        scissor: None,
        render_condition_enable: false,
        alpha_blend: true, // drawn by the shader blitter
        window_rectangle_include: false,
        window_rectangles: Vec::new(),
    };
    step("blit", e.ctx.blit(&info))?;
    check_image(ctx, &mut e, &t, |_, _| Some([0, 255, 0, 255]))?;
    let nine = [rect(0, 0, 1, 1); 9];
    let inverted = [rect(4, 4, 2, 8)];
    for (what, list) in [("nine", &nine[..]), ("inverted", &inverted[..])] {
        match e.ctx.set_window_rectangles(false, list) {
            Err(PipeError::InvalidArgument(_)) => {}
            other => {
                return Err(Outcome::fail(format!(
                    "{what} window rectangles: expected InvalidArgument, got {other:?}"
                )))
            }
        }
    }
    Ok(())
}
both_paths!(
    "pipe.draw.window_rectangles.draws_only",
    window_rectangles_scope
);

/// `frag = texelFetch(t, ((x + 8) mod 16, y)) * 0.5`: each half of a
/// 16-wide target reads the other half.
const FS_FETCH_OTHER_HALF: &str = "shader fragment
in @fc : f32x4 builtin=frag_coord
out @frag : f32x4 location=0
texture @t slot=0 dim=2d sampled=float
fn main {
  %0 : f32x4 = load @fc
  %1 : f32x2 = swizzle %0, xy
  %2 : i32x2 = f2i %1
  %3 : i32x2 = const 8, 0
  %4 : i32x2 = iadd %2, %3
  %5 : i32x2 = const 15, 255
  %6 : i32x2 = iand %4, %5
  %7 : i32 = const 0
  %8 : f32x4 = txf @t, coord=%6, lod=%7
  %9 : f32x4 = const 0.5, 0.5, 0.5, 0.5
  %10 : f32x4 = fmul %8, %9
  store @frag, %10
}
";

/// `FS_FETCH_OTHER_HALF`, with the factor read from shader buffer 0
/// (which holds 0.5 four times): a pipeline with the extended layout.
const FS_FETCH_OTHER_HALF_SSBO: &str = "shader fragment
in @fc : f32x4 builtin=frag_coord
out @frag : f32x4 location=0
texture @t slot=0 dim=2d sampled=float
ssbo @k slot=0 readonly
fn main {
  %0 : f32x4 = load @fc
  %1 : f32x2 = swizzle %0, xy
  %2 : i32x2 = f2i %1
  %3 : i32x2 = const 8, 0
  %4 : i32x2 = iadd %2, %3
  %5 : i32x2 = const 15, 255
  %6 : i32x2 = iand %4, %5
  %7 : i32 = const 0
  %8 : f32x4 = txf @t, coord=%6, lod=%7
  %11 : u32 = const 0
  %9 : f32x4 = load_ssbo @k, %11
  %10 : f32x4 = fmul %8, %9
  store @frag, %10
}
";

/// `FS_FETCH_OTHER_HALF` through a storage image load.
const FS_LOAD_OTHER_HALF_IMAGE: &str = "shader fragment
in @fc : f32x4 builtin=frag_coord
out @frag : f32x4 location=0
image @i slot=0 dim=2d format=rgba8 readonly
fn main {
  %0 : f32x4 = load @fc
  %1 : f32x2 = swizzle %0, xy
  %2 : i32x2 = f2i %1
  %3 : i32x2 = const 8, 0
  %4 : i32x2 = iadd %2, %3
  %5 : i32x2 = const 15, 255
  %6 : i32x2 = iand %4, %5
  %8 : f32x4 = image_load @i, %6
  %9 : f32x4 = const 0.5, 0.5, 0.5, 0.5
  %10 : f32x4 = fmul %8, %9
  store @frag, %10
}
";

/// How the feedback cases read the colour buffer.
#[derive(Clone, Copy, PartialEq)]
enum FeedbackRead {
    /// A sampler view, with the fixed pipeline layout.
    Texture,
    /// A sampler view, with a shader buffer too (the extended layout,
    /// whose sampled images are written by another path).
    TextureSsbo,
    /// A storage image.
    Image,
}

/// Render-to-texture feedback (GL_ARB_texture_barrier): the bound colour
/// buffer is also the fragment shader's texture. The first draw writes the
/// left half from the right half; after `texture_barrier`, the second
/// writes the right half from the left half the first draw wrote. With
/// texels that are multiples of 4, both halvings are exact: left =
/// P(x + 8) / 2, right = left(x - 8) / 2 = P(x) / 4.
fn texture_barrier_feedback(ctx: &mut TestContext, staging: bool) -> R {
    feedback_case(ctx, staging, FeedbackRead::Texture)
}

/// The same with a shader buffer in the fragment shader.
fn texture_barrier_feedback_ssbo(ctx: &mut TestContext, staging: bool) -> R {
    feedback_case(ctx, staging, FeedbackRead::TextureSsbo)
}

/// The same, reading the colour buffer as a storage image.
fn texture_barrier_feedback_image(ctx: &mut TestContext, staging: bool) -> R {
    feedback_case(ctx, staging, FeedbackRead::Image)
}

fn feedback_case(ctx: &mut TestContext, staging: bool, read: FeedbackRead) -> R {
    let mut e = env(ctx, staging)?;
    let c = &e.screen.caps().shader[ShaderStage::Fragment.index()];
    if read != FeedbackRead::Texture
        && (!c.supported || c.max_shader_buffers == 0 || c.max_shader_images == 0)
    {
        return Err(Outcome::skip(
            "no shader buffers or images in fragment shaders",
        ));
    }
    let t = if read == FeedbackRead::Image {
        setup_bind(&mut e, false, BindFlags::SHADER_IMAGE)?
    } else {
        setup(&mut e, false)?
    };
    let fs = if read == FeedbackRead::TextureSsbo {
        let k = e.buffer(16, ResourceFlags::empty())?;
        step(
            "buffer_subdata",
            e.ctx
                .buffer_subdata(&k, pipe_core::flags::MapFlags::empty(), 0, &f32s(&[0.5; 4])),
        )?;
        step(
            "set_shader_buffers",
            e.ctx.set_shader_buffers(
                ShaderStage::Fragment,
                0,
                &[Some(ShaderBuffer {
                    buffer: k,
                    buffer_offset: 0,
                    buffer_size: 16,
                })],
                0,
            ),
        )?;
        FS_FETCH_OTHER_HALF_SSBO
    } else if read == FeedbackRead::Image {
        step(
            "set_shader_images",
            e.ctx.set_shader_images(
                ShaderStage::Fragment,
                0,
                &[Some(ImageView {
                    resource: t.color.clone(),
                    format: Format::R8G8B8A8Unorm,
                    access: ImageAccess::READ,
                    shader_access: ImageAccess::READ,
                    range: ImageViewRange::Texture {
                        level: 0,
                        first_layer: 0,
                        last_layer: 0,
                    },
                })],
                0,
            ),
        )?;
        FS_LOAD_OTHER_HALF_IMAGE
    } else {
        FS_FETCH_OTHER_HALF
    };
    let p: Vec<u8> = (0..W * H * 4)
        .map(|i| ((i * 37 + 11) % 64 * 4) as u8)
        .collect();
    e.write_texture(&t.color, 0, &PipeBox::rect(0, 0, W, H), &p)?;
    // No sampler view of the colour buffer when it is read as an image:
    // the image binding alone must make the attachment GENERAL.
    if read != FeedbackRead::Image {
        let tt = t.color.desc().clone();
        let view = step(
            "view",
            e.ctx
                .create_sampler_view(&t.color, &pipe_core::view::SamplerViewTemplate::whole(&tt)),
        )?;
        let sh = step(
            "sampler",
            e.ctx.create_sampler_state(&SamplerState {
                min_mip_filter: MipFilter::None,
                ..Default::default()
            }),
        )?;
        step(
            "bind sampler",
            e.ctx
                .bind_sampler_states(ShaderStage::Fragment, 0, &[Some(sh)]),
        )?;
        step(
            "set_sampler_views",
            e.ctx
                .set_sampler_views(ShaderStage::Fragment, 0, &[Some(view)], 0),
        )?;
    }
    bind_program(&mut e, VS_PASSTHROUGH, fs)?;
    let half = |x0: f32, x1: f32| {
        vec![
            x0, -1.0, 0.0, 1.0, x1, -1.0, 0.0, 1.0, x0, 1.0, 0.0, 1.0, //
            x0, 1.0, 0.0, 1.0, x1, -1.0, 0.0, 1.0, x1, 1.0, 0.0, 1.0,
        ]
    };
    bind_vertices(&mut e, &half(-1.0, 0.0), None)?;
    draw(&mut e, PrimType::Triangles, 0, 6, 1)?;
    step(
        "texture_barrier",
        e.ctx
            .texture_barrier(pipe_core::flags::TextureBarrierFlags::SAMPLER),
    )?;
    bind_vertices(&mut e, &half(0.0, 1.0), None)?;
    draw(&mut e, PrimType::Triangles, 0, 6, 1)?;
    check_image(ctx, &mut e, &t, |x, y| {
        let i = ((y * W + x) * 4) as usize;
        Some(if x < 8 {
            let j = ((y * W + x + 8) * 4) as usize;
            [0, 1, 2, 3].map(|c| p[j + c] / 2)
        } else {
            [0, 1, 2, 3].map(|c| p[i + c] / 4)
        })
    })
}
both_paths!(
    "pipe.draw.texture_barrier.render_to_texture_feedback",
    texture_barrier_feedback
);
both_paths!(
    "pipe.draw.texture_barrier.render_to_texture_feedback_ssbo",
    texture_barrier_feedback_ssbo
);
both_paths!(
    "pipe.draw.texture_barrier.render_to_texture_feedback_image",
    texture_barrier_feedback_image
);
