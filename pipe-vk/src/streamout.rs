//! Stream output (transform feedback) and draw-auto, on
//! VK_EXT_transform_feedback, as Zink does it.
//!
//! Shaders: the capture list of the last pre-raster stage
//! (`pipe_core::shader::StreamOutputInfo`) becomes `Xfb` decorations through
//! `spirv_gen::passes::xfb` when that stage's module is compiled (see
//! [`lower_stream_output`]); it is checked when the CSO is created. A
//! stream-output register is the shader's n-th output variable in
//! declaration order. A SPIR-V passthrough shader carries its own `Xfb`
//! decorations, which Vulkan reads as they are; pipe-vk reads the layout
//! from them ([`SoCapture::of`]), keeps them to the last vertex stage and
//! moves captured built-ins that GL state rewrites to copies
//! (`spirv_gen::patch::{drop_xfb, xfb_copy_builtins}`, applied by
//! `crate::shader::compile`). A draw knows what it captures into from
//! [`SoCapture`], made once per CSO.
//!
//! Targets ([`VkSoTarget`]): a buffer range plus a 4-byte *counter buffer*
//! holding the target's internal offset (bytes written from
//! `buffer_offset`), which `vkCmdEndTransformFeedbackEXT` stores and
//! `vkCmdBeginTransformFeedbackEXT` resumes from. An offset given to
//! `set_stream_output_targets` is remembered on the target ([`TargetState`])
//! and only reaches the counter buffer when capture resumes: 0 needs no
//! command (Begin without a counter starts at 0), anything else is a
//! `vkCmdFillBuffer` before the rendering instance. `None` (Gallium's -1)
//! leaves the target appending where it stopped.
//!
//! Capture state: transform feedback is *active* from the draw that
//! resumes it until something pauses it, so consecutive capturing draws
//! with one pipeline in one rendering instance share one Begin/End pair.
//! It pauses (End, storing the counters) when the rendering instance ends
//! for any reason (`end_rendering` calls [`VkContext::so_pause`]), when the
//! targets change, when a draw binds another pipeline (binding is not
//! allowed while active) or does not capture, and when a draw needs a
//! barrier. Resuming after a pause needs a barrier on the counter buffers
//! (End's counter write before Begin's read, as the extension says), and
//! barriers cannot be recorded inside dynamic rendering, so a resume costs
//! a new rendering instance. The counter and the captured buffer are
//! declared to `crate::sync` as written at each resume
//! ([`COUNTER_RW`], [`XFB_WRITE`]), which produces exactly those barriers.
//!
//! Draw-auto reads the counter with `vkCmdDrawIndirectByteCountEXT`; the
//! vertex stride is the one the target was last captured with (Gallium
//! leaves it to the driver; Zink does the same). Draws the CPU rewrites
//! (quads, polygons, line loops), and every draw-auto draw on devices
//! without `transformFeedbackDraw` (or with `PIPE_VK_DEBUG=no_xfb_draw`),
//! read the counter back on the CPU instead, as `util_draw_auto` does.
//!
//! `stream_output_target_offset` reads the counter back: a flush and a wait
//! when the value is still on the GPU (reported as a PerfInfo message).
//!
//! Overflow: Vulkan drops primitives that do not fit in the bound range and
//! stops the counter, which is what Gallium asks. It is observable
//! through the SO_OVERFLOW queries (`crate::query`), whose spans cover
//! capturing draws only.

use std::sync::{Arc, Mutex, MutexGuard};

use ash::vk;
use gpu_allocator::MemoryLocation;
use pipe_core::object::Object;
use pipe_core::resource::{BindFlags, Resource, Target};
use pipe_core::shader::{ShaderCode, ShaderState, StreamOutputInfo};
use pipe_core::state::{DebugType, ShaderStage, MAX_SO_BUFFERS};
use pipe_core::view::{StreamOutputTarget, StreamOutputTargetDesc};
use pipe_core::{PipeError, PipeResult};
use smallvec::SmallVec;
use spirv_gen::passes::xfb::XfbCapture;

use crate::context::VkContext;
use crate::memory::DeviceShared;
use crate::resource::{create_buffer_object, vk_resource, ResourceObject};
use crate::sync::{access, Access};

