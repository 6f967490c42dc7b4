//! pipe-bench: the micro-benchmarks of issue 6 ("Benchmarks"). These are
//! measurements, not tests: the tool prints figures and whether each meets
//! its target, and exits 0 unless something fails outright (no device, an
//! allocation or a pipe call returning an error, data read back wrong).
//!
//! # `pipe-bench upload [--size-mib 64] [--iterations 10] [--warmup 3] [--staging | --both]`
//!
//! Upload bandwidth of `buffer_subdata` into one buffer of `--size-mib` MiB
//! (`ResourceTemplate::buffer`, `Usage::Default`, bind `VERTEX_BUFFER`),
//! compared with an in-process `memcpy` of the same size in the same run.
//!
//! - **memcpy MB/s**: `copy_from_slice` from the source `Vec<u8>` into a
//!   destination `Vec<u8>` of the same size. Both vectors are filled (so
//!   every page is faulted in) before timing. This is the ceiling: one CPU
//!   copy at the machine's memory bandwidth.
//! - **buffer_subdata MB/s**: one iteration is `buffer_subdata` of the whole
//!   buffer at offset 0, then `flush` with a fence and `fence_finish` on it
//!   with an infinite timeout. The upload is only done when the GPU can see
//!   the data, so the flush and the wait are part of the timed work. (A
//!   whole-buffer `buffer_subdata` is a `DISCARD_WHOLE_RESOURCE` write; the
//!   buffer is idle at the start of each iteration, so nothing is renamed.)
//! - **ratio**: upload median / memcpy median. Target: at least 50%.
//!
//! Each path is measured on its own screen and context. Iterations
//! alternate one memcpy and one upload, so both see the same machine
//! conditions; the memcpy samples of every path are pooled. `--warmup`
//! untimed rounds of both come first (page faults, first allocations,
//! pipeline of the copy path). Every figure is the **median** of the
//! per-iteration rates; MB is 10^6 bytes. After timing, the buffer is read
//! back through `transfer_map(READ)` and compared with the source, so a
//! path that skipped the upload cannot report a figure.
//!
//! Paths: the default is `direct` (the screen's own choice: on lavapipe and
//! integrated GPUs, a host-visible buffer written through its mapping).
//! `--staging` or `--both` also measures `staging`
//! (`ScreenOptions { staging: Some(true), .. }`, i.e. `PIPE_VK_DEBUG=staging`:
//! the discrete-GPU path, a CPU write into a staging buffer followed by a GPU
//! copy into the device-local buffer), one line per path.
//!
//! # `pipe-bench memory [--count 10000] [--size 256]`
//!
//! Creates `--count` buffers of `--size` bytes (bind `VERTEX_BUFFER`,
//! `Usage::Default`) on an unwrapped [`VkScreen`] and keeps them all alive,
//! then reads [`VkScreen::memory_stats`] (gpu-allocator's report). Figures
//! are deltas against the stats taken just before the first buffer (the
//! screen's own allocations, if any, are not counted):
//!
//! - **requested**: `count × size`, what the frontend asked for;
//! - **suballocated**: bytes of live gpu-allocator allocations (requested
//!   bytes rounded up to `VkMemoryRequirements::size`/alignment);
//! - **device memory**: bytes of `VkDeviceMemory` blocks (suballocated
//!   bytes plus the free space of the blocks). Target: under 2× requested;
//! - **allocations**: the number of `VkDeviceMemory` objects. Target: fewer
//!   than 16;
//! - **create time**: mean wall time of one `resource_create`.
//!
//! # Output
//!
//! One human-readable line per figure, with `PASS`/`MISS` against each
//! target (informational only). `--json` prints one JSON object instead.
//! `--device` and `--validation` select the device and the validation
//! layer as in `pipe-info` (timings under validation are meaningless).
//! On lavapipe set `LP_NUM_THREADS` to the machine's core count.

use std::fmt::Write as _;
use std::hint::black_box;
use std::io::Write as _;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand};
use pipe_core::flags::{FlushFlags, MapFlags};
use pipe_core::resource::{BindFlags, Usage};
use pipe_core::{Context, PipeBox, Resource, ResourceTemplate, Screen};
use pipe_vk::{ScreenOptions, VkScreen};

