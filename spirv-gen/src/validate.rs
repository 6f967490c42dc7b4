//! The IR validator.
//!
//! Design: one walk over the structured body with a scoped environment,
//! which checks, in this order of concern:
//! - variables: legal kind for the stage, locations vs built-ins, built-in
//!   stage/direction/type legality, per-vertex arrays, Gallium slot ranges
//!   ([`crate::binding`]), texture/image shape rules;
//! - SSA: each value defined once, used only where its definition dominates
//!   (lexical scoping of the structured body, see [`crate::ir`]);
//! - types of every operation (ALU signatures, memory, texture sources);
//! - structured control flow: `break`/`continue` inside loops, `discard`
//!   in fragment shaders;
//! - stage-legal intrinsics (derivatives, implicit LOD, demote, GS emit,
//!   workgroup barriers, shared memory).
//!
//! The first error is returned with the instruction's source position (if
//! it came from text) and its destination value. It never panics: every
//! index into the shader is bounds-checked.

use crate::binding::{self, DescClass};
use crate::error::{Error, Result};
use crate::ir::*;

/// Validates a shader.
pub fn validate(s: &Shader) -> Result<()> {
    let mut v = Validator {
        s,
        types: vec![None; s.next_value as usize],
        visible: vec![false; s.next_value as usize],
        consts: vec![false; s.next_value as usize],
        loop_depth: 0,
        loc: None,
        value: None,
    };
    v.check_info()?;
    for (i, var) in s.vars.iter().enumerate() {
        v.check_var(i, var)?;
    }
    let edge_flags = s
        .vars
        .iter()
        .filter(|var| var.io().and_then(|io| io.slot) == Some(GlSlot::Edge))
        .count();
    if edge_flags > 1 {
        return Err(Error::new(format!(
            "{edge_flags} outputs with slot=edge: a vertex shader has one edge flag"
        )));
    }
    v.check_xfb()?;
    v.body(&s.body)
}

/// Transform feedback buffers and vertex streams (Vulkan's
/// `maxTransformFeedbackBuffers` and `maxTransformFeedbackStreams` are at
/// least 1; 4 is what GL and Gallium use).
pub const MAX_XFB_BUFFERS: u32 = 4;
pub const MAX_VERTEX_STREAMS: u32 = 4;

struct Validator<'a> {
    s: &'a Shader,
    types: Vec<Option<Type>>,
    visible: Vec<bool>,
    /// Values defined by `const`.
    consts: Vec<bool>,
    loop_depth: u32,
    loc: Option<SrcLoc>,
    value: Option<ValueId>,
}

/// Expected (stage set, output?, type, array) of a built-in.
fn builtin_rule(b: BuiltIn, stage: Stage, output: bool) -> Option<(Type, Option<Option<u32>>)> {
    use BuiltIn::*;
    use Stage::*;
    let f4 = Type::vec4();
    let i = Type::I32;
    let u3 = Type::uint(32, 3);
    let u = Type::U32;
    // None inner = any array length 1..=8 required; Some(None) = no array; Some(Some(n)) fixed.
    let scalar = Some(None);
    let per_vertex_in = matches!(stage, TessCtrl | TessEval | Geometry) && !output;
    let r = match (b, output) {
        (Position, true) if stage != Fragment && stage != Compute => (
            f4,
            if stage == TessCtrl {
                Some(Some(0))
            } else {
                scalar
            },
        ),
        (Position, false) if per_vertex_in => (f4, Some(Some(0))),
        (PointSize, true) if stage != Fragment && stage != Compute => (
            Type::F32,
            if stage == TessCtrl {
                Some(Some(0))
            } else {
                scalar
            },
        ),
        (PointSize, false) if per_vertex_in => (Type::F32, Some(Some(0))),
        (ClipDistance | CullDistance, true) if stage.is_pre_raster() => (Type::F32, None),
        (ClipDistance | CullDistance, false) if stage == Fragment => (Type::F32, None),
        (Layer | ViewportIndex, true) if stage == Geometry => (i, scalar),
        (Layer | ViewportIndex, false) if stage == Fragment => (i, scalar),
        (FragCoord, false) if stage == Fragment => (f4, scalar),
        (FrontFacing | HelperInvocation, false) if stage == Fragment => (Type::BOOL, scalar),
        (PointCoord | SamplePos, false) if stage == Fragment => (Type::float(32, 2), scalar),
        (SampleId, false) if stage == Fragment => (i, scalar),
        (SampleMask, _) if stage == Fragment => (i, Some(Some(1))),
        (FragDepth, true) if stage == Fragment => (Type::F32, scalar),
        (FragStencilRef, true) if stage == Fragment => (i, scalar),
        (VertexIndex | InstanceIndex | BaseVertex | BaseInstance | DrawIndex, false)
            if stage == Vertex =>
        {
            (i, scalar)
        }
        (PrimitiveId, false) if matches!(stage, TessCtrl | TessEval | Geometry | Fragment) => {
            (i, scalar)
        }
        (PrimitiveId, true) if stage == Geometry => (i, scalar),
        (InvocationId, false) if matches!(stage, TessCtrl | Geometry) => (i, scalar),
        (PatchVertices, false) if matches!(stage, TessCtrl | TessEval) => (i, scalar),
        (TessCoord, false) if stage == TessEval => (Type::float(32, 3), scalar),
        (TessLevelOuter, true) if stage == TessCtrl => (Type::F32, Some(Some(4))),
        (TessLevelOuter, false) if stage == TessEval => (Type::F32, Some(Some(4))),
        (TessLevelInner, true) if stage == TessCtrl => (Type::F32, Some(Some(2))),
        (TessLevelInner, false) if stage == TessEval => (Type::F32, Some(Some(2))),
        (
            LocalInvocationId | GlobalInvocationId | WorkgroupId | NumWorkgroups | WorkgroupSize,
            false,
        ) if stage == Compute => (u3, scalar),
        (LocalInvocationIndex | SubgroupId | NumSubgroups, false) if stage == Compute => {
            (u, scalar)
        }
        (SubgroupSize | SubgroupInvocationId, false) => (u, scalar),
        _ => return None,
    };
    Some(r)
}

fn class_ok(t: Type, c: Class) -> bool {
    match c {
        Class::Float => t.is_float(),
        Class::Int => t.is_int(),
        Class::Bool => t.is_bool(),
        Class::Any => true,
    }
}

/// Bytes a captured output occupies in a transform feedback record.
pub fn xfb_size(var: &Variable) -> u32 {
    u32::from(var.ty.comps) * (u32::from(var.ty.bits) / 8) * var.array.unwrap_or(1)
}

