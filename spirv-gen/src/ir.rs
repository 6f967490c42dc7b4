//! The typed SSA IR, in the spirit of Mesa's NIR.
//!
//! Design:
//! - A [`Shader`] has one stage, stage information (execution modes), a list
//!   of global [`Variable`]s and one entry function body.
//! - Values are SSA: every [`Instr`] defines at most one [`ValueId`] with an
//!   explicit [`Type`] (a scalar or a vector of 1–4 components of bool,
//!   int, uint or float with 16, 32 or 64 bits; bool has no bit size).
//! - Control flow is structured, as in NIR: a body is a list of [`Node`]s,
//!   each an instruction, an `if`/`else`, a `loop`, or a jump (`break`,
//!   `continue`, `return`, `discard`). There are no phis: values carried
//!   across control flow go through function-local variables (`local`), the
//!   way NIR looks before `nir_lower_vars_to_ssa`. SSA dominance is therefore
//!   lexical: a value is visible in the rest of the body that defines it,
//!   including nested bodies, and nowhere else.
//! - `discard` terminates the invocation (OpKill / OpTerminateInvocation);
//!   `demote` is an instruction that turns the invocation into a helper and
//!   lets it continue (OpDemoteToHelperInvocation).
//! - Memory is reached through variables: inputs/outputs (locations,
//!   components, interpolation, built-ins, per-vertex arrays, patch), locals,
//!   shared memory (arrays of scalars/vectors), UBOs, SSBOs and the push
//!   constant block (all three byte-addressed in 32-bit words, as NIR's
//!   `load_ubo` with byte offsets), sampled textures and storage images.
//!   Gallium slots of resources map to Vulkan bindings per [`crate::binding`].

use std::fmt;

/// Shader stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stage {
    Vertex,
    TessCtrl,
    TessEval,
    Geometry,
    Fragment,
    Compute,
}

impl Stage {
    pub const ALL: [Stage; 6] = [
        Stage::Vertex,
        Stage::TessCtrl,
        Stage::TessEval,
        Stage::Geometry,
        Stage::Fragment,
        Stage::Compute,
    ];
    /// Index used by the binding model (0..6).
    pub fn index(self) -> u32 {
        self as u32
    }
    pub fn name(self) -> &'static str {
        match self {
            Stage::Vertex => "vertex",
            Stage::TessCtrl => "tess_ctrl",
            Stage::TessEval => "tess_eval",
            Stage::Geometry => "geometry",
            Stage::Fragment => "fragment",
            Stage::Compute => "compute",
        }
    }
    pub fn from_name(s: &str) -> Option<Stage> {
        Stage::ALL.into_iter().find(|st| st.name() == s)
    }
    /// Whether this stage can be the last one before rasterization.
    pub fn is_pre_raster(self) -> bool {
        matches!(self, Stage::Vertex | Stage::TessEval | Stage::Geometry)
    }
}

/// Component base type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BaseType {
    Bool,
    Int,
    Uint,
    Float,
}

/// A scalar or vector type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Type {
    pub base: BaseType,
    /// 16, 32 or 64; 1 for bool.
    pub bits: u8,
    /// 1..=4
    pub comps: u8,
}

impl Type {
    pub const BOOL: Type = Type {
        base: BaseType::Bool,
        bits: 1,
        comps: 1,
    };
    pub const I32: Type = Type {
        base: BaseType::Int,
        bits: 32,
        comps: 1,
    };
    pub const U32: Type = Type {
        base: BaseType::Uint,
        bits: 32,
        comps: 1,
    };
    pub const F32: Type = Type {
        base: BaseType::Float,
        bits: 32,
        comps: 1,
    };

    /// A checked constructor: `None` when the bit size or width is illegal.
    pub fn new(base: BaseType, bits: u8, comps: u8) -> Option<Type> {
        let bits_ok = match base {
            BaseType::Bool => bits == 1,
            _ => matches!(bits, 16 | 32 | 64),
        };
        (bits_ok && (1..=4).contains(&comps)).then_some(Type { base, bits, comps })
    }
    pub fn float(bits: u8, comps: u8) -> Type {
        Type {
            base: BaseType::Float,
            bits,
            comps,
        }
    }
    pub fn int(bits: u8, comps: u8) -> Type {
        Type {
            base: BaseType::Int,
            bits,
            comps,
        }
    }
    pub fn uint(bits: u8, comps: u8) -> Type {
        Type {
            base: BaseType::Uint,
            bits,
            comps,
        }
    }
    pub fn bool(comps: u8) -> Type {
        Type {
            base: BaseType::Bool,
            bits: 1,
            comps,
        }
    }
    pub fn vec4() -> Type {
        Type::float(32, 4)
    }
    pub fn scalar(self) -> Type {
        Type { comps: 1, ..self }
    }
    pub fn with_comps(self, comps: u8) -> Type {
        Type { comps, ..self }
    }
    pub fn with_base(self, base: BaseType) -> Type {
        let bits = if base == BaseType::Bool {
            1
        } else if self.base == BaseType::Bool {
            32
        } else {
            self.bits
        };
        Type {
            base,
            bits,
            comps: self.comps,
        }
    }
    pub fn is_bool(self) -> bool {
        self.base == BaseType::Bool
    }
    pub fn is_float(self) -> bool {
        self.base == BaseType::Float
    }
    pub fn is_int(self) -> bool {
        matches!(self.base, BaseType::Int | BaseType::Uint)
    }
    pub fn is_scalar(self) -> bool {
        self.comps == 1
    }
    /// Bits per component as stored (bool counts as 32).
    pub fn storage_bits(self) -> u32 {
        if self.is_bool() {
            32
        } else {
            self.bits as u32
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.base {
            BaseType::Bool => write!(f, "bool")?,
            BaseType::Int => write!(f, "i{}", self.bits)?,
            BaseType::Uint => write!(f, "u{}", self.bits)?,
            BaseType::Float => write!(f, "f{}", self.bits)?,
        }
        if self.comps > 1 {
            write!(f, "x{}", self.comps)?;
        }
        Ok(())
    }
}

/// An SSA value name (`%N` in text).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ValueId(pub u32);

/// A variable index into [`Shader::vars`] (`@name` in text).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u32);

/// Source position (1-based line and column) for instructions parsed from text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct SrcLoc {
    pub line: u32,
    pub col: u32,
}

impl fmt::Display for SrcLoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

// ---------------------------------------------------------------------------
// Variables
// ---------------------------------------------------------------------------

/// Interpolation qualifier of a fragment input (or matching output).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Interp {
    #[default]
    Smooth,
    Flat,
    NoPerspective,
}

/// Sampling qualifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Sampling {
    #[default]
    Center,
    Centroid,
    Sample,
}

