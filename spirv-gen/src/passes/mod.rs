//! Passes: optimizations ([`opt`]) and the GL lowerings ([`gl`]) driven by
//! a [`VariantKey`].
//!
//! The key is a small `Hash + Eq` value that pipe-vk fills from bound state;
//! the same shader and key always give the same lowered IR (and therefore
//! the same SPIR-V words). Its text form (for `pipe-spirv --key` and the
//! corpus) is a comma-separated list, see [`VariantKey::parse`]:
//!
//! ```text
//! alpha=less:0.5,clip=0x3,flat,two_side,two_side_front_only=0x2,
//! point_size=1.0,point_size_fixed,sample_shading,single_sample,
//! sprite=0x1,sprite_upper_left,inline=0:1065353216,vfetch=0:swap_rb,
//! polygon_stipple,demote_discards,ubo0_push_offset,lower_left_origin,pixel_center_integer,
//! last_vertex_stage,clip_halfz,line_stipple,line_stipple_polygon,line_rectangular,
//! polygon_edges=lines,relocate=30:5,smooth_lines=1.5,smooth_line_ends,
//! window_rects=include:2,workgroup_size=8x4x1,fbfetch_ms,fbfetch_layered,
//! unbound_outputs=0x2
//! ```
//!
//! The default key (the empty string) lowers nothing. Line stipple
//! (`line_stipple`, [`line_stipple`]) is for devices without stippled lines
//! in `VK_EXT_line_rasterization`; where the last vertex stage is not a
//! geometry shader, pipe-vk also inserts the geometry shader from
//! [`line_stipple::line_stipple_gs`].
//!
//! Transform feedback ([`xfb::lower_xfb`]) is not part of the key: the
//! capture description belongs to the shader state, and pipe-vk applies it
//! to the last pre-raster stage before [`lower`].
//!
//! After the GL lowerings, [`lower`] always runs [`split::split_vectors`],
//! which rewrites the few vector operations SPIR-V has no form for; the
//! emitter expects its output.

pub mod aliased;
pub mod gl;
pub mod line_stipple;
pub mod opt;
pub mod polygon_edges;
pub mod smooth_lines;
pub mod split;
mod strips;
pub mod tess;
pub mod xfb;

use crate::error::{Error, Result};
use crate::ir::{named_enum, Shader};

/// The `aliased_clip` components the fragment shader tests for the depth
/// planes ([`aliased::DEPTH_CLIP_COMPONENTS`]).
pub const DEPTH_CLIP_MASK: u8 =
    (1 << aliased::DEPTH_CLIP_COMPONENTS[0]) | (1 << aliased::DEPTH_CLIP_COMPONENTS[1]);

pub use opt::{constant_fold, copy_prop, dce, optimize};

named_enum!(
    /// GL compare functions (alpha test).
    CompareFunc {
        Never = "never",
        Less = "less",
        Equal = "equal",
        Lequal = "lequal",
        Greater = "greater",
        Notequal = "notequal",
        Gequal = "gequal",
        Always = "always",
    }
);

named_enum!(
    /// What a fragment shader of a polygon drawn in line or point mode
    /// hides ([`polygon_edges`]).
    PolygonEdges {
        /// Polygon mode `LINE`: fragments of hidden edges.
        Lines = "lines",
        /// Polygon mode `POINT`: fragments of hidden vertices.
        Points = "points",
    }
);

