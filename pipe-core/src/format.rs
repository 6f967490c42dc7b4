//! Formats: Gallium's `enum pipe_format` and its description table.
//!
//! Design
//! ------
//! Everything about a format lives in **one table**, written in the shape of
//! Mesa's `src/util/format/u_format.csv`: one row per format with its
//! `PIPE_FORMAT_*` name, layout, block size, channel list, swizzle and
//! colour space. The `formats!` macro turns the rows into the [`Format`] enum
//! (variants in table order), the static [`FormatDesc`] array and the
//! [`Format::all`] list; a `const fn` parses the CSV-like channel strings
//! (`"un8,un8,un8,un8"`, `"f32,up8,x24"`, ...) at compile time, so a typo in
//! the table is a build error, not a runtime one. Every helper
//! (`is_depth`, `size_of_image`, pixel packing, ...) is computed from the
//! description rather than from per-helper `match`es. The only other data
//! are two small lists: sRGB/linear pairs and the compressed-format
//! compatibility classes that [`views_compatible`] needs.
//!
//! Conventions (the same as Gallium's):
//! - Channels are listed from the lowest bit of the block to the highest,
//!   the block being read as a little-endian integer (for byte-aligned
//!   "plain" formats that is simply memory order). So
//!   `PIPE_FORMAT_B5G6R5_UNORM` has blue in bits 0..5, and is Vulkan's
//!   `R5G6B5_UNORM_PACK16` (Vulkan names packed formats from the top bit).
//! - `swizzle[i]` says where output component i (R, G, B, A; for ZS
//!   formats: depth, stencil) comes from: a channel index, a constant, or
//!   nothing.
//! - Compressed and subsampled formats have one void channel covering the
//!   whole block, as in the CSV.
//! - `PIPE_FORMAT_NONE` has no variant: use `Option<Format>`.
//!
//! Pixel helpers ([`unpack_rgba_f32`], [`pack_rgba_f32`] and friends) handle
//! the plain and packed layouts plus R11G11B10_FLOAT and R9G9B9E5_FLOAT,
//! following the Vulkan spec's conversion rules ("Fixed-Point Data
//! Conversions", the sRGB transfer functions, and the 16/11/10-bit float and
//! shared-exponent encodings). They return `None` rather than panic on a
//! format they do not handle or a buffer that is too short.
//!
//! Not included (present in Mesa but outside what a GL 4.6 frontend on
//! Vulkan needs): planar YUV formats, FXT1, ATC, R1_UNORM, the mixed-sign
//! bump-map formats and the `*_AS_R8G8B8A8` aliases.

use std::fmt;

/// How a format's block is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// Channels are whole bytes in memory order (Mesa's "array" formats,
    /// plus byte-aligned mixes such as `Z32_FLOAT_S8X24_UINT`).
    Plain,
    /// Channels are bit fields of one 8/16/24/32-bit little-endian word.
    Packed,
    /// S3TC / DXTn / BC1-3.
    S3tc,
    /// RGTC / LATC (BC4, BC5).
    Rgtc,
    /// ETC1, ETC2 and EAC.
    Etc,
    /// BPTC (BC6H, BC7).
    Bptc,
    /// ASTC (LDR, 2D and 3D blocks).
    Astc,
    /// Chroma-subsampled single-plane formats (2x1 blocks).
    Subsampled,
    /// Anything else (shared exponent, packed small floats).
    Other,
}

impl Layout {
    /// Whether this layout is a block-compression family.
    pub const fn is_compressed(self) -> bool {
        matches!(
            self,
            Layout::S3tc | Layout::Rgtc | Layout::Etc | Layout::Bptc | Layout::Astc
        )
    }
}

/// Channel data type (Mesa's `util_format_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChannelType {
    /// Padding or an opaque block.
    Void,
    /// Unsigned integer (normalized, scaled or pure).
    Unsigned,
    /// Two's complement signed integer (normalized, scaled or pure).
    Signed,
    /// Signed 16.16 fixed point (`GL_FIXED`).
    Fixed,
    /// IEEE-style float (64/32/16 bits, or unsigned 11/10-bit minifloats).
    Float,
}

/// Description of one channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Channel {
    /// Data type.
    pub ty: ChannelType,
    /// UNORM/SNORM.
    pub normalized: bool,
    /// UINT/SINT (not converted to float when read).
    pub pure_integer: bool,
    /// Size in bits.
    pub size: u8,
    /// Offset in bits from the lowest bit of the block.
    pub shift: u16,
}

impl Channel {
    const NONE: Channel = Channel {
        ty: ChannelType::Void,
        normalized: false,
        pure_integer: false,
        size: 0,
        shift: 0,
    };
}

/// Where an output component comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Swizzle {
    /// Channel 0.
    X,
    /// Channel 1.
    Y,
    /// Channel 2.
    Z,
    /// Channel 3.
    W,
    /// Constant 0.
    Zero,
    /// Constant 1.
    One,
    /// Not present (used by depth/stencil formats).
    None,
}

impl Swizzle {
    /// The channel index this swizzle selects, if it selects one.
    pub const fn channel(self) -> Option<usize> {
        match self {
            Swizzle::X => Some(0),
            Swizzle::Y => Some(1),
            Swizzle::Z => Some(2),
            Swizzle::W => Some(3),
            _ => None,
        }
    }

    /// The swizzle selecting channel `i` (0..4).
    pub const fn from_channel(i: usize) -> Option<Swizzle> {
        match i {
            0 => Some(Swizzle::X),
            1 => Some(Swizzle::Y),
            2 => Some(Swizzle::Z),
            3 => Some(Swizzle::W),
            _ => None,
        }
    }
}

/// Colour space of a format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Colorspace {
    /// Linear RGB.
    Rgb,
    /// sRGB-encoded RGB (alpha stays linear).
    Srgb,
    /// Depth and/or stencil.
    Zs,
    /// Y'CbCr (the subsampled YUV formats).
    Yuv,
}

/// Size of a format's block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Block {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Depth in pixels (only 3D ASTC has more than 1).
    pub depth: u32,
    /// Size in bits.
    pub bits: u32,
}

/// The description of a format (Mesa's `util_format_description`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FormatDesc {
    /// The format described.
    pub format: Format,
    /// Gallium's name, e.g. `"PIPE_FORMAT_R8G8B8A8_UNORM"`.
    pub name: &'static str,
    /// Layout.
    pub layout: Layout,
    /// Block size.
    pub block: Block,
    /// Number of entries used in `channels` (1 for compressed formats).
    pub nr_channels: u8,
    /// Channels, lowest bits first; entries past `nr_channels` are void.
    pub channels: [Channel; 4],
    /// Output component sources.
    pub swizzle: [Swizzle; 4],
    /// Colour space.
    pub colorspace: Colorspace,
}

/// Parses a CSV channel list such as `"un8,un8,x16"` at compile time.
const fn parse_channels(s: &str) -> ([Channel; 4], u8) {
    let b = s.as_bytes();
    let mut chans = [Channel::NONE; 4];
    let mut n = 0usize;
    let mut i = 0usize;
    let mut shift = 0u32;
    while i < b.len() {
        let ty = match b[i] {
            b'x' => ChannelType::Void,
            b'u' => ChannelType::Unsigned,
            b's' => ChannelType::Signed,
            b'h' => ChannelType::Fixed,
            b'f' => ChannelType::Float,
            _ => panic!("format table: bad channel type"),
        };
        i += 1;
        let mut normalized = false;
        let mut pure_integer = false;
        if i < b.len() && b[i] == b'n' {
            normalized = true;
            i += 1;
        }
        if i < b.len() && b[i] == b'p' {
            pure_integer = true;
            i += 1;
        }
        let mut size = 0u32;
        while i < b.len() && b[i].is_ascii_digit() {
            size = size * 10 + (b[i] - b'0') as u32;
            i += 1;
        }
        if size == 0 || size > 128 || n >= 4 {
            panic!("format table: bad channel size or count");
        }
        chans[n] = Channel {
            ty,
            normalized,
            pure_integer,
            size: size as u8,
            shift: shift as u16,
        };
        shift += size;
        n += 1;
        if i < b.len() {
            if b[i] != b',' {
                panic!("format table: expected ','");
            }
            i += 1;
        }
    }
    (chans, n as u8)
}

const fn parse_swizzle(s: &str) -> [Swizzle; 4] {
    let b = s.as_bytes();
    if b.len() != 4 {
        panic!("format table: swizzle must have 4 characters");
    }
    let mut out = [Swizzle::None; 4];
    let mut i = 0;
    while i < 4 {
        out[i] = match b[i] {
            b'x' => Swizzle::X,
            b'y' => Swizzle::Y,
            b'z' => Swizzle::Z,
            b'w' => Swizzle::W,
            b'0' => Swizzle::Zero,
            b'1' => Swizzle::One,
            b'_' => Swizzle::None,
            _ => panic!("format table: bad swizzle"),
        };
        i += 1;
    }
    out
}

/// A packed layout: at most 32 bits, and channels of different sizes or
/// not byte-sized (Mesa's `is_bitmask && !is_array`).
const fn plain_or_packed(chans: &[Channel; 4], n: u8, bits: u32) -> Layout {
    if bits > 32 {
        return Layout::Plain;
    }
    let mut i = 0usize;
    while i < n as usize {
        if !chans[i].size.is_multiple_of(8) || chans[i].size != chans[0].size {
            return Layout::Packed;
        }
        i += 1;
    }
    Layout::Plain
}

#[allow(clippy::too_many_arguments)]
const fn build(
    format: Format,
    name: &'static str,
    layout: Layout,
    bw: u32,
    bh: u32,
    bd: u32,
    bits: u32,
    chans: &str,
    swz: &str,
    colorspace: Colorspace,
) -> FormatDesc {
    let (channels, nr_channels) = parse_channels(chans);
    let layout = match layout {
        Layout::Plain => plain_or_packed(&channels, nr_channels, bits),
        other => other,
    };
    FormatDesc {
        format,
        name,
        layout,
        block: Block {
            width: bw,
            height: bh,
            depth: bd,
            bits,
        },
        nr_channels,
        channels,
        swizzle: parse_swizzle(swz),
        colorspace,
    }
}

macro_rules! formats {
    ($( $id:ident = $name:literal, $layout:ident, $bw:literal x $bh:literal x $bd:literal,
        $bits:literal, $ch:literal, $sw:literal, $cs:ident; )*) => {
        /// A Gallium format (`PIPE_FORMAT_*`); see the module documentation.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u16)]
        pub enum Format {
            $(
                #[doc = concat!("`PIPE_FORMAT_", $name, "`")]
                $id,
            )*
        }

        static TABLE: &[FormatDesc] = &[
            $( build(Format::$id, concat!("PIPE_FORMAT_", $name), Layout::$layout,
                     $bw, $bh, $bd, $bits, $ch, $sw, Colorspace::$cs), )*
        ];

        static ALL: &[Format] = &[ $( Format::$id, )* ];
    };
}

