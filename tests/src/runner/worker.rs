//! The parent side of child processes: spawn, feed, watch, respawn.
//!
//! [`run_tests`] runs a list of test names in child processes (see
//! [`super::child`] for the protocol). One child runs the whole list unless
//! something goes wrong:
//!
//! - the child dies inside a test (abort, signal, `exit`): that test is
//!   `Crash`, with the exit status in its message; a new child runs the rest;
//! - no `end` arrives within the timeout of a test's `start` (or of the
//!   previous event): the child is killed, the test is `Timeout`, a new child
//!   runs the rest;
//! - the child exits between tests (after a caught panic it does so on
//!   purpose): a new child runs the rest; if it dies before starting the
//!   first test it was given, that test is `Crash` so the loop always
//!   progresses.
//!
//! Two reader threads per child turn its stdout into [`Event`]s on a channel
//! (so the watcher can wait with a deadline) and collect its stderr, split by
//! the start markers, into per-test output. Output kept per test is capped
//! (the tail is kept), so a chatty test cannot exhaust memory.

use std::collections::{BTreeMap, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::child::{parse_line, Event, MARK};
use super::status::RawStatus;

/// Output kept per test, in bytes (the tail is kept).
const OUTPUT_CAP: usize = 64 * 1024;

/// How children are started.
#[derive(Debug, Clone)]
pub struct ChildConfig {
    /// The pipe-cts binary.
    pub exe: PathBuf,
    /// Artifacts directory passed to children.
    pub artifacts: PathBuf,
    pub validation: bool,
    pub device: Option<String>,
    /// Per-test timeout.
    pub timeout: Duration,
}

/// One execution of one test.
#[derive(Debug, Clone, PartialEq)]
pub struct RawResult {
    pub name: String,
    pub status: RawStatus,
    pub duration: f64,
    pub message: String,
    pub output: String,
}

fn push_capped(buf: &mut String, text: &str) {
    buf.push_str(text);
    buf.push('\n');
    if buf.len() > OUTPUT_CAP {
        let mut cut = buf.len() - OUTPUT_CAP / 2;
        while !buf.is_char_boundary(cut) {
            cut += 1;
        }
        buf.replace_range(..cut, "[... output truncated ...]\n");
    }
}

/// Longest line handed on whole; longer ones arrive in pieces.
const LINE_CAP: u64 = 16 * 1024;

fn read_lines(r: impl Read, mut f: impl FnMut(String)) {
    let mut r = BufReader::new(r);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match r.by_ref().take(LINE_CAP).read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                while buf.last().is_some_and(|&b| b == b'\n' || b == b'\r') {
                    buf.pop();
                }
                f(String::from_utf8_lossy(&buf).into_owned());
            }
        }
    }
}

/// Describes how a child ended.
pub fn describe_exit(status: Option<ExitStatus>) -> String {
    let Some(status) = status else {
        return "the child process could not be waited for".to_string();
    };
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            let name = match sig {
                4 => " (SIGILL)",
                6 => " (SIGABRT)",
                7 => " (SIGBUS)",
                8 => " (SIGFPE)",
                9 => " (SIGKILL)",
                11 => " (SIGSEGV)",
                13 => " (SIGPIPE)",
                15 => " (SIGTERM)",
                _ => "",
            };
            return format!("the child process was killed by signal {sig}{name}");
        }
    }
    match status.code() {
        Some(c) => format!("the child process exited with code {c}"),
        None => format!("the child process ended: {status}"),
    }
}

struct Spawned {
    child: Child,
    events: mpsc::Receiver<Event>,
    stdout_thread: JoinHandle<()>,
    stderr_thread: JoinHandle<BTreeMap<String, String>>,
}

fn spawn(cfg: &ChildConfig, names: &VecDeque<String>) -> std::io::Result<Spawned> {
    let mut cmd = Command::new(&cfg.exe);
    cmd.arg("__child").arg("--artifacts").arg(&cfg.artifacts);
    if cfg.validation {
        cmd.arg("--validation");
        cmd.env("PIPE_VK_VALIDATION", "1");
    } else {
        cmd.env_remove("PIPE_VK_VALIDATION");
    }
    if let Some(d) = &cfg.device {
        cmd.env("PIPE_VK_DEVICE", d);
    }
    if std::env::var_os("LP_NUM_THREADS").is_none() {
        cmd.env("LP_NUM_THREADS", "2");
    }
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn()?;
    let mut list = String::new();
    for n in names {
        list.push_str(n);
        list.push('\n');
    }
    if let Some(mut stdin) = child.stdin.take() {
        // The child reads all of stdin before running anything; if it died
        // already, the write fails and the watcher sees the death.
        let _ = stdin.write_all(list.as_bytes());
    }
    let stdout = child.stdout.take().expect("stdout was piped");
    let stderr = child.stderr.take().expect("stderr was piped");
    let (tx, events) = mpsc::channel();
    let stdout_thread = std::thread::spawn(move || {
        read_lines(stdout, |line| {
            if !line.is_empty() {
                let _ = tx.send(parse_line(&line));
            }
        });
    });
    let stderr_thread = std::thread::spawn(move || {
        let mut map: BTreeMap<String, String> = BTreeMap::new();
        let mut current = String::new();
        let start = format!("{MARK} start ");
        read_lines(stderr, |line| {
            if let Some(name) = line.strip_prefix(&start) {
                current = name.to_string();
            } else if !line.is_empty() || map.contains_key(&current) {
                push_capped(map.entry(current.clone()).or_default(), &line);
            }
        });
        map
    });
    Ok(Spawned {
        child,
        events,
        stdout_thread,
        stderr_thread,
    })
}