use vk::AccessFlags2 as A;
use vk::PipelineStageFlags2 as S;

/// Transform feedback writes to a captured buffer.
const XFB_WRITE: Access = Access::new(S::TRANSFORM_FEEDBACK_EXT, A::TRANSFORM_FEEDBACK_WRITE_EXT);
/// A counter buffer across a resume: read by Begin (the extension puts
/// that read in DRAW_INDIRECT), written by the End that pauses.
const COUNTER_RW: Access = Access::new(
    S::from_raw(S::TRANSFORM_FEEDBACK_EXT.as_raw() | S::DRAW_INDIRECT.as_raw()),
    A::from_raw(
        A::TRANSFORM_FEEDBACK_COUNTER_READ_EXT.as_raw()
            | A::TRANSFORM_FEEDBACK_COUNTER_WRITE_EXT.as_raw(),
    ),
);
/// A counter buffer read by `vkCmdDrawIndirectByteCountEXT`.
const COUNTER_INDIRECT: Access = Access::new(
    S::DRAW_INDIRECT,
    A::from_raw(
        A::TRANSFORM_FEEDBACK_COUNTER_READ_EXT.as_raw() | A::INDIRECT_COMMAND_READ.as_raw(),
    ),
);

/// What a target resumes from and how it was last captured.
#[derive(Clone, Copy, Debug)]
pub struct TargetState {
    /// An internal offset set by `set_stream_output_targets` that is not in
    /// the counter buffer yet; `None` when the counter buffer holds it.
    pub start: Option<u32>,
    /// Vertex stride in bytes of the last capture into the target (what
    /// draw-auto divides by); `None` before the first capture.
    pub stride: Option<u32>,
    /// Bound by `set_stream_output_targets` at least once: GL's
    /// transform feedback began on it, so a draw-auto from it before any
    /// capture draws the nothing it captured.
    pub bound: bool,
}

/// The backend payload of a stream-output target.
pub struct VkSoTarget {
    pub counter: Arc<ResourceObject>,
    state: Mutex<TargetState>,
}

impl VkSoTarget {
    pub fn state(&self) -> MutexGuard<'_, TargetState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn vk_target(t: &StreamOutputTarget) -> PipeResult<&VkSoTarget> {
    t.backend_or_err::<VkSoTarget>("stream output target")
}

/// The context's stream-output state.
pub struct StreamOut {
    xfb: Option<ash::ext::transform_feedback::Device>,
    max_buffers: u32,
    max_streams: u32,
    max_stride: u32,
    draw_auto: bool,
    targets: Vec<Option<StreamOutputTarget>>,
    /// Transform feedback is active in the open rendering instance.
    active: bool,
    /// The counter buffers the pausing End stores into.
    active_counters: SmallVec<[vk::Buffer; MAX_SO_BUFFERS]>,
}

impl StreamOut {
    pub fn new(dev: &DeviceShared) -> Self {
        let f = &dev.device.features;
        let enabled = f.transform_feedback.transform_feedback == vk::TRUE;
        let mut props = vk::PhysicalDeviceTransformFeedbackPropertiesEXT::default();
        if enabled {
            let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut props);
            // SAFETY: the extension is enabled on this device.
            unsafe {
                dev.instance
                    .raw
                    .get_physical_device_properties2(dev.physical.raw, &mut p2)
            };
        }
        let streams = if f.transform_feedback.geometry_streams == vk::TRUE {
            props.max_transform_feedback_streams
        } else {
            1
        };
        StreamOut {
            xfb: enabled
                .then(|| ash::ext::transform_feedback::Device::new(&dev.instance.raw, dev.raw())),
            max_buffers: props
                .max_transform_feedback_buffers
                .min(MAX_SO_BUFFERS as u32),
            max_streams: streams,
            max_stride: props.max_transform_feedback_buffer_data_stride,
            draw_auto: props.transform_feedback_draw == vk::TRUE && !dev.debug.no_xfb_draw,
            targets: Vec::new(),
            active: false,
            active_counters: SmallVec::new(),
        }
    }

    fn fp(&self) -> PipeResult<&ash::ext::transform_feedback::DeviceFn> {
        self.xfb
            .as_ref()
            .map(|x| x.fp())
            .ok_or_else(|| PipeError::unsupported("stream output needs VK_EXT_transform_feedback"))
    }

    fn any_target(&self) -> bool {
        self.targets.iter().any(Option::is_some)
    }
}

