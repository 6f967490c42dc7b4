//! `pipe.draw.layered.*`: layered rendering. A framebuffer whose colour
//! surface spans several layers of an array, cube or 3D texture
//! (`FramebufferState::layers`), a geometry shader that routes each copy
//! of a triangle to a layer (`gl_Layer`), `clear` on every layer, and
//! framebuffer fetch reading each fragment's own layer. Each layer is
//! read back and compared with the colour the test gave it.

use std::sync::Arc;

use pipe_core::flags::{ClearFlags, TextureBarrierFlags};
use pipe_core::resource::{BindFlags, PipeBox, Target};
use pipe_core::state::*;
use pipe_core::{Format, Resource};

use crate::harness::{
    bind_program, bind_rasterizer, bind_stage, bind_vertex_buffer, draw_arrays, env, f32s,
    set_full_viewport, step, texture_template, unorm, Env, VEC4_ELEMENT, VS_PASSTHROUGH,
};
use crate::{both_paths, Outcome, TestContext};

type R = Result<(), Outcome>;

const W: u32 = 8;
const H: u32 = 8;

/// The colour layer `l` gets.
fn layer_color(l: u32) -> [f32; 4] {
    [0.125 * (l + 1) as f32, 0.5, 1.0 - 0.125 * l as f32, 1.0]
}

/// A geometry shader copying each triangle to layers `0..n`, with the
/// flat colour [`layer_color`] of its layer.
fn gs_layers(n: u32) -> String {
    let mut body = String::from(
        "  %0 : i32 = const 0\n  %1 : i32 = const 1\n  %2 : i32 = const 2\n  \
         %3 : f32x4 = load @pos, %0\n  %4 : f32x4 = load @pos, %1\n  %5 : f32x4 = load @pos, %2\n",
    );
    let mut id = 6;
    for l in 0..n {
        let c = layer_color(l);
        body += &format!(
            "  %{id} : i32 = const {l}\n  %{} : f32x4 = const {:?}, {:?}, {:?}, {:?}\n",
            id + 1,
            c[0],
            c[1],
            c[2],
            c[3]
        );
        for v in 3..6 {
            body += &format!(
                "  store @gl_pos, %{v}\n  store @layer, %{id}\n  store @col, %{}\n  emit_vertex\n",
                id + 1
            );
        }
        body += "  end_primitive\n";
        id += 2;
    }
    format!(
        "shader geometry input=triangles output=triangle_strip max_vertices={} invocations=1
in @pos : f32x4[3] builtin=position
out @gl_pos : f32x4 builtin=position
out @layer : i32 builtin=layer
out @col : f32x4 location=0 flat
fn main {{
{body}}}
",
        3 * n
    )
}

const FS_COL: &str = "shader fragment
in @col : f32x4 location=0 flat
out @frag : f32x4 location=0
fn main {
  %0 : f32x4 = load @col
  store @frag, %0
}
";

/// `frag = last * 0.5 + col * 0.5`, with the fragment's own layer's
/// colour buffer contents as `last`.
const FS_FETCH_MIX: &str = "shader fragment
in @col : f32x4 location=0 flat
out @frag : f32x4 location=0
fbfetch @last slot=0 sampled=float
fn main {
  %0 : f32x4 = fbfetch @last
  %1 : f32x4 = load @col
  %2 : f32x4 = fadd %0, %1
  %3 : f32x4 = const 0.5, 0.5, 0.5, 0.5
  %4 : f32x4 = fmul %2, %3
  store @frag, %4
}
";

/// An RGBA8 `target` texture of `n` layers (or slices), bound whole as
/// a layered framebuffer, with a target-covering triangle and the
/// layer-routing geometry shader bound.
fn layered_target(e: &mut Env, target: Target, n: u32) -> Result<Resource, Outcome> {
    let h = height(target);
    let t = texture_template(
        target,
        Format::R8G8B8A8Unorm,
        W,
        h,
        n,
        1,
        BindFlags::RENDER_TARGET,
    );
    let res = e.texture(&t)?;
    let s = e.surface(&res, 0, 0, n - 1)?;
    bind_layered(e, s, h, n)?;
    let tri = [
        -1.0, -1.0, 0.0, 1.0, 3.0, -1.0, 0.0, 1.0, -1.0, 3.0, 0.0, 1.0,
    ];
    bind_vertex_buffer(
        e,
        &[VEC4_ELEMENT],
        VertexBufferSource::User(Arc::from(f32s(&tri))),
    )?;
    bind_rasterizer(e, |_| {})?;
    bind_stage(e, ShaderStage::Geometry, &gs_layers(n))?;
    Ok(res)
}

