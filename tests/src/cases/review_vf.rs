//! `pipe.draw.review_vf.*`: vertex fetch fix-ups and the rasterized
//! primitive on inputs the first cases did not cover: 64-bit elements at
//! the attribute offset limit or shorter than their dual-slot input,
//! fix-ups on inputs with a component offset (GL's `layout(component)`),
//! shader inputs whose width does not match the element, a SPIR-V
//! geometry shader whose input primitive mode comes after its output one,
//! the point size of tessellated points.
//!
//! The vertex shaders write what they read to RGBA32F targets (flat
//! varyings `c0`, `c1`); the expected values are decoded here.

use std::sync::Arc;

use pipe_core::draw::{DrawInfo, DrawStartCountBias, PrimType};
use pipe_core::resource::{BindFlags, PipeBox, ResourceTemplate};
use pipe_core::shader::{ShaderCode, ShaderState, StreamOutputInfo};
use pipe_core::state::*;
use pipe_core::{Format, PipeError};

use crate::cases::draw::{bind_vertices, check_image, clear_color, draw, setup};
use crate::harness::{
    bind_program, bind_rasterizer, bind_stage, env_with, f32s, set_color, set_framebuffer,
    set_full_viewport, shader, step, unorm, Env, FS_UBO_COLOR, VS_PASSTHROUGH,
};
use crate::{test_case, Outcome, TestContext};

type R = Result<(), Outcome>;

const W: u32 = 4;

/// A fragment shader copying `n` flat f32x4 varyings to its outputs.
fn copy_fs(n: usize) -> String {
    let mut s = String::from("shader fragment\n");
    for i in 0..n {
        s += &format!("in @c{i} : f32x4 location={i} flat\nout @f{i} : f32x4 location={i}\n");
    }
    s += "fn main {\n";
    for i in 0..n {
        s += &format!("  %{i} : f32x4 = load @c{i}\n  store @f{i}, %{i}\n");
    }
    s + "}\n"
}

/// The three vertices of a target-covering triangle.
const TRI: [[f32; 4]; 3] = [
    [-1.0, -1.0, 0.0, 1.0],
    [3.0, -1.0, 0.0, 1.0],
    [-1.0, 3.0, 0.0, 1.0],
];

/// Position from vertex buffer 0 at location 0 (element 0).
const POS: VertexElement = VertexElement {
    src_offset: 0,
    src_stride: 16,
    vertex_buffer_index: 0,
    dual_slot: false,
    src_format: Format::R32G32B32A32Float,
    instance_divisor: 0,
};

