//! `pipe.draw.vertex_format.*`: vertex attributes in formats GL allows
//! that Vulkan devices may not fetch (BGRA, scaled integers, 10/10/10/2),
//! fetched natively where the device can and through pipe-vk's shader
//! fix-ups otherwise (`PIPE_VK_DEBUG=vertex_fixups` forces them; the
//! `.fixup` variants). The vertex shader writes the attribute to an
//! RGBA32F target as `attr * scale + bias`; the expected value decodes
//! the attribute bytes here, by the format's definition.

use std::sync::Arc;

use pipe_core::draw::{DrawInfo, DrawStartCountBias, PrimType};
use pipe_core::resource::{BindFlags, PipeBox, ResourceTemplate};
use pipe_core::shader::ShaderState;
use pipe_core::state::*;
use pipe_core::Format;

use crate::harness::{env_with, f32s, set_framebuffer, set_full_viewport, shader, step, Env};
use crate::{test_case, Outcome, TestContext};

type R = Result<(), Outcome>;

const W: u32 = 4;

/// `c = a * scale + bias` (location 1), position from location 0.
fn vs(scale: f32, bias: f32) -> String {
    format!(
        "shader vertex
in @pos : f32x4 location=0
in @a : f32x4 location=1
out @gl_pos : f32x4 builtin=position
out @c : f32x4 location=0
fn main {{
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  %1 : f32x4 = load @a
  %2 : f32x4 = const {scale:?}, {scale:?}, {scale:?}, {scale:?}
  %3 : f32x4 = fmul %1, %2
  %4 : f32x4 = const {bias:?}, {bias:?}, {bias:?}, {bias:?}
  %5 : f32x4 = fadd %3, %4
  store @c, %5
}}
"
    )
}

const FS: &str = "shader fragment
in @c : f32x4 location=0 flat
out @frag : f32x4 location=0
fn main {
  %0 : f32x4 = load @c
  store @frag, %0
}
";

/// One case: the format, the attribute's bytes, the scale and bias of
/// the shader, and the decoded attribute (what GL's fetch gives).
struct Case {
    format: Format,
    bytes: Vec<u8>,
    scale: f32,
    bias: f32,
    decoded: [f32; 4],
}

