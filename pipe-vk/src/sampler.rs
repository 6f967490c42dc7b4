//! Sampler CSOs to `VkSampler`s (Zink's `zink_create_sampler_state`).
//!
//! Gallium wrap modes Vulkan lacks are mapped as Zink does: GL_CLAMP
//! becomes CLAMP_TO_EDGE and MIRROR_CLAMP becomes MIRROR_CLAMP_TO_EDGE. A
//! sampler without mipmapping (`MipFilter::None`) samples level 0 only:
//! NEAREST mip mode with `maxLod = 0.25`, as Zink does. Border colours use
//! VK_EXT_custom_border_color when enabled, else the closest standard one.
//! Seamless cube map filtering off uses VK_EXT_non_seamless_cube_map.

use ash::vk;
use pipe_core::state::{CompareFunc, MipFilter, ReductionMode, SamplerState, TexFilter, TexWrap};
use pipe_core::PipeResult;

use crate::instance::vk_err;
use crate::memory::DeviceShared;

fn wrap(w: TexWrap) -> vk::SamplerAddressMode {
    match w {
        TexWrap::Repeat => vk::SamplerAddressMode::REPEAT,
        TexWrap::Clamp | TexWrap::ClampToEdge => vk::SamplerAddressMode::CLAMP_TO_EDGE,
        TexWrap::ClampToBorder => vk::SamplerAddressMode::CLAMP_TO_BORDER,
        TexWrap::MirrorRepeat => vk::SamplerAddressMode::MIRRORED_REPEAT,
        TexWrap::MirrorClamp | TexWrap::MirrorClampToEdge | TexWrap::MirrorClampToBorder => {
            vk::SamplerAddressMode::MIRROR_CLAMP_TO_EDGE
        }
    }
}

fn filter(f: TexFilter) -> vk::Filter {
    match f {
        TexFilter::Nearest => vk::Filter::NEAREST,
        TexFilter::Linear => vk::Filter::LINEAR,
    }
}

fn compare(f: CompareFunc) -> vk::CompareOp {
    match f {
        CompareFunc::Never => vk::CompareOp::NEVER,
        CompareFunc::Less => vk::CompareOp::LESS,
        CompareFunc::Equal => vk::CompareOp::EQUAL,
        CompareFunc::LEqual => vk::CompareOp::LESS_OR_EQUAL,
        CompareFunc::Greater => vk::CompareOp::GREATER,
        CompareFunc::NotEqual => vk::CompareOp::NOT_EQUAL,
        CompareFunc::GEqual => vk::CompareOp::GREATER_OR_EQUAL,
        CompareFunc::Always => vk::CompareOp::ALWAYS,
    }
}

/// Creates the `VkSampler` of a sampler CSO.
pub fn create(dev: &DeviceShared, s: &SamplerState) -> PipeResult<vk::Sampler> {
    let f = &dev.device.features;
    let (mipmap_mode, min_lod, max_lod) = match s.min_mip_filter {
        MipFilter::None => (vk::SamplerMipmapMode::NEAREST, 0.0, 0.25),
        MipFilter::Nearest => (
            vk::SamplerMipmapMode::NEAREST,
            s.min_lod,
            s.max_lod.max(s.min_lod),
        ),
        MipFilter::Linear => (
            vk::SamplerMipmapMode::LINEAR,
            s.min_lod,
            s.max_lod.max(s.min_lod),
        ),
    };
    let limits = dev.physical.properties.limits;
    let aniso = f.core.sampler_anisotropy == vk::TRUE && s.max_anisotropy > 1;
    let mut reduction =
        vk::SamplerReductionModeCreateInfo::default().reduction_mode(match s.reduction_mode {
            ReductionMode::WeightedAverage => vk::SamplerReductionMode::WEIGHTED_AVERAGE,
            ReductionMode::Min => vk::SamplerReductionMode::MIN,
            ReductionMode::Max => vk::SamplerReductionMode::MAX,
        });
    let custom = f.custom_border_color.custom_border_colors == vk::TRUE;
    let mut border = vk::SamplerCustomBorderColorCreateInfoEXT::default().custom_border_color(
        vk::ClearColorValue {
            uint32: s.border_color.0,
        },
    );
    let uses_border = [s.wrap_s, s.wrap_t, s.wrap_r].contains(&TexWrap::ClampToBorder);
    let border_color = if uses_border && custom {
        if s.border_color_is_integer {
            vk::BorderColor::INT_CUSTOM_EXT
        } else {
            vk::BorderColor::FLOAT_CUSTOM_EXT
        }
    } else {
        let c = s.border_color.f32();
        match (c[3] > 0.5, c[0] > 0.5, s.border_color_is_integer) {
            (false, _, false) => vk::BorderColor::FLOAT_TRANSPARENT_BLACK,
            (true, false, false) => vk::BorderColor::FLOAT_OPAQUE_BLACK,
            (true, true, false) => vk::BorderColor::FLOAT_OPAQUE_WHITE,
            (false, _, true) => vk::BorderColor::INT_TRANSPARENT_BLACK,
            (true, false, true) => vk::BorderColor::INT_OPAQUE_BLACK,
            (true, true, true) => vk::BorderColor::INT_OPAQUE_WHITE,
        }
    };
    let mut info = vk::SamplerCreateInfo::default()
        .mag_filter(filter(s.mag_img_filter))
        .min_filter(filter(s.min_img_filter))
        .mipmap_mode(mipmap_mode)
        .address_mode_u(wrap(s.wrap_s))
        .address_mode_v(wrap(s.wrap_t))
        .address_mode_w(wrap(s.wrap_r))
        .mip_lod_bias(
            s.lod_bias
                .clamp(-limits.max_sampler_lod_bias, limits.max_sampler_lod_bias),
        )
        .anisotropy_enable(aniso)
        .max_anisotropy(f32::from(s.max_anisotropy).clamp(1.0, limits.max_sampler_anisotropy))
        .compare_enable(s.compare_mode)
        .compare_op(compare(s.compare_func))
        .min_lod(min_lod)
        .max_lod(max_lod)
        .border_color(border_color)
        // Rect textures divide coordinates in the shader (spirv-gen), so
        // unnormalized sampling with its many restrictions is never used.
        .unnormalized_coordinates(false);
    // GL's seamless cube map filtering off (its default without
    // ARB_seamless_cube_map): faces filtered apart, with
    // VK_EXT_non_seamless_cube_map as Zink does. Devices without it
    // always filter seamlessly (caps.seamless_cube_map_per_texture says
    // so).
    if !s.seamless_cube_map && f.non_seamless_cube_map.non_seamless_cube_map == vk::TRUE {
        info = info.flags(vk::SamplerCreateFlags::NON_SEAMLESS_CUBE_MAP_EXT);
    }
    if s.reduction_mode != ReductionMode::WeightedAverage {
        if f.v12.sampler_filter_minmax != vk::TRUE {
            return Err(pipe_core::PipeError::unsupported(
                "min/max sampler reduction",
            ));
        }
        info = info.push_next(&mut reduction);
    }
    if uses_border && custom {
        info = info.push_next(&mut border);
    }
    // SAFETY: parameters clamped to the device limits; extension structs
    // chained only when their features are enabled.
    unsafe { dev.raw().create_sampler(&info, None) }.map_err(|e| vk_err("vkCreateSampler", e))
}
