(ss)(rpt5)nop
    stg.u32 g[r2.x], r3.z, 1
    end
