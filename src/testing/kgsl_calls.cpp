// The KGSL ioctls as the test kit logs them (UAPI: kgsl/kgsl_abi.h).
#include "kgsl/kgsl_abi.h"
#include "testing/kernel_calls.h"

#include <fmt/format.h>
#include <linux/dma-buf.h>

namespace adreno::testing::detail {
namespace {

template <typename T>
const T& as(const void* arg) {
  return *static_cast<const T*>(arg);
}

bool is_dmabuf_import(const void* arg) { return as<kgsl_gpuobj_import>(arg).type == KGSL_USER_MEM_TYPE_DMABUF; }
bool is_user_memory_import(const void* arg) { return as<kgsl_gpuobj_import>(arg).type == KGSL_USER_MEM_TYPE_ADDR; }
bool is_reset_status(const void* arg) { return as<kgsl_device_getproperty>(arg).type == KGSL_PROP_GPU_RESET_STAT; }
bool is_other_property(const void* arg) { return !is_reset_status(arg); }

void describe_context_create(const void* arg, bool ok, Call& call) {
  const auto& param = as<kgsl_drawctxt_create>(arg);
  call.arguments = fmt::format("flags=0x{:x}", param.flags);
  if (ok) call.object = param.drawctxt_id;
}
void describe_context_destroy(const void* arg, bool, Call& call) {
  call.object = as<kgsl_drawctxt_destroy>(arg).drawctxt_id;
  call.arguments = fmt::format("context={}", call.object);
}
void describe_alloc(const void* arg, bool ok, Call& call) {
  const auto& param = as<kgsl_gpuobj_alloc>(arg);
  call.size = param.size;
  call.arguments = fmt::format("size={} flags=0x{:x}", param.size, param.flags);
  if (ok) call.object = param.id;
}
void describe_free(const void* arg, bool, Call& call) {
  call.object = as<kgsl_gpuobj_free>(arg).id;
  call.arguments = fmt::format("id={}", call.object);
}
void describe_info(const void* arg, bool ok, Call& call) {
  const auto& param = as<kgsl_gpuobj_info>(arg);
  call.object = param.id;
  call.arguments = fmt::format("id={}", param.id);
  if (ok) call.size = param.size;
}
void describe_import(const void* arg, bool ok, Call& call) {
  const auto& param = as<kgsl_gpuobj_import>(arg);
  call.arguments = fmt::format("type={} flags=0x{:x}", param.type, param.flags);
  if (param.type == KGSL_USER_MEM_TYPE_ADDR) call.size = param.priv_len;
  if (ok) call.object = param.id;
}
void describe_property(const void* arg, bool, Call& call) {
  call.arguments = fmt::format("type=0x{:x}", as<kgsl_device_getproperty>(arg).type);
}
void describe_wait(const void* arg, bool, Call& call) {
  const auto& param = as<kgsl_device_waittimestamp_ctxtid>(arg);
  call.object = param.context_id;
  call.arguments = fmt::format("context={} timestamp={} timeout_ms={}", param.context_id, param.timestamp, param.timeout);
}
void describe_fault_report(const void* arg, bool, Call& call) {
  const auto& param = as<kgsl_fault_report>(arg);
  call.object = param.context_id;
  call.arguments = fmt::format("context={} faultnents={}", param.context_id, param.faultnents);
}
void describe_dmabuf_sync(const void* arg, bool, Call& call) {
  const std::uint64_t flags = as<dma_buf_sync>(arg).flags;
  call.arguments =
      fmt::format("flags={}{}{}", (flags & DMA_BUF_SYNC_END) ? "END" : "START", (flags & DMA_BUF_SYNC_READ) ? "|READ" : "",
                  (flags & DMA_BUF_SYNC_WRITE) ? "|WRITE" : "");
}
void describe_submit(const void* arg, bool ok, Call& call) {
  const auto& param = as<kgsl_gpu_command>(arg);
  call.object = param.context_id;
  call.arguments = fmt::format("context={} numcmds={} numobjs={}", param.context_id, param.numcmds, param.numobjs);
  if (ok) call.arguments += fmt::format(" timestamp={}", param.timestamp);
}

Submission submission(const void* arg, bool ok) {
  const auto& param = as<kgsl_gpu_command>(arg);
  Submission result{param.context_id, ok ? param.timestamp : 0u, 0, {}, {}};
  const auto* cmd = reinterpret_cast<const unsigned char*>(param.cmdlist);
  for (unsigned i = 0; cmd != nullptr && i < param.numcmds; ++i, cmd += param.cmdsize) {
    const auto& object = *reinterpret_cast<const kgsl_command_object*>(cmd);
    result.ibs.push_back(Ib{object.id, object.gpuaddr, static_cast<std::uint32_t>(object.size / 4)});
  }
  // The object list has no read/write distinction: KGSL_OBJLIST_MEMOBJ entries are listed as read.
  const auto* obj = reinterpret_cast<const unsigned char*>(param.objlist);
  for (unsigned i = 0; obj != nullptr && i < param.numobjs; ++i, obj += param.objsize) {
    result.table.push_back(TableEntry{reinterpret_cast<const kgsl_command_object*>(obj)->id, false});
  }
  return result;
}

constexpr IoctlEntry kIoctls[] = {
    {IOCTL_KGSL_DRAWCTXT_CREATE, "IOCTL_KGSL_DRAWCTXT_CREATE", Operation::create_context, nullptr, describe_context_create},
    {IOCTL_KGSL_DRAWCTXT_DESTROY, "IOCTL_KGSL_DRAWCTXT_DESTROY", Operation::destroy_context, nullptr, describe_context_destroy},
    {IOCTL_KGSL_GPUOBJ_ALLOC, "IOCTL_KGSL_GPUOBJ_ALLOC", Operation::alloc, nullptr, describe_alloc},
    {IOCTL_KGSL_GPUOBJ_FREE, "IOCTL_KGSL_GPUOBJ_FREE", Operation::free, nullptr, describe_free},
    {IOCTL_KGSL_GPUOBJ_INFO, "IOCTL_KGSL_GPUOBJ_INFO", Operation::object_info, nullptr, describe_info},
    {IOCTL_KGSL_GPUOBJ_IMPORT, "IOCTL_KGSL_GPUOBJ_IMPORT", Operation::import_dmabuf, is_dmabuf_import, describe_import},
    {IOCTL_KGSL_GPUOBJ_IMPORT, "IOCTL_KGSL_GPUOBJ_IMPORT", Operation::import_host_memory, is_user_memory_import,
     describe_import},
    {IOCTL_KGSL_GPU_COMMAND, "IOCTL_KGSL_GPU_COMMAND", Operation::submit, nullptr, describe_submit},
    {IOCTL_KGSL_DEVICE_WAITTIMESTAMP_CTXTID, "IOCTL_KGSL_DEVICE_WAITTIMESTAMP_CTXTID", Operation::wait, nullptr,
     describe_wait},
    {IOCTL_KGSL_DEVICE_GETPROPERTY, "IOCTL_KGSL_DEVICE_GETPROPERTY", Operation::reset_status, is_reset_status,
     describe_property},
    {IOCTL_KGSL_DEVICE_GETPROPERTY, "IOCTL_KGSL_DEVICE_GETPROPERTY", Operation::query, is_other_property,
     describe_property},
    {IOCTL_KGSL_GET_FAULT_REPORT, "IOCTL_KGSL_GET_FAULT_REPORT", Operation::query, nullptr, describe_fault_report},
    {DMA_BUF_IOCTL_SYNC, "DMA_BUF_IOCTL_SYNC", Operation::sync_dmabuf, nullptr, describe_dmabuf_sync},
};

}  // namespace

const DriverCalls& kgsl_calls() {
  static const DriverCalls calls{kIoctls, submission, false};
  return calls;
}

}  // namespace adreno::testing::detail
