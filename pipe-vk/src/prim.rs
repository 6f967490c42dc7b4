//! Primitive conversion by index rewriting, after Mesa's `u_indices` (the
//! translators Zink's `zink_draw` uses for what Vulkan cannot draw).
//!
//! Vulkan has no line loops, quads, quad strips or polygons, and its
//! primitive restart only recognizes the all-ones value of the index type.
//! [`rewrite`] turns one draw into a topology Vulkan has plus a list of u32
//! indices; [`needs_rewrite`] says when a draw must go through it. This
//! module is pure (no Vulkan calls): `draw.rs` uploads the indices and
//! issues an indexed draw with them.
//!
//! # Input
//!
//! A draw is either non-indexed (vertex ids `start..start + count`) or
//! indexed (the draw's indices, already widened to u32). With primitive
//! restart on, an indexed draw is cut into *runs* at every index equal to
//! the restart index, compared with the raw index value before `index_bias`
//! is added (Gallium's rule); the restart indices themselves are dropped.
//! Each run is converted on its own, exactly as GL draws it: a run too short
//! for one primitive draws nothing, and the incomplete primitive at the end
//! of a run is dropped. Empty runs (consecutive restart indices, or a
//! restart index at either end) produce nothing. Restart only exists for
//! indexed draws: non-indexed draws ignore `restart`.
//!
//! # Output
//!
//! | input | output | per run of `k` vertices `v0..` |
//! |---|---|---|
//! | `LineLoop` | `LineStrip` | `v0 .. v(k-1), v0` (nothing for `k < 2`) |
//! | `Quads` | `Triangles` | 2 triangles per 4 vertices; trailing `k % 4` dropped |
//! | `QuadStrip` | `Triangles` | 2 triangles per step of 2 (`(k-2)/2` quads); an odd trailing vertex is dropped |
//! | `Polygon` | `Triangles` | `k - 2` triangles fanned around `v0` (nothing for `k < 3`) |
//! | list topologies | same | whole primitives only (restart splits, no marker); `Triangles` with [`Edges`]: `TrianglesAdjacency`, nothing hidden |
//! | strips and fans | same | the run itself (runs too short for one primitive are dropped) |
//! | `Patches` | same | unchanged, restart treated as disabled (see below) |
//!
//! Strip outputs (`LineStrip` from a loop, and the strips, fans and strip
//! adjacency topologies) separate runs with [`RESTART`] (`0xffffffff`);
//! [`Rewritten::restart`] is then true and the draw must enable primitive
//! restart. When it is false the indices contain no marker and restart must
//! stay off, so a genuine `0xffffffff` index of a non-restart draw stays an
//! ordinary index. List outputs never contain a marker: a restart there is
//! just the split between runs.
//!
//! A line loop becomes a line strip rather than a line list so that
//! line stipple counts continuously along each loop, as GL does.
//!
//! # Provoking vertex
//!
//! The output keeps GL's provoking vertex under the *same* convention:
//! `provoking_last == true` (Gallium's default, GL's
//! `LAST_VERTEX_CONVENTION`) expects Vulkan to rasterize with
//! `VK_PROVOKING_VERTEX_MODE_LAST_VERTEX_EXT`, `false` (`flatshade_first`)
//! with Vulkan's default first-vertex mode. This is `u_indices` with
//! `inpv == outpv`. For each emitted primitive:
//!
//! - quad `q0 q1 q2 q3`: last: `(q0 q1 q3) (q1 q2 q3)`, provoking `q3`, the
//!   quad's last vertex (GL: vertex `4i`); first: `(q0 q1 q2) (q0 q2 q3)`,
//!   provoking `q0` (GL's first-vertex convention when quads follow it; the
//!   driver should report `QUADS_FOLLOW_PROVOKING_VERTEX_CONVENTION`).
//! - quad strip step `a b c d` (= vertices `2i, 2i+1, 2i+2, 2i+3`): last:
//!   `(c a d) (a b d)`, provoking `d` (GL: vertex `2i + 2`, one-based);
//!   first: `(a b d) (a d c)`, provoking `a`.
//! - polygon `p0 .. p(k-1)`: last: `(p(i+1) p(i+2) p0)`, first:
//!   `(p0 p(i+1) p(i+2))`: provoking `p0` in both conventions, as GL says
//!   (a polygon's provoking vertex is its first vertex).
//! - line loop: each segment keeps its vertex order, so segment `i` has
//!   provoking vertex `i + 1` (last) or `i` (first), and the closing segment
//!   `(v(k-1), v0)` has `v0` (last) or `v(k-1)` (first), GL's table.
//! - every other topology keeps its vertex order, so its provoking vertex
//!   is untouched.
//!
//! # Winding
//!
//! Every emitted triangle has the orientation of the GL polygon it comes
//! from: `q0 q1 q2 q3` for a quad, `a b d c` for a quad-strip quad (GL's
//! vertex order `2i-1, 2i, 2i+2, 2i+1`), `p0 .. p(k-1)` for a polygon. Each
//! triangle above is a cyclic rotation of an ordered subsequence of that
//! polygon, hence of the same orientation. Culling and two-sided lighting
//! therefore see what GL would.
//!
//! # Polygons in line and point mode
//!
//! Drawn as triangles, a quad or polygon in polygon mode `LINE` would show
//! its diagonals, and in mode `POINT` draw shared vertices twice. GL draws
//! the polygon's boundary edges only (the implicit edge flags of a quad or
//! polygon; the explicit ones a vertex shader writes are read by the
//! geometry shader, not encoded here) and each vertex once. With
//! [`Edges`], [`rewrite`] emits the same triangles as a
//! `TrianglesAdjacency` list that says which edges (or vertices) are
//! hidden: each triangle `x y z` becomes `x a0 y a1 z a2`, where edge
//! `i` runs from vertex `i` to vertex `i + 1` (mod 3), and `ai` is vertex
//! `i` itself when edge (or vertex) `i` is drawn and another vertex of
//! the triangle when it is hidden: for an edge its other end, for a
//! vertex the other hidden one (the hidden vertices of a triangle are
//! the two ends of the diagonal it shares with an earlier triangle). The
//! geometry shader compares positions, so a drawn edge or vertex always
//! reads as drawn, and a hidden one reads as drawn only when its marker
//! coincides with it, i.e. when the polygon's diagonal has length 0.
//! The adjacency vertices are never rasterized: pipe-vk's generated
//! geometry shader (`spirv_gen::passes::line_stipple::polygon_edges_gs`)
//! compares their positions with the triangle's to recover the mask and
//! passes it to the fragment shader, which discards fragments of hidden
//! edges (`spirv_gen::passes::polygon_edges`). The triangles stay
//! triangles, so culling, facing, polygon offset and the provoking vertex
//! are the rasterizer's, as without it. Each polygon's edges and vertices
//! are drawn once per polygon, as GL does (an edge or vertex that two
//! polygons share is drawn by each).
//!
//! # Limits
//!
//! - The output is capped at [`MAX_OUTPUT_INDICES`]; a larger draw fails
//!   with [`PipeError::OutOfMemory`] before anything is allocated (its
//!   exact size is computed first), as does a failed allocation.
//! - In strip outputs a genuine `0xffffffff` index in a draw whose restart
//!   index is something else cannot be told from a marker. Such an index
//!   addresses vertex `0xffffffff + index_bias`, outside any vertex buffer,
//!   so GL itself leaves that primitive undefined.
//! - `Patches`: GL lets an implementation treat restart as disabled for
//!   patches (`PRIMITIVE_RESTART_FOR_PATCHES_SUPPORTED` false), and the
//!   patch size is not known here, so patches pass through unchanged and
//!   [`needs_rewrite`] is false for them; the draw must not enable restart.
//! - Non-indexed draws become indexed draws of absolute vertex ids (draw
//!   them with `vertexOffset` 0; `gl_BaseVertex` then reads 0, not
//!   `start`).

