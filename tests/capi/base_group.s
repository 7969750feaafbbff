; out[wgid.x] = base_group.x + wgid.x: each work group's global id, formed as Mesa-compiled code
; forms it, from the base-group driver param (struct ir3_driver_params_cs, base_group_x is dword 4
; of the block, ir3_shader.h IR3_DP_CS). The C test declares the block at c1.x (dword 4), so
; base_group_x lands at dword 8, c2.x; out's address is at c0.xy.
@localsize 1, 1, 1
@wgid(r48.x)
    mov.u32u32 r1.x, c0.x
    mov.u32u32 r1.y, c0.y
    add.u r0.x, r48.x, c2.x
    (rpt5)nop
    stg.a.u32 g[r1.x+(r48.x<<2)], r0.x, 1
    end
