(nop3) and.b r0.y, r0.x, 3
      (nop3) cmps.u.eq p0.x, r0.y, 0
    (rpt2)nop
      br p0.x, #multiple_of_4
      add.u r3.x, r0.x, 300
      jump #join
    multiple_of_4:
      add.u r3.x, r0.x, 500
    join:
    (jp)(rpt2)nop
      (jp)add.u r3.x, r3.x, 7
