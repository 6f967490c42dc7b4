//! `pipe.transfer.*`: maps with every PIPE_MAP flag, subdata, box rules.
//!
//! Every test runs twice: `.direct` (host-visible buffers mapped in place)
//! and `.staging` (`PIPE_VK_DEBUG=staging`: the staging-buffer paths of a
//! discrete GPU). Expected bytes are computed here, independently of the
//! driver.

use pipe_core::flags::{ClearFlags, FlushFlags, MapFlags, ReferenceFlags};
use pipe_core::resource::{BindFlags, PipeBox, ResourceFlags, ResourceTemplate, Target, Usage};
use pipe_core::{Format, PipeError};

use crate::harness::{
    clear_depth_stencil, clear_surface, copy_buffer_on, env, expect_bytes, pattern, read_buffer_on,
    step,
};
use crate::{both_paths, Outcome, TestContext};

type R = Result<(), Outcome>;

fn buffer_roundtrip(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let buf = e.buffer(4096, ResourceFlags::empty())?;
    let data = pattern(4096, 1);
    e.subdata(&buf, 0, &data)?;
    expect_bytes("whole", &e.read_buffer(&buf, 0, 4096)?, &data)?;
    // A partial update keeps the rest.
    let part = pattern(100, 2);
    e.subdata(&buf, 1000, &part)?;
    let mut want = data.clone();
    want[1000..1100].copy_from_slice(&part);
    expect_bytes("after partial", &e.read_buffer(&buf, 0, 4096)?, &want)?;
    expect_bytes(
        "sub-range read",
        &e.read_buffer(&buf, 990, 20)?,
        &want[990..1010],
    )
}
both_paths!("pipe.transfer.buffer.subdata_roundtrip", buffer_roundtrip);

fn map_write_then_read(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let buf = e.buffer(256, ResourceFlags::empty())?;
    let data = pattern(128, 3);
    e.write_through_map(
        &buf,
        MapFlags::WRITE | MapFlags::DISCARD_RANGE,
        &PipeBox::range(64, 128),
        &data,
    )?;
    expect_bytes("mapped range", &e.read_buffer(&buf, 64, 128)?, &data)
}
both_paths!("pipe.transfer.buffer.map_write_read", map_write_then_read);

/// GPU writes (a copy) followed by a CPU read: the read must see them.
fn gpu_write_cpu_read(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let data = pattern(1024, 4);
    let a = e.buffer_with(&data)?;
    let b = e.buffer(1024, ResourceFlags::empty())?;
    e.copy_buffer(&b, 512, &a, 0, 512)?;
    let mut want = vec![0u8; 1024];
    want[512..].copy_from_slice(&data[..512]);
    // The first half of b was never written: read only the copied half.
    expect_bytes("copied half", &e.read_buffer(&b, 512, 512)?, &want[512..])
}
both_paths!(
    "pipe.transfer.buffer.gpu_write_cpu_read",
    gpu_write_cpu_read
);

fn dontblock_and_rename(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let src = e.buffer_with(&pattern(256, 5))?;
    // The direct case needs a buffer that is mapped in place on every
    // device: a DEFAULT-usage buffer lives in device-local memory, which
    // is host-visible on lavapipe but not on a discrete GPU, where its map
    // is staged (and a staged write rightly never waits). DYNAMIC usage
    // asks for host-visible memory.
    let mut t = ResourceTemplate::buffer(256, BindFlags::VERTEX_BUFFER | BindFlags::SHADER_BUFFER);
    if !staging {
        t.usage = Usage::Dynamic;
    }
    let dst = step("resource_create(buffer)", e.screen.resource_create(&t))?;
    // An unflushed GPU write makes `dst` busy.
    e.copy_buffer(&dst, 0, &src, 0, 256)?;
    let refs = step(
        "is_resource_referenced",
        e.ctx.is_resource_referenced(&dst, 0, 0),
    )?;
    if !refs.contains(ReferenceFlags::WRITE) {
        return Err(Outcome::fail(format!("busy dst reported {refs:?}")));
    }
    // A direct write map would have to wait; a staged write never waits
    // (its copy is ordered after the pending GPU work), so it succeeds.
    match e.ctx.transfer_map(
        &dst,
        0,
        MapFlags::WRITE | MapFlags::DONTBLOCK,
        &PipeBox::range(0, 16),
    ) {
        Err(PipeError::WouldBlock) if !staging => {}
        Ok(t) if staging => step("unmap", e.ctx.transfer_unmap(t))?,
        Ok(t) => {
            let _ = e.ctx.transfer_unmap(t);
            return Err(Outcome::fail(
                "DONTBLOCK map of a busy buffer did not report WouldBlock",
            ));
        }
        Err(err) => {
            return Err(Outcome::fail(format!(
                "DONTBLOCK (staging={staging}): {err}"
            )))
        }
    }
    match e.ctx.transfer_map(
        &dst,
        0,
        MapFlags::READ | MapFlags::DONTBLOCK,
        &PipeBox::range(0, 16),
    ) {
        Err(PipeError::WouldBlock) => {}
        other => {
            return Err(Outcome::fail(format!(
                "DONTBLOCK READ of a busy buffer gave {:?}",
                other.map(|_| ())
            )))
        }
    }
    // DISCARD_WHOLE_RESOURCE renames instead of waiting: it succeeds even
    // with DONTBLOCK, which proves that no wait happened.
    let fresh = pattern(256, 6);
    e.write_through_map(
        &dst,
        MapFlags::WRITE | MapFlags::DISCARD_WHOLE_RESOURCE | MapFlags::DONTBLOCK,
        &PipeBox::range(0, 256),
        &fresh,
    )?;
    // The renamed storage is not referenced by the pending batch.
    let refs = step(
        "is_resource_referenced",
        e.ctx.is_resource_referenced(&dst, 0, 0),
    )?;
    if refs.contains(ReferenceFlags::WRITE) && !staging {
        return Err(Outcome::fail(format!(
            "renamed dst still referenced for write: {refs:?}"
        )));
    }
    e.finish()?;
    expect_bytes("renamed contents", &e.read_buffer(&dst, 0, 256)?, &fresh)
}
both_paths!(
    "pipe.transfer.buffer.dontblock_discard_whole",
    dontblock_and_rename
);

fn unsynchronized(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let src = e.buffer_with(&pattern(256, 7))?;
    let dst = e.buffer(512, ResourceFlags::empty())?;
    e.copy_buffer(&dst, 0, &src, 0, 256)?;
    // Writing the other half unsynchronized needs no wait and no flush.
    let before = step("referenced", e.ctx.is_resource_referenced(&dst, 0, 0))?;
    let hi = pattern(256, 8);
    e.write_through_map(
        &dst,
        MapFlags::WRITE | MapFlags::UNSYNCHRONIZED | MapFlags::DONTBLOCK,
        &PipeBox::range(256, 256),
        &hi,
    )?;
    let after = step("referenced", e.ctx.is_resource_referenced(&dst, 0, 0))?;
    if !before.contains(ReferenceFlags::WRITE) || !after.contains(ReferenceFlags::WRITE) {
        return Err(Outcome::fail(format!(
            "UNSYNCHRONIZED flushed the batch ({before:?} -> {after:?})"
        )));
    }
    let mut want = pattern(256, 7);
    want.extend_from_slice(&hi);
    expect_bytes("both halves", &e.read_buffer(&dst, 0, 512)?, &want)
}
both_paths!("pipe.transfer.buffer.unsynchronized", unsynchronized);

