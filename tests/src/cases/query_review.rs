//! `pipe.query_review.*`: queries in the orders and around the commands
//! that split or reopen rendering instances, which `pipe.query.*` does not
//! reach (a review of the query implementation).
//!
//! Expected values follow from the draws alone, as in `query.rs`: a band
//! of pixel columns `x0..x1` of the 16x16 target covers `(x1 - x0) * 16`
//! samples and is two triangles.

use pipe_core::query::*;
use pipe_core::resource::ResourceFlags;

use super::query::{band, begin, create, end, expect, program, result, R};
use crate::harness::{env, step};
use crate::{result_case, TestContext};

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
