//! The runner: deqp-runner's conventions for pipe-cts.
//!
//! A run goes like this:
//!
//! 1. **Plan** ([`plan`]): take every registered test (sorted by name), keep
//!    those matching any `--include` regex and listed in the `--caselist`
//!    files (if given), then every `--fraction`th one starting at
//!    `--fraction-start` (1-based). Of those, the ones matching a `--skips`
//!    regex are recorded as `Skip` without running. Baseline and caselist
//!    names that name no registered test are recorded as `Missing`.
//! 2. **Execute**: the tests to run are cut into groups
//!    (`--tests-per-group`, by default small enough that every job gets
//!    several groups); `--jobs` worker threads take groups from a queue and
//!    run each in a child process ([`worker`]), which contains crashes and
//!    hangs (`Crash`, `Timeout`) and is respawned for the rest of the group.
//! 3. **Judge**: each raw result is compared with the baseline
//!    ([`Status::with_baseline`]). An unexpected failure (`Fail`, `Crash`,
//!    `Timeout`) that matches a `--flakes` regex becomes `Flake`; any other is
//!    re-run once, alone, in a fresh child, and becomes `Flake` if the re-run
//!    does not regress.
//! 4. **Report**: progress on stderr ([`progress`]), one line per
//!    regression or flake as it happens, then the files of [`results`] and
//!    [`junit`] in `--output`, and the summary on stderr.
//!
//! `--max-fails N` stops handing out work once N regressions are known;
//! running children are stopped after their current test and the tests not
//! run are left out of the results (the summary counts them).
//!
//! The run succeeds (exit code 0) when no result is a regression
//! ([`Status::is_regression`]); otherwise the exit code is 1. Errors in the
//! run's inputs (bad baseline, skips, flakes or caselist lines, duplicate
//! test names) stop it before anything runs, with exit code 2.

pub mod child;
pub mod expectations;
pub mod junit;
pub mod progress;
pub mod results;
pub mod selftest;
pub mod status;
pub mod worker;

use std::collections::{BTreeSet, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Mutex};
use std::time::{Duration, Instant};

use regex::RegexSet;

use crate::image;

use expectations::Baseline;
use progress::Progress;
use results::{SummaryInfo, TestResult};
use status::Status;
use worker::{ChildConfig, RawResult};

/// Name of the JUnit test suite.
pub const SUITE_NAME: &str = "pipe-cts";

/// Options of `pipe-cts run`.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub output: PathBuf,
    pub includes: Vec<String>,
    pub caselists: Vec<PathBuf>,
    pub baseline: Option<PathBuf>,
    pub skips: Vec<PathBuf>,
    pub flakes: Vec<PathBuf>,
    pub jobs: usize,
    pub timeout: Duration,
    pub device: Option<String>,
    pub validation: bool,
    pub fraction: usize,
    pub fraction_start: usize,
    pub max_fails: Option<usize>,
    pub tests_per_group: Option<usize>,
    pub progress_interval: Duration,
}

impl RunOptions {
    /// Defaults for everything but the output directory.
    pub fn new(output: impl Into<PathBuf>) -> Self {
        RunOptions {
            output: output.into(),
            includes: Vec::new(),
            caselists: Vec::new(),
            baseline: None,
            skips: Vec::new(),
            flakes: Vec::new(),
            jobs: default_jobs(),
            timeout: Duration::from_secs(60),
            device: None,
            validation: false,
            fraction: 1,
            fraction_start: 1,
            max_fails: None,
            tests_per_group: None,
            progress_interval: Duration::from_secs(5),
        }
    }
}

/// Number of cores (at least 1).
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// What a run will do with each test.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plan {
    /// Tests to run, sorted by name.
    pub to_run: Vec<String>,
    /// Selected tests that a skips regex matched.
    pub skipped: Vec<String>,
    /// Baseline or caselist names that no registered test has.
    pub missing: Vec<String>,
}

