//! `pipe.draw.rast_prim.*`: GL state that depends on the primitives the
//! rasterizer gets, which a geometry or tessellation evaluation shader
//! decides, not the draw's topology (Zink's `rast_prim`), and polygon
//! modes:
//!
//! - line stipple on the line strips of a geometry shader fed triangles,
//!   and on tessellated isolines, both through the device's stippled lines
//!   (`.native`) and through the shader emulation
//!   (`PIPE_VK_DEBUG=emulate_line_stipple`, `.emulated`);
//! - the rasterizer's point size on the points of a geometry shader fed
//!   triangles;
//! - polygon stipple on the triangles of a geometry shader fed points,
//!   and not on polygons drawn in line mode (GL stipples polygons in fill
//!   mode only).
//!
//! The 16x16 target's pixel (x, y) has its centre at NDC
//! `((2x + 1) / 16 - 1, (2y + 1) / 16 - 1)`.

use pipe_core::draw::PrimType;
use pipe_core::state::*;

use crate::cases::draw::{bind_vertices, check_image, clear_color, draw, setup};
use crate::harness::{
    bind_program, bind_rasterizer, bind_stage, env_with, set_color, step, unorm, Env, FS_UBO_COLOR,
    VS_PASSTHROUGH,
};
use crate::{test_case, Outcome, TestContext};

type R = Result<(), Outcome>;

/// NDC of pixel coordinate `px` on the 16-pixel axis.
fn ndc(px: f32) -> f32 {
    px / 8.0 - 1.0
}

/// A vertex at window position (x, y).
fn vtx(x: f32, y: f32) -> [f32; 4] {
    [ndc(x), ndc(y), 0.0, 1.0]
}

const COLOR: [f32; 4] = [1.0, 0.5, 0.0, 1.0];

/// Line stipple with factor 2 and pattern 0x3333 on a horizontal line
/// through the pixel centres of row 8 from x = 0.5 rightwards: pixel x
/// is lit when bit (x / 2) % 16 of the pattern is (as
/// `pipe.draw.line_stipple.factor2_3333`).
const FACTOR: u32 = 2;
const PATTERN: u16 = 0x3333;

fn stippled_row8(x: u32, y: u32) -> Option<crate::image::Rgba8Range> {
    let lit = y == 8 && PATTERN & (1 << ((x / FACTOR) % 16)) != 0;
    Some(if lit { unorm(COLOR) } else { [0; 4].into() })
}

fn stipple_env(ctx: &TestContext, emulated: bool) -> Result<Env, Outcome> {
    let e = env_with(ctx, |o| o.emulate_line_stipple = Some(emulated))?;
    if !e.screen.caps().line_stipple {
        return Err(Outcome::skip("no line stipple"));
    }
    Ok(e)
}

fn bind_stipple_rasterizer(e: &mut Env) -> R {
    bind_rasterizer(e, |r| {
        r.line_stipple_enable = true;
        r.line_stipple_factor = (FACTOR - 1) as u8;
        r.line_stipple_pattern = PATTERN;
    })
}

/// Emits the first edge of each triangle as a line strip.
pub(crate) const GS_FIRST_EDGE: &str =
    "shader geometry input=triangles output=line_strip max_vertices=2 invocations=1
in @pos : f32x4[3] builtin=position
out @gl_pos : f32x4 builtin=position
fn main {
  %0 : i32 = const 0
  %1 : i32 = const 1
  %2 : f32x4 = load @pos, %0
  %3 : f32x4 = load @pos, %1
  store @gl_pos, %2
  emit_vertex
  store @gl_pos, %3
  emit_vertex
  end_primitive
}
";

/// A triangle whose first edge runs along row 8; the geometry shader
/// draws that edge only, and the stipple applies to it.
fn gs_line_strip_stipple(ctx: &mut TestContext, emulated: bool) -> R {
    let mut e = stipple_env(ctx, emulated)?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    bind_stage(&mut e, ShaderStage::Geometry, GS_FIRST_EDGE)?;
    bind_stipple_rasterizer(&mut e)?;
    let tri: Vec<f32> = [vtx(0.5, 8.5), vtx(16.5, 8.5), vtx(0.5, 12.5)].concat();
    bind_vertices(&mut e, &tri, None)?;
    set_color(&mut e, COLOR)?;
    clear_color(&mut e, [0.0; 4])?;
    draw(&mut e, PrimType::Triangles, 0, 3, 1)?;
    check_image(ctx, &mut e, &t, stippled_row8)
}

