// A program outside the tree that uses only the installed public headers and library.
#include <adreno/adreno.hpp>

#include <cstdio>

int main() {
  adreno::Device device = adreno::Device::open("virtual-kgsl:a630");
  const adreno::DeviceInfo& info = device.info();
  std::printf("%s via %s (%s), chip id 0x%08x\n", info.name.c_str(), info.backend.c_str(),
              info.is_virtual ? "virtual" : "hardware", info.chip_id);
  return info.gpu_id == 630 && info.chip_id == 0x06030001 && info.is_virtual ? 0 : 1;
}
