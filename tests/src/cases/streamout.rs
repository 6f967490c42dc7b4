//! `pipe.streamout.*`: stream output (transform feedback) and draw-auto.
//!
//! Every case captures what a vertex (or geometry) shader computes from
//! known vertex data, reads the buffers back and compares them with the
//! values computed here, record by record, as raw bits. Buffers start
//! filled with a sentinel word, so bytes the capture must not touch (past
//! the records, before a target's range, past an overflowing target) are
//! checked too. A stream-output register is the shader's n-th output in
//! declaration order.

use std::sync::Arc;

use pipe_core::draw::{DrawIndirectInfo, DrawInfo, DrawStartCountBias, IndexSource, PrimType};
use pipe_core::flags::{ClearFlags, MapFlags};
use pipe_core::resource::{BindFlags, PipeBox, ResourceTemplate};
use pipe_core::shader::{ShaderState, StreamOutput, StreamOutputInfo};
use pipe_core::state::*;
use pipe_core::view::{StreamOutputTarget, SurfaceTemplate};
use pipe_core::{Format, PipeError, Resource};

use crate::harness::{env, f32s, set_color, shader, step, unorm, Env, FS_UBO_COLOR};
use crate::{Outcome, TestContext};

type R = Result<(), Outcome>;

use crate::result_case as case;

const W: u32 = 16;
const H: u32 = 16;
pub(crate) const SENTINEL: u32 = 0xdead_beef;

/// Outputs: 0 position (= pos), 1 `a` = attr + (1, 2, 3, 4), 2 `b` =
/// attr.wz, 3 `id` = attr.x as an integer plus 100.
pub(crate) const VS_CAP: &str = "shader vertex
in @pos : f32x4 location=0
in @attr : f32x4 location=1
out @gl_pos : f32x4 builtin=position
out @a : f32x4 location=0
out @b : f32x2 location=1
out @id : u32 location=2 flat
fn main {
  %0 : f32x4 = load @pos
  %1 : f32x4 = load @attr
  store @gl_pos, %0
  %2 : f32x4 = const 1.0, 2.0, 3.0, 4.0
  %3 : f32x4 = fadd %1, %2
  store @a, %3
  %4 : f32x2 = swizzle %1, wz
  store @b, %4
  %5 : f32 = swizzle %1, x
  %6 : u32 = f2u %5
  %7 : u32 = const 100
  %8 : u32 = iadd %6, %7
  store @id, %8
}
";

/// The position moved right by 1.0 (half the target), for draw-auto.
const VS_SHIFT: &str = "shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
fn main {
  %0 : f32x4 = load @pos
  %1 : f32x4 = const 1.0, 0.0, 0.0, 0.0
  %2 : f32x4 = fadd %0, %1
  store @gl_pos, %2
}
";

pub(crate) const VS_PASS: &str = "shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
}
";

/// One vertex of the test data.
#[derive(Clone, Copy)]
pub(crate) struct Vert {
    pub(crate) pos: [f32; 4],
    attr: [f32; 4],
}

/// Vertex `i` (of a run starting at `base`): a point inside the target,
/// z = 0.5 (so a depth-range conversion leaking into the capture would
/// show as 0.75), and attributes that differ per vertex.
pub(crate) fn vert(i: u32) -> Vert {
    let f = i as f32;
    Vert {
        pos: [-0.9 + 0.1 * f, 0.5 - 0.05 * f, 0.5, 1.0],
        attr: [f, 10.0 * f + 0.5, -3.0 * f, 0.25 * f],
    }
}

/// What VS_CAP computes for a vertex, by output register.
fn outputs(v: &Vert) -> [Vec<u32>; 4] {
    let bits = |x: &[f32]| x.iter().map(|f| f.to_bits()).collect::<Vec<u32>>();
    let a: Vec<f32> = v
        .attr
        .iter()
        .zip([1.0, 2.0, 3.0, 4.0])
        .map(|(x, k)| x + k)
        .collect();
    [
        bits(&v.pos),
        bits(&a),
        bits(&[v.attr[3], v.attr[2]]),
        vec![v.attr[0] as u32 + 100],
    ]
}

/// `pipe_stream_output` shorthand: register, first component, count,
/// buffer, dword offset.
pub(crate) fn so(reg: u8, start: u8, n: u8, buffer: u8, dst: u16) -> StreamOutput {
    StreamOutput {
        register_index: reg,
        start_component: start,
        num_components: n,
        output_buffer: buffer,
        dst_offset: dst,
        stream: 0,
    }
}

pub(crate) fn with_so(
    mut s: ShaderState,
    output: Vec<StreamOutput>,
    stride: [u16; 4],
) -> ShaderState {
    s.stream_output = StreamOutputInfo { stride, output };
    s
}

/// The shader `src` capturing `output` with `stride` (dwords): IR with
/// Gallium's capture list, or, in a case's `.spirv` variant
/// ([`crate::harness::as_spirv`]), the SPIR-V 1.6 a GL frontend compiles
/// for it, which declares its capture itself (`Xfb` decorations, made by
/// the same spirv-gen lowering the IR path applies) and has no list.
pub(crate) fn so_shader(
    stage: ShaderStage,
    src: &str,
    output: Vec<StreamOutput>,
    stride: [u16; 4],
) -> Result<ShaderState, Outcome> {
    if !crate::harness::is_spirv(stage) {
        return Ok(with_so(shader(stage, src)?, output, stride));
    }
    let info = StreamOutputInfo { stride, output };
    spirv_with_xfb(stage, src, &info, spirv_gen::emit::Target::Vulkan1_3)
}

/// The SPIR-V a GL frontend compiles for the IR shader `src` capturing
/// `info`: its outputs decorated for transform feedback (`Xfb`) by
/// spirv-gen's lowering, no Gallium capture list.
pub(crate) fn spirv_with_xfb(
    stage: ShaderStage,
    src: &str,
    info: &StreamOutputInfo,
    target: spirv_gen::emit::Target,
) -> Result<ShaderState, Outcome> {
    let mut ir =
        spirv_gen::text::parse(src).map_err(|e| Outcome::fail(format!("test shader: {e}")))?;
    let (caps, strides) = pipe_vk::streamout::captures(info);
    spirv_gen::passes::xfb::lower_xfb(&mut ir, &caps, strides)
        .map_err(|e| Outcome::fail(format!("test shader: xfb: {e}")))?;
    crate::harness::spirv_shader_of(stage, &ir, target)
}

/// Registers a case, and its `.spirv` variant: every shader given as
/// SPIR-V passthrough, the captures declared in the words.
macro_rules! so_case {
    ($name:literal, $body:path) => {
        case!($name, $body);
        const _: () = {
            fn spirv(ctx: &mut TestContext) -> Outcome {
                Outcome::from_result(crate::harness::as_spirv(|| $body(ctx)))
            }
            crate::test_case!(name = concat!($name, ".spirv"), spirv);
        };
    };
}

/// The record one vertex leaves in `buffer` under `outs` (dword
/// offsets; words no output covers keep `SENTINEL`), `stride` dwords long.
fn record(v: &Vert, outs: &[StreamOutput], buffer: u8, stride: u16) -> Vec<u32> {
    let vals = outputs(v);
    let mut r = vec![SENTINEL; stride as usize];
    for o in outs.iter().filter(|o| o.output_buffer == buffer) {
        let src = &vals[o.register_index as usize];
        for c in 0..o.num_components as usize {
            r[o.dst_offset as usize + c] = src[o.start_component as usize + c];
        }
    }
    r
}

