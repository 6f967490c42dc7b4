//! `pipe.draw.merge.*`: consecutive `draw_vbo` calls with nothing between
//! them, which pipe-vk records as one multi-draw (`pipe_vk::merge`).
//!
//! Each case draws column bands of a 16x16 target, one band per call, and
//! checks every pixel: a band that a merged call lost, drew twice or drew
//! with another call's state shows. Between some calls, a state change or
//! a buffer write must end the merge, so that the later call sees the new
//! state and the earlier one the old data.

use pipe_core::draw::{DrawInfo, DrawStartCountBias, IndexSource};
use pipe_core::flags::MapFlags;
use pipe_core::resource::{BindFlags, PipeBox, ResourceFlags, ResourceTemplate, Target};
use pipe_core::state::*;
use pipe_core::{Format, Resource};

use super::draw::{check_image, clear_color, setup};
use crate::harness::{
    bind_program, bind_rasterizer, bind_render_target, bind_vertex_buffer, env, f32s, set_color,
    step, unorm, Env, FS_UBO_COLOR, RT_ADDITIVE, VEC4_ELEMENT, VS_PASSTHROUGH,
};
use crate::{both_paths, Outcome, TestContext};

type R = Result<(), Outcome>;

const W: u32 = 16;
const BLACK: [f32; 4] = [0.0, 0.0, 0.0, 1.0];
const RED: [f32; 4] = [1.0, 0.0, 0.0, 1.0];
const GREEN: [f32; 4] = [0.0, 1.0, 0.0, 1.0];

/// The 6 vertices (two triangles) covering pixel columns `4b..4b + 4`.
fn band(b: u32) -> Vec<f32> {
    let nx = |x: u32| -1.0 + 2.0 * x as f32 / W as f32;
    let (a, c) = (nx(4 * b), nx(4 * b + 4));
    vec![
        a, -1.0, 0.0, 1.0, c, -1.0, 0.0, 1.0, a, 1.0, 0.0, 1.0, //
        a, 1.0, 0.0, 1.0, c, -1.0, 0.0, 1.0, c, 1.0, 0.0, 1.0,
    ]
}

/// A vertex buffer resource holding `verts` (vec4 positions), bound as
/// the only vertex buffer.
fn bind_vb(e: &mut Env, verts: &[f32]) -> Result<Resource, Outcome> {
    let buf = e.buffer((verts.len() * 4) as u32, ResourceFlags::empty())?;
    step(
        "buffer_subdata(vertices)",
        e.ctx
            .buffer_subdata(&buf, MapFlags::empty(), 0, &f32s(verts)),
    )?;
    bind_vertex_buffer(
        e,
        &[VEC4_ELEMENT],
        VertexBufferSource::Resource(buf.clone()),
    )?;
    Ok(buf)
}

fn draw_calls(e: &mut Env, info: &DrawInfo<'_>, draws: &[DrawStartCountBias]) -> R {
    step("draw_vbo", e.ctx.draw_vbo(info, 0, None, draws))
}

fn sc(start: u32, count: u32, index_bias: i32) -> DrawStartCountBias {
    DrawStartCountBias {
        start,
        count,
        index_bias,
    }
}

fn start(ctx: &mut TestContext, staging: bool) -> Result<(Env, super::draw::Target), Outcome> {
    let mut e = env(ctx, staging)?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    clear_color(&mut e, BLACK)?;
    set_color(&mut e, RED)?;
    Ok((e, t))
}

/// Four calls, one band each, from one vertex buffer (start 6b); the
/// third call has two draws (bands 2 and 3 in one multi-draw call), and
/// an empty call sits between the first two.
fn bands(ctx: &mut TestContext, staging: bool) -> R {
    let (mut e, t) = start(ctx, staging)?;
    let verts: Vec<f32> = (0..4).flat_map(band).collect();
    bind_vb(&mut e, &verts)?;
    let info = DrawInfo::default();
    draw_calls(&mut e, &info, &[sc(0, 6, 0)])?;
    draw_calls(&mut e, &info, &[sc(6, 0, 0)])?;
    draw_calls(&mut e, &info, &[sc(6, 6, 0)])?;
    draw_calls(&mut e, &info, &[sc(12, 6, 0), sc(18, 6, 0)])?;
    check_image(ctx, &mut e, &t, |_, _| Some(unorm(RED)))
}
both_paths!("pipe.draw.merge.consecutive_bands", bands);

