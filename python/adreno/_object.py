"""What every library object shares: a C handle, close(), and use as a context manager."""
from . import _native


class NativeObject:
    """Owns one handle of the C API. close() releases it (objects it was used with keep what
    they need, so objects may be closed in any order); using a closed object raises
    adreno.InvalidArgument."""

    _release = None  # the C release function, set by each subclass

    def __init__(self, handle):
        self._handle = handle

    @property
    def closed(self):
        """Whether close() was called."""
        return self._handle is None

    def close(self):
        """Releases the object. Closing twice is harmless."""
        handle, self._handle = self._handle, None
        if handle is not None:
            type(self)._release(handle)

    def __enter__(self):
        return self

    def __exit__(self, *exception):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # at interpreter exit the library may be gone already
            pass

    @property
    def _as_parameter_(self):
        # A closed object passes NULL, which the library refuses with InvalidArgument.
        return self._handle
