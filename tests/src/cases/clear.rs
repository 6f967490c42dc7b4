//! `pipe.clear.*` for surfaces and the framebuffer, deferred clears, and
//! `pipe.view.*` creation. Expected texels are computed here: UNORM8 is
//! `round(v * 255)`, floats and integers are their bits.

use std::sync::Arc;

use pipe_core::flags::{ClearFlags, MapFlags};
use pipe_core::resource::{BindFlags, PipeBox, ResourceTemplate, Target};
use pipe_core::state::{ColorUnion, FramebufferState, ScissorState};
use pipe_core::view::{SamplerViewTemplate, Surface, SurfaceTemplate, Swizzle, ViewRange};
use pipe_core::{Context, Format, Resource};

use crate::harness::{env, pattern, step, Env};
use crate::{both_paths, test_case, Outcome, TestContext};

type R = Result<(), Outcome>;

fn unorm8(v: f32) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0).round() as u8
}

fn rt(
    format: Format,
    target: Target,
    w: u32,
    h: u32,
    layers: u32,
    bind: BindFlags,
) -> ResourceTemplate {
    let mut t = ResourceTemplate::texture_2d(format, w, h, bind | BindFlags::SAMPLER_VIEW);
    t.target = target;
    t.array_size = layers;
    t
}

fn surface(
    e: &mut Env,
    res: &Resource,
    level: u32,
    first: u32,
    last: u32,
) -> Result<Surface, Outcome> {
    let t = SurfaceTemplate {
        format: res.desc().format,
        level,
        first_layer: first,
        last_layer: last,
    };
    step("create_surface", e.ctx.create_surface(res, &t))
}

fn fill(texel: &[u8], n: usize) -> Vec<u8> {
    texel
        .iter()
        .copied()
        .cycle()
        .take(texel.len() * n)
        .collect()
}

fn expect_eq(what: &str, got: &[u8], want: &[u8]) -> R {
    match got.iter().zip(want).position(|(a, b)| a != b) {
        None if got.len() == want.len() => Ok(()),
        None => Err(Outcome::fail(format!(
            "{what}: {} bytes, expected {}",
            got.len(),
            want.len()
        ))),
        Some(i) => Err(Outcome::fail(format!(
            "{what}: byte {i} (texel {}) is {:#04x}, expected {:#04x}",
            i / 4,
            got[i],
            want[i]
        ))),
    }
}

fn render_target_full(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let tex = e.texture(&rt(
        Format::R8G8B8A8Unorm,
        Target::Texture2D,
        16,
        8,
        1,
        BindFlags::RENDER_TARGET,
    ))?;
    let s = surface(&mut e, &tex, 0, 0, 0)?;
    let c = [0.25f32, 0.5, 0.75, 1.0];
    step(
        "clear_render_target",
        e.ctx
            .clear_render_target(&s, &ColorUnion::from_f32(c), 0, 0, 16, 8, false),
    )?;
    let want = fill(&c.map(unorm8), 16 * 8);
    expect_eq(
        "cleared",
        &e.read_texture(&tex, 0, &PipeBox::rect(0, 0, 16, 8))?,
        &want,
    )
}
both_paths!("pipe.clear.render_target.whole", render_target_full);

fn render_target_partial(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let tex = e.texture(&rt(
        Format::R8G8B8A8Unorm,
        Target::Texture2D,
        16,
        8,
        1,
        BindFlags::RENDER_TARGET,
    ))?;
    let base = pattern(16 * 8 * 4, 3);
    e.write_texture(&tex, 0, &PipeBox::rect(0, 0, 16, 8), &base)?;
    let s = surface(&mut e, &tex, 0, 0, 0)?;
    let c = [1.0f32, 0.0, 0.5, 0.0];
    step(
        "clear_render_target",
        e.ctx
            .clear_render_target(&s, &ColorUnion::from_f32(c), 3, 2, 5, 4, false),
    )?;
    let mut want = base;
    for y in 2..6 {
        for x in 3..8 {
            let i = (y * 16 + x) * 4;
            want[i..i + 4].copy_from_slice(&c.map(unorm8));
        }
    }
    expect_eq(
        "partial",
        &e.read_texture(&tex, 0, &PipeBox::rect(0, 0, 16, 8))?,
        &want,
    )
}
both_paths!("pipe.clear.render_target.partial", render_target_partial);

