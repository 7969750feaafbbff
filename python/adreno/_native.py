"""The C API (adreno.h) as ctypes sees it: the library, its structs and its functions.

Internal to the package; the classes in the other modules are the Python API.
"""
import ctypes
import ctypes.util
import os
from ctypes import POINTER, c_bool, c_char_p, c_double, c_float, c_int, c_int8, c_int16, c_int32, c_int64
from ctypes import c_size_t, c_uint8, c_uint16, c_uint32, c_uint64, c_void_p

from .errors import raise_for_status


def _library_candidates():
    """Where libadreno.so may be, in the order the README gives."""
    explicit = os.environ.get("ADRENO_LIBRARY")
    if explicit:
        yield explicit
        return
    try:  # written by CMake: where the library is (relative to this package when installed)
        from ._location import LIBRARY_FROM_PACKAGE
        yield os.path.normpath(os.path.join(os.path.dirname(__file__), LIBRARY_FROM_PACKAGE))
    except ImportError:
        pass
    found = ctypes.util.find_library("adreno")
    yield found if found else "libadreno.so.0"


def _load():
    tried = []
    for candidate in _library_candidates():
        try:
            return ctypes.CDLL(candidate)
        except OSError as error:
            tried.append(f"{candidate} ({error})")
    raise ImportError("adreno: cannot load libadreno.so; tried " + "; ".join(tried) +
                      ". Set ADRENO_LIBRARY to its path.")


lib = _load()

# Handles are opaque numbers (never dereferenced on the Python side).
handle = c_void_p
status = c_int


class DeviceInfo(ctypes.Structure):
    _fields_ = [("backend", c_char_p), ("node", c_char_p), ("name", c_char_p), ("is_virtual", c_bool),
                ("has_va_range", c_bool), ("chip_id", c_uint32), ("gpu_id", c_uint32),
                ("priority_levels", c_uint32), ("gmem_size", c_uint64), ("va_start", c_uint64),
                ("va_size", c_uint64)]


class BufferDesc(ctypes.Structure):
    _fields_ = [("size", c_uint64), ("alignment", c_uint64), ("memory", c_int), ("flags", c_uint32)]


class BufferInfo(ctypes.Structure):
    _fields_ = [("offset", c_uint64), ("size", c_uint64), ("gpu_address", c_uint64), ("memory", c_int),
                ("flags", c_uint32), ("is_view", c_bool)]


class ProgramInfo(ctypes.Structure):
    _fields_ = [("name", c_char_p), ("wave_size", c_int), ("code_address", c_uint64), ("argument_count", c_uint32)]


class Ir3BufferPointer(ctypes.Structure):
    _fields_ = [("name", c_char_p), ("const_dword", c_uint32)]


class Ir3Scalar(ctypes.Structure):
    _fields_ = [("name", c_char_p), ("const_dword", c_uint32), ("size_bytes", c_uint32)]


class Ir3Immediate(ctypes.Structure):
    _fields_ = [("const_dword", c_uint32), ("value", c_uint32)]


class Ir3StorageBuffer(ctypes.Structure):
    _fields_ = [("name", c_char_p), ("slot", c_uint32), ("has_address_const_dword", c_bool),
                ("address_const_dword", c_uint32)]


class Ir3Metadata(ctypes.Structure):
    _fields_ = [("name", c_char_p), ("instrlen", c_uint32), ("constlen_vec4", c_uint32), ("max_reg", c_int32),
                ("max_half_reg", c_int32), ("merged_regs", c_bool), ("wave_size", c_int),
                ("branch_stack", c_uint32), ("work_group_id_regid", c_uint32), ("local_id_regid", c_uint32),
                ("has_local_size_const_dword", c_bool), ("local_size_const_dword", c_uint32),
                ("buffers", POINTER(Ir3BufferPointer)), ("buffer_count", c_size_t),
                ("scalars", POINTER(Ir3Scalar)), ("scalar_count", c_size_t),
                ("immediates", POINTER(Ir3Immediate)), ("immediate_count", c_size_t),
                ("private_bytes_per_fiber", c_uint32), ("private_per_wave", c_bool), ("shared_bytes", c_uint32),
                ("fixed_local_size", c_uint32 * 3), ("driver_params_const_dword", c_uint32),
                ("driver_params_count", c_uint32), ("storage_buffers", POINTER(Ir3StorageBuffer)),
                ("storage_buffer_count", c_size_t)]


class ImageDesc(ctypes.Structure):
    _fields_ = [("memory", handle), ("format", c_int), ("width", c_uint32), ("height", c_uint32),
                ("pitch_bytes", c_uint32)]


