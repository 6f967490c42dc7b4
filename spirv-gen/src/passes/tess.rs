//! The generated pass-through tessellation control shader.
//!
//! Gallium lets a frontend bind a tessellation evaluation shader without a
//! control shader: the patch goes through unchanged and the tessellation
//! levels are the defaults of `set_tess_state`. Vulkan always needs a
//! control shader, so, as Zink does (`zink_shader_tcs_create`), the driver
//! generates one from the previous stage's outputs:
//!
//! - every output of the vertex shader (user varyings at their location
//!   and component, `position`, `point_size`, clip and cull distances) is
//!   read from the input patch at `invocation_id` and written to the same
//!   slot of the output patch;
//! - `vertices` (the output patch size) is the draw's patch vertex count;
//! - the levels come from the driver push block,
//!   [`crate::binding::push::DEFAULT_TESS_OUTER`] and
//!   [`crate::binding::push::DEFAULT_TESS_INNER`], so one module serves any
//!   `set_tess_state` values.
//!
//! Arrays (clip and cull distances, array varyings) are forwarded too,
//! element by element: the control shader's inputs and outputs are then
//! arrays of arrays ([`crate::ir::Variable::inner`]), so an evaluation
//! shader may read the vertex shader's `gl_ClipDistance`. Outputs that
//! cannot be forwarded (other built-ins, and per-patch outputs, which a
//! vertex shader cannot have) are refused with an error naming them.

use std::fmt::Write;

use crate::binding::push;
use crate::error::{Error, Result};
use crate::ir::{BuiltIn, Interp, Sampling, Shader, Stage, VarKind};

/// `gl_MaxPatchVertices`: the size of a control shader's input arrays.
pub const MAX_PATCH_VERTICES: u32 = 32;

