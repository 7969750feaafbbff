// What a Device holds: the kernel interface and, for a virtual device, the virtual system that
// the kernel talks to (which must outlive it); the allocator and the context tracker it asks
// before reusing memory; the registry that makes two imports of one dma-buf share one object.
// Buffers and queues keep it alive through shared_ptr.
#pragma once

#include <adreno/device.hpp>

#include "alloc/allocator.h"
#include "core/context_tracker.h"
#include "kernel/kernel.h"
#include "virt/kernels/virtual_gpu_config.h"
#include "virt/kernels/virtual_syscalls.h"

#include <sys/types.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace adreno {

class MemoryBlock;
class Tracer;

class Device::Impl {
 public:
  Impl(std::shared_ptr<virt::VirtualSyscalls> virtual_system, sys::Syscalls& sys, std::unique_ptr<Kernel> kernel);
  /// Opens the virtual node of `system` (the KGSL device or the msm node, as `kind` says): how
  /// Device::open makes a virtual device, and how the test kit makes one set up its own way.
  static Device open_virtual(std::unique_ptr<virt::VirtualSyscalls> system, KernelKind kind);
  /// The virtual GPU of model `model_name` ("a630"; empty: the default); an unknown name throws
  /// Error(invalid_argument) listing the known ones.
  static virt::VirtualGpuConfig virtual_gpu_config(const std::string& model_name);
  /// Returns all memory, closes the kernel node; a virtual device then logs every object its
  /// ledger still holds.
  ~Impl();

  Kernel& kernel() noexcept { return *kernel_; }
  sys::Syscalls& syscalls() noexcept { return sys_; }
  Allocator& allocator() noexcept { return *allocator_; }
  ContextTracker& contexts() noexcept { return *contexts_; }
  /// The virtual system behind a virtual device, nullptr on hardware. It outlives the device
  /// for whoever holds it, so tests can read its ledger after the device closed.
  const std::shared_ptr<virt::VirtualSyscalls>& virtual_system() noexcept { return virtual_system_; }
  const DeviceInfo& info() const noexcept { return info_; }
  /// The timeline ADRENO_TRACE asked for when the device opened; nullptr when it traces nothing.
  Tracer* tracer() const noexcept { return tracer_.get(); }

  /// Counts the memory blocks some graph bound whose last Buffer went away. A graph that saw the
  /// same count at its previous replay knows every buffer it binds is still held, without
  /// visiting them; buffers no graph bound (per-frame temporaries) do not count.
  std::uint64_t graph_buffers_released() const noexcept { return graph_buffers_released_.load(std::memory_order_acquire); }

  /// A built graph: it borrows the memory it binds from the application's Buffers, without a
  /// reference of its own (Graph::Impl says why that is safe), and takes one when the last Buffer
  /// of memory it still binds goes.
  class GraphBindings {
   public:
    /// Takes a reference to `block` if the graph binds it, or staged it for its next replay.
    virtual void hold_if_bound(MemoryBlock& block) noexcept = 0;

   protected:
    ~GraphBindings() = default;
  };
  void add_graph(GraphBindings& graph);
  void remove_graph(GraphBindings& graph) noexcept;
  /// The last Buffer of `block`, which some graph bound, is going (it still holds `block`): every
  /// graph of the device takes a reference if it still binds it, before the Buffer lets go.
  void note_graph_buffer_released(MemoryBlock& block) noexcept;

  /// The block already imported from the dma-buf `fd` refers to, or one made by `import`.
  template <typename Import>
  std::shared_ptr<MemoryBlock> shared_import(dev_t device, ino_t inode, Import&& import) {
    std::lock_guard lock(imports_mutex_);
    auto& slot = imports_[{device, inode}];
    if (auto existing = slot.lock()) return existing;
    auto block = import();
    slot = block;
    return block;
  }

 private:
  std::shared_ptr<virt::VirtualSyscalls> virtual_system_;
  sys::Syscalls& sys_;
  std::unique_ptr<Kernel> kernel_;
  DeviceInfo info_;
  std::unique_ptr<ContextTracker> contexts_;
  std::unique_ptr<Allocator> allocator_;
  std::unique_ptr<Tracer> tracer_;
  std::atomic<std::uint64_t> graph_buffers_released_{0};
  std::mutex graphs_mutex_;  // a release visits the graphs while they are built and destroyed
  std::vector<GraphBindings*> graphs_;
  std::mutex imports_mutex_;
  std::map<std::pair<dev_t, ino_t>, std::weak_ptr<MemoryBlock>> imports_;
};

}  // namespace adreno
