"""adreno: compute dispatch on Qualcomm Adreno GPUs, from Python.

Pure Python over the library's C API (adreno.h) through ctypes. libadreno.so is found through
ADRENO_LIBRARY, next to this package when installed by ``cmake --install``, or by the system
loader. numpy is optional: ``numpy.frombuffer(buffer.view(), numpy.uint32)`` maps a buffer
without copying.

    import adreno
    with adreno.Device.open("virtual-kgsl") as device:
        program = device.program_from_assembly(source)
        ...

Every object has close() and is a context manager; objects may be closed in any order. Failures
raise adreno.Error subclasses carrying the library's message.
"""
from . import _native
from .buffer import Buffer
from .device import Device
from .errors import (Busy, DeviceLost, Error, InvalidArgument, KernelError, Malformed, NotFound, OutOfMemory,
                     Timeout, Unsupported)
from .graph import Graph, GraphInfo
from .program import SCALAR_TYPES, Arguments, Ir3Metadata, Program
from .queue import Queue, Signal
from .types import (Access, AddressMode, DeviceInfo, Filter, Image, ImageFormat, MemoryType, RegisterMode, Sampler,
                    WaveSize)

__version__ = _native.lib.adreno_version_string().decode()
UNUSED_REGID = _native.UNUSED_REGID


def live_handles():
    """How many library objects (of every type) are open now — made and not closed — in this
    process. Tests check it is back where it was, to find objects never closed."""
    return _native.lib.adreno_live_handle_count()

__all__ = ["Access", "AddressMode", "Arguments", "Buffer", "Busy", "Device", "DeviceInfo", "DeviceLost", "Error",
           "Filter", "Graph", "GraphInfo", "Image", "ImageFormat", "InvalidArgument", "Ir3Metadata", "KernelError",
           "Malformed", "MemoryType", "NotFound", "OutOfMemory", "Program", "Queue", "RegisterMode", "SCALAR_TYPES",
           "Sampler", "Signal", "Timeout", "UNUSED_REGID", "Unsupported", "WaveSize", "live_handles"]
