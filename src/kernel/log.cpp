#include "kernel/log.h"

#include <spdlog/sinks/stdout_color_sinks.h>

#include <cstdlib>
#include <memory>

namespace adreno {

spdlog::logger& log() {
  static std::shared_ptr<spdlog::logger> logger = [] {
    auto sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
    auto made = std::make_shared<spdlog::logger>("adreno", std::move(sink));
    made->set_pattern("[adreno %l] %v");
    made->set_level(spdlog::level::warn);
    if (const char* level = std::getenv("ADRENO_LOG")) {
      auto parsed = spdlog::level::from_str(level);
      // from_str returns "off" for unknown names; only accept "off" when it was asked for.
      if (parsed != spdlog::level::off || std::string_view(level) == "off") made->set_level(parsed);
    }
    return made;
  }();
  return *logger;
}

}  // namespace adreno
