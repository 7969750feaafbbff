// The errnos the fault-injection tests make kernel calls fail with, and the error kind each must
// come back as. The kinds are written out here (from what each errno means in the drivers), not
// taken from the library's mapping, so a wrong mapping fails the tests.
#pragma once

#include <adreno/error.hpp>

#include <cerrno>

namespace injected {

struct ErrnoKind {
  int error;
  adreno::Errc code;
};

inline constexpr ErrnoKind kErrnoKinds[] = {
    {ENOMEM, adreno::Errc::out_of_memory},     // allocation failed
    {EINTR, adreno::Errc::kernel_error},        // interrupted: the seam asks again (sys::retry_transient)
    {EAGAIN, adreno::Errc::kernel_error},       // try again: likewise
    {EINVAL, adreno::Errc::invalid_argument},   // the driver refused an argument
    {EDEADLK, adreno::Errc::device_lost},       // KGSL: the context was invalidated (kgsl_check_context_state)
    {ETIMEDOUT, adreno::Errc::timeout},         // a wait ran out
    {EIO, adreno::Errc::device_lost},           // an I/O error: the device is gone
};

}  // namespace injected
