//! End-to-end tests of the runner: they run the built `pipe-cts` binary with
//! `PIPE_CTS_SELFTEST=1` over the `selftest.*` cases (which pass, fail, skip,
//! abort, segfault, panic, hang, flake and fake validation messages) and check
//! the files it writes and its exit codes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_pipe-cts");

/// A fresh scratch directory for one test.
fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pipe-cts-it-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn cmd(selftest: bool) -> Command {
    let mut c = Command::new(BIN);
    if selftest {
        c.env("PIPE_CTS_SELFTEST", "1");
    } else {
        c.env_remove("PIPE_CTS_SELFTEST");
    }
    c.env_remove("PIPE_VK_DEVICE")
        .env_remove("PIPE_VK_VALIDATION")
        .env_remove("LP_NUM_THREADS")
        .env_remove("PIPE_CTS_SELFTEST_DIR")
        .env("RUST_BACKTRACE", "0");
    c
}

struct Run {
    out: Output,
    dir: PathBuf,
}

impl Run {
    fn code(&self) -> i32 {
        self.out.status.code().expect("runner killed by a signal")
    }
    fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.out.stderr).into_owned()
    }
    fn file(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.join(name))
            .unwrap_or_else(|e| panic!("{name}: {e}\nstderr:\n{}", self.stderr()))
    }
    /// results.csv as name -> status.
    fn results(&self) -> BTreeMap<String, String> {
        self.file("results.csv")
            .lines()
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                assert_eq!(f.len(), 3, "bad results line {l:?}");
                f[2].parse::<f64>().expect("duration");
                (f[0].to_string(), f[1].to_string())
            })
            .collect()
    }
}

/// Runs `pipe-cts run --output <scratch>/out` with the arguments.
fn run(tag: &str, args: &[&str]) -> Run {
    let base = scratch(tag);
    run_in(&base, args, true)
}

fn run_in(base: &Path, args: &[&str], selftest: bool) -> Run {
    let dir = base.join("out");
    let out = cmd(selftest)
        .arg("run")
        .arg("--output")
        .arg(&dir)
        .args(["--jobs", "2", "--timeout", "20"])
        .args(args)
        .output()
        .unwrap();
    Run { out, dir }
}

fn expect(results: &BTreeMap<String, String>, want: &[(&str, &str)]) {
    let want: BTreeMap<String, String> = want
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(results, &want);
}

fn junit_doc(text: &str) -> roxmltree::Document<'_> {
    roxmltree::Document::parse(text)
        .unwrap_or_else(|e| panic!("junit.xml does not parse: {e}\n{text}"))
}

