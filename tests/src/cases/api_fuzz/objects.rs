//! The object half of the API misuse fuzz: CSOs and shaders made from
//! wild templates, bound through the wrong entry point, deleted while
//! bound, deleted twice and bound after their deletion; bindless
//! handles made resident, deleted and made resident again; views,
//! surfaces and stream-output targets destroyed while bound; compute
//! states with shared memory and block sizes past the device's limits;
//! tessellation and stipple state out of range; indirect and draw-auto
//! draws reading past their buffers; explicit transfer flushes, fences,
//! uploads and memory render conditions with bad arguments; writes on a
//! second context of resources this one uses, fenced or not; blits under
//! render conditions and window rectangles; stream output into targets
//! that overlap.
//!
//! Handles are plain ids in Gallium's model (a frontend can pass a
//! stale one), so the pools below keep every handle ever made, deleted
//! or not. The oracle is the parent module's: every call returns `Ok` or
//! `Err`, with no panic, validation message or lost device.

use pipe_core::cso::{
    BlendHandle, ComputeHandle, DepthStencilAlphaHandle, RasterizerHandle, ShaderHandle,
    VertexElementsHandle,
};
use pipe_core::draw::{DrawIndirectInfo, DrawInfo, DrawStartCountBias, IndexSource, PrimType};
use pipe_core::flags::{FlushFlags, MapFlags};
use pipe_core::format::Swizzle;
use pipe_core::resource::PipeBox;
use pipe_core::shader::{ComputeState, GridInfo, ShaderCode, StreamOutput, StreamOutputInfo};
use pipe_core::state::*;
use pipe_core::transfer::Uploader;
use pipe_core::view::{SamplerView, SamplerViewTemplate, StreamOutputTarget, ViewRange};

use super::super::draw::bind_vertices;
use super::super::draw::{GS_DUP, TCS, TES};
use super::Fuzz;
use crate::harness::{bind_program, shader, spirv_shader, FS_UBO_COLOR, VS_PASSTHROUGH};

/// A compute shader with workgroup memory, writing one word per
/// invocation through shader buffer 0.
const CS: &str = "shader compute local_size=8,1,1
in @lidx : u32 builtin=local_invocation_index
shared @tmp : u32[8]
ssbo @out slot=0
fn main {
  %0 : u32 = load @lidx
  store @tmp, %0, %0
  barrier exec=workgroup, mem=workgroup, modes=shared
  %1 : u32 = load @tmp, %0
  %2 : u32 = const 4
  %3 : u32 = imul %0, %2
  store_ssbo @out, %3, %1
}
";

/// Every handle the fuzz made, live or deleted.
#[derive(Default)]
pub(super) struct Pools {
    blend: Vec<BlendHandle>,
    dsa: Vec<DepthStencilAlphaHandle>,
    rasterizer: Vec<RasterizerHandle>,
    vertex_elements: Vec<VertexElementsHandle>,
    shaders: Vec<ShaderHandle>,
    compute: Vec<ComputeHandle>,
    views: Vec<SamplerView>,
    targets: Vec<StreamOutputTarget>,
    texture_handles: Vec<u64>,
    image_handles: Vec<u64>,
    /// Small words for indirect draws (`Fuzz::indirect_commands`).
    commands: Option<pipe_core::Resource>,
    /// A second context of the screen (`Fuzz::other_context_op`).
    other: Option<Box<dyn pipe_core::Context>>,
}

fn pick_from<T: Clone>(f: &mut Fuzz, v: &[T]) -> Option<T> {
    if v.is_empty() {
        return None;
    }
    let i = f.rng.below(v.len() as u32) as usize;
    Some(v[i].clone())
}

const FACTORS: [BlendFactor; 8] = [
    BlendFactor::One,
    BlendFactor::Zero,
    BlendFactor::SrcAlpha,
    BlendFactor::Src1Color,
    BlendFactor::Src1Alpha,
    BlendFactor::ConstColor,
    BlendFactor::InvSrc1Alpha,
    BlendFactor::SrcAlphaSaturate,
];

impl Fuzz {
    /// One call group on objects and the rarer entry points.
    pub(super) fn object_op(&mut self) {
        let kind = self.rng.below(15);
        self.traced("object_op", kind);
        match kind {
            0 => self.blend_op(),
            1 => self.dsa_op(),
            2 => self.shader_op(),
            3 => self.bind_stale(),
            4 => self.delete_any(),
            5 => self.tess_op(),
            6 => self.fixed_function_op(),
            7 => self.compute_op(),
            8 => self.bindless_op(),
            9 => self.transfer_misc_op(),
            10 => self.destroy_bound(),
            11 => self.indirect_draw(),
            12 => self.other_context_op(),
            13 => self.blit_op(),
            _ => self.aliased_capture(),
        }
    }

