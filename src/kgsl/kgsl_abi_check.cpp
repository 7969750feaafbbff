// Compile-time proof that kgsl_abi.h matches the kernel's UAPI. The literals were printed by a
// throwaway C program compiled (gcc, x86_64 LP64 — the same layout as arm64) against
// include/uapi/linux/msm_kgsl.h of qualcomm-linux/kgsl at commit 27cf0e4f402d (June 2025); the
// request numbers also agree with tinygrad's tinygrad/runtime/autogen/kgsl.py.
#include "kgsl/kgsl_abi.h"

#include <cstddef>

namespace {

static_assert(sizeof(void*) == 8 && sizeof(long) == 8, "the KGSL ABI is declared for LP64 processes");

static_assert(sizeof(kgsl_devinfo) == 40);
static_assert(offsetof(kgsl_devinfo, device_id) == 0);
static_assert(offsetof(kgsl_devinfo, chip_id) == 4);
static_assert(offsetof(kgsl_devinfo, mmu_enabled) == 8);
static_assert(offsetof(kgsl_devinfo, gmem_gpubaseaddr) == 16);
static_assert(offsetof(kgsl_devinfo, gpu_id) == 24);
static_assert(offsetof(kgsl_devinfo, gmem_sizebytes) == 32);

static_assert(sizeof(kgsl_device_getproperty) == 24);
static_assert(offsetof(kgsl_device_getproperty, type) == 0);
static_assert(offsetof(kgsl_device_getproperty, value) == 8);
static_assert(offsetof(kgsl_device_getproperty, sizebytes) == 16);

static_assert(sizeof(kgsl_device_waittimestamp_ctxtid) == 12);
static_assert(offsetof(kgsl_device_waittimestamp_ctxtid, context_id) == 0);
static_assert(offsetof(kgsl_device_waittimestamp_ctxtid, timestamp) == 4);
static_assert(offsetof(kgsl_device_waittimestamp_ctxtid, timeout) == 8);

static_assert(sizeof(kgsl_drawctxt_create) == 8);
static_assert(offsetof(kgsl_drawctxt_create, flags) == 0);
static_assert(offsetof(kgsl_drawctxt_create, drawctxt_id) == 4);
static_assert(sizeof(kgsl_drawctxt_destroy) == 4);

static_assert(sizeof(kgsl_gpuobj_alloc) == 48);
static_assert(offsetof(kgsl_gpuobj_alloc, size) == 0);
static_assert(offsetof(kgsl_gpuobj_alloc, flags) == 8);
static_assert(offsetof(kgsl_gpuobj_alloc, va_len) == 16);
static_assert(offsetof(kgsl_gpuobj_alloc, mmapsize) == 24);
static_assert(offsetof(kgsl_gpuobj_alloc, id) == 32);
static_assert(offsetof(kgsl_gpuobj_alloc, metadata_len) == 36);
static_assert(offsetof(kgsl_gpuobj_alloc, metadata) == 40);

static_assert(sizeof(kgsl_gpuobj_free) == 32);
static_assert(offsetof(kgsl_gpuobj_free, flags) == 0);
static_assert(offsetof(kgsl_gpuobj_free, priv) == 8);
static_assert(offsetof(kgsl_gpuobj_free, id) == 16);
static_assert(offsetof(kgsl_gpuobj_free, type) == 20);
static_assert(offsetof(kgsl_gpuobj_free, len) == 24);

static_assert(sizeof(kgsl_gpuobj_info) == 48);
static_assert(offsetof(kgsl_gpuobj_info, gpuaddr) == 0);
static_assert(offsetof(kgsl_gpuobj_info, flags) == 8);
static_assert(offsetof(kgsl_gpuobj_info, size) == 16);
static_assert(offsetof(kgsl_gpuobj_info, va_len) == 24);
static_assert(offsetof(kgsl_gpuobj_info, va_addr) == 32);
static_assert(offsetof(kgsl_gpuobj_info, id) == 40);

static_assert(sizeof(kgsl_gpuobj_import) == 32);
static_assert(offsetof(kgsl_gpuobj_import, priv) == 0);
static_assert(offsetof(kgsl_gpuobj_import, priv_len) == 8);
static_assert(offsetof(kgsl_gpuobj_import, flags) == 16);
static_assert(offsetof(kgsl_gpuobj_import, type) == 24);
static_assert(offsetof(kgsl_gpuobj_import, id) == 28);
static_assert(sizeof(kgsl_gpuobj_import_dma_buf) == 4);
static_assert(sizeof(kgsl_gpuobj_import_useraddr) == 8);

static_assert(sizeof(kgsl_command_object) == 32);
static_assert(offsetof(kgsl_command_object, offset) == 0);
static_assert(offsetof(kgsl_command_object, gpuaddr) == 8);
static_assert(offsetof(kgsl_command_object, size) == 16);
static_assert(offsetof(kgsl_command_object, flags) == 24);
static_assert(offsetof(kgsl_command_object, id) == 28);

static_assert(sizeof(kgsl_gpu_command) == 64);
static_assert(offsetof(kgsl_gpu_command, flags) == 0);
static_assert(offsetof(kgsl_gpu_command, cmdlist) == 8);
static_assert(offsetof(kgsl_gpu_command, cmdsize) == 16);
static_assert(offsetof(kgsl_gpu_command, numcmds) == 20);
static_assert(offsetof(kgsl_gpu_command, objlist) == 24);
static_assert(offsetof(kgsl_gpu_command, objsize) == 32);
static_assert(offsetof(kgsl_gpu_command, numobjs) == 36);
static_assert(offsetof(kgsl_gpu_command, synclist) == 40);
static_assert(offsetof(kgsl_gpu_command, syncsize) == 48);
static_assert(offsetof(kgsl_gpu_command, numsyncs) == 52);
static_assert(offsetof(kgsl_gpu_command, context_id) == 56);
static_assert(offsetof(kgsl_gpu_command, timestamp) == 60);

// Worked by hand from the C layout rules of msm_kgsl.h (same commit), not printed by a program.
static_assert(sizeof(kgsl_cmd_syncpoint_timestamp) == 8);
static_assert(offsetof(kgsl_cmd_syncpoint_timestamp, context_id) == 0);
static_assert(offsetof(kgsl_cmd_syncpoint_timestamp, timestamp) == 4);
static_assert(sizeof(kgsl_command_syncpoint) == 24);
static_assert(offsetof(kgsl_command_syncpoint, priv) == 0);
static_assert(offsetof(kgsl_command_syncpoint, size) == 8);
static_assert(offsetof(kgsl_command_syncpoint, type) == 16);
static_assert(sizeof(kgsl_cmdstream_readtimestamp_ctxtid) == 12);
static_assert(offsetof(kgsl_cmdstream_readtimestamp_ctxtid, context_id) == 0);
static_assert(offsetof(kgsl_cmdstream_readtimestamp_ctxtid, type) == 4);
static_assert(offsetof(kgsl_cmdstream_readtimestamp_ctxtid, timestamp) == 8);
static_assert(IOCTL_KGSL_CMDSTREAM_READTIMESTAMP_CTXTID == 0xc00c0916);

// Printed by a throwaway C program compiled (gcc -D__user=, x86_64 LP64) against the same
// msm_kgsl.h (27cf0e4f402d).
static_assert(sizeof(kgsl_pagefault_report) == 32);
static_assert(offsetof(kgsl_pagefault_report, fault_addr) == 0);
static_assert(offsetof(kgsl_pagefault_report, reserved) == 8);
static_assert(offsetof(kgsl_pagefault_report, fault_type) == 24);
static_assert(sizeof(kgsl_fault) == 24);
static_assert(offsetof(kgsl_fault, fault) == 0);
static_assert(offsetof(kgsl_fault, type) == 8);
static_assert(offsetof(kgsl_fault, count) == 12);
static_assert(offsetof(kgsl_fault, size) == 16);
static_assert(sizeof(kgsl_fault_report) == 24);
static_assert(offsetof(kgsl_fault_report, faultlist) == 0);
static_assert(offsetof(kgsl_fault_report, faultnents) == 8);
static_assert(offsetof(kgsl_fault_report, faultsize) == 12);
static_assert(offsetof(kgsl_fault_report, context_id) == 16);
static_assert(IOCTL_KGSL_GET_FAULT_REPORT == 0xc018095e);
static_assert(KGSL_CONTEXT_FAULT_INFO == 0x40000000);
static_assert(KGSL_PAGEFAULT_TYPE_TRANSACTION_STALLED == 0x20);

static_assert(IOCTL_KGSL_DEVICE_GETPROPERTY == 0xc0180902);
static_assert(IOCTL_KGSL_DEVICE_WAITTIMESTAMP_CTXTID == 0x400c0907);
static_assert(IOCTL_KGSL_DRAWCTXT_CREATE == 0xc0080913);
static_assert(IOCTL_KGSL_DRAWCTXT_DESTROY == 0x40040914);
static_assert(IOCTL_KGSL_GPUOBJ_ALLOC == 0xc0300945);
static_assert(IOCTL_KGSL_GPUOBJ_FREE == 0x40200946);
static_assert(IOCTL_KGSL_GPUOBJ_INFO == 0xc0300947);
static_assert(IOCTL_KGSL_GPUOBJ_IMPORT == 0xc0200948);
static_assert(IOCTL_KGSL_GPU_COMMAND == 0xc040094a);

static_assert(KGSL_MEMFLAGS_GPUREADONLY == 0x1000000);
static_assert(KGSL_MEMFLAGS_IOCOHERENT == 0x80000000);
static_assert(KGSL_MEMFLAGS_USE_CPU_MAP == 0x10000000);
static_assert(KGSL_MEMFLAGS_SECURE == 0x8);
static_assert(KGSL_CACHEMODE_MASK == 0xc000000);
static_assert(KGSL_MEMFLAGS_USERMEM_ION == 0x80 && KGSL_MEMFLAGS_USERMEM_ADDR == 0x60);

}  // namespace
