//! Every usage x state x argument of the aux state machine, checked against
//! tables written by hand.
//!
//! The expected values were worked out on paper from Mesa's
//! `isl_aux_info.c` (seven-state form, see the module doc of
//! `pipe_core::aux`) and the spec text, and cross-checked against the cases
//! of Mesa's own `src/intel/isl/tests/isl_aux_info_test.cpp`. They are not
//! produced by calling the code under test. `E`/`X` mark combinations on
//! which isl asserts; here they must be `Err`.

use pipe_core::aux::{
    aux_state_possible, has_ccs, has_ccs_e, has_compression, has_fast_clears, has_hiz, has_mcs,
    initial_state, initial_state_for_gfx, prepare_access, state_has_valid_aux,
    state_has_valid_primary, transition_aux_op, transition_write, AuxOp, AuxState, AuxUsage,
    WriteBehavior,
};

use AuxUsage as U;

// ---------------------------------------------------------------------------
// Short names for the tables.

type S = Option<AuxState>;
const E: S = None; // isl asserts
const CL: S = Some(AuxState::Clear);
const PC: S = Some(AuxState::PartialClear);
const CC: S = Some(AuxState::CompressedClear);
const CN: S = Some(AuxState::CompressedNoClear);
const RE: S = Some(AuxState::Resolved);
const PT: S = Some(AuxState::PassThrough);
const AI: S = Some(AuxState::AuxInvalid);

type O = Option<AuxOp>;
const X: O = None; // isl asserts
const NO: O = Some(AuxOp::None);
const FR: O = Some(AuxOp::FullResolve);
const PR: O = Some(AuxOp::PartialResolve);
const AM: O = Some(AuxOp::Ambiguate);

/// Row order of every per-state table below.
const STATES: [AuxState; 7] = [
    AuxState::Clear,
    AuxState::PartialClear,
    AuxState::CompressedClear,
    AuxState::CompressedNoClear,
    AuxState::Resolved,
    AuxState::PassThrough,
    AuxState::AuxInvalid,
];

/// Column order of the aux-op table.
const OPS: [AuxOp; 5] = [
    AuxOp::None,
    AuxOp::FastClear,
    AuxOp::FullResolve,
    AuxOp::PartialResolve,
    AuxOp::Ambiguate,
];

const USAGES: [AuxUsage; 11] = [
    U::None,
    U::Hiz,
    U::Mcs,
    U::CcsD,
    U::CcsE,
    U::FcvCcsE,
    U::Mc,
    U::HizCcsWt,
    U::HizCcs,
    U::McsCcs,
    U::StcCcs,
];

// ---------------------------------------------------------------------------
// Usage properties (isl's info[] table and the isl.h helpers).

struct Props {
    usage: AuxUsage,
    hiz: bool,
    mcs: bool,
    ccs: bool,
    ccs_e: bool,
    compressed: bool,
    fast_clear: bool,
    partial_resolve: bool,
    full_resolves_ambiguate: bool,
    write: WriteBehavior,
}

const fn p(
    usage: AuxUsage,
    [hiz, mcs, ccs, ccs_e]: [bool; 4],
    [compressed, fast_clear, partial_resolve, full_resolves_ambiguate]: [bool; 4],
    write: WriteBehavior,
) -> Props {
    Props {
        usage,
        hiz,
        mcs,
        ccs,
        ccs_e,
        compressed,
        fast_clear,
        partial_resolve,
        full_resolves_ambiguate,
        write,
    }
}

const T: bool = true;
const F: bool = false;

#[rustfmt::skip]
const PROPS: [Props; 11] = {
    use WriteBehavior::*;
    [
        //               hiz mcs ccs ccs_e    c  fc pr fra
        p(U::None,     [F, F, F, F],        [F, F, F, F], OnlyTouchMain),
        p(U::Hiz,      [T, F, F, F],        [T, T, F, F], Compress),
        p(U::Mcs,      [F, T, F, F],        [T, T, T, F], Compress),
        p(U::CcsD,     [F, F, T, F],        [F, T, F, T], ResolveAmbiguate),
        p(U::CcsE,     [F, F, T, T],        [T, T, T, T], Compress),
        p(U::FcvCcsE,  [F, F, T, T],        [T, T, T, T], CompressClear),
        p(U::Mc,       [F, F, T, F],        [T, F, F, T], ResolveAmbiguate),
        p(U::HizCcsWt, [T, F, T, F],        [T, T, F, F], Compress),
        p(U::HizCcs,   [T, F, T, F],        [T, T, F, F], Compress),
        p(U::McsCcs,   [F, T, T, F],        [T, T, T, F], Compress),
        p(U::StcCcs,   [F, F, T, F],        [T, F, F, T], Compress),
    ]
};