fn case(name: &str) -> Option<Case> {
    let c = |format, bytes: Vec<u8>, scale, bias, decoded| Case {
        format,
        bytes,
        scale,
        bias,
        decoded,
    };
    let le16 = |v: &[i16]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let le32 = |v: &[u32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    // x, y, z, w packed 10/10/10/2 from the least significant bit.
    let pack = |x: u32, y: u32, z: u32, w: u32| x | y << 10 | z << 20 | w << 30;
    Some(match name {
        "b8g8r8a8_unorm" => c(
            Format::B8G8R8A8Unorm,
            vec![51, 102, 204, 255],
            1.0,
            0.0,
            [204.0 / 255.0, 102.0 / 255.0, 51.0 / 255.0, 1.0],
        ),
        "r8g8b8a8_uscaled" => c(
            Format::R8G8B8A8Uscaled,
            vec![1, 2, 200, 255],
            0.25,
            0.0,
            [1.0, 2.0, 200.0, 255.0],
        ),
        "r8g8b8a8_sscaled" => c(
            Format::R8G8B8A8Sscaled,
            vec![1, 0xfe, 100, 0x80],
            0.25,
            0.0,
            [1.0, -2.0, 100.0, -128.0],
        ),
        "r16g16_sscaled" => c(
            Format::R16G16Sscaled,
            le16(&[-300, 1000]),
            0.5,
            1.0,
            // Missing components read as (0, 1).
            [-300.0, 1000.0, 0.0, 1.0],
        ),
        "r32g32b32_uscaled" => c(
            Format::R32G32B32Uscaled,
            le32(&[7, 65536, 3_000_000]),
            1.0,
            0.0,
            [7.0, 65536.0, 3_000_000.0, 1.0],
        ),
        "r10g10b10a2_unorm" => c(
            Format::R10G10B10A2Unorm,
            le32(&[pack(1023, 512, 0, 2)]),
            1.0,
            0.0,
            [1.0, 512.0 / 1023.0, 0.0, 2.0 / 3.0],
        ),
        "r10g10b10a2_snorm" => c(
            Format::R10G10B10A2Snorm,
            // 511, -256, -512 (clamped to -1), alpha -2 (clamped to -1).
            le32(&[pack(511, 1024 - 256, 512, 2)]),
            1.0,
            0.0,
            [1.0, -256.0 / 511.0, -1.0, -1.0],
        ),
        _ => return None,
    })
}

fn run_case(ctx: &mut TestContext, name: &str, fixups: bool) -> R {
    let e = env_with(ctx, |o| o.vertex_fixups = Some(fixups))?;
    run_case_on(e, name, fixups)
}

fn run_case_on(mut e: Env, name: &str, fixups: bool) -> R {
    let c = case(name).ok_or_else(|| Outcome::fail(format!("no case {name}")))?;
    let vs = shader(ShaderStage::Vertex, &vs(c.scale, c.bias))?;
    let want = c.decoded.map(|x| x * c.scale + c.bias);
    attrib_draw(&mut e, vs, c.format, &c.bytes, want, false)
        .map_err(|o| Outcome::fail(format!("fix-ups forced: {fixups}: {o:?}")))
}

/// Draws a target-covering triangle whose attribute 1 has `format` and
/// `bytes` for every vertex (position at location 0), with the vertex
/// shader `vs` and [`FS`], and compares the RGBA32F target with `want`.
/// A draw refused as unsupported is accepted when `refusal_ok`.
pub(crate) fn attrib_draw(
    e: &mut Env,
    vs: ShaderState,
    format: Format,
    bytes: &[u8],
    want: [f32; 4],
    refusal_ok: bool,
) -> R {
    let rt = e.texture(&ResourceTemplate::texture_2d(
        Format::R32G32B32A32Float,
        W,
        W,
        BindFlags::RENDER_TARGET,
    ))?;
    let s = e.surface(&rt, 0, 0, 0)?;
    set_framebuffer(e, W as u16, W as u16, vec![Some(s)], None)?;
    set_full_viewport(e, W, W)?;
    let rs = RasterizerState {
        half_pixel_center: true,
        depth_clip_near: true,
        depth_clip_far: true,
        clip_halfz: true,
        ..Default::default()
    };
    let h = step("rasterizer", e.ctx.create_rasterizer_state(&rs))?;
    step("bind rasterizer", e.ctx.bind_rasterizer_state(Some(h)))?;
    let v = step("vs", e.ctx.create_vs_state(&vs))?;
    let f = step(
        "fs",
        e.ctx.create_fs_state(&shader(ShaderStage::Fragment, FS)?),
    )?;
    step("bind vs", e.ctx.bind_vs_state(Some(v)))?;
    step("bind fs", e.ctx.bind_fs_state(Some(f)))?;
    bind_attribs(e, format, bytes)?;
    let info = DrawInfo {
        mode: PrimType::Triangles,
        ..DrawInfo::default()
    };
    let one = [DrawStartCountBias {
        start: 0,
        count: 3,
        index_bias: 0,
    }];
    match e.ctx.draw_vbo(&info, 0, None, &one) {
        Err(pipe_core::PipeError::Unsupported(_)) if refusal_ok => return Ok(()),
        r => step("draw_vbo", r)?,
    }
    let got = e.read_texture(&rt, 0, &PipeBox::rect(0, 0, W, W))?;
    for (i, px) in got.chunks_exact(16).enumerate() {
        let v: Vec<f32> = px
            .chunks_exact(4)
            .map(|b| f32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        if v.iter()
            .zip(want)
            .any(|(g, w)| (g - w).abs() > 1e-4 * w.abs().max(1.0))
        {
            return Err(Outcome::fail(format!(
                "{format}: pixel {i} is {v:?}, want {want:?}"
            )));
        }
    }
    Ok(())
}

/// Position (a screen-covering triangle) at location 0 from buffer 0,
/// the tested attribute at location 1 from buffer 1, the same bytes for
/// each vertex.
fn bind_attribs(e: &mut Env, format: Format, bytes: &[u8]) -> R {
    let pos = [
        -1.0, -1.0, 0.0, 1.0, 3.0, -1.0, 0.0, 1.0, -1.0, 3.0, 0.0, 1.0,
    ];
    let data: Vec<u8> = bytes
        .iter()
        .copied()
        .cycle()
        .take(3 * bytes.len())
        .collect();
    let elems = [
        VertexElement {
            src_offset: 0,
            src_stride: 16,
            vertex_buffer_index: 0,
            dual_slot: false,
            src_format: Format::R32G32B32A32Float,
            instance_divisor: 0,
        },
        VertexElement {
            src_offset: 0,
            src_stride: bytes.len() as u32,
            vertex_buffer_index: 1,
            dual_slot: false,
            src_format: format,
            instance_divisor: 0,
        },
    ];
    let ve = step("velems", e.ctx.create_vertex_elements_state(&elems))?;
    step("bind velems", e.ctx.bind_vertex_elements_state(Some(ve)))?;
    step(
        "set_vertex_buffers",
        e.ctx.set_vertex_buffers(&[
            VertexBuffer {
                buffer: Some(VertexBufferSource::User(Arc::from(f32s(&pos)))),
                buffer_offset: 0,
            },
            VertexBuffer {
                buffer: Some(VertexBufferSource::User(Arc::from(data))),
                buffer_offset: 0,
            },
        ]),
    )
}

macro_rules! formats {
    ($($name:literal),+ $(,)?) => {$(
        const _: () = {
            fn native(ctx: &mut TestContext) -> Outcome {
                Outcome::from_result(run_case(ctx, $name, false))
            }
            fn fixup(ctx: &mut TestContext) -> Outcome {
                Outcome::from_result(run_case(ctx, $name, true))
            }
            test_case!(name = concat!("pipe.draw.vertex_format.", $name, ".native"), native);
            test_case!(name = concat!("pipe.draw.vertex_format.", $name, ".fixup"), fixup);
        };
    )+};
}
formats!(
    "b8g8r8a8_unorm",
    "r8g8b8a8_uscaled",
    "r8g8b8a8_sscaled",
    "r16g16_sscaled",
    "r32g32b32_uscaled",
    "r10g10b10a2_unorm",
    "r10g10b10a2_snorm",
);

/// A format no device fetches and pipe-vk has no fix-up for (a
/// compressed one) is refused when the vertex elements are created, and
/// the context keeps working.
fn unfetchable(ctx: &mut TestContext) -> R {
    let mut e = env_with(ctx, |_| {})?;
    let elems = [VertexElement {
        src_offset: 0,
        src_stride: 8,
        vertex_buffer_index: 0,
        dual_slot: false,
        src_format: Format::Bc1RgbaUnorm,
        instance_divisor: 0,
    }];
    match e.ctx.create_vertex_elements_state(&elems) {
        Err(pipe_core::PipeError::Unsupported(_) | pipe_core::PipeError::InvalidArgument(_)) => {}
        r => {
            return Err(Outcome::fail(format!(
                "a BC1 vertex element: expected an error, got {r:?}"
            )))
        }
    }
    run_case_on(e, "r8g8b8a8_uscaled", false)
}
const _: () = {
    fn run(ctx: &mut TestContext) -> Outcome {
        Outcome::from_result(unfetchable(ctx))
    }
    test_case!(name = "pipe.draw.vertex_format.unfetchable_refused", run);
};
