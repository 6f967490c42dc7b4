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
use pipe_core::resource::ResourceFlags;
use pipe_core::state::*;
use pipe_core::Resource;

use super::draw::{check_image, clear_color, setup};
use crate::harness::{
    bind_program, bind_vertex_buffer, env, f32s, set_color, step, unorm, Env, FS_UBO_COLOR,
    VEC4_ELEMENT, VS_PASSTHROUGH,
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
