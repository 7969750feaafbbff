mov.u32u32 r1.x, 10
      mov.u32u32 r1.y, 20
      mov.u32u32 r1.z, 30
      mov.u32u32 r1.w, 40
      (nop3) and.b r0.y, r0.x, 3
      cov.u32s16 hr0.x, r0.y
    (rpt2)nop
      mova a0.x, hr0.x
    (rpt5)nop
      mov.u32u32 r3.x, r<a0.x + 4>
