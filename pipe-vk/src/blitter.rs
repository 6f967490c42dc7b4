//! The shader blit: a blit drawn as a textured rectangle, for what no
//! transfer command can do (Mesa's `util_blitter`, as Zink uses it).
//!
//! Design
//! ------
//! `crate::blit` records `vkCmdCopyImage`/`vkCmdBlitImage`/
//! `vkCmdResolveImage` where they give exactly the Gallium result. Some
//! blits have no transfer command: channel masks, alpha blending, window
//! rectangles, a scissor that clips a scaled blit, conversions the
//! transfer commands do not make (an sRGB view of a UNORM image, emulated
//! formats such as L8 or A8), single-sampled to multisampled, depth
//! between different formats, multisampled depth. Those are drawn, as
//! `util_blitter_blit_generic` does:
//!
//! - **State.** The blit binds its own CSOs (vertex and fragment shader,
//!   blend with the colour mask and optional alpha blending,
//!   depth-stencil-alpha, rasterizer with the scissor test, vertex
//!   elements, sampler), vertex buffer, sampler views, framebuffer,
//!   viewport and scissor directly in the context's bound state, draws
//!   with `do_draw_vbo`, and puts back exactly what it changed afterwards,
//!   also when a step fails ([`Saved`]; `util_blitter_save_*` and
//!   `util_blitter_restore_*`). Inlinable constants and the sample count
//!   for sample shading are cleared during the blit so that they do not
//!   select a shader variant.
//! - **CSOs** are created once per context and kept in [`Blitter`] (the
//!   one field this module adds to `VkContext`); CSO handles are
//!   hash-consed and reference counted, so holding them keeps them alive
//!   whatever the frontend creates and deletes. A handle that was deleted
//!   after all (a frontend deleting more often than it created) is created
//!   again.
//! - **Geometry.** One rectangle per destination layer, a 4-vertex
//!   triangle strip from a small user vertex buffer (position and texture
//!   coordinate per corner, as `util_blitter`'s `blitter_set_rectangle` /
//!   `blitter_set_texcoords`). The rectangle is the destination box; its
//!   corners carry the source box's corners (flips included), so the
//!   interpolated coordinate at a pixel centre is the Gallium sample
//!   point `s0 + (x + 0.5 - d0) * (s1 - s0) / (d1 - d0)`. Coordinates are
//!   normalized by the source level's size for sampling (`txl`, lod 0, on
//!   a view of the one source level, CLAMP_TO_EDGE, NEAREST or LINEAR per
//!   `info.filter`; integers, depth/stencil and unscaled blits always
//!   NEAREST, as `util_blitter` does: at an exact texel centre LINEAR is
//!   NEAREST, but interpolated coordinates are not exact on all GPUs) and left
//!   in texels for `txf_ms`.
//! - **Layers.** Destination layer (or slice) `i` of `n` samples source
//!   layer `z0 + floor((i + 0.5) * depth / n)` through a view of that one
//!   layer; a 3D source is sampled at the normalized slice coordinate
//!   `(z0 + (i + 0.5) * depth / n) / level_depth` (so 3D → 3D scales in z,
//!   LINEAR filtering between slices).
//! - **Scissor and window rectangles.** The destination box, clipped by
//!   `info.scissor`, is split into disjoint rectangles that pass the
//!   window rectangles (lavapipe has no `VK_EXT_discard_rectangles`; they
//!   are lowered here): the box is cut along every rectangle edge into a
//!   grid, and the cells inside an included rectangle (include mode) or
//!   outside every rectangle (exclude mode) are drawn, one draw per row
//!   run, each with its own scissor. Disjoint pieces matter for alpha
//!   blending: no pixel is blended twice.
//! - **Colour.** The fragment shader samples the source as
//!   `info.src.format` (the sampler view applies sRGB decoding and the
//!   emulation swizzles, so L8 reads (L, L, L, 1)) and writes the
//!   destination surface in `info.dst.format` (an sRGB surface encodes).
//!   Emulated destinations that Vulkan cannot render as such (luminance,
//!   luminance-alpha, intensity, red-alpha, and alpha formats without a
//!   Vulkan twin: L8, L8A8, I16, R8A8, A16, ...) are rendered through their
//!   storage format (R8, R8G8, ...) with the output swizzled into the
//!   stored channels and the mask remapped.
//!   Integer formats blit only to integer formats of the same signedness
//!   (GL makes any other mix an error).
//! - **Depth/stencil.** Depth is written with `FragDepth` from the sampled
//!   depth (depth test ALWAYS, writes on); stencil with `FragStencilRef`
//!   (`VK_EXT_shader_stencil_export`) through a stencil-only view, with
//!   the stencil test ALWAYS/REPLACE. Without the extension a stencil blit
//!   is `Unsupported` (`util_blitter`'s bit-by-bit fallback is not here).
//! - **Multisampling.** A single-sampled source into a multisampled
//!   destination replicates each pixel into every sample (rasterization
//!   covers all samples). A multisampled source into a single-sampled
//!   destination averages the samples for float formats and takes sample
//!   0 for integer and depth/stencil formats (`util_blitter`'s resolve
//!   shaders); such blits must be 1:1 in x and y. Multisampled to
//!   multisampled (same sample count) copies per sample with sample
//!   shading (`SampleId`).
//! - **3D destinations** are drawn slice by slice through surfaces that
//!   view the slices as 2D array layers (`view::create_surface`). A blit
//!   whose source and destination share a subresource samples a temporary
//!   copy of the source box.
//!
//! Every check (formats, features, usages, sample counts, layer counts)
//! runs before anything is recorded; failures are `PipeError::Unsupported`
//! naming the reason.

use std::sync::Arc;

use ash::vk;
use hashbrown::HashMap;
use pipe_core::blit::BlitInfo;
use pipe_core::cso::{
    BlendHandle, DepthStencilAlphaHandle, RasterizerHandle, SamplerHandle, ShaderHandle,
    VertexElementsHandle,
};
use pipe_core::draw::{DrawInfo, DrawStartCountBias, PrimType};
use pipe_core::flags::BlitMask;
use pipe_core::format::{Colorspace, Swizzle};
use pipe_core::resource::{BindFlags, PipeBox, ResourceFlags, Target};
use pipe_core::shader::{ShaderCode, ShaderState, StreamOutputInfo};
use pipe_core::state::*;
use pipe_core::view::{SamplerView, SamplerViewTemplate, Surface, SurfaceTemplate, ViewRange};
use pipe_core::{Context, Format, PipeError, PipeResult, Resource};

use crate::context::VkContext;
use crate::format::{emulated, vk_format, vk_format_or_emulated, EmulationKind};
use crate::resource::vk_resource;

