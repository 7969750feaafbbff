mov.u32u32 r1.x, c0.x
    mov.u32u32 r1.y, c0.y
    (nop3) add.u r1.z, r0.x, 1
    (rpt2)nop
    atomic.g.add.untyped.1d.u32.1.g r2.x, r1.x, r1.z
    mul.u24 r1.w, r0.x, 7
    mov.u32u32 r3.x, 0
    mov.u32u32 r3.y, 101
    nop
    mov.u32u32 r3.z, r1.w
  mod:
    (rpt2)nop
    (nop3) cmps.u.lt p0.x, r3.z, r3.y
    (rpt2)nop
    br p0.x, #done
    sub.u r3.z, r3.z, r3.y
    jump #mod
  done:
    (jp)atomic.max.untyped.1d.u32.1.l r2.y, l[r3.x], r3.z
    bar
    ldl.u32 r2.z, l[r3.x], 1
    (nop3) shl.b r4.x, r0.x, 3
    add.u r4.x, r4.x, 8
    (nop3) mul.u24 r4.y, r48.x, c0.z
    (nop3) add.u r4.x, r4.x, r4.y
    add.u r5.x, c0.x, r4.x
    mov.u32u32 r5.y, c0.y
    (rpt5)nop
    (sy)stg.u32 g[r5.x], r2.x, 1
    (ss)(nop3) add.u r5.x, r5.x, 4
    (rpt2)nop
    stg.u32 g[r5.x], r2.z, 1
    end
