//! Frontend-input validation, as a wrapping driver.
//!
//! [`ValidatingScreen`] and [`ValidatingContext`] implement [`Screen`] and
//! [`Context`] around any other implementation, check every argument against
//! the interface's rules and the screen's [`Caps`], and return
//! `PipeError::InvalidArgument` with a message naming the call before the
//! wrapped driver sees anything. Backends therefore never have to re-check
//! these rules and can assume well-formed input; a backend returns
//! validated objects wrapped (pipe-vk's screen constructor does this).
//!
//! The checks are cheap comparisons only: `draw_vbo` is on the hot path of
//! every benchmark. Anything that needs backend state (is this handle live,
//! is this format renderable on this device) stays in the backend.

use std::sync::Arc;

use crate::blit::BlitInfo;
use crate::caps::Caps;
use crate::context::{Context, ResetCallback};
use crate::cso::{
    BlendHandle, ComputeHandle, DepthStencilAlphaHandle, RasterizerHandle, SamplerHandle,
    ShaderHandle, VertexElementsHandle,
};
use crate::draw::{DrawIndirectInfo, DrawInfo, DrawStartCountBias, IndexSource, PrimType};
use crate::error::{PipeError, PipeResult};
use crate::flags::{
    BarrierFlags, BlitMask, ClearFlags, FlushFlags, MapFlags, ReferenceFlags, TextureBarrierFlags,
};
use crate::format::{self, Format};
use crate::query::{
    PipelineStat, Query, QueryFlags, QueryResult, QueryResultIndex, QueryType, QueryValueType,
    RenderCondMode,
};
use crate::resource::{
    check_box, BindFlags, PipeBox, Resource, ResourceFlags, ResourceTemplate, Target,
};
use crate::screen::{Fence, ResetStatus, Screen, SparsePageSize};
use crate::shader::{ComputeState, ComputeStateInfo, GridInfo, ShaderState};
use crate::state::*;
use crate::transfer::{Transfer, UploadAllocation, Uploader};
use crate::view::{
    SamplerView, SamplerViewTemplate, StreamOutputTarget, Surface, SurfaceTemplate, ViewRange,
};

fn invalid<T>(msg: String) -> PipeResult<T> {
    Err(PipeError::InvalidArgument(msg))
}

fn check(cond: bool, msg: impl FnOnce() -> String) -> PipeResult<()> {
    if cond {
        Ok(())
    } else {
        invalid(msg())
    }
}

/// Checks that `start + count` slots fit in `max`.
fn check_range(what: &str, start: u32, count: usize, max: u32) -> PipeResult<()> {
    let end = u64::from(start) + count as u64;
    check(end <= u64::from(max), || {
        format!("{what}: slots {start}..{end} exceed the limit of {max}")
    })
}

fn check_buffer(what: &str, res: &Resource) -> PipeResult<()> {
    check(res.desc().target == Target::Buffer, || {
        format!(
            "{what}: resource #{} is a {} texture, not a buffer",
            res.id(),
            res.desc().target.name()
        )
    })
}

fn check_buffer_range(what: &str, res: &Resource, offset: u32, size: u32) -> PipeResult<()> {
    check_buffer(what, res)?;
    let end = u64::from(offset) + u64::from(size);
    check(end <= u64::from(res.desc().width0), || {
        format!(
            "{what}: range {offset}..{end} exceeds buffer #{} of {} bytes",
            res.id(),
            res.desc().width0
        )
    })
}

/// Checks a texture-buffer or image-buffer range against its format.
/// The range holds `floor(size / texel)` texels (GL 4.6 section 8.9: a
/// `TexBufferRange` size need not be a multiple of the texel), at least
/// one.
fn check_texel_buffer(what: &str, format: Format, size: u32, max_elements: u32) -> PipeResult<()> {
    let texel = format.block_size_bytes().max(1);
    check(
        !format.is_compressed() && !format.is_depth_or_stencil(),
        || format!("{what}: {format} cannot be a buffer texel format"),
    )?;
    check(size >= texel, || {
        format!("{what}: size {size} holds no {texel}-byte texel")
    })?;
    check(size / texel <= max_elements.max(1), || {
        format!(
            "{what}: {} texels exceed the limit of {max_elements}",
            size / texel
        )
    })
}

/// Checks a clear rectangle against its surface.
fn check_clear_rect(what: &str, dst: &Surface, x: u32, y: u32, w: u32, h: u32) -> PipeResult<()> {
    let d = dst.desc();
    let fits = |o: u32, e: u32, lim: u32| u64::from(o) + u64::from(e) <= u64::from(lim);
    check(fits(x, w, d.width) && fits(y, h, d.height), || {
        format!(
            "{what}: rectangle {x},{y} {w}x{h} exceeds the {}x{} surface",
            d.width, d.height
        )
    })
}

/// Checks a depth clear value.
fn check_depth(what: &str, depth: f64) -> PipeResult<()> {
    check((0.0..=1.0).contains(&depth), || {
        format!("{what}: depth {depth} is outside [0, 1]")
    })
}

fn check_texture(what: &str, res: &Resource) -> PipeResult<()> {
    check(res.desc().target != Target::Buffer, || {
        format!("{what}: resource #{} is a buffer, not a texture", res.id())
    })
}

fn check_level_layers(
    what: &str,
    t: &ResourceTemplate,
    level: u32,
    first_layer: u32,
    last_layer: u32,
) -> PipeResult<()> {
    let Some(layers) = t.level_layers(level) else {
        return invalid(format!(
            "{what}: level {level} out of range (resource has {} levels)",
            t.num_levels()
        ));
    };
    check(first_layer <= last_layer && last_layer < layers, || {
        format!(
            "{what}: layers {first_layer}..={last_layer} out of range (level {level} has {layers})"
        )
    })
}

/// Checks a resource template against the interface's rules and `caps`.
pub fn validate_resource_template(t: &ResourceTemplate, caps: &Caps) -> PipeResult<()> {
    let what = "resource_create";
    check(
        t.width0 > 0 && t.height0 > 0 && t.depth0 > 0 && t.array_size > 0,
        || {
            format!(
                "{what}: zero extent {}x{}x{} array {}",
                t.width0, t.height0, t.depth0, t.array_size
            )
        },
    )?;
    let max2d = caps.max_texture_2d_size.max(1);
    let max_layers = caps.max_texture_array_layers.max(1);
    match t.target {
        Target::Buffer => {
            // Boxes are i32 (Gallium's pipe_box): larger buffers could not
            // be addressed.
            check(t.width0 <= i32::MAX as u32, || {
                format!(
                    "{what}: buffer of {} bytes exceeds the 2 GiB box range",
                    t.width0
                )
            })?;
            check(
                t.height0 == 1 && t.depth0 == 1 && t.array_size == 1 && t.last_level == 0,
                || format!("{what}: buffers are width0 bytes with height/depth/array 1, level 0"),
            )?;
            check(t.nr_samples <= 1, || {
                format!("{what}: buffers cannot be multisampled")
            })?;
        }
        Target::Texture1D | Target::Texture1DArray => {
            check(t.height0 == 1 && t.depth0 == 1, || {
                format!("{what}: 1D textures have height0 = depth0 = 1")
            })?;
        }
        Target::Texture2D | Target::TextureRect | Target::Texture2DArray => {
            check(t.depth0 == 1, || {
                format!("{what}: 2D textures have depth0 = 1")
            })?;
        }
        Target::Texture3D => {
            check(t.array_size == 1, || {
                format!("{what}: 3D textures have array_size 1")
            })?;
            let max3d = 1u32
                .checked_shl(caps.max_texture_3d_levels.saturating_sub(1))
                .unwrap_or(u32::MAX);
            check(
                t.width0 <= max3d && t.height0 <= max3d && t.depth0 <= max3d,
                || format!("{what}: 3D extent exceeds the device limit of {max3d}"),
            )?;
        }
        Target::TextureCube | Target::TextureCubeArray => {
            check(t.width0 == t.height0 && t.depth0 == 1, || {
                format!("{what}: cube faces must be square with depth0 = 1")
            })?;
            check(t.array_size.is_multiple_of(6), || {
                format!(
                    "{what}: cube array_size must be a multiple of 6, got {}",
                    t.array_size
                )
            })?;
            check(
                t.target == Target::TextureCubeArray || t.array_size == 6,
                || format!("{what}: a cube has array_size 6, got {}", t.array_size),
            )?;
        }
    }
    if !matches!(t.target, Target::Texture1DArray | Target::Texture2DArray) && !t.target.is_cube() {
        check(t.array_size == 1, || {
            format!("{what}: {} textures have array_size 1", t.target.name())
        })?;
    }
    if t.target != Target::Buffer {
        check(t.width0 <= max2d && t.height0 <= max2d, || {
            format!(
                "{what}: extent {}x{} exceeds the device limit of {max2d}",
                t.width0, t.height0
            )
        })?;
        check(t.array_size <= max_layers, || {
            format!(
                "{what}: {} layers exceed the device limit of {max_layers}",
                t.array_size
            )
        })?;
        let largest = t.width0.max(t.height0).max(t.depth0);
        let max_level = 31 - largest.leading_zeros();
        check(t.last_level <= max_level, || {
            format!(
                "{what}: last_level {} exceeds the mip chain of {largest} ({max_level})",
                t.last_level
            )
        })?;
        check(t.target != Target::TextureRect || t.last_level == 0, || {
            format!("{what}: rectangle textures have one level")
        })?;
    }
    if t.nr_samples > 1 {
        check(t.nr_samples.is_power_of_two() && t.nr_samples <= 32, || {
            format!(
                "{what}: {} samples is not a power of two up to 32",
                t.nr_samples
            )
        })?;
        check(
            matches!(t.target, Target::Texture2D | Target::Texture2DArray) && t.last_level == 0,
            || format!("{what}: multisampled resources are single-level 2D or 2D arrays"),
        )?;
    }
    check(t.nr_storage_samples <= t.nr_samples.max(1), || {
        format!("{what}: storage samples exceed samples")
    })?;
    if t.format.is_compressed() {
        check(
            !t.bind.intersects(
                BindFlags::RENDER_TARGET | BindFlags::DEPTH_STENCIL | BindFlags::SHADER_IMAGE,
            ),
            || {
                format!(
                    "{what}: compressed {} cannot be a render target or image",
                    t.format
                )
            },
        )?;
    }
    if t.flags.contains(ResourceFlags::SPARSE) {
        let ok = if t.target == Target::Buffer {
            caps.sparse_buffer
        } else {
            caps.sparse_texture
        };
        check(ok, || {
            format!(
                "{what}: sparse {} resources are not supported",
                t.target.name()
            )
        })
        .map_err(|e| match e {
            PipeError::InvalidArgument(m) => PipeError::Unsupported(m),
            e => e,
        })?;
    }
    check(
        !t.flags.contains(ResourceFlags::MAP_COHERENT)
            || t.flags.contains(ResourceFlags::MAP_PERSISTENT),
        || format!("{what}: MAP_COHERENT requires MAP_PERSISTENT"),
    )?;
    Ok(())
}

