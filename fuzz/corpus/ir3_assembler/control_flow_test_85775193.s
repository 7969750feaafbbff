(nop3) mul.u24 r1.x, r48.z, c1.y
    (nop3) add.u r1.x, r1.x, r48.y
    (nop3) mul.u24 r1.x, r1.x, c1.x
    (nop3) add.u r1.x, r1.x, r48.x
    mul.u24 r1.x, r1.x, c2.x
    (nop3) mul.u24 r1.y, r0.z, c1.w
    (nop3) add.u r1.y, r1.y, r0.y
    (nop3) mul.u24 r1.y, r1.y, c1.z
    (nop3) add.u r1.y, r1.y, r0.x
    (nop3) add.u r1.x, r1.x, r1.y
    (nop3) shl.b r1.x, r1.x, 4
    add.u r2.x, c0.x, r1.x
    mov.u32u32 r2.y, c0.y
    shl.b r4.x, r0.y, 10
    (nop3) shl.b r4.y, r0.z, 20
    (nop3) or.b r4.x, r4.x, r4.y
    or.b r4.x, r4.x, r0.x
    mov.u32u32 r4.y, r48.x
    mov.u32u32 r4.z, r48.y
    mov.u32u32 r4.w, r48.z
    (rpt5)nop
    stg.u32 g[r2.x], r4.x, 4
    end