named_enum!(
    /// Vertex fetch fix-ups for formats the device cannot fetch.
    VertexFixup {
        /// BGRA fetched as RGBA: swap red and blue.
        SwapRb = "swap_rb",
        /// *_USCALED fetched as *_UINT: convert to float.
        Uscaled = "uscaled",
        /// *_SSCALED fetched as *_SINT: convert to float.
        Sscaled = "sscaled",
        /// A2B10G10R10_UNORM fetched as R32_UINT: unpack.
        A2b10g10r10Unorm = "a2b10g10r10_unorm",
        /// A2B10G10R10_SNORM fetched as R32_UINT: unpack.
        A2b10g10r10Snorm = "a2b10g10r10_snorm",
        /// R10G10B10A2_USCALED fetched as R32_UINT: unpack.
        A2b10g10r10Uscaled = "a2b10g10r10_uscaled",
        /// R10G10B10A2_SSCALED fetched as R32_UINT: unpack.
        A2b10g10r10Sscaled = "a2b10g10r10_sscaled",
        /// B10G10R10A2_UNORM (Vulkan's A2R10G10B10) fetched as R32_UINT:
        /// unpack, red from the third field.
        A2r10g10b10Unorm = "a2r10g10b10_unorm",
        /// B10G10R10A2_SNORM fetched as R32_UINT.
        A2r10g10b10Snorm = "a2r10g10b10_snorm",
        /// B10G10R10A2_USCALED fetched as R32_UINT.
        A2r10g10b10Uscaled = "a2r10g10b10_uscaled",
        /// B10G10R10A2_SSCALED fetched as R32_UINT.
        A2r10g10b10Sscaled = "a2r10g10b10_sscaled",
        /// R32*_UNORM (no Vulkan format) fetched as R32*_UINT: `x / (2^32 - 1)`.
        Unorm32 = "unorm32",
        /// R32*_SNORM fetched as R32*_SINT: `max(x / (2^31 - 1), -1)`.
        Snorm32 = "snorm32",
        /// R32*_FIXED (GL_FIXED, 16.16) fetched as R32*_SINT: `x / 65536`.
        Fixed32 = "fixed32",
        /// A 64-bit attribute (`f64`/`u64`/`i64` with one to four
        /// components) fetched as 32-bit unsigned pairs, as Mesa's
        /// `util_lower_uint64_vertex_elements` splits it: components 0 and
        /// 1 from a `u32x4` (`u32x2` for one component) at the input's
        /// location, components 2 and 3 from a second input at the next
        /// location; each pair is bitcast to one 64-bit component.
        Split64 = "split64",
        /// R64*_FLOAT (GL_DOUBLE converted to float) for a 32-bit float
        /// input: fetched as 32-bit unsigned pairs like `split64`, with
        /// components 2 and 3 from [`FetchFixup::upper`]; each pair is
        /// bitcast to `f64` and converted to `f32`.
        Double = "double",
    }
);

/// One vertex shader input fetched through a [`VertexFixup`]. Text form
/// (in a key): `vfetch=LOCATION:FIXUP[:COMPS[:UPPER]]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FetchFixup {
    /// The input's location.
    pub location: u32,
    pub fixup: VertexFixup,
    /// The components of the attribute's format (1 to 4); components the
    /// input declares beyond them read GL's defaults (0, 0, 1). 0: as
    /// many as the input declares.
    pub comps: u8,
    /// `split64`: the second location of a dual-slot element, where its
    /// components 2 and 3 are fetched when it has them; `None` with
    /// `comps` given: the element takes one location (a three- or
    /// four-component input, which takes two, is refused); `None` with
    /// `comps` 0: the next location. `double`: the location of the
    /// second attribute (components 2 and 3).
    pub upper: Option<u32>,
}

impl VertexFixup {
    /// Whether the fetched attribute holds signed integers (converted
    /// with a signed conversion, packed fields sign-extended).
    pub fn is_signed(self) -> bool {
        use VertexFixup as V;
        matches!(
            self,
            V::Sscaled
                | V::Snorm32
                | V::Fixed32
                | V::A2b10g10r10Snorm
                | V::A2b10g10r10Sscaled
                | V::A2r10g10b10Snorm
                | V::A2r10g10b10Sscaled
        )
    }

    /// For the packed 10/10/10/2 fix-ups: (normalized, whether red is in
    /// bits 20..30 as in Vulkan's A2R10G10B10); `None` for the others.
    pub fn packed(self) -> Option<(bool, bool)> {
        use VertexFixup as V;
        Some(match self {
            V::A2b10g10r10Unorm | V::A2b10g10r10Snorm => (true, false),
            V::A2b10g10r10Uscaled | V::A2b10g10r10Sscaled => (false, false),
            V::A2r10g10b10Unorm | V::A2r10g10b10Snorm => (true, true),
            V::A2r10g10b10Uscaled | V::A2r10g10b10Sscaled => (false, true),
            _ => return None,
        })
    }
}

impl FetchFixup {
    /// `fixup` at `location`, the format's components as the input's.
    pub fn new(location: u32, fixup: VertexFixup) -> Self {
        FetchFixup {
            location,
            fixup,
            comps: 0,
            upper: None,
        }
    }
}

