cov.u32s16 hr0.x, r0.y
    (rpt2)nop
    mova a0.x, hr0.x
    (rpt4)nop
    mov.u32u32 r4.w, 40
    mov.u32u32 r1.x, r<a0.x + 16>
    (rpt5)nop
