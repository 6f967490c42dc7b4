//! `pipe.render.<section>.<case>`: generated rendering tests, grouped by the
//! sections of Gallium's context.rst: blend (factors, equations, constant
//! colour, write masks, logic ops, integer targets), depth (functions and
//! write mask), stencil (ops, functions, masks, two-sided), viewport and
//! scissor edges, texturing (filters, wrap modes, swizzles, mip selection)
//! and MSAA (coverage and resolve).
//!
//! Every case draws into a 16x16 target and compares the read-back pixels
//! with values computed here from the spec's formulas (blend equations,
//! compare functions, stencil ops, the sampler's wrap and filter rules,
//! sample coverage). Pixels or samples whose centre lies on a primitive
//! edge are left out of the comparison. Cases are registered by the
//! `cases!` macro, one function per case.
//!
//! Left out, with the reason, in `KNOWN_GAPS`: what the driver or
//! spirv-gen cannot do yet.

use std::sync::Arc;

use pipe_core::blit::{BlitInfo, BlitSurface};
use pipe_core::draw::{DrawInfo, DrawStartCountBias};
use pipe_core::flags::{BlitMask, ClearFlags};
use pipe_core::resource::{BindFlags, PipeBox, ResourceTemplate, Target};
use pipe_core::state::*;
use pipe_core::view::{SamplerViewTemplate, SurfaceTemplate, Swizzle, ViewRange};
use pipe_core::{Format, Resource};

use crate::harness::{bind_program, f32s, step, Env, FS_UBO_COLOR, VS_PASSTHROUGH};
use crate::{test_case, Outcome, TestContext, Tolerance};

type R = Result<(), Outcome>;
pub(crate) type Px = [f32; 4];

pub(crate) const W: u32 = 16;
pub(crate) const H: u32 = 16;

/// A case body, as registered.
type Body = fn(&mut TestContext) -> Outcome;

/// Cases kept out of the registered table because the driver (or
/// spirv-gen) cannot pass them yet: (name under `pipe.render.`, reason,
/// body to register once fixed). Move a line into its `cases!` list when
/// the gap closes.
#[allow(dead_code)]
const KNOWN_GAPS: &[(&str, &str, Option<Body>)] = &[];

/// Registers `pipe.render.<section>.<name>` for each `name => arg`: a
/// function calling `body(ctx, arg)`.
macro_rules! cases {
    ($section:literal, $body:path, { $($name:literal => $arg:expr),+ $(,)? }) => {
        $(
            const _: () = {
                fn run(ctx: &mut TestContext) -> Outcome {
                    Outcome::from_result($body(ctx, $arg))
                }
                test_case!(name = concat!("pipe.render.", $section, ".", $name), run);
            };
        )+
    };
}

// ---------------------------------------------------------------------------
// Shaders
// ---------------------------------------------------------------------------

const FS_UBO_INT: &str = "shader fragment
out @frag : i32x4 location=0
ubo @c slot=0 size=16
fn main {
  %0 : u32 = const 0
  %1 : i32x4 = load_ubo @c, %0
  store @frag, %1
}
";

const FS_UBO_UINT: &str = "shader fragment
out @frag : u32x4 location=0
ubo @c slot=0 size=16
fn main {
  %0 : u32 = const 0
  %1 : u32x4 = load_ubo @c, %0
  store @frag, %1
}
";

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

/// Explicit LOD from constant buffer 0 (x).
const FS_TXL: &str = "shader fragment
in @uv : f32x2 location=0
out @frag : f32x4 location=0
texture @t slot=0 dim=2d sampled=float
ubo @c slot=0 size=16
fn main {
  %0 : f32x2 = load @uv
  %1 : u32 = const 0
  %2 : f32x4 = load_ubo @c, %1
  %3 : f32 = swizzle %2, x
  %4 : f32x4 = txl @t, coord=%0, lod=%3
  store @frag, %4
}
";

// ---------------------------------------------------------------------------
// Shared helpers: target, state, geometry, read-back, comparison
// ---------------------------------------------------------------------------

pub(crate) const BLACK: Px = [0.0, 0.0, 0.0, 0.0];
const RED: Px = [1.0, 0.0, 0.0, 1.0];
const GREEN: Px = [0.0, 1.0, 0.0, 1.0];
pub(crate) const UNORM: Format = Format::R8G8B8A8Unorm;
const FLOAT: Format = Format::R32G32B32A32Float;

/// ±1 in 8 bits (both sides are multiples of 1/255).
pub(crate) const TOL_U8: f32 = 1.0 / 255.0 + 1e-4;
/// ±2 in 8 bits: filtering and resolves with fixed-point weights.
pub(crate) const TOL_U8_2: f32 = 2.0 / 255.0 + 1e-4;

/// The render target and depth/stencil buffer of a case.
pub(crate) struct Rt {
    pub(crate) color: Resource,
    pub(crate) zs: Option<Resource>,
}

fn is_int(f: Format) -> bool {
    matches!(f, Format::R8G8B8A8Uint | Format::R8G8B8A8Sint)
}

fn surface(e: &mut Env, res: &Resource) -> Result<pipe_core::view::Surface, Outcome> {
    let format = res.desc().format;
    let t = SurfaceTemplate {
        format,
        level: 0,
        first_layer: 0,
        last_layer: 0,
    };
    step("create_surface", e.ctx.create_surface(res, &t))
}

/// Opens a context with a 16x16 colour target of `color` (and a
/// depth/stencil buffer of `zs`), `samples` samples, a full viewport and
/// the default rasterizer. Skips when the formats are not supported.
pub(crate) fn begin(
    ctx: &mut TestContext,
    color: Format,
    zs: Option<Format>,
    samples: u32,
) -> Result<(Env, Rt), Outcome> {
    begin_with(ctx, color, zs, samples, |_| {})
}

/// [`begin`] on a screen whose options `opts` changes (debug switches).
pub(crate) fn begin_with(
    ctx: &mut TestContext,
    color: Format,
    zs: Option<Format>,
    samples: u32,
    opts: impl FnOnce(&mut pipe_vk::ScreenOptions),
) -> Result<(Env, Rt), Outcome> {
    let mut e = crate::harness::env_with(ctx, opts)?;
    let s = samples.max(1);
    for (f, bind) in [
        (Some(color), BindFlags::RENDER_TARGET),
        (zs, BindFlags::DEPTH_STENCIL),
    ] {
        if let Some(f) = f {
            if !e
                .screen
                .is_format_supported(f, Target::Texture2D, s, s, bind)
            {
                return Err(Outcome::skip(format!("{f} x{s} is not renderable here")));
            }
        }
    }
    let mut t = ResourceTemplate::texture_2d(color, W, H, BindFlags::RENDER_TARGET);
    t.nr_samples = samples;
    let color = e.texture(&t)?;
    let cs = surface(&mut e, &color)?;
    let (zs, zsurf) = match zs {
        Some(f) => {
            let mut t = ResourceTemplate::texture_2d(f, W, H, BindFlags::DEPTH_STENCIL);
            t.nr_samples = samples;
            let z = e.texture(&t)?;
            let s = surface(&mut e, &z)?;
            (Some(z), Some(s))
        }
        None => (None, None),
    };
    let fb = FramebufferState {
        width: W as u16,
        height: H as u16,
        layers: 1,
        samples: s as u8,
        cbufs: vec![Some(cs)],
        zsbuf: zsurf,
        resolve: None,
    };
    step("set_framebuffer_state", e.ctx.set_framebuffer_state(&fb))?;
    viewport(&mut e, 0.0, 0.0, W as f32, H as f32)?;
    rasterizer(&mut e, |r| r.multisample = samples > 1)?;
    Ok((e, Rt { color, zs }))
}

/// A viewport covering window x..x+w, y..y+h (h < 0 flips y).
fn viewport(e: &mut Env, x: f32, y: f32, w: f32, h: f32) -> R {
    let vp = ViewportState {
        scale: [w / 2.0, h / 2.0, 1.0],
        translate: [x + w / 2.0, y + h / 2.0, 0.0],
        swizzle: Default::default(),
    };
    step("set_viewport_states", e.ctx.set_viewport_states(0, &[vp]))
}

pub(crate) fn rasterizer(e: &mut Env, f: impl FnOnce(&mut RasterizerState)) -> R {
    crate::harness::bind_rasterizer(e, f)
}

pub(crate) fn bind_blend(e: &mut Env, bs: &BlendState) -> R {
    let h = step("create_blend_state", e.ctx.create_blend_state(bs))?;
    step("bind_blend_state", e.ctx.bind_blend_state(Some(h)))
}

pub(crate) fn bind_dsa(e: &mut Env, dsa: &DepthStencilAlphaState) -> R {
    let h = step("create_dsa", e.ctx.create_depth_stencil_alpha_state(dsa))?;
    step("bind_dsa", e.ctx.bind_depth_stencil_alpha_state(Some(h)))
}

/// Constant buffer 0 of the fragment stage: four 32-bit words.
fn set_consts(e: &mut Env, words: [u32; 4]) -> R {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let cb = ConstantBuffer {
        buffer: None,
        buffer_offset: 0,
        buffer_size: 16,
        user_buffer: Some(&bytes),
    };
    step(
        "set_constant_buffer",
        e.ctx
            .set_constant_buffer(ShaderStage::Fragment, 0, Some(cb)),
    )
}

/// The colour a fragment shader writes, as the target's type wants it.
pub(crate) fn set_src(e: &mut Env, format: Format, c: Px) -> R {
    set_consts(
        e,
        if is_int(format) {
            c.map(|v| v as i32 as u32)
        } else {
            c.map(f32::to_bits)
        },
    )
}

fn color_union(format: Format, c: Px) -> ColorUnion {
    if is_int(format) {
        ColorUnion::from_i32(c.map(|v| v as i32))
    } else {
        ColorUnion::from_f32(c)
    }
}

pub(crate) fn clear(
    e: &mut Env,
    flags: ClearFlags,
    color: ColorUnion,
    depth: f64,
    stencil: u32,
    scissor: Option<[u16; 4]>,
) -> R {
    let sc = scissor.map(|[minx, miny, maxx, maxy]| ScissorState {
        minx,
        miny,
        maxx,
        maxy,
    });
    step(
        "clear",
        e.ctx.clear(flags, sc.as_ref(), &color, depth, stencil),
    )
}

/// Clears colour buffer 0 to a float colour.
pub(crate) fn clear_color(e: &mut Env, c: Px) -> R {
    clear(e, ClearFlags::COLOR0, ColorUnion::from_f32(c), 1.0, 0, None)
}

/// Window pixel coordinate to NDC for the full 16x16 viewport.
pub(crate) fn ndc(p: f32) -> f32 {
    p / 8.0 - 1.0
}

/// Vertices (x, y, z, 1) of triangles given in window coordinates.
pub(crate) fn tris(points: &[(f32, f32)], z: f32) -> Vec<f32> {
    points
        .iter()
        .flat_map(|&(x, y)| [ndc(x), ndc(y), z, 1.0])
        .collect()
}

/// Two triangles covering window [x0, x1) x [y0, y1), both wound
/// counter-clockwise in window space (y down) when `ccw`, else clockwise.
fn rect(x0: f32, y0: f32, x1: f32, y1: f32, z: f32, ccw: bool) -> Vec<f32> {
    let (a, b, c, d) = ((x0, y0), (x1, y0), (x1, y1), (x0, y1));
    let pts = if ccw {
        [a, d, c, a, c, b]
    } else {
        [a, b, c, a, c, d]
    };
    tris(&pts, z)
}

/// Gallium's winding rule (draw_pipe_cull.c): with e = v0 - v2 and
/// f = v1 - v2 in window coordinates, the triangle is counter-clockwise
/// when e.x * f.y - e.y * f.x < 0.
fn window_ccw(v: &[f32]) -> bool {
    let p = |i: usize| (v[i * 4], v[i * 4 + 1]);
    let (v0, v1, v2) = (p(0), p(1), p(2));
    let (ex, ey, fx, fy) = (v0.0 - v2.0, v0.1 - v2.1, v1.0 - v2.0, v1.1 - v2.1);
    ex * fy - ey * fx < 0.0
}

/// A triangle covering the whole target.
fn full(z: f32) -> Vec<f32> {
    vec![-1.0, -1.0, z, 1.0, 3.0, -1.0, z, 1.0, -1.0, 3.0, z, 1.0]
}

/// Binds `data` as vertex buffer 0 (position, or position + uv when
/// `uv`) and draws it as a triangle list.
pub(crate) fn draw(e: &mut Env, data: &[f32], uv: bool) -> R {
    draw_mode(e, data, uv, pipe_core::draw::PrimType::Triangles)
}

/// [`draw`] with another primitive type.
pub(crate) fn draw_mode(e: &mut Env, data: &[f32], uv: bool, mode: pipe_core::draw::PrimType) -> R {
    let stride = if uv { 32 } else { 16 };
    let el = |off| VertexElement {
        src_offset: off,
        src_stride: stride,
        vertex_buffer_index: 0,
        dual_slot: false,
        src_format: Format::R32G32B32A32Float,
        instance_divisor: 0,
    };
    let elems: Vec<_> = if uv { vec![el(0), el(16)] } else { vec![el(0)] };
    let ve = step("velems", e.ctx.create_vertex_elements_state(&elems))?;
    step("bind velems", e.ctx.bind_vertex_elements_state(Some(ve)))?;
    let vb = VertexBuffer {
        buffer: Some(VertexBufferSource::User(Arc::from(f32s(data)))),
        buffer_offset: 0,
    };
    step("set_vertex_buffers", e.ctx.set_vertex_buffers(&[vb]))?;
    let draws = [DrawStartCountBias {
        start: 0,
        count: (data.len() * 4 / stride as usize) as u32,
        index_bias: 0,
    }];
    let info = DrawInfo {
        mode,
        ..DrawInfo::default()
    };
    step("draw_vbo", e.ctx.draw_vbo(&info, 0, None, &draws))
}

fn half_to_f32(h: u16) -> f32 {
    let (s, ex, m) = ((h >> 15) as i32, ((h >> 10) & 31) as i32, (h & 1023) as f32);
    let v = match ex {
        0 => m * 2f32.powi(-24),
        31 => f32::INFINITY,
        _ => (1.0 + m / 1024.0) * 2f32.powi(ex - 15),
    };
    if s == 1 {
        -v
    } else {
        v
    }
}

/// f32 to f16 bits, for values f16 holds exactly (normals and zero).
fn f32_to_half(v: f32) -> u16 {
    if v == 0.0 {
        return 0;
    }
    let b = v.to_bits();
    let exp = ((b >> 23) & 0xff) as i32 - 127 + 15;
    (((b >> 16) & 0x8000) | ((exp as u32) << 10) | ((b >> 13) & 0x3ff)) as u16
}

/// Reads level 0 of a colour resource as floats (UNORM as 0..1, integers
/// as their values).
pub(crate) fn read_color(e: &mut Env, res: &Resource) -> Result<Vec<Px>, Outcome> {
    let f = res.desc().format;
    let b = e.read_texture(res, 0, &PipeBox::rect(0, 0, W, H))?;
    let word = |p: &[u8], i: usize| u32::from_le_bytes([p[i], p[i + 1], p[i + 2], p[i + 3]]);
    let size = f.block_size_bytes() as usize;
    b.chunks(size)
        .map(|p| {
            Ok(match f {
                Format::R8G8B8A8Unorm => [0, 1, 2, 3].map(|i| f32::from(p[i]) / 255.0),
                Format::R8G8B8A8Uint => [0, 1, 2, 3].map(|i| f32::from(p[i])),
                Format::R8G8B8A8Sint => [0, 1, 2, 3].map(|i| f32::from(p[i] as i8)),
                Format::R32G32B32A32Float => [0, 1, 2, 3].map(|i| f32::from_bits(word(p, 4 * i))),
                Format::R16G16B16A16Float => {
                    [0, 1, 2, 3].map(|i| half_to_f32(u16::from_le_bytes([p[2 * i], p[2 * i + 1]])))
                }
                f => return Err(Outcome::fail(format!("no read-back decoder for {f}"))),
            })
        })
        .collect()
}

/// Reads a depth/stencil resource as (depth, stencil) per pixel, in
/// Gallium's packed layouts.
pub(crate) fn read_zs(e: &mut Env, res: &Resource) -> Result<Vec<(f32, u8)>, Outcome> {
    let f = res.desc().format;
    let b = e.read_texture(res, 0, &PipeBox::rect(0, 0, W, H))?;
    let size = f.block_size_bytes() as usize;
    b.chunks(size)
        .map(|p| {
            let w = |i: usize| u32::from_le_bytes([p[i], p[i + 1], p[i + 2], p[i + 3]]);
            Ok(match f {
                Format::Z32Float => (f32::from_bits(w(0)), 0),
                Format::Z16Unorm => (f32::from(u16::from_le_bytes([p[0], p[1]])) / 65535.0, 0),
                Format::Z24UnormS8Uint => ((w(0) & 0xff_ffff) as f32 / 16_777_215.0, p[3]),
                Format::Z32FloatS8X24Uint => (f32::from_bits(w(0)), p[4]),
                Format::S8Uint => (0.0, p[0]),
                f => return Err(Outcome::fail(format!("no read-back decoder for {f}"))),
            })
        })
        .collect()
}

/// Compares `got` with `want(x, y)` (`None`: not compared) within `tol`
/// per channel; writes the PNG triple on a mismatch.
pub(crate) fn check(
    ctx: &TestContext,
    what: &str,
    got: &[Px],
    tol: f32,
    want: impl Fn(u32, u32) -> Option<Px>,
) -> R {
    let exp: Vec<Px> = (0..W * H)
        .map(|i| want(i % W, i / W).unwrap_or(got[i as usize]))
        .collect();
    match ctx.compare_rgba(got, &exp, W, H, Tolerance::absolute(tol)) {
        Outcome::Pass => Ok(()),
        Outcome::Fail(m) => Err(Outcome::fail(format!("{what}: {m}"))),
        o => Err(o),
    }
}

/// Checks per-pixel scalar values (depth or stencil).
fn check_values(
    what: &str,
    got: impl Iterator<Item = f32>,
    tol: f32,
    want: impl Fn(u32, u32) -> f32,
) -> R {
    for (i, g) in got.enumerate() {
        let (x, y) = (i as u32 % W, i as u32 / W);
        let w = want(x, y);
        if (g - w).abs() > tol {
            return Err(Outcome::fail(format!(
                "{what} at ({x}, {y}) is {g}, expected {w} (±{tol})"
            )));
        }
    }
    Ok(())
}

/// UNORM8 quantization of an expected colour.
pub(crate) fn q8(c: Px) -> Px {
    c.map(|v| (v.clamp(0.0, 1.0) * 255.0).round() / 255.0)
}

fn compare(func: CompareFunc, a: f32, b: f32) -> bool {
    match func {
        CompareFunc::Never => false,
        CompareFunc::Less => a < b,
        CompareFunc::Equal => a == b,
        CompareFunc::LEqual => a <= b,
        CompareFunc::Greater => a > b,
        CompareFunc::NotEqual => a != b,
        CompareFunc::GEqual => a >= b,
        CompareFunc::Always => true,
    }
}

// ---------------------------------------------------------------------------
// Blend
// ---------------------------------------------------------------------------

/// Source, destination and constant colours: multiples of 1/255, so that
/// UNORM8 storage is exact. The alphas, their complements and
/// min(src alpha, 1 - dst alpha) all differ, so that every factor gives a
/// result of its own.
const SRC: Px = [0.8, 0.4, 0.2, 0.6];
const DST: Px = [0.2, 0.6, 0.8, 0.8];
const CONST: Px = [0.4, 0.2, 0.6, 90.0 / 255.0];
/// The second source of dual-source blending (`FS_DUAL`'s index-1 output).
const SRC1: Px = [0.3, 0.7, 0.9, 0.4];

