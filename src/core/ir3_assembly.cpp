#include "core/ir3_assembly.h"
#include "core/gpu_part.h"

#include <adreno/error.hpp>

#include "core/program_info.h"
#include "ir3/codec.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

namespace adreno {
namespace {

constexpr const char* kOperation = "load ir3 assembly";

std::optional<ir3::Instruction> decoded(std::uint64_t word) {
  try {
    return ir3::decode(word);
  } catch (const Error&) {
    return std::nullopt;  // a raw word that is no instruction: it moves no private memory
  }
}

}  // namespace

Ir3Metadata ir3_metadata(const ir3::Program& assembled) {
  const ir3::ProgramInfo& info = assembled.info;
  const ir3::LaunchInfo& launch = assembled.launch;
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
  std::uint32_t storage_slots = 0, uniform_slots = 0;
  for (std::size_t i = 0; i < launch.buffers.size(); ++i) {
    // Mesa computerator (a6xx.cc cs_uav_emit and cs_ubo_emit; ir3_parser.y buf_header): the
    // @buf and @ubo lines form one list, and each kind takes the next slot of its own table — the
    // n-th @buf is UAV slot n, the n-th @ubo UBO slot n — with the address also in cN.xy when the
    // line names a constant.
    const auto& slot = launch.buffers[i];
    const std::string name = "buf" + std::to_string(i);
    const auto address_const = slot.address_const ? std::optional<std::uint32_t>(*slot.address_const) : std::nullopt;
    if (slot.uniform) {
      metadata.uniform_buffers.push_back({name, uniform_slots++, address_const});
    } else {
      metadata.storage_buffers.push_back({name, storage_slots++, address_const});
    }
    if (slot.address_const) max_const_vec4 = std::max(max_const_vec4, (*slot.address_const + 1) / 4);  // both dwords
  }
  metadata.early_preamble = launch.early_preamble;
  for (const auto& constant : launch.constants) {
    for (unsigned c = 0; c < 4; ++c) metadata.immediates.push_back({constant.regid + c, constant.values[c]});
    max_const_vec4 = std::max(max_const_vec4, (constant.regid + 3) / 4);
  }
  if (launch.num_work_groups_const) {
    // computerator (a6xx.cc, cs_const_emit) writes the grid's x, y, z at @numwg's vec4: the first
    // three of Mesa's compute driver params.
    const std::uint32_t regid = *launch.num_work_groups_const;
    if (regid % 4 != 0)
      throw Error(Errc::malformed, kOperation, fmt::format("@numwg(c{}.{}) must name the x component of a constant", regid / 4, "xyzw"[regid % 4]));
    metadata.driver_params = Ir3Metadata::DriverParams{regid, 3};
    max_const_vec4 = std::max(max_const_vec4, static_cast<int>(regid / 4));
  }
  metadata.constlen_vec4 = static_cast<std::uint32_t>(max_const_vec4 + 1);
  // @localmem as computerator takes it (the variant's shared_size). Code that reads or writes
  // local memory must declare it: the size cannot be told from the code, and without it Mesa's
  // computerator would program the smallest SHARED_SIZE, which the code may overrun.
  metadata.shared_bytes = launch.local_memory_bytes.value_or(0);
  if (info.uses_local_memory && metadata.shared_bytes == 0)
    throw Error(Errc::malformed, kOperation,
                launch.local_memory_bytes ? "the code reads or writes local memory (l[]) but @localmem declares 0 bytes"
                                          : "the code reads or writes local memory (l[]) but no @localmem declares its size");
  if (metadata.shared_bytes > program_limits::kMaxSharedBytes)
    throw Error(Errc::malformed, kOperation,
                fmt::format("@localmem {} exceeds the {} bytes of a work group", metadata.shared_bytes, program_limits::kMaxSharedBytes));
  // @branchstack N: SP_CS_CNTL_0 BRANCHSTACK takes ceil(min(N, 64) / 2) on a6xx (Mesa
  // ir3_shader_branchstack_hw, with ir3_compiler's branchstack_size 64). N is taken as declared,
  // checked only against the field's range (program limits): not against the code's branch
  // nesting, which Mesa's parser does not check either, and which the virtual GPU's per-lane
  // program counters (virt/gpu/wave.h) do not need.
  if (launch.branch_stack) metadata.branch_stack = (std::min<std::uint32_t>(*launch.branch_stack, 64) + 1) / 2;
  // @pvtmem N: private bytes per fiber, in the per-wave layout ir3 picks for compute on a6xx
  // (ir3_shader.c) unless an ldp/stp moves more than one dword.
  metadata.private_bytes_per_fiber = launch.private_memory_bytes.value_or(0);
  bool multi_dword_private = false, uses_private = false;
  for (const std::uint64_t word : assembled.words) {
    const std::optional<ir3::Instruction> in = decoded(word);
    if (!in || (in->opcode != ir3::Opcode::ldp && in->opcode != ir3::Opcode::stp)) continue;
    uses_private = true;
    multi_dword_private = multi_dword_private || in->mem.size > 1;
  }
  if (uses_private && metadata.private_bytes_per_fiber == 0)
    throw Error(Errc::malformed, kOperation, "the code reads or writes private memory (ldp/stp) but no @pvtmem declares its size");
  metadata.private_per_wave = !multi_dword_private;
  std::copy(launch.local_size.begin(), launch.local_size.end(), metadata.fixed_local_size);
  return metadata;
}

std::vector<std::uint32_t> ir3_code_dwords(const ir3::Program& assembled) {
  std::vector<std::uint32_t> code(assembled.words.size() * 2);
  std::memcpy(code.data(), assembled.words.data(), code.size() * sizeof(std::uint32_t));
  return code;
}

Program Program::from_ir3_assembly(Device& device, std::string_view source, bool legalize, RegisterMode registers) {
  // The device's instruction set: a7xx encodes some instructions differently (ir3/generation.h).
  const ir3::Generation gen =
      command_generation(device.info()) == pm4::kA7xx ? ir3::Generation::a7xx : ir3::Generation::a6xx;
  const ir3::Program assembled =
      ir3::assemble(source, registers == RegisterMode::merged ? ir3::RegisterFile::merged : ir3::RegisterFile::split,
                    legalize ? ir3::Scheduling::legalize : ir3::Scheduling::as_written, gen);
  Ir3Metadata metadata = ir3_metadata(assembled);
  // Program::from_ir3 loads whole 16-instruction groups: pad with nops as the compiler does.
  std::vector<std::uint32_t> code = ir3_code_dwords(assembled);
  code.resize(std::max<std::size_t>(code.size(), std::size_t{metadata.instrlen} * 32), 0);
  return from_ir3(device, code, metadata);
}

}  // namespace adreno
