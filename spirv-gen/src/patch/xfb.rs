//! Transform feedback declared in a SPIR-V passthrough shader
//! (ARB_gl_spirv's `xfb_buffer`, `xfb_offset`, `xfb_stride` and `stream`,
//! compiled to the `Xfb` execution mode and the `XfbBuffer`, `XfbStride`,
//! `Offset` and `Stream` decorations).
//!
//! Vulkan's VK_EXT_transform_feedback reads those decorations itself, so
//! the words are captured as they are. What pipe-vk needs is:
//! - the layout the draw binds targets for ([`xfb_layout`]): each
//!   buffer's stride, the buffers and the vertex streams captured. It is
//!   read, and checked, when the CSO is created;
//! - the capture kept to the last vertex stage ([`drop_xfb`]): GL
//!   captures the last stage only, Vulkan refuses the mode anywhere else;
//! - captured built-ins kept as the shader wrote them
//!   ([`xfb_copy_builtins`]): the depth-range conversion, fixed point
//!   size and clip distance enables rewrite `Position`, `PointSize` and
//!   `ClipDistance` where the vertex ends, after the shader. A captured
//!   one is therefore captured through a copy, a new output at a free
//!   location written from it first, which takes its decorations, as
//!   `passes::xfb` does for the IR.

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{Decoration, ExecutionMode, ExecutionModel, Op, StorageClass, Word};

use super::{literal, load, model_of, Patcher, CLIP_DISTANCE, LAST_STAGES, POINT_SIZE, POSITION};
use crate::passes::xfb::XfbCapture;
use crate::validate::{MAX_VERTEX_STREAMS, MAX_XFB_BUFFERS};
use crate::{Error, Result};

/// How a SPIR-V shader's transform feedback writes its buffers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct XfbLayout {
    /// Each buffer's vertex stride in bytes (`XfbStride`); 0 where no
    /// output names the buffer.
    pub strides: [u32; MAX_XFB_BUFFERS as usize],
    /// The buffers something is captured into, as a mask.
    pub buffers: u8,
    /// The vertex streams something is captured from, as a mask.
    pub streams: u8,
}

/// The built-ins [`xfb_copy_builtins`] captures through a copy (those a
/// variant rewrites).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct XfbBuiltins {
    pub position: bool,
    pub point_size: bool,
    pub clip_distance: bool,
}