/// SRC from the UBO at location 0, SRC1 (a constant) at location 0 index 1.
const FS_DUAL: &str = "shader fragment
out @frag : f32x4 location=0
out @frag1 : f32x4 location=0 index=1
ubo @c slot=0 size=16
fn main {
  %0 : u32 = const 0
  %1 : f32x4 = load_ubo @c, %0
  store @frag, %1
  %2 : f32x4 = const 0.3, 0.7, 0.9, 0.4
  store @frag1, %2
}
";
/// Float-target colours outside [0, 1] (no clamping on float targets).
const FSRC: Px = [2.0, -0.5, 0.25, 0.75];
const FDST: Px = [0.5, 1.5, -1.0, 0.5];
/// Logic-op bytes.
const LSRC: [u8; 4] = [0xCC, 0x0F, 0xA5, 0x3C];
const LDST: [u8; 4] = [0xAA, 0xF0, 0x5A, 0x66];

/// A blend factor for channel `ch` (Vulkan's table).
fn factor(f: BlendFactor, s: Px, d: Px, c: Px, ch: usize) -> f32 {
    use BlendFactor::*;
    match f {
        Zero => 0.0,
        One => 1.0,
        SrcColor => s[ch],
        InvSrcColor => 1.0 - s[ch],
        SrcAlpha => s[3],
        InvSrcAlpha => 1.0 - s[3],
        DstColor => d[ch],
        InvDstColor => 1.0 - d[ch],
        DstAlpha => d[3],
        InvDstAlpha => 1.0 - d[3],
        ConstColor => c[ch],
        InvConstColor => 1.0 - c[ch],
        ConstAlpha => c[3],
        InvConstAlpha => 1.0 - c[3],
        SrcAlphaSaturate if ch == 3 => 1.0,
        SrcAlphaSaturate => s[3].min(1.0 - d[3]),
        Src1Color => SRC1[ch],
        InvSrc1Color => 1.0 - SRC1[ch],
        Src1Alpha => SRC1[3],
        InvSrc1Alpha => 1.0 - SRC1[3],
    }
}

fn equation(func: BlendFunc, s: f32, sf: f32, d: f32, df: f32) -> f32 {
    match func {
        BlendFunc::Add => s * sf + d * df,
        BlendFunc::Subtract => s * sf - d * df,
        BlendFunc::ReverseSubtract => d * df - s * sf,
        BlendFunc::Min => s.min(d),
        BlendFunc::Max => s.max(d),
    }
}

fn logic(op: LogicOp, s: u8, d: u8) -> u8 {
    use LogicOp::*;
    match op {
        Clear => 0,
        Nor => !(s | d),
        AndInverted => !s & d,
        CopyInverted => !s,
        AndReverse => s & !d,
        Invert => !d,
        Xor => s ^ d,
        Nand => !(s & d),
        And => s & d,
        Equiv => !(s ^ d),
        Noop => d,
        OrInverted => !s | d,
        Copy => s,
        OrReverse => s | !d,
        Or => s | d,
        Set => 0xff,
    }
}

/// The expected result of blending (or logic op, or plain write) `src`
/// over `dst` with render target 0 of `bs`, then the write mask.
fn blended(format: Format, bs: &BlendState, src: Px, dst: Px) -> Px {
    let rt = &bs.rt[0];
    let unorm = format == UNORM;
    let byte = |v: f32| {
        if unorm {
            (v * 255.0).round() as u8
        } else {
            v as u8
        }
    };
    let unbyte = |b: u8| {
        if unorm {
            f32::from(b) / 255.0
        } else {
            f32::from(b)
        }
    };
    let out: Px = std::array::from_fn(|ch| {
        if bs.logicop_enable {
            unbyte(logic(bs.logicop_func, byte(src[ch]), byte(dst[ch])))
        } else if rt.blend_enable && !is_int(format) {
            let (func, sf, df) = if ch == 3 {
                (rt.alpha_func, rt.alpha_src_factor, rt.alpha_dst_factor)
            } else {
                (rt.rgb_func, rt.rgb_src_factor, rt.rgb_dst_factor)
            };
            let (sf, df) = (
                factor(sf, src, dst, CONST, ch),
                factor(df, src, dst, CONST, ch),
            );
            equation(func, src[ch], sf, dst[ch], df)
        } else {
            src[ch]
        }
    });
    let masked: Px = std::array::from_fn(|ch| {
        if rt.colormask.bits() & (1 << ch) != 0 {
            out[ch]
        } else {
            dst[ch]
        }
    });
    if unorm {
        q8(masked)
    } else {
        masked
    }
}

/// Clears to `dst`, draws `src` over the whole target with `bs` and the
/// blend colour CONST, and checks every pixel.
fn blend_run(ctx: &mut TestContext, format: Format, bs: BlendState, src: Px, dst: Px) -> R {
    let (mut e, t) = begin(ctx, format, None, 0)?;
    use BlendFactor::{InvSrc1Alpha, InvSrc1Color, Src1Alpha, Src1Color};
    let rt = &bs.rt[0];
    let dual = [
        rt.rgb_src_factor,
        rt.rgb_dst_factor,
        rt.alpha_src_factor,
        rt.alpha_dst_factor,
    ]
    .iter()
    .any(|f| matches!(f, Src1Color | Src1Alpha | InvSrc1Color | InvSrc1Alpha));
    if dual && !e.screen.caps().dual_source_blend {
        return Err(Outcome::skip("no dual-source blending"));
    }
    let fs = match format {
        Format::R8G8B8A8Sint => FS_UBO_INT,
        Format::R8G8B8A8Uint => FS_UBO_UINT,
        _ if dual => FS_DUAL,
        _ => FS_UBO_COLOR,
    };
    bind_program(&mut e, VS_PASSTHROUGH, fs)?;
    bind_blend(&mut e, &bs)?;
    step(
        "set_blend_color",
        e.ctx.set_blend_color(&BlendColor { color: CONST }),
    )?;
    clear(
        &mut e,
        ClearFlags::COLOR0,
        color_union(format, dst),
        1.0,
        0,
        None,
    )?;
    set_src(&mut e, format, src)?;
    draw(&mut e, &full(0.0), false)?;
    let got = read_color(&mut e, &t.color)?;
    let want = blended(format, &bs, src, dst);
    let tol = match format {
        UNORM => TOL_U8,
        FLOAT => 1e-5,
        _ => 0.0,
    };
    check(ctx, "blended colour", &got, tol, |_, _| Some(want))
}

fn rt_blend(func: BlendFunc, sf: BlendFactor, df: BlendFactor) -> BlendState {
    let mut bs = BlendState::default();
    bs.rt[0] = RtBlendState {
        blend_enable: true,
        rgb_func: func,
        rgb_src_factor: sf,
        rgb_dst_factor: df,
        alpha_func: func,
        alpha_src_factor: sf,
        alpha_dst_factor: df,
        colormask: ColorMask::RGBA,
    };
    bs
}

/// `f` as the source factor (destination factor ZERO), on UNORM8.
fn blend_src_factor(ctx: &mut TestContext, f: BlendFactor) -> R {
    let bs = rt_blend(BlendFunc::Add, f, BlendFactor::Zero);
    blend_run(ctx, UNORM, bs, SRC, DST)
}

/// `f` as the destination factor (source factor ZERO), on UNORM8.
fn blend_dst_factor(ctx: &mut TestContext, f: BlendFactor) -> R {
    let bs = rt_blend(BlendFunc::Add, BlendFactor::Zero, f);
    blend_run(ctx, UNORM, bs, SRC, DST)
}

macro_rules! factor_cases {
    ($($name:literal => $f:ident),+ $(,)?) => {
        cases!("blend.unorm.src_factor", blend_src_factor, { $($name => BlendFactor::$f),+ });
        cases!("blend.unorm.dst_factor", blend_dst_factor, { $($name => BlendFactor::$f),+ });
    };
}
factor_cases! {
    "zero" => Zero, "one" => One,
    "src_color" => SrcColor, "inv_src_color" => InvSrcColor,
    "src_alpha" => SrcAlpha, "inv_src_alpha" => InvSrcAlpha,
    "dst_color" => DstColor, "inv_dst_color" => InvDstColor,
    "dst_alpha" => DstAlpha, "inv_dst_alpha" => InvDstAlpha,
    "const_color" => ConstColor, "inv_const_color" => InvConstColor,
    "const_alpha" => ConstAlpha, "inv_const_alpha" => InvConstAlpha,
    "src_alpha_saturate" => SrcAlphaSaturate,
    "src1_color" => Src1Color, "inv_src1_color" => InvSrc1Color,
    "src1_alpha" => Src1Alpha, "inv_src1_alpha" => InvSrc1Alpha,
}

/// Every equation with (SRC_ALPHA, INV_SRC_ALPHA) on UNORM8 and float.
fn blend_equation(ctx: &mut TestContext, (format, func): (Format, BlendFunc)) -> R {
    let bs = rt_blend(func, BlendFactor::SrcAlpha, BlendFactor::InvSrcAlpha);
    let (s, d) = if format == FLOAT {
        (FSRC, FDST)
    } else {
        (SRC, DST)
    };
    blend_run(ctx, format, bs, s, d)
}
cases!("blend.unorm.equation", blend_equation, {
    "add" => (UNORM, BlendFunc::Add),
    "subtract" => (UNORM, BlendFunc::Subtract),
    "reverse_subtract" => (UNORM, BlendFunc::ReverseSubtract),
    "min" => (UNORM, BlendFunc::Min),
    "max" => (UNORM, BlendFunc::Max),
});
cases!("blend.float.equation", blend_equation, {
    "add" => (FLOAT, BlendFunc::Add),
    "subtract" => (FLOAT, BlendFunc::Subtract),
    "reverse_subtract" => (FLOAT, BlendFunc::ReverseSubtract),
    "min" => (FLOAT, BlendFunc::Min),
    "max" => (FLOAT, BlendFunc::Max),
});

/// Factors on a float target: source factor `sf`, destination `df`.
fn blend_float_factors(ctx: &mut TestContext, (sf, df): (BlendFactor, BlendFactor)) -> R {
    blend_run(ctx, FLOAT, rt_blend(BlendFunc::Add, sf, df), FSRC, FDST)
}
cases!("blend.float.factors", blend_float_factors, {
    "src_color_inv_src_color" => (BlendFactor::SrcColor, BlendFactor::InvSrcColor),
    "dst_color_dst_alpha" => (BlendFactor::DstColor, BlendFactor::DstAlpha),
    "const_color_inv_const_alpha" => (BlendFactor::ConstColor, BlendFactor::InvConstAlpha),
    "src_alpha_saturate_one" => (BlendFactor::SrcAlphaSaturate, BlendFactor::One),
    "inv_dst_color_const_alpha" => (BlendFactor::InvDstColor, BlendFactor::ConstAlpha),
});

/// Separate RGB and alpha equations and factors.
fn blend_separate(
    ctx: &mut TestContext,
    (format, rgb, alpha): (Format, BlendFunc, BlendFunc),
) -> R {
    let mut bs = rt_blend(rgb, BlendFactor::One, BlendFactor::SrcAlpha);
    bs.rt[0].alpha_func = alpha;
    bs.rt[0].alpha_src_factor = BlendFactor::DstAlpha;
    bs.rt[0].alpha_dst_factor = BlendFactor::ConstColor;
    let (s, d) = if format == FLOAT {
        (FSRC, FDST)
    } else {
        (SRC, DST)
    };
    blend_run(ctx, format, bs, s, d)
}
cases!("blend.separate_rgb_alpha", blend_separate, {
    "unorm_add_reverse_subtract" => (UNORM, BlendFunc::Add, BlendFunc::ReverseSubtract),
    "unorm_subtract_max" => (UNORM, BlendFunc::Subtract, BlendFunc::Max),
    "float_min_add" => (FLOAT, BlendFunc::Min, BlendFunc::Add),
});

/// Integer targets: blending is ignored (Gallium and Vulkan), the source
/// is written as is.
fn blend_int(ctx: &mut TestContext, (format, func): (Format, BlendFunc)) -> R {
    let bs = rt_blend(func, BlendFactor::SrcAlpha, BlendFactor::InvSrcAlpha);
    let (s, d) = if format == Format::R8G8B8A8Sint {
        ([-100.0, 50.0, 127.0, -128.0], [1.0, -2.0, 3.0, -4.0])
    } else {
        ([200.0, 50.0, 255.0, 7.0], [1.0, 2.0, 3.0, 4.0])
    };
    blend_run(ctx, format, bs, s, d)
}
cases!("blend.int_ignored", blend_int, {
    "sint_add" => (Format::R8G8B8A8Sint, BlendFunc::Add),
    "sint_subtract" => (Format::R8G8B8A8Sint, BlendFunc::Subtract),
    "sint_reverse_subtract" => (Format::R8G8B8A8Sint, BlendFunc::ReverseSubtract),
    "sint_min" => (Format::R8G8B8A8Sint, BlendFunc::Min),
    "sint_max" => (Format::R8G8B8A8Sint, BlendFunc::Max),
    "uint_add" => (Format::R8G8B8A8Uint, BlendFunc::Add),
});

/// The blend colour is state of its own: changing it between two draws
/// with the same blend CSO changes the result.
fn blend_color_change(ctx: &mut TestContext, _: ()) -> R {
    let (mut e, t) = begin(ctx, UNORM, None, 0)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    let bs = rt_blend(
        BlendFunc::Add,
        BlendFactor::ConstColor,
        BlendFactor::InvConstColor,
    );
    bind_blend(&mut e, &bs)?;
    clear_color(&mut e, DST)?;
    set_src(&mut e, UNORM, SRC)?;
    let (c0, c1) = ([0.2, 0.4, 0.6, 0.8], [1.0, 0.0, 0.6, 0.2]);
    for (c, x0) in [(c0, 0.0), (c1, 8.0)] {
        step(
            "set_blend_color",
            e.ctx.set_blend_color(&BlendColor { color: c }),
        )?;
        draw(&mut e, &rect(x0, 0.0, x0 + 8.0, 16.0, 0.0, false), false)?;
    }
    let got = read_color(&mut e, &t.color)?;
    check(ctx, "blend colour change", &got, TOL_U8, |x, _| {
        let c = if x < 8 { c0 } else { c1 };
        Some(q8(std::array::from_fn(|i| {
            SRC[i] * c[i] + DST[i] * (1.0 - c[i])
        })))
    })
}
cases!("blend.color", blend_color_change, { "change_between_draws" => () });

/// Colour write mask `m` (no blending).
fn colormask(ctx: &mut TestContext, m: u8) -> R {
    let mut bs = BlendState::default();
    bs.rt[0].colormask = ColorMask::from_bits_truncate(m);
    blend_run(ctx, UNORM, bs, SRC, DST)
}
cases!("blend.colormask", colormask, {
    "none" => 0, "r" => 1, "g" => 2, "rg" => 3, "b" => 4, "rb" => 5, "gb" => 6, "rgb" => 7,
    "a" => 8, "ra" => 9, "ga" => 10, "rga" => 11, "ba" => 12, "rba" => 13, "gba" => 14,
    "rgba" => 15,
});

/// Logic op `op` (blending enabled too: the logic op wins).
fn logic_op(ctx: &mut TestContext, (format, op): (Format, LogicOp)) -> R {
    let mut bs = rt_blend(BlendFunc::Add, BlendFactor::One, BlendFactor::One);
    bs.logicop_enable = true;
    bs.logicop_func = op;
    let conv = |b: [u8; 4]| {
        b.map(|v| {
            if format == UNORM {
                f32::from(v) / 255.0
            } else {
                f32::from(v)
            }
        })
    };
    blend_run(ctx, format, bs, conv(LSRC), conv(LDST))
}
macro_rules! logic_cases {
    ($($name:literal => $op:ident),+ $(,)?) => {
        cases!("blend.logic_op.unorm", logic_op, { $($name => (UNORM, LogicOp::$op)),+ });
    };
}
logic_cases! {
    "clear" => Clear, "nor" => Nor, "and_inverted" => AndInverted,
    "copy_inverted" => CopyInverted, "and_reverse" => AndReverse, "invert" => Invert,
    "xor" => Xor, "nand" => Nand, "and" => And, "equiv" => Equiv, "noop" => Noop,
    "or_inverted" => OrInverted, "copy" => Copy, "or_reverse" => OrReverse, "or" => Or,
    "set" => Set,
}
cases!("blend.logic_op.uint", logic_op, {
    "xor" => (Format::R8G8B8A8Uint, LogicOp::Xor),
    "and_reverse" => (Format::R8G8B8A8Uint, LogicOp::AndReverse),
    "equiv" => (Format::R8G8B8A8Uint, LogicOp::Equiv),
    "set" => (Format::R8G8B8A8Uint, LogicOp::Set),
});

// ---------------------------------------------------------------------------
// Depth
// ---------------------------------------------------------------------------

/// Depth bands: stored depth per column band, written by scissored
/// clears: x < 5, 5 <= x < 11, x >= 11.
fn depth_band(x: u32, mid: f32) -> f32 {
    match x {
        0..=4 => 0.25,
        5..=10 => mid,
        _ => 0.75,
    }
}

/// A full-screen draw at depth 0.5 against the bands with `func` and
/// the write mask `write`; checks the colour and the depth buffer.
fn depth_case(
    ctx: &mut TestContext,
    (format, func, write, enabled): (Format, CompareFunc, bool, bool),
) -> R {
    let (mut e, t) = begin(ctx, UNORM, Some(format), 0)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    // 0.5 ties only where the format stores 0.5 exactly for both a clear
    // and a rasterized fragment (float); elsewhere the middle band is 0.625.
    let float = matches!(format, Format::Z32Float | Format::Z32FloatS8X24Uint);
    let mid = if float { 0.5 } else { 0.625 };
    let black = ColorUnion::from_f32(BLACK);
    clear(
        &mut e,
        ClearFlags::COLOR0 | ClearFlags::DEPTHSTENCIL,
        black,
        mid.into(),
        0,
        None,
    )?;
    clear(
        &mut e,
        ClearFlags::DEPTH,
        black,
        0.25,
        0,
        Some([0, 0, 5, 16]),
    )?;
    clear(
        &mut e,
        ClearFlags::DEPTH,
        black,
        0.75,
        0,
        Some([11, 0, 16, 16]),
    )?;
    bind_dsa(
        &mut e,
        &DepthStencilAlphaState {
            depth_enabled: enabled,
            depth_writemask: write,
            depth_func: func,
            ..Default::default()
        },
    )?;
    set_src(&mut e, UNORM, RED)?;
    draw(&mut e, &full(0.5), false)?;
    let pass = |x: u32| !enabled || compare(func, 0.5, depth_band(x, mid));
    let got = read_color(&mut e, &t.color)?;
    check(ctx, "colour", &got, TOL_U8, |x, _| {
        Some(if pass(x) { RED } else { BLACK })
    })?;
    let zs =
        t.zs.as_ref()
            .ok_or_else(|| Outcome::fail("no depth buffer"))?;
    let z = read_zs(&mut e, zs)?;
    let tol = match format {
        Format::Z16Unorm => 1.0 / 65535.0,
        Format::Z24UnormS8Uint => 1e-6,
        _ => 0.0,
    };
    check_values("depth", z.iter().map(|p| p.0), tol, |x, _| {
        if enabled && write && pass(x) {
            0.5
        } else {
            depth_band(x, mid)
        }
    })
}
macro_rules! depth_cases {
    ($($name:literal => $f:ident),+ $(,)?) => {
        cases!("depth.func.write", depth_case,
            { $($name => (Format::Z32Float, CompareFunc::$f, true, true)),+ });
        cases!("depth.func.no_write", depth_case,
            { $($name => (Format::Z32Float, CompareFunc::$f, false, true)),+ });
    };
}
depth_cases! {
    "never" => Never, "less" => Less, "equal" => Equal, "lequal" => LEqual,
    "greater" => Greater, "notequal" => NotEqual, "gequal" => GEqual, "always" => Always,
}
cases!("depth.format", depth_case, {
    "z16_less" => (Format::Z16Unorm, CompareFunc::Less, true, true),
    "z24s8_greater" => (Format::Z24UnormS8Uint, CompareFunc::Greater, true, true),
    "z24s8_lequal" => (Format::Z24UnormS8Uint, CompareFunc::LEqual, true, true),
    "z32f_s8_equal" => (Format::Z32FloatS8X24Uint, CompareFunc::Equal, true, true),
});
cases!("depth.disabled", depth_case, {
    "no_test_no_write" => (Format::Z32Float, CompareFunc::Never, true, false),
});

