//! Mapping Gallium formats to Vulkan formats.
//!
//! Design
//! ------
//! Two tables, written as `match`es so that lookups are O(1):
//!
//! - [`vk_format`]: the direct mapping, for formats whose bits Vulkan can
//!   store and interpret as they are. Gallium names packed formats from the
//!   lowest bit and Vulkan's `*_PACKnn` formats from the highest, so
//!   `PIPE_FORMAT_B5G6R5_UNORM` is `VK_FORMAT_R5G6B5_UNORM_PACK16`, and
//!   `PIPE_FORMAT_R10G10B10A2_UNORM` is `VK_FORMAT_A2B10G10R10_UNORM_PACK32`.
//!   Byte-array formats keep their name (`R8G8B8A8_UNORM`). The two formats
//!   whose Vulkan twin comes from `VK_KHR_maintenance5` (`A8_UNORM_KHR`,
//!   `A1B5G5R5_UNORM_PACK16_KHR`) are deliberately not mapped: the device
//!   does not enable that extension, and naming their tokens in any query
//!   without it is a validation error (`VUID-...-format-parameter`).
//!   `A8_UNORM` is emulated with `R8_UNORM` instead; `R5G5B5A1_UNORM` is
//!   reported unsupported.
//! - [`emulated`]: how a format Vulkan lacks is stored in one it has, the way
//!   Mesa's Zink does it (`zink_get_format`, `zink_format_get_emulated_alpha`,
//!   `zink_format_emulate_x8`): alpha, luminance, luminance-alpha, intensity
//!   and red-alpha formats become R/RG formats read through a view swizzle;
//!   RGBX formats become their RGBA twin with alpha forced to one; LATC
//!   becomes RGTC; `X24S8`/`X32_S8X24` become the combined depth/stencil
//!   format viewed through the stencil aspect; ETC1 is stored as ETC2 (a
//!   strict superset). `A8_UNORM` is stored as `R8_UNORM`, the fallback Zink
//!   uses when `VK_KHR_maintenance5` is missing.
//!
//! An [`Emulation`] carries the Vulkan format, the swizzle a sampled view
//! must apply (compose it with the view's own swizzle with
//! [`Emulation::compose`]), and whether the emulated image may be rendered
//! to or used as a storage image. Device-dependent fallbacks for missing
//! depth formats are in [`depth_fallback`].
//!
//! Formats with no mapping and no emulation (e.g. `R32_UNORM`, `*_FIXED`,
//! `R64*`, `A8B8G8R8_*` byte orders) are unsupported for images. As
//! vertex attributes, every format GL's vertex arrays use is fetched,
//! natively or through a shader fix-up ([`vertex_fetch`],
//! [`vertex_elements_fetch`]), where Zink leaves them to `u_vbuf`'s CPU
//! conversion.

use ash::vk;
use pipe_core::format::{Colorspace, Format, Swizzle};
use spirv_gen::passes::{FetchFixup, VertexFixup};

