//! Random sequences of accesses and writes.
//!
//! The driver's rule (iris's, and ours): before every access, run the op
//! that `prepare_access` asks for (recorded with `transition_aux_op` on the
//! resource usage); after a write, record it with `transition_write`. Under
//! that rule no call may ever be rejected, whatever the sequence.

use proptest::prelude::*;

use pipe_core::aux::{
    aux_state_possible, prepare_access, transition_aux_op, transition_write, AuxMap, AuxOp,
    AuxState, AuxUsage, SliceLayout,
};

/// Usages an access to a resource of usage `resource` may use: the
/// resource's own, none (aux disabled), and CCS_D (or CCS_E) on CCS_E-class
/// resources, the cases isl's superset rule is for.
fn access_usages(resource: AuxUsage) -> Vec<AuxUsage> {
    let mut v = vec![resource];
    if resource != AuxUsage::None {
        v.push(AuxUsage::None);
    }
    if matches!(resource, AuxUsage::CcsE | AuxUsage::FcvCcsE) {
        v.push(AuxUsage::CcsD);
    }
    if resource == AuxUsage::FcvCcsE {
        v.push(AuxUsage::CcsE);
    }
    v
}

#[derive(Clone, Debug)]
enum Step {
    /// An access; `write` is `None` for a read, `Some(full_surface)` for a
    /// write.
    Access {
        pick: usize,
        fast_clear: bool,
        write: Option<bool>,
    },
    /// A fast clear (skipped when the usage has none).
    FastClear,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (any::<usize>(), any::<bool>(), proptest::option::of(any::<bool>())).prop_map(
            |(pick, fast_clear, write)| Step::Access { pick, fast_clear, write }
        ),
        1 => Just(Step::FastClear),
    ]
}

fn usage() -> impl Strategy<Value = AuxUsage> {
    proptest::sample::select(AuxUsage::ALL.to_vec())
}

fn state() -> impl Strategy<Value = AuxState> {
    proptest::sample::select(AuxState::ALL.to_vec())
}

