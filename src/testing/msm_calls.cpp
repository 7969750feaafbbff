// The msm (and DRM core) ioctls as the test kit logs them (UAPI: msm/msm_abi.h).
#include "msm/msm_abi.h"
#include "testing/kernel_calls.h"

#include <fmt/format.h>

namespace adreno::testing::detail {
namespace {

namespace uapi = msm::uapi;

template <typename T>
const T& as(const void* arg) {
  return *static_cast<const T*>(arg);
}

void describe_queue_new(const void* arg, bool ok, Call& call) {
  const auto& args = as<uapi::drm_msm_submitqueue>(arg);
  call.arguments = fmt::format("flags=0x{:x} prio={}", args.flags, args.prio);
  if (ok) call.object = args.id;
}
void describe_queue_close(const void* arg, bool, Call& call) {
  call.object = as<std::uint32_t>(arg);
  call.arguments = fmt::format("id={}", call.object);
}
void describe_gem_new(const void* arg, bool ok, Call& call) {
  const auto& args = as<uapi::drm_msm_gem_new>(arg);
  call.size = args.size;
  call.arguments = fmt::format("size={} flags=0x{:x}", args.size, args.flags);
  if (ok) call.object = args.handle;
}
void describe_gem_close(const void* arg, bool, Call& call) {
  call.object = as<drm_gem_close>(arg).handle;
  call.arguments = fmt::format("handle={}", call.object);
}
void describe_gem_info(const void* arg, bool, Call& call) {
  const auto& args = as<uapi::drm_msm_gem_info>(arg);
  call.object = args.handle;
  call.arguments = fmt::format("handle={} info={}", args.handle, args.info);
}
void describe_prime(const void* arg, bool ok, Call& call) {
  const auto& args = as<drm_prime_handle>(arg);
  call.arguments = fmt::format("fd={} flags=0x{:x}", args.fd, args.flags);
  if (ok) call.object = args.handle;
}
void describe_param(const void* arg, bool, Call& call) {
  call.arguments = fmt::format("param={}", as<uapi::drm_msm_param>(arg).param);
}
void describe_version(const void*, bool, Call&) {}
void describe_syncobj_create(const void* arg, bool ok, Call& call) {
  const auto& args = as<drm_syncobj_create>(arg);
  call.arguments = fmt::format("flags=0x{:x}", args.flags);
  if (ok) call.object = args.handle;
}
void describe_syncobj_destroy(const void* arg, bool, Call& call) {
  call.object = as<drm_syncobj_destroy>(arg).handle;
  call.arguments = fmt::format("handle={}", call.object);
}
void describe_queue_query(const void* arg, bool, Call& call) {
  const auto& args = as<uapi::drm_msm_submitqueue_query>(arg);
  call.object = args.id;
  call.arguments = fmt::format("id={} param={}", args.id, args.param);
}
void describe_wait(const void* arg, bool, Call& call) {
  const auto& args = as<uapi::drm_msm_wait_fence>(arg);
  call.object = args.queueid;
  call.arguments = fmt::format("queue={} fence={}", args.queueid, args.fence);
}
void describe_submit(const void* arg, bool ok, Call& call) {
  const auto& args = as<uapi::drm_msm_gem_submit>(arg);
  call.object = args.queueid;
  call.arguments = fmt::format("queue={} nr_cmds={} nr_bos={} nr_in_syncobjs={}", args.queueid, args.nr_cmds, args.nr_bos,
                               args.nr_in_syncobjs);
  if (ok) call.arguments += fmt::format(" fence={}", args.fence);
}

Submission submission(const void* arg, bool ok) {
  const auto& args = as<uapi::drm_msm_gem_submit>(arg);
  Submission result{args.queueid, ok ? args.fence : 0u, 0, {}, {}};
  const auto* bos = reinterpret_cast<const uapi::drm_msm_gem_submit_bo*>(static_cast<std::uintptr_t>(args.bos));
  const auto* cmds = reinterpret_cast<const uapi::drm_msm_gem_submit_cmd*>(static_cast<std::uintptr_t>(args.cmds));
  for (std::uint32_t i = 0; bos != nullptr && i < args.nr_bos; ++i) {
    result.table.push_back(TableEntry{bos[i].handle, (bos[i].flags & uapi::MSM_SUBMIT_BO_WRITE) != 0});
  }
  // An IB names its object by table index and an offset in it; the object's GPU address is not
  // in the submit (DriverCalls::ib_addresses_are_offsets).
  for (std::uint32_t i = 0; cmds != nullptr && i < args.nr_cmds; ++i) {
    const std::uint64_t handle = cmds[i].submit_idx < args.nr_bos ? bos[cmds[i].submit_idx].handle : 0;
    result.ibs.push_back(Ib{handle, cmds[i].submit_offset, cmds[i].size / 4});
  }
  return result;
}

constexpr IoctlEntry kIoctls[] = {
    {uapi::DRM_IOCTL_MSM_SUBMITQUEUE_NEW, "DRM_IOCTL_MSM_SUBMITQUEUE_NEW", Operation::create_context, nullptr,
     describe_queue_new},
    {uapi::DRM_IOCTL_MSM_SUBMITQUEUE_CLOSE, "DRM_IOCTL_MSM_SUBMITQUEUE_CLOSE", Operation::destroy_context, nullptr,
     describe_queue_close},
    {uapi::DRM_IOCTL_MSM_GEM_NEW, "DRM_IOCTL_MSM_GEM_NEW", Operation::alloc, nullptr, describe_gem_new},
    {DRM_IOCTL_GEM_CLOSE, "DRM_IOCTL_GEM_CLOSE", Operation::free, nullptr, describe_gem_close},
    {uapi::DRM_IOCTL_MSM_GEM_INFO, "DRM_IOCTL_MSM_GEM_INFO", Operation::object_info, nullptr, describe_gem_info},
    {DRM_IOCTL_PRIME_FD_TO_HANDLE, "DRM_IOCTL_PRIME_FD_TO_HANDLE", Operation::import_dmabuf, nullptr, describe_prime},
    {DRM_IOCTL_PRIME_HANDLE_TO_FD, "DRM_IOCTL_PRIME_HANDLE_TO_FD", Operation::export_dmabuf, nullptr, describe_prime},
    {uapi::DRM_IOCTL_MSM_GEM_SUBMIT, "DRM_IOCTL_MSM_GEM_SUBMIT", Operation::submit, nullptr, describe_submit},
    {uapi::DRM_IOCTL_MSM_WAIT_FENCE, "DRM_IOCTL_MSM_WAIT_FENCE", Operation::wait, nullptr, describe_wait},
    {uapi::DRM_IOCTL_MSM_SUBMITQUEUE_QUERY, "DRM_IOCTL_MSM_SUBMITQUEUE_QUERY", Operation::reset_status, nullptr,
     describe_queue_query},
    {uapi::DRM_IOCTL_MSM_GET_PARAM, "DRM_IOCTL_MSM_GET_PARAM", Operation::query, nullptr, describe_param},
    {DRM_IOCTL_VERSION, "DRM_IOCTL_VERSION", Operation::query, nullptr, describe_version},
    {DRM_IOCTL_SYNCOBJ_CREATE, "DRM_IOCTL_SYNCOBJ_CREATE", Operation::sync_object, nullptr, describe_syncobj_create},
    {DRM_IOCTL_SYNCOBJ_DESTROY, "DRM_IOCTL_SYNCOBJ_DESTROY", Operation::sync_object, nullptr, describe_syncobj_destroy},
};

}  // namespace

const DriverCalls& msm_calls() {
  static const DriverCalls calls{kIoctls, submission, true};
  return calls;
}

}  // namespace adreno::testing::detail
