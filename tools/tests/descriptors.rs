//! `pipe-bench descriptors` end to end, on the real default device
//! (lavapipe in CI), under the Khronos validation layer with
//! synchronization validation: a tiny run must print a figure for every
//! strategy of every scenario, report zero validation messages and exit 0.
//! The figures themselves are not checked (timings under validation mean
//! nothing); the command's own read-back check is what makes a figure
//! trustworthy, and a failed check exits 1, which fails this test.

use std::process::{Command, Output};

use pipe_tools::descriptors::Scenario;

fn pipe_bench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pipe-bench"))
        .args(args)
        .output()
        .expect("running pipe-bench")
}

#[test]
fn every_strategy_reports_a_figure_under_validation() {
    let out = pipe_bench(&[
        "--validation",
        "descriptors",
        "--draws",
        "16",
        "--repetitions",
        "1",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "pipe-bench descriptors failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    let lavapipe = stdout
        .lines()
        .next()
        .is_some_and(|l| l.contains("llvmpipe"));
    assert!(
        stdout.lines().any(|l| l == "validation messages: 0"),
        "no clean validation line:\n{stdout}"
    );
    for sc in Scenario::ALL {
        // The scenario's table: from its label to the next blank line.
        let table: Vec<&str> = stdout
            .lines()
            .skip_while(|l| *l != sc.label())
            .skip(1)
            .take_while(|l| !l.trim().is_empty())
            .collect();
        assert!(!table.is_empty(), "no table for {}:\n{stdout}", sc.key());
        for st in sc.strategies() {
            let line = table
                .iter()
                .find(|l| l.split_whitespace().next() == Some(st.key()))
                .unwrap_or_else(|| panic!("no line for {}/{}:\n{stdout}", sc.key(), st.key()));
            let figure = line
                .split_whitespace()
                .nth(1)
                .and_then(|f| f.parse::<f64>().ok());
            match figure {
                Some(k) => assert!(k > 0.0, "{}/{}: {line}", sc.key(), st.key()),
                // Lavapipe has every extension the strategies need; another
                // device may skip some, never fail them.
                None if !lavapipe && line.contains("skipped:") => {}
                None => panic!("{}/{} has no figure: {line}", sc.key(), st.key()),
            }
        }
    }
}

#[test]
fn json_output_names_every_strategy() {
    let out = pipe_bench(&[
        "--json",
        "descriptors",
        "--draws",
        "4",
        "--repetitions",
        "1",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.starts_with("{\"benchmark\": \"descriptors\""),
        "{stdout}"
    );
    for sc in Scenario::ALL {
        assert!(
            stdout.contains(&format!("\"key\": \"{}\"", sc.key())),
            "{stdout}"
        );
        for st in sc.strategies() {
            assert!(
                stdout.contains(&format!("\"key\": \"{}\"", st.key())),
                "{stdout}"
            );
        }
    }
}

#[test]
fn odd_draw_counts_are_refused() {
    // The read-back check needs the last two draws to be states A and B.
    let out = pipe_bench(&["descriptors", "--draws", "15"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--draws must be even"), "{stderr}");
}
