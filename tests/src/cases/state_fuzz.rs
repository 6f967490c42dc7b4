//! `pipe.draw.state_fuzz.seed_<N>`: seeded random state combinations.
//!
//! Each case opens one context (some with debug switches that force the
//! paths of other devices) and runs [`ITERATIONS`] iterations. Every
//! iteration picks, with a small self-contained PRNG, a random but valid
//! combination of what a GL frontend may send: framebuffer (1-3 colour
//! buffers of float, normalized and integer formats, sometimes with an
//! unbound slot, optional depth/stencil, 1 or 4 samples), rasterizer,
//! blend and depth-stencil-alpha states, vertex elements of the formats
//! st/mesa uses, every primitive type, indexed draws with 8/16/32-bit
//! indices and primitive restart at odd indices, instancing, multi-draws,
//! optional geometry and tessellation shaders, a bound texture, stream
//! output, and the non-CSO state (scissor, clip planes, polygon stipple,
//! sample mask, blend colour, stencil reference), then draws.
//!
//! The oracle: no call panics (the runner reports a crash), no call
//! fails except with `Unsupported` (every combination is valid, so
//! `InvalidArgument` or a lost device is a driver defect), no validation
//! or synchronization message is emitted (the runner's `--validation`
//! mode fails a case that causes one; the iteration that caused it is
//! named on stderr), and at the end the context still clears, draws and
//! reads back known pixels.
//!
//! Every iteration has its own generator state (from the seed and its
//! number), so one can be replayed alone:
//! `PIPE_CTS_STATE_FUZZ_ITERATIONS=3,17` runs only those iterations, and
//! `PIPE_CTS_STATE_FUZZ_VERBOSE=1` prints the state of every draw, and
//! `PIPE_CTS_STATE_FUZZ_SEED=N` runs seed N instead of the case's own,
//! and `PIPE_CTS_STATE_FUZZ_SYNC=1` waits for the device after every
//! iteration, so that a device crash happens in the iteration whose
//! submission caused it.
//!
//! Some shaders are passed as SPIR-V (spirv-gen's, through
//! `ShaderCode::SpirV`), which gets only the lowerings pipe-vk patches
//! into SPIR-V.
//!
//! Fragment shaders may read varyings the previous stage does not write
//! (undefined values in GL; pipe-vk gives zeros), vertex shaders may
//! write GL's edge flag and clip distances in front of tessellation, and
//! line stipple goes with back colours at location 30.
//!
//! Combinations left out on purpose, with the reason:
//! - geometry shader invocations that emit only incomplete triangle
//!   strips (lavapipe 25.0 crashes on some, e.g. two one-vertex strips):
//!   the generated geometry shaders always complete their primitives.
//!
//! The `pipe.draw.state_fuzz.<feature>` cases are the defects the seeds
//! found, each reduced to one draw with a pixel check. The
//! `pipe.draw.state_fuzz.diff.*` cases (module `diff`) run a seed with
//! and without debug switches and compare what the two runs drew.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Arc;

use pipe_core::cso::{
    BlendHandle, DepthStencilAlphaHandle, RasterizerHandle, SamplerHandle, ShaderHandle,
    VertexElementsHandle,
};
use pipe_core::draw::{DrawIndirectInfo, DrawInfo, DrawStartCountBias, IndexSource, PrimType};
use pipe_core::flags::{ClearFlags, FlushFlags, MapFlags, TextureBarrierFlags};
use pipe_core::query::{Query, QueryResult, QueryType, RenderCondMode};
use pipe_core::resource::{BindFlags, PipeBox, ResourceTemplate, Target};
use pipe_core::shader::{ShaderCode, ShaderState, StreamOutput, StreamOutputInfo};
use pipe_core::state::*;
use pipe_core::view::{
    SamplerView, SamplerViewTemplate, StreamOutputTarget, Surface, SurfaceTemplate,
};
use pipe_core::{Caps, Format, PipeError, PipeResult, Resource};
use pipe_vk::ScreenOptions;

use crate::harness::{env_with, f32s, shader, step, Env};
use crate::{test_case, Outcome, TestContext};

type R = Result<(), Outcome>;

mod diff;

const W: u32 = 16;
const H: u32 = 16;
/// Iterations per seed.
const ITERATIONS: u32 = 150;
/// Vertices in the vertex buffers; every fetched index stays below.
const NV: u32 = 40;
/// Entries of the per-instance buffer: as many as vertices, as the
/// synchronization validation of the layers used here (1.3.239) takes an
/// instance-rate binding's range from the vertex count, and reports
/// hazards with whatever memory follows a shorter buffer.
const NI: u32 = NV;

// ---------------------------------------------------------------------------
// The PRNG: SplitMix64, so that a seed names one run on every machine.
// ---------------------------------------------------------------------------

pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n` > 0).
    pub(crate) fn below(&mut self, n: u32) -> u32 {
        (((self.next() >> 32) * u64::from(n)) >> 32) as u32
    }
    /// Uniform in `lo..=hi`.
    pub(crate) fn range(&mut self, lo: u32, hi: u32) -> u32 {
        lo + self.below(hi - lo + 1)
    }
    /// True with `percent` % probability.
    pub(crate) fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < percent
    }
    pub(crate) fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u32) as usize]
    }
    /// Uniform in `[lo, hi)`.
    pub(crate) fn float(&mut self, lo: f32, hi: f32) -> f32 {
        let u = (self.next() >> 40) as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * u
    }
    pub(crate) fn bits(&mut self) -> u32 {
        (self.next() >> 32) as u32
    }
}

// ---------------------------------------------------------------------------
// Formats.
// ---------------------------------------------------------------------------

/// How a shader reads or writes a format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Kind {
    Float,
    Uint,
    Sint,
}

impl Kind {
    fn of(f: Format) -> Kind {
        if f.is_pure_uint() {
            Kind::Uint
        } else if f.is_pure_sint() {
            Kind::Sint
        } else {
            Kind::Float
        }
    }
    fn vec4(self) -> &'static str {
        match self {
            Kind::Float => "f32x4",
            Kind::Uint => "u32x4",
            Kind::Sint => "i32x4",
        }
    }
}

fn fmt(name: &str) -> Format {
    Format::from_name(&format!("PIPE_FORMAT_{name}"))
        .unwrap_or_else(|| panic!("state_fuzz: no format {name}"))
}

/// The vertex formats st/mesa hands a driver (the table
/// `pipe.draw.vertex_format.gl.*` covers).
fn vertex_formats() -> Vec<Format> {
    let mut out = Vec::new();
    let comps = |bits: u32, n: usize| -> String {
        ["R", "G", "B", "A"][..n]
            .iter()
            .map(|c| format!("{c}{bits}"))
            .collect()
    };
    for bits in [8, 16, 32] {
        for kind in ["UNORM", "SNORM", "USCALED", "SSCALED", "UINT", "SINT"] {
            for n in 1..=4 {
                out.push(fmt(&format!("{}_{kind}", comps(bits, n))));
            }
        }
    }
    for bits in [16, 32, 64] {
        for n in 1..=4 {
            out.push(fmt(&format!("{}_FLOAT", comps(bits, n))));
        }
    }
    for n in 1..=4 {
        out.push(fmt(&format!("{}_FIXED", comps(32, n))));
    }
    for order in ["R10G10B10A2", "B10G10R10A2"] {
        for kind in ["UNORM", "SNORM", "USCALED", "SSCALED"] {
            out.push(fmt(&format!("{order}_{kind}")));
        }
    }
    out.push(Format::B8G8R8A8Unorm);
    out.push(Format::R11G11B10Float);
    out
}

/// A colour format the device renders to.
#[derive(Clone, Copy, Debug)]
struct ColorFormat {
    format: Format,
    blendable: bool,
    msaa: bool,
}

// ---------------------------------------------------------------------------
// Shader text.
// ---------------------------------------------------------------------------

/// The varyings of the fuzzed programs: GL colour slots, a texture
/// coordinate slot (point sprites replace it) and the back colour at the
/// location two-sided colour reads it from.
const VARYINGS: [(&str, u32, &str); 4] = [
    ("c0", 0, "col0"),
    ("c1", 1, "col1"),
    ("t0", 2, "tex0"),
    ("b0", 30, "bfc0"),
];

/// Which varyings a stage writes or reads (bits of [`VARYINGS`]).
type VarMask = u8;
const ALL_BUT_BFC: VarMask = 0b0111;
const BFC: VarMask = 0b1000;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct VsCfg {
    attr: Kind,
    instanced: bool,
    writes: VarMask,
    point_size: Option<u32>,
    clip_distances: u8,
    /// GL's edge flag (`slot=edge`), from the attribute's x.
    edge_flag: bool,
}

fn vs_text(c: &VsCfg) -> String {
    let mut d = String::from("shader vertex\nin @pos : f32x4 location=0\n");
    let _ = writeln!(d, "in @a : {} location=1", c.attr.vec4());
    if c.instanced {
        d += "in @inst : f32x4 location=2\n";
    }
    d += "out @gl_pos : f32x4 builtin=position\n";
    for (i, (n, loc, slot)) in VARYINGS.iter().enumerate() {
        if c.writes & (1 << i) != 0 {
            let _ = writeln!(d, "out @{n} : f32x4 location={loc} slot={slot}");
        }
    }
    if c.point_size.is_some() {
        d += "out @ps : f32 builtin=point_size\n";
    }
    if c.edge_flag {
        d += "out @edge : f32 location=5 slot=edge\n";
    }
    if c.clip_distances > 0 {
        let _ = writeln!(
            d,
            "out @cd : f32[{}] builtin=clip_distance",
            c.clip_distances
        );
    }
    d += "fn main {\n  %0 : f32x4 = load @pos\n";
    let pos = if c.instanced {
        d += "  %1 : f32x4 = load @inst\n  %2 : f32x4 = const 0.125, 0.125, 0.0, 0.0\n";
        d += "  %3 : f32x4 = ffma %1, %2, %0\n";
        3
    } else {
        0
    };
    let _ = writeln!(d, "  store @gl_pos, %{pos}");
    let _ = writeln!(d, "  %10 : {} = load @a", c.attr.vec4());
    d += match c.attr {
        Kind::Float => "  %11 : f32x4 = mov %10\n",
        Kind::Uint => "  %11 : f32x4 = u2f %10\n",
        Kind::Sint => "  %11 : f32x4 = i2f %10\n",
    };
    d += "  %12 : f32x4 = swizzle %11, wzyx\n";
    d += "  %13 : f32x4 = const 0.5, 0.5, 0.5, 0.5\n";
    let _ = writeln!(d, "  %14 : f32x4 = ffma %{pos}, %13, %13");
    d += "  %15 : f32x4 = const 1.0, 1.0, 1.0, 1.0\n  %16 : f32x4 = fsub %15, %11\n";
    let vals = ["%11", "%12", "%14", "%16"];
    for (i, (n, _, _)) in VARYINGS.iter().enumerate() {
        if c.writes & (1 << i) != 0 {
            let _ = writeln!(d, "  store @{n}, {}", vals[i]);
        }
    }
    if let Some(ps) = c.point_size {
        let _ = writeln!(d, "  %20 : f32 = const {}.0\n  store @ps, %20", ps);
    }
    if c.edge_flag {
        d += "  %21 : f32 = swizzle %11, x\n  store @edge, %21\n";
    }
    for i in 0..c.clip_distances {
        let comp = ["x", "y", "z", "w"][i as usize % 4];
        let _ = writeln!(
            d,
            "  %{a} : f32 = swizzle %{pos}, {comp}\n  %{b} : f32 = const 0.75\n  %{c} : f32 = fadd %{a}, %{b}\n  %{i2} : i32 = const {i}\n  store @cd, %{i2}, %{c}",
            a = 30 + 4 * i,
            b = 31 + 4 * i,
            c = 32 + 4 * i,
            i2 = 33 + 4 * i,
        );
    }
    d += "}\n";
    d
}

/// Geometry shader input kinds, with the vertices per primitive and the
/// ones the shader passes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum GsIn {
    Points,
    Lines,
    LinesAdj,
    Triangles,
    TrianglesAdj,
}

impl GsIn {
    fn name(self) -> &'static str {
        match self {
            GsIn::Points => "points",
            GsIn::Lines => "lines",
            GsIn::LinesAdj => "lines_adjacency",
            GsIn::Triangles => "triangles",
            GsIn::TrianglesAdj => "triangles_adjacency",
        }
    }
    fn verts(self) -> u32 {
        match self {
            GsIn::Points => 1,
            GsIn::Lines => 2,
            GsIn::LinesAdj => 4,
            GsIn::Triangles => 3,
            GsIn::TrianglesAdj => 6,
        }
    }
    fn used(self) -> &'static [u32] {
        match self {
            GsIn::Points => &[0],
            GsIn::Lines => &[0, 1],
            GsIn::LinesAdj => &[1, 2],
            GsIn::Triangles => &[0, 1, 2],
            GsIn::TrianglesAdj => &[0, 2, 4],
        }
    }
    /// Draw modes GL accepts with this geometry shader input.
    fn modes(self) -> &'static [PrimType] {
        match self {
            GsIn::Points => &[PrimType::Points],
            GsIn::Lines => &[PrimType::Lines, PrimType::LineStrip, PrimType::LineLoop],
            GsIn::LinesAdj => &[PrimType::LinesAdjacency, PrimType::LineStripAdjacency],
            GsIn::Triangles => &[
                PrimType::Triangles,
                PrimType::TriangleStrip,
                PrimType::TriangleFan,
            ],
            GsIn::TrianglesAdj => &[
                PrimType::TrianglesAdjacency,
                PrimType::TriangleStripAdjacency,
            ],
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct GsCfg {
    input: GsIn,
    /// "points", "line_strip" or "triangle_strip".
    output: &'static str,
    /// Varyings written: colours and texture coordinate read from the
    /// previous stage, the back colour made here (its location is past
    /// the geometry stage's input limit on some devices).
    passes: VarMask,
    copies: u32,
    point_size: Option<u32>,
}

fn gs_text(c: &GsCfg) -> String {
    // Each copy emits the used input vertices, and more (moved copies of
    // the first) until the output primitive is complete: lavapipe
    // crashes on some invocations that emit only incomplete strips (see
    // the module documentation).
    let min: usize = match c.output {
        "points" => 1,
        "line_strip" => 2,
        _ => 3,
    };
    let mut verts: Vec<(u32, u32)> = c.input.used().iter().map(|&v| (v, 0)).collect();
    let first = verts[0].0;
    for k in 1..=min.saturating_sub(verts.len()) {
        verts.push((first, k as u32));
    }
    let max = verts.len() as u32 * c.copies;
    let mut d = format!(
        "shader geometry input={} output={} max_vertices={max} invocations=1\n",
        c.input.name(),
        c.output
    );
    let n = c.input.verts();
    let _ = writeln!(d, "in @pos : f32x4[{n}] builtin=position");
    d += "out @gl_pos : f32x4 builtin=position\n";
    for (i, (v, loc, slot)) in VARYINGS.iter().enumerate() {
        if c.passes & (1 << i) != 0 {
            if 1 << i != BFC {
                let _ = writeln!(d, "in @i{v} : f32x4[{n}] location={loc} slot={slot}");
            }
            let _ = writeln!(d, "out @{v} : f32x4 location={loc} slot={slot}");
        }
    }
    if c.point_size.is_some() {
        d += "out @ps : f32 builtin=point_size\n";
    }
    d += "fn main {\n";
    d += "  %0 : f32x4 = const 0.25, -0.125, 0.0, 0.0\n";
    d += "  %1 : f32x4 = const 0.0, 0.25, 0.0, 0.0\n";
    d += "  %2 : f32x4 = const 0.25, 0.0, 0.0, 0.0\n";
    if let Some(ps) = c.point_size {
        let _ = writeln!(d, "  %3 : f32 = const {ps}.0");
    }
    let mut id = 4;
    for copy in 0..c.copies {
        for &(v, extra) in &verts {
            let idx = id;
            let p = id + 1;
            let _ = writeln!(
                d,
                "  %{idx} : i32 = const {v}\n  %{p} : f32x4 = load @pos, %{idx}"
            );
            let mut pos = p;
            id += 2;
            // Moved: by %0 for the second copy, by %1 or %2 for the
            // vertices that complete a primitive.
            for (apply, off) in [(copy > 0, 0), (extra == 1, 1), (extra == 2, 2)] {
                if apply {
                    let _ = writeln!(d, "  %{id} : f32x4 = fadd %{pos}, %{off}");
                    pos = id;
                    id += 1;
                }
            }
            for (i, (name, _, _)) in VARYINGS.iter().enumerate() {
                if 1 << i == BFC && c.passes & BFC != 0 {
                    let _ = writeln!(d, "  store @{name}, %0");
                } else if c.passes & (1 << i) != 0 {
                    let _ = writeln!(
                        d,
                        "  %{id} : f32x4 = load @i{name}, %{idx}\n  store @{name}, %{id}"
                    );
                    id += 1;
                }
            }
            if c.point_size.is_some() {
                d += "  store @ps, %3\n";
            }
            let _ = writeln!(d, "  store @gl_pos, %{pos}\n  emit_vertex");
        }
        d += "  end_primitive\n";
    }
    d += "}\n";
    d
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum TesMode {
    Triangles,
    Quads,
    Isolines,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct TessCfg {
    mode: TesMode,
    spacing: &'static str,
    cw: bool,
    point_mode: bool,
    /// An application control shader (else the driver's pass-through one
    /// with `set_tess_state` levels).
    tcs_level: Option<u32>,
    writes: VarMask,
    point_size: Option<u32>,
}

impl TessCfg {
    /// What the rasterizer (or a geometry shader) gets.
    fn output(&self) -> GsIn {
        match (self.point_mode, self.mode) {
            (true, _) => GsIn::Points,
            (false, TesMode::Isolines) => GsIn::Lines,
            (false, _) => GsIn::Triangles,
        }
    }
}

/// The control shader: 4 output vertices (the evaluation shader reads 3),
/// invocation i copying input vertex i (patches have 4 vertices with an
/// application control shader), and every level `level`.
fn tcs_text(level: u32) -> String {
    format!(
        "shader tess_ctrl vertices=4
in @pos : f32x4[32] builtin=position
in @iid : i32 builtin=invocation_id
out @opos : f32x4[4] builtin=position
out @outer : f32[4] builtin=tess_level_outer
out @inner : f32[2] builtin=tess_level_inner
fn main {{
  %0 : i32 = load @iid
  %1 : f32x4 = load @pos, %0
  store @opos, %0, %1
  %2 : i32 = const 0
  %3 : bool = ieq %0, %2
  if %3 {{
    %4 : f32 = const {level}.0
    %5 : i32 = const 1
    %6 : i32 = const 2
    %7 : i32 = const 3
    store @outer, %2, %4
    store @outer, %5, %4
    store @outer, %6, %4
    store @outer, %7, %4
    store @inner, %2, %4
    store @inner, %5, %4
  }}
}}
"
    )
}

fn tes_text(c: &TessCfg) -> String {
    let mode = match c.mode {
        TesMode::Triangles => "triangles",
        TesMode::Quads => "quads",
        TesMode::Isolines => "isolines",
    };
    let mut d = format!(
        "shader tess_eval mode={mode} spacing={} winding={}{}\n",
        c.spacing,
        if c.cw { "cw" } else { "ccw" },
        if c.point_mode { " point_mode" } else { "" }
    );
    d += "in @pos : f32x4[32] builtin=position\nin @tc : f32x3 builtin=tess_coord\n";
    d += "out @gl_pos : f32x4 builtin=position\n";
    for (i, (n, loc, slot)) in VARYINGS.iter().enumerate() {
        if c.writes & (1 << i) != 0 {
            let _ = writeln!(d, "out @{n} : f32x4 location={loc} slot={slot}");
        }
    }
    if c.point_size.is_some() {
        d += "out @ps : f32 builtin=point_size\n";
    }
    // Position: p0 + u * (p1 - p0) + v * (p2 - p0) (every mode reads
    // three patch vertices; patches have at least three).
    d += "fn main {
  %0 : f32x3 = load @tc
  %1 : i32 = const 0
  %2 : i32 = const 1
  %3 : i32 = const 2
  %4 : f32x4 = load @pos, %1
  %5 : f32x4 = load @pos, %2
  %6 : f32x4 = load @pos, %3
  %7 : f32 = swizzle %0, x
  %8 : f32 = swizzle %0, y
  %9 : f32x4 = vec %7, %7, %7, %7
  %10 : f32x4 = vec %8, %8, %8, %8
  %11 : f32x4 = fsub %5, %4
  %12 : f32x4 = fsub %6, %4
  %13 : f32x4 = ffma %11, %9, %4
  %14 : f32x4 = ffma %12, %10, %13
  store @gl_pos, %14
  %15 : f32 = const 1.0
  %16 : f32x4 = vec %7, %8, %15, %15
";
    for (i, (n, _, _)) in VARYINGS.iter().enumerate() {
        if c.writes & (1 << i) != 0 {
            let _ = writeln!(d, "  store @{n}, %16");
        }
    }
    if let Some(ps) = c.point_size {
        let _ = writeln!(d, "  %20 : f32 = const {ps}.0\n  store @ps, %20");
    }
    d += "}\n";
    d
}

/// How the fragment shader reads colour 0 when not by a plain load.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum FsInterp {
    /// `interp_at_offset` by (x, y) sixteenths of a pixel.
    Offset(i8, i8),
    /// `interp_at_sample` of this sample.
    Sample(u8),
    /// `interp_at_centroid`.
    Centroid,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct FsCfg {
    /// Output type per colour buffer location (`None`: not written).
    outs: Vec<Option<Kind>>,
    reads: VarMask,
    front_facing: bool,
    frag_coord: bool,
    texture: bool,
    frag_depth: bool,
    discard: bool,
    interp: Option<FsInterp>,
}

fn fs_text(c: &FsCfg) -> String {
    let mut d = String::from("shader fragment\n");
    for (i, (n, loc, slot)) in VARYINGS.iter().enumerate() {
        if c.reads & (1 << i) != 0 || i == 0 {
            let _ = writeln!(d, "in @{n} : f32x4 location={loc} slot={slot}");
        }
    }
    if c.front_facing {
        d += "in @ff : bool builtin=front_facing\n";
    }
    if c.frag_coord {
        d += "in @fc : f32x4 builtin=frag_coord\n";
    }
    if c.texture {
        d += "texture @t slot=0 dim=2d sampled=float\n";
    }
    for (i, o) in c.outs.iter().enumerate() {
        if let Some(k) = o {
            let _ = writeln!(d, "out @o{i} : {} location={i}", k.vec4());
        }
    }
    if c.frag_depth {
        d += "out @fd : f32 builtin=frag_depth\n";
    }
    d += "fn main {\n";
    d += &match c.interp {
        None => "  %0 : f32x4 = load @c0\n".to_string(),
        Some(FsInterp::Offset(x, y)) => format!(
            "  %900 : f32x2 = const {:?}, {:?}\n  %0 : f32x4 = interp_at_offset @c0, %900\n",
            f32::from(x) / 16.0,
            f32::from(y) / 16.0
        ),
        Some(FsInterp::Sample(k)) => {
            format!("  %900 : i32 = const {k}\n  %0 : f32x4 = interp_at_sample @c0, %900\n")
        }
        Some(FsInterp::Centroid) => "  %0 : f32x4 = interp_at_centroid @c0\n".to_string(),
    };
    let mut acc = 0;
    let mut id = 1;
    for (i, (n, _, _)) in VARYINGS.iter().enumerate().skip(1) {
        if c.reads & (1 << i) != 0 {
            let _ = writeln!(
                d,
                "  %{id} : f32x4 = load @{n}\n  %{} : f32x4 = fadd %{acc}, %{id}",
                id + 1
            );
            acc = id + 1;
            id += 2;
        }
    }
    if c.texture {
        let _ = writeln!(
            d,
            "  %{id} : f32x2 = swizzle %{acc}, xy\n  %{} : f32x4 = tex @t, coord=%{id}\n  %{} : f32x4 = fmul %{acc}, %{}",
            id + 1,
            id + 2,
            id + 1
        );
        acc = id + 2;
        id += 3;
    }
    if c.front_facing {
        let _ = writeln!(
            d,
            "  %{id} : bool = load @ff\n  %{a} : f32 = b2f %{id}\n  %{b} : f32x4 = vec %{a}, %{a}, %{a}, %{a}\n  %{c} : f32x4 = fadd %{acc}, %{b}",
            a = id + 1,
            b = id + 2,
            c = id + 3
        );
        acc = id + 3;
        id += 4;
    }
    if c.frag_coord {
        let _ = writeln!(
            d,
            "  %{id} : f32x4 = load @fc\n  %{a} : f32x4 = const 0.0625, 0.0625, 1.0, 0.0\n  %{b} : f32x4 = ffma %{id}, %{a}, %{acc}",
            a = id + 1,
            b = id + 2
        );
        acc = id + 2;
        id += 3;
    }
    if c.discard {
        let _ = writeln!(
            d,
            "  %{id} : f32 = swizzle %{acc}, x\n  %{a} : f32 = const 0.8\n  %{b} : bool = flt %{a}, %{id}\n  if %{b} {{\n    demote\n  }}",
            a = id + 1,
            b = id + 2
        );
        id += 3;
    }
    let _ = writeln!(
        d,
        "  %{id} : f32x4 = const 255.0, 255.0, 255.0, 255.0\n  %{} : f32x4 = fmul %{acc}, %{id}",
        id + 1
    );
    let scaled = id + 1;
    id += 2;
    for (i, o) in c.outs.iter().enumerate() {
        match o {
            None => {}
            Some(Kind::Float) => {
                let _ = writeln!(d, "  store @o{i}, %{acc}");
            }
            Some(Kind::Uint) => {
                let _ = writeln!(d, "  %{id} : u32x4 = f2u %{scaled}\n  store @o{i}, %{id}");
                id += 1;
            }
            Some(Kind::Sint) => {
                let _ = writeln!(d, "  %{id} : i32x4 = f2i %{scaled}\n  store @o{i}, %{id}");
                id += 1;
            }
        }
    }
    if c.frag_depth {
        let _ = writeln!(
            d,
            "  %{id} : f32 = swizzle %{acc}, y\n  %{} : f32 = fsat %{id}\n  store @fd, %{}",
            id + 1,
            id + 1
        );
    }
    d += "}\n";
    d
}

/// The fields of `{v:?}` that differ from `{base:?}` (top-level fields of
/// a struct's derived `Debug`), for short failure messages.
fn changed(v: &impl std::fmt::Debug, base: &impl std::fmt::Debug) -> String {
    fn fields(s: &str) -> Vec<String> {
        let Some(open) = s.find('{') else {
            return vec![s.to_string()];
        };
        let body = &s[open + 1..s.len().saturating_sub(1)];
        let (mut out, mut cur, mut depth) = (Vec::new(), String::new(), 0i32);
        for ch in body.chars() {
            match ch {
                '{' | '[' | '(' => depth += 1,
                '}' | ']' | ')' => depth -= 1,
                ',' if depth == 0 => {
                    out.push(cur.trim().to_string());
                    cur.clear();
                    continue;
                }
                _ => {}
            }
            cur.push(ch);
        }
        out.push(cur.trim().to_string());
        out
    }
    let (a, b) = (format!("{v:?}"), format!("{base:?}"));
    let name = a.split(' ').next().unwrap_or("");
    let diff: Vec<String> = fields(&a)
        .into_iter()
        .zip(fields(&b))
        .filter(|(x, y)| x != y)
        .map(|(x, _)| x)
        .collect();
    format!("{name} {{ {} }}", diff.join(", "))
}

// ---------------------------------------------------------------------------
// The fuzzer.
// ---------------------------------------------------------------------------

/// Debug switches of one seed.
#[derive(Clone, Copy, Default, Debug)]
struct Switches {
    staging: bool,
    emulate_line_stipple: bool,
    vertex_fixups: bool,
    no_draw_merge: bool,
    no_index_uint8: bool,
    /// `no_dynamic_rasterizer`, `no_dynamic_blend`,
    /// `no_dynamic_vertex_input` and `no_cb0_push_offset` together.
    no_dynamic: bool,
    no_query_in_rendering: bool,
    no_primitives_generated_query: bool,
    no_xfb_draw: bool,
    no_discard_rectangles: bool,
}

/// State objects of the previous iteration, deleted once the next
/// iteration's are bound (as `cso_cache` drops unused states).
#[derive(Default)]
struct Bound {
    blend: Option<BlendHandle>,
    dsa: Option<DepthStencilAlphaHandle>,
    rast: Option<RasterizerHandle>,
    velems: Option<VertexElementsHandle>,
    /// A second CSO of the same elements (see `Fuzz::twin_bound`).
    velems_twin: Option<VertexElementsHandle>,
    /// `rast` changed in what only dynamic state takes.
    rast_variant: Option<RasterizerHandle>,
    sampler: Option<SamplerHandle>,
}

struct Fuzz {
    e: Env,
    caps: Caps,
    rng: Rng,
    shaders: HashMap<String, ShaderHandle>,
    colors: Vec<ColorFormat>,
    zs: Vec<(Format, bool)>,
    vformats: Vec<Format>,
    color_surfaces: HashMap<(Format, u32, usize), Surface>,
    zs_surfaces: HashMap<(Format, u32), Surface>,
    texture: SamplerView,
    so_buffer: Resource,
    so_info: Option<StreamOutputInfo>,
    attr_format: Format,
    instanced: bool,
    draw_no: u32,
    /// Iterations with multisampling, tessellation, a geometry shader,
    /// stream output (for the summary on stderr).
    counts: [u32; 4],
    bound: Bound,
    log: Log,
    /// Queries begun and ended around iterations (see `queries_step`).
    queries: FuzzQueries,
    /// The vertex buffers last set, and twins of them (for buffer
    /// resources, new resources with the same contents; user data is its
    /// own twin): after each draw call the other set is bound, with the
    /// other of the two vertex elements CSOs (`Bound::velems_twin`), and
    /// the call repeated, so that draws also follow a change of only the
    /// vertex elements and buffers (pipe-vk's `merge::VbRebind`),
    /// whatever state the iteration has. (No random draw: the seeds'
    /// sequences stay what they were.)
    vertex_buffers: [Vec<VertexBuffer>; 2],
    /// Which of `vertex_buffers` is bound.
    twin_bound: bool,
    /// What the differential cases compare (`diff`); `None` in the
    /// plain seeds, whose calls stay what they were.
    diff: Option<diff::Recorder>,
    /// `draw_vbo` calls made (see [`Fuzz::draw_vbo`]).
    draw_calls: u32,
    /// The generator of what was added after the seeds' sequences were
    /// fixed (window rectangles, draw-auto), seeded per iteration apart
    /// from `rng`, so that those sequences stay what they were.
    xrng: Rng,
    /// The first stream-output target of the iteration, kept for a
    /// draw-auto draw after the capture (`draw_auto`).
    so_target: Option<StreamOutputTarget>,
}

/// The queries of a run: one of each kind the device has, the ones begun
/// together (all ended together, so that pairs counting the same draws
/// can be compared), a pause, and a render condition on the predicate.
#[derive(Default)]
struct FuzzQueries {
    all: Vec<(QueryType, Query)>,
    active: Vec<usize>,
    paused: bool,
    condition: bool,
}

/// The record of a run: the current iteration and its state, the calls
/// that failed.
#[derive(Default)]
struct Log {
    /// What the current iteration did, for the failure message.
    desc: String,
    iteration: u32,
    unsupported: u32,
    failures: Vec<String>,
}

/// The draw mode the bound stages take.
struct Pipeline {
    mode: PrimType,
    patch_vertices: u8,
}

impl Log {
    /// Records the result of a call: `Unsupported` is allowed (counted),
    /// any other error is a failure of the case.
    fn ok<T>(&mut self, what: &str, r: PipeResult<T>) -> Option<T> {
        match r {
            Ok(v) => Some(v),
            Err(PipeError::Unsupported(m)) => {
                self.unsupported += 1;
                eprintln!(
                    "state_fuzz: iteration {}: {what}: unsupported: {m}",
                    self.iteration
                );
                None
            }
            Err(e) => {
                let msg = format!(
                    "iteration {}: {what}: {e}\n  state: {}",
                    self.iteration, self.desc
                );
                eprintln!("state_fuzz: {msg}");
                self.failures.push(msg);
                None
            }
        }
    }

    fn note(&mut self, s: impl AsRef<str>) {
        self.desc += s.as_ref();
        self.desc += "; ";
    }
}

impl Fuzz {
    fn shader(
        &mut self,
        stage: ShaderStage,
        text: &str,
        so: Option<&StreamOutputInfo>,
    ) -> Option<ShaderHandle> {
        // Sometimes the same shader as SPIR-V passthrough (spirv-gen's
        // SPIR-V 1.3 or 1.6), which takes only the lowerings pipe-vk
        // patches into SPIR-V, and declares its stream output itself.
        let spirv = self.rng.chance(15);
        let target = if self.rng.chance(50) {
            spirv_gen::emit::Target::Vulkan1_1
        } else {
            spirv_gen::emit::Target::Vulkan1_3
        };
        let key = format!("{stage:?}{so:?}{spirv}{target:?}{text}");
        if let Some(h) = self.shaders.get(&key) {
            return Some(*h);
        }
        let made = match (spirv, so) {
            (true, Some(so)) => crate::cases::streamout::spirv_with_xfb(stage, text, so, target),
            (true, None) => crate::harness::spirv_shader(stage, text, target),
            (false, _) => shader(stage, text),
        };
        let mut st = match made {
            Ok(s) => s,
            Err(o) => {
                self.log
                    .failures
                    .push(format!("test shader does not parse: {o:?}\n{text}"));
                return None;
            }
        };
        if let (false, Some(so)) = (spirv, so) {
            st.stream_output = so.clone();
        }
        let r = match stage {
            ShaderStage::Vertex => self.e.ctx.create_vs_state(&st),
            ShaderStage::TessCtrl => self.e.ctx.create_tcs_state(&st),
            ShaderStage::TessEval => self.e.ctx.create_tes_state(&st),
            ShaderStage::Geometry => self.e.ctx.create_gs_state(&st),
            _ => self.e.ctx.create_fs_state(&st),
        };
        let h = self.log.ok("create shader", r)?;
        self.shaders.insert(key, h);
        Some(h)
    }

    fn color_surface(&mut self, f: Format, samples: u32, slot: usize) -> Option<Surface> {
        if let Some(s) = self.color_surfaces.get(&(f, samples, slot)) {
            return Some(s.clone());
        }
        let mut t = ResourceTemplate::texture_2d(
            f,
            W,
            H,
            BindFlags::RENDER_TARGET | BindFlags::SAMPLER_VIEW,
        );
        t.nr_samples = samples;
        let tex = self
            .log
            .ok("resource_create(colour)", self.e.screen.resource_create(&t))?;
        let st = SurfaceTemplate {
            format: f,
            level: 0,
            first_layer: 0,
            last_layer: 0,
        };
        let s = self
            .log
            .ok("create_surface", self.e.ctx.create_surface(&tex, &st))?;
        if self.diff.is_some() {
            diff::clear_new_surface(self, &s);
        }
        self.color_surfaces.insert((f, samples, slot), s.clone());
        Some(s)
    }

    fn zs_surface(&mut self, f: Format, samples: u32) -> Option<Surface> {
        if let Some(s) = self.zs_surfaces.get(&(f, samples)) {
            return Some(s.clone());
        }
        let mut t = ResourceTemplate::texture_2d(f, W, H, BindFlags::DEPTH_STENCIL);
        t.nr_samples = samples;
        let tex = self
            .log
            .ok("resource_create(zs)", self.e.screen.resource_create(&t))?;
        let st = SurfaceTemplate {
            format: f,
            level: 0,
            first_layer: 0,
            last_layer: 0,
        };
        let s = self
            .log
            .ok("create_surface(zs)", self.e.ctx.create_surface(&tex, &st))?;
        if self.diff.is_some() {
            diff::clear_new_surface(self, &s);
        }
        self.zs_surfaces.insert((f, samples), s.clone());
        Some(s)
    }

    fn stage_supported(&self, s: ShaderStage) -> bool {
        self.caps.shader[s.index()].supported
    }

    /// One iteration: state, shaders, vertices, draws.
    fn run_iteration(&mut self) {
        self.log.desc.clear();
        let r = &mut self.rng;
        // --- Framebuffer -------------------------------------------------
        let msaa_ok = self.colors.iter().any(|c| c.msaa);
        let samples = if msaa_ok && r.chance(25) { 4 } else { 1 };
        self.counts[0] += u32::from(samples > 1);
        let ncb = r.range(1, 3) as usize;
        let mut cbuf_formats: Vec<Option<ColorFormat>> = Vec::new();
        let candidates: Vec<ColorFormat> = self
            .colors
            .iter()
            .copied()
            .filter(|c| samples == 1 || c.msaa)
            .collect();
        for i in 0..ncb {
            if i > 0 && r.chance(15) {
                cbuf_formats.push(None);
            } else {
                cbuf_formats.push(Some(r.pick(&candidates)));
            }
        }
        let zs_candidates: Vec<Format> = self
            .zs
            .iter()
            .filter(|z| samples == 1 || z.1)
            .map(|z| z.0)
            .collect();
        let zs_format = if !zs_candidates.is_empty() && r.chance(50) {
            Some(r.pick(&zs_candidates))
        } else {
            None
        };
        let has_stencil = zs_format.is_some_and(|f| f != Format::Z32Float);
        self.log.note(format!(
            "fb samples={samples} cbufs={:?} zs={zs_format:?}",
            cbuf_formats
                .iter()
                .map(|c| c.map(|c| c.format))
                .collect::<Vec<_>>()
        ));
        let mut cbufs = Vec::new();
        for (i, c) in cbuf_formats.iter().enumerate() {
            cbufs.push(match c {
                Some(c) => match self.color_surface(c.format, samples, i) {
                    Some(s) => Some(s),
                    None => return,
                },
                None => None,
            });
        }
        let zsbuf = match zs_format {
            Some(f) => match self.zs_surface(f, samples) {
                Some(s) => Some(s),
                None => return,
            },
            None => None,
        };
        let fb = FramebufferState {
            width: W as u16,
            height: H as u16,
            layers: 1,
            samples: samples as u8,
            cbufs,
            zsbuf,
            resolve: None,
        };
        if self
            .log
            .ok(
                "set_framebuffer_state",
                self.e.ctx.set_framebuffer_state(&fb),
            )
            .is_none()
        {
            return;
        }
        if let Some(d) = &mut self.diff {
            d.targets(&fb);
        }
        let r = &mut self.rng;
        // Viewport: GL's window mapping, sometimes y-flipped (a window
        // system framebuffer) and with a random depth range.
        let (n, f) = (r.float(0.0, 1.0), r.float(0.0, 1.0));
        let flip = r.chance(30);
        let vp = ViewportState {
            scale: [
                W as f32 / 2.0,
                if flip { -(H as f32) } else { H as f32 } / 2.0,
                (f - n) / 2.0,
            ],
            translate: [W as f32 / 2.0, H as f32 / 2.0, (f + n) / 2.0],
            swizzle: Default::default(),
        };
        self.log.ok(
            "set_viewport_states",
            self.e.ctx.set_viewport_states(0, &[vp]),
        );

        // --- Pipeline shape ------------------------------------------------
        let shape = self.pick_pipeline();
        let Some(p) = shape else { return };
        self.log.note(format!("mode={:?}", p.mode));

        // --- Fragment shader ----------------------------------------------
        // Colour 0 sometimes interpolated elsewhere than the pixel's own
        // position, from a generator that leaves `xrng`'s sequence as it
        // was: an offset in Vulkan's guaranteed range [-0.5, 0.4375], a
        // sample the target has, or the centroid.
        let mut irng = Rng(self.xrng.0 ^ 0x6a09_e667_f3bc_c909);
        let interp = match irng.below(8) {
            0 => Some(FsInterp::Offset(
                irng.range(0, 15) as i8 - 8,
                irng.range(0, 15) as i8 - 8,
            )),
            1 => Some(FsInterp::Sample(irng.below(samples.max(1)) as u8)),
            2 => Some(FsInterp::Centroid),
            _ => None,
        };
        let r = &mut self.rng;
        let alpha_ok = cbuf_formats[0].is_none_or(|c| Kind::of(c.format) == Kind::Float);
        let mut outs: Vec<Option<Kind>> = cbuf_formats
            .iter()
            .map(|c| match c {
                Some(c) => Some(Kind::of(c.format)),
                None => (!r.chance(30)).then_some(Kind::Float),
            })
            .collect();
        // Sometimes one more output than colour buffers (GL allows draw
        // buffers set to none past the bound ones).
        if outs.len() < 3 && r.chance(10) {
            outs.push(Some(Kind::Float));
        }
        // The fragment shader reads colour 0 and some of the others,
        // written by the last vertex stage or not (undefined in GL;
        // pipe-vk reads zero, `VariantKey::zero_inputs`).
        let reads = 1 | (r.bits() as u8 & 0b0110);
        let fs = FsCfg {
            outs,
            reads,
            front_facing: r.chance(20),
            frag_coord: r.chance(20),
            texture: r.chance(40),
            frag_depth: zs_format.is_some() && r.chance(15),
            discard: r.chance(15),
            interp,
        };
        self.log.note(format!("{fs:?}"));
        let fs_text = fs_text(&fs);
        let Some(fsh) = self.shader(ShaderStage::Fragment, &fs_text, None) else {
            return;
        };
        self.log
            .ok("bind_fs_state", self.e.ctx.bind_fs_state(Some(fsh)));

        // --- Rasterizer ------------------------------------------------------
        let rast = self.random_rasterizer(samples);
        self.log.note(changed(&rast, &RasterizerState::default()));
        let Some(rh) = self.log.ok(
            "create_rasterizer_state",
            self.e.ctx.create_rasterizer_state(&rast),
        ) else {
            return;
        };
        self.log.ok(
            "bind_rasterizer_state",
            self.e.ctx.bind_rasterizer_state(Some(rh)),
        );
        // A variant in what only dynamic state takes (see the third draws
        // in `draw`), with no random draw: the seeds' sequences stay.
        let it = self.log.iteration;
        let variant = RasterizerState {
            front_ccw: !rast.front_ccw,
            scissor: !rast.scissor,
            offset_tri: !rast.offset_tri,
            offset_units: rast.offset_units + 1.0,
            line_width: rast.line_width + 1.0,
            cull_face: Face::from_bits_truncate((it % 4) as u8),
            ..rast
        };
        let variant = self.log.ok(
            "create_rasterizer_state",
            self.e.ctx.create_rasterizer_state(&variant),
        );
        for old in [
            self.bound.rast.replace(rh),
            std::mem::replace(&mut self.bound.rast_variant, variant),
        ]
        .into_iter()
        .flatten()
        {
            self.log.ok(
                "delete_rasterizer_state",
                self.e.ctx.delete_rasterizer_state(old),
            );
        }

        // --- Blend -----------------------------------------------------------
        let blend = self.random_blend(&cbuf_formats, samples, alpha_ok);
        self.log.note(changed(
            &BlendState {
                rt: [blend.rt[0]; MAX_COLOR_BUFS],
                ..blend
            },
            &BlendState::default(),
        ));
        if blend.independent_blend_enable {
            self.log
                .note(format!("rt={:?}", &blend.rt[..cbuf_formats.len()]));
        }
        let Some(bh) = self
            .log
            .ok("create_blend_state", self.e.ctx.create_blend_state(&blend))
        else {
            return;
        };
        self.log
            .ok("bind_blend_state", self.e.ctx.bind_blend_state(Some(bh)));
        if let Some(old) = self.bound.blend.replace(bh) {
            self.log
                .ok("delete_blend_state", self.e.ctx.delete_blend_state(old));
        }

        // --- Depth, stencil, alpha ------------------------------------------
        let dsa = self.random_dsa(zs_format.is_some(), has_stencil, alpha_ok);
        self.log
            .note(changed(&dsa, &DepthStencilAlphaState::default()));
        let Some(dh) = self.log.ok(
            "create_dsa",
            self.e.ctx.create_depth_stencil_alpha_state(&dsa),
        ) else {
            return;
        };
        self.log.ok(
            "bind_dsa",
            self.e.ctx.bind_depth_stencil_alpha_state(Some(dh)),
        );
        if let Some(old) = self.bound.dsa.replace(dh) {
            self.log.ok(
                "delete_dsa",
                self.e.ctx.delete_depth_stencil_alpha_state(old),
            );
        }

        // --- Non-CSO state ----------------------------------------------------
        self.random_non_cso(samples);

        // --- Texture ------------------------------------------------------------
        if fs.texture || self.rng.chance(10) {
            self.bind_texture();
        }

        // --- Vertices and draws -------------------------------------------------
        if self.bind_vertices().is_none() {
            return;
        }
        let so = self.maybe_stream_output();
        self.counts[3] += u32::from(so);
        self.draws(&p);
        if so {
            self.log.ok(
                "set_stream_output_targets(none)",
                self.e.ctx.set_stream_output_targets(&[], &[]),
            );
            self.draw_auto(&p);
        }
        // --- Odds and ends between iterations ---------------------------------
        let r = &mut self.rng;
        match r.below(20) {
            0 => {
                self.log
                    .ok("flush", self.e.ctx.flush(FlushFlags::empty(), false));
            }
            1 => {
                let c = ColorUnion::from_f32([0.25, 0.5, 0.75, 1.0]);
                let mut flags = ClearFlags::COLOR0;
                if zs_format.is_some() {
                    flags |= ClearFlags::DEPTH;
                    if has_stencil {
                        flags |= ClearFlags::STENCIL;
                    }
                }
                // Only float colour buffers take a float clear colour.
                let flags = cbuf_formats
                    .iter()
                    .enumerate()
                    .fold(flags, |f, (i, c)| match c {
                        Some(c) if Kind::of(c.format) == Kind::Float && i > 0 => {
                            f | ClearFlags::from_bits_truncate(ClearFlags::COLOR0.bits() << i)
                        }
                        _ => f,
                    });
                let flags = if cbuf_formats[0].is_some_and(|c| Kind::of(c.format) != Kind::Float) {
                    flags - ClearFlags::COLOR0
                } else {
                    flags
                };
                self.log
                    .ok("clear", self.e.ctx.clear(flags, None, &c, 0.5, 0x55));
            }
            2 => {
                self.log.ok(
                    "texture_barrier",
                    self.e.ctx.texture_barrier(TextureBarrierFlags::empty()),
                );
            }
            3 => {
                // Read colour buffer 0 back (a map waits for the draws).
                if let Some(Some(s)) = fb.cbufs.first() {
                    if samples == 1 {
                        let tex = s.desc().texture.clone();
                        if let Some(t) = self.log.ok(
                            "transfer_map(READ)",
                            self.e.ctx.transfer_map(
                                &tex,
                                0,
                                MapFlags::READ,
                                &PipeBox::rect(0, 0, W, H),
                            ),
                        ) {
                            self.log.ok("transfer_unmap", self.e.ctx.transfer_unmap(t));
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// Picks the stages and the draw mode, creates and binds the vertex,
    /// tessellation and geometry shaders.
    fn pick_pipeline(&mut self) -> Option<Pipeline> {
        let gs_ok = self.stage_supported(ShaderStage::Geometry);
        let tess_ok = self.stage_supported(ShaderStage::TessEval);
        let r = &mut self.rng;
        let tess = tess_ok && r.chance(12);
        let gs = gs_ok && r.chance(if tess { 40 } else { 15 });
        self.counts[1] += u32::from(tess);
        self.counts[2] += u32::from(gs);
        let bfc = r.chance(30);
        let vs_writes = if r.chance(90) {
            ALL_BUT_BFC | if bfc { BFC } else { 0 }
        } else {
            (r.bits() as u8 & 0b1111) | 1
        };
        let vs_psize = r.chance(30).then(|| r.range(1, 6));
        let clip_distances = if r.chance(10) { r.range(1, 4) as u8 } else { 0 };
        // The attribute's format (bound by `bind_vertices`) decides the
        // vertex shader's input type.
        let vf = r.pick(&self.vformats);
        let vs = VsCfg {
            attr: Kind::of(vf),
            instanced: r.chance(30),
            writes: vs_writes,
            point_size: vs_psize,
            clip_distances,
            edge_flag: r.chance(20),
        };
        self.attr_format = vf;
        self.instanced = vs.instanced;
        self.log.note(format!("{vs:?} attr={vf:?}"));
        let so = if self.caps.stream_output && !tess && !gs && self.rng.chance(15) {
            // Capture the position and colour 0 (outputs 0 and 1).
            Some(StreamOutputInfo {
                stride: [8, 4, 0, 0],
                output: vec![
                    StreamOutput {
                        register_index: 0,
                        start_component: 0,
                        num_components: 4,
                        output_buffer: 0,
                        dst_offset: 0,
                        stream: 0,
                    },
                    StreamOutput {
                        register_index: 1,
                        start_component: 0,
                        num_components: 4,
                        output_buffer: if self.rng.chance(50) { 1 } else { 0 },
                        dst_offset: 4,
                        stream: 0,
                    },
                ],
            })
        } else {
            None
        };
        // Fix the second buffer's offset (it is 0 in its own buffer).
        let so = so.map(|mut s| {
            if s.output[1].output_buffer == 1 {
                s.output[1].dst_offset = 0;
                s.stride = [4, 4, 0, 0];
            }
            s
        });
        self.so_info = so.clone();
        let vtext = vs_text(&vs);
        let vh = self.shader(ShaderStage::Vertex, &vtext, so.as_ref())?;
        self.log
            .ok("bind_vs_state", self.e.ctx.bind_vs_state(Some(vh)));
        let mut writes = vs.writes;
        let mut prev_out: Option<GsIn> = None;
        let mut patch_vertices = 0;
        if tess {
            let r = &mut self.rng;
            let tc = TessCfg {
                mode: r.pick(&[TesMode::Triangles, TesMode::Quads, TesMode::Isolines]),
                spacing: r.pick(&["equal", "fractional_even", "fractional_odd"]),
                cw: r.chance(50),
                point_mode: r.chance(20),
                tcs_level: r.chance(50).then(|| r.range(1, 3)),
                writes: if r.chance(90) { vs.writes } else { ALL_BUT_BFC },
                point_size: r.chance(30).then(|| r.range(1, 4)),
            };
            patch_vertices = if tc.tcs_level.is_some() {
                4
            } else {
                r.range(3, 5) as u8
            };
            self.log
                .note(format!("{tc:?} patch_vertices={patch_vertices}"));
            let tes = self.shader(ShaderStage::TessEval, &tes_text(&tc), None)?;
            self.log
                .ok("bind_tes_state", self.e.ctx.bind_tes_state(Some(tes)));
            match tc.tcs_level {
                Some(l) => {
                    let tcs = self.shader(ShaderStage::TessCtrl, &tcs_text(l), None)?;
                    self.log
                        .ok("bind_tcs_state", self.e.ctx.bind_tcs_state(Some(tcs)));
                }
                None => {
                    self.log
                        .ok("bind_tcs_state(none)", self.e.ctx.bind_tcs_state(None));
                    let r = &mut self.rng;
                    let ts = TessState {
                        default_outer_level: [0; 4].map(|_| r.range(1, 3) as f32),
                        default_inner_level: [0; 2].map(|_| r.range(1, 3) as f32),
                    };
                    self.log
                        .ok("set_tess_state", self.e.ctx.set_tess_state(&ts));
                }
            }
            self.log.ok(
                "set_patch_vertices",
                self.e.ctx.set_patch_vertices(patch_vertices),
            );
            writes = tc.writes;
            prev_out = Some(tc.output());
        } else {
            self.log
                .ok("bind_tcs_state(none)", self.e.ctx.bind_tcs_state(None));
            self.log
                .ok("bind_tes_state(none)", self.e.ctx.bind_tes_state(None));
        }
        let mode = if gs {
            let r = &mut self.rng;
            let input = match prev_out {
                Some(o) => o,
                None => r.pick(&[
                    GsIn::Points,
                    GsIn::Lines,
                    GsIn::LinesAdj,
                    GsIn::Triangles,
                    GsIn::TrianglesAdj,
                ]),
            };
            let gc = GsCfg {
                input,
                output: r.pick(&["points", "line_strip", "triangle_strip"]),
                passes: if r.chance(90) {
                    writes
                } else {
                    writes & 0b0011
                } | if r.chance(30) { BFC } else { 0 },
                copies: r.range(1, 2),
                point_size: r.chance(40).then(|| r.range(1, 4)),
            };
            self.log.note(format!("{gc:?}"));
            let g = self.shader(ShaderStage::Geometry, &gs_text(&gc), None)?;
            self.log
                .ok("bind_gs_state", self.e.ctx.bind_gs_state(Some(g)));
            if tess {
                PrimType::Patches
            } else {
                self.rng.pick(input.modes())
            }
        } else {
            self.log
                .ok("bind_gs_state(none)", self.e.ctx.bind_gs_state(None));
            if tess {
                PrimType::Patches
            } else {
                let adj = gs_ok;
                let all = [
                    PrimType::Points,
                    PrimType::Lines,
                    PrimType::LineLoop,
                    PrimType::LineStrip,
                    PrimType::Triangles,
                    PrimType::TriangleStrip,
                    PrimType::TriangleFan,
                    PrimType::Quads,
                    PrimType::QuadStrip,
                    PrimType::Polygon,
                    PrimType::LinesAdjacency,
                    PrimType::LineStripAdjacency,
                    PrimType::TrianglesAdjacency,
                    PrimType::TriangleStripAdjacency,
                ];
                let n = if adj { all.len() } else { all.len() - 4 };
                self.rng.pick(&all[..n])
            }
        };
        Some(Pipeline {
            mode,
            patch_vertices,
        })
    }

    fn random_rasterizer(&mut self, samples: u32) -> RasterizerState {
        let caps = &self.caps;
        let r = &mut self.rng;
        let modes = [PolygonMode::Fill, PolygonMode::Line, PolygonMode::Point];
        let (fill_front, fill_back) = if r.chance(60) {
            (PolygonMode::Fill, PolygonMode::Fill)
        } else if caps.polygon_mode_fill_rectangle && r.chance(10) {
            (PolygonMode::FillRectangle, PolygonMode::FillRectangle)
        } else if r.chance(50) {
            let m = r.pick(&modes);
            (m, m)
        } else {
            (r.pick(&modes), r.pick(&modes))
        };
        let depth_clip = !(caps.depth_clip_disable && r.chance(20));
        let max_line = caps.max_line_width.clamp(1.0, 8.0);
        RasterizerState {
            flatshade: r.chance(25),
            light_twoside: r.chance(20),
            clamp_vertex_color: r.chance(10),
            clamp_fragment_color: r.chance(10),
            front_ccw: r.chance(50),
            cull_face: Face::from_bits_truncate(if r.chance(60) { 0 } else { r.range(1, 3) as u8 }),
            fill_front,
            fill_back,
            offset_point: r.chance(15),
            offset_line: r.chance(15),
            offset_tri: r.chance(20),
            scissor: r.chance(25),
            poly_smooth: r.chance(5),
            poly_stipple_enable: r.chance(15),
            point_smooth: r.chance(10),
            sprite_coord_enable: if r.chance(25) {
                r.range(0, 255) as u16
            } else {
                0
            },
            sprite_coord_mode_lower_left: r.chance(50),
            point_quad_rasterization: r.chance(30),
            point_size_per_vertex: r.chance(30),
            multisample: samples > 1 && r.chance(80),
            no_ms_sample_mask_out: false,
            force_persample_interp: caps.sample_shading && samples > 1 && r.chance(15),
            line_smooth: r.chance(15),
            line_stipple_enable: caps.line_stipple && r.chance(25),
            line_last_pixel: r.chance(20),
            line_rectangular: r.chance(40),
            flatshade_first: r.chance(40),
            half_pixel_center: !r.chance(15),
            bottom_edge_rule: r.chance(10),
            rasterizer_discard: r.chance(4),
            depth_clip_near: depth_clip,
            depth_clip_far: depth_clip,
            depth_clamp: caps.depth_clamp && r.chance(20),
            clip_halfz: r.chance(40),
            offset_units_unscaled: r.chance(10),
            clip_plane_enable: if r.chance(15) {
                r.range(1, 255) as u8
            } else {
                0
            },
            line_stipple_factor: r.range(0, 4) as u8,
            line_stipple_pattern: r.bits() as u16,
            line_width: if caps.wide_lines && r.chance(30) {
                r.float(1.0, max_line)
            } else {
                1.0
            },
            point_size: r.float(1.0, caps.max_point_size.clamp(1.0, 12.0)),
            offset_units: r.float(-4.0, 4.0),
            offset_scale: r.float(-2.0, 2.0),
            offset_clamp: if caps.polygon_offset_clamp && r.chance(30) {
                r.float(-0.01, 0.01)
            } else {
                0.0
            },
        }
    }

    fn random_blend(
        &mut self,
        cbufs: &[Option<ColorFormat>],
        samples: u32,
        alpha_ok: bool,
    ) -> BlendState {
        use BlendFactor::*;
        let caps = &self.caps;
        let r = &mut self.rng;
        let factors = [
            One,
            SrcColor,
            SrcAlpha,
            DstAlpha,
            DstColor,
            SrcAlphaSaturate,
            ConstColor,
            ConstAlpha,
            Zero,
            InvSrcColor,
            InvSrcAlpha,
            InvDstAlpha,
            InvDstColor,
            InvConstColor,
            InvConstAlpha,
        ];
        let funcs = [
            BlendFunc::Add,
            BlendFunc::Subtract,
            BlendFunc::ReverseSubtract,
            BlendFunc::Min,
            BlendFunc::Max,
        ];
        let all_unorm = cbufs.iter().flatten().all(|c| c.format.is_unorm());
        let independent = caps.independent_blend_enable && r.chance(40);
        let mut rt = [RtBlendState::default(); MAX_COLOR_BUFS];
        for (i, slot) in rt.iter_mut().enumerate() {
            let fmt = cbufs.get(i).copied().flatten();
            // Blending on a format that cannot blend: st/mesa turns it off.
            let can_blend = fmt.is_none_or(|c| c.blendable);
            *slot = RtBlendState {
                blend_enable: can_blend && r.chance(50),
                rgb_func: r.pick(&funcs),
                rgb_src_factor: r.pick(&factors),
                rgb_dst_factor: r.pick(&factors),
                alpha_func: r.pick(&funcs),
                alpha_src_factor: r.pick(&factors),
                alpha_dst_factor: r.pick(&factors),
                colormask: if r.chance(70) {
                    ColorMask::RGBA
                } else {
                    ColorMask::from_bits_truncate(r.range(0, 15) as u8)
                },
            };
        }
        if !independent {
            // Without independent blend every target takes rt[0]; keep
            // blending off unless every bound target can blend.
            if !cbufs.iter().flatten().all(|c| c.blendable) {
                rt[0].blend_enable = false;
            }
            for i in 1..MAX_COLOR_BUFS {
                rt[i] = rt[0];
            }
        }
        BlendState {
            independent_blend_enable: independent,
            logicop_enable: caps.logic_op && all_unorm && r.chance(15),
            logicop_func: r.pick(&[
                LogicOp::Clear,
                LogicOp::Nor,
                LogicOp::AndInverted,
                LogicOp::CopyInverted,
                LogicOp::AndReverse,
                LogicOp::Invert,
                LogicOp::Xor,
                LogicOp::Nand,
                LogicOp::And,
                LogicOp::Equiv,
                LogicOp::Noop,
                LogicOp::OrInverted,
                LogicOp::Copy,
                LogicOp::OrReverse,
                LogicOp::Or,
                LogicOp::Set,
            ]),
            dither: r.chance(20),
            alpha_to_coverage: samples > 1 && alpha_ok && r.chance(30),
            alpha_to_coverage_dither: r.chance(20),
            alpha_to_one: samples > 1 && caps.alpha_to_one && r.chance(15),
            max_rt: cbufs.len() as u8,
            rt,
        }
    }

    fn random_dsa(&mut self, zs: bool, stencil: bool, alpha_ok: bool) -> DepthStencilAlphaState {
        let r = &mut self.rng;
        let funcs = [
            CompareFunc::Never,
            CompareFunc::Less,
            CompareFunc::Equal,
            CompareFunc::LEqual,
            CompareFunc::Greater,
            CompareFunc::NotEqual,
            CompareFunc::GEqual,
            CompareFunc::Always,
        ];
        let ops = [
            StencilOp::Keep,
            StencilOp::Zero,
            StencilOp::Replace,
            StencilOp::Incr,
            StencilOp::Decr,
            StencilOp::IncrWrap,
            StencilOp::DecrWrap,
            StencilOp::Invert,
        ];
        let face = |r: &mut Rng| StencilState {
            enabled: true,
            func: r.pick(&funcs),
            fail_op: r.pick(&ops),
            zpass_op: r.pick(&ops),
            zfail_op: r.pick(&ops),
            valuemask: r.bits() as u8,
            writemask: r.bits() as u8,
        };
        let front = if stencil && r.chance(50) {
            face(r)
        } else {
            StencilState::default()
        };
        let back = if front.enabled && r.chance(50) {
            face(r)
        } else {
            StencilState::default()
        };
        let depth_bounds = self.caps.depth_bounds_test && zs && r.chance(10);
        let (a, b) = (r.float(0.0, 1.0), r.float(0.0, 1.0));
        DepthStencilAlphaState {
            depth_enabled: zs && r.chance(60),
            depth_writemask: r.chance(60),
            depth_func: r.pick(&funcs),
            depth_bounds_test: depth_bounds,
            stencil: [front, back],
            alpha_enabled: alpha_ok && r.chance(20),
            alpha_func: r.pick(&funcs),
            alpha_ref_value: r.float(0.0, 1.0),
            depth_bounds_min: f64::from(a.min(b)),
            depth_bounds_max: f64::from(a.max(b)),
        }
    }

    fn random_non_cso(&mut self, samples: u32) {
        let r = &mut self.rng;
        let refs = StencilRef {
            ref_value: [r.bits() as u8, r.bits() as u8],
        };
        let bc = BlendColor {
            color: [
                r.float(0.0, 1.0),
                r.float(0.0, 1.0),
                r.float(0.0, 1.0),
                r.float(0.0, 1.0),
            ],
        };
        let mask = if r.chance(80) { u32::MAX } else { r.bits() };
        let min_samples = if samples > 1 && self.caps.sample_shading && r.chance(20) {
            r.range(1, samples)
        } else {
            1
        };
        let mut clip = ClipState::default();
        for p in clip.ucp.iter_mut() {
            *p = [
                r.float(-1.0, 1.0),
                r.float(-1.0, 1.0),
                r.float(-1.0, 1.0),
                r.float(0.0, 1.0),
            ];
        }
        let mut stipple = PolyStipple::default();
        for w in stipple.stipple.iter_mut() {
            *w = r.bits();
        }
        let (x0, y0) = (r.range(0, W), r.range(0, H));
        let sc = ScissorState {
            minx: x0 as u16,
            miny: y0 as u16,
            maxx: r.range(x0, W) as u16,
            maxy: r.range(y0, H) as u16,
        };
        let c = &mut self.e.ctx;
        let results = [
            ("set_stencil_ref", c.set_stencil_ref(refs)),
            ("set_blend_color", c.set_blend_color(&bc)),
            ("set_sample_mask", c.set_sample_mask(mask)),
            ("set_min_samples", c.set_min_samples(min_samples)),
            ("set_clip_state", c.set_clip_state(&clip)),
            ("set_polygon_stipple", c.set_polygon_stipple(&stipple)),
            ("set_scissor_states", c.set_scissor_states(0, &[sc])),
        ];
        for (what, res) in results {
            self.log.ok(what, res);
        }
        // Window rectangles, from the later generator: a quarter of the
        // iterations include or exclude 1-4 random rectangles, the rest
        // exclude none (GL's default).
        let max = self.caps.max_window_rectangles.min(4);
        if max > 0 {
            let r = &mut self.xrng;
            let (include, rects) = if r.chance(25) {
                let rects: Vec<ScissorState> = (0..r.range(1, max))
                    .map(|_| {
                        let (x0, y0) = (r.range(0, W - 1), r.range(0, H - 1));
                        ScissorState {
                            minx: x0 as u16,
                            miny: y0 as u16,
                            maxx: r.range(x0 + 1, W) as u16,
                            maxy: r.range(y0 + 1, H) as u16,
                        }
                    })
                    .collect();
                (r.chance(50), rects)
            } else {
                (false, Vec::new())
            };
            if !rects.is_empty() {
                self.log
                    .note(format!("window rectangles include={include} {rects:?}"));
            }
            let res = self.e.ctx.set_window_rectangles(include, &rects);
            self.log.ok("set_window_rectangles", res);
        }
    }

    fn bind_texture(&mut self) {
        let r = &mut self.rng;
        let wraps = [
            TexWrap::Repeat,
            TexWrap::ClampToEdge,
            TexWrap::ClampToBorder,
            TexWrap::MirrorRepeat,
        ];
        let filters = [TexFilter::Nearest, TexFilter::Linear];
        let ss = SamplerState {
            wrap_s: r.pick(&wraps),
            wrap_t: r.pick(&wraps),
            wrap_r: r.pick(&wraps),
            min_img_filter: r.pick(&filters),
            mag_img_filter: r.pick(&filters),
            min_mip_filter: r.pick(&[MipFilter::None, MipFilter::Nearest, MipFilter::Linear]),
            seamless_cube_map: true,
            max_lod: r.float(0.0, 2.0),
            border_color: ColorUnion::from_f32([r.float(0.0, 1.0), 0.5, 0.25, 1.0]),
            ..Default::default()
        };
        let Some(sh) = self
            .log
            .ok("create_sampler_state", self.e.ctx.create_sampler_state(&ss))
        else {
            return;
        };
        self.log.ok(
            "bind_sampler_states",
            self.e
                .ctx
                .bind_sampler_states(ShaderStage::Fragment, 0, &[Some(sh)]),
        );
        if let Some(old) = self.bound.sampler.replace(sh) {
            self.log
                .ok("delete_sampler_state", self.e.ctx.delete_sampler_state(old));
        }
        let v = self.texture.clone();
        self.log.ok(
            "set_sampler_views",
            self.e
                .ctx
                .set_sampler_views(ShaderStage::Fragment, 0, &[Some(v)], 0),
        );
    }

    /// Binds positions (location 0), the attribute (location 1) and, for
    /// an instanced vertex shader, per-instance offsets (location 2).
    fn bind_vertices(&mut self) -> Option<()> {
        let instanced = self.instanced;
        let vf = self.attr_format;
        let r = &mut self.rng;
        // Positions: 2, 3 or 4 floats.
        let pos_comps = r.pick(&[2u32, 3, 4, 4]);
        let pos_format = match pos_comps {
            2 => Format::R32G32Float,
            3 => Format::R32G32B32Float,
            _ => Format::R32G32B32A32Float,
        };
        let pos_pad = 4 * r.range(0, 2);
        let pos_stride = pos_comps * 4 + pos_pad;
        let full = r.chance(30);
        let mut pos = Vec::new();
        for i in 0..NV {
            let v = if full {
                // Large triangles and quads that cover the target.
                let corners = [
                    [-1.0, -1.0],
                    [1.0, -1.0],
                    [-1.0, 1.0],
                    [1.0, 1.0],
                    [3.0, -1.0],
                    [-1.0, 3.0],
                ];
                let c = corners[(i as usize) % corners.len()];
                [c[0], c[1], r.float(0.0, 1.0), 1.0]
            } else {
                [
                    r.float(-1.3, 1.3),
                    r.float(-1.3, 1.3),
                    r.float(-0.3, 1.3),
                    r.float(0.6, 1.4),
                ]
            };
            let mut bytes = f32s(&v[..pos_comps as usize]);
            bytes.resize(pos_stride as usize, 0);
            pos.extend_from_slice(&bytes);
        }
        // The attribute: random bytes (floats between 0 and 1 for the
        // float formats, so that colours stay finite).
        let size = vf.block_size_bytes();
        let attr_off = 4 * r.range(0, 2);
        let constant = r.chance(10);
        let attr_stride = if constant {
            0
        } else {
            (attr_off + size).next_multiple_of(4) + 4 * r.range(0, 1)
        };
        let n = if constant { 1 } else { NV };
        let mut attr = vec![0u8; (attr_off + attr_stride * n + size) as usize];
        for b in attr.iter_mut() {
            *b = r.bits() as u8;
        }
        let name = vf.name();
        if name.ends_with("_FLOAT") && !name.contains("R11G11B10") {
            let bits = if name.contains("64") {
                64
            } else if name.contains("16") {
                16
            } else {
                32
            };
            let comps = size * 8 / bits;
            for v in 0..n {
                for c in 0..comps {
                    let x = r.float(0.0, 1.0);
                    let at = (attr_off + v * attr_stride + c * bits / 8) as usize;
                    match bits {
                        64 => attr[at..at + 8].copy_from_slice(&f64::from(x).to_le_bytes()),
                        32 => attr[at..at + 4].copy_from_slice(&x.to_le_bytes()),
                        _ => {
                            // A half between 0 and 1: exponent 14 or below.
                            let h: u16 = (r.range(0, 14) << 10 | r.range(0, 1023)) as u16;
                            attr[at..at + 2].copy_from_slice(&h.to_le_bytes());
                        }
                    }
                }
            }
        }
        let mut elems = vec![
            VertexElement {
                src_offset: 0,
                src_stride: pos_stride,
                vertex_buffer_index: 0,
                dual_slot: false,
                src_format: pos_format,
                instance_divisor: 0,
            },
            VertexElement {
                src_offset: attr_off,
                src_stride: attr_stride,
                vertex_buffer_index: 1,
                dual_slot: false,
                src_format: vf,
                instance_divisor: 0,
            },
        ];
        let mut bufs = vec![pos, attr];
        if instanced {
            let divisor = r.range(1, 3);
            let mut inst = Vec::new();
            for _ in 0..NI {
                inst.extend(f32s(&[r.float(-2.0, 2.0), r.float(-2.0, 2.0), 0.0, 0.0]));
            }
            elems.push(VertexElement {
                src_offset: 0,
                src_stride: 16,
                vertex_buffer_index: 2,
                dual_slot: false,
                src_format: Format::R32G32B32A32Float,
                instance_divisor: divisor,
            });
            bufs.push(inst);
        }
        // Sometimes the buffers in another order (element i feeds input
        // location i; the buffer slots are free).
        if r.chance(20) {
            elems[0].vertex_buffer_index = 1;
            elems[1].vertex_buffer_index = 0;
            bufs.swap(0, 1);
        }
        self.log.note(format!("velems={elems:?}"));
        let ve = self.log.ok(
            "create_vertex_elements_state",
            self.e.ctx.create_vertex_elements_state(&elems),
        )?;
        self.log.ok(
            "bind_vertex_elements_state",
            self.e.ctx.bind_vertex_elements_state(Some(ve)),
        );
        // A distinct CSO of the same fetch (CSOs are hash-consed, so equal
        // elements would give back the same handle): `dual_slot` is
        // ignored on elements that are not 64-bit.
        let twin_elems: Vec<VertexElement> = elems
            .iter()
            .map(|e| VertexElement {
                dual_slot: e.dual_slot || e.src_format.desc().channels[0].size != 64,
                ..*e
            })
            .collect();
        let twin = self.log.ok(
            "create_vertex_elements_state",
            self.e.ctx.create_vertex_elements_state(&twin_elems),
        )?;
        if twin == ve {
            let msg = format!(
                "iteration {}: the twin vertex elements CSO is the same one",
                self.log.iteration
            );
            self.log.failures.push(msg);
            return None;
        }
        let old = [
            self.bound.velems.replace(ve),
            self.bound.velems_twin.replace(twin),
        ];
        for old in old.into_iter().flatten() {
            self.log.ok(
                "delete_vertex_elements_state",
                self.e.ctx.delete_vertex_elements_state(old),
            );
        }
        let mut vbs = Vec::new();
        let mut twins = Vec::new();
        for data in bufs {
            let user = self.rng.chance(50);
            let off = 4 * self.rng.range(0, 3);
            let mut bytes = vec![0u8; off as usize];
            bytes.extend_from_slice(&data);
            let src = if user {
                VertexBufferSource::User(Arc::from(bytes))
            } else {
                let t = ResourceTemplate::buffer(bytes.len() as u32, BindFlags::VERTEX_BUFFER);
                let b = self
                    .log
                    .ok("resource_create(vb)", self.e.screen.resource_create(&t))?;
                self.log.ok(
                    "buffer_subdata(vb)",
                    self.e.ctx.buffer_subdata(&b, MapFlags::empty(), 0, &bytes),
                )?;
                // A twin with the same contents (no random draw).
                let twin = self
                    .log
                    .ok("resource_create(vb)", self.e.screen.resource_create(&t))?;
                self.log.ok(
                    "buffer_subdata(vb)",
                    self.e
                        .ctx
                        .buffer_subdata(&twin, MapFlags::empty(), 0, &bytes),
                )?;
                twins.push(VertexBuffer {
                    buffer: Some(VertexBufferSource::Resource(twin)),
                    buffer_offset: off,
                });
                VertexBufferSource::Resource(b)
            };
            if user {
                twins.push(VertexBuffer {
                    buffer: Some(src.clone()),
                    buffer_offset: off,
                });
            }
            vbs.push(VertexBuffer {
                buffer: Some(src),
                buffer_offset: off,
            });
        }
        let kinds: Vec<String> = vbs
            .iter()
            .map(|v| match &v.buffer {
                Some(VertexBufferSource::User(_)) => format!("user+{}", v.buffer_offset),
                _ => format!("resource+{}", v.buffer_offset),
            })
            .collect();
        self.log.note(format!("vbs={kinds:?}"));
        self.vertex_buffers = [vbs.clone(), twins];
        self.twin_bound = false;
        self.log
            .ok("set_vertex_buffers", self.e.ctx.set_vertex_buffers(&vbs))
    }

    /// Binds stream-output targets when the vertex shader captures.
    fn maybe_stream_output(&mut self) -> bool {
        let Some(info) = self.so_info.clone() else {
            return false;
        };
        let two = info.output.iter().any(|o| o.output_buffer == 1);
        // A small target overflows (GL stops writing), a large one not.
        let size = if self.rng.chance(30) { 64 } else { 4096 };
        let mut targets = Vec::new();
        for i in 0..if two { 2 } else { 1 } {
            // Target i in its own 8 KiB of the buffer.
            let off = 8192 * i + 16 * self.rng.range(0, 2);
            let Some(t) = self.log.ok(
                "create_stream_output_target",
                self.e
                    .ctx
                    .create_stream_output_target(&self.so_buffer, off, size),
            ) else {
                return false;
            };
            targets.push(Some(t));
        }
        let append = self.rng.chance(30);
        let offsets: Vec<Option<u32>> = targets
            .iter()
            .map(|_| if append { None } else { Some(0) })
            .collect();
        self.log.note(format!(
            "stream output {info:?} size={size} append={append}"
        ));
        let ok = self
            .log
            .ok(
                "set_stream_output_targets",
                self.e.ctx.set_stream_output_targets(&targets, &offsets),
            )
            .is_some();
        if let Some(old) = self.so_target.take() {
            self.log.ok(
                "stream_output_target_destroy",
                self.e.ctx.stream_output_target_destroy(old),
            );
        }
        let mut targets = targets.into_iter().flatten();
        self.so_target = targets.next().filter(|_| ok);
        for t in targets {
            self.log.ok(
                "stream_output_target_destroy",
                self.e.ctx.stream_output_target_destroy(t),
            );
        }
        ok
    }

    /// After a capture (targets unbound): sometimes a draw-auto draw of
    /// the pipeline's mode from the first target, fetching every vertex
    /// input from the captured records (the stride the target was
    /// captured with, so that the draw reads what was written), then the
    /// iteration's vertex state again.
    fn draw_auto(&mut self, p: &Pipeline) {
        let (Some(t), Some(info)) = (self.so_target.clone(), self.so_info.clone()) else {
            return;
        };
        if !self.xrng.chance(40) {
            return;
        }
        let stride = u32::from(info.stride[0]) * 4;
        if stride == 0 {
            return;
        }
        let attr = match Kind::of(self.attr_format) {
            Kind::Float => Format::R32G32B32A32Float,
            Kind::Uint => Format::R32G32B32A32Uint,
            Kind::Sint => Format::R32G32B32A32Sint,
        };
        let formats = [Format::R32G32B32A32Float, attr, Format::R32G32B32A32Float];
        let n = if self.instanced { 3 } else { 2 };
        let elems: Vec<VertexElement> = formats[..n]
            .iter()
            .map(|&src_format| VertexElement {
                src_offset: 0,
                src_stride: stride,
                vertex_buffer_index: 0,
                dual_slot: false,
                src_format,
                instance_divisor: 0,
            })
            .collect();
        self.log.note(format!("draw-auto stride={stride}"));
        let Some(ve) = self.log.ok(
            "create_vertex_elements_state(draw-auto)",
            self.e.ctx.create_vertex_elements_state(&elems),
        ) else {
            return;
        };
        let c = &mut self.e.ctx;
        let bound = [
            c.bind_vertex_elements_state(Some(ve)),
            c.set_vertex_buffers(&[VertexBuffer {
                buffer: Some(VertexBufferSource::Resource(t.desc().buffer.clone())),
                buffer_offset: t.desc().buffer_offset,
            }]),
        ];
        if bound
            .into_iter()
            .all(|r| self.log.ok("draw-auto vertex state", r).is_some())
        {
            let auto = DrawIndirectInfo {
                count_from_stream_output: Some(t),
                ..Default::default()
            };
            let info = DrawInfo {
                mode: p.mode,
                ..DrawInfo::default()
            };
            let r = self.e.ctx.draw_vbo(&info, 0, Some(&auto), &[]);
            self.log.ok("draw_vbo (draw-auto)", r);
        }
        // The iteration's vertex state again.
        let (velems, vbs) = if self.twin_bound {
            (self.bound.velems_twin, self.vertex_buffers[1].clone())
        } else {
            (self.bound.velems, self.vertex_buffers[0].clone())
        };
        let c = &mut self.e.ctx;
        let back = [
            c.bind_vertex_elements_state(velems),
            c.set_vertex_buffers(&vbs),
            c.delete_vertex_elements_state(ve),
        ];
        for r in back {
            self.log.ok("draw-auto: restore", r);
        }
    }

    /// One to three draw calls of the pipeline's mode.
    fn draws(&mut self, p: &Pipeline) {
        let calls = self.rng.range(1, 3);
        for _ in 0..calls {
            self.draw(p);
        }
    }

    fn draw(&mut self, p: &Pipeline) {
        let r = &mut self.rng;
        let index_size = r.pick(&[0u8, 0, 1, 2, 4]);
        let instances = if r.chance(70) { 1 } else { r.range(0, 3) };
        let start_instance = if r.chance(80) { 0 } else { r.range(0, 2) };
        let ndraws = if r.chance(80) { 1 } else { r.range(2, 3) };
        // st/mesa drops restart for patches (no primitive_restart_for_patches).
        let restart = index_size != 0 && p.mode != PrimType::Patches && r.chance(40);
        let restart_index = match (index_size, r.chance(50)) {
            (1, true) => 0xff,
            (2, true) => 0xffff,
            (4, true) => 0xffff_ffff,
            // An odd restart index: one of the vertex indices.
            _ => r.range(0, NV - 1) | 1,
        };
        let mut draws = Vec::new();
        let mut indices: Vec<u32> = Vec::new();
        let mut min = u32::MAX;
        let mut max = 0;
        for _ in 0..ndraws {
            let count = match p.mode {
                PrimType::Patches => p.patch_vertices as u32 * r.range(0, 3),
                _ => r.range(0, 16),
            };
            if index_size == 0 {
                let start = r.range(0, NV - count);
                draws.push(DrawStartCountBias {
                    start,
                    count,
                    index_bias: 0,
                });
            } else {
                let bias = r.range(0, 4) as i32;
                let start = indices.len() as u32 + r.range(0, 2);
                while (indices.len() as u32) < start {
                    indices.push(r.range(0, NV - 5));
                }
                for _ in 0..count {
                    let i = if restart && r.chance(15) {
                        restart_index
                    } else {
                        let mut i = r.range(0, NV - 5);
                        if restart && i == restart_index {
                            i = (i + 1) % (NV - 5);
                        }
                        i
                    };
                    if !(restart && i == restart_index) {
                        min = min.min(i + bias as u32);
                        max = max.max(i + bias as u32);
                    }
                    indices.push(i);
                }
                draws.push(DrawStartCountBias {
                    start,
                    count,
                    index_bias: bias,
                });
            }
        }
        let restart_index = match index_size {
            1 => restart_index & 0xff,
            2 => restart_index & 0xffff,
            _ => restart_index,
        };
        let bytes: Vec<u8> = indices
            .iter()
            .flat_map(|&i| {
                let b = i.to_le_bytes();
                b[..index_size as usize].to_vec()
            })
            .collect();
        let bounds = index_size != 0 && min <= max && r.chance(50);
        let user_index = r.chance(50);
        let index = if index_size == 0 {
            IndexSource::None
        } else if user_index {
            IndexSource::User(&bytes)
        } else {
            let t = ResourceTemplate::buffer((bytes.len() as u32).max(4), BindFlags::INDEX_BUFFER);
            let Some(b) = self
                .log
                .ok("resource_create(ib)", self.e.screen.resource_create(&t))
            else {
                return;
            };
            if !bytes.is_empty()
                && self
                    .log
                    .ok(
                        "buffer_subdata(ib)",
                        self.e.ctx.buffer_subdata(&b, MapFlags::empty(), 0, &bytes),
                    )
                    .is_none()
            {
                return;
            }
            IndexSource::Resource(b)
        };
        let biases_vary = draws.windows(2).any(|w| w[0].index_bias != w[1].index_bias);
        let info = DrawInfo {
            mode: p.mode,
            index_size,
            index,
            primitive_restart: restart,
            restart_index,
            start_instance,
            instance_count: instances,
            min_index: if bounds { min } else { 0 },
            max_index: if bounds { max } else { u32::MAX },
            index_bias_varies: biases_vary,
            increment_draw_id: ndraws > 1 && self.rng.chance(50),
            view_mask: 0,
        };
        let desc = format!(
            "draw {:?} index_size={index_size} restart={restart}/{restart_index:#x} instances={start_instance}+{instances} draws={draws:?} indices={indices:?}",
            p.mode
        );
        let saved = self.log.desc.len();
        self.log.note(desc);
        self.draw_no += 1;
        if std::env::var_os("PIPE_CTS_STATE_FUZZ_VERBOSE").is_some() {
            eprintln!("state_fuzz: draw #{}: {}", self.draw_no, self.log.desc);
        }
        let before = pipe_vk::debug::message_count();
        let first = self.draw_vbo(&info, &draws);
        if self.log.ok("draw_vbo", first).is_some() {
            // The same draw again, from the twins (or back).
            let vbs = self.vertex_buffers[usize::from(!self.twin_bound)].clone();
            let ve = if self.twin_bound {
                self.bound.velems
            } else {
                self.bound.velems_twin
            };
            if self
                .log
                .ok(
                    "bind_vertex_elements_state",
                    self.e.ctx.bind_vertex_elements_state(ve),
                )
                .is_some()
                && self
                    .log
                    .ok("set_vertex_buffers", self.e.ctx.set_vertex_buffers(&vbs))
                    .is_some()
            {
                self.twin_bound = !self.twin_bound;
                let again = self.draw_vbo(&info, &draws);
                self.log.ok("draw_vbo (again)", again);
            }
            // Every other draw, a third time after binding the same
            // depth-stencil-alpha, blend and rasterizer states again:
            // changes that keep the pipeline in pipe-vk (the same alpha
            // test, alpha-to-coverage and alpha-to-one, and shader
            // variant items).
            if self.draw_no % 2 == 1 {
                if let (Some(dsa), Some(blend), Some(rast), Some(variant)) = (
                    self.bound.dsa,
                    self.bound.blend,
                    self.bound.rast,
                    self.bound.rast_variant,
                ) {
                    let bound = self
                        .log
                        .ok(
                            "bind_depth_stencil_alpha_state",
                            self.e.ctx.bind_depth_stencil_alpha_state(Some(dsa)),
                        )
                        .and_then(|_| {
                            self.log
                                .ok("bind_blend_state", self.e.ctx.bind_blend_state(Some(blend)))
                        })
                        .and_then(|_| {
                            self.log.ok(
                                "bind_rasterizer_state",
                                self.e.ctx.bind_rasterizer_state(Some(rast)),
                            )
                        });
                    if bound.is_some() {
                        let third = self.draw_vbo(&info, &draws);
                        self.log.ok("draw_vbo (third)", third);
                        // And a fourth with the variant rasterizer, then
                        // the iteration's back.
                        let variant = self.log.ok(
                            "bind_rasterizer_state",
                            self.e.ctx.bind_rasterizer_state(Some(variant)),
                        );
                        if variant.is_some() {
                            let fourth = self.draw_vbo(&info, &draws);
                            self.log.ok("draw_vbo (variant rasterizer)", fourth);
                        }
                        self.log.ok(
                            "bind_rasterizer_state",
                            self.e.ctx.bind_rasterizer_state(Some(rast)),
                        );
                    }
                }
            }
        }
        self.check_messages(before, "draw_vbo");
        self.log.desc.truncate(saved);
    }

    /// `draw_vbo`, or nothing past the first `PIPE_CTS_STATE_FUZZ_DRAW_CALLS`
    /// calls of the run, or for calls not in
    /// `PIPE_CTS_STATE_FUZZ_DRAW_ONLY=9,10` (counted from 1), to find the
    /// calls a failure needs; the random stream stays the same.
    fn draw_vbo(&mut self, info: &DrawInfo, draws: &[DrawStartCountBias]) -> PipeResult<()> {
        self.draw_calls += 1;
        let limit = std::env::var("PIPE_CTS_STATE_FUZZ_DRAW_CALLS")
            .ok()
            .and_then(|v| v.trim().parse::<u32>().ok());
        if limit.is_some_and(|l| self.draw_calls > l) {
            return Ok(());
        }
        let only = std::env::var("PIPE_CTS_STATE_FUZZ_DRAW_ONLY");
        if only.is_ok_and(|o| {
            !o.split(',')
                .any(|x| x.trim().parse() == Ok(self.draw_calls))
        }) {
            return Ok(());
        }
        self.e.ctx.draw_vbo(info, 0, None, draws)
    }

    /// Names the iteration on stderr, with the messages, when validation
    /// messages appeared (they stay recorded for the runner).
    /// Ends the active queries (checking pairs that counted the same
    /// draws against each other), and with `begin` maybe begins another
    /// random set, maybe paused, maybe predicating the iteration's draws
    /// on the occlusion predicate.
    fn queries_step(&mut self, r: &mut Rng, begin: bool) {
        let c = &mut self.e.ctx;
        if self.queries.condition {
            self.log.ok(
                "render_condition(None)",
                c.render_condition(None, false, RenderCondMode::Wait),
            );
            self.queries.condition = false;
        }
        if self.queries.paused {
            self.log.ok(
                "set_active_query_state(true)",
                c.set_active_query_state(true),
            );
            self.queries.paused = false;
        }
        let mut active = std::mem::take(&mut self.queries.active);
        // End in a random order.
        for k in (1..active.len()).rev() {
            active.swap(k, r.below(k as u32 + 1) as usize);
        }
        for &i in &active {
            let q = self.queries.all[i].1.clone();
            self.log.ok("end_query", self.e.ctx.end_query(&q));
        }
        let mut results: HashMap<QueryType, QueryResult> = HashMap::new();
        for &i in &active {
            let (ty, q) = self.queries.all[i].clone();
            if r.chance(30) {
                // Polling first: the driver flushes the query's batch.
                let _ = self.log.ok(
                    "get_query_result(no wait)",
                    self.e.ctx.get_query_result(&q, false),
                );
            }
            if let Some(Some(v)) = self
                .log
                .ok("get_query_result", self.e.ctx.get_query_result(&q, true))
            {
                results.insert(ty, v);
            }
        }
        if let Some(d) = &mut self.diff {
            d.query_results(&results);
        }
        let mut check = |what: &str, ok: bool| {
            if !ok {
                let msg = format!(
                    "iteration {}: queries: {what}: {results:?}\n  state: {}",
                    self.log.iteration, self.log.desc
                );
                eprintln!("state_fuzz: {msg}");
                self.log.failures.push(msg);
            }
        };
        use QueryType as T;
        if let (Some(QueryResult::U64(n)), Some(QueryResult::Bool(b))) = (
            results.get(&T::OcclusionCounter),
            results.get(&T::OcclusionPredicate),
        ) {
            check("predicate != (counter > 0)", *b == (*n > 0));
        }
        if let (Some(QueryResult::PipelineStatistics(s)), Some(QueryResult::U64(v))) = (
            results.get(&T::PipelineStatistics),
            results.get(&T::PipelineStatisticsSingle),
        ) {
            check(
                "group's IA vertices != the single counter",
                s.ia_vertices == *v,
            );
        }
        if !begin || self.queries.all.is_empty() || !r.chance(40) {
            return;
        }
        let n = self.queries.all.len();
        let mut chosen: Vec<usize> = (0..n).filter(|_| r.chance(50)).collect();
        if chosen.is_empty() {
            chosen.push(r.below(n as u32) as usize);
        }
        for &i in &chosen {
            let q = self.queries.all[i].1.clone();
            if self
                .log
                .ok("begin_query", self.e.ctx.begin_query(&q))
                .is_some()
            {
                self.queries.active.push(i);
            }
        }
        if r.chance(10) {
            self.log.ok(
                "set_active_query_state(false)",
                self.e.ctx.set_active_query_state(false),
            );
            self.queries.paused = true;
        }
        // Predicate this iteration's draws on an earlier result.
        if r.chance(15) {
            if let Some((_, q)) = self
                .queries
                .all
                .iter()
                .find(|(t, _)| *t == T::OcclusionPredicate)
                .cloned()
            {
                if !self
                    .queries
                    .active
                    .iter()
                    .any(|&i| self.queries.all[i].1.id() == q.id())
                {
                    let cond = r.chance(50);
                    // Fails (InvalidArgument) only if never ended yet.
                    match self
                        .e
                        .ctx
                        .render_condition(Some(&q), cond, RenderCondMode::Wait)
                    {
                        Ok(()) => self.queries.condition = true,
                        Err(PipeError::InvalidArgument(_)) => {}
                        Err(e) => {
                            self.log.ok::<()>("render_condition", Err(e));
                        }
                    }
                }
            }
        }
    }

    fn check_messages(&mut self, before: usize, what: &str) {
        let after = pipe_vk::debug::message_count();
        if after > before {
            let msgs = pipe_vk::debug::take_messages();
            eprintln!(
                "state_fuzz: iteration {}: {} validation message(s) after {what}\n  state: {}",
                self.log.iteration,
                after - before,
                self.log.desc
            );
            for (i, m) in msgs.into_iter().enumerate() {
                if i >= before {
                    eprintln!("  message: {m}");
                }
                pipe_vk::debug::record_message(m);
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Set-up, the final check and the cases.
// ---------------------------------------------------------------------------

const VS_POS: &str = "shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
}
";

const FS_CONST: &str = "shader fragment
out @frag : f32x4 location=0
fn main {
  %0 : f32x4 = const 0.0, 1.0, 0.0, 1.0
  store @frag, %0
}
";

/// A fuzz run of `seed` on a screen with the switches of `sw`. The first
/// five are always set as `sw` says; the others only where `sw` turns
/// them on, unless `all` (the differential runs, whose run without
/// switches must have none), so that `PIPE_VK_DEBUG` runs of the suite
/// take the plain seeds through their paths too.
fn new_fuzz(ctx: &TestContext, seed: u64, sw: Switches, all: bool) -> Result<Fuzz, Outcome> {
    let mut e = env_with(ctx, |o: &mut ScreenOptions| {
        o.staging = Some(sw.staging);
        o.emulate_line_stipple = Some(sw.emulate_line_stipple);
        o.vertex_fixups = Some(sw.vertex_fixups);
        o.no_draw_merge = Some(sw.no_draw_merge);
        o.no_index_uint8 = Some(sw.no_index_uint8);
        let set = |opt: &mut Option<bool>, on: bool| {
            if on || all {
                *opt = Some(on);
            }
        };
        set(&mut o.no_dynamic_rasterizer, sw.no_dynamic);
        set(&mut o.no_dynamic_blend, sw.no_dynamic);
        set(&mut o.no_dynamic_vertex_input, sw.no_dynamic);
        set(&mut o.no_cb0_push_offset, sw.no_dynamic);
        set(&mut o.no_query_in_rendering, sw.no_query_in_rendering);
        set(
            &mut o.no_primitives_generated_query,
            sw.no_primitives_generated_query,
        );
        set(&mut o.no_xfb_draw, sw.no_xfb_draw);
        set(&mut o.no_discard_rectangles, sw.no_discard_rectangles);
    })?;
    let caps = e.screen.caps().clone();
    let ms4 = caps.framebuffer_color_sample_counts & 4 != 0;
    let mut colors = Vec::new();
    for f in [
        Format::R8G8B8A8Unorm,
        Format::B8G8R8A8Unorm,
        Format::R10G10B10A2Unorm,
        Format::B5G6R5Unorm,
        Format::R8G8Unorm,
        Format::R16G16B16A16Float,
        Format::R32G32B32A32Float,
        Format::R32Float,
        Format::R8G8B8A8Uint,
        Format::R16G16B16A16Sint,
        Format::R32G32Uint,
        Format::R32G32B32A32Sint,
    ] {
        let s = &e.screen;
        if !s.is_format_supported(f, Target::Texture2D, 1, 1, BindFlags::RENDER_TARGET) {
            continue;
        }
        colors.push(ColorFormat {
            format: f,
            blendable: s.is_format_supported(
                f,
                Target::Texture2D,
                1,
                1,
                BindFlags::RENDER_TARGET | BindFlags::BLENDABLE,
            ),
            msaa: ms4
                && s.is_format_supported(f, Target::Texture2D, 4, 4, BindFlags::RENDER_TARGET),
        });
    }
    if colors.is_empty() {
        return Err(Outcome::fail("no colour format renders"));
    }
    let zs: Vec<(Format, bool)> = [
        Format::Z24UnormS8Uint,
        Format::Z32Float,
        Format::Z32FloatS8X24Uint,
    ]
    .into_iter()
    .filter(|&f| {
        e.screen
            .is_format_supported(f, Target::Texture2D, 1, 1, BindFlags::DEPTH_STENCIL)
    })
    .map(|f| {
        let ms = caps.framebuffer_depth_sample_counts & 4 != 0
            && e.screen
                .is_format_supported(f, Target::Texture2D, 4, 4, BindFlags::DEPTH_STENCIL);
        (f, ms)
    })
    .collect();
    // A 4x4 RGBA8 texture with two levels for the fragment shaders.
    let mut tt = ResourceTemplate::texture_2d(Format::R8G8B8A8Unorm, 4, 4, BindFlags::SAMPLER_VIEW);
    tt.last_level = 1;
    let tex = e.texture(&tt)?;
    let texels: Vec<u8> = (0..64u32).map(|i| (i * 37 % 256) as u8).collect();
    e.write_texture(&tex, 0, &PipeBox::rect(0, 0, 4, 4), &texels)?;
    e.write_texture(&tex, 1, &PipeBox::rect(0, 0, 2, 2), &texels[..16])?;
    let texture = step(
        "create_sampler_view",
        e.ctx
            .create_sampler_view(&tex, &SamplerViewTemplate::whole(&tt)),
    )?;
    let so_buffer = step(
        "resource_create(so)",
        e.screen.resource_create(&ResourceTemplate::buffer(
            16384,
            BindFlags::STREAM_OUTPUT | BindFlags::VERTEX_BUFFER,
        )),
    )?;
    let mut queries = Vec::new();
    for (ty, index) in [
        (QueryType::OcclusionCounter, 0),
        (QueryType::OcclusionPredicate, 0),
        (QueryType::PipelineStatistics, 0),
        (QueryType::PipelineStatisticsSingle, 0),
        (QueryType::PrimitivesGenerated, 0),
        (QueryType::PrimitivesEmitted, 0),
        (QueryType::SoOverflowPredicate, 0),
        (QueryType::TimeElapsed, 0),
    ] {
        match e.ctx.create_query(ty, index) {
            Ok(q) => queries.push((ty, q)),
            Err(PipeError::Unsupported(_)) => {}
            Err(err) => return Err(Outcome::fail(format!("create_query({ty:?}): {err}"))),
        }
    }
    Ok(Fuzz {
        e,
        caps,
        rng: Rng(seed),
        shaders: HashMap::new(),
        colors,
        zs,
        vformats: vertex_formats(),
        color_surfaces: HashMap::new(),
        zs_surfaces: HashMap::new(),
        texture,
        so_buffer,
        so_info: None,
        attr_format: Format::R32G32B32A32Float,
        instanced: false,
        draw_no: 0,
        counts: [0; 4],
        bound: Bound::default(),
        log: Log::default(),
        queries: FuzzQueries {
            all: queries,
            ..Default::default()
        },
        vertex_buffers: Default::default(),
        twin_bound: false,
        diff: None,
        draw_calls: 0,
        xrng: Rng(seed),
        so_target: None,
    })
}

/// After the random iterations: GL-default state, a fresh RGBA8 target,
/// a clear to a known colour and a draw over its left half, read back.
fn health_check(f: &mut Fuzz) -> R {
    let e = &mut f.e;
    let c = &mut e.ctx;
    step("unbind gs", c.bind_gs_state(None))?;
    step("unbind tcs", c.bind_tcs_state(None))?;
    step("unbind tes", c.bind_tes_state(None))?;
    step("unbind so", c.set_stream_output_targets(&[], &[]))?;
    step("sample mask", c.set_sample_mask(u32::MAX))?;
    step("min samples", c.set_min_samples(1))?;
    if f.caps.max_window_rectangles > 0 {
        step("window rectangles", c.set_window_rectangles(false, &[]))?;
    }
    let blend = BlendState {
        rt: [RtBlendState {
            colormask: ColorMask::RGBA,
            ..Default::default()
        }; MAX_COLOR_BUFS],
        max_rt: 1,
        ..Default::default()
    };
    let bh = step("blend", c.create_blend_state(&blend))?;
    step("bind blend", c.bind_blend_state(Some(bh)))?;
    let dh = step(
        "dsa",
        c.create_depth_stencil_alpha_state(&DepthStencilAlphaState::default()),
    )?;
    step("bind dsa", c.bind_depth_stencil_alpha_state(Some(dh)))?;
    let rs = RasterizerState {
        line_width: 1.0,
        point_size: 1.0,
        half_pixel_center: true,
        depth_clip_near: true,
        depth_clip_far: true,
        clip_halfz: true,
        ..Default::default()
    };
    let rh = step("rasterizer", c.create_rasterizer_state(&rs))?;
    step("bind rasterizer", c.bind_rasterizer_state(Some(rh)))?;
    let v = step(
        "vs",
        c.create_vs_state(&shader(ShaderStage::Vertex, VS_POS)?),
    )?;
    let fsh = step(
        "fs",
        c.create_fs_state(&shader(ShaderStage::Fragment, FS_CONST)?),
    )?;
    step("bind vs", c.bind_vs_state(Some(v)))?;
    step("bind fs", c.bind_fs_state(Some(fsh)))?;
    let t = ResourceTemplate::texture_2d(
        Format::R8G8B8A8Unorm,
        W,
        H,
        BindFlags::RENDER_TARGET | BindFlags::SAMPLER_VIEW,
    );
    let color = e.texture(&t)?;
    let s = e.surface(&color, 0, 0, 0)?;
    let fb = FramebufferState {
        width: W as u16,
        height: H as u16,
        layers: 1,
        samples: 1,
        cbufs: vec![Some(s)],
        zsbuf: None,
        resolve: None,
    };
    let c = &mut e.ctx;
    step("set_framebuffer_state", c.set_framebuffer_state(&fb))?;
    let vp = ViewportState {
        scale: [W as f32 / 2.0, H as f32 / 2.0, 1.0],
        translate: [W as f32 / 2.0, H as f32 / 2.0, 0.0],
        swizzle: Default::default(),
    };
    step("viewport", c.set_viewport_states(0, &[vp]))?;
    let ve = step(
        "velems",
        c.create_vertex_elements_state(&[VertexElement {
            src_offset: 0,
            src_stride: 16,
            vertex_buffer_index: 0,
            dual_slot: false,
            src_format: Format::R32G32B32A32Float,
            instance_divisor: 0,
        }]),
    )?;
    step("bind velems", c.bind_vertex_elements_state(Some(ve)))?;
    // The left half: x from -1 to 0 in NDC, pixels 0..8.
    let quad = f32s(&[
        -1.0, -1.0, 0.0, 1.0, 0.0, -1.0, 0.0, 1.0, -1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0,
    ]);
    step(
        "vbufs",
        c.set_vertex_buffers(&[VertexBuffer {
            buffer: Some(VertexBufferSource::User(Arc::from(quad))),
            buffer_offset: 0,
        }]),
    )?;
    step(
        "clear",
        c.clear(
            ClearFlags::COLOR0,
            None,
            &ColorUnion::from_f32([1.0, 0.0, 1.0, 1.0]),
            1.0,
            0,
        ),
    )?;
    step(
        "draw",
        c.draw_vbo(
            &DrawInfo {
                mode: PrimType::TriangleStrip,
                ..DrawInfo::default()
            },
            0,
            None,
            &[DrawStartCountBias {
                start: 0,
                count: 4,
                index_bias: 0,
            }],
        ),
    )?;
    let got = e.read_texture(&color, 0, &PipeBox::rect(0, 0, W, H))?;
    for y in 0..H {
        for x in 0..W {
            let i = ((y * W + x) * 4) as usize;
            let want: [u8; 4] = if x < W / 2 {
                [0, 255, 0, 255]
            } else {
                [255, 0, 255, 255]
            };
            if got[i..i + 4] != want {
                return Err(Outcome::fail(format!(
                    "after the fuzzed iterations, pixel ({x}, {y}) is {:?}, expected {want:?}",
                    &got[i..i + 4]
                )));
            }
        }
    }
    Ok(())
}

fn run_seed(ctx: &mut TestContext, seed: u64, sw: Switches) -> R {
    // PIPE_CTS_STATE_FUZZ_SEED=N runs seed N in place of the case's own
    // (with the case's switches), to try seeds outside the suite.
    let seed = seed_override(seed);
    let mut f = new_fuzz(ctx, seed, sw, false)?;
    run_iterations(&mut f, seed)?;
    health_check(&mut f)?;
    let [ms, tess, gs, so] = f.counts;
    eprintln!(
        "state_fuzz: {} draw calls; iterations with MSAA {ms}, tessellation {tess}, \
         geometry shader {gs}, stream output {so}; {} unsupported call(s)",
        f.draw_no, f.log.unsupported
    );
    Ok(())
}

/// `seed`, or the one `PIPE_CTS_STATE_FUZZ_SEED` names.
fn seed_override(seed: u64) -> u64 {
    std::env::var("PIPE_CTS_STATE_FUZZ_SEED")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(seed)
}

/// The iterations of `seed` on `f`, then the final flush; fails with
/// every call that failed.
fn run_iterations(f: &mut Fuzz, seed: u64) -> R {
    // PIPE_CTS_STATE_FUZZ_ITERATIONS=3,17 runs only those iterations
    // (each has its own generator state), to reduce a failure.
    let only: Option<Vec<u32>> = std::env::var("PIPE_CTS_STATE_FUZZ_ITERATIONS")
        .ok()
        .map(|v| v.split(',').filter_map(|x| x.trim().parse().ok()).collect());
    // PIPE_CTS_STATE_FUZZ_SYNC=1 waits for the GPU after every iteration,
    // so a device crash shows in the iteration that caused it.
    let sync_each = std::env::var_os("PIPE_CTS_STATE_FUZZ_SYNC").is_some();
    for i in 0..ITERATIONS {
        if only.as_ref().is_some_and(|o| !o.contains(&i)) {
            continue;
        }
        f.log.iteration = i;
        f.rng = Rng(seed
            .wrapping_mul(0x2545_f491_4f6c_dd1d)
            .wrapping_add(u64::from(i).wrapping_mul(0x9e37_79b9)));
        f.xrng =
            Rng(seed.wrapping_mul(0xd1b5_4a32_d192_ed03) ^ u64::from(i).wrapping_mul(0x94d0_49bb));
        eprintln!("state_fuzz: iteration {i}");
        let before = pipe_vk::debug::message_count();
        // Queries draw from a generator of their own, so that the
        // iterations' state stays what it was before queries were added.
        let mut qrng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ u64::from(i));
        f.queries_step(&mut qrng, true);
        f.run_iteration();
        if sync_each {
            f.e.finish()?;
        }
        if f.diff.is_some() {
            diff::snapshot(f);
        }
        f.check_messages(before, "the iteration");
        if f.log.failures.len() > 8 {
            break;
        }
    }
    let before = pipe_vk::debug::message_count();
    f.queries_step(&mut Rng(seed), false);
    f.e.finish()?;
    f.check_messages(before, "the final flush");
    if !f.log.failures.is_empty() {
        return Err(Outcome::fail(format!(
            "{} call(s) failed:\n{}",
            f.log.failures.len(),
            f.log.failures.join("\n")
        )));
    }
    Ok(())
}

macro_rules! seeds {
    ($($n:literal => { $($switch:ident),* }),+ $(,)?) => {$(
        const _: () = {
            fn run(ctx: &mut TestContext) -> Outcome {
                #[allow(unused_mut)]
                let mut sw = Switches::default();
                $(sw.$switch = true;)*
                Outcome::from_result(run_seed(ctx, $n, sw))
            }
            test_case!(name = concat!("pipe.draw.state_fuzz.seed_", $n), run);
        };
    )+};
}

seeds!(
    // Seeds beyond 17 crashed lavapipe 25.0.7 before its workarounds:
    // 18 (and 48, 80) `DeviceShared::tes_variants_follow_outputs`, 211
    // `DeviceShared::device_smooth_lines`, 552 multisampled
    // smooth lines (`pipeline::smooth_lines_native`).
    18 => {},
    211 => {},
    552 => {},
    1 => {},
    2 => { staging },
    3 => { emulate_line_stipple },
    4 => { vertex_fixups },
    5 => { no_draw_merge },
    6 => { no_index_uint8 },
    7 => { staging, no_draw_merge, vertex_fixups },
    8 => { emulate_line_stipple, no_index_uint8 },
    9 => {},
    10 => {},
    11 => {},
    12 => {},
    13 => {},
    14 => {},
    15 => {},
    16 => {},
    17 => {},
);

/// `pipe.draw.state_fuzz.diff.<set>.seed_<N>`: seed N without switches
/// and with the set's, compared (`diff`).
macro_rules! diff_seeds {
    ($($set:ident: $n:literal => { $($switch:ident),+ }),+ $(,)?) => {$(
        const _: () = {
            fn run(ctx: &mut TestContext) -> Outcome {
                let mut sw = Switches::default();
                $(sw.$switch = true;)+
                Outcome::from_result(diff::run(ctx, $n, sw))
            }
            test_case!(
                name = concat!("pipe.draw.state_fuzz.diff.", stringify!($set), ".seed_", $n),
                run
            );
        };
    )+};
}

diff_seeds!(
    staging: 101 => { staging },
    no_dynamic: 102 => { no_dynamic },
    vertex_fixups: 103 => { vertex_fixups },
    no_draw_merge: 104 => { no_draw_merge },
    no_index_uint8: 105 => { no_index_uint8 },
    no_query_in_rendering: 107 => { no_query_in_rendering },
    no_primitives_generated_query: 108 => { no_primitives_generated_query },
    no_xfb_draw: 109 => { no_xfb_draw },
    no_discard_rectangles: 110 => { no_discard_rectangles },
    // All of them at once: the paths of a device with none of it.
    all: 111 => {
        staging, no_dynamic, vertex_fixups, no_draw_merge, no_index_uint8,
        no_query_in_rendering, no_primitives_generated_query, no_xfb_draw,
        no_discard_rectangles
    },
);

// ---------------------------------------------------------------------------
// Reduced cases: defects the seeds found, one focused case each.
// ---------------------------------------------------------------------------

/// `cbufs` `W` x `H` colour buffers of `format` with `samples` samples
/// (and an optional depth/stencil buffer of `zs`), bound with a full
/// viewport, the vertex shader `vs` and fragment shader `fs`, and a vec4
/// position stream of `verts`. Returns the colour buffers, then the
/// depth/stencil buffer.
fn reduced_setup(
    e: &mut Env,
    format: Format,
    samples: u32,
    zs: Option<Format>,
    cbufs: usize,
    (vs, fs): (&str, &str),
    verts: &[f32],
) -> Result<Vec<Resource>, Outcome> {
    let mut colors = Vec::new();
    let mut surfs = Vec::new();
    for _ in 0..cbufs {
        let mut t = ResourceTemplate::texture_2d(
            format,
            W,
            H,
            BindFlags::RENDER_TARGET | BindFlags::SAMPLER_VIEW,
        );
        t.nr_samples = samples;
        let c = e.texture(&t)?;
        surfs.push(Some(e.surface(&c, 0, 0, 0)?));
        colors.push(c);
    }
    let zsbuf = match zs {
        Some(f) => {
            let mut t = ResourceTemplate::texture_2d(f, W, H, BindFlags::DEPTH_STENCIL);
            t.nr_samples = samples;
            let z = e.texture(&t)?;
            let s = e.surface(&z, 0, 0, 0)?;
            colors.push(z);
            Some(s)
        }
        None => None,
    };
    let fb = FramebufferState {
        width: W as u16,
        height: H as u16,
        layers: 1,
        samples: samples as u8,
        cbufs: surfs,
        zsbuf,
        resolve: None,
    };
    step("set_framebuffer_state", e.ctx.set_framebuffer_state(&fb))?;
    let vp = ViewportState {
        scale: [W as f32 / 2.0, H as f32 / 2.0, 1.0],
        translate: [W as f32 / 2.0, H as f32 / 2.0, 0.0],
        swizzle: Default::default(),
    };
    step("viewport", e.ctx.set_viewport_states(0, &[vp]))?;
    let v = step(
        "vs",
        e.ctx.create_vs_state(&shader(ShaderStage::Vertex, vs)?),
    )?;
    let f = step(
        "fs",
        e.ctx.create_fs_state(&shader(ShaderStage::Fragment, fs)?),
    )?;
    step("bind vs", e.ctx.bind_vs_state(Some(v)))?;
    step("bind fs", e.ctx.bind_fs_state(Some(f)))?;
    let ve = step(
        "velems",
        e.ctx.create_vertex_elements_state(&[VertexElement {
            src_offset: 0,
            src_stride: 16,
            vertex_buffer_index: 0,
            dual_slot: false,
            src_format: Format::R32G32B32A32Float,
            instance_divisor: 0,
        }]),
    )?;
    step("bind velems", e.ctx.bind_vertex_elements_state(Some(ve)))?;
    step(
        "vbufs",
        e.ctx.set_vertex_buffers(&[VertexBuffer {
            buffer: Some(VertexBufferSource::User(Arc::from(f32s(verts)))),
            buffer_offset: 0,
        }]),
    )?;
    Ok(colors)
}

/// Binds a rasterizer: GL defaults changed by `f`.
fn reduced_rasterizer(e: &mut Env, f: impl FnOnce(&mut RasterizerState)) -> R {
    let mut rs = RasterizerState {
        line_width: 1.0,
        point_size: 1.0,
        half_pixel_center: true,
        depth_clip_near: true,
        depth_clip_far: true,
        clip_halfz: true,
        multisample: true,
        ..Default::default()
    };
    f(&mut rs);
    let h = step("rasterizer", e.ctx.create_rasterizer_state(&rs))?;
    step("bind rasterizer", e.ctx.bind_rasterizer_state(Some(h)))
}

fn reduced_draw(e: &mut Env, mode: PrimType, count: u32) -> R {
    reduced_draws(
        e,
        mode,
        &[DrawStartCountBias {
            start: 0,
            count,
            index_bias: 0,
        }],
    )
}

/// One `draw_vbo` of `draws` in `mode`, otherwise GL's defaults.
fn reduced_draws(e: &mut Env, mode: PrimType, draws: &[DrawStartCountBias]) -> R {
    step(
        "draw_vbo",
        e.ctx.draw_vbo(
            &DrawInfo {
                mode,
                ..DrawInfo::default()
            },
            0,
            None,
            draws,
        ),
    )
}

/// A triangle covering the whole target.
const FULL_TRI: [f32; 12] = [
    -1.0, -1.0, 0.0, 1.0, 3.0, -1.0, 0.0, 1.0, -1.0, 3.0, 0.0, 1.0,
];

/// Rasterizer discard on a 4-sample framebuffer: nothing is drawn, and
/// the draw is valid Vulkan.
fn msaa_rasterizer_discard(ctx: &mut TestContext) -> R {
    let mut e = env_with(ctx, |_| {})?;
    if e.screen.caps().framebuffer_color_sample_counts & 4 == 0 {
        return Err(Outcome::skip("no 4-sample colour buffers"));
    }
    let c = reduced_setup(
        &mut e,
        Format::R8G8B8A8Unorm,
        4,
        None,
        1,
        (VS_POS, FS_CONST),
        &FULL_TRI,
    )?;
    reduced_rasterizer(&mut e, |r| r.rasterizer_discard = true)?;
    step(
        "clear",
        e.ctx.clear(
            ClearFlags::COLOR0,
            None,
            &ColorUnion::from_f32([1.0, 0.0, 0.0, 1.0]),
            1.0,
            0,
        ),
    )?;
    reduced_draw(&mut e, PrimType::Triangles, 3)?;
    let _ = c;
    e.finish()
}

/// Reads back colour buffer `c` (RGBA8, single-sampled) and compares
/// it with `want(x, y)`.
/// Every pixel of RGBA8 `c` is `color`, as UNORM8 may round it
/// (`harness::unorm`).
fn expect_unorm(e: &mut Env, c: &Resource, what: &str, color: [f32; 4]) -> R {
    let want = crate::harness::unorm(color);
    let got = e.read_texture(c, 0, &PipeBox::rect(0, 0, W, H))?;
    match got
        .chunks_exact(4)
        .position(|p| !want.contains([p[0], p[1], p[2], p[3]]))
    {
        None => Ok(()),
        Some(i) => Err(Outcome::fail(format!(
            "{what}: pixel {i} is {:?}, want {want:?}",
            &got[4 * i..4 * i + 4]
        ))),
    }
}

fn expect_rgba8(e: &mut Env, c: &Resource, what: &str, want: impl Fn(u32, u32) -> [u8; 4]) -> R {
    let got = e.read_texture(c, 0, &PipeBox::rect(0, 0, W, H))?;
    for y in 0..H {
        for x in 0..W {
            let i = ((y * W + x) * 4) as usize;
            let w = want(x, y);
            if got[i..i + 4] != w {
                return Err(Outcome::fail(format!(
                    "{what}: pixel ({x}, {y}) is {:?}, expected {w:?}",
                    &got[i..i + 4]
                )));
            }
        }
    }
    Ok(())
}

fn clear_all(e: &mut Env, flags: ClearFlags) -> R {
    step(
        "clear",
        e.ctx.clear(
            flags,
            None,
            &ColorUnion::from_f32([0.0, 0.0, 0.0, 0.0]),
            1.0,
            0,
        ),
    )
}

/// Writes colour 0 (green) and, when given, a back colour (red) at the
/// location two-sided colour reads it from.
fn vs_colors(back: bool) -> String {
    format!(
        "shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
out @c0 : f32x4 location=0 slot=col0
{}fn main {{
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  %1 : f32x4 = const 0.0, 1.0, 0.0, 1.0
  store @c0, %1
{}}}
",
        if back {
            "out @b0 : f32x4 location=30 slot=bfc0\n"
        } else {
            ""
        },
        if back {
            "  %2 : f32x4 = const 1.0, 0.0, 0.0, 1.0\n  store @b0, %2\n"
        } else {
            ""
        }
    )
}

const FS_COL0: &str = "shader fragment
in @c0 : f32x4 location=0 slot=col0
out @frag : f32x4 location=0
fn main {
  %0 : f32x4 = load @c0
  store @frag, %0
}
";

/// Two-sided colour (`light_twoside`) with a vertex shader that writes a
/// front colour only (GL leaves the back colour undefined): the draw is
/// valid Vulkan and back faces take the front colour. The
/// full-screen triangle is clockwise in window space, a back face with
/// `front_ccw`. With `back`, the vertex shader writes a back colour,
/// which back faces show.
///
/// With `vs` as SPIR-V (spirv-gen's), whose outputs carry no GL slots,
/// the back colour is the output at location 30 (`shader::
/// missing_back_colors` reads it from the words): without one, the IR
/// fragment shader read location 30 unwritten (a validation error).
fn two_side(ctx: &mut TestContext, back: bool, how: VsAs) -> R {
    let mut e = env_with(ctx, |_| {})?;
    let vs = vs_colors(back);
    let c = reduced_setup(
        &mut e,
        Format::R8G8B8A8Unorm,
        1,
        None,
        1,
        (&vs, FS_COL0),
        &FULL_TRI,
    )?;
    bind_vs_as(&mut e, &vs, how, "")?;
    reduced_rasterizer(&mut e, |r| {
        r.light_twoside = true;
        r.front_ccw = true;
    })?;
    clear_all(&mut e, ClearFlags::COLOR0)?;
    reduced_draw(&mut e, PrimType::Triangles, 3)?;
    // Window y grows downwards with this viewport: NDC (-1,-1), (3,-1),
    // (-1,3) are counter-clockwise in NDC, clockwise on the window.
    let want = if back {
        [255, 0, 0, 255]
    } else {
        [0, 255, 0, 255]
    };
    expect_rgba8(&mut e, &c[0], "back face colour", |_, _| want)
}