/// The transform feedback of the `stage` entry point `entry` of a SPIR-V
/// module: `None` without the `Xfb` execution mode. An error for
/// decorations Vulkan or GL would not accept, as the IR's validation
/// refuses them: a captured output with no `XfbBuffer`, a buffer or
/// stream out of range, a buffer with no, two or a misaligned stride or
/// fed from two streams, an offset not aligned to its components (4
/// bytes, 8 for 64-bit ones), captures that overlap or do not fit in
/// the stride; and captured members of an array of blocks, which GL
/// spreads over several buffers.
pub fn xfb_layout(
    words: &[u32],
    stage: crate::ir::Stage,
    entry: &str,
) -> Result<Option<XfbLayout>> {
    let p = Patcher::new(
        load(words, "transform feedback")?,
        entry,
        &[model_of(stage)],
        "transform feedback",
    )?;
    if !p.declares_xfb() {
        return Ok(None);
    }
    let err = |m: String| Err(Error::new(format!("SPIR-V transform feedback: {m}")));
    let mut strides: [Option<u32>; MAX_XFB_BUFFERS as usize] = [None; MAX_XFB_BUFFERS as usize];
    for (buffer, stride) in p.xfb_strides() {
        let Some(slot) = strides.get_mut(buffer as usize) else {
            return err(format!(
                "XfbBuffer {buffer} (there are {MAX_XFB_BUFFERS} buffers)"
            ));
        };
        match *slot {
            Some(s) if s != stride => {
                return err(format!("buffer {buffer} has the strides {s} and {stride}"))
            }
            _ => *slot = Some(stride),
        }
    }
    if let Some(var) = p.arrayed_block_capture() {
        return err(format!(
            "output %{var} is an array of blocks with captured members (each element in a \
             buffer of its own), which pipe-vk does not bind"
        ));
    }
    let mut layout = XfbLayout::default();
    // What each buffer's records hold: (offset, size, what), and its stream.
    let mut spans: [Vec<(u32, u32, String)>; MAX_XFB_BUFFERS as usize] = Default::default();
    let mut buffer_stream: [Option<u32>; MAX_XFB_BUFFERS as usize] =
        [None; MAX_XFB_BUFFERS as usize];
    for c in p.xfb_captures() {
        let what = match c.member {
            Some(k) => format!("member {k} of output %{}", c.var),
            None => format!("output %{}", c.var),
        };
        let Some(buffer) = c.buffer else {
            return err(format!("{what} has an Offset but no XfbBuffer"));
        };
        let Some(stride) = strides.get(buffer as usize).copied() else {
            return err(format!(
                "{what}: XfbBuffer {buffer} (there are {MAX_XFB_BUFFERS} buffers)"
            ));
        };
        let Some(stride) = stride else {
            return err(format!("{what}: buffer {buffer} has no XfbStride"));
        };
        if stride == 0 || stride % 4 != 0 {
            return err(format!(
                "buffer {buffer} has the stride {stride}, not a positive multiple of 4"
            ));
        }
        let stream = c.stream.unwrap_or(0);
        if stream >= MAX_VERTEX_STREAMS {
            return err(format!(
                "{what}: Stream {stream} (there are {MAX_VERTEX_STREAMS} streams)"
            ));
        }
        let align = p.xfb_alignment(c.ty, 0);
        if c.offset % align != 0 {
            return err(format!(
                "{what}: Offset {} is not a multiple of {align}",
                c.offset
            ));
        }
        match buffer_stream[buffer as usize] {
            Some(s) if s != stream => {
                return err(format!(
                    "{what}: buffer {buffer} is fed from the streams {s} and {stream}"
                ))
            }
            _ => buffer_stream[buffer as usize] = Some(stream),
        }
        let size = p.byte_size(c.ty, 0).ok_or_else(|| {
            Error::new(format!(
                "SPIR-V transform feedback: {what} has a type that cannot be captured"
            ))
        })?;
        if u64::from(c.offset) + u64::from(size) > u64::from(stride) {
            return err(format!(
                "{what}: {size} bytes at Offset {} do not fit in the stride of {stride} bytes",
                c.offset
            ));
        }
        if let Some((_, _, other)) = spans[buffer as usize]
            .iter()
            .find(|(o, n, _)| c.offset < o + n && *o < c.offset + size)
        {
            return err(format!(
                "{what} and {other} overlap in the records of buffer {buffer}"
            ));
        }
        spans[buffer as usize].push((c.offset, size, what));
        layout.buffers |= 1 << buffer;
        layout.streams |= 1 << stream;
    }
    for (b, s) in strides.iter().enumerate() {
        layout.strides[b] = s.unwrap_or(0);
    }
    Ok(Some(layout))
}

