// [virtual-gpu] What a dispatch cannot do: touch unmapped or read-only memory, run forever,
// leave its declared register footprint, read constants nobody loaded, or use state the virtual
// GPU does not model. Each is a typed GpuFault; on a ring it marks that context faulted while
// another context on the same GPU keeps working — except a page fault, which a ring logs and
// goes on past, as the drivers' default IOMMU setup does.
#include "virtual_gpu.h"

#include "virt/kernels/ring.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <mutex>
#include <vector>

using namespace vgpu_test;
using adreno::virt::FaultKind;
using adreno::virt::GpuFault;
using adreno::virt::Ring;

namespace {

// Stores 42 at the address in c0.xy.
const char* const kStoreToC0 = R"(
  mov.u32u32 r0.x, c0.x
  mov.u32u32 r0.y, c0.y
  mov.u32u32 r1.x, 42
    (rpt5)nop
  stg.u32 g[r0.x], r1.x, 1
  end
)";

Launch store_launch(const ir3::Program& program, std::uint64_t address) {
  Launch launch = launch_for(program);
  launch.constants = {split(address)[0], split(address)[1], 0, 0};
  return launch;
}

FaultKind fault_of(VirtualGpu& gpu, const ir3::Program& program, const Launch& launch, std::string* message = nullptr) {
  try {
    gpu.run(program.words, launch);
  } catch (const GpuFault& fault) {
    if (message) *message = fault.what();
    return fault.kind();
  }
  FAIL("the dispatch did not fault");
  return FaultKind::cp_error;
}

}  // namespace

TEST_CASE("a shader store to an unmapped address is a page fault its ring logs and retires past",
          "[virtual-gpu][faults]") {
  VirtualGpu gpu;
  const ir3::Program program = ir3::assemble(kStoreToC0);
  std::vector<adreno::virt::FaultRecord> page_faults, faults;  // written on the rings' threads
  std::mutex logged_mutex;
  auto log_into = [&](std::vector<adreno::virt::FaultRecord>& into) {
    return [&](const adreno::virt::FaultRecord& fault) {
      std::lock_guard lock(logged_mutex);
      into.push_back(fault);
    };
  };
  Ring faulting(gpu.memory(), std::chrono::seconds(5), Ring::FaultLogs{log_into(faults), log_into(page_faults)});
  Ring other(gpu.memory(), std::chrono::seconds(5));

  const virt::IbSpan bad = gpu.record(program.words, store_launch(program, 0x40000000ull));  // below the VA range
  const auto bad_seqno = faulting.submit({bad});
  REQUIRE(faulting.wait(bad_seqno, std::chrono::seconds(10)) == Ring::WaitResult::retired);
  CHECK_FALSE(faulting.fault());
  {
    std::lock_guard lock(logged_mutex);
    CHECK(faults.empty());
    REQUIRE(page_faults.size() == 1);
    CHECK(page_faults[0].address == 0x40000000ull);
    CHECK(page_faults[0].write);
    CHECK(page_faults[0].seqno == bad_seqno);
  }

  // The same program into mapped memory, on this ring and another: both retire and store.
  const std::uint64_t target = VirtualGpu::kData + 0x40;
  const virt::IbSpan good = gpu.record(program.words, store_launch(program, gpu.va(target)));
  REQUIRE(faulting.wait(faulting.submit({good}), std::chrono::seconds(10)) == Ring::WaitResult::retired);
  CHECK(gpu.get<std::uint32_t>(target, 1)[0] == 42);
  std::memset(gpu.host(target), 0, 4);
  REQUIRE(other.wait(other.submit({good}), std::chrono::seconds(10)) == Ring::WaitResult::retired);
  CHECK(gpu.get<std::uint32_t>(target, 1)[0] == 42);
  CHECK_FALSE(other.fault());
}

TEST_CASE("a store to read-only memory is a page fault", "[virtual-gpu][faults]") {
  VirtualGpu gpu;
  auto read_only = virt::Backing::create(4096);
  const std::uint64_t va = *gpu.memory()->map(read_only, 0, 4096, /*gpu_writable=*/false);
  const ir3::Program program = ir3::assemble(kStoreToC0);
  std::string message;
  CHECK(fault_of(gpu, program, store_launch(program, va), &message) == FaultKind::page_fault);
}

TEST_CASE("an endless loop is reported as a hang by the watchdog", "[virtual-gpu][faults]") {
  VirtualGpu gpu(0x100000000ull, std::chrono::milliseconds(200));
  const ir3::Program program = ir3::assemble("spin:\nadd.u r0.x, r0.x, 1\n(rpt2)nop\njump #spin\nend\n");
  Launch launch = launch_for(program);
  launch.local_size = {64, 1, 1};
  CHECK(fault_of(gpu, program, launch) == FaultKind::hang);  // CTest's timeout bounds the wait
}

