//! Smooth lines (GL's `LINE_SMOOTH` where lines are not multisampled) for
//! devices that cannot draw them: no `smoothLines` in
//! `VK_EXT_line_rasterization`, or a driver whose smooth lines are off
//! (pipe-vk's `DeviceShared::device_smooth_lines`).
//!
//! GL's smooth line is a rectangle of the line's width, centred on the
//! segment, and a fragment's coverage is the share of its pixel inside
//! it; the coverage multiplies the fragment's alpha. The emulation draws
//! the line as a rectangular (non-smooth) line one pixel wider, so every
//! pixel whose centre is within half a pixel of the rectangle gets a
//! fragment, and the fragment shader computes the coverage:
//!
//! 1. [`lower_smooth_lines`], in the last vertex stage, writes the
//!    vertex's clip-space `(x, y, w)` to the `f32x3` varying
//!    `smooth_line_clip` at [`SMOOTH_LINE_LOCATION`]. A rectangular
//!    line's attributes are those of the point on the segment that the
//!    fragment centre projects to (Vulkan's line rasterization), and
//!    interpolated perspective-correctly, `xy / w` of the varying is that
//!    point's NDC position, exactly (clip-space attributes survive
//!    clipping unchanged, unlike a window position computed per vertex).
//! 2. [`lower_smooth_lines_fs`] maps it to window coordinates with the
//!    viewport ([`push::VIEWPORT_SCALE`], [`push::VIEWPORT_TRANSLATE`]),
//!    so the distance `d` from the pixel centre (`FragCoord`) to it is the
//!    distance across the line, and takes as coverage the overlap of the
//!    pixel's extent across the line, `[d - 1/2, d + 1/2]`, with the
//!    rectangle's, `[-width/2, width/2]`. That is exact for lines along an
//!    axis (and for any width, below one pixel too) and a linear ramp over
//!    the pixel's footprint for others, as Mesa's `nir_lower_aaline_fs`
//!    (draw module and Zink). A fragment with no coverage is discarded;
//!    before each exit every colour output's alpha is multiplied by the
//!    coverage ([`super::aliased::weigh_colour_alpha`], before the alpha
//!    test).
//!
//! SPIR-V passthrough shaders get the same two halves patched in
//! (`crate::patch::smooth_lines`, `crate::patch::smooth_lines_fs`).
//!
//! The ends (key item `smooth_line_ends`): a line ends at its vertices,
//! so pixels past an end get no fragment and those just inside would be
//! weighed across the line only. Where the last vertex stage is a vertex
//! or tessellation evaluation shader, pipe-vk follows it with
//! [`super::line_stipple::smooth_line_ends_gs`], which lengthens each
//! segment by half a pixel at both ends and passes the distance along it
//! and its length, and the fragment shader also weighs by the pixel's
//! extent along the line inside the segment (as Zink's geometry-shader
//! emulation extends the ends; SPIR-V passthrough fragment shaders get
//! the same weighing patched in, `crate::patch::smooth_lines_fs`). Not
//! with an application geometry shader or stream output from the last
//! vertex stage: those lines end at the vertices. A stippled line with
//! its ends is stippled here (key item `line_stipple` with
//! `smooth_line_ends`), as GL stipples smooth lines: the distance along
//! it is cut into rectangles one pixel (the factor) long, each kept or
//! dropped by its pattern bit, and the coverage along the line counts the
//! kept ones only (the device's stipple would count from the lengthened
//! start, and keeps or drops whole fragments). The viewport is viewport 0's:
//! pipe-vk does not use the emulation when the last vertex stage writes
//! `ViewportIndex`.

use super::aliased::{check_location_free, weigh_colour_alpha};
use super::gl::{
    discard_first_if, driver_varying, get_builtin, get_push, insert_at_vertex_end, Emit,
};
use crate::binding::{push, SMOOTH_LINE_LOCATION};
use crate::error::Result;
use crate::ir::*;

/// Name of the clip-position varying.
pub const SMOOTH_LINE_NAME: &str = "smooth_line_clip";

