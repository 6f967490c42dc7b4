//! Constant state object handles and the hash-consing table behind them.
//!
//! Gallium's CSOs are opaque `void *` that a driver makes from a template. We
//! use cheap typed handles ([`Cso<T>`]: a `u32`) and a [`CsoTable<T>`] that
//! every implementation of [`crate::Context`] can use: creating a state equal
//! to a live one returns the *same* handle and bumps a reference count (as
//! Mesa's `cso_cache` does above the driver), so a backend can key its own
//! caches (Vulkan pipeline keys, samplers) on the handle alone. A handle is
//! freed when it has been deleted as many times as it was created.
//!
//! Shader handles also carry their stage so that binding a fragment shader
//! with `bind_vs_state` is rejected without a table lookup.

use std::collections::HashMap;
use std::fmt;
use std::hash::Hash;
use std::marker::PhantomData;
use std::num::NonZeroU32;

use crate::error::{PipeError, PipeResult};
use crate::shader::{ComputeState, ShaderState};
use crate::state::{
    BlendState, DepthStencilAlphaState, RasterizerState, SamplerState, ShaderStage, VertexElement,
};

/// A typed CSO handle.
pub struct Cso<T> {
    id: NonZeroU32,
    _marker: PhantomData<fn() -> T>,
}

impl<T> Cso<T> {
    /// The handle's index (1-based), stable while the state lives.
    pub fn id(self) -> u32 {
        self.id.get()
    }

    fn from_index(index: usize) -> Option<Self> {
        let id = u32::try_from(index.checked_add(1)?).ok()?;
        Some(Cso {
            id: NonZeroU32::new(id)?,
            _marker: PhantomData,
        })
    }

    fn index(self) -> usize {
        (self.id.get() - 1) as usize
    }
}

impl<T> Clone for Cso<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Cso<T> {}
impl<T> PartialEq for Cso<T> {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}
impl<T> Eq for Cso<T> {}
impl<T> Hash for Cso<T> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.id.hash(state)
    }
}
impl<T> fmt::Debug for Cso<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ty = std::any::type_name::<T>()
            .rsplit("::")
            .next()
            .unwrap_or("?");
        write!(f, "Cso<{ty}>({})", self.id)
    }
}

/// Handle to a blend CSO.
pub type BlendHandle = Cso<BlendState>;
/// Handle to a rasterizer CSO.
pub type RasterizerHandle = Cso<RasterizerState>;
/// Handle to a depth-stencil-alpha CSO.
pub type DepthStencilAlphaHandle = Cso<DepthStencilAlphaState>;
/// Handle to a sampler CSO.
pub type SamplerHandle = Cso<SamplerState>;
/// Handle to a vertex-elements CSO (the template is the element list).
pub type VertexElementsHandle = Cso<Vec<VertexElement>>;
/// Handle to a compute CSO.
pub type ComputeHandle = Cso<ComputeState>;

/// Handle to a graphics shader CSO; carries its stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ShaderHandle {
    pub cso: Cso<ShaderState>,
    pub stage: ShaderStage,
}

struct Entry<T> {
    state: T,
    refs: u32,
}

/// A hash-consing table of CSO templates.
pub struct CsoTable<T> {
    entries: Vec<Option<Entry<T>>>,
    lookup: HashMap<T, usize>,
    free: Vec<usize>,
}

impl<T> Default for CsoTable<T> {
    fn default() -> Self {
        CsoTable {
            entries: Vec::new(),
            lookup: HashMap::new(),
            free: Vec::new(),
        }
    }
}

impl<T: Hash + Eq + Clone> CsoTable<T> {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Returns the handle of `state`, creating it if no equal state is live.
    /// The second value is true when the state is new (the backend should
    /// build its object for it).
    pub fn create(&mut self, state: &T) -> PipeResult<(Cso<T>, bool)> {
        if let Some(&index) = self.lookup.get(state) {
            if let Some(Some(e)) = self.entries.get_mut(index) {
                e.refs = e.refs.saturating_add(1);
                return Cso::from_index(index)
                    .map(|h| (h, false))
                    .ok_or(PipeError::OutOfMemory);
            }
        }
        let index = match self.free.pop() {
            Some(i) => i,
            None => {
                self.entries.push(None);
                self.entries.len() - 1
            }
        };
        let handle = Cso::from_index(index).ok_or(PipeError::OutOfMemory)?;
        self.entries[index] = Some(Entry {
            state: state.clone(),
            refs: 1,
        });
        self.lookup.insert(state.clone(), index);
        Ok((handle, true))
    }

