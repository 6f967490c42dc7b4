//! pipe-info: what glxinfo/vulkaninfo are for GL/Vulkan, for pipe-vk.
//!
//! - `pipe-info` prints the selected device, its caps and a format table.
//! - `pipe-info --list` lists every Vulkan device and its selector index.
//! - `pipe-info aux-diagram [--usage U]` prints Graphviz DOT of the aux
//!   state machine (`pipe_core::aux`), generated from the code.
//!
//! Device selection is `--device` or `PIPE_VK_DEVICE`, as everywhere.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use pipe_core::aux::AuxUsage;
use pipe_core::resource::{BindFlags, Target};
use pipe_core::{Format, Screen};
use pipe_vk::{ScreenOptions, VkScreen};

#[derive(Parser)]
#[command(
    name = "pipe-info",
    about = "Print pipe-vk device, caps and format support"
)]
struct Cli {
    /// Device selector (index or name substring); default: PIPE_VK_DEVICE.
    #[arg(long, global = true)]
    device: Option<String>,
    /// List the Vulkan devices and exit.
    #[arg(long)]
    list: bool,
    /// Enable the Khronos validation layer (with synchronization validation).
    #[arg(long, global = true)]
    validation: bool,
    /// Skip the format table.
    #[arg(long)]
    no_formats: bool,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Print Graphviz DOT of the aux state machine.
    AuxDiagram {
        /// Only the transitions of this usage (e.g. ccs_e, hiz, mcs).
        #[arg(long)]
        usage: Option<String>,
    },
}

