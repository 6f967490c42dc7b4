//! The validation layer rejects bad frontend input before the driver sees
//! it. The inner driver is the no-op driver, which counts the calls that
//! reach it: every rejected call must leave the count unchanged, and every
//! accepted one must reach it exactly once.

use std::sync::Arc;

use pipe_core::blit::{BlitInfo, BlitSurface};
use pipe_core::draw::{DrawIndirectInfo, DrawInfo, DrawStartCountBias, IndexSource};
use pipe_core::flags::{BlitMask, ClearFlags, FlushFlags, MapFlags};
use pipe_core::noop::NoopScreen;
use pipe_core::query::QueryType;
use pipe_core::resource::{BindFlags, PipeBox, ResourceFlags, ResourceTemplate, Target};
use pipe_core::shader::{ShaderCode, ShaderState, StreamOutputInfo};
use pipe_core::state::{ScissorState, ShaderStage, TexFilter, VertexElement};
use pipe_core::validate::ValidatingScreen;
use pipe_core::view::{SamplerViewTemplate, SurfaceTemplate, ViewRange};
use pipe_core::{Context, Format, PipeError, Resource, Screen};

struct Fixture {
    noop: Arc<NoopScreen>,
    screen: Arc<ValidatingScreen>,
    ctx: Box<dyn Context>,
}

fn fixture() -> Fixture {
    let noop = NoopScreen::new();
    let screen = ValidatingScreen::new(noop.clone());
    let ctx = screen.clone().context_create().unwrap();
    Fixture { noop, screen, ctx }
}

impl Fixture {
    /// Runs `f`, asserts it failed with InvalidArgument mentioning `needle`,
    /// and that the inner driver saw no call.
    fn rejects<T: std::fmt::Debug>(
        &mut self,
        needle: &str,
        f: impl FnOnce(&mut dyn Context, &dyn Screen) -> Result<T, PipeError>,
    ) {
        let before = self.noop.calls();
        let r = f(&mut *self.ctx, &*self.screen);
        match r {
            Err(PipeError::InvalidArgument(m)) => {
                assert!(
                    m.contains(needle),
                    "message {m:?} does not mention {needle:?}"
                )
            }
            other => panic!("expected InvalidArgument({needle}), got {other:?}"),
        }
        assert_eq!(
            self.noop.calls(),
            before,
            "a rejected call reached the driver"
        );
    }

    /// Runs `f` and asserts it succeeded and reached the driver.
    fn accepts<T>(
        &mut self,
        f: impl FnOnce(&mut dyn Context, &dyn Screen) -> Result<T, PipeError>,
    ) -> T {
        let before = self.noop.calls();
        let r = f(&mut *self.ctx, &*self.screen).unwrap_or_else(|e| panic!("rejected: {e}"));
        assert!(
            self.noop.calls() > before,
            "an accepted call did not reach the driver"
        );
        r
    }

    fn tex2d(&mut self, w: u32, h: u32, levels: u32) -> Resource {
        let mut t = ResourceTemplate::texture_2d(
            Format::R8G8B8A8Unorm,
            w,
            h,
            BindFlags::SAMPLER_VIEW | BindFlags::RENDER_TARGET,
        );
        t.last_level = levels - 1;
        self.accepts(|_, s| s.resource_create(&t))
    }

    fn buffer(&mut self, size: u32, flags: ResourceFlags) -> Resource {
        let mut t = ResourceTemplate::buffer(size, BindFlags::VERTEX_BUFFER);
        t.flags = flags;
        self.accepts(|_, s| s.resource_create(&t))
    }
}