impl<'a> Validator<'a> {
    fn err(&self, msg: impl Into<String>) -> Error {
        Error::at(self.loc, msg).with_value(self.value)
    }

    /// Across captured outputs: one stride and one stream per buffer, no
    /// two outputs overlapping in a buffer's record.
    fn check_xfb(&self) -> Result<()> {
        let captured: Vec<(&Variable, Xfb, u32)> = self
            .s
            .vars
            .iter()
            .filter_map(|v| v.io().and_then(|io| io.xfb.map(|x| (v, x, io.stream))))
            .collect();
        for (i, (a, xa, sa)) in captured.iter().enumerate() {
            for (b, xb, sb) in &captured[..i] {
                if xa.buffer != xb.buffer {
                    continue;
                }
                let e = |m: String| {
                    Err(Error::new(format!(
                        "variables @{} and @{}: xfb_buffer {}: {m}",
                        b.name, a.name, xa.buffer
                    )))
                };
                if xa.stride != xb.stride {
                    return e(format!("strides {} and {} differ", xb.stride, xa.stride));
                }
                if sa != sb {
                    return e(format!("streams {sb} and {sa} differ"));
                }
                let (ra, rb) = (
                    xa.offset..xa.offset + xfb_size(a),
                    xb.offset..xb.offset + xfb_size(b),
                );
                if ra.start < rb.end && rb.start < ra.end {
                    return e(format!("bytes {ra:?} and {rb:?} overlap"));
                }
            }
        }
        Ok(())
    }

    fn check_info(&self) -> Result<()> {
        let i = &self.s.info;
        let e = |m: &str| Err(Error::new(format!("{} shader: {m}", self.s.stage.name())));
        match self.s.stage {
            Stage::Compute => match i.local_size {
                _ if i.local_size_variable => {}
                Some(l) if l.iter().all(|&x| x > 0) => {}
                _ => return e("needs a nonzero local_size"),
            },
            Stage::Geometry => {
                if i.gs_input.is_none() || i.gs_output.is_none() {
                    return e("needs input and output primitives");
                }
                match i.gs_max_vertices {
                    Some(n) if (1..=1024).contains(&n) => {}
                    _ => return e("needs max_vertices in 1..=1024"),
                }
                match i.gs_invocations {
                    Some(n) if (1..=32).contains(&n) => {}
                    _ => return e("needs invocations in 1..=32"),
                }
            }
            Stage::TessCtrl => match i.tcs_vertices {
                Some(n) if (1..=32).contains(&n) => {}
                _ => return e("needs vertices in 1..=32"),
            },
            Stage::TessEval if i.tes_mode.is_none() || i.tes_spacing.is_none() => {
                return e("needs mode and spacing");
            }
            _ => {}
        }
        Ok(())
    }

