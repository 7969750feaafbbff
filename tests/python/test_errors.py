"""The exception each failure raises. [pure]: every status of adreno.h raises the adreno.Error
subclass the C library's own name for that status says, carrying status, message and errno.
[virtual-kernel]: the kernel refusals that reach OutOfMemory and KernelError on each virtual
kernel, with the driver's errno kept (the C suite's kernel_refusals case, from Python)."""
import errno

import pytest

import adreno
from adreno import _native
from adreno.errors import raise_for_status


def c_status_names():
    """adreno.h's failure statuses, from 1, as the C library names them (adreno_status_name), up
    to the first number it calls unknown."""
    names = {}
    status = 1
    while (name := _native.lib.adreno_status_name(status).decode()) != "unknown":
        names[status] = name
        status += 1
    return names


def class_named(c_name):
    """The package's class for a C status name: out_of_memory is adreno.OutOfMemory."""
    return getattr(adreno, "".join(word.capitalize() for word in c_name.split("_")))


def test_every_status_raises_the_class_its_c_name_says_pure():
    names = c_status_names()
    for status, name in names.items():
        with pytest.raises(adreno.Error) as raised:
            raise_for_status(status, f"operation {status}: what was wrong", 100 + status, f"operation {status}",
                             "what was wrong")
        assert type(raised.value) is class_named(name), f"status {status} ({name})"
        assert raised.value.status == status and raised.value.errno == 100 + status
        assert raised.value.message == str(raised.value) == f"operation {status}: what was wrong"
        assert (raised.value.operation, raised.value.detail) == (f"operation {status}", "what was wrong")
    # Every class stands for one status, and a status the package does not know is still an Error.
    assert {class_named(name) for name in names.values()} == set(adreno.Error.__subclasses__())
    with pytest.raises(adreno.Error) as raised:
        raise_for_status(len(names) + 1, "from a newer library", 0)
    assert type(raised.value) is adreno.Error and raised.value.status == len(names) + 1


def test_the_python_kinds_are_also_the_builtin_ones_pure():
    assert issubclass(adreno.InvalidArgument, ValueError)
    assert issubclass(adreno.NotFound, LookupError)
    assert issubclass(adreno.OutOfMemory, MemoryError)


def test_an_argument_error_carries_its_operation_and_detail():
    with pytest.raises(adreno.InvalidArgument) as raised:
        adreno.Device.open("virtual-kgsl:a999")
    assert raised.value.detail and raised.value.detail in raised.value.message
    assert f"adreno_device_open: {raised.value.operation}: {raised.value.detail}" in raised.value.message


def allocate_until_refused(device, size):
    """Allocates `size`-byte objects with no CPU view until the kernel refuses one; returns how
    many it made (all closed again) and the refusal."""
    made = []
    try:
        while len(made) < 1024:
            made.append(device.allocate(size, cpu_visible=False))
    except adreno.Error as refusal:
        return len(made), refusal
    finally:
        for buffer in made:
            buffer.close()
    raise AssertionError(f"1024 objects of {size} bytes fit")


def test_kernel_refusals_raise_out_of_memory_and_kernel_error_with_the_errno(device):
    kgsl = device.info.backend == "kgsl"
    # Objects past what the GPU address space holds: KGSL's kgsl_mmu_get_gpuaddr finds no room
    # (ENOMEM); MSM's drm_mm has no space for the object's iova in msm_gem_get_and_pin_iova
    # (ENOSPC, which is no memory shortage: the kernel's refusal).
    made, refusal = allocate_until_refused(device, 1 << 31)
    assert made >= 1
    # The message is the C function's name, then the C++ error's operation and detail.
    assert refusal.operation and f"adreno_buffer_allocate: {refusal.operation}: {refusal.detail}" in refusal.message
    if kgsl:
        assert type(refusal) is adreno.OutOfMemory and refusal.errno == errno.ENOMEM
        assert refusal.status == 4 and "IOCTL_KGSL_GPUOBJ_ALLOC" in refusal.message
    else:
        assert type(refusal) is adreno.KernelError and refusal.errno == errno.ENOSPC
        assert refusal.status == 5 and "MSM_INFO_GET_IOVA" in refusal.message
    if kgsl:
        # More contexts than KGSL gives a process: kgsl_context_init refuses past
        # KGSL_MAX_CONTEXTS_PER_PROC with ENOSPC.
        queues = []
        try:
            with pytest.raises(adreno.KernelError) as raised:
                while len(queues) < 400:
                    queues.append(device.queue())
        finally:
            for queue in queues:
                queue.close()
        assert raised.value.errno == errno.ENOSPC and "IOCTL_KGSL_DRAWCTXT_CREATE" in raised.value.message
    else:
        # An object larger than memory can back: GEM_NEW's shmem allocation fails with ENOMEM.
        with pytest.raises(adreno.OutOfMemory) as raised:
            device.allocate(1 << 48, cpu_visible=False)
        assert raised.value.errno == errno.ENOMEM and "DRM_IOCTL_MSM_GEM_NEW" in raised.value.message
        assert isinstance(raised.value, MemoryError)
    # The device goes on.
    with device.allocate(4096) as buffer, device.queue() as queue:
        queue.write(buffer, [0x600DF00D])
        queue.finish()
        assert buffer.view().cast("I")[0] == 0x600DF00D
