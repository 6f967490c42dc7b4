//! Helpers the test cases share: opening a screen and context on the device
//! and with the validation setting the runner chose.
//!
//! Bodies use `?` on these: a failure becomes `Outcome::Fail` with the pipe
//! error, except `Unsupported` from screen creation, which is a `Skip`
//! (no usable device is a property of the machine, not a driver bug).

use std::sync::Arc;

use pipe_core::flags::{FlushFlags, MapFlags};
use pipe_core::resource::{BindFlags, PipeBox, ResourceFlags};
use pipe_core::shader::{ShaderCode, ShaderState, StreamOutputInfo};
use pipe_core::state::{ConstantBuffer, ShaderStage};
use pipe_core::{Context, PipeError, Resource, ResourceTemplate, Screen};
use pipe_vk::ScreenOptions;

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
    pipe_vk::create_screen(&options(ctx)).map_err(|e| match e {
        PipeError::Unsupported(m) => Outcome::skip(format!("no usable device: {m}")),
        e => Outcome::fail(format!("create_screen: {e}")),
    })
}

/// A screen and a context on it.
pub type ScreenAndContext = (Arc<dyn Screen>, Box<dyn Context>);

/// Opens a screen and a context on it.
pub fn screen_and_context(ctx: &TestContext) -> Result<ScreenAndContext, Outcome> {
    let s = screen(ctx)?;
    let c = s
        .clone()
        .context_create()
        .map_err(|e| Outcome::fail(format!("context_create: {e}")))?;
    Ok((s, c))
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
    let screen = pipe_vk::create_screen(&opts).map_err(|e| match e {
        PipeError::Unsupported(m) => Outcome::skip(format!("no usable device: {m}")),
        e => Outcome::fail(format!("create_screen: {e}")),
    })?;
    let ctx = screen
        .clone()
        .context_create()
        .map_err(|e| Outcome::fail(format!("context_create: {e}")))?;
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

    /// A texture from a template.
    pub fn texture(&self, t: &ResourceTemplate) -> Result<Resource, Outcome> {
        step("resource_create(texture)", self.screen.resource_create(t))
    }

    /// Reads `len` bytes at `offset` of a buffer through a READ map.
    pub fn read_buffer(
        &mut self,
        res: &Resource,
        offset: u32,
        len: u32,
    ) -> Result<Vec<u8>, Outcome> {
        let t = step(
            "transfer_map(READ)",
            self.ctx
                .transfer_map(res, 0, MapFlags::READ, &PipeBox::range(offset, len)),
        )?;
        let data = t.to_vec();
        step("transfer_unmap", self.ctx.transfer_unmap(t))?;
        Ok(data)
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

/// Registers a test body twice: `<name>.direct` and `<name>.staging`.
#[macro_export]
macro_rules! both_paths {
    ($name:literal, $body:path) => {
        const _: () = {
            fn direct(ctx: &mut $crate::TestContext) -> $crate::Outcome {
                $crate::Outcome::from_result($body(ctx, false))
            }
            fn staging(ctx: &mut $crate::TestContext) -> $crate::Outcome {
                $crate::Outcome::from_result($body(ctx, true))
            }
            $crate::test_case!(name = concat!($name, ".direct"), direct);
            $crate::test_case!(name = concat!($name, ".staging"), staging);
        };
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
    let ir = spirv_gen::text::parse(src).map_err(|e| Outcome::fail(format!("test shader: {e}")))?;
    Ok(ShaderState {
        stage,
        code: ShaderCode::Ir(Arc::new(ir)),
        stream_output: StreamOutputInfo::default(),
    })
}

/// Little-endian bytes of floats.
pub fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|f| f.to_le_bytes()).collect()
}

/// UNORM8 encoding of a colour: `round(clamp(v) * 255)`.
pub fn unorm(c: [f32; 4]) -> [u8; 4] {
    c.map(|v| (v.clamp(0.0, 1.0) * 255.0).round() as u8)
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

/// Sets fragment constant buffer 0 to one colour (user data).
pub fn set_color(e: &mut Env, c: [f32; 4]) -> Result<(), Outcome> {
    let bytes = f32s(&c);
    step(
        "set_constant_buffer",
        e.ctx.set_constant_buffer(
            ShaderStage::Fragment,
            0,
            Some(ConstantBuffer {
                buffer: None,
                buffer_offset: 0,
                buffer_size: 16,
                user_buffer: Some(&bytes),
            }),
        ),
    )
}