    fn check_var(&mut self, idx: usize, var: &Variable) -> Result<()> {
        let st = self.s.stage;
        let e = |m: String| Err(Error::new(format!("variable @{}: {m}", var.name)));
        if var.name.is_empty()
            || !var
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_')
            || var.name.starts_with(|c: char| c.is_ascii_digit())
        {
            return e("bad name".into());
        }
        if self.s.vars[..idx].iter().any(|o| o.name == var.name) {
            return e("name declared twice".into());
        }
        if Type::new(var.ty.base, var.ty.bits, var.ty.comps).is_none() {
            return e(format!("illegal type {}", var.ty));
        }
        if let Some(0) = var.array {
            return e("zero-length array".into());
        }
        // An array of arrays: only per-vertex interface variables (their
        // vertex array's elements), checked with the interface below.
        let per_vertex_io = var.is_per_vertex(st);
        match var.inner {
            Some(0) => return e("zero-length array".into()),
            Some(_) if !per_vertex_io || var.array.is_none() => {
                return e(
                    "arrays of arrays only on per-vertex interface variables (the vertex array's \
                     elements)"
                        .into(),
                )
            }
            _ => {}
        }
        let slot_ok = |class: DescClass, slot: u32| binding::binding_for(class, st, slot).is_some();
        match &var.kind {
            VarKind::Input(io) | VarKind::Output(io) => {
                let output = var.is_output();
                if st == Stage::Compute && (output || io.builtin.is_none()) {
                    return e("compute shaders have only built-in inputs".into());
                }
                if io.patch
                    && !(st == Stage::TessCtrl && output || st == Stage::TessEval && !output)
                {
                    return e("patch only on tess_ctrl outputs and tess_eval inputs".into());
                }
                if io.index != 0 && io.location.is_none() {
                    return e("index needs a location".into());
                }
                if io.stream != 0 {
                    if !(st == Stage::Geometry && output) {
                        return e("stream only on geometry shader outputs".into());
                    }
                    if io.stream >= MAX_VERTEX_STREAMS {
                        return e(format!("stream {} out of range", io.stream));
                    }
                    if self.s.info.gs_output != Some(GsOutput::Points) {
                        return e("streams other than 0 need points output".into());
                    }
                }
                if io.slot == Some(GlSlot::Edge)
                    && !(st == Stage::Vertex
                        && output
                        && var.ty == Type::F32
                        && var.array.is_none()
                        && io.builtin.is_none())
                {
                    return e(
                        "slot=edge (the edge flag) only on an f32 vertex shader output \
                              at a location"
                            .into(),
                    );
                }
                if let Some(x) = io.xfb {
                    if !(output && st.is_pre_raster()) {
                        return e(
                            "xfb only on outputs of vertex, tess_eval or geometry shaders".into(),
                        );
                    }
                    if x.buffer >= MAX_XFB_BUFFERS {
                        return e(format!("xfb_buffer {} out of range", x.buffer));
                    }
                    if !x.offset.is_multiple_of(4) || !x.stride.is_multiple_of(4) || x.stride == 0 {
                        return e(
                            "xfb_offset and xfb_stride must be multiples of 4 (stride > 0)".into(),
                        );
                    }
                    if var.ty.bits != 32 || var.ty.is_bool() {
                        return e(format!("captured type {} must be 32-bit non-bool", var.ty));
                    }
                    let size = xfb_size(var);
                    if u64::from(x.offset) + u64::from(size) > u64::from(x.stride) {
                        return e(format!(
                            "xfb_offset {} + {size} bytes exceeds xfb_stride {}",
                            x.offset, x.stride
                        ));
                    }
                }
                match (io.builtin, io.location) {
                    (Some(_), Some(_)) => return e("both a location and a built-in".into()),
                    (None, None) => return e("needs a location or a built-in".into()),
                    (None, Some(l)) => {
                        // 64-bit vertex inputs (GL's dvec/u64vec attributes):
                        // a 3- or 4-component one takes two locations.
                        let wide = st == Stage::Vertex
                            && !output
                            && var.ty.bits == 64
                            && !var.ty.is_bool()
                            && var.array.is_none();
                        if wide {
                            let slots = if var.ty.comps > 2 { 2 } else { 1 };
                            if l + slots > 32 || io.component != 0 {
                                return e("64-bit vertex input: location/component out of range (component must be 0)".into());
                            }
                        } else if l >= 32
                            || io.component >= 4
                            || io.component + var.ty.comps as u32 > 4
                        {
                            return e("location/component out of range".into());
                        }
                        if !wide && (var.ty.is_bool() || var.ty.bits != 32) {
                            return e(format!(
                                "interface type {} must be 32-bit non-bool (64-bit only on vertex inputs)",
                                var.ty
                            ));
                        }
                        if st == Stage::Fragment
                            && !output
                            && var.ty.is_int()
                            && io.interp != Interp::Flat
                        {
                            return e("integer fragment inputs must be flat".into());
                        }
                        if st == Stage::Fragment && output && var.array.is_some() {
                            return e("fragment outputs cannot be arrays".into());
                        }
                        if io.index != 0
                            && !(st == Stage::Fragment && output && l == 0 && io.index == 1)
                        {
                            return e("index=1 only on a fragment output at location 0 (dual-source blending)".into());
                        }
                        if var.inner.is_some_and(|m| l + m > 32) {
                            return e("location/component out of range".into());
                        }
                        if per_vertex_io {
                            match var.array {
                                None => return e("per-vertex interface needs an array".into()),
                                Some(n) => self.check_vertex_count(n, output).map_err(|m| {
                                    Error::new(format!("variable @{}: {m}", var.name))
                                })?,
                            }
                        } else if st == Stage::Vertex && !output && var.array.is_some() {
                            return e("vertex inputs cannot be arrays".into());
                        }
                    }
                    (Some(b @ (BuiltIn::ClipDistance | BuiltIn::CullDistance)), None)
                        if per_vertex_io =>
                    {
                        // `gl_in[i].gl_ClipDistance[j]` (and a control
                        // shader's `gl_out[i]`): per vertex, an array of
                        // 1..=8.
                        if var.ty != Type::F32 {
                            return e(format!("built-in {} must have type f32", b.name()));
                        }
                        match (var.array, var.inner) {
                            (Some(n), Some(m)) if m <= 8 => self
                                .check_vertex_count(n, output)
                                .map_err(|m| Error::new(format!("variable @{}: {m}", var.name)))?,
                            _ => {
                                return e(format!(
                                    "per-vertex built-in {} must be an array (per vertex) of \
                                     arrays of 1..=8",
                                    b.name()
                                ))
                            }
                        }
                    }
                    (Some(b), None) => {
                        if var.inner.is_some() {
                            return e(format!("built-in {} is not an array of arrays", b.name()));
                        }
                        let Some((ty, arr)) = builtin_rule(b, st, output) else {
                            return e(format!(
                                "built-in {} is not a {} of {} shaders",
                                b.name(),
                                if output { "output" } else { "input" },
                                st.name()
                            ));
                        };
                        if var.ty != ty {
                            return e(format!("built-in {} must have type {ty}", b.name()));
                        }
                        match arr {
                            None => match var.array {
                                Some(n) if n <= 8 => {}
                                _ => {
                                    return e(format!(
                                        "built-in {} must be an array of 1..=8",
                                        b.name()
                                    ))
                                }
                            },
                            Some(None) if var.array.is_some() => {
                                return e(format!("built-in {} is not an array", b.name()))
                            }
                            Some(Some(0)) => match var.array {
                                Some(n) => self.check_vertex_count(n, output).map_err(|m| {
                                    Error::new(format!("variable @{}: {m}", var.name))
                                })?,
                                None => {
                                    return e(format!(
                                        "per-vertex built-in {} needs an array",
                                        b.name()
                                    ))
                                }
                            },
                            Some(Some(n)) if var.array != Some(n) => {
                                return e(format!("built-in {} must be an array of {n}", b.name()))
                            }
                            _ => {}
                        }
                    }
                }
            }
            VarKind::Local => {}
            VarKind::Shared => {
                if st != Stage::Compute {
                    return e("shared memory only in compute shaders".into());
                }
                if var.array.is_none() || var.ty.is_bool() {
                    return e("shared variables are arrays of non-bool elements".into());
                }
            }
            VarKind::Ubo { slot, size } => {
                if !slot_ok(DescClass::Ubo, *slot) {
                    return e(format!("constant buffer slot {slot} out of range"));
                }
                if *size == 0 || size % 16 != 0 || *size > 65536 {
                    return e("UBO size must be a nonzero multiple of 16 up to 65536".into());
                }
            }
            VarKind::Ssbo { slot, .. } => {
                if !slot_ok(DescClass::Ssbo, *slot) {
                    return e(format!("shader buffer slot {slot} out of range"));
                }
            }
            VarKind::Push { size } => {
                if *size == 0 || size % 4 != 0 || *size > 256 {
                    return e(
                        "push constant size must be a nonzero multiple of 4 up to 256".into(),
                    );
                }
                if self.s.vars[..idx]
                    .iter()
                    .any(|o| matches!(o.kind, VarKind::Push { .. }))
                {
                    return e("only one push constant block".into());
                }
            }
            VarKind::Texture(t) => {
                if !slot_ok(DescClass::SamplerView, t.slot) {
                    return e(format!("sampler view slot {} out of range", t.slot));
                }
                if t.sampled == BaseType::Bool {
                    return e("sampled type must be float, int or uint".into());
                }
                if t.ms && t.dim != Dim::D2 {
                    return e("multisample textures must be 2d".into());
                }
                if t.arrayed && matches!(t.dim, Dim::D3 | Dim::Buffer | Dim::Rect) {
                    return e(format!("{} textures cannot be arrays", t.dim.name()));
                }
                if t.shadow
                    && (matches!(t.dim, Dim::D3 | Dim::Buffer)
                        || t.ms
                        || t.sampled != BaseType::Float)
                {
                    return e("shadow textures must be float 1d/2d/cube/rect".into());
                }
            }
            VarKind::Image(im) => {
                if !slot_ok(DescClass::Image, im.slot) {
                    return e(format!("image slot {} out of range", im.slot));
                }
                if let Some(b) = im.format.base() {
                    if b != im.sampled {
                        return e("image sampled type does not match its format".into());
                    }
                }
                if im.sampled == BaseType::Bool {
                    return e("image type must be float, int or uint".into());
                }
                if im.ms && im.dim != Dim::D2 {
                    return e("multisample images must be 2d".into());
                }
                if im.arrayed && matches!(im.dim, Dim::D3 | Dim::Buffer | Dim::Rect) {
                    return e(format!("{} images cannot be arrays", im.dim.name()));
                }
                if im.dim == Dim::Rect {
                    return e("rect images are not supported".into());
                }
                if im.readonly && im.writeonly {
                    return e("image both readonly and writeonly".into());
                }
            }
            VarKind::FbFetch(f) => {
                if st != Stage::Fragment {
                    return e("fbfetch only in fragment shaders".into());
                }
                if f.slot >= binding::MAX_FBFETCH_SLOTS {
                    return e(format!("fbfetch slot {} out of range", f.slot));
                }
                if f.sampled == BaseType::Bool {
                    return e("fbfetch type must be float, int or uint".into());
                }
                match f.dim {
                    Dim::D2 => {}
                    Dim::D1 if !f.ms => {}
                    Dim::D3 if !f.ms && f.layered => {}
                    d => {
                        return e(format!(
                            "fbfetch of dim {} (2d; 1d without ms; 3d layered, without ms)",
                            d.name()
                        ))
                    }
                }
            }
        }
        Ok(())
    }

