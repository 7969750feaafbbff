// [virtual-gpu] The GEMM showcase end to end on both virtual kernels: examples/kernels/sgemm.s is
// written without delay slots or waits, so as written the checker lists its hazards and the
// virtual GPU loses the dispatch; legalized it is hazard-free and multiplies random matrices of
// every size examples/gemm.h tries exactly as the host loop does (THREAD128).
#include "../core/virtual_device.h"
#include "gemm.h"
#include "ir3/assembler.h"
#include "ir3/codec.h"
#include "ir3/legalize.h"

using namespace adreno;

namespace {

std::vector<ir3::Instruction> decoded(const std::vector<std::uint64_t>& words) {
  std::vector<ir3::Instruction> code;
  for (std::uint64_t w : words) code.push_back(ir3::decode(w));
  return code;
}

}  // namespace

TEST_CASE("the SGEMM written without waits has hazards as written and none once legalized", "[pure][ir3][gemm]") {
  const std::string source = std::string("@const(c2.x) 8, 16, 1, 0\n") + kernels::sgemm;
  CHECK(ir3::check(decoded(ir3::assemble(source).words)).size() > 10);
  CHECK(ir3::check(decoded(ir3::assemble(source, ir3::RegisterFile::split, ir3::Scheduling::legalize).words)).empty());
}

TEST_CASE("the legalized SGEMM multiplies random matrices of several sizes exactly, and as written it faults", "[virtual-gpu][e2e][gemm]") {
  VirtualDevice device(EACH_VIRTUAL_BACKEND_AND_GENERATION());
  {
    std::mt19937 rng(21);
    CHECK(gemm::run(*device, rng));
  }
  {
    // As written: the first hazard stops it, the context is lost.
    const gemm::Shape shape{16, 8, 16};
    const std::string source = "@const(c2.x) 8, 16, 1, 0\n" + std::string(kernels::sgemm);
    Program sgemm = Program::from_ir3_assembly(*device, source);
    Buffer a = device->allocate({.size = 16 * 16 * 4}), b = device->allocate({.size = 16 * 8 * 4}), c = device->allocate({.size = 16 * 8 * 4});
    Arguments arguments(sgemm);
    arguments.set_buffer(0, c).set_buffer(1, a).set_buffer(2, b);
    Queue queue(*device);
    queue.dispatch(sgemm, arguments, {.groups = {shape[1] / 8, shape[0] / 16, 1}, .local_size = {8, 16, 1}, .wave_size = WaveSize::thread128});
    try {
      queue.finish(std::chrono::seconds(60));
      FAIL("the unscheduled SGEMM retired");
    } catch (const Error& error) {
      CHECK(error.code() == Errc::device_lost);
    }
  }
  device.close_and_check_ledger();
}
