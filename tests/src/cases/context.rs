//! `pipe.context.*`: context creation, CSO handles, argument validation.

use std::sync::Arc;

use pipe_core::shader::{ShaderCode, ShaderState, StreamOutputInfo};
use pipe_core::state::{BlendFactor, BlendState, RasterizerState, SamplerState, ShaderStage};
use pipe_core::PipeError;

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
    // A minimal valid SPIR-V header is enough: nothing is compiled yet.
    let words: Arc<[u32]> = Arc::from(vec![0x0723_0203, 0x0001_0300, 0, 1, 0]);
    let fs = ShaderState {
        stage: ShaderStage::Fragment,
        code: ShaderCode::SpirV {
            words,
            entry_point: "main".into(),
        },
        stream_output: StreamOutputInfo::default(),
    };
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

fn unsupported_is_an_error(ctx: &mut TestContext) -> Outcome {
    // Until resources land (issue 6) resource creation must say so with
    // Unsupported, not pretend.
    let s = or_return!(harness::screen(ctx));
    let t = pipe_core::ResourceTemplate::buffer(256, pipe_core::resource::BindFlags::VERTEX_BUFFER);
    match s.resource_create(&t) {
        Err(PipeError::Unsupported(_)) | Ok(_) => Outcome::Pass,
        Err(e) => Outcome::fail(format!("unexpected error {e}")),
    }
}
test_case!(
    name = "pipe.screen.resource_create.buffer",
    unsupported_is_an_error
);
