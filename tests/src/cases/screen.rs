//! `pipe.screen.*`: device selection, caps, format support.

use pipe_core::caps::DeviceType;
use pipe_core::resource::{BindFlags, Target};
use pipe_core::{Format, PipeError};
use pipe_vk::ScreenOptions;

use crate::harness;
use crate::{check, or_return, test_case, Outcome, TestContext};

fn screen_create(ctx: &mut TestContext) -> Outcome {
    let (screen, ctx2) = or_return!(harness::screen_and_context(ctx));
    let caps = screen.caps();
    check!(!screen.name().is_empty(), "empty device name");
    check!(
        screen.name() == caps.device_name,
        "name() and caps disagree"
    );
    check!(
        caps.api_version >= (1, 2, 0),
        "API {:?} below 1.2",
        caps.api_version
    );
    drop(ctx2);
    Outcome::Pass
}
test_case!(name = "pipe.screen.create.default", screen_create);

fn caps_sane(ctx: &mut TestContext) -> Outcome {
    let screen = or_return!(harness::screen(ctx));
    let c = screen.caps();
    check!(
        c.max_texture_2d_size >= 4096,
        "max 2D size {}",
        c.max_texture_2d_size
    );
    check!(
        c.max_render_targets >= 4,
        "{} render targets",
        c.max_render_targets
    );
    check!(
        c.max_vertex_attribs >= 16,
        "{} vertex attribs",
        c.max_vertex_attribs
    );
    check!(c.max_viewports >= 1, "no viewports");
    check!(
        c.constant_buffer_offset_alignment.is_power_of_two(),
        "UBO alignment {}",
        c.constant_buffer_offset_alignment
    );
    check!(
        c.timeline_semaphore,
        "timeline semaphores are required by pipe-vk"
    );
    check!(
        c.max_threads_per_block >= 128,
        "{} threads per block",
        c.max_threads_per_block
    );
    check!(
        c.shader[0].supported && c.shader[4].supported && c.shader[5].supported,
        "vs/fs/cs missing"
    );
    if c.device_type == DeviceType::Cpu {
        // lavapipe facts from shared/DESIGN.md: sparse binding and 64
        // timestamp bits on its single queue.
        check!(c.sparse_buffer, "lavapipe should report sparse buffers");
        check!(
            c.timestamp_bits == 64,
            "lavapipe timestamp bits {}",
            c.timestamp_bits
        );
    }
    Outcome::Pass
}
test_case!(name = "pipe.screen.caps.sane", caps_sane);

fn select_by_index(ctx: &mut TestContext) -> Outcome {
    let default = or_return!(harness::screen(ctx)).name().to_owned();
    let list = match pipe_vk::VkScreen::list_devices(false) {
        Ok(l) => l,
        Err(e) => return Outcome::fail(format!("list_devices: {e}")),
    };
    let Some((index, name, _)) = list.iter().find(|(_, n, _)| *n == default) else {
        return Outcome::fail(format!("default device {default:?} not in {list:?}"));
    };
    let opts = ScreenOptions {
        device: Some(index.to_string()),
        ..harness::options(ctx)
    };
    match pipe_vk::create_screen(&opts) {
        Ok(s) => {
            check!(
                s.name() == name,
                "index {index} gave {:?}, expected {name:?}",
                s.name()
            );
            Outcome::Pass
        }
        Err(e) => Outcome::fail(format!("select by index {index}: {e}")),
    }
}
test_case!(name = "pipe.screen.device_select.by_index", select_by_index);

