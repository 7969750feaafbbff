// The gemm example: a tiled single-precision matrix multiply written in ir3 assembly without
// counting delay slots (examples/kernels/sgemm.s), legalized by the assembler, run on random
// matrices of several sizes and checked against the host. Runs on ADRENO_DEVICE, else on the
// virtual Adreno.
#include "gemm.h"

#include <cstdlib>

int main() {
  const char* chosen = std::getenv("ADRENO_DEVICE");
  const std::string spec = chosen != nullptr && *chosen != '\0' ? chosen : "virtual-kgsl";
  try {
    adreno::Device device = adreno::Device::open(spec);
    std::mt19937 rng(2026);  // random matrices, the same on every run
    std::printf("%s:\n", spec.c_str());
    const bool ok = gemm::run(device, rng);
    std::printf(ok ? "gemm: OK\n" : "gemm: FAILED\n");
    return ok ? 0 : 1;
  } catch (const adreno::Error& error) {
    std::printf("%s: %s\n", spec.c_str(), error.what());
    return 1;
  }
}
