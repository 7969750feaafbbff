mov.u32u32 r3.x, 0
      mov.u32u32 r3.y, 0
    loop:
    (rpt2)nop
      (nop3) cmps.u.ge p0.x, r3.y, r0.x
    (rpt2)nop
      br p0.x, #done
      add.u r3.x, r3.x, r3.y
      add.u r3.y, r3.y, 1
      jump #loop
    done:
      (jp)nop
