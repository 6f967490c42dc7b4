//! The test registry: what a test is, what it gets, and how it is found.
//!
//! A test is a `fn(&mut TestContext) -> Outcome` registered with
//! [`inventory`] as a [`TestCase`] with a dotted name
//! (`pipe.<area>.<feature>.<variant>`). Registration is link-time, so case
//! files need no central list; [`all_tests`] gathers them, sorts them by name
//! and rejects names that would break the runner's files (empty names,
//! whitespace, commas, control characters) and duplicates, with one error that
//! lists every offender.
//!
//! The runner's own self-test cases are named `selftest.*` and are only
//! visible when the environment has `PIPE_CTS_SELFTEST=1`.
//!
//! [`TestContext`] is built by the runner in the child process that runs the
//! test. It tells the body which device was asked for, whether validation is
//! on and where artifacts (PNGs) go, and offers the cap-check helper
//! [`TestContext::require`] and the image comparisons of [`crate::image`]
//! bound to the test's name and artifacts directory.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::image::{self, Tolerance};

/// Environment switch that makes the runner's self-test cases visible.
pub const SELFTEST_ENV: &str = "PIPE_CTS_SELFTEST";

/// Prefix of the runner's self-test cases.
pub const SELFTEST_PREFIX: &str = "selftest.";

/// What a test body returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The test passed.
    Pass,
    /// The test failed; the message says why.
    Fail(String),
    /// The test could not run here (a missing cap, say); the message says why.
    Skip(String),
}

impl Outcome {
    /// `Outcome::Fail` from anything printable.
    pub fn fail(msg: impl fmt::Display) -> Self {
        Outcome::Fail(msg.to_string())
    }

    /// `Outcome::Skip` from anything printable.
    pub fn skip(reason: impl fmt::Display) -> Self {
        Outcome::Skip(reason.to_string())
    }

    /// Turns a `Result` into an outcome: `Ok` is a pass, `Err` carries the
    /// outcome (usually a fail or skip). Lets a body use `?` in a closure:
    ///
    /// ```
    /// # use pipe_cts::{Outcome, TestContext};
    /// fn body(ctx: &mut TestContext) -> Outcome {
    ///     Outcome::from_result((|| {
    ///         ctx.require(true, "needs nothing")?;
    ///         Ok(())
    ///     })())
    /// }
    /// # let mut ctx = TestContext::new("doc.test", None, false, std::env::temp_dir());
    /// # assert_eq!(body(&mut ctx), Outcome::Pass);
    /// ```
    pub fn from_result(r: Result<(), Outcome>) -> Self {
        match r {
            Ok(()) => Outcome::Pass,
            Err(o) => o,
        }
    }

    /// True for `Pass`.
    pub fn is_pass(&self) -> bool {
        matches!(self, Outcome::Pass)
    }
}

impl From<Result<(), Outcome>> for Outcome {
    fn from(r: Result<(), Outcome>) -> Self {
        Outcome::from_result(r)
    }
}

/// One registered test.
#[derive(Debug)]
pub struct TestCase {
    /// Dotted name, e.g. `pipe.screen.create`. No whitespace or commas.
    pub name: &'static str,
    /// The body.
    pub run: fn(&mut TestContext) -> Outcome,
}

/// Registers a test case: `test_case!(name = "pipe.x.y", body_fn);`.
///
/// Equivalent to `inventory::submit! { pipe_cts::TestCase { .. } }`.
#[macro_export]
macro_rules! test_case {
    (name = $name:expr, $run:path $(,)?) => {
        $crate::inventory::submit! {
            $crate::TestCase { name: $name, run: $run }
        }
    };
}

/// Returns `Outcome::Skip(reason)` from the enclosing test body unless the
/// condition holds: `require!(caps.geometry_shader, "no geometry shaders");`.
#[macro_export]
macro_rules! require {
    ($cond:expr, $($reason:tt)+) => {
        if !$cond {
            return $crate::Outcome::Skip(format!($($reason)+));
        }
    };
}

