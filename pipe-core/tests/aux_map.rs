//! Per-slice tracking: 2D arrays, cubes and 3D textures with mip chains.
//! Expected states are written by hand from the isl tables (see
//! `aux_tables.rs`).

use pipe_core::aux::{
    AuxMap, AuxOp, AuxState, AuxUsage, SliceLayout, SliceOp, MAX_LAYERS, MAX_LEVELS,
};

use AuxState::*;

fn states_of(map: &AuxMap) -> Vec<(u32, u32, AuxState)> {
    map.iter().collect()
}

#[test]
fn array_2d_shape() {
    let map = AuxMap::new(
        AuxUsage::CcsE,
        SliceLayout::Array { layers: 4 },
        3,
        PassThrough,
    )
    .unwrap();
    assert_eq!(map.levels(), 3);
    for level in 0..3 {
        // Array layers are not minified.
        assert_eq!(map.layers(level), Ok(4));
    }
    assert!(map.layers(3).is_err());
    assert_eq!(map.slice_count(), 12);
    assert_eq!(map.iter().count(), 12);
    assert!(map.iter().all(|(_, _, s)| s == PassThrough));
    assert_eq!(map.usage(), AuxUsage::CcsE);
    assert_eq!(map.layout(), SliceLayout::Array { layers: 4 });
}

#[test]
fn cube_shape() {
    let map = AuxMap::new(AuxUsage::Hiz, SliceLayout::Cube { cubes: 2 }, 4, AuxInvalid).unwrap();
    for level in 0..4 {
        // Cube faces are not minified: 6 per cube at every level.
        assert_eq!(map.layers(level), Ok(12));
    }
    assert_eq!(map.slice_count(), 48);
}

#[test]
fn volume_shape_minifies_depth() {
    // 3D texture of depth 8 with 5 levels: 8, 4, 2, 1, 1 slices.
    let map = AuxMap::new(
        AuxUsage::Mcs,
        SliceLayout::Volume { depth: 8 },
        5,
        AuxInvalid,
    )
    .unwrap();
    let layers: Vec<u32> = (0..5).map(|l| map.layers(l).unwrap()).collect();
    assert_eq!(layers, vec![8, 4, 2, 1, 1]);
    assert_eq!(map.slice_count(), 16);
    // Non-power-of-two depth: 5, 2, 1.
    let map = AuxMap::new(
        AuxUsage::Mcs,
        SliceLayout::Volume { depth: 5 },
        3,
        AuxInvalid,
    )
    .unwrap();
    let layers: Vec<u32> = (0..3).map(|l| map.layers(l).unwrap()).collect();
    assert_eq!(layers, vec![5, 2, 1]);
    let slices: Vec<(u32, u32)> = map.iter().map(|(l, z, _)| (l, z)).collect();
    assert_eq!(
        slices,
        vec![
            (0, 0),
            (0, 1),
            (0, 2),
            (0, 3),
            (0, 4),
            (1, 0),
            (1, 1),
            (2, 0)
        ]
    );
}

#[test]
fn creation_errors() {
    let arr = |layers| SliceLayout::Array { layers };
    assert!(AuxMap::new(AuxUsage::CcsE, arr(1), 0, PassThrough).is_err());
    assert!(AuxMap::new(AuxUsage::CcsE, arr(1), MAX_LEVELS + 1, PassThrough).is_err());
    assert!(AuxMap::new(AuxUsage::CcsE, arr(1), MAX_LEVELS, PassThrough).is_ok());
    assert!(AuxMap::new(AuxUsage::CcsE, arr(0), 1, PassThrough).is_err());
    assert!(AuxMap::new(AuxUsage::CcsE, arr(MAX_LAYERS + 1), 1, PassThrough).is_err());
    assert!(AuxMap::new(AuxUsage::CcsE, arr(u32::MAX), 1, PassThrough).is_err());
    assert!(AuxMap::new(
        AuxUsage::CcsE,
        SliceLayout::Cube { cubes: 0 },
        1,
        PassThrough
    )
    .is_err());
    assert!(AuxMap::new(
        AuxUsage::CcsE,
        SliceLayout::Cube { cubes: u32::MAX },
        1,
        PassThrough
    )
    .is_err());
    assert!(AuxMap::new(
        AuxUsage::CcsE,
        SliceLayout::Volume { depth: 0 },
        1,
        PassThrough
    )
    .is_err());
    // An initial state impossible for the usage.
    let err = AuxMap::new(AuxUsage::Mc, arr(1), 1, Clear).unwrap_err();
    assert!(
        err.message().contains("Clear") && err.message().contains("Mc"),
        "{err}"
    );
    assert!(AuxMap::new(AuxUsage::None, arr(1), 1, CompressedNoClear).is_err());
    // 3D with more levels than log2(depth) + 1 is fine (width may be larger).
    let map = AuxMap::new(
        AuxUsage::CcsE,
        SliceLayout::Volume { depth: 2 },
        6,
        PassThrough,
    )
    .unwrap();
    assert_eq!(map.layers(5), Ok(1));
}

