// One open of the virtual KGSL node: what a kgsl_device_private plus its kgsl_process_private
// are to the driver. Each file is a process: it has its own pagetable (GpuMemory over the a6xx
// 64-bit VA range), its own mem-entry id space, and owns the draw contexts it created. Requests
// are decoded from the UAPI structs and validated the way qualcomm-linux/kgsl does (commit
// 27cf0e4f402d), returning the same errno for the same mistake; each check cites its source.
#pragma once

#include "virt/kernels/kgsl_device.h"
#include "virt/kernels/virtual_file.h"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

struct kgsl_device_getproperty;
struct kgsl_device_waittimestamp_ctxtid;
struct kgsl_drawctxt_create;
struct kgsl_drawctxt_destroy;
struct kgsl_gpuobj_alloc;
struct kgsl_gpuobj_free;
struct kgsl_gpuobj_info;
struct kgsl_gpuobj_import;
struct kgsl_gpu_command;
struct kgsl_cmdstream_readtimestamp_ctxtid;
struct kgsl_fault_report;

namespace adreno::virt {

class KgslFile final : public VirtualFile {
 public:
  explicit KgslFile(std::shared_ptr<KgslDevice> device);
  ~KgslFile() override;

  int ioctl(unsigned long request, void* arg) override;
  void* mmap(std::size_t length, int prot, int flags, off_t offset, int& error) override;
  void munmapped(void* addr, std::size_t length) override;
  void stat(struct stat& out) const override;
  std::vector<LiveObject> ledger() const override;

 private:
  /// A kgsl_mem_entry: pages, GPU mapping and flags. Its GPU mapping lasts as long as the entry,
  /// which CPU mappings keep alive after GPUOBJ_FREE (the VMA holds a reference in the driver).
  struct MemEntry {
    std::uint32_t id;
    std::uint64_t gpuaddr;
    std::uint64_t size;
    std::uint64_t flags;
    std::shared_ptr<Backing> backing;
    std::shared_ptr<GpuMemory> memory;
    ~MemEntry() { memory->unmap(gpuaddr); }
  };

  /// The kernel's PAGE_SIZE (VirtualGpuConfig::page_size) and a size rounded up to it.
  std::uint64_t page_size() const;
  std::uint64_t page_align(std::uint64_t size) const;

  int getproperty(kgsl_device_getproperty& param);
  int waittimestamp_ctxtid(kgsl_device_waittimestamp_ctxtid& param);
  int drawctxt_create(kgsl_drawctxt_create& param);
  int drawctxt_destroy(kgsl_drawctxt_destroy& param);
  int gpuobj_alloc(kgsl_gpuobj_alloc& param);
  int gpuobj_free(kgsl_gpuobj_free& param);
  int gpuobj_info(kgsl_gpuobj_info& param);
  int gpuobj_import(kgsl_gpuobj_import& param);
  int gpu_command(kgsl_gpu_command& param);
  int readtimestamp_ctxtid(kgsl_cmdstream_readtimestamp_ctxtid& param);
  int get_fault_report(kgsl_fault_report& param);

  /// Maps `backing` into this process' pagetable and files it under the lowest free id.
  int attach_entry(std::shared_ptr<Backing> backing, std::uint64_t size, std::uint64_t flags,
                   std::uint64_t align, std::uint32_t& id);
  std::shared_ptr<MemEntry> find_entry(std::uint32_t id) const;

  // kgsl_ioctl_helper: copy the struct in, run the handler, copy it out only on success.
  template <unsigned long Request, typename Param, int (KgslFile::*Handler)(Param&)>
  static int call(KgslFile& file, void* arg);
  struct IoctlEntry {
    unsigned long request;
    int (*call)(KgslFile&, void*);
  };
  static const IoctlEntry kIoctls[];

  std::shared_ptr<KgslDevice> device_;
  const std::uint64_t owner_;
  std::shared_ptr<GpuMemory> memory_;
  mutable std::mutex mutex_;
  std::map<std::uint32_t, std::shared_ptr<MemEntry>> entries_;
  std::map<void*, std::shared_ptr<MemEntry>> cpu_mappings_;
};

}  // namespace adreno::virt