/// A render target with a full viewport; the rasterizer keeps GL's depth
/// range (`clip_halfz` off), so the last vertex stage is lowered.
pub(crate) fn setup(e: &mut Env, discard: bool) -> Result<Resource, Outcome> {
    let t = ResourceTemplate::texture_2d(
        Format::R8G8B8A8Unorm,
        W,
        H,
        BindFlags::RENDER_TARGET | BindFlags::SAMPLER_VIEW,
    );
    let color = e.texture(&t)?;
    let cs = step(
        "surface",
        e.ctx.create_surface(
            &color,
            &SurfaceTemplate {
                format: t.format,
                level: 0,
                first_layer: 0,
                last_layer: 0,
            },
        ),
    )?;
    let fb = FramebufferState {
        width: W as u16,
        height: H as u16,
        layers: 1,
        samples: 1,
        cbufs: vec![Some(cs)],
        zsbuf: None,
        resolve: None,
    };
    step("set_framebuffer_state", e.ctx.set_framebuffer_state(&fb))?;
    let vp = ViewportState {
        scale: [W as f32 / 2.0, H as f32 / 2.0, 0.5],
        translate: [W as f32 / 2.0, H as f32 / 2.0, 0.5],
        swizzle: Default::default(),
    };
    step("viewport", e.ctx.set_viewport_states(0, &[vp]))?;
    rasterizer(e, discard)?;
    set_color(e, [1.0, 0.0, 0.0, 1.0])?;
    Ok(color)
}

fn rasterizer(e: &mut Env, discard: bool) -> R {
    let rs = RasterizerState {
        line_width: 1.0,
        point_size: 1.0,
        half_pixel_center: true,
        depth_clip_near: true,
        depth_clip_far: true,
        rasterizer_discard: discard,
        ..Default::default()
    };
    let h = step("rasterizer", e.ctx.create_rasterizer_state(&rs))?;
    step("bind rasterizer", e.ctx.bind_rasterizer_state(Some(h)))
}

pub(crate) fn require_so(e: &Env) -> R {
    if !e.screen.caps().stream_output {
        return Err(Outcome::skip("no stream output"));
    }
    Ok(())
}

/// Binds VS_CAP-style inputs for vertices `first..first + n`.
pub(crate) fn bind_verts(e: &mut Env, first: u32, n: u32) -> R {
    let vs: Vec<Vert> = (first..first + n).map(vert).collect();
    let pos: Vec<f32> = vs.iter().flat_map(|v| v.pos).collect();
    let attr: Vec<f32> = vs.iter().flat_map(|v| v.attr).collect();
    bind_streams(e, &[&pos, &attr])
}

/// Binds one vec4 attribute per slice, slice i at location i.
pub(crate) fn bind_streams(e: &mut Env, streams: &[&[f32]]) -> R {
    let elems: Vec<VertexElement> = (0..streams.len())
        .map(|i| VertexElement {
            src_offset: 0,
            src_stride: 16,
            vertex_buffer_index: i as u8,
            dual_slot: false,
            src_format: Format::R32G32B32A32Float,
            instance_divisor: 0,
        })
        .collect();
    let ve = step("velems", e.ctx.create_vertex_elements_state(&elems))?;
    step("bind velems", e.ctx.bind_vertex_elements_state(Some(ve)))?;
    let vbs: Vec<VertexBuffer> = streams
        .iter()
        .map(|d| VertexBuffer {
            buffer: Some(VertexBufferSource::User(Arc::from(f32s(d)))),
            buffer_offset: 0,
        })
        .collect();
    step("vbufs", e.ctx.set_vertex_buffers(&vbs))
}

pub(crate) fn bind_vs(e: &mut Env, s: ShaderState) -> R {
    let h = step("create_vs_state", e.ctx.create_vs_state(&s))?;
    step("bind_vs_state", e.ctx.bind_vs_state(Some(h)))
}

pub(crate) fn bind_fs(e: &mut Env) -> R {
    let f = step(
        "create_fs_state",
        e.ctx
            .create_fs_state(&shader(ShaderStage::Fragment, FS_UBO_COLOR)?),
    )?;
    step("bind_fs_state", e.ctx.bind_fs_state(Some(f)))
}

/// A buffer usable for stream output and as a vertex buffer, filled with
/// `SENTINEL`.
pub(crate) fn so_buffer(e: &mut Env, size: u32) -> Result<Resource, Outcome> {
    let t = ResourceTemplate::buffer(size, BindFlags::STREAM_OUTPUT | BindFlags::VERTEX_BUFFER);
    let b = step("resource_create", e.screen.resource_create(&t))?;
    let fill: Vec<u8> = (0..size / 4).flat_map(|_| SENTINEL.to_le_bytes()).collect();
    step(
        "buffer_subdata",
        e.ctx.buffer_subdata(&b, MapFlags::empty(), 0, &fill),
    )?;
    Ok(b)
}

pub(crate) fn target(
    e: &mut Env,
    b: &Resource,
    offset: u32,
    size: u32,
) -> Result<StreamOutputTarget, Outcome> {
    step(
        "create_stream_output_target",
        e.ctx.create_stream_output_target(b, offset, size),
    )
}

pub(crate) fn set_targets(e: &mut Env, t: &[&StreamOutputTarget], offsets: &[Option<u32>]) -> R {
    let ts: Vec<Option<StreamOutputTarget>> = t.iter().map(|t| Some((*t).clone())).collect();
    step(
        "set_stream_output_targets",
        e.ctx.set_stream_output_targets(&ts, offsets),
    )
}

pub(crate) fn draw(e: &mut Env, mode: PrimType, count: u32) -> R {
    let info = DrawInfo {
        mode,
        ..DrawInfo::default()
    };
    step(
        "draw_vbo",
        e.ctx.draw_vbo(
            &info,
            0,
            None,
            &[DrawStartCountBias {
                start: 0,
                count,
                index_bias: 0,
            }],
        ),
    )
}

pub(crate) fn words(e: &mut Env, b: &Resource) -> Result<Vec<u32>, Outcome> {
    let len = b.desc().width0;
    let bytes = e.read_buffer(b, 0, len)?;
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// Compares a buffer with `want` word by word (padded with `SENTINEL` to
/// the buffer's size).
pub(crate) fn check_words(what: &str, got: &[u32], want: &[u32]) -> R {
    let mut want = want.to_vec();
    want.resize(got.len(), SENTINEL);
    if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
        return Err(Outcome::fail(format!(
            "{what}: word {i} (byte {}) is {:#010x} ({}), want {:#010x} ({})",
            4 * i,
            got[i],
            f32::from_bits(got[i]),
            want[i],
            f32::from_bits(want[i])
        )));
    }
    Ok(())
}

/// The records of vertices `verts` in one buffer.
fn records(
    verts: impl Iterator<Item = u32>,
    outs: &[StreamOutput],
    buffer: u8,
    stride: u16,
) -> Vec<u32> {
    verts
        .flat_map(|i| record(&vert(i), outs, buffer, stride))
        .collect()
}

// ---------------------------------------------------------------------------

/// All outputs interleaved in one buffer, with a gap: a at 0, b at 4, id
/// at 6, position at 8, one unused word at 7; stride 12 words.
fn interleaved(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    require_so(&e)?;
    setup(&mut e, false)?;
    bind_fs(&mut e)?;
    let outs = vec![
        so(1, 0, 4, 0, 0),
        so(2, 0, 2, 0, 4),
        so(3, 0, 1, 0, 6),
        so(0, 0, 4, 0, 8),
    ];
    bind_vs(
        &mut e,
        so_shader(ShaderStage::Vertex, VS_CAP, outs.clone(), [12, 0, 0, 0])?,
    )?;
    bind_verts(&mut e, 0, 5)?;
    let b = so_buffer(&mut e, 48 * 8)?;
    let t = target(&mut e, &b, 0, 48 * 8)?;
    set_targets(&mut e, &[&t], &[Some(0)])?;
    draw(&mut e, PrimType::Points, 5)?;
    let got = words(&mut e, &b)?;
    check_words("interleaved", &got, &records(0..5, &outs, 0, 12))
}
crate::both_paths!("pipe.streamout.capture.interleaved", interleaved);