/// The direct Vulkan format for `f`, if Vulkan has one with the same bits and
/// meaning.
pub fn vk_format(f: Format) -> Option<vk::Format> {
    use vk::Format as V;
    use Format as P;
    Some(match f {
        P::R8Unorm => V::R8_UNORM,
        P::R8Snorm => V::R8_SNORM,
        P::R8Uscaled => V::R8_USCALED,
        P::R8Sscaled => V::R8_SSCALED,
        P::R8Uint => V::R8_UINT,
        P::R8Sint => V::R8_SINT,
        P::R8Srgb => V::R8_SRGB,

        P::R8G8Unorm => V::R8G8_UNORM,
        P::R8G8Snorm => V::R8G8_SNORM,
        P::R8G8Uscaled => V::R8G8_USCALED,
        P::R8G8Sscaled => V::R8G8_SSCALED,
        P::R8G8Uint => V::R8G8_UINT,
        P::R8G8Sint => V::R8G8_SINT,
        P::R8G8Srgb => V::R8G8_SRGB,

        P::R8G8B8Unorm => V::R8G8B8_UNORM,
        P::R8G8B8Snorm => V::R8G8B8_SNORM,
        P::R8G8B8Uscaled => V::R8G8B8_USCALED,
        P::R8G8B8Sscaled => V::R8G8B8_SSCALED,
        P::R8G8B8Uint => V::R8G8B8_UINT,
        P::R8G8B8Sint => V::R8G8B8_SINT,
        P::R8G8B8Srgb => V::R8G8B8_SRGB,

        P::B8G8R8Unorm => V::B8G8R8_UNORM,
        P::B8G8R8Snorm => V::B8G8R8_SNORM,
        P::B8G8R8Uscaled => V::B8G8R8_USCALED,
        P::B8G8R8Sscaled => V::B8G8R8_SSCALED,
        P::B8G8R8Uint => V::B8G8R8_UINT,
        P::B8G8R8Sint => V::B8G8R8_SINT,
        P::B8G8R8Srgb => V::B8G8R8_SRGB,

        P::R8G8B8A8Unorm => V::R8G8B8A8_UNORM,
        P::R8G8B8A8Snorm => V::R8G8B8A8_SNORM,
        P::R8G8B8A8Uscaled => V::R8G8B8A8_USCALED,
        P::R8G8B8A8Sscaled => V::R8G8B8A8_SSCALED,
        P::R8G8B8A8Uint => V::R8G8B8A8_UINT,
        P::R8G8B8A8Sint => V::R8G8B8A8_SINT,
        P::R8G8B8A8Srgb => V::R8G8B8A8_SRGB,

        P::B8G8R8A8Unorm => V::B8G8R8A8_UNORM,
        P::B8G8R8A8Snorm => V::B8G8R8A8_SNORM,
        P::B8G8R8A8Uscaled => V::B8G8R8A8_USCALED,
        P::B8G8R8A8Sscaled => V::B8G8R8A8_SSCALED,
        P::B8G8R8A8Uint => V::B8G8R8A8_UINT,
        P::B8G8R8A8Sint => V::B8G8R8A8_SINT,
        P::B8G8R8A8Srgb => V::B8G8R8A8_SRGB,

        P::R10G10B10A2Unorm => V::A2B10G10R10_UNORM_PACK32,
        P::R10G10B10A2Snorm => V::A2B10G10R10_SNORM_PACK32,
        P::R10G10B10A2Uscaled => V::A2B10G10R10_USCALED_PACK32,
        P::R10G10B10A2Sscaled => V::A2B10G10R10_SSCALED_PACK32,
        P::R10G10B10A2Uint => V::A2B10G10R10_UINT_PACK32,
        P::R10G10B10A2Sint => V::A2B10G10R10_SINT_PACK32,

        P::B10G10R10A2Unorm => V::A2R10G10B10_UNORM_PACK32,
        P::B10G10R10A2Snorm => V::A2R10G10B10_SNORM_PACK32,
        P::B10G10R10A2Uscaled => V::A2R10G10B10_USCALED_PACK32,
        P::B10G10R10A2Sscaled => V::A2R10G10B10_SSCALED_PACK32,
        P::B10G10R10A2Uint => V::A2R10G10B10_UINT_PACK32,
        P::B10G10R10A2Sint => V::A2R10G10B10_SINT_PACK32,

        P::R16Unorm => V::R16_UNORM,
        P::R16Snorm => V::R16_SNORM,
        P::R16Uscaled => V::R16_USCALED,
        P::R16Sscaled => V::R16_SSCALED,
        P::R16Uint => V::R16_UINT,
        P::R16Sint => V::R16_SINT,
        P::R16Float => V::R16_SFLOAT,

        P::R16G16Unorm => V::R16G16_UNORM,
        P::R16G16Snorm => V::R16G16_SNORM,
        P::R16G16Uscaled => V::R16G16_USCALED,
        P::R16G16Sscaled => V::R16G16_SSCALED,
        P::R16G16Uint => V::R16G16_UINT,
        P::R16G16Sint => V::R16G16_SINT,
        P::R16G16Float => V::R16G16_SFLOAT,

        P::R16G16B16Unorm => V::R16G16B16_UNORM,
        P::R16G16B16Snorm => V::R16G16B16_SNORM,
        P::R16G16B16Uscaled => V::R16G16B16_USCALED,
        P::R16G16B16Sscaled => V::R16G16B16_SSCALED,
        P::R16G16B16Uint => V::R16G16B16_UINT,
        P::R16G16B16Sint => V::R16G16B16_SINT,
        P::R16G16B16Float => V::R16G16B16_SFLOAT,

        P::R16G16B16A16Unorm => V::R16G16B16A16_UNORM,
        P::R16G16B16A16Snorm => V::R16G16B16A16_SNORM,
        P::R16G16B16A16Uscaled => V::R16G16B16A16_USCALED,
        P::R16G16B16A16Sscaled => V::R16G16B16A16_SSCALED,
        P::R16G16B16A16Uint => V::R16G16B16A16_UINT,
        P::R16G16B16A16Sint => V::R16G16B16A16_SINT,
        P::R16G16B16A16Float => V::R16G16B16A16_SFLOAT,

        P::R32Uint => V::R32_UINT,
        P::R32Sint => V::R32_SINT,
        P::R32Float => V::R32_SFLOAT,
        P::R32G32Uint => V::R32G32_UINT,
        P::R32G32Sint => V::R32G32_SINT,
        P::R32G32Float => V::R32G32_SFLOAT,
        P::R32G32B32Uint => V::R32G32B32_UINT,
        P::R32G32B32Sint => V::R32G32B32_SINT,
        P::R32G32B32Float => V::R32G32B32_SFLOAT,
        P::R32G32B32A32Uint => V::R32G32B32A32_UINT,
        P::R32G32B32A32Sint => V::R32G32B32A32_SINT,
        P::R32G32B32A32Float => V::R32G32B32A32_SFLOAT,

        P::R64Uint => V::R64_UINT,
        P::R64Sint => V::R64_SINT,
        P::R64Float => V::R64_SFLOAT,
        P::R64G64Uint => V::R64G64_UINT,
        P::R64G64Sint => V::R64G64_SINT,
        P::R64G64Float => V::R64G64_SFLOAT,
        P::R64G64B64Uint => V::R64G64B64_UINT,
        P::R64G64B64Sint => V::R64G64B64_SINT,
        P::R64G64B64Float => V::R64G64B64_SFLOAT,
        P::R64G64B64A64Uint => V::R64G64B64A64_UINT,
        P::R64G64B64A64Sint => V::R64G64B64A64_SINT,
        P::R64G64B64A64Float => V::R64G64B64A64_SFLOAT,

        P::R11G11B10Float => V::B10G11R11_UFLOAT_PACK32,
        P::R9G9B9E5Float => V::E5B9G9R9_UFLOAT_PACK32,

        // 16-bit packed; Vulkan names them from the top bit.
        P::A4B4G4R4Unorm => V::R4G4B4A4_UNORM_PACK16,
        P::A4R4G4B4Unorm => V::B4G4R4A4_UNORM_PACK16,
        P::B4G4R4A4Unorm => V::A4R4G4B4_UNORM_PACK16,
        P::R4G4B4A4Unorm => V::A4B4G4R4_UNORM_PACK16,
        P::B5G6R5Unorm => V::R5G6B5_UNORM_PACK16,
        P::R5G6B5Unorm => V::B5G6R5_UNORM_PACK16,
        P::A1B5G5R5Unorm => V::R5G5B5A1_UNORM_PACK16,
        P::A1R5G5B5Unorm => V::B5G5R5A1_UNORM_PACK16,
        P::B5G5R5A1Unorm => V::A1R5G5B5_UNORM_PACK16,

        P::Z16Unorm => V::D16_UNORM,
        P::Z24X8Unorm => V::X8_D24_UNORM_PACK32,
        P::Z32Float => V::D32_SFLOAT,
        P::S8Uint => V::S8_UINT,
        P::Z16UnormS8Uint => V::D16_UNORM_S8_UINT,
        P::Z24UnormS8Uint => V::D24_UNORM_S8_UINT,
        P::Z32FloatS8X24Uint => V::D32_SFLOAT_S8_UINT,

        P::Bc1RgbUnorm => V::BC1_RGB_UNORM_BLOCK,
        P::Bc1RgbSrgb => V::BC1_RGB_SRGB_BLOCK,
        P::Bc1RgbaUnorm => V::BC1_RGBA_UNORM_BLOCK,
        P::Bc1RgbaSrgb => V::BC1_RGBA_SRGB_BLOCK,
        P::Bc2Unorm => V::BC2_UNORM_BLOCK,
        P::Bc2Srgb => V::BC2_SRGB_BLOCK,
        P::Bc3Unorm => V::BC3_UNORM_BLOCK,
        P::Bc3Srgb => V::BC3_SRGB_BLOCK,
        P::Rgtc1Unorm => V::BC4_UNORM_BLOCK,
        P::Rgtc1Snorm => V::BC4_SNORM_BLOCK,
        P::Rgtc2Unorm => V::BC5_UNORM_BLOCK,
        P::Rgtc2Snorm => V::BC5_SNORM_BLOCK,
        P::BptcRgbUfloat => V::BC6H_UFLOAT_BLOCK,
        P::BptcRgbFloat => V::BC6H_SFLOAT_BLOCK,
        P::BptcRgbaUnorm => V::BC7_UNORM_BLOCK,
        P::BptcSrgba => V::BC7_SRGB_BLOCK,

        P::Etc2Rgb8 => V::ETC2_R8G8B8_UNORM_BLOCK,
        P::Etc2Srgb8 => V::ETC2_R8G8B8_SRGB_BLOCK,
        P::Etc2Rgb8a1 => V::ETC2_R8G8B8A1_UNORM_BLOCK,
        P::Etc2Srgb8a1 => V::ETC2_R8G8B8A1_SRGB_BLOCK,
        P::Etc2Rgba8 => V::ETC2_R8G8B8A8_UNORM_BLOCK,
        P::Etc2Srgba8 => V::ETC2_R8G8B8A8_SRGB_BLOCK,
        P::Etc2R11Unorm => V::EAC_R11_UNORM_BLOCK,
        P::Etc2R11Snorm => V::EAC_R11_SNORM_BLOCK,
        P::Etc2Rg11Unorm => V::EAC_R11G11_UNORM_BLOCK,
        P::Etc2Rg11Snorm => V::EAC_R11G11_SNORM_BLOCK,

        P::Astc4x4 => V::ASTC_4X4_UNORM_BLOCK,
        P::Astc4x4Srgb => V::ASTC_4X4_SRGB_BLOCK,
        P::Astc5x4 => V::ASTC_5X4_UNORM_BLOCK,
        P::Astc5x4Srgb => V::ASTC_5X4_SRGB_BLOCK,
        P::Astc5x5 => V::ASTC_5X5_UNORM_BLOCK,
        P::Astc5x5Srgb => V::ASTC_5X5_SRGB_BLOCK,
        P::Astc6x5 => V::ASTC_6X5_UNORM_BLOCK,
        P::Astc6x5Srgb => V::ASTC_6X5_SRGB_BLOCK,
        P::Astc6x6 => V::ASTC_6X6_UNORM_BLOCK,
        P::Astc6x6Srgb => V::ASTC_6X6_SRGB_BLOCK,
        P::Astc8x5 => V::ASTC_8X5_UNORM_BLOCK,
        P::Astc8x5Srgb => V::ASTC_8X5_SRGB_BLOCK,
        P::Astc8x6 => V::ASTC_8X6_UNORM_BLOCK,
        P::Astc8x6Srgb => V::ASTC_8X6_SRGB_BLOCK,
        P::Astc8x8 => V::ASTC_8X8_UNORM_BLOCK,
        P::Astc8x8Srgb => V::ASTC_8X8_SRGB_BLOCK,
        P::Astc10x5 => V::ASTC_10X5_UNORM_BLOCK,
        P::Astc10x5Srgb => V::ASTC_10X5_SRGB_BLOCK,
        P::Astc10x6 => V::ASTC_10X6_UNORM_BLOCK,
        P::Astc10x6Srgb => V::ASTC_10X6_SRGB_BLOCK,
        P::Astc10x8 => V::ASTC_10X8_UNORM_BLOCK,
        P::Astc10x8Srgb => V::ASTC_10X8_SRGB_BLOCK,
        P::Astc10x10 => V::ASTC_10X10_UNORM_BLOCK,
        P::Astc10x10Srgb => V::ASTC_10X10_SRGB_BLOCK,
        P::Astc12x10 => V::ASTC_12X10_UNORM_BLOCK,
        P::Astc12x10Srgb => V::ASTC_12X10_SRGB_BLOCK,
        P::Astc12x12 => V::ASTC_12X12_UNORM_BLOCK,
        P::Astc12x12Srgb => V::ASTC_12X12_SRGB_BLOCK,

        // Single-plane 4:2:2, same byte order.
        P::G8B8G8R8Unorm => V::G8B8G8R8_422_UNORM,
        P::B8G8R8G8Unorm => V::B8G8R8G8_422_UNORM,

        _ => return None,
    })
}

