add.u r1.x, r0.x, 0
    add.u r1.y, r0.x, 1
    add.u r1.z, r0.x, 2
    add.u r1.w, r0.x, 3
    mov.u32u32 r0.y, 0
    (rpt5)nop
    stp.u32 p[r0.y], r1.x, 4
    ldp.u32 r3.y, p[r0.y+12], 1
    ldp.u32 r3.z, p[r0.y+4], 1
    (sy)(nop3) shl.b r3.x, r3.y, 8
    (nop3) or.b r3.x, r3.x, r3.z
    (rpt2)nop
    stg.u32 g[r2.x], r3.x, 1
    end
