//! `pipe.streamout.spirv.*`: stream output declared by SPIR-V passthrough
//! shaders (ARB_gl_spirv's `xfb_buffer`, `xfb_offset`, `xfb_stride`).
//!
//! The words carry the capture; pipe-vk reads its layout to bind targets,
//! keeps it to the last vertex stage, and captures the built-ins GL state
//! rewrites (depth range, fixed point size, clip distance enables)
//! through copies, so the buffers get what the shader wrote. The
//! `.spirv` variants of the `pipe.streamout.*` cases (`so_case!` in
//! `streamout.rs`) run the rest of stream output with such shaders; the
//! shader here is glslang's form (a `gl_PerVertex` block with `Offset`
//! members), which spirv-gen does not emit.

use std::sync::Arc;

use pipe_core::draw::PrimType;
use pipe_core::resource::PipeBox;
use pipe_core::shader::{ShaderCode, ShaderState};
use pipe_core::state::ShaderStage;

use super::streamout::{
    bind_fs, bind_verts, bind_vs, check_eq, check_words, clear_black, draw, rejects, require,
    require_so, set_targets, setup, so, so_buffer, target, vert, with_so, words, SENTINEL,
};
use crate::harness::{env, shader, step};
use crate::{Outcome, TestContext};

type R = Result<(), Outcome>;

use crate::result_case as case;

/// `xfb_spirv.spvasm`, assembled (spirv-gen's tests keep the two equal):
/// buffer 0 (stride 32) gets the position at 0, the two clip distances
/// (2.0, -1.0) at 16 and the point size (3.0) at 24; buffer 1 (stride
/// 20) gets `v` = 2 * position at 4.
fn glslang_vs() -> ShaderState {
    crate::harness::spirv_module(ShaderStage::Vertex, include_bytes!("xfb_spirv.spv"))
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|f| f.to_bits()).collect()
}

/// The glslang shader's captures with GL's default state, which rewrites
/// all three captured built-ins: `clip_halfz` off (z becomes (z + w) / 2
/// = 0.75), `point_size_per_vertex` off (the size becomes 1.0) and no
/// clip distance enabled (both become 1.0). The buffers hold what the
/// shader wrote; the drawing shows the rewrites happened: 1-pixel
/// points (3-pixel ones would cover 9 each), drawn although clip
/// distance 1 is negative.
fn builtins(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    require_so(&e)?;
    require(&e, 2)?;
    let color = setup(&mut e, false)?;
    bind_fs(&mut e)?;
    bind_vs(&mut e, glslang_vs())?;
    let n = 4;
    bind_verts(&mut e, 0, n)?;
    let b0 = so_buffer(&mut e, 32 * (n + 1))?;
    let b1 = so_buffer(&mut e, 20 * (n + 1))?;
    let t0 = target(&mut e, &b0, 0, 32 * (n + 1))?;
    let t1 = target(&mut e, &b1, 0, 20 * (n + 1))?;
    set_targets(&mut e, &[&t0, &t1], &[Some(0), Some(0)])?;
    clear_black(&mut e)?;
    draw(&mut e, PrimType::Points, n)?;
    let want0: Vec<u32> = (0..n)
        .flat_map(|i| {
            let mut r = bits(&vert(i).pos);
            r.extend(bits(&[2.0, -1.0, 3.0]));
            r.push(SENTINEL);
            r
        })
        .collect();
    let want1: Vec<u32> = (0..n)
        .flat_map(|i| {
            let mut r = vec![SENTINEL];
            r.extend(bits(&vert(i).pos.map(|x| x * 2.0)));
            r
        })
        .collect();
    check_words("buffer 0", &words(&mut e, &b0)?, &want0)?;
    check_words("buffer 1", &words(&mut e, &b1)?, &want1)?;
    let o = step("offset", e.ctx.stream_output_target_offset(&t1))?;
    check_eq("buffer 1 offset", o, 20 * n)?;
    let px = e.read_texture(&color, 0, &PipeBox::rect(0, 0, 16, 16))?;
    let red = px
        .chunks_exact(4)
        .filter(|p| *p == [255, 0, 0, 255])
        .count() as u32;
    if red == 0 || red > 2 * n {
        return Err(Outcome::fail(format!(
            "{red} red pixels for {n} points of size 1 (the fixed size and the clip distance \
             enables not applied?)"
        )));
    }
    Ok(())
}
case!("pipe.streamout.spirv.builtins", builtins);

