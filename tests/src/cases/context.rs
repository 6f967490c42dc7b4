//! `pipe.context.*`: context creation, CSO handles, argument validation.

use std::sync::Arc;

use pipe_core::shader::{ShaderCode, ShaderState, StreamOutputInfo};
use pipe_core::state::{BlendFactor, BlendState, RasterizerState, SamplerState, ShaderStage};
use pipe_core::{PipeError, PipeResult};

use crate::harness;
use crate::{check, or_return, test_case, Outcome, TestContext};

fn cso_hash_consing(ctx: &mut TestContext) -> Outcome {
    let (_s, mut c) = or_return!(harness::screen_and_context(ctx));
    let mut a = BlendState::default();
    a.rt[0].blend_enable = true;
    a.rt[0].rgb_src_factor = BlendFactor::SrcAlpha;
    let b = a;
    let mut d = a;
    d.rt[0].rgb_src_factor = BlendFactor::One;
    let mut run = || -> Result<(), PipeError> {
        let ha = c.create_blend_state(&a)?;
        let hb = c.create_blend_state(&b)?;
        let hd = c.create_blend_state(&d)?;
        if ha != hb || ha == hd {
            return Err(PipeError::invalid(format!("handles {ha:?} {hb:?} {hd:?}")));
        }
        c.bind_blend_state(Some(ha))?;
        c.delete_blend_state(ha)?;
        // One reference left (hb): still bindable.
        c.bind_blend_state(Some(hb))?;
        c.delete_blend_state(hb)?;
        match c.bind_blend_state(Some(hb)) {
            Err(PipeError::InvalidArgument(_)) => {}
            other => {
                return Err(PipeError::invalid(format!(
                    "bind after delete gave {other:?}"
                )))
            }
        }
        let r1 = c.create_rasterizer_state(&RasterizerState {
            line_width: 1.0,
            ..Default::default()
        })?;
        let r2 = c.create_rasterizer_state(&RasterizerState {
            line_width: 1.0,
            ..Default::default()
        })?;
        let s1 = c.create_sampler_state(&SamplerState::default())?;
        if r1 != r2 {
            return Err(PipeError::invalid(
                "equal rasterizer states got different handles",
            ));
        }
        c.bind_sampler_states(ShaderStage::Fragment, 0, &[Some(s1), None])?;
        Ok(())
    };
    match run() {
        Ok(()) => Outcome::Pass,
        Err(e) => Outcome::fail(e),
    }
}
test_case!(name = "pipe.context.cso.hash_consing", cso_hash_consing);

fn shader_stage_mismatch(ctx: &mut TestContext) -> Outcome {
    let (_s, mut c) = or_return!(harness::screen_and_context(ctx));
    let fs = or_return!(harness::spirv_shader(
        ShaderStage::Fragment,
        FS_SPIRV,
        spirv_gen::emit::Target::Vulkan1_1
    ));
    let h = match c.create_fs_state(&fs) {
        Ok(h) => h,
        Err(e) => return Outcome::fail(format!("create_fs_state: {e}")),
    };
    check!(
        matches!(c.bind_vs_state(Some(h)), Err(PipeError::InvalidArgument(_))),
        "binding a fragment shader as vertex shader was accepted"
    );
    check!(
        matches!(c.create_vs_state(&fs), Err(PipeError::InvalidArgument(_))),
        "create_vs_state accepted a fragment template"
    );
    check!(c.bind_fs_state(Some(h)).is_ok(), "bind_fs_state failed");
    check!(c.delete_fs_state(h).is_ok(), "delete_fs_state failed");
    Outcome::Pass
}
test_case!(
    name = "pipe.context.validate.shader_stage",
    shader_stage_mismatch
);

const FS_SPIRV: &str = "shader fragment
out @frag : f32x4 location=0
fn main {
  %0 : f32x4 = const 0.0, 1.0, 0.0, 1.0
  store @frag, %0
}
";

/// A SPIR-V passthrough shader must have an entry point of its stage by
/// the name it gives (pipelines used `main` whatever the name was):
/// a missing name, an entry point of another stage, or words that are
/// not SPIR-V past the header are refused when the CSO is created, with
/// a message naming the entry points the module has.
fn spirv_entry_point(ctx: &mut TestContext) -> Outcome {
    let (_s, mut c) = or_return!(harness::screen_and_context(ctx));
    let fs = or_return!(harness::spirv_shader(
        ShaderStage::Fragment,
        FS_SPIRV,
        spirv_gen::emit::Target::Vulkan1_1
    ));
    let with = |stage, entry: &str, words: Arc<[u32]>| ShaderState {
        stage,
        code: ShaderCode::SpirV {
            words,
            entry_point: entry.into(),
        },
        stream_output: StreamOutputInfo::default(),
    };
    let ShaderCode::SpirV { words, .. } = &fs.code else {
        return Outcome::fail("not SPIR-V");
    };
    let refused = |r: PipeResult<_>, want: &str| match r {
        Err(PipeError::InvalidArgument(m)) if m.contains(want) => None,
        Err(e) => Some(format!("wrong error: {e}")),
        Ok(_) => Some("accepted".to_string()),
    };
    for (what, r, want) in [
        (
            "a missing entry point",
            c.create_fs_state(&with(ShaderStage::Fragment, "frag", words.clone())),
            "no Fragment entry point \"frag\" (it has: Fragment \"main\")",
        ),
        (
            "a fragment entry point as a vertex shader",
            c.create_vs_state(&with(ShaderStage::Vertex, "main", words.clone())),
            "no Vertex entry point \"main\"",
        ),
        (
            "a header and nothing that parses",
            c.create_fs_state(&with(
                ShaderStage::Fragment,
                "main",
                Arc::from(vec![0x0723_0203, 0x0001_0300, 0, 1, 0, 0xdead_beef]),
            )),
            "does not parse",
        ),
    ] {
        if let Some(e) = refused(r, want) {
            return Outcome::fail(format!("{what}: {e}"));
        }
    }
    check!(
        c.create_fs_state(&with(ShaderStage::Fragment, "main", words.clone()))
            .is_ok(),
        "the module itself was refused"
    );
    Outcome::Pass
}
test_case!(
    name = "pipe.context.validate.spirv_entry_point",
    spirv_entry_point
);

