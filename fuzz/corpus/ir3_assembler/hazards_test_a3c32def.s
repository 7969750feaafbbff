stg.u32 g[r2.x], r1.x, 1
    end
