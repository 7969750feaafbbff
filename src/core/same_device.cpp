#include <adreno/error.hpp>

#include "core/same_device.h"

#include "core/queue_impl.h"

#include <fmt/format.h>

namespace adreno {
namespace {

std::string describe(const DeviceInfo& info) {
  return fmt::format("{}{} {} ({})", info.is_virtual ? "virtual " : "", info.backend, info.node, info.name);
}

}  // namespace

void throw_other_device(const char* operation, std::string_view what, const Device::Impl& owner, const Device::Impl& user) {
  const std::string owner_text = describe(owner.info()), user_text = describe(user.info());
  // Two opens of one node are two devices too: each file has its own address space and handles.
  const std::string which = owner_text == user_text
                                ? fmt::format("another open of {}, with its own GPU address space and kernel objects", owner_text)
                                : fmt::format("{}, not {}", owner_text, user_text);
  throw Error(Errc::invalid_argument, operation, fmt::format("{} belongs to another device: {}", what, which));
}

void throw_unusable_view(const Device::Impl& device, const BufferView& view, const char* operation, std::string_view what) {
  if (!view.buffer()) throw Error(Errc::invalid_argument, operation, fmt::format("{} is a view of no buffer", what));
  throw_other_device(operation, what, view.buffer()->block().device(), device);
}

void require_usable_signal(const Device::Impl& device, const Signal& signal, const char* operation) {
  if (!signal.impl()) throw Error(Errc::invalid_argument, operation, "the signal is empty (moved from)");
  require_same_device(device, *signal.impl()->memory(), operation, "signal");
}

}  // namespace adreno