/// Builds the plan (see the module doc for the order of the filters).
pub fn plan(
    all: &[&str],
    includes: Option<&RegexSet>,
    caselist: Option<&[String]>,
    fraction: usize,
    fraction_start: usize,
    skips: Option<&RegexSet>,
    baseline: &Baseline,
) -> Plan {
    let known: BTreeSet<&str> = all.iter().copied().collect();
    let listed: Option<BTreeSet<&str>> = caselist.map(|c| c.iter().map(String::as_str).collect());
    let selected = all
        .iter()
        .filter(|n| includes.is_none_or(|r| r.is_match(n)))
        .filter(|n| listed.as_ref().is_none_or(|l| l.contains(*n)))
        .skip(fraction_start.saturating_sub(1))
        .step_by(fraction.max(1));
    let mut p = Plan::default();
    for n in selected {
        if skips.is_some_and(|s| s.is_match(n)) {
            p.skipped.push(n.to_string());
        } else {
            p.to_run.push(n.to_string());
        }
    }
    let mut missing: BTreeSet<String> = baseline
        .keys()
        .filter(|n| !known.contains(n.as_str()))
        .cloned()
        .collect();
    if let Some(l) = &listed {
        missing.extend(
            l.iter()
                .filter(|n| !known.contains(*n))
                .map(|n| n.to_string()),
        );
    }
    p.missing = missing.into_iter().collect();
    p
}

/// Inputs of a run, read and checked before anything runs.
struct Inputs {
    baseline: Baseline,
    flakes: Option<RegexSet>,
    plan: Plan,
}

fn load_inputs(opts: &RunOptions) -> Result<Inputs, String> {
    if opts.fraction == 0 {
        return Err("--fraction must be at least 1".into());
    }
    if opts.fraction_start == 0 {
        return Err("--fraction-start is 1-based and must be at least 1".into());
    }
    if opts.jobs == 0 {
        return Err("--jobs must be at least 1".into());
    }
    if opts.timeout.is_zero() {
        return Err("--timeout must be positive".into());
    }
    let tests = crate::registry::all_tests()?;
    let names: Vec<&str> = tests.iter().map(|t| t.name).collect();
    let includes = expectations::regex_set(&check_patterns(&opts.includes)?, "--include")?;
    let caselist = if opts.caselists.is_empty() {
        None
    } else {
        let mut all = Vec::new();
        for c in &opts.caselists {
            all.extend(expectations::read_caselist(c)?);
        }
        Some(all)
    };
    let baseline = match &opts.baseline {
        Some(b) => expectations::read_baseline(b)?,
        None => Baseline::new(),
    };
    let skips = expectations::read_regex_files(&opts.skips)?;
    let flakes = expectations::read_regex_files(&opts.flakes)?;
    let plan = plan(
        &names,
        includes.as_ref(),
        caselist.as_deref(),
        opts.fraction,
        opts.fraction_start,
        skips.as_ref(),
        &baseline,
    );
    Ok(Inputs {
        baseline,
        flakes,
        plan,
    })
}

fn check_patterns(patterns: &[String]) -> Result<Vec<String>, String> {
    for p in patterns {
        regex::Regex::new(p).map_err(|e| format!("bad --include regex {p:?}: {e}"))?;
    }
    Ok(patterns.to_vec())
}

/// What `run` found.
#[derive(Debug, Clone)]
pub struct RunReport {
    pub results: Vec<TestResult>,
    pub regressions: usize,
    pub not_run: usize,
}

impl RunReport {
    /// The exit code: 0 when nothing regressed, else 1.
    pub fn exit_code(&self) -> i32 {
        if self.regressions == 0 {
            0
        } else {
            1
        }
    }
}

/// Lines of a test's message shown on stderr when it regresses; the rest is
/// in its log file.
const REPORT_LINES: usize = 6;