#[test]
fn resource_templates() {
    let mut f = fixture();
    let mut t = ResourceTemplate::texture_2d(Format::R8G8B8A8Unorm, 0, 4, BindFlags::SAMPLER_VIEW);
    f.rejects("zero extent", |_, s| s.resource_create(&t));
    t.width0 = 16;
    t.last_level = 5; // 16x4 has levels 0..=4
    f.rejects("mip chain", |_, s| s.resource_create(&t));
    t.last_level = 4;
    f.accepts(|_, s| s.resource_create(&t));
    let mut cube = t.clone();
    cube.target = Target::TextureCube;
    cube.last_level = 0;
    f.rejects("square", |_, s| s.resource_create(&cube));
    cube.height0 = 16;
    f.rejects("multiple of 6", |_, s| s.resource_create(&cube));
    cube.array_size = 6;
    f.accepts(|_, s| s.resource_create(&cube));
    let mut ms = t.clone();
    ms.nr_samples = 3;
    ms.last_level = 0;
    f.rejects("power of two", |_, s| s.resource_create(&ms));
    ms.nr_samples = 4;
    ms.last_level = 1;
    f.rejects("single-level", |_, s| s.resource_create(&ms));
    let mut big = t.clone();
    big.width0 = 1 << 20;
    big.last_level = 0;
    f.rejects("device limit", |_, s| s.resource_create(&big));
    let mut buf = ResourceTemplate::buffer(64, BindFlags::VERTEX_BUFFER);
    buf.height0 = 2;
    f.rejects("buffers", |_, s| s.resource_create(&buf));
    let mut coh = ResourceTemplate::buffer(64, BindFlags::VERTEX_BUFFER);
    coh.flags = ResourceFlags::MAP_COHERENT;
    f.rejects("MAP_PERSISTENT", |_, s| s.resource_create(&coh));
}

#[test]
fn transfer_map_flags_and_boxes() {
    let mut f = fixture();
    let tex = f.tex2d(16, 8, 2);
    let whole = PipeBox::rect(0, 0, 16, 8);
    f.rejects("READ cannot be combined", |c, _| {
        c.transfer_map(&tex, 0, MapFlags::READ | MapFlags::DISCARD_RANGE, &whole)
    });
    f.rejects("READ cannot be combined", |c, _| {
        c.transfer_map(
            &tex,
            0,
            MapFlags::READ | MapFlags::DISCARD_WHOLE_RESOURCE,
            &whole,
        )
    });
    f.rejects("READ cannot be combined", |c, _| {
        c.transfer_map(&tex, 0, MapFlags::READ | MapFlags::UNSYNCHRONIZED, &whole)
    });
    f.rejects("neither READ nor WRITE", |c, _| {
        c.transfer_map(&tex, 0, MapFlags::empty(), &whole)
    });
    f.rejects("neither READ nor WRITE", |c, _| {
        c.transfer_map(
            &tex,
            0,
            MapFlags::FLUSH_EXPLICIT | MapFlags::DIRECTLY,
            &whole,
        )
    });
    f.rejects("MAP_PERSISTENT", |c, _| {
        c.transfer_map(&tex, 0, MapFlags::WRITE | MapFlags::PERSISTENT, &whole)
    });
    f.rejects("exceeds level 0", |c, _| {
        c.transfer_map(&tex, 0, MapFlags::READ, &PipeBox::rect(8, 0, 9, 8))
    });
    f.rejects("exceeds level 1", |c, _| {
        c.transfer_map(&tex, 1, MapFlags::READ, &PipeBox::rect(0, 0, 16, 8))
    });
    f.rejects("level 2 out of range", |c, _| {
        c.transfer_map(&tex, 2, MapFlags::READ, &whole)
    });
    f.rejects("negative", |c, _| {
        c.transfer_map(&tex, 0, MapFlags::READ, &PipeBox::new(-1, 0, 0, 4, 4, 1))
    });
    f.rejects("empty box", |c, _| {
        c.transfer_map(&tex, 0, MapFlags::READ, &PipeBox::rect(0, 0, 0, 8))
    });
    let mut tr =
        f.accepts(|c, _| c.transfer_map(&tex, 1, MapFlags::WRITE, &PipeBox::rect(0, 0, 8, 4)));
    assert_eq!(tr.stride(), 32);
    assert_eq!(tr.len(), 128);
    tr.write_bytes(0, &[0xab; 128]).unwrap();
    assert!(tr.write_bytes(1, &[0; 128]).is_none(), "write past the end");
    f.rejects("FLUSH_EXPLICIT", |c, _| {
        c.transfer_flush_region(&mut tr, &PipeBox::rect(0, 0, 1, 1))
    });
    f.accepts(|c, _| c.transfer_unmap(tr));

    let pbuf = f.buffer(256, ResourceFlags::MAP_PERSISTENT);
    let mut tr = f.accepts(|c, _| {
        c.transfer_map(
            &pbuf,
            0,
            MapFlags::WRITE | MapFlags::PERSISTENT | MapFlags::FLUSH_EXPLICIT,
            &PipeBox::range(64, 64),
        )
    });
    f.rejects("outside the mapped box", |c, _| {
        c.transfer_flush_region(&mut tr, &PipeBox::range(32, 64))
    });
    f.accepts(|c, _| c.transfer_flush_region(&mut tr, &PipeBox::range(0, 64)));
    f.rejects("COHERENT needs", |c, _| {
        c.transfer_map(
            &pbuf,
            0,
            MapFlags::WRITE | MapFlags::PERSISTENT | MapFlags::COHERENT,
            &PipeBox::range(0, 4),
        )
    });
    f.accepts(|c, _| c.transfer_unmap(tr));
}

