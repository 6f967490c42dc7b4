//! The printer: writes the canonical text form (see [`crate::text`]).
//!
//! Canonical choices: one statement per line, two-space indentation per
//! nesting level, attributes in a fixed order, floats in Rust's shortest
//! round-trip notation (`0x…` bit patterns for NaN/infinity), signed ints
//! in decimal with sign, unsigned in decimal.

use crate::ir::*;
use std::fmt::Write;

/// Prints a shader in canonical text form.
pub fn print(s: &Shader) -> String {
    let mut o = String::new();
    header(&mut o, s);
    for v in &s.vars {
        var(&mut o, v);
    }
    o.push_str("fn main {\n");
    body(&mut o, s, &s.body, 1);
    o.push_str("}\n");
    o
}

fn header(o: &mut String, s: &Shader) {
    let i = &s.info;
    o.push_str("shader ");
    o.push_str(s.stage.name());
    match s.stage {
        Stage::Compute if i.local_size_variable => o.push_str(" local_size=variable"),
        Stage::Compute => {
            let l = i.local_size.unwrap_or([1, 1, 1]);
            let _ = write!(o, " local_size={},{},{}", l[0], l[1], l[2]);
        }
        Stage::Geometry => {
            let _ = write!(
                o,
                " input={} output={} max_vertices={} invocations={}",
                i.gs_input.unwrap_or(GsInput::Triangles).name(),
                i.gs_output.unwrap_or(GsOutput::TriangleStrip).name(),
                i.gs_max_vertices.unwrap_or(0),
                i.gs_invocations.unwrap_or(1)
            );
        }
        Stage::TessCtrl => {
            let _ = write!(o, " vertices={}", i.tcs_vertices.unwrap_or(0));
        }
        Stage::TessEval => {
            let _ = write!(
                o,
                " mode={} spacing={} winding={}",
                i.tes_mode.unwrap_or(TessMode::Triangles).name(),
                i.tes_spacing.unwrap_or(TessSpacing::Equal).name(),
                if i.tes_ccw { "ccw" } else { "cw" }
            );
            if i.tes_point_mode {
                o.push_str(" point_mode");
            }
        }
        Stage::Fragment => {
            if i.early_fragment_tests {
                o.push_str(" early_fragment_tests");
            }
        }
        Stage::Vertex => {}
    }
    o.push('\n');
}

fn var_type(o: &mut String, v: &Variable) {
    let _ = write!(o, " : {}", v.ty);
    if let Some(n) = v.array {
        let _ = write!(o, "[{n}]");
        if let Some(m) = v.inner {
            let _ = write!(o, "[{m}]");
        }
    }
}

fn var(o: &mut String, v: &Variable) {
    match &v.kind {
        VarKind::Input(io) | VarKind::Output(io) => {
            let _ = write!(o, "{} @{}", if v.is_input() { "in" } else { "out" }, v.name);
            var_type(o, v);
            if let Some(l) = io.location {
                let _ = write!(o, " location={l}");
            }
            if io.component != 0 {
                let _ = write!(o, " component={}", io.component);
            }
            if io.index != 0 {
                let _ = write!(o, " index={}", io.index);
            }
            if let Some(b) = io.builtin {
                let _ = write!(o, " builtin={}", b.name());
            }
            match io.interp {
                Interp::Smooth => {}
                Interp::Flat => o.push_str(" flat"),
                Interp::NoPerspective => o.push_str(" noperspective"),
            }
            match io.sampling {
                Sampling::Center => {}
                Sampling::Centroid => o.push_str(" centroid"),
                Sampling::Sample => o.push_str(" sample"),
            }
            if io.patch {
                o.push_str(" patch");
            }
            if io.invariant {
                o.push_str(" invariant");
            }
            if let Some(s) = io.slot {
                let _ = write!(o, " slot={}", s.name());
            }
            if let Some(x) = io.xfb {
                let _ = write!(
                    o,
                    " xfb_buffer={} xfb_offset={} xfb_stride={}",
                    x.buffer, x.offset, x.stride
                );
            }
            if io.stream != 0 {
                let _ = write!(o, " stream={}", io.stream);
            }
        }
        VarKind::Local => {
            let _ = write!(o, "local @{}", v.name);
            var_type(o, v);
        }
        VarKind::Shared => {
            let _ = write!(o, "shared @{}", v.name);
            var_type(o, v);
        }
        VarKind::Ubo { slot, size } => {
            let _ = write!(o, "ubo @{} slot={slot} size={size}", v.name);
        }
        VarKind::Ssbo { slot, readonly } => {
            let _ = write!(o, "ssbo @{} slot={slot}", v.name);
            if *readonly {
                o.push_str(" readonly");
            }
        }
        VarKind::Push { size } => {
            let _ = write!(o, "push @{} size={size}", v.name);
        }
        VarKind::Texture(t) => {
            let _ = write!(
                o,
                "texture @{} slot={} dim={} sampled={}",
                v.name,
                t.slot,
                t.dim.name(),
                sampled_name(t.sampled)
            );
            if t.arrayed {
                o.push_str(" array");
            }
            if t.ms {
                o.push_str(" ms");
            }
            if t.shadow {
                o.push_str(" shadow");
            }
        }
        VarKind::Image(im) => {
            let _ = write!(
                o,
                "image @{} slot={} dim={} format={}",
                v.name,
                im.slot,
                im.dim.name(),
                im.format.name()
            );
            if im.format == ImageFormat::Unknown {
                let _ = write!(o, " sampled={}", sampled_name(im.sampled));
            }
            if im.arrayed {
                o.push_str(" array");
            }
            if im.ms {
                o.push_str(" ms");
            }
            if im.readonly {
                o.push_str(" readonly");
            }
            if im.writeonly {
                o.push_str(" writeonly");
            }
        }
        VarKind::FbFetch(f) => {
            let _ = write!(
                o,
                "fbfetch @{} slot={} sampled={}",
                v.name,
                f.slot,
                sampled_name(f.sampled)
            );
            if f.dim != Dim::D2 {
                let _ = write!(o, " dim={}", f.dim.name());
            }
            if f.ms {
                o.push_str(" ms");
            }
            if f.layered {
                o.push_str(" layered");
            }
        }
    }
    o.push('\n');
}

