//! `pipe.render.sample_locations.*`: programmable sample locations
//! (`set_sample_locations`, `get_sample_pixel_grid`).
//!
//! The coverage case draws a rectangle whose right and bottom edges cut
//! through pixel column 8 and row 5 of a 4x multisampled target, resolves
//! it, and compares each pixel with the fraction of its samples inside
//! the rectangle, computed here from the locations the case set (or the
//! standard ones after `set_sample_locations(None)`). The edges are at
//! x = 8.3 and y = 5.3, off every sixteenth, so no sample lies on an
//! edge; the locations are chosen so that custom and default locations
//! give different coverage on both edges, and custom and y-flipped ones
//! on the bottom edge. A depth buffer with
//! the depth test on makes the draw use a multisampled depth attachment
//! with custom locations, which Vulkan allows only for depth images
//! created for them.
//!
//! On a device without programmable locations (lavapipe) the coverage
//! case skips, and the interface case checks the refusals.

use pipe_core::flags::ClearFlags;
use pipe_core::state::{ColorUnion, CompareFunc, DepthStencilAlphaState};
use pipe_core::{Format, PipeError};

use super::render::{
    begin, bind_dsa, clear, read_color, resolve, set_src, tris, Px, TOL_U8_2, UNORM, W,
};
use crate::harness::{bind_program, step, FS_UBO_COLOR, VS_PASSTHROUGH};
use crate::{test_case, Outcome, TestContext};

type R = Result<(), Outcome>;

/// Custom locations of the 4 samples, in sixteenths (x, y) from the
/// pixel's top-left corner.
const CUSTOM: [(u8, u8); 4] = [(1, 13), (15, 1), (4, 4), (9, 9)];

/// The rectangle's right and bottom edges, in window coordinates.
const EDGE_X: f32 = 8.3;
const EDGE_Y: f32 = 5.3;

/// Gallium's packed bytes for `CUSTOM` on a grid of `grid` pixels.
fn packed(grid: (u32, u32)) -> Vec<u8> {
    let per_pixel: Vec<u8> = CUSTOM.iter().map(|&(x, y)| x | (y << 4)).collect();
    (0..grid.0 * grid.1)
        .flat_map(|_| per_pixel.clone())
        .collect()
}

/// The resolved value of pixel (x, y) for sample offsets `locs` (in
/// pixels): the rectangle's colour times the covered fraction.
fn coverage(locs: &[(f32, f32)], x: u32, y: u32, c: Px) -> Px {
    let n = locs
        .iter()
        .filter(|&&(sx, sy)| x as f32 + sx < EDGE_X && y as f32 + sy < EDGE_Y)
        .count();
    let f = n as f32 / locs.len() as f32;
    [c[0] * f, c[1] * f, c[2] * f, c[3] * f]
}

fn sixteenths(l: &[(u8, u8)]) -> Vec<(f32, f32)> {
    l.iter()
        .map(|&(x, y)| (f32::from(x) / 16.0, f32::from(y) / 16.0))
        .collect()
}