/// Isolines, one segment per patch of two vertices: the position is
/// `mix(p0, p1, u)`.
pub(crate) const TES_ISOLINES: &str = "shader tess_eval mode=isolines spacing=equal winding=ccw
in @pos : f32x4[32] builtin=position
in @tc : f32x3 builtin=tess_coord
out @gl_pos : f32x4 builtin=position
fn main {
  %0 : f32x3 = load @tc
  %1 : f32 = swizzle %0, x
  %2 : f32x4 = vec %1, %1, %1, %1
  %3 : i32 = const 0
  %4 : i32 = const 1
  %5 : f32x4 = load @pos, %3
  %6 : f32x4 = load @pos, %4
  %7 : f32x4 = fsub %6, %5
  %8 : f32x4 = ffma %7, %2, %5
  store @gl_pos, %8
}
";

/// A patch of two vertices along row 8 tessellated into one isoline (the
/// driver's pass-through control shader, default levels 1): the stipple
/// applies to it.
fn isolines_stipple(ctx: &mut TestContext, emulated: bool) -> R {
    let mut e = stipple_env(ctx, emulated)?;
    if !e.screen.caps().shader[ShaderStage::TessEval.index()].supported {
        return Err(Outcome::skip("no tessellation"));
    }
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    bind_stage(&mut e, ShaderStage::TessEval, TES_ISOLINES)?;
    crate::harness::tess_levels_1(&mut e, 2)?;
    bind_stipple_rasterizer(&mut e)?;
    let line: Vec<f32> = [vtx(0.5, 8.5), vtx(16.5, 8.5)].concat();
    bind_vertices(&mut e, &line, None)?;
    set_color(&mut e, COLOR)?;
    clear_color(&mut e, [0.0; 4])?;
    draw(&mut e, PrimType::Patches, 0, 2, 1)?;
    check_image(ctx, &mut e, &t, stippled_row8)
}

macro_rules! stipple_cases {
    ($($name:literal => $body:path),+ $(,)?) => {$(
        const _: () = {
            fn native(ctx: &mut TestContext) -> Outcome {
                Outcome::from_result($body(ctx, false))
            }
            fn emulated(ctx: &mut TestContext) -> Outcome {
                Outcome::from_result($body(ctx, true))
            }
            test_case!(name = concat!("pipe.draw.rast_prim.", $name, ".native"), native);
            test_case!(name = concat!("pipe.draw.rast_prim.", $name, ".emulated"), emulated);
        };
    )+};
}
stipple_cases!(
    "gs_line_strip_stipple" => gs_line_strip_stipple,
    "isolines_stipple" => isolines_stipple,
);

// Emulated stipple on the isolines of a SPIR-V evaluation shader (every
// shader SPIR-V): the generated geometry shader reads its outputs from
// its words, and the fragment half is patched in. It failed every draw
// (Unsupported) before.
crate::spirv_result_cases! {
    "pipe.draw.rast_prim.isolines_stipple.emulated" => |c| isolines_stipple(c, true),
}

