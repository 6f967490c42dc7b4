//! `pipe.query_review.*`: queries in the orders and around the commands
//! that split or reopen rendering instances, which `pipe.query.*` does not
//! reach (a review of the query implementation).
//!
//! Expected values follow from the draws alone, as in `query.rs`: a band
//! of pixel columns `x0..x1` of the 16x16 target covers `(x1 - x0) * 16`
//! samples and is two triangles.

use pipe_core::draw::{DrawIndirectInfo, DrawInfo, DrawStartCountBias, IndexSource, PrimType};
use pipe_core::flags::ClearFlags;
use pipe_core::query::*;
use pipe_core::resource::{BindFlags, PipeBox, ResourceFlags, ResourceTemplate};
use pipe_core::shader::GridInfo;
use pipe_core::state::{ColorUnion, ShaderStage};
use pipe_core::Format;

use super::draw::{bind_vertices, check_image, draw};
use super::query::{
    band, begin, bytes, capture_rig, columns, create, end, expect, flush, program, result,
    shader_blit, BLACK, GREEN, R, RED, W,
};
use super::streamout as so;
use crate::harness::{env, set_color, shader, step, unorm, Env};
use crate::{result_case, Outcome, TestContext};

/// Samples of the band `x0..x1`.
fn px(x0: u32, x1: u32) -> u64 {
    u64::from(x1 - x0) * 16
}

/// A query begun with no rendering instance open keeps its Vulkan query
/// running through the instances that follow. When another kind's span,
/// begun inside an instance, ends with that instance (here through a
/// transfer), the queries are suspended; the next draw resumes them in
/// its new instance, which restarts the span begun outside too. That
/// restart must not leave the draw outside any rendering instance.
fn outside_span_resumed(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    program(&mut e)?;
    let scratch = e.buffer(64, ResourceFlags::empty())?;
    let occ = create(&mut e, QueryType::OcclusionCounter, 0)?;
    let gen = create(&mut e, QueryType::PrimitivesGenerated, 0)?;
    // No instance is open: the occlusion span begins outside.
    begin(&mut e, &occ)?;
    band(&mut e, 0, 2)?;
    // Inside the instance the band opened.
    begin(&mut e, &gen)?;
    band(&mut e, 2, 3)?;
    step(
        "clear_buffer",
        e.ctx.clear_buffer(&scratch, 0, 64, &[1, 2, 3, 4]),
    )?;
    band(&mut e, 3, 6)?;
    band(&mut e, 6, 7)?;
    end(&mut e, &gen)?;
    end(&mut e, &occ)?;
    expect(
        "occlusion",
        result(&mut e, &occ)?,
        QueryResult::U64(px(0, 7)),
    )?;
    expect(
        "primitives generated",
        result(&mut e, &gen)?,
        QueryResult::U64(3 * 2),
    )
}
result_case!(
    "pipe.query_review.outside_span_resumed_in_instance",
    outside_span_resumed
);

/// All 16 columns as one vertex buffer, column `x` at vertices
/// `6x..6x+6`: consecutive draws of bands need no state call between them
/// and merge into one multi-draw (`pipe-vk/src/merge.rs`).
fn bind_all_columns(e: &mut Env) -> R {
    let verts: Vec<f32> = (0..W).flat_map(|x| columns(x, x + 1)).collect();
    bind_vertices(e, &verts, None)
}

/// Draws the band `x0..x1` from [`bind_all_columns`]'s buffer.
fn column_band(e: &mut Env, x0: u32, x1: u32) -> R {
    draw(e, PrimType::Triangles, x0 * 6, (x1 - x0) * 6, 1)
}

/// xorshift64*: the sequences are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u32) -> u32 {
        (self.next() >> 33) as u32 % n
    }
}

/// What a query of the model counts per column drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Counts {
    /// Samples (16 per column).
    Samples,
    /// Whether any sample passed.
    AnySample,
    /// Primitives (2 per column), through PRIMITIVES_GENERATED.
    Generated,
    /// Input-assembly primitives (2 per column), one statistics counter.
    IaPrimitives,
}

impl Counts {
    fn create(self, e: &mut Env) -> Result<Query, Outcome> {
        match self {
            Counts::Samples => create(e, QueryType::OcclusionCounter, 0),
            Counts::AnySample => create(e, QueryType::OcclusionPredicate, 0),
            Counts::Generated => create(e, QueryType::PrimitivesGenerated, 0),
            Counts::IaPrimitives => create(
                e,
                QueryType::PipelineStatisticsSingle,
                PipelineStat::IaPrimitives as u32,
            ),
        }
    }
    fn per_column(self) -> u64 {
        match self {
            Counts::Samples | Counts::AnySample => 16,
            Counts::Generated | Counts::IaPrimitives => 2,
        }
    }
    fn result(self, n: u64) -> QueryResult {
        match self {
            Counts::AnySample => QueryResult::Bool(n != 0),
            _ => QueryResult::U64(n),
        }
    }
}

