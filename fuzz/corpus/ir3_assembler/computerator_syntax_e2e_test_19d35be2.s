@localsize 32, 1, 1
@buf 32
@invocationid(r0.x)
@branchstack 2
mov.u32u32 r2.x, 0x0badf00d
cmps.u.lt p0.x, r0.x, 9
(rpt5)nop
br !p0.x, #skip
add.u r2.x, r0.x, 1000
skip:
(jp)(rpt5)nop
stib.b.untyped.1d.u32.1.imm r2.x, r0.x, 0
end