/// [`gs_line_strip_stipple`] with glslang's SPIR-V geometry shader
/// `gs_stipple_xfb_spirv.spvasm` (its first edge as a line strip), which
/// captures its position and writes a varying at location 28, drawn with
/// GL's depth range (`clip_halfz` off) and emulated stipple: the position
/// is captured through a copy, which must stay off location 29, where the
/// stipple position is patched in (the draw failed with Unsupported when
/// it did not). The capture holds the two vertices as written.
fn gs_line_strip_stipple_spirv_xfb(ctx: &mut TestContext) -> R {
    use super::streamout::{check_words, so_buffer, target, words};
    let mut e = stipple_env(ctx, true)?;
    super::streamout::require_so(&e)?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    let gs = crate::harness::spirv_module(
        ShaderStage::Geometry,
        include_bytes!("gs_stipple_xfb_spirv.spv"),
    );
    let h = step("create_gs_state", e.ctx.create_gs_state(&gs))?;
    step("bind_gs_state", e.ctx.bind_gs_state(Some(h)))?;
    bind_rasterizer(&mut e, |r| {
        r.line_stipple_enable = true;
        r.line_stipple_factor = (FACTOR - 1) as u8;
        r.line_stipple_pattern = PATTERN;
        r.clip_halfz = false;
    })?;
    let b = so_buffer(&mut e, 32 * 3)?;
    let tg = target(&mut e, &b, 0, 32 * 3)?;
    super::streamout::set_targets(&mut e, &[&tg], &[Some(0)])?;
    let tri: Vec<f32> = [vtx(0.5, 8.5), vtx(16.5, 8.5), vtx(0.5, 12.5)].concat();
    bind_vertices(&mut e, &tri, None)?;
    set_color(&mut e, COLOR)?;
    clear_color(&mut e, [0.0; 4])?;
    draw(&mut e, PrimType::Triangles, 0, 3, 1)?;
    let want: Vec<u32> = tri[..8]
        .chunks(4)
        .flat_map(|p| {
            p.iter()
                .chain(&[1.0; 4])
                .map(|f| f.to_bits())
                .collect::<Vec<_>>()
        })
        .collect();
    check_words("captured edge", &words(&mut e, &b)?, &want)?;
    check_image(ctx, &mut e, &t, stippled_row8)
}
crate::result_case!(
    "pipe.draw.rast_prim.gs_line_strip_stipple.emulated.spirv_xfb",
    gs_line_strip_stipple_spirv_xfb
);

// Emulated stipple on the line strips of a SPIR-V geometry shader (every
// shader SPIR-V): the stipple position is patched into its words
// (`spirv_gen::patch::line_stipple_gs`). The lines were drawn solid
// before.
crate::spirv_result_cases! {
    "pipe.draw.rast_prim.gs_line_strip_stipple.emulated" => |c| gs_line_strip_stipple(c, true),
}

/// Emits one point, at the first vertex of each triangle, without
/// writing a point size.
const GS_FIRST_POINT: &str =
    "shader geometry input=triangles output=points max_vertices=1 invocations=1
in @pos : f32x4[3] builtin=position
out @gl_pos : f32x4 builtin=position
fn main {
  %0 : i32 = const 0
  %1 : f32x4 = load @pos, %0
  store @gl_pos, %1
  emit_vertex
  end_primitive
}
";

/// The rasterizer's point size (5, not per vertex) sizes the points a
/// geometry shader makes of triangles: a point at (8.5, 8.5) covers the
/// pixels whose centres are within 2.5 of it, 6..=10 on both axes.
fn gs_points_size(ctx: &mut TestContext) -> R {
    let mut e = env_with(ctx, |_| {})?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    bind_stage(&mut e, ShaderStage::Geometry, GS_FIRST_POINT)?;
    bind_rasterizer(&mut e, |r| {
        r.point_size = 5.0;
        r.point_size_per_vertex = false;
    })?;
    let tri: Vec<f32> = [vtx(8.5, 8.5), vtx(16.0, 8.5), vtx(8.5, 16.0)].concat();
    bind_vertices(&mut e, &tri, None)?;
    set_color(&mut e, COLOR)?;
    clear_color(&mut e, [0.0; 4])?;
    draw(&mut e, PrimType::Triangles, 0, 3, 1)?;
    check_image(ctx, &mut e, &t, |x, y| {
        let lit = (6..=10).contains(&x) && (6..=10).contains(&y);
        Some(if lit { unorm(COLOR) } else { [0; 4].into() })
    })
}
crate::result_case!("pipe.draw.rast_prim.gs_points_size", gs_points_size);

/// Makes a target-covering triangle of each point.
const GS_POINT_TO_TRIANGLE: &str =
    "shader geometry input=points output=triangle_strip max_vertices=3 invocations=1
in @pos : f32x4[1] builtin=position
out @gl_pos : f32x4 builtin=position
fn main {
  %0 : f32x4 = const -1.0, -1.0, 0.0, 1.0
  %1 : f32x4 = const 3.0, -1.0, 0.0, 1.0
  %2 : f32x4 = const -1.0, 3.0, 0.0, 1.0
  store @gl_pos, %0
  emit_vertex
  store @gl_pos, %1
  emit_vertex
  store @gl_pos, %2
  emit_vertex
  end_primitive
}
";