/// A point pass-through geometry shader (IR).
const GS_PASS: &str = "shader geometry input=points output=points max_vertices=1 invocations=1
in @pin : f32x4[1] builtin=position
out @gl_pos : f32x4 builtin=position
fn main {
  %0 : i32 = const 0
  %1 : f32x4 = load @pin, %0
  store @gl_pos, %1
  emit_vertex
}
";

/// The glslang vertex shader in front of a geometry shader: GL captures
/// the last vertex stage only, so the vertex shader's own capture is
/// dropped (Vulkan refuses it before another stage) and buffer 0 gets
/// the geometry shader's (the position), with no target for the vertex
/// shader's buffer 1.
fn not_last_stage(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    require_so(&e)?;
    if !e.screen.caps().shader[ShaderStage::Geometry.index()].supported {
        return Err(Outcome::skip("no geometry shaders"));
    }
    setup(&mut e, false)?;
    bind_fs(&mut e)?;
    bind_vs(&mut e, glslang_vs())?;
    let gs = with_so(
        shader(ShaderStage::Geometry, GS_PASS)?,
        vec![so(0, 0, 4, 0, 0)],
        [4, 0, 0, 0],
    );
    let g = step("create_gs_state", e.ctx.create_gs_state(&gs))?;
    step("bind_gs_state", e.ctx.bind_gs_state(Some(g)))?;
    let n = 3;
    bind_verts(&mut e, 0, n)?;
    let b = so_buffer(&mut e, 16 * (n + 1))?;
    let t = target(&mut e, &b, 0, 16 * (n + 1))?;
    set_targets(&mut e, &[&t], &[Some(0)])?;
    draw(&mut e, PrimType::Points, n)?;
    let want: Vec<u32> = (0..n).flat_map(|i| bits(&vert(i).pos)).collect();
    check_words("buffer 0", &words(&mut e, &b)?, &want)?;
    step("unbind gs", e.ctx.bind_gs_state(None))?;
    step("delete gs", e.ctx.delete_gs_state(g))
}
case!("pipe.streamout.spirv.not_last_stage", not_last_stage);

/// Bad input: a Gallium capture list on a SPIR-V shader, decorations
/// Vulkan would not take, and a draw missing a target the shader
/// captures into, which is refused before anything is recorded (the
/// buffer keeps its contents, and a correct draw after it captures).
fn bad_input(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    require_so(&e)?;
    require(&e, 2)?;
    setup(&mut e, false)?;
    bind_fs(&mut e)?;
    rejects(
        "a capture list",
        "stream_output",
        e.ctx.create_vs_state(&with_so(
            glslang_vs(),
            vec![so(0, 0, 4, 0, 0)],
            [4, 0, 0, 0],
        )),
    )?;
    // OpDecorate (71, 4 words) %v XfbBuffer (36) 1, made buffer 4.
    let mut bad = glslang_vs();
    if let ShaderCode::SpirV { words, .. } = &mut bad.code {
        let mut w = words.to_vec();
        let at = w
            .windows(4)
            .position(|x| x[0] == 4 << 16 | 71 && x[2] == 36 && x[3] == 1)
            .ok_or_else(|| Outcome::fail("no XfbBuffer 1 decoration in the test shader"))?;
        w[at + 3] = 4;
        *words = Arc::from(w);
    }
    rejects("XfbBuffer 4", "XfbBuffer 4", e.ctx.create_vs_state(&bad))?;

    bind_vs(&mut e, glslang_vs())?;
    bind_verts(&mut e, 0, 1)?;
    let b0 = so_buffer(&mut e, 64)?;
    let t0 = target(&mut e, &b0, 0, 64)?;
    set_targets(&mut e, &[&t0], &[Some(0)])?;
    let info = pipe_core::draw::DrawInfo {
        mode: PrimType::Points,
        ..Default::default()
    };
    let one = [pipe_core::draw::DrawStartCountBias {
        start: 0,
        count: 1,
        index_bias: 0,
    }];
    rejects(
        "no target for buffer 1",
        "buffer 1",
        e.ctx.draw_vbo(&info, 0, None, &one),
    )?;
    check_words("buffer 0", &words(&mut e, &b0)?, &[])?;
    let b1 = so_buffer(&mut e, 64)?;
    let t1 = target(&mut e, &b1, 0, 64)?;
    set_targets(&mut e, &[&t0, &t1], &[Some(0), Some(0)])?;
    draw(&mut e, PrimType::Points, 1)?;
    let o = step("offset", e.ctx.stream_output_target_offset(&t0))?;
    check_eq("buffer 0 offset", o, 32)
}
case!("pipe.streamout.spirv.bad_input", bad_input);

