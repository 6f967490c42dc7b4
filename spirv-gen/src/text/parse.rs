//! The parser: text form → [`Shader`].
//!
//! Design: a lexer splits the input into lines of tokens with 1-based
//! line:column positions (newlines are significant: one statement per
//! line). Tokens borrow their text from the input and live in one vector
//! (with a token range per line), so lexing allocates nothing per token or
//! line. The parser reads the `shader` header, the variable declarations,
//! then `fn main { … }` recursively into the structured body. Instruction
//! operands are first read into a generic form (values `%N`, variables
//! `@name`, words, `key=value`) and then checked against the opcode's
//! shape. All failures are [`Error`]s with a position; there is no
//! indexing that can panic and no recursion deeper than the input's
//! nesting (bounded by [`MAX_DEPTH`]).

use crate::error::{Error, Result};
use crate::ir::*;
use std::borrow::Cow;

/// Maximum control-flow nesting accepted.
pub const MAX_DEPTH: usize = 64;
/// Largest SSA id accepted (keeps per-value tables small).
pub const MAX_VALUE_ID: u32 = 1 << 22;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Tok<'a> {
    /// identifiers, numbers, dimension names (`2d`), …
    Word(&'a str),
    Val(u32),
    Var(&'a str),
    Punct(char),
}

#[derive(Clone, Copy, Debug)]
struct T<'a> {
    tok: Tok<'a>,
    loc: SrcLoc,
}

fn err<X>(loc: SrcLoc, msg: impl Into<String>) -> Result<X> {
    Err(Error::at(Some(loc), msg))
}

fn is_word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'.'
}

/// Tokens and the token range of each non-empty line.
type Lexed<'a> = (Vec<T<'a>>, Vec<(usize, usize)>);

/// The tokens of `src`, in one vector, and the token range of each
/// non-empty line. Tokens borrow their text from `src`.
///
/// The lexer works on bytes: every token character is ASCII, a non-ASCII
/// character outside a comment is an error, and a comment ends the line, so
/// a token's byte offset in its line is also its character offset (the
/// column).
fn lex(src: &str) -> Result<Lexed<'_>> {
    let mut toks = Vec::with_capacity(src.len() / 3);
    let mut lines = Vec::with_capacity(src.len() / 16);
    for (li, line) in src.split('\n').enumerate() {
        let lno = li as u32 + 1;
        let b = line.as_bytes();
        let first = toks.len();
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            let loc = SrcLoc {
                line: lno,
                col: i as u32 + 1,
            };
            if c == b' ' || c == b'\t' || c == b'\r' {
                i += 1;
            } else if c == b'#' {
                break;
            } else if c == b'%' {
                let start = i + 1;
                let mut j = start;
                while j < b.len() && b[j].is_ascii_digit() {
                    j += 1;
                }
                let n: u32 = match line[start..j].parse() {
                    Ok(n) if n <= MAX_VALUE_ID => n,
                    _ => return err(loc, "expected a value number after '%' (at most 4194304)"),
                };
                if j < b.len() && is_word_byte(b[j]) {
                    return err(loc, "bad value name");
                }
                toks.push(T {
                    tok: Tok::Val(n),
                    loc,
                });
                i = j;
            } else if c == b'@' {
                let start = i + 1;
                let mut j = start;
                while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                    j += 1;
                }
                if j == start {
                    return err(loc, "expected a variable name after '@'");
                }
                toks.push(T {
                    tok: Tok::Var(&line[start..j]),
                    loc,
                });
                i = j;
            } else if is_word_byte(c)
                || (c == b'-'
                    && b.get(i + 1)
                        .is_some_and(|d| d.is_ascii_digit() || *d == b'.'))
            {
                let mut j = i + 1;
                let numeric = c.is_ascii_digit() || c == b'-' || c == b'.';
                let d0 = if c == b'-' { i + 1 } else { i };
                let hex = b.get(d0) == Some(&b'0') && b.get(d0 + 1) == Some(&b'x');
                while j < b.len() {
                    let d = b[j];
                    let prev = b[j - 1];
                    if is_word_byte(d)
                        || (numeric
                            && !hex
                            && (d == b'+' || d == b'-')
                            && (prev == b'e' || prev == b'E'))
                    {
                        j += 1;
                    } else {
                        break;
                    }
                }
                toks.push(T {
                    tok: Tok::Word(&line[i..j]),
                    loc,
                });
                i = j;
            } else if b":=,{}[]|".contains(&c) {
                toks.push(T {
                    tok: Tok::Punct(c as char),
                    loc,
                });
                i += 1;
            } else {
                // Everything before `i` on this line is ASCII (or we would
                // have stopped there), so `i` is a char boundary.
                let ch = line
                    .get(i..)
                    .and_then(|r| r.chars().next())
                    .unwrap_or('\u{fffd}');
                return err(loc, format!("unexpected character {ch:?}"));
            }
        }
        if toks.len() > first {
            lines.push((first, toks.len()));
        }
    }
    Ok((toks, lines))
}

/// Parses a type name such as `f32x4`, `bool`, `u16`.
pub fn parse_type(s: &str) -> Option<Type> {
    let (head, comps) = match s.rsplit_once('x') {
        Some((h, n)) if !h.is_empty() && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
            (h, n.parse::<u8>().ok()?)
        }
        _ => (s, 1),
    };
    if comps < 2 && s.contains('x') {
        return None;
    }
    if head == "bool" {
        return Type::new(BaseType::Bool, 1, comps);
    }
    let base = match head.as_bytes().first()? {
        b'f' => BaseType::Float,
        b'i' => BaseType::Int,
        b'u' => BaseType::Uint,
        _ => return None,
    };
    let bits: u8 = head.get(1..)?.parse().ok()?;
    if head.get(1..)?.starts_with('0') {
        return None;
    }
    Type::new(base, bits, comps)
}