/// Why and how a format is emulated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EmulationKind {
    /// `A*` stored as `R*`, read as (0, 0, 0, R).
    Alpha,
    /// `L*` stored as `R*`, read as (R, R, R, 1).
    Luminance,
    /// `L*A*` stored as `R*G*`, read as (R, R, R, G).
    LuminanceAlpha,
    /// `I*` stored as `R*`, read as (R, R, R, R).
    Intensity,
    /// `R*A*` stored as `R*G*`, read as (R, 0, 0, G).
    RedAlpha,
    /// LATC stored as RGTC (BC4/BC5) and swizzled like luminance.
    LatcAsRgtc,
    /// An RGBX format stored as its RGBA twin; alpha reads as one. When
    /// rendering, blend factors that read destination alpha must be
    /// replaced by one/zero (Zink's `zink_format_is_voidable_rgba_variant`).
    VoidAlpha,
    /// A stencil-only view of a combined depth/stencil format.
    StencilOfDepthStencil,
    /// ETC1 stored as ETC2 RGB8, whose decoding of ETC1 data is identical.
    Etc1AsEtc2,
}

/// How to store a Gallium format that Vulkan lacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Emulation {
    /// The Vulkan format the image (and every view of it) uses.
    pub vk_format: vk::Format,
    /// For each Gallium output component (R, G, B, A), which component of
    /// the Vulkan format supplies it (`X` = Vulkan's R, `Y` = G, `Z` = B,
    /// `W` = A) or which constant.
    pub swizzle: [Swizzle; 4],
    /// The kind of emulation.
    pub kind: EmulationKind,
}

impl Emulation {
    /// The swizzle as a Vulkan component mapping.
    pub fn component_mapping(&self) -> vk::ComponentMapping {
        let [r, g, b, a] = self.swizzle.map(vk_swizzle);
        vk::ComponentMapping { r, g, b, a }
    }

    /// Composes a sampler view's swizzle (expressed on the Gallium format)
    /// with the emulation's: the result is expressed on the Vulkan format.
    pub fn compose(&self, view: [Swizzle; 4]) -> [Swizzle; 4] {
        view.map(|s| match s.channel() {
            Some(i) => self.swizzle[i],
            None => s,
        })
    }

    /// Whether the emulated format may be used as a colour or
    /// depth/stencil attachment. Zink removes the attachment features of
    /// swizzled formats: a view swizzle does not apply when rendering.
    pub fn renderable(&self) -> bool {
        matches!(
            self.kind,
            EmulationKind::VoidAlpha | EmulationKind::StencilOfDepthStencil
        )
    }

    /// Whether the emulated format may be used as a storage image or texel
    /// buffer (same reasoning as [`Emulation::renderable`]).
    pub fn storage(&self) -> bool {
        self.kind == EmulationKind::VoidAlpha
    }
}

/// Converts a swizzle to Vulkan's (`None` reads as zero).
pub fn vk_swizzle(s: Swizzle) -> vk::ComponentSwizzle {
    match s {
        Swizzle::X => vk::ComponentSwizzle::R,
        Swizzle::Y => vk::ComponentSwizzle::G,
        Swizzle::Z => vk::ComponentSwizzle::B,
        Swizzle::W => vk::ComponentSwizzle::A,
        Swizzle::One => vk::ComponentSwizzle::ONE,
        Swizzle::Zero | Swizzle::None => vk::ComponentSwizzle::ZERO,
    }
}