/// Checks transfer-map flags against each other and the resource.
pub fn validate_map_flags(res: &ResourceTemplate, usage: MapFlags) -> PipeResult<()> {
    let what = "transfer_map";
    check(usage.intersects(MapFlags::READ | MapFlags::WRITE), || {
        format!("{what}: usage {usage:?} has neither READ nor WRITE")
    })?;
    if usage.contains(MapFlags::READ) {
        let bad = usage
            & (MapFlags::DISCARD_RANGE
                | MapFlags::DISCARD_WHOLE_RESOURCE
                | MapFlags::UNSYNCHRONIZED
                | MapFlags::FLUSH_EXPLICIT);
        check(bad.is_empty(), || {
            format!("{what}: READ cannot be combined with {bad:?}")
        })?;
    }
    check(
        !usage.contains(MapFlags::PERSISTENT) || res.flags.contains(ResourceFlags::MAP_PERSISTENT),
        || format!("{what}: PERSISTENT needs a resource created with MAP_PERSISTENT"),
    )?;
    check(
        !usage.contains(MapFlags::COHERENT)
            || (usage.contains(MapFlags::PERSISTENT)
                && res.flags.contains(ResourceFlags::MAP_COHERENT)),
        || format!("{what}: COHERENT needs PERSISTENT and a MAP_COHERENT resource"),
    )?;
    check(
        res.nr_samples <= 1 || !usage.contains(MapFlags::WRITE),
        || format!("{what}: multisampled resources can only be mapped for reading"),
    )?;
    Ok(())
}

fn check_nonempty_box(what: &str, bx: &PipeBox) -> PipeResult<()> {
    check(!bx.is_empty(), || format!("{what}: empty box {bx:?}"))
}

/// Size in bytes `data` must have for `texture_subdata` of `bx`.
fn subdata_size(format: Format, bx: &PipeBox, stride: usize, layer_stride: usize) -> Option<usize> {
    let desc = format.desc();
    let bw = desc.block.width.max(1) as usize;
    let bh = desc.block.height.max(1) as usize;
    let row_bytes = (bx.width as usize)
        .div_ceil(bw)
        .checked_mul(desc.block.bits as usize / 8)?;
    let rows = (bx.height as usize).div_ceil(bh);
    let last_layer = (bx.depth as usize).checked_sub(1)?;
    let last_row = rows.checked_sub(1)?;
    last_layer
        .checked_mul(layer_stride)?
        .checked_add(last_row.checked_mul(stride)?)?
        .checked_add(row_bytes)
}

/// A [`Screen`] wrapper that validates frontend input.
pub struct ValidatingScreen {
    inner: Arc<dyn Screen>,
}

impl ValidatingScreen {
    /// Wraps `inner`.
    pub fn new(inner: Arc<dyn Screen>) -> Arc<Self> {
        Arc::new(ValidatingScreen { inner })
    }

    /// The wrapped screen.
    pub fn inner(&self) -> &Arc<dyn Screen> {
        &self.inner
    }
}

impl Screen for ValidatingScreen {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn caps(&self) -> &Caps {
        self.inner.caps()
    }
    fn is_format_supported(
        &self,
        format: Format,
        target: Target,
        sample_count: u32,
        storage_sample_count: u32,
        bind: BindFlags,
    ) -> bool {
        self.inner
            .is_format_supported(format, target, sample_count, storage_sample_count, bind)
    }
    fn resource_create(&self, template: &ResourceTemplate) -> PipeResult<Resource> {
        validate_resource_template(template, self.inner.caps())?;
        self.inner.resource_create(template)
    }
    fn resource_destroy(&self, resource: Resource) {
        self.inner.resource_destroy(resource)
    }
    fn context_create(self: Arc<Self>) -> PipeResult<Box<dyn Context>> {
        let caps = Arc::new(self.inner.caps().clone());
        let inner = self.inner.clone().context_create()?;
        Ok(Box::new(ValidatingContext::new(inner, caps)))
    }
    fn fence_finish(
        &self,
        ctx: Option<&mut dyn Context>,
        fence: &Fence,
        timeout_ns: u64,
    ) -> PipeResult<bool> {
        self.inner.fence_finish(ctx, fence, timeout_ns)
    }
    fn create_reusable_fence(&self) -> PipeResult<Fence> {
        self.inner.create_reusable_fence()
    }
    fn get_timestamp(&self) -> PipeResult<u64> {
        self.inner.get_timestamp()
    }
    fn get_sparse_texture_virtual_page_size(
        &self,
        target: Target,
        multi_sample: bool,
        format: Format,
    ) -> PipeResult<Vec<SparsePageSize>> {
        check(target != Target::Buffer, || {
            "get_sparse_texture_virtual_page_size: buffers have no texture page size".into()
        })?;
        self.inner
            .get_sparse_texture_virtual_page_size(target, multi_sample, format)
    }
    fn get_sample_pixel_grid(&self, sample_count: u32) -> (u32, u32) {
        self.inner.get_sample_pixel_grid(sample_count)
    }
    fn get_sample_position(&self, sample_count: u32, index: u32) -> Option<[f32; 2]> {
        if index >= sample_count.max(1) {
            return None;
        }
        self.inner.get_sample_position(sample_count, index)
    }
}

/// A [`Context`] wrapper that validates frontend input. See the module doc.
pub struct ValidatingContext {
    inner: Box<dyn Context>,
    caps: Arc<Caps>,
}

impl ValidatingContext {
    /// Wraps `inner`, checking against `caps`.
    pub fn new(inner: Box<dyn Context>, caps: Arc<Caps>) -> Self {
        ValidatingContext { inner, caps }
    }

    fn check_shader(&self, what: &str, state: &ShaderState, stage: ShaderStage) -> PipeResult<()> {
        check(state.stage == stage, || {
            format!("{what}: template is a {} shader", state.stage.short_name())
        })?;
        check(self.caps.stage(stage).supported, || {
            format!("{what}: the device has no {} stage", stage.short_name())
        })
        .map_err(|e| PipeError::Unsupported(e.to_string()))?;
        self.check_stream_output(what, state)
    }

    /// A shader's capture list (`pipe_stream_output_info`) against the
    /// caps: buffers, component ranges, strides, streams.
    fn check_stream_output(&self, what: &str, state: &ShaderState) -> PipeResult<()> {
        let so = &state.stream_output;
        if so.output.is_empty() {
            return Ok(());
        }
        let stage = state.stage;
        check(
            matches!(
                stage,
                ShaderStage::Vertex | ShaderStage::TessEval | ShaderStage::Geometry
            ),
            || {
                format!(
                    "{what}: stream output on a {} shader (only vs, tes and gs outputs are captured)",
                    stage.short_name()
                )
            },
        )?;
        if !self.caps.stream_output {
            return Err(PipeError::Unsupported(format!(
                "{what}: the device has no stream output"
            )));
        }
        let buffers = self
            .caps
            .max_stream_output_buffers
            .min(MAX_SO_BUFFERS as u32);
        for (i, o) in so.output.iter().enumerate() {
            let b = u32::from(o.output_buffer);
            check(b < buffers, || {
                format!("{what}: stream output {i}: buffer {b} exceeds the limit of {buffers}")
            })?;
            // Components past 3 name the later elements of an array output
            // (see `StreamOutput::start_component`); the driver checks them
            // against the shader.
            let (start, n) = (u32::from(o.start_component), u32::from(o.num_components));
            check((1..=4).contains(&n) && start + n <= 128, || {
                format!(
                    "{what}: stream output {i}: components {start}..{} (1 to 4 of at most 128)",
                    start + n
                )
            })?;
            let stride = u32::from(so.stride[b as usize]);
            check(u32::from(o.dst_offset) + n <= stride, || {
                format!(
                    "{what}: stream output {i}: dst_offset {} + {n} components exceed the stride {stride} of buffer {b}",
                    o.dst_offset
                )
            })?;
            let s = u32::from(o.stream);
            check(s == 0 || stage == ShaderStage::Geometry, || {
                format!("{what}: stream output {i}: stream {s} outside a geometry shader")
            })?;
            check(s <= self.caps.max_vertex_stream, || {
                format!(
                    "{what}: stream output {i}: stream {s} exceeds the last stream {}",
                    self.caps.max_vertex_stream
                )
            })?;
        }
        Ok(())
    }

