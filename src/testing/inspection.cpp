// The kit's plain-value helpers: operation names and a buffer's kernel object.
#include <adreno/error.hpp>
#include <adreno/testing.hpp>

#include "core/buffer_impl.h"

#include <algorithm>

namespace adreno::testing {

const char* to_string(Operation operation) noexcept {
  switch (operation) {
    case Operation::create_context: return "create_context";
    case Operation::destroy_context: return "destroy_context";
    case Operation::alloc: return "alloc";
    case Operation::free: return "free";
    case Operation::object_info: return "object_info";
    case Operation::import_dmabuf: return "import_dmabuf";
    case Operation::import_host_memory: return "import_host_memory";
    case Operation::export_dmabuf: return "export_dmabuf";
    case Operation::sync_dmabuf: return "sync_dmabuf";
    case Operation::submit: return "submit";
    case Operation::wait: return "wait";
    case Operation::reset_status: return "reset_status";
    case Operation::query: return "query";
    case Operation::sync_object: return "sync_object";
    case Operation::open: return "open";
    case Operation::close: return "close";
    case Operation::map: return "map";
    case Operation::unmap: return "unmap";
  }
  return "operation";
}

KernelObjectRef kernel_object_of(const Buffer& buffer) {
  if (!buffer) throw Error(Errc::invalid_argument, "kernel_object_of", "the buffer is empty");
  const Bo& bo = buffer.impl()->block().bo();
  return KernelObjectRef{bo.handle, bo.gpu.value(), bo.size};
}

bool Submission::lists(const Buffer& buffer) const {
  const std::uint64_t object = kernel_object_of(buffer).object;
  return std::any_of(table.begin(), table.end(), [&](const TableEntry& entry) { return entry.object == object; });
}

}  // namespace adreno::testing
