//! Progress reporting on stderr.
//!
//! When stderr is a terminal, an indicatif bar shows done/total, elapsed
//! time and the counts per status; lines about individual tests (regressions,
//! flakes) are printed above it. When stderr is not a terminal (CI logs), no
//! bar is drawn: a plain line `pipe-cts: 120/500 tests, Pass: 118, Fail: 2,
//! 12 s` is printed at most once per interval (and once at the end), so a log
//! shows the run is alive without filling up.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::results::counts_line;
use super::status::Status;

/// Reports progress; see the module doc.
pub struct Progress {
    bar: Option<ProgressBar>,
    total: usize,
    done: usize,
    counts: BTreeMap<Status, usize>,
    start: Instant,
    interval: Duration,
    last_plain: Instant,
}

impl Progress {
    /// Chooses bar or plain lines from whether stderr is a terminal.
    pub fn new(total: usize, interval: Duration) -> Self {
        Self::with_mode(total, interval, std::io::stderr().is_terminal())
    }

    /// `terminal` picks the bar (true) or plain lines (false).
    pub fn with_mode(total: usize, interval: Duration, terminal: bool) -> Self {
        let bar = terminal.then(|| {
            let bar =
                ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
            let style =
                ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} {wide_msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> ");
            bar.set_style(style);
            bar.enable_steady_tick(Duration::from_millis(250));
            bar
        });
        let now = Instant::now();
        Progress {
            bar,
            total,
            done: 0,
            counts: BTreeMap::new(),
            start: now,
            interval,
            last_plain: now,
        }
    }

    /// Prints a line about one test above the bar (or plainly).
    pub fn println(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None => {
                let mut err = std::io::stderr().lock();
                let _ = writeln!(err, "{line}");
            }
        }
    }

    /// Counts one finished test.
    pub fn record(&mut self, status: Status) {
        self.done += 1;
        *self.counts.entry(status).or_insert(0) += 1;
        if let Some(bar) = &self.bar {
            bar.set_position(self.done as u64);
            bar.set_message(counts_line(&self.counts));
        }
        self.tick();
    }

    /// Prints the plain line if the interval has passed (no-op with a bar).
    pub fn tick(&mut self) {
        if self.bar.is_none() && self.last_plain.elapsed() >= self.interval {
            self.plain_line();
        }
    }

    fn plain_line(&mut self) {
        self.last_plain = Instant::now();
        self.println(&format!(
            "pipe-cts: {}/{} tests, {}, {:.0} s",
            self.done,
            self.total,
            counts_line(&self.counts),
            self.start.elapsed().as_secs_f64()
        ));
    }

    /// Ends the bar (or prints a last plain line).
    pub fn finish(&mut self) {
        match self.bar.take() {
            Some(bar) => bar.finish_and_clear(),
            None => self.plain_line(),
        }
    }
}
