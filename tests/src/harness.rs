//! Helpers the test cases share: opening a screen and context on the device
//! and with the validation setting the runner chose.
//!
//! Bodies use `?` on these: a failure becomes `Outcome::Fail` with the pipe
//! error, except `Unsupported` from screen creation, which is a `Skip`
//! (no usable device is a property of the machine, not a driver bug).

use std::sync::Arc;

use pipe_core::{Context, PipeError, Screen};
use pipe_vk::ScreenOptions;

use crate::{Outcome, TestContext};

/// The screen options for this test run.
pub fn options(ctx: &TestContext) -> ScreenOptions {
    ScreenOptions {
        device: ctx.device().map(str::to_owned),
        validation: Some(ctx.validation()),
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
