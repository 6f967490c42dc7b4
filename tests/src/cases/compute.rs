//! `pipe.compute.*`: `launch_grid` with spirv-gen compute shaders.
//!
//! Every test runs twice (`.direct` and `.staging`, see `transfer.rs`).
//! Expected values are computed here from the grid, independently of the
//! driver. Buffers start filled with a sentinel so that a missing write is
//! seen. Tests that chain dispatches (and transfers) without a flush in
//! between rely on the driver's barriers; under `--validation` the
//! synchronization validation layer reports any that is missing.

use std::sync::Arc;

use pipe_core::cso::ComputeHandle;
use pipe_core::flags::MapFlags;
use pipe_core::resource::{BindFlags, PipeBox, ResourceTemplate};
use pipe_core::shader::{ComputeState, GridInfo, ShaderCode};
use pipe_core::state::{
    ConstantBuffer, ImageAccess, ImageView, ImageViewRange, ShaderBuffer, ShaderStage,
};
use pipe_core::view::SamplerViewTemplate;
use pipe_core::{Format, PipeError, Resource};

use crate::harness::{
    bind_program, bind_render_target, bind_vertex_buffer, clear_color, draw_arrays, env,
    expect_elems, set_user_constants, step, Env, VEC4_ELEMENT, VS_PASSTHROUGH,
};
use crate::{both_paths, Outcome, TestContext};

type R = Result<(), Outcome>;

const SENTINEL: u32 = 0xdead_beef;

/// Writes `x | y << 8 | z << 16 | local_index << 24` of every invocation
/// at its linear index in a 12 x 4 x 2 grid of invocations.
const CS_IDS: &str = "shader compute local_size=4,2,1
in @gid : u32x3 builtin=global_invocation_id
in @lidx : u32 builtin=local_invocation_index
ssbo @out slot=0
fn main {
  %0 : u32x3 = load @gid
  %1 : u32 = swizzle %0, x
  %2 : u32 = swizzle %0, y
  %3 : u32 = swizzle %0, z
  %4 : u32 = const 12
  %5 : u32 = const 48
  %6 : u32 = imul %2, %4
  %7 : u32 = imul %3, %5
  %8 : u32 = iadd %1, %6
  %9 : u32 = iadd %8, %7
  %10 : u32 = const 8
  %11 : u32 = const 16
  %12 : u32 = ishl %2, %10
  %13 : u32 = ishl %3, %11
  %14 : u32 = ior %1, %12
  %15 : u32 = ior %14, %13
  %16 : u32 = load @lidx
  %17 : u32 = const 24
  %18 : u32 = ishl %16, %17
  %19 : u32 = ior %15, %18
  %20 : u32 = const 4
  %21 : u32 = imul %9, %20
  store_ssbo @out, %21, %19
}
";

/// Invocations of `CS_IDS` along x, y, z for the full grid [3, 2, 2].
const DIMS: [u32; 3] = [12, 4, 2];
const IDS_BLOCK: [u32; 3] = [4, 2, 1];
const IDS_LEN: u32 = DIMS[0] * DIMS[1] * DIMS[2];

