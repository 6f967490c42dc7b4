//! Result statuses, spelled as deqp-runner spells them.
//!
//! A test run yields a [`RawStatus`] (`Pass`, `Fail`, `Skip`, `Crash`,
//! `Timeout`). The runner then compares it with the baseline
//! ([`Status::with_baseline`]), which turns expected failures into
//! `ExpectedFail` and fixed ones into `UnexpectedImprovement(<raw>)`; flake
//! handling turns unexpected failures that pass on a re-run (or that match a
//! flakes file) into `Flake`; baseline entries naming no test become
//! `Missing`.
//!
//! A status is a *regression* (the run exits 1) when it is `Fail`, `Crash`,
//! `Timeout`, `Missing` or `UnexpectedImprovement(_)`: as in deqp-runner,
//! an improvement fails the run too, because the baseline must be updated
//! (the entry removed) before it can hide a new failure. Regressions are what
//! `failures.csv` lists, so that file can be the next baseline.
//!
//! Parsing accepts every word this module prints, plus deqp-runner's older or
//! wider vocabulary where it maps cleanly (`UnexpectedPass`, `KnownFlake`).

use std::fmt;
use std::str::FromStr;

/// What one execution of a test yields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RawStatus {
    Pass,
    Fail,
    Skip,
    Crash,
    Timeout,
}

impl RawStatus {
    /// The word used in files.
    pub fn as_str(self) -> &'static str {
        match self {
            RawStatus::Pass => "Pass",
            RawStatus::Fail => "Fail",
            RawStatus::Skip => "Skip",
            RawStatus::Crash => "Crash",
            RawStatus::Timeout => "Timeout",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "Pass" => RawStatus::Pass,
            "Fail" => RawStatus::Fail,
            "Skip" => RawStatus::Skip,
            "Crash" => RawStatus::Crash,
            "Timeout" => RawStatus::Timeout,
            _ => return None,
        })
    }
}

/// A test's final status as written to `results.csv`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Status {
    Pass,
    Fail,
    Crash,
    Skip,
    Timeout,
    Flake,
    ExpectedFail,
    UnexpectedImprovement(RawStatus),
    Missing,
}

impl From<RawStatus> for Status {
    fn from(r: RawStatus) -> Self {
        match r {
            RawStatus::Pass => Status::Pass,
            RawStatus::Fail => Status::Fail,
            RawStatus::Skip => Status::Skip,
            RawStatus::Crash => Status::Crash,
            RawStatus::Timeout => Status::Timeout,
        }
    }
}

impl Status {
    /// Every status word that can appear in a run's results, in report order.
    pub const REPORT_ORDER: [Status; 11] = [
        Status::Pass,
        Status::Fail,
        Status::Crash,
        Status::Skip,
        Status::Timeout,
        Status::Flake,
        Status::ExpectedFail,
        Status::UnexpectedImprovement(RawStatus::Pass),
        Status::UnexpectedImprovement(RawStatus::Fail),
        Status::UnexpectedImprovement(RawStatus::Skip),
        Status::Missing,
    ];

    /// True when this status makes the run fail (exit code 1).
    pub fn is_regression(self) -> bool {
        matches!(
            self,
            Status::Fail
                | Status::Crash
                | Status::Timeout
                | Status::Missing
                | Status::UnexpectedImprovement(_)
        )
    }

    /// True for the unexpected failures that are re-run once to detect
    /// flakes (and that a flakes file turns into `Flake`).
    pub fn is_unexpected_failure(self) -> bool {
        matches!(self, Status::Fail | Status::Crash | Status::Timeout)
    }

    /// True when a baseline entry with this status says "this test fails".
    fn is_failing_expectation(self) -> bool {
        matches!(
            self,
            Status::Fail | Status::Crash | Status::Timeout | Status::ExpectedFail
        )
    }

    /// Combines a raw result with the test's baseline entry, if any.
    ///
    /// | result \ baseline | none | Fail, ExpectedFail | Crash | Timeout | other |
    /// |---|---|---|---|---|---|
    /// | Pass | Pass | UnexpectedImprovement(Pass) | same | same | Pass |
    /// | Fail | Fail | ExpectedFail | UnexpectedImprovement(Fail) | same | Fail |
    /// | Crash | Crash | Crash | ExpectedFail | Crash | Crash |
    /// | Timeout | Timeout | Timeout | Timeout | ExpectedFail | Timeout |
    /// | Skip | Skip | UnexpectedImprovement(Skip) | same | same | Skip |
    ///
    /// A baseline entry `UnexpectedImprovement(X)` counts as `X`.
    pub fn with_baseline(raw: RawStatus, baseline: Option<Status>) -> Status {
        let baseline = match baseline {
            Some(Status::UnexpectedImprovement(r)) => Some(Status::from(r)),
            b => b,
        };
        let Some(b) = baseline else {
            return raw.into();
        };
        match raw {
            RawStatus::Pass | RawStatus::Skip if b.is_failing_expectation() => {
                Status::UnexpectedImprovement(raw)
            }
            RawStatus::Fail => match b {
                Status::Fail | Status::ExpectedFail => Status::ExpectedFail,
                Status::Crash | Status::Timeout => Status::UnexpectedImprovement(RawStatus::Fail),
                _ => Status::Fail,
            },
            RawStatus::Crash if b == Status::Crash => Status::ExpectedFail,
            RawStatus::Timeout if b == Status::Timeout => Status::ExpectedFail,
            _ => raw.into(),
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Status::Pass => f.write_str("Pass"),
            Status::Fail => f.write_str("Fail"),
            Status::Crash => f.write_str("Crash"),
            Status::Skip => f.write_str("Skip"),
            Status::Timeout => f.write_str("Timeout"),
            Status::Flake => f.write_str("Flake"),
            Status::ExpectedFail => f.write_str("ExpectedFail"),
            Status::Missing => f.write_str("Missing"),
            Status::UnexpectedImprovement(r) => write!(f, "UnexpectedImprovement({})", r.as_str()),
        }
    }
}