/// GL varying semantics that the GL lowerings need to find (NIR's
/// `VARYING_SLOT_COL0` etc.).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GlSlot {
    Col0,
    Col1,
    Bfc0,
    Bfc1,
    /// Texture coordinate N (0..8), the target of sprite coord replacement.
    Tex(u8),
    /// GL's edge flag (NIR's `VARYING_SLOT_EDGE`): an `f32` vertex shader
    /// output at a location of its own, 0.0 when the edge that starts at
    /// the vertex is not a boundary edge. Only pipe-vk's generated
    /// polygon-edge geometry shader reads it
    /// ([`crate::passes::line_stipple::polygon_edges_gs`]); generated
    /// shaders that forward it drop the slot.
    Edge,
}

impl GlSlot {
    pub fn name(self) -> String {
        match self {
            GlSlot::Col0 => "col0".into(),
            GlSlot::Col1 => "col1".into(),
            GlSlot::Bfc0 => "bfc0".into(),
            GlSlot::Bfc1 => "bfc1".into(),
            GlSlot::Tex(n) => format!("tex{n}"),
            GlSlot::Edge => "edge".into(),
        }
    }
    pub fn from_name(s: &str) -> Option<GlSlot> {
        Some(match s {
            "col0" => GlSlot::Col0,
            "col1" => GlSlot::Col1,
            "bfc0" => GlSlot::Bfc0,
            "bfc1" => GlSlot::Bfc1,
            "edge" => GlSlot::Edge,
            _ => {
                let n: u8 = s.strip_prefix("tex")?.parse().ok()?;
                if n >= 8 {
                    return None;
                }
                GlSlot::Tex(n)
            }
        })
    }
}

macro_rules! named_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $v:ident = $s:literal),* $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $($(#[$vm])* $v),* }
        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$v),*];
            pub fn name(self) -> &'static str {
                match self { $($name::$v => $s),* }
            }
            pub fn from_name(s: &str) -> Option<$name> {
                match s { $($s => Some($name::$v),)* _ => None }
            }
        }
    };
}
pub(crate) use named_enum;

named_enum!(
    /// Built-in variables (SPIR-V `BuiltIn`).
    BuiltIn {
        Position = "position",
        PointSize = "point_size",
        ClipDistance = "clip_distance",
        CullDistance = "cull_distance",
        Layer = "layer",
        ViewportIndex = "viewport_index",
        FragCoord = "frag_coord",
        FrontFacing = "front_facing",
        PointCoord = "point_coord",
        SampleId = "sample_id",
        SamplePos = "sample_pos",
        SampleMask = "sample_mask",
        FragDepth = "frag_depth",
        FragStencilRef = "frag_stencil_ref",
        HelperInvocation = "helper_invocation",
        VertexIndex = "vertex_index",
        InstanceIndex = "instance_index",
        BaseVertex = "base_vertex",
        BaseInstance = "base_instance",
        DrawIndex = "draw_index",
        PrimitiveId = "primitive_id",
        InvocationId = "invocation_id",
        TessCoord = "tess_coord",
        TessLevelOuter = "tess_level_outer",
        TessLevelInner = "tess_level_inner",
        PatchVertices = "patch_vertices",
        LocalInvocationId = "local_invocation_id",
        LocalInvocationIndex = "local_invocation_index",
        GlobalInvocationId = "global_invocation_id",
        WorkgroupId = "workgroup_id",
        NumWorkgroups = "num_workgroups",
        /// The workgroup size (`gl_WorkGroupSize`, or
        /// `gl_LocalGroupSizeARB` with a variable size), `u32x3`. Vulkan
        /// allows it only on a constant: the emitter never declares it;
        /// [`crate::passes::specialize_workgroup_size`] replaces its loads.
        WorkgroupSize = "workgroup_size",
        SubgroupSize = "subgroup_size",
        SubgroupInvocationId = "subgroup_invocation_id",
        SubgroupId = "subgroup_id",
        NumSubgroups = "num_subgroups",
    }
);

named_enum!(
    /// Texture / image dimensionality.
    Dim {
        D1 = "1d",
        D2 = "2d",
        D3 = "3d",
        Cube = "cube",
        Rect = "rect",
        Buffer = "buffer",
    }
);

impl Dim {
    /// Number of coordinate components, without the array layer.
    pub fn coord_comps(self) -> u8 {
        match self {
            Dim::D1 | Dim::Buffer => 1,
            Dim::D2 | Dim::Rect => 2,
            Dim::D3 | Dim::Cube => 3,
        }
    }
    /// Number of components of a size query.
    pub fn size_comps(self, arrayed: bool) -> u8 {
        let base = match self {
            Dim::D1 | Dim::Buffer => 1,
            Dim::D2 | Dim::Rect | Dim::Cube => 2,
            Dim::D3 => 3,
        };
        base + arrayed as u8
    }
}

named_enum!(
    /// Storage image formats (a subset of SPIR-V `ImageFormat`).
    ImageFormat {
        Unknown = "unknown",
        Rgba32f = "rgba32f",
        Rgba16f = "rgba16f",
        R32f = "r32f",
        Rgba8 = "rgba8",
        Rgba8Snorm = "rgba8_snorm",
        Rg32f = "rg32f",
        Rg16f = "rg16f",
        R16f = "r16f",
        Rgba16 = "rgba16",
        Rgb10A2 = "rgb10a2",
        Rg8 = "rg8",
        R8 = "r8",
        Rgba32i = "rgba32i",
        Rgba16i = "rgba16i",
        Rgba8i = "rgba8i",
        R32i = "r32i",
        Rg32i = "rg32i",
        Rgba32ui = "rgba32ui",
        Rgba16ui = "rgba16ui",
        Rgba8ui = "rgba8ui",
        R32ui = "r32ui",
        Rg32ui = "rg32ui",
        // The rest of GL 4.6's image formats (table 8.27), SPIR-V's
        // `StorageImageExtendedFormats`.
        R11fG11fB10f = "r11f_g11f_b10f",
        Rg16 = "rg16",
        R16 = "r16",
        Rgba16Snorm = "rgba16_snorm",
        Rg16Snorm = "rg16_snorm",
        Rg8Snorm = "rg8_snorm",
        R16Snorm = "r16_snorm",
        R8Snorm = "r8_snorm",
        Rg16i = "rg16i",
        Rg8i = "rg8i",
        R16i = "r16i",
        R8i = "r8i",
        Rgb10a2ui = "rgb10_a2ui",
        Rg16ui = "rg16ui",
        Rg8ui = "rg8ui",
        R16ui = "r16ui",
        R8ui = "r8ui",
    }
);

impl ImageFormat {
    /// Whether SPIR-V needs `StorageImageExtendedFormats` for it (Vulkan:
    /// `shaderStorageImageExtendedFormats`): all but the 13 formats of
    /// SPIR-V's `Shader` capability and `unknown`.
    pub fn is_extended(self) -> bool {
        use ImageFormat::*;
        !matches!(
            self,
            Unknown
                | Rgba32f
                | Rgba16f
                | R32f
                | Rgba8
                | Rgba8Snorm
                | Rgba32i
                | Rgba16i
                | Rgba8i
                | R32i
                | Rgba32ui
                | Rgba16ui
                | Rgba8ui
                | R32ui
        )
    }

