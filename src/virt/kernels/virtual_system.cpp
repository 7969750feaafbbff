#include "virt/kernels/virtual_system.h"

#include "virt/kernels/kgsl_device.h"
#include "virt/kernels/msm_device.h"

namespace adreno::virt {

std::unique_ptr<VirtualSyscalls> make_virtual_kgsl_system(const VirtualGpuConfig& config) {
  auto system = std::make_unique<VirtualSyscalls>(config.page_size);
  system->add_node(kVirtualKgslNode, make_virtual_kgsl_node(config));
  return system;
}

std::unique_ptr<VirtualSyscalls> make_virtual_msm_system(const VirtualGpuConfig& config) {
  auto system = std::make_unique<VirtualSyscalls>(config.page_size);
  system->add_node(kVirtualMsmNode, make_virtual_msm_node(config));
  return system;
}

}  // namespace adreno::virt
