"""The errors the library raises: one adreno.Error subclass per status of adreno.h."""


class Error(Exception):
    """A failure the library reported: `status` (adreno.h's number), `message` (the C function,
    the operation, the object and what was wrong), `errno` (the kernel's, 0 when none applies),
    and the message's parts as the C++ adreno::Error has them: `operation` (what was being done)
    and `detail` (the object or field and what was wrong with it)."""

    def __init__(self, status, message, errno=0, operation="", detail=""):
        super().__init__(message)
        self.status = status
        self.message = message
        self.errno = errno
        self.operation = operation
        self.detail = detail


class InvalidArgument(Error, ValueError):
    """Something out of range or inconsistent, or a closed or wrong object."""


class NotFound(Error, LookupError):
    """No device, object or entry with that name or id."""


class Unsupported(Error):
    """The kernel, GPU or backend cannot do this."""


class OutOfMemory(Error, MemoryError):
    """Host or GPU memory exhausted."""


class KernelError(Error):
    """The kernel refused a request (see errno)."""


class Timeout(Error):
    """A wait ran out of time."""


class DeviceLost(Error):
    """The GPU faulted or hung; the queue is unusable from now on."""


class Malformed(Error):
    """A binary, source or file is malformed (the message names the field)."""


class Busy(Error):
    """The object is still in use by the GPU."""


# In adreno_status order, from 1.
_BY_STATUS = [InvalidArgument, NotFound, Unsupported, OutOfMemory, KernelError, Timeout, DeviceLost, Malformed, Busy]


def raise_for_status(status, message, errno, operation="", detail=""):
    """Raises the Error subclass for an adreno.h status (adreno.Error itself for a status this
    package does not know), carrying `message`, the kernel's `errno` and the message's parts."""
    kind = _BY_STATUS[status - 1] if 1 <= status <= len(_BY_STATUS) else Error
    raise kind(status, message, errno, operation, detail)
