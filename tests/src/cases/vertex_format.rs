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

use crate::harness::{
    bind_rasterizer, env_with, f32s, set_framebuffer, set_full_viewport, shader, step, Env,
};
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
    bind_rasterizer(e, |_| {})?;
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

// ---------------------------------------------------------------------------
// Dual-slot 64-bit elements (`VertexElement::dual_slot`): a `dvec3`/`dvec4`
// (or 64-bit integer) shader input takes two locations, so the element after
// it feeds the location after both. The attribute is checked at full double
// precision: each component is `k + e * 2^-40`, which a 32-bit fetch would
// round to `k`, and the shader writes `(d - k) * 2^40 = e`.

/// 2^40.
const TWO_40: f64 = 1_099_511_627_776.0;

/// One dual-slot case: the 64-bit element's format and `dual_slot`, the
/// shader input it feeds (`f64x4`, ...), the components written per
/// vertex, and the location of the f32x4 element that follows it.
struct DualCase {
    format: Format,
    dual_slot: bool,
    input: &'static str,
    comps: usize,
    next_location: u32,
    /// The `e` values the first target must hold (0 for components the
    /// shader input lacks, which the shader leaves at 0).
    checked: usize,
    /// 64-bit integers rather than doubles.
    int64: bool,
}

const K: [f64; 4] = [1.0, 2.0, 3.0, 4.0];
const E: [f64; 4] = [0.5, 1.0, 1.5, 2.0];
/// The f32x4 element after the 64-bit one.
const NEXT: [f32; 4] = [10.0, 20.0, 30.0, 40.0];

fn dual_vs(c: &DualCase) -> String {
    let n = c
        .input
        .rsplit('x')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1usize);
    let (t, sub, conv, k, scale) = if c.int64 {
        let t = if n == 1 {
            "u64".to_string()
        } else {
            format!("u64x{n}")
        };
        // u64 components are 2^40 + e_int, with e_int = e * 2: the shader
        // writes (d - 2^40) as a float, halved.
        let k = vec!["1099511627776"; n].join(", ");
        (t, "isub", "u2f", k, vec!["0.5"; n].join(", "))
    } else {
        let t = if n == 1 {
            "f64".to_string()
        } else {
            format!("f64x{n}")
        };
        let k = K[..n]
            .iter()
            .map(|v| format!("{v:?}"))
            .collect::<Vec<_>>()
            .join(", ");
        (
            t,
            "fsub",
            "f2f",
            k,
            vec![format!("{TWO_40:?}"); n].join(", "),
        )
    };
    let f = if n == 1 {
        "f32".to_string()
    } else {
        format!("f32x{n}")
    };
    let mul = if c.int64 {
        // Scale after the conversion, in f32.
        format!("  %4 : {f} = {conv} %3\n  %5 : {f} = const {scale}\n  %6 : {f} = fmul %4, %5\n")
    } else {
        format!("  %4 : {t} = const {scale}\n  %5 : {t} = fmul %3, %4\n  %6 : {f} = {conv} %5\n")
    };
    // Widen the result to f32x4 (missing components 0).
    let widen = match n {
        1 => "  %7 : f32 = const 0.0\n  %8 : f32x4 = vec %6, %7, %7, %7\n",
        2 => "  %7 : f32x2 = const 0.0, 0.0\n  %8 : f32x4 = vec %6, %7\n",
        3 => "  %7 : f32 = const 0.0\n  %8 : f32x4 = vec %6, %7\n",
        _ => "  %8 : f32x4 = mov %6\n",
    };
    format!(
        "shader vertex
in @pos : f32x4 location=0
in @d : {t} location=1
in @a : f32x4 location={next}
out @gl_pos : f32x4 builtin=position
out @c : f32x4 location=0
out @c2 : f32x4 location=1
fn main {{
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  %1 : {t} = load @d
  %2 : {t} = const {k}
  %3 : {t} = {sub} %1, %2
{mul}{widen}  store @c, %8
  %9 : f32x4 = load @a
  store @c2, %9
}}
",
        next = c.next_location
    )
}

const DUAL_FS: &str = "shader fragment
in @c : f32x4 location=0 flat
in @c2 : f32x4 location=1 flat
out @frag0 : f32x4 location=0
out @frag1 : f32x4 location=1
fn main {
  %0 : f32x4 = load @c
  store @frag0, %0
  %1 : f32x4 = load @c2
  store @frag1, %1
}
";