fn flush_explicit(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let base = pattern(256, 9);
    let buf = e.buffer_with(&base)?;
    let new = pattern(128, 10);
    let mut t = e.map_write(
        &buf,
        MapFlags::WRITE | MapFlags::FLUSH_EXPLICIT,
        &PipeBox::range(64, 128),
        &new,
    )?;
    // Flush ranges are relative to the mapped range.
    step(
        "flush_region",
        e.ctx.transfer_flush_region(&mut t, &PipeBox::range(16, 32)),
    )?;
    step(
        "flush_region",
        e.ctx.transfer_flush_region(&mut t, &PipeBox::range(96, 32)),
    )?;
    step("unmap", e.ctx.transfer_unmap(t))?;
    let got = e.read_buffer(&buf, 0, 256)?;
    // Flushed bytes hold the new data; bytes outside the mapped range keep
    // the old. (Unflushed mapped bytes are undefined by the spec.)
    expect_bytes("flushed 1", &got[80..112], &new[16..48])?;
    expect_bytes("flushed 2", &got[160..192], &new[96..128])?;
    expect_bytes("before map", &got[..64], &base[..64])?;
    expect_bytes("after map", &got[192..], &base[192..])
}
both_paths!("pipe.transfer.buffer.flush_explicit", flush_explicit);

fn persistent_coherent(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let flags = ResourceFlags::MAP_PERSISTENT | ResourceFlags::MAP_COHERENT;
    let pbuf = e.buffer(256, flags)?;
    let dst = e.buffer(256, ResourceFlags::empty())?;
    let data = pattern(256, 11);
    let mut t = e.map_write(
        &pbuf,
        MapFlags::WRITE | MapFlags::PERSISTENT | MapFlags::COHERENT,
        &PipeBox::range(0, 256),
        &data,
    )?;
    // The GPU reads while the buffer stays mapped; no unmap, no barrier.
    e.copy_buffer(&dst, 0, &pbuf, 0, 256)?;
    e.finish()?;
    expect_bytes(
        "copied from persistent map",
        &e.read_buffer(&dst, 0, 256)?,
        &data,
    )?;
    // Non-coherent persistent map + memory_barrier(MAPPED_BUFFER).
    let data2 = pattern(256, 12);
    t.write_bytes(0, &data2)
        .ok_or_else(|| Outcome::fail("write past the map"))?;
    step(
        "memory_barrier",
        e.ctx
            .memory_barrier(pipe_core::flags::BarrierFlags::MAPPED_BUFFER),
    )?;
    e.copy_buffer(&dst, 0, &pbuf, 0, 256)?;
    e.finish()?;
    expect_bytes("after barrier", &e.read_buffer(&dst, 0, 256)?, &data2)?;
    step("unmap", e.ctx.transfer_unmap(t))
}
both_paths!(
    "pipe.transfer.buffer.persistent_coherent",
    persistent_coherent
);

fn tex_template(
    target: Target,
    format: Format,
    w: u32,
    h: u32,
    d: u32,
    layers: u32,
    levels: u32,
) -> ResourceTemplate {
    let mut t = ResourceTemplate::texture_2d(format, w, h, BindFlags::SAMPLER_VIEW);
    t.target = target;
    t.depth0 = d;
    t.array_size = layers;
    t.last_level = levels - 1;
    t
}

fn texture_levels(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let t = tex_template(Target::Texture2D, Format::R8G8B8A8Unorm, 16, 8, 1, 1, 3);
    let tex = e.texture(&t)?;
    for level in 0..3u32 {
        let (w, h) = ((16 >> level) as u32, (8 >> level) as u32);
        let bx = PipeBox::rect(0, 0, w, h);
        let data = pattern((w * h * 4) as usize, level as u8 + 20);
        e.write_texture(&tex, level, &bx, &data)?;
        e.expect_texture(&tex, level, &bx, &data, &format!("level {level}"))?;
    }
    // A partial box on level 0: read back the whole level, compute the
    // expected image here.
    let full = pattern(16 * 8 * 4, 20);
    let patch = pattern(5 * 3 * 4, 30);
    e.write_texture(&tex, 0, &PipeBox::rect(3, 2, 5, 3), &patch)?;
    let mut want = full.clone();
    for y in 0..3 {
        let d = ((2 + y) * 16 + 3) * 4;
        want[d..d + 20].copy_from_slice(&patch[y * 20..y * 20 + 20]);
    }
    e.expect_texture(&tex, 0, &PipeBox::rect(0, 0, 16, 8), &want, "partial box")?;
    e.expect_texture(&tex, 0, &PipeBox::rect(3, 2, 5, 3), &patch, "read sub-box")
}
both_paths!("pipe.transfer.texture.levels_and_boxes", texture_levels);

/// Box z/depth: layers for arrays, faces for cubes, faces*layers for cube
/// arrays, slices for 3D (minified per level).
fn texture_box_semantics(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let cases = [
        (Target::Texture2DArray, 8, 8, 1, 5, 2u32),
        (Target::TextureCube, 8, 8, 1, 6, 2),
        (Target::TextureCubeArray, 4, 4, 1, 12, 1),
        (Target::Texture3D, 8, 8, 8, 1, 3),
        (Target::Texture1DArray, 16, 1, 1, 4, 2),
    ];
    for (target, w, h, d, layers, levels) in cases {
        let t = tex_template(target, Format::R8G8B8A8Unorm, w, h, d, layers, levels);
        let tex = e.texture(&t)?;
        let level = levels - 1;
        let (lw, lh, _) = t.level_extent(level).unwrap_or((1, 1, 1));
        let nz = t.level_layers(level).unwrap_or(1);
        let whole = PipeBox::new(0, 0, 0, lw as i32, lh as i32, nz as i32);
        let base = pattern((lw * lh * nz * 4) as usize, 40);
        e.write_texture(&tex, level, &whole, &base)?;
        // Overwrite the last layer/slice only.
        let one = PipeBox::new(0, 0, nz as i32 - 1, lw as i32, lh as i32, 1);
        let patch = pattern((lw * lh * 4) as usize, 41);
        e.write_texture(&tex, level, &one, &patch)?;
        let mut want = base.clone();
        let slice = (lw * lh * 4) as usize;
        want[slice * (nz as usize - 1)..].copy_from_slice(&patch);
        e.expect_texture(
            &tex,
            level,
            &whole,
            &want,
            &format!("{} level {level}", target.name()),
        )?;
    }
    Ok(())
}
both_paths!("pipe.transfer.texture.box_semantics", texture_box_semantics);

fn compressed_texture(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    if !e.screen.is_format_supported(
        Format::Bc1RgbaUnorm,
        Target::Texture2D,
        1,
        1,
        BindFlags::SAMPLER_VIEW,
    ) {
        return Err(Outcome::skip("BC1 not supported"));
    }
    let t = tex_template(Target::Texture2D, Format::Bc1RgbaUnorm, 16, 16, 1, 1, 1);
    let tex = e.texture(&t)?;
    // 4x4 blocks of 8 bytes.
    let data = pattern(4 * 4 * 8, 50);
    e.write_texture(&tex, 0, &PipeBox::rect(0, 0, 16, 16), &data)?;
    e.expect_texture(&tex, 0, &PipeBox::rect(0, 0, 16, 16), &data, "blocks")?;
    e.expect_texture(
        &tex,
        0,
        &PipeBox::rect(4, 8, 8, 4),
        &[&data[(2 * 4 + 1) * 8..(2 * 4 + 3) * 8]].concat(),
        "one block row",
    )
}
both_paths!(
    "pipe.transfer.texture.compressed_blocks",
    compressed_texture
);

