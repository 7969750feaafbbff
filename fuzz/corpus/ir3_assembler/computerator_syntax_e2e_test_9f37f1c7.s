@localsize 8, 1, 1
@buf 8 10, 20, 30, 40, 50, 60, 70, 80
@invocationid(r0.x)
@fullnopstart
@fullsyncstart
ldib.b.untyped.1d.u32.1.imm r1.x, r0.x, 0
add.u r1.x, r1.x, r0.x
@fullsyncend
@fullnopend
(rpt5)nop
stib.b.untyped.1d.u32.1.imm r1.x, r0.x, 0
end
