#!/usr/bin/env python3
"""Writes tests/corpus/*.ir from the sources below: symbolic value names
(%name) are renumbered %0, %1, … in order of first appearance. Run from the
crate root; `pipe-spirv fmt` is the canonical printer (the corpus test checks
that every file is canonical)."""
import re, os, sys

S = {}
KEYS = {}

def sh(name, text, *keys):
    S[name] = text
    if keys:
        KEYS[name] = keys

# ---------------- vertex ----------------
sh("vs_basic", """shader vertex
in @pos : f32x4 location=0
in @color : f32x4 location=1
out @gl_pos : f32x4 builtin=position
out @vcolor : f32x4 location=0 slot=col0
fn main {
  %p : f32x4 = load @pos
  store @gl_pos, %p
  %c : f32x4 = load @color
  store @vcolor, %c
}
""", "clip=0x5", "smooth_lines=1.0", "point_size=2.0", "clip=0xff,point_size=1.0")

sh("vs_ubo_transform", """shader vertex
in @pos : f32x3 location=0
out @gl_pos : f32x4 builtin=position invariant
ubo @mvp slot=0 size=64
fn main {
  %p : f32x3 = load @pos
  %one : f32 = const 1.0
  %p4 : f32x4 = vec %p, %one
  %o0 : u32 = const 0
  %o1 : u32 = const 16
  %o2 : u32 = const 32
  %o3 : u32 = const 48
  %r0 : f32x4 = load_ubo @mvp, %o0
  %r1 : f32x4 = load_ubo @mvp, %o1
  %r2 : f32x4 = load_ubo @mvp, %o2
  %r3 : f32x4 = load_ubo @mvp, %o3
  %x : f32 = fdot %r0, %p4
  %y : f32 = fdot %r1, %p4
  %z : f32 = fdot %r2, %p4
  %w : f32 = fdot %r3, %p4
  %v : f32x4 = vec %x, %y, %z, %w
  store @gl_pos, %v
}
""", "inline=0:1065353216,inline=4:0,inline=8:0,inline=12:0", "clip=0x1")

sh("vs_builtins", """shader vertex
in @vid : i32 builtin=vertex_index
in @iid : i32 builtin=instance_index
in @bv : i32 builtin=base_vertex
in @bi : i32 builtin=base_instance
in @did : i32 builtin=draw_index
out @gl_pos : f32x4 builtin=position
out @psize : f32 builtin=point_size
out @ids : i32x4 location=0 flat
fn main {
  %v : i32 = load @vid
  %i : i32 = load @iid
  %b : i32 = load @bv
  %bi : i32 = load @bi
  %d : i32 = load @did
  %rel : i32 = isub %v, %b
  %ids : i32x4 = vec %rel, %i, %bi, %d
  store @ids, %ids
  %f : f32 = i2f %rel
  %z : f32 = const 0.0
  %one : f32 = const 1.0
  %p : f32x4 = vec %f, %z, %z, %one
  store @gl_pos, %p
  store @psize, %one
}
""", "point_size=4.0,aliased_points=64.0", "point_size=4.0,aliased_points=64.0,smooth_points", "point_size=4.0")

sh("vs_vertex_fixups", """shader vertex
in @a : f32x4 location=0
in @b : f32x4 location=1
in @c : f32x3 location=2
in @d : f32x4 location=3
in @e : f32x2 location=4
out @gl_pos : f32x4 builtin=position
out @o : f32x4 location=0
fn main {
  %a : f32x4 = load @a
  %b : f32x4 = load @b
  %c : f32x3 = load @c
  %d : f32x4 = load @d
  %e : f32x2 = load @e
  %ab : f32x4 = fadd %a, %b
  %one : f32 = const 1.0
  %c4 : f32x4 = vec %c, %one
  %abc : f32x4 = fadd %ab, %c4
  %abcd : f32x4 = fadd %abc, %d
  store @gl_pos, %abcd
  %e4 : f32x4 = vec %e, %e
  store @o, %e4
}
""", "vfetch=0:swap_rb,vfetch=1:a2b10g10r10_unorm,vfetch=2:uscaled,vfetch=3:a2b10g10r10_snorm,vfetch=4:sscaled",
   "vfetch=2:a2b10g10r10_snorm,vfetch=4:swap_rb")

sh("vs_cull_layer_outputs", """shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
out @cull : f32[2] builtin=cull_distance
out @clipd : f32[1] builtin=clip_distance
out @n : f32x3 location=0 noperspective
out @k : u32 location=1 flat
out @k2 : f32x2 location=1 component=2
fn main {
  %p : f32x4 = load @pos
  store @gl_pos, %p
  %i0 : i32 = const 0
  %i1 : i32 = const 1
  %x : f32 = swizzle %p, x
  %y : f32 = swizzle %p, y
  store @cull, %i0, %x
  store @cull, %i1, %y
  store @clipd, %i0, %x
  %n : f32x3 = swizzle %p, xyz
  %nn : f32x3 = fnormalize %n
  store @n, %nn
  %k : u32 = const 7
  store @k, %k
  %k2 : f32x2 = swizzle %p, zw
  store @k2, %k2
}
""")

sh("vs_int_math", """shader vertex
in @vid : i32 builtin=vertex_index
out @gl_pos : f32x4 builtin=position
out @o : u32x4 location=0 flat
fn main {
  %v : i32 = load @vid
  %u : u32 = bitcast %v
  %three : u32 = const 3
  %a : u32 = umod %u, %three
  %b : u32 = udiv %u, %three
  %c : u32 = imul %a, %b
  %d : u32 = ishl %c, %three
  %e : u32 = ushr %d, %three
  %f : u32 = umin %e, %a
  %g : u32 = umax %f, %b
  %h : u32 = uclamp %g, %a, %b
  %i : u32 = iand %h, %three
  %j : u32 = ior %i, %c
  %k : u32 = ixor %j, %d
  %l : u32 = inot %k
  %o : u32x4 = vec %h, %j, %k, %l
  store @o, %o
  %s3 : i32 = const -3
  %sa : i32 = idiv %v, %s3
  %sb : i32 = irem %v, %s3
  %sc : i32 = imod %v, %s3
  %sd : i32 = ineg %sa
  %se : i32 = iabs %sb
  %sf : i32 = isign %sc
  %sg : i32 = imin %sd, %se
  %sh : i32 = imax %sg, %sf
  %si : i32 = iclamp %sh, %s3, %v
  %sj : i32 = ishr %si, %v
  %f0 : f32 = i2f %sj
  %f1 : f32 = u2f %l
  %z : f32 = const 0.0
  %p : f32x4 = vec %f0, %f1, %z, %z
  store @gl_pos, %p
}
""")

# ---------------- tessellation ----------------
sh("tcs_basic", """shader tess_ctrl vertices=3
in @pos : f32x4[32] builtin=position
in @iid : i32 builtin=invocation_id
in @pv : i32 builtin=patch_vertices
in @prim : i32 builtin=primitive_id
in @col : f32x4[32] location=0
out @opos : f32x4[3] builtin=position
out @ocol : f32x4[3] location=0
out @outer : f32[4] builtin=tess_level_outer
out @inner : f32[2] builtin=tess_level_inner
out @pdata : f32x4 location=1 patch
push @pc size=64
fn main {
  %i : i32 = load @iid
  %p : f32x4 = load @pos, %i
  store @opos, %i, %p
  %c : f32x4 = load @col, %i
  store @ocol, %i, %c
  %zero : i32 = const 0
  %first : bool = ieq %i, %zero
  if %first {
    %off : u32 = const 16
    %lv : f32x4 = load_push @pc, %off
    %l0 : f32 = swizzle %lv, x
    %l1 : f32 = swizzle %lv, y
    %l2 : f32 = swizzle %lv, z
    %i1 : i32 = const 1
    %i2 : i32 = const 2
    store @outer, %zero, %l0
    store @outer, %i1, %l1
    store @outer, %i2, %l2
    store @inner, %zero, %l0
    %pv : i32 = load @pv
    %pr : i32 = load @prim
    %fpv : f32 = i2f %pv
    %fpr : f32 = i2f %pr
    %pd : f32x4 = vec %fpv, %fpr, %l0, %l1
    store @pdata, %pd
  }
  barrier exec=workgroup, mem=invocation, modes=none
}
""")

sh("tcs_quads", """shader tess_ctrl vertices=4
in @pos : f32x4[32] builtin=position
in @iid : i32 builtin=invocation_id
out @opos : f32x4[4] builtin=position
out @outer : f32[4] builtin=tess_level_outer
out @inner : f32[2] builtin=tess_level_inner
fn main {
  %i : i32 = load @iid
  %p : f32x4 = load @pos, %i
  %two : f32 = const 2.0
  %p2 : f32x4 = fmul %p, %p
  store @opos, %i, %p2
  %lvl : f32 = const 4.0
  store @outer, %i, %lvl
  %one : i32 = const 1
  %lt : bool = ilt %i, %one
  if %lt {
    store @inner, %i, %two
    store @inner, %one, %two
  }
}
""")

sh("tes_triangles", """shader tess_eval mode=triangles spacing=equal winding=ccw
in @pos : f32x4[32] builtin=position
in @tc : f32x3 builtin=tess_coord
in @col : f32x4[32] location=0
in @pdata : f32x4 location=1 patch
in @outer : f32[4] builtin=tess_level_outer
in @inner : f32[2] builtin=tess_level_inner
out @gl_pos : f32x4 builtin=position
out @vcol : f32x4 location=0
fn main {
  %tc : f32x3 = load @tc
  %i0 : i32 = const 0
  %i1 : i32 = const 1
  %i2 : i32 = const 2
  %p0 : f32x4 = load @pos, %i0
  %p1 : f32x4 = load @pos, %i1
  %p2 : f32x4 = load @pos, %i2
  %u : f32 = swizzle %tc, x
  %v : f32 = swizzle %tc, y
  %w : f32 = swizzle %tc, z
  %u4 : f32x4 = vec %u, %u, %u, %u
  %v4 : f32x4 = vec %v, %v, %v, %v
  %w4 : f32x4 = vec %w, %w, %w, %w
  %a : f32x4 = fmul %p0, %u4
  %b : f32x4 = ffma %p1, %v4, %a
  %c : f32x4 = ffma %p2, %w4, %b
  store @gl_pos, %c
  %c0 : f32x4 = load @col, %i0
  %pd : f32x4 = load @pdata
  %o : f32 = load @outer, %i0
  %in : f32 = load @inner, %i0
  %s : f32 = fadd %o, %in
  %s4 : f32x4 = vec %s, %s, %s, %s
  %cc : f32x4 = ffma %c0, %pd, %s4
  store @vcol, %cc
}
""", "clip=0x3", "point_size=1.0")

