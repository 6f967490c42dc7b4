//! Transform feedback: Gallium's stream output description turned into
//! SPIR-V's `Xfb` decorations on the last pre-raster stage.
//!
//! Gallium describes capture per output *register* (`pipe_stream_output`:
//! register, first component, component count, buffer, dword offset,
//! stream), and a buffer's stride separately. SPIR-V decorates whole output
//! variables (`XfbBuffer`, `XfbStride`, `Offset`, `Stream`). The two meet
//! here, as in Zink's xfb handling:
//!
//! - an output captured whole (all its components, once, in the stream it
//!   already belongs to) is decorated in place;
//! - anything else — a component subset, a second capture of the same
//!   output, a built-in — is captured through a *copy*: a new output at a
//!   free location holding the selected components, decorated instead. The
//!   copy is written from the original at every exit of a vertex or tess
//!   eval shader, and before every `emit_vertex` of a geometry shader.
//!   Built-ins always go through a copy so that the captured value is the
//!   one the shader wrote, before the GL lowerings (the depth-range
//!   conversion rewrites the position at the exits) touch it — so run this
//!   pass before [`super::lower`].
//!
//! Outputs are named by their index among the shader's output variables in
//! declaration order (TGSI's `OUT[n]`; see `pipe_core::shader::StreamOutput`).
//! An array output (clip or cull distances, an array varying) counts its
//! components across its elements: component `k` is element `k / width`,
//! component `k % width` (so clip distance 5 of `f32[8]` is component 5,
//! where TGSI would say `CLIPDIST[1].y`). It is always captured through a
//! copy. Not supported (an error): types other than 32-bit.

use super::gl::{insert_at_vertex_end, Emit};
use crate::error::{Error, Result};
use crate::ir::*;
use crate::validate::{MAX_VERTEX_STREAMS, MAX_XFB_BUFFERS};

/// One captured output (`struct pipe_stream_output`, offsets in bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct XfbCapture {
    /// Index of the output among the shader's output variables, in
    /// declaration order.
    pub output: u32,
    pub start_component: u32,
    pub num_components: u32,
    pub buffer: u32,
    /// Byte offset in the buffer's vertex record (a multiple of 4).
    pub offset: u32,
    /// Vertex stream (geometry shaders only; 0 elsewhere).
    pub stream: u32,
}

/// The `index`-th output variable in declaration order.
pub fn nth_output(s: &Shader, index: u32) -> Option<VarId> {
    s.vars
        .iter()
        .enumerate()
        .filter(|(_, v)| v.is_output())
        .nth(index as usize)
        .map(|(i, _)| VarId(i as u32))
}

/// The locations free for captured copies, in the order they are taken:
/// those past the highest location the shader's outputs use, then the
/// gaps below it (a fragment shader input at a location the previous
/// stage does not write reads zero and leaves the interface, so a copy
/// there is not consumed); none of `reserved` (a mask).
fn free_locations(s: &Shader, reserved: u32) -> Vec<u32> {
    let mut used = 0u32;
    for v in s.vars.iter().filter(|v| v.is_output()) {
        if let Some(loc) = v.io().and_then(|io| io.location) {
            for l in loc..loc.saturating_add(v.locations(s.stage)).min(32) {
                used |= 1 << l;
            }
        }
    }
    let above = 32 - used.leading_zeros();
    (above..32)
        .chain((0..above).filter(|l| used & (1 << l) == 0))
        .filter(|l| reserved & (1 << l) == 0)
        .collect()
}

/// How many captured copies `s` has room for, off the locations in
/// `reserved`: what a caller checks before choosing a path that captures
/// through copies ([`lower_xfb_copies`], [`lower_xfb_from`]).
pub fn copy_room(s: &Shader, reserved: u32) -> usize {
    free_locations(s, reserved).len()
}

