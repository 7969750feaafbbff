; Each work group of 128 reverses its slice through local memory behind a barrier:
; out[g*128 + i] = in[g*128 + 127 - i].
@localsize 128, 1, 1
@buf 16384 (c0.x)
@buf 16384 (c0.z)
@localmem 512
@invocationid(r0.x)
@wgid(r48.x)
    shl.b r0.y, r48.x, 7
    shl.b r0.z, r0.x, 2
    mov.u32u32 r1.x, c0.x
    mov.u32u32 r1.y, c0.y
    mov.u32u32 r1.z, c0.z
    mov.u32u32 r1.w, c0.w
    mov.u32u32 r3.x, 508
    (rpt2)nop
    add.u r0.y, r0.y, r0.x
    sub.u r0.w, r3.x, r0.z
    (rpt4)nop
    ldg.a.u32 r2.x, g[r1.z+r0.y], 1
    (sy)stl.u32 l[r0.z], r2.x, 1
    bar
    (ss)(sy)nop
    ldl.u32 r2.y, l[r0.w], 1
    (ss)nop
    (sy)stg.a.u32 g[r1.x+r0.y], r2.y, 1
    end