fn select_by_name(ctx: &mut TestContext) -> Outcome {
    let default = or_return!(harness::screen(ctx)).name().to_owned();
    // A lower-case substring of the name must select the same device.
    let needle: String = default.to_lowercase().chars().take(6).collect();
    let opts = ScreenOptions {
        device: Some(needle.clone()),
        ..harness::options(ctx)
    };
    match pipe_vk::create_screen(&opts) {
        Ok(s) => {
            check!(
                s.name().to_lowercase().contains(&needle),
                "{needle:?} selected {:?}",
                s.name()
            );
            Outcome::Pass
        }
        Err(e) => Outcome::fail(format!("select by name {needle:?}: {e}")),
    }
}
test_case!(name = "pipe.screen.device_select.by_name", select_by_name);

fn select_missing(ctx: &mut TestContext) -> Outcome {
    let opts = ScreenOptions {
        device: Some("no-such-device-xyzzy".into()),
        ..harness::options(ctx)
    };
    match pipe_vk::create_screen(&opts) {
        Err(PipeError::InvalidArgument(m)) => {
            check!(
                m.contains("xyzzy"),
                "message does not name the selector: {m}"
            );
            Outcome::Pass
        }
        Err(e) => Outcome::fail(format!("expected InvalidArgument, got {e}")),
        Ok(s) => Outcome::fail(format!("selector matched {:?}", s.name())),
    }
}
test_case!(name = "pipe.screen.device_select.no_match", select_missing);

fn format_support(ctx: &mut TestContext) -> Outcome {
    let s = or_return!(harness::screen(ctx));
    let sup = |f, t, n, b| s.is_format_supported(f, t, n, n, b);
    let rt = BindFlags::RENDER_TARGET | BindFlags::SAMPLER_VIEW;
    // Vulkan's mandatory format support (spec, "Required Format Support").
    check!(
        sup(
            Format::R8G8B8A8Unorm,
            Target::Texture2D,
            1,
            rt | BindFlags::BLENDABLE
        ),
        "RGBA8 render target"
    );
    check!(
        sup(Format::R8G8B8A8Unorm, Target::Texture2D, 4, rt),
        "RGBA8 4x MSAA"
    );
    check!(
        sup(
            Format::R32G32B32A32Float,
            Target::Buffer,
            1,
            BindFlags::VERTEX_BUFFER
        ),
        "RGBA32F vertex buffer"
    );
    check!(
        sup(
            Format::R32G32B32Float,
            Target::Buffer,
            1,
            BindFlags::VERTEX_BUFFER
        ),
        "RGB32F vertex buffer"
    );
    check!(
        sup(
            Format::Z16Unorm,
            Target::Texture2D,
            1,
            BindFlags::DEPTH_STENCIL
        ),
        "Z16 depth"
    );
    check!(
        sup(
            Format::R32Uint,
            Target::Texture2D,
            1,
            BindFlags::SHADER_IMAGE
        ),
        "R32UI storage image"
    );
    check!(
        sup(
            Format::R8G8B8A8Unorm,
            Target::TextureCube,
            1,
            BindFlags::SAMPLER_VIEW
        ),
        "RGBA8 cube"
    );
    // Things no device does.
    check!(
        !sup(
            Format::Z16Unorm,
            Target::Buffer,
            1,
            BindFlags::VERTEX_BUFFER | BindFlags::DEPTH_STENCIL
        ),
        "depth on a buffer"
    );
    check!(
        !sup(
            Format::R8G8B8A8Unorm,
            Target::Texture3D,
            4,
            BindFlags::SAMPLER_VIEW
        ),
        "MSAA 3D"
    );
    check!(
        !sup(Format::R8G8B8A8Unorm, Target::Texture2D, 3, rt),
        "3 samples"
    );
    check!(
        !sup(
            Format::R8G8B8A8Unorm,
            Target::Texture2D,
            1,
            BindFlags::VERTEX_BUFFER
        ),
        "vertex bind on a texture"
    );
    if s.caps().device_type == DeviceType::Cpu {
        // lavapipe: BC formats sample but never render.
        check!(
            !sup(
                Format::Bc1RgbaUnorm,
                Target::Texture2D,
                1,
                BindFlags::RENDER_TARGET
            ),
            "BC1 render target"
        );
    }
    Outcome::Pass
}
test_case!(name = "pipe.screen.format.support", format_support);

