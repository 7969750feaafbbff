// C entry points: devices.
#include "capi/registry.h"
#include "capi/status.h"

using namespace adreno;
using namespace adreno::capi;

extern "C" {

adreno_status adreno_device_open(const char* spec, adreno_device* device) {
  return guarded(__func__, [&] {
    require(device, "device");
    publish(std::make_shared<DeviceObject>(spec != nullptr ? Device::open(spec) : Device::open()), device);
  });
}

adreno_status adreno_device_release(adreno_device device) {
  return guarded(__func__, [&] { withdraw(device, "device"); });
}

adreno_status adreno_device_get_info(adreno_device device, adreno_device_info* info) {
  return guarded(__func__, [&] {
    auto object = lookup(device, "device");
    require(info, "info");
    const DeviceInfo& in = object->device.info();
    *info = adreno_device_info{.backend = in.backend.c_str(),
                               .node = in.node.c_str(),
                               .name = in.name.c_str(),
                               .is_virtual = in.is_virtual,
                               .has_va_range = in.va_start.has_value() && in.va_size.has_value(),
                               .chip_id = in.chip_id,
                               .gpu_id = in.gpu_id,
                               .priority_levels = in.priority_levels,
                               .gmem_size = in.gmem_size,
                               .va_start = in.va_start.value_or(0),
                               .va_size = in.va_size.value_or(0)};
  });
}

}  // extern "C"