formats! {
    // Typical render-target formats.
    B8G8R8A8Unorm = "B8G8R8A8_UNORM", Plain, 1 x 1 x 1, 32, "un8,un8,un8,un8", "zyxw", Rgb;
    B8G8R8X8Unorm = "B8G8R8X8_UNORM", Plain, 1 x 1 x 1, 32, "un8,un8,un8,x8", "zyx1", Rgb;
    B8G8R8X8Snorm = "B8G8R8X8_SNORM", Plain, 1 x 1 x 1, 32, "sn8,sn8,sn8,x8", "zyx1", Rgb;
    B8G8R8X8Uint = "B8G8R8X8_UINT", Plain, 1 x 1 x 1, 32, "up8,up8,up8,x8", "zyx1", Rgb;
    B8G8R8X8Sint = "B8G8R8X8_SINT", Plain, 1 x 1 x 1, 32, "sp8,sp8,sp8,x8", "zyx1", Rgb;
    A8R8G8B8Unorm = "A8R8G8B8_UNORM", Plain, 1 x 1 x 1, 32, "un8,un8,un8,un8", "yzwx", Rgb;
    A8R8G8B8Snorm = "A8R8G8B8_SNORM", Plain, 1 x 1 x 1, 32, "sn8,sn8,sn8,sn8", "yzwx", Rgb;
    A8R8G8B8Sint = "A8R8G8B8_SINT", Plain, 1 x 1 x 1, 32, "sp8,sp8,sp8,sp8", "yzwx", Rgb;
    X8R8G8B8Unorm = "X8R8G8B8_UNORM", Plain, 1 x 1 x 1, 32, "x8,un8,un8,un8", "yzw1", Rgb;
    X8R8G8B8Snorm = "X8R8G8B8_SNORM", Plain, 1 x 1 x 1, 32, "x8,sn8,sn8,sn8", "yzw1", Rgb;
    X8R8G8B8Sint = "X8R8G8B8_SINT", Plain, 1 x 1 x 1, 32, "x8,sp8,sp8,sp8", "yzw1", Rgb;
    A8B8G8R8Unorm = "A8B8G8R8_UNORM", Plain, 1 x 1 x 1, 32, "un8,un8,un8,un8", "wzyx", Rgb;
    X8B8G8R8Unorm = "X8B8G8R8_UNORM", Plain, 1 x 1 x 1, 32, "x8,un8,un8,un8", "wzy1", Rgb;
    R8G8B8X8Unorm = "R8G8B8X8_UNORM", Plain, 1 x 1 x 1, 32, "un8,un8,un8,x8", "xyz1", Rgb;
    R5G5B5A1Unorm = "R5G5B5A1_UNORM", Plain, 1 x 1 x 1, 16, "un5,un5,un5,un1", "xyzw", Rgb;
    R5G5B5X1Unorm = "R5G5B5X1_UNORM", Plain, 1 x 1 x 1, 16, "un5,un5,un5,x1", "xyz1", Rgb;
    B5G5R5X1Unorm = "B5G5R5X1_UNORM", Plain, 1 x 1 x 1, 16, "un5,un5,un5,x1", "zyx1", Rgb;
    B5G5R5A1Unorm = "B5G5R5A1_UNORM", Plain, 1 x 1 x 1, 16, "un5,un5,un5,un1", "zyxw", Rgb;
    X1B5G5R5Unorm = "X1B5G5R5_UNORM", Plain, 1 x 1 x 1, 16, "x1,un5,un5,un5", "wzy1", Rgb;
    A1R5G5B5Unorm = "A1R5G5B5_UNORM", Plain, 1 x 1 x 1, 16, "un1,un5,un5,un5", "yzwx", Rgb;
    X1R5G5B5Unorm = "X1R5G5B5_UNORM", Plain, 1 x 1 x 1, 16, "x1,un5,un5,un5", "yzw1", Rgb;
    A1B5G5R5Unorm = "A1B5G5R5_UNORM", Plain, 1 x 1 x 1, 16, "un1,un5,un5,un5", "wzyx", Rgb;
    R4G4B4A4Unorm = "R4G4B4A4_UNORM", Plain, 1 x 1 x 1, 16, "un4,un4,un4,un4", "xyzw", Rgb;
    R4G4B4X4Unorm = "R4G4B4X4_UNORM", Plain, 1 x 1 x 1, 16, "un4,un4,un4,x4", "xyz1", Rgb;
    B4G4R4A4Unorm = "B4G4R4A4_UNORM", Plain, 1 x 1 x 1, 16, "un4,un4,un4,un4", "zyxw", Rgb;
    B4G4R4X4Unorm = "B4G4R4X4_UNORM", Plain, 1 x 1 x 1, 16, "un4,un4,un4,x4", "zyx1", Rgb;
    A4R4G4B4Unorm = "A4R4G4B4_UNORM", Plain, 1 x 1 x 1, 16, "un4,un4,un4,un4", "yzwx", Rgb;
    A4B4G4R4Unorm = "A4B4G4R4_UNORM", Plain, 1 x 1 x 1, 16, "un4,un4,un4,un4", "wzyx", Rgb;
    R5G6B5Unorm = "R5G6B5_UNORM", Plain, 1 x 1 x 1, 16, "un5,un6,un5", "xyz1", Rgb;
    B5G6R5Unorm = "B5G6R5_UNORM", Plain, 1 x 1 x 1, 16, "un5,un6,un5", "zyx1", Rgb;
    R10G10B10A2Unorm = "R10G10B10A2_UNORM", Plain, 1 x 1 x 1, 32, "un10,un10,un10,un2", "xyzw", Rgb;
    R10G10B10X2Unorm = "R10G10B10X2_UNORM", Plain, 1 x 1 x 1, 32, "un10,un10,un10,x2", "xyz1", Rgb;
    B10G10R10A2Unorm = "B10G10R10A2_UNORM", Plain, 1 x 1 x 1, 32, "un10,un10,un10,un2", "zyxw", Rgb;
    A2R10G10B10Unorm = "A2R10G10B10_UNORM", Plain, 1 x 1 x 1, 32, "un2,un10,un10,un10", "yzwx", Rgb;
    A2B10G10R10Unorm = "A2B10G10R10_UNORM", Plain, 1 x 1 x 1, 32, "un2,un10,un10,un10", "wzyx", Rgb;
    R3G3B2Unorm = "R3G3B2_UNORM", Plain, 1 x 1 x 1, 8, "un3,un3,un2", "xyz1", Rgb;
    B2G3R3Unorm = "B2G3R3_UNORM", Plain, 1 x 1 x 1, 8, "un2,un3,un3", "zyx1", Rgb;

    // Luminance / intensity / alpha.
    L8Unorm = "L8_UNORM", Plain, 1 x 1 x 1, 8, "un8", "xxx1", Rgb;
    A8Unorm = "A8_UNORM", Plain, 1 x 1 x 1, 8, "un8", "000x", Rgb;
    I8Unorm = "I8_UNORM", Plain, 1 x 1 x 1, 8, "un8", "xxxx", Rgb;
    L4A4Unorm = "L4A4_UNORM", Plain, 1 x 1 x 1, 8, "un4,un4", "xxxy", Rgb;
    L8A8Unorm = "L8A8_UNORM", Plain, 1 x 1 x 1, 16, "un8,un8", "xxxy", Rgb;
    L16Unorm = "L16_UNORM", Plain, 1 x 1 x 1, 16, "un16", "xxx1", Rgb;
    A16Unorm = "A16_UNORM", Plain, 1 x 1 x 1, 16, "un16", "000x", Rgb;
    I16Unorm = "I16_UNORM", Plain, 1 x 1 x 1, 16, "un16", "xxxx", Rgb;
    L16A16Unorm = "L16A16_UNORM", Plain, 1 x 1 x 1, 32, "un16,un16", "xxxy", Rgb;
    A8Snorm = "A8_SNORM", Plain, 1 x 1 x 1, 8, "sn8", "000x", Rgb;
    L8Snorm = "L8_SNORM", Plain, 1 x 1 x 1, 8, "sn8", "xxx1", Rgb;
    L8A8Snorm = "L8A8_SNORM", Plain, 1 x 1 x 1, 16, "sn8,sn8", "xxxy", Rgb;
    I8Snorm = "I8_SNORM", Plain, 1 x 1 x 1, 8, "sn8", "xxxx", Rgb;
    A16Snorm = "A16_SNORM", Plain, 1 x 1 x 1, 16, "sn16", "000x", Rgb;
    L16Snorm = "L16_SNORM", Plain, 1 x 1 x 1, 16, "sn16", "xxx1", Rgb;
    L16A16Snorm = "L16A16_SNORM", Plain, 1 x 1 x 1, 32, "sn16,sn16", "xxxy", Rgb;
    I16Snorm = "I16_SNORM", Plain, 1 x 1 x 1, 16, "sn16", "xxxx", Rgb;
    A16Float = "A16_FLOAT", Plain, 1 x 1 x 1, 16, "f16", "000x", Rgb;
    L16Float = "L16_FLOAT", Plain, 1 x 1 x 1, 16, "f16", "xxx1", Rgb;
    L16A16Float = "L16A16_FLOAT", Plain, 1 x 1 x 1, 32, "f16,f16", "xxxy", Rgb;
    I16Float = "I16_FLOAT", Plain, 1 x 1 x 1, 16, "f16", "xxxx", Rgb;
    A32Float = "A32_FLOAT", Plain, 1 x 1 x 1, 32, "f32", "000x", Rgb;
    L32Float = "L32_FLOAT", Plain, 1 x 1 x 1, 32, "f32", "xxx1", Rgb;
    L32A32Float = "L32A32_FLOAT", Plain, 1 x 1 x 1, 64, "f32,f32", "xxxy", Rgb;
    I32Float = "I32_FLOAT", Plain, 1 x 1 x 1, 32, "f32", "xxxx", Rgb;

    // sRGB.
    L8Srgb = "L8_SRGB", Plain, 1 x 1 x 1, 8, "un8", "xxx1", Srgb;
    R8Srgb = "R8_SRGB", Plain, 1 x 1 x 1, 8, "un8", "x001", Srgb;
    L8A8Srgb = "L8A8_SRGB", Plain, 1 x 1 x 1, 16, "un8,un8", "xxxy", Srgb;
    R8G8Srgb = "R8G8_SRGB", Plain, 1 x 1 x 1, 16, "un8,un8", "xy01", Srgb;
    R8G8B8Srgb = "R8G8B8_SRGB", Plain, 1 x 1 x 1, 24, "un8,un8,un8", "xyz1", Srgb;
    B8G8R8Srgb = "B8G8R8_SRGB", Plain, 1 x 1 x 1, 24, "un8,un8,un8", "zyx1", Srgb;
    R8G8B8A8Srgb = "R8G8B8A8_SRGB", Plain, 1 x 1 x 1, 32, "un8,un8,un8,un8", "xyzw", Srgb;
    A8B8G8R8Srgb = "A8B8G8R8_SRGB", Plain, 1 x 1 x 1, 32, "un8,un8,un8,un8", "wzyx", Srgb;
    X8B8G8R8Srgb = "X8B8G8R8_SRGB", Plain, 1 x 1 x 1, 32, "x8,un8,un8,un8", "wzy1", Srgb;
    B8G8R8A8Srgb = "B8G8R8A8_SRGB", Plain, 1 x 1 x 1, 32, "un8,un8,un8,un8", "zyxw", Srgb;
    B8G8R8X8Srgb = "B8G8R8X8_SRGB", Plain, 1 x 1 x 1, 32, "un8,un8,un8,x8", "zyx1", Srgb;
    A8R8G8B8Srgb = "A8R8G8B8_SRGB", Plain, 1 x 1 x 1, 32, "un8,un8,un8,un8", "yzwx", Srgb;
    X8R8G8B8Srgb = "X8R8G8B8_SRGB", Plain, 1 x 1 x 1, 32, "x8,un8,un8,un8", "yzw1", Srgb;
    R8G8B8X8Srgb = "R8G8B8X8_SRGB", Plain, 1 x 1 x 1, 32, "un8,un8,un8,x8", "xyz1", Srgb;
    B5G6R5Srgb = "B5G6R5_SRGB", Plain, 1 x 1 x 1, 16, "un5,un6,un5", "zyx1", Srgb;
    R5G6B5Srgb = "R5G6B5_SRGB", Plain, 1 x 1 x 1, 16, "un5,un6,un5", "xyz1", Srgb;

    // Depth / stencil.
    S8Uint = "S8_UINT", Plain, 1 x 1 x 1, 8, "up8", "_x__", Zs;
    Z16Unorm = "Z16_UNORM", Plain, 1 x 1 x 1, 16, "un16", "x___", Zs;
    Z16UnormS8Uint = "Z16_UNORM_S8_UINT", Plain, 1 x 1 x 1, 24, "un16,up8", "xy__", Zs;
    Z32Unorm = "Z32_UNORM", Plain, 1 x 1 x 1, 32, "un32", "x___", Zs;
    Z32Float = "Z32_FLOAT", Plain, 1 x 1 x 1, 32, "f32", "x___", Zs;
    Z24UnormS8Uint = "Z24_UNORM_S8_UINT", Plain, 1 x 1 x 1, 32, "un24,up8", "xy__", Zs;
    S8UintZ24Unorm = "S8_UINT_Z24_UNORM", Plain, 1 x 1 x 1, 32, "up8,un24", "yx__", Zs;
    X24S8Uint = "X24S8_UINT", Plain, 1 x 1 x 1, 32, "x24,up8", "_y__", Zs;
    S8X24Uint = "S8X24_UINT", Plain, 1 x 1 x 1, 32, "up8,x24", "_x__", Zs;
    Z24X8Unorm = "Z24X8_UNORM", Plain, 1 x 1 x 1, 32, "un24,x8", "x___", Zs;
    X8Z24Unorm = "X8Z24_UNORM", Plain, 1 x 1 x 1, 32, "x8,un24", "y___", Zs;
    Z32FloatS8X24Uint = "Z32_FLOAT_S8X24_UINT", Plain, 1 x 1 x 1, 64, "f32,up8,x24", "xy__", Zs;
    X32S8X24Uint = "X32_S8X24_UINT", Plain, 1 x 1 x 1, 64, "x32,up8,x24", "_y__", Zs;

    // Subsampled (one 32-bit block covers two pixels).
    Uyvy = "UYVY", Subsampled, 2 x 1 x 1, 32, "un8,un8,un8,un8", "xyz1", Yuv;
    Yuyv = "YUYV", Subsampled, 2 x 1 x 1, 32, "un8,un8,un8,un8", "xyz1", Yuv;
    R8G8B8G8Unorm = "R8G8_B8G8_UNORM", Subsampled, 2 x 1 x 1, 32, "x32", "xyz1", Rgb;
    G8R8G8B8Unorm = "G8R8_G8B8_UNORM", Subsampled, 2 x 1 x 1, 32, "x32", "xyz1", Rgb;
    G8B8G8R8Unorm = "G8B8_G8R8_UNORM", Subsampled, 2 x 1 x 1, 32, "x32", "xyz1", Rgb;
    B8G8R8G8Unorm = "B8G8_R8G8_UNORM", Subsampled, 2 x 1 x 1, 32, "x32", "xyz1", Rgb;

    // Special packed formats.
    R11G11B10Float = "R11G11B10_FLOAT", Other, 1 x 1 x 1, 32, "f11,f11,f10", "xyz1", Rgb;
    R9G9B9E5Float = "R9G9B9E5_FLOAT", Other, 1 x 1 x 1, 32, "f9,f9,f9,x5", "xyz1", Rgb;

    // S3TC (BC1-3).
    Bc1RgbUnorm = "DXT1_RGB", S3tc, 4 x 4 x 1, 64, "x64", "xyz1", Rgb;
    Bc1RgbaUnorm = "DXT1_RGBA", S3tc, 4 x 4 x 1, 64, "x64", "xyzw", Rgb;
    Bc2Unorm = "DXT3_RGBA", S3tc, 4 x 4 x 1, 128, "x128", "xyzw", Rgb;
    Bc3Unorm = "DXT5_RGBA", S3tc, 4 x 4 x 1, 128, "x128", "xyzw", Rgb;
    Bc1RgbSrgb = "DXT1_SRGB", S3tc, 4 x 4 x 1, 64, "x64", "xyz1", Srgb;
    Bc1RgbaSrgb = "DXT1_SRGBA", S3tc, 4 x 4 x 1, 64, "x64", "xyzw", Srgb;
    Bc2Srgb = "DXT3_SRGBA", S3tc, 4 x 4 x 1, 128, "x128", "xyzw", Srgb;
    Bc3Srgb = "DXT5_SRGBA", S3tc, 4 x 4 x 1, 128, "x128", "xyzw", Srgb;

    // RGTC (BC4, BC5) and LATC.
    Rgtc1Unorm = "RGTC1_UNORM", Rgtc, 4 x 4 x 1, 64, "x64", "x001", Rgb;
    Rgtc1Snorm = "RGTC1_SNORM", Rgtc, 4 x 4 x 1, 64, "x64", "x001", Rgb;
    Rgtc2Unorm = "RGTC2_UNORM", Rgtc, 4 x 4 x 1, 128, "x128", "xy01", Rgb;
    Rgtc2Snorm = "RGTC2_SNORM", Rgtc, 4 x 4 x 1, 128, "x128", "xy01", Rgb;
    Latc1Unorm = "LATC1_UNORM", Rgtc, 4 x 4 x 1, 64, "x64", "xxx1", Rgb;
    Latc1Snorm = "LATC1_SNORM", Rgtc, 4 x 4 x 1, 64, "x64", "xxx1", Rgb;
    Latc2Unorm = "LATC2_UNORM", Rgtc, 4 x 4 x 1, 128, "x128", "xxxy", Rgb;
    Latc2Snorm = "LATC2_SNORM", Rgtc, 4 x 4 x 1, 128, "x128", "xxxy", Rgb;

    // ETC1 / ETC2 / EAC.
    Etc1Rgb8 = "ETC1_RGB8", Etc, 4 x 4 x 1, 64, "x64", "xyz1", Rgb;
    Etc2Rgb8 = "ETC2_RGB8", Etc, 4 x 4 x 1, 64, "x64", "xyz1", Rgb;
    Etc2Srgb8 = "ETC2_SRGB8", Etc, 4 x 4 x 1, 64, "x64", "xyz1", Srgb;
    Etc2Rgb8a1 = "ETC2_RGB8A1", Etc, 4 x 4 x 1, 64, "x64", "xyzw", Rgb;
    Etc2Srgb8a1 = "ETC2_SRGB8A1", Etc, 4 x 4 x 1, 64, "x64", "xyzw", Srgb;
    Etc2Rgba8 = "ETC2_RGBA8", Etc, 4 x 4 x 1, 128, "x128", "xyzw", Rgb;
    Etc2Srgba8 = "ETC2_SRGBA8", Etc, 4 x 4 x 1, 128, "x128", "xyzw", Srgb;
    Etc2R11Unorm = "ETC2_R11_UNORM", Etc, 4 x 4 x 1, 64, "x64", "x001", Rgb;
    Etc2R11Snorm = "ETC2_R11_SNORM", Etc, 4 x 4 x 1, 64, "x64", "x001", Rgb;
    Etc2Rg11Unorm = "ETC2_RG11_UNORM", Etc, 4 x 4 x 1, 128, "x128", "xy01", Rgb;
    Etc2Rg11Snorm = "ETC2_RG11_SNORM", Etc, 4 x 4 x 1, 128, "x128", "xy01", Rgb;

    // BPTC (BC6H, BC7).
    BptcRgbaUnorm = "BPTC_RGBA_UNORM", Bptc, 4 x 4 x 1, 128, "x128", "xyzw", Rgb;
    BptcSrgba = "BPTC_SRGBA", Bptc, 4 x 4 x 1, 128, "x128", "xyzw", Srgb;
    BptcRgbFloat = "BPTC_RGB_FLOAT", Bptc, 4 x 4 x 1, 128, "x128", "xyz1", Rgb;
    BptcRgbUfloat = "BPTC_RGB_UFLOAT", Bptc, 4 x 4 x 1, 128, "x128", "xyz1", Rgb;

    // ASTC LDR, 2D.
    Astc4x4 = "ASTC_4x4", Astc, 4 x 4 x 1, 128, "x128", "xyzw", Rgb;
    Astc5x4 = "ASTC_5x4", Astc, 5 x 4 x 1, 128, "x128", "xyzw", Rgb;
    Astc5x5 = "ASTC_5x5", Astc, 5 x 5 x 1, 128, "x128", "xyzw", Rgb;
    Astc6x5 = "ASTC_6x5", Astc, 6 x 5 x 1, 128, "x128", "xyzw", Rgb;
    Astc6x6 = "ASTC_6x6", Astc, 6 x 6 x 1, 128, "x128", "xyzw", Rgb;
    Astc8x5 = "ASTC_8x5", Astc, 8 x 5 x 1, 128, "x128", "xyzw", Rgb;
    Astc8x6 = "ASTC_8x6", Astc, 8 x 6 x 1, 128, "x128", "xyzw", Rgb;
    Astc8x8 = "ASTC_8x8", Astc, 8 x 8 x 1, 128, "x128", "xyzw", Rgb;
    Astc10x5 = "ASTC_10x5", Astc, 10 x 5 x 1, 128, "x128", "xyzw", Rgb;
    Astc10x6 = "ASTC_10x6", Astc, 10 x 6 x 1, 128, "x128", "xyzw", Rgb;
    Astc10x8 = "ASTC_10x8", Astc, 10 x 8 x 1, 128, "x128", "xyzw", Rgb;
    Astc10x10 = "ASTC_10x10", Astc, 10 x 10 x 1, 128, "x128", "xyzw", Rgb;
    Astc12x10 = "ASTC_12x10", Astc, 12 x 10 x 1, 128, "x128", "xyzw", Rgb;
    Astc12x12 = "ASTC_12x12", Astc, 12 x 12 x 1, 128, "x128", "xyzw", Rgb;
    Astc4x4Srgb = "ASTC_4x4_SRGB", Astc, 4 x 4 x 1, 128, "x128", "xyzw", Srgb;
    Astc5x4Srgb = "ASTC_5x4_SRGB", Astc, 5 x 4 x 1, 128, "x128", "xyzw", Srgb;
    Astc5x5Srgb = "ASTC_5x5_SRGB", Astc, 5 x 5 x 1, 128, "x128", "xyzw", Srgb;
    Astc6x5Srgb = "ASTC_6x5_SRGB", Astc, 6 x 5 x 1, 128, "x128", "xyzw", Srgb;
    Astc6x6Srgb = "ASTC_6x6_SRGB", Astc, 6 x 6 x 1, 128, "x128", "xyzw", Srgb;
    Astc8x5Srgb = "ASTC_8x5_SRGB", Astc, 8 x 5 x 1, 128, "x128", "xyzw", Srgb;
    Astc8x6Srgb = "ASTC_8x6_SRGB", Astc, 8 x 6 x 1, 128, "x128", "xyzw", Srgb;
    Astc8x8Srgb = "ASTC_8x8_SRGB", Astc, 8 x 8 x 1, 128, "x128", "xyzw", Srgb;
    Astc10x5Srgb = "ASTC_10x5_SRGB", Astc, 10 x 5 x 1, 128, "x128", "xyzw", Srgb;
    Astc10x6Srgb = "ASTC_10x6_SRGB", Astc, 10 x 6 x 1, 128, "x128", "xyzw", Srgb;
    Astc10x8Srgb = "ASTC_10x8_SRGB", Astc, 10 x 8 x 1, 128, "x128", "xyzw", Srgb;
    Astc10x10Srgb = "ASTC_10x10_SRGB", Astc, 10 x 10 x 1, 128, "x128", "xyzw", Srgb;
    Astc12x10Srgb = "ASTC_12x10_SRGB", Astc, 12 x 10 x 1, 128, "x128", "xyzw", Srgb;
    Astc12x12Srgb = "ASTC_12x12_SRGB", Astc, 12 x 12 x 1, 128, "x128", "xyzw", Srgb;

    // ASTC LDR, 3D.
    Astc3x3x3 = "ASTC_3x3x3", Astc, 3 x 3 x 3, 128, "x128", "xyzw", Rgb;
    Astc4x3x3 = "ASTC_4x3x3", Astc, 4 x 3 x 3, 128, "x128", "xyzw", Rgb;
    Astc4x4x3 = "ASTC_4x4x3", Astc, 4 x 4 x 3, 128, "x128", "xyzw", Rgb;
    Astc4x4x4 = "ASTC_4x4x4", Astc, 4 x 4 x 4, 128, "x128", "xyzw", Rgb;
    Astc5x4x4 = "ASTC_5x4x4", Astc, 5 x 4 x 4, 128, "x128", "xyzw", Rgb;
    Astc5x5x4 = "ASTC_5x5x4", Astc, 5 x 5 x 4, 128, "x128", "xyzw", Rgb;
    Astc5x5x5 = "ASTC_5x5x5", Astc, 5 x 5 x 5, 128, "x128", "xyzw", Rgb;
    Astc6x5x5 = "ASTC_6x5x5", Astc, 6 x 5 x 5, 128, "x128", "xyzw", Rgb;
    Astc6x6x5 = "ASTC_6x6x5", Astc, 6 x 6 x 5, 128, "x128", "xyzw", Rgb;
    Astc6x6x6 = "ASTC_6x6x6", Astc, 6 x 6 x 6, 128, "x128", "xyzw", Rgb;
    Astc3x3x3Srgb = "ASTC_3x3x3_SRGB", Astc, 3 x 3 x 3, 128, "x128", "xyzw", Srgb;
    Astc4x3x3Srgb = "ASTC_4x3x3_SRGB", Astc, 4 x 3 x 3, 128, "x128", "xyzw", Srgb;
    Astc4x4x3Srgb = "ASTC_4x4x3_SRGB", Astc, 4 x 4 x 3, 128, "x128", "xyzw", Srgb;
    Astc4x4x4Srgb = "ASTC_4x4x4_SRGB", Astc, 4 x 4 x 4, 128, "x128", "xyzw", Srgb;
    Astc5x4x4Srgb = "ASTC_5x4x4_SRGB", Astc, 5 x 4 x 4, 128, "x128", "xyzw", Srgb;
    Astc5x5x4Srgb = "ASTC_5x5x4_SRGB", Astc, 5 x 5 x 4, 128, "x128", "xyzw", Srgb;
    Astc5x5x5Srgb = "ASTC_5x5x5_SRGB", Astc, 5 x 5 x 5, 128, "x128", "xyzw", Srgb;
    Astc6x5x5Srgb = "ASTC_6x5x5_SRGB", Astc, 6 x 5 x 5, 128, "x128", "xyzw", Srgb;
    Astc6x6x5Srgb = "ASTC_6x6x5_SRGB", Astc, 6 x 6 x 5, 128, "x128", "xyzw", Srgb;
    Astc6x6x6Srgb = "ASTC_6x6x6_SRGB", Astc, 6 x 6 x 6, 128, "x128", "xyzw", Srgb;

    // D3D10-like formats (also vertex formats).
    R64Float = "R64_FLOAT", Plain, 1 x 1 x 1, 64, "f64", "x001", Rgb;
    R64G64Float = "R64G64_FLOAT", Plain, 1 x 1 x 1, 128, "f64,f64", "xy01", Rgb;
    R64G64B64Float = "R64G64B64_FLOAT", Plain, 1 x 1 x 1, 192, "f64,f64,f64", "xyz1", Rgb;
    R64G64B64A64Float = "R64G64B64A64_FLOAT", Plain, 1 x 1 x 1, 256, "f64,f64,f64,f64", "xyzw", Rgb;
    R32Float = "R32_FLOAT", Plain, 1 x 1 x 1, 32, "f32", "x001", Rgb;
    R32G32Float = "R32G32_FLOAT", Plain, 1 x 1 x 1, 64, "f32,f32", "xy01", Rgb;
    R32G32B32Float = "R32G32B32_FLOAT", Plain, 1 x 1 x 1, 96, "f32,f32,f32", "xyz1", Rgb;
    R32G32B32A32Float = "R32G32B32A32_FLOAT", Plain, 1 x 1 x 1, 128, "f32,f32,f32,f32", "xyzw", Rgb;
    R32Unorm = "R32_UNORM", Plain, 1 x 1 x 1, 32, "un32", "x001", Rgb;
    R32G32Unorm = "R32G32_UNORM", Plain, 1 x 1 x 1, 64, "un32,un32", "xy01", Rgb;
    R32G32B32Unorm = "R32G32B32_UNORM", Plain, 1 x 1 x 1, 96, "un32,un32,un32", "xyz1", Rgb;
    R32G32B32A32Unorm = "R32G32B32A32_UNORM", Plain, 1 x 1 x 1, 128, "un32,un32,un32,un32", "xyzw", Rgb;
    R32Uscaled = "R32_USCALED", Plain, 1 x 1 x 1, 32, "u32", "x001", Rgb;
    R32G32Uscaled = "R32G32_USCALED", Plain, 1 x 1 x 1, 64, "u32,u32", "xy01", Rgb;
    R32G32B32Uscaled = "R32G32B32_USCALED", Plain, 1 x 1 x 1, 96, "u32,u32,u32", "xyz1", Rgb;
    R32G32B32A32Uscaled = "R32G32B32A32_USCALED", Plain, 1 x 1 x 1, 128, "u32,u32,u32,u32", "xyzw", Rgb;
    R32Snorm = "R32_SNORM", Plain, 1 x 1 x 1, 32, "sn32", "x001", Rgb;
    R32G32Snorm = "R32G32_SNORM", Plain, 1 x 1 x 1, 64, "sn32,sn32", "xy01", Rgb;
    R32G32B32Snorm = "R32G32B32_SNORM", Plain, 1 x 1 x 1, 96, "sn32,sn32,sn32", "xyz1", Rgb;
    R32G32B32A32Snorm = "R32G32B32A32_SNORM", Plain, 1 x 1 x 1, 128, "sn32,sn32,sn32,sn32", "xyzw", Rgb;
    R32Sscaled = "R32_SSCALED", Plain, 1 x 1 x 1, 32, "s32", "x001", Rgb;
    R32G32Sscaled = "R32G32_SSCALED", Plain, 1 x 1 x 1, 64, "s32,s32", "xy01", Rgb;
    R32G32B32Sscaled = "R32G32B32_SSCALED", Plain, 1 x 1 x 1, 96, "s32,s32,s32", "xyz1", Rgb;
    R32G32B32A32Sscaled = "R32G32B32A32_SSCALED", Plain, 1 x 1 x 1, 128, "s32,s32,s32,s32", "xyzw", Rgb;
    R16Float = "R16_FLOAT", Plain, 1 x 1 x 1, 16, "f16", "x001", Rgb;
    R16G16Float = "R16G16_FLOAT", Plain, 1 x 1 x 1, 32, "f16,f16", "xy01", Rgb;
    R16G16B16Float = "R16G16B16_FLOAT", Plain, 1 x 1 x 1, 48, "f16,f16,f16", "xyz1", Rgb;
    R16G16B16A16Float = "R16G16B16A16_FLOAT", Plain, 1 x 1 x 1, 64, "f16,f16,f16,f16", "xyzw", Rgb;
    R16Unorm = "R16_UNORM", Plain, 1 x 1 x 1, 16, "un16", "x001", Rgb;
    R16G16Unorm = "R16G16_UNORM", Plain, 1 x 1 x 1, 32, "un16,un16", "xy01", Rgb;
    R16G16B16Unorm = "R16G16B16_UNORM", Plain, 1 x 1 x 1, 48, "un16,un16,un16", "xyz1", Rgb;
    R16G16B16A16Unorm = "R16G16B16A16_UNORM", Plain, 1 x 1 x 1, 64, "un16,un16,un16,un16", "xyzw", Rgb;
    R16Uscaled = "R16_USCALED", Plain, 1 x 1 x 1, 16, "u16", "x001", Rgb;
    R16G16Uscaled = "R16G16_USCALED", Plain, 1 x 1 x 1, 32, "u16,u16", "xy01", Rgb;
    R16G16B16Uscaled = "R16G16B16_USCALED", Plain, 1 x 1 x 1, 48, "u16,u16,u16", "xyz1", Rgb;
    R16G16B16A16Uscaled = "R16G16B16A16_USCALED", Plain, 1 x 1 x 1, 64, "u16,u16,u16,u16", "xyzw", Rgb;
    R16Snorm = "R16_SNORM", Plain, 1 x 1 x 1, 16, "sn16", "x001", Rgb;
    R16G16Snorm = "R16G16_SNORM", Plain, 1 x 1 x 1, 32, "sn16,sn16", "xy01", Rgb;
    R16G16B16Snorm = "R16G16B16_SNORM", Plain, 1 x 1 x 1, 48, "sn16,sn16,sn16", "xyz1", Rgb;
    R16G16B16A16Snorm = "R16G16B16A16_SNORM", Plain, 1 x 1 x 1, 64, "sn16,sn16,sn16,sn16", "xyzw", Rgb;
    R16Sscaled = "R16_SSCALED", Plain, 1 x 1 x 1, 16, "s16", "x001", Rgb;
    R16G16Sscaled = "R16G16_SSCALED", Plain, 1 x 1 x 1, 32, "s16,s16", "xy01", Rgb;
    R16G16B16Sscaled = "R16G16B16_SSCALED", Plain, 1 x 1 x 1, 48, "s16,s16,s16", "xyz1", Rgb;
    R16G16B16A16Sscaled = "R16G16B16A16_SSCALED", Plain, 1 x 1 x 1, 64, "s16,s16,s16,s16", "xyzw", Rgb;
    R8Unorm = "R8_UNORM", Plain, 1 x 1 x 1, 8, "un8", "x001", Rgb;
    R8G8Unorm = "R8G8_UNORM", Plain, 1 x 1 x 1, 16, "un8,un8", "xy01", Rgb;
    R8G8B8Unorm = "R8G8B8_UNORM", Plain, 1 x 1 x 1, 24, "un8,un8,un8", "xyz1", Rgb;
    B8G8R8Unorm = "B8G8R8_UNORM", Plain, 1 x 1 x 1, 24, "un8,un8,un8", "zyx1", Rgb;
    R8G8B8A8Unorm = "R8G8B8A8_UNORM", Plain, 1 x 1 x 1, 32, "un8,un8,un8,un8", "xyzw", Rgb;
    R8Uscaled = "R8_USCALED", Plain, 1 x 1 x 1, 8, "u8", "x001", Rgb;
    R8G8Uscaled = "R8G8_USCALED", Plain, 1 x 1 x 1, 16, "u8,u8", "xy01", Rgb;
    R8G8B8Uscaled = "R8G8B8_USCALED", Plain, 1 x 1 x 1, 24, "u8,u8,u8", "xyz1", Rgb;
    B8G8R8Uscaled = "B8G8R8_USCALED", Plain, 1 x 1 x 1, 24, "u8,u8,u8", "zyx1", Rgb;
    R8G8B8A8Uscaled = "R8G8B8A8_USCALED", Plain, 1 x 1 x 1, 32, "u8,u8,u8,u8", "xyzw", Rgb;
    B8G8R8A8Uscaled = "B8G8R8A8_USCALED", Plain, 1 x 1 x 1, 32, "u8,u8,u8,u8", "zyxw", Rgb;
    A8B8G8R8Uscaled = "A8B8G8R8_USCALED", Plain, 1 x 1 x 1, 32, "u8,u8,u8,u8", "wzyx", Rgb;
    R8Snorm = "R8_SNORM", Plain, 1 x 1 x 1, 8, "sn8", "x001", Rgb;
    R8G8Snorm = "R8G8_SNORM", Plain, 1 x 1 x 1, 16, "sn8,sn8", "xy01", Rgb;
    R8G8B8Snorm = "R8G8B8_SNORM", Plain, 1 x 1 x 1, 24, "sn8,sn8,sn8", "xyz1", Rgb;
    B8G8R8Snorm = "B8G8R8_SNORM", Plain, 1 x 1 x 1, 24, "sn8,sn8,sn8", "zyx1", Rgb;
    R8G8B8A8Snorm = "R8G8B8A8_SNORM", Plain, 1 x 1 x 1, 32, "sn8,sn8,sn8,sn8", "xyzw", Rgb;
    B8G8R8A8Snorm = "B8G8R8A8_SNORM", Plain, 1 x 1 x 1, 32, "sn8,sn8,sn8,sn8", "zyxw", Rgb;
    R8Sscaled = "R8_SSCALED", Plain, 1 x 1 x 1, 8, "s8", "x001", Rgb;
    R8G8Sscaled = "R8G8_SSCALED", Plain, 1 x 1 x 1, 16, "s8,s8", "xy01", Rgb;
    R8G8B8Sscaled = "R8G8B8_SSCALED", Plain, 1 x 1 x 1, 24, "s8,s8,s8", "xyz1", Rgb;
    B8G8R8Sscaled = "B8G8R8_SSCALED", Plain, 1 x 1 x 1, 24, "s8,s8,s8", "zyx1", Rgb;
    R8G8B8A8Sscaled = "R8G8B8A8_SSCALED", Plain, 1 x 1 x 1, 32, "s8,s8,s8,s8", "xyzw", Rgb;
    B8G8R8A8Sscaled = "B8G8R8A8_SSCALED", Plain, 1 x 1 x 1, 32, "s8,s8,s8,s8", "zyxw", Rgb;
    A8B8G8R8Sscaled = "A8B8G8R8_SSCALED", Plain, 1 x 1 x 1, 32, "s8,s8,s8,s8", "wzyx", Rgb;

    // GL_FIXED vertex formats.
    R32Fixed = "R32_FIXED", Plain, 1 x 1 x 1, 32, "h32", "x001", Rgb;
    R32G32Fixed = "R32G32_FIXED", Plain, 1 x 1 x 1, 64, "h32,h32", "xy01", Rgb;
    R32G32B32Fixed = "R32G32B32_FIXED", Plain, 1 x 1 x 1, 96, "h32,h32,h32", "xyz1", Rgb;
    R32G32B32A32Fixed = "R32G32B32A32_FIXED", Plain, 1 x 1 x 1, 128, "h32,h32,h32,h32", "xyzw", Rgb;

    // 10_10_10_2 vertex and texture formats.
    R10G10B10X2Uscaled = "R10G10B10X2_USCALED", Plain, 1 x 1 x 1, 32, "u10,u10,u10,x2", "xyz1", Rgb;
    R10G10B10X2Snorm = "R10G10B10X2_SNORM", Plain, 1 x 1 x 1, 32, "sn10,sn10,sn10,x2", "xyz1", Rgb;
    R10G10B10X2Sint = "R10G10B10X2_SINT", Plain, 1 x 1 x 1, 32, "sp10,sp10,sp10,x2", "xyz1", Rgb;
    R10G10B10A2Uscaled = "R10G10B10A2_USCALED", Plain, 1 x 1 x 1, 32, "u10,u10,u10,u2", "xyzw", Rgb;
    R10G10B10A2Sscaled = "R10G10B10A2_SSCALED", Plain, 1 x 1 x 1, 32, "s10,s10,s10,s2", "xyzw", Rgb;
    R10G10B10A2Snorm = "R10G10B10A2_SNORM", Plain, 1 x 1 x 1, 32, "sn10,sn10,sn10,sn2", "xyzw", Rgb;
    B10G10R10A2Uscaled = "B10G10R10A2_USCALED", Plain, 1 x 1 x 1, 32, "u10,u10,u10,u2", "zyxw", Rgb;
    B10G10R10A2Sscaled = "B10G10R10A2_SSCALED", Plain, 1 x 1 x 1, 32, "s10,s10,s10,s2", "zyxw", Rgb;
    B10G10R10A2Snorm = "B10G10R10A2_SNORM", Plain, 1 x 1 x 1, 32, "sn10,sn10,sn10,sn2", "zyxw", Rgb;
    R10G10B10A2Uint = "R10G10B10A2_UINT", Plain, 1 x 1 x 1, 32, "up10,up10,up10,up2", "xyzw", Rgb;
    R10G10B10A2Sint = "R10G10B10A2_SINT", Plain, 1 x 1 x 1, 32, "sp10,sp10,sp10,sp2", "xyzw", Rgb;
    B10G10R10A2Uint = "B10G10R10A2_UINT", Plain, 1 x 1 x 1, 32, "up10,up10,up10,up2", "zyxw", Rgb;
    B10G10R10A2Sint = "B10G10R10A2_SINT", Plain, 1 x 1 x 1, 32, "sp10,sp10,sp10,sp2", "zyxw", Rgb;
    A2R10G10B10Uint = "A2R10G10B10_UINT", Plain, 1 x 1 x 1, 32, "up2,up10,up10,up10", "yzwx", Rgb;
    A2B10G10R10Uint = "A2B10G10R10_UINT", Plain, 1 x 1 x 1, 32, "up2,up10,up10,up10", "wzyx", Rgb;
    B10G10R10X2Unorm = "B10G10R10X2_UNORM", Plain, 1 x 1 x 1, 32, "un10,un10,un10,x2", "zyx1", Rgb;
    B10G10R10X2Snorm = "B10G10R10X2_SNORM", Plain, 1 x 1 x 1, 32, "sn10,sn10,sn10,x2", "zyx1", Rgb;
    B10G10R10X2Sint = "B10G10R10X2_SINT", Plain, 1 x 1 x 1, 32, "sp10,sp10,sp10,x2", "zyx1", Rgb;

    // Two-channel red/alpha formats.
    A4R4Unorm = "A4R4_UNORM", Plain, 1 x 1 x 1, 8, "un4,un4", "y00x", Rgb;
    R4A4Unorm = "R4A4_UNORM", Plain, 1 x 1 x 1, 8, "un4,un4", "x00y", Rgb;
    R8A8Unorm = "R8A8_UNORM", Plain, 1 x 1 x 1, 16, "un8,un8", "x00y", Rgb;
    A8R8Unorm = "A8R8_UNORM", Plain, 1 x 1 x 1, 16, "un8,un8", "y00x", Rgb;
    R8A8Snorm = "R8A8_SNORM", Plain, 1 x 1 x 1, 16, "sn8,sn8", "x00y", Rgb;
    R8A8Uint = "R8A8_UINT", Plain, 1 x 1 x 1, 16, "up8,up8", "x00y", Rgb;
    R8A8Sint = "R8A8_SINT", Plain, 1 x 1 x 1, 16, "sp8,sp8", "x00y", Rgb;
    R16A16Unorm = "R16A16_UNORM", Plain, 1 x 1 x 1, 32, "un16,un16", "x00y", Rgb;
    R16A16Snorm = "R16A16_SNORM", Plain, 1 x 1 x 1, 32, "sn16,sn16", "x00y", Rgb;
    R16A16Float = "R16A16_FLOAT", Plain, 1 x 1 x 1, 32, "f16,f16", "x00y", Rgb;
    R16A16Uint = "R16A16_UINT", Plain, 1 x 1 x 1, 32, "up16,up16", "x00y", Rgb;
    R16A16Sint = "R16A16_SINT", Plain, 1 x 1 x 1, 32, "sp16,sp16", "x00y", Rgb;
    R32A32Float = "R32A32_FLOAT", Plain, 1 x 1 x 1, 64, "f32,f32", "x00y", Rgb;
    R32A32Uint = "R32A32_UINT", Plain, 1 x 1 x 1, 64, "up32,up32", "x00y", Rgb;
    R32A32Sint = "R32A32_SINT", Plain, 1 x 1 x 1, 64, "sp32,sp32", "x00y", Rgb;

    // Pure integer formats.
    R8Uint = "R8_UINT", Plain, 1 x 1 x 1, 8, "up8", "x001", Rgb;
    R8G8Uint = "R8G8_UINT", Plain, 1 x 1 x 1, 16, "up8,up8", "xy01", Rgb;
    R8G8B8Uint = "R8G8B8_UINT", Plain, 1 x 1 x 1, 24, "up8,up8,up8", "xyz1", Rgb;
    R8G8B8A8Uint = "R8G8B8A8_UINT", Plain, 1 x 1 x 1, 32, "up8,up8,up8,up8", "xyzw", Rgb;
    R8Sint = "R8_SINT", Plain, 1 x 1 x 1, 8, "sp8", "x001", Rgb;
    R8G8Sint = "R8G8_SINT", Plain, 1 x 1 x 1, 16, "sp8,sp8", "xy01", Rgb;
    R8G8B8Sint = "R8G8B8_SINT", Plain, 1 x 1 x 1, 24, "sp8,sp8,sp8", "xyz1", Rgb;
    R8G8B8A8Sint = "R8G8B8A8_SINT", Plain, 1 x 1 x 1, 32, "sp8,sp8,sp8,sp8", "xyzw", Rgb;
    R16Uint = "R16_UINT", Plain, 1 x 1 x 1, 16, "up16", "x001", Rgb;
    R16G16Uint = "R16G16_UINT", Plain, 1 x 1 x 1, 32, "up16,up16", "xy01", Rgb;
    R16G16B16Uint = "R16G16B16_UINT", Plain, 1 x 1 x 1, 48, "up16,up16,up16", "xyz1", Rgb;
    R16G16B16A16Uint = "R16G16B16A16_UINT", Plain, 1 x 1 x 1, 64, "up16,up16,up16,up16", "xyzw", Rgb;
    R16Sint = "R16_SINT", Plain, 1 x 1 x 1, 16, "sp16", "x001", Rgb;
    R16G16Sint = "R16G16_SINT", Plain, 1 x 1 x 1, 32, "sp16,sp16", "xy01", Rgb;
    R16G16B16Sint = "R16G16B16_SINT", Plain, 1 x 1 x 1, 48, "sp16,sp16,sp16", "xyz1", Rgb;
    R16G16B16A16Sint = "R16G16B16A16_SINT", Plain, 1 x 1 x 1, 64, "sp16,sp16,sp16,sp16", "xyzw", Rgb;
    R32Uint = "R32_UINT", Plain, 1 x 1 x 1, 32, "up32", "x001", Rgb;
    R32G32Uint = "R32G32_UINT", Plain, 1 x 1 x 1, 64, "up32,up32", "xy01", Rgb;
    R32G32B32Uint = "R32G32B32_UINT", Plain, 1 x 1 x 1, 96, "up32,up32,up32", "xyz1", Rgb;
    R32G32B32A32Uint = "R32G32B32A32_UINT", Plain, 1 x 1 x 1, 128, "up32,up32,up32,up32", "xyzw", Rgb;
    R32Sint = "R32_SINT", Plain, 1 x 1 x 1, 32, "sp32", "x001", Rgb;
    R32G32Sint = "R32G32_SINT", Plain, 1 x 1 x 1, 64, "sp32,sp32", "xy01", Rgb;
    R32G32B32Sint = "R32G32B32_SINT", Plain, 1 x 1 x 1, 96, "sp32,sp32,sp32", "xyz1", Rgb;
    R32G32B32A32Sint = "R32G32B32A32_SINT", Plain, 1 x 1 x 1, 128, "sp32,sp32,sp32,sp32", "xyzw", Rgb;
    R64Uint = "R64_UINT", Plain, 1 x 1 x 1, 64, "up64", "x001", Rgb;
    R64G64Uint = "R64G64_UINT", Plain, 1 x 1 x 1, 128, "up64,up64", "xy01", Rgb;
    R64G64B64Uint = "R64G64B64_UINT", Plain, 1 x 1 x 1, 192, "up64,up64,up64", "xyz1", Rgb;
    R64G64B64A64Uint = "R64G64B64A64_UINT", Plain, 1 x 1 x 1, 256, "up64,up64,up64,up64", "xyzw", Rgb;
    R64Sint = "R64_SINT", Plain, 1 x 1 x 1, 64, "sp64", "x001", Rgb;
    R64G64Sint = "R64G64_SINT", Plain, 1 x 1 x 1, 128, "sp64,sp64", "xy01", Rgb;
    R64G64B64Sint = "R64G64B64_SINT", Plain, 1 x 1 x 1, 192, "sp64,sp64,sp64", "xyz1", Rgb;
    R64G64B64A64Sint = "R64G64B64A64_SINT", Plain, 1 x 1 x 1, 256, "sp64,sp64,sp64,sp64", "xyzw", Rgb;
    A8Uint = "A8_UINT", Plain, 1 x 1 x 1, 8, "up8", "000x", Rgb;
    I8Uint = "I8_UINT", Plain, 1 x 1 x 1, 8, "up8", "xxxx", Rgb;
    L8Uint = "L8_UINT", Plain, 1 x 1 x 1, 8, "up8", "xxx1", Rgb;
    L8A8Uint = "L8A8_UINT", Plain, 1 x 1 x 1, 16, "up8,up8", "xxxy", Rgb;
    A8Sint = "A8_SINT", Plain, 1 x 1 x 1, 8, "sp8", "000x", Rgb;
    I8Sint = "I8_SINT", Plain, 1 x 1 x 1, 8, "sp8", "xxxx", Rgb;
    L8Sint = "L8_SINT", Plain, 1 x 1 x 1, 8, "sp8", "xxx1", Rgb;
    L8A8Sint = "L8A8_SINT", Plain, 1 x 1 x 1, 16, "sp8,sp8", "xxxy", Rgb;
    A16Uint = "A16_UINT", Plain, 1 x 1 x 1, 16, "up16", "000x", Rgb;
    I16Uint = "I16_UINT", Plain, 1 x 1 x 1, 16, "up16", "xxxx", Rgb;
    L16Uint = "L16_UINT", Plain, 1 x 1 x 1, 16, "up16", "xxx1", Rgb;
    L16A16Uint = "L16A16_UINT", Plain, 1 x 1 x 1, 32, "up16,up16", "xxxy", Rgb;
    A16Sint = "A16_SINT", Plain, 1 x 1 x 1, 16, "sp16", "000x", Rgb;
    I16Sint = "I16_SINT", Plain, 1 x 1 x 1, 16, "sp16", "xxxx", Rgb;
    L16Sint = "L16_SINT", Plain, 1 x 1 x 1, 16, "sp16", "xxx1", Rgb;
    L16A16Sint = "L16A16_SINT", Plain, 1 x 1 x 1, 32, "sp16,sp16", "xxxy", Rgb;
    A32Uint = "A32_UINT", Plain, 1 x 1 x 1, 32, "up32", "000x", Rgb;
    I32Uint = "I32_UINT", Plain, 1 x 1 x 1, 32, "up32", "xxxx", Rgb;
    L32Uint = "L32_UINT", Plain, 1 x 1 x 1, 32, "up32", "xxx1", Rgb;
    L32A32Uint = "L32A32_UINT", Plain, 1 x 1 x 1, 64, "up32,up32", "xxxy", Rgb;
    A32Sint = "A32_SINT", Plain, 1 x 1 x 1, 32, "sp32", "000x", Rgb;
    I32Sint = "I32_SINT", Plain, 1 x 1 x 1, 32, "sp32", "xxxx", Rgb;
    L32Sint = "L32_SINT", Plain, 1 x 1 x 1, 32, "sp32", "xxx1", Rgb;
    L32A32Sint = "L32A32_SINT", Plain, 1 x 1 x 1, 64, "sp32,sp32", "xxxy", Rgb;
    B8G8R8Uint = "B8G8R8_UINT", Plain, 1 x 1 x 1, 24, "up8,up8,up8", "zyx1", Rgb;
    B8G8R8A8Uint = "B8G8R8A8_UINT", Plain, 1 x 1 x 1, 32, "up8,up8,up8,up8", "zyxw", Rgb;
    B8G8R8Sint = "B8G8R8_SINT", Plain, 1 x 1 x 1, 24, "sp8,sp8,sp8", "zyx1", Rgb;
    B8G8R8A8Sint = "B8G8R8A8_SINT", Plain, 1 x 1 x 1, 32, "sp8,sp8,sp8,sp8", "zyxw", Rgb;
    A8R8G8B8Uint = "A8R8G8B8_UINT", Plain, 1 x 1 x 1, 32, "up8,up8,up8,up8", "yzwx", Rgb;
    A8B8G8R8Uint = "A8B8G8R8_UINT", Plain, 1 x 1 x 1, 32, "up8,up8,up8,up8", "wzyx", Rgb;
    R5G6B5Uint = "R5G6B5_UINT", Plain, 1 x 1 x 1, 16, "up5,up6,up5", "xyz1", Rgb;
    B5G6R5Uint = "B5G6R5_UINT", Plain, 1 x 1 x 1, 16, "up5,up6,up5", "zyx1", Rgb;
    R3G3B2Uint = "R3G3B2_UINT", Plain, 1 x 1 x 1, 8, "up3,up3,up2", "xyz1", Rgb;
    B2G3R3Uint = "B2G3R3_UINT", Plain, 1 x 1 x 1, 8, "up2,up3,up3", "zyx1", Rgb;
    R4G4B4A4Uint = "R4G4B4A4_UINT", Plain, 1 x 1 x 1, 16, "up4,up4,up4,up4", "xyzw", Rgb;
    B4G4R4A4Uint = "B4G4R4A4_UINT", Plain, 1 x 1 x 1, 16, "up4,up4,up4,up4", "zyxw", Rgb;
    A4R4G4B4Uint = "A4R4G4B4_UINT", Plain, 1 x 1 x 1, 16, "up4,up4,up4,up4", "yzwx", Rgb;
    A4B4G4R4Uint = "A4B4G4R4_UINT", Plain, 1 x 1 x 1, 16, "up4,up4,up4,up4", "wzyx", Rgb;
    A1R5G5B5Uint = "A1R5G5B5_UINT", Plain, 1 x 1 x 1, 16, "up1,up5,up5,up5", "yzwx", Rgb;
    A1B5G5R5Uint = "A1B5G5R5_UINT", Plain, 1 x 1 x 1, 16, "up1,up5,up5,up5", "wzyx", Rgb;
    R5G5B5A1Uint = "R5G5B5A1_UINT", Plain, 1 x 1 x 1, 16, "up5,up5,up5,up1", "xyzw", Rgb;
    B5G5R5A1Uint = "B5G5R5A1_UINT", Plain, 1 x 1 x 1, 16, "up5,up5,up5,up1", "zyxw", Rgb;

    // RGBX variants.
    R8G8B8X8Snorm = "R8G8B8X8_SNORM", Plain, 1 x 1 x 1, 32, "sn8,sn8,sn8,x8", "xyz1", Rgb;
    R8G8B8X8Uint = "R8G8B8X8_UINT", Plain, 1 x 1 x 1, 32, "up8,up8,up8,x8", "xyz1", Rgb;
    R8G8B8X8Sint = "R8G8B8X8_SINT", Plain, 1 x 1 x 1, 32, "sp8,sp8,sp8,x8", "xyz1", Rgb;
    R16G16B16X16Unorm = "R16G16B16X16_UNORM", Plain, 1 x 1 x 1, 64, "un16,un16,un16,x16", "xyz1", Rgb;
    R16G16B16X16Snorm = "R16G16B16X16_SNORM", Plain, 1 x 1 x 1, 64, "sn16,sn16,sn16,x16", "xyz1", Rgb;
    R16G16B16X16Float = "R16G16B16X16_FLOAT", Plain, 1 x 1 x 1, 64, "f16,f16,f16,x16", "xyz1", Rgb;
    R16G16B16X16Uint = "R16G16B16X16_UINT", Plain, 1 x 1 x 1, 64, "up16,up16,up16,x16", "xyz1", Rgb;
    R16G16B16X16Sint = "R16G16B16X16_SINT", Plain, 1 x 1 x 1, 64, "sp16,sp16,sp16,x16", "xyz1", Rgb;
    R32G32B32X32Float = "R32G32B32X32_FLOAT", Plain, 1 x 1 x 1, 128, "f32,f32,f32,x32", "xyz1", Rgb;
    R32G32B32X32Uint = "R32G32B32X32_UINT", Plain, 1 x 1 x 1, 128, "up32,up32,up32,x32", "xyz1", Rgb;
    R32G32B32X32Sint = "R32G32B32X32_SINT", Plain, 1 x 1 x 1, 128, "sp32,sp32,sp32,x32", "xyz1", Rgb;

    // Swapped two-channel and ABGR signed formats.
    G8R8Unorm = "G8R8_UNORM", Plain, 1 x 1 x 1, 16, "un8,un8", "yx01", Rgb;
    G8R8Snorm = "G8R8_SNORM", Plain, 1 x 1 x 1, 16, "sn8,sn8", "yx01", Rgb;
    G8R8Sint = "G8R8_SINT", Plain, 1 x 1 x 1, 16, "sp8,sp8", "yx01", Rgb;
    G16R16Unorm = "G16R16_UNORM", Plain, 1 x 1 x 1, 32, "un16,un16", "yx01", Rgb;
    G16R16Snorm = "G16R16_SNORM", Plain, 1 x 1 x 1, 32, "sn16,sn16", "yx01", Rgb;
    G16R16Sint = "G16R16_SINT", Plain, 1 x 1 x 1, 32, "sp16,sp16", "yx01", Rgb;
    A8B8G8R8Snorm = "A8B8G8R8_SNORM", Plain, 1 x 1 x 1, 32, "sn8,sn8,sn8,sn8", "wzyx", Rgb;
    A8B8G8R8Sint = "A8B8G8R8_SINT", Plain, 1 x 1 x 1, 32, "sp8,sp8,sp8,sp8", "wzyx", Rgb;
    X8B8G8R8Snorm = "X8B8G8R8_SNORM", Plain, 1 x 1 x 1, 32, "x8,sn8,sn8,sn8", "wzy1", Rgb;
    X8B8G8R8Sint = "X8B8G8R8_SINT", Plain, 1 x 1 x 1, 32, "x8,sp8,sp8,sp8", "wzy1", Rgb;
}