fn unsupported(what: impl std::fmt::Display) -> PipeError {
    PipeError::unsupported(format!("shader blit: {what}"))
}

/// The blitter's cached CSOs (one per context).
#[derive(Default)]
pub struct Blitter {
    vs: Option<ShaderHandle>,
    /// Fragment shaders by their generated source text.
    fs: HashMap<String, ShaderHandle>,
    /// Blend states by (colour mask, alpha blending).
    blend: HashMap<(u8, bool), BlendHandle>,
    /// Depth-stencil-alpha states by (write depth, write stencil).
    dsa: HashMap<(bool, bool), DepthStencilAlphaHandle>,
    rasterizer: Option<RasterizerHandle>,
    velems: Option<VertexElementsHandle>,
    samplers: HashMap<bool, SamplerHandle>,
    /// Blits drawn (see `VkContext::shader_blit_count`).
    blits: u64,
}

/// Box corners of one side of a blit per axis (x, y, z): `lo` inclusive,
/// `hi` exclusive; `lo > hi` flips the axis (sources only). z counts
/// layers, or slices of a 3D level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Corners {
    pub lo: [i64; 3],
    pub hi: [i64; 3],
}

impl Corners {
    /// From a blit box.
    pub fn of(b: &PipeBox) -> Corners {
        let lo = [i64::from(b.x), i64::from(b.y), i64::from(b.z)];
        Corners {
            lo,
            hi: [
                lo[0] + i64::from(b.width),
                lo[1] + i64::from(b.height),
                lo[2] + i64::from(b.depth),
            ],
        }
    }

    fn min(&self, a: usize) -> i64 {
        self.lo[a].min(self.hi[a])
    }

    fn extent(&self, a: usize) -> i64 {
        (self.hi[a] - self.lo[a]).abs()
    }

    /// The same box moved by `-d` on each axis.
    fn moved(&self, d: [i64; 3]) -> Corners {
        Corners {
            lo: [self.lo[0] - d[0], self.lo[1] - d[1], self.lo[2] - d[2]],
            hi: [self.hi[0] - d[0], self.hi[1] - d[1], self.hi[2] - d[2]],
        }
    }
}

/// The texture dimensionality the fragment shader samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dim {
    D1,
    D2,
    D3,
}

/// How the fragment shader fetches the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fetch {
    /// `txl` at lod 0 with normalized coordinates.
    Sample,
    /// `txf_ms` of `n` samples, averaged (float formats).
    Average(u32),
    /// `txf_ms` of sample 0.
    Sample0,
    /// `txf_ms` of the fragment's own sample (`SampleId`).
    PerSample,
}

/// What the fragment shader writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Output {
    /// Colour of base type `ty`, swizzled into the stored components
    /// (`swizzle[c]`: the sampled channel written to component c).
    Color {
        ty: spirv_gen::ir::BaseType,
        swizzle: [u8; 4],
    },
    Depth,
    Stencil,
    DepthStencil,
}

/// The generated fragment shader's description.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FsSpec {
    dim: Dim,
    fetch: Fetch,
    output: Output,
}

fn base_name(b: spirv_gen::ir::BaseType) -> (&'static str, &'static str) {
    use spirv_gen::ir::BaseType as B;
    match b {
        B::Int => ("i32", "int"),
        B::Uint => ("u32", "uint"),
        _ => ("f32", "float"),
    }
}

/// Builds fragment shader text one SSA value at a time.
struct Text {
    body: String,
    next: u32,
}

impl Text {
    fn val(&mut self, ty: &str, expr: &str) -> String {
        let v = format!("%{}", self.next);
        self.next += 1;
        self.body.push_str(&format!("  {v} : {ty} = {expr}\n"));
        v
    }

    fn stmt(&mut self, s: &str) {
        self.body.push_str(&format!("  {s}\n"));
    }

    /// Fetches texture `var` (sampled type `t`), given the coordinate
    /// input value `tc`.
    fn fetch(&mut self, spec: &FsSpec, var: &str, t: &str, tc: &str) -> String {
        let texel = format!("{t}x4");
        match spec.fetch {
            Fetch::Sample => {
                let (cty, sw) = match spec.dim {
                    Dim::D1 => ("f32", "x"),
                    Dim::D2 => ("f32x2", "xy"),
                    Dim::D3 => ("f32x3", "xyz"),
                };
                let c = self.val(cty, &format!("swizzle {tc}, {sw}"));
                let lod = self.val("f32", "const 0.0");
                self.val(&texel, &format!("txl @{var}, coord={c}, lod={lod}"))
            }
            Fetch::Average(_) | Fetch::Sample0 | Fetch::PerSample => {
                let xy = self.val("f32x2", &format!("swizzle {tc}, xy"));
                let fl = self.val("f32x2", &format!("ffloor {xy}"));
                let ic = self.val("i32x2", &format!("f2i {fl}"));
                match spec.fetch {
                    Fetch::PerSample => {
                        let s = self.val("i32", "load @sid");
                        self.val(&texel, &format!("txf_ms @{var}, coord={ic}, ms_index={s}"))
                    }
                    Fetch::Average(n) if n > 1 => {
                        let mut sum: Option<String> = None;
                        for k in 0..n {
                            let s = self.val("i32", &format!("const {k}"));
                            let v = self
                                .val(&texel, &format!("txf_ms @{var}, coord={ic}, ms_index={s}"));
                            sum = Some(match sum {
                                None => v,
                                Some(acc) => self.val(&texel, &format!("fadd {acc}, {v}")),
                            });
                        }
                        let w = 1.0 / n as f32;
                        let scale = self.val(&texel, &format!("const {w:?}, {w:?}, {w:?}, {w:?}"));
                        let acc = sum.unwrap_or_default();
                        self.val(&texel, &format!("fmul {acc}, {scale}"))
                    }
                    _ => {
                        let s = self.val("i32", "const 0");
                        self.val(&texel, &format!("txf_ms @{var}, coord={ic}, ms_index={s}"))
                    }
                }
            }
        }
    }
}

