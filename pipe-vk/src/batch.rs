//! Batches: command buffers, submission, the timeline, and retirement.
//!
//! Each context owns a ring of [`Batch`]es. The current batch records; on
//! flush it is submitted with a signal of the screen's timeline semaphore at
//! the next value (values are taken under the queue lock, so they rise in
//! submission order across contexts). A fence is that (semaphore, value)
//! pair. Submitted batches wait in `in_flight` until the timeline passes
//! their value, then are reset and reused; dropping their references then
//! frees resource objects destroyed meanwhile (deferred destruction).
//!
//! Objects a batch uses are recorded once per batch (`track`), which marks
//! them unflushed-used by this context for busy checks.

use std::collections::VecDeque;

use hashbrown::HashSet;
use std::sync::{Arc, Mutex};

use ash::vk;
use pipe_core::{PipeError, PipeResult};

use crate::instance::vk_err;
use crate::memory::DeviceShared;
use crate::resource::ResourceObject;

/// Descriptor sets per pool.
const POOL_SETS: u32 = 64;

/// A fence's value cell: `None` until the batch it belongs to is submitted.
pub type FenceCell = Arc<Mutex<Option<u64>>>;

/// One command buffer and what it keeps alive.
pub struct Batch {
    pool: vk::CommandPool,
    pub cmd: vk::CommandBuffer,
    /// Timeline value signalled by this batch once submitted.
    pub value: u64,
    refs: Vec<Arc<ResourceObject>>,
    ref_set: HashSet<usize>,
    /// Deferred fences to fill with `value` at submission.
    fences: Vec<FenceCell>,
    /// One of `fences`, shared by everything that only asks which batch
    /// it was recorded in (`Batches::batch_fence`).
    shared_fence: Option<FenceCell>,
    /// Timeline values to wait for before this batch runs.
    waits: Vec<u64>,
    /// Whether any command was recorded.
    pub has_work: bool,
    /// Pipelines to destroy when the batch retires (their CSOs died while
    /// the batch might still use them).
    pipelines: Vec<vk::Pipeline>,
    /// Samplers to destroy when the batch retires.
    samplers: Vec<vk::Sampler>,
    /// Descriptor pools the batch's sets came from (reset at retirement).
    pools: Vec<vk::DescriptorPool>,
    /// Other objects the batch's commands use (query pools), released at
    /// retirement.
    keep: Vec<Arc<dyn std::any::Any + Send + Sync>>,
}

/// The batches of one context.
pub struct Batches {
    dev: Arc<DeviceShared>,
    ctx: u64,
    current: Batch,
    in_flight: VecDeque<Batch>,
    free: Vec<Batch>,
    /// Number of batches submitted (for tests and stats).
    pub submitted: u64,
    /// Reset descriptor pools ready for reuse.
    free_pools: Vec<vk::DescriptorPool>,
}

fn new_batch(dev: &DeviceShared) -> PipeResult<Batch> {
    let raw = dev.raw();
    let info = vk::CommandPoolCreateInfo::default()
        .flags(vk::CommandPoolCreateFlags::TRANSIENT)
        .queue_family_index(dev.physical.queue_family);
    // SAFETY: valid create info for this device's queue family.
    let pool = unsafe { raw.create_command_pool(&info, None) }
        .map_err(|e| vk_err("vkCreateCommandPool", e))?;
    let alloc = vk::CommandBufferAllocateInfo::default()
        .command_pool(pool)
        .level(vk::CommandBufferLevel::PRIMARY)
        .command_buffer_count(1);
    // SAFETY: the pool was just created.
    let cmd = match unsafe { raw.allocate_command_buffers(&alloc) } {
        Ok(v) => v[0],
        Err(e) => {
            // SAFETY: unused pool.
            unsafe { raw.destroy_command_pool(pool, None) };
            return Err(vk_err("vkAllocateCommandBuffers", e));
        }
    };
    Ok(Batch {
        pool,
        cmd,
        value: 0,
        refs: Vec::new(),
        ref_set: HashSet::new(),
        fences: Vec::new(),
        shared_fence: None,
        waits: Vec::new(),
        has_work: false,
        pipelines: Vec::new(),
        samplers: Vec::new(),
        pools: Vec::new(),
        keep: Vec::new(),
    })
}