fn fences(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let a = e.buffer(64, ResourceFlags::empty())?;
    step("clear", e.ctx.clear_buffer(&a, 0, 64, &[1, 2, 3, 4]))?;
    let f = step("flush", e.ctx.flush(FlushFlags::empty(), true))?
        .ok_or_else(|| Outcome::fail("no fence"))?;
    if !step("fence_finish", e.screen.fence_finish(None, &f, u64::MAX))? {
        return Err(Outcome::fail("fence did not signal"));
    }
    // Deferred: no submit yet; fence_finish with the context flushes it.
    step("clear", e.ctx.clear_buffer(&a, 0, 64, &[5, 6, 7, 8]))?;
    let df = step("flush DEFERRED", e.ctx.flush(FlushFlags::DEFERRED, true))?
        .ok_or_else(|| Outcome::fail("no deferred fence"))?;
    if step("poll without ctx", e.screen.fence_finish(None, &df, 0))? {
        return Err(Outcome::fail(
            "a deferred fence signalled before its context flushed",
        ));
    }
    if !step(
        "fence_finish(ctx)",
        e.screen.fence_finish(Some(&mut *e.ctx), &df, u64::MAX),
    )? {
        return Err(Outcome::fail(
            "deferred fence did not signal after fence_finish flushed",
        ));
    }
    expect_bytes(
        "deferred work done",
        &e.read_buffer(&a, 0, 8)?,
        &[5, 6, 7, 8, 5, 6, 7, 8],
    )?;
    // Every other flag combination gives a fence that signals.
    for flags in [
        FlushFlags::END_OF_FRAME,
        FlushFlags::ASYNC,
        FlushFlags::HINT_FINISH,
        FlushFlags::DEFERRED | FlushFlags::TOP_OF_PIPE,
        FlushFlags::DEFERRED | FlushFlags::BOTTOM_OF_PIPE,
    ] {
        step("clear", e.ctx.clear_buffer(&a, 0, 4, &[9; 4]))?;
        let f =
            step("flush", e.ctx.flush(flags, true))?.ok_or_else(|| Outcome::fail("no fence"))?;
        if !step(
            "fence_finish",
            e.screen.fence_finish(Some(&mut *e.ctx), &f, 5_000_000_000),
        )? {
            return Err(Outcome::fail(format!("{flags:?} fence did not signal")));
        }
    }
    Ok(())
}
both_paths!("pipe.flush.fences", fences);

fn two_contexts(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let mut other = e.other_context()?;
    let data = pattern(128, 60);
    let buf = e.buffer_with(&data)?;
    // The spec: a flush after transfer_unmap makes the data visible to
    // other contexts.
    let f = step("flush", e.ctx.flush(FlushFlags::empty(), true))?
        .ok_or_else(|| Outcome::fail("no fence"))?;
    // Producer/consumer on the GPU: the consumer waits for the fence.
    step("fence_server_sync", other.fence_server_sync(&f))?;
    let copy = e.buffer(128, ResourceFlags::empty())?;
    copy_buffer_on(&mut *other, &copy, 0, &buf, 0, 128)?;
    let got = read_buffer_on(&mut *other, &copy, 0, 128)?;
    expect_bytes("seen by ctx B", &got, &data)
}
both_paths!("pipe.context.several.flush_makes_visible", two_contexts);

fn destroy_while_in_flight(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let keep = e.buffer(1 << 16, ResourceFlags::empty())?;
    for i in 0..8u8 {
        let tmp = e.buffer(1 << 16, ResourceFlags::empty())?;
        step("clear", e.ctx.clear_buffer(&tmp, 0, 1 << 16, &[i; 4]))?;
        e.copy_buffer(&keep, 0, &tmp, 0, 1 << 16)?;
        // The frontend lets go while the GPU still has the copy queued.
        e.screen.resource_destroy(tmp);
        if i % 3 == 0 {
            step("flush", e.ctx.flush(FlushFlags::empty(), false))?;
        }
    }
    e.finish()?;
    expect_bytes("last copy", &e.read_buffer(&keep, 0, 16)?, &[7u8; 16])
}
both_paths!("pipe.resource.destroy_in_flight", destroy_while_in_flight);

fn clear_buffer_sizes(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    for size in [1usize, 2, 4, 8, 12, 16] {
        let base = pattern(256, 70);
        let buf = e.buffer_with(&base)?;
        let value: Vec<u8> = (0..size as u8).map(|i| 0xa0 + i).collect();
        // An offset that is a multiple of the value size but not of 4
        // where possible.
        let offset = if size < 4 { 6 } else { size * 3 };
        let len = size * 10;
        step(
            "clear_buffer",
            e.ctx.clear_buffer(&buf, offset as u32, len as u32, &value),
        )?;
        let mut want = base.clone();
        for (i, b) in want[offset..offset + len].iter_mut().enumerate() {
            *b = value[i % size];
        }
        expect_bytes(
            &format!("{size}-byte value"),
            &e.read_buffer(&buf, 0, 256)?,
            &want,
        )?;
    }
    Ok(())
}
both_paths!("pipe.clear.buffer.value_sizes", clear_buffer_sizes);

fn clear_texture(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let t = tex_template(Target::Texture2DArray, Format::R8G8B8A8Unorm, 8, 8, 1, 3, 2);
    let tex = e.texture(&t)?;
    let whole = PipeBox::new(0, 0, 0, 8, 8, 3);
    let base = pattern(8 * 8 * 3 * 4, 80);
    e.write_texture(&tex, 0, &whole, &base)?;
    let value = [0x11, 0x22, 0x33, 0x44];
    step(
        "clear_texture",
        e.ctx
            .clear_texture(&tex, 0, &PipeBox::new(2, 1, 1, 3, 4, 2), &value),
    )?;
    let mut want = base.clone();
    for z in 1..3 {
        for y in 1..5 {
            for x in 2..5 {
                let i = ((z * 8 + y) * 8 + x) * 4;
                want[i..i + 4].copy_from_slice(&value);
            }
        }
    }
    e.expect_texture(&tex, 0, &whole, &want, "cleared box")?;
    // Depth: Z32F clears to the value's bits.
    let mut zt = tex_template(Target::Texture2D, Format::Z32Float, 4, 4, 1, 1, 1);
    zt.bind = BindFlags::DEPTH_STENCIL;
    let z = e.texture(&zt)?;
    let half = 0.5f32.to_le_bytes();
    step(
        "clear_texture depth",
        e.ctx
            .clear_texture(&z, 0, &PipeBox::rect(0, 0, 4, 4), &half),
    )?;
    let want: Vec<u8> = half.iter().copied().cycle().take(64).collect();
    e.expect_texture(&z, 0, &PipeBox::rect(0, 0, 4, 4), &want, "depth")
}
both_paths!("pipe.clear.texture.native_value", clear_texture);