fn u32_bytes(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub(crate) fn bytes_u32(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn expect_u32s(what: &str, got: &[u32], want: &[u32]) -> R {
    expect_elems(what, "value", got, want)
}

/// A compute state template from IR text (of any stage: the driver
/// checks).
fn compute_state(src: &str) -> Result<ComputeState, Outcome> {
    let ir = spirv_gen::text::parse(src).map_err(|e| Outcome::fail(format!("test shader: {e}")))?;
    Ok(ComputeState {
        code: ShaderCode::Ir(Arc::new(ir)),
        static_shared_mem: 0,
        req_input_mem: 0,
    })
}

/// Creates and binds a compute state from IR text.
pub(crate) fn bind_cs(e: &mut Env, src: &str) -> Result<ComputeHandle, Outcome> {
    let h = step(
        "create_compute_state",
        e.ctx.create_compute_state(&compute_state(src)?),
    )?;
    step("bind_compute_state", e.ctx.bind_compute_state(Some(h)))?;
    Ok(h)
}

/// A buffer of `n` sentinel words.
pub(crate) fn sentinel_buffer(e: &mut Env, n: u32) -> Result<Resource, Outcome> {
    e.buffer_with(&u32_bytes(&vec![SENTINEL; n as usize]))
}

/// Binds compute shader image 0.
fn bind_image(e: &mut Env, view: ImageView) -> R {
    step(
        "set_shader_images",
        e.ctx
            .set_shader_images(ShaderStage::Compute, 0, &[Some(view)], 0),
    )
}

/// Binds a view of all of `tex` as compute sampler view 0.
fn bind_texture(e: &mut Env, tex: &Resource) -> R {
    let view = step(
        "create_sampler_view",
        e.ctx
            .create_sampler_view(tex, &SamplerViewTemplate::whole(tex.desc())),
    )?;
    step(
        "set_sampler_views",
        e.ctx
            .set_sampler_views(ShaderStage::Compute, 0, &[Some(view)], 0),
    )
}

/// Binds `bufs` as compute shader buffers from slot 0; `writable` is the
/// mask.
pub(crate) fn bind_ssbos(e: &mut Env, bufs: &[&Resource], writable: u32) -> R {
    let sb: Vec<Option<ShaderBuffer>> = bufs
        .iter()
        .map(|b| {
            Some(ShaderBuffer {
                buffer: (*b).clone(),
                buffer_offset: 0,
                buffer_size: b.desc().width0,
            })
        })
        .collect();
    step(
        "set_shader_buffers",
        e.ctx
            .set_shader_buffers(ShaderStage::Compute, 0, &sb, writable),
    )
}

pub(crate) fn grid(block: [u32; 3], grid: [u32; 3]) -> GridInfo {
    GridInfo {
        block,
        grid,
        ..Default::default()
    }
}

pub(crate) fn launch(e: &mut Env, info: &GridInfo) -> R {
    step("launch_grid", e.ctx.launch_grid(info))
}

pub(crate) fn read_u32s(e: &mut Env, buf: &Resource, n: u32) -> Result<Vec<u32>, Outcome> {
    Ok(bytes_u32(&e.read_buffer(buf, 0, n * 4)?))
}

/// The word `CS_IDS` writes for global id (x, y, z).
fn id_word(x: u32, y: u32, z: u32) -> u32 {
    let lidx = (x % IDS_BLOCK[0]) + (y % IDS_BLOCK[1]) * IDS_BLOCK[0];
    x | (y << 8) | (z << 16) | (lidx << 24)
}

/// Expected `CS_IDS` output when workgroups `base..base + count` ran.
fn ids_expected(base: [u32; 3], count: [u32; 3]) -> Vec<u32> {
    let mut want = vec![SENTINEL; IDS_LEN as usize];
    for z in 0..DIMS[2] {
        for y in 0..DIMS[1] {
            for x in 0..DIMS[0] {
                let ran = [x, y, z].iter().enumerate().all(|(i, &v)| {
                    let wg = v / IDS_BLOCK[i];
                    wg >= base[i] && wg < base[i] + count[i]
                });
                if ran {
                    want[(x + y * DIMS[0] + z * DIMS[0] * DIMS[1]) as usize] = id_word(x, y, z);
                }
            }
        }
    }
    want
}

fn global_ids(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let out = sentinel_buffer(&mut e, IDS_LEN)?;
    bind_cs(&mut e, CS_IDS)?;
    bind_ssbos(&mut e, &[&out], 1)?;
    launch(&mut e, &grid(IDS_BLOCK, [3, 2, 2]))?;
    let got = read_u32s(&mut e, &out, IDS_LEN)?;
    expect_u32s("ids", &got, &ids_expected([0; 3], [3, 2, 2]))
}
both_paths!("pipe.compute.launch.global_ids", global_ids);

fn grid_base(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let out = sentinel_buffer(&mut e, IDS_LEN)?;
    bind_cs(&mut e, CS_IDS)?;
    bind_ssbos(&mut e, &[&out], 1)?;
    let info = GridInfo {
        grid_base: [1, 1, 1],
        ..grid(IDS_BLOCK, [2, 1, 1])
    };
    launch(&mut e, &info)?;
    let got = read_u32s(&mut e, &out, IDS_LEN)?;
    expect_u32s(
        "ids with grid_base",
        &got,
        &ids_expected([1, 1, 1], [2, 1, 1]),
    )
}
both_paths!("pipe.compute.launch.grid_base", grid_base);

fn empty_grid(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let out = sentinel_buffer(&mut e, IDS_LEN)?;
    bind_cs(&mut e, CS_IDS)?;
    bind_ssbos(&mut e, &[&out], 1)?;
    launch(&mut e, &grid(IDS_BLOCK, [0, 2, 2]))?;
    let got = read_u32s(&mut e, &out, IDS_LEN)?;
    expect_u32s("untouched", &got, &vec![SENTINEL; IDS_LEN as usize])
}
both_paths!("pipe.compute.launch.empty_grid", empty_grid);

fn indirect(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let out = sentinel_buffer(&mut e, IDS_LEN)?;
    // Junk before and after the arguments at byte 16.
    let mut words = vec![99u32; 16];
    words[4..7].copy_from_slice(&[2, 2, 1]);
    let args = e.buffer_with(&u32_bytes(&words))?;
    bind_cs(&mut e, CS_IDS)?;
    bind_ssbos(&mut e, &[&out], 1)?;
    let info = GridInfo {
        indirect: Some(args),
        indirect_offset: 16,
        ..grid(IDS_BLOCK, [0; 3])
    };
    launch(&mut e, &info)?;
    let got = read_u32s(&mut e, &out, IDS_LEN)?;
    expect_u32s("indirect ids", &got, &ids_expected([0; 3], [2, 2, 1]))
}
both_paths!("pipe.compute.indirect.from_buffer", indirect);

/// Writes the dispatch arguments (3, 1, 2) at byte 16 of slot 0.
const CS_ARGS: &str = "shader compute local_size=1,1,1
ssbo @a slot=0
fn main {
  %0 : u32 = const 16
  %1 : u32 = const 20
  %2 : u32 = const 24
  %3 : u32 = const 3
  %4 : u32 = const 1
  %5 : u32 = const 2
  store_ssbo @a, %0, %3
  store_ssbo @a, %1, %4
  store_ssbo @a, %2, %5
}
";

/// The indirect arguments come from a dispatch in the same batch: the
/// indirect read must wait for the shader write.
fn indirect_from_compute(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let out = sentinel_buffer(&mut e, IDS_LEN)?;
    let args = sentinel_buffer(&mut e, 16)?;
    bind_cs(&mut e, CS_ARGS)?;
    bind_ssbos(&mut e, &[&args], 1)?;
    launch(&mut e, &grid([1, 1, 1], [1, 1, 1]))?;
    bind_cs(&mut e, CS_IDS)?;
    bind_ssbos(&mut e, &[&out], 1)?;
    let info = GridInfo {
        indirect: Some(args),
        indirect_offset: 16,
        ..grid(IDS_BLOCK, [0; 3])
    };
    launch(&mut e, &info)?;
    let got = read_u32s(&mut e, &out, IDS_LEN)?;
    expect_u32s(
        "ids after GPU-written args",
        &got,
        &ids_expected([0; 3], [3, 1, 2]),
    )
}
both_paths!(
    "pipe.compute.indirect.args_from_compute",
    indirect_from_compute
);

/// `o[i] = u[i] * 3 + i` for 16 invocations.
const CS_UBO: &str = "shader compute local_size=16,1,1
in @lidx : u32 builtin=local_invocation_index
ubo @u slot=0 size=64
ssbo @o slot=1
fn main {
  %0 : u32 = load @lidx
  %1 : u32 = const 4
  %2 : u32 = imul %0, %1
  %3 : u32 = load_ubo @u, %2
  %4 : u32 = const 3
  %5 : u32 = imul %3, %4
  %6 : u32 = iadd %5, %0
  store_ssbo @o, %2, %6
}
";

fn ubo(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let out = sentinel_buffer(&mut e, 16)?;
    let vals: Vec<u32> = (0..16).map(|i| 1000 + i * 17).collect();
    let data = u32_bytes(&vals);
    bind_cs(&mut e, CS_UBO)?;
    // Slot 1 is the output; slot 0 is unbound (the shader does not use
    // shader buffer 0).
    step(
        "set_shader_buffers",
        e.ctx.set_shader_buffers(
            ShaderStage::Compute,
            1,
            &[Some(ShaderBuffer {
                buffer: out.clone(),
                buffer_offset: 0,
                buffer_size: 64,
            })],
            1,
        ),
    )?;
    // User data (through the const uploader).
    set_user_constants(&mut e, ShaderStage::Compute, &data)?;
    launch(&mut e, &grid([16, 1, 1], [1, 1, 1]))?;
    let want: Vec<u32> = vals
        .iter()
        .enumerate()
        .map(|(i, v)| v * 3 + i as u32)
        .collect();
    let got = read_u32s(&mut e, &out, 16)?;
    expect_u32s("from user constants", &got, &want)?;
    // A buffer resource, written by a transfer in the same batch.
    let vals2: Vec<u32> = (0..16).map(|i| 7 * i + 5).collect();
    let ub = e.buffer_with(&u32_bytes(&vals2))?;
    step(
        "set_constant_buffer(resource)",
        e.ctx.set_constant_buffer(
            ShaderStage::Compute,
            0,
            Some(ConstantBuffer {
                buffer: Some(ub),
                buffer_offset: 0,
                buffer_size: 64,
                user_buffer: None,
            }),
        ),
    )?;
    launch(&mut e, &grid([16, 1, 1], [1, 1, 1]))?;
    let want: Vec<u32> = vals2
        .iter()
        .enumerate()
        .map(|(i, v)| v * 3 + i as u32)
        .collect();
    let got = read_u32s(&mut e, &out, 16)?;
    expect_u32s("from a constant buffer resource", &got, &want)?;
    // Nothing bound: the shader reads zeros.
    step(
        "set_constant_buffer(None)",
        e.ctx.set_constant_buffer(ShaderStage::Compute, 0, None),
    )?;
    launch(&mut e, &grid([16, 1, 1], [1, 1, 1]))?;
    let got = read_u32s(&mut e, &out, 16)?;
    expect_u32s("unbound constants", &got, &(0..16).collect::<Vec<u32>>())
}
both_paths!("pipe.compute.ubo", ubo);

/// `img[x, y] = x + 100 * y` (R32_UINT).
const CS_IMAGE_STORE: &str = "shader compute local_size=4,4,1
in @gid : u32x3 builtin=global_invocation_id
image @img slot=0 dim=2d format=r32ui writeonly
fn main {
  %0 : u32x3 = load @gid
  %1 : i32x3 = bitcast %0
  %2 : i32x2 = swizzle %1, xy
  %3 : u32 = swizzle %0, x
  %4 : u32 = swizzle %0, y
  %5 : u32 = const 100
  %6 : u32 = imul %4, %5
  %7 : u32 = iadd %3, %6
  %8 : u32x4 = vec %7, %7, %7, %7
  image_store @img, %2, %8
}
";

/// `o[y * 8 + x] = img[x, y] + 1`.
const CS_IMAGE_LOAD: &str = "shader compute local_size=4,4,1
in @gid : u32x3 builtin=global_invocation_id
image @img slot=0 dim=2d format=r32ui readonly
ssbo @o slot=0
fn main {
  %0 : u32x3 = load @gid
  %1 : i32x3 = bitcast %0
  %2 : i32x2 = swizzle %1, xy
  %3 : u32x4 = image_load @img, %2
  %4 : u32 = swizzle %3, x
  %5 : u32 = const 1
  %6 : u32 = iadd %4, %5
  %7 : u32 = swizzle %0, x
  %8 : u32 = swizzle %0, y
  %9 : u32 = const 8
  %10 : u32 = imul %8, %9
  %11 : u32 = iadd %10, %7
  %12 : u32 = const 4
  %13 : u32 = imul %11, %12
  store_ssbo @o, %13, %6
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

/// Store to an image, load it in a second dispatch, then read it back
/// through a transfer map.
fn image_r32ui(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let t = ResourceTemplate::texture_2d(
        Format::R32Uint,
        8,
        8,
        BindFlags::SHADER_IMAGE | BindFlags::SAMPLER_VIEW,
    );
    let img = e.texture(&t)?;
    let out = sentinel_buffer(&mut e, 64)?;
    bind_cs(&mut e, CS_IMAGE_STORE)?;
    bind_image(
        &mut e,
        image_view(&img, Format::R32Uint, ImageAccess::WRITE),
    )?;
    launch(&mut e, &grid([4, 4, 1], [2, 2, 1]))?;
    bind_cs(&mut e, CS_IMAGE_LOAD)?;
    bind_image(&mut e, image_view(&img, Format::R32Uint, ImageAccess::READ))?;
    bind_ssbos(&mut e, &[&out], 1)?;
    launch(&mut e, &grid([4, 4, 1], [2, 2, 1]))?;
    let texels: Vec<u32> = (0..64).map(|i| (i % 8) + 100 * (i / 8)).collect();
    let got = read_u32s(&mut e, &out, 64)?;
    let plus1: Vec<u32> = texels.iter().map(|v| v + 1).collect();
    expect_u32s("image_load in a second dispatch", &got, &plus1)?;
    let got = bytes_u32(&e.read_texture(&img, 0, &PipeBox::rect(0, 0, 8, 8))?);
    expect_u32s("image read back", &got, &texels)
}
both_paths!("pipe.compute.image.r32ui_store_load", image_r32ui);

/// Image atomics, eight invocations on four texels (texel `i & 3`, so
/// two invocations race for each): `imageAtomicExchange` of
/// `0.5 + 1.25 i` on an `r32f` 2D image and of `100.5 + 1.25 i` on an
/// `r32f` buffer image (GLSL 4.50's float exchange), `imageAtomicAdd` of
/// `1 + i` on `r32ui` and `imageAtomicMin` of `-(1 + i)` on `r32i`. The
/// returned values go to `o[i]`, `o[8 + i]`, `o[16 + i]` and `o[24 + i]`.
const CS_IMAGE_ATOMICS: &str = "shader compute local_size=8,1,1
in @gid : u32x3 builtin=global_invocation_id
image @img slot=0 dim=2d format=r32f
image @buf slot=1 dim=buffer format=r32f
image @u slot=2 dim=2d format=r32ui
image @s slot=3 dim=2d format=r32i
ssbo @o slot=0
fn main {
  %0 : u32x3 = load @gid
  %1 : u32 = swizzle %0, x
  %2 : u32 = const 3
  %3 : u32 = iand %1, %2
  %4 : i32 = bitcast %3
  %5 : i32 = const 0
  %6 : i32x2 = vec %4, %5
  %7 : f32 = u2f %1
  %8 : f32 = const 1.25
  %9 : f32 = fmul %7, %8
  %10 : f32 = const 0.5
  %11 : f32 = fadd %9, %10
  %12 : f32 = image_atomic @img, %6, %11, op=exchange
  %13 : f32 = const 100.0
  %14 : f32 = fadd %11, %13
  %15 : f32 = image_atomic @buf, %4, %14, op=exchange
  %16 : u32 = const 1
  %17 : u32 = iadd %1, %16
  %18 : u32 = image_atomic @u, %6, %17, op=add
  %19 : i32 = bitcast %17
  %20 : i32 = ineg %19
  %21 : i32 = image_atomic @s, %6, %20, op=imin
  %22 : u32 = const 4
  %23 : u32 = imul %1, %22
  %24 : u32 = bitcast %12
  store_ssbo @o, %23, %24
  %25 : u32 = const 32
  %26 : u32 = iadd %23, %25
  %27 : u32 = bitcast %15
  store_ssbo @o, %26, %27
  %28 : u32 = iadd %26, %25
  store_ssbo @o, %28, %18
  %29 : u32 = iadd %28, %25
  %30 : u32 = bitcast %21
  store_ssbo @o, %29, %30
}
";

/// The outcome of two racing atomics on one texel, either order:
/// `olds` (what invocations a and b got back) and `last` (the texel),
/// given its first value and what each does to a value.
fn raced<T: PartialEq + Copy + std::fmt::Debug>(
    what: &str,
    olds: (T, T),
    last: T,
    first: T,
    a: impl Fn(T) -> T,
    b: impl Fn(T) -> T,
) -> R {
    let a_first = olds == (first, a(first)) && last == b(a(first));
    let b_first = olds == (b(first), first) && last == a(b(first));
    if a_first || b_first {
        Ok(())
    } else {
        Err(Outcome::fail(format!(
            "{what}: the two atomics returned {olds:?} and left {last:?}, which no order of \
             them gives from {first:?}"
        )))
    }
}

fn image_atomics(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let texture = |e: &mut Env, format, data: Vec<u32>| -> Result<Resource, Outcome> {
        let t = ResourceTemplate::texture_2d(format, 4, 1, BindFlags::SHADER_IMAGE);
        let tex = e.texture(&t)?;
        e.write_texture(&tex, 0, &PipeBox::rect(0, 0, 4, 1), &u32_bytes(&data))?;
        Ok(tex)
    };
    let f0: Vec<f32> = (0..4).map(|t| -3.0 - t as f32).collect();
    let b0: Vec<f32> = (0..4).map(|t| 7.75 + t as f32).collect();
    let u0: Vec<u32> = (0..4).map(|t| 1000 * (t + 1)).collect();
    let s0: Vec<i32> = (0..4).map(|t| 10 - t).collect();
    let img = texture(
        &mut e,
        Format::R32Float,
        f0.iter().map(|v| v.to_bits()).collect(),
    )?;
    let buf = e.buffer_with(&u32_bytes(
        &b0.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
    ))?;
    let u = texture(&mut e, Format::R32Uint, u0.clone())?;
    let s = texture(
        &mut e,
        Format::R32Sint,
        s0.iter().map(|v| *v as u32).collect(),
    )?;
    let rw = ImageAccess::READ | ImageAccess::WRITE;
    let mut buf_view = image_view(&buf, Format::R32Float, rw);
    buf_view.range = ImageViewRange::Buffer {
        offset: 0,
        size: 16,
    };
    let views = [
        Some(image_view(&img, Format::R32Float, rw)),
        Some(buf_view),
        Some(image_view(&u, Format::R32Uint, rw)),
        Some(image_view(&s, Format::R32Sint, rw)),
    ];
    step(
        "set_shader_images",
        e.ctx.set_shader_images(ShaderStage::Compute, 0, &views, 0),
    )?;
    let out = sentinel_buffer(&mut e, 32)?;
    bind_cs(&mut e, CS_IMAGE_ATOMICS)?;
    bind_ssbos(&mut e, &[&out], 1)?;
    launch(&mut e, &grid([8, 1, 1], [1, 1, 1]))?;
    let o = read_u32s(&mut e, &out, 32)?;
    let texels = |e: &mut Env, r: &Resource| -> Result<Vec<u32>, Outcome> {
        Ok(bytes_u32(&e.read_texture(
            r,
            0,
            &PipeBox::rect(0, 0, 4, 1),
        )?))
    };
    let img_last = texels(&mut e, &img)?;
    let buf_last = read_u32s(&mut e, &buf, 4)?;
    let u_last = texels(&mut e, &u)?;
    let s_last = texels(&mut e, &s)?;
    let f = f32::from_bits;
    for t in 0..4usize {
        let (a, b) = (t, t + 4);
        let data = |i: usize| 0.5 + 1.25 * i as f32;
        raced(
            &format!("r32f image texel {t}, exchange"),
            (f(o[a]), f(o[b])),
            f(img_last[t]),
            f0[t],
            |_| data(a),
            |_| data(b),
        )?;
        raced(
            &format!("r32f buffer image texel {t}, exchange"),
            (f(o[8 + a]), f(o[8 + b])),
            f(buf_last[t]),
            b0[t],
            |_| data(a) + 100.0,
            |_| data(b) + 100.0,
        )?;
        raced(
            &format!("r32ui image texel {t}, add"),
            (o[16 + a], o[16 + b]),
            u_last[t],
            u0[t],
            |v| v + 1 + a as u32,
            |v| v + 1 + b as u32,
        )?;
        raced(
            &format!("r32i image texel {t}, min"),
            (o[24 + a] as i32, o[24 + b] as i32),
            s_last[t] as i32,
            s0[t],
            |v| v.min(-1 - a as i32),
            |v| v.min(-1 - b as i32),
        )?;
    }
    Ok(())
}
both_paths!("pipe.compute.image.atomics", image_atomics);

/// `img[x, y] = (16x, 16y, 255 - x, 128) / 255` (RGBA8 UNORM).
const CS_IMAGE_RGBA8: &str = "shader compute local_size=4,4,1
in @gid : u32x3 builtin=global_invocation_id
image @img slot=0 dim=2d format=rgba8 writeonly
fn main {
  %0 : u32x3 = load @gid
  %1 : i32x3 = bitcast %0
  %2 : i32x2 = swizzle %1, xy
  %3 : u32 = swizzle %0, x
  %4 : u32 = swizzle %0, y
  %5 : u32 = const 16
  %6 : u32 = imul %3, %5
  %7 : u32 = imul %4, %5
  %8 : u32 = const 255
  %9 : u32 = isub %8, %3
  %10 : u32 = const 128
  %11 : u32x4 = vec %6, %7, %9, %10
  %12 : f32x4 = u2f %11
  %13 : f32x4 = const 255.0, 255.0, 255.0, 255.0
  %14 : f32x4 = fdiv %12, %13
  image_store @img, %2, %14
}
";

fn image_rgba8(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let t = ResourceTemplate::texture_2d(
        Format::R8G8B8A8Unorm,
        8,
        8,
        BindFlags::SHADER_IMAGE | BindFlags::SAMPLER_VIEW,
    );
    let img = e.texture(&t)?;
    bind_cs(&mut e, CS_IMAGE_RGBA8)?;
    let view = image_view(&img, Format::R8G8B8A8Unorm, ImageAccess::WRITE);
    bind_image(&mut e, view)?;
    launch(&mut e, &grid([4, 4, 1], [2, 2, 1]))?;
    let got = e.read_texture(&img, 0, &PipeBox::rect(0, 0, 8, 8))?;
    let want: Vec<u8> = (0..64u32)
        .flat_map(|i| {
            let (x, y) = (i % 8, i / 8);
            [(16 * x) as u8, (16 * y) as u8, (255 - x) as u8, 128]
        })
        .collect();
    if let Some(i) = got.iter().zip(&want).position(|(a, b)| a != b) {
        return Err(Outcome::fail(format!(
            "texel {} byte {}: got {}, expected {}",
            i / 4,
            i % 4,
            got[i],
            want[i]
        )));
    }
    if got.len() != want.len() {
        return Err(Outcome::fail("short read-back"));
    }
    Ok(())
}
both_paths!("pipe.compute.image.rgba8_store", image_rgba8);

/// `b[x] = 5x` through a buffer image (storage texel buffer).
const CS_BUFFER_IMAGE: &str = "shader compute local_size=16,1,1
in @gid : u32x3 builtin=global_invocation_id
image @b slot=0 dim=buffer format=r32ui writeonly
fn main {
  %0 : u32x3 = load @gid
  %1 : u32 = swizzle %0, x
  %2 : i32 = bitcast %1
  %3 : u32 = const 5
  %4 : u32 = imul %1, %3
  %5 : u32x4 = vec %4, %4, %4, %4
  image_store @b, %2, %5
}
";

fn buffer_image(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let buf = sentinel_buffer(&mut e, 64)?;
    bind_cs(&mut e, CS_BUFFER_IMAGE)?;
    let view = ImageView {
        resource: buf.clone(),
        format: Format::R32Uint,
        access: ImageAccess::WRITE,
        shader_access: ImageAccess::WRITE,
        range: ImageViewRange::Buffer {
            offset: 0,
            size: 128,
        },
    };
    bind_image(&mut e, view)?;
    // Twice, so the second launch finds the first one's buffer view.
    launch(&mut e, &grid([16, 1, 1], [2, 1, 1]))?;
    e.finish()?;
    launch(&mut e, &grid([16, 1, 1], [2, 1, 1]))?;
    let mut want: Vec<u32> = (0..32).map(|i| 5 * i).collect();
    want.extend(std::iter::repeat_n(SENTINEL, 32));
    let got = read_u32s(&mut e, &buf, 64)?;
    expect_u32s("buffer image", &got, &want)
}
both_paths!("pipe.compute.image.buffer_store", buffer_image);

/// `o[y * 4 + x] = texelFetch(t, (x, y)) + 1000` from a R32_UINT texture.
const CS_TEXTURE: &str = "shader compute local_size=4,4,1
in @gid : u32x3 builtin=global_invocation_id
texture @t slot=0 dim=2d sampled=uint
ssbo @o slot=0
fn main {
  %0 : u32x3 = load @gid
  %1 : i32x3 = bitcast %0
  %2 : i32x2 = swizzle %1, xy
  %3 : i32 = const 0
  %4 : u32x4 = txf @t, coord=%2, lod=%3
  %5 : u32 = swizzle %4, x
  %6 : u32 = swizzle %0, x
  %7 : u32 = swizzle %0, y
  %8 : u32 = const 4
  %9 : u32 = imul %7, %8
  %10 : u32 = iadd %9, %6
  %11 : u32 = imul %10, %8
  %12 : u32 = const 1000
  %13 : u32 = iadd %5, %12
  store_ssbo @o, %11, %13
}
";

fn texture(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let t = ResourceTemplate::texture_2d(Format::R32Uint, 4, 4, BindFlags::SAMPLER_VIEW);
    let tex = e.texture(&t)?;
    let texels: Vec<u32> = (0..16).map(|i| i * i + 3).collect();
    e.write_texture(&tex, 0, &PipeBox::rect(0, 0, 4, 4), &u32_bytes(&texels))?;
    bind_texture(&mut e, &tex)?;
    let out = sentinel_buffer(&mut e, 16)?;
    bind_cs(&mut e, CS_TEXTURE)?;
    bind_ssbos(&mut e, &[&out], 1)?;
    launch(&mut e, &grid([4, 4, 1], [1, 1, 1]))?;
    let want: Vec<u32> = texels.iter().map(|v| v + 1000).collect();
    let got = read_u32s(&mut e, &out, 16)?;
    expect_u32s("texel fetch", &got, &want)
}
both_paths!("pipe.compute.texture.fetch", texture);

/// Per workgroup of 64: `out[wid] = sum(data[wid * 64 .. wid * 64 + 64])`,
/// a tree reduction in shared memory with workgroup barriers.
const CS_REDUCE: &str = "shader compute local_size=64,1,1
in @lidx : u32 builtin=local_invocation_index
in @wid : u32x3 builtin=workgroup_id
shared @tmp : u32[64]
ssbo @data slot=0 readonly
ssbo @out slot=1
local @stride : u32
fn main {
  %0 : u32 = load @lidx
  %1 : u32x3 = load @wid
  %2 : u32 = swizzle %1, x
  %3 : u32 = const 64
  %4 : u32 = imul %2, %3
  %5 : u32 = iadd %4, %0
  %6 : u32 = const 4
  %7 : u32 = imul %5, %6
  %8 : u32 = load_ssbo @data, %7
  store @tmp, %0, %8
  barrier exec=workgroup, mem=workgroup, modes=shared
  %9 : u32 = const 32
  store @stride, %9
  loop {
    %10 : u32 = load @stride
    %11 : u32 = const 0
    %12 : bool = ieq %10, %11
    if %12 {
      break
    }
    %13 : bool = ult %0, %10
    if %13 {
      %14 : u32 = iadd %0, %10
      %15 : u32 = load @tmp, %0
      %16 : u32 = load @tmp, %14
      %17 : u32 = iadd %15, %16
      store @tmp, %0, %17
    }
    barrier exec=workgroup, mem=workgroup, modes=shared
    %18 : u32 = const 1
    %19 : u32 = ushr %10, %18
    store @stride, %19
  }
  %20 : u32 = const 0
  %21 : bool = ieq %0, %20
  if %21 {
    %22 : u32 = load @tmp, %20
    %23 : u32 = imul %2, %6
    store_ssbo @out, %23, %22
  }
}
";

fn shared_reduce(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let n: u32 = 64 * 5;
    let vals: Vec<u32> = (0..n)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 20)
        .collect();
    let data = e.buffer_with(&u32_bytes(&vals))?;
    let out = sentinel_buffer(&mut e, 5)?;
    bind_cs(&mut e, CS_REDUCE)?;
    bind_ssbos(&mut e, &[&data, &out], 0b10)?;
    launch(&mut e, &grid([64, 1, 1], [5, 1, 1]))?;
    let want: Vec<u32> = vals
        .chunks(64)
        .map(|c| c.iter().fold(0u32, |a, b| a.wrapping_add(*b)))
        .collect();
    let got = read_u32s(&mut e, &out, 5)?;
    expect_u32s("workgroup sums", &got, &want)
}
both_paths!("pipe.compute.shared.reduce", shared_reduce);

/// `a[i] = i * i + k`.
fn cs_square(k: u32) -> String {
    format!(
        "shader compute local_size=8,1,1
in @gid : u32x3 builtin=global_invocation_id
ssbo @a slot=0
fn main {{
  %0 : u32x3 = load @gid
  %1 : u32 = swizzle %0, x
  %2 : u32 = imul %1, %1
  %3 : u32 = const {k}
  %4 : u32 = iadd %2, %3
  %5 : u32 = const 4
  %6 : u32 = imul %1, %5
  store_ssbo @a, %6, %4
}}
"
    )
}

/// `b[i] = a[i] + a[(i + 1) % 64]`.
const CS_NEIGHBOURS: &str = "shader compute local_size=8,1,1
in @gid : u32x3 builtin=global_invocation_id
ssbo @a slot=0 readonly
ssbo @b slot=1
fn main {
  %0 : u32x3 = load @gid
  %1 : u32 = swizzle %0, x
  %2 : u32 = const 1
  %3 : u32 = iadd %1, %2
  %4 : u32 = const 64
  %5 : u32 = umod %3, %4
  %6 : u32 = const 4
  %7 : u32 = imul %1, %6
  %8 : u32 = imul %5, %6
  %9 : u32 = load_ssbo @a, %7
  %10 : u32 = load_ssbo @a, %8
  %11 : u32 = iadd %9, %10
  store_ssbo @b, %7, %11
}
";

/// Dispatch A writes `a`, dispatch B reads `a` and writes `b`, dispatch
/// A' overwrites `a` (write after read), then a copy reads `b`: all in one
/// batch, ordered only by the driver's barriers.
fn chained(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let a = sentinel_buffer(&mut e, 64)?;
    let b = sentinel_buffer(&mut e, 64)?;
    let c = sentinel_buffer(&mut e, 64)?;
    bind_cs(&mut e, &cs_square(0))?;
    bind_ssbos(&mut e, &[&a], 1)?;
    launch(&mut e, &grid([8, 1, 1], [8, 1, 1]))?;
    bind_cs(&mut e, CS_NEIGHBOURS)?;
    bind_ssbos(&mut e, &[&a, &b], 0b10)?;
    launch(&mut e, &grid([8, 1, 1], [8, 1, 1]))?;
    bind_cs(&mut e, &cs_square(7))?;
    bind_ssbos(&mut e, &[&a], 1)?;
    launch(&mut e, &grid([8, 1, 1], [8, 1, 1]))?;
    e.copy_buffer(&c, 0, &b, 0, 256)?;
    let sq: Vec<u32> = (0..64).map(|i| i * i).collect();
    let want_b: Vec<u32> = (0..64).map(|i| sq[i] + sq[(i + 1) % 64]).collect();
    let want_a: Vec<u32> = sq.iter().map(|v| v + 7).collect();
    let got = read_u32s(&mut e, &c, 64)?;
    expect_u32s("b (copied)", &got, &want_b)?;
    let got = read_u32s(&mut e, &a, 64)?;
    expect_u32s("a after the third dispatch", &got, &want_a)
}
both_paths!("pipe.compute.sync.chained_dispatches", chained);

/// A transfer writes the input, a dispatch reads it, a transfer then
/// overwrites it (write after read) and a second dispatch reads the new
/// contents.
fn transfer_interleaved(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let a = sentinel_buffer(&mut e, 64)?;
    let b = sentinel_buffer(&mut e, 64)?;
    let first: Vec<u32> = (0..64).map(|i| i * 3).collect();
    let src = e.buffer_with(&u32_bytes(&first))?;
    e.copy_buffer(&a, 0, &src, 0, 256)?;
    bind_cs(&mut e, CS_NEIGHBOURS)?;
    bind_ssbos(&mut e, &[&a, &b], 0b10)?;
    launch(&mut e, &grid([8, 1, 1], [8, 1, 1]))?;
    step(
        "clear_buffer(a)",
        e.ctx.clear_buffer(&a, 0, 256, &5u32.to_le_bytes()),
    )?;
    let c = sentinel_buffer(&mut e, 64)?;
    bind_ssbos(&mut e, &[&a, &c], 0b10)?;
    launch(&mut e, &grid([8, 1, 1], [8, 1, 1]))?;
    let want_b: Vec<u32> = (0..64).map(|i| first[i] + first[(i + 1) % 64]).collect();
    let got = read_u32s(&mut e, &b, 64)?;
    expect_u32s("b", &got, &want_b)?;
    let got = read_u32s(&mut e, &c, 64)?;
    expect_u32s("c", &got, &[10; 64])
}
both_paths!(
    "pipe.compute.sync.transfer_interleaved",
    transfer_interleaved
);

/// A compute state deleted while its dispatch is in flight: the pipeline
/// lives until the batch retires; a new state works afterwards.
fn delete_in_flight(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let a = sentinel_buffer(&mut e, 64)?;
    let h = bind_cs(&mut e, &cs_square(1))?;
    bind_ssbos(&mut e, &[&a], 1)?;
    launch(&mut e, &grid([8, 1, 1], [8, 1, 1]))?;
    step("bind_compute_state(None)", e.ctx.bind_compute_state(None))?;
    step("delete_compute_state", e.ctx.delete_compute_state(h))?;
    step(
        "flush",
        e.ctx.flush(pipe_core::flags::FlushFlags::empty(), false),
    )?;
    let h2 = bind_cs(&mut e, &cs_square(2))?;
    launch(&mut e, &grid([8, 1, 1], [4, 1, 1]))?;
    step("delete_compute_state", e.ctx.delete_compute_state(h2))?;
    e.finish()?;
    let want: Vec<u32> = (0..64)
        .map(|i| if i < 32 { i * i + 2 } else { i * i + 1 })
        .collect();
    let got = read_u32s(&mut e, &a, 64)?;
    expect_u32s("a", &got, &want)
}
both_paths!("pipe.compute.cso.delete_in_flight", delete_in_flight);

fn expect_err(what: &str, r: Result<(), PipeError>, invalid: bool) -> R {
    match (r, invalid) {
        (Err(PipeError::InvalidArgument(_)), true) | (Err(PipeError::Unsupported(_)), false) => {
            Ok(())
        }
        (other, _) => Err(Outcome::fail(format!(
            "{what}: expected {}, got {other:?}",
            if invalid {
                "InvalidArgument"
            } else {
                "Unsupported"
            }
        ))),
    }
}

fn bad_input(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let out = sentinel_buffer(&mut e, IDS_LEN)?;
    // No compute state bound.
    expect_err(
        "launch_grid without a compute state",
        e.ctx.launch_grid(&grid(IDS_BLOCK, [1, 1, 1])),
        true,
    )?;
    // A block that differs from the shader's local size.
    bind_cs(&mut e, CS_IDS)?;
    bind_ssbos(&mut e, &[&out], 1)?;
    expect_err(
        "block != local_size",
        e.ctx.launch_grid(&grid([8, 1, 1], [1, 1, 1])),
        true,
    )?;
    // A shader image slot with nothing bound.
    bind_cs(&mut e, CS_IMAGE_STORE)?;
    expect_err(
        "unbound image",
        e.ctx.launch_grid(&grid([4, 4, 1], [1, 1, 1])),
        true,
    )?;
    // A shader buffer slot beyond what pipe-vk binds.
    let far = CS_ARGS.replace("slot=0", "slot=20");
    let r = e.ctx.create_compute_state(&compute_state(&far)?);
    expect_err("shader buffer slot 20", r.map(|_| ()), false)?;
    // Not a compute shader.
    let vs = compute_state(
        "shader vertex
out @p : f32x4 builtin=position
fn main {
  %0 : f32x4 = const 0.0, 0.0, 0.0, 1.0
  store @p, %0
}
",
    )?;
    let r = e.ctx.create_compute_state(&vs);
    expect_err("vertex IR as a compute state", r.map(|_| ()), true)?;
    // The context still works, with nothing written by the failures.
    bind_cs(&mut e, CS_IDS)?;
    launch(&mut e, &grid(IDS_BLOCK, [3, 2, 2]))?;
    let got = read_u32s(&mut e, &out, IDS_LEN)?;
    expect_u32s(
        "ids after the errors",
        &got,
        &ids_expected([0; 3], [3, 2, 2]),
    )
}
both_paths!("pipe.compute.bad_input", bad_input);

/// SPIR-V passthrough (words emitted here by spirv-gen): the default
/// layout, the module's `LocalSize` checked against the block.
fn spirv_passthrough(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let ir =
        spirv_gen::text::parse(CS_IDS).map_err(|e| Outcome::fail(format!("test shader: {e}")))?;
    let words = spirv_gen::emit::emit(&ir, spirv_gen::emit::Target::Vulkan1_1)
        .map_err(|e| Outcome::fail(format!("emit: {e}")))?;
    let state = |entry: &str| ComputeState {
        code: ShaderCode::SpirV {
            words: words.clone().into(),
            entry_point: entry.into(),
        },
        static_shared_mem: 0,
        req_input_mem: 0,
    };
    let r = e.ctx.create_compute_state(&state("nope"));
    expect_err("unknown entry point", r.map(|_| ()), true)?;
    let h = step(
        "create_compute_state",
        e.ctx.create_compute_state(&state("main")),
    )?;
    step("bind_compute_state", e.ctx.bind_compute_state(Some(h)))?;
    let out = sentinel_buffer(&mut e, IDS_LEN)?;
    bind_ssbos(&mut e, &[&out], 1)?;
    expect_err(
        "block != LocalSize",
        e.ctx.launch_grid(&grid([2, 2, 1], [1, 1, 1])),
        true,
    )?;
    launch(&mut e, &grid(IDS_BLOCK, [3, 2, 2]))?;
    let got = read_u32s(&mut e, &out, IDS_LEN)?;
    expect_u32s("ids", &got, &ids_expected([0; 3], [3, 2, 2]))?;
    // The same module with its entry point called "cids" (the name
    // takes as many words as "main").
    let main = u32::from_le_bytes(*b"main");
    let renamed: Vec<u32> = words
        .iter()
        .map(|&w| {
            if w == main {
                u32::from_le_bytes(*b"cids")
            } else {
                w
            }
        })
        .collect();
    let h2 = step(
        "create_compute_state",
        e.ctx.create_compute_state(&ComputeState {
            code: ShaderCode::SpirV {
                words: renamed.into(),
                entry_point: "cids".into(),
            },
            static_shared_mem: 0,
            req_input_mem: 0,
        }),
    )?;
    step("bind_compute_state", e.ctx.bind_compute_state(Some(h2)))?;
    let out2 = sentinel_buffer(&mut e, IDS_LEN)?;
    bind_ssbos(&mut e, &[&out2], 1)?;
    launch(&mut e, &grid(IDS_BLOCK, [2, 1, 2]))?;
    let got = read_u32s(&mut e, &out2, IDS_LEN)?;
    expect_u32s(
        "ids, entry point cids",
        &got[..],
        &ids_expected([0; 3], [2, 1, 2]),
    )
}
both_paths!("pipe.compute.spirv_passthrough", spirv_passthrough);

/// Vertex `i` of a triangle covering the whole viewport: `(4 * (i & 1) - 1,
/// 4 * (i >> 1) - 1, 0, 1)`, stored at `16 * i`.
const CS_VERTS: &str = "shader compute local_size=3,1,1
in @lidx : u32 builtin=local_invocation_index
ssbo @v slot=0
fn main {
  %0 : u32 = load @lidx
  %1 : u32 = const 1
  %2 : u32 = iand %0, %1
  %3 : u32 = ushr %0, %1
  %4 : u32x2 = vec %2, %3
  %5 : f32x2 = u2f %4
  %6 : f32x2 = const 4.0, 4.0
  %7 : f32x2 = fmul %5, %6
  %8 : f32x2 = const -1.0, -1.0
  %9 : f32x2 = fadd %7, %8
  %10 : f32 = swizzle %9, x
  %11 : f32 = swizzle %9, y
  %12 : f32 = const 0.0
  %13 : f32 = const 1.0
  %14 : f32x4 = vec %10, %11, %12, %13
  %15 : u32 = const 16
  %16 : u32 = imul %0, %15
  store_ssbo @v, %16, %14
}
";

const FS_GREEN: &str = "shader fragment
out @frag : f32x4 location=0
fn main {
  %0 : f32x4 = const 0.0, 1.0, 0.0, 1.0
  store @frag, %0
}
";

/// `o[y * 4 + x]` = the RGBA8 texel (x, y) of a float texture, packed.
const CS_FETCH_RGBA8: &str = "shader compute local_size=4,4,1
in @gid : u32x3 builtin=global_invocation_id
texture @t slot=0 dim=2d sampled=float
ssbo @o slot=0
fn main {
  %0 : u32x3 = load @gid
  %1 : i32x3 = bitcast %0
  %2 : i32x2 = swizzle %1, xy
  %3 : i32 = const 0
  %4 : f32x4 = txf @t, coord=%2, lod=%3
  %5 : f32x4 = const 255.0, 255.0, 255.0, 255.0
  %6 : f32x4 = const 0.5, 0.5, 0.5, 0.5
  %7 : f32x4 = ffma %4, %5, %6
  %8 : u32x4 = f2u %7
  %9 : u32 = swizzle %8, x
  %10 : u32 = swizzle %8, y
  %11 : u32 = swizzle %8, z
  %12 : u32 = swizzle %8, w
  %13 : u32 = const 8
  %14 : u32 = const 16
  %15 : u32 = const 24
  %16 : u32 = ishl %10, %13
  %17 : u32 = ishl %11, %14
  %18 : u32 = ishl %12, %15
  %19 : u32 = ior %9, %16
  %20 : u32 = ior %17, %18
  %21 : u32 = ior %19, %20
  %22 : u32 = swizzle %0, x
  %23 : u32 = swizzle %0, y
  %24 : u32 = const 4
  %25 : u32 = imul %23, %24
  %26 : u32 = iadd %25, %22
  %27 : u32 = imul %26, %24
  store_ssbo @o, %27, %21
}
";

/// Compute writes vertices that a draw reads; a later dispatch samples
/// the draw's render target. One batch: the barriers (and the layout
/// transitions of the render target) are the driver's.
fn draw_interop(ctx: &mut TestContext, staging: bool) -> R {
    use pipe_core::draw::PrimType;
    use pipe_core::state::VertexBufferSource;

    let mut e = env(ctx, staging)?;
    let verts = sentinel_buffer(&mut e, 12)?;
    bind_cs(&mut e, CS_VERTS)?;
    bind_ssbos(&mut e, &[&verts], 1)?;
    launch(&mut e, &grid([3, 1, 1], [1, 1, 1]))?;

    let rt = bind_render_target(&mut e, Format::R8G8B8A8Unorm, 4, 4)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_GREEN)?;
    let src = VertexBufferSource::Resource(verts.clone());
    bind_vertex_buffer(&mut e, &[VEC4_ELEMENT], src)?;
    clear_color(&mut e, [1.0, 0.0, 0.0, 1.0])?;
    draw_arrays(&mut e, PrimType::Triangles, 0, 3)?;
    bind_texture(&mut e, &rt)?;
    let out = sentinel_buffer(&mut e, 16)?;
    bind_cs(&mut e, CS_FETCH_RGBA8)?;
    bind_ssbos(&mut e, &[&out], 1)?;
    launch(&mut e, &grid([4, 4, 1], [1, 1, 1]))?;
    let green = u32::from_le_bytes([0, 255, 0, 255]);
    let got = read_u32s(&mut e, &out, 16)?;
    expect_u32s("render target seen by compute", &got, &[green; 16])?;
    let got = read_u32s(&mut e, &verts, 12)?;
    let want: Vec<u32> = [
        -1.0f32, -1.0, 0.0, 1.0, 3.0, -1.0, 0.0, 1.0, -1.0, 3.0, 0.0, 1.0,
    ]
    .iter()
    .map(|f| f.to_bits())
    .collect();
    expect_u32s("vertices", &got, &want)
}
both_paths!("pipe.compute.sync.draw_interop", draw_interop);

/// A variable workgroup size (`local_size=variable`, GL's
/// ARB_compute_variable_group_size): each invocation of an 8 x 4 x 2
/// domain writes `local_index | size.x << 8 | size.y << 16 | size.z << 24`
/// at its linear global index, read from the `workgroup_size` built-in.
const CS_VARIABLE: &str = "shader compute local_size=variable
in @gid : u32x3 builtin=global_invocation_id
in @lidx : u32 builtin=local_invocation_index
in @wgs : u32x3 builtin=workgroup_size
ssbo @out slot=0
fn main {
  %0 : u32x3 = load @gid
  %1 : u32 = swizzle %0, x
  %2 : u32 = swizzle %0, y
  %3 : u32 = swizzle %0, z
  %4 : u32 = const 8
  %5 : u32 = const 32
  %6 : u32 = imul %2, %4
  %7 : u32 = imul %3, %5
  %8 : u32 = iadd %1, %6
  %9 : u32 = iadd %8, %7
  %10 : u32x3 = load @wgs
  %11 : u32 = swizzle %10, x
  %12 : u32 = swizzle %10, y
  %13 : u32 = swizzle %10, z
  %14 : u32 = const 16
  %15 : u32 = const 24
  %16 : u32 = ishl %11, %4
  %17 : u32 = ishl %12, %14
  %18 : u32 = ishl %13, %15
  %19 : u32 = load @lidx
  %20 : u32 = ior %19, %16
  %21 : u32 = ior %20, %17
  %22 : u32 = ior %21, %18
  %23 : u32 = const 4
  %24 : u32 = imul %9, %23
  store_ssbo @out, %24, %22
}
";

fn variable_block(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    bind_cs(&mut e, CS_VARIABLE)?;
    let dims = [8u32, 4, 2];
    let n = dims[0] * dims[1] * dims[2];
    for block in [[8u32, 1, 1], [2, 2, 2], [4, 4, 1], [1, 1, 1], [8, 4, 2]] {
        let out = sentinel_buffer(&mut e, n)?;
        bind_ssbos(&mut e, &[&out], 1)?;
        let g = [0, 1, 2].map(|i| dims[i] / block[i]);
        launch(&mut e, &grid(block, g))?;
        let mut want = vec![0u32; n as usize];
        for z in 0..dims[2] {
            for y in 0..dims[1] {
                for x in 0..dims[0] {
                    let l = [x % block[0], y % block[1], z % block[2]];
                    let lidx = l[0] + l[1] * block[0] + l[2] * block[0] * block[1];
                    want[(x + y * 8 + z * 32) as usize] =
                        lidx | block[0] << 8 | block[1] << 16 | block[2] << 24;
                }
            }
        }
        let got = read_u32s(&mut e, &out, n)?;
        expect_u32s(&format!("block {block:?}"), &got, &want)?;
    }
    // Blocks outside the device's limits are refused.
    let limits = e.screen.caps().max_block_size;
    for bad in [
        [0, 1, 1],
        [limits[0] + 1, 1, 1],
        [limits[0], limits[1], limits[2]],
    ] {
        let threads = u64::from(bad[0]) * u64::from(bad[1]) * u64::from(bad[2]);
        if bad != [0, 1, 1]
            && bad[0] <= limits[0]
            && threads <= u64::from(e.screen.caps().max_threads_per_block)
        {
            continue;
        }
        expect_err(
            &format!("variable block {bad:?}"),
            e.ctx.launch_grid(&grid(bad, [1, 1, 1])),
            true,
        )?;
    }
    Ok(())
}
both_paths!("pipe.compute.launch.variable_block", variable_block);

/// Global memory (`set_global_binding`): each of 16 invocations reads word
/// `i` at the first address and writes `3 * word + i` at the second; the
/// addresses come from constant buffer 0 (two `u64`, as two words each).
const CS_GLOBAL: &str = "shader compute local_size=16,1,1
in @gid : u32x3 builtin=global_invocation_id
ubo @addrs slot=0 size=16
fn main {
  %0 : u32x3 = load @gid
  %1 : u32 = swizzle %0, x
  %2 : u32 = const 0
  %3 : u32x2 = load_ubo @addrs, %2
  %4 : u64 = bitcast %3
  %5 : u32 = const 8
  %6 : u32x2 = load_ubo @addrs, %5
  %7 : u64 = bitcast %6
  %8 : u32 = const 4
  %9 : u32 = imul %1, %8
  %10 : u64 = u2u %9
  %11 : u64 = iadd %4, %10
  %12 : u64 = iadd %7, %10
  %13 : u32 = load_global %11
  %14 : u32 = const 3
  %15 : u32 = imul %13, %14
  %16 : u32 = iadd %15, %1
  store_global %12, %16
}
";

fn global_binding(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let input: Vec<u32> = (0..16u32).map(|i| i * 7 + 100).collect();
    let src = e.buffer_with(&u32_bytes(&input))?;
    let dst = sentinel_buffer(&mut e, 16)?;
    let addrs = match e
        .ctx
        .set_global_binding(0, &[Some(src.clone()), Some(dst.clone())])
    {
        Err(PipeError::Unsupported(m)) => return Err(Outcome::skip(m)),
        r => step("set_global_binding", r)?,
    };
    if addrs.len() != 2 || addrs.contains(&0) || addrs[0] == addrs[1] {
        return Err(Outcome::fail(format!("addresses {addrs:?}")));
    }
    bind_cs(&mut e, CS_GLOBAL)?;
    let data: Vec<u8> = addrs.iter().flat_map(|a| a.to_le_bytes()).collect();
    set_user_constants(&mut e, ShaderStage::Compute, &data)?;
    launch(&mut e, &grid([16, 1, 1], [1, 1, 1]))?;
    let got = read_u32s(&mut e, &dst, 16)?;
    let want: Vec<u32> = (0..16u32).map(|i| input[i as usize] * 3 + i).collect();
    expect_u32s("global memory", &got, &want)?;
    // A second launch reads what the GPU wrote to `dst` (bound as the
    // source now): the binding's accesses are tracked.
    let again = step(
        "set_global_binding(swap)",
        e.ctx
            .set_global_binding(0, &[Some(dst.clone()), Some(src.clone())]),
    )?;
    let data: Vec<u8> = again.iter().flat_map(|a| a.to_le_bytes()).collect();
    set_user_constants(&mut e, ShaderStage::Compute, &data)?;
    launch(&mut e, &grid([16, 1, 1], [1, 1, 1]))?;
    // `dst` is still in use by that launch: a discarding write renames its
    // storage, and the old address is stale.
    step(
        "discard",
        e.ctx.buffer_subdata(
            &dst,
            MapFlags::WRITE | MapFlags::DISCARD_WHOLE_RESOURCE,
            0,
            &[0u8; 64],
        ),
    )?;
    expect_err(
        "launch after a rename",
        e.ctx.launch_grid(&grid([16, 1, 1], [1, 1, 1])),
        true,
    )?;
    let got = read_u32s(&mut e, &src, 16)?;
    let want2: Vec<u32> = (0..16u32).map(|i| want[i as usize] * 3 + i).collect();
    expect_u32s("global memory, second launch", &got, &want2)?;
    // Once the first storage has retired, a second rename may get a new
    // VkBuffer with a recycled handle: still a stale binding.
    e.finish()?;
    step(
        "clear_buffer",
        e.ctx.clear_buffer(&dst, 0, 64, &[1, 2, 3, 4]),
    )?;
    step(
        "discard again",
        e.ctx.buffer_subdata(
            &dst,
            MapFlags::WRITE | MapFlags::DISCARD_WHOLE_RESOURCE,
            0,
            &[0u8; 64],
        ),
    )?;
    expect_err(
        "launch after a second rename",
        e.ctx.launch_grid(&grid([16, 1, 1], [1, 1, 1])),
        true,
    )?;
    // Unbinding with None gives address 0; a texture is refused.
    let none = step("unbind", e.ctx.set_global_binding(0, &[None, None]))?;
    if none != [0, 0] {
        return Err(Outcome::fail(format!("unbound addresses {none:?}")));
    }
    let tex = e.texture(&pipe_core::resource::ResourceTemplate::texture_2d(
        Format::R8G8B8A8Unorm,
        4,
        4,
        pipe_core::resource::BindFlags::SAMPLER_VIEW,
    ))?;
    expect_err(
        "texture as a global binding",
        e.ctx.set_global_binding(0, &[Some(tex)]).map(|_| ()),
        true,
    )
}
both_paths!("pipe.compute.global_binding", global_binding);

/// Shader text for subgroup votes by the invocation whose index is the
/// `u32` value `%1`: stores to `@o` (at byte `4 * %1`) a word of bits:
/// 0 `vote_any(%1 == 3)`, 1 `vote_all(%1 == 3)`, 2 `vote_eq(%1)`,
/// 3 `vote_eq(5)`, 4 `vote_any(false)`, 5 `vote_all(true)`. Values from
/// `%2` on.
pub(crate) const VOTE_OPS: &str = "  %2 : u32 = const 3
  %3 : bool = ieq %1, %2
  %4 : bool = vote_any %3
  %5 : bool = vote_all %3
  %6 : bool = vote_eq %1
  %7 : u32 = const 5
  %8 : bool = vote_eq %7
  %9 : bool = const false
  %10 : bool = vote_any %9
  %11 : bool = const true
  %12 : bool = vote_all %11
  %13 : u32 = const 0
  %14 : u32 = const 1
  %15 : u32 = const 2
  %16 : u32 = const 4
  %17 : u32 = const 8
  %18 : u32 = const 16
  %19 : u32 = const 32
  %20 : u32 = bcsel %4, %14, %13
  %21 : u32 = bcsel %5, %15, %13
  %22 : u32 = bcsel %6, %16, %13
  %23 : u32 = bcsel %8, %17, %13
  %24 : u32 = bcsel %10, %18, %13
  %25 : u32 = bcsel %12, %19, %13
  %26 : u32 = ior %20, %21
  %27 : u32 = ior %26, %22
  %28 : u32 = ior %27, %23
  %29 : u32 = ior %28, %24
  %30 : u32 = ior %29, %25
  %31 : u32 = imul %1, %16
  store_ssbo @o, %31, %30
";

/// Checks the words [`VOTE_OPS`] stored for invocations `0..n`, which
/// voted in groups the device chose (ARB_shader_group_vote lets a group
/// be one invocation): a vote over the group gives what its own operand
/// allows (`any(x)` true where x is, `all(x)` false where x is not, the
/// uniform votes their one answer), and an invocation that saw
/// invocation 3's `true` in `any` shares a group with it, so its ids
/// differ there and `vote_eq(id)` is false.
pub(crate) fn check_votes(what: &str, words: &[u32]) -> R {
    for (i, &w) in words.iter().enumerate() {
        let bit = |k: u32| w >> k & 1 == 1;
        let x = i == 3;
        let problem = if w >> 6 != 0 || w == SENTINEL {
            Some("not written")
        } else if x && !bit(0) {
            Some("vote_any of its own true is false")
        } else if !x && bit(1) {
            Some("vote_all of its own false is true")
        } else if !bit(3) {
            Some("vote_eq of a uniform value is false")
        } else if bit(4) {
            Some("vote_any(false) is true")
        } else if !bit(5) {
            Some("vote_all(true) is false")
        } else if !x && bit(0) && bit(2) {
            Some("it voted with invocation 3 (vote_any true), yet vote_eq of the ids is true")
        } else {
            None
        };
        if let Some(p) = problem {
            return Err(Outcome::fail(format!(
                "{what}: invocation {i} (word {w:#x}): {p}"
            )));
        }
    }
    Ok(())
}

/// Subgroup votes (GL 4.6's ARB_shader_group_vote) in a compute shader:
/// one workgroup of 16 ([`check_votes`]).
fn votes(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    if !e.screen.caps().shader_group_vote {
        return Err(Outcome::skip("no shader group vote"));
    }
    let cs = format!(
        "shader compute local_size=16,1,1
in @gid : u32x3 builtin=global_invocation_id
ssbo @o slot=0
fn main {{
  %0 : u32x3 = load @gid
  %1 : u32 = swizzle %0, x
{VOTE_OPS}}}
"
    );
    let out = sentinel_buffer(&mut e, 16)?;
    bind_cs(&mut e, &cs)?;
    bind_ssbos(&mut e, &[&out], 1)?;
    launch(&mut e, &grid([16, 1, 1], [1, 1, 1]))?;
    check_votes("compute", &read_u32s(&mut e, &out, 16)?)
}
both_paths!("pipe.compute.vote", votes);
