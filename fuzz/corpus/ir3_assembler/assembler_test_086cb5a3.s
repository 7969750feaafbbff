@localsize 32, 2, 1
    @buf 128 (c2.x)
    @buf 8 1, 2, 3
    @const(c1.x) 1.0, 0x10, -1, 7
    @invocationid(r0.x)
    @wgid(r48.x)
    @numwg(c3.x)
    end
