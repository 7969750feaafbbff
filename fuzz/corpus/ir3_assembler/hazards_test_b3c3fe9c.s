cmps.u.lt p0.x, r0.x, c0.z
    (rpt5)nop
    br !p0.x, #long
    mov.u32u32 r1.x, 6
    jump #join
  long:
    mov.u32u32 r1.x, 5
    (rpt5)nop
    jump #join
  join:
    (jp)nop
