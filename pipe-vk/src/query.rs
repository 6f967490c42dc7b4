//! Queries (`create_query` to `get_query_result_resource`,
//! `set_active_query_state`) and `render_condition` with a query.
//!
//! The design follows Zink's `zink_query.c`, simplified:
//! - A Gallium query is a list of *spans*: Vulkan queries (one slot of a
//!   `VkQueryPool` each) that together cover the time the query was
//!   active. Its result is the sum over its spans.
//! - Vulkan allows one active query per type (and per vertex stream) in a
//!   command buffer, and a query must begin and end in the same command
//!   buffer, and either inside one rendering instance or outside any. So
//!   the context runs at most one Vulkan query per [`Kind`], shared by
//!   every active Gallium query of that kind: when one of them begins or
//!   ends, the running span ends and a new one begins for those still
//!   active. A span begins inside the open rendering instance when there
//!   is one (as Zink begins queries inside its render pass), so that a
//!   query around a few draws does not split the instance; the end of the
//!   instance ends it. A flush ends every span (the queries are
//!   *suspended*); so do `set_active_query_state(false)` and the
//!   blitter's own draws, which queries must not count (Gallium's
//!   `util_blitter` pauses queries the same way). Suspended queries resume
//!   lazily, at the next draw (inside its rendering instance) or dispatch.
//!   `PIPE_VK_DEBUG=no_query_in_rendering` keeps every span outside
//!   rendering instances, for comparisons (pipe-bench draw scenario 15).
//! - `TIMESTAMP` and the two ends of `TIME_ELAPSED` are written with
//!   `vkCmdWriteTimestamp2` into slots of their own. `TIME_ELAPSED` is not
//!   paused (the spec's exception). `GPU_FINISHED` is the fence of the
//!   batch that ended it, and `TIMESTAMP_DISJOINT` needs no GPU work
//!   (Vulkan timestamps do not drift: 10^9 Hz, never disjoint).
//! - A query active across many flushes or rendering-instance splits
//!   would hold one span per split. Once it holds [`FOLD_SPANS`], the
//!   spans of batches that completed are read into its sums and dropped
//!   (no waiting), which frees their pool slots.
//! - Pools hold [`POOL_SLOTS`] slots of one kind. They are reset on the
//!   host (`hostQueryReset`, core in Vulkan 1.2) before their slots are
//!   handed out, and recycled once no query and no batch holds them.
//! - Results are read on the CPU once the timeline passes the batch that
//!   ended the query; a query whose end is not submitted yet is flushed
//!   first, also when the frontend only polls (as Zink does), so that it
//!   completes. `get_query_result_resource` and `render_condition` copy a
//!   single-span counter on the GPU (`vkCmdCopyQueryPoolResults`);
//!   anything that needs arithmetic (sums over spans, timestamp
//!   differences, overflow comparisons, 32-bit saturation) is computed on
//!   the CPU and written with a buffer upload, as Zink's `force_cpu_read`.
//!   `render_condition` always waits for the result: the no-wait modes
//!   allow that.
//!
//! What the counts include: `PRIMITIVES_GENERATED` is
//! VK_EXT_primitives_generated_query (it counts whether or not stream
//! output is active, as the spec asks). Without the extension (or
//! without its rasterizer-discard feature, or with
//! `PIPE_VK_DEBUG=no_primitives_generated_query`) it takes statistics
//! spans and reads, per span, the counter that equals the primitives the
//! draws generated ([`StatsMark::generated_from`]); a span covers draws
//! of one such counter. This is exact except after tessellation with no
//! geometry shader, where it is the clipper's invocations, which
//! rasterizer discard may stop; and for stream 0 only (other streams
//! need the extension). The primitives pipe-vk draws in
//! place of the frontend's (quads, polygons and line loops rewritten as
//! triangles and lines, generated geometry shaders of line stipple and
//! polygon-edge emulation) are what Vulkan counts: the statistics count
//! geometry-shader invocations for a generated geometry shader, and
//! input-assembly primitives as the rewritten topology.

use std::sync::{Arc, Mutex};

use ash::vk;
use hashbrown::HashMap;
use pipe_core::flags::MapFlags;
use pipe_core::object::Object;
use pipe_core::query::*;
use pipe_core::resource::{BindFlags, ResourceTemplate};
use pipe_core::{PipeError, PipeResult, Resource};
use smallvec::SmallVec;

use crate::batch::FenceCell;
use crate::context::VkContext;
use crate::instance::vk_err;
use crate::memory::DeviceShared;
use crate::resource::vk_resource;
use crate::sync::access;

/// Slots per query pool.
pub(crate) const POOL_SLOTS: u32 = 64;

/// Vulkan values per slot of the statistics group.
const STATISTICS: usize = PipelineStatistics::COUNT;

/// Values kept per span and per sum: the widest kind's (the statistics
/// group), and after them [`GENERATED_VALUE`].
const MAX_VALUES: usize = STATISTICS + 1;

/// Where a statistics span keeps the primitives its draws generated: the
/// counter its [`StatsMark::generated_from`] names (for
/// `PRIMITIVES_GENERATED` without VK_EXT_primitives_generated_query).
const GENERATED_VALUE: usize = STATISTICS;

/// What a statistics span's draws ran, which decides how its counters
/// are read. It is the bound pipeline's ([`VkContext::stats_mark`]); a
/// running statistics span whose mark differs ends before the draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StatsMark {
    /// A geometry shader pipe-vk generated (line stipple, polygon edges,
    /// aliased triangles): the application's statistics count none of
    /// its invocations or primitives, so the span's geometry counters
    /// are dropped.
    pub generated_gs: bool,
    /// The counter that equals the primitives the draws generated (what
    /// GL's `PRIMITIVES_GENERATED` counts, before clipping and
    /// rasterizer discard): the geometry shader's primitives after an
    /// application's geometry shader, its invocations (one per input
    /// primitive) after a generated one, the clipper's invocations after
    /// tessellation alone, else the input assembler's primitives.
    pub generated_from: PipelineStat,
    /// The clipper's invocations count the primitives and rasterizer
    /// discard is on: implementations may count none then, and lavapipe
    /// also loses the span's other draws, so such draws take spans of
    /// their own.
    pub clipper_discard: bool,
}

impl Default for StatsMark {
    fn default() -> Self {
        StatsMark {
            generated_gs: false,
            generated_from: PipelineStat::IaPrimitives,
            clipper_discard: false,
        }
    }
}

/// What a Vulkan query counts: its query type, and the vertex stream for
/// the indexed types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    Occlusion,
    Timestamp,
    Statistics,
    Generated(u32),
    /// Transform feedback: (primitives written, primitives needed).
    Xfb(u32),
}

impl Kind {
    /// 64-bit values per slot.
    fn values(self) -> usize {
        match self {
            Kind::Statistics => STATISTICS,
            Kind::Xfb(_) => 2,
            _ => 1,
        }
    }

