cmps.u.eq p0.x, r0.x, 5
      mov.u32u32 r3.x, 1
    (rpt4)nop
      bany p0.x, #any
      jump #next
    any:
      (jp)add.u r3.x, r3.x, 10
    next:
      (jp)ball p0.x, #all
      jump #end
    all:
    (jp)(rpt1)nop
      (jp)add.u r3.x, r3.x, 100
    end:
      (jp)nop