/// The model of one query: what it counted since it was last begun.
struct Model {
    counts: Counts,
    q: Query,
    active: bool,
    /// Begun at least once since created.
    begun: bool,
    n: u64,
}

/// Random sequences of overlapping begins and ends of several queries of
/// four kinds, mixed with what splits their Vulkan queries: flushes,
/// transfers (which end the rendering instance), pauses, shader blits
/// and dispatches (not counted), clears, draws that merge, polling,
/// destroying active queries and `get_query_result_resource`. Each
/// query's expected result is the model's count of the columns drawn
/// while it was active and not paused.
fn sequences(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    let t = program(&mut e)?;
    let src = e.texture(&ResourceTemplate::texture_2d(
        Format::R8G8B8A8Unorm,
        4,
        4,
        BindFlags::SAMPLER_VIEW | BindFlags::RENDER_TARGET,
    ))?;
    let scratch = e.buffer(64, ResourceFlags::empty())?;
    let out = e.buffer(8 * 256, ResourceFlags::empty())?;
    let mut written: Vec<(u32, u64)> = Vec::new();
    super::compute::bind_cs(&mut e, "shader compute local_size=1,1,1\nfn main {\n}\n")?;
    bind_all_columns(&mut e)?;
    let kinds = [
        Counts::Samples,
        Counts::Samples,
        Counts::Samples,
        Counts::AnySample,
        Counts::Generated,
        Counts::Generated,
        Counts::IaPrimitives,
        Counts::IaPrimitives,
    ];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for seq in 0..80 {
        let mut models = Vec::new();
        for k in kinds {
            models.push(Model {
                counts: k,
                q: k.create(&mut e)?,
                active: false,
                begun: false,
                n: 0,
            });
        }
        let mut paused = false;
        let mut log: Vec<String> = Vec::new();
        for _ in 0..48 {
            let op = rng.below(16);
            let i = rng.below(models.len() as u32) as usize;
            match op {
                0..=3 => {
                    let x0 = rng.below(W);
                    let x1 = x0 + 1 + rng.below(W - x0);
                    log.push(format!("draw {x0}..{x1}"));
                    column_band(&mut e, x0, x1)?;
                    if !paused {
                        for m in models.iter_mut().filter(|m| m.active) {
                            m.n += u64::from(x1 - x0) * m.counts.per_column();
                        }
                    }
                }
                4..=6 => {
                    let m = &mut models[i];
                    if m.active {
                        log.push(format!("end {i}"));
                        end(&mut e, &m.q)?;
                        m.active = false;
                    } else {
                        log.push(format!("begin {i}"));
                        begin(&mut e, &m.q)?;
                        m.active = true;
                        m.begun = true;
                        m.n = 0;
                    }
                }
                7 => {
                    log.push("flush".into());
                    flush(&mut e)?;
                }
                8 => {
                    log.push("clear_buffer".into());
                    step(
                        "clear_buffer",
                        e.ctx.clear_buffer(&scratch, 0, 64, &[1, 2, 3, 4]),
                    )?;
                }
                9 => {
                    paused = !paused;
                    log.push(format!("set_active_query_state({})", !paused));
                    step(
                        "set_active_query_state",
                        e.ctx.set_active_query_state(!paused),
                    )?;
                }
                10 => {
                    log.push("blit".into());
                    let info = shader_blit(&t.color, &src, PipeBox::rect(0, 0, 4, 4));
                    step("blit", e.ctx.blit(&info))?;
                }
                11 => {
                    log.push("launch_grid".into());
                    step(
                        "launch_grid",
                        e.ctx.launch_grid(&GridInfo {
                            block: [1, 1, 1],
                            grid: [2, 1, 1],
                            ..Default::default()
                        }),
                    )?;
                }
                12 => {
                    log.push("clear".into());
                    step(
                        "clear",
                        e.ctx.clear(
                            ClearFlags::COLOR0,
                            None,
                            &ColorUnion::from_f32(BLACK),
                            0.0,
                            0,
                        ),
                    )?;
                }
                13 => {
                    let m = &models[i];
                    if m.begun && !m.active {
                        log.push(format!("poll {i}"));
                        let got = step(
                            "get_query_result(no wait)",
                            e.ctx.get_query_result(&m.q, false),
                        )?;
                        if let Some(got) = got {
                            let want = m.counts.result(m.n);
                            if got != want {
                                return Err(Outcome::fail(format!(
                                    "sequence {seq}, polled query {i} ({:?}): expected \
                                     {want:?}, got {got:?}\n  ops: {}",
                                    m.counts,
                                    log.join(", ")
                                )));
                            }
                        }
                    }
                }
                14 => {
                    let m = &models[i];
                    if m.begun && !m.active && written.len() < 256 {
                        let off = written.len() as u32 * 8;
                        log.push(format!("result_resource {i}"));
                        step(
                            "get_query_result_resource",
                            e.ctx.get_query_result_resource(
                                &m.q,
                                QueryFlags::WAIT,
                                QueryValueType::U64,
                                QueryResultIndex::Value(0),
                                &out,
                                off,
                            ),
                        )?;
                        let v = match m.counts.result(m.n) {
                            QueryResult::Bool(b) => u64::from(b),
                            QueryResult::U64(n) => n,
                            _ => unreachable!(),
                        };
                        written.push((off, v));
                    }
                }
                _ => {
                    let m = &mut models[i];
                    if m.active {
                        log.push(format!("destroy {i} (active)"));
                        let q = m.counts.create(&mut e)?;
                        let old = std::mem::replace(&mut m.q, q);
                        step("destroy_query", e.ctx.destroy_query(old))?;
                        m.active = false;
                        m.begun = false;
                    }
                }
            }
        }
        for (i, m) in models.iter_mut().enumerate() {
            if m.active {
                log.push(format!("end {i}"));
                end(&mut e, &m.q)?;
                m.active = false;
            }
        }
        if paused {
            step(
                "set_active_query_state(true)",
                e.ctx.set_active_query_state(true),
            )?;
        }
        for (i, m) in models.iter().enumerate() {
            if !m.begun {
                continue;
            }
            let got = result(&mut e, &m.q)?;
            let want = m.counts.result(m.n);
            if got != want {
                return Err(Outcome::fail(format!(
                    "sequence {seq}, query {i} ({:?}): expected {want:?}, got {got:?}\n  ops: {}",
                    m.counts,
                    log.join(", ")
                )));
            }
        }
    }
    let got = bytes(&mut e, &out, written.len() as u32 * 8)?;
    for (off, want) in written {
        let o = off as usize;
        let v = u64::from_le_bytes(got[o..o + 8].try_into().unwrap_or_default());
        if v != want {
            return Err(Outcome::fail(format!(
                "get_query_result_resource at offset {off}: expected {want}, got {v}"
            )));
        }
    }
    Ok(())
}
result_case!("pipe.query_review.sequences", sequences);