/// The variant key: the bound GL state a shader variant depends on.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct VariantKey {
    /// Alpha test function and reference value (f32 bits).
    pub alpha_test: Option<(CompareFunc, u32)>,
    /// User clip planes enabled (bit i = plane i), written to ClipDistance;
    /// for a last vertex stage that writes ClipDistance itself, the
    /// distances GL uses ([`gl::lower_clip_planes`]).
    pub clip_planes: u8,
    /// Flat shading of colour varyings.
    pub flat_shade: bool,
    /// Two-sided colour: pick back colours for back faces.
    pub two_side: bool,
    /// With `two_side`: colours (bit 0 col0, bit 1 col1) whose back
    /// colour the previous stage does not write; they keep the front
    /// colour (GL leaves the back one undefined; a fragment input no stage
    /// writes is invalid Vulkan).
    pub two_side_front_only: u8,
    /// Fragment input locations (bit i = location i) the previous stage
    /// does not write: inputs wholly at such locations read 0
    /// ([`gl::lower_unwritten_inputs`], Zink's `rewrite_read_as_0`; GL
    /// leaves them undefined, and an input no stage writes is invalid
    /// Vulkan).
    pub zero_inputs: u32,
    /// Default point size (f32 bits) when drawing points and the shader
    /// writes none.
    pub point_size: Option<u32>,
    /// With `point_size`: the size replaces the one the shader writes
    /// (Gallium's `point_size_per_vertex` off, GL's program point size
    /// disabled).
    pub point_size_fixed: bool,
    /// Points drawn with multisampling disabled on a multisampled
    /// framebuffer (Gallium's rasterizer `multisample` off), which Vulkan
    /// rasterizes with sample coverage: the last vertex stage draws each
    /// point one pixel larger and the fragment shader keeps the pixels
    /// whose centre is in the point's square, so those are covered whole
    /// ([`aliased::lower_aliased_points`]). The value: the device's largest
    /// point size (f32 bits).
    pub aliased_points: Option<u32>,
    /// With `aliased_points`: GL's smooth points (`POINT_SMOOTH`, where
    /// points are not multisampled): drawn two pixels larger, the
    /// fragment shader weighs each pixel's alpha by the share of it inside
    /// the point's circle ([`aliased::lower_aliased_points_fs`]).
    pub smooth_points: bool,
    /// GL's smooth lines where lines are not multisampled, emulated
    /// ([`smooth_lines`]): the last vertex stage writes the varying, the
    /// fragment shader weighs alpha by the coverage of a line this wide
    /// (f32 bits; the last vertex stage ignores the value).
    pub smooth_lines: Option<u32>,
    /// With `smooth_lines`, the fragment shader also weighs the line's
    /// ends: the line comes from
    /// [`line_stipple::smooth_line_ends_gs`] ([`smooth_lines`]). With
    /// `line_stipple` too, the stipple is weighed into the coverage
    /// (GL's stippled smooth lines) instead of discarding by the pattern
    /// ([`smooth_lines::lower_smooth_lines_fs`]).
    pub smooth_line_ends: bool,
    /// GL's multisampled points that are not sprites, round: the sample
    /// count (standard locations), 0 when off
    /// ([`aliased::lower_round_points_fs`]).
    pub round_points: u8,
    /// Filled triangles with multisampling disabled on a multisampled
    /// framebuffer: the fragment shader discards what the generated
    /// geometry shader [`aliased::aliased_triangles_gs`] added around the
    /// triangle ([`aliased::lower_aliased_triangles_fs`]).
    pub aliased_triangles: bool,
    /// With `aliased_triangles`: the user clip planes the fragment shader
    /// tests at the pixel centre (bit `i`: plane `i`, the last vertex
    /// stage's `clip_planes`), which the generated geometry shader does
    /// not let the hardware clip (see [`aliased::aliased_triangles_gs`]).
    pub aliased_clip_planes: u8,
    /// A geometry shader re-emitting its strips' triangles one by one
    /// (`aliased_triangles`, [`aliased::lower_aliased_gs`], or polygon
    /// line stipple, [`line_stipple::lower_polygon_line_stipple_gs`]):
    /// the provoking vertex is a triangle's first (else its last).
    pub gs_first_provoking: bool,
    /// With `aliased_triangles`: the near and far planes are tested at the
    /// pixel centre too, with the hardware's depth clipping off
    /// (`Some(clip_halfz)`, see [`aliased::aliased_triangles_gs`]).
    pub aliased_depth_clip: Option<bool>,
    /// Force per-sample shading of interpolated inputs.
    pub sample_shading: bool,
    /// Multisample rasterization is off on a multisampled framebuffer: the
    /// fragment shader sees one sample per pixel
    /// ([`gl::lower_single_sample`]).
    pub single_sample: bool,
    /// Texture coordinate slots replaced by the point sprite coordinate.
    pub sprite_coord: u8,
    /// Sprite coordinate origin is upper-left (else lower-left).
    pub sprite_upper_left: bool,
    /// Inlined uniform values: (byte offset in constant buffer 0, value).
    pub inline_uniforms: Vec<(u32, u32)>,
    /// Constant buffer 0 is a window of [`crate::binding::UBO0_WINDOW`]
    /// bytes and its data starts at the offset in push constant
    /// [`crate::binding::push::UBO0_OFFSET`] ([`gl::lower_ubo0_push_offset`];
    /// vertex and fragment shaders only).
    pub ubo0_push_offset: bool,
    /// Output locations moved, `(from, to)` ([`gl::relocate_varyings`]):
    /// for a vertex shader followed by a generated geometry shader that
    /// cannot read inputs as high as `from` (GL's back colours at 30 and
    /// 31 against lavapipe's 16 geometry-shader input locations).
    pub relocate_outputs: Vec<(u32, u32)>,
    /// Vertex fetch fix-ups.
    pub vertex_fixups: Vec<FetchFixup>,
    /// Polygon stipple: fragments whose bit of the 32×32 pattern (in the
    /// driver constant buffer, [`crate::binding::driver_ubo`]) is 0 are
    /// discarded.
    pub polygon_stipple: bool,
    /// The fixed-function tests lowered into the fragment shader (window
    /// rectangles, polygon and line stipple, polygon edges, aliased and
    /// round points, aliased triangles, smooth lines) demote the fragment
    /// to a helper invocation (`OpDemoteToHelperInvocation`) instead of
    /// terminating it: the tests they replace run after the shader, so
    /// they must not leave the derivatives of the quad's other fragments
    /// undefined (a texture's level of detail, say), and a helper's
    /// stores and atomics have no effect either. Needs the device's
    /// `shaderDemoteToHelperInvocation` (Vulkan 1.3); without, they
    /// terminate the invocation, as Mesa's lowerings do. pipe-vk asks
    /// for it where the shader needs the derivatives and uses no atomics
    /// ([`gl::demote_worthwhile`]).
    pub demote_discards: bool,
    /// `gl_FragCoord` has GL's lower-left origin: `y = FB_HEIGHT - y`
    /// ([`crate::binding::push::FB_HEIGHT`]). Vulkan's is upper-left.
    pub lower_left_origin: bool,
    /// `gl_FragCoord` has integer pixel centres (GLSL
    /// `pixel_center_integer`, Gallium's `half_pixel_center` off):
    /// `xy -= 0.5`. Vulkan's are half-integer.
    pub pixel_center_integer: bool,
    /// The shader is the last stage before rasterization (vertex, tess
    /// eval or geometry), which the depth-range lowering needs to know.
    pub last_vertex_stage: bool,
    /// Clip-space depth is already [0, 1] (Gallium's `clip_halfz`, or the
    /// device does `VK_EXT_depth_clip_control`). When false in the last
    /// vertex stage, GL's [-1, 1] is converted: `z = (z + w) / 2`.
    pub clip_halfz: bool,
    /// Line stipple emulation ([`line_stipple`]): a fragment shader
    /// discards by the pattern in [`crate::binding::push::LINE_STIPPLE`]
    /// at its `stipple_pos` input; a geometry shader emitting line strips
    /// computes that `stipple_pos` output. Vertex and tess eval shaders are
    /// left alone: pipe-vk follows them with
    /// [`line_stipple::line_stipple_gs`].
    pub line_stipple: bool,
    /// With `line_stipple` in a fragment shader: the primitives are
    /// polygons drawn in line mode, and the distance comes from
    /// [`line_stipple::polygon_line_stipple_gs`]'s varying.
    pub line_stipple_polygon: bool,
    /// Quads, quad strips and polygons drawn in line or point mode as
    /// triangles with hidden-edge masks ([`polygon_edges`]): the fragment
    /// shader discards fragments of hidden edges (or vertices), from the
    /// varyings of [`line_stipple::polygon_edges_gs`].
    pub polygon_edges: Option<PolygonEdges>,
    /// Rectangular lines (Gallium's `line_rectangular`): the line stipple
    /// distance is Euclidean; otherwise it is the major-axis length
    /// `max(|dx|, |dy|)`. Read only with `line_stipple` in a geometry
    /// shader.
    pub line_rectangular: bool,
    /// Window rectangles in the fragment shader ([`gl::lower_window_rects`]):
    /// `(include, count)`. `None` (exclude mode with no rectangle, the
    /// default state) lowers nothing.
    pub window_rects: Option<(bool, u8)>,
    /// Compute workgroup size for a `local_size=variable` shader
    /// ([`specialize_workgroup_size`]).
    pub workgroup_size: Option<[u32; 3]>,
    /// The framebuffer is multisampled: `fbfetch` variables become `ms`
    /// and each fetch reads the fragment's own sample
    /// ([`gl::lower_fbfetch_ms`]; the `SampleId` input makes the shader run
    /// per sample, as GL's framebuffer fetch on a multisampled buffer).
    pub fbfetch_ms: bool,
    /// The framebuffer is layered: `fbfetch` variables read the
    /// fragment's layer of a 2D array view ([`gl::lower_fbfetch_layered`]).
    pub fbfetch_layered: bool,
    /// `fbfetch` slots (bit i = slot i) whose colour buffer is a 1D image
    /// ([`gl::lower_fbfetch_dims`]).
    pub fbfetch_1d: u8,
    /// `fbfetch` slots whose colour buffer is a 3D image bound as a layered
    /// framebuffer, its slices the layers ([`gl::lower_fbfetch_dims`]).
    pub fbfetch_3d: u8,
    /// Fragment colour output locations (bit i = location i) with no
    /// colour buffer bound (GL draw buffers set to `GL_NONE`, or past the
    /// bound ones): the outputs become local variables
    /// ([`gl::lower_unbound_outputs`]).
    pub unbound_outputs: u8,
}