/// The fragment shader of a blit, as spirv-gen text.
fn fs_text(spec: &FsSpec) -> String {
    let ms = !matches!(spec.fetch, Fetch::Sample);
    let dim = match (spec.dim, ms) {
        (_, true) => "2d ms",
        (Dim::D1, false) => "1d",
        (Dim::D2, false) => "2d",
        (Dim::D3, false) => "3d",
    };
    let mut head = String::from("shader fragment\nin @tc : f32x4 location=0\n");
    if spec.fetch == Fetch::PerSample {
        head.push_str("in @sid : i32 builtin=sample_id\n");
    }
    let mut t = Text {
        body: String::new(),
        next: 0,
    };
    let tc = t.val("f32x4", "load @tc");
    match spec.output {
        Output::Color { ty, swizzle } => {
            let (sty, sname) = base_name(ty);
            head.push_str(&format!("out @frag : {sty}x4 location=0\n"));
            head.push_str(&format!("texture @t slot=0 dim={dim} sampled={sname}\n"));
            let v = t.fetch(spec, "t", sty, &tc);
            let v = if swizzle == [0, 1, 2, 3] {
                v
            } else {
                let letters: String = swizzle
                    .iter()
                    .map(|&c| ['x', 'y', 'z', 'w'][usize::from(c & 3)])
                    .collect();
                t.val(&format!("{sty}x4"), &format!("swizzle {v}, {letters}"))
            };
            t.stmt(&format!("store @frag, {v}"));
        }
        Output::Depth | Output::DepthStencil | Output::Stencil => {
            let depth = spec.output != Output::Stencil;
            let stencil = spec.output != Output::Depth;
            if depth {
                head.push_str("out @depth : f32 builtin=frag_depth\n");
                head.push_str(&format!("texture @z slot=0 dim={dim} sampled=float\n"));
                let v = t.fetch(spec, "z", "f32", &tc);
                let d = t.val("f32", &format!("swizzle {v}, x"));
                t.stmt(&format!("store @depth, {d}"));
            }
            if stencil {
                let slot = if depth { 1 } else { 0 };
                head.push_str("out @sref : i32 builtin=frag_stencil_ref\n");
                head.push_str(&format!("texture @s slot={slot} dim={dim} sampled=uint\n"));
                let v = t.fetch(spec, "s", "u32", &tc);
                let s = t.val("u32", &format!("swizzle {v}, x"));
                let i = t.val("i32", &format!("bitcast {s}"));
                t.stmt(&format!("store @sref, {i}"));
            }
        }
    }
    format!("{head}fn main {{\n{}}}\n", t.body)
}

const VS_TEXT: &str = "shader vertex
in @pos : f32x4 location=0
in @tc : f32x4 location=1
out @gl_pos : f32x4 builtin=position
out @vtc : f32x4 location=0
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
  %1 : f32x4 = load @tc
  store @vtc, %1
}
";

fn shader_state(stage: ShaderStage, text: &str) -> PipeResult<ShaderState> {
    let ir = spirv_gen::text::parse(text)
        .map_err(|e| PipeError::invalid(format!("shader blit: generated shader: {e}")))?;
    Ok(ShaderState {
        stage,
        code: ShaderCode::Ir(Arc::new(ir)),
        stream_output: StreamOutputInfo::default(),
    })
}

/// Colour channels (R, G, B, A bits) a format stores.
fn stored_channels(f: Format) -> u8 {
    let mut m = 0;
    for (i, s) in f.desc().swizzle.iter().enumerate() {
        if s.channel().is_some() {
            m |= 1 << i;
        }
    }
    m
}

/// How a colour destination format is rendered: the surface format, and
/// for each component of it the Gallium channel it stores (`None`: not
/// stored). Emulated formats Vulkan cannot render as such render through
/// their storage format with the channels moved.
fn color_target(f: Format) -> Option<(Format, [Option<u8>; 4])> {
    let identity = [Some(0), Some(1), Some(2), Some(3)];
    if vk_format(f).is_some() {
        return Some((f, identity));
    }
    let e = emulated(f)?;
    if e.kind == EmulationKind::VoidAlpha {
        return Some((f, identity));
    }
    if !matches!(
        e.kind,
        EmulationKind::Alpha
            | EmulationKind::Luminance
            | EmulationKind::LuminanceAlpha
            | EmulationKind::Intensity
            | EmulationKind::RedAlpha
    ) {
        return None;
    }
    let storage = Format::all().find(|p| vk_format(*p) == Some(e.vk_format))?;
    let mut map = [None; 4];
    for (c, slot) in map.iter_mut().enumerate() {
        let comp = [Swizzle::X, Swizzle::Y, Swizzle::Z, Swizzle::W][c];
        *slot = e.swizzle.iter().position(|s| *s == comp).map(|i| i as u8);
    }
    Some((storage, map))
}

/// The stencil-only view format of a depth/stencil format.
fn stencil_view(f: Format) -> Option<Format> {
    Some(match f {
        Format::S8Uint => Format::S8Uint,
        Format::Z24UnormS8Uint | Format::X24S8Uint => Format::X24S8Uint,
        Format::S8UintZ24Unorm | Format::S8X24Uint => Format::S8X24Uint,
        Format::Z32FloatS8X24Uint | Format::X32S8X24Uint => Format::X32S8X24Uint,
        _ => return None,
    })
}

/// The rectangles (x0, y0, x1, y1) of `base` that pass the window
/// rectangles, disjoint: `base` is cut along every rectangle edge and the
/// cells inside an included rectangle (`include`) or outside every
/// rectangle (`!include`) are kept, merged into runs along x.
pub fn pass_rects(base: [i64; 4], include: bool, rects: &[ScissorState]) -> Vec<[i64; 4]> {
    let [x0, y0, x1, y1] = base;
    if x0 >= x1 || y0 >= y1 {
        return Vec::new();
    }
    let clipped: Vec<[i64; 4]> = rects
        .iter()
        .map(|r| {
            [
                i64::from(r.minx).clamp(x0, x1),
                i64::from(r.miny).clamp(y0, y1),
                i64::from(r.maxx).clamp(x0, x1),
                i64::from(r.maxy).clamp(y0, y1),
            ]
        })
        .filter(|r| r[0] < r[2] && r[1] < r[3])
        .collect();
    if clipped.is_empty() {
        return if include { Vec::new() } else { vec![base] };
    }
    let cuts = |lo: i64, hi: i64, a: usize, b: usize| {
        let mut v: Vec<i64> = vec![lo, hi];
        for r in &clipped {
            v.push(r[a]);
            v.push(r[b]);
        }
        v.sort_unstable();
        v.dedup();
        v
    };
    let xs = cuts(x0, x1, 0, 2);
    let ys = cuts(y0, y1, 1, 3);
    let mut out = Vec::new();
    for yw in ys.windows(2) {
        let (cy0, cy1) = (yw[0], yw[1]);
        let mut run: Option<(i64, i64)> = None;
        for xw in xs.windows(2) {
            let (cx0, cx1) = (xw[0], xw[1]);
            let inside = clipped
                .iter()
                .any(|r| r[0] <= cx0 && cx1 <= r[2] && r[1] <= cy0 && cy1 <= r[3]);
            if inside == include {
                run = Some(match run {
                    Some((a, _)) => (a, cx1),
                    None => (cx0, cx1),
                });
            } else if let Some((a, b)) = run.take() {
                out.push([a, cy0, b, cy1]);
            }
        }
        if let Some((a, b)) = run {
            out.push([a, cy0, b, cy1]);
        }
    }
    out
}

