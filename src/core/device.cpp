#include <adreno/device.hpp>
#include <adreno/error.hpp>

#include "core/buffer_impl.h"
#include "core/device_impl.h"
#include "core/device_spec.h"
#include "core/gpu_part.h"
#include "core/same_device.h"
#include "core/trace.h"
#include "kernel/log.h"
#include "kgsl/kgsl_kernel.h"
#include "msm/msm_kernel.h"
#include "sys/syscalls.h"
#include "virt/gpu/gpu_model.h"
#include "virt/kernels/virtual_system.h"

#include <unistd.h>

#include <cstdlib>

namespace adreno {
namespace {

constexpr const char* kKgslNode = "/dev/kgsl-3d0";

DeviceInfo describe(const KernelInfo& kernel) {
  DeviceInfo info;
  info.backend = kernel.kind == KernelKind::kgsl ? "kgsl" : "msm";
  info.is_virtual = kernel.is_virtual;
  info.node = kernel.node;
  info.chip_id = kernel.chip_id;
  info.gpu_id = kernel.gpu_id;
  // a7xx chip ids from a740 on are not core.major.minor bytes (a740 is 0x43050a01), so the model
  // number KGSL's backend reads off them is not the part's; a part known by its chip id names it.
  if (const GpuPart* part = find_part(info)) info.gpu_id = part->gpu_id;
  info.name = "Adreno " + std::to_string(info.gpu_id);
  info.gmem_size = kernel.gmem_size;
  if (kernel.va) {
    info.va_start = kernel.va->start;
    info.va_size = kernel.va->size;
  }
  info.priority_levels = kernel.priority_levels;
  return info;
}

}  // namespace

virt::VirtualGpuConfig Device::Impl::virtual_gpu_config(const std::string& model_name) {
  virt::VirtualGpuConfig config;
  if (model_name.empty()) return config;
  if (auto model = virt::find_gpu_model(model_name)) {
    config.model = *model;
    return config;
  }
  std::string known;
  for (const auto& model : virt::gpu_models()) known += (known.empty() ? "" : ", ") + std::string(model.name);
  throw Error(Errc::invalid_argument, "open virtual device", "unknown GPU model '" + model_name + "' (known: " + known + ")");
}

namespace {

// Tries each MSM render node in turn; records why each one failed.
std::unique_ptr<Kernel> open_first_msm(std::vector<std::string>& tried) {
  const auto candidates = msm_render_node_candidates();
  if (candidates.empty()) tried.emplace_back("msm: no DRM render nodes");
  for (const auto& node : candidates) {
    try {
      return open_msm_kernel(sys::real_syscalls(), node, false);
    } catch (const Error& error) {
      tried.push_back("msm " + node + ": " + error.what());
    }
  }
  return nullptr;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) text += "\n  " + line;
  return text;
}

}  // namespace

Device::Impl::Impl(std::shared_ptr<virt::VirtualSyscalls> virtual_system, sys::Syscalls& sys,
                   std::unique_ptr<Kernel> kernel)
    : virtual_system_(std::move(virtual_system)),
      sys_(sys),
      kernel_(std::move(kernel)),
      info_(describe(kernel_->info())),
      contexts_(std::make_unique<ContextTracker>(*kernel_)),
      allocator_(std::make_unique<Allocator>(*kernel_, sys_, *contexts_)),
      tracer_(Tracer::from_environment()) {}

Device::Impl::~Impl() {
  tracer_.reset();  // writes the file: every queue, and so every submission, is done
  allocator_.reset();
  kernel_.reset();
  if (virtual_system_) {
    for (const auto& leak : virtual_system_->leaks()) log().warn("virtual device closed with a live object: {}", leak);
  }
}

void Device::Impl::add_graph(GraphBindings& graph) {
  std::lock_guard lock(graphs_mutex_);
  graphs_.push_back(&graph);
}

void Device::Impl::remove_graph(GraphBindings& graph) noexcept {
  std::lock_guard lock(graphs_mutex_);
  std::erase(graphs_, &graph);
}