/// (linear, sRGB) pairs: the data behind [`Format::to_srgb`] and
/// [`Format::to_linear`].
static SRGB_PAIRS: &[(Format, Format)] = &[
    (Format::L8Unorm, Format::L8Srgb),
    (Format::R8Unorm, Format::R8Srgb),
    (Format::L8A8Unorm, Format::L8A8Srgb),
    (Format::R8G8Unorm, Format::R8G8Srgb),
    (Format::R8G8B8Unorm, Format::R8G8B8Srgb),
    (Format::B8G8R8Unorm, Format::B8G8R8Srgb),
    (Format::R8G8B8A8Unorm, Format::R8G8B8A8Srgb),
    (Format::A8B8G8R8Unorm, Format::A8B8G8R8Srgb),
    (Format::X8B8G8R8Unorm, Format::X8B8G8R8Srgb),
    (Format::B8G8R8A8Unorm, Format::B8G8R8A8Srgb),
    (Format::B8G8R8X8Unorm, Format::B8G8R8X8Srgb),
    (Format::A8R8G8B8Unorm, Format::A8R8G8B8Srgb),
    (Format::X8R8G8B8Unorm, Format::X8R8G8B8Srgb),
    (Format::R8G8B8X8Unorm, Format::R8G8B8X8Srgb),
    (Format::B5G6R5Unorm, Format::B5G6R5Srgb),
    (Format::R5G6B5Unorm, Format::R5G6B5Srgb),
    (Format::Bc1RgbUnorm, Format::Bc1RgbSrgb),
    (Format::Bc1RgbaUnorm, Format::Bc1RgbaSrgb),
    (Format::Bc2Unorm, Format::Bc2Srgb),
    (Format::Bc3Unorm, Format::Bc3Srgb),
    (Format::BptcRgbaUnorm, Format::BptcSrgba),
    (Format::Etc2Rgb8, Format::Etc2Srgb8),
    (Format::Etc2Rgb8a1, Format::Etc2Srgb8a1),
    (Format::Etc2Rgba8, Format::Etc2Srgba8),
    (Format::Astc4x4, Format::Astc4x4Srgb),
    (Format::Astc5x4, Format::Astc5x4Srgb),
    (Format::Astc5x5, Format::Astc5x5Srgb),
    (Format::Astc6x5, Format::Astc6x5Srgb),
    (Format::Astc6x6, Format::Astc6x6Srgb),
    (Format::Astc8x5, Format::Astc8x5Srgb),
    (Format::Astc8x6, Format::Astc8x6Srgb),
    (Format::Astc8x8, Format::Astc8x8Srgb),
    (Format::Astc10x5, Format::Astc10x5Srgb),
    (Format::Astc10x6, Format::Astc10x6Srgb),
    (Format::Astc10x8, Format::Astc10x8Srgb),
    (Format::Astc10x10, Format::Astc10x10Srgb),
    (Format::Astc12x10, Format::Astc12x10Srgb),
    (Format::Astc12x12, Format::Astc12x12Srgb),
    (Format::Astc3x3x3, Format::Astc3x3x3Srgb),
    (Format::Astc4x3x3, Format::Astc4x3x3Srgb),
    (Format::Astc4x4x3, Format::Astc4x4x3Srgb),
    (Format::Astc4x4x4, Format::Astc4x4x4Srgb),
    (Format::Astc5x4x4, Format::Astc5x4x4Srgb),
    (Format::Astc5x5x4, Format::Astc5x5x4Srgb),
    (Format::Astc5x5x5, Format::Astc5x5x5Srgb),
    (Format::Astc6x5x5, Format::Astc6x5x5Srgb),
    (Format::Astc6x6x5, Format::Astc6x6x5Srgb),
    (Format::Astc6x6x6, Format::Astc6x6x6Srgb),
];