/// How Zink stores `f` when Vulkan has no direct format for it (plus the
/// `A8_UNORM` fallback for devices without `VK_KHR_maintenance5`).
/// `None` if `f` needs no emulation or cannot be emulated.
pub fn emulated(f: Format) -> Option<Emulation> {
    use vk::Format as V;
    use EmulationKind as K;
    use Format as P;
    use Swizzle::{One as I, Zero as O, W, X, Y, Z};
    const ALPHA: [Swizzle; 4] = [O, O, O, X];
    const LUM: [Swizzle; 4] = [X, X, X, I];
    const LUM_ALPHA: [Swizzle; 4] = [X, X, X, Y];
    const INTENSITY: [Swizzle; 4] = [X, X, X, X];
    const RED_ALPHA: [Swizzle; 4] = [X, O, O, Y];
    const RGB1: [Swizzle; 4] = [X, Y, Z, I];
    const IDENTITY: [Swizzle; 4] = [X, Y, Z, W];

    let (vk_format, swizzle, kind) = match f {
        P::A8Unorm => (V::R8_UNORM, ALPHA, K::Alpha),
        P::A8Snorm => (V::R8_SNORM, ALPHA, K::Alpha),
        P::A8Uint => (V::R8_UINT, ALPHA, K::Alpha),
        P::A8Sint => (V::R8_SINT, ALPHA, K::Alpha),
        P::A16Unorm => (V::R16_UNORM, ALPHA, K::Alpha),
        P::A16Snorm => (V::R16_SNORM, ALPHA, K::Alpha),
        P::A16Uint => (V::R16_UINT, ALPHA, K::Alpha),
        P::A16Sint => (V::R16_SINT, ALPHA, K::Alpha),
        P::A16Float => (V::R16_SFLOAT, ALPHA, K::Alpha),
        P::A32Uint => (V::R32_UINT, ALPHA, K::Alpha),
        P::A32Sint => (V::R32_SINT, ALPHA, K::Alpha),
        P::A32Float => (V::R32_SFLOAT, ALPHA, K::Alpha),

        P::L8Unorm => (V::R8_UNORM, LUM, K::Luminance),
        P::L8Snorm => (V::R8_SNORM, LUM, K::Luminance),
        P::L8Uint => (V::R8_UINT, LUM, K::Luminance),
        P::L8Sint => (V::R8_SINT, LUM, K::Luminance),
        P::L8Srgb => (V::R8_SRGB, LUM, K::Luminance),
        P::L16Unorm => (V::R16_UNORM, LUM, K::Luminance),
        P::L16Snorm => (V::R16_SNORM, LUM, K::Luminance),
        P::L16Uint => (V::R16_UINT, LUM, K::Luminance),
        P::L16Sint => (V::R16_SINT, LUM, K::Luminance),
        P::L16Float => (V::R16_SFLOAT, LUM, K::Luminance),
        P::L32Uint => (V::R32_UINT, LUM, K::Luminance),
        P::L32Sint => (V::R32_SINT, LUM, K::Luminance),
        P::L32Float => (V::R32_SFLOAT, LUM, K::Luminance),

        // L8A8_SRGB has no emulation: R8G8_SRGB would sRGB-decode alpha.
        P::L4A4Unorm => (V::R4G4_UNORM_PACK8, [Y, Y, Y, X], K::LuminanceAlpha),
        P::L8A8Unorm => (V::R8G8_UNORM, LUM_ALPHA, K::LuminanceAlpha),
        P::L8A8Snorm => (V::R8G8_SNORM, LUM_ALPHA, K::LuminanceAlpha),
        P::L8A8Uint => (V::R8G8_UINT, LUM_ALPHA, K::LuminanceAlpha),
        P::L8A8Sint => (V::R8G8_SINT, LUM_ALPHA, K::LuminanceAlpha),
        P::L16A16Unorm => (V::R16G16_UNORM, LUM_ALPHA, K::LuminanceAlpha),
        P::L16A16Snorm => (V::R16G16_SNORM, LUM_ALPHA, K::LuminanceAlpha),
        P::L16A16Uint => (V::R16G16_UINT, LUM_ALPHA, K::LuminanceAlpha),
        P::L16A16Sint => (V::R16G16_SINT, LUM_ALPHA, K::LuminanceAlpha),
        P::L16A16Float => (V::R16G16_SFLOAT, LUM_ALPHA, K::LuminanceAlpha),
        P::L32A32Uint => (V::R32G32_UINT, LUM_ALPHA, K::LuminanceAlpha),
        P::L32A32Sint => (V::R32G32_SINT, LUM_ALPHA, K::LuminanceAlpha),
        P::L32A32Float => (V::R32G32_SFLOAT, LUM_ALPHA, K::LuminanceAlpha),

        P::I8Unorm => (V::R8_UNORM, INTENSITY, K::Intensity),
        P::I8Snorm => (V::R8_SNORM, INTENSITY, K::Intensity),
        P::I8Uint => (V::R8_UINT, INTENSITY, K::Intensity),
        P::I8Sint => (V::R8_SINT, INTENSITY, K::Intensity),
        P::I16Unorm => (V::R16_UNORM, INTENSITY, K::Intensity),
        P::I16Snorm => (V::R16_SNORM, INTENSITY, K::Intensity),
        P::I16Uint => (V::R16_UINT, INTENSITY, K::Intensity),
        P::I16Sint => (V::R16_SINT, INTENSITY, K::Intensity),
        P::I16Float => (V::R16_SFLOAT, INTENSITY, K::Intensity),
        P::I32Uint => (V::R32_UINT, INTENSITY, K::Intensity),
        P::I32Sint => (V::R32_SINT, INTENSITY, K::Intensity),
        P::I32Float => (V::R32_SFLOAT, INTENSITY, K::Intensity),

        // R4A4: red in the low nibble, which R4G4_UNORM_PACK8 calls G.
        P::R4A4Unorm => (V::R4G4_UNORM_PACK8, [Y, O, O, X], K::RedAlpha),
        P::R8A8Unorm => (V::R8G8_UNORM, RED_ALPHA, K::RedAlpha),
        P::R8A8Snorm => (V::R8G8_SNORM, RED_ALPHA, K::RedAlpha),
        P::R8A8Uint => (V::R8G8_UINT, RED_ALPHA, K::RedAlpha),
        P::R8A8Sint => (V::R8G8_SINT, RED_ALPHA, K::RedAlpha),
        P::R16A16Unorm => (V::R16G16_UNORM, RED_ALPHA, K::RedAlpha),
        P::R16A16Snorm => (V::R16G16_SNORM, RED_ALPHA, K::RedAlpha),
        P::R16A16Uint => (V::R16G16_UINT, RED_ALPHA, K::RedAlpha),
        P::R16A16Sint => (V::R16G16_SINT, RED_ALPHA, K::RedAlpha),
        P::R16A16Float => (V::R16G16_SFLOAT, RED_ALPHA, K::RedAlpha),
        P::R32A32Uint => (V::R32G32_UINT, RED_ALPHA, K::RedAlpha),
        P::R32A32Sint => (V::R32G32_SINT, RED_ALPHA, K::RedAlpha),
        P::R32A32Float => (V::R32G32_SFLOAT, RED_ALPHA, K::RedAlpha),

        P::Latc1Unorm => (V::BC4_UNORM_BLOCK, LUM, K::LatcAsRgtc),
        P::Latc1Snorm => (V::BC4_SNORM_BLOCK, LUM, K::LatcAsRgtc),
        P::Latc2Unorm => (V::BC5_UNORM_BLOCK, LUM_ALPHA, K::LatcAsRgtc),
        P::Latc2Snorm => (V::BC5_SNORM_BLOCK, LUM_ALPHA, K::LatcAsRgtc),

        P::B8G8R8X8Unorm => (V::B8G8R8A8_UNORM, RGB1, K::VoidAlpha),
        P::B8G8R8X8Snorm => (V::B8G8R8A8_SNORM, RGB1, K::VoidAlpha),
        P::B8G8R8X8Uint => (V::B8G8R8A8_UINT, RGB1, K::VoidAlpha),
        P::B8G8R8X8Sint => (V::B8G8R8A8_SINT, RGB1, K::VoidAlpha),
        P::B8G8R8X8Srgb => (V::B8G8R8A8_SRGB, RGB1, K::VoidAlpha),
        P::R8G8B8X8Unorm => (V::R8G8B8A8_UNORM, RGB1, K::VoidAlpha),
        P::R8G8B8X8Snorm => (V::R8G8B8A8_SNORM, RGB1, K::VoidAlpha),
        P::R8G8B8X8Uint => (V::R8G8B8A8_UINT, RGB1, K::VoidAlpha),
        P::R8G8B8X8Sint => (V::R8G8B8A8_SINT, RGB1, K::VoidAlpha),
        P::R8G8B8X8Srgb => (V::R8G8B8A8_SRGB, RGB1, K::VoidAlpha),
        P::R16G16B16X16Unorm => (V::R16G16B16A16_UNORM, RGB1, K::VoidAlpha),
        P::R16G16B16X16Snorm => (V::R16G16B16A16_SNORM, RGB1, K::VoidAlpha),
        P::R16G16B16X16Uint => (V::R16G16B16A16_UINT, RGB1, K::VoidAlpha),
        P::R16G16B16X16Sint => (V::R16G16B16A16_SINT, RGB1, K::VoidAlpha),
        P::R16G16B16X16Float => (V::R16G16B16A16_SFLOAT, RGB1, K::VoidAlpha),
        P::R32G32B32X32Uint => (V::R32G32B32A32_UINT, RGB1, K::VoidAlpha),
        P::R32G32B32X32Sint => (V::R32G32B32A32_SINT, RGB1, K::VoidAlpha),
        P::R32G32B32X32Float => (V::R32G32B32A32_SFLOAT, RGB1, K::VoidAlpha),
        P::R10G10B10X2Unorm => (V::A2B10G10R10_UNORM_PACK32, RGB1, K::VoidAlpha),
        P::R10G10B10X2Snorm => (V::A2B10G10R10_SNORM_PACK32, RGB1, K::VoidAlpha),
        P::R10G10B10X2Uscaled => (V::A2B10G10R10_USCALED_PACK32, RGB1, K::VoidAlpha),
        P::R10G10B10X2Sint => (V::A2B10G10R10_SINT_PACK32, RGB1, K::VoidAlpha),
        P::B10G10R10X2Unorm => (V::A2R10G10B10_UNORM_PACK32, RGB1, K::VoidAlpha),
        P::B10G10R10X2Snorm => (V::A2R10G10B10_SNORM_PACK32, RGB1, K::VoidAlpha),
        P::B10G10R10X2Sint => (V::A2R10G10B10_SINT_PACK32, RGB1, K::VoidAlpha),
        P::B5G5R5X1Unorm => (V::A1R5G5B5_UNORM_PACK16, RGB1, K::VoidAlpha),
        P::X1B5G5R5Unorm => (V::R5G5B5A1_UNORM_PACK16, RGB1, K::VoidAlpha),
        P::X1R5G5B5Unorm => (V::B5G5R5A1_UNORM_PACK16, RGB1, K::VoidAlpha),
        P::R4G4B4X4Unorm => (V::A4B4G4R4_UNORM_PACK16, RGB1, K::VoidAlpha),
        P::B4G4R4X4Unorm => (V::A4R4G4B4_UNORM_PACK16, RGB1, K::VoidAlpha),

        P::X24S8Uint => (V::D24_UNORM_S8_UINT, IDENTITY, K::StencilOfDepthStencil),
        P::X32S8X24Uint => (V::D32_SFLOAT_S8_UINT, IDENTITY, K::StencilOfDepthStencil),

        P::Etc1Rgb8 => (V::ETC2_R8G8B8_UNORM_BLOCK, IDENTITY, K::Etc1AsEtc2),

        _ => return None,
    };
    Some(Emulation {
        vk_format,
        swizzle,
        kind,
    })
}

/// How one element of a vertex-elements CSO is fetched
/// ([`vertex_elements_fetch`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ElementFetch {
    /// The format of the Vulkan vertex input attribute.
    pub format: vk::Format,
    /// The vertex shader input location the element feeds.
    pub location: u32,
    /// The fix-up the vertex shader applies to what it reads.
    pub fixup: Option<FetchFixup>,
    /// A second attribute, 16 bytes further, and its location: the upper
    /// half of a 64-bit element split into 32-bit pairs.
    pub upper: Option<(vk::Format, u32)>,
}