class SamplerDesc(ctypes.Structure):
    _fields_ = [("filter", c_int), ("address", c_int), ("normalized_coordinates", c_bool)]


class Launch(ctypes.Structure):
    _fields_ = [("groups", c_uint32 * 3), ("local_size", c_uint32 * 3), ("wave_size", c_int),
                ("base_group", c_uint32 * 3)]


class IndirectLaunch(ctypes.Structure):
    _fields_ = [("local_size", c_uint32 * 3), ("wave_size", c_int)]


class AssemblyOptions(ctypes.Structure):
    _fields_ = [("legalize", c_bool), ("registers", c_int)]


class GraphInfo(ctypes.Structure):
    _fields_ = [("dispatch_count", c_uint64), ("levels", c_uint64), ("barriers", c_uint64),
                ("command_dwords", c_uint64)]


P = POINTER
# Every function of adreno.h that returns an adreno_status: name → parameter types.
_CHECKED = {
    "adreno_device_open": [c_char_p, P(handle)],
    "adreno_device_release": [handle],
    "adreno_device_get_info": [handle, P(DeviceInfo)],
    "adreno_buffer_allocate": [handle, P(BufferDesc), P(handle)],
    "adreno_buffer_import_dmabuf": [handle, c_int, c_uint64, c_uint64, P(handle)],
    "adreno_buffer_export_dmabuf": [handle, P(c_int)],
    "adreno_buffer_import_host_memory": [handle, c_void_p, c_uint64, P(handle)],
    "adreno_buffer_view": [handle, c_uint64, c_uint64, P(handle)],
    "adreno_buffer_release": [handle],
    "adreno_buffer_get_info": [handle, P(BufferInfo)],
    "adreno_buffer_cpu_view": [handle, P(c_void_p), P(c_size_t)],
    "adreno_buffer_flush_for_gpu": [handle, c_uint64, c_uint64],
    "adreno_buffer_invalidate_for_cpu": [handle, c_uint64, c_uint64],
    "adreno_program_from_ir3_assembly": [handle, c_char_p, c_size_t, P(AssemblyOptions), P(handle)],
    "adreno_program_from_ir3": [handle, P(c_uint32), c_size_t, P(Ir3Metadata), P(handle)],
    "adreno_program_from_ir3_json": [handle, P(c_uint32), c_size_t, c_char_p, P(handle)],
    "adreno_program_from_ir3_fixture": [handle, c_char_p, P(handle)],
    "adreno_program_from_qualcomm_binary": [handle, c_void_p, c_size_t, P(handle)],
    "adreno_program_release": [handle],
    "adreno_program_get_info": [handle, P(ProgramInfo)],
    "adreno_program_argument_index": [handle, c_char_p, P(c_uint32)],
    "adreno_arguments_create": [handle, P(handle)],
    "adreno_arguments_release": [handle],
    "adreno_arguments_set_buffer": [handle, c_uint32, handle],
    "adreno_arguments_set_bytes": [handle, c_uint32, c_void_p, c_size_t],
    "adreno_arguments_set_i8": [handle, c_uint32, c_int8],
    "adreno_arguments_set_u8": [handle, c_uint32, c_uint8],
    "adreno_arguments_set_i16": [handle, c_uint32, c_int16],
    "adreno_arguments_set_u16": [handle, c_uint32, c_uint16],
    "adreno_arguments_set_i32": [handle, c_uint32, c_int32],
    "adreno_arguments_set_u32": [handle, c_uint32, c_uint32],
    "adreno_arguments_set_i64": [handle, c_uint32, c_int64],
    "adreno_arguments_set_u64": [handle, c_uint32, c_uint64],
    "adreno_arguments_set_f32": [handle, c_uint32, c_float],
    "adreno_arguments_set_f64": [handle, c_uint32, c_double],
    "adreno_image_format_bytes_per_texel": [c_int, P(c_uint32)],
    "adreno_arguments_set_texture": [handle, c_uint32, P(ImageDesc)],
    "adreno_arguments_set_storage_image": [handle, c_uint32, P(ImageDesc)],
    "adreno_arguments_set_sampler": [handle, c_uint32, P(SamplerDesc)],
    "adreno_signal_create": [handle, c_uint64, P(handle)],
    "adreno_signal_release": [handle],
    "adreno_signal_value": [handle, P(c_uint64)],
    "adreno_signal_set": [handle, c_uint64],
    "adreno_signal_gpu_address": [handle, P(c_uint64)],
    "adreno_signal_wait": [handle, c_uint64, c_uint64],
    "adreno_queue_create": [handle, c_int32, P(handle)],
    "adreno_queue_release": [handle],
    "adreno_queue_dispatch": [handle, handle, handle, P(Launch)],
    "adreno_queue_dispatch_indirect": [handle, handle, handle, handle, P(IndirectLaunch)],
    "adreno_queue_barrier": [handle],
    "adreno_queue_signal": [handle, handle, c_uint64],
    "adreno_queue_wait": [handle, handle, c_uint64],
    "adreno_queue_write_timestamp": [handle, handle],
    "adreno_queue_write": [handle, handle, P(c_uint32), c_size_t],
    "adreno_queue_submit": [handle, P(c_uint64)],
    "adreno_queue_wait_fence": [handle, c_uint64, c_uint64],
    "adreno_queue_finish": [handle, c_uint64],
    "adreno_graph_create": [handle, P(handle)],
    "adreno_graph_release": [handle],
    "adreno_graph_dispatch": [handle, handle, handle, P(Launch), P(c_int), c_size_t, P(c_uint32)],
    "adreno_graph_dispatch_indirect": [handle, handle, handle, handle, P(IndirectLaunch), P(c_int), c_size_t, P(c_uint32)],
    "adreno_graph_signal": [handle, handle, c_uint64, P(c_uint32)],
    "adreno_graph_wait": [handle, handle, c_uint64, P(c_uint32)],
    "adreno_graph_build": [handle, c_uint32],
    "adreno_graph_get_info": [handle, P(GraphInfo)],
    "adreno_graph_set_buffer": [handle, c_uint32, c_uint32, handle],
    "adreno_graph_set_bytes": [handle, c_uint32, c_uint32, c_void_p, c_size_t],
    "adreno_graph_set_texture": [handle, c_uint32, c_uint32, P(ImageDesc)],
    "adreno_graph_set_storage_image": [handle, c_uint32, c_uint32, P(ImageDesc)],
    "adreno_graph_set_value": [handle, c_uint32, c_uint64],
    "adreno_graph_set_launch": [handle, c_uint32, P(Launch)],
    "adreno_graph_replay": [handle, handle],
}


