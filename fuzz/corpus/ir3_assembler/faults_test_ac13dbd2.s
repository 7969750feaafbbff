mov.u16u16 hr2.x, 0x1234
    mov.u16u16 hr2.y, 0xabcd
    mov.u32u32 r0.x, c0.x
    mov.u32u32 r0.y, c0.y
    (rpt5)nop
    stg.u32 g[r0.x], r1.x, 1
    end