    fn blend_op(&mut self) {
        let mut bs = BlendState {
            independent_blend_enable: self.rng.chance(50),
            logicop_enable: self.rng.chance(20),
            logicop_func: self.rng.pick(&[LogicOp::Xor, LogicOp::Copy, LogicOp::Set]),
            alpha_to_coverage: self.rng.chance(20),
            alpha_to_one: self.rng.chance(20),
            max_rt: self.rng.pick(&[0, 1, 7, 8, 255]),
            ..Default::default()
        };
        for rt in bs.rt.iter_mut() {
            *rt = RtBlendState {
                blend_enable: self.rng.chance(60),
                rgb_func: self
                    .rng
                    .pick(&[BlendFunc::Add, BlendFunc::Min, BlendFunc::Subtract]),
                rgb_src_factor: self.rng.pick(&FACTORS),
                rgb_dst_factor: self.rng.pick(&FACTORS),
                alpha_func: self.rng.pick(&[BlendFunc::Add, BlendFunc::Max]),
                alpha_src_factor: self.rng.pick(&FACTORS),
                alpha_dst_factor: self.rng.pick(&FACTORS),
                colormask: ColorMask::from_bits_truncate(self.rng.bits() as u8),
            };
        }
        let h = self.e.ctx.create_blend_state(&bs);
        if let Some(h) = self.note(h) {
            self.pools.blend.push(h);
            let r = self.e.ctx.bind_blend_state(Some(h));
            self.note(r);
        }
        let color = BlendColor {
            color: [
                self.wild(0.5),
                self.wild(0.5),
                self.wild(0.5),
                self.wild(1.0),
            ],
        };
        let r = self.e.ctx.set_blend_color(&color);
        self.note(r);
        self.draw();
    }

    fn dsa_op(&mut self) {
        let func = |f: &mut Fuzz| {
            f.rng.pick(&[
                CompareFunc::Always,
                CompareFunc::Less,
                CompareFunc::Never,
                CompareFunc::Equal,
            ])
        };
        let mut dsa = DepthStencilAlphaState {
            depth_enabled: self.rng.chance(50),
            depth_writemask: self.rng.chance(50),
            depth_func: func(self),
            depth_bounds_test: self.rng.chance(30),
            alpha_enabled: self.rng.chance(30),
            alpha_func: func(self),
            alpha_ref_value: self.wild(0.5),
            depth_bounds_min: f64::from(self.wild(0.0)),
            depth_bounds_max: f64::from(self.wild(1.0)),
            ..Default::default()
        };
        for s in dsa.stencil.iter_mut() {
            s.enabled = self.rng.chance(40);
            s.func = func(self);
            s.fail_op = self
                .rng
                .pick(&[StencilOp::Keep, StencilOp::IncrWrap, StencilOp::Invert]);
            s.zpass_op = self.rng.pick(&[StencilOp::Replace, StencilOp::Decr]);
            s.valuemask = self.rng.bits() as u8;
            s.writemask = self.rng.bits() as u8;
        }
        let h = self.e.ctx.create_depth_stencil_alpha_state(&dsa);
        if let Some(h) = self.note(h) {
            self.pools.dsa.push(h);
            let r = self.e.ctx.bind_depth_stencil_alpha_state(Some(h));
            self.note(r);
        }
        let sref = StencilRef {
            ref_value: [self.rng.bits() as u8, self.rng.bits() as u8],
        };
        let r = self.e.ctx.set_stencil_ref(sref);
        self.note(r);
        self.draw();
    }

    /// A shader of a random stage (now and then with a capture naming
    /// outputs, buffers or streams that do not exist), bound through a
    /// random entry point: the wrong stage's must refuse it.
    fn shader_op(&mut self) {
        let (stage, src) = self.rng.pick(&[
            (ShaderStage::Vertex, VS_PASSTHROUGH),
            (ShaderStage::Fragment, FS_UBO_COLOR),
            (ShaderStage::Geometry, GS_DUP),
            (ShaderStage::TessCtrl, TCS),
            (ShaderStage::TessEval, TES),
        ]);
        // Now and then as SPIR-V (ARB_gl_spirv's passthrough), with its
        // entry point misnamed or words cut short at times.
        let st = if self.rng.chance(30) {
            spirv_shader(stage, src, spirv_gen::emit::Target::Vulkan1_3).map(|mut st| {
                if let ShaderCode::SpirV { words, entry_point } = &mut st.code {
                    match self.rng.below(6) {
                        0 => *entry_point = "nope".into(),
                        1 => *words = words[..words.len() / 2].into(),
                        _ => {}
                    }
                }
                st
            })
        } else {
            shader(stage, src)
        };
        let Ok(mut st) = st else {
            return;
        };
        if self.rng.chance(30) {
            let n = self.rng.range(1, 3);
            st.stream_output = StreamOutputInfo {
                stride: [self.rng.pick(&[0, 4, 3, u16::MAX]), 0, 0, 0],
                output: (0..n)
                    .map(|_| StreamOutput {
                        register_index: self.rng.pick(&[0, 1, 40, 255]),
                        start_component: self.rng.pick(&[0, 2, 3, 200]),
                        num_components: self.rng.pick(&[0, 1, 4, 5]),
                        output_buffer: self.rng.pick(&[0, 0, 1, 4, 200]),
                        dst_offset: self.rng.pick(&[0, 3, u16::MAX]),
                        stream: self.rng.pick(&[0, 0, 1, 4]),
                    })
                    .collect(),
            };
        }
        let stage = if self.rng.chance(15) {
            // Code of one stage offered as another's.
            let other = self.rng.pick(&[
                ShaderStage::Vertex,
                ShaderStage::Fragment,
                ShaderStage::Geometry,
                ShaderStage::TessEval,
            ]);
            st.stage = other;
            other
        } else {
            stage
        };
        let h = match stage {
            ShaderStage::Vertex => self.e.ctx.create_vs_state(&st),
            ShaderStage::Fragment => self.e.ctx.create_fs_state(&st),
            ShaderStage::Geometry => self.e.ctx.create_gs_state(&st),
            ShaderStage::TessCtrl => self.e.ctx.create_tcs_state(&st),
            _ => self.e.ctx.create_tes_state(&st),
        };
        if let Some(h) = self.note(h) {
            self.pools.shaders.push(h);
            self.bind_shader(Some(h));
            self.draw();
        }
    }