/// The transform feedback of the vertex or tessellation evaluation shader
/// `entry` of a SPIR-V module as captures of the outputs
/// [`super::vertex_outputs`] lists (their registers in its order, at most
/// 4 components in one array element each, as
/// [`crate::passes::xfb::lower_xfb`] takes them), with the buffers'
/// strides: what a generated geometry shader that follows it captures in
/// its place (its own capture then dropped, [`drop_xfb`]). `None` without
/// the `Xfb` mode. An error where [`xfb_layout`] gives one, and for what
/// the captures cannot say: a value that is not 32-bit, a stream other
/// than 0, or a captured output [`super::vertex_outputs`] does not list
/// (a built-in the shader never writes).
pub fn vertex_output_captures(
    words: &[u32],
    entry: &str,
) -> Result<Option<(Vec<XfbCapture>, [u32; MAX_XFB_BUFFERS as usize])>> {
    let p = Patcher::new(
        load(words, "transform feedback")?,
        entry,
        &super::VERTEX_OUTPUT_STAGES,
        "transform feedback",
    )?;
    if !p.declares_xfb() {
        return Ok(None);
    }
    let stage = match p.model {
        ExecutionModel::Vertex => crate::ir::Stage::Vertex,
        _ => crate::ir::Stage::TessEval,
    };
    let Some(layout) = xfb_layout(words, stage, entry)? else {
        return Ok(None);
    };
    let (_, sources) = p.vertex_outputs()?;
    let mut caps = Vec::new();
    for c in p.xfb_captures() {
        let what = match c.member {
            Some(k) => format!("member {k} of output %{}", c.var),
            None => format!("output %{}", c.var),
        };
        let err = |m: &str| Err(Error::new(format!("SPIR-V transform feedback: {what} {m}")));
        let Some(register) = sources.iter().position(|&v| v == (c.var, c.member)) else {
            return err("is captured but not written");
        };
        let (num, len) = match p.num(c.ty) {
            Some(n) => (n, 1),
            None => match p
                .global(c.ty)
                .map(|t| (t.class.opcode, t.operands.as_slice()))
            {
                Some((Op::TypeArray, [Operand::IdRef(e), Operand::IdRef(n)])) => {
                    let n = p
                        .global(*n)
                        .and_then(|k| k.operands.first().and_then(literal));
                    match (p.num(*e), n) {
                        (Some(e), Some(n)) => (e, n),
                        _ => return err("has a type that cannot be captured here"),
                    }
                }
                _ => return err("has a type that cannot be captured here"),
            },
        };
        if num.bits != 32 {
            return err("is not 32-bit");
        }
        let stream = c.stream.unwrap_or(0);
        if stream != 0 {
            return err(&format!("is captured from stream {stream}"));
        }
        let buffer = c.buffer.unwrap_or(0);
        // Element by element; scalars four at a time.
        let (width, total) = (num.comps, num.comps.saturating_mul(len));
        let mut k = 0;
        while k < total {
            let n = if width > 1 { width } else { (total - k).min(4) };
            caps.push(XfbCapture {
                output: register as u32,
                start_component: k,
                num_components: n,
                buffer,
                offset: c.offset + 4 * k,
                stream: 0,
            });
            k += n;
        }
    }
    Ok(Some((caps, layout.strides)))
}

/// The `stage` entry point `entry` of a SPIR-V module without its
/// transform feedback (the `Xfb` mode and the decorations on its
/// outputs): for a stage that is not the last vertex stage. The words
/// unchanged where it declares none.
pub fn drop_xfb(words: &[u32], stage: crate::ir::Stage, entry: &str) -> Result<Vec<u32>> {
    let mut p = Patcher::open(
        words,
        "transform feedback",
        entry,
        &[model_of(stage)],
        "transform feedback",
    )?;
    if !p.declares_xfb() {
        return Ok(words.to_vec());
    }
    p.b.module_mut().execution_modes.retain(|m| {
        !matches!(
            m.operands.get(1),
            Some(Operand::ExecutionMode(ExecutionMode::Xfb))
        )
    });
    let outputs = p.interface_globals(StorageClass::Output);
    let vars: Vec<Word> = outputs.iter().map(|&(v, _)| v).collect();
    let types: Vec<Word> = outputs.iter().map(|&(_, t)| t).collect();
    let xfb = |d: &Decoration| {
        matches!(
            d,
            Decoration::XfbBuffer | Decoration::XfbStride | Decoration::Offset
        )
    };
    p.b.module_mut()
        .annotations
        .retain(|a| match (a.class.opcode, a.operands.as_slice()) {
            (Op::Decorate, [Operand::IdRef(t), Operand::Decoration(d), ..]) => {
                !(vars.contains(t) && xfb(d))
            }
            (Op::MemberDecorate, [Operand::IdRef(t), _, Operand::Decoration(d), ..]) => {
                !(types.contains(t) && xfb(d))
            }
            _ => true,
        });
    p.finish()
}

