//! Helpers the test cases share: opening a screen and context on the device
//! and with the validation setting the runner chose, creating and filling
//! resources, reading them back and comparing, and the set-up of a draw
//! (render target, viewport, shaders, vertices).
//!
//! Bodies use `?` on these: a failure becomes `Outcome::Fail` with the pipe
//! error, except `Unsupported` from screen creation, which is a `Skip`
//! (no usable device is a property of the machine, not a driver bug).
//! Bodies that return an `Outcome` directly unwrap with [`or_return!`].
//!
//! The `expect_*` helpers compare with what a case passes them: expected
//! values are always computed in the case, never read from the driver.

use std::sync::Arc;

use pipe_core::draw::{DrawInfo, DrawStartCountBias, PrimType};
use pipe_core::flags::{ClearFlags, FlushFlags, MapFlags};
use pipe_core::resource::{BindFlags, PipeBox, ResourceFlags, Target};
use pipe_core::shader::{ShaderCode, ShaderState, StreamOutputInfo};
use pipe_core::state::{
    BlendFactor, BlendFunc, ColorMask, ColorUnion, ConstantBuffer, FramebufferState,
    RasterizerState, RtBlendState, ShaderStage, VertexBuffer, VertexBufferSource, VertexElement,
    ViewportState,
};
use pipe_core::transfer::Transfer;
use pipe_core::view::{Surface, SurfaceTemplate};
use pipe_core::{Context, Format, PipeError, Resource, ResourceTemplate, Screen};
use pipe_vk::ScreenOptions;

pub use crate::image::Rgba8Range;
use crate::{Outcome, TestContext};

/// The screen options for this test run.
pub fn options(ctx: &TestContext) -> ScreenOptions {
    ScreenOptions {
        device: ctx.device().map(str::to_owned),
        validation: Some(ctx.validation()),
        ..Default::default()
    }
}

/// Opens a screen on the selected device.
pub fn screen(ctx: &TestContext) -> Result<Arc<dyn Screen>, Outcome> {
    screen_with(&options(ctx))
}

/// Opens a screen with `opts`; no usable device is a skip.
fn screen_with(opts: &ScreenOptions) -> Result<Arc<dyn Screen>, Outcome> {
    pipe_vk::create_screen(opts).map_err(|e| match e {
        PipeError::Unsupported(m) => Outcome::skip(format!("no usable device: {m}")),
        e => Outcome::fail(format!("create_screen: {e}")),
    })
}

/// A screen and a context on it.
pub type ScreenAndContext = (Arc<dyn Screen>, Box<dyn Context>);

/// Opens a screen and a context on it.
pub fn screen_and_context(ctx: &TestContext) -> Result<ScreenAndContext, Outcome> {
    let s = screen(ctx)?;
    let c = context(&s)?;
    Ok((s, c))
}

/// Creates a context on `screen`.
fn context(screen: &Arc<dyn Screen>) -> Result<Box<dyn Context>, Outcome> {
    screen
        .clone()
        .context_create()
        .map_err(|e| Outcome::fail(format!("context_create: {e}")))
}

/// Unwraps a `Result<T, Outcome>` in a body that returns an [`Outcome`]
/// (the `?` of bodies that are not `Result`s): `Err(o)` returns `o`.
#[macro_export]
macro_rules! or_return {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(o) => return o,
        }
    };
}

/// Turns a pipe error into a failure naming `what`.
pub fn fail<E: std::fmt::Display>(what: &'static str) -> impl Fn(E) -> Outcome {
    move |e| Outcome::fail(format!("{what}: {e}"))
}

/// Opens a screen and context, optionally forcing the staging paths
/// (`PIPE_VK_DEBUG=staging`) that discrete GPUs take.
pub fn env(ctx: &TestContext, staging: bool) -> Result<Env, Outcome> {
    env_with(ctx, |o| o.staging = Some(staging))
}

/// Opens a screen and context with options changed by `f` (debug
/// switches that force the paths of other devices).
pub fn env_with(ctx: &TestContext, f: impl FnOnce(&mut ScreenOptions)) -> Result<Env, Outcome> {
    let mut opts = options(ctx);
    f(&mut opts);
    let screen = screen_with(&opts)?;
    let ctx = context(&screen)?;
    Ok(Env { screen, ctx })
}