fn begin(dev: &DeviceShared, b: &Batch) -> PipeResult<()> {
    let info =
        vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
    // SAFETY: the buffer is in the initial state (new or its pool was reset).
    unsafe { dev.raw().begin_command_buffer(b.cmd, &info) }
        .map_err(|e| vk_err("vkBeginCommandBuffer", e))
}

impl Batches {
    /// Creates the ring with a recording batch.
    pub fn new(dev: Arc<DeviceShared>, ctx: u64) -> PipeResult<Self> {
        let current = new_batch(&dev)?;
        begin(&dev, &current)?;
        Ok(Batches {
            dev,
            ctx,
            current,
            in_flight: VecDeque::new(),
            free: Vec::new(),
            submitted: 0,
            free_pools: Vec::new(),
        })
    }

    /// The recording command buffer; marks the batch as having work.
    /// The current command buffer, without marking the batch as having
    /// work.
    pub fn current_cmd(&self) -> vk::CommandBuffer {
        self.current.cmd
    }

    pub fn cmd(&mut self) -> vk::CommandBuffer {
        self.current.has_work = true;
        self.current.cmd
    }

    /// Whether the current batch has recorded work.
    pub fn has_work(&self) -> bool {
        self.current.has_work
    }

    /// Keeps `obj` alive until the current batch retires and marks it used.
    pub fn track(&mut self, obj: &Arc<ResourceObject>, write: bool) {
        obj.mark_used(self.ctx, write);
        let key = Arc::as_ptr(obj) as usize;
        if self.current.ref_set.insert(key) {
            self.current.refs.push(obj.clone());
        }
    }

    /// Whether the current batch uses `obj` (`is_resource_referenced`).
    pub fn references(&self, obj: &Arc<ResourceObject>) -> bool {
        self.current.ref_set.contains(&(Arc::as_ptr(obj) as usize))
    }

    /// A fence cell filled when the current batch is submitted.
    pub fn deferred_fence(&mut self) -> FenceCell {
        let cell = Arc::new(Mutex::new(None));
        self.current.fences.push(cell.clone());
        cell
    }

    /// The current batch's fence cell, one per batch however often it is
    /// asked for (query spans note the batch they are recorded in).
    pub fn batch_fence(&mut self) -> FenceCell {
        if let Some(c) = &self.current.shared_fence {
            return c.clone();
        }
        let c = self.deferred_fence();
        self.current.shared_fence = Some(c.clone());
        c
    }

    /// Fills `cell` with the value of the current batch when it is
    /// submitted (`fence_server_signal`).
    pub fn signal_on_submit(&mut self, cell: FenceCell) {
        self.current.fences.push(cell);
    }

    /// Keeps `obj` alive until the current batch retires.
    pub fn keep(&mut self, obj: Arc<dyn std::any::Any + Send + Sync>) {
        self.current.keep.push(obj);
    }

    /// Makes the current batch wait for timeline `value` first.
    pub fn wait_for(&mut self, value: u64) {
        self.current.waits.push(value);
        self.current.has_work = true;
    }