#[test]
fn range_errors() {
    let mut map = AuxMap::new(
        AuxUsage::CcsE,
        SliceLayout::Volume { depth: 4 },
        3,
        PassThrough,
    )
    .unwrap();
    let before = map.clone();
    // Level out of range.
    assert!(map.state(3, 0).is_err());
    assert!(map.apply_op(0..4, 0..1, AuxOp::FastClear).is_err());
    // Layer out of range at level 0, and at a minified level.
    assert!(map.state(0, 4).is_err());
    assert!(map.state(1, 2).is_err());
    assert_eq!(map.state(1, 1), Ok(PassThrough));
    assert!(map.finish_write(1..2, 0..3, AuxUsage::CcsE, false).is_err());
    // A layer range valid at level 0 but not at level 1.
    assert!(map.apply_op(0..2, 0..4, AuxOp::FastClear).is_err());
    // Empty and reversed ranges.
    assert!(map
        .prepare_access(0..0, 0..1, AuxUsage::CcsE, false)
        .is_err());
    assert!(map
        .prepare_access(0..1, 1..1, AuxUsage::CcsE, false)
        .is_err());
    #[allow(clippy::reversed_empty_ranges)]
    {
        assert!(map.apply_op(2..1, 0..1, AuxOp::FastClear).is_err());
        assert!(map.apply_op(0..1, 3..0, AuxOp::FastClear).is_err());
    }
    assert!(map.set_state(0..1, 0..9, Clear).is_err());
    assert!(map
        .apply_slice_ops(&[SliceOp {
            level: 0,
            layer: 7,
            op: AuxOp::FastClear
        }])
        .is_err());
    // Nothing changed.
    assert_eq!(map, before);
    let err = map.state(7, 0).unwrap_err();
    assert!(err.message().contains("level 7"), "{err}");
}

#[test]
fn errors_are_atomic() {
    // A write with aux over three slices, the last of which is AuxInvalid:
    // isl rejects the last slice, so none of the three may change.
    let mut map = AuxMap::new(
        AuxUsage::Hiz,
        SliceLayout::Array { layers: 3 },
        1,
        PassThrough,
    )
    .unwrap();
    map.set_state(0..1, 2..3, AuxInvalid).unwrap();
    let before = map.clone();
    let err = map
        .finish_write(0..1, 0..3, AuxUsage::Hiz, false)
        .unwrap_err();
    assert!(err.message().contains("layer 2"), "{err}");
    assert_eq!(map, before, "a failed write must not change any slice");
    let err = map.apply_op(0..1, 0..3, AuxOp::FullResolve).unwrap_err();
    assert!(err.message().contains("AuxInvalid"), "{err}");
    assert_eq!(map, before);
    // set_state with a state impossible for the usage.
    let mut mc = AuxMap::new(
        AuxUsage::Mc,
        SliceLayout::Array { layers: 1 },
        1,
        PassThrough,
    )
    .unwrap();
    assert!(mc.set_state(0..1, 0..1, Clear).is_err());
}

