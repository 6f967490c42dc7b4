//! Window rectangles (`set_window_rectangles`, GL_EXT_window_rectangles)
//! through VK_EXT_discard_rectangles.
//!
//! Design:
//! - Mode (include or exclude) and rectangle count are static pipeline
//!   state (`VkPipelineDiscardRectangleStateCreateInfoEXT`, key item
//!   `GfxKey::discard_rectangles`); the rectangles are dynamic
//!   (`VK_DYNAMIC_STATE_DISCARD_RECTANGLE_EXT`) and recorded when they
//!   change (`DynState::discard_rectangles`). Only revision 1 of the
//!   extension is used: its dynamic enable and mode (revision 2) are
//!   unknown to the Debian validation layer, and the key item changes
//!   only when the frontend switches mode or count.
//! - Gallium's rectangles are framebuffer coordinates with inclusive
//!   min and exclusive max, Vulkan's are an offset and an extent: the
//!   same pixels.
//! - Include mode with no rectangle keeps nothing: one empty rectangle.
//!   Exclude mode with none, the default state, tests nothing and needs no
//!   pipeline state.
//! - Where the device lacks the extension, has fewer rectangles than are
//!   bound, or with `PIPE_VK_DEBUG=no_discard_rectangles`, the fragment
//!   shader discards instead (`spirv_gen` key item `window_rects`). Unlike
//!   that fallback the Vulkan test runs before fragment shading, so it
//!   also holds with `early_fragment_tests` and keeps discarded fragments
//!   out of occlusion queries either way.
//! - The rectangles apply to draws only: clears are not rasterized, and
//!   the blitter's draws run with the window rectangles unbound (blits
//!   take theirs in `pipe_blit_info`, `blitter.rs`).

use ash::vk;
use pipe_core::state::ScissorState;
use smallvec::SmallVec;

use crate::device::{Device, PhysicalDevice};
use crate::instance::Instance;

/// What the device offers (`DeviceShared::discard_rectangles`).
pub struct Support {
    ext: ash::ext::discard_rectangles::Device,
    /// `maxDiscardRectangles`.
    pub max: u32,
}

impl Support {
    /// `None` without the extension.
    pub fn probe(instance: &Instance, physical: &PhysicalDevice, device: &Device) -> Option<Self> {
        if !device.features.has(ash::ext::discard_rectangles::NAME) {
            return None;
        }
        let props: vk::PhysicalDeviceDiscardRectanglePropertiesEXT =
            crate::device::extension_properties(instance, physical);
        (props.max_discard_rectangles > 0).then(|| Self {
            ext: ash::ext::discard_rectangles::Device::new(&instance.raw, &device.raw),
            max: props.max_discard_rectangles,
        })
    }

    /// The pipeline key item for the bound rectangles: `(include, count)`,
    /// or `None` where nothing is tested or the fragment shader must
    /// discard instead (too many rectangles).
    pub fn key(&self, include: bool, rects: &[ScissorState]) -> Option<(bool, u8)> {
        if !include && rects.is_empty() {
            return None;
        }
        let n = rects.len().max(1);
        (n as u32 <= self.max).then_some((include, n as u8))
    }

    /// Records the bound rectangles for a pipeline of key item `key`.
    ///
    /// # Safety
    /// `cmd` is recording, and the bound pipeline declares
    /// `VK_DYNAMIC_STATE_DISCARD_RECTANGLE_EXT` with `key`'s count.
    pub unsafe fn record(&self, cmd: vk::CommandBuffer, key: (bool, u8), rects: &[ScissorState]) {
        let vk_rects = to_vk(rects, usize::from(key.1));
        // SAFETY: guaranteed by the caller; `vk_rects` has the pipeline's
        // count.
        unsafe {
            (self.ext.fp().cmd_set_discard_rectangle_ext)(cmd, 0, key.1.into(), vk_rects.as_ptr())
        };
    }
}

/// `count` Vulkan rectangles for Gallium's `rects` (module doc): empty
/// ones where fewer are bound (include mode with none).
pub fn to_vk(rects: &[ScissorState], count: usize) -> SmallVec<[vk::Rect2D; 8]> {
    (0..count)
        .map(|i| match rects.get(i) {
            Some(r) => vk::Rect2D {
                offset: vk::Offset2D {
                    x: i32::from(r.minx),
                    y: i32::from(r.miny),
                },
                extent: vk::Extent2D {
                    width: u32::from(r.maxx.saturating_sub(r.minx)),
                    height: u32::from(r.maxy.saturating_sub(r.miny)),
                },
            },
            None => vk::Rect2D::default(),
        })
        .collect()
}

/// The mode for a key item's `include`.
pub fn mode(include: bool) -> vk::DiscardRectangleModeEXT {
    if include {
        vk::DiscardRectangleModeEXT::INCLUSIVE
    } else {
        vk::DiscardRectangleModeEXT::EXCLUSIVE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rectangles_are_offset_and_extent_and_padded_empty() {
        let r = ScissorState {
            minx: 2,
            miny: 3,
            maxx: 7,
            maxy: 4,
        };
        let v = to_vk(&[r], 2);
        assert_eq!((v[0].offset.x, v[0].offset.y), (2, 3));
        assert_eq!((v[0].extent.width, v[0].extent.height), (5, 1));
        assert_eq!((v[1].extent.width, v[1].extent.height), (0, 0));
    }
}
