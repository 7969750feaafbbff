@localsize 1, 1, 1
@buf 4
@const(c0.x) 2.0, 1.0, 0.0, 0.0
@const(c1.x) 0x11111111, 0x22222222, 0x33333333, 0x44444444
@wgid(r48.x)
@invocationid(r0.x)
@numwg(c2.x)
add.f r2.x, c0.x, c0.y
mov.u32u32 r1.x, c1.x
mov.u32u32 r1.y, c1.y
mov.u32u32 r1.z, c1.z
mov.u32u32 r1.w, c1.w
(rpt1)nop
cov.f32s16 hr6.x, r2.x
(rpt2)nop
mova a0.x, hr6.x
(rpt5)nop
(ul)mov.u32u32 r3.x, r<a0.x + 4>
mov.u32u32 r3.y, 0
(rpt5)nop
stib.b.untyped.1d.u32.1.imm r3.x, r3.y, 0
end
