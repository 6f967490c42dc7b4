//! Cases from a review of the last-pipeline reuse (`state_dirty`), the
//! vertex format fix-ups and the generated null fragment shader:
//! `pipe.draw.pipeline_reuse.*`, `pipe.draw.inline_uniforms.*`, and more
//! `pipe.draw.polygon_stipple.*` and `pipe.draw.vertex_format.*` cases.
//! Each failed on the code it was written against; the expected values
//! are computed here from GL's rules.

use std::sync::Arc;

use pipe_core::draw::PrimType;
use pipe_core::resource::PipeBox;
use pipe_core::shader::{ShaderCode, ShaderState, StreamOutputInfo};
use pipe_core::state::*;
use pipe_core::Format;

use super::draw::{bind_vertices, check_image, clear_color, draw, setup};
use crate::harness::{
    bind_program, env, env_with, f32s, set_user_constants, shader, step, unorm, VS_PASSTHROUGH,
};
use crate::{test_case, Outcome, TestContext};

type R = Result<(), Outcome>;

/// A triangle covering the whole target.
const FULL: [f32; 12] = [
    -1.0, -1.0, 0.0, 1.0, 3.0, -1.0, 0.0, 1.0, -1.0, 3.0, 0.0, 1.0,
];

// ---------------------------------------------------------------------------
// Last-pipeline reuse.
// ---------------------------------------------------------------------------

/// c1512e8 says full-path draws with no context call between them reuse
/// the last pipeline (one lookup), and the comment of
/// `pipe.draw.clear_as_load_op` says so for devices without multi-draw.
/// With merging off (`no_draw_merge`), three identical draws and no call
/// between them should then cost one pipeline lookup.
fn unmerged_draws_one_lookup(ctx: &mut TestContext) -> R {
    let screen = super::draw::merging_screen(ctx, false)?;
    let mut c = super::draw::unwrapped_triangle_rig(&screen, 4, 4, &FULL)?;
    let before = c.stats().pipeline_lookups;
    for _ in 0..3 {
        super::draw::draw_unwrapped(&mut c, 3)?;
    }
    let lookups = c.stats().pipeline_lookups - before;
    if lookups != 1 {
        return Err(Outcome::fail(format!(
            "three unmerged draws with no call between them looked the pipeline up \
             {lookups} times (want 1: the last pipeline is reused while state_dirty is \
             clear); draw_vbo_merging calls break_draw_merge, which sets state_dirty, \
             before every full-path draw"
        )));
    }
    Ok(())
}
const _: () = {
    fn run(ctx: &mut TestContext) -> Outcome {
        Outcome::from_result(unmerged_draws_one_lookup(ctx))
    }
    test_case!(
        name = "pipe.draw.pipeline_reuse.unmerged_draws_one_lookup",
        run
    );
};

// ---------------------------------------------------------------------------
// Inlined constants of the vertex shader applied to the geometry shader.
// ---------------------------------------------------------------------------

/// A geometry shader colouring its triangle with the first vec4 of its
/// own constant buffer 0.
const GS_UBO: &str =
    "shader geometry input=triangles output=triangle_strip max_vertices=3 invocations=1
in @pos : f32x4[3] builtin=position
out @gl_pos : f32x4 builtin=position
out @col : f32x4 location=0
ubo @c slot=0 size=16
fn main {
  %0 : i32 = const 0
  %1 : i32 = const 1
  %2 : i32 = const 2
  %3 : u32 = const 0
  %4 : f32x4 = load_ubo @c, %3
  %6 : f32x4 = load @pos, %0
  %7 : f32x4 = load @pos, %1
  %8 : f32x4 = load @pos, %2
  store @col, %4
  store @gl_pos, %6
  emit_vertex
  store @col, %4
  store @gl_pos, %7
  emit_vertex
  store @col, %4
  store @gl_pos, %8
  emit_vertex
  end_primitive
}
";

const FS_VARYING: &str = "shader fragment
in @col : f32x4 location=0
out @frag : f32x4 location=0
fn main {
  %0 : f32x4 = load @col
  store @frag, %0
}
";