    /// The template of a live handle.
    pub fn get(&self, handle: Cso<T>) -> PipeResult<&T> {
        match self.entries.get(handle.index()) {
            Some(Some(e)) => Ok(&e.state),
            _ => Err(PipeError::invalid(format!(
                "{handle:?} is not a live state object of this context"
            ))),
        }
    }

    /// The handle with id `id`, if it is live.
    pub fn handle_of(&self, id: u32) -> Option<Cso<T>> {
        let h = Cso::from_index(usize::try_from(id).ok()?.checked_sub(1)?)?;
        self.contains(h).then_some(h)
    }

    /// Whether the handle is live.
    pub fn contains(&self, handle: Cso<T>) -> bool {
        matches!(self.entries.get(handle.index()), Some(Some(_)))
    }

    /// Drops one reference. Returns the template when the last reference
    /// went away (the backend frees its object then).
    pub fn delete(&mut self, handle: Cso<T>) -> PipeResult<Option<T>> {
        let index = handle.index();
        let slot = self.entries.get_mut(index);
        let Some(Some(entry)) = slot else {
            return Err(PipeError::invalid(format!(
                "delete of {handle:?}, which is not a live state object"
            )));
        };
        entry.refs -= 1;
        if entry.refs > 0 {
            return Ok(None);
        }
        let entry = self.entries[index].take();
        self.free.push(index);
        Ok(entry.map(|e| {
            self.lookup.remove(&e.state);
            e.state
        }))
    }

    /// Number of live states.
    pub fn len(&self) -> usize {
        self.lookup.len()
    }

    /// Whether no state is live.
    pub fn is_empty(&self) -> bool {
        self.lookup.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{BlendFactor, RasterizerState};

    #[test]
    fn identical_states_share_a_handle() {
        let mut t = CsoTable::new();
        let mut a = BlendState::default();
        a.rt[0].rgb_src_factor = BlendFactor::SrcAlpha;
        let b = a;
        let (ha, new_a) = t.create(&a).unwrap();
        let (hb, new_b) = t.create(&b).unwrap();
        assert_eq!(ha, hb);
        assert!(new_a);
        assert!(!new_b);
        let mut c = a;
        c.rt[0].rgb_src_factor = BlendFactor::One;
        let (hc, _) = t.create(&c).unwrap();
        assert_ne!(ha, hc);
        assert_eq!(t.len(), 2);
    }

    #[test]
    fn handle_lives_until_every_create_is_deleted() {
        let mut t = CsoTable::new();
        let s = RasterizerState {
            line_width: 2.0,
            ..Default::default()
        };
        let (h, _) = t.create(&s).unwrap();
        let (h2, _) = t.create(&s).unwrap();
        assert_eq!(h, h2);
        assert_eq!(t.delete(h).unwrap(), None);
        assert!(t.contains(h));
        assert_eq!(t.delete(h).unwrap().map(|s| s.line_width), Some(2.0));
        assert!(!t.contains(h));
        assert!(t.delete(h).is_err());
        assert!(t.get(h).is_err());
    }

    #[test]
    fn floats_compare_by_bits() {
        let mut t = CsoTable::new();
        let a = RasterizerState {
            offset_units: 0.0,
            ..Default::default()
        };
        let b = RasterizerState {
            offset_units: -0.0,
            ..Default::default()
        };
        let (ha, _) = t.create(&a).unwrap();
        let (hb, _) = t.create(&b).unwrap();
        assert_ne!(ha, hb, "0.0 and -0.0 differ bitwise, as with memcmp");
        let n = RasterizerState {
            point_size: f32::NAN,
            ..Default::default()
        };
        let (h1, _) = t.create(&n).unwrap();
        let (h2, _) = t.create(&n).unwrap();
        assert_eq!(h1, h2, "NaN equals itself bitwise");
    }

    #[test]
    fn freed_slots_are_reused_without_confusing_states() {
        let mut t = CsoTable::new();
        let a = SamplerState::default();
        let b = SamplerState {
            max_anisotropy: 4,
            ..Default::default()
        };
        let (ha, _) = t.create(&a).unwrap();
        t.delete(ha).unwrap();
        let (hb, new) = t.create(&b).unwrap();
        assert!(new);
        assert_eq!(t.get(hb).unwrap().max_anisotropy, 4);
        let (ha2, new) = t.create(&a).unwrap();
        assert!(new);
        assert_ne!(ha2, hb);
    }
}
