//! Pixel pack/unpack against values worked out by hand (the comments show
//! the arithmetic), plus a no-panic sweep over every format.

use pipe_core::format::{
    pack_rgba_f32, pack_rgba_i32, pack_rgba_u32, pack_s_u8, pack_z_f32, unpack_rgba_f32,
    unpack_rgba_i32, unpack_rgba_u32, unpack_s_u8, unpack_z_f32, Format,
};

fn close(got: [f32; 4], want: [f32; 4]) {
    for i in 0..4 {
        assert!(
            (got[i] - want[i]).abs() <= 1e-6,
            "component {i}: got {got:?}, want {want:?}"
        );
    }
}

fn pack(f: Format, rgba: [f32; 4]) -> Vec<u8> {
    let mut out = vec![0xaa; f.block_size_bytes() as usize];
    pack_rgba_f32(f, rgba, &mut out).expect("pack");
    out
}

#[test]
fn rgba8_unorm() {
    let f = Format::R8G8B8A8Unorm;
    // 51/255 = 0.2, 128/255 = 0.501961
    close(
        unpack_rgba_f32(f, &[0, 51, 255, 128]).unwrap(),
        [0.0, 0.2, 1.0, 128.0 / 255.0],
    );
    // 0.5*255 = 127.5 ties to even -> 128; 0.2*255 = 51
    assert_eq!(pack(f, [1.0, 0.5, 0.0, 0.2]), [255, 128, 0, 51]);
    // clamping, NaN -> 0, 0.25*255 = 63.75 -> 64
    assert_eq!(pack(f, [-1.0, 2.0, f32::NAN, 0.25]), [0, 255, 0, 64]);
}

#[test]
fn bgra_and_abgr_byte_order() {
    assert_eq!(
        pack(Format::B8G8R8A8Unorm, [1.0, 0.0, 0.0, 1.0]),
        [0, 0, 255, 255]
    );
    // A8B8G8R8: memory is A, B, G, R.
    close(
        unpack_rgba_f32(Format::A8B8G8R8Unorm, &[255, 0, 0, 51]).unwrap(),
        [0.2, 0.0, 0.0, 1.0],
    );
    // BGRX: the X byte is written as 0 and alpha reads as 1.
    assert_eq!(
        pack(Format::B8G8R8X8Unorm, [0.0, 1.0, 0.0, 0.3]),
        [0, 255, 0, 0]
    );
    close(
        unpack_rgba_f32(Format::B8G8R8X8Unorm, &[0, 255, 0, 7]).unwrap(),
        [0.0, 1.0, 0.0, 1.0],
    );
}

#[test]
fn packed_16bit() {
    // B5G6R5: blue in bits 0..5, green 5..11, red 11..16.
    // red = 31 << 11 = 0xf800
    assert_eq!(
        pack(Format::B5G6R5Unorm, [1.0, 0.0, 0.0, 1.0]),
        [0x00, 0xf8]
    );
    // green = 63 << 5 = 0x07e0
    assert_eq!(
        pack(Format::B5G6R5Unorm, [0.0, 1.0, 0.0, 1.0]),
        [0xe0, 0x07]
    );
    close(
        unpack_rgba_f32(Format::B5G6R5Unorm, &[0x1f, 0x00]).unwrap(),
        [0.0, 0.0, 1.0, 1.0],
    );
    // B4G4R4A4: B bits 0..4, G 4..8, R 8..12, A 12..16 -> 0xff00
    assert_eq!(
        pack(Format::B4G4R4A4Unorm, [1.0, 0.0, 0.0, 1.0]),
        [0x00, 0xff]
    );
    // A1B5G5R5: A bit 0, B 1..6, G 6..11, R 11..16 -> 0xf801
    assert_eq!(
        pack(Format::A1B5G5R5Unorm, [1.0, 0.0, 0.0, 1.0]),
        [0x01, 0xf8]
    );
    // 16/31 = 0.516129 in the green of B5G5R5A1 (bits 5..10): 16 << 5 = 0x0200
    close(
        unpack_rgba_f32(Format::B5G5R5A1Unorm, &[0x00, 0x02]).unwrap(),
        [0.0, 16.0 / 31.0, 0.0, 0.0],
    );
}

