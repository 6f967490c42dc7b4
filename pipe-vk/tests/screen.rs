//! Screen creation on the real default device (lavapipe in CI), under the
//! Khronos validation layer with synchronization validation. The layer's
//! messages are the oracle: a clean run reports none. One test also makes
//! the layer report on purpose, to prove the oracle can fail.
//!
//! The messages are process-wide, so the tests that read them serialize
//! on a lock.

use std::sync::Mutex;

use ash::vk;
use pipe_core::PipeError;
use pipe_vk::{debug, ScreenOptions, VkScreen};

static SERIAL: Mutex<()> = Mutex::new(());

fn validated() -> ScreenOptions {
    ScreenOptions {
        device: None,
        validation: Some(true),
        ..Default::default()
    }
}

#[test]
fn screen_and_context_are_validation_clean() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    debug::take_messages();
    {
        let screen = pipe_vk::create_screen(&validated()).expect("screen");
        let ctx = screen.clone().context_create().expect("context");
        drop(ctx);
        assert!(!screen.name().is_empty());
    }
    let msgs = debug::take_messages();
    assert!(msgs.is_empty(), "validation messages: {msgs:#?}");
}

#[test]
fn validation_messages_are_caught() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    debug::take_messages();
    {
        let screen = VkScreen::new(&validated()).expect("screen");
        assert!(screen.validation_enabled());
        let dev = screen.vk_device();
        // VUID-VkSamplerCreateInfo-anisotropyEnable-01071: maxAnisotropy
        // must lie in [1, maxSamplerAnisotropy]. Lavapipe clamps, so the
        // call is harmless; only the layer objects.
        let info = vk::SamplerCreateInfo::default()
            .anisotropy_enable(true)
            .max_anisotropy(0.25);
        // SAFETY: a deliberately invalid but harmless create info (see above);
        // the sampler is destroyed right away.
        unsafe {
            if let Ok(s) = dev.create_sampler(&info, None) {
                dev.destroy_sampler(s, None);
            }
        }
    }
    let msgs = debug::take_messages();
    assert!(
        msgs.iter()
            .any(|m| m.contains("01071") || m.contains("anisotropy")),
        "the layer did not report the invalid sampler: {msgs:#?}"
    );
}

#[test]
fn bad_device_selector_is_an_error() {
    let opts = ScreenOptions {
        device: Some("no-such-device-xyzzy".into()),
        validation: Some(false),
        ..Default::default()
    };
    match pipe_vk::create_screen(&opts) {
        Err(PipeError::InvalidArgument(m)) => assert!(m.contains("xyzzy"), "{m}"),
        Err(e) => panic!("expected InvalidArgument, got {e}"),
        Ok(_) => panic!("a nonsense selector matched a device"),
    }
}

fn screen_v() -> std::sync::Arc<VkScreen> {
    VkScreen::new(&validated()).expect("screen")
}

/// A known sequence and the `vkCmdPipelineBarrier2` calls it needs:
/// fill A (none: first use); copy A->B (1: A read-after-write); copy A->C
/// (none: A is already visible to the copy stage); fill A (2: A
/// write-after-read); copy B->C (3: B read-after-write and C
/// write-after-write, batched into one call).
#[test]
fn barrier_count_for_a_known_sequence() {
    use pipe_core::resource::{BindFlags, PipeBox};
    use pipe_core::{Context, ResourceTemplate, Screen};
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    debug::take_messages();
    {
        let screen = screen_v();
        let mut ctx = screen.create_vk_context().expect("context");
        let t = ResourceTemplate::buffer(256, BindFlags::VERTEX_BUFFER);
        let [a, b, c] = [0, 1, 2].map(|_| screen.resource_create(&t).expect("buffer"));
        let whole = PipeBox::range(0, 256);
        ctx.clear_buffer(&a, 0, 256, &[1, 2, 3, 4]).unwrap();
        assert_eq!(ctx.barrier_count(), 0, "first write needs no barrier");
        ctx.resource_copy_region(&b, 0, 0, 0, 0, &a, 0, &whole)
            .unwrap();
        assert_eq!(ctx.barrier_count(), 1, "read after write");
        ctx.resource_copy_region(&c, 0, 0, 0, 0, &a, 0, &whole)
            .unwrap();
        assert_eq!(
            ctx.barrier_count(),
            1,
            "a second read of visible data needs none"
        );
        ctx.clear_buffer(&a, 0, 256, &[0; 4]).unwrap();
        assert_eq!(ctx.barrier_count(), 2, "write after read");
        ctx.resource_copy_region(&c, 0, 0, 0, 0, &b, 0, &whole)
            .unwrap();
        assert_eq!(ctx.barrier_count(), 3, "RAW on b and WAW on c: one call");
        ctx.flush(pipe_core::flags::FlushFlags::empty(), false)
            .unwrap();
    }
    let msgs = debug::take_messages();
    assert!(msgs.is_empty(), "validation messages: {msgs:#?}");
}