fn indent(o: &mut String, depth: usize) {
    for _ in 0..depth {
        o.push_str("  ");
    }
}

fn body(o: &mut String, s: &Shader, b: &[Node], depth: usize) {
    for n in b {
        match n {
            Node::Instr(i) => {
                indent(o, depth);
                instr(o, s, i);
                o.push('\n');
            }
            Node::If(f) => {
                indent(o, depth);
                let _ = writeln!(o, "if %{} {{", f.cond.0);
                body(o, s, &f.then_body, depth + 1);
                if !f.else_body.is_empty() {
                    indent(o, depth);
                    o.push_str("} else {\n");
                    body(o, s, &f.else_body, depth + 1);
                }
                indent(o, depth);
                o.push_str("}\n");
            }
            Node::Loop(l) => {
                indent(o, depth);
                o.push_str("loop {\n");
                body(o, s, &l.body, depth + 1);
                indent(o, depth);
                o.push_str("}\n");
            }
            Node::Jump(j, _) => {
                indent(o, depth);
                o.push_str(j.name());
                o.push('\n');
            }
        }
    }
}

/// Formats one component constant of type `t`.
pub fn const_text(t: Type, bits: u64) -> String {
    match t.base {
        BaseType::Bool => (if bits != 0 { "true" } else { "false" }).into(),
        BaseType::Uint => bits.to_string(),
        BaseType::Int => {
            let sh = 64 - t.bits as u32;
            (((bits << sh) as i64) >> sh).to_string()
        }
        BaseType::Float => {
            let f = match t.bits {
                16 => f16_to_f64(bits as u16),
                32 => f32::from_bits(bits as u32) as f64,
                _ => f64::from_bits(bits),
            };
            if !f.is_finite() {
                return format!("0x{bits:x}");
            }
            match t.bits {
                64 => format!("{:?}", f),
                _ => format!("{:?}", f as f32),
            }
        }
    }
}

/// Value of IEEE binary16 bits.
pub fn f16_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = ((h >> 10) & 0x1f) as i32;
    let m = (h & 0x3ff) as f64;
    if e == 0 {
        sign * m * 2f64.powi(-24)
    } else if e == 31 {
        if m == 0.0 {
            sign * f64::INFINITY
        } else {
            f64::NAN
        }
    } else {
        sign * (1.0 + m / 1024.0) * 2f64.powi(e - 15)
    }
}

fn vname(s: &Shader, v: VarId) -> String {
    match s.vars.get(v.0 as usize) {
        Some(var) => format!("@{}", var.name),
        None => format!("@_bad{}", v.0),
    }
}