sh("tes_quads_fractional", """shader tess_eval mode=quads spacing=fractional_odd winding=cw
in @pos : f32x4[32] builtin=position
in @tc : f32x3 builtin=tess_coord
in @prim : i32 builtin=primitive_id
in @pv : i32 builtin=patch_vertices
out @gl_pos : f32x4 builtin=position
fn main {
  %tc : f32x3 = load @tc
  %i0 : i32 = const 0
  %i1 : i32 = const 1
  %i2 : i32 = const 2
  %i3 : i32 = const 3
  %p0 : f32x4 = load @pos, %i0
  %p1 : f32x4 = load @pos, %i1
  %p2 : f32x4 = load @pos, %i2
  %p3 : f32x4 = load @pos, %i3
  %u : f32 = swizzle %tc, x
  %v : f32 = swizzle %tc, y
  %u4 : f32x4 = vec %u, %u, %u, %u
  %v4 : f32x4 = vec %v, %v, %v, %v
  %a : f32x4 = flrp %p0, %p1, %u4
  %b : f32x4 = flrp %p3, %p2, %u4
  %c : f32x4 = flrp %a, %b, %v4
  store @gl_pos, %c
}
""")

sh("tes_isolines_points", """shader tess_eval mode=isolines spacing=fractional_even winding=ccw point_mode
in @pos : f32x4[32] builtin=position
in @tc : f32x3 builtin=tess_coord
out @gl_pos : f32x4 builtin=position
fn main {
  %tc : f32x3 = load @tc
  %i0 : i32 = const 0
  %p0 : f32x4 = load @pos, %i0
  %u : f32 = swizzle %tc, x
  %u4 : f32x4 = vec %u, %u, %u, %u
  %p : f32x4 = fmul %p0, %u4
  store @gl_pos, %p
}
""", "point_size=3.0")

# ---------------- geometry ----------------
sh("gs_passthrough", """shader geometry input=triangles output=triangle_strip max_vertices=3 invocations=1
in @pos : f32x4[3] builtin=position
in @col : f32x4[3] location=0
out @gl_pos : f32x4 builtin=position
out @ocol : f32x4 location=0
fn main {
  %n : i32 = const 0
  %one : i32 = const 1
  %three : i32 = const 3
  %i : i32 = undef
  loop {
    %z : i32 = const 0
    break
  }
  %p0 : f32x4 = load @pos, %n
  store @gl_pos, %p0
  %c0 : f32x4 = load @col, %n
  store @ocol, %c0
  emit_vertex
  %p1 : f32x4 = load @pos, %one
  store @gl_pos, %p1
  %c1 : f32x4 = load @col, %one
  store @ocol, %c1
  emit_vertex
  %two : i32 = const 2
  %p2 : f32x4 = load @pos, %two
  store @gl_pos, %p2
  %c2 : f32x4 = load @col, %two
  store @ocol, %c2
  emit_vertex
  end_primitive
}
""", "point_size=2.0,aliased_points=64.0", "clip=0x1,point_size=1.0")

sh("gs_layered_loop", """shader geometry input=triangles_adjacency output=line_strip max_vertices=12 invocations=4
in @pos : f32x4[6] builtin=position
in @inv : i32 builtin=invocation_id
in @prim : i32 builtin=primitive_id
out @gl_pos : f32x4 builtin=position
out @layer : i32 builtin=layer
out @vp : i32 builtin=viewport_index
out @oprim : i32 builtin=primitive_id
local @i : i32
fn main {
  %zero : i32 = const 0
  store @i, %zero
  %inv : i32 = load @inv
  loop {
    %k : i32 = load @i
    %six : i32 = const 6
    %done : bool = ige %k, %six
    if %done {
      break
    }
    %p : f32x4 = load @pos, %k
    store @gl_pos, %p
    store @layer, %inv
    store @vp, %zero
    %pr : i32 = load @prim
    store @oprim, %pr
    emit_vertex
    %two : i32 = const 2
    %k2 : i32 = iadd %k, %two
    store @i, %k2
  }
  end_primitive
}
""", "clip=0x2")

sh("gs_points_streams", """shader geometry input=points output=points max_vertices=2 invocations=1
in @pos : f32x4[1] builtin=position
out @gl_pos : f32x4 builtin=position
out @psize : f32 builtin=point_size
fn main {
  %z : i32 = const 0
  %p : f32x4 = load @pos, %z
  store @gl_pos, %p
  %s : f32 = const 4.0
  store @psize, %s
  emit_vertex
  end_primitive
  store @gl_pos, %p
  emit_vertex stream=1
  end_primitive stream=1
}
""")

sh("gs_lines", """shader geometry input=lines output=line_strip max_vertices=4 invocations=2
in @pos : f32x4[2] builtin=position
in @col : f32x4[2] location=0 flat
out @gl_pos : f32x4 builtin=position
out @ocol : f32x4 location=0 flat
fn main {
  %z : i32 = const 0
  %o : i32 = const 1
  %p0 : f32x4 = load @pos, %z
  %p1 : f32x4 = load @pos, %o
  %c : f32x4 = load @col, %z
  store @gl_pos, %p0
  store @ocol, %c
  emit_vertex
  %m : f32x4 = fadd %p0, %p1
  %h : f32 = const 0.5
  %h4 : f32x4 = vec %h, %h, %h, %h
  %mid : f32x4 = fmul %m, %h4
  store @gl_pos, %mid
  store @ocol, %c
  emit_vertex
  store @gl_pos, %p1
  store @ocol, %c
  emit_vertex
  end_primitive
}
""", "smooth_lines=2.0", "point_size=1.0")

# ---------------- fragment ----------------
FS_HEAD = "shader fragment\n"
sh("fs_color_passthrough", """shader fragment
in @col : f32x4 location=0 slot=col0
in @col1 : f32x4 location=1 slot=col1
out @frag : f32x4 location=0
fn main {
  %c : f32x4 = load @col
  %c1 : f32x4 = load @col1
  %s : f32x4 = fadd %c, %c1
  store @frag, %s
}
""", "two_side", "smooth_lines=1.5,alpha=less:0.5", "flat", "two_side,flat,sample_shading",
   "alpha=never:0.0", "alpha=less:0.5", "alpha=equal:0.5", "alpha=lequal:0.5",
   "alpha=greater:0.5", "alpha=notequal:0.5", "alpha=gequal:0.5", "alpha=always:0.5")

sh("fs_alpha_with_returns", """shader fragment
in @col : f32x4 location=0 slot=col0
in @uv : f32x2 location=1
out @frag : f32x4 location=0
fn main {
  %c : f32x4 = load @col
  store @frag, %c
  %u : f32 = swizzle %uv_load, x
  return
}
""".replace("%uv_load", "%c"), "alpha=greater:0.25")

sh("fs_sprite", """shader fragment
in @tc0 : f32x4 location=0 slot=tex0
in @tc1 : f32x2 location=1 slot=tex1
in @tc3 : f32x3 location=2 slot=tex3
out @frag : f32x4 location=0
fn main {
  %a : f32x4 = load @tc0
  %b : f32x2 = load @tc1
  %c : f32x3 = load @tc3
  %b4 : f32x4 = vec %b, %b
  %one : f32 = const 1.0
  %c4 : f32x4 = vec %c, %one
  %s : f32x4 = fadd %a, %b4
  %t : f32x4 = fadd %s, %c4
  store @frag, %t
}
""", "sprite=0x1", "sprite=0xb,sprite_upper_left,aliased_points=64.0", "sprite=0x1,aliased_points=64.0,smooth_points", "sprite=0x1,round_points=16", "sprite=0x2,sample_shading")

sh("fs_builtins", """shader fragment
in @fc : f32x4 builtin=frag_coord
in @ff : bool builtin=front_facing
in @pc : f32x2 builtin=point_coord
in @prim : i32 builtin=primitive_id
in @layer : i32 builtin=layer
in @vp : i32 builtin=viewport_index
in @clipd : f32[2] builtin=clip_distance
out @frag : f32x4 location=0
out @depth : f32 builtin=frag_depth
fn main {
  %fc : f32x4 = load @fc
  %ff : bool = load @ff
  %pc : f32x2 = load @pc
  %z : f32 = swizzle %fc, z
  %one : f32 = const 1.0
  %zero : f32 = const 0.0
  %f : f32 = bcsel %ff, %one, %zero
  %pr : i32 = load @prim
  %l : i32 = load @layer
  %v : i32 = load @vp
  %s : i32 = iadd %pr, %l
  %s2 : i32 = iadd %s, %v
  %sf : f32 = i2f %s2
  %i0 : i32 = const 0
  %cd : f32 = load @clipd, %i0
  %col : f32x4 = vec %pc, %f, %sf
  %col2 : f32x4 = vec %cd, %cd, %cd, %cd
  %sum : f32x4 = fadd %col, %col2
  store @frag, %sum
  store @depth, %z
}
""")

