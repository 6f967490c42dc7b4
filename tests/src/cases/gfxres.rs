//! `pipe.render.{ssbo,image,texbuf}.*`: shader buffers, shader images and
//! texture buffers in graphics stages.
//!
//! Shaders are spirv-gen text IR. Expected pixels and buffer contents are
//! computed here from the geometry (pixel rectangles whose edges lie on
//! pixel boundaries, so no centre is on an edge; one triangle whose
//! coverage is counted with edge functions, checked to have no ties) and
//! the data the test uploads. Draws that write a resource are followed,
//! without a flush, by draws and maps that read it: under `--validation`
//! synchronization validation reports any barrier the driver misses.

use std::sync::Arc;

use pipe_core::draw::{DrawInfo, DrawStartCountBias, PrimType};
use pipe_core::flags::{BarrierFlags, ClearFlags, MapFlags};
use pipe_core::resource::{BindFlags, PipeBox, ResourceFlags, ResourceTemplate};
use pipe_core::state::*;
use pipe_core::view::{SamplerViewTemplate, SurfaceTemplate, ViewRange};
use pipe_core::{Format, PipeError, Resource};

use crate::harness::{
    bind_program, env, f32s, set_color, shader, step, unorm, Env, FS_UBO_COLOR, VS_PASSTHROUGH,
};
use crate::{both_paths, Outcome, TestContext};

type R = Result<(), Outcome>;

/// A case on both memory paths (`both_paths!`), and `.spirv`: the same
/// with every shader given as SPIR-V passthrough, whose resources pipe-vk
/// reads from the words (`spirv_gen::patch::ir_resources`).
macro_rules! gfx_case {
    ($name:literal, $body:path) => {
        both_paths!($name, $body);
        crate::spirv_variant!($name, $body);
    };
}

const W: u32 = 16;
const H: u32 = 16;

fn u32_bytes(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn bytes_u32(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Skips unless `stage` can have shader buffers and images.
fn need_stores(e: &Env, stage: ShaderStage) -> R {
    let caps = e.screen.caps();
    let c = &caps.shader[stage.index()];
    if !c.supported || c.max_shader_buffers == 0 || c.max_shader_images == 0 {
        return Err(Outcome::skip(format!(
            "no shader buffers or images in {} shaders",
            stage.short_name()
        )));
    }
    Ok(())
}

/// A 16x16 RGBA8 render target, bound with a full viewport; cleared to
/// transparent black.
fn setup(e: &mut Env) -> Result<Resource, Outcome> {
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
        scale: [W as f32 / 2.0, H as f32 / 2.0, 1.0],
        translate: [W as f32 / 2.0, H as f32 / 2.0, 0.0],
        swizzle: Default::default(),
    };
    step("viewport", e.ctx.set_viewport_states(0, &[vp]))?;
    let rs = RasterizerState {
        line_width: 1.0,
        clip_halfz: true,
        depth_clip_near: true,
        depth_clip_far: true,
        ..Default::default()
    };
    let h = step("rasterizer", e.ctx.create_rasterizer_state(&rs))?;
    step("bind rasterizer", e.ctx.bind_rasterizer_state(Some(h)))?;
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
    Ok(color)
}

/// NDC of window coordinate `p` (16-pixel target).
fn ndc(p: f32) -> f32 {
    p / 8.0 - 1.0
}

/// Two triangles covering pixels `x0..x1` x `y0..y1` (x, y, z, w each).
fn rect(x0: u32, y0: u32, x1: u32, y1: u32) -> Vec<f32> {
    let (a, b, c, d) = (
        ndc(x0 as f32),
        ndc(y0 as f32),
        ndc(x1 as f32),
        ndc(y1 as f32),
    );
    vec![
        a, b, 0.0, 1.0, c, b, 0.0, 1.0, c, d, 0.0, 1.0, a, b, 0.0, 1.0, c, d, 0.0, 1.0, a, d, 0.0,
        1.0,
    ]
}

fn in_rect(x: u32, y: u32, r: (u32, u32, u32, u32)) -> bool {
    x >= r.0 && x < r.2 && y >= r.1 && y < r.3
}

/// Binds `verts` as vertex buffer 0 (vec4 at location 0).
fn bind_vertices(e: &mut Env, verts: &[f32]) -> R {
    let ve = step(
        "vertex elements",
        e.ctx.create_vertex_elements_state(&[VertexElement {
            src_offset: 0,
            src_stride: 16,
            vertex_buffer_index: 0,
            dual_slot: false,
            src_format: Format::R32G32B32A32Float,
            instance_divisor: 0,
        }]),
    )?;
    step("bind velems", e.ctx.bind_vertex_elements_state(Some(ve)))?;
    step(
        "set_vertex_buffers",
        e.ctx.set_vertex_buffers(&[VertexBuffer {
            buffer: Some(VertexBufferSource::User(Arc::from(f32s(verts)))),
            buffer_offset: 0,
        }]),
    )
}

fn draw_mode(e: &mut Env, mode: PrimType, count: u32) -> Result<(), PipeError> {
    e.ctx.draw_vbo(
        &DrawInfo {
            mode,
            instance_count: 1,
            ..DrawInfo::default()
        },
        0,
        None,
        &[DrawStartCountBias {
            start: 0,
            count,
            index_bias: 0,
        }],
    )
}

fn draw(e: &mut Env, count: u32) -> R {
    step("draw_vbo", draw_mode(e, PrimType::Triangles, count))
}

/// Draws pixel rectangle `r`.
fn draw_rect(e: &mut Env, r: (u32, u32, u32, u32)) -> R {
    bind_vertices(e, &rect(r.0, r.1, r.2, r.3))?;
    draw(e, 6)
}

/// Compares the target with `expect(x, y)`; writes PNGs on failure.
fn check_image<P: Into<crate::image::Rgba8Range>>(
    ctx: &TestContext,
    e: &mut Env,
    color: &Resource,
    expect: impl Fn(u32, u32) -> P,
) -> R {
    let got = e.read_texture(color, 0, &PipeBox::rect(0, 0, W, H))?;
    let want = crate::cases::draw::expected_image(&got, W, H, 0, |x, y| Some(expect(x, y)));
    match ctx.compare_rgba8_ranges(&got, &want, W, H) {
        Outcome::Pass => Ok(()),
        o => Err(o),
    }
}

fn expect_u32s(what: &str, got: &[u32], want: &[u32]) -> R {
    if got.len() != want.len() {
        return Err(Outcome::fail(format!(
            "{what}: {} values, expected {}",
            got.len(),
            want.len()
        )));
    }
    if let Some(i) = got.iter().zip(want).position(|(a, b)| a != b) {
        return Err(Outcome::fail(format!(
            "{what}: value {i} is {}, expected {}",
            got[i], want[i]
        )));
    }
    Ok(())
}

/// A buffer holding `data`.
fn buffer_with(e: &mut Env, data: &[u8]) -> Result<Resource, Outcome> {
    let buf = e.buffer(data.len() as u32, ResourceFlags::empty())?;
    step(
        "buffer_subdata",
        e.ctx.buffer_subdata(&buf, MapFlags::empty(), 0, data),
    )?;
    Ok(buf)
}

/// Binds `buf` (`offset`, `size`) as shader buffer `slot` of `stage`.
fn bind_ssbo(
    e: &mut Env,
    stage: ShaderStage,
    slot: u32,
    buf: &Resource,
    offset: u32,
    size: u32,
    writable: bool,
) -> R {
    step(
        "set_shader_buffers",
        e.ctx.set_shader_buffers(
            stage,
            slot,
            &[Some(ShaderBuffer {
                buffer: buf.clone(),
                buffer_offset: offset,
                buffer_size: size,
            })],
            u32::from(writable),
        ),
    )
}

fn read_u32s(e: &mut Env, buf: &Resource, n: u32) -> Result<Vec<u32>, Outcome> {
    Ok(bytes_u32(&e.read_buffer(buf, 0, n * 4)?))
}

/// `frag = ssbo[(x / 8) * 16]`: the left half shows the first vec4 of
/// shader buffer 0, the right half the second.
const FS_SSBO_COLOR: &str = "shader fragment
in @fc : f32x4 builtin=frag_coord
out @frag : f32x4 location=0
ssbo @c slot=0 readonly
fn main {
  %0 : f32x4 = load @fc
  %1 : f32 = swizzle %0, x
  %2 : u32 = f2u %1
  %3 : u32 = const 3
  %4 : u32 = ushr %2, %3
  %5 : u32 = const 4
  %6 : u32 = ishl %4, %5
  %7 : f32x4 = load_ssbo @c, %6
  store @frag, %7
}
";

const LEFT: [f32; 4] = [0.2, 0.4, 0.6, 1.0];
const RIGHT: [f32; 4] = [1.0, 0.8, 0.0, 0.4];

/// Binds the two colours of `FS_SSBO_COLOR` at an aligned, non-zero
/// offset of a larger buffer (so the offset is honoured).
fn bind_color_ssbo(e: &mut Env, left: [f32; 4], right: [f32; 4]) -> Result<Resource, Outcome> {
    let align = e.screen.caps().shader_buffer_offset_alignment.max(16);
    let mut data = vec![0u8; align as usize];
    data.extend(f32s(&left));
    data.extend(f32s(&right));
    data.extend(vec![0u8; 64]);
    let buf = buffer_with(e, &data)?;
    bind_ssbo(e, ShaderStage::Fragment, 0, &buf, align, 32, false)?;
    Ok(buf)
}

/// A fragment shader chooses its colour from a shader buffer.
fn ssbo_fs_read(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    need_stores(&e, ShaderStage::Fragment)?;
    let color = setup(&mut e)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_SSBO_COLOR)?;
    bind_color_ssbo(&mut e, LEFT, RIGHT)?;
    draw_rect(&mut e, (0, 0, W, H))?;
    check_image(ctx, &mut e, &color, |x, _| {
        unorm(if x < 8 { LEFT } else { RIGHT })
    })
}
gfx_case!("pipe.render.ssbo.fs_read_color", ssbo_fs_read);