/// A checkerboard polygon stipple: (x + y) even pixels pass.
fn set_checker_stipple(e: &mut Env) -> R {
    let mut p = PolyStipple::default();
    for (y, w) in p.stipple.iter_mut().enumerate() {
        *w = if y % 2 == 0 { 0xAAAA_AAAA } else { 0x5555_5555 };
    }
    step("set_polygon_stipple", e.ctx.set_polygon_stipple(&p))
}

/// Polygon stipple applies to the triangles a geometry shader makes of
/// a point.
fn gs_triangles_polygon_stipple(ctx: &mut TestContext) -> R {
    let mut e = env_with(ctx, |_| {})?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    bind_stage(&mut e, ShaderStage::Geometry, GS_POINT_TO_TRIANGLE)?;
    bind_rasterizer(&mut e, |r| r.poly_stipple_enable = true)?;
    set_checker_stipple(&mut e)?;
    bind_vertices(&mut e, &vtx(8.5, 8.5), None)?;
    set_color(&mut e, COLOR)?;
    clear_color(&mut e, [0.0; 4])?;
    draw(&mut e, PrimType::Points, 0, 1, 1)?;
    check_image(ctx, &mut e, &t, |x, y| {
        Some(if (x + y) % 2 == 0 {
            unorm(COLOR)
        } else {
            [0; 4].into()
        })
    })
}
crate::result_case!(
    "pipe.draw.rast_prim.gs_triangles_polygon_stipple",
    gs_triangles_polygon_stipple
);

/// A triangle drawn in line mode with an all-zero polygon stipple: GL
/// stipples polygons in fill mode only, so its edges are drawn. Its
/// horizontal edge runs along row 2 and its vertical edge along column
/// 2, from 2.5 to 12.5; the pixels strictly between the end points are
/// checked (the ends and the diagonal edge depend on the line rule), and
/// the inside stays clear.
fn polygon_stipple_line_mode(ctx: &mut TestContext) -> R {
    let mut e = env_with(ctx, |_| {})?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    bind_rasterizer(&mut e, |r| {
        r.poly_stipple_enable = true;
        r.fill_front = PolygonMode::Line;
        r.fill_back = PolygonMode::Line;
    })?;
    step(
        "set_polygon_stipple",
        e.ctx.set_polygon_stipple(&PolyStipple::default()),
    )?;
    let tri: Vec<f32> = [vtx(2.5, 2.5), vtx(12.5, 2.5), vtx(2.5, 12.5)].concat();
    bind_vertices(&mut e, &tri, None)?;
    set_color(&mut e, COLOR)?;
    clear_color(&mut e, [0.0; 4])?;
    draw(&mut e, PrimType::Triangles, 0, 3, 1)?;
    check_image(ctx, &mut e, &t, |x, y| {
        let inner = |v: u32| (3..=11).contains(&v);
        if (y == 2 && inner(x)) || (x == 2 && inner(y)) {
            Some(unorm(COLOR))
        } else if (4..=6).contains(&x) && (4..=6).contains(&y) {
            Some([0; 4].into())
        } else {
            None
        }
    })
}
crate::result_case!(
    "pipe.draw.rast_prim.polygon_stipple_line_mode",
    polygon_stipple_line_mode
);

/// Line stipple (pattern 0x00ff, factor 1) on a triangle drawn in line
/// mode: the counter runs on along the edges v2 → v0, v0 → v1, v1 → v2
/// and restarts at each triangle, the order of Mesa's draw module
/// (llvmpipe's and lavapipe's; the `.native` case accepts any start and
/// direction per edge, which Vulkan leaves open, see below). The
/// triangle (2.5, 2.5), (14.5, 2.5), (2.5, 14.5) has v2 → v0 along
/// column 2 (counter 14 - y at pixel y), then v0 → v1 along row 2
/// (counter 12 + x - 2 at pixel x), then the 12-pixel diagonal. The
/// pixels away from the corners are checked; the inside stays clear.
/// A second, back-facing triangle near (13, 13) is culled: the emulation
/// keeps triangles, so culling still applies.
fn polygon_line_stipple(ctx: &mut TestContext, emulated: bool) -> R {
    polygon_line_stipple_as(ctx, emulated, false, false, false)
}

