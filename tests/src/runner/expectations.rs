//! The input files of a run: caselists, baselines, skips and flakes lists.
//!
//! Formats follow deqp-runner and Mesa's CI files:
//!
//! - **caselist**: one test name per line;
//! - **baseline** (`*-fails.txt`, or a previous `failures.csv`):
//!   `name,Status` per line, with an optional third field (a duration, as in
//!   `results.csv`, so a results file parses too);
//! - **skips** / **flakes** (`*-skips.txt`, `*-flakes.txt`): one regular
//!   expression per line, matched unanchored against the test name, as
//!   deqp-runner does (anchor with `^`/`$` when needed).
//!
//! In all of them blank lines and lines starting with `#` are ignored and
//! surrounding whitespace is trimmed. A bad line is an error naming the file
//! and the line number; nothing here panics on bad input.

use std::collections::BTreeMap;
use std::path::Path;

use regex::{Regex, RegexSet};

use super::status::Status;

/// One parsed `name,Status[,duration]` line.
#[derive(Debug, Clone, PartialEq)]
pub struct StatusLine {
    pub name: String,
    pub status: Status,
    pub duration: Option<f64>,
    /// 1-based line number, for messages.
    pub line: usize,
}

fn read(path: &Path) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    String::from_utf8(bytes).map_err(|_| format!("{}: not valid UTF-8", path.display()))
}

/// Meaningful lines: (1-based number, trimmed text), without blanks and
/// `#` comments.
fn content_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
}

/// Parses `name,Status[,duration]` lines (baselines, failures.csv,
/// results.csv). `origin` names the file in errors.
pub fn parse_status_lines(text: &str, origin: &str) -> Result<Vec<StatusLine>, String> {
    let mut out = Vec::new();
    for (n, line) in content_lines(text) {
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let err = |msg: String| format!("{origin}:{n}: {msg}: {line:?}");
        if fields.len() < 2 || fields.len() > 3 {
            return Err(err(format!(
                "expected `name,Status` or `name,Status,duration`, found {} field(s)",
                fields.len()
            )));
        }
        let name = fields[0];
        if let Some(p) = crate::registry::name_problem(name) {
            return Err(err(format!("bad test name ({p})")));
        }
        let status: Status = fields[1].parse().map_err(err)?;
        let duration = match fields.get(2) {
            None => None,
            Some(d) => match d.parse::<f64>() {
                Ok(v) if v.is_finite() && v >= 0.0 => Some(v),
                _ => return Err(err(format!("bad duration {d:?}"))),
            },
        };
        out.push(StatusLine {
            name: name.to_string(),
            status,
            duration,
            line: n,
        });
    }
    Ok(out)
}

/// Expected results by test name.
pub type Baseline = BTreeMap<String, Status>;

/// Parses baseline text; a name listed twice is an error.
pub fn parse_baseline(text: &str, origin: &str) -> Result<Baseline, String> {
    let mut map = Baseline::new();
    let mut first_line = BTreeMap::new();
    for l in parse_status_lines(text, origin)? {
        if let Some(prev) = first_line.get(&l.name) {
            return Err(format!(
                "{origin}:{}: {} is already listed on line {prev}",
                l.line, l.name
            ));
        }
        first_line.insert(l.name.clone(), l.line);
        map.insert(l.name, l.status);
    }
    Ok(map)
}

/// Reads a baseline file.
pub fn read_baseline(path: &Path) -> Result<Baseline, String> {
    parse_baseline(&read(path)?, &path.display().to_string())
}

/// Parses a list of regular expressions, one per line.
pub fn parse_regex_lines(text: &str, origin: &str) -> Result<Vec<String>, String> {
    content_lines(text)
        .map(|(n, line)| {
            Regex::new(line)
                .map(|_| line.to_string())
                .map_err(|e| format!("{origin}:{n}: bad regular expression {line:?}: {e}"))
        })
        .collect()
}