    fn vk_type(self) -> vk::QueryType {
        match self {
            Kind::Occlusion => vk::QueryType::OCCLUSION,
            Kind::Timestamp => vk::QueryType::TIMESTAMP,
            Kind::Statistics => vk::QueryType::PIPELINE_STATISTICS,
            Kind::Generated(_) => vk::QueryType::PRIMITIVES_GENERATED_EXT,
            Kind::Xfb(_) => vk::QueryType::TRANSFORM_FEEDBACK_STREAM_EXT,
        }
    }

    /// The vertex stream of an indexed kind.
    fn stream(self) -> Option<u32> {
        match self {
            Kind::Generated(s) | Kind::Xfb(s) => Some(s),
            _ => None,
        }
    }
}

/// Every counter of the statistics group, in Gallium's (and Vulkan's bit)
/// order: `PIPE_STAT_QUERY_*` index `i` is bit `i`.
const ALL_STATISTICS: vk::QueryPipelineStatisticFlags = vk::QueryPipelineStatisticFlags::from_raw(
    vk::QueryPipelineStatisticFlags::INPUT_ASSEMBLY_VERTICES.as_raw()
        | vk::QueryPipelineStatisticFlags::INPUT_ASSEMBLY_PRIMITIVES.as_raw()
        | vk::QueryPipelineStatisticFlags::VERTEX_SHADER_INVOCATIONS.as_raw()
        | vk::QueryPipelineStatisticFlags::GEOMETRY_SHADER_INVOCATIONS.as_raw()
        | vk::QueryPipelineStatisticFlags::GEOMETRY_SHADER_PRIMITIVES.as_raw()
        | vk::QueryPipelineStatisticFlags::CLIPPING_INVOCATIONS.as_raw()
        | vk::QueryPipelineStatisticFlags::CLIPPING_PRIMITIVES.as_raw()
        | vk::QueryPipelineStatisticFlags::FRAGMENT_SHADER_INVOCATIONS.as_raw()
        | vk::QueryPipelineStatisticFlags::TESSELLATION_CONTROL_SHADER_PATCHES.as_raw()
        | vk::QueryPipelineStatisticFlags::TESSELLATION_EVALUATION_SHADER_INVOCATIONS.as_raw()
        | vk::QueryPipelineStatisticFlags::COMPUTE_SHADER_INVOCATIONS.as_raw(),
);

/// A `VkQueryPool` of one kind, destroyed with its last reference (a
/// query's span, a batch that used it, or the context's spare list).
pub(crate) struct QueryPool {
    dev: Arc<DeviceShared>,
    raw: vk::QueryPool,
    kind: Kind,
}

impl QueryPool {
    fn new(dev: &Arc<DeviceShared>, kind: Kind) -> PipeResult<Arc<Self>> {
        let mut info = vk::QueryPoolCreateInfo::default()
            .query_type(kind.vk_type())
            .query_count(POOL_SLOTS);
        if kind == Kind::Statistics {
            info = info.pipeline_statistics(ALL_STATISTICS);
        }
        // SAFETY: a valid create info; the query type's feature was checked
        // at create_query.
        let raw = unsafe { dev.raw().create_query_pool(&info, None) }
            .map_err(|e| vk_err("vkCreateQueryPool", e))?;
        let pool = Arc::new(QueryPool {
            dev: dev.clone(),
            raw,
            kind,
        });
        pool.host_reset();
        Ok(pool)
    }

    /// Makes every slot unavailable again. Only for pools no pending
    /// command uses (new, or recycled with no other reference).
    fn host_reset(&self) {
        // SAFETY: hostQueryReset is enabled (checked at create_query); no
        // submitted command uses the pool (see above).
        unsafe { self.dev.raw().reset_query_pool(self.raw, 0, POOL_SLOTS) };
    }
}

impl Drop for QueryPool {
    fn drop(&mut self) {
        // SAFETY: the last reference is gone, so no batch that used the
        // pool is still pending (batches hold a reference until retired).
        unsafe { self.dev.raw().destroy_query_pool(self.raw, None) };
    }
}

/// One Vulkan query: a slot of a pool.
#[derive(Clone)]
pub(crate) struct Span {
    pool: Arc<QueryPool>,
    slot: u32,
    /// Begun inside the open rendering instance (which must end it).
    inside: bool,
    /// What a statistics span's draws ran.
    mark: StatsMark,
    /// The batch it is recorded in (spans end with their batch).
    fence: FenceCell,
}

impl Span {
    /// The slot's values; only once the batch that ended it completed.
    fn read(&self) -> PipeResult<[u64; MAX_VALUES]> {
        fn get<const N: usize>(s: &Span) -> PipeResult<[u64; MAX_VALUES]> {
            let mut data = [[0u64; N]; 1];
            // SAFETY: the slot was written by a completed batch (the
            // caller checked the timeline); `data` holds one query's N
            // 64-bit values, the stride Vulkan is given.
            unsafe {
                s.pool.dev.raw().get_query_pool_results(
                    s.pool.raw,
                    s.slot,
                    &mut data,
                    vk::QueryResultFlags::TYPE_64,
                )
            }
            .map_err(|e| vk_err("vkGetQueryPoolResults", e))?;
            let mut out = [0u64; MAX_VALUES];
            out[..N].copy_from_slice(&data[0]);
            Ok(out)
        }
        match self.pool.kind.values() {
            STATISTICS => get::<STATISTICS>(self),
            2 => get::<2>(self),
            _ => get::<1>(self),
        }
    }

    /// What the span adds to its query: its values, less the
    /// geometry-shader counters of a generated geometry shader
    /// (`PIPE_STAT_QUERY_GS_INVOCATIONS` and `_GS_PRIMITIVES`); for
    /// statistics, the primitives generated in [`GENERATED_VALUE`].
    fn counted(&self) -> PipeResult<[u64; MAX_VALUES]> {
        let mut v = self.read()?;
        if self.pool.kind == Kind::Statistics {
            v[GENERATED_VALUE] = v[self.mark.generated_from as usize];
        }
        if self.mark.generated_gs {
            v[3] = 0;
            v[4] = 0;
        }
        Ok(v)
    }

    /// Whether the batch it was recorded in has completed.
    fn completed(&self, completed_value: u64) -> bool {
        let v = *self.fence.lock().unwrap_or_else(|p| p.into_inner());
        v.is_some_and(|v| v <= completed_value)
    }
}

/// Sums of span values per kind.
type Sums = SmallVec<[(Kind, [u64; MAX_VALUES]); 2]>;

fn accumulate(sums: &mut Sums, kind: Kind, v: [u64; MAX_VALUES]) {
    let i = match sums.iter().position(|(k, _)| *k == kind) {
        Some(i) => i,
        None => {
            sums.push((kind, [0; MAX_VALUES]));
            sums.len() - 1
        }
    };
    for (acc, x) in sums[i].1.iter_mut().zip(v) {
        *acc = acc.wrapping_add(x);
    }
}