fn render_target_layers(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let mut t = rt(
        Format::R8G8B8A8Unorm,
        Target::Texture2DArray,
        8,
        8,
        4,
        BindFlags::RENDER_TARGET,
    );
    t.last_level = 1;
    let tex = e.texture(&t)?;
    // Level 1 is 4x4; clear layers 1..=2 whole and a corner of layer 3.
    let whole = PipeBox::new(0, 0, 0, 4, 4, 4);
    let base = pattern(4 * 4 * 4 * 4, 5);
    e.write_texture(&tex, 1, &whole, &base)?;
    let s12 = surface(&mut e, &tex, 1, 1, 2)?;
    let s3 = surface(&mut e, &tex, 1, 3, 3)?;
    let a = [0.0f32, 1.0, 0.0, 1.0];
    let b = [0.2f32, 0.4, 0.6, 0.8];
    step(
        "clear 1..=2",
        e.ctx
            .clear_render_target(&s12, &ColorUnion::from_f32(a), 0, 0, 4, 4, false),
    )?;
    step(
        "clear 3 corner",
        e.ctx
            .clear_render_target(&s3, &ColorUnion::from_f32(b), 2, 2, 2, 2, false),
    )?;
    let mut want = base;
    for layer in 1..3 {
        let o = layer * 64;
        want[o..o + 64].copy_from_slice(&fill(&a.map(unorm8), 16));
    }
    for y in 2..4 {
        for x in 2..4 {
            let i = 3 * 64 + (y * 4 + x) * 4;
            want[i..i + 4].copy_from_slice(&b.map(unorm8));
        }
    }
    expect_eq("layers", &e.read_texture(&tex, 1, &whole)?, &want)
}
both_paths!("pipe.clear.render_target.layers", render_target_layers);

fn integer_and_float_targets(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let ui = e.texture(&rt(
        Format::R32G32B32A32Uint,
        Target::Texture2D,
        4,
        4,
        1,
        BindFlags::RENDER_TARGET,
    ))?;
    let f = e.texture(&rt(
        Format::R32G32B32A32Float,
        Target::Texture2D,
        4,
        4,
        1,
        BindFlags::RENDER_TARGET,
    ))?;
    let su = surface(&mut e, &ui, 0, 0, 0)?;
    let sf = surface(&mut e, &f, 0, 0, 0)?;
    let u = [7u32, 0xffff_ffff, 0, 123_456];
    let fl = [-1.5f32, 0.0, 3.25, 1e10];
    step(
        "clear uint",
        e.ctx
            .clear_render_target(&su, &ColorUnion::from_u32(u), 1, 1, 2, 2, false),
    )?;
    step(
        "clear float",
        e.ctx
            .clear_render_target(&sf, &ColorUnion::from_f32(fl), 0, 0, 4, 4, false),
    )?;
    let got = e.read_texture(&ui, 0, &PipeBox::rect(1, 1, 2, 2))?;
    let want: Vec<u8> = u
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect::<Vec<_>>()
        .repeat(4);
    expect_eq("uint", &got, &want)?;
    let got = e.read_texture(&f, 0, &PipeBox::rect(0, 0, 4, 4))?;
    let want: Vec<u8> = fl
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect::<Vec<_>>()
        .repeat(16);
    expect_eq("float", &got, &want)
}
both_paths!(
    "pipe.clear.render_target.int_float",
    integer_and_float_targets
);

