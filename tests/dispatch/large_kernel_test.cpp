// [virtual-gpu] Kernels longer than the instruction cache (freedreno_devices.py instr_cache_size:
// 64 units of 16 instructions on a630/a640, 127 on a650/a660): the code preload stops at the
// cache, SP_CS_INSTR_SIZE keeps the whole length, and SP_PS_INSTR_SIZE gets it too with a
// DEBUG_LABEL event (Turnip tu_dispatch, fd6_compute.cc); the kernel still runs whole. The virtual
// command processor refuses a larger preload with a CP error, as the hardware may hang.
#include <adreno/adreno.hpp>

#include "../core/virtual_device.h"
#include "core/program_impl.h"
#include "pm4/a6xx_registers.h"
#include "pm4/packets.h"
#include "recorded_stream.h"

#include <cstring>
#include <string>

using namespace adreno;
namespace r = adreno::pm4::a6xx;
using adreno::pm4::Opcode;

namespace {

// 1097 instructions (69 units of 16): four counters each counted up 272 times, every add four
// instructions after the one it depends on (ALU delay slots), then r1.x stored through UAV 0.
std::string long_kernel() {
  std::string text = "@localsize 1, 1, 1\n@buf 4\n";
  text += "mov.u32u32 r1.x, 0\nmov.u32u32 r1.y, 0\nmov.u32u32 r1.z, 0\nmov.u32u32 r1.w, 0\nmov.u32u32 r0.y, 0\n(rpt2)nop\n";
  for (int i = 0; i < 272; ++i)
    for (const char c : {'x', 'y', 'z', 'w'}) text += std::string("add.u r1.") + c + ", r1." + c + ", 1\n";
  text += "(rpt5)nop\nstib.b.untyped.1d.u32.1.imm r1.x, r0.y, 0\nend\n";
  return text;
}

}  // namespace

TEST_CASE("a kernel longer than the instruction cache preloads only the cache and still runs whole",
          "[virtual-gpu][dispatch]") {
  struct Part {
    const char* model;
    std::uint32_t preload;  // units: min(69, instr_cache_size)
    bool instrlen_workaround;
  };
  const Part part = GENERATE(Part{"a630", 64, true}, Part{"a650", 69, false}, Part{"a740", 69, false});
  VirtualDevice device(std::string(EACH_VIRTUAL_BACKEND()) + ":" + part.model);
  {
    Program program = Program::from_ir3_assembly(*device, long_kernel());
    Buffer buffer = device->allocate({.size = 16});
    Arguments arguments(program);
    arguments.set_buffer(0, buffer);
    Queue queue(*device);
    queue.dispatch(program, arguments, Launch{{1, 1, 1}, {1, 1, 1}, std::nullopt});
    const RecordedStream rec = record_of(queue);
    INFO(part.model);
    CHECK(rec.value(r::SP_CS_INSTR_SIZE) == 69);
    const auto loads = rec.all(Opcode::CP_LOAD_STATE6_FRAG);
    REQUIRE(!loads.empty());
    CHECK(pm4::packet_field::kNumUnit.extract(loads[0]->payload[0]) == part.preload);  // the code comes first
    CHECK(rec.has(r::SP_PS_INSTR_SIZE) == part.instrlen_workaround);
    if (part.instrlen_workaround) {
      CHECK(rec.value(r::SP_PS_INSTR_SIZE) == 69);
      bool label = false;
      for (const auto* event : rec.all(Opcode::CP_EVENT_WRITE))
        label = label || pm4::packet_field::kEvent.extract(event->payload[0]) == static_cast<unsigned>(pm4::EventType::DEBUG_LABEL);
      CHECK(label);
    }
    queue.finish(std::chrono::seconds(60));
    CHECK(buffer.cpu_view().as<std::uint32_t>()[0] == 272);
  }
  device.close_and_check_ledger();
}

TEST_CASE("the virtual command processor refuses a code preload larger than the instruction cache", "[virtual-gpu][dispatch]") {
  VirtualDevice device(std::string(EACH_VIRTUAL_BACKEND()) + ":a630");
  {
    Program program = Program::from_ir3_assembly(*device, long_kernel());
    Queue queue(*device);
    // 65 units of the 69-unit program: one more than a630's 64-unit cache.
    pm4::load_state6_frag(queue.impl().stream(), {pm4::StateType::ST6_SHADER, pm4::StateBlock::SB6_CS_SHADER, 0, 65},
                          program.code_address());
    queue.impl().reference(program.impl()->code(), false);
    try {
      queue.finish(std::chrono::seconds(60));
      FAIL("the preload ran");
    } catch (const Error& error) {
      CHECK(error.code() == Errc::device_lost);
    }
  }
  device.close_and_check_ledger();
}

// Kills: the a730 model's cache held 128 units; freedreno_devices.py's a7xx_base gives 127 ("Blob
// limits it to 128 but we hang with 128"), so a 128-unit preload must be a CP error there.
TEST_CASE("the a730 model's instruction cache holds a7xx_base's 127 units", "[virtual-gpu][dispatch]") {
  const std::uint32_t units = GENERATE(127u, 128u);
  VirtualDevice device(std::string(EACH_VIRTUAL_BACKEND()) + ":a730");
  {
    // The preload reads nops from a plain buffer; no program is needed to fill the cache.
    Buffer code = device->allocate({.size = 128 * 128});
    std::memset(code.cpu_view().data(), 0, 128 * 128);
    Queue queue(*device);
    pm4::load_state6_frag(queue.impl().stream(), {pm4::StateType::ST6_SHADER, pm4::StateBlock::SB6_CS_SHADER, 0, units},
                          code.gpu_address());
    queue.impl().reference(code.impl()->block_shared(), false);
    INFO(units << " units");
    if (units == 127) {
      queue.finish(std::chrono::seconds(60));
    } else {
      try {
        queue.finish(std::chrono::seconds(60));
        FAIL("the preload ran");
      } catch (const Error& error) {
        CHECK(error.code() == Errc::device_lost);
      }
    }
  }
  device.close_and_check_ledger();
}