/// The stderr report of a regression or flake: status, name, and the start
/// of the message (validation messages included), so a CI log shows why.
fn report_line(r: &TestResult, output: &std::path::Path) -> String {
    let mut lines = r.message.lines();
    let mut s = format!("{}: {}", r.status, r.name);
    if let Some(first) = lines.next() {
        s.push_str(": ");
        s.push_str(first);
    }
    let rest: Vec<&str> = lines.collect();
    for l in rest.iter().take(REPORT_LINES - 1) {
        s.push_str("\n    ");
        s.push_str(l);
    }
    if rest.len() > REPORT_LINES - 1 {
        let log = output.join(format!("{}.log", r.name));
        s.push_str(&format!(
            "\n    ... {} more line(s) in {}",
            rest.len() - (REPORT_LINES - 1),
            log.display()
        ));
    }
    s
}

/// Judges one raw result against baseline and flakes, re-running an
/// unexpected failure once.
fn judge(
    raw: RawResult,
    baseline: &Baseline,
    flakes: Option<&RegexSet>,
    rerun: &mut dyn FnMut(&str) -> Option<RawResult>,
) -> TestResult {
    let expected = baseline.get(&raw.name).copied();
    let status = Status::with_baseline(raw.status, expected);
    let mut result = TestResult {
        name: raw.name,
        status,
        duration: raw.duration,
        message: raw.message,
        output: raw.output,
    };
    if !status.is_unexpected_failure() {
        return result;
    }
    if flakes.is_some_and(|f| f.is_match(&result.name)) {
        result.message = format!(
            "{status} (known flake: matches the flakes list)\n{}",
            result.message
        );
        result.status = Status::Flake;
        return result;
    }
    if let Some(again) = rerun(&result.name) {
        let second = Status::with_baseline(again.status, expected);
        if !second.is_regression() {
            result.message = format!(
                "{status} on the first run, {second} on the re-run\nfirst run: {}",
                result.message
            );
            result.status = Status::Flake;
        } else if !again.message.is_empty() && again.message != result.message {
            result.message = format!("{}\nre-run ({second}): {}", result.message, again.message);
        }
    }
    result
}