fn sample_positions(ctx: &mut TestContext) -> Outcome {
    let s = or_return!(harness::screen(ctx));
    check!(
        s.get_sample_position(1, 0) == Some([0.5, 0.5]),
        "1x position"
    );
    check!(
        s.get_sample_position(4, 0) == Some([0.375, 0.125]),
        "4x position 0"
    );
    check!(
        s.get_sample_position(4, 4).is_none(),
        "4x position 4 must not exist"
    );
    check!(
        s.get_sample_position(3, 0).is_none(),
        "3x has no standard pattern"
    );
    Outcome::Pass
}
test_case!(
    name = "pipe.screen.sample_position.standard",
    sample_positions
);

fn timestamp(ctx: &mut TestContext) -> Outcome {
    let s = or_return!(harness::screen(ctx));
    if !s.caps().calibrated_timestamps {
        return Outcome::skip("no calibrated timestamps");
    }
    let a = match s.get_timestamp() {
        Ok(t) => t,
        Err(e) => return Outcome::fail(format!("get_timestamp: {e}")),
    };
    std::thread::sleep(std::time::Duration::from_millis(20));
    let b = match s.get_timestamp() {
        Ok(t) => t,
        Err(e) => return Outcome::fail(format!("get_timestamp: {e}")),
    };
    // Nanoseconds: 20 ms of sleep is at least 20e6 and, allowing a loaded
    // machine, under 10 s.
    let d = b.saturating_sub(a);
    check!(
        (20_000_000..10_000_000_000).contains(&d),
        "timestamps {a} -> {b} differ by {d} ns"
    );
    Outcome::Pass
}
test_case!(name = "pipe.screen.timestamp.calibrated", timestamp);

/// `is_format_supported(.., Buffer, .., VERTEX_BUFFER)` says yes exactly
/// for the formats a vertex-elements CSO can be created with: those the
/// device fetches and those pipe-vk fetches through its shader fix-ups
/// (32-bit normalized and GL_FIXED formats, which Vulkan lacks, and
/// GL_DOUBLE as 32-bit pairs), so that a frontend converts only what
/// pipe-vk cannot fetch. Checked over every format, and for some by
/// name.
fn vertex_buffer_formats(ctx: &mut TestContext) -> Outcome {
    use pipe_core::state::VertexElement;
    let (screen, mut c) = or_return!(harness::screen_and_context(ctx));
    let supported =
        |f: Format| screen.is_format_supported(f, Target::Buffer, 1, 1, BindFlags::VERTEX_BUFFER);
    for f in [
        Format::R32G32B32A32Float,
        Format::R32Unorm,
        Format::R32G32Fixed,
        Format::R64G64B64A64Float,
        Format::B8G8R8A8Unorm,
    ] {
        check!(supported(f), "{f} is fetched but reported unsupported");
    }
    check!(
        !supported(Format::Bc1RgbaUnorm),
        "a compressed format reported as a vertex format"
    );
    for f in Format::all() {
        let el = VertexElement {
            src_offset: 0,
            src_stride: 32,
            vertex_buffer_index: 0,
            dual_slot: false,
            src_format: f,
            instance_divisor: 0,
        };
        let created = match c.create_vertex_elements_state(&[el]) {
            Ok(h) => {
                or_return!(c
                    .delete_vertex_elements_state(h)
                    .map_err(harness::fail("delete_vertex_elements_state")));
                true
            }
            Err(_) => false,
        };
        check!(
            created == supported(f),
            "{f}: vertex elements {} but is_format_supported says {}",
            if created { "created" } else { "refused" },
            supported(f)
        );
    }
    Outcome::Pass
}
test_case!(
    name = "pipe.screen.format.vertex_buffer",
    vertex_buffer_formats
);
