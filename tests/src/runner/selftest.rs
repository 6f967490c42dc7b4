//! The runner's self-test cases: one per way a test can end.
//!
//! They are registered like any test but named `selftest.*`, which
//! [`crate::registry::all_tests`] hides unless `PIPE_CTS_SELFTEST=1`. The
//! integration tests in `tests/tests/` run the binary over them to prove
//! each classification:
//!
//! | case | does | plain result |
//! |---|---|---|
//! | `selftest.pass` | nothing | Pass |
//! | `selftest.fail` | returns `Fail` | Fail |
//! | `selftest.skip` | returns `Skip` | Skip |
//! | `selftest.crash` | `abort()` | Crash |
//! | `selftest.segfault` | raises `SIGSEGV` | Crash |
//! | `selftest.panic` | panics | Crash |
//! | `selftest.hang` | sleeps forever | Timeout |
//! | `selftest.flaky` | fails once, then passes | Flake |
//! | `selftest.validation` | records a fake layer message | Pass, or Fail with `--validation` |
//! | `selftest.image` | compares two different images | Fail, with the PNG triple |
//! | `selftest.output` | prints to stdout and stderr, then fails | Fail |
//! | `selftest.env` | reports what the child was given | Skip, with the facts as reason |
//!
//! `selftest.flaky` keeps its state in a marker file in the directory named
//! by `PIPE_CTS_SELFTEST_DIR` (else the artifacts directory): the first run
//! creates it and fails, the next run removes it and passes.

use std::path::PathBuf;
use std::time::Duration;

use crate::registry::{Outcome, TestCase, TestContext};

fn pass(_: &mut TestContext) -> Outcome {
    Outcome::Pass
}

fn fail(_: &mut TestContext) -> Outcome {
    Outcome::Fail("deliberate failure".into())
}

fn skip(ctx: &mut TestContext) -> Outcome {
    match ctx.require(false, "deliberate skip: a required cap is missing") {
        Ok(()) => Outcome::Pass,
        Err(o) => o,
    }
}

fn crash(_: &mut TestContext) -> Outcome {
    std::process::abort()
}

#[cfg(unix)]
fn segfault(_: &mut TestContext) -> Outcome {
    const SIGSEGV: i32 = 11;
    const SIG_DFL: usize = 0;
    extern "C" {
        fn signal(sig: i32, handler: usize) -> usize;
        fn raise(sig: i32) -> i32;
    }
    // SAFETY: `signal` and `raise` are the C library's, with the prototypes
    // of <signal.h> on Linux (a handler is pointer-sized; SIG_DFL is 0).
    // Restoring the default action first matters: Rust's runtime installs a
    // SIGSEGV handler (for stack overflows) that would otherwise return from
    // a raised signal. The process then dies, which is the point.
    unsafe {
        signal(SIGSEGV, SIG_DFL);
        raise(SIGSEGV);
    }
    Outcome::Fail("SIGSEGV did not kill the process".into())
}

#[cfg(not(unix))]
fn segfault(_: &mut TestContext) -> Outcome {
    std::process::abort()
}

fn panics(_: &mut TestContext) -> Outcome {
    panic!("deliberate panic")
}

fn hang(_: &mut TestContext) -> Outcome {
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
}

fn flaky(ctx: &mut TestContext) -> Outcome {
    let dir = std::env::var_os("PIPE_CTS_SELFTEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| ctx.artifacts_dir().to_path_buf());
    let marker = dir.join("selftest.flaky.marker");
    if marker.exists() {
        let _ = std::fs::remove_file(&marker);
        Outcome::Pass
    } else {
        match std::fs::write(&marker, b"failed once\n") {
            Ok(()) => Outcome::Fail("deliberate first-run failure".into()),
            Err(e) => Outcome::Fail(format!("cannot write {}: {e}", marker.display())),
        }
    }
}

fn validation(_: &mut TestContext) -> Outcome {
    pipe_vk::debug::record_message(
        "Validation Error: [ SELFTEST-fake-VUID ] a fake message from selftest.validation".into(),
    );
    Outcome::Pass
}

fn image(ctx: &mut TestContext) -> Outcome {
    let (w, h) = (8u32, 4u32);
    let expected: Vec<[f32; 4]> = (0..w * h)
        .map(|i| [(i % w) as f32 / (w - 1) as f32, 0.0, 1.0, 1.0])
        .collect();
    let mut got = expected.clone();
    got[(2 * w + 5) as usize] = [1.0, 1.0, 0.0, 1.0];
    ctx.compare_rgba(&got, &expected, w, h, crate::Tolerance::unorm8())
}

fn output(_: &mut TestContext) -> Outcome {
    print!("text on stdout without a newline");
    println!("\nsecond stdout line");
    eprintln!("text on stderr");
    Outcome::Fail("deliberate failure after printing".into())
}

fn env(ctx: &mut TestContext) -> Outcome {
    let var = |k: &str| std::env::var(k).unwrap_or_else(|_| "<unset>".into());
    Outcome::Skip(format!(
        "device={} validation={} PIPE_VK_DEVICE={} PIPE_VK_VALIDATION={} LP_NUM_THREADS={}",
        ctx.device().unwrap_or("<none>"),
        ctx.validation(),
        var("PIPE_VK_DEVICE"),
        var("PIPE_VK_VALIDATION"),
        var("LP_NUM_THREADS"),
    ))
}

macro_rules! selftests {
    ($($name:literal => $f:ident),* $(,)?) => {
        $(inventory::submit! { TestCase { name: $name, run: $f } })*
    };
}

selftests! {
    "selftest.pass" => pass,
    "selftest.fail" => fail,
    "selftest.skip" => skip,
    "selftest.crash" => crash,
    "selftest.segfault" => segfault,
    "selftest.panic" => panics,
    "selftest.hang" => hang,
    "selftest.flaky" => flaky,
    "selftest.validation" => validation,
    "selftest.image" => image,
    "selftest.output" => output,
    "selftest.env" => env,
}