/// Indices `0..n` as bytes of `size` each.
fn index_bytes(n: u32, size: usize) -> Vec<u8> {
    (0..n)
        .flat_map(|i| i.to_le_bytes()[..size].to_vec())
        .collect()
}

/// Every way a draw reaches the device is counted: direct draws of
/// several ranges in one call, calls merged into one multi-draw,
/// indirect draws (with and without a count buffer), 8-bit indices
/// (widened on the CPU where the device cannot read them) and quads
/// (rewritten into triangles). Occlusion counts samples, which do not
/// depend on how the driver draws.
fn draw_paths(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    program(&mut e)?;
    bind_all_columns(&mut e)?;
    let occ = create(&mut e, QueryType::OcclusionCounter, 0)?;
    let gen = create(&mut e, QueryType::PrimitivesGenerated, 0)?;
    let mut want = 0;
    let mut prims = 0;
    // Indirect commands: columns 1 and 3..5.
    let mut cmds = Vec::new();
    for (first, count) in [(6u32, 6u32), (18, 12)] {
        for v in [count, 1, first, 0] {
            cmds.extend_from_slice(&v.to_le_bytes());
        }
    }
    let ind_buf = e.buffer_with(&cmds)?;
    let count_buf = e.buffer_with(&1u32.to_le_bytes())?;
    begin(&mut e, &occ)?;
    begin(&mut e, &gen)?;
    // One call, two ranges: columns 0 and 2.
    let info = DrawInfo::default();
    let ranges = [
        DrawStartCountBias {
            start: 0,
            count: 6,
            index_bias: 0,
        },
        DrawStartCountBias {
            start: 12,
            count: 6,
            index_bias: 0,
        },
    ];
    step(
        "draw_vbo (2 ranges)",
        e.ctx.draw_vbo(&info, 0, None, &ranges),
    )?;
    want += px(0, 2);
    prims += 4;
    // Merged calls: columns 6, 7, 8.
    for x in 6..9 {
        column_band(&mut e, x, x + 1)?;
    }
    want += px(6, 9);
    prims += 6;
    let ind = DrawIndirectInfo {
        offset: 0,
        stride: 16,
        draw_count: 2,
        buffer: Some(ind_buf.clone()),
        ..Default::default()
    };
    step(
        "draw_vbo (indirect)",
        e.ctx.draw_vbo(&info, 0, Some(&ind), &[]),
    )?;
    want += px(1, 2) + px(3, 5);
    prims += 6;
    if e.screen.caps().draw_indirect_count {
        // Two commands allowed, the count buffer says one: column 1.
        let ind = DrawIndirectInfo {
            indirect_draw_count: Some(count_buf),
            ..ind
        };
        step(
            "draw_vbo (indirect count)",
            e.ctx.draw_vbo(&info, 0, Some(&ind), &[]),
        )?;
        want += px(1, 2);
        prims += 2;
    }
    // 8-bit indices: columns 9 and 10 (vertices 54..66).
    let idx = index_bytes(66, 1);
    let info8 = DrawInfo {
        index_size: 1,
        index: IndexSource::User(&idx),
        ..DrawInfo::default()
    };
    let r = [DrawStartCountBias {
        start: 54,
        count: 12,
        index_bias: 0,
    }];
    step(
        "draw_vbo (8-bit indices)",
        e.ctx.draw_vbo(&info8, 0, None, &r),
    )?;
    want += px(9, 11);
    prims += 4;
    end(&mut e, &gen)?;
    // Quads: one quad over columns 12..16 (the driver draws triangles, so
    // PRIMITIVES_GENERATED, which counts what the device drew, is left).
    let nx = |x: u32| -1.0 + 2.0 * x as f32 / W as f32;
    let quad = [
        nx(12),
        -1.0,
        0.0,
        1.0,
        nx(16),
        -1.0,
        0.0,
        1.0, //
        nx(16),
        1.0,
        0.0,
        1.0,
        nx(12),
        1.0,
        0.0,
        1.0,
    ];
    bind_vertices(&mut e, &quad, None)?;
    draw(&mut e, PrimType::Quads, 0, 4, 1)?;
    want += px(12, 16);
    end(&mut e, &occ)?;
    expect("occlusion", result(&mut e, &occ)?, QueryResult::U64(want))?;
    expect(
        "primitives generated",
        result(&mut e, &gen)?,
        QueryResult::U64(prims),
    )
}
result_case!("pipe.query_review.draw_paths", draw_paths);

