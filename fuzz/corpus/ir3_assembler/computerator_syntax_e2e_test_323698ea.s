@localsize 16, 1, 1
@buf 16
@invocationid(r0.x)
@localmem 64
shl.b r1.x, r0.x, 2
add.u r1.y, r0.x, 100
xor.b r1.z, r0.x, 1
(rpt2)nop
shl.b r1.w, r1.z, 2
(rpt5)nop
stl.u32 l[r1.x], r1.y, 1
bar
ldl.u32 r2.x, l[r1.w], 1
(ss)add.u r2.x, r2.x, r1.x
(rpt5)nop
stib.b.untyped.1d.u32.1.imm r2.x, r0.x, 0
end