    /// Submits the current batch (if it has work or fences) and starts a
    /// new one. Returns the timeline value it signals (or the last
    /// submitted value when there was nothing to submit).
    pub fn flush(&mut self) -> PipeResult<u64> {
        self.retire();
        if !self.current.has_work && self.current.fences.is_empty() {
            let q = self.dev.queue.lock().unwrap_or_else(|p| p.into_inner());
            return Ok(q.last_submitted);
        }
        let next = match self.free.pop() {
            Some(b) => b,
            None => new_batch(&self.dev)?,
        };
        begin(&self.dev, &next)?;
        let mut batch = std::mem::replace(&mut self.current, next);
        let raw = self.dev.raw();
        // SAFETY: the batch's buffer is recording.
        unsafe { raw.end_command_buffer(batch.cmd) }
            .map_err(|e| vk_err("vkEndCommandBuffer", e))?;
        let value = {
            let mut q = self.dev.queue.lock().unwrap_or_else(|p| p.into_inner());
            let value = q.last_submitted + 1;
            let cmd_info = [vk::CommandBufferSubmitInfo::default().command_buffer(batch.cmd)];
            let signal = [vk::SemaphoreSubmitInfo::default()
                .semaphore(self.dev.timeline)
                .value(value)
                .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)];
            let waits: Vec<_> = batch
                .waits
                .iter()
                .filter(|&&w| w <= q.last_submitted)
                .map(|&w| {
                    vk::SemaphoreSubmitInfo::default()
                        .semaphore(self.dev.timeline)
                        .value(w)
                        .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
                })
                .collect();
            let submit = vk::SubmitInfo2::default()
                .wait_semaphore_infos(&waits)
                .command_buffer_infos(&cmd_info)
                .signal_semaphore_infos(&signal);
            // SAFETY: the queue is externally synchronized by the lock; the
            // command buffer is executable; arrays outlive the call.
            let r = unsafe { raw.queue_submit2(q.queue, &[submit], vk::Fence::null()) };
            if let Err(e) = r {
                // The batch is lost; keep its references until idle.
                // SAFETY: waiting for idle has no preconditions.
                let _ = unsafe { raw.device_wait_idle() };
                return Err(match e {
                    vk::Result::ERROR_DEVICE_LOST => PipeError::DeviceLost,
                    e => vk_err("vkQueueSubmit2", e),
                });
            }
            q.last_submitted = value;
            value
        };
        batch.value = value;
        for obj in &batch.refs {
            obj.mark_submitted(self.ctx, value);
        }
        for f in batch.fences.drain(..) {
            *f.lock().unwrap_or_else(|p| p.into_inner()) = Some(value);
        }
        batch.shared_fence = None;
        self.in_flight.push_back(batch);
        self.submitted += 1;
        Ok(value)
    }

    /// Recycles batches the timeline has passed.
    pub fn retire(&mut self) {
        if self.in_flight.is_empty() {
            return;
        }
        let done = self.dev.completed_value();
        while self.in_flight.front().is_some_and(|b| b.value <= done) {
            let Some(mut b) = self.in_flight.pop_front() else {
                break;
            };
            // SAFETY: the batch's work completed (timeline passed its value),
            // so its pool may be reset.
            if unsafe {
                self.dev
                    .raw()
                    .reset_command_pool(b.pool, vk::CommandPoolResetFlags::empty())
            }
            .is_err()
            {
                self.destroy(b);
                continue;
            }
            self.destroy_pipelines(&mut b);
            for p in b.pools.drain(..) {
                // SAFETY: the batch's sets are no longer in use (retired).
                if unsafe {
                    self.dev
                        .raw()
                        .reset_descriptor_pool(p, vk::DescriptorPoolResetFlags::empty())
                }
                .is_ok()
                {
                    self.free_pools.push(p);
                } else {
                    // SAFETY: as above.
                    unsafe { self.dev.raw().destroy_descriptor_pool(p, None) };
                }
            }
            b.refs.clear();
            b.keep.clear();
            b.ref_set.clear();
            b.waits.clear();
            b.has_work = false;
            b.value = 0;
            self.free.push(b);
        }
    }

    /// Flushes and waits until everything submitted so far completes.
    pub fn finish(&mut self) -> PipeResult<()> {
        let v = self.flush()?;
        self.dev.wait_value(v, u64::MAX)?;
        self.retire();
        Ok(())
    }

    fn destroy(&self, mut b: Batch) {
        self.destroy_pipelines(&mut b);
        for p in b.pools.drain(..) {
            // SAFETY: the batch is not executing.
            unsafe { self.dev.raw().destroy_descriptor_pool(p, None) };
        }
        // SAFETY: the batch is not executing (retired or never submitted).
        unsafe { self.dev.raw().destroy_command_pool(b.pool, None) };
    }

    fn destroy_pipelines(&self, b: &mut Batch) {
        let raw = self.dev.raw();
        for p in b.pipelines.drain(..) {
            // SAFETY: the batch that could use the pipeline has retired (or
            // never ran).
            unsafe { raw.destroy_pipeline(p, None) };
        }
        for s in b.samplers.drain(..) {
            // SAFETY: as above.
            unsafe { raw.destroy_sampler(s, None) };
        }
    }

    /// Destroys `s` once the current batch retires.
    pub fn defer_destroy_sampler(&mut self, s: vk::Sampler) {
        self.current.samplers.push(s);
    }

    /// Allocates a descriptor set of `layout` for the current batch.
    pub fn alloc_set(&mut self, layout: vk::DescriptorSetLayout) -> PipeResult<vk::DescriptorSet> {
        let layouts = [layout];
        if let Some(&pool) = self.current.pools.last() {
            let info = vk::DescriptorSetAllocateInfo::default()
                .descriptor_pool(pool)
                .set_layouts(&layouts);
            // SAFETY: pool and layout belong to this device.
            match unsafe { self.dev.raw().allocate_descriptor_sets(&info) } {
                Ok(v) => return Ok(v[0]),
                Err(vk::Result::ERROR_OUT_OF_POOL_MEMORY | vk::Result::ERROR_FRAGMENTED_POOL) => {}
                Err(e) => return Err(vk_err("vkAllocateDescriptorSets", e)),
            }
        }
        let pool = match self.free_pools.pop() {
            Some(p) => p,
            None => {
                // Combined image samplers for draws (32 per set: 16 slots
                // of the vertex and fragment stages; pipelines that sample
                // in other stages use sets of 80, and take a new pool
                // sooner); compute sets (`crate::compute`) hold up to 8 of
                // one type.
                let sizes = [
                    vk::DescriptorPoolSize {
                        ty: vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
                        descriptor_count: POOL_SETS * 64,
                    },
                    // Draws' set 0: 26 uniform buffers.
                    vk::DescriptorPoolSize {
                        ty: vk::DescriptorType::UNIFORM_BUFFER,
                        descriptor_count: POOL_SETS * 32,
                    },
                    vk::DescriptorPoolSize {
                        ty: vk::DescriptorType::STORAGE_BUFFER,
                        descriptor_count: POOL_SETS * 8,
                    },
                    vk::DescriptorPoolSize {
                        ty: vk::DescriptorType::STORAGE_IMAGE,
                        descriptor_count: POOL_SETS * 8,
                    },
                    // Framebuffer-fetch images.
                    vk::DescriptorPoolSize {
                        ty: vk::DescriptorType::SAMPLED_IMAGE,
                        descriptor_count: POOL_SETS * 2,
                    },
                    vk::DescriptorPoolSize {
                        ty: vk::DescriptorType::UNIFORM_TEXEL_BUFFER,
                        descriptor_count: POOL_SETS * 8,
                    },
                    vk::DescriptorPoolSize {
                        ty: vk::DescriptorType::STORAGE_TEXEL_BUFFER,
                        descriptor_count: POOL_SETS * 8,
                    },
                ];
                let info = vk::DescriptorPoolCreateInfo::default()
                    .max_sets(POOL_SETS)
                    .pool_sizes(&sizes);
                // SAFETY: valid create info.
                unsafe { self.dev.raw().create_descriptor_pool(&info, None) }
                    .map_err(|e| vk_err("vkCreateDescriptorPool", e))?
            }
        };
        self.current.pools.push(pool);
        let info = vk::DescriptorSetAllocateInfo::default()
            .descriptor_pool(pool)
            .set_layouts(&layouts);
        // SAFETY: a fresh or reset pool of this device.
        unsafe { self.dev.raw().allocate_descriptor_sets(&info) }
            .map(|v| v[0])
            .map_err(|e| vk_err("vkAllocateDescriptorSets", e))
    }

    /// Destroys `p` once the current batch retires.
    pub fn defer_destroy_pipeline(&mut self, p: vk::Pipeline) {
        self.current.pipelines.push(p);
    }
}

