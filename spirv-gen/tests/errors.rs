//! Bad input gives errors, never panics: malformed text (with line:col),
//! ill-typed IR, stage-illegal intrinsics, broken control flow.
use spirv_gen::text::parse;
use spirv_gen::validate::validate;
use std::path::Path;

fn parse_err(src: &str) -> String {
    match parse(src) {
        Ok(_) => panic!("parsed:\n{src}"),
        Err(e) => e.to_string(),
    }
}

fn invalid(src: &str) -> String {
    let s = parse(src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    match validate(&s) {
        Ok(()) => panic!("validated:\n{src}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn parse_errors_have_positions() {
    assert_eq!(
        parse_err(""),
        "1:1: error: empty input: expected `shader <stage>`"
    );
    assert_eq!(parse_err("shader pixel\n"), "1:8: error: unknown stage");
    let e = parse_err("shader fragment\nout @o : f32x5 location=0\nfn main {\n}\n");
    assert_eq!(e, "2:10: error: unknown type");
    let e = parse_err(
        "shader fragment\nfn main {\n  %0 : f32 = const 1.0\n  %1 : f32 = fbogus %0\n}\n",
    );
    assert_eq!(e, "4:14: error: unknown operation `fbogus`");
    let e = parse_err("shader fragment\nfn main {\n  %0 : f32 = const 1.0, \n}\n");
    assert!(e.starts_with("3:"), "{e}");
    let e = parse_err("shader fragment\nfn main {\n  %0 : f32 = load @nope\n}\n");
    assert_eq!(e, "3:19: error: unknown variable @nope");
    let e = parse_err("shader fragment\nfn main {\n  if %0 {\n");
    assert!(e.contains("missing `}`"), "{e}");
    let e = parse_err("shader fragment\nfn main {\n  %0 : u8 = const 1\n}\n");
    assert_eq!(e, "3:8: error: unknown type");
    let e = parse_err("shader fragment\nfn main {\n  %0 : i16 = const 40000\n}\n");
    assert!(
        e.starts_with("3:20:") && e.contains("bad i16 literal"),
        "{e}"
    );
    let e = parse_err("shader fragment\nfn main {\n}\nextra\n");
    assert_eq!(e, "4:1: error: unexpected text after the end of `fn main`");
    let e = parse_err("shader fragment\nfn main {\n  %99999999999 : f32 = undef\n}\n");
    assert!(e.starts_with("3:3:"), "{e}");
    let e = parse_err("shader fragment\nfn main {\n  $\n}\n");
    assert_eq!(e, "3:3: error: unexpected character '$'");
}

#[test]
fn type_errors() {
    let e = invalid("shader fragment\nout @o : f32x4 location=0\nfn main {\n  %0 : f32 = const 1.0\n  %1 : i32 = const 1\n  %2 : f32 = fadd %0, %1\n}\n");
    assert_eq!(
        e,
        "6:3: error: fadd: bad operand types (f32, i32) for result f32 (in %2)"
    );
    let e = invalid("shader fragment\nout @o : f32x4 location=0\nfn main {\n  %0 : f32 = const 1.0\n  store @o, %0\n}\n");
    assert!(
        e.starts_with("5:3:") && e.contains("@o has type f32x4"),
        "{e}"
    );
    let e = invalid("shader fragment\nfn main {\n  %0 : f32x2 = const 1.0\n}\n");
    assert!(e.contains("constant has 1 components"), "{e}");
    let e = invalid("shader fragment\nfn main {\n  %0 : f32 = const 1.0\n  if %0 {\n  }\n}\n");
    assert_eq!(e, "4:3: error: if condition %0 must be bool, not f32");
}

#[test]
fn dominance_errors() {
    let e = invalid("shader fragment\nfn main {\n  %0 : bool = const true\n  if %0 {\n    %1 : f32 = const 1.0\n  }\n  %2 : f32 = fneg %1\n}\n");
    assert_eq!(e, "7:3: error: %1 does not dominate this use (in %2)");
    let e =
        invalid("shader fragment\nfn main {\n  %1 : f32 = fneg %0\n  %0 : f32 = const 1.0\n}\n");
    assert!(e.contains("%0 is used but never defined before"), "{e}");
    let e =
        invalid("shader fragment\nfn main {\n  %0 : f32 = const 1.0\n  %0 : f32 = const 2.0\n}\n");
    assert!(e.contains("defined twice"), "{e}");
}

#[test]
fn control_flow_errors() {
    let e = invalid("shader fragment\nfn main {\n  break\n}\n");
    assert_eq!(e, "3:3: error: break outside of a loop");
    let e = invalid("shader vertex\nfn main {\n  discard\n}\n");
    assert_eq!(e, "3:3: error: discard outside of a fragment shader");
}

/// Arrays of arrays (`@v : T[N][M]`) only on per-vertex interface
/// variables, with clip and cull distances per vertex of 1..=8.
#[test]
fn array_of_arrays_errors() {
    let gs = "shader geometry input=triangles output=points max_vertices=1 invocations=1\n";
    let e = invalid("shader vertex\nout @o : f32x4[2][2] location=0\nfn main {\n}\n");
    assert!(e.contains("arrays of arrays only on per-vertex"), "{e}");
    let e = invalid("shader fragment\nin @i : f32x4[2][2] location=0\nfn main {\n}\n");
    assert!(e.contains("arrays of arrays only on per-vertex"), "{e}");
    let e = invalid("shader tess_eval mode=triangles spacing=equal winding=ccw\nin @p : f32x4[4][2] location=0 patch\nfn main {\n}\n");
    assert!(e.contains("arrays of arrays only on per-vertex"), "{e}");
    let e = invalid(&format!(
        "{gs}in @cd : f32[3] builtin=clip_distance\nfn main {{\n}}\n"
    ));
    assert!(e.contains("must be an array (per vertex) of arrays"), "{e}");
    let e = invalid(&format!(
        "{gs}in @cd : f32[3][9] builtin=clip_distance\nfn main {{\n}}\n"
    ));
    assert!(e.contains("arrays of 1..=8"), "{e}");
    let e = invalid(&format!(
        "{gs}in @cd : f32[4][2] builtin=cull_distance\nfn main {{\n}}\n"
    ));
    assert!(e.contains("per-vertex array must have 3 elements"), "{e}");
    let e = invalid(&format!(
        "{gs}in @p : f32x4[3][2] builtin=position\nfn main {{\n}}\n"
    ));
    assert!(e.contains("not an array of arrays"), "{e}");
    let e = invalid(&format!(
        "{gs}in @t : f32x4[3][4] location=30\nfn main {{\n}}\n"
    ));
    assert!(e.contains("location/component out of range"), "{e}");
    let e = invalid("shader geometry input=triangles output=points max_vertices=1 invocations=1\nin @t : f32x4[3][0] location=0\nfn main {\n}\n");
    assert!(e.contains("zero-length array"), "{e}");
    let e = invalid("shader vertex\nlocal @l : f32[2][2]\nfn main {\n}\n");
    assert!(e.contains("arrays of arrays only on per-vertex"), "{e}");
}

#[test]
fn stage_errors() {
    let e = invalid("shader vertex\nin @a : f32x4 location=0\nfn main {\n  %0 : f32x4 = load @a\n  %1 : f32x4 = fddx %0\n}\n");
    assert_eq!(
        e,
        "5:3: error: fddx is only legal in fragment shaders (in %1)"
    );
    let e = invalid("shader compute local_size=1,1,1\nfn main {\n  demote\n}\n");
    assert!(e.contains("only in fragment shaders"), "{e}");
    let e = invalid("shader fragment\nfn main {\n  emit_vertex\n}\n");
    assert!(e.contains("only in geometry shaders"), "{e}");
    let e = invalid("shader vertex\nin @f : f32x4 builtin=frag_coord\nfn main {\n}\n");
    assert!(
        e.contains("built-in frag_coord is not a input of vertex shaders"),
        "{e}"
    );
    let e = invalid("shader vertex\nshared @s : u32[4]\nfn main {\n}\n");
    assert!(e.contains("shared memory only in compute"), "{e}");
    let e = invalid(
        "shader fragment\nfn main {\n  barrier exec=workgroup, mem=workgroup, modes=none\n}\n",
    );
    assert!(
        e.contains("execution scope workgroup not allowed in fragment"),
        "{e}"
    );
    let e = invalid("shader vertex\ntexture @t slot=0 dim=2d sampled=float\nin @c : f32x2 location=0\nfn main {\n  %0 : f32x2 = load @c\n  %1 : f32x4 = tex @t, coord=%0\n}\n");
    assert!(e.contains("fragment shaders only"), "{e}");
    let e = invalid("shader fragment\nin @i : i32 location=0\nfn main {\n}\n");
    assert!(e.contains("integer fragment inputs must be flat"), "{e}");
    let e = invalid("shader fragment\nubo @u slot=16 size=16\nfn main {\n}\n");
    assert!(e.contains("constant buffer slot 16 out of range"), "{e}");
}

/// Every corpus file, damaged in many ways, gives Ok or Err but never panics.
#[test]
fn damaged_corpus_never_panics() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "ir") {
            continue;
        }
        let src = std::fs::read_to_string(&p).unwrap();
        let bytes = src.as_bytes();
        let mut seed = 0x9e3779b97f4a7c15u64 ^ bytes.len() as u64;
        let mut rnd = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for k in 0..60 {
            let mut b = bytes.to_vec();
            match k % 4 {
                0 => b.truncate(rnd() as usize % (b.len() + 1)),
                1 => {
                    let i = rnd() as usize % b.len();
                    b[i] = b"%@,:={}[]|x0-.\n #"[rnd() as usize % 17];
                }
                2 => {
                    let i = rnd() as usize % b.len();
                    let j = (i + rnd() as usize % 20).min(b.len());
                    b.drain(i..j);
                }
                _ => {
                    let i = rnd() as usize % b.len();
                    let j = rnd() as usize % b.len();
                    b.swap(i, j);
                }
            }
            let t = String::from_utf8_lossy(&b);
            if let Ok(s) = parse(&t) {
                if validate(&s).is_ok() {
                    let mut l = s.clone();
                    let _ = spirv_gen::passes::lower(
                        &mut l,
                        &spirv_gen::passes::VariantKey::parse(
                            "alpha=less:0.5,clip=0x3,two_side,sprite=0x1,point_size=1.0",
                        )
                        .unwrap(),
                    );
                    spirv_gen::passes::optimize(&mut l);
                    let _ = spirv_gen::emit::emit(&s, spirv_gen::emit::Target::Vulkan1_1);
                }
            }
            n += 1;
        }
    }
    assert!(n > 1000);
}