fn depth_stencil(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let ds = BindFlags::DEPTH_STENCIL;
    let z = e.texture(&rt(Format::Z32Float, Target::Texture2D, 8, 8, 1, ds))?;
    let sz = surface(&mut e, &z, 0, 0, 0)?;
    step(
        "clear depth whole",
        e.ctx
            .clear_depth_stencil(&sz, ClearFlags::DEPTH, 0.75, 0, 0, 0, 8, 8, false),
    )?;
    step(
        "clear depth part",
        e.ctx
            .clear_depth_stencil(&sz, ClearFlags::DEPTH, 0.25, 0, 4, 4, 4, 4, false),
    )?;
    let mut want = Vec::new();
    for y in 0..8 {
        for x in 0..8 {
            let v: f32 = if x >= 4 && y >= 4 { 0.25 } else { 0.75 };
            want.extend_from_slice(&v.to_le_bytes());
        }
    }
    expect_eq(
        "depth",
        &e.read_texture(&z, 0, &PipeBox::rect(0, 0, 8, 8))?,
        &want,
    )?;
    if e.screen
        .is_format_supported(Format::S8Uint, Target::Texture2D, 1, 1, ds)
    {
        let s = e.texture(&rt(Format::S8Uint, Target::Texture2D, 8, 8, 1, ds))?;
        let ss = surface(&mut e, &s, 0, 0, 0)?;
        step(
            "clear stencil",
            e.ctx
                .clear_depth_stencil(&ss, ClearFlags::STENCIL, 0.0, 0x1a5, 0, 0, 8, 4, false),
        )?;
        step(
            "clear stencil 2",
            e.ctx
                .clear_depth_stencil(&ss, ClearFlags::STENCIL, 0.0, 3, 0, 4, 8, 4, false),
        )?;
        let mut want = vec![0xa5u8; 32];
        want.extend_from_slice(&[3u8; 32]);
        expect_eq(
            "stencil (masked to 8 bits)",
            &e.read_texture(&s, 0, &PipeBox::rect(0, 0, 8, 8))?,
            &want,
        )?;
    }
    Ok(())
}
both_paths!("pipe.clear.depth_stencil.surfaces", depth_stencil);

fn framebuffer_clear(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let a = e.texture(&rt(
        Format::R8G8B8A8Unorm,
        Target::Texture2D,
        8,
        8,
        1,
        BindFlags::RENDER_TARGET,
    ))?;
    let b = e.texture(&rt(
        Format::R8G8B8A8Unorm,
        Target::Texture2D,
        8,
        8,
        1,
        BindFlags::RENDER_TARGET,
    ))?;
    let z = e.texture(&rt(
        Format::Z32Float,
        Target::Texture2D,
        8,
        8,
        1,
        BindFlags::DEPTH_STENCIL,
    ))?;
    let base = pattern(8 * 8 * 4, 9);
    e.write_texture(&b, 0, &PipeBox::rect(0, 0, 8, 8), &base)?;
    let (sa, sb, sz) = (
        surface(&mut e, &a, 0, 0, 0)?,
        surface(&mut e, &b, 0, 0, 0)?,
        surface(&mut e, &z, 0, 0, 0)?,
    );
    let fb = FramebufferState {
        width: 8,
        height: 8,
        layers: 1,
        samples: 1,
        cbufs: vec![Some(sa), Some(sb)],
        zsbuf: Some(sz),
        resolve: None,
    };
    step("set_framebuffer_state", e.ctx.set_framebuffer_state(&fb))?;
    let c = [0.0f32, 0.0, 1.0, 1.0];
    // COLOR0 and depth only: COLOR1 keeps its contents.
    step(
        "clear",
        e.ctx.clear(
            ClearFlags::COLOR0 | ClearFlags::DEPTH,
            None,
            &ColorUnion::from_f32(c),
            0.5,
            0,
        ),
    )?;
    expect_eq(
        "cbuf 0",
        &e.read_texture(&a, 0, &PipeBox::rect(0, 0, 8, 8))?,
        &fill(&c.map(unorm8), 64),
    )?;
    expect_eq(
        "cbuf 1 untouched",
        &e.read_texture(&b, 0, &PipeBox::rect(0, 0, 8, 8))?,
        &base,
    )?;
    expect_eq(
        "depth",
        &e.read_texture(&z, 0, &PipeBox::rect(0, 0, 8, 8))?,
        &fill(&0.5f32.to_le_bytes(), 64),
    )?;
    // A scissored clear of COLOR1 only.
    let sc = ScissorState {
        minx: 6,
        miny: 0,
        maxx: 20,
        maxy: 1,
    };
    step(
        "clear scissor",
        e.ctx.clear(
            ClearFlags::COLOR1,
            Some(&sc),
            &ColorUnion::from_f32(c),
            0.0,
            0,
        ),
    )?;
    let mut want = base;
    for x in 6..8 {
        want[x * 4..x * 4 + 4].copy_from_slice(&c.map(unorm8));
    }
    expect_eq(
        "scissored cbuf 1",
        &e.read_texture(&b, 0, &PipeBox::rect(0, 0, 8, 8))?,
        &want,
    )
}
both_paths!(
    "pipe.clear.framebuffer.buffers_and_scissor",
    framebuffer_clear
);

