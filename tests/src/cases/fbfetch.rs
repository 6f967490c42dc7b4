//! `pipe.draw.fbfetch.*`: framebuffer fetch (spirv-gen's `fbfetch`, GL's
//! EXT_shader_framebuffer_fetch_non_coherent): a fragment shader reads
//! the bound colour buffer at its own pixel. Each case knows what the
//! buffer held before a draw (a clear, or a previous draw it computes
//! here) and checks what the draw wrote from it.

use pipe_core::flags::{ClearFlags, TextureBarrierFlags};
use pipe_core::resource::{BindFlags, PipeBox, ResourceTemplate};
use pipe_core::state::*;
use pipe_core::{Format, PipeError, Resource};

use crate::harness::{
    bind_program, bind_rasterizer, bind_vertex_buffer, draw_arrays, env, f32s, set_framebuffer,
    set_full_viewport, step, Env, VEC4_ELEMENT, VS_PASSTHROUGH,
};
use crate::{both_paths, Outcome, TestContext};

type R = Result<(), Outcome>;

const W: u32 = 8;
const H: u32 = 8;

/// `frag = last * 0.5 + 0.25`.
const FS_HALF_PLUS_QUARTER: &str = "shader fragment
out @frag : f32x4 location=0
fbfetch @last slot=0 sampled=float
fn main {
  %0 : f32x4 = fbfetch @last
  %1 : f32x4 = const 0.5, 0.5, 0.5, 0.5
  %2 : f32x4 = fmul %0, %1
  %3 : f32x4 = const 0.25, 0.25, 0.25, 0.25
  %4 : f32x4 = fadd %2, %3
  store @frag, %4
}
";

/// `frag = last + (1, 2, 3, 4)` on an integer target.
const FS_UINT_INCREMENT: &str = "shader fragment
out @frag : u32x4 location=0
fbfetch @last slot=0 sampled=uint
fn main {
  %0 : u32x4 = fbfetch @last
  %1 : u32x4 = const 1, 2, 3, 4
  %2 : u32x4 = iadd %0, %1
  store @frag, %2
}
";

/// Two colour buffers swapped: `frag0 = last1`, `frag1 = last0`.
const FS_SWAP: &str = "shader fragment
out @frag0 : f32x4 location=0
out @frag1 : f32x4 location=1
fbfetch @last0 slot=0 sampled=float
fbfetch @last1 slot=1 sampled=float
fn main {
  %0 : f32x4 = fbfetch @last0
  %1 : f32x4 = fbfetch @last1
  store @frag0, %1
  store @frag1, %0
}
";

fn require_fbfetch(e: &Env) -> R {
    if !e.screen.caps().fbfetch {
        return Err(Outcome::skip("no framebuffer fetch"));
    }
    Ok(())
}

/// A full-window quad (two triangles) as the vertex stream.
fn bind_quad(e: &mut Env) -> R {
    let v = [
        -1.0, -1.0, 0.0, 1.0, 1.0, -1.0, 0.0, 1.0, -1.0, 1.0, 0.0, 1.0, //
        -1.0, 1.0, 0.0, 1.0, 1.0, -1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0,
    ];
    bind_vertex_buffer(
        e,
        &[VEC4_ELEMENT],
        VertexBufferSource::User(std::sync::Arc::from(f32s(&v))),
    )?;
    bind_rasterizer(e, |_| {})
}

/// Colour buffers of `formats`, bound in order with a full viewport.
fn targets(e: &mut Env, formats: &[Format], samples: u32) -> Result<Vec<Resource>, Outcome> {
    let mut res = Vec::new();
    let mut cbufs = Vec::new();
    for &f in formats {
        let t = ResourceTemplate {
            nr_samples: samples,
            ..ResourceTemplate::texture_2d(f, W, H, BindFlags::RENDER_TARGET)
        };
        let r = e.texture(&t)?;
        cbufs.push(Some(e.surface(&r, 0, 0, 0)?));
        res.push(r);
    }
    if samples > 1 {
        let fb = FramebufferState {
            width: W as u16,
            height: H as u16,
            layers: 1,
            samples: samples as u8,
            cbufs,
            zsbuf: None,
            resolve: None,
        };
        step("set_framebuffer_state", e.ctx.set_framebuffer_state(&fb))?;
    } else {
        set_framebuffer(e, W as u16, H as u16, cbufs, None)?;
    }
    set_full_viewport(e, W, H)?;
    Ok(res)
}

