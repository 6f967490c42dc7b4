//! Conditional rendering: `render_condition_mem`.
//!
//! The predicate is a 32-bit value in a buffer; drawing is skipped when
//! "value != 0" equals the frontend's `condition` (the spec's rule for
//! `render_condition`). That is `VK_EXT_conditional_rendering` exactly:
//! Vulkan discards when the value is zero, or, with `INVERTED`, when it
//! is not, so `condition == true` maps to `INVERTED` (as Zink does).
//!
//! Where the predicate applies, and how:
//! - `draw_vbo` (always) and the blitter's draws (when the blit asks for
//!   it): conditional rendering begins inside the rendering instance, at
//!   the first predicated draw, and ends with the instance. Vulkan requires
//!   a scope begun inside an instance to end inside it, which this keeps.
//!   The predicate read (`CONDITIONAL_RENDERING_READ` at the
//!   `CONDITIONAL_RENDERING` stage) is declared with the draw's other
//!   accesses, so its barrier comes before the instance begins.
//! - `clear` (always), `clear_render_target` and `clear_depth_stencil`
//!   (when asked): a predicated clear cannot be deferred or become a load
//!   op (load ops are not predicated), so it is a `vkCmdClearAttachments`
//!   under conditional rendering in an instance of its own.
//! - `blit` (when asked): transfer commands are never predicated, so a
//!   predicated blit is drawn by the shader blitter, as Zink does. A blit
//!   the blitter cannot draw evaluates the predicate on the CPU (a flush
//!   and a wait, reported through the debug callback), like Zink's
//!   `zink_check_conditional_render`.
//!
//! `render_condition` with a query (`query.rs`) writes the query's
//! predicate into a buffer of its own and then sets it here.

use std::sync::Arc;

use ash::vk;
use pipe_core::flags::MapFlags;
use pipe_core::resource::PipeBox;
use pipe_core::{PipeError, PipeResult, Resource};

use crate::context::VkContext;
use crate::resource::{vk_resource, ResourceObject};
use crate::sync::Access;

/// The predicate read.
pub(crate) const PREDICATE_READ: Access = Access::new(
    vk::PipelineStageFlags2::CONDITIONAL_RENDERING_EXT,
    vk::AccessFlags2::CONDITIONAL_RENDERING_READ_EXT,
);

/// The bound predicate (`render_condition_mem`). It names the resource,
/// not its storage: a buffer renamed by a discarding map after the
/// condition was set is read at its new storage, so the storage object is
/// looked up by each predicated command ([`RenderCondition::obj`]).
#[derive(Clone)]
pub(crate) struct RenderCondition {
    resource: Resource,
    offset: u32,
    /// Skip when the value is non-zero (`condition == true`).
    inverted: bool,
}

impl RenderCondition {
    /// The predicate's current storage (checked to be a buffer when the
    /// condition was set; a resource keeps its kind across renames).
    fn obj(&self) -> Option<Arc<ResourceObject>> {
        vk_resource(&self.resource).ok().map(|r| r.obj())
    }
}

/// Per-context conditional-rendering state.
#[derive(Default)]
pub(crate) struct RenderCondState {
    pub(crate) cond: Option<RenderCondition>,
    /// The predicate buffer of the conditional-rendering scope begun
    /// inside the open rendering instance. The batch holds that storage
    /// until it retires, so its handle cannot be reused while this is set.
    pub(crate) active: Option<vk::Buffer>,
    /// `VK_EXT_conditional_rendering` entry points (the feature is on).
    pub(crate) ext: Option<ash::ext::conditional_rendering::Device>,
    /// Predicate evaluations on the CPU (blits with no drawn path).
    pub(crate) cpu_checks: u64,
}

impl VkContext {
    /// `render_condition_mem`.
    pub(crate) fn do_render_condition_mem(
        &mut self,
        buffer: Option<&Resource>,
        offset: u32,
        condition: bool,
    ) -> PipeResult<()> {
        let cond = match buffer {
            None => None,
            Some(res) => {
                let obj = vk_resource(res)?.obj();
                if obj.buffer().is_none() {
                    return Err(PipeError::invalid(
                        "render_condition_mem: the predicate must be in a buffer",
                    ));
                }
                let size = u64::from(res.desc().width0);
                if !offset.is_multiple_of(4) || u64::from(offset) + 4 > size {
                    return Err(PipeError::invalid(format!(
                        "render_condition_mem: offset {offset} is not a 4-byte aligned \
                         value inside the {size}-byte buffer"
                    )));
                }
                if self.render_cond.ext.is_none() {
                    return Err(PipeError::unsupported(
                        "render_condition_mem: the device has no conditionalRendering",
                    ));
                }
                Some(RenderCondition {
                    resource: res.clone(),
                    offset,
                    inverted: condition,
                })
            }
        };
        // A scope begun under the old predicate ends with it; the next
        // predicated command begins one under the new predicate.
        self.end_conditional_rendering();
        self.render_cond.cond = cond;
        Ok(())
    }