/// How the elements of a vertex-elements CSO are fetched, in order.
///
/// Element `i` feeds the input location that follows the previous
/// element's. 64-bit formats follow Mesa's conventions (`st_atom_array`):
///
/// - `R64*_UINT`/`_SINT` are GL's real 64-bit attributes (`dvec*`,
///   `u64vec*`). One marked `dual_slot` (a three- or four-component
///   input) takes two locations, as such an input does in Vulkan and GL,
///   and its format is sized to the input as Mesa's
///   `util_lower_uint64_vertex_elements` does before a Gallium driver
///   sees it: at most two components without `dual_slot`. A one- or
///   two-component `dual_slot` element is fetched as it is, where Mesa
///   widens it to three and lets the hardware read past the attribute:
///   without `robustBufferAccess` a Vulkan fetch past the bound buffer is
///   not allowed (VUID-vkCmdDraw-None-02721); the components GL leaves
///   undefined read (0, 1). `R64*_FLOAT` marked `dual_slot` is taken the
///   same way.
/// - `R64*_FLOAT` without `dual_slot` is GL_DOUBLE converted to float
///   for a 32-bit input: one location, and for three or four components
///   a spare location (after every element's) for the upper half.
///
/// 64-bit elements are fetched as 32-bit unsigned pairs
/// ([`fetch_64bit`]). `dual_slot` on an element that is not 64-bit is
/// ignored, as Mesa's lowering does.
///
/// Errors when the locations exceed the device's
/// `maxVertexInputAttributes`, an element's format cannot be fetched
/// ([`vertex_fetch`]), or the upper half of a 64-bit element, 16 bytes
/// further, would be past the device's `maxVertexInputAttributeOffset`.
pub fn vertex_elements_fetch(
    dev: &crate::memory::DeviceShared,
    elements: &[pipe_core::state::VertexElement],
) -> pipe_core::PipeResult<Vec<ElementFetch>> {
    let max = dev.physical.properties.limits.max_vertex_input_attributes;
    let max_offset = dev
        .physical
        .properties
        .limits
        .max_vertex_input_attribute_offset;
    // (components, converted to float) of a 64-bit element.
    let wide = |e: &pipe_core::state::VertexElement| {
        let n = match e.src_format {
            Format::R64Float | Format::R64Uint | Format::R64Sint => 1,
            Format::R64G64Float | Format::R64G64Uint | Format::R64G64Sint => 2,
            Format::R64G64B64Float | Format::R64G64B64Uint | Format::R64G64B64Sint => 3,
            Format::R64G64B64A64Float | Format::R64G64B64A64Uint | Format::R64G64B64A64Sint => 4,
            _ => return None,
        };
        let to_float = e.src_format.is_float() && !e.dual_slot;
        Some(match () {
            _ if to_float => (n, true),
            _ if e.dual_slot => (n, false),
            _ => (n.min(2), false),
        })
    };
    let slots = |e: &pipe_core::state::VertexElement| match wide(e) {
        Some((_, false)) if e.dual_slot => 2,
        _ => 1,
    };
    let mut location = 0u32;
    // Spare locations for the upper halves of converted doubles.
    let mut spare: u32 = elements.iter().map(slots).sum();
    let mut out = Vec::with_capacity(elements.len());
    for (i, e) in elements.iter().enumerate() {
        let n = slots(e);
        if location + n > max {
            return Err(pipe_core::PipeError::invalid(format!(
                "vertex element {i}: its input locations {location}..{} exceed the device's \
                 {max} vertex input attributes (dual-slot elements take two)",
                location + n
            )));
        }
        let (format, fixup, upper) = match wide(e) {
            Some((comps, to_float)) => {
                let (lower, upper) = fetch_64bit(comps);
                let fixup = if to_float {
                    VertexFixup::Double
                } else {
                    VertexFixup::Split64
                };
                if upper.is_some() && e.src_offset.saturating_add(16) > max_offset {
                    return Err(pipe_core::PipeError::unsupported(format!(
                        "vertex element {i}: the upper half of a {} element is fetched 16 \
                         bytes after its offset {}, past the device's largest attribute \
                         offset {max_offset}",
                        e.src_format, e.src_offset
                    )));
                }
                let upper_at = if to_float && upper.is_some() {
                    spare += 1;
                    if spare > max {
                        return Err(pipe_core::PipeError::invalid(format!(
                            "vertex element {i}: a {} element needs a spare input location \
                             for its upper half, and the device's {max} are taken",
                            e.src_format
                        )));
                    }
                    spare - 1
                } else {
                    location + 1
                };
                // A dual-slot element's second location is taken (its
                // upper half is there when it has one); a converted
                // double's upper half is at a spare location.
                let fix = FetchFixup {
                    location,
                    fixup,
                    comps: comps as u8,
                    upper: if e.dual_slot {
                        Some(upper_at)
                    } else {
                        upper.map(|_| upper_at)
                    },
                };
                (lower, Some(fix), upper.map(|u| (u, upper_at)))
            }
            None => {
                let (format, fixup) = vertex_fetch(dev, e.src_format)?;
                let fixup = fixup.map(|fixup| FetchFixup {
                    location,
                    fixup,
                    comps: e.src_format.desc().nr_channels,
                    upper: None,
                });
                (format, fixup, None)
            }
        };
        out.push(ElementFetch {
            format,
            location,
            fixup,
            upper,
        });
        location += n;
    }
    Ok(out)
}

/// The 32-bit unsigned pairs a 64-bit element of `n` components is
/// fetched as, and the second attribute for its components 2 and 3. A
/// `R64*` Vulkan format is never used: a Gallium driver gets 64-bit
/// elements split this way from Mesa (whose cso layer runs
/// `util_lower_uint64_vertex_elements`; u_vbuf converts GL_DOUBLE
/// elements the device cannot fetch), and this works on every device:
/// lavapipe 25.0.7 fetches no `R64*_SFLOAT` format, and its
/// `R64G64B64A64_UINT` fetch gave 0 for z and w in
/// `pipe.draw.vertex_format.dual_slot.u64vec4` (it advertises the
/// format).
fn fetch_64bit(n: u32) -> (vk::Format, Option<vk::Format>) {
    match n {
        1 => (vk::Format::R32G32_UINT, None),
        2 => (vk::Format::R32G32B32A32_UINT, None),
        3 => (vk::Format::R32G32B32A32_UINT, Some(vk::Format::R32G32_UINT)),
        _ => (
            vk::Format::R32G32B32A32_UINT,
            Some(vk::Format::R32G32B32A32_UINT),
        ),
    }
}

/// Whether vertex elements of `f` can be fetched at all: natively or
/// through a shader fix-up ([`vertex_fetch`]), or, for the 64-bit
/// formats, as 32-bit unsigned pairs ([`fetch_64bit`]). What
/// `is_format_supported` answers for `VERTEX_BUFFER`, so that a frontend
/// converts (Mesa's u_vbuf) only what pipe-vk cannot fetch.
pub fn vertex_fetchable(dev: &crate::memory::DeviceShared, f: Format) -> bool {
    let wide = matches!(
        f,
        Format::R64Float
            | Format::R64Uint
            | Format::R64Sint
            | Format::R64G64Float
            | Format::R64G64Uint
            | Format::R64G64Sint
            | Format::R64G64B64Float
            | Format::R64G64B64Uint
            | Format::R64G64B64Sint
            | Format::R64G64B64A64Float
            | Format::R64G64B64A64Uint
            | Format::R64G64B64A64Sint
    );
    if wide {
        return fetches_vertex(dev, vk::Format::R32G32_UINT)
            && fetches_vertex(dev, vk::Format::R32G32B32A32_UINT);
    }
    vertex_fetch(dev, f).is_ok()
}

/// Whether the device fetches vertex attributes of `vf`.
fn fetches_vertex(dev: &crate::memory::DeviceShared, vf: vk::Format) -> bool {
    // SAFETY: the physical device belongs to the instance.
    let props = unsafe {
        dev.instance
            .raw
            .get_physical_device_format_properties(dev.physical.raw, vf)
    };
    props
        .buffer_features
        .contains(vk::FormatFeatureFlags::VERTEX_BUFFER)
}

/// How vertex attributes of `f` are fetched: the Vulkan format of the
/// vertex input attribute and the fix-up the vertex shader then applies
/// (`spirv_gen::passes::gl::lower_vertex_fixups`), as Zink's vertex
/// format decomposition. Native when the device fetches `f` (its buffer
/// features have `VERTEX_BUFFER`) and `force_fixups` is off
/// (`PIPE_VK_DEBUG=vertex_fixups`, so the fix-ups are tested on devices
/// that fetch everything). `Unsupported` when neither works.
pub fn vertex_fetch(
    dev: &crate::memory::DeviceShared,
    f: Format,
) -> pipe_core::PipeResult<(vk::Format, Option<VertexFixup>)> {
    let fetches = |vf: vk::Format| fetches_vertex(dev, vf);
    let name = f.name();
    let via = |n: String, fix| Format::from_name(&n).map(|g| (g, fix));
    let fix = match f {
        Format::B8G8R8A8Unorm => Some((Format::R8G8B8A8Unorm, VertexFixup::SwapRb)),
        Format::R10G10B10A2Unorm => Some((Format::R32Uint, VertexFixup::A2b10g10r10Unorm)),
        Format::R10G10B10A2Snorm => Some((Format::R32Uint, VertexFixup::A2b10g10r10Snorm)),
        Format::R10G10B10A2Uscaled => Some((Format::R32Uint, VertexFixup::A2b10g10r10Uscaled)),
        Format::R10G10B10A2Sscaled => Some((Format::R32Uint, VertexFixup::A2b10g10r10Sscaled)),
        Format::B10G10R10A2Unorm => Some((Format::R32Uint, VertexFixup::A2r10g10b10Unorm)),
        Format::B10G10R10A2Snorm => Some((Format::R32Uint, VertexFixup::A2r10g10b10Snorm)),
        Format::B10G10R10A2Uscaled => Some((Format::R32Uint, VertexFixup::A2r10g10b10Uscaled)),
        Format::B10G10R10A2Sscaled => Some((Format::R32Uint, VertexFixup::A2r10g10b10Sscaled)),
        // 32-bit normalized and 16.16 fixed-point (GL_FIXED): no Vulkan
        // format; the integer one of the same layout, converted.
        _ if name.starts_with("PIPE_FORMAT_R32") && name.ends_with("_UNORM") => {
            via(name.replace("_UNORM", "_UINT"), VertexFixup::Unorm32)
        }
        _ if name.starts_with("PIPE_FORMAT_R32") && name.ends_with("_SNORM") => {
            via(name.replace("_SNORM", "_SINT"), VertexFixup::Snorm32)
        }
        _ if name.starts_with("PIPE_FORMAT_R32") && name.ends_with("_FIXED") => {
            via(name.replace("_FIXED", "_SINT"), VertexFixup::Fixed32)
        }
        // R*_USCALED / R*_SSCALED (array formats, R first): the integer
        // format of the same layout, converted in the shader.
        _ if name.starts_with("PIPE_FORMAT_R") && name.ends_with("_USCALED") => {
            via(name.replace("_USCALED", "_UINT"), VertexFixup::Uscaled)
        }
        _ if name.starts_with("PIPE_FORMAT_R") && name.ends_with("_SSCALED") => {
            via(name.replace("_SSCALED", "_SINT"), VertexFixup::Sscaled)
        }
        _ => None,
    };
    // Native unless the debug switch forces the fix-up this format has.
    let forced = dev.debug.vertex_fixups && fix.is_some();
    if let Some(vf) = vk_format(f).filter(|&vf| !forced && fetches(vf)) {
        return Ok((vf, None));
    }
    fix.and_then(|(g, fix)| {
        vk_format(g)
            .filter(|&vf| fetches(vf))
            .map(|vf| (vf, Some(fix)))
    })
    .ok_or_else(|| {
        pipe_core::PipeError::unsupported(format!(
            "vertex format {f}: the device cannot fetch it and pipe-vk has no fix-up for it"
        ))
    })
}