fn clear(e: &mut Env, buffers: ClearFlags, c: ColorUnion) -> R {
    step("clear", e.ctx.clear(buffers, None, &c, 1.0, 0))
}

fn barrier(e: &mut Env) -> R {
    step(
        "texture_barrier",
        e.ctx.texture_barrier(TextureBarrierFlags::FRAMEBUFFER),
    )
}

/// Every texel of `r` (RGBA8) equals `want`, within 1.
fn expect_rgba8(e: &mut Env, r: &Resource, what: &str, want: [u8; 4]) -> R {
    let got = e.read_texture(r, 0, &PipeBox::rect(0, 0, W, H))?;
    for (i, px) in got.chunks_exact(4).enumerate() {
        if px.iter().zip(want).any(|(&g, w)| g.abs_diff(w) > 1) {
            return Err(Outcome::fail(format!(
                "{what}: pixel ({}, {}) is {px:?}, want {want:?}",
                i as u32 % W,
                i as u32 / W
            )));
        }
    }
    Ok(())
}

/// UNORM8 of x (round to nearest, as the spec's conversion).
fn unorm8(x: f32) -> u8 {
    (x.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// Two draws of `last * 0.5 + 0.25` over a cleared target, with a
/// texture barrier between them: the second reads what the first wrote
/// (as stored, in UNORM8).
fn float_twice(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    require_fbfetch(&e)?;
    let t = targets(&mut e, &[Format::R8G8B8A8Unorm], 1)?;
    bind_quad(&mut e)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_HALF_PLUS_QUARTER)?;
    let c = [0.0f32, 0.2, 0.6, 1.0];
    clear(&mut e, ClearFlags::COLOR0, ColorUnion::from_f32(c))?;
    let step_px = |v: [u8; 4]| v.map(|x| unorm8(f32::from(x) / 255.0 * 0.5 + 0.25));
    let first = step_px(c.map(unorm8));
    draw_arrays(&mut e, pipe_core::draw::PrimType::Triangles, 0, 6)?;
    expect_rgba8(&mut e, &t[0], "after one draw", first)?;
    draw_arrays(&mut e, pipe_core::draw::PrimType::Triangles, 0, 6)?;
    barrier(&mut e)?;
    draw_arrays(&mut e, pipe_core::draw::PrimType::Triangles, 0, 6)?;
    expect_rgba8(&mut e, &t[0], "after three draws", step_px(step_px(first)))
}
both_paths!("pipe.draw.fbfetch.float_accumulate", float_twice);

/// Framebuffer fetch from a 1D colour buffer (read through a 1D view at
/// the fragment's x; refused before): two draws of `last * 0.5 + 0.25`
/// with a texture barrier between them over a cleared 1D texture.
fn one_d(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    require_fbfetch(&e)?;
    let t = ResourceTemplate {
        target: pipe_core::resource::Target::Texture1D,
        ..ResourceTemplate::texture_2d(Format::R8G8B8A8Unorm, W, 1, BindFlags::RENDER_TARGET)
    };
    let r = e.texture(&t)?;
    let s = e.surface(&r, 0, 0, 0)?;
    set_framebuffer(&mut e, W as u16, 1, vec![Some(s)], None)?;
    set_full_viewport(&mut e, W, 1)?;
    bind_quad(&mut e)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_HALF_PLUS_QUARTER)?;
    let c = [0.0f32, 0.2, 0.6, 1.0];
    clear(&mut e, ClearFlags::COLOR0, ColorUnion::from_f32(c))?;
    let step_px = |v: [u8; 4]| v.map(|x| unorm8(f32::from(x) / 255.0 * 0.5 + 0.25));
    draw_arrays(&mut e, pipe_core::draw::PrimType::Triangles, 0, 6)?;
    barrier(&mut e)?;
    draw_arrays(&mut e, pipe_core::draw::PrimType::Triangles, 0, 6)?;
    let want = step_px(step_px(c.map(unorm8)));
    let got = e.read_texture(&r, 0, &PipeBox::rect(0, 0, W, 1))?;
    for (x, px) in got.chunks_exact(4).enumerate() {
        if px.iter().zip(want).any(|(&g, w)| g.abs_diff(w) > 1) {
            return Err(Outcome::fail(format!("texel {x} is {px:?}, want {want:?}")));
        }
    }
    Ok(())
}
both_paths!("pipe.draw.fbfetch.one_d", one_d);

