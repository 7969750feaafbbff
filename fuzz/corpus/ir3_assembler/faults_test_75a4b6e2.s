mov.u32u32 r0.x, c0.x
  mov.u32u32 r0.y, c0.y
  mov.u32u32 r1.x, 42
    (rpt5)nop
  stg.u32 g[r0.x], r1.x, 1
  end
