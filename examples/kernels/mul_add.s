; out[i] = 3 * a[i] + b[i] (a 24-bit multiply: a < 2^24), i = work-group id * 64 + local id.
@localsize 64, 1, 1
@buf 16384 (c0.x)
@buf 16384 (c0.z)
@buf 16384 (c1.x)
@invocationid(r0.x)
@wgid(r48.x)
    shl.b r0.y, r48.x, 6
    mov.u32u32 r1.x, c0.x
    mov.u32u32 r1.y, c0.y
    mov.u32u32 r1.z, c0.z
    mov.u32u32 r1.w, c0.w
    mov.u32u32 r2.z, c1.x
    mov.u32u32 r2.w, c1.y
    mov.u32u32 r3.x, 3
    add.u r0.y, r0.y, r0.x
    (rpt5)nop
    ldg.a.u32 r2.x, g[r1.z+r0.y], 1
    ldg.a.u32 r2.y, g[r2.z+r0.y], 1
    (sy)mad.u24 r3.y, r2.x, r3.x, r2.y
    (rpt5)nop
    stg.a.u32 g[r1.x+r0.y], r3.y, 1
    end