/// Depth state switched between draws with nothing else changing but
/// the vertex buffer (pipe-vk keeps the pipeline and records only the
/// dynamic depth state): eight columns, two pixels wide, each drawn red
/// at its own depth against a depth buffer cleared to 0.5, after binding
/// a depth-stencil-alpha state created beforehand (its function, write
/// mask, and for one column the depth test off). Each column's colour and
/// depth are checked against the comparison computed here.
fn depth_switch(ctx: &mut TestContext) -> Outcome {
    Outcome::from_result(depth_switch_inner(ctx))
}

fn depth_switch_inner(ctx: &mut TestContext) -> R {
    // (function, depth writes, depth test on, the column's depth)
    let columns = [
        (CompareFunc::Less, true, true, 0.25f32),
        (CompareFunc::Greater, true, true, 0.25),
        (CompareFunc::Greater, true, true, 0.75),
        (CompareFunc::Always, false, true, 0.75),
        (CompareFunc::Never, true, true, 0.25),
        (CompareFunc::Less, true, false, 0.75),
        (CompareFunc::GEqual, true, true, 0.75),
        (CompareFunc::LEqual, false, true, 0.25),
    ];
    let states = columns.map(|(func, write, enabled, _)| DepthStencilAlphaState {
        depth_enabled: enabled,
        depth_writemask: write,
        depth_func: func,
        ..Default::default()
    });
    let pass = |x: u32| {
        let (func, _, enabled, z) = columns[(x / 2) as usize];
        !enabled || compare(func, z, 0.5)
    };
    let (got, zs) = dsa_columns(
        ctx,
        Format::Z32Float,
        0,
        &states,
        &columns.map(|c| c.3),
        &mut |_, _| Ok(()),
    )?;
    check(ctx, "colour", &got, TOL_U8, |x, _| {
        Some(if pass(x) { RED } else { BLACK })
    })?;
    check_values("depth", zs.iter().map(|p| p.0), 0.0, |x, _| {
        let (_, write, enabled, z) = columns[(x / 2) as usize];
        if enabled && write && pass(x) {
            z
        } else {
            0.5
        }
    })
}

/// Eight red columns, two pixels wide, on a target with depth/stencil
/// `format` cleared to black, depth 0.5 and stencil `stencil`: column k
/// is drawn at depth `depths[k]` after binding `states[k]` (all created
/// beforehand) and calling `before(env, k)`, with nothing else between
/// the draws but their vertex buffers. Returns the colour and the
/// depth/stencil values.
#[allow(clippy::type_complexity)]
fn dsa_columns(
    ctx: &mut TestContext,
    format: Format,
    stencil: u8,
    states: &[DepthStencilAlphaState; 8],
    depths: &[f32; 8],
    before: &mut dyn FnMut(&mut Env, usize) -> R,
) -> Result<(Vec<Px>, Vec<(f32, u8)>), Outcome> {
    let (mut e, t) = begin(ctx, UNORM, Some(format), 0)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    let black = ColorUnion::from_f32(BLACK);
    clear(
        &mut e,
        ClearFlags::COLOR0 | ClearFlags::DEPTHSTENCIL,
        black,
        0.5,
        stencil.into(),
        None,
    )?;
    set_src(&mut e, UNORM, RED)?;
    let mut dsas = Vec::new();
    for dsa in states {
        dsas.push(step(
            "create_dsa",
            e.ctx.create_depth_stencil_alpha_state(dsa),
        )?);
    }
    let ve = step(
        "velems",
        e.ctx
            .create_vertex_elements_state(&[crate::harness::VEC4_ELEMENT]),
    )?;
    step("bind velems", e.ctx.bind_vertex_elements_state(Some(ve)))?;
    for (k, (&dsa, &z)) in dsas.iter().zip(depths).enumerate() {
        step("bind_dsa", e.ctx.bind_depth_stencil_alpha_state(Some(dsa)))?;
        before(&mut e, k)?;
        let quad = crate::cases::draw::column_quad_at(k as u32, z);
        let vb = VertexBuffer {
            buffer: Some(VertexBufferSource::User(Arc::from(f32s(&quad)))),
            buffer_offset: 0,
        };
        step("set_vertex_buffers", e.ctx.set_vertex_buffers(&[vb]))?;
        let draws = [DrawStartCountBias {
            start: 0,
            count: 6,
            index_bias: 0,
        }];
        step(
            "draw_vbo",
            e.ctx.draw_vbo(&DrawInfo::default(), 0, None, &draws),
        )?;
    }
    let got = read_color(&mut e, &t.color)?;
    let zs =
        t.zs.as_ref()
            .ok_or_else(|| Outcome::fail("no depth buffer"))?;
    let z = read_zs(&mut e, zs)?;
    Ok((got, z))
}
test_case!(name = "pipe.render.depth.switch", depth_switch);

/// Stencil state switched between draws as `pipe.render.depth.switch`
/// switches depth state (the stencil reference too, by
/// `set_stencil_ref`): each column's state differs from the previous
/// one in one or two of the function, the value and write masks, the
/// three operations and the reference, and column 5 fails the depth
/// test (depth LESS at 0.75 against 0.5) to take its depth-fail
/// operation. Colour and stencil are checked against the test and
/// operations computed here, from the stencil cleared to 0x5a.
fn stencil_switch(ctx: &mut TestContext) -> Outcome {
    Outcome::from_result(stencil_switch_inner(ctx))
}

fn stencil_switch_inner(ctx: &mut TestContext) -> R {
    use StencilOp::*;
    let s = |func, valuemask, writemask, [fail_op, zfail_op, zpass_op]: [StencilOp; 3]| {
        let st = StencilState {
            enabled: true,
            func,
            fail_op,
            zpass_op,
            zfail_op,
            valuemask,
            writemask,
        };
        DepthStencilAlphaState {
            depth_enabled: true,
            depth_func: CompareFunc::Less,
            stencil: [st, StencilState::default()],
            ..Default::default()
        }
    };
    let states = [
        s(CompareFunc::Equal, 0xff, 0xff, [Keep, Keep, Incr]),
        s(CompareFunc::Equal, 0xf0, 0xff, [Keep, Keep, Incr]),
        s(CompareFunc::Equal, 0xf0, 0x0f, [Keep, Keep, Invert]),
        s(CompareFunc::Less, 0xf0, 0x0f, [Zero, Keep, Invert]),
        s(CompareFunc::Less, 0xff, 0xff, [Zero, Keep, Replace]),
        s(CompareFunc::Always, 0xff, 0xff, [Zero, DecrWrap, Replace]),
        s(
            CompareFunc::NotEqual,
            0xff,
            0x3c,
            [Zero, DecrWrap, IncrWrap],
        ),
        s(
            CompareFunc::NotEqual,
            0xff,
            0xff,
            [Invert, DecrWrap, IncrWrap],
        ),
    ];
    let refs = [0x5a, 0x5a, 0x50, 0x50, 0x60, 0x60, 0x5a, 0x5b];
    let mut depths = [0.25f32; 8];
    depths[5] = 0.75;
    let cleared = 0x5au8;
    let (got, zs) = dsa_columns(
        ctx,
        Format::Z32FloatS8X24Uint,
        cleared,
        &states,
        &depths,
        &mut |e, k| {
            step(
                "set_stencil_ref",
                e.ctx.set_stencil_ref(StencilRef {
                    ref_value: [refs[k], refs[k]],
                }),
            )
        },
    )?;
    // Per column: whether drawn, and the stencil value after.
    let expect = |x: u32| {
        let k = (x / 2) as usize;
        let st = states[k].stencil[0];
        let r = refs[k];
        let m = st.valuemask;
        let stencil_pass = compare(st.func, f32::from(r & m), f32::from(cleared & m));
        let depth_pass = compare(CompareFunc::Less, depths[k], 0.5);
        let op = match (stencil_pass, depth_pass) {
            (false, _) => st.fail_op,
            (true, false) => st.zfail_op,
            (true, true) => st.zpass_op,
        };
        let w = st.writemask;
        let value = (cleared & !w) | (stencil_op(op, cleared, r) & w);
        (stencil_pass && depth_pass, value)
    };
    check(ctx, "colour", &got, TOL_U8, |x, _| {
        Some(if expect(x).0 { RED } else { BLACK })
    })?;
    for (i, &(_, got)) in zs.iter().enumerate() {
        let (x, y) = (i as u32 % W, i as u32 / W);
        let want = expect(x).1;
        if got != want {
            return Err(Outcome::fail(format!(
                "stencil at ({x}, {y}) is {got:#04x}, expected {want:#04x}"
            )));
        }
    }
    Ok(())
}
test_case!(name = "pipe.render.stencil.switch", stencil_switch);

/// A whole-framebuffer `clear` between two draws in one command buffer
/// must land between them: the clear is deferred (to become the next
/// rendering instance's CLEAR load op), so the instance the first draw
/// opened must end. Colour: red everywhere, cleared to black, then green
/// over the left half; the right half is black. Depth (`depth`): red at
/// depth 0 with writes, depth cleared to 1, then green at 0.5 with LESS
/// everywhere, which passes only against the cleared depth.
fn clear_between_draws(ctx: &mut TestContext, depth: bool) -> R {
    let (mut e, t) = begin(ctx, UNORM, Some(Format::Z32Float), 0)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    let black = ColorUnion::from_f32(BLACK);
    clear(
        &mut e,
        ClearFlags::COLOR0 | ClearFlags::DEPTHSTENCIL,
        black,
        1.0,
        0,
        None,
    )?;
    bind_dsa(
        &mut e,
        &DepthStencilAlphaState {
            depth_enabled: depth,
            depth_writemask: depth,
            depth_func: CompareFunc::Less,
            ..Default::default()
        },
    )?;
    set_src(&mut e, UNORM, RED)?;
    draw(&mut e, &full(0.0), false)?;
    if depth {
        clear(&mut e, ClearFlags::DEPTH, black, 1.0, 0, None)?;
        set_src(&mut e, UNORM, GREEN)?;
        draw(&mut e, &full(0.5), false)?;
    } else {
        clear(&mut e, ClearFlags::COLOR0, black, 1.0, 0, None)?;
        set_src(&mut e, UNORM, GREEN)?;
        draw(&mut e, &rect(0.0, 0.0, 8.0, 16.0, 0.0, true), false)?;
    }
    let got = read_color(&mut e, &t.color)?;
    check(ctx, "colour", &got, TOL_U8, |x, _| {
        Some(if depth || x < 8 { GREEN } else { BLACK })
    })
}
cases!("clear.between_draws", clear_between_draws, {
    "color" => false,
    "depth" => true,
});

/// Depth clipping and clamping per band of [`depth_clip_case`]: whether
/// the rasterizer clips at the depth planes (`depth_clip_near`/`far`) and
/// whether it clamps (`depth_clamp`).
type ClipClamp = (bool, bool);

/// Three column bands drawn at clip-space depths before the near plane,
/// inside, and past the far plane, each with its own clip/clamp state,
/// through a viewport with depth range [0.2, 0.6], depth test ALWAYS
/// with writes, on a screen with rasterizer state dynamic or baked.
/// GL's clip space (`clip_halfz` off) or D3D's. A band that is clipped
/// leaves the clear (black, depth 1); one that is not is red, with its
/// window depth (0.1 and 0.7 outside the range), clamped to the range
/// when the band clamps.
fn depth_clip_case(
    ctx: &mut TestContext,
    (bands, halfz, dynamic): ([ClipClamp; 3], bool, bool),
) -> R {
    let (mut e, t) = begin_with(ctx, UNORM, Some(Format::Z32Float), 0, |o| {
        o.no_dynamic_rasterizer = Some(!dynamic)
    })?;
    let caps = e.screen.caps().clone();
    if bands.iter().any(|b| !b.0) && !caps.depth_clip_disable {
        return Err(Outcome::skip("the device cannot turn depth clipping off"));
    }
    if bands.iter().any(|b| b.1) && !caps.depth_clamp {
        return Err(Outcome::skip("the device cannot clamp depth"));
    }
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    // Window depth = translate + scale * z_ndc, over [0.2, 0.6].
    let (scale, translate) = if halfz { (0.4, 0.2) } else { (0.2, 0.4) };
    let vp = ViewportState {
        scale: [W as f32 / 2.0, H as f32 / 2.0, scale],
        translate: [W as f32 / 2.0, H as f32 / 2.0, translate],
        swizzle: Default::default(),
    };
    step("set_viewport_states", e.ctx.set_viewport_states(0, &[vp]))?;
    clear(
        &mut e,
        ClearFlags::COLOR0 | ClearFlags::DEPTHSTENCIL,
        ColorUnion::from_f32(BLACK),
        1.0,
        0,
        None,
    )?;
    bind_dsa(
        &mut e,
        &DepthStencilAlphaState {
            depth_enabled: true,
            depth_writemask: true,
            depth_func: CompareFunc::Always,
            ..Default::default()
        },
    )?;
    set_src(&mut e, UNORM, RED)?;
    // Window depths 0.1, 0.5 and 0.7: the clip-space z that gives them.
    let window = [0.1f32, 0.5, 0.7];
    let columns = [(0.0, 5.0), (5.0, 11.0), (11.0, 16.0)];
    for (i, &(clip, clamp)) in bands.iter().enumerate() {
        rasterizer(&mut e, |r| {
            r.clip_halfz = halfz;
            r.depth_clip_near = clip;
            r.depth_clip_far = clip;
            r.depth_clamp = clamp;
        })?;
        let z = (window[i] - translate) / scale;
        let (x0, x1) = columns[i];
        draw(&mut e, &rect(x0, 0.0, x1, 16.0, z, true), false)?;
    }
    let band = |x: u32| match x {
        0..=4 => 0,
        5..=10 => 1,
        _ => 2,
    };
    // Inside the clip volume (band 1) nothing clips or clamps.
    let drawn = |b: usize| b == 1 || !bands[b].0;
    let depth = |b: usize| {
        if !drawn(b) {
            1.0
        } else if bands[b].1 {
            window[b].clamp(0.2, 0.6)
        } else {
            window[b]
        }
    };
    let got = read_color(&mut e, &t.color)?;
    check(ctx, "colour", &got, TOL_U8, |x, _| {
        Some(if drawn(band(x)) { RED } else { BLACK })
    })?;
    let zs =
        t.zs.as_ref()
            .ok_or_else(|| Outcome::fail("no depth buffer"))?;
    let z = read_zs(&mut e, zs)?;
    check_values("depth", z.iter().map(|p| p.0), 1e-6, |x, _| depth(band(x)))
}
macro_rules! depth_clip_cases {
    ($($name:literal => $bands:expr),+ $(,)?) => {
        cases!("depth.clip.gl.dynamic", depth_clip_case, { $($name => ($bands, false, true)),+ });
        cases!("depth.clip.gl.static", depth_clip_case, { $($name => ($bands, false, false)),+ });
        cases!("depth.clip.halfz.dynamic", depth_clip_case, { $($name => ($bands, true, true)),+ });
        cases!("depth.clip.halfz.static", depth_clip_case, { $($name => ($bands, true, false)),+ });
    };
}
depth_clip_cases! {
    "clip" => [(true, false); 3],
    "clip_clamp" => [(true, true); 3],
    "clamp" => [(false, true); 3],
    "no_clip" => [(false, false); 3],
    // Three states in one command buffer.
    "mixed" => [(false, false), (false, true), (true, true)],
}

// ---------------------------------------------------------------------------
// Stencil
// ---------------------------------------------------------------------------

/// Stencil values of the four column bands (x / 4).
const SBANDS: [u8; 4] = [0x00, 0x01, 0x80, 0xFF];
const SREF: u8 = 0x5A;

fn stencil_op(op: StencilOp, s: u8, r: u8) -> u8 {
    match op {
        StencilOp::Keep => s,
        StencilOp::Zero => 0,
        StencilOp::Replace => r,
        StencilOp::Incr => s.saturating_add(1),
        StencilOp::Decr => s.saturating_sub(1),
        StencilOp::IncrWrap => s.wrapping_add(1),
        StencilOp::DecrWrap => s.wrapping_sub(1),
        StencilOp::Invert => !s,
    }
}

/// What a stencil case draws and expects.
struct StencilRun {
    format: Format,
    bands: [u8; 4],
    dsa: DepthStencilAlphaState,
    refs: [u8; 2],
    front_ccw: bool,
    /// The vertices of each draw.
    geometry: Vec<Vec<f32>>,
}

/// Sets the bands (scissored clears), draws, and checks the colour (red
/// where `expect` says drawn) and the stencil values.
fn stencil_run(ctx: &mut TestContext, r: StencilRun, expect: impl Fn(u32, u32) -> (bool, u8)) -> R {
    let (mut e, t) = begin(ctx, UNORM, Some(r.format), 0)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    rasterizer(&mut e, |rs| rs.front_ccw = r.front_ccw)?;
    let black = ColorUnion::from_f32(BLACK);
    let all = ClearFlags::COLOR0 | ClearFlags::DEPTHSTENCIL;
    clear(&mut e, all, black, 1.0, r.bands[0].into(), None)?;
    for (k, &s) in r.bands.iter().enumerate().skip(1) {
        let x = 4 * k as u16;
        clear(
            &mut e,
            ClearFlags::STENCIL,
            black,
            1.0,
            s.into(),
            Some([x, 0, x + 4, 16]),
        )?;
    }
    bind_dsa(&mut e, &r.dsa)?;
    step(
        "set_stencil_ref",
        e.ctx.set_stencil_ref(StencilRef { ref_value: r.refs }),
    )?;
    set_src(&mut e, UNORM, RED)?;
    for g in &r.geometry {
        draw(&mut e, g, false)?;
    }
    let got = read_color(&mut e, &t.color)?;
    check(ctx, "colour", &got, TOL_U8, |x, y| {
        Some(if expect(x, y).0 { RED } else { BLACK })
    })?;
    let zs =
        t.zs.as_ref()
            .ok_or_else(|| Outcome::fail("no stencil buffer"))?;
    let s = read_zs(&mut e, zs)?;
    check_values("stencil", s.iter().map(|p| f32::from(p.1)), 0.0, |x, y| {
        f32::from(expect(x, y).1)
    })
}

fn face(func: CompareFunc, ops: [StencilOp; 3], valuemask: u8, writemask: u8) -> StencilState {
    StencilState {
        enabled: true,
        func,
        fail_op: ops[0],
        zfail_op: ops[1],
        zpass_op: ops[2],
        valuemask,
        writemask,
    }
}

/// Which op slot a case exercises.
#[derive(Clone, Copy, PartialEq)]
enum Slot {
    Fail,
    ZFail,
    ZPass,
}