const MIB: u64 = 1 << 20;
const MB: f64 = 1e6;
/// Upload target: this fraction of memcpy bandwidth.
const UPLOAD_TARGET_RATIO: f64 = 0.5;
/// Memory target: device memory under this multiple of the bytes requested.
const MEMORY_TARGET_OVERHEAD: f64 = 2.0;
/// Memory target: fewer than this many `VkDeviceMemory` objects.
const MEMORY_TARGET_ALLOCATIONS: usize = 16;

#[derive(Parser)]
#[command(name = "pipe-bench", about = "pipe-vk upload and memory benchmarks")]
struct Cli {
    /// Device selector (index or name substring); default: PIPE_VK_DEVICE.
    #[arg(long, global = true)]
    device: Option<String>,
    /// Enable the Khronos validation layer (timings become meaningless).
    #[arg(long, global = true)]
    validation: bool,
    /// Print one JSON object instead of human-readable lines.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// buffer_subdata upload MB/s against memcpy.
    Upload {
        /// Buffer size in MiB.
        #[arg(long, default_value_t = 64)]
        size_mib: u32,
        /// Timed iterations per path.
        #[arg(long, default_value_t = 10)]
        iterations: u32,
        /// Untimed warm-up iterations per path.
        #[arg(long, default_value_t = 3)]
        warmup: u32,
        /// Also measure the staging (discrete-GPU) path.
        #[arg(long)]
        staging: bool,
        /// Measure both the direct and the staging path (same as --staging).
        #[arg(long)]
        both: bool,
    },
    /// Device memory and VkDeviceMemory count for many small buffers.
    Memory {
        /// Number of buffers.
        #[arg(long, default_value_t = 10_000)]
        count: u32,
        /// Size of each buffer in bytes.
        #[arg(long, default_value_t = 256)]
        size: u32,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Upload {
            size_mib,
            iterations,
            warmup,
            staging,
            both,
        } => {
            let cfg = UploadConfig {
                size_mib,
                iterations,
                warmup,
                staging: staging || both,
            };
            bench_upload(&cli.device, cli.validation, &cfg).map(|r| {
                if cli.json {
                    r.json()
                } else {
                    r.human()
                }
            })
        }
        Command::Memory { count, size } => bench_memory(&cli.device, cli.validation, count, size)
            .map(|r| if cli.json { r.json() } else { r.human() }),
    };
    match result {
        Ok(text) => {
            // A closed pipe (`pipe-bench ... | head`) is not an error.
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("pipe-bench: {e}");
            ExitCode::FAILURE
        }
    }
}

fn options(device: &Option<String>, validation: bool, staging: bool) -> ScreenOptions {
    ScreenOptions {
        device: device.clone(),
        validation: validation.then_some(true),
        staging: Some(staging),
    }
}

fn pass(ok: bool) -> &'static str {
    if ok {
        "PASS"
    } else {
        "MISS"
    }
}

/// Rates and their summary, in MB/s.
#[derive(Clone, Debug, Default)]
struct Samples(Vec<f64>);

impl Samples {
    fn push_rate(&mut self, bytes: u64, elapsed: Duration) {
        let secs = elapsed.as_secs_f64().max(1e-9);
        self.0.push(bytes as f64 / secs / MB);
    }
    fn sorted(&self) -> Vec<f64> {
        let mut v = self.0.clone();
        v.sort_by(f64::total_cmp);
        v
    }
    fn median(&self) -> f64 {
        let v = self.sorted();
        match v.len() {
            0 => 0.0,
            n if n % 2 == 1 => v[n / 2],
            n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
        }
    }
    fn min(&self) -> f64 {
        self.sorted().first().copied().unwrap_or(0.0)
    }
    fn max(&self) -> f64 {
        self.sorted().last().copied().unwrap_or(0.0)
    }
    fn json(&self) -> String {
        format!(
            "{{\"median_mb_s\": {:.1}, \"min_mb_s\": {:.1}, \"max_mb_s\": {:.1}, \"samples\": {}}}",
            self.median(),
            self.min(),
            self.max(),
            self.0.len()
        )
    }
}