#[test]
fn arrays_cubes_and_3d_boxes() {
    let mut f = fixture();
    let mut t = ResourceTemplate::texture_2d(Format::R8G8B8A8Unorm, 8, 8, BindFlags::SAMPLER_VIEW);
    t.target = Target::TextureCubeArray;
    t.array_size = 12;
    let cube_array = f.accepts(|_, s| s.resource_create(&t));
    // z indexes faces x layers: 12 of them.
    f.accepts(|c, _| {
        c.transfer_map(
            &cube_array,
            0,
            MapFlags::READ,
            &PipeBox::new(0, 0, 6, 8, 8, 6),
        )
    });
    f.rejects("exceeds", |c, _| {
        c.transfer_map(
            &cube_array,
            0,
            MapFlags::READ,
            &PipeBox::new(0, 0, 7, 8, 8, 6),
        )
    });
    let mut t3 = ResourceTemplate::texture_2d(Format::R8G8B8A8Unorm, 8, 8, BindFlags::SAMPLER_VIEW);
    t3.target = Target::Texture3D;
    t3.depth0 = 8;
    t3.last_level = 3;
    let vol = f.accepts(|_, s| s.resource_create(&t3));
    // Level 2 is 2x2x2: depth minifies for 3D.
    f.accepts(|c, _| c.transfer_map(&vol, 2, MapFlags::READ, &PipeBox::new(0, 0, 0, 2, 2, 2)));
    f.rejects("exceeds level 2", |c, _| {
        c.transfer_map(&vol, 2, MapFlags::READ, &PipeBox::new(0, 0, 0, 2, 2, 3))
    });
    // Compressed formats: block-aligned boxes.
    let mut bc =
        ResourceTemplate::texture_2d(Format::Bc1RgbaUnorm, 16, 16, BindFlags::SAMPLER_VIEW);
    bc.last_level = 0;
    let bc = f.accepts(|_, s| s.resource_create(&bc));
    f.rejects("aligned", |c, _| {
        c.transfer_map(&bc, 0, MapFlags::READ, &PipeBox::rect(2, 0, 4, 4))
    });
    f.accepts(|c, _| c.transfer_map(&bc, 0, MapFlags::READ, &PipeBox::rect(4, 4, 8, 8)));
}