fn smooth_line_var(output: bool) -> Variable {
    driver_varying(
        SMOOTH_LINE_NAME,
        SMOOTH_LINE_LOCATION,
        Interp::Smooth,
        Type::float(32, 3),
        output,
    )
}

/// Smooth lines, last vertex stage (key item `smooth_lines`): writes the
/// position's `(x, y, w)` to `smooth_line_clip` where each vertex's outputs
/// are final (at the exits, or before each geometry shader
/// `emit_vertex`). Other stages are left alone.
pub fn lower_smooth_lines(s: &mut Shader) -> Result<()> {
    if !s.stage.is_pre_raster() {
        return Ok(());
    }
    check_location_free(s, SMOOTH_LINE_LOCATION, false, SMOOTH_LINE_NAME)?;
    let pos = get_builtin(s, true, BuiltIn::Position, Type::vec4(), None);
    let out = s.add_var(smooth_line_var(true));
    insert_at_vertex_end(s, &mut |s| {
        let mut e = Emit::new(s);
        let p = e.load(pos, None);
        let q = e.swizzle(Type::float(32, 3), p, &[0, 1, 3]);
        e.store(out, None, q);
        e.out
    });
    Ok(())
}

/// Smooth lines, fragment shader: the coverage of the fragment's pixel by
/// a line `width` pixels wide (see the module docs); discards the fragment
/// when it is 0, and weighs the colour outputs' alpha by it.
///
/// `ends` (key item `smooth_line_ends`): the line comes from
/// [`super::line_stipple::smooth_line_ends_gs`], lengthened by half a
/// pixel at each end; the coverage is also the overlap of the pixel's
/// extent along the line, `[s - 1/2, s + 1/2]` (`s` the `stipple_pos`
/// varying, the distance along it from its first vertex), with the
/// segment's, `[0, len]` (`smooth_line_len`).
///
/// `stipple` (with `ends`; the key's `line_stipple` with
/// `smooth_line_ends`): the line is stippled too, as GL stipples smooth
/// lines: a sequence of rectangles one pixel long (`factor` long per
/// pattern bit) along the line, each kept or dropped by its bit. Only the
/// kept part of that overlap counts (at most two bits' rectangles, as the
/// overlap is at most a pixel long and the factor at least 1), and
/// [`super::line_stipple::lower_line_stipple_fs`] is not used.
pub fn lower_smooth_lines_fs(s: &mut Shader, width: f32, ends: bool, stipple: bool) -> Result<()> {
    if s.stage != Stage::Fragment {
        return Ok(());
    }
    check_location_free(s, SMOOTH_LINE_LOCATION, true, SMOOTH_LINE_NAME)?;
    let along_in = if ends {
        use super::line_stipple::{smooth_line_len_var, stipple_var, STIPPLE_POS_NAME};
        use crate::binding::{EDGE_MASK_LOCATION, STIPPLE_POS_LOCATION};
        check_location_free(s, STIPPLE_POS_LOCATION, true, STIPPLE_POS_NAME)?;
        check_location_free(
            s,
            EDGE_MASK_LOCATION,
            true,
            super::line_stipple::SMOOTH_LINE_LEN_NAME,
        )?;
        Some((
            super::gl::driver_input(s, stipple_var(false)),
            super::gl::driver_input(s, smooth_line_len_var(false)),
        ))
    } else {
        None
    };
    let clip_in = super::gl::driver_input(s, smooth_line_var(false));
    let frag_coord = get_builtin(s, false, BuiltIn::FragCoord, Type::vec4(), None);
    let pc = get_push(s);
    let coverage = s.add_var(Variable {
        name: "smooth_line_coverage".into(),
        kind: VarKind::Local,
        ty: Type::F32,
        array: None,
        inner: None,
    });
    let (f, f2) = (Type::F32, Type::float(32, 2));
    let mut e = Emit::new(s);
    let q = e.load(clip_in, None);
    let xy = e.swizzle(f2, q, &[0, 1]);
    let ww = e.swizzle(f2, q, &[2, 2]);
    let ndc = e.alu(AluOp::Fdiv, f2, &[xy, ww]);
    let load_push = |e: &mut Emit, offset: u32| {
        let off = e.u32(offset);
        e.def(
            f2,
            Op::Intrinsic(Intrinsic::LoadPush {
                var: pc,
                offset: off,
            }),
        )
    };
    let scale = load_push(&mut e, push::VIEWPORT_SCALE);
    let translate = load_push(&mut e, push::VIEWPORT_TRANSLATE);
    let on_line = e.alu(AluOp::Ffma, f2, &[ndc, scale, translate]);
    let fc = e.load(frag_coord, None);
    let centre = e.swizzle(f2, fc, &[0, 1]);
    let d = e.alu(AluOp::Fdistance, f, &[centre, on_line]);
    // Overlap of [d - 1/2, d + 1/2] with [-h, h].
    let half = e.f32(0.5);
    let h = e.f32(width.max(0.0) * 0.5);
    let neg_h = e.f32(-width.max(0.0) * 0.5);
    let top = e.alu(AluOp::Fadd, f, &[d, half]);
    let top = e.alu(AluOp::Fmin, f, &[top, h]);
    let bottom = e.alu(AluOp::Fsub, f, &[d, half]);
    let bottom = e.alu(AluOp::Fmax, f, &[bottom, neg_h]);
    let c = e.alu(AluOp::Fsub, f, &[top, bottom]);
    let mut c = e.alu(AluOp::Fsat, f, &[c]);
    if let Some((along_in, len_in)) = along_in {
        // Overlap of [s - 1/2, s + 1/2] with [0, len].
        let s_ = e.load(along_in, None);
        let len = e.load(len_in, None);
        let zero = e.f32(0.0);
        let top = e.alu(AluOp::Fadd, f, &[s_, half]);
        let top = e.alu(AluOp::Fmin, f, &[top, len]);
        let bottom = e.alu(AluOp::Fsub, f, &[s_, half]);
        let bottom = e.alu(AluOp::Fmax, f, &[bottom, zero]);
        let a = if stipple {
            // The rectangles of bits k0 = floor(bottom / factor) and
            // k0 + 1, split at (k0 + 1) * factor.
            use super::line_stipple::{stipple_bit, stipple_pattern};
            let (pattern, factor) = stipple_pattern(&mut e, pc);
            let q = e.alu(AluOp::Fdiv, f, &[bottom, factor]);
            let k0 = e.alu(AluOp::Ffloor, f, &[q]);
            let one = e.f32(1.0);
            let k1 = e.alu(AluOp::Fadd, f, &[k0, one]);
            let split = e.alu(AluOp::Fmul, f, &[k1, factor]);
            let first_end = e.alu(AluOp::Fmin, f, &[top, split]);
            let first = e.alu(AluOp::Fsub, f, &[first_end, bottom]);
            let first = e.alu(AluOp::Fsat, f, &[first]);
            let second = e.alu(AluOp::Fsub, f, &[top, split]);
            let second = e.alu(AluOp::Fsat, f, &[second]);
            let bit0 = stipple_bit(&mut e, pattern, k0);
            let bit0 = e.alu(AluOp::U2f, f, &[bit0]);
            let bit1 = stipple_bit(&mut e, pattern, k1);
            let bit1 = e.alu(AluOp::U2f, f, &[bit1]);
            let kept = e.alu(AluOp::Fmul, f, &[bit0, first]);
            e.alu(AluOp::Ffma, f, &[bit1, second, kept])
        } else {
            let a = e.alu(AluOp::Fsub, f, &[top, bottom]);
            e.alu(AluOp::Fsat, f, &[a])
        };
        c = e.alu(AluOp::Fmul, f, &[c, a]);
    }
    e.store(coverage, None, c);
    let zero = e.f32(0.0);
    let none = e.alu(AluOp::Fge, Type::BOOL, &[zero, c]);
    discard_first_if(e, none);
    weigh_colour_alpha(s, coverage);
    Ok(())
}