fn copy_region_images(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let t = tex_template(Target::Texture2DArray, Format::R8G8B8A8Unorm, 8, 8, 1, 2, 2);
    let a = e.texture(&t)?;
    let b = e.texture(&t)?;
    let whole = PipeBox::new(0, 0, 0, 8, 8, 2);
    let da = pattern(8 * 8 * 2 * 4, 90);
    let db = pattern(8 * 8 * 2 * 4, 91);
    e.write_texture(&a, 0, &whole, &da)?;
    e.write_texture(&b, 0, &whole, &db)?;
    // a layer 1, (1,1) 3x2 -> b layer 0 at (4,5)
    step(
        "copy",
        e.ctx
            .resource_copy_region(&b, 0, 4, 5, 0, &a, 0, &PipeBox::new(1, 1, 1, 3, 2, 1)),
    )?;
    let mut want = db.clone();
    for y in 0..2 {
        for x in 0..3 {
            let s = ((64 + (1 + y) * 8) + 1 + x) * 4;
            let d = ((5 + y) * 8 + 4 + x) * 4;
            want[d..d + 4].copy_from_slice(&da[s..s + 4]);
        }
    }
    e.expect_texture(&b, 0, &whole, &want, "copied region")?;
    // Same resource, different level.
    let l1 = pattern(4 * 4 * 2 * 4, 92);
    e.write_texture(&a, 1, &PipeBox::new(0, 0, 0, 4, 4, 2), &l1)?;
    step(
        "copy level",
        e.ctx
            .resource_copy_region(&a, 0, 0, 0, 0, &a, 1, &PipeBox::new(0, 0, 0, 4, 4, 1)),
    )?;
    let got = e.read_texture(&a, 0, &PipeBox::new(0, 0, 0, 4, 4, 1))?;
    expect_bytes("level 1 into level 0", &got, &l1[..64])?;
    // Formats of equal block size copy bit-exactly (R32_UINT <- RGBA8).
    let mut ut = tex_template(Target::Texture2D, Format::R32Uint, 8, 8, 1, 1, 1);
    ut.bind = BindFlags::SAMPLER_VIEW;
    let u = e.texture(&ut)?;
    step(
        "copy cast",
        e.ctx
            .resource_copy_region(&u, 0, 0, 0, 0, &b, 0, &PipeBox::new(0, 0, 0, 8, 8, 1)),
    )?;
    e.expect_texture(&u, 0, &PipeBox::rect(0, 0, 8, 8), &want[..256], "cast copy")
}
both_paths!("pipe.copy.region.images", copy_region_images);

fn bad_input(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let buf = e.buffer(64, ResourceFlags::empty())?;
    let t = tex_template(Target::Texture2D, Format::R8G8B8A8Unorm, 8, 8, 1, 1, 2);
    let tex = e.texture(&t)?;
    let mut n = 0;
    macro_rules! bad {
        ($e:expr) => {{
            n += 1;
            match $e {
                Err(PipeError::InvalidArgument(_)) => {}
                other => {
                    return Err(Outcome::fail(format!(
                        "case {n} ({}): expected InvalidArgument, got {:?}",
                        stringify!($e),
                        other.map(|_| ())
                    )))
                }
            }
        }};
    }
    let c = &mut e.ctx;
    bad!(c.transfer_map(
        &buf,
        0,
        MapFlags::READ | MapFlags::DISCARD_RANGE,
        &PipeBox::range(0, 4)
    ));
    bad!(c.transfer_map(
        &buf,
        0,
        MapFlags::READ | MapFlags::DISCARD_WHOLE_RESOURCE,
        &PipeBox::range(0, 4)
    ));
    bad!(c.transfer_map(
        &buf,
        0,
        MapFlags::READ | MapFlags::UNSYNCHRONIZED,
        &PipeBox::range(0, 4)
    ));
    bad!(c.transfer_map(&buf, 0, MapFlags::READ, &PipeBox::range(60, 8)));
    bad!(c.transfer_map(&buf, 0, MapFlags::READ, &PipeBox::range(0, 0)));
    bad!(c.transfer_map(&buf, 1, MapFlags::READ, &PipeBox::range(0, 4)));
    bad!(c.transfer_map(
        &buf,
        0,
        MapFlags::WRITE | MapFlags::PERSISTENT,
        &PipeBox::range(0, 4)
    ));
    bad!(c.transfer_map(&buf, 0, MapFlags::empty(), &PipeBox::range(0, 4)));
    bad!(c.transfer_map(&tex, 0, MapFlags::READ, &PipeBox::rect(4, 4, 5, 4)));
    bad!(c.transfer_map(&tex, 1, MapFlags::READ, &PipeBox::rect(0, 0, 8, 8)));
    bad!(c.transfer_map(&tex, 2, MapFlags::READ, &PipeBox::rect(0, 0, 1, 1)));
    bad!(c.transfer_map(&tex, 0, MapFlags::READ, &PipeBox::new(0, 0, 1, 1, 1, 1)));
    bad!(c.transfer_map(&tex, 0, MapFlags::READ, &PipeBox::new(-1, 0, 0, 1, 1, 1)));
    bad!(c.buffer_subdata(&buf, MapFlags::empty(), 60, &[0; 8]));
    bad!(c.buffer_subdata(&buf, MapFlags::READ, 0, &[0; 8]));
    bad!(c.buffer_subdata(&tex, MapFlags::empty(), 0, &[0; 8]));
    bad!(c.texture_subdata(
        &tex,
        0,
        MapFlags::empty(),
        &PipeBox::rect(0, 0, 8, 8),
        &[0; 16],
        32,
        256
    ));
    bad!(c.texture_subdata(
        &buf,
        0,
        MapFlags::empty(),
        &PipeBox::rect(0, 0, 8, 1),
        &[0; 32],
        32,
        32
    ));
    bad!(c.clear_buffer(&buf, 0, 6, &[0; 4]));
    bad!(c.clear_buffer(&buf, 32, 64, &[0; 4]));
    bad!(c.clear_buffer(&buf, 0, 64, &[0; 3]));
    bad!(c.clear_buffer(&tex, 0, 4, &[0; 4]));
    bad!(c.clear_texture(&tex, 0, &PipeBox::rect(0, 0, 9, 1), &[0; 4]));
    bad!(c.clear_texture(&tex, 0, &PipeBox::rect(0, 0, 1, 1), &[0; 2]));
    bad!(c.clear_texture(&buf, 0, &PipeBox::range(0, 4), &[0; 4]));
    bad!(c.resource_copy_region(&buf, 0, 62, 0, 0, &buf, 0, &PipeBox::range(0, 4)));
    bad!(c.resource_copy_region(&buf, 0, 2, 0, 0, &buf, 0, &PipeBox::range(0, 4)));
    bad!(c.resource_copy_region(&tex, 0, 0, 0, 0, &buf, 0, &PipeBox::range(0, 4)));
    bad!(c.resource_copy_region(&tex, 0, 6, 6, 0, &tex, 1, &PipeBox::rect(0, 0, 4, 4)));
    bad!(c.resource_copy_region(&tex, 0, 0, 0, 0, &tex, 0, &PipeBox::rect(1, 1, 4, 4)));
    bad!(c.is_resource_referenced(&tex, 5, 0));
    bad!(c.flush(FlushFlags::TOP_OF_PIPE | FlushFlags::BOTTOM_OF_PIPE, true));
    let mut bad_tmpl = t.clone();
    bad_tmpl.last_level = 9;
    bad!(e.screen.resource_create(&bad_tmpl));
    if n < 30 {
        return Err(Outcome::fail(format!("only {n} bad-input cases")));
    }
    Ok(())
}
both_paths!("pipe.validate.bad_input.transfers", bad_input);

