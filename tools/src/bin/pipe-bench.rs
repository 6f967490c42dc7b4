//! pipe-bench: the micro-benchmarks of issue 6 ("Benchmarks"), the draw
//! overhead benchmark of issue 7 ("Benchmark") and the descriptor-strategy
//! comparison of issue 7 ("Descriptors"). These are measurements, not
//! tests: the tool prints figures (and, for `upload` and `memory`, whether
//! each meets its target), and exits 0 unless something fails outright (no
//! device, an allocation or a pipe call returning an error, data read back
//! wrong). `draw` is the exception: a scenario whose pipe calls fail is
//! reported as skipped, with the error, and the others still run.
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
//! # `pipe-bench draw [--duration-ms 1000] [--scenarios 1,4,..] [--in-process] [--pin-malloc-trim]`
//!
//! Draws per second (reported in thousands, as piglit's `drawoverhead`)
//! through the frontend interface: the screen is `pipe_vk::create_screen`,
//! i.e. [`VkScreen`] inside `ValidatingScreen`, as a frontend gets it.
//!
//! Setup, after drawoverhead (`shared/bench/drawoverhead-scenarios.md`): a
//! 160x160 `R8G8B8A8_UNORM` colour buffer plus `Z24_UNORM_S8_UINT`
//! depth/stencil, or `Z32_FLOAT` when the screen does not support Z24S8 or
//! creating it fails (the report says which, and why); a full viewport; a
//! rasterizer CSO with culling off; a blend CSO with blending off; no DSA
//! CSO (depth and stencil tests off). The vertex shader
//! passes one attribute (`R32G32B32_FLOAT`, stride 12) through as the
//! position; the vertex buffers hold 4 vertices of zeros (48 B), so every
//! triangle is degenerate and rasterizes nothing: what is measured is the
//! per-draw cost of the driver (and of lavapipe). The fragment shader
//! reads cb0 (32 B, drawoverhead's `vec4 u[1]` and `int index`, bound as
//! user data) and cb1 (a 160 B buffer). Every draw is
//! `draw_vbo(TRIANGLES, start 0, count 3)`; scenarios that change state
//! alternate between state A (even draws) and state B (odd draws):
//!
//! 1. **DrawArrays, no state change**: `draw_vbo` only.
//! 2. **DrawElements, no state change**: `draw_vbo` with `index_size` 4
//!    from a buffer resource holding `{0, 1, 2, 3}`.
//! 3. **vertex buffer change**: `set_vertex_buffers` alternating between
//!    two (identical) buffer resources, then `draw_vbo`.
//! 4. **texture change**: the fragment shader also samples a 2D texture
//!    (at a constant coordinate) through a NEAREST sampler; per draw,
//!    `set_sampler_views(FRAGMENT, 0, ..)` alternates between views of two
//!    4x4 RGBA8 textures, then `draw_vbo`.
//! 5. **UBO change**: `set_constant_buffer(FRAGMENT, 1, ..)` alternating
//!    between two 160 B buffer resources, then `draw_vbo`.
//! 6. **pipeline state change**: `bind_blend_state` alternating between
//!    blending off and (SRC_ALPHA, INV_SRC_ALPHA) blending, then
//!    `draw_vbo`.
//! 7. **user constants**: `set_constant_buffer(FRAGMENT, 0, ..)` with 32 B
//!    of user data (two alternating contents), then `draw_vbo`.
//! 8. and 9. **scenarios 1 and 2 with draw merging off**
//!    (`ScreenOptions::no_draw_merge`, i.e. `PIPE_VK_DEBUG=no_draw_merge`):
//!    every `draw_vbo` takes pipe-vk's full path instead of joining the
//!    previous call's pending multi-draw (`pipe_vk::merge`). The report
//!    gives scenario 1 / 8 and 2 / 9: what merging gains, measured in the
//!    same run.
//! 10. **scenario 6 with blend state baked into pipelines**
//!     (`ScreenOptions::no_dynamic_blend`, i.e.
//!     `PIPE_VK_DEBUG=no_dynamic_blend`): every blend change switches
//!     pipelines, as on devices without VK_EXT_extended_dynamic_state3's
//!     blend states. The report gives scenario 6 / 10.
//! 11. **vertex elements change** (drawoverhead's #5, attrib 0 size
//!     2↔3): `bind_vertex_elements_state` alternating between an
//!     `R32G32B32_FLOAT` and an `R32G32_FLOAT` element (stride 12, no fetch
//!     fix-up), then `set_vertex_buffers` (the same buffer), then
//!     `draw_vbo`.
//! 12. **scenario 11 with vertex input baked into pipelines**
//!     (`ScreenOptions::no_dynamic_vertex_input`, i.e.
//!     `PIPE_VK_DEBUG=no_dynamic_vertex_input`): every change switches
//!     pipelines, as on devices without VK_EXT_vertex_input_dynamic_state.
//!     The report gives scenario 11 / 12.
//! 13. **scenario 7 with each upload of user constants bound as its own
//!     descriptor** (`ScreenOptions::no_cb0_push_offset`, i.e.
//!     `PIPE_VK_DEBUG=no_cb0_push_offset`) instead of a window of the
//!     stream buffer read at a pushed offset. The report gives scenario
//!     7 / 13.
//! 14. **an occlusion query around every draw**: `begin_query`,
//!     `draw_vbo`, `end_query`, alternating between two
//!     `OCCLUSION_COUNTER` queries (results are not read). No
//!     drawoverhead test does this; the anchors are #1's.
//! 15. **scenario 14 with queries begun and ended outside rendering
//!     instances** (`ScreenOptions::no_query_in_rendering`, i.e.
//!     `PIPE_VK_DEBUG=no_query_in_rendering`): every begin and end splits
//!     the instance. The report gives scenario 14 / 15.
//! 16. **depth test change** (drawoverhead's #30):
//!     `bind_depth_stencil_alpha_state` alternating between the depth
//!     test off and on (LESS, writes on), then `draw_vbo`. Depth and
//!     stencil state are dynamic: pipe-vk keeps the pipeline when the
//!     alpha test is unchanged.
//! 17. **cull face change** (drawoverhead's #38): `bind_rasterizer_state`
//!     alternating between culling off and back faces culled, then
//!     `draw_vbo`. Under dynamic rasterizer state pipe-vk keeps the
//!     pipeline (the cull mode is dynamic state).
//!
//! Measurement, as drawoverhead: every scenario first binds the common
//! state and its own, and does one untimed warm-up (2 draws and a finish,
//! so pipelines and descriptors exist). Then a run is N draws followed by a
//! finish (`flush` with a fence, `fence_finish` with an infinite timeout:
//! drawoverhead's `glFinish`), timed; N starts at 1 and, while a run takes
//! less than `--duration-ms`, grows by `duration / (0.95 t)`. The first run
//! of at least the duration is the result: k draws/s = N / t / 1000 (and
//! its reciprocal, µs per draw). A scenario whose setup or draws fail is
//! printed as skipped with the error.
//!
//! Each scenario (and the noop baseline below) runs on its own screen and
//! context, in a child process (`pipe-bench draw --child N`, which prints
//! its progress and result as tab-separated lines), so that a crash in the
//! driver skips that scenario only and is reported with the size of the
//! run it died in. (Seen on lavapipe: every push descriptor or descriptor
//! set costs lavapipe one `mmap` until the command buffer is reset, so a
//! batch of more than about 65k draws that each push descriptors exceeds
//! `vm.max_map_count` and lavapipe segfaults.) `--in-process` runs them all
//! in this process instead; `--scenarios` picks some by number.
//!
//! **glibc's trim threshold.** On lavapipe every texture or UBO change
//! makes llvmpipe copy its ~32 KB fragment state into scene memory that
//! lavapipe's queue thread allocates and frees per scene, in a non-main
//! malloc arena. glibc hands such an arena's free top back to the kernel
//! (`madvise`) unless its *dynamic* trim threshold has already grown, which
//! depends on the process's earlier allocations; when it has not, every
//! change re-faults fresh pages, and scenarios 4 and 5 measure about half
//! (seen: 60-70 against 105-120 k draws/s, from run to run of the same
//! build; perf shows 60% of the time in page faults under `memcpy`).
//! `--pin-malloc-trim` runs the children with
//! `GLIBC_TUNABLES=glibc.malloc.trim_threshold=256 MiB:
//! glibc.malloc.mmap_threshold=32 MiB`, which fixes both thresholds (glibc
//! fixes the mmap threshold at its 128 KiB default as soon as the trim
//! threshold is set, so it is set too, to the largest the dynamic one
//! reaches), so that A/B comparisons are not decided by that draw. It is
//! off by default, as the anchors were measured without it; the header
//! says which was used.
//!
//! In the same run, scenario 1 is also measured on the no-op driver
//! (`pipe_core::noop::NoopScreen` inside `ValidatingScreen`): the cost of
//! the frontend interface itself (argument validation plus two dynamic
//! dispatches), as a fraction of pipe-vk's cost per draw.
//!
//! Each figure is then printed next to the anchors of
//! `shared/bench/anchors-2026-11-22.md`, as pipe-vk / anchor ratios. The
//! anchors were **measured on different runs** (drawoverhead on Zink with
//! and without the threaded context and on llvmpipe, and a raw Vulkan
//! program on lavapipe), so the ratios are indicative; only the noop
//! baseline is from the same run. Scenario 3 is compared with drawoverhead
//! #5 (which also switches vertex elements), 4 with #9, 5 with #21, 6 with
//! #29 and 7 with #24; those tests bind 8 textures and 8 UBOs, so they do
//! more work per draw than these scenarios. The raw floors used are
//! vkCmdDraw, vkCmdDrawIndexed, vertex buffer rebind, descriptor-set
//! switch, push descriptor, pipeline switch and 16 B push constants.
//!
//! # `pipe-bench descriptors [--draws 16384] [--repetitions 7]`
//!
//! What changing one binding per draw costs with each Vulkan descriptor
//! strategy, on **raw Vulkan** (ash, not through pipe-vk), on the device
//! `--device`/`PIPE_VK_DEVICE` selects; the implementation and its full
//! description are in `pipe_tools::descriptors`. Two scenarios: a UBO
//! (`UNIFORM_BUFFER`) switched between two buffers, and a texture
//! (`COMBINED_IMAGE_SAMPLER`) switched between two textures. Strategies:
//! `baseline` (no change: the floor), `push`, `push_template`, `sets`
//! (allocate + update + bind per draw, pipe-vk's texture path),
//! `sets_template`, `sets_prealloc` (update + bind of sets allocated
//! untimed), `sets_cached` (bind one of two sets written untimed),
//! `dynamic_offset` (UBO only), `descriptor_buffer` (`vkGetDescriptorEXT`
//! and `vkCmdSetDescriptorBufferOffsetsEXT`) and `descriptor_buffer_cached`
//! (offsets only). A strategy the device lacks is printed as skipped.
//!
//! Each repetition records `--draws` draws of degenerate triangles into
//! one command buffer on a 1x1 target, submits, waits and resets, timed
//! as a whole: k draws/s = draws / time / 1000, the **median** of
//! `--repetitions` (repetitions interleaved across strategies after one
//! warm-up round), with the ratio to the same scenario's baseline of the
//! same run and the extra µs per draw over it. The last two draws cover
//! the pixel and add their colours; the pixel is read back and checked
//! after every repetition, so a strategy that binds the wrong descriptor
//! is reported FAILED (exit 1) instead of getting a figure; so is any
//! validation message under `--validation`.
//!
//! # Output
//!
//! One human-readable line per figure, with `PASS`/`MISS` against each
//! target (informational only; `draw` has no targets). `--json` prints one
//! JSON object instead.
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
use pipe_core::cso::{
    BlendHandle, DepthStencilAlphaHandle, RasterizerHandle, SamplerHandle, ShaderHandle,
    VertexElementsHandle,
};
use pipe_core::draw::{DrawInfo, DrawStartCountBias, IndexSource};
use pipe_core::flags::{ClearFlags, FlushFlags, MapFlags};
use pipe_core::noop::NoopScreen;
use pipe_core::resource::{BindFlags, Usage};
use pipe_core::shader::{ShaderCode, ShaderState, StreamOutputInfo};
use pipe_core::state::*;
use pipe_core::validate::ValidatingScreen;
use pipe_core::view::{SamplerView, SamplerViewTemplate, Surface, SurfaceTemplate};
use pipe_core::{
    Context, Format, PipeBox, PipeError, PipeResult, Resource, ResourceTemplate, Screen, Target,
};
use pipe_tools::{descriptors, json_str};
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
#[command(
    name = "pipe-bench",
    about = "pipe-vk upload, memory, draw-overhead and descriptor-strategy benchmarks"
)]
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
    /// Draws/s per state-change scenario, the piglit drawoverhead way.
    Draw {
        /// Minimum duration of the reported run of each scenario, in ms.
        #[arg(long, default_value_t = 1000)]
        duration_ms: u64,
        /// Scenarios to run, by number (e.g. `1,4`); default: all. The
        /// noop baseline runs whenever scenario 1 does.
        #[arg(long, value_delimiter = ',')]
        scenarios: Vec<usize>,
        /// Run every scenario in this process instead of one child process
        /// each (no crash isolation; simpler to profile).
        #[arg(long)]
        in_process: bool,
        /// Run the children with glibc's malloc trim threshold fixed at
        /// 256 MiB (`GLIBC_TUNABLES`), so that lavapipe's per-scene memory
        /// is not returned to the kernel and re-faulted at random; see
        /// the module documentation.
        #[arg(long)]
        pin_malloc_trim: bool,
        /// Internal: run one job (a scenario number, or `noop`) and print
        /// its result in the parent's line format.
        #[arg(long, hide = true)]
        child: Option<String>,
    },
    /// Draws/s of each descriptor strategy on raw Vulkan, one binding
    /// changed per draw (issue 7's descriptor choice).
    Descriptors {
        /// Draws per repetition (one command buffer); even.
        #[arg(long, default_value_t = descriptors::DEFAULT_DRAWS)]
        draws: u32,
        /// Timed repetitions per strategy (after one warm-up round).
        #[arg(long, default_value_t = descriptors::DEFAULT_REPETITIONS)]
        repetitions: u32,
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
        Command::Draw {
            child: Some(job),
            duration_ms,
            ..
        } => return draw_child(&cli.device, cli.validation, duration_ms, &job),
        Command::Draw {
            duration_ms,
            scenarios,
            in_process,
            pin_malloc_trim,
            child: None,
        } => bench_draw(
            &cli.device,
            cli.validation,
            duration_ms,
            &scenarios,
            DrawProcesses {
                in_process,
                pin_malloc_trim,
            },
        )
        .map(|r| if cli.json { r.json() } else { r.human() }),
        Command::Descriptors { draws, repetitions } => {
            let cfg = descriptors::Config {
                device: cli.device.clone(),
                validation: cli.validation,
                draws,
                repetitions,
            };
            descriptors::run(&cfg).and_then(|r| {
                let text = if cli.json { r.json() } else { r.human() };
                if r.failed() {
                    let _ = std::io::stdout().lock().write_all(text.as_bytes());
                    Err(
                        "descriptors: a strategy failed or the validation layer reported messages"
                            .into(),
                    )
                } else {
                    Ok(text)
                }
            })
        }
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
        ..Default::default()
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

// ---------------------------------------------------------------------------
// draw

/// Width and height of the draw target (drawoverhead's window).
const DRAW_SIZE: u16 = 160;
/// Upper bound on the draws of one run (a safety net for a broken clock).
const DRAW_MAX_RUN: u64 = 1 << 32;
/// Where the anchor figures come from.
const ANCHORS_SOURCE: &str = "shared/bench/anchors-2026-11-22.md";

/// Position only. The vertex buffers hold zeros, so every vertex is
/// (0, 0, 0, 1) and every triangle is degenerate.
const DRAW_VS: &str = "shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
}
";