    /// Binds `h` (or unbinds) through a random graphics stage's entry.
    fn bind_shader(&mut self, h: Option<ShaderHandle>) {
        let r = match self.rng.below(5) {
            0 => self.e.ctx.bind_vs_state(h),
            1 => self.e.ctx.bind_fs_state(h),
            2 => self.e.ctx.bind_gs_state(h),
            3 => self.e.ctx.bind_tcs_state(h),
            _ => self.e.ctx.bind_tes_state(h),
        };
        self.note(r);
    }

    /// Binds a handle from the pools, deleted or not, then draws.
    fn bind_stale(&mut self) {
        let r = match self.rng.below(6) {
            0 => {
                let Some(h) = pick_from(self, &self.pools.blend.clone()) else {
                    return;
                };
                self.e.ctx.bind_blend_state(Some(h))
            }
            1 => {
                let Some(h) = pick_from(self, &self.pools.dsa.clone()) else {
                    return;
                };
                self.e.ctx.bind_depth_stencil_alpha_state(Some(h))
            }
            2 => {
                let Some(h) = pick_from(self, &self.pools.rasterizer.clone()) else {
                    return;
                };
                self.e.ctx.bind_rasterizer_state(Some(h))
            }
            3 => {
                let Some(h) = pick_from(self, &self.pools.vertex_elements.clone()) else {
                    return;
                };
                self.e.ctx.bind_vertex_elements_state(Some(h))
            }
            4 => {
                let h = pick_from(self, &self.pools.shaders.clone());
                self.bind_shader(h);
                Ok(())
            }
            _ => {
                let Some(h) = pick_from(self, &self.pools.compute.clone()) else {
                    return;
                };
                self.e.ctx.bind_compute_state(Some(h))
            }
        };
        self.note(r);
        self.draw();
    }

    /// Deletes a handle from the pools: maybe bound, maybe deleted before.
    fn delete_any(&mut self) {
        let r = match self.rng.below(6) {
            0 => match pick_from(self, &self.pools.blend.clone()) {
                Some(h) => self.e.ctx.delete_blend_state(h),
                None => return,
            },
            1 => match pick_from(self, &self.pools.dsa.clone()) {
                Some(h) => self.e.ctx.delete_depth_stencil_alpha_state(h),
                None => return,
            },
            2 => match pick_from(self, &self.pools.rasterizer.clone()) {
                Some(h) => self.e.ctx.delete_rasterizer_state(h),
                None => return,
            },
            3 => match pick_from(self, &self.pools.vertex_elements.clone()) {
                Some(h) => self.e.ctx.delete_vertex_elements_state(h),
                None => return,
            },
            4 => match pick_from(self, &self.pools.shaders.clone()) {
                Some(h) => match self.rng.below(5) {
                    0 => self.e.ctx.delete_vs_state(h),
                    1 => self.e.ctx.delete_fs_state(h),
                    2 => self.e.ctx.delete_gs_state(h),
                    3 => self.e.ctx.delete_tcs_state(h),
                    _ => self.e.ctx.delete_tes_state(h),
                },
                None => return,
            },
            _ => match pick_from(self, &self.pools.compute.clone()) {
                Some(h) => self.e.ctx.delete_compute_state(h),
                None => return,
            },
        };
        self.note(r);
        if self.rng.chance(50) {
            self.draw();
        }
    }