#[test]
fn counts_over_limits() {
    let mut f = fixture();
    let caps = f.screen.caps().clone();
    let views = vec![None; 129];
    f.rejects("exceed the limit", |c, _| {
        c.set_sampler_views(ShaderStage::Fragment, 0, &views, 0)
    });
    f.rejects("exceed the limit", |c, _| {
        c.set_sampler_views(ShaderStage::Fragment, 120, &[None], 8)
    });
    f.accepts(|c, _| c.set_sampler_views(ShaderStage::Fragment, 120, &[None], 7));
    let scissors = vec![ScissorState::default(); caps.max_viewports as usize + 1];
    f.rejects("exceed the limit", |c, _| {
        c.set_scissor_states(0, &scissors)
    });
    let bad = ScissorState {
        minx: 5,
        miny: 0,
        maxx: 4,
        maxy: 4,
    };
    f.rejects("inverted", |c, _| c.set_scissor_states(0, &[bad]));
    let ve = VertexElement {
        src_offset: 0,
        src_stride: 12,
        vertex_buffer_index: 0,
        dual_slot: false,
        src_format: Format::R32G32B32Float,
        instance_divisor: 0,
    };
    let many = vec![ve; caps.max_vertex_attribs as usize + 1];
    f.rejects("exceed the limit", |c, _| {
        c.create_vertex_elements_state(&many)
    });
    let far = VertexElement {
        vertex_buffer_index: 200,
        ..ve
    };
    f.rejects("uses vertex buffer 200", |c, _| {
        c.create_vertex_elements_state(&[far])
    });
    f.accepts(|c, _| c.create_vertex_elements_state(&[ve]));
    f.rejects("index 99", |c, _| {
        c.set_constant_buffer(ShaderStage::Vertex, 99, None)
    });
    f.rejects("1..=32", |c, _| c.set_patch_vertices(0));
    f.rejects("1..=32", |c, _| c.set_patch_vertices(33));
}

#[test]
fn shader_stage_mismatch() {
    let mut f = fixture();
    let fs = ShaderState {
        stage: ShaderStage::Fragment,
        code: ShaderCode::SpirV {
            words: Arc::from(vec![0x0723_0203u32]),
            entry_point: "main".into(),
        },
        stream_output: StreamOutputInfo::default(),
    };
    f.rejects("is a fs shader", |c, _| c.create_vs_state(&fs));
    let h = f.accepts(|c, _| c.create_fs_state(&fs));
    f.rejects("is a fs shader", |c, _| c.bind_vs_state(Some(h)));
    f.rejects("is a fs shader", |c, _| c.delete_gs_state(h));
    f.accepts(|c, _| c.bind_fs_state(Some(h)));
}

#[test]
fn draws() {
    let mut f = fixture();
    let ib = f.buffer(64, ResourceFlags::empty());
    let one = [DrawStartCountBias {
        start: 0,
        count: 3,
        index_bias: 0,
    }];
    let info = |size, index| DrawInfo {
        index_size: size,
        index,
        ..DrawInfo::default()
    };
    f.rejects("index_size 3", |c, _| {
        c.draw_vbo(&info(3, IndexSource::Resource(ib.clone())), 0, None, &one)
    });
    f.rejects("does not match", |c, _| {
        c.draw_vbo(&info(2, IndexSource::None), 0, None, &one)
    });
    f.rejects("does not match", |c, _| {
        c.draw_vbo(&info(0, IndexSource::Resource(ib.clone())), 0, None, &one)
    });
    let user = [0u8; 4];
    f.rejects("user bytes", |c, _| {
        c.draw_vbo(&info(2, IndexSource::User(&user)), 0, None, &one)
    });
    f.rejects("no draws", |c, _| {
        c.draw_vbo(&info(0, IndexSource::None), 0, None, &[])
    });
    let indirect = DrawIndirectInfo {
        offset: 56,
        draw_count: 1,
        buffer: Some(ib.clone()),
        ..Default::default()
    };
    f.rejects("outside buffer", |c, _| {
        c.draw_vbo(&info(0, IndexSource::None), 0, Some(&indirect), &[])
    });
    let indirect = DrawIndirectInfo {
        offset: 48,
        draw_count: 1,
        buffer: Some(ib.clone()),
        ..Default::default()
    };
    f.accepts(|c, _| c.draw_vbo(&info(0, IndexSource::None), 0, Some(&indirect), &[]));
    let user6 = [0u8; 6];
    f.accepts(|c, _| c.draw_vbo(&info(2, IndexSource::User(&user6)), 0, None, &one));
}