/// An integer target incremented by three draws in one rendering
/// instance's worth of calls (texture barriers between them).
fn uint_increment(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    require_fbfetch(&e)?;
    let t = targets(&mut e, &[Format::R32G32B32A32Uint], 1)?;
    bind_quad(&mut e)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UINT_INCREMENT)?;
    clear(&mut e, ClearFlags::COLOR0, ColorUnion([10, 20, 30, 40]))?;
    for _ in 0..3 {
        draw_arrays(&mut e, pipe_core::draw::PrimType::Triangles, 0, 6)?;
        barrier(&mut e)?;
    }
    let got = e.read_texture(&t[0], 0, &PipeBox::rect(0, 0, W, H))?;
    let want: Vec<u8> = [13u32, 26, 39, 52]
        .iter()
        .cycle()
        .take((W * H * 4) as usize)
        .flat_map(|v| v.to_ne_bytes())
        .collect();
    if got != want {
        return Err(Outcome::fail(format!(
            "uint fetch: first texel {:?}, want 13 26 39 52",
            &got[..16]
        )));
    }
    Ok(())
}
both_paths!("pipe.draw.fbfetch.uint_increment", uint_increment);

/// Two colour buffers, each fetched by its slot: one draw swaps them.
fn two_buffers(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    require_fbfetch(&e)?;
    let t = targets(&mut e, &[Format::R8G8B8A8Unorm, Format::R8G8B8A8Unorm], 1)?;
    bind_quad(&mut e)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_SWAP)?;
    let (a, b) = ([1.0f32, 0.0, 0.0, 1.0], [0.0f32, 0.4, 1.0, 0.2]);
    let s0 = e.surface(&t[0], 0, 0, 0)?;
    let s1 = e.surface(&t[1], 0, 0, 0)?;
    for (s, c) in [(&s0, a), (&s1, b)] {
        step(
            "clear_render_target",
            e.ctx
                .clear_render_target(s, &ColorUnion::from_f32(c), 0, 0, W, H, false),
        )?;
    }
    draw_arrays(&mut e, pipe_core::draw::PrimType::Triangles, 0, 6)?;
    expect_rgba8(&mut e, &t[0], "buffer 0 (was a)", b.map(unorm8))?;
    expect_rgba8(&mut e, &t[1], "buffer 1 (was b)", a.map(unorm8))
}
both_paths!("pipe.draw.fbfetch.two_buffers", two_buffers);

/// A 4x multisampled target: each sample reads its own value (all
/// samples hold the clear colour here, so the resolved result is the
/// per-sample computation).
fn multisampled(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    require_fbfetch(&e)?;
    let t = targets(&mut e, &[Format::R8G8B8A8Unorm], 4)?;
    bind_quad(&mut e)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_HALF_PLUS_QUARTER)?;
    let c = [1.0f32, 0.6, 0.0, 1.0];
    clear(&mut e, ClearFlags::COLOR0, ColorUnion::from_f32(c))?;
    draw_arrays(&mut e, pipe_core::draw::PrimType::Triangles, 0, 6)?;
    // Resolve into a single-sampled texture to read it.
    let single = e.texture(&ResourceTemplate::texture_2d(
        Format::R8G8B8A8Unorm,
        W,
        H,
        BindFlags::RENDER_TARGET,
    ))?;
    let whole = |r: &Resource| pipe_core::blit::BlitSurface {
        resource: r.clone(),
        level: 0,
        bx: PipeBox::rect(0, 0, W, H),
        format: Format::R8G8B8A8Unorm,
    };
    step(
        "resolve",
        e.ctx.blit(&pipe_core::blit::BlitInfo {
            dst: whole(&single),
            src: whole(&t[0]),
            mask: pipe_core::flags::BlitMask::RGBA,
            filter: TexFilter::Nearest,
            scissor: None,
            render_condition_enable: false,
            alpha_blend: false,
            window_rectangle_include: false,
            window_rectangles: Vec::new(),
        }),
    )?;
    let want = c.map(|x| unorm8(f32::from(unorm8(x)) / 255.0 * 0.5 + 0.25));
    expect_rgba8(&mut e, &single, "resolved 4x fetch", want)
}
both_paths!("pipe.draw.fbfetch.multisampled", multisampled);