/// A query holding this many spans folds those of completed batches into
/// its sums (`State::folded`), which frees their pool slots.
const FOLD_SPANS: usize = 16;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Phase {
    /// Created, never begun.
    #[default]
    New,
    Active,
    Ended,
}

#[derive(Default)]
struct State {
    phase: Phase,
    /// Counter spans (of every kind the query uses) not read yet.
    spans: Vec<Span>,
    /// Sums of the spans already read and released (`FOLD_SPANS`).
    folded: Sums,
    /// `TIME_ELAPSED`'s first timestamp.
    begin_ts: Option<Span>,
    /// `TIMESTAMP`, or `TIME_ELAPSED`'s second timestamp.
    end_ts: Option<Span>,
    /// Filled with the timeline value of the batch that ended the query.
    end_fence: Option<FenceCell>,
}

/// Reads the spans of batches that completed by `completed_value` into
/// the query's sums and drops them, so that a query active across many
/// flushes or rendering-instance splits holds a bounded number of pool
/// slots.
fn fold_completed(st: &mut State, completed_value: u64) -> PipeResult<()> {
    let mut i = 0;
    while i < st.spans.len() {
        if st.spans[i].completed(completed_value) {
            let s = st.spans.swap_remove(i);
            let v = s.counted()?;
            accumulate(&mut st.folded, s.pool.kind, v);
        } else {
            i += 1;
        }
    }
    Ok(())
}

/// The backend part of a [`Query`].
pub(crate) struct VkQuery {
    ctx: u64,
    /// The kinds of running query it takes spans of.
    kinds: SmallVec<[Kind; 4]>,
    state: Mutex<State>,
}

impl VkQuery {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn vk_query(q: &Query) -> PipeResult<&VkQuery> {
    q.backend_or_err::<VkQuery>("query")
}

/// The context's query state.
#[derive(Default)]
pub(crate) struct Queries {
    xfb: Option<ash::ext::transform_feedback::Device>,
    /// The pool slots are handed out from, per kind, and its next slot.
    current: HashMap<Kind, (Arc<QueryPool>, u32)>,
    /// Used-up pools, recycled once nothing else holds them.
    spare: Vec<Arc<QueryPool>>,
    /// The Vulkan query running per kind in the current command buffer.
    running: HashMap<Kind, Span>,
    /// Begun counter queries (not `TIME_ELAPSED` or the end-only kinds),
    /// weakly: a query the frontend drops without `destroy_query` stops
    /// counting instead of living on here.
    active: Vec<std::sync::Weak<Object<QueryDesc>>>,
    /// `set_active_query_state(false)`.
    paused: bool,
    /// Nesting of the blitter's own draws.
    internal: u32,
    /// Active queries have no running span (a flush, a pause or the
    /// blitter ended them); the next draw or dispatch begins them again.
    suspended: bool,
    /// The draw being recorded captures stream output
    /// ([`VkContext::queries_capture`]): stream-output spans run only
    /// then.
    capturing: bool,
    /// Active stream-output queries have no running span because draws
    /// since did not capture; the next capturing draw begins them.
    xfb_pending: bool,
    /// The buffer `render_condition` writes a query's predicate into.
    predicate: Option<Resource>,
    /// lavapipe workaround ([`DeviceShared::stats_need_compute`]): an
    /// empty compute pipeline, and the batch count when it was last bound.
    dummy_compute: Option<(Arc<DummyCompute>, u64)>,
}

/// An empty compute pipeline (see [`Queries::dummy_compute`]).
pub(crate) struct DummyCompute {
    dev: Arc<DeviceShared>,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
}

impl DummyCompute {
    fn new(dev: &Arc<DeviceShared>) -> PipeResult<Arc<Self>> {
        let words = spirv_gen::compile(
            "shader compute local_size=1,1,1\nfn main {\n}\n",
            &spirv_gen::passes::VariantKey::default(),
            crate::shader::target_for(dev),
        )
        .map_err(|e| PipeError::invalid(format!("the empty compute shader: {e}")))?;
        let raw = dev.raw();
        // SAFETY: spirv-gen's output is a valid SPIR-V module.
        let module = unsafe {
            raw.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&words), None)
        }
        .map_err(|e| vk_err("vkCreateShaderModule", e))?;
        // SAFETY: an empty layout.
        let layout = match unsafe {
            raw.create_pipeline_layout(&vk::PipelineLayoutCreateInfo::default(), None)
        } {
            Ok(l) => l,
            Err(e) => {
                // SAFETY: unused module.
                unsafe { raw.destroy_shader_module(module, None) };
                return Err(vk_err("vkCreatePipelineLayout", e));
            }
        };
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(c"main");
        let info = vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(layout);
        // SAFETY: valid module and layout of this device.
        let r = unsafe { raw.create_compute_pipelines(vk::PipelineCache::null(), &[info], None) };
        // SAFETY: the pipeline no longer needs the module.
        unsafe { raw.destroy_shader_module(module, None) };
        match r {
            Ok(p) => Ok(Arc::new(DummyCompute {
                dev: dev.clone(),
                layout,
                pipeline: p[0],
            })),
            Err((_, e)) => {
                // SAFETY: unused layout.
                unsafe { raw.destroy_pipeline_layout(layout, None) };
                Err(vk_err("vkCreateComputePipelines", e))
            }
        }
    }
}

impl Drop for DummyCompute {
    fn drop(&mut self) {
        // SAFETY: batches that bound it hold a reference until they
        // retire, so nothing pending uses it.
        unsafe {
            self.dev.raw().destroy_pipeline(self.pipeline, None);
            self.dev.raw().destroy_pipeline_layout(self.layout, None);
        }
    }
}

impl Queries {
    pub(crate) fn new(dev: &DeviceShared) -> Self {
        let f = &dev.device.features;
        Queries {
            xfb: (f.transform_feedback.transform_feedback == vk::TRUE)
                .then(|| ash::ext::transform_feedback::Device::new(&dev.instance.raw, dev.raw())),
            ..Default::default()
        }
    }
}

/// Saturates `v` to what a value of type `ty` holds, as llvmpipe's
/// `get_query_result_resource` does, and returns its bytes.
fn result_bytes(v: u64, ty: QueryValueType) -> SmallVec<[u8; 8]> {
    match ty {
        QueryValueType::I32 => SmallVec::from_slice(&(v.min(i32::MAX as u64) as i32).to_le_bytes()),
        QueryValueType::U32 => SmallVec::from_slice(&(v.min(u32::MAX as u64) as u32).to_le_bytes()),
        QueryValueType::I64 => SmallVec::from_slice(&(v.min(i64::MAX as u64) as i64).to_le_bytes()),
        QueryValueType::U64 => SmallVec::from_slice(&v.to_le_bytes()),
    }
}