/// Word 0: fragments shaded; word 1 + y * 16 + x: fragments at (x, y).
const FS_ATOMIC_COUNT: &str = "shader fragment
in @fc : f32x4 builtin=frag_coord
out @frag : f32x4 location=0
ssbo @s slot=0
fn main {
  %0 : f32x4 = load @fc
  %1 : f32x2 = swizzle %0, xy
  %2 : u32x2 = f2u %1
  %3 : u32 = swizzle %2, x
  %4 : u32 = swizzle %2, y
  %5 : u32 = const 16
  %6 : u32 = imul %4, %5
  %7 : u32 = iadd %6, %3
  %8 : u32 = const 1
  %9 : u32 = iadd %7, %8
  %10 : u32 = const 4
  %11 : u32 = imul %9, %10
  %12 : u32 = ssbo_atomic @s, %11, %8, op=add
  %13 : u32 = const 0
  %14 : u32 = ssbo_atomic @s, %13, %8, op=add
  %15 : f32x4 = const 0.0, 1.0, 0.0, 1.0
  store @frag, %15
}
";

/// Edge function of `p` against edge `a -> b`.
fn edge(a: (f32, f32), b: (f32, f32), p: (f32, f32)) -> f32 {
    (b.0 - a.0) * (p.1 - a.1) - (b.1 - a.1) * (p.0 - a.0)
}

/// Pixels whose centre is inside triangle `t` (window coordinates);
/// an error when a centre lies on an edge (the test's geometry must
/// avoid ties).
fn triangle_coverage(t: [(f32, f32); 3]) -> Result<Vec<bool>, Outcome> {
    let mut out = vec![false; (W * H) as usize];
    for y in 0..H {
        for x in 0..W {
            let p = (x as f32 + 0.5, y as f32 + 0.5);
            let e = [
                edge(t[0], t[1], p),
                edge(t[1], t[2], p),
                edge(t[2], t[0], p),
            ];
            if e.contains(&0.0) {
                return Err(Outcome::fail(format!(
                    "test geometry: pixel ({x}, {y}) lies on an edge"
                )));
            }
            out[(y * W + x) as usize] = e.iter().all(|v| *v > 0.0) || e.iter().all(|v| *v < 0.0);
        }
    }
    Ok(out)
}

/// Fragment shader atomics count fragments, per pixel and in total, over
/// two draws in one render pass (a rectangle and a triangle that
/// overlap); the counts are computed here from the geometry.
fn ssbo_fs_atomics(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    need_stores(&e, ShaderStage::Fragment)?;
    let color = setup(&mut e)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_ATOMIC_COUNT)?;
    let n = 1 + W * H;
    let buf = buffer_with(&mut e, &u32_bytes(&vec![0; n as usize]))?;
    bind_ssbo(&mut e, ShaderStage::Fragment, 0, &buf, 0, n * 4, true)?;
    let r = (0, 0, 10, 6);
    draw_rect(&mut e, r)?;
    // On a quarter-pixel grid (exact in any subpixel precision), with
    // no pixel centre on an edge.
    let tri = [(2.25, 2.0), (14.0, 5.25), (5.5, 15.0)];
    let cover = triangle_coverage(tri)?;
    let verts: Vec<f32> = tri
        .iter()
        .flat_map(|(x, y)| [ndc(*x), ndc(*y), 0.0, 1.0])
        .collect();
    bind_vertices(&mut e, &verts)?;
    draw(&mut e, 3)?;
    let mut want = vec![0u32; n as usize];
    for y in 0..H {
        for x in 0..W {
            let c = u32::from(in_rect(x, y, r)) + u32::from(cover[(y * W + x) as usize]);
            want[(1 + y * W + x) as usize] = c;
            want[0] += c;
        }
    }
    let got = read_u32s(&mut e, &buf, n)?;
    expect_u32s("fragment counts", &got, &want)?;
    check_image(ctx, &mut e, &color, |x, y| {
        if in_rect(x, y, r) || cover[(y * W + x) as usize] {
            [0, 255, 0, 255]
        } else {
            [0; 4]
        }
    })
}
gfx_case!("pipe.render.ssbo.fs_atomic_count", ssbo_fs_atomics);