#[test]
fn copies_blits_clears_queries_flush() {
    let mut f = fixture();
    let tex = f.tex2d(16, 16, 1);
    let buf = f.buffer(64, ResourceFlags::empty());
    f.rejects("overlap", |c, _| {
        c.resource_copy_region(&tex, 0, 2, 2, 0, &tex, 0, &PipeBox::rect(0, 0, 4, 4))
    });
    f.accepts(|c, _| c.resource_copy_region(&tex, 0, 8, 8, 0, &tex, 0, &PipeBox::rect(0, 0, 4, 4)));
    f.rejects("exceeds", |c, _| {
        c.resource_copy_region(&tex, 0, 14, 0, 0, &tex, 0, &PipeBox::rect(0, 0, 4, 4))
    });
    f.rejects("copy-compatible", |c, _| {
        c.resource_copy_region(&buf, 0, 0, 0, 0, &tex, 0, &PipeBox::rect(0, 0, 1, 1))
    });
    let side = |r: &Resource| BlitSurface {
        resource: r.clone(),
        level: 0,
        bx: PipeBox::rect(0, 0, 16, 16),
        format: Format::R8G8B8A8Unorm,
    };
    let mut blit = BlitInfo {
        dst: side(&tex),
        src: side(&tex),
        mask: BlitMask::Z,
        filter: TexFilter::Nearest,
        scissor: None,
        render_condition_enable: false,
        alpha_blend: false,
        window_rectangle_include: false,
        window_rectangles: vec![],
    };
    f.rejects("Z/S mask", |c, _| c.blit(&blit));
    blit.mask = BlitMask::RGBA;
    blit.src.bx = PipeBox::new(16, 0, 0, -16, 16, 1); // a flipped source is fine
    f.accepts(|c, _| c.blit(&blit));
    f.rejects("multiple of the 4-byte value", |c, _| {
        c.clear_buffer(&buf, 0, 6, &[0; 4])
    });
    f.rejects("exceeds buffer", |c, _| {
        c.clear_buffer(&buf, 32, 64, &[0; 4])
    });
    f.accepts(|c, _| c.clear_buffer(&buf, 0, 64, &[0; 4]));
    f.rejects("4-byte texel", |c, _| {
        c.clear_texture(&tex, 0, &PipeBox::rect(0, 0, 1, 1), &[0; 3])
    });
    f.rejects("takes index 0", |c, _| {
        c.create_query(QueryType::OcclusionCounter, 1)
    });
    f.rejects("PIPE_STAT_QUERY", |c, _| {
        c.create_query(QueryType::PipelineStatisticsSingle, 11)
    });
    let ts = f.accepts(|c, _| c.create_query(QueryType::Timestamp, 0));
    f.rejects("only ended", |c, _| c.begin_query(&ts));
    f.rejects("cannot predicate", |c, _| {
        c.render_condition(Some(&ts), false, pipe_core::query::RenderCondMode::Wait)
    });
    f.rejects("at most one", |c, _| {
        c.flush(
            FlushFlags::DEFERRED | FlushFlags::TOP_OF_PIPE | FlushFlags::BOTTOM_OF_PIPE,
            true,
        )
    });
    let surf = f.accepts(|c, _| {
        c.create_surface(
            &tex,
            &SurfaceTemplate {
                format: Format::R8G8B8A8Unorm,
                level: 0,
                first_layer: 0,
                last_layer: 0,
            },
        )
    });
    f.rejects("DEPTH and/or STENCIL", |c, _| {
        c.clear_depth_stencil(&surf, ClearFlags::COLOR0, 0.0, 0, 0, 0, 1, 1, false)
    });
    f.rejects("colour format", |c, _| {
        c.clear_depth_stencil(&surf, ClearFlags::DEPTH, 0.0, 0, 0, 0, 1, 1, false)
    });
}