// ---------------------------------------------------------------------------
// upload

struct UploadConfig {
    size_mib: u32,
    iterations: u32,
    warmup: u32,
    staging: bool,
}

struct PathResult {
    name: &'static str,
    device: String,
    upload: Samples,
}

struct UploadReport {
    bytes: u64,
    iterations: u32,
    memcpy: Samples,
    paths: Vec<PathResult>,
}

fn bench_upload(
    device: &Option<String>,
    validation: bool,
    cfg: &UploadConfig,
) -> Result<UploadReport, String> {
    let bytes = u64::from(cfg.size_mib) * MIB;
    if bytes == 0 || bytes > u64::from(u32::MAX) {
        return Err(format!(
            "--size-mib must be 1..=4095 (a buffer's width0 is a u32), got {}",
            cfg.size_mib
        ));
    }
    if cfg.iterations == 0 {
        return Err("--iterations must be at least 1".into());
    }
    let len = bytes as usize;
    // A non-constant pattern, so that no layer can shortcut zero pages.
    let src: Vec<u8> = (0..len)
        .map(|i| (i as u32).wrapping_mul(2_654_435_761).to_le_bytes()[3])
        .collect();
    let mut dst = vec![0x5au8; len];

    let mut report = UploadReport {
        bytes,
        iterations: cfg.iterations,
        memcpy: Samples::default(),
        paths: Vec::new(),
    };
    let mut paths = vec![("direct", false)];
    if cfg.staging {
        paths.push(("staging", true));
    }
    for (name, staging) in paths {
        let screen = pipe_vk::create_screen(&options(device, validation, staging))
            .map_err(|e| format!("create_screen ({name}): {e}"))?;
        let mut ctx = screen
            .clone()
            .context_create()
            .map_err(|e| format!("context_create ({name}): {e}"))?;
        let mut tmpl = ResourceTemplate::buffer(bytes as u32, BindFlags::VERTEX_BUFFER);
        tmpl.usage = Usage::Default;
        let buf = screen
            .resource_create(&tmpl)
            .map_err(|e| format!("resource_create ({name}, {bytes} B): {e}"))?;

        let mut upload = Samples::default();
        for i in 0..cfg.warmup + cfg.iterations {
            let timed = i >= cfg.warmup;
            let t = Instant::now();
            dst.copy_from_slice(black_box(&src));
            black_box(&mut dst);
            let memcpy_time = t.elapsed();

            let t = Instant::now();
            upload_once(&*screen, &mut *ctx, &buf, &src)
                .map_err(|e| format!("upload ({name}): {e}"))?;
            let upload_time = t.elapsed();

            if timed {
                report.memcpy.push_rate(bytes, memcpy_time);
                upload.push_rate(bytes, upload_time);
            }
        }
        verify(&mut *ctx, &buf, &src).map_err(|e| format!("verify ({name}): {e}"))?;
        screen.resource_destroy(buf);
        report.paths.push(PathResult {
            name,
            device: screen.name().to_string(),
            upload,
        });
    }
    Ok(report)
}

/// One timed upload: `buffer_subdata` of the whole buffer, then a flush
/// with a fence and a wait for it, so that the GPU sees the data.
fn upload_once(
    screen: &dyn Screen,
    ctx: &mut dyn Context,
    buf: &Resource,
    data: &[u8],
) -> Result<(), String> {
    ctx.buffer_subdata(buf, MapFlags::empty(), 0, data)
        .map_err(|e| format!("buffer_subdata: {e}"))?;
    let fence = ctx
        .flush(FlushFlags::empty(), true)
        .map_err(|e| format!("flush: {e}"))?
        .ok_or("flush returned no fence")?;
    let done = screen
        .fence_finish(Some(ctx), &fence, u64::MAX)
        .map_err(|e| format!("fence_finish: {e}"))?;
    if done {
        Ok(())
    } else {
        Err("fence_finish with an infinite timeout returned false".into())
    }
}