/// Value `i` of a result, as `get_query_result_resource` writes it.
/// The `vkCmdCopyQueryPoolResults` flags for Gallium's `WAIT` and
/// `PARTIAL`. With `WAIT` the final value is wanted, so `PARTIAL` is left
/// out: the spec makes `WAIT | PARTIAL` wait as `WAIT` alone does, but the
/// NVIDIA driver (580.159, H200) wrote 0 for a `PRIMITIVES_GENERATED_EXT`
/// query copied with both bits while it wrote the final value with `WAIT`
/// alone (pipe.query_review.result_resource.flags). `PARTIAL` without
/// `WAIT` is passed on: any value from 0 to the final one is allowed then.
fn copy_wait_flags(flags: QueryFlags) -> vk::QueryResultFlags {
    if flags.contains(QueryFlags::WAIT) {
        vk::QueryResultFlags::WAIT
    } else if flags.contains(QueryFlags::PARTIAL) {
        vk::QueryResultFlags::PARTIAL
    } else {
        vk::QueryResultFlags::empty()
    }
}

fn result_value(r: &QueryResult, i: u32) -> u64 {
    match (*r, i) {
        (QueryResult::Bool(b), _) => u64::from(b),
        (QueryResult::U64(v), _) => v,
        (
            QueryResult::SoStatistics {
                num_primitives_written,
                ..
            },
            0,
        ) => num_primitives_written,
        (
            QueryResult::SoStatistics {
                primitives_storage_needed,
                ..
            },
            _,
        ) => primitives_storage_needed,
        (QueryResult::TimestampDisjoint { frequency, .. }, 0) => frequency,
        (QueryResult::TimestampDisjoint { disjoint, .. }, _) => u64::from(disjoint),
        (QueryResult::PipelineStatistics(s), i) => s.to_array()[i as usize % STATISTICS],
    }
}

impl VkContext {
    fn query_feature(&self, ty: QueryType, index: u32) -> PipeResult<SmallVec<[Kind; 4]>> {
        let dev = self.dev();
        let f = &dev.device.features;
        let t = |b: vk::Bool32| b == vk::TRUE;
        let unsupported = |what: &str| {
            Err(PipeError::unsupported(format!(
                "create_query: {ty:?} needs {what}, which the device lacks"
            )))
        };
        let caps = pipe_core::Screen::caps(&**self.screen());
        let stream = |index: u32| -> PipeResult<u32> {
            if index > caps.max_vertex_stream {
                return Err(PipeError::invalid(format!(
                    "create_query: stream {index} exceeds the last stream {}",
                    caps.max_vertex_stream
                )));
            }
            Ok(index)
        };
        if ty == QueryType::PipelineStatisticsSingle {
            if PipelineStat::from_index(index).is_none() {
                return Err(PipeError::invalid(format!(
                    "create_query: {index} is not a PIPE_STAT_QUERY counter"
                )));
            }
        } else if !ty.takes_stream_index() && index != 0 {
            return Err(PipeError::invalid(format!(
                "create_query: {ty:?} takes index 0, got {index}"
            )));
        }
        let needs_reset = !matches!(ty, QueryType::TimestampDisjoint | QueryType::GpuFinished);
        if needs_reset && !t(f.v12.host_query_reset) {
            return unsupported("hostQueryReset");
        }
        let mut kinds = SmallVec::new();
        match ty {
            QueryType::OcclusionCounter
            | QueryType::OcclusionPredicate
            | QueryType::OcclusionPredicateConservative => kinds.push(Kind::Occlusion),
            QueryType::Timestamp | QueryType::TimeElapsed => {
                if dev.physical.timestamp_valid_bits == 0 {
                    return unsupported("timestamps on its queue");
                }
            }
            QueryType::TimestampDisjoint | QueryType::GpuFinished => {}
            QueryType::PrimitivesGenerated => {
                let g = &f.primitives_generated_query;
                let s = stream(index)?;
                if !t(g.primitives_generated_query)
                    || !t(g.primitives_generated_query_with_rasterizer_discard)
                    || dev.debug.no_primitives_generated_query
                {
                    // Counted by the statistics group instead
                    // (`StatsMark::generated_from`), stream 0 only: its
                    // geometry counters do not tell streams apart.
                    if s != 0 {
                        return unsupported(
                            "VK_EXT_primitives_generated_query for streams other than 0",
                        );
                    }
                    if !t(f.core.pipeline_statistics_query) {
                        return unsupported(
                            "VK_EXT_primitives_generated_query or pipelineStatisticsQuery",
                        );
                    }
                    kinds.push(Kind::Statistics);
                    return Ok(kinds);
                }
                if s != 0
                    && !(t(g.primitives_generated_query_with_non_zero_streams)
                        && self.queries.xfb.is_some())
                {
                    return unsupported("primitivesGeneratedQueryWithNonZeroStreams");
                }
                kinds.push(Kind::Generated(s));
            }
            QueryType::PrimitivesEmitted
            | QueryType::SoStatistics
            | QueryType::SoOverflowPredicate
            | QueryType::SoOverflowAnyPredicate => {
                if !t(f.transform_feedback.transform_feedback) {
                    return unsupported("transform feedback");
                }
                // The feature is reported in the properties; pipe-vk's
                // caps only claim stream output with the queries.
                if ty == QueryType::SoOverflowAnyPredicate {
                    kinds.extend((0..=caps.max_vertex_stream).map(Kind::Xfb));
                } else {
                    kinds.push(Kind::Xfb(stream(index)?));
                }
            }
            QueryType::PipelineStatistics | QueryType::PipelineStatisticsSingle => {
                if !t(f.core.pipeline_statistics_query) {
                    return unsupported("pipelineStatisticsQuery");
                }
                kinds.push(Kind::Statistics);
            }
        }
        Ok(kinds)
    }

    pub(crate) fn do_create_query(&mut self, ty: QueryType, index: u32) -> PipeResult<Query> {
        let kinds = self.query_feature(ty, index)?;
        Ok(Object::new(
            QueryDesc {
                query_type: ty,
                index,
            },
            VkQuery {
                ctx: pipe_core::Context::id(self),
                kinds,
                state: Mutex::new(State::default()),
            },
        ))
    }

