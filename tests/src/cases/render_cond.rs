//! `pipe.render_condition.*`: conditional rendering on a value in memory
//! (`render_condition_mem`), following the spec's "Conditional Rendering":
//! commands are skipped when "value != 0" equals `condition`; `draw_vbo`
//! and `clear` always honour the condition; `blit`, `clear_render_target`
//! and `clear_depth_stencil` honour it when asked; `resource_copy_region`
//! and `clear_buffer` never do. Expected pixels follow from that rule
//! alone: a predicated command either wrote its known colour or left the
//! known previous contents.

use pipe_core::blit::{BlitInfo, BlitSurface};
use pipe_core::draw::PrimType;
use pipe_core::flags::{BlitMask, ClearFlags, MapFlags};
use pipe_core::resource::{BindFlags, PipeBox, ResourceFlags, ResourceTemplate};
use pipe_core::state::{ColorUnion, TexFilter};
use pipe_core::view::SurfaceTemplate;
use pipe_core::{Format, PipeError, Resource};

use super::draw::{bind_vertices, check_image, clear_color, draw, setup, Target};
use crate::harness::{
    bind_program, env, set_color, step, unorm, Env, FS_UBO_COLOR, VS_PASSTHROUGH,
};
use crate::{both_paths, Outcome, TestContext};

type R = Result<(), Outcome>;

const W: u32 = 16;
const BLACK: [f32; 4] = [0.0, 0.0, 0.0, 1.0];
const RED: [f32; 4] = [1.0, 0.0, 0.0, 1.0];
const GREEN: [f32; 4] = [0.0, 1.0, 0.0, 1.0];
const BLUE: [f32; 4] = [0.0, 0.0, 1.0, 1.0];

/// Two triangles covering pixel columns `x0..x1` (all rows). Edges lie on
/// pixel boundaries, so no pixel centre is on an edge.
fn columns(x0: u32, x1: u32) -> Vec<f32> {
    let nx = |x: u32| -1.0 + 2.0 * x as f32 / W as f32;
    let (a, b) = (nx(x0), nx(x1));
    vec![
        a, -1.0, 0.0, 1.0, b, -1.0, 0.0, 1.0, a, 1.0, 0.0, 1.0, //
        a, 1.0, 0.0, 1.0, b, -1.0, 0.0, 1.0, b, 1.0, 0.0, 1.0,
    ]
}

/// A 16-byte predicate buffer holding `values` (u32 each).
fn predicate(e: &mut Env, values: [u32; 4]) -> Result<Resource, Outcome> {
    let buf = e.buffer(16, ResourceFlags::empty())?;
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_ne_bytes()).collect();
    step(
        "buffer_subdata(predicate)",
        e.ctx.buffer_subdata(&buf, MapFlags::empty(), 0, &bytes),
    )?;
    Ok(buf)
}

fn cond(e: &mut Env, buf: Option<&Resource>, offset: u32, condition: bool) -> R {
    step(
        "render_condition_mem",
        e.ctx.render_condition_mem(buf, offset, condition),
    )
}