    fn check_bind(what: &str, handle: Option<ShaderHandle>, stage: ShaderStage) -> PipeResult<()> {
        match handle {
            Some(h) if h.stage != stage => invalid(format!(
                "{what}: handle {:?} is a {} shader",
                h.cso,
                h.stage.short_name()
            )),
            _ => Ok(()),
        }
    }

    fn check_delete(what: &str, handle: ShaderHandle, stage: ShaderStage) -> PipeResult<()> {
        Self::check_bind(what, Some(handle), stage)
    }

    fn check_stage_slots(&self, what: &str, stage: ShaderStage) -> PipeResult<()> {
        check(self.caps.stage(stage).supported, || {
            format!("{what}: the device has no {} stage", stage.short_name())
        })
    }
}

macro_rules! shader_triplet {
    ($create:ident, $bind:ident, $delete:ident, $stage:expr) => {
        fn $create(&mut self, state: &ShaderState) -> PipeResult<ShaderHandle> {
            self.check_shader(stringify!($create), state, $stage)?;
            self.inner.$create(state)
        }
        fn $bind(&mut self, handle: Option<ShaderHandle>) -> PipeResult<()> {
            Self::check_bind(stringify!($bind), handle, $stage)?;
            self.inner.$bind(handle)
        }
        fn $delete(&mut self, handle: ShaderHandle) -> PipeResult<()> {
            Self::check_delete(stringify!($delete), handle, $stage)?;
            self.inner.$delete(handle)
        }
    };
}

impl Context for ValidatingContext {
    fn id(&self) -> u64 {
        self.inner.id()
    }
    fn create_blend_state(&mut self, state: &BlendState) -> PipeResult<BlendHandle> {
        let what = "create_blend_state";
        check(state.max_rt as usize <= MAX_COLOR_BUFS, || {
            format!("{what}: max_rt {} exceeds {MAX_COLOR_BUFS}", state.max_rt)
        })?;
        let dual = state.rt.iter().any(RtBlendState::uses_dual_source);
        if dual {
            check(self.caps.dual_source_blend, || {
                format!("{what}: dual-source blending is not supported")
            })
            .map_err(|e| PipeError::Unsupported(e.to_string()))?;
        }
        self.inner.create_blend_state(state)
    }
    fn bind_blend_state(&mut self, handle: Option<BlendHandle>) -> PipeResult<()> {
        self.inner.bind_blend_state(handle)
    }
    fn delete_blend_state(&mut self, handle: BlendHandle) -> PipeResult<()> {
        self.inner.delete_blend_state(handle)
    }

    fn create_sampler_state(&mut self, state: &SamplerState) -> PipeResult<SamplerHandle> {
        let what = "create_sampler_state";
        check(
            !state.min_lod.is_nan() && !state.max_lod.is_nan() && !state.lod_bias.is_nan(),
            || format!("{what}: NaN LOD parameters"),
        )?;
        check(
            f32::from(state.max_anisotropy) <= self.caps.max_texture_anisotropy.max(1.0),
            || {
                format!(
                    "{what}: anisotropy {} exceeds the limit of {}",
                    state.max_anisotropy, self.caps.max_texture_anisotropy
                )
            },
        )?;
        check(
            state.lod_bias.abs() <= self.caps.max_texture_lod_bias,
            || {
                format!(
                    "{what}: LOD bias {} exceeds ±{}",
                    state.lod_bias, self.caps.max_texture_lod_bias
                )
            },
        )?;
        self.inner.create_sampler_state(state)
    }
    fn bind_sampler_states(
        &mut self,
        stage: ShaderStage,
        start: u32,
        samplers: &[Option<SamplerHandle>],
    ) -> PipeResult<()> {
        let what = "bind_sampler_states";
        self.check_stage_slots(what, stage)?;
        check_range(what, start, samplers.len(), MAX_SAMPLERS as u32)?;
        self.inner.bind_sampler_states(stage, start, samplers)
    }
    fn delete_sampler_state(&mut self, handle: SamplerHandle) -> PipeResult<()> {
        self.inner.delete_sampler_state(handle)
    }

    fn create_rasterizer_state(&mut self, state: &RasterizerState) -> PipeResult<RasterizerHandle> {
        let what = "create_rasterizer_state";
        check(
            state.line_width.is_finite() && state.line_width >= 0.0,
            || {
                format!(
                    "{what}: line width {} is not a non-negative number",
                    state.line_width
                )
            },
        )?;
        check(
            state.point_size.is_finite() && state.point_size >= 0.0,
            || {
                format!(
                    "{what}: point size {} is not a non-negative number",
                    state.point_size
                )
            },
        )?;
        self.inner.create_rasterizer_state(state)
    }
    fn bind_rasterizer_state(&mut self, handle: Option<RasterizerHandle>) -> PipeResult<()> {
        self.inner.bind_rasterizer_state(handle)
    }
    fn delete_rasterizer_state(&mut self, handle: RasterizerHandle) -> PipeResult<()> {
        self.inner.delete_rasterizer_state(handle)
    }

    fn create_depth_stencil_alpha_state(
        &mut self,
        state: &DepthStencilAlphaState,
    ) -> PipeResult<DepthStencilAlphaHandle> {
        if state.depth_bounds_test {
            // NaN bounds are undefined in GL, not an error (pipe-vk bounds
            // nothing on that side); only ordered bounds can be reversed.
            let reversed = state.depth_bounds_min.partial_cmp(&state.depth_bounds_max)
                == Some(std::cmp::Ordering::Greater);
            check(!reversed, || {
                "create_depth_stencil_alpha_state: depth bounds min > max".into()
            })?;
        }
        self.inner.create_depth_stencil_alpha_state(state)
    }
    fn bind_depth_stencil_alpha_state(
        &mut self,
        handle: Option<DepthStencilAlphaHandle>,
    ) -> PipeResult<()> {
        self.inner.bind_depth_stencil_alpha_state(handle)
    }
    fn delete_depth_stencil_alpha_state(
        &mut self,
        handle: DepthStencilAlphaHandle,
    ) -> PipeResult<()> {
        self.inner.delete_depth_stencil_alpha_state(handle)
    }

    shader_triplet!(
        create_vs_state,
        bind_vs_state,
        delete_vs_state,
        ShaderStage::Vertex
    );
    shader_triplet!(
        create_tcs_state,
        bind_tcs_state,
        delete_tcs_state,
        ShaderStage::TessCtrl
    );
    shader_triplet!(
        create_tes_state,
        bind_tes_state,
        delete_tes_state,
        ShaderStage::TessEval
    );
    shader_triplet!(
        create_gs_state,
        bind_gs_state,
        delete_gs_state,
        ShaderStage::Geometry
    );
    shader_triplet!(
        create_fs_state,
        bind_fs_state,
        delete_fs_state,
        ShaderStage::Fragment
    );

    fn create_vertex_elements_state(
        &mut self,
        elements: &[VertexElement],
    ) -> PipeResult<VertexElementsHandle> {
        let what = "create_vertex_elements_state";
        let max_attribs = self.caps.max_vertex_attribs.min(MAX_VERTEX_ELEMENTS as u32);
        check(elements.len() <= max_attribs as usize, || {
            format!(
                "{what}: {} elements exceed the limit of {max_attribs}",
                elements.len()
            )
        })?;
        for (i, e) in elements.iter().enumerate() {
            check(
                u32::from(e.vertex_buffer_index) < self.caps.max_vertex_buffers,
                || {
                    format!(
                        "{what}: element {i} uses vertex buffer {}",
                        e.vertex_buffer_index
                    )
                },
            )?;
            check(
                e.src_offset <= self.caps.max_vertex_element_src_offset,
                || {
                    format!(
                        "{what}: element {i} src_offset {} exceeds {}",
                        e.src_offset, self.caps.max_vertex_element_src_offset
                    )
                },
            )?;
            check(e.src_stride <= self.caps.max_vertex_attrib_stride, || {
                format!(
                    "{what}: element {i} stride {} exceeds {}",
                    e.src_stride, self.caps.max_vertex_attrib_stride
                )
            })?;
            let d = e.src_format;
            check(!d.is_compressed() && !d.is_depth_or_stencil(), || {
                format!(
                    "{what}: element {i} format {} cannot be a vertex format",
                    e.src_format
                )
            })?;
        }
        self.inner.create_vertex_elements_state(elements)
    }
    fn bind_vertex_elements_state(
        &mut self,
        handle: Option<VertexElementsHandle>,
    ) -> PipeResult<()> {
        self.inner.bind_vertex_elements_state(handle)
    }
    fn delete_vertex_elements_state(&mut self, handle: VertexElementsHandle) -> PipeResult<()> {
        self.inner.delete_vertex_elements_state(handle)
    }