/// The position of vertex `vertex_index` is vec4 `vertex_index` of
/// shader buffer 0 (no vertex buffers).
const VS_SSBO_POS: &str = "shader vertex
in @vid : i32 builtin=vertex_index
out @gl_pos : f32x4 builtin=position
ssbo @p slot=0 readonly
fn main {
  %0 : i32 = load @vid
  %1 : u32 = bitcast %0
  %2 : u32 = const 4
  %3 : u32 = ishl %1, %2
  %4 : f32x4 = load_ssbo @p, %3
  store @gl_pos, %4
}
";

/// A vertex shader reads its positions from a shader buffer.
fn ssbo_vs_read(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    need_stores(&e, ShaderStage::Vertex)?;
    let color = setup(&mut e)?;
    bind_program(&mut e, VS_SSBO_POS, FS_UBO_COLOR)?;
    let c = [0.0, 0.0, 1.0, 1.0];
    set_color(&mut e, c)?;
    step("no velems", e.ctx.bind_vertex_elements_state(None))?;
    let r = (3, 4, 13, 11);
    let buf = buffer_with(&mut e, &f32s(&rect(r.0, r.1, r.2, r.3)))?;
    bind_ssbo(&mut e, ShaderStage::Vertex, 0, &buf, 0, 96, false)?;
    draw(&mut e, 6)?;
    check_image(ctx, &mut e, &color, |x, y| {
        if in_rect(x, y, r) {
            unorm(c)
        } else {
            [0; 4].into()
        }
    })
}
gfx_case!("pipe.render.ssbo.vs_read_positions", ssbo_vs_read);

/// `frag = image[frag_coord.xy]` from an RGBA8 image.
const FS_IMAGE_LOAD: &str = "shader fragment
in @fc : f32x4 builtin=frag_coord
out @frag : f32x4 location=0
image @img slot=0 dim=2d format=rgba8 readonly
fn main {
  %0 : f32x4 = load @fc
  %1 : f32x2 = swizzle %0, xy
  %2 : i32x2 = f2i %1
  %3 : f32x4 = image_load @img, %2
  store @frag, %3
}
";

fn image_view(res: &Resource, format: Format, access: ImageAccess) -> ImageView {
    ImageView {
        resource: res.clone(),
        format,
        access,
        shader_access: access,
        range: ImageViewRange::Texture {
            level: 0,
            first_layer: 0,
            last_layer: 0,
        },
    }
}

fn bind_image(e: &mut Env, stage: ShaderStage, view: ImageView) -> R {
    step(
        "set_shader_images",
        e.ctx.set_shader_images(stage, 0, &[Some(view)], 0),
    )
}

/// The texel pattern of the image tests.
fn texel(x: u32, y: u32) -> [u8; 4] {
    [
        (x * 16) as u8,
        (y * 16) as u8,
        ((x * 7 + y * 3) % 256) as u8,
        255,
    ]
}

/// A fragment shader loads from a storage image.
fn image_fs_load(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    need_stores(&e, ShaderStage::Fragment)?;
    let color = setup(&mut e)?;
    let t = ResourceTemplate::texture_2d(
        Format::R8G8B8A8Unorm,
        W,
        H,
        BindFlags::SHADER_IMAGE | BindFlags::SAMPLER_VIEW,
    );
    let img = e.texture(&t)?;
    let data: Vec<u8> = (0..H)
        .flat_map(|y| (0..W).flat_map(move |x| texel(x, y)))
        .collect();
    e.write_texture(&img, 0, &PipeBox::rect(0, 0, W, H), &data)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_IMAGE_LOAD)?;
    bind_image(
        &mut e,
        ShaderStage::Fragment,
        image_view(&img, Format::R8G8B8A8Unorm, ImageAccess::READ),
    )?;
    let r = (1, 2, 15, 13);
    draw_rect(&mut e, r)?;
    check_image(ctx, &mut e, &color, |x, y| {
        if in_rect(x, y, r) {
            texel(x, y)
        } else {
            [0; 4]
        }
    })
}
gfx_case!("pipe.render.image.fs_load", image_fs_load);

/// `image[frag_coord.xy] = x + 16 y`, R32_UINT.
const FS_IMAGE_STORE: &str = "shader fragment
in @fc : f32x4 builtin=frag_coord
out @frag : f32x4 location=0
image @img slot=0 dim=2d format=r32ui writeonly
fn main {
  %0 : f32x4 = load @fc
  %1 : f32x2 = swizzle %0, xy
  %2 : i32x2 = f2i %1
  %3 : u32x2 = f2u %1
  %4 : u32 = swizzle %3, x
  %5 : u32 = swizzle %3, y
  %6 : u32 = const 16
  %7 : u32 = imul %5, %6
  %8 : u32 = iadd %7, %4
  %9 : u32x4 = vec %8, %8, %8, %8
  image_store @img, %2, %9
  %10 : f32x4 = const 1.0, 0.0, 0.0, 1.0
  store @frag, %10
}
";

/// `frag.r = texelFetch(t, frag_coord.xy).x / 255` from a R32_UINT
/// texture.
const FS_FETCH_UINT: &str = "shader fragment
in @fc : f32x4 builtin=frag_coord
out @frag : f32x4 location=0
texture @t slot=0 dim=2d sampled=uint
fn main {
  %0 : f32x4 = load @fc
  %1 : f32x2 = swizzle %0, xy
  %2 : i32x2 = f2i %1
  %3 : i32 = const 0
  %4 : u32x4 = txf @t, coord=%2, lod=%3
  %5 : u32 = swizzle %4, x
  %6 : f32 = u2f %5
  %7 : f32 = const 255.0
  %8 : f32 = fdiv %6, %7
  %9 : f32 = const 0.0
  %10 : f32 = const 1.0
  %11 : f32x4 = vec %8, %9, %9, %10
  store @frag, %11
}
";

const SENTINEL: u32 = 0xdead_beef;

/// A fragment shader stores to an image; the next draw in the same
/// framebuffer samples it, then the image is read back through a map.
fn image_fs_store(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    need_stores(&e, ShaderStage::Fragment)?;
    let color = setup(&mut e)?;
    let t = ResourceTemplate::texture_2d(
        Format::R32Uint,
        W,
        H,
        BindFlags::SHADER_IMAGE | BindFlags::SAMPLER_VIEW,
    );
    let img = e.texture(&t)?;
    e.write_texture(
        &img,
        0,
        &PipeBox::rect(0, 0, W, H),
        &u32_bytes(&vec![SENTINEL; (W * H) as usize]),
    )?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_IMAGE_STORE)?;
    bind_image(
        &mut e,
        ShaderStage::Fragment,
        image_view(&img, Format::R32Uint, ImageAccess::WRITE),
    )?;
    let r = (2, 3, 12, 9);
    draw_rect(&mut e, r)?;
    // Sample what the first draw stored, over the whole target.
    let view = step(
        "create_sampler_view",
        e.ctx
            .create_sampler_view(&img, &SamplerViewTemplate::whole(&t)),
    )?;
    step(
        "set_sampler_views",
        e.ctx
            .set_sampler_views(ShaderStage::Fragment, 0, &[Some(view)], 0),
    )?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_FETCH_UINT)?;
    let in_r = (4, 0, 9, H);
    draw_rect(&mut e, in_r)?;
    let want: Vec<u32> = (0..H)
        .flat_map(|y| {
            (0..W).map(move |x| {
                if in_rect(x, y, r) {
                    x + 16 * y
                } else {
                    SENTINEL
                }
            })
        })
        .collect();
    let got = bytes_u32(&e.read_texture(&img, 0, &PipeBox::rect(0, 0, W, H))?);
    expect_u32s("stored image", &got, &want)?;
    check_image(ctx, &mut e, &color, |x, y| {
        if in_rect(x, y, in_r) {
            let v = want[(y * W + x) as usize];
            // The sentinel's low bits do not fit: u2f / 255 saturates.
            [if v == SENTINEL { 255 } else { v as u8 }, 0, 0, 255]
        } else if in_rect(x, y, r) {
            [255, 0, 0, 255]
        } else {
            [0; 4]
        }
    })
}
gfx_case!("pipe.render.image.fs_store_then_sample", image_fs_store);

