//! Queries and conditional rendering (`PIPE_QUERY_*`, `PIPE_RENDER_COND_*`).

use std::sync::Arc;

use crate::object::Object;

/// `PIPE_QUERY_*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QueryType {
    OcclusionCounter,
    OcclusionPredicate,
    OcclusionPredicateConservative,
    Timestamp,
    TimestampDisjoint,
    TimeElapsed,
    PrimitivesGenerated,
    PrimitivesEmitted,
    SoStatistics,
    SoOverflowPredicate,
    SoOverflowAnyPredicate,
    GpuFinished,
    PipelineStatistics,
    /// One counter of the statistics group; the index is a [`PipelineStat`].
    PipelineStatisticsSingle,
}

impl QueryType {
    /// Every query type of the spec.
    pub const ALL: [QueryType; 14] = [
        QueryType::OcclusionCounter,
        QueryType::OcclusionPredicate,
        QueryType::OcclusionPredicateConservative,
        QueryType::Timestamp,
        QueryType::TimestampDisjoint,
        QueryType::TimeElapsed,
        QueryType::PrimitivesGenerated,
        QueryType::PrimitivesEmitted,
        QueryType::SoStatistics,
        QueryType::SoOverflowPredicate,
        QueryType::SoOverflowAnyPredicate,
        QueryType::GpuFinished,
        QueryType::PipelineStatistics,
        QueryType::PipelineStatisticsSingle,
    ];

    /// Whether the query has no `begin_query` (it is only ended).
    pub fn is_end_only(self) -> bool {
        matches!(self, QueryType::Timestamp | QueryType::GpuFinished)
    }

    /// Whether `render_condition` may use the query.
    pub fn is_predicate_source(self) -> bool {
        matches!(
            self,
            QueryType::OcclusionCounter
                | QueryType::OcclusionPredicate
                | QueryType::OcclusionPredicateConservative
                | QueryType::SoOverflowPredicate
                | QueryType::SoOverflowAnyPredicate
        )
    }

    /// Whether the `index` argument of `create_query` is a vertex stream.
    pub fn takes_stream_index(self) -> bool {
        matches!(
            self,
            QueryType::PrimitivesGenerated
                | QueryType::PrimitivesEmitted
                | QueryType::SoStatistics
                | QueryType::SoOverflowPredicate
        )
    }
}

/// `PIPE_STAT_QUERY_*`: counters of the pipeline statistics group, in
/// result order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PipelineStat {
    IaVertices,
    IaPrimitives,
    VsInvocations,
    GsInvocations,
    GsPrimitives,
    CInvocations,
    CPrimitives,
    PsInvocations,
    HsInvocations,
    DsInvocations,
    CsInvocations,
}

impl PipelineStat {
    /// Counter from its index (the `index` of `create_query`).
    pub fn from_index(i: u32) -> Option<Self> {
        use PipelineStat::*;
        [
            IaVertices,
            IaPrimitives,
            VsInvocations,
            GsInvocations,
            GsPrimitives,
            CInvocations,
            CPrimitives,
            PsInvocations,
            HsInvocations,
            DsInvocations,
            CsInvocations,
        ]
        .get(i as usize)
        .copied()
    }
}

/// `struct pipe_query_data_pipeline_statistics`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct PipelineStatistics {
    pub ia_vertices: u64,
    pub ia_primitives: u64,
    pub vs_invocations: u64,
    pub gs_invocations: u64,
    pub gs_primitives: u64,
    pub c_invocations: u64,
    pub c_primitives: u64,
    pub ps_invocations: u64,
    pub hs_invocations: u64,
    pub ds_invocations: u64,
    pub cs_invocations: u64,
}

impl PipelineStatistics {
    /// Number of counters.
    pub const COUNT: usize = 11;

    /// The counters in `PIPE_STAT_QUERY_*` order ([`PipelineStat`]).
    pub fn to_array(&self) -> [u64; Self::COUNT] {
        [
            self.ia_vertices,
            self.ia_primitives,
            self.vs_invocations,
            self.gs_invocations,
            self.gs_primitives,
            self.c_invocations,
            self.c_primitives,
            self.ps_invocations,
            self.hs_invocations,
            self.ds_invocations,
            self.cs_invocations,
        ]
    }

    /// The counters from [`Self::to_array`]'s order.
    pub fn from_array(v: [u64; Self::COUNT]) -> Self {
        let [ia_vertices, ia_primitives, vs_invocations, gs_invocations, gs_primitives, c_invocations, c_primitives, ps_invocations, hs_invocations, ds_invocations, cs_invocations] =
            v;
        PipelineStatistics {
            ia_vertices,
            ia_primitives,
            vs_invocations,
            gs_invocations,
            gs_primitives,
            c_invocations,
            c_primitives,
            ps_invocations,
            hs_invocations,
            ds_invocations,
            cs_invocations,
        }
    }
}

/// `union pipe_query_result`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueryResult {
    Bool(bool),
    U64(u64),
    SoStatistics {
        num_primitives_written: u64,
        primitives_storage_needed: u64,
    },
    TimestampDisjoint {
        frequency: u64,
        disjoint: bool,
    },
    PipelineStatistics(PipelineStatistics),
}

/// `enum pipe_query_value_type`: how `get_query_result_resource` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QueryValueType {
    I32,
    U32,
    I64,
    U64,
}

impl QueryValueType {
    /// Bytes written per value.
    pub fn size(self) -> u32 {
        match self {
            QueryValueType::I32 | QueryValueType::U32 => 4,
            QueryValueType::I64 | QueryValueType::U64 => 8,
        }
    }
}

bitflags::bitflags! {
    /// `PIPE_QUERY_WAIT` / `PIPE_QUERY_PARTIAL`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    pub struct QueryFlags: u32 {
        const WAIT = 1;
        const PARTIAL = 2;
    }
}

/// What `get_query_result_resource` writes: a result value or availability.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QueryResultIndex {
    /// Availability (Gallium's index -1).
    Availability,
    /// The result value; for multi-value queries the index of the value.
    Value(u32),
}

/// `PIPE_RENDER_COND_*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RenderCondMode {
    Wait,
    NoWait,
    ByRegionWait,
    ByRegionNoWait,
}

/// Description of a created query.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct QueryDesc {
    pub query_type: QueryType,
    /// Vertex stream or pipeline-statistics counter.
    pub index: u32,
}

/// A query object.
pub type Query = Arc<Object<QueryDesc>>;