    /// The texel base type of the format, or `None` for `unknown`.
    pub fn base(self) -> Option<BaseType> {
        use ImageFormat::*;
        Some(match self {
            Unknown => return None,
            Rgba32i | Rgba16i | Rgba8i | R32i | Rg32i | Rg16i | Rg8i | R16i | R8i => BaseType::Int,
            Rgba32ui | Rgba16ui | Rgba8ui | R32ui | Rg32ui | Rgb10a2ui | Rg16ui | Rg8ui | R16ui
            | R8ui => BaseType::Uint,
            _ => BaseType::Float,
        })
    }
}

/// Sampled type of a texture or image (`float`, `int`, `uint`).
pub fn sampled_name(b: BaseType) -> &'static str {
    match b {
        BaseType::Float => "float",
        BaseType::Int => "int",
        BaseType::Uint => "uint",
        BaseType::Bool => "bool",
    }
}

/// What kind of variable, with kind-specific data.
#[derive(Clone, Debug, PartialEq)]
pub enum VarKind {
    /// Stage input (`in`).
    Input(IoInfo),
    /// Stage output (`out`).
    Output(IoInfo),
    /// Function-local variable (`local`).
    Local,
    /// Workgroup shared memory (`shared`), compute only.
    Shared,
    /// Uniform buffer at Gallium constant-buffer slot `slot`; `size` in bytes
    /// (a multiple of 16).
    Ubo { slot: u32, size: u32 },
    /// Shader storage buffer at Gallium shader-buffer slot `slot`.
    Ssbo { slot: u32, readonly: bool },
    /// The push constant block; `size` in bytes (a multiple of 4). See
    /// [`crate::binding::push`] for the driver's layout.
    Push { size: u32 },
    /// Combined sampler + sampler view at Gallium slot `slot`.
    Texture(TextureInfo),
    /// Storage image at Gallium image slot `slot`.
    Image(ImageInfo),
    /// Framebuffer fetch (`fbfetch`): colour buffer `slot` of the bound
    /// framebuffer, read with [`Intrinsic::FbFetch`] at the fragment's own
    /// pixel (GL's `gl_LastFragData`, EXT_shader_framebuffer_fetch); see
    /// [`crate::binding::fbfetch_binding`]. Fragment only.
    FbFetch(FbFetchInfo),
}

/// Interface qualifiers of an input or output.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct IoInfo {
    pub location: Option<u32>,
    pub component: u32,
    /// Fragment output index (`Index` decoration): 1 is the second source
    /// of dual-source blending at location 0.
    pub index: u32,
    pub builtin: Option<BuiltIn>,
    pub interp: Interp,
    pub sampling: Sampling,
    /// Per-patch (tessellation).
    pub patch: bool,
    pub invariant: bool,
    /// GL semantic for the lowerings.
    pub slot: Option<GlSlot>,
    /// Transform feedback capture of an output of the last pre-raster
    /// stage (`XfbBuffer`, `XfbStride`, `Offset`); see [`Xfb`].
    pub xfb: Option<Xfb>,
    /// Vertex stream of a geometry shader output (`Stream`, 0..4): the
    /// stream whose `emit_vertex stream=N` captures it.
    pub stream: u32,
}

/// Where transform feedback writes an output (SPIR-V's `XfbBuffer`,
/// `XfbStride` and `Offset` decorations; GLSL's `xfb_buffer`, `xfb_stride`,
/// `xfb_offset`). A shader with any captured output gets the `Xfb`
/// execution mode. Every output of one buffer names the same stride.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Xfb {
    /// Transform feedback buffer, 0..4.
    pub buffer: u32,
    /// Byte offset of the output in each vertex's record (a multiple of 4).
    pub offset: u32,
    /// Bytes between vertices in the buffer (a multiple of 4).
    pub stride: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TextureInfo {
    pub slot: u32,
    pub dim: Dim,
    pub arrayed: bool,
    pub ms: bool,
    pub shadow: bool,
    /// float, int or uint
    pub sampled: BaseType,
}

/// A framebuffer-fetch variable: which colour buffer, its texel type, and
/// whether the framebuffer is multisampled (then each fetch names its
/// sample; see [`crate::passes::VariantKey::fbfetch_ms`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FbFetchInfo {
    pub slot: u32,
    pub sampled: BaseType,
    pub ms: bool,
    /// The framebuffer is layered: the fetch reads a 2D array image at
    /// the fragment's `Layer` ([`crate::passes::gl::lower_fbfetch_layered`]).
    pub layered: bool,
    /// The colour buffer's image: [`Dim::D2`] (2D, 2D array, cube, or a
    /// slice of a 3D image), [`Dim::D1`] (1D, read at `x`, with `layered`
    /// a 1D array at `(x, Layer)`), or [`Dim::D3`] (the slices of a 3D
    /// image bound as a layered framebuffer, read at `(x, y, Layer)`;
    /// `layered` only). See [`crate::passes::gl::lower_fbfetch_dims`].
    pub dim: Dim,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ImageInfo {
    pub slot: u32,
    pub dim: Dim,
    pub arrayed: bool,
    pub ms: bool,
    pub format: ImageFormat,
    /// Texel type, for `unknown` format; otherwise the format's.
    pub sampled: BaseType,
    pub readonly: bool,
    pub writeonly: bool,
}

/// A global variable.
#[derive(Clone, Debug, PartialEq)]
pub struct Variable {
    pub name: String,
    pub kind: VarKind,
    /// Element type; unused (`u32`) for UBO/SSBO/push/texture/image.
    pub ty: Type,
    /// Array length (per-vertex arrays, clip distances, shared arrays).
    pub array: Option<u32>,
    /// Per-vertex interface variables only (inputs of tessellation and
    /// geometry shaders, outputs of tessellation control shaders): each
    /// vertex's element is itself an array of this many `ty` (GLSL's
    /// `gl_in[i].gl_ClipDistance[j]`, or an array varying of the previous
    /// stage), written `@v : f32[3][4]` (3 vertices of 4). Such a
    /// variable is indexed flat, `vertex * inner + element`, as NIR's
    /// compact clip-distance arrays are; in SPIR-V it is an array of
    /// arrays, and each vertex's element takes `inner` locations.
    pub inner: Option<u32>,
}