    fn check_vertex_count(&self, n: u32, output: bool) -> std::result::Result<(), String> {
        let i = &self.s.info;
        let want = match self.s.stage {
            Stage::Geometry => i.gs_input.map(|p| p.vertices()),
            Stage::TessCtrl if output => i.tcs_vertices,
            _ => None,
        };
        match want {
            Some(w) if w != n => Err(format!("per-vertex array must have {w} elements")),
            _ if n == 0 || n > 32 => Err("per-vertex array length must be 1..=32".into()),
            _ => Ok(()),
        }
    }

    // -- body -------------------------------------------------------------

    fn use_(&self, v: ValueId) -> Result<Type> {
        match self.types.get(v.0 as usize) {
            None => Err(self.err(format!("%{} is out of range", v.0))),
            Some(None) => Err(self.err(format!("%{} is used but never defined before", v.0))),
            Some(Some(t)) => {
                if self.visible[v.0 as usize] {
                    Ok(*t)
                } else {
                    Err(self.err(format!("%{} does not dominate this use", v.0)))
                }
            }
        }
    }

    fn body(&mut self, body: &[Node]) -> Result<()> {
        let mut defined = Vec::new();
        let r = self.body_inner(body, &mut defined);
        for v in defined {
            self.visible[v as usize] = false;
        }
        r
    }

    fn body_inner(&mut self, body: &[Node], defined: &mut Vec<u32>) -> Result<()> {
        for n in body {
            match n {
                Node::Instr(i) => {
                    self.loc = i.loc;
                    self.value = i.dest.map(|d| d.0);
                    self.instr(i)?;
                    if let Some((v, t)) = i.dest {
                        let slot = self
                            .types
                            .get_mut(v.0 as usize)
                            .ok_or_else(|| Error::at(i.loc, format!("%{} is out of range", v.0)))?;
                        if slot.is_some() {
                            return Err(Error::at(i.loc, format!("%{} is defined twice", v.0)));
                        }
                        *slot = Some(t);
                        self.visible[v.0 as usize] = true;
                        self.consts[v.0 as usize] = matches!(i.op, Op::Const(_));
                        defined.push(v.0);
                    }
                }
                Node::If(f) => {
                    self.loc = f.loc;
                    self.value = None;
                    let t = self.use_(f.cond)?;
                    if t != Type::BOOL {
                        return Err(
                            self.err(format!("if condition %{} must be bool, not {t}", f.cond.0))
                        );
                    }
                    self.body(&f.then_body)?;
                    self.body(&f.else_body)?;
                }
                Node::Loop(l) => {
                    self.loop_depth += 1;
                    let r = self.body(&l.body);
                    self.loop_depth -= 1;
                    r?;
                }
                Node::Jump(j, loc) => {
                    self.loc = *loc;
                    self.value = None;
                    match j {
                        Jump::Break | Jump::Continue if self.loop_depth == 0 => {
                            return Err(self.err(format!("{} outside of a loop", j.name())))
                        }
                        Jump::Discard if self.s.stage != Stage::Fragment => {
                            return Err(self.err("discard outside of a fragment shader"))
                        }
                        _ => {}
                    }
                }
            }
        }
        Ok(())
    }