    fn set_constant_buffer(
        &mut self,
        stage: ShaderStage,
        index: u32,
        buffer: Option<ConstantBuffer<'_>>,
    ) -> PipeResult<()> {
        let what = "set_constant_buffer";
        self.check_stage_slots(what, stage)?;
        let max = self
            .caps
            .stage(stage)
            .max_const_buffers
            .min(MAX_CONSTANT_BUFFERS as u32);
        check(index < max, || {
            format!("{what}: index {index} exceeds the limit of {max}")
        })?;
        if let Some(cb) = &buffer {
            match (&cb.buffer, cb.user_buffer) {
                (Some(_), Some(_)) => {
                    return invalid(format!("{what}: both a buffer and user data given"))
                }
                (Some(res), None) => {
                    check_buffer_range(what, res, cb.buffer_offset, cb.buffer_size)?;
                    let align = self.caps.constant_buffer_offset_alignment.max(1);
                    check(cb.buffer_offset.is_multiple_of(align), || {
                        format!(
                            "{what}: offset {} is not a multiple of {align}",
                            cb.buffer_offset
                        )
                    })?;
                }
                (None, Some(data)) => {
                    check(cb.buffer_size as usize <= data.len(), || {
                        format!(
                            "{what}: buffer_size {} exceeds the {} bytes of user data",
                            cb.buffer_size,
                            data.len()
                        )
                    })?;
                }
                (None, None) => {}
            }
            check(cb.buffer_size <= self.caps.max_constant_buffer_size, || {
                format!(
                    "{what}: size {} exceeds the limit of {}",
                    cb.buffer_size, self.caps.max_constant_buffer_size
                )
            })?;
        }
        self.inner.set_constant_buffer(stage, index, buffer)
    }
    fn set_inlinable_constants(&mut self, stage: ShaderStage, values: &[u32]) -> PipeResult<()> {
        check(values.len() <= MAX_INLINABLE_UNIFORMS, || {
            format!(
                "set_inlinable_constants: {} values exceed {MAX_INLINABLE_UNIFORMS}",
                values.len()
            )
        })?;
        self.inner.set_inlinable_constants(stage, values)
    }
    fn set_framebuffer_state(&mut self, state: &FramebufferState) -> PipeResult<()> {
        let what = "set_framebuffer_state";
        let max = self.caps.max_render_targets.min(MAX_COLOR_BUFS as u32);
        check(state.cbufs.len() <= max as usize, || {
            format!(
                "{what}: {} colour buffers exceed the limit of {max}",
                state.cbufs.len()
            )
        })?;
        // With attachments, each must have the framebuffer's count (below);
        // without, the device's no-attachment counts apply.
        let samples = u32::from(state.samples.max(1));
        let attached = state.cbufs.iter().flatten().next().is_some() || state.zsbuf.is_some();
        check(
            samples.is_power_of_two()
                && (attached || self.caps.framebuffer_no_attachments_sample_counts & samples != 0),
            || {
                format!(
                    "{what}: {} samples is no power of two, or not a sample count of \
                     framebuffers without attachments (mask {:#x})",
                    state.samples, self.caps.framebuffer_no_attachments_sample_counts
                )
            },
        )?;
        let surfaces = state.cbufs.iter().flatten().chain(state.zsbuf.iter());
        for s in surfaces {
            let d = s.desc();
            check(
                d.width >= u32::from(state.width) && d.height >= u32::from(state.height),
                || {
                    format!(
                        "{what}: surface #{} ({}x{}) is smaller than the framebuffer ({}x{})",
                        s.id(),
                        d.width,
                        d.height,
                        state.width,
                        state.height
                    )
                },
            )?;
            check(
                d.texture.desc().samples() == u32::from(state.samples.max(1)),
                || {
                    format!(
                        "{what}: surface #{} has {} samples, framebuffer {}",
                        s.id(),
                        d.texture.desc().samples(),
                        state.samples
                    )
                },
            )?;
        }
        for (i, s) in state.cbufs.iter().enumerate() {
            if let Some(s) = s {
                check(!s.desc().template.format.is_depth_or_stencil(), || {
                    format!(
                        "{what}: colour buffer {i} has depth/stencil format {}",
                        s.desc().template.format
                    )
                })?;
            }
        }
        if let Some(z) = &state.zsbuf {
            check(z.desc().template.format.is_depth_or_stencil(), || {
                format!(
                    "{what}: zsbuf has colour format {}",
                    z.desc().template.format
                )
            })?;
        }
        self.inner.set_framebuffer_state(state)
    }
    fn set_vertex_buffers(&mut self, buffers: &[VertexBuffer]) -> PipeResult<()> {
        let what = "set_vertex_buffers";
        check_range(
            what,
            0,
            buffers.len(),
            self.caps.max_vertex_buffers.min(MAX_VERTEX_BUFFERS as u32),
        )?;
        for vb in buffers {
            if let Some(VertexBufferSource::Resource(res)) = &vb.buffer {
                check_buffer(what, res)?;
                check(vb.buffer_offset <= res.desc().width0, || {
                    format!(
                        "{what}: offset {} is past the end of buffer #{}",
                        vb.buffer_offset,
                        res.id()
                    )
                })?;
            }
        }
        self.inner.set_vertex_buffers(buffers)
    }

    fn set_stencil_ref(&mut self, stencil_ref: StencilRef) -> PipeResult<()> {
        self.inner.set_stencil_ref(stencil_ref)
    }
    fn set_blend_color(&mut self, color: &BlendColor) -> PipeResult<()> {
        self.inner.set_blend_color(color)
    }
    fn set_sample_mask(&mut self, mask: u32) -> PipeResult<()> {
        self.inner.set_sample_mask(mask)
    }
    fn set_sample_locations(&mut self, locations: Option<&[u8]>) -> PipeResult<()> {
        if locations.is_some() {
            check(self.caps.programmable_sample_locations, || {
                "set_sample_locations: programmable sample locations are not supported".into()
            })
            .map_err(|e| PipeError::Unsupported(e.to_string()))?;
        }
        self.inner.set_sample_locations(locations)
    }
    fn set_min_samples(&mut self, min_samples: u32) -> PipeResult<()> {
        check((1..=32).contains(&min_samples), || {
            format!("set_min_samples: {min_samples} is not in 1..=32")
        })?;
        self.inner.set_min_samples(min_samples)
    }
    fn set_clip_state(&mut self, state: &ClipState) -> PipeResult<()> {
        self.inner.set_clip_state(state)
    }
    fn set_polygon_stipple(&mut self, stipple: &PolyStipple) -> PipeResult<()> {
        self.inner.set_polygon_stipple(stipple)
    }
    fn set_scissor_states(&mut self, start: u32, scissors: &[ScissorState]) -> PipeResult<()> {
        let what = "set_scissor_states";
        check_range(
            what,
            start,
            scissors.len(),
            self.caps.max_viewports.min(MAX_VIEWPORTS as u32),
        )?;
        for s in scissors {
            check(s.minx <= s.maxx && s.miny <= s.maxy, || {
                format!("{what}: inverted rectangle {s:?}")
            })?;
        }
        self.inner.set_scissor_states(start, scissors)
    }
    fn set_viewport_states(&mut self, start: u32, viewports: &[ViewportState]) -> PipeResult<()> {
        let what = "set_viewport_states";
        check_range(
            what,
            start,
            viewports.len(),
            self.caps.max_viewports.min(MAX_VIEWPORTS as u32),
        )?;
        for v in viewports {
            check(
                v.scale
                    .iter()
                    .chain(v.translate.iter())
                    .all(|f| f.is_finite()),
                || format!("{what}: non-finite viewport {v:?}"),
            )?;
        }
        self.inner.set_viewport_states(start, viewports)
    }
    fn set_window_rectangles(&mut self, include: bool, rects: &[ScissorState]) -> PipeResult<()> {
        let what = "set_window_rectangles";
        check_range(what, 0, rects.len(), MAX_WINDOW_RECTANGLES as u32)?;
        for s in rects {
            check(s.minx <= s.maxx && s.miny <= s.maxy, || {
                format!("{what}: inverted rectangle {s:?}")
            })?;
        }
        self.inner.set_window_rectangles(include, rects)
    }
    fn set_tess_state(&mut self, state: &TessState) -> PipeResult<()> {
        self.inner.set_tess_state(state)
    }
    fn set_patch_vertices(&mut self, patch_vertices: u8) -> PipeResult<()> {
        check((1..=32).contains(&patch_vertices), || {
            format!("set_patch_vertices: {patch_vertices} is not in 1..=32")
        })?;
        self.inner.set_patch_vertices(patch_vertices)
    }
    fn set_debug_callback(&mut self, callback: Option<DebugCallback>) -> PipeResult<()> {
        self.inner.set_debug_callback(callback)
    }

