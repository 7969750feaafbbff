#include "core/graph_schedule.h"

#include <algorithm>
#include <unordered_map>

namespace adreno {
namespace {

struct Use {
  bool read = false;
  bool written = false;
};

// Whether a node with `accesses` must wait for the accesses gathered in `since`.
bool depends_on(std::span<const ScheduleAccess> accesses, const std::unordered_map<const void*, Use>& since) {
  for (const ScheduleAccess& access : accesses) {
    const auto found = since.find(access.resource);
    if (found == since.end()) continue;
    if (access.writes || found->second.written) return true;
  }
  return false;
}

void add_uses(std::span<const ScheduleAccess> accesses, std::unordered_map<const void*, Use>& into) {
  for (const ScheduleAccess& access : accesses) {
    Use& use = into[access.resource];
    use.read = use.read || access.reads;
    use.written = use.written || access.writes;
  }
}

// Rewriting what it reads makes a dispatch's second run differ from its first.
bool reads_what_it_writes(std::span<const ScheduleAccess> accesses) {
  std::unordered_map<const void*, Use> uses;
  add_uses(accesses, uses);
  return std::any_of(uses.begin(), uses.end(), [](const auto& entry) { return entry.second.read && entry.second.written; });
}

bool writes_any(std::span<const ScheduleAccess> writer, std::span<const ScheduleAccess> touched) {
  for (const ScheduleAccess& w : writer) {
    if (!w.writes) continue;
    for (const ScheduleAccess& t : touched)
      if (t.resource == w.resource) return true;
  }
  return false;
}

}  // namespace

Schedule schedule(std::span<const ScheduleNode> nodes, const ScheduleOptions& options,
                  const std::function<bool(std::size_t, std::size_t)>& same_work) {
  Schedule result;
  result.kept.resize(nodes.size());
  result.level.assign(nodes.size(), Schedule::kNoLevel);
  for (std::size_t i = 0; i < nodes.size(); ++i) result.kept[i] = i;

  // Duplicates: compare with the kept dispatches since the last sync node, newest first.
  if (options.drop_duplicates) {
    std::size_t segment_start = 0;
    for (std::size_t j = 0; j < nodes.size(); ++j) {
      if (nodes[j].sync) {
        segment_start = j + 1;
        continue;
      }
      if (reads_what_it_writes(nodes[j].accesses)) continue;
      for (std::size_t i = j; i-- > segment_start;) {
        if (result.kept[i] != i) continue;
        if (same_work(i, j)) {
          result.kept[j] = i;
          break;
        }
        if (writes_any(nodes[i].accesses, nodes[j].accesses)) break;  // what j touches changed since
      }
    }
  }

  // Levels, in recorded order.
  struct ResourceLevels {
    std::int64_t last_write = -1;
    std::int64_t max_read = -1;  // readers since the last write
  };
  std::unordered_map<const void*, ResourceLevels> resources;
  for (std::size_t j = 0; j < nodes.size(); ++j) {
    if (nodes[j].sync || result.kept[j] != j) continue;
    std::int64_t level = 0;
    for (const ScheduleAccess& access : nodes[j].accesses) {
      const ResourceLevels& r = resources[access.resource];
      if (access.reads || access.writes) level = std::max(level, r.last_write + 1);
      if (access.writes) level = std::max(level, r.max_read + 1);
    }
    for (const ScheduleAccess& access : nodes[j].accesses) {
      ResourceLevels& r = resources[access.resource];
      if (access.reads) r.max_read = std::max(r.max_read, level);
    }
    for (const ScheduleAccess& access : nodes[j].accesses) {
      ResourceLevels& r = resources[access.resource];
      if (access.writes) {
        r.last_write = level;
        r.max_read = -1;
      }
    }
    result.level[j] = static_cast<std::uint32_t>(level);
    result.levels = std::max<std::size_t>(result.levels, static_cast<std::size_t>(level) + 1);
  }

  // Order: as recorded, or by level within each stretch between sync nodes.
  for (std::size_t j = 0; j < nodes.size(); ++j)
    if (nodes[j].sync || result.kept[j] == j) result.order.push_back(j);
  if (options.order_by_level) {
    auto begin = result.order.begin();
    while (begin != result.order.end()) {
      auto end = std::find_if(begin, result.order.end(), [&](std::size_t n) { return nodes[n].sync; });
      std::stable_sort(begin, end, [&](std::size_t a, std::size_t b) { return result.level[a] < result.level[b]; });
      begin = end == result.order.end() ? end : end + 1;
    }
  }

  // Barriers: before a dispatch that depends on one since the last barrier.
  std::unordered_map<const void*, Use> since_barrier;
  result.barrier_before.assign(result.order.size(), false);
  for (std::size_t k = 0; k < result.order.size(); ++k) {
    const ScheduleNode& node = nodes[result.order[k]];
    if (node.sync) continue;
    if (depends_on(node.accesses, since_barrier)) {
      result.barrier_before[k] = true;
      ++result.barriers;
      since_barrier.clear();
    }
    add_uses(node.accesses, since_barrier);
  }
  return result;
}

}  // namespace adreno