sh("fs_sample_builtins", """shader fragment
in @sid : i32 builtin=sample_id
in @spos : f32x2 builtin=sample_pos
in @smask : i32[1] builtin=sample_mask
in @v : f32x4 location=0 centroid
in @w : f32x4 location=1 sample
out @frag : f32x4 location=0
out @omask : i32[1] builtin=sample_mask
out @stencil : i32 builtin=frag_stencil_ref
fn main {
  %s : i32 = load @sid
  %p : f32x2 = load @spos
  %i0 : i32 = const 0
  %m : i32 = load @smask, %i0
  store @omask, %i0, %m
  store @stencil, %s
  %v : f32x4 = load @v
  %w : f32x4 = load @w
  %a : f32x4 = fadd %v, %w
  %px : f32 = swizzle %p, x
  %a2 : f32x4 = insert %a, %px, 0
  store @frag, %a2
}
""", "round_points=4", "sample_shading")

sh("fs_float_alu", """shader fragment
in @a : f32x4 location=0
in @b : f32x4 location=1
out @frag : f32x4 location=0
fn main {
  %a : f32x4 = load @a
  %b : f32x4 = load @b
  %c1 : f32x4 = fadd %a, %b
  %c2 : f32x4 = fsub %c1, %b
  %c3 : f32x4 = fmul %c2, %a
  %c4 : f32x4 = fdiv %c3, %b
  %c5 : f32x4 = fmod %c4, %b
  %c6 : f32x4 = fneg %c5
  %c7 : f32x4 = fabs %c6
  %c8 : f32x4 = fsign %c7
  %c9 : f32x4 = ffloor %c8
  %c10 : f32x4 = fceil %c9
  %c11 : f32x4 = ftrunc %c10
  %c12 : f32x4 = fround_even %c11
  %c13 : f32x4 = ffract %c12
  %c14 : f32x4 = fmin %c13, %a
  %c15 : f32x4 = fmax %c14, %b
  %c16 : f32x4 = fclamp %c15, %a, %b
  %c17 : f32x4 = fsat %c16
  %c18 : f32x4 = ffma %c17, %a, %b
  %c19 : f32x4 = flrp %c18, %a, %b
  %c20 : f32x4 = fstep %c19, %a
  %c21 : f32x4 = fsmoothstep %a, %b, %c20
  %c22 : f32x4 = frcp %c21
  %c23 : f32x4 = frsq %c22
  %c24 : f32x4 = fsqrt %c23
  %c25 : f32x4 = fnormalize %c24
  %len : f32 = flength %c25
  %dist : f32 = fdistance %a, %b
  %dot : f32 = fdot %a, %b
  %a3 : f32x3 = swizzle %a, xyz
  %b3 : f32x3 = swizzle %b, zyx
  %cr : f32x3 = fcross %a3, %b3
  %e : i32x4 = const 1, 2, 3, 4
  %ld : f32x4 = fldexp %c25, %e
  %r : f32x4 = vec %len, %dist, %dot, %len
  %r2 : f32x4 = fadd %r, %ld
  %crx : f32 = swizzle %cr, x
  %r3 : f32x4 = insert %r2, %crx, 2
  store @frag, %r3
}
""")

sh("fs_transcendental", """shader fragment
in @a : f32x4 location=0
out @frag : f32x4 location=0
fn main {
  %a : f32x4 = load @a
  %s : f32x4 = fsin %a
  %c : f32x4 = fcos %s
  %t : f32x4 = ftan %c
  %as : f32x4 = fasin %t
  %ac : f32x4 = facos %as
  %at : f32x4 = fatan %ac
  %at2 : f32x4 = fatan2 %at, %a
  %sh : f32x4 = fsinh %at2
  %ch : f32x4 = fcosh %sh
  %th : f32x4 = ftanh %ch
  %e : f32x4 = fexp %th
  %e2 : f32x4 = fexp2 %e
  %l : f32x4 = flog %e2
  %l2 : f32x4 = flog2 %l
  %p : f32x4 = fpow %l2, %a
  store @frag, %p
}
""")

sh("fs_compare_select", """shader fragment
in @a : f32x4 location=0
in @b : f32x4 location=1
in @i : i32x4 location=2 flat
in @u : u32x2 location=3 flat
out @frag : f32x4 location=0
fn main {
  %a : f32x4 = load @a
  %b : f32x4 = load @b
  %i : i32x4 = load @i
  %u : u32x2 = load @u
  %eq : boolx4 = feq %a, %b
  %ne : boolx4 = fneu %a, %b
  %lt : boolx4 = flt %a, %b
  %ge : boolx4 = fge %a, %b
  %nan : boolx4 = fisnan %a
  %inf : boolx4 = fisinf %b
  %x1 : boolx4 = band %eq, %ne
  %x2 : boolx4 = bor %x1, %lt
  %x3 : boolx4 = bxor %x2, %ge
  %x4 : boolx4 = bnot %x3
  %x5 : boolx4 = beq %x4, %nan
  %x6 : boolx4 = bor %x5, %inf
  %any : bool = bany %x6
  %all : bool = ball %x6
  %zero : i32x4 = const 0, 0, 0, 0
  %ieq : boolx4 = ieq %i, %zero
  %ine : boolx4 = ine %i, %zero
  %ilt : boolx4 = ilt %i, %zero
  %ige : boolx4 = ige %i, %zero
  %u0 : u32x2 = const 1, 2
  %ult : boolx2 = ult %u, %u0
  %uge : boolx2 = uge %u, %u0
  %y1 : boolx4 = band %ieq, %ine
  %y2 : boolx4 = bor %ilt, %ige
  %y3 : boolx4 = band %y1, %y2
  %r : f32x4 = bcsel %x6, %a, %b
  %r2 : f32x4 = bcsel %y3, %r, %a
  %r3 : f32x4 = bcsel %any, %r2, %b
  %r4 : f32x4 = bcsel %all, %r3, %a
  %ux : bool = swizzle %ult, x
  %uy : bool = swizzle %uge, y
  %uz : bool = band %ux, %uy
  %f : f32 = b2f %uz
  %r5 : f32x4 = insert %r4, %f, 3
  store @frag, %r5
}
""")

sh("fs_conversions", """shader fragment
in @a : f32x4 location=0
in @i : i32x4 location=1 flat
in @u : u32x4 location=2 flat
out @frag : f32x4 location=0
out @oi : i32x4 location=1
out @ou : u32x4 location=2
fn main {
  %a : f32x4 = load @a
  %i : i32x4 = load @i
  %u : u32x4 = load @u
  %fi : i32x4 = f2i %a
  %fu : u32x4 = f2u %a
  %if : f32x4 = i2f %i
  %uf : f32x4 = u2f %u
  %h : f16x4 = f2f %a
  %hf : f32x4 = f2f %h
  %d : f64x4 = f2f %a
  %df : f32x4 = f2f %d
  %i64 : i64x4 = i2i %i
  %i32 : i32x4 = i2i %i64
  %u16 : u16x4 = u2u %u
  %u32 : u32x4 = u2u %u16
  %b : boolx4 = f2b %a
  %bf : f32x4 = b2f %b
  %bi : boolx4 = i2b %i
  %bii : i32x4 = b2i %bi
  %bc : u32x4 = bitcast %a
  %bcf : f32x4 = bitcast %bc
  %us : u32x4 = i2i %i
  %s1 : f32x4 = fadd %if, %uf
  %s2 : f32x4 = fadd %s1, %hf
  %s3 : f32x4 = fadd %s2, %df
  %s4 : f32x4 = fadd %s3, %bf
  %s5 : f32x4 = fadd %s4, %bcf
  store @frag, %s5
  %t1 : i32x4 = iadd %fi, %i32
  %t2 : i32x4 = iadd %t1, %bii
  store @oi, %t2
  %t3 : u32x4 = iadd %fu, %u32
  %t4 : u32x4 = iadd %t3, %us
  store @ou, %t4
}
""")

sh("fs_pack_unpack", """shader fragment
in @a : f32x4 location=0
out @frag : f32x4 location=0
out @packed : u32x4 location=1
fn main {
  %a : f32x4 = load @a
  %a2 : f32x2 = swizzle %a, xy
  %p1 : u32 = pack_half_2x16 %a2
  %p2 : u32 = pack_snorm_4x8 %a
  %p3 : u32 = pack_unorm_4x8 %a
  %p4 : u32 = pack_snorm_2x16 %a2
  %p5 : u32 = pack_unorm_2x16 %a2
  %pv : u32x4 = vec %p1, %p2, %p3, %p4
  %pv2 : u32x4 = insert %pv, %p5, 3
  store @packed, %pv2
  %u1 : f32x2 = unpack_half_2x16 %p1
  %u2 : f32x4 = unpack_snorm_4x8 %p2
  %u3 : f32x4 = unpack_unorm_4x8 %p3
  %u4 : f32x2 = unpack_snorm_2x16 %p4
  %u5 : f32x2 = unpack_unorm_2x16 %p5
  %v1 : f32x4 = vec %u1, %u4
  %s : f32x4 = fadd %v1, %u2
  %s2 : f32x4 = fadd %s, %u3
  %v2 : f32x4 = vec %u5, %u5
  %s3 : f32x4 = fadd %s2, %v2
  store @frag, %s3
}
""")

sh("fs_bit_ops", """shader fragment
in @u : u32x4 location=0 flat
in @i : i32x4 location=1 flat
out @ou : u32x4 location=0
out @oi : i32x4 location=1
fn main {
  %u : u32x4 = load @u
  %i : i32x4 = load @i
  %bc : u32x4 = bit_count %u
  %br : u32x4 = bitfield_reverse %bc
  %lsb : u32x4 = find_lsb %br
  %msb : u32x4 = ufind_msb %lsb
  %imsb : i32x4 = ifind_msb %i
  %off : i32 = const 4
  %cnt : i32 = const 8
  %ue : u32x4 = ubitfield_extract %msb, %off, %cnt
  %ie : i32x4 = ibitfield_extract %imsb, %off, %cnt
  %ins : u32x4 = bitfield_insert %ue, %u, %off, %cnt
  store @ou, %ins
  store @oi, %ie
}
""")