/// A time-boxed mutation fuzzer on stable Rust (the cargo-fuzz target is in
/// `fuzz/`): `FUZZ_SECS=600 cargo test -p spirv-gen --release --test errors
/// -- --ignored fuzz_for_a_while`. Same checks as the cargo-fuzz target.
#[test]
#[ignore]
fn fuzz_for_a_while() {
    let secs: u64 = std::env::var("FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(30);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut seeds: Vec<Vec<u8>> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ir"))
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    seeds.sort();
    let key = spirv_gen::passes::VariantKey::parse(
        "alpha=less:0.5,clip=0x3,two_side,flat,sprite=0x1,point_size=1.0,sample_shading,\
         polygon_stipple,lower_left_origin,pixel_center_integer,last_vertex_stage,\
             line_stipple",
    )
    .unwrap();
    let dict: &[&[u8]] = &[
        b"%",
        b"@",
        b",",
        b":",
        b"=",
        b"{",
        b"}",
        b"[",
        b"]",
        b"|",
        b"\n",
        b" ",
        b"-",
        b"0x",
        b"if %0 {\n",
        b"loop {\n",
        b"}\n",
        b"break\n",
        b"else",
        b"f32x4",
        b"i16",
        b"u64",
        b"bool",
        b"const",
        b"99999999999",
        b"1e39",
        b"-0.0",
    ];
    let start = std::time::Instant::now();
    let mut seed = 0x2545f4914f6cdd1du64;
    let mut rnd = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let (mut runs, mut parsed, mut valid) = (0u64, 0u64, 0u64);
    while start.elapsed().as_secs() < secs {
        let mut b = seeds[rnd() as usize % seeds.len()].clone();
        for _ in 0..1 + rnd() % 4 {
            if b.is_empty() {
                break;
            }
            let i = rnd() as usize % b.len();
            match rnd() % 5 {
                0 => b.truncate(i),
                1 => {
                    let d = dict[rnd() as usize % dict.len()];
                    b.splice(i..i, d.iter().copied());
                }
                2 => {
                    let j = (i + rnd() as usize % 40).min(b.len());
                    b.drain(i..j);
                }
                3 => b[i] = rnd() as u8,
                _ => {
                    let j = rnd() as usize % b.len();
                    let n = (rnd() as usize % 60).min(b.len() - j);
                    let chunk = b[j..j + n].to_vec();
                    b.splice(i..i, chunk);
                }
            }
        }
        runs += 1;
        let Ok(src) = std::str::from_utf8(&b) else {
            continue;
        };
        let Ok(s) = parse(src) else { continue };
        parsed += 1;
        let t = spirv_gen::text::print(&s);
        if validate(&s).is_ok() {
            valid += 1;
            let again = parse(&t).expect("printed text must parse");
            assert_eq!(spirv_gen::text::print(&again), t);
            let mut l = s.clone();
            if spirv_gen::passes::lower(&mut l, &key).is_ok() {
                spirv_gen::passes::optimize(&mut l);
                if let Err(e) = validate(&l) {
                    panic!("lowered IR must validate: {e}\n--- input\n{src}");
                }
                let _ = spirv_gen::emit::emit(&l, spirv_gen::emit::Target::Vulkan1_1);
            }
            let _ = spirv_gen::emit::emit(&s, spirv_gen::emit::Target::Vulkan1_3);
            if let Ok(gs) = spirv_gen::passes::line_stipple::line_stipple_gs(&s, false) {
                if let Err(e) = validate(&gs) {
                    panic!("line stipple GS must validate: {e}\n--- input\n{src}");
                }
                let _ = spirv_gen::emit::emit(&gs, spirv_gen::emit::Target::Vulkan1_1);
            }
        }
    }
    eprintln!("fuzz: {runs} inputs in {secs} s, {parsed} parsed, {valid} valid, no panic");
}