fn instr(o: &mut String, s: &Shader, i: &Instr) {
    if let Some((v, t)) = i.dest {
        let _ = write!(o, "%{} : {} = ", v.0, t);
    }
    let mut args: Vec<String> = Vec::new();
    let val = |v: ValueId| format!("%{}", v.0);
    let name: String = match &i.op {
        Op::Const(bits) => {
            let t = i.dest.map(|d| d.1).unwrap_or(Type::U32);
            args.extend(bits.iter().map(|&b| const_text(t.scalar(), b)));
            "const".into()
        }
        Op::Undef => "undef".into(),
        Op::Alu(op, srcs) => {
            args.extend(srcs.iter().map(|&v| val(v)));
            op.name().into()
        }
        Op::Swizzle(v, comps) => {
            args.push(val(*v));
            args.push(
                comps
                    .iter()
                    .map(|&c| ['x', 'y', 'z', 'w'].get(c as usize).copied().unwrap_or('?'))
                    .collect(),
            );
            "swizzle".into()
        }
        Op::Insert(v, x, c) => {
            args.push(val(*v));
            args.push(val(*x));
            args.push(c.to_string());
            "insert".into()
        }
        Op::Intrinsic(intr) => {
            use Intrinsic::*;
            match intr {
                Load { var, index } => {
                    args.push(vname(s, *var));
                    args.extend(index.map(val));
                    "load".into()
                }
                Interp { var, index, at } => {
                    args.push(vname(s, *var));
                    args.extend(index.map(val));
                    args.extend(at.src().map(val));
                    at.name().into()
                }
                Store { var, index, value } => {
                    args.push(vname(s, *var));
                    args.extend(index.map(val));
                    args.push(val(*value));
                    "store".into()
                }
                LoadUbo { var, offset } | LoadSsbo { var, offset } | LoadPush { var, offset } => {
                    args.push(vname(s, *var));
                    args.push(val(*offset));
                    match intr {
                        LoadUbo { .. } => "load_ubo",
                        LoadSsbo { .. } => "load_ssbo",
                        _ => "load_push",
                    }
                    .into()
                }
                LoadGlobal { address } => {
                    args.push(val(*address));
                    "load_global".into()
                }
                StoreGlobal { address, value } => {
                    args.push(val(*address));
                    args.push(val(*value));
                    "store_global".into()
                }
                StoreSsbo { var, offset, value } => {
                    args.push(vname(s, *var));
                    args.push(val(*offset));
                    args.push(val(*value));
                    "store_ssbo".into()
                }
                SsboAtomic {
                    var,
                    offset: a,
                    op,
                    data,
                    compare,
                }
                | SharedAtomic {
                    var,
                    index: a,
                    op,
                    data,
                    compare,
                } => {
                    args.push(vname(s, *var));
                    args.push(val(*a));
                    args.push(val(*data));
                    args.extend(compare.map(val));
                    args.push(format!("op={}", op.name()));
                    (if matches!(intr, SsboAtomic { .. }) {
                        "ssbo_atomic"
                    } else {
                        "shared_atomic"
                    })
                    .into()
                }
                ImageLoad { var, coord, sample } => {
                    args.push(vname(s, *var));
                    args.push(val(*coord));
                    args.extend(sample.map(|v| format!("sample={}", val(v))));
                    "image_load".into()
                }
                ImageStore {
                    var,
                    coord,
                    value,
                    sample,
                } => {
                    args.push(vname(s, *var));
                    args.push(val(*coord));
                    args.push(val(*value));
                    args.extend(sample.map(|v| format!("sample={}", val(v))));
                    "image_store".into()
                }
                ImageAtomic {
                    var,
                    coord,
                    sample,
                    op,
                    data,
                    compare,
                } => {
                    args.push(vname(s, *var));
                    args.push(val(*coord));
                    args.push(val(*data));
                    args.extend(compare.map(val));
                    args.extend(sample.map(|v| format!("sample={}", val(v))));
                    args.push(format!("op={}", op.name()));
                    "image_atomic".into()
                }
                ImageSize { var } => {
                    args.push(vname(s, *var));
                    "image_size".into()
                }
                ImageSamples { var } => {
                    args.push(vname(s, *var));
                    "image_samples".into()
                }
                FbFetch { var, sample } => {
                    args.push(vname(s, *var));
                    args.extend(sample.map(|v| format!("sample={}", val(v))));
                    "fbfetch".into()
                }
                Barrier { exec, mem, modes } => {
                    args.push(format!("exec={}", exec.map(|e| e.name()).unwrap_or("none")));
                    args.push(format!("mem={}", mem.name()));
                    let m: Vec<&str> = MemModes::NAMES
                        .iter()
                        .filter(|(_, f)| modes.contains(*f))
                        .map(|(n, _)| *n)
                        .collect();
                    args.push(format!(
                        "modes={}",
                        if m.is_empty() {
                            "none".into()
                        } else {
                            m.join("|")
                        }
                    ));
                    "barrier".into()
                }
                Demote => "demote".into(),
                IsHelper => "is_helper".into(),
                Vote { op, value } => {
                    args.push(val(*value));
                    op.name().into()
                }
                EmitVertex { stream } | EndPrimitive { stream } => {
                    if *stream != 0 {
                        args.push(format!("stream={stream}"));
                    }
                    (if matches!(intr, EmitVertex { .. }) {
                        "emit_vertex"
                    } else {
                        "end_primitive"
                    })
                    .into()
                }
            }
        }
        Op::Tex(t) => {
            args.push(vname(s, t.var));
            for (n, v) in t.srcs.list() {
                args.push(format!("{n}={}", val(v)));
            }
            if t.op == TexOp::Tg4 && t.component != 0 {
                args.push(format!("component={}", t.component));
            }
            t.op.name().into()
        }
    };
    o.push_str(&name);
    if !args.is_empty() {
        o.push(' ');
        o.push_str(&args.join(", "));
    }
}
