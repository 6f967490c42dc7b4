//! The SPIR-V emitter (modelled on naga's `back/spv`).
//!
//! Design:
//! - One pass over the structured body. Instructions are encoded into
//!   words as they are made (operands through rspirv's `Assemble`), one
//!   word buffer per module section (names, annotations,
//!   types/constants/globals, function-scope variables, the function's
//!   blocks); [`emit`] concatenates them after the capabilities,
//!   extensions, imports, memory model, entry point and execution modes.
//!   Nothing is built per instruction but its words: no `rspirv::dr`
//!   instruction objects, which cost an allocation each.
//!   [`emit_module`] loads the words back into an `rspirv::dr::Module`
//!   (for disassembly).
//! - Types and constants are interned in hash maps and appended to the
//!   global section on first use, so emission is linear in shader size and
//!   the id order only depends on the IR: the same IR and target give the
//!   same words.
//! - Capabilities and extensions are collected as they are needed (a
//!   16-bit type, a cube-array texture, a fine derivative, …) and written
//!   sorted at the end: a module asks for exactly what it uses.
//! - Structured control flow maps one to one: `if` → header with
//!   `OpSelectionMerge` + then/else blocks + merge block; `loop` → header
//!   with `OpLoopMerge`, body, continue block (back edge), merge block.
//!   Code after a jump is dead and not emitted; merge blocks nothing can
//!   reach get `OpUnreachable`.
//! - Memory: UBOs are `struct { uvec4 data[size/16]; }` (std140-legal),
//!   SSBOs `struct { uint data[]; }`, push constants `struct { uint
//!   data[size/4]; }`; typed loads/stores are assembled from 32-bit words
//!   with bitcasts, as NIR's byte-offset model wants. Descriptor sets and
//!   bindings come from [`crate::binding`].
//!
//! `ops.rs` holds the per-instruction lowering (ALU, intrinsics, textures).

mod ops;

use crate::binding::{self, DescClass};
use crate::error::{Error, Result};
use crate::ir::*;
use rspirv::binary::Assemble;
use rspirv::dr::{self, Operand};
use rspirv::spirv::{self, Capability, Decoration, Op as SOp, StorageClass, Word};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// The Vulkan environment to emit for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Target {
    /// Vulkan 1.1, SPIR-V 1.3 (the default).
    #[default]
    Vulkan1_1,
    /// Vulkan 1.2, SPIR-V 1.5.
    Vulkan1_2,
    /// Vulkan 1.3, SPIR-V 1.6.
    Vulkan1_3,
}

impl Target {
    pub fn spirv_version(self) -> (u8, u8) {
        match self {
            Target::Vulkan1_1 => (1, 3),
            Target::Vulkan1_2 => (1, 5),
            Target::Vulkan1_3 => (1, 6),
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Target::Vulkan1_1 => "vulkan1.1",
            Target::Vulkan1_2 => "vulkan1.2",
            Target::Vulkan1_3 => "vulkan1.3",
        }
    }
    pub fn from_name(s: &str) -> Option<Target> {
        [Target::Vulkan1_1, Target::Vulkan1_2, Target::Vulkan1_3]
            .into_iter()
            .find(|t| t.name() == s)
    }
    fn at_least_1_4(self) -> bool {
        self != Target::Vulkan1_1
    }
    /// SPIR-V 1.5 or later (physical storage buffers are core).
    pub(crate) fn at_least_1_5(self) -> bool {
        self != Target::Vulkan1_1
    }
}

/// A hasher for the interning maps (the Fx hash of rustc and Firefox):
/// the keys are small integers and ids, no attacker controls them, and
/// SipHash was a fifth of the emission time.
#[derive(Default, Clone, Copy)]
struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(w));
        }
    }
    fn write_u8(&mut self, x: u8) {
        self.write_u64(x as u64);
    }
    fn write_u16(&mut self, x: u16) {
        self.write_u64(x as u64);
    }
    fn write_u32(&mut self, x: u32) {
        self.write_u64(x as u64);
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

type FxHashMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

type FxHashSet<K> = HashSet<K, BuildHasherDefault<FxHasher>>;

/// The words of one module section.
#[derive(Default)]
struct Section(Vec<u32>);

impl Section {
    /// Appends an instruction, encoded as rspirv's assembler encodes a
    /// `dr::Instruction`: word count and opcode, result type, result id,
    /// operands.
    fn inst(&mut self, op: SOp, ty: Option<Word>, id: Option<Word>, operands: &[Operand]) {
        let w = &mut self.0;
        let start = w.len();
        w.push(op as u32);
        w.extend(ty);
        w.extend(id);
        for o in operands {
            o.assemble_into(w);
        }
        let n = (w.len() - start) as u32;
        w[start] |= n << 16;
    }
    /// [`Section::inst`] with id operands only.
    fn inst_ids(&mut self, op: SOp, ty: Option<Word>, id: Option<Word>, ids: &[Word]) {
        let w = &mut self.0;
        let n = 1 + ty.is_some() as u32 + id.is_some() as u32 + ids.len() as u32;
        w.push(op as u32 | n << 16);
        w.extend(ty);
        w.extend(id);
        w.extend_from_slice(ids);
    }
}

/// Emits SPIR-V words for a validated shader.
pub fn emit(s: &Shader, target: Target) -> Result<Vec<u32>> {
    // The workgroup size built-in is a constant in SPIR-V for Vulkan: a
    // fixed-size shader's loads of it become its `local_size`; a variable
    // size must have been chosen first.
    let uses_size = s
        .vars
        .iter()
        .any(|v| v.builtin() == Some(BuiltIn::WorkgroupSize));
    if s.stage == Stage::Compute && s.info.local_size_variable {
        return Err(Error::new(
            "compute shader with a variable workgroup size: choose the size with \
             passes::specialize_workgroup_size before emitting",
        ));
    }
    if uses_size {
        let mut c = s.clone();
        let size = c.info.local_size.unwrap_or([1, 1, 1]);
        crate::passes::specialize_workgroup_size(&mut c, size)?;
        let mut e = Emitter::new(&c, target);
        e.run()?;
        return Ok(e.finish());
    }
    let mut e = Emitter::new(s, target);
    e.run()?;
    Ok(e.finish())
}

/// Emits an rspirv module (for disassembly): [`emit`]'s words, loaded.
pub fn emit_module(s: &Shader, target: Target) -> Result<dr::Module> {
    let words = emit(s, target)?;
    rspirv::dr::load_words(words)
        .map_err(|e| Error::new(format!("emitter: cannot load its own words: {e}")))
}

/// Interned type keys.
#[derive(Clone, PartialEq, Eq, Hash)]
enum TyKey {
    Void,
    Bool,
    Int(u8, bool),
    Float(u8),
    Vector(Word, u8),
    Array(Word, u32, Option<u32>),
    RuntimeArray(Word, u32),
    Pointer(StorageClass, Word),
    Function(Word),
    Image(Word, spirv::Dim, u32, u32, u32, u32, spirv::ImageFormat),
    SampledImage(Word),
}

/// Per-variable emission data.
#[derive(Clone, Copy, Default)]
struct VarInfo {
    id: Word,
    /// Storage class of the variable.
    sc: Option<StorageClass>,
    /// Element type id (for access chains).
    elem: Word,
}

pub(crate) struct Emitter<'a> {
    s: &'a Shader,
    target: Target,
    next_id: Word,
    caps: BTreeSet<u32>,
    exts: BTreeSet<&'static str>,
    glsl: Option<Word>,
    types: FxHashMap<TyKey, Word>,
    consts: FxHashMap<(Type, [u64; 4]), Word>,
    globals: Section,
    annotations: Section,
    /// Targets of the decorations in `annotations`.
    decorated: FxHashSet<Word>,
    names: Section,
    vars: Vec<VarInfo>,
    interface: Vec<Word>,
    fn_vars: Section,
    /// SPIR-V id of each SSA value (0 = not emitted).
    vals: Vec<Word>,
    /// First component of each SSA value defined by `const` (`None` for
    /// other values).
    const_vals: Vec<Option<u64>>,
    /// The function's blocks (from the entry block's label on).
    code: Section,
    /// Whether a block is open (code after a jump is dead and dropped).
    open: bool,
    loops: Vec<(Word, Word)>,
    uses_frag_depth: bool,
    /// An output is captured by transform feedback: `Xfb` mode.
    uses_xfb: bool,
    uses_stencil: bool,
    /// Global memory (buffer device addresses) is accessed: the
    /// `PhysicalStorageBuffer64` addressing model.
    pub(crate) uses_global: bool,
    pending_io: Option<IoInfo>,
    /// IR type of each SSA value.
    vtys: Vec<Type>,
    pending_binding: Option<(u32, u32)>,
    entry_fn: Word,
    fn_ty: Word,
    void_ty: Word,
    /// SPIR-V type id per IR type (see [`Emitter::ty_slot`]; 0 = not yet).
    ty_cache: [Word; 64],
}