fn u16_of(v: i64) -> PipeResult<u16> {
    u16::try_from(v).map_err(|_| unsupported("coordinates beyond 65535"))
}

fn u32_of(v: i64) -> PipeResult<u32> {
    u32::try_from(v).map_err(|_| PipeError::invalid("shader blit: coordinate out of range"))
}

fn i32_of(v: i64) -> PipeResult<i32> {
    i32::try_from(v).map_err(|_| PipeError::invalid("shader blit: coordinate out of range"))
}

/// One destination layer's draw.
struct LayerDraw {
    surface: Surface,
    /// Sampler views for slots 0 and 1 of the fragment stage.
    views: [Option<SamplerView>; 2],
    vertices: Arc<[u8]>,
}

/// A `resource_copy_region` to run before or after the draws.
struct CopyOp {
    dst: Resource,
    dst_level: u32,
    at: [u32; 3],
    src: Resource,
    src_level: u32,
    bx: PipeBox,
}

/// Everything a shader blit records, prepared before recording.
struct Job {
    pre: Vec<CopyOp>,
    layers: Vec<LayerDraw>,
    /// Scissor rectangles in framebuffer coordinates.
    rects: Vec<ScissorState>,
    fb: (u16, u16, u8),
    zs: bool,
    fs: ShaderHandle,
    blend: Option<BlendHandle>,
    dsa: Option<DepthStencilAlphaHandle>,
    sampler: SamplerHandle,
}

/// The context state a shader blit changes (`util_blitter_save_*`).
struct Saved {
    blend: Option<BlendHandle>,
    rasterizer: Option<RasterizerHandle>,
    dsa: Option<DepthStencilAlphaHandle>,
    velems: Option<VertexElementsHandle>,
    shaders: [Option<ShaderHandle>; 5],
    fs_samplers: [Option<SamplerHandle>; MAX_SAMPLERS],
    fs_views: [Option<SamplerView>; 2],
    scissor: ScissorState,
    viewport: ViewportState,
    vertex_buffers: Vec<VertexBuffer>,
    framebuffer: FramebufferState,
    inlinable_vs: Vec<u32>,
    inlinable_fs: Vec<u32>,
    sample_mask: u32,
    min_samples: u32,
    /// Window rectangles apply to draws only; a blit brings its own.
    window_rects: (bool, Vec<ScissorState>),
}

const FS: usize = 4;

impl VkContext {
    /// Number of blits drawn by the shader blit so far (for tests).
    pub fn shader_blit_count(&self) -> u64 {
        self.blitter.blits
    }

    fn save_for_blit(&mut self) -> Saved {
        // Queries do not count the blitter's draws (u_blitter pauses them).
        self.queries_enter_internal();
        let fs_views = [0, 1].map(|i| self.views.get(FS).and_then(|v| v.get(i)).cloned().flatten());
        let b = self.bound_mut();
        Saved {
            blend: b.blend,
            rasterizer: b.rasterizer,
            dsa: b.dsa,
            velems: b.velems,
            shaders: b.shaders,
            fs_samplers: b.samplers[FS],
            fs_views,
            scissor: b.scissors[0],
            viewport: b.viewports[0],
            vertex_buffers: std::mem::take(&mut b.vertex_buffers),
            framebuffer: std::mem::take(&mut b.framebuffer),
            inlinable_vs: std::mem::take(&mut b.inlinable[ShaderStage::Vertex.index()]),
            inlinable_fs: std::mem::take(&mut b.inlinable[ShaderStage::Fragment.index()]),
            sample_mask: b.sample_mask,
            min_samples: b.min_samples,
            window_rects: std::mem::take(&mut b.window_rects),
        }
    }

    fn restore_after_blit(&mut self, s: Saved) {
        self.end_rendering();
        self.queries_leave_internal();
        if let Some(slots) = self.views.get_mut(FS) {
            for (i, v) in s.fs_views.into_iter().enumerate() {
                if let Some(slot) = slots.get_mut(i) {
                    *slot = v;
                }
            }
        }
        let b = self.bound_mut();
        b.blend = s.blend;
        b.rasterizer = s.rasterizer;
        b.dsa = s.dsa;
        b.velems = s.velems;
        b.shaders = s.shaders;
        b.samplers[FS] = s.fs_samplers;
        b.scissors[0] = s.scissor;
        b.viewports[0] = s.viewport;
        b.vertex_buffers = s.vertex_buffers;
        b.framebuffer = s.framebuffer;
        b.inlinable[ShaderStage::Vertex.index()] = s.inlinable_vs;
        b.inlinable[ShaderStage::Fragment.index()] = s.inlinable_fs;
        b.sample_mask = s.sample_mask;
        b.min_samples = s.min_samples;
        b.window_rects = s.window_rects;
    }

    /// The blitter's vertex shader.
    fn blit_vs(&mut self) -> PipeResult<ShaderHandle> {
        if let Some(h) = self.blitter.vs {
            if self.shader_table().contains(h.cso) {
                return Ok(h);
            }
        }
        let h = self.create_vs_state(&shader_state(ShaderStage::Vertex, VS_TEXT)?)?;
        self.blitter.vs = Some(h);
        Ok(h)
    }

    fn blit_fs(&mut self, spec: &FsSpec) -> PipeResult<ShaderHandle> {
        let text = fs_text(spec);
        if let Some(h) = self.blitter.fs.get(&text).copied() {
            if self.shader_table().contains(h.cso) {
                return Ok(h);
            }
        }
        let h = self.create_fs_state(&shader_state(ShaderStage::Fragment, &text)?)?;
        self.blitter.fs.insert(text, h);
        Ok(h)
    }

    fn blit_blend(&mut self, mask: u8, blend: bool) -> PipeResult<BlendHandle> {
        if let Some(h) = self.blitter.blend.get(&(mask, blend)).copied() {
            if self.blend_table().contains(h) {
                return Ok(h);
            }
        }
        let mut state = BlendState {
            max_rt: 1,
            ..Default::default()
        };
        state.rt[0] = RtBlendState {
            blend_enable: blend,
            rgb_func: BlendFunc::Add,
            rgb_src_factor: if blend {
                BlendFactor::SrcAlpha
            } else {
                BlendFactor::One
            },
            rgb_dst_factor: if blend {
                BlendFactor::InvSrcAlpha
            } else {
                BlendFactor::Zero
            },
            alpha_func: BlendFunc::Add,
            alpha_src_factor: if blend {
                BlendFactor::SrcAlpha
            } else {
                BlendFactor::One
            },
            alpha_dst_factor: if blend {
                BlendFactor::InvSrcAlpha
            } else {
                BlendFactor::Zero
            },
            colormask: ColorMask::from_bits_truncate(mask),
        };
        let h = self.create_blend_state(&state)?;
        self.blitter.blend.insert((mask, blend), h);
        Ok(h)
    }