/// [`polygon_line_stipple`] through an application geometry shader that
/// passes each triangle on as a strip: emulated, the shader re-emits its
/// triangles with their places along the outline
/// (`spirv_gen::passes::line_stipple::lower_polygon_line_stipple_gs`);
/// the lines were drawn solid before.
fn polygon_line_stipple_gs(ctx: &mut TestContext, emulated: bool) -> R {
    polygon_line_stipple_as(ctx, emulated, false, true, false)
}

/// [`polygon_line_stipple_gs`] with the geometry shader's position
/// captured by stream output: emulated, the shader re-emits its strips'
/// triangles one by one with their places along the outline
/// (`line_stipple::lower_polygon_line_stipple_gs`), and the capture holds
/// the six vertices as written (the culled triangle's too: capture comes
/// before culling), as natively. The shader also writes a varying at
/// location 28, so the position's copy would land on the stipple
/// position's location 29 were the copies not kept off the driver's
/// locations.
fn polygon_line_stipple_gs_captured(ctx: &mut TestContext, emulated: bool) -> R {
    polygon_line_stipple_as(ctx, emulated, false, true, true)
}

/// A geometry shader passing each triangle on.
const GS_TRIANGLE: &str =
    "shader geometry input=triangles output=triangle_strip max_vertices=3 invocations=1
in @pos : f32x4[3] builtin=position
out @gl_pos : f32x4 builtin=position
fn main {
  %0 : i32 = const 0
  %1 : f32x4 = load @pos, %0
  store @gl_pos, %1
  emit_vertex
  %2 : i32 = const 1
  %3 : f32x4 = load @pos, %2
  store @gl_pos, %3
  emit_vertex
  %4 : i32 = const 2
  %5 : f32x4 = load @pos, %4
  store @gl_pos, %5
  emit_vertex
  end_primitive
}
";

/// [`polygon_line_stipple`] drawn as triangles with adjacency (the
/// adjacent vertices far off; without a geometry shader they are not
/// drawn): the emulation's generated geometry shader takes that input.
fn polygon_line_stipple_adjacency(ctx: &mut TestContext, emulated: bool) -> R {
    polygon_line_stipple_as(ctx, emulated, true, false, false)
}

