//! Pixel comparison and the PNG triple written on failure.
//!
//! Rendering tests read pixels back and compare them with values the test
//! computed itself. This module does the comparison and nothing else: it
//! takes plain row-major RGBA data (`[f32; 4]` per pixel, or RGBA8 bytes) plus
//! the size, so it does not depend on pipe-vk or on any format type.
//!
//! A comparison passes when every channel of every pixel is within the
//! per-channel tolerance. [`Tolerance`] builds the usual tolerances: exact,
//! absolute, or one unit in the last place of a UNORM format with given bit
//! widths (a 0-bit channel is not compared, for formats without it).
//!
//! RGBA8 expectations are [`Rgba8Range`]s: per channel the set of values
//! a conforming implementation may store. [`Rgba8Range::unorm`] is the
//! Vulkan spec's float -> UNORM conversion ("Conversion from
//! Floating-Point to Normalized Fixed-Point": `convertFloatToUint(r, 8)`
//! of `r = v * 255` returns one of the two integers closest to `r`, round
//! to nearest being only a "should"): `floor(r)..=ceil(r)`, so an exact
//! tie such as 0.5 (127.5) accepts 127 (NVIDIA) and 128 (lavapipe), and an
//! integer `r` (0.0, 1.0) accepts only itself. A plain `[u8; 4]` is an
//! exact expectation.
//!
//! On a mismatch, [`check_rgba_f32`] and [`check_rgba8`] write
//! `<name>.got.png`, `<name>.expected.png` and `<name>.diff.png` (8-bit RGBA)
//! into the artifacts directory and return `Outcome::Fail` naming the first
//! mismatching pixel (in row-major order) and the number of mismatches. The
//! diff image shows mismatching pixels in opaque red and matching ones as a
//! dim grey copy of the expected image. Bad input (wrong buffer lengths) is a
//! failure with a message, never a panic.

use std::fmt;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::registry::Outcome;

/// Per-channel (R, G, B, A) allowed absolute difference.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance(pub [f32; 4]);

impl Tolerance {
    /// No difference allowed.
    pub const EXACT: Tolerance = Tolerance([0.0; 4]);

    /// The same absolute tolerance on every channel.
    pub fn absolute(t: f32) -> Self {
        Tolerance([t; 4])
    }

    /// One unit in the last place of a UNORM format whose channels have
    /// these bit widths; a channel with 0 bits is not compared.
    pub fn unorm_bits(bits: [u32; 4]) -> Self {
        Tolerance(bits.map(|b| {
            if b == 0 {
                f32::INFINITY
            } else {
                1.0 / ((1u64 << b.min(32)) - 1) as f32
            }
        }))
    }

    /// One unit of an 8-bit UNORM channel on every channel.
    pub fn unorm8() -> Self {
        Self::unorm_bits([8; 4])
    }

    /// Whether `got` is within tolerance of `expected` on every channel.
    /// NaN matches only NaN; an infinite tolerance ignores the channel.
    pub fn matches(&self, got: [f32; 4], expected: [f32; 4]) -> bool {
        (0..4).all(|c| {
            let (g, e, t) = (got[c], expected[c], self.0[c]);
            if t.is_infinite() {
                true
            } else if g.is_nan() || e.is_nan() {
                g.is_nan() && e.is_nan()
            } else {
                g == e || (g - e).abs() <= t
            }
        })
    }
}

/// The first mismatch and the count, if the images differ.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch<P, E = P> {
    /// Column of the first mismatching pixel.
    pub x: u32,
    /// Row of the first mismatching pixel.
    pub y: u32,
    /// The pixel read back.
    pub got: P,
    /// The pixel expected.
    pub expected: E,
    /// How many pixels differ.
    pub count: usize,
    /// Per-pixel mismatch mask, row-major.
    pub mask: Vec<bool>,
}

