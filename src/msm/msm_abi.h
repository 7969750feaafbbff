// The subset of the msm DRM UAPI this library uses, declared here under the UAPI's own names.
//
// Why not libdrm's msm_drm.h: Debian's libdrm 2.4.114 ships a stale copy (a 40-byte
// drm_msm_gem_submit without queueid or syncobjs, 16-byte drm_msm_param and drm_msm_gem_info),
// which would make every ioctl request number and layout wrong on a current kernel.
//
// Source of every value: Linux include/uapi/drm/msm_drm.h, torvalds/linux commit
// 02189ca8411253aa1328e9dd6137a40e390a5b37 (v6.13-era: MSM_PARAM_MACROTILE_MODE and
// MSM_INFO_{SET,GET}_METADATA present, VM_BIND not yet). The literals in the static_asserts
// at the end were printed by a throwaway C program compiled against a transcription of that
// header (x86-64 and aarch64 share this layout: every field is naturally aligned).
//
// The core DRM structs (drm_version, drm_gem_close, drm_prime_handle, drm_syncobj_create,
// drm_syncobj_destroy) and the DRM_IOWR machinery come from libdrm's drm.h, which matches the
// kernel for those.
#pragma once

#ifdef __MSM_DRM_H__
#error "libdrm's msm_drm.h is stale; include msm/msm_abi.h instead, never both"
#endif

#include <drm.h>

#include <cstddef>
#include <cstdint>