/// `s` (of `n` layers, `W` by `h`) as the layered framebuffer, with a full
/// viewport.
fn bind_layered(e: &mut Env, s: pipe_core::view::Surface, h: u32, n: u32) -> R {
    let fb = FramebufferState {
        width: W as u16,
        height: h as u16,
        layers: n as u16,
        samples: 1,
        cbufs: vec![Some(s)],
        zsbuf: None,
        resolve: None,
    };
    step("set_framebuffer_state", e.ctx.set_framebuffer_state(&fb))?;
    set_full_viewport(e, W, h)
}

/// The height of a `target` texture here: 1 for 1D ones.
fn height(target: Target) -> u32 {
    match target {
        Target::Texture1D | Target::Texture1DArray => 1,
        _ => H,
    }
}

/// Every texel of layer `l` of `res` is `want`, within 1.
fn expect_layer(e: &mut Env, res: &Resource, l: u32, want: [u8; 4], what: &str) -> R {
    let h = res.desc().height0 as i32;
    let got = e.read_texture(res, 0, &PipeBox::new(0, 0, l as i32, W as i32, h, 1))?;
    match got
        .chunks_exact(4)
        .position(|p| p.iter().zip(want).any(|(&g, w)| g.abs_diff(w) > 1))
    {
        None => Ok(()),
        Some(i) => Err(Outcome::fail(format!(
            "{what}: layer {l} pixel {i} is {:?}, want {want:?}",
            &got[4 * i..4 * i + 4]
        ))),
    }
}

fn require_gs(e: &Env) -> R {
    if !e.screen.caps().shader[ShaderStage::Geometry.index()].supported {
        return Err(Outcome::skip("no geometry shaders"));
    }
    Ok(())
}

/// A geometry shader writes each layer of a 2D array (3 layers), a cube
/// (6 faces) or a 3D texture (4 slices) its own colour; a clear first
/// clears every layer.
fn gs_layer(ctx: &mut TestContext, staging: bool, target: Target, n: u32) -> R {
    let mut e = env(ctx, staging)?;
    require_gs(&e)?;
    let res = layered_target(&mut e, target, n)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_COL)?;
    let c = [0.75f32, 0.25, 0.5, 1.0];
    step(
        "clear",
        e.ctx
            .clear(ClearFlags::COLOR0, None, &ColorUnion::from_f32(c), 1.0, 0),
    )?;
    for l in 0..n {
        expect_layer(&mut e, &res, l, unorm(c).nearest(), "after the clear")?;
    }
    draw_arrays(&mut e, pipe_core::draw::PrimType::Triangles, 0, 3)?;
    for l in 0..n {
        expect_layer(
            &mut e,
            &res,
            l,
            unorm(layer_color(l)).nearest(),
            "after the draw",
        )?;
    }
    Ok(())
}
fn gs_layer_array(ctx: &mut TestContext, staging: bool) -> R {
    gs_layer(ctx, staging, Target::Texture2DArray, 3)
}
fn gs_layer_cube(ctx: &mut TestContext, staging: bool) -> R {
    gs_layer(ctx, staging, Target::TextureCube, 6)
}
fn gs_layer_3d(ctx: &mut TestContext, staging: bool) -> R {
    gs_layer(ctx, staging, Target::Texture3D, 4)
}
both_paths!("pipe.draw.layered.gs_layer.array", gs_layer_array);
both_paths!("pipe.draw.layered.gs_layer.cube", gs_layer_cube);
both_paths!("pipe.draw.layered.gs_layer.3d", gs_layer_3d);