fn dual_case(name: &str) -> Option<DualCase> {
    let c = |format, dual_slot, input, comps, next_location, checked, int64| DualCase {
        format,
        dual_slot,
        input,
        comps,
        next_location,
        checked,
        int64,
    };
    Some(match name {
        // Real doubles come as R64*_UINT (Mesa's st_atom_array).
        "dvec4" => c(Format::R64G64B64A64Uint, true, "f64x4", 4, 3, 4, false),
        "dvec3" => c(Format::R64G64B64Uint, true, "f64x3", 3, 3, 3, false),
        // One slot: the element after it feeds location 2.
        "dvec2" => c(Format::R64G64Uint, false, "f64x2", 2, 2, 2, false),
        // A four-component element feeding a dvec2 input (not dual-slot)
        // is fetched as two components and takes one location.
        "dvec2_from_4" => c(Format::R64G64B64A64Uint, false, "f64x2", 4, 2, 2, false),
        // A two-component element feeding a dvec4 input: two locations
        // (the second fetches nothing); GL leaves z and w undefined, so
        // only x and y are checked.
        "dvec4_from_2" => c(Format::R64G64Uint, true, "f64x4", 2, 3, 2, false),
        // R64*_FLOAT marked dual-slot is taken as real doubles too.
        "dvec4_float_format" => c(Format::R64G64B64A64Float, true, "f64x4", 4, 3, 4, false),
        "u64vec4" => c(Format::R64G64B64A64Uint, true, "u64x4", 4, 3, 4, true),
        "u64vec3" => c(Format::R64G64B64Uint, true, "u64x3", 3, 3, 3, true),
        "u64" => c(Format::R64Uint, false, "u64", 1, 2, 1, true),
        _ => return None,
    })
}

