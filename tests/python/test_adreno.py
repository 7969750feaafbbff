"""[virtual-kernel] The Python package over the C API on both virtual kernels: vector add and a
graph replay on random inputs checked in full, every object kind, the errors each raises, and
closing in any order."""
import os
import pathlib
import random
import struct
import subprocess
import sys

import pytest

import adreno

COUNT = 1024  # the @buf size of vector_add.s

try:
    import numpy
except ImportError:
    numpy = None


def random_fill(buffer, rng, count=COUNT):
    view = buffer.view().cast("I")
    for i in range(count):
        view[i] = rng.getrandbits(32)


def wrong_sums(c, a, b, count=COUNT):
    cv, av, bv = (x.view().cast("I") for x in (c, a, b))
    return sum(cv[i] != (av[i] + bv[i]) & 0xFFFFFFFF for i in range(count))


def test_vector_add_from_assembly_is_right_in_every_element(device, vector_add_source):
    rng = random.Random(1701)
    c, a, b = (device.allocate(COUNT * 4) for _ in range(3))
    random_fill(a, rng)
    random_fill(b, rng)
    with device.program_from_assembly(vector_add_source) as program, program.arguments() as arguments, \
            device.queue() as queue:
        assert program.argument_count == 3 and program.wave_size == adreno.WaveSize.THREAD64
        assert program.argument_index("buf2") == 2 and program.code_address != 0
        arguments.set_buffer("buf0", c).set_buffer(1, a).set_buffer(2, b)
        queue.dispatch(program, arguments, groups=(COUNT // 64, 1, 1), local_size=(64, 1, 1))
        fence = queue.submit()
        assert fence != 0
        assert queue.wait_fence(fence)
        assert wrong_sums(c, a, b) == 0
        # Again in 128-wide waves over windows of one buffer.
        big = device.allocate(3 * COUNT * 4)
        wc, wa, wb = (big.window(i * COUNT * 4, COUNT * 4) for i in range(3))
        random_fill(wa, rng)
        random_fill(wb, rng)
        arguments.set_buffer(0, wc).set_buffer(1, wa).set_buffer(2, wb)
        queue.dispatch(program, arguments, COUNT // 64, 64, wave_size=adreno.WaveSize.THREAD128)
        queue.finish()
        assert wrong_sums(wc, wa, wb) == 0
    for buffer in (a, b, c, big, wc, wa, wb):
        buffer.close()


@pytest.mark.skipif(numpy is None, reason="numpy is optional and not installed")
def test_numpy_maps_a_buffer_without_copying(device):
    rng = numpy.random.default_rng(7)
    with device.allocate(4096, memory=adreno.MemoryType.CACHED) as buffer:
        array = numpy.frombuffer(buffer.view(), numpy.uint32)
        values = rng.integers(0, 2**32, 1024, dtype=numpy.uint32)
        array[:] = values
        assert list(buffer.view().cast("I")) == values.tolist()  # the same memory
        buffer.flush_for_gpu()
        with device.queue() as queue:
            queue.write(buffer.window(64, 16), [1, 2, 3, 4])
            queue.finish()
        buffer.invalidate_for_cpu()
        assert array[16:20].tolist() == [1, 2, 3, 4]
        del array


def test_a_graph_replays_with_new_buffers_and_inputs(device, vector_add_source):
    rng = random.Random(4242)
    a, b, c, e = (device.allocate(COUNT * 4) for _ in range(4))
    program = device.program_from_assembly(vector_add_source)
    first = program.arguments().set_buffer(0, c).set_buffer(1, a).set_buffer(2, b)
    second = program.arguments().set_buffer(0, e).set_buffer(1, c).set_buffer(2, b)
    done = device.signal()
    access = (adreno.Access.WRITE, adreno.Access.READ, adreno.Access.READ)
    with device.graph() as graph, device.queue() as queue:
        d0 = graph.dispatch(program, first, COUNT // 64, 64, access=access)
        d1 = graph.dispatch(program, second, COUNT // 64, 64, access=access)
        sync = graph.signal(done, 1)
        graph.build()
        info = graph.info
        # Hand-worked: e reads c which the first writes: two levels, one barrier.
        assert (info.dispatch_count, info.levels, info.barriers) == (2, 2, 1) and info.command_dwords > 0
        for replay in range(1, 4):
            if replay > 1:
                new_a, new_e = device.allocate(COUNT * 4), device.allocate(COUNT * 4)
                graph.set_buffer(d0, 1, new_a)
                graph.set_buffer(d1, 0, new_e)
                a.close()
                e.close()
                a, e = new_a, new_e
                graph.set_value(sync, replay)
            random_fill(a, rng)
            random_fill(b, rng)
            graph.replay(queue)
            queue.submit()
            assert done.wait(replay, timeout=60)
            queue.finish()
            assert wrong_sums(c, a, b) == 0 and wrong_sums(e, c, b) == 0
            assert done.value == replay
        with pytest.raises(adreno.InvalidArgument, match="got 9"):
            graph.set_bytes(d0, 0, bytes(9))
        with pytest.raises(adreno.InvalidArgument):
            graph.dispatch(program, first, 1, 64)  # recording after build
    for item in (a, b, c, e, first, second, program, done):
        item.close()


def partial_sums_wrong(c, a, b, count):
    """Elements below `count` that are not a + b, and above it that are not 0."""
    cv = c.view().cast("I")
    return wrong_sums(c, a, b, count) + sum(cv[i] != 0 for i in range(count, COUNT))


def zero(buffer):
    buffer.view()[:] = bytes(buffer.size)


def test_indirect_dispatch_base_group_and_a_graphs_new_launch(device, vector_add_source):
    rng = random.Random(8080)
    a, b, c = (device.allocate(COUNT * 4) for _ in range(3))
    counts = device.allocate(64)
    random_fill(a, rng)
    random_fill(b, rng)
    with device.program_from_assembly(vector_add_source) as program, \
            program.arguments() as arguments, device.queue() as queue, device.graph() as graph:
        arguments.set_buffer(0, c).set_buffer(1, a).set_buffer(2, b)
        # Indirect: 7 of the 16 groups, counted by the GPU from memory.
        zero(c)
        words = counts.view().cast("I")
        words[0], words[1], words[2] = 7, 1, 1
        queue.dispatch_indirect(program, arguments, counts, local_size=64)
        queue.finish()
        assert partial_sums_wrong(c, a, b, 7 * 64) == 0
        with pytest.raises(adreno.InvalidArgument, match="groups"):
            queue.dispatch_indirect(program, arguments, counts.window(0, 8), local_size=64)
        with pytest.raises(adreno.InvalidArgument, match="local_size.x is 0"):
            queue.dispatch_indirect(program, arguments, counts, local_size=0)
        # The base group reaches the launch checks.
        with pytest.raises(adreno.InvalidArgument, match="base_group.y"):
            queue.dispatch(program, arguments, (16, 2), 64, base_group=(0, 2**32 - 2))
        # A graph's launch: 4 groups, then all 16.
        dispatch = graph.dispatch(program, arguments, 4, 64)
        graph.build()
        zero(c)
        graph.replay(queue)
        queue.finish()
        assert partial_sums_wrong(c, a, b, 4 * 64) == 0
        graph.set_launch(dispatch, COUNT // 64, 64)
        random_fill(a, rng)
        zero(c)
        graph.replay(queue)
        queue.finish()
        assert wrong_sums(c, a, b) == 0
        with pytest.raises(adreno.InvalidArgument, match="local_size.x is 0"):
            graph.set_launch(dispatch, 16, 0)
    # A graph's indirect dispatch reads the counts at each replay: 9 groups, then 3.
    with device.program_from_assembly(vector_add_source) as program, \
            program.arguments() as arguments, device.queue() as queue, device.graph() as graph:
        arguments.set_buffer(0, c).set_buffer(1, a).set_buffer(2, b)
        with pytest.raises(adreno.InvalidArgument, match="groups"):
            graph.dispatch_indirect(program, arguments, counts.window(0, 8), 64)
        dispatch = graph.dispatch_indirect(program, arguments, counts, 64)
        graph.build()
        with pytest.raises(adreno.InvalidArgument, match="is indirect"):
            graph.set_launch(dispatch, 2, 64)
        for groups in (9, 3):
            words = counts.view().cast("I")
            words[0], words[1], words[2] = groups, 1, 1
            zero(c)
            graph.replay(queue)
            queue.finish()
            assert partial_sums_wrong(c, a, b, groups * 64) == 0
    for buffer in (a, b, c, counts):
        buffer.close()


def test_assembly_is_legalized_on_request_and_takes_a_register_mode(device, vector_add_source):
    rng = random.Random(9090)
    unsynced = vector_add_source.replace("(sy)add.u", "add.u", 1)
    assert unsynced != vector_add_source
    a, b, c = (device.allocate(COUNT * 4) for _ in range(3))
    for source, options in ((unsynced, {"legalize": True}), (vector_add_source, {"registers": adreno.RegisterMode.SPLIT})):
        random_fill(a, rng)
        random_fill(b, rng)
        zero(c)
        with device.program_from_assembly(source, **options) as program, program.arguments() as arguments, \
                device.queue() as queue:
            arguments.set_buffer(0, c).set_buffer(1, a).set_buffer(2, b)
            queue.dispatch(program, arguments, COUNT // 64, 64)
            queue.finish()
            assert wrong_sums(c, a, b) == 0
    # Not legalized, the missing (sy) is a timing hazard: a shader fault on the virtual GPU.
    with device.program_from_assembly(unsynced) as program, program.arguments() as arguments, \
            device.queue() as queue:
        arguments.set_buffer(0, c).set_buffer(1, a).set_buffer(2, b)
        queue.dispatch(program, arguments, COUNT // 64, 64)
        with pytest.raises(adreno.DeviceLost):
            queue.finish()
    with pytest.raises(ValueError):
        device.program_from_assembly(vector_add_source, registers=7)
    for buffer in (a, b, c):
        buffer.close()


def test_live_handles_count_what_is_open(device):
    before = adreno.live_handles()
    buffer = device.allocate(4096)
    window = buffer.window(0, 64)
    assert adreno.live_handles() == before + 2
    buffer.close()
    buffer.close()  # harmless twice
    assert adreno.live_handles() == before + 1
    window.close()
    assert adreno.live_handles() == before


def test_buffers_and_windows_report_what_they_are(device):
    with device.allocate(8192, memory=adreno.MemoryType.CACHED) as buffer:
        assert (buffer.size, buffer.offset, buffer.is_window) == (8192, 0, False)
        assert buffer.memory_type == adreno.MemoryType.CACHED and buffer.cpu_visible and not buffer.gpu_read_only
        window = buffer.window(4096, 1024).window(64, 256)
        assert (window.offset, window.size, window.is_window) == (4096 + 64, 256, True)
        assert window.gpu_address == buffer.gpu_address + 4096 + 64
        view, inner = buffer.view(), window.view()
        inner[0:4] = b"\x01\x02\x03\x04"
        assert bytes(view[4160:4164]) == b"\x01\x02\x03\x04"
        with pytest.raises(adreno.InvalidArgument, match="exceeds"):
            window.window(200, 100)
        window.flush_for_gpu(0)
        window.invalidate_for_cpu(128, 1000)
        window.close()
    with device.allocate(4096, cpu_visible=False, gpu_read_only=True) as hidden:
        assert not hidden.cpu_visible and hidden.gpu_read_only
        with pytest.raises(adreno.Unsupported):
            hidden.view()
    with pytest.raises(adreno.InvalidArgument):
        device.allocate(0)


def test_dma_bufs_and_host_memory_as_each_kernel_allows(device):
    kgsl = device.info.backend == "kgsl"
    with device.allocate(8192, exportable=True) as buffer:
        if kgsl:
            with pytest.raises(adreno.Unsupported):
                buffer.export_dmabuf()
        else:
            fd = buffer.export_dmabuf()
            with device.import_dmabuf(fd, 4096) as imported:
                buffer.view()[4096 + 12] = 0x5A
                assert imported.view()[12] == 0x5A and imported.size == 4096
            os.close(fd)
    with pytest.raises(adreno.InvalidArgument) as error:
        device.import_dmabuf(-1)
    assert error.value.errno == 9  # EBADF
    memory = bytearray(8192)
    if kgsl:
        with device.import_host_memory(memory) as imported, device.queue() as queue:
            queue.write(imported.window(4096, 8), [0xDEADBEEF, 0x12345678])
            queue.finish()
        assert struct.unpack_from("<II", memory, 4096) == (0xDEADBEEF, 0x12345678)
    else:
        with pytest.raises(adreno.Unsupported):
            device.import_host_memory(memory)


# The GPU each virtual device spec names: Mesa freedreno_devices.py's chip ids (FD630 0x06030001,
# FD740 0x43050a01).
EXPECTED_GPU = {"": (630, 0x06030001, "Adreno 630"), "a740": (740, 0x43050a01, "Adreno 740")}


def expected_gpu():
    spec = os.environ["ADRENO_DEVICE"]
    return EXPECTED_GPU[spec.partition(":")[2]]


def test_queues_wait_signal_write_and_time_out(device):
    info = device.info
    assert info.is_virtual and (info.gpu_id, info.chip_id, info.name) == expected_gpu()
    rng = random.Random(99)
    values = [rng.getrandbits(32) for _ in range(16)]
    with device.queue(priority=0) as high, device.queue(priority=info.priority_levels - 1) as low, \
            device.signal(5) as gate, device.signal() as done, device.allocate(4096) as data:
        assert gate.value == 5 and gate.gpu_address != 0
        gate.value = 6
        assert gate.value == 6 and gate.wait(6, timeout=0) and not gate.wait(7, timeout=0.001)
        low.wait(gate, 10)
        low.write(data, values)
        low.barrier()
        low.write_timestamp(data.window(1024, 8))
        low.signal(done, 1)
        fence = low.submit()
        assert not low.wait_fence(fence, timeout=0.001)
        # Released from the host: a GPU signal from `high` would queue behind the wait on an MSM
        # a6xx, whose one ring every queue shares, and the hang detector would end the wait.
        gate.value = 10
        assert done.wait(1, timeout=60) and low.wait_fence(fence)
        high.signal(gate, 11)
        high.finish()
        assert gate.value == 11
        assert list(data.view().cast("I")[:16]) == values
        assert struct.unpack_from("<Q", data.view(), 1024)[0] != 0
        with pytest.raises(adreno.InvalidArgument, match="priority"):
            device.queue(priority=info.priority_levels)


def test_a_write_to_read_only_memory_is_dropped_and_the_queue_goes_on(device):
    # A page fault: the drivers log it and the GPU carries on.
    with device.allocate(4096, gpu_read_only=True) as readonly, device.allocate(4096) as writable, \
            device.queue() as queue:
        queue.write(readonly, [1])
        queue.write(writable, [2])
        queue.finish()
        assert readonly.view().cast("I")[0] == 0
        assert writable.view().cast("I")[0] == 2


def test_a_hang_loses_the_queue_for_good(device):
    # A kernel that never ends: the hang detector resets the context.
    spin = "@localsize 1, 1, 1\nspin:\n    add.u r0.x, r0.x, 1\n    (rpt2)nop\n    jump #spin\n    end\n"
    with device.program_from_assembly(spin) as program, program.arguments() as arguments, \
            device.queue() as queue:
        queue.dispatch(program, arguments, groups=1, local_size=1)
        for _ in range(2):
            with pytest.raises(adreno.DeviceLost, match="guilty"):
                queue.finish()


def assembled_code(name):
    """Machine code adreno-asm made for the C tests, zero-padded (nops) to whole 16-instruction groups."""
    directory = os.environ.get("ADRENO_ASSEMBLED_DIR")
    if not directory:
        pytest.skip("ADRENO_ASSEMBLED_DIR (the C tests' assembled kernels) is not set")
    code = (pathlib.Path(directory) / f"{name}.code.bin").read_bytes()
    return code + bytes(-len(code) % 128)


def test_storage_buffers_and_driver_params_in_metadata(device):
    # vector_add.s's @buf slots (addresses at c0.xy, c0.zw, c1.xy), @localsize 64, @wgid(r48.x).
    rng = random.Random(31)
    c, a, b = (device.allocate(COUNT * 4) for _ in range(3))
    random_fill(a, rng)
    random_fill(b, rng)
    metadata = adreno.Ir3Metadata(name="vector_add", instrlen=1, constlen_vec4=2, max_reg=3, merged_regs=True,
                                  work_group_id_regid=48 * 4, local_id_regid=0, fixed_local_size=(64, 1, 1),
                                  storage_buffers=[("c", 0, 0), ("a", 1, 2), ("b", 2, 4)])
    with device.program_from_ir3(assembled_code("vector_add"), metadata) as program, \
            program.arguments() as arguments, device.queue() as queue:
        assert program.argument_index("b") == 2
        arguments.set_buffer(0, c).set_buffer(1, a).set_buffer(2, b)
        queue.dispatch(program, arguments, COUNT // 64, 64)
        queue.finish()
        assert wrong_sums(c, a, b) == 0
    # base_group.s: out[wgid] = c2.x + wgid, the driver params declared at c1.x (base_group.x is
    # dword 4 of Mesa's struct ir3_driver_params_cs).
    metadata = adreno.Ir3Metadata(name="base_group", instrlen=1, constlen_vec4=3, max_reg=1, merged_regs=True,
                                  work_group_id_regid=48 * 4, fixed_local_size=(1, 1, 1), buffers=[("out", 0)],
                                  driver_params=(4, 8))
    base = rng.randrange(1 << 20)
    with device.program_from_ir3(assembled_code("base_group"), metadata) as program, \
            program.arguments() as arguments, device.queue() as queue:
        arguments.set_buffer(0, c)
        zero(c)
        queue.dispatch(program, arguments, 12, 1, base_group=base)
        queue.finish()
        assert list(c.view().cast("I")[:13]) == [base + i for i in range(12)] + [0]
    for buffer in (a, b, c):
        buffer.close()


def test_scalars_of_each_width_reach_the_kernel(device, fixtures_dir):
    # scalar.code.bin computes c[0] = a[0] + b[0] reading b's address from c1.xy; its metadata
    # (scalar.json: instrlen 1, constlen 4, max_reg 1) with b's address declared as scalars.
    code = (fixtures_dir / "scalar.code.bin").read_bytes()
    if expected_gpu()[0] != 630:
        # Mesa's a630 code: an a7xx refuses it, whichever way its metadata comes.
        with pytest.raises(adreno.Unsupported, match="compiled for Adreno 630"):
            device.program_from_fixture(fixtures_dir / "scalar.json")
        with pytest.raises(adreno.Unsupported, match="compiled for Adreno 630"):
            device.program_from_ir3_json(code, fixtures_dir / "scalar.json")
        return
    rng = random.Random(5)
    c, a, b = (device.allocate(64) for _ in range(3))
    layouts = {8: [("b", 4, 8)], 4: [("lo", 4, 4), ("hi", 5, 4), ("s16", 6, 2), ("s8", 7, 1)]}
    for width, scalars in layouts.items():
        metadata = adreno.Ir3Metadata(name="scalar", instrlen=1, constlen_vec4=4, max_reg=1,
                                      buffers=[("c", 0), ("a", 2)], scalars=scalars)
        with device.program_from_ir3(code, metadata) as program, program.arguments() as arguments, \
                device.queue() as queue:
            arguments.set_buffer(0, c).set_buffer(1, a)
            if width == 8:
                setters = [lambda: arguments.set_scalar(2, b.gpu_address, "u64"),
                           lambda: arguments.set_scalar(2, b.gpu_address, "i64"),
                           lambda: arguments.set_scalar(2, struct.unpack("<d", struct.pack("<Q", b.gpu_address))[0],
                                                        "f64"),
                           lambda: arguments.set_bytes("b", struct.pack("<Q", b.gpu_address))]
            else:
                lo, hi = b.gpu_address & 0xFFFFFFFF, b.gpu_address >> 32
                as_float = [struct.unpack("<f", struct.pack("<I", x))[0] for x in (lo, hi)]
                setters = [lambda: arguments.set_scalar(2, lo, "u32").set_scalar(3, hi, "i32")
                           .set_scalar(4, 0xBEEF, "u16").set_scalar(5, 0x9C, "u8"),
                           lambda: arguments.set_scalar(2, as_float[0], "f32").set_scalar(3, as_float[1], "f32")
                           .set_scalar(4, -2, "i16").set_scalar(5, -3, "i8")]
            for set_b in setters:
                set_b()
                a.view().cast("I")[0], b.view().cast("I")[0] = rng.getrandbits(32), rng.getrandbits(32)
                queue.dispatch(program, arguments, 1, 1)
                queue.finish()
                assert c.view().cast("I")[0] == (a.view().cast("I")[0] + b.view().cast("I")[0]) & 0xFFFFFFFF
            with pytest.raises(adreno.InvalidArgument):
                arguments.set_scalar(2, 1, "f64" if width == 4 else "u64").set_bytes(2, bytes(9))
            with pytest.raises(ValueError, match="scalar type"):
                arguments.set_scalar(2, 1, "u128")
    with device.program_from_fixture(fixtures_dir / "scalar.json") as fixture:
        assert fixture.name == "scalar" and fixture.argument_index("b") == 2
    with device.program_from_ir3_json(code, fixtures_dir / "scalar.json") as from_json:
        assert from_json.argument_count == 3
    with pytest.raises(adreno.Malformed, match="instrlen 3"):
        device.program_from_ir3(code, adreno.Ir3Metadata(name="x", instrlen=3, constlen_vec4=4))
    with pytest.raises(adreno.NotFound):
        device.program_from_fixture(fixtures_dir / "missing.json")
    for buffer in (a, b, c):
        buffer.close()


def test_qualcomm_binaries_take_images_and_samplers(device):
    path = os.environ.get("ADRENO_IMAGE_KERNEL_BINARY")
    if not path:
        pytest.skip("ADRENO_IMAGE_KERNEL_BINARY (written by the build) is not set")
    binary = pathlib.Path(path).read_bytes()
    with device.program_from_qualcomm_binary(binary) as program, program.arguments() as arguments, \
            device.allocate(256 * 1024) as memory, device.graph() as graph:
        assert program.name == "image_kernel" and program.argument_count == 5
        assert [f.bytes_per_texel for f in adreno.ImageFormat] == [4, 4, 4, 8, 16, 16]
        image = adreno.Image(memory, adreno.ImageFormat.RGBA32_FLOAT, 64, 64, 64 * 16)
        arguments.set_sampler(0, adreno.Sampler(adreno.Filter.LINEAR, adreno.AddressMode.REPEAT, True))
        arguments.set_buffer(1, memory).set_texture(2, image).set_storage_image(3, image).set_scalar(4, 7)
        with pytest.raises(adreno.InvalidArgument):
            arguments.set_texture(2, adreno.Image(memory, adreno.ImageFormat.R32_UINT, 64, 100000, 256))
        with pytest.raises(adreno.InvalidArgument):
            arguments.set_sampler(1, adreno.Sampler())
        dispatch = graph.dispatch(program, arguments, 1, 16)
        graph.build()
        moved = adreno.Image(memory.window(128 * 1024, 4096), adreno.ImageFormat.R32_UINT, 32, 32, 128)
        graph.set_texture(dispatch, 2, moved)
        graph.set_storage_image(dispatch, 3, moved)
        with pytest.raises(adreno.InvalidArgument):
            graph.set_texture(dispatch, 3, moved)
        for cut in range(0, len(binary), 61):
            with pytest.raises(adreno.Malformed):
                device.program_from_qualcomm_binary(binary[:cut])
        moved.memory.close()


def test_errors_carry_status_message_and_closed_objects_are_refused(device, vector_add_source):
    with pytest.raises(adreno.Malformed, match="1:") as error:
        device.program_from_assembly("  bogus.op r0.x\n")
    assert error.value.status == 8 and "adreno_program_from_ir3_assembly" in error.value.message
    program = device.program_from_assembly(vector_add_source)
    arguments = program.arguments()
    with pytest.raises(adreno.NotFound, match="no argument named 'c'"):
        program.argument_index("c")
    with device.queue() as queue:
        with pytest.raises(adreno.InvalidArgument, match="argument 0 \\('buf0'\\) of program 'assembly' is not set"):
            queue.dispatch(program, arguments, 16, 64)
        with pytest.raises(adreno.InvalidArgument, match="local_size.x is 0"):
            queue.dispatch(program, arguments, 16, (0, 1, 1))
        with pytest.raises(ValueError, match="1 to 3 numbers"):
            queue.dispatch(program, arguments, (1, 1, 1, 1), 64)
        program.close()
        program.close()  # twice is harmless
        with pytest.raises(adreno.InvalidArgument, match="program is NULL"):
            queue.dispatch(program, arguments, 16, 64)
    with pytest.raises(adreno.InvalidArgument, match="queue is NULL"):
        queue.submit()
    with pytest.raises(adreno.InvalidArgument, match="unknown GPU model"):
        adreno.Device.open("virtual-kgsl:a999")
    arguments.close()


def test_memory_of_another_device_is_refused_and_the_device_goes_on(device, vector_add_source):
    """A second open of the same virtual kernel is another device: its buffers and signals are
    InvalidArgument naming the argument, nothing is bound or recorded, and vector add on the first
    device is then right in every element."""
    rng = random.Random(2718)
    with adreno.Device.open() as other, other.allocate(COUNT * 4) as foreign, other.signal() as foreign_signal, \
            device.program_from_assembly(vector_add_source) as program, program.arguments() as arguments, \
            device.queue() as queue:
        c, a, b = (device.allocate(COUNT * 4) for _ in range(3))
        random_fill(a, rng)
        random_fill(b, rng)
        arguments.set_buffer(0, c).set_buffer(1, a).set_buffer(2, b)
        with pytest.raises(adreno.InvalidArgument, match="argument 0 \\('buf0'\\) belongs to another device") as error:
            arguments.set_buffer(0, foreign)
        assert error.value.operation == "set buffer argument"
        with pytest.raises(adreno.InvalidArgument, match="destination belongs to another device"):
            queue.write(foreign, [1, 2, 3])
        with pytest.raises(adreno.InvalidArgument, match="signal belongs to another device"):
            queue.wait(foreign_signal, 1)
        assert queue.submit() == 0  # nothing was recorded
        queue.dispatch(program, arguments, COUNT // 64, 64)
        queue.finish()
        assert wrong_sums(c, a, b) == 0
        for buffer in (a, b, c):
            buffer.close()


def test_objects_close_in_any_order(vector_add_source, monkeypatch, capfd):
    rng = random.Random(3)
    for spec in ("virtual-kgsl", "virtual-msm", "virtual-kgsl:a740", "virtual-msm:a740"):
        device = adreno.Device.open(spec)
        program = device.program_from_assembly(vector_add_source)
        c, a, b = (device.allocate(COUNT * 4) for _ in range(3))
        arguments = program.arguments().set_buffer(0, c).set_buffer(1, a).set_buffer(2, b)
        queue, graph, signal = device.queue(), device.graph(), device.signal()
        random_fill(a, rng)
        random_fill(b, rng)
        device.close()
        program.close()
        a.close()
        queue.signal(signal, 1)
        queue.finish()
        assert signal.wait(1, timeout=0)
        for item in (signal, c, queue, graph, b, arguments):
            item.close()
    import gc
    gc.collect()
    assert "virtual device closed with a live object" not in capfd.readouterr().err


@pytest.mark.parametrize("example", ["vector_add.py", "graph_replay.py"])
@pytest.mark.parametrize("spec", ["virtual-kgsl", "virtual-msm", "virtual-kgsl:a740", "virtual-msm:a740"])
def test_the_python_examples_run_and_check_their_results(example, spec):
    root = pathlib.Path(__file__).resolve().parents[2]
    environment = dict(os.environ, ADRENO_DEVICE=spec,
                       PYTHONPATH=os.pathsep.join(filter(None, [str(root / "python"), os.environ.get("PYTHONPATH")])))
    result = subprocess.run([sys.executable, str(root / "examples" / example)], env=environment,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert " 0 " in result.stdout and "wrong" in result.stdout


def test_the_version_is_the_projects():
    expected = os.environ.get("ADRENO_TEST_VERSION")
    if not expected:
        pytest.skip("ADRENO_TEST_VERSION (CMake's PROJECT_VERSION) is not set")
    assert adreno.__version__ == expected