fn uploaders(ctx: &mut TestContext, staging: bool) -> R {
    use pipe_core::transfer::Uploader;
    let mut e = env(ctx, staging)?;
    let dst = e.buffer(4096, ResourceFlags::empty())?;
    let mut expected = Vec::new();
    let mut placed = Vec::new();
    // Interleaving is not allowed by the spec: finish one uploader first.
    for (i, (which, align)) in [
        (Uploader::Stream, 4u32),
        (Uploader::Stream, 256),
        (Uploader::Const, 16),
    ]
    .into_iter()
    .enumerate()
    {
        let data = pattern(300, 100 + i as u8);
        let (res, off) = step("upload_data", e.ctx.upload_data(which, &data, align))?;
        if off % align != 0 {
            return Err(Outcome::fail(format!(
                "offset {off} not aligned to {align}"
            )));
        }
        placed.push((res, off));
        expected.push(data);
        if which == Uploader::Stream && i == 1 {
            step("upload_unmap", e.ctx.upload_unmap(Uploader::Stream))?;
        }
    }
    // upload_alloc: fill later, after another allocation (the memory stays
    // valid and distinct).
    let mut a1 = step("upload_alloc", e.ctx.upload_alloc(Uploader::Const, 64, 64))?;
    let a2 = step("upload_alloc", e.ctx.upload_alloc(Uploader::Const, 64, 64))?;
    a1.data_mut().copy_from_slice(&pattern(64, 120));
    if a1.resource().id() == a2.resource().id() && a1.offset() + 64 > a2.offset() {
        return Err(Outcome::fail("two allocations overlap"));
    }
    placed.push((a1.resource().clone(), a1.offset()));
    expected.push(pattern(64, 120));
    step("upload_unmap", e.ctx.upload_unmap(Uploader::Const))?;
    // A request larger than the uploader's buffer still works.
    let big = pattern(3 << 20, 121);
    let (bres, boff) = step("upload big", e.ctx.upload_data(Uploader::Stream, &big, 4))?;
    // The GPU reads each upload (copy into dst) and we check.
    let mut at = 0u32;
    for ((res, off), want) in placed.iter().zip(&expected) {
        let n = want.len() as u32;
        e.copy_buffer(&dst, at, res, *off, n)?;
        at += n;
    }
    e.copy_buffer(&dst, at, &bres, boff + 1000, 100)?;
    e.finish()?;
    let got = e.read_buffer(&dst, 0, at + 100)?;
    let mut want: Vec<u8> = expected.concat();
    want.extend_from_slice(&big[1000..1100]);
    expect_bytes("uploaded bytes seen by the GPU", &got, &want)
}
both_paths!("pipe.upload.stream_and_const", uploaders);

fn msaa_read_resolves(ctx: &mut TestContext, staging: bool) -> R {
    use pipe_core::state::ColorUnion;
    let mut e = env(ctx, staging)?;
    let cases: [(Format, BindFlags, [u32; 4], Vec<u8>); 3] = [
        (
            Format::R8G8B8A8Unorm,
            BindFlags::RENDER_TARGET,
            ColorUnion::from_f32([0.2, 0.4, 0.6, 1.0]).0,
            vec![51, 102, 153, 255],
        ),
        (
            Format::R32Uint,
            BindFlags::RENDER_TARGET,
            [0xdead_beef, 0, 0, 0],
            0xdead_beefu32.to_le_bytes().to_vec(),
        ),
        (
            Format::Z32Float,
            BindFlags::DEPTH_STENCIL,
            [0; 4],
            0.25f32.to_le_bytes().to_vec(),
        ),
    ];
    for (format, bind, value, texel) in cases {
        if !e
            .screen
            .is_format_supported(format, Target::Texture2D, 4, 4, bind)
        {
            continue;
        }
        let mut t = tex_template(Target::Texture2D, format, 8, 8, 1, 1, 1);
        t.bind = bind | BindFlags::SAMPLER_VIEW;
        t.nr_samples = 4;
        let tex = e.texture(&t)?;
        let s = e.surface(&tex, 0, 0, 0)?;
        if bind == BindFlags::DEPTH_STENCIL {
            clear_depth_stencil(&mut e, &s, ClearFlags::DEPTH, (0.25, 0), [0, 0, 8, 8])?;
        } else {
            clear_surface(&mut e, &s, &ColorUnion(value), [0, 0, 8, 8])?;
        }
        let got = e.read_texture(&tex, 0, &PipeBox::rect(2, 2, 4, 4))?;
        let want: Vec<u8> = texel
            .iter()
            .copied()
            .cycle()
            .take(texel.len() * 16)
            .collect();
        expect_bytes(&format!("resolved {format}"), &got, &want)?;
        // Writing a multisampled resource through a map is not allowed.
        match e
            .ctx
            .transfer_map(&tex, 0, MapFlags::WRITE, &PipeBox::rect(0, 0, 1, 1))
        {
            Err(PipeError::InvalidArgument(_)) => {}
            other => {
                return Err(Outcome::fail(format!(
                    "MSAA write map gave {:?}",
                    other.map(|_| ())
                )))
            }
        }
    }
    Ok(())
}
both_paths!(
    "pipe.transfer.texture.msaa_read_resolves",
    msaa_read_resolves
);

fn depth_stencil_packing(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    for format in [Format::Z24UnormS8Uint, Format::Z32FloatS8X24Uint] {
        if !e
            .screen
            .is_format_supported(format, Target::Texture2D, 1, 1, BindFlags::DEPTH_STENCIL)
        {
            continue;
        }
        let mut t = tex_template(Target::Texture2DArray, format, 4, 4, 1, 2, 1);
        t.bind = BindFlags::DEPTH_STENCIL;
        let tex = e.texture(&t)?;
        let n = 4 * 4 * 2;
        let data: Vec<u8> = (0..n)
            .flat_map(|i: u32| match format {
                Format::Z24UnormS8Uint => ((i * 0x0001_0101 + 0x1234) & 0xff_ffff
                    | ((i * 7 % 256) << 24))
                    .to_le_bytes()
                    .to_vec(),
                _ => [(i as f32 / 31.0).to_le_bytes(), (i * 5 % 256).to_le_bytes()].concat(),
            })
            .collect();
        let whole = PipeBox::new(0, 0, 0, 4, 4, 2);
        let texel = format.block_size_bytes() as usize;
        step(
            "texture_subdata",
            e.ctx.texture_subdata(
                &tex,
                0,
                MapFlags::WRITE,
                &whole,
                &data,
                4 * texel,
                16 * texel,
            ),
        )?;
        e.expect_texture(&tex, 0, &whole, &data, &format!("{format} round trip"))?;
        // A sub-box of layer 1.
        let sub = PipeBox::new(1, 2, 1, 2, 2, 1);
        let mut want = Vec::new();
        for y in 2..4 {
            let o = (16 + y * 4 + 1) * texel;
            want.extend_from_slice(&data[o..o + 2 * texel]);
        }
        e.expect_texture(&tex, 0, &sub, &want, &format!("{format} sub-box"))?;
    }
    Ok(())
}
both_paths!(
    "pipe.transfer.texture.depth_stencil_packing",
    depth_stencil_packing
);

/// "Using several contexts": a persistent coherent map is seen by another
/// context with no unmap and no flush; a persistent (non-coherent) map is
/// seen after memory_barrier(MAPPED_BUFFER), again with no flush.
fn several_contexts_persistent(ctx: &mut TestContext, staging: bool) -> R {
    use pipe_core::flags::BarrierFlags;
    let mut e = env(ctx, staging)?;
    let mut b = e.other_context()?;
    for (flags, map, barrier) in [
        (
            ResourceFlags::MAP_PERSISTENT | ResourceFlags::MAP_COHERENT,
            MapFlags::WRITE | MapFlags::PERSISTENT | MapFlags::COHERENT,
            false,
        ),
        (
            ResourceFlags::MAP_PERSISTENT,
            MapFlags::WRITE | MapFlags::PERSISTENT,
            true,
        ),
    ] {
        let pbuf = e.buffer(256, flags)?;
        let dst = e.buffer(256, ResourceFlags::empty())?;
        let data = pattern(256, if barrier { 130 } else { 131 });
        let t = e.map_write(&pbuf, map, &PipeBox::range(0, 256), &data)?;
        if barrier {
            step(
                "memory_barrier(MAPPED_BUFFER)",
                e.ctx.memory_barrier(BarrierFlags::MAPPED_BUFFER),
            )?;
        }
        // No flush of A. B uses the buffer.
        copy_buffer_on(&mut *b, &dst, 0, &pbuf, 0, 256)?;
        let got = read_buffer_on(&mut *b, &dst, 0, 256)?;
        expect_bytes(
            if barrier {
                "persistent + barrier"
            } else {
                "persistent coherent"
            },
            &got,
            &data,
        )?;
        step("unmap A", e.ctx.transfer_unmap(t))?;
    }
    Ok(())
}
both_paths!(
    "pipe.context.several.persistent_maps",
    several_contexts_persistent
);