impl VariantKey {
    /// Parses the text form (see the module docs). The empty string is the
    /// default key.
    pub fn parse(s: &str) -> Result<VariantKey> {
        let mut k = VariantKey::default();
        let num = |v: &str| -> Result<u32> {
            let r = if let Some(h) = v.strip_prefix("0x") {
                u32::from_str_radix(h, 16)
            } else {
                v.parse()
            };
            r.map_err(|_| Error::new(format!("key: bad number {v:?}")))
        };
        let float = |v: &str| -> Result<u32> {
            v.parse::<f32>()
                .map(f32::to_bits)
                .map_err(|_| Error::new(format!("key: bad float {v:?}")))
        };
        for item in s.split(',').map(str::trim).filter(|x| !x.is_empty()) {
            let (name, val) = match item.split_once('=') {
                Some((a, b)) => (a, Some(b)),
                None => (item, None),
            };
            let need = || val.ok_or_else(|| Error::new(format!("key: `{name}` needs a value")));
            match name {
                "alpha" => {
                    let v = need()?;
                    let (f, r) = v.split_once(':').unwrap_or((v, "0.0"));
                    let f = CompareFunc::from_name(f).ok_or_else(|| {
                        Error::new(format!("key: unknown compare function {f:?}"))
                    })?;
                    k.alpha_test = Some((f, float(r)?));
                }
                "clip" => {
                    k.clip_planes = u8::try_from(num(need()?)?)
                        .map_err(|_| Error::new("key: clip mask > 0xff"))?
                }
                "flat" => k.flat_shade = true,
                "two_side" => k.two_side = true,
                "unbound_outputs" => {
                    k.unbound_outputs = u8::try_from(num(need()?)?)
                        .map_err(|_| Error::new("key: unbound_outputs mask > 0xff"))?
                }
                "zero_inputs" => k.zero_inputs = num(need()?)?,
                "fbfetch_1d" => {
                    k.fbfetch_1d = u8::try_from(num(need()?)?)
                        .map_err(|_| Error::new("key: fbfetch_1d mask > 0xff"))?
                }
                "fbfetch_3d" => {
                    k.fbfetch_3d = u8::try_from(num(need()?)?)
                        .map_err(|_| Error::new("key: fbfetch_3d mask > 0xff"))?
                }
                "two_side_front_only" => {
                    k.two_side_front_only = u8::try_from(num(need()?)?)
                        .ok()
                        .filter(|&m| m <= 3)
                        .ok_or_else(|| Error::new("key: two_side_front_only mask > 3"))?
                }
                "point_size" => k.point_size = Some(float(need()?)?),
                "point_size_fixed" => k.point_size_fixed = true,
                "aliased_points" => k.aliased_points = Some(float(need()?)?),
                "smooth_points" => k.smooth_points = true,
                "smooth_lines" => k.smooth_lines = Some(float(need()?)?),
                "smooth_line_ends" => k.smooth_line_ends = true,
                "round_points" => {
                    k.round_points = u8::try_from(num(need()?)?)
                        .ok()
                        .filter(|&n| aliased::standard_sample_locations(n).is_some())
                        .ok_or_else(|| Error::new("key: round_points takes 2, 4, 8 or 16"))?
                }
                "aliased_triangles" => k.aliased_triangles = true,
                "gs_first_provoking" => k.gs_first_provoking = true,
                "aliased_clip_planes" => {
                    k.aliased_clip_planes = u8::try_from(num(need()?)?)
                        .map_err(|_| Error::new("key: aliased_clip_planes mask > 0xff"))?
                }
                "aliased_depth_clip" => k.aliased_depth_clip = Some(val == Some("halfz")),
                "sample_shading" => k.sample_shading = true,
                "single_sample" => k.single_sample = true,
                "sprite" => {
                    k.sprite_coord = u8::try_from(num(need()?)?)
                        .map_err(|_| Error::new("key: sprite mask > 0xff"))?
                }
                "sprite_upper_left" => k.sprite_upper_left = true,
                "polygon_stipple" => k.polygon_stipple = true,
                "demote_discards" => k.demote_discards = true,
                "ubo0_push_offset" => k.ubo0_push_offset = true,
                "relocate" => {
                    let v = need()?;
                    let (from, to) = v
                        .split_once(':')
                        .ok_or_else(|| Error::new("key: relocate=FROM:TO"))?;
                    k.relocate_outputs.push((num(from)?, num(to)?));
                }
                "lower_left_origin" => k.lower_left_origin = true,
                "pixel_center_integer" => k.pixel_center_integer = true,
                "last_vertex_stage" => k.last_vertex_stage = true,
                "clip_halfz" => k.clip_halfz = true,
                "line_stipple" => k.line_stipple = true,
                "line_stipple_polygon" => k.line_stipple_polygon = true,
                "polygon_edges" => {
                    let v = need()?;
                    k.polygon_edges = Some(PolygonEdges::from_name(v).ok_or_else(|| {
                        Error::new(format!("key: polygon_edges is lines or points, not {v:?}"))
                    })?)
                }
                "line_rectangular" => k.line_rectangular = true,
                "fbfetch_ms" => k.fbfetch_ms = true,
                "fbfetch_layered" => k.fbfetch_layered = true,
                "inline" => {
                    let v = need()?;
                    let (o, x) = v
                        .split_once(':')
                        .ok_or_else(|| Error::new("key: inline=OFFSET:VALUE"))?;
                    k.inline_uniforms.push((num(o)?, num(x)?));
                }
                "window_rects" => {
                    let v = need()?;
                    let (m, n) = v
                        .split_once(':')
                        .ok_or_else(|| Error::new("key: window_rects=include|exclude:COUNT"))?;
                    let include = match m {
                        "include" => true,
                        "exclude" => false,
                        _ => return Err(Error::new(format!("key: window_rects mode {m:?}"))),
                    };
                    let n = u8::try_from(num(n)?)
                        .map_err(|_| Error::new("key: window_rects count > 255"))?;
                    k.window_rects = Some((include, n));
                }
                "workgroup_size" => {
                    let v = need()?;
                    let d: Vec<&str> = v.split('x').collect();
                    if d.len() != 3 {
                        return Err(Error::new("key: workgroup_size=XxYxZ"));
                    }
                    k.workgroup_size = Some([num(d[0])?, num(d[1])?, num(d[2])?]);
                }
                "vfetch" => {
                    let v = need()?;
                    let mut it = v.split(':');
                    let (Some(l), Some(f)) = (it.next(), it.next()) else {
                        return Err(Error::new("key: vfetch=LOCATION:FIXUP[:COMPS[:UPPER]]"));
                    };
                    let f = VertexFixup::from_name(f)
                        .ok_or_else(|| Error::new(format!("key: unknown fix-up {f:?}")))?;
                    let mut fix = FetchFixup::new(num(l)?, f);
                    if let Some(c) = it.next() {
                        fix.comps = u8::try_from(num(c)?)
                            .ok()
                            .filter(|&c| c <= 4)
                            .ok_or_else(|| Error::new("key: vfetch components > 4"))?;
                    }
                    if let Some(u) = it.next() {
                        fix.upper = Some(num(u)?);
                    }
                    if it.next().is_some() {
                        return Err(Error::new("key: vfetch=LOCATION:FIXUP[:COMPS[:UPPER]]"));
                    }
                    k.vertex_fixups.push(fix);
                }
                _ => return Err(Error::new(format!("key: unknown item `{name}`"))),
            }
            if val.is_some()
                && matches!(
                    name,
                    "flat"
                        | "two_side"
                        | "point_size_fixed"
                        | "smooth_points"
                        | "aliased_triangles"
                        | "gs_first_provoking"
                        | "sample_shading"
                        | "single_sample"
                        | "sprite_upper_left"
                        | "polygon_stipple"
                        | "demote_discards"
                        | "smooth_line_ends"
                        | "ubo0_push_offset"
                        | "lower_left_origin"
                        | "pixel_center_integer"
                        | "last_vertex_stage"
                        | "clip_halfz"
                        | "line_stipple"
                        | "line_stipple_polygon"
                        | "line_rectangular"
                        | "fbfetch_ms"
                        | "fbfetch_layered"
                )
            {
                return Err(Error::new(format!("key: `{name}` takes no value")));
            }
        }
        Ok(k)
    }
}