use pipe_core::draw::PrimType;
use pipe_core::{PipeError, PipeResult};

/// The restart marker in rewritten strips: the all-ones u32 index.
pub const RESTART: u32 = u32::MAX;

/// The most indices [`rewrite`] produces (256 MiB of u32). Larger draws
/// fail with [`PipeError::OutOfMemory`].
pub const MAX_OUTPUT_INDICES: usize = 1 << 26;

/// The rewritten draw: a Vulkan-expressible topology plus u32 indices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rewritten {
    /// The topology to draw `indices` with (never `LineLoop`, `Quads`,
    /// `QuadStrip` or `Polygon`).
    pub mode: PrimType,
    /// Indices (absolute vertex ids for non-indexed draws; `index_bias`
    /// still applies to indexed ones).
    pub indices: Vec<u32>,
    /// `indices` contains [`RESTART`] markers: draw with primitive restart
    /// enabled. False: draw with it disabled.
    pub restart: bool,
}

/// What the masks of an [`Edges`] rewrite hide (see the module docs): in
/// polygon mode `LINE` the diagonals, in mode `POINT` the vertices an
/// earlier triangle of the same polygon already has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Edges {
    Lines,
    Points,
}

/// How one input topology is converted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Plan {
    /// A list of primitives of this many vertices: whole ones are copied.
    List(usize),
    /// A strip or fan needing at least this many vertices: runs are copied
    /// and separated by [`RESTART`].
    Strip(usize),
    /// Line loop to a line strip closed back to its first vertex.
    Loop,
    /// Quads to triangles.
    Quads,
    /// Quad strip to triangles.
    QuadStrip,
    /// Polygon to triangles (a fan around the first vertex, as a list).
    Polygon,
    /// Patches: copied unchanged, restart ignored.
    Patches,
}

impl Plan {
    fn of(mode: PrimType) -> (Plan, PrimType) {
        use PrimType::*;
        match mode {
            Points => (Plan::List(1), Points),
            Lines => (Plan::List(2), Lines),
            Triangles => (Plan::List(3), Triangles),
            LinesAdjacency => (Plan::List(4), LinesAdjacency),
            TrianglesAdjacency => (Plan::List(6), TrianglesAdjacency),
            LineStrip => (Plan::Strip(2), LineStrip),
            TriangleStrip => (Plan::Strip(3), TriangleStrip),
            TriangleFan => (Plan::Strip(3), TriangleFan),
            LineStripAdjacency => (Plan::Strip(4), LineStripAdjacency),
            TriangleStripAdjacency => (Plan::Strip(6), TriangleStripAdjacency),
            LineLoop => (Plan::Loop, LineStrip),
            Quads => (Plan::Quads, Triangles),
            QuadStrip => (Plan::QuadStrip, Triangles),
            Polygon => (Plan::Polygon, Triangles),
            Patches => (Plan::Patches, Patches),
        }
    }

    /// Whether runs are separated by [`RESTART`] in the output.
    fn uses_markers(self) -> bool {
        matches!(self, Plan::Strip(_) | Plan::Loop)
    }

    /// Whether an [`Edges`] rewrite changes the output (to adjacency
    /// triangles with masks). Triangle lists only take it for explicit
    /// edge flags (no edge of theirs is hidden by the rewrite itself).
    fn has_edges(self) -> bool {
        matches!(
            self,
            Plan::Quads | Plan::QuadStrip | Plan::Polygon | Plan::List(3)
        )
    }

    /// Output indices for a run of `k` vertices (markers not included),
    /// with edge masks (twice as many) or not.
    fn run_len(self, k: u64, edges: bool) -> u64 {
        let n = self.run_len_plain(k);
        if edges && self.has_edges() {
            2 * n
        } else {
            n
        }
    }

    fn run_len_plain(self, k: u64) -> u64 {
        match self {
            Plan::List(n) => k / n as u64 * n as u64,
            Plan::Strip(min) if k >= min as u64 => k,
            Plan::Strip(_) => 0,
            Plan::Loop if k >= 2 => k + 1,
            Plan::Loop => 0,
            Plan::Quads => k / 4 * 6,
            Plan::QuadStrip if k >= 4 => (k - 2) / 2 * 6,
            Plan::QuadStrip => 0,
            Plan::Polygon if k >= 3 => (k - 2) * 3,
            Plan::Polygon => 0,
            Plan::Patches => k,
        }
    }
}

/// One restart-delimited run of a draw's vertices.
#[derive(Clone, Copy)]
enum Run<'a> {
    /// Consecutive vertex ids `first..first + len` (non-indexed draws).
    Ids { first: u32, len: usize },
    /// Indices.
    Slice(&'a [u32]),
}

impl Run<'_> {
    fn len(&self) -> usize {
        match self {
            Run::Ids { len, .. } => *len,
            Run::Slice(s) => s.len(),
        }
    }

    /// Vertex `i` of the run; `i < self.len()`.
    fn at(&self, i: usize) -> u32 {
        match self {
            // No overflow: `rewrite` checked first + len <= 2^32.
            Run::Ids { first, .. } => first.wrapping_add(i as u32),
            Run::Slice(s) => s.get(i).copied().unwrap_or(RESTART),
        }
    }
}

/// Where a draw's vertices come from.
enum Source<'a> {
    Ids {
        start: u32,
        count: u32,
    },
    Indexed {
        idx: &'a [u32],
        restart: Option<u32>,
    },
}