#[test]
fn usage_properties() {
    assert_eq!(AuxUsage::ALL, USAGES);
    for row in &PROPS {
        let u = row.usage;
        assert_eq!(has_hiz(u), row.hiz, "has_hiz({u:?})");
        assert_eq!(u.has_hiz(), row.hiz, "{u:?}.has_hiz()");
        assert_eq!(has_mcs(u), row.mcs, "has_mcs({u:?})");
        assert_eq!(u.has_mcs(), row.mcs, "{u:?}.has_mcs()");
        assert_eq!(has_ccs(u), row.ccs, "has_ccs({u:?})");
        assert_eq!(u.has_ccs(), row.ccs, "{u:?}.has_ccs()");
        assert_eq!(has_ccs_e(u), row.ccs_e, "has_ccs_e({u:?})");
        assert_eq!(u.has_ccs_e(), row.ccs_e, "{u:?}.has_ccs_e()");
        assert_eq!(has_compression(u), row.compressed, "has_compression({u:?})");
        assert_eq!(has_fast_clears(u), row.fast_clear, "has_fast_clears({u:?})");
        let info = u.info();
        assert_eq!(info.compressed, row.compressed, "{u:?} compressed");
        assert_eq!(info.fast_clear, row.fast_clear, "{u:?} fast_clear");
        assert_eq!(
            info.partial_resolve, row.partial_resolve,
            "{u:?} partial_resolve"
        );
        assert_eq!(
            info.full_resolves_ambiguate, row.full_resolves_ambiguate,
            "{u:?} full_resolves_ambiguate"
        );
        assert_eq!(info.write_behavior, row.write, "{u:?} write_behavior");
    }
}

#[test]
fn state_properties() {
    assert_eq!(AuxState::ALL, STATES);
    // (state, valid primary, valid aux), from isl.h.
    let table = [
        (AuxState::Clear, F, T),
        (AuxState::PartialClear, F, T),
        (AuxState::CompressedClear, F, T),
        (AuxState::CompressedNoClear, F, T),
        (AuxState::Resolved, T, T),
        (AuxState::PassThrough, T, T),
        (AuxState::AuxInvalid, T, F),
    ];
    for (s, primary, aux) in table {
        assert_eq!(state_has_valid_primary(s), primary, "{s:?} primary");
        assert_eq!(s.has_valid_primary(), primary, "{s:?} primary");
        assert_eq!(state_has_valid_aux(s), aux, "{s:?} aux");
        assert_eq!(s.has_valid_aux(), aux, "{s:?} aux");
    }
}

// ---------------------------------------------------------------------------
// aux_state_possible.

#[rustfmt::skip]
const POSSIBLE: [(AuxUsage, [bool; 7]); 11] = [
    //             CL PC CC CN RE PT AI
    (U::None,     [F, F, F, F, T, T, T]),
    (U::Hiz,      [T, T, T, T, T, T, T]),
    (U::Mcs,      [T, T, T, T, T, T, T]),
    (U::CcsD,     [T, T, F, F, T, T, T]),
    (U::CcsE,     [T, T, T, T, T, T, T]),
    (U::FcvCcsE,  [T, T, T, T, T, T, T]),
    (U::Mc,       [F, F, F, T, T, T, T]),
    (U::HizCcsWt, [T, T, T, T, T, T, T]),
    (U::HizCcs,   [T, T, T, T, T, T, T]),
    (U::McsCcs,   [T, T, T, T, T, T, T]),
    (U::StcCcs,   [F, F, F, T, T, T, T]),
];

#[test]
fn state_possible_for_usage() {
    for (u, row) in POSSIBLE {
        for (s, expected) in STATES.into_iter().zip(row) {
            assert_eq!(aux_state_possible(s, u), expected, "possible({s:?}, {u:?})");
        }
    }
}

