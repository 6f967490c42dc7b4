//! Screen capabilities: Gallium's `get_param`/`get_shader_param`/
//! `get_compute_param` answers as one typed struct, filled once per screen.
//!
//! Booleans are features; integers are limits. Backends fill every field from
//! the device (never assumed); features a backend emulates are reported as
//! supported, and the emulation is the backend's business.

use crate::state::ShaderStage;

/// Kind of device, used for device selection and reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum DeviceType {
    DiscreteGpu,
    IntegratedGpu,
    VirtualGpu,
    Cpu,
    #[default]
    Other,
}

/// Per-stage limits (`PIPE_SHADER_CAP_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ShaderCaps {
    /// Whether the stage exists on this device.
    pub supported: bool,
    pub max_inputs: u32,
    pub max_outputs: u32,
    pub max_const_buffer0_size: u32,
    pub max_const_buffers: u32,
    pub max_texture_samplers: u32,
    pub max_sampler_views: u32,
    pub max_shader_buffers: u32,
    pub max_shader_images: u32,
    pub fp16: bool,
    pub int64: bool,
    pub fp64: bool,
    pub int16: bool,
    pub indirect_const_addr: bool,
}

/// `PIPE_CAP_*` and `PIPE_COMPUTE_CAP_*` answers.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Caps {
    // Identity.
    pub device_name: String,
    pub driver_name: String,
    pub driver_info: String,
    pub vendor_id: u32,
    pub device_id: u32,
    pub device_type: DeviceType,
    /// Backend API version (for pipe-vk: Vulkan major, minor, patch).
    pub api_version: (u32, u32, u32),
    /// Highest GLSL version the driver can back (`PIPE_CAP_GLSL_FEATURE_LEVEL`).
    pub glsl_feature_level: u32,

    // Textures and render targets.
    pub max_texture_2d_size: u32,
    pub max_texture_3d_levels: u32,
    pub max_texture_cube_levels: u32,
    pub max_texture_array_layers: u32,
    pub max_texel_buffer_elements: u32,
    pub max_render_targets: u32,
    pub max_dual_source_render_targets: u32,
    pub max_viewports: u32,
    pub max_window_rectangles: u32,
    /// Bitmask of supported colour sample counts (bit n: 2^n samples).
    pub framebuffer_color_sample_counts: u32,
    pub framebuffer_depth_sample_counts: u32,
    /// Sample counts of framebuffers without attachments
    /// (ARB_framebuffer_no_attachments), as above.
    pub framebuffer_no_attachments_sample_counts: u32,
    pub texture_multisample: bool,
    pub texture_cube_array: bool,
    pub seamless_cube_map: bool,
    pub seamless_cube_map_per_texture: bool,
    pub texture_mirror_clamp_to_edge: bool,
    pub texture_mirror_clamp: bool,
    pub max_texture_anisotropy: f32,
    pub max_texture_lod_bias: f32,
    pub min_texel_offset: i32,
    pub max_texel_offset: i32,
    pub min_texture_gather_offset: i32,
    pub max_texture_gather_offset: i32,
    pub sampler_reduction_minmax: bool,
    pub custom_border_color: bool,
    pub texture_buffer_offset_alignment: u32,

    // Buffers.
    pub constant_buffer_offset_alignment: u32,
    pub shader_buffer_offset_alignment: u32,
    pub min_map_buffer_alignment: u32,
    pub max_constant_buffer_size: u32,
    pub max_shader_buffer_size: u64,
    pub max_vertex_buffers: u32,
    pub max_vertex_attribs: u32,
    pub max_vertex_attrib_stride: u32,
    pub max_vertex_element_src_offset: u32,
    /// Vertex elements are fetched only where their address (buffer
    /// offset plus element offset, and the stride) is a multiple of
    /// `Format::vertex_alignment` (`PIPE_CAP_VERTEX_ATTRIB_ELEMENT_ALIGNED_ONLY`,
    /// as Zink reports it): a frontend realigns others (st/mesa through
    /// u_vbuf); `draw_vbo` refuses them.
    pub vertex_attrib_element_aligned_only: bool,
    pub buffer_map_persistent_coherent: bool,

    // Rasterization and fragment operations.
    pub depth_clip_disable: bool,
    pub depth_clamp: bool,
    pub depth_bounds_test: bool,
    pub independent_blend_enable: bool,
    pub independent_blend_func: bool,
    pub dual_source_blend: bool,
    pub logic_op: bool,
    pub alpha_to_one: bool,
    pub sample_shading: bool,
    pub programmable_sample_locations: bool,
    pub polygon_offset_clamp: bool,
    pub polygon_mode_fill_rectangle: bool,
    pub wide_lines: bool,
    pub line_stipple: bool,
    pub max_line_width: f32,
    /// The widest smooth line (`PIPE_CAPF_MAX_LINE_WIDTH_AA`).
    pub max_line_width_aa: f32,
    /// The largest aliased point (`PIPE_CAPF_MAX_POINT_SIZE`).
    pub max_point_size: f32,
    /// The largest smooth point (`PIPE_CAPF_MAX_POINT_SIZE_AA`).
    pub max_point_size_aa: f32,
    /// The range of `interp_at_offset` offsets, in pixels
    /// (`PIPE_CAPF_MIN/MAX_FRAGMENT_INTERPOLATION_OFFSET`, GL's
    /// `MIN/MAX_FRAGMENT_INTERPOLATION_OFFSET`): outside it the result is
    /// undefined. NVIDIA's maximum is 0.4375, below GL's 0.5.
    pub min_interpolation_offset: f32,
    pub max_interpolation_offset: f32,
    /// Sub-pixel precision of those offsets, in bits
    /// (`PIPE_CAP_FRAGMENT_INTERPOLATION_OFFSET_BITS`).
    pub interpolation_offset_bits: u32,
    pub conservative_raster: bool,
    pub shader_stencil_export: bool,
    /// Fragment shaders can read the bound colour buffers (spirv-gen's
    /// `fbfetch`, GL's EXT_shader_framebuffer_fetch_non_coherent): what
    /// earlier draws wrote is visible after `texture_barrier`; within one
    /// draw, overlapping fragments are not ordered.
    pub fbfetch: bool,

    // Drawing.
    pub primitive_restart: bool,
    pub primitive_restart_fixed_index: bool,
    pub primitive_restart_for_patches: bool,
    /// Quads and quad strips follow the provoking-vertex convention
    /// (`PIPE_CAP_QUADS_FOLLOW_PROVOKING_VERTEX_CONVENTION`).
    pub quads_follow_provoking_vertex: bool,
    /// The device reads 8-bit index buffers. Draws with 8-bit indices work
    /// either way; without it the driver widens them on the CPU (a read
    /// back of an index buffer resource, which waits for the GPU).
    pub index_uint8: bool,
    pub multi_draw_indirect: bool,
    pub draw_indirect_count: bool,
    pub draw_parameters: bool,
    pub vertex_input_dynamic_state: bool,
    pub multi_draw: bool,
    pub max_vertex_stream: u32,
    pub stream_output: bool,
    pub max_stream_output_buffers: u32,
    pub stream_output_pause_resume: bool,
    pub conditional_render: bool,
    pub conditional_render_inverted: bool,

    // Queries and timing.
    pub occlusion_query: bool,
    pub query_timestamp: bool,
    pub query_time_elapsed: bool,
    pub query_pipeline_statistics: bool,
    pub query_so_overflow: bool,
    pub query_buffer_object: bool,
    pub timestamp_bits: u32,
    /// Nanoseconds per timestamp tick.
    pub timestamp_period_ns: f32,
    pub calibrated_timestamps: bool,

    // Memory model, sparse, bindless, misc.
    pub timeline_semaphore: bool,
    pub sparse_buffer: bool,
    pub sparse_buffer_page_size: u32,
    pub sparse_texture: bool,
    pub bindless_texture: bool,
    pub generate_mipmap: bool,
    pub texture_barrier: bool,
    pub device_reset_status: bool,
    pub debug_utils: bool,

    // Compute.
    pub compute: bool,
    pub max_grid_size: [u32; 3],
    pub max_block_size: [u32; 3],
    pub max_threads_per_block: u32,
    pub max_shared_memory: u32,
    pub subgroup_size: u32,
    /// Bitmask of selectable subgroup sizes.
    pub subgroup_sizes: u32,
    /// `PIPE_CAP_SHADER_GROUP_VOTE`: shaders may vote across invocations
    /// (ARB_shader_group_vote, core in GL 4.6).
    pub shader_group_vote: bool,

    /// Per-stage limits, indexed by [`ShaderStage::index`].
    pub shader: [ShaderCaps; 6],
    /// Extensions or other backend feature names, for reports only.
    pub backend_features: Vec<String>,
}

impl Caps {
    /// The limits of one stage.
    pub fn stage(&self, stage: ShaderStage) -> &ShaderCaps {
        &self.shader[stage.index()]
    }
}