/// An operand in generic form.
#[derive(Clone, Debug)]
enum Arg<'a> {
    Val(ValueId),
    Var(&'a str),
    /// A word, or `a|b|c` joined (the only operand text that is not a
    /// slice of the source).
    Word(Cow<'a, str>),
    Key(&'a str, Box<Arg<'a>>),
}

struct Parser<'t, 'a> {
    toks: &'t [T<'a>],
    /// Token range of each non-empty line.
    lines: &'t [(usize, usize)],
    pos: usize,
    shader: Shader,
    max_value: Option<u32>,
    /// Whether [`Parser::body`] has started, and at which line.
    in_body: bool,
    body_start: usize,
}

/// Parses the text form.
pub fn parse(src: &str) -> Result<Shader> {
    let (toks, lines) = lex(src)?;
    let mut p = Parser {
        toks: &toks,
        lines: &lines,
        pos: 0,
        shader: Shader::new(Stage::Vertex),
        max_value: None,
        in_body: false,
        body_start: 0,
    };
    p.run()?;
    Ok(p.shader)
}

fn word<'a>(t: &T<'a>) -> Option<&'a str> {
    match t.tok {
        Tok::Word(w) => Some(w),
        _ => None,
    }
}

fn parse_u32(s: &str, loc: SrcLoc) -> Result<u32> {
    let r = if let Some(h) = s.strip_prefix("0x") {
        u32::from_str_radix(h, 16)
    } else {
        s.parse()
    };
    r.or_else(|_| err(loc, format!("expected an unsigned number, found {s:?}")))
}

fn end_loc(line: &[T]) -> SrcLoc {
    line.last()
        .map(|t| SrcLoc {
            line: t.loc.line,
            col: t.loc.col + 1,
        })
        .unwrap_or_default()
}

/// Attributes of a header or declaration line: `key=value` or bare flags.
fn attrs(toks: &[T]) -> Result<Vec<(String, Option<String>, SrcLoc)>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i];
        let Some(k) = word(t) else {
            return err(t.loc, "expected an attribute");
        };
        if matches!(
            toks.get(i + 1),
            Some(T {
                tok: Tok::Punct('='),
                ..
            })
        ) {
            let mut v = String::new();
            let mut j = i + 2;
            loop {
                match toks.get(j) {
                    Some(T {
                        tok: Tok::Word(w), ..
                    }) => v.push_str(w),
                    Some(x) => return err(x.loc, "expected an attribute value"),
                    None => return err(end_loc(toks), "expected an attribute value"),
                }
                j += 1;
                match toks.get(j) {
                    Some(T {
                        tok: Tok::Punct(c @ (',' | '|')),
                        ..
                    }) => {
                        v.push(*c);
                        j += 1;
                    }
                    _ => break,
                }
            }
            out.push((k.to_string(), Some(v), t.loc));
            i = j;
        } else {
            out.push((k.to_string(), None, t.loc));
            i += 1;
        }
    }
    Ok(out)
}