/// drawoverhead's program 0 without textures: cb0 holds 32 B of user
/// constants, cb1 is a 160 B UBO.
const DRAW_FS: &str = "shader fragment
out @frag : f32x4 location=0
ubo @u slot=0 size=32
ubo @b slot=1 size=160
fn main {
  %0 : u32 = const 0
  %1 : f32x4 = load_ubo @u, %0
  %2 : f32x4 = load_ubo @b, %0
  %3 : f32x4 = fadd %1, %2
  store @frag, %3
}
";

/// [`DRAW_FS`] plus one sampled texture (slot 0).
const DRAW_FS_TEX: &str = "shader fragment
out @frag : f32x4 location=0
ubo @u slot=0 size=32
ubo @b slot=1 size=160
texture @t slot=0 dim=2d sampled=float
fn main {
  %0 : u32 = const 0
  %1 : f32x4 = load_ubo @u, %0
  %2 : f32x4 = load_ubo @b, %0
  %3 : f32x4 = fadd %1, %2
  %4 : f32x2 = const 0.5, 0.5
  %5 : f32x4 = tex @t, coord=%4
  %6 : f32x4 = fadd %3, %5
  store @frag, %6
}
";

/// The draw scenarios, in report order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scenario {
    Arrays,
    Elements,
    VertexBuffer,
    Texture,
    Ubo,
    Blend,
    UserConstants,
    /// `Arrays` with draw merging off (`PIPE_VK_DEBUG=no_draw_merge`):
    /// the same-run baseline of what merging gains.
    ArraysNoMerge,
    /// `Elements` with draw merging off.
    ElementsNoMerge,
    /// `Blend` with blend state baked into pipelines
    /// (`PIPE_VK_DEBUG=no_dynamic_blend`): the same-run baseline of what
    /// dynamic blend state gains.
    BlendBaked,
    /// drawoverhead's #5: vertex elements with attribute 0 of size 2 and
    /// 3 in turn, and the vertex buffer, per draw.
    VertexElements,
    /// `VertexElements` with vertex input baked into pipelines
    /// (`PIPE_VK_DEBUG=no_dynamic_vertex_input`).
    VertexElementsBaked,
    /// `UserConstants` with each upload bound as its own descriptor
    /// (`PIPE_VK_DEBUG=no_cb0_push_offset`).
    UserConstantsDescriptor,
    /// An occlusion query around every draw.
    OcclusionQuery,
    /// `OcclusionQuery` with queries outside rendering instances
    /// (`PIPE_VK_DEBUG=no_query_in_rendering`).
    OcclusionQueryOutside,
    /// drawoverhead's #30: the depth test off and on in turn.
    DepthTest,
    /// drawoverhead's #38: back-face culling off and on in turn.
    CullFace,
}