/// `b[y * 16 + x] = x + 16 y` through a buffer image.
const FS_BUFFER_IMAGE: &str = "shader fragment
in @fc : f32x4 builtin=frag_coord
out @frag : f32x4 location=0
image @b slot=0 dim=buffer format=r32ui writeonly
fn main {
  %0 : f32x4 = load @fc
  %1 : f32x2 = swizzle %0, xy
  %2 : u32x2 = f2u %1
  %3 : u32 = swizzle %2, x
  %4 : u32 = swizzle %2, y
  %5 : u32 = const 16
  %6 : u32 = imul %4, %5
  %7 : u32 = iadd %6, %3
  %8 : i32 = bitcast %7
  %9 : u32x4 = vec %7, %7, %7, %7
  image_store @b, %8, %9
  %10 : f32x4 = const 0.0, 0.0, 1.0, 1.0
  store @frag, %10
}
";

/// A fragment shader stores to a buffer image (storage texel buffer)
/// bound at an offset; the buffer is read back through a map.
fn image_buffer_store(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    need_stores(&e, ShaderStage::Fragment)?;
    setup(&mut e)?;
    let align = e.screen.caps().texture_buffer_offset_alignment.max(4);
    let words = align / 4 + W * H;
    let buf = buffer_with(&mut e, &u32_bytes(&vec![SENTINEL; words as usize]))?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_BUFFER_IMAGE)?;
    bind_image(
        &mut e,
        ShaderStage::Fragment,
        ImageView {
            resource: buf.clone(),
            format: Format::R32Uint,
            access: ImageAccess::WRITE,
            shader_access: ImageAccess::WRITE,
            range: ImageViewRange::Buffer {
                offset: align,
                size: W * H * 4,
            },
        },
    )?;
    let r = (0, 5, 16, 7);
    draw_rect(&mut e, r)?;
    let mut want = vec![SENTINEL; words as usize];
    for y in 0..H {
        for x in 0..W {
            if in_rect(x, y, r) {
                want[(align / 4 + y * W + x) as usize] = x + 16 * y;
            }
        }
    }
    let got = read_u32s(&mut e, &buf, words)?;
    expect_u32s("buffer image", &got, &want)
}
gfx_case!("pipe.render.image.buffer_store", image_buffer_store);

/// Vertex stage: `col = tb[2] / 255` (a flat varying) from texture buffer
/// slot 1 of the vertex stage.
const VS_TEXBUF: &str = "shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
out @col : f32 location=0 flat
texture @tb slot=1 dim=buffer sampled=uint
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  %1 : i32 = const 2
  %2 : u32x4 = txf @tb, coord=%1
  %3 : u32 = swizzle %2, x
  %4 : f32 = u2f %3
  %5 : f32 = const 255.0
  %6 : f32 = fdiv %4, %5
  store @col, %6
}
";

/// Fragment stage: `(tb[x / 2] / 255, size(tb) / 255, col, 1)` from
/// texture buffer slot 0 of the fragment stage.
const FS_TEXBUF: &str = "shader fragment
in @fc : f32x4 builtin=frag_coord
in @col : f32 location=0 flat
out @frag : f32x4 location=0
texture @tb slot=0 dim=buffer sampled=uint
fn main {
  %0 : f32x4 = load @fc
  %1 : f32 = swizzle %0, x
  %2 : i32 = f2i %1
  %3 : i32 = const 1
  %4 : i32 = ishr %2, %3
  %5 : u32x4 = txf @tb, coord=%4
  %6 : u32 = swizzle %5, x
  %7 : f32 = u2f %6
  %8 : f32 = const 255.0
  %9 : f32 = fdiv %7, %8
  %10 : i32 = txs @tb
  %11 : f32 = i2f %10
  %12 : f32 = fdiv %11, %8
  %13 : f32 = load @col
  %14 : f32 = const 1.0
  %15 : f32x4 = vec %9, %12, %13, %14
  store @frag, %15
}
";

/// A R32_UINT texture buffer view of `buf` at `offset`, `texels` long.
fn texbuf_view(
    e: &mut Env,
    buf: &Resource,
    offset: u32,
    texels: u32,
) -> Result<pipe_core::view::SamplerView, Outcome> {
    let t = SamplerViewTemplate {
        format: Format::R32Uint,
        range: ViewRange::Buffer {
            offset,
            size: texels * 4,
        },
        ..SamplerViewTemplate::whole(buf.desc())
    };
    step("create_sampler_view", e.ctx.create_sampler_view(buf, &t))
}

/// Texture buffers sampled in the vertex and the fragment stage, each a
/// different range (offset and size) of one buffer: texel fetches and
/// the size query see the range.
fn texbuf_vs_fs(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let color = setup(&mut e)?;
    let align = e.screen.caps().texture_buffer_offset_alignment.max(4);
    let n = 3 * align / 4 + 16;
    let words: Vec<u32> = (0..n).map(|i| (3 * i + 10) % 256).collect();
    let buf = buffer_with(&mut e, &u32_bytes(&words))?;
    let fs_first = align / 4;
    let vs_first = 2 * align / 4;
    let fs_view = texbuf_view(&mut e, &buf, align, 8)?;
    let vs_view = texbuf_view(&mut e, &buf, 2 * align, 4)?;
    step(
        "set_sampler_views(FS)",
        e.ctx
            .set_sampler_views(ShaderStage::Fragment, 0, &[Some(fs_view)], 0),
    )?;
    step(
        "set_sampler_views(VS)",
        e.ctx
            .set_sampler_views(ShaderStage::Vertex, 1, &[Some(vs_view)], 0),
    )?;
    bind_program(&mut e, VS_TEXBUF, FS_TEXBUF)?;
    draw_rect(&mut e, (0, 0, W, H))?;
    let b = words[(vs_first + 2) as usize] as u8;
    check_image(ctx, &mut e, &color, |x, _| {
        [words[(fs_first + x / 2) as usize] as u8, 8, b, 255]
    })
}
gfx_case!("pipe.render.texbuf.vs_fs_ranges", texbuf_vs_fs);

