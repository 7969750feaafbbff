"""Opening an Adreno GPU, and making what lives on it."""
import ctypes

from . import _native
from ._object import NativeObject
from .buffer import Buffer
from .graph import Graph
from .program import Program
from .queue import Queue, Signal
from .types import DeviceInfo, MemoryType, RegisterMode

lib = _native.lib


class Device(NativeObject):
    """One open kernel node: KGSL, MSM or a virtual one."""

    _release = lib.adreno_device_release

    @classmethod
    def open(cls, spec=None):
        """Opens the device `spec` names — ``kgsl[:path]``, ``msm[:/dev/dri/renderDN]``,
        ``virtual-kgsl[:model]``, ``virtual-msm[:model]`` — or, when None, the one ADRENO_DEVICE
        names, else the first the kernel offers."""
        return cls(_native.new_handle(lib.adreno_device_open, spec.encode() if spec is not None else None))

    @property
    def info(self):
        """What the device is (adreno.DeviceInfo): backend, node, GPU name and ids, GMEM size,
        GPU address range (None where the kernel does not say) and priority levels."""
        c = _native.DeviceInfo()
        lib.adreno_device_get_info(self, ctypes.byref(c))
        return DeviceInfo(backend=c.backend.decode(), node=c.node.decode(), name=c.name.decode(),
                          is_virtual=c.is_virtual, chip_id=c.chip_id, gpu_id=c.gpu_id, gmem_size=c.gmem_size,
                          va_start=c.va_start if c.has_va_range else None,
                          va_size=c.va_size if c.has_va_range else None, priority_levels=c.priority_levels)

    def allocate(self, size, alignment=0, memory=MemoryType.WRITE_COMBINED, gpu_read_only=False, cpu_visible=True,
                 exportable=False):
        """GPU memory of `size` bytes (alignment: a power of two, 0 for 64 bytes)."""
        flags = ((_native.BUFFER_GPU_READ_ONLY if gpu_read_only else 0) |
                 (0 if cpu_visible else _native.BUFFER_NO_CPU_VIEW) |
                 (_native.BUFFER_EXPORTABLE if exportable else 0))
        desc = _native.BufferDesc(size, alignment, int(memory), flags)
        return Buffer(_native.new_handle(lib.adreno_buffer_allocate, self, ctypes.byref(desc)))

    def import_dmabuf(self, fd, offset=0, size=0):
        """[offset, offset+size) of a dma-buf (size 0: to its end); the caller keeps `fd`."""
        return Buffer(_native.new_handle(lib.adreno_buffer_import_dmabuf, self, fd, offset, size))

    def import_host_memory(self, memory):
        """GPU access to a writable buffer-protocol object (bytearray, numpy array, mmap) without
        copying (KGSL only). The Buffer keeps `memory` referenced."""
        array = (ctypes.c_ubyte * len(memoryview(memory).cast("B"))).from_buffer(memory)
        return Buffer(_native.new_handle(lib.adreno_buffer_import_host_memory, self, ctypes.addressof(array),
                                         len(array)), keep=(memory, array))

    def program_from_assembly(self, source, legalize=False, registers=RegisterMode.MERGED):
        """ir3 assembly (Mesa's syntax, computerator's @-directives); arguments buf0, buf1, ...
        With `legalize`, the (sy)/(ss) waits and delay slots the code lacks are added first (Mesa's
        a6xx scheduling rules); `registers` (adreno.RegisterMode) says how half registers are
        addressed."""
        data = source.encode() if isinstance(source, str) else bytes(source)
        options = _native.AssemblyOptions(bool(legalize), int(RegisterMode(registers)))
        return Program(_native.new_handle(lib.adreno_program_from_ir3_assembly, self, data, len(data),
                                          ctypes.byref(options)))

    def program_from_ir3(self, code, metadata):
        """ir3 machine code (bytes or 32-bit words) with its compiler metadata (Ir3Metadata)."""
        words = _words(code)
        c, keep = metadata._to_c()
        return Program(_native.new_handle(lib.adreno_program_from_ir3, self, words, len(words), ctypes.byref(c)))

    def program_from_ir3_json(self, code, metadata_json_path):
        """ir3 machine code with metadata from a JSON file of format ir3-a630-fixture/1."""
        words = _words(code)
        return Program(_native.new_handle(lib.adreno_program_from_ir3_json, self, words, len(words),
                                          str(metadata_json_path).encode()))

    def program_from_fixture(self, json_path):
        """A fixture: <name>.json and the <name>.code.bin beside it."""
        return Program(_native.new_handle(lib.adreno_program_from_ir3_fixture, self, str(json_path).encode()))

    def program_from_qualcomm_binary(self, binary):
        """A Qualcomm OpenCL compiled binary."""
        data = bytes(binary)
        return Program(_native.new_handle(lib.adreno_program_from_qualcomm_binary, self, data, len(data)))

    def queue(self, priority=None):
        """A queue at `priority` (0 is the highest; None: the middle level)."""
        return Queue(_native.new_handle(lib.adreno_queue_create, self,
                                        _native.PRIORITY_DEFAULT if priority is None else priority))

    def signal(self, initial=0):
        """A 64-bit timeline value in GPU memory."""
        return Signal(_native.new_handle(lib.adreno_signal_create, self, initial))

    def graph(self):
        """An empty graph to record into."""
        return Graph(_native.new_handle(lib.adreno_graph_create, self))


def _words(code):
    """ir3 code as a ctypes array of 32-bit words."""
    if isinstance(code, (bytes, bytearray, memoryview)):
        data = bytes(code)
        if len(data) % 4:
            raise ValueError(f"ir3 code of {len(data)} bytes is not whole 32-bit words")
        return (ctypes.c_uint32 * (len(data) // 4)).from_buffer_copy(data)
    words = list(code)
    return (ctypes.c_uint32 * len(words))(*words)