impl Variable {
    pub fn io(&self) -> Option<&IoInfo> {
        match &self.kind {
            VarKind::Input(io) | VarKind::Output(io) => Some(io),
            _ => None,
        }
    }
    pub fn io_mut(&mut self) -> Option<&mut IoInfo> {
        match &mut self.kind {
            VarKind::Input(io) | VarKind::Output(io) => Some(io),
            _ => None,
        }
    }
    pub fn is_input(&self) -> bool {
        matches!(self.kind, VarKind::Input(_))
    }
    pub fn is_output(&self) -> bool {
        matches!(self.kind, VarKind::Output(_))
    }
    pub fn builtin(&self) -> Option<BuiltIn> {
        self.io().and_then(|io| io.builtin)
    }
    /// Whether `load`/`store` on it take an element index.
    pub fn is_array(&self) -> bool {
        self.array.is_some()
    }
    /// Whether it is a per-vertex interface variable of a `stage` shader
    /// (an input of a tessellation or geometry shader, or an output of a
    /// tessellation control shader, not `patch`): its array is the
    /// vertex array.
    pub fn is_per_vertex(&self, stage: Stage) -> bool {
        let Some(io) = self.io() else {
            return false;
        };
        let output = self.is_output();
        !io.patch
            && (matches!(stage, Stage::TessCtrl | Stage::Geometry | Stage::TessEval) && !output
                || stage == Stage::TessCtrl && output)
    }
    /// Locations an interface variable with a location takes (of 32-bit
    /// scalars and vectors): one per element of an array; a per-vertex
    /// variable's as its element's, one or [`Variable::inner`].
    pub fn locations(&self, stage: Stage) -> u32 {
        if self.is_per_vertex(stage) {
            self.inner.unwrap_or(1)
        } else {
            self.array.unwrap_or(1)
        }
    }
    /// Elements `load`/`store` can index: the array length, times
    /// [`Variable::inner`] for an array of arrays.
    pub fn flat_len(&self) -> Option<u32> {
        self.array
            .map(|n| n.saturating_mul(self.inner.unwrap_or(1)))
    }
}

// ---------------------------------------------------------------------------
// Stage info
// ---------------------------------------------------------------------------

named_enum!(
    /// Geometry shader input primitive.
    GsInput {
        Points = "points",
        Lines = "lines",
        LinesAdjacency = "lines_adjacency",
        Triangles = "triangles",
        TrianglesAdjacency = "triangles_adjacency",
    }
);

impl GsInput {
    pub fn vertices(self) -> u32 {
        match self {
            GsInput::Points => 1,
            GsInput::Lines => 2,
            GsInput::LinesAdjacency => 4,
            GsInput::Triangles => 3,
            GsInput::TrianglesAdjacency => 6,
        }
    }
}

named_enum!(
    /// Geometry shader output primitive.
    GsOutput {
        Points = "points",
        LineStrip = "line_strip",
        TriangleStrip = "triangle_strip",
    }
);

named_enum!(
    /// Tessellation primitive mode.
    TessMode {
        Triangles = "triangles",
        Quads = "quads",
        Isolines = "isolines",
    }
);

named_enum!(
    /// Tessellation spacing.
    TessSpacing {
        Equal = "equal",
        FractionalEven = "fractional_even",
        FractionalOdd = "fractional_odd",
    }
);

/// Per-stage execution modes.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct StageInfo {
    /// Compute workgroup size.
    pub local_size: Option<[u32; 3]>,
    /// The workgroup size is chosen at dispatch (GL's
    /// `ARB_compute_variable_group_size`, Gallium's `GridInfo::block`):
    /// `local_size` is ignored until
    /// [`crate::passes::specialize_workgroup_size`] sets it, and the
    /// emitter refuses the shader before that.
    pub local_size_variable: bool,
    pub gs_input: Option<GsInput>,
    pub gs_output: Option<GsOutput>,
    pub gs_max_vertices: Option<u32>,
    pub gs_invocations: Option<u32>,
    /// Tessellation control output patch size.
    pub tcs_vertices: Option<u32>,
    pub tes_mode: Option<TessMode>,
    pub tes_spacing: Option<TessSpacing>,
    /// Counter-clockwise winding (default `true` when `tes_mode` is set).
    pub tes_ccw: bool,
    pub tes_point_mode: bool,
    pub early_fragment_tests: bool,
}

// ---------------------------------------------------------------------------
// Instructions
// ---------------------------------------------------------------------------

named_enum!(
    /// ALU opcodes, named after NIR.
    AluOp {
        // float arithmetic
        Fadd = "fadd", Fsub = "fsub", Fmul = "fmul", Fdiv = "fdiv", Fmod = "fmod",
        Fneg = "fneg", Fabs = "fabs", Fsign = "fsign", Ffloor = "ffloor", Fceil = "fceil",
        Ftrunc = "ftrunc", FroundEven = "fround_even", Ffract = "ffract",
        Fmin = "fmin", Fmax = "fmax", Fclamp = "fclamp", Fsat = "fsat", Ffma = "ffma",
        Flrp = "flrp", Fstep = "fstep", Fsmoothstep = "fsmoothstep",
        Frcp = "frcp", Frsq = "frsq", Fsqrt = "fsqrt", Fexp2 = "fexp2", Flog2 = "flog2",
        Fexp = "fexp", Flog = "flog", Fpow = "fpow",
        Fsin = "fsin", Fcos = "fcos", Ftan = "ftan", Fasin = "fasin", Facos = "facos",
        Fatan = "fatan", Fatan2 = "fatan2", Fsinh = "fsinh", Fcosh = "fcosh", Ftanh = "ftanh",
        Fdot = "fdot", Fcross = "fcross", Flength = "flength", Fnormalize = "fnormalize",
        Fdistance = "fdistance", Fldexp = "fldexp",
        // float comparisons (bool result)
        Feq = "feq", Fneu = "fneu", Flt = "flt", Fge = "fge", Fisnan = "fisnan", Fisinf = "fisinf",
        // integer arithmetic
        Iadd = "iadd", Isub = "isub", Imul = "imul", Idiv = "idiv", Udiv = "udiv",
        Irem = "irem", Imod = "imod", Umod = "umod", Ineg = "ineg", Iabs = "iabs", Isign = "isign",
        Imin = "imin", Imax = "imax", Umin = "umin", Umax = "umax", Iclamp = "iclamp", Uclamp = "uclamp",
        // integer comparisons
        Ieq = "ieq", Ine = "ine", Ilt = "ilt", Ige = "ige", Ult = "ult", Uge = "uge",
        // bit ops
        Iand = "iand", Ior = "ior", Ixor = "ixor", Inot = "inot",
        Ishl = "ishl", Ishr = "ishr", Ushr = "ushr",
        BitCount = "bit_count", BitfieldReverse = "bitfield_reverse",
        FindLsb = "find_lsb", UfindMsb = "ufind_msb", IfindMsb = "ifind_msb",
        UbitfieldExtract = "ubitfield_extract", IbitfieldExtract = "ibitfield_extract",
        BitfieldInsert = "bitfield_insert",
        // boolean
        Band = "band", Bor = "bor", Bxor = "bxor", Bnot = "bnot", Beq = "beq",
        Bany = "bany", Ball = "ball", Bcsel = "bcsel",
        // conversions
        F2f = "f2f", F2i = "f2i", F2u = "f2u", I2f = "i2f", U2f = "u2f",
        I2i = "i2i", U2u = "u2u", B2f = "b2f", B2i = "b2i", F2b = "f2b", I2b = "i2b",
        Bitcast = "bitcast",
        // pack / unpack
        PackHalf2x16 = "pack_half_2x16", UnpackHalf2x16 = "unpack_half_2x16",
        PackSnorm4x8 = "pack_snorm_4x8", UnpackSnorm4x8 = "unpack_snorm_4x8",
        PackUnorm4x8 = "pack_unorm_4x8", UnpackUnorm4x8 = "unpack_unorm_4x8",
        PackSnorm2x16 = "pack_snorm_2x16", UnpackSnorm2x16 = "unpack_snorm_2x16",
        PackUnorm2x16 = "pack_unorm_2x16", UnpackUnorm2x16 = "unpack_unorm_2x16",
        // derivatives (fragment only)
        Fddx = "fddx", Fddy = "fddy", FddxFine = "fddx_fine", FddyFine = "fddy_fine",
        FddxCoarse = "fddx_coarse", FddyCoarse = "fddy_coarse", Fwidth = "fwidth",
        // vectors
        Vec = "vec", Mov = "mov",
    }
);

