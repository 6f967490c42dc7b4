//! The pipeline cache is saved to and loaded from the cache directory.
//! (Its own test binary: it sets `PIPE_VK_CACHE_DIR` for the process.)

use std::sync::Arc;

use pipe_core::draw::{DrawInfo, DrawStartCountBias};
use pipe_core::resource::BindFlags;
use pipe_core::shader::{ShaderCode, ShaderState, StreamOutputInfo};
use pipe_core::state::{
    FramebufferState, ShaderStage, VertexBuffer, VertexBufferSource, VertexElement,
};
use pipe_core::view::SurfaceTemplate;
use pipe_core::{Context, Format, ResourceTemplate, Screen};
use pipe_vk::{debug, ScreenOptions, VkScreen};

const VS: &str = "shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
fn main {
  %0 : f32x4 = load @pos
  store @gl_pos, %0
}
";

const FS: &str = "shader fragment
out @frag : f32x4 location=0
fn main {
  %0 : f32x4 = const 1.0, 0.0, 0.0, 1.0
  store @frag, %0
}
";

fn draw_once(screen: &Arc<VkScreen>) {
    let mut c = screen.create_vk_context().expect("context");
    let t = ResourceTemplate::texture_2d(Format::R8G8B8A8Unorm, 8, 8, BindFlags::RENDER_TARGET);
    let tex = screen.resource_create(&t).unwrap();
    let s = c
        .create_surface(
            &tex,
            &SurfaceTemplate {
                format: t.format,
                level: 0,
                first_layer: 0,
                last_layer: 0,
            },
        )
        .unwrap();
    c.set_framebuffer_state(&FramebufferState {
        width: 8,
        height: 8,
        layers: 1,
        samples: 1,
        cbufs: vec![Some(s)],
        zsbuf: None,
        resolve: None,
    })
    .unwrap();
    let shader = |stage, src| ShaderState {
        stage,
        code: ShaderCode::Ir(Arc::new(spirv_gen::text::parse(src).unwrap())),
        stream_output: StreamOutputInfo::default(),
    };
    let v = c.create_vs_state(&shader(ShaderStage::Vertex, VS)).unwrap();
    let f = c
        .create_fs_state(&shader(ShaderStage::Fragment, FS))
        .unwrap();
    c.bind_vs_state(Some(v)).unwrap();
    c.bind_fs_state(Some(f)).unwrap();
    let ve = c
        .create_vertex_elements_state(&[VertexElement {
            src_offset: 0,
            src_stride: 16,
            vertex_buffer_index: 0,
            dual_slot: false,
            src_format: Format::R32G32B32A32Float,
            instance_divisor: 0,
        }])
        .unwrap();
    c.bind_vertex_elements_state(Some(ve)).unwrap();
    c.set_vertex_buffers(&[VertexBuffer {
        buffer: Some(VertexBufferSource::User(Arc::from(vec![0u8; 48]))),
        buffer_offset: 0,
    }])
    .unwrap();
    c.draw_vbo(
        &DrawInfo::default(),
        0,
        None,
        &[DrawStartCountBias {
            start: 0,
            count: 3,
            index_bias: 0,
        }],
    )
    .unwrap();
}

#[test]
fn pipeline_cache_round_trips_through_the_cache_dir() {
    let dir = std::env::temp_dir().join(format!("pipe-vk-cache-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // SAFETY-free in edition 2021; this binary has a single test, so no
    // other thread reads the environment concurrently.
    std::env::set_var("PIPE_VK_CACHE_DIR", &dir);
    std::env::remove_var("PIPE_VK_CACHE");
    let opts = ScreenOptions {
        validation: Some(true),
        ..Default::default()
    };
    debug::take_messages();
    {
        let screen = VkScreen::new(&opts).expect("screen");
        let (path, loaded, _, _) = screen.pipeline_cache_info();
        assert!(
            path.as_ref().is_some_and(|p| p.starts_with(&dir)),
            "{path:?}"
        );
        assert_eq!(loaded, 0, "a fresh directory has no cache");
        draw_once(&screen);
        let (_, _, lookups, created) = screen.pipeline_cache_info();
        assert_eq!((lookups, created), (1, 1));
    }
    let files: Vec<_> = std::fs::read_dir(&dir)
        .expect("cache dir written")
        .collect();
    assert_eq!(
        files.len(),
        1,
        "one cache file, no temporary left: {files:?}"
    );
    {
        let screen = VkScreen::new(&opts).expect("screen");
        let (_, loaded, _, _) = screen.pipeline_cache_info();
        assert!(loaded > 0, "the second screen loads the saved cache");
        draw_once(&screen);
    }
    let msgs = debug::take_messages();
    assert!(msgs.is_empty(), "validation messages: {msgs:#?}");
    let _ = std::fs::remove_dir_all(&dir);
}