TEST_CASE("an endless loop around a barrier is reported as a hang", "[virtual-gpu][faults]") {
  VirtualGpu gpu(0x100000000ull, std::chrono::milliseconds(200));
  const ir3::Program program = ir3::assemble("spin:\nbar\n(ss)(sy)jump #spin\nend\n");
  Launch launch = launch_for(program);
  launch.local_size = {256, 1, 1};
  CHECK(fault_of(gpu, program, launch) == FaultKind::hang);
}

TEST_CASE("a program without end is reported as a hang when it runs off its instructions", "[virtual-gpu][faults]") {
  VirtualGpu gpu;
  const ir3::Program program = ir3::assemble("add.u r0.x, r0.x, 1\nnop\nnop\n");
  std::string message;
  CHECK(fault_of(gpu, program, launch_for(program), &message) == FaultKind::hang);
  CHECK_THAT(message, Catch::Contains("end"));
}

TEST_CASE("a register outside the declared footprint is a shader error", "[virtual-gpu][faults]") {
  VirtualGpu gpu;
  const ir3::Program program = ir3::assemble("add.u r5.x, r0.x, 1\nend\n");
  Launch launch = launch_for(program);
  REQUIRE(launch.full_footprint == 6);
  launch.full_footprint = 5;  // one vec4 short of r5
  std::string message;
  CHECK(fault_of(gpu, program, launch, &message) == FaultKind::shader_error);
  CHECK_THAT(message, Catch::Contains("FULLREGFOOTPRINT"));

  const ir3::Program half = ir3::assemble("add.f hr2.x, hr0.x, hr0.y\nend\n");
  Launch half_launch = launch_for(half);
  half_launch.half_footprint = 2;
  CHECK(fault_of(gpu, half, half_launch, &message) == FaultKind::shader_error);
  CHECK_THAT(message, Catch::Contains("HALFREGFOOTPRINT"));
}

TEST_CASE("a merged register file aliases two half registers onto one full register", "[virtual-gpu][ir3]") {
  // hr2.x and hr2.y are the low and high halves of r1.x (Mesa ir3: with mergedregs hrN.c is half
  // of full regid (4N + c) / 2).
  VirtualGpu gpu;
  const ir3::Program program = ir3::assemble(R"(
    mov.u16u16 hr2.x, 0x1234
    mov.u16u16 hr2.y, 0xabcd
    mov.u32u32 r0.x, c0.x
    mov.u32u32 r0.y, c0.y
    (rpt5)nop
    stg.u32 g[r0.x], r1.x, 1
    end
  )", ir3::RegisterFile::merged);
  Launch launch = store_launch(program, gpu.va(VirtualGpu::kData));
  REQUIRE(launch.merged_registers);
  gpu.run(program.words, launch);
  CHECK(gpu.get<std::uint32_t>(VirtualGpu::kData, 1)[0] == 0xabcd1234u);
}

TEST_CASE("a constant outside CONSTLEN or never loaded is a shader error", "[virtual-gpu][faults]") {
  VirtualGpu gpu;
  const ir3::Program program = ir3::assemble("mov.u32u32 r0.x, c9.x\nend\n");
  Launch launch = launch_for(program);
  launch.constants.assign(16, 0);  // c0..c3 loaded, CONSTLEN 4
  std::string message;
  CHECK(fault_of(gpu, program, launch, &message) == FaultKind::shader_error);
  CHECK_THAT(message, Catch::Contains("CONSTLEN"));
}

TEST_CASE("an instruction the virtual shader processor does not model is a shader error", "[virtual-gpu][faults]") {
  VirtualGpu gpu;
  const ir3::Program program = ir3::assemble("shb r0.x, r0.y, r0.z\nend\n");
  std::string message;
  CHECK(fault_of(gpu, program, launch_for(program), &message) == FaultKind::shader_error);
  CHECK_THAT(message, Catch::Contains("shb"));
}

TEST_CASE("register state the virtual GPU cannot honour refuses the dispatch", "[virtual-gpu][faults][cp]") {
  VirtualGpu gpu;
  const ir3::Program program = ir3::assemble("end\n");
  Launch launch = launch_for(program);
  launch.local_size = {33, 33, 1};  // 1089 fibers
  std::string message;
  CHECK(fault_of(gpu, program, launch, &message) == FaultKind::shader_error);
  CHECK_THAT(message, Catch::Contains("1024"));
}

TEST_CASE("SP_UPDATE_CNTL drops loaded constants: a later dispatch must load its own", "[virtual-gpu][faults][cp]") {
  // The first dispatch loads c0 and reads it; the second declares the same CONSTLEN but loads
  // nothing after its SP_UPDATE_CNTL invalidation, so reading c0 is a shader error.
  VirtualGpu gpu;
  const ir3::Program program = ir3::assemble(kStoreToC0);
  gpu.run(program.words, store_launch(program, gpu.va(VirtualGpu::kData)));
  CHECK(gpu.get<std::uint32_t>(VirtualGpu::kData, 1)[0] == 42);

  Launch unloaded = launch_for(program);
  unloaded.constlen = 4;
  std::string message;
  CHECK(fault_of(gpu, program, unloaded, &message) == FaultKind::shader_error);
  CHECK_THAT(message, Catch::Contains("never loaded"));
}