/// Draws [`TRI`] with `vs` and [`copy_fs`] into `targets` RGBA32F
/// targets; `elems` after [`POS`] read vertex buffer 1 (`attr`, a buffer
/// resource of exactly its size). `Ok(Err(e))` when creating the vertex
/// elements or drawing is refused; else each target's value (every pixel
/// must agree).
fn draw_targets(
    e: &mut Env,
    vs: ShaderState,
    elems: &[VertexElement],
    attr: &[u8],
    targets: usize,
) -> Result<Result<Vec<[f32; 4]>, PipeError>, Outcome> {
    let mut rts = Vec::new();
    let mut surfaces = Vec::new();
    for _ in 0..targets {
        let rt = e.texture(&ResourceTemplate::texture_2d(
            Format::R32G32B32A32Float,
            W,
            W,
            BindFlags::RENDER_TARGET,
        ))?;
        surfaces.push(Some(e.surface(&rt, 0, 0, 0)?));
        rts.push(rt);
    }
    set_framebuffer(e, W as u16, W as u16, surfaces, None)?;
    set_full_viewport(e, W, W)?;
    bind_rasterizer(e, |_| {})?;
    let v = step("vs", e.ctx.create_vs_state(&vs))?;
    let f = step(
        "fs",
        e.ctx
            .create_fs_state(&shader(ShaderStage::Fragment, &copy_fs(targets))?),
    )?;
    step("bind vs", e.ctx.bind_vs_state(Some(v)))?;
    step("bind fs", e.ctx.bind_fs_state(Some(f)))?;
    let mut all = vec![POS];
    all.extend_from_slice(elems);
    let ve = match e.ctx.create_vertex_elements_state(&all) {
        Ok(ve) => ve,
        Err(err) => return Ok(Err(err)),
    };
    step("bind velems", e.ctx.bind_vertex_elements_state(Some(ve)))?;
    let buf = e.buffer_with(attr)?;
    step(
        "set_vertex_buffers",
        e.ctx.set_vertex_buffers(&[
            VertexBuffer {
                buffer: Some(VertexBufferSource::User(Arc::from(f32s(&TRI.concat())))),
                buffer_offset: 0,
            },
            VertexBuffer {
                buffer: Some(VertexBufferSource::Resource(buf)),
                buffer_offset: 0,
            },
        ]),
    )?;
    let info = DrawInfo {
        mode: PrimType::Triangles,
        ..DrawInfo::default()
    };
    let one = [DrawStartCountBias {
        start: 0,
        count: 3,
        index_bias: 0,
    }];
    if let Err(err) = e.ctx.draw_vbo(&info, 0, None, &one) {
        return Ok(Err(err));
    }
    let mut out = Vec::new();
    for (t, rt) in rts.iter().enumerate() {
        let got = e.read_texture(rt, 0, &PipeBox::rect(0, 0, W, W))?;
        let px: Vec<[f32; 4]> = got
            .chunks_exact(16)
            .map(|p| {
                let f = |i: usize| f32::from_ne_bytes([p[i], p[i + 1], p[i + 2], p[i + 3]]);
                [f(0), f(4), f(8), f(12)]
            })
            .collect();
        if px.iter().any(|p| p != &px[0]) {
            return Err(Outcome::fail(format!("target {t}: pixels differ: {px:?}")));
        }
        out.push(px[0]);
    }
    Ok(Ok(out))
}

/// `got` within 1e-6 (relative) of `want` in the first `n` components.
fn close(got: [f32; 4], want: [f32; 4], n: usize) -> bool {
    got.iter()
        .zip(want)
        .take(n)
        .all(|(g, w)| (g - w).abs() <= 1e-6 * w.abs().max(1.0))
}