/// Colour buffer slot 1 unbound (`cbufs[1] = None`, GL's `GL_NONE` draw
/// buffer) while the fragment shader writes locations 0, 1 and 2
/// (`writes_unbound`) or only 0 and 2: buffers 0 and 2 get their colours
/// and the pipeline is valid Vulkan (no attachment-format or
/// missing-output complaints about the unbound slot).
///
/// With `spirv` the fragment shader is SPIR-V passthrough (spirv-gen's),
/// whose unbound outputs pipe-vk patches out (`spirv_gen::patch::
/// unbound_outputs`).
fn unbound_slot(ctx: &mut TestContext, writes_unbound: bool, spirv: bool) -> R {
    let mut e = env_with(ctx, |_| {})?;
    let fs = format!(
        "shader fragment
out @o0 : f32x4 location=0
{}out @o2 : f32x4 location=2
fn main {{
  %0 : f32x4 = const 0.0, 1.0, 0.0, 1.0
  %1 : f32x4 = const 0.0, 0.0, 1.0, 1.0
  store @o0, %0
{}  store @o2, %1
}}
",
        if writes_unbound {
            "out @o1 : f32x4 location=1\n"
        } else {
            ""
        },
        if writes_unbound {
            "  store @o1, %1\n"
        } else {
            ""
        },
    );
    let c = reduced_setup(
        &mut e,
        Format::R8G8B8A8Unorm,
        1,
        None,
        3,
        (VS_POS, &fs),
        &FULL_TRI,
    )?;
    let surfs = vec![
        Some(e.surface(&c[0], 0, 0, 0)?),
        None,
        Some(e.surface(&c[2], 0, 0, 0)?),
    ];
    let fb = FramebufferState {
        width: W as u16,
        height: H as u16,
        layers: 1,
        samples: 1,
        cbufs: surfs,
        zsbuf: None,
        resolve: None,
    };
    step("set_framebuffer_state", e.ctx.set_framebuffer_state(&fb))?;
    if spirv {
        bind_fs_spirv(&mut e, &fs)?;
    }
    reduced_rasterizer(&mut e, |_| {})?;
    clear_all(
        &mut e,
        ClearFlags::COLOR0 | ClearFlags::from_bits_truncate(ClearFlags::COLOR0.bits() << 2),
    )?;
    reduced_draw(&mut e, PrimType::Triangles, 3)?;
    expect_rgba8(&mut e, &c[0], "colour buffer 0", |_, _| [0, 255, 0, 255])?;
    expect_rgba8(&mut e, &c[2], "colour buffer 2", |_, _| [0, 0, 255, 255])
}

