"""Compute programs, their compiler metadata and their argument values."""
import ctypes
import dataclasses
import typing

from . import _native
from ._object import NativeObject
from .types import WaveSize, image_desc, sampler_desc

lib = _native.lib

# Scalar types by name: the C setter of each.
_SCALAR_SETTERS = {
    "i8": lib.adreno_arguments_set_i8, "u8": lib.adreno_arguments_set_u8,
    "i16": lib.adreno_arguments_set_i16, "u16": lib.adreno_arguments_set_u16,
    "i32": lib.adreno_arguments_set_i32, "u32": lib.adreno_arguments_set_u32,
    "i64": lib.adreno_arguments_set_i64, "u64": lib.adreno_arguments_set_u64,
    "f32": lib.adreno_arguments_set_f32, "f64": lib.adreno_arguments_set_f64,
}
SCALAR_TYPES = tuple(_SCALAR_SETTERS)


@dataclasses.dataclass
class Ir3Metadata:
    """What Mesa's ir3 compiler reports for one compute variant (adreno::Ir3Metadata).
    `buffers` are (name, const_dword) pairs, `scalars` (name, const_dword, size_bytes),
    `immediates` (const_dword, value), `storage_buffers` (name, slot, address_const_dword or
    None); in argument order the buffers come first, then the scalars, then the storage buffers.
    `driver_params` is (const_dword, count): where Mesa's compute driver params (work-group
    counts, work_dim, base group, ...) start and how many dwords the program reads."""
    name: str
    instrlen: int
    constlen_vec4: int
    max_reg: int = -1
    max_half_reg: int = -1
    merged_regs: bool = False
    wave_size: WaveSize = WaveSize.THREAD64
    branch_stack: int = 0
    work_group_id_regid: int = _native.UNUSED_REGID
    local_id_regid: int = _native.UNUSED_REGID
    local_size_const_dword: typing.Optional[int] = None
    buffers: typing.Sequence[tuple] = ()
    scalars: typing.Sequence[tuple] = ()
    immediates: typing.Sequence[tuple] = ()
    private_bytes_per_fiber: int = 0
    private_per_wave: bool = True
    shared_bytes: int = 0
    fixed_local_size: typing.Sequence[int] = (0, 0, 0)
    driver_params: typing.Optional[tuple] = None
    storage_buffers: typing.Sequence[tuple] = ()

    def _to_c(self):
        """The C struct, and what must stay referenced while it is used."""
        def text(name):
            return name.encode() if name else None
        buffers = (_native.Ir3BufferPointer * len(self.buffers))(
            *[_native.Ir3BufferPointer(text(n), d) for n, d in self.buffers])
        scalars = (_native.Ir3Scalar * len(self.scalars))(
            *[_native.Ir3Scalar(text(n), d, s) for n, d, s in self.scalars])
        immediates = (_native.Ir3Immediate * len(self.immediates))(
            *[_native.Ir3Immediate(d, v) for d, v in self.immediates])
        storage = (_native.Ir3StorageBuffer * len(self.storage_buffers))(
            *[_native.Ir3StorageBuffer(text(n), slot, address is not None, address or 0)
              for n, slot, address in self.storage_buffers])
        params_dword, params_count = self.driver_params or (0, 0)
        c = _native.Ir3Metadata(
            name=text(self.name), instrlen=self.instrlen, constlen_vec4=self.constlen_vec4, max_reg=self.max_reg,
            max_half_reg=self.max_half_reg, merged_regs=self.merged_regs, wave_size=int(self.wave_size),
            branch_stack=self.branch_stack, work_group_id_regid=self.work_group_id_regid,
            local_id_regid=self.local_id_regid,
            has_local_size_const_dword=self.local_size_const_dword is not None,
            local_size_const_dword=self.local_size_const_dword or 0,
            buffers=buffers, buffer_count=len(self.buffers), scalars=scalars, scalar_count=len(self.scalars),
            immediates=immediates, immediate_count=len(self.immediates),
            private_bytes_per_fiber=self.private_bytes_per_fiber, private_per_wave=self.private_per_wave,
            shared_bytes=self.shared_bytes, fixed_local_size=(ctypes.c_uint32 * 3)(*self.fixed_local_size),
            driver_params_const_dword=params_dword, driver_params_count=params_count,
            storage_buffers=storage, storage_buffer_count=len(self.storage_buffers))
        return c, (buffers, scalars, immediates, storage)


class Program(NativeObject):
    """Compiled code in GPU memory with the compiler's metadata."""

    _release = lib.adreno_program_release

    def _info(self):
        info = _native.ProgramInfo()
        lib.adreno_program_get_info(self, ctypes.byref(info))
        return info

    @property
    def name(self):
        """The program's name, which error messages use: "assembly" for ir3 assembly, else the
        name its metadata or binary gives."""
        return self._info().name.decode()

    @property
    def wave_size(self):
        """The wave size the compiler chose."""
        return WaveSize(self._info().wave_size)

    @property
    def code_address(self):
        """GPU address of the code."""
        return self._info().code_address

    @property
    def argument_count(self):
        """How many arguments the program takes (indices 0 .. argument_count-1)."""
        return self._info().argument_count

    def argument_index(self, name):
        """The index of the argument named `name`; raises adreno.NotFound when there is none."""
        index = ctypes.c_uint32()
        lib.adreno_program_argument_index(self, name.encode(), ctypes.byref(index))
        return index.value

    def arguments(self):
        """A new, empty set of argument values for this program."""
        return Arguments(_native.new_handle(lib.adreno_arguments_create, self), self)


class Arguments(NativeObject):
    """Values for one program's arguments, each set by index or by name. Setters check the
    argument's kind and size (adreno.InvalidArgument naming the argument) and return self."""

    _release = lib.adreno_arguments_release

    def __init__(self, handle, program):
        super().__init__(handle)
        self._program = program

    def _index(self, argument):
        return self._program.argument_index(argument) if isinstance(argument, str) else argument

    def set_buffer(self, argument, buffer):
        """A buffer or window: its GPU address goes into the constant file."""
        lib.adreno_arguments_set_buffer(self, self._index(argument), buffer)
        return self

    def set_bytes(self, argument, data):
        """A scalar from raw bytes (at most the argument's size)."""
        data = bytes(data)
        lib.adreno_arguments_set_bytes(self, self._index(argument), data, len(data))
        return self

    def set_scalar(self, argument, value, type="u32"):
        """A scalar of `type`: one of SCALAR_TYPES (i8 … u64, f32, f64)."""
        try:
            setter = _SCALAR_SETTERS[type]
        except KeyError:
            raise ValueError(f"scalar type {type!r} is not one of {', '.join(SCALAR_TYPES)}") from None
        setter(self, self._index(argument), value)
        return self

    def set_texture(self, argument, image):
        """A sampled image (adreno.Image)."""
        lib.adreno_arguments_set_texture(self, self._index(argument), ctypes.byref(image_desc(image)))
        return self

    def set_storage_image(self, argument, image):
        """A storage image (adreno.Image)."""
        lib.adreno_arguments_set_storage_image(self, self._index(argument), ctypes.byref(image_desc(image)))
        return self

    def set_sampler(self, argument, sampler):
        """A sampler (adreno.Sampler)."""
        lib.adreno_arguments_set_sampler(self, self._index(argument), ctypes.byref(sampler_desc(sampler)))
        return self