/// A vertex shader with the `Xfb` mode and a buffer's stride but no
/// captured output (`spirv-gen/tests/patch/xfbnocap.spvasm`): it
/// captures nothing, so a draw with a target bound draws and leaves the
/// buffer alone. Making its CSO panicked (a debug build's overflow while
/// reading the streams it captures from).
fn nothing_captured(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    require_so(&e)?;
    let color = setup(&mut e, false)?;
    bind_fs(&mut e)?;
    bind_vs(
        &mut e,
        crate::harness::spirv_module(
            ShaderStage::Vertex,
            include_bytes!("../../../spirv-gen/tests/patch/xfbnocap.spv"),
        ),
    )?;
    bind_verts(&mut e, 0, 1)?;
    let b = so_buffer(&mut e, 64)?;
    let t = target(&mut e, &b, 0, 64)?;
    set_targets(&mut e, &[&t], &[Some(0)])?;
    clear_black(&mut e)?;
    draw(&mut e, PrimType::Points, 1)?;
    check_words("the buffer", &words(&mut e, &b)?, &[])?;
    check_eq(
        "offset",
        step("offset", e.ctx.stream_output_target_offset(&t))?,
        0,
    )?;
    // The point at (1, 1, 1, 1): the top right pixel.
    let px = e.read_texture(&color, 0, &PipeBox::rect(15, 15, 1, 1))?;
    if px != [255, 0, 0, 255] {
        return Err(Outcome::fail(format!("the point's pixel is {px:?}")));
    }
    Ok(())
}
case!("pipe.streamout.spirv.nothing_captured", nothing_captured);

/// The glslang vertex shader drawing a triangle on a 4x target with
/// multisampling off: a generated geometry shader widens the triangle
/// (`spirv_gen::passes::aliased`) and becomes the last vertex stage, so
/// the module's capture moves into it (`patch::vertex_output_captures`:
/// the `gl_PerVertex` members' `Offset`s, `v`'s), and it captures what
/// the vertex shader wrote, not the widened vertices. The buffers hold
/// the same records as with no geometry shader (`builtins`), and the
/// image is GL's aliased coverage: the pixels whose centre is inside.
fn aliased_triangles(ctx: &mut TestContext) -> R {
    use super::render::{begin_4x, check_lit, ndc, rasterizer, set_src, tri_inside, UNORM};
    let (mut e, t, resolved) = begin_4x(ctx, |_| {})?;
    require_so(&e)?;
    require(&e, 2)?;
    bind_vs(&mut e, glslang_vs())?;
    rasterizer(&mut e, |r| r.multisample = false)?;
    let fg = [1.0, 0.0, 0.0, 1.0];
    set_src(&mut e, UNORM, fg)?;
    let tri = [(1.3, 2.2), (13.7, 4.1), (5.2, 13.6)];
    let pos: Vec<[f32; 4]> = tri
        .iter()
        .map(|&(x, y)| [ndc(x as f32), ndc(y as f32), 0.5, 1.0])
        .collect();
    let flat: Vec<f32> = pos.iter().flatten().copied().collect();
    super::streamout::bind_streams(&mut e, &[&flat])?;
    let b0 = so_buffer(&mut e, 32 * 4)?;
    let b1 = so_buffer(&mut e, 20 * 4)?;
    let t0 = target(&mut e, &b0, 0, 32 * 4)?;
    let t1 = target(&mut e, &b1, 0, 20 * 4)?;
    set_targets(&mut e, &[&t0, &t1], &[Some(0), Some(0)])?;
    draw(&mut e, PrimType::Triangles, 3)?;
    let want0: Vec<u32> = pos
        .iter()
        .flat_map(|p| {
            let mut r = bits(p);
            r.extend(bits(&[2.0, -1.0, 3.0]));
            r.push(SENTINEL);
            r
        })
        .collect();
    let want1: Vec<u32> = pos
        .iter()
        .flat_map(|p| {
            let mut r = vec![SENTINEL];
            r.extend(bits(&p.map(|x| x * 2.0)));
            r
        })
        .collect();
    check_words("buffer 0", &words(&mut e, &b0)?, &want0)?;
    check_words("buffer 1", &words(&mut e, &b1)?, &want1)?;
    check_lit(
        ctx,
        &mut e,
        &t.color,
        &resolved,
        "aliased triangle",
        fg,
        |x, y| {
            let (inside, near) = tri_inside(&tri, x as f64 + 0.5, y as f64 + 0.5);
            (near >= 0.01).then_some(inside)
        },
    )
}
case!("pipe.streamout.spirv.aliased_triangles", aliased_triangles);