/// Framebuffer fetch on a layered framebuffer reads the fragment's own
/// layer: each layer of a 2D array (or slice of a 3D texture, or layer
/// of a 1D array) is cleared to its own colour (through a single-layer
/// surface), then every layer is drawn with `(last + layer colour) / 2`.
/// The 3D texture's slices are read through a 3D view at the slice, the
/// 1D array through a 1D array view at `(x, layer)`; both were refused
/// before.
fn fbfetch_layered_on(ctx: &mut TestContext, staging: bool, target: Target, n: u32) -> R {
    let mut e = env(ctx, staging)?;
    require_gs(&e)?;
    if !e.screen.caps().fbfetch {
        return Err(Outcome::skip("no framebuffer fetch"));
    }
    let res = layered_target(&mut e, target, n)?;
    let before = |l: u32| [0.0, 0.25 * l as f32, 1.0, 0.5];
    for l in 0..n {
        let s = e.surface(&res, 0, l, l)?;
        step(
            "clear_render_target",
            e.ctx.clear_render_target(
                &s,
                &ColorUnion::from_f32(before(l)),
                0,
                0,
                W,
                height(target),
                false,
            ),
        )?;
    }
    bind_program(&mut e, VS_PASSTHROUGH, FS_FETCH_MIX)?;
    draw_arrays(&mut e, pipe_core::draw::PrimType::Triangles, 0, 3)?;
    step(
        "texture_barrier",
        e.ctx.texture_barrier(TextureBarrierFlags::FRAMEBUFFER),
    )?;
    for l in 0..n {
        let last = unorm(before(l)).nearest();
        let col = layer_color(l);
        let want: [u8; 4] = std::array::from_fn(|i| {
            ((f32::from(last[i]) / 255.0 + col[i]) * 0.5 * 255.0).round() as u8
        });
        expect_layer(&mut e, &res, l, want, "fetch and mix")?;
    }
    Ok(())
}
fn fbfetch_layered(ctx: &mut TestContext, staging: bool) -> R {
    fbfetch_layered_on(ctx, staging, Target::Texture2DArray, 3)
}
fn fbfetch_layered_3d(ctx: &mut TestContext, staging: bool) -> R {
    fbfetch_layered_on(ctx, staging, Target::Texture3D, 4)
}
fn fbfetch_layered_1d_array(ctx: &mut TestContext, staging: bool) -> R {
    fbfetch_layered_on(ctx, staging, Target::Texture1DArray, 3)
}
both_paths!("pipe.draw.layered.fbfetch", fbfetch_layered);
both_paths!("pipe.draw.layered.fbfetch_3d", fbfetch_layered_3d);
both_paths!(
    "pipe.draw.layered.fbfetch_1d_array",
    fbfetch_layered_1d_array
);

/// Framebuffer fetch from the slices of a 3D texture bound from slice 1
/// on is refused with `Unsupported` (the 3D view it reads through starts
/// at slice 0, and the fetch reads slice `Layer`), and the context keeps
/// drawing: the same layered draw without the fetch lands.
fn fbfetch_3d_offset_refused(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    require_gs(&e)?;
    if !e.screen.caps().fbfetch {
        return Err(Outcome::skip("no framebuffer fetch"));
    }
    let n = 3;
    let res = layered_target(&mut e, Target::Texture3D, n + 1)?;
    // Slices 1..=3 as layers 0..=2.
    let s = e.surface(&res, 0, 1, n)?;
    bind_layered(&mut e, s, H, n)?;
    bind_stage(&mut e, ShaderStage::Geometry, &gs_layers(n))?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_FETCH_MIX)?;
    let info = pipe_core::draw::DrawInfo {
        mode: pipe_core::draw::PrimType::Triangles,
        ..Default::default()
    };
    let one = [pipe_core::draw::DrawStartCountBias {
        start: 0,
        count: 3,
        index_bias: 0,
    }];
    match e.ctx.draw_vbo(&info, 0, None, &one) {
        Err(pipe_core::PipeError::Unsupported(_)) => {}
        r => {
            return Err(Outcome::fail(format!(
                "fetch from 3D slices 1..=3: expected Unsupported, got {r:?}"
            )))
        }
    }
    bind_program(&mut e, VS_PASSTHROUGH, FS_COL)?;
    draw_arrays(&mut e, pipe_core::draw::PrimType::Triangles, 0, 3)?;
    for l in 0..n {
        expect_layer(
            &mut e,
            &res,
            l + 1,
            unorm(layer_color(l)).nearest(),
            "after the refused draw",
        )?;
    }
    Ok(())
}
both_paths!(
    "pipe.draw.layered.fbfetch_3d_offset_refused",
    fbfetch_3d_offset_refused
);
