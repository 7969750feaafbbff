top:
      nop
      br p0.x, #done     ; forward: 3 instructions ahead
      jump #top          // backward: 2 instructions behind
      nop
    done: end
