//! `pipe.query.*`: queries (the spec's "Queries") and `render_condition`
//! with a query ("Conditional Rendering").
//!
//! Expected counts follow from the draws alone: a band of pixel columns
//! whose edges lie on pixel boundaries covers exactly its pixels (one
//! sample each), a list of N triangles or points is N primitives, a
//! stream-output buffer of N records holds N points. What the spec leaves
//! to the implementation (shader invocation counts, which may include
//! helper invocations or vertex reuse) is checked as a range.

use std::sync::Arc;

use pipe_core::blit::{BlitInfo, BlitSurface};
use pipe_core::draw::PrimType;
use pipe_core::flags::{BlitMask, ClearFlags, FlushFlags};
use pipe_core::query::*;
use pipe_core::resource::{BindFlags, PipeBox, ResourceFlags, ResourceTemplate};
use pipe_core::shader::GridInfo;
use pipe_core::state::{ColorUnion, ShaderStage, TexFilter};
use pipe_core::{Format, PipeError, Resource};

use super::draw::{bind_vertices, check_image, clear_color, draw, setup};
use super::streamout as so;
use crate::harness::{
    bind_program, bind_rasterizer, env, set_color, shader, step, unorm, Env, FS_UBO_COLOR,
    VS_PASSTHROUGH,
};
use crate::{result_case, Outcome, TestContext};

pub(crate) type R = Result<(), Outcome>;

pub(crate) const W: u32 = 16;
pub(crate) const BLACK: [f32; 4] = [0.0, 0.0, 0.0, 1.0];
pub(crate) const RED: [f32; 4] = [1.0, 0.0, 0.0, 1.0];
pub(crate) const GREEN: [f32; 4] = [0.0, 1.0, 0.0, 1.0];

/// Two triangles covering pixel columns `x0..x1` of the 16x16 target (all
/// rows): `(x1 - x0) * 16` pixels.
pub(crate) fn columns(x0: u32, x1: u32) -> Vec<f32> {
    let nx = |x: u32| -1.0 + 2.0 * x as f32 / W as f32;
    let (a, b) = (nx(x0), nx(x1));
    vec![
        a, -1.0, 0.0, 1.0, b, -1.0, 0.0, 1.0, a, 1.0, 0.0, 1.0, //
        a, 1.0, 0.0, 1.0, b, -1.0, 0.0, 1.0, b, 1.0, 0.0, 1.0,
    ]
}

/// Draws the band `x0..x1`.
pub(crate) fn band(e: &mut Env, x0: u32, x1: u32) -> R {
    bind_vertices(e, &columns(x0, x1), None)?;
    draw(e, PrimType::Triangles, 0, 6, 1)
}

