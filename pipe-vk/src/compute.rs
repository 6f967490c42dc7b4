//! Compute: `launch_grid` and global bindings (being written).

use pipe_core::shader::GridInfo;
use pipe_core::{PipeError, PipeResult, Resource};

use crate::context::VkContext;

/// Compute pipelines and their layout.
#[derive(Default)]
pub struct ComputeCache {}

impl ComputeCache {
    /// Destroys everything (the context waited for its batches).
    pub fn destroy(&mut self, _device: &ash::Device) {}
}

impl VkContext {
    pub(crate) fn do_launch_grid(&mut self, _info: &GridInfo) -> PipeResult<()> {
        Err(PipeError::unsupported(
            "launch_grid is not supported by pipe-vk yet (issue 7)",
        ))
    }

    pub(crate) fn do_set_global_binding(
        &mut self,
        _first: u32,
        _resources: &[Option<Resource>],
    ) -> PipeResult<Vec<u64>> {
        Err(PipeError::unsupported(
            "set_global_binding is not supported by pipe-vk yet (issue 7)",
        ))
    }
}
