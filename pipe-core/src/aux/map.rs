//! Per-slice aux tracking of one resource: [`AuxMap`].
//!
//! A slice is one (level, layer) pair. 1D/2D array layers and cube faces
//! keep their count at every level; the depth of a 3D texture is minified
//! per level (`max(1, depth >> level)`), so a 3D texture has fewer slices at
//! each smaller level. States are stored in one flat vector, level by level,
//! with per-level offsets.
//!
//! Every mutating call checks the whole range and computes every new state
//! before it changes anything: an `Err` leaves the map as it was.

use std::ops::Range;

use super::{
    aux_state_possible, prepare_access, transition_aux_op, transition_write, AuxError, AuxOp,
    AuxState, AuxUsage,
};

/// The most mip levels a map may have (a `u32` extent has at most 32).
pub const MAX_LEVELS: u32 = 32;

/// The most layers (array layers, cube faces, or 3D depth at level 0) a map
/// may have. Far above what Vulkan and GL implementations expose; it bounds
/// the memory a bad argument can ask for.
pub const MAX_LAYERS: u32 = 1 << 16;

/// The slice structure of a resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SliceLayout {
    /// 1D/2D textures and their arrays: `layers` slices at every level.
    Array {
        /// Array length (1 for a non-array texture).
        layers: u32,
    },
    /// Cube maps and cube-map arrays: `6 * cubes` faces at every level.
    Cube {
        /// Number of cubes (1 for a plain cube map).
        cubes: u32,
    },
    /// 3D textures: `max(1, depth >> level)` slices at each level.
    Volume {
        /// Depth of level 0.
        depth: u32,
    },
}

impl SliceLayout {
    /// Number of slices at `level` (no range check on `level`).
    fn layers_at(self, level: u32) -> u32 {
        match self {
            SliceLayout::Array { layers } => layers,
            SliceLayout::Cube { cubes } => cubes.saturating_mul(6),
            SliceLayout::Volume { depth } => depth.checked_shr(level).unwrap_or(0).max(1),
        }
    }
}

/// The op one slice needs, as returned by [`AuxMap::prepare_access`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SliceOp {
    /// Mip level.
    pub level: u32,
    /// Array layer, cube face (`6 * cube + face`) or 3D depth slice.
    pub layer: u32,
    /// The op to run on this slice before the access.
    pub op: AuxOp,
}

/// The aux state of every (level, layer) slice of one resource.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuxMap {
    usage: AuxUsage,
    layout: SliceLayout,
    levels: u32,
    /// `offsets[l]` is the index of (l, 0) in `states`; `levels + 1` entries.
    offsets: Vec<usize>,
    states: Vec<AuxState>,
}

impl AuxMap {
    /// A map of a resource whose aux is used as `usage`, with `levels` mip
    /// levels, every slice in `initial`.
    ///
    /// Errors: zero or more than [`MAX_LEVELS`] levels; zero or more than
    /// [`MAX_LAYERS`] layers (faces, depth); `initial` impossible for
    /// `usage`.
    pub fn new(
        usage: AuxUsage,
        layout: SliceLayout,
        levels: u32,
        initial: AuxState,
    ) -> Result<AuxMap, AuxError> {
        let bad = |why: String| {
            Err(AuxError::new(format!(
                "AuxMap::new (op: create, {levels} levels, {layout:?}): {why} \
                 (state {initial}, usage {usage})"
            )))
        };
        if levels == 0 || levels > MAX_LEVELS {
            return bad(format!("level count must be 1..={MAX_LEVELS}"));
        }
        let base = match layout {
            SliceLayout::Array { layers } => layers,
            SliceLayout::Cube { cubes } => cubes.saturating_mul(6),
            SliceLayout::Volume { depth } => depth,
        };
        if base == 0 || base > MAX_LAYERS {
            return bad(format!(
                "layer count (faces, depth) must be 1..={MAX_LAYERS}"
            ));
        }
        if !aux_state_possible(initial, usage) {
            return bad(format!("state {initial} is impossible for usage {usage}"));
        }
        let mut offsets = Vec::with_capacity(levels as usize + 1);
        let mut total = 0usize;
        for level in 0..levels {
            offsets.push(total);
            total += layout.layers_at(level) as usize;
        }
        offsets.push(total);
        Ok(AuxMap {
            usage,
            layout,
            levels,
            offsets,
            states: vec![initial; total],
        })
    }

    /// The resource's aux usage (the one the transitions use).
    pub fn usage(&self) -> AuxUsage {
        self.usage
    }