/// Reads the buffer back and compares it with what was uploaded.
fn verify(ctx: &mut dyn Context, buf: &Resource, expected: &[u8]) -> Result<(), String> {
    let bx = PipeBox::range(0, expected.len() as u32);
    let t = ctx
        .transfer_map(buf, 0, MapFlags::READ, &bx)
        .map_err(|e| format!("transfer_map(READ): {e}"))?;
    let got = t.to_vec();
    ctx.transfer_unmap(t)
        .map_err(|e| format!("transfer_unmap: {e}"))?;
    if got.len() < expected.len() {
        return Err(format!(
            "mapped {} bytes, expected {}",
            got.len(),
            expected.len()
        ));
    }
    match got.iter().zip(expected).position(|(a, b)| a != b) {
        None => Ok(()),
        Some(i) => Err(format!(
            "byte {i} reads back {:#04x}, uploaded {:#04x}",
            got[i], expected[i]
        )),
    }
}

impl UploadReport {
    fn ratio(&self, p: &PathResult) -> f64 {
        let m = self.memcpy.median();
        if m > 0.0 {
            p.upload.median() / m
        } else {
            0.0
        }
    }

    fn human(&self) -> String {
        let mut s = String::new();
        let size = self.bytes / MIB;
        if let Some(p) = self.paths.first() {
            let _ = writeln!(s, "device: {}", p.device);
        }
        let _ = writeln!(
            s,
            "memcpy:                       {:>9.1} MB/s  ({size} MiB, median of {}, min {:.1}, max {:.1})",
            self.memcpy.median(),
            self.memcpy.0.len(),
            self.memcpy.min(),
            self.memcpy.max()
        );
        for p in &self.paths {
            let ratio = self.ratio(p);
            let _ = writeln!(
                s,
                "buffer_subdata {:<8} upload: {:>9.1} MB/s  ({size} MiB, median of {}, min {:.1}, max {:.1})",
                p.name,
                p.upload.median(),
                p.upload.0.len(),
                p.upload.min(),
                p.upload.max()
            );
            let _ = writeln!(
                s,
                "buffer_subdata {:<8} ratio:  {:>9.1} % of memcpy  (target >= {:.0} %: {})",
                p.name,
                ratio * 100.0,
                UPLOAD_TARGET_RATIO * 100.0,
                pass(ratio >= UPLOAD_TARGET_RATIO)
            );
        }
        s
    }

    fn json(&self) -> String {
        let paths: Vec<String> = self
            .paths
            .iter()
            .map(|p| {
                let ratio = self.ratio(p);
                format!(
                    "\"{}\": {{\"device\": {}, \"upload\": {}, \"ratio\": {:.4}, \"pass\": {}}}",
                    p.name,
                    json_str(&p.device),
                    p.upload.json(),
                    ratio,
                    ratio >= UPLOAD_TARGET_RATIO
                )
            })
            .collect();
        format!(
            "{{\"benchmark\": \"upload\", \"bytes\": {}, \"iterations\": {}, \"target_ratio\": {}, \"memcpy\": {}, \"paths\": {{{}}}}}\n",
            self.bytes,
            self.iterations,
            UPLOAD_TARGET_RATIO,
            self.memcpy.json(),
            paths.join(", ")
        )
    }
}

// ---------------------------------------------------------------------------
// memory

struct MemoryReport {
    device: String,
    count: u32,
    size: u32,
    requested: u64,
    suballocated: u64,
    device_memory: u64,
    allocations: usize,
    baseline_device_memory: u64,
    baseline_allocations: usize,
    create_time: Duration,
}

