//! Hidden edges of quads, quad strips and polygons drawn in polygon mode
//! `LINE` or `POINT` (GL's edge flags: the implicit ones of a driver that
//! splits polygons into triangles, and the explicit ones a vertex shader
//! writes to its `slot=edge` output for separate triangles, quads and
//! polygons).
//!
//! Vulkan has no polygons: pipe-vk draws a quad or polygon as triangles,
//! and in line mode Vulkan then draws every triangle edge, diagonals
//! included; in point mode a vertex that two triangles share is drawn
//! twice. GL draws only the polygon's boundary, and each vertex once.
//! Mesa's draw module and u_unfilled do it by turning the polygon into
//! lines or points; that loses what the rasterizer does with a polygon in
//! line mode (culling, facing, polygon offset, the polygon's provoking
//! vertex). Here the triangles stay triangles, and the fragment shader
//! throws away what GL would not draw:
//!
//! 1. pipe-vk's index rewriting (`pipe_vk::prim`, `Edges`) draws the
//!    triangles as `triangles_adjacency`, encoding which edges (in line
//!    mode) or vertices (in point mode) are hidden in the adjacency
//!    vertices.
//! 2. [`super::line_stipple::polygon_edges_gs`], the generated geometry
//!    shader, decodes that into the `flat` mask `edge_mask` and emits the
//!    triangle with its barycentrics (the `stipple_poly` varying of line
//!    stipple emulation, which the same shader computes). With explicit
//!    edge flags it also hides edge `i` when triangle vertex `i`'s flag
//!    is 0.0.
//! 3. [`lower_polygon_edges_fs`] discards a fragment whose edge (the one
//!    opposite the smallest barycentric coordinate; in line mode the
//!    rasterizer interpolates along the edge, so that coordinate is 0
//!    there) or vertex (the largest coordinate: 1 at the vertex a point
//!    is drawn for) is hidden. Where two edges meet (a tie, only at a
//!    vertex), the fragment stays when either is visible.
//!
//! Line stipple emulation of such polygons reads the same varying and
//! composes with this.

use super::gl::Emit;
use super::line_stipple::{edge_mask_var, EDGE_MASK_NAME, STIPPLE_POLY_NAME};
use super::PolygonEdges;
use crate::binding::{EDGE_MASK_LOCATION, STIPPLE_POS_LOCATION};
use crate::error::{Error, Result};
use crate::ir::*;

/// The input at `location`: `Ok(Some)` when it is `ty` named `name` (one
/// this lowering or line stipple emulation added), `Ok(None)` when
/// nothing uses the location, an error when something else does.
fn find_input(s: &Shader, location: u32, name: &str, ty: Type) -> Result<Option<VarId>> {
    for (i, v) in s.vars.iter().enumerate() {
        let Some(io) = v.io() else { continue };
        if !v.is_input() || io.builtin.is_some() {
            continue;
        }
        let Some(loc) = io.location else { continue };
        if !(loc..loc.saturating_add(v.locations(s.stage))).contains(&location) {
            continue;
        }
        if v.name == name && v.ty == ty && v.array.is_none() {
            return Ok(Some(VarId(i as u32)));
        }
        return Err(Error::new(format!(
            "polygon edges: location {location} (@{}) is reserved for {name}",
            v.name
        )));
    }
    Ok(None)
}

/// In a fragment shader, at the start of `main`: discard the fragment
/// when its edge (`Lines`) or vertex (`Points`) is hidden (see the module
/// docs). Adds the inputs `stipple_poly` at [`STIPPLE_POS_LOCATION`]
/// (reused when line stipple emulation added it) and `edge_mask` at
/// [`EDGE_MASK_LOCATION`]; errors when the shader uses either location
/// for something else. Does nothing in other stages.
pub fn lower_polygon_edges_fs(s: &mut Shader, edges: PolygonEdges) -> Result<()> {
    if s.stage != Stage::Fragment {
        return Ok(());
    }
    let bary = match find_input(s, STIPPLE_POS_LOCATION, STIPPLE_POLY_NAME, Type::vec4())? {
        Some(v) => v,
        None => s.add_var(Variable {
            name: STIPPLE_POLY_NAME.into(),
            kind: VarKind::Input(IoInfo {
                location: Some(STIPPLE_POS_LOCATION),
                interp: Interp::NoPerspective,
                ..Default::default()
            }),
            ty: Type::vec4(),
            array: None,
            inner: None,
        }),
    };
    let mask = match find_input(s, EDGE_MASK_LOCATION, EDGE_MASK_NAME, Type::U32)? {
        Some(v) => v,
        None => s.add_var(edge_mask_var(false)),
    };
    let f = Type::F32;
    let mut e = Emit::new(s);
    let raw = e.load(bary, None);
    let m = e.load(mask, None);
    let b0 = e.swizzle(f, raw, &[2]);
    let b1 = e.swizzle(f, raw, &[3]);
    let one = e.f32(1.0);
    let b01 = e.alu(AluOp::Fadd, f, &[b0, b1]);
    let b2 = e.alu(AluOp::Fsub, f, &[one, b01]);
    // For each edge (vertex) i: the coordinate that picks it, and whether
    // the fragment is on it: edge i (vertex i to i + 1) is opposite
    // vertex i + 2, whose coordinate is the smallest there; a point of
    // vertex i has coordinate i the largest. A tolerance keeps the
    // endpoints' rounding from splitting a tie.
    let eps = e.f32(1e-5);
    let (pick, extreme): ([ValueId; 3], ValueId) = match edges {
        PolygonEdges::Lines => {
            let lo = e.alu(AluOp::Fmin, f, &[b0, b1]);
            let lo = e.alu(AluOp::Fmin, f, &[lo, b2]);
            ([b2, b0, b1], e.alu(AluOp::Fadd, f, &[lo, eps]))
        }
        PolygonEdges::Points => {
            let hi = e.alu(AluOp::Fmax, f, &[b0, b1]);
            let hi = e.alu(AluOp::Fmax, f, &[hi, b2]);
            ([b0, b1, b2], e.alu(AluOp::Fsub, f, &[hi, eps]))
        }
    };
    let zero = e.u32(0);
    let mut visible = e.konst(Type::BOOL, vec![0]);
    for (i, &c) in pick.iter().enumerate() {
        let on = match edges {
            PolygonEdges::Lines => e.alu(AluOp::Fge, Type::BOOL, &[extreme, c]),
            PolygonEdges::Points => e.alu(AluOp::Fge, Type::BOOL, &[c, extreme]),
        };
        let bit = e.u32(1 << i);
        let hidden_bits = e.alu(AluOp::Iand, Type::U32, &[m, bit]);
        let shown = e.alu(AluOp::Ieq, Type::BOOL, &[hidden_bits, zero]);
        let v = e.alu(AluOp::Band, Type::BOOL, &[on, shown]);
        visible = e.alu(AluOp::Bor, Type::BOOL, &[visible, v]);
    }
    let hidden = e.alu(AluOp::Bnot, Type::BOOL, &[visible]);
    super::gl::discard_first_if(e, hidden);
    Ok(())
}