#[test]
fn packed_10_10_10_2() {
    // R = 1023, G = 0, B = 0.25*1023 = 255.75 -> 256 at bit 20,
    // A = 1/3*3 = 1 at bit 30: 0x3ff | 0x1000_0000 | 0x4000_0000 = 0x5000_03ff
    assert_eq!(
        pack(Format::R10G10B10A2Unorm, [1.0, 0.0, 0.25, 1.0 / 3.0]),
        0x5000_03ffu32.to_le_bytes()
    );
    // SNORM: R = 0x200 (-512) -> -1 (clamped), G = 0x1ff (511) -> 1,
    // B = 0, A = 0b10 (-2) -> -1. word = 0x200 | 0x1ff << 10 | 2 << 30
    close(
        unpack_rgba_f32(Format::R10G10B10A2Snorm, &0x8007_fe00u32.to_le_bytes()).unwrap(),
        [-1.0, 1.0, 0.0, -1.0],
    );
    // USCALED reads raw values: R = 5, G = 6, B = 7, A = 3.
    let word: u32 = 5 | (6 << 10) | (7 << 20) | (3 << 30);
    close(
        unpack_rgba_f32(Format::R10G10B10A2Uscaled, &word.to_le_bytes()).unwrap(),
        [5.0, 6.0, 7.0, 3.0],
    );
    // B10G10R10A2: blue in the low bits.
    close(
        unpack_rgba_f32(Format::B10G10R10A2Unorm, &0x3ffu32.to_le_bytes()).unwrap(),
        [0.0, 0.0, 1.0, 0.0],
    );
}

#[test]
fn snorm8() {
    let f = Format::R8Snorm;
    close(unpack_rgba_f32(f, &[0x81]).unwrap(), [-1.0, 0.0, 0.0, 1.0]);
    // -128 also maps to -1.0 (clamped)
    close(unpack_rgba_f32(f, &[0x80]).unwrap(), [-1.0, 0.0, 0.0, 1.0]);
    // 64/127 = 0.503937
    close(
        unpack_rgba_f32(f, &[0x40]).unwrap(),
        [64.0 / 127.0, 0.0, 0.0, 1.0],
    );
    assert_eq!(pack(f, [-1.0, 0.0, 0.0, 0.0]), [0x81]);
    // 0.3*127 = 38.1 -> 38
    assert_eq!(pack(f, [0.3, 0.0, 0.0, 0.0]), [38]);
    // -0.3*127 = -38.1 -> -38 = 0xda
    assert_eq!(pack(f, [-0.3, 0.0, 0.0, 0.0]), [0xda]);
}

#[test]
fn srgb() {
    let f = Format::R8G8B8A8Srgb;
    // 188/255 = 0.737255; ((0.737255 + 0.055) / 1.055)^2.4 = 0.502886.
    // Alpha stays linear: 0.737255.
    close(
        unpack_rgba_f32(f, &[188, 0, 255, 188]).unwrap(),
        [0.502_886_5, 0.0, 1.0, 0.737_254_9],
    );
    // 1.055 * 0.5^(1/2.4) - 0.055 = 0.735357 -> *255 = 187.516 -> 188;
    // 1.055 * 0.2^(1/2.4) - 0.055 -> *255 = 123.555 -> 124; alpha 0.2 -> 51.
    assert_eq!(pack(f, [0.5, 0.2, 1.0, 0.2]), [188, 124, 255, 51]);
    // L8A8_SRGB: luminance decoded, alpha linear.
    close(
        unpack_rgba_f32(Format::L8A8Srgb, &[188, 188]).unwrap(),
        [0.502_886_5, 0.502_886_5, 0.502_886_5, 0.737_254_9],
    );
}