/// A screen and context with helpers for resources and readback.
pub struct Env {
    pub screen: Arc<dyn Screen>,
    pub ctx: Box<dyn Context>,
}

/// Maps a pipe error to a failing outcome naming the step.
pub fn step<T>(what: &str, r: Result<T, PipeError>) -> Result<T, Outcome> {
    r.map_err(|e| Outcome::fail(format!("{what}: {e}")))
}

impl Env {
    /// A buffer of `size` bytes.
    pub fn buffer(&self, size: u32, flags: ResourceFlags) -> Result<Resource, Outcome> {
        let mut t =
            ResourceTemplate::buffer(size, BindFlags::VERTEX_BUFFER | BindFlags::SHADER_BUFFER);
        t.flags = flags;
        step("resource_create(buffer)", self.screen.resource_create(&t))
    }

    /// A buffer of `data.len()` bytes holding `data`.
    pub fn buffer_with(&mut self, data: &[u8]) -> Result<Resource, Outcome> {
        let buf = self.buffer(data.len() as u32, ResourceFlags::empty())?;
        self.subdata(&buf, 0, data)?;
        Ok(buf)
    }

    /// Writes `data` at byte `offset` of a buffer (`buffer_subdata`).
    pub fn subdata(&mut self, res: &Resource, offset: u32, data: &[u8]) -> Result<(), Outcome> {
        step(
            "buffer_subdata",
            self.ctx
                .buffer_subdata(res, MapFlags::empty(), offset, data),
        )
    }

    /// Copies `len` bytes at `src_offset` of buffer `src` to `dst_offset`
    /// of buffer `dst` (`resource_copy_region`).
    pub fn copy_buffer(
        &mut self,
        dst: &Resource,
        dst_offset: u32,
        src: &Resource,
        src_offset: u32,
        len: u32,
    ) -> Result<(), Outcome> {
        copy_buffer_on(&mut *self.ctx, dst, dst_offset, src, src_offset, len)
    }

    /// Maps a box of level 0 with `flags` (which include WRITE) and writes
    /// `data` at its start; the caller unmaps.
    pub fn map_write(
        &mut self,
        res: &Resource,
        flags: MapFlags,
        bx: &PipeBox,
        data: &[u8],
    ) -> Result<Transfer, Outcome> {
        let mut t = step(
            "transfer_map(WRITE)",
            self.ctx.transfer_map(res, 0, flags, bx),
        )?;
        t.write_bytes(0, data)
            .ok_or_else(|| Outcome::fail("write past the map"))?;
        Ok(t)
    }

    /// [`Env::map_write`], then unmaps.
    pub fn write_through_map(
        &mut self,
        res: &Resource,
        flags: MapFlags,
        bx: &PipeBox,
        data: &[u8],
    ) -> Result<(), Outcome> {
        let t = self.map_write(res, flags, bx, data)?;
        step("transfer_unmap", self.ctx.transfer_unmap(t))
    }

    /// Another context on the screen.
    pub fn other_context(&self) -> Result<Box<dyn Context>, Outcome> {
        context(&self.screen)
    }

    /// A texture from a template.
    pub fn texture(&self, t: &ResourceTemplate) -> Result<Resource, Outcome> {
        step("resource_create(texture)", self.screen.resource_create(t))
    }

    /// A surface of layers `first_layer..=last_layer` of a level, in the
    /// resource's format.
    pub fn surface(
        &mut self,
        res: &Resource,
        level: u32,
        first_layer: u32,
        last_layer: u32,
    ) -> Result<Surface, Outcome> {
        let t = SurfaceTemplate {
            format: res.desc().format,
            level,
            first_layer,
            last_layer,
        };
        step("create_surface", self.ctx.create_surface(res, &t))
    }

    /// Reads `len` bytes at `offset` of a buffer through a READ map.
    pub fn read_buffer(
        &mut self,
        res: &Resource,
        offset: u32,
        len: u32,
    ) -> Result<Vec<u8>, Outcome> {
        read_buffer_on(&mut *self.ctx, res, offset, len)
    }

