//! `pipe.draw.vertex_format.gl.<type>.{native,fixup}`: every vertex
//! format st/mesa hands a Gallium driver for `glVertexAttrib*Pointer`
//! (Mesa's `st_atom_array.c` format table): each GL type in each size,
//! normalized, scaled and pure-integer, GL_FIXED, GL_DOUBLE converted to
//! float, the packed 10/10/10/2 formats in both component orders, BGRA
//! and 10F/11F/11F. `.native` lets the device fetch what it can; `.fixup`
//! forces pipe-vk's shader fix-up wherever one exists
//! (`PIPE_VK_DEBUG=vertex_fixups`). `.spirv` forces them too, with the
//! vertex shader given as SPIR-V (ARB_gl_spirv passthrough), which pipe-vk
//! patches (`spirv_gen::patch`): spirv-gen's own SPIR-V for the shader
//! below (SPIR-V 1.3 and 1.6 in turn), and for float inputs also a
//! glslang-style module (`vertex_format_spirv.spvasm`: access chains, two
//! inputs sharing the location, a helper function; SPIR-V 1.0).
//!
//! Each format gets one attribute whose components hold edge values
//! (the largest and smallest of the type, -1, 1, ...); the expected
//! value is decoded here from the format's definition, with GL's
//! defaults (0, 0, 1) for missing components, and compared with what
//! the vertex shader reads (written to an RGBA32F target by
//! `vertex_format::attrib_draw`).

use std::sync::Arc;

use pipe_core::shader::{ShaderCode, ShaderState, StreamOutputInfo};
use pipe_core::state::ShaderStage;
use pipe_core::Format;
use spirv_gen::emit::Target;

use super::vertex_format::attrib_draw;
use crate::harness::{env_with, shader, spirv_shader};
use crate::{test_case, Outcome, TestContext};

type R = Result<(), Outcome>;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Unorm,
    Snorm,
    Uscaled,
    Sscaled,
    Uint,
    Sint,
    Float,
    Fixed,
}

/// One format to test: its bytes and what the shader must read.
struct Attr {
    format: Format,
    bytes: Vec<u8>,
    want: [f32; 4],
    /// The shader input's type: `f32x4`, `u32x4` or `i32x4`.
    input: &'static str,
}

/// Raw component values of an integer type of `bits` bits.
fn int_values(signed: bool, bits: u32) -> [i64; 4] {
    if signed {
        let max = (1i64 << (bits - 1)) - 1;
        [max, -max - 1, -1, 1]
    } else {
        let max = (1i64 << bits) - 1;
        [max, 0, max / 3, 1]
    }
}

/// Little-endian bytes of `v` in `bits` bits.
fn le(v: i64, bits: u32) -> Vec<u8> {
    v.to_le_bytes()[..(bits / 8) as usize].to_vec()
}

/// GL's defaults for components the format lacks.
fn with_defaults(mut v: Vec<f32>) -> [f32; 4] {
    let d = [0.0, 0.0, 0.0, 1.0];
    v.extend_from_slice(&d[v.len().min(4)..]);
    [v[0], v[1], v[2], v[3]]
}