/// A depth-only framebuffer (no colour buffer, as for a shadow map)
/// with a fragment shader that writes a colour: depth is written and the
/// pipeline is valid Vulkan.
fn depth_only_color_output(ctx: &mut TestContext) -> R {
    let mut e = env_with(ctx, |_| {})?;
    let tri: Vec<f32> = FULL_TRI
        .chunks(4)
        .flat_map(|v| [v[0], v[1], 0.5, 1.0])
        .collect();
    let zbuf = reduced_setup(
        &mut e,
        Format::R8G8B8A8Unorm,
        1,
        Some(Format::Z32Float),
        0,
        (VS_POS, FS_CONST),
        &tri,
    )?
    .remove(0);
    reduced_rasterizer(&mut e, |_| {})?;
    let dsa = DepthStencilAlphaState {
        depth_enabled: true,
        depth_writemask: true,
        depth_func: CompareFunc::Always,
        ..Default::default()
    };
    let h = step("dsa", e.ctx.create_depth_stencil_alpha_state(&dsa))?;
    step("bind dsa", e.ctx.bind_depth_stencil_alpha_state(Some(h)))?;
    clear_all(&mut e, ClearFlags::DEPTH)?;
    reduced_draw(&mut e, PrimType::Triangles, 3)?;
    let z = e.read_texture(&zbuf, 0, &PipeBox::rect(0, 0, W, H))?;
    match z
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .position(|d| d != 0.5)
    {
        Some(i) => Err(Outcome::fail(format!("depth of pixel {i} is not 0.5"))),
        None => Ok(()),
    }
}