sh("fs_derivatives", """shader fragment
in @a : f32x4 location=0
out @frag : f32x4 location=0
fn main {
  %a : f32x4 = load @a
  %dx : f32x4 = fddx %a
  %dy : f32x4 = fddy %a
  %fx : f32x4 = fddx_fine %a
  %fy : f32x4 = fddy_fine %a
  %cx : f32x4 = fddx_coarse %a
  %cy : f32x4 = fddy_coarse %a
  %w : f32x4 = fwidth %a
  %s1 : f32x4 = fadd %dx, %dy
  %s2 : f32x4 = fadd %fx, %fy
  %s3 : f32x4 = fadd %cx, %cy
  %s4 : f32x4 = fadd %s1, %s2
  %s5 : f32x4 = fadd %s3, %s4
  %s6 : f32x4 = fadd %s5, %w
  store @frag, %s6
}
""")

sh("fs_16bit_64bit", """shader fragment
in @a : f32x4 location=0
out @frag : f32x4 location=0
local @acc : f64x2
fn main {
  %a : f32x4 = load @a
  %h : f16x4 = f2f %a
  %h2 : f16x4 = fmul %h, %h
  %hc : f16x4 = const 1.0, 0.5, 0.25, -2.0
  %h3 : f16x4 = fadd %h2, %hc
  %s : i16x4 = f2i %h3
  %one16 : i16x4 = const 1, -1, 2, -2
  %s2 : i16x4 = iadd %s, %one16
  %d : f64x2 = swizzle %d4, xy
  %dd : f64x2 = fmul %d, %d
  store @acc, %dd
  %l : u64 = const 18446744073709551615
  %l2 : u64 = ushr %l, %lsh
  %back : f32x4 = f2f %h3
  store @frag, %back
}
""".replace("%d : f64x2 = swizzle %d4, xy", "%d4 : f64x4 = f2f %a\n  %d : f64x2 = swizzle %d4, xy").replace("%l2 : u64 = ushr %l, %lsh", "%lsh : u64 = const 3\n  %l2 : u64 = ushr %l, %lsh"))

sh("fs_control_flow", """shader fragment
in @a : f32x4 location=0
in @n : i32 location=1 flat
out @frag : f32x4 location=0
local @acc : f32x4
local @i : i32
fn main {
  %a : f32x4 = load @a
  store @acc, %a
  %zero : i32 = const 0
  store @i, %zero
  %n : i32 = load @n
  loop {
    %k : i32 = load @i
    %done : bool = ige %k, %n
    if %done {
      break
    }
    %one : i32 = const 1
    %k1 : i32 = iadd %k, %one
    store @i, %k1
    %two : i32 = const 2
    %m : i32 = imod %k, %two
    %odd : bool = ieq %m, %one
    if %odd {
      continue
    } else {
      %c : f32x4 = load @acc
      %h : f32 = const 0.5
      %h4 : f32x4 = vec %h, %h, %h, %h
      %c2 : f32x4 = fmul %c, %h4
      store @acc, %c2
    }
    loop {
      %j : i32 = load @i
      %ten : i32 = const 10
      %big : bool = ilt %ten, %j
      if %big {
        break
      }
      break
    }
  }
  %r : f32x4 = load @acc
  %x : f32 = swizzle %r, x
  %neg : f32 = const -1.0
  %kill : bool = flt %x, %neg
  if %kill {
    discard
  }
  store @frag, %r
}
""", "alpha=gequal:0.5")

sh("fs_demote_helper", """shader fragment
in @a : f32x4 location=0
out @frag : f32x4 location=0
fn main {
  %a : f32x4 = load @a
  %x : f32 = swizzle %a, x
  %z : f32 = const 0.0
  %neg : bool = flt %x, %z
  if %neg {
    demote
  }
  %h : bool = is_helper
  %dx : f32x4 = fddx %a
  %o : f32x4 = bcsel %h, %a, %dx
  store @frag, %o
}
""")

sh("fs_discard_return_paths", """shader fragment
in @a : f32x4 location=0
out @frag : f32x4 location=0
fn main {
  %a : f32x4 = load @a
  %x : f32 = swizzle %a, x
  %y : f32 = swizzle %a, y
  %z : f32 = const 0.0
  %c1 : bool = flt %x, %z
  %c2 : bool = flt %y, %z
  store @frag, %a
  if %c1 {
    if %c2 {
      discard
    } else {
      return
    }
  } else {
    loop {
      if %c2 {
        return
      }
      break
    }
  }
}
""", "alpha=less:0.1")

# textures
def tex_decl(name, slot, dim, sampled="float", flags=""):
    return f"texture @{name} slot={slot} dim={dim} sampled={sampled}{flags}"

sh("fs_tex_2d_ops", """shader fragment
in @uv : f32x2 location=0
out @frag : f32x4 location=0
texture @t slot=0 dim=2d sampled=float
fn main {
  %uv : f32x2 = load @uv
  %a : f32x4 = tex @t, coord=%uv
  %bias : f32 = const 1.0
  %b : f32x4 = txb @t, coord=%uv, bias=%bias
  %lod : f32 = const 2.0
  %c : f32x4 = txl @t, coord=%uv, lod=%lod
  %dx : f32x2 = fddx %uv
  %dy : f32x2 = fddy %uv
  %d : f32x4 = txd @t, coord=%uv, ddx=%dx, ddy=%dy
  %off : i32x2 = const 1, -1
  %e : f32x4 = tex @t, coord=%uv, offset=%off
  %ml : f32 = const 0.5
  %f : f32x4 = tex @t, coord=%uv, min_lod=%ml
  %g : f32x4 = tg4 @t, coord=%uv, component=2
  %h : f32x4 = tg4 @t, coord=%uv, offset=%off
  %ic : i32x2 = f2i %uv
  %il : i32 = const 0
  %i : f32x4 = txf @t, coord=%ic, lod=%il
  %sz : i32x2 = txs @t, lod=%il
  %lq : f32x2 = lod @t, coord=%uv
  %nl : i32 = query_levels @t
  %s1 : f32x4 = fadd %a, %b
  %s2 : f32x4 = fadd %c, %d
  %s3 : f32x4 = fadd %e, %f
  %s4 : f32x4 = fadd %g, %h
  %s5 : f32x4 = fadd %s1, %s2
  %s6 : f32x4 = fadd %s3, %s4
  %s7 : f32x4 = fadd %s5, %s6
  %s8 : f32x4 = fadd %s7, %i
  %szf : f32x2 = i2f %sz
  %nlf : f32 = i2f %nl
  %x : f32x4 = vec %szf, %lq
  %s9 : f32x4 = fadd %s8, %x
  %s10 : f32x4 = insert %s9, %nlf, 0
  store @frag, %s10
}
""")

sh("fs_tex_dims", """shader fragment
in @p : f32x4 location=0
out @frag : f32x4 location=0
texture @t1 slot=0 dim=1d sampled=float
texture @t1a slot=1 dim=1d sampled=float array
texture @t2a slot=2 dim=2d sampled=float array
texture @t3 slot=3 dim=3d sampled=float
texture @tc slot=4 dim=cube sampled=float
texture @tca slot=5 dim=cube sampled=float array
texture @trect slot=6 dim=rect sampled=float
texture @tbuf slot=7 dim=buffer sampled=float
texture @tms slot=8 dim=2d sampled=float ms
texture @tmsa slot=9 dim=2d sampled=float array ms
texture @ti slot=10 dim=2d sampled=int
texture @tu slot=11 dim=3d sampled=uint
fn main {
  %p : f32x4 = load @p
  %x : f32 = swizzle %p, x
  %xy : f32x2 = swizzle %p, xy
  %xyz : f32x3 = swizzle %p, xyz
  %a : f32x4 = tex @t1, coord=%x
  %b : f32x4 = tex @t1a, coord=%xy
  %c : f32x4 = tex @t2a, coord=%xyz
  %d : f32x4 = tex @t3, coord=%xyz
  %e : f32x4 = tex @tc, coord=%xyz
  %f : f32x4 = tex @tca, coord=%p
  %g : f32x4 = tex @trect, coord=%xy
  %i : i32 = f2i %x
  %h : f32x4 = txf @tbuf, coord=%i
  %ixy : i32x2 = f2i %xy
  %ixyz : i32x3 = f2i %xyz
  %s0 : i32 = const 1
  %m : f32x4 = txf_ms @tms, coord=%ixy, ms_index=%s0
  %ma : f32x4 = txf_ms @tmsa, coord=%ixyz, ms_index=%s0
  %ns : i32 = texture_samples @tms
  %bs : i32 = txs @tbuf
  %mss : i32x3 = txs @tmsa
  %l0 : i32 = const 0
  %ti : i32x4 = txf @ti, coord=%ixy, lod=%l0
  %tu : u32x4 = txf @tu, coord=%ixyz, lod=%l0
  %rs : i32x2 = txs @trect
  %cs : i32x3 = txs @tca, lod=%l0
  %r1 : f32x4 = fadd %a, %b
  %r2 : f32x4 = fadd %c, %d
  %r3 : f32x4 = fadd %e, %f
  %r4 : f32x4 = fadd %g, %h
  %r5 : f32x4 = fadd %m, %ma
  %r6 : f32x4 = fadd %r1, %r2
  %r7 : f32x4 = fadd %r3, %r4
  %r8 : f32x4 = fadd %r5, %r6
  %r9 : f32x4 = fadd %r7, %r8
  %tif : f32x4 = i2f %ti
  %tuf : f32x4 = u2f %tu
  %r10 : f32x4 = fadd %r9, %tif
  %r11 : f32x4 = fadd %r10, %tuf
  %nsf : f32 = i2f %ns
  %bsf : f32 = i2f %bs
  %r12 : f32x4 = insert %r11, %nsf, 0
  %r13 : f32x4 = insert %r12, %bsf, 1
  store @frag, %r13
}
""")

