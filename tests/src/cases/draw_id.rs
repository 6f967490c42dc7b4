//! `pipe.draw.draw_id.*` and two more `pipe.draw.merge.*` cases: the draw
//! id (`drawid_offset`, `increment_draw_id`) as the spec defines it, with
//! and without draw merging (`pipe_vk::merge`), and merging across a
//! rename made by another context. Written by a review of draw merging;
//! each failed before the fixes (the comment on each case says why).

use pipe_core::draw::{DrawInfo, DrawStartCountBias, IndexSource};
use pipe_core::flags::{FlushFlags, MapFlags};
use pipe_core::resource::ResourceFlags;
use pipe_core::state::*;

use super::draw::{check_image, clear_color, setup};
use crate::harness::{
    bind_program, bind_vertex_buffer, env, f32s, set_color, step, unorm, Env, FS_UBO_COLOR,
    VEC4_ELEMENT, VS_PASSTHROUGH,
};
use crate::{both_paths, Outcome, TestContext};

type R = Result<(), Outcome>;

/// The width of `super::draw::setup`'s target.
const W: u32 = 16;
const BLACK: [f32; 4] = [0.0, 0.0, 0.0, 1.0];
const RED: [f32; 4] = [1.0, 0.0, 0.0, 1.0];

/// The 6 vertices (two triangles) covering pixel columns `4b..4b + 4`.
fn band(b: u32) -> Vec<f32> {
    let nx = |x: u32| -1.0 + 2.0 * x as f32 / W as f32;
    let (a, c) = (nx(4 * b), nx(4 * b + 4));
    vec![
        a, -1.0, 0.0, 1.0, c, -1.0, 0.0, 1.0, a, 1.0, 0.0, 1.0, //
        a, 1.0, 0.0, 1.0, c, -1.0, 0.0, 1.0, c, 1.0, 0.0, 1.0,
    ]
}

/// Binds `verts` (vec4 positions) from a buffer resource as vertex
/// buffer 0.
fn bind_vb(e: &mut Env, verts: &[f32]) -> R {
    let buf = e.buffer_with(&f32s(verts))?;
    bind_vertex_buffer(e, &[VEC4_ELEMENT], VertexBufferSource::Resource(buf))
}

fn sc(start: u32, count: u32) -> DrawStartCountBias {
    DrawStartCountBias {
        start,
        count,
        index_bias: 0,
    }
}

// ---------------------------------------------------------------------------
// gl_DrawID (the `draw_index` built-in) across draw_vbo calls.
// ---------------------------------------------------------------------------

/// Colour `(draw_index / 4, 1, 0, 1)`: green where gl_DrawID is 0.
const VS_DRAW_ID: &str = "shader vertex
in @pos : f32x4 location=0
in @did : i32 builtin=draw_index
out @gl_pos : f32x4 builtin=position
out @col : f32x4 location=0
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  %1 : i32 = load @did
  %2 : f32 = i2f %1
  %3 : f32 = const 0.25
  %4 : f32 = fmul %2, %3
  %5 : f32 = const 0.0
  %6 : f32 = const 1.0
  %7 : f32x4 = vec %4, %6, %5, %6
  store @col, %7
}
";

const FS_COLOR_IN: &str = "shader fragment
in @col : f32x4 location=0
out @frag : f32x4 location=0
fn main {
  %0 : f32x4 = load @col
  store @frag, %0
}
";

/// Four `draw_vbo` calls, one band each, `drawid_offset` 0 and one draw
/// per call, nothing between them. Gallium's gl_DrawID of a call is
/// `drawid_offset` (plus the draw's index only with
/// `increment_draw_id`), so every band reads 0 and is green. pipe-vk
/// merges the calls into one `vkCmdDrawMultiEXT` (`pipe_vk::merge`),
/// where Vulkan's `DrawIndex` counts the draws of the command: bands 1-3
/// get gl_DrawID 1, 2, 3 (red 64, 128, 191). With
/// `PIPE_VK_DEBUG=no_draw_merge` the case passes.
fn merged_draw_id(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_DRAW_ID, FS_COLOR_IN)?;
    clear_color(&mut e, BLACK)?;
    let verts: Vec<f32> = (0..4).flat_map(band).collect();
    bind_vb(&mut e, &verts)?;
    for b in 0..4 {
        step(
            "draw_vbo",
            e.ctx
                .draw_vbo(&DrawInfo::default(), 0, None, &[sc(6 * b, 6)]),
        )?;
    }
    check_image(ctx, &mut e, &t, |_, _| Some([0, 255, 0, 255]))
}
both_paths!("pipe.draw.merge.draw_id_per_call", merged_draw_id);

/// One call with two draws and `increment_draw_id` off: gl_DrawID is
/// `drawid_offset` (0) for both (Gallium's `pipe_draw_info`), so both
/// bands are green. Not from the reviewed commits: draw.rs records such a
/// call as one `vkCmdDrawMultiEXT` ("gl_DrawID is constant here"), whose
/// `DrawIndex` is 1 for the second draw.
fn multi_draw_constant_id(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_DRAW_ID, FS_COLOR_IN)?;
    clear_color(&mut e, BLACK)?;
    let verts: Vec<f32> = (0..2).flat_map(band).collect();
    bind_vb(&mut e, &verts)?;
    step(
        "draw_vbo",
        e.ctx
            .draw_vbo(&DrawInfo::default(), 0, None, &[sc(0, 6), sc(6, 6)]),
    )?;
    check_image(ctx, &mut e, &t, |x, _| {
        Some(if x < 8 {
            [0, 255, 0, 255].into()
        } else {
            unorm(BLACK)
        })
    })
}
both_paths!(
    "pipe.draw.draw_id.multi_draw_constant",
    multi_draw_constant_id
);