impl<'a> Emitter<'a> {
    fn new(s: &'a Shader, target: Target) -> Emitter<'a> {
        Emitter {
            s,
            target,
            next_id: 1,
            caps: BTreeSet::new(),
            exts: BTreeSet::new(),
            glsl: None,
            types: FxHashMap::default(),
            consts: FxHashMap::default(),
            globals: Section::default(),
            annotations: Section::default(),
            decorated: FxHashSet::default(),
            names: Section::default(),
            vars: vec![VarInfo::default(); s.vars.len()],
            interface: Vec::new(),
            fn_vars: Section::default(),
            vals: vec![0; s.next_value as usize],
            const_vals: vec![None; s.next_value as usize],
            code: Section(Vec::with_capacity(8 * s.next_value as usize)),
            open: false,
            loops: Vec::new(),
            uses_frag_depth: false,
            uses_xfb: false,
            uses_stencil: false,
            uses_global: false,
            pending_io: None,
            vtys: vec![Type::F32; s.next_value as usize],
            pending_binding: None,
            entry_fn: 0,
            fn_ty: 0,
            void_ty: 0,
            ty_cache: [0; 64],
        }
    }

    pub(crate) fn id(&mut self) -> Word {
        let i = self.next_id;
        self.next_id += 1;
        i
    }
    pub(crate) fn cap(&mut self, c: Capability) {
        self.caps.insert(c as u32);
    }
    pub(crate) fn ext(&mut self, e: &'static str) {
        self.exts.insert(e);
    }
    pub(crate) fn glsl(&mut self) -> Word {
        match self.glsl {
            Some(g) => g,
            None => {
                let g = self.id();
                self.glsl = Some(g);
                g
            }
        }
    }
    fn decorate(&mut self, target: Word, d: Decoration, extra: &[u32]) {
        let mut ops = vec![Operand::IdRef(target), Operand::Decoration(d)];
        for &x in extra {
            ops.push(if d == Decoration::BuiltIn {
                Operand::BuiltIn(builtin_from_u32(x))
            } else {
                Operand::LiteralBit32(x)
            });
        }
        self.decorated.insert(target);
        self.annotations.inst(SOp::Decorate, None, None, &ops);
    }
    fn member_decorate(&mut self, target: Word, member: u32, d: Decoration, extra: &[u32]) {
        let mut ops = vec![
            Operand::IdRef(target),
            Operand::LiteralBit32(member),
            Operand::Decoration(d),
        ];
        ops.extend(extra.iter().map(|&x| Operand::LiteralBit32(x)));
        self.decorated.insert(target);
        self.annotations.inst(SOp::MemberDecorate, None, None, &ops);
    }

    // -- types ------------------------------------------------------------

    fn intern(&mut self, key: TyKey, op: SOp, operands: &[Operand]) -> Word {
        if let Some(&id) = self.types.get(&key) {
            return id;
        }
        let id = self.id();
        self.globals.inst(op, None, Some(id), operands);
        self.types.insert(key, id);
        id
    }
    pub(crate) fn void(&mut self) -> Word {
        self.intern(TyKey::Void, SOp::TypeVoid, &[])
    }
    pub(crate) fn scalar_ty(&mut self, t: Type) -> Word {
        match t.base {
            BaseType::Bool => self.intern(TyKey::Bool, SOp::TypeBool, &[]),
            BaseType::Float => {
                match t.bits {
                    16 => self.cap(Capability::Float16),
                    64 => self.cap(Capability::Float64),
                    _ => {}
                }
                self.intern(
                    TyKey::Float(t.bits),
                    SOp::TypeFloat,
                    &[Operand::LiteralBit32(t.bits as u32)],
                )
            }
            BaseType::Int | BaseType::Uint => {
                match t.bits {
                    16 => self.cap(Capability::Int16),
                    64 => self.cap(Capability::Int64),
                    _ => {}
                }
                let signed = t.base == BaseType::Int;
                self.intern(
                    TyKey::Int(t.bits, signed),
                    SOp::TypeInt,
                    &[
                        Operand::LiteralBit32(t.bits as u32),
                        Operand::LiteralBit32(signed as u32),
                    ],
                )
            }
        }
    }
    /// Type id of a scalar/vector IR type.
    pub(crate) fn ty(&mut self, t: Type) -> Word {
        // Direct-mapped cache in front of the interning map: a type is
        // looked up several times per instruction. (A hit skips nothing
        // but the lookup: the capabilities were added on the first call.)
        let slot = Self::ty_slot(t);
        if let Some(&id) = slot.and_then(|k| self.ty_cache.get(k)) {
            if id != 0 {
                return id;
            }
        }
        let s = self.scalar_ty(t.scalar());
        let id = if t.comps == 1 {
            s
        } else {
            self.intern(
                TyKey::Vector(s, t.comps),
                SOp::TypeVector,
                &[Operand::IdRef(s), Operand::LiteralBit32(t.comps as u32)],
            )
        };
        if let Some(c) = slot.and_then(|k| self.ty_cache.get_mut(k)) {
            *c = id;
        }
        id
    }
    /// Index of `t` in `ty_cache`: base × {1, 16, 32, 64} bits × 1..=4
    /// components; `None` for anything else.
    fn ty_slot(t: Type) -> Option<usize> {
        let b = match t.bits {
            1 => 0,
            16 => 1,
            32 => 2,
            64 => 3,
            _ => return None,
        };
        if !(1..=4).contains(&t.comps) {
            return None;
        }
        Some(((t.base as usize) * 4 + b) * 4 + (t.comps as usize - 1))
    }
    fn array_ty(&mut self, elem: Word, len: u32, stride: Option<u32>) -> Word {
        let len_id = self.const_u32(len);
        let id = self.intern(
            TyKey::Array(elem, len, stride),
            SOp::TypeArray,
            &[Operand::IdRef(elem), Operand::IdRef(len_id)],
        );
        if let Some(st) = stride {
            if !self.decorated.contains(&id) {
                self.decorate(id, Decoration::ArrayStride, &[st]);
            }
        }
        id
    }
    pub(crate) fn ptr_ty(&mut self, sc: StorageClass, pointee: Word) -> Word {
        self.intern(
            TyKey::Pointer(sc, pointee),
            SOp::TypePointer,
            &[Operand::StorageClass(sc), Operand::IdRef(pointee)],
        )
    }
    #[allow(clippy::too_many_arguments)]
    fn image_ty(
        &mut self,
        sampled: BaseType,
        dim: Dim,
        depth: bool,
        arrayed: bool,
        ms: bool,
        storage: bool,
        format: ImageFormat,
    ) -> Word {
        let st = self.scalar_ty(Type {
            base: sampled,
            bits: 32,
            comps: 1,
        });
        let sdim = match dim {
            Dim::D1 => spirv::Dim::Dim1D,
            Dim::D2 | Dim::Rect => spirv::Dim::Dim2D,
            Dim::D3 => spirv::Dim::Dim3D,
            Dim::Cube => spirv::Dim::DimCube,
            Dim::Buffer => spirv::Dim::DimBuffer,
        };
        self.image_ty_dim(st, sdim, depth, arrayed, ms, storage, format)
    }

    /// `OpTypeImage` of sampled scalar type `st` and SPIR-V dimension
    /// `sdim` (interned).
    #[allow(clippy::too_many_arguments)]
    fn image_ty_dim(
        &mut self,
        st: Word,
        sdim: spirv::Dim,
        depth: bool,
        arrayed: bool,
        ms: bool,
        storage: bool,
        format: ImageFormat,
    ) -> Word {
        let fmt = spirv_format(format);
        let key = TyKey::Image(
            st,
            sdim,
            depth as u32,
            arrayed as u32,
            ms as u32,
            if storage { 2 } else { 1 },
            fmt,
        );
        self.intern(
            key,
            SOp::TypeImage,
            &[
                Operand::IdRef(st),
                Operand::Dim(sdim),
                Operand::LiteralBit32(depth as u32),
                Operand::LiteralBit32(arrayed as u32),
                Operand::LiteralBit32(ms as u32),
                Operand::LiteralBit32(if storage { 2 } else { 1 }),
                Operand::ImageFormat(fmt),
            ],
        )
    }

    // -- constants --------------------------------------------------------

    /// Constant of type `t` with per-component bit patterns `bits`.
    pub(crate) fn constant(&mut self, t: Type, bits: &[u64]) -> Word {
        let mut key = [0u64; 4];
        for (k, b) in key.iter_mut().zip(bits) {
            *k = *b;
        }
        if let Some(&id) = self.consts.get(&(t, key)) {
            return id;
        }
        let id = if t.comps == 1 {
            let ty = self.ty(t);
            let b = bits.first().copied().unwrap_or(0);
            let id = self.id();
            match t.base {
                BaseType::Bool => self.globals.inst_ids(
                    if b != 0 {
                        SOp::ConstantTrue
                    } else {
                        SOp::ConstantFalse
                    },
                    Some(ty),
                    Some(id),
                    &[],
                ),
                _ => {
                    let lit = match t.bits {
                        64 => Operand::LiteralBit64(b),
                        16 if t.base == BaseType::Int => {
                            Operand::LiteralBit32(b as u16 as i16 as i32 as u32)
                        }
                        16 => Operand::LiteralBit32(b as u16 as u32),
                        _ => Operand::LiteralBit32(b as u32),
                    };
                    self.globals.inst(SOp::Constant, Some(ty), Some(id), &[lit])
                }
            };
            id
        } else {
            let comps: Vec<Word> = bits
                .iter()
                .map(|&b| self.constant(t.scalar(), &[b]))
                .collect();
            let ty = self.ty(t);
            let id = self.id();
            self.globals
                .inst_ids(SOp::ConstantComposite, Some(ty), Some(id), &comps);
            id
        };
        self.consts.insert((t, key), id);
        id
    }
    pub(crate) fn const_u32(&mut self, x: u32) -> Word {
        self.constant(Type::U32, &[x as u64])
    }
    pub(crate) fn const_i32(&mut self, x: i32) -> Word {
        self.constant(Type::I32, &[x as u32 as u64])
    }
    /// A float constant `x` splatted to type `t`.
    pub(crate) fn const_float_splat(&mut self, t: Type, x: f64) -> Word {
        let b = match t.bits {
            16 => f32_to_f16_bits(x as f32) as u64,
            64 => x.to_bits(),
            _ => (x as f32).to_bits() as u64,
        };
        self.constant(t, &[b; 4][..(t.comps as usize).min(4)])
    }
    /// An integer constant splatted to type `t`.
    pub(crate) fn const_int_splat(&mut self, t: Type, x: u64) -> Word {
        let mask = if t.bits == 64 {
            u64::MAX
        } else {
            (1u64 << t.bits) - 1
        };
        self.constant(t, &[x & mask; 4][..(t.comps as usize).min(4)])
    }

    // -- blocks -----------------------------------------------------------

    /// Appends `op` with a fresh result id of type `ty` to the open block.
    /// Operands are words: ids, literals and enum values (every operand
    /// of a function-body instruction is one word).
    pub(crate) fn op(&mut self, op: SOp, ty: Word, ids: &[Word]) -> Word {
        let id = self.id();
        if self.open {
            self.code.inst_ids(op, Some(ty), Some(id), ids);
        }
        id
    }
    /// [`Emitter::op`] without a result.
    pub(crate) fn op_void(&mut self, op: SOp, ids: &[Word]) {
        if self.open {
            self.code.inst_ids(op, None, None, ids);
        }
    }
    fn begin_block(&mut self, label: Word) {
        self.code.inst_ids(SOp::Label, None, Some(label), &[]);
        self.open = true;
    }
    fn terminate(&mut self, op: SOp, ids: &[Word]) {
        if self.open {
            self.code.inst_ids(op, None, None, ids);
            self.open = false;
        }
    }
    fn branch(&mut self, target: Word) {
        self.terminate(SOp::Branch, &[target]);
    }

    // -- values -----------------------------------------------------------

    pub(crate) fn vty(&self, v: ValueId) -> Type {
        self.vtys.get(v.0 as usize).copied().unwrap_or(Type::F32)
    }
    pub(crate) fn val(&self, v: ValueId) -> Result<Word> {
        match self.vals.get(v.0 as usize) {
            Some(&w) if w != 0 => Ok(w),
            _ => Err(Error::new(format!(
                "emitter: %{} has no definition (validate first)",
                v.0
            ))),
        }
    }

    // -- the module -------------------------------------------------------

    fn run(&mut self) -> Result<()> {
        self.cap(Capability::Shader);
        match self.s.stage {
            Stage::Geometry => self.cap(Capability::Geometry),
            Stage::TessCtrl | Stage::TessEval => self.cap(Capability::Tessellation),
            _ => {}
        }
        for i in 0..self.s.vars.len() {
            // Never declared (see `emit`): its loads are constants by now.
            if self.s.vars[i].builtin() == Some(BuiltIn::WorkgroupSize) {
                continue;
            }
            self.declare_var(i)?;
        }
        let void = self.void();
        let fn_ty = self.intern(
            TyKey::Function(void),
            SOp::TypeFunction,
            &[Operand::IdRef(void)],
        );
        let fn_id = self.id();
        self.names.inst(
            SOp::Name,
            None,
            None,
            &[Operand::IdRef(fn_id), Operand::LiteralString("main".into())],
        );
        let entry = self.id();
        self.begin_block(entry);
        self.body(&self.s.body)?;
        if self.open {
            self.terminate(SOp::Return, &[]);
        }
        self.entry_fn = fn_id;
        self.fn_ty = fn_ty;
        self.void_ty = void;
        Ok(())
    }

    /// The module's words: the sections in the order SPIR-V wants them.
    fn finish(mut self) -> Vec<u32> {
        let (maj, min) = self.target.spirv_version();
        let mut header = dr::ModuleHeader::new(self.next_id);
        header.set_version(maj, min);
        header.generator = 0;
        // Execution model and modes.
        let s = self.s;
        let model = match s.stage {
            Stage::Vertex => spirv::ExecutionModel::Vertex,
            Stage::TessCtrl => spirv::ExecutionModel::TessellationControl,
            Stage::TessEval => spirv::ExecutionModel::TessellationEvaluation,
            Stage::Geometry => spirv::ExecutionModel::Geometry,
            Stage::Fragment => spirv::ExecutionModel::Fragment,
            Stage::Compute => spirv::ExecutionModel::GLCompute,
        };
        let f = self.entry_fn;
        let mut modes: Vec<(spirv::ExecutionMode, Vec<u32>)> = Vec::new();
        use spirv::ExecutionMode as M;
        let i = &s.info;
        if self.uses_xfb {
            modes.push((M::Xfb, vec![]));
        }
        match s.stage {
            Stage::Fragment => {
                modes.push((M::OriginUpperLeft, vec![]));
                if i.early_fragment_tests {
                    modes.push((M::EarlyFragmentTests, vec![]));
                }
                if self.uses_frag_depth {
                    modes.push((M::DepthReplacing, vec![]));
                }
                if self.uses_stencil {
                    modes.push((M::StencilRefReplacingEXT, vec![]));
                }
            }
            Stage::Compute => {
                modes.push((M::LocalSize, i.local_size.unwrap_or([1, 1, 1]).to_vec()))
            }
            Stage::Geometry => {
                modes.push((
                    match i.gs_input.unwrap_or(GsInput::Triangles) {
                        GsInput::Points => M::InputPoints,
                        GsInput::Lines => M::InputLines,
                        GsInput::LinesAdjacency => M::InputLinesAdjacency,
                        GsInput::Triangles => M::Triangles,
                        GsInput::TrianglesAdjacency => M::InputTrianglesAdjacency,
                    },
                    vec![],
                ));
                modes.push((M::Invocations, vec![i.gs_invocations.unwrap_or(1)]));
                modes.push((
                    match i.gs_output.unwrap_or(GsOutput::TriangleStrip) {
                        GsOutput::Points => M::OutputPoints,
                        GsOutput::LineStrip => M::OutputLineStrip,
                        GsOutput::TriangleStrip => M::OutputTriangleStrip,
                    },
                    vec![],
                ));
                modes.push((M::OutputVertices, vec![i.gs_max_vertices.unwrap_or(1)]));
            }
            Stage::TessCtrl => modes.push((M::OutputVertices, vec![i.tcs_vertices.unwrap_or(3)])),
            Stage::TessEval => {
                modes.push((
                    match i.tes_mode.unwrap_or(TessMode::Triangles) {
                        TessMode::Triangles => M::Triangles,
                        TessMode::Quads => M::Quads,
                        TessMode::Isolines => M::Isolines,
                    },
                    vec![],
                ));
                modes.push((
                    match i.tes_spacing.unwrap_or(TessSpacing::Equal) {
                        TessSpacing::Equal => M::SpacingEqual,
                        TessSpacing::FractionalEven => M::SpacingFractionalEven,
                        TessSpacing::FractionalOdd => M::SpacingFractionalOdd,
                    },
                    vec![],
                ));
                modes.push((
                    if i.tes_ccw {
                        M::VertexOrderCcw
                    } else {
                        M::VertexOrderCw
                    },
                    vec![],
                ));
                if i.tes_point_mode {
                    modes.push((M::PointMode, vec![]));
                }
            }
            Stage::Vertex => {}
        }
        let code = std::mem::take(&mut self.code.0);
        let fn_vars = std::mem::take(&mut self.fn_vars.0);
        let (names, annotations, globals) = (
            std::mem::take(&mut self.names.0),
            std::mem::take(&mut self.annotations.0),
            std::mem::take(&mut self.globals.0),
        );
        let mut m = Section(Vec::with_capacity(
            64 + names.len() + annotations.len() + globals.len() + fn_vars.len() + code.len(),
        ));
        header.assemble_into(&mut m.0);
        for c in &self.caps {
            m.inst(
                SOp::Capability,
                None,
                None,
                &[Operand::Capability(capability_from_u32(*c))],
            );
        }
        for e in &self.exts {
            m.inst(
                SOp::Extension,
                None,
                None,
                &[Operand::LiteralString((*e).into())],
            );
        }
        if let Some(g) = self.glsl {
            m.inst(
                SOp::ExtInstImport,
                None,
                Some(g),
                &[Operand::LiteralString("GLSL.std.450".into())],
            );
        }
        m.inst(
            SOp::MemoryModel,
            None,
            None,
            &[
                Operand::AddressingModel(if self.uses_global {
                    spirv::AddressingModel::PhysicalStorageBuffer64
                } else {
                    spirv::AddressingModel::Logical
                }),
                Operand::MemoryModel(spirv::MemoryModel::GLSL450),
            ],
        );
        let mut ep = vec![
            Operand::ExecutionModel(model),
            Operand::IdRef(f),
            Operand::LiteralString("main".into()),
        ];
        ep.extend(self.interface.iter().map(|&v| Operand::IdRef(v)));
        m.inst(SOp::EntryPoint, None, None, &ep);
        for (mode, args) in modes {
            let mut ops = vec![Operand::IdRef(f), Operand::ExecutionMode(mode)];
            ops.extend(args.into_iter().map(Operand::LiteralBit32));
            m.inst(SOp::ExecutionMode, None, None, &ops);
        }
        m.0.extend_from_slice(&names);
        m.0.extend_from_slice(&annotations);
        m.0.extend_from_slice(&globals);
        // The function; its variables go first in the entry block, right
        // after the entry label (the first two words of `code`).
        m.inst(
            SOp::Function,
            Some(self.void_ty),
            Some(f),
            &[
                Operand::FunctionControl(spirv::FunctionControl::NONE),
                Operand::IdRef(self.fn_ty),
            ],
        );
        let label = code.len().min(2);
        m.0.extend_from_slice(&code[..label]);
        m.0.extend_from_slice(&fn_vars);
        m.0.extend_from_slice(&code[label..]);
        m.inst_ids(SOp::FunctionEnd, None, None, &[]);
        m.0
    }

    fn declare_var(&mut self, i: usize) -> Result<()> {
        let var = &self.s.vars[i];
        let st = self.s.stage;
        let name = var.name.clone();
        let (sc, pointee, elem) = match &var.kind {
            VarKind::Input(io) | VarKind::Output(io) => {
                let elem = self.ty(var.ty);
                let t = match (var.array, var.inner) {
                    (Some(n), Some(m)) => {
                        let row = self.array_ty(elem, m, None);
                        self.array_ty(row, n, None)
                    }
                    (Some(n), None) => self.array_ty(elem, n, None),
                    (None, _) => elem,
                };
                let sc = if var.is_input() {
                    StorageClass::Input
                } else {
                    StorageClass::Output
                };
                self.pending_io = Some(io.clone());
                (sc, t, elem)
            }
            VarKind::Local => {
                let elem = self.ty(var.ty);
                let t = match var.array {
                    Some(n) => self.array_ty(elem, n, None),
                    None => elem,
                };
                (StorageClass::Function, t, elem)
            }
            VarKind::Shared => {
                let elem = self.ty(var.ty);
                let t = self.array_ty(elem, var.array.unwrap_or(1), None);
                (StorageClass::Workgroup, t, elem)
            }
            VarKind::Ubo { slot, size } => {
                let u4 = self.ty(Type::uint(32, 4));
                let arr = self.array_ty(u4, (size / 16).max(1), Some(16));
                let st_id = self.block_struct(arr, &name, false);
                self.bind(DescClass::Ubo, *slot)?;
                (StorageClass::Uniform, st_id, self.ty(Type::U32))
            }
            VarKind::Ssbo { slot, readonly } => {
                let u = self.ty(Type::U32);
                let arr = self.intern(
                    TyKey::RuntimeArray(u, 4),
                    SOp::TypeRuntimeArray,
                    &[Operand::IdRef(u)],
                );
                if !self.decorated.contains(&arr) {
                    self.decorate(arr, Decoration::ArrayStride, &[4]);
                }
                let st_id = self.block_struct(arr, &name, *readonly);
                self.bind(DescClass::Ssbo, *slot)?;
                (StorageClass::StorageBuffer, st_id, u)
            }
            VarKind::Push { size } => {
                let u = self.ty(Type::U32);
                let arr = self.array_ty(u, (size / 4).max(1), Some(4));
                let st_id = self.block_struct(arr, &name, false);
                (StorageClass::PushConstant, st_id, u)
            }
            VarKind::Texture(t) => {
                let img = self.image_ty(
                    t.sampled,
                    t.dim,
                    t.shadow,
                    t.arrayed,
                    t.ms,
                    false,
                    ImageFormat::Unknown,
                );
                match t.dim {
                    Dim::D1 => self.cap(Capability::Sampled1D),
                    Dim::Buffer => self.cap(Capability::SampledBuffer),
                    Dim::Cube if t.arrayed => self.cap(Capability::SampledCubeArray),
                    _ => {}
                }
                let ty = if t.dim == Dim::Buffer {
                    img
                } else {
                    self.intern(
                        TyKey::SampledImage(img),
                        SOp::TypeSampledImage,
                        &[Operand::IdRef(img)],
                    )
                };
                self.bind(DescClass::SamplerView, t.slot)?;
                (StorageClass::UniformConstant, ty, img)
            }
            VarKind::FbFetch(f) => {
                // A sampled image (SAMPLED_IMAGE) of the colour buffer,
                // read with OpImageFetch at the fragment's pixel.
                let st = self.scalar_ty(Type {
                    base: f.sampled,
                    bits: 32,
                    comps: 1,
                });
                let dim = match f.dim {
                    Dim::D1 => {
                        self.cap(Capability::Sampled1D);
                        spirv::Dim::Dim1D
                    }
                    Dim::D3 => spirv::Dim::Dim3D,
                    _ => spirv::Dim::Dim2D,
                };
                // A 3D image's slices are its layers, not an array.
                let arrayed = f.layered && f.dim != Dim::D3;
                let img =
                    self.image_ty_dim(st, dim, false, arrayed, f.ms, false, ImageFormat::Unknown);
                if f.ms && f.layered {
                    self.cap(Capability::ImageMSArray);
                }
                let (set, binding) = binding::fbfetch_binding(f.slot)
                    .ok_or_else(|| Error::new(format!("fbfetch slot {} out of range", f.slot)))?;
                self.pending_binding = Some((set, binding));
                (StorageClass::UniformConstant, img, img)
            }
            VarKind::Image(im) => {
                let img = self.image_ty(
                    im.sampled, im.dim, false, im.arrayed, im.ms, true, im.format,
                );
                match im.dim {
                    Dim::D1 => self.cap(Capability::Image1D),
                    Dim::Buffer => self.cap(Capability::ImageBuffer),
                    Dim::Cube if im.arrayed => self.cap(Capability::ImageCubeArray),
                    _ => {}
                }
                if im.ms {
                    self.cap(Capability::StorageImageMultisample);
                    if im.arrayed {
                        self.cap(Capability::ImageMSArray);
                    }
                }
                if im.format.is_extended() {
                    self.cap(Capability::StorageImageExtendedFormats);
                }
                if im.format == ImageFormat::Unknown {
                    if !im.writeonly {
                        self.cap(Capability::StorageImageReadWithoutFormat);
                    }
                    if !im.readonly {
                        self.cap(Capability::StorageImageWriteWithoutFormat);
                    }
                }
                self.bind(DescClass::Image, im.slot)?;
                (StorageClass::UniformConstant, img, img)
            }
        };
        let ptr = self.ptr_ty(sc, pointee);
        let id = self.id();
        let var_inst = [Operand::StorageClass(sc)];
        if sc == StorageClass::Function {
            self.fn_vars
                .inst(SOp::Variable, Some(ptr), Some(id), &var_inst);
        } else {
            self.globals
                .inst(SOp::Variable, Some(ptr), Some(id), &var_inst);
            if self.target.at_least_1_4()
                || matches!(sc, StorageClass::Input | StorageClass::Output)
            {
                self.interface.push(id);
            }
        }
        self.names.inst(
            SOp::Name,
            None,
            None,
            &[Operand::IdRef(id), Operand::LiteralString(name)],
        );
        self.vars[i] = VarInfo {
            id,
            sc: Some(sc),
            elem,
        };
        // Descriptor decorations.
        if let Some((set, binding)) = self.pending_binding.take() {
            self.decorate(id, Decoration::DescriptorSet, &[set]);
            self.decorate(id, Decoration::Binding, &[binding]);
        }
        if let VarKind::Image(im) = &var.kind {
            if im.readonly {
                self.decorate(id, Decoration::NonWritable, &[]);
            }
            if im.writeonly {
                self.decorate(id, Decoration::NonReadable, &[]);
            }
        }
        if let Some(io) = self.pending_io.take() {
            self.decorate_io(id, var, &io, st);
        }
        Ok(())
    }

    fn bind(&mut self, class: DescClass, slot: u32) -> Result<()> {
        let b = binding::binding_for(class, self.s.stage, slot)
            .ok_or_else(|| Error::new(format!("slot {slot} out of range for {class:?}")))?;
        self.pending_binding = Some(b);
        Ok(())
    }

    fn block_struct(&mut self, member: Word, name: &str, readonly: bool) -> Word {
        let id = self.id();
        self.globals
            .inst_ids(SOp::TypeStruct, None, Some(id), &[member]);
        self.decorate(id, Decoration::Block, &[]);
        self.member_decorate(id, 0, Decoration::Offset, &[0]);
        if readonly {
            self.member_decorate(id, 0, Decoration::NonWritable, &[]);
        }
        self.names.inst(
            SOp::Name,
            None,
            None,
            &[
                Operand::IdRef(id),
                Operand::LiteralString(format!("{name}_block")),
            ],
        );
        id
    }

    fn decorate_io(&mut self, id: Word, var: &Variable, io: &IoInfo, st: Stage) {
        let output = var.is_output();
        if let Some(b) = io.builtin {
            let (sb, cap) = builtin_spirv(b, st);
            if let Some(c) = cap {
                self.cap(c);
            }
            match b {
                BuiltIn::FragDepth => self.uses_frag_depth = true,
                BuiltIn::FragStencilRef => {
                    self.uses_stencil = true;
                    self.ext("SPV_EXT_shader_stencil_export");
                }
                BuiltIn::SubgroupSize | BuiltIn::SubgroupInvocationId => {
                    self.cap(Capability::GroupNonUniform)
                }
                BuiltIn::BaseVertex | BuiltIn::BaseInstance | BuiltIn::DrawIndex
                    if !self.target.at_least_1_4() =>
                {
                    self.ext("SPV_KHR_shader_draw_parameters")
                }
                _ => {}
            }
            self.decorate(id, Decoration::BuiltIn, &[sb as u32]);
            // Integer fragment inputs must be flat (VUID-StandaloneSpirv-Flat-04744).
            if st == Stage::Fragment && !output && var.ty.is_int() {
                self.decorate(id, Decoration::Flat, &[]);
            }
        }
        if let Some(l) = io.location {
            self.decorate(id, Decoration::Location, &[l]);
            if io.component != 0 {
                self.decorate(id, Decoration::Component, &[io.component]);
            }
            if io.index != 0 {
                self.decorate(id, Decoration::Index, &[io.index]);
            }
        }
        // Interpolation decorations are legal on fragment inputs and on the
        // outputs of the last pre-raster stages only.
        let interp_ok = (st == Stage::Fragment && !output) || (output && st.is_pre_raster());
        if interp_ok && io.builtin.is_none() {
            match io.interp {
                Interp::Smooth => {}
                Interp::Flat => self.decorate(id, Decoration::Flat, &[]),
                Interp::NoPerspective => self.decorate(id, Decoration::NoPerspective, &[]),
            }
            match io.sampling {
                Sampling::Center => {}
                Sampling::Centroid => self.decorate(id, Decoration::Centroid, &[]),
                Sampling::Sample => {
                    self.cap(Capability::SampleRateShading);
                    self.decorate(id, Decoration::Sample, &[]);
                }
            }
        }
        // Tessellation levels are per patch whether or not the IR says so
        // (glslang decorates them Patch; Mesa's SPIR-V front end, used by
        // lavapipe, only treats Patch-decorated variables as per-patch).
        let tess_level = matches!(
            io.builtin,
            Some(BuiltIn::TessLevelOuter) | Some(BuiltIn::TessLevelInner)
        );
        if io.patch || tess_level {
            self.decorate(id, Decoration::Patch, &[]);
        }
        if io.invariant && output {
            self.decorate(id, Decoration::Invariant, &[]);
        }
        if let Some(x) = io.xfb {
            self.cap(Capability::TransformFeedback);
            self.uses_xfb = true;
            self.decorate(id, Decoration::XfbBuffer, &[x.buffer]);
            self.decorate(id, Decoration::XfbStride, &[x.stride]);
            self.decorate(id, Decoration::Offset, &[x.offset]);
        }
        if io.stream != 0 {
            self.cap(Capability::GeometryStreams);
            self.decorate(id, Decoration::Stream, &[io.stream]);
        }
    }

    // -- control flow -----------------------------------------------------

    fn body(&mut self, body: &[Node]) -> Result<()> {
        for n in body {
            if !self.open {
                break; // dead code after a jump
            }
            match n {
                Node::Instr(i) => self.instr(i)?,
                Node::If(f) => {
                    let cond = self.val(f.cond)?;
                    let merge = self.id();
                    let then_l = self.id();
                    let else_l = if f.else_body.is_empty() {
                        merge
                    } else {
                        self.id()
                    };
                    self.op_void(
                        SOp::SelectionMerge,
                        &[merge, spirv::SelectionControl::NONE.bits()],
                    );
                    self.terminate(SOp::BranchConditional, &[cond, then_l, else_l]);
                    let mut reachable = f.else_body.is_empty();
                    self.begin_block(then_l);
                    self.body(&f.then_body)?;
                    if self.open {
                        reachable = true;
                        self.branch(merge);
                    }
                    if !f.else_body.is_empty() {
                        self.begin_block(else_l);
                        self.body(&f.else_body)?;
                        if self.open {
                            reachable = true;
                            self.branch(merge);
                        }
                    }
                    self.begin_block(merge);
                    if !reachable {
                        self.terminate(SOp::Unreachable, &[]);
                    }
                }
                Node::Loop(l) => {
                    let header = self.id();
                    let body_l = self.id();
                    let cont = self.id();
                    let merge = self.id();
                    self.branch(header);
                    self.begin_block(header);
                    self.op_void(
                        SOp::LoopMerge,
                        &[merge, cont, spirv::LoopControl::NONE.bits()],
                    );
                    self.branch(body_l);
                    self.begin_block(body_l);
                    self.loops.push((merge, cont));
                    let r = self.body(&l.body);
                    self.loops.pop();
                    r?;
                    if self.open {
                        self.branch(cont);
                    }
                    self.begin_block(cont);
                    self.branch(header);
                    self.begin_block(merge);
                    if !body_has_break(&l.body) {
                        self.terminate(SOp::Unreachable, &[]);
                    }
                }
                Node::Jump(j, _) => match j {
                    Jump::Break | Jump::Continue => {
                        let &(merge, cont) = self
                            .loops
                            .last()
                            .ok_or_else(|| Error::new("break/continue outside of a loop"))?;
                        self.branch(if *j == Jump::Break { merge } else { cont });
                    }
                    Jump::Return => self.terminate(SOp::Return, &[]),
                    Jump::Discard => {
                        if self.target == Target::Vulkan1_3 {
                            self.terminate(SOp::TerminateInvocation, &[]);
                        } else {
                            self.terminate(SOp::Kill, &[]);
                        }
                    }
                },
            }
        }
        Ok(())
    }

    fn instr(&mut self, i: &Instr) -> Result<()> {
        let r = self.instr_inner(i).map_err(|mut e| {
            if e.loc.is_none() {
                e.loc = i.loc;
            }
            e
        })?;
        if let (Some((v, _)), Some(w)) = (i.dest, r) {
            let slot = self
                .vals
                .get_mut(v.0 as usize)
                .ok_or_else(|| Error::new(format!("%{} out of range", v.0)))?;
            *slot = w;
            self.vtys[v.0 as usize] = i.dest.map(|d| d.1).unwrap_or(Type::F32);
            if let Op::Const(bits) = &i.op {
                self.const_vals[v.0 as usize] = bits.first().copied();
            }
        }
        Ok(())
    }
}

fn builtin_from_u32(x: u32) -> spirv::BuiltIn {
    spirv::BuiltIn::from_u32(x).unwrap_or(spirv::BuiltIn::Position)
}

fn capability_from_u32(x: u32) -> Capability {
    Capability::from_u32(x).unwrap_or(Capability::Shader)
}

/// SPIR-V built-in and the capability it needs.
fn builtin_spirv(b: BuiltIn, st: Stage) -> (spirv::BuiltIn, Option<Capability>) {
    use spirv::BuiltIn as B;
    match b {
        BuiltIn::Position => (B::Position, None),
        BuiltIn::PointSize => (B::PointSize, None),
        BuiltIn::ClipDistance => (B::ClipDistance, Some(Capability::ClipDistance)),
        BuiltIn::CullDistance => (B::CullDistance, Some(Capability::CullDistance)),
        BuiltIn::Layer => (B::Layer, Some(Capability::Geometry)),
        BuiltIn::ViewportIndex => (B::ViewportIndex, Some(Capability::MultiViewport)),
        BuiltIn::FragCoord => (B::FragCoord, None),
        BuiltIn::FrontFacing => (B::FrontFacing, None),
        BuiltIn::PointCoord => (B::PointCoord, None),
        BuiltIn::SampleId => (B::SampleId, Some(Capability::SampleRateShading)),
        BuiltIn::SamplePos => (B::SamplePosition, Some(Capability::SampleRateShading)),
        BuiltIn::SampleMask => (B::SampleMask, None),
        BuiltIn::FragDepth => (B::FragDepth, None),
        BuiltIn::FragStencilRef => (B::FragStencilRefEXT, Some(Capability::StencilExportEXT)),
        BuiltIn::HelperInvocation => (B::HelperInvocation, None),
        BuiltIn::VertexIndex => (B::VertexIndex, None),
        BuiltIn::InstanceIndex => (B::InstanceIndex, None),
        BuiltIn::BaseVertex => (B::BaseVertex, Some(Capability::DrawParameters)),
        BuiltIn::BaseInstance => (B::BaseInstance, Some(Capability::DrawParameters)),
        BuiltIn::DrawIndex => (B::DrawIndex, Some(Capability::DrawParameters)),
        BuiltIn::PrimitiveId => (
            B::PrimitiveId,
            if st == Stage::Fragment {
                Some(Capability::Geometry)
            } else {
                None
            },
        ),
        BuiltIn::InvocationId => (B::InvocationId, None),
        BuiltIn::TessCoord => (B::TessCoord, None),
        BuiltIn::TessLevelOuter => (B::TessLevelOuter, None),
        BuiltIn::TessLevelInner => (B::TessLevelInner, None),
        BuiltIn::PatchVertices => (B::PatchVertices, None),
        BuiltIn::LocalInvocationId => (B::LocalInvocationId, None),
        BuiltIn::LocalInvocationIndex => (B::LocalInvocationIndex, None),
        BuiltIn::GlobalInvocationId => (B::GlobalInvocationId, None),
        BuiltIn::WorkgroupId => (B::WorkgroupId, None),
        BuiltIn::NumWorkgroups => (B::NumWorkgroups, None),
        BuiltIn::WorkgroupSize => (B::WorkgroupSize, None),
        BuiltIn::SubgroupSize => (B::SubgroupSize, None),
        BuiltIn::SubgroupInvocationId => (B::SubgroupLocalInvocationId, None),
        BuiltIn::SubgroupId => (B::SubgroupId, Some(Capability::GroupNonUniform)),
        BuiltIn::NumSubgroups => (B::NumSubgroups, Some(Capability::GroupNonUniform)),
    }
}

pub(crate) fn spirv_format(f: ImageFormat) -> spirv::ImageFormat {
    use spirv::ImageFormat as F;
    match f {
        ImageFormat::Unknown => F::Unknown,
        ImageFormat::Rgba32f => F::Rgba32f,
        ImageFormat::Rgba16f => F::Rgba16f,
        ImageFormat::R32f => F::R32f,
        ImageFormat::Rgba8 => F::Rgba8,
        ImageFormat::Rgba8Snorm => F::Rgba8Snorm,
        ImageFormat::Rg32f => F::Rg32f,
        ImageFormat::Rg16f => F::Rg16f,
        ImageFormat::R16f => F::R16f,
        ImageFormat::Rgba16 => F::Rgba16,
        ImageFormat::Rgb10A2 => F::Rgb10A2,
        ImageFormat::Rg8 => F::Rg8,
        ImageFormat::R8 => F::R8,
        ImageFormat::Rgba32i => F::Rgba32i,
        ImageFormat::Rgba16i => F::Rgba16i,
        ImageFormat::Rgba8i => F::Rgba8i,
        ImageFormat::R32i => F::R32i,
        ImageFormat::Rg32i => F::Rg32i,
        ImageFormat::Rgba32ui => F::Rgba32ui,
        ImageFormat::Rgba16ui => F::Rgba16ui,
        ImageFormat::Rgba8ui => F::Rgba8ui,
        ImageFormat::R32ui => F::R32ui,
        ImageFormat::Rg32ui => F::Rg32ui,
        ImageFormat::R11fG11fB10f => F::R11fG11fB10f,
        ImageFormat::Rg16 => F::Rg16,
        ImageFormat::R16 => F::R16,
        ImageFormat::Rgba16Snorm => F::Rgba16Snorm,
        ImageFormat::Rg16Snorm => F::Rg16Snorm,
        ImageFormat::Rg8Snorm => F::Rg8Snorm,
        ImageFormat::R16Snorm => F::R16Snorm,
        ImageFormat::R8Snorm => F::R8Snorm,
        ImageFormat::Rg16i => F::Rg16i,
        ImageFormat::Rg8i => F::Rg8i,
        ImageFormat::R16i => F::R16i,
        ImageFormat::R8i => F::R8i,
        ImageFormat::Rgb10a2ui => F::Rgb10a2ui,
        ImageFormat::Rg16ui => F::Rg16ui,
        ImageFormat::Rg8ui => F::Rg8ui,
        ImageFormat::R16ui => F::R16ui,
        ImageFormat::R8ui => F::R8ui,
    }
}

/// IEEE binary16 bits of an f32 (round to nearest even).
pub fn f32_to_f16_bits(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let man = b & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = 1u32 << (shift - 1);
        let mut r = m >> shift;
        let rem = m & ((1 << shift) - 1);
        if rem > half || (rem == half && r & 1 == 1) {
            r += 1;
        }
        return sign | r as u16;
    }
    let mut r = ((e as u32) << 10) | (man >> 13);
    let rem = man & 0x1fff;
    if rem > 0x1000 || (rem == 0x1000 && r & 1 == 1) {
        r += 1;
    }
    sign | r as u16
}