/// What a draw binds stream-output targets for: the capture of its last
/// vertex stage, from the CSO's Gallium capture list (IR) or the
/// module's own `Xfb` decorations (SPIR-V passthrough). Made once per
/// CSO ([`SoCapture::of`], kept in `crate::shader::ShaderInfo`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SoCapture {
    /// Each buffer's vertex stride in bytes; 0 where none is given.
    pub stride: [u32; MAX_SO_BUFFERS],
    /// The buffers captured into, as a mask.
    pub buffers: u8,
    /// The highest vertex stream captured from.
    pub max_stream: u8,
}

impl SoCapture {
    /// The capture of a vertex, tessellation evaluation or geometry
    /// shader CSO when it is the last vertex stage; `None` when it
    /// captures nothing (or its words cannot be read: `check_template`
    /// refused those).
    pub fn of(state: &ShaderState) -> Option<SoCapture> {
        if !matches!(
            state.stage,
            ShaderStage::Vertex | ShaderStage::TessEval | ShaderStage::Geometry
        ) {
            return None;
        }
        match &state.code {
            ShaderCode::SpirV { words, entry_point } => {
                let l = spirv_gen::patch::xfb_layout(
                    words,
                    crate::shader::ir_stage(state.stage),
                    entry_point,
                )
                .ok()??;
                // The mode with nothing captured captures nothing.
                (l.buffers != 0).then(|| SoCapture {
                    stride: l.strides,
                    buffers: l.buffers,
                    max_stream: l.streams.checked_ilog2().map_or(0, |s| s as u8),
                })
            }
            ShaderCode::Ir(_) => {
                let info = &state.stream_output;
                let o = &info.output;
                (!o.is_empty()).then(|| SoCapture {
                    stride: info.stride.map(|s| u32::from(s) * 4),
                    buffers: o.iter().fold(0, |m, o| m | 1 << o.output_buffer),
                    max_stream: o.iter().map(|o| o.stream).max().unwrap_or(0),
                })
            }
        }
    }
}

/// Gallium's capture list in spirv-gen's terms (bytes, not dwords), for
/// `spirv_gen::passes::xfb::lower_xfb`.
pub fn captures(info: &StreamOutputInfo) -> (Vec<XfbCapture>, [u32; MAX_SO_BUFFERS]) {
    let caps = info
        .output
        .iter()
        .map(|o| XfbCapture {
            output: u32::from(o.register_index),
            start_component: u32::from(o.start_component),
            num_components: u32::from(o.num_components),
            buffer: u32::from(o.output_buffer),
            offset: u32::from(o.dst_offset) * 4,
            stream: u32::from(o.stream),
        })
        .collect();
    (caps, info.stride.map(|s| u32::from(s) * 4))
}

/// Applies a shader's capture list to its IR (the last pre-raster stage's
/// module only; run before the GL lowerings).
pub fn lower_stream_output(s: &mut spirv_gen::Shader, info: &StreamOutputInfo) -> PipeResult<()> {
    let (caps, strides) = captures(info);
    spirv_gen::passes::xfb::lower_xfb(s, &caps, strides)
        .map_err(|e| PipeError::invalid(format!("stream output: {e}")))
}

/// [`check_stream_output`] of a SPIR-V passthrough shader.
fn check_spirv_xfb(
    state: &ShaderState,
    words: &[u32],
    entry_point: &str,
    pre_raster: bool,
    no_outputs: impl FnOnce() -> PipeResult<()>,
) -> PipeResult<()> {
    if !state.stream_output.output.is_empty() {
        return Err(PipeError::invalid(
            "shader: a SPIR-V passthrough shader takes no ShaderState::stream_output list; \
             it declares its own capture (Xfb decorations)",
        ));
    }
    let stage = crate::shader::ir_stage(state.stage);
    let layout = spirv_gen::patch::xfb_layout(words, stage, entry_point)
        .map_err(|e| PipeError::invalid(format!("shader: {e}")))?;
    match layout {
        Some(_) if !pre_raster => no_outputs(),
        _ => Ok(()),
    }
}

