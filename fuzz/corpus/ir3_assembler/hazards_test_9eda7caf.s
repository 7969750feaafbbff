mov.u32u32 r4.x, 10
    mov.u32u32 r4.y, 20
    mov.u32u32 r4.z, 30
    (nop3) and.b r0.y, r0.x,
