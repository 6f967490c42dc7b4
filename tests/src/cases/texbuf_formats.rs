//! `pipe.compute.texbuf.formats.*`: texture buffers of every format GL 4.6
//! core allows (GL 4.6 table 8.18, "Internal formats for buffer
//! textures"), fetched by a compute shader.
//!
//! Each format must be reported supported as a buffer sampler view (GL
//! requires all 33). For each, a buffer holds eight texels at a non-zero
//! offset (the device's texture buffer offset alignment) behind bytes that
//! must not be read; a view of that range is fetched texel by texel, and
//! the four components are written, as raw bits, to a shader buffer.
//! The expected values are decoded here from the uploaded bytes:
//! normalized integers divided by 2^bits - 1, integers zero- or
//! sign-extended, half floats widened, and missing components (0, 0, 1).
//! Then the bytes are rewritten with `buffer_subdata` after a second
//! launch, without a flush, and a third launch must see the new ones. On
//! lavapipe, RGB32F/I/UI views are made from a second buffer aliasing the
//! memory (the device has them for texture buffers only); the driver's
//! barriers name both buffers, which synchronization validation cannot
//! check (it tracks memory, not buffers), but the values can.

use std::sync::Arc;

use pipe_core::resource::{BindFlags, Target};
use pipe_core::shader::{ComputeState, GridInfo, ShaderCode};
use pipe_core::state::{ShaderBuffer, ShaderStage};
use pipe_core::view::{SamplerViewTemplate, ViewRange};
use pipe_core::Format;

use crate::harness::{env, step, Env};
use crate::{both_paths, Outcome, TestContext};

type R = Result<(), Outcome>;

/// How a format's components read in a shader.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Unorm,
    Float,
    Uint,
    Sint,
}

/// GL 4.6 table 8.18: format, component kind, components, bits each.
const FORMATS: [(Format, Kind, usize, usize); 33] = [
    (Format::R8Unorm, Kind::Unorm, 1, 8),
    (Format::R16Unorm, Kind::Unorm, 1, 16),
    (Format::R16Float, Kind::Float, 1, 16),
    (Format::R32Float, Kind::Float, 1, 32),
    (Format::R8Sint, Kind::Sint, 1, 8),
    (Format::R16Sint, Kind::Sint, 1, 16),
    (Format::R32Sint, Kind::Sint, 1, 32),
    (Format::R8Uint, Kind::Uint, 1, 8),
    (Format::R16Uint, Kind::Uint, 1, 16),
    (Format::R32Uint, Kind::Uint, 1, 32),
    (Format::R8G8Unorm, Kind::Unorm, 2, 8),
    (Format::R16G16Unorm, Kind::Unorm, 2, 16),
    (Format::R16G16Float, Kind::Float, 2, 16),
    (Format::R32G32Float, Kind::Float, 2, 32),
    (Format::R8G8Sint, Kind::Sint, 2, 8),
    (Format::R16G16Sint, Kind::Sint, 2, 16),
    (Format::R32G32Sint, Kind::Sint, 2, 32),
    (Format::R8G8Uint, Kind::Uint, 2, 8),
    (Format::R16G16Uint, Kind::Uint, 2, 16),
    (Format::R32G32Uint, Kind::Uint, 2, 32),
    (Format::R32G32B32Float, Kind::Float, 3, 32),
    (Format::R32G32B32Sint, Kind::Sint, 3, 32),
    (Format::R32G32B32Uint, Kind::Uint, 3, 32),
    (Format::R8G8B8A8Unorm, Kind::Unorm, 4, 8),
    (Format::R16G16B16A16Unorm, Kind::Unorm, 4, 16),
    (Format::R16G16B16A16Float, Kind::Float, 4, 16),
    (Format::R32G32B32A32Float, Kind::Float, 4, 32),
    (Format::R8G8B8A8Sint, Kind::Sint, 4, 8),
    (Format::R16G16B16A16Sint, Kind::Sint, 4, 16),
    (Format::R32G32B32A32Sint, Kind::Sint, 4, 32),
    (Format::R8G8B8A8Uint, Kind::Uint, 4, 8),
    (Format::R16G16B16A16Uint, Kind::Uint, 4, 16),
    (Format::R32G32B32A32Uint, Kind::Uint, 4, 32),
];

/// Texels per view (one invocation each).
const TEXELS: usize = 8;

const SENTINEL: u32 = 0xdead_beef;