/// The array formats of a GL type: `bits`-bit components of `kind`, in
/// one to four components.
fn array_formats(kind: Kind, bits: u32) -> Vec<Attr> {
    let suffix = match kind {
        Kind::Unorm => "UNORM",
        Kind::Snorm => "SNORM",
        Kind::Uscaled => "USCALED",
        Kind::Sscaled => "SSCALED",
        Kind::Uint => "UINT",
        Kind::Sint => "SINT",
        Kind::Float => "FLOAT",
        Kind::Fixed => "FIXED",
    };
    let signed = matches!(kind, Kind::Snorm | Kind::Sscaled | Kind::Sint | Kind::Fixed);
    (1..=4usize)
        .map(|n| {
            let name: String = ["R", "G", "B", "A"][..n]
                .iter()
                .map(|c| format!("{c}{bits}"))
                .collect();
            let format = Format::from_name(&format!("PIPE_FORMAT_{name}_{suffix}"))
                .unwrap_or_else(|| panic!("no format {name}_{suffix}"));
            let (bytes, vals): (Vec<u8>, Vec<f32>) = match (kind, bits) {
                (Kind::Float, 16) => {
                    // 1.5, -2.0, 0.25, 65504 (the largest half).
                    let h = [0x3e00i64, 0xc000, 0x3400, 0x7bff];
                    let v = [1.5, -2.0, 0.25, 65504.0];
                    (
                        h[..n].iter().flat_map(|&x| le(x, 16)).collect(),
                        v[..n].to_vec(),
                    )
                }
                (Kind::Float, 32) => {
                    let v = [1.5f32, -2.0, 3.0e9, 1.0e-3];
                    (
                        v[..n].iter().flat_map(|x| x.to_le_bytes()).collect(),
                        v[..n].to_vec(),
                    )
                }
                (Kind::Float, _) => {
                    // GL_DOUBLE converted to float: rounded to nearest.
                    let v = [1.5f64, -2.0, 3.0e9, 0.1];
                    (
                        v[..n].iter().flat_map(|x| x.to_le_bytes()).collect(),
                        v[..n].iter().map(|&x| x as f32).collect(),
                    )
                }
                (Kind::Fixed, _) => {
                    let v = [98304i64, -131072, 1, i64::from(i32::MAX)];
                    (
                        v[..n].iter().flat_map(|&x| le(x, 32)).collect(),
                        v[..n]
                            .iter()
                            .map(|&x| (x as f64 / 65536.0) as f32)
                            .collect(),
                    )
                }
                _ => {
                    let v = int_values(signed, bits);
                    let max_s = ((1i64 << (bits - 1)) - 1) as f64;
                    let max_u = ((1i64 << bits) - 1) as f64;
                    let decode = |x: i64| match kind {
                        Kind::Unorm => (x as f64 / max_u) as f32,
                        Kind::Snorm => (x as f64 / max_s).max(-1.0) as f32,
                        _ => x as f32,
                    };
                    (
                        v[..n].iter().flat_map(|&x| le(x, bits)).collect(),
                        v[..n].iter().map(|&x| decode(x)).collect(),
                    )
                }
            };
            Attr {
                format,
                bytes,
                want: with_defaults(vals),
                input: match kind {
                    Kind::Uint => "u32x4",
                    Kind::Sint => "i32x4",
                    _ => "f32x4",
                },
            }
        })
        .collect()
}

/// The packed 10/10/10/2 formats, fields from the lowest bits; a
/// `B10G10R10A2` format's first field is blue.
fn packed_formats() -> Vec<Attr> {
    let pack = |f: [i64; 4]| -> Vec<u8> {
        let m = |v: i64, bits: u32| (v as u32) & ((1u32 << bits) - 1);
        (m(f[0], 10) | m(f[1], 10) << 10 | m(f[2], 10) << 20 | m(f[3], 2) << 30)
            .to_le_bytes()
            .to_vec()
    };
    let mut out = Vec::new();
    for bgra in [false, true] {
        for kind in [Kind::Unorm, Kind::Snorm, Kind::Uscaled, Kind::Sscaled] {
            let signed = matches!(kind, Kind::Snorm | Kind::Sscaled);
            let fields = if signed {
                [511, -512, -1, 1]
            } else {
                [1023, 0, 341, 2]
            };
            let decode = |v: i64, bits: u32| match kind {
                Kind::Unorm => (v as f64 / ((1i64 << bits) - 1) as f64) as f32,
                Kind::Snorm => (v as f64 / ((1i64 << (bits - 1)) - 1) as f64).max(-1.0) as f32,
                _ => v as f32,
            };
            let f = [
                decode(fields[0], 10),
                decode(fields[1], 10),
                decode(fields[2], 10),
                decode(fields[3], 2),
            ];
            let want = if bgra { [f[2], f[1], f[0], f[3]] } else { f };
            let name = format!(
                "PIPE_FORMAT_{}10G10{}10A2_{}",
                if bgra { "B" } else { "R" },
                if bgra { "R" } else { "B" },
                ["UNORM", "SNORM", "USCALED", "SSCALED"][kind as usize]
            );
            out.push(Attr {
                format: Format::from_name(&name).unwrap_or_else(|| panic!("no format {name}")),
                bytes: pack(fields),
                want,
                input: "f32x4",
            });
        }
    }
    out
}

fn formats_of(ty: &str) -> Vec<Attr> {
    use Kind::*;
    let arrays = |kinds: &[Kind], bits| {
        kinds
            .iter()
            .flat_map(|&k| array_formats(k, bits))
            .collect::<Vec<_>>()
    };
    match ty {
        "byte" => arrays(&[Sscaled, Snorm, Sint], 8),
        "unsigned_byte" => arrays(&[Uscaled, Unorm, Uint], 8),
        "short" => arrays(&[Sscaled, Snorm, Sint], 16),
        "unsigned_short" => arrays(&[Uscaled, Unorm, Uint], 16),
        "int" => arrays(&[Sscaled, Snorm, Sint], 32),
        "unsigned_int" => arrays(&[Uscaled, Unorm, Uint], 32),
        "half_float" => arrays(&[Float], 16),
        "float" => arrays(&[Float], 32),
        "double" => arrays(&[Float], 64),
        "fixed" => arrays(&[Fixed], 32),
        "int_2_10_10_10_rev" => packed_formats(),
        "bgra" => vec![Attr {
            format: Format::B8G8R8A8Unorm,
            bytes: vec![51, 102, 204, 255],
            want: [204.0 / 255.0, 102.0 / 255.0, 51.0 / 255.0, 1.0],
            input: "f32x4",
        }],
        "unsigned_int_10f_11f_11f_rev" => {
            // r = 1.5 (11-bit: exponent 15, mantissa 32 of 64), g = 0.5
            // (exponent 14), b = 2.0 (10-bit: exponent 16).
            let bits: u32 = (15 << 6 | 32) | (14 << 6) << 11 | (16 << 5) << 22;
            vec![Attr {
                format: Format::R11G11B10Float,
                bytes: bits.to_le_bytes().to_vec(),
                want: [1.5, 0.5, 2.0, 1.0],
                input: "f32x4",
            }]
        }
        _ => Vec::new(),
    }
}