/// The Vulkan format to use for `f`: the direct one, else the emulation's.
pub fn vk_format_or_emulated(f: Format) -> Option<vk::Format> {
    vk_format(f).or_else(|| emulated(f).map(|e| e.vk_format))
}

/// The depth format Zink substitutes when a device lacks one:
/// `X8_D24_UNORM_PACK32` → `D32_SFLOAT` and `D24_UNORM_S8_UINT` →
/// `D32_SFLOAT_S8_UINT` (every device has one of D24S8 / D32S8).
pub fn depth_fallback(f: vk::Format) -> Option<vk::Format> {
    match f {
        vk::Format::X8_D24_UNORM_PACK32 => Some(vk::Format::D32_SFLOAT),
        vk::Format::D24_UNORM_S8_UINT => Some(vk::Format::D32_SFLOAT_S8_UINT),
        _ => None,
    }
}

/// The image aspects a view of format `f` covers: depth and/or stencil for
/// depth/stencil formats (so `X24S8_UINT` is stencil only, `Z24X8_UNORM`
/// depth only), colour otherwise.
pub fn aspect_mask(f: Format) -> vk::ImageAspectFlags {
    if f.desc().colorspace != Colorspace::Zs {
        return vk::ImageAspectFlags::COLOR;
    }
    let mut mask = vk::ImageAspectFlags::empty();
    if f.is_depth() {
        mask |= vk::ImageAspectFlags::DEPTH;
    }
    if f.has_stencil() {
        mask |= vk::ImageAspectFlags::STENCIL;
    }
    mask
}

#[cfg(test)]
mod tests {
    use super::*;
    use pipe_core::format::ChannelType;
    use std::collections::HashMap;

    /// Texel block (width, height, bytes) of the Vulkan formats used above,
    /// written from the Vulkan spec's compatibility-class table
    /// ("Compatible Formats"; `blockSize` in vk.xml).
    fn vk_block(f: vk::Format) -> Option<(u32, u32, u32)> {
        use vk::Format as V;
        let b = match f {
            V::R4G4_UNORM_PACK8
            | V::R8_UNORM
            | V::R8_SNORM
            | V::R8_USCALED
            | V::R8_SSCALED
            | V::R8_UINT
            | V::R8_SINT
            | V::R8_SRGB
            | V::A8_UNORM_KHR
            | V::S8_UINT => (1, 1, 1),
            V::R4G4B4A4_UNORM_PACK16
            | V::B4G4R4A4_UNORM_PACK16
            | V::A4R4G4B4_UNORM_PACK16
            | V::A4B4G4R4_UNORM_PACK16
            | V::R5G6B5_UNORM_PACK16
            | V::B5G6R5_UNORM_PACK16
            | V::R5G5B5A1_UNORM_PACK16
            | V::B5G5R5A1_UNORM_PACK16
            | V::A1R5G5B5_UNORM_PACK16
            | V::A1B5G5R5_UNORM_PACK16_KHR
            | V::R8G8_UNORM
            | V::R8G8_SNORM
            | V::R8G8_USCALED
            | V::R8G8_SSCALED
            | V::R8G8_UINT
            | V::R8G8_SINT
            | V::R8G8_SRGB
            | V::R16_UNORM
            | V::R16_SNORM
            | V::R16_USCALED
            | V::R16_SSCALED
            | V::R16_UINT
            | V::R16_SINT
            | V::R16_SFLOAT
            | V::D16_UNORM => (1, 1, 2),
            V::R8G8B8_UNORM
            | V::R8G8B8_SNORM
            | V::R8G8B8_USCALED
            | V::R8G8B8_SSCALED
            | V::R8G8B8_UINT
            | V::R8G8B8_SINT
            | V::R8G8B8_SRGB
            | V::B8G8R8_UNORM
            | V::B8G8R8_SNORM
            | V::B8G8R8_USCALED
            | V::B8G8R8_SSCALED
            | V::B8G8R8_UINT
            | V::B8G8R8_SINT
            | V::B8G8R8_SRGB
            | V::D16_UNORM_S8_UINT => (1, 1, 3),
            V::R8G8B8A8_UNORM
            | V::R8G8B8A8_SNORM
            | V::R8G8B8A8_USCALED
            | V::R8G8B8A8_SSCALED
            | V::R8G8B8A8_UINT
            | V::R8G8B8A8_SINT
            | V::R8G8B8A8_SRGB
            | V::B8G8R8A8_UNORM
            | V::B8G8R8A8_SNORM
            | V::B8G8R8A8_USCALED
            | V::B8G8R8A8_SSCALED
            | V::B8G8R8A8_UINT
            | V::B8G8R8A8_SINT
            | V::B8G8R8A8_SRGB
            | V::A2R10G10B10_UNORM_PACK32
            | V::A2R10G10B10_SNORM_PACK32
            | V::A2R10G10B10_USCALED_PACK32
            | V::A2R10G10B10_SSCALED_PACK32
            | V::A2R10G10B10_UINT_PACK32
            | V::A2R10G10B10_SINT_PACK32
            | V::A2B10G10R10_UNORM_PACK32
            | V::A2B10G10R10_SNORM_PACK32
            | V::A2B10G10R10_USCALED_PACK32
            | V::A2B10G10R10_SSCALED_PACK32
            | V::A2B10G10R10_UINT_PACK32
            | V::A2B10G10R10_SINT_PACK32
            | V::R16G16_UNORM
            | V::R16G16_SNORM
            | V::R16G16_USCALED
            | V::R16G16_SSCALED
            | V::R16G16_UINT
            | V::R16G16_SINT
            | V::R16G16_SFLOAT
            | V::R32_UINT
            | V::R32_SINT
            | V::R32_SFLOAT
            | V::B10G11R11_UFLOAT_PACK32
            | V::E5B9G9R9_UFLOAT_PACK32
            | V::X8_D24_UNORM_PACK32
            | V::D24_UNORM_S8_UINT
            | V::D32_SFLOAT => (1, 1, 4),
            // vk.xml: D32_SFLOAT_S8_UINT has blockSize 5.
            V::D32_SFLOAT_S8_UINT => (1, 1, 5),
            V::R16G16B16_UNORM
            | V::R16G16B16_SNORM
            | V::R16G16B16_USCALED
            | V::R16G16B16_SSCALED
            | V::R16G16B16_UINT
            | V::R16G16B16_SINT
            | V::R16G16B16_SFLOAT => (1, 1, 6),
            V::R16G16B16A16_UNORM
            | V::R16G16B16A16_SNORM
            | V::R16G16B16A16_USCALED
            | V::R16G16B16A16_SSCALED
            | V::R16G16B16A16_UINT
            | V::R16G16B16A16_SINT
            | V::R16G16B16A16_SFLOAT
            | V::R32G32_UINT
            | V::R32G32_SINT
            | V::R32G32_SFLOAT
            | V::R64_UINT
            | V::R64_SINT
            | V::R64_SFLOAT => (1, 1, 8),
            V::R32G32B32_UINT | V::R32G32B32_SINT | V::R32G32B32_SFLOAT => (1, 1, 12),
            V::R32G32B32A32_UINT
            | V::R32G32B32A32_SINT
            | V::R32G32B32A32_SFLOAT
            | V::R64G64_UINT
            | V::R64G64_SINT
            | V::R64G64_SFLOAT => (1, 1, 16),
            V::R64G64B64_UINT | V::R64G64B64_SINT | V::R64G64B64_SFLOAT => (1, 1, 24),
            V::R64G64B64A64_UINT | V::R64G64B64A64_SINT | V::R64G64B64A64_SFLOAT => (1, 1, 32),
            V::BC1_RGB_UNORM_BLOCK
            | V::BC1_RGB_SRGB_BLOCK
            | V::BC1_RGBA_UNORM_BLOCK
            | V::BC1_RGBA_SRGB_BLOCK
            | V::BC4_UNORM_BLOCK
            | V::BC4_SNORM_BLOCK
            | V::ETC2_R8G8B8_UNORM_BLOCK
            | V::ETC2_R8G8B8_SRGB_BLOCK
            | V::ETC2_R8G8B8A1_UNORM_BLOCK
            | V::ETC2_R8G8B8A1_SRGB_BLOCK
            | V::EAC_R11_UNORM_BLOCK
            | V::EAC_R11_SNORM_BLOCK => (4, 4, 8),
            V::BC2_UNORM_BLOCK
            | V::BC2_SRGB_BLOCK
            | V::BC3_UNORM_BLOCK
            | V::BC3_SRGB_BLOCK
            | V::BC5_UNORM_BLOCK
            | V::BC5_SNORM_BLOCK
            | V::BC6H_UFLOAT_BLOCK
            | V::BC6H_SFLOAT_BLOCK
            | V::BC7_UNORM_BLOCK
            | V::BC7_SRGB_BLOCK
            | V::ETC2_R8G8B8A8_UNORM_BLOCK
            | V::ETC2_R8G8B8A8_SRGB_BLOCK
            | V::EAC_R11G11_UNORM_BLOCK
            | V::EAC_R11G11_SNORM_BLOCK => (4, 4, 16),
            V::ASTC_4X4_UNORM_BLOCK | V::ASTC_4X4_SRGB_BLOCK => (4, 4, 16),
            V::ASTC_5X4_UNORM_BLOCK | V::ASTC_5X4_SRGB_BLOCK => (5, 4, 16),
            V::ASTC_5X5_UNORM_BLOCK | V::ASTC_5X5_SRGB_BLOCK => (5, 5, 16),
            V::ASTC_6X5_UNORM_BLOCK | V::ASTC_6X5_SRGB_BLOCK => (6, 5, 16),
            V::ASTC_6X6_UNORM_BLOCK | V::ASTC_6X6_SRGB_BLOCK => (6, 6, 16),
            V::ASTC_8X5_UNORM_BLOCK | V::ASTC_8X5_SRGB_BLOCK => (8, 5, 16),
            V::ASTC_8X6_UNORM_BLOCK | V::ASTC_8X6_SRGB_BLOCK => (8, 6, 16),
            V::ASTC_8X8_UNORM_BLOCK | V::ASTC_8X8_SRGB_BLOCK => (8, 8, 16),
            V::ASTC_10X5_UNORM_BLOCK | V::ASTC_10X5_SRGB_BLOCK => (10, 5, 16),
            V::ASTC_10X6_UNORM_BLOCK | V::ASTC_10X6_SRGB_BLOCK => (10, 6, 16),
            V::ASTC_10X8_UNORM_BLOCK | V::ASTC_10X8_SRGB_BLOCK => (10, 8, 16),
            V::ASTC_10X10_UNORM_BLOCK | V::ASTC_10X10_SRGB_BLOCK => (10, 10, 16),
            V::ASTC_12X10_UNORM_BLOCK | V::ASTC_12X10_SRGB_BLOCK => (12, 10, 16),
            V::ASTC_12X12_UNORM_BLOCK | V::ASTC_12X12_SRGB_BLOCK => (12, 12, 16),
            // 4:2:2 single-plane formats: 2x1 texels per 4-byte block.
            V::G8B8G8R8_422_UNORM | V::B8G8R8G8_422_UNORM => (2, 1, 4),
            _ => return None,
        };
        Some(b)
    }