fn check_len(
    what: &str,
    len: usize,
    per_pixel: usize,
    width: u32,
    height: u32,
) -> Result<(), String> {
    let want = (width as usize)
        .checked_mul(height as usize)
        .and_then(|n| n.checked_mul(per_pixel));
    match want {
        Some(w) if w == len => Ok(()),
        Some(w) => Err(format!(
            "{what} has {len} elements, expected {w} for {width}x{height}"
        )),
        None => Err(format!("image size {width}x{height} overflows")),
    }
}

/// Compares float RGBA images. `Err` for bad sizes, `Ok(None)` when they
/// match, `Ok(Some(..))` describing the mismatch.
pub fn compare_rgba_f32(
    got: &[[f32; 4]],
    expected: &[[f32; 4]],
    width: u32,
    height: u32,
    tolerance: Tolerance,
) -> Result<Option<Mismatch<[f32; 4]>>, String> {
    check_len("got", got.len(), 1, width, height)?;
    check_len("expected", expected.len(), 1, width, height)?;
    let mask: Vec<bool> = got
        .iter()
        .zip(expected)
        .map(|(g, e)| !tolerance.matches(*g, *e))
        .collect();
    Ok(mismatch_from_mask(mask, width, |i| (got[i], expected[i])))
}

/// The values one RGBA8 pixel may hold: channel `c` accepts
/// `lo[c]..=hi[c]`. `want` is the value a round-to-nearest implementation
/// gives (the one shown in the expected PNG).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rgba8Range {
    /// Smallest accepted value per channel.
    pub lo: [u8; 4],
    /// Largest accepted value per channel.
    pub hi: [u8; 4],
    /// The round-to-nearest value per channel.
    pub want: [u8; 4],
}

impl Rgba8Range {
    /// Exactly `px`.
    pub const fn exact(px: [u8; 4]) -> Self {
        Rgba8Range {
            lo: px,
            hi: px,
            want: px,
        }
    }

    /// What the spec allows when a colour is converted to UNORM8 (see the
    /// module doc): per channel [`unorm8_allowed`].
    pub fn unorm(c: [f32; 4]) -> Self {
        let a = c.map(unorm8_allowed);
        Rgba8Range {
            lo: a.map(|(lo, _)| lo),
            hi: a.map(|(_, hi)| hi),
            want: c.map(unorm8),
        }
    }

    /// Widened by `t` units on each side, per channel (saturating).
    pub fn widen(self, t: [u8; 4]) -> Self {
        Rgba8Range {
            lo: std::array::from_fn(|c| self.lo[c].saturating_sub(t[c])),
            hi: std::array::from_fn(|c| self.hi[c].saturating_add(t[c])),
            want: self.want,
        }
    }

    /// Channel `c` exactly `v`.
    pub fn with(mut self, c: usize, v: u8) -> Self {
        self.lo[c] = v;
        self.hi[c] = v;
        self.want[c] = v;
        self
    }

    /// Every accepted value plus `d` (saturating): what adding exact
    /// steps to a stored value gives.
    pub fn plus(self, d: [u8; 4]) -> Self {
        let add = |v: [u8; 4]| -> [u8; 4] { std::array::from_fn(|c| v[c].saturating_add(d[c])) };
        Rgba8Range {
            lo: add(self.lo),
            hi: add(self.hi),
            want: add(self.want),
        }
    }

    /// Whether every channel of `px` is accepted.
    pub fn contains(&self, px: [u8; 4]) -> bool {
        (0..4).all(|c| self.lo[c] <= px[c] && px[c] <= self.hi[c])
    }

    /// The round-to-nearest value, as bytes (for byte-level comparisons
    /// and for building other expectations by hand).
    pub fn nearest(&self) -> [u8; 4] {
        self.want
    }
}

impl From<[u8; 4]> for Rgba8Range {
    fn from(px: [u8; 4]) -> Self {
        Rgba8Range::exact(px)
    }
}

impl fmt::Display for Rgba8Range {
    /// `(255, 127..=128, 0, 255)`: a single value where only one is
    /// accepted.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "(")?;
        for c in 0..4 {
            if c > 0 {
                write!(f, ", ")?;
            }
            if self.lo[c] == self.hi[c] {
                write!(f, "{}", self.lo[c])?;
            } else {
                write!(f, "{}..={}", self.lo[c], self.hi[c])?;
            }
        }
        write!(f, ")")
    }
}

