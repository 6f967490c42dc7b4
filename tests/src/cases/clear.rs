//! `pipe.clear.*` for surfaces and the framebuffer, deferred clears, and
//! `pipe.view.*` creation. Expected texels are computed here: UNORM8 is
//! `round(v * 255)` or, where a colour may hit a rounding tie, either
//! value the spec allows ([`Rgba8Range::unorm`]); floats and integers are
//! their bits.

use std::sync::Arc;

use pipe_core::flags::{ClearFlags, MapFlags};
use pipe_core::resource::{BindFlags, PipeBox, ResourceTemplate, Target};
use pipe_core::state::{ColorUnion, ScissorState};
use pipe_core::view::{SamplerViewTemplate, SurfaceTemplate, Swizzle, ViewRange};
use pipe_core::{Context, Format};

use crate::harness::{
    clear_depth_stencil, clear_surface, env, expect_bytes, pattern, rgba8_exact, set_framebuffer,
    step, texture_template, Rgba8Range,
};
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
    texture_template(target, format, w, h, layers, 1, bind)
}

/// An RGBA8 render target template.
fn color_rt(target: Target, w: u32, h: u32, layers: u32) -> ResourceTemplate {
    rt(
        Format::R8G8B8A8Unorm,
        target,
        w,
        h,
        layers,
        BindFlags::RENDER_TARGET,
    )
}

fn fill(texel: &[u8], n: usize) -> Vec<u8> {
    texel
        .iter()
        .copied()
        .cycle()
        .take(texel.len() * n)
        .collect()
}

fn render_target_full(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let tex = e.texture(&color_rt(Target::Texture2D, 16, 8, 1))?;
    let s = e.surface(&tex, 0, 0, 0)?;
    let c = [0.25f32, 0.5, 0.75, 1.0];
    clear_surface(&mut e, &s, &ColorUnion::from_f32(c), [0, 0, 16, 8])?;
    let want = vec![Rgba8Range::unorm(c); 16 * 8];
    e.expect_texture_rgba8(&tex, 0, &PipeBox::rect(0, 0, 16, 8), &want, "cleared")
}
both_paths!("pipe.clear.render_target.whole", render_target_full);

fn render_target_partial(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let tex = e.texture(&color_rt(Target::Texture2D, 16, 8, 1))?;
    let base = pattern(16 * 8 * 4, 3);
    e.write_texture(&tex, 0, &PipeBox::rect(0, 0, 16, 8), &base)?;
    let s = e.surface(&tex, 0, 0, 0)?;
    let c = [1.0f32, 0.0, 0.5, 0.0];
    clear_surface(&mut e, &s, &ColorUnion::from_f32(c), [3, 2, 5, 4])?;
    let mut want = rgba8_exact(&base);
    for y in 2..6 {
        for x in 3..8 {
            want[y * 16 + x] = Rgba8Range::unorm(c);
        }
    }
    e.expect_texture_rgba8(&tex, 0, &PipeBox::rect(0, 0, 16, 8), &want, "partial")
}
both_paths!("pipe.clear.render_target.partial", render_target_partial);

fn render_target_layers(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let mut t = color_rt(Target::Texture2DArray, 8, 8, 4);
    t.last_level = 1;
    let tex = e.texture(&t)?;
    // Level 1 is 4x4; clear layers 1..=2 whole and a corner of layer 3.
    let whole = PipeBox::new(0, 0, 0, 4, 4, 4);
    let base = pattern(4 * 4 * 4 * 4, 5);
    e.write_texture(&tex, 1, &whole, &base)?;
    let s12 = e.surface(&tex, 1, 1, 2)?;
    let s3 = e.surface(&tex, 1, 3, 3)?;
    let a = [0.0f32, 1.0, 0.0, 1.0];
    let b = [0.2f32, 0.4, 0.6, 0.8];
    clear_surface(&mut e, &s12, &ColorUnion::from_f32(a), [0, 0, 4, 4])?;
    clear_surface(&mut e, &s3, &ColorUnion::from_f32(b), [2, 2, 2, 2])?;
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
    e.expect_texture(&tex, 1, &whole, &want, "layers")
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
    let su = e.surface(&ui, 0, 0, 0)?;
    let sf = e.surface(&f, 0, 0, 0)?;
    let u = [7u32, 0xffff_ffff, 0, 123_456];
    let fl = [-1.5f32, 0.0, 3.25, 1e10];
    clear_surface(&mut e, &su, &ColorUnion::from_u32(u), [1, 1, 2, 2])?;
    clear_surface(&mut e, &sf, &ColorUnion::from_f32(fl), [0, 0, 4, 4])?;
    let got = e.read_texture(&ui, 0, &PipeBox::rect(1, 1, 2, 2))?;
    let want: Vec<u8> = u
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect::<Vec<_>>()
        .repeat(4);
    expect_bytes("uint", &got, &want)?;
    let got = e.read_texture(&f, 0, &PipeBox::rect(0, 0, 4, 4))?;
    let want: Vec<u8> = fl
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect::<Vec<_>>()
        .repeat(16);
    expect_bytes("float", &got, &want)
}
both_paths!(
    "pipe.clear.render_target.int_float",
    integer_and_float_targets
);