void Device::Impl::note_graph_buffer_released(MemoryBlock& block) noexcept {
  // Under the lock: a graph being destroyed waits until this release reached it (remove_graph).
  std::lock_guard lock(graphs_mutex_);
  graph_buffers_released_.fetch_add(1, std::memory_order_acq_rel);
  for (GraphBindings* graph : graphs_) graph->hold_if_bound(block);
}

Device Device::Impl::open_virtual(std::unique_ptr<virt::VirtualSyscalls> system, KernelKind kind) {
  std::unique_ptr<Kernel> kernel = kind == KernelKind::kgsl ? open_kgsl_kernel(*system, virt::kVirtualKgslNode, true)
                                                            : open_msm_kernel(*system, virt::kVirtualMsmNode, true);
  log().info("opened virtual {} device at {}", kind == KernelKind::kgsl ? "KGSL" : "MSM", kernel->info().node);
  sys::Syscalls& seam = *system;
  return Device(std::make_shared<Impl>(std::move(system), seam, std::move(kernel)));
}

Device::Device(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
Device::Device(Device&&) noexcept = default;
Device& Device::operator=(Device&&) noexcept = default;
Device::~Device() = default;

const DeviceInfo& Device::info() const noexcept { return impl_->info(); }

Device Device::open() {
  if (const char* spec = std::getenv("ADRENO_DEVICE"); spec != nullptr && *spec != '\0') return open(spec);
  std::vector<std::string> tried;
  try {
    return Device(std::make_shared<Impl>(nullptr, sys::real_syscalls(), open_kgsl_kernel(sys::real_syscalls(), kKgslNode, false)));
  } catch (const Error& error) {
    tried.push_back(std::string("kgsl ") + kKgslNode + ": " + error.what());
  }
  if (auto kernel = open_first_msm(tried)) return Device(std::make_shared<Impl>(nullptr, sys::real_syscalls(), std::move(kernel)));
  throw Error(Errc::not_found, "open Adreno device", "no KGSL or MSM device found; tried:" + joined(tried));
}

Device Device::open(std::string_view text) {
  const DeviceSpec spec = parse_device_spec(text);
  std::unique_ptr<Kernel> kernel;
  switch (spec.kind) {
    case DeviceSpec::Kind::kgsl:
      kernel = open_kgsl_kernel(sys::real_syscalls(), spec.argument.empty() ? kKgslNode : spec.argument, false);
      break;
    case DeviceSpec::Kind::msm:
      if (spec.argument.empty()) {
        std::vector<std::string> tried;
        kernel = open_first_msm(tried);
        if (!kernel) throw Error(Errc::not_found, "open MSM device", "no msm render node; tried:" + joined(tried));
      } else {
        kernel = open_msm_kernel(sys::real_syscalls(), spec.argument, false);
      }
      break;
    case DeviceSpec::Kind::virtual_kgsl:
      return Impl::open_virtual(virt::make_virtual_kgsl_system(Impl::virtual_gpu_config(spec.argument)), KernelKind::kgsl);
    case DeviceSpec::Kind::virtual_msm:
      return Impl::open_virtual(virt::make_virtual_msm_system(Impl::virtual_gpu_config(spec.argument)), KernelKind::msm);
  }
  log().info("opened {} device at {}", kernel->info().kind == KernelKind::kgsl ? "KGSL" : "MSM", kernel->info().node);
  return Device(std::make_shared<Impl>(nullptr, sys::real_syscalls(), std::move(kernel)));
}

}  // namespace adreno