/// Points with `point_size_per_vertex` from a vertex shader (or, with
/// `gs`, a geometry shader emitting points) that writes no point size
/// (GL leaves the size undefined): the pipeline is valid Vulkan and the
/// points take the rasterizer's size, 3: a point at the centre of pixel
/// (8, 8) covers pixels 7..=9 on both axes.
///
/// With `spirv` the shaders are SPIR-V passthrough (spirv-gen's SPIR-V),
/// which pipe-vk patches to write the size (`spirv_gen::patch::
/// point_size`): unpatched, NVIDIA draws no point and lavapipe a 1-pixel
/// one.
fn point_size_unwritten(ctx: &mut TestContext, gs: bool, spirv: bool) -> R {
    let mut e = env_with(ctx, |_| {})?;
    if gs && !e.screen.caps().shader[ShaderStage::Geometry.index()].supported {
        return Err(Outcome::skip("no geometry shaders"));
    }
    let make = |stage, src: &str| {
        if spirv {
            crate::harness::spirv_shader(stage, src, spirv_gen::emit::Target::Vulkan1_1)
        } else {
            shader(stage, src)
        }
    };
    let centre = [8.5 / 8.0 - 1.0, 8.5 / 8.0 - 1.0, 0.0, 1.0];
    let c = reduced_setup(
        &mut e,
        Format::R8G8B8A8Unorm,
        1,
        None,
        1,
        (VS_POS, FS_CONST),
        &centre,
    )?;
    if spirv {
        let v = step(
            "vs",
            e.ctx.create_vs_state(&make(ShaderStage::Vertex, VS_POS)?),
        )?;
        step("bind vs", e.ctx.bind_vs_state(Some(v)))?;
    }
    if gs {
        let g = "shader geometry input=points output=points max_vertices=1 invocations=1
in @pos : f32x4[1] builtin=position
out @gl_pos : f32x4 builtin=position
fn main {
  %0 : i32 = const 0
  %1 : f32x4 = load @pos, %0
  store @gl_pos, %1
  emit_vertex
  end_primitive
}
";
        let h = step(
            "gs",
            e.ctx.create_gs_state(&make(ShaderStage::Geometry, g)?),
        )?;
        step("bind gs", e.ctx.bind_gs_state(Some(h)))?;
    }
    reduced_rasterizer(&mut e, |r| {
        r.point_size = 3.0;
        r.point_size_per_vertex = true;
    })?;
    clear_all(&mut e, ClearFlags::COLOR0)?;
    reduced_draw(&mut e, PrimType::Points, 1)?;
    expect_rgba8(&mut e, &c[0], "point", |x, y| {
        if (7..=9).contains(&x) && (7..=9).contains(&y) {
            [0, 255, 0, 255]
        } else {
            [0; 4]
        }
    })
}