#[test]
fn array_2d_deferred_clear_then_sample() {
    // CCS_E 2D array, 4 layers, 3 levels, fresh (zeroed): pass-through.
    let mut map = AuxMap::new(
        AuxUsage::CcsE,
        SliceLayout::Array { layers: 4 },
        3,
        PassThrough,
    )
    .unwrap();
    // Fast clear layers 1..3 of level 0.
    map.apply_op(0..1, 1..3, AuxOp::FastClear).unwrap();
    // Draw with aux over part of layer 1.
    map.finish_write(0..1, 1..2, AuxUsage::CcsE, false).unwrap();
    assert_eq!(
        states_of(&map)[..4],
        [
            (0, 0, PassThrough),
            (0, 1, CompressedClear),
            (0, 2, Clear),
            (0, 3, PassThrough)
        ]
    );
    // Sampling through a view that does not understand the clear colour:
    // partial resolves on the cleared layers, nothing elsewhere.
    let ops = map
        .prepare_access(0..1, 0..4, AuxUsage::CcsE, false)
        .unwrap();
    assert_eq!(
        ops.iter().map(|s| s.op).collect::<Vec<_>>(),
        vec![
            AuxOp::None,
            AuxOp::PartialResolve,
            AuxOp::PartialResolve,
            AuxOp::None
        ]
    );
    // A CPU map (no aux) of all of level 0: CCS_E full resolves ambiguate.
    let todo = map
        .prepare_and_apply(0..1, 0..4, AuxUsage::None, false)
        .unwrap();
    assert_eq!(
        todo,
        vec![
            SliceOp {
                level: 0,
                layer: 1,
                op: AuxOp::FullResolve
            },
            SliceOp {
                level: 0,
                layer: 2,
                op: AuxOp::FullResolve
            },
        ]
    );
    for layer in 0..4 {
        assert_eq!(map.state(0, layer), Ok(PassThrough));
    }
    // The CPU writes layer 3 partially: pass-through stays pass-through.
    map.finish_write(0..1, 3..4, AuxUsage::None, false).unwrap();
    assert_eq!(map.state(0, 3), Ok(PassThrough));
    // Other levels were never touched.
    assert!(map
        .iter()
        .filter(|&(l, _, _)| l > 0)
        .all(|(_, _, s)| s == PassThrough));
}

#[test]
fn array_2d_ccs_d_access_on_ccs_e_resource() {
    let mut map = AuxMap::new(
        AuxUsage::CcsE,
        SliceLayout::Array { layers: 2 },
        2,
        PassThrough,
    )
    .unwrap();
    map.finish_write(0..2, 0..2, AuxUsage::CcsE, true).unwrap();
    assert!(map.iter().all(|(_, _, s)| s == CompressedNoClear));
    // A CCS_D access sees CCS_E states (superset rule) and needs a full
    // resolve, which for the CCS_E resource ends in pass-through.
    let todo = map
        .prepare_and_apply(1..2, 0..2, AuxUsage::CcsD, true)
        .unwrap();
    assert_eq!(todo.len(), 2);
    assert!(todo
        .iter()
        .all(|s| s.op == AuxOp::FullResolve && s.level == 1));
    assert_eq!(map.state(1, 0), Ok(PassThrough));
    assert_eq!(map.state(0, 0), Ok(CompressedNoClear));
    // A CCS_D write straight into a compressed state is what isl rejects.
    assert!(map.finish_write(0..1, 0..1, AuxUsage::CcsD, false).is_err());
}

