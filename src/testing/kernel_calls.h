// How the test kit reads one driver's ioctls: which Operation each is, the arguments that matter
// and, for submissions, the IBs and buffer table. One table per driver (kgsl_calls.cpp,
// msm_calls.cpp); the fault plan finds an operation's ioctl in the same table.
#pragma once

#include <adreno/testing.hpp>

#include <span>

namespace adreno::testing::detail {

struct IoctlEntry {
  unsigned long request;
  const char* name;
  Operation operation;
  /// Only the calls of `request` this accepts are this operation (all when null).
  bool (*applies)(const void* arg);
  /// Fills Call::arguments, object and size from the argument as the driver left it.
  void (*describe)(const void* arg, bool succeeded, Call& call);
};

struct DriverCalls {
  std::span<const IoctlEntry> ioctls;
  /// The submission an ioctl of Operation::submit carried.
  Submission (*submission)(const void* arg, bool succeeded);
  /// The submission names each IB by its object and an offset in it (MSM): Ib::gpu_address
  /// holds the offset, to which the object's GPU address is still to be added.
  bool ib_addresses_are_offsets;
};

const DriverCalls& kgsl_calls();
const DriverCalls& msm_calls();

/// The entry for a call of `request` with `arg`, or nullptr when the table lacks it.
const IoctlEntry* find_entry(const DriverCalls& calls, unsigned long request, const void* arg);

}  // namespace adreno::testing::detail
