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