/// Writes attribute 1, converted to float, to the colour.
fn vs(input: &str) -> String {
    let conv = match input {
        "u32x4" => "  %2 : f32x4 = u2f %1\n",
        "i32x4" => "  %2 : f32x4 = i2f %1\n",
        _ => "  %2 : f32x4 = mov %1\n",
    };
    format!(
        "shader vertex
in @pos : f32x4 location=0
in @a : {input} location=1
out @gl_pos : f32x4 builtin=position
out @c : f32x4 location=0
fn main {{
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  %1 : {input} = load @a
{conv}  store @c, %2
}}
"
    )
}

/// How a case gives its vertex shader.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    /// spirv-gen IR, the device fetching what it can.
    Native,
    /// spirv-gen IR, fix-ups forced.
    Fixup,
    /// SPIR-V passthrough, fix-ups forced.
    SpirV,
}

/// The glslang-style vertex shader (`vertex_format_spirv.spvasm`,
/// assembled; a spirv-gen test keeps the two equal).
fn glslang_vs() -> ShaderState {
    let words: Vec<u32> = include_bytes!("vertex_format_spirv.spv")
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    spirv_state(words)
}

fn spirv_state(words: Vec<u32>) -> ShaderState {
    ShaderState {
        stage: ShaderStage::Vertex,
        code: ShaderCode::SpirV {
            words: Arc::from(words),
            entry_point: "main".into(),
        },
        stream_output: StreamOutputInfo::default(),
    }
}

fn gl_type(ctx: &mut TestContext, ty: &str, mode: Mode) -> R {
    let attrs = formats_of(ty);
    if attrs.is_empty() {
        return Err(Outcome::fail(format!("no formats for {ty}")));
    }
    let mut e = env_with(ctx, |o| o.vertex_fixups = Some(mode != Mode::Native))?;
    for (k, a) in attrs.into_iter().enumerate() {
        let mut shaders = vec![("IR", shader(ShaderStage::Vertex, &vs(a.input))?)];
        if mode == Mode::SpirV {
            let target = [Target::Vulkan1_1, Target::Vulkan1_3][k % 2];
            shaders = vec![(
                "spirv-gen SPIR-V",
                spirv_shader(ShaderStage::Vertex, &vs(a.input), target)?,
            )];
            if a.input == "f32x4" {
                shaders.push(("glslang-style SPIR-V", glslang_vs()));
            }
        }
        for (what, v) in shaders {
            attrib_draw(&mut e, v, a.format, &a.bytes, a.want, false)
                .map_err(|o| Outcome::fail(format!("{} ({mode:?}, {what}): {o:?}", a.format)))?;
        }
    }
    Ok(())
}

macro_rules! gl_types {
    ($($name:literal),+ $(,)?) => {$(
        const _: () = {
            fn native(ctx: &mut TestContext) -> Outcome {
                Outcome::from_result(gl_type(ctx, $name, Mode::Native))
            }
            fn fixup(ctx: &mut TestContext) -> Outcome {
                Outcome::from_result(gl_type(ctx, $name, Mode::Fixup))
            }
            fn spirv(ctx: &mut TestContext) -> Outcome {
                Outcome::from_result(gl_type(ctx, $name, Mode::SpirV))
            }
            test_case!(name = concat!("pipe.draw.vertex_format.gl.", $name, ".native"), native);
            test_case!(name = concat!("pipe.draw.vertex_format.gl.", $name, ".fixup"), fixup);
            test_case!(name = concat!("pipe.draw.vertex_format.gl.", $name, ".spirv"), spirv);
        };
    )+};
}
gl_types!(
    "byte",
    "unsigned_byte",
    "short",
    "unsigned_short",
    "int",
    "unsigned_int",
    "half_float",
    "float",
    "double",
    "fixed",
    "int_2_10_10_10_rev",
    "bgra",
    "unsigned_int_10f_11f_11f_rev",
);
