//! The caps probe: fills `pipe_core::Caps` once per screen from the device's
//! properties, limits, queue family and the features pipe-vk *enabled*
//! ([`crate::device::Features`]), never from what a device usually has.
//! Zink's `zink_screen.c` `zink_get_param` is the model.

use ash::vk;
use pipe_core::caps::{Caps, DeviceType, ShaderCaps};
use pipe_core::state::ShaderStage;

use crate::device::{Features, PhysicalDevice};
use crate::instance::Instance;

fn b(v: vk::Bool32) -> bool {
    v == vk::TRUE
}

/// Probes the caps.
pub fn probe(instance: &Instance, pd: &PhysicalDevice, f: &Features) -> Caps {
    let mut tf_props = vk::PhysicalDeviceTransformFeedbackPropertiesEXT::default();
    let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
    let mut line_props = vk::PhysicalDeviceLineRasterizationPropertiesEXT::default();
    let mut props2 = vk::PhysicalDeviceProperties2::default().push_next(&mut subgroup);
    let has_tf = f.has(ash::ext::transform_feedback::NAME);
    if has_tf {
        props2 = props2.push_next(&mut tf_props);
    }
    let has_lr = f.has(ash::ext::line_rasterization::NAME);
    if has_lr {
        props2 = props2.push_next(&mut line_props);
    }
    // SAFETY: the chain only holds structs of enabled extensions or core 1.1.
    unsafe {
        instance
            .raw
            .get_physical_device_properties2(pd.raw, &mut props2)
    };
    let props = props2.properties;
    let l = props.limits;
    let c = &f.core;

    let device_type = match props.device_type {
        vk::PhysicalDeviceType::DISCRETE_GPU => DeviceType::DiscreteGpu,
        vk::PhysicalDeviceType::INTEGRATED_GPU => DeviceType::IntegratedGpu,
        vk::PhysicalDeviceType::VIRTUAL_GPU => DeviceType::VirtualGpu,
        vk::PhysicalDeviceType::CPU => DeviceType::Cpu,
        _ => DeviceType::Other,
    };

    let stage = |st: ShaderStage| -> ShaderCaps {
        let supported = match st {
            ShaderStage::TessCtrl | ShaderStage::TessEval => b(c.tessellation_shader),
            ShaderStage::Geometry => b(c.geometry_shader),
            _ => true,
        };
        if !supported {
            return ShaderCaps::default();
        }
        let (inputs, outputs) = match st {
            ShaderStage::Vertex => (
                l.max_vertex_input_attributes,
                l.max_vertex_output_components / 4,
            ),
            ShaderStage::TessCtrl => (
                l.max_tessellation_control_per_vertex_input_components / 4,
                l.max_tessellation_control_per_vertex_output_components / 4,
            ),
            ShaderStage::TessEval => (
                l.max_tessellation_evaluation_input_components / 4,
                l.max_tessellation_evaluation_output_components / 4,
            ),
            ShaderStage::Geometry => (
                l.max_geometry_input_components / 4,
                l.max_geometry_output_components / 4,
            ),
            ShaderStage::Fragment => (
                l.max_fragment_input_components / 4,
                l.max_fragment_output_attachments,
            ),
            ShaderStage::Compute => (0, 0),
        };
        // As Zink: stages whose stores and atomics the device cannot run
        // report no images or shader buffers (pipe-vk could bind
        // read-only ones, but GL has no read-only-only limit to report).
        let stores = match st {
            ShaderStage::Fragment => b(c.fragment_stores_and_atomics),
            ShaderStage::Compute => true,
            _ => b(c.vertex_pipeline_stores_and_atomics),
        };
        ShaderCaps {
            supported,
            max_inputs: inputs.min(32),
            max_outputs: outputs.min(32),
            max_const_buffer0_size: l.max_uniform_buffer_range.min(65536),
            max_const_buffers: l.max_per_stage_descriptor_uniform_buffers.min(16),
            max_texture_samplers: l.max_per_stage_descriptor_samplers.min(32),
            max_sampler_views: l.max_per_stage_descriptor_sampled_images.min(128),
            max_shader_buffers: if stores {
                l.max_per_stage_descriptor_storage_buffers.min(32)
            } else {
                0
            },
            max_shader_images: if stores {
                l.max_per_stage_descriptor_storage_images.min(32)
            } else {
                0
            },
            fp16: b(f.v12.shader_float16),
            int64: b(c.shader_int64),
            fp64: b(c.shader_float64),
            int16: b(c.shader_int16),
            indirect_const_addr: true,
        }
    };
    let shader = ShaderStage::ALL.map(stage);

    let api_13 = pd.properties.api_version >= vk::API_VERSION_1_3;
    let dynamic_rendering =
        (api_13 && b(f.v13.dynamic_rendering)) || f.has(ash::khr::dynamic_rendering::NAME);
    let sync2 = (api_13 && b(f.v13.synchronization2)) || f.has(ash::khr::synchronization2::NAME);
    let mut backend_features: Vec<String> = f.extensions.clone();
    if dynamic_rendering {
        backend_features.push("dynamicRendering".into());
    }
    if sync2 {
        backend_features.push("synchronization2".into());
    }

    let glsl = if b(c.geometry_shader) && b(c.tessellation_shader) && b(c.shader_float64) {
        460
    } else {
        330
    };

    Caps {
        device_name: pd.name(),
        driver_name: pd.driver_name.clone(),
        driver_info: pd.driver_info.clone(),
        vendor_id: props.vendor_id,
        device_id: props.device_id,
        device_type,
        api_version: pd.api_version(),
        glsl_feature_level: glsl,

        max_texture_2d_size: l.max_image_dimension2_d,
        max_texture_3d_levels: 32 - l.max_image_dimension3_d.max(1).leading_zeros(),
        max_texture_cube_levels: 32 - l.max_image_dimension_cube.max(1).leading_zeros(),
        max_texture_array_layers: l.max_image_array_layers,
        max_texel_buffer_elements: l.max_texel_buffer_elements,
        max_render_targets: l.max_color_attachments.min(8),
        // One, as every GL driver reports MAX_DUAL_SOURCE_DRAW_BUFFERS:
        // a second colour for buffer 1 needs an output at location 1,
        // index 1, which Mesa 25's lavapipe (reporting 2) does not handle:
        // blending buffer 1 with a second-source factor crashed its
        // shader compiler (SIGSEGV in LLVMBuildNot, found by the API
        // fuzz). Draws past the limit are refused (`draw_vbo`).
        max_dual_source_render_targets: if b(c.dual_src_blend) {
            l.max_fragment_dual_src_attachments.min(1)
        } else {
            0
        },
        max_viewports: if b(c.multi_viewport) {
            l.max_viewports.min(16)
        } else {
            1
        },
        // Window rectangles are discarded in the fragment shader
        // (spirv_gen::passes::gl::lower_window_rects), on every device.
        max_window_rectangles: spirv_gen::binding::driver_ubo::MAX_WINDOW_RECTS,
        framebuffer_color_sample_counts: l.framebuffer_color_sample_counts.as_raw(),
        framebuffer_depth_sample_counts: l.framebuffer_depth_sample_counts.as_raw(),
        framebuffer_no_attachments_sample_counts: l
            .framebuffer_no_attachments_sample_counts
            .as_raw(),
        texture_multisample: l.sampled_image_color_sample_counts.as_raw() > 1,
        texture_cube_array: b(c.image_cube_array),
        seamless_cube_map: true,
        // The sampler's seamless flag is honoured with
        // VK_EXT_non_seamless_cube_map; without it filtering is always
        // seamless.
        seamless_cube_map_per_texture: b(f.non_seamless_cube_map.non_seamless_cube_map),
        texture_mirror_clamp_to_edge: b(f.v12.sampler_mirror_clamp_to_edge),
        texture_mirror_clamp: false,
        max_texture_anisotropy: if b(c.sampler_anisotropy) {
            l.max_sampler_anisotropy
        } else {
            1.0
        },
        max_texture_lod_bias: l.max_sampler_lod_bias,
        min_texel_offset: l.min_texel_offset,
        max_texel_offset: l.max_texel_offset as i32,
        min_texture_gather_offset: l.min_texel_gather_offset,
        max_texture_gather_offset: l.max_texel_gather_offset as i32,
        sampler_reduction_minmax: b(f.v12.sampler_filter_minmax),
        custom_border_color: b(f.custom_border_color.custom_border_colors),
        texture_buffer_offset_alignment: l.min_texel_buffer_offset_alignment as u32,

        constant_buffer_offset_alignment: l.min_uniform_buffer_offset_alignment as u32,
        shader_buffer_offset_alignment: l.min_storage_buffer_offset_alignment as u32,
        min_map_buffer_alignment: l.min_memory_map_alignment as u32,
        max_constant_buffer_size: l.max_uniform_buffer_range.min(65536),
        max_shader_buffer_size: u64::from(l.max_storage_buffer_range),
        max_vertex_buffers: l.max_vertex_input_bindings.min(32),
        max_vertex_attribs: l.max_vertex_input_attributes.min(32),
        max_vertex_attrib_stride: l.max_vertex_input_binding_stride,
        // Vulkan fetches attributes at addresses aligned to their
        // components (VUID-vkCmdDraw-None-02721).
        vertex_attrib_element_aligned_only: true,
        max_vertex_element_src_offset: l.max_vertex_input_attribute_offset,
        buffer_map_persistent_coherent: true,

        depth_clip_disable: b(f.depth_clip_enable.depth_clip_enable),
        depth_clamp: b(c.depth_clamp),
        depth_bounds_test: b(c.depth_bounds),
        independent_blend_enable: b(c.independent_blend),
        independent_blend_func: b(c.independent_blend),
        dual_source_blend: b(c.dual_src_blend),
        logic_op: b(c.logic_op),
        alpha_to_one: b(c.alpha_to_one),
        sample_shading: b(c.sample_rate_shading),
        // Set by `VkScreen::new` from `DeviceShared::sample_locations`
        // (the extension with variable locations).
        programmable_sample_locations: false,
        polygon_offset_clamp: b(c.depth_bias_clamp),
        polygon_mode_fill_rectangle: false,
        wide_lines: b(c.wide_lines),
        // Stippled lines in VK_EXT_line_rasterization, or else the shader
        // emulation, which needs geometry shaders.
        line_stipple: b(f.line_rasterization.stippled_rectangular_lines)
            || b(f.line_rasterization.stippled_bresenham_lines)
            || b(c.geometry_shader),
        max_line_width: if b(c.wide_lines) {
            l.line_width_range[1]
        } else {
            1.0
        },
        // One less than the widest line: the smooth-line emulation draws
        // its lines a pixel wider (`spirv_gen::passes::smooth_lines`).
        max_line_width_aa: if b(c.wide_lines) {
            (l.line_width_range[1] - 1.0).max(1.0)
        } else {
            1.0
        },
        // Less than the device's largest by what the emulations widen
        // points (`spirv_gen::passes::aliased`): one pixel for aliased
        // points with multisampling off, two for smooth ones. A size GL
        // clamps to these draws exactly.
        max_point_size: if b(c.large_points) {
            (l.point_size_range[1] - 1.0).max(1.0)
        } else {
            1.0
        },
        max_point_size_aa: if b(c.large_points) {
            (l.point_size_range[1] - 2.0).max(1.0)
        } else {
            1.0
        },
        min_interpolation_offset: l.min_interpolation_offset,
        max_interpolation_offset: l.max_interpolation_offset,
        interpolation_offset_bits: l.sub_pixel_interpolation_offset_bits,
        conservative_raster: false,
        shader_stencil_export: f.has(ash::ext::shader_stencil_export::NAME),
        // Framebuffer fetch samples the attachment (see
        // spirv_gen::binding::fbfetch_binding); not coherent: results of
        // earlier draws are visible after texture_barrier (see
        // draw::update_feedback).
        fbfetch: true,

        primitive_restart: true,
        primitive_restart_fixed_index: true,
        primitive_restart_for_patches: false,
        // Index rewriting (crate::prim) emits quads in the bound convention.
        quads_follow_provoking_vertex: true,
        // `PIPE_VK_DEBUG=no_index_uint8` clears it (VkScreen::new).
        index_uint8: b(f.index_type_uint8.index_type_uint8),
        multi_draw_indirect: b(c.multi_draw_indirect),
        draw_indirect_count: b(f.v12.draw_indirect_count),
        draw_parameters: b(f.v11.shader_draw_parameters),
        vertex_input_dynamic_state: b(f.vertex_input_dynamic_state.vertex_input_dynamic_state),
        multi_draw: b(f.multi_draw.multi_draw),
        // Streams other than 0 need geometryStreams (see `streamout`).
        max_vertex_stream: if has_tf && b(f.transform_feedback.geometry_streams) {
            tf_props.max_transform_feedback_streams.saturating_sub(1)
        } else {
            0
        },
        stream_output: b(f.transform_feedback.transform_feedback),
        max_stream_output_buffers: if has_tf {
            tf_props.max_transform_feedback_buffers.min(4)
        } else {
            0
        },
        stream_output_pause_resume: b(f.transform_feedback.transform_feedback),
        conditional_render: b(f.conditional_rendering.conditional_rendering),
        conditional_render_inverted: b(f.conditional_rendering.conditional_rendering),

        occlusion_query: true,
        query_timestamp: pd.timestamp_valid_bits > 0,
        query_time_elapsed: pd.timestamp_valid_bits > 0,
        query_pipeline_statistics: b(c.pipeline_statistics_query),
        query_so_overflow: b(f.transform_feedback.transform_feedback),
        query_buffer_object: true,
        timestamp_bits: pd.timestamp_valid_bits,
        timestamp_period_ns: l.timestamp_period,
        // `memory.rs` reads the clock through the EXT entry point.
        calibrated_timestamps: f.has(ash::ext::calibrated_timestamps::NAME),

        timeline_semaphore: b(f.v12.timeline_semaphore),
        sparse_buffer: b(c.sparse_binding) && b(c.sparse_residency_buffer),
        sparse_buffer_page_size: 65536,
        sparse_texture: b(c.sparse_binding) && b(c.sparse_residency_image2_d),
        bindless_texture: false,
        generate_mipmap: false,
        texture_barrier: true,
        device_reset_status: true,
        debug_utils: instance.debug_utils.is_some(),

        compute: true,
        max_grid_size: l.max_compute_work_group_count,
        max_block_size: l.max_compute_work_group_size,
        max_threads_per_block: l.max_compute_work_group_invocations,
        max_shared_memory: l.max_compute_shared_memory_size,
        subgroup_size: subgroup.subgroup_size,
        subgroup_sizes: subgroup.subgroup_size,
        // Where the device has no vote in a stage, each invocation votes
        // alone (`DeviceShared::subgroup_vote`), which GL allows.
        shader_group_vote: true,

        shader,
        backend_features,
    }
}

/// `maxMultiDrawCount` of VK_EXT_multi_draw (0 without it).
pub fn max_multi_draw(dev: &crate::memory::DeviceShared) -> u32 {
    if dev.device.features.multi_draw.multi_draw != vk::TRUE {
        return 0;
    }
    let mut md = vk::PhysicalDeviceMultiDrawPropertiesEXT::default();
    let mut props = vk::PhysicalDeviceProperties2::default().push_next(&mut md);
    // SAFETY: the extension is enabled on this device.
    unsafe {
        dev.instance
            .raw
            .get_physical_device_properties2(dev.physical.raw, &mut props)
    };
    md.max_multi_draw_count
}
