//! Every format GL 4.6 core requires for texture buffers and for images,
//! read (and written) by compute shaders:
//!
//! - `pipe.compute.texbuf.formats.*`: the 33 texture buffer formats (GL
//!   4.6 table 8.18). Each must be reported supported as a buffer sampler
//!   view. A buffer holds eight texels at a non-zero offset (the device's
//!   texture buffer offset alignment) behind bytes that must not be read;
//!   a view of that range plus a partial texel (GL counts `floor(size /
//!   texel)` texels) is fetched texel by texel, and the view's size is
//!   queried. Then the bytes are rewritten with `buffer_subdata` after a
//!   second launch, without a flush, and a third launch must see the new
//!   ones. On lavapipe, RGB32F/I/UI views are made from a second buffer
//!   aliasing the memory (the device has them for texture buffers only);
//!   the driver's barriers name both buffers, which synchronization
//!   validation cannot check (it tracks memory, not buffers), but the
//!   values can.
//! - `pipe.compute.image.formats.*`: the 39 image formats (GL 4.6 table
//!   8.27), declared with their layout qualifier in the shader. Each must
//!   be reported supported as a 2D shader image and a buffer image. A
//!   shader loads eight texels of a 2D image and stores each to a buffer
//!   image of the same format: the buffer must then hold the uploaded
//!   bytes (the data avoid the values a load and store do not keep: the
//!   most negative SNORM value and non-finite floats).
//!
//! The `.texel_aliases` variants make every buffer view from a buffer
//! aliasing the memory with one texel usage (`PIPE_VK_DEBUG=texel_aliases`,
//! the path of formats a device supports for one of the two uses), so
//! the storage side of it runs here too (lavapipe has no format that is
//! storage-only).
//!
//! In both, the loaded values' bits are also written to a shader buffer
//! and compared with values decoded here from the uploaded bytes:
//! normalized integers divided by 2^bits - 1 (SNORM: 2^(bits-1) - 1),
//! integers zero- or sign-extended, 16-, 11- and 10-bit floats widened,
//! missing components (0, 0, 1). A texel is read as a little-endian bit
//! string, component c at the bits after those of components 0..c, which
//! is the layout of array formats and of the packed ones alike.

use pipe_core::resource::{BindFlags, PipeBox, ResourceTemplate, Target};
use pipe_core::state::{ImageAccess, ImageView, ImageViewRange, ShaderStage};
use pipe_core::view::{SamplerViewTemplate, ViewRange};
use pipe_core::Format;

use super::compute::{bind_cs, bind_ssbos, bytes_u32, grid, launch, sentinel_buffer};
use crate::harness::{env_with, step, Env};
use crate::{both_paths, Outcome, TestContext};

type R = Result<(), Outcome>;

/// How a format's components read in a shader.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Unorm,
    Snorm,
    /// Floats: 32 and 16 bits signed, 11 and 10 bits unsigned.
    Float,
    Uint,
    Sint,
}