/// Indexed calls from one index buffer resource (indices 0-5), each with
/// its own index bias (gl_BaseVertex), then a non-indexed call that must
/// not join them.
fn indexed_bias(ctx: &mut TestContext, staging: bool) -> R {
    let (mut e, t) = start(ctx, staging)?;
    let verts: Vec<f32> = (0..4).flat_map(band).collect();
    bind_vb(&mut e, &verts)?;
    let ib = e.buffer(12, ResourceFlags::empty())?;
    let idx: Vec<u8> = [0u16, 1, 2, 3, 4, 5]
        .iter()
        .flat_map(|i| i.to_le_bytes())
        .collect();
    step(
        "buffer_subdata(indices)",
        e.ctx.buffer_subdata(&ib, MapFlags::empty(), 0, &idx),
    )?;
    let info = DrawInfo {
        index_size: 2,
        index: IndexSource::Resource(ib.clone()),
        ..DrawInfo::default()
    };
    for b in 0..3 {
        draw_calls(&mut e, &info, &[sc(0, 6, 6 * b)])?;
    }
    draw_calls(&mut e, &DrawInfo::default(), &[sc(18, 6, 0)])?;
    check_image(ctx, &mut e, &t, |_, _| Some(unorm(RED)))
}
both_paths!("pipe.draw.merge.indexed_base_vertex", indexed_bias);

/// Calls that would merge but for what happens between them: a constant
/// buffer change (band 1 is green, band 0 stays red), and a write to the
/// vertex buffer the pending call reads (band 2 is drawn from the old
/// vertices, band 3 from the new ones, by the same `start`).
fn broken_by_calls(ctx: &mut TestContext, staging: bool) -> R {
    let (mut e, t) = start(ctx, staging)?;
    let mut verts: Vec<f32> = band(0);
    verts.extend(band(1));
    verts.extend(band(2));
    let vb = bind_vb(&mut e, &verts)?;
    let info = DrawInfo::default();
    draw_calls(&mut e, &info, &[sc(0, 6, 0)])?;
    set_color(&mut e, GREEN)?;
    draw_calls(&mut e, &info, &[sc(6, 6, 0)])?;
    draw_calls(&mut e, &info, &[sc(12, 6, 0)])?;
    // Band 3's vertices where band 2's were: not a discard, so the
    // pending call's data must be preserved for it.
    step(
        "buffer_subdata(vertices)",
        e.ctx
            .buffer_subdata(&vb, MapFlags::empty(), 12 * 16, &f32s(&band(3))),
    )?;
    draw_calls(&mut e, &info, &[sc(12, 6, 0)])?;
    check_image(ctx, &mut e, &t, |x, _| {
        Some(unorm(if x < 4 { RED } else { GREEN }))
    })
}
both_paths!("pipe.draw.merge.broken_by_calls", broken_by_calls);

/// How [`instance_order`] issues its two draws of two instances each.
#[derive(Clone, Copy)]
enum TwoDraws {
    /// One `draw_vbo` with two draws (a multi-draw).
    Multi,
    /// One indexed `draw_vbo` with two draws of different index biases.
    MultiIndexed,
    /// Two `draw_vbo` calls, which pipe-vk merges.
    Merged,
}