    fn set_sampler_views(
        &mut self,
        stage: ShaderStage,
        start: u32,
        views: &[Option<SamplerView>],
        unbind_trailing: u32,
    ) -> PipeResult<()> {
        let what = "set_sampler_views";
        self.check_stage_slots(what, stage)?;
        let count = views.len().saturating_add(unbind_trailing as usize);
        check_range(what, start, count, MAX_SHADER_SAMPLER_VIEWS as u32)?;
        self.inner
            .set_sampler_views(stage, start, views, unbind_trailing)
    }
    fn create_sampler_view(
        &mut self,
        texture: &Resource,
        template: &SamplerViewTemplate,
    ) -> PipeResult<SamplerView> {
        let what = "create_sampler_view";
        let t = texture.desc();
        // Buffers have no format of their own: a texture buffer's format
        // is the view's (checked against its texel size below).
        check(
            t.target == Target::Buffer || format::views_compatible(t.format, template.format),
            || {
                format!(
                    "{what}: view format {} is not compatible with resource format {}",
                    template.format, t.format
                )
            },
        )?;
        match template.range {
            ViewRange::Buffer { offset, size } => {
                check(template.target == Target::Buffer, || {
                    format!("{what}: buffer range on a {} view", template.target.name())
                })?;
                check_buffer_range(what, texture, offset, size)?;
                check_texel_buffer(
                    what,
                    template.format,
                    size,
                    self.caps.max_texel_buffer_elements,
                )?;
                check(
                    offset.is_multiple_of(self.caps.texture_buffer_offset_alignment.max(1)),
                    || {
                        format!(
                            "{what}: offset {offset} is not a multiple of {}",
                            self.caps.texture_buffer_offset_alignment
                        )
                    },
                )?;
            }
            ViewRange::Texture {
                first_level,
                last_level,
                first_layer,
                last_layer,
            } => {
                check_texture(what, texture)?;
                check(
                    first_level <= last_level && last_level <= t.last_level,
                    || {
                        format!("{what}: levels {first_level}..={last_level} out of range (last_level {})", t.last_level)
                    },
                )?;
                let layers = if t.target == Target::Texture3D {
                    1
                } else {
                    t.array_size
                };
                check(first_layer <= last_layer && last_layer < layers, || {
                    format!("{what}: layers {first_layer}..={last_layer} out of range ({layers})")
                })?;
                let compatible_target = matches!(
                    (t.target, template.target),
                    (a, b) if a == b
                ) || matches!(
                    (t.target, template.target),
                    (Target::Texture2DArray, Target::Texture2D)
                        | (Target::Texture2D, Target::Texture2DArray)
                        | (Target::Texture1DArray, Target::Texture1D)
                        | (Target::Texture1D, Target::Texture1DArray)
                        | (Target::TextureCube, Target::Texture2DArray)
                        | (Target::TextureCube, Target::Texture2D)
                        | (Target::TextureCubeArray, Target::Texture2DArray)
                        | (Target::TextureCubeArray, Target::TextureCube)
                        | (Target::TextureCubeArray, Target::Texture2D)
                        | (Target::Texture2DArray, Target::TextureCube)
                        | (Target::Texture2DArray, Target::TextureCubeArray)
                        | (Target::TextureRect, Target::Texture2D)
                        | (Target::Texture2D, Target::TextureRect)
                );
                check(compatible_target, || {
                    format!(
                        "{what}: a {} view of a {} resource",
                        template.target.name(),
                        t.target.name()
                    )
                })?;
                // Layer counts per view target (Vulkan's view rules).
                let count = last_layer - first_layer + 1;
                let ok = match template.target {
                    Target::TextureCube => count == 6 && t.width0 == t.height0 && t.samples() == 1,
                    Target::TextureCubeArray => {
                        count.is_multiple_of(6) && t.width0 == t.height0 && t.samples() == 1
                    }
                    Target::Texture1D | Target::Texture2D | Target::TextureRect => count == 1,
                    _ => true,
                };
                check(ok, || {
                    format!(
                        "{what}: a {} view cannot cover {count} layers",
                        template.target.name()
                    )
                })?;
            }
        }
        self.inner.create_sampler_view(texture, template)
    }
    fn sampler_view_destroy(&mut self, view: SamplerView) -> PipeResult<()> {
        self.inner.sampler_view_destroy(view)
    }

    fn set_hw_atomic_buffers(
        &mut self,
        start: u32,
        buffers: &[Option<ShaderBuffer>],
    ) -> PipeResult<()> {
        let what = "set_hw_atomic_buffers";
        check_range(what, start, buffers.len(), MAX_HW_ATOMIC_BUFFERS as u32)?;
        for b in buffers.iter().flatten() {
            check_buffer_range(what, &b.buffer, b.buffer_offset, b.buffer_size)?;
        }
        self.inner.set_hw_atomic_buffers(start, buffers)
    }
    fn set_shader_buffers(
        &mut self,
        stage: ShaderStage,
        start: u32,
        buffers: &[Option<ShaderBuffer>],
        writable_bitmask: u32,
    ) -> PipeResult<()> {
        let what = "set_shader_buffers";
        self.check_stage_slots(what, stage)?;
        let max = self
            .caps
            .stage(stage)
            .max_shader_buffers
            .min(MAX_SHADER_BUFFERS as u32);
        check_range(what, start, buffers.len(), max)?;
        for b in buffers.iter().flatten() {
            check_buffer_range(what, &b.buffer, b.buffer_offset, b.buffer_size)?;
            let align = self.caps.shader_buffer_offset_alignment.max(1);
            check(b.buffer_offset.is_multiple_of(align), || {
                format!(
                    "{what}: offset {} is not a multiple of {align}",
                    b.buffer_offset
                )
            })?;
        }
        self.inner
            .set_shader_buffers(stage, start, buffers, writable_bitmask)
    }
    fn set_shader_images(
        &mut self,
        stage: ShaderStage,
        start: u32,
        images: &[Option<ImageView>],
        unbind_trailing: u32,
    ) -> PipeResult<()> {
        let what = "set_shader_images";
        self.check_stage_slots(what, stage)?;
        let max = self
            .caps
            .stage(stage)
            .max_shader_images
            .min(MAX_SHADER_IMAGES as u32);
        check_range(
            what,
            start,
            images.len().saturating_add(unbind_trailing as usize),
            max,
        )?;
        for img in images.iter().flatten() {
            let t = img.resource.desc();
            check(
                t.target == Target::Buffer || format::views_compatible(t.format, img.format),
                || {
                    format!(
                        "{what}: image format {} is not compatible with {}",
                        img.format, t.format
                    )
                },
            )?;
            match img.range {
                ImageViewRange::Buffer { offset, size } => {
                    check_buffer_range(what, &img.resource, offset, size)?;
                    check_texel_buffer(
                        what,
                        img.format,
                        size,
                        self.caps.max_texel_buffer_elements,
                    )?;
                    let align = self.caps.texture_buffer_offset_alignment.max(1);
                    check(offset.is_multiple_of(align), || {
                        format!("{what}: image buffer offset {offset} is not a multiple of {align}")
                    })?;
                }
                ImageViewRange::Texture {
                    level,
                    first_layer,
                    last_layer,
                } => {
                    check_texture(what, &img.resource)?;
                    check_level_layers(what, t, level, first_layer, last_layer)?;
                }
            }
        }
        self.inner
            .set_shader_images(stage, start, images, unbind_trailing)
    }

    fn create_surface(
        &mut self,
        texture: &Resource,
        template: &SurfaceTemplate,
    ) -> PipeResult<Surface> {
        let what = "create_surface";
        check_texture(what, texture)?;
        let t = texture.desc();
        check_level_layers(
            what,
            t,
            template.level,
            template.first_layer,
            template.last_layer,
        )?;
        check(format::views_compatible(t.format, template.format), || {
            format!(
                "{what}: surface format {} is not compatible with {}",
                template.format, t.format
            )
        })?;
        check(!template.format.is_compressed(), || {
            format!(
                "{what}: compressed format {} cannot be rendered to",
                template.format
            )
        })?;
        self.inner.create_surface(texture, template)
    }
    fn surface_destroy(&mut self, surface: Surface) -> PipeResult<()> {
        self.inner.surface_destroy(surface)
    }

    fn create_stream_output_target(
        &mut self,
        buffer: &Resource,
        buffer_offset: u32,
        buffer_size: u32,
    ) -> PipeResult<StreamOutputTarget> {
        let what = "create_stream_output_target";
        check_buffer_range(what, buffer, buffer_offset, buffer_size)?;
        check(buffer_size > 0, || format!("{what}: an empty target"))?;
        check(
            buffer_offset.is_multiple_of(4) && buffer_size.is_multiple_of(4),
            || {
                format!(
                    "{what}: offset {buffer_offset} and size {buffer_size} must be multiples of 4"
                )
            },
        )?;
        self.inner
            .create_stream_output_target(buffer, buffer_offset, buffer_size)
    }
    fn stream_output_target_destroy(&mut self, target: StreamOutputTarget) -> PipeResult<()> {
        self.inner.stream_output_target_destroy(target)
    }
    fn set_stream_output_targets(
        &mut self,
        targets: &[Option<StreamOutputTarget>],
        offsets: &[Option<u32>],
    ) -> PipeResult<()> {
        let what = "set_stream_output_targets";
        check_range(
            what,
            0,
            targets.len(),
            self.caps
                .max_stream_output_buffers
                .min(MAX_SO_BUFFERS as u32),
        )?;
        check(offsets.len() == targets.len(), || {
            format!(
                "{what}: {} offsets for {} targets",
                offsets.len(),
                targets.len()
            )
        })?;
        let bound: Vec<&StreamOutputTarget> = targets.iter().flatten().collect();
        for (i, a) in bound.iter().enumerate() {
            for b in &bound[..i] {
                check(a.id() != b.id(), || {
                    format!("{what}: target #{} is bound twice", a.id())
                })?;
                let (da, db) = (a.desc(), b.desc());
                let ra = da.buffer_offset..da.buffer_offset + da.buffer_size;
                let rb = db.buffer_offset..db.buffer_offset + db.buffer_size;
                check(
                    da.buffer.id() != db.buffer.id() || ra.end <= rb.start || rb.end <= ra.start,
                    || {
                        format!(
                            "{what}: targets #{} and #{} overlap in buffer #{} ({ra:?} and {rb:?})",
                            b.id(),
                            a.id(),
                            da.buffer.id()
                        )
                    },
                )?;
            }
        }
        for (t, off) in targets.iter().zip(offsets) {
            if let (Some(t), Some(off)) = (t, off) {
                check(
                    off.is_multiple_of(4) && *off <= t.desc().buffer_size,
                    || {
                        format!(
                            "{what}: offset {off} is unaligned or past the {}-byte target",
                            t.desc().buffer_size
                        )
                    },
                )?;
            }
        }
        self.inner.set_stream_output_targets(targets, offsets)
    }
    fn stream_output_target_offset(&mut self, target: &StreamOutputTarget) -> PipeResult<u32> {
        self.inner.stream_output_target_offset(target)
    }

