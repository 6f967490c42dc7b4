//! The child side of the runner, and the line protocol it speaks.
//!
//! The runner starts children as `pipe-cts __child --artifacts DIR
//! [--validation]`, writes the test names of one group to the child's stdin
//! (one per line) and closes it. The child reads them all, then runs them in
//! order. Around each test it prints, on stdout:
//!
//! ```text
//! @@pipe-cts@@ start <name>
//! @@pipe-cts@@ end <name> <Pass|Fail|Skip|Crash> <seconds> <escaped message>
//! ```
//!
//! Each marker line is preceded by a newline so that a test that printed
//! text without one cannot glue onto it; the start marker also goes to
//! stderr so the parent can split stderr by test. Messages escape `\`, line
//! feeds and carriage returns (`\\`, `\n`, `\r`). Anything else on stdout or
//! stderr is the test's output.
//!
//! A `start` without its `end` means the process died in the test (abort,
//! signal) or hung: the parent records `Crash` or `Timeout` and starts a new
//! child for the rest of the group. A panic is caught, reported as `Crash`
//! with the panic message, and the child then exits (code
//! [`EXIT_AFTER_PANIC`]) rather than run more tests in a process whose state
//! may be poisoned; the parent respawns for the rest.
//!
//! Validation: `pipe_vk::debug::take_messages` is drained before each test
//! (so leftovers are not blamed on it) and, with `--validation`, after it;
//! any message turns the result into `Fail` with the messages appended.

use std::io::{BufRead, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::time::Instant;

use crate::registry::{self, Outcome, TestContext};

/// Prefix of every protocol line.
pub const MARK: &str = "@@pipe-cts@@";

/// Exit code of a child that stopped after a panicking test.
pub const EXIT_AFTER_PANIC: i32 = 101;

/// Escapes a message onto one line.
pub fn escape_message(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out
}

/// Reverses [`escape_message`] (unknown escapes are kept as they are).
pub fn unescape_message(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('\\') => out.push('\\'),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// A parsed protocol line.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    Start(String),
    End {
        name: String,
        status: String,
        seconds: f64,
        message: String,
    },
    /// Any other line: the test's output.
    Output(String),
}

/// Parses one line of child stdout.
pub fn parse_line(line: &str) -> Event {
    let Some(rest) = line.strip_prefix(MARK).and_then(|r| r.strip_prefix(' ')) else {
        return Event::Output(line.to_string());
    };
    if let Some(name) = rest.strip_prefix("start ") {
        return Event::Start(name.to_string());
    }
    if let Some(rest) = rest.strip_prefix("end ") {
        let mut parts = rest.splitn(4, ' ');
        let (Some(name), Some(status), Some(secs)) = (parts.next(), parts.next(), parts.next())
        else {
            return Event::Output(line.to_string());
        };
        let Ok(seconds) = secs.parse::<f64>() else {
            return Event::Output(line.to_string());
        };
        return Event::End {
            name: name.to_string(),
            status: status.to_string(),
            seconds,
            message: unescape_message(parts.next().unwrap_or("")),
        };
    }
    Event::Output(line.to_string())
}

/// Arguments of the hidden `__child` subcommand.
#[derive(Debug, Clone)]
pub struct ChildArgs {
    pub artifacts: PathBuf,
    pub validation: bool,
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_string()
    }
}

fn emit(line: &str) {
    let mut out = std::io::stdout().lock();
    // A closed stdout means the parent is gone; nothing useful to do.
    let _ = writeln!(out, "\n{line}");
    let _ = out.flush();
}

fn end_line(name: &str, status: &str, seconds: f64, message: &str) -> String {
    format!(
        "{MARK} end {name} {status} {seconds:.6} {}",
        escape_message(message)
    )
}

/// Runs the child: reads names from stdin, runs them, returns the exit code.
pub fn child_main(args: &ChildArgs) -> i32 {
    let names: Vec<String> = std::io::stdin()
        .lock()
        .lines()
        .map_while(Result::ok)
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect();
    let tests = match registry::all_tests() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("pipe-cts child: {e}");
            return 2;
        }
    };
    let device = std::env::var("PIPE_VK_DEVICE")
        .ok()
        .filter(|d| !d.is_empty());
    for name in names {
        emit(&format!("{MARK} start {name}"));
        eprintln!("\n{MARK} start {name}");
        let Some(case) = tests.iter().find(|t| t.name == name) else {
            emit(&end_line(&name, "Fail", 0.0, "no such test in this binary"));
            continue;
        };
        drop(pipe_vk::debug::take_messages());
        let mut ctx = TestContext::new(
            name.clone(),
            device.clone(),
            args.validation,
            args.artifacts.clone(),
        );
        let start = Instant::now();
        let result = catch_unwind(AssertUnwindSafe(|| (case.run)(&mut ctx)));
        let secs = start.elapsed().as_secs_f64();
        let outcome = match result {
            Ok(o) => o,
            Err(payload) => {
                let msg = format!("panicked: {}", panic_message(payload.as_ref()));
                emit(&end_line(&name, "Crash", secs, &msg));
                let _ = std::io::stderr().flush();
                return EXIT_AFTER_PANIC;
            }
        };
        let messages = if args.validation {
            pipe_vk::debug::take_messages()
        } else {
            Vec::new()
        };
        let (status, mut msg) = match outcome {
            Outcome::Pass => ("Pass", String::new()),
            Outcome::Fail(m) => ("Fail", m),
            Outcome::Skip(m) => ("Skip", m),
        };
        let status = if messages.is_empty() {
            status
        } else {
            if !msg.is_empty() {
                msg.push_str("\n\n");
            }
            msg.push_str(&format!(
                "{} validation message(s):\n{}",
                messages.len(),
                messages.join("\n")
            ));
            "Fail"
        };
        emit(&end_line(&name, status, secs, &msg));
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_round_trip() {
        for s in ["", "plain", "a\nb\r\nc\\n", "\\", "trailing\\"] {
            assert_eq!(unescape_message(&escape_message(s)), s);
            assert!(!escape_message(s).contains('\n'));
        }
    }

    #[test]
    fn parse_lines() {
        assert_eq!(
            parse_line("@@pipe-cts@@ start pipe.a"),
            Event::Start("pipe.a".into())
        );
        assert_eq!(
            parse_line(&end_line("pipe.a", "Fail", 0.5, "bad\nthing")),
            Event::End {
                name: "pipe.a".into(),
                status: "Fail".into(),
                seconds: 0.5,
                message: "bad\nthing".into()
            }
        );
        assert_eq!(
            parse_line(&end_line("pipe.a", "Pass", 0.25, "")),
            Event::End {
                name: "pipe.a".into(),
                status: "Pass".into(),
                seconds: 0.25,
                message: String::new()
            }
        );
        assert_eq!(parse_line("hello"), Event::Output("hello".into()));
        assert_eq!(
            parse_line("@@pipe-cts@@ end x"),
            Event::Output("@@pipe-cts@@ end x".into())
        );
    }
}