sh("fs_tex_shadow", """shader fragment
in @p : f32x4 location=0
out @frag : f32x4 location=0
texture @s2 slot=0 dim=2d sampled=float shadow
texture @s2a slot=1 dim=2d sampled=float array shadow
texture @sc slot=2 dim=cube sampled=float shadow
texture @s1 slot=3 dim=1d sampled=float shadow
fn main {
  %p : f32x4 = load @p
  %xy : f32x2 = swizzle %p, xy
  %xyz : f32x3 = swizzle %p, xyz
  %x : f32 = swizzle %p, x
  %ref : f32 = swizzle %p, w
  %a : f32 = tex @s2, coord=%xy, comparator=%ref
  %bias : f32 = const 0.5
  %b : f32 = txb @s2a, coord=%xyz, bias=%bias, comparator=%ref
  %lod : f32 = const 0.0
  %c : f32 = txl @sc, coord=%xyz, lod=%lod, comparator=%ref
  %d : f32 = tex @s1, coord=%x, comparator=%ref
  %g : f32x4 = tg4 @s2, coord=%xy, comparator=%ref
  %off : i32x2 = const 1, 1
  %e : f32 = txl @s2, coord=%xy, lod=%lod, comparator=%ref, offset=%off
  %dx : f32x2 = fddx %xy
  %dy : f32x2 = fddy %xy
  %f : f32 = txd @s2, coord=%xy, ddx=%dx, ddy=%dy, comparator=%ref
  %v : f32x4 = vec %a, %b, %c, %d
  %v2 : f32x4 = fadd %v, %g
  %ef : f32 = fadd %e, %f
  %v3 : f32x4 = insert %v2, %ef, 3
  store @frag, %v3
}
""")

sh("fs_tex_dynamic_offset", """shader fragment
in @uv : f32x2 location=0
in @o : i32x2 location=1 flat
out @frag : f32x4 location=0
texture @t slot=31 dim=2d sampled=float
fn main {
  %uv : f32x2 = load @uv
  %o : i32x2 = load @o
  %a : f32x4 = tg4 @t, coord=%uv, offset=%o
  %off : i32x2 = const -8, 7
  %l : f32 = const 0.0
  %b : f32x4 = txl @t, coord=%uv, lod=%l, offset=%off
  %c : f32x4 = fadd %a, %b
  store @frag, %c
}
""")

sh("fs_fbfetch", """shader fragment
out @frag : f32x4 location=0
out @ifrag : u32x4 location=1
fbfetch @last slot=0 sampled=float
fbfetch @ilast slot=1 sampled=uint
fn main {
  %v : f32x4 = fbfetch @last
  %h : f32x4 = const 0.5, 0.5, 0.5, 0.5
  %r : f32x4 = fmul %v, %h
  store @frag, %r
  %u : u32x4 = fbfetch @ilast
  %one : u32x4 = const 1, 1, 1, 1
  %s : u32x4 = iadd %u, %one
  store @ifrag, %s
}
""", "fbfetch_ms", "fbfetch_layered", "fbfetch_1d=0x1", "fbfetch_1d=0x3,fbfetch_layered",
   "fbfetch_layered,fbfetch_3d=0x1", "fbfetch_ms,fbfetch_layered")

sh("fs_images", """shader fragment
in @fc : f32x4 builtin=frag_coord
out @frag : f32x4 location=0
image @img slot=0 dim=2d format=rgba8
image @ro slot=1 dim=2d format=r32f readonly
image @wo slot=2 dim=3d format=rgba32ui writeonly
image @cnt slot=3 dim=2d format=r32ui
fn main {
  %fc : f32x4 = load @fc
  %xy : f32x2 = swizzle %fc, xy
  %c : i32x2 = f2i %xy
  %v : f32x4 = image_load @img, %c
  %w : f32x4 = image_load @ro, %c
  %s : f32x4 = fadd %v, %w
  image_store @img, %c, %s
  %z : i32 = const 0
  %c3 : i32x3 = vec %c, %z
  %u : u32x4 = f2u %s
  image_store @wo, %c3, %u
  %one : u32 = const 1
  %old : u32 = image_atomic @cnt, %c, %one, op=add
  %sz : i32x2 = image_size @img
  %szf : f32x2 = i2f %sz
  %oldf : f32 = u2f %old
  %r : f32x4 = vec %szf, %oldf, %oldf
  store @frag, %r
}
""")

sh("fs_ubo_ssbo_push", """shader fragment
in @idx : u32 location=0 flat
out @frag : f32x4 location=0
ubo @u slot=15 size=1024
ssbo @s slot=31
ssbo @r slot=0 readonly
push @pc size=16
fn main {
  %i : u32 = load @idx
  %four : u32 = const 4
  %sh : u32 = ishl %i, %four
  %a : f32x4 = load_ubo @u, %sh
  %b : f32x2 = load_ssbo @r, %sh
  %z : u32 = const 0
  %c : f32x4 = load_push @pc, %z
  %d : f64 = load_ubo @u, %z
  %df : f32 = f2f %d
  %b4 : f32x4 = vec %b, %df, %df
  %s : f32x4 = fadd %a, %b4
  %t : f32x4 = fadd %s, %c
  store_ssbo @s, %sh, %t
  %cnt : u32 = const 1
  %old : u32 = ssbo_atomic @s, %z, %cnt, op=add
  store @frag, %t
}
""", "inline=0:0,inline=4:1072693248")

sh("fs_early_tests", """shader fragment early_fragment_tests
in @c : f32x4 location=0 noperspective centroid
out @frag : f32x4 location=0
out @frag1 : f32x4 location=1
out @ifrag : i32x4 location=2
fn main {
  %c : f32x4 = load @c
  store @frag, %c
  %u : f32x4 = undef
  store @frag1, %u
  %i : i32x4 = f2i %c
  store @ifrag, %i
}
""")

sh("fs_swizzle_vec", """shader fragment
in @a : f32x4 location=0
in @s : f32 location=1
in @t : f32x3 location=1 component=1
out @frag : f32x4 location=0
fn main {
  %a : f32x4 = load @a
  %s : f32 = load @s
  %t : f32x3 = load @t
  %w : f32x4 = swizzle %a, wzyx
  %xx : f32x2 = swizzle %a, xx
  %ss : f32x3 = swizzle %s, xxx
  %v : f32x4 = vec %xx, %xx
  %v2 : f32x4 = vec %s, %t
  %v3 : f32x4 = vec %ss, %s
  %r : f32x4 = fadd %w, %v
  %r2 : f32x4 = fadd %r, %v2
  %r3 : f32x4 = fadd %r2, %v3
  %m : f32x4 = mov %r3
  %e : f32 = swizzle %m, z
  %r4 : f32x4 = insert %m, %e, 1
  store @frag, %r4
}
""")

sh("fs_subgroup", """shader fragment
in @ss : u32 builtin=subgroup_size
in @si : u32 builtin=subgroup_invocation_id
out @frag : f32x4 location=0
fn main {
  %a : u32 = load @ss
  %b : u32 = load @si
  %af : f32 = u2f %a
  %bf : f32 = u2f %b
  %v : f32x4 = vec %af, %bf, %af, %bf
  store @frag, %v
}
""")

sh("fs_constants_fold", """shader fragment
out @frag : f32x4 location=0
ubo @u slot=0 size=16
fn main {
  %a : f32 = const 2.0
  %b : f32 = const 3.0
  %c : f32 = fmul %a, %b
  %d : f32 = fadd %c, %a
  %i : i32 = const 7
  %j : i32 = const -2
  %k : i32 = imul %i, %j
  %kf : f32 = i2f %k
  %z : u32 = const 0
  %flag : u32 = load_ubo @u, %z
  %zero : u32 = const 0
  %on : bool = ine %flag, %zero
  if %on {
    %v : f32x4 = vec %d, %kf, %c, %a
    store @frag, %v
  } else {
    %v2 : f32x4 = const 0.0, 0.0, 0.0, 1.0
    store @frag, %v2
  }
}
""", "inline=0:1", "inline=0:0")

# ---------------- compute ----------------
sh("cs_basic", """shader compute local_size=64,1,1
in @gid : u32x3 builtin=global_invocation_id
ssbo @buf slot=0
fn main {
  %g : u32x3 = load @gid
  %x : u32 = swizzle %g, x
  %four : u32 = const 4
  %off : u32 = imul %x, %four
  %v : f32 = load_ssbo @buf, %off
  %two : f32 = const 2.0
  %r : f32 = fmul %v, %two
  store_ssbo @buf, %off, %r
}
""")

sh("cs_builtins", """shader compute local_size=8,8,1
in @lid : u32x3 builtin=local_invocation_id
in @lidx : u32 builtin=local_invocation_index
in @gid : u32x3 builtin=global_invocation_id
in @wid : u32x3 builtin=workgroup_id
in @nwg : u32x3 builtin=num_workgroups
in @sgid : u32 builtin=subgroup_id
in @nsg : u32 builtin=num_subgroups
in @ss : u32 builtin=subgroup_size
in @si : u32 builtin=subgroup_invocation_id
ssbo @out slot=1
fn main {
  %a : u32x3 = load @lid
  %b : u32 = load @lidx
  %c : u32x3 = load @gid
  %d : u32x3 = load @wid
  %e : u32x3 = load @nwg
  %f : u32 = load @sgid
  %g : u32 = load @nsg
  %h : u32 = load @ss
  %i : u32 = load @si
  %s1 : u32x3 = iadd %a, %c
  %s2 : u32x3 = iadd %d, %e
  %s3 : u32x3 = iadd %s1, %s2
  %x : u32 = swizzle %s3, x
  %y : u32 = iadd %x, %f
  %z : u32 = iadd %g, %h
  %w : u32 = iadd %i, %b
  %v : u32x4 = vec %y, %z, %w, %x
  %sixteen : u32 = const 16
  %off : u32 = imul %b, %sixteen
  store_ssbo @out, %off, %v
}
""")

