// The subset of the KGSL UAPI this library speaks, declared with the UAPI's own names so that it
// reads like (and can be diffed against) the kernel header. Source: include/uapi/linux/msm_kgsl.h
// of qualcomm-linux/kgsl (commit 27cf0e4f402d, June 2025); the same layouts appear in the
// msm-4.9 era header that tinygrad ships (extra/qcom_gpu_driver/msm_kgsl.h). Layout and request
// numbers are proven by kgsl_abi_check.cpp. The structs are the LP64 (arm64) layouts; do not mix
// this header with the kernel's msm_kgsl.h in one translation unit.
#pragma once

#include <linux/ioctl.h>
#include <linux/types.h>

// --- draw context flags (KGSL_CONTEXT_*) ---
#define KGSL_CONTEXT_NO_GMEM_ALLOC 0x00000002
#define KGSL_CONTEXT_CTX_SWITCH 0x00000008
#define KGSL_CONTEXT_PREAMBLE 0x00000010
#define KGSL_CONTEXT_PER_CONTEXT_TS 0x00000040
#define KGSL_CONTEXT_USER_GENERATED_TS 0x00000080
#define KGSL_CONTEXT_NO_FAULT_TOLERANCE 0x00000200
#define KGSL_CONTEXT_PWR_CONSTRAINT 0x00000800
#define KGSL_CONTEXT_PRIORITY_MASK 0x0000F000
#define KGSL_CONTEXT_PRIORITY_SHIFT 12
#define KGSL_CONTEXT_PRIORITY_UNDEF 0
#define KGSL_CONTEXT_IFH_NOP 0x00010000
#define KGSL_CONTEXT_SECURE 0x00020000
#define KGSL_CONTEXT_NO_SNAPSHOT 0x00040000
#define KGSL_CONTEXT_PREEMPT_STYLE_MASK 0x0E000000
#define KGSL_CONTEXT_TYPE_MASK 0x01F00000
#define KGSL_CONTEXT_TYPE_SHIFT 20
#define KGSL_CONTEXT_TYPE_CL 2
#define KGSL_CONTEXT_INVALIDATE_ON_FAULT 0x10000000
#define KGSL_CONTEXT_LPAC 0x20000000
#define KGSL_CONTEXT_FAULT_INFO 0x40000000

// --- command batch flags (KGSL_CMDBATCH_*) ---
#define KGSL_CMDBATCH_MARKER 0x00000002
#define KGSL_CMDBATCH_SYNC 0x00000400

// --- GPU command list object flags ---
#define KGSL_CMDLIST_IB 0x00000001U
#define KGSL_CMDLIST_CTXTSWITCH_PREAMBLE 0x00000002U
#define KGSL_CMDLIST_IB_PREAMBLE 0x00000004U
#define KGSL_OBJLIST_MEMOBJ 0x00000008U

// --- memory flags (KGSL_MEMFLAGS_*, KGSL_CACHEMODE_*, KGSL_MEMTYPE_MASK, KGSL_MEMALIGN_*) ---
#define KGSL_MEMFLAGS_SECURE (1ULL << 3)
#define KGSL_MEMFLAGS_GPUREADONLY (1ULL << 24)
#define KGSL_MEMFLAGS_FORCE_32BIT (1ULL << 32)
#define KGSL_CACHEMODE_MASK 0x0C000000U
#define KGSL_CACHEMODE_SHIFT 26
#define KGSL_CACHEMODE_WRITECOMBINE 0
#define KGSL_CACHEMODE_UNCACHED 1
#define KGSL_CACHEMODE_WRITETHROUGH 2
#define KGSL_CACHEMODE_WRITEBACK 3
#define KGSL_MEMFLAGS_USE_CPU_MAP (1ULL << 28)
#define KGSL_MEMFLAGS_IOCOHERENT (1ULL << 31)
#define KGSL_MEMFLAGS_GUARD_PAGE (1ULL << 33)
#define KGSL_MEMFLAGS_VBO (1ULL << 34)
#define KGSL_MEMTYPE_MASK 0x0000FF00
#define KGSL_MEMALIGN_MASK 0x00FF0000
#define KGSL_MEMALIGN_SHIFT 16