/// Figures of one scenario from [`ANCHORS_SOURCE`] (k draws/s, measured
/// on other runs): the closest drawoverhead test and the closest raw
/// lavapipe floor.
struct Anchor {
    test: &'static str,
    llvmpipe: f64,
    zink: f64,
    zink_no_tc: f64,
    raw_what: &'static str,
    raw: f64,
}

impl Scenario {
    const ALL: [Scenario; 17] = [
        Scenario::Arrays,
        Scenario::Elements,
        Scenario::VertexBuffer,
        Scenario::Texture,
        Scenario::Ubo,
        Scenario::Blend,
        Scenario::UserConstants,
        Scenario::ArraysNoMerge,
        Scenario::ElementsNoMerge,
        Scenario::BlendBaked,
        Scenario::VertexElements,
        Scenario::VertexElementsBaked,
        Scenario::UserConstantsDescriptor,
        Scenario::OcclusionQuery,
        Scenario::OcclusionQueryOutside,
        Scenario::DepthTest,
        Scenario::CullFace,
    ];

    /// Whether the screen is opened with draw merging off.
    fn no_merge(self) -> bool {
        matches!(self, Scenario::ArraysNoMerge | Scenario::ElementsNoMerge)
    }

    fn number(self) -> usize {
        Self::ALL.iter().position(|s| *s == self).unwrap_or(0) + 1
    }

    fn key(self) -> &'static str {
        match self {
            Scenario::Arrays => "arrays",
            Scenario::Elements => "elements",
            Scenario::VertexBuffer => "vertex_buffer",
            Scenario::Texture => "texture",
            Scenario::Ubo => "ubo",
            Scenario::Blend => "blend",
            Scenario::UserConstants => "user_constants",
            Scenario::ArraysNoMerge => "arrays_no_merge",
            Scenario::ElementsNoMerge => "elements_no_merge",
            Scenario::BlendBaked => "blend_baked",
            Scenario::VertexElements => "vertex_elements",
            Scenario::VertexElementsBaked => "vertex_elements_baked",
            Scenario::UserConstantsDescriptor => "user_constants_descriptor",
            Scenario::OcclusionQuery => "occlusion_query",
            Scenario::OcclusionQueryOutside => "occlusion_query_outside",
            Scenario::DepthTest => "depth_test",
            Scenario::CullFace => "cull_face",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Scenario::Arrays => "DrawArrays, no state change",
            Scenario::Elements => "DrawElements (u32 buffer), no change",
            Scenario::VertexBuffer => "vertex buffer change",
            Scenario::Texture => "texture change (sampler view)",
            Scenario::Ubo => "UBO change (cb1 buffer)",
            Scenario::Blend => "pipeline change (blend CSO)",
            Scenario::UserConstants => "user constants, 32 B per draw",
            Scenario::ArraysNoMerge => "DrawArrays, no change, merging off",
            Scenario::ElementsNoMerge => "DrawElements, no change, merging off",
            Scenario::BlendBaked => "pipeline change (blend CSO), blend baked into pipelines",
            Scenario::VertexElements => "vertex elements change (size 2<->3)",
            Scenario::VertexElementsBaked => {
                "vertex elements change, vertex input baked into pipelines"
            }
            Scenario::UserConstantsDescriptor => "user constants, a descriptor per upload",
            Scenario::OcclusionQuery => "occlusion query around each draw",
            Scenario::OcclusionQueryOutside => {
                "occlusion query around each draw, queries outside rendering instances"
            }
            Scenario::DepthTest => "depth test change (DSA CSO)",
            Scenario::CullFace => "cull face change (rasterizer CSO)",
        }
    }

    fn anchor(self) -> Anchor {
        let a = |test, llvmpipe, zink, zink_no_tc, raw_what, raw| Anchor {
            test,
            llvmpipe,
            zink,
            zink_no_tc,
            raw_what,
            raw,
        };
        match self {
            Scenario::Arrays
            | Scenario::ArraysNoMerge
            | Scenario::OcclusionQuery
            | Scenario::OcclusionQueryOutside => a(
                "#1 DrawArrays",
                6498.0,
                10235.0,
                1829.0,
                "vkCmdDraw",
                1893.0,
            ),
            Scenario::Elements | Scenario::ElementsNoMerge => a(
                "#2 DrawElements",
                5240.0,
                8177.0,
                1240.0,
                "vkCmdDrawIndexed",
                1797.0,
            ),
            Scenario::VertexBuffer | Scenario::VertexElements | Scenario::VertexElementsBaked => a(
                "#5 1 vertex attrib",
                2749.0,
                917.0,
                792.0,
                "vertex buffer rebind",
                1420.0,
            ),
            Scenario::Texture => a(
                "#9 1/1 texture",
                360.0,
                209.0,
                113.0,
                "descriptor-set switch",
                111.0,
            ),
            Scenario::Ubo => a("#21 1/1 UBO", 338.0, 103.0, 114.0, "push descriptor", 88.0),
            // The raw floor has no depth state figure: the closest dynamic
            // state one.
            Scenario::DepthTest => a("#30 depth", 261.0, 108.0, 11.0, "cull mode", 716.0),
            Scenario::CullFace => a("#38 cull face", 772.0, 528.0, 322.0, "cull mode", 716.0),
            Scenario::Blend | Scenario::BlendBaked => {
                a("#29 blend", 248.0, 109.0, 73.0, "pipeline switch", 96.0)
            }
            Scenario::UserConstants | Scenario::UserConstantsDescriptor => a(
                "#24 few uniforms",
                305.0,
                138.0,
                116.0,
                "push constants 16 B",
                323.0,
            ),
        }
    }
}

/// The reported run of one scenario: `draws` draws plus the finish took
/// `elapsed`.
#[derive(Clone, Copy, Debug)]
struct DrawRun {
    draws: u64,
    elapsed: Duration,
}

impl DrawRun {
    /// Thousands of draws per second, drawoverhead's unit.
    fn k_per_s(&self) -> f64 {
        self.draws as f64 / self.elapsed.as_secs_f64().max(1e-9) / 1e3
    }
    fn us_per_draw(&self) -> f64 {
        self.elapsed.as_secs_f64() * 1e6 / self.draws.max(1) as f64
    }
    fn json(&self) -> String {
        format!(
            "\"k_draws_s\": {:.1}, \"us_per_draw\": {:.4}, \"draws\": {}, \"time_s\": {:.4}",
            self.k_per_s(),
            self.us_per_draw(),
            self.draws,
            self.elapsed.as_secs_f64()
        )
    }
}

/// The textured variant of the rig, built by the texture scenario only.
struct TexRig {
    fs: ShaderHandle,
    sampler: SamplerHandle,
    views: [SamplerView; 2],
    textures: [Resource; 2],
}