/// `set_inlinable_constants(Vertex, ..)` holds the vertex stage's
/// constant buffer 0 values. The geometry shader's constant buffer 0 is
/// another buffer: its loads must read it, not the vertex stage's
/// inlined values. pipe-vk builds the last vertex stage's module with
/// the vertex key (`pipeline_for`: `stage_mod(gs, true)` takes `vs_key`,
/// whose `inline_uniforms` are the vertex stage's).
fn gs_ignores_vs_inlined(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    if !e.screen.caps().shader[ShaderStage::Geometry.index()].supported {
        return Err(Outcome::skip("no geometry shaders"));
    }
    let t = setup(&mut e, false)?;
    bind_program(&mut e, VS_PASSTHROUGH, FS_VARYING)?;
    let g = step(
        "create_gs_state",
        e.ctx
            .create_gs_state(&shader(ShaderStage::Geometry, GS_UBO)?),
    )?;
    step("bind_gs_state", e.ctx.bind_gs_state(Some(g)))?;
    let red = [1.0f32, 0.0, 0.0, 1.0];
    let green = [0.0f32, 1.0, 0.0, 1.0];
    // The vertex stage's constant buffer 0 and its inlinable copy.
    set_user_constants(&mut e, ShaderStage::Vertex, &f32s(&red))?;
    step(
        "set_inlinable_constants",
        e.ctx
            .set_inlinable_constants(ShaderStage::Vertex, &red.map(f32::to_bits)),
    )?;
    set_user_constants(&mut e, ShaderStage::Geometry, &f32s(&green))?;
    bind_vertices(&mut e, &FULL, None)?;
    clear_color(&mut e, [0.0; 4])?;
    draw(&mut e, PrimType::Triangles, 0, 3, 1)?;
    check_image(ctx, &mut e, &t, |_, _| Some(unorm(green)))
        .map_err(|o| Outcome::fail(format!("geometry shader constant buffer 0: {o:?}")))?;
    step("unbind gs", e.ctx.bind_gs_state(None))?;
    step("delete gs", e.ctx.delete_gs_state(g))
}
const _: () = {
    fn run(ctx: &mut TestContext) -> Outcome {
        Outcome::from_result(gs_ignores_vs_inlined(ctx))
    }
    test_case!(
        name = "pipe.draw.inline_uniforms.gs_reads_own_constants",
        run
    );
};

// ---------------------------------------------------------------------------
// The generated null fragment shader.
// ---------------------------------------------------------------------------

/// A depth-only draw (no fragment shader) with polygon stipple and the
/// alpha test on: the stipple needs the generated fragment shader, which
/// has no colour output for the alpha test lowering. GL leaves the
/// colour (and so the alpha test's outcome) undefined without a fragment
/// shader, but the draw must be made, and fragments the stipple discards
/// must leave depth alone whatever the alpha test does.
fn null_fs_alpha_test(ctx: &mut TestContext) -> R {
    let mut e = env(ctx, false)?;
    let t = setup(&mut e, true)?;
    let v = step(
        "vs",
        e.ctx
            .create_vs_state(&shader(ShaderStage::Vertex, VS_PASSTHROUGH)?),
    )?;
    step("bind vs", e.ctx.bind_vs_state(Some(v)))?;
    step("unbind fs", e.ctx.bind_fs_state(None))?;
    let rs = RasterizerState {
        line_width: 1.0,
        clip_halfz: true,
        depth_clip_near: true,
        depth_clip_far: true,
        half_pixel_center: true,
        poly_stipple_enable: true,
        ..Default::default()
    };
    let h = step("rasterizer", e.ctx.create_rasterizer_state(&rs))?;
    step("bind rasterizer", e.ctx.bind_rasterizer_state(Some(h)))?;
    let mut p = PolyStipple::default();
    for (y, w) in p.stipple.iter_mut().enumerate() {
        *w = if y % 2 == 0 { 0xAAAA_AAAA } else { 0x5555_5555 };
    }
    step("set_polygon_stipple", e.ctx.set_polygon_stipple(&p))?;
    let dsa = DepthStencilAlphaState {
        depth_enabled: true,
        depth_writemask: true,
        depth_func: CompareFunc::Always,
        alpha_enabled: true,
        alpha_func: CompareFunc::Greater,
        alpha_ref_value: 0.5,
        ..Default::default()
    };
    let d = step("dsa", e.ctx.create_depth_stencil_alpha_state(&dsa))?;
    step("bind dsa", e.ctx.bind_depth_stencil_alpha_state(Some(d)))?;
    let quad = [
        -1.0, -1.0, 0.25, 1.0, 3.0, -1.0, 0.25, 1.0, -1.0, 3.0, 0.25, 1.0,
    ];
    bind_vertices(&mut e, &quad, None)?;
    clear_color(&mut e, [0.0; 4])?;
    draw(&mut e, PrimType::Triangles, 0, 3, 1)?;
    let (w, hgt) = (16u32, 16u32);
    let z = e.read_texture(
        t.depth.as_ref().ok_or_else(|| Outcome::fail("no depth"))?,
        0,
        &PipeBox::rect(0, 0, w, hgt),
    )?;
    for (i, px) in z.chunks(4).enumerate() {
        let (x, y) = (i as u32 % w, i as u32 / w);
        let v = f32::from_le_bytes([px[0], px[1], px[2], px[3]]);
        // Stippled out: (x + y) odd keeps the cleared 1.0. Drawn pixels
        // hold 0.25 or 1.0 (alpha test of an undefined colour).
        let ok = if (x + y) % 2 == 1 {
            v == 1.0
        } else {
            v == 1.0 || (v - 0.25).abs() < 1e-6
        };
        if !ok {
            return Err(Outcome::fail(format!("depth at ({x}, {y}) is {v}")));
        }
    }
    Ok(())
}
const _: () = {
    fn run(ctx: &mut TestContext) -> Outcome {
        Outcome::from_result(null_fs_alpha_test(ctx))
    }
    test_case!(
        name = "pipe.draw.polygon_stipple.no_fragment_shader_alpha_test",
        run
    );
};