/// Fetching a colour buffer that is not bound is an error, before any
/// Vulkan call.
fn unbound_slot(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    require_fbfetch(&e)?;
    targets(&mut e, &[Format::R8G8B8A8Unorm], 1)?;
    bind_quad(&mut e)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_SWAP)?;
    match e.ctx.draw_vbo(
        &pipe_core::draw::DrawInfo::default(),
        0,
        None,
        &[pipe_core::draw::DrawStartCountBias {
            start: 0,
            count: 6,
            index_bias: 0,
        }],
    ) {
        Err(PipeError::InvalidArgument(m)) if m.contains("colour buffer 1") => Ok(()),
        r => Err(Outcome::fail(format!(
            "fetch of unbound colour buffer 1: {r:?}"
        ))),
    }
}
both_paths!("pipe.draw.fbfetch.unbound_buffer", unbound_slot);

/// Framebuffer fetch from slice 1 of a 3D colour buffer (read through a
/// 2D view of the slice, VK_EXT_image_2d_view_of_3d): the accumulate of
/// `float_accumulate` there, with the other slices left as cleared. It
/// was refused before; without the extension it still is (a skip then).
fn slice_of_3d(ctx: &mut TestContext, staging: bool) -> R {
    let opts = crate::harness::options(ctx);
    let vk = step("screen", pipe_vk::VkScreen::new(&opts))?;
    let has_ext = vk
        .enabled_extensions()
        .iter()
        .any(|x| x == "VK_EXT_image_2d_view_of_3d");
    drop(vk);
    if !has_ext {
        return Err(Outcome::skip("no VK_EXT_image_2d_view_of_3d"));
    }
    let mut e = env(ctx, staging)?;
    require_fbfetch(&e)?;
    let t = ResourceTemplate {
        target: pipe_core::resource::Target::Texture3D,
        depth0: 3,
        ..ResourceTemplate::texture_2d(Format::R8G8B8A8Unorm, W, H, BindFlags::RENDER_TARGET)
    };
    let r = e.texture(&t)?;
    let c = [0.0f32, 0.2, 0.6, 1.0];
    let other = [0.9f32, 0.1, 0.3, 0.5];
    for z in 0..3 {
        let s = e.surface(&r, 0, z, z)?;
        set_framebuffer(&mut e, W as u16, H as u16, vec![Some(s)], None)?;
        let v = if z == 1 { c } else { other };
        clear(&mut e, ClearFlags::COLOR0, ColorUnion::from_f32(v))?;
    }
    let s = e.surface(&r, 0, 1, 1)?;
    set_framebuffer(&mut e, W as u16, H as u16, vec![Some(s)], None)?;
    set_full_viewport(&mut e, W, H)?;
    bind_quad(&mut e)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_HALF_PLUS_QUARTER)?;
    let step_px = |v: [u8; 4]| v.map(|x| unorm8(f32::from(x) / 255.0 * 0.5 + 0.25));
    draw_arrays(&mut e, pipe_core::draw::PrimType::Triangles, 0, 6)?;
    barrier(&mut e)?;
    draw_arrays(&mut e, pipe_core::draw::PrimType::Triangles, 0, 6)?;
    for z in 0..3 {
        let got = e.read_texture(&r, 0, &PipeBox::new(0, 0, z, W as i32, H as i32, 1))?;
        let want = if z == 1 {
            step_px(step_px(c.map(unorm8)))
        } else {
            other.map(unorm8)
        };
        if let Some((i, px)) = got
            .chunks_exact(4)
            .enumerate()
            .find(|(_, px)| px.iter().zip(want).any(|(&g, w)| g.abs_diff(w) > 1))
        {
            return Err(Outcome::fail(format!(
                "slice {z}: pixel ({}, {}) is {px:?}, want {want:?}",
                i as u32 % W,
                i as u32 / W
            )));
        }
    }
    Ok(())
}
both_paths!("pipe.draw.fbfetch.slice_of_3d", slice_of_3d);