// ---------------------------------------------------------------------------
// prepare_access(state, access usage, fast_clear_supported):
// per state, [fast_clear_supported = false, = true].

#[rustfmt::skip]
const PREPARE: [(AuxUsage, [[O; 2]; 7]); 11] = [
    //              Clear     PartClear CompClear CompNoClr Resolved  PassThru  AuxInvalid
    (U::None,     [[FR, X],  [FR, X],  [FR, X],  [FR, X],  [NO, X],  [NO, X],  [NO, X]]),
    (U::Hiz,      [[FR, NO], [FR, NO], [FR, NO], [NO, NO], [NO, NO], [NO, NO], [AM, AM]]),
    (U::Mcs,      [[PR, NO], [PR, NO], [PR, NO], [NO, NO], [NO, NO], [NO, NO], [AM, AM]]),
    // CCS_D is checked against CCS_E states: compressed states are allowed
    // and need a full resolve even with fast clears.
    (U::CcsD,     [[FR, NO], [FR, NO], [FR, FR], [FR, FR], [NO, NO], [NO, NO], [AM, AM]]),
    (U::CcsE,     [[PR, NO], [PR, NO], [PR, NO], [NO, NO], [NO, NO], [NO, NO], [AM, AM]]),
    (U::FcvCcsE,  [[PR, NO], [PR, NO], [PR, NO], [NO, NO], [NO, NO], [NO, NO], [AM, AM]]),
    (U::Mc,       [[X, X],   [X, X],   [X, X],   [NO, X],  [NO, X],  [NO, X],  [AM, X]]),
    (U::HizCcsWt, [[FR, NO], [FR, NO], [FR, NO], [NO, NO], [NO, NO], [NO, NO], [AM, AM]]),
    (U::HizCcs,   [[FR, NO], [FR, NO], [FR, NO], [NO, NO], [NO, NO], [NO, NO], [AM, AM]]),
    (U::McsCcs,   [[PR, NO], [PR, NO], [PR, NO], [NO, NO], [NO, NO], [NO, NO], [AM, AM]]),
    (U::StcCcs,   [[X, X],   [X, X],   [X, X],   [NO, X],  [NO, X],  [NO, X],  [AM, X]]),
];

