//! A run's results and the files written from them.
//!
//! - `results.csv`: every test, `name,Status,duration_seconds`, sorted by
//!   name (deqp-runner's format; durations with four decimals);
//! - `failures.csv`: the regressions only, `name,Status`, so that a first run
//!   can serve as the baseline of the next;
//! - `summary.txt`: counts per status, totals, the regressions, flakes and
//!   the slowest tests;
//! - `<name>.log` for every test that did not plainly pass or skip: its status,
//!   message and the output its child process printed while it ran.
//!
//! All writers take the results in any order and sort them by name.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::Path;

use super::status::Status;

/// One test's final result.
#[derive(Debug, Clone, PartialEq)]
pub struct TestResult {
    pub name: String,
    pub status: Status,
    /// Seconds.
    pub duration: f64,
    /// The test's message (failure or skip reason, crash description,
    /// validation messages), possibly empty.
    pub message: String,
    /// Output the child process printed while the test ran (stdout and
    /// stderr), possibly empty.
    pub output: String,
}

impl TestResult {
    /// A result with no message or output.
    pub fn new(name: impl Into<String>, status: Status, duration: f64) -> Self {
        TestResult {
            name: name.into(),
            status,
            duration,
            message: String::new(),
            output: String::new(),
        }
    }

    /// With a message.
    pub fn with_message(mut self, msg: impl Into<String>) -> Self {
        self.message = msg.into();
        self
    }
}

fn sorted(results: &[TestResult]) -> Vec<&TestResult> {
    let mut v: Vec<_> = results.iter().collect();
    v.sort_by(|a, b| a.name.cmp(&b.name));
    v
}

/// Writes `results.csv` lines.
pub fn write_results_csv(w: &mut impl Write, results: &[TestResult]) -> io::Result<()> {
    for r in sorted(results) {
        writeln!(w, "{},{},{:.4}", r.name, r.status, r.duration)?;
    }
    Ok(())
}

/// Writes `failures.csv` lines (regressions only, baseline format).
pub fn write_failures_csv(w: &mut impl Write, results: &[TestResult]) -> io::Result<()> {
    for r in sorted(results)
        .into_iter()
        .filter(|r| r.status.is_regression())
    {
        writeln!(w, "{},{}", r.name, r.status)?;
    }
    Ok(())
}

/// Counts per status.
pub fn counts(results: &[TestResult]) -> BTreeMap<Status, usize> {
    let mut m = BTreeMap::new();
    for r in results {
        *m.entry(r.status).or_insert(0) += 1;
    }
    m
}

/// `Pass: 3, Fail: 1, ...` for statuses with a non-zero count.
pub fn counts_line(counts: &BTreeMap<Status, usize>) -> String {
    let mut parts = Vec::new();
    for s in Status::REPORT_ORDER {
        if let Some(n) = counts.get(&s).filter(|&&n| n > 0) {
            parts.push(format!("{s}: {n}"));
        }
    }
    // Statuses outside REPORT_ORDER (improvements to Crash/Timeout).
    for (s, n) in counts {
        if !Status::REPORT_ORDER.contains(s) && *n > 0 {
            parts.push(format!("{s}: {n}"));
        }
    }
    if parts.is_empty() {
        "no results".to_string()
    } else {
        parts.join(", ")
    }
}

/// Extra facts for the summary.
#[derive(Debug, Clone, Default)]
pub struct SummaryInfo {
    /// Wall-clock time of the run, seconds.
    pub wall_time: f64,
    /// Tests that were selected but not run because `--max-fails` stopped
    /// the run.
    pub not_run: usize,
    /// `--max-fails`, when it stopped the run.
    pub stopped_at: Option<usize>,
}

/// The text of `summary.txt` (also printed at the end of a run).
pub fn summary_text(results: &[TestResult], info: &SummaryInfo, list_limit: usize) -> String {
    let c = counts(results);
    let mut s = String::new();
    let _ = writeln!(s, "pipe-cts summary");
    for status in Status::REPORT_ORDER {
        let _ = writeln!(
            s,
            "{:<28} {}",
            format!("{status}:"),
            c.get(&status).copied().unwrap_or(0)
        );
    }
    for (status, n) in &c {
        if !Status::REPORT_ORDER.contains(status) {
            let _ = writeln!(s, "{:<28} {n}", format!("{status}:"));
        }
    }
    let test_time: f64 = results.iter().map(|r| r.duration).sum();
    let regressions: Vec<_> = sorted(results)
        .into_iter()
        .filter(|r| r.status.is_regression())
        .collect();
    let _ = writeln!(s, "{:<28} {}", "Total:", results.len());
    let _ = writeln!(s, "{:<28} {}", "Regressions:", regressions.len());
    let _ = writeln!(s, "{:<28} {:.2} s", "Wall time:", info.wall_time);
    let _ = writeln!(s, "{:<28} {:.2} s", "Test time (sum):", test_time);
    if let Some(max) = info.stopped_at {
        let _ = writeln!(
            s,
            "Stopped after {max} regression(s) (--max-fails); {} selected test(s) not run",
            info.not_run
        );
    }
    let mut list = |title: &str, items: Vec<&TestResult>| {
        if items.is_empty() {
            return;
        }
        let _ = writeln!(s, "\n{title} ({}):", items.len());
        for r in items.iter().take(list_limit) {
            let _ = writeln!(s, "  {},{}", r.name, r.status);
        }
        if items.len() > list_limit {
            let _ = writeln!(s, "  ... and {} more", items.len() - list_limit);
        }
    };
    list("Regressions", regressions);
    list(
        "Flakes",
        sorted(results)
            .into_iter()
            .filter(|r| r.status == Status::Flake)
            .collect(),
    );
    let mut slow: Vec<_> = results.iter().filter(|r| r.duration > 0.0).collect();
    slow.sort_by(|a, b| b.duration.total_cmp(&a.duration).then(a.name.cmp(&b.name)));
    if !slow.is_empty() {
        let _ = writeln!(s, "\nSlowest tests:");
        for r in slow.iter().take(5) {
            let _ = writeln!(s, "  {:.3} s  {}", r.duration, r.name);
        }
    }
    s
}