/// Operand class used by the ALU type rules (see [`AluOp::sig`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Float,
    Int,
    Bool,
    Any,
}

/// Type signature of an ALU op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AluSig {
    /// All `n` sources and the destination have the same type of `Class`.
    Same(u8, Class),
    /// `n` sources of one type of `Class`; destination is bool of the same width.
    Cmp(u8, Class),
    /// One source of class `from` converted componentwise into `to`.
    Conv(Class, Class),
    /// Anything else, checked by hand in the validator.
    Special,
}

impl AluOp {
    pub fn sig(self) -> AluSig {
        use AluOp::*;
        use AluSig::*;
        match self {
            Fadd | Fsub | Fmul | Fdiv | Fmod | Fmin | Fmax | Fpow | Fatan2 | Fstep => {
                Same(2, Class::Float)
            }
            Fneg | Fabs | Fsign | Ffloor | Fceil | Ftrunc | FroundEven | Ffract | Fsat | Frcp
            | Frsq | Fsqrt | Fexp2 | Flog2 | Fexp | Flog | Fsin | Fcos | Ftan | Fasin | Facos
            | Fatan | Fsinh | Fcosh | Ftanh | Fnormalize | Fddx | Fddy | FddxFine | FddyFine
            | FddxCoarse | FddyCoarse | Fwidth => Same(1, Class::Float),
            Fclamp | Ffma | Flrp | Fsmoothstep => Same(3, Class::Float),
            Feq | Fneu | Flt | Fge => Cmp(2, Class::Float),
            Fisnan | Fisinf => Cmp(1, Class::Float),
            Iadd | Isub | Imul | Idiv | Udiv | Irem | Imod | Umod | Imin | Imax | Umin | Umax
            | Iand | Ior | Ixor | Ishl | Ishr | Ushr => Same(2, Class::Int),
            Ineg | Iabs | Isign | Inot | BitfieldReverse => Same(1, Class::Int),
            Iclamp | Uclamp => Same(3, Class::Int),
            Ieq | Ine | Ilt | Ige | Ult | Uge => Cmp(2, Class::Int),
            Band | Bor | Bxor | Beq => Same(2, Class::Bool),
            Bnot => Same(1, Class::Bool),
            F2f => Conv(Class::Float, Class::Float),
            F2i | F2u => Conv(Class::Float, Class::Int),
            I2f | U2f => Conv(Class::Int, Class::Float),
            I2i | U2u => Conv(Class::Int, Class::Int),
            B2f => Conv(Class::Bool, Class::Float),
            B2i => Conv(Class::Bool, Class::Int),
            F2b => Conv(Class::Float, Class::Bool),
            I2b => Conv(Class::Int, Class::Bool),
            Mov => Same(1, Class::Any),
            _ => Special,
        }
    }
    /// Derivatives and implicit-LOD operations need fragment quads.
    pub fn is_derivative(self) -> bool {
        use AluOp::*;
        matches!(
            self,
            Fddx | Fddy | FddxFine | FddyFine | FddxCoarse | FddyCoarse | Fwidth
        )
    }
}

named_enum!(
    /// Atomic operations.
    AtomicOp {
        Add = "add", Imin = "imin", Umin = "umin", Imax = "imax", Umax = "umax",
        And = "and", Or = "or", Xor = "xor", Exchange = "exchange", CompSwap = "comp_swap",
    }
);

named_enum!(
    /// Memory / execution scopes.
    Scope {
        Invocation = "invocation",
        Subgroup = "subgroup",
        Workgroup = "workgroup",
        Device = "device",
        QueueFamily = "queue_family",
    }
);

/// Memory kinds a barrier orders (bit mask; `MemModes::ALL` for all).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct MemModes(pub u8);

impl MemModes {
    pub const BUFFER: MemModes = MemModes(1);
    pub const SHARED: MemModes = MemModes(2);
    pub const IMAGE: MemModes = MemModes(4);
    pub const ALL: MemModes = MemModes(7);
    pub const NAMES: [(&'static str, MemModes); 3] = [
        ("buffer", MemModes::BUFFER),
        ("shared", MemModes::SHARED),
        ("image", MemModes::IMAGE),
    ];
    pub fn contains(self, o: MemModes) -> bool {
        self.0 & o.0 == o.0
    }
}

/// Where [`Intrinsic::Interp`] interpolates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InterpAt {
    /// `offset` (`f32x2`, in pixels) from the pixel centre, whatever the
    /// shader's sample rate (`interpolateAtOffset`).
    Offset(ValueId),
    /// The position of sample `sample` (an `i32`; the pixel centre
    /// without multisample buffers: `interpolateAtSample`).
    Sample(ValueId),
    /// The centroid of the fragment's covered samples
    /// (`interpolateAtCentroid`).
    Centroid,
}

impl InterpAt {
    /// The operand, if any.
    pub fn src(&self) -> Option<ValueId> {
        match *self {
            InterpAt::Offset(v) | InterpAt::Sample(v) => Some(v),
            InterpAt::Centroid => None,
        }
    }

    /// The operand, if any, mutably.
    pub fn src_mut(&mut self) -> Option<&mut ValueId> {
        match self {
            InterpAt::Offset(v) | InterpAt::Sample(v) => Some(v),
            InterpAt::Centroid => None,
        }
    }

    /// The IR text name (`interp_at_offset`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            InterpAt::Offset(_) => "interp_at_offset",
            InterpAt::Sample(_) => "interp_at_sample",
            InterpAt::Centroid => "interp_at_centroid",
        }
    }
}

