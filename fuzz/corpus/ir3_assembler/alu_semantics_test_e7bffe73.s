(nop3) shl.b r0.y, r0.x, 2
    add.u r1.x, c0.x, r0.y
    mov.u32u32 r1.y, c0.y
    add.u r1.z, c0.z, r0.y
    mov.u32u32 r1.w, c0.w
    add.u r2.x, c1.x, r0.y
    mov.u32u32 r2.y, c1.y
    (rpt1)nop
    ldg.u32 r3.x, g[r1.x], 1
    (rpt1)nop
    ldg.u32 r3.y, g[r1.z], 1
    (sy)nop