/// `drawid_offset` 2 on a one-draw call: gl_DrawID is 2 (red 128). Not
/// from the reviewed commits: pipe-vk writes `drawid_offset` to the push
/// constant `DRAW_ID`, which no shader reads; `draw_index` is Vulkan's
/// `DrawIndex`, 0 for a direct draw.
fn draw_id_offset(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_DRAW_ID, FS_COLOR_IN)?;
    clear_color(&mut e, BLACK)?;
    bind_vb(&mut e, &band(0))?;
    step(
        "draw_vbo",
        e.ctx.draw_vbo(&DrawInfo::default(), 2, None, &[sc(0, 6)]),
    )?;
    check_image(ctx, &mut e, &t, |x, _| {
        Some(if x < 4 {
            unorm([2.0 * 0.25, 1.0, 0.0, 1.0])
        } else {
            unorm(BLACK)
        })
    })
}
both_paths!("pipe.draw.draw_id.offset", draw_id_offset);

// ---------------------------------------------------------------------------
// A merged call and a buffer renamed by another context.
// ---------------------------------------------------------------------------

/// Context A draws band 0 through index buffer `ib` (indices 0-5). Then
/// context B replaces all of `ib` (`buffer_subdata` of the whole buffer,
/// which renames it while A's unflushed batch uses it) with indices 6-11
/// and flushes, and A draws the same call again: that draw reads the new
/// indices and draws band 1 (without merging, `draw_vbo` looks the index
/// buffer's storage up for every call). With merging the second call
/// matches the pending one's key (the index buffer is keyed by resource
/// id, not by storage) and only adds its start and count, so it is drawn
/// from the old storage: band 0 twice, band 1 black.
fn merged_cross_context_rename(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    clear_color(&mut e, BLACK)?;
    set_color(&mut e, RED)?;
    let verts: Vec<f32> = (0..2).flat_map(band).collect();
    bind_vb(&mut e, &verts)?;
    let u16s = |v: &[u16]| -> Vec<u8> { v.iter().flat_map(|i| i.to_le_bytes()).collect() };
    let ib = e.buffer(12, ResourceFlags::empty())?;
    e.subdata(&ib, 0, &u16s(&[0, 1, 2, 3, 4, 5]))?;
    let info = DrawInfo {
        index_size: 2,
        index: IndexSource::Resource(ib.clone()),
        ..DrawInfo::default()
    };
    step("draw_vbo (A)", e.ctx.draw_vbo(&info, 0, None, &[sc(0, 6)]))?;
    {
        let mut b = e.other_context()?;
        step(
            "buffer_subdata (B)",
            b.buffer_subdata(&ib, MapFlags::empty(), 0, &u16s(&[6, 7, 8, 9, 10, 11])),
        )?;
        step("flush (B)", b.flush(FlushFlags::empty(), false))?;
    }
    step("draw_vbo (A)", e.ctx.draw_vbo(&info, 0, None, &[sc(0, 6)]))?;
    check_image(ctx, &mut e, &t, |x, _| {
        Some(unorm(if x < 8 { RED } else { BLACK }))
    })
}
both_paths!(
    "pipe.draw.merge.cross_context_rename",
    merged_cross_context_rename
);

/// gl_DrawID in multi-draw indirect: command `i` of the buffer reads `i`
/// (plus `drawid_offset`), for triangles (Vulkan's `DrawIndex`) and for
/// quads, whose commands are read back and drawn one direct draw each
/// (`pipe.draw.indirect.rewritten`). Four bands, red `i / 4`.
fn indirect_draw_id(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_DRAW_ID, FS_COLOR_IN)?;
    for quads in [false, true] {
        clear_color(&mut e, BLACK)?;
        let (verts, per): (Vec<f32>, u32) = if quads {
            let q = |b: u32| {
                let v = band(b);
                // Corners (a, -1), (c, -1), (c, 1), (a, 1) of the band.
                [&v[0..4], &v[4..8], &v[20..24], &v[8..12]].concat()
            };
            ((0..4).flat_map(q).collect(), 4)
        } else {
            ((0..4).flat_map(band).collect(), 6)
        };
        bind_vb(&mut e, &verts)?;
        let cmds: Vec<u8> = (0..4u32)
            .flat_map(|i| [per, 1, per * i, 0])
            .flat_map(|w| w.to_le_bytes())
            .collect();
        let buf = e.buffer_with(&cmds)?;
        let ind = pipe_core::draw::DrawIndirectInfo {
            stride: 16,
            draw_count: 4,
            buffer: Some(buf),
            ..Default::default()
        };
        let info = DrawInfo {
            mode: if quads {
                pipe_core::draw::PrimType::Quads
            } else {
                pipe_core::draw::PrimType::Triangles
            },
            ..DrawInfo::default()
        };
        step("indirect", e.ctx.draw_vbo(&info, 0, Some(&ind), &[]))?;
        check_image(ctx, &mut e, &t, |x, _| {
            Some(unorm([(x / 4) as f32 * 0.25, 1.0, 0.0, 1.0]))
        })?;
    }
    Ok(())
}
both_paths!("pipe.draw.draw_id.indirect", indirect_draw_id);
