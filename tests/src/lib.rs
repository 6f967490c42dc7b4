//! pipe-cts: the conformance-style suite of pipe-vk and its runner.
//!
//! The crate is a library with a thin CLI (`src/main.rs`). It has three parts:
//!
//! - the **registry** ([`registry`]): tests are plain functions registered
//!   with [`inventory`] as [`TestCase`] items, each with a dotted name, run
//!   with a [`TestContext`] and returning an [`Outcome`];
//! - the **test cases** ([`cases`]) and their helpers ([`harness`], plus the
//!   backend-free image comparison of [`image`]);
//! - the **runner** ([`runner`]): deqp-runner's conventions (caselists,
//!   baselines, skips and flakes files, `results.csv`, `failures.csv`,
//!   `junit.xml`, `summary.txt`), with every test run in a child process so
//!   that crashes and hangs are contained.
//!
//! A case file registers a test like this:
//!
//! ```
//! use pipe_cts::{Outcome, TestContext};
//!
//! fn screen_create(ctx: &mut TestContext) -> Outcome {
//!     pipe_cts::require!(ctx.device() != Some("none"), "no device");
//!     Outcome::Pass
//! }
//! inventory::submit! { pipe_cts::TestCase { name: "doc.screen.create", run: screen_create } }
//! // or, equivalently (another name: names must be unique):
//! pipe_cts::test_case!(name = "doc.screen.create2", screen_create);
//! # let names: Vec<_> = inventory::iter::<pipe_cts::TestCase>.into_iter().map(|t| t.name).collect();
//! # assert!(names.contains(&"doc.screen.create") && names.contains(&"doc.screen.create2"));
//! ```

pub mod cases;
pub mod harness;
pub mod image;
pub mod registry;
pub mod runner;

pub use image::Tolerance;
pub use registry::{Outcome, TestCase, TestContext};

/// Re-exported so that [`test_case!`] works from any crate.
pub use inventory;

inventory::collect!(TestCase);