    fn tess_op(&mut self) {
        let pv = self.rng.pick(&[0, 1, 3, 4, 32, 33, 255]);
        let r = self.e.ctx.set_patch_vertices(pv);
        self.note(r);
        let ts = TessState {
            default_outer_level: [self.wild(1.0), self.wild(1.0), self.wild(1.0), 1.0],
            default_inner_level: [self.wild(1.0), self.wild(1.0)],
        };
        let r = self.e.ctx.set_tess_state(&ts);
        self.note(r);
        self.draw();
        if self.rng.chance(50) {
            // Back to no tessellation or geometry, so that later draws
            // reach the driver with the working program.
            for r in [
                self.e.ctx.bind_tcs_state(None),
                self.e.ctx.bind_tes_state(None),
                self.e.ctx.bind_gs_state(None),
            ] {
                self.note(r);
            }
        }
    }

    fn fixed_function_op(&mut self) {
        let mut stipple = PolyStipple::default();
        for w in stipple.stipple.iter_mut() {
            *w = self.rng.bits();
        }
        let r = self.e.ctx.set_polygon_stipple(&stipple);
        self.note(r);
        let len = self.rng.pick(&[0usize, 1, 2, 4, 8, 16, 32, 1000]);
        let locations: Vec<u8> = (0..len).map(|_| self.rng.bits() as u8).collect();
        let r = if self.rng.chance(30) {
            self.e.ctx.set_sample_locations(None)
        } else {
            self.e.ctx.set_sample_locations(Some(&locations))
        };
        self.note(r);
        let stage = self.any_stage();
        let values: Vec<u32> = (0..self.rng.range(0, 12))
            .map(|_| self.rng.bits())
            .collect();
        let r = self.e.ctx.set_inlinable_constants(stage, &values);
        self.note(r);
        // The rasterizer that uses the stipple, and one of wild floats.
        let rs = RasterizerState {
            poly_stipple_enable: self.rng.chance(60),
            line_width: self.wild(1.0),
            point_size: self.wild(1.0),
            depth_clip_near: true,
            depth_clip_far: true,
            ..Default::default()
        };
        let h = self.e.ctx.create_rasterizer_state(&rs);
        if let Some(h) = self.note(h) {
            self.pools.rasterizer.push(h);
            let r = self.e.ctx.bind_rasterizer_state(Some(h));
            self.note(r);
        }
        self.draw();
    }

    fn compute_op(&mut self) {
        let Ok(ir) = spirv_gen::text::parse(CS) else {
            return;
        };
        let cs = ComputeState {
            code: ShaderCode::Ir(std::sync::Arc::new(ir)),
            static_shared_mem: self.rng.pick(&[0, 0, 4, 16 << 10, 1 << 20, u32::MAX]),
            req_input_mem: self.rng.pick(&[0, 0, 16, 1 << 20, u32::MAX]),
        };
        let h = self.e.ctx.create_compute_state(&cs);
        let Some(h) = self.note(h) else { return };
        self.pools.compute.push(h);
        let info = self.e.ctx.get_compute_state_info(h);
        self.note(info);
        let block = [
            self.rng.pick(&[0, 1, 8, 1024, 1025, u32::MAX]),
            self.rng.pick(&[1, 0, 2, 65536]),
            1,
        ];
        let sg = self.e.ctx.get_compute_state_subgroup_size(h, block);
        self.note(sg);
        let r = self.e.ctx.bind_compute_state(Some(h));
        self.note(r);
        if self.rng.chance(30) {
            let r = self.e.ctx.delete_compute_state(h);
            self.note(r);
        }
        let n = self.rng.range(0, 3) as usize;
        let surfaces: Vec<_> = (0..n)
            .map(|_| pick_from(self, &self.surfaces.clone()))
            .collect();
        let start = self.rng.pick(&[0, 1, 31, u32::MAX]);
        let r = self.e.ctx.set_compute_resources(start, &surfaces);
        self.note(r);
        let info = GridInfo {
            block: if self.rng.chance(60) {
                [8, 1, 1]
            } else {
                block
            },
            last_block: [self.rng.pick(&[0, 0, 3, 9]), 0, 0],
            grid: [self.rng.pick(&[1, 2, 0]), 1, 1],
            grid_base: [self.rng.pick(&[0, 0, 5, u32::MAX]), 0, 0],
            ..Default::default()
        };
        let r = self.e.ctx.launch_grid(&info);
        self.note(r);
    }

