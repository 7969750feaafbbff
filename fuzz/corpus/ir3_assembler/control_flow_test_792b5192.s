(nop3) shl.b r2.z, r0.x, 2
    add.u r2.x, c0.x, r2.z
    mov.u32u32 r2.y, c0.y