fn polygon_line_stipple_as(
    ctx: &mut TestContext,
    emulated: bool,
    adjacency: bool,
    gs: bool,
    capture: bool,
) -> R {
    use super::streamout::{check_words, so, so_buffer, so_shader, target, words};
    let mut e = stipple_env(ctx, emulated)?;
    if gs && !e.screen.caps().shader[ShaderStage::Geometry.index()].supported {
        return Err(Outcome::skip("no geometry shaders"));
    }
    if capture {
        super::streamout::require_so(&e)?;
    }
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    let mut so_target = None;
    if gs && capture {
        // `%1`, `%3` and `%5` are the positions GS_TRIANGLE emits.
        let src = GS_TRIANGLE
            .replace(
                "out @gl_pos : f32x4 builtin=position\n",
                "out @gl_pos : f32x4 builtin=position\nout @extra : f32x4 location=28\n",
            )
            .replace("  emit_vertex\n", "  store @extra, %1\n  emit_vertex\n");
        let s = so_shader(
            ShaderStage::Geometry,
            &src,
            vec![so(0, 0, 4, 0, 0)],
            [4, 0, 0, 0],
        )?;
        let h = crate::harness::step("create_gs_state", e.ctx.create_gs_state(&s))?;
        crate::harness::step("bind_gs_state", e.ctx.bind_gs_state(Some(h)))?;
        let b = so_buffer(&mut e, 16 * 8)?;
        let tg = target(&mut e, &b, 0, 16 * 8)?;
        super::streamout::set_targets(&mut e, &[&tg], &[Some(0)])?;
        so_target = Some(b);
    } else if gs {
        bind_stage(&mut e, ShaderStage::Geometry, GS_TRIANGLE)?;
    }
    const POLY_PATTERN: u16 = 0x00ff;
    bind_rasterizer(&mut e, |r| {
        r.fill_front = PolygonMode::Line;
        r.fill_back = PolygonMode::Line;
        r.line_stipple_enable = true;
        r.line_stipple_factor = 0;
        r.line_stipple_pattern = POLY_PATTERN;
        r.cull_face = Face::BACK;
    })?;
    let tris: Vec<f32> = [
        vtx(2.5, 2.5),
        vtx(14.5, 2.5),
        vtx(2.5, 14.5),
        // The other winding.
        vtx(11.5, 11.5),
        vtx(11.5, 14.5),
        vtx(14.5, 11.5),
    ]
    .concat();
    let (tris, mode) = if adjacency {
        let far = vtx(40.0, 40.0);
        let v: Vec<f32> = tris
            .chunks(4)
            .flat_map(|p| [p, &far[..]].concat())
            .collect();
        (v, PrimType::TrianglesAdjacency)
    } else {
        (tris, PrimType::Triangles)
    };
    bind_vertices(&mut e, &tris, None)?;
    set_color(&mut e, COLOR)?;
    clear_color(&mut e, [0.0; 4])?;
    draw(&mut e, mode, 0, (tris.len() / 4) as u32, 1)?;
    if let Some(b) = &so_target {
        let want: Vec<u32> = tris.iter().map(|f| f.to_bits()).collect();
        check_words("captured positions", &words(&mut e, b)?, &want)?;
    }
    let lit = |counter: u32| POLY_PATTERN & (1 << (counter % 16)) != 0;
    // The emulation's counter order (Mesa's): row 2 at 12 + x - 2, column
    // 2 at 14 - y. Vulkan specifies the counter of line strips and lists
    // only, not where it starts on each edge of a polygon drawn in line
    // mode nor in which order the edges are walked: natively, each edge
    // must show the pattern from some start, in either direction (the
    // start and direction found in the image, `Mesa's` where none fits).
    let (mut row, mut col) = ((10u32, false), (14u32, true));
    let counter = |(k, down): (u32, bool), p: u32| if down { k + 16 - p } else { k + p };
    if !emulated {
        let got = e.read_texture(
            &t.color,
            0,
            &pipe_core::resource::PipeBox::rect(0, 0, 16, 16),
        )?;
        let on_at = |x: u32, y: u32| got[((y * 16 + x) * 4 + 3) as usize] != 0;
        let fits = |o: (u32, bool), px: &dyn Fn(u32) -> (u32, u32), first: u32, last: u32| {
            (first..=last).all(|p| {
                let (x, y) = px(p);
                on_at(x, y) == lit(counter(o, p))
            })
        };
        let starts = || (0..16u32).flat_map(|k| [(k, false), (k, true)]);
        if let Some(o) = starts().find(|&o| fits(o, &|x| (x, 2), 3, 12)) {
            row = o;
        }
        if let Some(o) = starts().find(|&o| fits(o, &|y| (2, y), 4, 13)) {
            col = o;
        }
    }
    check_image(ctx, &mut e, &t, |x, y| {
        let on = if y == 2 && (3..=12).contains(&x) {
            lit(counter(row, x))
        } else if x == 2 && (4..=13).contains(&y) {
            lit(counter(col, y))
        } else if (4..=7).contains(&x) && (4..=7).contains(&y) {
            false
        } else if (11..=14).contains(&x) && (11..=14).contains(&y) {
            // The culled triangle.
            false
        } else {
            return None;
        };
        Some(if on { unorm(COLOR) } else { [0; 4].into() })
    })
}
stipple_cases!(
    "polygon_line_stipple" => polygon_line_stipple,
    "polygon_line_stipple.app_gs" => polygon_line_stipple_gs,
    "polygon_line_stipple.app_gs_captured" => polygon_line_stipple_gs_captured,
    "polygon_line_stipple_adjacency" => polygon_line_stipple_adjacency,
);

/// [`polygon_line_stipple`] emulated with every shader as SPIR-V
/// passthrough: the generated geometry shader reads the vertex shader's
/// outputs from its words, and the fragment shader's half of the
/// emulation (polygon outlines) is patched into its words.
fn polygon_line_stipple_spirv(ctx: &mut TestContext) -> R {
    crate::harness::as_spirv(|| polygon_line_stipple(ctx, true))
}
crate::result_case!(
    "pipe.draw.rast_prim.polygon_line_stipple.emulated.spirv",
    polygon_line_stipple_spirv
);