    fn bindless_op(&mut self) {
        match self.rng.below(3) {
            0 => {
                let Some(r) = self.any_res() else { return };
                let tmpl = SamplerViewTemplate {
                    format: self.format_for(&r),
                    target: r.desc().target,
                    swizzle: [Swizzle::X, Swizzle::Y, Swizzle::Z, Swizzle::W],
                    range: if r.desc().target == pipe_core::resource::Target::Buffer {
                        ViewRange::Buffer {
                            offset: 0,
                            size: self.size(4096),
                        }
                    } else {
                        ViewRange::Texture {
                            first_level: 0,
                            last_level: self.rng.range(0, 2),
                            first_layer: 0,
                            last_layer: 0,
                        }
                    },
                };
                let v = self.e.ctx.create_sampler_view(&r, &tmpl);
                let Some(v) = self.note(v) else { return };
                self.pools.views.push(v.clone());
                let ss = SamplerState {
                    lod_bias: self.wild(0.0),
                    max_lod: self.wild(1000.0),
                    max_anisotropy: self.rng.pick(&[0, 1, 16, 255]),
                    ..Default::default()
                };
                let h = self.e.ctx.create_texture_handle(&v, &ss);
                if let Some(h) = self.note(h) {
                    self.pools.texture_handles.push(h);
                }
            }
            1 => {
                let Some(iv) = self.any_image_view() else {
                    return;
                };
                let h = self.e.ctx.create_image_handle(&iv);
                if let Some(h) = self.note(h) {
                    self.pools.image_handles.push(h);
                }
            }
            _ => {
                // Residency and deletion of made, deleted and made-up
                // handles.
                let texture = self.rng.chance(50);
                let pool = if texture {
                    self.pools.texture_handles.clone()
                } else {
                    self.pools.image_handles.clone()
                };
                let h = match pick_from(self, &pool) {
                    Some(h) if self.rng.chance(80) => h,
                    _ => self.rng.pick(&[0, 1, u64::MAX, 0x1_0000_0001]),
                };
                let resident = self.rng.chance(60);
                let r = match (texture, self.rng.below(3)) {
                    (true, 0) => self.e.ctx.delete_texture_handle(h),
                    (true, _) => self.e.ctx.make_texture_handle_resident(h, resident),
                    (false, 0) => self.e.ctx.delete_image_handle(h),
                    (false, _) => {
                        let access = ImageAccess::from_bits_truncate(self.rng.bits() as u8);
                        self.e.ctx.make_image_handle_resident(h, access, resident)
                    }
                };
                self.note(r);
                self.draw();
            }
        }
    }

    fn transfer_misc_op(&mut self) {
        match self.rng.below(5) {
            0 => {
                let Some(r) = self.any_res() else { return };
                let flags = MapFlags::WRITE
                    | MapFlags::FLUSH_EXPLICIT
                    | MapFlags::from_bits_truncate(self.rng.bits() & 0x3ff);
                let bx = self.any_box();
                let t = self.e.ctx.transfer_map(&r, 0, flags, &bx);
                if let Some(mut t) = self.note(t) {
                    for _ in 0..self.rng.range(1, 3) {
                        let fb = self.any_box();
                        let r = self.e.ctx.transfer_flush_region(&mut t, &fb);
                        self.note(r);
                    }
                    let r = self.e.ctx.transfer_unmap(t);
                    self.note(r);
                }
            }
            1 => {
                if let Some(r) = self.any_res() {
                    let res = self.e.ctx.flush_resource(&r);
                    self.note(res);
                    let level = self.rng.pick(&[0, 1, 40]);
                    let layer = self.rng.pick(&[0, 7, u32::MAX]);
                    let res = self.e.ctx.is_resource_referenced(&r, level, layer);
                    self.note(res);
                }
                let r = self.e.ctx.evaluate_depth_buffer();
                self.note(r);
                let on = self.rng.chance(50);
                let r = self.e.ctx.set_active_query_state(on);
                self.note(r);
                self.draw();
                let r = self.e.ctx.set_active_query_state(true);
                self.note(r);
            }
            2 => {
                // Fences: this context waits for, and signals, its own.
                let f = self.e.ctx.flush(FlushFlags::empty(), true);
                if let Some(Some(f)) = self.note(f) {
                    self.draw();
                    let r = self.e.ctx.fence_server_sync(&f);
                    self.note(r);
                    if self.rng.chance(50) {
                        let r = self.e.ctx.fence_server_signal(&f);
                        self.note(r);
                    }
                    self.draw();
                }
                let _ = self.e.ctx.get_device_reset_status();
            }
            3 => {
                let uploader = self.rng.pick(&[Uploader::Stream, Uploader::Const]);
                let size = self.size(4096);
                let alignment = self.rng.pick(&[0, 1, 3, 4, 256, 1 << 31]);
                let a = self.e.ctx.upload_alloc(uploader, size, alignment);
                if let Some(mut a) = self.note(a) {
                    let d = a.data_mut();
                    let n = d.len().min(16);
                    d[..n].fill(0x11);
                }
                let data = vec![0x22u8; self.rng.pick(&[0, 1, 17, 4096])];
                let a = self.e.ctx.upload_data(uploader, &data, alignment);
                self.note(a);
                let r = self.e.ctx.upload_unmap(uploader);
                self.note(r);
            }
            _ => {
                let buffer = self.any_res();
                let offset = self.size(4096);
                let cond = self.rng.chance(50);
                let r = self
                    .e
                    .ctx
                    .render_condition_mem(buffer.as_ref(), offset, cond);
                self.note(r);
                self.draw();
                let r = self.e.ctx.render_condition_mem(None, 0, false);
                self.note(r);
            }
        }
    }

