//! `pipe.draw.state_fuzz.diff.<switches>.seed_<N>`: the state fuzz as a
//! differential test of pipe-vk's alternative paths.
//!
//! The plain seeds check that random valid state draws without a failed
//! call or a layer message, but not what it draws. Here a seed runs twice
//! in one process, on two screens: once with no debug switch (the paths
//! lavapipe takes) and once with the case's switches (the paths of
//! devices without an extension or feature: baked pipeline state, the
//! staging uploads, vertex fetch fix-ups, unmerged draws, CPU-widened
//! indices, shader discards for window rectangles, ...). Each switch
//! changes how pipe-vk records a draw, never what GL says it draws, so
//! after every iteration both runs must hold the same bytes in:
//! - every colour and depth/stencil buffer the iteration bound
//!   (multisampled ones through a resolving blit, which both runs take
//!   alike: the blit is not what is compared, the samples are);
//! - the stream-output buffer;
//! - the results of the queries whose value GL defines (occlusion counts
//!   and predicates, primitives emitted, overflow).
//!
//! The first iteration that differs fails the case, with the state of
//! the iteration and the first differing pixel; later iterations may
//! differ only because of it (buffers keep their contents).
//!
//! One switch is left out, as it changes what is drawn on purpose:
//! `emulate_line_stipple` (the emulation restarts the pattern at every
//! segment of a strip, as Zink's, where lavapipe continues it; see
//! `spirv_gen::passes::line_stipple`).
//!
//! What makes both runs alike: the iterations take the same random
//! stream (the iteration's description must match, or the case fails
//! as diverged), every new surface is cleared when it is made and the
//! stream-output buffer is zeroed, since their first contents are
//! undefined, and NaNs of float buffers compare as one (GL leaves their
//! payloads open).
//!
//! What the first seeds found, each with a focused case: lavapipe ran
//! multi-draws instance by instance (`pipe.draw.merge.instance_order.*`),
//! drew garbage for single-sampled smooth lines from geometry or
//! tessellation (`pipe.draw.state_fuzz.smooth_lines_from_geometry.*`;
//! the smooth-line stage `DeviceShared::device_smooth_lines`
//! avoids) and counted
//! stream-output queries without capture while a primitives-generated
//! query ran (`pipe.query.streamout_inactive`); pipe-vk drew outside any
//! rendering instance when a query span begun outside one met a barrier
//! (`pipe.query.spans_across_barrier`).
//!
//! To reduce a difference: `PIPE_CTS_STATE_FUZZ_ITERATIONS` and
//! `PIPE_CTS_STATE_FUZZ_SEED` as for the plain seeds,
//! `PIPE_CTS_STATE_FUZZ_DRAW_CALLS=N` to make only the first N
//! `draw_vbo` calls of each run, `PIPE_CTS_STATE_FUZZ_DIFF_DUMP=1` to
//! print every differing pixel, and `PIPE_CTS_STATE_FUZZ_DIFF_CONTROL=1`
//! to run both runs with the case's switches: a difference then is not
//! deterministic (how the smooth-line fault showed).

use std::collections::HashMap;

use pipe_core::blit::BlitSurface;
use pipe_core::flags::{BlitMask, ClearFlags, MapFlags};
use pipe_core::query::{QueryResult, QueryType};
use pipe_core::resource::{BindFlags, PipeBox, ResourceTemplate};
use pipe_core::state::{ColorUnion, FramebufferState};
use pipe_core::view::Surface;
use pipe_core::{Format, PipeError, Resource};

use super::{health_check, new_fuzz, run_iterations, seed_override, Fuzz, Switches, H, R, W};
use crate::harness::step;
use crate::{Outcome, TestContext};

/// What one run recorded.
#[derive(Default)]
pub(super) struct Recorder {
    /// The buffers the current iteration bound, by name.
    targets: Vec<(String, Surface)>,
    /// Query results read in the current iteration.
    queries: Vec<String>,
    /// Single-sample textures multisampled buffers resolve into, by
    /// format.
    resolved: HashMap<Format, Resource>,
    snaps: Vec<Snap>,
}

/// One iteration's outcome.
struct Snap {
    iteration: u32,
    desc: String,
    /// (what, bytes): the bound buffers and the stream-output buffer.
    images: Vec<(String, Vec<u8>)>,
    queries: Vec<String>,
}