    fn pipe_block(f: Format) -> (u32, u32, u32) {
        let b = f.block();
        assert_eq!(b.depth, 1, "{f}");
        (b.width, b.height, b.bits / 8)
    }

    #[test]
    fn known_direct_mappings() {
        use vk::Format as V;
        use Format as P;
        let cases = [
            (P::R8G8B8A8Unorm, V::R8G8B8A8_UNORM),
            (P::B8G8R8A8Srgb, V::B8G8R8A8_SRGB),
            (P::B5G6R5Unorm, V::R5G6B5_UNORM_PACK16),
            (P::R5G6B5Unorm, V::B5G6R5_UNORM_PACK16),
            (P::B5G5R5A1Unorm, V::A1R5G5B5_UNORM_PACK16),
            (P::B4G4R4A4Unorm, V::A4R4G4B4_UNORM_PACK16),
            (P::A4B4G4R4Unorm, V::R4G4B4A4_UNORM_PACK16),
            (P::R10G10B10A2Unorm, V::A2B10G10R10_UNORM_PACK32),
            (P::B10G10R10A2Uint, V::A2R10G10B10_UINT_PACK32),
            (P::R10G10B10A2Sscaled, V::A2B10G10R10_SSCALED_PACK32),
            (P::R11G11B10Float, V::B10G11R11_UFLOAT_PACK32),
            (P::R9G9B9E5Float, V::E5B9G9R9_UFLOAT_PACK32),
            (P::R16G16B16A16Float, V::R16G16B16A16_SFLOAT),
            (P::R64G64B64A64Float, V::R64G64B64A64_SFLOAT),
            (P::Z24X8Unorm, V::X8_D24_UNORM_PACK32),
            (P::Z24UnormS8Uint, V::D24_UNORM_S8_UINT),
            (P::Z32FloatS8X24Uint, V::D32_SFLOAT_S8_UINT),
            (P::S8Uint, V::S8_UINT),
            (P::Bc1RgbaSrgb, V::BC1_RGBA_SRGB_BLOCK),
            (P::Bc3Unorm, V::BC3_UNORM_BLOCK),
            (P::Rgtc2Snorm, V::BC5_SNORM_BLOCK),
            (P::BptcRgbFloat, V::BC6H_SFLOAT_BLOCK),
            (P::BptcSrgba, V::BC7_SRGB_BLOCK),
            (P::Etc2Rgb8a1, V::ETC2_R8G8B8A1_UNORM_BLOCK),
            (P::Etc2Rg11Snorm, V::EAC_R11G11_SNORM_BLOCK),
            (P::Astc10x8Srgb, V::ASTC_10X8_SRGB_BLOCK),
        ];
        for (p, v) in cases {
            assert_eq!(vk_format(p), Some(v), "{p}");
        }
        for p in [
            P::A8B8G8R8Unorm,
            P::X8R8G8B8Unorm,
            P::Z32Unorm,
            P::X8Z24Unorm,
            P::R32Unorm,
            P::R32G32Fixed,
            P::L8Unorm,
            P::L8A8Srgb,
            P::Astc4x4x4,
            P::Uyvy,
            // VK_KHR_maintenance5 formats: never used directly (below).
            P::A8Unorm,
            P::R5G5B5A1Unorm,
        ] {
            assert_eq!(vk_format(p), None, "{p}");
        }
        assert_eq!(emulated(P::L8A8Srgb), None);
        assert_eq!(emulated(P::R8G8B8A8Unorm), None);
        assert_eq!(emulated(P::Z32Unorm), None);
    }