/// The 8-bit values the Vulkan spec allows for a float channel written to
/// a UNORM8 format: `(floor(r), ceil(r))` of `r = clamp(v, 0, 1) * 255`
/// (computed exactly: an f32 times 255 fits an f64), which is one value
/// where `r` is an integer. NaN converts to 0.
pub fn unorm8_allowed(v: f32) -> (u8, u8) {
    if v.is_nan() {
        return (0, 0);
    }
    let r = f64::from(v.clamp(0.0, 1.0)) * 255.0;
    (r.floor() as u8, r.ceil() as u8)
}

/// Compares RGBA8 images with a per-channel tolerance in 8-bit units.
pub fn compare_rgba8(
    got: &[u8],
    expected: &[u8],
    width: u32,
    height: u32,
    tolerance: [u8; 4],
) -> Result<Option<Mismatch<[u8; 4]>>, String> {
    check_len("expected", expected.len(), 4, width, height)?;
    let ranges: Vec<Rgba8Range> = expected
        .chunks_exact(4)
        .map(|p| Rgba8Range::exact([p[0], p[1], p[2], p[3]]).widen(tolerance))
        .collect();
    Ok(
        compare_rgba8_ranges(got, &ranges, width, height)?.map(|m| Mismatch {
            x: m.x,
            y: m.y,
            got: m.got,
            expected: m.expected.want,
            count: m.count,
            mask: m.mask,
        }),
    )
}

/// Compares RGBA8 bytes with one [`Rgba8Range`] per pixel.
pub fn compare_rgba8_ranges(
    got: &[u8],
    expected: &[Rgba8Range],
    width: u32,
    height: u32,
) -> Result<Option<Mismatch<[u8; 4], Rgba8Range>>, String> {
    check_len("got", got.len(), 4, width, height)?;
    check_len("expected", expected.len(), 1, width, height)?;
    let px = |i: usize| -> [u8; 4] { [got[4 * i], got[4 * i + 1], got[4 * i + 2], got[4 * i + 3]] };
    let mask: Vec<bool> = expected
        .iter()
        .enumerate()
        .map(|(i, e)| !e.contains(px(i)))
        .collect();
    Ok(mismatch_from_mask(mask, width, |i| (px(i), expected[i])))
}

fn mismatch_from_mask<P, E>(
    mask: Vec<bool>,
    width: u32,
    pixel: impl Fn(usize) -> (P, E),
) -> Option<Mismatch<P, E>> {
    let first = mask.iter().position(|&m| m)?;
    let count = mask.iter().filter(|&&m| m).count();
    let (got, expected) = pixel(first);
    let w = width.max(1) as usize;
    Some(Mismatch {
        x: (first % w) as u32,
        y: (first / w) as u32,
        got,
        expected,
        count,
        mask,
    })
}

/// Converts a float channel to 8 bits (clamped to [0, 1], NaN as 0).
pub fn unorm8(v: f32) -> u8 {
    if v.is_nan() {
        0
    } else {
        (v.clamp(0.0, 1.0) * 255.0).round() as u8
    }
}

/// Converts float RGBA pixels to RGBA8 bytes.
pub fn to_rgba8(pixels: &[[f32; 4]]) -> Vec<u8> {
    pixels.iter().flat_map(|p| p.map(unorm8)).collect()
}

/// Writes RGBA8 bytes as a PNG file.
pub fn write_png_rgba8(path: &Path, width: u32, height: u32, data: &[u8]) -> Result<(), String> {
    check_len("image", data.len(), 4, width, height)?;
    let file = File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = BufWriter::new(file);
    let mut enc = png::Encoder::new(&mut out, width, height);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut writer = enc
        .write_header()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    writer
        .write_image_data(data)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    writer
        .finish()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    out.flush().map_err(|e| format!("{}: {e}", path.display()))
}