    /// Reads a box of a texture level, tightly packed, through a READ map.
    pub fn read_texture(
        &mut self,
        res: &Resource,
        level: u32,
        bx: &PipeBox,
    ) -> Result<Vec<u8>, Outcome> {
        let t = step(
            "transfer_map(READ)",
            self.ctx.transfer_map(res, level, MapFlags::READ, bx),
        )?;
        let f = res.desc().format.block();
        let row = (bx.width as usize).div_ceil(f.width as usize) * (f.bits / 8) as usize;
        let rows = (bx.height as usize).div_ceil(f.height as usize);
        let mut out = Vec::with_capacity(row * rows * bx.depth as usize);
        let bytes = t.to_vec();
        for z in 0..bx.depth as usize {
            for y in 0..rows {
                let s = z * t.layer_stride() + y * t.stride();
                let src = bytes
                    .get(s..s + row)
                    .ok_or_else(|| Outcome::fail("mapped texture smaller than its box"))?;
                out.extend_from_slice(src);
            }
        }
        step("transfer_unmap", self.ctx.transfer_unmap(t))?;
        Ok(out)
    }

    /// Fails naming `what` unless box `bx` of a texture level reads back
    /// (tightly packed) as `want`.
    pub fn expect_texture(
        &mut self,
        res: &Resource,
        level: u32,
        bx: &PipeBox,
        want: &[u8],
        what: &str,
    ) -> Result<(), Outcome> {
        expect_bytes(what, &self.read_texture(res, level, bx)?, want)
    }

    /// Fails naming `what` unless box `bx` of a level of an RGBA8 texture
    /// reads back (tightly packed) as `want`, one [`Rgba8Range`] per texel.
    pub fn expect_texture_rgba8(
        &mut self,
        res: &Resource,
        level: u32,
        bx: &PipeBox,
        want: &[Rgba8Range],
        what: &str,
    ) -> Result<(), Outcome> {
        expect_rgba8(what, &self.read_texture(res, level, bx)?, want)
    }

    /// Writes a tightly packed box of a texture level.
    pub fn write_texture(
        &mut self,
        res: &Resource,
        level: u32,
        bx: &PipeBox,
        data: &[u8],
    ) -> Result<(), Outcome> {
        let f = res.desc().format.block();
        let row = (bx.width as usize).div_ceil(f.width as usize) * (f.bits / 8) as usize;
        let rows = (bx.height as usize).div_ceil(f.height as usize);
        step(
            "texture_subdata",
            self.ctx
                .texture_subdata(res, level, MapFlags::WRITE, bx, data, row, row * rows),
        )
    }

    /// Flushes with a fence and waits for it.
    pub fn finish(&mut self) -> Result<(), Outcome> {
        let fence = step("flush", self.ctx.flush(FlushFlags::empty(), true))?
            .ok_or_else(|| Outcome::fail("flush returned no fence"))?;
        let done = step(
            "fence_finish",
            self.screen.fence_finish(None, &fence, u64::MAX),
        )?;
        if !done {
            return Err(Outcome::fail(
                "fence_finish with an infinite timeout returned false",
            ));
        }
        Ok(())
    }
}

/// Reads `len` bytes at `offset` of a buffer through a READ map on
/// context `c` (a second context of a test, or an [`Env`]'s).
pub fn read_buffer_on(
    c: &mut dyn Context,
    res: &Resource,
    offset: u32,
    len: u32,
) -> Result<Vec<u8>, Outcome> {
    let t = step(
        "transfer_map(READ)",
        c.transfer_map(res, 0, MapFlags::READ, &PipeBox::range(offset, len)),
    )?;
    let data = t.to_vec();
    step("transfer_unmap", c.transfer_unmap(t))?;
    Ok(data)
}

/// [`Env::copy_buffer`] on context `c`.
pub fn copy_buffer_on(
    c: &mut dyn Context,
    dst: &Resource,
    dst_offset: u32,
    src: &Resource,
    src_offset: u32,
    len: u32,
) -> Result<(), Outcome> {
    let bx = PipeBox::range(src_offset, len);
    step(
        "resource_copy_region(buffer)",
        c.resource_copy_region(dst, 0, dst_offset, 0, 0, src, 0, &bx),
    )
}