    /// Destroys a view, surface or stream-output target that may be
    /// bound, and draws with it still bound.
    fn destroy_bound(&mut self) {
        match self.rng.below(3) {
            0 => {
                if let Some(v) = pick_from(self, &self.pools.views.clone()) {
                    let stage = self.rng.pick(&[ShaderStage::Vertex, ShaderStage::Fragment]);
                    let r = self
                        .e
                        .ctx
                        .set_sampler_views(stage, 0, &[Some(v.clone())], 0);
                    self.note(r);
                    let r = self.e.ctx.sampler_view_destroy(v);
                    self.note(r);
                }
            }
            1 => {
                if !self.surfaces.is_empty() {
                    let i = self.rng.below(self.surfaces.len() as u32) as usize;
                    let s = self.surfaces.swap_remove(i);
                    let r = self.e.ctx.surface_destroy(s);
                    self.note(r);
                }
            }
            _ => {
                let Some(r) = self.any_res() else { return };
                let (off, size) = (self.size(256), self.size(4096));
                let t = self.e.ctx.create_stream_output_target(&r, off, size);
                if let Some(t) = self.note(t) {
                    self.pools.targets.push(t.clone());
                    let r = self
                        .e
                        .ctx
                        .set_stream_output_targets(&[Some(t.clone())], &[None]);
                    self.note(r);
                    self.draw();
                    let r = self.e.ctx.stream_output_target_destroy(t);
                    self.note(r);
                }
            }
        }
        self.draw();
        let r = self.e.ctx.set_stream_output_targets(&[], &[]);
        self.note(r);
    }

    /// A write, clear or map on a second context of a resource this one
    /// may use, with or without a flush and a fence wait between (Gallium
    /// asks for both; a frontend may forget), then a draw, map or copy
    /// here.
    fn other_context_op(&mut self) {
        if self.pools.other.is_none() {
            self.pools.other = self.e.other_context().ok();
        }
        let (Some(mut other), Some(r)) = (self.pools.other.take(), self.any_res()) else {
            return;
        };
        let res = match self.rng.below(4) {
            0 => {
                let off = self.size(256);
                other.buffer_subdata(&r, MapFlags::empty(), off, &[0x21; 64])
            }
            1 => {
                let (off, size) = (self.size(256), self.size(256));
                other.clear_buffer(&r, off, size, &[3; 4])
            }
            2 => {
                let bx = self.any_box();
                let flags = MapFlags::READ | MapFlags::WRITE;
                other
                    .transfer_map(&r, 0, flags, &bx)
                    .and_then(|t| other.transfer_unmap(t))
            }
            _ => {
                let bx = self.any_box();
                other.clear_texture(&r, 0, &bx, &[0x11; 16])
            }
        };
        self.note(res);
        if self.rng.chance(60) {
            let f = other.flush(FlushFlags::empty(), true);
            if let Some(Some(f)) = self.note(f) {
                if self.rng.chance(70) {
                    let res = self.e.ctx.fence_server_sync(&f);
                    self.note(res);
                }
            }
        }
        self.pools.other = Some(other);
        match self.rng.below(3) {
            0 => self.draw(),
            1 => {
                let bx = self.any_box();
                let t = self.e.ctx.transfer_map(&r, 0, MapFlags::READ, &bx);
                if let Some(t) = self.note(t) {
                    let res = self.e.ctx.transfer_unmap(t);
                    self.note(res);
                }
            }
            _ => {
                if let Some(dst) = self.any_res() {
                    let bx = self.any_box();
                    let res = self
                        .e
                        .ctx
                        .resource_copy_region(&dst, 0, 0, 0, 0, &r, 0, &bx);
                    self.note(res);
                }
            }
        }
    }

