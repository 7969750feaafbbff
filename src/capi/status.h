// How C calls report failure: every entry point runs its body through `guarded`, which turns an
// exception into an adreno_status and records the message for adreno_last_error_message() on
// this thread. Nothing escapes into C.
#pragma once

#include <adreno/adreno.h>
#include <adreno/error.hpp>

#include <chrono>
#include <cstdint>
#include <new>
#include <string>

namespace adreno::capi {

/// Records a failure of `function` as this thread's last error and returns its status: the full
/// message, and the Error's operation and detail apart (for a failure that is no adreno::Error,
/// the C function and the message).
adreno_status fail(const char* function, adreno_status status, const std::string& message, int sys_errno,
                   const std::string& operation, const std::string& detail) noexcept;
adreno_status status_of(Errc code) noexcept;

template <typename Body>
adreno_status guarded(const char* function, Body&& body) noexcept {
  try {
    body();
    return ADRENO_SUCCESS;
  } catch (const Error& error) {
    return fail(function, status_of(error.code()), error.what(), error.sys_errno(), error.operation(), error.detail());
  } catch (const std::bad_alloc&) {
    return fail(function, ADRENO_OUT_OF_MEMORY, "out of host memory [out_of_memory]", 0, function, "out of host memory");
  } catch (const std::exception& error) {
    return fail(function, ADRENO_INVALID_ARGUMENT, error.what(), 0, function, error.what());
  } catch (...) {
    return fail(function, ADRENO_INVALID_ARGUMENT, "unknown exception", 0, function, "unknown exception");
  }
}

/// Throws Error(invalid_argument) naming `role` when a pointer parameter is NULL.
inline void require(const void* pointer, const char* role) {
  if (pointer == nullptr) throw Error(Errc::invalid_argument, "check arguments", std::string(role) + " is NULL");
}

/// A C timeout in nanoseconds (ADRENO_WAIT_FOREVER: none) as the C++ API takes it.
inline std::chrono::nanoseconds timeout_of(std::uint64_t nanoseconds) noexcept {
  constexpr auto kMax = static_cast<std::uint64_t>(std::chrono::nanoseconds::max().count());
  return nanoseconds >= kMax ? std::chrono::nanoseconds::max()
                             : std::chrono::nanoseconds(static_cast<std::chrono::nanoseconds::rep>(nanoseconds));
}

}  // namespace adreno::capi