/// Reads a PNG file as RGBA8 bytes, returning (width, height, data). Only
/// 8-bit RGBA files (what this module writes) are accepted.
pub fn read_png_rgba8(path: &Path) -> Result<(u32, u32, Vec<u8>), String> {
    let file = File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let decoder = png::Decoder::new(std::io::BufReader::new(file));
    let mut reader = decoder
        .read_info()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| format!("{}: image too large", path.display()))?;
    let mut buf = vec![0; size];
    let info = reader
        .next_frame(&mut buf)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if info.color_type != png::ColorType::Rgba || info.bit_depth != png::BitDepth::Eight {
        return Err(format!(
            "{}: {:?} {:?}, not 8-bit RGBA",
            path.display(),
            info.color_type,
            info.bit_depth
        ));
    }
    buf.truncate(info.buffer_size());
    Ok((info.width, info.height, buf))
}

/// The three PNG paths written for a failing test.
pub fn artifact_paths(dir: &Path, name: &str) -> [PathBuf; 3] {
    ["got", "expected", "diff"].map(|k| dir.join(format!("{name}.{k}.png")))
}

/// Diff image: red where the mask is set, a dim grey of `expected` elsewhere.
pub fn diff_image(expected: &[u8], mask: &[bool]) -> Vec<u8> {
    mask.iter()
        .enumerate()
        .flat_map(|(i, &bad)| {
            if bad {
                [255, 0, 0, 255]
            } else {
                let p = &expected[4 * i..4 * i + 4];
                let l = (u32::from(p[0]) * 54 + u32::from(p[1]) * 183 + u32::from(p[2]) * 19) >> 8;
                let g = (l / 4) as u8;
                [g, g, g, 255]
            }
        })
        .collect()
}

/// Writes the PNG triple; returns a note for the failure message.
fn write_triple(
    dir: &Path,
    name: &str,
    width: u32,
    height: u32,
    got: &[u8],
    expected: &[u8],
    mask: &[bool],
) -> String {
    let [g, e, d] = artifact_paths(dir, name);
    let diff = diff_image(expected, mask);
    let res = std::fs::create_dir_all(dir)
        .map_err(|err| format!("{}: {err}", dir.display()))
        .and_then(|()| write_png_rgba8(&g, width, height, got))
        .and_then(|()| write_png_rgba8(&e, width, height, expected))
        .and_then(|()| write_png_rgba8(&d, width, height, &diff));
    match res {
        Ok(()) => format!("images: {}, {}, {}", g.display(), e.display(), d.display()),
        Err(err) => format!("could not write images: {err}"),
    }
}

struct Px<'a, T>(&'a [T; 4]);

impl fmt::Display for Px<'_, f32> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.0;
        write!(f, "({}, {}, {}, {})", p[0], p[1], p[2], p[3])
    }
}

impl fmt::Display for Px<'_, u8> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.0;
        write!(f, "({}, {}, {}, {})", p[0], p[1], p[2], p[3])
    }
}

/// Compares float images and, on a mismatch, writes the PNG triple into
/// `dir` and returns a failure naming the first bad pixel.
pub fn check_rgba_f32(
    dir: &Path,
    name: &str,
    got: &[[f32; 4]],
    expected: &[[f32; 4]],
    width: u32,
    height: u32,
    tolerance: Tolerance,
) -> Outcome {
    match compare_rgba_f32(got, expected, width, height, tolerance) {
        Err(e) => Outcome::Fail(format!("image comparison: {e}")),
        Ok(None) => Outcome::Pass,
        Ok(Some(m)) => {
            let note = write_triple(
                dir,
                name,
                width,
                height,
                &to_rgba8(got),
                &to_rgba8(expected),
                &m.mask,
            );
            Outcome::Fail(format!(
                "{} of {} pixels differ; first at ({}, {}): got {}, expected {}, tolerance {}; {note}",
                m.count,
                got.len(),
                m.x,
                m.y,
                Px(&m.got),
                Px(&m.expected),
                Px(&tolerance.0),
            ))
        }
    }
}