namespace adreno {
namespace {

// A buffer that is the only one on its memory (Device::allocate, import_host_memory): its two
// records, the MemoryBlock and the Buffer::Impl, are built in the allocation's record slots (no
// heap, no lock of their own: issue 19). The block's slot keeps the device alive until the
// block's node is gone, for the allocator that owns the slots.
[[gnu::always_inline]] inline Buffer new_buffer(const std::shared_ptr<Device::Impl>& device,
                                                std::unique_ptr<Allocation>&& allocation, CpuView external_cpu,
                                                std::uint64_t offset, std::uint64_t size) {
  Allocation& records = *allocation;
  auto block = std::allocate_shared<MemoryBlock>(in_slot<MemoryBlock>(records.block_record), *device,
                                                 std::move(allocation), external_cpu);
  records.block_record.keep = device;
  return Buffer(
      std::allocate_shared<Buffer::Impl>(in_slot<Buffer::Impl>(records.buffer_record), std::move(block), offset, size));
}

}  // namespace

Buffer Device::allocate(const BufferDesc& desc) {
  auto allocation = impl_->allocator().allocate(desc.size, desc.alignment, BoFlags{desc.memory, desc.gpu_read_only},
                                                desc.host_visible, desc.exportable);
  const std::uint64_t size = allocation->size;
  return new_buffer(impl_, std::move(allocation), {}, 0, size);
}

Buffer Device::import_dmabuf(int fd, std::uint64_t offset, std::uint64_t size) {
  struct stat st {};
  if (int ret = impl_->syscalls().fstat(fd, &st); ret < 0) {
    throw Error(Errc::invalid_argument, "import dma-buf", "fstat of fd " + std::to_string(fd) + " failed", -ret);
  }
  auto block = impl_->shared_import(st.st_dev, st.st_ino, [&] {
    Bo bo = impl_->kernel().import_dmabuf(fd);
    std::unique_ptr<Allocation> allocation;
    try {
      allocation = impl_->allocator().adopt(bo, true);
    } catch (...) {
      impl_->kernel().free(bo);
      throw;
    }
    // Shared by every import of the dma-buf, and named by the device's registry of them: its
    // own node, as the Buffers on it are (a record slot is for a block's only Buffer).
    try {
      return std::make_shared<MemoryBlock>(impl_, std::move(allocation));
    } catch (...) {
      // No node: the allocation did not reach a block, whose destructor would give it back.
      if (allocation) impl_->allocator().release(std::move(allocation));
      throw;
    }
  });
  const std::uint64_t whole = block->allocation().size;
  if (size == 0) size = whole - std::min(offset, whole);
  if (offset >= whole || size > whole - offset) {
    throw Error(Errc::invalid_argument, "import dma-buf",
                "window [" + std::to_string(offset) + ", +" + std::to_string(size) + ") exceeds the dma-buf's " +
                    std::to_string(whole) + " bytes");
  }
  return Buffer(std::make_shared<Buffer::Impl>(std::move(block), offset, size));
}

int Device::export_dmabuf(const Buffer& buffer) {
  if (!buffer) throw Error(Errc::invalid_argument, "export dma-buf", "the buffer is empty");
  const MemoryBlock& block = buffer.impl()->block();
  // Its kernel object's id or handle names nothing, or another object, in this device's file.
  require_same_device(*impl_, block, "export dma-buf", "the buffer");
  if (block.allocation().cacheable) {
    throw Error(Errc::invalid_argument, "export dma-buf",
                "the buffer shares or recycles its kernel object; allocate it with BufferDesc::exportable");
  }
  return impl_->kernel().export_dmabuf(block.bo());
}

Buffer Device::import_host_memory(void* ptr, std::uint64_t size) {
  if (ptr == nullptr || size == 0) throw Error(Errc::invalid_argument, "import host memory", "null pointer or size 0");
  // The kernel maps whole pages: import the pages that hold [ptr, ptr+size).
  const std::uint64_t page = impl_->syscalls().page_size();
  const auto address = reinterpret_cast<std::uintptr_t>(ptr);
  const std::uintptr_t first = address & ~(page - 1);
  const std::uint64_t span = ((address + size + page - 1) & ~(page - 1)) - first;
  Bo bo = impl_->kernel().import_user_memory(reinterpret_cast<void*>(first), span);
  std::unique_ptr<Allocation> allocation;
  try {
    allocation = impl_->allocator().adopt(bo, false);
  } catch (...) {
    impl_->kernel().free(bo);
    throw;
  }
  return new_buffer(impl_, std::move(allocation), CpuView(reinterpret_cast<void*>(first), span), address - first, size);
}

}  // namespace adreno