/// A 16x16 target, cleared black, and a red drawing program.
pub(crate) fn program(e: &mut Env) -> Result<super::draw::Target, Outcome> {
    let t = setup(e, false)?;
    bind_program(e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    clear_color(e, BLACK)?;
    set_color(e, RED)?;
    Ok(t)
}

pub(crate) fn create(e: &mut Env, ty: QueryType, index: u32) -> Result<Query, Outcome> {
    match e.ctx.create_query(ty, index) {
        Err(PipeError::Unsupported(m)) => Err(Outcome::skip(m)),
        r => step("create_query", r),
    }
}

pub(crate) fn begin(e: &mut Env, q: &Query) -> R {
    step("begin_query", e.ctx.begin_query(q))
}

pub(crate) fn end(e: &mut Env, q: &Query) -> R {
    step("end_query", e.ctx.end_query(q))
}

pub(crate) fn result(e: &mut Env, q: &Query) -> Result<QueryResult, Outcome> {
    step("get_query_result", e.ctx.get_query_result(q, true))?
        .ok_or_else(|| Outcome::fail("get_query_result(wait) returned no result"))
}

pub(crate) fn expect(what: &str, got: QueryResult, want: QueryResult) -> R {
    if got == want {
        Ok(())
    } else {
        Err(Outcome::fail(format!(
            "{what}: expected {want:?}, got {got:?}"
        )))
    }
}

pub(crate) fn flush(e: &mut Env) -> R {
    step("flush", e.ctx.flush(FlushFlags::empty(), false)).map(|_| ())
}

/// Counter, predicate and conservative predicate queries, nested and
/// overlapping (Vulkan runs one occlusion query at a time; the driver
/// splits them into spans), around bands of known size.
fn occlusion(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    program(&mut e)?;
    let all = create(&mut e, QueryType::OcclusionCounter, 0)?;
    let inner = create(&mut e, QueryType::OcclusionCounter, 0)?;
    let pred = create(&mut e, QueryType::OcclusionPredicate, 0)?;
    let none = create(&mut e, QueryType::OcclusionPredicateConservative, 0)?;
    let unused = create(&mut e, QueryType::OcclusionCounter, 0)?;
    begin(&mut e, &all)?;
    band(&mut e, 0, 4)?; // 64
    begin(&mut e, &inner)?;
    band(&mut e, 4, 6)?; // 32
    begin(&mut e, &pred)?;
    band(&mut e, 6, 7)?; // 16
    end(&mut e, &inner)?;
    band(&mut e, 8, 16)?; // 128
    end(&mut e, &pred)?;
    end(&mut e, &all)?;
    // No fragment passes: a band outside the target.
    begin(&mut e, &none)?;
    bind_vertices(
        &mut e,
        &[2.0, 2.0, 0.0, 1.0, 3.0, 2.0, 0.0, 1.0, 2.0, 3.0, 0.0, 1.0],
        None,
    )?;
    draw(&mut e, PrimType::Triangles, 0, 3, 1)?;
    end(&mut e, &none)?;
    begin(&mut e, &unused)?;
    end(&mut e, &unused)?;
    let r = result(&mut e, &all)?;
    expect("all bands", r, QueryResult::U64(64 + 32 + 16 + 128))?;
    let r = result(&mut e, &inner)?;
    expect("inner bands", r, QueryResult::U64(32 + 16))?;
    let r = result(&mut e, &pred)?;
    expect("predicate", r, QueryResult::Bool(true))?;
    let r = result(&mut e, &none)?;
    expect("nothing drawn", r, QueryResult::Bool(false))?;
    let r = result(&mut e, &unused)?;
    expect("no draw", r, QueryResult::U64(0))?;
    // Begin resets the result.
    begin(&mut e, &all)?;
    band(&mut e, 0, 1)?;
    end(&mut e, &all)?;
    let r = result(&mut e, &all)?;
    expect("begun again", r, QueryResult::U64(16))
}
result_case!("pipe.query.occlusion.nested", occlusion);

/// A flush while the query is active ends its Vulkan query with the
/// command buffer, and a transfer ends it with the rendering instance it
/// began in; the next draw begins another, and the result sums them.
fn occlusion_across_flush(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    program(&mut e)?;
    let q = create(&mut e, QueryType::OcclusionCounter, 0)?;
    let scratch = e.buffer(64, ResourceFlags::empty())?;
    band(&mut e, 15, 16)?; // before: not counted
    begin(&mut e, &q)?; // inside the open rendering instance
    band(&mut e, 0, 2)?;
    flush(&mut e)?;
    band(&mut e, 2, 4)?;
    // A transfer ends the rendering instance the query's span is in.
    step(
        "clear_buffer",
        e.ctx.clear_buffer(&scratch, 0, 64, &[1, 2, 3, 4]),
    )?;
    band(&mut e, 4, 5)?;
    flush(&mut e)?;
    flush(&mut e)?;
    band(&mut e, 5, 6)?;
    end(&mut e, &q)?;
    let r = result(&mut e, &q)?;
    expect("three batches", r, QueryResult::U64((2 + 3 + 1) * 16))
}
result_case!("pipe.query.occlusion.across_flush", occlusion_across_flush);

pub(crate) fn whole(r: &Resource) -> BlitSurface {
    let d = r.desc();
    BlitSurface {
        resource: r.clone(),
        level: 0,
        bx: PipeBox::rect(0, 0, d.width0, d.height0),
        format: Format::R8G8B8A8Unorm,
    }
}

/// A blit of `src` into box `dst_box` of `dst` that the driver draws with
/// its shader blitter (blending has no transfer command).
pub(crate) fn shader_blit(dst: &Resource, src: &Resource, dst_box: PipeBox) -> BlitInfo {
    let mut info = BlitInfo {
        dst: whole(dst),
        src: whole(src),
        mask: BlitMask::RGBA,
        filter: TexFilter::Linear,
        scissor: None,
        render_condition_enable: false,
        alpha_blend: true,
        window_rectangle_include: false,
        window_rectangles: Vec::new(),
    };
    info.dst.bx = dst_box;
    info
}

/// What queries must not count: draws while `set_active_query_state`
/// pauses them, a blit drawn by the driver's shader blitter (one with
/// blending), and clears. `TIME_ELAPSED` keeps running while paused.
fn occlusion_paused(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    let t = program(&mut e)?;
    let src = e.texture(&ResourceTemplate::texture_2d(
        Format::R8G8B8A8Unorm,
        4,
        4,
        BindFlags::SAMPLER_VIEW | BindFlags::RENDER_TARGET,
    ))?;
    let q = create(&mut e, QueryType::OcclusionCounter, 0)?;
    let stats = create(&mut e, QueryType::PipelineStatistics, 0)?;
    begin(&mut e, &q)?;
    begin(&mut e, &stats)?;
    band(&mut e, 0, 1)?; // 16
    step(
        "set_active_query_state(false)",
        e.ctx.set_active_query_state(false),
    )?;
    band(&mut e, 1, 3)?;
    step(
        "set_active_query_state(true)",
        e.ctx.set_active_query_state(true),
    )?;
    band(&mut e, 3, 4)?; // 16
    let info = shader_blit(&t.color, &src, PipeBox::rect(8, 0, 8, 16));
    step("blit", e.ctx.blit(&info))?;
    step(
        "clear",
        e.ctx.clear(
            ClearFlags::COLOR0,
            None,
            &ColorUnion::from_f32([0.0, 0.0, 0.0, 1.0]),
            0.0,
            0,
        ),
    )?;
    band(&mut e, 4, 5)?; // 16
    end(&mut e, &stats)?;
    end(&mut e, &q)?;
    let r = result(&mut e, &q)?;
    expect("counted draws", r, QueryResult::U64(48))?;
    let QueryResult::PipelineStatistics(s) = result(&mut e, &stats)? else {
        return Err(Outcome::fail("statistics: wrong result kind"));
    };
    // Three counted draws of 2 triangles each.
    if s.ia_primitives != 6 || s.ia_vertices != 18 {
        return Err(Outcome::fail(format!(
            "statistics: expected 18 vertices and 6 primitives (blit and paused draws not \
             counted), got {s:?}"
        )));
    }
    Ok(())
}
result_case!("pipe.query.paused", occlusion_paused);

/// `TIMESTAMP` lies between the screen's timestamps taken before its
/// draw and after its completion; `TIME_ELAPSED` is no longer than the
/// wall-clock time around it; `TIMESTAMP_DISJOINT` is 1 GHz and not
/// disjoint.
fn timestamps(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    program(&mut e)?;
    let disjoint = create(&mut e, QueryType::TimestampDisjoint, 0)?;
    let t0 = create(&mut e, QueryType::Timestamp, 0)?;
    let t1 = create(&mut e, QueryType::Timestamp, 0)?;
    let elapsed = create(&mut e, QueryType::TimeElapsed, 0)?;
    let screen_ts = e.screen.get_timestamp().ok();
    let wall = std::time::Instant::now();
    begin(&mut e, &disjoint)?;
    end(&mut e, &t0)?;
    begin(&mut e, &elapsed)?;
    for i in 0..16 {
        band(&mut e, i, i + 1)?;
    }
    flush(&mut e)?;
    band(&mut e, 0, 16)?;
    end(&mut e, &elapsed)?;
    end(&mut e, &t1)?;
    end(&mut e, &disjoint)?;
    e.finish()?;
    let wall_ns = wall.elapsed().as_nanos() as u64;
    let screen_after = e.screen.get_timestamp().ok();
    let (QueryResult::U64(a), QueryResult::U64(b), QueryResult::U64(d)) = (
        result(&mut e, &t0)?,
        result(&mut e, &t1)?,
        result(&mut e, &elapsed)?,
    ) else {
        return Err(Outcome::fail("timestamps: wrong result kind"));
    };
    if a > b {
        return Err(Outcome::fail(format!("timestamps: {a} after {b}")));
    }
    if d == 0 || d > b - a || d > wall_ns {
        return Err(Outcome::fail(format!(
            "time elapsed {d} ns: expected more than 0, at most the timestamps' {} ns and the \
             wall clock's {wall_ns} ns",
            b - a
        )));
    }
    if let (Some(s0), Some(s1)) = (screen_ts, screen_after) {
        if !(s0 <= a && b <= s1) {
            return Err(Outcome::fail(format!(
                "timestamps {a}..{b} outside the screen's {s0}..{s1}"
            )));
        }
    }
    expect(
        "disjoint",
        result(&mut e, &disjoint)?,
        QueryResult::TimestampDisjoint {
            frequency: 1_000_000_000,
            disjoint: false,
        },
    )
}
result_case!("pipe.query.timestamp", timestamps);

/// `GPU_FINISHED` becomes true once the work before it completed; polling
/// without waiting eventually answers (the driver flushes the query's
/// batch).
fn gpu_finished(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    program(&mut e)?;
    let q = create(&mut e, QueryType::GpuFinished, 0)?;
    band(&mut e, 0, 16)?;
    end(&mut e, &q)?;
    let start = std::time::Instant::now();
    loop {
        match step(
            "get_query_result(no wait)",
            e.ctx.get_query_result(&q, false),
        )? {
            Some(r) => return expect("polled", r, QueryResult::Bool(true)),
            None if start.elapsed().as_secs() > 20 => {
                return Err(Outcome::fail("GPU_FINISHED never became ready"))
            }
            None => std::thread::sleep(std::time::Duration::from_millis(1)),
        }
    }
}
result_case!("pipe.query.gpu_finished", gpu_finished);

/// `PRIMITIVES_GENERATED` counts with or without rasterization, and
/// without stream output.
fn primitives_generated(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    program(&mut e)?;
    let q = create(&mut e, QueryType::PrimitivesGenerated, 0)?;
    begin(&mut e, &q)?;
    band(&mut e, 0, 4)?; // 2 triangles
    bind_rasterizer(&mut e, |r| {
        r.rasterizer_discard = true;
        r.half_pixel_center = true;
    })?;
    bind_vertices(&mut e, &[0.0; 4 * 9], None)?;
    draw(&mut e, PrimType::Points, 0, 9, 1)?; // 9 points
    draw(&mut e, PrimType::Lines, 0, 8, 1)?; // 4 lines
    end(&mut e, &q)?;
    expect(
        "generated",
        result(&mut e, &q)?,
        QueryResult::U64(2 + 9 + 4),
    )
}
result_case!("pipe.query.primitives_generated", primitives_generated);

/// Two horizontal lines across the target, stippled with `pattern`.
fn stippled_lines(e: &mut Env, pattern: u16) -> R {
    bind_rasterizer(e, |r| {
        r.line_stipple_enable = true;
        r.line_stipple_pattern = pattern;
    })?;
    let lines = [
        -0.9, -0.5, 0.0, 1.0, 0.9, -0.5, 0.0, 1.0, //
        -0.9, 0.5, 0.0, 1.0, 0.9, 0.5, 0.0, 1.0,
    ];
    bind_vertices(e, &lines, None)?;
    draw(e, PrimType::Lines, 0, 4, 1)
}

/// `PRIMITIVES_GENERATED` after every kind of last vertex stage, through
/// VK_EXT_primitives_generated_query or (`fallback`) through pipeline
/// statistics (`PIPE_VK_DEBUG=no_primitives_generated_query`, the path
/// of devices without the extension): triangles from the input
/// assembler, with and without rasterizer discard; points; stippled lines
/// through the generated stipple geometry shader (forced on), counted as
/// the application's lines; an application geometry shader that emits
/// each triangle twice; tessellation without a control shader (levels 1:
/// a triangle per patch). A statistics query active meanwhile keeps its
/// own counts; a second query, split by a flush, is read into a buffer.
fn generated_sources(ctx: &mut TestContext, fallback: bool) -> R {
    let mut e = crate::harness::env_with(ctx, |o| {
        o.no_primitives_generated_query = Some(fallback);
        o.emulate_line_stipple = Some(true);
    })?;
    program(&mut e)?;
    let tess = e.screen.caps().shader[ShaderStage::TessEval.index()].supported;
    let all = create(&mut e, QueryType::PrimitivesGenerated, 0)?;
    let late = create(&mut e, QueryType::PrimitivesGenerated, 0)?;
    let stats = create(&mut e, QueryType::PipelineStatistics, 0)?;
    begin(&mut e, &all)?;
    begin(&mut e, &stats)?;
    band(&mut e, 0, 4)?; // 2 triangles
    bind_rasterizer(&mut e, |r| {
        r.rasterizer_discard = true;
        r.half_pixel_center = true;
    })?;
    band(&mut e, 4, 8)?; // 2 triangles, not rasterized
    bind_vertices(&mut e, &[0.0; 4 * 9], None)?;
    draw(&mut e, PrimType::Points, 0, 9, 1)?; // 9 points
    stippled_lines(&mut e, 0xf0f0)?; // 2 lines, each cut into 8 dashes
    begin(&mut e, &late)?;
    flush(&mut e)?;
    bind_rasterizer(&mut e, |r| r.half_pixel_center = true)?;
    crate::harness::bind_stage(&mut e, ShaderStage::Geometry, super::draw::GS_DUP)?;
    band(&mut e, 0, 4)?; // 2 triangles in, 4 out
    step("unbind gs", e.ctx.bind_gs_state(None))?;
    let patches = if tess {
        crate::harness::bind_stage(&mut e, ShaderStage::TessEval, super::draw::TES)?;
        crate::harness::tess_levels_1(&mut e, 3)?;
        bind_vertices(&mut e, &columns(8, 12), None)?;
        draw(&mut e, PrimType::Patches, 0, 6, 1)?; // 2 patches, a triangle each
                                                   // Again with rasterizer discard: the extension counts 2; the
                                                   // clipper's invocations may count none (the statistics path
                                                   // gives these draws a span of their own, so that the others
                                                   // still count).
        bind_rasterizer(&mut e, |r| r.rasterizer_discard = true)?;
        draw(&mut e, PrimType::Patches, 0, 6, 1)?;
        bind_rasterizer(&mut e, |_| {})?;
        step("unbind tes", e.ctx.bind_tes_state(None))?;
        2
    } else {
        0
    };
    band(&mut e, 12, 16)?; // 2 triangles
    end(&mut e, &late)?;
    end(&mut e, &stats)?;
    end(&mut e, &all)?;
    let buf = e.buffer(16, ResourceFlags::empty())?;
    step(
        "get_query_result_resource",
        e.ctx.get_query_result_resource(
            &late,
            QueryFlags::WAIT,
            QueryValueType::U64,
            QueryResultIndex::Value(0),
            &buf,
            0,
        ),
    )?;
    // The discarded patches: 2 through the extension, 0 or 2 through the
    // clipper's invocations.
    let discarded: std::ops::RangeInclusive<u64> = match (tess, fallback) {
        (false, _) => 0..=0,
        (true, false) => 2..=2,
        (true, true) => 0..=2,
    };
    let late_base: u64 = 4 + patches + 2;
    let got = u64::from_le_bytes(bytes(&mut e, &buf, 8)?[..8].try_into().unwrap_or([0; 8]));
    if !discarded.contains(&got.wrapping_sub(late_base)) {
        return Err(Outcome::fail(format!(
            "the query begun later, through a buffer: expected {late_base} plus {discarded:?}, \
             got {got}"
        )));
    }
    let base = 2 + 2 + 9 + 2 + 4 + patches + 2;
    match result(&mut e, &all)? {
        QueryResult::U64(n) if discarded.contains(&n.wrapping_sub(base)) => {}
        other => {
            return Err(Outcome::fail(format!(
                "generated: expected {base} plus {discarded:?}, got {other:?}"
            )))
        }
    }
    let QueryResult::PipelineStatistics(s) = result(&mut e, &stats)? else {
        return Err(Outcome::fail("statistics: wrong result kind"));
    };
    let ia = 2 + 2 + 9 + 2 + 2 + 2 * patches + 2;
    if (s.ia_primitives, s.gs_invocations, s.gs_primitives) != (ia, 2, 4) {
        return Err(Outcome::fail(format!(
            "statistics: expected {ia} input primitives, 2 geometry shader invocations and \
             4 primitives, got {s:?}"
        )));
    }
    Ok(())
}
crate::bool_cases!(
    generated_sources,
    "pipe.query.primitives_generated.sources.extension",
    "pipe.query.primitives_generated.sources.statistics"
);

/// The statistics group for one draw and one dispatch, and each counter
/// alone (`PIPELINE_STATISTICS_SINGLE`) equal to the group's.
fn pipeline_statistics(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    program(&mut e)?;
    let group = create(&mut e, QueryType::PipelineStatistics, 0)?;
    let singles: Vec<Query> = (0..11)
        .map(|i| create(&mut e, QueryType::PipelineStatisticsSingle, i))
        .collect::<Result<_, _>>()?;
    begin(&mut e, &group)?;
    for s in &singles {
        begin(&mut e, s)?;
    }
    band(&mut e, 0, 4)?; // 6 vertices, 2 triangles, 64 pixels
    super::compute::bind_cs(&mut e, "shader compute local_size=4,2,1\nfn main {\n}\n")?;
    step(
        "launch_grid",
        e.ctx.launch_grid(&GridInfo {
            block: [4, 2, 1],
            grid: [3, 1, 2],
            ..Default::default()
        }),
    )?; // 48 invocations
    for s in singles.iter().rev() {
        end(&mut e, s)?;
    }
    end(&mut e, &group)?;
    let QueryResult::PipelineStatistics(s) = result(&mut e, &group)? else {
        return Err(Outcome::fail("statistics: wrong result kind"));
    };
    let exact = s.ia_vertices == 6
        && s.ia_primitives == 2
        && s.gs_invocations == 0
        && s.gs_primitives == 0
        && s.hs_invocations == 0
        && s.ds_invocations == 0
        && s.cs_invocations == 48;
    // lavapipe reports 0 clipper output primitives; Vulkan leaves the
    // count to the implementation, so only the bound is checked.
    let ranges = (1..=6).contains(&s.vs_invocations)
        && s.c_invocations == 2
        && s.c_primitives <= 2
        && s.ps_invocations >= 64;
    if !(exact && ranges) {
        return Err(Outcome::fail(format!(
            "statistics: expected 6 vertices, 2 primitives, 1-6 vertex shader invocations, 2 \
             clipper invocations, 64 or more fragment shader invocations and 48 compute \
             invocations, got {s:?}"
        )));
    }
    let group_values = s.to_array();
    for (i, q) in singles.iter().enumerate() {
        let r = result(&mut e, q)?;
        expect(
            &format!("counter {i} alone"),
            r,
            QueryResult::U64(group_values[i]),
        )?;
    }
    Ok(())
}
result_case!("pipe.query.pipeline_statistics.group", pipeline_statistics);

/// Two statistics queries one after the other in one command buffer,
/// each around a draw (lavapipe crashed on the second begin without the
/// driver's workaround, `DeviceShared::stats_need_compute`).
fn statistics_two_spans(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    program(&mut e)?;
    let a = create(&mut e, QueryType::PipelineStatistics, 0)?;
    let b = create(&mut e, QueryType::PipelineStatisticsSingle, 0)?;
    begin(&mut e, &a)?;
    band(&mut e, 0, 1)?;
    end(&mut e, &a)?;
    begin(&mut e, &b)?;
    band(&mut e, 1, 2)?;
    band(&mut e, 2, 3)?;
    end(&mut e, &b)?;
    let QueryResult::PipelineStatistics(s) = result(&mut e, &a)? else {
        return Err(Outcome::fail("statistics: wrong result kind"));
    };
    if (s.ia_vertices, s.ia_primitives) != (6, 2) {
        return Err(Outcome::fail(format!(
            "first query: expected 6 vertices and 2 primitives, got {s:?}"
        )));
    }
    expect(
        "second query's vertices",
        result(&mut e, &b)?,
        QueryResult::U64(12),
    )
}
result_case!(
    "pipe.query.pipeline_statistics.two_spans",
    statistics_two_spans
);

/// Stream output of points (`streamout`'s capturing vertex shader, 5
/// words a point) into a target that holds `points` records; skips
/// without stream output. Returns the buffer and the target (not bound).
pub(crate) fn capture_rig(
    e: &mut Env,
    points: u32,
) -> Result<(Resource, pipe_core::view::StreamOutputTarget), Outcome> {
    so::require_so(e)?;
    so::setup(e, false)?;
    so::bind_fs(e)?;
    let outs = so::simple_outs();
    so::bind_vs(
        e,
        so::with_so(shader(ShaderStage::Vertex, so::VS_CAP)?, outs, [5, 0, 0, 0]),
    )?;
    let b = so::so_buffer(e, 20 * points)?;
    let t = so::target(e, &b, 0, 20 * points)?;
    Ok((b, t))
}

/// Stream-output queries: `PRIMITIVES_EMITTED`, `SO_STATISTICS` and the
/// overflow predicates, with a target that holds 4 points.
fn streamout(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    let (_b, t) = capture_rig(&mut e, 4)?;
    let emitted = create(&mut e, QueryType::PrimitivesEmitted, 0)?;
    let stats = create(&mut e, QueryType::SoStatistics, 0)?;
    let fits = create(&mut e, QueryType::SoOverflowPredicate, 0)?;
    let overflow = create(&mut e, QueryType::SoOverflowPredicate, 0)?;
    let any = create(&mut e, QueryType::SoOverflowAnyPredicate, 0)?;
    let generated = create(&mut e, QueryType::PrimitivesGenerated, 0)?;
    so::set_targets(&mut e, &[&t], &[Some(0)])?;
    begin(&mut e, &emitted)?;
    begin(&mut e, &stats)?;
    begin(&mut e, &overflow)?;
    begin(&mut e, &any)?;
    begin(&mut e, &generated)?;
    begin(&mut e, &fits)?;
    so::bind_verts(&mut e, 0, 3)?;
    so::draw(&mut e, PrimType::Points, 3)?; // 3 written
    end(&mut e, &fits)?;
    so::bind_verts(&mut e, 3, 3)?;
    so::draw(&mut e, PrimType::Points, 3)?; // 1 written, 2 dropped
    for q in [&emitted, &stats, &overflow, &any, &generated] {
        end(&mut e, q)?;
    }
    so::set_targets(&mut e, &[], &[])?;
    expect("emitted", result(&mut e, &emitted)?, QueryResult::U64(4))?;
    expect(
        "statistics",
        result(&mut e, &stats)?,
        QueryResult::SoStatistics {
            num_primitives_written: 4,
            primitives_storage_needed: 6,
        },
    )?;
    expect("fits", result(&mut e, &fits)?, QueryResult::Bool(false))?;
    expect(
        "overflow",
        result(&mut e, &overflow)?,
        QueryResult::Bool(true),
    )?;
    expect("any stream", result(&mut e, &any)?, QueryResult::Bool(true))?;
    expect(
        "generated",
        result(&mut e, &generated)?,
        QueryResult::U64(6),
    )
}
result_case!("pipe.query.streamout", streamout);

/// Reads back `n` bytes of `b`.
pub(crate) fn bytes(e: &mut Env, b: &Resource, n: u32) -> Result<Vec<u8>, Outcome> {
    e.read_buffer(b, 0, n)
}

/// `get_query_result_resource`: a single-span counter (copied on the
/// GPU), a query split by a flush and 32-bit types (computed on the CPU,
/// saturated), values of a multi-value query, and availability.
fn result_resource(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    program(&mut e)?;
    let buf = e.buffer(64, ResourceFlags::empty())?;
    e.subdata(&buf, 0, &[0xaa; 64])?;
    let one = create(&mut e, QueryType::OcclusionCounter, 0)?;
    let split = create(&mut e, QueryType::OcclusionCounter, 0)?;
    let so_stats = create(&mut e, QueryType::PipelineStatistics, 0)?;
    begin(&mut e, &one)?;
    begin(&mut e, &so_stats)?;
    band(&mut e, 0, 3)?; // 48
    end(&mut e, &one)?;
    begin(&mut e, &split)?;
    band(&mut e, 3, 4)?;
    flush(&mut e)?;
    band(&mut e, 4, 6)?; // 16 + 32
    end(&mut e, &split)?;
    end(&mut e, &so_stats)?;
    let w = |e: &mut Env, q: &Query, ty: QueryValueType, i: QueryResultIndex, off: u32| {
        step(
            "get_query_result_resource",
            e.ctx
                .get_query_result_resource(q, QueryFlags::WAIT, ty, i, &buf, off),
        )
    };
    use QueryResultIndex::{Availability, Value};
    w(&mut e, &one, QueryValueType::U64, Value(0), 0)?;
    w(&mut e, &split, QueryValueType::U64, Value(0), 8)?;
    w(&mut e, &split, QueryValueType::I32, Value(0), 16)?;
    w(&mut e, &so_stats, QueryValueType::U32, Value(0), 20)?; // vertices: 18
    w(&mut e, &so_stats, QueryValueType::I64, Value(1), 24)?; // primitives: 6
    w(&mut e, &one, QueryValueType::U32, Availability, 32)?;
    let got = bytes(&mut e, &buf, 40)?;
    let mut want = Vec::new();
    want.extend_from_slice(&48u64.to_le_bytes());
    want.extend_from_slice(&48u64.to_le_bytes());
    want.extend_from_slice(&48i32.to_le_bytes());
    want.extend_from_slice(&18u32.to_le_bytes());
    want.extend_from_slice(&6i64.to_le_bytes());
    want.extend_from_slice(&1u32.to_le_bytes());
    want.extend_from_slice(&[0xaa; 4]);
    if got != want {
        return Err(Outcome::fail(format!(
            "results in the buffer: expected {want:?}, got {got:?}"
        )));
    }
    Ok(())
}
result_case!("pipe.query.result_resource", result_resource);

/// `render_condition` on occlusion queries: a band is drawn unless the
/// predicate (samples passed) equals `condition`. One query's result is
/// copied on the GPU, one split by a flush is evaluated on the CPU.
fn render_condition(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    let t = program(&mut e)?;
    if !e.screen.caps().conditional_render {
        return Err(Outcome::skip("no conditional rendering"));
    }
    let zero = create(&mut e, QueryType::OcclusionPredicate, 0)?;
    let some = create(&mut e, QueryType::OcclusionCounter, 0)?;
    let split = create(&mut e, QueryType::OcclusionCounter, 0)?;
    // Nothing passes: a triangle outside the target.
    begin(&mut e, &zero)?;
    bind_vertices(
        &mut e,
        &[2.0, 2.0, 0.0, 1.0, 3.0, 2.0, 0.0, 1.0, 2.0, 3.0, 0.0, 1.0],
        None,
    )?;
    draw(&mut e, PrimType::Triangles, 0, 3, 1)?;
    end(&mut e, &zero)?;
    begin(&mut e, &some)?;
    band(&mut e, 15, 16)?;
    end(&mut e, &some)?;
    begin(&mut e, &split)?;
    flush(&mut e)?;
    band(&mut e, 14, 15)?;
    end(&mut e, &split)?;
    set_color(&mut e, GREEN)?;
    let cases: [(&Query, bool); 6] = [
        (&zero, false),  // false == false: skipped
        (&zero, true),   // drawn
        (&some, false),  // drawn
        (&some, true),   // skipped
        (&split, false), // drawn
        (&split, true),  // skipped
    ];
    for (i, (q, condition)) in cases.iter().enumerate() {
        step(
            "render_condition",
            e.ctx
                .render_condition(Some(q), *condition, RenderCondMode::Wait),
        )?;
        band(&mut e, i as u32 * 2, i as u32 * 2 + 2)?;
    }
    step(
        "render_condition(None)",
        e.ctx.render_condition(None, false, RenderCondMode::Wait),
    )?;
    let drawn = [false, true, true, false, true, false];
    check_image(ctx, &mut e, &t, |x, _| {
        let i = (x / 2) as usize;
        Some(unorm(match i {
            0..=5 if drawn[i] => GREEN,
            0..=5 => BLACK,
            6 => BLACK,
            _ => RED,
        }))
    })
}
result_case!("pipe.query.render_condition", render_condition);

pub(crate) fn expect_invalid<T: std::fmt::Debug>(what: &str, r: Result<T, PipeError>) -> R {
    match r {
        Err(PipeError::InvalidArgument(_)) => Ok(()),
        other => Err(Outcome::fail(format!(
            "{what}: expected InvalidArgument, got {other:?}"
        ))),
    }
}

/// Misuse gets `InvalidArgument`, and the context goes on: a query
/// destroyed while its batch is pending, then a draw that still renders.
fn bad_input(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    let t = program(&mut e)?;
    expect_invalid(
        "stream 99",
        e.ctx.create_query(QueryType::PrimitivesGenerated, 99),
    )?;
    expect_invalid(
        "counter 11",
        e.ctx.create_query(QueryType::PipelineStatisticsSingle, 11),
    )?;
    expect_invalid(
        "index 1",
        e.ctx.create_query(QueryType::OcclusionCounter, 1),
    )?;
    let q = create(&mut e, QueryType::OcclusionCounter, 0)?;
    let ts = create(&mut e, QueryType::Timestamp, 0)?;
    expect_invalid("end before begin", e.ctx.end_query(&q))?;
    expect_invalid("result before begin", e.ctx.get_query_result(&q, true))?;
    expect_invalid("begin a timestamp", e.ctx.begin_query(&ts))?;
    begin(&mut e, &q)?;
    expect_invalid("begin twice", e.ctx.begin_query(&q))?;
    expect_invalid("result while active", e.ctx.get_query_result(&q, false))?;
    expect_invalid(
        "render_condition on an active query",
        e.ctx
            .render_condition(Some(&q), false, RenderCondMode::Wait),
    )?;
    expect_invalid(
        "render_condition on a timestamp",
        e.ctx
            .render_condition(Some(&ts), false, RenderCondMode::Wait),
    )?;
    band(&mut e, 0, 8)?;
    end(&mut e, &q)?;
    let small = e.buffer(8, ResourceFlags::empty())?;
    expect_invalid(
        "result past the buffer's end",
        e.ctx.get_query_result_resource(
            &q,
            QueryFlags::WAIT,
            QueryValueType::U64,
            QueryResultIndex::Value(0),
            &small,
            4,
        ),
    )?;
    expect_invalid(
        "value 1 of a counter",
        e.ctx.get_query_result_resource(
            &q,
            QueryFlags::WAIT,
            QueryValueType::U32,
            QueryResultIndex::Value(1),
            &small,
            0,
        ),
    )?;
    let mut other = e.other_context()?;
    expect_invalid("another context's query", other.begin_query(&q))?;
    drop(other);
    // Destroyed with its end pending in the current batch.
    let pending = create(&mut e, QueryType::OcclusionCounter, 0)?;
    begin(&mut e, &pending)?;
    band(&mut e, 8, 12)?;
    step("destroy_query", e.ctx.destroy_query(pending))?;
    // Destroyed while active, with another query of its kind running.
    let active = create(&mut e, QueryType::OcclusionCounter, 0)?;
    let survivor = create(&mut e, QueryType::OcclusionCounter, 0)?;
    begin(&mut e, &survivor)?;
    begin(&mut e, &active)?;
    step("destroy_query(active)", e.ctx.destroy_query(active))?;
    set_color(&mut e, GREEN)?;
    band(&mut e, 12, 16)?;
    end(&mut e, &survivor)?;
    expect("first query", result(&mut e, &q)?, QueryResult::U64(128))?;
    expect("survivor", result(&mut e, &survivor)?, QueryResult::U64(64))?;
    check_image(ctx, &mut e, &t, |x, _| {
        Some(unorm(if x < 12 { RED } else { GREEN }))
    })
}
result_case!("pipe.query.bad_input", bad_input);

/// A query the frontend drops while it is active, without
/// `destroy_query`: the context holds no reference of its own (it would
/// count forever), and another active query of its kind goes on counting.
fn dropped_while_active(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    program(&mut e)?;
    let dropped = create(&mut e, QueryType::OcclusionCounter, 0)?;
    let kept = create(&mut e, QueryType::OcclusionCounter, 0)?;
    begin(&mut e, &dropped)?;
    begin(&mut e, &kept)?;
    band(&mut e, 0, 2)?;
    let refs = Arc::strong_count(&dropped);
    if refs != 1 {
        return Err(Outcome::fail(format!(
            "an active query has {refs} strong references; the context should hold none"
        )));
    }
    drop(dropped);
    band(&mut e, 2, 4)?;
    flush(&mut e)?;
    band(&mut e, 4, 5)?;
    end(&mut e, &kept)?;
    expect("kept", result(&mut e, &kept)?, QueryResult::U64(5 * 16))
}
result_case!("pipe.query.dropped_while_active", dropped_while_active);

/// Pipeline statistics do not count the geometry shaders pipe-vk
/// generates (here: line stipple emulation, forced on): around two
/// stippled lines and two triangles through an application geometry
/// shader that emits each twice, GS invocations are the application's 2
/// and GS primitives its 4.
fn statistics_generated_gs(ctx: &mut TestContext) -> R {
    let mut e = crate::harness::env_with(ctx, |o| o.emulate_line_stipple = Some(true))?;
    program(&mut e)?;
    let q = create(&mut e, QueryType::PipelineStatistics, 0)?;
    begin(&mut e, &q)?;
    stippled_lines(&mut e, 0xff00)?;
    bind_rasterizer(&mut e, |r| r.half_pixel_center = true)?;
    crate::harness::bind_stage(&mut e, ShaderStage::Geometry, super::draw::GS_DUP)?;
    band(&mut e, 0, 4)?;
    step("unbind gs", e.ctx.bind_gs_state(None))?;
    end(&mut e, &q)?;
    let QueryResult::PipelineStatistics(s) = result(&mut e, &q)? else {
        return Err(Outcome::fail("statistics: wrong result kind"));
    };
    if (s.ia_primitives, s.gs_invocations, s.gs_primitives) != (4, 2, 4) {
        return Err(Outcome::fail(format!(
            "expected 4 input primitives, 2 geometry shader invocations and 4 primitives \
             (the generated stipple shader not counted), got {s:?}"
        )));
    }
    Ok(())
}
result_case!(
    "pipe.query.pipeline_statistics.generated_gs",
    statistics_generated_gs
);

/// Flushes and waits until the GPU is idle.
fn flush_and_wait(e: &mut Env) -> R {
    let f = step("flush", e.ctx.flush(FlushFlags::empty(), true))?
        .ok_or_else(|| Outcome::fail("flush returned no fence"))?;
    let done = step("fence_finish", e.screen.fence_finish(None, &f, u64::MAX))?;
    if done {
        Ok(())
    } else {
        Err(Outcome::fail("fence_finish(infinite) returned false"))
    }
}

/// A query active across many batches: each flush ends one of its Vulkan
/// queries, and once it holds many, those of completed batches are read
/// into its sums and released (`FOLD_SPANS` in pipe-vk's query.rs). The
/// result still counts every span: 40 bands of 16 pixels for the
/// occlusion counter; for the statistics, 2 input primitives per band
/// and per stippled line pair, and no geometry-shader invocations,
/// although every third batch ran pipe-vk's line-stipple geometry shader
/// (its counters are left out also from folded spans).
fn many_spans(ctx: &mut TestContext) -> R {
    let mut e = crate::harness::env_with(ctx, |o| o.emulate_line_stipple = Some(true))?;
    program(&mut e)?;
    const N: u32 = 40;
    let q = create(&mut e, QueryType::OcclusionCounter, 0)?;
    begin(&mut e, &q)?;
    for i in 0..N {
        band(&mut e, i % 16, i % 16 + 1)?;
        if i % 2 == 0 {
            flush_and_wait(&mut e)?;
        } else {
            flush(&mut e)?;
        }
    }
    end(&mut e, &q)?;
    let r = result(&mut e, &q)?;
    expect(
        "occlusion over 40 batches",
        r,
        QueryResult::U64(16 * u64::from(N)),
    )?;

    let s = create(&mut e, QueryType::PipelineStatistics, 0)?;
    begin(&mut e, &s)?;
    let lines = [
        -0.9, -0.5, 0.0, 1.0, 0.9, -0.5, 0.0, 1.0, //
        -0.9, 0.5, 0.0, 1.0, 0.9, 0.5, 0.0, 1.0,
    ];
    let mut stippled = 0u64;
    for i in 0..N {
        if i % 3 == 0 {
            bind_rasterizer(&mut e, |r| {
                r.line_stipple_enable = true;
                r.line_stipple_pattern = 0xff00;
                r.half_pixel_center = true;
            })?;
            bind_vertices(&mut e, &lines, None)?;
            draw(&mut e, PrimType::Lines, 0, 4, 1)?;
            bind_rasterizer(&mut e, |r| r.half_pixel_center = true)?;
            stippled += 1;
        } else {
            band(&mut e, 0, 1)?;
        }
        flush_and_wait(&mut e)?;
    }
    end(&mut e, &s)?;
    let QueryResult::PipelineStatistics(st) = result(&mut e, &s)? else {
        return Err(Outcome::fail("statistics: wrong result kind"));
    };
    let want_ia = 2 * u64::from(N);
    if (st.ia_primitives, st.gs_invocations, st.gs_primitives) != (want_ia, 0, 0) {
        return Err(Outcome::fail(format!(
            "expected {want_ia} input primitives ({stippled} stippled line pairs) and no \
             geometry-shader work, got {st:?}"
        )));
    }
    Ok(())
}
result_case!("pipe.query.many_spans", many_spans);

/// Stream-output queries count only while stream output is active, also
/// when a `PRIMITIVES_GENERATED` query (which counts without it) is
/// active beside them.
fn streamout_inactive(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    let (_b, t) = capture_rig(&mut e, 4)?;
    let generated = create(&mut e, QueryType::PrimitivesGenerated, 0)?;
    let stats = create(&mut e, QueryType::SoStatistics, 0)?;
    let overflow = create(&mut e, QueryType::SoOverflowPredicate, 0)?;
    let any = create(&mut e, QueryType::SoOverflowAnyPredicate, 0)?;
    for q in [&generated, &stats, &overflow, &any] {
        begin(&mut e, q)?;
    }
    // 3 points with no target bound: generated, not captured.
    so::bind_verts(&mut e, 0, 3)?;
    so::draw(&mut e, PrimType::Points, 3)?;
    // 2 captured.
    so::set_targets(&mut e, &[&t], &[Some(0)])?;
    so::bind_verts(&mut e, 3, 2)?;
    so::draw(&mut e, PrimType::Points, 2)?;
    so::set_targets(&mut e, &[], &[])?;
    so::draw(&mut e, PrimType::Points, 2)?;
    for q in [&generated, &stats, &overflow, &any] {
        end(&mut e, q)?;
    }
    expect(
        "statistics",
        result(&mut e, &stats)?,
        QueryResult::SoStatistics {
            num_primitives_written: 2,
            primitives_storage_needed: 2,
        },
    )?;
    expect(
        "overflow",
        result(&mut e, &overflow)?,
        QueryResult::Bool(false),
    )?;
    expect(
        "any stream",
        result(&mut e, &any)?,
        QueryResult::Bool(false),
    )?;
    expect(
        "generated",
        result(&mut e, &generated)?,
        QueryResult::U64(7),
    )
}
result_case!("pipe.query.streamout_inactive", streamout_inactive);

/// A query whose span began outside any rendering instance, a second
/// one begun inside the next instance, then a draw that must end that
/// instance for a barrier (its vertices are what the draw before
/// captured): the draw begins the second span again in its new instance
/// and leaves the first running. pipe-vk restarted both, and ending the
/// first (begun outside) ended the new instance under the draw
/// (VUID-vkCmdDraw-renderpass; found by
/// `pipe.draw.state_fuzz.diff.no_dynamic.seed_102`).
///
/// With `statistics`, `PRIMITIVES_GENERATED` is counted through pipeline
/// statistics (`PIPE_VK_DEBUG=no_primitives_generated_query`), whose
/// span binds lavapipe's dummy compute pipeline, inside the capturing
/// draw's instance: binding a pipeline while transform feedback was
/// active was VUID-vkCmdBindPipeline-None-02323.
fn spans_across_barrier(ctx: &mut TestContext, statistics: bool) -> R {
    let mut e = crate::harness::env_with(ctx, |o| {
        if statistics {
            o.no_primitives_generated_query = Some(true);
        }
    })?;
    let (b, t) = capture_rig(&mut e, 8)?;
    let occlusion = create(&mut e, QueryType::OcclusionCounter, 0)?;
    let generated = create(&mut e, QueryType::PrimitivesGenerated, 0)?;
    flush(&mut e)?;
    // No instance is open: this span begins outside.
    begin(&mut e, &occlusion)?;
    so::set_targets(&mut e, &[&t], &[Some(0)])?;
    so::bind_verts(&mut e, 0, 3)?;
    so::draw(&mut e, PrimType::Points, 3)?;
    // Inside the draw's instance.
    begin(&mut e, &generated)?;
    so::set_targets(&mut e, &[], &[])?;
    // The captured records (5 words a point: the position first) as
    // positions and attributes.
    crate::harness::bind_position_and_attribute(&mut e, 20)?;
    step(
        "vbufs",
        e.ctx.set_vertex_buffers(&[pipe_core::state::VertexBuffer {
            buffer: Some(pipe_core::state::VertexBufferSource::Resource(b)),
            buffer_offset: 0,
        }]),
    )?;
    so::draw(&mut e, PrimType::Points, 3)?;
    end(&mut e, &generated)?;
    end(&mut e, &occlusion)?;
    expect(
        "generated",
        result(&mut e, &generated)?,
        QueryResult::U64(3),
    )?;
    match result(&mut e, &occlusion)? {
        QueryResult::U64(n) if n > 0 => Ok(()),
        r => Err(Outcome::fail(format!(
            "occlusion: expected samples from both draws, got {r:?}"
        ))),
    }
}
crate::bool_cases!(
    spans_across_barrier,
    "pipe.query.spans_across_barrier",
    "pipe.query.spans_across_barrier.statistics"
);