impl Drop for Batches {
    fn drop(&mut self) {
        // Wait for our own submissions, then free everything.
        let last = self.in_flight.back().map(|b| b.value).unwrap_or(0);
        let _ = self.dev.wait_value(last, u64::MAX);
        // The current batch is recording: end it before destroying its pool
        // (destroying a pool frees its buffers in any state).
        let cur = std::mem::replace(
            &mut self.current,
            Batch {
                pool: vk::CommandPool::null(),
                cmd: vk::CommandBuffer::null(),
                value: 0,
                refs: Vec::new(),
                ref_set: HashSet::new(),
                fences: Vec::new(),
                shared_fence: None,
                waits: Vec::new(),
                has_work: false,
                pipelines: Vec::new(),
                samplers: Vec::new(),
                pools: Vec::new(),
                keep: Vec::new(),
            },
        );
        for o in &cur.refs {
            o.mark_submitted(self.ctx, 0);
        }
        self.destroy(cur);
        while let Some(b) = self.in_flight.pop_front() {
            self.destroy(b);
        }
        while let Some(b) = self.free.pop() {
            self.destroy(b);
        }
        for p in self.free_pools.drain(..) {
            // SAFETY: reset pools hold no sets in use.
            unsafe { self.dev.raw().destroy_descriptor_pool(p, None) };
        }
    }
}