/// Array outputs, whose components count across their elements:
/// clip distances 1..=4 of an `f32[6]` as one vec4 and 5 alone, and
/// components 1..=3 of element 1 of an `f32x4[2]` array varying (its
/// components 5..=7). Every distance and element is a function of the
/// vertex's attribute, computed here again.
fn array_outputs(ctx: &mut TestContext, staging: bool) -> R {
    const VS_ARR: &str = "shader vertex
in @pos : f32x4 location=0
in @attr : f32x4 location=1
out @gl_pos : f32x4 builtin=position
out @cd : f32[6] builtin=clip_distance
out @arr : f32x4[2] location=0
fn main {
  %0 : f32x4 = load @pos
  %1 : f32x4 = load @attr
  store @gl_pos, %0
  %2 : f32 = swizzle %1, x
  %3 : f32 = const 1.0
  %4 : i32 = const 0
  %5 : f32 = fadd %2, %3
  store @cd, %4, %5
  %6 : i32 = const 1
  %7 : f32 = fadd %5, %3
  store @cd, %6, %7
  %8 : i32 = const 2
  %9 : f32 = fadd %7, %3
  store @cd, %8, %9
  %10 : i32 = const 3
  %11 : f32 = fadd %9, %3
  store @cd, %10, %11
  %12 : i32 = const 4
  %13 : f32 = fadd %11, %3
  store @cd, %12, %13
  %14 : i32 = const 5
  %15 : f32 = fadd %13, %3
  store @cd, %14, %15
  store @arr, %4, %1
  %16 : f32x4 = const 10.0, 20.0, 30.0, 40.0
  %17 : f32x4 = fadd %1, %16
  store @arr, %6, %17
}
";
    let mut e = env(ctx, staging)?;
    require_so(&e)?;
    setup(&mut e, false)?;
    bind_fs(&mut e)?;
    // Registers: 0 position, 1 clip distances, 2 the array.
    let outs = vec![so(1, 1, 4, 0, 0), so(1, 5, 1, 0, 4), so(2, 5, 3, 0, 5)];
    bind_vs(
        &mut e,
        so_shader(ShaderStage::Vertex, VS_ARR, outs, [8, 0, 0, 0])?,
    )?;
    bind_verts(&mut e, 0, 3)?;
    let b = so_buffer(&mut e, 32 * 4)?;
    let t = target(&mut e, &b, 0, 32 * 4)?;
    set_targets(&mut e, &[&t], &[Some(0)])?;
    draw(&mut e, PrimType::Points, 3)?;
    let got = words(&mut e, &b)?;
    let want: Vec<u32> = (0..3)
        .flat_map(|i| {
            let a = vert(i).attr;
            // Distance j is attr.x + j + 1.
            let cd = |j: u32| (a[0] + j as f32 + 1.0).to_bits();
            let el1 = |c: usize| (a[c] + 10.0 * (c as f32 + 1.0)).to_bits();
            [cd(1), cd(2), cd(3), cd(4), cd(5), el1(1), el1(2), el1(3)]
        })
        .collect();
    check_words("array outputs", &got, &want)
}
crate::both_paths!("pipe.streamout.capture.array_outputs", array_outputs);

/// Capture while stippled lines are emulated in shaders
/// (`PIPE_VK_DEBUG=emulate_line_stipple`): the generated geometry shader
/// is then the last vertex stage and must capture what the vertex shader
/// wrote. A line strip of 3 vertices is captured as two independent
/// lines, vertices 0 1 1 2, as with no geometry shader.
fn line_stipple_emulated(ctx: &mut TestContext, staging: bool) -> R {
    line_emulated(ctx, staging, false)
}

/// The same with emulated smooth lines
/// (`PIPE_VK_DEBUG=emulate_smooth_lines`): the capture takes the vertex
/// shader's positions, not lengthened ones (the smooth-line ends'
/// generated geometry shader is not used with stream output).
fn smooth_lines_emulated(ctx: &mut TestContext, staging: bool) -> R {
    line_emulated(ctx, staging, true)
}

fn line_emulated(ctx: &mut TestContext, staging: bool, smooth: bool) -> R {
    let mut e = crate::harness::env_with(ctx, |o| {
        o.staging = Some(staging);
        if smooth {
            o.emulate_smooth_lines = Some(true);
        } else {
            o.emulate_line_stipple = Some(true);
        }
    })?;
    require_so(&e)?;
    if !smooth && !e.screen.caps().line_stipple {
        return Err(Outcome::skip("no line stipple"));
    }
    setup(&mut e, false)?;
    let rs = RasterizerState {
        line_width: 1.0,
        half_pixel_center: true,
        depth_clip_near: true,
        depth_clip_far: true,
        line_stipple_enable: !smooth,
        line_stipple_factor: 1,
        line_stipple_pattern: 0x00ff,
        line_smooth: smooth,
        line_rectangular: smooth,
        ..Default::default()
    };
    let h = step("rasterizer", e.ctx.create_rasterizer_state(&rs))?;
    step("bind rasterizer", e.ctx.bind_rasterizer_state(Some(h)))?;
    bind_fs(&mut e)?;
    let outs = vec![so(1, 0, 4, 0, 0), so(3, 0, 1, 0, 4), so(0, 0, 4, 0, 5)];
    bind_vs(
        &mut e,
        so_shader(ShaderStage::Vertex, VS_CAP, outs.clone(), [9, 0, 0, 0])?,
    )?;
    bind_verts(&mut e, 0, 3)?;
    let b = so_buffer(&mut e, 36 * 6)?;
    let t = target(&mut e, &b, 0, 36 * 6)?;
    set_targets(&mut e, &[&t], &[Some(0)])?;
    draw(&mut e, PrimType::LineStrip, 3)?;
    let got = words(&mut e, &b)?;
    check_words(
        if smooth {
            "line strip with emulated smooth lines"
        } else {
            "line strip with emulated stipple"
        },
        &got,
        &records([0, 1, 1, 2].into_iter(), &outs, 0, 9),
    )
}
crate::both_paths!(
    "pipe.streamout.capture.line_stipple_emulated",
    line_stipple_emulated
);
// The SPIR-V shader's capture moves into the generated geometry shader.
crate::spirv_variant!(
    "pipe.streamout.capture.line_stipple_emulated",
    line_stipple_emulated
);
crate::both_paths!(
    "pipe.streamout.capture.smooth_lines_emulated",
    smooth_lines_emulated
);

/// One output per buffer, three targets; two of them share a resource
/// (disjoint ranges, the second at a byte offset).
fn separate(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    require_so(&e)?;
    require(&e, 3)?;
    setup(&mut e, false)?;
    bind_fs(&mut e)?;
    let outs = vec![so(1, 0, 4, 0, 0), so(2, 0, 2, 1, 0), so(0, 0, 4, 2, 0)];
    bind_vs(
        &mut e,
        so_shader(ShaderStage::Vertex, VS_CAP, outs.clone(), [4, 2, 4, 0])?,
    )?;
    bind_verts(&mut e, 0, 4)?;
    let b0 = so_buffer(&mut e, 256)?;
    let shared = so_buffer(&mut e, 256)?;
    let t0 = target(&mut e, &b0, 0, 256)?;
    let t1 = target(&mut e, &shared, 0, 64)?;
    let t2 = target(&mut e, &shared, 96, 128)?;
    set_targets(&mut e, &[&t0, &t1, &t2], &[Some(0); 3])?;
    draw(&mut e, PrimType::Points, 4)?;
    let got = words(&mut e, &b0)?;
    check_words("buffer 0", &got, &records(0..4, &outs, 0, 4))?;
    let got = words(&mut e, &shared)?;
    let mut want = records(0..4, &outs, 1, 2);
    want.resize(24, SENTINEL);
    want.extend(records(0..4, &outs, 2, 4));
    check_words("buffers 1 and 2 in one resource", &got, &want)
}
so_case!("pipe.streamout.capture.separate", separate);