impl<'t, 'a> Parser<'t, 'a> {
    /// Tokens of line `i` (borrowed from the token vector, not from `self`).
    fn line(&self, i: usize) -> Option<&'t [T<'a>]> {
        let toks = self.toks;
        self.lines.get(i).map(|&(a, b)| &toks[a..b])
    }

    fn run(&mut self) -> Result<()> {
        let Some(first) = self.line(0) else {
            return err(
                SrcLoc { line: 1, col: 1 },
                "empty input: expected `shader <stage>`",
            );
        };
        self.header(first)?;
        self.pos = 1;
        loop {
            let Some(line) = self.line(self.pos) else {
                return err(self.eof(), "expected `fn main {`");
            };
            self.pos += 1;
            if word(&line[0]) == Some("fn") {
                let ok = line.len() == 3
                    && word(&line[1]) == Some("main")
                    && matches!(line[2].tok, Tok::Punct('{'));
                if !ok {
                    return err(line[0].loc, "expected `fn main {`");
                }
                break;
            }
            self.decl(line)?;
        }
        let (body, end) = self.body(0)?;
        if let Some(l) = end {
            return err(l, "`else` without `if`");
        }
        self.shader.body = body;
        if let Some(l) = self.line(self.pos) {
            return err(l[0].loc, "unexpected text after the end of `fn main`");
        }
        self.shader.next_value = self.max_value.map_or(0, |m| m + 1);
        Ok(())
    }

    /// Where "end of input" errors point: the end of the last line, or,
    /// once the body has consumed every line, the end of the `fn main {`
    /// line (the body's lines are not counted).
    fn eof(&self) -> SrcLoc {
        let idx = if self.pos >= self.lines.len() && self.in_body {
            self.body_start.checked_sub(1)
        } else {
            self.lines.len().checked_sub(1)
        };
        idx.and_then(|i| self.line(i))
            .map(end_loc)
            .unwrap_or(SrcLoc { line: 1, col: 1 })
    }

    fn header(&mut self, line: &[T<'a>]) -> Result<()> {
        if word(&line[0]) != Some("shader") {
            return err(line[0].loc, "expected `shader <stage>`");
        }
        let Some(st) = line.get(1) else {
            return err(end_loc(line), "expected a stage name");
        };
        let stage = word(st)
            .and_then(Stage::from_name)
            .ok_or_else(|| Error::at(Some(st.loc), "unknown stage"))?;
        self.shader = Shader::new(stage);
        let i = &mut self.shader.info;
        for (k, v, loc) in attrs(&line[2..])? {
            let val = |v: &Option<String>| {
                v.clone()
                    .ok_or_else(|| Error::at(Some(loc), format!("{k} needs a value")))
            };
            match (stage, k.as_str()) {
                (Stage::Compute, "local_size") if v.as_deref() == Some("variable") => {
                    i.local_size_variable = true;
                }
                (Stage::Compute, "local_size") => {
                    let v = val(&v)?;
                    let parts: Vec<&str> = v.split(',').collect();
                    if parts.len() != 3 {
                        return err(loc, "local_size needs three numbers");
                    }
                    let mut l = [0; 3];
                    for (d, p) in l.iter_mut().zip(parts) {
                        *d = parse_u32(p, loc)?;
                    }
                    i.local_size = Some(l);
                }
                (Stage::Geometry, "input") => {
                    i.gs_input = Some(
                        GsInput::from_name(&val(&v)?)
                            .ok_or_else(|| Error::at(Some(loc), "unknown GS input"))?,
                    )
                }
                (Stage::Geometry, "output") => {
                    i.gs_output = Some(
                        GsOutput::from_name(&val(&v)?)
                            .ok_or_else(|| Error::at(Some(loc), "unknown GS output"))?,
                    )
                }
                (Stage::Geometry, "max_vertices") => {
                    i.gs_max_vertices = Some(parse_u32(&val(&v)?, loc)?)
                }
                (Stage::Geometry, "invocations") => {
                    i.gs_invocations = Some(parse_u32(&val(&v)?, loc)?)
                }
                (Stage::TessCtrl, "vertices") => i.tcs_vertices = Some(parse_u32(&val(&v)?, loc)?),
                (Stage::TessEval, "mode") => {
                    i.tes_mode = Some(
                        TessMode::from_name(&val(&v)?)
                            .ok_or_else(|| Error::at(Some(loc), "unknown mode"))?,
                    )
                }
                (Stage::TessEval, "spacing") => {
                    i.tes_spacing = Some(
                        TessSpacing::from_name(&val(&v)?)
                            .ok_or_else(|| Error::at(Some(loc), "unknown spacing"))?,
                    )
                }
                (Stage::TessEval, "winding") => {
                    i.tes_ccw = match val(&v)?.as_str() {
                        "ccw" => true,
                        "cw" => false,
                        _ => return err(loc, "winding must be cw or ccw"),
                    }
                }
                (Stage::TessEval, "point_mode") if v.is_none() => i.tes_point_mode = true,
                (Stage::Fragment, "early_fragment_tests") if v.is_none() => {
                    i.early_fragment_tests = true
                }
                _ => {
                    return err(
                        loc,
                        format!("unknown {} shader attribute `{k}`", stage.name()),
                    )
                }
            }
        }
        Ok(())
    }

    fn decl(&mut self, line: &[T<'a>]) -> Result<()> {
        let kw = word(&line[0])
            .ok_or_else(|| Error::at(Some(line[0].loc), "expected a declaration or `fn main {`"))?;
        let Some(T {
            tok: Tok::Var(name),
            loc: nloc,
        }) = line.get(1)
        else {
            return err(
                line.get(1).map_or(end_loc(line), |t| t.loc),
                "expected `@name`",
            );
        };
        if self.shader.find_var(name).is_some() {
            return err(*nloc, format!("@{name} declared twice"));
        }
        let typed = matches!(kw, "in" | "out" | "local" | "shared");
        let mut rest = &line[2..];
        let mut ty = Type::U32;
        let mut array = None;
        let mut inner = None;
        if typed {
            match rest.first() {
                Some(T {
                    tok: Tok::Punct(':'),
                    ..
                }) => {}
                t => {
                    return err(
                        t.map_or(end_loc(line), |t| t.loc),
                        "expected `:` and a type",
                    )
                }
            }
            let Some(tt) = rest.get(1) else {
                return err(end_loc(line), "expected a type");
            };
            ty = word(tt)
                .and_then(parse_type)
                .ok_or_else(|| Error::at(Some(tt.loc), "unknown type"))?;
            rest = &rest[2..];
            // `[N]`, then optionally `[M]` (an array of arrays).
            for dim in [&mut array, &mut inner] {
                if !matches!(
                    rest.first(),
                    Some(T {
                        tok: Tok::Punct('['),
                        ..
                    })
                ) {
                    break;
                }
                let (
                    Some(n),
                    Some(T {
                        tok: Tok::Punct(']'),
                        ..
                    }),
                ) = (rest.get(1), rest.get(2))
                else {
                    return err(rest[0].loc, "expected `[N]`");
                };
                *dim = Some(parse_u32(word(n).unwrap_or(""), n.loc)?);
                rest = &rest[3..];
            }
        }
        let at = attrs(rest)?;
        let mut slot = None;
        let mut size = None;
        let mut dim = None;
        let mut sampled = None;
        let mut format = None;
        let mut flags: Vec<(String, SrcLoc)> = Vec::new();
        let mut io = IoInfo::default();
        // xfb_buffer, xfb_offset, xfb_stride: all three or none.
        let mut xfb: [Option<u32>; 3] = [None; 3];
        for (k, v, loc) in at {
            let need = || {
                v.clone()
                    .ok_or_else(|| Error::at(Some(loc), format!("{k} needs a value")))
            };
            let is_io = matches!(kw, "in" | "out");
            match k.as_str() {
                "location" if is_io => io.location = Some(parse_u32(&need()?, loc)?),
                "component" if is_io => io.component = parse_u32(&need()?, loc)?,
                "index" if is_io => io.index = parse_u32(&need()?, loc)?,
                "builtin" if is_io => {
                    io.builtin = Some(
                        BuiltIn::from_name(&need()?)
                            .ok_or_else(|| Error::at(Some(loc), "unknown built-in"))?,
                    )
                }
                "slot" if is_io => {
                    io.slot = Some(
                        GlSlot::from_name(&need()?)
                            .ok_or_else(|| Error::at(Some(loc), "unknown GL slot"))?,
                    )
                }
                "flat" if is_io && v.is_none() => io.interp = Interp::Flat,
                "noperspective" if is_io && v.is_none() => io.interp = Interp::NoPerspective,
                "centroid" if is_io && v.is_none() => io.sampling = Sampling::Centroid,
                "sample" if is_io && v.is_none() => io.sampling = Sampling::Sample,
                "patch" if is_io && v.is_none() => io.patch = true,
                "invariant" if is_io && v.is_none() => io.invariant = true,
                "xfb_buffer" if is_io => xfb[0] = Some(parse_u32(&need()?, loc)?),
                "xfb_offset" if is_io => xfb[1] = Some(parse_u32(&need()?, loc)?),
                "xfb_stride" if is_io => xfb[2] = Some(parse_u32(&need()?, loc)?),
                "stream" if is_io => io.stream = parse_u32(&need()?, loc)?,
                "slot" => slot = Some(parse_u32(&need()?, loc)?),
                "size" => size = Some(parse_u32(&need()?, loc)?),
                "dim" => {
                    dim = Some(
                        Dim::from_name(&need()?)
                            .ok_or_else(|| Error::at(Some(loc), "unknown dim"))?,
                    )
                }
                "sampled" => {
                    sampled = Some(match need()?.as_str() {
                        "float" => BaseType::Float,
                        "int" => BaseType::Int,
                        "uint" => BaseType::Uint,
                        _ => return err(loc, "sampled must be float, int or uint"),
                    })
                }
                "format" => {
                    format = Some(
                        ImageFormat::from_name(&need()?)
                            .ok_or_else(|| Error::at(Some(loc), "unknown format"))?,
                    )
                }
                f if v.is_none()
                    && matches!(
                        f,
                        "readonly" | "writeonly" | "array" | "ms" | "shadow" | "layered"
                    ) =>
                {
                    flags.push((f.to_string(), loc))
                }
                _ => return err(loc, format!("unknown attribute `{k}` for `{kw}`")),
            }
        }
        io.xfb = match xfb {
            [None, None, None] => None,
            [Some(buffer), Some(offset), Some(stride)] => Some(Xfb {
                buffer,
                offset,
                stride,
            }),
            _ => {
                return err(
                    line[0].loc,
                    "xfb_buffer, xfb_offset and xfb_stride go together",
                )
            }
        };
        let has = |f: &str| flags.iter().any(|x| x.0 == f);
        let allow = |ok: &[&str]| -> Result<()> {
            for (f, loc) in &flags {
                if !ok.contains(&f.as_str()) {
                    return err(*loc, format!("`{f}` not allowed on `{kw}`"));
                }
            }
            Ok(())
        };
        let needv = |o: Option<u32>, what: &str| {
            o.ok_or_else(|| Error::at(Some(line[0].loc), format!("`{kw}` needs {what}=")))
        };
        let nores = |x: bool| {
            if x {
                err(line[0].loc, format!("attribute not allowed on `{kw}`"))
            } else {
                Ok(())
            }
        };
        let kind = match kw {
            "in" | "out" => {
                allow(&[])?;
                nores(
                    slot.is_some()
                        || size.is_some()
                        || dim.is_some()
                        || sampled.is_some()
                        || format.is_some(),
                )?;
                if kw == "in" {
                    VarKind::Input(io)
                } else {
                    VarKind::Output(io)
                }
            }
            "local" | "shared" => {
                allow(&[])?;
                nores(
                    slot.is_some()
                        || size.is_some()
                        || dim.is_some()
                        || sampled.is_some()
                        || format.is_some(),
                )?;
                if kw == "local" {
                    VarKind::Local
                } else {
                    VarKind::Shared
                }
            }
            "ubo" => {
                allow(&[])?;
                nores(dim.is_some() || sampled.is_some() || format.is_some())?;
                VarKind::Ubo {
                    slot: needv(slot, "slot")?,
                    size: needv(size, "size")?,
                }
            }
            "ssbo" => {
                allow(&["readonly"])?;
                nores(size.is_some() || dim.is_some() || sampled.is_some() || format.is_some())?;
                VarKind::Ssbo {
                    slot: needv(slot, "slot")?,
                    readonly: has("readonly"),
                }
            }
            "push" => {
                allow(&[])?;
                nores(slot.is_some() || dim.is_some() || sampled.is_some() || format.is_some())?;
                VarKind::Push {
                    size: needv(size, "size")?,
                }
            }
            "texture" => {
                allow(&["array", "ms", "shadow"])?;
                nores(size.is_some() || format.is_some())?;
                VarKind::Texture(TextureInfo {
                    slot: needv(slot, "slot")?,
                    dim: dim.ok_or_else(|| Error::at(Some(line[0].loc), "texture needs dim="))?,
                    arrayed: has("array"),
                    ms: has("ms"),
                    shadow: has("shadow"),
                    sampled: sampled
                        .ok_or_else(|| Error::at(Some(line[0].loc), "texture needs sampled="))?,
                })
            }
            "image" => {
                allow(&["array", "ms", "readonly", "writeonly"])?;
                nores(size.is_some())?;
                let format =
                    format.ok_or_else(|| Error::at(Some(line[0].loc), "image needs format="))?;
                let sampled = match (format.base(), sampled) {
                    (Some(b), None) => b,
                    (None, Some(s)) => s,
                    (Some(_), Some(_)) => {
                        return err(line[0].loc, "sampled= only with format=unknown")
                    }
                    (None, None) => return err(line[0].loc, "format=unknown needs sampled="),
                };
                VarKind::Image(ImageInfo {
                    slot: needv(slot, "slot")?,
                    dim: dim.ok_or_else(|| Error::at(Some(line[0].loc), "image needs dim="))?,
                    arrayed: has("array"),
                    ms: has("ms"),
                    format,
                    sampled,
                    readonly: has("readonly"),
                    writeonly: has("writeonly"),
                })
            }
            "fbfetch" => {
                allow(&["ms", "layered"])?;
                nores(size.is_some() || format.is_some())?;
                VarKind::FbFetch(FbFetchInfo {
                    slot: needv(slot, "slot")?,
                    sampled: sampled
                        .ok_or_else(|| Error::at(Some(line[0].loc), "fbfetch needs sampled="))?,
                    ms: has("ms"),
                    layered: has("layered"),
                    dim: dim.unwrap_or(Dim::D2),
                })
            }
            _ => return err(line[0].loc, format!("unknown declaration `{kw}`")),
        };
        self.shader.vars.push(Variable {
            name: name.to_string(),
            kind,
            ty,
            array,
            inner,
        });
        Ok(())
    }

    /// Parses body lines until `}`; returns the nodes and whether the
    /// closing line was `} else {`.
    fn body(&mut self, depth: usize) -> Result<(Vec<Node>, Option<SrcLoc>)> {
        if !self.in_body {
            self.in_body = true;
            self.body_start = self.pos;
        }
        let mut nodes = Vec::new();
        loop {
            let Some(line) = self.line(self.pos) else {
                return err(self.eof(), "unexpected end of input: missing `}`");
            };
            self.pos += 1;
            let t0 = &line[0];
            match t0.tok {
                Tok::Punct('}') => {
                    if line.len() == 1 {
                        return Ok((nodes, None));
                    }
                    let is_else = line.len() == 3
                        && word(&line[1]) == Some("else")
                        && matches!(line[2].tok, Tok::Punct('{'));
                    if is_else {
                        return Ok((nodes, Some(t0.loc)));
                    }
                    return err(line[1].loc, "expected end of line or `else {` after `}`");
                }
                Tok::Word("if") => {
                    if depth >= MAX_DEPTH {
                        return err(t0.loc, "nesting too deep");
                    }
                    let cond = match (line.get(1), line.get(2), line.len()) {
                        (
                            Some(T {
                                tok: Tok::Val(v), ..
                            }),
                            Some(T {
                                tok: Tok::Punct('{'),
                                ..
                            }),
                            3,
                        ) => ValueId(*v),
                        _ => return err(t0.loc, "expected `if %N {`"),
                    };
                    self.note_value(cond.0);
                    let (then_body, els) = self.body(depth + 1)?;
                    let else_body = if els.is_some() {
                        let (e, again) = self.body(depth + 1)?;
                        if let Some(l) = again {
                            return err(l, "second `else` for one `if`");
                        }
                        e
                    } else {
                        Vec::new()
                    };
                    nodes.push(Node::If(Box::new(If {
                        cond,
                        then_body,
                        else_body,
                        loc: Some(t0.loc),
                    })));
                }
                Tok::Word("loop") => {
                    if depth >= MAX_DEPTH {
                        return err(t0.loc, "nesting too deep");
                    }
                    if line.len() != 2 || !matches!(line[1].tok, Tok::Punct('{')) {
                        return err(t0.loc, "expected `loop {`");
                    }
                    let (body, els) = self.body(depth + 1)?;
                    if let Some(l) = els {
                        return err(l, "`else` closing a loop");
                    }
                    nodes.push(Node::Loop(Box::new(Loop {
                        body,
                        loc: Some(t0.loc),
                    })));
                }
                Tok::Word(w @ ("break" | "continue" | "return" | "discard")) => {
                    if line.len() != 1 {
                        return err(line[1].loc, format!("unexpected text after `{w}`"));
                    }
                    let j = match w {
                        "break" => Jump::Break,
                        "continue" => Jump::Continue,
                        "return" => Jump::Return,
                        _ => Jump::Discard,
                    };
                    nodes.push(Node::Jump(j, Some(t0.loc)));
                }
                _ => nodes.push(Node::Instr(self.instr(line)?)),
            }
        }
    }

    fn note_value(&mut self, v: u32) {
        self.max_value = Some(self.max_value.map_or(v, |m| m.max(v)));
    }

    fn instr(&mut self, line: &[T<'a>]) -> Result<Instr> {
        let loc = line[0].loc;
        let (dest, rest) = match &line[0].tok {
            Tok::Val(v) => {
                let ok = matches!(
                    line.get(1),
                    Some(T {
                        tok: Tok::Punct(':'),
                        ..
                    })
                ) && matches!(
                    line.get(3),
                    Some(T {
                        tok: Tok::Punct('='),
                        ..
                    })
                );
                if !ok {
                    return err(loc, "expected `%N : type = op …`");
                }
                let tt = &line[2];
                let ty = word(tt)
                    .and_then(parse_type)
                    .ok_or_else(|| Error::at(Some(tt.loc), "unknown type"))?;
                (Some((ValueId(*v), ty)), &line[4..])
            }
            _ => (None, line),
        };
        let Some(opt) = rest.first() else {
            return err(end_loc(line), "expected an operation");
        };
        let Some(name) = word(opt) else {
            return err(opt.loc, "expected an operation name");
        };
        let args = self.args(&rest[1..])?;
        if let Some((v, _)) = dest {
            self.note_value(v.0);
        }
        let op = self.op(name, opt.loc, dest.map(|d| d.1), args, end_loc(line))?;
        Ok(Instr {
            dest,
            op,
            loc: Some(loc),
        })
    }

    fn args(&mut self, toks: &[T<'a>]) -> Result<Vec<(Arg<'a>, SrcLoc)>> {
        if toks.is_empty() {
            return Ok(Vec::new());
        }
        let mut out = Vec::with_capacity(4);
        for group in toks.split(|t| t.tok == Tok::Punct(',')) {
            let Some(first) = group.first() else {
                return err(toks[0].loc, "empty operand");
            };
            let single = |t: &T<'a>, me: &mut Self| -> Result<Arg<'a>> {
                Ok(match t.tok {
                    Tok::Val(v) => {
                        me.note_value(v);
                        Arg::Val(ValueId(v))
                    }
                    Tok::Var(n) => Arg::Var(n),
                    Tok::Word(w) => Arg::Word(Cow::Borrowed(w)),
                    Tok::Punct(c) => return err(t.loc, format!("unexpected `{c}`")),
                })
            };
            let arg = if group.len() == 1 {
                single(first, self)?
            } else if group.len() >= 3 && group[1].tok == Tok::Punct('=') {
                let Some(k) = word(first) else {
                    return err(first.loc, "expected a key before `=`");
                };
                let v = if group.len() == 3 {
                    single(&group[2], self)?
                } else {
                    // a|b|c
                    let mut s = String::new();
                    for (i, t) in group[2..].iter().enumerate() {
                        match (&t.tok, i % 2) {
                            (Tok::Word(w), 0) => s.push_str(w),
                            (Tok::Punct('|'), 1) => s.push('|'),
                            _ => return err(t.loc, "bad operand value"),
                        }
                    }
                    if group.len() % 2 == 0 {
                        return err(group[group.len() - 1].loc, "dangling `|`");
                    }
                    Arg::Word(Cow::Owned(s))
                };
                Arg::Key(k, Box::new(v))
            } else {
                return err(group[1].loc, "expected `,` between operands");
            };
            out.push((arg, first.loc));
        }
        Ok(out)
    }

    fn var_id(&self, name: &str, loc: SrcLoc) -> Result<VarId> {
        self.shader
            .find_var(name)
            .ok_or_else(|| Error::at(Some(loc), format!("unknown variable @{name}")))
    }

    fn op(
        &mut self,
        name: &str,
        nloc: SrcLoc,
        dest: Option<Type>,
        mut args: Vec<(Arg<'a>, SrcLoc)>,
        eol: SrcLoc,
    ) -> Result<Op> {
        // Split positional and keyed operands (keyed ones come last; the
        // first problem in operand order is reported).
        let mut nkeys = 0usize;
        for (i, (a, l)) in args.iter().enumerate() {
            match a {
                Arg::Key(k, _) => {
                    if args[..i]
                        .iter()
                        .any(|x| matches!(&x.0, Arg::Key(k2, _) if k2 == k))
                    {
                        return err(*l, format!("`{k}` given twice"));
                    }
                    nkeys += 1;
                }
                _ => {
                    if nkeys > 0 {
                        return err(*l, "positional operand after keyed ones");
                    }
                }
            }
        }
        let npos = args.len() - nkeys;
        let mut keys: Vec<(&str, Arg, SrcLoc)> = if nkeys == 0 {
            Vec::new()
        } else {
            args.drain(npos..)
                .filter_map(|(a, l)| match a {
                    Arg::Key(k, v) => Some((k, *v, l)),
                    _ => None,
                })
                .collect()
        };
        let pos = args;
        let mut cur = 0usize;
        let count = pos.len();
        macro_rules! next {
            () => {{
                let r = pos.get(cur).cloned();
                cur += 1;
                r.ok_or_else(|| Error::at(Some(eol), format!("`{name}` needs more operands")))
            }};
        }
        let val = |a: (Arg, SrcLoc)| match a.0 {
            Arg::Val(v) => Ok(v),
            _ => err(a.1, "expected a value `%N`"),
        };
        let var = |me: &Self, a: (Arg, SrcLoc)| match a.0 {
            Arg::Var(n) => me.var_id(n, a.1),
            _ => err(a.1, "expected a variable `@name`"),
        };
        let mut take_key = |k: &str| -> Option<(Arg, SrcLoc)> {
            let i = keys.iter().position(|x| x.0 == k)?;
            let (_, a, l) = keys.remove(i);
            Some((a, l))
        };
        let key_val = |a: Option<(Arg, SrcLoc)>| a.map(val).transpose();
        let key_word = |a: &(Arg<'a>, SrcLoc)| -> Result<Cow<'a, str>> {
            match &a.0 {
                Arg::Word(w) => Ok(w.clone()),
                _ => err(a.1, "expected a word"),
            }
        };
        let is_val = |a: Option<&(Arg, SrcLoc)>| matches!(a, Some((Arg::Val(_), _)));
        let atomic_op = |a: Option<(Arg<'a>, SrcLoc)>| -> Result<AtomicOp> {
            let a = a.ok_or_else(|| Error::at(Some(eol), "atomic needs op="))?;
            AtomicOp::from_name(&key_word(&a)?)
                .ok_or_else(|| Error::at(Some(a.1), "unknown atomic op"))
        };
        let op = match name {
            "const" => {
                let t = dest.ok_or_else(|| Error::at(Some(nloc), "const needs a destination"))?;
                let mut bits = Vec::new();
                for (a, l) in &pos {
                    let Arg::Word(w) = a else {
                        return err(*l, "expected a literal");
                    };
                    bits.push(literal(w, t.scalar(), *l)?);
                }
                cur = count;
                Op::Const(bits)
            }
            "undef" => Op::Undef,
            "swizzle" => {
                let v = val(next!()?)?;
                let a = next!()?;
                let Arg::Word(w) = &a.0 else {
                    return err(a.1, "expected swizzle letters");
                };
                let mut comps = Vec::new();
                for ch in w.chars() {
                    comps.push(match ch {
                        'x' => 0,
                        'y' => 1,
                        'z' => 2,
                        'w' => 3,
                        _ => return err(a.1, "swizzle letters are x, y, z, w"),
                    });
                }
                if comps.is_empty() || comps.len() > 4 {
                    return err(a.1, "swizzle takes 1 to 4 letters");
                }
                Op::Swizzle(v, comps)
            }
            "insert" => {
                let v = val(next!()?)?;
                let x = val(next!()?)?;
                let a = next!()?;
                let c = match &a.0 {
                    Arg::Word(w) => parse_u32(w, a.1)?,
                    _ => return err(a.1, "expected a component number"),
                };
                if c > 3 {
                    return err(a.1, "component must be 0..3");
                }
                Op::Insert(v, x, c as u8)
            }
            "load" => {
                let v = var(self, next!()?)?;
                let index = if cur < count {
                    Some(val(next!()?)?)
                } else {
                    None
                };
                Op::Intrinsic(Intrinsic::Load { var: v, index })
            }
            "interp_at_offset" | "interp_at_sample" => {
                let v = var(self, next!()?)?;
                let a = val(next!()?)?;
                let (index, src) = if cur < count {
                    (Some(a), val(next!()?)?)
                } else {
                    (None, a)
                };
                let at = if name == "interp_at_offset" {
                    InterpAt::Offset(src)
                } else {
                    InterpAt::Sample(src)
                };
                Op::Intrinsic(Intrinsic::Interp { var: v, index, at })
            }
            "interp_at_centroid" => {
                let v = var(self, next!()?)?;
                let index = if cur < count {
                    Some(val(next!()?)?)
                } else {
                    None
                };
                Op::Intrinsic(Intrinsic::Interp {
                    var: v,
                    index,
                    at: InterpAt::Centroid,
                })
            }
            "store" => {
                let v = var(self, next!()?)?;
                let a = val(next!()?)?;
                let (index, value) = if cur < count {
                    (Some(a), val(next!()?)?)
                } else {
                    (None, a)
                };
                Op::Intrinsic(Intrinsic::Store {
                    var: v,
                    index,
                    value,
                })
            }
            "load_ubo" | "load_ssbo" | "load_push" => {
                let v = var(self, next!()?)?;
                let offset = val(next!()?)?;
                Op::Intrinsic(match name {
                    "load_ubo" => Intrinsic::LoadUbo { var: v, offset },
                    "load_ssbo" => Intrinsic::LoadSsbo { var: v, offset },
                    _ => Intrinsic::LoadPush { var: v, offset },
                })
            }
            "load_global" => Op::Intrinsic(Intrinsic::LoadGlobal {
                address: val(next!()?)?,
            }),
            "store_global" => {
                let address = val(next!()?)?;
                let value = val(next!()?)?;
                Op::Intrinsic(Intrinsic::StoreGlobal { address, value })
            }
            "store_ssbo" => {
                let v = var(self, next!()?)?;
                let offset = val(next!()?)?;
                let value = val(next!()?)?;
                Op::Intrinsic(Intrinsic::StoreSsbo {
                    var: v,
                    offset,
                    value,
                })
            }
            "ssbo_atomic" | "shared_atomic" => {
                let v = var(self, next!()?)?;
                let a = val(next!()?)?;
                let data = val(next!()?)?;
                let compare = if is_val(pos.get(cur)) {
                    Some(val(next!()?)?)
                } else {
                    None
                };
                let op = atomic_op(take_key("op"))?;
                Op::Intrinsic(if name == "ssbo_atomic" {
                    Intrinsic::SsboAtomic {
                        var: v,
                        offset: a,
                        op,
                        data,
                        compare,
                    }
                } else {
                    Intrinsic::SharedAtomic {
                        var: v,
                        index: a,
                        op,
                        data,
                        compare,
                    }
                })
            }
            "image_load" => {
                let v = var(self, next!()?)?;
                let coord = val(next!()?)?;
                let sample = key_val(take_key("sample"))?;
                Op::Intrinsic(Intrinsic::ImageLoad {
                    var: v,
                    coord,
                    sample,
                })
            }
            "image_store" => {
                let v = var(self, next!()?)?;
                let coord = val(next!()?)?;
                let value = val(next!()?)?;
                let sample = key_val(take_key("sample"))?;
                Op::Intrinsic(Intrinsic::ImageStore {
                    var: v,
                    coord,
                    value,
                    sample,
                })
            }
            "image_atomic" => {
                let v = var(self, next!()?)?;
                let coord = val(next!()?)?;
                let data = val(next!()?)?;
                let compare = if is_val(pos.get(cur)) {
                    Some(val(next!()?)?)
                } else {
                    None
                };
                let sample = key_val(take_key("sample"))?;
                let op = atomic_op(take_key("op"))?;
                Op::Intrinsic(Intrinsic::ImageAtomic {
                    var: v,
                    coord,
                    sample,
                    op,
                    data,
                    compare,
                })
            }
            "fbfetch" => {
                let v = var(self, next!()?)?;
                let sample = key_val(take_key("sample"))?;
                Op::Intrinsic(Intrinsic::FbFetch { var: v, sample })
            }
            "image_size" | "image_samples" => {
                let v = var(self, next!()?)?;
                Op::Intrinsic(if name == "image_size" {
                    Intrinsic::ImageSize { var: v }
                } else {
                    Intrinsic::ImageSamples { var: v }
                })
            }
            "barrier" => {
                let e =
                    take_key("exec").ok_or_else(|| Error::at(Some(eol), "barrier needs exec="))?;
                let m =
                    take_key("mem").ok_or_else(|| Error::at(Some(eol), "barrier needs mem="))?;
                let md = take_key("modes")
                    .ok_or_else(|| Error::at(Some(eol), "barrier needs modes="))?;
                let ew = key_word(&e)?;
                let exec = if ew == "none" {
                    None
                } else {
                    Some(
                        Scope::from_name(&ew)
                            .ok_or_else(|| Error::at(Some(e.1), "unknown scope"))?,
                    )
                };
                let mem = Scope::from_name(&key_word(&m)?)
                    .ok_or_else(|| Error::at(Some(m.1), "unknown scope"))?;
                let mw = key_word(&md)?;
                let mut modes = MemModes(0);
                if mw != "none" {
                    for part in mw.split('|') {
                        let f = MemModes::NAMES
                            .iter()
                            .find(|x| x.0 == part)
                            .ok_or_else(|| {
                                Error::at(Some(md.1), format!("unknown memory mode `{part}`"))
                            })?;
                        if modes.contains(f.1) {
                            return err(md.1, "memory mode repeated");
                        }
                        modes.0 |= f.1 .0;
                    }
                }
                Op::Intrinsic(Intrinsic::Barrier { exec, mem, modes })
            }
            "demote" => Op::Intrinsic(Intrinsic::Demote),
            "is_helper" => Op::Intrinsic(Intrinsic::IsHelper),
            "vote_any" | "vote_all" | "vote_eq" => {
                let value = val(next!()?)?;
                let op = VoteOp::from_name(name).unwrap_or(VoteOp::Eq);
                Op::Intrinsic(Intrinsic::Vote { op, value })
            }
            "emit_vertex" | "end_primitive" => {
                let stream = match take_key("stream") {
                    Some(a) => {
                        let s = parse_u32(&key_word(&a)?, a.1)?;
                        if s == 0 {
                            return err(a.1, "stream=0 is written by omitting it");
                        }
                        s
                    }
                    None => 0,
                };
                Op::Intrinsic(if name == "emit_vertex" {
                    Intrinsic::EmitVertex { stream }
                } else {
                    Intrinsic::EndPrimitive { stream }
                })
            }
            _ => {
                if let Some(top) = TexOp::from_name(name) {
                    let v = var(self, next!()?)?;
                    let mut srcs = TexSrcs::default();
                    let mut component = 0u8;
                    for (k, a, l) in std::mem::take(&mut keys) {
                        if k == "component" {
                            let c = parse_u32(&key_word(&(a, l))?, l)?;
                            if c == 0 || c > 3 || top != TexOp::Tg4 {
                                return err(
                                    l,
                                    "component=1..3 only on tg4 (0 is written by omitting it)",
                                );
                            }
                            component = c as u8;
                            continue;
                        }
                        let slot = srcs.slot_mut(k).ok_or_else(|| {
                            Error::at(Some(l), format!("unknown texture source `{k}`"))
                        })?;
                        *slot = Some(val((a, l))?);
                    }
                    Op::Tex(Tex {
                        op: top,
                        var: v,
                        srcs,
                        component,
                    })
                } else if let Some(aop) = AluOp::from_name(name) {
                    let mut srcs = Vec::new();
                    while cur < count {
                        srcs.push(val(next!()?)?);
                    }
                    Op::Alu(aop, srcs)
                } else {
                    return err(nloc, format!("unknown operation `{name}`"));
                }
            }
        };
        if let Some((_, a)) = pos.get(cur).map(|x| ((), x)) {
            return err(a.1, "too many operands");
        }
        if let Some((k, _, l)) = keys.first() {
            return err(*l, format!("unexpected `{k}=` for `{name}`"));
        }
        Ok(op)
    }
}

/// Parses one literal for a component of type `t` into its bit pattern.
fn literal(w: &str, t: Type, loc: SrcLoc) -> Result<u64> {
    let bad = || Error::at(Some(loc), format!("bad {t} literal {w:?}"));
    let mask = if t.is_bool() {
        1
    } else if t.bits == 64 {
        u64::MAX
    } else {
        (1u64 << t.bits) - 1
    };
    let hex = w.strip_prefix("0x").map(|h| u64::from_str_radix(h, 16));
    if let Some(h) = hex {
        let b = h.map_err(|_| bad())?;
        if b & !mask != 0 || t.is_bool() {
            return Err(bad());
        }
        return Ok(b);
    }
    match t.base {
        BaseType::Bool => match w {
            "true" => Ok(1),
            "false" => Ok(0),
            _ => Err(bad()),
        },
        BaseType::Uint => {
            let v: u64 = w.parse().map_err(|_| bad())?;
            if v & !mask != 0 {
                return Err(bad());
            }
            Ok(v)
        }
        BaseType::Int => {
            let v: i64 = w.parse().map_err(|_| bad())?;
            let min = if t.bits == 64 {
                i64::MIN
            } else {
                -(1i64 << (t.bits - 1))
            };
            let max = if t.bits == 64 {
                i64::MAX
            } else {
                (1i64 << (t.bits - 1)) - 1
            };
            if v < min || v > max {
                return Err(bad());
            }
            Ok(v as u64 & mask)
        }
        BaseType::Float => {
            if !w.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '.') {
                return Err(bad());
            }
            match t.bits {
                16 => {
                    let f: f32 = w.parse().map_err(|_| bad())?;
                    Ok(crate::emit::f32_to_f16_bits(f) as u64)
                }
                32 => {
                    let f: f32 = w.parse().map_err(|_| bad())?;
                    Ok(f.to_bits() as u64)
                }
                _ => {
                    let f: f64 = w.parse().map_err(|_| bad())?;
                    Ok(f.to_bits())
                }
            }
        }
    }
}