#[test]
fn views() {
    let mut f = fixture();
    let tex = f.tex2d(16, 16, 3);
    let good = SamplerViewTemplate::whole(tex.desc());
    f.accepts(|c, _| c.create_sampler_view(&tex, &good));
    let mut levels = good;
    levels.range = ViewRange::Texture {
        first_level: 1,
        last_level: 3,
        first_layer: 0,
        last_layer: 0,
    };
    f.rejects("levels 1..=3", |c, _| c.create_sampler_view(&tex, &levels));
    let mut cast = good;
    cast.format = Format::R16G16B16A16Float;
    f.rejects("not compatible", |c, _| c.create_sampler_view(&tex, &cast));
    let mut cast_ok = good;
    cast_ok.format = Format::R8G8B8A8Srgb;
    f.accepts(|c, _| c.create_sampler_view(&tex, &cast_ok));
    let mut target = good;
    target.target = Target::Texture3D;
    f.rejects("3d view of a 2d", |c, _| {
        c.create_sampler_view(&tex, &target)
    });
    f.rejects("layers 0..=1", |c, _| {
        c.create_surface(
            &tex,
            &SurfaceTemplate {
                format: Format::R8G8B8A8Unorm,
                level: 0,
                first_layer: 0,
                last_layer: 1,
            },
        )
    });
    f.rejects("level 3 out of range", |c, _| {
        c.create_surface(
            &tex,
            &SurfaceTemplate {
                format: Format::R8G8B8A8Unorm,
                level: 3,
                first_layer: 0,
                last_layer: 0,
            },
        )
    });
}

#[test]
fn review_regressions() {
    let mut f = fixture();
    // Overflowing flips and huge buffers are errors, not panics.
    let tex = f.tex2d(16, 16, 1);
    let side = |r: &Resource, bx: PipeBox| BlitSurface {
        resource: r.clone(),
        level: 0,
        bx,
        format: Format::R8G8B8A8Unorm,
    };
    let blit = BlitInfo {
        dst: side(&tex, PipeBox::rect(0, 0, 16, 16)),
        src: side(&tex, PipeBox::new(i32::MIN, 0, 0, -1, 16, 1)),
        mask: BlitMask::RGBA,
        filter: TexFilter::Nearest,
        scissor: None,
        render_condition_enable: false,
        alpha_blend: false,
        window_rectangle_include: false,
        window_rectangles: vec![],
    };
    f.rejects("overflows", |c, _| c.blit(&blit));
    let huge = ResourceTemplate::buffer(u32::MAX, BindFlags::VERTEX_BUFFER);
    f.rejects("2 GiB", |_, s| s.resource_create(&huge));
    // Texture buffers take the view's format, not the buffer's.
    let buf = f.buffer(256, ResourceFlags::empty());
    let mut tbo = SamplerViewTemplate::whole(buf.desc());
    tbo.format = Format::R32G32B32A32Float;
    f.accepts(|c, _| c.create_sampler_view(&buf, &tbo));
    // A range need not be whole texels (GL counts floor(size / texel)),
    // but it holds one at least.
    tbo.range = ViewRange::Buffer {
        offset: 0,
        size: 24,
    };
    f.accepts(|c, _| c.create_sampler_view(&buf, &tbo));
    tbo.range = ViewRange::Buffer {
        offset: 0,
        size: 15,
    };
    f.rejects("holds no 16-byte texel", |c, _| {
        c.create_sampler_view(&buf, &tbo)
    });
    // Index buffer reads past the end.
    let one = [DrawStartCountBias {
        start: 127,
        count: 3,
        index_bias: 0,
    }];
    let info = DrawInfo {
        index_size: 2,
        index: IndexSource::Resource(buf.clone()),
        ..DrawInfo::default()
    };
    f.rejects("index buffer", |c, _| c.draw_vbo(&info, 0, None, &one));
    // Clear rectangles and depth values.
    let surf = f.accepts(|c, _| {
        c.create_surface(
            &tex,
            &SurfaceTemplate {
                format: Format::R8G8B8A8Unorm,
                level: 0,
                first_layer: 0,
                last_layer: 0,
            },
        )
    });
    f.rejects("exceeds the 16x16 surface", |c, _| {
        c.clear_render_target(
            &surf,
            &pipe_core::state::ColorUnion::default(),
            u32::MAX,
            0,
            1,
            1,
            false,
        )
    });
    f.rejects("outside [0, 1]", |c, _| {
        c.clear(ClearFlags::DEPTH, None, &Default::default(), 2.0, 0)
    });
    // Zero-sized operations succeed without reaching the driver.
    let before = f.noop.calls();
    f.ctx.clear_buffer(&buf, 0, 0, &[0; 4]).unwrap();
    f.ctx
        .buffer_subdata(&buf, MapFlags::empty(), 0, &[])
        .unwrap();
    assert_eq!(f.noop.calls(), before);
    // Compressed partial edge blocks copy as whole blocks.
    let mut bc = ResourceTemplate::texture_2d(Format::Bc1RgbaUnorm, 6, 6, BindFlags::SAMPLER_VIEW);
    bc.last_level = 0;
    let bc = f.accepts(|_, s| s.resource_create(&bc));
    let bc2 = f.accepts(|_, s| s.resource_create(bc.desc()));
    f.accepts(|c, _| c.resource_copy_region(&bc2, 0, 4, 4, 0, &bc, 0, &PipeBox::rect(4, 4, 2, 2)));
}