/// A vertex shader writing `gl_ClipDistance[0] = x` (clipping the left
/// half): with `enabled` (GL_CLIP_DISTANCE0 on, Gallium's
/// `clip_plane_enable` bit 0), only the right half is drawn; without,
/// GL ignores the distance and the whole target is drawn.
///
/// `vs` gives the shader as IR, as spirv-gen's SPIR-V, or as the
/// glslang-style `per_vertex_spirv.spvasm` (entry point `clip`, the
/// distance in its `gl_PerVertex` block): SPIR-V passthrough shaders get
/// the enables patched in (`spirv_gen::patch::clip_disable`).
fn clip_distance(ctx: &mut TestContext, enabled: bool, vs: VsAs) -> R {
    let mut e = env_with(ctx, |_| {})?;
    let vs_src = "shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
out @cd : f32[1] builtin=clip_distance
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  %1 : f32 = swizzle %0, x
  %2 : i32 = const 0
  store @cd, %2, %1
}
";
    let c = reduced_setup(
        &mut e,
        Format::R8G8B8A8Unorm,
        1,
        None,
        1,
        (vs_src, FS_CONST),
        &FULL_TRI,
    )?;
    bind_vs_as(&mut e, vs_src, vs, "clip")?;
    reduced_rasterizer(&mut e, |r| r.clip_plane_enable = u8::from(enabled))?;
    clear_all(&mut e, ClearFlags::COLOR0)?;
    reduced_draw(&mut e, PrimType::Triangles, 3)?;
    expect_rgba8(&mut e, &c[0], "clip distance 0", |x, _| {
        if !enabled || x >= W / 2 {
            [0, 255, 0, 255]
        } else {
            [0; 4]
        }
    })
}

macro_rules! reduced {
    ($($name:literal => $body:expr),+ $(,)?) => {$(
        const _: () = {
            fn run(ctx: &mut TestContext) -> Outcome {
                Outcome::from_result($body(ctx))
            }
            test_case!(name = concat!("pipe.draw.state_fuzz.", $name), run);
        };
    )+};
}

reduced!(
    "light_twoside.no_back_color" => |c| two_side(c, false, VsAs::Ir),
    "light_twoside.back_color" => |c| two_side(c, true, VsAs::Ir),
    "light_twoside.no_back_color.spirv_vs" => |c| two_side(c, false, VsAs::SpirV),
    "light_twoside.back_color.spirv_vs" => |c| two_side(c, true, VsAs::SpirV),
    "unbound_color_slot.written" => |c| unbound_slot(c, true, false),
    "unbound_color_slot.not_written" => |c| unbound_slot(c, false, false),
    "unbound_color_slot.written.spirv" => |c| unbound_slot(c, true, true),
    "unbound_color_slot.not_written.spirv" => |c| unbound_slot(c, false, true),
    "depth_only.color_output" => depth_only_color_output,
    "point_size_per_vertex.unwritten_vs" => |c| point_size_unwritten(c, false, false),
    "point_size_per_vertex.unwritten_gs" => |c| point_size_unwritten(c, true, false),
    "point_size_per_vertex.unwritten_vs.spirv" => |c| point_size_unwritten(c, false, true),
    "point_size_per_vertex.unwritten_gs.spirv" => |c| point_size_unwritten(c, true, true),
    "clip_distance.enabled" => |c| clip_distance(c, true, VsAs::Ir),
    "clip_distance.disabled" => |c| clip_distance(c, false, VsAs::Ir),
    "clip_distance.enabled.spirv" => |c| clip_distance(c, true, VsAs::SpirV),
    "clip_distance.disabled.spirv" => |c| clip_distance(c, false, VsAs::SpirV),
    "clip_distance.enabled.glslang" => |c| clip_distance(c, true, VsAs::Glslang),
    "clip_distance.disabled.glslang" => |c| clip_distance(c, false, VsAs::Glslang),
);

reduced!("msaa_rasterizer_discard" => msaa_rasterizer_discard);

/// Points from a vertex shader that writes a point size of 1, with
/// `point_size_per_vertex` off (GL's program point size disabled): the
/// rasterizer's size, 3, applies (pixels 7..=9 around the centre of
/// pixel (8, 8)), not the shader's.
fn point_size_state_over_shader(ctx: &mut TestContext) -> R {
    let mut e = env_with(ctx, |_| {})?;
    let vs = "shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
out @ps : f32 builtin=point_size
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  %1 : f32 = const 1.0
  store @ps, %1
}
";
    let centre = [8.5 / 8.0 - 1.0, 8.5 / 8.0 - 1.0, 0.0, 1.0];
    let c = reduced_setup(
        &mut e,
        Format::R8G8B8A8Unorm,
        1,
        None,
        1,
        (vs, FS_CONST),
        &centre,
    )?;
    reduced_rasterizer(&mut e, |r| {
        r.point_size = 3.0;
        r.point_size_per_vertex = false;
    })?;
    clear_all(&mut e, ClearFlags::COLOR0)?;
    reduced_draw(&mut e, PrimType::Points, 1)?;
    expect_rgba8(&mut e, &c[0], "point", |x, y| {
        if (7..=9).contains(&x) && (7..=9).contains(&y) {
            [0, 255, 0, 255]
        } else {
            [0; 4]
        }
    })
}
reduced!("point_size_per_vertex.off_overrides_shader" => point_size_state_over_shader);

/// How a reduced case gives its vertex shader.
#[derive(Clone, Copy)]
enum VsAs {
    /// spirv-gen IR (as `reduced_setup` binds it).
    Ir,
    /// The same IR as spirv-gen's SPIR-V, passed through.
    SpirV,
    /// An entry point of the glslang-style `per_vertex_spirv.spvasm`.
    Glslang,
}

/// The glslang-style module `per_vertex_spirv.spvasm` (assembled; a
/// spirv-gen test keeps the two equal) with entry point `entry`.
fn per_vertex_module(entry: &str) -> ShaderState {
    let words: Vec<u32> = include_bytes!("per_vertex_spirv.spv")
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    ShaderState {
        stage: ShaderStage::Vertex,
        code: ShaderCode::SpirV {
            words: Arc::from(words),
            entry_point: entry.into(),
        },
        stream_output: StreamOutputInfo::default(),
    }
}

/// Binds the vertex shader `src` (IR text) as `how` gives it; `entry`
/// names the glslang-style one.
fn bind_vs_as(e: &mut Env, src: &str, how: VsAs, entry: &str) -> R {
    let state = match how {
        VsAs::Ir => return Ok(()),
        VsAs::SpirV => crate::harness::spirv_shader(
            ShaderStage::Vertex,
            src,
            spirv_gen::emit::Target::Vulkan1_3,
        )?,
        VsAs::Glslang => per_vertex_module(entry),
    };
    let v = step("vs", e.ctx.create_vs_state(&state))?;
    step("bind vs", e.ctx.bind_vs_state(Some(v)))
}

/// Binds the fragment shader `src` (IR text) as spirv-gen's SPIR-V 1.6,
/// passed through.
fn bind_fs_spirv(e: &mut Env, src: &str) -> R {
    let f = crate::harness::spirv_shader(
        ShaderStage::Fragment,
        src,
        spirv_gen::emit::Target::Vulkan1_3,
    )?;
    let h = step("fs", e.ctx.create_fs_state(&f))?;
    step("bind fs", e.ctx.bind_fs_state(Some(h)))
}

/// A fragment shader writing the texel at (0.5, 0.5) of the 2D texture
/// in `slot`.
fn fs_sampling(slot: u32) -> String {
    format!(
        "shader fragment
texture @t slot={slot} dim=2d sampled=float
out @frag : f32x4 location=0
fn main {{
  %0 : f32x2 = const 0.5, 0.5
  %1 : f32x4 = tex @t, coord=%0
  store @frag, %1
}}
"
    )
}

/// The glslang-style vertex shaders of `per_vertex_spirv.spvasm`, whose
/// `gl_PointSize` is a member of their `gl_PerVertex` output block:
/// entry point `main` writes 1.0, `unwritten` nothing. With
/// `point_size_per_vertex` (GL's program point size) on, the shader's
/// size wins where it writes one, else the rasterizer's 3 applies; off,
/// the rasterizer's always does.
fn point_size_glslang(ctx: &mut TestContext, entry: &str, per_vertex: bool) -> R {
    let mut e = env_with(ctx, |_| {})?;
    let centre = [8.5 / 8.0 - 1.0, 8.5 / 8.0 - 1.0, 0.0, 1.0];
    let c = reduced_setup(
        &mut e,
        Format::R8G8B8A8Unorm,
        1,
        None,
        1,
        (VS_POS, FS_CONST),
        &centre,
    )?;
    bind_vs_as(&mut e, VS_POS, VsAs::Glslang, entry)?;
    reduced_rasterizer(&mut e, |r| {
        r.point_size = 3.0;
        r.point_size_per_vertex = per_vertex;
    })?;
    clear_all(&mut e, ClearFlags::COLOR0)?;
    reduced_draw(&mut e, PrimType::Points, 1)?;
    let half = if per_vertex && entry == "main" { 0 } else { 1 };
    expect_rgba8(&mut e, &c[0], "point", |x, y| {
        if x.abs_diff(8) <= half && y.abs_diff(8) <= half {
            [0, 255, 0, 255]
        } else {
            [0; 4]
        }
    })
}
reduced!(
    "point_size_per_vertex.glslang.written" => |c| point_size_glslang(c, "main", true),
    "point_size_per_vertex.glslang.written_off" => |c| point_size_glslang(c, "main", false),
    "point_size_per_vertex.glslang.unwritten" => |c| point_size_glslang(c, "unwritten", true),
);

/// A fragment shader reading a varying (location 1) the vertex shader
/// does not write: GL leaves it undefined, Vulkan rejects the interface,
/// so pipe-vk reads zero (`VariantKey::zero_inputs`). Here with SPIR-V
/// passthrough shaders (`vs`, `fs`: as spirv-gen's SPIR-V rather than
/// IR), whose interfaces pipe-vk reads from the words
/// (`spirv_gen::patch::interface_locations`) and whose unwritten inputs
/// it zeroes (`spirv_gen::patch::zero_inputs`). The colour is the
/// input plus green.
fn unwritten_varying(ctx: &mut TestContext, vs: VsAs, fs_spirv: bool) -> R {
    const FS: &str = "shader fragment
in @v : f32x4 location=1
out @frag : f32x4 location=0
fn main {
  %0 : f32x4 = load @v
  %1 : f32x4 = const 0.0, 1.0, 0.0, 1.0
  %2 : f32x4 = fadd %0, %1
  store @frag, %2
}
";
    // Writes location 0, not 1.
    const VS: &str = "shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
out @c : f32x4 location=0
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  store @c, %0
}
";
    let (mut e, c) = full_triangle(ctx, (VS, FS))?;
    bind_vs_as(&mut e, VS, vs, "")?;
    draw_fs_as(&mut e, FS, fs_spirv)?;
    expect_rgba8(&mut e, &c[0], "unwritten varying", |_, _| [0, 255, 0, 255])
}

/// A vertex shader writing location 1 (`a`) with (0.5, 0, 0, 0), and
/// nothing else: what the unwritten-input cases leave in part unwritten.
const VS_WRITES_A: &str = "shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
out @a : f32x4 location=1
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  %1 : f32x4 = const 0.5, 0.0, 0.0, 0.0
  store @a, %1
}
";

/// [`unwritten_varying`] with glslang's fragment shader reading an input
/// block `{ a; b; }` (locations 1 and 2, `input_block_spirv.spvasm`)
/// that the vertex shader does not write: the whole block reads zero.
/// With `partial`, the vertex shader writes `a` (location 1, (0.5, 0, 0,
/// 0)) and only `b` reads zero. Both were left alone (the block read
/// garbage; partly written, a validation error).
fn unwritten_block(ctx: &mut TestContext, vs: VsAs, partial: bool) -> R {
    let (mut e, c) = full_triangle(ctx, (if partial { VS_WRITES_A } else { VS_POS }, FS_CONST))?;
    bind_vs_as(&mut e, if partial { VS_WRITES_A } else { VS_POS }, vs, "")?;
    draw_spirv_fs(&mut e, include_bytes!("input_block_spirv.spv"))?;
    if partial {
        return expect_unorm(&mut e, &c[0], "a + 0 + green", [0.5, 1.0, 0.0, 1.0]);
    }
    expect_rgba8(&mut e, &c[0], "unwritten input block", |_, _| {
        [0, 255, 0, 255]
    })
}
reduced!(
    "unwritten_varying.block_ir_vs" => |c| unwritten_block(c, VsAs::Ir, false),
    "unwritten_varying.block_spirv_vs" => |c| unwritten_block(c, VsAs::SpirV, false),
    "unwritten_varying.block_partly_ir_vs" => |c| unwritten_block(c, VsAs::Ir, true),
    "unwritten_varying.block_partly_spirv_vs" => |c| unwritten_block(c, VsAs::SpirV, true),
);

/// An input array (locations 1 and 2) of which the vertex shader writes
/// only location 1, (0.5, 0, 0, 0): the written element keeps its
/// value, the other reads zero, so the colour is (0.5, 1, 0, 1) (the
/// elements' sum plus green). It
/// was left alone, a validation error (the fragment shader consumed
/// location 2, which nothing writes). With `fs_spirv` the fragment
/// shader is SPIR-V passthrough (`spirv_gen::patch::zero_inputs`).
fn unwritten_array_element(ctx: &mut TestContext, fs_spirv: bool) -> R {
    const FS: &str = "shader fragment
in @a : f32x4[2] location=1
out @frag : f32x4 location=0
fn main {
  %0 : i32 = const 0
  %1 : f32x4 = load @a, %0
  %2 : i32 = const 1
  %5 : f32x4 = load @a, %2
  %6 : f32x4 = fadd %1, %5
  %7 : f32x4 = const 0.0, 1.0, 0.0, 1.0
  %8 : f32x4 = fadd %6, %7
  store @frag, %8
}
";
    let (mut e, c) = full_triangle(ctx, (VS_WRITES_A, FS))?;
    draw_fs_as(&mut e, FS, fs_spirv)?;
    expect_unorm(
        &mut e,
        &c[0],
        "written element + 0 + green",
        [0.5, 1.0, 0.0, 1.0],
    )
}

/// glslang's fragment shader reading `flat dvec4 d` at location 1 and
/// `flat dvec3 e[2]` at 3 (`partial_64_fs_spirv.spvasm`): each 64-bit
/// vector of three or four components takes two locations, and
/// glslang's vertex shader (`partial_64_vs_spirv.spvasm`) writes only
/// the first of each, a `dvec2` (locations 1, 3 and 5). The written
/// halves keep their values, the others read zero:
/// `(d.x + e[0].x, d.y + e[1].x, d.z + d.w + e[0].z + e[1].z + e[0].y,
/// 1 - e[1].y)`. It was left alone, a validation error (locations 2, 4
/// and 6 consumed, none written).
fn unwritten_64_bit_halves(ctx: &mut TestContext) -> R {
    let (mut e, c) = full_triangle(ctx, (VS_POS, FS_CONST))?;
    if !e.screen.caps().stage(ShaderStage::Fragment).fp64 {
        return Err(Outcome::skip("no 64-bit floats in shaders"));
    }
    let vs = crate::harness::spirv_module(
        ShaderStage::Vertex,
        include_bytes!("partial_64_vs_spirv.spv"),
    );
    let v = step("vs", e.ctx.create_vs_state(&vs))?;
    step("bind vs", e.ctx.bind_vs_state(Some(v)))?;
    draw_spirv_fs(&mut e, include_bytes!("partial_64_fs_spirv.spv"))?;
    // What the vertex shader writes: d.xy, e[0].xy, e[1].xy.
    let (d, e0, e1) = ([0.25f32, 0.5], [0.125f32, 0.0625], [0.25f32, 0.5]);
    let want = [d[0] + e0[0], d[1] + e1[0], e0[1], 1.0 - e1[1]];
    expect_unorm(&mut e, &c[0], "written halves, zeros", want)
}

/// glslang's fragment shader reading `mat2x4 m` at location 1
/// (`partial_matrix_fs_spirv.spvasm`, a column at 1 and one at 2) with
/// the vertex shader writing only location 1, (0.5, 0, 0, 0): the first
/// column keeps it, the second reads zero, and the colour is
/// `m[0] + m[1] + green`. It was left alone, a validation error.
fn unwritten_matrix_column(ctx: &mut TestContext) -> R {
    let (mut e, c) = full_triangle(ctx, (VS_WRITES_A, FS_CONST))?;
    draw_spirv_fs(&mut e, include_bytes!("partial_matrix_fs_spirv.spv"))?;
    expect_unorm(&mut e, &c[0], "m[0] + 0 + green", [0.5, 1.0, 0.0, 1.0])
}

/// A vertex shader writing location 1 as `(window x / W, 0, 0, 0)`,
/// linear across the target.
const VS_A_ACROSS: &str = "shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
out @a : f32x4 location=1
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  %1 : f32 = swizzle %0, x
  %2 : f32 = const 0.5
  %3 : f32 = fmul %1, %2
  %4 : f32 = fadd %3, %2
  %5 : f32 = const 0.0
  %6 : f32x4 = vec %4, %5, %5, %5
  store @a, %6
}
";

