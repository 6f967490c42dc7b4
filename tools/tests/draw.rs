//! `pipe-bench draw` end to end on the real default device: the
//! `--pin-malloc-trim` switch reaches the report (and the children's
//! environment), adds to an inherited `GLIBC_TUNABLES` instead of
//! replacing it, and is refused with `--in-process`, where it could not
//! take effect. The figures themselves are not checked.

use std::process::{Command, Output};

const PINNED: &str = "glibc.malloc.trim_threshold=268435456:glibc.malloc.mmap_threshold=33554432";

fn pipe_bench(args: &[&str], tunables: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pipe-bench"));
    cmd.args(args);
    match tunables {
        Some(t) => cmd.env("GLIBC_TUNABLES", t),
        None => cmd.env_remove("GLIBC_TUNABLES"),
    };
    cmd.output().expect("running pipe-bench")
}

/// The report's `glibc_tunables`, and whether scenario 4 got a figure.
fn run_texture_scenario(extra: &[&str], tunables: Option<&str>) -> (String, bool) {
    let mut args = vec!["--json", "draw", "--scenarios", "4", "--duration-ms", "20"];
    args.extend_from_slice(extra);
    let out = pipe_bench(&args, tunables);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "pipe-bench draw failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let field = stdout
        .split("\"glibc_tunables\": ")
        .nth(1)
        .and_then(|rest| rest.split(", \"anchors_source\"").next())
        .unwrap_or_else(|| panic!("no glibc_tunables in {stdout}"))
        .to_string();
    (field, stdout.contains("\"k_draws_s\""))
}

#[test]
fn pinned_trim_threshold_is_recorded_and_appended() {
    let (field, measured) = run_texture_scenario(&["--pin-malloc-trim"], None);
    assert_eq!(field, format!("\"{PINNED}\""));
    assert!(measured, "scenario 4 has no figure");

    let inherited = "glibc.malloc.check=0";
    let (field, _) = run_texture_scenario(&["--pin-malloc-trim"], Some(inherited));
    assert_eq!(field, format!("\"{inherited}:{PINNED}\""));

    let (field, _) = run_texture_scenario(&[], None);
    assert_eq!(field, "null");
}

#[test]
fn pinned_trim_threshold_is_refused_in_process() {
    let out = pipe_bench(
        &[
            "draw",
            "--in-process",
            "--pin-malloc-trim",
            "--scenarios",
            "4",
        ],
        None,
    );
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--pin-malloc-trim") && stderr.contains("--in-process"),
        "{stderr}"
    );
}