/// Checks a shader template's capture when its CSO is created. IR: the
/// lowering runs on a copy and the result must validate (strides,
/// overlaps, component ranges, registers that exist). SPIR-V: the
/// module's own `Xfb` decorations must be well formed
/// (`spirv_gen::patch::xfb_layout`), on a stage that captures; a Gallium
/// capture list is refused, the module carrying its own.
pub fn check_stream_output(state: &ShaderState) -> PipeResult<()> {
    let pre_raster = matches!(
        state.stage,
        ShaderStage::Vertex | ShaderStage::TessEval | ShaderStage::Geometry
    );
    let no_outputs = || {
        Err(PipeError::invalid(format!(
            "shader: a {} shader has no outputs to capture with stream output",
            state.stage.short_name()
        )))
    };
    let info = &state.stream_output;
    let any = match &state.code {
        ShaderCode::Ir(any) => any,
        ShaderCode::SpirV { words, entry_point } => {
            return check_spirv_xfb(state, words, entry_point, pre_raster, no_outputs)
        }
    };
    if info.output.is_empty() {
        return Ok(());
    }
    if !pre_raster {
        return no_outputs();
    }
    let Some(ir) = any.downcast_ref::<crate::shader::Ir>() else {
        return Ok(()); // check_template reports the type
    };
    let mut s = ir.clone();
    lower_stream_output(&mut s, info)?;
    spirv_gen::validate::validate(&s)
        .map_err(|e| PipeError::invalid(format!("shader: stream output: {e}")))
}

impl VkContext {
    pub(crate) fn do_create_stream_output_target(
        &mut self,
        buffer: &Resource,
        buffer_offset: u32,
        buffer_size: u32,
    ) -> PipeResult<StreamOutputTarget> {
        let what = "create_stream_output_target";
        self.streamout.fp()?;
        if buffer.desc().target != Target::Buffer {
            return Err(PipeError::invalid(format!(
                "{what}: resource #{} is not a buffer",
                buffer.id()
            )));
        }
        let end = u64::from(buffer_offset) + u64::from(buffer_size);
        if buffer_size == 0 {
            return Err(PipeError::invalid(format!("{what}: an empty target")));
        }
        if end > u64::from(buffer.desc().width0)
            || !buffer_offset.is_multiple_of(4)
            || !buffer_size.is_multiple_of(4)
        {
            return Err(PipeError::invalid(format!(
                "{what}: range {buffer_offset}..{end} is unaligned or past the {}-byte buffer",
                buffer.desc().width0
            )));
        }
        vk_resource(buffer)?;
        let dev = self.dev().clone();
        let counter = create_buffer_object(
            &dev,
            4,
            BindFlags::STREAM_OUTPUT,
            MemoryLocation::GpuToCpu,
            "stream output counter",
        )?;
        Ok(Object::new(
            StreamOutputTargetDesc {
                buffer: buffer.clone(),
                buffer_offset,
                buffer_size,
            },
            VkSoTarget {
                counter,
                state: Mutex::new(TargetState {
                    start: Some(0),
                    stride: None,
                    bound: false,
                }),
            },
        ))
    }

    pub(crate) fn do_set_stream_output_targets(
        &mut self,
        targets: &[Option<StreamOutputTarget>],
        offsets: &[Option<u32>],
    ) -> PipeResult<()> {
        let what = "set_stream_output_targets";
        if targets.is_empty() && self.streamout.xfb.is_none() {
            return Ok(());
        }
        self.streamout.fp()?;
        if targets.len() > self.streamout.max_buffers as usize {
            return Err(PipeError::invalid(format!(
                "{what}: {} targets exceed the limit of {}",
                targets.len(),
                self.streamout.max_buffers
            )));
        }
        if offsets.len() != targets.len() {
            return Err(PipeError::invalid(format!(
                "{what}: {} offsets for {} targets",
                offsets.len(),
                targets.len()
            )));
        }
        for (i, (t, off)) in targets.iter().zip(offsets).enumerate() {
            let Some(t) = t else { continue };
            vk_target(t)?;
            if targets[..i].iter().flatten().any(|o| Arc::ptr_eq(o, t)) {
                return Err(PipeError::invalid(format!(
                    "{what}: target #{} is bound twice",
                    t.id()
                )));
            }
            if let Some(off) = off {
                if !off.is_multiple_of(4) || *off > t.desc().buffer_size {
                    return Err(PipeError::invalid(format!(
                        "{what}: offset {off} is unaligned or past the {}-byte target",
                        t.desc().buffer_size
                    )));
                }
            }
        }
        self.so_pause();
        for (t, off) in targets.iter().zip(offsets) {
            let Some(t) = t else { continue };
            let mut st = vk_target(t)?.state();
            st.bound = true;
            if let Some(off) = off {
                st.start = Some(*off);
            }
        }
        self.streamout.targets = targets.to_vec();
        Ok(())
    }