/// Deferred clears cost nothing until used: two clears in a row run one
/// clear command; a clear followed by a full overwrite runs none.
fn deferred_counts(ctx: &mut TestContext) -> Outcome {
    Outcome::from_result(deferred_counts_inner(ctx))
}

fn deferred_counts_inner(ctx: &mut TestContext) -> R {
    let opts = crate::harness::options(ctx);
    let screen = step("screen", pipe_vk::VkScreen::new(&opts))?;
    let mut c = step("context", screen.create_vk_context())?;
    let t = rt(
        Format::R8G8B8A8Unorm,
        Target::Texture2D,
        8,
        8,
        1,
        BindFlags::RENDER_TARGET,
    );
    let tex = step("resource", pipe_core::Screen::resource_create(&*screen, &t))?;
    let st = SurfaceTemplate {
        format: t.format,
        level: 0,
        first_layer: 0,
        last_layer: 0,
    };
    let s = step("surface", c.create_surface(&tex, &st))?;
    let red = ColorUnion::from_f32([1.0, 0.0, 0.0, 1.0]);
    let green = ColorUnion::from_f32([0.0, 1.0, 0.0, 1.0]);
    step(
        "clear 1",
        c.clear_render_target(&s, &red, 0, 0, 8, 8, false),
    )?;
    step(
        "clear 2",
        c.clear_render_target(&s, &green, 0, 0, 8, 8, false),
    )?;
    let st0 = c.clear_stats();
    if st0.executed != 0 || st0.deferred != 2 || step("pending", c.pending_clears(&tex))? != 1 {
        return Err(Outcome::fail(format!("after two clears: {st0:?}")));
    }
    let m = step(
        "map",
        c.transfer_map(&tex, 0, MapFlags::READ, &PipeBox::rect(0, 0, 8, 8)),
    )?;
    let got = m.to_vec();
    step("unmap", c.transfer_unmap(m))?;
    let st1 = c.clear_stats();
    if st1.executed != 1 {
        return Err(Outcome::fail(format!(
            "two clears then a read executed {} clears",
            st1.executed
        )));
    }
    expect_eq("last clear wins", &got, &fill(&[0, 255, 0, 255], 64))?;
    // Clear, then overwrite the whole level: the clear is dropped.
    step(
        "clear 3",
        c.clear_render_target(&s, &red, 0, 0, 8, 8, false),
    )?;
    let data = pattern(256, 4);
    step(
        "overwrite",
        c.texture_subdata(
            &tex,
            0,
            MapFlags::WRITE | MapFlags::DISCARD_WHOLE_RESOURCE,
            &PipeBox::rect(0, 0, 8, 8),
            &data,
            32,
            256,
        ),
    )?;
    let st2 = c.clear_stats();
    if st2.executed != 1 || st2.discarded != 1 {
        return Err(Outcome::fail(format!("clear then overwrite: {st2:?}")));
    }
    let m = step(
        "map",
        c.transfer_map(&tex, 0, MapFlags::READ, &PipeBox::rect(0, 0, 8, 8)),
    )?;
    let got = m.to_vec();
    step("unmap", c.transfer_unmap(m))?;
    expect_eq("overwrite wins", &got, &data)?;
    drop(s);
    drop(c);
    Ok(())
}
test_case!(name = "pipe.clear.deferred.command_counts", deferred_counts);

