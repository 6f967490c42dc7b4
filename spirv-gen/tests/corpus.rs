//! The corpus: every `tests/corpus/*.ir` is parsed, checked to print back
//! identically, validated, lowered with the default key and with each key
//! listed for it in `tests/corpus/keys.txt`, optimized, re-validated,
//! emitted for vulkan1.1 and vulkan1.3 and checked with spirv-val. The
//! vulkan1.1 disassembly of the last key is compared with
//! `tests/corpus/snapshots/NAME.spvasm` (written when missing or when
//! `UPDATE_SNAPSHOTS=1`).
mod common;

use spirv_gen::emit;
use spirv_gen::passes::{self, VariantKey};
use spirv_gen::text;
use spirv_gen::validate::validate;
use std::path::{Path, PathBuf};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

fn corpus_files() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ir"))
        .collect();
    v.sort();
    v
}

fn keys_for(name: &str) -> Vec<(String, VariantKey)> {
    let keys = std::fs::read_to_string(corpus_dir().join("keys.txt")).unwrap_or_default();
    let mut v = vec![(String::new(), VariantKey::default())];
    for line in keys.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (n, k) = line.split_once(':').expect("keys.txt: NAME.ir: KEY");
        if n.trim() == name {
            let k = k.trim();
            v.push((
                k.to_string(),
                VariantKey::parse(k).unwrap_or_else(|e| panic!("{name}: bad key {k}: {e}")),
            ));
        }
    }
    v
}

#[test]
fn corpus_is_large_enough() {
    assert!(
        corpus_files().len() >= 60,
        "corpus has {} shaders",
        corpus_files().len()
    );
}

#[test]
fn corpus() {
    let update = std::env::var("UPDATE_SNAPSHOTS").is_ok_and(|v| v == "1");
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in corpus_files() {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let src = std::fs::read_to_string(&path).unwrap();
        let r = (|| -> Result<(), String> {
            let s = text::parse(&src).map_err(|e| format!("parse: {e}"))?;
            let printed = text::print(&s);
            if printed != src {
                return Err(format!("round trip differs:\n--- printed\n{printed}"));
            }
            validate(&s).map_err(|e| format!("validate: {e}"))?;
            let mut last = String::new();
            for (kname, key) in keys_for(&name) {
                let mut l = s.clone();
                passes::lower(&mut l, &key).map_err(|e| format!("lower [{kname}]: {e}"))?;
                passes::optimize(&mut l);
                validate(&l).map_err(|e| {
                    format!(
                        "validate after lowering [{kname}]: {e}\n{}",
                        text::print(&l)
                    )
                })?;
                for t in common::TARGETS {
                    let words = emit::emit(&l, t)
                        .map_err(|e| format!("emit [{kname}] {}: {e}", t.name()))?;
                    let again = emit::emit(&l, t).unwrap();
                    if words != again {
                        return Err("emission is not deterministic".into());
                    }
                    common::spirv_val(&words, t).map_err(|e| {
                        format!(
                            "spirv-val [{kname}] {}: {e}\n{}",
                            t.name(),
                            common::disassemble(&words)
                        )
                    })?;
                    checked += 1;
                    if t == emit::Target::Vulkan1_1 {
                        last = format!("; key: {kname}\n{}\n", common::disassemble(&words));
                    }
                }
            }
            let snap = corpus_dir()
                .join("snapshots")
                .join(name.replace(".ir", ".spvasm"));
            match std::fs::read_to_string(&snap) {
                Ok(old) if !update => {
                    if old != last {
                        return Err(format!(
                            "snapshot {} differs (UPDATE_SNAPSHOTS=1 to accept)",
                            snap.display()
                        ));
                    }
                }
                _ => std::fs::write(&snap, last).unwrap(),
            }
            Ok(())
        })();
        if let Err(e) = r {
            failures.push(format!("{name}: {e}"));
        }
    }
    eprintln!("corpus: {checked} modules spirv-val clean");
    if !failures.is_empty() {
        panic!(
            "{} corpus failures:\n{}",
            failures.len(),
            failures.join("\n\n")
        );
    }
}