/// Clears are not counted, also when they are predicated (a
/// `vkCmdClearAttachments` in a rendering instance of its own) or when
/// a query's Vulkan query runs across their instance (begun with no
/// instance open).
fn clears_not_counted(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    program(&mut e)?;
    if !e.screen.caps().conditional_render {
        return Err(Outcome::skip("no conditional rendering"));
    }
    let pred = e.buffer_with(&1u32.to_le_bytes())?;
    let occ = create(&mut e, QueryType::OcclusionCounter, 0)?;
    let stats = create(&mut e, QueryType::PipelineStatistics, 0)?;
    begin(&mut e, &occ)?;
    begin(&mut e, &stats)?;
    let clear = |e: &mut Env, c: [f32; 4]| {
        step(
            "clear",
            e.ctx
                .clear(ClearFlags::COLOR0, None, &ColorUnion::from_f32(c), 0.0, 0),
        )
    };
    clear(&mut e, GREEN)?;
    band(&mut e, 0, 1)?;
    step(
        "render_condition_mem",
        e.ctx.render_condition_mem(Some(&pred), 0, false),
    )?;
    clear(&mut e, RED)?;
    band(&mut e, 1, 3)?;
    clear(&mut e, BLACK)?;
    step(
        "render_condition_mem(None)",
        e.ctx.render_condition_mem(None, 0, false),
    )?;
    end(&mut e, &stats)?;
    end(&mut e, &occ)?;
    expect(
        "occlusion",
        result(&mut e, &occ)?,
        QueryResult::U64(px(0, 3)),
    )?;
    let QueryResult::PipelineStatistics(s) = result(&mut e, &stats)? else {
        return Err(Outcome::fail("statistics: wrong result kind"));
    };
    if (s.ia_vertices, s.ia_primitives, s.c_invocations) != (12, 4, 4) {
        return Err(Outcome::fail(format!(
            "statistics: expected 12 vertices, 4 primitives and 4 clipper invocations (the \
             two bands, no clear), got {s:?}"
        )));
    }
    Ok(())
}
result_case!("pipe.query_review.clears_not_counted", clears_not_counted);
/// `get_query_result_resource` accepts any 4-byte aligned offset; 64-bit
/// values at offsets that are not multiples of 8 are written too. The
/// single-span counters the driver copies on the GPU must not reach
/// `vkCmdCopyQueryPoolResults` there (64-bit results need 8-byte
/// aligned destinations, VUID-vkCmdCopyQueryPoolResults-flags-00822).
fn result_resource_unaligned(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    program(&mut e)?;
    let buf = e.buffer(32, ResourceFlags::empty())?;
    e.subdata(&buf, 0, &[0xaa; 32])?;
    let occ = create(&mut e, QueryType::OcclusionCounter, 0)?;
    let gen = create(&mut e, QueryType::PrimitivesGenerated, 0)?;
    begin(&mut e, &occ)?;
    begin(&mut e, &gen)?;
    band(&mut e, 0, 5)?;
    end(&mut e, &gen)?;
    end(&mut e, &occ)?;
    let w = |e: &mut Env, q: &Query, ty: QueryValueType, off: u32| {
        step(
            "get_query_result_resource",
            e.ctx.get_query_result_resource(
                q,
                QueryFlags::WAIT,
                ty,
                QueryResultIndex::Value(0),
                &buf,
                off,
            ),
        )
    };
    w(&mut e, &occ, QueryValueType::U64, 4)?;
    w(&mut e, &gen, QueryValueType::I64, 20)?;
    let got = bytes(&mut e, &buf, 32)?;
    let mut want = vec![0xaa; 4];
    want.extend_from_slice(&px(0, 5).to_le_bytes());
    want.extend_from_slice(&[0xaa; 8]);
    want.extend_from_slice(&2i64.to_le_bytes());
    want.extend_from_slice(&[0xaa; 4]);
    if got != want {
        return Err(Outcome::fail(format!(
            "results in the buffer: expected {want:?}, got {got:?}"
        )));
    }
    Ok(())
}
result_case!(
    "pipe.query_review.result_resource.unaligned_64bit",
    result_resource_unaligned
);