/// Everything the scenarios draw with, on one screen and context.
struct DrawRig {
    screen: Arc<dyn Screen>,
    ctx: Box<dyn Context>,
    /// What the depth/stencil attachment is (or why there is none).
    depth: String,
    vs: ShaderHandle,
    fs: ShaderHandle,
    velems: VertexElementsHandle,
    /// Attribute 0 as `R32G32_FLOAT` (scenarios 11 and 12).
    velems2: VertexElementsHandle,
    /// Two single-buffer vertex buffer lists, one per zero-filled buffer.
    vb_sets: [Vec<VertexBuffer>; 2],
    index: Resource,
    ubos: [Resource; 2],
    consts: [[u8; 32]; 2],
    blends: [BlendHandle; 2],
    /// The depth test off and on (scenario 16).
    dsas: [DepthStencilAlphaHandle; 2],
    /// Culling off (the common state) and back faces culled (scenario
    /// 17).
    rasts: [RasterizerHandle; 2],
    tex: Option<Result<TexRig, String>>,
    /// The two queries of scenarios 14 and 15.
    queries: Vec<pipe_core::query::Query>,
    /// Resources to release at the end (targets, buffers).
    owned: Vec<Resource>,
}

fn pipe(what: &str) -> impl FnOnce(PipeError) -> String + '_ {
    move |e| format!("{what}: {e}")
}

fn ir_shader(stage: ShaderStage, src: &str) -> Result<ShaderState, String> {
    let ir = spirv_gen::text::parse(src).map_err(|e| format!("bench shader: {e}"))?;
    Ok(ShaderState {
        stage,
        code: ShaderCode::Ir(Arc::new(ir)),
        stream_output: StreamOutputInfo::default(),
    })
}

fn surface(ctx: &mut dyn Context, res: &Resource, format: Format) -> PipeResult<Surface> {
    ctx.create_surface(
        res,
        &SurfaceTemplate {
            format,
            level: 0,
            first_layer: 0,
            last_layer: 0,
        },
    )
}

impl DrawRig {
    fn new(screen: Arc<dyn Screen>) -> Result<DrawRig, String> {
        let mut ctx = screen
            .clone()
            .context_create()
            .map_err(pipe("context_create"))?;
        let mut owned = Vec::new();
        let size = u32::from(DRAW_SIZE);

        // Target: RGBA8 plus Z24S8, else Z32F.
        let ct = ResourceTemplate::texture_2d(
            Format::R8G8B8A8Unorm,
            size,
            size,
            BindFlags::RENDER_TARGET,
        );
        let color = screen.resource_create(&ct).map_err(pipe("colour target"))?;
        let cbuf = surface(&mut *ctx, &color, ct.format).map_err(pipe("colour surface"))?;
        owned.push(color);
        let mut notes = Vec::new();
        let mut zsbuf = None;
        let mut depth = String::new();
        for f in [Format::Z24UnormS8Uint, Format::Z32Float] {
            let bind = BindFlags::DEPTH_STENCIL;
            if !screen.is_format_supported(f, Target::Texture2D, 1, 1, bind) {
                notes.push(format!("{} not supported", f.short_name()));
                continue;
            }
            let zt = ResourceTemplate::texture_2d(f, size, size, bind);
            let made = screen
                .resource_create(&zt)
                .and_then(|z| surface(&mut *ctx, &z, f).map(|s| (z, s)));
            match made {
                Ok((z, s)) => {
                    owned.push(z);
                    zsbuf = Some(s);
                    depth = f.short_name().to_string();
                    break;
                }
                Err(e) => notes.push(format!("{}: {e}", f.short_name())),
            }
        }
        if zsbuf.is_none() {
            depth = "none".into();
        }
        if !notes.is_empty() {
            let _ = write!(depth, " ({})", notes.join("; "));
        }
        ctx.set_framebuffer_state(&FramebufferState {
            width: DRAW_SIZE,
            height: DRAW_SIZE,
            layers: 1,
            samples: 1,
            cbufs: vec![Some(cbuf)],
            zsbuf,
            resolve: None,
        })
        .map_err(pipe("set_framebuffer_state"))?;
        let half = f32::from(DRAW_SIZE) / 2.0;
        ctx.set_viewport_states(
            0,
            &[ViewportState {
                scale: [half, half, 1.0],
                translate: [half, half, 0.0],
                swizzle: Default::default(),
            }],
        )
        .map_err(pipe("set_viewport_states"))?;
        let rast = RasterizerState {
            line_width: 1.0,
            clip_halfz: true,
            depth_clip_near: true,
            depth_clip_far: true,
            ..Default::default()
        };
        let rasts = [
            ctx.create_rasterizer_state(&rast)
                .map_err(pipe("create_rasterizer_state"))?,
            ctx.create_rasterizer_state(&RasterizerState {
                cull_face: Face::BACK,
                ..rast
            })
            .map_err(pipe("create_rasterizer_state"))?,
        ];
        ctx.bind_rasterizer_state(Some(rasts[0]))
            .map_err(pipe("bind_rasterizer_state"))?;
        ctx.clear(
            ClearFlags::COLOR0 | ClearFlags::DEPTH | ClearFlags::STENCIL,
            None,
            &ColorUnion::from_f32([0.0; 4]),
            1.0,
            0,
        )
        .map_err(pipe("clear"))?;

        // Program, vertex layout, buffers.
        let vs = ctx
            .create_vs_state(&ir_shader(ShaderStage::Vertex, DRAW_VS)?)
            .map_err(pipe("create_vs_state"))?;
        let fs = ctx
            .create_fs_state(&ir_shader(ShaderStage::Fragment, DRAW_FS)?)
            .map_err(pipe("create_fs_state"))?;
        let element = VertexElement {
            src_offset: 0,
            src_stride: 12,
            vertex_buffer_index: 0,
            dual_slot: false,
            src_format: Format::R32G32B32Float,
            instance_divisor: 0,
        };
        let velems = ctx
            .create_vertex_elements_state(&[element])
            .map_err(pipe("create_vertex_elements_state"))?;
        let velems2 = ctx
            .create_vertex_elements_state(&[VertexElement {
                src_format: Format::R32G32Float,
                ..element
            }])
            .map_err(pipe("create_vertex_elements_state"))?;
        let mut buffer =
            |ctx: &mut dyn Context, bind: BindFlags, data: &[u8]| -> Result<Resource, String> {
                let r = screen
                    .resource_create(&ResourceTemplate::buffer(data.len() as u32, bind))
                    .map_err(pipe("resource_create (buffer)"))?;
                ctx.buffer_subdata(&r, MapFlags::empty(), 0, data)
                    .map_err(pipe("buffer_subdata"))?;
                owned.push(r.clone());
                Ok(r)
            };
        // 4 vertices of 3 floats, all zero (48 B), as drawoverhead.
        let vb = [
            buffer(&mut *ctx, BindFlags::VERTEX_BUFFER, &[0; 48])?,
            buffer(&mut *ctx, BindFlags::VERTEX_BUFFER, &[0; 48])?,
        ];
        let vb_sets = vb.map(|b| {
            vec![VertexBuffer {
                buffer: Some(VertexBufferSource::Resource(b)),
                buffer_offset: 0,
            }]
        });
        let idx: Vec<u8> = [0u32, 1, 2, 3]
            .iter()
            .flat_map(|i| i.to_le_bytes())
            .collect();
        let index = buffer(&mut *ctx, BindFlags::INDEX_BUFFER, &idx)?;
        let ubo_data = |v: f32| -> Vec<u8> { (0..40).flat_map(|_| v.to_le_bytes()).collect() };
        let ubos = [
            buffer(&mut *ctx, BindFlags::CONSTANT_BUFFER, &ubo_data(0.0))?,
            buffer(&mut *ctx, BindFlags::CONSTANT_BUFFER, &ubo_data(0.25))?,
        ];
        // vec4 u[1] + int index, two values to alternate.
        let consts = [0.0f32, 0.5].map(|v| {
            let mut c = [0u8; 32];
            for (i, chunk) in c[..16].chunks_mut(4).enumerate() {
                chunk.copy_from_slice(&(v + i as f32 * 0.125).to_le_bytes());
            }
            c
        });
        let mut blend_off = BlendState::default();
        blend_off.rt[0].colormask = ColorMask::RGBA;
        let mut blend_on = blend_off;
        blend_on.rt[0] = RtBlendState {
            blend_enable: true,
            rgb_func: BlendFunc::Add,
            rgb_src_factor: BlendFactor::SrcAlpha,
            rgb_dst_factor: BlendFactor::InvSrcAlpha,
            alpha_func: BlendFunc::Add,
            alpha_src_factor: BlendFactor::SrcAlpha,
            alpha_dst_factor: BlendFactor::InvSrcAlpha,
            colormask: ColorMask::RGBA,
        };
        let blends = [
            ctx.create_blend_state(&blend_off)
                .map_err(pipe("create_blend_state"))?,
            ctx.create_blend_state(&blend_on)
                .map_err(pipe("create_blend_state"))?,
        ];
        let depth_on = DepthStencilAlphaState {
            depth_enabled: true,
            depth_writemask: true,
            depth_func: CompareFunc::Less,
            ..Default::default()
        };
        let dsas = [
            ctx.create_depth_stencil_alpha_state(&DepthStencilAlphaState::default())
                .map_err(pipe("create_depth_stencil_alpha_state"))?,
            ctx.create_depth_stencil_alpha_state(&depth_on)
                .map_err(pipe("create_depth_stencil_alpha_state"))?,
        ];
        Ok(DrawRig {
            screen,
            ctx,
            depth,
            vs,
            fs,
            velems,
            velems2,
            vb_sets,
            index,
            ubos,
            consts,
            blends,
            dsas,
            rasts,
            tex: None,
            queries: Vec::new(),
            owned,
        })
    }