    fn clear(
        &mut self,
        buffers: ClearFlags,
        scissor: Option<&ScissorState>,
        color: &ColorUnion,
        depth: f64,
        stencil: u32,
    ) -> PipeResult<()> {
        if buffers.contains(ClearFlags::DEPTH) {
            check_depth("clear", depth)?;
        }
        if let Some(sc) = scissor {
            check(sc.minx <= sc.maxx && sc.miny <= sc.maxy, || {
                format!("clear: inverted scissor {sc:?}")
            })?;
        }
        self.inner.clear(buffers, scissor, color, depth, stencil)
    }
    fn clear_render_target(
        &mut self,
        dst: &Surface,
        color: &ColorUnion,
        dstx: u32,
        dsty: u32,
        width: u32,
        height: u32,
        render_condition_enabled: bool,
    ) -> PipeResult<()> {
        check(!dst.desc().template.format.is_depth_or_stencil(), || {
            "clear_render_target: surface has a depth/stencil format".into()
        })?;
        check_clear_rect("clear_render_target", dst, dstx, dsty, width, height)?;
        if width == 0 || height == 0 {
            return Ok(());
        }
        self.inner.clear_render_target(
            dst,
            color,
            dstx,
            dsty,
            width,
            height,
            render_condition_enabled,
        )
    }
    fn clear_depth_stencil(
        &mut self,
        dst: &Surface,
        flags: ClearFlags,
        depth: f64,
        stencil: u32,
        dstx: u32,
        dsty: u32,
        width: u32,
        height: u32,
        render_condition_enabled: bool,
    ) -> PipeResult<()> {
        let what = "clear_depth_stencil";
        check(
            !flags.is_empty() && ClearFlags::DEPTHSTENCIL.contains(flags),
            || format!("{what}: flags {flags:?} must be DEPTH and/or STENCIL"),
        )?;
        let d = dst.desc().template.format;
        check(d.is_depth_or_stencil(), || {
            format!("{what}: surface has a colour format")
        })?;
        check(!flags.contains(ClearFlags::DEPTH) || d.is_depth(), || {
            format!("{what}: DEPTH on a format without depth")
        })?;
        check(
            !flags.contains(ClearFlags::STENCIL) || d.has_stencil(),
            || format!("{what}: STENCIL on a format without stencil"),
        )?;
        if flags.contains(ClearFlags::DEPTH) {
            check_depth(what, depth)?;
        }
        check_clear_rect(what, dst, dstx, dsty, width, height)?;
        if width == 0 || height == 0 {
            return Ok(());
        }
        self.inner.clear_depth_stencil(
            dst,
            flags,
            depth,
            stencil,
            dstx,
            dsty,
            width,
            height,
            render_condition_enabled,
        )
    }
    fn clear_texture(
        &mut self,
        resource: &Resource,
        level: u32,
        bx: &PipeBox,
        data: &[u8],
    ) -> PipeResult<()> {
        let what = "clear_texture";
        check_texture(what, resource)?;
        check_box(resource.desc(), level, bx, what)?;
        let bytes = resource.desc().format.desc().block.bits as usize / 8;
        check(data.len() == bytes, || {
            format!(
                "{what}: {} bytes of clear value for a {bytes}-byte texel",
                data.len()
            )
        })?;
        self.inner.clear_texture(resource, level, bx, data)
    }
    fn clear_buffer(
        &mut self,
        resource: &Resource,
        offset: u32,
        size: u32,
        value: &[u8],
    ) -> PipeResult<()> {
        let what = "clear_buffer";
        check_buffer_range(what, resource, offset, size)?;
        check(matches!(value.len(), 1 | 2 | 4 | 8 | 12 | 16), || {
            format!(
                "{what}: clear value of {} bytes (1, 2, 4, 8, 12 or 16)",
                value.len()
            )
        })?;
        check((size as usize).is_multiple_of(value.len()), || {
            format!(
                "{what}: size {size} is not a multiple of the {}-byte value",
                value.len()
            )
        })?;
        if size == 0 {
            return Ok(());
        }
        self.inner.clear_buffer(resource, offset, size, value)
    }
    fn evaluate_depth_buffer(&mut self) -> PipeResult<()> {
        self.inner.evaluate_depth_buffer()
    }

    fn upload_alloc(
        &mut self,
        uploader: Uploader,
        size: u32,
        alignment: u32,
    ) -> PipeResult<UploadAllocation> {
        check(size > 0 && alignment.is_power_of_two(), || {
            format!("upload_alloc: size {size} must be non-zero and alignment {alignment} a power of two")
        })?;
        self.inner.upload_alloc(uploader, size, alignment)
    }
    fn upload_data(
        &mut self,
        uploader: Uploader,
        data: &[u8],
        alignment: u32,
    ) -> PipeResult<(Resource, u32)> {
        check(
            !data.is_empty() && alignment.is_power_of_two() && u32::try_from(data.len()).is_ok(),
            || {
                format!("upload_data: {} bytes, alignment {alignment}: need data and a power-of-two alignment", data.len())
            },
        )?;
        self.inner.upload_data(uploader, data, alignment)
    }
    fn upload_unmap(&mut self, uploader: Uploader) -> PipeResult<()> {
        self.inner.upload_unmap(uploader)
    }

    fn draw_vbo(
        &mut self,
        info: &DrawInfo<'_>,
        drawid_offset: u32,
        indirect: Option<&DrawIndirectInfo>,
        draws: &[DrawStartCountBias],
    ) -> PipeResult<()> {
        let what = "draw_vbo";
        match (info.index_size, &info.index) {
            (0, IndexSource::None) => {}
            (1 | 2 | 4, IndexSource::Resource(res)) => {
                check_buffer(what, res)?;
                if indirect.is_none() {
                    let size = u64::from(info.index_size);
                    let limit = u64::from(res.desc().width0);
                    for d in draws {
                        let end = (u64::from(d.start) + u64::from(d.count)) * size;
                        check(end <= limit, || {
                            format!("{what}: draw reads indices up to byte {end} of a {limit}-byte index buffer")
                        })?;
                    }
                }
            }
            (1 | 2 | 4, IndexSource::User(data)) => {
                check(indirect.is_none(), || {
                    format!("{what}: indirect draws cannot use user indices")
                })?;
                let size = u64::from(info.index_size);
                for d in draws {
                    let end = (u64::from(d.start) + u64::from(d.count)) * size;
                    check(end <= data.len() as u64, || {
                        format!(
                            "{what}: draw reads indices up to byte {end} of {} user bytes",
                            data.len()
                        )
                    })?;
                }
            }
            (s, src) => {
                return invalid(format!(
                    "{what}: index_size {s} does not match index source {}",
                    match src {
                        IndexSource::None => "none",
                        IndexSource::Resource(_) => "buffer",
                        IndexSource::User(_) => "user memory",
                    }
                ))
            }
        }
        if info.mode == PrimType::Patches {
            check(self.caps.stage(ShaderStage::TessCtrl).supported, || {
                format!("{what}: patches need tessellation")
            })?;
        }
        match indirect {
            None => check(!draws.is_empty(), || format!("{what}: no draws"))?,
            Some(ind) => {
                if let Some(so) = &ind.count_from_stream_output {
                    check(ind.buffer.is_none(), || {
                        format!(
                            "{what}: draw-auto (stream output {}) with an indirect buffer",
                            so.id()
                        )
                    })?;
                    check(info.index_size == 0, || {
                        format!("{what}: draw-auto draws are not indexed")
                    })?;
                } else {
                    let Some(buf) = &ind.buffer else {
                        return invalid(format!("{what}: indirect draw without a buffer"));
                    };
                    let cmd = if info.index_size != 0 { 20u64 } else { 16u64 };
                    let stride = if ind.draw_count > 1 {
                        u64::from(ind.stride)
                    } else {
                        cmd
                    };
                    // GL wants strides and the count's offset in whole
                    // words (INVALID_VALUE), Vulkan too (VUIDs 00476,
                    // 02716).
                    check(
                        ind.draw_count <= 1 || (stride >= cmd && stride.is_multiple_of(4)),
                        || {
                            format!(
                            "{what}: indirect stride {} smaller than a command ({cmd}) or not a \
                             multiple of 4",
                            ind.stride
                        )
                        },
                    )?;
                    let end = u64::from(ind.offset)
                        + stride * u64::from(ind.draw_count.max(1)).saturating_sub(1)
                        + cmd;
                    check_buffer(what, buf)?;
                    check(
                        ind.offset.is_multiple_of(4) && end <= u64::from(buf.desc().width0),
                        || {
                            format!("{what}: indirect commands {}..{end} outside buffer of {} bytes (or misaligned)", ind.offset, buf.desc().width0)
                        },
                    )?;
                    if let Some(cbuf) = &ind.indirect_draw_count {
                        check_buffer_range(what, cbuf, ind.indirect_draw_count_offset, 4)?;
                        check(ind.indirect_draw_count_offset.is_multiple_of(4), || {
                            format!(
                                "{what}: indirect draw count offset {} is not a multiple of 4",
                                ind.indirect_draw_count_offset
                            )
                        })?;
                        check(self.caps.draw_indirect_count, || {
                            format!("{what}: indirect count unsupported")
                        })
                        .map_err(|e| PipeError::Unsupported(e.to_string()))?;
                    }
                }
            }
        }
        self.inner.draw_vbo(info, drawid_offset, indirect, draws)
    }