#[test]
fn view_layer_counts() {
    let mut f = fixture();
    let mut t = ResourceTemplate::texture_2d(Format::R8G8B8A8Unorm, 16, 8, BindFlags::SAMPLER_VIEW);
    t.target = Target::Texture2DArray;
    t.array_size = 12;
    let rect_array = f.accepts(|_, s| s.resource_create(&t));
    let mut v = SamplerViewTemplate::whole(rect_array.desc());
    v.target = Target::TextureCube;
    v.range = ViewRange::Texture {
        first_level: 0,
        last_level: 0,
        first_layer: 0,
        last_layer: 5,
    };
    f.rejects("cannot cover 6 layers", |c, _| {
        c.create_sampler_view(&rect_array, &v)
    });
    t.height0 = 16;
    let square = f.accepts(|_, s| s.resource_create(&t));
    f.accepts(|c, _| c.create_sampler_view(&square, &v));
    v.range = ViewRange::Texture {
        first_level: 0,
        last_level: 0,
        first_layer: 0,
        last_layer: 6,
    };
    f.rejects("cannot cover 7 layers", |c, _| {
        c.create_sampler_view(&square, &v)
    });
    v.target = Target::Texture2D;
    f.rejects("cannot cover 7 layers", |c, _| {
        c.create_sampler_view(&square, &v)
    });
}

