@localsize 1, 1, 1
@buf 4
@const(c0.x) 0.0, 0.0, 0.0, 0.0
@const(c1.x) 1.0, 2.0, 3.0, 4.0
@wgid(r48.x)
@invocationid(r0.x)
@numwg(c2.x)
mov.u32u32 r0.x, 0x600dcafe
mov.u32u32 r0.y, 0
mov.f32f32 r2.x, c1.y
mov.u32u32 r1.x, 0
mov.u32u32 r1.y, 0
mov.u32u32 r1.z, 0
cov.f32s16 hr4.x, r2.x
mov.u32u32 r1.w, 0
nop
nop
nop
nop
nop
nop
(rpt5)nop
stib.b.untyped.1d.u32.1.imm r0.x, r0.y, 0
end
