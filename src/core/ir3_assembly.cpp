#include "core/ir3_assembly.h"

#include <adreno/error.hpp>

#include "core/program_info.h"

#include <algorithm>
#include <cstring>

namespace adreno {
namespace {

constexpr const char* kOperation = "load ir3 assembly";

// Shared memory a program that touches local memory gets: the assembler cannot know how much it
// uses, so it gets all an a6xx work group may have.
constexpr std::uint32_t kAssemblySharedBytes = program_limits::kMaxSharedBytes;

}  // namespace

Ir3Metadata ir3_metadata(const ir3::Program& assembled) {
  const ir3::ProgramInfo& info = assembled.info;
  const ir3::LaunchInfo& launch = assembled.launch;
  if (launch.num_work_groups_const) {
    throw Error(Errc::unsupported, kOperation, "@numwg: the runtime does not deliver the work-group count");
  }
  Ir3Metadata metadata;
  metadata.name = "assembly";
  metadata.instrlen = info.instrlen;
  metadata.max_reg = info.max_reg;
  metadata.max_half_reg = info.max_half_reg;
  metadata.merged_regs = info.register_file == ir3::RegisterFile::merged;
  metadata.local_id_regid = launch.local_id_regid;
  metadata.work_group_id_regid = launch.work_group_id_regid;
  // The constant file must cover what the code reads and what the directives place.
  int max_const_vec4 = info.max_const;
  for (std::size_t i = 0; i < launch.buffers.size(); ++i) {
    const auto& slot = launch.buffers[i];
    if (!slot.address_const) continue;  // a buffer whose address the program never reads
    metadata.buffers.push_back({"buf" + std::to_string(i), *slot.address_const});
    max_const_vec4 = std::max(max_const_vec4, (*slot.address_const + 1) / 4);  // both dwords
  }
  for (const auto& constant : launch.constants) {
    for (unsigned c = 0; c < 4; ++c) metadata.immediates.push_back({constant.regid + c, constant.values[c]});
    max_const_vec4 = std::max(max_const_vec4, (constant.regid + 3) / 4);
  }
  metadata.constlen_vec4 = static_cast<std::uint32_t>(max_const_vec4 + 1);
  metadata.shared_bytes = info.uses_local_memory ? kAssemblySharedBytes : 0;
  std::copy(launch.local_size.begin(), launch.local_size.end(), metadata.fixed_local_size);
  return metadata;
}

std::vector<std::uint32_t> ir3_code_dwords(const ir3::Program& assembled) {
  std::vector<std::uint32_t> code(assembled.words.size() * 2);
  std::memcpy(code.data(), assembled.words.data(), code.size() * sizeof(std::uint32_t));
  return code;
}

Program Program::from_ir3_assembly(Device& device, std::string_view source, bool legalize) {
  const ir3::Program assembled =
      ir3::assemble(source, ir3::RegisterFile::split, legalize ? ir3::Scheduling::legalize : ir3::Scheduling::as_written);
  Ir3Metadata metadata = ir3_metadata(assembled);
  // Program::from_ir3 loads whole 16-instruction groups: pad with nops as the compiler does.
  std::vector<std::uint32_t> code = ir3_code_dwords(assembled);
  code.resize(std::max<std::size_t>(code.size(), std::size_t{metadata.instrlen} * 32), 0);
  return from_ir3(device, code, metadata);
}

}  // namespace adreno