/// A format: pipe format, kind, bits of each component in order.
type Fmt = (Format, Kind, &'static [u32]);

const X8: &[u32] = &[8];
const X16: &[u32] = &[16];
const X32: &[u32] = &[32];
const XY8: &[u32] = &[8, 8];
const XY16: &[u32] = &[16, 16];
const XY32: &[u32] = &[32, 32];
const XYZ32: &[u32] = &[32, 32, 32];
const XYZW8: &[u32] = &[8, 8, 8, 8];
const XYZW16: &[u32] = &[16, 16, 16, 16];
const XYZW32: &[u32] = &[32, 32, 32, 32];
const RGB10A2: &[u32] = &[10, 10, 10, 2];
const R11G11B10: &[u32] = &[11, 11, 10];

/// GL 4.6 table 8.18, internal formats for buffer textures.
const TEXBUF_FORMATS: [Fmt; 33] = [
    (Format::R8Unorm, Kind::Unorm, X8),
    (Format::R16Unorm, Kind::Unorm, X16),
    (Format::R16Float, Kind::Float, X16),
    (Format::R32Float, Kind::Float, X32),
    (Format::R8Sint, Kind::Sint, X8),
    (Format::R16Sint, Kind::Sint, X16),
    (Format::R32Sint, Kind::Sint, X32),
    (Format::R8Uint, Kind::Uint, X8),
    (Format::R16Uint, Kind::Uint, X16),
    (Format::R32Uint, Kind::Uint, X32),
    (Format::R8G8Unorm, Kind::Unorm, XY8),
    (Format::R16G16Unorm, Kind::Unorm, XY16),
    (Format::R16G16Float, Kind::Float, XY16),
    (Format::R32G32Float, Kind::Float, XY32),
    (Format::R8G8Sint, Kind::Sint, XY8),
    (Format::R16G16Sint, Kind::Sint, XY16),
    (Format::R32G32Sint, Kind::Sint, XY32),
    (Format::R8G8Uint, Kind::Uint, XY8),
    (Format::R16G16Uint, Kind::Uint, XY16),
    (Format::R32G32Uint, Kind::Uint, XY32),
    (Format::R32G32B32Float, Kind::Float, XYZ32),
    (Format::R32G32B32Sint, Kind::Sint, XYZ32),
    (Format::R32G32B32Uint, Kind::Uint, XYZ32),
    (Format::R8G8B8A8Unorm, Kind::Unorm, XYZW8),
    (Format::R16G16B16A16Unorm, Kind::Unorm, XYZW16),
    (Format::R16G16B16A16Float, Kind::Float, XYZW16),
    (Format::R32G32B32A32Float, Kind::Float, XYZW32),
    (Format::R8G8B8A8Sint, Kind::Sint, XYZW8),
    (Format::R16G16B16A16Sint, Kind::Sint, XYZW16),
    (Format::R32G32B32A32Sint, Kind::Sint, XYZW32),
    (Format::R8G8B8A8Uint, Kind::Uint, XYZW8),
    (Format::R16G16B16A16Uint, Kind::Uint, XYZW16),
    (Format::R32G32B32A32Uint, Kind::Uint, XYZW32),
];

/// GL 4.6 table 8.27, image formats, with their layout qualifier as the
/// shader IR names it.
const IMAGE_FORMATS: [(Fmt, &str); 39] = [
    ((Format::R32G32B32A32Float, Kind::Float, XYZW32), "rgba32f"),
    ((Format::R16G16B16A16Float, Kind::Float, XYZW16), "rgba16f"),
    ((Format::R32G32Float, Kind::Float, XY32), "rg32f"),
    ((Format::R16G16Float, Kind::Float, XY16), "rg16f"),
    (
        (Format::R11G11B10Float, Kind::Float, R11G11B10),
        "r11f_g11f_b10f",
    ),
    ((Format::R32Float, Kind::Float, X32), "r32f"),
    ((Format::R16Float, Kind::Float, X16), "r16f"),
    ((Format::R32G32B32A32Uint, Kind::Uint, XYZW32), "rgba32ui"),
    ((Format::R16G16B16A16Uint, Kind::Uint, XYZW16), "rgba16ui"),
    ((Format::R10G10B10A2Uint, Kind::Uint, RGB10A2), "rgb10_a2ui"),
    ((Format::R8G8B8A8Uint, Kind::Uint, XYZW8), "rgba8ui"),
    ((Format::R32G32Uint, Kind::Uint, XY32), "rg32ui"),
    ((Format::R16G16Uint, Kind::Uint, XY16), "rg16ui"),
    ((Format::R8G8Uint, Kind::Uint, XY8), "rg8ui"),
    ((Format::R32Uint, Kind::Uint, X32), "r32ui"),
    ((Format::R16Uint, Kind::Uint, X16), "r16ui"),
    ((Format::R8Uint, Kind::Uint, X8), "r8ui"),
    ((Format::R32G32B32A32Sint, Kind::Sint, XYZW32), "rgba32i"),
    ((Format::R16G16B16A16Sint, Kind::Sint, XYZW16), "rgba16i"),
    ((Format::R8G8B8A8Sint, Kind::Sint, XYZW8), "rgba8i"),
    ((Format::R32G32Sint, Kind::Sint, XY32), "rg32i"),
    ((Format::R16G16Sint, Kind::Sint, XY16), "rg16i"),
    ((Format::R8G8Sint, Kind::Sint, XY8), "rg8i"),
    ((Format::R32Sint, Kind::Sint, X32), "r32i"),
    ((Format::R16Sint, Kind::Sint, X16), "r16i"),
    ((Format::R8Sint, Kind::Sint, X8), "r8i"),
    ((Format::R16G16B16A16Unorm, Kind::Unorm, XYZW16), "rgba16"),
    ((Format::R10G10B10A2Unorm, Kind::Unorm, RGB10A2), "rgb10a2"),
    ((Format::R8G8B8A8Unorm, Kind::Unorm, XYZW8), "rgba8"),
    ((Format::R16G16Unorm, Kind::Unorm, XY16), "rg16"),
    ((Format::R8G8Unorm, Kind::Unorm, XY8), "rg8"),
    ((Format::R16Unorm, Kind::Unorm, X16), "r16"),
    ((Format::R8Unorm, Kind::Unorm, X8), "r8"),
    (
        (Format::R16G16B16A16Snorm, Kind::Snorm, XYZW16),
        "rgba16_snorm",
    ),
    ((Format::R8G8B8A8Snorm, Kind::Snorm, XYZW8), "rgba8_snorm"),
    ((Format::R16G16Snorm, Kind::Snorm, XY16), "rg16_snorm"),
    ((Format::R8G8Snorm, Kind::Snorm, XY8), "rg8_snorm"),
    ((Format::R16Snorm, Kind::Snorm, X16), "r16_snorm"),
    ((Format::R8Snorm, Kind::Snorm, X8), "r8_snorm"),
];

/// Texels per test (one invocation each).
const TEXELS: usize = 8;

/// The shader's texel type.
fn texel_type(kind: Kind) -> &'static str {
    match kind {
        Kind::Unorm | Kind::Snorm | Kind::Float => "f32x4",
        Kind::Uint => "u32x4",
        Kind::Sint => "i32x4",
    }
}