    pub(crate) fn do_stream_output_target_offset(
        &mut self,
        target: &StreamOutputTarget,
    ) -> PipeResult<u32> {
        let so = vk_target(target)?;
        if let Some(start) = so.state().start {
            return Ok(start);
        }
        let counter = so.counter.clone();
        // A capture in progress stores its counter when it pauses.
        if self.streamout.active
            && self
                .streamout
                .targets
                .iter()
                .flatten()
                .any(|t| Arc::ptr_eq(t, target))
        {
            self.so_pause();
        }
        if counter.busy_for_cpu_read() || self.batches_references(&counter) {
            self.debug_message(DebugType::PerfInfo, 5, || {
                "stream_output_target_offset waited for the GPU to read the counter back"
                    .to_string()
            });
        }
        self.make_host_visible(&counter)?;
        self.sync_for_cpu(&counter, true, false)?;
        let ptr = counter.mapped.ok_or_else(|| {
            PipeError::unsupported("stream output counter buffer is not host visible")
        })?;
        let mut bytes = [0u8; 4];
        // SAFETY: the 4-byte counter buffer is mapped and no GPU work
        // writes it any more (sync_for_cpu waited).
        unsafe { std::ptr::copy_nonoverlapping(ptr.as_ptr(), bytes.as_mut_ptr(), 4) };
        Ok(u32::from_le_bytes(bytes))
    }

    /// Ends transform feedback if it is active, storing the counters.
    /// Called before the rendering instance ends.
    pub(crate) fn so_pause(&mut self) {
        if !self.streamout.active {
            return;
        }
        self.streamout.active = false;
        let Ok(fp) = self.streamout.fp() else { return };
        let end = fp.cmd_end_transform_feedback_ext;
        let counters = std::mem::take(&mut self.streamout.active_counters);
        let offsets = [0u64; MAX_SO_BUFFERS];
        let cmd = self.batches.cmd();
        // SAFETY: transform feedback is active in this command buffer's
        // open rendering instance (active is only set there, and
        // end_rendering pauses first); the arrays hold `counters.len()`
        // live counter buffers (tracked by the batch) and offsets.
        unsafe {
            end(
                cmd,
                0,
                counters.len() as u32,
                counters.as_ptr(),
                offsets.as_ptr(),
            )
        };
    }

    /// The capture of the last pre-raster stage when this draw captures
    /// (targets bound and something to capture).
    pub(crate) fn so_capture_info(&self) -> PipeResult<Option<SoCapture>> {
        if !self.streamout.any_target() {
            return Ok(None);
        }
        Ok(self
            .last_vertex_shader()
            .and_then(|h| self.shader_info(h).capture))
    }

    /// Stores a target's pending offset into its counter buffer (outside
    /// any rendering instance).
    fn so_write_counter(&mut self, so_counter: &Arc<ResourceObject>, value: u32) {
        self.use_buffer(so_counter, access::FILL_WRITE, true);
        let cmd = self.cmd();
        let buf = so_counter.buffer().unwrap_or_default();
        // SAFETY: recording outside rendering; the 4-byte counter buffer
        // is live and tracked by the batch.
        unsafe { self.dev().raw().cmd_fill_buffer(cmd, buf, 0, 4, value) };
    }

