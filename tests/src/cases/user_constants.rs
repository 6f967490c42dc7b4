//! `pipe.draw.user_constants.*`: constant buffer 0 from user data (st/mesa's
//! uniforms), changed before every draw, in the vertex and fragment
//! stages, read at constant and dynamic offsets. pipe-vk binds a window of
//! its constant stream buffer and pushes where the data starts
//! (`.window`, the default) or binds each upload as its own descriptor
//! (`.descriptor`, `PIPE_VK_DEBUG=no_cb0_push_offset`). 256 draws of
//! 256 bytes per stage cross the window's half-size steps several times,
//! and some draws bind a buffer resource as constant buffer 0 instead.
//! Each draw lights its own pixel with a colour computed here.

use pipe_core::draw::PrimType;
use pipe_core::flags::MapFlags;
use pipe_core::state::*;

use crate::cases::draw::{bind_vertices, check_image, clear_color, draw, setup};
use crate::harness::{bind_program, bind_rasterizer, env_with, set_user_constants, step};
use crate::{Outcome, TestContext};

type R = Result<(), Outcome>;

/// Moves the vertex by constant buffer 0's first vec4.
const VS: &str = "shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
ubo @c slot=0 size=16
fn main {
  %0 : f32x4 = load @pos
  %1 : u32 = const 0
  %2 : f32x4 = load_ubo @c, %1
  %3 : f32x4 = fadd %0, %2
  store @gl_pos, %3
}
";

/// Colour = vec4 number `k` after the first, where `k` is the first
/// word: a dynamic offset.
const FS: &str = "shader fragment
out @frag : f32x4 location=0
ubo @c slot=0 size=256
fn main {
  %0 : u32 = const 0
  %1 : u32x4 = load_ubo @c, %0
  %2 : u32 = swizzle %1, x
  %3 : u32 = const 16
  %4 : u32 = imul %2, %3
  %5 : u32 = iadd %4, %3
  %6 : f32x4 = load_ubo @c, %5
  store @frag, %6
}
";

/// The colour of draw `i`, in whole 8-bit steps.
fn color(i: u32) -> [u8; 4] {
    [i as u8, (255 - i) as u8, (i * 7 % 256) as u8, 255]
}

/// The 256 bytes of fragment constants of draw `i`: `k = i % 15`, then
/// 15 vec4s, the `k`-th the colour and the others grey.
fn fs_constants(i: u32) -> Vec<u8> {
    let k = i % 15;
    let mut words = vec![k, 0, 0, 0];
    for j in 0..15 {
        let c = if j == k {
            color(i).map(|v| f32::from(v) / 255.0)
        } else {
            [0.5; 4]
        };
        words.extend(c.map(f32::to_bits));
    }
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn run(ctx: &mut TestContext, window: bool) -> R {
    let mut e = env_with(ctx, |o| o.no_cb0_push_offset = Some(!window))?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS, FS)?;
    bind_rasterizer(&mut e, |r| {
        r.point_size = 1.0;
    })?;
    clear_color(&mut e, [0.0; 4])?;
    // One point at the centre of pixel (0, 0).
    bind_vertices(
        &mut e,
        &[-1.0 + 1.0 / 16.0, -1.0 + 1.0 / 16.0, 0.0, 1.0],
        None,
    )?;
    let buffer = e.buffer(256, pipe_core::resource::ResourceFlags::empty())?;
    for i in 0..256u32 {
        let (x, y) = (i % 16, i / 16);
        let mut vs = [x as f32 / 8.0, y as f32 / 8.0, 0.0, 0.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect::<Vec<u8>>();
        // 256 bytes per stage, so that the stream moves on quickly.
        vs.resize(256, 0);
        set_user_constants(&mut e, ShaderStage::Vertex, &vs)?;
        if i % 50 == 7 {
            // A buffer resource as constant buffer 0 for this draw.
            step(
                "buffer_subdata",
                e.ctx.buffer_subdata(
                    &buffer,
                    MapFlags::DISCARD_WHOLE_RESOURCE,
                    0,
                    &fs_constants(i),
                ),
            )?;
            let cb = ConstantBuffer {
                buffer: Some(buffer.clone()),
                buffer_offset: 0,
                buffer_size: 256,
                user_buffer: None,
            };
            step(
                "set_constant_buffer",
                e.ctx
                    .set_constant_buffer(ShaderStage::Fragment, 0, Some(cb)),
            )?;
        } else {
            set_user_constants(&mut e, ShaderStage::Fragment, &fs_constants(i))?;
        }
        draw(&mut e, PrimType::Points, 0, 1, 1)?;
    }
    check_image(ctx, &mut e, &t, |x, y| Some(color(y * 16 + x)))
}

crate::bool_cases!(
    run,
    "pipe.draw.user_constants.descriptor",
    "pipe.draw.user_constants.window",
);
