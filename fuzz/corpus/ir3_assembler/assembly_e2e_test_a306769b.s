@localsize 4, 1, 1
@buf 4
@buf 4
@invocationid(r0.x)
ldib.b.untyped.1d.u32.1.imm r1.x, r0.x, 1
(sy)add.u r1.x, r1.x, 1
(rpt5)nop
stib.b.untyped.1d.u32.1.imm r1.x, r0.x, 0
end