pub(crate) fn require(e: &Env, buffers: u32) -> R {
    if e.screen.caps().max_stream_output_buffers < buffers {
        return Err(Outcome::skip(format!(
            "fewer than {buffers} stream output buffers"
        )));
    }
    Ok(())
}

/// Component subsets: a.yzw, a.x, b.y, position.zw (the depth-range
/// lowering must not leak into the captured position), in two buffers.
fn components(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    require_so(&e)?;
    setup(&mut e, false)?;
    bind_fs(&mut e)?;
    let outs = vec![
        so(1, 1, 3, 0, 0),
        so(1, 0, 1, 0, 3),
        so(2, 1, 1, 1, 1),
        so(0, 2, 2, 1, 2),
    ];
    bind_vs(
        &mut e,
        so_shader(ShaderStage::Vertex, VS_CAP, outs.clone(), [4, 5, 0, 0])?,
    )?;
    bind_verts(&mut e, 2, 3)?;
    let b0 = so_buffer(&mut e, 128)?;
    let b1 = so_buffer(&mut e, 128)?;
    let t0 = target(&mut e, &b0, 0, 128)?;
    let t1 = target(&mut e, &b1, 0, 128)?;
    set_targets(&mut e, &[&t0, &t1], &[Some(0), Some(0)])?;
    draw(&mut e, PrimType::Points, 3)?;
    let got = words(&mut e, &b0)?;
    check_words("buffer 0", &got, &records(2..5, &outs, 0, 4))?;
    let got = words(&mut e, &b1)?;
    check_words("buffer 1", &got, &records(2..5, &outs, 1, 5))
}
so_case!("pipe.streamout.capture.components", components);

const INTERLEAVED_OUTS: [(u8, u8, u8, u8, u16); 2] = [(1, 0, 4, 0, 0), (3, 0, 1, 0, 4)];

pub(crate) fn simple_outs() -> Vec<StreamOutput> {
    INTERLEAVED_OUTS
        .iter()
        .map(|&(r, s, n, b, d)| so(r, s, n, b, d))
        .collect()
}

/// Two draws, the second after re-binding the target with offset None
/// (Gallium's -1): the records follow each other.
fn append(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    require_so(&e)?;
    setup(&mut e, false)?;
    bind_fs(&mut e)?;
    let outs = simple_outs();
    bind_vs(
        &mut e,
        so_shader(ShaderStage::Vertex, VS_CAP, outs.clone(), [5, 0, 0, 0])?,
    )?;
    let b = so_buffer(&mut e, 20 * 12)?;
    let t = target(&mut e, &b, 0, 20 * 12)?;
    set_targets(&mut e, &[&t], &[Some(0)])?;
    bind_verts(&mut e, 0, 3)?;
    draw(&mut e, PrimType::Points, 3)?;
    set_targets(&mut e, &[&t], &[None])?;
    bind_verts(&mut e, 3, 4)?;
    draw(&mut e, PrimType::Points, 4)?;
    let got = words(&mut e, &b)?;
    check_words("appended", &got, &records(0..7, &outs, 0, 5))
}
so_case!("pipe.streamout.append", append);

/// Capture continues across state changes that pause it: a framebuffer
/// clear, a buffer upload (a transfer ends the rendering instance), a
/// pipeline change to a shader without a capture list (whose draw must
/// not capture), unbinding the targets (Gallium's pause) and binding them
/// again with None (resume), and a flush.
fn pause_resume(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    require_so(&e)?;
    setup(&mut e, false)?;
    bind_fs(&mut e)?;
    let outs = simple_outs();
    let cap = step(
        "vs",
        e.ctx.create_vs_state(&so_shader(
            ShaderStage::Vertex,
            VS_CAP,
            outs.clone(),
            [5, 0, 0, 0],
        )?),
    )?;
    let plain = step(
        "vs",
        e.ctx.create_vs_state(&shader(ShaderStage::Vertex, VS_CAP)?),
    )?;
    let b = so_buffer(&mut e, 20 * 16)?;
    let other = so_buffer(&mut e, 64)?;
    let t = target(&mut e, &b, 0, 20 * 16)?;
    set_targets(&mut e, &[&t], &[Some(0)])?;
    step("bind", e.ctx.bind_vs_state(Some(cap)))?;
    bind_verts(&mut e, 0, 2)?;
    draw(&mut e, PrimType::Points, 2)?;
    // Same pipeline, same instance: stays active.
    bind_verts(&mut e, 2, 1)?;
    draw(&mut e, PrimType::Points, 1)?;
    step(
        "clear",
        e.ctx.clear(
            ClearFlags::COLOR0,
            None,
            &ColorUnion::from_f32([0.0; 4]),
            1.0,
            0,
        ),
    )?;
    bind_verts(&mut e, 3, 1)?;
    draw(&mut e, PrimType::Points, 1)?;
    step(
        "buffer_subdata",
        e.ctx
            .buffer_subdata(&other, MapFlags::empty(), 0, &[1, 2, 3, 4]),
    )?;
    bind_verts(&mut e, 4, 1)?;
    draw(&mut e, PrimType::Points, 1)?;
    // Not captured: no capture list.
    step("bind", e.ctx.bind_vs_state(Some(plain)))?;
    bind_verts(&mut e, 90, 3)?;
    draw(&mut e, PrimType::Points, 3)?;
    step("bind", e.ctx.bind_vs_state(Some(cap)))?;
    bind_verts(&mut e, 5, 1)?;
    draw(&mut e, PrimType::Points, 1)?;
    // Not captured: no targets.
    step("unbind", e.ctx.set_stream_output_targets(&[], &[]))?;
    bind_verts(&mut e, 91, 2)?;
    draw(&mut e, PrimType::Points, 2)?;
    set_targets(&mut e, &[&t], &[None])?;
    bind_verts(&mut e, 6, 1)?;
    draw(&mut e, PrimType::Points, 1)?;
    e.finish()?;
    bind_verts(&mut e, 7, 2)?;
    draw(&mut e, PrimType::Points, 2)?;
    let got = words(&mut e, &b)?;
    check_words("after pauses", &got, &records(0..9, &outs, 0, 5))
}
so_case!("pipe.streamout.pause_resume", pause_resume);

