//! Resources: buffers and textures, their templates and boxes.
//!
//! A [`Resource`] is `Arc<Object<ResourceTemplate>>`: the template it was
//! created from plus the backend's payload (see [`crate::object`]). The
//! geometry helpers here (per-level extents, layer counts, box checks) are the
//! single place where Gallium's box conventions live: for 1D/2D arrays
//! `z/depth` index layers, for cubes faces, for cube arrays `face = z % 6,
//! array = z / 6`, and for 3D textures depth slices of the level.

use bitflags::bitflags;

use crate::error::{PipeError, PipeResult};
use crate::format::Format;
use crate::object::Object;

/// `enum pipe_texture_target`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    Buffer,
    Texture1D,
    Texture2D,
    Texture3D,
    TextureCube,
    TextureRect,
    Texture1DArray,
    Texture2DArray,
    TextureCubeArray,
}

impl Target {
    /// Every target, in `pipe_texture_target` order.
    pub const ALL: [Target; 9] = [
        Target::Buffer,
        Target::Texture1D,
        Target::Texture2D,
        Target::Texture3D,
        Target::TextureCube,
        Target::TextureRect,
        Target::Texture1DArray,
        Target::Texture2DArray,
        Target::TextureCubeArray,
    ];

    /// Whether `array_size` counts layers (arrays and cubes).
    pub fn is_layered(self) -> bool {
        matches!(
            self,
            Target::Texture1DArray
                | Target::Texture2DArray
                | Target::TextureCube
                | Target::TextureCubeArray
        )
    }

    /// Whether the target is a cube or cube array.
    pub fn is_cube(self) -> bool {
        matches!(self, Target::TextureCube | Target::TextureCubeArray)
    }

    /// Number of dimensions of one layer (1, 2 or 3; buffers are 1).
    pub fn dims(self) -> u32 {
        match self {
            Target::Buffer | Target::Texture1D | Target::Texture1DArray => 1,
            Target::Texture3D => 3,
            _ => 2,
        }
    }

    /// Lower-case name as in `PIPE_TEXTURE_*`/`PIPE_BUFFER`.
    pub fn name(self) -> &'static str {
        match self {
            Target::Buffer => "buffer",
            Target::Texture1D => "1d",
            Target::Texture2D => "2d",
            Target::Texture3D => "3d",
            Target::TextureCube => "cube",
            Target::TextureRect => "rect",
            Target::Texture1DArray => "1d-array",
            Target::Texture2DArray => "2d-array",
            Target::TextureCubeArray => "cube-array",
        }
    }
}

bitflags! {
    /// `PIPE_BIND_*`: how a resource may be bound.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    pub struct BindFlags: u32 {
        const DEPTH_STENCIL = 1 << 0;
        const RENDER_TARGET = 1 << 1;
        const BLENDABLE = 1 << 2;
        const SAMPLER_VIEW = 1 << 3;
        const VERTEX_BUFFER = 1 << 4;
        const INDEX_BUFFER = 1 << 5;
        const CONSTANT_BUFFER = 1 << 6;
        const DISPLAY_TARGET = 1 << 7;
        const VERTEX_STATE = 1 << 8;
        const STREAM_OUTPUT = 1 << 10;
        const CURSOR = 1 << 11;
        const CUSTOM = 1 << 12;
        const GLOBAL = 1 << 13;
        const SHADER_BUFFER = 1 << 14;
        const SHADER_IMAGE = 1 << 15;
        const COMPUTE_RESOURCE = 1 << 16;
        const COMMAND_ARGS_BUFFER = 1 << 17;
        const QUERY_BUFFER = 1 << 18;
        const SCANOUT = 1 << 19;
        const SHARED = 1 << 20;
        const LINEAR = 1 << 21;
        const PROTECTED = 1 << 22;
        const SAMPLER_REDUCTION_MINMAX = 1 << 23;
    }
}

/// `enum pipe_resource_usage`: the expected CPU/GPU access pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Usage {
    /// Fast GPU access.
    #[default]
    Default,
    /// Fast GPU access, never changed.
    Immutable,
    /// Updated repeatedly.
    Dynamic,
    /// Updated every time it is used.
    Stream,
    /// Read back by the CPU (staging).
    Staging,
}

bitflags! {
    /// `PIPE_RESOURCE_FLAG_*`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    pub struct ResourceFlags: u32 {
        const MAP_PERSISTENT = 1 << 0;
        const MAP_COHERENT = 1 << 1;
        const TEXTURING_MORE_LIKELY = 1 << 2;
        const SPARSE = 1 << 3;
        const SINGLE_THREAD_USE = 1 << 4;
        const ENCRYPTED = 1 << 5;
        const DONT_OVER_ALLOCATE = 1 << 6;
        const DONT_MAP_DIRECTLY = 1 << 7;
    }
}

/// `struct pipe_resource` as a creation template.
///
/// For buffers `width0` is the size in bytes and the other extents are 1.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ResourceTemplate {
    pub target: Target,
    pub format: Format,
    pub width0: u32,
    pub height0: u32,
    pub depth0: u32,
    pub array_size: u32,
    pub last_level: u32,
    /// 0 or 1 means single-sampled.
    pub nr_samples: u32,
    /// Storage samples (EQAA/CSAA); 0 means `nr_samples`.
    pub nr_storage_samples: u32,
    pub usage: Usage,
    pub bind: BindFlags,
    pub flags: ResourceFlags,
}

impl ResourceTemplate {
    /// A buffer of `size` bytes.
    pub fn buffer(size: u32, bind: BindFlags) -> Self {
        ResourceTemplate {
            target: Target::Buffer,
            format: Format::R8Unorm,
            width0: size,
            height0: 1,
            depth0: 1,
            array_size: 1,
            last_level: 0,
            nr_samples: 0,
            nr_storage_samples: 0,
            usage: Usage::Default,
            bind,
            flags: ResourceFlags::empty(),
        }
    }

