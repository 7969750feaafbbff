raw 0xffffffffffffffff
    (nop3) add.u r1.x, r51.x, r0.x
    (nop3) shl.b r1.y, r1.x, 4
    add.u r2.x, c0.x, r1.y
    mov.u32u32 r2.y, c0.y
    mov.u32u32 r3.x, r0.w
    mov.u32u32 r3.y, r48.x
    mov.u32u32 r3.z, r1.x
    mov.u32u32 r3.w, r51.w
    (rpt5)nop
    stg.u32 g[r2.x], r3.x, 4
    end