/// Offset 0 restarts a target at its start (overwriting); a non-zero
/// offset starts it there; `stream_output_target_offset` follows.
fn restart_and_offsets(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    require_so(&e)?;
    setup(&mut e, false)?;
    bind_fs(&mut e)?;
    let outs = simple_outs();
    bind_vs(
        &mut e,
        so_shader(ShaderStage::Vertex, VS_CAP, outs.clone(), [5, 0, 0, 0])?,
    )?;
    let b = so_buffer(&mut e, 20 * 12)?;
    let t = target(&mut e, &b, 0, 20 * 12)?;
    let off = |e: &mut Env, t: &StreamOutputTarget| {
        step(
            "stream_output_target_offset",
            e.ctx.stream_output_target_offset(t),
        )
    };
    let before = off(&mut e, &t)?;
    check_eq("offset of a new target", before, 0)?;
    set_targets(&mut e, &[&t], &[Some(0)])?;
    bind_verts(&mut e, 0, 4)?;
    draw(&mut e, PrimType::Points, 4)?;
    // Queried while capture is active (no state change since): the
    // readback waits for the GPU and says so.
    let log = log_messages(&mut e)?;
    check_eq("offset after 4 vertices", off(&mut e, &t)?, 80)?;
    step("set_debug_callback", e.ctx.set_debug_callback(None))?;
    if !said(&log, "stream_output_target_offset waited") {
        return Err(Outcome::fail(format!(
            "no message about the counter readback's wait: {:?}",
            log.lock().map(|l| l.clone()).unwrap_or_default()
        )));
    }
    // Restart: vertices 10, 11 overwrite records 0 and 1.
    set_targets(&mut e, &[&t], &[Some(0)])?;
    check_eq("offset after restarting", off(&mut e, &t)?, 0)?;
    bind_verts(&mut e, 10, 2)?;
    draw(&mut e, PrimType::Points, 2)?;
    check_eq("offset after 2 more", off(&mut e, &t)?, 40)?;
    // Start at record 6, then append 1 after it.
    set_targets(&mut e, &[&t], &[Some(120)])?;
    check_eq("offset after setting 120", off(&mut e, &t)?, 120)?;
    bind_verts(&mut e, 20, 2)?;
    draw(&mut e, PrimType::Points, 2)?;
    set_targets(&mut e, &[&t], &[None])?;
    bind_verts(&mut e, 30, 1)?;
    draw(&mut e, PrimType::Points, 1)?;
    check_eq("offset at the end", off(&mut e, &t)?, 180)?;
    let got = words(&mut e, &b)?;
    let mut want = records([10, 11, 2, 3].into_iter(), &outs, 0, 5);
    want.resize(30, SENTINEL);
    want.extend(records([20, 21, 30].into_iter(), &outs, 0, 5));
    check_words("restart and offsets", &got, &want)
}
so_case!("pipe.streamout.offsets", restart_and_offsets);

/// Two triangles covering the left half are captured after VS_SHIFT moved
/// them to the right half, with rasterization discarded; draw-auto then
/// draws the captured positions: the right half is red, the left black.
/// The same target re-bound at offset 3 records draws only the first
/// triangle (the offset reaches the counter through a fill).
fn draw_auto(ctx: &mut TestContext) -> R {
    draw_auto_on(ctx, false)
}
so_case!("pipe.streamout.draw_auto", draw_auto);

/// [`draw_auto`] with the vertex count read back on the CPU, as on
/// devices without `transformFeedbackDraw` (`PIPE_VK_DEBUG=no_xfb_draw`).
fn draw_auto_cpu(ctx: &mut TestContext) -> R {
    draw_auto_on(ctx, true)
}
so_case!("pipe.streamout.draw_auto_cpu_count", draw_auto_cpu);

fn draw_auto_on(ctx: &mut TestContext, cpu_count: bool) -> R {
    let mut e = crate::harness::env_with(ctx, |o| o.no_xfb_draw = Some(cpu_count))?;
    // The CPU count says so (a PerfInfo message); the GPU's does not.
    let log = log_messages(&mut e)?;
    require_so(&e)?;
    let color = setup(&mut e, true)?;
    bind_fs(&mut e)?;
    let pos_out = vec![so(0, 0, 4, 0, 0)];
    bind_vs(
        &mut e,
        so_shader(ShaderStage::Vertex, VS_SHIFT, pos_out, [4, 0, 0, 0])?,
    )?;
    let quad: [f32; 24] = [
        -1.0, -1.0, 0.0, 1.0, 0.0, -1.0, 0.0, 1.0, -1.0, 1.0, 0.0, 1.0, //
        0.0, -1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, -1.0, 1.0, 0.0, 1.0,
    ];
    bind_streams(&mut e, &[&quad])?;
    let b = so_buffer(&mut e, 16 * 12)?;
    let t = target(&mut e, &b, 0, 16 * 12)?;
    set_targets(&mut e, &[&t], &[Some(0)])?;
    clear_black(&mut e)?;
    draw(&mut e, PrimType::Triangles, 6)?;
    // Rasterizer discard: nothing drawn yet.
    let black = unorm([0.0, 0.0, 0.0, 1.0]);
    let red = unorm([1.0, 0.0, 0.0, 1.0]);
    let got = e.read_texture(&color, 0, &PipeBox::rect(0, 0, W, H))?;
    check_pixels(ctx, &got, |_, _| black)?;
    replay_from(&mut e, &b)?;
    bind_vs(&mut e, shader(ShaderStage::Vertex, VS_PASS)?)?;
    draw_auto_from(&mut e, PrimType::Triangles, &t)?;
    let got = e.read_texture(&color, 0, &PipeBox::rect(0, 0, W, H))?;
    check_pixels(ctx, &got, |x, _| if x >= W / 2 { red } else { black })?;
    // Three records: the first triangle, NDC (0,-1), (1,-1), (0,1), i.e.
    // window (8,0), (16,0), (8,16): pixel centres with
    // 2 (x + 0.5 - 8) + (y + 0.5) < 16, i.e. 2 (x - 8) + y <= 14 (no
    // centre lies on the edge).
    clear_black(&mut e)?;
    set_targets(&mut e, &[&t], &[Some(48)])?;
    step("unbind targets", e.ctx.set_stream_output_targets(&[], &[]))?;
    draw_auto_from(&mut e, PrimType::Triangles, &t)?;
    let got = e.read_texture(&color, 0, &PipeBox::rect(0, 0, W, H))?;
    check_pixels(ctx, &got, |x, y| {
        if x >= W / 2 && 2 * (x - W / 2) + y <= 14 {
            red
        } else {
            black
        }
    })?;
    if said(&log, "vertex count back on the CPU") != cpu_count {
        return Err(Outcome::fail(format!(
            "the count was {} on the CPU",
            if cpu_count { "not read" } else { "read" }
        )));
    }
    Ok(())
}

/// Draw-auto in a topology that needs index rewriting, which takes its
/// vertex count back to the CPU: 8 captured vertices are the corners of
/// two quads (the right half, then the bottom-left quarter), and drawn as
/// quads they fill both. Re-bound at offset 6 records, the count is 6:
/// the first quad, and two corners that make no quad. A count not divided
/// by the stride, or the corners drawn as triangles, fails.
fn draw_auto_rewritten(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    require_so(&e)?;
    let color = setup(&mut e, true)?;
    bind_fs(&mut e)?;
    bind_vs(
        &mut e,
        so_shader(
            ShaderStage::Vertex,
            VS_PASS,
            vec![so(0, 0, 4, 0, 0)],
            [4, 0, 0, 0],
        )?,
    )?;
    let corners: [f32; 32] = [
        0.0, -1.0, 0.0, 1.0, 1.0, -1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, //
        -1.0, -1.0, 0.0, 1.0, 0.0, -1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, -1.0, 0.0, 0.0, 1.0,
    ];
    bind_streams(&mut e, &[&corners])?;
    let b = so_buffer(&mut e, 16 * 8)?;
    let t = target(&mut e, &b, 0, 16 * 8)?;
    set_targets(&mut e, &[&t], &[Some(0)])?;
    draw(&mut e, PrimType::Points, 8)?;
    replay_from(&mut e, &b)?;
    let black = unorm([0.0, 0.0, 0.0, 1.0]);
    let red = unorm([1.0, 0.0, 0.0, 1.0]);
    clear_black(&mut e)?;
    // The count comes from the GPU's counter, written by the capture.
    draw_auto_from(&mut e, PrimType::Quads, &t)?;
    let got = e.read_texture(&color, 0, &PipeBox::rect(0, 0, W, H))?;
    check_pixels(
        ctx,
        &got,
        |x, y| {
            if x >= W / 2 || y < H / 2 {
                red
            } else {
                black
            }
        },
    )?;
    clear_black(&mut e)?;
    set_targets(&mut e, &[&t], &[Some(16 * 6)])?;
    step("unbind targets", e.ctx.set_stream_output_targets(&[], &[]))?;
    draw_auto_from(&mut e, PrimType::Quads, &t)?;
    let got = e.read_texture(&color, 0, &PipeBox::rect(0, 0, W, H))?;
    check_pixels(ctx, &got, |x, _| if x >= W / 2 { red } else { black })
}
so_case!("pipe.streamout.draw_auto_rewritten", draw_auto_rewritten);