/// Intrinsics: memory access, barriers, GS emission, demote, …
#[derive(Clone, Debug, PartialEq)]
pub enum Intrinsic {
    /// `load @v` / `load @v, %index` (inputs, outputs, locals, shared).
    Load { var: VarId, index: Option<ValueId> },
    /// A floating-point fragment input interpolated elsewhere than the
    /// fragment's own position (GLSL's `interpolateAt*`): `interp_at_offset
    /// @v, %offset`, `interp_at_sample @v, %sample`, `interp_at_centroid
    /// @v`, each with `%index` after `@v` for an element of an array.
    Interp {
        var: VarId,
        index: Option<ValueId>,
        at: InterpAt,
    },
    /// `store @v, %value` / `store @v, %index, %value`.
    Store {
        var: VarId,
        index: Option<ValueId>,
        value: ValueId,
    },
    /// `load_ubo @u, %byte_offset` (u32 offset, 4-byte aligned).
    LoadUbo { var: VarId, offset: ValueId },
    /// `load_ssbo @s, %byte_offset`.
    LoadSsbo { var: VarId, offset: ValueId },
    /// `store_ssbo @s, %byte_offset, %value`.
    StoreSsbo {
        var: VarId,
        offset: ValueId,
        value: ValueId,
    },
    /// `load_push @pc, %byte_offset`.
    LoadPush { var: VarId, offset: ValueId },
    /// `load_global %address`: a load through a `u64` buffer device
    /// address (Gallium's global memory, `set_global_binding`), 4-byte
    /// aligned.
    LoadGlobal { address: ValueId },
    /// `store_global %address, %value`.
    StoreGlobal { address: ValueId, value: ValueId },
    /// `ssbo_atomic @s, %byte_offset, %data [, %compare], op=…`.
    SsboAtomic {
        var: VarId,
        offset: ValueId,
        op: AtomicOp,
        data: ValueId,
        compare: Option<ValueId>,
    },
    /// `shared_atomic @sh, %index, %data [, %compare], op=…`.
    SharedAtomic {
        var: VarId,
        index: ValueId,
        op: AtomicOp,
        data: ValueId,
        compare: Option<ValueId>,
    },
    /// `image_load @img, %coord [, sample=%s]`.
    ImageLoad {
        var: VarId,
        coord: ValueId,
        sample: Option<ValueId>,
    },
    /// `image_store @img, %coord, %value [, sample=%s]`.
    ImageStore {
        var: VarId,
        coord: ValueId,
        value: ValueId,
        sample: Option<ValueId>,
    },
    /// `image_atomic @img, %coord, %data [, %compare] [, sample=%s], op=…`.
    ImageAtomic {
        var: VarId,
        coord: ValueId,
        sample: Option<ValueId>,
        op: AtomicOp,
        data: ValueId,
        compare: Option<ValueId>,
    },
    /// `image_size @img`.
    ImageSize { var: VarId },
    /// `fbfetch @fb [, sample=%s]`: the colour buffer texel at the
    /// fragment's pixel (a `vec4` of the variable's texel type); `sample`
    /// exactly when the variable is `ms`.
    FbFetch { var: VarId, sample: Option<ValueId> },
    /// `image_samples @img`.
    ImageSamples { var: VarId },
    /// `barrier exec=…, mem=…, modes=…` (exec=`none` for a memory barrier).
    Barrier {
        exec: Option<Scope>,
        mem: Scope,
        modes: MemModes,
    },
    /// Turns the invocation into a helper (fragment).
    Demote,
    /// `is_helper` → bool (fragment).
    IsHelper,
    /// `vote_any %b`, `vote_all %b`, `vote_eq %x` → bool: GLSL's
    /// `anyInvocation`, `allInvocations` and `allInvocationsEqual` (GL
    /// 4.6, ARB_shader_group_vote) over the invocations of the subgroup
    /// running together.
    Vote { op: VoteOp, value: ValueId },
    /// Geometry `emit_vertex stream=N`.
    EmitVertex { stream: u32 },
    /// Geometry `end_primitive stream=N`.
    EndPrimitive { stream: u32 },
}

named_enum!(
    /// Subgroup votes ([`Intrinsic::Vote`]).
    VoteOp {
        Any = "vote_any", All = "vote_all", Eq = "vote_eq",
    }
);

named_enum!(
    /// Texture opcodes (NIR names).
    TexOp {
        Tex = "tex", Txb = "txb", Txl = "txl", Txd = "txd", Txf = "txf", TxfMs = "txf_ms",
        Txs = "txs", Tg4 = "tg4", Lod = "lod", QueryLevels = "query_levels",
        TextureSamples = "texture_samples",
    }
);

/// A texture instruction: `tex @t, coord=%c, bias=%b, …`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TexSrcs {
    /// Coordinates, with the array layer as last component (as NIR).
    pub coord: Option<ValueId>,
    pub bias: Option<ValueId>,
    pub lod: Option<ValueId>,
    pub ddx: Option<ValueId>,
    pub ddy: Option<ValueId>,
    pub comparator: Option<ValueId>,
    pub offset: Option<ValueId>,
    pub min_lod: Option<ValueId>,
    pub ms_index: Option<ValueId>,
}