/// Captures the built-ins `which` of the last vertex stage `entry` of a
/// SPIR-V module through copies: each one the shader captures (its
/// variable or `gl_PerVertex` member has an `Offset`) loses its `Offset`
/// to a new output variable at the next free location (past the outputs,
/// else in a gap; never one of the driver's varyings,
/// `binding::DRIVER_LOCATIONS`, which later patches add), with its
/// `XfbBuffer`, `XfbStride`, `Offset` and `Stream`, stored from the
/// built-in where the vertex ends (before each return, or each
/// `EmitVertex` of a geometry shader). Run it before the patches that
/// rewrite those built-ins there, so the capture sees what the shader
/// wrote. The words unchanged where nothing is to be copied.
pub fn xfb_copy_builtins(words: &[u32], entry: &str, which: XfbBuiltins) -> Result<Vec<u32>> {
    let mut p = Patcher::open(
        words,
        "SPIR-V transform feedback",
        entry,
        &LAST_STAGES,
        "transform feedback",
    )?;
    if !p.declares_xfb() {
        return Ok(words.to_vec());
    }
    let wanted: Vec<u32> = [
        (which.position, POSITION),
        (which.point_size, POINT_SIZE),
        (which.clip_distance, CLIP_DISTANCE),
    ]
    .into_iter()
    .filter_map(|(on, b)| on.then_some(b))
    .collect();
    let mut copies = Vec::new();
    for b in wanted {
        let Some((var, member)) = p.find_output_builtin(b)? else {
            continue;
        };
        let Some(c) = p
            .xfb_captures()
            .into_iter()
            .find(|c| c.var == var && c.member == member)
        else {
            continue;
        };
        copies.push(c);
    }
    if copies.is_empty() {
        return Ok(words.to_vec());
    }
    // Taken: the outputs' locations.
    let mut used = 0u32;
    for l in p
        .interface_globals(StorageClass::Output)
        .into_iter()
        .flat_map(|(var, ty)| p.var_locations(var, ty))
        .filter(|&l| l < 32)
    {
        used |= 1 << l;
    }
    let mut stores: Vec<(Word, Option<u32>, Word, Word)> = Vec::new();
    for c in copies {
        let n = p.locations(c.ty);
        let Some(next) = free_run(used, n) else {
            return Err(Error::new(
                "SPIR-V transform feedback: no free output location to capture a built-in from",
            ));
        };
        // The built-in keeps its value for the rasterizer, uncaptured.
        p.b.module_mut()
            .annotations
            .retain(|a| !is_offset_of(a, c.var, c.struct_ty, c.member));
        let copy = p.add_variable(StorageClass::Output, c.ty);
        p.b.decorate(copy, Decoration::Location, [Operand::LiteralBit32(next)]);
        let buffer = c.buffer.unwrap_or(0);
        p.b.decorate(copy, Decoration::XfbBuffer, [Operand::LiteralBit32(buffer)]);
        let stride = p.xfb_strides().find(|&(b, _)| b == buffer);
        if let Some((_, s)) = stride {
            p.b.decorate(copy, Decoration::XfbStride, [Operand::LiteralBit32(s)]);
        }
        p.b.decorate(copy, Decoration::Offset, [Operand::LiteralBit32(c.offset)]);
        if let Some(s) = c.stream {
            p.b.decorate(copy, Decoration::Stream, [Operand::LiteralBit32(s)]);
        }
        used |= run_mask(next, n);
        stores.push((c.var, c.member, c.ty, copy));
    }
    p.at_vertex_ends(&mut |p| {
        let mut code = Vec::new();
        for &(var, member, ty, copy) in &stores {
            let ptr = match member {
                Some(k) => {
                    let it = p.konst(super::Num::int(true, 32, 1), u64::from(k));
                    let ptr_ty = p.b.type_pointer(None, StorageClass::Output, ty);
                    let id = p.b.id();
                    code.push(Instruction::new(
                        Op::AccessChain,
                        Some(ptr_ty),
                        Some(id),
                        vec![Operand::IdRef(var), Operand::IdRef(it)],
                    ));
                    id
                }
                None => var,
            };
            let value = p.b.id();
            code.push(Instruction::new(
                Op::Load,
                Some(ty),
                Some(value),
                vec![Operand::IdRef(ptr)],
            ));
            code.push(Instruction::new(
                Op::Store,
                None,
                None,
                vec![Operand::IdRef(copy), Operand::IdRef(value)],
            ));
        }
        code
    });
    p.finish()
}