/// A draw-auto draw of `mode` from `t`.
fn draw_auto_from(e: &mut Env, mode: PrimType, t: &StreamOutputTarget) -> R {
    step(
        "draw_vbo (draw-auto)",
        e.ctx.draw_vbo(
            &DrawInfo {
                mode,
                ..DrawInfo::default()
            },
            0,
            Some(&DrawIndirectInfo {
                count_from_stream_output: Some(t.clone()),
                ..Default::default()
            }),
            &[],
        ),
    )
}

/// After a capture: unbinds the targets, rasterizes again and binds the
/// captured buffer `b` as vertex buffer 0.
fn replay_from(e: &mut Env, b: &Resource) -> R {
    step("unbind targets", e.ctx.set_stream_output_targets(&[], &[]))?;
    rasterizer(e, false)?;
    step(
        "vbufs",
        e.ctx.set_vertex_buffers(&[VertexBuffer {
            buffer: Some(VertexBufferSource::Resource(b.clone())),
            buffer_offset: 0,
        }]),
    )
}

pub(crate) fn clear_black(e: &mut Env) -> R {
    crate::cases::draw::clear_color(e, [0.0, 0.0, 0.0, 1.0])
}

/// Collects the texts of the driver's debug messages from now on.
fn log_messages(e: &mut Env) -> Result<Arc<std::sync::Mutex<Vec<String>>>, Outcome> {
    let log: Arc<std::sync::Mutex<Vec<String>>> = Arc::default();
    let sink = log.clone();
    let cb: DebugCallback = Arc::new(move |m: &DebugMessage| {
        if let Ok(mut l) = sink.lock() {
            l.push(m.text.clone());
        }
    });
    step("set_debug_callback", e.ctx.set_debug_callback(Some(cb)))?;
    Ok(log)
}

/// Whether a message of `log` contains `needle`.
fn said(log: &std::sync::Mutex<Vec<String>>, needle: &str) -> bool {
    log.lock()
        .map(|l| l.iter().any(|m| m.contains(needle)))
        .unwrap_or(false)
}

pub(crate) fn check_eq(what: &str, got: u32, want: u32) -> R {
    if got != want {
        return Err(Outcome::fail(format!("{what}: {got}, want {want}")));
    }
    Ok(())
}

fn check_pixels<P: Into<crate::image::Rgba8Range>>(
    ctx: &TestContext,
    got: &[u8],
    want: impl Fn(u32, u32) -> P,
) -> R {
    let expect = crate::cases::draw::expected_image(got, W, H, 0, |x, y| Some(want(x, y)));
    match ctx.compare_rgba8_ranges(got, &expect, W, H) {
        Outcome::Pass => Ok(()),
        o => Err(o),
    }
}

/// Rasterizer discard with capture: the target keeps its clear colour,
/// the buffer gets the records.
fn discard(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    require_so(&e)?;
    let color = setup(&mut e, true)?;
    bind_fs(&mut e)?;
    let outs = simple_outs();
    bind_vs(
        &mut e,
        so_shader(ShaderStage::Vertex, VS_CAP, outs.clone(), [5, 0, 0, 0])?,
    )?;
    let b = so_buffer(&mut e, 20 * 8)?;
    let t = target(&mut e, &b, 0, 20 * 8)?;
    set_targets(&mut e, &[&t], &[Some(0)])?;
    step(
        "clear",
        e.ctx.clear(
            ClearFlags::COLOR0,
            None,
            &ColorUnion::from_f32([0.0, 0.0, 1.0, 1.0]),
            1.0,
            0,
        ),
    )?;
    // Two triangles covering the whole target, if they were rasterized;
    // the attributes are those of vertices 0..6.
    let cover: [f32; 24] = [
        -1.0, -1.0, 0.0, 1.0, 1.0, -1.0, 0.0, 1.0, -1.0, 1.0, 0.0, 1.0, //
        1.0, -1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0, -1.0, 1.0, 0.0, 1.0,
    ];
    let attr: Vec<f32> = (0..6).flat_map(|i| vert(i).attr).collect();
    bind_streams(&mut e, &[&cover, &attr])?;
    draw(&mut e, PrimType::Triangles, 6)?;
    let got = e.read_texture(&color, 0, &PipeBox::rect(0, 0, W, H))?;
    check_pixels(ctx, &got, |_, _| unorm([0.0, 0.0, 1.0, 1.0]))?;
    let got = words(&mut e, &b)?;
    check_words(
        "discarded draw's capture",
        &got,
        &records(0..6, &outs, 0, 5),
    )
}
so_case!("pipe.streamout.rasterizer_discard", discard);

/// A target with room for 4 vertices inside a larger buffer: of 3
/// triangles only the first fits whole, and a primitive is captured whole
/// or not at all; nothing outside the written records changes (before the
/// target, after it); the offset stops at 48 until a primitive small
/// enough comes, and at 64 once the target is full.
fn overflow(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    require_so(&e)?;
    setup(&mut e, true)?;
    bind_fs(&mut e)?;
    let outs = vec![so(1, 0, 4, 0, 0)];
    bind_vs(
        &mut e,
        so_shader(ShaderStage::Vertex, VS_CAP, outs.clone(), [4, 0, 0, 0])?,
    )?;
    let b = so_buffer(&mut e, 128)?;
    let t = target(&mut e, &b, 16, 64)?;
    set_targets(&mut e, &[&t], &[Some(0)])?;
    bind_verts(&mut e, 0, 9)?;
    draw(&mut e, PrimType::Triangles, 9)?;
    let off = step("offset", e.ctx.stream_output_target_offset(&t))?;
    check_eq("offset after overflow", off, 48)?;
    // Another triangle does not fit either; one point does (the last 16
    // bytes), and then nothing more.
    set_targets(&mut e, &[&t], &[None])?;
    draw(&mut e, PrimType::Triangles, 3)?;
    let off = step("offset", e.ctx.stream_output_target_offset(&t))?;
    check_eq("offset after a triangle that does not fit", off, 48)?;
    draw(&mut e, PrimType::Points, 1)?;
    draw(&mut e, PrimType::Points, 1)?;
    let off = step("offset", e.ctx.stream_output_target_offset(&t))?;
    check_eq("offset after filling the target", off, 64)?;
    let got = words(&mut e, &b)?;
    let mut want = vec![SENTINEL; 4];
    want.extend(records([0, 1, 2, 0].into_iter(), &outs, 0, 4));
    check_words("overflow", &got, &want)
}
so_case!("pipe.streamout.overflow", overflow);

/// Points in; stream 0 gets `a` = 2 * position once per point, stream 1
/// gets `b` = position.xy + (k, 0) for k = 0, 1: twice as many records.
pub(crate) const GS_STREAMS: &str =
    "shader geometry input=points output=points max_vertices=3 invocations=1