    /// A single-level, single-sampled 2D texture.
    pub fn texture_2d(format: Format, width: u32, height: u32, bind: BindFlags) -> Self {
        ResourceTemplate {
            target: Target::Texture2D,
            format,
            width0: width,
            height0: height,
            depth0: 1,
            array_size: 1,
            last_level: 0,
            nr_samples: 0,
            nr_storage_samples: 0,
            usage: Usage::Default,
            bind,
            flags: ResourceFlags::empty(),
        }
    }

    /// Effective sample count (at least 1).
    pub fn samples(&self) -> u32 {
        self.nr_samples.max(1)
    }

    /// Extent of `level` (width, height, depth), minified; depth is the 3D
    /// depth, 1 for other targets. `None` when the level does not exist.
    pub fn level_extent(&self, level: u32) -> Option<(u32, u32, u32)> {
        if level > self.last_level {
            return None;
        }
        let m = |v: u32| (v.checked_shr(level).unwrap_or(0)).max(1);
        let depth = if self.target == Target::Texture3D {
            m(self.depth0)
        } else {
            1
        };
        let height = if self.target.dims() >= 2 {
            m(self.height0)
        } else {
            1
        };
        Some((m(self.width0), height, depth))
    }

    /// Number of layers a box's `z` may address at `level`: array layers
    /// (cube faces included) for layered targets, depth slices for 3D, 1
    /// otherwise.
    pub fn level_layers(&self, level: u32) -> Option<u32> {
        let (_, _, d) = self.level_extent(level)?;
        Some(match self.target {
            Target::Texture3D => d,
            t if t.is_layered() => self.array_size,
            _ => 1,
        })
    }

    /// Number of mip levels.
    pub fn num_levels(&self) -> u32 {
        self.last_level.saturating_add(1)
    }
}

/// `struct pipe_box`: a region of a resource level.
///
/// Signed like Gallium's (blits may pass negative widths to flip); transfer
/// and copy entry points require non-negative extents.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct PipeBox {
    pub x: i32,
    pub y: i32,
    pub z: i32,
    pub width: i32,
    pub height: i32,
    pub depth: i32,
}

impl PipeBox {
    /// A 1D box (buffers: byte range).
    pub fn range(x: u32, width: u32) -> Self {
        PipeBox {
            x: x as i32,
            y: 0,
            z: 0,
            width: width as i32,
            height: 1,
            depth: 1,
        }
    }

    /// A 2D box on layer 0.
    pub fn rect(x: u32, y: u32, width: u32, height: u32) -> Self {
        PipeBox {
            x: x as i32,
            y: y as i32,
            z: 0,
            width: width as i32,
            height: height as i32,
            depth: 1,
        }
    }

    /// A full 3D box.
    pub fn new(x: i32, y: i32, z: i32, width: i32, height: i32, depth: i32) -> Self {
        PipeBox {
            x,
            y,
            z,
            width,
            height,
            depth,
        }
    }

    /// The whole of `level` of a resource.
    pub fn whole_level(t: &ResourceTemplate, level: u32) -> Option<Self> {
        let (w, h, _) = t.level_extent(level)?;
        let layers = t.level_layers(level)?;
        Some(PipeBox::new(0, 0, 0, w as i32, h as i32, layers as i32))
    }

    /// Whether any extent is zero or negative.
    pub fn is_empty(&self) -> bool {
        self.width <= 0 || self.height <= 0 || self.depth <= 0
    }
}

/// Checks that `bx` lies inside `level` of `res`, with non-negative extents
/// and, for compressed formats, block-aligned origins. `what` names the
/// caller in the error message.
pub fn check_box(res: &ResourceTemplate, level: u32, bx: &PipeBox, what: &str) -> PipeResult<()> {
    let (w, h, _) = res.level_extent(level).ok_or_else(|| {
        PipeError::invalid(format!(
            "{what}: level {level} out of range (resource has {} levels)",
            res.num_levels()
        ))
    })?;
    let layers = res.level_layers(level).unwrap_or(1);
    if bx.x < 0 || bx.y < 0 || bx.z < 0 || bx.width < 0 || bx.height < 0 || bx.depth < 0 {
        return Err(PipeError::invalid(format!(
            "{what}: box {bx:?} has a negative origin or extent"
        )));
    }
    let fits = |o: i32, e: i32, lim: u32| (o as i64) + (e as i64) <= lim as i64;
    if !fits(bx.x, bx.width, w) || !fits(bx.y, bx.height, h) || !fits(bx.z, bx.depth, layers) {
        return Err(PipeError::invalid(format!(
            "{what}: box {bx:?} exceeds level {level} ({w}x{h}, {layers} layers/slices)"
        )));
    }
    let desc = res.format.desc();
    let (bw, bh) = (desc.block.width as i32, desc.block.height as i32);
    if bw > 1 || bh > 1 {
        // Origins must be block aligned; extents must be too unless they
        // reach the edge of the level (partial last block).
        let aligned =
            |o: i32, e: i32, b: i32, lim: u32| o % b == 0 && (e % b == 0 || (o + e) as u32 == lim);
        if !aligned(bx.x, bx.width, bw, w) || !aligned(bx.y, bx.height, bh, h) {
            return Err(PipeError::invalid(format!(
                "{what}: box {bx:?} is not aligned to the {bw}x{bh} blocks of {}",
                desc.name
            )));
        }
    }
    Ok(())
}

/// A buffer or texture. See [`crate::object`].
pub type Resource = std::sync::Arc<Object<ResourceTemplate>>;