#[test]
fn list_shows_selftests_only_with_the_switch() {
    let out = cmd(false).arg("list").output().unwrap();
    assert!(out.status.success());
    let plain = String::from_utf8(out.stdout).unwrap();
    assert!(!plain.contains("selftest."), "{plain}");

    let out = cmd(true)
        .args(["list", "--include", "^selftest\\.(pass|fail)$"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "selftest.fail\nselftest.pass\n"
    );

    let out = cmd(true).arg("list").output().unwrap();
    let all = String::from_utf8(out.stdout).unwrap();
    for name in [
        "selftest.pass",
        "selftest.fail",
        "selftest.skip",
        "selftest.crash",
        "selftest.segfault",
        "selftest.hang",
        "selftest.flaky",
        "selftest.validation",
    ] {
        assert!(all.lines().any(|l| l == name), "{name} missing from\n{all}");
    }

    // Without the switch a run does not see them either.
    let base = scratch("noswitch");
    let r = run_in(&base, &["--include", "^selftest\\."], false);
    assert_eq!(r.code(), 0, "{}", r.stderr());
    assert_eq!(r.file("results.csv"), "");
}

#[test]
fn every_classification() {
    let r = run(
        "classify",
        &[
            "--timeout",
            "2",
            "--include",
            "^selftest\\.",
            "--progress-interval",
            "0",
        ],
    );
    assert_eq!(r.code(), 1, "{}", r.stderr());
    let results = r.results();
    expect(
        &results,
        &[
            ("selftest.crash", "Crash"),
            ("selftest.env", "Skip"),
            ("selftest.fail", "Fail"),
            ("selftest.flaky", "Flake"),
            ("selftest.hang", "Timeout"),
            ("selftest.image", "Fail"),
            ("selftest.output", "Fail"),
            ("selftest.panic", "Crash"),
            ("selftest.pass", "Pass"),
            ("selftest.segfault", "Crash"),
            ("selftest.skip", "Skip"),
            ("selftest.validation", "Pass"),
        ],
    );
    // failures.csv: the regressions, in baseline format.
    assert_eq!(
        r.file("failures.csv"),
        "selftest.crash,Crash\nselftest.fail,Fail\nselftest.hang,Timeout\nselftest.image,Fail\n\
         selftest.output,Fail\nselftest.panic,Crash\nselftest.segfault,Crash\n"
    );
    let summary = r.file("summary.txt");
    assert!(
        summary.contains("Crash:                       3\n"),
        "{summary}"
    );
    assert!(
        summary.contains("Total:                       12\n"),
        "{summary}"
    );
    assert!(summary.contains("Wall time:"), "{summary}");
    // Crash details and output reach the logs.
    assert!(r.file("selftest.crash.log").contains("signal 6 (SIGABRT)"));
    assert!(r
        .file("selftest.segfault.log")
        .contains("signal 11 (SIGSEGV)"));
    assert!(r
        .file("selftest.panic.log")
        .contains("panicked: deliberate panic"));
    assert!(r.file("selftest.hang.log").contains("timeout 2.0 s"));
    let out_log = r.file("selftest.output.log");
    assert!(
        out_log.contains("text on stdout without a newline"),
        "{out_log}"
    );
    assert!(out_log.contains("text on stderr"), "{out_log}");
    assert!(r
        .file("selftest.flaky.log")
        .contains("Fail on the first run, Pass on the re-run"));
    // The PNG triple of the failing image comparison.
    for k in ["got", "expected", "diff"] {
        let p = r.dir.join(format!("selftest.image.{k}.png"));
        let (w, h, _) = pipe_cts::image::read_png_rgba8(&p).unwrap();
        assert_eq!((w, h), (8, 4));
    }
    assert!(r.file("selftest.image.log").contains("first at (5, 2)"));
    // JUnit parses and agrees.
    let xml = r.file("junit.xml");
    let doc = junit_doc(&xml);
    let suite = doc
        .descendants()
        .find(|n| n.has_tag_name("testsuite"))
        .unwrap();
    assert_eq!(suite.attribute("tests"), Some("12"));
    assert_eq!(suite.attribute("failures"), Some("7"));
    assert_eq!(suite.attribute("skipped"), Some("2"));
    // stderr is not a terminal here: plain progress lines, no bar.
    let err = r.stderr();
    assert!(err.contains("pipe-cts: 12/12 tests"), "{err}");
    assert!(err.contains("Crash: selftest.segfault"), "{err}");
}

#[test]
fn validation_messages_fail_the_test() {
    // Without --validation the fake message is ignored.
    let r = run("noval", &["--include", "^selftest\\.(validation|env)$"]);
    assert_eq!(r.code(), 0, "{}", r.stderr());
    expect(
        &r.results(),
        &[("selftest.env", "Skip"), ("selftest.validation", "Pass")],
    );

    let r = run(
        "val",
        &[
            "--validation",
            "--include",
            "^selftest\\.(validation|env|pass)$",
        ],
    );
    assert_eq!(r.code(), 1, "{}", r.stderr());
    expect(
        &r.results(),
        &[
            ("selftest.env", "Skip"),
            ("selftest.pass", "Pass"),
            ("selftest.validation", "Fail"),
        ],
    );
    assert!(r
        .file("selftest.validation.log")
        .contains("SELFTEST-fake-VUID"));
    // ... and in the run's own log on stderr.
    assert!(r.stderr().contains("SELFTEST-fake-VUID"), "{}", r.stderr());
    let xml = r.file("junit.xml");
    let doc = junit_doc(&xml);
    let case = doc
        .descendants()
        .find(|n| n.attribute("name") == Some("selftest.validation"))
        .unwrap();
    let failure = case.children().find(|n| n.has_tag_name("failure")).unwrap();
    assert!(failure.text().unwrap().contains("SELFTEST-fake-VUID"));
    // The child was told: env and context agree.
    let env = doc
        .descendants()
        .find(|n| n.attribute("name") == Some("selftest.env"))
        .unwrap();
    let skipped = env.children().find(|n| n.has_tag_name("skipped")).unwrap();
    let msg = skipped.attribute("message").unwrap();
    assert!(msg.contains("validation=true"), "{msg}");
    assert!(msg.contains("PIPE_VK_VALIDATION=1"), "{msg}");
    assert!(msg.contains("LP_NUM_THREADS=2"), "{msg}");
}

#[test]
fn device_reaches_the_child() {
    let r = run(
        "device",
        &["--device", "llvmpipe", "--include", "^selftest\\.env$"],
    );
    assert_eq!(r.code(), 0, "{}", r.stderr());
    // Skips get no log file; the reason is in the JUnit <skipped> element.
    let xml = r.file("junit.xml");
    assert!(xml.contains("device=llvmpipe"), "{xml}");
    assert!(xml.contains("PIPE_VK_DEVICE=llvmpipe"), "{xml}");
    assert!(xml.contains("PIPE_VK_VALIDATION=&lt;unset&gt;"), "{xml}");
}

#[test]
fn exit_zero_when_nothing_regressed() {
    let base = scratch("clean");
    // Artifacts of an earlier run into the same directory are removed.
    let out = base.join("out");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("selftest.pass.log"), "stale").unwrap();
    std::fs::write(out.join("selftest.pass.diff.png"), "stale").unwrap();
    let r = run_in(
        &base,
        &["--include", "^selftest\\.(pass|skip|flaky)$"],
        true,
    );
    assert_eq!(r.code(), 0, "{}", r.stderr());
    expect(
        &r.results(),
        &[
            ("selftest.flaky", "Flake"),
            ("selftest.pass", "Pass"),
            ("selftest.skip", "Skip"),
        ],
    );
    assert_eq!(r.file("failures.csv"), "");
    assert!(!out.join("selftest.pass.log").exists());
    assert!(!out.join("selftest.pass.diff.png").exists());

    // Defaults for --jobs and --timeout.
    let out = cmd(true)
        .args(["run", "--include", "^selftest\\.pass$", "--output"])
        .arg(base.join("defaults"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn baseline_expected_fail_improvement_and_missing() {
    let base = scratch("baseline");
    let fails = base.join("fails.txt");
    std::fs::write(
        &fails,
        "# expected failures\nselftest.fail,Fail\nselftest.crash,Crash\n\n",
    )
    .unwrap();
    let r = run_in(
        &base,
        &[
            "--baseline",
            fails.to_str().unwrap(),
            "--include",
            "^selftest\\.(fail|crash|pass)$",
        ],
        true,
    );
    assert_eq!(r.code(), 0, "{}", r.stderr());
    expect(
        &r.results(),
        &[
            ("selftest.crash", "ExpectedFail"),
            ("selftest.fail", "ExpectedFail"),
            ("selftest.pass", "Pass"),
        ],
    );
    assert_eq!(r.file("failures.csv"), "");

    std::fs::write(
        &fails,
        "selftest.fail,Fail\nselftest.pass,Fail\nselftest.skip,Crash\nselftest.output,Crash\n\
         selftest.gone,Fail\n",
    )
    .unwrap();
    let r = run_in(
        &base,
        &[
            "--baseline",
            fails.to_str().unwrap(),
            "--include",
            "^selftest\\.(fail|pass|skip|output)$",
        ],
        true,
    );
    assert_eq!(r.code(), 1, "{}", r.stderr());
    expect(
        &r.results(),
        &[
            ("selftest.fail", "ExpectedFail"),
            ("selftest.gone", "Missing"),
            ("selftest.output", "UnexpectedImprovement(Fail)"),
            ("selftest.pass", "UnexpectedImprovement(Pass)"),
            ("selftest.skip", "UnexpectedImprovement(Skip)"),
        ],
    );
    assert_eq!(
        r.file("failures.csv"),
        "selftest.gone,Missing\nselftest.output,UnexpectedImprovement(Fail)\n\
         selftest.pass,UnexpectedImprovement(Pass)\nselftest.skip,UnexpectedImprovement(Skip)\n"
    );
}

#[test]
fn failures_csv_serves_as_the_next_baseline() {
    let base = scratch("rebase");
    let first = base.join("first");
    let out = cmd(true)
        .args([
            "run",
            "--jobs",
            "2",
            "--include",
            "^selftest\\.(fail|crash|segfault|pass|image)$",
            "--output",
        ])
        .arg(&first)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let baseline = first.join("failures.csv");
    let r = run_in(
        &base,
        &[
            "--baseline",
            baseline.to_str().unwrap(),
            "--include",
            "^selftest\\.(fail|crash|segfault|pass|image)$",
        ],
        true,
    );
    assert_eq!(r.code(), 0, "{}", r.stderr());
    expect(
        &r.results(),
        &[
            ("selftest.crash", "ExpectedFail"),
            ("selftest.fail", "ExpectedFail"),
            ("selftest.image", "ExpectedFail"),
            ("selftest.pass", "Pass"),
            ("selftest.segfault", "ExpectedFail"),
        ],
    );
    // results.csv (with durations) parses as a baseline too.
    let r2 = run_in(
        &base,
        &[
            "--baseline",
            first.join("results.csv").to_str().unwrap(),
            "--include",
            "^selftest\\.fail$",
        ],
        true,
    );
    assert_eq!(r2.code(), 0, "{}", r2.stderr());
}

#[test]
fn skips_and_flakes_files() {
    let base = scratch("skipflake");
    let skips = base.join("skips.txt");
    let flakes = base.join("flakes.txt");
    std::fs::write(
        &skips,
        "# slow or dangerous\nselftest\\.hang\n\n  selftest\\.cra.*  \n",
    )
    .unwrap();
    std::fs::write(&flakes, "# known flaky\nselftest\\.fail$\n").unwrap();
    let r = run_in(
        &base,
        &[
            "--skips",
            skips.to_str().unwrap(),
            "--flakes",
            flakes.to_str().unwrap(),
            "--include",
            "^selftest\\.(hang|crash|fail|pass)$",
        ],
        true,
    );
    assert_eq!(r.code(), 0, "{}", r.stderr());
    expect(
        &r.results(),
        &[
            ("selftest.crash", "Skip"),
            ("selftest.fail", "Flake"),
            ("selftest.hang", "Skip"),
            ("selftest.pass", "Pass"),
        ],
    );
    assert!(r.file("selftest.fail.log").contains("known flake"));
}

#[test]
fn caselist_and_fraction() {
    let base = scratch("fraction");
    let r = run_in(
        &base,
        &[
            "--include",
            "^selftest\\.(pass|skip|validation|flaky|fail)$",
            "--fraction",
            "2",
            "--fraction-start",
            "2",
        ],
        true,
    );
    assert_eq!(r.code(), 0, "{}", r.stderr());
    // Sorted: fail, flaky, pass, skip, validation; every 2nd from the 2nd.
    expect(
        &r.results(),
        &[("selftest.flaky", "Flake"), ("selftest.skip", "Skip")],
    );

    let caselist = base.join("caselist.txt");
    std::fs::write(
        &caselist,
        "selftest.pass\n# comment\nselftest.skip\nselftest.nonexistent\n",
    )
    .unwrap();
    let r = run_in(&base, &["--caselist", caselist.to_str().unwrap()], true);
    assert_eq!(r.code(), 1, "{}", r.stderr());
    expect(
        &r.results(),
        &[
            ("selftest.nonexistent", "Missing"),
            ("selftest.pass", "Pass"),
            ("selftest.skip", "Skip"),
        ],
    );
}

#[test]
fn max_fails_stops_the_run() {
    let r = run(
        "maxfails",
        &[
            "--max-fails",
            "1",
            "--jobs",
            "1",
            "--tests-per-group",
            "1",
            "--include",
            "^selftest\\.(crash|fail|image|output|panic|segfault)$",
        ],
    );
    assert_eq!(r.code(), 1, "{}", r.stderr());
    // The worker may start another group or two before the main thread sees
    // the first regression; it must not run all six.
    let n = r.results().len();
    assert!(
        (1..=4).contains(&n),
        "ran {n} of 6 tests despite --max-fails 1"
    );
    let summary = r.file("summary.txt");
    assert!(
        summary.contains("Stopped after 1 regression(s) (--max-fails)"),
        "{summary}"
    );
}

#[test]
fn crashes_and_hangs_respawn_the_group() {
    // One job, one group: every death must respawn a child for the rest.
    let r = run(
        "respawn",
        &[
            "--jobs",
            "1",
            "--tests-per-group",
            "50",
            "--timeout",
            "2",
            "--include",
            "^selftest\\.(crash|hang|panic|pass|segfault|skip)$",
        ],
    );
    assert_eq!(r.code(), 1, "{}", r.stderr());
    expect(
        &r.results(),
        &[
            ("selftest.crash", "Crash"),
            ("selftest.hang", "Timeout"),
            ("selftest.panic", "Crash"),
            ("selftest.pass", "Pass"),
            ("selftest.segfault", "Crash"),
            ("selftest.skip", "Skip"),
        ],
    );
}

#[test]
fn bad_inputs_give_clear_errors() {
    let base = scratch("badinput");
    let bad = base.join("bad-fails.txt");
    std::fs::write(&bad, "selftest.fail,Fail\nselftest.crash Crash\n").unwrap();
    let r = run_in(&base, &["--baseline", bad.to_str().unwrap()], true);
    assert_eq!(r.code(), 2);
    let err = r.stderr();
    assert!(
        err.contains("bad-fails.txt:2: expected `name,Status`"),
        "{err}"
    );
    assert!(
        !r.dir.join("results.csv").exists(),
        "nothing runs on bad input"
    );

    std::fs::write(&bad, "selftest.fail,Failure\n").unwrap();
    let r = run_in(&base, &["--baseline", bad.to_str().unwrap()], true);
    assert_eq!(r.code(), 2);
    assert!(
        r.stderr()
            .contains("bad-fails.txt:1: unknown status \"Failure\""),
        "{}",
        r.stderr()
    );

    let skips = base.join("skips.txt");
    std::fs::write(&skips, "ok\n(unclosed\n").unwrap();
    let r = run_in(&base, &["--skips", skips.to_str().unwrap()], true);
    assert_eq!(r.code(), 2);
    assert!(
        r.stderr().contains("skips.txt:2: bad regular expression"),
        "{}",
        r.stderr()
    );

    let r = run_in(
        &base,
        &["--flakes", base.join("nope.txt").to_str().unwrap()],
        true,
    );
    assert_eq!(r.code(), 2);
    assert!(r.stderr().contains("nope.txt"), "{}", r.stderr());

    let r = run_in(&base, &["--fraction", "0"], true);
    assert_eq!(r.code(), 2);
}

#[test]
fn junit_command_converts_results_csv() {
    let base = scratch("junit");
    let results = base.join("results.csv");
    std::fs::write(
        &results,
        "pipe.a.pass,Pass,0.1\npipe.a.fail,Fail,0.2\npipe.b.skip,Skip,0\npipe.c.x,ExpectedFail,1.5\n\
         pipe.d<&>,UnexpectedImprovement(Pass),0.0\n",
    )
    .unwrap();
    let xml_path = base.join("junit.xml");
    let out = cmd(false)
        .args(["junit", "--results"])
        .arg(&results)
        .arg("--output")
        .arg(&xml_path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let xml = std::fs::read_to_string(&xml_path).unwrap();
    let doc = junit_doc(&xml);
    let cases: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    assert_eq!(cases.len(), 5);
    let suite = doc
        .descendants()
        .find(|n| n.has_tag_name("testsuite"))
        .unwrap();
    assert_eq!(suite.attribute("failures"), Some("2"));
    assert_eq!(suite.attribute("skipped"), Some("1"));
    let odd = cases
        .iter()
        .find(|c| c.attribute("name") == Some("pipe.d<&>"))
        .unwrap();
    assert_eq!(odd.attribute("classname"), Some("pipe"));
    assert!(odd
        .children()
        .any(|n| n.has_tag_name("failure")
            && n.attribute("type") == Some("UnexpectedImprovement(Pass)")));

    std::fs::write(&results, "pipe.a.pass,Pass,0.1\ngarbage\n").unwrap();
    let out = cmd(false)
        .args(["junit", "--results"])
        .arg(&results)
        .arg("--output")
        .arg(&xml_path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("results.csv:2:"));
}

#[test]
fn run_over_the_current_suite_writes_all_files() {
    // The real suite (no self-tests); --include selects nothing so this
    // stays fast whatever the suite holds: the files are still written.
    let base = scratch("empty");
    let r = run_in(&base, &["--include", "^no-such-test$"], false);
    assert_eq!(r.code(), 0, "{}", r.stderr());
    for f in ["results.csv", "failures.csv", "junit.xml", "summary.txt"] {
        assert!(r.dir.join(f).is_file(), "{f} not written");
    }
    junit_doc(&r.file("junit.xml"));
    assert!(r
        .file("summary.txt")
        .contains("Total:                       0"));
}
