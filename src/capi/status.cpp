// Status codes, the per-thread last error, the library version and the count of live handles.
#include "capi/registry.h"
#include "capi/status.h"

namespace adreno::capi {
namespace {

struct LastError {
  adreno_status status = ADRENO_SUCCESS;
  int sys_errno = 0;
  std::string message;
  std::string operation;  // adreno::Error::operation()
  std::string detail;     // adreno::Error::detail()
};

thread_local LastError last_error;

// adreno_status is Errc's order, from 1 (adreno.h spells the numbers out for other languages).
static_assert(ADRENO_INVALID_ARGUMENT == static_cast<int>(Errc::invalid_argument) + 1);
static_assert(ADRENO_TIMEOUT == static_cast<int>(Errc::timeout) + 1);
static_assert(ADRENO_BUSY == static_cast<int>(Errc::busy) + 1);

}  // namespace

adreno_status status_of(Errc code) noexcept { return static_cast<adreno_status>(static_cast<int>(code) + 1); }

adreno_status fail(const char* function, adreno_status status, const std::string& message, int sys_errno,
                   const std::string& operation, const std::string& detail) noexcept {
  try {
    last_error.message = std::string(function) + ": " + message;
    last_error.operation = operation;
    last_error.detail = detail;
  } catch (...) {
    // No memory for the texts; the status still says what happened.
    last_error.message.clear();
    last_error.operation.clear();
    last_error.detail.clear();
  }
  last_error.status = status;
  last_error.sys_errno = sys_errno;
  return status;
}

}  // namespace adreno::capi

using namespace adreno::capi;

extern "C" {

const char* adreno_status_name(adreno_status status) {
  if (status == ADRENO_SUCCESS) return "success";
  // to_string names every Errc and says "unknown" for any other number; its texts are literals.
  return adreno::to_string(static_cast<adreno::Errc>(static_cast<int>(status) - 1)).data();
}

adreno_status adreno_last_error_status(void) { return last_error.status; }
const char* adreno_last_error_message(void) { return last_error.message.c_str(); }
int adreno_last_error_errno(void) { return last_error.sys_errno; }
const char* adreno_last_error_operation(void) { return last_error.operation.c_str(); }
const char* adreno_last_error_detail(void) { return last_error.detail.c_str(); }

void adreno_version(uint32_t* major, uint32_t* minor, uint32_t* patch) {
  if (major != nullptr) *major = ADRENO_VERSION_MAJOR;
  if (minor != nullptr) *minor = ADRENO_VERSION_MINOR;
  if (patch != nullptr) *patch = ADRENO_VERSION_PATCH;
}

size_t adreno_live_handle_count(void) { return registry().size(); }

#define ADRENO_STRINGIFY_(x) #x
#define ADRENO_STRINGIFY(x) ADRENO_STRINGIFY_(x)
const char* adreno_version_string(void) {
  return ADRENO_STRINGIFY(ADRENO_VERSION_MAJOR) "." ADRENO_STRINGIFY(ADRENO_VERSION_MINOR) "." ADRENO_STRINGIFY(
      ADRENO_VERSION_PATCH);
}

}  // extern "C"