/// Fixes a compute shader's workgroup size to `size`: sets `local_size`
/// (a variable size becomes this one) and turns every load of the
/// `workgroup_size` built-in into the constant `size`. pipe-vk runs it per
/// dispatch block size for `local_size=variable` shaders (a variant per
/// size, where Zink uses specialization constants); [`crate::emit::emit`]
/// runs it on fixed-size shaders that read the built-in.
pub fn specialize_workgroup_size(s: &mut Shader, size: [u32; 3]) -> Result<()> {
    use crate::ir::{BuiltIn, Node, Op, Stage, Type};
    if s.stage != Stage::Compute {
        return Err(Error::new("workgroup size: not a compute shader"));
    }
    if size.contains(&0) {
        return Err(Error::new(format!("workgroup size {size:?} has a zero")));
    }
    s.info.local_size = Some(size);
    s.info.local_size_variable = false;
    let vars: Vec<_> = (0..s.vars.len())
        .filter(|&i| s.vars[i].builtin() == Some(BuiltIn::WorkgroupSize))
        .map(|i| crate::ir::VarId(i as u32))
        .collect();
    for var in vars {
        gl::replace_loads(s, var, &mut |_, dest, ty, _| {
            let bits = size.iter().map(|&x| u64::from(x)).collect();
            let _ = ty;
            vec![Node::Instr(crate::ir::Instr {
                dest: Some((dest, Type::uint(32, 3))),
                op: Op::Const(bits),
                loc: None,
            })]
        });
    }
    Ok(())
}