/// Compares RGBA8 images and, on a mismatch, writes the PNG triple into
/// `dir` and returns a failure naming the first bad pixel.
pub fn check_rgba8(
    dir: &Path,
    name: &str,
    got: &[u8],
    expected: &[u8],
    width: u32,
    height: u32,
    tolerance: [u8; 4],
) -> Outcome {
    match compare_rgba8(got, expected, width, height, tolerance) {
        Err(e) => Outcome::Fail(format!("image comparison: {e}")),
        Ok(None) => Outcome::Pass,
        Ok(Some(m)) => {
            let note = write_triple(dir, name, width, height, got, expected, &m.mask);
            Outcome::Fail(format!(
                "{} of {} pixels differ; first at ({}, {}): got {}, expected {}, tolerance {}; {note}",
                m.count,
                got.len() / 4,
                m.x,
                m.y,
                Px(&m.got),
                Px(&m.expected),
                Px(&tolerance),
            ))
        }
    }
}

/// Compares RGBA8 bytes with one [`Rgba8Range`] per pixel and, on a
/// mismatch, writes the PNG triple (the expected image shows the
/// round-to-nearest values) into `dir` and returns a failure naming the
/// first bad pixel and what it may hold.
pub fn check_rgba8_ranges(
    dir: &Path,
    name: &str,
    got: &[u8],
    expected: &[Rgba8Range],
    width: u32,
    height: u32,
) -> Outcome {
    match compare_rgba8_ranges(got, expected, width, height) {
        Err(e) => Outcome::Fail(format!("image comparison: {e}")),
        Ok(None) => Outcome::Pass,
        Ok(Some(m)) => {
            let want: Vec<u8> = expected.iter().flat_map(|e| e.want).collect();
            let note = write_triple(dir, name, width, height, got, &want, &m.mask);
            Outcome::Fail(format!(
                "{} of {} pixels differ; first at ({}, {}): got {}, expected {}; {note}",
                m.count,
                got.len() / 4,
                m.x,
                m.y,
                Px(&m.got),
                m.expected,
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmpdir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("pipe-cts-image-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn tolerance_unorm_bits() {
        let t = Tolerance::unorm_bits([5, 6, 5, 0]);
        assert!((t.0[0] - 1.0 / 31.0).abs() < 1e-7);
        assert!((t.0[1] - 1.0 / 63.0).abs() < 1e-7);
        assert!(t.0[3].is_infinite());
        assert!(t.matches([0.0, 0.0, 0.0, 0.0], [1.0 / 31.0, 0.0, 0.0, 1.0]));
        assert!(!t.matches([0.0, 0.0, 0.0, 0.0], [0.05, 0.0, 0.0, 0.0]));
        assert!(Tolerance::EXACT.matches([f32::NAN; 4], [f32::NAN; 4]));
        assert!(!Tolerance::absolute(1.0).matches([f32::NAN, 0., 0., 0.], [0.0; 4]));
    }

    #[test]
    fn float_match_passes_and_writes_nothing() {
        let dir = tmpdir("pass");
        let img = vec![[0.25, 0.5, 0.75, 1.0]; 6];
        let mut near = img.clone();
        near[3][0] += 0.001;
        let o = check_rgba_f32(&dir, "t.pass", &near, &img, 3, 2, Tolerance::unorm8());
        assert_eq!(o, Outcome::Pass);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    }

    #[test]
    fn float_mismatch_names_first_pixel_and_writes_triple() {
        let dir = tmpdir("fail");
        let expected = vec![[0.0, 0.0, 1.0, 1.0]; 12];
        let mut got = expected.clone();
        got[5] = [1.0, 0.0, 0.0, 1.0]; // (1, 1) in a 4-wide image
        got[10] = [0.0, 1.0, 0.0, 1.0];
        let o = check_rgba_f32(&dir, "t.fail", &got, &expected, 4, 3, Tolerance::unorm8());
        let Outcome::Fail(msg) = o else {
            panic!("{o:?}")
        };
        assert!(
            msg.starts_with("2 of 12 pixels differ; first at (1, 1)"),
            "{msg}"
        );
        assert!(
            msg.contains("got (1, 0, 0, 1), expected (0, 0, 1, 1)"),
            "{msg}"
        );
        let [g, e, d] = artifact_paths(&dir, "t.fail");
        let (w, h, gd) = read_png_rgba8(&g).unwrap();
        assert_eq!((w, h), (4, 3));
        assert_eq!(&gd[20..24], &[255, 0, 0, 255]);
        let (_, _, ed) = read_png_rgba8(&e).unwrap();
        assert_eq!(&ed[20..24], &[0, 0, 255, 255]);
        let (_, _, dd) = read_png_rgba8(&d).unwrap();
        assert_eq!(&dd[20..24], &[255, 0, 0, 255]);
        assert_eq!(&dd[0..4], &[4, 4, 4, 255]); // dim grey of blue
    }

    #[test]
    fn unorm8_allowed_is_the_two_nearest() {
        assert_eq!(unorm8_allowed(0.5), (127, 128));
        assert_eq!(unorm8_allowed(0.25), (63, 64));
        assert_eq!(unorm8_allowed(1.0), (255, 255));
        assert_eq!(unorm8_allowed(0.0), (0, 0));
        assert_eq!(unorm8_allowed(-3.0), (0, 0));
        assert_eq!(unorm8_allowed(7.0), (255, 255));
        assert_eq!(unorm8_allowed(f32::NAN), (0, 0));
        let r = Rgba8Range::unorm([1.0, 0.5, 0.0, 0.25]);
        assert!(r.contains([255, 127, 0, 63]));
        assert!(r.contains([255, 128, 0, 64]));
        assert!(!r.contains([254, 128, 0, 64]));
        assert!(!r.contains([255, 129, 0, 64]));
        assert!(!r.contains([255, 126, 0, 64]));
        assert!(!r.contains([255, 128, 1, 64]));
        assert!(!r.contains([255, 128, 0, 65]));
        assert_eq!(r.nearest(), [255, 128, 0, 64]);
        assert_eq!(r.to_string(), "(255, 127..=128, 0, 63..=64)");
    }

    #[test]
    fn rgba8_ranges_name_first_pixel() {
        let dir = tmpdir("ranges");
        let e = vec![Rgba8Range::unorm([0.5, 1.0, 0.0, 1.0]); 4];
        let g = [
            127u8, 255, 0, 255, 128, 255, 0, 255, 128, 255, 0, 255, 126, 255, 0, 255,
        ];
        let Outcome::Fail(msg) = check_rgba8_ranges(&dir, "r", &g, &e, 2, 2) else {
            panic!()
        };
        assert!(
            msg.starts_with(
                "1 of 4 pixels differ; first at (1, 1): got (126, 255, 0, 255), expected (127..=128, 255, 0, 255)"
            ),
            "{msg}"
        );
        assert_eq!(
            check_rgba8_ranges(&dir, "s", &g[..12], &e[..3], 3, 1),
            Outcome::Pass
        );
    }

    #[test]
    fn rgba8_tolerance_and_sizes() {
        let dir = tmpdir("rgba8");
        let e = vec![100u8; 16];
        let mut g = e.clone();
        g[6] = 102;
        assert_eq!(check_rgba8(&dir, "a", &g, &e, 2, 2, [2; 4]), Outcome::Pass);
        let Outcome::Fail(msg) = check_rgba8(&dir, "a", &g, &e, 2, 2, [1; 4]) else {
            panic!()
        };
        assert!(msg.contains("first at (1, 0)"), "{msg}");
        let Outcome::Fail(msg) = check_rgba8(&dir, "b", &g[..15], &e, 2, 2, [1; 4]) else {
            panic!()
        };
        assert!(msg.contains("got has 15 elements, expected 16"), "{msg}");
        assert!(compare_rgba_f32(&[], &[], u32::MAX, u32::MAX, Tolerance::EXACT).is_err());
    }
}