impl Recorder {
    /// The iteration's framebuffer.
    pub(super) fn targets(&mut self, fb: &FramebufferState) {
        self.targets.clear();
        let samples = |s: &Surface| s.desc().texture.desc().nr_samples.max(1);
        for (i, s) in fb.cbufs.iter().enumerate() {
            if let Some(s) = s {
                let what = format!("cbuf {i} {}x", samples(s));
                self.targets.push((what, s.clone()));
            }
        }
        if let Some(s) = &fb.zsbuf {
            self.targets
                .push((format!("zsbuf {}x", samples(s)), s.clone()));
        }
    }

    /// Results of the queries GL defines the values of; pipeline
    /// statistics and primitives generated count what pipe-vk draws
    /// (rewritten primitives, generated geometry shaders), times and
    /// timestamps vary.
    pub(super) fn query_results(&mut self, results: &HashMap<QueryType, QueryResult>) {
        use QueryType as T;
        for (ty, v) in results {
            if matches!(
                ty,
                T::OcclusionCounter
                    | T::OcclusionPredicate
                    | T::PrimitivesEmitted
                    | T::SoOverflowPredicate
            ) {
                self.queries.push(format!("{ty:?} = {v:?}"));
            }
        }
        self.queries.sort();
    }
}

/// Clears a surface just made (colour to zero bits, depth 0.5, stencil
/// 0x5a), so that both runs start it alike.
pub(super) fn clear_new_surface(f: &mut Fuzz, s: &Surface) {
    let format = s.desc().template.format;
    let r = if format.is_depth_or_stencil() {
        let flags = if format.has_stencil() {
            ClearFlags::DEPTHSTENCIL
        } else {
            ClearFlags::DEPTH
        };
        f.e.ctx
            .clear_depth_stencil(s, flags, 0.5, 0x5a, 0, 0, W, H, false)
    } else {
        f.e.ctx
            .clear_render_target(s, &ColorUnion::default(), 0, 0, W, H, false)
    };
    f.log.ok("diff: clear of a new buffer", r);
}

/// Reads back what the iteration left.
pub(super) fn snapshot(f: &mut Fuzz) {
    let Some(mut d) = f.diff.take() else {
        return;
    };
    let mut images = Vec::new();
    for (what, s) in std::mem::take(&mut d.targets) {
        let mut bytes = read_surface(f, &mut d, &s);
        canonical_nans(s.desc().template.format, &mut bytes);
        images.push((format!("{what} ({:?})", s.desc().template.format), bytes));
    }
    let so = f.so_buffer.clone();
    let len = so.desc().width0;
    images.push((
        "stream-output buffer".into(),
        read(f, &so, &PipeBox::range(0, len)),
    ));
    d.snaps.push(Snap {
        iteration: f.log.iteration,
        desc: f.log.desc.clone(),
        images,
        queries: std::mem::take(&mut d.queries),
    });
    f.diff = Some(d);
}

/// Writes every NaN of a float colour format as one NaN: GL leaves NaN
/// payloads open, and LLVM propagates whichever operand's payload the
/// code it generated happens to take (seed 103 drew 0xffffffff without
/// switches, 0xffff4000 with vertex fix-ups).
fn canonical_nans(format: Format, bytes: &mut [u8]) {
    if !format.is_float() || format.is_depth_or_stencil() {
        return;
    }
    let d = format.desc();
    match d.block.bits / u32::from(d.nr_channels.max(1)) {
        32 => {
            for w in bytes.chunks_exact_mut(4) {
                let v = f32::from_le_bytes([w[0], w[1], w[2], w[3]]);
                if v.is_nan() {
                    w.copy_from_slice(&f32::NAN.to_le_bytes());
                }
            }
        }
        16 => {
            for h in bytes.chunks_exact_mut(2) {
                let v = u16::from_le_bytes([h[0], h[1]]);
                if v & 0x7c00 == 0x7c00 && v & 0x03ff != 0 {
                    h.copy_from_slice(&0x7e00u16.to_le_bytes());
                }
            }
        }
        _ => {}
    }
}

