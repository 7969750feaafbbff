"""Graphs: work recorded once and replayed many times, patching only what changed."""
import ctypes
import dataclasses

from . import _native
from ._object import NativeObject
from .types import image_desc, indirect_launch, launch

lib = _native.lib


@dataclasses.dataclass
class GraphInfo:
    """Counts of a built graph (Graph.info)."""
    dispatch_count: int  #: dispatches in the command buffer (duplicates dropped)
    levels: int          #: the longest chain of dependent dispatches
    barriers: int        #: barriers between levels
    command_dwords: int  #: size of the command buffer


class Graph(NativeObject):
    """Records dispatches, signals and waits; build() lays them out in GPU memory once, replay()
    calls them from a queue after writing only the values changed since the last replay. A
    graph is used by one thread at a time (see adreno/graph.hpp for the contracts)."""

    _release = lib.adreno_graph_release

    def dispatch(self, program, arguments, groups, local_size, wave_size=None, access=(), base_group=0):
        """Records a dispatch (as Queue.dispatch); `access[i]` (adreno.Access) says how buffer
        argument i is used, read-write past its end. Returns the dispatch's number."""
        accesses = (ctypes.c_int * len(access))(*[int(a) for a in access])
        number = ctypes.c_uint32()
        lib.adreno_graph_dispatch(self, program, arguments,
                                  ctypes.byref(launch(groups, local_size, wave_size, base_group)),
                                  accesses, len(access), ctypes.byref(number))
        return number.value

    def dispatch_indirect(self, program, arguments, groups, local_size, wave_size=None, access=()):
        """Records a dispatch over the group counts each replay reads from the buffer or window
        `groups` (as Queue.dispatch_indirect), typically written by an earlier dispatch of the
        graph. set_launch refuses it. Returns the dispatch's number."""
        accesses = (ctypes.c_int * len(access))(*[int(a) for a in access])
        number = ctypes.c_uint32()
        lib.adreno_graph_dispatch_indirect(self, program, arguments, groups,
                                           ctypes.byref(indirect_launch(local_size, wave_size)),
                                           accesses, len(access), ctypes.byref(number))
        return number.value

    def signal(self, signal, value):
        """Records a signal write; returns its number for set_value."""
        number = ctypes.c_uint32()
        lib.adreno_graph_signal(self, signal, value, ctypes.byref(number))
        return number.value

    def wait(self, signal, value):
        """Records a wait; returns its number for set_value."""
        number = ctypes.c_uint32()
        lib.adreno_graph_wait(self, signal, value, ctypes.byref(number))
        return number.value

    def build(self, drop_duplicates=False, order_by_level=False):
        """Lays the graph out; recording afterwards is refused."""
        lib.adreno_graph_build(self, (_native.GRAPH_DROP_DUPLICATES if drop_duplicates else 0) |
                               (_native.GRAPH_ORDER_BY_LEVEL if order_by_level else 0))

    @property
    def info(self):
        """Counts of the built graph."""
        c = _native.GraphInfo()
        lib.adreno_graph_get_info(self, ctypes.byref(c))
        return GraphInfo(c.dispatch_count, c.levels, c.barriers, c.command_dwords)

    def set_buffer(self, dispatch, argument, buffer):
        """Binds another buffer or window to a buffer argument of `dispatch`."""
        lib.adreno_graph_set_buffer(self, dispatch, argument, buffer)

    def set_bytes(self, dispatch, argument, data):
        """Changes a scalar argument of `dispatch` to raw bytes."""
        data = bytes(data)
        lib.adreno_graph_set_bytes(self, dispatch, argument, data, len(data))

    def set_texture(self, dispatch, argument, image):
        """Binds another adreno.Image to a texture argument of `dispatch`."""
        lib.adreno_graph_set_texture(self, dispatch, argument, ctypes.byref(image_desc(image)))

    def set_storage_image(self, dispatch, argument, image):
        """Binds another adreno.Image to a storage-image argument of `dispatch`."""
        lib.adreno_graph_set_storage_image(self, dispatch, argument, ctypes.byref(image_desc(image)))

    def set_value(self, sync, value):
        """Changes the value a recorded signal writes or a wait waits for."""
        lib.adreno_graph_set_value(self, sync, value)

    def set_launch(self, dispatch, groups, local_size, wave_size=None, base_group=0):
        """Changes the grid of `dispatch` (checked as Queue.dispatch checks it): the next replay
        rewrites its launch and the driver params its program reads."""
        lib.adreno_graph_set_launch(self, dispatch, ctypes.byref(launch(groups, local_size, wave_size, base_group)))

    def replay(self, queue):
        """Records a call of the graph into `queue` (submitted with its other work)."""
        lib.adreno_graph_replay(self, queue)
