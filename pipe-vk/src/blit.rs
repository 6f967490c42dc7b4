//! `blit` and `generate_mipmap` (being written).

use pipe_core::blit::BlitInfo;
use pipe_core::{Format, PipeError, PipeResult, Resource};

use crate::context::VkContext;

impl VkContext {
    pub(crate) fn do_blit(&mut self, _info: &BlitInfo) -> PipeResult<()> {
        Err(PipeError::unsupported(
            "blit is not supported by pipe-vk yet (issue 6)",
        ))
    }

    pub(crate) fn do_generate_mipmap(
        &mut self,
        _resource: &Resource,
        _format: Format,
        _base_level: u32,
        _last_level: u32,
        _first_layer: u32,
        _last_layer: u32,
    ) -> PipeResult<bool> {
        Ok(false)
    }
}