/// Shader text storing `%5` (a texel) as raw bits at `o[4 * gid.x]`;
/// `%1` is gid.x.
fn store_texel_bits() -> String {
    let mut s =
        "  %6 : u32x4 = bitcast %5\n  %7 : u32 = const 16\n  %8 : u32 = imul %1, %7\n".to_string();
    for (c, comp) in ["x", "y", "z", "w"].iter().enumerate() {
        let v = 10 + 3 * c;
        s += &format!(
            "  %{v} : u32 = const {}\n  %{} : u32 = iadd %8, %{v}\n  %{} : u32 = swizzle %6, {comp}\n  store_ssbo @o, %{}, %{}\n",
            4 * c,
            v + 1,
            v + 2,
            v + 1,
            v + 2
        );
    }
    s
}

const PROLOGUE: &str = "  %0 : u32x3 = load @gid
  %1 : u32 = swizzle %0, x
  %2 : i32 = bitcast %1
";

/// `o[4i + c] = bits(texelFetch(tb, i)[c])`, and `o[4 * TEXELS] =
/// textureSize(tb)`.
fn texbuf_shader(kind: Kind) -> String {
    let sampled = match kind {
        Kind::Uint => "uint",
        Kind::Sint => "int",
        _ => "float",
    };
    format!(
        "shader compute local_size={TEXELS},1,1
in @gid : u32x3 builtin=global_invocation_id
texture @tb slot=0 dim=buffer sampled={sampled}
ssbo @o slot=0
fn main {{
{PROLOGUE}  %5 : {} = txf @tb, coord=%2
{}  %30 : i32 = txs @tb
  %31 : u32 = bitcast %30
  %32 : u32 = const 0
  %33 : bool = ieq %1, %32
  if %33 {{
    %34 : u32 = const {}
    store_ssbo @o, %34, %31
  }}
}}
",
        texel_type(kind),
        store_texel_bits(),
        16 * TEXELS
    )
}

/// `dst[i] = src[i, 0]` and `o[4i + c] = bits(src[i, 0][c])`.
fn image_shader(kind: Kind, name: &str) -> String {
    format!(
        "shader compute local_size={TEXELS},1,1
in @gid : u32x3 builtin=global_invocation_id
image @src slot=0 dim=2d format={name} readonly
image @dst slot=1 dim=buffer format={name} writeonly
ssbo @o slot=0
fn main {{
{PROLOGUE}  %3 : i32 = const 0
  %4 : i32x2 = vec %2, %3
  %5 : {} = image_load @src, %4
  image_store @dst, %2, %5
{}}}
",
        texel_type(kind),
        store_texel_bits()
    )
}