#[test]
fn luminance_alpha_intensity() {
    let l = 128.0 / 255.0;
    close(
        unpack_rgba_f32(Format::L8Unorm, &[128]).unwrap(),
        [l, l, l, 1.0],
    );
    close(
        unpack_rgba_f32(Format::A8Unorm, &[128]).unwrap(),
        [0.0, 0.0, 0.0, l],
    );
    close(
        unpack_rgba_f32(Format::I8Unorm, &[255]).unwrap(),
        [1.0, 1.0, 1.0, 1.0],
    );
    assert_eq!(pack(Format::A8Unorm, [0.1, 0.2, 0.3, 1.0]), [255]);
    assert_eq!(pack(Format::L8A8Unorm, [0.2, 0.9, 0.9, 1.0]), [51, 255]);
    // R8A8: red in byte 0, alpha in byte 1.
    close(
        unpack_rgba_f32(Format::R8A8Unorm, &[255, 51]).unwrap(),
        [1.0, 0.0, 0.0, 0.2],
    );
    // L4A4: L in bits 0..4, A in 4..8; 0x5f -> L = 15, A = 5 -> 5/15
    close(
        unpack_rgba_f32(Format::L4A4Unorm, &[0x5f]).unwrap(),
        [1.0, 1.0, 1.0, 1.0 / 3.0],
    );
}

#[test]
fn half_float_formats() {
    // 1.5 = 0x3e00, -2.0 = 0xc000
    close(
        unpack_rgba_f32(Format::R16Float, &[0x00, 0x3e]).unwrap(),
        [1.5, 0.0, 0.0, 1.0],
    );
    assert_eq!(
        pack(Format::R16G16Float, [1.5, -2.0, 0.0, 0.0]),
        [0x00, 0x3e, 0x00, 0xc0]
    );
    // RGBX half: the padding is zeroed and alpha reads back as 1.
    let out = pack(Format::R16G16B16X16Float, [1.0, 1.0, 1.0, 0.0]);
    assert_eq!(out, [0x00, 0x3c, 0x00, 0x3c, 0x00, 0x3c, 0x00, 0x00]);
    close(
        unpack_rgba_f32(Format::R16G16B16X16Float, &out).unwrap(),
        [1.0, 1.0, 1.0, 1.0],
    );
}

#[test]
fn float32_and_64() {
    let mut bytes = Vec::new();
    bytes.extend_from_slice(&0.25f32.to_le_bytes());
    bytes.extend_from_slice(&(-3.5f32).to_le_bytes());
    close(
        unpack_rgba_f32(Format::R32G32Float, &bytes).unwrap(),
        [0.25, -3.5, 0.0, 1.0],
    );
    let d = 1.25f64.to_le_bytes();
    close(
        unpack_rgba_f32(Format::R64Float, &d).unwrap(),
        [1.25, 0.0, 0.0, 1.0],
    );
    assert_eq!(pack(Format::R64Float, [1.25, 0.0, 0.0, 0.0]), d);
}

#[test]
fn r11g11b10() {
    // R = 1.0 = 15 << 6 = 0x3c0; G = 2.0 = 16 << 6 = 0x400 at bit 11;
    // B = 0.5 = 14 << 5 = 0x1c0 at bit 22.
    // 0x3c0 | 0x400 << 11 (0x20_0000) | 0x1c0 << 22 (0x7000_0000) = 0x7020_03c0
    let word: u32 = 0x7020_03c0;
    assert_eq!(
        pack(Format::R11G11B10Float, [1.0, 2.0, 0.5, 0.0]),
        word.to_le_bytes()
    );
    close(
        unpack_rgba_f32(Format::R11G11B10Float, &word.to_le_bytes()).unwrap(),
        [1.0, 2.0, 0.5, 1.0],
    );
    // Negative values become 0.
    assert_eq!(
        pack(Format::R11G11B10Float, [-1.0, 0.0, 0.0, 0.0]),
        [0, 0, 0, 0]
    );
}

