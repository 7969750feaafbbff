"""Enumerations and small descriptions shared by several objects (adreno.h's enums)."""
import ctypes
import dataclasses
import enum
import typing

from . import _native


class MemoryType(enum.IntEnum):
    """How the CPU maps a buffer."""
    WRITE_COMBINED = 0   #: uncached, write-combining (default)
    CACHED = 1           #: CPU-cached: flush_for_gpu before, invalidate_for_cpu after GPU use
    CACHED_COHERENT = 2  #: CPU-cached and IO-coherent
    UNCACHED = 3         #: strongly ordered (KGSL); write-combined on MSM


class WaveSize(enum.IntEnum):
    """Hardware wave size."""
    DEFAULT = 0  #: in a launch: the program's own
    THREAD64 = 64
    THREAD128 = 128


class ImageFormat(enum.IntEnum):
    """Texel format of an adreno.Image."""
    R32_UINT = 0
    R32_FLOAT = 1
    RGBA8_UNORM = 2
    RGBA16_FLOAT = 3
    RGBA32_FLOAT = 4
    RGBA32_UINT = 5

    @property
    def bytes_per_texel(self):
        """Bytes per texel."""
        bytes_ = ctypes.c_uint32()
        _native.lib.adreno_image_format_bytes_per_texel(int(self), ctypes.byref(bytes_))
        return bytes_.value


class Filter(enum.IntEnum):
    """How a sampler filters texels."""
    NEAREST = 0
    LINEAR = 1


class AddressMode(enum.IntEnum):
    """What a sampler returns for coordinates outside the image."""
    REPEAT = 0
    MIRRORED_REPEAT = 1
    CLAMP_TO_EDGE = 2
    CLAMP_TO_BORDER = 3


class Access(enum.IntEnum):
    """How a graph dispatch uses a buffer argument."""
    READ = 0
    WRITE = 1
    READ_WRITE = 2


@dataclasses.dataclass
class Image:
    """A linear 2D image whose first texel starts `memory` (a Buffer or window), rows
    `pitch_bytes` apart (a multiple of 64)."""
    memory: typing.Any
    format: ImageFormat
    width: int
    height: int
    pitch_bytes: int


@dataclasses.dataclass
class Sampler:
    """How a texture argument is sampled."""
    filter: Filter = Filter.NEAREST
    address: AddressMode = AddressMode.CLAMP_TO_BORDER
    normalized_coordinates: bool = False  #: False: coordinates in texels


@dataclasses.dataclass
class DeviceInfo:
    """What a device is (Device.info); va_start and va_size are None where the kernel does not
    report its GPU address range."""
    backend: str          #: "kgsl" or "msm"
    node: str             #: e.g. "/dev/kgsl-3d0"
    name: str             #: e.g. "Adreno 630"
    is_virtual: bool      #: a virtual kernel (virtual-kgsl, virtual-msm), not hardware
    chip_id: int
    gpu_id: int
    gmem_size: int
    va_start: typing.Optional[int]
    va_size: typing.Optional[int]
    priority_levels: int  #: queue priorities are 0 (highest) .. priority_levels-1


class RegisterMode(enum.IntEnum):
    """How ir3 assembly addresses half registers: merged (hrN is half of r(N/2), as Mesa's
    compiler and computerator assemble for a6xx) or split (a separate half-register file)."""
    MERGED = 0
    SPLIT = 1


def _three(numbers, what, missing):
    """1 to 3 numbers (or one int) as x, y, z; the axes not given are `missing`."""
    numbers = (numbers,) if isinstance(numbers, int) else tuple(numbers)
    if not 1 <= len(numbers) <= 3:
        raise ValueError(f"{what}: 1 to 3 numbers, got {len(numbers)}")
    return (numbers + (missing, missing))[:3]


def launch(groups, local_size, wave_size, base_group=0):
    """The C launch for `groups` work-groups of `local_size` invocations (1 to 3 numbers each),
    the first work-group's id being `base_group`."""
    return _native.Launch(_three(groups, "groups", 1), _three(local_size, "local_size", 1),
                          int(wave_size) if wave_size is not None else 0, _three(base_group, "base_group", 0))


def indirect_launch(local_size, wave_size):
    """The C launch of an indirect dispatch: `local_size` invocations per work-group."""
    return _native.IndirectLaunch(_three(local_size, "local_size", 1), int(wave_size) if wave_size is not None else 0)


def image_desc(image):
    """The C description of an adreno.Image."""
    return _native.ImageDesc(image.memory._as_parameter_, int(image.format), image.width, image.height,
                             image.pitch_bytes)


def sampler_desc(sampler):
    """The C description of an adreno.Sampler."""
    return _native.SamplerDesc(int(sampler.filter), int(sampler.address), bool(sampler.normalized_coordinates))
