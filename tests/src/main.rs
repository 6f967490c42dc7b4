//! `pipe-cts`: the command line of the suite.
//!
//! - `pipe-cts list [--include REGEX]...` prints test names (a caselist);
//! - `pipe-cts run --output DIR [...]` runs the suite the way deqp-runner
//!   does (see `pipe_cts::runner`), exit code 0 when nothing regressed, 1
//!   otherwise;
//! - `pipe-cts junit --results FILE --output FILE` converts a `results.csv`
//!   into JUnit XML.
//!
//! Errors in the inputs (unreadable or malformed files, bad options) print a
//! message and exit with code 2. `__child` is the hidden subcommand the
//! runner starts its children with.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use pipe_cts::runner::{self, child, RunOptions};

#[derive(Parser)]
#[command(
    name = "pipe-cts",
    version,
    about = "pipe-vk conformance suite (deqp-runner conventions)",
    args_override_self = true
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Print the names of the tests, one per line.
    List {
        /// Only tests matching this regex (repeatable; any match selects).
        #[arg(long = "include", value_name = "REGEX")]
        include: Vec<String>,
    },
    /// Run tests and write results.csv, failures.csv, junit.xml, summary.txt.
    #[command(args_override_self = true)]
    Run(RunArgs),
    /// Convert a results.csv into JUnit XML.
    Junit {
        /// The results.csv to read.
        #[arg(long, value_name = "FILE")]
        results: PathBuf,
        /// Where to write the XML.
        #[arg(long, value_name = "FILE")]
        output: PathBuf,
        /// Name of the test suite in the XML.
        #[arg(long, value_name = "NAME", default_value = runner::SUITE_NAME)]
        testsuite: String,
    },
    /// Internal: run tests named on stdin (started by `run`).
    #[command(name = "__child", hide = true)]
    Child {
        #[arg(long)]
        artifacts: PathBuf,
        #[arg(long)]
        validation: bool,
    },
}

#[derive(clap::Args)]
struct RunArgs {
    /// Directory for the results (created if needed).
    #[arg(long, value_name = "DIR")]
    output: PathBuf,
    /// Only tests matching this regex (repeatable; any match selects).
    #[arg(long = "include", value_name = "REGEX")]
    include: Vec<String>,
    /// Only tests listed in this file, one name per line (repeatable).
    #[arg(long = "caselist", value_name = "FILE")]
    caselist: Vec<PathBuf>,
    /// Expected results: `name,Status` lines (e.g. a previous failures.csv).
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// Regexes of tests not to run, one per line, `#` comments (repeatable).
    #[arg(long = "skips", value_name = "FILE")]
    skips: Vec<PathBuf>,
    /// Regexes of known flaky tests, one per line (repeatable).
    #[arg(long = "flakes", value_name = "FILE")]
    flakes: Vec<PathBuf>,
    /// Parallel child processes [default: number of cores].
    #[arg(long, short = 'j', value_name = "N")]
    jobs: Option<usize>,
    /// Per-test timeout in seconds. 180 by default: a state-fuzz seed takes
    /// 50 to 60 s in a debug build on a slow 2-core machine with warm shader
    /// caches (measured 2026-11-28), more with cold ones, and a timeout is
    /// for hangs.
    #[arg(long, value_name = "SECONDS", default_value_t = 180.0)]
    timeout: f64,
    /// Device to use (substring or index); also read from PIPE_VK_DEVICE.
    #[arg(long, value_name = "NAME")]
    device: Option<String>,
    /// Khronos validation with synchronization validation; any message fails
    /// the test.
    #[arg(long)]
    validation: bool,
    /// Run only every Nth test.
    #[arg(long, value_name = "N", default_value_t = 1)]
    fraction: usize,
    /// With --fraction, the (1-based) test to start from.
    #[arg(long, value_name = "I", default_value_t = 1)]
    fraction_start: usize,
    /// Stop after this many regressions.
    #[arg(long, value_name = "N")]
    max_fails: Option<usize>,
    /// Tests per child process [default: chosen from the test count and jobs].
    #[arg(long, value_name = "N")]
    tests_per_group: Option<usize>,
    /// Seconds between plain progress lines when stderr is not a terminal.
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0, hide = true)]
    progress_interval: f64,
}

fn seconds(what: &str, v: f64) -> Result<Duration, String> {
    Duration::try_from_secs_f64(v)
        .map_err(|_| format!("{what}: {v} is not a valid number of seconds"))
}

fn run(args: RunArgs) -> Result<i32, String> {
    let mut opts = RunOptions::new(args.output);
    opts.includes = args.include;
    opts.caselists = args.caselist;
    opts.baseline = args.baseline;
    opts.skips = args.skips;
    opts.flakes = args.flakes;
    if let Some(j) = args.jobs {
        opts.jobs = j;
    }
    opts.timeout = seconds("--timeout", args.timeout)?;
    opts.device = args
        .device
        .or_else(|| std::env::var("PIPE_VK_DEVICE").ok())
        .filter(|d| !d.is_empty());
    opts.validation = args.validation;
    opts.fraction = args.fraction;
    opts.fraction_start = args.fraction_start;
    opts.max_fails = args.max_fails;
    opts.tests_per_group = args.tests_per_group;
    opts.progress_interval = seconds("--progress-interval", args.progress_interval)?;
    Ok(runner::run(&opts)?.exit_code())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Cmd::List { include } => runner::list(&include).map(|names| {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            for n in names {
                if writeln!(out, "{n}").is_err() {
                    break;
                }
            }
            0
        }),
        Cmd::Run(args) => run(args),
        Cmd::Junit {
            results,
            output,
            testsuite,
        } => runner::junit_from_results(&results, &output, &testsuite).map(|()| 0),
        Cmd::Child {
            artifacts,
            validation,
        } => Ok(child::child_main(&child::ChildArgs {
            artifacts,
            validation,
        })),
    };
    match result {
        Ok(code) => ExitCode::from(code.clamp(0, 255) as u8),
        Err(e) => {
            eprintln!("pipe-cts: error: {e}");
            ExitCode::from(2)
        }
    }
}