#[test]
fn rgb9e5() {
    // max = 1.0: exp' = 0 + 1 + 15 = 16, scale 2^(16-24) = 1/256;
    // R = 256, G = 128, B = 0, E = 16: 0x100 | 0x80 << 9 | 16 << 27
    let word: u32 = 0x8001_0100;
    assert_eq!(
        pack(Format::R9G9B9E5Float, [1.0, 0.5, 0.0, 0.0]),
        word.to_le_bytes()
    );
    close(
        unpack_rgba_f32(Format::R9G9B9E5Float, &word.to_le_bytes()).unwrap(),
        [1.0, 0.5, 0.0, 1.0],
    );
    // 1.999: max_s = floor(1.999*256 + 0.5) = 512 -> exponent 17,
    // R = floor(1.999*128 + 0.5) = 256 -> 2.0. 256 | 17 << 27 = 0x8800_0100
    assert_eq!(
        pack(Format::R9G9B9E5Float, [1.999, 0.0, 0.0, 0.0]),
        0x8800_0100u32.to_le_bytes()
    );
    // Out of range clamps to 511/512 * 2^16 = 65408: mantissa 511, E = 31.
    let big = u32::from_le_bytes(
        pack(Format::R9G9B9E5Float, [1.0e10, 0.0, 0.0, 0.0])
            .try_into()
            .unwrap(),
    );
    assert_eq!(big, 511 | (31 << 27));
}

#[test]
fn fixed_and_scaled() {
    // 16.16: 0x0001_8000 = 1.5
    close(
        unpack_rgba_f32(Format::R32Fixed, &0x0001_8000u32.to_le_bytes()).unwrap(),
        [1.5, 0.0, 0.0, 1.0],
    );
    assert_eq!(
        pack(Format::R32Fixed, [-1.0, 0.0, 0.0, 0.0]),
        0xffff_0000u32.to_le_bytes()
    );
    close(
        unpack_rgba_f32(Format::R8G8Uscaled, &[3, 250]).unwrap(),
        [3.0, 250.0, 0.0, 1.0],
    );
    assert_eq!(pack(Format::R8G8Uscaled, [300.0, -4.0, 0.0, 0.0]), [255, 0]);
    close(
        unpack_rgba_f32(Format::R16Sscaled, &[0x00, 0x80]).unwrap(),
        [-32768.0, 0.0, 0.0, 1.0],
    );
    // 32-bit UNORM: 0x8000_0000 / (2^32 - 1) = 0.5000000001
    close(
        unpack_rgba_f32(Format::R32Unorm, &0x8000_0000u32.to_le_bytes()).unwrap(),
        [0.5, 0.0, 0.0, 1.0],
    );
}