/// Compressed formats that share a Vulkan compatibility class with another
/// one (signedness or ETC1/ETC2 variants); each maps to its class
/// representative. sRGB variants are folded in with [`Format::to_linear`].
/// Every other compressed format is its own class.
static COMPRESSED_CLASS: &[(Format, Format)] = &[
    (Format::Rgtc1Snorm, Format::Rgtc1Unorm),
    (Format::Rgtc2Snorm, Format::Rgtc2Unorm),
    (Format::Latc1Snorm, Format::Latc1Unorm),
    (Format::Latc2Snorm, Format::Latc2Unorm),
    (Format::BptcRgbFloat, Format::BptcRgbUfloat),
    (Format::Etc1Rgb8, Format::Etc2Rgb8),
    (Format::Etc2R11Snorm, Format::Etc2R11Unorm),
    (Format::Etc2Rg11Snorm, Format::Etc2Rg11Unorm),
];

impl Format {
    /// Number of formats.
    pub const COUNT: usize = ALL.len();

    /// The description of this format.
    pub fn desc(self) -> &'static FormatDesc {
        // The enum and the table are generated from the same rows, in the
        // same order, so every discriminant indexes its own row.
        &TABLE[self as usize]
    }

    /// Every format, in table order.
    pub fn all() -> impl ExactSizeIterator<Item = Format> + Clone {
        ALL.iter().copied()
    }

    /// Looks a format up by name: `"PIPE_FORMAT_R8G8B8A8_UNORM"` or
    /// `"R8G8B8A8_UNORM"`, ignoring ASCII case.
    pub fn from_name(name: &str) -> Option<Format> {
        let short = |n: &'static str| n.strip_prefix("PIPE_FORMAT_").unwrap_or(n);
        TABLE
            .iter()
            .find(|d| d.name.eq_ignore_ascii_case(name) || short(d.name).eq_ignore_ascii_case(name))
            .map(|d| d.format)
    }

    /// Gallium's name, `"PIPE_FORMAT_..."`.
    pub fn name(self) -> &'static str {
        self.desc().name
    }

    /// The name without the `PIPE_FORMAT_` prefix.
    pub fn short_name(self) -> &'static str {
        let n = self.desc().name;
        n.strip_prefix("PIPE_FORMAT_").unwrap_or(n)
    }

    /// Block size.
    pub fn block(self) -> Block {
        self.desc().block
    }

    /// Bytes per block (per pixel for non-block formats).
    pub fn block_size_bytes(self) -> u32 {
        self.desc().block.bits / 8
    }

    /// Whether the format has a depth component.
    pub fn is_depth(self) -> bool {
        let d = self.desc();
        d.colorspace == Colorspace::Zs && d.swizzle[0] != Swizzle::None
    }

    /// Whether the format has a stencil component.
    pub fn has_stencil(self) -> bool {
        let d = self.desc();
        d.colorspace == Colorspace::Zs && d.swizzle[1] != Swizzle::None
    }

    /// Whether the format has depth or stencil (or both).
    pub fn is_depth_or_stencil(self) -> bool {
        self.desc().colorspace == Colorspace::Zs
    }

    /// Whether the format is sRGB-encoded.
    pub fn is_srgb(self) -> bool {
        self.desc().colorspace == Colorspace::Srgb
    }

    /// Whether the format is block-compressed.
    pub fn is_compressed(self) -> bool {
        self.desc().layout.is_compressed()
    }

    /// Whether the format is chroma-subsampled.
    pub fn is_subsampled(self) -> bool {
        self.desc().layout == Layout::Subsampled
    }

    /// The alignment, in bytes, a vertex fetch of this format needs where
    /// a screen fetches aligned elements only
    /// (`Caps::vertex_attrib_element_aligned_only`, Gallium's
    /// `PIPE_CAP_VERTEX_ATTRIB_ELEMENT_ALIGNED_ONLY`): the size of its
    /// largest channel, or of the whole block for packed formats
    /// (channels of unequal or sub-byte sizes), at most 4.
    pub fn vertex_alignment(self) -> u32 {
        let d = self.desc();
        let chans = &d.channels[..usize::from(d.nr_channels)];
        let packed = chans.iter().any(|c| c.size % 8 != 0)
            || chans.windows(2).any(|w| w[0].size != w[1].size);
        let bytes = if packed {
            d.block.bits / 8
        } else {
            chans
                .iter()
                .map(|c| u32::from(c.size) / 8)
                .max()
                .unwrap_or(1)
        };
        bytes.clamp(1, 4)
    }

    /// Whether every non-void channel is a pure (UINT/SINT) integer.
    pub fn is_pure_integer(self) -> bool {
        self.is_pure_uint() || self.is_pure_sint()
    }

    /// Whether every non-void channel is UINT.
    pub fn is_pure_uint(self) -> bool {
        self.all_channels(|c| c.ty == ChannelType::Unsigned && c.pure_integer)
    }

    /// Whether every non-void channel is SINT.
    pub fn is_pure_sint(self) -> bool {
        self.all_channels(|c| c.ty == ChannelType::Signed && c.pure_integer)
    }

    /// Whether the format stores floating-point values (including the
    /// packed small floats, and BC6H).
    pub fn is_float(self) -> bool {
        matches!(self, Format::BptcRgbFloat | Format::BptcRgbUfloat)
            || self.non_void_channels().any(|c| c.ty == ChannelType::Float)
    }

    /// Whether every non-void channel is UNORM.
    pub fn is_unorm(self) -> bool {
        self.all_channels(|c| c.ty == ChannelType::Unsigned && c.normalized)
    }

    /// Whether every non-void channel is SNORM.
    pub fn is_snorm(self) -> bool {
        self.all_channels(|c| c.ty == ChannelType::Signed && c.normalized)
    }

    /// Whether the alpha output comes from a stored channel.
    pub fn has_alpha(self) -> bool {
        let d = self.desc();
        d.colorspace != Colorspace::Zs && d.swizzle[3].channel().is_some()
    }

    /// The sRGB counterpart of a linear format (`R8G8B8A8_UNORM` →
    /// `R8G8B8A8_SRGB`); an sRGB format returns itself.
    pub fn to_srgb(self) -> Option<Format> {
        if self.is_srgb() {
            return Some(self);
        }
        SRGB_PAIRS.iter().find(|p| p.0 == self).map(|p| p.1)
    }

    /// The linear counterpart of an sRGB format; any other format returns
    /// itself.
    pub fn to_linear(self) -> Format {
        SRGB_PAIRS
            .iter()
            .find(|p| p.1 == self)
            .map_or(self, |p| p.0)
    }

    /// Bytes needed for a `width` x `height` x `depth` image, rounding each
    /// dimension up to whole blocks; `None` on overflow.
    pub fn size_of_image(self, width: u32, height: u32, depth: u32) -> Option<u64> {
        let b = self.block();
        let bw = u64::from(width).div_ceil(u64::from(b.width.max(1)));
        let bh = u64::from(height).div_ceil(u64::from(b.height.max(1)));
        let bd = u64::from(depth).div_ceil(u64::from(b.depth.max(1)));
        bw.checked_mul(bh)?
            .checked_mul(bd)?
            .checked_mul(u64::from(b.bits / 8))
    }

    fn non_void_channels(self) -> impl Iterator<Item = &'static Channel> {
        let d = self.desc();
        d.channels[..usize::from(d.nr_channels)]
            .iter()
            .filter(|c| c.ty != ChannelType::Void)
    }

    fn all_channels(self, pred: impl Fn(&Channel) -> bool) -> bool {
        let mut any = false;
        for c in self.non_void_channels() {
            if !pred(c) {
                return false;
            }
            any = true;
        }
        any
    }

    fn compressed_class(self) -> Format {
        let f = self.to_linear();
        COMPRESSED_CLASS
            .iter()
            .find(|p| p.0 == f)
            .map_or(f, |p| p.1)
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Whether a view (sampler view, image view, surface) of format `b` may be
/// created on a resource of format `a`. Symmetric except between a
/// compressed and an uncompressed format (below).
///
/// - Identical formats are compatible.
/// - Depth/stencil formats are compatible with each other when they have the
///   same block size and every channel position agrees in type and size or is
///   padding on one side (Gallium's "matching component order and sizes":
///   `Z24_UNORM_S8_UINT` ↔ `Z24X8_UNORM` ↔ `X24S8_UINT`,
///   `Z32_FLOAT_S8X24_UINT` ↔ `X32_S8X24_UINT`); never with colour formats.
///   Vulkan has no format casts for depth/stencil images, so a backend
///   realizes these as views of the image's own format restricted to the
///   depth or stencil aspect.
/// - Subsampled formats are compatible only with themselves.
/// - Uncompressed colour formats are compatible when their blocks have the
///   same size (Vulkan's size-compatibility classes, which contain Gallium's
///   casts).
/// - Compressed formats are compatible when they are in the same Vulkan
///   compatibility class (same family, block and variant; sRGB and
///   signedness may differ).
/// - An uncompressed view of a compressed resource is compatible when the
///   compressed block has the size of one uncompressed texel (Vulkan's
///   `VK_IMAGE_CREATE_BLOCK_TEXEL_VIEW_COMPATIBLE_BIT`, one level per view).
///   A compressed view of an uncompressed resource is not: Vulkan has no
///   such view (VUID-VkImageViewCreateInfo-image-01761), nor GL's texture
///   views (compressed formats have view classes of their own).
///
/// Any view whose format differs from the image's needs the image to be
/// created with `VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT` in a Vulkan backend.
pub fn views_compatible(a: Format, b: Format) -> bool {
    if a == b {
        return true;
    }
    let (da, db) = (a.desc(), b.desc());
    let zs_a = da.colorspace == Colorspace::Zs;
    let zs_b = db.colorspace == Colorspace::Zs;
    if zs_a || zs_b {
        return zs_a && zs_b && zs_channels_match(da, db);
    }
    if da.layout == Layout::Subsampled || db.layout == Layout::Subsampled {
        return false;
    }
    match (a.is_compressed(), b.is_compressed()) {
        (false, false) => da.block.bits == db.block.bits,
        (true, true) => a.compressed_class() == b.compressed_class(),
        (true, false) => db.block.bits == da.block.bits,
        (false, true) => false,
    }
}

fn zs_channels_match(a: &FormatDesc, b: &FormatDesc) -> bool {
    if a.block.bits != b.block.bits {
        return false;
    }
    let mut ia = a.channels[..usize::from(a.nr_channels)].iter();
    let mut ib = b.channels[..usize::from(b.nr_channels)].iter();
    // Channels may be split differently only in padding (none of our ZS
    // formats do that), so compare position by position.
    loop {
        match (ia.next(), ib.next()) {
            (None, None) => return true,
            (Some(ca), Some(cb)) => {
                if ca.size != cb.size || ca.shift != cb.shift {
                    return false;
                }
                let void = ca.ty == ChannelType::Void || cb.ty == ChannelType::Void;
                if !void && (ca.ty != cb.ty || ca.normalized != cb.normalized) {
                    return false;
                }
            }
            _ => return false,
        }
    }
}

// ---------------------------------------------------------------------------
// Pixel packing and unpacking.
// ---------------------------------------------------------------------------

/// Reads `size` (<= 64) bits at bit offset `shift` from a little-endian
/// block.
fn read_bits(data: &[u8], shift: u32, size: u32) -> Option<u64> {
    if size == 0 || size > 64 {
        return None;
    }
    let first = (shift / 8) as usize;
    let last = (shift + size).div_ceil(8) as usize;
    let bytes = data.get(first..last)?;
    let mut acc: u128 = 0;
    for (i, &byte) in bytes.iter().enumerate() {
        acc |= u128::from(byte) << (8 * i);
    }
    acc >>= shift % 8;
    let mask = if size == 64 {
        u64::MAX
    } else {
        (1u64 << size) - 1
    };
    Some((acc as u64) & mask)
}

/// Writes the low `size` (<= 64) bits of `value` at bit offset `shift`,
/// keeping the other bits.
fn write_bits(data: &mut [u8], shift: u32, size: u32, value: u64) -> Option<()> {
    if size == 0 || size > 64 {
        return None;
    }
    let first = (shift / 8) as usize;
    let last = (shift + size).div_ceil(8) as usize;
    let bytes = data.get_mut(first..last)?;
    let mut acc: u128 = 0;
    for (i, &byte) in bytes.iter().enumerate() {
        acc |= u128::from(byte) << (8 * i);
    }
    let mask: u128 = ((1u128 << size) - 1) << (shift % 8);
    acc = (acc & !mask) | ((u128::from(value) << (shift % 8)) & mask);
    for (i, byte) in bytes.iter_mut().enumerate() {
        *byte = (acc >> (8 * i)) as u8;
    }
    Some(())
}

fn sign_extend(raw: u64, size: u32) -> i64 {
    if size >= 64 {
        return raw as i64;
    }
    let s = 64 - size;
    ((raw << s) as i64) >> s
}

/// sRGB EOTF (decode), per the Vulkan spec.
pub fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// sRGB inverse EOTF (encode), per the Vulkan spec; input clamped to [0, 1].
pub fn linear_to_srgb(l: f32) -> f32 {
    let l = if l.is_nan() { 0.0 } else { l.clamp(0.0, 1.0) };
    if l <= 0.003_130_8 {
        l * 12.92
    } else {
        1.055 * l.powf(1.0 / 2.4) - 0.055
    }
}

/// Decodes a minifloat with a 5-bit exponent (bias 15) and `mbits` mantissa
/// bits, signed (binary16) or not (the 11- and 10-bit floats).
fn decode_minifloat(bits: u32, mbits: u32, signed: bool) -> f32 {
    let mant = bits & ((1 << mbits) - 1);
    let exp = (bits >> mbits) & 0x1f;
    let negative = signed && (bits >> (mbits + 5)) & 1 == 1;
    let mag = if exp == 0 {
        mant as f32 * 2f32.powi(-14 - mbits as i32)
    } else if exp == 0x1f {
        if mant == 0 {
            f32::INFINITY
        } else {
            f32::NAN
        }
    } else {
        (mant + (1 << mbits)) as f32 * 2f32.powi(exp as i32 - 15 - mbits as i32)
    };
    if negative {
        -mag
    } else {
        mag
    }
}

/// Encodes a minifloat (see [`decode_minifloat`]) with round-to-nearest-even.
/// Signed: overflow gives infinity (IEEE binary16). Unsigned: negative values
/// and -inf give 0, finite overflow gives the largest finite value, NaN a
/// NaN (the Vulkan spec's rules for the 11/10-bit floats).
fn encode_minifloat(v: f32, mbits: u32, signed: bool) -> u32 {
    let sign_bit = if signed && v.is_sign_negative() {
        1 << (mbits + 5)
    } else {
        0
    };
    let inf = 0x1f << mbits;
    if v.is_nan() {
        return sign_bit | inf | (1 << (mbits - 1));
    }
    if !signed && (v <= 0.0) {
        return 0;
    }
    let max_finite = (0x1e << mbits) | ((1 << mbits) - 1);
    if v.is_infinite() {
        return sign_bit | inf;
    }
    let x = v.to_bits();
    let exp = ((x >> 23) & 0xff) as i32;
    let mant = x & 0x7f_ffff;
    if exp == 0 {
        // f32 denormals are far below the smallest minifloat denormal.
        return sign_bit;
    }
    let m24 = u64::from(mant | 0x80_0000);
    let drop = 23 - mbits as i32;
    let e = exp - 127 + 15;
    let round_shift = |m: u64, shift: i32| -> u64 {
        if shift <= 0 {
            return m;
        }
        if shift > 40 {
            return 0;
        }
        let q = m >> shift;
        let r = m & ((1u64 << shift) - 1);
        let half = 1u64 << (shift - 1);
        if r > half || (r == half && q & 1 == 1) {
            q + 1
        } else {
            q
        }
    };
    let q = if e <= 0 {
        // Denormal result (rounding may carry into the smallest normal).
        round_shift(m24, drop + 1 - e) as u32
    } else if e >= 0x1f {
        inf + 1 // overflow marker, handled below
    } else {
        // Normal: drop the implicit bit and round; a carry moves into the
        // exponent, which is exactly the right result.
        ((e as u32) << mbits) + round_shift(u64::from(mant), drop) as u32
    };
    if q >= inf {
        return if signed { sign_bit | inf } else { max_finite };
    }
    sign_bit | q
}

/// IEEE binary16 bits to `f32` (exact).
pub fn f16_to_f32(h: u16) -> f32 {
    decode_minifloat(u32::from(h), 10, true)
}

/// `f32` to IEEE binary16 bits, round-to-nearest-even.
pub fn f32_to_f16(v: f32) -> u16 {
    encode_minifloat(v, 10, true) as u16
}

/// Decodes `R9G9B9E5_FLOAT` (Vulkan's `E5B9G9R9_UFLOAT_PACK32`).
fn decode_rgb9e5(word: u32) -> [f32; 3] {
    let exp = (word >> 27) as i32;
    let scale = 2f32.powi(exp - 15 - 9);
    [
        (word & 0x1ff) as f32 * scale,
        ((word >> 9) & 0x1ff) as f32 * scale,
        ((word >> 18) & 0x1ff) as f32 * scale,
    ]
}

/// Encodes `R9G9B9E5_FLOAT` following the Vulkan spec ("Shared Exponent
/// Conversions").
fn encode_rgb9e5(rgb: [f32; 3]) -> u32 {
    const N: i32 = 9;
    const B: i32 = 15;
    const SHAREDEXP_MAX: f64 = 511.0 / 512.0 * 65536.0;
    let c = rgb.map(|v| {
        if v.is_nan() {
            0.0
        } else {
            f64::from(v).clamp(0.0, SHAREDEXP_MAX)
        }
    });
    let max_c = c[0].max(c[1]).max(c[2]);
    let floor_log2 = if max_c < 2f64.powi(-B - 1) {
        -B - 1
    } else {
        // max_c is a clamped f32 value >= 2^-16, so it is a normal f32 and
        // its exponent field is exactly floor(log2).
        (((max_c as f32).to_bits() >> 23) & 0xff) as i32 - 127
    };
    let exp_p = floor_log2.max(-B - 1) + 1 + B;
    let max_s = (max_c / 2f64.powi(exp_p - B - N) + 0.5).floor();
    let exp = if max_s >= 512.0 { exp_p + 1 } else { exp_p };
    let denom = 2f64.powi(exp - B - N);
    let q = c.map(|v| ((v / denom + 0.5).floor() as u32).min(511));
    q[0] | (q[1] << 9) | (q[2] << 18) | ((exp as u32 & 0x1f) << 27)
}

/// Which output components a channel feeds, and whether it is sRGB-encoded
/// (it feeds R, G or B of an sRGB format).
fn channel_is_srgb(d: &FormatDesc, ch: usize) -> bool {
    d.colorspace == Colorspace::Srgb && d.swizzle[..3].iter().any(|s| s.channel() == Some(ch))
}

/// Formats the float/integer pixel helpers accept: plain, packed and the
/// two special packed-float formats, colour only.
fn pixel_desc(format: Format, data_len: usize) -> Option<&'static FormatDesc> {
    let d = format.desc();
    let ok_layout = matches!(d.layout, Layout::Plain | Layout::Packed)
        || matches!(format, Format::R11G11B10Float | Format::R9G9B9E5Float);
    if !ok_layout || d.colorspace == Colorspace::Zs || d.colorspace == Colorspace::Yuv {
        return None;
    }
    if data_len < (d.block.bits / 8) as usize {
        return None;
    }
    Some(d)
}

