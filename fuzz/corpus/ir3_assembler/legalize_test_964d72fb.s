mov.u32u32 r1.x, 0
    mov.u32u32 r1.y, 0
    mov.u32u32 r2.x, 0
    (rpt2)nop
  top:
    add.u r1.y, r1.y, r1.x
    (nop3) add.u r2.x, r2.x, 1
    (nop3) cmps.u.lt p0.x, r2.x, 4
    (rpt1)nop
    add.u r1.x, r1.x, 1
    br p0.x, #top
    end
