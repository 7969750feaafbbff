// adreno-info: what the kernel reports about the Adreno GPU — like clinfo or vulkaninfo.
#include <adreno/adreno.hpp>

// The limits the runtime enforces, as constants (nothing of the library's internals is linked).
#include "core/descriptors.h"
#include "core/program_info.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

const char* memory_type_name(adreno::MemoryType type) {
  switch (type) {
    case adreno::MemoryType::write_combined: return "write_combined";
    case adreno::MemoryType::cached: return "cached";
    case adreno::MemoryType::cached_coherent: return "cached_coherent";
    case adreno::MemoryType::uncached: return "uncached";
  }
  return "?";
}

// A memory type is listed when the kernel accepts a small allocation of it.
nlohmann::json memory_types(adreno::Device& device) {
  nlohmann::json types = nlohmann::json::array();
  for (auto type : {adreno::MemoryType::write_combined, adreno::MemoryType::cached,
                    adreno::MemoryType::cached_coherent, adreno::MemoryType::uncached}) {
    try {
      adreno::Buffer probe = device.allocate({.size = 4096, .memory = type, .exportable = true});
      types.push_back(memory_type_name(type));
    } catch (const adreno::Error&) {
    }
  }
  return types;
}

nlohmann::json describe(adreno::Device& device) {
  const adreno::DeviceInfo& info = device.info();
  nlohmann::json out;
  out["kernel_interface"] = info.backend;
  out["virtual"] = info.is_virtual;
  out["node"] = info.node;
  out["gpu"] = info.name;
  out["gpu_id"] = info.gpu_id;
  char chip[16];
  std::snprintf(chip, sizeof chip, "0x%08x", info.chip_id);
  out["chip_id"] = chip;
  out["gmem_bytes"] = info.gmem_size;
  if (info.va_start && info.va_size) {
    out["va_start"] = *info.va_start;
    out["va_size"] = *info.va_size;
  } else {
    out["va_start"] = nullptr;
    out["va_size"] = nullptr;
  }
  out["queue_priorities"] = info.priority_levels;
  out["memory_types"] = memory_types(device);
  // The limits the runtime enforces when it loads programs and binds images.
  namespace L = adreno::program_limits;
  out["limits"] = {{"invocations_per_work_group", L::kMaxInvocations},
                   {"full_registers_vec4", L::kMaxFullRegsVec4},
                   {"half_registers_vec4", L::kMaxHalfRegsVec4},
                   {"constants_vec4", L::kMaxConstlenVec4},
                   {"shared_memory_bytes", L::kMaxSharedBytes},
                   {"private_memory_bytes_per_fiber", L::kMaxPrivateBytesPerFiber},
                   {"textures", L::kMaxTextures},
                   {"samplers", L::kMaxSamplers},
                   {"storage_images", L::kMaxStorageImages},
                   {"image_dimension", adreno::kMaxImageDimension}};
  return out;
}

void print_text(const nlohmann::json& d) {
  std::printf("%s (%s%s)\n", d["gpu"].get<std::string>().c_str(), d["kernel_interface"].get<std::string>().c_str(),
              d["virtual"].get<bool>() ? ", virtual" : "");
  std::printf("  node              %s\n", d["node"].get<std::string>().c_str());
  std::printf("  chip id           %s\n", d["chip_id"].get<std::string>().c_str());
  std::printf("  GMEM              %llu KiB\n", static_cast<unsigned long long>(d["gmem_bytes"].get<std::uint64_t>() / 1024));
  if (d["va_start"].is_null()) {
    std::printf("  GPU VA range      not reported by the kernel\n");
  } else {
    const auto start = d["va_start"].get<std::uint64_t>(), size = d["va_size"].get<std::uint64_t>();
    std::printf("  GPU VA range      0x%llx - 0x%llx\n", static_cast<unsigned long long>(start),
                static_cast<unsigned long long>(start + size));
  }
  std::printf("  queue priorities  %u (0 is the highest)\n", d["queue_priorities"].get<unsigned>());
  std::string types;
  for (const auto& t : d["memory_types"]) types += (types.empty() ? "" : ", ") + t.get<std::string>();
  std::printf("  memory types      %s\n", types.c_str());
  std::printf("  limits\n");
  for (const auto& [name, value] : d["limits"].items()) {
    std::printf("    %-32s %llu\n", name.c_str(), static_cast<unsigned long long>(value.get<std::uint64_t>()));
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Shows what the kernel reports about the Adreno GPU: kernel interface, chip, GMEM, GPU address\n"
      "range, queue priorities and memory types.\n\n"
      "The device is the one ADRENO_DEVICE names (kgsl, msm[:/dev/dri/renderDN], virtual-kgsl[:a630],\n"
      "virtual-msm[:a630]); when it is unset, /dev/kgsl-3d0 and the msm render nodes are probed, and\n"
      "without hardware the virtual KGSL device is used (and said so)."};
  std::string spec;
  bool use_virtual = false;
  bool json = false;
  app.add_option("-d,--device", spec, "device to open, in the ADRENO_DEVICE syntax");
  app.add_flag("--virtual", use_virtual, "use the virtual Adreno (virtual-kgsl) even if hardware is present");
  app.add_flag("--json", json, "print JSON instead of text");
  CLI11_PARSE(app, argc, argv);

  try {
    std::optional<adreno::Device> device;
    if (use_virtual) {
      device.emplace(adreno::Device::open(spec.empty() ? "virtual-kgsl" : spec));
    } else if (!spec.empty()) {
      device.emplace(adreno::Device::open(spec));
    } else {
      try {
        device.emplace(adreno::Device::open());
      } catch (const adreno::Error& error) {
        if (error.code() != adreno::Errc::not_found) throw;
        std::fprintf(stderr, "adreno-info: no Adreno hardware found; showing the virtual Adreno (virtual-kgsl)\n");
        device.emplace(adreno::Device::open("virtual-kgsl"));
      }
    }
    const nlohmann::json d = describe(*device);
    if (json) {
      std::printf("%s\n", d.dump(2).c_str());
    } else {
      print_text(d);
    }
  } catch (const adreno::Error& error) {
    std::fprintf(stderr, "adreno-info: %s\n", error.what());
    return 1;
  }
  return 0;
}
