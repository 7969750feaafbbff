// What the virtual GPU reports when it cannot go on: the equivalent of an IOMMU page fault, a CP
// error interrupt (illegal packet, bad parity, IB nesting) or the hang detector firing.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace adreno::virt {

enum class FaultKind { page_fault, cp_error, hang, shader_error };

const char* to_string(FaultKind kind) noexcept;

class GpuFault : public std::runtime_error {
 public:
  GpuFault(FaultKind kind, std::uint64_t address, const std::string& what)
      : std::runtime_error(std::string(to_string(kind)) + " at 0x" + hex(address) + ": " + what),
        kind_(kind),
        address_(address) {}

  FaultKind kind() const noexcept { return kind_; }
  /// The faulting GPU address (page fault) or the address of the offending packet/instruction.
  std::uint64_t address() const noexcept { return address_; }

 private:
  static std::string hex(std::uint64_t value);
  FaultKind kind_;
  std::uint64_t address_;
};

}  // namespace adreno::virt