#[test]
fn stream_output() {
    use pipe_core::shader::StreamOutput;
    let mut f = fixture();
    let b = f.buffer(256, ResourceFlags::empty());
    let out = |reg, start, n, buffer, dst, stream| StreamOutput {
        register_index: reg,
        start_component: start,
        num_components: n,
        output_buffer: buffer,
        dst_offset: dst,
        stream,
    };
    let shader = |stage, output: Vec<StreamOutput>| ShaderState {
        stage,
        code: ShaderCode::SpirV {
            words: Arc::from(vec![0x0723_0203u32]),
            entry_point: "main".into(),
        },
        stream_output: StreamOutputInfo {
            stride: [8, 4, 0, 0],
            output,
        },
    };
    // Capture lists.
    let vs = |o| shader(ShaderStage::Vertex, vec![o]);
    f.rejects("buffer 4", |c, _| {
        c.create_vs_state(&vs(out(0, 0, 4, 4, 0, 0)))
    });
    // Past component 3 only an array output has components (the driver
    // checks the shader's); past 128 none does.
    f.rejects("components 126..130", |c, _| {
        c.create_vs_state(&vs(out(0, 126, 4, 0, 0, 0)))
    });
    f.rejects("components 0..0", |c, _| {
        c.create_vs_state(&vs(out(0, 0, 0, 0, 0, 0)))
    });
    f.rejects("stride 8", |c, _| {
        c.create_vs_state(&vs(out(0, 0, 4, 0, 5, 0)))
    });
    f.rejects("stride 0", |c, _| {
        c.create_vs_state(&vs(out(0, 0, 1, 2, 0, 0)))
    });
    f.rejects("outside a geometry", |c, _| {
        c.create_vs_state(&vs(out(0, 0, 4, 0, 0, 1)))
    });
    f.rejects("last stream", |c, _| {
        c.create_gs_state(&shader(ShaderStage::Geometry, vec![out(0, 0, 4, 0, 0, 4)]))
    });
    f.rejects("fs shader", |c, _| {
        c.create_fs_state(&shader(ShaderStage::Fragment, vec![out(0, 0, 4, 0, 0, 0)]))
    });
    f.accepts(|c, _| c.create_vs_state(&vs(out(0, 0, 4, 0, 4, 0))));
    f.accepts(|c, _| {
        c.create_gs_state(&shader(ShaderStage::Geometry, vec![out(0, 0, 4, 1, 0, 3)]))
    });
    // Targets.
    let tex = f.tex2d(4, 4, 1);
    f.rejects("not a buffer", |c, _| {
        c.create_stream_output_target(&tex, 0, 16)
    });
    f.rejects("exceeds buffer", |c, _| {
        c.create_stream_output_target(&b, 200, 64)
    });
    f.rejects("multiples of 4", |c, _| {
        c.create_stream_output_target(&b, 2, 16)
    });
    f.rejects("empty target", |c, _| {
        c.create_stream_output_target(&b, 256, 0)
    });
    let t0 = f.accepts(|c, _| c.create_stream_output_target(&b, 0, 64));
    let t1 = f.accepts(|c, _| c.create_stream_output_target(&b, 32, 64));
    let t2 = f.accepts(|c, _| c.create_stream_output_target(&b, 64, 64));
    f.rejects("bound twice", |c, _| {
        c.set_stream_output_targets(&[Some(t0.clone()), Some(t0.clone())], &[None, None])
    });
    f.rejects("overlap", |c, _| {
        c.set_stream_output_targets(&[Some(t0.clone()), Some(t1.clone())], &[None, None])
    });
    f.rejects("past the 64-byte target", |c, _| {
        c.set_stream_output_targets(&[Some(t0.clone())], &[Some(68)])
    });
    f.rejects("2 offsets for 1 targets", |c, _| {
        c.set_stream_output_targets(&[Some(t0.clone())], &[None, None])
    });
    f.rejects("exceed the limit", |c, _| {
        c.set_stream_output_targets(&[None, None, None, None, None], &[None; 5])
    });
    f.accepts(|c, _| {
        c.set_stream_output_targets(
            &[Some(t0.clone()), None, Some(t2.clone())],
            &[Some(0), None, Some(64)],
        )
    });
    // Draw-auto.
    let auto = DrawIndirectInfo {
        count_from_stream_output: Some(t2.clone()),
        ..Default::default()
    };
    f.rejects("not indexed", |c, _| {
        c.draw_vbo(
            &DrawInfo {
                index_size: 2,
                index: IndexSource::Resource(b.clone()),
                ..DrawInfo::default()
            },
            0,
            Some(&auto),
            &[],
        )
    });
    let with_buffer = DrawIndirectInfo {
        buffer: Some(b.clone()),
        ..auto.clone()
    };
    f.rejects("with an indirect buffer", |c, _| {
        c.draw_vbo(&DrawInfo::default(), 0, Some(&with_buffer), &[])
    });
    f.accepts(|c, _| c.draw_vbo(&DrawInfo::default(), 0, Some(&auto), &[]));
}

/// Depth bounds with the test on: reversed ordered bounds are refused;
/// NaN on either side (undefined in GL: the driver bounds nothing there)
/// and equal bounds are accepted, as is anything with the test off.
#[test]
fn depth_bounds() {
    use pipe_core::state::DepthStencilAlphaState;
    let mut f = fixture();
    let dsa = |min: f64, max: f64, test: bool| DepthStencilAlphaState {
        depth_bounds_test: test,
        depth_bounds_min: min,
        depth_bounds_max: max,
        ..Default::default()
    };
    f.rejects("depth bounds min > max", |c, _| {
        c.create_depth_stencil_alpha_state(&dsa(0.75, 0.25, true))
    });
    for (min, max) in [
        (f64::NAN, f64::NAN),
        (f64::NAN, 0.5),
        (0.5, f64::NAN),
        (0.5, 0.5),
        (f64::NEG_INFINITY, f64::INFINITY),
    ] {
        f.accepts(|c, _| c.create_depth_stencil_alpha_state(&dsa(min, max, true)));
    }
    f.accepts(|c, _| c.create_depth_stencil_alpha_state(&dsa(0.75, 0.25, false)));
}