#[test]
fn atomic_width_errors() {
    let e = invalid("shader compute local_size=1,1,1\nssbo @b slot=0\nfn main {\n  %0 : u32 = const 0\n  %1 : u64 = const 1\n  %2 : u64 = ssbo_atomic @b, %0, %1, op=add\n}\n");
    assert_eq!(e, "6:3: error: SSBO atomics are 32-bit (in %2)");
}

#[test]
fn fbfetch_errors() {
    let e = invalid("shader vertex\nfbfetch @f slot=0 sampled=float\nfn main {\n}\n");
    assert!(e.contains("fbfetch only in fragment shaders"), "{e}");
    let e = invalid("shader fragment\nfbfetch @f slot=8 sampled=float\nfn main {\n}\n");
    assert!(e.contains("slot 8 out of range"), "{e}");
    // The result is a vec4 of the texel type.
    let e = invalid(
        "shader fragment\nfbfetch @f slot=0 sampled=uint\nfn main {\n  %0 : f32x4 = fbfetch @f\n}\n",
    );
    assert!(e.contains("fbfetch result must be u32x4"), "{e}");
    // A sample exactly on ms variables.
    let e = invalid(
        "shader fragment\nfbfetch @f slot=0 sampled=float ms\nfn main {\n  %0 : f32x4 = fbfetch @f\n}\n",
    );
    assert!(e.contains("sample index needed exactly"), "{e}");
    let e = invalid(
        "shader fragment\nfbfetch @f slot=0 sampled=float\nfn main {\n  %1 : i32 = const 0\n  %0 : f32x4 = fbfetch @f, sample=%1\n}\n",
    );
    assert!(e.contains("sample index needed exactly"), "{e}");
    // Only fbfetch variables.
    let e = invalid(
        "shader fragment\ntexture @t slot=0 dim=2d sampled=float\nfn main {\n  %0 : f32x4 = fbfetch @t\n}\n",
    );
    assert!(e.contains("not an fbfetch variable"), "{e}");
    let e = parse_err("shader fragment\nfbfetch @f slot=0\nfn main {\n}\n");
    assert!(e.contains("fbfetch needs sampled="), "{e}");
    // 1D and 3D colour buffers: 3D only layered, neither multisampled.
    for decl in [
        "dim=3d",
        "dim=1d ms",
        "dim=3d layered ms",
        "dim=cube",
        "dim=buffer",
    ] {
        let e = invalid(&format!(
            "shader fragment\nfbfetch @f slot=0 sampled=float {decl}\nfn main {{\n}}\n"
        ));
        assert!(e.contains("fbfetch of dim"), "{decl}: {e}");
    }
    for decl in [
        "dim=1d",
        "dim=1d layered",
        "dim=3d layered",
        "dim=2d ms layered",
    ] {
        let src =
            format!("shader fragment\nfbfetch @f slot=0 sampled=float {decl}\nfn main {{\n}}\n");
        let s = spirv_gen::text::parse(&src).unwrap();
        spirv_gen::validate::validate(&s).unwrap_or_else(|e| panic!("{decl}: {e}"));
        // The text form keeps the dimension.
        let again = spirv_gen::text::parse(&spirv_gen::text::print(&s)).unwrap();
        assert_eq!(again.vars, s.vars, "{decl}");
    }
}