impl fmt::Display for RawStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Status {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if let Some(r) = RawStatus::parse(s) {
            return Ok(r.into());
        }
        let inner = s
            .strip_prefix("UnexpectedImprovement(")
            .and_then(|rest| rest.strip_suffix(')'));
        if let Some(inner) = inner {
            return RawStatus::parse(inner)
                .map(Status::UnexpectedImprovement)
                .ok_or_else(|| format!("unknown status {s:?} (bad improvement kind {inner:?})"));
        }
        Ok(match s {
            "Flake" | "KnownFlake" => Status::Flake,
            "ExpectedFail" => Status::ExpectedFail,
            "Missing" => Status::Missing,
            "UnexpectedPass" => Status::UnexpectedImprovement(RawStatus::Pass),
            _ => {
                return Err(format!(
                    "unknown status {s:?} (expected Pass, Fail, Crash, Skip, Timeout, Flake, \
                     ExpectedFail, Missing or UnexpectedImprovement(Pass|Fail|Skip|Crash|Timeout))"
                ))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use RawStatus as R;

    #[test]
    fn round_trip() {
        for s in Status::REPORT_ORDER {
            assert_eq!(s.to_string().parse::<Status>(), Ok(s));
        }
        assert_eq!(
            "UnexpectedImprovement(Crash)".parse::<Status>(),
            Ok(Status::UnexpectedImprovement(R::Crash))
        );
        assert_eq!(
            "UnexpectedPass".parse::<Status>(),
            Ok(Status::UnexpectedImprovement(R::Pass))
        );
        assert!("Warn".parse::<Status>().is_err());
        assert!("UnexpectedImprovement(Foo)".parse::<Status>().is_err());
        assert!("pass".parse::<Status>().is_err());
    }

    #[test]
    fn baseline_table() {
        use Status as S;
        let wb = Status::with_baseline;
        assert_eq!(wb(R::Pass, None), S::Pass);
        assert_eq!(
            wb(R::Pass, Some(S::Fail)),
            S::UnexpectedImprovement(R::Pass)
        );
        assert_eq!(
            wb(R::Pass, Some(S::Crash)),
            S::UnexpectedImprovement(R::Pass)
        );
        assert_eq!(wb(R::Pass, Some(S::Flake)), S::Pass);
        assert_eq!(wb(R::Fail, Some(S::Fail)), S::ExpectedFail);
        assert_eq!(wb(R::Fail, Some(S::ExpectedFail)), S::ExpectedFail);
        assert_eq!(
            wb(R::Fail, Some(S::Crash)),
            S::UnexpectedImprovement(R::Fail)
        );
        assert_eq!(wb(R::Fail, Some(S::Skip)), S::Fail);
        assert_eq!(wb(R::Crash, Some(S::Crash)), S::ExpectedFail);
        assert_eq!(wb(R::Crash, Some(S::Fail)), S::Crash);
        assert_eq!(wb(R::Timeout, Some(S::Timeout)), S::ExpectedFail);
        assert_eq!(wb(R::Timeout, Some(S::Fail)), S::Timeout);
        assert_eq!(
            wb(R::Skip, Some(S::Fail)),
            S::UnexpectedImprovement(R::Skip)
        );
        assert_eq!(wb(R::Skip, None), S::Skip);
        assert_eq!(
            wb(R::Pass, Some(S::UnexpectedImprovement(R::Pass))),
            S::Pass
        );
    }

    #[test]
    fn regressions() {
        let bad: Vec<_> = Status::REPORT_ORDER
            .iter()
            .filter(|s| s.is_regression())
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            bad,
            [
                "Fail",
                "Crash",
                "Timeout",
                "UnexpectedImprovement(Pass)",
                "UnexpectedImprovement(Fail)",
                "UnexpectedImprovement(Skip)",
                "Missing"
            ]
        );
    }
}