/// fence_server_signal: a deferred fence is signalled by the signalling
/// context's next submission; a consumer waits for it with
/// fence_server_sync.
fn fence_server_signal(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let mut consumer = e.other_context()?;
    let buf = e.buffer(64, ResourceFlags::empty())?;
    step("clear", e.ctx.clear_buffer(&buf, 0, 64, &[3; 4]))?;
    let f = step("flush DEFERRED", e.ctx.flush(FlushFlags::DEFERRED, true))?
        .ok_or_else(|| Outcome::fail("no fence"))?;
    step("fence_server_signal", e.ctx.fence_server_signal(&f))?;
    step("flush", e.ctx.flush(FlushFlags::empty(), false))?;
    if !step(
        "fence_finish",
        e.screen.fence_finish(None, &f, 5_000_000_000),
    )? {
        return Err(Outcome::fail("signalled fence did not complete"));
    }
    step("fence_server_sync", consumer.fence_server_sync(&f))?;
    let got = read_buffer_on(&mut *consumer, &buf, 0, 64)?;
    expect_bytes("consumer sees producer's clear", &got, &[3; 64])
}
both_paths!("pipe.flush.fence_server_signal", fence_server_signal);

/// Every target, every sample count the device has, sRGB: create, write,
/// read back.
fn every_target(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let targets = [
        (Target::Texture1D, 16, 1, 1, 1),
        (Target::Texture1DArray, 16, 1, 1, 3),
        (Target::Texture2D, 8, 8, 1, 1),
        (Target::Texture2DArray, 8, 8, 1, 3),
        (Target::TextureRect, 12, 5, 1, 1),
        (Target::Texture3D, 4, 4, 4, 1),
        (Target::TextureCube, 4, 4, 1, 6),
        (Target::TextureCubeArray, 4, 4, 1, 12),
    ];
    for (target, w, h, d, layers) in targets {
        for format in [
            Format::R8G8B8A8Unorm,
            Format::R8G8B8A8Srgb,
            Format::R16G16B16A16Float,
        ] {
            let mut t = tex_template(target, format, w, h, d, layers, 1);
            t.bind = BindFlags::SAMPLER_VIEW;
            let tex = e.texture(&t)?;
            let nz = t.level_layers(0).unwrap_or(1);
            let bx = PipeBox::new(0, 0, 0, w as i32, h as i32, nz as i32);
            let data = pattern((w * h * nz * format.block_size_bytes()) as usize, 140);
            e.write_texture(&tex, 0, &bx, &data)?;
            e.expect_texture(&tex, 0, &bx, &data, &format!("{} {format}", target.name()))?;
        }
    }
    let counts = e.screen.caps().framebuffer_color_sample_counts;
    for samples in [2u32, 4, 8, 16, 32] {
        if counts & samples == 0 {
            continue;
        }
        let mut t = tex_template(Target::Texture2D, Format::R8G8B8A8Unorm, 4, 4, 1, 1, 1);
        t.bind = BindFlags::RENDER_TARGET | BindFlags::SAMPLER_VIEW;
        t.nr_samples = samples;
        let tex = e.texture(&t)?;
        let clear = [1u8, 2, 3, 4];
        step(
            "clear_texture",
            e.ctx
                .clear_texture(&tex, 0, &PipeBox::rect(0, 0, 4, 4), &clear),
        )?;
        e.expect_texture(
            &tex,
            0,
            &PipeBox::rect(0, 0, 4, 4),
            &clear.repeat(16),
            &format!("{samples}x"),
        )?;
        let part = [9u8, 8, 7, 6];
        step(
            "clear_texture box",
            e.ctx
                .clear_texture(&tex, 0, &PipeBox::rect(1, 1, 2, 2), &part),
        )?;
        let mut want = clear.repeat(16);
        for (x, y) in [(1, 1), (2, 1), (1, 2), (2, 2)] {
            let i = (y * 4 + x) * 4;
            want[i..i + 4].copy_from_slice(&part);
        }
        e.expect_texture(
            &tex,
            0,
            &PipeBox::rect(0, 0, 4, 4),
            &want,
            &format!("{samples}x box"),
        )?;
    }
    Ok(())
}
both_paths!("pipe.resource.every_target", every_target);

/// sRGB: a clear value is linear and stored encoded.
fn srgb_clear(ctx: &mut TestContext, staging: bool) -> R {
    use pipe_core::state::ColorUnion;
    let mut e = env(ctx, staging)?;
    let mut t = tex_template(Target::Texture2D, Format::R8G8B8A8Srgb, 4, 4, 1, 1, 1);
    t.bind = BindFlags::RENDER_TARGET | BindFlags::SAMPLER_VIEW;
    let tex = e.texture(&t)?;
    let s = e.surface(&tex, 0, 0, 0)?;
    let lin = [0.5f32, 0.214_041, 1.0, 0.5];
    clear_surface(&mut e, &s, &ColorUnion::from_f32(lin), [0, 0, 4, 4])?;
    // sRGB encode (the Vulkan spec's formula), alpha stays linear.
    let enc = |c: f32| {
        let v = if c <= 0.003_130_8 {
            c * 12.92
        } else {
            1.055 * c.powf(1.0 / 2.4) - 0.055
        };
        (v * 255.0).round() as u8
    };
    let want = [
        enc(lin[0]),
        enc(lin[1]),
        enc(lin[2]),
        (lin[3] * 255.0).round() as u8,
    ];
    let got = e.read_texture(&tex, 0, &PipeBox::rect(0, 0, 4, 4))?;
    for (i, px) in got.chunks(4).enumerate() {
        for c in 0..4 {
            if px[c].abs_diff(want[c]) > 1 {
                return Err(Outcome::fail(format!(
                    "texel {i} channel {c}: {} vs {}",
                    px[c], want[c]
                )));
            }
        }
    }
    Ok(())
}
both_paths!("pipe.clear.render_target.srgb_encodes", srgb_clear);