/// Returns `Outcome::Fail(msg)` from the enclosing test body unless the
/// condition holds: `check!(x == 4, "x is {x}, not 4");`.
#[macro_export]
macro_rules! check {
    ($cond:expr, $($msg:tt)+) => {
        if !$cond {
            return $crate::Outcome::Fail(format!($($msg)+));
        }
    };
}

/// What the runner hands a test body.
#[derive(Debug, Clone)]
pub struct TestContext {
    name: String,
    device: Option<String>,
    validation: bool,
    artifacts_dir: PathBuf,
}

impl TestContext {
    /// Builds a context. The runner does this in the child process; tests of
    /// helpers may build their own.
    pub fn new(
        name: impl Into<String>,
        device: Option<String>,
        validation: bool,
        artifacts_dir: impl Into<PathBuf>,
    ) -> Self {
        TestContext {
            name: name.into(),
            device,
            validation,
            artifacts_dir: artifacts_dir.into(),
        }
    }

    /// The test's dotted name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The device asked for (`--device` / `PIPE_VK_DEVICE`), if any. pipe-vk
    /// reads `PIPE_VK_DEVICE` itself when it creates a screen; this is for
    /// messages and for tests that want to know.
    pub fn device(&self) -> Option<&str> {
        self.device.as_deref()
    }

    /// Whether the run has validation on (`--validation`). The runner fails
    /// the test if the layers report anything; a body need not check.
    pub fn validation(&self) -> bool {
        self.validation
    }

    /// Where the test writes artifacts (the run's output directory).
    pub fn artifacts_dir(&self) -> &Path {
        &self.artifacts_dir
    }

    /// `Ok(())` when `cond` holds, else `Err(Outcome::Skip(reason))`: the
    /// cap check of a test. Use with `?` inside [`Outcome::from_result`], or
    /// use the [`require!`](crate::require) macro.
    pub fn require(&self, cond: bool, reason: impl fmt::Display) -> Result<(), Outcome> {
        if cond {
            Ok(())
        } else {
            Err(Outcome::Skip(reason.to_string()))
        }
    }

    /// Compares float RGBA pixels (row-major, `width * height` of them) with
    /// a per-channel tolerance. On a mismatch, writes
    /// `<name>.got.png`, `<name>.expected.png` and `<name>.diff.png` into the
    /// artifacts directory and fails naming the first mismatching pixel.
    pub fn compare_rgba(
        &self,
        got: &[[f32; 4]],
        expected: &[[f32; 4]],
        width: u32,
        height: u32,
        tolerance: Tolerance,
    ) -> Outcome {
        image::check_rgba_f32(
            &self.artifacts_dir,
            &self.name,
            got,
            expected,
            width,
            height,
            tolerance,
        )
    }

    /// Like [`compare_rgba`](Self::compare_rgba) for RGBA8 bytes
    /// (`width * height * 4` of them), with a per-channel tolerance in units
    /// of the 8-bit value.
    pub fn compare_rgba8(
        &self,
        got: &[u8],
        expected: &[u8],
        width: u32,
        height: u32,
        tolerance: [u8; 4],
    ) -> Outcome {
        image::check_rgba8(
            &self.artifacts_dir,
            &self.name,
            got,
            expected,
            width,
            height,
            tolerance,
        )
    }

    /// Like [`compare_rgba8`](Self::compare_rgba8) with one
    /// [`image::Rgba8Range`] per pixel: the values each channel may hold
    /// (e.g. either of the two UNORM values nearest a float colour).
    pub fn compare_rgba8_ranges(
        &self,
        got: &[u8],
        expected: &[image::Rgba8Range],
        width: u32,
        height: u32,
    ) -> Outcome {
        image::check_rgba8_ranges(
            &self.artifacts_dir,
            &self.name,
            got,
            expected,
            width,
            height,
        )
    }
}

/// True when the self-test cases are switched on in this process.
pub fn selftest_enabled() -> bool {
    std::env::var_os(SELFTEST_ENV).is_some_and(|v| v == "1")
}

