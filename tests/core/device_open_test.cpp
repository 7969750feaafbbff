// [virtual-kernel] Opening devices through the public API: the virtual kernels, probing, errors.
#include <adreno/device.hpp>
#include <adreno/error.hpp>

#include "core/device_impl.h"

#include <catch2/catch.hpp>

#include <cstdlib>

TEST_CASE("virtual KGSL and virtual MSM devices report the chosen model", "[virtual-kernel][device]") {
  struct Case {
    const char* spec;
    const char* backend;
    std::uint32_t gpu_id;
    std::uint32_t chip_id;  // Mesa src/freedreno/common/freedreno_devices.py
    std::uint64_t gmem_size;  // msm a6xx_catalog.c, KGSL adreno-gpulist.h
  };
  // The a7xx parts are named from their chip ids: MSM reports GPU_ID 0 for them and KGSL's chip
  // ids from the a740 on are not core.major.minor bytes.
  const Case cases[] = {
      {"virtual-kgsl", "kgsl", 630, 0x06030001, 1024 * 1024},
      {"virtual-msm", "msm", 630, 0x06030001, 1024 * 1024},
      {"virtual-kgsl:a660", "kgsl", 660, 0x06060001, 1536 * 1024},
      {"virtual-msm:a640", "msm", 640, 0x06040001, 1024 * 1024},
      {"virtual-kgsl:a730", "kgsl", 730, 0x07030001, 2048 * 1024},
      {"virtual-msm:a730", "msm", 730, 0x07030001, 2048 * 1024},
      {"virtual-kgsl:a750", "kgsl", 750, 0x43051401, 3072 * 1024},
      {"virtual-msm:a750", "msm", 750, 0x43051401, 3072 * 1024},
  };
  for (const Case& c : cases) {
    INFO(c.spec);
    std::shared_ptr<adreno::virt::VirtualSyscalls> system;
    {
      adreno::Device device = adreno::Device::open(c.spec);
      system = device.impl().virtual_system();
      REQUIRE(system != nullptr);
      const auto& info = device.info();
      CHECK(info.is_virtual);
      CHECK(info.backend == c.backend);
      CHECK(info.gpu_id == c.gpu_id);
      CHECK(info.chip_id == c.chip_id);
      CHECK(info.name == "Adreno " + std::to_string(c.gpu_id));
      CHECK(info.gmem_size == c.gmem_size);
      CHECK(info.priority_levels >= 1);
    }
    // Closing the device closed the node and everything in it.
    CHECK(system->leaks().empty());
  }
}

TEST_CASE("an unknown virtual model is refused with the list of models", "[virtual-kernel][device]") {
  try {
    adreno::Device::open("virtual-kgsl:a999");
    FAIL("opened");
  } catch (const adreno::Error& error) {
    CHECK(error.code() == adreno::Errc::invalid_argument);
    CHECK(std::string(error.what()).find("a630") != std::string::npos);
  }
}

TEST_CASE("ADRENO_DEVICE selects the device that open() returns", "[virtual-kernel][device]") {
  const char* saved = std::getenv("ADRENO_DEVICE");
  std::string previous = saved ? saved : "";
  ::setenv("ADRENO_DEVICE", "virtual-msm", 1);
  adreno::Device device = adreno::Device::open();
  CHECK(device.info().backend == "msm");
  CHECK(device.info().is_virtual);
  if (saved) ::setenv("ADRENO_DEVICE", previous.c_str(), 1); else ::unsetenv("ADRENO_DEVICE");
}

TEST_CASE("probing with no hardware lists every node it tried", "[hardware][device]") {
  const char* saved = std::getenv("ADRENO_DEVICE");
  std::string previous = saved ? saved : "";
  ::unsetenv("ADRENO_DEVICE");
  try {
    adreno::Device device = adreno::Device::open();
    // Real hardware is present: it must not be a virtual device.
    CHECK_FALSE(device.info().is_virtual);
  } catch (const adreno::Error& error) {
    CHECK(error.code() == adreno::Errc::not_found);
    const std::string text = error.what();
    CHECK(text.find("/dev/kgsl-3d0") != std::string::npos);
    CHECK(text.find("msm") != std::string::npos);
  }
  if (saved) ::setenv("ADRENO_DEVICE", previous.c_str(), 1);
}

TEST_CASE("an explicit KGSL node that does not exist names the node and ENOENT", "[virtual-kernel][device]") {
  try {
    adreno::Device::open("kgsl:/nonexistent/kgsl-3d0");
    FAIL("opened");
  } catch (const adreno::Error& error) {
    CHECK(error.sys_errno() == ENOENT);
    CHECK(std::string(error.what()).find("/nonexistent/kgsl-3d0") != std::string::npos);
  }
}