/// Two draws of two instances each, of one full-target triangle each
/// time, blended as `src + dst / 2` into a float target: the result
/// names the order of the four. Vulkan's multi-draw, like GL's draws in
/// sequence, draws each draw's instances before the next draw: draw 0
/// (instances 0.1, 0.2), then draw 1 (0.3, 0.4). lavapipe 25.0.7 ran a
/// `vkCmdDrawMulti*EXT` instance by instance (0.1, 0.3, 0.2, 0.4;
/// `DeviceShared::multi_draw_instances_in_order`; found by
/// `pipe.draw.state_fuzz.diff.no_index_uint8.seed_105`, where CPU-widened
/// 8-bit indices, drawn one draw at a time, blended differently from the
/// device's own).
fn instance_order(ctx: &mut TestContext, staging: bool, how: TwoDraws) -> R {
    const VS: &str = "shader vertex
in @pos : f32x4 location=0
in @col : f32x4 location=1
in @inst : f32x4 location=2
out @gl_pos : f32x4 builtin=position
out @c0 : f32x4 location=0 slot=col0
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  %1 : f32x4 = load @col
  %2 : f32x4 = load @inst
  %3 : f32x4 = fadd %1, %2
  store @c0, %3
}
";
    let mut e = env(ctx, staging)?;
    let f = Format::R32G32B32A32Float;
    let blendable = BindFlags::RENDER_TARGET | BindFlags::BLENDABLE;
    if !e
        .screen
        .is_format_supported(f, Target::Texture2D, 1, 1, blendable)
    {
        return Err(Outcome::skip("R32G32B32A32_FLOAT does not blend here"));
    }
    let color = bind_render_target(&mut e, f, W, W)?;
    bind_program(&mut e, VS, super::rast_prim::FS_COLOR_VARYING)?;
    // Draw 0's vertices carry 0.1, draw 1's 0.3; instance 1 adds 0.1.
    let mut verts = Vec::new();
    for base in [0.1f32, 0.3] {
        for [x, y] in [[-1.0f32, -1.0], [3.0, -1.0], [-1.0, 3.0]] {
            verts.extend([x, y, 0.0, 1.0, base, 0.0, 0.0, 1.0]);
        }
    }
    let per_instance = [0.0f32, 0.0, 0.0, 0.0, 0.1, 0.0, 0.0, 0.0];
    let elem = |src_offset, vertex_buffer_index, src_stride, instance_divisor| VertexElement {
        src_offset,
        src_stride,
        vertex_buffer_index,
        dual_slot: false,
        src_format: f,
        instance_divisor,
    };
    let c = &mut e.ctx;
    let ve = step(
        "velems",
        c.create_vertex_elements_state(&[elem(0, 0, 32, 0), elem(16, 0, 32, 0), elem(0, 1, 16, 1)]),
    )?;
    step("bind velems", c.bind_vertex_elements_state(Some(ve)))?;
    let vb = e.buffer_with(&f32s(&verts))?;
    let ib = e.buffer_with(&f32s(&per_instance))?;
    let index = step(
        "resource_create(index)",
        e.screen
            .resource_create(&ResourceTemplate::buffer(8, BindFlags::INDEX_BUFFER)),
    )?;
    let c = &mut e.ctx;
    step(
        "buffer_subdata(index)",
        c.buffer_subdata(&index, MapFlags::empty(), 0, &[0, 0, 1, 0, 2, 0, 0, 0]),
    )?;
    step(
        "vbufs",
        c.set_vertex_buffers(&[
            VertexBuffer {
                buffer: Some(VertexBufferSource::Resource(vb)),
                buffer_offset: 0,
            },
            VertexBuffer {
                buffer: Some(VertexBufferSource::Resource(ib)),
                buffer_offset: 0,
            },
        ]),
    )?;
    bind_rasterizer(&mut e, |_| {})?;
    let rt = RtBlendState {
        rgb_dst_factor: BlendFactor::ConstColor,
        alpha_dst_factor: BlendFactor::ConstColor,
        ..RT_ADDITIVE
    };
    let blend = BlendState {
        rt: [rt; MAX_COLOR_BUFS],
        max_rt: 1,
        ..Default::default()
    };
    let c = &mut e.ctx;
    let bh = step("blend", c.create_blend_state(&blend))?;
    step("bind blend", c.bind_blend_state(Some(bh)))?;
    step(
        "blend colour",
        c.set_blend_color(&BlendColor { color: [0.5; 4] }),
    )?;
    clear_color(&mut e, [0.0; 4])?;
    let draw = |start, index_bias| DrawStartCountBias {
        start,
        count: 3,
        index_bias,
    };
    let info = DrawInfo {
        instance_count: 2,
        ..DrawInfo::default()
    };
    let c = &mut e.ctx;
    match how {
        TwoDraws::Multi => step(
            "draw_vbo",
            c.draw_vbo(&info, 0, None, &[draw(0, 0), draw(3, 0)]),
        )?,
        TwoDraws::MultiIndexed => {
            let info = DrawInfo {
                index_size: 2,
                index: IndexSource::Resource(index),
                index_bias_varies: true,
                ..info
            };
            step(
                "draw_vbo",
                c.draw_vbo(&info, 0, None, &[draw(0, 0), draw(0, 3)]),
            )?
        }
        TwoDraws::Merged => {
            step("draw_vbo 0", c.draw_vbo(&info, 0, None, &[draw(0, 0)]))?;
            step("draw_vbo 1", c.draw_vbo(&info, 0, None, &[draw(3, 0)]))?
        }
    }
    // Each blend halves what was there: the last draw counts whole.
    let want = [0.1f32, 0.2, 0.3, 0.4]
        .iter()
        .fold(0.0, |dst, src| src + dst * 0.5);
    let got = e.read_texture(&color, 0, &PipeBox::rect(0, 0, 1, 1))?;
    let r = f32::from_le_bytes([got[0], got[1], got[2], got[3]]);
    if (r - want).abs() > 1e-4 {
        let instance_major = [0.1f32, 0.3, 0.2, 0.4]
            .iter()
            .fold(0.0, |dst, src| src + dst * 0.5);
        return Err(Outcome::fail(format!(
            "red is {r}, expected {want} (draw 0's instances, then draw 1's; \
             {instance_major} would be instance 0 of both draws first)"
        )));
    }
    Ok(())
}
both_paths!(
    "pipe.draw.merge.instance_order.multi_draw",
    instance_order,
    TwoDraws::Multi
);
both_paths!(
    "pipe.draw.merge.instance_order.multi_draw_indexed",
    instance_order,
    TwoDraws::MultiIndexed
);
both_paths!(
    "pipe.draw.merge.instance_order.merged",
    instance_order,
    TwoDraws::Merged
);