/// Why a name cannot be a test name, if it cannot.
pub fn name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        Some("empty name")
    } else if name.chars().any(char::is_whitespace) {
        Some("contains whitespace")
    } else if name.contains(',') {
        Some("contains a comma")
    } else if name.chars().any(char::is_control) {
        Some("contains a control character")
    } else if name.starts_with('#') {
        Some("starts with '#'")
    } else {
        None
    }
}

/// Every registered test visible in this process, sorted by name.
///
/// Fails (listing every problem) if a name is invalid or registered twice.
pub fn all_tests() -> Result<Vec<&'static TestCase>, String> {
    filter_cases(inventory::iter::<TestCase>.into_iter(), selftest_enabled())
}

/// The checks of [`all_tests`] over any list of cases (for unit tests).
pub fn filter_cases<'a>(
    cases: impl Iterator<Item = &'a TestCase>,
    selftest: bool,
) -> Result<Vec<&'a TestCase>, String> {
    let mut by_name: BTreeMap<&str, Vec<&'a TestCase>> = BTreeMap::new();
    for case in cases {
        if !selftest && case.name.starts_with(SELFTEST_PREFIX) {
            continue;
        }
        by_name.entry(case.name).or_default().push(case);
    }
    let mut problems = Vec::new();
    let mut out = Vec::with_capacity(by_name.len());
    for (name, cases) in by_name {
        if let Some(p) = name_problem(name) {
            problems.push(format!("invalid test name {name:?}: {p}"));
        }
        if cases.len() > 1 {
            problems.push(format!(
                "test name {name:?} is registered {} times",
                cases.len()
            ));
        }
        out.push(cases[0]);
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems.join("\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pass(_: &mut TestContext) -> Outcome {
        Outcome::Pass
    }

    #[test]
    fn filter_sorts_and_hides_selftests() {
        let cases = [
            TestCase {
                name: "pipe.b",
                run: pass,
            },
            TestCase {
                name: "selftest.pass",
                run: pass,
            },
            TestCase {
                name: "pipe.a",
                run: pass,
            },
        ];
        let names: Vec<_> = filter_cases(cases.iter(), false)
            .unwrap()
            .iter()
            .map(|c| c.name)
            .collect();
        assert_eq!(names, ["pipe.a", "pipe.b"]);
        let names: Vec<_> = filter_cases(cases.iter(), true)
            .unwrap()
            .iter()
            .map(|c| c.name)
            .collect();
        assert_eq!(names, ["pipe.a", "pipe.b", "selftest.pass"]);
    }

    #[test]
    fn filter_rejects_bad_and_duplicate_names() {
        let cases = [
            TestCase {
                name: "pipe.a",
                run: pass,
            },
            TestCase {
                name: "pipe.a",
                run: pass,
            },
            TestCase {
                name: "pipe.b c",
                run: pass,
            },
            TestCase {
                name: "pipe,d",
                run: pass,
            },
        ];
        let err = filter_cases(cases.iter(), false).unwrap_err();
        assert!(err.contains("\"pipe.a\" is registered 2 times"), "{err}");
        assert!(err.contains("whitespace"), "{err}");
        assert!(err.contains("comma"), "{err}");
    }

    #[test]
    fn require_and_from_result() {
        let ctx = TestContext::new("t", Some("llvmpipe".into()), true, "/tmp");
        assert_eq!(ctx.require(true, "x"), Ok(()));
        assert_eq!(
            Outcome::from(ctx.require(false, "no caps")),
            Outcome::Skip("no caps".into())
        );
        assert_eq!(ctx.device(), Some("llvmpipe"));
        assert!(ctx.validation());
    }

    fn macro_body(ctx: &mut TestContext) -> Outcome {
        require!(ctx.validation(), "needs validation ({})", ctx.name());
        check!(ctx.device().is_some(), "no device");
        Outcome::Pass
    }

    #[test]
    fn macros() {
        let mut ctx = TestContext::new("m", None, false, "/tmp");
        assert_eq!(
            macro_body(&mut ctx),
            Outcome::Skip("needs validation (m)".into())
        );
        let mut ctx = TestContext::new("m", None, true, "/tmp");
        assert_eq!(macro_body(&mut ctx), Outcome::Fail("no device".into()));
    }
}