/// Stream-output queries per vertex stream, with a geometry shader that
/// writes one point to stream 0 and two to stream 1 per input point:
/// `SO_OVERFLOW_PREDICATE` is per stream, `SO_OVERFLOW_ANY_PREDICATE`
/// the OR over the streams, `SO_STATISTICS` and `PRIMITIVES_EMITTED` count
/// their stream's primitives. A query begun while transform feedback is
/// already active in the rendering instance counts only the draws after
/// it.
fn so_streams(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    so::require_so(&e)?;
    so::require(&e, 2)?;
    let caps = e.screen.caps().clone();
    if !caps.shader[ShaderStage::Geometry.index()].supported || caps.max_vertex_stream < 1 {
        return Err(Outcome::skip("no geometry shader streams"));
    }
    so::setup(&mut e, false)?;
    so::bind_fs(&mut e)?;
    so::bind_vs(&mut e, shader(ShaderStage::Vertex, so::VS_PASS)?)?;
    let mut s1 = so::so(2, 0, 2, 1, 0);
    s1.stream = 1;
    let gs = so::with_so(
        shader(ShaderStage::Geometry, so::GS_STREAMS)?,
        vec![so::so(1, 0, 4, 0, 0), s1],
        [4, 2, 0, 0],
    );
    let g = step("create_gs_state", e.ctx.create_gs_state(&gs))?;
    step("bind_gs_state", e.ctx.bind_gs_state(Some(g)))?;
    let n = 4;
    let pos: Vec<f32> = (0..n).flat_map(|i| so::vert(i).pos).collect();
    so::bind_streams(&mut e, &[&pos])?;
    // Round 1: stream 0 holds 8 records (4 written), stream 1 holds 3 of
    // its 8.
    let b0 = so::so_buffer(&mut e, 16 * 8)?;
    let b1 = so::so_buffer(&mut e, 8 * 3)?;
    let t0 = so::target(&mut e, &b0, 0, 16 * 8)?;
    let t1 = so::target(&mut e, &b1, 0, 8 * 3)?;
    let ov0 = create(&mut e, QueryType::SoOverflowPredicate, 0)?;
    let ov1 = create(&mut e, QueryType::SoOverflowPredicate, 1)?;
    let any = create(&mut e, QueryType::SoOverflowAnyPredicate, 0)?;
    let st1 = create(&mut e, QueryType::SoStatistics, 1)?;
    let em0 = create(&mut e, QueryType::PrimitivesEmitted, 0)?;
    so::set_targets(&mut e, &[&t0, &t1], &[Some(0), Some(0)])?;
    for q in [&ov0, &ov1, &any, &st1, &em0] {
        begin(&mut e, q)?;
    }
    so::draw(&mut e, PrimType::Points, n)?;
    for q in [&ov0, &ov1, &any, &st1, &em0] {
        end(&mut e, q)?;
    }
    expect(
        "stream 0 overflow",
        result(&mut e, &ov0)?,
        QueryResult::Bool(false),
    )?;
    expect(
        "stream 1 overflow",
        result(&mut e, &ov1)?,
        QueryResult::Bool(true),
    )?;
    expect("any stream", result(&mut e, &any)?, QueryResult::Bool(true))?;
    expect(
        "stream 1 statistics",
        result(&mut e, &st1)?,
        QueryResult::SoStatistics {
            num_primitives_written: 3,
            primitives_storage_needed: 2 * u64::from(n),
        },
    )?;
    expect(
        "stream 0 emitted",
        result(&mut e, &em0)?,
        QueryResult::U64(u64::from(n)),
    )?;
    // Round 2: both fit; two draws, the queries begun after the first,
    // while its transform feedback is still active.
    let c0 = so::so_buffer(&mut e, 16 * 8)?;
    let c1 = so::so_buffer(&mut e, 8 * 16)?;
    let u0 = so::target(&mut e, &c0, 0, 16 * 8)?;
    let u1 = so::target(&mut e, &c1, 0, 8 * 16)?;
    so::set_targets(&mut e, &[&u0, &u1], &[Some(0), Some(0)])?;
    so::draw(&mut e, PrimType::Points, n)?;
    for q in [&any, &st1, &em0] {
        begin(&mut e, q)?;
    }
    so::draw(&mut e, PrimType::Points, n)?;
    for q in [&any, &st1, &em0] {
        end(&mut e, q)?;
    }
    so::set_targets(&mut e, &[], &[])?;
    expect(
        "any stream (fits)",
        result(&mut e, &any)?,
        QueryResult::Bool(false),
    )?;
    expect(
        "stream 1 statistics (second draw)",
        result(&mut e, &st1)?,
        QueryResult::SoStatistics {
            num_primitives_written: 2 * u64::from(n),
            primitives_storage_needed: 2 * u64::from(n),
        },
    )?;
    expect(
        "stream 0 emitted (second draw)",
        result(&mut e, &em0)?,
        QueryResult::U64(u64::from(n)),
    )
}
result_case!("pipe.query_review.streamout.streams", so_streams);