    /// Two 4x4 RGBA8 textures, their views, a NEAREST sampler and the
    /// textured fragment shader.
    fn make_tex(&mut self) -> Result<TexRig, String> {
        let ctx = &mut *self.ctx;
        let fs = ctx
            .create_fs_state(&ir_shader(ShaderStage::Fragment, DRAW_FS_TEX)?)
            .map_err(pipe("create_fs_state (textured)"))?;
        let tt = ResourceTemplate::texture_2d(Format::R8G8B8A8Unorm, 4, 4, BindFlags::SAMPLER_VIEW);
        let mut make = |fill: u8| -> Result<(Resource, SamplerView), String> {
            let t = self
                .screen
                .resource_create(&tt)
                .map_err(pipe("resource_create (texture)"))?;
            ctx.texture_subdata(
                &t,
                0,
                MapFlags::empty(),
                &PipeBox::rect(0, 0, 4, 4),
                &[fill; 64],
                16,
                64,
            )
            .map_err(pipe("texture_subdata"))?;
            let v = ctx
                .create_sampler_view(&t, &SamplerViewTemplate::whole(&tt))
                .map_err(pipe("create_sampler_view"))?;
            Ok((t, v))
        };
        let (t0, v0) = make(0x40)?;
        let (t1, v1) = make(0xc0)?;
        let sampler = ctx
            .create_sampler_state(&SamplerState {
                wrap_s: TexWrap::ClampToEdge,
                wrap_t: TexWrap::ClampToEdge,
                wrap_r: TexWrap::ClampToEdge,
                min_img_filter: TexFilter::Nearest,
                mag_img_filter: TexFilter::Nearest,
                min_mip_filter: MipFilter::None,
                ..Default::default()
            })
            .map_err(pipe("create_sampler_state"))?;
        Ok(TexRig {
            fs,
            sampler,
            views: [v0, v1],
            textures: [t0, t1],
        })
    }

    /// Binds the common state, then what `s` needs on top of it, so that
    /// every scenario starts from the same bindings.
    fn prepare(&mut self, s: Scenario) -> Result<(), String> {
        let ctx = &mut *self.ctx;
        ctx.bind_vs_state(Some(self.vs))
            .map_err(pipe("bind_vs_state"))?;
        ctx.bind_fs_state(Some(self.fs))
            .map_err(pipe("bind_fs_state"))?;
        ctx.bind_vertex_elements_state(Some(self.velems))
            .map_err(pipe("bind_vertex_elements_state"))?;
        ctx.set_vertex_buffers(&self.vb_sets[0])
            .map_err(pipe("set_vertex_buffers"))?;
        let cb0 = ConstantBuffer {
            buffer: None,
            buffer_offset: 0,
            buffer_size: 32,
            user_buffer: Some(&self.consts[0]),
        };
        ctx.set_constant_buffer(ShaderStage::Fragment, 0, Some(cb0))
            .map_err(pipe("set_constant_buffer (cb0, user)"))?;
        let cb1 = ConstantBuffer {
            buffer: Some(self.ubos[0].clone()),
            buffer_offset: 0,
            buffer_size: 160,
            user_buffer: None,
        };
        ctx.set_constant_buffer(ShaderStage::Fragment, 1, Some(cb1))
            .map_err(pipe("set_constant_buffer (cb1)"))?;
        ctx.bind_blend_state(Some(self.blends[0]))
            .map_err(pipe("bind_blend_state"))?;
        if matches!(
            s,
            Scenario::OcclusionQuery | Scenario::OcclusionQueryOutside
        ) && self.queries.is_empty()
        {
            for _ in 0..2 {
                let q = ctx
                    .create_query(pipe_core::query::QueryType::OcclusionCounter, 0)
                    .map_err(pipe("create_query"))?;
                self.queries.push(q);
            }
        }
        ctx.set_sampler_views(ShaderStage::Fragment, 0, &[None], 0)
            .map_err(pipe("set_sampler_views (unbind)"))?;
        if s == Scenario::Texture {
            if self.tex.is_none() {
                self.tex = Some(self.make_tex());
            }
            let tex = match &self.tex {
                Some(Ok(t)) => t,
                Some(Err(e)) => return Err(e.clone()),
                None => unreachable!("set just above"),
            };
            let ctx = &mut *self.ctx;
            ctx.bind_fs_state(Some(tex.fs))
                .map_err(pipe("bind_fs_state (textured)"))?;
            ctx.bind_sampler_states(ShaderStage::Fragment, 0, &[Some(tex.sampler)])
                .map_err(pipe("bind_sampler_states"))?;
            ctx.set_sampler_views(ShaderStage::Fragment, 0, &[Some(tex.views[0].clone())], 0)
                .map_err(pipe("set_sampler_views"))?;
        }
        Ok(())
    }

    /// Records `n` draws of scenario `s` (state A on even draws, state B
    /// on odd ones), without flushing.
    fn run_draws(&mut self, s: Scenario, n: u64) -> PipeResult<()> {
        let draw = [DrawStartCountBias {
            start: 0,
            count: 3,
            index_bias: 0,
        }];
        let arrays = DrawInfo::default();
        let ctx = &mut *self.ctx;
        match s {
            Scenario::Arrays | Scenario::ArraysNoMerge => {
                for _ in 0..n {
                    ctx.draw_vbo(&arrays, 0, None, &draw)?;
                }
            }
            Scenario::Elements | Scenario::ElementsNoMerge => {
                let info = DrawInfo {
                    index_size: 4,
                    index: IndexSource::Resource(self.index.clone()),
                    min_index: 0,
                    max_index: 3,
                    ..DrawInfo::default()
                };
                for _ in 0..n {
                    ctx.draw_vbo(&info, 0, None, &draw)?;
                }
            }
            Scenario::VertexBuffer => {
                for i in 0..n {
                    ctx.set_vertex_buffers(&self.vb_sets[(i & 1) as usize])?;
                    ctx.draw_vbo(&arrays, 0, None, &draw)?;
                }
            }
            Scenario::Texture => {
                let Some(Ok(tex)) = &self.tex else {
                    return Err(PipeError::invalid("texture rig missing"));
                };
                let views = [Some(tex.views[0].clone()), Some(tex.views[1].clone())];
                for i in 0..n {
                    let k = (i & 1) as usize;
                    ctx.set_sampler_views(ShaderStage::Fragment, 0, &views[k..k + 1], 0)?;
                    ctx.draw_vbo(&arrays, 0, None, &draw)?;
                }
            }
            Scenario::Ubo => {
                for i in 0..n {
                    let cb = ConstantBuffer {
                        buffer: Some(self.ubos[(i & 1) as usize].clone()),
                        buffer_offset: 0,
                        buffer_size: 160,
                        user_buffer: None,
                    };
                    ctx.set_constant_buffer(ShaderStage::Fragment, 1, Some(cb))?;
                    ctx.draw_vbo(&arrays, 0, None, &draw)?;
                }
            }
            Scenario::Blend | Scenario::BlendBaked => {
                for i in 0..n {
                    ctx.bind_blend_state(Some(self.blends[(i & 1) as usize]))?;
                    ctx.draw_vbo(&arrays, 0, None, &draw)?;
                }
            }
            Scenario::CullFace => {
                for i in 0..n {
                    ctx.bind_rasterizer_state(Some(self.rasts[(i & 1) as usize]))?;
                    ctx.draw_vbo(&arrays, 0, None, &draw)?;
                }
            }
            Scenario::DepthTest => {
                for i in 0..n {
                    ctx.bind_depth_stencil_alpha_state(Some(self.dsas[(i & 1) as usize]))?;
                    ctx.draw_vbo(&arrays, 0, None, &draw)?;
                }
            }
            Scenario::VertexElements | Scenario::VertexElementsBaked => {
                let velems = [self.velems, self.velems2];
                for i in 0..n {
                    ctx.bind_vertex_elements_state(Some(velems[(i & 1) as usize]))?;
                    ctx.set_vertex_buffers(&self.vb_sets[0])?;
                    ctx.draw_vbo(&arrays, 0, None, &draw)?;
                }
            }
            Scenario::OcclusionQuery | Scenario::OcclusionQueryOutside => {
                for i in 0..n {
                    let q = &self.queries[(i & 1) as usize];
                    ctx.begin_query(q)?;
                    ctx.draw_vbo(&arrays, 0, None, &draw)?;
                    ctx.end_query(q)?;
                }
            }
            Scenario::UserConstants | Scenario::UserConstantsDescriptor => {
                for i in 0..n {
                    let cb = ConstantBuffer {
                        buffer: None,
                        buffer_offset: 0,
                        buffer_size: 32,
                        user_buffer: Some(&self.consts[(i & 1) as usize]),
                    };
                    ctx.set_constant_buffer(ShaderStage::Fragment, 0, Some(cb))?;
                    ctx.draw_vbo(&arrays, 0, None, &draw)?;
                }
            }
        }
        Ok(())
    }