fn main() -> ExitCode {
    // `pipe-info | head` must not panic on a closed pipe: restore the default
    // SIGPIPE behaviour of command-line tools.
    // SAFETY: called first thing in main, before any other thread exists.
    unsafe {
        libc_sigpipe_default();
    }
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("pipe-info: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<(), String> {
    if let Some(Command::AuxDiagram { usage }) = cli.command {
        let usage = usage
            .map(|u| u.parse::<AuxUsage>().map_err(|e| e.to_string()))
            .transpose()?;
        print!("{}", pipe_core::aux::to_dot(usage));
        return Ok(());
    }
    if cli.list {
        let devices = VkScreen::list_devices(cli.validation).map_err(|e| e.to_string())?;
        for (i, name, ty) in devices {
            println!("{i}: {name} ({ty})");
        }
        return Ok(());
    }
    let opts = ScreenOptions {
        device: cli.device,
        validation: Some(cli.validation),
        ..Default::default()
    };
    let screen = VkScreen::new(&opts).map_err(|e| e.to_string())?;
    print_caps(&*screen);
    println!("\nMemory heaps (usage / budget / size):");
    for h in screen.memory_budget() {
        println!(
            "  heap {}: {} / {} / {} MiB",
            h.heap,
            h.usage >> 20,
            h.budget >> 20,
            h.size >> 20
        );
    }
    let (path, loaded, lookups, created) = screen.pipeline_cache_info();
    println!("\nPipeline cache:");
    match path {
        Some(p) => println!("  file: {} ({loaded} bytes loaded)", p.display()),
        None => println!("  on disk: disabled (PIPE_VK_CACHE=0 or no cache directory)"),
    }
    let hits = lookups.saturating_sub(created);
    let rate = if lookups > 0 {
        100.0 * hits as f64 / lookups as f64
    } else {
        0.0
    };
    println!(
        "  this process: {lookups} lookups, {created} pipelines created, hit rate {rate:.1} %"
    );
    println!("\nEnabled device extensions:");
    for e in screen.enabled_extensions() {
        println!("    {e}");
    }
    if !cli.no_formats {
        print_formats(&*screen);
    }
    Ok(())
}

fn print_caps(s: &dyn Screen) {
    let c = s.caps();
    println!("Device: {}", c.device_name);
    println!("Driver: {} ({})", c.driver_name, c.driver_info);
    println!("Type: {:?}", c.device_type);
    println!(
        "Vulkan API: {}.{}.{}",
        c.api_version.0, c.api_version.1, c.api_version.2
    );
    println!(
        "Vendor/device id: {:#06x}/{:#06x}",
        c.vendor_id, c.device_id
    );
    println!("\nCaps:");
    // The pretty Debug form of the caps struct is the complete list; fold
    // each top-level field (4-space indent) onto one line.
    let text = format!("{c:#?}");
    let mut fields: Vec<String> = Vec::new();
    for line in text.lines().skip(1) {
        let t = line.trim_start();
        let closes = t.starts_with(']') || t.starts_with(')') || t.starts_with('}');
        if line.starts_with("    ") && !line.starts_with("     ") && !closes {
            fields.push(line.trim().to_string());
        } else if let Some(last) = fields.last_mut() {
            last.push(' ');
            last.push_str(line.trim());
        }
    }
    for f in fields {
        let f = f.trim_end_matches(',');
        if !f.contains(": ") || f.starts_with("shader:") || f.starts_with("backend_features:") {
            continue;
        }
        println!("  {f}");
    }
    println!("\nShader stages:");
    for (stage, sc) in pipe_core::state::ShaderStage::ALL
        .iter()
        .zip(c.shader.iter())
    {
        println!(
            "  {:3}: supported={} inputs={} outputs={} ubos={} samplers={} views={} ssbos={} images={}",
            stage.short_name(),
            sc.supported,
            sc.max_inputs,
            sc.max_outputs,
            sc.max_const_buffers,
            sc.max_texture_samplers,
            sc.max_sampler_views,
            sc.max_shader_buffers,
            sc.max_shader_images
        );
    }
}

fn print_formats(s: &dyn Screen) {
    println!("\nFormat support (S=sampler view, R=render target, B=blendable, Z=depth/stencil, I=image, V=vertex buffer, T=texture buffer, M=4x MSAA):");
    let mut n = 0;
    for f in Format::all() {
        let tex = |b| s.is_format_supported(f, Target::Texture2D, 1, 1, b);
        let flags = [
            ('S', tex(BindFlags::SAMPLER_VIEW)),
            ('R', tex(BindFlags::RENDER_TARGET)),
            ('B', tex(BindFlags::RENDER_TARGET | BindFlags::BLENDABLE)),
            ('Z', tex(BindFlags::DEPTH_STENCIL)),
            ('I', tex(BindFlags::SHADER_IMAGE)),
            (
                'V',
                s.is_format_supported(f, Target::Buffer, 1, 1, BindFlags::VERTEX_BUFFER),
            ),
            (
                'T',
                s.is_format_supported(f, Target::Buffer, 1, 1, BindFlags::SAMPLER_VIEW),
            ),
            (
                'M',
                s.is_format_supported(f, Target::Texture2D, 4, 4, BindFlags::SAMPLER_VIEW)
                    && (tex(BindFlags::RENDER_TARGET) || tex(BindFlags::DEPTH_STENCIL)),
            ),
        ];
        if flags.iter().all(|(_, b)| !b) {
            continue;
        }
        n += 1;
        let col: String = flags
            .iter()
            .map(|(c, b)| if *b { *c } else { '-' })
            .collect();
        println!("  {col}  {}", f.name());
    }
    println!(
        "  ({n} of {} formats supported in some way)",
        Format::all().len()
    );
}

/// Resets SIGPIPE to its default action (terminate quietly), as C tools have.
///
/// # Safety
/// Must run before other threads are started.
unsafe fn libc_sigpipe_default() {
    extern "C" {
        fn signal(sig: i32, handler: usize) -> usize;
    }
    const SIGPIPE: i32 = 13;
    const SIG_DFL: usize = 0;
    // SAFETY: signal(2) with SIG_DFL is async-signal-safe and valid at any
    // time; the caller guarantees no thread races on signal dispositions.
    unsafe {
        signal(SIGPIPE, SIG_DFL);
    }
}