    #[test]
    fn known_emulations() {
        use Swizzle::{One, Zero, W, X, Y, Z};
        let e = emulated(Format::L8A8Unorm).unwrap();
        assert_eq!(e.vk_format, vk::Format::R8G8_UNORM);
        assert_eq!(e.swizzle, [X, X, X, Y]);
        assert!(!e.renderable() && !e.storage());
        let m = e.component_mapping();
        assert_eq!(m.r, vk::ComponentSwizzle::R);
        assert_eq!(m.a, vk::ComponentSwizzle::G);

        let e = emulated(Format::A8Unorm).unwrap();
        assert_eq!(e.vk_format, vk::Format::R8_UNORM);
        assert_eq!(e.swizzle, [Zero, Zero, Zero, X]);
        // A view asking for (A, A, A, 1) of A8 reads R of R8.
        assert_eq!(e.compose([W, W, W, One]), [X, X, X, One]);

        let e = emulated(Format::B8G8R8X8Unorm).unwrap();
        assert_eq!(e.vk_format, vk::Format::B8G8R8A8_UNORM);
        assert_eq!(e.swizzle, [X, Y, Z, One]);
        assert!(e.renderable() && e.storage());

        let e = emulated(Format::X24S8Uint).unwrap();
        assert_eq!(e.vk_format, vk::Format::D24_UNORM_S8_UINT);
        assert_eq!(
            aspect_mask(Format::X24S8Uint),
            vk::ImageAspectFlags::STENCIL
        );

        assert_eq!(
            emulated(Format::Latc2Unorm).unwrap().vk_format,
            vk::Format::BC5_UNORM_BLOCK
        );
        assert_eq!(
            emulated(Format::Etc1Rgb8).unwrap().vk_format,
            vk::Format::ETC2_R8G8B8_UNORM_BLOCK
        );
        assert_eq!(
            vk_format_or_emulated(Format::I16Float),
            Some(vk::Format::R16_SFLOAT)
        );
        assert_eq!(
            depth_fallback(vk::Format::D24_UNORM_S8_UINT),
            Some(vk::Format::D32_SFLOAT_S8_UINT)
        );
        assert_eq!(depth_fallback(vk::Format::D16_UNORM), None);
    }

    #[test]
    fn aspects() {
        use vk::ImageAspectFlags as A;
        assert_eq!(aspect_mask(Format::R8G8B8A8Unorm), A::COLOR);
        assert_eq!(aspect_mask(Format::BptcRgbaUnorm), A::COLOR);
        assert_eq!(aspect_mask(Format::Z16Unorm), A::DEPTH);
        assert_eq!(aspect_mask(Format::Z24X8Unorm), A::DEPTH);
        assert_eq!(aspect_mask(Format::S8Uint), A::STENCIL);
        assert_eq!(aspect_mask(Format::Z24UnormS8Uint), A::DEPTH | A::STENCIL);
        assert_eq!(
            aspect_mask(Format::Z32FloatS8X24Uint),
            A::DEPTH | A::STENCIL
        );
        assert_eq!(aspect_mask(Format::X32S8X24Uint), A::STENCIL);
    }

    /// Every Vulkan format we produce has the block size of the Gallium
    /// format it stores. The one exception is `D32_SFLOAT_S8_UINT`, whose
    /// texel block Vulkan counts as 5 bytes (depth and stencil are copied as
    /// separate aspects), against Gallium's 8-byte `Z32_FLOAT_S8X24_UINT`.
    #[test]
    fn block_sizes_match() {
        let mut checked = 0;
        for f in Format::all() {
            let mut vks = Vec::new();
            if let Some(v) = vk_format(f) {
                vks.push(v);
            }
            if let Some(e) = emulated(f) {
                vks.push(e.vk_format);
            }
            for v in vks {
                let vb = vk_block(v).unwrap_or_else(|| panic!("{f}: no block size for {v:?}"));
                if v == vk::Format::D32_SFLOAT_S8_UINT {
                    assert_eq!(vb, (1, 1, 5));
                    assert_eq!(pipe_block(f), (1, 1, 8), "{f}");
                    continue;
                }
                assert_eq!(vb, pipe_block(f), "{f} -> {v:?}");
                checked += 1;
            }
        }
        assert!(checked > 250, "{checked}");
    }

    /// The direct mapping is one-to-one.
    #[test]
    fn direct_mapping_is_injective() {
        let mut seen: HashMap<vk::Format, Format> = HashMap::new();
        for f in Format::all() {
            if let Some(v) = vk_format(f) {
                if let Some(prev) = seen.insert(v, f) {
                    panic!("{v:?} from both {prev} and {f}");
                }
            }
        }
    }

    /// The Vulkan format's own name agrees with the Gallium description:
    /// sRGB, depth, stencil, compression, integer and float.
    #[test]
    fn names_agree_with_descriptions() {
        for f in Format::all() {
            let Some(v) = vk_format(f) else { continue };
            let name = format!("{v:?}");
            assert_eq!(name.contains("SRGB"), f.is_srgb(), "{f} {name}");
            assert_eq!(name.ends_with("_BLOCK"), f.is_compressed(), "{f} {name}");
            let vk_depth = name.starts_with("D") || name.starts_with("X8_D");
            assert_eq!(vk_depth, f.is_depth(), "{f} {name}");
            assert_eq!(name.contains("S8_UINT"), f.has_stencil(), "{f} {name}");
            if !f.is_depth_or_stencil() && !f.is_compressed() {
                assert_eq!(name.contains("_UINT"), f.is_pure_uint(), "{f} {name}");
                assert_eq!(name.contains("_SINT"), f.is_pure_sint(), "{f} {name}");
                assert_eq!(name.contains("FLOAT"), f.is_float(), "{f} {name}");
                let unorm = (f.is_unorm() && !f.is_srgb()) || f.is_subsampled();
                assert_eq!(name.contains("UNORM"), unorm, "{f} {name}");
            }
        }
    }

    /// Splits the component part of a Vulkan format name into
    /// (letter, bits) from the lowest bit up: `PACKnn` formats are named
    /// from the top bit, the others in memory order.
    fn vk_components(v: vk::Format) -> Vec<(char, u32)> {
        let name = format!("{v:?}");
        let head = name.split('_').next().unwrap_or("");
        let mut comps = Vec::new();
        let mut chars = head.chars().peekable();
        while let Some(c) = chars.next() {
            let mut bits = 0;
            while let Some(d) = chars.peek().and_then(|d| d.to_digit(10)) {
                bits = bits * 10 + d;
                chars.next();
            }
            comps.push((c, bits));
        }
        if name.contains("_PACK") {
            comps.reverse();
        }
        comps
    }

    /// For uncompressed colour formats, check bit by bit that every output
    /// component of the Gallium format reads the same bits through the
    /// Vulkan format (directly, or through the emulation's swizzle).
    #[test]
    fn channel_layouts_agree() {
        let mut checked = 0;
        for f in Format::all() {
            let d = f.desc();
            if f.is_compressed() || f.is_subsampled() || d.colorspace == Colorspace::Zs {
                continue;
            }
            let (v, swz) = match (vk_format(f), emulated(f)) {
                (Some(v), _) => (v, [Swizzle::X, Swizzle::Y, Swizzle::Z, Swizzle::W]),
                (None, Some(e)) => (e.vk_format, e.swizzle),
                (None, None) => continue,
            };
            let comps = vk_components(v);
            // Bit offset and size of each Vulkan component letter.
            let mut at = HashMap::new();
            let mut shift = 0;
            for &(c, bits) in &comps {
                at.insert(c, (shift, bits));
                shift += bits;
            }
            assert_eq!(shift, d.block.bits, "{f} {v:?}");
            let direct = vk_format(f).is_some();
            for i in 0..4 {
                // What the Gallium format says output component i is.
                let pipe = d.swizzle[i];
                // What we produce: Vulkan component `letter`, or a constant.
                let ours = if direct {
                    // Direct: Vulkan's own meaning of component i.
                    let letter = ['R', 'G', 'B', 'A'][i];
                    match at.get(&letter) {
                        Some(&pos) => Ok(pos),
                        None => Err(if i == 3 { Swizzle::One } else { Swizzle::Zero }),
                    }
                } else {
                    match swz[i].channel() {
                        Some(k) => {
                            let letter = ['R', 'G', 'B', 'A'][k];
                            Ok(*at
                                .get(&letter)
                                .unwrap_or_else(|| panic!("{f}: {v:?} lacks {letter}")))
                        }
                        None => Err(swz[i]),
                    }
                };
                match (pipe.channel(), ours) {
                    (Some(ch), Ok((shift, bits))) => {
                        let c = d.channels[ch];
                        assert_ne!(c.ty, ChannelType::Void, "{f}");
                        assert_eq!(
                            (u32::from(c.shift), u32::from(c.size)),
                            (shift, bits),
                            "{f} component {i} via {v:?}"
                        );
                    }
                    (None, Err(constant)) => assert_eq!(pipe, constant, "{f} component {i}"),
                    (p, o) => panic!("{f} component {i}: pipe {p:?} vs ours {o:?} ({v:?})"),
                }
            }
            checked += 1;
        }
        assert!(checked > 200, "{checked}");
    }
}
