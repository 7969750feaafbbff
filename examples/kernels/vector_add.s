; c[i] = a[i] + b[i], i = work-group id * 64 + local id. Buffer addresses arrive in the constant
; file (c0.xy = c, c0.zw = a, c1.xy = b), as Mesa's compiler lays out kernel arguments.
@localsize 64, 1, 1
@buf 1024 (c0.x)
@buf 1024 (c0.z)
@buf 1024 (c1.x)
@invocationid(r0.x)
@wgid(r48.x)
    shl.b r0.y, r48.x, 6
    mov.u32u32 r1.x, c0.x
    mov.u32u32 r1.y, c0.y
    mov.u32u32 r1.z, c0.z
    mov.u32u32 r1.w, c0.w
    mov.u32u32 r2.z, c1.x
    mov.u32u32 r2.w, c1.y
    add.u r0.y, r0.y, r0.x
    (rpt5)nop
    ldg.a.u32 r2.x, g[r1.z+r0.y], 1
    ldg.a.u32 r2.y, g[r2.z+r0.y], 1
    (sy)add.u r3.x, r2.x, r2.y
    (rpt5)nop
    stg.a.u32 g[r1.x+r0.y], r3.x, 1
    end