impl<'a> Source<'a> {
    fn for_each_run(&self, mut f: impl FnMut(Run<'a>)) {
        match *self {
            Source::Ids { start, count } => f(Run::Ids {
                first: start,
                len: count as usize,
            }),
            Source::Indexed { idx, restart: None } => f(Run::Slice(idx)),
            Source::Indexed {
                idx,
                restart: Some(r),
            } => idx.split(|&v| v == r).for_each(|s| f(Run::Slice(s))),
        }
    }
}

/// Hidden-edge (or hidden-vertex) masks, bit i for edge (vertex) i, of
/// the two triangles [`emit_run`] makes of a quad or quad-strip quad, in
/// order, for each provoking-vertex convention (see the module docs).
fn quad_masks(edges: Edges, provoking_last: bool) -> [u8; 2] {
    match (edges, provoking_last) {
        // (q0 q1 q3) (q1 q2 q3): the diagonal q1-q3; q1 and q3 again.
        (Edges::Lines, true) => [0b010, 0b100],
        (Edges::Points, true) => [0b000, 0b101],
        // (q0 q1 q2) (q0 q2 q3): the diagonal q0-q2; q0 and q2 again.
        (Edges::Lines, false) => [0b100, 0b001],
        (Edges::Points, false) => [0b000, 0b011],
    }
}

/// The mask of triangle `i` of the `n` a polygon fans into.
fn polygon_mask(edges: Edges, provoking_last: bool, i: usize, n: usize) -> u8 {
    let (first, last) = (i == 0, i + 1 == n);
    let bit = |b: u8, hidden: bool| if hidden { b } else { 0 };
    match (edges, provoking_last) {
        // (p(i+1) p(i+2) p0): p(i+2)-p0 is the closing edge only in the
        // last triangle, p0-p(i+1) the first edge only in the first.
        (Edges::Lines, true) => bit(0b010, !last) | bit(0b100, !first),
        (Edges::Points, true) => bit(0b101, !first),
        // (p0 p(i+1) p(i+2)).
        (Edges::Lines, false) => bit(0b001, !first) | bit(0b100, !last),
        (Edges::Points, false) => bit(0b011, !first),
    }
}

/// Appends triangle `t` with hidden mask `mask` as an adjacency triangle
/// (see the module docs), or as a plain triangle without `edges`.
fn push_triangle(out: &mut Vec<u32>, t: [u32; 3], mask: Option<(Edges, u8)>) {
    match mask {
        None => out.extend(t),
        Some((edges, m)) => {
            for i in 0..3 {
                out.push(t[i]);
                let hidden = m & (1 << i) != 0;
                // The other hidden vertex (the diagonal's other end), or
                // the edge's other end.
                let other = (1..3)
                    .map(|k| (i + k) % 3)
                    .find(|&j| edges == Edges::Points && m & (1 << j) != 0)
                    .unwrap_or((i + 1) % 3);
                out.push(if hidden { t[other] } else { t[i] });
            }
        }
    }
}

/// Appends the conversion of one run to `out`.
fn emit_run(
    plan: Plan,
    run: Run<'_>,
    provoking_last: bool,
    edges: Option<Edges>,
    out: &mut Vec<u32>,
) {
    let k = run.len();
    let at = |i: usize| run.at(i);
    let quad = edges.map(|e| (e, quad_masks(e, provoking_last)));
    let quad_mask = |j: usize| quad.map(|(e, m)| (e, m[j]));
    match plan {
        Plan::List(3) if edges.is_some() => {
            for t in 0..k / 3 {
                push_triangle(
                    out,
                    [at(3 * t), at(3 * t + 1), at(3 * t + 2)],
                    quad.map(|(e, _)| (e, 0)),
                );
            }
        }
        Plan::List(n) => out.extend((0..k / n * n).map(at)),
        Plan::Strip(min) => {
            if k >= min {
                out.extend((0..k).map(at));
            }
        }
        Plan::Patches => out.extend((0..k).map(at)),
        Plan::Loop => {
            if k >= 2 {
                out.extend((0..k).map(at));
                out.push(at(0));
            }
        }
        Plan::Quads => {
            for q in 0..k / 4 {
                let b = q * 4;
                let (q0, q1, q2, q3) = (at(b), at(b + 1), at(b + 2), at(b + 3));
                let [t1, t2] = if provoking_last {
                    [[q0, q1, q3], [q1, q2, q3]]
                } else {
                    [[q0, q1, q2], [q0, q2, q3]]
                };
                push_triangle(out, t1, quad_mask(0));
                push_triangle(out, t2, quad_mask(1));
            }
        }
        Plan::QuadStrip => {
            let mut i = 0;
            while i + 3 < k {
                let (a, b, c, d) = (at(i), at(i + 1), at(i + 2), at(i + 3));
                let [t1, t2] = if provoking_last {
                    [[c, a, d], [a, b, d]]
                } else {
                    [[a, b, d], [a, d, c]]
                };
                push_triangle(out, t1, quad_mask(0));
                push_triangle(out, t2, quad_mask(1));
                i += 2;
            }
        }
        Plan::Polygon => {
            if k >= 3 {
                let p0 = at(0);
                let n = k - 2;
                for i in 0..n {
                    let (b, c) = (at(i + 1), at(i + 2));
                    let t = if provoking_last {
                        [b, c, p0]
                    } else {
                        [p0, b, c]
                    };
                    let mask = edges.map(|e| (e, polygon_mask(e, provoking_last, i, n)));
                    push_triangle(out, t, mask);
                }
            }
        }
    }
}

/// Rewrites one draw into a topology Vulkan has (see the module docs).
///
/// `indices` is `None` for non-indexed draws (vertex ids
/// `start..start + count`; `start + count` must not exceed 2^32) and
/// `Some` for indexed ones: the draw's indices widened to u32, exactly
/// `count` of them (`start` is then unused). `restart` is
/// `Some(restart_index)` when primitive restart is on; it is compared with
/// the raw indices (before `index_bias`) and ignored for non-indexed draws
/// and patches. `provoking_last` selects the provoking-vertex convention
/// kept for each emitted primitive (true: last vertex, Gallium's default;
/// false: `flatshade_first`). With `edges`, quads, quad strips and
/// polygons become `TrianglesAdjacency` with hidden-edge masks (see the
/// module docs), and triangle lists the same with nothing hidden (the
/// vertex shader's explicit edge flags then hide edges); other
/// topologies ignore it.
///
/// Errors: `InvalidArgument` for a count that does not match the indices
/// or vertex ids past `u32::MAX`; `OutOfMemory` when the output would
/// exceed [`MAX_OUTPUT_INDICES`] or cannot be allocated.
pub fn rewrite(
    mode: PrimType,
    indices: Option<&[u32]>,
    start: u32,
    count: u32,
    restart: Option<u32>,
    provoking_last: bool,
    edges: Option<Edges>,
) -> PipeResult<Rewritten> {
    let (plan, out_mode) = Plan::of(mode);
    let edges = edges.filter(|_| plan.has_edges());
    let out_mode = if edges.is_some() {
        PrimType::TrianglesAdjacency
    } else {
        out_mode
    };
    let source = match indices {
        None => {
            if u64::from(start) + u64::from(count) > 1 << 32 {
                return Err(PipeError::invalid(format!(
                    "rewrite: vertex ids {start} + {count} pass u32::MAX"
                )));
            }
            Source::Ids { start, count }
        }
        Some(idx) => {
            if idx.len() as u64 != u64::from(count) {
                return Err(PipeError::invalid(format!(
                    "rewrite: count {count} but {} indices",
                    idx.len()
                )));
            }
            let restart = if plan == Plan::Patches { None } else { restart };
            Source::Indexed { idx, restart }
        }
    };

    // Pass 1: the exact output size, from run lengths alone (O(1) for
    // non-indexed draws), so that the cap is checked before allocating.
    let markers = plan.uses_markers();
    let (mut total, mut productive) = (0u64, 0u64);
    source.for_each_run(|run| {
        let n = plan.run_len(run.len() as u64, edges.is_some());
        if n > 0 {
            if markers && productive > 0 {
                total += 1;
            }
            productive += 1;
            total += n;
        }
    });
    if total > MAX_OUTPUT_INDICES as u64 {
        return Err(PipeError::OutOfMemory);
    }
    let mut out = Vec::new();
    out.try_reserve_exact(total as usize)
        .map_err(|_| PipeError::OutOfMemory)?;

    // Pass 2: the indices.
    let mut emitted = 0u64;
    source.for_each_run(|run| {
        if plan.run_len_plain(run.len() as u64) > 0 {
            if markers && emitted > 0 {
                out.push(RESTART);
            }
            emitted += 1;
            emit_run(plan, run, provoking_last, edges, &mut out);
        }
    });
    debug_assert_eq!(out.len() as u64, total);
    Ok(Rewritten {
        mode: out_mode,
        indices: out,
        restart: markers && productive > 1,
    })
}

/// The all-ones index of an index size in bytes, if it is a valid size.
fn all_ones(index_size: u8) -> Option<u32> {
    match index_size {
        1 => Some(0xff),
        2 => Some(0xffff),
        4 => Some(u32::MAX),
        _ => None,
    }
}

/// Whether a draw needs [`rewrite`]: a topology Vulkan lacks (line loop,
/// quads, quad strip, polygon), or an indexed draw (`index_size` 1, 2 or 4,
/// the index type Vulkan will read) with primitive restart on and a
/// restart index other than that type's all-ones value. Patches never do
/// (restart is treated as disabled for them). Restart on list topologies
/// with the all-ones index is left to Vulkan (it needs
/// `primitiveTopologyListRestart`); [`rewrite`] handles those too when the
/// feature is missing.
pub fn needs_rewrite(mode: PrimType, index_size: u8, restart: Option<u32>) -> bool {
    match mode {
        PrimType::LineLoop | PrimType::Quads | PrimType::QuadStrip | PrimType::Polygon => true,
        PrimType::Patches => false,
        _ => match restart {
            Some(r) if index_size != 0 => all_ones(index_size) != Some(r),
            _ => false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use PrimType::*;

    const M: u32 = RESTART;

    /// Non-indexed rewrite.
    fn ids(mode: PrimType, start: u32, count: u32, last: bool) -> Rewritten {
        rewrite(mode, None, start, count, None, last, None).unwrap()
    }

    /// Indexed rewrite.
    fn idx(mode: PrimType, i: &[u32], restart: Option<u32>, last: bool) -> Rewritten {
        rewrite(mode, Some(i), 0, i.len() as u32, restart, last, None).unwrap()
    }

    fn rw(mode: PrimType, indices: Vec<u32>, restart: bool) -> Rewritten {
        Rewritten {
            mode,
            indices,
            restart,
        }
    }

    // ---- hand-written expectations, mode by mode ----

    #[test]
    fn quads() {
        // Two quads from vertex 10; 3 trailing vertices dropped.
        assert_eq!(
            ids(Quads, 10, 11, true),
            rw(
                Triangles,
                vec![10, 11, 13, 11, 12, 13, 14, 15, 17, 15, 16, 17],
                false
            )
        );
        assert_eq!(
            ids(Quads, 10, 8, false),
            rw(
                Triangles,
                vec![10, 11, 12, 10, 12, 13, 14, 15, 16, 14, 16, 17],
                false
            )
        );
        // Indexed: the index values, not positions, come out.
        assert_eq!(
            idx(Quads, &[7, 3, 9, 1], None, true).indices,
            [7, 3, 1, 3, 9, 1]
        );
        assert_eq!(
            idx(Quads, &[7, 3, 9, 1], None, false).indices,
            [7, 3, 9, 7, 9, 1]
        );
    }

    #[test]
    fn quads_short() {
        for count in 0..4 {
            assert_eq!(ids(Quads, 0, count, true), rw(Triangles, vec![], false));
        }
        assert_eq!(ids(Quads, 0, 7, true).indices, [0, 1, 3, 1, 2, 3]);
    }

    #[test]
    fn quad_strip() {
        // Quads (0 1 3 2) and (2 3 5 4).
        assert_eq!(
            ids(QuadStrip, 0, 6, true),
            rw(Triangles, vec![2, 0, 3, 0, 1, 3, 4, 2, 5, 2, 3, 5], false)
        );
        assert_eq!(
            ids(QuadStrip, 0, 6, false).indices,
            [0, 1, 3, 0, 3, 2, 2, 3, 5, 2, 5, 4]
        );
        // An odd trailing vertex is dropped.
        assert_eq!(
            ids(QuadStrip, 0, 7, true).indices,
            ids(QuadStrip, 0, 6, true).indices
        );
        assert_eq!(
            ids(QuadStrip, 100, 4, true).indices,
            [102, 100, 103, 100, 101, 103]
        );
        assert_eq!(
            idx(QuadStrip, &[9, 8, 7, 6], None, false).indices,
            [9, 8, 6, 9, 6, 7]
        );
    }

    #[test]
    fn quad_strip_short() {
        for count in 0..4 {
            assert!(ids(QuadStrip, 5, count, true).indices.is_empty());
            assert!(ids(QuadStrip, 5, count, false).indices.is_empty());
        }
    }

    /// Decodes an adjacency output into (triangle, hidden mask) pairs.
    fn decode(r: &Rewritten) -> Vec<([u32; 3], u8)> {
        assert_eq!(r.mode, TrianglesAdjacency);
        r.indices
            .chunks(6)
            .map(|c| {
                let t = [c[0], c[2], c[4]];
                let mut m = 0;
                for i in 0..3 {
                    if c[2 * i + 1] != t[i] {
                        m |= 1 << i;
                        assert!(t.contains(&c[2 * i + 1]), "adjacency vertex {i} of {c:?}");
                    }
                }
                (t, m)
            })
            .collect()
    }

    /// The edges (as sorted vertex pairs) and vertices each polygon of a
    /// decoded edge rewrite draws, checked against the polygon outlines.
    fn drawn(r: &Rewritten, edges: Edges) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        for (t, m) in decode(r) {
            for i in 0..3 {
                if m & (1 << i) == 0 {
                    out.push(match edges {
                        Edges::Lines => (t[i].min(t[(i + 1) % 3]), t[i].max(t[(i + 1) % 3])),
                        Edges::Points => (t[i], t[i]),
                    });
                }
            }
        }
        out.sort_unstable();
        out
    }

    fn edge_rw(mode: PrimType, count: u32, last: bool, e: Edges) -> Rewritten {
        rewrite(mode, None, 0, count, None, last, Some(e)).unwrap()
    }

    #[test]
    fn edges_keep_triangles() {
        // The triangles are the plain rewrite's, in order (triangle
        // lists' own, for explicit edge flags).
        for mode in [Quads, QuadStrip, Polygon, Triangles] {
            for last in [true, false] {
                for e in [Edges::Lines, Edges::Points] {
                    let plain = ids(mode, 0, 8, last).indices;
                    let tris: Vec<u32> = decode(&edge_rw(mode, 8, last, e))
                        .into_iter()
                        .flat_map(|(t, _)| t)
                        .collect();
                    assert_eq!(tris, plain, "{mode:?} last={last} {e:?}");
                }
            }
        }
        // Other topologies ignore it.
        assert_eq!(
            rewrite(LineLoop, None, 0, 3, None, true, Some(Edges::Lines)).unwrap(),
            ids(LineLoop, 0, 3, true)
        );
        assert_eq!(
            rewrite(TriangleStrip, None, 0, 5, None, true, Some(Edges::Lines)).unwrap(),
            ids(TriangleStrip, 0, 5, true)
        );
        // A triangle list hides nothing itself.
        let r = edge_rw(Triangles, 7, true, Edges::Lines);
        assert_eq!(r.mode, TrianglesAdjacency);
        assert!(decode(&r).iter().all(|&(_, m)| m == 0));
    }

    /// The generated geometry shader reads explicit edge flags at
    /// triangle vertex i for edge i (GL: a vertex flags the edge it
    /// begins), so each drawn edge i of each triangle must run from
    /// vertex i to the polygon's next vertex, whichever vertex provokes.
    #[test]
    fn edges_start_at_their_vertex() {
        let tri: fn(u32) -> u32 = |v| if v % 3 == 2 { v - 2 } else { v + 1 };
        let quad: fn(u32) -> u32 = |v| if v % 4 == 3 { v - 3 } else { v + 1 };
        let pentagon: fn(u32) -> u32 = |v| (v + 1) % 5;
        for last in [true, false] {
            for (mode, count, next) in [
                (Triangles, 6, tri),
                (Quads, 8, quad),
                (Polygon, 5, pentagon),
            ] {
                let r = edge_rw(mode, count, last, Edges::Lines);
                for (t, mask) in decode(&r) {
                    for i in 0..3 {
                        if mask & (1 << i) == 0 {
                            assert_eq!(t[(i + 1) % 3], next(t[i]), "{mode:?} last={last} {t:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn edges_outline() {
        let pairs = |p: &[(u32, u32)]| {
            let mut v: Vec<(u32, u32)> = p.iter().map(|&(a, b)| (a.min(b), a.max(b))).collect();
            v.sort_unstable();
            v
        };
        for last in [true, false] {
            // Two quads: their 8 boundary edges, no diagonal.
            assert_eq!(
                drawn(&edge_rw(Quads, 8, last, Edges::Lines), Edges::Lines),
                pairs(&[
                    (0, 1),
                    (1, 2),
                    (2, 3),
                    (3, 0),
                    (4, 5),
                    (5, 6),
                    (6, 7),
                    (7, 4)
                ])
            );
            // A quad strip of two quads (0 1 3 2) and (2 3 5 4): the shared
            // edge 2-3 once per quad.
            assert_eq!(
                drawn(&edge_rw(QuadStrip, 6, last, Edges::Lines), Edges::Lines),
                pairs(&[
                    (0, 1),
                    (1, 3),
                    (3, 2),
                    (2, 0),
                    (2, 3),
                    (3, 5),
                    (5, 4),
                    (4, 2)
                ])
            );
            // A pentagon: its 5 sides.
            assert_eq!(
                drawn(&edge_rw(Polygon, 5, last, Edges::Lines), Edges::Lines),
                pairs(&[(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)])
            );
            // A triangle as a polygon: all three.
            assert_eq!(
                drawn(&edge_rw(Polygon, 3, last, Edges::Lines), Edges::Lines),
                pairs(&[(0, 1), (1, 2), (2, 0)])
            );
            // Points: each vertex once per polygon.
            let v = |ids: &[u32]| {
                let mut p: Vec<(u32, u32)> = ids.iter().map(|&i| (i, i)).collect();
                p.sort_unstable();
                p
            };
            assert_eq!(
                drawn(&edge_rw(Quads, 8, last, Edges::Points), Edges::Points),
                v(&[0, 1, 2, 3, 4, 5, 6, 7])
            );
            assert_eq!(
                drawn(&edge_rw(QuadStrip, 6, last, Edges::Points), Edges::Points),
                v(&[0, 1, 2, 3, 2, 3, 4, 5])
            );
            assert_eq!(
                drawn(&edge_rw(Polygon, 6, last, Edges::Points), Edges::Points),
                v(&[0, 1, 2, 3, 4, 5])
            );
        }
        // Restart splits polygons; each is outlined on its own.
        let r = rewrite(
            Polygon,
            Some(&[0, 1, 2, 9, 3, 4, 5, 6]),
            0,
            8,
            Some(9),
            true,
            Some(Edges::Lines),
        )
        .unwrap();
        assert_eq!(
            drawn(&r, Edges::Lines),
            pairs(&[(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 6), (6, 3)])
        );
    }

    #[test]
    fn polygon() {
        assert_eq!(
            ids(Polygon, 0, 5, true),
            rw(Triangles, vec![1, 2, 0, 2, 3, 0, 3, 4, 0], false)
        );
        assert_eq!(
            ids(Polygon, 0, 5, false).indices,
            [0, 1, 2, 0, 2, 3, 0, 3, 4]
        );
        assert_eq!(ids(Polygon, 4, 3, true).indices, [5, 6, 4]);
        assert_eq!(ids(Polygon, 4, 3, false).indices, [4, 5, 6]);
        for count in 0..3 {
            assert!(ids(Polygon, 0, count, true).indices.is_empty());
        }
        assert_eq!(
            idx(Polygon, &[40, 30, 20, 10], None, true).indices,
            [30, 20, 40, 20, 10, 40]
        );
    }

    #[test]
    fn line_loop() {
        assert_eq!(
            ids(LineLoop, 3, 4, true),
            rw(LineStrip, vec![3, 4, 5, 6, 3], false)
        );
        // The convention does not change a loop.
        assert_eq!(ids(LineLoop, 3, 4, false), ids(LineLoop, 3, 4, true));
        // Two vertices: GL draws both segments.
        assert_eq!(ids(LineLoop, 0, 2, true).indices, [0, 1, 0]);
        assert!(ids(LineLoop, 0, 1, true).indices.is_empty());
        assert!(ids(LineLoop, 0, 0, true).indices.is_empty());
        assert_eq!(idx(LineLoop, &[8, 6, 4], None, true).indices, [8, 6, 4, 8]);
    }

    #[test]
    fn passthrough_without_restart() {
        // Topologies Vulkan has come back unchanged (whole primitives only
        // for lists).
        assert_eq!(
            idx(TriangleStrip, &[1, 2, 3, 4], None, true),
            rw(TriangleStrip, vec![1, 2, 3, 4], false)
        );
        assert_eq!(ids(Triangles, 0, 7, true).indices, [0, 1, 2, 3, 4, 5]);
        assert_eq!(ids(Lines, 0, 3, true).indices, [0, 1]);
        assert_eq!(ids(Points, 2, 2, true).indices, [2, 3]);
        assert_eq!(ids(LinesAdjacency, 0, 7, true).indices, [0, 1, 2, 3]);
        assert_eq!(ids(TrianglesAdjacency, 0, 11, true).indices.len(), 6);
        assert_eq!(ids(TriangleFan, 0, 2, true).indices, Vec::<u32>::new());
        assert_eq!(ids(LineStripAdjacency, 0, 3, true).indices.len(), 0);
        assert_eq!(ids(TriangleStripAdjacency, 0, 7, true).indices.len(), 7);
    }

    // ---- primitive restart ----

    #[test]
    fn quads_restart() {
        let r = 0xfffe;
        let i = [0, 1, 2, 3, r, 4, 5, 6, r, 7, 8, 9, 10, 11];
        // Runs [0 1 2 3], [4 5 6] (too short), [7 8 9 10 11] (11 dropped).
        assert_eq!(
            idx(Quads, &i, Some(r), true),
            rw(Triangles, vec![0, 1, 3, 1, 2, 3, 7, 8, 10, 8, 9, 10], false)
        );
        // Without restart, 0xfffe is an ordinary index.
        assert_eq!(
            idx(Quads, &i, None, true).indices,
            [0, 1, 3, 1, 2, 3, r, 4, 6, 4, 5, 6, r, 7, 9, 7, 8, 9]
        );
    }

    #[test]
    fn quad_strip_restart() {
        let r = 7;
        // Runs [0 1 2 3 4 5], [], [10 11 12], [20 21 22 23].
        let i = [0, 1, 2, 3, 4, 5, r, r, 10, 11, 12, r, 20, 21, 22, 23, r];
        assert_eq!(
            idx(QuadStrip, &i, Some(r), true).indices,
            [2, 0, 3, 0, 1, 3, 4, 2, 5, 2, 3, 5, 22, 20, 23, 20, 21, 23]
        );
        assert_eq!(
            idx(QuadStrip, &i, Some(r), false).indices,
            [0, 1, 3, 0, 3, 2, 2, 3, 5, 2, 5, 4, 20, 21, 23, 20, 23, 22]
        );
    }

    #[test]
    fn polygon_restart() {
        let r = 0;
        // Restart index 0 at the start, runs [5 6 7 8], [], [9 10], [11 12 13].
        let i = [0, 5, 6, 7, 8, 0, 0, 9, 10, 0, 11, 12, 13];
        assert_eq!(
            idx(Polygon, &i, Some(r), true).indices,
            [6, 7, 5, 7, 8, 5, 12, 13, 11]
        );
        assert_eq!(
            idx(Polygon, &i, Some(r), false).indices,
            [5, 6, 7, 5, 7, 8, 11, 12, 13]
        );
    }

    #[test]
    fn line_loop_restart() {
        let r = 100;
        let i = [5, 6, 7, r, 8, 9, r, r, 10, r, 11, 12, 13];
        assert_eq!(
            idx(LineLoop, &i, Some(r), true),
            rw(
                LineStrip,
                vec![5, 6, 7, 5, M, 8, 9, 8, M, 11, 12, 13, 11],
                true
            )
        );
        // Restart splitting off nothing productive: no marker, no restart.
        assert_eq!(
            idx(LineLoop, &[r, 1, 2, 3, r, 4], Some(r), true),
            rw(LineStrip, vec![1, 2, 3, 1], false)
        );
    }

    #[test]
    fn strips_get_all_ones_restart() {
        let r = 0xfffe;
        assert_eq!(
            idx(TriangleStrip, &[0, 1, 2, 3, r, 4, 5, 6], Some(r), true),
            rw(TriangleStrip, vec![0, 1, 2, 3, M, 4, 5, 6], true)
        );
        // Runs too short for a primitive vanish, with their markers.
        assert_eq!(
            idx(TriangleStrip, &[0, 1, r, r, 2, 3, 4, r, 5], Some(r), true),
            rw(TriangleStrip, vec![2, 3, 4], false)
        );
        assert_eq!(
            idx(LineStrip, &[1, 2, r, 3, r, 4, 5, r], Some(r), false),
            rw(LineStrip, vec![1, 2, M, 4, 5], true)
        );
        assert_eq!(
            idx(TriangleFan, &[9, 1, 2, 3, r, 9, 4, 5], Some(r), true),
            rw(TriangleFan, vec![9, 1, 2, 3, M, 9, 4, 5], true)
        );
        assert_eq!(
            idx(
                LineStripAdjacency,
                &[1, 2, 3, 4, r, 5, 6, 7, r, 1, 2, 3, 4],
                Some(r),
                true
            )
            .indices,
            [1, 2, 3, 4, M, 1, 2, 3, 4]
        );
        // An all-ones restart index is handled the same way.
        assert_eq!(
            idx(TriangleStrip, &[0, 1, 2, M, 3, 4, 5], Some(M), true),
            rw(TriangleStrip, vec![0, 1, 2, M, 3, 4, 5], true)
        );
    }

    #[test]
    fn lists_split_at_restart() {
        let r = 3;
        assert_eq!(
            idx(
                Triangles,
                &[0, 1, r, 4, 5, 6, 7, r, 8, 9, 10],
                Some(r),
                true
            ),
            rw(Triangles, vec![4, 5, 6, 8, 9, 10], false)
        );
        assert_eq!(
            idx(Lines, &[0, r, 1, 2, 4, r, r, 5, 6], Some(r), true).indices,
            [1, 2, 5, 6]
        );
        assert_eq!(idx(Points, &[r, 1, r, 2, r], Some(r), true).indices, [1, 2]);
    }

    #[test]
    fn restart_value_is_a_vertex_without_restart() {
        // Restart off: a value that would be the restart index is a vertex.
        assert_eq!(
            idx(Polygon, &[0xfffe, 1, 2], None, true).indices,
            [1, 2, 0xfffe]
        );
        // Non-indexed draws ignore restart (Gallium: indexed draws only).
        assert_eq!(
            rewrite(Quads, None, 0, 4, Some(2), true, None)
                .unwrap()
                .indices,
            [0, 1, 3, 1, 2, 3]
        );
        // A genuine all-ones index without restart stays an index, and the
        // draw is marked restart-free.
        assert_eq!(
            idx(LineLoop, &[M, 1, 2], None, true),
            rw(LineStrip, vec![M, 1, 2, M], false)
        );
        // Restart index that no index equals: one run.
        assert_eq!(
            idx(TriangleStrip, &[0, 1, 2, 3], Some(0x1_0000), true),
            rw(TriangleStrip, vec![0, 1, 2, 3], false)
        );
    }

    #[test]
    fn patches_ignore_restart() {
        let i = [0, 1, 2, 0xfffe, 3, 4];
        assert_eq!(
            idx(Patches, &i, Some(0xfffe), true),
            rw(Patches, i.to_vec(), false)
        );
        assert!(!needs_rewrite(Patches, 2, Some(0xfffe)));
    }

    #[test]
    fn only_restart_indices() {
        let r = 5;
        for mode in ALL_MODES {
            let out = idx(mode, &[r, r, r], Some(r), true);
            if mode == Patches {
                assert_eq!(out.indices, [r, r, r]);
            } else {
                assert!(out.indices.is_empty(), "{mode:?}");
                assert!(!out.restart);
            }
        }
        for mode in ALL_MODES {
            assert!(idx(mode, &[], Some(r), false).indices.is_empty());
        }
    }

    // ---- bad input and limits ----

    #[test]
    fn count_mismatch_and_overflow() {
        assert!(matches!(
            rewrite(Quads, Some(&[0, 1, 2, 3]), 0, 8, None, true, None),
            Err(PipeError::InvalidArgument(_))
        ));
        assert!(matches!(
            rewrite(Quads, None, u32::MAX, 2, None, true, None),
            Err(PipeError::InvalidArgument(_))
        ));
        // The last vertex id may be u32::MAX itself.
        assert_eq!(
            rewrite(LineLoop, None, u32::MAX - 1, 2, None, true, None)
                .unwrap()
                .indices,
            [u32::MAX - 1, u32::MAX, u32::MAX - 1]
        );
    }

    #[test]
    fn huge_draws_are_refused_without_allocating() {
        for mode in [Quads, QuadStrip, Polygon, LineLoop, Triangles] {
            assert_eq!(
                rewrite(mode, None, 0, u32::MAX, None, true, None),
                Err(PipeError::OutOfMemory),
                "{mode:?}"
            );
        }
        // Just over the cap: quads producing MAX + 6 indices.
        let quads = (MAX_OUTPUT_INDICES / 6 + 1) as u32 * 4;
        assert_eq!(
            rewrite(Quads, None, 0, quads, None, true, None),
            Err(PipeError::OutOfMemory)
        );
    }

    #[test]
    fn needs_rewrite_table() {
        for mode in [LineLoop, Quads, QuadStrip, Polygon] {
            assert!(needs_rewrite(mode, 0, None));
            assert!(needs_rewrite(mode, 4, Some(u32::MAX)));
        }
        assert!(!needs_rewrite(Triangles, 0, None));
        assert!(!needs_rewrite(TriangleStrip, 2, None));
        // Non-indexed: restart does not apply.
        assert!(!needs_rewrite(TriangleStrip, 0, Some(5)));
        assert!(!needs_rewrite(TriangleStrip, 1, Some(0xff)));
        assert!(!needs_rewrite(TriangleStrip, 2, Some(0xffff)));
        assert!(!needs_rewrite(TriangleStrip, 4, Some(0xffff_ffff)));
        assert!(!needs_rewrite(Triangles, 4, Some(0xffff_ffff)));
        assert!(needs_rewrite(TriangleStrip, 4, Some(0xffff)));
        assert!(needs_rewrite(TriangleStrip, 2, Some(0xffff_ffff)));
        assert!(needs_rewrite(TriangleStrip, 2, Some(0xfffe)));
        assert!(needs_rewrite(Lines, 1, Some(0xffff)));
        assert!(needs_rewrite(Points, 4, Some(0)));
        assert!(needs_rewrite(TriangleStrip, 3, Some(0xffffff)));
    }

    // ---- geometry: provoking vertex and winding ----

    /// Twice the signed area of a triangle.
    fn area2(p: [(i64, i64); 3]) -> i64 {
        let [(ax, ay), (bx, by), (cx, cy)] = p;
        (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
    }

    /// For non-indexed quads, quad strips and polygons: every output
    /// triangle has the orientation of its GL polygon (checked on vertex
    /// positions), and its provoking vertex (first or last of the triangle)
    /// is GL's provoking vertex of that polygon.
    #[test]
    fn provoking_vertex_and_winding() {
        for last in [true, false] {
            let pv = |t: &[u32]| if last { t[2] } else { t[0] };
            // Quads: quad q's vertices on a counter-clockwise square at x = 10q.
            let sq = [(0, 0), (4, 0), (4, 4), (0, 4)];
            let pos = |v: u32| {
                let (x, y) = sq[(v % 4) as usize];
                (x + 10 * i64::from(v / 4), y)
            };
            let out = ids(Quads, 0, 12, last).indices;
            assert_eq!(out.len(), 18);
            for (n, t) in out.chunks(3).enumerate() {
                let q = (n / 2) as u32;
                assert!(t.iter().all(|v| v / 4 == q));
                assert!(area2([pos(t[0]), pos(t[1]), pos(t[2])]) > 0);
                assert_eq!(pv(t), if last { 4 * q + 3 } else { 4 * q });
            }
            // Quad strip: 2i at (i, 0), 2i+1 at (i, 3); GL's quad
            // (2i, 2i+1, 2i+3, 2i+2) is clockwise.
            let pos = |v: u32| (i64::from(v / 2), 3 * i64::from(v % 2));
            let out = ids(QuadStrip, 0, 10, last).indices;
            assert_eq!(out.len(), 24);
            for (n, t) in out.chunks(3).enumerate() {
                let i = 2 * (n / 2) as u32;
                assert!(t.iter().all(|v| (i..i + 4).contains(v)));
                assert!(area2([pos(t[0]), pos(t[1]), pos(t[2])]) < 0);
                assert_eq!(pv(t), if last { i + 3 } else { i });
            }
            // Polygon: 7 vertices counter-clockwise on a convex curve
            // (a parabola's points), from vertex 20.
            let pos = |v: u32| {
                let i = i64::from(v - 20);
                (i, i * i)
            };
            let out = ids(Polygon, 20, 7, last).indices;
            assert_eq!(out.len(), 15);
            for t in out.chunks(3) {
                assert!(area2([pos(t[0]), pos(t[1]), pos(t[2])]) > 0, "{t:?}");
                assert_eq!(pv(t), 20);
            }
            // Line loop: segment i is (i, i+1), the closing one (k-1, 0).
            let out = ids(LineLoop, 0, 5, last).indices;
            let segs: Vec<_> = out.windows(2).map(|w| (w[0], w[1])).collect();
            assert_eq!(segs, [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)]);
        }
    }

    // ---- property test ----

    const ALL_MODES: [PrimType; 15] = [
        Points,
        Lines,
        LineLoop,
        LineStrip,
        Triangles,
        TriangleStrip,
        TriangleFan,
        Quads,
        QuadStrip,
        Polygon,
        LinesAdjacency,
        LineStripAdjacency,
        TrianglesAdjacency,
        TriangleStripAdjacency,
        Patches,
    ];

    /// xorshift64*: deterministic, no dependency.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// GL's primitive count for `k` vertices of `mode` (one run), written
    /// from the GL spec independently of the code under test. Quads, quad
    /// strips and polygons count triangles (two per quad); a line loop
    /// counts segments.
    fn gl_prims(mode: PrimType, k: usize) -> usize {
        let sub = |k: usize, n: usize| k.saturating_sub(n);
        match mode {
            Points => k,
            Lines => k / 2,
            LineStrip => sub(k, 1),
            LineLoop if k >= 2 => k,
            LineLoop => 0,
            Triangles => k / 3,
            TriangleStrip | TriangleFan => sub(k, 2),
            // Two triangles per quad.
            Quads => k / 4 * 2,
            QuadStrip if k >= 4 => (k - 2) / 2 * 2,
            QuadStrip => 0,
            Polygon => sub(k, 2),
            LinesAdjacency => k / 4,
            LineStripAdjacency => sub(k, 3),
            TrianglesAdjacency => k / 6,
            TriangleStripAdjacency if k >= 6 => (k - 4) / 2,
            TriangleStripAdjacency => 0,
            Patches => 0,
        }
    }

    /// Primitives Vulkan draws for an output (strips split at markers).
    fn vk_prims(out: &Rewritten) -> usize {
        let count_run = |k: usize| gl_prims(out.mode, k);
        if out.restart {
            out.indices
                .split(|&v| v == M)
                .map(|r| count_run(r.len()))
                .sum()
        } else {
            count_run(out.indices.len())
        }
    }

    #[test]
    fn property_random_draws() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut skipped = 0;
        for iter in 0..20_000 {
            let mode = ALL_MODES[rng.below(15) as usize];
            let last = rng.below(2) == 0;
            let indexed = rng.below(4) != 0;
            let count = rng.below(40) as u32;
            // Restart values chosen to collide with the data.
            let restart = match rng.below(4) {
                0 => None,
                1 => Some(M),
                2 => Some(0xfffe),
                _ => Some(rng.below(6) as u32),
            };
            // Genuine all-ones indices in a third of the draws only: in the
            // others every count is checked.
            let ones = rng.below(3) == 0;
            let data: Vec<u32> = (0..count)
                .map(|_| match rng.below(10) {
                    0 => restart.unwrap_or(7),
                    1 if ones => M,
                    2 => 0xfffe,
                    _ => rng.below(8) as u32,
                })
                .collect();
            let start = if rng.below(8) == 0 {
                u32::MAX - count
            } else {
                rng.below(1000) as u32
            };
            let out = if indexed {
                rewrite(mode, Some(&data), start, count, restart, last, None)
            } else {
                rewrite(mode, None, start, count, restart, last, None)
            };
            let out = out.unwrap_or_else(|e| panic!("iteration {iter}: {e}"));
            let ctx = format!("iteration {iter}: {mode:?} {data:?} {restart:?} -> {out:?}");

            // The output topology is one Vulkan has.
            assert!(!matches!(out.mode, LineLoop | Quads | QuadStrip | Polygon));
            // Markers only with restart, and restart only with markers.
            if out.restart {
                assert!(out.indices.contains(&M), "{ctx}");
                assert!(indexed && restart.is_some(), "{ctx}");
                assert!(matches!(
                    out.mode,
                    LineStrip
                        | TriangleStrip
                        | TriangleFan
                        | LineStripAdjacency
                        | TriangleStripAdjacency
                ));
            }

            // The runs GL sees, computed by hand.
            let effective = if indexed && mode != Patches {
                restart
            } else {
                None
            };
            let input: Vec<u32> = if indexed {
                data.clone()
            } else {
                (0..count).map(|i| start + i).collect()
            };
            let mut runs: Vec<Vec<u32>> = vec![vec![]];
            for &v in &input {
                if Some(v) == effective {
                    runs.push(vec![]);
                } else {
                    runs.last_mut().unwrap().push(v);
                }
            }

            // Every output index is an input index (not a restart index),
            // or a marker of a restart output.
            for &v in &out.indices {
                let is_marker = out.restart && v == M;
                assert!(
                    is_marker || (input.contains(&v) && Some(v) != effective),
                    "{ctx}: {v} out of nowhere"
                );
            }

            // GL's primitive count, run by run.
            if mode == Patches {
                assert_eq!(out.indices, input, "{ctx}");
                continue;
            }
            let want: usize = runs.iter().map(|r| gl_prims(mode, r.len())).sum();
            if out.restart && effective != Some(M) && input.contains(&M) {
                // The documented limit: a genuine all-ones index in a
                // marker-separated strip reads as a marker. Membership was
                // checked; the count cannot be.
                skipped += 1;
                continue;
            }
            assert_eq!(vk_prims(&out), want, "{ctx}");
            // List outputs hold whole primitives only.
            let group = match out.mode {
                Points => 1,
                Lines => 2,
                Triangles => 3,
                LinesAdjacency => 4,
                TrianglesAdjacency => 6,
                _ => 0,
            };
            if group > 0 {
                assert_eq!(out.indices.len() % group, 0, "{ctx}");
                assert_eq!(out.indices.len() / group, want, "{ctx}");
            }
            // No empty or primitive-less strip segments.
            if out.restart {
                for seg in out.indices.split(|&v| v == M) {
                    assert!(gl_prims(out.mode, seg.len()) > 0, "{ctx}");
                }
            }
        }
        // The count was checked on nearly every draw.
        assert!(skipped < 1000, "{skipped} draws skipped the count check");
    }
}