/// A pattern value for component `i` of a texel stream.
fn pattern(i: u32, seed: u32) -> u32 {
    (i + 1)
        .wrapping_mul(0x9e37_79b9)
        .wrapping_add(seed.wrapping_mul(0x85eb_ca6b))
        .rotate_left(13)
}

/// A component's raw bits: finite, normal floats (the 11- and 10-bit
/// ones have no sign), no most negative SNORM value.
fn component_bits(kind: Kind, bits: u32, p: u32) -> u64 {
    let mask = (1u64 << bits) - 1;
    match (kind, bits) {
        (Kind::Float, 32) => {
            let sign = (p >> 7) & 1;
            let exp = 100 + (p >> 9) % 60;
            u64::from(sign << 31 | exp << 23 | (p.wrapping_mul(2_654_435_761) & 0x7f_ffff))
        }
        (Kind::Float, _) => {
            // 16 bits: sign, 5-bit exponent, 10-bit mantissa; 11 and 10:
            // no sign, 6- and 5-bit mantissas.
            let man_bits = if bits == 16 { 10 } else { bits - 5 };
            let sign = if bits == 16 { (p >> 20) & 1 } else { 0 };
            let exp = 1 + (p >> 12) % 30;
            u64::from(sign << 15 | exp << man_bits | (p & ((1 << man_bits) - 1)))
        }
        (Kind::Snorm, _) => {
            let v = u64::from(p) & mask;
            if v == 1 << (bits - 1) {
                v + 1
            } else {
                v
            }
        }
        _ => u64::from(p) & mask,
    }
}

/// The bytes of `TEXELS` texels of `fmt`, values from `seed`.
fn texel_bytes((_, kind, bits): Fmt, seed: u32) -> Vec<u8> {
    let size = (bits.iter().sum::<u32>() / 8) as usize;
    let mut out = Vec::new();
    for t in 0..TEXELS as u32 {
        let mut v = 0u128;
        let mut off = 0;
        for (c, &b) in bits.iter().enumerate() {
            let p = pattern(t * 4 + c as u32, seed);
            v |= u128::from(component_bits(kind, b, p)) << off;
            off += b;
        }
        out.extend_from_slice(&v.to_le_bytes()[..size]);
    }
    out
}

/// Widens an unsigned 11- or 10-bit float, or a 16-bit one.
fn small_float(raw: u64, bits: u32) -> f32 {
    let man_bits = if bits == 16 { 10 } else { bits - 5 };
    let sign = if bits == 16 && raw >> 15 & 1 == 1 {
        -1.0
    } else {
        1.0
    };
    let exp = ((raw >> man_bits) & 0x1f) as i32;
    let man = (raw & ((1 << man_bits) - 1)) as f64;
    (sign * 2f64.powi(exp - 15) * (1.0 + man / f64::from(1u32 << man_bits))) as f32
}

/// The four component values texel reads give, as they read in the
/// shader (floats as f32, integers as their 32-bit patterns).
enum Want {
    Float([f32; 4]),
    Int([u32; 4]),
}

fn decode((_, kind, bits): Fmt, bytes: &[u8]) -> Vec<Want> {
    let size = (bits.iter().sum::<u32>() / 8) as usize;
    bytes
        .chunks_exact(size)
        .map(|t| {
            let mut le = [0u8; 16];
            le[..size].copy_from_slice(t);
            let v = u128::from_le_bytes(le);
            let mut off = 0;
            let comps: Vec<(u64, u32)> = bits
                .iter()
                .map(|&b| {
                    let r = ((v >> off) as u64) & ((1u64 << b) - 1);
                    off += b;
                    (r, b)
                })
                .collect();
            match kind {
                Kind::Uint | Kind::Sint => {
                    let mut w = [0, 0, 0, 1];
                    for (slot, &(r, b)) in w.iter_mut().zip(&comps) {
                        *slot = if kind == Kind::Sint {
                            (((r << (64 - b)) as i64) >> (64 - b)) as u32
                        } else {
                            r as u32
                        };
                    }
                    Want::Int(w)
                }
                _ => {
                    let mut w = [0.0, 0.0, 0.0, 1.0];
                    for (slot, &(r, b)) in w.iter_mut().zip(&comps) {
                        *slot = match kind {
                            Kind::Unorm => (r as f64 / ((1u64 << b) - 1) as f64) as f32,
                            Kind::Snorm => {
                                let s = ((r << (64 - b)) as i64) >> (64 - b);
                                (s as f64 / ((1i64 << (b - 1)) - 1) as f64).max(-1.0) as f32
                            }
                            _ if b == 32 => f32::from_bits(r as u32),
                            _ => small_float(r, b),
                        };
                    }
                    Want::Float(w)
                }
            }
        })
        .collect()
}