enum Ending {
    /// Stdout closed: the child exited (or closed it).
    Eof,
    /// The current test (or startup) ran past the timeout; child killed.
    TimedOut,
    /// The caller asked to stop; child killed.
    Stopped,
}

fn combine_output(stdout: Option<&String>, stderr: Option<&String>) -> String {
    let mut s = String::new();
    for (label, text) in [("stdout", stdout), ("stderr", stderr)] {
        if let Some(t) = text.filter(|t| !t.trim().is_empty()) {
            s.push_str(&format!("--- {label} ---\n{}", t.trim_start_matches('\n')));
            if !s.ends_with('\n') {
                s.push('\n');
            }
        }
    }
    s
}

/// Runs `names` in child processes, calling `on_result` for each result as
/// it arrives. Stops early (leaving the rest unrun) when `stop()` turns true.
pub fn run_tests(
    cfg: &ChildConfig,
    names: &[String],
    stop: &dyn Fn() -> bool,
    on_result: &mut dyn FnMut(RawResult),
) {
    let mut remaining: VecDeque<String> = names.iter().cloned().collect();
    while !remaining.is_empty() && !stop() {
        let mut sp = match spawn(cfg, &remaining) {
            Ok(sp) => sp,
            Err(e) => {
                for name in remaining.drain(..) {
                    on_result(RawResult {
                        name,
                        status: RawStatus::Crash,
                        duration: 0.0,
                        message: format!("could not start {}: {e}", cfg.exe.display()),
                        output: String::new(),
                    });
                }
                return;
            }
        };
        let mut current: Option<(String, Instant)> = None;
        let mut stdout_out: BTreeMap<String, String> = BTreeMap::new();
        let mut pending: Vec<RawResult> = Vec::new();
        let mut started_any = false;
        let mut deadline = Instant::now() + cfg.timeout;
        let ending = loop {
            let wait = deadline.saturating_duration_since(Instant::now());
            match sp.events.recv_timeout(wait) {
                Ok(Event::Start(name)) => {
                    started_any = true;
                    current = Some((name, Instant::now()));
                    deadline = Instant::now() + cfg.timeout;
                }
                Ok(Event::End {
                    name,
                    status,
                    seconds,
                    message,
                }) => {
                    current = None;
                    deadline = Instant::now() + cfg.timeout;
                    let Some(pos) = remaining.iter().position(|n| *n == name) else {
                        continue;
                    };
                    remaining.remove(pos);
                    let status = match status.as_str() {
                        "Pass" => RawStatus::Pass,
                        "Skip" => RawStatus::Skip,
                        "Crash" => RawStatus::Crash,
                        _ => RawStatus::Fail,
                    };
                    // Output is complete only once stderr is drained; results
                    // without a problem go out at once, the others wait.
                    let r = RawResult {
                        output: String::new(),
                        name,
                        status,
                        duration: seconds,
                        message,
                    };
                    if matches!(status, RawStatus::Pass | RawStatus::Skip) {
                        on_result(r);
                    } else {
                        pending.push(r);
                    }
                    if stop() {
                        let _ = sp.child.kill();
                        break Ending::Stopped;
                    }
                }
                Ok(Event::Output(line)) => {
                    let key = current.as_ref().map(|c| c.0.clone()).unwrap_or_default();
                    push_capped(stdout_out.entry(key).or_default(), &line);
                }
                Err(RecvTimeoutError::Timeout) => {
                    let _ = sp.child.kill();
                    break Ending::TimedOut;
                }
                Err(RecvTimeoutError::Disconnected) => break Ending::Eof,
            }
        };
        let exit = sp.child.wait().ok();
        let _ = sp.stdout_thread.join();
        let stderr_out = sp.stderr_thread.join().unwrap_or_default();
        let output_of = |name: &str| combine_output(stdout_out.get(name), stderr_out.get(name));
        for mut r in pending {
            r.output = output_of(&r.name);
            on_result(r);
        }
        match ending {
            Ending::Stopped => return,
            Ending::TimedOut => {
                let (name, elapsed) = match &current {
                    Some((n, t)) => (n.clone(), t.elapsed().as_secs_f64()),
                    None => match remaining.front() {
                        Some(n) => (n.clone(), cfg.timeout.as_secs_f64()),
                        None => continue,
                    },
                };
                remaining.retain(|n| *n != name);
                let mut output = output_of(&name);
                if current.is_none() {
                    output.push_str(&output_of(""));
                }
                on_result(RawResult {
                    message: format!(
                        "no result after {:.1} s (timeout {:.1} s); the child process was killed",
                        elapsed,
                        cfg.timeout.as_secs_f64()
                    ),
                    output,
                    name,
                    status: RawStatus::Timeout,
                    duration: elapsed,
                });
            }
            Ending::Eof => {
                let how = describe_exit(exit);
                if let Some((name, t)) = &current {
                    remaining.retain(|n| n != name);
                    on_result(RawResult {
                        name: name.clone(),
                        status: RawStatus::Crash,
                        duration: t.elapsed().as_secs_f64(),
                        message: format!("{how} while running the test"),
                        output: output_of(name),
                    });
                } else if !started_any {
                    // Died before running anything: blame the first test so
                    // that the loop progresses.
                    if let Some(name) = remaining.pop_front() {
                        let clean_exit = exit.is_some_and(|e| e.code() == Some(0));
                        on_result(RawResult {
                            message: format!(
                                "{how} before starting the test{}",
                                if clean_exit {
                                    " (it ignored its test list)"
                                } else {
                                    ""
                                }
                            ),
                            output: output_of(""),
                            name,
                            status: RawStatus::Crash,
                            duration: 0.0,
                        });
                    }
                }
                // Otherwise the child exited between tests (on purpose after
                // a caught panic, code EXIT_AFTER_PANIC); the loop respawns
                // for the rest.
            }
        }
    }
}
