; C = A·B in single precision, row-major: A is M×K, B is K×N, C is M×N; M a multiple of 16,
; N of 8, K of 16. A work group of 8×16 fibers computes a 16×8 tile of C, one element per fiber,
; stepping through K sixteen at a time: the group stages a 16×8 tile of B and a 16×16 tile of A
; in local memory (B at byte 0, A at byte 512), waits at a barrier, and each fiber runs 16
; multiply-adds out of local memory.
;
; Written without delay slots or (sy)/(ss): load it with the legalizer on
; (Program::from_ir3_assembly(device, source, true), adreno-run --legalize), which places them.
; The host prepends `@const(c2.x) N, K, K/16, 0`.
@localsize 8, 16, 1
@buf 4 (c0.x)
@buf 4 (c0.z)
@buf 4 (c1.x)
@localmem 1536
@invocationid(r0.x)
@wgid(r48.x)
    ; row = 16·group.y + local.y, column = 8·group.x + local.x
    shl.b r1.x, r48.y, 4
    add.u r1.x, r1.x, r0.y
    shl.b r1.y, r48.x, 3
    add.u r1.y, r1.y, r0.x
    ; element indices of this fiber's loads: A[row][k0 + local.x], B[k0 + local.y][column]
    mul.u24 r1.z, r1.x, c2.y
    add.u r1.z, r1.z, r0.x
    mul.u24 r1.w, r0.y, c2.x
    add.u r1.w, r1.w, r1.y
    ; local byte offsets: its A stores (row local.y, columns local.x and local.x + 8), its B
    ; store (row local.y, column local.x), the A row it reads, the B column it reads
    shl.b r2.x, r0.y, 6
    shl.b r2.y, r0.x, 2
    add.u r2.x, r2.x, r2.y
    add.u r2.x, r2.x, 512
    shl.b r2.z, r0.y, 5
    add.u r2.z, r2.z, r2.y
    shl.b r2.w, r0.y, 6
    add.u r2.w, r2.w, 512
    mov.u32u32 r3.x, r2.y
    ; the sum, the K tiles left, how far B's index moves per tile (16 rows of N)
    mov.u32u32 r3.y, 0
    mov.u32u32 r3.z, c2.z
    shl.b r3.w, c2.x, 4
    ; buffer addresses: A, B, C
    mov.u32u32 r4.x, c0.z
    mov.u32u32 r4.y, c0.w
    mov.u32u32 r4.z, c1.x
    mov.u32u32 r4.w, c1.y
    mov.u32u32 r5.x, c0.x
    mov.u32u32 r5.y, c0.y
tile:
    add.u r6.w, r1.z, 8
    ldg.a.u32 r6.x, g[r4.x+r1.z], 1
    ldg.a.u32 r6.y, g[r4.x+r6.w], 1
    ldg.a.u32 r6.z, g[r4.z+r1.w], 1
    stl.u32 l[r2.x], r6.x, 1
    stl.u32 l[r2.x+32], r6.y, 1
    stl.u32 l[r2.z], r6.z, 1
    bar
    ; A[row][k0 .. k0+15] as four vec4 loads, B[k0 .. k0+15][column] one by one
    ldl.u32 r8.x, l[r2.w], 4
    ldl.u32 r9.x, l[r2.w+16], 4
    ldl.u32 r10.x, l[r2.w+32], 4
    ldl.u32 r11.x, l[r2.w+48], 4
    ldl.u32 r12.x, l[r3.x], 1
    ldl.u32 r12.y, l[r3.x+32], 1
    ldl.u32 r12.z, l[r3.x+64], 1
    ldl.u32 r12.w, l[r3.x+96], 1
    ldl.u32 r13.x, l[r3.x+128], 1
    ldl.u32 r13.y, l[r3.x+160], 1
    ldl.u32 r13.z, l[r3.x+192], 1
    ldl.u32 r13.w, l[r3.x+224], 1
    ldl.u32 r14.x, l[r3.x+256], 1
    ldl.u32 r14.y, l[r3.x+288], 1
    ldl.u32 r14.z, l[r3.x+320], 1
    ldl.u32 r14.w, l[r3.x+352], 1
    ldl.u32 r15.x, l[r3.x+384], 1
    ldl.u32 r15.y, l[r3.x+416], 1
    ldl.u32 r15.z, l[r3.x+448], 1
    ldl.u32 r15.w, l[r3.x+480], 1
    mad.f32 r3.y, r8.x, r12.x, r3.y
    mad.f32 r3.y, r8.y, r12.y, r3.y
    mad.f32 r3.y, r8.z, r12.z, r3.y
    mad.f32 r3.y, r8.w, r12.w, r3.y
    mad.f32 r3.y, r9.x, r13.x, r3.y
    mad.f32 r3.y, r9.y, r13.y, r3.y
    mad.f32 r3.y, r9.z, r13.z, r3.y
    mad.f32 r3.y, r9.w, r13.w, r3.y
    mad.f32 r3.y, r10.x, r14.x, r3.y
    mad.f32 r3.y, r10.y, r14.y, r3.y
    mad.f32 r3.y, r10.z, r14.z, r3.y
    mad.f32 r3.y, r10.w, r14.w, r3.y
    mad.f32 r3.y, r11.x, r15.x, r3.y
    mad.f32 r3.y, r11.y, r15.y, r3.y
    mad.f32 r3.y, r11.z, r15.z, r3.y
    mad.f32 r3.y, r11.w, r15.w, r3.y
    ; every fiber is done reading this tile before the next one overwrites it
    bar
    add.u r1.z, r1.z, 16
    add.u r1.w, r1.w, r3.w
    sub.u r3.z, r3.z, 1
    cmps.u.gt p0.x, r3.z, 0
    br p0.x, #tile
    ; C[row][column]
    mul.u24 r7.x, r1.x, c2.x
    add.u r7.x, r7.x, r1.y
    stg.a.u32 g[r5.x+r7.x], r3.y, 1
    end