/// The bytes of a surface's texture, resolved first if multisampled.
fn read_surface(f: &mut Fuzz, d: &mut Recorder, s: &Surface) -> Vec<u8> {
    let tex = s.desc().texture.clone();
    let format = s.desc().template.format;
    if tex.desc().nr_samples <= 1 {
        return read(f, &tex, &PipeBox::rect(0, 0, W, H));
    }
    let zs = format.is_depth_or_stencil();
    let single = match d.resolved.get(&format) {
        Some(t) => t.clone(),
        None => {
            let bind = if zs {
                BindFlags::DEPTH_STENCIL
            } else {
                BindFlags::RENDER_TARGET
            };
            let t = ResourceTemplate::texture_2d(format, W, H, bind | BindFlags::SAMPLER_VIEW);
            let Some(t) = f
                .log
                .ok("diff: resource_create", f.e.screen.resource_create(&t))
            else {
                return Vec::new();
            };
            d.resolved.insert(format, t.clone());
            t
        }
    };
    let surf = |resource: &Resource| BlitSurface {
        resource: resource.clone(),
        level: 0,
        bx: PipeBox::rect(0, 0, W, H),
        format,
    };
    let mut info = crate::harness::blit_info(surf(&single), surf(&tex));
    if zs {
        // Sample 0 of depth and stencil (GL's resolve of them).
        info.mask = if format.has_stencil() {
            BlitMask::Z | BlitMask::S
        } else {
            BlitMask::Z
        };
    }
    match f.e.ctx.blit(&info) {
        Ok(()) => read(f, &single, &PipeBox::rect(0, 0, W, H)),
        Err(PipeError::Unsupported(m)) => format!("(no resolve: {m})").into_bytes(),
        Err(e) => {
            f.log.ok::<()>("diff: resolving blit", Err(e));
            Vec::new()
        }
    }
}

/// The bytes of `bx` of level 0, rows packed; the error's text where
/// the resource cannot be mapped (alike in both runs).
fn read(f: &mut Fuzz, res: &Resource, bx: &PipeBox) -> Vec<u8> {
    let t = match f.e.ctx.transfer_map(res, 0, MapFlags::READ, bx) {
        Ok(t) => t,
        Err(PipeError::Unsupported(m)) => return format!("(no map: {m})").into_bytes(),
        Err(e) => {
            f.log.ok::<()>("diff: transfer_map(READ)", Err(e));
            return Vec::new();
        }
    };
    let block = res.desc().format.block();
    let row = (bx.width as usize).div_ceil(block.width as usize) * (block.bits / 8) as usize;
    let rows = (bx.height as usize).div_ceil(block.height as usize);
    let bytes = t.to_vec();
    let mut out = Vec::with_capacity(row * rows);
    for y in 0..rows {
        let s = y * t.stride();
        out.extend_from_slice(bytes.get(s..s + row).unwrap_or_default());
    }
    f.log.ok("diff: transfer_unmap", f.e.ctx.transfer_unmap(t));
    out
}

/// One run of `seed` with `sw`, recording every iteration.
fn record(ctx: &TestContext, seed: u64, sw: Switches) -> Result<Vec<Snap>, Outcome> {
    eprintln!("state_fuzz diff: run with {}", switch_names(sw));
    let mut f = new_fuzz(ctx, seed, sw, true)?;
    f.diff = Some(Recorder::default());
    let so = f.so_buffer.clone();
    let zeros = vec![0u8; so.desc().width0 as usize];
    step(
        "diff: zero the stream-output buffer",
        f.e.ctx.buffer_subdata(&so, MapFlags::WRITE, 0, &zeros),
    )?;
    run_iterations(&mut f, seed).map_err(|o| in_run(o, sw))?;
    health_check(&mut f).map_err(|o| in_run(o, sw))?;
    Ok(f.diff.take().map(|d| d.snaps).unwrap_or_default())
}

/// The switches set in `sw`, as `PIPE_VK_DEBUG` would name them.
fn switch_names(sw: Switches) -> String {
    // The derived Debug lists every field as `name: bool`.
    let all = format!("{sw:?}");
    let on: Vec<&str> = all
        .trim_start_matches("Switches {")
        .trim_end_matches('}')
        .split(',')
        .filter_map(|f| f.trim().strip_suffix(": true"))
        .collect();
    if on.is_empty() {
        "no switches".into()
    } else {
        on.join(",")
    }
}

fn in_run(o: Outcome, sw: Switches) -> Outcome {
    match o {
        Outcome::Fail(m) => Outcome::fail(format!("in the run with {}: {m}", switch_names(sw))),
        o => o,
    }
}

/// Runs `seed` without switches and with `sw`, and compares.
pub(super) fn run(ctx: &mut TestContext, seed: u64, sw: Switches) -> R {
    let seed = seed_override(seed);
    // PIPE_CTS_STATE_FUZZ_DIFF_CONTROL=1 runs both runs with the case's
    // switches: what differs then is not deterministic.
    let control = std::env::var_os("PIPE_CTS_STATE_FUZZ_DIFF_CONTROL").is_some();
    let reference = record(ctx, seed, if control { sw } else { Switches::default() })?;
    let other = record(ctx, seed, sw)?;
    // The shader's fetch conversions (`vertex_fixups`) may round a
    // normalized or scaled attribute one unit in the last place away from
    // the device's fetch (Vulkan leaves the conversion's rounding open:
    // an NVIDIA H100 differed by one, differential seed 103), which the
    // captured vertices show as they are.
    let so_ulps = if sw.vertex_fixups { 2 } else { 0 };
    compare(&reference, &other, so_ulps)
}