fn coverage_case(ctx: &mut TestContext) -> R {
    let (mut e, t) = begin(ctx, UNORM, Some(Format::Z32Float), 4)?;
    if !e.screen.caps().programmable_sample_locations {
        return Err(Outcome::skip("no programmable sample locations"));
    }
    let grid = e.screen.get_sample_pixel_grid(4);
    let default: Vec<(f32, f32)> = (0..4)
        .map(|i| {
            e.screen
                .get_sample_position(4, i)
                .map(|p| (p[0], p[1]))
                .ok_or_else(|| Outcome::fail(format!("get_sample_position(4, {i}) is None")))
        })
        .collect::<Result<_, _>>()?;
    let custom = sixteenths(&CUSTOM);
    let flipped: Vec<(f32, f32)> = custom.iter().map(|&(x, y)| (x, 1.0 - y)).collect();
    // The case can tell them apart (module doc).
    for (name, other, pixels) in [
        ("default", &default, &[(8, 2), (2, 5)][..]),
        ("y-flipped", &flipped, &[(2, 5)][..]),
    ] {
        for &(x, y) in pixels {
            let c = [1.0; 4];
            if coverage(&custom, x, y, c) == coverage(other, x, y, c) {
                return Err(Outcome::fail(format!(
                    "case set-up: custom and {name} locations cover pixel ({x}, {y}) alike"
                )));
            }
        }
    }
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    bind_dsa(
        &mut e,
        &DepthStencilAlphaState {
            depth_enabled: true,
            depth_writemask: true,
            depth_func: CompareFunc::Less,
            ..Default::default()
        },
    )?;
    let bind = pipe_core::resource::BindFlags::RENDER_TARGET;
    let resolved = e.texture(&pipe_core::resource::ResourceTemplate::texture_2d(
        UNORM, W, W, bind,
    ))?;
    let rect = [
        (-2.0, -2.0),
        (EDGE_X, -2.0),
        (EDGE_X, EDGE_Y),
        (-2.0, -2.0),
        (EDGE_X, EDGE_Y),
        (-2.0, EDGE_Y),
    ];
    let color: Px = [1.0, 0.0, 1.0, 1.0];
    let bytes = packed(grid);
    for (phase, locations, locs) in [
        ("custom", Some(&bytes[..]), &custom),
        ("reset to default", None, &default),
        ("custom again", Some(&bytes[..]), &custom),
    ] {
        step(
            "set_sample_locations",
            e.ctx.set_sample_locations(locations),
        )?;
        let flags = ClearFlags::COLOR0 | ClearFlags::DEPTH;
        clear(&mut e, flags, ColorUnion::from_f32([0.0; 4]), 1.0, 0, None)?;
        set_src(&mut e, UNORM, color)?;
        super::render::draw(&mut e, &tris(&rect, 0.5), false)?;
        resolve(&mut e, &t.color, &resolved)?;
        let got = read_color(&mut e, &resolved)?;
        super::render::check(ctx, phase, &got, TOL_U8_2, |x, y| {
            Some(coverage(locs, x, y, color))
        })?;
    }
    Ok(())
}
fn coverage_run(ctx: &mut TestContext) -> Outcome {
    Outcome::from_result(coverage_case(ctx))
}
test_case!(name = "pipe.render.sample_locations.coverage", coverage_run);

/// The interface: without the cap, locations are refused as Unsupported
/// and the grid is one pixel; with it, a length that is no sample count's
/// is refused as Invalid. Resetting to the defaults always works.
fn interface_case(ctx: &mut TestContext) -> R {
    let mut e = crate::harness::env(ctx, false)?;
    let caps = e.screen.caps();
    step(
        "set_sample_locations(None)",
        e.ctx.set_sample_locations(None),
    )?;
    if !caps.programmable_sample_locations {
        if e.screen.get_sample_pixel_grid(4) != (1, 1) {
            return Err(Outcome::fail("grid is not 1x1 without the cap"));
        }
        return match e.ctx.set_sample_locations(Some(&[0x88; 4])) {
            Err(PipeError::Unsupported(_)) => Ok(()),
            r => Err(Outcome::fail(format!("expected Unsupported, got {r:?}"))),
        };
    }
    let (gw, gh) = e.screen.get_sample_pixel_grid(4);
    if gw == 0 || gh == 0 {
        return Err(Outcome::fail(format!("grid {gw}x{gh}")));
    }
    match e.ctx.set_sample_locations(Some(&[0x88; 3])) {
        Err(PipeError::InvalidArgument(_)) => {}
        r => {
            return Err(Outcome::fail(format!(
                "3 bytes: expected Invalid, got {r:?}"
            )))
        }
    }
    let n = (gw * gh * 4) as usize;
    step(
        "set_sample_locations(4 samples)",
        e.ctx.set_sample_locations(Some(&vec![0x88; n])),
    )?;
    step(
        "set_sample_locations(None)",
        e.ctx.set_sample_locations(None),
    )
}
fn interface_run(ctx: &mut TestContext) -> Outcome {
    Outcome::from_result(interface_case(ctx))
}
test_case!(
    name = "pipe.render.sample_locations.interface",
    interface_run
);