in @pin : f32x4[1] builtin=position
out @gl_pos : f32x4 builtin=position
out @a : f32x4 location=0
out @b : f32x2 location=1 stream=1
fn main {
  %0 : i32 = const 0
  %1 : f32x4 = load @pin, %0
  store @gl_pos, %1
  %2 : f32x4 = fadd %1, %1
  store @a, %2
  emit_vertex
  end_primitive
  %3 : f32x2 = swizzle %1, xy
  store @b, %3
  emit_vertex stream=1
  end_primitive stream=1
  %4 : f32x2 = const 1.0, 0.0
  %5 : f32x2 = fadd %3, %4
  store @b, %5
  emit_vertex stream=1
  end_primitive stream=1
}
";

fn geometry_streams(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    require_so(&e)?;
    require(&e, 2)?;
    let caps = e.screen.caps().clone();
    if !caps.shader[ShaderStage::Geometry.index()].supported || caps.max_vertex_stream < 1 {
        return Err(Outcome::skip("no geometry shader streams"));
    }
    setup(&mut e, false)?;
    bind_fs(&mut e)?;
    bind_vs(&mut e, shader(ShaderStage::Vertex, VS_PASS)?)?;
    let mut s1 = so(2, 0, 2, 1, 0);
    s1.stream = 1;
    let gs = so_shader(
        ShaderStage::Geometry,
        GS_STREAMS,
        vec![so(1, 0, 4, 0, 0), s1],
        [4, 2, 0, 0],
    )?;
    let g = step("create_gs_state", e.ctx.create_gs_state(&gs))?;
    step("bind_gs_state", e.ctx.bind_gs_state(Some(g)))?;
    let n = 5;
    let pos: Vec<f32> = (0..n).flat_map(|i| vert(i).pos).collect();
    bind_streams(&mut e, &[&pos])?;
    let b0 = so_buffer(&mut e, 16 * 8)?;
    let b1 = so_buffer(&mut e, 8 * 12)?;
    let t0 = target(&mut e, &b0, 0, 16 * 8)?;
    let t1 = target(&mut e, &b1, 0, 8 * 12)?;
    set_targets(&mut e, &[&t0, &t1], &[Some(0), Some(0)])?;
    draw(&mut e, PrimType::Points, n)?;
    let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<u32>>();
    let want0: Vec<u32> = (0..n)
        .flat_map(|i| bits(&vert(i).pos.map(|x| x + x)))
        .collect();
    let want1: Vec<u32> = (0..n)
        .flat_map(|i| {
            let p = vert(i).pos;
            bits(&[p[0], p[1], p[0] + 1.0, p[1]])
        })
        .collect();
    let got = words(&mut e, &b0)?;
    check_words("stream 0", &got, &want0)?;
    let got = words(&mut e, &b1)?;
    check_words("stream 1", &got, &want1)?;
    let o = step("offset", e.ctx.stream_output_target_offset(&t1))?;
    check_eq("stream 1 offset", o, 8 * 2 * n)
}
so_case!("pipe.streamout.geometry.streams", geometry_streams);

/// Expects `r` to be `InvalidArgument` (or, with `unsupported`,
/// `Unsupported`) mentioning `needle`.
pub(crate) fn rejects<T: std::fmt::Debug>(what: &str, needle: &str, r: Result<T, PipeError>) -> R {
    match r {
        Err(PipeError::InvalidArgument(m)) | Err(PipeError::Unsupported(m))
            if m.contains(needle) =>
        {
            Ok(())
        }
        other => Err(Outcome::fail(format!(
            "{what}: expected an error mentioning {needle:?}, got {other:?}"
        ))),
    }
}

/// Bad input, through the validating wrapper (`env`) and straight to the
/// pipe-vk context: both must return errors.
fn bad_input_on(e: &mut Env, wrapped: bool) -> R {
    let w = if wrapped { "validated" } else { "pipe-vk" };
    let b = so_buffer(e, 64)?;
    let tex = e.texture(&ResourceTemplate::texture_2d(
        Format::R8G8B8A8Unorm,
        4,
        4,
        BindFlags::SAMPLER_VIEW,
    ))?;
    rejects(
        w,
        "not a buffer",
        e.ctx.create_stream_output_target(&tex, 0, 16),
    )?;
    rejects(w, "64", e.ctx.create_stream_output_target(&b, 32, 64))?;
    rejects(w, "", e.ctx.create_stream_output_target(&b, 2, 16))?;
    rejects(w, "empty", e.ctx.create_stream_output_target(&b, 64, 0))?;
    let t = target(e, &b, 0, 32)?;
    let t2 = target(e, &b, 32, 32)?;
    let max = e.screen.caps().max_stream_output_buffers as usize;
    let many = vec![Some(t.clone()); max + 1];
    rejects(
        w,
        "exceed",
        e.ctx
            .set_stream_output_targets(&many, &vec![Some(0); max + 1]),
    )?;
    rejects(
        w,
        "past",
        e.ctx
            .set_stream_output_targets(&[Some(t.clone())], &[Some(36)]),
    )?;
    rejects(
        w,
        "offsets",
        e.ctx.set_stream_output_targets(&[Some(t.clone())], &[]),
    )?;
    rejects(
        w,
        "twice",
        e.ctx
            .set_stream_output_targets(&[Some(t.clone()), Some(t.clone())], &[None, None]),
    )?;
    // Capture lists that do not fit the shader.
    let vs = shader(ShaderStage::Vertex, VS_CAP)?;
    rejects(
        w,
        "no output 7",
        e.ctx
            .create_vs_state(&with_so(vs.clone(), vec![so(7, 0, 4, 0, 0)], [4, 0, 0, 0])),
    )?;
    rejects(
        w,
        "components",
        e.ctx
            .create_vs_state(&with_so(vs.clone(), vec![so(2, 1, 2, 0, 0)], [4, 0, 0, 0])),
    )?;
    rejects(
        w,
        "stride",
        e.ctx
            .create_vs_state(&with_so(vs.clone(), vec![so(1, 0, 4, 0, 2)], [4, 0, 0, 0])),
    )?;
    rejects(
        w,
        "fs",
        e.ctx.create_fs_state(&with_so(
            shader(ShaderStage::Fragment, FS_UBO_COLOR)?,
            vec![so(0, 0, 4, 0, 0)],
            [4, 0, 0, 0],
        )),
    )?;
    // Draw-auto from a target that never captured anything, and indexed.
    setup(e, true)?;
    bind_fs(e)?;
    bind_vs(e, shader(ShaderStage::Vertex, VS_PASS)?)?;
    bind_streams(e, &[&[0.0; 12]])?;
    let auto = DrawIndirectInfo {
        count_from_stream_output: Some(t2.clone()),
        ..Default::default()
    };
    rejects(
        w,
        "never captured",
        e.ctx.draw_vbo(&DrawInfo::default(), 0, Some(&auto), &[]),
    )?;
    // The same through the CPU count of a rewritten topology.
    rejects(
        w,
        "never captured",
        e.ctx.draw_vbo(
            &DrawInfo {
                mode: PrimType::Quads,
                ..DrawInfo::default()
            },
            0,
            Some(&auto),
            &[],
        ),
    )?;
    rejects(
        w,
        "not indexed",
        e.ctx.draw_vbo(
            &DrawInfo {
                index_size: 2,
                index: IndexSource::Resource(b.clone()),
                ..DrawInfo::default()
            },
            0,
            Some(&auto),
            &[],
        ),
    )?;
    // Bound at offset 0 and unbound with no draw between (GL: transform
    // feedback begun and ended): draw-auto draws the nothing it captured,
    // on the GPU's count and on the CPU's.
    set_targets(e, &[&t2], &[Some(0)])?;
    step("unbind targets", e.ctx.set_stream_output_targets(&[], &[]))?;
    for mode in [PrimType::Points, PrimType::Quads] {
        step(
            "draw-auto from a target that captured nothing",
            e.ctx.draw_vbo(
                &DrawInfo {
                    mode,
                    ..DrawInfo::default()
                },
                0,
                Some(&auto),
                &[],
            ),
        )?;
    }
    // With an offset set but no capture, there is no stride to divide
    // it by.
    set_targets(e, &[&t2], &[Some(8)])?;
    step("unbind targets", e.ctx.set_stream_output_targets(&[], &[]))?;
    rejects(
        w,
        "never captured",
        e.ctx.draw_vbo(&DrawInfo::default(), 0, Some(&auto), &[]),
    )?;
    // The shader captures into buffer 1; only buffer 0 has a target.
    bind_vs(
        e,
        with_so(vs, vec![so(1, 0, 4, 0, 0), so(2, 0, 2, 1, 0)], [4, 2, 0, 0]),
    )?;
    set_targets(e, &[&t], &[Some(0)])?;
    bind_verts(e, 0, 1)?;
    rejects(
        w,
        "buffer 1",
        e.ctx.draw_vbo(
            &DrawInfo {
                mode: PrimType::Points,
                ..DrawInfo::default()
            },
            0,
            None,
            &[DrawStartCountBias {
                start: 0,
                count: 1,
                index_bias: 0,
            }],
        ),
    )?;
    // Draw-auto from a target the draw itself captures into, on the GPU
    // count's path and on the CPU count's (quads).
    bind_vs(
        e,
        so_shader(
            ShaderStage::Vertex,
            VS_CAP,
            vec![so(1, 0, 4, 0, 0)],
            [4, 0, 0, 0],
        )?,
    )?;
    set_targets(e, &[&t], &[Some(0)])?;
    draw(e, PrimType::Points, 1)?;
    let from_t = DrawIndirectInfo {
        count_from_stream_output: Some(t.clone()),
        ..Default::default()
    };
    for mode in [PrimType::Points, PrimType::Quads] {
        rejects(
            w,
            "while capturing",
            e.ctx.draw_vbo(
                &DrawInfo {
                    mode,
                    ..DrawInfo::default()
                },
                0,
                Some(&from_t),
                &[],
            ),
        )?;
    }
    step("unbind", e.ctx.set_stream_output_targets(&[], &[]))?;
    e.finish()
}