def _check(result, function, arguments):
    if result != 0:
        raise_for_status(result, lib.adreno_last_error_message().decode(errors="replace"),
                         lib.adreno_last_error_errno(), lib.adreno_last_error_operation().decode(errors="replace"),
                         lib.adreno_last_error_detail().decode(errors="replace"))
    return result


lib.adreno_status_name.argtypes, lib.adreno_status_name.restype = [c_int], c_char_p
lib.adreno_last_error_status.argtypes, lib.adreno_last_error_status.restype = [], c_int
lib.adreno_last_error_message.argtypes, lib.adreno_last_error_message.restype = [], c_char_p
lib.adreno_last_error_errno.argtypes, lib.adreno_last_error_errno.restype = [], c_int
lib.adreno_last_error_operation.argtypes, lib.adreno_last_error_operation.restype = [], c_char_p
lib.adreno_last_error_detail.argtypes, lib.adreno_last_error_detail.restype = [], c_char_p
lib.adreno_version.argtypes, lib.adreno_version.restype = [P(c_uint32)] * 3, None
lib.adreno_version_string.argtypes, lib.adreno_version_string.restype = [], c_char_p
lib.adreno_live_handle_count.argtypes, lib.adreno_live_handle_count.restype = [], c_size_t
for _name, _parameters in _CHECKED.items():
    _function = getattr(lib, _name)
    _function.argtypes, _function.restype, _function.errcheck = _parameters, status, _check

WAIT_FOREVER = (1 << 64) - 1
PRIORITY_DEFAULT = -1
BUFFER_GPU_READ_ONLY, BUFFER_NO_CPU_VIEW, BUFFER_EXPORTABLE = 1, 2, 4
GRAPH_DROP_DUPLICATES, GRAPH_ORDER_BY_LEVEL = 1, 2
UNUSED_REGID = 0xFC


def new_handle(create, *arguments):
    """Calls a C constructor whose last parameter receives a handle; returns the handle."""
    out = handle()
    create(*arguments, ctypes.byref(out))
    return out


def timeout_ns(seconds):
    """A timeout in seconds (None: forever) as the C API takes it."""
    if seconds is None:
        return WAIT_FOREVER
    return min(max(int(seconds * 1e9), 0), WAIT_FOREVER - 1)
