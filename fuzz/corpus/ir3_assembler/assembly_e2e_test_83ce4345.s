@localsize 64, 1, 1
@buf 1024 (c0.x)
@buf 1024 (c0.z)
@const(c1.x) 1000, 3, 0, 0
@numwg(c2.x)
@invocationid(r0.x)
@wgid(r48.x)
    mov.u32u32 r1.x, c0.x
    mov.u32u32 r1.y, c0.y
    mov.u32u32 r1.z, c0.z
    mov.u32u32 r1.w, c0.w
    mov.u32u32 r2.x, c2.x
    mov.u32u32 r2.y, c2.y
    mov.u32u32 r2.z, c2.z
    mov.u32u32 r2.w, c1.x
    mov.u32u32 r6.x, c1.y
    (rpt2)nop
    ; linear group = x + nx·(y + ny·z); groups = nx·ny·nz
    mad.u24 r3.x, r48.z, r2.y, r48.y
    mul.u24 r3.y, r2.x, r2.y
    (rpt2)nop
    mad.u24 r3.x, r3.x, r2.x, r48.x
    mul.u24 r3.y, r3.y, r2.z
    (rpt2)nop
    shl.b r3.x, r3.x, 6
    shl.b r3.w, r3.y, 6
    (rpt2)nop
    add.u r4.x, r3.x, r0.x
    mov.u32u32 r4.y, 0
    (rpt2)nop
loop:
    (jp)cmps.u.ge p0.x, r4.x, r2.w
    (rpt5)nop
    br p0.x, #done
    ldg.a.u32 r5.x, g[r1.z+(r4.x<<2)], 1
    (sy)mad.u24 r5.y, r5.x, r6.x, r4.y
    (rpt5)nop
    stg.a.u32 g[r1.x+(r4.x<<2)], r5.y, 1
    (ss)add.u r4.x, r4.x, r3.w
    add.u r4.y, r4.y, 1
    (rpt2)nop
    jump #loop
done:
    (jp)nop
    end