/// Fails naming `what` unless `got` and `want` have the same length and
/// elements; the message names the first differing element (a `unit`:
/// "byte", "value") by its index, in hex.
pub fn expect_elems<T: PartialEq + std::fmt::LowerHex>(
    what: &str,
    unit: &str,
    got: &[T],
    want: &[T],
) -> Result<(), Outcome> {
    if got.len() != want.len() {
        return Err(Outcome::fail(format!(
            "{what}: {} {unit}s, expected {}",
            got.len(),
            want.len()
        )));
    }
    if let Some(i) = got.iter().zip(want).position(|(a, b)| a != b) {
        let w = 2 + 2 * std::mem::size_of::<T>();
        return Err(Outcome::fail(format!(
            "{what}: {unit} {i} is {:#0w$x}, expected {:#0w$x}",
            got[i], want[i]
        )));
    }
    Ok(())
}

/// Fails naming `what` and the first bad texel unless the RGBA8 texels in
/// `got` lie in `want`, one [`Rgba8Range`] per texel.
pub fn expect_rgba8(what: &str, got: &[u8], want: &[Rgba8Range]) -> Result<(), Outcome> {
    if got.len() != want.len() * 4 {
        return Err(Outcome::fail(format!(
            "{what}: {} bytes, expected {} texels",
            got.len(),
            want.len()
        )));
    }
    for (i, (g, w)) in got.chunks_exact(4).zip(want).enumerate() {
        let g = [g[0], g[1], g[2], g[3]];
        if !w.contains(g) {
            return Err(Outcome::fail(format!(
                "{what}: texel {i} is {g:?}, expected {w}"
            )));
        }
    }
    Ok(())
}

/// Exact expectations for RGBA8 bytes, one per texel.
pub fn rgba8_exact(bytes: &[u8]) -> Vec<Rgba8Range> {
    bytes
        .chunks_exact(4)
        .map(|t| [t[0], t[1], t[2], t[3]].into())
        .collect()
}

/// [`expect_elems`] of bytes.
pub fn expect_bytes(what: &str, got: &[u8], want: &[u8]) -> Result<(), Outcome> {
    expect_elems(what, "byte", got, want)
}

/// A texture template that can be sampled (SAMPLER_VIEW is added to
/// `bind`): `n` is the depth of a 3D texture and the layer count of the
/// others; `levels` mip levels.
pub fn texture_template(
    target: Target,
    format: Format,
    w: u32,
    h: u32,
    n: u32,
    levels: u32,
    bind: BindFlags,
) -> ResourceTemplate {
    let mut t = ResourceTemplate::texture_2d(format, w, h, bind | BindFlags::SAMPLER_VIEW);
    t.target = target;
    if target == Target::Texture3D {
        t.depth0 = n;
    } else {
        t.array_size = n;
    }
    t.last_level = levels - 1;
    t
}

/// A deterministic byte pattern (differs per `seed`).
pub fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| {
            (i as u32)
                .wrapping_mul(31)
                .wrapping_add(u32::from(seed) * 7) as u8
        })
        .collect()
}

/// Registers case `name` for a body `fn(&mut TestContext) -> Result<(),
/// Outcome>`.
#[macro_export]
macro_rules! result_case {
    ($name:expr, $body:path $(,)?) => {
        const _: () = {
            fn run(ctx: &mut $crate::TestContext) -> $crate::Outcome {
                $crate::Outcome::from_result($body(ctx))
            }
            $crate::test_case!(name = $name, run);
        };
    };
}

/// Registers a body taking a `bool` twice: `$off` runs `body(ctx,
/// false)`, `$on` runs `body(ctx, true)`.
#[macro_export]
macro_rules! bool_cases {
    ($body:path, $off:expr, $on:expr $(,)?) => {
        const _: () = {
            fn off(ctx: &mut $crate::TestContext) -> $crate::Outcome {
                $crate::Outcome::from_result($body(ctx, false))
            }
            fn on(ctx: &mut $crate::TestContext) -> $crate::Outcome {
                $crate::Outcome::from_result($body(ctx, true))
            }
            $crate::test_case!(name = $off, off);
            $crate::test_case!(name = $on, on);
        };
    };
}

/// Registers a test body twice: `<name>.direct` and `<name>.staging`.
/// Arguments after the body are passed to it after `staging`
/// (`both_paths!("a.b", body, true)` runs `body(ctx, staging, true)`), so
/// that one body serves several registered tests.
#[macro_export]
macro_rules! both_paths {
    ($name:literal, $body:path $(, $arg:expr)* $(,)?) => {
        const _: () = {
            fn direct(ctx: &mut $crate::TestContext) -> $crate::Outcome {
                $crate::Outcome::from_result($body(ctx, false $(, $arg)*))
            }
            fn staging(ctx: &mut $crate::TestContext) -> $crate::Outcome {
                $crate::Outcome::from_result($body(ctx, true $(, $arg)*))
            }
            $crate::test_case!(name = concat!($name, ".direct"), direct);
            $crate::test_case!(name = concat!($name, ".staging"), staging);
        };
    };
}

