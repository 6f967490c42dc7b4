//! Speed of the shader chain (a benchmark, not a test):
//! `cargo bench -p spirv-gen --bench speed`.
//!
//! Reports µs per stage (parse, validate, lower, optimize, emit) for a
//! 1000-instruction fragment shader, and emission time for 1k, 10k and
//! 100k instructions to show that emission is linear.

use spirv_gen::emit::{self, Target};
use spirv_gen::passes::{self, VariantKey};
use spirv_gen::{text, validate};
use std::time::Instant;

/// A fragment shader of about `n` instructions: ALU chains, texture
/// samples, UBO loads, and an `if` every 50 instructions.
fn shader(n: usize) -> String {
    let mut s = String::from(
        "shader fragment\nin @uv : f32x2 location=0\nin @col : f32x4 location=1 slot=col0\nout @frag : f32x4 location=0\ntexture @t slot=0 dim=2d sampled=float\nubo @u slot=0 size=256\nlocal @acc : f32x4\nfn main {\n",
    );
    let mut v = 0usize;
    let line = |s: &mut String, depth: usize, text: String| {
        for _ in 0..depth {
            s.push_str("  ");
        }
        s.push_str(&text);
        s.push('\n');
    };
    line(&mut s, 1, format!("%{v} : f32x2 = load @uv"));
    let uv = v;
    v += 1;
    line(&mut s, 1, format!("%{v} : f32x4 = load @col"));
    line(&mut s, 1, format!("store @acc, %{v}"));
    v += 1;
    let mut count = 3;
    while count < n {
        let a = v;
        line(&mut s, 1, format!("%{a} : f32x4 = load @acc"));
        line(
            &mut s,
            1,
            format!("%{} : f32x4 = tex @t, coord=%{uv}", a + 1),
        );
        line(
            &mut s,
            1,
            format!("%{} : u32 = const {}", a + 2, (count % 16) * 16),
        );
        line(
            &mut s,
            1,
            format!("%{} : f32x4 = load_ubo @u, %{}", a + 3, a + 2),
        );
        line(
            &mut s,
            1,
            format!("%{} : f32x4 = ffma %{a}, %{}, %{}", a + 4, a + 1, a + 3),
        );
        line(
            &mut s,
            1,
            format!("%{} : f32 = swizzle %{}, x", a + 5, a + 4),
        );
        line(&mut s, 1, format!("%{} : f32 = const 0.5", a + 6));
        line(
            &mut s,
            1,
            format!("%{} : bool = flt %{}, %{}", a + 7, a + 5, a + 6),
        );
        line(&mut s, 1, format!("if %{} {{", a + 7));
        line(
            &mut s,
            2,
            format!("%{} : f32x4 = fmul %{}, %{}", a + 8, a + 4, a + 4),
        );
        line(&mut s, 2, format!("store @acc, %{}", a + 8));
        line(&mut s, 1, "} else {".into());
        line(&mut s, 2, format!("%{} : f32x4 = fsqrt %{}", a + 9, a + 4));
        line(&mut s, 2, format!("store @acc, %{}", a + 9));
        line(&mut s, 1, "}".into());
        v += 10;
        count += 12;
    }
    line(&mut s, 1, format!("%{v} : f32x4 = load @acc"));
    line(&mut s, 1, format!("store @frag, %{v}"));
    s.push_str("}\n");
    s
}

fn time<T>(iters: u32, mut f: impl FnMut() -> T) -> f64 {
    let t = Instant::now();
    for _ in 0..iters {
        std::hint::black_box(f());
    }
    t.elapsed().as_secs_f64() * 1e6 / iters as f64
}

fn main() {
    let src = shader(1000);
    let s = text::parse(&src).unwrap();
    let n = s.instr_count();
    let key = VariantKey::parse("alpha=less:0.5,two_side,flat").unwrap();
    let iters = 200;
    let parse = time(iters, || text::parse(&src).unwrap());
    let val = time(iters, || validate::validate(&s).unwrap());
    let lower = time(iters, || {
        let mut l = s.clone();
        passes::lower(&mut l, &key).unwrap();
        l
    });
    let mut l = s.clone();
    passes::lower(&mut l, &key).unwrap();
    let opt = time(iters, || {
        let mut o = l.clone();
        passes::optimize(&mut o);
        o
    });
    passes::optimize(&mut l);
    let emit = time(iters, || emit::emit(&l, Target::Vulkan1_1).unwrap());
    println!("fragment shader, {n} instructions ({iters} iterations, µs per run):");
    println!("  parse     {parse:10.1}");
    println!("  validate  {val:10.1}");
    println!("  lower     {lower:10.1}   (clone included)");
    println!("  optimize  {opt:10.1}   (clone included)");
    println!("  emit      {emit:10.1}");
    println!("  total     {:10.1}", parse + val + lower + opt + emit);
    println!("emission vs size (vulkan1.1):");
    for size in [1_000, 10_000, 100_000] {
        let s = text::parse(&shader(size)).unwrap();
        validate::validate(&s).unwrap();
        let it = (200_000 / size).max(3) as u32;
        let us = time(it, || emit::emit(&s, Target::Vulkan1_1).unwrap());
        println!(
            "  {:7} instructions: {us:12.1} µs  ({:.3} µs/instruction)",
            s.instr_count(),
            us / s.instr_count() as f64
        );
    }
}