/// `clear_texture` of a box of a combined depth/stencil level (layer 1 of
/// a 2D array): both aspects take the native value inside the box, and
/// keep a previous whole-level clear outside. Z24S8 packs depth in the
/// low 24 bits and stencil in the top 8; Z32F_S8X24 is a float then the
/// stencil byte (the 24 padding bits are not compared).
fn clear_texture_combined_box(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let mut tested = 0;
    for (f, outside, inside) in [
        (
            Format::Z24UnormS8Uint,
            0x9a12_3456u32.to_le_bytes().to_vec(),
            0x17ab_cdefu32.to_le_bytes().to_vec(),
        ),
        (
            Format::Z32FloatS8X24Uint,
            {
                let mut v = 0.25f32.to_le_bytes().to_vec();
                v.extend_from_slice(&[0x9a, 0, 0, 0]);
                v
            },
            {
                let mut v = 0.75f32.to_le_bytes().to_vec();
                v.extend_from_slice(&[0x17, 0, 0, 0]);
                v
            },
        ),
    ] {
        let ds = BindFlags::DEPTH_STENCIL;
        if !e
            .screen
            .is_format_supported(f, Target::Texture2DArray, 1, 1, ds)
        {
            continue;
        }
        tested += 1;
        let mut t = tex_template(Target::Texture2DArray, f, 8, 8, 1, 2, 1);
        t.bind = ds;
        let tex = e.texture(&t)?;
        let whole = PipeBox::new(0, 0, 0, 8, 8, 2);
        step(
            "clear_texture(whole)",
            e.ctx.clear_texture(&tex, 0, &whole, &outside),
        )?;
        let bx = PipeBox::new(2, 1, 1, 4, 3, 1);
        step(
            "clear_texture(box)",
            e.ctx.clear_texture(&tex, 0, &bx, &inside),
        )?;
        let got = e.read_texture(&tex, 0, &whole)?;
        let n = outside.len();
        // Bytes compared per texel: all of Z24S8, the float and the
        // stencil byte of Z32F_S8X24.
        let cmp = if n == 8 { 5 } else { 4 };
        for z in 0..2 {
            for y in 0..8 {
                for x in 0..8 {
                    let i = ((z * 8 + y) * 8 + x) * n;
                    let in_box = z == 1 && (1..4).contains(&y) && (2..6).contains(&x);
                    let want = if in_box { &inside } else { &outside };
                    if got[i..i + cmp] != want[..cmp] {
                        return Err(Outcome::fail(format!(
                            "{f} layer {z} ({x},{y}): {:?}, expected {:?}",
                            &got[i..i + cmp],
                            &want[..cmp]
                        )));
                    }
                }
            }
        }
    }
    if tested == 0 {
        return Err(Outcome::fail(
            "no combined depth/stencil format is supported",
        ));
    }
    Ok(())
}
both_paths!(
    "pipe.clear.texture.combined_depth_stencil_box",
    clear_texture_combined_box
);

/// A re-usable fence between two contexts (spec: "Fences"): each frame the
/// producer writes a buffer, signals and flushes; `fence_finish` sees the
/// fence signalled (and does not reset it); the consumer's
/// `fence_server_sync` waits and resets it. Waits with no flushed signal
/// are refused: on one queue they could never finish.
fn reusable_fence(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let mut consumer = e.other_context()?;
    let f = step("create_reusable_fence", e.screen.create_reusable_fence())?;
    if !f.desc().reusable {
        return Err(Outcome::fail("the fence is not marked re-usable"));
    }
    let finish = |e: &crate::harness::Env, f: &pipe_core::screen::Fence, t: u64| {
        step("fence_finish", e.screen.fence_finish(None, f, t))
    };
    if finish(&e, &f, 0)? {
        return Err(Outcome::fail("a new re-usable fence is signalled"));
    }
    if consumer.fence_server_sync(&f).is_ok() {
        return Err(Outcome::fail("fence_server_sync with no signal succeeded"));
    }
    let buf = e.buffer(64, ResourceFlags::empty())?;
    let seen = e.buffer(64, ResourceFlags::empty())?;
    for frame in 1..=3u8 {
        step("produce", e.ctx.clear_buffer(&buf, 0, 64, &[frame; 4]))?;
        step("fence_server_signal", e.ctx.fence_server_signal(&f))?;
        step("flush", e.ctx.flush(FlushFlags::empty(), false))?;
        for _ in 0..2 {
            if !finish(&e, &f, 5_000_000_000)? {
                return Err(Outcome::fail(format!("frame {frame}: fence not signalled")));
            }
        }
        step("fence_server_sync", consumer.fence_server_sync(&f))?;
        if finish(&e, &f, 0)? {
            return Err(Outcome::fail(format!(
                "frame {frame}: fence still signalled after the consumer's wait"
            )));
        }
        copy_buffer_on(&mut *consumer, &seen, 0, &buf, 0, 64)?;
        let got = read_buffer_on(&mut *consumer, &seen, 0, 64)?;
        expect_bytes(&format!("frame {frame}"), &got, &[frame; 64])?;
    }
    // A signal not flushed yet: the wait is refused; fence_finish with the
    // producer's context flushes it.
    step("fence_server_signal", e.ctx.fence_server_signal(&f))?;
    match consumer.fence_server_sync(&f) {
        Err(PipeError::InvalidArgument(_)) => {}
        other => {
            return Err(Outcome::fail(format!(
                "wait on an unflushed signal: expected InvalidArgument, got {other:?}"
            )))
        }
    }
    if !step(
        "fence_finish(producer)",
        e.screen.fence_finish(Some(&mut *e.ctx), &f, 5_000_000_000),
    )? {
        return Err(Outcome::fail("fence_finish did not flush the signal"));
    }
    // Two signals pair with two waits, then none is left.
    step("fence_server_signal 2", e.ctx.fence_server_signal(&f))?;
    step("flush", e.ctx.flush(FlushFlags::empty(), false))?;
    step("sync 1", consumer.fence_server_sync(&f))?;
    step("sync 2", consumer.fence_server_sync(&f))?;
    if consumer.fence_server_sync(&f).is_ok() {
        return Err(Outcome::fail("a third wait found a signal"));
    }
    step("consumer flush", consumer.flush(FlushFlags::empty(), false))?;
    Ok(())
}
both_paths!(
    "pipe.flush.reusable_fence.producer_consumer",
    reusable_fence
);

/// Copies `src` into `dst` in `consumer` and reads `dst` back there (a
/// consumer's use of what a producer wrote).
fn consume(
    consumer: &mut dyn pipe_core::Context,
    src: &pipe_core::resource::Resource,
    dst: &pipe_core::resource::Resource,
) -> Result<Vec<u8>, Outcome> {
    let size = src.desc().width0;
    step(
        "consume",
        consumer.resource_copy_region(dst, 0, 0, 0, 0, src, 0, &PipeBox::range(0, size)),
    )?;
    let m = step(
        "consumer map",
        consumer.transfer_map(dst, 0, MapFlags::READ, &PipeBox::range(0, size)),
    )?;
    let got = m.to_vec();
    step("unmap", consumer.transfer_unmap(m))?;
    Ok(got)
}

/// A re-usable fence signalled and waited on by one context (spec:
/// "Fences": the implementation "may implicitly flush the command stream
/// during a fence_server_sync"): the wait flushes the batch holding the
/// signal and consumes it, where it used to be refused, and the next
/// batch, which waits for that signal, completes. `fence_finish` with the
/// context flushes a signal it holds, and the context's wait then takes it.
fn reusable_fence_same_context(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let f = step("create_reusable_fence", e.screen.create_reusable_fence())?;
    let buf = e.buffer(64, ResourceFlags::empty())?;
    step("clear", e.ctx.clear_buffer(&buf, 0, 64, &[1; 4]))?;
    step("fence_server_signal", e.ctx.fence_server_signal(&f))?;
    step(
        "fence_server_sync on the signalling context",
        e.ctx.fence_server_sync(&f),
    )?;
    if step("poll", e.screen.fence_finish(None, &f, 0))? {
        return Err(Outcome::fail(
            "the fence is still signalled after its only signal was waited for",
        ));
    }
    step("clear", e.ctx.clear_buffer(&buf, 0, 4, &[2; 4]))?;
    let g = step("flush", e.ctx.flush(FlushFlags::empty(), true))?
        .ok_or_else(|| Outcome::fail("no fence"))?;
    if !step(
        "fence_finish",
        e.screen.fence_finish(None, &g, 5_000_000_000),
    )? {
        return Err(Outcome::fail(
            "the batch waiting for its own context's signal did not complete",
        ));
    }
    expect_bytes(
        "both clears",
        &e.read_buffer(&buf, 0, 8)?,
        &[2, 2, 2, 2, 1, 1, 1, 1],
    )?;
    step("clear", e.ctx.clear_buffer(&buf, 0, 64, &[3; 4]))?;
    step("fence_server_signal", e.ctx.fence_server_signal(&f))?;
    if !step(
        "fence_finish(signalling context)",
        e.screen.fence_finish(Some(&mut *e.ctx), &f, 5_000_000_000),
    )? {
        return Err(Outcome::fail(
            "fence_finish did not flush the context's signal",
        ));
    }
    step("fence_server_sync", e.ctx.fence_server_sync(&f))?;
    if e.ctx.fence_server_sync(&f).is_ok() {
        return Err(Outcome::fail("a second wait found a signal"));
    }
    expect_bytes("third clear", &e.read_buffer(&buf, 0, 64)?, &[3; 64])
}
both_paths!(
    "pipe.flush.reusable_fence.same_context",
    reusable_fence_same_context
);

