"""Queues and timeline signals."""
import ctypes

from . import _native
from ._object import NativeObject
from .errors import Timeout
from .types import indirect_launch, launch

lib = _native.lib


def _waited(wait, *arguments):
    """True when the C wait succeeded, False when it timed out."""
    try:
        wait(*arguments)
        return True
    except Timeout:
        return False


class Signal(NativeObject):
    """A 64-bit timeline value in GPU memory, written by queues and waited for by the host or
    other queues."""

    _release = lib.adreno_signal_release

    @property
    def value(self):
        """The value in memory now; setting it writes from the host."""
        value = ctypes.c_uint64()
        lib.adreno_signal_value(self, ctypes.byref(value))
        return value.value

    @value.setter
    def value(self, value):
        lib.adreno_signal_set(self, value)

    @property
    def gpu_address(self):
        """The GPU address of the signal's 64-bit value, for programs that write or read it."""
        address = ctypes.c_uint64()
        lib.adreno_signal_gpu_address(self, ctypes.byref(address))
        return address.value

    def wait(self, target, timeout=None):
        """Waits until the value reaches `target`; False when `timeout` seconds (None: no limit)
        passed first. Raises adreno.DeviceLost when the work that would write it faulted."""
        return _waited(lib.adreno_signal_wait, self, target, _native.timeout_ns(timeout))


class Queue(NativeObject):
    """Records work into GPU memory; submit() hands it to the kernel. Closing waits for the
    queue's work."""

    _release = lib.adreno_queue_release

    def dispatch(self, program, arguments, groups, local_size, wave_size=None, base_group=0):
        """Launches `program` over `groups` work-groups of `local_size` invocations (1 to 3
        numbers each) with `arguments` (copied now), the first work-group's id being `base_group`
        (as vkCmdDispatchBase). Dependent dispatches need a barrier()."""
        lib.adreno_queue_dispatch(self, program, arguments,
                                  ctypes.byref(launch(groups, local_size, wave_size, base_group)))

    def dispatch_indirect(self, program, arguments, groups, local_size, wave_size=None):
        """As dispatch(), over the group counts the GPU reads when it gets there: three uint32
        (x, y, z) at the start of the buffer or window `groups`, typically written by an earlier
        dispatch (put a barrier() between them)."""
        lib.adreno_queue_dispatch_indirect(self, program, arguments, groups,
                                           ctypes.byref(indirect_launch(local_size, wave_size)))

    def barrier(self):
        """Makes the results of work recorded before it visible to work recorded after it."""
        lib.adreno_queue_barrier(self)

    def signal(self, signal, value):
        """Writes `value` to `signal` after all work recorded before it."""
        lib.adreno_queue_signal(self, signal, value)

    def wait(self, signal, value):
        """Work recorded after this starts once `signal` reaches `value`."""
        lib.adreno_queue_wait(self, signal, value)

    def write_timestamp(self, destination):
        """Writes the GPU's 64-bit always-on counter at the start of `destination`."""
        lib.adreno_queue_write_timestamp(self, destination)

    def write(self, destination, values):
        """Writes 32-bit `values` at the start of `destination` from the command processor."""
        values = list(values)
        lib.adreno_queue_write(self, destination, (ctypes.c_uint32 * len(values))(*values), len(values))

    def submit(self):
        """Hands the recorded work to the kernel; returns its fence (0 when nothing was recorded)."""
        fence = ctypes.c_uint64()
        lib.adreno_queue_submit(self, ctypes.byref(fence))
        return fence.value

    def wait_fence(self, fence, timeout=None):
        """Waits for a fence from submit(); False on timeout. Raises adreno.DeviceLost when the
        GPU faulted or hung (the queue stays lost)."""
        return _waited(lib.adreno_queue_wait_fence, self, fence, _native.timeout_ns(timeout))

    def finish(self, timeout=None):
        """Submits what is recorded and waits for all of it (adreno.Timeout when it did not end)."""
        lib.adreno_queue_finish(self, _native.timeout_ns(timeout))