/// `op` in one slot; the other slots hold a different op, so a mixed-up
/// slot shows. fail: stencil func NEVER; zfail: depth func NEVER; zpass:
/// everything passes.
fn stencil_op_case(ctx: &mut TestContext, (slot, op): (Slot, StencilOp)) -> R {
    let other = if op == StencilOp::Invert {
        StencilOp::Zero
    } else {
        StencilOp::Invert
    };
    let mut ops = [other; 3];
    ops[slot as usize] = op;
    let func = if slot == Slot::Fail {
        CompareFunc::Never
    } else {
        CompareFunc::Always
    };
    let dsa = DepthStencilAlphaState {
        depth_enabled: slot == Slot::ZFail,
        depth_func: CompareFunc::Never,
        stencil: [face(func, ops, 0xff, 0xff), StencilState::default()],
        ..Default::default()
    };
    let r = StencilRun {
        format: Format::Z24UnormS8Uint,
        bands: SBANDS,
        dsa,
        refs: [SREF; 2],
        front_ccw: false,
        geometry: vec![full(0.5)],
    };
    stencil_run(ctx, r, |x, _| {
        let s = SBANDS[x as usize / 4];
        (slot == Slot::ZPass, stencil_op(op, s, SREF))
    })
}
macro_rules! stencil_op_cases {
    ($($name:literal => $op:ident),+ $(,)?) => {
        cases!("stencil.op.fail", stencil_op_case, { $($name => (Slot::Fail, StencilOp::$op)),+ });
        cases!("stencil.op.zfail", stencil_op_case, { $($name => (Slot::ZFail, StencilOp::$op)),+ });
        cases!("stencil.op.zpass", stencil_op_case, { $($name => (Slot::ZPass, StencilOp::$op)),+ });
    };
}
stencil_op_cases! {
    "keep" => Keep, "zero" => Zero, "replace" => Replace, "incr" => Incr, "decr" => Decr,
    "incr_wrap" => IncrWrap, "decr_wrap" => DecrWrap, "invert" => Invert,
}

/// Stencil function `func` with ref 0x80 against bands 0x00, 0x80, 0xFF,
/// 0x7F: pass increments (wrapping), fail inverts.
fn stencil_func_case(ctx: &mut TestContext, func: CompareFunc) -> R {
    let bands = [0x00, 0x80, 0xFF, 0x7F];
    let ops = [StencilOp::Invert, StencilOp::Keep, StencilOp::IncrWrap];
    let r = StencilRun {
        format: Format::Z24UnormS8Uint,
        bands,
        dsa: DepthStencilAlphaState {
            stencil: [face(func, ops, 0xff, 0xff), StencilState::default()],
            ..Default::default()
        },
        refs: [0x80; 2],
        front_ccw: false,
        geometry: vec![full(0.5)],
    };
    stencil_run(ctx, r, |x, _| {
        let s = bands[x as usize / 4];
        let pass = compare(func, 128.0, f32::from(s));
        (pass, if pass { s.wrapping_add(1) } else { !s })
    })
}
macro_rules! stencil_func_cases {
    ($($name:literal => $f:ident),+ $(,)?) => {
        cases!("stencil.func", stencil_func_case, { $($name => CompareFunc::$f),+ });
    };
}
stencil_func_cases! {
    "never" => Never, "less" => Less, "equal" => Equal, "lequal" => LEqual,
    "greater" => Greater, "notequal" => NotEqual, "gequal" => GEqual, "always" => Always,
}

/// Value and write masks: (func, ops, ref, valuemask, writemask, bands).
type MaskCase = (CompareFunc, [StencilOp; 3], u8, u8, u8, [u8; 4]);

fn stencil_mask_case(ctx: &mut TestContext, (func, ops, sref, vm, wm, bands): MaskCase) -> R {
    let r = StencilRun {
        format: Format::Z24UnormS8Uint,
        bands,
        dsa: DepthStencilAlphaState {
            stencil: [face(func, ops, vm, wm), StencilState::default()],
            ..Default::default()
        },
        refs: [sref; 2],
        front_ccw: false,
        geometry: vec![full(0.5)],
    };
    stencil_run(ctx, r, |x, _| {
        let s = bands[x as usize / 4];
        let pass = compare(func, f32::from(sref & vm), f32::from(s & vm));
        let new = stencil_op(if pass { ops[2] } else { ops[0] }, s, sref);
        (pass, (s & !wm) | (new & wm))
    })
}
const KEEP_INCR: [StencilOp; 3] = [StencilOp::Keep, StencilOp::Keep, StencilOp::Incr];
const ALL_REPLACE: [StencilOp; 3] = [StencilOp::Replace; 3];
const ALL_INVERT: [StencilOp; 3] = [StencilOp::Invert; 3];
cases!("stencil.mask", stencil_mask_case, {
    "valuemask_equal" => (CompareFunc::Equal, KEEP_INCR, 0x0F, 0x0F, 0xFF, [0x0F, 0xFF, 0xF0, 0x1F]),
    "valuemask_less" => (CompareFunc::Less, KEEP_INCR, 0x13, 0x3C, 0xFF, [0x10, 0x3F, 0xC4, 0x0C]),
    "writemask_replace" => (CompareFunc::Always, ALL_REPLACE, 0xFF, 0xFF, 0x0F, SBANDS),
    "writemask_invert" => (CompareFunc::Always, ALL_INVERT, 0x00, 0xFF, 0xF0, SBANDS),
    "writemask_zero" => (CompareFunc::Always, ALL_INVERT, 0x00, 0xFF, 0x00, SBANDS),
    "writemask_fail_path" => (CompareFunc::Never, ALL_REPLACE, 0xA5, 0xFF, 0x3C, SBANDS),
});

/// The stencil ref is state of its own: two draws with different refs.
fn stencil_ref_change(ctx: &mut TestContext, _: ()) -> R {
    let (mut e, t) = begin(ctx, UNORM, Some(Format::Z24UnormS8Uint), 0)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    let black = ColorUnion::from_f32(BLACK);
    clear(
        &mut e,
        ClearFlags::COLOR0 | ClearFlags::DEPTHSTENCIL,
        black,
        1.0,
        0,
        None,
    )?;
    bind_dsa(
        &mut e,
        &DepthStencilAlphaState {
            stencil: [
                face(CompareFunc::Always, ALL_REPLACE, 0xff, 0xff),
                StencilState::default(),
            ],
            ..Default::default()
        },
    )?;
    set_src(&mut e, UNORM, RED)?;
    for (r, x0) in [(0x11u8, 0.0), (0x22, 8.0)] {
        step(
            "set_stencil_ref",
            e.ctx.set_stencil_ref(StencilRef { ref_value: [r; 2] }),
        )?;
        draw(&mut e, &rect(x0, 0.0, x0 + 8.0, 16.0, 0.5, false), false)?;
    }
    let zs =
        t.zs.as_ref()
            .ok_or_else(|| Outcome::fail("no stencil buffer"))?;
    let s = read_zs(&mut e, zs)?;
    check_values("stencil", s.iter().map(|p| f32::from(p.1)), 0.0, |x, _| {
        if x < 8 {
            17.0
        } else {
            34.0
        }
    })
}
cases!("stencil.ref", stencil_ref_change, { "change_between_draws" => () });

/// Other depth/stencil formats: NOTEQUAL 0x80, REPLACE on pass, INVERT
/// on fail.
fn stencil_format_case(ctx: &mut TestContext, format: Format) -> R {
    let r = StencilRun {
        format,
        bands: SBANDS,
        dsa: DepthStencilAlphaState {
            stencil: [
                face(
                    CompareFunc::NotEqual,
                    [StencilOp::Invert, StencilOp::Keep, StencilOp::Replace],
                    0xff,
                    0xff,
                ),
                StencilState::default(),
            ],
            ..Default::default()
        },
        refs: [0x80; 2],
        front_ccw: false,
        geometry: vec![full(0.5)],
    };
    stencil_run(ctx, r, |x, _| {
        let s = SBANDS[x as usize / 4];
        (s != 0x80, if s != 0x80 { 0x80 } else { !s })
    })
}
cases!("stencil.format", stencil_format_case, {
    "z32f_s8" => Format::Z32FloatS8X24Uint,
    "s8" => Format::S8Uint,
});

/// Two-sided stencil variants.
#[derive(Clone, Copy, PartialEq)]
enum TwoSided {
    /// front_ccw, front REPLACE with ref 0x33, back REPLACE with ref 0x44.
    RefsCcw,
    /// The same with front_ccw = false.
    RefsCw,
    /// Front INCR, back INVERT.
    Ops,
    /// Front ALWAYS, back NEVER with fail op ZERO.
    Funcs,
    /// Back face state disabled: both faces use the front state.
    BackDisabled,
}

/// Left half drawn counter-clockwise in window space, right half
/// clockwise; cull none.
fn two_sided(ctx: &mut TestContext, v: TwoSided) -> R {
    use StencilOp::*;
    let (front, back, refs) = match v {
        TwoSided::RefsCcw | TwoSided::RefsCw => (
            face(CompareFunc::Always, [Keep, Keep, Replace], 0xff, 0xff),
            face(CompareFunc::Always, [Keep, Keep, Replace], 0xff, 0xff),
            [0x33, 0x44],
        ),
        TwoSided::Ops => (
            face(CompareFunc::Always, [Keep, Keep, Incr], 0xff, 0xff),
            face(CompareFunc::Always, [Keep, Keep, Invert], 0xff, 0xff),
            [0x33, 0x44],
        ),
        TwoSided::Funcs => (
            face(CompareFunc::Always, [Keep, Keep, Replace], 0xff, 0xff),
            face(CompareFunc::Never, [Zero, Keep, Replace], 0xff, 0xff),
            [0x33, 0x44],
        ),
        TwoSided::BackDisabled => (
            face(CompareFunc::Always, [Keep, Keep, DecrWrap], 0xff, 0xff),
            StencilState {
                enabled: false,
                ..face(CompareFunc::Never, [Zero, Zero, Zero], 0xff, 0xff)
            },
            [0x33, 0x33],
        ),
    };
    let front_ccw = v != TwoSided::RefsCw;
    let geometry = vec![
        rect(0.0, 0.0, 8.0, 16.0, 0.5, true),
        rect(8.0, 0.0, 16.0, 16.0, 0.5, false),
    ];
    let is_front: Vec<bool> = geometry
        .iter()
        .map(|g| window_ccw(g) == front_ccw)
        .collect();
    let r = StencilRun {
        format: Format::Z24UnormS8Uint,
        bands: SBANDS,
        dsa: DepthStencilAlphaState {
            stencil: [front, back],
            ..Default::default()
        },
        refs,
        front_ccw,
        geometry,
    };
    stencil_run(ctx, r, |x, _| {
        let s = SBANDS[x as usize / 4];
        let f = is_front[(x / 8) as usize];
        let (st, rf) = if f || !back.enabled {
            (front, refs[0])
        } else {
            (back, refs[1])
        };
        let pass = compare(st.func, f32::from(rf), f32::from(s));
        (
            pass,
            stencil_op(if pass { st.zpass_op } else { st.fail_op }, s, rf),
        )
    })
}
cases!("stencil.two_sided", two_sided, {
    "refs_front_ccw" => TwoSided::RefsCcw,
    "refs_front_cw" => TwoSided::RefsCw,
    "ops" => TwoSided::Ops,
    "funcs" => TwoSided::Funcs,
    "back_disabled" => TwoSided::BackDisabled,
});

// ---------------------------------------------------------------------------
// Viewport and scissor
// ---------------------------------------------------------------------------

/// A viewport (x, y, w, h; h < 0 flips y). Draws red on NDC
/// [-1, 0] x [-1, 0] and green on [0, 1] x [0, 1]; every edge lands on
/// a pixel boundary.
fn viewport_case(ctx: &mut TestContext, (x, y, w, h): (f32, f32, f32, f32)) -> R {
    let (mut e, t) = begin(ctx, UNORM, None, 0)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    viewport(&mut e, x, y, w, h)?;
    clear_color(&mut e, BLACK)?;
    let quad = |a: f32, b: f32| {
        let p = [(a, a), (b, a), (b, b), (a, a), (b, b), (a, b)];
        p.iter()
            .flat_map(|&(u, v)| [u, v, 0.0, 1.0])
            .collect::<Vec<f32>>()
    };
    set_src(&mut e, UNORM, RED)?;
    draw(&mut e, &quad(-1.0, 0.0), false)?;
    set_src(&mut e, UNORM, GREEN)?;
    draw(&mut e, &quad(0.0, 1.0), false)?;
    let got = read_color(&mut e, &t.color)?;
    check(ctx, "viewport", &got, TOL_U8, |px, py| {
        // Inverse of the viewport transform at the pixel centre.
        let nx = (px as f32 + 0.5 - (x + w / 2.0)) / (w / 2.0);
        let ny = (py as f32 + 0.5 - (y + h / 2.0)) / (h / 2.0);
        let inside = |v: f32, a: f32, b: f32| v > a && v < b;
        Some(if inside(nx, -1.0, 0.0) && inside(ny, -1.0, 0.0) {
            RED
        } else if inside(nx, 0.0, 1.0) && inside(ny, 0.0, 1.0) {
            GREEN
        } else {
            BLACK
        })
    })
}
cases!("viewport", viewport_case, {
    "full" => (0.0, 0.0, 16.0, 16.0),
    "inner" => (4.0, 2.0, 6.0, 10.0),
    "left_outside" => (-8.0, 0.0, 16.0, 16.0),
    "right_outside" => (8.0, 0.0, 16.0, 16.0),
    "top_outside" => (0.0, -8.0, 16.0, 16.0),
    "bottom_outside" => (0.0, 8.0, 16.0, 16.0),
    "all_sides_outside" => (-4.0, -6.0, 24.0, 28.0),
    "larger_than_target" => (-16.0, -16.0, 48.0, 48.0),
    "fully_outside" => (16.0, 0.0, 16.0, 16.0),
    "flip_y" => (0.0, 16.0, 16.0, -16.0),
    "flip_y_inner" => (2.0, 14.0, 12.0, -8.0),
    "flip_y_partly_outside" => (-4.0, 20.0, 16.0, -16.0),
});

/// A full-screen draw with scissor [minx, maxx) x [miny, maxy), the test
/// on or off.
fn scissor_case(ctx: &mut TestContext, (sc, on): ([u16; 4], bool)) -> R {
    let (mut e, t) = begin(ctx, UNORM, None, 0)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    rasterizer(&mut e, |r| r.scissor = on)?;
    let [minx, miny, maxx, maxy] = sc;
    step(
        "set_scissor_states",
        e.ctx.set_scissor_states(
            0,
            &[ScissorState {
                minx,
                miny,
                maxx,
                maxy,
            }],
        ),
    )?;
    clear_color(&mut e, BLACK)?;
    set_src(&mut e, UNORM, RED)?;
    draw(&mut e, &full(0.0), false)?;
    let got = read_color(&mut e, &t.color)?;
    check(ctx, "scissor", &got, TOL_U8, |x, y| {
        let inside =
            (minx as u32..maxx as u32).contains(&x) && (miny as u32..maxy as u32).contains(&y);
        Some(if inside || !on { RED } else { BLACK })
    })
}
cases!("scissor", scissor_case, {
    "full" => ([0, 0, 16, 16], true),
    "left_column" => ([0, 0, 1, 16], true),
    "right_column" => ([15, 0, 16, 16], true),
    "top_row" => ([0, 0, 16, 1], true),
    "bottom_row" => ([0, 15, 16, 16], true),
    "first_pixel" => ([0, 0, 1, 1], true),
    "last_pixel" => ([15, 15, 16, 16], true),
    "inner" => ([3, 5, 9, 7], true),
    "empty_width" => ([5, 5, 5, 9], true),
    "empty_height" => ([3, 7, 12, 7], true),
    "beyond_target" => ([8, 8, 100, 100], true),
    "outside_target" => ([20, 20, 30, 30], true),
    "disabled" => ([4, 4, 8, 8], false),
});

/// An inverted scissor rectangle is bad input: set_scissor_states refuses
/// it and the previous scissor stays in effect.
fn scissor_inverted(ctx: &mut TestContext, _: ()) -> R {
    let (mut e, t) = begin(ctx, UNORM, None, 0)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    rasterizer(&mut e, |r| r.scissor = true)?;
    let sc = |minx, miny, maxx, maxy| ScissorState {
        minx,
        miny,
        maxx,
        maxy,
    };
    step(
        "set_scissor_states",
        e.ctx.set_scissor_states(0, &[sc(2, 3, 6, 9)]),
    )?;
    match e.ctx.set_scissor_states(0, &[sc(9, 9, 5, 5)]) {
        Err(pipe_core::PipeError::InvalidArgument(_)) => {}
        other => return Err(Outcome::fail(format!("inverted scissor gave {other:?}"))),
    }
    clear_color(&mut e, BLACK)?;
    set_src(&mut e, UNORM, RED)?;
    draw(&mut e, &full(0.0), false)?;
    let got = read_color(&mut e, &t.color)?;
    check(ctx, "scissor", &got, TOL_U8, |x, y| {
        Some(if (2..6).contains(&x) && (3..9).contains(&y) {
            RED
        } else {
            BLACK
        })
    })
}
cases!("scissor", scissor_inverted, { "inverted_rejected" => () });

/// A scissored clear touches only the rectangle.
fn scissor_clear(ctx: &mut TestContext, sc: [u16; 4]) -> R {
    let (mut e, t) = begin(ctx, UNORM, None, 0)?;
    clear_color(&mut e, BLACK)?;
    clear(
        &mut e,
        ClearFlags::COLOR0,
        ColorUnion::from_f32(GREEN),
        1.0,
        0,
        Some(sc),
    )?;
    let got = read_color(&mut e, &t.color)?;
    let [minx, miny, maxx, maxy] = sc.map(u32::from);
    check(ctx, "scissored clear", &got, TOL_U8, |x, y| {
        let inside = (minx..maxx).contains(&x) && (miny..maxy).contains(&y);
        Some(if inside { GREEN } else { BLACK })
    })
}
cases!("scissor.clear", scissor_clear, {
    "inner" => [2, 3, 11, 7],
    "corner" => [12, 12, 16, 16],
    "beyond_target" => [10, 0, 40, 40],
});

// ---------------------------------------------------------------------------
// Texturing
// ---------------------------------------------------------------------------

/// Texture coordinates across the target: u from -1 to 2, v from -0.75 to
/// 1.75, so that every wrap mode shows on both sides. On the 4x4 texture
/// no pixel centre samples at a texel edge (nearest) and the linear
/// weights are multiples of 1/16.
const UV0: (f32, f32) = (-1.0, -0.75);
const UV1: (f32, f32) = (2.0, 1.75);

/// A full-screen triangle with (u, v) from `uv0` at window (0, 0) to
/// `uv1` at window (16, 16).
fn uv_triangle(uv0: (f32, f32), uv1: (f32, f32)) -> Vec<f32> {
    let (du, dv) = (2.0 * (uv1.0 - uv0.0), 2.0 * (uv1.1 - uv0.1));
    vec![
        -1.0,
        -1.0,
        0.0,
        1.0,
        uv0.0,
        uv0.1,
        0.0,
        0.0, //
        3.0,
        -1.0,
        0.0,
        1.0,
        uv0.0 + du,
        uv0.1,
        0.0,
        0.0, //
        -1.0,
        3.0,
        0.0,
        1.0,
        uv0.0,
        uv0.1 + dv,
        0.0,
        0.0,
    ]
}

fn uv_at(x: u32, y: u32, uv0: (f32, f32), uv1: (f32, f32)) -> (f32, f32) {
    (
        uv0.0 + (x as f32 + 0.5) / W as f32 * (uv1.0 - uv0.0),
        uv0.1 + (y as f32 + 0.5) / H as f32 * (uv1.1 - uv0.1),
    )
}

/// Channel `k` of texel `idx` as stored in 8-bit formats.
fn tbyte(idx: usize, k: usize) -> u8 {
    ((idx * 16 + 8 + k * 85) % 256) as u8
}

/// Stored bytes and sampled value (before the view swizzle, after the
/// format's own: missing G, B read 0, missing A reads 1; L, A, I as GL).
fn texel(format: Format, idx: usize) -> (Vec<u8>, Px) {
    let b = |k| f32::from(tbyte(idx, k)) / 255.0;
    let i = idx as f32;
    match format {
        Format::R16G16B16A16Float => {
            let v = [
                i * 0.25,
                1.0 - (idx % 4) as f32 * 0.25,
                (idx / 4) as f32 * 0.5,
                0.25 + i * 0.0625,
            ];
            (
                v.iter()
                    .flat_map(|&c| f32_to_half(c).to_le_bytes())
                    .collect(),
                v,
            )
        }
        Format::R8Unorm => (vec![tbyte(idx, 0)], [b(0), 0.0, 0.0, 1.0]),
        Format::L8Unorm => (vec![tbyte(idx, 0)], [b(0), b(0), b(0), 1.0]),
        Format::A8Unorm => (vec![tbyte(idx, 0)], [0.0, 0.0, 0.0, b(0)]),
        Format::I8Unorm => (vec![tbyte(idx, 0)], [b(0); 4]),
        Format::L8A8Unorm => (vec![tbyte(idx, 0), tbyte(idx, 1)], [b(0), b(0), b(0), b(1)]),
        Format::R8G8Unorm => (vec![tbyte(idx, 0), tbyte(idx, 1)], [b(0), b(1), 0.0, 1.0]),
        _ => (
            (0..4).map(|k| tbyte(idx, k)).collect(),
            [b(0), b(1), b(2), b(3)],
        ),
    }
}