/// Registers the `.spirv` variant of a `both_paths!` body: `body(ctx,
/// false, args...)` with every shader [`shader`] makes given as SPIR-V
/// passthrough ([`as_spirv`]).
#[macro_export]
macro_rules! spirv_variant {
    ($name:expr, $body:path $(, $arg:expr)* $(,)?) => {
        const _: () = {
            fn spirv(ctx: &mut $crate::TestContext) -> $crate::Outcome {
                $crate::Outcome::from_result($crate::harness::as_spirv(|| {
                    $body(ctx, false $(, $arg)*)
                }))
            }
            $crate::test_case!(name = concat!($name, ".spirv"), spirv);
        };
    };
}

/// `.spirv` variants of cases whose bodies take only the context: case
/// `$name.spirv` runs `$body` with every shader given as SPIR-V
/// passthrough ([`as_spirv`]).
#[macro_export]
macro_rules! spirv_result_cases {
    ($($name:literal => $body:expr),+ $(,)?) => {
        $(
            const _: () = {
                fn spirv(ctx: &mut $crate::TestContext) -> $crate::Outcome {
                    $crate::Outcome::from_result($crate::harness::as_spirv(|| ($body)(ctx)))
                }
                $crate::test_case!(name = concat!($name, ".spirv"), spirv);
            };
        )+
    };
}

// ---------------------------------------------------------------------------
// Rendering helpers shared by the draw, primitive and compute cases.
// ---------------------------------------------------------------------------

/// A vertex shader passing location 0 through to the position.
pub const VS_PASSTHROUGH: &str = "shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
}
";

/// A fragment shader writing the first vec4 of constant buffer 0.
pub const FS_UBO_COLOR: &str = "shader fragment
out @frag : f32x4 location=0
ubo @c slot=0 size=16
fn main {
  %0 : u32 = const 0
  %1 : f32x4 = load_ubo @c, %0
  store @frag, %1
}
";

/// A shader CSO template from spirv-gen text IR.
pub fn shader(stage: ShaderStage, src: &str) -> Result<ShaderState, Outcome> {
    if is_spirv(stage) {
        return spirv_shader(stage, src, spirv_gen::emit::Target::Vulkan1_3);
    }
    let ir = spirv_gen::text::parse(src).map_err(|e| Outcome::fail(format!("test shader: {e}")))?;
    Ok(ShaderState {
        stage,
        code: ShaderCode::Ir(Arc::new(ir)),
        stream_output: StreamOutputInfo::default(),
    })
}

