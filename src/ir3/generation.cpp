#include "ir3/generation.h"

#include <adreno/error.hpp>
#include <charconv>
#include <string>

namespace adreno::ir3 {

std::optional<Generation> generation_of_gpu_id(std::uint32_t gpu_id) noexcept {
  switch (gpu_id / 100) {
    case 6: return Generation::a6xx;
    case 7: return Generation::a7xx;
    default: return std::nullopt;
  }
}

std::optional<Generation> parse_generation(std::string_view text) noexcept {
  if (text == "a6xx" || text == "6") return Generation::a6xx;
  if (text == "a7xx" || text == "7") return Generation::a7xx;
  // A GPU name: a630, FD740, or just the number.
  if (text.starts_with("a") || text.starts_with("A")) {
    text.remove_prefix(1);
  } else if (text.starts_with("FD") || text.starts_with("fd")) {
    text.remove_prefix(2);
  }
  std::uint32_t gpu_id = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), gpu_id);
  if (text.size() != 3 || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return generation_of_gpu_id(gpu_id);
}

Generation generation_named(std::string_view text, std::string_view what) {
  if (const auto gen = parse_generation(text)) return *gen;
  throw Error(Errc::invalid_argument, std::string(what),
              "'" + std::string(text) + "' is not a6xx, a7xx or an a6xx/a7xx GPU such as a630 or a740");
}

}  // namespace adreno::ir3