/// Line stipple on lines with adjacency: the segment p1 -> p2 of
/// (p0, p1, p2, p3) along row 8, as a lines-adjacency list and as a
/// line strip with adjacency, then, in the same command buffer, a plain
/// line along row 4 with the same state (the emulation's generated
/// geometry shader takes each draw's input). Both rows show the pattern.
fn adjacency_stipple(ctx: &mut TestContext, emulated: bool, mode: PrimType) -> R {
    let mut e = stipple_env(ctx, emulated)?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    bind_stipple_rasterizer(&mut e)?;
    set_color(&mut e, COLOR)?;
    clear_color(&mut e, [0.0; 4])?;
    let line: Vec<f32> = [vtx(0.5, 0.5), vtx(0.5, 8.5), vtx(16.5, 8.5), vtx(16.5, 0.5)].concat();
    bind_vertices(&mut e, &line, None)?;
    draw(&mut e, mode, 0, 4, 1)?;
    let plain: Vec<f32> = [vtx(0.5, 4.5), vtx(16.5, 4.5)].concat();
    bind_vertices(&mut e, &plain, None)?;
    draw(&mut e, PrimType::Lines, 0, 2, 1)?;
    check_image(ctx, &mut e, &t, |x, y| {
        let lit = (y == 8 || y == 4) && PATTERN & (1 << ((x / FACTOR) % 16)) != 0;
        Some(if lit { unorm(COLOR) } else { [0; 4].into() })
    })
}
fn lines_adjacency_stipple(ctx: &mut TestContext, emulated: bool) -> R {
    adjacency_stipple(ctx, emulated, PrimType::LinesAdjacency)
}
fn line_strip_adjacency_stipple(ctx: &mut TestContext, emulated: bool) -> R {
    adjacency_stipple(ctx, emulated, PrimType::LineStripAdjacency)
}
stipple_cases!(
    "lines_adjacency_stipple" => lines_adjacency_stipple,
    "line_strip_adjacency_stipple" => line_strip_adjacency_stipple,
);

/// GL's polygon modes per face with Vulkan's single one: with front
/// faces culled, back faces take the back mode. A back-facing triangle
/// (the winding `polygon_line_stipple` culls as back) with the front
/// mode FILL and the back mode LINE is drawn as its outline: row 2 and
/// column 2 between the corners lit, the inside clear.
fn back_face_mode(ctx: &mut TestContext) -> R {
    let mut e = env_with(ctx, |_| {})?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_UBO_COLOR)?;
    bind_rasterizer(&mut e, |r| {
        r.fill_front = PolygonMode::Fill;
        r.fill_back = PolygonMode::Line;
        r.cull_face = Face::FRONT;
    })?;
    let tri: Vec<f32> = [vtx(2.5, 2.5), vtx(2.5, 14.5), vtx(14.5, 2.5)].concat();
    bind_vertices(&mut e, &tri, None)?;
    set_color(&mut e, COLOR)?;
    clear_color(&mut e, [0.0; 4])?;
    draw(&mut e, PrimType::Triangles, 0, 3, 1)?;
    check_image(ctx, &mut e, &t, |x, y| {
        let edge = |v: u32| (3..=12).contains(&v);
        if (y == 2 && edge(x)) || (x == 2 && edge(y)) {
            Some(unorm(COLOR))
        } else if (4..=7).contains(&x) && (4..=7).contains(&y) {
            Some([0; 4].into())
        } else {
            None
        }
    })
}
crate::result_case!("pipe.draw.rast_prim.back_face_polygon_mode", back_face_mode);

/// A vertex shader writing a front colour (location 0, slot `col0`) and
/// GL's back colour (location 30, slot `bfc0`), both constant.
pub(crate) const VS_BACK_COLOR: &str = "shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
out @c0 : f32x4 location=0 slot=col0
out @b0 : f32x4 location=30 slot=bfc0
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  %1 : f32x4 = const 1.0, 0.5, 0.0, 1.0
  %2 : f32x4 = const 0.0, 0.0, 1.0, 1.0
  store @c0, %1
  store @b0, %2
}
";

/// A fragment shader writing colour varying 0 (slot `col0`).
pub(crate) const FS_COLOR_VARYING: &str = "shader fragment
in @c : f32x4 location=0 slot=col0
out @frag : f32x4 location=0
fn main {
  %0 : f32x4 = load @c
  store @frag, %0
}
";