sh("cs_shared_reduce", """shader compute local_size=64,1,1
in @lidx : u32 builtin=local_invocation_index
in @wid : u32x3 builtin=workgroup_id
shared @tmp : f32[64]
ssbo @data slot=0
local @stride : u32
fn main {
  %l : u32 = load @lidx
  %four : u32 = const 4
  %off : u32 = imul %l, %four
  %v : f32 = load_ssbo @data, %off
  store @tmp, %l, %v
  barrier exec=workgroup, mem=workgroup, modes=shared
  %s32 : u32 = const 32
  store @stride, %s32
  loop {
    %s : u32 = load @stride
    %zero : u32 = const 0
    %end : bool = ieq %s, %zero
    if %end {
      break
    }
    %act : bool = ult %l, %s
    if %act {
      %o : u32 = iadd %l, %s
      %a : f32 = load @tmp, %l
      %b : f32 = load @tmp, %o
      %c : f32 = fadd %a, %b
      store @tmp, %l, %c
    }
    barrier exec=workgroup, mem=workgroup, modes=shared
    %one : u32 = const 1
    %s2 : u32 = ushr %s, %one
    store @stride, %s2
  }
  %z : u32 = const 0
  %first : bool = ieq %l, %z
  if %first {
    %r : f32 = load @tmp, %z
    %w : u32x3 = load @wid
    %wx : u32 = swizzle %w, x
    %wo : u32 = imul %wx, %four
    store_ssbo @data, %wo, %r
  }
}
""")

sh("cs_atomics_ssbo", """shader compute local_size=32,1,1
in @gid : u32x3 builtin=global_invocation_id
ssbo @c slot=2
fn main {
  %g : u32x3 = load @gid
  %x : u32 = swizzle %g, x
  %z : u32 = const 0
  %o4 : u32 = const 4
  %o8 : u32 = const 8
  %o12 : u32 = const 12
  %a : u32 = ssbo_atomic @c, %z, %x, op=add
  %b : u32 = ssbo_atomic @c, %o4, %x, op=umin
  %cc : u32 = ssbo_atomic @c, %o8, %x, op=umax
  %d : u32 = ssbo_atomic @c, %o12, %x, op=and
  %e : u32 = ssbo_atomic @c, %z, %x, op=or
  %f : u32 = ssbo_atomic @c, %z, %x, op=xor
  %g2 : u32 = ssbo_atomic @c, %z, %x, op=exchange
  %h : u32 = ssbo_atomic @c, %z, %x, %a, op=comp_swap
  %xi : i32 = bitcast %x
  %i : i32 = ssbo_atomic @c, %o4, %xi, op=imin
  %j : i32 = ssbo_atomic @c, %o8, %xi, op=imax
  %s : u32 = iadd %b, %cc
  %s2 : u32 = iadd %d, %e
  %s3 : u32 = iadd %f, %g2
  %s4 : u32 = iadd %s, %s2
  %s5 : u32 = iadd %s3, %s4
  %s6 : u32 = iadd %s5, %h
  %ij : i32 = iadd %i, %j
  %iju : u32 = bitcast %ij
  %s7 : u32 = iadd %s6, %iju
  %o16 : u32 = const 16
  store_ssbo @c, %o16, %s7
}
""")

sh("cs_atomics_shared", """shader compute local_size=16,1,1
in @lidx : u32 builtin=local_invocation_index
shared @s : u32[16]
shared @si : i32[4]
ssbo @o slot=0
fn main {
  %l : u32 = load @lidx
  %z : u32 = const 0
  %a : u32 = shared_atomic @s, %z, %l, op=add
  %b : u32 = shared_atomic @s, %l, %a, op=exchange
  %c : u32 = shared_atomic @s, %z, %l, %b, op=comp_swap
  %li : i32 = bitcast %l
  %d : i32 = shared_atomic @si, %z, %li, op=imax
  barrier exec=workgroup, mem=workgroup, modes=buffer|shared
  %du : u32 = bitcast %d
  %r : u32 = iadd %c, %du
  store_ssbo @o, %z, %r
}
""")

sh("cs_images", """shader compute local_size=8,8,1
in @gid : u32x3 builtin=global_invocation_id
image @src slot=0 dim=2d format=rgba32f readonly
image @dst slot=1 dim=2d format=rgba16f writeonly
image @arr slot=2 dim=2d format=rgba8ui array
image @cube slot=3 dim=cube format=r32i
image @buf slot=4 dim=buffer format=r32ui
image @one slot=5 dim=1d format=rgba8_snorm
image @ms slot=6 dim=2d format=rgba8 ms
image @uk slot=7 dim=2d format=unknown sampled=float
image @ext slot=8 dim=3d format=rg16f
fn main {
  %g : u32x3 = load @gid
  %gi : i32x3 = bitcast %g
  %c : i32x2 = swizzle %gi, xy
  %v : f32x4 = image_load @src, %c
  image_store @dst, %c, %v
  %a : u32x4 = image_load @arr, %gi
  image_store @arr, %gi, %a
  %one : i32 = const 1
  %old : i32 = image_atomic @cube, %gi, %one, op=imin
  %x : i32 = swizzle %gi, x
  %ou : u32 = bitcast %old
  %b : u32 = image_atomic @buf, %x, %ou, op=add
  %cs : u32 = image_atomic @buf, %x, %b, %ou, op=comp_swap
  %o : f32x4 = image_load @one, %x
  image_store @one, %x, %o
  %s0 : i32 = const 0
  %m : f32x4 = image_load @ms, %c, sample=%s0
  image_store @ms, %c, %m, sample=%s0
  %ns : i32 = image_samples @ms
  %u : f32x4 = image_load @uk, %c
  image_store @uk, %c, %u
  %e : f32x4 = image_load @ext, %gi
  image_store @ext, %gi, %e
  %sz : i32x3 = image_size @arr
  %csz : i32x2 = image_size @cube
  %bsz : i32 = image_size @buf
}
""")

sh("cs_barriers", """shader compute local_size=4,4,4
in @lidx : u32 builtin=local_invocation_index
shared @s : u32[64]
ssbo @b slot=0
image @i slot=0 dim=2d format=r32ui
fn main {
  %l : u32 = load @lidx
  store @s, %l, %l
  barrier exec=workgroup, mem=workgroup, modes=shared
  barrier exec=workgroup, mem=device, modes=buffer|image
  barrier exec=none, mem=device, modes=buffer
  barrier exec=none, mem=workgroup, modes=shared
  barrier exec=subgroup, mem=subgroup, modes=buffer|shared|image
  barrier exec=workgroup, mem=workgroup, modes=none
  %v : u32 = load @s, %l
  %z : u32 = const 0
  store_ssbo @b, %z, %v
}
""")

sh("cs_int64_float64", """shader compute local_size=1,1,1
ssbo @b slot=0
fn main {
  %z : u32 = const 0
  %a : u64 = load_ssbo @b, %z
  %eight : u32 = const 8
  %c : f64x2 = load_ssbo @b, %eight
  %one : u64 = const 1
  %a2 : u64 = iadd %a, %one
  %a3 : u64 = imul %a2, %a2
  %sh : u64 = const 33
  %a4 : u64 = ushr %a3, %sh
  %d : f64x2 = fmul %c, %c
  %d2 : f64x2 = fsqrt %d
  %d3 : f64x2 = ffloor %d2
  %s : i64 = const -5
  %s2 : i64 = ishr %s, %one_i
  store_ssbo @b, %z, %a4
  store_ssbo @b, %eight, %d3
}
""".replace("%s2 : i64 = ishr %s, %one_i", "%onei : i64 = const 1\n  %s2 : i64 = ishr %s, %onei\n  %s2u : u64 = bitcast %s2\n  %twentyfour : u32 = const 24\n  store_ssbo @b, %twentyfour, %s2u"))

sh("cs_nested_loops", """shader compute local_size=1,1,1
ssbo @b slot=0
local @i : u32
local @j : u32
local @acc : u32
fn main {
  %z : u32 = const 0
  %one : u32 = const 1
  %n : u32 = const 8
  store @i, %z
  store @acc, %z
  loop {
    %i : u32 = load @i
    %ie : bool = uge %i, %n
    if %ie {
      break
    }
    store @j, %z
    loop {
      %j : u32 = load @j
      %je : bool = uge %j, %i
      if %je {
        break
      }
      %a : u32 = load @acc
      %p : u32 = imul %i, %j
      %a2 : u32 = iadd %a, %p
      store @acc, %a2
      %j1 : u32 = iadd %j, %one
      store @j, %j1
      %three : u32 = const 3
      %big : bool = ult %three, %j1
      if %big {
        continue
      }
    }
    %i1 : u32 = iadd %i, %one
    store @i, %i1
  }
  %r : u32 = load @acc
  store_ssbo @b, %z, %r
}
""")

sh("cs_return_early", """shader compute local_size=32,1,1
in @gid : u32x3 builtin=global_invocation_id
ssbo @b slot=0
push @pc size=8
fn main {
  %g : u32x3 = load @gid
  %x : u32 = swizzle %g, x
  %z : u32 = const 0
  %n : u32 = load_push @pc, %z
  %out : bool = uge %x, %n
  if %out {
    return
  }
  %four : u32 = const 4
  %off : u32 = imul %x, %four
  store_ssbo @b, %off, %x
}
""")

sh("cs_vectors_ints16", """shader compute local_size=2,2,1
ssbo @b slot=0
fn main {
  %z : u32 = const 0
  %v : u32x4 = load_ssbo @b, %z
  %h : u16x4 = u2u %v
  %k : u16x4 = const 1, 2, 3, 65535
  %h2 : u16x4 = iadd %h, %k
  %h3 : u16x4 = imul %h2, %h2
  %w : u32x4 = u2u %h3
  %s : i16x2 = const -1, 5
  %s2 : i32x2 = i2i %s
  %s3 : u32x2 = bitcast %s2
  %w2 : u32x4 = vec %s3, %s3
  %w3 : u32x4 = iadd %w, %w2
  store_ssbo @b, %z, %w3
}
""")

sh("cs_float_special", """shader compute local_size=1,1,1
ssbo @b slot=0
fn main {
  %z : u32 = const 0
  %nan : f32 = const 0x7fc00000
  %inf : f32 = const 0xff800000
  %small : f32 = const 1e-30
  %neg0 : f32 = const -0.0
  %big : f64 = const 1e300
  %s : f32 = fadd %nan, %inf
  %t : f32 = fadd %small, %neg0
  %u : f32 = fadd %s, %t
  %bf : f32 = f2f %big
  %w : f32 = fmul %u, %bf
  store_ssbo @b, %z, %w
}
""")

