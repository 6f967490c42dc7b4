//! Reference-counted driver objects.
//!
//! Gallium objects (`pipe_resource`, `pipe_sampler_view`, `pipe_surface`,
//! `pipe_query`, `pipe_fence_handle`, ...) are a public description that a
//! driver extends with private data. Here every such object is an
//! [`Object<D>`]: the frontend-visible description `D`, a unique id, and a
//! backend payload the frontend cannot name (`dyn Any`). Objects are shared as
//! `Arc<Object<D>>`, so a reference held by the frontend, by bound state or by
//! an in-flight batch keeps the object alive; the backend payload's `Drop`
//! decides when GPU memory is really freed (after the last batch that used it
//! retires).
//!
//! A wrapping driver (trace, no-op, validation) passes the same objects
//! through; a backend downcasts the payload with [`Object::backend`] and
//! rejects objects created by another driver with `InvalidArgument`.

use std::any::Any;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::error::{PipeError, PipeResult};

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A driver object: a public description plus private backend data.
pub struct Object<D> {
    desc: D,
    id: u64,
    backend: Box<dyn Any + Send + Sync>,
}

impl<D> Object<D> {
    /// Creates a new object. Backends call this; the id is process-unique.
    pub fn new(desc: D, backend: impl Any + Send + Sync) -> Arc<Self> {
        Arc::new(Object {
            desc,
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            backend: Box::new(backend),
        })
    }

    /// The frontend-visible description.
    pub fn desc(&self) -> &D {
        &self.desc
    }

    /// Process-unique id, stable for the object's lifetime (used for
    /// hashing, tracing and debug names).
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The backend payload, if it is a `T`.
    pub fn backend<T: Any>(&self) -> Option<&T> {
        self.backend.downcast_ref::<T>()
    }

    /// The backend payload, or `InvalidArgument` naming `what` when the
    /// object belongs to another driver.
    pub fn backend_or_err<T: Any>(&self, what: &str) -> PipeResult<&T> {
        self.backend::<T>().ok_or_else(|| {
            PipeError::invalid(format!(
                "{what} #{} was not created by this driver",
                self.id
            ))
        })
    }
}

impl<D: fmt::Debug> fmt::Debug for Object<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Object")
            .field("id", &self.id)
            .field("desc", &self.desc)
            .finish_non_exhaustive()
    }
}

impl<D> PartialEq for Object<D> {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl<D> Eq for Object<D> {}

impl<D> std::hash::Hash for Object<D> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.id.hash(state);
    }
}