/// Decorates or copies the outputs `captures` names; `strides` are the
/// buffers' strides in bytes.
pub fn lower_xfb(
    s: &mut Shader,
    captures: &[XfbCapture],
    strides: [u32; MAX_XFB_BUFFERS as usize],
) -> Result<()> {
    let outputs: Vec<VarId> = (0..).map_while(|i| nth_output(s, i)).collect();
    lower(s, captures, strides, &outputs, false, 0)
}

/// [`lower_xfb`] for a shader that a GL emulation lowers further: its
/// copies stay off the locations in `reserved` (of
/// [`DRIVER_LOCATIONS`], those the emulation adds varyings at).
pub fn lower_xfb_reserving(
    s: &mut Shader,
    captures: &[XfbCapture],
    strides: [u32; MAX_XFB_BUFFERS as usize],
    reserved: u32,
) -> Result<()> {
    let outputs: Vec<VarId> = (0..).map_while(|i| nth_output(s, i)).collect();
    lower(s, captures, strides, &outputs, false, reserved)
}

/// A capture a generated shader takes over from the stage it follows
/// (`aliased::aliased_triangles_gs_xfb`): the stage's captures (registers
/// numbered among its outputs), the buffers' strides in bytes, and the
/// locations its copies must stay off (the driver's varyings, and those
/// outputs are moved to afterwards).
#[derive(Clone, Copy, Debug, Default)]
pub struct Takeover<'a> {
    pub captures: &'a [XfbCapture],
    pub strides: [u32; MAX_XFB_BUFFERS as usize],
    pub reserved: u32,
}

/// The locations of the varyings the driver's GL emulations add
/// ([`crate::binding::DRIVER_LOCATIONS`]).
pub const DRIVER_LOCATIONS: u32 = crate::binding::DRIVER_LOCATIONS;

/// [`lower_xfb`] with register `r` held by `sources[r]` where each vertex
/// ends: an output, or a variable of the same type that the shader sets
/// to the value to capture (a generated shader that rasterizes other
/// values than the previous stage wrote; always captured through a
/// copy). Copies stay off the locations in `reserved`.
pub fn lower_xfb_from(
    s: &mut Shader,
    captures: &[XfbCapture],
    strides: [u32; MAX_XFB_BUFFERS as usize],
    sources: &[VarId],
    reserved: u32,
) -> Result<()> {
    lower(s, captures, strides, sources, false, reserved)
}

/// [`lower_xfb`] with every capture through a copy: no output the next
/// stage reads is decorated, so a later pass can change what is
/// rasterized without changing what is captured (the copies are
/// captured only; `aliased::lower_aliased_gs` re-emits them unchanged).
/// The copies stay off [`DRIVER_LOCATIONS`], which that pass adds.
pub fn lower_xfb_copies(
    s: &mut Shader,
    captures: &[XfbCapture],
    strides: [u32; MAX_XFB_BUFFERS as usize],
) -> Result<()> {
    let outputs: Vec<VarId> = (0..).map_while(|i| nth_output(s, i)).collect();
    lower(s, captures, strides, &outputs, true, DRIVER_LOCATIONS)
}

