//! The screen's `VkPipelineCache`, persisted in the user's cache directory.
//!
//! One `VkPipelineCache` per screen, shared by its contexts (pipeline
//! creation with a cache is internally synchronized). It is loaded at
//! screen creation from `$PIPE_VK_CACHE_DIR`, else
//! `$XDG_CACHE_HOME/pipe-vk`, else `~/.cache/pipe-vk`, from a file named
//! after the device's `pipelineCacheUUID`, vendor and device ids (the
//! driver validates the header and ignores a stale or foreign blob). It is
//! written back when the screen goes away, through a temporary file and a
//! rename so that concurrent processes never see a torn file.
//! `PIPE_VK_CACHE=0` disables loading and saving.
//!
//! The hit-rate counters (key lookups vs pipelines created, across all
//! contexts) live here too; `pipe-info` reports them.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use ash::vk;

/// The screen's pipeline cache and its statistics.
pub struct DiskCache {
    pub cache: vk::PipelineCache,
    path: Option<PathBuf>,
    /// Bytes loaded from disk at creation.
    pub loaded_bytes: usize,
    pub lookups: AtomicU64,
    pub created: AtomicU64,
}

fn cache_dir() -> Option<PathBuf> {
    if std::env::var("PIPE_VK_CACHE").is_ok_and(|v| v == "0") {
        return None;
    }
    if let Some(d) = std::env::var_os("PIPE_VK_CACHE_DIR") {
        return Some(PathBuf::from(d));
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d).join("pipe-vk"));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache").join("pipe-vk"))
}

impl DiskCache {
    /// Creates the cache, seeded from disk when a file exists.
    pub fn new(device: &ash::Device, props: &vk::PhysicalDeviceProperties) -> Self {
        let uuid: String = props
            .pipeline_cache_uuid
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let path = cache_dir().map(|d| {
            d.join(format!(
                "{:04x}-{:04x}-{uuid}.bin",
                props.vendor_id, props.device_id
            ))
        });
        let data = path
            .as_ref()
            .and_then(|p| std::fs::read(p).ok())
            .unwrap_or_default();
        let create = |data: &[u8]| {
            let info = vk::PipelineCacheCreateInfo::default().initial_data(data);
            // SAFETY: the driver validates the blob's header and ignores
            // data that does not match this device (Vulkan spec,
            // "Pipeline Cache").
            unsafe { device.create_pipeline_cache(&info, None) }
        };
        let (cache, loaded_bytes) = match create(&data) {
            Ok(c) => (c, data.len()),
            // A corrupt file: start empty.
            Err(_) => (create(&[]).unwrap_or(vk::PipelineCache::null()), 0),
        };
        DiskCache {
            cache,
            path,
            loaded_bytes,
            lookups: AtomicU64::new(0),
            created: AtomicU64::new(0),
        }
    }

    /// Where the cache is stored, if anywhere.
    pub fn path(&self) -> Option<&std::path::Path> {
        self.path.as_deref()
    }

    /// Counts a key lookup and whether it missed.
    pub fn count(&self, created: bool) {
        self.lookups.fetch_add(1, Ordering::Relaxed);
        if created {
            self.created.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Writes the cache to disk and destroys it.
    pub fn save_and_destroy(&mut self, device: &ash::Device) {
        if self.cache == vk::PipelineCache::null() {
            return;
        }
        if let Some(path) = &self.path {
            // SAFETY: the cache is live; no pipeline creation runs now (the
            // screen is being destroyed).
            if let Ok(data) = unsafe { device.get_pipeline_cache_data(self.cache) } {
                if !data.is_empty() {
                    if let Some(dir) = path.parent() {
                        let _ = std::fs::create_dir_all(dir);
                    }
                    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
                    if std::fs::write(&tmp, &data).is_ok() && std::fs::rename(&tmp, path).is_err() {
                        let _ = std::fs::remove_file(&tmp);
                    }
                }
            }
        }
        // SAFETY: as above; contexts (and their pipelines) are gone.
        unsafe { device.destroy_pipeline_cache(self.cache, None) };
        self.cache = vk::PipelineCache::null();
    }
}