    fn create_query(&mut self, query_type: QueryType, index: u32) -> PipeResult<Query> {
        let what = "create_query";
        if query_type.takes_stream_index() {
            check(index <= self.caps.max_vertex_stream, || {
                format!(
                    "{what}: stream {index} exceeds the last stream {}",
                    self.caps.max_vertex_stream
                )
            })?;
        } else if query_type == QueryType::PipelineStatisticsSingle {
            check(PipelineStat::from_index(index).is_some(), || {
                format!("{what}: {index} is not a PIPE_STAT_QUERY counter")
            })?;
        } else {
            check(index == 0, || {
                format!("{what}: {query_type:?} takes index 0, got {index}")
            })?;
        }
        self.inner.create_query(query_type, index)
    }
    fn destroy_query(&mut self, query: Query) -> PipeResult<()> {
        self.inner.destroy_query(query)
    }
    fn begin_query(&mut self, query: &Query) -> PipeResult<()> {
        check(!query.desc().query_type.is_end_only(), || {
            format!(
                "begin_query: {:?} queries are only ended",
                query.desc().query_type
            )
        })?;
        self.inner.begin_query(query)
    }
    fn end_query(&mut self, query: &Query) -> PipeResult<()> {
        self.inner.end_query(query)
    }
    fn get_query_result(&mut self, query: &Query, wait: bool) -> PipeResult<Option<QueryResult>> {
        self.inner.get_query_result(query, wait)
    }
    fn get_query_result_resource(
        &mut self,
        query: &Query,
        flags: QueryFlags,
        result_type: QueryValueType,
        index: QueryResultIndex,
        resource: &Resource,
        offset: u32,
    ) -> PipeResult<()> {
        let what = "get_query_result_resource";
        check_buffer_range(what, resource, offset, result_type.size())?;
        check(offset.is_multiple_of(4), || {
            format!("{what}: offset {offset} is not 4-byte aligned")
        })?;
        if let QueryResultIndex::Value(i) = index {
            let n = match query.desc().query_type {
                QueryType::SoStatistics | QueryType::TimestampDisjoint => 2,
                QueryType::PipelineStatistics => 11,
                _ => 1,
            };
            check(i < n, || format!("{what}: value {i} of a {n}-value query"))?;
        }
        self.inner
            .get_query_result_resource(query, flags, result_type, index, resource, offset)
    }
    fn set_active_query_state(&mut self, enable: bool) -> PipeResult<()> {
        self.inner.set_active_query_state(enable)
    }

    fn render_condition(
        &mut self,
        query: Option<&Query>,
        condition: bool,
        mode: RenderCondMode,
    ) -> PipeResult<()> {
        if let Some(q) = query {
            check(q.desc().query_type.is_predicate_source(), || {
                format!(
                    "render_condition: {:?} cannot predicate rendering",
                    q.desc().query_type
                )
            })?;
        }
        self.inner.render_condition(query, condition, mode)
    }
    fn render_condition_mem(
        &mut self,
        buffer: Option<&Resource>,
        offset: u32,
        condition: bool,
    ) -> PipeResult<()> {
        if let Some(b) = buffer {
            check_buffer_range("render_condition_mem", b, offset, 4)?;
            check(offset.is_multiple_of(4), || {
                format!("render_condition_mem: offset {offset} is not 4-byte aligned")
            })?;
        }
        self.inner.render_condition_mem(buffer, offset, condition)
    }

    fn flush(&mut self, flags: FlushFlags, want_fence: bool) -> PipeResult<Option<Fence>> {
        check(
            !flags.contains(FlushFlags::TOP_OF_PIPE | FlushFlags::BOTTOM_OF_PIPE),
            || "flush: at most one of TOP_OF_PIPE and BOTTOM_OF_PIPE".into(),
        )?;
        self.inner.flush(flags, want_fence)
    }
    fn flush_resource(&mut self, resource: &Resource) -> PipeResult<()> {
        self.inner.flush_resource(resource)
    }
    fn fence_server_sync(&mut self, fence: &Fence) -> PipeResult<()> {
        self.inner.fence_server_sync(fence)
    }
    fn fence_server_signal(&mut self, fence: &Fence) -> PipeResult<()> {
        self.inner.fence_server_signal(fence)
    }
    fn is_resource_referenced(
        &mut self,
        resource: &Resource,
        level: u32,
        layer: u32,
    ) -> PipeResult<ReferenceFlags> {
        let t = resource.desc();
        check(
            level <= t.last_level && layer < t.level_layers(level).unwrap_or(1),
            || format!("is_resource_referenced: level {level} layer {layer} out of range"),
        )?;
        self.inner.is_resource_referenced(resource, level, layer)
    }

    fn resource_copy_region(
        &mut self,
        dst: &Resource,
        dst_level: u32,
        dstx: u32,
        dsty: u32,
        dstz: u32,
        src: &Resource,
        src_level: u32,
        src_box: &PipeBox,
    ) -> PipeResult<()> {
        let what = "resource_copy_region";
        let (s, d) = (src.desc(), dst.desc());
        check_box(s, src_level, src_box, what)?;
        check(
            s.format.desc().block.bits == d.format.desc().block.bits,
            || {
                format!(
                    "{what}: {} and {} are not copy-compatible",
                    s.format, d.format
                )
            },
        )?;
        check(s.samples() == d.samples(), || {
            format!(
                "{what}: sample counts differ ({} vs {})",
                s.samples(),
                d.samples()
            )
        })?;
        check(
            (s.target == Target::Buffer) == (d.target == Target::Buffer),
            || format!("{what}: copies between buffers and textures are not region copies"),
        )?;
        // The destination box has the source's extent in blocks, scaled to
        // the destination's block size.
        let (sb, db) = (s.format.desc().block, d.format.desc().block);
        // Partial edge blocks count as whole blocks (div_ceil).
        let blocks = |e: i32, b: u32| (e.max(0) as u32).div_ceil(b.max(1));
        let scale = |e: i32, sbw: u32, dbw: u32| {
            if sbw == dbw {
                e
            } else {
                (blocks(e, sbw) * dbw.max(1)).min(i32::MAX as u32) as i32
            }
        };
        let dw = scale(src_box.width, sb.width, db.width);
        let dh = scale(src_box.height, sb.height, db.height);
        let dst_box = PipeBox::new(
            i32::try_from(dstx).unwrap_or(i32::MAX),
            i32::try_from(dsty).unwrap_or(i32::MAX),
            i32::try_from(dstz).unwrap_or(i32::MAX),
            dw.max(if src_box.width > 0 { 1 } else { 0 }),
            dh.max(if src_box.height > 0 { 1 } else { 0 }),
            src_box.depth,
        );
        check_box(d, dst_level, &dst_box, what)?;
        if src_box.is_empty() {
            return Ok(());
        }
        if Arc::ptr_eq(src, dst) && src_level == dst_level {
            let overlap = |a0: i32, al: i32, b0: i32, bl: i32| {
                let (a0, al) = (i64::from(a0), i64::from(al));
                let (b0, bl) = (i64::from(b0), i64::from(bl));
                a0 < b0 + bl && b0 < a0 + al
            };
            check(
                !(overlap(src_box.x, src_box.width, dst_box.x, dst_box.width)
                    && overlap(src_box.y, src_box.height, dst_box.y, dst_box.height)
                    && overlap(src_box.z, src_box.depth, dst_box.z, dst_box.depth)),
                || format!("{what}: source and destination regions overlap"),
            )?;
        }
        self.inner
            .resource_copy_region(dst, dst_level, dstx, dsty, dstz, src, src_level, src_box)
    }
    fn blit(&mut self, info: &BlitInfo) -> PipeResult<()> {
        let what = "blit";
        check(!info.mask.is_empty(), || format!("{what}: empty mask"))?;
        for (side, s) in [("dst", &info.dst), ("src", &info.src)] {
            check_texture(what, &s.resource)?;
            let t = s.resource.desc();
            // Normalize flips (negative extents) before the bounds check.
            let mut b = s.bx;
            let flip = |o: &mut i32, e: &mut i32| -> bool {
                if *e >= 0 {
                    return true;
                }
                match (o.checked_add(*e), e.checked_neg()) {
                    (Some(no), Some(ne)) => {
                        *o = no;
                        *e = ne;
                        true
                    }
                    _ => false,
                }
            };
            check(
                flip(&mut b.x, &mut b.width) && flip(&mut b.y, &mut b.height),
                || format!("{what}: {side} box {:?} overflows", s.bx),
            )?;
            if side == "dst" {
                check(s.bx.width >= 0 && s.bx.height >= 0, || {
                    format!(
                        "{what}: destination box {:?} is flipped; flip the source",
                        s.bx
                    )
                })?;
            }
            check_box(t, s.level, &b, &format!("{what} ({side})"))?;
            // A blit surface's format is a view of its resource (the
            // Vulkan blitter makes one; found by the API fuzz, seed 112).
            check(format::views_compatible(t.format, s.format), || {
                format!(
                    "{what}: {side} format {} is not compatible with its resource's {}",
                    s.format, t.format
                )
            })?;
            let fd = s.format;
            if info.mask.intersects(BlitMask::ZS) {
                check(fd.is_depth_or_stencil(), || {
                    format!("{what}: Z/S mask on {side} colour format {}", s.format)
                })?;
            }
            if info.mask.intersects(BlitMask::RGBA) {
                check(!fd.is_depth_or_stencil(), || {
                    format!(
                        "{what}: RGBA mask on {side} depth/stencil format {}",
                        s.format
                    )
                })?;
            }
        }
        check(
            info.window_rectangles.len() <= MAX_WINDOW_RECTANGLES,
            || format!("{what}: {} window rectangles", info.window_rectangles.len()),
        )?;
        self.inner.blit(info)
    }