    /// Step 2 of a draw (after every other access is declared): pauses an
    /// active capture the draw cannot continue, and declares what resuming
    /// touches. `pipeline` is the draw's pipeline.
    pub(crate) fn so_prepare_draw(
        &mut self,
        capture: Option<&SoCapture>,
        pipeline: vk::Pipeline,
    ) -> PipeResult<()> {
        if self.streamout.active
            && (capture.is_none()
                || !self.barriers.is_empty()
                || self.draw_cache.pipeline != pipeline)
        {
            self.so_pause();
        }
        let Some(info) = capture else { return Ok(()) };
        for b in (0..MAX_SO_BUFFERS).filter(|b| info.buffers >> b & 1 == 1) {
            if self.streamout.targets.get(b).is_none_or(Option::is_none) {
                return Err(PipeError::invalid(format!(
                    "draw_vbo: the shader captures into stream output buffer {b}, which has no target bound"
                )));
            }
        }
        if u32::from(info.max_stream) >= self.streamout.max_streams {
            return Err(PipeError::unsupported(format!(
                "draw_vbo: vertex stream {} (the device has {})",
                info.max_stream, self.streamout.max_streams
            )));
        }
        if let Some(s) = info.stride.iter().find(|s| **s > self.streamout.max_stride) {
            return Err(PipeError::unsupported(format!(
                "draw_vbo: stream output stride of {s} bytes exceeds the device's {}",
                self.streamout.max_stride
            )));
        }
        if self.streamout.active {
            return Ok(());
        }
        for t in self.streamout.targets.clone().iter().flatten() {
            let so = vk_target(t)?;
            let counter = so.counter.clone();
            let start = so.state().start;
            if let Some(n) = start.filter(|n| *n != 0) {
                self.so_write_counter(&counter, n);
                so.state().start = None;
            }
            self.use_buffer(&counter, COUNTER_RW, true);
            let obj = vk_resource(&t.desc().buffer)?.obj();
            self.use_buffer(&obj, XFB_WRITE, true);
        }
        Ok(())
    }

    /// Step 4 of a capturing draw, with its pipeline bound: binds the
    /// targets and begins (resumes) transform feedback unless active.
    pub(crate) fn so_resume(&mut self, cmd: vk::CommandBuffer, info: &SoCapture) -> PipeResult<()> {
        if self.streamout.active {
            return Ok(());
        }
        let fp = self.streamout.fp()?.clone();
        let n = self
            .streamout
            .targets
            .iter()
            .rposition(Option::is_some)
            .map_or(0, |i| i + 1);
        let mut begin: SmallVec<[vk::Buffer; MAX_SO_BUFFERS]> = SmallVec::new();
        let mut end: SmallVec<[vk::Buffer; MAX_SO_BUFFERS]> = SmallVec::new();
        for (i, t) in self.streamout.targets[..n].iter().enumerate() {
            let Some(t) = t else {
                begin.push(vk::Buffer::null());
                end.push(vk::Buffer::null());
                continue;
            };
            let so = vk_target(t)?;
            let d = t.desc();
            let buf = vk_resource(&d.buffer)?.obj().buffer().unwrap_or_default();
            let (off, size) = (u64::from(d.buffer_offset), u64::from(d.buffer_size));
            // SAFETY: transform feedback is not active; the buffer (declared
            // and tracked in so_prepare_draw) covers offset + size, both
            // multiples of 4 (checked at target creation).
            unsafe {
                (fp.cmd_bind_transform_feedback_buffers_ext)(cmd, i as u32, 1, &buf, &off, &size)
            };
            let counter = so.counter.buffer().unwrap_or_default();
            let mut st = so.state();
            begin.push(if st.start.is_some() {
                vk::Buffer::null()
            } else {
                counter
            });
            end.push(counter);
            st.start = None;
            if info.stride[i] != 0 {
                st.stride = Some(info.stride[i]);
            }
        }
        let offsets = [0u64; MAX_SO_BUFFERS];
        // SAFETY: inside the rendering instance with a pipeline whose last
        // pre-raster stage has the Xfb mode bound; not active; `n` entries
        // in each array (null counters start at offset 0).
        unsafe {
            (fp.cmd_begin_transform_feedback_ext)(
                cmd,
                0,
                n as u32,
                begin.as_ptr(),
                offsets.as_ptr(),
            )
        };
        self.streamout.active = true;
        self.streamout.active_counters = end;
        Ok(())
    }