/// Vulkan's wrap of integer texel coordinate `i` on a `n`-texel axis;
/// `None` is the border.
fn wrap(i: i32, n: i32, w: TexWrap) -> Option<i32> {
    let mirror = |a: i32| if a >= 0 { a } else { -(1 + a) };
    match w {
        TexWrap::Repeat => Some(i.rem_euclid(n)),
        TexWrap::ClampToEdge | TexWrap::Clamp => Some(i.clamp(0, n - 1)),
        TexWrap::ClampToBorder => (0..n).contains(&i).then_some(i),
        TexWrap::MirrorRepeat => Some((n - 1) - mirror(i.rem_euclid(2 * n) - n)),
        _ => Some(mirror(i).clamp(0, n - 1)),
    }
}

/// Samples an n x n level with `fetch(i, j)`, Vulkan's nearest/linear rules.
fn sample(
    fetch: &dyn Fn(usize) -> Px,
    n: i32,
    (u, v): (f32, f32),
    filter: TexFilter,
    w: TexWrap,
    border: Px,
) -> Px {
    let texel = |i: i32, j: i32| match (wrap(i, n, w), wrap(j, n, w)) {
        (Some(i), Some(j)) => fetch((j * n + i) as usize),
        _ => border,
    };
    let (su, sv) = (u * n as f32, v * n as f32);
    match filter {
        TexFilter::Nearest => texel(su.floor() as i32, sv.floor() as i32),
        TexFilter::Linear => {
            let (fu, fv) = (su - 0.5, sv - 0.5);
            let (i0, j0) = (fu.floor() as i32, fv.floor() as i32);
            let (a, b) = (fu - fu.floor(), fv - fv.floor());
            let (t00, t10, t01, t11) = (
                texel(i0, j0),
                texel(i0 + 1, j0),
                texel(i0, j0 + 1),
                texel(i0 + 1, j0 + 1),
            );
            std::array::from_fn(|c| {
                (1.0 - a) * (1.0 - b) * t00[c]
                    + a * (1.0 - b) * t10[c]
                    + (1.0 - a) * b * t01[c]
                    + a * b * t11[c]
            })
        }
    }
}

fn swizzle(v: Px, sw: [Swizzle; 4]) -> Px {
    sw.map(|s| match s {
        Swizzle::X => v[0],
        Swizzle::Y => v[1],
        Swizzle::Z => v[2],
        Swizzle::W => v[3],
        Swizzle::One => 1.0,
        _ => 0.0,
    })
}

/// Creates a sampler and binds it with `view` to fragment slot 0.
fn bind_texture(e: &mut Env, view: pipe_core::view::SamplerView, ss: &SamplerState) -> R {
    let sh = step("create_sampler_state", e.ctx.create_sampler_state(ss))?;
    step(
        "bind_sampler_states",
        e.ctx
            .bind_sampler_states(ShaderStage::Fragment, 0, &[Some(sh)]),
    )?;
    step(
        "set_sampler_views",
        e.ctx
            .set_sampler_views(ShaderStage::Fragment, 0, &[Some(view)], 0),
    )
}

/// One texturing case: a 4x4 texture of `format`.
#[derive(Clone, Copy)]
struct TexCase {
    format: Format,
    filter: TexFilter,
    wrap: TexWrap,
    swizzle: [Swizzle; 4],
}

const IDENTITY: [Swizzle; 4] = [Swizzle::X, Swizzle::Y, Swizzle::Z, Swizzle::W];

fn tex(format: Format, filter: TexFilter, wrap: TexWrap) -> TexCase {
    TexCase {
        format,
        filter,
        wrap,
        swizzle: IDENTITY,
    }
}

fn swz(format: Format, swizzle: [Swizzle; 4]) -> TexCase {
    TexCase {
        format,
        filter: TexFilter::Nearest,
        wrap: TexWrap::Repeat,
        swizzle,
    }
}

/// Samples a 4x4 texture across the target (coordinates UV0..UV1) and
/// compares with the sampler's rules applied to the texel data.
fn tex_case(ctx: &mut TestContext, c: TexCase) -> R {
    let float = c.format == Format::R16G16B16A16Float;
    let (mut e, t) = begin(ctx, if float { FLOAT } else { UNORM }, None, 0)?;
    if !e
        .screen
        .is_format_supported(c.format, Target::Texture2D, 0, 0, BindFlags::SAMPLER_VIEW)
    {
        return Err(Outcome::skip(format!(
            "{} cannot be sampled here",
            c.format
        )));
    }
    bind_program(&mut e, VS_UV, FS_TEX)?;
    let tt = ResourceTemplate::texture_2d(c.format, 4, 4, BindFlags::SAMPLER_VIEW);
    let res = e.texture(&tt)?;
    let data: Vec<u8> = (0..16).flat_map(|i| texel(c.format, i).0).collect();
    e.write_texture(&res, 0, &PipeBox::rect(0, 0, 4, 4), &data)?;
    let mut vt = SamplerViewTemplate::whole(&tt);
    vt.swizzle = c.swizzle;
    let view = step("create_sampler_view", e.ctx.create_sampler_view(&res, &vt))?;
    let border = if float {
        [1.5, 0.25, 2.0, 0.5]
    } else {
        [0.25, 0.5, 0.75, 1.0]
    };
    let ss = SamplerState {
        wrap_s: c.wrap,
        wrap_t: c.wrap,
        wrap_r: c.wrap,
        min_img_filter: c.filter,
        mag_img_filter: c.filter,
        min_mip_filter: MipFilter::None,
        border_color: ColorUnion::from_f32(border),
        ..Default::default()
    };
    bind_texture(&mut e, view, &ss)?;
    clear_color(&mut e, BLACK)?;
    draw(&mut e, &uv_triangle(UV0, UV1), true)?;
    let got = read_color(&mut e, &t.color)?;
    let fetch = |i: usize| texel(c.format, i).1;
    let tol = match (float, c.filter) {
        (true, TexFilter::Nearest) => 1e-5,
        (true, TexFilter::Linear) => 0.01,
        (false, TexFilter::Nearest) => TOL_U8,
        (false, TexFilter::Linear) => TOL_U8_2,
    };
    check(ctx, "texture", &got, tol, |x, y| {
        let v = sample(&fetch, 4, uv_at(x, y, UV0, UV1), c.filter, c.wrap, border);
        let v = swizzle(v, c.swizzle);
        Some(if float { v } else { q8(v) })
    })
}
macro_rules! wrap_cases {
    ($section:literal, $fmt:expr, $($name:literal => ($f:ident, $w:ident)),+ $(,)?) => {
        cases!($section, tex_case, { $($name => tex($fmt, TexFilter::$f, TexWrap::$w)),+ });
    };
}
macro_rules! all_wraps {
    ($section:literal, $fmt:expr) => {
        wrap_cases!($section, $fmt,
            "nearest.repeat" => (Nearest, Repeat),
            "nearest.clamp_to_edge" => (Nearest, ClampToEdge),
            "nearest.clamp_to_border" => (Nearest, ClampToBorder),
            "nearest.mirror_repeat" => (Nearest, MirrorRepeat),
            "nearest.mirror_clamp_to_edge" => (Nearest, MirrorClampToEdge),
            "linear.repeat" => (Linear, Repeat),
            "linear.clamp_to_edge" => (Linear, ClampToEdge),
            "linear.clamp_to_border" => (Linear, ClampToBorder),
            "linear.mirror_repeat" => (Linear, MirrorRepeat),
            "linear.mirror_clamp_to_edge" => (Linear, MirrorClampToEdge),
        );
    };
}
all_wraps!("texture.rgba8", Format::R8G8B8A8Unorm);
all_wraps!("texture.rgba16f", Format::R16G16B16A16Float);
wrap_cases!("texture.r8", Format::R8Unorm,
    "nearest.repeat" => (Nearest, Repeat),
    "linear.mirror_repeat" => (Linear, MirrorRepeat),
    "linear.clamp_to_edge" => (Linear, ClampToEdge),
);

macro_rules! swizzle_cases {
    ($section:literal, $fmt:expr, $($name:literal => [$a:ident, $b:ident, $c:ident, $d:ident]),+ $(,)?) => {
        cases!($section, tex_case, {
            $($name => swz($fmt, [Swizzle::$a, Swizzle::$b, Swizzle::$c, Swizzle::$d])),+
        });
    };
}
swizzle_cases!("texture.rgba8.swizzle", Format::R8G8B8A8Unorm,
    "rrrr" => [X, X, X, X], "gggg" => [Y, Y, Y, Y], "bbbb" => [Z, Z, Z, Z],
    "aaaa" => [W, W, W, W], "0000" => [Zero, Zero, Zero, Zero], "1111" => [One, One, One, One],
    "abgr" => [W, Z, Y, X], "0r1g" => [Zero, X, One, Y],
);
swizzle_cases!("texture.rgba16f.swizzle", Format::R16G16B16A16Float,
    "identity" => [X, Y, Z, W], "bgra" => [Z, Y, X, W], "a10r" => [W, One, Zero, X],
    "gggg" => [Y, Y, Y, Y],
);
swizzle_cases!("texture.r8.swizzle", Format::R8Unorm,
    "identity" => [X, Y, Z, W], "rrrr" => [X, X, X, X], "abgr" => [W, Z, Y, X],
    "01ra" => [Zero, One, X, W],
);
swizzle_cases!("texture.legacy_formats", Format::L8Unorm, "l8.identity" => [X, Y, Z, W], "l8.aaar" => [W, W, W, X]);
swizzle_cases!("texture.legacy_formats", Format::A8Unorm, "a8.identity" => [X, Y, Z, W], "a8.abgr" => [W, Z, Y, X]);
swizzle_cases!("texture.legacy_formats", Format::I8Unorm, "i8.identity" => [X, Y, Z, W]);
swizzle_cases!("texture.legacy_formats", Format::L8A8Unorm, "l8a8.identity" => [X, Y, Z, W], "l8a8.a0l1" => [W, Zero, X, One]);
swizzle_cases!("texture.legacy_formats", Format::R8G8Unorm, "r8g8.identity" => [X, Y, Z, W]);

// ---------------------------------------------------------------------------
// Cube maps: seamless filtering on and off
// ---------------------------------------------------------------------------

/// Samples a cube map in direction (1, 0.999, 0).
const FS_CUBE_EDGE: &str = "shader fragment
out @frag : f32x4 location=0
texture @t slot=0 dim=cube sampled=float
fn main {
  %0 : f32x3 = const 1.0, 0.999, 0.0
  %1 : f32x4 = tex @t, coord=%0
  store @frag, %1
}
";

/// A 2x2-per-face cube map, face f in colour `CUBE_FACES[f]`, sampled
/// with linear filtering right at the top edge of +X (direction (1,
/// 0.999, 0): s = 0.5, t = 0.0005, so the bilinear footprint is half
/// outside the face). With `SamplerState::seamless_cube_map` the outside
/// texels come from the neighbouring face (+Y, green), so about half of
/// the result is green; without it they are clamped to +X's edge and the
/// result is +X's red (GL without ARB_seamless_cube_map, through
/// VK_EXT_non_seamless_cube_map).
fn cube_seamless(ctx: &mut TestContext, seamless: bool) -> R {
    const CUBE_FACES: [[u8; 4]; 6] = [
        [255, 0, 0, 255],
        [0, 0, 255, 255],
        [0, 255, 0, 255],
        [255, 255, 0, 255],
        [0, 255, 255, 255],
        [255, 0, 255, 255],
    ];
    let (mut e, t) = begin(ctx, FLOAT, None, 0)?;
    if !seamless && !e.screen.caps().seamless_cube_map_per_texture {
        return Err(Outcome::skip(
            "seamless filtering cannot be turned off here",
        ));
    }
    bind_program(&mut e, VS_UV, FS_CUBE_EDGE)?;
    let tt = ResourceTemplate {
        target: Target::TextureCube,
        array_size: 6,
        ..ResourceTemplate::texture_2d(UNORM, 2, 2, BindFlags::SAMPLER_VIEW)
    };
    let res = e.texture(&tt)?;
    let data: Vec<u8> = CUBE_FACES.iter().flat_map(|c| c.repeat(4)).collect();
    e.write_texture(&res, 0, &PipeBox::new(0, 0, 0, 2, 2, 6), &data)?;
    let view = step(
        "create_sampler_view",
        e.ctx
            .create_sampler_view(&res, &SamplerViewTemplate::whole(&tt)),
    )?;
    let ss = SamplerState {
        wrap_s: TexWrap::ClampToEdge,
        wrap_t: TexWrap::ClampToEdge,
        wrap_r: TexWrap::ClampToEdge,
        min_img_filter: TexFilter::Linear,
        mag_img_filter: TexFilter::Linear,
        min_mip_filter: MipFilter::None,
        seamless_cube_map: seamless,
        ..Default::default()
    };
    bind_texture(&mut e, view, &ss)?;
    clear_color(&mut e, BLACK)?;
    draw(&mut e, &uv_triangle(UV0, UV1), true)?;
    let got = read_color(&mut e, &t.color)?;
    let p = got[0];
    let ok = if seamless {
        // Half +X red, half +Y green (the weights are 0.5005 and 0.4995).
        (p[0] - 0.5).abs() < 0.05 && (p[1] - 0.5).abs() < 0.05 && p[2] < 0.01
    } else {
        (p[0] - 1.0).abs() < 1e-3 && p[1] < 1e-3 && p[2] < 1e-3
    };
    if ok && got.iter().all(|q| q == &p) {
        Ok(())
    } else {
        Err(Outcome::fail(format!(
            "seamless {seamless}: sampled {p:?} (pixel 0){}",
            if got.iter().all(|q| q == &p) {
                ""
            } else {
                ", and not every pixel the same"
            }
        )))
    }
}
cases!("texture.cube", cube_seamless, {
    "seamless" => true,
    "non_seamless" => false,
});

// ---------------------------------------------------------------------------
// Mipmaps: LOD selection
// ---------------------------------------------------------------------------

/// Colours of the four levels of the 8x8 mipmapped texture.
const LEVELS: [[u8; 4]; 4] = [
    [240, 16, 16, 255],
    [16, 240, 16, 200],
    [16, 16, 240, 100],
    [128, 128, 128, 50],
];

/// One LOD-selection case. `lod`: explicit (txl); `None`: implicit, with
/// the texture repeated `uv_scale` times across the target.
#[derive(Clone, Copy)]
struct Mip {
    lod: Option<f32>,
    uv_scale: f32,
    mip: MipFilter,
    levels: (u32, u32),
    min_lod: f32,
    max_lod: f32,
    bias: f32,
}

const MIP: Mip = Mip {
    lod: Some(0.0),
    uv_scale: 1.0,
    mip: MipFilter::Nearest,
    levels: (0, 3),
    min_lod: 0.0,
    max_lod: 1000.0,
    bias: 0.0,
};

/// The 8x8 texture with the four [`LEVELS`].
fn mip_texture(e: &mut Env) -> Result<(Resource, ResourceTemplate), Outcome> {
    let mut tt = ResourceTemplate::texture_2d(UNORM, 8, 8, BindFlags::SAMPLER_VIEW);
    tt.last_level = 3;
    let res = e.texture(&tt)?;
    for (l, c) in LEVELS.iter().enumerate() {
        let n = 8 >> l;
        let data: Vec<u8> = (0..n * n).flat_map(|_| *c).collect();
        e.write_texture(&res, l as u32, &PipeBox::rect(0, 0, n, n), &data)?;
    }
    Ok((res, tt))
}

fn mip_case(ctx: &mut TestContext, m: Mip) -> R {
    let (mut e, t) = begin(ctx, UNORM, None, 0)?;
    bind_program(&mut e, VS_UV, if m.lod.is_some() { FS_TXL } else { FS_TEX })?;
    let (res, tt) = mip_texture(&mut e)?;
    let mut vt = SamplerViewTemplate::whole(&tt);
    vt.range = ViewRange::Texture {
        first_level: m.levels.0,
        last_level: m.levels.1,
        first_layer: 0,
        last_layer: 0,
    };
    let view = step("create_sampler_view", e.ctx.create_sampler_view(&res, &vt))?;
    let ss = SamplerState {
        min_mip_filter: m.mip,
        min_lod: m.min_lod,
        max_lod: m.max_lod,
        lod_bias: m.bias,
        ..Default::default()
    };
    bind_texture(&mut e, view, &ss)?;
    set_consts(&mut e, [m.lod.unwrap_or(0.0).to_bits(), 0, 0, 0])?;
    draw(
        &mut e,
        &uv_triangle((0.0, 0.0), (m.uv_scale, m.uv_scale)),
        true,
    )?;
    // Vulkan's LOD: lambda = base (explicit, or log2 of texels per pixel of
    // the view's base level) + bias, clamped to [min_lod, max_lod]; level
    // base + clamp(ceil(lambda + 0.5) - 1) (nearest) or a blend of
    // floor(lambda) and the next one (linear), within the view.
    let base_size = (8u32 >> m.levels.0) as f32;
    let lambda = m.lod.unwrap_or((m.uv_scale * base_size / W as f32).log2()) + m.bias;
    let lambda = lambda.clamp(m.min_lod, m.max_lod);
    let q = (m.levels.1 - m.levels.0) as f32;
    let level = |d: f32| LEVELS[(m.levels.0 as f32 + d.clamp(0.0, q)) as usize].map(f32::from);
    let want: Px = match m.mip {
        MipFilter::None => level(0.0),
        MipFilter::Nearest => level((lambda + 0.5).ceil() - 1.0),
        MipFilter::Linear => {
            let l = lambda.max(0.0);
            let (lo, hi, f) = (level(l.floor()), level(l.floor() + 1.0), l - l.floor());
            std::array::from_fn(|c| lo[c] * (1.0 - f) + hi[c] * f)
        }
    };
    let want = q8(want.map(|v| v / 255.0));
    let got = read_color(&mut e, &t.color)?;
    check(ctx, "mip level", &got, TOL_U8_2, |_, _| Some(want))
}
cases!("texture.mip", mip_case, {
    "txl.lod0" => MIP,
    "txl.lod1" => Mip { lod: Some(1.0), ..MIP },
    "txl.lod2" => Mip { lod: Some(2.0), ..MIP },
    "txl.lod3" => Mip { lod: Some(3.0), ..MIP },
    "txl.lod_past_last_level" => Mip { lod: Some(7.0), ..MIP },
    "txl.nearest_rounds_down" => Mip { lod: Some(1.4), ..MIP },
    "txl.nearest_rounds_up" => Mip { lod: Some(1.6), ..MIP },
    "txl.linear_half" => Mip { lod: Some(1.5), mip: MipFilter::Linear, ..MIP },
    "txl.linear_quarter" => Mip { lod: Some(2.25), mip: MipFilter::Linear, ..MIP },
    "txl.no_mip_filter_uses_base" => Mip { lod: Some(2.0), mip: MipFilter::None, ..MIP },
    "view.base_level" => Mip { lod: Some(0.0), levels: (1, 2), ..MIP },
    "view.last_level_clamps" => Mip { lod: Some(3.0), levels: (1, 2), ..MIP },
    "view.single_level" => Mip { lod: Some(1.0), levels: (2, 2), ..MIP },
    "sampler.max_lod" => Mip { lod: Some(3.0), max_lod: 1.0, ..MIP },
    "sampler.min_lod" => Mip { lod: Some(0.0), min_lod: 2.0, ..MIP },
    "implicit.minify_lod2" => Mip { lod: None, uv_scale: 8.0, ..MIP },
    "implicit.lod_bias" => Mip { lod: None, uv_scale: 2.0, bias: 1.0, ..MIP },
    "implicit.magnify" => Mip { lod: None, uv_scale: 0.5, ..MIP },
});