fn compare(what: &str, got: &[u32], want: &[Want]) -> R {
    for (i, w) in want.iter().enumerate() {
        let g = &got[4 * i..4 * i + 4];
        let (bad, got_s, want_s) = match w {
            Want::Int(v) => (g != v, format!("{g:08x?}"), format!("{v:08x?}")),
            Want::Float(v) => {
                let gf: Vec<f32> = g.iter().map(|b| f32::from_bits(*b)).collect();
                let bad = gf
                    .iter()
                    .zip(v)
                    .any(|(g, v)| (g - v).abs() > v.abs() * 1e-6 + 1e-7);
                (bad, format!("{gf:?}"), format!("{v:?}"))
            }
        };
        if bad {
            return Err(Outcome::fail(format!(
                "{what}: texel {i}: got {got_s}, expected {want_s}"
            )));
        }
    }
    Ok(())
}

/// A shader buffer of sentinels for the texel bits (and one word more),
/// bound at compute slot 0.
fn bind_output(e: &mut Env) -> Result<pipe_core::Resource, Outcome> {
    let out = sentinel_buffer(e, 4 * TEXELS as u32 + 1)?;
    bind_ssbos(e, &[&out], 1)?;
    Ok(out)
}

/// One workgroup of `TEXELS` invocations.
fn launch_texels(e: &mut Env) -> R {
    launch(e, &grid([TEXELS as u32, 1, 1], [1, 1, 1]))
}

/// Fails naming the formats `bind` is not supported for on `target`.
fn check_supported<'a>(
    e: &Env,
    formats: impl Iterator<Item = &'a Fmt>,
    target: Target,
    bind: BindFlags,
    what: &str,
) -> R {
    let unsupported: Vec<String> = formats
        .filter(|(f, ..)| !e.screen.is_format_supported(*f, target, 1, 1, bind))
        .map(|(f, ..)| f.to_string())
        .collect();
    if unsupported.is_empty() {
        Ok(())
    } else {
        Err(Outcome::fail(format!(
            "{what} GL 4.6 requires are reported unsupported: {}",
            unsupported.join(", ")
        )))
    }
}

/// Fetches, checks, rewrites without a flush, fetches and checks again.
fn one_texbuf(e: &mut Env, index: u32, fmt: Fmt, align: u32) -> R {
    let (format, kind, bits) = fmt;
    let texel = bits.iter().sum::<u32>() / 8;
    let size = TEXELS as u32 * texel;
    // Bytes before and after the range that a fetch must not see.
    let buf = e.buffer_with(&vec![0xa5; (align + size + 16) as usize])?;
    let first = texel_bytes(fmt, index);
    e.subdata(&buf, align, &first)?;
    let view = step(
        "create_sampler_view",
        e.ctx.create_sampler_view(
            &buf,
            &SamplerViewTemplate {
                format,
                // A partial texel at the end is not part of the view.
                range: ViewRange::Buffer {
                    offset: align,
                    size: size + texel - 1,
                },
                ..SamplerViewTemplate::whole(buf.desc())
            },
        ),
    )?;
    step(
        "set_sampler_views",
        e.ctx
            .set_sampler_views(ShaderStage::Compute, 0, &[Some(view)], 0),
    )?;
    bind_cs(e, &texbuf_shader(kind))?;
    let out = bind_output(e)?;
    launch_texels(e)?;
    let got = bytes_u32(&e.read_buffer(&out, 0, 16 * TEXELS as u32 + 4)?);
    if got[4 * TEXELS] != TEXELS as u32 {
        return Err(Outcome::fail(format!(
            "{format}: a view of {} bytes has {} texels, expected {TEXELS}",
            size + texel - 1,
            got[4 * TEXELS]
        )));
    }
    compare(
        &format!("{format}, first contents"),
        &got,
        &decode(fmt, &first),
    )?;
    // The write waits for the read above through the view's buffer.
    let second = texel_bytes(fmt, index + 1000);
    launch_texels(e)?;
    e.subdata(&buf, align, &second)?;
    launch_texels(e)?;
    let got = bytes_u32(&e.read_buffer(&out, 0, 16 * TEXELS as u32)?);
    compare(
        &format!("{format}, rewritten contents"),
        &got,
        &decode(fmt, &second),
    )
}