namespace adreno::msm::uapi {

// Pipes (msm_drm.h MSM_PIPE_*); only the 3D pipe exists on Adreno.
inline constexpr std::uint32_t MSM_PIPE_3D0 = 0x10;
inline constexpr std::uint32_t MSM_PIPE_ID_MASK = 0xffff;

// GET_PARAM parameters (msm_drm.h MSM_PARAM_*).
inline constexpr std::uint32_t MSM_PARAM_GPU_ID = 0x01;
inline constexpr std::uint32_t MSM_PARAM_GMEM_SIZE = 0x02;
inline constexpr std::uint32_t MSM_PARAM_CHIP_ID = 0x03;
inline constexpr std::uint32_t MSM_PARAM_PRIORITIES = 0x07;
inline constexpr std::uint32_t MSM_PARAM_FAULTS = 0x09;
inline constexpr std::uint32_t MSM_PARAM_VA_START = 0x0e;
inline constexpr std::uint32_t MSM_PARAM_VA_SIZE = 0x0f;

// GEM_NEW flags (msm_drm.h MSM_BO_*).
inline constexpr std::uint32_t MSM_BO_SCANOUT = 0x00000001;
inline constexpr std::uint32_t MSM_BO_GPU_READONLY = 0x00000002;
inline constexpr std::uint32_t MSM_BO_CACHE_MASK = 0x000f0000;
inline constexpr std::uint32_t MSM_BO_CACHED = 0x00010000;
inline constexpr std::uint32_t MSM_BO_WC = 0x00020000;
inline constexpr std::uint32_t MSM_BO_UNCACHED = 0x00040000;  // deprecated; GEM_NEW refuses it since v6.0
inline constexpr std::uint32_t MSM_BO_CACHED_COHERENT = 0x00080000;
inline constexpr std::uint32_t MSM_BO_FLAGS = MSM_BO_SCANOUT | MSM_BO_GPU_READONLY | MSM_BO_CACHE_MASK;

// GEM_INFO requests (msm_drm.h MSM_INFO_*).
inline constexpr std::uint32_t MSM_INFO_GET_OFFSET = 0x00;
inline constexpr std::uint32_t MSM_INFO_GET_IOVA = 0x01;
inline constexpr std::uint32_t MSM_INFO_GET_FLAGS = 0x05;

// GEM_SUBMIT (msm_drm.h MSM_SUBMIT_*).
inline constexpr std::uint32_t MSM_SUBMIT_CMD_BUF = 0x0001;
inline constexpr std::uint32_t MSM_SUBMIT_CMD_IB_TARGET_BUF = 0x0002;
inline constexpr std::uint32_t MSM_SUBMIT_CMD_CTX_RESTORE_BUF = 0x0003;
inline constexpr std::uint32_t MSM_SUBMIT_BO_READ = 0x0001;
inline constexpr std::uint32_t MSM_SUBMIT_BO_WRITE = 0x0002;
inline constexpr std::uint32_t MSM_SUBMIT_BO_DUMP = 0x0004;
inline constexpr std::uint32_t MSM_SUBMIT_BO_NO_IMPLICIT = 0x0008;
inline constexpr std::uint32_t MSM_SUBMIT_BO_FLAGS =
    MSM_SUBMIT_BO_READ | MSM_SUBMIT_BO_WRITE | MSM_SUBMIT_BO_DUMP | MSM_SUBMIT_BO_NO_IMPLICIT;
inline constexpr std::uint32_t MSM_SUBMIT_NO_IMPLICIT = 0x80000000;
inline constexpr std::uint32_t MSM_SUBMIT_FENCE_FD_IN = 0x40000000;
inline constexpr std::uint32_t MSM_SUBMIT_FENCE_FD_OUT = 0x20000000;
inline constexpr std::uint32_t MSM_SUBMIT_SUDO = 0x10000000;
inline constexpr std::uint32_t MSM_SUBMIT_SYNCOBJ_IN = 0x08000000;
inline constexpr std::uint32_t MSM_SUBMIT_SYNCOBJ_OUT = 0x04000000;
inline constexpr std::uint32_t MSM_SUBMIT_FENCE_SN_IN = 0x02000000;
inline constexpr std::uint32_t MSM_SUBMIT_FLAGS = MSM_SUBMIT_NO_IMPLICIT | MSM_SUBMIT_FENCE_FD_IN |
                                                  MSM_SUBMIT_FENCE_FD_OUT | MSM_SUBMIT_SUDO |
                                                  MSM_SUBMIT_SYNCOBJ_IN | MSM_SUBMIT_SYNCOBJ_OUT |
                                                  MSM_SUBMIT_FENCE_SN_IN;

// Syncobj entries of GEM_SUBMIT (MSM_SUBMIT_SYNCOBJ_IN/OUT). msm has no timeline syncobjs
// (msm_drv.c does not set DRIVER_SYNCOBJ_TIMELINE), so `point` must be 0.
inline constexpr std::uint32_t MSM_SUBMIT_SYNCOBJ_RESET = 0x00000001;
inline constexpr std::uint32_t MSM_SUBMIT_SYNCOBJ_FLAGS = MSM_SUBMIT_SYNCOBJ_RESET;

// WAIT_FENCE and submitqueues.
inline constexpr std::uint32_t MSM_WAIT_FENCE_BOOST = 0x00000001;
inline constexpr std::uint32_t MSM_WAIT_FENCE_FLAGS = MSM_WAIT_FENCE_BOOST;
inline constexpr std::uint32_t MSM_SUBMITQUEUE_FLAGS = 0;
inline constexpr std::uint32_t MSM_SUBMITQUEUE_PARAM_FAULTS = 0;

struct drm_msm_timespec {
  std::int64_t tv_sec;
  std::int64_t tv_nsec;
};

struct drm_msm_param {
  std::uint32_t pipe;
  std::uint32_t param;
  std::uint64_t value;
  std::uint32_t len;
  std::uint32_t pad;
};

struct drm_msm_gem_new {
  std::uint64_t size;
  std::uint32_t flags;
  std::uint32_t handle;
};

struct drm_msm_gem_info {
  std::uint32_t handle;
  std::uint32_t info;
  std::uint64_t value;
  std::uint32_t len;
  std::uint32_t pad;
};

struct drm_msm_gem_submit_cmd {
  std::uint32_t type;
  std::uint32_t submit_idx;
  std::uint32_t submit_offset;
  std::uint32_t size;
  std::uint32_t pad;
  std::uint32_t nr_relocs;
  std::uint64_t relocs;
};

struct drm_msm_gem_submit_bo {
  std::uint32_t flags;
  std::uint32_t handle;
  std::uint64_t presumed;
};

struct drm_msm_gem_submit_syncobj {
  std::uint32_t handle;
  std::uint32_t flags;
  std::uint64_t point;
};

struct drm_msm_gem_submit {
  std::uint32_t flags;
  std::uint32_t fence;
  std::uint32_t nr_bos;
  std::uint32_t nr_cmds;
  std::uint64_t bos;
  std::uint64_t cmds;
  std::int32_t fence_fd;
  std::uint32_t queueid;
  std::uint64_t in_syncobjs;
  std::uint64_t out_syncobjs;
  std::uint32_t nr_in_syncobjs;
  std::uint32_t nr_out_syncobjs;
  std::uint32_t syncobj_stride;
  std::uint32_t pad;
};

struct drm_msm_wait_fence {
  std::uint32_t fence;
  std::uint32_t flags;
  drm_msm_timespec timeout;
  std::uint32_t queueid;
};

struct drm_msm_submitqueue {
  std::uint32_t flags;
  std::uint32_t prio;
  std::uint32_t id;
};

struct drm_msm_submitqueue_query {
  std::uint64_t data;
  std::uint32_t id;
  std::uint32_t param;
  std::uint32_t len;
  std::uint32_t pad;
};

// Request numbers: DRM_IOWR/DRM_IOW(DRM_COMMAND_BASE + DRM_MSM_x, struct), as msm_drm.h defines.
inline constexpr unsigned long DRM_IOCTL_MSM_GET_PARAM = DRM_IOWR(DRM_COMMAND_BASE + 0x00, drm_msm_param);
inline constexpr unsigned long DRM_IOCTL_MSM_GEM_NEW = DRM_IOWR(DRM_COMMAND_BASE + 0x02, drm_msm_gem_new);
inline constexpr unsigned long DRM_IOCTL_MSM_GEM_INFO = DRM_IOWR(DRM_COMMAND_BASE + 0x03, drm_msm_gem_info);
inline constexpr unsigned long DRM_IOCTL_MSM_GEM_SUBMIT = DRM_IOWR(DRM_COMMAND_BASE + 0x06, drm_msm_gem_submit);
inline constexpr unsigned long DRM_IOCTL_MSM_WAIT_FENCE = DRM_IOW(DRM_COMMAND_BASE + 0x07, drm_msm_wait_fence);
inline constexpr unsigned long DRM_IOCTL_MSM_SUBMITQUEUE_NEW =
    DRM_IOWR(DRM_COMMAND_BASE + 0x0a, drm_msm_submitqueue);
inline constexpr unsigned long DRM_IOCTL_MSM_SUBMITQUEUE_CLOSE = DRM_IOW(DRM_COMMAND_BASE + 0x0b, std::uint32_t);
inline constexpr unsigned long DRM_IOCTL_MSM_SUBMITQUEUE_QUERY =
    DRM_IOW(DRM_COMMAND_BASE + 0x0c, drm_msm_submitqueue_query);

// ---- Compiled layout checks against the independently printed values (see top of file). ----
static_assert(sizeof(drm_msm_timespec) == 16);
static_assert(sizeof(drm_msm_param) == 24 && offsetof(drm_msm_param, value) == 8 &&
              offsetof(drm_msm_param, len) == 16 && offsetof(drm_msm_param, pad) == 20);
static_assert(sizeof(drm_msm_gem_new) == 16 && offsetof(drm_msm_gem_new, flags) == 8 &&
              offsetof(drm_msm_gem_new, handle) == 12);
static_assert(sizeof(drm_msm_gem_info) == 24 && offsetof(drm_msm_gem_info, info) == 4 &&
              offsetof(drm_msm_gem_info, value) == 8 && offsetof(drm_msm_gem_info, len) == 16 &&
              offsetof(drm_msm_gem_info, pad) == 20);
static_assert(sizeof(drm_msm_gem_submit_cmd) == 32 && offsetof(drm_msm_gem_submit_cmd, submit_idx) == 4 &&
              offsetof(drm_msm_gem_submit_cmd, submit_offset) == 8 && offsetof(drm_msm_gem_submit_cmd, size) == 12 &&
              offsetof(drm_msm_gem_submit_cmd, pad) == 16 && offsetof(drm_msm_gem_submit_cmd, nr_relocs) == 20 &&
              offsetof(drm_msm_gem_submit_cmd, relocs) == 24);
static_assert(sizeof(drm_msm_gem_submit_bo) == 16 && offsetof(drm_msm_gem_submit_bo, handle) == 4 &&
              offsetof(drm_msm_gem_submit_bo, presumed) == 8);
static_assert(sizeof(drm_msm_gem_submit_syncobj) == 16 && offsetof(drm_msm_gem_submit_syncobj, flags) == 4 &&
              offsetof(drm_msm_gem_submit_syncobj, point) == 8);
static_assert(sizeof(drm_msm_gem_submit) == 72 && offsetof(drm_msm_gem_submit, fence) == 4 &&
              offsetof(drm_msm_gem_submit, nr_bos) == 8 && offsetof(drm_msm_gem_submit, nr_cmds) == 12 &&
              offsetof(drm_msm_gem_submit, bos) == 16 && offsetof(drm_msm_gem_submit, cmds) == 24 &&
              offsetof(drm_msm_gem_submit, fence_fd) == 32 && offsetof(drm_msm_gem_submit, queueid) == 36 &&
              offsetof(drm_msm_gem_submit, in_syncobjs) == 40 && offsetof(drm_msm_gem_submit, out_syncobjs) == 48 &&
              offsetof(drm_msm_gem_submit, nr_in_syncobjs) == 56 &&
              offsetof(drm_msm_gem_submit, nr_out_syncobjs) == 60 &&
              offsetof(drm_msm_gem_submit, syncobj_stride) == 64 && offsetof(drm_msm_gem_submit, pad) == 68);
static_assert(sizeof(drm_msm_wait_fence) == 32 && offsetof(drm_msm_wait_fence, flags) == 4 &&
              offsetof(drm_msm_wait_fence, timeout) == 8 && offsetof(drm_msm_wait_fence, queueid) == 24);
static_assert(sizeof(drm_msm_submitqueue) == 12 && offsetof(drm_msm_submitqueue, prio) == 4 &&
              offsetof(drm_msm_submitqueue, id) == 8);
static_assert(sizeof(drm_msm_submitqueue_query) == 24 && offsetof(drm_msm_submitqueue_query, id) == 8 &&
              offsetof(drm_msm_submitqueue_query, param) == 12 && offsetof(drm_msm_submitqueue_query, len) == 16 &&
              offsetof(drm_msm_submitqueue_query, pad) == 20);
static_assert(DRM_IOCTL_MSM_GET_PARAM == 0xc0186440);
static_assert(DRM_IOCTL_MSM_GEM_NEW == 0xc0106442);
static_assert(DRM_IOCTL_MSM_GEM_INFO == 0xc0186443);
static_assert(DRM_IOCTL_MSM_GEM_SUBMIT == 0xc0486446);
static_assert(DRM_IOCTL_MSM_WAIT_FENCE == 0x40206447);
static_assert(DRM_IOCTL_MSM_SUBMITQUEUE_NEW == 0xc00c644a);
static_assert(DRM_IOCTL_MSM_SUBMITQUEUE_CLOSE == 0x4004644b);
static_assert(DRM_IOCTL_MSM_SUBMITQUEUE_QUERY == 0x4018644c);
// Core DRM requests from libdrm's drm.h (include/uapi/drm/drm.h has the same numbers).
static_assert(DRM_IOCTL_VERSION == 0xc0406400 && sizeof(drm_version) == 64);
static_assert(DRM_IOCTL_GEM_CLOSE == 0x40086409 && sizeof(drm_gem_close) == 8);
static_assert(DRM_IOCTL_SYNCOBJ_CREATE == 0xc00864bf && sizeof(drm_syncobj_create) == 8);
static_assert(DRM_IOCTL_SYNCOBJ_DESTROY == 0xc00864c0 && sizeof(drm_syncobj_destroy) == 8);
static_assert(DRM_IOCTL_PRIME_HANDLE_TO_FD == 0xc00c642d && DRM_IOCTL_PRIME_FD_TO_HANDLE == 0xc00c642e &&
              sizeof(drm_prime_handle) == 12);

}  // namespace adreno::msm::uapi