/// Applies the GL lowerings selected by `key`, then the vector splitting
/// SPIR-V needs ([`split::split_vectors`]); the caller usually runs
/// [`optimize`] next.
///
/// Order matters where lowerings meet: the `gl_FragCoord` adjustment
/// rewrites the shader's own reads before polygon stipple adds its read of
/// the raw Vulkan coordinate; user clip planes read the position before
/// the depth-range conversion changes it; the line stipple distance in a
/// geometry shader reads the position last, just before each
/// `emit_vertex`.
pub fn lower(s: &mut Shader, key: &VariantKey) -> Result<()> {
    // The fixed-function discards below demote (`gl::discard_first_if`);
    // a shader that demotes itself runs where demotion is available.
    let demotes = key.demote_discards || gl::uses_demote(s);
    if let Some(size) = key.workgroup_size {
        specialize_workgroup_size(s, size)?;
    }
    gl::lower_vertex_fixups(s, &key.vertex_fixups)?;
    gl::lower_draw_index(s);
    gl::lower_inline_uniforms(s, &key.inline_uniforms);
    if key.ubo0_push_offset {
        gl::lower_ubo0_push_offset(s)?;
    }
    gl::relocate_varyings(s, &key.relocate_outputs, true)?;
    if key.two_side {
        gl::lower_two_side(s, key.two_side_front_only)?;
    }
    if key.sprite_coord != 0 {
        gl::lower_sprite_coord(s, key.sprite_coord, key.sprite_upper_left)?;
    }
    // After the sprite coordinate, whose reads it rescales.
    if key.aliased_points.is_some() {
        aliased::lower_aliased_points_fs(s, key.smooth_points)?;
    }
    if key.round_points != 0 {
        aliased::lower_round_points_fs(s, key.round_points)?;
    }
    if key.flat_shade {
        gl::lower_flat_shade(s);
    }
    if key.sample_shading {
        gl::lower_sample_shading(s);
    }
    if key.single_sample {
        gl::lower_single_sample(s);
    }
    gl::lower_unwritten_inputs(s, key.zero_inputs);
    gl::lower_fbfetch(s);
    if key.fbfetch_ms {
        gl::lower_fbfetch_ms(s);
    }
    if key.fbfetch_layered {
        gl::lower_fbfetch_layered(s);
    }
    gl::lower_fbfetch_dims(s, key.fbfetch_1d, key.fbfetch_3d);
    if key.lower_left_origin || key.pixel_center_integer {
        gl::lower_frag_coord(s, key.lower_left_origin, key.pixel_center_integer)?;
    }
    if let Some((include, count)) = key.window_rects {
        gl::lower_window_rects(s, include, count)?;
    }
    if key.polygon_stipple {
        gl::lower_polygon_stipple(s)?;
    }
    // Smooth lines with their ends weigh the stipple into their coverage.
    let smooth_stipple = key.line_stipple && key.smooth_lines.is_some() && key.smooth_line_ends;
    if key.line_stipple && !smooth_stipple {
        line_stipple::lower_line_stipple_fs(s, key.line_stipple_polygon)?;
    }
    if let Some(edges) = key.polygon_edges {
        polygon_edges::lower_polygon_edges_fs(s, edges)?;
    }
    if key.aliased_triangles {
        let depth = if key.aliased_depth_clip.is_some() {
            DEPTH_CLIP_MASK
        } else {
            0
        };
        aliased::lower_aliased_triangles_fs(s, key.aliased_clip_planes | depth)?;
    }
    // After the `gl_FragCoord` adjustment (it reads the raw coordinate),
    // before the alpha test (GL weighs alpha first).
    if let Some(width) = key.smooth_lines {
        let (w, ends) = (f32::from_bits(width), key.smooth_line_ends);
        smooth_lines::lower_smooth_lines_fs(s, w, ends, smooth_stipple)?;
    }
    if let Some((f, r)) = key.alpha_test {
        gl::lower_alpha_test(s, f, f32::from_bits(r))?;
    }
    // An application geometry shader widening its triangles, before the
    // last-stage lowerings below (as the generated one is).
    if key.aliased_triangles && s.stage == crate::ir::Stage::Geometry {
        let depth = key.aliased_depth_clip;
        let first = key.gs_first_provoking;
        aliased::lower_aliased_gs(s, key.flat_shade, key.aliased_clip_planes, depth, first)?;
    }
    // Likewise, polygon-mode lines stippled in the shader.
    if key.line_stipple && key.line_stipple_polygon && s.stage == crate::ir::Stage::Geometry {
        let first = key.gs_first_provoking;
        line_stipple::lower_polygon_line_stipple_gs(s, key.line_rectangular, first)?;
    }
    if key.clip_planes != 0 || key.last_vertex_stage {
        gl::lower_clip_planes(s, key.clip_planes)?;
    }
    if key.last_vertex_stage && !key.clip_halfz {
        gl::lower_clip_halfz(s)?;
    }
    if let Some(p) = key.point_size {
        gl::lower_point_size(s, f32::from_bits(p), key.point_size_fixed)?;
    }
    if let Some(max) = key.aliased_points {
        aliased::lower_aliased_points(s, f32::from_bits(max), key.smooth_points)?;
    }
    if key.smooth_lines.is_some() {
        smooth_lines::lower_smooth_lines(s)?;
    }
    if key.line_stipple {
        line_stipple::lower_line_stipple_gs(s, key.line_rectangular)?;
    }
    // After the alpha test, which reads colour output 0.
    if key.unbound_outputs != 0 {
        gl::lower_unbound_outputs(s, key.unbound_outputs);
    }
    if !demotes {
        gl::demotes_to_discards(s);
    }
    split::split_vectors(s);
    Ok(())
}
