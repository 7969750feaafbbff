mov.u32u32 r1.x, c0.x
    mov.u32u32 r1.y, c0.y
    mov.u32u32 r0.y, 0
    mov.u32u32 r0.z, 4
    mov.u32u32 r0.w, 8
    mov.u32u32 r6.x, 12
    mov.u32u32 r2.x, c2.x
    mov.u32u32 r2.y, c2.y
    mov.u32u32 r2.z, c2.z
    mov.u32u32 r2.w, c2.w
    mov.u32u32 r3.x, c3.x
    mov.u32u32 r3.y, c3.y
    mov.u32u32 r3.z, c3.z
    mov.u32u32 r3.w, c3.w
    mov.u32u32 r4.x, c4.x
    mov.u32u32 r4.y, c4.y
    mov.u32u32 r4.z, c4.z
    mov.u32u32 r4.w, c4.w
    mov.u32u32 r5.x, c5.x
    mov.u32u32 r5.y, c5.y
    mov.u32u32 r5.z, c5.z
    mov.u32u32 r5.w, c5.w
    (rpt5)nop
    stg.a.u32 g[r1.x+(r0.y<<2)], r2.x, 4
    stg.a.u32 g[r1.x+(r0.z<<2)], r3.x, 4
    stg.a.u32 g[r1.x+(r0.w<<2)], r4.x, 4
    stg.a.u32 g[r1.x+(r6.x<<2)], r5.x, 4
    end