    fn blit_dsa(&mut self, depth: bool, stencil: bool) -> PipeResult<DepthStencilAlphaHandle> {
        if let Some(h) = self.blitter.dsa.get(&(depth, stencil)).copied() {
            if self.dsa_table().contains(h) {
                return Ok(h);
            }
        }
        let mut state = DepthStencilAlphaState {
            depth_enabled: depth,
            depth_writemask: depth,
            depth_func: CompareFunc::Always,
            ..Default::default()
        };
        if stencil {
            state.stencil[0] = StencilState {
                enabled: true,
                func: CompareFunc::Always,
                fail_op: StencilOp::Replace,
                zpass_op: StencilOp::Replace,
                zfail_op: StencilOp::Replace,
                valuemask: 0xff,
                writemask: 0xff,
            };
        }
        let h = self.create_depth_stencil_alpha_state(&state)?;
        self.blitter.dsa.insert((depth, stencil), h);
        Ok(h)
    }

    fn blit_rasterizer(&mut self) -> PipeResult<RasterizerHandle> {
        if let Some(h) = self.blitter.rasterizer {
            if self.rasterizer_table().contains(h) {
                return Ok(h);
            }
        }
        let state = RasterizerState {
            scissor: true,
            half_pixel_center: true,
            clip_halfz: true,
            depth_clip_near: true,
            depth_clip_far: true,
            multisample: true,
            line_width: 1.0,
            point_size: 1.0,
            ..Default::default()
        };
        let h = self.create_rasterizer_state(&state)?;
        self.blitter.rasterizer = Some(h);
        Ok(h)
    }

    fn blit_velems(&mut self) -> PipeResult<VertexElementsHandle> {
        if let Some(h) = self.blitter.velems {
            if self.velems_table().contains(h) {
                return Ok(h);
            }
        }
        let e = VertexElement {
            src_offset: 0,
            src_stride: 32,
            vertex_buffer_index: 0,
            dual_slot: false,
            src_format: Format::R32G32B32A32Float,
            instance_divisor: 0,
        };
        let h = self.create_vertex_elements_state(&[
            e,
            VertexElement {
                src_offset: 16,
                ..e
            },
        ])?;
        self.blitter.velems = Some(h);
        Ok(h)
    }

    fn blit_sampler(&mut self, linear: bool) -> PipeResult<SamplerHandle> {
        if let Some(h) = self.blitter.samplers.get(&linear).copied() {
            if self.sampler_table().contains(h) {
                return Ok(h);
            }
        }
        let f = if linear {
            TexFilter::Linear
        } else {
            TexFilter::Nearest
        };
        let state = SamplerState {
            wrap_s: TexWrap::ClampToEdge,
            wrap_t: TexWrap::ClampToEdge,
            wrap_r: TexWrap::ClampToEdge,
            min_img_filter: f,
            mag_img_filter: f,
            min_mip_filter: MipFilter::None,
            ..Default::default()
        };
        let h = self.create_sampler_state(&state)?;
        self.blitter.samplers.insert(linear, h);
        Ok(h)
    }

    fn format_features(&self, f: vk::Format) -> vk::FormatFeatureFlags {
        let dev = self.dev();
        // SAFETY: the physical device belongs to this instance; the query has
        // no other preconditions.
        unsafe {
            dev.instance
                .raw
                .get_physical_device_format_properties(dev.physical.raw, f)
        }
        .optimal_tiling_features
    }

    /// Draws `info` from the source box `s` into the destination box `d`
    /// (see the module documentation). `s` and `d` are `info`'s boxes with
    /// 1D images' y range set to 0..1.
    pub(crate) fn shader_blit(
        &mut self,
        info: &BlitInfo,
        s: Corners,
        d: Corners,
    ) -> PipeResult<()> {
        let Some(job) = self.prepare_blit(info, s, d)? else {
            return Ok(());
        };
        for c in &job.pre {
            self.do_resource_copy_region(&c.dst, c.dst_level, c.at, &c.src, c.src_level, &c.bx)?;
        }
        let vs = self.blit_vs()?;
        let rast = self.blit_rasterizer()?;
        let velems = self.blit_velems()?;
        self.end_rendering();
        let saved = self.save_for_blit();
        let r = self.draw_blit(&job, vs, rast, velems);
        self.restore_after_blit(saved);
        r?;
        self.blitter.blits += 1;
        self.debug_message(pipe_core::state::DebugType::Fallback, 4, || {
            "blit drawn with shaders (no transfer command does it)".to_string()
        });
        Ok(())
    }

    fn draw_blit(
        &mut self,
        job: &Job,
        vs: ShaderHandle,
        rast: RasterizerHandle,
        velems: VertexElementsHandle,
    ) -> PipeResult<()> {
        let (w, h, samples) = job.fb;
        {
            let b = self.bound_mut();
            b.blend = job.blend;
            b.rasterizer = Some(rast);
            b.dsa = job.dsa;
            b.velems = Some(velems);
            b.shaders = [Some(vs), None, None, None, Some(job.fs)];
            b.samplers[FS] = [None; MAX_SAMPLERS];
            b.samplers[FS][0] = Some(job.sampler);
            b.samplers[FS][1] = Some(job.sampler);
            b.viewports[0] = ViewportState {
                scale: [f32::from(w) / 2.0, f32::from(h) / 2.0, 1.0],
                translate: [f32::from(w) / 2.0, f32::from(h) / 2.0, 0.0],
                swizzle: Default::default(),
            };
            b.sample_mask = !0;
            b.min_samples = 1;
        }
        let draw = DrawInfo {
            mode: PrimType::TriangleStrip,
            ..DrawInfo::default()
        };
        let strip = [DrawStartCountBias {
            start: 0,
            count: 4,
            index_bias: 0,
        }];
        for layer in &job.layers {
            self.end_rendering();
            {
                let b = self.bound_mut();
                b.framebuffer = FramebufferState {
                    width: w,
                    height: h,
                    layers: 1,
                    samples,
                    cbufs: if job.zs {
                        Vec::new()
                    } else {
                        vec![Some(layer.surface.clone())]
                    },
                    zsbuf: job.zs.then(|| layer.surface.clone()),
                    resolve: None,
                };
                b.vertex_buffers = vec![VertexBuffer {
                    buffer: Some(VertexBufferSource::User(layer.vertices.clone())),
                    buffer_offset: 0,
                }];
            }
            if let Some(slots) = self.views.get_mut(FS) {
                for (i, v) in layer.views.iter().enumerate() {
                    if let Some(slot) = slots.get_mut(i) {
                        *slot = v.clone();
                    }
                }
            }
            for r in &job.rects {
                self.bound_mut().scissors[0] = *r;
                self.do_draw_vbo(&draw, 0, None, &strip)?;
            }
        }
        Ok(())
    }

