// The library's logger. Its level comes from ADRENO_LOG (trace|debug|info|warn|error|off),
// default warn, read once at first use.
#pragma once

#include <spdlog/logger.h>

namespace adreno {

spdlog::logger& log();

}  // namespace adreno