/// A drawing program with a colour from constant buffer 0, and a 16x16
/// RGBA8 target.
fn program(e: &mut Env) -> Result<Target, Outcome> {
    let t = setup(e, false)?;
    bind_program(e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    Ok(t)
}

/// The spec's truth table: four predicated draws into four column bands,
/// one per (value, condition) pair; a band is red exactly when
/// `(value != 0) != condition`.
fn draw_truth_table(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let t = program(&mut e)?;
    clear_color(&mut e, BLACK)?;
    let buf = predicate(&mut e, [0, 7, 0, 0])?;
    set_color(&mut e, RED)?;
    let cases = [(0u32, false), (0, true), (4, false), (4, true)];
    for (i, &(offset, condition)) in cases.iter().enumerate() {
        cond(&mut e, Some(&buf), offset, condition)?;
        let x0 = i as u32 * 4;
        bind_vertices(&mut e, &columns(x0, x0 + 4), None)?;
        draw(&mut e, PrimType::Triangles, 0, 6, 1)?;
    }
    cond(&mut e, None, 0, false)?;
    let runs = |band: usize| {
        let (offset, condition) = cases[band];
        let nonzero = offset == 4;
        nonzero != condition
    };
    check_image(ctx, &mut e, &t, |x, _| {
        Some(unorm(if runs(x as usize / 4) { RED } else { BLACK }))
    })
}
both_paths!("pipe.render_condition.draw.truth_table", draw_truth_table);

/// The predicate changes between draws of one rendering instance, and is
/// written by the GPU (`clear_buffer`) in the same batch as the draw that
/// reads it: the predicate read needs its barrier.
fn draw_changes_in_pass(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let t = program(&mut e)?;
    clear_color(&mut e, BLACK)?;
    let buf = predicate(&mut e, [1, 0, 0, 0])?;
    set_color(&mut e, RED)?;
    // Band 0: passes (value 1, condition false).
    cond(&mut e, Some(&buf), 0, false)?;
    bind_vertices(&mut e, &columns(0, 4), None)?;
    draw(&mut e, PrimType::Triangles, 0, 6, 1)?;
    // Band 1: the GPU zeroes the value, so the same condition skips.
    step(
        "clear_buffer",
        e.ctx.clear_buffer(&buf, 0, 4, &[0, 0, 0, 0]),
    )?;
    bind_vertices(&mut e, &columns(4, 8), None)?;
    draw(&mut e, PrimType::Triangles, 0, 6, 1)?;
    // Band 2: inverted condition on the zero value: runs.
    cond(&mut e, Some(&buf), 0, true)?;
    set_color(&mut e, GREEN)?;
    bind_vertices(&mut e, &columns(8, 12), None)?;
    draw(&mut e, PrimType::Triangles, 0, 6, 1)?;
    // Band 3: condition off: runs.
    cond(&mut e, None, 0, false)?;
    set_color(&mut e, BLUE)?;
    bind_vertices(&mut e, &columns(12, 16), None)?;
    draw(&mut e, PrimType::Triangles, 0, 6, 1)?;
    check_image(ctx, &mut e, &t, |x, _| {
        Some(unorm(match x / 4 {
            0 => RED,
            1 => BLACK,
            2 => GREEN,
            _ => BLUE,
        }))
    })
}
both_paths!(
    "pipe.render_condition.draw.changes_in_pass",
    draw_changes_in_pass
);

/// `clear` always honours the condition, whole or scissored.
fn clear_honours(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let t = program(&mut e)?;
    clear_color(&mut e, BLACK)?;
    let buf = predicate(&mut e, [0, 1, 0, 0])?;
    // Skipped: value 0, condition false.
    cond(&mut e, Some(&buf), 0, false)?;
    step(
        "clear(skipped)",
        e.ctx
            .clear(ClearFlags::COLOR0, None, &ColorUnion::from_f32(RED), 1.0, 0),
    )?;
    // Runs, scissored to the left half.
    cond(&mut e, Some(&buf), 4, false)?;
    let sc = pipe_core::state::ScissorState {
        minx: 0,
        miny: 0,
        maxx: 8,
        maxy: 16,
    };
    step(
        "clear(scissored)",
        e.ctx.clear(
            ClearFlags::COLOR0,
            Some(&sc),
            &ColorUnion::from_f32(GREEN),
            1.0,
            0,
        ),
    )?;
    cond(&mut e, None, 0, false)?;
    check_image(ctx, &mut e, &t, |x, _| {
        Some(unorm(if x < 8 { GREEN } else { BLACK }))
    })?;
    // A whole clear that runs.
    cond(&mut e, Some(&buf), 4, false)?;
    step(
        "clear(whole)",
        e.ctx.clear(
            ClearFlags::COLOR0,
            None,
            &ColorUnion::from_f32(BLUE),
            1.0,
            0,
        ),
    )?;
    cond(&mut e, None, 0, false)?;
    check_image(ctx, &mut e, &t, |_, _| Some(unorm(BLUE)))
}
both_paths!("pipe.render_condition.clear.honoured", clear_honours);

/// `clear_render_target` and `clear_depth_stencil` honour the condition
/// only when asked to.
fn surface_clears(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let t = setup(&mut e, true)?;
    let z = t.depth.clone().ok_or_else(|| Outcome::fail("no depth"))?;
    clear_color(&mut e, BLACK)?;
    let surf = |e: &mut Env, r: &Resource| {
        step(
            "create_surface",
            e.ctx.create_surface(
                r,
                &SurfaceTemplate {
                    format: r.desc().format,
                    level: 0,
                    first_layer: 0,
                    last_layer: 0,
                },
            ),
        )
    };
    let cs = surf(&mut e, &t.color)?;
    let zs = surf(&mut e, &z)?;
    let buf = predicate(&mut e, [0, 0, 0, 0])?;
    cond(&mut e, Some(&buf), 0, false)?; // fails: everything predicated is skipped
    let red = ColorUnion::from_f32(RED);
    step(
        "clear_render_target(predicated)",
        e.ctx.clear_render_target(&cs, &red, 0, 0, 8, 16, true),
    )?;
    step(
        "clear_render_target(unpredicated)",
        e.ctx.clear_render_target(&cs, &red, 8, 0, 8, 16, false),
    )?;
    step(
        "clear_depth_stencil(predicated)",
        e.ctx
            .clear_depth_stencil(&zs, ClearFlags::DEPTH, 0.25, 0, 0, 0, 8, 16, true),
    )?;
    step(
        "clear_depth_stencil(unpredicated)",
        e.ctx
            .clear_depth_stencil(&zs, ClearFlags::DEPTH, 0.5, 0, 8, 0, 8, 16, false),
    )?;
    cond(&mut e, None, 0, false)?;
    check_image(ctx, &mut e, &t, |x, _| {
        Some(unorm(if x < 8 { BLACK } else { RED }))
    })?;
    let depth = e.read_texture(&z, 0, &PipeBox::rect(0, 0, W, W))?;
    for (i, d) in depth.chunks_exact(4).enumerate() {
        let got = f32::from_ne_bytes([d[0], d[1], d[2], d[3]]);
        let want = if (i as u32 % W) < 8 { 1.0 } else { 0.5 };
        if got != want {
            return Err(Outcome::fail(format!(
                "depth at pixel {i}: {got}, expected {want}"
            )));
        }
    }
    Ok(())
}
both_paths!(
    "pipe.render_condition.surface_clears.enable_flag",
    surface_clears
);

fn rgba_texture(e: &mut Env, fill: [u8; 4]) -> Result<Resource, Outcome> {
    let t = ResourceTemplate::texture_2d(
        Format::R8G8B8A8Unorm,
        W,
        W,
        BindFlags::RENDER_TARGET | BindFlags::SAMPLER_VIEW,
    );
    let r = e.texture(&t)?;
    let data: Vec<u8> = fill
        .iter()
        .copied()
        .cycle()
        .take((W * W * 4) as usize)
        .collect();
    e.write_texture(&r, 0, &PipeBox::rect(0, 0, W, W), &data)?;
    Ok(r)
}

fn whole(r: &Resource) -> BlitSurface {
    let d = r.desc();
    BlitSurface {
        resource: r.clone(),
        level: 0,
        bx: PipeBox::rect(0, 0, d.width0, d.height0),
        format: d.format,
    }
}

fn blit_info(dst: &Resource, src: &Resource, enable: bool) -> BlitInfo {
    BlitInfo {
        dst: whole(dst),
        src: whole(src),
        mask: BlitMask::RGBA,
        filter: TexFilter::Nearest,
        scissor: None,
        render_condition_enable: enable,
        alpha_blend: false,
        window_rectangle_include: false,
        window_rectangles: Vec::new(),
    }
}

fn expect_fill(e: &mut Env, r: &Resource, what: &str, px: &[u8]) -> R {
    let d = r.desc();
    let got = e.read_texture(r, 0, &PipeBox::rect(0, 0, d.width0, d.height0))?;
    if got.chunks_exact(px.len()).all(|c| c == px) {
        Ok(())
    } else {
        Err(Outcome::fail(format!(
            "{what}: expected every texel {px:?}, got {:?}…",
            &got[..px.len().min(got.len())]
        )))
    }
}

/// `blit` honours the condition only with `render_condition_enable`
/// (a same-format copy, which is otherwise a transfer command).
fn blit_enable_flag(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let src = rgba_texture(&mut e, [10, 20, 30, 40])?;
    let a = rgba_texture(&mut e, [0, 0, 0, 0])?;
    let b = rgba_texture(&mut e, [0, 0, 0, 0])?;
    let c = rgba_texture(&mut e, [0, 0, 0, 0])?;
    let buf = predicate(&mut e, [0, 1, 0, 0])?;
    cond(&mut e, Some(&buf), 0, false)?; // fails
    step(
        "blit(predicated, fails)",
        e.ctx.blit(&blit_info(&a, &src, true)),
    )?;
    step(
        "blit(unpredicated)",
        e.ctx.blit(&blit_info(&b, &src, false)),
    )?;
    cond(&mut e, Some(&buf), 4, false)?; // passes
    step(
        "blit(predicated, passes)",
        e.ctx.blit(&blit_info(&c, &src, true)),
    )?;
    cond(&mut e, None, 0, false)?;
    expect_fill(&mut e, &a, "skipped blit", &[0, 0, 0, 0])?;
    expect_fill(&mut e, &b, "unpredicated blit", &[10, 20, 30, 40])?;
    expect_fill(&mut e, &c, "passing blit", &[10, 20, 30, 40])
}
both_paths!("pipe.render_condition.blit.enable_flag", blit_enable_flag);

/// A predicated blit the blitter cannot draw (into a compressed format)
/// is decided on the CPU; the predicate here is written by the GPU.
fn blit_compressed(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let t = ResourceTemplate::texture_2d(Format::Bc1RgbaUnorm, 8, 8, BindFlags::SAMPLER_VIEW);
    let src = e.texture(&t)?;
    let block = [0x12u8, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0];
    let data: Vec<u8> = block.iter().copied().cycle().take(4 * 8).collect();
    e.write_texture(&src, 0, &PipeBox::rect(0, 0, 8, 8), &data)?;
    let skipped = e.texture(&t)?;
    let copied = e.texture(&t)?;
    let zero = vec![0u8; 32];
    e.write_texture(&skipped, 0, &PipeBox::rect(0, 0, 8, 8), &zero)?;
    e.write_texture(&copied, 0, &PipeBox::rect(0, 0, 8, 8), &zero)?;
    let buf = predicate(&mut e, [5, 5, 0, 0])?;
    step(
        "clear_buffer",
        e.ctx.clear_buffer(&buf, 0, 4, &[0, 0, 0, 0]),
    )?;
    cond(&mut e, Some(&buf), 0, false)?; // the GPU made it 0: fails
    step("blit(fails)", e.ctx.blit(&blit_info(&skipped, &src, true)))?;
    cond(&mut e, Some(&buf), 4, false)?; // 5: passes
    step("blit(passes)", e.ctx.blit(&blit_info(&copied, &src, true)))?;
    cond(&mut e, None, 0, false)?;
    expect_fill(&mut e, &skipped, "skipped BC1 blit", &[0; 8])?;
    expect_fill(&mut e, &copied, "BC1 blit", &block)
}
both_paths!("pipe.render_condition.blit.cpu_decided", blit_compressed);

/// `resource_copy_region`, `clear_buffer` and `clear_texture` ignore the
/// condition.
fn not_predicated(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let src = rgba_texture(&mut e, [1, 2, 3, 4])?;
    let dst = rgba_texture(&mut e, [0, 0, 0, 0])?;
    let cleared = rgba_texture(&mut e, [0, 0, 0, 0])?;
    let buf = predicate(&mut e, [0, 0, 0, 0])?;
    let other = e.buffer(16, ResourceFlags::empty())?;
    cond(&mut e, Some(&buf), 0, false)?; // fails
    step(
        "resource_copy_region",
        e.ctx
            .resource_copy_region(&dst, 0, 0, 0, 0, &src, 0, &PipeBox::rect(0, 0, W, W)),
    )?;
    step(
        "clear_buffer",
        e.ctx.clear_buffer(&other, 0, 16, &[9, 9, 9, 9]),
    )?;
    step(
        "clear_texture",
        e.ctx
            .clear_texture(&cleared, 0, &PipeBox::rect(0, 0, W, W), &[5, 6, 7, 8]),
    )?;
    cond(&mut e, None, 0, false)?;
    expect_fill(&mut e, &dst, "copy", &[1, 2, 3, 4])?;
    expect_fill(&mut e, &cleared, "clear_texture", &[5, 6, 7, 8])?;
    let got = e.read_buffer(&other, 0, 16)?;
    if got != [9u8; 16] {
        return Err(Outcome::fail(format!("clear_buffer: {got:?}")));
    }
    Ok(())
}
both_paths!("pipe.render_condition.unpredicated_calls", not_predicated);

/// `generate_mipmap` ignores the condition, on both of its paths: a
/// transfer blit (RGBA8 UNORM) and the blitter's draws (RGBA8 UINT, which
/// Vulkan cannot blit with a filter). Every texel of level 0 is the same,
/// so level 1 is that texel whatever the filter.
fn mipmap_not_predicated(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let buf = predicate(&mut e, [0, 0, 0, 0])?;
    for format in [Format::R8G8B8A8Unorm, Format::R8G8B8A8Uint] {
        let t = ResourceTemplate {
            last_level: 1,
            ..ResourceTemplate::texture_2d(
                format,
                W,
                W,
                BindFlags::RENDER_TARGET | BindFlags::SAMPLER_VIEW,
            )
        };
        let r = e.texture(&t)?;
        let px = [11u8, 22, 33, 44];
        let l0: Vec<u8> = px
            .iter()
            .copied()
            .cycle()
            .take((W * W * 4) as usize)
            .collect();
        e.write_texture(&r, 0, &PipeBox::rect(0, 0, W, W), &l0)?;
        let h = W / 2;
        e.write_texture(
            &r,
            1,
            &PipeBox::rect(0, 0, h, h),
            &vec![0u8; (h * h * 4) as usize],
        )?;
        cond(&mut e, Some(&buf), 0, false)?; // fails
        let made = step(
            "generate_mipmap",
            e.ctx.generate_mipmap(&r, format, 0, 1, 0, 0),
        )?;
        cond(&mut e, None, 0, false)?;
        if !made {
            return Err(Outcome::fail(format!(
                "generate_mipmap of {format} returned false"
            )));
        }
        let got = e.read_texture(&r, 1, &PipeBox::rect(0, 0, h, h))?;
        if !got.chunks_exact(4).all(|c| c == px) {
            return Err(Outcome::fail(format!(
                "{format} level 1 under a failing condition: {:?}…, want {px:?}",
                &got[..4]
            )));
        }
    }
    Ok(())
}
both_paths!(
    "pipe.render_condition.generate_mipmap_unpredicated",
    mipmap_not_predicated
);

/// The predicate buffer is renamed (a whole-buffer `buffer_subdata` while
/// a predicated draw still reads it): the next draw reads the new
/// storage, as the condition names the resource, not its old storage.
fn predicate_renamed(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let t = program(&mut e)?;
    clear_color(&mut e, BLACK)?;
    let buf = predicate(&mut e, [0, 0, 0, 0])?;
    cond(&mut e, Some(&buf), 0, false)?; // 0: fails
    set_color(&mut e, RED)?;
    bind_vertices(&mut e, &columns(0, 8), None)?;
    draw(&mut e, PrimType::Triangles, 0, 6, 1)?;
    let one: Vec<u8> = [1u32, 1, 1, 1]
        .iter()
        .flat_map(|v| v.to_ne_bytes())
        .collect();
    step(
        "buffer_subdata(whole predicate)",
        e.ctx
            .buffer_subdata(&buf, MapFlags::DISCARD_WHOLE_RESOURCE, 0, &one),
    )?;
    set_color(&mut e, GREEN)?; // 1: passes
    bind_vertices(&mut e, &columns(8, 16), None)?;
    draw(&mut e, PrimType::Triangles, 0, 6, 1)?;
    cond(&mut e, None, 0, false)?;
    check_image(ctx, &mut e, &t, |x, _| {
        Some(unorm(if x < 8 { BLACK } else { GREEN }))
    })
}
both_paths!("pipe.render_condition.predicate_renamed", predicate_renamed);

/// Bad predicates are errors, and leave the previous state alone.
fn bad_input(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let t = program(&mut e)?;
    clear_color(&mut e, BLACK)?;
    let buf = predicate(&mut e, [0, 0, 0, 0])?;
    let tex = rgba_texture(&mut e, [0; 4])?;
    let bad: [(&str, &Resource, u32); 4] = [
        ("unaligned offset", &buf, 2),
        ("offset at the end", &buf, 16),
        ("offset beyond the end", &buf, 1 << 20),
        ("a texture", &tex, 0),
    ];
    for (what, r, off) in bad {
        match e.ctx.render_condition_mem(Some(r), off, false) {
            Err(PipeError::InvalidArgument(_)) => {}
            other => {
                return Err(Outcome::fail(format!(
                    "render_condition_mem with {what}: expected InvalidArgument, got {other:?}"
                )))
            }
        }
    }
    // No condition took effect: a draw runs.
    set_color(&mut e, RED)?;
    bind_vertices(&mut e, &columns(0, 16), None)?;
    draw(&mut e, PrimType::Triangles, 0, 6, 1)?;
    check_image(ctx, &mut e, &t, |_, _| Some(unorm(RED)))
}
both_paths!("pipe.render_condition.bad_input", bad_input);

/// `render_condition` with no query ends a condition set by
/// `render_condition_mem` (Gallium: either call with none makes rendering
/// unconditional), and `set_active_query_state`, which u_blitter calls
/// around its blits, is accepted: the left half is drawn while the
/// predicate (0, condition false) skips draws, and is not; the right half
/// after `render_condition(None)` is.
fn query_calls_without_queries(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let t = program(&mut e)?;
    clear_color(&mut e, BLACK)?;
    let buf = predicate(&mut e, [0, 0, 0, 0])?;
    set_color(&mut e, RED)?;
    cond(&mut e, Some(&buf), 0, false)?;
    step(
        "set_active_query_state",
        e.ctx.set_active_query_state(false),
    )?;
    step("set_active_query_state", e.ctx.set_active_query_state(true))?;
    bind_vertices(&mut e, &columns(0, 8), None)?;
    draw(&mut e, PrimType::Triangles, 0, 6, 1)?;
    step(
        "render_condition(None)",
        e.ctx
            .render_condition(None, false, pipe_core::query::RenderCondMode::Wait),
    )?;
    bind_vertices(&mut e, &columns(8, 16), None)?;
    draw(&mut e, PrimType::Triangles, 0, 6, 1)?;
    check_image(ctx, &mut e, &t, |x, _| {
        Some(unorm(if x >= 8 { RED } else { BLACK }))
    })
}
both_paths!(
    "pipe.render_condition.no_query_calls",
    query_calls_without_queries
);