/// Reads an unbound shader buffer, texture buffer and texture:
/// `(ssbo[0] + 0.25, tb[3].x + 0.5, tex.x + 0.75, 1)`.
const FS_UNBOUND: &str = "shader fragment
out @frag : f32x4 location=0
ssbo @s slot=0 readonly
texture @tb slot=1 dim=buffer sampled=float
texture @t slot=0 dim=2d sampled=float
fn main {
  %0 : u32 = const 0
  %1 : f32 = load_ssbo @s, %0
  %2 : i32 = const 3
  %3 : f32x4 = txf @tb, coord=%2
  %4 : f32 = swizzle %3, x
  %5 : f32x2 = const 0.5, 0.5
  %6 : f32 = const 0.0
  %7 : f32x4 = txl @t, coord=%5, lod=%6
  %8 : f32 = swizzle %7, x
  %9 : f32 = const 0.25
  %10 : f32 = const 0.5
  %11 : f32 = const 0.75
  %12 : f32 = fadd %1, %9
  %13 : f32 = fadd %4, %10
  %14 : f32 = fadd %8, %11
  %15 : f32 = const 1.0
  %16 : f32x4 = vec %12, %13, %14, %15
  store @frag, %16
}
";

/// NULL and unbound slots: after a first draw with a shader buffer and a
/// texture buffer bound, both are unbound with NULL entries; the texture
/// slot was never bound. Reads of them give zero. An image slot the
/// shader declares with nothing bound is an error, not a draw.
fn null_slots(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    need_stores(&e, ShaderStage::Fragment)?;
    let color = setup(&mut e)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UNBOUND)?;
    let ones = buffer_with(&mut e, &f32s(&[0.5; 16]))?;
    bind_ssbo(&mut e, ShaderStage::Fragment, 0, &ones, 0, 64, false)?;
    let t = SamplerViewTemplate {
        format: Format::R32G32B32A32Float,
        ..SamplerViewTemplate::whole(ones.desc())
    };
    let tb = step("texbuf view", e.ctx.create_sampler_view(&ones, &t))?;
    step(
        "set_sampler_views",
        e.ctx
            .set_sampler_views(ShaderStage::Fragment, 1, &[Some(tb)], 0),
    )?;
    draw_rect(&mut e, (0, 0, 8, H))?;
    // NULL entries unbind.
    step(
        "set_shader_buffers(NULL)",
        e.ctx
            .set_shader_buffers(ShaderStage::Fragment, 0, &[None], 0),
    )?;
    step(
        "set_sampler_views(NULL)",
        e.ctx
            .set_sampler_views(ShaderStage::Fragment, 1, &[None], 0),
    )?;
    draw_rect(&mut e, (8, 0, W, H))?;
    // An unbound image.
    bind_program(&mut e, VS_PASSTHROUGH, FS_IMAGE_LOAD)?;
    match draw_mode(&mut e, PrimType::Triangles, 6) {
        Err(PipeError::InvalidArgument(_)) => {}
        other => {
            return Err(Outcome::fail(format!(
                "a draw with an unbound image gave {other:?}"
            )))
        }
    }
    let bound = unorm([0.75, 1.0, 0.75, 1.0]);
    let unbound = unorm([0.25, 0.5, 0.75, 1.0]);
    check_image(
        ctx,
        &mut e,
        &color,
        |x, _| {
            if x < 8 {
                bound
            } else {
                unbound
            }
        },
    )
}
gfx_case!("pipe.render.ssbo.null_and_unbound_slots", null_slots);

/// `ssbo[y * 16 + x] = x + 16 y + 1`.
const FS_SSBO_STORE: &str = "shader fragment
in @fc : f32x4 builtin=frag_coord
out @frag : f32x4 location=0
ssbo @s slot=0
fn main {
  %0 : f32x4 = load @fc
  %1 : f32x2 = swizzle %0, xy
  %2 : u32x2 = f2u %1
  %3 : u32 = swizzle %2, x
  %4 : u32 = swizzle %2, y
  %5 : u32 = const 16
  %6 : u32 = imul %4, %5
  %7 : u32 = iadd %6, %3
  %8 : u32 = const 4
  %9 : u32 = imul %7, %8
  %10 : u32 = const 1
  %11 : u32 = iadd %7, %10
  store_ssbo @s, %9, %11
  %12 : f32x4 = const 0.0, 0.0, 0.0, 1.0
  store @frag, %12
}
";

/// `frag.g = ssbo[y * 16 + x] / 255`.
const FS_SSBO_LOAD: &str = "shader fragment
in @fc : f32x4 builtin=frag_coord
out @frag : f32x4 location=0
ssbo @s slot=0 readonly
fn main {
  %0 : f32x4 = load @fc
  %1 : f32x2 = swizzle %0, xy
  %2 : u32x2 = f2u %1
  %3 : u32 = swizzle %2, x
  %4 : u32 = swizzle %2, y
  %5 : u32 = const 16
  %6 : u32 = imul %4, %5
  %7 : u32 = iadd %6, %3
  %8 : u32 = const 4
  %9 : u32 = imul %7, %8
  %10 : u32 = load_ssbo @s, %9
  %11 : f32 = u2f %10
  %12 : f32 = const 255.0
  %13 : f32 = fdiv %11, %12
  %14 : f32 = const 0.0
  %15 : f32 = const 1.0
  %16 : f32x4 = vec %14, %13, %14, %15
  store @frag, %16
}
";

/// A draw writes a shader buffer, `memory_barrier(SHADER_BUFFER)`, a
/// second draw in the same framebuffer reads it (no flush in between).
fn write_barrier_read(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    need_stores(&e, ShaderStage::Fragment)?;
    let color = setup(&mut e)?;
    let buf = buffer_with(&mut e, &u32_bytes(&vec![0; (W * H) as usize]))?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_SSBO_STORE)?;
    bind_ssbo(&mut e, ShaderStage::Fragment, 0, &buf, 0, W * H * 4, true)?;
    let r = (0, 0, 12, 14);
    draw_rect(&mut e, r)?;
    step(
        "memory_barrier",
        e.ctx.memory_barrier(BarrierFlags::SHADER_BUFFER),
    )?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_SSBO_LOAD)?;
    bind_ssbo(&mut e, ShaderStage::Fragment, 0, &buf, 0, W * H * 4, false)?;
    draw_rect(&mut e, (0, 0, W, H))?;
    let val = |x: u32, y: u32| if in_rect(x, y, r) { x + 16 * y + 1 } else { 0 };
    let want: Vec<u32> = (0..H)
        .flat_map(|y| (0..W).map(move |x| val(x, y)))
        .collect();
    check_image(ctx, &mut e, &color, |x, y| [0, val(x, y) as u8, 0, 255])?;
    let got = read_u32s(&mut e, &buf, W * H)?;
    expect_u32s("shader buffer", &got, &want)
}
gfx_case!("pipe.render.ssbo.write_barrier_read", write_barrier_read);

/// Passes triangles through, counting them in word 0 of shader buffer 0.
const GS_COUNT: &str =
    "shader geometry input=triangles output=triangle_strip max_vertices=3 invocations=1
