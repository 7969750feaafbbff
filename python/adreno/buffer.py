"""GPU memory: buffers and windows into them."""
import ctypes

from . import _native
from ._object import NativeObject
from .types import MemoryType

lib = _native.lib


class _Mapping:
    """Keeps a buffer's memory mapped while a memoryview of it exists (a window handle of its
    own, released when the memoryview's array goes), so closing the Buffer early is safe."""

    def __init__(self, handle):
        self.handle = handle

    def __del__(self):
        try:
            lib.adreno_buffer_release(self.handle)
        except Exception:
            pass


class Buffer(NativeObject):
    """GPU memory with a GPU address and, unless allocated with cpu_visible=False, a CPU view.
    A window (Buffer.window) is a Buffer too, accepted wherever one is."""

    _release = lib.adreno_buffer_release

    def __init__(self, handle, keep=None):
        super().__init__(handle)
        self._keep = keep  # host memory an imported buffer lives in

    def _info(self):
        info = _native.BufferInfo()
        lib.adreno_buffer_get_info(self, ctypes.byref(info))
        return info

    @property
    def size(self):
        """Size in bytes."""
        return self._info().size

    @property
    def offset(self):
        """Offset of a window in its buffer (0 for a buffer)."""
        return self._info().offset

    @property
    def gpu_address(self):
        """The GPU virtual address (what goes into command streams; never the CPU pointer)."""
        return self._info().gpu_address

    @property
    def memory_type(self):
        """How the CPU maps the memory (adreno.MemoryType); a window reports its buffer's."""
        return MemoryType(self._info().memory)

    @property
    def gpu_read_only(self):
        """Whether GPU writes to the memory fault (allocated with gpu_read_only=True)."""
        return bool(self._info().flags & _native.BUFFER_GPU_READ_ONLY)

    @property
    def cpu_visible(self):
        """Whether the memory has a CPU view (view() works); False when allocated with
        cpu_visible=False."""
        return not self._info().flags & _native.BUFFER_NO_CPU_VIEW

    @property
    def is_window(self):
        """Whether this is a window into another buffer (made by Buffer.window)."""
        return self._info().is_view

    def view(self):
        """The CPU view as a writable memoryview of bytes, without copying:
        ``numpy.frombuffer(buffer.view(), numpy.uint32)`` works. It stays valid after close().
        Raises adreno.Unsupported when the memory has no CPU view."""
        mapping = _Mapping(_native.new_handle(lib.adreno_buffer_view, self, 0, self.size))
        data, size = ctypes.c_void_p(), ctypes.c_size_t()
        lib.adreno_buffer_cpu_view(mapping.handle, ctypes.byref(data), ctypes.byref(size))
        array = (ctypes.c_ubyte * size.value).from_address(data.value)
        array._mapping = mapping
        return memoryview(array).cast("B")

    def window(self, offset, size):
        """A window [offset, offset+size) into this buffer (relative to this window); it keeps
        the memory alive."""
        return Buffer(_native.new_handle(lib.adreno_buffer_view, self, offset, size), self._keep)

    def export_dmabuf(self):
        """A new dma-buf fd the caller owns (allocate with exportable=True). KGSL raises
        adreno.Unsupported unless the memory came from a dma-heap."""
        fd = ctypes.c_int()
        lib.adreno_buffer_export_dmabuf(self, ctypes.byref(fd))
        return fd.value

    def flush_for_gpu(self, offset=0, size=None):
        """Makes CPU writes to cached memory visible to the GPU (a no-op for other types)."""
        lib.adreno_buffer_flush_for_gpu(self, offset, _native.WAIT_FOREVER if size is None else size)

    def invalidate_for_cpu(self, offset=0, size=None):
        """Makes GPU writes visible to CPU reads of cached memory, after the GPU finished."""
        lib.adreno_buffer_invalidate_for_cpu(self, offset, _native.WAIT_FOREVER if size is None else size)