#[test]
fn pure_integers() {
    assert_eq!(
        unpack_rgba_u32(Format::R8G8B8A8Uint, &[1, 2, 3, 4]),
        Some([1, 2, 3, 4])
    );
    assert_eq!(
        unpack_rgba_u32(Format::R8Uint, &[200]),
        Some([200, 0, 0, 1])
    );
    // 0xffff = -1, 0x8000 = -32768
    assert_eq!(
        unpack_rgba_i32(Format::R16G16Sint, &[0xff, 0xff, 0x00, 0x80]),
        Some([-1, -32768, 0, 1])
    );
    assert_eq!(
        unpack_rgba_u32(Format::R64Uint, &[0xff; 8]),
        Some([u32::MAX, 0, 0, 1])
    );
    assert_eq!(
        unpack_rgba_i32(Format::R64Sint, &(-5i64).to_le_bytes()),
        Some([-5, 0, 0, 1])
    );
    // 1023 | 1023 << 10 | 7 << 20 | 3 << 30 = 0xc07f_ffff (G clamped from 5000)
    let mut out = [0u8; 4];
    pack_rgba_u32(Format::R10G10B10A2Uint, [1023, 5000, 7, 3], &mut out).unwrap();
    assert_eq!(out, 0xc07f_ffffu32.to_le_bytes());
    let mut out = [0u8; 1];
    pack_rgba_i32(Format::R8Sint, [-200, 0, 0, 0], &mut out).unwrap();
    assert_eq!(out, [0x80]);
    let mut out = [0u8; 2];
    pack_rgba_i32(Format::L8A8Sint, [-1, 0, 0, 5], &mut out).unwrap();
    assert_eq!(out, [0xff, 5]);
    // Type mismatches are refused.
    assert_eq!(unpack_rgba_f32(Format::R8Uint, &[1]), None);
    assert_eq!(unpack_rgba_u32(Format::R8Sint, &[1]), None);
    assert_eq!(unpack_rgba_i32(Format::R8Unorm, &[1]), None);
    assert_eq!(unpack_rgba_u32(Format::R8Uscaled, &[1]), None);
}

#[test]
fn depth_stencil() {
    let f = Format::Z24UnormS8Uint;
    let mut texel = [0xff, 0xff, 0xff, 0x7f];
    assert_eq!(unpack_z_f32(f, &texel), Some(1.0));
    assert_eq!(unpack_s_u8(f, &texel), Some(0x7f));
    // 0.5 * 16777215 = 8388607.5 -> ties to even 8388608 = 0x800000;
    // stencil is kept.
    pack_z_f32(f, 0.5, &mut texel).unwrap();
    assert_eq!(texel, [0x00, 0x00, 0x80, 0x7f]);
    pack_s_u8(f, 0x12, &mut texel).unwrap();
    assert_eq!(texel, [0x00, 0x00, 0x80, 0x12]);

    // Z24X8: 0x800000 / 16777215 = 0.50000003
    assert_eq!(
        unpack_z_f32(Format::Z24X8Unorm, &[0, 0, 0x80, 0xff]),
        Some(0.500_000_03)
    );
    assert_eq!(unpack_s_u8(Format::Z24X8Unorm, &[0, 0, 0x80, 0xff]), None);
    // Z16: 32768 / 65535 = 0.50000763
    assert_eq!(
        unpack_z_f32(Format::Z16Unorm, &[0x00, 0x80]),
        Some(0.500_007_6)
    );

    let mut zs = [0u8; 8];
    zs[..4].copy_from_slice(&0.25f32.to_le_bytes());
    zs[4] = 0x55;
    assert_eq!(unpack_z_f32(Format::Z32FloatS8X24Uint, &zs), Some(0.25));
    assert_eq!(unpack_s_u8(Format::Z32FloatS8X24Uint, &zs), Some(0x55));
    pack_s_u8(Format::Z32FloatS8X24Uint, 0xaa, &mut zs).unwrap();
    assert_eq!(zs, [0x00, 0x00, 0x80, 0x3e, 0xaa, 0, 0, 0]);
    assert_eq!(unpack_s_u8(Format::X32S8X24Uint, &zs), Some(0xaa));
    assert_eq!(unpack_z_f32(Format::X32S8X24Uint, &zs), None);
    // X24S8: stencil in the top byte.
    assert_eq!(unpack_s_u8(Format::X24S8Uint, &[1, 2, 3, 4]), Some(4));
    assert_eq!(unpack_s_u8(Format::S8Uint, &[9]), Some(9));
    // S8_UINT_Z24_UNORM: stencil in the low byte, depth above.
    assert_eq!(
        unpack_s_u8(Format::S8UintZ24Unorm, &[9, 0xff, 0xff, 0xff]),
        Some(9)
    );
    assert_eq!(
        unpack_z_f32(Format::S8UintZ24Unorm, &[9, 0xff, 0xff, 0xff]),
        Some(1.0)
    );
    // Colour helpers refuse depth formats and vice versa.
    assert_eq!(unpack_rgba_f32(Format::Z32Float, &[0; 4]), None);
    assert_eq!(unpack_z_f32(Format::R32Float, &[0; 4]), None);
}