in @pos : f32x4[3] builtin=position
out @gl_pos : f32x4 builtin=position
ssbo @s slot=0
fn main {
  %0 : u32 = const 0
  %1 : u32 = const 1
  %2 : u32 = ssbo_atomic @s, %0, %1, op=add
  %3 : i32 = const 0
  %4 : i32 = const 1
  %5 : i32 = const 2
  %6 : f32x4 = load @pos, %3
  %7 : f32x4 = load @pos, %4
  %8 : f32x4 = load @pos, %5
  store @gl_pos, %6
  emit_vertex
  store @gl_pos, %7
  emit_vertex
  store @gl_pos, %8
  emit_vertex
  end_primitive
}
";

/// A geometry shader counts its input primitives with an atomic.
fn gs_atomic(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    need_stores(&e, ShaderStage::Geometry)?;
    let color = setup(&mut e)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    let c = [1.0, 1.0, 0.0, 1.0];
    set_color(&mut e, c)?;
    let g = step(
        "create_gs_state",
        e.ctx
            .create_gs_state(&shader(ShaderStage::Geometry, GS_COUNT)?),
    )?;
    step("bind_gs_state", e.ctx.bind_gs_state(Some(g)))?;
    let buf = buffer_with(&mut e, &u32_bytes(&[0; 4]))?;
    bind_ssbo(&mut e, ShaderStage::Geometry, 0, &buf, 0, 16, true)?;
    let r = (2, 2, 6, 14);
    draw_rect(&mut e, r)?;
    let r2 = (9, 1, 15, 4);
    draw_rect(&mut e, r2)?;
    let got = read_u32s(&mut e, &buf, 4)?;
    expect_u32s("primitives counted", &got, &[4, 0, 0, 0])?;
    check_image(ctx, &mut e, &color, |x, y| {
        if in_rect(x, y, r) || in_rect(x, y, r2) {
            unorm(c)
        } else {
            [0; 4].into()
        }
    })?;
    step("unbind gs", e.ctx.bind_gs_state(None))?;
    step("delete gs", e.ctx.delete_gs_state(g))
}
gfx_case!("pipe.render.ssbo.gs_atomic_count", gs_atomic);

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

/// Interpolates the patch and adds vec4 0 of shader buffer 0.
const TES_SSBO: &str = "shader tess_eval mode=triangles spacing=equal winding=ccw
in @pos : f32x4[32] builtin=position
in @tc : f32x3 builtin=tess_coord
out @gl_pos : f32x4 builtin=position
ssbo @off slot=0 readonly
fn main {
  %0 : f32x3 = load @tc
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
  %16 : u32 = const 0
  %17 : f32x4 = load_ssbo @off, %16
  %18 : f32x4 = fadd %15, %17
  store @gl_pos, %18
}
";

/// A tessellation evaluation shader reads an offset from a shader buffer:
/// the rectangle is drawn 8 pixels (1.0 in NDC) to the right.
fn tes_read(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    if !e.screen.caps().shader[ShaderStage::TessEval.index()].supported {
        return Err(Outcome::skip("no tessellation"));
    }
    let color = setup(&mut e)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    let c = [0.0, 1.0, 1.0, 1.0];
    set_color(&mut e, c)?;
    let tc = step(
        "tcs",
        e.ctx.create_tcs_state(&shader(ShaderStage::TessCtrl, TCS)?),
    )?;
    let te = step(
        "tes",
        e.ctx
            .create_tes_state(&shader(ShaderStage::TessEval, TES_SSBO)?),
    )?;
    step("bind tcs", e.ctx.bind_tcs_state(Some(tc)))?;
    step("bind tes", e.ctx.bind_tes_state(Some(te)))?;
    step("patch vertices", e.ctx.set_patch_vertices(3))?;
    let buf = buffer_with(&mut e, &f32s(&[1.0, 0.0, 0.0, 0.0]))?;
    bind_ssbo(&mut e, ShaderStage::TessEval, 0, &buf, 0, 16, false)?;
    let r = (1, 3, 7, 12);
    bind_vertices(&mut e, &rect(r.0, r.1, r.2, r.3))?;
    step("draw patches", draw_mode(&mut e, PrimType::Patches, 6))?;
    check_image(ctx, &mut e, &color, |x, y| {
        if x >= 8 && in_rect(x - 8, y, r) {
            unorm(c)
        } else {
            [0; 4].into()
        }
    })?;
    step("unbind tcs", e.ctx.bind_tcs_state(None))?;
    step("unbind tes", e.ctx.bind_tes_state(None))
}
gfx_case!("pipe.render.ssbo.tes_read", tes_read);

/// `frag = texture(t, (0.25, 0.75))` (texel (0, 1) of a 2x2 texture).
const FS_TEX: &str = "shader fragment
out @frag : f32x4 location=0
texture @t slot=0 dim=2d sampled=float
fn main {
  %0 : f32x2 = const 0.25, 0.75
  %1 : f32 = const 0.0
  %2 : f32x4 = txl @t, coord=%0, lod=%1
  store @frag, %2
}
";

/// `frag = texture(t, (0.75, 0.25)) + ssbo[0]`.
const FS_TEX_SSBO: &str = "shader fragment
out @frag : f32x4 location=0
texture @t slot=0 dim=2d sampled=float
ssbo @c slot=0 readonly
fn main {
  %0 : f32x2 = const 0.75, 0.25
  %1 : f32 = const 0.0
  %2 : f32x4 = txl @t, coord=%0, lod=%1
  %3 : u32 = const 0
  %4 : f32x4 = load_ssbo @c, %3
  %5 : f32x4 = fadd %2, %4
  store @frag, %5
}
";

/// Pipelines with and without the extended layout alternate in one
/// command buffer: fixed layout (texture), extended layout (texture and
/// shader buffer), fixed again, the same extended draw again (its sets
/// must be bound again: the fixed layout's set 1 disturbed them), then an
/// extended layout with a shader buffer only. Every band must show its
/// own result, with no validation message about disturbed sets.
fn layout_switch(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    need_stores(&e, ShaderStage::Fragment)?;
    let color = setup(&mut e)?;
    let tt = ResourceTemplate::texture_2d(Format::R8G8B8A8Unorm, 2, 2, BindFlags::SAMPLER_VIEW);
    let tex = e.texture(&tt)?;
    let texels: [[u8; 4]; 4] = [
        [10, 20, 30, 255],
        [200, 40, 90, 255],
        [50, 60, 70, 255],
        [80, 90, 100, 255],
    ];
    e.write_texture(&tex, 0, &PipeBox::rect(0, 0, 2, 2), texels.as_flattened())?;
    let view = step(
        "view",
        e.ctx
            .create_sampler_view(&tex, &SamplerViewTemplate::whole(&tt)),
    )?;
    let ss = SamplerState {
        min_mip_filter: MipFilter::None,
        ..Default::default()
    };
    let sh = step("sampler", e.ctx.create_sampler_state(&ss))?;
    step(
        "bind sampler",
        e.ctx
            .bind_sampler_states(ShaderStage::Fragment, 0, &[Some(sh)]),
    )?;
    step(
        "set_sampler_views",
        e.ctx
            .set_sampler_views(ShaderStage::Fragment, 0, &[Some(view)], 0),
    )?;
    let a = buffer_with(&mut e, &f32s(&[0.2, 0.4, 0.6, 1.0, 0.2, 0.4, 0.6, 1.0]))?;
    let b = buffer_with(&mut e, &f32s(&[0.0, 0.2, 0.4, 0.0, 0.0, 0.2, 0.4, 0.0]))?;
    let fixed = shader(ShaderStage::Fragment, FS_TEX)?;
    let fixed = step("create_fs_state", e.ctx.create_fs_state(&fixed))?;
    let ext = shader(ShaderStage::Fragment, FS_TEX_SSBO)?;
    let ext = step("create_fs_state", e.ctx.create_fs_state(&ext))?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_TEX)?;
    bind_ssbo(&mut e, ShaderStage::Fragment, 0, &b, 0, 32, false)?;
    for (i, fs) in [fixed, ext, fixed, ext].into_iter().enumerate() {
        step("bind_fs_state", e.ctx.bind_fs_state(Some(fs)))?;
        let x = 3 * i as u32;
        draw_rect(&mut e, (x, 0, x + 3, H))?;
    }
    // Band 4: extended, shader buffer only.
    bind_program(&mut e, VS_PASSTHROUGH, FS_SSBO_COLOR)?;
    bind_ssbo(&mut e, ShaderStage::Fragment, 0, &a, 0, 32, false)?;
    draw_rect(&mut e, (12, 0, W, H))?;
    let t1 = texels[1];
    let band3 = [
        t1[0],
        t1[1].saturating_add(51),
        t1[2].saturating_add(102),
        255,
    ];
    check_image(ctx, &mut e, &color, |x, _| match x {
        0..3 | 6..9 => texels[2].into(),
        3..6 | 9..12 => band3.into(),
        _ => unorm(LEFT),
    })
}
gfx_case!("pipe.render.ssbo.layout_switch", layout_switch);