/// The pass-through control shader for patches of `vertices` control
/// points written by `prev` (a vertex shader).
pub fn passthrough_tcs(prev: &Shader, vertices: u32) -> Result<Shader> {
    if prev.stage != Stage::Vertex {
        return Err(Error::new(format!(
            "pass-through TCS: the previous stage must be vertex, not {}",
            prev.stage.name()
        )));
    }
    if vertices == 0 || vertices > MAX_PATCH_VERTICES {
        return Err(Error::new(format!(
            "pass-through TCS: {vertices} vertices per patch (1..={MAX_PATCH_VERTICES})"
        )));
    }
    let mut decls = String::new();
    let mut body = String::new();
    let _ = writeln!(decls, "shader tess_ctrl vertices={vertices}");
    let _ = writeln!(decls, "in @iid : i32 builtin=invocation_id");
    let _ = writeln!(body, "  %0 : i32 = load @iid");
    let mut n = 1u32;
    for (i, v) in prev.vars.iter().enumerate() {
        let VarKind::Output(io) = &v.kind else {
            continue;
        };
        let what = || format!("pass-through TCS: vertex output @{}", v.name);
        if io.patch {
            return Err(Error::new(format!(
                "{}: patch outputs cannot be forwarded",
                what()
            )));
        }
        let slot = match (io.builtin, io.location) {
            (
                Some(
                    b @ (BuiltIn::Position
                    | BuiltIn::PointSize
                    | BuiltIn::ClipDistance
                    | BuiltIn::CullDistance),
                ),
                _,
            ) => {
                format!("builtin={}", b.name())
            }
            (Some(b), _) => {
                return Err(Error::new(format!(
                    "{}: built-in {} cannot be forwarded",
                    what(),
                    b.name()
                )))
            }
            (None, Some(l)) => {
                let mut s = format!("location={l}");
                if io.component != 0 {
                    let _ = write!(s, " component={}", io.component);
                }
                // Interpolation qualifiers mean nothing between these
                // stages, but must match the next stage's (Vulkan
                // interface matching ignores them for tessellation, yet a
                // flat integer varying must stay flat in the vertex stage's
                // sense): keep them.
                match io.interp {
                    Interp::Flat => s.push_str(" flat"),
                    Interp::NoPerspective => s.push_str(" noperspective"),
                    Interp::Smooth => {}
                }
                if io.sampling == Sampling::Centroid {
                    s.push_str(" centroid");
                }
                s
            }
            (None, None) => return Err(Error::new(format!("{}: no location", what()))),
        };
        let ty = v.ty;
        match v.array {
            None => {
                let _ = writeln!(decls, "in @i{i} : {ty}[{MAX_PATCH_VERTICES}] {slot}");
                let _ = writeln!(decls, "out @o{i} : {ty}[{vertices}] {slot}");
                let _ = writeln!(body, "  %{n} : {ty} = load @i{i}, %0");
                let _ = writeln!(body, "  store @o{i}, %0, %{n}");
                n += 1;
            }
            // An array (clip or cull distances, an array varying): each
            // vertex's is an array of arrays' element, indexed flat
            // (`Variable::inner`), element by element.
            Some(len) => {
                let _ = writeln!(decls, "in @i{i} : {ty}[{MAX_PATCH_VERTICES}][{len}] {slot}");
                let _ = writeln!(decls, "out @o{i} : {ty}[{vertices}][{len}] {slot}");
                let _ = writeln!(body, "  %{n} : i32 = const {len}");
                let _ = writeln!(body, "  %{} : i32 = imul %0, %{n}", n + 1);
                let base = n + 1;
                n += 2;
                for k in 0..len {
                    let _ = writeln!(body, "  %{n} : i32 = const {k}");
                    let _ = writeln!(body, "  %{} : i32 = iadd %{base}, %{n}", n + 1);
                    let _ = writeln!(body, "  %{} : {ty} = load @i{i}, %{}", n + 2, n + 1);
                    let _ = writeln!(body, "  store @o{i}, %{}, %{}", n + 1, n + 2);
                    n += 3;
                }
            }
        }
    }
    let _ = writeln!(decls, "out @outer : f32[4] builtin=tess_level_outer");
    let _ = writeln!(decls, "out @inner : f32[2] builtin=tess_level_inner");
    let _ = writeln!(decls, "push @pc size={}", push::SIZE);
    // Levels: outer from the push block's f32x4, inner from its f32x2
    // (read as the first two components of a vec4 load would overrun the
    // block at the end; both offsets are 16-aligned or 8-aligned).
    let (o, inn) = (n, n + 1);
    let _ = writeln!(body, "  %{o} : u32 = const {}", push::DEFAULT_TESS_OUTER);
    let _ = writeln!(body, "  %{inn} : u32 = const {}", push::DEFAULT_TESS_INNER);
    let (ov, iv) = (n + 2, n + 3);
    let _ = writeln!(body, "  %{ov} : f32x4 = load_push @pc, %{o}");
    let _ = writeln!(body, "  %{iv} : f32x2 = load_push @pc, %{inn}");
    let mut k = n + 4;
    for c in 0..4u32 {
        let comp = ["x", "y", "z", "w"][c as usize];
        let _ = writeln!(body, "  %{k} : i32 = const {c}");
        let _ = writeln!(body, "  %{} : f32 = swizzle %{ov}, {comp}", k + 1);
        let _ = writeln!(body, "  store @outer, %{k}, %{}", k + 1);
        k += 2;
    }
    for c in 0..2u32 {
        let comp = ["x", "y"][c as usize];
        let _ = writeln!(body, "  %{k} : i32 = const {c}");
        let _ = writeln!(body, "  %{} : f32 = swizzle %{iv}, {comp}", k + 1);
        let _ = writeln!(body, "  store @inner, %{k}, %{}", k + 1);
        k += 2;
    }
    let text = format!("{decls}fn main {{\n{body}}}\n");
    crate::text::parse(&text)
        .map_err(|e| Error::new(format!("pass-through TCS (generated text): {e}\n{text}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    const VS: &str = "shader vertex
in @p : f32x4 location=0
out @gl_pos : f32x4 builtin=position
out @col : f32x4 location=0
out @id : u32 location=1 flat
out @uv : f32x2 location=2 component=2
fn main {
  %0 : f32x4 = load @p
  store @gl_pos, %0
  store @col, %0
  %1 : u32 = const 7
  store @id, %1
  %2 : f32x2 = swizzle %0, xy
  store @uv, %2
}
";

    #[test]
    fn forwards_every_output_and_reads_the_levels() {
        let vs = crate::text::parse(VS).unwrap();
        let tcs = passthrough_tcs(&vs, 4).unwrap();
        crate::validate::validate(&tcs).unwrap();
        let text = crate::text::print(&tcs);
        for needle in [
            "shader tess_ctrl vertices=4",
            "f32x4[32] builtin=position",
            "f32x4[4] builtin=position",
            "u32[4] location=1 flat",
            "f32x2[4] location=2 component=2",
            "builtin=tess_level_outer",
            "builtin=tess_level_inner",
        ] {
            assert!(text.contains(needle), "{needle} missing in\n{text}");
        }
        assert!(text.contains(&format!("const {}", push::DEFAULT_TESS_OUTER)));
        assert!(text.contains(&format!("const {}", push::DEFAULT_TESS_INNER)));
    }

    #[test]
    fn forwards_arrays_and_refuses_other_builtins() {
        let vs = crate::text::parse(
            "shader vertex
out @gl_pos : f32x4 builtin=position
out @cd : f32[2] builtin=clip_distance
out @arr : f32x4[2] location=0
fn main {
  %0 : f32 = const 0.0
  %1 : f32x4 = vec %0, %0, %0, %0
  store @gl_pos, %1
  %2 : i32 = const 0
  store @cd, %2, %0
  store @arr, %2, %1
}
",
        )
        .unwrap();
        // Arrays are forwarded as arrays of arrays, element by element.
        let tcs = passthrough_tcs(&vs, 3).unwrap();
        crate::validate::validate(&tcs).unwrap();
        let text = crate::text::print(&tcs);
        for decl in [
            "in @i1 : f32[32][2] builtin=clip_distance",
            "out @o1 : f32[3][2] builtin=clip_distance",
            "in @i2 : f32x4[32][2] location=0",
            "out @o2 : f32x4[3][2] location=0",
        ] {
            assert!(text.contains(decl), "{decl}\n{text}");
        }
        assert_eq!(text.matches("store @o1,").count(), 2, "{text}");
        assert_eq!(text.matches("store @o2,").count(), 2, "{text}");
        let other = crate::text::parse(
            "shader vertex
out @gl_pos : f32x4 builtin=position
out @vp : i32 builtin=viewport_index
fn main {
  %0 : f32 = const 0.0
  %1 : f32x4 = vec %0, %0, %0, %0
  store @gl_pos, %1
}
",
        )
        .unwrap();
        let e = passthrough_tcs(&other, 3).unwrap_err().to_string();
        assert!(e.contains("@vp") && e.contains("viewport_index"), "{e}");
        assert!(passthrough_tcs(&crate::text::parse(VS).unwrap(), 0).is_err());
        assert!(passthrough_tcs(&crate::text::parse(VS).unwrap(), 33).is_err());
    }
}