/// The fixed-function test that [`discard_derivatives`] lowers into the
/// fragment shader.
#[derive(Clone, Copy)]
enum DiscardBy {
    /// A checkerboard polygon stipple (always in the shader).
    PolygonStipple,
    /// Eight excluding window rectangles, one per odd column; `shader`:
    /// in the fragment shader even where the device has
    /// VK_EXT_discard_rectangles (`PIPE_VK_DEBUG=no_discard_rectangles`).
    WindowRects { shader: bool },
}

/// Fixed-function tests that pipe-vk lowers into the fragment shader run
/// after the shader in GL, so they must not change what the fragments
/// they keep compute: in every 2x2 quad the test drops half the
/// fragments, and each kept one samples the mipmapped texture with an
/// implicit level of detail (the texture repeated 8 times over 16 pixels:
/// level 2), which needs the dropped neighbours' coordinates. A test that
/// ends their invocations (`OpKill`) leaves those derivatives undefined;
/// pipe-vk demotes them to helper invocations
/// (`VariantKey::demote_discards`). An NVIDIA H100 sampled other levels
/// next to emulated window rectangles (differential state-fuzz seeds 110
/// and 111); lavapipe computes the derivatives either way.
fn discard_derivatives(ctx: &mut TestContext, staging: bool, by: DiscardBy) -> R {
    let (mut e, t) = begin_with(ctx, UNORM, None, 0, |o| {
        o.staging = Some(staging);
        if let DiscardBy::WindowRects { shader } = by {
            o.no_discard_rectangles = Some(shader);
        }
    })?;
    bind_program(&mut e, VS_UV, FS_TEX)?;
    let (res, tt) = mip_texture(&mut e)?;
    let view = step(
        "create_sampler_view",
        e.ctx
            .create_sampler_view(&res, &SamplerViewTemplate::whole(&tt)),
    )?;
    let ss = SamplerState {
        min_mip_filter: MipFilter::Nearest,
        max_lod: 1000.0,
        ..Default::default()
    };
    bind_texture(&mut e, view, &ss)?;
    clear_color(&mut e, [0.0; 4])?;
    let kept: fn(u32, u32) -> bool = match by {
        DiscardBy::PolygonStipple => {
            // Bit 31 - (x mod 32) of word y mod 32 (Vulkan's pixel).
            let mut p = PolyStipple { stipple: [0; 32] };
            for (y, w) in p.stipple.iter_mut().enumerate() {
                *w = if y % 2 == 0 { 0xaaaa_aaaa } else { 0x5555_5555 };
            }
            step("set_polygon_stipple", e.ctx.set_polygon_stipple(&p))?;
            rasterizer(&mut e, |r| r.poly_stipple_enable = true)?;
            |x, y| (x + y) % 2 == 0
        }
        DiscardBy::WindowRects { .. } => {
            if e.screen.caps().max_window_rectangles < 8 {
                return Err(Outcome::skip("fewer than 8 window rectangles"));
            }
            let rects: Vec<ScissorState> = (0..8)
                .map(|i| ScissorState {
                    minx: 2 * i + 1,
                    miny: 0,
                    maxx: 2 * i + 2,
                    maxy: H as u16,
                })
                .collect();
            step(
                "set_window_rectangles",
                e.ctx.set_window_rectangles(false, &rects),
            )?;
            |x, _| x % 2 == 0
        }
    };
    draw(&mut e, &uv_triangle((0.0, 0.0), (8.0, 8.0)), true)?;
    let level2 = q8(LEVELS[2].map(|v| f32::from(v) / 255.0));
    let got = read_color(&mut e, &t.color)?;
    check(ctx, "kept fragments' level", &got, TOL_U8_2, |x, y| {
        Some(if kept(x, y) { level2 } else { [0.0; 4] })
    })
}
macro_rules! discard_derivatives_cases {
    ($($name:literal => $by:expr),+ $(,)?) => {$(
        const _: () = {
            fn run(ctx: &mut TestContext) -> Outcome {
                Outcome::from_result(discard_derivatives(ctx, false, $by))
            }
            test_case!(name = concat!("pipe.render.discard_derivatives.", $name), run);
        };
        crate::spirv_variant!(
            concat!("pipe.render.discard_derivatives.", $name),
            discard_derivatives,
            $by
        );
    )+};
}
discard_derivatives_cases!(
    "polygon_stipple" => DiscardBy::PolygonStipple,
    "window_rectangles" => DiscardBy::WindowRects { shader: false },
    "window_rectangles_shader" => DiscardBy::WindowRects { shader: true },
);

// ---------------------------------------------------------------------------
// MSAA
// ---------------------------------------------------------------------------

/// Vulkan's standard 4x sample positions within a pixel.
const SAMPLES4: [(f32, f32); 4] = [
    (0.375, 0.125),
    (0.875, 0.375),
    (0.125, 0.625),
    (0.625, 0.875),
];

/// A triangle (window coordinates) with two slanted edges through the target.
const TRI: [(f32, f32); 3] = [(-2.0, 3.3), (18.0, 11.9), (-2.0, 30.0)];

/// Side of `p` relative to the line a->b, in pixels (signed distance).
fn side(a: (f32, f32), b: (f32, f32), p: (f32, f32)) -> f32 {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    ((p.0 - a.0) * dy - (p.1 - a.1) * dx) / (dx * dx + dy * dy).sqrt()
}

/// Whether `p` is inside triangle `t`; `None` within 1/1000 pixel of an edge.
fn in_tri(t: &[(f32, f32); 3], p: (f32, f32)) -> Option<bool> {
    let d = [
        side(t[0], t[1], p),
        side(t[1], t[2], p),
        side(t[2], t[0], p),
    ];
    if d.iter().any(|v| v.abs() < 1e-3) {
        return None;
    }
    Some(d.iter().all(|&v| v > 0.0) || d.iter().all(|&v| v < 0.0))
}

#[derive(Clone, Copy, PartialEq)]
enum Msaa {
    /// The triangle over black: resolved colour = covered fraction.
    Coverage,
    /// Two polygons sharing one slanted edge, each sample is one colour.
    SharedEdge,
    /// 4x depth: the near triangle first, then a far full-screen quad.
    DepthPerSample,
    /// Blending per sample over a cleared colour.
    BlendPerSample,
    /// The framebuffer's implicit resolve target instead of a blit.
    FramebufferResolve,
    /// set_sample_mask(0b0101) with a full-screen draw.
    SampleMask,
    /// Rasterizer multisample off: every sample takes the pixel centre's
    /// coverage.
    MultisampleOff,
}

/// Resolves `color` into `resolved` and compares it with `want` (see
/// [`check`]).
pub(crate) fn check_resolved(
    ctx: &TestContext,
    e: &mut Env,
    color: &Resource,
    resolved: &Resource,
    what: &str,
    tol: f32,
    want: impl Fn(u32, u32) -> Option<Px>,
) -> R {
    resolve(e, color, resolved)?;
    let got = read_color(e, resolved)?;
    check(ctx, what, &got, tol, want)
}

/// [`check_resolved`] of a coverage image: `fg` where `lit(x, y)`, black
/// elsewhere (`None`: not compared), within one UNORM step.
pub(crate) fn check_lit(
    ctx: &TestContext,
    e: &mut Env,
    color: &Resource,
    resolved: &Resource,
    what: &str,
    fg: Px,
    lit: impl Fn(u32, u32) -> Option<bool>,
) -> R {
    check_resolved(ctx, e, color, resolved, what, TOL_U8, |x, y| {
        lit(x, y).map(|l| if l { fg } else { BLACK })
    })
}

/// Resolves the whole UNORM `src` into `dst` with a blit.
pub(crate) fn resolve(e: &mut Env, src: &Resource, dst: &Resource) -> R {
    let surf = |resource: &Resource| BlitSurface {
        resource: resource.clone(),
        level: 0,
        bx: PipeBox::rect(0, 0, W, H),
        format: UNORM,
    };
    let info = crate::harness::blit_info(surf(dst), surf(src));
    step("blit (resolve)", e.ctx.blit(&info))
}

fn msaa_case(ctx: &mut TestContext, kind: Msaa) -> R {
    use Msaa::*;
    let zs = (kind == DepthPerSample).then_some(Format::Z32Float);
    let (mut e, t) = begin(ctx, UNORM, zs, 4)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    let bind = BindFlags::RENDER_TARGET | BindFlags::SAMPLER_VIEW;
    let resolved = e.texture(&ResourceTemplate::texture_2d(UNORM, W, H, bind))?;
    if kind == FramebufferResolve {
        let cs = surface(&mut e, &t.color)?;
        let fb = FramebufferState {
            width: W as u16,
            height: H as u16,
            layers: 1,
            samples: 4,
            cbufs: vec![Some(cs)],
            zsbuf: None,
            resolve: Some(resolved.clone()),
        };
        step("set_framebuffer_state", e.ctx.set_framebuffer_state(&fb))?;
    }
    // Per sample: `fg` where covered, `other` elsewhere.
    let (a, b): (Px, Px) = ([0.8, 0.2, 0.4, 1.0], [0.0, 0.6, 1.0, 0.4]);
    let blend_src: Px = std::array::from_fn(|c| SRC[c] * SRC[3] + DST[c] * (1.0 - SRC[3]));
    let (fg, other) = match kind {
        SharedEdge | DepthPerSample => (a, b),
        BlendPerSample => (blend_src, DST),
        _ => (a, BLACK),
    };
    let bg = if kind == BlendPerSample { DST } else { BLACK };
    let flags = ClearFlags::COLOR0 | ClearFlags::DEPTH;
    clear(&mut e, flags, ColorUnion::from_f32(bg), 1.0, 0, None)?;
    let (p, q) = (TRI[0], TRI[1]);
    match kind {
        SharedEdge => {
            set_src(&mut e, UNORM, a)?;
            let above = [(-2.0, -2.0), (18.0, -2.0), q, (-2.0, -2.0), q, p];
            draw(&mut e, &tris(&above, 0.0), false)?;
            set_src(&mut e, UNORM, b)?;
            let below = [p, q, (18.0, 18.0), p, (18.0, 18.0), (-2.0, 18.0)];
            draw(&mut e, &tris(&below, 0.0), false)?;
        }
        DepthPerSample => {
            let dsa = DepthStencilAlphaState {
                depth_enabled: true,
                depth_writemask: true,
                depth_func: CompareFunc::Less,
                ..Default::default()
            };
            bind_dsa(&mut e, &dsa)?;
            set_src(&mut e, UNORM, a)?;
            draw(&mut e, &tris(&TRI, 0.25), false)?;
            set_src(&mut e, UNORM, b)?;
            draw(&mut e, &full(0.5), false)?;
        }
        SampleMask => {
            step("set_sample_mask", e.ctx.set_sample_mask(0b0101))?;
            set_src(&mut e, UNORM, a)?;
            draw(&mut e, &full(0.5), false)?;
        }
        _ => {
            let (sf, df) = (BlendFactor::SrcAlpha, BlendFactor::InvSrcAlpha);
            if kind == BlendPerSample {
                bind_blend(&mut e, &rt_blend(BlendFunc::Add, sf, df))?;
            }
            if kind == MultisampleOff {
                rasterizer(&mut e, |r| r.multisample = false)?;
            }
            set_src(&mut e, UNORM, if kind == BlendPerSample { SRC } else { a })?;
            draw(&mut e, &tris(&TRI, 0.25), false)?;
        }
    }
    if kind != FramebufferResolve {
        resolve(&mut e, &t.color, &resolved)?;
    }
    let got = read_color(&mut e, &resolved)?;
    check(ctx, "resolved coverage", &got, TOL_U8_2, |x, y| {
        let mut sum = [0.0f32; 4];
        for (i, &(sx, sy)) in SAMPLES4.iter().enumerate() {
            // Without multisampling every sample takes the centre's coverage.
            let (sx, sy) = if kind == MultisampleOff {
                (0.5, 0.5)
            } else {
                (sx, sy)
            };
            let pt = (x as f32 + sx, y as f32 + sy);
            let covered = match kind {
                SampleMask => Some(i % 2 == 0),
                SharedEdge => {
                    let d = side(p, q, pt);
                    (d.abs() >= 1e-3).then_some(d > 0.0)
                }
                _ => in_tri(&TRI, pt),
            }?;
            let c = q8(if covered { fg } else { other });
            for (s, v) in sum.iter_mut().zip(c) {
                *s += v / 4.0;
            }
        }
        Some(sum)
    })
}
cases!("msaa", msaa_case, {
    "coverage_resolve_blit" => Msaa::Coverage,
    "shared_edge" => Msaa::SharedEdge,
    "depth_per_sample" => Msaa::DepthPerSample,
    "blend_per_sample" => Msaa::BlendPerSample,
    "sample_mask" => Msaa::SampleMask,
    "framebuffer_resolve" => Msaa::FramebufferResolve,
    "multisample_off" => Msaa::MultisampleOff,
});

/// Begins a 4x case on a screen with options `opts`, with the usual
/// program, a single-sampled UNORM texture to resolve into, and the
/// target cleared to black.
pub(crate) fn begin_4x(
    ctx: &mut TestContext,
    opts: impl FnOnce(&mut pipe_vk::ScreenOptions),
) -> Result<(Env, Rt, Resource), Outcome> {
    let (mut e, t) = begin_with(ctx, UNORM, None, 4, opts)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    let bind = BindFlags::RENDER_TARGET | BindFlags::SAMPLER_VIEW;
    let resolved = e.texture(&ResourceTemplate::texture_2d(UNORM, W, H, bind))?;
    clear(
        &mut e,
        ClearFlags::COLOR0,
        ColorUnion::from_f32(BLACK),
        1.0,
        0,
        None,
    )?;
    Ok((e, t, resolved))
}

fn a2c_blend(a2c: bool, a2o: bool) -> BlendState {
    let mut bs = BlendState {
        alpha_to_coverage: a2c,
        alpha_to_one: a2o,
        ..Default::default()
    };
    bs.rt[0].colormask = ColorMask::RGBA;
    bs
}

/// Sample mask, alpha-to-coverage and alpha-to-one changed between four
/// draws in one command buffer, one per quadrant of a 4x target:
/// sample mask 0b0101 (half the samples), alpha-to-coverage with alpha 0
/// (no sample), alpha-to-one with alpha 0.3 (alpha 1), and none of them
/// with alpha 0.3. Checks the resolve.
/// The multisample state (sample mask, alpha-to-coverage, alpha-to-one)
/// is dynamic or baked into pipelines (`no_dynamic_rasterizer`, on which
/// it depends).
fn sample_state_switches(ctx: &mut TestContext, dynamic: bool) -> R {
    let (mut e, t, resolved) = begin_4x(ctx, |o| o.no_dynamic_rasterizer = Some(!dynamic))?;
    let a2o_ok = e.screen.caps().alpha_to_one;
    let rgb = [0.8f32, 0.2, 0.4];
    let with_alpha = |a: f32| [rgb[0], rgb[1], rgb[2], a];
    // (quadrant x0, y0), sample mask, a2c, a2o, alpha.
    let steps = [
        ((0.0, 0.0), 0b0101, false, false, 1.0),
        ((8.0, 0.0), 0b1111, true, false, 0.0),
        ((0.0, 8.0), 0b1111, false, a2o_ok, 0.3),
        ((8.0, 8.0), 0b1111, false, false, 0.3),
    ];
    for ((x0, y0), mask, a2c, a2o, alpha) in steps {
        step("set_sample_mask", e.ctx.set_sample_mask(mask))?;
        bind_blend(&mut e, &a2c_blend(a2c, a2o))?;
        set_src(&mut e, UNORM, with_alpha(alpha))?;
        draw(&mut e, &rect(x0, y0, x0 + 8.0, y0 + 8.0, 0.0, true), false)?;
    }
    check_resolved(
        ctx,
        &mut e,
        &t.color,
        &resolved,
        "resolved",
        TOL_U8_2,
        |x, y| {
            let c = q8(match (x >= 8, y >= 8) {
                (false, false) => with_alpha(1.0),
                (true, false) => BLACK,
                (false, true) => with_alpha(if a2o_ok { 1.0 } else { 0.3 }),
                (true, true) => with_alpha(0.3),
            });
            // Half the samples for the masked quadrant.
            Some(if x < 8 && y < 8 {
                c.map(|v| v / 2.0)
            } else {
                c
            })
        },
    )
}

/// Alpha-to-coverage on a 4x target with alpha 0, 0.5 and 1 in three
/// column bands: no sample, some but not all samples (Vulkan leaves
/// which to the implementation; the resolve is a whole number of
/// quarters), every sample.
fn alpha_to_coverage(ctx: &mut TestContext, dynamic: bool) -> R {
    let (mut e, t, resolved) = begin_4x(ctx, |o| o.no_dynamic_rasterizer = Some(!dynamic))?;
    bind_blend(&mut e, &a2c_blend(true, false))?;
    for (i, alpha) in [0.0f32, 0.5, 1.0].into_iter().enumerate() {
        set_src(&mut e, UNORM, [1.0, 1.0, 1.0, alpha])?;
        let x0 = [0.0, 5.0, 11.0][i];
        let x1 = [5.0, 11.0, 16.0][i];
        draw(&mut e, &rect(x0, 0.0, x1, 16.0, 0.0, true), false)?;
    }
    resolve(&mut e, &t.color, &resolved)?;
    let got = read_color(&mut e, &resolved)?;
    for (i, px) in got.iter().enumerate() {
        let x = i as u32 % W;
        let r = px[0];
        let quarters = r * 4.0;
        let whole = (quarters - quarters.round()).abs() < 0.05;
        let ok = match x {
            0..=4 => r < 0.01,
            5..=10 => whole && quarters.round() >= 1.0 && quarters.round() <= 3.0,
            _ => r > 0.99,
        };
        if !ok {
            return Err(Outcome::fail(format!(
                "resolved red at ({x}, {}) is {r}: {} samples of 4",
                i as u32 / W,
                quarters
            )));
        }
    }
    Ok(())
}

macro_rules! dynamic_and_static {
    ($name:literal, $body:path) => {
        cases!($name, $body, { "dynamic" => true, "static" => false });
    };
}
dynamic_and_static!("msaa.sample_state_switches", sample_state_switches);
dynamic_and_static!("msaa.alpha_to_coverage", alpha_to_coverage);

/// GL's aliased lines on a multisampled target (`multisample` off and
/// `line_rectangular` off, as st/mesa sets them): Bresenham lines, whose
/// fragments cover every sample (VK_KHR_line_rasterization, issue 1). A
/// horizontal line at y = 8.25 from x = 2.5 to 12.5 lights pixels 2..=11
/// of row 8 by the diamond-exit rule, fully (a 1-pixel rectangle there
/// would cover some samples of rows 7 and 8 only).
fn msaa_bresenham_line(ctx: &mut TestContext) -> R {
    let (mut e, t, resolved) = begin_4x(ctx, |_| {})?;
    if !e.screen.caps().line_stipple {
        // The same feature set (VK_EXT_line_rasterization) as Bresenham.
        return Err(Outcome::skip("no VK_EXT_line_rasterization lines"));
    }
    let a: Px = [0.8, 0.2, 0.4, 1.0];
    rasterizer(&mut e, |r| {
        r.multisample = false;
        r.line_rectangular = false;
    })?;
    set_src(&mut e, UNORM, a)?;
    draw_mode(
        &mut e,
        &tris(&[(2.5, 8.25), (12.5, 8.25)], 0.25),
        false,
        pipe_core::draw::PrimType::Lines,
    )?;
    check_resolved(
        ctx,
        &mut e,
        &t.color,
        &resolved,
        "resolved Bresenham line",
        TOL_U8_2,
        |x, y| {
            Some(q8(if y == 8 && (2..12).contains(&x) {
                a
            } else {
                BLACK
            }))
        },
    )
}
crate::result_case!(
    "pipe.render.msaa.bresenham_line_full_coverage",
    msaa_bresenham_line
);