fn depth_stencil(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let ds = BindFlags::DEPTH_STENCIL;
    let z = e.texture(&rt(Format::Z32Float, Target::Texture2D, 8, 8, 1, ds))?;
    let sz = e.surface(&z, 0, 0, 0)?;
    clear_depth_stencil(&mut e, &sz, ClearFlags::DEPTH, (0.75, 0), [0, 0, 8, 8])?;
    clear_depth_stencil(&mut e, &sz, ClearFlags::DEPTH, (0.25, 0), [4, 4, 4, 4])?;
    let mut want = Vec::new();
    for y in 0..8 {
        for x in 0..8 {
            let v: f32 = if x >= 4 && y >= 4 { 0.25 } else { 0.75 };
            want.extend_from_slice(&v.to_le_bytes());
        }
    }
    e.expect_texture(&z, 0, &PipeBox::rect(0, 0, 8, 8), &want, "depth")?;
    if e.screen
        .is_format_supported(Format::S8Uint, Target::Texture2D, 1, 1, ds)
    {
        let s = e.texture(&rt(Format::S8Uint, Target::Texture2D, 8, 8, 1, ds))?;
        let ss = e.surface(&s, 0, 0, 0)?;
        clear_depth_stencil(&mut e, &ss, ClearFlags::STENCIL, (0.0, 0x1a5), [0, 0, 8, 4])?;
        clear_depth_stencil(&mut e, &ss, ClearFlags::STENCIL, (0.0, 3), [0, 4, 8, 4])?;
        let mut want = vec![0xa5u8; 32];
        want.extend_from_slice(&[3u8; 32]);
        e.expect_texture(
            &s,
            0,
            &PipeBox::rect(0, 0, 8, 8),
            &want,
            "stencil (masked to 8 bits)",
        )?;
    }
    Ok(())
}
both_paths!("pipe.clear.depth_stencil.surfaces", depth_stencil);

fn framebuffer_clear(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let a = e.texture(&color_rt(Target::Texture2D, 8, 8, 1))?;
    let b = e.texture(&color_rt(Target::Texture2D, 8, 8, 1))?;
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
        e.surface(&a, 0, 0, 0)?,
        e.surface(&b, 0, 0, 0)?,
        e.surface(&z, 0, 0, 0)?,
    );
    set_framebuffer(&mut e, 8, 8, vec![Some(sa), Some(sb)], Some(sz))?;
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
    e.expect_texture(
        &a,
        0,
        &PipeBox::rect(0, 0, 8, 8),
        &fill(&c.map(unorm8), 64),
        "cbuf 0",
    )?;
    e.expect_texture(&b, 0, &PipeBox::rect(0, 0, 8, 8), &base, "cbuf 1 untouched")?;
    e.expect_texture(
        &z,
        0,
        &PipeBox::rect(0, 0, 8, 8),
        &fill(&0.5f32.to_le_bytes(), 64),
        "depth",
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
    e.expect_texture(&b, 0, &PipeBox::rect(0, 0, 8, 8), &want, "scissored cbuf 1")
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
    let t = color_rt(Target::Texture2D, 8, 8, 1);
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
    expect_bytes("last clear wins", &got, &fill(&[0, 255, 0, 255], 64))?;
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
    expect_bytes("overwrite wins", &got, &data)?;
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
    let s = e.surface(&tex, 0, 0, 0)?;
    let texel = |z: f64, st: u32| -> [u8; 4] {
        // Z24: round(z * (2^24 - 1)).
        let zi = (z * f64::from(0x00ff_ffffu32)).round() as u32;
        (zi | (st << 24)).to_le_bytes()
    };
    clear_depth_stencil(
        &mut e,
        &s,
        ClearFlags::DEPTHSTENCIL,
        (1.0, 0x11),
        [0, 0, 4, 4],
    )?;
    clear_depth_stencil(&mut e, &s, ClearFlags::DEPTH, (0.5, 0), [0, 0, 2, 4])?;
    clear_depth_stencil(&mut e, &s, ClearFlags::STENCIL, (0.0, 0x7f), [0, 2, 4, 2])?;
    let mut want = Vec::new();
    for y in 0..4 {
        for x in 0..4 {
            let z = if x < 2 { 0.5 } else { 1.0 };
            let st = if y >= 2 { 0x7f } else { 0x11 };
            want.extend_from_slice(&texel(z, st));
        }
    }
    e.expect_texture(&tex, 0, &PipeBox::rect(0, 0, 4, 4), &want, "Z24S8")
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
    let mut t = color_rt(Target::Texture3D, 8, 8, 1);
    t.depth0 = 4;
    let tex = e.texture(&t)?;
    let bx = PipeBox::new(0, 0, 0, 8, 8, 4);
    let data = pattern(8 * 8 * 4 * 4, 9);
    e.write_texture(&tex, 0, &bx, &data)?;
    let s = e.surface(&tex, 0, 1, 2)?;
    let c = [0.0, 1.0, 0.4, 1.0];
    clear_surface(&mut e, &s, &ColorUnion::from_f32(c), [2, 2, 4, 4])?;
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
    e.expect_texture(&tex, 0, &bx, &want, "3D slices")
}
both_paths!("pipe.surface.3d.clear_slices", surface_3d_clear);

/// A surface naming slices beyond the level's depth is refused; so is a
/// 3D texture that cannot be rendered to.
fn surface_3d_bad(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let mut t = color_rt(Target::Texture3D, 8, 8, 1);
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
    let s = e.surface(&tex, 1, 1, 1)?;
    clear_surface(
        &mut e,
        &s,
        &ColorUnion::from_f32([1.0, 0.0, 0.0, 1.0]),
        [0, 0, 4, 4],
    )?;
    let got = e.read_texture(&tex, 1, &PipeBox::new(0, 0, 1, 4, 4, 1))?;
    expect_bytes("level 1 slice 1", &got, &fill(&[255, 0, 0, 255], 16))
}
both_paths!("pipe.surface.3d.bad_slices", surface_3d_bad);