/// Whether buffer `what` holds the same in both runs: the same bytes, or
/// for the stream-output buffer with `so_ulps`, 32-bit words that are
/// floats of one sign at most `so_ulps` units in the last place apart.
fn alike(what: &str, x: &[u8], y: &[u8], so_ulps: u32) -> bool {
    if x == y {
        return true;
    }
    if so_ulps == 0 || what != "stream-output buffer" || x.len() != y.len() {
        return false;
    }
    x.chunks(4).zip(y.chunks(4)).all(|(a, b)| {
        let word = |c: &[u8]| c.try_into().map(u32::from_le_bytes).ok();
        match (word(a), word(b)) {
            (Some(a), Some(b)) => {
                let (fa, fb) = (f32::from_bits(a), f32::from_bits(b));
                a == b
                    || (fa.is_finite()
                        && fb.is_finite()
                        && (a >> 31) == (b >> 31)
                        && a.abs_diff(b) <= so_ulps)
            }
            _ => a == b,
        }
    })
}

/// The first iteration whose outcome differs, as a failure (`so_ulps`:
/// see [`alike`]).
fn compare(reference: &[Snap], other: &[Snap], so_ulps: u32) -> R {
    if reference.len() != other.len() {
        return Err(Outcome::fail(format!(
            "the runs recorded {} and {} iterations",
            reference.len(),
            other.len()
        )));
    }
    // Iterations that changed a buffer they bound (so that a pass means
    // something: most iterations draw, some are clipped, culled, masked
    // or discarded away).
    let mut drew = 0;
    let mut last: HashMap<&str, &[u8]> = HashMap::new();
    for (a, b) in reference.iter().zip(other) {
        let it = a.iteration;
        drew += usize::from(a.images.iter().any(|(what, x)| {
            last.insert(what, x)
                .map_or(x.iter().any(|&b| b != 0), |old| old != x.as_slice())
        }));
        if a.desc != b.desc {
            return Err(Outcome::fail(format!(
                "iteration {it} diverged (the runs took different state):\n  \
                 without switches: {}\n  with them: {}",
                a.desc, b.desc
            )));
        }
        if a.queries != b.queries {
            return Err(Outcome::fail(format!(
                "iteration {it}: query results differ: {:?} without switches, {:?} with them\n  \
                 state: {}",
                a.queries, b.queries, a.desc
            )));
        }
        let differ: Vec<&str> = a
            .images
            .iter()
            .zip(&b.images)
            .filter(|((what, x), (_, y))| !alike(what, x, y, so_ulps))
            .map(|((what, _), _)| what.as_str())
            .collect();
        for ((what, x), (_, y)) in a.images.iter().zip(&b.images) {
            if alike(what, x, y, so_ulps) {
                continue;
            }
            if std::env::var_os("PIPE_CTS_STATE_FUZZ_DIFF_DUMP").is_some() {
                let bpp = (x.len() / (W * H) as usize).max(1);
                for (i, (p, q)) in x.chunks(bpp).zip(y.chunks(bpp)).enumerate() {
                    if p != q {
                        eprintln!(
                            "state_fuzz diff: {what} pixel ({}, {}): {p:?} / {q:?}",
                            i % W as usize,
                            i / W as usize
                        );
                    }
                }
            }
            let at = x.iter().zip(y).position(|(p, q)| p != q).unwrap_or(0);
            let texel = at / (x.len().max(1) / (W * H) as usize).max(1);
            let (px, py) = (texel % W as usize, texel / W as usize);
            let differing = x.iter().zip(y).filter(|(p, q)| p != q).count();
            return Err(Outcome::fail(format!(
                "iteration {it}: {} differ{}; {what}: {differing} bytes ({} and {} long); first at \
                 byte {at} (pixel {px}, {py} where it is a {W}x{H} image): {:?} without \
                 switches, {:?} with them\n  state: {}",
                differ.join(", "),
                if differ.len() == 1 { "s" } else { "" },
                x.len(),
                y.len(),
                x.get(at..(at + 8).min(x.len())).unwrap_or_default(),
                y.get(at..(at + 8).min(y.len())).unwrap_or_default(),
                a.desc
            )));
        }
    }
    eprintln!(
        "state_fuzz diff: {} iterations alike in both runs; {drew} of them changed a buffer \
         they bound",
        reference.len()
    );
    Ok(())
}