fn texbuf_formats(ctx: &mut TestContext, staging: bool, aliases: bool) -> R {
    let mut e = env_with(ctx, |o| {
        o.staging = Some(staging);
        o.texel_aliases = Some(aliases);
    })?;
    let align = e.screen.caps().texture_buffer_offset_alignment.max(4);
    check_supported(
        &e,
        TEXBUF_FORMATS.iter(),
        Target::Buffer,
        BindFlags::SAMPLER_VIEW,
        "texture buffers",
    )?;
    for (i, f) in TEXBUF_FORMATS.into_iter().enumerate() {
        one_texbuf(&mut e, i as u32, f, align)?;
    }
    Ok(())
}
both_paths!("pipe.compute.texbuf.formats", texbuf_formats, false);
both_paths!(
    "pipe.compute.texbuf.formats.texel_aliases",
    texbuf_formats,
    true
);

/// Loads a 2D image's texels, stores them to a buffer image, checks both.
fn one_image(e: &mut Env, index: u32, fmt: Fmt, name: &str) -> R {
    let (format, kind, bits) = fmt;
    let texel = bits.iter().sum::<u32>() / 8;
    let data = texel_bytes(fmt, index);
    let t = ResourceTemplate::texture_2d(format, TEXELS as u32, 1, BindFlags::SHADER_IMAGE);
    let src = e.texture(&t)?;
    e.write_texture(&src, 0, &PipeBox::rect(0, 0, TEXELS as u32, 1), &data)?;
    let dst = e.buffer_with(&vec![0xa5; TEXELS * texel as usize])?;
    let view = |resource: &pipe_core::Resource, access, range| ImageView {
        resource: resource.clone(),
        format,
        access,
        shader_access: access,
        range,
    };
    let images = [
        Some(view(
            &src,
            ImageAccess::READ,
            ImageViewRange::Texture {
                level: 0,
                first_layer: 0,
                last_layer: 0,
            },
        )),
        Some(view(
            &dst,
            ImageAccess::WRITE,
            ImageViewRange::Buffer {
                offset: 0,
                size: TEXELS as u32 * texel,
            },
        )),
    ];
    step(
        "set_shader_images",
        e.ctx.set_shader_images(ShaderStage::Compute, 0, &images, 0),
    )?;
    bind_cs(e, &image_shader(kind, name))?;
    let out = bind_output(e)?;
    launch_texels(e)?;
    let got = bytes_u32(&e.read_buffer(&out, 0, 16 * TEXELS as u32)?);
    compare(&format!("{format} image_load"), &got, &decode(fmt, &data))?;
    let stored = e.read_buffer(&dst, 0, TEXELS as u32 * texel)?;
    if stored != data {
        let i = stored.iter().zip(&data).position(|(a, b)| a != b);
        return Err(Outcome::fail(format!(
            "{format}: the buffer image holds {stored:02x?}, expected the loaded bytes \
             {data:02x?} (first difference at byte {i:?})"
        )));
    }
    Ok(())
}

fn image_formats(ctx: &mut TestContext, staging: bool, aliases: bool) -> R {
    let mut e = env_with(ctx, |o| {
        o.staging = Some(staging);
        o.texel_aliases = Some(aliases);
    })?;
    let formats = || IMAGE_FORMATS.iter().map(|(f, _)| f);
    check_supported(
        &e,
        formats(),
        Target::Texture2D,
        BindFlags::SHADER_IMAGE,
        "2D images",
    )?;
    check_supported(
        &e,
        formats(),
        Target::Buffer,
        BindFlags::SHADER_IMAGE,
        "buffer images",
    )?;
    for (i, (f, name)) in IMAGE_FORMATS.into_iter().enumerate() {
        one_image(&mut e, i as u32, f, name)?;
    }
    Ok(())
}
both_paths!("pipe.compute.image.formats", image_formats, false);
both_paths!(
    "pipe.compute.image.formats.texel_aliases",
    image_formats,
    true
);