/// An input array (locations 1 and 2) interpolated at an offset with a
/// dynamic index, of which the vertex shader writes only location 1,
/// `a[0].x = window x / W` (linear across the target). Each pixel
/// interpolates `a[x & 1]` at (+0.25, 0): the even columns read a[0]
/// there, `(x + 0.75) / W`, the odd ones zero; green is added. (The
/// offset stays inside Vulkan's guaranteed range, [-0.5, 0.4375] with 4
/// sub-pixel bits: NVIDIA returned 0 at +0.5, outside its range.) It was left
/// alone, a validation error (location 2 consumed, nothing writes it);
/// now the written element's own input is interpolated at the offset and
/// selected by the index. With `fs_spirv` the fragment shader is
/// spirv-gen's SPIR-V of the same IR, passed through
/// (`spirv_gen::patch::zero_inputs`).
fn unwritten_interpolated_element(ctx: &mut TestContext, fs_spirv: bool) -> R {
    const FS: &str = "shader fragment
in @a : f32x4[2] location=1
in @fc : f32x4 builtin=frag_coord
out @frag : f32x4 location=0
fn main {
  %0 : f32x4 = load @fc
  %1 : f32 = swizzle %0, x
  %2 : i32 = f2i %1
  %3 : i32 = const 1
  %4 : i32 = iand %2, %3
  %5 : f32 = const 0.25
  %6 : f32 = const 0.0
  %7 : f32x2 = vec %5, %6
  %8 : f32x4 = interp_at_offset @a, %4, %7
  %9 : f32x4 = const 0.0, 1.0, 0.0, 1.0
  %10 : f32x4 = fadd %8, %9
  store @frag, %10
}
";
    let (mut e, c) = full_triangle(ctx, (VS_A_ACROSS, FS))?;
    draw_fs_as(&mut e, FS, fs_spirv)?;
    let got = e.read_texture(&c[0], 0, &PipeBox::rect(0, 0, W, H))?;
    for (i, p) in got.chunks_exact(4).enumerate() {
        let x = i as u32 % W;
        let red = if x.is_multiple_of(2) {
            (x as f32 + 0.75) / W as f32
        } else {
            0.0
        };
        let want = crate::harness::unorm([red, 1.0, 0.0, 1.0]);
        if !want.contains([p[0], p[1], p[2], p[3]]) {
            return Err(Outcome::fail(format!(
                "pixel ({x}, {}) is {p:?}, want {want:?} (a[x & 1] at x + 0.75)",
                i as u32 / W
            )));
        }
    }
    Ok(())
}

/// `interp_at_offset` at both ends of the range the screen reports
/// (`Caps::min/max_interpolation_offset`), along x: with the vertex
/// shader's `a.x = window x / W`, pixel x reads `(x + 0.5 + offset) / W`
/// (the minimum is -0.5 on every device, so column 0 reads 0). Offsets
/// outside the range are undefined: NVIDIA, whose maximum is 0.4375,
/// read 0 at +0.5, so a screen that reported GL's 0.5 there would fail
/// this.
fn interp_offset_range(ctx: &mut TestContext) -> R {
    let (mut e, c) = full_triangle(ctx, (VS_A_ACROSS, FS_CONST))?;
    let caps = e.screen.caps().clone();
    if caps.min_interpolation_offset > -0.5 || caps.max_interpolation_offset < 0.4375 {
        return Err(Outcome::fail(format!(
            "offset range [{}, {}] is narrower than Vulkan's minimum [-0.5, 0.4375]",
            caps.min_interpolation_offset, caps.max_interpolation_offset
        )));
    }
    for offset in [caps.min_interpolation_offset, caps.max_interpolation_offset] {
        let fs = format!(
            "shader fragment
in @a : f32x4 location=1
out @frag : f32x4 location=0
fn main {{
  %0 : f32 = const {offset:?}
  %1 : f32 = const 0.0
  %2 : f32x2 = vec %0, %1
  %3 : f32x4 = interp_at_offset @a, %2
  %4 : f32x4 = const 0.0, 1.0, 0.0, 1.0
  %5 : f32x4 = fadd %3, %4
  store @frag, %5
}}
"
        );
        let f = step(
            "fs",
            e.ctx.create_fs_state(&shader(ShaderStage::Fragment, &fs)?),
        )?;
        step("bind fs", e.ctx.bind_fs_state(Some(f)))?;
        draw_fs_as(&mut e, &fs, false)?;
        let got = e.read_texture(&c[0], 0, &PipeBox::rect(0, 0, W, H))?;
        for (i, p) in got.chunks_exact(4).enumerate() {
            let x = i as u32 % W;
            let red = (x as f32 + 0.5 + offset) / W as f32;
            let want = crate::harness::unorm([red, 1.0, 0.0, 1.0]);
            if !want.contains([p[0], p[1], p[2], p[3]]) {
                return Err(Outcome::fail(format!(
                    "offset {offset}: pixel ({x}, {}) is {p:?}, want {want:?}",
                    i as u32 / W
                )));
            }
        }
    }
    Ok(())
}

/// glslang's fragment shader interpolating members of a block
/// (`partial_interp_block_fs_spirv.spvasm`: `blk { a; b; c[2]; }` at
/// locations 1 to 4; `a` at an offset of (+0.25, 0), `b` at the centroid,
/// and `b`, `c[0]` and `c[1]` read). The vertex shader writes only `a`
/// (`a.x = window x / W`, linear across the target) and `c[1]` (blue
/// 0.25): `b` and `c[0]` read zero, also where interpolated, and the
/// colour is `((x + 0.75) / W, 1, 0.25, 1)`. It was left alone, a
/// validation error (locations 2 and 3 consumed, none written); now the
/// interpolated `a` takes an input of its own.
fn unwritten_interpolated_member(ctx: &mut TestContext) -> R {
    // VS_A_ACROSS, and (0, 0, 0.25, 0) at location 4.
    let vs = VS_A_ACROSS
        .replace(
            "out @a : f32x4 location=1\n",
            "out @a : f32x4 location=1\nout @c1 : f32x4 location=4\n",
        )
        .replace(
            "  store @a, %6\n}",
            "  store @a, %6\n  %7 : f32x4 = const 0.0, 0.0, 0.25, 0.0\n  store @c1, %7\n}",
        );
    let (mut e, c) = full_triangle(ctx, (&vs, FS_CONST))?;
    draw_spirv_fs(&mut e, include_bytes!("partial_interp_block_fs_spirv.spv"))?;
    let got = e.read_texture(&c[0], 0, &PipeBox::rect(0, 0, W, H))?;
    for (i, p) in got.chunks_exact(4).enumerate() {
        let x = i as u32 % W;
        let want = crate::harness::unorm([(x as f32 + 0.75) / W as f32, 1.0, 0.25, 1.0]);
        if !want.contains([p[0], p[1], p[2], p[3]]) {
            return Err(Outcome::fail(format!(
                "pixel ({x}, {}) is {p:?}, want {want:?} (a at x + 0.75, zeros, c[1])",
                i as u32 / W
            )));
        }
    }
    Ok(())
}

/// glslang's fragment shader reading a block with a struct member,
/// `blk { x; S s { p; q; } }` at locations 1 to 3, and an array of
/// blocks `arr[2] { y; flat ivec4 z; }` at 4 to 7
/// (`partial_blocks_fs_spirv.spvasm`). The vertex shader writes `x`,
/// `s.q`, `arr[0].z` and `arr[1].y` (locations 1, 3, 5 and 6), not
/// `s.p`, `arr[0].y` or `arr[1].z`: those read zero and the others keep
/// their values, so the colour is `x + s.q + arr[1].y + arr[0].z / 255`.
/// Both were left alone, a validation error (locations 2, 4 and 7
/// consumed, none written).
fn unwritten_block_parts(ctx: &mut TestContext) -> R {
    const VS: &str = "shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
out @x : f32x4 location=1
out @q : f32x4 location=3
out @z0 : i32x4 location=5 flat
out @y1 : f32x4 location=6
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  %1 : f32x4 = const 0.25, 0.0, 0.0, 0.0
  store @x, %1
  %2 : f32x4 = const 0.0, 0.25, 0.0, 0.0
  store @q, %2
  %3 : i32x4 = const 0, 0, 64, 0
  store @z0, %3
  %4 : f32x4 = const 0.0, 0.0, 0.0, 0.5
  store @y1, %4
}
";
    let (mut e, c) = full_triangle(ctx, (VS, FS_CONST))?;
    draw_spirv_fs(&mut e, include_bytes!("partial_blocks_fs_spirv.spv"))?;
    let (x, q, y1) = (
        [0.25f32, 0.0, 0.0, 0.0],
        [0.0f32, 0.25, 0.0, 0.0],
        [0.0f32, 0.0, 0.0, 0.5],
    );
    let z0 = [0.0f32, 0.0, 64.0, 0.0];
    let want: Vec<f32> = (0..4)
        .map(|k| x[k] + q[k] + y1[k] + z0[k] / 255.0)
        .collect();
    expect_unorm(
        &mut e,
        &c[0],
        "written members, zeros",
        [want[0], want[1], want[2], want[3]],
    )
}

reduced!(
    "unwritten_varying.block_parts.spirv" => unwritten_block_parts,
    "unwritten_varying.interpolated_member.spirv" => unwritten_interpolated_member,
    "interp_at_offset.range" => interp_offset_range,
    "unwritten_varying.interpolated_element" => |c| unwritten_interpolated_element(c, false),
    "unwritten_varying.interpolated_element.spirv_fs" => |c| unwritten_interpolated_element(c, true),
    "unwritten_varying.dvec_halves.spirv" => unwritten_64_bit_halves,
    "unwritten_varying.matrix_column.spirv" => unwritten_matrix_column,
    "unwritten_varying.array_element" => |c| unwritten_array_element(c, false),
    "unwritten_varying.array_element.spirv_fs" => |c| unwritten_array_element(c, true),
    "unwritten_varying.spirv_fs" => |c| unwritten_varying(c, VsAs::Ir, true),
    "unwritten_varying.spirv_vs" => |c| unwritten_varying(c, VsAs::SpirV, false),
    "unwritten_varying.spirv_both" => |c| unwritten_varying(c, VsAs::SpirV, true),
);

/// GL's clip-space depth: with `clip_halfz` off (GL's default, [-1, 1]),
/// a triangle at z = -0.5 lands at depth 0.25; with it on ([0, 1]), one
/// at z = 0.5 at 0.5. SPIR-V passthrough vertex shaders (`vs`) get the
/// conversion patched in (`spirv_gen::patch::clip_halfz`): without it
/// the first triangle was clipped away.
fn depth_range(ctx: &mut TestContext, vs: VsAs, halfz: bool) -> R {
    let mut e = env_with(ctx, |_| {})?;
    let (z, want) = if halfz { (0.5, 0.5) } else { (-0.5, 0.25) };
    let tri: Vec<f32> = FULL_TRI
        .chunks(4)
        .flat_map(|v| [v[0], v[1], z, 1.0])
        .collect();
    let zbuf = reduced_setup(
        &mut e,
        Format::R8G8B8A8Unorm,
        1,
        Some(Format::Z32Float),
        0,
        (VS_POS, FS_CONST),
        &tri,
    )?
    .remove(0);
    bind_vs_as(&mut e, VS_POS, vs, "unwritten")?;
    reduced_rasterizer(&mut e, |r| r.clip_halfz = halfz)?;
    let dsa = DepthStencilAlphaState {
        depth_enabled: true,
        depth_writemask: true,
        depth_func: CompareFunc::Always,
        ..Default::default()
    };
    let h = step("dsa", e.ctx.create_depth_stencil_alpha_state(&dsa))?;
    step("bind dsa", e.ctx.bind_depth_stencil_alpha_state(Some(h)))?;
    clear_all(&mut e, ClearFlags::DEPTH)?;
    reduced_draw(&mut e, PrimType::Triangles, 3)?;
    let got = e.read_texture(&zbuf, 0, &PipeBox::rect(0, 0, W, H))?;
    for (i, d) in got
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .enumerate()
    {
        if (d - want).abs() > 1e-6 {
            return Err(Outcome::fail(format!(
                "depth of pixel {i} is {d}, want {want}"
            )));
        }
    }
    Ok(())
}
reduced!(
    "depth_range.gl.ir" => |c| depth_range(c, VsAs::Ir, false),
    "depth_range.gl.spirv" => |c| depth_range(c, VsAs::SpirV, false),
    "depth_range.gl.glslang" => |c| depth_range(c, VsAs::Glslang, false),
    "depth_range.halfz.spirv" => |c| depth_range(c, VsAs::SpirV, true),
    "depth_range.halfz.glslang" => |c| depth_range(c, VsAs::Glslang, true),
);

/// State asking for lowerings pipe-vk does not patch into SPIR-V (flat
/// and two-sided colours here, which apply to GL's colour varyings) with a SPIR-V passthrough fragment
/// shader: a Fallback debug message names them, once per pipeline; none
/// with the IR shader (which gets them) or without that state.
fn spirv_unapplied_message(ctx: &mut TestContext) -> R {
    use pipe_core::state::{DebugCallback, DebugMessage, DebugType};
    let (mut e, c) = full_triangle(ctx, (VS_POS, FS_CONST))?;
    let log: Arc<std::sync::Mutex<Vec<(DebugType, String)>>> = Arc::default();
    let sink = log.clone();
    let cb: DebugCallback = Arc::new(move |m: &DebugMessage| {
        if let Ok(mut l) = sink.lock() {
            l.push((m.kind, m.text.clone()));
        }
    });
    step("set_debug_callback", e.ctx.set_debug_callback(Some(cb)))?;
    let ir_fs = step(
        "fs",
        e.ctx
            .create_fs_state(&shader(ShaderStage::Fragment, FS_CONST)?),
    )?;
    let spirv_fs = step(
        "fs",
        e.ctx.create_fs_state(&crate::harness::spirv_shader(
            ShaderStage::Fragment,
            FS_CONST,
            spirv_gen::emit::Target::Vulkan1_1,
        )?),
    )?;
    let fallbacks = |log: &std::sync::Mutex<Vec<(DebugType, String)>>| -> Vec<String> {
        let mut l = log
            .lock()
            .map(|mut l| std::mem::take(&mut *l))
            .unwrap_or_default();
        l.retain(|(k, t)| *k == DebugType::Fallback && t.contains("SPIR-V passthrough"));
        l.into_iter().map(|(_, t)| t).collect()
    };
    // (fragment shader, flat and two-sided colours on, messages wanted).
    for (what, fs, on, want) in [
        ("SPIR-V, state on", spirv_fs, true, 1),
        ("SPIR-V, state on, same pipeline", spirv_fs, true, 0),
        ("IR, state on", ir_fs, true, 0),
        ("SPIR-V, state off", spirv_fs, false, 0),
    ] {
        step("bind fs", e.ctx.bind_fs_state(Some(fs)))?;
        reduced_rasterizer(&mut e, |r| {
            r.flatshade = on;
            r.light_twoside = on;
        })?;
        clear_all(&mut e, ClearFlags::COLOR0)?;
        reduced_draw(&mut e, PrimType::Triangles, 3)?;
        let got = fallbacks(&log);
        if got.len() != want {
            return Err(Outcome::fail(format!(
                "{what}: {} Fallback messages about SPIR-V, want {want}: {got:?}",
                got.len()
            )));
        }
        if let Some(m) = got.first() {
            for needle in ["fragment", "flatshade", "light_twoside"] {
                if !m.contains(needle) {
                    return Err(Outcome::fail(format!("{what}: no \"{needle}\" in: {m}")));
                }
            }
        }
    }
    // The draws themselves (the constant colour is no GL colour).
    expect_rgba8(&mut e, &c[0], "last draw", |_, _| [0, 255, 0, 255])
}
reduced!("spirv_passthrough.unapplied_lowerings_reported" => spirv_unapplied_message);

/// A SPIR-V passthrough fragment shader sampling texture slot 2 (set 1,
/// binding 4 * 32 + 2): pipe-vk reads the slot from the words
/// (`spirv_gen::patch::resource_bindings`) and binds the view there.
/// Before, it wrote no descriptor for a SPIR-V shader, and the draw read
/// an unwritten one (lavapipe crashed). Slot 3, which the shader does not
/// sample, is left unbound.
fn spirv_texture(ctx: &mut TestContext) -> R {
    let (mut e, c) = full_triangle(ctx, (VS_POS, FS_CONST))?;
    bind_texels(&mut e, 2, &[[40, 80, 160, 255]])?;
    bind_fs_spirv(&mut e, &fs_sampling(2))?;
    reduced_rasterizer(&mut e, |_| {})?;
    clear_all(&mut e, ClearFlags::COLOR0)?;
    reduced_draw(&mut e, PrimType::Triangles, 3)?;
    expect_rgba8(&mut e, &c[0], "sampled texel", |_, _| [40, 80, 160, 255])
}

/// A SPIR-V passthrough fragment shader with descriptor arrays
/// (`arrays_spirv.spvasm`): `sampler2D s[3]` at texture slot 2 and a
/// uniform block array `ubos[2]` at constant buffer slot 1, as GL gives
/// an array consecutive binding points. It samples `s[0]` (slot 2) and
/// `s[2]` (slot 4) and adds `ubos[1]` (slot 2); slot 3 and buffer 1 hold
/// values that would show if an element went to the wrong slot. The
/// arrays are split into one variable per element
/// (`spirv_gen::patch::split_descriptor_arrays`); they were refused.
fn spirv_descriptor_arrays(ctx: &mut TestContext) -> R {
    let (mut e, c) = full_triangle(ctx, (VS_POS, FS_CONST))?;
    bind_texels(
        &mut e,
        2,
        &[[64, 0, 0, 0], [255, 255, 255, 255], [0, 128, 0, 0]],
    )?;
    for (slot, v) in [(1, [1.0f32; 4]), (2, [0.0, 0.0, 0.5, 1.0])] {
        set_fs_vec4(&mut e, slot, v)?;
    }
    let fs =
        crate::harness::spirv_module(ShaderStage::Fragment, include_bytes!("arrays_spirv.spv"));
    let h = step("fs", e.ctx.create_fs_state(&fs))?;
    step("bind fs", e.ctx.bind_fs_state(Some(h)))?;
    reduced_rasterizer(&mut e, |_| {})?;
    clear_all(&mut e, ClearFlags::COLOR0)?;
    reduced_draw(&mut e, PrimType::Triangles, 3)?;
    let want = crate::harness::unorm([64.0 / 255.0, 128.0 / 255.0, 0.5, 1.0]);
    let got = e.read_texture(&c[0], 0, &PipeBox::rect(0, 0, 1, 1))?;
    let px = [got[0], got[1], got[2], got[3]];
    if !want.contains(px) {
        return Err(Outcome::fail(format!(
            "pixel (0, 0) is {px:?}, want {want:?} (s[0] + s[2] + ubos[1])"
        )));
    }
    expect_rgba8(&mut e, &c[0], "descriptor arrays", |_, _| px)
}
reduced!("spirv_passthrough.descriptor_arrays" => spirv_descriptor_arrays);

/// A SPIR-V passthrough fragment shader indexing `sampler2D s[3]` (slot
/// 2) in a loop (`array_loop_spirv.spvasm`): the sum of the three
/// textures. The dynamic index is unrolled into a switch over the
/// elements (`spirv_gen::patch::split_descriptor_arrays`); it was
/// refused.
fn spirv_array_loop(ctx: &mut TestContext) -> R {
    let (mut e, c) = full_triangle(ctx, (VS_POS, FS_CONST))?;
    bind_texels(&mut e, 2, &[[32, 0, 0, 0], [0, 64, 0, 0], [0, 0, 128, 255]])?;
    draw_spirv_fs(&mut e, include_bytes!("array_loop_spirv.spv"))?;
    expect_rgba8(&mut e, &c[0], "s[0] + s[1] + s[2]", |_, _| {
        [32, 64, 128, 255]
    })
}
reduced!("spirv_passthrough.descriptor_array_loop" => spirv_array_loop);

/// A SPIR-V passthrough fragment shader with arrays of arrays of
/// descriptors (`arrays_of_arrays_spirv.spvasm`, GL's
/// ARB_arrays_of_arrays): `sampler2D s[2][3]` at texture slot 2 and
/// `ubos[2][2]` at constant buffer slot 1. GL gives `s[i][j]` binding
/// point `2 + i * 3 + j` and `ubos[i][j]` `1 + i * 2 + j`. Slot k's texel
/// has red `1 << (k - 2)` (alpha only in `s[1][0]`'s) and buffer k green
/// `1 << (k - 1)` (in 255ths), so the sum tells which slots each access
/// read: `s[1][0]`, then in a loop `s[i][2]` and `ubos[i][1]`. The arrays
/// were refused (Vulkan has no arrays of arrays of descriptors); they
/// are made one array each, in GL's order
/// (`spirv_gen::patch::split_descriptor_arrays`).
fn spirv_descriptor_arrays_of_arrays(ctx: &mut TestContext) -> R {
    let (mut e, c) = full_triangle(ctx, (VS_POS, FS_CONST))?;
    let texture_slot = |i: u32, j: u32| 2 + i * 3 + j;
    let buffer_slot = |i: u32, j: u32| 1 + i * 2 + j;
    let texels: Vec<[u8; 4]> = (2..8u32)
        .map(|k| {
            let alpha = if k == texture_slot(1, 0) { 255 } else { 0 };
            [1 << (k - 2), 0, 0, alpha]
        })
        .collect();
    bind_texels(&mut e, 2, &texels)?;
    for slot in 1..5u32 {
        set_fs_vec4(
            &mut e,
            slot,
            [0.0, (1u32 << (slot - 1)) as f32 / 255.0, 0.0, 0.0],
        )?;
    }
    draw_spirv_fs(&mut e, include_bytes!("arrays_of_arrays_spirv.spv"))?;
    let texel = |k: u32| texels[(k - 2) as usize];
    let mut red = u32::from(texel(texture_slot(1, 0))[0]);
    let mut green = 0;
    for i in 0..2 {
        red += u32::from(texel(texture_slot(i, 2))[0]);
        green += 1 << (buffer_slot(i, 1) - 1);
    }
    let want = [red as u8, green as u8, 0, 255];
    expect_rgba8(&mut e, &c[0], "s[1][0] + s[i][2] + ubos[i][1]", |_, _| want)
}
reduced!("spirv_passthrough.descriptor_arrays_of_arrays" => spirv_descriptor_arrays_of_arrays);

/// spirv-opt's shape of a dynamically indexed `sampler2D s[4]` (slot 2,
/// `array_opt_spirv.spvasm`): `s[x & 3]` loaded once, sampled, and
/// sampled again in a branch taken when the first sample's alpha is
/// over 0.5 (the element is used in two blocks, and the first block's
/// branch depends on it). Slot k's texel has red `20 * (k - 1)`, alpha
/// 255 in slots 3 and 5: column x shows slot `2 + (x & 3)`'s texel,
/// doubled where its alpha is set. The shader was refused.
fn spirv_array_optimized(ctx: &mut TestContext) -> R {
    let (mut e, c) = full_triangle(ctx, (VS_POS, FS_CONST))?;
    let texel = |k: u32| -> [u8; 4] {
        let alpha = if k % 2 == 1 { 255 } else { 0 };
        [(20 * (k - 1)) as u8, 0, 0, alpha]
    };
    let texels: Vec<[u8; 4]> = (2..6).map(texel).collect();
    bind_texels(&mut e, 2, &texels)?;
    draw_spirv_fs(&mut e, include_bytes!("array_opt_spirv.spv"))?;
    expect_rgba8(
        &mut e,
        &c[0],
        "s[x & 3], twice where alpha is set",
        |x, _| {
            let t = texel(2 + (x & 3));
            if t[3] > 127 {
                [t[0] * 2, 0, 0, 255]
            } else {
                t
            }
        },
    )
}
reduced!("spirv_passthrough.descriptor_array_optimized" => spirv_array_optimized);