/// `render_condition` on queries several times in one batch: each call
/// rewrites the driver's predicate after draws predicated on the earlier
/// value (a GPU copy for single-span occlusion queries, a CPU-computed
/// upload for the others), and a query begun again changes its
/// predicate. Each band is drawn unless `(result != 0) == condition`.
fn render_condition_rewrites(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    let t = program(&mut e)?;
    if !e.screen.caps().conditional_render {
        return Err(Outcome::skip("no conditional rendering"));
    }
    let offscreen = [2.0, 2.0, 0.0, 1.0, 3.0, 2.0, 0.0, 1.0, 2.0, 3.0, 0.0, 1.0];
    let some = create(&mut e, QueryType::OcclusionCounter, 0)?;
    let none = create(&mut e, QueryType::OcclusionPredicate, 0)?;
    let split = create(&mut e, QueryType::OcclusionCounter, 0)?;
    let gen = create(&mut e, QueryType::PrimitivesGenerated, 0)?;
    begin(&mut e, &some)?;
    band(&mut e, 15, 16)?;
    end(&mut e, &some)?;
    begin(&mut e, &none)?;
    bind_vertices(&mut e, &offscreen, None)?;
    draw(&mut e, PrimType::Triangles, 0, 3, 1)?;
    end(&mut e, &none)?;
    begin(&mut e, &split)?;
    band(&mut e, 14, 15)?;
    flush(&mut e)?;
    band(&mut e, 14, 15)?;
    end(&mut e, &split)?;
    set_color(&mut e, GREEN)?;
    // (query, condition, drawn)
    let mut bands: Vec<bool> = Vec::new();
    let mut cond = |e: &mut Env, q: &Query, c: bool, drawn: bool| -> R {
        step(
            "render_condition",
            e.ctx.render_condition(Some(q), c, RenderCondMode::Wait),
        )?;
        let x = bands.len() as u32;
        bands.push(drawn);
        band(e, x, x + 1)
    };
    cond(&mut e, &some, true, false)?;
    cond(&mut e, &none, false, false)?;
    cond(&mut e, &some, false, true)?;
    cond(&mut e, &split, true, false)?;
    cond(&mut e, &none, true, true)?;
    cond(&mut e, &split, false, true)?;
    // Begun again around nothing visible: its predicate is false now.
    step(
        "render_condition(None)",
        e.ctx.render_condition(None, false, RenderCondMode::Wait),
    )?;
    begin(&mut e, &some)?;
    begin(&mut e, &gen)?;
    bind_vertices(&mut e, &offscreen, None)?;
    draw(&mut e, PrimType::Triangles, 0, 3, 1)?;
    end(&mut e, &gen)?;
    end(&mut e, &some)?;
    cond(&mut e, &some, false, false)?;
    cond(&mut e, &some, true, true)?;
    // PRIMITIVES_GENERATED cannot predicate.
    match e
        .ctx
        .render_condition(Some(&gen), false, RenderCondMode::Wait)
    {
        Err(pipe_core::PipeError::InvalidArgument(_)) => {}
        other => {
            return Err(Outcome::fail(format!(
                "render_condition on PRIMITIVES_GENERATED: expected InvalidArgument, got \
                 {other:?}"
            )))
        }
    }
    step(
        "render_condition(None)",
        e.ctx.render_condition(None, false, RenderCondMode::Wait),
    )?;
    let n = bands.len() as u32;
    check_image(ctx, &mut e, &t, |x, _| {
        Some(unorm(if x < n {
            if bands[x as usize] {
                GREEN
            } else {
                BLACK
            }
        } else if x >= 14 {
            RED
        } else {
            BLACK
        }))
    })
}
result_case!(
    "pipe.query_review.render_condition.rewrites",
    render_condition_rewrites
);