    fn transfer_map(
        &mut self,
        resource: &Resource,
        level: u32,
        usage: MapFlags,
        bx: &PipeBox,
    ) -> PipeResult<Transfer> {
        let what = "transfer_map";
        validate_map_flags(resource.desc(), usage)?;
        check_box(resource.desc(), level, bx, what)?;
        check_nonempty_box(what, bx)?;
        self.inner.transfer_map(resource, level, usage, bx)
    }
    fn transfer_unmap(&mut self, transfer: Transfer) -> PipeResult<()> {
        self.inner.transfer_unmap(transfer)
    }
    fn transfer_flush_region(&mut self, transfer: &mut Transfer, bx: &PipeBox) -> PipeResult<()> {
        let what = "transfer_flush_region";
        check(transfer.usage().contains(MapFlags::FLUSH_EXPLICIT), || {
            format!("{what}: the transfer was not mapped with FLUSH_EXPLICIT")
        })?;
        let m = transfer.bx();
        let inside = bx.x >= 0
            && bx.y >= 0
            && bx.z >= 0
            && bx.width >= 0
            && bx.height >= 0
            && bx.depth >= 0
            && i64::from(bx.x) + i64::from(bx.width) <= i64::from(m.width)
            && i64::from(bx.y) + i64::from(bx.height) <= i64::from(m.height)
            && i64::from(bx.z) + i64::from(bx.depth) <= i64::from(m.depth);
        check(inside, || {
            format!("{what}: {bx:?} is outside the mapped box {m:?}")
        })?;
        self.inner.transfer_flush_region(transfer, bx)
    }
    fn buffer_subdata(
        &mut self,
        resource: &Resource,
        usage: MapFlags,
        offset: u32,
        data: &[u8],
    ) -> PipeResult<()> {
        let what = "buffer_subdata";
        let size = u32::try_from(data.len())
            .map_err(|_| PipeError::invalid(format!("{what}: data too large")))?;
        check_buffer_range(what, resource, offset, size)?;
        check(!usage.contains(MapFlags::READ), || {
            format!("{what}: READ in usage")
        })?;
        validate_map_flags(resource.desc(), usage | MapFlags::WRITE)?;
        if data.is_empty() {
            return Ok(());
        }
        self.inner.buffer_subdata(resource, usage, offset, data)
    }
    fn texture_subdata(
        &mut self,
        resource: &Resource,
        level: u32,
        usage: MapFlags,
        bx: &PipeBox,
        data: &[u8],
        stride: usize,
        layer_stride: usize,
    ) -> PipeResult<()> {
        let what = "texture_subdata";
        check_texture(what, resource)?;
        check_box(resource.desc(), level, bx, what)?;
        check_nonempty_box(what, bx)?;
        check(!usage.contains(MapFlags::READ), || {
            format!("{what}: READ in usage")
        })?;
        validate_map_flags(resource.desc(), usage | MapFlags::WRITE)?;
        let need = subdata_size(resource.desc().format, bx, stride, layer_stride);
        check(need.is_some_and(|n| n <= data.len()), || {
            format!("{what}: {} bytes of data, the box with strides {stride}/{layer_stride} needs {need:?}", data.len())
        })?;
        self.inner
            .texture_subdata(resource, level, usage, bx, data, stride, layer_stride)
    }

    fn texture_barrier(&mut self, flags: TextureBarrierFlags) -> PipeResult<()> {
        self.inner.texture_barrier(flags)
    }
    fn memory_barrier(&mut self, flags: BarrierFlags) -> PipeResult<()> {
        self.inner.memory_barrier(flags)
    }
    fn resource_commit(
        &mut self,
        resource: &Resource,
        level: u32,
        bx: &PipeBox,
        commit: bool,
    ) -> PipeResult<()> {
        let what = "resource_commit";
        let t = resource.desc();
        check(t.flags.contains(ResourceFlags::SPARSE), || {
            format!("{what}: resource #{} is not sparse", resource.id())
        })?;
        check_box(t, level, bx, what)?;
        if t.target == Target::Buffer {
            let page = self.caps.sparse_buffer_page_size.max(1) as i32;
            let end = i64::from(bx.x) + i64::from(bx.width);
            check(
                bx.x % page == 0 && (end % i64::from(page) == 0 || end == i64::from(t.width0)),
                || {
                    format!(
                        "{what}: range {}..{end} is not aligned to the {page}-byte page",
                        bx.x
                    )
                },
            )?;
        }
        self.inner.resource_commit(resource, level, bx, commit)
    }

    fn create_compute_state(&mut self, state: &ComputeState) -> PipeResult<ComputeHandle> {
        check(self.caps.compute, || {
            "create_compute_state: no compute support".into()
        })
        .map_err(|e| PipeError::Unsupported(e.to_string()))?;
        self.inner.create_compute_state(state)
    }
    fn bind_compute_state(&mut self, handle: Option<ComputeHandle>) -> PipeResult<()> {
        self.inner.bind_compute_state(handle)
    }
    fn delete_compute_state(&mut self, handle: ComputeHandle) -> PipeResult<()> {
        self.inner.delete_compute_state(handle)
    }
    fn launch_grid(&mut self, info: &GridInfo) -> PipeResult<()> {
        let what = "launch_grid";
        let c = &self.caps;
        check(
            info.block
                .iter()
                .zip(c.max_block_size)
                .all(|(b, m)| *b >= 1 && *b <= m),
            || {
                format!(
                    "{what}: block {:?} outside 1..={:?}",
                    info.block, c.max_block_size
                )
            },
        )?;
        let threads = info.block.iter().map(|&b| u64::from(b)).product::<u64>();
        check(threads <= u64::from(c.max_threads_per_block), || {
            format!(
                "{what}: {threads} threads per block exceed {}",
                c.max_threads_per_block
            )
        })?;
        match &info.indirect {
            Some(buf) => {
                check_buffer_range(what, buf, info.indirect_offset, 12)?;
                check(info.indirect_offset.is_multiple_of(4), || {
                    format!("{what}: indirect offset not 4-byte aligned")
                })?;
            }
            None => check(
                info.grid.iter().zip(c.max_grid_size).all(|(g, m)| *g <= m),
                || format!("{what}: grid {:?} exceeds {:?}", info.grid, c.max_grid_size),
            )?,
        }
        self.inner.launch_grid(info)
    }
    fn set_global_binding(
        &mut self,
        first: u32,
        resources: &[Option<Resource>],
    ) -> PipeResult<Vec<u64>> {
        for r in resources.iter().flatten() {
            check_buffer("set_global_binding", r)?;
        }
        self.inner.set_global_binding(first, resources)
    }
    fn set_compute_resources(
        &mut self,
        start: u32,
        surfaces: &[Option<Surface>],
    ) -> PipeResult<()> {
        check_range(
            "set_compute_resources",
            start,
            surfaces.len(),
            MAX_SHADER_IMAGES as u32,
        )?;
        self.inner.set_compute_resources(start, surfaces)
    }
    fn get_compute_state_info(&mut self, handle: ComputeHandle) -> PipeResult<ComputeStateInfo> {
        self.inner.get_compute_state_info(handle)
    }
    fn get_compute_state_subgroup_size(
        &mut self,
        handle: ComputeHandle,
        block: [u32; 3],
    ) -> PipeResult<u32> {
        self.inner.get_compute_state_subgroup_size(handle, block)
    }

    fn generate_mipmap(
        &mut self,
        resource: &Resource,
        format: Format,
        base_level: u32,
        last_level: u32,
        first_layer: u32,
        last_layer: u32,
    ) -> PipeResult<bool> {
        let what = "generate_mipmap";
        check_texture(what, resource)?;
        let t = resource.desc();
        check(
            base_level < last_level && last_level <= t.last_level,
            || {
                format!(
                    "{what}: levels {base_level}..={last_level} out of range (last_level {})",
                    t.last_level
                )
            },
        )?;
        check_level_layers(what, t, base_level, first_layer, last_layer)?;
        check(format::views_compatible(t.format, format), || {
            format!("{what}: {format} is not compatible with {}", t.format)
        })?;
        self.inner.generate_mipmap(
            resource,
            format,
            base_level,
            last_level,
            first_layer,
            last_layer,
        )
    }
    fn get_device_reset_status(&mut self) -> ResetStatus {
        self.inner.get_device_reset_status()
    }
    fn set_device_reset_callback(&mut self, callback: Option<ResetCallback>) -> PipeResult<()> {
        self.inner.set_device_reset_callback(callback)
    }
    fn create_texture_handle(
        &mut self,
        view: &SamplerView,
        sampler: &SamplerState,
    ) -> PipeResult<u64> {
        check(self.caps.bindless_texture, || {
            "create_texture_handle: bindless textures are not supported".into()
        })
        .map_err(|e| PipeError::Unsupported(e.to_string()))?;
        self.inner.create_texture_handle(view, sampler)
    }
    fn delete_texture_handle(&mut self, handle: u64) -> PipeResult<()> {
        self.inner.delete_texture_handle(handle)
    }
    fn make_texture_handle_resident(&mut self, handle: u64, resident: bool) -> PipeResult<()> {
        self.inner.make_texture_handle_resident(handle, resident)
    }
    fn create_image_handle(&mut self, image: &ImageView) -> PipeResult<u64> {
        check(self.caps.bindless_texture, || {
            "create_image_handle: bindless images are not supported".into()
        })
        .map_err(|e| PipeError::Unsupported(e.to_string()))?;
        self.inner.create_image_handle(image)
    }
    fn delete_image_handle(&mut self, handle: u64) -> PipeResult<()> {
        self.inner.delete_image_handle(handle)
    }
    fn make_image_handle_resident(
        &mut self,
        handle: u64,
        access: ImageAccess,
        resident: bool,
    ) -> PipeResult<()> {
        self.inner
            .make_image_handle_resident(handle, access, resident)
    }
}