    fn own_query<'q>(&self, q: &'q Query, what: &str) -> PipeResult<&'q VkQuery> {
        let vq = vk_query(q)?;
        if vq.ctx != pipe_core::Context::id(self) {
            return Err(PipeError::invalid(format!(
                "{what}: query #{} belongs to another context",
                q.id()
            )));
        }
        Ok(vq)
    }

    pub(crate) fn do_destroy_query(&mut self, q: Query) -> PipeResult<()> {
        let vq = self.own_query(&q, "destroy_query")?;
        if let Some(i) = self.active_position(&q) {
            self.queries.active.remove(i);
            for k in vq.kinds.clone() {
                self.restart_span(k)?;
            }
        }
        // Spans in pending batches keep their pools alive.
        Ok(())
    }

    /// A slot of `kind` from a reset pool.
    fn alloc_slot(&mut self, kind: Kind) -> PipeResult<Span> {
        if let Some((pool, next)) = self.queries.current.get_mut(&kind) {
            if *next < POOL_SLOTS {
                let span = Span {
                    pool: pool.clone(),
                    slot: *next,
                    inside: false,
                    mark: StatsMark::default(),
                    fence: self.batches.batch_fence(),
                };
                *next += 1;
                return Ok(span);
            }
        }
        if let Some((old, _)) = self.queries.current.remove(&kind) {
            self.queries.spare.push(old);
        }
        let spare = &mut self.queries.spare;
        let pool = match spare
            .iter()
            .position(|p| p.kind == kind && Arc::strong_count(p) == 1)
        {
            Some(i) => {
                let p = spare.swap_remove(i);
                p.host_reset();
                p
            }
            None => QueryPool::new(self.dev(), kind)?,
        };
        self.queries.current.insert(kind, (pool.clone(), 1));
        Ok(Span {
            pool,
            slot: 0,
            inside: false,
            mark: StatsMark::default(),
            fence: self.batches.batch_fence(),
        })
    }

    /// Begins a Vulkan query of `kind` (outside any rendering instance).
    fn begin_span(&mut self, kind: Kind) -> PipeResult<Span> {
        let mut span = self.alloc_slot(kind)?;
        span.inside = self.rendering && !self.dev().debug.no_query_in_rendering;
        span.mark = self.stats_mark;
        // Query commands need no barrier: inside an instance the pending
        // ones wait for the next command that ends it.
        let cmd = if span.inside {
            self.batches.cmd()
        } else {
            self.cmd()
        };
        if kind == Kind::Statistics && self.dev().stats_need_compute() {
            self.bind_dummy_compute(cmd)?;
        }
        let (raw, flags) = (span.pool.raw, self.occlusion_flags(kind));
        match (kind.stream(), &self.queries.xfb) {
            (Some(s), Some(xfb)) if s != 0 || matches!(kind, Kind::Xfb(_)) => {
                // SAFETY: no query of this kind and stream is active in the
                // command buffer (one running span per kind); the slot was
                // reset and not used since; no rendering instance is open.
                unsafe { (xfb.fp().cmd_begin_query_indexed_ext)(cmd, raw, span.slot, flags, s) }
            }
            // SAFETY: as above.
            _ => unsafe { self.dev().raw().cmd_begin_query(cmd, raw, span.slot, flags) },
        }
        self.batches.keep(span.pool.clone());
        Ok(span)
    }

    /// The active queries the frontend still holds (dropped ones are
    /// forgotten).
    fn active_queries(&mut self) -> SmallVec<[Query; 8]> {
        self.queries.active.retain(|w| w.strong_count() > 0);
        self.queries
            .active
            .iter()
            .filter_map(std::sync::Weak::upgrade)
            .collect()
    }

    fn active_position(&self, q: &Query) -> Option<usize> {
        self.queries
            .active
            .iter()
            .position(|a| std::ptr::eq(a.as_ptr(), Arc::as_ptr(q)))
    }

    /// Binds the empty compute pipeline once per command buffer.
    fn bind_dummy_compute(&mut self, cmd: vk::CommandBuffer) -> PipeResult<()> {
        let batch = self.batches.submitted;
        let d = match &self.queries.dummy_compute {
            Some((_, b)) if *b == batch => return Ok(()),
            Some((d, _)) => d.clone(),
            None => DummyCompute::new(self.dev())?,
        };
        // No pipeline may be bound while transform feedback is active
        // (VUID-vkCmdBindPipeline-None-02323): a statistics query begun
        // after a capturing draw pauses the capture (the next capturing
        // draw resumes it).
        self.so_pause();
        // SAFETY: binding a compute pipeline is valid inside and outside
        // rendering instances; the pipeline lives as long as the batch
        // (kept below).
        unsafe {
            self.dev()
                .raw()
                .cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, d.pipeline)
        };
        self.batches.keep(d.clone());
        self.queries.dummy_compute = Some((d, batch));
        Ok(())
    }

    fn occlusion_flags(&self, kind: Kind) -> vk::QueryControlFlags {
        let precise = self.dev().device.features.core.occlusion_query_precise == vk::TRUE;
        if kind == Kind::Occlusion && precise {
            vk::QueryControlFlags::PRECISE
        } else {
            vk::QueryControlFlags::empty()
        }
    }

    fn end_span(&mut self, kind: Kind, span: &Span) {
        // A span begun inside an instance ends in it (end_rendering ends
        // those first); one begun outside ends outside.
        let cmd = if span.inside {
            self.batches.cmd()
        } else {
            self.cmd()
        };
        match (kind.stream(), &self.queries.xfb) {
            (Some(s), Some(xfb)) if s != 0 || matches!(kind, Kind::Xfb(_)) => {
                // SAFETY: the span was begun in this command buffer, outside
                // rendering instances, with the same index (begin_span).
                unsafe { (xfb.fp().cmd_end_query_indexed_ext)(cmd, span.pool.raw, span.slot, s) }
            }
            // SAFETY: as above.
            _ => unsafe {
                self.dev()
                    .raw()
                    .cmd_end_query(cmd, span.pool.raw, span.slot)
            },
        }
    }

    /// Whether queries count now (not paused, not inside the blitter).
    fn queries_counting(&self) -> bool {
        !self.queries.paused && self.queries.internal == 0
    }

    /// Ends the running span of `kind` and, while queries count, begins
    /// one for the active queries of that kind.
    fn restart_span(&mut self, kind: Kind) -> PipeResult<()> {
        if let Some(span) = self.queries.running.remove(&kind) {
            self.end_span(kind, &span);
        }
        if self.queries.suspended || !self.queries_counting() {
            return Ok(());
        }
        let users: SmallVec<[Query; 4]> = self
            .active_queries()
            .into_iter()
            .filter(|q| vk_query(q).is_ok_and(|v| v.kinds.contains(&kind)))
            .collect();
        if users.is_empty() {
            return Ok(());
        }
        if matches!(kind, Kind::Xfb(_)) && !self.queries.capturing {
            self.queries.xfb_pending = true;
            return Ok(());
        }
        let span = self.begin_span(kind)?;
        let completed = self.dev().completed_value();
        for q in &users {
            let mut st = vk_query(q)?.state();
            st.spans.push(span.clone());
            if st.spans.len() >= FOLD_SPANS {
                fold_completed(&mut st, completed)?;
            }
        }
        self.queries.running.insert(kind, span);
        Ok(())
    }

    /// Ends every running span (before a flush, a pause, or the blitter's
    /// draws); [`Self::resume_queries`] begins them again.
    pub(crate) fn suspend_queries(&mut self) {
        let mut running: SmallVec<[(Kind, Span); 4]> = self.queries.running.drain().collect();
        // Spans begun inside the open instance end before anything here
        // ends the instance.
        running.sort_by_key(|(_, s)| !s.inside);
        for (kind, span) in &running {
            self.end_span(*kind, span);
        }
        self.queries.suspended = !self.active_queries().is_empty();
    }

    /// Called by `end_rendering` before the instance ends: ends the spans
    /// begun inside it (the next draw begins them again).
    pub(crate) fn end_rendering_queries(&mut self) {
        if self.queries.running.values().all(|s| !s.inside) {
            return;
        }
        let inside: SmallVec<[Kind; 4]> = self
            .queries
            .running
            .iter()
            .filter(|(_, s)| s.inside)
            .map(|(k, _)| *k)
            .collect();
        for k in inside {
            if let Some(span) = self.queries.running.remove(&k) {
                self.end_span(k, &span);
            }
        }
        self.queries.suspended = true;
    }

    /// Called by a draw before it opens or joins a rendering instance.
    /// The draw resumes suspended queries inside the instance
    /// ([`Self::resume_queries`]), which restarts every running span of
    /// their kinds; a span begun outside any instance (by a query begun or
    /// resumed with none open) cannot end inside one, and ending it there
    /// would end the instance under the draw. So end every running span
    /// now (and the open instance with them); the draw resumes them all
    /// inside its instance.
    /// With `no_query_in_rendering`, the spans begin here, outside (this
    /// ends the open instance before stream output decides on its
    /// counter barrier).
    ///
    /// The running statistics span must also carry the draw pipeline's
    /// [`StatsMark`] (`VkContext::stats_mark`); when it does not match,
    /// the spans end here and the draw begins them again with the right
    /// mark.
    pub(crate) fn prepare_resume_queries(&mut self) -> PipeResult<()> {
        if self
            .queries
            .running
            .get(&Kind::Statistics)
            .is_some_and(|s| s.mark != self.stats_mark)
        {
            self.suspend_queries();
        }
        if self.dev().debug.no_query_in_rendering {
            return self.resume_queries();
        }
        if self.queries.suspended
            && self.queries_counting()
            && self.queries.running.values().any(|s| !s.inside)
        {
            self.suspend_queries();
        }
        Ok(())
    }

    /// Called by a draw before [`Self::prepare_resume_queries`]: whether
    /// it captures stream output. Stream-output queries count only while
    /// capture is active (Vulkan's rule for transform feedback queries,
    /// and GL's), but lavapipe (Mesa 25.0) counts primitives needed
    /// outside it while a `VK_EXT_primitives_generated_query` query runs
    /// (both read the draw module's stream-output counters), which made
    /// `SO_STATISTICS` and the overflow predicates count draws that
    /// captured nothing (`pipe.query.streamout_inactive`). So their spans
    /// cover capturing draws only: a draw that does not capture ends
    /// them, the next one that does begins them again (in
    /// [`Self::resume_queries`]).
    pub(crate) fn queries_capture(&mut self, capturing: bool) {
        self.queries.capturing = capturing;
        if capturing {
            return;
        }
        let xfb: SmallVec<[Kind; 4]> = self
            .queries
            .running
            .keys()
            .filter(|k| matches!(k, Kind::Xfb(_)))
            .copied()
            .collect();
        for k in xfb {
            if let Some(span) = self.queries.running.remove(&k) {
                self.end_span(k, &span);
                self.queries.xfb_pending = true;
            }
        }
    }

    /// Called before draws and dispatches: begins the spans of suspended
    /// queries (and of stream-output queries when the draw captures).
    /// Costs two tests when nothing is suspended.
    #[inline]
    pub(crate) fn resume_queries(&mut self) -> PipeResult<()> {
        if !self.queries_counting() {
            return Ok(());
        }
        if !self.queries.suspended {
            if self.queries.xfb_pending && self.queries.capturing {
                return self.resume_xfb_queries();
            }
            return Ok(());
        }
        self.queries.suspended = false;
        self.queries.xfb_pending = false;
        for k in self.idle_kinds(false)? {
            self.restart_span(k)?;
        }
        Ok(())
    }

    /// Begins the spans of the active stream-output queries (see
    /// [`Self::queries_capture`]).
    fn resume_xfb_queries(&mut self) -> PipeResult<()> {
        self.queries.xfb_pending = false;
        for k in self.idle_kinds(true)? {
            self.restart_span(k)?;
        }
        Ok(())
    }

    /// The kinds of the active queries with no running span (with
    /// `xfb_only`, the stream-output ones). Kinds with a running span
    /// keep it: it counts for every active query of its kind, and one
    /// begun outside the instance cannot end inside it
    /// (`prepare_resume_queries` ends those where it can; one can be
    /// left when the instance ended after it, for a barrier, or a
    /// stream-output span began between draws).
    fn idle_kinds(&mut self, xfb_only: bool) -> PipeResult<SmallVec<[Kind; 4]>> {
        let mut kinds: SmallVec<[Kind; 4]> = SmallVec::new();
        for q in &self.active_queries() {
            for k in &vk_query(q)?.kinds {
                if (!xfb_only || matches!(k, Kind::Xfb(_)))
                    && !kinds.contains(k)
                    && !self.queries.running.contains_key(k)
                {
                    kinds.push(*k);
                }
            }
        }
        Ok(kinds)
    }

    /// The blitter's draws begin: queries stop counting.
    pub(crate) fn queries_enter_internal(&mut self) {
        if self.queries.internal == 0 && !self.queries.running.is_empty() {
            self.suspend_queries();
        }
        self.queries.internal += 1;
    }

    /// The blitter's draws ended.
    pub(crate) fn queries_leave_internal(&mut self) {
        self.queries.internal = self.queries.internal.saturating_sub(1);
    }

    pub(crate) fn do_set_active_query_state(&mut self, enable: bool) {
        self.queries.paused = !enable;
        if !enable {
            self.suspend_queries();
        }
    }

    fn write_timestamp(&mut self) -> PipeResult<Span> {
        let span = self.alloc_slot(Kind::Timestamp)?;
        // Timestamps may be written inside a rendering instance; pending
        // barriers do not matter to them.
        let cmd = self.batches.cmd();
        // SAFETY: the slot was reset and not used since; the pool lives as
        // long as the batch (kept below).
        unsafe {
            self.dev().raw().cmd_write_timestamp2(
                cmd,
                vk::PipelineStageFlags2::ALL_COMMANDS,
                span.pool.raw,
                span.slot,
            )
        };
        self.batches.keep(span.pool.clone());
        Ok(span)
    }

    pub(crate) fn do_begin_query(&mut self, q: &Query) -> PipeResult<()> {
        let vq = self.own_query(q, "begin_query")?;
        let ty = q.desc().query_type;
        if ty.is_end_only() {
            return Err(PipeError::invalid(format!(
                "begin_query: {ty:?} queries are only ended"
            )));
        }
        if vq.state().phase == Phase::Active {
            return Err(PipeError::invalid(format!(
                "begin_query: query #{} is already active",
                q.id()
            )));
        }
        let begin_ts = match ty {
            QueryType::TimeElapsed => Some(self.write_timestamp()?),
            _ => None,
        };
        *vq.state() = State {
            phase: Phase::Active,
            begin_ts,
            ..State::default()
        };
        if vq.kinds.is_empty() {
            return Ok(());
        }
        self.queries.active.push(Arc::downgrade(q));
        if self.queries.suspended || !self.queries_counting() {
            // Begun at the next draw or dispatch that counts.
            self.queries.suspended = true;
            return Ok(());
        }
        for k in vq.kinds.clone() {
            self.restart_span(k)?;
        }
        Ok(())
    }

    pub(crate) fn do_end_query(&mut self, q: &Query) -> PipeResult<()> {
        let vq = self.own_query(q, "end_query")?;
        let ty = q.desc().query_type;
        if !ty.is_end_only() && vq.state().phase != Phase::Active {
            return Err(PipeError::invalid(format!(
                "end_query: query #{} ({ty:?}) was not begun",
                q.id()
            )));
        }
        let end_ts = match ty {
            QueryType::Timestamp | QueryType::TimeElapsed => Some(self.write_timestamp()?),
            _ => None,
        };
        if let Some(i) = self.active_position(q) {
            self.queries.active.remove(i);
            for k in vq.kinds.clone() {
                self.restart_span(k)?;
            }
            if self.active_queries().is_empty() {
                self.queries.suspended = false;
            }
        }
        // TIMESTAMP_DISJOINT has nothing on the GPU to wait for.
        let fence = (ty != QueryType::TimestampDisjoint).then(|| self.batches.deferred_fence());
        let mut st = vq.state();
        if ty.is_end_only() {
            st.spans.clear();
            st.begin_ts = None;
        }
        st.phase = Phase::Ended;
        st.end_ts = end_ts;
        st.end_fence = fence;
        Ok(())
    }

    /// Whether the ended query's results are ready, flushing its end when
    /// it is not submitted yet, and waiting with `wait`.
    fn query_ready(&mut self, vq: &VkQuery, wait: bool) -> PipeResult<bool> {
        let cell = {
            let st = vq.state();
            if st.phase != Phase::Ended {
                return Err(PipeError::invalid(
                    "get_query_result: the query has not ended since it was last begun",
                ));
            }
            st.end_fence.clone()
        };
        let Some(cell) = cell else { return Ok(true) };
        let submitted = *cell.lock().unwrap_or_else(|p| p.into_inner());
        let value = match submitted {
            Some(v) => v,
            None => self.flush_internal()?,
        };
        if wait {
            self.dev().wait_value(value, u64::MAX)?;
            self.retire();
        }
        Ok(self.dev().completed_value() >= value)
    }

    /// The result of a ready query.
    fn query_result(&self, q: &Query, vq: &VkQuery) -> PipeResult<QueryResult> {
        let ty = q.desc().query_type;
        let st = vq.state();
        let period = f64::from(self.dev().physical.properties.limits.timestamp_period);
        let ns = |ticks: u64| (ticks as f64 * period) as u64;
        let ts = |s: &Option<Span>| -> PipeResult<u64> {
            s.as_ref().map_or(Ok(0), |s| s.read().map(|v| v[0]))
        };
        // Sums per kind.
        let mut sums = st.folded.clone();
        for s in &st.spans {
            accumulate(&mut sums, s.pool.kind, s.counted()?);
        }
        let sum = |k: Kind| {
            sums.iter()
                .find(|(sk, _)| *sk == k)
                .map_or([0; MAX_VALUES], |(_, v)| *v)
        };
        let first = |k: Kind| sum(k)[0];
        let overflow = |k: Kind| {
            let v = sum(k);
            v[1] > v[0]
        };
        let stream = q.desc().index;
        Ok(match ty {
            QueryType::OcclusionCounter => QueryResult::U64(first(Kind::Occlusion)),
            QueryType::OcclusionPredicate | QueryType::OcclusionPredicateConservative => {
                QueryResult::Bool(first(Kind::Occlusion) != 0)
            }
            QueryType::Timestamp => QueryResult::U64(ns(ts(&st.end_ts)?)),
            QueryType::TimeElapsed => {
                QueryResult::U64(ns(ts(&st.end_ts)?.saturating_sub(ts(&st.begin_ts)?)))
            }
            QueryType::TimestampDisjoint => QueryResult::TimestampDisjoint {
                frequency: 1_000_000_000,
                disjoint: false,
            },
            QueryType::GpuFinished => QueryResult::Bool(true),
            QueryType::PrimitivesGenerated => QueryResult::U64(match vq.kinds[..] {
                [Kind::Statistics] => sum(Kind::Statistics)[GENERATED_VALUE],
                _ => first(Kind::Generated(stream)),
            }),
            QueryType::PrimitivesEmitted => QueryResult::U64(first(Kind::Xfb(stream))),
            QueryType::SoStatistics => {
                let v = sum(Kind::Xfb(stream));
                QueryResult::SoStatistics {
                    num_primitives_written: v[0],
                    primitives_storage_needed: v[1],
                }
            }
            QueryType::SoOverflowPredicate => QueryResult::Bool(overflow(Kind::Xfb(stream))),
            QueryType::SoOverflowAnyPredicate => {
                QueryResult::Bool(vq.kinds.iter().any(|k| overflow(*k)))
            }
            QueryType::PipelineStatistics => {
                let mut v = [0; STATISTICS];
                v.copy_from_slice(&sum(Kind::Statistics)[..STATISTICS]);
                QueryResult::PipelineStatistics(PipelineStatistics::from_array(v))
            }
            QueryType::PipelineStatisticsSingle => {
                QueryResult::U64(sum(Kind::Statistics)[stream as usize % STATISTICS])
            }
        })
    }

    pub(crate) fn do_get_query_result(
        &mut self,
        q: &Query,
        wait: bool,
    ) -> PipeResult<Option<QueryResult>> {
        let vq = self.own_query(q, "get_query_result")?;
        if !self.query_ready(vq, wait)? {
            return Ok(None);
        }
        self.query_result(q, vq).map(Some)
    }

    /// The single span a GPU copy can read the result from: a counter
    /// whose value Vulkan reports as it is.
    fn single_counter_span(q: &Query, vq: &VkQuery) -> Option<Span> {
        let st = vq.state();
        let direct = matches!(
            (q.desc().query_type, &vq.kinds[..]),
            (QueryType::OcclusionCounter, _)
                | (QueryType::PrimitivesGenerated, [Kind::Generated(_)])
        );
        (direct && st.phase == Phase::Ended && st.spans.len() == 1 && st.folded.is_empty())
            .then(|| st.spans[0].clone())
    }

    /// Copies the span's result into buffer `obj` at `offset` on the GPU
    /// (`flags` pick 32 or 64 bits, waiting, partial results).
    fn copy_span_result(
        &mut self,
        span: &Span,
        obj: &Arc<crate::resource::ResourceObject>,
        offset: u64,
        flags: vk::QueryResultFlags,
    ) {
        let Some(buffer) = obj.buffer() else { return };
        let stride = if flags.contains(vk::QueryResultFlags::TYPE_64) {
            8
        } else {
            4
        };
        self.use_buffer(obj, access::TRANSFER_WRITE, true);
        let cmd = self.cmd();
        // SAFETY: the span's query ended earlier in this context's queue
        // order; the callers checked the range (aligned to the value size)
        // is inside the buffer, which the batch tracks; `cmd()` ended any
        // rendering instance.
        unsafe {
            self.dev().raw().cmd_copy_query_pool_results(
                cmd,
                span.pool.raw,
                span.slot,
                1,
                buffer,
                offset,
                stride,
                flags,
            )
        };
        self.batches.keep(span.pool.clone());
    }

    pub(crate) fn do_get_query_result_resource(
        &mut self,
        q: &Query,
        flags: QueryFlags,
        ty: QueryValueType,
        index: QueryResultIndex,
        resource: &Resource,
        offset: u32,
    ) -> PipeResult<()> {
        let what = "get_query_result_resource";
        let vq = self.own_query(q, what)?;
        let obj = vk_resource(resource)?.obj();
        if obj.buffer().is_none() {
            return Err(PipeError::invalid(format!(
                "{what}: the target is not a buffer"
            )));
        }
        let size = ty.size();
        if !offset.is_multiple_of(4)
            || u64::from(offset) + u64::from(size) > u64::from(resource.desc().width0)
        {
            return Err(PipeError::invalid(format!(
                "{what}: {size} bytes at offset {offset} are not a 4-byte aligned range of the \
                 {}-byte buffer",
                resource.desc().width0
            )));
        }
        if let QueryResultIndex::Value(i) = index {
            let n = match q.desc().query_type {
                QueryType::SoStatistics | QueryType::TimestampDisjoint => 2,
                QueryType::PipelineStatistics => STATISTICS as u32,
                _ => 1,
            };
            if i >= n {
                return Err(PipeError::invalid(format!(
                    "{what}: value {i} of a {n}-value query"
                )));
            }
        }
        if vq.state().phase != Phase::Ended {
            return Err(PipeError::invalid(format!(
                "{what}: query #{} has not ended since it was last begun",
                q.id()
            )));
        }
        // Vulkan copies 64-bit results only to 8-byte aligned offsets
        // (VUID-vkCmdCopyQueryPoolResults-flags-00823); Gallium's are
        // 4-byte aligned: the others take the CPU path.
        let gpu = matches!(index, QueryResultIndex::Value(0))
            && matches!(ty, QueryValueType::U64 | QueryValueType::I64)
            && offset.is_multiple_of(8);
        if let (true, Some(span)) = (gpu, Self::single_counter_span(q, vq)) {
            let f = vk::QueryResultFlags::TYPE_64 | copy_wait_flags(flags);
            self.copy_span_result(&span, &obj, u64::from(offset), f);
            return Ok(());
        }
        let ready = self.query_ready(vq, flags.contains(QueryFlags::WAIT))?;
        let value = match index {
            QueryResultIndex::Availability => u64::from(ready),
            // Not ready and not asked to wait: nothing is written (GL's
            // QUERY_RESULT_NO_WAIT).
            QueryResultIndex::Value(_) if !ready => return Ok(()),
            QueryResultIndex::Value(i) => result_value(&self.query_result(q, vq)?, i),
        };
        self.do_buffer_subdata(
            resource,
            MapFlags::empty(),
            offset,
            &result_bytes(value, ty),
        )
    }

    pub(crate) fn do_render_condition_query(
        &mut self,
        q: &Query,
        condition: bool,
        _mode: RenderCondMode,
    ) -> PipeResult<()> {
        let what = "render_condition";
        let vq = self.own_query(q, what)?;
        if !q.desc().query_type.is_predicate_source() {
            return Err(PipeError::invalid(format!(
                "{what}: {:?} cannot predicate rendering",
                q.desc().query_type
            )));
        }
        if vq.state().phase != Phase::Ended {
            return Err(PipeError::invalid(format!(
                "{what}: query #{} has not ended since it was last begun",
                q.id()
            )));
        }
        if self.render_cond.ext.is_none() {
            return Err(PipeError::unsupported(format!(
                "{what}: the device has no conditionalRendering"
            )));
        }
        let pred = match &self.queries.predicate {
            Some(p) => p.clone(),
            None => {
                let t = ResourceTemplate::buffer(16, BindFlags::empty());
                let p = crate::resource::resource_create(self.dev(), &t)?;
                self.queries.predicate = Some(p.clone());
                p
            }
        };
        // The scope reading the old predicate ends before it is rewritten.
        self.do_render_condition_mem(None, 0, false)?;
        let occlusion = vk_query(q)?.kinds.as_slice() == [Kind::Occlusion];
        let span = {
            let st = vq.state();
            (occlusion && st.spans.len() == 1 && st.folded.is_empty()).then(|| st.spans[0].clone())
        };
        if let Some(span) = span {
            // 32 bits: a count of 2^32 samples or more may wrap (Vulkan
            // allows wrap or saturate).
            let obj = vk_resource(&pred)?.obj();
            self.copy_span_result(&span, &obj, 0, vk::QueryResultFlags::WAIT);
        } else {
            self.query_ready(vq, true)?;
            let v = result_value(&self.query_result(q, vq)?, 0) != 0;
            self.do_buffer_subdata(&pred, MapFlags::empty(), 0, &u32::from(v).to_le_bytes())?;
        }
        self.do_render_condition_mem(Some(&pred), 0, condition)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wait_drops_partial() {
        let (w, p) = (QueryFlags::WAIT, QueryFlags::PARTIAL);
        assert_eq!(copy_wait_flags(w), vk::QueryResultFlags::WAIT);
        assert_eq!(copy_wait_flags(w | p), vk::QueryResultFlags::WAIT);
        assert_eq!(copy_wait_flags(p), vk::QueryResultFlags::PARTIAL);
        assert_eq!(
            copy_wait_flags(QueryFlags::empty()),
            vk::QueryResultFlags::empty()
        );
    }
}