    /// drawoverhead's `glFinish`: a flush with a fence and a wait for it.
    fn finish(&mut self) -> Result<(), String> {
        let fence = self
            .ctx
            .flush(FlushFlags::empty(), true)
            .map_err(pipe("flush"))?
            .ok_or("flush returned no fence")?;
        let done = self
            .screen
            .fence_finish(Some(&mut *self.ctx), &fence, u64::MAX)
            .map_err(pipe("fence_finish"))?;
        if done {
            Ok(())
        } else {
            Err("fence_finish with an infinite timeout returned false".into())
        }
    }

    /// drawoverhead's measurement: one untimed warm-up (both states, so
    /// pipelines and descriptors exist), then n = 1 and, while a run takes
    /// less than `duration`, n *= duration / (0.95 t). The first run of at
    /// least `duration` is the result.
    /// `on_run(n)` is called before each timed run (outside the timing).
    fn measure(
        &mut self,
        s: Scenario,
        duration: Duration,
        on_run: &mut dyn FnMut(u64),
    ) -> Result<DrawRun, String> {
        self.prepare(s)?;
        self.run_draws(s, 2).map_err(pipe("draw (warm-up)"))?;
        self.finish()?;
        let mut n: u64 = 1;
        loop {
            on_run(n);
            let t = Instant::now();
            self.run_draws(s, n).map_err(pipe("draw"))?;
            self.finish()?;
            let elapsed = t.elapsed();
            if elapsed >= duration || n >= DRAW_MAX_RUN {
                return Ok(DrawRun { draws: n, elapsed });
            }
            let factor = duration.as_secs_f64() / (0.95 * elapsed.as_secs_f64().max(1e-7));
            n = ((n as f64 * factor).ceil() as u64).clamp(n + 1, DRAW_MAX_RUN);
        }
    }

    fn release(mut self) {
        if let Some(Ok(tex)) = self.tex.take() {
            for v in tex.views {
                let _ = self.ctx.sampler_view_destroy(v);
            }
            for t in tex.textures {
                self.screen.resource_destroy(t);
            }
        }
        let _ = self.finish();
        drop(self.ctx);
        for r in self.owned {
            self.screen.resource_destroy(r);
        }
    }
}

struct ScenarioResult {
    scenario: Scenario,
    run: Result<DrawRun, String>,
}

struct DrawReport {
    device: String,
    depth: String,
    duration: Duration,
    lp_num_threads: Option<String>,
    /// Whether each job ran in its own child process.
    isolated: bool,
    /// `GLIBC_TUNABLES` as the (last) child reported it, or this
    /// process's in process.
    glibc_tunables: Option<String>,
    results: Vec<ScenarioResult>,
    /// `None` when scenario 1 was not asked for.
    noop: Option<Result<DrawRun, String>>,
}

/// One unit of work of `pipe-bench draw`: a scenario on pipe-vk, or the
/// noop baseline (scenario 1 on the no-op driver).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DrawJob {
    Vk(Scenario),
    Noop,
}

impl DrawJob {
    fn arg(self) -> String {
        match self {
            DrawJob::Vk(s) => s.number().to_string(),
            DrawJob::Noop => "noop".into(),
        }
    }

    fn parse(arg: &str) -> Option<DrawJob> {
        if arg == "noop" {
            return Some(DrawJob::Noop);
        }
        let n: usize = arg.parse().ok()?;
        Scenario::ALL
            .get(n.checked_sub(1)?)
            .map(|s| DrawJob::Vk(*s))
    }

    fn label(self) -> String {
        match self {
            DrawJob::Vk(s) => format!("{} {}", s.number(), s.label()),
            DrawJob::Noop => "noop baseline, scenario 1".into(),
        }
    }
}

/// What one job measured; `run` is `Err` when the scenario was skipped.
struct JobOutcome {
    device: String,
    depth: String,
    /// The child's `GLIBC_TUNABLES` as it reported it (`None`: in
    /// process, or unset).
    glibc_tunables: Option<String>,
    run: Result<DrawRun, String>,
}

/// Runs one job on a fresh screen and context in this process. `Err`:
/// the common setup failed (no device, no render target, ...). `event`
/// hears `("device", name)`, `("depth", what)` and `("run", draws)` as
/// they become known (the child prints them at once, so that the parent
/// still knows them if the driver crashes).
fn draw_job(
    device: &Option<String>,
    validation: bool,
    duration: Duration,
    job: DrawJob,
    event: &mut dyn FnMut(&str, &str),
) -> Result<JobOutcome, String> {
    let (screen, scenario): (Arc<dyn Screen>, Scenario) = match job {
        DrawJob::Vk(s) => (
            pipe_vk::create_screen(&ScreenOptions {
                no_draw_merge: Some(s.no_merge()),
                no_dynamic_blend: Some(s == Scenario::BlendBaked),
                no_dynamic_vertex_input: Some(s == Scenario::VertexElementsBaked),
                no_cb0_push_offset: Some(s == Scenario::UserConstantsDescriptor),
                no_query_in_rendering: Some(s == Scenario::OcclusionQueryOutside),
                ..options(device, validation, false)
            })
            .map_err(pipe("create_screen"))?,
            s,
        ),
        DrawJob::Noop => (ValidatingScreen::new(NoopScreen::new()), Scenario::Arrays),
    };
    let device = screen.name().to_string();
    event("device", &device);
    let mut rig = DrawRig::new(screen).map_err(|e| format!("draw setup: {e}"))?;
    let depth = rig.depth.clone();
    event("depth", &depth);
    let run = rig.measure(scenario, duration, &mut |n| event("run", &n.to_string()));
    rig.release();
    Ok(JobOutcome {
        device,
        depth,
        glibc_tunables: None,
        run,
    })
}

/// Tabs and newlines would break the child's line format.
fn one_line(s: &str) -> String {
    s.replace(['\t', '\n', '\r'], " ")
}