enum kgsl_user_mem_type {
  KGSL_USER_MEM_TYPE_PMEM = 0x00000000,
  KGSL_USER_MEM_TYPE_ASHMEM = 0x00000001,
  KGSL_USER_MEM_TYPE_ADDR = 0x00000002,
  KGSL_USER_MEM_TYPE_ION = 0x00000003,
  KGSL_USER_MEM_TYPE_DMABUF = 0x00000003,
  KGSL_USER_MEM_TYPE_MAX = 0x00000007,
};
#define KGSL_MEMFLAGS_USERMEM_MASK 0x000000e0
#define KGSL_MEMFLAGS_USERMEM_SHIFT 5
#define KGSL_USERMEM_FLAG(x) (((x) + 1) << KGSL_MEMFLAGS_USERMEM_SHIFT)
#define KGSL_MEMFLAGS_USERMEM_ADDR KGSL_USERMEM_FLAG(KGSL_USER_MEM_TYPE_ADDR)
#define KGSL_MEMFLAGS_USERMEM_ION KGSL_USERMEM_FLAG(KGSL_USER_MEM_TYPE_ION)

// --- context reset status (KGSL_PROP_GPU_RESET_STAT) ---
enum kgsl_ctx_reset_stat {
  KGSL_CTX_STAT_NO_ERROR = 0x00000000,
  KGSL_CTX_STAT_GUILTY_CONTEXT_RESET_EXT = 0x00000001,
  KGSL_CTX_STAT_INNOCENT_CONTEXT_RESET_EXT = 0x00000002,
  KGSL_CTX_STAT_UNKNOWN_CONTEXT_RESET_EXT = 0x00000003,
};

struct kgsl_devinfo {
  unsigned int device_id;
  unsigned int chip_id;  // core:8 major:8 minor:8 patch:8
  unsigned int mmu_enabled;
  unsigned long gmem_gpubaseaddr;
  unsigned int gpu_id;
  __kernel_size_t gmem_sizebytes;
};

// --- properties (KGSL_PROP_*) ---
#define KGSL_PROP_DEVICE_INFO 0x1
#define KGSL_PROP_GPU_RESET_STAT 0x9
#define KGSL_PROP_GPU_VA64_SIZE 0x2C

// --- ioctls ---
#define KGSL_IOC_TYPE 0x09

struct kgsl_device_getproperty {
  unsigned int type;
  void* value;
  __kernel_size_t sizebytes;
};
#define IOCTL_KGSL_DEVICE_GETPROPERTY _IOWR(KGSL_IOC_TYPE, 0x2, struct kgsl_device_getproperty)

struct kgsl_device_waittimestamp_ctxtid {
  unsigned int context_id;
  unsigned int timestamp;
  unsigned int timeout;  // milliseconds; 0 waits forever
};
#define IOCTL_KGSL_DEVICE_WAITTIMESTAMP_CTXTID _IOW(KGSL_IOC_TYPE, 0x7, struct kgsl_device_waittimestamp_ctxtid)

struct kgsl_drawctxt_create {
  unsigned int flags;
  unsigned int drawctxt_id;  // out
};
#define IOCTL_KGSL_DRAWCTXT_CREATE _IOWR(KGSL_IOC_TYPE, 0x13, struct kgsl_drawctxt_create)

struct kgsl_drawctxt_destroy {
  unsigned int drawctxt_id;
};
#define IOCTL_KGSL_DRAWCTXT_DESTROY _IOW(KGSL_IOC_TYPE, 0x14, struct kgsl_drawctxt_destroy)

struct kgsl_gpuobj_alloc {
  __u64 size;
  __u64 flags;
  __u64 va_len;
  __u64 mmapsize;  // out
  unsigned int id;  // out
  unsigned int metadata_len;
  __u64 metadata;
};
#define IOCTL_KGSL_GPUOBJ_ALLOC _IOWR(KGSL_IOC_TYPE, 0x45, struct kgsl_gpuobj_alloc)

struct kgsl_gpuobj_free {
  __u64 flags;
  __u64 priv;
  unsigned int id;
  unsigned int type;
  unsigned int len;
};
#define KGSL_GPUOBJ_FREE_ON_EVENT 1
#define IOCTL_KGSL_GPUOBJ_FREE _IOW(KGSL_IOC_TYPE, 0x46, struct kgsl_gpuobj_free)

struct kgsl_gpuobj_info {
  __u64 gpuaddr;
  __u64 flags;
  __u64 size;
  __u64 va_len;
  __u64 va_addr;
  unsigned int id;
};
#define IOCTL_KGSL_GPUOBJ_INFO _IOWR(KGSL_IOC_TYPE, 0x47, struct kgsl_gpuobj_info)