    /// Draw-auto, step 2: checks the target and declares the counter
    /// read. Returns the counter buffer and vertex stride, or `None` when
    /// the target holds no vertices.
    pub(crate) fn so_prepare_draw_auto(
        &mut self,
        target: &StreamOutputTarget,
        capture: bool,
    ) -> PipeResult<Option<(vk::Buffer, u32)>> {
        if !self.streamout.draw_auto {
            return Err(PipeError::unsupported(
                "draw-auto needs transformFeedbackDraw",
            ));
        }
        let Some((so, start, stride)) = self.so_check_draw_auto(target, capture)? else {
            return Ok(None);
        };
        let counter = so.counter.clone();
        match start {
            Some(0) => return Ok(None),
            Some(n) => {
                self.so_write_counter(&counter, n);
                so.state().start = None;
            }
            None => {}
        }
        self.use_buffer(&counter, COUNTER_INDIRECT, false);
        Ok(Some((counter.buffer().unwrap_or_default(), stride)))
    }

    /// Whether draw-auto reads its count on the GPU
    /// (`vkCmdDrawIndirectByteCountEXT`: `transformFeedbackDraw`, unless
    /// `PIPE_VK_DEBUG=no_xfb_draw`).
    pub(crate) fn so_draw_auto_on_gpu(&self) -> bool {
        self.streamout.draw_auto
    }

    /// Draw-auto on the CPU, for topologies that need index rewriting
    /// (`crate::prim`), which cannot take the count from the GPU, and on
    /// devices without `transformFeedbackDraw`: the target's vertex count,
    /// `offset / stride`, read back through
    /// [`Self::do_stream_output_target_offset`] (a wait when the GPU
    /// still writes the counter). Gallium's `util_draw_auto` does the same
    /// for drivers without draw-auto.
    pub(crate) fn so_draw_auto_vertex_count(
        &mut self,
        target: &StreamOutputTarget,
        capture: bool,
    ) -> PipeResult<u32> {
        match self.so_check_draw_auto(target, capture)? {
            Some((_, _, stride)) => Ok(self.do_stream_output_target_offset(target)? / stride),
            None => Ok(0),
        }
    }

    /// Draw-auto's checks: a target that was bound for capture, not bound
    /// for capture by the draw itself. Returns the target, its pending
    /// offset and its vertex stride; `None` for a target bound at offset
    /// 0 that has captured nothing yet (GL: transform feedback began and
    /// ended with no draw between), which holds no vertices.
    fn so_check_draw_auto<'t>(
        &self,
        target: &'t StreamOutputTarget,
        capture: bool,
    ) -> PipeResult<Option<(&'t VkSoTarget, Option<u32>, u32)>> {
        self.streamout.fp()?;
        let so = vk_target(target)?;
        if capture
            && self
                .streamout
                .targets
                .iter()
                .flatten()
                .any(|t| Arc::ptr_eq(t, target))
        {
            return Err(PipeError::invalid(format!(
                "draw_vbo: draw-auto from stream output target #{} while capturing into it",
                target.id()
            )));
        }
        let TargetState {
            start,
            stride,
            bound,
        } = *so.state();
        let Some(stride) = stride else {
            if bound && start == Some(0) {
                return Ok(None);
            }
            return Err(PipeError::invalid(format!(
                "draw_vbo: draw-auto from stream output target #{}, which never captured anything{}",
                target.id(),
                if bound {
                    " (its offset was set, but the vertex stride to divide it by is unknown)"
                } else {
                    ""
                }
            )));
        };
        Ok(Some((so, start, stride)))
    }

    /// Records `vkCmdDrawIndirectByteCountEXT`.
    ///
    /// # Safety
    /// Inside the rendering instance with the draw's pipeline and vertex
    /// buffers bound; `counter` was declared by `so_prepare_draw_auto`.
    pub(crate) unsafe fn so_draw_auto(
        &self,
        cmd: vk::CommandBuffer,
        instance_count: u32,
        first_instance: u32,
        counter: vk::Buffer,
        stride: u32,
    ) -> PipeResult<()> {
        let fp = self.streamout.fp()?;
        (fp.cmd_draw_indirect_byte_count_ext)(
            cmd,
            instance_count,
            first_instance,
            counter,
            0,
            0,
            stride,
        );
        Ok(())
    }
}