/// The locations `at..at + n`, as a mask.
fn run_mask(at: u32, n: u32) -> u32 {
    (at..at.saturating_add(n).min(32)).fold(0, |m, l| m | 1 << l)
}

/// Where `n` consecutive locations none of `taken` takes start, off the
/// driver's: past the highest taken one below them, else the lowest gap;
/// as a last resort among the driver's locations, where only a lowering
/// that adds a varying there then fails.
fn free_run(taken: u32, n: u32) -> Option<u32> {
    let driver = crate::binding::DRIVER_LOCATIONS;
    let above = 32 - (taken & !driver).leading_zeros();
    let fits = |avoid: u32, at: u32| {
        at.checked_add(n).is_some_and(|end| end <= 32) && avoid & run_mask(at, n) == 0
    };
    std::iter::once(above)
        .chain(0..32)
        .find(|&at| fits(taken | driver, at))
        .or_else(|| (0..32).find(|&at| fits(taken, at)))
}

/// Whether `a` is the `Offset` of `var` (no `member`) or of member
/// `member` of its block type `struct_ty`.
fn is_offset_of(a: &Instruction, var: Word, struct_ty: Word, member: Option<u32>) -> bool {
    match (member, a.class.opcode, a.operands.as_slice()) {
        (None, Op::Decorate, [Operand::IdRef(t), Operand::Decoration(Decoration::Offset), ..]) => {
            *t == var
        }
        (
            Some(k),
            Op::MemberDecorate,
            [Operand::IdRef(t), Operand::LiteralBit32(m), Operand::Decoration(Decoration::Offset), ..],
        ) => *t == struct_ty && *m == k,
        _ => false,
    }
}

/// One captured output, or block member.
struct Captured {
    var: Word,
    /// The variable's pointee type (the block's, for a member).
    struct_ty: Word,
    member: Option<u32>,
    /// The captured value's type.
    ty: Word,
    offset: u32,
    buffer: Option<u32>,
    stream: Option<u32>,
}

impl Patcher {
    /// Whether the entry point has the `Xfb` execution mode.
    fn declares_xfb(&self) -> bool {
        self.module().execution_modes.iter().any(|m| {
            matches!(
                m.operands.get(1),
                Some(Operand::ExecutionMode(ExecutionMode::Xfb))
            )
        })
    }

    /// Decoration `d` of member `k` of the struct `ty`: its literal, or
    /// `Some(None)` for one without.
    fn member_decoration(&self, ty: Word, k: u32, d: Decoration) -> Option<Option<u32>> {
        self.module()
            .annotations
            .iter()
            .find_map(|a| match (a.class.opcode, a.operands.as_slice()) {
                (
                    Op::MemberDecorate,
                    [Operand::IdRef(t), Operand::LiteralBit32(m), Operand::Decoration(x), rest @ ..],
                ) if *t == ty && *m == k && *x == d => Some(rest.first().and_then(literal)),
                _ => None,
            })
    }

    /// The outputs (and output block members) the entry point captures:
    /// those with an `Offset`.
    fn xfb_captures(&self) -> Vec<Captured> {
        let mut out = Vec::new();
        for (var, ty) in self.interface_globals(StorageClass::Output) {
            let buffer = self.decoration(var, Decoration::XfbBuffer).flatten();
            let stream = self.decoration(var, Decoration::Stream).flatten();
            if let Some(offset) = self.decoration(var, Decoration::Offset).flatten() {
                out.push(Captured {
                    var,
                    struct_ty: ty,
                    member: None,
                    ty,
                    offset,
                    buffer,
                    stream,
                });
                continue;
            }
            let Some(t) = self.global(ty).filter(|t| t.class.opcode == Op::TypeStruct) else {
                continue;
            };
            for (k, m) in t.operands.iter().enumerate() {
                let (Operand::IdRef(mty), Ok(k)) = (m, u32::try_from(k)) else {
                    continue;
                };
                let Some(offset) = self.member_decoration(ty, k, Decoration::Offset).flatten()
                else {
                    continue;
                };
                let member = |d| self.member_decoration(ty, k, d).flatten();
                out.push(Captured {
                    var,
                    struct_ty: ty,
                    member: Some(k),
                    ty: *mty,
                    offset,
                    buffer: member(Decoration::XfbBuffer).or(buffer),
                    stream: member(Decoration::Stream).or(stream),
                });
            }
        }
        out
    }