/// A stream-output query paused and resumed between two capturing draws
/// of one rendering instance, with transform feedback left active by the
/// first: the second draw resumes the query. With `outside` (Vulkan
/// queries only outside rendering instances,
/// `PIPE_VK_DEBUG=no_query_in_rendering`) the resume ends the instance,
/// and transform feedback must resume after the counter barrier.
fn so_pause_between_draws(ctx: &mut TestContext, outside: bool) -> R {
    let mut e = crate::harness::env_with(ctx, |o| o.no_query_in_rendering = Some(outside))?;
    let (_b, t) = capture_rig(&mut e, 16)?;
    let emitted = create(&mut e, QueryType::PrimitivesEmitted, 0)?;
    let generated = create(&mut e, QueryType::PrimitivesGenerated, 0)?;
    so::set_targets(&mut e, &[&t], &[Some(0)])?;
    so::bind_verts(&mut e, 0, 3)?;
    begin(&mut e, &emitted)?;
    begin(&mut e, &generated)?;
    so::draw(&mut e, PrimType::Points, 3)?;
    step(
        "set_active_query_state(false)",
        e.ctx.set_active_query_state(false),
    )?;
    so::draw(&mut e, PrimType::Points, 3)?;
    step(
        "set_active_query_state(true)",
        e.ctx.set_active_query_state(true),
    )?;
    so::draw(&mut e, PrimType::Points, 3)?;
    so::draw(&mut e, PrimType::Points, 3)?;
    end(&mut e, &generated)?;
    end(&mut e, &emitted)?;
    let off = step("offset", e.ctx.stream_output_target_offset(&t))?;
    so::set_targets(&mut e, &[], &[])?;
    if off != 4 * 3 * 20 {
        return Err(Outcome::fail(format!(
            "target offset: expected {} bytes (4 draws of 3 points), got {off}",
            4 * 3 * 20
        )));
    }
    expect("emitted", result(&mut e, &emitted)?, QueryResult::U64(9))?;
    expect(
        "generated",
        result(&mut e, &generated)?,
        QueryResult::U64(9),
    )
}
crate::bool_cases!(
    so_pause_between_draws,
    "pipe.query_review.streamout.pause_between_draws",
    "pipe.query_review.streamout.pause_between_draws.outside_rendering"
);