thread_local! {
    /// Set by [`as_spirv`] and [`as_spirv_vs`]: the stages (bit
    /// `stage.index()`) whose shaders [`shader`] gives as SPIR-V
    /// passthrough.
    static AS_SPIRV: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Whether [`shader`] gives `stage`'s shaders as SPIR-V passthrough.
pub fn is_spirv(stage: ShaderStage) -> bool {
    AS_SPIRV.with(|c| c.get() >> stage.index() & 1 == 1)
}

/// Runs `f` with the shaders [`shader`] makes for the stages in `mask`
/// given as SPIR-V passthrough ([`spirv_shader`], SPIR-V 1.6).
fn with_spirv<T>(mask: u32, f: impl FnOnce() -> T) -> T {
    AS_SPIRV.with(|c| c.set(mask));
    let r = f();
    AS_SPIRV.with(|c| c.set(0));
    r
}

/// Runs `f` with every shader [`shader`] makes given as SPIR-V
/// passthrough instead of IR: a case's `.spirv` variant.
pub fn as_spirv<T>(f: impl FnOnce() -> T) -> T {
    with_spirv(u32::MAX, f)
}

/// Runs `f` with the vertex shaders [`shader`] makes given as SPIR-V
/// passthrough, the others as IR: a case's `.spirv_vs` variant.
pub fn as_spirv_vs<T>(f: impl FnOnce() -> T) -> T {
    with_spirv(1 << ShaderStage::Vertex.index(), f)
}

/// The IR shader `src`, emitted by spirv-gen for `target`, as a SPIR-V
/// passthrough shader (ARB_gl_spirv): what pipe-vk gets from a frontend
/// that compiles its own SPIR-V.
pub fn spirv_shader(
    stage: ShaderStage,
    src: &str,
    target: spirv_gen::emit::Target,
) -> Result<ShaderState, Outcome> {
    let ir = spirv_gen::text::parse(src).map_err(|e| Outcome::fail(format!("test shader: {e}")))?;
    spirv_shader_of(stage, &ir, target)
}

/// A SPIR-V passthrough shader from a module's bytes (a `.spv` file
/// made from the `.spvasm` beside it), entry point `main`.
pub fn spirv_module(stage: ShaderStage, bytes: &[u8]) -> ShaderState {
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    ShaderState {
        stage,
        code: ShaderCode::SpirV {
            words: Arc::from(words),
            entry_point: "main".into(),
        },
        stream_output: StreamOutputInfo::default(),
    }
}

/// [`spirv_shader`] of parsed (and perhaps lowered) IR.
pub fn spirv_shader_of(
    stage: ShaderStage,
    ir: &spirv_gen::ir::Shader,
    target: spirv_gen::emit::Target,
) -> Result<ShaderState, Outcome> {
    let words =
        spirv_gen::emit::emit(ir, target).map_err(|e| Outcome::fail(format!("emit: {e}")))?;
    Ok(ShaderState {
        stage,
        code: ShaderCode::SpirV {
            words: Arc::from(words),
            entry_point: "main".into(),
        },
        stream_output: StreamOutputInfo::default(),
    })
}

/// Little-endian bytes of floats.
pub fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|f| f.to_le_bytes()).collect()
}

/// The UNORM8 values a colour written to an RGBA8 UNORM target may read
/// back as: per channel either integer nearest `clamp(v) * 255` (the
/// Vulkan spec's conversion; exact where that is an integer). Compare with
/// [`Rgba8Range::contains`] or an image check; `.nearest()` gives the
/// round-to-nearest bytes.
pub fn unorm(c: [f32; 4]) -> Rgba8Range {
    Rgba8Range::unorm(c)
}

/// Binds a rasterizer built from `f` applied to the tests' defaults (GL
/// conventions a Gallium frontend sets: pixel centres at half, depth clip
/// on, clip-space depth [0, 1], 1-pixel lines).
pub fn bind_rasterizer(e: &mut Env, f: impl FnOnce(&mut RasterizerState)) -> Result<(), Outcome> {
    let mut rs = RasterizerState {
        line_width: 1.0,
        clip_halfz: true,
        half_pixel_center: true,
        depth_clip_near: true,
        depth_clip_far: true,
        ..Default::default()
    };
    f(&mut rs);
    let h = step("rasterizer", e.ctx.create_rasterizer_state(&rs))?;
    step("bind rasterizer", e.ctx.bind_rasterizer_state(Some(h)))
}

/// Tessellation without a control shader at its simplest: `vertices`
/// per patch, and default levels of 1 (`set_tess_state`), so a triangle
/// patch becomes its triangle and an isoline patch one line.
pub fn tess_levels_1(e: &mut Env, vertices: u8) -> Result<(), Outcome> {
    step("patch vertices", e.ctx.set_patch_vertices(vertices))?;
    step(
        "set_tess_state",
        e.ctx.set_tess_state(&pipe_core::state::TessState {
            default_outer_level: [1.0; 4],
            default_inner_level: [1.0; 2],
        }),
    )
}

/// Creates a shader of `stage` (geometry or tessellation) from text IR
/// and binds it.
pub fn bind_stage(e: &mut Env, stage: ShaderStage, src: &str) -> Result<(), Outcome> {
    let st = shader(stage, src)?;
    match stage {
        ShaderStage::Geometry => {
            let h = step("create_gs_state", e.ctx.create_gs_state(&st))?;
            step("bind_gs_state", e.ctx.bind_gs_state(Some(h)))
        }
        ShaderStage::TessCtrl => {
            let h = step("create_tcs_state", e.ctx.create_tcs_state(&st))?;
            step("bind_tcs_state", e.ctx.bind_tcs_state(Some(h)))
        }
        ShaderStage::TessEval => {
            let h = step("create_tes_state", e.ctx.create_tes_state(&st))?;
            step("bind_tes_state", e.ctx.bind_tes_state(Some(h)))
        }
        _ => Err(Outcome::fail(format!("bind_stage: {stage:?}"))),
    }
}