// ---------------------------------------------------------------------------
// Vertex fetch fix-ups.
// ---------------------------------------------------------------------------

/// `c = a` with `a` at location 1 declared with `comps` components (a
/// vec3 gets w = 1), position from location 0.
fn vs_attr(comps: u32) -> String {
    let (ty, widen) = match comps {
        3 => (
            "f32x3",
            "  %2 : f32 = const 1.0\n  %4 : f32 = swizzle %1, x\n  %5 : f32 = swizzle %1, y\n  \
             %6 : f32 = swizzle %1, z\n  %3 : f32x4 = vec %4, %5, %6, %2\n",
        ),
        _ => ("f32x4", "  %3 : f32x4 = swizzle %1, xyzw\n"),
    };
    format!(
        "shader vertex
in @pos : f32x4 location=0
in @a : {ty} location=1
out @gl_pos : f32x4 builtin=position
out @c : f32x4 location=0
fn main {{
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  %1 : {ty} = load @a
{widen}  store @c, %3
}}
"
    )
}

/// A packed 2/10/10/10 attribute read as a vec3 (GL's usual packed
/// normal: `in vec3` from `GL_INT_2_10_10_10_REV`), with the fix-up in
/// use. GL fetches all four components and hands the shader x, y, z;
/// `lower_vertex_fixups` refuses any input that is not f32x4
/// ("a2b10g10r10 fix-ups need an f32x4 input"), so the draw fails where
/// the native fetch works.
fn packed_vec3(ctx: &mut TestContext) -> R {
    let word: u32 = 1023 | 512 << 10 | 2 << 30;
    let want = [1.0, 512.0 / 1023.0, 0.0, 1.0];
    // Native first (the case itself is sound), then through the fix-up.
    for forced in [false, true] {
        let mut e = env_with(ctx, |o| o.vertex_fixups = Some(forced))?;
        super::vertex_format::attrib_draw(
            &mut e,
            shader(ShaderStage::Vertex, &vs_attr(3))?,
            Format::R10G10B10A2Unorm,
            &word.to_le_bytes(),
            want,
            false,
        )
        .map_err(|o| Outcome::fail(format!("fix-ups forced: {forced}: {o:?}")))?;
    }
    Ok(())
}
const _: () = {
    fn run(ctx: &mut TestContext) -> Outcome {
        Outcome::from_result(packed_vec3(ctx))
    }
    test_case!(name = "pipe.draw.vertex_format.packed_vec3_input", run);
};

/// A SPIR-V vertex shader reading a BGRA attribute with the fix-up in
/// use: the draw once fetched the attribute as RGBA with the words passed
/// through, red and blue swapped; the fix-up was then refused for SPIR-V;
/// now `spirv_gen::patch` applies it, so the draw must be right.
fn spirv_vs_bgra(ctx: &mut TestContext) -> R {
    // Native first (the SPIR-V shader is sound), then with the fix-up.
    for forced in [false, true] {
        spirv_vs_bgra_on(ctx, forced)
            .map_err(|o| Outcome::fail(format!("fix-ups forced: {forced}: {o:?}")))?;
    }
    Ok(())
}

fn spirv_vs_bgra_on(ctx: &mut TestContext, forced: bool) -> R {
    let mut e = env_with(ctx, |o| o.vertex_fixups = Some(forced))?;
    let mut ir = spirv_gen::text::parse(&vs_attr(4))
        .map_err(|err| Outcome::fail(format!("test shader: {err}")))?;
    let key = spirv_gen::passes::VariantKey {
        last_vertex_stage: true,
        clip_halfz: true,
        ..Default::default()
    };
    spirv_gen::passes::lower(&mut ir, &key)
        .map_err(|err| Outcome::fail(format!("lower: {err}")))?;
    spirv_gen::passes::optimize(&mut ir);
    let words = spirv_gen::emit::emit(&ir, spirv_gen::emit::Target::Vulkan1_2)
        .map_err(|err| Outcome::fail(format!("emit: {err}")))?;
    let vs = ShaderState {
        stage: ShaderStage::Vertex,
        code: ShaderCode::SpirV {
            words: Arc::from(words),
            entry_point: "main".into(),
        },
        stream_output: StreamOutputInfo::default(),
    };
    // B, G, R, A bytes: GL's red is the third byte.
    let bytes = [51u8, 102, 204, 255];
    let want = [204.0 / 255.0, 102.0 / 255.0, 51.0 / 255.0, 1.0];
    super::vertex_format::attrib_draw(&mut e, vs, Format::B8G8R8A8Unorm, &bytes, want, false)
}
const _: () = {
    fn run(ctx: &mut TestContext) -> Outcome {
        Outcome::from_result(spirv_vs_bgra(ctx))
    }
    test_case!(name = "pipe.draw.vertex_format.spirv_vs_bgra", run);
};