/// Line stipple emulation with GL's back colour written (location 30,
/// past lavapipe's 16 geometry-shader input locations): the vertex
/// shader's output moves down for the generated geometry shader, which
/// writes it back at 30. The stippled line lands on row 8 with the
/// pattern, then (after a clear) the same line without stipple lands on
/// row 8 whole.
fn stipple_back_color(ctx: &mut TestContext) -> R {
    let mut e = stipple_env(ctx, true)?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_BACK_COLOR, FS_COLOR_VARYING)?;
    bind_rasterizer(&mut e, |r| {
        r.light_twoside = true;
        r.line_stipple_enable = true;
        r.line_stipple_factor = (FACTOR - 1) as u8;
        r.line_stipple_pattern = PATTERN;
    })?;
    let line: Vec<f32> = [vtx(0.5, 8.5), vtx(16.5, 8.5)].concat();
    bind_vertices(&mut e, &line, None)?;
    clear_color(&mut e, [0.0; 4])?;
    let info = pipe_core::draw::DrawInfo {
        mode: PrimType::Lines,
        ..Default::default()
    };
    let one = [pipe_core::draw::DrawStartCountBias {
        start: 0,
        count: 2,
        index_bias: 0,
    }];
    step("stippled draw", e.ctx.draw_vbo(&info, 0, None, &one))?;
    check_image(ctx, &mut e, &t, stippled_row8)?;
    clear_color(&mut e, [0.0; 4])?;
    bind_rasterizer(&mut e, |r| r.light_twoside = true)?;
    draw(&mut e, PrimType::Lines, 0, 2, 1)?;
    check_image(ctx, &mut e, &t, |_, y| {
        Some(if y == 8 { unorm(COLOR) } else { [0; 4].into() })
    })
}
crate::result_case!(
    "pipe.draw.rast_prim.stipple_back_color.emulated",
    stipple_back_color
);

/// A fragment shader reading a varying the last vertex-processing stage
/// does not write (legal in GL, where its value is undefined; invalid in
/// Vulkan): it reads 0, as in Zink. The vertex shader writes (0.25, 0.5,
/// 0, 1) at location 0; the fragment shader outputs location 0 plus
/// location 3, which nothing writes. With `gs`, a pass-through geometry
/// shader that writes only location 0 is the last stage.
fn unwritten_varying(ctx: &mut TestContext, gs: bool) -> R {
    const VS: &str = "shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
out @a : f32x4 location=0
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  %1 : f32x4 = const 0.25, 0.5, 0.0, 1.0
  store @a, %1
}
";
    const FS: &str = "shader fragment
in @a : f32x4 location=0
in @b : f32x4 location=3
out @frag : f32x4 location=0
fn main {
  %0 : f32x4 = load @a
  %1 : f32x4 = load @b
  %2 : f32x4 = fadd %0, %1
  store @frag, %2
}
";
    const GS: &str =
        "shader geometry input=triangles output=triangle_strip max_vertices=3 invocations=1
in @pos : f32x4[3] builtin=position
in @ia : f32x4[3] location=0
out @gl_pos : f32x4 builtin=position
out @a : f32x4 location=0
fn main {
  %0 : i32 = const 0
  %1 : i32 = const 1
  %2 : i32 = const 2
  %3 : f32x4 = load @pos, %0
  %4 : f32x4 = load @ia, %0
  store @gl_pos, %3
  store @a, %4
  emit_vertex
  %5 : f32x4 = load @pos, %1
  %6 : f32x4 = load @ia, %1
  store @gl_pos, %5
  store @a, %6
  emit_vertex
  %7 : f32x4 = load @pos, %2
  %8 : f32x4 = load @ia, %2
  store @gl_pos, %7
  store @a, %8
  emit_vertex
  end_primitive
}
";
    let mut e = env_with(ctx, |_| {})?;
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS, FS)?;
    if gs {
        bind_stage(&mut e, ShaderStage::Geometry, GS)?;
    }
    bind_rasterizer(&mut e, |_| {})?;
    let full: Vec<f32> = [vtx(-8.0, -8.0), vtx(40.0, -8.0), vtx(-8.0, 40.0)].concat();
    bind_vertices(&mut e, &full, None)?;
    clear_color(&mut e, [0.0; 4])?;
    draw(&mut e, PrimType::Triangles, 0, 3, 1)?;
    check_image(ctx, &mut e, &t, |_, _| Some(unorm([0.25, 0.5, 0.0, 1.0])))
}
crate::bool_cases!(
    unwritten_varying,
    "pipe.draw.unwritten_varying.vs",
    "pipe.draw.unwritten_varying.gs"
);
