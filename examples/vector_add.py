#!/usr/bin/env python3
"""The Python twin of vector_add.cpp: c[i] = a[i] + b[i] for 1024 integers, written in ir3
assembly, dispatched on whatever device ADRENO_DEVICE names (the virtual Adreno when none is
set), and checked on the host. numpy is used when it is there, never needed."""
import os
import pathlib
import random
import sys

import adreno

COUNT = 1024  # the @buf size of vector_add.s


def main():
    source = (pathlib.Path(__file__).parent / "kernels" / "vector_add.s").read_text()
    rng = random.Random(2026)
    with adreno.Device.open(os.environ.get("ADRENO_DEVICE") or "virtual-kgsl") as device:
        c, a, b = (device.allocate(COUNT * 4) for _ in range(3))
        a_view, b_view, c_view = (buffer.view().cast("I") for buffer in (a, b, c))
        for i in range(COUNT):
            a_view[i], b_view[i] = rng.getrandbits(32), rng.getrandbits(32)

        with device.program_from_assembly(source) as program, program.arguments() as arguments, \
                device.queue() as queue:
            arguments.set_buffer(0, c).set_buffer(1, a).set_buffer(2, b)
            queue.dispatch(program, arguments, groups=COUNT // 64, local_size=64)
            queue.finish()

        wrong = sum(c_view[i] != (a_view[i] + b_view[i]) & 0xFFFFFFFF for i in range(COUNT))
        print(f"vector_add (Python) on {device.info.name}: {wrong} of {COUNT} sums wrong")
        for buffer in (a, b, c):
            buffer.close()
    return 0 if wrong == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