fn swizzle_out<T: Copy>(d: &FormatDesc, chans: [T; 4], zero: T, one: T) -> [T; 4] {
    d.swizzle.map(|s| match s {
        Swizzle::Zero | Swizzle::None => zero,
        Swizzle::One => one,
        _ => s.channel().map_or(zero, |i| chans[i]),
    })
}

/// For each stored channel, the output component it is written from (the
/// first component whose swizzle selects it).
fn channel_source(d: &FormatDesc, ch: usize) -> Option<usize> {
    d.swizzle.iter().position(|s| s.channel() == Some(ch))
}

/// Reads one pixel (one block of a non-block format) as RGBA floats.
///
/// Handles UNORM/SNORM (Vulkan's conversion rules), USCALED/SSCALED,
/// FIXED, 16/32/64-bit floats, sRGB decode, R11G11B10_FLOAT and
/// R9G9B9E5_FLOAT. Returns `None` for compressed, subsampled,
/// depth/stencil and pure-integer formats, or if `data` is shorter than
/// one block.
pub fn unpack_rgba_f32(format: Format, data: &[u8]) -> Option<[f32; 4]> {
    let d = pixel_desc(format, data.len())?;
    if format.is_pure_integer() {
        return None;
    }
    if format == Format::R9G9B9E5Float {
        let word = read_bits(data, 0, 32)? as u32;
        let [r, g, b] = decode_rgb9e5(word);
        return Some([r, g, b, 1.0]);
    }
    let mut chans = [0f32; 4];
    for (i, c) in d.channels[..usize::from(d.nr_channels)].iter().enumerate() {
        if c.ty == ChannelType::Void {
            continue;
        }
        let size = u32::from(c.size);
        let raw = read_bits(data, u32::from(c.shift), size)?;
        let v = match c.ty {
            ChannelType::Void => 0.0,
            ChannelType::Unsigned if c.normalized => {
                (raw as f64 / ((1u128 << size) - 1) as f64) as f32
            }
            ChannelType::Unsigned => raw as f32,
            ChannelType::Signed if c.normalized => {
                let max = ((1u64 << (size - 1)) - 1) as f64;
                ((sign_extend(raw, size) as f64 / max).max(-1.0)) as f32
            }
            ChannelType::Signed => sign_extend(raw, size) as f32,
            ChannelType::Fixed => (sign_extend(raw, size) as f64 / 65536.0) as f32,
            ChannelType::Float => match size {
                64 => f64::from_bits(raw) as f32,
                32 => f32::from_bits(raw as u32),
                16 => decode_minifloat(raw as u32, 10, true),
                11 | 10 => decode_minifloat(raw as u32, size - 5, false),
                _ => return None,
            },
        };
        chans[i] = if channel_is_srgb(d, i) {
            srgb_to_linear(v)
        } else {
            v
        };
    }
    Some(swizzle_out(d, chans, 0.0, 1.0))
}

