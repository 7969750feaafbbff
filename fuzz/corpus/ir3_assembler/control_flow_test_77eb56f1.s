shl.b r0.y, r0.x, 2
      (nop3) mul.u24 r1.x, r0.x, 3
    (rpt2)nop
      stl.u32 l[r0.y], r1.x, 1
      bar
      (nop3) add.u r0.z, r0.x, 1
      (nop3) and.b r0.z, r0.z, 511
      (nop3) shl.b r0.z, r0.z, 2
    (rpt2)nop
      ldl.u32 r3.x, l[r0.z], 1
