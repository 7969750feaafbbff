(nop3) shl.b r1.x, r0.x, 2
    add.u r2.x, c0.z, r1.x
    mov.u32u32 r2.y, c0.w
    (rpt5)nop
    ldg.u32 r3.x, g[r2.x], 1
    add.u r4.x, c0.x, r1.x
    mov.u32u32 r4.y, c0.y
    (sy)(nop3) add.u r3.x, r3.x, c1.x
    (rpt2)nop
    stg.u32 g[r4.x], r3.x, 1
    end
