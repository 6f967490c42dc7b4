//! Flag sets of the context interface (`p_defines.h`): map, flush, barrier,
//! clear, and reference flags.

use bitflags::bitflags;

bitflags! {
    /// `PIPE_MAP_*`: how a transfer maps a resource.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    pub struct MapFlags: u32 {
        const READ = 1 << 0;
        const WRITE = 1 << 1;
        const DIRECTLY = 1 << 2;
        const DISCARD_RANGE = 1 << 3;
        const DISCARD_WHOLE_RESOURCE = 1 << 4;
        const DONTBLOCK = 1 << 5;
        const UNSYNCHRONIZED = 1 << 6;
        const FLUSH_EXPLICIT = 1 << 7;
        const PERSISTENT = 1 << 8;
        const COHERENT = 1 << 9;
    }
}

bitflags! {
    /// `PIPE_FLUSH_*`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    pub struct FlushFlags: u32 {
        const END_OF_FRAME = 1 << 0;
        const DEFERRED = 1 << 1;
        const FENCE_FD = 1 << 2;
        const ASYNC = 1 << 3;
        const HINT_FINISH = 1 << 4;
        const TOP_OF_PIPE = 1 << 5;
        const BOTTOM_OF_PIPE = 1 << 6;
    }
}

bitflags! {
    /// `PIPE_BARRIER_*` for `memory_barrier`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    pub struct BarrierFlags: u32 {
        const MAPPED_BUFFER = 1 << 0;
        const SHADER_BUFFER = 1 << 1;
        const QUERY_BUFFER = 1 << 2;
        const VERTEX_BUFFER = 1 << 3;
        const INDEX_BUFFER = 1 << 4;
        const CONSTANT_BUFFER = 1 << 5;
        const INDIRECT_BUFFER = 1 << 6;
        const TEXTURE = 1 << 7;
        const IMAGE = 1 << 8;
        const FRAMEBUFFER = 1 << 9;
        const STREAMOUT_BUFFER = 1 << 10;
        const GLOBAL_BUFFER = 1 << 11;
        const UPDATE_BUFFER = 1 << 12;
        const UPDATE_TEXTURE = 1 << 13;
        const ALL = (1 << 14) - 1;
    }
}

bitflags! {
    /// `PIPE_TEXTURE_BARRIER_*` for `texture_barrier`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    pub struct TextureBarrierFlags: u32 {
        const SAMPLER = 1 << 0;
        const FRAMEBUFFER = 1 << 1;
    }
}

bitflags! {
    /// `PIPE_CLEAR_*`: which buffers `clear` touches.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    pub struct ClearFlags: u32 {
        const DEPTH = 1 << 0;
        const STENCIL = 1 << 1;
        const COLOR0 = 1 << 2;
        const COLOR1 = 1 << 3;
        const COLOR2 = 1 << 4;
        const COLOR3 = 1 << 5;
        const COLOR4 = 1 << 6;
        const COLOR5 = 1 << 7;
        const COLOR6 = 1 << 8;
        const COLOR7 = 1 << 9;
        const COLOR = 0xff << 2;
        const DEPTHSTENCIL = Self::DEPTH.bits() | Self::STENCIL.bits();
    }
}

bitflags! {
    /// `PIPE_REFERENCED_FOR_*`: the answer of `is_resource_referenced`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    pub struct ReferenceFlags: u32 {
        const READ = 1 << 0;
        const WRITE = 1 << 1;
    }
}

bitflags! {
    /// `PIPE_MASK_*` for blits: which aspects to copy.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    pub struct BlitMask: u32 {
        const R = 1;
        const G = 2;
        const B = 4;
        const A = 8;
        const Z = 16;
        const S = 32;
        const RGBA = 15;
        const ZS = 48;
    }
}