/// `o[4i + c] = bits(texelFetch(tb, i)[c])` for invocation i.
fn shader(kind: Kind) -> String {
    let (sampled, ty) = match kind {
        Kind::Unorm | Kind::Float => ("float", "f32x4"),
        Kind::Uint => ("uint", "u32x4"),
        Kind::Sint => ("int", "i32x4"),
    };
    let mut s = format!(
        "shader compute local_size={TEXELS},1,1
in @gid : u32x3 builtin=global_invocation_id
texture @tb slot=0 dim=buffer sampled={sampled}
ssbo @o slot=0
fn main {{
  %0 : u32x3 = load @gid
  %1 : u32 = swizzle %0, x
  %2 : i32 = bitcast %1
  %3 : {ty} = txf @tb, coord=%2
  %4 : u32x4 = bitcast %3
  %5 : u32 = const 16
  %6 : u32 = imul %1, %5
"
    );
    for (c, comp) in ["x", "y", "z", "w"].iter().enumerate() {
        let v = 10 + 3 * c;
        s += &format!(
            "  %{v} : u32 = const {}
  %{} : u32 = iadd %6, %{v}
  %{} : u32 = swizzle %4, {comp}
  store_ssbo @o, %{}, %{}
",
            4 * c,
            v + 1,
            v + 2,
            v + 1,
            v + 2
        );
    }
    // Invocation 0 also stores the view's size in texels.
    s + &format!(
        "  %30 : i32 = txs @tb
  %31 : u32 = bitcast %30
  %32 : u32 = const 0
  %33 : bool = ieq %1, %32
  if %33 {{
    %34 : u32 = const {}
    store_ssbo @o, %34, %31
  }}
}}
",
        16 * TEXELS
    )
}

/// A finite, normal half float (sign, exponent 1..=30, mantissa) from a
/// pattern value.
fn half_bits(p: u32) -> u16 {
    let sign = (p >> 20) & 1;
    let exp = 1 + (p >> 10) % 30;
    (sign << 15 | exp << 10 | (p & 0x3ff)) as u16
}

/// A finite, normal float of moderate range from a pattern value.
fn float_bits(p: u32) -> u32 {
    let sign = (p >> 7) & 1;
    let exp = 100 + (p >> 9) % 60;
    sign << 31 | exp << 23 | (p.wrapping_mul(2_654_435_761) & 0x7f_ffff)
}

/// Widens a (finite, normal) half float.
fn half_to_f32(h: u16) -> f32 {
    let sign = u32::from(h >> 15) << 31;
    let exp = u32::from((h >> 10) & 0x1f);
    let mant = u32::from(h & 0x3ff);
    f32::from_bits(sign | (exp + 127 - 15) << 23 | mant << 13)
}

/// The bytes of `TEXELS` texels: component values from `seed`.
fn texel_bytes(kind: Kind, comps: usize, bits: usize, seed: u32) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..(TEXELS * comps) as u32 {
        let p = (i + 1)
            .wrapping_mul(0x9e37_79b9)
            .wrapping_add(seed.wrapping_mul(0x85eb_ca6b))
            .rotate_left(13);
        match (kind, bits) {
            (Kind::Float, 16) => out.extend(half_bits(p).to_le_bytes()),
            (Kind::Float, _) => out.extend(float_bits(p).to_le_bytes()),
            (_, 8) => out.push(p as u8),
            (_, 16) => out.extend((p as u16).to_le_bytes()),
            _ => out.extend(p.to_le_bytes()),
        }
    }
    out
}

/// The four component values texel fetches give, as they read in the
/// shader (floats as f32, integers as their 32-bit patterns).
enum Want {
    Float([f32; 4]),
    Int([u32; 4]),
}

fn decode(kind: Kind, comps: usize, bits: usize, bytes: &[u8]) -> Vec<Want> {
    let size = comps * bits / 8;
    bytes
        .chunks_exact(size)
        .map(|t| {
            let raw = |c: usize| -> u64 {
                let b = &t[c * bits / 8..(c + 1) * bits / 8];
                b.iter()
                    .rev()
                    .fold(0u64, |acc, &x| (acc << 8) | u64::from(x))
            };
            match kind {
                Kind::Unorm | Kind::Float => {
                    let mut v = [0.0, 0.0, 0.0, 1.0];
                    for (c, slot) in v.iter_mut().enumerate().take(comps) {
                        let r = raw(c);
                        *slot = match (kind, bits) {
                            (Kind::Unorm, _) => (r as f64 / ((1u64 << bits) - 1) as f64) as f32,
                            (_, 16) => half_to_f32(r as u16),
                            _ => f32::from_bits(r as u32),
                        };
                    }
                    Want::Float(v)
                }
                Kind::Uint | Kind::Sint => {
                    let mut v = [0, 0, 0, 1];
                    for (c, slot) in v.iter_mut().enumerate().take(comps) {
                        let r = raw(c);
                        *slot = if kind == Kind::Sint {
                            // Sign-extend from `bits`.
                            let shift = 64 - bits;
                            (((r << shift) as i64) >> shift) as u32
                        } else {
                            r as u32
                        };
                    }
                    Want::Int(v)
                }
            }
        })
        .collect()
}