/// `get_query_result_resource` of a 64-bit value into 32-bit types
/// saturates (`TIMESTAMP`, nanoseconds of the device clock, exceeds 2^32
/// after about 4.3 s), availability is 1 once the query completed, and
/// every value of `TIMESTAMP_DISJOINT` and `SO_STATISTICS`-like
/// multi-value queries is reachable by index.
fn result_resource_saturation(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    program(&mut e)?;
    let buf = e.buffer(64, ResourceFlags::empty())?;
    e.subdata(&buf, 0, &[0xaa; 64])?;
    let ts = create(&mut e, QueryType::Timestamp, 0)?;
    let disjoint = create(&mut e, QueryType::TimestampDisjoint, 0)?;
    begin(&mut e, &disjoint)?;
    band(&mut e, 0, 1)?;
    end(&mut e, &ts)?;
    end(&mut e, &disjoint)?;
    e.finish()?;
    let QueryResult::U64(t) = result(&mut e, &ts)? else {
        return Err(Outcome::fail("timestamp: wrong result kind"));
    };
    use QueryResultIndex::{Availability, Value};
    let w = |e: &mut Env, q: &Query, ty: QueryValueType, i: QueryResultIndex, off: u32| {
        step(
            "get_query_result_resource",
            e.ctx
                .get_query_result_resource(q, QueryFlags::empty(), ty, i, &buf, off),
        )
    };
    w(&mut e, &ts, QueryValueType::U32, Value(0), 0)?;
    w(&mut e, &ts, QueryValueType::I32, Value(0), 4)?;
    w(&mut e, &ts, QueryValueType::I64, Value(0), 8)?;
    w(&mut e, &ts, QueryValueType::U32, Availability, 16)?;
    w(&mut e, &disjoint, QueryValueType::U64, Value(0), 24)?;
    w(&mut e, &disjoint, QueryValueType::U32, Value(1), 32)?;
    let got = bytes(&mut e, &buf, 40)?;
    let mut want = Vec::new();
    want.extend_from_slice(&(t.min(u64::from(u32::MAX)) as u32).to_le_bytes());
    want.extend_from_slice(&(t.min(i32::MAX as u64) as i32).to_le_bytes());
    want.extend_from_slice(&(t.min(i64::MAX as u64) as i64).to_le_bytes());
    want.extend_from_slice(&1u32.to_le_bytes());
    want.extend_from_slice(&[0xaa; 4]);
    want.extend_from_slice(&1_000_000_000u64.to_le_bytes());
    want.extend_from_slice(&0u32.to_le_bytes());
    want.extend_from_slice(&[0xaa; 4]);
    if got != want {
        return Err(Outcome::fail(format!(
            "results in the buffer (timestamp {t}): expected {want:?}, got {got:?}"
        )));
    }
    Ok(())
}
result_case!(
    "pipe.query_review.result_resource.saturation",
    result_resource_saturation
);

/// `get_query_result_resource` with each flag combination on the
/// single-span counters the driver may copy on the GPU: with `WAIT` the
/// value is written; without it the value is written or the destination
/// is left alone (the query may not be complete yet), never anything else.
fn result_resource_flags(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    program(&mut e)?;
    let buf = e.buffer(64, ResourceFlags::empty())?;
    e.subdata(&buf, 0, &[0xaa; 64])?;
    let occ = create(&mut e, QueryType::OcclusionCounter, 0)?;
    let gen = create(&mut e, QueryType::PrimitivesGenerated, 0)?;
    begin(&mut e, &occ)?;
    begin(&mut e, &gen)?;
    band(&mut e, 2, 5)?;
    end(&mut e, &gen)?;
    end(&mut e, &occ)?;
    let flags = [
        QueryFlags::WAIT,
        QueryFlags::WAIT | QueryFlags::PARTIAL,
        QueryFlags::PARTIAL,
        QueryFlags::empty(),
    ];
    let mut off = 0;
    let mut checks = Vec::new();
    for f in flags {
        for (q, v) in [(&occ, px(2, 5)), (&gen, 2)] {
            step(
                "get_query_result_resource",
                e.ctx.get_query_result_resource(
                    q,
                    f,
                    QueryValueType::U64,
                    QueryResultIndex::Value(0),
                    &buf,
                    off,
                ),
            )?;
            checks.push((off, f, v));
            off += 8;
        }
    }
    let got = bytes(&mut e, &buf, off)?;
    for (off, f, v) in checks {
        let o = off as usize;
        let w = u64::from_le_bytes(got[o..o + 8].try_into().unwrap_or_default());
        let ok = if f.contains(QueryFlags::WAIT) {
            w == v
        } else if f.contains(QueryFlags::PARTIAL) {
            w <= v || w == u64::from_le_bytes([0xaa; 8])
        } else {
            w == v || w == u64::from_le_bytes([0xaa; 8])
        };
        if !ok {
            return Err(Outcome::fail(format!(
                "{f:?} at offset {off}: expected {v} (or the old bytes without WAIT), got {w:#x}"
            )));
        }
    }
    Ok(())
}
result_case!(
    "pipe.query_review.result_resource.flags",
    result_resource_flags
);