fn bad_input(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    require_so(&e)?;
    bad_input_on(&mut e, true)?;
    let opts = crate::harness::options(ctx);
    let screen = step("screen", pipe_vk::VkScreen::new(&opts))?;
    let vk_ctx = step("context", screen.create_vk_context())?;
    let mut raw = Env {
        screen: screen.clone(),
        ctx: Box::new(vk_ctx),
    };
    bad_input_on(&mut raw, false)
}
case!("pipe.streamout.bad_input", bad_input);

const TCS: &str = "shader tess_ctrl vertices=3
in @pos : f32x4[32] builtin=position
in @iid : i32 builtin=invocation_id
out @opos : f32x4[3] builtin=position
out @outer : f32[4] builtin=tess_level_outer
out @inner : f32[2] builtin=tess_level_inner
fn main {
  %0 : i32 = load @iid
  %1 : f32x4 = load @pos, %0
  store @opos, %0, %1
  %2 : i32 = const 0
  %3 : bool = ieq %0, %2
  if %3 {
    %4 : f32 = const 1.0
    %5 : i32 = const 1
    %6 : i32 = const 2
    store @outer, %2, %4
    store @outer, %5, %4
    store @outer, %6, %4
    store @inner, %2, %4
  }
}
";

/// Levels 1: each patch is its own triangle. Outputs: 0 position (the
/// barycentric blend of the patch), 1 `w` = the tessellation coordinate.
const TES_CAP: &str = "shader tess_eval mode=triangles spacing=equal winding=ccw
in @pos : f32x4[32] builtin=position
in @tc : f32x3 builtin=tess_coord
out @gl_pos : f32x4 builtin=position
out @w : f32x3 location=0
fn main {
  %0 : f32x3 = load @tc
  store @w, %0
  %1 : i32 = const 0
  %2 : i32 = const 1
  %3 : i32 = const 2
  %4 : f32x4 = load @pos, %1
  %5 : f32x4 = load @pos, %2
  %6 : f32x4 = load @pos, %3
  %7 : f32 = swizzle %0, x
  %8 : f32 = swizzle %0, y
  %9 : f32 = swizzle %0, z
  %10 : f32x4 = vec %7, %7, %7, %7
  %11 : f32x4 = vec %8, %8, %8, %8
  %12 : f32x4 = vec %9, %9, %9, %9
  %13 : f32x4 = fmul %4, %10
  %14 : f32x4 = ffma %5, %11, %13
  %15 : f32x4 = ffma %6, %12, %14
  store @gl_pos, %15
}
";

/// The tessellation evaluation shader as the last stage: two patches of
/// levels 1 give two triangles whose corners carry a unit tessellation
/// coordinate. The order of a triangle's corners is the tessellator's, so
/// each record is checked for itself: its position must be the patch
/// vertex its coordinate selects (primitives are captured in order).
fn tess_eval(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    require_so(&e)?;
    if !e.screen.caps().shader[ShaderStage::TessEval.index()].supported {
        return Err(Outcome::skip("no tessellation"));
    }
    setup(&mut e, false)?;
    bind_fs(&mut e)?;
    bind_vs(&mut e, shader(ShaderStage::Vertex, VS_PASS)?)?;
    let tc = step(
        "tcs",
        e.ctx.create_tcs_state(&shader(ShaderStage::TessCtrl, TCS)?),
    )?;
    let te = step(
        "tes",
        e.ctx.create_tes_state(&so_shader(
            ShaderStage::TessEval,
            TES_CAP,
            vec![so(1, 0, 3, 0, 0), so(0, 0, 4, 0, 3)],
            [7, 0, 0, 0],
        )?),
    )?;
    step("bind tcs", e.ctx.bind_tcs_state(Some(tc)))?;
    step("bind tes", e.ctx.bind_tes_state(Some(te)))?;
    step("patch vertices", e.ctx.set_patch_vertices(3))?;
    let pos: Vec<f32> = (0..6).flat_map(|i| vert(i).pos).collect();
    bind_streams(&mut e, &[&pos])?;
    let b = so_buffer(&mut e, 28 * 8)?;
    let t = target(&mut e, &b, 0, 28 * 8)?;
    set_targets(&mut e, &[&t], &[Some(0)])?;
    draw(&mut e, PrimType::Patches, 6)?;
    let got = words(&mut e, &b)?;
    for r in 0..6 {
        let rec = &got[r * 7..r * 7 + 7];
        let w: Vec<f32> = rec[..3].iter().map(|x| f32::from_bits(*x)).collect();
        let Some(k) = (0..3).find(|&k| w[k] == 1.0 && w.iter().sum::<f32>() == 1.0) else {
            return Err(Outcome::fail(format!(
                "record {r}: tessellation coordinate {w:?} is not a corner"
            )));
        };
        let patch_vertex = vert((r / 3 * 3 + k) as u32).pos.map(f32::to_bits);
        if rec[3..] != patch_vertex {
            return Err(Outcome::fail(format!(
                "record {r}: position {:?}, want patch vertex {k} {:?}",
                rec[3..]
                    .iter()
                    .map(|x| f32::from_bits(*x))
                    .collect::<Vec<_>>(),
                patch_vertex.map(f32::from_bits)
            )));
        }
    }
    check_words("past the records", &got[42..], &[])?;
    let o = step("offset", e.ctx.stream_output_target_offset(&t))?;
    check_eq("offset", o, 6 * 28)
}
so_case!("pipe.streamout.tess_eval", tess_eval);