    /// The slice structure given at creation.
    pub fn layout(&self) -> SliceLayout {
        self.layout
    }

    /// Number of mip levels.
    pub fn levels(&self) -> u32 {
        self.levels
    }

    /// Number of slices (layers, faces, depth slices) at `level`.
    pub fn layers(&self, level: u32) -> Result<u32, AuxError> {
        if level >= self.levels {
            return Err(AuxError::new(format!(
                "AuxMap::layers: level {level} out of range (the resource has {} levels, \
                 usage {})",
                self.levels, self.usage
            )));
        }
        Ok(self.layout.layers_at(level))
    }

    /// Total number of slices over all levels.
    pub fn slice_count(&self) -> usize {
        self.states.len()
    }

    /// The state of one slice.
    pub fn state(&self, level: u32, layer: u32) -> Result<AuxState, AuxError> {
        let index = self.index("state", level, layer)?;
        self.states
            .get(index)
            .copied()
            .ok_or_else(|| AuxError::new(format!("AuxMap::state: no slice ({level}, {layer})")))
    }

    /// Every slice as `(level, layer, state)`, level by level.
    pub fn iter(&self) -> impl Iterator<Item = (u32, u32, AuxState)> + '_ {
        (0..self.levels).flat_map(move |level| {
            let start = self.offsets.get(level as usize).copied().unwrap_or(0);
            let count = self.layout.layers_at(level);
            (0..count).filter_map(move |layer| {
                self.states
                    .get(start + layer as usize)
                    .map(|&state| (level, layer, state))
            })
        })
    }

    /// For every slice of the range, the op that must run before an access
    /// with `usage` (the access usage: the resource's, a compatible one such
    /// as CCS_D on a CCS_E resource, or `None` for an access without aux).
    /// One entry per slice, level by level, `AuxOp::None` included.
    pub fn prepare_access(
        &self,
        levels: Range<u32>,
        layers: Range<u32>,
        usage: AuxUsage,
        fast_clear_supported: bool,
    ) -> Result<Vec<SliceOp>, AuxError> {
        let slices = self.slices("prepare_access", &levels, &layers)?;
        slices
            .into_iter()
            .map(|(level, layer, index)| {
                let state = self.state_at(index)?;
                let op = prepare_access(state, usage, fast_clear_supported)
                    .map_err(|e| at_slice(e, level, layer))?;
                Ok(SliceOp { level, layer, op })
            })
            .collect()
    }

    /// Records that `op` ran on every slice of the range (transitions use
    /// the resource usage).
    pub fn apply_op(
        &mut self,
        levels: Range<u32>,
        layers: Range<u32>,
        op: AuxOp,
    ) -> Result<(), AuxError> {
        let slices = self.slices("apply_op", &levels, &layers)?;
        let mut updates = Vec::with_capacity(slices.len());
        for (level, layer, index) in slices {
            let state = self.state_at(index)?;
            let next =
                transition_aux_op(state, self.usage, op).map_err(|e| at_slice(e, level, layer))?;
            updates.push((index, next));
        }
        self.commit(updates)
    }

    /// Records that each slice's op of `ops` (typically the result of
    /// [`AuxMap::prepare_access`]) ran.
    pub fn apply_slice_ops(&mut self, ops: &[SliceOp]) -> Result<(), AuxError> {
        // Work on a copy so that a slice listed twice sees its first update
        // and an error leaves the map unchanged.
        let mut work = self.states.clone();
        for slice in ops {
            let index = self.index("apply_slice_ops", slice.level, slice.layer)?;
            let slot = work.get_mut(index).ok_or_else(|| {
                AuxError::new(format!(
                    "AuxMap::apply_slice_ops: no slice at index {index}"
                ))
            })?;
            *slot = transition_aux_op(*slot, self.usage, slice.op)
                .map_err(|e| at_slice(e, slice.level, slice.layer))?;
        }
        self.states = work;
        Ok(())
    }

    /// Runs [`AuxMap::prepare_access`], records the ops as done, and returns
    /// the slices whose op is not `AuxOp::None` (what the caller must
    /// execute before the access).
    pub fn prepare_and_apply(
        &mut self,
        levels: Range<u32>,
        layers: Range<u32>,
        usage: AuxUsage,
        fast_clear_supported: bool,
    ) -> Result<Vec<SliceOp>, AuxError> {
        let ops = self.prepare_access(levels, layers, usage, fast_clear_supported)?;
        self.apply_slice_ops(&ops)?;
        Ok(ops.into_iter().filter(|s| s.op != AuxOp::None).collect())
    }

    /// Records a write with `usage` (`None` for a write without aux) to
    /// every slice of the range; `full_surface` says the write covers each
    /// of those slices entirely.
    pub fn finish_write(
        &mut self,
        levels: Range<u32>,
        layers: Range<u32>,
        usage: AuxUsage,
        full_surface: bool,
    ) -> Result<(), AuxError> {
        let slices = self.slices("finish_write", &levels, &layers)?;
        let mut updates = Vec::with_capacity(slices.len());
        for (level, layer, index) in slices {
            let state = self.state_at(index)?;
            let next = transition_write(state, usage, full_surface)
                .map_err(|e| at_slice(e, level, layer))?;
            updates.push((index, next));
        }
        self.commit(updates)
    }

    /// Sets every slice of the range to `state` (e.g. after importing a
    /// surface whose aux state is known from elsewhere).
    pub fn set_state(
        &mut self,
        levels: Range<u32>,
        layers: Range<u32>,
        state: AuxState,
    ) -> Result<(), AuxError> {
        if !aux_state_possible(state, self.usage) {
            return Err(AuxError::new(format!(
                "AuxMap::set_state (op: set): state {state} is impossible for usage {}",
                self.usage
            )));
        }
        let slices = self.slices("set_state", &levels, &layers)?;
        let updates = slices.into_iter().map(|(_, _, i)| (i, state)).collect();
        self.commit(updates)
    }

    /// Index of one slice, or a range error.
    fn index(&self, what: &str, level: u32, layer: u32) -> Result<usize, AuxError> {
        let count = self.layers(level).map_err(|_| {
            AuxError::new(format!(
                "AuxMap::{what}: level {level} out of range (the resource has {} levels, \
                 usage {})",
                self.levels, self.usage
            ))
        })?;
        if layer >= count {
            return Err(AuxError::new(format!(
                "AuxMap::{what}: layer {layer} out of range at level {level} (it has {count} \
                 layers, usage {})",
                self.usage
            )));
        }
        let start = self
            .offsets
            .get(level as usize)
            .copied()
            .ok_or_else(|| AuxError::new(format!("AuxMap::{what}: no level {level}")))?;
        Ok(start + layer as usize)
    }

    /// Every slice of `levels` x `layers` as `(level, layer, index)`, or an
    /// error if a range is empty, reversed, or exceeds the resource at any of
    /// its levels.
    fn slices(
        &self,
        what: &str,
        levels: &Range<u32>,
        layers: &Range<u32>,
    ) -> Result<Vec<(u32, u32, usize)>, AuxError> {
        let err = |why: String| {
            Err(AuxError::new(format!(
                "AuxMap::{what}: {why} (levels {levels:?}, layers {layers:?}, usage {})",
                self.usage
            )))
        };
        if levels.start >= levels.end {
            return err("empty level range".into());
        }
        if levels.end > self.levels {
            return err(format!("the resource has {} levels", self.levels));
        }
        if layers.start >= layers.end {
            return err("empty layer range".into());
        }
        let mut out = Vec::new();
        for level in levels.clone() {
            let count = self.layout.layers_at(level);
            if layers.end > count {
                return err(format!("level {level} has {count} layers"));
            }
            let start = match self.offsets.get(level as usize) {
                Some(&s) => s,
                None => return err(format!("no level {level}")),
            };
            for layer in layers.clone() {
                out.push((level, layer, start + layer as usize));
            }
        }
        Ok(out)
    }

    fn state_at(&self, index: usize) -> Result<AuxState, AuxError> {
        self.states
            .get(index)
            .copied()
            .ok_or_else(|| AuxError::new(format!("AuxMap: no slice at index {index}")))
    }

    /// Applies checked updates; every index was produced by `slices`/`index`.
    fn commit(&mut self, updates: Vec<(usize, AuxState)>) -> Result<(), AuxError> {
        if updates.iter().any(|&(i, _)| i >= self.states.len()) {
            return Err(AuxError::new("AuxMap: internal slice index out of range"));
        }
        for (index, state) in updates {
            if let Some(slot) = self.states.get_mut(index) {
                *slot = state;
            }
        }
        Ok(())
    }
}

/// Adds the slice to an error from the per-slice functions.
fn at_slice(e: AuxError, level: u32, layer: u32) -> AuxError {
    AuxError::new(format!(
        "{} at slice (level {level}, layer {layer})",
        e.message()
    ))
}