/// Creates and binds a vertex and a fragment shader.
pub fn bind_program(e: &mut Env, vs: &str, fs: &str) -> Result<(), Outcome> {
    let v = step(
        "create_vs_state",
        e.ctx.create_vs_state(&shader(ShaderStage::Vertex, vs)?),
    )?;
    let f = step(
        "create_fs_state",
        e.ctx.create_fs_state(&shader(ShaderStage::Fragment, fs)?),
    )?;
    step("bind_vs_state", e.ctx.bind_vs_state(Some(v)))?;
    step("bind_fs_state", e.ctx.bind_fs_state(Some(f)))
}

/// Binds `cbufs` and `zsbuf` as a one-layer, single-sampled `w` x `h`
/// framebuffer.
pub fn set_framebuffer(
    e: &mut Env,
    w: u16,
    h: u16,
    cbufs: Vec<Option<Surface>>,
    zsbuf: Option<Surface>,
) -> Result<(), Outcome> {
    let fb = FramebufferState {
        width: w,
        height: h,
        layers: 1,
        samples: 1,
        cbufs,
        zsbuf,
        resolve: None,
    };
    step("set_framebuffer_state", e.ctx.set_framebuffer_state(&fb))
}

/// A plain blit of `src` to `dst`: RGBA, nearest, with no scissor,
/// render condition, blending or window rectangles.
pub fn blit_info(
    dst: pipe_core::blit::BlitSurface,
    src: pipe_core::blit::BlitSurface,
) -> pipe_core::blit::BlitInfo {
    pipe_core::blit::BlitInfo {
        dst,
        src,
        mask: pipe_core::flags::BlitMask::RGBA,
        filter: pipe_core::state::TexFilter::Nearest,
        scissor: None,
        render_condition_enable: false,
        alpha_blend: false,
        window_rectangle_include: false,
        window_rectangles: Vec::new(),
    }
}

/// Sets viewport 0 to the whole `w` x `h` window (NDC x and y in -1..1 to
/// 0..w and 0..h, z unchanged).
pub fn set_full_viewport(e: &mut Env, w: u32, h: u32) -> Result<(), Outcome> {
    let (x, y) = (w as f32 / 2.0, h as f32 / 2.0);
    let vp = ViewportState {
        scale: [x, y, 1.0],
        translate: [x, y, 0.0],
        swizzle: Default::default(),
    };
    step("set_viewport_states", e.ctx.set_viewport_states(0, &[vp]))
}

/// A `w` x `h` 2D texture of `format` (render target and sampler view),
/// bound alone as the framebuffer with [`set_full_viewport`].
pub fn bind_render_target(
    e: &mut Env,
    format: Format,
    w: u32,
    h: u32,
) -> Result<Resource, Outcome> {
    let bind = BindFlags::RENDER_TARGET | BindFlags::SAMPLER_VIEW;
    let color = e.texture(&ResourceTemplate::texture_2d(format, w, h, bind))?;
    let s = e.surface(&color, 0, 0, 0)?;
    set_framebuffer(e, w as u16, h as u16, vec![Some(s)], None)?;
    set_full_viewport(e, w, h)?;
    Ok(color)
}

/// Binds two f32x4 elements of vertex buffer 0, both of `stride`: the
/// position at offset 0 (location 0) and, 4 bytes on, the attribute of
/// location 1 (a second input from the same vertices).
pub fn bind_position_and_attribute(e: &mut Env, stride: u32) -> Result<(), Outcome> {
    let elem = |src_offset| VertexElement {
        src_offset,
        src_stride: stride,
        vertex_buffer_index: 0,
        dual_slot: false,
        src_format: Format::R32G32B32A32Float,
        instance_divisor: 0,
    };
    let ve = step(
        "create_vertex_elements_state",
        e.ctx.create_vertex_elements_state(&[elem(0), elem(4)]),
    )?;
    step(
        "bind_vertex_elements_state",
        e.ctx.bind_vertex_elements_state(Some(ve)),
    )
}