fn sampler_views(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let mut t = rt(
        Format::R8G8B8A8Unorm,
        Target::Texture2DArray,
        8,
        8,
        6,
        BindFlags::empty(),
    );
    t.last_level = 3;
    let tex = e.texture(&t)?;
    let whole = SamplerViewTemplate::whole(tex.desc());
    let mut views = Vec::new();
    let mut add = |c: &mut Box<dyn Context>, v: SamplerViewTemplate, what: &str| -> R {
        views.push(step(what, c.create_sampler_view(&tex, &v))?);
        Ok(())
    };
    add(&mut e.ctx, whole, "whole")?;
    add(&mut e.ctx, whole, "whole again (cached)")?;
    let mut cube = whole;
    cube.target = Target::TextureCube;
    add(&mut e.ctx, cube, "cube view of 6 layers")?;
    let mut sub = whole;
    sub.target = Target::Texture2D;
    sub.range = ViewRange::Texture {
        first_level: 1,
        last_level: 2,
        first_layer: 3,
        last_layer: 3,
    };
    sub.swizzle = [Swizzle::Z, Swizzle::Y, Swizzle::X, Swizzle::One];
    sub.format = Format::R8G8B8A8Srgb;
    add(&mut e.ctx, sub, "sRGB cast, swizzle, level/layer range")?;
    let buf = e.buffer(256, pipe_core::resource::ResourceFlags::empty())?;
    let mut tbo = SamplerViewTemplate::whole(buf.desc());
    tbo.format = Format::R32G32B32A32Float;
    views.push(step(
        "texture buffer",
        e.ctx.create_sampler_view(&buf, &tbo),
    )?);
    let z = e.texture(&rt(
        Format::Z32Float,
        Target::Texture2D,
        4,
        4,
        1,
        BindFlags::DEPTH_STENCIL,
    ))?;
    views.push(step(
        "depth view",
        e.ctx
            .create_sampler_view(&z, &SamplerViewTemplate::whole(z.desc())),
    )?);
    for v in views {
        step("sampler_view_destroy", e.ctx.sampler_view_destroy(v))?;
    }
    let _ = Arc::strong_count(&tex);
    Ok(())
}
both_paths!("pipe.view.sampler.create", sampler_views);

/// A combined depth/stencil surface: clear depth and stencil separately
/// (each keeps the other aspect), then together, and read both back
/// through the Z24S8 packing.
fn combined_depth_stencil(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let f = Format::Z24UnormS8Uint;
    if !e
        .screen
        .is_format_supported(f, Target::Texture2D, 1, 1, BindFlags::DEPTH_STENCIL)
    {
        return Err(Outcome::skip("Z24S8 is not a depth/stencil format here"));
    }
    let tex = e.texture(&rt(f, Target::Texture2D, 4, 4, 1, BindFlags::DEPTH_STENCIL))?;
    let s = surface(&mut e, &tex, 0, 0, 0)?;
    let texel = |z: f64, st: u32| -> [u8; 4] {
        // Z24: round(z * (2^24 - 1)).
        let zi = (z * f64::from(0x00ff_ffffu32)).round() as u32;
        (zi | (st << 24)).to_le_bytes()
    };
    step(
        "both",
        e.ctx
            .clear_depth_stencil(&s, ClearFlags::DEPTHSTENCIL, 1.0, 0x11, 0, 0, 4, 4, false),
    )?;
    step(
        "depth only",
        e.ctx
            .clear_depth_stencil(&s, ClearFlags::DEPTH, 0.5, 0, 0, 0, 2, 4, false),
    )?;
    step(
        "stencil only",
        e.ctx
            .clear_depth_stencil(&s, ClearFlags::STENCIL, 0.0, 0x7f, 0, 2, 4, 2, false),
    )?;
    let mut want = Vec::new();
    for y in 0..4 {
        for x in 0..4 {
            let z = if x < 2 { 0.5 } else { 1.0 };
            let st = if y >= 2 { 0x7f } else { 0x11 };
            want.extend_from_slice(&texel(z, st));
        }
    }
    expect_eq(
        "Z24S8",
        &e.read_texture(&tex, 0, &PipeBox::rect(0, 0, 4, 4))?,
        &want,
    )
}
both_paths!(
    "pipe.clear.depth_stencil.combined_aspects",
    combined_depth_stencil
);