/// The text of a test's `<name>.log`.
pub fn log_text(r: &TestResult) -> String {
    let mut s = format!(
        "test: {}\nstatus: {}\nduration: {:.4} s\n",
        r.name, r.status, r.duration
    );
    if !r.message.is_empty() {
        let _ = write!(s, "\nmessage:\n{}\n", r.message);
    }
    if !r.output.is_empty() {
        let _ = write!(s, "\noutput:\n{}\n", r.output);
    }
    s
}

/// Whether a test gets a `<name>.log` file.
pub fn wants_log(r: &TestResult) -> bool {
    !matches!(r.status, Status::Pass | Status::Skip)
}

fn write_file(
    path: &Path,
    f: impl FnOnce(&mut io::BufWriter<std::fs::File>) -> io::Result<()>,
) -> Result<(), String> {
    let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut w = io::BufWriter::new(file);
    f(&mut w)
        .and_then(|()| w.flush())
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Writes every output file of a run into `dir`.
pub fn write_run_files(
    dir: &Path,
    results: &[TestResult],
    info: &SummaryInfo,
    suite: &str,
) -> Result<(), String> {
    write_file(&dir.join("results.csv"), |w| write_results_csv(w, results))?;
    write_file(&dir.join("failures.csv"), |w| {
        write_failures_csv(w, results)
    })?;
    write_file(&dir.join("junit.xml"), |w| {
        super::junit::write_junit(w, suite, results, info.wall_time)
    })?;
    write_file(&dir.join("summary.txt"), |w| {
        w.write_all(summary_text(results, info, usize::MAX).as_bytes())
    })?;
    for r in results.iter().filter(|r| wants_log(r)) {
        write_file(&dir.join(format!("{}.log", r.name)), |w| {
            w.write_all(log_text(r).as_bytes())
        })?;
    }
    Ok(())
}

/// Reads a `results.csv` back (for `pipe-cts junit`).
pub fn read_results_csv(path: &Path) -> Result<Vec<TestResult>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let text =
        String::from_utf8(bytes).map_err(|_| format!("{}: not valid UTF-8", path.display()))?;
    let lines = super::expectations::parse_status_lines(&text, &path.display().to_string())?;
    Ok(lines
        .into_iter()
        .map(|l| TestResult::new(l.name, l.status, l.duration.unwrap_or(0.0)))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::expectations::parse_baseline;
    use crate::runner::status::RawStatus;

    fn sample() -> Vec<TestResult> {
        vec![
            TestResult::new("b.fail", Status::Fail, 0.5),
            TestResult::new("a.pass", Status::Pass, 0.01234),
            TestResult::new("c.xfail", Status::ExpectedFail, 0.1),
            TestResult::new("d.imp", Status::UnexpectedImprovement(RawStatus::Pass), 0.1),
            TestResult::new("e.flake", Status::Flake, 0.2),
            TestResult::new("f.missing", Status::Missing, 0.0),
        ]
    }

    #[test]
    fn csv_files() {
        let mut out = Vec::new();
        write_results_csv(&mut out, &sample()).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "a.pass,Pass,0.0123\nb.fail,Fail,0.5000\nc.xfail,ExpectedFail,0.1000\n\
             d.imp,UnexpectedImprovement(Pass),0.1000\ne.flake,Flake,0.2000\nf.missing,Missing,0.0000\n"
        );
        let mut out = Vec::new();
        write_failures_csv(&mut out, &sample()).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "b.fail,Fail\nd.imp,UnexpectedImprovement(Pass)\nf.missing,Missing\n"
        );
        // failures.csv is a valid baseline.
        let b = parse_baseline(&text, "failures.csv").unwrap();
        assert_eq!(b.len(), 3);
    }

    #[test]
    fn summary() {
        let s = summary_text(&sample(), &SummaryInfo::default(), 10);
        assert!(s.contains("Pass:                        1\n"), "{s}");
        assert!(s.contains("Regressions:                 3\n"), "{s}");
        assert!(s.contains("Regressions (3):\n  b.fail,Fail\n"), "{s}");
        assert!(s.contains("Flakes (1):\n  e.flake,Flake\n"), "{s}");
        assert!(s.contains("Slowest tests:\n  0.500 s  b.fail\n"), "{s}");
        assert_eq!(
            counts_line(&counts(&sample())),
            "Pass: 1, Fail: 1, Flake: 1, ExpectedFail: 1, UnexpectedImprovement(Pass): 1, Missing: 1"
        );
    }
}