    /// A blit under an active render condition, with window rectangles
    /// (up to more than the device has), alpha blending, a scissor, and
    /// often a source and destination that are one resource.
    fn blit_op(&mut self) {
        // Textures (buffers are refused: covered by the other group).
        let textures: Vec<_> = self
            .res
            .iter()
            .filter(|r| r.desc().target != pipe_core::resource::Target::Buffer)
            .cloned()
            .collect();
        let (Some(src), Some(other)) = (pick_from(self, &textures), pick_from(self, &textures))
        else {
            return;
        };
        let dst = if self.rng.chance(40) {
            src.clone()
        } else {
            other
        };
        let q = if self.rng.chance(50) {
            let q = self
                .e
                .ctx
                .create_query(pipe_core::query::QueryType::OcclusionCounter, 0);
            self.note(q).inspect(|q| {
                let r = self.e.ctx.begin_query(q);
                self.note(r);
                self.draw();
                let r = self.e.ctx.end_query(q);
                self.note(r);
                let cond = self.rng.chance(50);
                let r = self.e.ctx.render_condition(
                    Some(q),
                    cond,
                    pipe_core::query::RenderCondMode::NoWait,
                );
                self.note(r);
            })
        } else {
            None
        };
        let n = self.rng.pick(&[0usize, 1, 3, 8, 9]);
        let rects = (0..n)
            .map(|_| ScissorState {
                minx: self.rng.range(0, 40) as u16,
                miny: self.rng.range(0, 40) as u16,
                maxx: self.rng.pick(&[0, 8, 64, 65535]),
                maxy: self.rng.pick(&[0, 8, 64, 65535]),
            })
            .collect();
        // Mostly level 0 and a box inside it, so that blits get done.
        let surf = |f: &mut Fuzz, resource: pipe_core::Resource| {
            let d = resource.desc();
            let (w, h) = (d.width0.max(1), d.height0.max(1));
            let bx = if f.rng.chance(60) {
                let (x, y) = (f.rng.range(0, w - 1), f.rng.range(0, h - 1));
                let (bw, bh) = (f.rng.range(1, w - x), f.rng.range(1, h - y));
                let flip = if f.rng.chance(20) { -1 } else { 1 };
                PipeBox::new(x as i32, y as i32, 0, flip * bw as i32, bh as i32, 1)
            } else {
                f.any_box()
            };
            pipe_core::blit::BlitSurface {
                format: f.format_for(&resource),
                level: if f.rng.chance(70) {
                    0
                } else {
                    f.rng.range(0, 2)
                },
                bx,
                resource,
            }
        };
        let info = pipe_core::blit::BlitInfo {
            dst: surf(self, dst),
            src: surf(self, src),
            mask: if self.rng.chance(70) {
                pipe_core::flags::BlitMask::RGBA
            } else {
                pipe_core::flags::BlitMask::from_bits_truncate(self.rng.bits() & 63)
            },
            filter: self.rng.pick(&[TexFilter::Nearest, TexFilter::Linear]),
            scissor: self.rng.chance(30).then(|| ScissorState {
                minx: 2,
                miny: 2,
                maxx: self.rng.pick(&[1, 30, 65535]),
                maxy: 30,
            }),
            render_condition_enable: self.rng.chance(60),
            alpha_blend: self.rng.chance(20),
            window_rectangle_include: self.rng.chance(50),
            window_rectangles: rects,
        };
        let r = self.e.ctx.blit(&info);
        self.note(r);
        if let Some(q) = q {
            let r =
                self.e
                    .ctx
                    .render_condition(None, false, pipe_core::query::RenderCondMode::Wait);
            self.note(r);
            let r = self.e.ctx.destroy_query(q);
            self.note(r);
        }
    }

    /// Stream output into two or three windows of one buffer, which
    /// overlap now and then (GL forbids overlapping targets, and a
    /// frontend may forget), with append offsets, then draws and a read of
    /// the offsets.
    fn aliased_capture(&mut self) {
        let Ok(r) = self.e.buffer_with(&[0; 1024]) else {
            return;
        };
        let n = self.rng.range(2, 3) as usize;
        let mut targets = Vec::new();
        for _ in 0..n {
            // Windows that overlap now and then.
            let (off, size) = (
                self.rng.pick(&[0, 128, 256, 384]),
                self.rng.pick(&[128, 256]),
            );
            let t = self.e.ctx.create_stream_output_target(&r, off, size);
            if let Some(t) = self.note(t) {
                targets.push(Some(t));
            }
        }
        let offsets: Vec<_> = targets
            .iter()
            .map(|_| self.rng.pick(&[None, Some(0), Some(8)]))
            .collect();
        let res = self.e.ctx.set_stream_output_targets(&targets, &offsets);
        self.note(res);
        // A vertex shader capturing its position into each target.
        if let Ok(mut st) = shader(ShaderStage::Vertex, VS_PASSTHROUGH) {
            st.stream_output = StreamOutputInfo {
                stride: [4; 4],
                output: (0..n as u8)
                    .map(|b| StreamOutput {
                        register_index: 0,
                        start_component: 0,
                        num_components: 4,
                        output_buffer: b,
                        dst_offset: 0,
                        stream: 0,
                    })
                    .collect(),
            };
            let h = self.e.ctx.create_vs_state(&st);
            if let Some(h) = self.note(h) {
                self.pools.shaders.push(h);
                let r = self.e.ctx.bind_vs_state(Some(h));
                self.note(r);
            }
        }
        self.draw();
        self.draw();
        for t in targets.iter().flatten() {
            let res = self.e.ctx.stream_output_target_offset(t);
            self.note(res);
        }
        let res = self.e.ctx.set_stream_output_targets(&[], &[]);
        self.note(res);
    }