impl TexSrcs {
    /// (name, value) of each present source, in canonical order.
    pub fn list(&self) -> Vec<(&'static str, ValueId)> {
        let mut v = Vec::new();
        for (n, s) in [
            ("coord", self.coord),
            ("bias", self.bias),
            ("lod", self.lod),
            ("ddx", self.ddx),
            ("ddy", self.ddy),
            ("comparator", self.comparator),
            ("offset", self.offset),
            ("min_lod", self.min_lod),
            ("ms_index", self.ms_index),
        ] {
            if let Some(s) = s {
                v.push((n, s));
            }
        }
        v
    }
    pub fn slot_mut(&mut self, name: &str) -> Option<&mut Option<ValueId>> {
        Some(match name {
            "coord" => &mut self.coord,
            "bias" => &mut self.bias,
            "lod" => &mut self.lod,
            "ddx" => &mut self.ddx,
            "ddy" => &mut self.ddy,
            "comparator" => &mut self.comparator,
            "offset" => &mut self.offset,
            "min_lod" => &mut self.min_lod,
            "ms_index" => &mut self.ms_index,
            _ => return None,
        })
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Tex {
    pub op: TexOp,
    pub var: VarId,
    pub srcs: TexSrcs,
    /// Gather component (tg4), 0..4.
    pub component: u8,
}

/// An operation.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// Constant: one bit pattern per component (bool: 0/1).
    Const(Vec<u64>),
    Undef,
    Alu(AluOp, Vec<ValueId>),
    /// `swizzle %v, xyz…`: pick components (also extraction of one).
    Swizzle(ValueId, Vec<u8>),
    /// `insert %vec, %scalar, N`: replace component N.
    Insert(ValueId, ValueId, u8),
    Intrinsic(Intrinsic),
    Tex(Tex),
}

/// An instruction: an optional typed destination and an operation.
#[derive(Clone, Debug, PartialEq)]
pub struct Instr {
    pub dest: Option<(ValueId, Type)>,
    pub op: Op,
    pub loc: Option<SrcLoc>,
}

impl Instr {
    /// All SSA sources, in operand order.
    pub fn srcs(&self) -> Vec<ValueId> {
        let mut v = Vec::new();
        self.for_each_src(|s| v.push(s));
        v
    }
    pub fn for_each_src(&self, mut f: impl FnMut(ValueId)) {
        let mut g = |s: &ValueId| f(*s);
        self.visit_srcs(&mut |s| g(s));
    }
    fn visit_srcs(&self, f: &mut dyn FnMut(&ValueId)) {
        let opt = |o: &Option<ValueId>, f: &mut dyn FnMut(&ValueId)| {
            if let Some(v) = o {
                f(v)
            }
        };
        match &self.op {
            Op::Const(_) | Op::Undef => {}
            Op::Alu(_, s) => s.iter().for_each(&mut *f),
            Op::Swizzle(s, _) => f(s),
            Op::Insert(a, b, _) => {
                f(a);
                f(b)
            }
            Op::Intrinsic(i) => match i {
                Intrinsic::Load { index, .. } => opt(index, f),
                Intrinsic::Interp { index, at, .. } => {
                    opt(index, f);
                    opt(&at.src(), f)
                }
                Intrinsic::Vote { value, .. } => f(value),
                Intrinsic::Store { index, value, .. } => {
                    opt(index, f);
                    f(value)
                }
                Intrinsic::LoadUbo { offset, .. }
                | Intrinsic::LoadSsbo { offset, .. }
                | Intrinsic::LoadPush { offset, .. }
                | Intrinsic::LoadGlobal { address: offset } => f(offset),
                Intrinsic::StoreSsbo { offset, value, .. }
                | Intrinsic::StoreGlobal {
                    address: offset,
                    value,
                } => {
                    f(offset);
                    f(value)
                }
                Intrinsic::SsboAtomic {
                    offset: a,
                    data,
                    compare,
                    ..
                }
                | Intrinsic::SharedAtomic {
                    index: a,
                    data,
                    compare,
                    ..
                } => {
                    f(a);
                    f(data);
                    opt(compare, f)
                }
                Intrinsic::ImageLoad { coord, sample, .. } => {
                    f(coord);
                    opt(sample, f)
                }
                Intrinsic::FbFetch { sample, .. } => opt(sample, f),
                Intrinsic::ImageStore {
                    coord,
                    value,
                    sample,
                    ..
                } => {
                    f(coord);
                    f(value);
                    opt(sample, f)
                }
                Intrinsic::ImageAtomic {
                    coord,
                    sample,
                    data,
                    compare,
                    ..
                } => {
                    f(coord);
                    f(data);
                    opt(compare, f);
                    opt(sample, f)
                }
                _ => {}
            },
            Op::Tex(t) => {
                for (_, v) in t.srcs.list() {
                    f(&v)
                }
            }
        }
    }
    /// Apply `f` to every SSA source in place.
    pub fn map_srcs(&mut self, mut f: impl FnMut(ValueId) -> ValueId) {
        let mut m = |v: &mut ValueId| *v = f(*v);
        let mo = |o: &mut Option<ValueId>, m: &mut dyn FnMut(&mut ValueId)| {
            if let Some(v) = o {
                m(v)
            }
        };
        match &mut self.op {
            Op::Const(_) | Op::Undef => {}
            Op::Alu(_, s) => s.iter_mut().for_each(&mut m),
            Op::Swizzle(s, _) => m(s),
            Op::Insert(a, b, _) => {
                m(a);
                m(b)
            }
            Op::Intrinsic(i) => match i {
                Intrinsic::Load { index, .. } => mo(index, &mut m),
                Intrinsic::Interp { index, at, .. } => {
                    mo(index, &mut m);
                    if let Some(v) = at.src_mut() {
                        m(v)
                    }
                }
                Intrinsic::Vote { value, .. } => m(value),
                Intrinsic::Store { index, value, .. } => {
                    mo(index, &mut m);
                    m(value)
                }
                Intrinsic::LoadUbo { offset, .. }
                | Intrinsic::LoadSsbo { offset, .. }
                | Intrinsic::LoadPush { offset, .. }
                | Intrinsic::LoadGlobal { address: offset } => m(offset),
                Intrinsic::StoreSsbo { offset, value, .. }
                | Intrinsic::StoreGlobal {
                    address: offset,
                    value,
                } => {
                    m(offset);
                    m(value)
                }
                Intrinsic::SsboAtomic {
                    offset: a,
                    data,
                    compare,
                    ..
                }
                | Intrinsic::SharedAtomic {
                    index: a,
                    data,
                    compare,
                    ..
                } => {
                    m(a);
                    m(data);
                    mo(compare, &mut m)
                }
                Intrinsic::ImageLoad { coord, sample, .. } => {
                    m(coord);
                    mo(sample, &mut m)
                }
                Intrinsic::FbFetch { sample, .. } => mo(sample, &mut m),
                Intrinsic::ImageStore {
                    coord,
                    value,
                    sample,
                    ..
                } => {
                    m(coord);
                    m(value);
                    mo(sample, &mut m)
                }
                Intrinsic::ImageAtomic {
                    coord,
                    sample,
                    data,
                    compare,
                    ..
                } => {
                    m(coord);
                    m(data);
                    mo(compare, &mut m);
                    mo(sample, &mut m)
                }
                _ => {}
            },
            Op::Tex(t) => {
                let s = &mut t.srcs;
                for o in [
                    &mut s.coord,
                    &mut s.bias,
                    &mut s.lod,
                    &mut s.ddx,
                    &mut s.ddy,
                    &mut s.comparator,
                    &mut s.offset,
                    &mut s.min_lod,
                    &mut s.ms_index,
                ] {
                    mo(o, &mut m)
                }
            }
        }
    }
    /// The variable this instruction accesses, if any.
    pub fn var(&self) -> Option<VarId> {
        match &self.op {
            Op::Intrinsic(
                Intrinsic::Load { var, .. }
                | Intrinsic::Interp { var, .. }
                | Intrinsic::Store { var, .. }
                | Intrinsic::LoadUbo { var, .. }
                | Intrinsic::LoadSsbo { var, .. }
                | Intrinsic::StoreSsbo { var, .. }
                | Intrinsic::LoadPush { var, .. }
                | Intrinsic::SsboAtomic { var, .. }
                | Intrinsic::SharedAtomic { var, .. }
                | Intrinsic::ImageLoad { var, .. }
                | Intrinsic::ImageStore { var, .. }
                | Intrinsic::ImageAtomic { var, .. }
                | Intrinsic::ImageSize { var }
                | Intrinsic::ImageSamples { var }
                | Intrinsic::FbFetch { var, .. },
            ) => Some(*var),
            Op::Tex(t) => Some(t.var),
            _ => None,
        }
    }
    /// Whether removing this instruction (when its result is unused) changes
    /// behaviour.
    pub fn has_side_effects(&self) -> bool {
        match &self.op {
            Op::Intrinsic(i) => !matches!(
                i,
                Intrinsic::Load { .. }
                    | Intrinsic::Interp { .. }
                    | Intrinsic::LoadUbo { .. }
                    | Intrinsic::LoadSsbo { .. }
                    | Intrinsic::LoadPush { .. }
                    | Intrinsic::LoadGlobal { .. }
                    | Intrinsic::ImageLoad { .. }
                    | Intrinsic::ImageSize { .. }
                    | Intrinsic::ImageSamples { .. }
                    | Intrinsic::FbFetch { .. }
                    | Intrinsic::IsHelper
                    | Intrinsic::Vote { .. }
            ),
            _ => false,
        }
    }
}

/// A jump.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Jump {
    Break,
    Continue,
    Return,
    /// Terminate the invocation (fragment).
    Discard,
}