/// The leak oracle: the layer reports objects alive at vkDestroyDevice, so
/// a clean run proves pipe-vk freed everything. Leak one on purpose to
/// show the report appears.
#[test]
fn leaked_objects_are_reported_at_device_destroy() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    debug::take_messages();
    {
        let screen = screen_v();
        let info = vk::SamplerCreateInfo::default();
        // SAFETY: a valid sampler, deliberately never destroyed.
        let _leak = unsafe { screen.vk_device().create_sampler(&info, None) }.expect("sampler");
    }
    let msgs = debug::take_messages();
    assert!(
        msgs.iter()
            .any(|m| m.contains("VkSampler") || m.contains("SAMPLER")),
        "the layer did not report the leaked sampler: {msgs:#?}"
    );
}

/// Resources, views, surfaces, fences and contexts are all freed: a full
/// workload leaves zero validation messages, leak reports included.
#[test]
fn no_leaks_after_a_workload() {
    use pipe_core::flags::{FlushFlags, MapFlags};
    use pipe_core::resource::{BindFlags, PipeBox};
    use pipe_core::view::{SamplerViewTemplate, SurfaceTemplate};
    use pipe_core::{Format, ResourceTemplate};
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    debug::take_messages();
    {
        let screen = pipe_vk::create_screen(&validated()).expect("screen");
        let mut ctx = screen.clone().context_create().expect("context");
        let t = ResourceTemplate::texture_2d(
            Format::R8G8B8A8Unorm,
            8,
            8,
            BindFlags::RENDER_TARGET | BindFlags::SAMPLER_VIEW,
        );
        let tex = screen.resource_create(&t).unwrap();
        let view = ctx
            .create_sampler_view(&tex, &SamplerViewTemplate::whole(&t))
            .unwrap();
        let st = SurfaceTemplate {
            format: t.format,
            level: 0,
            first_layer: 0,
            last_layer: 0,
        };
        let surf = ctx.create_surface(&tex, &st).unwrap();
        ctx.clear_render_target(&surf, &Default::default(), 0, 0, 4, 4, false)
            .unwrap();
        let buf = screen
            .resource_create(&ResourceTemplate::buffer(64, BindFlags::VERTEX_BUFFER))
            .unwrap();
        ctx.buffer_subdata(&buf, MapFlags::empty(), 0, &[7; 64])
            .unwrap();
        let fence = ctx.flush(FlushFlags::empty(), true).unwrap().unwrap();
        assert!(screen.fence_finish(None, &fence, u64::MAX).unwrap());
        let tr = ctx
            .transfer_map(&tex, 0, MapFlags::READ, &PipeBox::rect(0, 0, 8, 8))
            .unwrap();
        ctx.transfer_unmap(tr).unwrap();
        drop((view, surf, fence));
    }
    let msgs = debug::take_messages();
    assert!(
        msgs.is_empty(),
        "validation messages (leaks included): {msgs:#?}"
    );
}

/// Views are cached per image: equal templates share one VkImageView, a
/// different format, swizzle or range makes another.
#[test]
fn image_views_are_cached() {
    use pipe_core::resource::BindFlags;
    use pipe_core::view::{SamplerViewTemplate, SurfaceTemplate, Swizzle};
    use pipe_core::{Context, Format, ResourceTemplate, Screen};
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    debug::take_messages();
    {
        let screen = screen_v();
        let mut ctx = screen.create_vk_context().expect("context");
        let mut t = ResourceTemplate::texture_2d(
            Format::R8G8B8A8Unorm,
            8,
            8,
            BindFlags::SAMPLER_VIEW | BindFlags::RENDER_TARGET,
        );
        t.last_level = 2;
        let tex = screen.resource_create(&t).unwrap();
        let whole = SamplerViewTemplate::whole(&t);
        let v1 = ctx.create_sampler_view(&tex, &whole).unwrap();
        let v2 = ctx.create_sampler_view(&tex, &whole).unwrap();
        assert_eq!(
            ctx.cached_view_count(&tex).unwrap(),
            1,
            "equal views share one VkImageView"
        );
        let mut swz = whole;
        swz.swizzle = [Swizzle::W, Swizzle::Z, Swizzle::Y, Swizzle::X];
        let v3 = ctx.create_sampler_view(&tex, &swz).unwrap();
        let mut srgb = whole;
        srgb.format = Format::R8G8B8A8Srgb;
        let v4 = ctx.create_sampler_view(&tex, &srgb).unwrap();
        assert_eq!(ctx.cached_view_count(&tex).unwrap(), 3);
        let st = SurfaceTemplate {
            format: t.format,
            level: 1,
            first_layer: 0,
            last_layer: 0,
        };
        let s1 = ctx.create_surface(&tex, &st).unwrap();
        let s2 = ctx.create_surface(&tex, &st).unwrap();
        assert_eq!(ctx.cached_view_count(&tex).unwrap(), 4);
        drop((v1, v2, v3, v4, s1, s2));
    }
    let msgs = debug::take_messages();
    assert!(msgs.is_empty(), "validation messages: {msgs:#?}");
}