sh("cs_bool_locals", """shader compute local_size=1,1,1
ssbo @b slot=0
local @flag : bool
local @vals : f32x2[4]
fn main {
  %t : bool = const true
  store @flag, %t
  %f : bool = load @flag
  %nf : bool = bnot %f
  store @flag, %nf
  %i : i32 = const 2
  %v : f32x2 = const 1.5, -2.5
  store @vals, %i, %v
  %r : f32x2 = load @vals, %i
  %z : u32 = const 0
  %g : bool = load @flag
  if %g {
    store_ssbo @b, %z, %r
  }
}
""")

sh("vs_point_sprite_pair", """shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
out @tc : f32x4 location=0 slot=tex0
fn main {
  %p : f32x4 = load @pos
  store @gl_pos, %p
  store @tc, %p
}
""", "point_size=8.0,clip=0x80")

sh("vs_two_side_colors", """shader vertex
in @pos : f32x4 location=0
out @gl_pos : f32x4 builtin=position
out @c0 : f32x4 location=0 slot=col0
out @b0 : f32x4 location=30 slot=bfc0
fn main {
  %p : f32x4 = load @pos
  store @gl_pos, %p
  %one : f32x4 = const 1.0, 0.0, 0.0, 1.0
  %two : f32x4 = const 0.0, 0.0, 1.0, 1.0
  store @c0, %one
  store @b0, %two
}
""")

sh("fs_two_side_existing_bfc", """shader fragment
in @c0 : f32x4 location=0 slot=col0
in @b0 : f32x4 location=30 slot=bfc0
out @frag : f32x4 location=0
fn main {
  %c : f32x4 = load @c0
  store @frag, %c
}
""", "two_side", "two_side,flat,alpha=notequal:1.0")

sh("fs_int_output_loop_break_nested", """shader fragment
in @n : u32 location=0 flat
out @o : u32 location=0
local @acc : u32
fn main {
  %z : u32 = const 0
  store @acc, %z
  %n : u32 = load @n
  loop {
    %a : u32 = load @acc
    %one : u32 = const 1
    %a1 : u32 = iadd %a, %one
    store @acc, %a1
    %done : bool = uge %a1, %n
    if %done {
      if %done {
        break
      } else {
        continue
      }
    }
  }
  %r : u32 = load @acc
  store @o, %r
}
""")

sh("fs_infinite_loop_return", """shader fragment
in @a : f32x4 location=0
out @frag : f32x4 location=0
fn main {
  %a : f32x4 = load @a
  loop {
    store @frag, %a
    return
  }
}
""", "alpha=lequal:0.75")

sh("fs_tex_int_gather_cube", """shader fragment
in @p : f32x4 location=0
out @frag : i32x4 location=0
texture @ti slot=0 dim=2d sampled=int array
texture @tc slot=1 dim=cube sampled=uint
fn main {
  %p : f32x4 = load @p
  %xyz : f32x3 = swizzle %p, xyz
  %a : i32x4 = tg4 @ti, coord=%xyz, component=3
  %b : u32x4 = tg4 @tc, coord=%xyz, component=1
  %lod : f32 = const 1.0
  %c : u32x4 = txl @tc, coord=%xyz, lod=%lod
  %bi : i32x4 = bitcast %b
  %ci : i32x4 = bitcast %c
  %s : i32x4 = iadd %a, %bi
  %s2 : i32x4 = iadd %s, %ci
  store @frag, %s2
}
""")

sh("cs_ubo_dynamic", """shader compute local_size=16,1,1
in @lidx : u32 builtin=local_invocation_index
ubo @u slot=1 size=256
ssbo @o slot=3
fn main {
  %l : u32 = load @lidx
  %sixteen : u32 = const 16
  %off : u32 = imul %l, %sixteen
  %v : u32x4 = load_ubo @u, %off
  %four : u32 = const 4
  %off2 : u32 = iadd %off, %four
  %w : i32x3 = load_ubo @u, %off2
  %d : f64x2 = load_ubo @u, %off
  store_ssbo @o, %off, %v
  %wu : u32x3 = bitcast %w
  %wx : u32 = swizzle %wu, x
  store_ssbo @o, %off2, %wx
  %e : f64 = swizzle %d, y
  %ef : f32 = f2f %e
  store_ssbo @o, %four, %ef
}
""")

sh("gs_clip_and_psize_emit_in_loop", """shader geometry input=points output=triangle_strip max_vertices=4 invocations=1
in @pos : f32x4[1] builtin=position
out @gl_pos : f32x4 builtin=position
out @tc : f32x2 location=0
local @i : i32
fn main {
  %z : i32 = const 0
  store @i, %z
  %p : f32x4 = load @pos, %z
  loop {
    %k : i32 = load @i
    %four : i32 = const 4
    %done : bool = ige %k, %four
    if %done {
      break
    }
    %kf : f32 = i2f %k
    %d : f32x4 = vec %kf, %kf, %kf, %kf
    %q : f32x4 = fadd %p, %d
    store @gl_pos, %q
    %t : f32x2 = swizzle %q, xy
    store @tc, %t
    emit_vertex
    %one : i32 = const 1
    %k1 : i32 = iadd %k, %one
    store @i, %k1
  }
}
""", "clip=0x3,point_size=2.0")

# ---------------- GL lowerings: stipple, frag coord, depth range ----------------
sh("fs_polygon_stipple", """shader fragment
in @col : f32x4 location=0 slot=col0
in @uv : f32x2 location=1
out @frag : f32x4 location=0
texture @t slot=0 dim=2d sampled=float
ssbo @counter slot=0
fn main {
  %c : f32x4 = load @col
  %uv : f32x2 = load @uv
  %tx : f32x4 = tex @t, coord=%uv
  %o : f32x4 = fmul %c, %tx
  store @frag, %o
  %zero : u32 = const 0
  %one : u32 = const 1
  %old : u32 = ssbo_atomic @counter, %zero, %one, op=add
}
""", "polygon_stipple", "polygon_stipple,alpha=less:0.5,two_side,flat")

sh("fs_frag_coord_conventions", """shader fragment
in @fc : f32x4 builtin=frag_coord
in @col : f32x4 location=0 slot=col0
out @frag : f32x4 location=0
fn main {
  %fc : f32x4 = load @fc
  %x : f32 = swizzle %fc, x
  %y : f32 = swizzle %fc, y
  %half : f32 = const 64.0
  %top : bool = flt %y, %half
  if %top {
    %c : f32x4 = load @col
    store @frag, %c
    return
  }
  %fc2 : f32x4 = load @fc
  %xy : f32x2 = swizzle %fc2, xy
  %s : f32 = const 0.0078125
  %st : f32x2 = vec %s, %s
  %n : f32x2 = fmul %xy, %st
  %z : f32 = swizzle %fc2, z
  %one : f32 = const 1.0
  %o : f32x4 = vec %n, %z, %one
  store @frag, %o
}
""", "lower_left_origin", "pixel_center_integer",
   "lower_left_origin,pixel_center_integer,polygon_stipple,alpha=gequal:0.5")

sh("vs_clip_halfz", """shader vertex
in @pos : f32x4 location=0
in @skip : i32 builtin=instance_index
out @gl_pos : f32x4 builtin=position
out @col : f32x4 location=0
fn main {
  %p : f32x4 = load @pos
  %i : i32 = load @skip
  %zero : i32 = const 0
  %odd : bool = ine %i, %zero
  store @col, %p
  if %odd {
    %f : f32 = const 0.5
    %f4 : f32x4 = vec %f, %f, %f, %f
    %q : f32x4 = fmul %p, %f4
    store @gl_pos, %q
    return
  }
  store @gl_pos, %p
}
""", "last_vertex_stage,clip_halfz", "clip_halfz", "last_vertex_stage,clip=0x3,point_size=1.0",
   "last_vertex_stage")

sh("tes_clip_halfz", """shader tess_eval mode=triangles spacing=equal winding=ccw
in @pos : f32x4[32] builtin=position
in @tc : f32x3 builtin=tess_coord
out @gl_pos : f32x4 builtin=position
fn main {
  %tc : f32x3 = load @tc
  %i0 : i32 = const 0
  %i1 : i32 = const 1
  %i2 : i32 = const 2
  %p0 : f32x4 = load @pos, %i0
  %p1 : f32x4 = load @pos, %i1
  %p2 : f32x4 = load @pos, %i2
  %u : f32 = swizzle %tc, x
  %v : f32 = swizzle %tc, y
  %w : f32 = swizzle %tc, z
  %u4 : f32x4 = vec %u, %u, %u, %u
  %v4 : f32x4 = vec %v, %v, %v, %v
  %w4 : f32x4 = vec %w, %w, %w, %w
  %a : f32x4 = fmul %p0, %u4
  %b : f32x4 = ffma %p1, %v4, %a
  %c : f32x4 = ffma %p2, %w4, %b
  store @gl_pos, %c
}
""", "last_vertex_stage")

sh("gs_clip_halfz", """shader geometry input=triangles output=triangle_strip max_vertices=3 invocations=1
in @pos : f32x4[3] builtin=position
out @gl_pos : f32x4 builtin=position
local @i : i32
fn main {
  %zero : i32 = const 0
  store @i, %zero
  loop {
    %k : i32 = load @i
    %three : i32 = const 3
    %done : bool = ige %k, %three
    if %done {
      break
    }
    %p : f32x4 = load @pos, %k
    store @gl_pos, %p
    emit_vertex
    %one : i32 = const 1
    %k1 : i32 = iadd %k, %one
    store @i, %k1
  }
  end_primitive
}
""", "last_vertex_stage", "last_vertex_stage,clip=0x1")