fn expect_err(what: &str, r: Result<(), PipeError>) -> R {
    match r {
        Err(PipeError::InvalidArgument(_) | PipeError::Unsupported(_)) => Ok(()),
        other => Err(Outcome::fail(format!(
            "{what}: expected an error, got {other:?}"
        ))),
    }
}

/// Bad input: a texture as a shader buffer, an offset past the end, a
/// misaligned offset, an image view whose format has no storage support,
/// a texture image bound where the shader declares a buffer image.
/// Nothing is drawn by the failures and the context keeps working.
fn bad_input(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    need_stores(&e, ShaderStage::Fragment)?;
    let color = setup(&mut e)?;
    let t = ResourceTemplate::texture_2d(Format::R8G8B8A8Unorm, 4, 4, BindFlags::SAMPLER_VIEW);
    let tex = e.texture(&t)?;
    let sb = |buffer: &Resource, offset: u32, size: u32| {
        [Some(ShaderBuffer {
            buffer: buffer.clone(),
            buffer_offset: offset,
            buffer_size: size,
        })]
    };
    expect_err(
        "a texture as a shader buffer",
        e.ctx
            .set_shader_buffers(ShaderStage::Fragment, 0, &sb(&tex, 0, 16), 0),
    )?;
    let buf = buffer_with(&mut e, &[0u8; 256])?;
    expect_err(
        "offset past the end",
        e.ctx
            .set_shader_buffers(ShaderStage::Fragment, 0, &sb(&buf, 512, 16), 0),
    )?;
    expect_err(
        "range past the end",
        e.ctx
            .set_shader_buffers(ShaderStage::Fragment, 0, &sb(&buf, 0, 512), 0),
    )?;
    let align = e.screen.caps().shader_buffer_offset_alignment;
    if align > 1 {
        expect_err(
            "misaligned offset",
            e.ctx
                .set_shader_buffers(ShaderStage::Fragment, 0, &sb(&buf, 1, 16), 0),
        )?;
    }
    // sRGB formats have no storage-image support.
    let st = ResourceTemplate::texture_2d(
        Format::R8G8B8A8Srgb,
        W,
        H,
        BindFlags::SHADER_IMAGE | BindFlags::SAMPLER_VIEW,
    );
    if let Ok(srgb) = e.screen.resource_create(&st) {
        bind_program(&mut e, VS_PASSTHROUGH, FS_IMAGE_LOAD)?;
        match e.ctx.set_shader_images(
            ShaderStage::Fragment,
            0,
            &[Some(image_view(
                &srgb,
                Format::R8G8B8A8Srgb,
                ImageAccess::READ,
            ))],
            0,
        ) {
            Ok(()) => {
                bind_vertices(&mut e, &rect(0, 0, W, H))?;
                expect_err(
                    "an sRGB storage image",
                    draw_mode(&mut e, PrimType::Triangles, 6),
                )?;
            }
            Err(PipeError::InvalidArgument(_) | PipeError::Unsupported(_)) => {}
            Err(other) => {
                return Err(Outcome::fail(format!(
                    "set_shader_images(sRGB) gave {other:?}"
                )))
            }
        }
    }
    // A texture image where the shader declares a buffer image.
    let it = ResourceTemplate::texture_2d(Format::R32Uint, W, H, BindFlags::SHADER_IMAGE);
    let img = e.texture(&it)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_BUFFER_IMAGE)?;
    bind_image(
        &mut e,
        ShaderStage::Fragment,
        image_view(&img, Format::R32Uint, ImageAccess::WRITE),
    )?;
    bind_vertices(&mut e, &rect(0, 0, W, H))?;
    expect_err(
        "a texture image for a buffer image",
        draw_mode(&mut e, PrimType::Triangles, 6),
    )?;
    // A texture buffer view where the shader samples an image texture
    // (the fixed-layout path).
    let tb = texbuf_view(&mut e, &buf, 0, 4)?;
    step(
        "set_sampler_views(texture buffer)",
        e.ctx
            .set_sampler_views(ShaderStage::Fragment, 0, &[Some(tb)], 0),
    )?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_TEX)?;
    expect_err(
        "a texture buffer for an image texture",
        draw_mode(&mut e, PrimType::Triangles, 6),
    )?;
    step(
        "unbind sampler views",
        e.ctx.set_sampler_views(ShaderStage::Fragment, 0, &[], 1),
    )?;
    // The context still draws.
    bind_program(&mut e, VS_PASSTHROUGH, FS_SSBO_COLOR)?;
    bind_color_ssbo(&mut e, LEFT, RIGHT)?;
    draw_rect(&mut e, (0, 0, W, 8))?;
    check_image(ctx, &mut e, &color, |x, y| {
        if y >= 8 {
            [0; 4].into()
        } else {
            unorm(if x < 8 { LEFT } else { RIGHT })
        }
    })
}
gfx_case!("pipe.render.ssbo.bad_input", bad_input);