#[test]
fn cube_hiz_faces_and_levels() {
    // A HiZ depth cube map, 3 levels, fresh: AuxInvalid everywhere.
    let mut map =
        AuxMap::new(AuxUsage::Hiz, SliceLayout::Cube { cubes: 1 }, 3, AuxInvalid).unwrap();
    // Rendering to face 4 of level 1 with HiZ needs an ambiguate first.
    let todo = map
        .prepare_and_apply(1..2, 4..5, AuxUsage::Hiz, true)
        .unwrap();
    assert_eq!(
        todo,
        vec![SliceOp {
            level: 1,
            layer: 4,
            op: AuxOp::Ambiguate
        }]
    );
    assert_eq!(map.state(1, 4), Ok(PassThrough));
    map.finish_write(1..2, 4..5, AuxUsage::Hiz, false).unwrap();
    assert_eq!(map.state(1, 4), Ok(CompressedNoClear));
    // Fast clear all six faces of level 0.
    map.apply_op(0..1, 0..6, AuxOp::FastClear).unwrap();
    // Sampling the whole cube without HiZ: full resolves where aux holds
    // data, nothing where the primary is valid.
    let mut todo = Vec::new();
    for level in 0..3 {
        let layers = map.layers(level).unwrap();
        todo.extend(
            map.prepare_and_apply(level..level + 1, 0..layers, AuxUsage::None, false)
                .unwrap(),
        );
    }
    let mut want: Vec<SliceOp> = (0..6)
        .map(|layer| SliceOp {
            level: 0,
            layer,
            op: AuxOp::FullResolve,
        })
        .collect();
    want.push(SliceOp {
        level: 1,
        layer: 4,
        op: AuxOp::FullResolve,
    });
    assert_eq!(todo, want);
    // HiZ full resolves do not ambiguate: Resolved, not PassThrough.
    for face in 0..6 {
        assert_eq!(map.state(0, face), Ok(Resolved));
    }
    assert_eq!(map.state(1, 4), Ok(Resolved));
    assert_eq!(map.state(1, 3), Ok(AuxInvalid));
    assert_eq!(map.state(2, 0), Ok(AuxInvalid));
    // A write without aux to the resolved faces invalidates their aux.
    map.finish_write(0..1, 0..6, AuxUsage::None, false).unwrap();
    for face in 0..6 {
        assert_eq!(map.state(0, face), Ok(AuxInvalid));
    }
}

#[test]
fn volume_mcs_per_level_depth() {
    // 3D texture, depth 4, 3 levels (4, 2, 1 slices); MCS is used here only
    // as a usage with partial resolves.
    let mut map = AuxMap::new(
        AuxUsage::Mcs,
        SliceLayout::Volume { depth: 4 },
        3,
        CompressedNoClear,
    )
    .unwrap();
    // Fast clear every slice of every level, level by level.
    for level in 0..3 {
        let depth = map.layers(level).unwrap();
        map.apply_op(level..level + 1, 0..depth, AuxOp::FastClear)
            .unwrap();
    }
    assert_eq!(map.iter().filter(|&(_, _, s)| s == Clear).count(), 7);
    // Partial write to slice 1 of level 1.
    map.finish_write(1..2, 1..2, AuxUsage::Mcs, false).unwrap();
    // Levels 0..2 over the slice range 0..2 (valid at both levels).
    let ops = map
        .prepare_access(0..2, 0..2, AuxUsage::Mcs, false)
        .unwrap();
    assert_eq!(ops.len(), 4);
    assert!(ops.iter().all(|s| s.op == AuxOp::PartialResolve));
    map.apply_slice_ops(&ops).unwrap();
    assert_eq!(
        states_of(&map),
        vec![
            (0, 0, CompressedNoClear),
            (0, 1, CompressedNoClear),
            (0, 2, Clear),
            (0, 3, Clear),
            (1, 0, CompressedNoClear),
            (1, 1, CompressedNoClear),
            (2, 0, Clear),
        ]
    );
    // Full-surface write to level 2's only slice.
    map.finish_write(2..3, 0..1, AuxUsage::Mcs, true).unwrap();
    assert_eq!(map.state(2, 0), Ok(CompressedNoClear));
    // Level 2 has one slice: layer 1 is out of range there.
    assert!(map.apply_op(2..3, 1..2, AuxOp::Ambiguate).is_err());
}

#[test]
fn apply_slice_ops_sees_repeated_slices_in_order() {
    let mut map = AuxMap::new(
        AuxUsage::CcsE,
        SliceLayout::Array { layers: 1 },
        1,
        PassThrough,
    )
    .unwrap();
    let s = |op| SliceOp {
        level: 0,
        layer: 0,
        op,
    };
    map.apply_slice_ops(&[s(AuxOp::FastClear), s(AuxOp::PartialResolve)])
        .unwrap();
    assert_eq!(map.state(0, 0), Ok(CompressedNoClear));
    // On a resource of usage None every op but None fails: the second
    // entry fails and the first must not be applied either.
    let mut none = AuxMap::new(
        AuxUsage::None,
        SliceLayout::Array { layers: 1 },
        1,
        PassThrough,
    )
    .unwrap();
    let before = none.clone();
    assert!(none
        .apply_slice_ops(&[s(AuxOp::None), s(AuxOp::Ambiguate)])
        .is_err());
    assert_eq!(none, before);
}