/// Bad `FramebufferState::resolve` targets are refused at
/// set_framebuffer_state with InvalidArgument, and the framebuffer bound
/// before stays in effect (a draw into it still lands).
fn msaa_resolve_rejected(ctx: &mut TestContext, _: ()) -> R {
    let (mut e, t) = begin(ctx, UNORM, None, 4)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    let bind = BindFlags::RENDER_TARGET | BindFlags::SAMPLER_VIEW;
    let cs = surface(&mut e, &t.color)?;
    let fb = |resolve: Resource, cbuf: pipe_core::view::Surface| FramebufferState {
        width: W as u16,
        height: H as u16,
        layers: 1,
        samples: 4,
        cbufs: vec![Some(cbuf)],
        zsbuf: None,
        resolve: Some(resolve),
    };
    let small = e.texture(&ResourceTemplate::texture_2d(UNORM, W / 2, H, bind))?;
    let other_format = e.texture(&ResourceTemplate::texture_2d(
        Format::R16G16B16A16Float,
        W,
        H,
        bind,
    ))?;
    let single = e.texture(&ResourceTemplate::texture_2d(UNORM, W, H, bind))?;
    let single_surface = surface(&mut e, &single)?;
    let cases = [
        ("smaller than the framebuffer", fb(small, cs.clone())),
        ("different format", fb(other_format, cs.clone())),
        (
            "single-sampled cbufs[0]",
            fb(single.clone(), single_surface),
        ),
    ];
    for (what, state) in cases {
        match e.ctx.set_framebuffer_state(&state) {
            Err(pipe_core::PipeError::InvalidArgument(_)) => {}
            other => return Err(Outcome::fail(format!("resolve {what} gave {other:?}"))),
        }
    }
    // The 4x target from begin() is still bound: clear and draw into it,
    // then resolve by blit and compare.
    clear_color(&mut e, BLACK)?;
    set_src(&mut e, UNORM, RED)?;
    draw(&mut e, &full(0.0), false)?;
    let surf = |resource: &Resource| BlitSurface {
        resource: resource.clone(),
        level: 0,
        bx: PipeBox::rect(0, 0, W, H),
        format: UNORM,
    };
    let info = BlitInfo {
        dst: surf(&single),
        src: surf(&t.color),
        mask: BlitMask::RGBA,
        filter: TexFilter::Nearest,
        scissor: None,
        render_condition_enable: false,
        alpha_blend: false,
        window_rectangle_include: false,
        window_rectangles: Vec::new(),
    };
    step("blit (resolve)", e.ctx.blit(&info))?;
    let got = read_color(&mut e, &single)?;
    check(ctx, "previous framebuffer", &got, TOL_U8, |_, _| Some(RED))
}
cases!("msaa", msaa_resolve_rejected, { "framebuffer_resolve_rejected" => () });

/// Window x plus a quarter pixel, for the sample shading case.
const VS_WINDOW_X: &str = "shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
out @wx : f32 location=0
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  %1 : f32 = swizzle %0, x
  %2 : f32 = const 8.0
  %3 : f32 = const 8.25
  %4 : f32 = ffma %1, %2, %3
  store @wx, %4
}
";

/// White where the interpolated `wx` has a fractional part below 0.5.
const FS_FRACT_STEP: &str = "shader fragment
in @wx : f32 location=0
out @frag : f32x4 location=0
fn main {
  %0 : f32 = load @wx
  %1 : f32 = ffract %0
  %2 : f32 = const 0.5
  %3 : bool = flt %1, %2
  %4 : f32 = const 1.0
  %5 : f32 = const 0.0
  %6 : f32 = bcsel %3, %4, %5
  %7 : f32x4 = vec %6, %6, %6, %4
  store @frag, %7
}
";

/// `set_min_samples` (GL's minimum sample shading) and the rasterizer's
/// `force_persample_interp`: shading once per pixel interpolates `wx` at
/// the pixel centre, where its fraction is 0.75 (black); shading every
/// sample interpolates at the standard 4x positions (x offsets 0.375,
/// 0.875, 0.125, 0.625: fractions 0.625, 0.125, 0.375, 0.875), two of
/// which are white, so the resolved pixel is 50 % grey.
fn msaa_min_samples(ctx: &mut TestContext, multisample: bool) -> R {
    msaa_min_samples_with(ctx, multisample, false)
}

/// [`msaa_min_samples`]; with `spirv`, the fragment shader is SPIR-V
/// passthrough (spirv-gen's), which gets per-sample interpolation
/// patched in (`spirv_gen::patch::sample_interpolation`).
fn msaa_min_samples_with(ctx: &mut TestContext, multisample: bool, spirv: bool) -> R {
    let (mut e, t) = begin(ctx, UNORM, None, 4)?;
    if !e.screen.caps().sample_shading {
        return Err(Outcome::skip("no sample shading"));
    }
    bind_program(&mut e, VS_WINDOW_X, FS_FRACT_STEP)?;
    if spirv {
        let fs = crate::harness::spirv_shader(
            ShaderStage::Fragment,
            FS_FRACT_STEP,
            spirv_gen::emit::Target::Vulkan1_3,
        )?;
        let h = step("fs", e.ctx.create_fs_state(&fs))?;
        step("bind fs", e.ctx.bind_fs_state(Some(h)))?;
    }
    for (min, force) in [(1u32, false), (4, false), (1, true), (4, true)] {
        // Per-sample shading only with multisampling on (see
        // `min_samples_multisample_off` below).
        let grey = if multisample && (min > 1 || force) {
            0.5
        } else {
            0.0
        };
        rasterizer(&mut e, |r| {
            r.multisample = multisample;
            r.force_persample_interp = force;
        })?;
        step("set_min_samples", e.ctx.set_min_samples(min))?;
        clear_color(&mut e, BLACK)?;
        draw(&mut e, &full(0.0), false)?;
        let got = read_color(&mut e, &t.color)?;
        check(
            ctx,
            &format!(
                "multisample {multisample}, min_samples {min}, force_persample_interp {force}"
            ),
            &got,
            1.5 / 255.0,
            |_, _| Some([grey, grey, grey, 1.0]),
        )?;
    }
    Ok(())
}
// `min_samples_multisample_off`: `set_min_samples` and
// `force_persample_interp` with the rasterizer's `multisample` off: GL's
// sample shading has no effect then (GL 4.6 section 14.3.1.1, "If
// MULTISAMPLE or SAMPLE_SHADING is disabled, sample shading has no
// effect"), so `wx` is interpolated once per pixel, at the centre
// (fraction 0.75, black), as with `min_samples` 1. The aliased-triangle
// emulation that multisampling off selects also needs its edge distances
// at the pixel centre, which per-sample shading would move to the sample
// positions on some devices.
cases!("msaa", msaa_min_samples, {
    "min_samples" => true,
    "min_samples_multisample_off" => false,
});
fn msaa_min_samples_spirv(ctx: &mut TestContext, multisample: bool) -> R {
    msaa_min_samples_with(ctx, multisample, true)
}
cases!("msaa", msaa_min_samples_spirv, {
    "min_samples.spirv" => true,
    "min_samples_multisample_off.spirv" => false,
});

/// Points with per-vertex sizes: position (x, y) and size in `z`.
const VS_POINT_SIZE: &str = "shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
out @ps : f32 builtin=point_size
fn main {
  %0 : f32x4 = load @pos
  %1 : f32 = swizzle %0, z
  %2 : f32x2 = swizzle %0, xy
  %3 : f32 = const 0.0
  %4 : f32 = const 1.0
  %5 : f32x2 = swizzle %0, xy
  %6 : f32 = swizzle %5, x
  %7 : f32 = swizzle %5, y
  %8 : f32x4 = vec %6, %7, %3, %4
  store @gl_pos, %8
  store @ps, %1
}
";

/// The point coordinate as red and green.
const FS_POINT_COORD: &str = "shader fragment
in @pc : f32x2 builtin=point_coord
out @frag : f32x4 location=0
fn main {
  %0 : f32x2 = load @pc
  %1 : f32 = swizzle %0, x
  %2 : f32 = swizzle %0, y
  %3 : f32 = const 0.0
  %4 : f32 = const 1.0
  %5 : f32x4 = vec %1, %2, %3, %4
  store @frag, %5
}
";

/// Points at window (x, y) with size s, none near a pixel-centre tie: a
/// pixel is in a point when its centre is in `[c - s/2, c + s/2)` on
/// both axes.
const ALIASED_POINTS: [(f32, f32, f32); 4] = [
    (3.3, 4.6, 3.0),
    (10.2, 2.7, 2.0),
    (6.6, 11.4, 1.0),
    (12.4, 12.1, 4.5),
];

pub(crate) fn in_point(x: u32, y: u32, (cx, cy, s): (f32, f32, f32)) -> bool {
    let inside = |p: u32, c: f32| {
        let d = p as f32 + 0.5 - c;
        d >= -s / 2.0 && d < s / 2.0
    };
    inside(x, cx) && inside(y, cy)
}

/// Multisampling off on a 4x target (Gallium's rasterizer `multisample`
/// false, GL's `glDisable(GL_MULTISAMPLE)`): points are rasterized
/// single-sampled and cover whole pixels, so the resolve is exactly the
/// colour inside each point's pixels and the background outside. Sizes
/// come from the vertex shader (`per_vertex`) or the rasterizer state
/// (one draw per size). With multisampling on, the points' edge pixels
/// would be partly covered.
fn aliased_points(ctx: &mut TestContext, per_vertex: bool) -> R {
    let (mut e, t, resolved) = begin_4x(ctx, |_| {})?;
    let fg: Px = [1.0, 0.0, 0.0, 1.0];
    set_src(&mut e, UNORM, fg)?;
    let vert = |&(x, y, s): &(f32, f32, f32)| [ndc(x), ndc(y), s, 1.0];
    if per_vertex {
        bind_program(&mut e, VS_POINT_SIZE, FS_UBO_COLOR)?;
        rasterizer(&mut e, |r| {
            r.multisample = false;
            r.point_size_per_vertex = true;
            r.point_size = 1.0;
        })?;
        let data: Vec<f32> = ALIASED_POINTS.iter().flat_map(vert).collect();
        draw_mode(&mut e, &data, false, pipe_core::draw::PrimType::Points)?;
    } else {
        for p in &ALIASED_POINTS {
            rasterizer(&mut e, |r| {
                r.multisample = false;
                r.point_size = p.2;
            })?;
            let mut v = vert(p);
            v[2] = 0.0;
            draw_mode(&mut e, &v, false, pipe_core::draw::PrimType::Points)?;
        }
    }
    check_lit(
        ctx,
        &mut e,
        &t.color,
        &resolved,
        "aliased points",
        fg,
        |x, y| Some(ALIASED_POINTS.iter().any(|&p| in_point(x, y, p))),
    )
}
crate::bool_cases!(
    aliased_points,
    "pipe.render.msaa.aliased_points.fixed_size",
    "pipe.render.msaa.aliased_points.per_vertex_size"
);

/// Aliased points read the point coordinate over the point's own square
/// (not the wider one the emulation draws), with the upper-left origin:
/// `((x + 0.5 - (cx - s/2)) / s, (y + 0.5 - (cy - s/2)) / s)`.
fn aliased_points_coord(ctx: &mut TestContext) -> R {
    let (mut e, t, resolved) = begin_4x(ctx, |_| {})?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_POINT_COORD)?;
    let (cx, cy, s) = (8.3, 7.6, 5.0);
    rasterizer(&mut e, |r| {
        r.multisample = false;
        r.point_size = s;
        r.point_quad_rasterization = true;
    })?;
    draw_mode(
        &mut e,
        &[ndc(cx), ndc(cy), 0.0, 1.0],
        false,
        pipe_core::draw::PrimType::Points,
    )?;
    check_resolved(
        ctx,
        &mut e,
        &t.color,
        &resolved,
        "aliased point coordinates",
        TOL_U8_2,
        |x, y| {
            if !in_point(x, y, (cx, cy, s)) {
                return Some(BLACK);
            }
            let u = (x as f32 + 0.5 - (cx - s / 2.0)) / s;
            let v = (y as f32 + 0.5 - (cy - s / 2.0)) / s;
            Some([u, v, 0.0, 1.0])
        },
    )
}
crate::result_case!(
    "pipe.render.msaa.aliased_points.coord",
    aliased_points_coord
);

/// [`aliased_points`] with the vertex shader as SPIR-V passthrough
/// (`harness::as_spirv_vs`): its half of the emulation is patched into
/// the words (`spirv_gen::patch::aliased_points`). Multisampling stayed
/// on for them before.
fn aliased_points_spirv_vs(ctx: &mut TestContext, per_vertex: bool) -> R {
    crate::harness::as_spirv_vs(|| aliased_points(ctx, per_vertex))
}
crate::bool_cases!(
    aliased_points_spirv_vs,
    "pipe.render.msaa.aliased_points.fixed_size.spirv_vs",
    "pipe.render.msaa.aliased_points.per_vertex_size.spirv_vs"
);

/// Draws each point `(x, y, size)` (window coordinates) on its own, with
/// the rasterizer `state` gives and the point's size.
fn draw_sized_points(
    e: &mut Env,
    points: &[(f32, f32, f32)],
    state: impl Fn(&mut RasterizerState),
) -> R {
    for &(x, y, size) in points {
        rasterizer(e, |r| {
            state(r);
            r.point_size = size;
        })?;
        let v = [ndc(x), ndc(y), 0.0, 1.0];
        draw_mode(e, &v, false, pipe_core::draw::PrimType::Points)?;
    }
    Ok(())
}

/// Smooth points (GL's `POINT_SMOOTH`, not sprites): points of sizes 5,
/// 3 and 6.5 at off-centre positions, 1 centred on a pixel and 1.5 on a
/// pixel corner, and points smaller than a pixel (GL's smooth sizes go
/// down to 0): 0.5 and 0.3 inside a pixel, 0.7 across a pixel edge; each
/// drawn with its own rasterizer size, colour (1, 0.5, 0.25, 1) over a
/// transparent black target. Each pixel's alpha is the share of it
/// inside the point's circle (diameter the size), computed here by
/// sampling 64 x 64 positions per pixel, within 0.1; its colour is the
/// point's where it has any alpha; and the alphas of each point add up
/// to its circle's area within 3% and 1/255 (a square point, or Mesa's
/// `clamp(r - d)` ramp, misses by 20% or more at these sizes; a small
/// point drawn at size 1 misses by 100% or more). With
/// `samples` 4 and multisampling off, the resolved image is the same:
/// every sample of a drawn pixel is covered. They were drawn as squares
/// (`point_smooth` was ignored).
fn smooth_points(ctx: &mut TestContext, samples: u32) -> R {
    const POINTS: [(f32, f32, f32); 8] = [
        (4.3, 4.6, 5.0),
        (11.5, 5.5, 3.0),
        (8.2, 11.7, 6.5),
        (14.5, 1.5, 1.0),
        (1.0, 14.0, 1.5),
        (2.3, 9.6, 0.5),
        (13.7, 12.2, 0.3),
        (14.0, 8.3, 0.7),
    ];
    let (mut e, t) = begin(ctx, UNORM, None, samples)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    let fg: Px = [1.0, 0.5, 0.25, 1.0];
    set_src(&mut e, UNORM, fg)?;
    clear(
        &mut e,
        ClearFlags::COLOR0,
        ColorUnion::from_f32([0.0; 4]),
        1.0,
        0,
        None,
    )?;
    draw_sized_points(&mut e, &POINTS, |r| {
        r.multisample = false;
        r.point_smooth = true;
    })?;
    let got = if samples > 1 {
        let bind = BindFlags::RENDER_TARGET | BindFlags::SAMPLER_VIEW;
        let resolved = e.texture(&ResourceTemplate::texture_2d(UNORM, W, H, bind))?;
        resolve(&mut e, &t.color, &resolved)?;
        read_color(&mut e, &resolved)?
    } else {
        read_color(&mut e, &t.color)?
    };
    // The share of pixel (px, py) inside the circle at (x, y) of
    // diameter `size`.
    let area = |px: u32, py: u32, (x, y, size): (f32, f32, f32)| -> f32 {
        let n = 64;
        let r2 = (size / 2.0) * (size / 2.0);
        let mut inside = 0;
        for i in 0..n {
            for j in 0..n {
                let sx = px as f32 + (i as f32 + 0.5) / n as f32;
                let sy = py as f32 + (j as f32 + 0.5) / n as f32;
                if (sx - x) * (sx - x) + (sy - y) * (sy - y) <= r2 {
                    inside += 1;
                }
            }
        }
        inside as f32 / (n * n) as f32
    };
    let mut sums = [(0.0f32, 0.0f32); POINTS.len()];
    for py in 0..H {
        for px in 0..W {
            let p = got[(py * W + px) as usize];
            let shares: Vec<f32> = POINTS.iter().map(|&q| area(px, py, q)).collect();
            let want: f32 = shares.iter().sum();
            if (p[3] - want).abs() > 0.1 {
                return Err(Outcome::fail(format!(
                    "pixel ({px}, {py}): alpha {}, want {want} (its share of the circles)",
                    p[3]
                )));
            }
            let drawn = p[3] > 0.0;
            let rgb_ok = (0..3).all(|c| (p[c] - fg[c]).abs() <= TOL_U8)
                || (!drawn && (0..3).all(|c| p[c] == 0.0));
            if !rgb_ok {
                return Err(Outcome::fail(format!(
                    "pixel ({px}, {py}) is {p:?}: the point's colour where it has alpha"
                )));
            }
            for (k, &share) in shares.iter().enumerate() {
                if share > 0.0 || (want == 0.0 && p[3] > 0.0) {
                    sums[k].0 += p[3];
                    sums[k].1 += share;
                }
            }
        }
    }
    for (k, &(got_sum, want_sum)) in sums.iter().enumerate() {
        if (got_sum - want_sum).abs() > 0.03 * want_sum + 1.0 / 255.0 {
            return Err(Outcome::fail(format!(
                "point {k}: alphas add up to {got_sum}, its circle's area is {want_sum}"
            )));
        }
    }
    Ok(())
}
fn smooth_points_1x(ctx: &mut TestContext) -> R {
    smooth_points(ctx, 1)
}
fn smooth_points_4x(ctx: &mut TestContext) -> R {
    smooth_points(ctx, 4)
}
/// [`smooth_points`] with every shader SPIR-V passthrough
/// (`spirv_gen::patch::aliased_points` and `aliased_points_fs`), on both
/// targets.
fn smooth_points_spirv(ctx: &mut TestContext) -> R {
    crate::harness::as_spirv(|| smooth_points(ctx, 1))?;
    crate::harness::as_spirv(|| smooth_points(ctx, 4))
}
crate::result_case!("pipe.render.smooth_points.single_sample", smooth_points_1x);
crate::result_case!("pipe.render.smooth_points.msaa_off", smooth_points_4x);
crate::result_case!("pipe.render.smooth_points.spirv", smooth_points_spirv);

/// Vulkan's standard locations of 4 samples in a pixel (y down), from
/// the Vulkan specification's table, kept here apart from spirv-gen's.
const STANDARD_4X: [(f32, f32); 4] = [
    (0.375, 0.125),
    (0.875, 0.375),
    (0.125, 0.625),
    (0.625, 0.875),
];

/// Multisampled points that are not sprites (GL's compatibility profile,
/// POINT_SPRITE off, multisampling on) cover the samples inside the
/// circle of diameter the size (GL 4.6 compatibility, 14.4.3); sprites
/// (`point_quad_rasterization`) the square. Three points of sizes 5, 3
/// and 6.5 on a 4x target, colour (1, 0.5, 0.25, 1) over black: each
/// resolved pixel is the colour times the share of its four samples
/// (standard locations) inside, computed here. Samples within 0.02 of
/// the edge are not judged. They were squares.
fn round_points(ctx: &mut TestContext, sprite: bool) -> R {
    round_points_masked(ctx, sprite, None)
}