/// Reads any number of regex list files into one set (`None` when empty).
pub fn read_regex_files(paths: &[impl AsRef<Path>]) -> Result<Option<RegexSet>, String> {
    let mut all = Vec::new();
    for p in paths {
        let p = p.as_ref();
        all.extend(parse_regex_lines(&read(p)?, &p.display().to_string())?);
    }
    regex_set(&all, "regex list")
}

/// Builds a set from already checked patterns (`None` when empty).
pub fn regex_set(patterns: &[String], what: &str) -> Result<Option<RegexSet>, String> {
    if patterns.is_empty() {
        return Ok(None);
    }
    RegexSet::new(patterns)
        .map(Some)
        .map_err(|e| format!("{what}: {e}"))
}

/// Parses a caselist: one test name per line.
pub fn parse_caselist(text: &str, origin: &str) -> Result<Vec<String>, String> {
    content_lines(text)
        .map(|(n, line)| match crate::registry::name_problem(line) {
            Some(p) => Err(format!("{origin}:{n}: bad test name ({p}): {line:?}")),
            None => Ok(line.to_string()),
        })
        .collect()
}

/// Reads a caselist file.
pub fn read_caselist(path: &Path) -> Result<Vec<String>, String> {
    parse_caselist(&read(path)?, &path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::status::RawStatus;

    #[test]
    fn baseline_formats() {
        let text =
            "# comment\n\n pipe.a,Fail \npipe.b,Crash,0.25\npipe.c,UnexpectedImprovement(Pass)\n";
        let b = parse_baseline(text, "f.txt").unwrap();
        assert_eq!(b["pipe.a"], Status::Fail);
        assert_eq!(b["pipe.b"], Status::Crash);
        assert_eq!(b["pipe.c"], Status::UnexpectedImprovement(RawStatus::Pass));
    }

    #[test]
    fn baseline_errors_name_file_and_line() {
        let e = parse_baseline("pipe.a,Fail\npipe.b\n", "fails.txt").unwrap_err();
        assert!(e.starts_with("fails.txt:2: expected `name,Status`"), "{e}");
        let e = parse_baseline("pipe.a,Failed\n", "fails.txt").unwrap_err();
        assert!(
            e.starts_with("fails.txt:1: unknown status \"Failed\""),
            "{e}"
        );
        let e = parse_baseline("pipe.a,Fail,abc\n", "x").unwrap_err();
        assert!(e.contains("bad duration"), "{e}");
        let e = parse_baseline("pipe.a,Fail\npipe.a,Crash\n", "x").unwrap_err();
        assert!(e.contains("x:2: pipe.a is already listed on line 1"), "{e}");
        let e = parse_baseline("pipe a,Fail\n", "x").unwrap_err();
        assert!(e.contains("whitespace"), "{e}");
        let e = parse_baseline("a,b,c,d\n", "x").unwrap_err();
        assert!(e.contains("4 field(s)"), "{e}");
    }

    #[test]
    fn regex_lists() {
        let pats =
            parse_regex_lines("# skip slow\npipe\\.slow\\..*\n\n^selftest\\.hang$\n", "s").unwrap();
        let set = regex_set(&pats, "s").unwrap().unwrap();
        assert!(set.is_match("pipe.slow.x"));
        assert!(set.is_match("selftest.hang"));
        assert!(!set.is_match("selftest.hang2"));
        let e = parse_regex_lines("ok\n(unclosed\n", "skips.txt").unwrap_err();
        assert!(e.starts_with("skips.txt:2: bad regular expression"), "{e}");
        assert!(regex_set(&[], "s").unwrap().is_none());
    }

    #[test]
    fn caselists() {
        assert_eq!(
            parse_caselist("a.b\n#c\n  d.e  \n", "c").unwrap(),
            ["a.b", "d.e"]
        );
        assert!(parse_caselist("a,b\n", "c").is_err());
    }
}