fn round_clamp_u(v: f64, max: f64) -> u64 {
    if v.is_nan() {
        return 0;
    }
    v.clamp(0.0, max).round_ties_even() as u64
}

fn round_clamp_s(v: f64, min: f64, max: f64, size: u32) -> u64 {
    let q = if v.is_nan() {
        0
    } else {
        v.clamp(min, max).round_ties_even() as i64
    };
    (q as u64) & mask64(size)
}

fn mask64(size: u32) -> u64 {
    if size >= 64 {
        u64::MAX
    } else {
        (1u64 << size) - 1
    }
}

/// Writes one pixel from RGBA floats; the inverse of [`unpack_rgba_f32`].
///
/// Only the first block-size bytes of `out` are written; padding bits are
/// zeroed. UNORM/SNORM values are clamped and rounded to nearest (ties to
/// even); sRGB channels are encoded first. Returns `None` for the formats
/// `unpack_rgba_f32` refuses or if `out` is too short.
pub fn pack_rgba_f32(format: Format, rgba: [f32; 4], out: &mut [u8]) -> Option<()> {
    let d = pixel_desc(format, out.len())?;
    if format.is_pure_integer() {
        return None;
    }
    let bytes = (d.block.bits / 8) as usize;
    let block = out.get_mut(..bytes)?;
    if format == Format::R9G9B9E5Float {
        let word = encode_rgb9e5([rgba[0], rgba[1], rgba[2]]);
        block.copy_from_slice(&word.to_le_bytes());
        return Some(());
    }
    block.fill(0);
    for (i, c) in d.channels[..usize::from(d.nr_channels)].iter().enumerate() {
        if c.ty == ChannelType::Void {
            continue;
        }
        let size = u32::from(c.size);
        let mut v = channel_source(d, i).map_or(0.0, |j| rgba[j]);
        if channel_is_srgb(d, i) {
            v = linear_to_srgb(v);
        }
        let v = f64::from(v);
        let raw = match c.ty {
            ChannelType::Void => 0,
            ChannelType::Unsigned if c.normalized => {
                let max = ((1u128 << size) - 1) as f64;
                let v = if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) };
                round_clamp_u(v * max, max)
            }
            ChannelType::Unsigned => round_clamp_u(v, ((1u128 << size) - 1) as f64),
            ChannelType::Signed if c.normalized => {
                let max = ((1u64 << (size - 1)) - 1) as f64;
                let v = if v.is_nan() { 0.0 } else { v.clamp(-1.0, 1.0) };
                round_clamp_s(v * max, -max, max, size)
            }
            ChannelType::Signed => {
                let max = ((1u64 << (size - 1)) - 1) as f64;
                round_clamp_s(v, -max - 1.0, max, size)
            }
            ChannelType::Fixed => {
                round_clamp_s(v * 65536.0, i32::MIN as f64, i32::MAX as f64, size)
            }
            ChannelType::Float => match size {
                64 => v.to_bits(),
                32 => u64::from((v as f32).to_bits()),
                16 => u64::from(encode_minifloat(v as f32, 10, true)),
                11 | 10 => u64::from(encode_minifloat(v as f32, size - 5, false)),
                _ => return None,
            },
        };
        write_bits(block, u32::from(c.shift), size, raw)?;
    }
    Some(())
}

