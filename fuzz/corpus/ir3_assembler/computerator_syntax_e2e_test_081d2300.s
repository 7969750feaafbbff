@localsize 4, 1, 1
@buf 4
@pvtmem 8
@invocationid(r0.x)
shl.b r1.x, r0.x, 3
mov.u32u32 r2.x, 0
(rpt5)nop
stp.u32 p[r2.x + 4], r1.x, 1
ldp.u32 r3.x, p[r2.x + 4], 1
(sy)add.u r3.x, r3.x, 5
(rpt5)nop
stib.b.untyped.1d.u32.1.imm r3.x, r0.x, 0
end
