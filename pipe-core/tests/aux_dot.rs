//! The generated diagram against the spec text and against hand tables.
//!
//! `SPEC_ARROWS` is the ASCII diagram of `shared/spec/aux-state-machine.txt`
//! (the comment of isl.h) transcribed by hand, arrow by arrow: the copy of
//! the spec in this project has lost its column alignment, so it cannot be
//! parsed mechanically. `OPS`/`WRITES` restate, by hand, the transitions of
//! the seven-state isl (the same values as `aux_tables.rs`); the diagram must
//! draw exactly those.

use std::collections::BTreeSet;

use pipe_core::aux::{to_dot, AuxOp, AuxState, AuxUsage};

use AuxState::*;
use AuxUsage as U;

/// Every arrow of the spec's diagram: (from, to, label). The diagram leaves
/// out fast clears ("all valid and useful transitions except clear").
const SPEC_ARROWS: [(AuxState, AuxState, &str); 14] = [
    // Loop on the left of "Compressed w/ Clear".
    (CompressedClear, CompressedClear, "Draw w/ Aux"),
    (Clear, CompressedClear, "Draw w/ Aux"),
    (CompressedClear, CompressedNoClear, "Partial Resolve"),
    (CompressedClear, Resolved, "Full Resolve"),
    (Clear, Resolved, "Full Resolve"),
    // Loop on the left of "Compressed w/o Clear".
    (CompressedNoClear, CompressedNoClear, "Draw w/ Aux"),
    (CompressedNoClear, Resolved, "Full Resolve"),
    (Resolved, CompressedNoClear, "Draw w/ Aux"),
    // "Draw w/ Aux" rising from Pass-through to Compressed w/o Clear.
    (PassThrough, CompressedNoClear, "Draw w/ Aux"),
    (Resolved, PassThrough, "Ambiguate"),
    (Resolved, AuxInvalid, "Draw w/o Aux"),
    // Loop on the left of "Pass-through".
    (PassThrough, PassThrough, "Draw w/o Aux"),
    (AuxInvalid, PassThrough, "Ambiguate"),
    // Loop on the right of "Aux Invalid".
    (AuxInvalid, AuxInvalid, "Draw w/o Aux"),
];

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Edge {
    from: String,
    to: String,
    action: String,
    /// "" (partial and full writes, or an op), "partial" or "full surface".
    coverage: String,
}

/// Parses the edges of `to_dot`'s output: `A -> B [label="..."];`.
fn edges(dot: &str) -> Vec<Edge> {
    let mut out = Vec::new();
    for line in dot.lines() {
        let Some((lhs, rest)) = line.split_once(" -> ") else {
            continue;
        };
        let from = lhs.trim().to_string();
        let (to, attrs) = rest.split_once(' ').expect("edge without attributes");
        let label = attrs
            .split_once("label=\"")
            .and_then(|(_, l)| l.split_once('"'))
            .map(|(l, _)| l)
            .expect("edge without label");
        let first_line = label.split("\\n").next().unwrap_or("");
        let (action, coverage) = match first_line.split_once(" (") {
            Some((a, c)) => (a.to_string(), c.trim_end_matches(')').to_string()),
            None => (first_line.to_string(), String::new()),
        };
        out.push(Edge {
            from,
            to: to.to_string(),
            action,
            coverage,
        });
    }
    out
}

#[test]
fn all_usage_diagram_has_every_spec_arrow() {
    let dot = to_dot(None);
    assert!(dot.starts_with("digraph"));
    assert!(dot.trim_end().ends_with('}'));
    let got = edges(&dot);
    for (from, to, label) in SPEC_ARROWS {
        assert!(
            got.iter().any(|e| e.from == format!("{from:?}")
                && e.to == format!("{to:?}")
                && e.action == label),
            "spec arrow {from:?} -[{label}]-> {to:?} missing from\n{dot}"
        );
    }
    // Every state is a node, labelled with the spec's name.
    for s in AuxState::ALL {
        assert!(
            dot.contains(&format!("    {s:?} [label=\"{}\"];", s.spec_name())),
            "{s:?}"
        );
    }
}

// Hand tables (see aux_tables.rs for the full derivation).
type S = Option<AuxState>;
const E: S = None;
const CL: S = Some(Clear);
const PC: S = Some(PartialClear);
const CC: S = Some(CompressedClear);
const CN: S = Some(CompressedNoClear);
const RE: S = Some(Resolved);
const PT: S = Some(PassThrough);
const AI: S = Some(AuxInvalid);

const STATES: [AuxState; 7] = [
    Clear,
    PartialClear,
    CompressedClear,
    CompressedNoClear,
    Resolved,
    PassThrough,
    AuxInvalid,
];

/// Possible states per usage, by hand.
fn possible(u: AuxUsage) -> [bool; 7] {
    const T: bool = true;
    const F: bool = false;
    match u {
        U::None => [F, F, F, F, T, T, T],
        U::CcsD => [T, T, F, F, T, T, T],
        U::Mc | U::StcCcs => [F, F, F, T, T, T, T],
        _ => [T; 7],
    }
}

