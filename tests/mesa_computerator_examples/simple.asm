; simple.asm — Mesa's computerator example src/freedreno/computerator/examples/simple.asm,
; unmodified below this header. Kept as Mesa's text so that the tests assemble and run exactly
; what Mesa's own tool runs (tests/dispatch/computerator_reference_test.cpp,
; tests/e2e/computerator_syntax_e2e_test.cpp).
;
; Copyright © 2020 Google, Inc. (Mesa's computerator)
;
; Permission is hereby granted, free of charge, to any person obtaining a
; copy of this software and associated documentation files (the "Software"),
; to deal in the Software without restriction, including without limitation
; the rights to use, copy, modify, merge, publish, distribute, sublicense,
; and/or sell copies of the Software, and to permit persons to whom the
; Software is furnished to do so, subject to the following conditions:
;
; The above copyright notice and this permission notice (including the next
; paragraph) shall be included in all copies or substantial portions of the
; Software.
;
; THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
; IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
; FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT.  IN NO EVENT SHALL
; THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
; LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
; OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
; SOFTWARE.

@localsize 1, 1, 1
@buf 4  ; g[0]
@const(c0.x)  0.0, 0.0, 0.0, 0.0
@const(c1.x)  1.0, 2.0, 3.0, 4.0
@wgid(r48.x)        ; r48.xyz
@invocationid(r0.x) ; r0.xyz
@numwg(c2.x)        ; c2.xyz
mov.f32f32 r2.x, c0.y
mov.u32u32 r0.x, 0x12345678
mov.u32u32 r0.y, 0x12345678
mov.u32u32 r0.z, 0x12345678
add.u r2.x, c0.x, r2.x
mov.u32u32 r0.w, 0x12345678
mov.u32u32 r1.x, 0x12345678
mov.u32u32 r1.y, 0x12345678
cov.u32s16 hr4.x, r2.x
mov.u32u32 r1.z, 0x12345678
mov.u32u32 r1.w, 0x12345678
nop
mova a0.x, hr4.x
(rpt5)nop
(ul)mov.u32u32 r0.x, r<a0.x>
mov.u32u32 r0.y, 0x00000000
(rpt5)nop
stib.b.untyped.1d.u32.1.imm r0.x, r0.y, 0
end
nop

