nop
(rpt2)nop
(eq)nop
end
br p0.x, #4
br p0.x, #-4
br !p0.x, #3
shps #21
(ss)shpe
getlast.w8 #4
getone #20
brao !p0.x, !p0.y, #7
braa p0.x, p0.y, #3
prede
brac.3 #30
predt
predf
kill p0.x
mov.f32f32 r0.x, c8.x
mov.f16f16 hr0.x, hc8.x
cov.s32s16 hr0.x, r0.x
(ul)mov.s32s32 r1.x, c<a0.x + 17>
mova a0.x, hr0.x
(rpt1)mov.f32f32 r1.y, (r)c260.x
mov.s32s32 r<a0.x + 4>, r2.x
mov.s16s16 hr<a0.x>, hr1.y
mov.s16s16 hr1.x, hr<a0.x>
movmsk.w128 r48.x
swz.u32u32 r1.x, r0.w, r0.y, r0.z
gat.f16u32 r1.y, hr0.y, hr0.z, hr0.w, hr1.x
sct.u32f16 hr1.y, hr0.z, hr0.w, hr1.x, r0.y
sct.f16u32 r1.y, r0.z, r0.w, r1.x, hr0.y
mov.s16s16 hr1.y, -1
mov.f16f16 hr1.y, h(0.625000)
mov.f16f16 hr1.z, h(0.500000)
mova1 a1.x, 0
mov.f32f32 r0.x, (0.000000)
mov.f32f32 r0.x, (0.500000)
mov.f32f32 r0.x, (1.000000)
mov.f32f32 r0.x, (2.000000)
mov.f32f32 r0.x, (3.000000)
mov.f32f32 r0.x, (4.000000)
add.f hr0.z, r0.y, c<a0.x + 33>
(nop3) cmps.f.lt r1.x, (abs)r1.x, c16.x
(rpt2)bary.f (ei)r0.z, (r)0, r0.x
(nop1) bary.f (ei)r0.z, 0, r0.x
flat.b (ei)r0.x, 0, r0.x
(nop2) flat.b (ei)r0.x, 0, r0.x
(nop3) absneg.s hr0.y, (abs)hr0.y
(nop3) add.s hr1.w, hr0.x, h(-1)
cmps.f.ne p0.x, hr1.x, h(0.0)
and.b p0.x, hr2.y, h(1)
and.b p0.y, hr0.y, hr0.z
(rpt1)add.f hr0.z, (r)hr1.z, (neg)(r)hc8.x
(sat)(nop3) add.s r0.y, r0.y, r1.x
(nop2) sub.u hr0.x, hc33.z, (neg)hr<a0.x + 128>
clz.b r0.y, c8.x
bfrev.b r2.y, r2.y
cmps.s.eq p0.x, r1.x, 1
add.f r1.w, r2.x, (neg)(0.0)
add.f r1.w, r2.x, (neg)(0.5)
add.f r1.w, r2.x, (neg)(1.0)
add.f r1.w, r2.x, (neg)(2.0)
add.f r1.w, r2.x, (neg)(e)
add.f r1.w, r2.x, (neg)(pi)
add.f r1.w, r2.x, (neg)(1/pi)
add.f r1.w, r2.x, (neg)(1/log2(e))
add.f r1.w, r2.x, (neg)(log2(e))
add.f r1.w, r2.x, (neg)(1/log2(10))
add.f r1.w, r2.x, (neg)(log2(10))
add.f r1.w, r2.x, (neg)(4.0)
(sy)mul.f hr1.x, hr1.x, h(0.0)
(sy)mul.f hr1.x, hr1.x, h(0.5)
(sy)mul.f hr1.x, hr1.x, h(1.0)
(sy)mul.f hr1.x, hr1.x, h(2.0)
(sy)mul.f hr1.x, hr1.x, h(e)
(sy)mul.f hr1.x, hr1.x, h(pi)
(sy)mul.f hr1.x, hr1.x, h(1/pi)
(sy)mul.f hr1.x, hr1.x, h(1/log2(e))
(sy)mul.f hr1.x, hr1.x, h(log2(e))
(sy)mul.f hr1.x, hr1.x, h(1/log2(10))
(sy)mul.f hr1.x, hr1.x, h(log2(10))
(sy)mul.f hr1.x, hr1.x, h(4.0)
sel.f16 hr0.x, hc16.y, hr0.x, hc16.z
(rpt1)sel.b32 r2.y, c38.y, (r)r2.y, c38.z
(rpt1)sel.b32 r1.x, (r)c13.z, r0.z, (r)c20.z
(rpt1)sel.b32 r0.z, (r)c12.z, r0.w, (r)r1.x
mad.f32 r1.y, (neg)c12.x, r1.x, c12.y
mad.u24 r2.y, c0.x, r2.z, r2.y
madsh.m16 r2.x, c12.w, r1.y, r2.x
(nop3) shlg hr8.x, 8, hr8.x, 12
(nop3) shlg hr23.x, hr0.y, hr23.x, hr0.z
(nop3) shlg hr8.x, hc<a0.x + 5>, hr8.x, hc<a0.x + 10>
(nop3) shlg r23.x, r0.y, r23.x, r0.z
(nop3) shrm hr0.z, (neg)hr0.w, hr0.w, hr0.z
shrm r48.w, 10, r48.y, 4095
(nop3) shlm hr0.z, (neg)hr0.w, hr0.w, hr0.z
(nop3) shrg hr0.z, (neg)hr0.w, hr0.w, hr0.z
(nop3) andg hr0.z, (neg)hr0.w, hr0.w, hr0.z
(sat)(nop3) dp2acc.mixed.low r0.z, r0.w, r0.w, r0.z
(nop3) dp4acc.unsigned.low r0.z, r0.w, r0.w, (neg)r0.z
(sy)dp4acc.unsigned.low r0.z, r0.z, r0.w, r0.x
rcp r2.z, r0.w
dsx (f32)(x)r0.z, r0.x
dsy (f32)(x)r0.z, r0.x
dsxpp.1 (x)r1.y, r0.x
dsxpp.1.p (x)r1.y, r0.x
getsize (u16)(xyzw)hr0.x, r0.x, t#0
sam.base1 (f32)(xyzw)r1.x, r0.z, s#3, t#2
getlod.base0 (s32)(xyzw)r0.x, r0.z, s#1, t#0
samb (f16)(xyzw)hr0.x, hr0.z, hr0.x, s#0, t#0
samb (f16)(xyzw)hr0.x, r0.y, r0.x, s#0, t#0
sam (f16)(xyzw)hr0.x, hr0.y, s#2, t#2
rgetinfo (u16)(xyzw)hr0.x
getinfo.base0 (u16)(xyzw)hr2.x, t#0
sam.base0 (f32)(xyzw)r0.x, r0.z, s#1, a1.x
sam.base0 (f32)(x)r2.x, r0.x, s#16, a1.x
isaml.base3 (s32)(x)r1.w, r0.w, r1.y, s#0, t#6
isaml.base3 (s32)(x)r1.w, r0.w, r1.y, s#0, a1.x
saml.base0 (f32)(yz)r1.z, r6.z, r6.x, s#36, a1.x
sam.s2en.uniform.base1 (f32)(xyz)r1.w, r0.z, r1.y, a1.x
saml.s2en.uniform.base1 (f32)(xyzw)r13.x, r0.w, r13.w, r11.w, a1.x
brcst.active.w8 (u32)(x)r0.z, r0.y
(sy)quad_shuffle.brcst (u32)(x)r1.w, r0.x, r0.z
(sy)quad_shuffle.diag (u32)(x)r1.x, r0.x
tcinv
sam (f32)(xyzw)r1.x, r0.z, s#6, t#6
sam.s2en.uniform (f32)(xyzw)r1.w, r1.y, hr2.x
sam.s2en.nonuniform (f32)(xyzw)r1.w, r1.y, hr2.x
isaml.s2en.nonuniform.base0 (f32)(xyzw)r0.x, r0.z, r0.z, r0.x
sam.s2en.nonuniform.base0 (f32)(xyzw)r0.x, r0.z, r0.x
stg.a.f32 g[r1.x+(r1.z<<2)], r0.z, 2
stg.a.s32 g[r0.z+(r11.z<<2)], r8.y, 1
stg.a.u8 g[r0.z+r11.z], hr8.y, 1
stg.s32 g[r0.z+5], r8.y, 3
stg.s32 g[r0.z], r8.y, 3
stg.s32 g[r0.z+305], r8.y, 3
stg.a.u32 g[r2.x+((r1.x+1)<<2)], r5.x, 1
stg.a.u32 g[r2.x+(((r1.x<<2)+3)<<2)], r5.x, 1
ldg.a.f32 r4.y, g[r0.z+(r4.y<<2)], 4
ldg.a.u32 r1.z, g[r1.z+(r2.w<<2)], 1
ldg.u32 r1.z, g[r1.z+7], 1
ldg.u32 r1.z, g[r1.z], 1
ldg.u32 r0.w, g[r0.w+308], 1
ldg.u16 hr0.w, g[r0.w+308], 1
ldg.a.f32 r1.w, g[r1.y+((r1.w+1)<<2)], 3
ldg.a.f32 r1.w, g[r1.y+(((r1.w<<3)+2)<<2)], 3
ldg.a.f16 hr1.z, g[r1.z+(r2.w<<1)], 1
ldg.a.u32 r1.z, g[r1.z+(r2.w<<5)], 1
stc.f32 c[32], r0.x, 1
stc.u32 c[32], r0.x, 3
stc.u32 c[a1.x], r0.x, 3
stc.u32 c[a1.x+32], r0.x, 3
stib.b.untyped.1d.u32.3.imm.base0 r0.x, r0.w, 1
stib.b.untyped.1d.u16.1.imm.base0 hr0.z, r0.x, 2
ldib.b.typed.1d.f32.4.imm r0.x, r0.w, 1
stlw.f32 l[r2.x], r0.w, 4
stlw.f32 l[r1.w], r0.z, 1
ldlw.u32 r0.w, l[r0.z+8], 2
stl.u32 l[r0.z], r1.x, 1
ldl.u32 r0.y, l[r0.y], 1
ldp.u32 r6.x, p[r2.x], 3
ldl.f32 r0.z, l[r0.z+12], 1
stl.f32 l[r2.w+16], r0.x, 4
(sy)ldlv.u32 r4.y, l[0], 3
resinfo.b.untyped.2d.u32.1.imm r0.x, 0
resinfo.b.untyped.1d.u32.1.imm r0.x, 0
resinfo.b.untyped.2d.u32.1.imm.base0 r0.x, 0
resinfo.b.untyped.2d.u32.1.nonuniform.base1 r0.x, r0.x
ldc.offset0.1.uniform r0.x, 0, r0.x
ldc.offset0.1.uniform r0.y, 0, r0.y
ldc.offset0.1.nonuniform r0.x, 0, r0.x
ldc.offset0.1.nonuniform r0.y, 0, r0.y
ldc.offset0.1.nonuniform r0.y, 255, r0.y
ldc.offset0.1.imm r0.x, r0.x, 0
ldc.offset1.1.imm r0.x, r0.x, 0
ldc.offset2.1.imm r0.x, r0.x, 0
ldc.offset3.1.imm r0.x, r0.x, 0
ldc.u.offset0.3.imm.base0 r48.y, 0, 0
ldc.1.k.imm.base0 c[a1.x], 0, 0
ldc.4.k.imm.base0 c[a1.x], 0, 0
stp.f32 p[r11.y-176], r0.y, 1
stp.f32 p[r11.y-104], r2.z, 2
stp.u32 p[r11.y-96], r5.y, 1
ldp.u32 r2.x, p[r6.x], 1
stp.u32 p[r11.y+256], r5.y, 1
ldg.k.u32 c[16], g[r48.x+208], 1
ldg.k.u32 c[a1.x+136], g[r48.x+2352], 1
(sy)atomic.max.untyped.1d.u32.1.l r0.w, l[r0.z], r0.w
atomic.g.add.untyped.1d.u32.1.g r0.z, r0.x, r0.z
atomic.b.add.untyped.1d.s32.1.imm r0.w, r0.y, 0
atomic.b.and.untyped.1d.s32.1.imm r0.w, r0.y, 0
atomic.b.max.typed.1d.u32.1.imm r0.x, r0.w, 0
ldib.b.untyped.1d.u32.4.nonuniform.base0 r2.z, r2.z, r1.z
(sy)stib.b.untyped.1d.u32.4.nonuniform.base0 r2.z, r2.y, r1.w
(sy)atomic.b.add.typed.2d.u32.1.nonuniform.base0 r1.x, r0.z, r1.z
getfiberid.u32 r0.y
shfl.up.u16 hr3.y, hr0.y, 5
shfl.up.u16 hr5.w, hr3.x, r48.x
shfl.up.u32 r1.z, r0.x, 5
shfl.up.u32 r1.w, r0.z, r1.y
shfl.down.u16 hr4.y, hr2.z, r48.y
shfl.xor.u32 r1.y, r1.x, 63
shfl.rup.u16 hr4.z, hr4.x, r48.x
getspid.u32 r1.x
getwid.u32 r1.y
fence.g.l.r.w
fence.r.w
(sy)bar.g
sleep.l
dccln.all
end