    fn var(&self, v: VarId) -> Result<&'a Variable> {
        self.s
            .vars
            .get(v.0 as usize)
            .ok_or_else(|| self.err(format!("variable #{} does not exist", v.0)))
    }

    fn instr(&mut self, i: &Instr) -> Result<()> {
        let dest = i.dest.map(|d| d.1);
        if let Some(t) = dest {
            if Type::new(t.base, t.bits, t.comps).is_none() {
                return Err(self.err(format!("illegal type {t}")));
            }
        }
        let need = |d: Option<Type>| d.ok_or_else(|| self.err("instruction needs a destination"));
        match &i.op {
            Op::Const(bits) => {
                let t = need(dest)?;
                if bits.len() != t.comps as usize {
                    return Err(self.err(format!(
                        "constant has {} components, type {t} needs {}",
                        bits.len(),
                        t.comps
                    )));
                }
                let max = if t.is_bool() {
                    1
                } else if t.bits == 64 {
                    u64::MAX
                } else {
                    (1u64 << t.bits) - 1
                };
                if bits.iter().any(|&b| b > max) {
                    return Err(self.err(format!("constant does not fit in {t}")));
                }
                Ok(())
            }
            Op::Undef => need(dest).map(|_| ()),
            Op::Alu(op, srcs) => {
                let t = need(dest)?;
                let ts = srcs
                    .iter()
                    .map(|&s| self.use_(s))
                    .collect::<Result<Vec<_>>>()?;
                self.alu(*op, t, &ts)
            }
            Op::Swizzle(s, comps) => {
                let t = need(dest)?;
                let st = self.use_(*s)?;
                if comps.len() != t.comps as usize
                    || comps.iter().any(|&c| c >= st.comps)
                    || st.scalar() != t.scalar()
                {
                    return Err(self.err(format!("bad swizzle of {st} to {t}")));
                }
                Ok(())
            }
            Op::Insert(v, x, c) => {
                let t = need(dest)?;
                let (vt, xt) = (self.use_(*v)?, self.use_(*x)?);
                if vt != t || xt != t.scalar() || *c >= t.comps {
                    return Err(self.err(format!("bad insert of {xt} into {vt} as {t}")));
                }
                Ok(())
            }
            Op::Intrinsic(intr) => self.intrinsic(intr, dest),
            Op::Tex(t) => self.tex(t, need(dest)?),
        }
    }

    fn alu(&self, op: AluOp, t: Type, ts: &[Type]) -> Result<()> {
        use AluOp::*;
        let bad = || {
            Err(self.err(format!(
                "{}: bad operand types ({}) for result {t}",
                op.name(),
                list(ts)
            )))
        };
        let n = |k: usize| {
            if ts.len() == k {
                Ok(())
            } else {
                Err(self.err(format!("{} takes {k} sources, got {}", op.name(), ts.len())))
            }
        };
        if op.is_derivative() && self.s.stage != Stage::Fragment {
            return Err(self.err(format!("{} is only legal in fragment shaders", op.name())));
        }
        if matches!(
            op,
            Fsin | Fcos
                | Ftan
                | Fasin
                | Facos
                | Fatan
                | Fatan2
                | Fsinh
                | Fcosh
                | Ftanh
                | Fexp
                | Fexp2
                | Flog
                | Flog2
                | Fpow
        ) && t.bits == 64
        {
            return Err(self.err(format!("{} is not available for 64-bit floats", op.name())));
        }
        match op.sig() {
            AluSig::Same(k, c) => {
                n(k as usize)?;
                if !class_ok(t, c) || ts.iter().any(|&x| x != t) {
                    return bad();
                }
                if matches!(op, BitfieldReverse) && t.bits != 32 {
                    return bad();
                }
                Ok(())
            }
            AluSig::Cmp(k, c) => {
                n(k as usize)?;
                if t != Type::bool(ts[0].comps)
                    || !class_ok(ts[0], c)
                    || ts.iter().any(|&x| x != ts[0])
                {
                    return bad();
                }
                Ok(())
            }
            AluSig::Conv(from, to) => {
                n(1)?;
                let s = ts[0];
                if !class_ok(s, from) || !class_ok(t, to) || s.comps != t.comps {
                    return bad();
                }
                let ok = match op {
                    F2i => t.base == BaseType::Int,
                    F2u => t.base == BaseType::Uint,
                    _ => true,
                };
                if !ok {
                    return bad();
                }
                Ok(())
            }
            AluSig::Special => {
                let f32n = |c| Type::float(32, c);
                let ok = match op {
                    Fdot | Fdistance => {
                        ts.len() == 2 && ts[0].is_float() && ts[1] == ts[0] && t == ts[0].scalar()
                    }
                    Flength => ts.len() == 1 && ts[0].is_float() && t == ts[0].scalar(),
                    Fcross => {
                        ts.len() == 2 && t.is_float() && t.comps == 3 && ts.iter().all(|&x| x == t)
                    }
                    Fldexp => {
                        ts.len() == 2
                            && t.is_float()
                            && ts[0] == t
                            && ts[1] == Type::int(32, t.comps)
                    }
                    Bany | Ball => ts.len() == 1 && ts[0].is_bool() && t == Type::BOOL,
                    Bcsel => {
                        ts.len() == 3
                            && ts[0].is_bool()
                            && (ts[0].comps == 1 || ts[0].comps == t.comps)
                            && ts[1] == t
                            && ts[2] == t
                    }
                    BitCount | FindLsb | UfindMsb | IfindMsb => {
                        ts.len() == 1 && ts[0].is_int() && ts[0].bits == 32 && t == ts[0]
                    }
                    // Offset and count: one `i32` for all components, or
                    // one per component (split for SPIR-V by
                    // `passes::split`).
                    UbitfieldExtract | IbitfieldExtract => {
                        let oc = |x: Type| x == Type::I32 || x == Type::int(32, t.comps);
                        ts.len() == 3
                            && t.is_int()
                            && t.bits == 32
                            && ts[0] == t
                            && oc(ts[1])
                            && oc(ts[2])
                    }
                    BitfieldInsert => {
                        let oc = |x: Type| x == Type::I32 || x == Type::int(32, t.comps);
                        ts.len() == 4
                            && t.is_int()
                            && t.bits == 32
                            && ts[0] == t
                            && ts[1] == t
                            && oc(ts[2])
                            && oc(ts[3])
                    }
                    Bitcast => {
                        ts.len() == 1
                            && !t.is_bool()
                            && !ts[0].is_bool()
                            && t.bits as u32 * t.comps as u32
                                == ts[0].bits as u32 * ts[0].comps as u32
                    }
                    PackHalf2x16 | PackSnorm2x16 | PackUnorm2x16 => {
                        ts == [f32n(2)] && t == Type::U32
                    }
                    PackSnorm4x8 | PackUnorm4x8 => ts == [f32n(4)] && t == Type::U32,
                    UnpackHalf2x16 | UnpackSnorm2x16 | UnpackUnorm2x16 => {
                        ts == [Type::U32] && t == f32n(2)
                    }
                    UnpackSnorm4x8 | UnpackUnorm4x8 => ts == [Type::U32] && t == f32n(4),
                    Vec => {
                        !ts.is_empty()
                            && ts.iter().all(|x| x.scalar() == t.scalar())
                            && ts.iter().map(|x| x.comps as u32).sum::<u32>() == t.comps as u32
                    }
                    _ => false,
                };
                if ok {
                    Ok(())
                } else {
                    bad()
                }
            }
        }
    }

    fn address(&self, v: ValueId) -> Result<()> {
        let t = self.use_(v)?;
        if !(t.is_int() && t.comps == 1 && t.bits == 64) {
            return Err(self.err(format!(
                "address %{} must be a 64-bit integer scalar, not {t}",
                v.0
            )));
        }
        Ok(())
    }

    fn int_scalar(&self, v: ValueId, what: &str) -> Result<()> {
        let t = self.use_(v)?;
        if !(t.is_int() && t.comps == 1 && t.bits == 32) {
            return Err(self.err(format!(
                "{what} %{} must be a 32-bit integer scalar, not {t}",
                v.0
            )));
        }
        Ok(())
    }

    fn intrinsic(&self, intr: &Intrinsic, dest: Option<Type>) -> Result<()> {
        use Intrinsic::*;
        let st = self.s.stage;
        let has_dest = !matches!(
            intr,
            Store { .. }
                | StoreSsbo { .. }
                | StoreGlobal { .. }
                | ImageStore { .. }
                | Barrier { .. }
                | Demote
                | EmitVertex { .. }
                | EndPrimitive { .. }
        );
        if has_dest != dest.is_some() {
            return Err(self.err(if has_dest {
                "intrinsic needs a destination"
            } else {
                "intrinsic has no result"
            }));
        }
        let t = dest.unwrap_or(Type::U32);
        let global_type = |t: Type| -> Result<()> {
            if t.is_bool() || t.bits != 32 {
                return Err(self.err(format!(
                    "global memory access type {t} must be 32-bit non-bool"
                )));
            }
            Ok(())
        };
        let mem_type = |t: Type| -> Result<()> {
            if t.is_bool() || t.bits == 16 {
                return Err(self.err(format!(
                    "buffer access type {t} must be 32- or 64-bit non-bool"
                )));
            }
            Ok(())
        };
        match intr {
            Interp { var, index, at } => {
                let v = self.var(*var)?;
                let name = at.name();
                if st != Stage::Fragment || !v.is_input() || v.builtin().is_some() {
                    return Err(self.err(format!(
                        "{name} needs a fragment shader's user input, not @{}",
                        v.name
                    )));
                }
                if !v.ty.is_float() || v.ty.bits != 32 || t != v.ty {
                    return Err(self.err(format!(
                        "{name} of @{} ({}) must give its own 32-bit float type",
                        v.name, v.ty
                    )));
                }
                match (index, v.array) {
                    (Some(i), Some(_)) => self.int_scalar(*i, "index")?,
                    (None, None) => {}
                    _ => return Err(self.err(format!("@{}: index and array disagree", v.name))),
                }
                match at {
                    InterpAt::Offset(offset) => {
                        if self.use_(*offset)? != Type::F32.with_comps(2) {
                            return Err(self.err("interp_at_offset: the offset must be f32x2"));
                        }
                    }
                    InterpAt::Sample(sample) => {
                        if self.use_(*sample)? != Type::I32 {
                            return Err(self.err("interp_at_sample: the sample must be i32"));
                        }
                    }
                    InterpAt::Centroid => {}
                }
                Ok(())
            }
            Load { var, index } | Store { var, index, .. } => {
                let v = self.var(*var)?;
                let is_store = matches!(intr, Store { .. });
                match &v.kind {
                    VarKind::Input(_) if is_store => {
                        return Err(self.err(format!("cannot store to input @{}", v.name)))
                    }
                    VarKind::Input(_) | VarKind::Output(_) | VarKind::Local | VarKind::Shared => {}
                    _ => return Err(self.err(format!("load/store cannot access @{}", v.name))),
                }
                match (index, v.array) {
                    (Some(i), Some(_)) => self.int_scalar(*i, "index")?,
                    (None, None) => {}
                    (Some(_), None) => return Err(self.err(format!("@{} is not an array", v.name))),
                    (None, Some(_)) => {
                        return Err(self.err(format!("@{} is an array and needs an index", v.name)))
                    }
                }
                let vt = if let Store { value, .. } = intr {
                    self.use_(*value)?
                } else {
                    t
                };
                if vt != v.ty {
                    return Err(
                        self.err(format!("@{} has type {}, access uses {vt}", v.name, v.ty))
                    );
                }
                if is_store
                    && st == Stage::TessCtrl
                    && v.is_output()
                    && v.array.is_some()
                    && v.io().is_some_and(|io| !io.patch)
                    && v.builtin() != Some(BuiltIn::ClipDistance)
                {
                    // Vulkan: per-vertex TCS outputs may only be written at gl_InvocationID;
                    // checked dynamically by the driver, not here.
                }
                Ok(())
            }
            LoadUbo { var, offset } | LoadPush { var, offset } | LoadSsbo { var, offset } => {
                let v = self.var(*var)?;
                let ok = match intr {
                    LoadUbo { .. } => matches!(v.kind, VarKind::Ubo { .. }),
                    LoadPush { .. } => matches!(v.kind, VarKind::Push { .. }),
                    _ => matches!(v.kind, VarKind::Ssbo { .. }),
                };
                if !ok {
                    return Err(self.err(format!("@{} is the wrong kind of buffer", v.name)));
                }
                self.int_scalar(*offset, "offset")?;
                mem_type(t)
            }
            LoadGlobal { address } => {
                self.address(*address)?;
                global_type(t)
            }
            StoreGlobal { address, value } => {
                self.address(*address)?;
                global_type(self.use_(*value)?)
            }
            StoreSsbo { var, offset, value } => {
                let v = self.var(*var)?;
                match v.kind {
                    VarKind::Ssbo {
                        readonly: false, ..
                    } => {}
                    _ => return Err(self.err(format!("@{} is not a writable SSBO", v.name))),
                }
                self.int_scalar(*offset, "offset")?;
                mem_type(self.use_(*value)?)
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
                let v = self.var(*var)?;
                let shared = matches!(intr, SharedAtomic { .. });
                let ok = if shared {
                    matches!(v.kind, VarKind::Shared)
                } else {
                    matches!(
                        v.kind,
                        VarKind::Ssbo {
                            readonly: false,
                            ..
                        }
                    )
                };
                if !ok {
                    return Err(self.err(format!("@{} cannot be used by this atomic", v.name)));
                }
                self.int_scalar(*a, if shared { "index" } else { "offset" })?;
                self.atomic_types(*op, t, *data, *compare)?;
                if !shared && t.bits != 32 {
                    return Err(self.err("SSBO atomics are 32-bit"));
                }
                if shared && v.ty != t {
                    return Err(self.err(format!(
                        "atomic type {t} does not match @{} ({})",
                        v.name, v.ty
                    )));
                }
                Ok(())
            }
            ImageLoad { var, coord, sample }
            | ImageStore {
                var, coord, sample, ..
            }
            | ImageAtomic {
                var, coord, sample, ..
            } => {
                let v = self.var(*var)?;
                let VarKind::Image(im) = &v.kind else {
                    return Err(self.err(format!("@{} is not an image", v.name)));
                };
                let ct = self.use_(*coord)?;
                let want = Type::int(32, image_coord_comps(im.dim, im.arrayed));
                if ct != want {
                    return Err(self.err(format!("image coordinate must be {want}, not {ct}")));
                }
                match (sample, im.ms) {
                    (Some(s), true) => self.int_scalar(*s, "sample")?,
                    (None, false) => {}
                    _ => return Err(self.err("sample index needed exactly for multisample images")),
                }
                let texel = Type {
                    base: im.sampled,
                    bits: 32,
                    comps: 4,
                };
                match intr {
                    ImageLoad { .. } => {
                        if im.writeonly {
                            return Err(self.err("load from writeonly image"));
                        }
                        if t != texel {
                            return Err(self.err(format!("image_load result must be {texel}")));
                        }
                    }
                    ImageStore { value, .. } => {
                        if im.readonly {
                            return Err(self.err("store to readonly image"));
                        }
                        let vt = self.use_(*value)?;
                        if vt != texel {
                            return Err(
                                self.err(format!("image_store value must be {texel}, not {vt}"))
                            );
                        }
                    }
                    ImageAtomic {
                        op, data, compare, ..
                    } => {
                        // GLSL 4.50: exchange also on r32f images, of floats.
                        let float_exchange =
                            im.format == ImageFormat::R32f && *op == AtomicOp::Exchange;
                        if !(matches!(im.format, ImageFormat::R32ui | ImageFormat::R32i)
                            || float_exchange)
                            || im.readonly
                            || im.writeonly
                        {
                            return Err(self.err(
                                "image atomics need a read-write r32ui or r32i image (or r32f, \
                                 for exchange)",
                            ));
                        }
                        if float_exchange {
                            if t != Type::F32 || self.use_(*data)? != t || compare.is_some() {
                                return Err(self.err("an r32f image exchanges f32 data for an f32"));
                            }
                        } else {
                            self.atomic_types(*op, t, *data, *compare)?;
                        }
                        if t.base != im.sampled {
                            return Err(self.err("atomic type must match the image format"));
                        }
                    }
                    _ => {}
                }
                Ok(())
            }
            FbFetch { var, sample } => {
                let v = self.var(*var)?;
                let VarKind::FbFetch(f) = &v.kind else {
                    return Err(self.err(format!("@{} is not an fbfetch variable", v.name)));
                };
                match (sample, f.ms) {
                    (Some(s), true) => self.int_scalar(*s, "sample")?,
                    (None, false) => {}
                    _ => return Err(self.err("sample index needed exactly for ms fbfetch")),
                }
                let texel = Type {
                    base: f.sampled,
                    bits: 32,
                    comps: 4,
                };
                if t != texel {
                    return Err(self.err(format!("fbfetch result must be {texel}")));
                }
                Ok(())
            }
            ImageSize { var } | ImageSamples { var } => {
                let v = self.var(*var)?;
                let VarKind::Image(im) = &v.kind else {
                    return Err(self.err(format!("@{} is not an image", v.name)));
                };
                let want = if matches!(intr, ImageSamples { .. }) {
                    if !im.ms {
                        return Err(self.err("image_samples needs a multisample image"));
                    }
                    Type::I32
                } else {
                    Type::int(32, im.dim.size_comps(im.arrayed))
                };
                if t != want {
                    return Err(self.err(format!("result must be {want}")));
                }
                Ok(())
            }
            Barrier { exec, mem, modes } => {
                if let Some(e) = exec {
                    match e {
                        Scope::Subgroup => {}
                        Scope::Workgroup if matches!(st, Stage::Compute | Stage::TessCtrl) => {}
                        _ => {
                            return Err(self.err(format!(
                                "execution scope {} not allowed in {} shaders",
                                e.name(),
                                st.name()
                            )))
                        }
                    }
                } else if modes.0 == 0 {
                    return Err(self.err("a memory barrier needs memory modes"));
                }
                match mem {
                    Scope::Subgroup | Scope::Device => {}
                    Scope::Workgroup if st == Stage::Compute => {}
                    Scope::Invocation if modes.0 == 0 => {}
                    _ => {
                        return Err(self.err(format!(
                            "memory scope {} not allowed here (workgroup: compute only; invocation: modes=none only)",
                            mem.name()
                        )))
                    }
                }
                if modes.0 & !MemModes::ALL.0 != 0 {
                    return Err(self.err("bad memory modes"));
                }
                if modes.contains(MemModes::SHARED) && st != Stage::Compute {
                    return Err(self.err("shared memory barriers only in compute shaders"));
                }
                Ok(())
            }
            Vote { op, value } => {
                let vt = self.use_(*value)?;
                let ok = match op {
                    VoteOp::Any | VoteOp::All => vt == Type::BOOL,
                    VoteOp::Eq => vt.comps <= 4,
                };
                if !ok || t != Type::BOOL {
                    return Err(self.err(format!(
                        "{} takes {} and returns bool, not {vt} to {t}",
                        op.name(),
                        if *op == VoteOp::Eq {
                            "a scalar or vector"
                        } else {
                            "a bool"
                        }
                    )));
                }
                Ok(())
            }
            Demote | IsHelper => {
                if st != Stage::Fragment {
                    return Err(self.err("demote/is_helper only in fragment shaders"));
                }
                if matches!(intr, IsHelper) && t != Type::BOOL {
                    return Err(self.err("is_helper returns bool"));
                }
                Ok(())
            }
            EmitVertex { stream } | EndPrimitive { stream } => {
                if st != Stage::Geometry {
                    return Err(self.err("emit_vertex/end_primitive only in geometry shaders"));
                }
                if *stream >= 4 {
                    return Err(self.err("stream must be < 4"));
                }
                if *stream != 0 && self.s.info.gs_output != Some(GsOutput::Points) {
                    return Err(self.err("streams other than 0 need points output"));
                }
                Ok(())
            }
        }
    }

    fn atomic_types(
        &self,
        op: AtomicOp,
        t: Type,
        data: ValueId,
        compare: Option<ValueId>,
    ) -> Result<()> {
        let dt = self.use_(data)?;
        if !(t.is_int() && t.comps == 1 && (t.bits == 32 || t.bits == 64)) || dt != t {
            return Err(self.err(format!(
                "atomic data and result must be one 32/64-bit integer type, got {dt} and {t}"
            )));
        }
        match (op == AtomicOp::CompSwap, compare) {
            (true, Some(c)) => {
                if self.use_(c)? != t {
                    return Err(self.err("comparator type must match"));
                }
            }
            (false, None) => {}
            _ => return Err(self.err("a comparator is needed exactly for comp_swap")),
        }
        Ok(())
    }

    fn tex(&self, tx: &Tex, t: Type) -> Result<()> {
        use TexOp::*;
        let v = self.var(tx.var)?;
        let VarKind::Texture(ti) = &v.kind else {
            return Err(self.err(format!("@{} is not a texture", v.name)));
        };
        let s = &tx.srcs;
        let op = tx.op;
        let name = op.name();
        let implicit = matches!(op, Tex | Txb | Lod);
        if implicit && self.s.stage != Stage::Fragment {
            return Err(self.err(format!(
                "{name} needs implicit derivatives: fragment shaders only"
            )));
        }
        let allowed: &[&str] = match op {
            Tex => &["coord", "comparator", "offset", "min_lod"],
            Txb => &["coord", "bias", "comparator", "offset", "min_lod"],
            Txl => &["coord", "lod", "comparator", "offset"],
            Txd => &["coord", "ddx", "ddy", "comparator", "offset", "min_lod"],
            Txf => &["coord", "lod", "offset"],
            TxfMs => &["coord", "ms_index"],
            Txs => &["lod"],
            Tg4 => &["coord", "comparator", "offset"],
            Lod => &["coord"],
            QueryLevels | TextureSamples => &[],
        };
        for (n, _) in s.list() {
            if !allowed.contains(&n) {
                return Err(self.err(format!("{name} does not take a {n} source")));
            }
        }
        let required: &[&str] = match op {
            Tex | Tg4 | Lod | TxfMs => &["coord"],
            Txb => &["coord", "bias"],
            Txl => &["coord", "lod"],
            Txd => &["coord", "ddx", "ddy"],
            Txf => &["coord"],
            _ => &[],
        };
        let present: Vec<&str> = s.list().iter().map(|x| x.0).collect();
        for r in required {
            if !present.contains(r) {
                return Err(self.err(format!("{name} needs a {r} source")));
            }
        }
        let dim = ti.dim;
        // Shape rules.
        if dim == Dim::Buffer && !matches!(op, Txf | Txs) {
            return Err(self.err(format!(
                "buffer textures only support txf and txs, not {name}"
            )));
        }
        if ti.ms != (op == TxfMs || op == TextureSamples) && !(ti.ms && op == Txs) {
            return Err(self.err(format!(
                "{name} on a {}multisample texture",
                if ti.ms { "" } else { "non-" }
            )));
        }
        if op == Txf && (dim == Dim::Cube) {
            return Err(self.err("txf on a cube texture"));
        }
        if op == Tg4 && matches!(dim, Dim::D1 | Dim::D3) {
            return Err(self.err("tg4 needs a 2d, cube or rect texture"));
        }
        if op == Tg4 && tx.component > 3 {
            return Err(self.err("tg4 component must be 0..3"));
        }
        if op == Lod && (dim == Dim::Rect) {
            return Err(self.err("lod query on a rect texture"));
        }
        let sampling = matches!(op, Tex | Txb | Txl | Txd | Tg4);
        if sampling && ti.shadow != s.comparator.is_some() {
            return Err(self.err(if ti.shadow {
                "shadow textures need a comparator"
            } else {
                "comparator needs a shadow texture"
            }));
        }
        if dim == Dim::Rect && !matches!(op, Tex | Txl | Txf | Txs | Tg4 | QueryLevels) {
            return Err(self.err(format!("{name} on a rect texture")));
        }
        if let Some(o) = s.offset {
            if op != Tg4 && !self.consts.get(o.0 as usize).copied().unwrap_or(false) {
                return Err(self.err(format!(
                    "{name}: a non-constant offset is only allowed on tg4"
                )));
            }
        }
        if dim == Dim::Cube && s.offset.is_some() {
            return Err(self.err("offsets are not allowed on cube textures"));
        }
        // Source types.
        let layers = ti.arrayed as u8;
        let ccomps = dim.coord_comps() + layers;
        if let Some(c) = s.coord {
            let ct = self.use_(c)?;
            let want = if matches!(op, Txf | TxfMs) {
                Type::int(32, if dim == Dim::Buffer { 1 } else { ccomps })
            } else if op == Lod {
                Type::float(32, dim.coord_comps())
            } else {
                Type::float(32, ccomps)
            };
            if ct != want {
                return Err(self.err(format!("coord must be {want}, not {ct}")));
            }
        }
        let chk = |o: Option<ValueId>, want: Type, what: &str| -> Result<()> {
            if let Some(v) = o {
                let vt = self.use_(v)?;
                if vt != want {
                    return Err(self.err(format!("{what} must be {want}, not {vt}")));
                }
            }
            Ok(())
        };
        chk(s.bias, Type::F32, "bias")?;
        chk(
            s.lod,
            if matches!(op, Txf | Txs) {
                Type::I32
            } else {
                Type::F32
            },
            "lod",
        )?;
        chk(s.ddx, Type::float(32, dim.coord_comps()), "ddx")?;
        chk(s.ddy, Type::float(32, dim.coord_comps()), "ddy")?;
        chk(s.comparator, Type::F32, "comparator")?;
        chk(s.offset, Type::int(32, dim.coord_comps()), "offset")?;
        chk(s.min_lod, Type::F32, "min_lod")?;
        chk(s.ms_index, Type::I32, "ms_index")?;
        if (op == Txf || op == Txs) && dim == Dim::Buffer && s.lod.is_some() {
            return Err(self.err("buffer textures take no lod"));
        }
        if op == Txs && ti.ms && s.lod.is_some() {
            return Err(self.err("multisample size queries take no lod"));
        }
        // Result type.
        let texel = Type {
            base: ti.sampled,
            bits: 32,
            comps: 4,
        };
        let want = match op {
            Tex | Txb | Txl | Txd if ti.shadow => Type::F32,
            Tex | Txb | Txl | Txd | Txf | TxfMs => texel,
            Tg4 if ti.shadow => Type::vec4(),
            Tg4 => texel,
            Txs => Type::int(32, dim.size_comps(ti.arrayed)),
            Lod => Type::float(32, 2),
            QueryLevels | TextureSamples => Type::I32,
        };
        if t != want {
            return Err(self.err(format!("{name} result must be {want}, not {t}")));
        }
        Ok(())
    }
}

fn list(ts: &[Type]) -> String {
    ts.iter()
        .map(|t| t.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Coordinate components of a storage image access (cube faces and layers
/// folded into the third component).
pub fn image_coord_comps(dim: Dim, arrayed: bool) -> u8 {
    if dim == Dim::Cube {
        3
    } else {
        dim.coord_comps() + arrayed as u8
    }
}