#[test]
fn prepare_access_every_combination() {
    let mut checked = 0;
    for (u, rows) in PREPARE {
        for (s, pair) in STATES.into_iter().zip(rows) {
            for (fcs, expected) in [false, true].into_iter().zip(pair) {
                let got = prepare_access(s, u, fcs);
                match expected {
                    Some(op) => assert_eq!(got, Ok(op), "prepare_access({s:?}, {u:?}, {fcs})"),
                    None => {
                        let err = got.expect_err(&format!("prepare_access({s:?}, {u:?}, {fcs})"));
                        let msg = err.message();
                        assert!(msg.contains("prepare_access"), "{msg}");
                        assert!(msg.contains(&format!("state {s:?}")), "{msg}");
                        assert!(msg.contains(&format!("usage {u:?}")), "{msg}");
                    }
                }
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 11 * 7 * 2);
}

// ---------------------------------------------------------------------------
// transition_aux_op(state, resource usage, op): per state, one column per op
// in the order None, FastClear, FullResolve, PartialResolve, Ambiguate.

#[rustfmt::skip]
const AUX_OP: [(AuxUsage, [[S; 5]; 7]); 11] = [
    (U::None, [
        // None FastClr FullRes PartRes Ambig
        [E,  E,  E,  E,  E ], // Clear (impossible)
        [E,  E,  E,  E,  E ], // PartialClear (impossible)
        [E,  E,  E,  E,  E ], // CompressedClear (impossible)
        [E,  E,  E,  E,  E ], // CompressedNoClear (impossible)
        [RE, E,  E,  E,  E ], // Resolved
        [PT, E,  E,  E,  E ], // PassThrough
        [AI, E,  E,  E,  E ], // AuxInvalid
    ]),
    (U::Hiz, [
        [CL, CL, RE, E,  PT],
        [PC, CL, RE, E,  PT],
        [CC, CL, RE, E,  PT],
        [CN, CL, RE, E,  PT],
        [RE, CL, RE, E,  PT],
        [PT, CL, PT, E,  PT],
        [AI, CL, E,  E,  PT],
    ]),
    (U::Mcs, [
        [CL, CL, RE, CN, PT],
        [PC, CL, RE, CN, PT],
        [CC, CL, RE, CN, PT],
        [CN, CL, RE, CN, PT],
        [RE, CL, RE, RE, PT],
        [PT, CL, PT, PT, PT],
        [AI, CL, E,  E,  PT],
    ]),
    (U::CcsD, [
        [CL, CL, PT, E,  PT],
        [PC, CL, PT, E,  PT],
        [E,  E,  E,  E,  E ],
        [E,  E,  E,  E,  E ],
        [RE, CL, PT, E,  PT],
        [PT, CL, PT, E,  PT],
        [AI, CL, E,  E,  PT],
    ]),
    (U::CcsE, [
        [CL, CL, PT, CN, PT],
        [PC, CL, PT, CN, PT],
        [CC, CL, PT, CN, PT],
        [CN, CL, PT, CN, PT],
        [RE, CL, PT, RE, PT],
        [PT, CL, PT, PT, PT],
        [AI, CL, E,  E,  PT],
    ]),
    (U::FcvCcsE, [
        [CL, CL, PT, CN, PT],
        [PC, CL, PT, CN, PT],
        [CC, CL, PT, CN, PT],
        [CN, CL, PT, CN, PT],
        [RE, CL, PT, RE, PT],
        [PT, CL, PT, PT, PT],
        [AI, CL, E,  E,  PT],
    ]),
    (U::Mc, [
        [E,  E,  E,  E,  E ],
        [E,  E,  E,  E,  E ],
        [E,  E,  E,  E,  E ],
        [CN, E,  PT, E,  PT],
        [RE, E,  PT, E,  PT],
        [PT, E,  PT, E,  PT],
        [AI, E,  E,  E,  PT],
    ]),
    (U::HizCcsWt, [
        [CL, CL, RE, E,  PT],
        [PC, CL, RE, E,  PT],
        [CC, CL, RE, E,  PT],
        [CN, CL, RE, E,  PT],
        [RE, CL, RE, E,  PT],
        [PT, CL, PT, E,  PT],
        [AI, CL, E,  E,  PT],
    ]),
    (U::HizCcs, [
        [CL, CL, RE, E,  PT],
        [PC, CL, RE, E,  PT],
        [CC, CL, RE, E,  PT],
        [CN, CL, RE, E,  PT],
        [RE, CL, RE, E,  PT],
        [PT, CL, PT, E,  PT],
        [AI, CL, E,  E,  PT],
    ]),
    (U::McsCcs, [
        [CL, CL, RE, CN, PT],
        [PC, CL, RE, CN, PT],
        [CC, CL, RE, CN, PT],
        [CN, CL, RE, CN, PT],
        [RE, CL, RE, RE, PT],
        [PT, CL, PT, PT, PT],
        [AI, CL, E,  E,  PT],
    ]),
    (U::StcCcs, [
        [E,  E,  E,  E,  E ],
        [E,  E,  E,  E,  E ],
        [E,  E,  E,  E,  E ],
        [CN, E,  PT, E,  PT],
        [RE, E,  PT, E,  PT],
        [PT, E,  PT, E,  PT],
        [AI, E,  E,  E,  PT],
    ]),
];

#[test]
fn transition_aux_op_every_combination() {
    let mut checked = 0;
    for (u, rows) in AUX_OP {
        for (s, row) in STATES.into_iter().zip(rows) {
            for (op, expected) in OPS.into_iter().zip(row) {
                let got = transition_aux_op(s, u, op);
                match expected {
                    Some(next) => {
                        assert_eq!(got, Ok(next), "transition_aux_op({s:?}, {u:?}, {op:?})")
                    }
                    None => {
                        let err =
                            got.expect_err(&format!("transition_aux_op({s:?}, {u:?}, {op:?})"));
                        let msg = err.message();
                        assert!(msg.contains("transition_aux_op"), "{msg}");
                        assert!(msg.contains(&format!("state {s:?}")), "{msg}");
                        assert!(msg.contains(&format!("usage {u:?}")), "{msg}");
                        assert!(msg.contains(&format!("op {op:?}")), "{msg}");
                    }
                }
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 11 * 7 * 5);
}

// ---------------------------------------------------------------------------
// transition_write(state, usage, full_surface): per state,
// [partial write, full-surface write].

#[rustfmt::skip]
const WRITE: [(AuxUsage, [[S; 2]; 7]); 11] = [
    //              Clear     PartClear CompClear CompNoClr Resolved  PassThru  AuxInvalid
    // A write without aux: no possibility check; a partial write needs a
    // valid primary.
    (U::None,     [[E, AI],  [E, AI],  [E, AI],  [E, AI],  [AI, AI], [PT, PT], [AI, AI]]),
    (U::Hiz,      [[CC, CN], [CC, CN], [CC, CN], [CN, CN], [CN, CN], [CN, CN], [E, E]]),
    (U::Mcs,      [[CC, CN], [CC, CN], [CC, CN], [CN, CN], [CN, CN], [CN, CN], [E, E]]),
    // No superset rule here: CCS_D writes from compressed states assert.
    (U::CcsD,     [[PC, PT], [PC, PT], [E, E],   [E, E],   [RE, PT], [PT, PT], [E, E]]),
    (U::CcsE,     [[CC, CN], [CC, CN], [CC, CN], [CN, CN], [CN, CN], [CN, CN], [E, E]]),
    (U::FcvCcsE,  [[CC, CC], [CC, CC], [CC, CC], [CC, CC], [CC, CC], [CC, CC], [E, E]]),
    (U::Mc,       [[E, E],   [E, E],   [E, E],   [CN, PT], [RE, PT], [PT, PT], [E, E]]),
    (U::HizCcsWt, [[CC, CN], [CC, CN], [CC, CN], [CN, CN], [CN, CN], [CN, CN], [E, E]]),
    (U::HizCcs,   [[CC, CN], [CC, CN], [CC, CN], [CN, CN], [CN, CN], [CN, CN], [E, E]]),
    (U::McsCcs,   [[CC, CN], [CC, CN], [CC, CN], [CN, CN], [CN, CN], [CN, CN], [E, E]]),
    (U::StcCcs,   [[E, E],   [E, E],   [E, E],   [CN, CN], [CN, CN], [CN, CN], [E, E]]),
];

#[test]
fn transition_write_every_combination() {
    let mut checked = 0;
    for (u, rows) in WRITE {
        for (s, pair) in STATES.into_iter().zip(rows) {
            for (full, expected) in [false, true].into_iter().zip(pair) {
                let got = transition_write(s, u, full);
                match expected {
                    Some(next) => {
                        assert_eq!(got, Ok(next), "transition_write({s:?}, {u:?}, {full})")
                    }
                    None => {
                        let err =
                            got.expect_err(&format!("transition_write({s:?}, {u:?}, {full})"));
                        let msg = err.message();
                        assert!(msg.contains("transition_write"), "{msg}");
                        assert!(msg.contains("write"), "{msg}");
                        assert!(msg.contains(&format!("state {s:?}")), "{msg}");
                        assert!(msg.contains(&format!("usage {u:?}")), "{msg}");
                    }
                }
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 11 * 7 * 2);
}

// ---------------------------------------------------------------------------
// The named error examples, one by one.

#[test]
fn named_error_examples() {
    // A state impossible for the usage.
    assert!(transition_aux_op(AuxState::CompressedClear, U::Mc, AuxOp::None).is_err());
    assert!(prepare_access(AuxState::Clear, U::StcCcs, false).is_err());
    // Fast-clear support claimed on a usage without fast clears.
    assert!(prepare_access(AuxState::PassThrough, U::Mc, true).is_err());
    assert!(prepare_access(AuxState::PassThrough, U::None, true).is_err());
    // An op with usage None.
    assert!(transition_aux_op(AuxState::PassThrough, U::None, AuxOp::Ambiguate).is_err());
    // A partial resolve where none exists.
    assert!(transition_aux_op(AuxState::CompressedClear, U::Hiz, AuxOp::PartialResolve).is_err());
    // A resolve of AuxInvalid.
    assert!(transition_aux_op(AuxState::AuxInvalid, U::CcsE, AuxOp::FullResolve).is_err());
    assert!(transition_aux_op(AuxState::AuxInvalid, U::Mcs, AuxOp::PartialResolve).is_err());
    // A compressed write from AuxInvalid.
    assert!(transition_write(AuxState::AuxInvalid, U::CcsE, false).is_err());
    assert!(transition_write(AuxState::AuxInvalid, U::Hiz, true).is_err());
}

#[test]
fn errors_convert_to_pipe_error() {
    let err = transition_write(AuxState::AuxInvalid, U::CcsE, false).unwrap_err();
    let pipe: pipe_core::PipeError = err.clone().into();
    assert_eq!(
        pipe,
        pipe_core::PipeError::InvalidArgument(err.message().to_string())
    );
    assert_eq!(err.to_string(), err.message());
}

// ---------------------------------------------------------------------------
// isl_aux_get_initial_state: per usage, [not zeroed, zeroed] on Gfx12, Gfx9
// and Gfx8.

/// (usage, gfx12, gfx9..11, gfx8), each `[not zeroed, zeroed]`.
type InitialRow = (AuxUsage, [S; 2], [S; 2], [S; 2]);

#[rustfmt::skip]
const INITIAL: [InitialRow; 11] = [
    //              gfx12     gfx9..11  gfx8
    (U::None,     [E, E],   [E, E],   [E, E]),
    (U::Hiz,      [AI, AI], [AI, AI], [AI, AI]),
    (U::Mcs,      [AI, CN], [AI, CN], [AI, CN]),
    (U::CcsD,     [CN, PT], [AI, PT], [E, PT]),
    (U::CcsE,     [CN, PT], [AI, PT], [E, PT]),
    (U::FcvCcsE,  [CN, PT], [AI, PT], [E, PT]),
    (U::Mc,       [E, E],   [E, E],   [E, E]),
    (U::HizCcsWt, [AI, AI], [AI, AI], [AI, AI]),
    (U::HizCcs,   [AI, AI], [AI, AI], [AI, AI]),
    (U::McsCcs,   [AI, CN], [AI, CN], [AI, CN]),
    (U::StcCcs,   [CN, PT], [AI, PT], [E, PT]),
];

#[test]
fn initial_states() {
    for (u, g12, g9, g8) in INITIAL {
        for (zeroed, expected) in [false, true].into_iter().zip(g12) {
            assert_eq!(
                initial_state(u, zeroed).ok(),
                expected,
                "{u:?} zeroed={zeroed}"
            );
            assert_eq!(initial_state_for_gfx(u, zeroed, 12).ok(), expected);
            assert_eq!(initial_state_for_gfx(u, zeroed, 20).ok(), expected);
        }
        for (zeroed, expected) in [false, true].into_iter().zip(g9) {
            assert_eq!(
                initial_state_for_gfx(u, zeroed, 9).ok(),
                expected,
                "{u:?} gfx9"
            );
            assert_eq!(
                initial_state_for_gfx(u, zeroed, 11).ok(),
                expected,
                "{u:?} gfx11"
            );
        }
        for (zeroed, expected) in [false, true].into_iter().zip(g8) {
            assert_eq!(
                initial_state_for_gfx(u, zeroed, 8).ok(),
                expected,
                "{u:?} gfx8"
            );
        }
    }
}

// ---------------------------------------------------------------------------
// Names.

#[test]
fn usage_names_parse() {
    let cases = [
        ("none", U::None),
        ("HIZ", U::Hiz),
        ("mcs", U::Mcs),
        ("ccs_d", U::CcsD),
        ("CcsE", U::CcsE),
        ("fcv-ccs-e", U::FcvCcsE),
        ("ISL_AUX_USAGE_MC", U::Mc),
        ("HizCcsWt", U::HizCcsWt),
        ("hiz_ccs", U::HizCcs),
        ("MCS_CCS", U::McsCcs),
        ("stcccs", U::StcCcs),
    ];
    for (text, u) in cases {
        assert_eq!(text.parse::<AuxUsage>(), Ok(u), "{text}");
    }
    assert!("ccs".parse::<AuxUsage>().is_err());
    assert!("".parse::<AuxUsage>().is_err());
    assert_eq!(
        "compressed_no_clear".parse::<AuxState>(),
        Ok(AuxState::CompressedNoClear)
    );
    assert_eq!("PassThrough".parse::<AuxState>(), Ok(AuxState::PassThrough));
    assert_eq!(
        "ISL_AUX_OP_FULL_RESOLVE".parse::<AuxOp>(),
        Ok(AuxOp::FullResolve)
    );
    assert!("resolve".parse::<AuxOp>().is_err());
}