fn lower(
    s: &mut Shader,
    captures: &[XfbCapture],
    strides: [u32; MAX_XFB_BUFFERS as usize],
    sources: &[VarId],
    copy_all: bool,
    reserved: u32,
) -> Result<()> {
    if captures.is_empty() {
        return Ok(());
    }
    if !s.stage.is_pre_raster() {
        return Err(Error::new(format!(
            "stream output: a {} shader cannot be captured",
            s.stage.name()
        )));
    }
    let mut locations = free_locations(s, reserved).into_iter();
    // (source, copy, first component, component count) of each copy.
    let mut copies: Vec<(VarId, VarId, u32, u32)> = Vec::new();
    for (i, c) in captures.iter().enumerate() {
        let e = |m: String| Err(Error::new(format!("stream output {i}: {m}")));
        let Some(&var) = sources.get(c.output as usize) else {
            return e(format!("the shader has no output {}", c.output));
        };
        let v = s.var(var).clone();
        let io = v.io().cloned().unwrap_or_default();
        if c.buffer >= MAX_XFB_BUFFERS {
            return e(format!("buffer {} out of range", c.buffer));
        }
        if c.stream >= MAX_VERTEX_STREAMS || (c.stream != 0 && s.stage != Stage::Geometry) {
            return e(format!(
                "stream {} in a {} shader",
                c.stream,
                s.stage.name()
            ));
        }
        if v.ty.bits != 32 || v.ty.is_bool() {
            return e(format!(
                "@{} has type {}; only 32-bit outputs are captured",
                v.name, v.ty
            ));
        }
        // An array's components are counted across its elements
        // (element `k / width`, component `k % width`); one capture takes
        // at most 4 and stays in one element unless the elements are
        // scalars (clip distances 1..=4 as one vec4).
        let width = u32::from(v.ty.comps);
        let comps = width * v.array.unwrap_or(1);
        let (first, n) = (c.start_component, c.num_components);
        let crosses = width > 1 && first / width != (first + n.max(1) - 1) / width;
        if n == 0 || n > 4 || first + n > comps || crosses {
            return e(format!(
                "components {first}..{} of @{}, which has {comps}{}",
                first + n,
                v.name,
                if v.array.is_some() {
                    format!(" in elements of {width}, a capture taking 1..=4 in one element")
                } else {
                    String::new()
                }
            ));
        }
        let xfb = Xfb {
            buffer: c.buffer,
            offset: c.offset,
            stride: strides[c.buffer as usize],
        };
        let whole = c.start_component == 0 && c.num_components == comps && v.array.is_none();
        if whole
            && !copy_all
            && v.is_output()
            && io.builtin.is_none()
            && io.xfb.is_none()
            && io.stream == c.stream
        {
            if let Some(io) = s.var_mut(var).io_mut() {
                io.xfb = Some(xfb);
            }
            continue;
        }
        let Some(location) = locations.next() else {
            return e("no free output location left for the captured copy".into());
        };
        let copy = s.add_var(Variable {
            name: format!("xfb{i}_{}", v.name),
            kind: VarKind::Output(IoInfo {
                location: Some(location),
                xfb: Some(xfb),
                stream: c.stream,
                ..Default::default()
            }),
            ty: v.ty.with_comps(c.num_components as u8),
            array: None,
            inner: None,
        });
        copies.push((var, copy, c.start_component, c.num_components));
    }
    if copies.is_empty() {
        return Ok(());
    }
    let mut make = |s: &mut Shader| {
        let mut e = Emit::new(s);
        for &(src, dst, first, n) in &copies {
            let (ty, array) = (e.s.var(src).ty, e.s.var(src).array);
            let width = u32::from(ty.comps);
            let v = match array {
                None => {
                    let v = e.load(src, None);
                    if n == width {
                        v
                    } else {
                        let comps: Vec<u8> = (first..first + n).map(|c| c as u8).collect();
                        e.swizzle(ty, v, &comps)
                    }
                }
                // An element's components, or consecutive scalar elements.
                Some(_) if width > 1 => {
                    let idx = e.i32((first / width) as i32);
                    let v = e.load(src, Some(idx));
                    if n == width {
                        v
                    } else {
                        let comps: Vec<u8> = (first % width..first % width + n)
                            .map(|c| c as u8)
                            .collect();
                        e.swizzle(ty, v, &comps)
                    }
                }
                Some(_) => {
                    let scalars: Vec<ValueId> = (first..first + n)
                        .map(|k| {
                            let idx = e.i32(k as i32);
                            e.load(src, Some(idx))
                        })
                        .collect();
                    if n == 1 {
                        scalars[0]
                    } else {
                        e.alu(AluOp::Vec, ty.with_comps(n as u8), &scalars)
                    }
                }
            };
            e.store(dst, None, v);
        }
        e.out
    };
    insert_at_vertex_end(s, &mut make);
    Ok(())
}