/// Surfaces of 3D textures: depth slices are the surface's layers.
/// Slices 1 and 2 of an 8x8x4 level are cleared in a 4x4 rectangle; the
/// other slices and the texels outside keep their uploaded pattern.
fn surface_3d_clear(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let mut t = rt(
        Format::R8G8B8A8Unorm,
        Target::Texture3D,
        8,
        8,
        1,
        BindFlags::RENDER_TARGET,
    );
    t.depth0 = 4;
    let tex = e.texture(&t)?;
    let bx = PipeBox::new(0, 0, 0, 8, 8, 4);
    let data = pattern(8 * 8 * 4 * 4, 9);
    e.write_texture(&tex, 0, &bx, &data)?;
    let s = surface(&mut e, &tex, 0, 1, 2)?;
    let c = [0.0, 1.0, 0.4, 1.0];
    step(
        "clear_render_target",
        e.ctx
            .clear_render_target(&s, &ColorUnion::from_f32(c), 2, 2, 4, 4, false),
    )?;
    let px = [unorm8(c[0]), unorm8(c[1]), unorm8(c[2]), unorm8(c[3])];
    let mut want = data.clone();
    for z in 1..3usize {
        for y in 2..6usize {
            for x in 2..6usize {
                let i = ((z * 8 + y) * 8 + x) * 4;
                want[i..i + 4].copy_from_slice(&px);
            }
        }
    }
    expect_eq("3D slices", &e.read_texture(&tex, 0, &bx)?, &want)
}
both_paths!("pipe.surface.3d.clear_slices", surface_3d_clear);

/// A surface naming slices beyond the level's depth is refused; so is a
/// 3D texture that cannot be rendered to.
fn surface_3d_bad(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let mut t = rt(
        Format::R8G8B8A8Unorm,
        Target::Texture3D,
        8,
        8,
        1,
        BindFlags::RENDER_TARGET,
    );
    t.depth0 = 4;
    t.last_level = 1;
    let tex = e.texture(&t)?;
    // Level 1 is 4x4x2: slice 2 does not exist there.
    for (level, first, last) in [(1, 0, 2), (0, 3, 4), (0, 2, 1)] {
        let st = SurfaceTemplate {
            format: t.format,
            level,
            first_layer: first,
            last_layer: last,
        };
        match e.ctx.create_surface(&tex, &st) {
            Err(pipe_core::PipeError::InvalidArgument(_)) => {}
            other => {
                return Err(Outcome::fail(format!(
                    "surface of level {level} slices {first}..={last}: expected \
                     InvalidArgument, got {:?}",
                    other.map(|_| ())
                )))
            }
        }
    }
    // The last slice of level 1 works.
    let s = surface(&mut e, &tex, 1, 1, 1)?;
    step(
        "clear level 1 slice 1",
        e.ctx.clear_render_target(
            &s,
            &ColorUnion::from_f32([1.0, 0.0, 0.0, 1.0]),
            0,
            0,
            4,
            4,
            false,
        ),
    )?;
    let got = e.read_texture(&tex, 1, &PipeBox::new(0, 0, 1, 4, 4, 1))?;
    expect_eq("level 1 slice 1", &got, &fill(&[255, 0, 0, 255], 16))
}
both_paths!("pipe.surface.3d.bad_slices", surface_3d_bad);
