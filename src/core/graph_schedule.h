// How a graph's recorded work is laid out, worked out from what each dispatch reads and writes:
// which dispatches depend on which (dependency levels), where barriers go, and the optional
// passes (drop duplicate dispatches, order by level). Pure: it sees resources as opaque ids.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace adreno {

struct ScheduleAccess {
  const void* resource;  ///< what is accessed (a memory block); equal ids may alias
  bool reads;
  bool writes;
};

struct ScheduleNode {
  /// A signal or a wait: work never moves or merges across it.
  bool sync = false;
  /// A dispatch's accesses (empty for a sync node).
  std::span<const ScheduleAccess> accesses;
};

struct ScheduleOptions {
  bool drop_duplicates = false;
  bool order_by_level = false;
};

struct Schedule {
  static constexpr std::uint32_t kNoLevel = ~std::uint32_t{0};
  /// Nodes in the order to record them; dropped duplicates are absent.
  std::vector<std::size_t> order;
  /// Per entry of `order`: a barrier goes right before it.
  std::vector<bool> barrier_before;
  /// Per node: the node that does its work (itself unless dropped as a duplicate).
  std::vector<std::size_t> kept;
  /// Per node: its dependency level (0: depends on nothing earlier); kNoLevel for sync nodes.
  std::vector<std::uint32_t> level;
  std::size_t levels = 0;
  std::size_t barriers = 0;
};

/// A dispatch depends on an earlier one when both access a resource and either writes it; its
/// level is one more than the highest level it depends on. A barrier goes before a dispatch only
/// when it depends on one recorded after the last barrier, so independent dispatches run back to
/// back. `same_work(a, b)` says whether dispatch nodes a and b do identical work (same program,
/// launch and argument values); a later one is dropped when it adds nothing: no resource it both
/// reads and writes, and nothing between the two (no sync node, no dispatch writing what it
/// touches) changed what it reads or writes.
Schedule schedule(std::span<const ScheduleNode> nodes, const ScheduleOptions& options,
                  const std::function<bool(std::size_t, std::size_t)>& same_work);

}  // namespace adreno