/// A fragment shader writing the colour of cb0 and `SampleMask[0] =
/// 0b1101` (sample 1 off).
const FS_UBO_COLOR_MASK_1101: &str = "shader fragment
out @frag : f32x4 location=0
out @omask : i32[1] builtin=sample_mask
ubo @c slot=0 size=16
fn main {
  %0 : u32 = const 0
  %1 : f32x4 = load_ubo @c, %0
  store @frag, %1
  %2 : i32 = const 0
  %3 : i32 = const 13
  store @omask, %2, %3
}
";

/// [`round_points`], with a fragment shader that writes its own sample
/// mask (`mask`) where given: the circle's samples ANDed with it.
fn round_points_masked(ctx: &mut TestContext, sprite: bool, mask: Option<u32>) -> R {
    const POINTS: [(f32, f32, f32); 3] = [(4.3, 4.6, 5.0), (11.5, 5.5, 3.0), (8.2, 11.7, 6.5)];
    let (mut e, t, resolved) = begin_4x(ctx, |_| {})?;
    if let Some(m) = mask {
        if m != 0b1101 {
            return Err(Outcome::fail(
                "round_points_masked: the shader writes 0b1101",
            ));
        }
        bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR_MASK_1101)?;
    }
    let fg: Px = [1.0, 0.5, 0.25, 1.0];
    set_src(&mut e, UNORM, fg)?;
    draw_sized_points(&mut e, &POINTS, |r| {
        r.multisample = true;
        r.point_quad_rasterization = sprite;
    })?;
    // Per sample: whether it is covered, or `None` within 0.02 of an
    // edge.
    let covered = |sx: f32, sy: f32| -> Option<bool> {
        let mut any = false;
        for &(x, y, size) in &POINTS {
            let r = size / 2.0;
            let edge = if sprite {
                let (dx, dy) = ((sx - x).abs(), (sy - y).abs());
                dx.max(dy) - r
            } else {
                ((sx - x).powi(2) + (sy - y).powi(2)).sqrt() - r
            };
            if edge.abs() < 0.02 {
                return None;
            }
            any |= edge < 0.0;
        }
        Some(any)
    };
    let mut judged = 0;
    let got = {
        resolve(&mut e, &t.color, &resolved)?;
        read_color(&mut e, &resolved)?
    };
    for py in 0..H {
        for px in 0..W {
            let mut n = 0;
            let mut sure = true;
            for (k, &(ox, oy)) in STANDARD_4X.iter().enumerate() {
                if mask.is_some_and(|m| m >> k & 1 == 0) {
                    continue;
                }
                match covered(px as f32 + ox, py as f32 + oy) {
                    Some(c) => n += u32::from(c),
                    None => sure = false,
                }
            }
            if !sure {
                continue;
            }
            judged += 1;
            let share = n as f32 / 4.0;
            let want = fg.map(|c| c * share);
            let p = got[(py * W + px) as usize];
            if (0..4).any(|c| (p[c] - want[c]).abs() > TOL_U8_2) {
                return Err(Outcome::fail(format!(
                    "pixel ({px}, {py}) is {p:?}, want {want:?} ({n} of 4 samples inside)"
                )));
            }
        }
    }
    if judged < W * H * 3 / 4 {
        return Err(Outcome::fail(format!("only {judged} pixels judged")));
    }
    Ok(())
}
crate::bool_cases!(
    round_points,
    "pipe.render.msaa.round_points.circle",
    "pipe.render.msaa.round_points.sprites_square"
);
/// [`round_points`] with the shaders SPIR-V passthrough
/// (`spirv_gen::patch::round_points_fs`).
fn round_points_spirv(ctx: &mut TestContext) -> R {
    crate::harness::as_spirv(|| round_points(ctx, false))
}
crate::result_case!(
    "pipe.render.msaa.round_points.circle.spirv",
    round_points_spirv
);
/// [`round_points`] with a fragment shader that writes `SampleMask`
/// (sample 1 off), IR and SPIR-V passthrough: the circle's samples ANDed
/// with the shader's mask. The SPIR-V shader counted as reading samples
/// (a `SampleMask` decoration on its output), so its points stayed
/// squares.
fn round_points_shader_mask(ctx: &mut TestContext) -> R {
    round_points_masked(ctx, false, Some(0b1101))?;
    crate::harness::as_spirv(|| round_points_masked(ctx, false, Some(0b1101)))
}
crate::result_case!(
    "pipe.render.msaa.round_points.shader_sample_mask",
    round_points_shader_mask
);

/// The screen-space barycentric weights of point `p` in triangle `t`
/// (window coordinates).
pub(crate) fn barycentric(t: &[(f64, f64); 3], p: (f64, f64)) -> [f64; 3] {
    let area = |a: (f64, f64), b: (f64, f64), c: (f64, f64)| {
        (b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0)
    };
    let total = area(t[0], t[1], t[2]);
    [
        area(p, t[1], t[2]) / total,
        area(t[0], p, t[2]) / total,
        area(t[0], t[1], p) / total,
    ]
}

/// Whether window point (px, py) is inside triangle `t` (either winding),
/// and its distance to the nearest edge.
pub(crate) fn tri_inside(t: &[(f64, f64); 3], px: f64, py: f64) -> (bool, f64) {
    let area = (t[1].0 - t[0].0) * (t[2].1 - t[0].1) - (t[1].1 - t[0].1) * (t[2].0 - t[0].0);
    let mut inside = true;
    let mut nearest = f64::MAX;
    for i in 0..3 {
        let (a, b) = (t[i], t[(i + 1) % 3]);
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let d = (dx * (py - a.1) - dy * (px - a.0)) * area.signum() / dx.hypot(dy);
        inside &= d > 0.0;
        nearest = nearest.min(d.abs());
    }
    (inside, nearest)
}

/// Multisampling off on a 4x target: filled triangles cover exactly the
/// pixels whose centre is inside, whole (the resolve is the colour or the
/// background, nothing between). Two triangles sharing a diagonal that
/// passes through pixel centres, drawn with additive blending, cover each
/// of those pixels once. With multisampling on, edge pixels would be
/// partly covered.
fn aliased_triangles(ctx: &mut TestContext) -> R {
    let (mut e, t, resolved) = begin_4x(ctx, |_| {})?;
    rasterizer(&mut e, |r| r.multisample = false)?;
    let mut bs = BlendState::default();
    bs.rt[0] = crate::harness::RT_ADDITIVE;
    bind_blend(&mut e, &bs)?;
    let half: Px = [0.5, 0.0, 0.0, 0.5];
    set_src(&mut e, UNORM, half)?;
    // A triangle with no pixel centre near an edge (checked below).
    let tri = [(1.3, 2.2), (13.7, 4.1), (5.2, 9.6)];
    // A quad split along x - y = -6, which passes through pixel centres.
    let quad = [
        [(2.2, 8.2), (9.8, 15.8), (2.2, 15.8)],
        [(2.2, 8.2), (9.8, 8.2), (9.8, 15.8)],
    ];
    let mut all = vec![tri];
    all.extend(quad);
    let f = |t: [(f64, f64); 3]| t.map(|(x, y)| (x as f32, y as f32));
    let data: Vec<f32> = all.iter().flat_map(|t| tris(&f(*t), 0.0)).collect();
    draw(&mut e, &data, false)?;
    resolve(&mut e, &t.color, &resolved)?;
    let got = read_color(&mut e, &resolved)?;
    let mut problem = None;
    let mut want = |x: u32, y: u32| {
        let (px, py) = (x as f64 + 0.5, y as f64 + 0.5);
        let (in_tri, near) = tri_inside(&tri, px, py);
        if near < 0.01 {
            problem = Some((x, y));
        }
        let in_quad = (2.2..9.8).contains(&px) && (8.2..15.8).contains(&py);
        let n = u32::from(in_tri) + u32::from(in_quad);
        Some(half.map(|c| c * n as f32))
    };
    let exp: Vec<Px> = (0..W * H).map(|i| want(i % W, i / W).unwrap()).collect();
    if let Some((x, y)) = problem {
        return Err(Outcome::fail(format!(
            "test geometry: pixel centre ({x}, {y}) is too near the triangle's edge"
        )));
    }
    check(ctx, "aliased triangles", &got, TOL_U8, |x, y| {
        Some(exp[(y * W + x) as usize])
    })
}
crate::result_case!(
    "pipe.render.msaa.aliased_triangles.coverage",
    aliased_triangles
);

const VS_COLOR_ATTR: &str = "shader vertex
in @pos : f32x4 location=0
in @col : f32x4 location=1
out @gl_pos : f32x4 builtin=position
out @c : f32x4 location=0
out @n : f32x4 location=1 noperspective
fn main {
  %0 : f32x4 = load @pos
  %1 : f32x4 = load @col
  store @gl_pos, %0
  store @c, %1
  store @n, %1
}
";

/// Red and green from the smooth varying (x, y), blue and alpha from the
/// `noperspective` one (z, w).
const FS_TWO_VARYINGS: &str = "shader fragment
in @c : f32x4 location=0
in @n : f32x4 location=1 noperspective
out @frag : f32x4 location=0
fn main {
  %0 : f32x4 = load @c
  %1 : f32x4 = load @n
  %2 : f32 = swizzle %0, x
  %3 : f32 = swizzle %0, y
  %4 : f32 = swizzle %1, z
  %5 : f32 = swizzle %1, w
  %6 : f32x4 = vec %2, %3, %4, %5
  store @frag, %6
}
";

/// The widened triangle keeps every varying's plane: inside the original
/// triangle, a smooth varying interpolates perspective-correctly and a
/// `noperspective` one linearly in window space, as without the
/// emulation (vertices with different `w`). Expected values are computed
/// here from the vertices.
fn aliased_triangles_varyings(ctx: &mut TestContext) -> R {
    let (mut e, t, resolved) = begin_4x(ctx, |_| {})?;
    rasterizer(&mut e, |r| r.multisample = false)?;
    bind_program(&mut e, VS_COLOR_ATTR, FS_TWO_VARYINGS)?;
    let win = [(1.3, 1.2), (14.7, 3.1), (4.2, 14.6)];
    let w = [1.0, 2.5, 0.6];
    let col = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 1.0],
    ];
    let mut data = Vec::new();
    for i in 0..3 {
        let (x, y) = (ndc(win[i].0 as f32), ndc(win[i].1 as f32));
        let wi = w[i] as f32;
        data.extend([x * wi, y * wi, 0.0, wi]);
        data.extend(col[i].map(|c: f64| c as f32));
    }
    draw(&mut e, &data, true)?;
    check_resolved(
        ctx,
        &mut e,
        &t.color,
        &resolved,
        "aliased triangle varyings",
        TOL_U8_2,
        |x, y| {
            let (px, py) = (x as f64 + 0.5, y as f64 + 0.5);
            let (inside, near) = tri_inside(&win, px, py);
            if near < 0.01 {
                return None;
            }
            if !inside {
                return Some(BLACK);
            }
            let b = barycentric(&win, (px, py));
            let q: Vec<f64> = (0..3).map(|i| b[i] / w[i]).collect();
            let qs: f64 = q.iter().sum();
            let smooth = |c: usize| (0..3).map(|i| q[i] / qs * col[i][c]).sum::<f64>();
            let linear = |c: usize| (0..3).map(|i| b[i] * col[i][c]).sum::<f64>();
            Some([smooth(0), smooth(1), linear(2), linear(3)].map(|v| v as f32))
        },
    )
}
crate::result_case!(
    "pipe.render.msaa.aliased_triangles.varyings",
    aliased_triangles_varyings
);

/// [`aliased_triangles`] and [`aliased_triangles_varyings`] with their
/// vertex shaders as SPIR-V passthrough (`harness::as_spirv_vs`): the
/// generated geometry shader takes the vertex shader's outputs from its
/// words. Multisampling stayed on for them before.
fn aliased_triangles_spirv_vs(ctx: &mut TestContext, varyings: bool) -> R {
    crate::harness::as_spirv_vs(|| {
        if varyings {
            aliased_triangles_varyings(ctx)
        } else {
            aliased_triangles(ctx)
        }
    })
}
crate::bool_cases!(
    aliased_triangles_spirv_vs,
    "pipe.render.msaa.aliased_triangles.coverage.spirv_vs",
    "pipe.render.msaa.aliased_triangles.varyings.spirv_vs"
);

// Multisampling off with every shader SPIR-V passthrough: the fragment
// shader's half of the emulation is patched into its words
// (`spirv_gen::patch::{aliased_points_fs, aliased_triangles_fs}`); the
// draws kept sample coverage before.
crate::spirv_result_cases! {
    "pipe.render.msaa.aliased_points.fixed_size" => |c| aliased_points(c, false),
    "pipe.render.msaa.aliased_points.per_vertex_size" => |c| aliased_points(c, true),
    "pipe.render.msaa.aliased_points.coord" => aliased_points_coord,
    "pipe.render.msaa.aliased_triangles.coverage" => aliased_triangles,
    "pipe.render.msaa.aliased_triangles.varyings" => aliased_triangles_varyings,
    // The generated geometry shader reads a SPIR-V evaluation shader's
    // outputs from its words too.
    "pipe.render.msaa.aliased_triangles.tessellation" => aliased_triangles_tess,
}

/// Aliased triangles after tessellation: the geometry shader follows
/// the evaluation shader (levels 1: each patch is its triangle).
fn aliased_triangles_tess(ctx: &mut TestContext) -> R {
    let (mut e, t, resolved) = begin_4x(ctx, |_| {})?;
    if !e.screen.caps().shader[ShaderStage::TessEval.index()].supported {
        return Err(Outcome::skip("no tessellation"));
    }
    rasterizer(&mut e, |r| r.multisample = false)?;
    crate::harness::bind_stage(&mut e, ShaderStage::TessEval, super::draw::TES)?;
    crate::harness::tess_levels_1(&mut e, 3)?;
    let fg: Px = [0.0, 1.0, 0.0, 1.0];
    set_src(&mut e, UNORM, fg)?;
    let tri = [(1.3, 2.2), (13.7, 4.1), (5.2, 13.6)];
    let data = tris(&tri.map(|(x, y)| (x as f32, y as f32)), 0.0);
    draw_mode(&mut e, &data, false, pipe_core::draw::PrimType::Patches)?;
    check_lit(
        ctx,
        &mut e,
        &t.color,
        &resolved,
        "aliased tessellated triangle",
        fg,
        |x, y| {
            let (inside, near) = tri_inside(&tri, x as f64 + 0.5, y as f64 + 0.5);
            (near >= 0.01).then_some(inside)
        },
    )
}
crate::result_case!(
    "pipe.render.msaa.aliased_triangles.tessellation",
    aliased_triangles_tess
);

/// `interp_at_sample` and `interp_at_centroid` (GLSL's
/// `interpolateAtSample` and `interpolateAtCentroid`) on a 4x target.
/// Covered by one triangle, with the vertex shader's `a = window x / W`:
/// sample k's value is `(x + sx_k) / W`, sx_k the x of the screen's
/// sample position (`get_sample_position`), and a centroid lies in the
/// pixel, `[x, x + 1) / W` (GL and Vulkan allow any point of the pixel
/// inside the primitive; lavapipe does not take the centre at the
/// target's left edge). Every sample of a pixel is shaded with the same
/// value (the shader runs per pixel, then once more per sample with
/// `min_samples` 4), so the resolve keeps it. Then a triangle whose right
/// edge is at window x = 8.3, with `a = 3 (window x - 8)`: column 8 has
/// one sample covered (x 0.125 in the pixel), so its centroid lies in
/// [8, 8.3) and the resolved value (a quarter of that sample's) is at
/// most 0.9 / 4, where the pixel centre's (1.5, written as 1) would give
/// 0.25.
fn interp_at_sample_centroid(ctx: &mut TestContext) -> R {
    // `a = (x_ndc + 1) * scale + bias`.
    let vs = |scale: f32, bias: f32| {
        format!(
            "shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
out @a : f32 location=1
fn main {{
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  %1 : f32 = swizzle %0, x
  %2 : f32 = const 1.0
  %3 : f32 = fadd %1, %2
  %4 : f32 = const {scale:?}
  %5 : f32 = const {bias:?}
  %6 : f32 = ffma %3, %4, %5
  store @a, %6
}}
"
        )
    };
    let fs = |op: &str, at: i32| {
        format!(
            "shader fragment
in @a : f32 location=1
out @frag : f32x4 location=0
fn main {{
  %0 : i32 = const {at}
  %1 : f32 = {op}
  %2 : f32 = const 0.0
  %3 : f32 = const 1.0
  %4 : f32x4 = vec %1, %2, %2, %3
  store @frag, %4
}}
"
        )
    };
    let (mut e, t, resolved) = begin_4x(ctx, |_| {})?;
    let wf = W as f32;
    for min_samples in [1, 4] {
        step("set_min_samples", e.ctx.set_min_samples(min_samples))?;
        for at in 0..4 {
            let pos = e
                .screen
                .get_sample_position(4, at as u32)
                .ok_or_else(|| Outcome::fail(format!("get_sample_position(4, {at}) is None")))?;
            bind_program(&mut e, &vs(0.5, 0.0), &fs("interp_at_sample @a, %0", at))?;
            clear_color(&mut e, BLACK)?;
            draw(&mut e, &full(0.0), false)?;
            let what = format!("interp_at_sample (sample {at}), min_samples {min_samples}");
            check_resolved(ctx, &mut e, &t.color, &resolved, &what, TOL_U8, |x, _| {
                Some([(x as f32 + pos[0]) / wf, 0.0, 0.0, 1.0])
            })?;
        }
        let centroid = fs("interp_at_centroid @a", 0);
        bind_program(&mut e, &vs(0.5, 0.0), &centroid)?;
        clear_color(&mut e, BLACK)?;
        draw(&mut e, &full(0.0), false)?;
        resolve(&mut e, &t.color, &resolved)?;
        let got = read_color(&mut e, &resolved)?;
        for (i, p) in got.iter().enumerate() {
            let x = (i as u32 % W) as f32;
            if !(x / wf - TOL_U8..=(x + 1.0) / wf + TOL_U8).contains(&p[0]) || p[3] < 1.0 - TOL_U8 {
                return Err(Outcome::fail(format!(
                    "interp_at_centroid, min_samples {min_samples}: pixel ({x}, {}) is {p:?}, \
                     expected red in [{x}, {x} + 1) / {W}",
                    i as u32 / W
                )));
            }
        }
        // Window x = 8.3 is NDC 8.3 / 8 - 1; a = 3 (window x - 8).
        let edge = 8.3 / (wf / 2.0) - 1.0;
        let tri = [
            -4.0, -4.0, 0.0, 1.0, edge, -4.0, 0.0, 1.0, edge, 4.0, 0.0, 1.0,
        ];
        bind_program(&mut e, &vs(1.5 * wf, -24.0), &centroid)?;
        clear_color(&mut e, BLACK)?;
        draw(&mut e, &tri, false)?;
        resolve(&mut e, &t.color, &resolved)?;
        let got = read_color(&mut e, &resolved)?;
        for (y, p) in got.iter().skip(8).step_by(W as usize).enumerate() {
            if p[0] > 0.9 / 4.0 + TOL_U8 || (p[3] - 0.25).abs() > TOL_U8 {
                return Err(Outcome::fail(format!(
                    "interp_at_centroid on a partly covered pixel, min_samples {min_samples}: \
                     pixel (8, {y}) is {p:?}, expected red at most 0.225 (a centroid in \
                     [8, 8.3)) and alpha 0.25 (one sample of four)"
                )));
            }
        }
    }
    Ok(())
}
crate::result_case!(
    "pipe.render.msaa.interp_at_sample_centroid",
    interp_at_sample_centroid
);