fn doubles(v: &[f64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A vertex shader writing `@d` (a `f64x{n}` at location 1), converted
/// to float and widened with zeros, to `c0`.
fn dvec_vs(n: u8) -> String {
    let (t, f, widen) = match n {
        2 => (
            "f64x2",
            "f32x2",
            "  %4 : f32x2 = const 0.0, 0.0\n  %5 : f32x4 = vec %3, %4\n",
        ),
        3 => (
            "f64x3",
            "f32x3",
            "  %4 : f32 = const 0.0\n  %5 : f32x4 = vec %3, %4\n",
        ),
        _ => ("f64x4", "f32x4", "  %5 : f32x4 = mov %3\n"),
    };
    format!(
        "shader vertex
in @pos : f32x4 location=0
in @d : {t} location=1
out @gl_pos : f32x4 builtin=position
out @c0 : f32x4 location=0
fn main {{
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  %2 : {t} = load @d
  %3 : {f} = f2f %2
{widen}  store @c0, %5
}}
"
    )
}

fn fp64_env(ctx: &TestContext) -> Result<Env, Outcome> {
    let e = env_with(ctx, |_| {})?;
    if !e.screen.caps().stage(ShaderStage::Vertex).fp64 {
        return Err(Outcome::skip("no 64-bit floats in shaders"));
    }
    Ok(e)
}

// ---------------------------------------------------------------------------

const D4: [f64; 4] = [1.5, -2.0, 3.25, 4.0];

/// A dual-slot dvec4 element at the largest offset the screen allows:
/// its upper half is fetched 16 bytes further, beyond the device's
/// `maxVertexInputAttributeOffset`. Drawn right, or refused; never an
/// attribute offset Vulkan does not allow.
fn upper_offset_limit(ctx: &mut TestContext) -> R {
    let mut e = fp64_env(ctx)?;
    let max = e.screen.caps().max_vertex_element_src_offset;
    let off = max & !7;
    let stride = 32u32;
    let mut data = vec![0u8; (off + 3 * stride) as usize];
    for v in 0..3 {
        let at = (off + v * stride) as usize;
        data[at..at + 32].copy_from_slice(&doubles(&D4));
    }
    let el = VertexElement {
        src_offset: off,
        src_stride: stride,
        vertex_buffer_index: 1,
        dual_slot: true,
        src_format: Format::R64G64B64A64Uint,
        instance_divisor: 0,
    };
    let vs = shader(ShaderStage::Vertex, &dvec_vs(4))?;
    match draw_targets(&mut e, vs, &[el], &data, 1)? {
        Err(PipeError::Unsupported(_) | PipeError::InvalidArgument(_)) => Ok(()),
        Err(err) => Err(Outcome::fail(format!("unexpected error {err}"))),
        Ok(got) => {
            let want = D4.map(|x| x as f32);
            if close(got[0], want, 4) {
                Ok(())
            } else {
                Err(Outcome::fail(format!(
                    "offset {off}: got {:?}, want {want:?}",
                    got[0]
                )))
            }
        }
    }
}
const _: () = {
    fn run(ctx: &mut TestContext) -> Outcome {
        Outcome::from_result(upper_offset_limit(ctx))
    }
    test_case!(name = "pipe.draw.review_vf.upper_offset_limit", run);
};

/// A dual-slot element of two doubles feeding a dvec4 input (GL leaves z
/// and w undefined), tightly packed in a buffer of exactly three
/// vertices: x and y are read, and nothing is fetched beyond the buffer.
fn dual_slot_short_element(ctx: &mut TestContext) -> R {
    let mut e = fp64_env(ctx)?;
    let data: Vec<u8> = (0..3).flat_map(|_| doubles(&D4[..2])).collect();
    let el = VertexElement {
        src_offset: 0,
        src_stride: 16,
        vertex_buffer_index: 1,
        dual_slot: true,
        src_format: Format::R64G64Uint,
        instance_divisor: 0,
    };
    let vs = shader(ShaderStage::Vertex, &dvec_vs(4))?;
    let got = step("draw", draw_targets(&mut e, vs, &[el], &data, 1)?)?;
    let want = [1.5, -2.0, 0.0, 0.0];
    if !close(got[0], want, 2) {
        return Err(Outcome::fail(format!("got {:?}, want {want:?}", got[0])));
    }
    Ok(())
}
const _: () = {
    fn run(ctx: &mut TestContext) -> Outcome {
        Outcome::from_result(dual_slot_short_element(ctx))
    }
    test_case!(name = "pipe.draw.review_vf.dual_slot_short_element", run);
};

// ---------------------------------------------------------------------------
// Inputs with a component offset (`layout(location = 1, component = 2)`).

/// Two f32x2 inputs sharing location 1 (components 0 and 2), or only the
/// second when `both` is false, written to `c0` as (a.x, a.y, b.x, b.y)
/// (zeros for a missing `a`).
fn packed_vs(both: bool) -> String {
    let (decl, load) = if both {
        ("in @a : f32x2 location=1\n", "  %1 : f32x2 = load @a\n")
    } else {
        ("", "  %1 : f32x2 = const 0.0, 0.0\n")
    };
    format!(
        "shader vertex
in @pos : f32x4 location=0
{decl}in @b : f32x2 location=1 component=2
out @gl_pos : f32x4 builtin=position
out @c0 : f32x4 location=0
fn main {{
  %0 : f32x4 = load @pos
  store @gl_pos, %0
{load}  %2 : f32x2 = load @b
  %3 : f32x4 = vec %1, %2
  store @c0, %3
}}
"
    )
}

/// One component-offset case: the format (with fix-ups forced where it
/// has one), its bytes, and the attribute GL reads (x, y, z, w).
fn component_case(name: &str) -> Option<(Format, Vec<u8>, [f32; 4])> {
    let i32s = |v: &[i32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    Some(match name {
        "fixed4" => (
            Format::R32G32B32A32Fixed,
            i32s(&[98304, -131072, 16384, 196608]),
            [1.5, -2.0, 0.25, 3.0],
        ),
        // z from the element, w GL's default 1.
        "fixed3" => (
            Format::R32G32B32Fixed,
            i32s(&[98304, -131072, 16384]),
            [1.5, -2.0, 0.25, 1.0],
        ),
        "unorm3" => (
            Format::R32G32B32Unorm,
            i32s(&[-1, 0, -1]),
            [1.0, 0.0, 1.0, 1.0],
        ),
        "bgra" => (
            Format::B8G8R8A8Unorm,
            vec![51, 102, 204, 255],
            [204.0 / 255.0, 102.0 / 255.0, 51.0 / 255.0, 1.0],
        ),
        "a2b10g10r10" => (
            Format::R10G10B10A2Uscaled,
            (1023u32 | 5 << 10 | 7 << 20 | 2 << 30)
                .to_le_bytes()
                .to_vec(),
            [1023.0, 5.0, 7.0, 2.0],
        ),
        "sscaled2" => (
            Format::R16G16Sscaled,
            [-300i16, 1000]
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect(),
            [-300.0, 1000.0, 0.0, 1.0],
        ),
        "double3" => (
            Format::R64G64B64Float,
            doubles(&[1.5, -2.0, 0.25]),
            [1.5, -2.0, 0.25, 1.0],
        ),
        _ => return None,
    })
}

fn component_offset(ctx: &mut TestContext, name: &str, both: bool) -> R {
    let (format, bytes, attr) =
        component_case(name).ok_or_else(|| Outcome::fail(format!("no case {name}")))?;
    let mut e = env_with(ctx, |o| o.vertex_fixups = Some(true))?;
    let data: Vec<u8> = (0..3).flat_map(|_| bytes.clone()).collect();
    let el = VertexElement {
        src_offset: 0,
        src_stride: bytes.len() as u32,
        vertex_buffer_index: 1,
        dual_slot: false,
        src_format: format,
        instance_divisor: 0,
    };
    let vs = shader(ShaderStage::Vertex, &packed_vs(both))?;
    match draw_targets(&mut e, vs, &[el], &data, 1)? {
        // A refusal is an answer (not a good one).
        Err(PipeError::Unsupported(_)) => Ok(()),
        Err(err) => Err(Outcome::fail(format!("{format}: unexpected error {err}"))),
        Ok(got) => {
            let want = if both {
                attr
            } else {
                [0.0, 0.0, attr[2], attr[3]]
            };
            if close(got[0], want, 4) {
                Ok(())
            } else {
                Err(Outcome::fail(format!(
                    "{format}: got {:?}, want {want:?}",
                    got[0]
                )))
            }
        }
    }
}

macro_rules! component_cases {
    ($($name:literal),+ $(,)?) => {$(
        const _: () = {
            fn shared(ctx: &mut TestContext) -> Outcome {
                Outcome::from_result(component_offset(ctx, $name, true))
            }
            fn alone(ctx: &mut TestContext) -> Outcome {
                Outcome::from_result(component_offset(ctx, $name, false))
            }
            test_case!(
                name = concat!("pipe.draw.review_vf.component.", $name, ".shared"),
                shared
            );
            test_case!(
                name = concat!("pipe.draw.review_vf.component.", $name, ".alone"),
                alone
            );
        };
    )+};
}
component_cases!(
    "fixed4",
    "fixed3",
    "unorm3",
    "bgra",
    "a2b10g10r10",
    "sscaled2",
    "double3"
);

// ---------------------------------------------------------------------------
// Shader inputs whose width does not match the element: refused at the
// draw, not a pipeline Vulkan does not allow.

/// A dvec2 input fed by a 32-bit float element.
fn f64_input_f32_element(ctx: &mut TestContext) -> R {
    let mut e = fp64_env(ctx)?;
    let data = f32s(&[1.0, 2.0, 1.0, 2.0, 1.0, 2.0]);
    let el = VertexElement {
        src_offset: 0,
        src_stride: 8,
        vertex_buffer_index: 1,
        dual_slot: false,
        src_format: Format::R32G32Float,
        instance_divisor: 0,
    };
    let vs = shader(ShaderStage::Vertex, &dvec_vs(2))?;
    match draw_targets(&mut e, vs, &[el], &data, 1)? {
        Err(_) => Ok(()),
        Ok(got) => Err(Outcome::fail(format!(
            "a dvec2 input fed R32G32_FLOAT was drawn ({:?})",
            got[0]
        ))),
    }
}
const _: () = {
    fn run(ctx: &mut TestContext) -> Outcome {
        Outcome::from_result(f64_input_f32_element(ctx))
    }
    test_case!(name = "pipe.draw.review_vf.f64_input_f32_element", run);
};

/// A dvec4 input (two locations) fed by a four-double element that is
/// not `dual_slot` (one location), followed by an f32x4 element at the
/// location the dvec4's upper half takes.
fn dvec4_not_dual_slot(ctx: &mut TestContext) -> R {
    let mut e = fp64_env(ctx)?;
    let mut data = Vec::new();
    for _ in 0..3 {
        data.extend(doubles(&D4));
        data.extend(f32s(&[5.0, 6.0, 7.0, 8.0]));
    }
    let el = |src_offset, src_format| VertexElement {
        src_offset,
        src_stride: 48,
        vertex_buffer_index: 1,
        dual_slot: false,
        src_format,
        instance_divisor: 0,
    };
    let elems = [
        el(0, Format::R64G64B64A64Uint),
        el(32, Format::R32G32B32A32Float),
    ];
    let vs = shader(ShaderStage::Vertex, &dvec_vs(4))?;
    match draw_targets(&mut e, vs, &elems, &data, 1)? {
        Err(_) => Ok(()),
        Ok(got) => Err(Outcome::fail(format!(
            "a dvec4 input fed by a single-slot element was drawn ({:?})",
            got[0]
        ))),
    }
}
const _: () = {
    fn run(ctx: &mut TestContext) -> Outcome {
        Outcome::from_result(dvec4_not_dual_slot(ctx))
    }
    test_case!(name = "pipe.draw.review_vf.dvec4_not_dual_slot", run);
};

// ---------------------------------------------------------------------------
// The rasterized primitive.

use super::rast_prim::GS_FIRST_EDGE;

/// `GS_FIRST_EDGE` as SPIR-V with its `OpExecutionMode`s reversed, so
/// the input primitive (`Triangles`) follows `OutputLineStrip` (SPIR-V
/// gives them no order).
fn gs_first_edge_spirv() -> Result<ShaderState, Outcome> {
    let ir = spirv_gen::text::parse(GS_FIRST_EDGE)
        .map_err(|err| Outcome::fail(format!("test shader: {err}")))?;
    let words = spirv_gen::emit::emit(&ir, spirv_gen::emit::Target::Vulkan1_2)
        .map_err(|err| Outcome::fail(format!("emit: {err}")))?;
    // Split into instructions; reverse the run of OpExecutionMode (16).
    let mut insts: Vec<&[u32]> = Vec::new();
    let mut i = 5;
    while i < words.len() {
        let len = (words[i] >> 16) as usize;
        if len == 0 || i + len > words.len() {
            return Err(Outcome::fail("emitted SPIR-V does not parse"));
        }
        insts.push(&words[i..i + len]);
        i += len;
    }
    let modes: Vec<usize> = (0..insts.len())
        .filter(|&k| insts[k][0] & 0xffff == 16)
        .collect();
    let (Some(&first), Some(&last)) = (modes.first(), modes.last()) else {
        return Err(Outcome::fail("no execution modes"));
    };
    if modes.len() != last - first + 1 {
        return Err(Outcome::fail("execution modes not contiguous"));
    }
    insts[first..=last].reverse();
    let mut out = words[..5].to_vec();
    for inst in insts {
        out.extend_from_slice(inst);
    }
    Ok(ShaderState {
        stage: ShaderStage::Geometry,
        code: ShaderCode::SpirV {
            words: Arc::from(out),
            entry_point: "main".into(),
        },
        stream_output: StreamOutputInfo::default(),
    })
}

/// Polygon stipple (all zero) does not apply to the line strips of a
/// SPIR-V geometry shader fed triangles, whatever the order of its
/// execution modes: the edge along row 8 is drawn.
fn spirv_gs_lines_polygon_stipple(ctx: &mut TestContext) -> R {
    let mut e = env_with(ctx, |_| {})?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    let g = step("gs", e.ctx.create_gs_state(&gs_first_edge_spirv()?))?;
    step("bind gs", e.ctx.bind_gs_state(Some(g)))?;
    bind_rasterizer(&mut e, |r| r.poly_stipple_enable = true)?;
    step(
        "set_polygon_stipple",
        e.ctx.set_polygon_stipple(&PolyStipple::default()),
    )?;
    let v = |x: f32, y: f32| [x / 8.0 - 1.0, y / 8.0 - 1.0, 0.0, 1.0];
    let tri: Vec<f32> = [v(0.5, 8.5), v(16.5, 8.5), v(0.5, 12.5)].concat();
    bind_vertices(&mut e, &tri, None)?;
    const COLOR: [f32; 4] = [1.0, 0.5, 0.0, 1.0];
    set_color(&mut e, COLOR)?;
    clear_color(&mut e, [0.0; 4])?;
    draw(&mut e, PrimType::Triangles, 0, 3, 1)?;
    check_image(ctx, &mut e, &t, |x, y| {
        if y == 8 && (1..=14).contains(&x) {
            Some(unorm(COLOR))
        } else if y != 8 {
            Some([0; 4].into())
        } else {
            None
        }
    })
}
const _: () = {
    fn run(ctx: &mut TestContext) -> Outcome {
        Outcome::from_result(spirv_gs_lines_polygon_stipple(ctx))
    }
    test_case!(
        name = "pipe.draw.review_vf.spirv_gs_lines_polygon_stipple",
        run
    );
};

/// Tessellated isolines in point mode: each vertex a point (rast_prim's
/// isoline shader with `point_mode`).
fn tes_points() -> String {
    super::rast_prim::TES_ISOLINES.replacen("winding=ccw", "winding=ccw point_mode", 1)
}

/// The rasterizer's point size (3, not per vertex) sizes the points of a
/// tessellation evaluation shader in point mode: a patch from (4.5, 8.5)
/// to (12.5, 8.5) tessellated once gives points at both ends, each
/// covering the 3x3 pixels around it.
fn tes_point_mode_size(ctx: &mut TestContext) -> R {
    let mut e = env_with(ctx, |_| {})?;
    if !e.screen.caps().shader[ShaderStage::TessEval.index()].supported {
        return Err(Outcome::skip("no tessellation"));
    }
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    bind_stage(&mut e, ShaderStage::TessEval, &tes_points())?;
    crate::harness::tess_levels_1(&mut e, 2)?;
    bind_rasterizer(&mut e, |r| {
        r.point_size = 3.0;
        r.point_size_per_vertex = false;
    })?;
    let v = |x: f32, y: f32| [x / 8.0 - 1.0, y / 8.0 - 1.0, 0.0, 1.0];
    let line: Vec<f32> = [v(4.5, 8.5), v(12.5, 8.5)].concat();
    bind_vertices(&mut e, &line, None)?;
    const COLOR: [f32; 4] = [0.0, 1.0, 0.5, 1.0];
    set_color(&mut e, COLOR)?;
    clear_color(&mut e, [0.0; 4])?;
    draw(&mut e, PrimType::Patches, 0, 2, 1)?;
    check_image(ctx, &mut e, &t, |x, y| {
        let near = |c: u32| x.abs_diff(c) <= 1 && y.abs_diff(8) <= 1;
        Some(if near(4) || near(12) {
            unorm(COLOR)
        } else {
            [0; 4].into()
        })
    })
}
const _: () = {
    fn run(ctx: &mut TestContext) -> Outcome {
        Outcome::from_result(tes_point_mode_size(ctx))
    }
    test_case!(name = "pipe.draw.review_vf.tes_point_mode_size", run);
};

/// Emits the middle edge (vertices 1 and 2) of each line with adjacency
/// as a line strip.
const GS_ADJ_MIDDLE: &str =
    "shader geometry input=lines_adjacency output=line_strip max_vertices=2 invocations=1
in @pos : f32x4[4] builtin=position
out @gl_pos : f32x4 builtin=position
fn main {
  %0 : i32 = const 1
  %1 : i32 = const 2
  %2 : f32x4 = load @pos, %0
  %3 : f32x4 = load @pos, %1
  store @gl_pos, %2
  emit_vertex
  store @gl_pos, %3
  emit_vertex
  end_primitive
}
";

/// Line stipple (factor 2, pattern 0x3333) on the line strip a geometry
/// shader makes of a line with adjacency along row 8: the application's
/// geometry shader computes the stipple position whatever its input
/// primitive, so adjacency does not matter. Pixel x is lit when bit
/// (x / 2) % 16 of the pattern is.
fn gs_adjacency_line_stipple(ctx: &mut TestContext, emulated: bool) -> R {
    const FACTOR: u32 = 2;
    const PATTERN: u16 = 0x3333;
    const COLOR: [f32; 4] = [1.0, 0.5, 0.0, 1.0];
    let mut e = env_with(ctx, |o| o.emulate_line_stipple = Some(emulated))?;
    if !e.screen.caps().line_stipple {
        return Err(Outcome::skip("no line stipple"));
    }
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    bind_stage(&mut e, ShaderStage::Geometry, GS_ADJ_MIDDLE)?;
    bind_rasterizer(&mut e, |r| {
        r.line_stipple_enable = true;
        r.line_stipple_factor = (FACTOR - 1) as u8;
        r.line_stipple_pattern = PATTERN;
    })?;
    let v = |x: f32, y: f32| [x / 8.0 - 1.0, y / 8.0 - 1.0, 0.0, 1.0];
    let line: Vec<f32> = [v(0.5, 2.5), v(0.5, 8.5), v(16.5, 8.5), v(16.5, 2.5)].concat();
    bind_vertices(&mut e, &line, None)?;
    set_color(&mut e, COLOR)?;
    clear_color(&mut e, [0.0; 4])?;
    draw(&mut e, PrimType::LinesAdjacency, 0, 4, 1)?;
    check_image(ctx, &mut e, &t, |x, y| {
        let lit = y == 8 && PATTERN & (1 << ((x / FACTOR) % 16)) != 0;
        Some(if lit { unorm(COLOR) } else { [0; 4].into() })
    })
}
const _: () = {
    fn native(ctx: &mut TestContext) -> Outcome {
        Outcome::from_result(gs_adjacency_line_stipple(ctx, false))
    }
    fn emulated(ctx: &mut TestContext) -> Outcome {
        Outcome::from_result(gs_adjacency_line_stipple(ctx, true))
    }
    test_case!(
        name = "pipe.draw.review_vf.gs_adjacency_line_stipple.native",
        native
    );
    test_case!(
        name = "pipe.draw.review_vf.gs_adjacency_line_stipple.emulated",
        emulated
    );
};