    /// Checks a shader blit and creates what it needs; `None`: nothing to
    /// write.
    fn prepare_blit(&mut self, info: &BlitInfo, s: Corners, d: Corners) -> PipeResult<Option<Job>> {
        let (sres, dres) = (&info.src.resource, &info.dst.resource);
        let (sd, dd) = (sres.desc().clone(), dres.desc().clone());
        let (sf, df) = (info.src.format, info.dst.format);
        let s3d = sd.target == Target::Texture3D;
        let d3d = dd.target == Target::Texture3D;
        if (0..3).any(|a| s.extent(a) == 0 || d.extent(a) == 0) {
            return Ok(None);
        }
        if (0..3).any(|a| d.lo[a] > d.hi[a]) || s.lo[2] > s.hi[2] {
            return Err(PipeError::invalid(
                "blit: flipped destination or source depth (flip the source x/y)",
            ));
        }
        if !(s3d && d3d) && s.extent(2) != d.extent(2) {
            return Err(unsupported(format!(
                "a blit between {} and {} layers",
                s.extent(2),
                d.extent(2)
            )));
        }
        if sf.desc().colorspace == Colorspace::Yuv || df.desc().colorspace == Colorspace::Yuv {
            return Err(unsupported("Y'CbCr formats"));
        }
        let (ns, nd) = (sd.samples(), dd.samples());
        let one_to_one = (0..2).all(|a| s.extent(a) == d.extent(a));
        let caps = pipe_core::Screen::caps(&**self.screen()).clone();

        // What is written, and how.
        let zs = info.mask.intersects(BlitMask::ZS);
        let (output, surface_format, colormask, src_formats, filter) = if zs {
            let z = info.mask.contains(BlitMask::Z) && sf.is_depth() && df.is_depth();
            let st = info.mask.contains(BlitMask::S) && sf.has_stencil() && df.has_stencil();
            if !z && !st {
                return Ok(None);
            }
            if st && !caps.shader_stencil_export {
                return Err(unsupported(
                    "a stencil blit no transfer command can do needs VK_EXT_shader_stencil_export",
                ));
            }
            let sview = if st {
                Some(
                    stencil_view(sf)
                        .ok_or_else(|| unsupported(format!("no stencil-only view of {sf}")))?,
                )
            } else {
                None
            };
            let (output, views) = match (z, sview) {
                (true, Some(sv)) => (Output::DepthStencil, [Some(sf), Some(sv)]),
                (true, None) => (Output::Depth, [Some(sf), None]),
                (false, Some(sv)) => (Output::Stencil, [Some(sv), None]),
                (false, None) => return Ok(None),
            };
            (output, df, 0u8, views, TexFilter::Nearest)
        } else {
            if sf.is_depth_or_stencil() || df.is_depth_or_stencil() {
                return Err(unsupported("a colour blit of a depth/stencil format"));
            }
            let class = |f: Format| {
                if f.is_pure_uint() {
                    spirv_gen::ir::BaseType::Uint
                } else if f.is_pure_sint() {
                    spirv_gen::ir::BaseType::Int
                } else {
                    spirv_gen::ir::BaseType::Float
                }
            };
            if class(sf) != class(df) {
                return Err(unsupported(format!(
                    "a blit from {sf} to {df} (integer formats blit only to integer formats of the same signedness)"
                )));
            }
            let (target_format, map) = color_target(df)
                .ok_or_else(|| unsupported(format!("{df} cannot be rendered to")))?;
            let want = (info.mask & BlitMask::RGBA).bits() as u8 & stored_channels(df);
            let mut mask = 0u8;
            let mut swizzle = [0u8, 1, 2, 3];
            for (c, (sw, ch)) in swizzle.iter_mut().zip(map).enumerate() {
                if let Some(ch) = ch {
                    *sw = ch;
                    if want & (1 << ch) != 0 {
                        mask |= 1 << c;
                    }
                }
            }
            if mask == 0 {
                return Ok(None);
            }
            let ty = class(sf);
            // An unscaled blit samples every pixel at a source texel
            // centre, where LINEAR equals NEAREST in exact arithmetic; the
            // interpolated coordinate is not exact on every GPU (NVIDIA
            // lands a fraction of 1/256 off the centre and mixes in the
            // neighbours), so it is sampled NEAREST, as
            // `util_blitter_blit_generic` does (`!is_scaled`).
            let unscaled = (0..3).all(|a| s.extent(a) == d.extent(a));
            let filter = if ty == spirv_gen::ir::BaseType::Float && !unscaled {
                info.filter
            } else {
                TexFilter::Nearest
            };
            (
                Output::Color { ty, swizzle },
                target_format,
                mask,
                [Some(sf), None],
                filter,
            )
        };
        let fetch = match (ns, nd) {
            (1, _) => Fetch::Sample,
            (a, b) if b > 1 => {
                if a != b {
                    return Err(unsupported(format!("a blit from {a} to {b} samples")));
                }
                if !caps.sample_shading {
                    return Err(unsupported(
                        "a multisampled to multisampled blit needs sample shading",
                    ));
                }
                Fetch::PerSample
            }
            (a, _) => {
                if !one_to_one {
                    return Err(unsupported(
                        "a scaled blit from a multisampled image (resolve it first)",
                    ));
                }
                match output {
                    Output::Color {
                        ty: spirv_gen::ir::BaseType::Float,
                        ..
                    } => Fetch::Average(a),
                    _ => Fetch::Sample0,
                }
            }
        };
        if fetch != Fetch::Sample
            && (s3d || matches!(sd.target, Target::Texture1D | Target::Texture1DArray))
        {
            return Err(unsupported("a multisampled source that is not 2D"));
        }
        let dim = match sd.target {
            Target::Texture3D => Dim::D3,
            Target::Texture1D | Target::Texture1DArray => Dim::D1,
            _ => Dim::D2,
        };
        if d3d && zs {
            return Err(unsupported("a depth/stencil blit into a 3D image"));
        }

        // Features and usages.
        let sobj = vk_resource(sres)?.obj();
        let dobj = vk_resource(dres)?.obj();
        let simg = *sobj
            .image()
            .ok_or_else(|| PipeError::invalid("blit: the source is a buffer"))?;
        let dimg = *dobj
            .image()
            .ok_or_else(|| PipeError::invalid("blit: the destination is a buffer"))?;
        if !simg.usage.contains(vk::ImageUsageFlags::SAMPLED) {
            return Err(unsupported(format!("{} cannot be sampled", sd.format)));
        }
        for f in src_formats.iter().flatten() {
            let (vf, _) = crate::view::view_format(*f, pipe_core::view::SWIZZLE_IDENTITY)
                .map_err(|_| unsupported(format!("{f} cannot be sampled")))?;
            let feats = self.format_features(vf);
            if !feats.contains(vk::FormatFeatureFlags::SAMPLED_IMAGE) {
                return Err(unsupported(format!("{f} cannot be sampled")));
            }
            if filter == TexFilter::Linear
                && fetch == Fetch::Sample
                && !feats.contains(vk::FormatFeatureFlags::SAMPLED_IMAGE_FILTER_LINEAR)
            {
                return Err(unsupported(format!("{f} cannot be filtered linearly")));
            }
        }
        let dvk = vk_format_or_emulated(surface_format)
            .ok_or_else(|| unsupported(format!("{surface_format} cannot be rendered to")))?;
        let dfeats = self.format_features(dvk);
        let (need_feat, need_usage) = if zs {
            (
                vk::FormatFeatureFlags::DEPTH_STENCIL_ATTACHMENT,
                vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
            )
        } else {
            (
                vk::FormatFeatureFlags::COLOR_ATTACHMENT,
                vk::ImageUsageFlags::COLOR_ATTACHMENT,
            )
        };
        if !dfeats.contains(need_feat) || !dimg.usage.contains(need_usage) {
            return Err(unsupported(format!("{df} cannot be rendered to")));
        }
        if info.alpha_blend
            && !zs
            && !dfeats.contains(vk::FormatFeatureFlags::COLOR_ATTACHMENT_BLEND)
        {
            return Err(unsupported(format!("alpha blending into {df}")));
        }
        // The pixels to write: the destination box, the scissor, the
        // window rectangles.
        let mut base = [d.lo[0], d.lo[1], d.hi[0], d.hi[1]];
        if let Some(sc) = &info.scissor {
            base[0] = base[0].max(i64::from(sc.minx));
            base[1] = base[1].max(i64::from(sc.miny));
            base[2] = base[2].min(i64::from(sc.maxx));
            base[3] = base[3].min(i64::from(sc.maxy));
        }
        let include = info.window_rectangle_include;
        let rects = if info.window_rectangles.is_empty() && !include {
            if base[0] < base[2] && base[1] < base[3] {
                vec![base]
            } else {
                Vec::new()
            }
        } else {
            pass_rects(base, include, &info.window_rectangles)
        };
        if rects.is_empty() {
            return Ok(None);
        }

        // CSOs (no commands yet).
        let fs = self.blit_fs(&FsSpec { dim, fetch, output })?;
        let blend = if zs {
            None
        } else {
            Some(self.blit_blend(colormask, info.alpha_blend)?)
        };
        let dsa = match output {
            Output::Color { .. } => None,
            Output::Depth => Some(self.blit_dsa(true, false)?),
            Output::Stencil => Some(self.blit_dsa(false, true)?),
            Output::DepthStencil => Some(self.blit_dsa(true, true)?),
        };
        let sampler = self.blit_sampler(filter == TexFilter::Linear && fetch == Fetch::Sample)?;

        let mut pre = Vec::new();

        // A source that shares a subresource with the destination is
        // sampled from a copy.
        let same_sub = Arc::ptr_eq(&sobj, &dobj)
            && info.src.level == info.dst.level
            && (s3d || (s.min(2) < d.min(2) + d.extent(2) && d.min(2) < s.min(2) + s.extent(2)));
        let (src_res, src_level, s) = if same_sub {
            let mut t = sd.clone();
            t.target = match sd.target {
                Target::Texture3D => Target::Texture3D,
                Target::Texture1D | Target::Texture1DArray => Target::Texture1DArray,
                _ => Target::Texture2DArray,
            };
            t.width0 = u32_of(s.extent(0))?;
            t.height0 = if dim == Dim::D1 {
                1
            } else {
                u32_of(s.extent(1))?
            };
            t.depth0 = if s3d { u32_of(s.extent(2))? } else { 1 };
            t.array_size = if s3d { 1 } else { u32_of(s.extent(2))? };
            t.last_level = 0;
            t.nr_storage_samples = 0;
            t.usage = pipe_core::resource::Usage::Default;
            t.flags = ResourceFlags::empty();
            t.bind = BindFlags::SAMPLER_VIEW;
            let tmp = crate::resource::resource_create(self.dev(), &t)?;
            let m = [s.min(0), s.min(1), s.min(2)];
            pre.push(CopyOp {
                dst: tmp.clone(),
                dst_level: 0,
                at: [0, 0, 0],
                src: sres.clone(),
                src_level: info.src.level,
                bx: PipeBox::new(
                    i32_of(m[0])?,
                    i32_of(m[1])?,
                    i32_of(m[2])?,
                    i32_of(s.extent(0))?,
                    i32_of(s.extent(1))?,
                    i32_of(s.extent(2))?,
                ),
            });
            (tmp, 0, s.moved(m))
        } else {
            (sres.clone(), info.src.level, s)
        };
        let (sw, sh, sdepth) = src_res
            .desc()
            .level_extent(src_level)
            .ok_or_else(|| PipeError::invalid("blit: source level out of range"))?;

        // A 3D destination's slices are the layers of its surfaces.
        let dn = d.extent(2);
        let (dst_res, dst_level, d_first_layer, origin) =
            (dres.clone(), info.dst.level, d.lo[2], [0i64, 0i64]);
        let d = d.moved([origin[0], origin[1], 0]);
        let (fw, fh, _) = dst_res
            .desc()
            .level_extent(dst_level)
            .ok_or_else(|| PipeError::invalid("blit: destination level out of range"))?;
        let (fw, fh) = (u16_of(i64::from(fw))?, u16_of(i64::from(fh))?);
        let rects = rects
            .into_iter()
            .map(|r| {
                Ok(ScissorState {
                    minx: u16_of(r[0] - origin[0])?,
                    miny: u16_of(r[1] - origin[1])?,
                    maxx: u16_of(r[2] - origin[0])?,
                    maxy: u16_of(r[3] - origin[1])?,
                })
            })
            .collect::<PipeResult<Vec<_>>>()?;

        // Per layer: surface, views, vertices.
        let normalize = fetch == Fetch::Sample;
        let sn = s.extent(2);
        let mut layers = Vec::new();
        for i in 0..dn {
            let layer = u32_of(d_first_layer + i)?;
            let surface = crate::view::create_surface(
                &dst_res,
                &SurfaceTemplate {
                    format: surface_format,
                    level: dst_level,
                    first_layer: layer,
                    last_layer: layer,
                },
            )?;
            // Source slice coordinate (3D) or layer.
            let zc = s.lo[2] as f64 + (i as f64 + 0.5) * sn as f64 / dn as f64;
            let (src_layer, w) = if s3d {
                (0, (zc / f64::from(sdepth.max(1))) as f32)
            } else {
                (u32_of(zc.floor() as i64)?, 0.0)
            };
            let view_target = match sd.target {
                Target::Texture3D => Target::Texture3D,
                Target::Texture1D | Target::Texture1DArray => Target::Texture1D,
                _ => Target::Texture2D,
            };
            let mut views: [Option<SamplerView>; 2] = [None, None];
            for (slot, f) in src_formats.iter().enumerate() {
                let Some(f) = f else { continue };
                let t = SamplerViewTemplate {
                    format: *f,
                    target: view_target,
                    swizzle: pipe_core::view::SWIZZLE_IDENTITY,
                    range: ViewRange::Texture {
                        first_level: src_level,
                        last_level: src_level,
                        first_layer: src_layer,
                        last_layer: src_layer,
                    },
                };
                if let Some(v) = views.get_mut(slot) {
                    *v = Some(crate::view::create_sampler_view(&src_res, &t)?);
                }
            }
            // Corners: destination (x, y) and source (s, t) per vertex of
            // the strip (x0,y0) (x1,y0) (x0,y1) (x1,y1).
            let (nx, ny) = if normalize {
                (f64::from(sw.max(1)), f64::from(sh.max(1)))
            } else {
                (1.0, 1.0)
            };
            let ndc = |v: i64, size: u16| (2.0 * v as f64 / f64::from(size.max(1)) - 1.0) as f32;
            let mut bytes = Vec::with_capacity(4 * 32);
            for (xi, yi) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                let dx = if xi == 0 { d.lo[0] } else { d.hi[0] };
                let dy = if yi == 0 { d.lo[1] } else { d.hi[1] };
                let sx = if xi == 0 { s.lo[0] } else { s.hi[0] };
                let sy = if yi == 0 { s.lo[1] } else { s.hi[1] };
                let tc_z = if s3d { w } else { 0.0 };
                for v in [
                    ndc(dx, fw),
                    ndc(dy, fh),
                    0.0,
                    1.0,
                    (sx as f64 / nx) as f32,
                    (sy as f64 / ny) as f32,
                    tc_z,
                    0.0,
                ] {
                    bytes.extend_from_slice(&v.to_le_bytes());
                }
            }
            layers.push(LayerDraw {
                surface,
                views,
                vertices: Arc::from(bytes),
            });
        }
        let samples = u8::try_from(dst_res.desc().samples()).unwrap_or(1);
        Ok(Some(Job {
            pre,
            layers,
            rects,
            fb: (fw, fh, samples),
            zs,
            fs,
            blend,
            dsa,
            sampler,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sc(minx: u16, miny: u16, maxx: u16, maxy: u16) -> ScissorState {
        ScissorState {
            minx,
            miny,
            maxx,
            maxy,
        }
    }

    fn covered(rs: &[[i64; 4]], x: i64, y: i64) -> usize {
        rs.iter()
            .filter(|r| r[0] <= x && x < r[2] && r[1] <= y && y < r[3])
            .count()
    }

    #[test]
    fn window_rectangles_split_disjointly() {
        let rects = [sc(1, 1, 4, 4), sc(3, 2, 6, 7), sc(10, 10, 20, 20)];
        let base = [0, 0, 8, 8];
        for include in [true, false] {
            let out = pass_rects(base, include, &rects);
            for y in 0..8 {
                for x in 0..8 {
                    let inside = rects.iter().any(|r| {
                        i64::from(r.minx) <= x
                            && x < i64::from(r.maxx)
                            && i64::from(r.miny) <= y
                            && y < i64::from(r.maxy)
                    });
                    let want = usize::from(inside == include);
                    assert_eq!(covered(&out, x, y), want, "({x}, {y}) include={include}");
                }
            }
        }
        assert!(pass_rects(base, true, &[]).is_empty());
        assert_eq!(pass_rects(base, false, &[]), vec![base]);
    }

    #[test]
    fn generated_shaders_parse_and_validate() {
        use spirv_gen::ir::BaseType as B;
        let outputs = [
            Output::Color {
                ty: B::Float,
                swizzle: [0, 1, 2, 3],
            },
            Output::Color {
                ty: B::Uint,
                swizzle: [3, 1, 2, 3],
            },
            Output::Color {
                ty: B::Int,
                swizzle: [0, 3, 2, 3],
            },
            Output::Depth,
            Output::Stencil,
            Output::DepthStencil,
        ];
        let fetches = [
            Fetch::Sample,
            Fetch::Average(4),
            Fetch::Sample0,
            Fetch::PerSample,
        ];
        for output in outputs {
            for fetch in fetches {
                for dim in [Dim::D1, Dim::D2, Dim::D3] {
                    let float = matches!(output, Output::Color { ty: B::Float, .. });
                    if (fetch != Fetch::Sample && dim != Dim::D2)
                        || (matches!(fetch, Fetch::Average(_)) && !float)
                    {
                        continue;
                    }
                    let text = fs_text(&FsSpec { dim, fetch, output });
                    let ir =
                        spirv_gen::text::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
                    spirv_gen::validate::validate(&ir).unwrap_or_else(|e| panic!("{e}\n{text}"));
                    spirv_gen::emit::emit(&ir, spirv_gen::emit::Target::Vulkan1_3)
                        .unwrap_or_else(|e| panic!("{e}\n{text}"));
                }
            }
        }
        let vs = spirv_gen::text::parse(VS_TEXT).expect("vertex shader");
        spirv_gen::validate::validate(&vs).expect("vertex shader validates");
    }

    #[test]
    fn emulated_targets_map_channels() {
        let (f, map) = color_target(Format::L8Unorm).expect("L8");
        assert_eq!(f, Format::R8Unorm);
        assert_eq!(map[0], Some(0));
        let (f, map) = color_target(Format::A16Unorm).expect("A16");
        assert_eq!(f, Format::R16Unorm);
        assert_eq!(map[0], Some(3));
        let (_, map) = color_target(Format::L8A8Unorm).expect("L8A8");
        assert_eq!((map[0], map[1]), (Some(0), Some(3)));
        assert_eq!(
            color_target(Format::R8G8B8A8Unorm).map(|t| t.0),
            Some(Format::R8G8B8A8Unorm)
        );
    }
}