/// Reads one pixel of a UINT format as RGBA `u32` (missing components read
/// as 0, alpha as 1; 64-bit channels saturate).
pub fn unpack_rgba_u32(format: Format, data: &[u8]) -> Option<[u32; 4]> {
    let d = pixel_desc(format, data.len())?;
    if !format.is_pure_uint() {
        return None;
    }
    let mut chans = [0u32; 4];
    for (i, c) in d.channels[..usize::from(d.nr_channels)].iter().enumerate() {
        if c.ty != ChannelType::Void {
            let raw = read_bits(data, u32::from(c.shift), u32::from(c.size))?;
            chans[i] = u32::try_from(raw).unwrap_or(u32::MAX);
        }
    }
    Some(swizzle_out(d, chans, 0, 1))
}

/// Reads one pixel of a SINT format as RGBA `i32` (missing components read
/// as 0, alpha as 1; 64-bit channels saturate).
pub fn unpack_rgba_i32(format: Format, data: &[u8]) -> Option<[i32; 4]> {
    let d = pixel_desc(format, data.len())?;
    if !format.is_pure_sint() {
        return None;
    }
    let mut chans = [0i32; 4];
    for (i, c) in d.channels[..usize::from(d.nr_channels)].iter().enumerate() {
        if c.ty != ChannelType::Void {
            let size = u32::from(c.size);
            let raw = read_bits(data, u32::from(c.shift), size)?;
            let v = sign_extend(raw, size);
            chans[i] = v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32;
        }
    }
    Some(swizzle_out(d, chans, 0, 1))
}

/// Writes one pixel of a UINT format; values are clamped to each channel's
/// range (as Gallium clamps clear colours).
pub fn pack_rgba_u32(format: Format, rgba: [u32; 4], out: &mut [u8]) -> Option<()> {
    let d = pixel_desc(format, out.len())?;
    if !format.is_pure_uint() {
        return None;
    }
    let block = out.get_mut(..(d.block.bits / 8) as usize)?;
    block.fill(0);
    for (i, c) in d.channels[..usize::from(d.nr_channels)].iter().enumerate() {
        if c.ty != ChannelType::Void {
            let size = u32::from(c.size);
            let v = channel_source(d, i).map_or(0, |j| u64::from(rgba[j]));
            write_bits(block, u32::from(c.shift), size, v.min(mask64(size)))?;
        }
    }
    Some(())
}

/// Writes one pixel of a SINT format; values are clamped to each channel's
/// range.
pub fn pack_rgba_i32(format: Format, rgba: [i32; 4], out: &mut [u8]) -> Option<()> {
    let d = pixel_desc(format, out.len())?;
    if !format.is_pure_sint() {
        return None;
    }
    let block = out.get_mut(..(d.block.bits / 8) as usize)?;
    block.fill(0);
    for (i, c) in d.channels[..usize::from(d.nr_channels)].iter().enumerate() {
        if c.ty != ChannelType::Void {
            let size = u32::from(c.size);
            let v = channel_source(d, i).map_or(0, |j| i64::from(rgba[j]));
            let (lo, hi) = if size >= 64 {
                (i64::MIN, i64::MAX)
            } else {
                (-(1i64 << (size - 1)), (1i64 << (size - 1)) - 1)
            };
            let q = v.clamp(lo, hi) as u64 & mask64(size);
            write_bits(block, u32::from(c.shift), size, q)?;
        }
    }
    Some(())
}

fn zs_channel(format: Format, component: usize, len: usize) -> Option<&'static Channel> {
    let d = format.desc();
    if d.colorspace != Colorspace::Zs || len < (d.block.bits / 8) as usize {
        return None;
    }
    let ch = d.swizzle[component].channel()?;
    d.channels.get(ch)
}

/// Reads the depth of one depth/stencil texel as a float in the format's
/// range (UNORM depth in [0, 1]).
pub fn unpack_z_f32(format: Format, data: &[u8]) -> Option<f32> {
    let c = zs_channel(format, 0, data.len())?;
    let size = u32::from(c.size);
    let raw = read_bits(data, u32::from(c.shift), size)?;
    match c.ty {
        ChannelType::Unsigned if c.normalized => {
            Some((raw as f64 / ((1u64 << size) - 1) as f64) as f32)
        }
        ChannelType::Float if size == 32 => Some(f32::from_bits(raw as u32)),
        _ => None,
    }
}

/// Reads the stencil of one depth/stencil texel.
pub fn unpack_s_u8(format: Format, data: &[u8]) -> Option<u8> {
    let c = zs_channel(format, 1, data.len())?;
    let raw = read_bits(data, u32::from(c.shift), u32::from(c.size))?;
    u8::try_from(raw).ok()
}

/// Writes the depth of one texel, keeping its stencil and padding bits.
/// UNORM depth is clamped to [0, 1] and rounded to nearest.
pub fn pack_z_f32(format: Format, z: f32, out: &mut [u8]) -> Option<()> {
    let c = *zs_channel(format, 0, out.len())?;
    let size = u32::from(c.size);
    let raw = match c.ty {
        ChannelType::Unsigned if c.normalized => {
            let max = ((1u64 << size) - 1) as f64;
            let z = if z.is_nan() {
                0.0
            } else {
                f64::from(z).clamp(0.0, 1.0)
            };
            round_clamp_u(z * max, max)
        }
        ChannelType::Float if size == 32 => u64::from(z.to_bits()),
        _ => return None,
    };
    write_bits(out, u32::from(c.shift), size, raw)
}

/// Writes the stencil of one texel, keeping its depth and padding bits.
pub fn pack_s_u8(format: Format, s: u8, out: &mut [u8]) -> Option<()> {
    let c = *zs_channel(format, 1, out.len())?;
    write_bits(out, u32::from(c.shift), u32::from(c.size), u64::from(s))
}

#[cfg(test)]
mod tests {

    #[test]
    fn vertex_alignment_is_the_largest_channel_or_the_packed_block() {
        let cases = [
            (Format::R8Unorm, 1),
            (Format::R8G8B8A8Unorm, 1),
            (Format::R16G16Sscaled, 2),
            (Format::R32G32B32A32Float, 4),
            (Format::R64G64B64A64Float, 4),
            (Format::B5G6R5Unorm, 2),
            (Format::R10G10B10A2Unorm, 4),
            (Format::R11G11B10Float, 4),
        ];
        for (f, want) in cases {
            assert_eq!(f.vertex_alignment(), want, "{f}");
        }
    }

    use super::*;
    use std::collections::HashSet;

    #[test]
    fn table_is_in_enum_order() {
        assert_eq!(TABLE.len(), ALL.len());
        for (i, d) in TABLE.iter().enumerate() {
            assert_eq!(d.format as usize, i, "{}", d.name);
            assert_eq!(ALL[i], d.format);
        }
    }

    #[test]
    fn block_bits_match_channels() {
        for f in Format::all() {
            let d = f.desc();
            let sum: u32 = d.channels.iter().map(|c| u32::from(c.size)).sum();
            assert_eq!(sum, d.block.bits, "{f}");
            assert_eq!(d.block.bits % 8, 0, "{f}");
            assert!(d.nr_channels >= 1 && d.nr_channels <= 4, "{f}");
            for c in &d.channels[usize::from(d.nr_channels)..] {
                assert_eq!(c.size, 0, "{f}");
            }
            // Shifts are consecutive.
            let mut shift = 0;
            for c in &d.channels[..usize::from(d.nr_channels)] {
                assert_eq!(u32::from(c.shift), shift, "{f}");
                shift += u32::from(c.size);
            }
        }
    }

    #[test]
    fn names_unique_and_round_trip() {
        let mut names = HashSet::new();
        for f in Format::all() {
            assert!(f.name().starts_with("PIPE_FORMAT_"), "{f}");
            assert!(names.insert(f.name()), "duplicate {f}");
            assert_eq!(Format::from_name(f.name()), Some(f));
            assert_eq!(Format::from_name(f.short_name()), Some(f));
            assert_eq!(
                Format::from_name(&f.short_name().to_ascii_lowercase()),
                Some(f)
            );
            assert_eq!(f.to_string(), f.name());
        }
        assert_eq!(Format::from_name("PIPE_FORMAT_NONE"), None);
        assert_eq!(Format::from_name(""), None);
        assert_eq!(Format::from_name("R8G8B8A8_UNORMX"), None);
        assert_eq!(Format::COUNT, Format::all().len());
    }