/// Subgroup votes in a vertex shader, 16 points
/// (`compute::check_votes`). lavapipe votes in fragment and compute
/// shaders only: here each vertex votes alone
/// (`spirv_gen::passes::gl::lower_vote_trivial`).
fn vs_votes(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    need_stores(&e, ShaderStage::Vertex)?;
    let _color = setup(&mut e)?;
    let vs = format!(
        "shader vertex
in @vid : i32 builtin=vertex_index
out @gl_pos : f32x4 builtin=position
ssbo @o slot=0
fn main {{
  %0 : i32 = load @vid
  %1 : u32 = bitcast %0
{}  %40 : f32x4 = const 0.0, 0.0, 0.0, 1.0
  store @gl_pos, %40
}}
",
        super::compute::VOTE_OPS
    );
    bind_program(&mut e, &vs, FS_UBO_COLOR)?;
    step("no velems", e.ctx.bind_vertex_elements_state(None))?;
    let out = buffer_with(&mut e, &u32_bytes(&[0xdead_beef; 16]))?;
    bind_ssbo(&mut e, ShaderStage::Vertex, 0, &out, 0, 64, true)?;
    step("draw_vbo", draw_mode(&mut e, PrimType::Points, 16))?;
    super::compute::check_votes("vertex", &read_u32s(&mut e, &out, 16)?)
}
crate::both_paths!("pipe.render.vote.vertex", vs_votes);
// As SPIR-V passthrough: where the stage has no votes (lavapipe's vertex
// stage), `spirv_gen::patch::votes_trivial` makes each vertex vote alone.
crate::spirv_variant!("pipe.render.vote.vertex", vs_votes);

/// Subgroup votes in a fragment shader, one invocation per pixel of the
/// 16x16 target, indexed `y * 16 + x` (`compute::check_votes`; lavapipe
/// votes here with its own subgroups).
fn fs_votes(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    need_stores(&e, ShaderStage::Fragment)?;
    let _color = setup(&mut e)?;
    let fs = format!(
        "shader fragment
in @fc : f32x4 builtin=frag_coord
out @frag : f32x4 location=0
ssbo @o slot=0
fn main {{
  %40 : f32x4 = load @fc
  %41 : f32x2 = swizzle %40, xy
  %42 : u32x2 = f2u %41
  %43 : u32 = swizzle %42, x
  %44 : u32 = swizzle %42, y
  %45 : u32 = const 16
  %46 : u32 = imul %44, %45
  %1 : u32 = iadd %46, %43
{}  %47 : f32x4 = const 0.0, 1.0, 0.0, 1.0
  store @frag, %47
}}
",
        super::compute::VOTE_OPS
    );
    bind_program(&mut e, VS_PASSTHROUGH, &fs)?;
    let out = buffer_with(&mut e, &u32_bytes(&[0xdead_beef; (W * H) as usize]))?;
    bind_ssbo(&mut e, ShaderStage::Fragment, 0, &out, 0, 4 * W * H, true)?;
    draw_rect(&mut e, (0, 0, W, H))?;
    super::compute::check_votes("fragment", &read_u32s(&mut e, &out, W * H)?)
}
crate::both_paths!("pipe.render.vote.fragment", fs_votes);

/// glslang's votes for OpenGL: `anyInvocationARB` and the others compile
/// to SPV_KHR_subgroup_vote's `OpSubgroupAnyKHR`, `OpSubgroupAllKHR` and
/// `OpSubgroupAllEqualKHR` (`vote_khr_spirv.spvasm`), which pipe-vk turns
/// into single-invocation votes (`spirv_gen::patch::votes_trivial`). Per
/// pixel, with `x` = "left half": red (any) is set where `x` is, green
/// (all) is clear where `x` is not, and where blue (all equal) is set,
/// red and green agree. That holds for any grouping.
fn fs_votes_khr(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let color = setup(&mut e)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    let fs =
        crate::harness::spirv_module(ShaderStage::Fragment, include_bytes!("vote_khr_spirv.spv"));
    let h = step("create_fs_state", e.ctx.create_fs_state(&fs))?;
    step("bind_fs_state", e.ctx.bind_fs_state(Some(h)))?;
    draw_rect(&mut e, (0, 0, W, H))?;
    let got = e.read_texture(&color, 0, &PipeBox::rect(0, 0, W, H))?;
    for (i, p) in got.chunks_exact(4).enumerate() {
        let (x, y) = (i as u32 % W, i as u32 / W);
        let left = x < 8;
        let [any, all, eq] = [p[0], p[1], p[2]].map(|c| c == 255);
        let ok = p[0..3].iter().all(|&c| c == 0 || c == 255)
            && (!left || any)
            && (left || !all)
            && (!eq || any == all);
        if !ok {
            return Err(Outcome::fail(format!(
                "pixel ({x}, {y}) is {p:?}: any, all and all-equal of \"x < 8\" ({left}) \
                 disagree"
            )));
        }
    }
    Ok(())
}
crate::both_paths!("pipe.render.vote.fragment_khr", fs_votes_khr);
crate::spirv_variant!("pipe.render.vote.fragment", fs_votes);

/// Passes each triangle on, with a colour from constant buffer 0.
const GS_UBO_COLOR: &str =
    "shader geometry input=triangles output=triangle_strip max_vertices=3 invocations=1
in @pos : f32x4[3] builtin=position
out @gl_pos : f32x4 builtin=position
out @col : f32x4 location=0
ubo @c slot=0 size=16
fn main {
  %0 : u32 = const 0
  %1 : f32x4 = load_ubo @c, %0
  %2 : i32 = const 0
  %3 : i32 = const 1
  %4 : i32 = const 2
  %5 : f32x4 = load @pos, %2
  store @gl_pos, %5
  store @col, %1
  emit_vertex
  %6 : f32x4 = load @pos, %3
  store @gl_pos, %6
  store @col, %1
  emit_vertex
  %7 : f32x4 = load @pos, %4
  store @gl_pos, %7
  store @col, %1
  emit_vertex
  end_primitive
}
";

/// Writes its input colour.
const FS_VARYING: &str = "shader fragment
in @col : f32x4 location=0
out @frag : f32x4 location=0
fn main {
  %0 : f32x4 = load @col
  store @frag, %0
}
";

/// A constant buffer written on the device (a buffer copy) and read by a
/// geometry shader: the barrier before the draw must name the geometry
/// stage (pipe-vk named the vertex and fragment stages for every
/// constant buffer; synchronization validation reported the read after
/// the copy's write). The whole target takes the buffer's colour.
fn ubo_written_on_device_gs(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    if !e.screen.caps().shader[ShaderStage::Geometry.index()].supported {
        return Err(Outcome::skip("no geometry shaders"));
    }
    let color = setup(&mut e)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_VARYING)?;
    crate::harness::bind_stage(&mut e, ShaderStage::Geometry, GS_UBO_COLOR)?;
    let want = [0.25f32, 0.5, 0.75, 1.0];
    let src = buffer_with(&mut e, &f32s(&want))?;
    let t = ResourceTemplate::buffer(16, BindFlags::CONSTANT_BUFFER);
    let ubo = step("resource_create", e.screen.resource_create(&t))?;
    crate::harness::copy_buffer_on(&mut *e.ctx, &ubo, 0, &src, 0, 16)?;
    let cb = ConstantBuffer {
        buffer: Some(ubo),
        buffer_offset: 0,
        buffer_size: 16,
        user_buffer: None,
    };
    step(
        "set_constant_buffer",
        e.ctx
            .set_constant_buffer(ShaderStage::Geometry, 0, Some(cb)),
    )?;
    draw_rect(&mut e, (0, 0, W, H))?;
    let c = want.map(|v| (v * 255.0).round() as u8);
    check_image(ctx, &mut e, &color, |_, _| c)
}
crate::both_paths!(
    "pipe.gfxres.ubo_written_on_device.geometry",
    ubo_written_on_device_gs
);