/// `pipe-bench draw --child JOB`: runs the job and prints, one line each
/// as it happens, `device\tNAME`, `depth\tWHAT`, `run\tDRAWS` before each
/// timed run, and at the end `result\tok\tDRAWS\tNANOS` or
/// `result\tskip\tREASON` (or `fatal\tREASON`, exit 1) on stdout.
fn draw_child(device: &Option<String>, validation: bool, duration_ms: u64, job: &str) -> ExitCode {
    let Some(job) = DrawJob::parse(job) else {
        eprintln!("pipe-bench: --child: no job {job:?}");
        return ExitCode::FAILURE;
    };
    let duration = Duration::from_millis(duration_ms.max(1));
    let mut event = |key: &str, value: &str| {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{key}\t{}", one_line(value));
        let _ = out.flush();
    };
    // What glibc read at this process's start (`--pin-malloc-trim`).
    event(
        "glibc_tunables",
        &std::env::var("GLIBC_TUNABLES").unwrap_or_default(),
    );
    let mut out = String::new();
    let code = match draw_job(device, validation, duration, job, &mut event) {
        Ok(o) => {
            match o.run {
                Ok(r) => {
                    let _ = writeln!(out, "result\tok\t{}\t{}", r.draws, r.elapsed.as_nanos());
                }
                Err(e) => {
                    let _ = writeln!(out, "result\tskip\t{}", one_line(&e));
                }
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            let _ = writeln!(out, "fatal\t{}", one_line(&e));
            ExitCode::FAILURE
        }
    };
    let _ = std::io::stdout().lock().write_all(out.as_bytes());
    code
}

/// glibc tunables of `--pin-malloc-trim`: a fixed trim threshold (256
/// MiB) in place of the dynamic one, and the mmap threshold at the
/// dynamic one's ceiling (32 MiB): setting the trim threshold alone fixes
/// the mmap threshold at 128 KiB.
const PINNED_MALLOC_TRIM: &str =
    "glibc.malloc.trim_threshold=268435456:glibc.malloc.mmap_threshold=33554432";

/// How `bench_draw` runs its jobs.
#[derive(Clone, Copy)]
struct DrawProcesses {
    in_process: bool,
    pin_malloc_trim: bool,
}

impl DrawProcesses {
    /// The children's `GLIBC_TUNABLES`: the inherited value, with the
    /// pinned trim threshold appended when asked for.
    fn glibc_tunables(self) -> Option<String> {
        let inherited = std::env::var("GLIBC_TUNABLES")
            .ok()
            .filter(|t| !t.is_empty());
        if !self.pin_malloc_trim {
            return inherited;
        }
        Some(match inherited {
            Some(t) => format!("{t}:{PINNED_MALLOC_TRIM}"),
            None => PINNED_MALLOC_TRIM.to_string(),
        })
    }
}

/// Runs one job in a child process (`pipe-bench draw --child JOB`), so that
/// a crash in the driver skips that job only.
fn draw_job_isolated(
    device: &Option<String>,
    validation: bool,
    duration_ms: u64,
    job: DrawJob,
    glibc_tunables: Option<&str>,
) -> Result<JobOutcome, String> {
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let mut cmd = std::process::Command::new(exe);
    if let Some(t) = glibc_tunables {
        cmd.env("GLIBC_TUNABLES", t);
    }
    if let Some(d) = device {
        cmd.arg("--device").arg(d);
    }
    if validation {
        cmd.arg("--validation");
    }
    cmd.arg("draw")
        .arg("--duration-ms")
        .arg(duration_ms.to_string())
        .arg("--child")
        .arg(job.arg());
    let out = cmd
        .output()
        .map_err(|e| format!("running a child pipe-bench: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut outcome = JobOutcome {
        device: String::new(),
        depth: String::new(),
        glibc_tunables: None,
        run: Err(String::new()),
    };
    let mut result = None;
    let mut last_run = None;
    for line in stdout.lines() {
        let mut f = line.split('\t');
        match (f.next(), f.next(), f.next(), f.next()) {
            (Some("run"), Some(n), ..) => last_run = Some(n.to_string()),
            (Some("device"), Some(d), ..) => outcome.device = d.to_string(),
            (Some("depth"), Some(d), ..) => outcome.depth = d.to_string(),
            (Some("glibc_tunables"), Some(t), ..) if !t.is_empty() => {
                outcome.glibc_tunables = Some(t.to_string())
            }
            (Some("fatal"), Some(e), ..) => return Err(e.to_string()),
            (Some("result"), Some("skip"), Some(e), _) => result = Some(Err(e.to_string())),
            (Some("result"), Some("ok"), Some(n), Some(ns)) => {
                let run = n
                    .parse()
                    .ok()
                    .zip(ns.parse().ok())
                    .map(|(draws, ns)| DrawRun {
                        draws,
                        elapsed: Duration::from_nanos(ns),
                    });
                result = Some(run.ok_or_else(|| format!("child printed a bad result: {line:?}")));
            }
            _ => {}
        }
    }
    outcome.run = result.unwrap_or_else(|| {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let tail = stderr.lines().rev().find(|l| !l.trim().is_empty());
        Err(format!(
            "the child process died ({}) {}{}",
            out.status,
            match &last_run {
                Some(n) => format!("during a timed run of {n} draws (one batch)"),
                None => "before its first timed run".into(),
            },
            tail.map(|t| format!("; last stderr line: {}", t.trim()))
                .unwrap_or_default()
        ))
    });
    Ok(outcome)
}

fn bench_draw(
    device: &Option<String>,
    validation: bool,
    duration_ms: u64,
    only: &[usize],
    processes: DrawProcesses,
) -> Result<DrawReport, String> {
    if duration_ms == 0 {
        return Err("--duration-ms must be at least 1".into());
    }
    let in_process = processes.in_process;
    if in_process && processes.pin_malloc_trim {
        return Err(
            "--pin-malloc-trim sets the children's GLIBC_TUNABLES, which glibc reads at \
             start; drop --in-process, or set GLIBC_TUNABLES=glibc.malloc.trim_threshold=N \
             for this process yourself"
                .into(),
        );
    }
    let glibc_tunables = processes.glibc_tunables();
    if let Some(bad) = only.iter().find(|&&n| n == 0 || n > Scenario::ALL.len()) {
        return Err(format!(
            "--scenarios: no scenario {bad} (1..={})",
            Scenario::ALL.len()
        ));
    }
    let wanted = |s: Scenario| only.is_empty() || only.contains(&s.number());
    let mut jobs: Vec<DrawJob> = Scenario::ALL
        .into_iter()
        .filter(|s| wanted(*s))
        .map(DrawJob::Vk)
        .collect();
    if wanted(Scenario::Arrays) {
        jobs.push(DrawJob::Noop);
    }
    let duration = Duration::from_millis(duration_ms);
    let mut report = DrawReport {
        device: String::new(),
        depth: String::new(),
        duration,
        lp_num_threads: std::env::var("LP_NUM_THREADS").ok(),
        isolated: !in_process,
        // In process: this process's own; otherwise what the children
        // report they started with.
        glibc_tunables: if in_process {
            glibc_tunables.clone()
        } else {
            None
        },
        results: Vec::new(),
        noop: None,
    };
    for job in jobs {
        eprint!("pipe-bench draw: {} ... ", job.label());
        let outcome = if in_process {
            draw_job(device, validation, duration, job, &mut |_, _| {})
        } else {
            draw_job_isolated(
                device,
                validation,
                duration_ms,
                job,
                glibc_tunables.as_deref(),
            )
        };
        let outcome = match outcome {
            Ok(o) => o,
            Err(e) => {
                eprintln!("failed");
                return Err(format!("{}: {e}", job.label()));
            }
        };
        match &outcome.run {
            Ok(r) => eprintln!("{:.1} k draws/s", r.k_per_s()),
            Err(e) => eprintln!("skipped: {e}"),
        }
        // The first child that reported (one that failed early did not).
        if !in_process && report.glibc_tunables.is_none() {
            report.glibc_tunables = outcome.glibc_tunables.clone();
        }
        match job {
            DrawJob::Vk(scenario) => {
                if report.device.is_empty() {
                    report.device = outcome.device;
                    report.depth = outcome.depth;
                }
                report.results.push(ScenarioResult {
                    scenario,
                    run: outcome.run,
                });
            }
            DrawJob::Noop => report.noop = Some(outcome.run),
        }
    }
    Ok(report)
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else {
        0.0
    }
}

impl DrawReport {
    /// `(merged scenario, the same with merging off, rate ratio)` for each
    /// pair that ran.
    fn merging(&self) -> Vec<(Scenario, Scenario, f64)> {
        let rate = |s: Scenario| {
            self.results
                .iter()
                .find(|r| r.scenario == s)
                .and_then(|r| r.run.as_ref().ok())
                .map(DrawRun::k_per_s)
        };
        [
            (Scenario::Arrays, Scenario::ArraysNoMerge),
            (Scenario::Elements, Scenario::ElementsNoMerge),
            (Scenario::Blend, Scenario::BlendBaked),
            (Scenario::VertexElements, Scenario::VertexElementsBaked),
            (Scenario::UserConstants, Scenario::UserConstantsDescriptor),
            (Scenario::OcclusionQuery, Scenario::OcclusionQueryOutside),
        ]
        .into_iter()
        .filter_map(|(on, off)| Some((on, off, ratio(rate(on)?, rate(off)?))))
        .collect()
    }

    fn arrays(&self) -> Option<DrawRun> {
        self.results
            .iter()
            .find(|r| r.scenario == Scenario::Arrays)
            .and_then(|r| r.run.as_ref().ok().copied())
    }

    fn human(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "device: {}", self.device);
        let _ = writeln!(
            s,
            "target: {DRAW_SIZE}x{DRAW_SIZE} R8G8B8A8_UNORM, depth/stencil {}; degenerate triangles; \
             each figure is one run of >= {} ms (draws + flush + fence_finish); LP_NUM_THREADS={}; \
             GLIBC_TUNABLES={}{}",
            self.depth,
            self.duration.as_millis(),
            self.lp_num_threads.as_deref().unwrap_or("unset"),
            self.glibc_tunables.as_deref().unwrap_or("unset"),
            if !self
                .glibc_tunables
                .as_deref()
                .is_some_and(|t| t.contains("glibc.malloc.trim_threshold="))
            {
                " (glibc's dynamic trim threshold: scenarios 4 and 5 are bimodal, see --pin-malloc-trim)"
            } else {
                ""
            }
        );
        let _ = writeln!(s);
        let _ = writeln!(
            s,
            "pipe-vk (through ValidatingScreen, as a frontend sees it; {}):",
            if self.isolated {
                "each scenario in its own process, on a fresh screen"
            } else {
                "all scenarios in this process, each on a fresh screen"
            }
        );
        let _ = writeln!(
            s,
            "  # scenario                              k draws/s   us/draw       draws   time ms"
        );
        for r in &self.results {
            match &r.run {
                Ok(run) => {
                    let _ = writeln!(
                        s,
                        "  {} {:<38} {:>9.1} {:>9.3} {:>11} {:>9.1}",
                        r.scenario.number(),
                        r.scenario.label(),
                        run.k_per_s(),
                        run.us_per_draw(),
                        run.draws,
                        run.elapsed.as_secs_f64() * 1e3
                    );
                }
                Err(e) => {
                    let _ = writeln!(
                        s,
                        "  {} {:<38} SKIPPED: {e}",
                        r.scenario.number(),
                        r.scenario.label()
                    );
                }
            }
        }
        let merging = self.merging();
        if !merging.is_empty() {
            let _ = writeln!(s);
            let _ = writeln!(
                s,
                "draw merging (pipe_vk::merge), dynamic blend state, dynamic vertex input and \
                 user constants at a pushed offset, against the same scenario without them in \
                 this run:"
            );
            for (on, off, r) in merging {
                let _ = writeln!(
                    s,
                    "  scenario {} / scenario {} = {r:.2}x",
                    on.number(),
                    off.number()
                );
            }
        }
        match &self.noop {
            None => {}
            Some(Err(e)) => {
                let _ = writeln!(s);
                let _ = writeln!(s, "noop baseline (same run): FAILED: {e}");
            }
            Some(Ok(n)) => {
                let _ = writeln!(s);
                let _ = writeln!(
                    s,
                    "baseline, measured in the same run: the noop driver (NoopScreen in ValidatingScreen), scenario 1"
                );
                let _ = writeln!(
                    s,
                    "  noop     {:>11.1} k draws/s  {:>9.3} us/draw  ({} draws in {:.1} ms)",
                    n.k_per_s(),
                    n.us_per_draw(),
                    n.draws,
                    n.elapsed.as_secs_f64() * 1e3
                );
                if let Some(a) = self.arrays() {
                    let _ = writeln!(
                        s,
                        "  pipe-vk  {:>11.1} k draws/s  {:>9.3} us/draw  = {:.4}x the noop rate; the frontend interface \
                         (validation + dispatch) is {:.2} % of pipe-vk's time per draw",
                        a.k_per_s(),
                        a.us_per_draw(),
                        ratio(a.k_per_s(), n.k_per_s()),
                        ratio(n.us_per_draw(), a.us_per_draw()) * 100.0
                    );
                }
            }
        }
        let _ = writeln!(s);
        let _ = writeln!(
            s,
            "anchors, measured on different runs ({ANCHORS_SOURCE}; same kind of machine, drawoverhead medians of 3);"
        );
        let _ = writeln!(
            s,
            "ratio = pipe-vk / anchor. Change scenarios map to the closest drawoverhead test, which binds 8/8/8 textures"
        );
        let _ = writeln!(
            s,
            "(#5 also switches vertex elements), so those anchors do more work per draw than pipe-bench does."
        );
        let _ = writeln!(
            s,
            "  # pipe-vk   raw lavapipe floor                zink (tc)       zink no-tc      llvmpipe        drawoverhead test"
        );
        for r in &self.results {
            let a = r.scenario.anchor();
            let Ok(run) = &r.run else {
                let _ = writeln!(s, "  {} skipped", r.scenario.number());
                continue;
            };
            let k = run.k_per_s();
            let cell = |v: f64| format!("{v:>5.0} {:>6.3}x", ratio(k, v));
            let _ = writeln!(
                s,
                "  {} {:>7.1}   {:<21} {}   {}   {}   {}   {}",
                r.scenario.number(),
                k,
                a.raw_what,
                cell(a.raw),
                cell(a.zink),
                cell(a.zink_no_tc),
                cell(a.llvmpipe),
                a.test
            );
        }
        s
    }

    fn json(&self) -> String {
        let scenarios: Vec<String> = self
            .results
            .iter()
            .map(|r| {
                let a = r.scenario.anchor();
                let head = format!(
                    "{{\"number\": {}, \"key\": \"{}\", \"label\": {}",
                    r.scenario.number(),
                    r.scenario.key(),
                    json_str(r.scenario.label())
                );
                match &r.run {
                    Ok(run) => {
                        let k = run.k_per_s();
                        format!(
                            "{head}, {}, \"anchors\": {{\"measured\": \"different runs\", \"test\": {}, \
                             \"raw_floor\": {{\"what\": {}, \"k_draws_s\": {}, \"ratio\": {:.4}}}, \
                             \"zink\": {{\"k_draws_s\": {}, \"ratio\": {:.4}}}, \
                             \"zink_no_tc\": {{\"k_draws_s\": {}, \"ratio\": {:.4}}}, \
                             \"llvmpipe\": {{\"k_draws_s\": {}, \"ratio\": {:.4}}}}}}}",
                            run.json(),
                            json_str(a.test),
                            json_str(a.raw_what),
                            a.raw,
                            ratio(k, a.raw),
                            a.zink,
                            ratio(k, a.zink),
                            a.zink_no_tc,
                            ratio(k, a.zink_no_tc),
                            a.llvmpipe,
                            ratio(k, a.llvmpipe)
                        )
                    }
                    Err(e) => format!("{head}, \"skipped\": {}}}", json_str(e)),
                }
            })
            .collect();
        let merging: Vec<String> = self
            .merging()
            .into_iter()
            .map(|(on, off, r)| {
                format!(
                    "{{\"measured\": \"same run\", \"merged\": {}, \"unmerged\": {}, \"ratio\": {r:.4}}}",
                    on.number(),
                    off.number()
                )
            })
            .collect();
        let noop = match &self.noop {
            None => "null".to_string(),
            Some(Ok(n)) => {
                let r = self
                    .arrays()
                    .map(|a| format!("{:.4}", ratio(a.k_per_s(), n.k_per_s())))
                    .unwrap_or_else(|| "null".into());
                format!(
                    "{{\"measured\": \"same run\", \"scenario\": 1, {}, \"pipe_vk_ratio\": {r}}}",
                    n.json()
                )
            }
            Some(Err(e)) => format!("{{\"failed\": {}}}", json_str(e)),
        };
        format!(
            "{{\"benchmark\": \"draw\", \"device\": {}, \"width\": {DRAW_SIZE}, \"height\": {DRAW_SIZE}, \
             \"depth\": {}, \"duration_ms\": {}, \"lp_num_threads\": {}, \"isolated\": {}, \
             \"glibc_tunables\": {}, \"anchors_source\": {}, \
             \"scenarios\": [{}], \"merging\": [{}], \"noop_baseline\": {}}}\n",
            json_str(&self.device),
            json_str(&self.depth),
            self.duration.as_millis(),
            self.lp_num_threads
                .as_deref()
                .map(json_str)
                .unwrap_or_else(|| "null".into()),
            self.isolated,
            self.glibc_tunables
                .as_deref()
                .map(json_str)
                .unwrap_or_else(|| "null".into()),
            json_str(ANCHORS_SOURCE),
            scenarios.join(", "),
            merging.join(", "),
            noop
        )
    }
}