/// Vertex element 0: an f32x4 at offset 0 of vertex buffer 0, stride 16.
/// Additive blending of colour and alpha (ONE, ONE), every channel
/// written.
pub const RT_ADDITIVE: RtBlendState = RtBlendState {
    blend_enable: true,
    rgb_func: BlendFunc::Add,
    rgb_src_factor: BlendFactor::One,
    rgb_dst_factor: BlendFactor::One,
    alpha_func: BlendFunc::Add,
    alpha_src_factor: BlendFactor::One,
    alpha_dst_factor: BlendFactor::One,
    colormask: ColorMask::RGBA,
};

pub const VEC4_ELEMENT: VertexElement = VertexElement {
    src_offset: 0,
    src_stride: 16,
    vertex_buffer_index: 0,
    dual_slot: false,
    src_format: Format::R32G32B32A32Float,
    instance_divisor: 0,
};

/// Creates and binds vertex elements `elems` and sets vertex buffer 0 to
/// `src`.
pub fn bind_vertex_buffer(
    e: &mut Env,
    elems: &[VertexElement],
    src: VertexBufferSource,
) -> Result<(), Outcome> {
    let ve = step(
        "create_vertex_elements_state",
        e.ctx.create_vertex_elements_state(elems),
    )?;
    step(
        "bind_vertex_elements_state",
        e.ctx.bind_vertex_elements_state(Some(ve)),
    )?;
    step(
        "set_vertex_buffers",
        e.ctx.set_vertex_buffers(&[VertexBuffer {
            buffer: Some(src),
            buffer_offset: 0,
        }]),
    )
}

/// Clears the rectangle `[x, y, width, height]` of a colour surface to
/// `c` (`clear_render_target`, render condition ignored).
pub fn clear_surface(
    e: &mut Env,
    s: &Surface,
    c: &ColorUnion,
    [x, y, w, h]: [u32; 4],
) -> Result<(), Outcome> {
    step(
        "clear_render_target",
        e.ctx.clear_render_target(s, c, x, y, w, h, false),
    )
}

/// Clears the aspects in `flags` of the rectangle `[x, y, width, height]`
/// of a depth/stencil surface (`clear_depth_stencil`, render condition
/// ignored).
pub fn clear_depth_stencil(
    e: &mut Env,
    s: &Surface,
    flags: ClearFlags,
    (depth, stencil): (f64, u32),
    [x, y, w, h]: [u32; 4],
) -> Result<(), Outcome> {
    step(
        "clear_depth_stencil",
        e.ctx
            .clear_depth_stencil(s, flags, depth, stencil, x, y, w, h, false),
    )
}

/// Clears colour buffer 0 of the bound framebuffer to `c`.
pub fn clear_color(e: &mut Env, c: [f32; 4]) -> Result<(), Outcome> {
    step(
        "clear",
        e.ctx
            .clear(ClearFlags::COLOR0, None, &ColorUnion::from_f32(c), 1.0, 0),
    )
}

/// A non-indexed draw of `count` vertices from `start`, one instance.
pub fn draw_arrays(e: &mut Env, mode: PrimType, start: u32, count: u32) -> Result<(), Outcome> {
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
                start,
                count,
                index_bias: 0,
            }],
        ),
    )
}

/// Sets constant buffer 0 of `stage` to `data` (user memory).
pub fn set_user_constants(e: &mut Env, stage: ShaderStage, data: &[u8]) -> Result<(), Outcome> {
    set_user_constants_on(&mut *e.ctx, stage, data)
}

/// [`set_user_constants`] on any context (an unwrapped one included).
pub fn set_user_constants_on(
    ctx: &mut dyn Context,
    stage: ShaderStage,
    data: &[u8],
) -> Result<(), Outcome> {
    step(
        "set_constant_buffer",
        ctx.set_constant_buffer(
            stage,
            0,
            Some(ConstantBuffer {
                buffer: None,
                buffer_offset: 0,
                buffer_size: data.len() as u32,
                user_buffer: Some(data),
            }),
        ),
    )
}

/// Sets fragment constant buffer 0 to one colour (user data).
pub fn set_color(e: &mut Env, c: [f32; 4]) -> Result<(), Outcome> {
    set_user_constants(e, ShaderStage::Fragment, &f32s(&c))
}