impl Jump {
    pub fn name(self) -> &'static str {
        match self {
            Jump::Break => "break",
            Jump::Continue => "continue",
            Jump::Return => "return",
            Jump::Discard => "discard",
        }
    }
}

/// A structured `if`.
#[derive(Clone, Debug, PartialEq)]
pub struct If {
    pub cond: ValueId,
    pub then_body: Vec<Node>,
    pub else_body: Vec<Node>,
    pub loc: Option<SrcLoc>,
}

/// A structured loop; leaves by `break` (or `return`/`discard`).
#[derive(Clone, Debug, PartialEq)]
pub struct Loop {
    pub body: Vec<Node>,
    pub loc: Option<SrcLoc>,
}

/// A control-flow tree node.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    Instr(Instr),
    If(Box<If>),
    Loop(Box<Loop>),
    Jump(Jump, Option<SrcLoc>),
}

impl Node {
    /// Whether control never falls through this node.
    pub fn is_terminator(&self) -> bool {
        match self {
            Node::Jump(..) => true,
            Node::If(i) => body_terminates(&i.then_body) && body_terminates(&i.else_body),
            Node::Loop(l) => !body_has_break(&l.body),
            Node::Instr(_) => false,
        }
    }
}

/// Whether control never falls out of the end of `body`.
pub fn body_terminates(body: &[Node]) -> bool {
    body.iter().any(Node::is_terminator)
}

/// Whether `body` contains a `break` that leaves the loop whose body it is.
pub fn body_has_break(body: &[Node]) -> bool {
    body.iter().any(|n| match n {
        Node::Jump(Jump::Break, _) => true,
        Node::If(i) => body_has_break(&i.then_body) || body_has_break(&i.else_body),
        _ => false,
    })
}

/// A shader: one stage, its variables and its entry function.
#[derive(Clone, Debug, PartialEq)]
pub struct Shader {
    pub stage: Stage,
    pub info: StageInfo,
    pub vars: Vec<Variable>,
    pub body: Vec<Node>,
    /// One past the highest SSA id in use.
    pub next_value: u32,
}

impl Shader {
    pub fn new(stage: Stage) -> Shader {
        let mut info = StageInfo::default();
        match stage {
            Stage::Compute => info.local_size = Some([1, 1, 1]),
            Stage::Geometry => {
                info.gs_input = Some(GsInput::Triangles);
                info.gs_output = Some(GsOutput::TriangleStrip);
                info.gs_max_vertices = Some(3);
                info.gs_invocations = Some(1);
            }
            Stage::TessCtrl => info.tcs_vertices = Some(3),
            Stage::TessEval => {
                info.tes_mode = Some(TessMode::Triangles);
                info.tes_spacing = Some(TessSpacing::Equal);
                info.tes_ccw = true;
            }
            _ => {}
        }
        Shader {
            stage,
            info,
            vars: Vec::new(),
            body: Vec::new(),
            next_value: 0,
        }
    }
    pub fn var(&self, v: VarId) -> &Variable {
        &self.vars[v.0 as usize]
    }
    pub fn var_mut(&mut self, v: VarId) -> &mut Variable {
        &mut self.vars[v.0 as usize]
    }
    pub fn find_var(&self, name: &str) -> Option<VarId> {
        self.vars
            .iter()
            .position(|v| v.name == name)
            .map(|i| VarId(i as u32))
    }
    pub fn new_value(&mut self) -> ValueId {
        let v = ValueId(self.next_value);
        self.next_value += 1;
        v
    }
    /// Adds a variable, renaming it (`name_1`, …) if the name is taken.
    pub fn add_var(&mut self, mut var: Variable) -> VarId {
        if self.find_var(&var.name).is_some() {
            let mut n = 1;
            while self.find_var(&format!("{}_{n}", var.name)).is_some() {
                n += 1;
            }
            var.name = format!("{}_{n}", var.name);
        }
        self.vars.push(var);
        VarId(self.vars.len() as u32 - 1)
    }
    /// Finds an input or output with this built-in.
    pub fn find_builtin(&self, output: bool, b: BuiltIn) -> Option<VarId> {
        self.vars
            .iter()
            .position(|v| v.is_output() == output && v.io().is_some() && v.builtin() == Some(b))
            .map(|i| VarId(i as u32))
    }
    /// Number of instructions (not counting control-flow nodes).
    pub fn instr_count(&self) -> usize {
        fn count(b: &[Node]) -> usize {
            b.iter()
                .map(|n| match n {
                    Node::Instr(_) => 1,
                    Node::If(i) => count(&i.then_body) + count(&i.else_body),
                    Node::Loop(l) => count(&l.body),
                    Node::Jump(..) => 0,
                })
                .sum()
        }
        count(&self.body)
    }
}

/// Calls `f` on every instruction, in program order.
pub fn walk_instrs<'a>(body: &'a [Node], f: &mut dyn FnMut(&'a Instr)) {
    for n in body {
        match n {
            Node::Instr(i) => f(i),
            Node::If(i) => {
                walk_instrs(&i.then_body, f);
                walk_instrs(&i.else_body, f);
            }
            Node::Loop(l) => walk_instrs(&l.body, f),
            Node::Jump(..) => {}
        }
    }
}

/// Calls `f` on every instruction mutably, in program order.
pub fn walk_instrs_mut(body: &mut [Node], f: &mut dyn FnMut(&mut Instr)) {
    for n in body {
        match n {
            Node::Instr(i) => f(i),
            Node::If(i) => {
                walk_instrs_mut(&mut i.then_body, f);
                walk_instrs_mut(&mut i.else_body, f);
            }
            Node::Loop(l) => walk_instrs_mut(&mut l.body, f),
            Node::Jump(..) => {}
        }
    }
}