# ---------------- GL lowerings: line stipple emulation ----------------
# The previous stage of the generated geometry shader (every kind of output
# it forwards), the generated shader itself (gs_line_stipple_generated, the
# exact output of passes::line_stipple::line_stipple_gs(vs_line_stipple);
# tests/lowering.rs checks that they agree), an application geometry shader
# emitting line strips, and the fragment side.
sh("vs_line_stipple", """shader vertex
in @pos : f32x4 location=0
in @color : f32x4 location=1
in @vid : i32 builtin=vertex_index
out @gl_pos : f32x4 builtin=position invariant
out @psize : f32 builtin=point_size
out @vcolor : f32x4 location=0 slot=col0
out @id : u32 location=1 flat
out @np : f32x2 location=2 noperspective
out @cen : f32x2 location=2 component=2 centroid
out @tc : f32x4 location=3 sample slot=tex0
fn main {
  %p : f32x4 = load @pos
  store @gl_pos, %p
  %one : f32 = const 1.0
  store @psize, %one
  %c : f32x4 = load @color
  store @vcolor, %c
  %v : i32 = load @vid
  %u : u32 = bitcast %v
  store @id, %u
  %xy : f32x2 = swizzle %p, xy
  store @np, %xy
  %zw : f32x2 = swizzle %p, zw
  store @cen, %zw
  store @tc, %c
}
""", "line_stipple")

sh("gs_line_stipple_generated", """shader geometry input=lines output=line_strip max_vertices=2 invocations=1
in @in_gl_pos : f32x4[2] builtin=position
in @in_psize : f32[2] builtin=point_size
in @in_vcolor : f32x4[2] location=0 slot=col0
in @in_id : u32[2] location=1
in @in_np : f32x2[2] location=2
in @in_cen : f32x2[2] location=2 component=2
in @in_tc : f32x4[2] location=3 slot=tex0
in @in_primitive_id : i32 builtin=primitive_id
out @gl_pos : f32x4 builtin=position invariant
out @psize : f32 builtin=point_size
out @vcolor : f32x4 location=0 slot=col0
out @id : u32 location=1 flat
out @np : f32x2 location=2 noperspective
out @cen : f32x2 location=2 component=2 centroid
out @tc : f32x4 location=3 sample slot=tex0
out @primitive_id : i32 builtin=primitive_id
out @stipple_pos : f32 location=29 noperspective
push @pc size=192
fn main {
  %0 : i32 = const 0
  %1 : i32 = const 1
  %2 : f32x4 = load @in_gl_pos, %0
  %3 : f32x4 = load @in_gl_pos, %1
  %4 : u32 = const 40
  %5 : f32x2 = load_push @pc, %4
  %6 : f32x2 = swizzle %2, xy
  %7 : f32 = swizzle %2, w
  %8 : f32x2 = vec %7, %7
  %9 : f32x2 = fdiv %6, %8
  %10 : f32x2 = fmul %9, %5
  %11 : f32x2 = swizzle %3, xy
  %12 : f32 = swizzle %3, w
  %13 : f32x2 = vec %12, %12
  %14 : f32x2 = fdiv %11, %13
  %15 : f32x2 = fmul %14, %5
  %16 : f32x2 = fsub %15, %10
  %17 : f32x2 = fabs %16
  %18 : f32 = swizzle %17, x
  %19 : f32 = swizzle %17, y
  %20 : f32 = fmax %18, %19
  %21 : i32 = load @in_primitive_id
  %22 : f32 = const 0.0
  store @gl_pos, %2
  %23 : f32 = load @in_psize, %0
  store @psize, %23
  %24 : f32x4 = load @in_vcolor, %0
  store @vcolor, %24
  %25 : u32 = load @in_id, %0
  store @id, %25
  %26 : f32x2 = load @in_np, %0
  store @np, %26
  %27 : f32x2 = load @in_cen, %0
  store @cen, %27
  %28 : f32x4 = load @in_tc, %0
  store @tc, %28
  store @primitive_id, %21
  store @stipple_pos, %22
  emit_vertex
  store @gl_pos, %3
  %29 : f32 = load @in_psize, %1
  store @psize, %29
  %30 : f32x4 = load @in_vcolor, %1
  store @vcolor, %30
  %31 : u32 = load @in_id, %1
  store @id, %31
  %32 : f32x2 = load @in_np, %1
  store @np, %32
  %33 : f32x2 = load @in_cen, %1
  store @cen, %33
  %34 : f32x4 = load @in_tc, %1
  store @tc, %34
  store @primitive_id, %21
  store @stipple_pos, %20
  emit_vertex
  end_primitive
}
""", "line_stipple", "last_vertex_stage,clip=0x3,point_size=1.0,line_stipple")

sh("gs_line_stipple_strips", """shader geometry input=lines_adjacency output=line_strip max_vertices=6 invocations=2
in @pos : f32x4[4] builtin=position
in @col : f32x4[4] location=0
out @gl_pos : f32x4 builtin=position
out @ocol : f32x4 location=0
local @i : i32
fn main {
  %zero : i32 = const 0
  store @i, %zero
  loop {
    %k : i32 = load @i
    %four : i32 = const 4
    %done : bool = ige %k, %four
    if %done {
      break
    }
    %p : f32x4 = load @pos, %k
    store @gl_pos, %p
    %c : f32x4 = load @col, %k
    store @ocol, %c
    emit_vertex
    %one : i32 = const 1
    %split : bool = ieq %k, %one
    if %split {
      end_primitive
    }
    %k1 : i32 = iadd %k, %one
    store @i, %k1
  }
  end_primitive
}
""", "line_stipple", "line_stipple,line_rectangular,last_vertex_stage,clip=0x1,point_size=1.0")

sh("fs_line_stipple", """shader fragment
in @col : f32x4 location=0 slot=col0
in @fc : f32x4 builtin=frag_coord
out @frag : f32x4 location=0
ssbo @hits slot=0
fn main {
  %c : f32x4 = load @col
  %f : f32x4 = load @fc
  %x : f32 = swizzle %f, x
  %ten : f32 = const 10.0
  %left : bool = flt %x, %ten
  if %left {
    %half : f32 = const 0.5
    %h4 : f32x4 = vec %half, %half, %half, %half
    %dim : f32x4 = fmul %c, %h4
    store @frag, %dim
    return
  }
  store @frag, %c
  %zero : u32 = const 0
  %one : u32 = const 1
  %old : u32 = ssbo_atomic @hits, %zero, %one, op=add
}
""", "line_stipple", "line_stipple,polygon_stipple,lower_left_origin,alpha=less:0.5,two_side,sample_shading")

# ---------------- vector splitting ----------------
sh("cs_bitfield_vector_split", """shader compute local_size=1,1,1
ssbo @b slot=0
fn main {
  %o0 : u32 = const 0
  %o16 : u32 = const 16
  %v : u32x4 = load_ssbo @b, %o0
  %s : i32x4 = load_ssbo @b, %o16
  %offs : i32x4 = const 0, 8, 16, 24
  %cnts : i32x4 = const 8, 8, 8, 4
  %four : i32 = const 4
  %a : u32x4 = ubitfield_extract %v, %offs, %cnts
  %b : i32x4 = ibitfield_extract %s, %offs, %four
  %c : u32x4 = bitfield_insert %v, %a, %offs, %cnts
  %d : u32x4 = ubitfield_extract %v, %four, %four
  %bu : u32x4 = bitcast %b
  %e : u32x4 = iadd %c, %bu
  %f : u32x4 = iadd %e, %d
  %o32 : u32 = const 32
  store_ssbo @b, %o32, %f
  %v2 : u32x2 = swizzle %v, xy
  %off2 : i32x2 = swizzle %offs, zw
  %g : u32x2 = ubitfield_extract %v2, %off2, %off2
  %o48 : u32 = const 48
  store_ssbo @b, %o48, %g
}
""")

# Hand-written first (5c53e36), kept here so that this script writes it too.
sh("fs_interp_at_offset", """shader fragment
in @col : f32x4 location=0
in @uv : f32x2[2] location=1 noperspective
out @frag : f32x4 location=0
fn main {
  %0 : f32 = const 0.25
  %1 : f32 = const -0.125
  %2 : f32x2 = vec %0, %1
  %3 : f32x4 = interp_at_offset @col, %2
  %4 : i32 = const 1
  %5 : f32x2 = interp_at_offset @uv, %4, %2
  %6 : f32 = swizzle %5, x
  %7 : f32x4 = vec %6, %6, %6, %6
  %8 : f32x4 = fadd %3, %7
  store @frag, %8
}
""", "aliased_triangles,aliased_clip_planes=0x5,aliased_depth_clip=halfz")


sh("fs_interp_at_sample_centroid", """shader fragment
in @col : f32x4 location=0
in @uv : f32x2[2] location=1 noperspective
out @frag : f32x4 location=0
fn main {
  %0 : i32 = const 2
  %1 : f32x4 = interp_at_sample @col, %0
  %2 : i32 = const 1
  %3 : f32x2 = interp_at_centroid @uv, %2
  %4 : f32x2 = interp_at_sample @uv, %2, %0
  %5 : f32x2 = fadd %3, %4
  %6 : f32 = swizzle %5, x
  %7 : f32x4 = interp_at_centroid @col
  %8 : f32x4 = vec %6, %6, %6, %6
  %9 : f32x4 = fadd %1, %7
  %10 : f32x4 = fadd %9, %8
  store @frag, %10
}
""", "flat,sample_shading")

def renumber(text):
    names = {}
    def rep(m):
        n = m.group(1)
        if n not in names:
            names[n] = len(names)
        return "%" + str(names[n])
    return re.sub(r"%([A-Za-z_][A-Za-z0-9_]*)", rep, text)

if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "tests/corpus"
    for name, text in S.items():
        with open(os.path.join(out, name + ".ir"), "w") as f:
            f.write(renumber(text))
    with open(os.path.join(out, "keys.txt"), "w") as f:
        f.write("# NAME.ir: KEY (see spirv_gen::passes::VariantKey::parse); every shader\n# is also run with the default key. Generated by tests/corpus-src/gen.py.\n")
        for name in S:
            for k in KEYS.get(name, ()):
                f.write(f"{name}.ir: {k}\n")
    print(len(S), "shaders")