/// Runs one step on one slice; every call must succeed.
fn run_step(state: AuxState, resource: AuxUsage, step: &Step) -> Result<AuxState, String> {
    match *step {
        Step::FastClear => {
            if !resource.has_fast_clears() {
                return Ok(state);
            }
            transition_aux_op(state, resource, AuxOp::FastClear).map_err(|e| e.to_string())
        }
        Step::Access {
            pick,
            fast_clear,
            write,
        } => {
            let usages = access_usages(resource);
            let access = usages[pick % usages.len()];
            let fast_clear = fast_clear && access.has_fast_clears();
            let op = prepare_access(state, access, fast_clear).map_err(|e| e.to_string())?;
            let mut s = transition_aux_op(state, resource, op).map_err(|e| e.to_string())?;
            if !aux_state_possible(s, resource) {
                return Err(format!("{s:?} impossible for {resource:?}"));
            }
            if let Some(full) = write {
                s = transition_write(s, access, full).map_err(|e| e.to_string())?;
                if !aux_state_possible(s, resource) {
                    return Err(format!("write left {s:?}, impossible for {resource:?}"));
                }
            }
            Ok(s)
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn prepared_sequences_are_never_rejected(
        resource in usage(),
        start in state(),
        steps in proptest::collection::vec(step(), 0..40),
    ) {
        prop_assume!(aux_state_possible(start, resource));
        let mut s = start;
        for (i, st) in steps.iter().enumerate() {
            s = run_step(s, resource, st)
                .map_err(|e| TestCaseError::fail(format!("step {i} {st:?} from {s:?}: {e}")))?;
        }
    }

    /// Whatever the arguments, the functions return (never panic), and an
    /// `Ok` state is possible for the usage the transition was made with
    /// (writes without aux excepted: they may leave any resource's aux).
    #[test]
    fn no_panics_and_results_are_possible(
        s in state(),
        u in usage(),
        op in proptest::sample::select(AuxOp::ALL.to_vec()),
        flag in any::<bool>(),
    ) {
        let _ = prepare_access(s, u, flag);
        if let Ok(next) = transition_aux_op(s, u, op) {
            prop_assert!(aux_state_possible(next, u));
        }
        if let Ok(next) = transition_write(s, u, flag) {
            if u != AuxUsage::None {
                prop_assert!(aux_state_possible(next, u));
            }
        }
    }
}

// ---------------------------------------------------------------------------
// The same rule on a whole resource, with random ranges.

fn layout() -> impl Strategy<Value = SliceLayout> {
    prop_oneof![
        (1u32..6).prop_map(|layers| SliceLayout::Array { layers }),
        (1u32..3).prop_map(|cubes| SliceLayout::Cube { cubes }),
        (1u32..17).prop_map(|depth| SliceLayout::Volume { depth }),
    ]
}

#[derive(Clone, Debug)]
struct MapStep {
    levels: (u32, u32),
    layers: (u32, u32),
    step: Step,
}

fn map_step() -> impl Strategy<Value = MapStep> {
    // Mostly short ranges near the start (usually valid), sometimes
    // arbitrary pairs (often empty, reversed or too large).
    let range = |short: u32, wide: u32| {
        prop_oneof![
            4 => (0..short, 1..3u32).prop_map(|(start, len)| (start, start + len)),
            1 => (0..wide, 0..wide),
        ]
    };
    (range(3, 8), range(6, 20), step()).prop_map(|(levels, layers, step)| MapStep {
        levels,
        layers,
        step,
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Random (sometimes invalid) ranges: an invalid range is an `Err` that
    /// changes nothing; a valid one runs the prepared access on every slice
    /// of it and matches a slice-by-slice model; nothing is ever rejected
    /// by the state machine itself.
    #[test]
    fn map_sequences_match_a_slice_model(
        resource in usage(),
        layout in layout(),
        levels in 1u32..6,
        steps in proptest::collection::vec(map_step(), 0..25),
    ) {
        // isl's initial state where it has one and it is possible for the
        // usage (CCS_D's Gfx12 initial state, CompressedNoClear, is not).
        let start = pipe_core::aux::initial_state(resource, false)
            .ok()
            .filter(|&s| aux_state_possible(s, resource))
            .unwrap_or(AuxState::AuxInvalid);
        let mut map = AuxMap::new(resource, layout, levels, start).unwrap();
        let mut model: Vec<Vec<AuxState>> = (0..levels)
            .map(|l| vec![start; map.layers(l).unwrap() as usize])
            .collect();
        for ms in &steps {
            if matches!(ms.step, Step::FastClear) && !resource.has_fast_clears() {
                continue;
            }
            let lv = ms.levels.0..ms.levels.1;
            let ly = ms.layers.0..ms.layers.1;
            let valid = lv.start < lv.end
                && lv.end <= levels
                && ly.start < ly.end
                && lv.clone().all(|l| ly.end <= map.layers(l).unwrap());
            let before = map.clone();
            let result = match ms.step {
                Step::FastClear => map.apply_op(lv.clone(), ly.clone(), AuxOp::FastClear),
                Step::Access { pick, fast_clear, write } => {
                    let usages = access_usages(resource);
                    let access = usages[pick % usages.len()];
                    let fast_clear = fast_clear && access.has_fast_clears();
                    map.prepare_and_apply(lv.clone(), ly.clone(), access, fast_clear)
                        .and_then(|_| match write {
                            Some(full) => map.finish_write(lv.clone(), ly.clone(), access, full),
                            None => Ok(()),
                        })
                }
            };
            if !valid {
                prop_assert!(result.is_err(), "invalid range accepted: {ms:?}");
                prop_assert_eq!(&map, &before);
                continue;
            }
            prop_assert!(result.is_ok(), "{ms:?}: {result:?}");
            for l in lv.clone() {
                for z in ly.clone() {
                    let slot = &mut model[l as usize][z as usize];
                    *slot = run_step(*slot, resource, &ms.step)
                        .map_err(TestCaseError::fail)?;
                }
            }
            for (l, z, s) in map.iter() {
                prop_assert_eq!(s, model[l as usize][z as usize], "slice ({}, {})", l, z);
            }
        }
    }
}
