// The device-selection grammar of ADRENO_DEVICE, parsed apart from any I/O so it can be tested.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace adreno {

struct DeviceSpec {
  enum class Kind { kgsl, msm, virtual_kgsl, virtual_msm } kind;
  /// kgsl/msm: a node path (empty: the default node / every render node); virtual: a model name.
  std::string argument;
};

/// Parses `kgsl[:path]`, `msm[:path]`, `virtual-kgsl[:model]`, `virtual-msm[:model]`.
/// Throws Error(invalid_argument) naming the text and the accepted forms.
DeviceSpec parse_device_spec(std::string_view text);

}  // namespace adreno