fn several_contexts(ctx: &mut TestContext) -> Outcome {
    let s = or_return!(harness::screen(ctx));
    let mut contexts = Vec::new();
    for i in 0..4 {
        match s.clone().context_create() {
            Ok(c) => contexts.push(c),
            Err(e) => return Outcome::fail(format!("context {i}: {e}")),
        }
    }
    // CSO handles are per context: the same template gives handles that
    // each context accepts on its own.
    for c in contexts.iter_mut() {
        match c.create_sampler_state(&SamplerState::default()) {
            Ok(h) => check!(
                c.bind_sampler_states(ShaderStage::Vertex, 0, &[Some(h)])
                    .is_ok(),
                "bind failed"
            ),
            Err(e) => return Outcome::fail(e),
        }
    }
    Outcome::Pass
}
test_case!(name = "pipe.context.create.several", several_contexts);

fn buffer_create(ctx: &mut TestContext) -> Outcome {
    let s = or_return!(harness::screen(ctx));
    let t = pipe_core::ResourceTemplate::buffer(256, pipe_core::resource::BindFlags::VERTEX_BUFFER);
    match s.resource_create(&t) {
        Ok(r) if r.desc().width0 == 256 => Outcome::Pass,
        Ok(r) => Outcome::fail(format!("created {:?}", r.desc())),
        Err(e) => Outcome::fail(format!("resource_create: {e}")),
    }
}
test_case!(name = "pipe.screen.resource_create.buffer", buffer_create);

/// Calls pipe-vk does not implement (bindless handles, hardware
/// atomic counters, the legacy compute resources, and sample locations
/// where the device has none) return `Unsupported` naming the call, and
/// the context keeps working: a clear after them lands.
fn unsupported_calls(ctx: &mut TestContext) -> Outcome {
    let mut e = or_return!(harness::env(ctx, false));
    let tex = or_return!(e.texture(&pipe_core::ResourceTemplate::texture_2d(
        pipe_core::Format::R8G8B8A8Unorm,
        4,
        4,
        pipe_core::resource::BindFlags::RENDER_TARGET
            | pipe_core::resource::BindFlags::SAMPLER_VIEW,
    )));
    let locations = e.screen.caps().programmable_sample_locations;
    let c = &mut e.ctx;
    let mut results: Vec<(&str, Result<(), PipeError>)> = vec![
        ("set_hw_atomic_buffers", c.set_hw_atomic_buffers(0, &[None])),
        ("set_compute_resources", c.set_compute_resources(0, &[None])),
        ("delete_texture_handle", c.delete_texture_handle(1)),
        ("delete_image_handle", c.delete_image_handle(1)),
    ];
    // Where the device has them: `pipe.render.sample_locations.*`.
    if !locations {
        results.push((
            "set_sample_locations",
            c.set_sample_locations(Some(&[0x88; 4])),
        ));
    }
    for (call, r) in results {
        match r {
            Err(PipeError::Unsupported(m)) if m.contains(call) => {}
            r => {
                return Outcome::fail(format!("{call}: expected Unsupported naming it, got {r:?}"))
            }
        }
    }
    let caps = e.screen.caps();
    if caps.bindless_texture {
        return Outcome::fail("caps claim bindless textures");
    }
    let surf = or_return!(e.surface(&tex, 0, 0, 0));
    let color = pipe_core::state::ColorUnion::from_f32([0.0, 1.0, 0.0, 1.0]);
    if let Err(err) = e.ctx.clear_render_target(&surf, &color, 0, 0, 4, 4, false) {
        return Outcome::fail(format!("clear_render_target after the calls: {err}"));
    }
    let got = or_return!(e.read_texture(&tex, 0, &pipe_core::resource::PipeBox::rect(0, 0, 4, 4)));
    check!(
        got.chunks_exact(4).all(|p| p == [0, 255, 0, 255]),
        "after the calls, the clear gave {:?}",
        &got[..4]
    );
    Outcome::Pass
}
test_case!(name = "pipe.context.unsupported_calls", unsupported_calls);