    /// Whether commands that honour the condition are predicated now.
    pub(crate) fn render_condition_set(&self) -> bool {
        self.render_cond.cond.is_some()
    }

    /// Declares the predicate read of the next predicated command. Call
    /// with the command's other accesses, before its barriers are emitted.
    pub(crate) fn declare_predicate_read(&mut self) {
        if let Some(obj) = self
            .render_cond
            .cond
            .as_ref()
            .and_then(RenderCondition::obj)
        {
            self.use_buffer(&obj, PREDICATE_READ, false);
        }
    }

    /// Begins conditional rendering in the open rendering instance, when
    /// a predicate is set and no scope reads its current storage (a scope
    /// begun before the predicate buffer was renamed is ended first).
    pub(crate) fn begin_conditional_rendering(&mut self) {
        if !self.rendering {
            return;
        }
        let (Some(c), Some(ext)) = (&self.render_cond.cond, &self.render_cond.ext) else {
            return;
        };
        let Some(buffer) = c.obj().and_then(|o| o.buffer()) else {
            return;
        };
        if self.render_cond.active == Some(buffer) {
            return;
        }
        let info = vk::ConditionalRenderingBeginInfoEXT::default()
            .buffer(buffer)
            .offset(u64::from(c.offset))
            .flags(if c.inverted {
                vk::ConditionalRenderingFlagsEXT::INVERTED
            } else {
                vk::ConditionalRenderingFlagsEXT::empty()
            });
        let begin = ext.fp().cmd_begin_conditional_rendering_ext;
        self.end_conditional_rendering();
        let cmd = self.batches.cmd();
        // SAFETY: recording inside a rendering instance with no scope
        // begun (ended just above); the buffer has CONDITIONAL_RENDERING
        // usage (every buffer has it when the feature is on) and the
        // offset is 4-aligned and in range (checked at
        // `render_condition_mem`); the batch holds the buffer
        // (`declare_predicate_read`).
        unsafe { begin(cmd, &info) };
        self.render_cond.active = Some(buffer);
    }

    /// Ends the conditional-rendering scope, if one is begun (before the
    /// rendering instance ends).
    pub(crate) fn end_conditional_rendering(&mut self) {
        if self.render_cond.active.take().is_none() {
            return;
        }
        if let Some(ext) = &self.render_cond.ext {
            let cmd = self.batches.cmd();
            // SAFETY: a scope begun in the still-open rendering instance.
            unsafe { (ext.fp().cmd_end_conditional_rendering_ext)(cmd) };
        }
    }

    /// Suspends the predicate (for commands that do not honour it); give
    /// the result back to [`VkContext::resume_render_condition`].
    pub(crate) fn suspend_render_condition(&mut self) -> Option<RenderCondition> {
        self.end_rendering();
        self.render_cond.cond.take()
    }

    /// Restores a suspended predicate. A rendering instance left open
    /// needs nothing more: the next predicated command begins its scope
    /// there ([`VkContext::begin_conditional_rendering`]).
    pub(crate) fn resume_render_condition(&mut self, saved: Option<RenderCondition>) {
        self.render_cond.cond = saved;
    }

    /// Evaluates the predicate on the CPU: `true` when the command runs.
    /// Flushes and waits when the GPU has yet to write the value.
    pub(crate) fn render_condition_passes_on_cpu(&mut self) -> PipeResult<bool> {
        let Some(c) = self.render_cond.cond.clone() else {
            return Ok(true);
        };
        self.render_cond.cpu_checks += 1;
        self.debug_message(pipe_core::state::DebugType::PerfInfo, 6, || {
            "render condition evaluated on the CPU (a predicated blit with no drawn path)"
                .to_string()
        });
        let t =
            self.do_transfer_map(&c.resource, 0, MapFlags::READ, &PipeBox::range(c.offset, 4))?;
        let mut v = [0u8; 4];
        let read = t.read_bytes(0, &mut v);
        self.do_transfer_unmap(t)?;
        read.ok_or_else(|| PipeError::invalid("render condition: short read"))?;
        let nonzero = u32::from_ne_bytes(v) != 0;
        Ok(nonzero != c.inverted)
    }
}