fn bench_memory(
    device: &Option<String>,
    validation: bool,
    count: u32,
    size: u32,
) -> Result<MemoryReport, String> {
    if count == 0 || size == 0 {
        return Err("--count and --size must be at least 1".into());
    }
    let screen: Arc<VkScreen> = VkScreen::new(&options(device, validation, false))
        .map_err(|e| format!("VkScreen::new: {e}"))?;
    let before = screen.memory_stats();
    let mut tmpl = ResourceTemplate::buffer(size, BindFlags::VERTEX_BUFFER);
    tmpl.usage = Usage::Default;

    let mut buffers: Vec<Resource> = Vec::with_capacity(count as usize);
    let t = Instant::now();
    for i in 0..count {
        let r = screen
            .resource_create(&tmpl)
            .map_err(|e| format!("resource_create #{i} ({size} B): {e}"))?;
        buffers.push(r);
    }
    let create_time = t.elapsed();
    let after = screen.memory_stats();

    let report = MemoryReport {
        device: screen.name().to_string(),
        count,
        size,
        requested: u64::from(count) * u64::from(size),
        suballocated: after.allocated_bytes.saturating_sub(before.allocated_bytes),
        device_memory: after.capacity_bytes.saturating_sub(before.capacity_bytes),
        allocations: after
            .device_memory_count
            .saturating_sub(before.device_memory_count),
        baseline_device_memory: before.capacity_bytes,
        baseline_allocations: before.device_memory_count,
        create_time,
    };
    for r in buffers {
        screen.resource_destroy(r);
    }
    Ok(report)
}

impl MemoryReport {
    fn overhead(&self) -> f64 {
        self.device_memory as f64 / self.requested.max(1) as f64
    }
    fn memory_ok(&self) -> bool {
        self.overhead() < MEMORY_TARGET_OVERHEAD
    }
    fn count_ok(&self) -> bool {
        self.allocations < MEMORY_TARGET_ALLOCATIONS
    }
    fn create_us(&self) -> f64 {
        self.create_time.as_secs_f64() * 1e6 / f64::from(self.count)
    }

    fn human(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "device: {}", self.device);
        let _ = writeln!(
            s,
            "requested:     {:>12} B  ({} buffers x {} B)",
            self.requested, self.count, self.size
        );
        let _ = writeln!(
            s,
            "suballocated:  {:>12} B  ({:.2}x requested)",
            self.suballocated,
            self.suballocated as f64 / self.requested.max(1) as f64
        );
        let _ = writeln!(
            s,
            "device memory: {:>12} B  ({:.2}x requested; target < {:.0}x: {})",
            self.device_memory,
            self.overhead(),
            MEMORY_TARGET_OVERHEAD,
            pass(self.memory_ok())
        );
        let _ = writeln!(
            s,
            "allocations:   {:>12}    VkDeviceMemory objects (target < {}: {})",
            self.allocations,
            MEMORY_TARGET_ALLOCATIONS,
            pass(self.count_ok())
        );
        let _ = writeln!(
            s,
            "create time:   {:>12.2} us per resource_create",
            self.create_us()
        );
        if self.baseline_allocations > 0 {
            let _ = writeln!(
                s,
                "(not counted: {} B in {} VkDeviceMemory objects held by the screen before the first buffer)",
                self.baseline_device_memory, self.baseline_allocations
            );
        }
        s
    }

    fn json(&self) -> String {
        format!(
            "{{\"benchmark\": \"memory\", \"device\": {}, \"count\": {}, \"size\": {}, \
             \"requested_bytes\": {}, \"suballocated_bytes\": {}, \"device_memory_bytes\": {}, \
             \"overhead\": {:.4}, \"device_memory_count\": {}, \
             \"baseline_device_memory_bytes\": {}, \"baseline_device_memory_count\": {}, \
             \"create_us\": {:.3}, \"target_overhead\": {}, \"target_max_allocations\": {}, \
             \"memory_pass\": {}, \"count_pass\": {}}}\n",
            json_str(&self.device),
            self.count,
            self.size,
            self.requested,
            self.suballocated,
            self.device_memory,
            self.overhead(),
            self.allocations,
            self.baseline_device_memory,
            self.baseline_allocations,
            self.create_us(),
            MEMORY_TARGET_OVERHEAD,
            MEMORY_TARGET_ALLOCATIONS - 1,
            self.memory_ok(),
            self.count_ok()
        )
    }
}

/// A JSON string literal.
fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