    #[test]
    fn swizzles_reference_existing_channels() {
        for f in Format::all() {
            let d = f.desc();
            if f.is_compressed() || f.is_subsampled() {
                continue;
            }
            for s in d.swizzle {
                if let Some(ch) = s.channel() {
                    assert!(ch < usize::from(d.nr_channels), "{f}");
                    assert_ne!(d.channels[ch].ty, ChannelType::Void, "{f}");
                }
            }
            // Every non-void channel is read by some component.
            for (i, c) in d.channels[..usize::from(d.nr_channels)].iter().enumerate() {
                if c.ty != ChannelType::Void {
                    assert!(channel_source(d, i).is_some(), "{f} channel {i}");
                }
            }
        }
    }

    #[test]
    fn some_descriptions_by_hand() {
        let d = Format::B5G6R5Unorm.desc();
        assert_eq!(d.layout, Layout::Packed);
        assert_eq!(d.block.bits, 16);
        assert_eq!((d.channels[0].size, d.channels[0].shift), (5, 0));
        assert_eq!((d.channels[1].size, d.channels[1].shift), (6, 5));
        assert_eq!((d.channels[2].size, d.channels[2].shift), (5, 11));
        assert_eq!(
            d.swizzle,
            [Swizzle::Z, Swizzle::Y, Swizzle::X, Swizzle::One]
        );

        let d = Format::R8G8B8A8Unorm.desc();
        assert_eq!(d.layout, Layout::Plain);
        assert!(d.channels[..4]
            .iter()
            .all(|c| c.ty == ChannelType::Unsigned && c.normalized && c.size == 8));

        let d = Format::Z32FloatS8X24Uint.desc();
        assert_eq!(d.layout, Layout::Plain);
        assert_eq!(d.block.bits, 64);
        assert_eq!(d.channels[1].shift, 32);
        assert!(d.channels[1].pure_integer);
        assert_eq!(Format::Z24UnormS8Uint.desc().layout, Layout::Packed);

        let d = Format::Astc6x5.desc();
        assert_eq!((d.block.width, d.block.height, d.block.depth), (6, 5, 1));
        assert_eq!(d.block.bits, 128);
        assert_eq!(d.layout, Layout::Astc);
        assert_eq!(Format::Astc4x4x3.block().depth, 3);
        assert_eq!(Format::Bc1RgbaUnorm.name(), "PIPE_FORMAT_DXT1_RGBA");
        assert_eq!(Format::R32G32B32Float.block_size_bytes(), 12);
        assert_eq!(Format::R64G64B64A64Float.block_size_bytes(), 32);
    }

    #[test]
    fn predicates() {
        assert!(Format::Z24UnormS8Uint.is_depth());
        assert!(Format::Z24UnormS8Uint.has_stencil());
        assert!(Format::Z24X8Unorm.is_depth());
        assert!(!Format::Z24X8Unorm.has_stencil());
        assert!(!Format::S8Uint.is_depth());
        assert!(Format::S8Uint.has_stencil());
        assert!(Format::X24S8Uint.has_stencil() && !Format::X24S8Uint.is_depth());
        assert!(Format::Z32Float.is_depth_or_stencil());
        assert!(!Format::R32Float.is_depth_or_stencil());

        assert!(Format::B8G8R8A8Srgb.is_srgb());
        assert!(!Format::B8G8R8A8Unorm.is_srgb());
        assert!(Format::Astc8x8Srgb.is_srgb());

        assert!(Format::Bc1RgbUnorm.is_compressed());
        assert!(Format::Etc2Rg11Snorm.is_compressed());
        assert!(!Format::R9G9B9E5Float.is_compressed());
        assert!(!Format::Uyvy.is_compressed());

        assert!(Format::R8Uint.is_pure_integer());
        assert!(Format::R32G32B32A32Sint.is_pure_integer());
        assert!(Format::R10G10B10A2Uint.is_pure_uint());
        assert!(!Format::R8Uscaled.is_pure_integer());
        assert!(!Format::R8Unorm.is_pure_integer());
        assert!(Format::S8Uint.is_pure_integer());
        assert!(!Format::Z24UnormS8Uint.is_pure_integer());

        assert!(Format::R16Float.is_float());
        assert!(Format::R11G11B10Float.is_float());
        assert!(Format::Z32Float.is_float());
        assert!(Format::BptcRgbFloat.is_float());
        assert!(!Format::R8Unorm.is_float());
        assert!(Format::R8G8B8A8Unorm.is_unorm());
        assert!(Format::R8Snorm.is_snorm());
        assert!(Format::A8Unorm.has_alpha());
        assert!(!Format::R8G8B8X8Unorm.has_alpha());
    }

    #[test]
    fn srgb_pairs() {
        assert_eq!(Format::R8G8B8A8Unorm.to_srgb(), Some(Format::R8G8B8A8Srgb));
        assert_eq!(Format::B8G8R8A8Srgb.to_linear(), Format::B8G8R8A8Unorm);
        assert_eq!(Format::Bc3Unorm.to_srgb(), Some(Format::Bc3Srgb));
        assert_eq!(Format::Astc12x12Srgb.to_linear(), Format::Astc12x12);
        assert_eq!(Format::R16G16B16A16Float.to_srgb(), None);
        assert_eq!(Format::R32Float.to_linear(), Format::R32Float);
        assert_eq!(Format::R8G8B8A8Srgb.to_srgb(), Some(Format::R8G8B8A8Srgb));
        let mut seen = HashSet::new();
        for &(lin, srgb) in SRGB_PAIRS {
            assert!(seen.insert(lin) && seen.insert(srgb));
            assert!(!lin.is_srgb() && srgb.is_srgb(), "{lin} {srgb}");
            let (dl, ds) = (lin.desc(), srgb.desc());
            assert_eq!(dl.block, ds.block, "{lin}");
            assert_eq!(dl.layout, ds.layout, "{lin}");
            assert_eq!(dl.swizzle, ds.swizzle, "{lin}");
            assert_eq!(dl.channels, ds.channels, "{lin}");
            assert_eq!(lin.to_srgb(), Some(srgb));
            assert_eq!(srgb.to_linear(), lin);
        }
        // Every sRGB format has a linear partner.
        for f in Format::all().filter(|f| f.is_srgb()) {
            assert_ne!(f.to_linear(), f, "{f}");
        }
    }

    #[test]
    fn image_sizes() {
        assert_eq!(Format::R8G8B8A8Unorm.size_of_image(16, 16, 1), Some(1024));
        assert_eq!(Format::R8G8B8Unorm.size_of_image(3, 1, 1), Some(9));
        // 5x5 of BC1: 2x2 blocks of 8 bytes.
        assert_eq!(Format::Bc1RgbUnorm.size_of_image(5, 5, 1), Some(32));
        assert_eq!(Format::Bc3Unorm.size_of_image(1, 1, 1), Some(16));
        // ASTC 10x6: 21x13 -> 3x3 blocks of 16 bytes.
        assert_eq!(Format::Astc10x6.size_of_image(21, 13, 1), Some(144));
        // 3D ASTC 3x3x3: 4x4x4 -> 2x2x2 blocks.
        assert_eq!(Format::Astc3x3x3.size_of_image(4, 4, 4), Some(128));
        // 4:2:2: odd widths round up to a whole 2x1 block.
        assert_eq!(Format::Yuyv.size_of_image(3, 2, 1), Some(16));
        assert_eq!(Format::R32G32B32A32Float.size_of_image(0, 7, 1), Some(0));
        assert_eq!(
            Format::R8Unorm.size_of_image(u32::MAX, u32::MAX, 1),
            Some(u64::from(u32::MAX) * u64::from(u32::MAX))
        );
        assert_eq!(Format::R8G8Unorm.size_of_image(u32::MAX, u32::MAX, 1), None);
        assert_eq!(
            Format::R64G64B64A64Float.size_of_image(u32::MAX, u32::MAX, u32::MAX),
            None
        );
    }

    #[test]
    fn view_compatibility() {
        use Format::*;
        assert!(views_compatible(R8G8B8A8Unorm, R8G8B8A8Srgb));
        assert!(views_compatible(R8G8B8A8Unorm, B8G8R8A8Unorm));
        assert!(views_compatible(R8G8B8A8Unorm, R32Float));
        assert!(views_compatible(R32Uint, R10G10B10A2Unorm));
        assert!(views_compatible(R11G11B10Float, R32Uint));
        assert!(!views_compatible(R8G8B8A8Unorm, R16Float));
        assert!(!views_compatible(R8G8B8A8Unorm, R32G32Float));
        // Depth/stencil.
        assert!(views_compatible(Z24UnormS8Uint, Z24X8Unorm));
        assert!(views_compatible(Z24UnormS8Uint, X24S8Uint));
        assert!(views_compatible(Z32FloatS8X24Uint, X32S8X24Uint));
        assert!(!views_compatible(Z24X8Unorm, Z32Float));
        assert!(!views_compatible(Z24UnormS8Uint, S8UintZ24Unorm));
        assert!(!views_compatible(Z32Float, R32Float));
        assert!(!views_compatible(Z16Unorm, R16Unorm));
        // Compressed.
        assert!(views_compatible(Bc1RgbUnorm, Bc1RgbSrgb));
        assert!(!views_compatible(Bc1RgbUnorm, Bc1RgbaUnorm));
        assert!(!views_compatible(Bc2Unorm, Bc3Unorm));
        assert!(views_compatible(Rgtc1Unorm, Rgtc1Snorm));
        assert!(!views_compatible(Rgtc1Unorm, Latc1Unorm));
        assert!(views_compatible(BptcRgbFloat, BptcRgbUfloat));
        assert!(!views_compatible(BptcRgbFloat, BptcRgbaUnorm));
        assert!(views_compatible(Astc4x4, Astc4x4Srgb));
        assert!(!views_compatible(Astc4x4, Astc5x4));
        assert!(views_compatible(Etc1Rgb8, Etc2Srgb8));
        // Compressed <-> uncompressed of the same block size.
        assert!(views_compatible(Bc1RgbaUnorm, R32G32Uint));
        assert!(views_compatible(Rgtc1Snorm, R16G16B16A16Uint));
        assert!(!views_compatible(R16G16B16A16Uint, Rgtc1Snorm));
        assert!(!views_compatible(R16G16B16A16Float, Bc1RgbaUnorm));
        assert!(views_compatible(Bc3Unorm, R32G32B32A32Uint));
        assert!(views_compatible(Astc8x8, R32G32B32A32Float));
        assert!(!views_compatible(Bc3Unorm, R32G32Uint));
        // Subsampled.
        assert!(!views_compatible(G8B8G8R8Unorm, R8G8B8A8Unorm));
        assert!(views_compatible(Uyvy, Uyvy));
        // Symmetry over the whole table, but for compressed views of
        // uncompressed resources.
        for a in Format::all() {
            for b in Format::all() {
                if a.is_compressed() == b.is_compressed() {
                    assert_eq!(views_compatible(a, b), views_compatible(b, a), "{a} {b}");
                }
            }
        }
    }

    #[test]
    fn half_floats_by_hand() {
        assert_eq!(f32_to_f16(1.0), 0x3c00);
        assert_eq!(f32_to_f16(-2.0), 0xc000);
        assert_eq!(f32_to_f16(0.5), 0x3800);
        assert_eq!(f32_to_f16(65504.0), 0x7bff);
        assert_eq!(f32_to_f16(65520.0), 0x7c00); // rounds up to infinity
        assert_eq!(f32_to_f16(f32::INFINITY), 0x7c00);
        assert_eq!(f32_to_f16(f32::NEG_INFINITY), 0xfc00);
        assert_eq!(f32_to_f16(-0.0), 0x8000);
        assert_eq!(f32_to_f16(2f32.powi(-24)), 0x0001); // smallest denormal
        assert_eq!(f32_to_f16(2f32.powi(-25)), 0x0000); // tie -> even (0)
        assert_eq!(f32_to_f16(3.0 * 2f32.powi(-25)), 0x0002); // tie -> even (2)
        assert_eq!(f32_to_f16(2f32.powi(-14)), 0x0400); // smallest normal
                                                        // 1 + 2^-11 is halfway between 1.0 and the next half: ties to even.
        assert_eq!(f32_to_f16(1.0 + 2f32.powi(-11)), 0x3c00);
        assert_eq!(f32_to_f16(1.0 + 3.0 * 2f32.powi(-11)), 0x3c02);
        assert_eq!(f32_to_f16(0.1), 0x2e66);
        assert!(f16_to_f32(f32_to_f16(f32::NAN)).is_nan());

        assert_eq!(f16_to_f32(0x3c00), 1.0);
        assert_eq!(f16_to_f32(0xc000), -2.0);
        assert_eq!(f16_to_f32(0x7bff), 65504.0);
        assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
        assert_eq!(f16_to_f32(0x03ff), 1023.0 * 2f32.powi(-24));
        assert_eq!(f16_to_f32(0x7c00), f32::INFINITY);
        assert_eq!(f16_to_f32(0x3555), 0.333_251_95);
    }

    #[test]
    fn small_unsigned_floats_by_hand() {
        // 11-bit: 5 exponent bits, 6 mantissa bits.
        assert_eq!(encode_minifloat(1.0, 6, false), 15 << 6);
        assert_eq!(encode_minifloat(-1.0, 6, false), 0);
        assert_eq!(encode_minifloat(65024.0, 6, false), 0x7bf);
        assert_eq!(encode_minifloat(1.0e9, 6, false), 0x7bf); // saturates
        assert_eq!(encode_minifloat(f32::INFINITY, 6, false), 0x7c0);
        assert_eq!(encode_minifloat(f32::NEG_INFINITY, 6, false), 0);
        assert_eq!(decode_minifloat(0x7bf, 6, false), 65024.0);
        assert_eq!(decode_minifloat(0x3c0, 6, false), 1.0);
        assert_eq!(decode_minifloat(0x001, 6, false), 2f32.powi(-20));
        // 10-bit: 5 mantissa bits; 1.5 = 1.1b x 2^0.
        assert_eq!(encode_minifloat(1.5, 5, false), (15 << 5) | 16);
        assert_eq!(decode_minifloat(0x3df, 5, false), 64512.0); // largest finite
        assert_eq!(encode_minifloat(1.0e9, 5, false), 0x3df);
    }

    #[test]
    fn bits_helpers() {
        let mut buf = [0u8; 8];
        write_bits(&mut buf, 5, 6, 0x3f).unwrap();
        assert_eq!(buf[..2], [0xe0, 0x07]);
        assert_eq!(read_bits(&buf, 5, 6), Some(0x3f));
        write_bits(&mut buf, 0, 64, u64::MAX).unwrap();
        assert_eq!(buf, [0xff; 8]);
        assert_eq!(read_bits(&buf, 0, 64), Some(u64::MAX));
        assert_eq!(read_bits(&buf, 60, 8), None);
        assert!(write_bits(&mut buf, 60, 8, 0).is_none());
        assert_eq!(sign_extend(0x3ff, 10), -1);
        assert_eq!(sign_extend(0x200, 10), -512);
        assert_eq!(sign_extend(0x1ff, 10), 511);
    }
}
