#!/usr/bin/env python3
"""A graph from Python: two dependent vector adds (e = (a + b) + b) recorded once, then replayed
with new input buffers and new values each time — only the changed addresses are rewritten.
With numpy (optional) the buffers are filled and checked as arrays, without copies."""
import os
import pathlib
import random
import sys

import adreno

COUNT = 1024  # the @buf size of vector_add.s
READ, WRITE = adreno.Access.READ, adreno.Access.WRITE

try:
    import numpy
except ImportError:
    numpy = None


def fill(buffer, rng):
    if numpy is not None:
        numpy.frombuffer(buffer.view(), numpy.uint32)[:] = numpy.array(
            [rng.getrandbits(32) for _ in range(COUNT)], numpy.uint32)
    else:
        view = buffer.view().cast("I")
        for i in range(COUNT):
            view[i] = rng.getrandbits(32)


def wrong_sums(total, x, y):
    if numpy is not None:
        as_array = [numpy.frombuffer(b.view(), numpy.uint32) for b in (total, x, y)]
        return int(numpy.count_nonzero(as_array[0] != as_array[1] + as_array[2]))
    t, xv, yv = (b.view().cast("I") for b in (total, x, y))
    return sum(t[i] != (xv[i] + yv[i]) & 0xFFFFFFFF for i in range(COUNT))


def main():
    source = (pathlib.Path(__file__).parent / "kernels" / "vector_add.s").read_text()
    rng = random.Random(2026)
    wrong = 0
    with adreno.Device.open(os.environ.get("ADRENO_DEVICE") or "virtual-kgsl") as device:
        a, b, c, e = (device.allocate(COUNT * 4) for _ in range(4))
        program = device.program_from_assembly(source)
        first = program.arguments().set_buffer(0, c).set_buffer(1, a).set_buffer(2, b)
        second = program.arguments().set_buffer(0, e).set_buffer(1, c).set_buffer(2, b)
        done = device.signal()
        with device.graph() as graph, device.queue() as queue:
            add_ab = graph.dispatch(program, first, COUNT // 64, 64, access=(WRITE, READ, READ))
            graph.dispatch(program, second, COUNT // 64, 64, access=(WRITE, READ, READ))
            finished = graph.signal(done, 1)
            graph.build()
            print(f"graph: {graph.info.dispatch_count} dispatches in {graph.info.levels} levels, "
                  f"{graph.info.barriers} barrier(s)")
            for replay in range(1, 4):
                if replay > 1:  # a new input buffer and a new signal value
                    a.close()
                    a = device.allocate(COUNT * 4)
                    graph.set_buffer(add_ab, 1, a)
                    graph.set_value(finished, replay)
                fill(a, rng)
                fill(b, rng)
                graph.replay(queue)
                queue.submit()
                done.wait(replay)
                wrong += wrong_sums(c, a, b) + wrong_sums(e, c, b)
            queue.finish()
        print(f"graph_replay (Python) on {device.info.name}: {wrong} wrong sums over 3 replays")
        for item in (a, b, c, e, first, second, program, done):
            item.close()
    return 0 if wrong == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