#[test]
fn refusals() {
    assert_eq!(unpack_rgba_f32(Format::R8G8B8A8Unorm, &[0; 3]), None);
    let mut short = [0u8; 3];
    assert_eq!(
        pack_rgba_f32(Format::R8G8B8A8Unorm, [0.0; 4], &mut short),
        None
    );
    assert_eq!(unpack_rgba_f32(Format::Bc1RgbUnorm, &[0; 8]), None);
    assert_eq!(unpack_rgba_f32(Format::Uyvy, &[0; 4]), None);
    assert_eq!(unpack_z_f32(Format::Z32Float, &[0; 3]), None);
    assert_eq!(pack_z_f32(Format::Z16Unorm, 0.0, &mut [0u8; 1]), None);
    // A longer buffer is fine and only the block is written.
    let mut long = [0xaa; 6];
    pack_rgba_f32(Format::R8G8Unorm, [1.0, 0.0, 0.0, 0.0], &mut long).unwrap();
    assert_eq!(long, [255, 0, 0xaa, 0xaa, 0xaa, 0xaa]);
}

/// Every helper on every format with every buffer length up to 40 bytes:
/// no panics, and a successful unpack implies a long-enough buffer.
#[test]
fn no_panics_anywhere() {
    let data: Vec<u8> = (0..40u8)
        .map(|i| i.wrapping_mul(37).wrapping_add(11))
        .collect();
    for f in Format::all() {
        let need = f.block_size_bytes() as usize;
        for len in 0..=data.len() {
            let d = &data[..len];
            let r = unpack_rgba_f32(f, d);
            assert!(r.is_none() || len >= need, "{f}");
            let _ = unpack_rgba_u32(f, d);
            let _ = unpack_rgba_i32(f, d);
            let _ = unpack_z_f32(f, d);
            let _ = unpack_s_u8(f, d);
            let mut out = vec![0u8; len];
            let _ = pack_rgba_f32(f, [f32::NAN, f32::INFINITY, -1e30, 0.5], &mut out);
            let _ = pack_rgba_u32(f, [u32::MAX; 4], &mut out);
            let _ = pack_rgba_i32(f, [i32::MIN; 4], &mut out);
            let _ = pack_z_f32(f, f32::NAN, &mut out);
            let _ = pack_s_u8(f, 0xff, &mut out);
        }
        let _ = f.size_of_image(u32::MAX, u32::MAX, u32::MAX);
    }
}

/// Values exactly representable in a format survive pack + unpack.
/// (A property over the whole table; the exact bit patterns are checked by
/// the hand-computed tests above.)
#[test]
fn exact_values_round_trip() {
    for f in Format::all() {
        let mut buf = vec![0u8; f.block_size_bytes() as usize];
        let rgba = [0.0, 1.0, 0.0, 1.0];
        if pack_rgba_f32(f, rgba, &mut buf).is_none() {
            continue;
        }
        let got = unpack_rgba_f32(f, &buf).unwrap();
        let d = f.desc();
        for (i, s) in d.swizzle.iter().enumerate() {
            if let Some(ch) = s.channel() {
                // Which input component wrote this channel.
                let src = d
                    .swizzle
                    .iter()
                    .position(|t| t.channel() == Some(ch))
                    .unwrap();
                let want = if f == Format::R9G9B9E5Float && i == 3 {
                    1.0
                } else {
                    rgba[src]
                };
                assert_eq!(got[i], want, "{f} component {i}");
            }
        }
    }
}