/// Runs the suite and writes the output files.
pub fn run(opts: &RunOptions) -> Result<RunReport, String> {
    let Inputs {
        baseline,
        flakes,
        plan,
    } = load_inputs(opts)?;
    std::fs::create_dir_all(&opts.output).map_err(|e| format!("{}: {e}", opts.output.display()))?;
    let artifacts = opts
        .output
        .canonicalize()
        .map_err(|e| format!("{}: {e}", opts.output.display()))?;
    let exe = std::env::current_exe().map_err(|e| format!("cannot find own binary: {e}"))?;
    let cfg = ChildConfig {
        exe,
        artifacts,
        validation: opts.validation,
        device: opts.device.clone(),
        timeout: opts.timeout,
    };
    let start = Instant::now();
    // Artifacts of an earlier run into the same directory must not be taken
    // for this run's.
    for n in plan.to_run.iter().chain(&plan.skipped) {
        let mut stale = image::artifact_paths(&opts.output, n).to_vec();
        stale.push(opts.output.join(format!("{n}.log")));
        for p in stale {
            let _ = std::fs::remove_file(p);
        }
    }

    let mut results: Vec<TestResult> = Vec::new();
    // A skips-list entry is the user's choice: a plain Skip even when the
    // baseline lists the test.
    for n in &plan.skipped {
        results.push(
            TestResult::new(n.clone(), Status::Skip, 0.0).with_message("skipped by the skips list"),
        );
    }
    for n in &plan.missing {
        let why = if baseline.contains_key(n) {
            "listed in the baseline but no such test exists"
        } else {
            "listed in the caselist but no such test exists"
        };
        results.push(TestResult::new(n.clone(), Status::Missing, 0.0).with_message(why));
    }

    let total = plan.to_run.len();
    let jobs = opts.jobs.min(total.max(1));
    let per_group = opts
        .tests_per_group
        .unwrap_or_else(|| total.div_ceil(jobs * 4).clamp(1, 32))
        .max(1);
    let queue: Mutex<VecDeque<Vec<String>>> = Mutex::new(
        plan.to_run
            .chunks(per_group)
            .map(<[String]>::to_vec)
            .collect(),
    );
    let stop = AtomicBool::new(false);
    let mut progress = Progress::new(total + results.len(), opts.progress_interval);
    let mut regressions = 0usize;
    for r in &results {
        progress.record(r.status);
        if r.status.is_regression() {
            regressions += 1;
            progress.println(&format!("{}: {}", r.status, r.name));
        }
    }
    let mut ran = 0usize;
    let (tx, rx) = mpsc::channel::<TestResult>();
    std::thread::scope(|s| {
        for _ in 0..jobs {
            let tx = tx.clone();
            let (queue, stop, cfg, baseline, flakes) =
                (&queue, &stop, &cfg, &baseline, flakes.as_ref());
            s.spawn(move || {
                let stopped = || stop.load(Ordering::Relaxed);
                let next = || queue.lock().ok().and_then(|mut q| q.pop_front());
                while let Some(group) = next() {
                    if stopped() {
                        break;
                    }
                    let mut failed = Vec::new();
                    worker::run_tests(cfg, &group, &stopped, &mut |raw| {
                        let st =
                            Status::with_baseline(raw.status, baseline.get(&raw.name).copied());
                        if st.is_unexpected_failure() {
                            failed.push(raw);
                        } else {
                            let _ = tx.send(judge(raw, baseline, flakes, &mut |_| None));
                        }
                    });
                    for raw in failed {
                        let mut rerun = |name: &str| {
                            let mut again = None;
                            worker::run_tests(cfg, &[name.to_string()], &|| false, &mut |r| {
                                again = Some(r);
                            });
                            again
                        };
                        let r = if stopped() {
                            judge(raw, baseline, flakes, &mut |_| None)
                        } else {
                            judge(raw, baseline, flakes, &mut rerun)
                        };
                        let _ = tx.send(r);
                    }
                }
            });
        }
        drop(tx);
        loop {
            match rx.recv_timeout(Duration::from_millis(200)) {
                Ok(r) => {
                    ran += 1;
                    progress.record(r.status);
                    if r.status.is_regression() || r.status == Status::Flake {
                        progress.println(&report_line(&r, &opts.output));
                    }
                    if r.status.is_regression() {
                        regressions += 1;
                        if opts.max_fails.is_some_and(|m| regressions >= m) {
                            stop.store(true, Ordering::Relaxed);
                        }
                    }
                    results.push(r);
                }
                Err(mpsc::RecvTimeoutError::Timeout) => progress.tick(),
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
    });
    progress.finish();

    let not_run = total.saturating_sub(ran);
    let info = SummaryInfo {
        wall_time: start.elapsed().as_secs_f64(),
        not_run,
        stopped_at: if stop.load(Ordering::Relaxed) {
            opts.max_fails
        } else {
            None
        },
    };
    results::write_run_files(&opts.output, &results, &info, SUITE_NAME)?;
    let mut summary = results::summary_text(&results, &info, 50);
    summary.push_str(&format!("\nResults in {}\n", opts.output.display()));
    eprint!("{summary}");
    Ok(RunReport {
        results,
        regressions,
        not_run,
    })
}

/// `pipe-cts list`: the names of the visible tests matching any include.
pub fn list(includes: &[String]) -> Result<Vec<&'static str>, String> {
    let includes = expectations::regex_set(&check_patterns(includes)?, "--include")?;
    Ok(crate::registry::all_tests()?
        .into_iter()
        .map(|t| t.name)
        .filter(|n| includes.as_ref().is_none_or(|r| r.is_match(n)))
        .collect())
}

/// `pipe-cts junit`: converts a `results.csv` into JUnit XML.
pub fn junit_from_results(
    results: &std::path::Path,
    output: &std::path::Path,
    suite: &str,
) -> Result<(), String> {
    let rs = results::read_results_csv(results)?;
    let total: f64 = rs.iter().map(|r| r.duration).sum();
    let file = std::fs::File::create(output).map_err(|e| format!("{}: {e}", output.display()))?;
    let mut w = std::io::BufWriter::new(file);
    junit::write_junit(&mut w, suite, &rs, total)
        .and_then(|()| std::io::Write::flush(&mut w))
        .map_err(|e| format!("{}: {e}", output.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use status::RawStatus;

    fn raw(name: &str, status: RawStatus, message: &str) -> RawResult {
        RawResult {
            name: name.to_string(),
            status,
            duration: 0.1,
            message: message.to_string(),
            output: String::new(),
        }
    }

    fn set(p: &[&str]) -> RegexSet {
        RegexSet::new(p).unwrap()
    }

    #[test]
    fn plan_filters_in_order() {
        let all = ["a.1", "a.2", "a.3", "a.4", "b.1", "b.2"];
        let mut baseline = Baseline::new();
        baseline.insert("gone.x".into(), Status::Fail);
        baseline.insert("a.1".into(), Status::Fail);
        let p = plan(
            &all,
            Some(&set(&["^a\\."])),
            None,
            2,
            2,
            Some(&set(&["a\\.4"])),
            &baseline,
        );
        assert_eq!(p.to_run, ["a.2"]);
        assert_eq!(p.skipped, ["a.4"]);
        assert_eq!(p.missing, ["gone.x"]);
        let caselist = vec!["b.2".to_string(), "a.1".to_string(), "nope".to_string()];
        let p = plan(&all, None, Some(&caselist), 1, 1, None, &Baseline::new());
        assert_eq!(p.to_run, ["a.1", "b.2"]);
        assert_eq!(p.missing, ["nope"]);
    }

    #[test]
    fn report_lines() {
        let r = TestResult::new("t.x", Status::Fail, 0.0);
        assert_eq!(report_line(&r, "out".as_ref()), "Fail: t.x");
        let msg: Vec<String> = (1..=9).map(|i| format!("line {i}")).collect();
        let r = r.with_message(msg.join("\n"));
        let text = report_line(&r, "out".as_ref());
        assert!(
            text.starts_with("Fail: t.x: line 1\n    line 2\n"),
            "{text}"
        );
        assert!(
            text.contains("line 6\n    ... 3 more line(s) in out/t.x.log"),
            "{text}"
        );
        assert!(!text.contains("line 7"), "{text}");
    }

    #[test]
    fn judge_flakes_and_reruns() {
        let b = Baseline::new();
        let mut pass_again = |n: &str| Some(raw(n, RawStatus::Pass, ""));
        let r = judge(raw("t", RawStatus::Fail, "boom"), &b, None, &mut pass_again);
        assert_eq!(r.status, Status::Flake);
        assert!(
            r.message
                .contains("Fail on the first run, Pass on the re-run"),
            "{}",
            r.message
        );
        let mut fail_again = |n: &str| Some(raw(n, RawStatus::Fail, "boom"));
        let r = judge(raw("t", RawStatus::Crash, "x"), &b, None, &mut fail_again);
        assert_eq!(r.status, Status::Crash);
        let flakes = set(&["^t$"]);
        let mut never = |_: &str| -> Option<RawResult> { panic!("known flakes are not re-run") };
        let r = judge(
            raw("t", RawStatus::Timeout, ""),
            &b,
            Some(&flakes),
            &mut never,
        );
        assert_eq!(r.status, Status::Flake);
        let mut b = Baseline::new();
        b.insert("t".into(), Status::Fail);
        let r = judge(raw("t", RawStatus::Fail, ""), &b, None, &mut never);
        assert_eq!(r.status, Status::ExpectedFail);
    }
}