fn compare(what: &str, got: &[u32], want: &[Want]) -> R {
    for (i, w) in want.iter().enumerate() {
        let g = &got[4 * i..4 * i + 4];
        let bad = match w {
            Want::Int(v) => g != v,
            Want::Float(v) => g
                .iter()
                .zip(v)
                .any(|(g, v)| (f32::from_bits(*g) - v).abs() > v.abs() * 1e-6 + 1e-7),
        };
        if bad {
            let got_s = match w {
                Want::Int(_) => format!("{g:08x?}"),
                Want::Float(_) => format!(
                    "{:?}",
                    g.iter().map(|b| f32::from_bits(*b)).collect::<Vec<_>>()
                ),
            };
            let want_s = match w {
                Want::Int(v) => format!("{v:08x?}"),
                Want::Float(v) => format!("{v:?}"),
            };
            return Err(Outcome::fail(format!(
                "{what}: texel {i}: got {got_s}, expected {want_s}"
            )));
        }
    }
    Ok(())
}

fn bind_cs(e: &mut Env, src: &str) -> R {
    let ir =
        spirv_gen::text::parse(src).map_err(|err| Outcome::fail(format!("test shader: {err}")))?;
    let h = step(
        "create_compute_state",
        e.ctx.create_compute_state(&ComputeState {
            code: ShaderCode::Ir(Arc::new(ir)),
            static_shared_mem: 0,
            req_input_mem: 0,
        }),
    )?;
    step("bind_compute_state", e.ctx.bind_compute_state(Some(h)))
}

fn bytes_u32(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Fetches, checks, rewrites without a flush, fetches and checks again.
fn one_format(
    e: &mut Env,
    index: u32,
    (format, kind, comps, bits): (Format, Kind, usize, usize),
    align: u32,
) -> R {
    let texel = (comps * bits / 8) as u32;
    let size = TEXELS as u32 * texel;
    // Bytes before and after the range that a fetch must not see.
    let buf = e.buffer_with(&vec![0xa5; (align + size + 16) as usize])?;
    let first = texel_bytes(kind, comps, bits, index);
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
    bind_cs(e, &shader(kind))?;
    let out = e.buffer_with(
        &[SENTINEL; 4 * TEXELS + 1]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<_>>(),
    )?;
    step(
        "set_shader_buffers",
        e.ctx.set_shader_buffers(
            ShaderStage::Compute,
            0,
            &[Some(ShaderBuffer {
                buffer: out.clone(),
                buffer_offset: 0,
                buffer_size: out.desc().width0,
            })],
            1,
        ),
    )?;
    let grid = GridInfo {
        block: [TEXELS as u32, 1, 1],
        grid: [1, 1, 1],
        ..Default::default()
    };
    step("launch_grid", e.ctx.launch_grid(&grid))?;
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
        &decode(kind, comps, bits, &first),
    )?;
    // The write waits for the read above through the view's buffer.
    let second = texel_bytes(kind, comps, bits, index + 1000);
    step("launch_grid", e.ctx.launch_grid(&grid))?;
    e.subdata(&buf, align, &second)?;
    step("launch_grid", e.ctx.launch_grid(&grid))?;
    let got = bytes_u32(&e.read_buffer(&out, 0, 16 * TEXELS as u32)?);
    compare(
        &format!("{format}, rewritten contents"),
        &got,
        &decode(kind, comps, bits, &second),
    )
}

fn formats(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let align = e.screen.caps().texture_buffer_offset_alignment.max(4);
    let unsupported: Vec<String> = FORMATS
        .iter()
        .filter(|(f, ..)| {
            !e.screen
                .is_format_supported(*f, Target::Buffer, 1, 1, BindFlags::SAMPLER_VIEW)
        })
        .map(|(f, ..)| f.to_string())
        .collect();
    if !unsupported.is_empty() {
        return Err(Outcome::fail(format!(
            "texture buffers GL 4.6 requires are reported unsupported: {}",
            unsupported.join(", ")
        )));
    }
    for (i, f) in FORMATS.into_iter().enumerate() {
        one_format(&mut e, i as u32, f, align)?;
    }
    Ok(())
}
both_paths!("pipe.compute.texbuf.formats", formats);