struct kgsl_gpuobj_import {
  __u64 priv;
  __u64 priv_len;
  __u64 flags;
  unsigned int type;
  unsigned int id;  // out
};
struct kgsl_gpuobj_import_dma_buf {
  int fd;
};
struct kgsl_gpuobj_import_useraddr {
  __u64 virtaddr;
};
#define IOCTL_KGSL_GPUOBJ_IMPORT _IOWR(KGSL_IOC_TYPE, 0x48, struct kgsl_gpuobj_import)

struct kgsl_command_object {
  __u64 offset;
  __u64 gpuaddr;
  __u64 size;  // bytes
  unsigned int flags;
  unsigned int id;
};

struct kgsl_gpu_command {
  __u64 flags;
  __u64 cmdlist;
  unsigned int cmdsize;
  unsigned int numcmds;
  __u64 objlist;
  unsigned int objsize;
  unsigned int numobjs;
  __u64 synclist;
  unsigned int syncsize;
  unsigned int numsyncs;
  unsigned int context_id;
  unsigned int timestamp;  // out
};
#define IOCTL_KGSL_GPU_COMMAND _IOWR(KGSL_IOC_TYPE, 0x4A, struct kgsl_gpu_command)

// --- sync points of a GPU_COMMAND (synclist) ---
#define KGSL_CMD_SYNCPOINT_TYPE_TIMESTAMP 0
#define KGSL_CMD_SYNCPOINT_TYPE_FENCE 1
#define KGSL_CMD_SYNCPOINT_TYPE_TIMELINE 2

struct kgsl_cmd_syncpoint_timestamp {
  unsigned int context_id;
  unsigned int timestamp;
};

struct kgsl_command_syncpoint {
  __u64 priv;  // user pointer to the type's struct
  __u64 size;
  unsigned int type;
};

// --- reading a context's timestamps ---
enum kgsl_timestamp_type {
  KGSL_TIMESTAMP_CONSUMED = 0x00000001,
  KGSL_TIMESTAMP_RETIRED = 0x00000002,
  KGSL_TIMESTAMP_QUEUED = 0x00000003,
};

struct kgsl_cmdstream_readtimestamp_ctxtid {
  unsigned int context_id;
  unsigned int type;
  unsigned int timestamp;  // out
};
#define IOCTL_KGSL_CMDSTREAM_READTIMESTAMP_CTXTID \
  _IOWR(KGSL_IOC_TYPE, 0x16, struct kgsl_cmdstream_readtimestamp_ctxtid)

// --- fault reports of a KGSL_CONTEXT_FAULT_INFO context (IOCTL_KGSL_GET_FAULT_REPORT) ---
#define KGSL_FAULT_TYPE_NO_FAULT 0
#define KGSL_FAULT_TYPE_PAGEFAULT 1
#define KGSL_FAULT_TYPE_MAX 2

#define KGSL_PAGEFAULT_TYPE_NONE 0
#define KGSL_PAGEFAULT_TYPE_READ (1 << 0)
#define KGSL_PAGEFAULT_TYPE_WRITE (1 << 1)
#define KGSL_PAGEFAULT_TYPE_TRANSLATION (1 << 2)
#define KGSL_PAGEFAULT_TYPE_PERMISSION (1 << 3)
#define KGSL_PAGEFAULT_TYPE_EXTERNAL (1 << 4)
#define KGSL_PAGEFAULT_TYPE_TRANSACTION_STALLED (1 << 5)

struct kgsl_pagefault_report {
  __u64 fault_addr;
  __u64 reserved[2];
  __u32 fault_type;  // KGSL_PAGEFAULT_TYPE_*
  __u32 __pad;
};

struct kgsl_fault {
  __u64 fault;  // user pointer to `count` entries of the type's report, `size` bytes each
  __u32 type;   // KGSL_FAULT_TYPE_*
  __u32 count;
  __u32 size;
  __u32 padding;
};

struct kgsl_fault_report {
  __u64 faultlist;  // user pointer to `faultnents` struct kgsl_fault of `faultsize` bytes
  __u32 faultnents;
  __u32 faultsize;
  __u32 context_id;
  __u32 padding;
};
#define IOCTL_KGSL_GET_FAULT_REPORT _IOWR(KGSL_IOC_TYPE, 0x5E, struct kgsl_fault_report)
