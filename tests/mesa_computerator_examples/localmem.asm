; localmem.asm — Mesa's computerator example src/freedreno/computerator/examples/localmem.asm
; (Mesa 26.0-devel d02ba9bb9c01), unmodified below this header. Kept as Mesa's text so that the
; tests assemble and run exactly what Mesa's own tool runs (tests/e2e/computerator_syntax_e2e_test.cpp runs it: getone and local memory).
;
; Copyright © the authors of Mesa's computerator, under Mesa's MIT license:
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

@localsize 8, 1, 1
@buf 8
@invocationid(r0.x)
@localmem 4
@branchstack 1

mov.u32u32 r1.x, 0

getone #l_all
mov.u32u32 r1.y, 5
(rpt2)nop
stlw.u32 l[r1.x], r1.y, 1

l_all:
(jp)ldlw.u32 r1.z, l[r1.x], 1
(ss)nop
stib.b.untyped.1d.u32.4.imm r1.z, r0.x, 0
end