/// One-shot deferred fences and the contexts holding their signals (spec:
/// `PIPE_FLUSH_DEFERRED`, "Fences"): the creating context's own
/// `fence_server_sync` flushes the deferred batch instead of being
/// refused; `fence_finish` with the context that `fence_server_signal`ed
/// the fence flushes that signal; and once signalled, the fence stays
/// signalled when its creator's later submission comes.
fn deferred_fence_holders(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let mut other = step("second context", e.screen.clone().context_create())?;
    let buf = e.buffer(64, ResourceFlags::empty())?;
    step("clear", e.ctx.clear_buffer(&buf, 0, 64, &[4; 4]))?;
    let df = step("flush DEFERRED", e.ctx.flush(FlushFlags::DEFERRED, true))?
        .ok_or_else(|| Outcome::fail("no deferred fence"))?;
    step(
        "fence_server_sync on the creating context",
        e.ctx.fence_server_sync(&df),
    )?;
    if !step(
        "fence_finish",
        e.screen.fence_finish(None, &df, 5_000_000_000),
    )? {
        return Err(Outcome::fail("the wait did not flush the deferred batch"));
    }
    step("clear", e.ctx.clear_buffer(&buf, 0, 64, &[5; 4]))?;
    let df2 = step("flush DEFERRED", e.ctx.flush(FlushFlags::DEFERRED, true))?
        .ok_or_else(|| Outcome::fail("no deferred fence"))?;
    step("fence_server_signal", other.fence_server_signal(&df2))?;
    if !step(
        "fence_finish(signalling context)",
        e.screen
            .fence_finish(Some(&mut *other), &df2, 5_000_000_000),
    )? {
        return Err(Outcome::fail(
            "fence_finish with the signalling context did not flush its signal",
        ));
    }
    step("flush", e.ctx.flush(FlushFlags::empty(), false))?;
    if !step("poll", e.screen.fence_finish(None, &df2, 0))? {
        return Err(Outcome::fail(
            "a signalled one-shot fence became unsignalled at its creator's flush",
        ));
    }
    expect_bytes("second clear", &e.read_buffer(&buf, 0, 64)?, &[5; 64])
}
both_paths!(
    "pipe.flush.deferred_fence.signal_holders",
    deferred_fence_holders
);

/// `fence_finish` with a context holding a re-usable fence's signal,
/// while another context holds an earlier signal it has not flushed: the
/// call flushes its context's signal and sees it (before, it waited for
/// the other context's, which with an infinite timeout never returned).
/// `fence_finish` does not consume the signal.
fn reusable_fence_finish_holder(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let mut early = step("second context", e.screen.clone().context_create())?;
    let f = step("create_reusable_fence", e.screen.create_reusable_fence())?;
    let buf = e.buffer(64, ResourceFlags::empty())?;
    step("earlier signal", early.fence_server_signal(&f))?;
    step("clear", e.ctx.clear_buffer(&buf, 0, 64, &[6; 4]))?;
    step("fence_server_signal", e.ctx.fence_server_signal(&f))?;
    if !step(
        "fence_finish(holder)",
        e.screen.fence_finish(Some(&mut *e.ctx), &f, 5_000_000_000),
    )? {
        return Err(Outcome::fail(
            "fence_finish with the context holding a signal did not see it",
        ));
    }
    if !step("poll", e.screen.fence_finish(None, &f, 0))? {
        return Err(Outcome::fail("fence_finish consumed the signal"));
    }
    step("flush early", early.flush(FlushFlags::empty(), false))?;
    expect_bytes("clear", &e.read_buffer(&buf, 0, 64)?, &[6; 64])
}
both_paths!(
    "pipe.flush.reusable_fence.finish_flushes_holder",
    reusable_fence_finish_holder
);

/// A re-usable fence's signal queued first by a context that has not
/// flushed it does not hold back a later signal another context has
/// submitted (spec: "Fences": a fence "becomes signaled" on the GPU, and
/// an unflushed signal has not been emitted): `fence_finish` sees the
/// submitted one and the consumer's wait takes it. With only the
/// unflushed signal left, a poll returns false at once and a wait is
/// refused; once flushed, that signal pairs with the next wait.
fn reusable_fence_unflushed_first(ctx: &mut TestContext, staging: bool) -> R {
    let mut e = env(ctx, staging)?;
    let mut early = step("second context", e.screen.clone().context_create())?;
    let mut consumer = step("third context", e.screen.clone().context_create())?;
    let f = step("create_reusable_fence", e.screen.create_reusable_fence())?;
    let early_buf = e.buffer(64, ResourceFlags::empty())?;
    let buf = e.buffer(64, ResourceFlags::empty())?;
    let seen = e.buffer(64, ResourceFlags::empty())?;
    step(
        "early clear",
        early.clear_buffer(&early_buf, 0, 64, &[9; 4]),
    )?;
    step("early signal", early.fence_server_signal(&f))?;
    step("clear", e.ctx.clear_buffer(&buf, 0, 64, &[7; 4]))?;
    step("fence_server_signal", e.ctx.fence_server_signal(&f))?;
    step("flush", e.ctx.flush(FlushFlags::empty(), false))?;
    if !step(
        "fence_finish",
        e.screen.fence_finish(None, &f, 5_000_000_000),
    )? {
        return Err(Outcome::fail(
            "a submitted signal behind another context's unflushed one was not seen",
        ));
    }
    step("fence_server_sync", consumer.fence_server_sync(&f))?;
    expect_bytes(
        "consumer sees the submitted signal's data",
        &consume(&mut *consumer, &buf, &seen)?,
        &[7; 64],
    )?;
    let t = std::time::Instant::now();
    if step("poll", e.screen.fence_finish(None, &f, 0))? {
        return Err(Outcome::fail(
            "the fence is signalled with only an unflushed signal left",
        ));
    }
    if t.elapsed() > std::time::Duration::from_secs(1) {
        return Err(Outcome::fail(format!(
            "fence_finish with timeout 0 took {:?}",
            t.elapsed()
        )));
    }
    match consumer.fence_server_sync(&f) {
        Err(PipeError::InvalidArgument(_)) => {}
        other => {
            return Err(Outcome::fail(format!(
                "wait on another context's unflushed signal not refused: {other:?}"
            )))
        }
    }
    step("early flush", early.flush(FlushFlags::empty(), false))?;
    step("fence_server_sync 2", consumer.fence_server_sync(&f))?;
    expect_bytes(
        "consumer sees the early signal's data",
        &consume(&mut *consumer, &early_buf, &seen)?,
        &[9; 64],
    )?;
    if consumer.fence_server_sync(&f).is_ok() {
        return Err(Outcome::fail("a third wait found a signal"));
    }
    step("consumer flush", consumer.flush(FlushFlags::empty(), false))?;
    Ok(())
}
both_paths!(
    "pipe.flush.reusable_fence.unflushed_signal_first",
    reusable_fence_unflushed_first
);
