mov.u32u32 r1.x, 0
    mov.u32u32 r1.y, 1
  top:
    add.u r1.y, r1.y, r1.y
    add.u r1.x, r1.x, 1
    cmps.u.lt p0.x, r1.x, 10
    br p0.x, #top
    jump #out
    mov.u32u32 r1.y, 0
  out:
    stg.u32 g[r2.x], r1.y, 1
    end