    /// Every (buffer, stride) the outputs declare (`XfbBuffer` with
    /// `XfbStride`, on a variable or a block member).
    fn xfb_strides(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.interface_globals(StorageClass::Output)
            .into_iter()
            .flat_map(move |(var, ty)| {
                let own = (
                    self.decoration(var, Decoration::XfbBuffer).flatten(),
                    self.decoration(var, Decoration::XfbStride).flatten(),
                );
                let members = self
                    .global(ty)
                    .filter(|t| t.class.opcode == Op::TypeStruct)
                    .map_or(0, |t| t.operands.len() as u32);
                let per_member = (0..members).map(move |k| {
                    let d = |x| self.member_decoration(ty, k, x).flatten();
                    (d(Decoration::XfbBuffer).or(own.0), d(Decoration::XfbStride))
                });
                std::iter::once(own).chain(per_member.collect::<Vec<_>>())
            })
            .filter_map(|(b, s)| Some((b?, s?)))
    }

    /// An output the entry point captures that is an array of blocks
    /// with `Offset` members.
    fn arrayed_block_capture(&self) -> Option<Word> {
        self.interface_globals(StorageClass::Output)
            .into_iter()
            .find(|&(_, ty)| {
                let elem = match self.global(ty) {
                    Some(a) if a.class.opcode == Op::TypeArray => match a.operands.first() {
                        Some(Operand::IdRef(e)) => *e,
                        _ => return false,
                    },
                    _ => return false,
                };
                self.module().annotations.iter().any(|a| {
                    a.class.opcode == Op::MemberDecorate
                        && a.operands.first() == Some(&Operand::IdRef(elem))
                        && a.operands.get(2) == Some(&Operand::Decoration(Decoration::Offset))
                })
            })
            .map(|(v, _)| v)
    }

    /// The alignment of a captured value of type `ty`: 8 bytes when it
    /// holds 64-bit components, else 4.
    fn xfb_alignment(&self, ty: Word, depth: u32) -> u32 {
        if depth > 16 {
            return 4;
        }
        if let Some(n) = self.num(ty) {
            return if n.bits == 64 { 8 } else { 4 };
        }
        let Some(t) = self.global(ty) else { return 4 };
        let parts: Vec<Word> = match (t.class.opcode, t.operands.as_slice()) {
            (Op::TypeArray | Op::TypeMatrix, [Operand::IdRef(e), ..]) => vec![*e],
            (Op::TypeStruct, members) => members
                .iter()
                .filter_map(|m| match m {
                    Operand::IdRef(x) => Some(*x),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        parts
            .into_iter()
            .map(|p| self.xfb_alignment(p, depth + 1))
            .max()
            .unwrap_or(4)
    }

    /// The bytes a value of type `ty` takes in a transform feedback
    /// record (components packed, as captured); `None` for a type that
    /// is not scalars, vectors, matrices, arrays and structs of them.
    fn byte_size(&self, ty: Word, depth: u32) -> Option<u32> {
        if depth > 16 {
            return None;
        }
        if let Some(n) = self.num(ty) {
            return (n.bits / 8).checked_mul(n.comps);
        }
        let t = self.global(ty)?;
        match (t.class.opcode, t.operands.as_slice()) {
            (Op::TypeArray, [Operand::IdRef(e), Operand::IdRef(len)]) => {
                let n = self.global(*len)?.operands.first().and_then(literal)?;
                self.byte_size(*e, depth + 1)?.checked_mul(n)
            }
            (Op::TypeMatrix, [Operand::IdRef(col), Operand::LiteralBit32(n)]) => {
                self.byte_size(*col, depth + 1)?.checked_mul(*n)
            }
            (Op::TypeStruct, members) => members.iter().try_fold(0u32, |sum, m| match m {
                Operand::IdRef(mt) => sum.checked_add(self.byte_size(*mt, depth + 1)?),
                _ => None,
            }),
            _ => None,
        }
    }
}
