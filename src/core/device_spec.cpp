#include "core/device_spec.h"

#include <adreno/error.hpp>

#include <array>
#include <utility>

namespace adreno {

DeviceSpec parse_device_spec(std::string_view text) {
  static constexpr std::array<std::pair<std::string_view, DeviceSpec::Kind>, 4> kKinds = {{
      {"kgsl", DeviceSpec::Kind::kgsl},
      {"msm", DeviceSpec::Kind::msm},
      {"virtual-kgsl", DeviceSpec::Kind::virtual_kgsl},
      {"virtual-msm", DeviceSpec::Kind::virtual_msm},
  }};
  const auto colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  const std::string_view argument = colon == std::string_view::npos ? std::string_view{} : text.substr(colon + 1);
  for (const auto& [kind_name, kind] : kKinds) {
    if (name != kind_name) continue;
    if (colon != std::string_view::npos && argument.empty()) break;
    return DeviceSpec{kind, std::string(argument)};
  }
  throw Error(Errc::invalid_argument, "parse ADRENO_DEVICE", "'" + std::string(text) +
              "' is not one of kgsl[:path], msm[:/dev/dri/renderDN], virtual-kgsl[:model], virtual-msm[:model]");
}

}  // namespace adreno