/// Per state: FastClear, FullResolve, PartialResolve, Ambiguate.
#[rustfmt::skip]
fn ops(u: AuxUsage) -> [[S; 4]; 7] {
    match u {
        U::None => [[E; 4]; 7],
        U::Hiz | U::HizCcsWt | U::HizCcs => [
            [CL, RE, E, PT], [CL, RE, E, PT], [CL, RE, E, PT], [CL, RE, E, PT],
            [CL, RE, E, PT], [CL, PT, E, PT], [CL, E, E, PT],
        ],
        U::Mcs | U::McsCcs => [
            [CL, RE, CN, PT], [CL, RE, CN, PT], [CL, RE, CN, PT], [CL, RE, CN, PT],
            [CL, RE, RE, PT], [CL, PT, PT, PT], [CL, E, E, PT],
        ],
        U::CcsE | U::FcvCcsE => [
            [CL, PT, CN, PT], [CL, PT, CN, PT], [CL, PT, CN, PT], [CL, PT, CN, PT],
            [CL, PT, RE, PT], [CL, PT, PT, PT], [CL, E, E, PT],
        ],
        U::CcsD => [
            [CL, PT, E, PT], [CL, PT, E, PT], [E; 4], [E; 4],
            [CL, PT, E, PT], [CL, PT, E, PT], [CL, E, E, PT],
        ],
        U::Mc | U::StcCcs => [
            [E; 4], [E; 4], [E; 4], [E, PT, E, PT],
            [E, PT, E, PT], [E, PT, E, PT], [E, E, E, PT],
        ],
    }
}

/// Per state: [partial write, full write].
#[rustfmt::skip]
fn writes(u: AuxUsage) -> [[S; 2]; 7] {
    match u {
        U::None => [[E, AI], [E, AI], [E, AI], [E, AI], [AI, AI], [PT, PT], [AI, AI]],
        U::Hiz | U::HizCcsWt | U::HizCcs | U::Mcs | U::McsCcs | U::CcsE =>
            [[CC, CN], [CC, CN], [CC, CN], [CN, CN], [CN, CN], [CN, CN], [E, E]],
        U::FcvCcsE => [[CC, CC], [CC, CC], [CC, CC], [CC, CC], [CC, CC], [CC, CC], [E, E]],
        U::CcsD => [[PC, PT], [PC, PT], [E, E], [E, E], [RE, PT], [PT, PT], [E, E]],
        U::Mc => [[E, E], [E, E], [E, E], [CN, PT], [RE, PT], [PT, PT], [E, E]],
        U::StcCcs => [[E, E], [E, E], [E, E], [CN, CN], [CN, CN], [CN, CN], [E, E]],
    }
}

/// The edges the hand tables say a diagram of `u` must have, exactly.
fn expected_edges(u: AuxUsage) -> BTreeSet<Edge> {
    let op_names = [
        AuxOp::FastClear,
        AuxOp::FullResolve,
        AuxOp::PartialResolve,
        AuxOp::Ambiguate,
    ]
    .map(|op| op.spec_name());
    let mut out = BTreeSet::new();
    let mut push = |from: AuxState, to: AuxState, action: &str, coverage: &str| {
        out.insert(Edge {
            from: format!("{from:?}"),
            to: format!("{to:?}"),
            action: action.to_string(),
            coverage: coverage.to_string(),
        });
    };
    let coverage = |partial: S, full: S, to: AuxState| match (partial == Some(to), full == Some(to))
    {
        (true, true) => "",
        (true, false) => "partial",
        (false, true) => "full surface",
        (false, false) => unreachable!(),
    };
    let ok = possible(u);
    let ops = ops(u);
    let with_aux = writes(u);
    let without_aux = writes(U::None);
    for i in 0..7 {
        if !ok[i] {
            continue;
        }
        let from = STATES[i];
        for (name, to) in op_names.iter().zip(ops[i]) {
            if let Some(to) = to {
                push(from, to, name, "");
            }
        }
        for (label, pair, applies) in [
            ("Draw w/ Aux", with_aux[i], u != U::None),
            ("Draw w/o Aux", without_aux[i], true),
        ] {
            if !applies {
                continue;
            }
            for to in pair.into_iter().flatten() {
                push(from, to, label, coverage(pair[0], pair[1], to));
            }
        }
    }
    out
}

#[test]
fn per_usage_diagram_matches_hand_tables_exactly() {
    for u in AuxUsage::ALL {
        let dot = to_dot(Some(u));
        let got: BTreeSet<Edge> = edges(&dot).into_iter().collect();
        let want = expected_edges(u);
        let extra: Vec<_> = got.difference(&want).collect();
        let missing: Vec<_> = want.difference(&got).collect();
        assert!(
            extra.is_empty(),
            "{u:?}: edges the table lacks: {extra:#?}\n{dot}"
        );
        assert!(
            missing.is_empty(),
            "{u:?}: table transitions not drawn: {missing:#?}\n{dot}"
        );
        // Only the states possible for the usage are nodes.
        for (s, ok) in STATES.into_iter().zip(possible(u)) {
            assert_eq!(
                dot.contains(&format!("    {s:?} [label=")),
                ok,
                "{u:?} {s:?}"
            );
        }
    }
}

#[test]
fn all_usage_diagram_is_the_union() {
    let all: BTreeSet<(String, String, String)> = edges(&to_dot(None))
        .into_iter()
        .map(|e| (e.from, e.to, e.action))
        .collect();
    let mut union = BTreeSet::new();
    for u in AuxUsage::ALL {
        for e in expected_edges(u) {
            union.insert((e.from, e.to, e.action));
        }
    }
    assert_eq!(all, union);
}

#[test]
fn all_usage_diagram_lists_usages() {
    let dot = to_dot(None);
    // Partial resolves exist for MCS and CCS_E-like usages only.
    let line = dot
        .lines()
        .find(|l| {
            l.contains("CompressedClear -> CompressedNoClear") && l.contains("Partial Resolve")
        })
        .expect("partial resolve edge");
    assert!(line.contains("Mcs, CcsE, FcvCcsE, McsCcs"), "{line}");
    // Ambiguate from AuxInvalid works for every usage with aux.
    let line = dot
        .lines()
        .find(|l| l.contains("AuxInvalid -> PassThrough") && l.contains("Ambiguate"))
        .expect("ambiguate edge");
    assert!(line.contains("any aux usage"), "{line}");
}