    /// An indirect, indirect-count or draw-auto draw with bad buffers,
    /// offsets, strides and counts.
    fn indirect_draw(&mut self) {
        let auto = self.rng.chance(30);
        let indirect = if auto {
            DrawIndirectInfo {
                count_from_stream_output: pick_from(self, &self.pools.targets.clone()),
                buffer: if self.rng.chance(20) {
                    self.any_res()
                } else {
                    None
                },
                ..Default::default()
            }
        } else {
            // The commands, counts and indices come from a buffer of
            // small words: what the GPU reads cannot be validated, and a
            // command of a billion vertices is a frontend's hang, not a
            // driver fault. Textures stand in for it now and then (to be
            // refused).
            let commands = self.indirect_commands();
            let buffer = |f: &mut Fuzz| match f.any_res() {
                Some(r)
                    if r.desc().target != pipe_core::resource::Target::Buffer
                        && f.rng.chance(20) =>
                {
                    Some(r)
                }
                _ => commands.clone(),
            };
            DrawIndirectInfo {
                offset: self.rng.pick(&[0, 4, 3, 4096, u32::MAX - 3]),
                stride: self.rng.pick(&[0, 16, 20, 4, 17, u32::MAX]),
                draw_count: self.rng.pick(&[0, 1, 2, 1000, u32::MAX]),
                indirect_draw_count_offset: self.rng.pick(&[0, 2, 4096]),
                buffer: buffer(self),
                indirect_draw_count: if self.rng.chance(40) {
                    buffer(self)
                } else {
                    None
                },
                count_from_stream_output: None,
            }
        };
        let index_size = if auto {
            0
        } else {
            self.rng.pick(&[0u8, 0, 2, 4])
        };
        let info = DrawInfo {
            mode: self.rng.pick(&[
                PrimType::Triangles,
                PrimType::Points,
                PrimType::Quads,
                PrimType::LineLoop,
                PrimType::Patches,
            ]),
            index_size,
            index: match (index_size, self.indirect_commands()) {
                (0, _) | (_, None) => IndexSource::None,
                (_, Some(r)) => IndexSource::Resource(r),
            },
            primitive_restart: self.rng.chance(20),
            restart_index: self.rng.pick(&[0xffff, 0xffff_ffff, 3]),
            instance_count: 1,
            ..DrawInfo::default()
        };
        let draws = [DrawStartCountBias::default()];
        let drawid = self.rng.pick(&[0, 1, u32::MAX]);
        let r = self.e.ctx.draw_vbo(&info, drawid, Some(&indirect), &draws);
        self.draws += 1;
        if self.note(r).is_none() {
            self.draws_refused += 1;
        }
    }

    /// Back to the working program, vertices and blend state, with no
    /// tessellation or geometry shader (as a frontend whose draws are
    /// valid would be), so that later calls meet a drawable state as
    /// well as a broken one.
    pub(super) fn repair(&mut self) {
        self.traced("repair", 0);
        let _ = bind_program(&mut self.e, VS_PASSTHROUGH, FS_UBO_COLOR);
        let _ = bind_vertices(&mut self.e, &super::TRIANGLE, None);
        let mut bs = BlendState::default();
        bs.rt[0].colormask = ColorMask::all();
        let h = self.e.ctx.create_blend_state(&bs);
        if let Some(h) = self.note(h) {
            let r = self.e.ctx.bind_blend_state(Some(h));
            self.note(r);
        }
        for r in [
            self.e.ctx.bind_gs_state(None),
            self.e.ctx.bind_tcs_state(None),
            self.e.ctx.bind_tes_state(None),
        ] {
            self.note(r);
        }
    }

    /// 4 KiB of words from 0 to 6, for indirect commands, draw counts and
    /// indices (made once).
    fn indirect_commands(&mut self) -> Option<pipe_core::Resource> {
        if self.pools.commands.is_none() {
            let words: Vec<u8> = (0..1024)
                .flat_map(|_| self.rng.range(0, 6).to_le_bytes())
                .collect();
            self.pools.commands = self.e.buffer_with(&words).ok();
        }
        self.pools.commands.clone()
    }

    /// Rebinds the state the object calls may have left bound, for the
    /// final checks: GL's default blend and depth-stencil-alpha state,
    /// no tessellation or geometry shaders, no stipple rasterizer (the
    /// caller binds its own rasterizer), no sample locations and no
    /// inlined constants.
    pub(super) fn reset_objects(&mut self) -> Result<(), crate::Outcome> {
        use crate::harness::step;
        let ctx = &mut self.e.ctx;
        let mut bs = BlendState::default();
        bs.rt[0].colormask = ColorMask::all();
        let h = step("blend", ctx.create_blend_state(&bs))?;
        step("bind blend", ctx.bind_blend_state(Some(h)))?;
        let h = step(
            "dsa",
            ctx.create_depth_stencil_alpha_state(&DepthStencilAlphaState::default()),
        )?;
        step("bind dsa", ctx.bind_depth_stencil_alpha_state(Some(h)))?;
        step("unbind gs", ctx.bind_gs_state(None))?;
        step("unbind tcs", ctx.bind_tcs_state(None))?;
        step("unbind tes", ctx.bind_tes_state(None))?;
        step("sample locations", ctx.set_sample_locations(None))?;
        step(
            "inlinable constants",
            ctx.set_inlinable_constants(ShaderStage::Fragment, &[]),
        )?;
        step("active queries", ctx.set_active_query_state(true))?;
        step("render condition", ctx.render_condition_mem(None, 0, false))?;
        Ok(())
    }
}
