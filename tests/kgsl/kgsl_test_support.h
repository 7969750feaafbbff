// Shared pieces of the KGSL tests: a virtual KGSL behind a VirtualSyscalls seam with the real
// KgslKernel opened on it, and hand-encoded PM4 (opcodes from Mesa adreno_pm4.xml).
#pragma once

#include "kgsl/kgsl_kernel.h"
#include <adreno/error.hpp>
#include "pm4/packet.h"
#include "virt/kernels/kgsl_device.h"
#include "virt/kernels/virtual_syscalls.h"

#include <cstring>
#include <memory>
#include <vector>

namespace kgsl_test {

using namespace adreno;

constexpr std::uint32_t CP_WAIT_REG_MEM = 0x3c, CP_MEM_WRITE = 0x3d, CP_EVENT_WRITE = 0x46, CACHE_FLUSH_TS = 4;
// CP_WAIT_REG_MEM_0: FUNCTION = WRITE_EQ (3), POLL = POLL_MEMORY (1 << 4).
constexpr std::uint32_t kWaitMemoryEqual = 3 | (1u << 4);

/// The virtual KGSL node registered on a fresh seam, and the backend opened on it.
struct VirtualKgsl {
  explicit VirtualKgsl(virt::VirtualGpuConfig config = {}) : sys(config.page_size) {
    sys.add_node(virt::kVirtualKgslNode, virt::make_virtual_kgsl_node(config));
    kernel = open_kgsl_kernel(sys, virt::kVirtualKgslNode, true);
  }
  /// Closes the kernel; what the ledger still lists afterwards was leaked.
  std::vector<std::string> close_and_list_leaks() {
    kernel.reset();
    return sys.leaks();
  }
  virt::VirtualSyscalls sys;
  std::unique_ptr<Kernel> kernel;
};

inline std::vector<std::uint32_t> mem_write(GpuAddress at, const std::vector<std::uint32_t>& values) {
  std::vector<std::uint32_t> packet{pm4::type7_header(CP_MEM_WRITE, static_cast<std::uint32_t>(2 + values.size())),
                                    at.lo(), at.hi()};
  packet.insert(packet.end(), values.begin(), values.end());
  return packet;
}

inline std::vector<std::uint32_t> cache_flush_ts(GpuAddress at, std::uint32_t value) {
  return {pm4::type7_header(CP_EVENT_WRITE, 4), CACHE_FLUSH_TS, at.lo(), at.hi(), value};
}

inline std::vector<std::uint32_t> wait_memory_equal(GpuAddress at, std::uint32_t value) {
  return {pm4::type7_header(CP_WAIT_REG_MEM, 6), kWaitMemoryEqual, at.lo(), at.hi(), value, 0xffffffff, 16};
}

/// A packet no CP knows (type-7 opcode 0x7f): a CP error, which the driver recovers from by
/// invalidating the context (INVALIDATE_ON_FAULT).
inline std::vector<std::uint32_t> illegal_packet() { return {pm4::type7_header(0x7f, 0)}; }

inline std::vector<std::uint32_t> concat(std::initializer_list<std::vector<std::uint32_t>> parts) {
  std::vector<std::uint32_t> all;
  for (const auto& part : parts) all.insert(all.end(), part.begin(), part.end());
  return all;
}

/// Writes `dwords` at `offset` of the mapped command buffer and returns the IB covering them.
inline IbRef write_ib(const Bo& bo, CpuView view, std::uint64_t offset, const std::vector<std::uint32_t>& dwords) {
  std::memcpy(view.data() + offset, dwords.data(), dwords.size() * 4);
  return IbRef{&bo, offset, static_cast<std::uint32_t>(dwords.size())};
}

inline std::uint32_t read32(CpuView view, std::size_t index) {
  std::uint32_t value;
  std::memcpy(&value, view.data() + index * 4, 4);
  return value;
}

inline std::uint64_t cpu_address(CpuView view) { return reinterpret_cast<std::uintptr_t>(view.data()); }

}  // namespace kgsl_test