/// Dynamic indices in a loop header, as spirv-opt leaves them
/// (`array_dowhile_spirv.spvasm`: `do { c += texture(s[i], ..); i++; }
/// while (i <= (x & 3))`, one block that is its own continue target).
/// Slot k's texel has red `16 << (k - 2)`: column x adds the texels of
/// slots 2 to `2 + (x & 3)`, so each bit says whether that slot was read.
/// The shader was refused.
fn spirv_array_do_while(ctx: &mut TestContext) -> R {
    let (mut e, c) = full_triangle(ctx, (VS_POS, FS_CONST))?;
    let texels: Vec<[u8; 4]> = (0..4).map(|k| [16 << k, 0, 0, 255]).collect();
    bind_texels(&mut e, 2, &texels)?;
    draw_spirv_fs(&mut e, include_bytes!("array_dowhile_spirv.spv"))?;
    expect_rgba8(&mut e, &c[0], "s[0] + .. + s[x & 3]", |x, _| {
        let red: u32 = (0..=(x & 3))
            .map(|k| u32::from(texels[k as usize][0]))
            .sum();
        [red as u8, 0, 0, 255]
    })
}
reduced!("spirv_passthrough.descriptor_array_do_while" => spirv_array_do_while);

/// [`spirv_array_do_while`]'s other loop header: a `while` condition
/// that samples (`array_while_spirv.spvasm`: from `i = x & 3`, step
/// while `s[i]`'s alpha is under 0.5 and `i < 3`; out `i * 0.2`). Only
/// slot 4 (`i = 2`) has alpha, so columns with `x & 3` of 0 to 2 stop at
/// 2, and 3 at 3.
fn spirv_array_while(ctx: &mut TestContext) -> R {
    let (mut e, c) = full_triangle(ctx, (VS_POS, FS_CONST))?;
    let texels: Vec<[u8; 4]> = (0..4)
        .map(|k| [0, 0, 0, if k == 2 { 255 } else { 0 }])
        .collect();
    bind_texels(&mut e, 2, &texels)?;
    draw_spirv_fs(&mut e, include_bytes!("array_while_spirv.spv"))?;
    expect_rgba8(
        &mut e,
        &c[0],
        "the first slot from s[x & 3] with alpha",
        |x, _| {
            let mut i = (x & 3) as usize;
            while texels[i][3] < 128 && i < 3 {
                i += 1;
            }
            [(i as u8) * 51; 4]
        },
    )
}
reduced!("spirv_passthrough.descriptor_array_while" => spirv_array_while);

/// Draws the full triangle after a clear, with the IR fragment shader
/// `fs` as `reduced_setup` bound it, or (`spirv`) as spirv-gen's SPIR-V
/// passed through.
fn draw_fs_as(e: &mut Env, fs: &str, spirv: bool) -> R {
    if spirv {
        bind_fs_spirv(e, fs)?;
    }
    reduced_rasterizer(e, |_| {})?;
    clear_all(e, ClearFlags::COLOR0)?;
    reduced_draw(e, PrimType::Triangles, 3)
}

/// Fragment constant buffer `slot`: one `vec4`, `v`, as user data.
fn set_fs_vec4(e: &mut Env, slot: u32, v: [f32; 4]) -> R {
    let data = crate::harness::f32s(&v);
    step(
        "set_constant_buffer",
        e.ctx.set_constant_buffer(
            ShaderStage::Fragment,
            slot,
            Some(pipe_core::state::ConstantBuffer {
                buffer: None,
                buffer_offset: 0,
                buffer_size: 16,
                user_buffer: Some(&data),
            }),
        ),
    )
}

/// The reduced cases' common set-up: one RGBA8 colour buffer, no depth,
/// the IR shaders `(vs, fs)` bound, a triangle covering the target.
fn full_triangle(
    ctx: &mut TestContext,
    shaders: (&str, &str),
) -> Result<(Env, Vec<Resource>), Outcome> {
    let mut e = env_with(ctx, |_| {})?;
    let c = reduced_setup(
        &mut e,
        Format::R8G8B8A8Unorm,
        1,
        None,
        1,
        shaders,
        &FULL_TRI,
    )?;
    Ok((e, c))
}

/// SPIR-V passthrough shaders carrying glslang's `-gVS` debug info
/// (NonSemantic.Shader.DebugInfo.100, what RenderDoc's source-level
/// shader debugging reads; `debug_info_{vs,fs}_spirv.spvasm`), drawn
/// with state that patches both (GL's depth range in the vertex shader,
/// polygon stipple and the alpha test in the fragment shader). The
/// patched variants keep the debug info (`spirv_gen::patch`'s `debug`;
/// it was dropped), the validation layer checks the modules, and the
/// image is the stipple's checkerboard of the shader's green: bit
/// `31 - (x mod 32)` of row `y` is set where `x + y` is even. A second
/// draw, whose alpha test fails everywhere, changes nothing.
fn spirv_debug_info(ctx: &mut TestContext) -> R {
    let (mut e, c) = full_triangle(ctx, (VS_POS, FS_CONST))?;
    let vs = crate::harness::spirv_module(
        ShaderStage::Vertex,
        include_bytes!("debug_info_vs_spirv.spv"),
    );
    let fs = crate::harness::spirv_module(
        ShaderStage::Fragment,
        include_bytes!("debug_info_fs_spirv.spv"),
    );
    let vs = step("vs", e.ctx.create_vs_state(&vs))?;
    let fs = step("fs", e.ctx.create_fs_state(&fs))?;
    step("bind vs", e.ctx.bind_vs_state(Some(vs)))?;
    step("bind fs", e.ctx.bind_fs_state(Some(fs)))?;
    reduced_rasterizer(&mut e, |r| r.poly_stipple_enable = true)?;
    let mut p = PolyStipple::default();
    for (y, w) in p.stipple.iter_mut().enumerate() {
        *w = if y % 2 == 0 { 0xAAAA_AAAA } else { 0x5555_5555 };
    }
    step("set_polygon_stipple", e.ctx.set_polygon_stipple(&p))?;
    clear_all(&mut e, ClearFlags::COLOR0)?;
    for func in [CompareFunc::GEqual, CompareFunc::Less] {
        let dsa = DepthStencilAlphaState {
            alpha_enabled: true,
            alpha_func: func,
            alpha_ref_value: 0.5,
            ..Default::default()
        };
        let h = step("dsa", e.ctx.create_depth_stencil_alpha_state(&dsa))?;
        step("bind dsa", e.ctx.bind_depth_stencil_alpha_state(Some(h)))?;
        reduced_draw(&mut e, PrimType::Triangles, 3)?;
    }
    expect_rgba8(&mut e, &c[0], "debug-info shaders", |x, y| {
        if (x + y) % 2 == 0 {
            [0, 255, 0, 255]
        } else {
            [0, 0, 0, 0]
        }
    })
}
reduced!("spirv_passthrough.debug_info" => spirv_debug_info);

/// Draws [`full_triangle`]'s triangle with the SPIR-V fragment shader
/// module `bytes` (entry point `main`), the default reduced rasterizer,
/// on a cleared target.
fn draw_spirv_fs(e: &mut Env, bytes: &[u8]) -> R {
    let fs = crate::harness::spirv_module(ShaderStage::Fragment, bytes);
    let h = step("fs", e.ctx.create_fs_state(&fs))?;
    step("bind fs", e.ctx.bind_fs_state(Some(h)))?;
    reduced_rasterizer(e, |_| {})?;
    clear_all(e, ClearFlags::COLOR0)?;
    reduced_draw(e, PrimType::Triangles, 3)
}

/// Fragment sampler views in slots `first..`, one 1x1 RGBA8 texture of
/// each texel, with default samplers.
fn bind_texels(e: &mut Env, first: u32, texels: &[[u8; 4]]) -> R {
    let tt = ResourceTemplate::texture_2d(Format::R8G8B8A8Unorm, 1, 1, BindFlags::SAMPLER_VIEW);
    let mut views = Vec::new();
    for texel in texels {
        let tex = e.texture(&tt)?;
        e.write_texture(&tex, 0, &PipeBox::rect(0, 0, 1, 1), texel)?;
        views.push(Some(step(
            "create_sampler_view",
            e.ctx
                .create_sampler_view(&tex, &SamplerViewTemplate::whole(&tt)),
        )?));
    }
    step(
        "set_sampler_views",
        e.ctx
            .set_sampler_views(ShaderStage::Fragment, first, &views, 0),
    )?;
    let sampler = step(
        "sampler",
        e.ctx.create_sampler_state(&SamplerState::default()),
    )?;
    let samplers = vec![Some(sampler); texels.len()];
    step(
        "bind_sampler_states",
        e.ctx
            .bind_sampler_states(ShaderStage::Fragment, first, &samplers),
    )
}

/// `words` with the literal of decoration `deco` (DescriptorSet 34,
/// Binding 33) of its first such OpDecorate (71) replaced by `value`.
fn redecorate(mut words: Vec<u32>, deco: u32, value: u32) -> Vec<u32> {
    let mut i = 5;
    while i < words.len() {
        let (len, op) = ((words[i] >> 16) as usize, words[i] & 0xffff);
        if op == 71 && len == 4 && words[i + 2] == deco {
            words[i + 3] = value;
            break;
        }
        i += len.max(1);
    }
    words
}

/// SPIR-V passthrough fragment shaders using descriptors the draw path
/// does not bind (a shader buffer in set 5, or at the vertex stage's
/// binding; a texture slot past the sampler set's 16): the draw is
/// refused as unsupported, naming the binding, rather than made with a
/// pipeline layout that lacks it. A draw after it, with an IR shader,
/// works.
fn spirv_unbindable(ctx: &mut TestContext) -> R {
    let ssbo = "shader fragment
ssbo @b slot=0
out @frag : f32x4 location=0
fn main {
  %0 : u32 = const 0
  %1 : f32x4 = load_ssbo @b, %0
  store @frag, %1
}
";
    let tex20 = fs_sampling(20);
    let (mut e, c) = full_triangle(ctx, (VS_POS, FS_CONST))?;
    reduced_rasterizer(&mut e, |_| {})?;
    let ir_fs = step(
        "fs",
        e.ctx
            .create_fs_state(&shader(ShaderStage::Fragment, FS_CONST)?),
    )?;
    let as_spirv = |src: &str, edit: Option<(u32, u32)>| -> Result<ShaderState, Outcome> {
        let mut f = crate::harness::spirv_shader(
            ShaderStage::Fragment,
            src,
            spirv_gen::emit::Target::Vulkan1_3,
        )?;
        if let (Some((deco, value)), ShaderCode::SpirV { words, .. }) = (edit, &mut f.code) {
            *words = Arc::from(redecorate(words.to_vec(), deco, value));
        }
        Ok(f)
    };
    for (what, src, edit, want) in [
        (
            "a shader buffer in set 5",
            ssbo,
            Some((34, 5)),
            "descriptor set 5 binding 128",
        ),
        (
            "a shader buffer at the vertex stage's binding",
            ssbo,
            Some((33, 3)),
            "not in the fragment stage's bindings",
        ),
        ("texture slot 20", &tex20, None, "texture slot 20"),
    ] {
        let f = as_spirv(src, edit)?;
        let h = step("fs", e.ctx.create_fs_state(&f))?;
        step("bind fs", e.ctx.bind_fs_state(Some(h)))?;
        match e.ctx.draw_vbo(
            &DrawInfo {
                mode: PrimType::Triangles,
                ..DrawInfo::default()
            },
            0,
            None,
            &[DrawStartCountBias {
                start: 0,
                count: 3,
                index_bias: 0,
            }],
        ) {
            Err(PipeError::Unsupported(m)) if m.contains(want) => {}
            other => {
                return Err(Outcome::fail(format!(
                    "{what}: draw_vbo gave {other:?}, want Unsupported naming \"{want}\""
                )))
            }
        }
    }
    step("bind fs", e.ctx.bind_fs_state(Some(ir_fs)))?;
    clear_all(&mut e, ClearFlags::COLOR0)?;
    reduced_draw(&mut e, PrimType::Triangles, 3)?;
    expect_rgba8(&mut e, &c[0], "draw after", |_, _| [0, 255, 0, 255])
}
reduced!(
    "spirv_passthrough.texture" => spirv_texture,
    "spirv_passthrough.unbindable_descriptors" => spirv_unbindable,
);

/// Vertex elements the vertex shader does not read (GL allows them),
/// with vertex input baked into pipelines (as on devices without
/// VK_EXT_vertex_input_dynamic_state): the pipeline keeps only the
/// attributes the shader reads, from IR or from SPIR-V words, so the
/// validation layer's "attribute not consumed" warning stays silent,
/// and the draw is right.
fn unread_vertex_elements(ctx: &mut TestContext, vs: VsAs) -> R {
    let mut e = env_with(ctx, |o| o.no_dynamic_vertex_input = Some(true))?;
    let c = reduced_setup(
        &mut e,
        Format::R8G8B8A8Unorm,
        1,
        None,
        1,
        (VS_POS, FS_CONST),
        &FULL_TRI,
    )?;
    bind_vs_as(&mut e, VS_POS, vs, "unwritten")?;
    // Elements 0 (the position) and 1, 2 (unread), from one buffer.
    let elems: Vec<VertexElement> = (0..3)
        .map(|_| VertexElement {
            src_offset: 0,
            src_stride: 16,
            vertex_buffer_index: 0,
            dual_slot: false,
            src_format: Format::R32G32B32A32Float,
            instance_divisor: 0,
        })
        .collect();
    let ve = step("velems", e.ctx.create_vertex_elements_state(&elems))?;
    step("bind velems", e.ctx.bind_vertex_elements_state(Some(ve)))?;
    reduced_rasterizer(&mut e, |_| {})?;
    clear_all(&mut e, ClearFlags::COLOR0)?;
    reduced_draw(&mut e, PrimType::Triangles, 3)?;
    expect_rgba8(&mut e, &c[0], "triangle", |_, _| [0, 255, 0, 255])
}
reduced!(
    "unread_vertex_elements.baked" => |c| unread_vertex_elements(c, VsAs::Ir),
    "unread_vertex_elements.baked.spirv" => |c| unread_vertex_elements(c, VsAs::SpirV),
    "unread_vertex_elements.baked.glslang" => |c| unread_vertex_elements(c, VsAs::Glslang),
);

/// Whether pixel centre (`x` + 0.5, `y` + 0.5) lies within `reach`
/// pixels of the window-space segment `a`-`b`.
fn near_segment(x: u32, y: u32, a: [f32; 2], b: [f32; 2], reach: f32) -> bool {
    let p = [x as f32 + 0.5, y as f32 + 0.5];
    let d = [b[0] - a[0], b[1] - a[1]];
    let len2 = d[0] * d[0] + d[1] * d[1];
    let t = if len2 > 0.0 {
        (((p[0] - a[0]) * d[0] + (p[1] - a[1]) * d[1]) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let q = [a[0] + t * d[0] - p[0], a[1] + t * d[1] - p[1]];
    q[0] * q[0] + q[1] * q[1] <= reach * reach
}

/// Smooth rectangular lines that a geometry shader (`tess` false) or
/// tessellation (`tess`) makes, in a draw of two draws of several lines
/// each, drawn the same way on four fresh contexts, with `samples`
/// samples (resolved): the same bytes each time, something drawn, and
/// nothing drawn more than two pixels from the lines. lavapipe 25.0.7
/// drew stray pixels of garbage single-sampled (found by
/// `pipe.draw.state_fuzz.diff.vertex_fixups.seed_103`, whose two runs
/// differed because each run did), through the smooth-line stage that
/// `DeviceShared::device_smooth_lines` keeps such lines out of;
/// multisampled (multisampling on), they are drawn rectangular now.
fn smooth_lines_from_geometry(ctx: &mut TestContext, tess: bool, samples: u32) -> R {
    let vs = vs_text(&VsCfg {
        attr: Kind::Float,
        instanced: false,
        writes: 7,
        point_size: None,
        clip_distances: 0,
        edge_flag: false,
    });
    let fs = fs_text(&FsCfg {
        outs: vec![Some(Kind::Float)],
        reads: 7,
        front_facing: false,
        frag_coord: false,
        texture: false,
        frag_depth: false,
        discard: false,
        interp: None,
    });
    // Vertices on an ellipse; window x and y = (NDC + 1) * 8.
    let ndc = |i: usize| {
        let a = i as f32 * 0.7;
        [a.cos() * 0.8, a.sin() * 0.7]
    };
    let win = |p: [f32; 2]| [(p[0] + 1.0) * 8.0, (p[1] + 1.0) * 8.0];
    let verts: Vec<f32> = (0..16)
        .flat_map(|i| {
            let [x, y] = ndc(i);
            [x, y, 0.0, 1.0]
        })
        .collect();
    let draws = if tess {
        // Two patches of 4 vertices each: isolines at v = 0, 1/3, 2/3
        // across p0 + u (p1 - p0) + v (p2 - p0).
        vec![
            DrawStartCountBias {
                start: 0,
                count: 8,
                index_bias: 0,
            },
            DrawStartCountBias {
                start: 5,
                count: 8,
                index_bias: 0,
            },
        ]
    } else {
        // Lines (3, 4), (5, 6) (vertex 7 is left over), then (1, 2) to
        // (11, 12).
        vec![
            DrawStartCountBias {
                start: 3,
                count: 5,
                index_bias: 0,
            },
            DrawStartCountBias {
                start: 1,
                count: 12,
                index_bias: 0,
            },
        ]
    };
    // The segments every lit pixel must be near: for tessellation, the
    // edges of each patch's parallelogram (its isolines lie inside).
    let mut segments: Vec<([f32; 2], [f32; 2])> = Vec::new();
    let mut inside: Vec<[[f32; 2]; 3]> = Vec::new();
    for d in &draws {
        let s = d.start as usize;
        if tess {
            for patch in 0..(d.count / 4) as usize {
                let p = |k: usize| win(ndc(s + 4 * patch + k));
                let (p0, p1, p2) = (p(0), p(1), p(2));
                inside.push([p0, p1, p2]);
                let p3 = [p1[0] + p2[0] - p0[0], p1[1] + p2[1] - p0[1]];
                segments.extend([(p0, p1), (p1, p3), (p3, p2), (p2, p0)]);
            }
        } else {
            for l in 0..(d.count / 2) as usize {
                segments.push((win(ndc(s + 2 * l)), win(ndc(s + 2 * l + 1))));
            }
        }
    }
    // Within the parallelogram p0 + u e1 + v e2 (u, v in [0, 1]).
    let in_patch = |x: u32, y: u32, [p0, p1, p2]: [[f32; 2]; 3]| {
        let (e1, e2) = (
            [p1[0] - p0[0], p1[1] - p0[1]],
            [p2[0] - p0[0], p2[1] - p0[1]],
        );
        let det = e1[0] * e2[1] - e1[1] * e2[0];
        if det.abs() < 1e-6 {
            return false;
        }
        let q = [x as f32 + 0.5 - p0[0], y as f32 + 0.5 - p0[1]];
        let u = (q[0] * e2[1] - q[1] * e2[0]) / det;
        let v = (e1[0] * q[1] - e1[1] * q[0]) / det;
        (0.0..=1.0).contains(&u) && (0.0..=1.0).contains(&v)
    };
    let mut images = Vec::new();
    for _ in 0..4 {
        let mut e = env_with(ctx, |_| {})?;
        let colors = reduced_setup(
            &mut e,
            Format::R32Float,
            samples,
            None,
            1,
            (&vs, &fs),
            &verts,
        )?;
        // Position and the attribute (location 1) from the same vertices.
        crate::harness::bind_position_and_attribute(&mut e, 16)?;
        if tess {
            let tes = tes_text(&TessCfg {
                mode: TesMode::Isolines,
                spacing: "equal",
                cw: false,
                point_mode: false,
                tcs_level: Some(3),
                writes: 7,
                point_size: None,
            });
            let c = &mut e.ctx;
            let tc = step(
                "tcs",
                c.create_tcs_state(&shader(ShaderStage::TessCtrl, &tcs_text(3))?),
            )?;
            let te = step(
                "tes",
                c.create_tes_state(&shader(ShaderStage::TessEval, &tes)?),
            )?;
            step("bind tcs", c.bind_tcs_state(Some(tc)))?;
            step("bind tes", c.bind_tes_state(Some(te)))?;
            step("patch vertices", c.set_patch_vertices(4))?;
        } else {
            let gs = gs_text(&GsCfg {
                input: GsIn::Lines,
                output: "line_strip",
                passes: 7,
                copies: 1,
                point_size: None,
            });
            let g = step(
                "gs",
                e.ctx.create_gs_state(&shader(ShaderStage::Geometry, &gs)?),
            )?;
            step("bind gs", e.ctx.bind_gs_state(Some(g)))?;
        }
        reduced_rasterizer(&mut e, |r| {
            r.line_smooth = true;
            r.line_rectangular = true;
            r.multisample = samples > 1;
        })?;
        clear_all(&mut e, ClearFlags::COLOR0)?;
        let mode = if tess {
            PrimType::Patches
        } else {
            PrimType::Lines
        };
        reduced_draws(&mut e, mode, &draws)?;
        let single = if samples > 1 {
            let t = ResourceTemplate::texture_2d(Format::R32Float, W, H, BindFlags::RENDER_TARGET);
            let resolved = e.texture(&t)?;
            let surf = |r: &Resource| pipe_core::blit::BlitSurface {
                resource: r.clone(),
                level: 0,
                bx: PipeBox::rect(0, 0, W, H),
                format: Format::R32Float,
            };
            let info = crate::harness::blit_info(surf(&resolved), surf(&colors[0]));
            step("blit (resolve)", e.ctx.blit(&info))?;
            resolved
        } else {
            colors[0].clone()
        };
        images.push(e.read_texture(&single, 0, &PipeBox::rect(0, 0, W, H))?);
    }
    let texel = |img: &[u8], i: usize| {
        f32::from_le_bytes([img[4 * i], img[4 * i + 1], img[4 * i + 2], img[4 * i + 3]])
    };
    for (run, img) in images.iter().enumerate() {
        if img != &images[0] {
            let i = (0..(W * H) as usize)
                .find(|&i| img[4 * i..4 * i + 4] != images[0][4 * i..4 * i + 4])
                .unwrap_or(0);
            return Err(Outcome::fail(format!(
                "run {run} drew other bytes than run 0: pixel ({}, {}) is {} there, {} in run 0",
                i % W as usize,
                i / W as usize,
                texel(img, i),
                texel(&images[0], i)
            )));
        }
        let mut lit = 0;
        for y in 0..H {
            for x in 0..W {
                let i = (y * W + x) as usize;
                if img[4 * i..4 * i + 4] == [0; 4] {
                    continue;
                }
                lit += 1;
                let near = segments.iter().any(|&(a, b)| near_segment(x, y, a, b, 2.0))
                    || inside.iter().any(|&t| in_patch(x, y, t));
                if !near {
                    return Err(Outcome::fail(format!(
                        "run {run}: pixel ({x}, {y}) is {}, more than 2 pixels from every line",
                        texel(img, i)
                    )));
                }
            }
        }
        if lit == 0 {
            return Err(Outcome::fail(format!("run {run} drew nothing")));
        }
    }
    Ok(())
}

macro_rules! smooth_lines_cases {
    ($($name:literal => $tess:literal, $samples:literal),+ $(,)?) => {$(
        const _: () = {
            fn run(ctx: &mut TestContext) -> Outcome {
                Outcome::from_result(smooth_lines_from_geometry(ctx, $tess, $samples))
            }
            test_case!(
                name = concat!("pipe.draw.state_fuzz.smooth_lines_from_geometry.", $name),
                run
            );
        };
    )+};
}

smooth_lines_cases!(
    "gs" => false, 1,
    "tess" => true, 1,
    "gs.msaa" => false, 4,
    "tess.msaa" => true, 4,
);
