#include "testing/call_log.h"

#include <fmt/format.h>

namespace adreno::testing::detail {

const IoctlEntry* find_entry(const DriverCalls& calls, unsigned long request, const void* arg) {
  for (const IoctlEntry& entry : calls.ioctls) {
    if (entry.request == request && (entry.applies == nullptr || entry.applies(arg))) return &entry;
  }
  return nullptr;
}

Call CallLog::describe(const virt::VirtualSyscalls::Call& call) const {
  using Kind = virt::VirtualSyscalls::Call::Kind;
  Call out{Operation::query, "", "", 0, 0, call.result < 0 ? -call.result : 0, call.injected};
  switch (call.kind) {
    case Kind::open:
      out.operation = Operation::open;
      out.name = "open";
      out.arguments = fmt::format("path={}", call.path ? call.path : "");
      out.object = static_cast<std::uint64_t>(call.fd);
      break;
    case Kind::close:
      out.operation = Operation::close;
      out.name = "close";
      out.object = static_cast<std::uint64_t>(call.fd);
      out.arguments = fmt::format("fd={}", call.fd);
      break;
    case Kind::mmap:
      out.operation = Operation::map;
      out.name = "mmap";
      out.size = call.length;
      out.arguments = fmt::format("fd={} length={} offset=0x{:x}", call.fd, call.length, call.offset);
      break;
    case Kind::munmap:
      out.operation = Operation::unmap;
      out.name = "munmap";
      out.size = call.length;
      out.arguments = fmt::format("length={}", call.length);
      break;
    case Kind::cache_clean:
    case Kind::cache_clean_invalidate:
      break;  // no kernel call: record() leaves it out of the log
    case Kind::ioctl:
      if (const IoctlEntry* entry = find_entry(driver_, call.request, call.arg)) {
        out.operation = entry->operation;
        out.name = entry->name;
        entry->describe(call.arg, call.result >= 0, out);
      } else {
        out.name = fmt::format("ioctl 0x{:x}", call.request);
      }
      break;
  }
  return out;
}

void CallLog::resolve_ib_addresses(Submission& submission) const {
  if (!driver_.ib_addresses_are_offsets) return;
  const auto ledger = system_.ledger();
  for (Ib& ib : submission.ibs) {
    for (const auto& object : ledger) {
      if (object.kind == virt::LiveObject::Kind::buffer && object.id == ib.object) {
        ib.gpu_address += object.address;
        break;
      }
    }
  }
}

void CallLog::record(const virt::VirtualSyscalls::Call& call) {
  using Kind = virt::VirtualSyscalls::Call::Kind;
  if (call.kind == Kind::cache_clean || call.kind == Kind::cache_clean_invalidate) return;  // not a call on the node
  Call described = describe(call);
  std::optional<Submission> submission;
  if (call.kind == virt::VirtualSyscalls::Call::Kind::ioctl && described.operation == Operation::submit) {
    submission = driver_.submission(call.arg, call.result >= 0);
    submission->error = described.error;
    resolve_ib_addresses(*submission);
  }
  std::lock_guard lock(mutex_);
  calls_.push_back(std::move(described));
  if (submission) submissions_.push_back(std::move(*submission));
}

std::vector<Call> CallLog::calls() const {
  std::lock_guard lock(mutex_);
  return calls_;
}

std::vector<Submission> CallLog::submissions() const {
  std::lock_guard lock(mutex_);
  return submissions_;
}

void CallLog::clear() {
  std::lock_guard lock(mutex_);
  calls_.clear();
  submissions_.clear();
}

}  // namespace adreno::testing::detail
