//! Programmable sample locations: Gallium's `set_sample_locations`
//! (GL_ARB_sample_locations) through VK_EXT_sample_locations.
//!
//! Design, after Zink (`zink_init_vk_sample_locations`):
//! - The screen claims `programmable_sample_locations` only where the
//!   device has the extension with `variableSampleLocations`: locations
//!   change between draws of one rendering instance, and dynamic rendering
//!   has no begin-info to announce them.
//! - Gallium passes one byte per sample for each pixel of the grid
//!   (`Screen::get_sample_pixel_grid`, the device's
//!   `maxSampleLocationGridSize` for the count), in the order
//!   `(pixel_y * grid_width + pixel_x) * samples + sample`, which is
//!   VkSampleLocationsInfoEXT's order. Each byte holds x in its low nibble
//!   and y in its high nibble, in sixteenths of a pixel from the pixel's
//!   top-left corner with y down (the framebuffer's orientation, as
//!   `get_sample_position`); VkSampleLocationEXT has the same origin and
//!   direction, so a location is `nibble / 16`.
//! - `sampleLocationsEnable` is pipeline state (`GfxKey::sample_locations`).
//!   The locations are dynamic (`VK_DYNAMIC_STATE_SAMPLE_LOCATIONS_EXT`) in
//!   the pipelines that enable them, and recorded when they or the bound
//!   pipeline's enable change (`DynState::sample_locations`).
//! - Locations apply to a multisampled framebuffer of the sample count
//!   they were given for (their length says which). A framebuffer of
//!   another count draws with the default locations until the frontend
//!   sets new ones, as st/mesa does at every framebuffer change.
//! - Multisampled depth/stencil images are created
//!   `SAMPLE_LOCATIONS_COMPATIBLE_DEPTH` where the screen claims the cap
//!   (`resource.rs`), which Vulkan requires of a depth attachment drawn
//!   with custom locations.
//!
//! Not done: layout transitions of such depth images do not pass the
//! locations (`VkSampleLocationsInfoEXT` in the barrier), so a depth
//! buffer kept across a transition may be decompressed with the default
//! locations; Zink does the same unless `evaluate_depth_buffer` is called.

use ash::vk;
use smallvec::SmallVec;

use crate::device::{Device, PhysicalDevice};
use crate::instance::Instance;

/// What the device offers (`DeviceShared::sample_locations`).
pub struct Support {
    ext: ash::ext::sample_locations::Device,
    /// Per log2 of the sample count: the pixel grid one set of locations
    /// covers, where the count takes programmable locations.
    grids: [Option<vk::Extent2D>; 7],
}

impl Support {
    /// `None` without the extension or without `variableSampleLocations`.
    pub fn probe(instance: &Instance, physical: &PhysicalDevice, device: &Device) -> Option<Self> {
        if !device.features.has(ash::ext::sample_locations::NAME) {
            return None;
        }
        let props: vk::PhysicalDeviceSampleLocationsPropertiesEXT =
            crate::device::extension_properties(instance, physical);
        if props.variable_sample_locations != vk::TRUE {
            return None;
        }
        let inst = ash::ext::sample_locations::Instance::new(&instance.entry, &instance.raw);
        let mut grids = [None; 7];
        for (i, grid) in grids.iter_mut().enumerate() {
            let count = vk::SampleCountFlags::from_raw(1 << i);
            if !props.sample_location_sample_counts.contains(count) {
                continue;
            }
            let mut ms = vk::MultisamplePropertiesEXT::default();
            // SAFETY: as above; `count` is a single sample-count bit.
            unsafe {
                inst.get_physical_device_multisample_properties(physical.raw, count, &mut ms)
            };
            let e = ms.max_sample_location_grid_size;
            if e.width > 0 && e.height > 0 {
                *grid = Some(e);
            }
        }
        Some(Self {
            ext: ash::ext::sample_locations::Device::new(&instance.raw, &device.raw),
            grids,
        })
    }

    /// The grid for `samples` (a power of two), if that count takes
    /// programmable locations.
    pub fn grid(&self, samples: u32) -> Option<vk::Extent2D> {
        if !samples.is_power_of_two() {
            return None;
        }
        *self.grids.get(samples.trailing_zeros() as usize)?
    }

    /// How many bytes `set_sample_locations` takes for `samples`.
    pub fn len_for(&self, samples: u32) -> Option<usize> {
        let g = self.grid(samples)?;
        Some(g.width as usize * g.height as usize * samples as usize)
    }

    /// Whether `bytes` are locations for some multisampled count.
    pub fn valid_len(&self, len: usize) -> bool {
        (1..7).any(|i| self.len_for(1 << i) == Some(len))
    }

    /// Records `bytes` (of the length `len_for(samples)` asks) as the
    /// sample locations of the following draws.
    ///
    /// # Safety
    /// `cmd` is recording, and the bound pipeline declares
    /// `VK_DYNAMIC_STATE_SAMPLE_LOCATIONS_EXT` for `samples`.
    pub unsafe fn record(&self, cmd: vk::CommandBuffer, samples: u32, bytes: &[u8]) {
        let Some(grid) = self.grid(samples) else {
            return;
        };
        let locations = to_vk(bytes);
        let info = vk::SampleLocationsInfoEXT::default()
            .sample_locations_per_pixel(vk::SampleCountFlags::from_raw(samples))
            .sample_location_grid_size(grid)
            .sample_locations(&locations);
        // SAFETY: guaranteed by the caller; the info matches the count.
        unsafe { self.ext.cmd_set_sample_locations(cmd, &info) };
    }

    /// A valid placeholder for the pipeline's (ignored, dynamic) locations:
    /// every sample at the pixel centre.
    pub fn placeholder(&self, samples: u32) -> (vk::Extent2D, Vec<vk::SampleLocationEXT>) {
        let grid = self.grid(samples).unwrap_or(vk::Extent2D {
            width: 1,
            height: 1,
        });
        let n = grid.width as usize * grid.height as usize * samples as usize;
        (grid, vec![vk::SampleLocationEXT { x: 0.5, y: 0.5 }; n])
    }
}

/// Gallium's packed bytes as Vulkan locations (module doc).
pub fn to_vk(bytes: &[u8]) -> SmallVec<[vk::SampleLocationEXT; 16]> {
    bytes
        .iter()
        .map(|b| vk::SampleLocationEXT {
            x: f32::from(b & 0xf) / 16.0,
            y: f32::from(b >> 4) / 16.0,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nibbles_are_sixteenths_x_low_y_high() {
        let v = to_vk(&[0x00, 0xf1, 0x8f]);
        assert_eq!((v[0].x, v[0].y), (0.0, 0.0));
        assert_eq!((v[1].x, v[1].y), (1.0 / 16.0, 15.0 / 16.0));
        assert_eq!((v[2].x, v[2].y), (15.0 / 16.0, 0.5));
    }
}