/// `spirv`: the vertex shader as SPIR-V passthrough (spirv-gen's
/// SPIR-V 1.6), which pipe-vk patches for the split 64-bit fetch.
fn dual_slot(ctx: &mut TestContext, name: &str, spirv: bool) -> R {
    let c = dual_case(name).ok_or_else(|| Outcome::fail(format!("no case {name}")))?;
    let mut e = env_with(ctx, |_| {})?;
    let caps = *e.screen.caps().stage(ShaderStage::Vertex);
    if (!c.int64 && !caps.fp64) || (c.int64 && !caps.int64) {
        return Err(Outcome::Skip(format!(
            "{name}: the device has no 64-bit {} in shaders",
            if c.int64 { "integers" } else { "floats" }
        )));
    }
    let mut rts = Vec::new();
    let mut surfaces = Vec::new();
    for _ in 0..2 {
        let rt = e.texture(&ResourceTemplate::texture_2d(
            Format::R32G32B32A32Float,
            W,
            W,
            BindFlags::RENDER_TARGET,
        ))?;
        surfaces.push(Some(e.surface(&rt, 0, 0, 0)?));
        rts.push(rt);
    }
    set_framebuffer(&mut e, W as u16, W as u16, surfaces, None)?;
    set_full_viewport(&mut e, W, W)?;
    bind_rasterizer(&mut e, |_| {})?;
    let vs = if spirv {
        crate::harness::spirv_shader(
            ShaderStage::Vertex,
            &dual_vs(&c),
            spirv_gen::emit::Target::Vulkan1_3,
        )?
    } else {
        shader(ShaderStage::Vertex, &dual_vs(&c))?
    };
    let v = step("vs", e.ctx.create_vs_state(&vs))?;
    let f = step(
        "fs",
        e.ctx
            .create_fs_state(&shader(ShaderStage::Fragment, DUAL_FS)?),
    )?;
    step("bind vs", e.ctx.bind_vs_state(Some(v)))?;
    step("bind fs", e.ctx.bind_fs_state(Some(f)))?;

    // One interleaved buffer: position, the 64-bit attribute (a 32-byte
    // slot, whatever its components), the f32x4.
    let stride = 16 + 32 + 16;
    let pos = [
        [-1.0f32, -1.0, 0.0, 1.0],
        [3.0, -1.0, 0.0, 1.0],
        [-1.0, 3.0, 0.0, 1.0],
    ];
    let mut data = Vec::new();
    for p in pos {
        data.extend(f32s(&p));
        let mut wide = [0u8; 32];
        for i in 0..c.comps {
            let b = if c.int64 {
                ((TWO_40 as u64) + (E[i] * 2.0) as u64).to_le_bytes()
            } else {
                (K[i] + E[i] / TWO_40).to_le_bytes()
            };
            wide[8 * i..8 * i + 8].copy_from_slice(&b);
        }
        data.extend(wide);
        data.extend(f32s(&NEXT));
    }
    let el = |src_offset, src_format, dual_slot| VertexElement {
        src_offset,
        src_stride: stride,
        vertex_buffer_index: 0,
        dual_slot,
        src_format,
        instance_divisor: 0,
    };
    let elems = [
        el(0, Format::R32G32B32A32Float, false),
        el(16, c.format, c.dual_slot),
        el(48, Format::R32G32B32A32Float, false),
    ];
    let ve = step("velems", e.ctx.create_vertex_elements_state(&elems))?;
    step("bind velems", e.ctx.bind_vertex_elements_state(Some(ve)))?;
    step(
        "set_vertex_buffers",
        e.ctx.set_vertex_buffers(&[VertexBuffer {
            buffer: Some(VertexBufferSource::User(Arc::from(data))),
            buffer_offset: 0,
        }]),
    )?;
    crate::harness::draw_arrays(&mut e, PrimType::Triangles, 0, 3)?;
    let mut want0 = [0.0f32; 4];
    for i in 0..c.checked {
        want0[i] = E[i] as f32;
    }
    for (t, (rt, want)) in rts.iter().zip([want0, NEXT]).enumerate() {
        let got = e.read_texture(rt, 0, &PipeBox::rect(0, 0, W, W))?;
        for (i, px) in got.chunks_exact(16).enumerate() {
            let v: Vec<f32> = px
                .chunks_exact(4)
                .map(|b| f32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            let n = if t == 0 { c.checked } else { 4 };
            if v[..n] != want[..n] {
                return Err(Outcome::fail(format!(
                    "{name}: target {t} pixel {i} is {v:?}, want {:?}",
                    &want[..n]
                )));
            }
        }
    }
    Ok(())
}

macro_rules! dual_slot_cases {
    ($($name:literal),+ $(,)?) => {$(
        const _: () = {
            fn run(ctx: &mut TestContext) -> Outcome {
                Outcome::from_result(dual_slot(ctx, $name, false))
            }
            fn spirv(ctx: &mut TestContext) -> Outcome {
                Outcome::from_result(dual_slot(ctx, $name, true))
            }
            test_case!(name = concat!("pipe.draw.vertex_format.dual_slot.", $name), run);
            test_case!(name = concat!("pipe.draw.vertex_format.dual_slot.", $name, ".spirv"), spirv);
        };
    )+};
}
dual_slot_cases!(
    "dvec4",
    "dvec4_float_format",
    "dvec3",
    "dvec2",
    "dvec2_from_4",
    "dvec4_from_2",
    "u64vec4"
);

/// Elements that need more input locations than the device has are
/// refused when the vertex elements are created: dual-slot elements take
/// two, and GL_DOUBLE elements of three or four components converted to
/// float take a spare one for their upper half.
fn dual_slot_too_many(ctx: &mut TestContext) -> R {
    let mut e = env_with(ctx, |_| {})?;
    let max = e.screen.caps().max_vertex_attribs;
    let elems = |n: u32, src_format, dual_slot| -> Vec<VertexElement> {
        (0..n)
            .map(|i| VertexElement {
                src_offset: 32 * i,
                src_stride: 32 * n,
                vertex_buffer_index: 0,
                dual_slot,
                src_format,
                instance_divisor: 0,
            })
            .collect()
    };
    let half = max / 2;
    let cases = [
        (half + 1, Format::R64G64B64A64Uint, true, Some("dual-slot")),
        (half + 1, Format::R64G64B64A64Uint, false, None),
        (half, Format::R64G64B64A64Uint, true, None),
        (half + 1, Format::R64G64B64A64Float, false, Some("spare")),
        (half, Format::R64G64B64A64Float, false, None),
    ];
    for (n, format, dual, refused) in cases {
        let r = e.ctx.create_vertex_elements_state(&elems(n, format, dual));
        match (refused, r) {
            (Some(word), Err(pipe_core::PipeError::InvalidArgument(m))) if m.contains(word) => {}
            (None, Ok(_)) => {}
            (_, r) => {
                return Err(Outcome::fail(format!(
                    "{n} {format} elements (dual_slot {dual}, the device has {max} locations): \
                     expected {}, got {r:?}",
                    if refused.is_some() {
                        "InvalidArgument"
                    } else {
                        "success"
                    }
                )))
            }
        }
    }
    Ok(())
}
const _: () = {
    fn run(ctx: &mut TestContext) -> Outcome {
        Outcome::from_result(dual_slot_too_many(ctx))
    }
    test_case!(
        name = "pipe.draw.vertex_format.dual_slot.too_many_locations",
        run
    );
};
