//! `pipe-spirv`: compile, format and check shaders in spirv-gen's text form.
//!
//! ```text
//! pipe-spirv compile FILE.ir [-o OUT.spv] [--target vulkan1.1|vulkan1.3] [--key KEY]
//! pipe-spirv fmt FILE.ir        # prints the canonical text
//! pipe-spirv check FILE.ir      # validates; errors as FILE:line:col: error: …
//! ```
//!
//! `KEY` is a variant key in the text form of
//! `spirv_gen::passes::VariantKey::parse`, e.g. `alpha=less:0.5,clip=0x3`.
//! The exit status is nonzero on any error.

use clap::{Parser, Subcommand};
use spirv_gen::emit::Target;
use spirv_gen::passes::{self, VariantKey};
use spirv_gen::{text, validate, Error};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "pipe-spirv", about = "spirv-gen shader tool")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Parse, validate, lower, optimize and emit SPIR-V.
    Compile {
        file: PathBuf,
        /// Output file (default: FILE with the extension .spv).
        #[arg(short = 'o', long = "output")]
        output: Option<PathBuf>,
        /// vulkan1.1 (SPIR-V 1.3), vulkan1.2 (1.5) or vulkan1.3 (1.6).
        #[arg(long, default_value = "vulkan1.1")]
        target: String,
        /// Variant key, e.g. `alpha=less:0.5,clip=0x3,flat`.
        #[arg(long, default_value = "")]
        key: String,
    },
    /// Print the canonical text form.
    Fmt { file: PathBuf },
    /// Parse and validate; report errors with line:column.
    Check { file: PathBuf },
}

fn report(file: &Path, e: &Error) -> ExitCode {
    if e.loc.is_some() {
        eprintln!("{}:{e}", file.display());
    } else {
        eprintln!("{}: {e}", file.display());
    }
    ExitCode::FAILURE
}

fn read(file: &Path) -> Result<String, ExitCode> {
    std::fs::read_to_string(file).map_err(|e| {
        eprintln!("{}: error: {e}", file.display());
        ExitCode::FAILURE
    })
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Compile {
            file,
            output,
            target,
            key,
        } => {
            let Some(target) = Target::from_name(&target) else {
                eprintln!("error: unknown target {target:?} (vulkan1.1, vulkan1.2, vulkan1.3)");
                return ExitCode::FAILURE;
            };
            let key = match VariantKey::parse(&key) {
                Ok(k) => k,
                Err(e) => {
                    eprintln!("{e}");
                    return ExitCode::FAILURE;
                }
            };
            let src = match read(&file) {
                Ok(s) => s,
                Err(c) => return c,
            };
            let words = match spirv_gen::compile(&src, &key, target) {
                Ok(w) => w,
                Err(e) => return report(&file, &e),
            };
            let out = output.unwrap_or_else(|| file.with_extension("spv"));
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            if let Err(e) = std::fs::write(&out, bytes) {
                eprintln!("{}: error: {e}", out.display());
                return ExitCode::FAILURE;
            }
            ExitCode::SUCCESS
        }
        Cmd::Fmt { file } => {
            let src = match read(&file) {
                Ok(s) => s,
                Err(c) => return c,
            };
            match text::parse(&src) {
                Ok(s) => {
                    print!("{}", text::print(&s));
                    ExitCode::SUCCESS
                }
                Err(e) => report(&file, &e),
            }
        }
        Cmd::Check { file } => {
            let src = match read(&file) {
                Ok(s) => s,
                Err(c) => return c,
            };
            match text::parse(&src).and_then(|s| validate::validate(&s).map(|_| s)) {
                Ok(s) => {
                    // Lowering with the default key and emission must work too.
                    let mut l = s.clone();
                    if let Err(e) = passes::lower(&mut l, &VariantKey::default())
                        .and_then(|_| spirv_gen::emit::emit(&l, Target::Vulkan1_1).map(|_| ()))
                    {
                        return report(&file, &e);
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => report(&file, &e),
            }
        }
    }
}
