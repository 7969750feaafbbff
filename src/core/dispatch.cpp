// Queue::dispatch: the a6xx/a7xx compute state and launch for one program. Every value is packed
// through the register database (pm4/a6xx_registers.h), whose fields reject out-of-range values;
// the registers that differ per generation come from its ComputeRegisters table, so one sequence
// serves both. a7xx follows computerator's cs_program_emit<A7XX> and a6xx_emit_grid<A7XX>, field
// by field (tests/dispatch/computerator_reference_test.cpp compares with its a740 submission).
//
// The sequence follows Mesa's computerator (src/freedreno/computerator/a6xx.cc: cs_program_emit,
// cs_const_emit, cs_ibo_emit, a6xx_emit_grid) and freedreno's fd6_compute.cc for CP_EXEC_CS, and
// tinygrad's QCOMComputeQueue.exec (tinygrad/runtime/ops_qcom.py) for CP_RUN_OPENCL. Deliberate
// differences from tinygrad, each justified where it is written:
//  * SP_CS_INSTR_SIZE and the shader load use the compiler's instrlen, not ceil(bytes / 128);
//  * SP_CS_CONST_CONFIG CONSTLEN is packed with its shift (tinygrad writes 256 unshifted, which
//    spills into ENABLED); SP_CS_PVT_MEM_* follow computerator's units;
//  * no CP_WAIT_FOR_IDLE before and no cache flush after a dispatch: independent dispatches may
//    overlap, Queue::barrier() orders dependent ones and Queue::signal() flushes;
//  * the wave size comes from the program (or the launch), not a hard-coded THREAD64;
//  * an ir3 program that reads the local size gets it as driver params in the constant file,
//    with WGSIZECONSTID left at r63.x as computerator does (tinygrad also puts the constant's
//    dword index into WGSIZECONSTID, which names a register, not a constant).
//
// What is packed when: the packets that depend only on the program (compute state per wave size,
// code and private memory) are recorded once at load (record_program_packets) with named fields
// and copied into each dispatch; per dispatch only the grid (fields resolved at compile time),
// the data addresses and the launch packet are packed — the stream is the same either way. A
// dispatch of the program whose state the command stream set last leaves the program packets
// out (CarriedProgramState in dispatch_encoder.h says why that is safe).
//
// Where the data lives: the constant file image and the descriptor tables of one dispatch are
// copied into GPU memory (the queue's UploadArea, or a graph's own memory) laid out as
// DispatchDataLayout says, and loaded with CP_LOAD_STATE6_FRAG (SS6_INDIRECT).
#include <adreno/error.hpp>
#include <adreno/queue.hpp>

#include "core/dispatch_encoder.h"
#include "core/queue_impl.h"
#include "core/same_device.h"
#include "core/sync_commands.h"
#include "pm4/a6xx_descriptors.h"
#include "pm4/a6xx_registers.h"
#include "pm4/packets.h"

#include <algorithm>
#include <cassert>
#include <cstring>

#include <fmt/format.h>

namespace adreno {
namespace {

namespace r = pm4::a6xx;
namespace d = pm4::a6xx_descriptors;
using pm4::raw;
constexpr const char* kOperation = "dispatch";

std::uint64_t align64(std::uint64_t value) { return (value + 63) & ~std::uint64_t{63}; }


// Every dispatch runs the checks that call this: the message is formatted out of line, in a cold
// function, so that a check costs a compare and a branch and not a stack frame for strings.
template <typename... Args>
[[noreturn, gnu::cold, gnu::noinline]] void invalid(fmt::format_string<Args...> format, Args&&... args) {
  throw Error(Errc::invalid_argument, kOperation, fmt::format(format, std::forward<Args>(args)...));
}

[[noreturn, gnu::cold, gnu::noinline]] void argument_not_set(const ProgramInfo& info, std::size_t index) {
  const std::string& name = info.arguments[index].name;
  invalid("argument {}{} of program '{}' is not set", index, name.empty() ? "" : " ('" + name + "')", info.name);
}

// A base group reaches a program only through its driver params (base_group_x..z of struct
// ir3_driver_params_cs): the hardware's work-group id does not include it (emit_grid). A program
// whose driver params do not cover an axis with a nonzero base would silently run from group 0.
[[gnu::cold, gnu::noinline]] void check_base_group_read(const ProgramInfo& info, const Launch& launch) {
  for (unsigned axis = 0; axis < 3; ++axis) {
    if (launch.base_group[axis] == 0) continue;
    const std::uint32_t wanted = dword_of(DriverParam::base_group_x) + axis;
    const bool read = std::any_of(info.driver_params.begin(), info.driver_params.end(), [&](const DriverParamRange& range) {
      return dword_of(range.first) <= wanted && wanted < dword_of(range.first) + range.count;
    });
    if (read) continue;
    throw Error(Errc::unsupported, kOperation,
                fmt::format("base_group.{} is {}, but program '{}' reads no base group on that axis ({}): it would run "
                            "from group 0; its driver params must cover base_group_{}",
                            "xyz"[axis], launch.base_group[axis], info.name,
                            info.launch == LaunchPacket::run_opencl ? "a Qualcomm OpenCL binary has no driver params"
                            : info.driver_params.empty()           ? "it has no driver params"
                                                                   : "its driver params stop short of it",
                            "xyz"[axis]));
  }
}

// The checks of validate_launch one by one, each with its message; returns when the launch
// passes them all (one with a base group does when the program reads it).
[[gnu::cold, gnu::noinline]] void check_launch(const ProgramInfo& info, const Launch& launch) {
  std::uint64_t invocations = 1;
  bool too_many = false;  // invocations overflowed: three 32-bit sizes may hold up to 2^96
  for (unsigned axis = 0; axis < 3; ++axis) {
    const char name = "xyz"[axis];
    const std::uint32_t local = launch.local_size[axis];
    if (local == 0) invalid("local_size.{} is 0", name);
    if (info.fixed_local_size[axis] != 0 && local != info.fixed_local_size[axis])
      invalid("local_size.{} is {}; program '{}' was compiled for {}", name, local, info.name,
              info.fixed_local_size[axis]);
    too_many |= __builtin_mul_overflow(invocations, std::uint64_t{local}, &invocations);
    if (launch.groups[axis] == 0) invalid("groups.{} is 0", name);
    if (std::uint64_t{launch.base_group[axis]} + launch.groups[axis] > 0xffffffffu)
      invalid("base_group.{} = {} + groups.{} = {} exceeds a 32-bit work-group id", name, launch.base_group[axis], name,
              launch.groups[axis]);
    // SP_CS_NDRANGE_{1,3,5} GLOBALSIZE holds local size × groups in 32 bits.
    if (std::uint64_t{local} * launch.groups[axis] > 0xffffffffu)
      invalid("groups.{} = {} × local_size.{} = {} exceeds the 32-bit global size", name, launch.groups[axis], name,
              local);
  }
  if ((launch.base_group[0] | launch.base_group[1] | launch.base_group[2]) != 0) [[unlikely]]
    check_base_group_read(info, launch);
  if (too_many || invocations > program_limits::kMaxInvocations)
    invalid("local_size {}×{}×{} = {:.0f} invocations exceeds {}", launch.local_size[0], launch.local_size[1],
            launch.local_size[2], static_cast<double>(launch.local_size[0]) * launch.local_size[1] * launch.local_size[2],
            program_limits::kMaxInvocations);
}

}  // namespace

void validate_launch(const ProgramInfo& info, const Launch& launch) {
  // Every dispatch passes here: the common launch is told apart by one branch over conditions
  // that together imply every check of check_launch, and anything else gets the checks one by
  // one, which throw naming the field or find the launch good after all (one with a base group
  // does when the program reads it). The conditions are bits or'ed together without a branch,
  // each axis's by a few instructions:
  //  * 1 ≤ local ≤ 1024 on every axis: local - 1 wraps from 0 in 32 bits, and an or of values
  //    below 2^10 stays below it (each is, exactly when the or is);
  //  * groups ≥ 1 and local × groups below 2^32 (the global size): in 64 bits groups - 1 wraps
  //    only from 0, and the product of two 32-bit values cannot overflow;
  //  * the compiled local size: (local ^ fixed) × fixed is 0 exactly when the program fixes no
  //    size (fixed 0) or the launch's equals it (two factors below 2^32: no wrap in 64 bits);
  //  * no base group (checked apart);
  //  * at most kMaxInvocations invocations: exact when every local size is at most 1024 (2^30
  //    at most), and flagged by the first condition otherwise.
  static_assert(program_limits::kMaxInvocations == 1u << 10);
  const std::uint32_t(&local)[3] = launch.local_size;
  const std::uint32_t(&groups)[3] = launch.groups;
  const std::uint32_t(&fixed)[3] = info.fixed_local_size;
  const auto wide = [](std::uint32_t value) { return std::uint64_t{value}; };
  std::uint64_t odd = ((local[0] - 1) | (local[1] - 1) | (local[2] - 1)) >> 10;
  odd |= ((wide(groups[0]) - 1) | (wide(groups[1]) - 1) | (wide(groups[2]) - 1) | wide(local[0]) * groups[0] |
          wide(local[1]) * groups[1] | wide(local[2]) * groups[2]) >>
         32;
  odd |= wide(local[0] ^ fixed[0]) * fixed[0] | wide(local[1] ^ fixed[1]) * fixed[1] | wide(local[2] ^ fixed[2]) * fixed[2];
  odd |= launch.base_group[0] | launch.base_group[1] | launch.base_group[2];
  odd |= static_cast<std::uint64_t>(wide(local[0]) * local[1] * local[2] > program_limits::kMaxInvocations);
  if (odd != 0) [[unlikely]] check_launch(info, launch);
}

namespace {

// CONSTLEN counts 4-vec4 units.
std::uint32_t constlen_units(const ProgramInfo& info) { return (info.constlen_vec4 + 3) & ~3u; }

pm4::ConstRamMode const_ram_mode(std::uint32_t constlen_vec4) {
  // Mesa computerator's choice: the smallest mode that holds constlen.
  if (constlen_vec4 > 192) return pm4::ConstRamMode::CONSTLEN_256;
  if (constlen_vec4 > 128) return pm4::ConstRamMode::CONSTLEN_192;
  return pm4::ConstRamMode::CONSTLEN_128;
}

std::uint32_t shared_size_field(std::uint32_t shared_bytes) {
  // SHARED_SIZE = max((bytes - 1) / 1024, 1), as computerator and tinygrad compute it.
  return shared_bytes <= 1024 ? 1 : std::max<std::uint32_t>((shared_bytes - 1) / 1024, 1);
}

}  // namespace

void validate_dispatch(const Device::Impl& device, const Program::Impl& program, const Arguments::Impl& arguments,
                       const Launch& launch, bool launch_validated) {
  const ProgramInfo& info = program.info();
  if (&arguments.program() != &program)
    invalid("the arguments belong to program '{}', not '{}'", arguments.program().info().name, info.name);
  if (&program.device() != &device) invalid("program '{}' was loaded on another device", info.name);
  if (!launch_validated) validate_launch(info, launch);
  if (!arguments.all_set()) [[unlikely]] argument_not_set(info, arguments.first_unset());
}

DispatchDataLayout dispatch_data_layout(const ProgramInfo& info) {
  DispatchDataLayout layout;
  layout.constlen = constlen_units(info);
  layout.textures_at = align64(std::uint64_t{layout.constlen} * 16);
  layout.images_at = layout.textures_at + align64(std::uint64_t{info.textures} * d::kTextureDwords * 4);
  layout.samplers_at = layout.images_at + align64(std::uint64_t{info.storage_images} * d::kTextureDwords * 4);
  layout.border_at = layout.samplers_at + align64(std::uint64_t{info.samplers} * d::kSamplerDwords * 4);
  layout.uniform_buffers_at = layout.border_at + (info.samplers != 0 ? d::kBorderColorBytes : 0);
  layout.bytes = layout.uniform_buffers_at + std::uint64_t{info.uniform_buffers} * d::kUboDwords * 4;
  return layout;
}

void write_driver_param_values(std::byte* constants, const ProgramInfo& info, const Launch& launch) {
  // The values of struct ir3_driver_params_cs (Mesa ir3_shader.h) as gallium's
  // ir3_build_driver_params_cs fills them for OpenCL-style launches, where the local size is the
  // launch's (Turnip writes 0 there: Vulkan compiles the local size in). work_dim is the kernel
  // dimension SP_CS_NDRANGE_0 is programmed with (emit_grid: always 3). The work-group id stays
  // 0 as in both drivers: a6xx delivers it in a register (WGIDCONSTID).
  const std::uint32_t subgroup = launch.wave_size.value_or(info.wave_size) == WaveSize::thread128 ? 128 : 64;
  std::uint32_t values[dword_of(DriverParam::count)] = {};
  const auto put3 = [&](DriverParam first, const std::uint32_t (&xyz)[3]) {
    std::copy(std::begin(xyz), std::end(xyz), values + dword_of(first));
  };
  put3(DriverParam::num_work_groups_x, launch.groups);
  values[dword_of(DriverParam::work_dim)] = 3;
  put3(DriverParam::base_group_x, launch.base_group);
  values[dword_of(DriverParam::subgroup_size)] = subgroup;
  put3(DriverParam::local_group_size_x, launch.local_size);
  values[dword_of(DriverParam::subgroup_id_shift)] = subgroup == 128 ? 7 : 6;  // log2(subgroup size)
  for (const DriverParamRange& range : info.driver_params)
    std::memcpy(constants + std::uint64_t{range.const_dword} * 4, values + dword_of(range.first), range.count * 4);
}

void write_dispatch_data(CpuView data, const Program::Impl& program, const Arguments::Impl& arguments, const Launch& launch) {
  // The arguments hold the whole image, gaps and padding zero: each byte is written once, and
  // only the driver params on top (upload memory is write-combined: no read, no second write).
  const std::span<const std::uint32_t> image = arguments.image();
  if (!image.empty()) std::memcpy(data.data(), image.data(), image.size_bytes());  // never from null
  write_driver_params(data.data(), program.info(), launch);
}

namespace {

// The compute state: everything but the grid, the code and the data. Depends only on the program
// and the wave size.
void emit_program_state(pm4::CommandStream& cs, const Program::Impl& prog, pm4::ThreadSize wave) {
  const ProgramInfo& info = prog.info();
  const GpuPart& part = prog.part();
  const r::ComputeRegisters& regs = r::compute_registers(part.gen);
  const bool a7xx = part.gen == pm4::kA7xx;
  const std::uint32_t constlen = constlen_units(info);
  const auto thread_size = raw(wave);
  const auto isam = raw(info.opencl_isa_mode ? pm4::IsamMode::ISAMMODE_CL : pm4::IsamMode::ISAMMODE_GL);

  pm4::set_marker(cs, pm4::Marker::RM6_COMPUTE);
  // Invalidate the cached compute state and IBOs so this program's state is loaded.
  pm4::write_register(cs, *regs.update_cntl, regs.update_cntl->pack({{"CS_STATE", 1}, {"CS_UAV", 1}}));
  // No constants shared between stages: Turnip writes HLSQ_SHARED_CONSTS with each compute
  // pipeline (tu_pipeline.cc tu6_emit_cs_config → tu6_emit_shared_consts_enable, on a6xx), enabled
  // only for shared push constants (IR3_PUSH_CONSTS_SHARED), which no program here has; SP_MODE_CNTL
  // SHARED_CONSTS_ENABLE stays 0 with it. a7xx has no HLSQ_SHARED_CONSTS: its SP_HLSQ_MODE_CNTL
  // is 0 in the per-chip block (raw_magic_regs), and computerator writes nothing more.
  if (!a7xx) pm4::write_register(cs, r::HLSQ_SHARED_CONSTS, {{"ENABLE", 0}});
  pm4::write_register(cs, r::SP_MODE_CNTL, {{"CONSTANT_DEMOTION_ENABLE", !info.opencl_isa_mode}, {"ISAMMODE", isam}});
  pm4::write_register(cs, r::TPL1_MODE_CNTL, {{"ISAMMODE", isam}});
  pm4::write_register(cs, r::SP_PERFCTR_SHADER_MASK, {{"CS", 1}});

  pm4::write_register(cs, *regs.const_config, regs.const_config->pack({{"CONSTLEN", constlen}, {"ENABLED", 1}}));
  pm4::write_register(cs, r::SP_CS_CONFIG,
                      {{"ENABLED", 1}, {"NTEX", info.textures}, {"NSAMP", info.samplers}, {"NUAV", info.storage_images}});
  pm4::write_register(cs, r::SP_CS_INSTR_SIZE, info.instrlen);
  pm4::write_register(cs, r::SP_CS_CNTL_0,
                      {{"THREADSIZE", thread_size},
                       {"HALFREGFOOTPRINT", info.half_regs_vec4},
                       {"FULLREGFOOTPRINT", info.full_regs_vec4},
                       {"BRANCHSTACK", info.branch_stack},
                       {"EARLYPREAMBLE", info.early_preamble},
                       {"MERGEDREGS", info.merged_regs}});
  if (a7xx) {
    // computerator cs_program_emit<A7XX>: the fragment wave size and the fragment system-value
    // registers set to "unused" (r63.x, 0xfc) but LINELENGTHREGID r0.x, as Mesa writes them.
    pm4::write_register(cs, r::SP_PS_WAVE_CNTL_A7XX, {{"THREADSIZE", raw(pm4::ThreadSize::THREAD64)}});
    const std::uint32_t unused4 = kUnusedRegid * 0x01010101u;
    pm4::write_register(cs, r::SP_REG_PROG_ID_0_A7XX, unused4);
    pm4::write_register(cs, r::SP_REG_PROG_ID_1_A7XX, unused4);
    pm4::write_register(cs, r::SP_REG_PROG_ID_2_A7XX, unused4);
    pm4::write_register(cs, r::SP_REG_PROG_ID_3_A7XX, {{"LINELENGTHREGID", 0}, {"FOVEATIONQUALITYREGID", kUnusedRegid}});
  }
  const auto ram_mode = raw(const_ram_mode(constlen));
  const std::uint32_t shared_size = shared_size_field(info.shared_bytes);
  pm4::write_register(cs, r::SP_CS_CNTL_1, {{"SHARED_SIZE", shared_size}, {"CONSTANTRAMMODE", ram_mode}});
  if (!a7xx && part.has_lpac)
    pm4::write_register(cs, r::HLSQ_CS_CTRL_REG1, {{"SHARED_SIZE", shared_size}, {"CONSTANTRAMMODE", ram_mode}});

  const std::uint64_t work_item_ids = regs.work_item_ids->pack({{"WGIDCONSTID", info.work_group_id_regid},
                                                                {"WGSIZECONSTID", info.work_group_size_regid},
                                                                {"WGOFFSETCONSTID", info.work_group_offset_regid},
                                                                {"LOCALIDREGID", info.local_id_regid}});
  pm4::write_register(cs, *regs.work_item_ids, work_item_ids);
  if (a7xx) {
    // SP_CS_WGE_CNTL moved and gained the work-group raster order, which depends on the local
    // size: emit_grid writes it. SP_CS_WIE_CNTL_1 has its own a7xx layout.
    pm4::write_register(cs, r::SP_CS_WIE_CNTL_1_A7XX,
                        {{"LINEARLOCALIDREGID", kUnusedRegid},
                         {"THREADSIZE", thread_size},
                         {"WORKITEMRASTORDER", raw(pm4::WorkitemRastOrder::WORKITEMRASTORDER_LINEAR)}});
    return;
  }
  const std::uint64_t wave_control = r::SP_CS_WGE_CNTL.pack({{"LINEARLOCALIDREGID", kUnusedRegid}, {"THREADSIZE", thread_size}});
  pm4::write_register(cs, r::SP_CS_WGE_CNTL, wave_control);
  if (part.has_lpac) {
    // LPAC parts read the same ids from the SP copies (computerator, has_lpac).
    pm4::write_register(cs, r::SP_CS_WIE_CNTL_0, work_item_ids);
    pm4::write_register(cs, r::SP_CS_WIE_CNTL_1, wave_control);
  }
}

// WGTILEHEIGHT of a7xx's SP_CS_WGE_CNTL for a local size of `local_y` rows, as computerator's
// cs_program_emit<A7XX> chooses it (WGTILEWIDTH is 4 there).
std::uint32_t work_group_tile_height(std::uint32_t local_y) {
  return local_y % 8 == 0 ? 3 : local_y % 4 == 0 ? 5 : local_y % 2 == 0 ? 9 : 17;
}

// The grid. CP_EXEC_CS carries the group counts and the kernel-group registers stay 1 (Mesa
// fd6_compute.cc, computerator); CP_RUN_OPENCL takes them from SP_CS_KERNEL_GROUP_* (tinygrad).
// Per dispatch, so its fields are constants the compiler folds. On a7xx the local size is
// repeated in SP_CS_NDRANGE_7 and the wave control goes here, as it depends on the local size.
//
// Written as runs of consecutive registers, one type-4 packet per run (a type-4 header names
// the first register and a count, adreno_pm4.xml): SP_CS_NDRANGE_0..6 and SP_CS_KERNEL_GROUP_X..Z
// on a6xx; on a7xx SP_CS_NDRANGE_0..6, SP_CS_WGE_CNTL, SP_CS_KERNEL_GROUP_X..Z and
// SP_CS_NDRANGE_7 are one run of twelve (a6xx.xml offsets 0xa9d4..0xa9df). The registers get
// the same values as written one by one: 13 dwords instead of 24 on a7xx, 12 instead of 20 on
// a6xx.
void emit_grid(pm4::PacketWriter& out, const GpuPart& part, bool exec_cs, const Launch& launch, pm4::ThreadSize wave) {
  static constexpr const pm4::Field& kKernelDim = r::SP_CS_NDRANGE_0.field("KERNELDIM");
  static constexpr const pm4::Field& kLocalSizeX = r::SP_CS_NDRANGE_0.field("LOCALSIZEX");
  static constexpr const pm4::Field& kLocalSizeY = r::SP_CS_NDRANGE_0.field("LOCALSIZEY");
  static constexpr const pm4::Field& kLocalSizeZ = r::SP_CS_NDRANGE_0.field("LOCALSIZEZ");
  // validate_launch keeps each local size - 1 below kMaxInvocations, which the fields hold: no
  // pack() check per dispatch.
  static_assert(kLocalSizeX.shr == 0 && kLocalSizeY.shr == 0 && kLocalSizeZ.shr == 0 &&
                std::min({kLocalSizeX.max_value(), kLocalSizeY.max_value(), kLocalSizeZ.max_value()}) >=
                    program_limits::kMaxInvocations - 1);
  assert(kLocalSizeX.fits(launch.local_size[0] - 1) && kLocalSizeY.fits(launch.local_size[1] - 1) &&
         kLocalSizeZ.fits(launch.local_size[2] - 1));
  const std::uint32_t local_size = ((launch.local_size[0] - 1) << kLocalSizeX.low) |
                                   ((launch.local_size[1] - 1) << kLocalSizeY.low) | ((launch.local_size[2] - 1) << kLocalSizeZ.low);
  const auto ndrange0 = static_cast<std::uint32_t>(kKernelDim.pack(3)) | local_size;
  // GLOBALSIZE: local size × groups, in 32 bits (validate_launch refuses more).
  const auto global_size = [&](unsigned i) { return launch.local_size[i] * launch.groups[i]; };
  // GLOBALOFF stays 0 and the base group goes to the program as driver params instead, as
  // Turnip does for vkCmdDispatchBase (tu_cmd_buffer.cc tu_dispatch: GLOBALOFF_X/Y/Z 0, the base
  // in the IR3_DP_CS(base_group_x..z) driver params) and gallium's fd6_compute.cc (GLOBALOFF
  // 0): ir3 adds the base to the work-group id itself (nir's load_base_workgroup_id), so an
  // offset here as well would count it twice. validate_launch refuses a base group a program
  // does not read.
  constexpr std::uint32_t kGlobalOffset = 0;
  const auto kernel_group = [&](unsigned i) { return exec_cs ? 1u : launch.groups[i]; };
  if (part.gen == pm4::kA7xx) {
    static constexpr const pm4::Register& kWge = r::SP_CS_WGE_CNTL_A7XX;
    // SP_CS_NDRANGE_7 has SP_CS_NDRANGE_0's local-size fields at the same bits (a6xx.xml).
    static_assert(r::SP_CS_NDRANGE_7_A7XX.field("LOCALSIZEX").low == kLocalSizeX.low &&
                  r::SP_CS_NDRANGE_7_A7XX.field("LOCALSIZEZ").high == kLocalSizeZ.high);
    static_assert(r::SP_CS_NDRANGE_6_A7XX.offset == r::SP_CS_NDRANGE_0_A7XX.offset + 6 &&
                  kWge.offset == r::SP_CS_NDRANGE_0_A7XX.offset + 7 &&
                  r::SP_CS_KERNEL_GROUP_X_A7XX.offset == r::SP_CS_NDRANGE_0_A7XX.offset + 8 &&
                  r::SP_CS_KERNEL_GROUP_Z_A7XX.offset == r::SP_CS_NDRANGE_0_A7XX.offset + 10 &&
                  r::SP_CS_NDRANGE_7_A7XX.offset == r::SP_CS_NDRANGE_0_A7XX.offset + 11);
    const auto wave_control = static_cast<std::uint32_t>(
        kWge.field("LINEARLOCALIDREGID").pack(kUnusedRegid) | kWge.field("THREADSIZE").pack(raw(wave)) |
        kWge.field("WORKGROUPRASTORDERZFIRSTEN").pack(1) | kWge.field("WGTILEWIDTH").pack(4) |
        kWge.field("WGTILEHEIGHT").pack(work_group_tile_height(launch.local_size[1])));
    out.write_registers(r::SP_CS_NDRANGE_0_A7XX.offset, ndrange0, global_size(0), kGlobalOffset, global_size(1), kGlobalOffset,
                        global_size(2), kGlobalOffset, wave_control, kernel_group(0), kernel_group(1), kernel_group(2),
                        local_size);
    return;
  }
  static_assert(r::SP_CS_NDRANGE_6.offset == r::SP_CS_NDRANGE_0.offset + 6 &&
                r::SP_CS_KERNEL_GROUP_Z.offset == r::SP_CS_KERNEL_GROUP_X.offset + 2);
  out.write_registers(r::SP_CS_NDRANGE_0.offset, ndrange0, global_size(0), kGlobalOffset, global_size(1), kGlobalOffset,
                      global_size(2), kGlobalOffset);
  out.write_registers(r::SP_CS_KERNEL_GROUP_X.offset, kernel_group(0), kernel_group(1), kernel_group(2));
}

// Where the code is and the private memory it uses.
void emit_program_code(pm4::CommandStream& cs, const Program::Impl& prog) {
  const ProgramInfo& info = prog.info();
  const GpuAddress code = prog.code()->allocation().gpu;
  pm4::write_register(cs, r::SP_CS_PROGRAM_COUNTER_OFFSET, info.entry_offset);
  pm4::write_register(cs, r::SP_CS_BASE, code.value());
  const GpuAddress private_base = prog.private_memory() ? prog.private_memory()->allocation().gpu : GpuAddress();
  pm4::write_register(cs, r::SP_CS_PVT_MEM_PARAM, {{"MEMSIZEPERITEM", prog.private_bytes_per_fiber()}});
  pm4::write_register(cs, r::SP_CS_PVT_MEM_BASE, private_base.value());
  pm4::write_register(cs, r::SP_CS_PVT_MEM_SIZE,
                      {{"TOTALPVTMEMSIZE", prog.private_bytes_per_sp()},
                       {"PERWAVEMEMLAYOUT", prog.private_memory() && info.private_per_wave}});
  pm4::write_register(cs, r::SP_CS_PVT_MEM_STACK_OFFSET, {{"OFFSET", prog.private_bytes_per_sp()}});
  // A program longer than the instruction cache: the preload stops at the cache size (Turnip
  // tu6_emit_xs_constants, freedreno fd6_program.cc: MIN2(instrlen, instr_cache_size); preloading
  // more hangs the GPU), and SP_PS_INSTR_SIZE gets the CS length too, rolled in with a
  // DEBUG_LABEL event: the hardware bounds-checks cache-miss fetches against the PS length of
  // the other register context (Turnip tu_dispatch and fd6_compute.cc, Mesa MR 19023).
  const GpuPart& part = prog.part();
  if (info.instrlen > part.instr_cache_size) {
    pm4::write_register(cs, r::SP_PS_INSTR_SIZE, info.instrlen);
    pm4::event(cs, part.gen, pm4::EventType::DEBUG_LABEL);
  }
  pm4::load_state6_frag(cs, {pm4::StateType::ST6_SHADER, pm4::StateBlock::SB6_CS_SHADER, 0,
                             std::min(info.instrlen, part.instr_cache_size)},
                        code);
}

// Host memory to record a program's packets in, once; CommandStream writes through a ChunkSource.
class HostChunk final : public pm4::ChunkSource {
 public:
  static constexpr std::uint32_t kDwords = 1024;  // a program's packets take well under 100
  static constexpr std::uint64_t kAddress = 0x1000;  // nominal: nothing here reads GPU addresses

  pm4::Chunk acquire(std::uint32_t min_dwords) override {
    if (!dwords_.empty() || min_dwords > kDwords)
      throw Error(Errc::invalid_argument, "record program packets", "the packets outgrew their host chunk");
    dwords_.resize(kDwords);
    return pm4::Chunk{CpuView(dwords_.data(), dwords_.size() * 4), GpuAddress(kAddress), kDwords, 0};
  }
  std::vector<std::uint32_t> take(const pm4::CommandStream& cs) {
    const auto count = static_cast<std::size_t>((cs.gpu_address_here() - GpuAddress(kAddress)) / 4);
    return std::vector<std::uint32_t>(dwords_.begin(), dwords_.begin() + static_cast<std::ptrdiff_t>(count));
  }

 private:
  std::vector<std::uint32_t> dwords_;
};

template <typename Emit>
std::vector<std::uint32_t> record_on_host(Emit&& emit) {
  HostChunk chunk;
  pm4::CommandStream cs(chunk);
  emit(cs);
  return chunk.take(cs);
}

}  // namespace

ProgramPackets record_program_packets(const Program::Impl& prog) {
  ProgramPackets packets;
  packets.state[0] = record_on_host([&](pm4::CommandStream& cs) { emit_program_state(cs, prog, pm4::ThreadSize::THREAD64); });
  packets.state[1] = record_on_host([&](pm4::CommandStream& cs) { emit_program_state(cs, prog, pm4::ThreadSize::THREAD128); });
  packets.code = record_on_host([&](pm4::CommandStream& cs) { emit_program_code(cs, prog); });
  return packets;
}

namespace {

// The packets of one dispatch. Their length depends on the program, the layout and whether the
// program state is carried only (both wave sizes' state packets write the same registers), so a
// graph can rewrite them in place.
void write_dispatch(pm4::PacketWriter& out, const Program::Impl& prog, const DispatchDataLayout& layout, GpuAddress data,
                    const Launch& launch, bool wave128, bool state_carried, const IndirectCounts* indirect = nullptr) {
  const ProgramInfo& info = prog.info();
  const bool exec_cs = info.launch == LaunchPacket::exec_cs;
  const ProgramPackets& packets = prog.packets();
  if (!state_carried) out.append(packets.state[wave128 ? 1 : 0]);
  emit_grid(out, prog.part(), exec_cs, launch, wave128 ? pm4::ThreadSize::THREAD128 : pm4::ThreadSize::THREAD64);
  if (!state_carried) out.append(packets.code);

  // Constants and descriptors.
  const std::uint32_t constlen = layout.constlen;
  if (constlen != 0)
    pm4::load_state6_frag(out, {pm4::StateType::ST6_CONSTANTS, pm4::StateBlock::SB6_CS_SHADER, 0, constlen}, data);
  if (info.textures != 0) {
    pm4::load_state6_frag(out, {pm4::StateType::ST6_CONSTANTS, pm4::StateBlock::SB6_CS_TEX, 0, info.textures},
                          data + layout.textures_at);
    pm4::write_register(out, r::SP_CS_TEXMEMOBJ_BASE, (data + layout.textures_at).value());
    // The texture count next to the descriptors, as freedreno's fd6_texture.cc writes it; a
    // program's own count, carried with its state.
    if (!state_carried) pm4::write_register(out, r::SP_CS_TSIZE, info.textures);
  }
  if (info.samplers != 0) {
    pm4::load_state6_frag(out, {pm4::StateType::ST6_SHADER, pm4::StateBlock::SB6_CS_TEX, 0, info.samplers},
                          data + layout.samplers_at);
    pm4::write_register(out, r::SP_CS_SAMPLER_BASE, (data + layout.samplers_at).value());
    pm4::write_register(out, r::TPL1_CS_BORDER_COLOR_BASE, (data + layout.border_at).value());
  }
  if (info.storage_images != 0) {
    pm4::load_state6_frag(out, {pm4::StateType::ST6_UAV, pm4::StateBlock::SB6_CS_SHADER, 0, info.storage_images},
                          data + layout.images_at);
    pm4::write_register(out, *r::compute_registers(prog.part().gen).uav_base, (data + layout.images_at).value());
  }
  if (!state_carried) pm4::write_register(out, r::SP_CS_USIZE, info.storage_images);
  // The UBO descriptors, slot i at DST_OFF i, as computerator's cs_ubo_emit and freedreno's
  // fd6_emit_ubos load them (there inline, SS6_DIRECT; here from the dispatch data like the other
  // descriptors, so a graph patches them in place).
  if (info.uniform_buffers != 0)
    pm4::load_state6_frag(out, {pm4::StateType::ST6_UBO, pm4::StateBlock::SB6_CS_SHADER, 0, info.uniform_buffers},
                          data + layout.uniform_buffers_at);

  if (indirect != nullptr && indirect->count_params.value() != 0)
    pm4::load_state6_frag(out, {pm4::StateType::ST6_CONSTANTS, pm4::StateBlock::SB6_CS_SHADER, indirect->count_params_vec4, 1},
                          indirect->count_params);
  if (indirect != nullptr)
    pm4::exec_cs_indirect(out, indirect->groups, launch.local_size);
  else if (exec_cs)
    pm4::exec_cs(out, launch.groups[0], launch.groups[1], launch.groups[2]);
  else
    pm4::run_opencl(out);
}

}  // namespace

void CarriedProgramState::set(const std::shared_ptr<const Program::Impl>& program, bool wave128) {
  if (program->info().instrlen > program->part().instr_cache_size) {
    program_.reset();  // its code packets hold a per-launch workaround (see the class comment)
    return;
  }
  program_ = program;
  wave128_ = wave128;
}

void CarriedProgramState::encode_repeat(const DispatchDataLayout& layout) {
  // The packets are encoded twice, for data at 0 and at kProbe: the dwords that differ are where
  // the data addresses are. Each must be a 64-bit address, low dword first, at an offset into the
  // data that the dwords at 0 hold; anything else could not be copied with the address put in.
  constexpr std::uint64_t kProbe = 0x0000'0123'4567'8000;  // changes every dword of an address
  std::array<std::uint32_t, kMaxDispatchDwords> at_probe;
  pm4::PacketWriter zero_out(repeat_.packets.data(), repeat_.packets.data() + repeat_.packets.size());
  pm4::PacketWriter probe_out(at_probe.data(), at_probe.data() + at_probe.size());
  write_dispatch(zero_out, *program_, layout, GpuAddress(), launch_, wave128_, true);
  write_dispatch(probe_out, *program_, layout, GpuAddress(kProbe), launch_, wave128_, true);
  const auto dwords = static_cast<std::uint32_t>(zero_out.cursor() - repeat_.packets.data());
  assert(probe_out.cursor() - at_probe.data() == dwords && "the data address changed a dispatch's length");
  const auto address_at = [&](const std::array<std::uint32_t, kMaxDispatchDwords>& packets, std::uint32_t at) {
    return packets[at] | std::uint64_t{packets[at + 1]} << 32;
  };
  std::uint32_t slots = 0;
  for (std::uint32_t at = 0; at < dwords; ++at) {
    if (repeat_.packets[at] == at_probe[at]) continue;
    const bool address = at + 1 < dwords && address_at(repeat_.packets, at) + kProbe == address_at(at_probe, at);
    if (!address || address_at(repeat_.packets, at) > 0xffffffffu || slots == kMaxAddressSlots)
      throw Error(Errc::unsupported, kOperation,
                  fmt::format("dword {} of a dispatch of program '{}' holds its data address other than as a 64-bit address: "
                              "the dispatch cannot be repeated as a copy",
                              at, program_->info().name));
    repeat_.addresses[slots++] = AddressSlot{at, static_cast<std::uint32_t>(address_at(repeat_.packets, at))};
    ++at;  // the high dword
  }
  repeat_.address_count = slots;
  repeat_.dwords = dwords;
}

bool runs_wave128(const ProgramInfo& info, const Launch& launch) {
  return launch.wave_size.value_or(info.wave_size) == WaveSize::thread128;
}

namespace {

// emit_dispatch for a caller that asked `carried` already whether it carries the program's
// state for this launch's wave size.
EmittedDispatch emit_dispatch(pm4::CommandStream& cs, const std::shared_ptr<const Program::Impl>& program,
                              const DispatchDataLayout& layout, GpuAddress data, const Launch& launch, bool wave128,
                              bool state_carried, CarriedProgramState& carried, const IndirectCounts* indirect) {
  constexpr std::uint32_t kMaxDispatchDwords = CarriedProgramState::kMaxDispatchDwords;
  const Program::Impl& prog = *program;
  const ProgramPackets& packets = prog.packets();
  const std::uint32_t state_dwords = state_carried ? 0 : static_cast<std::uint32_t>(packets.state[0].size() + packets.code.size());
  // One room check for the whole dispatch; a dispatch that throws midway leaves nothing behind.
  pm4::PacketWriter out = cs.reserve_packets(state_dwords + kMaxDispatchDwords);
  std::uint32_t* const start = out.cursor();
  write_dispatch(out, prog, layout, data, launch, wave128, state_carried, indirect);
  cs.commit(out);
  if (!state_carried) carried.set(program, wave128);
  carried.note_launch(launch);
  return {{start, out.cursor()}, state_carried};
}

}  // namespace

EmittedDispatch emit_dispatch(pm4::CommandStream& cs, const std::shared_ptr<const Program::Impl>& program,
                              const DispatchDataLayout& layout, GpuAddress data, const Launch& launch,
                              CarriedProgramState& carried, const IndirectCounts* indirect) {
  const bool wave128 = runs_wave128(program->info(), launch);
  return emit_dispatch(cs, program, layout, data, launch, wave128, carried.carries(*program, wave128), carried, indirect);
}

void rewrite_dispatch(const EmittedDispatch& emitted, const Program::Impl& prog, const DispatchDataLayout& layout,
                      GpuAddress data, const Launch& launch) {
  pm4::PacketWriter out(emitted.packets.data(), emitted.packets.data() + emitted.packets.size());
  write_dispatch(out, prog, layout, data, launch, runs_wave128(prog.info(), launch), emitted.state_carried);
  assert(out.cursor() == emitted.packets.data() + emitted.packets.size() && "a rewritten dispatch changed length");
}

namespace {

// Copies the constants and descriptors through the upload area's CPU view, and references every
// buffer object the stream reaches, for the kernel's BO table and use tracking. The code and
// private memory of a program whose state the recording carries were referenced by the dispatch
// that set it: the queue forgets the carried program when it drops its references, at submit.
// Returns where the data is (laid out as prog.data_layout() says).
GpuAddress stage_dispatch(Queue::Impl& queue, const Program::Impl& prog, const Arguments::Impl& args, const Launch& launch,
                          bool state_carried) {
  const UploadArea::Space space = queue.uploads().allocate(queue, prog.data_layout().bytes);
  write_dispatch_data(space.cpu, prog, args, launch);
  if (!state_carried) {
    queue.reference(prog.code(), false);
    if (prog.private_memory()) queue.reference(prog.private_memory(), true);
  }
  queue.reference_bindings(args);
  return space.gpu;
}

// Whether a dispatch of `prog` with `launch` runs 128-wide waves and finds its state carried.
struct CarriedQuery {
  bool wave128;
  bool state_carried;
};
CarriedQuery query_carried(Queue::Impl& queue, const Program::Impl& prog, const Launch& launch) {
  const bool wave128 = runs_wave128(prog.info(), launch);
  return {wave128, queue.carried_program_state().carries(prog, wave128)};
}

// The timeline's name for a dispatch: the program and its grid (groups × local size).
[[gnu::cold, gnu::noinline]] std::string span_name(const ProgramInfo& info, const Launch& launch) {
  return fmt::format("{} {}x{}x{} groups of {}x{}x{}", info.name, launch.groups[0], launch.groups[1], launch.groups[2],
                     launch.local_size[0], launch.local_size[1], launch.local_size[2]);
}

// Appends the packets `emit` writes to `cs`, the queue's stream, for a dispatch of `prog` with
// `launch`, between the timeline's GPU counter reads when the device traces.
template <typename Emit>
[[gnu::always_inline]] inline void record_dispatch(Queue::Impl& queue, pm4::CommandStream& cs, const Program::Impl& prog,
                                                   const Launch& launch, Emit&& emit) {
  const bool traced = queue.trace() != nullptr;
  if (traced) [[unlikely]] queue.begin_gpu_span(cs);
  emit(cs);
  if (traced) [[unlikely]] queue.end_gpu_span(cs, span_name(prog.info(), launch));
}

// Queue::dispatch of a launch that is not the latest one of the carried program: every check,
// and the packets encoded. Out of line, so that the repeat's path keeps its registers.
[[gnu::flatten, gnu::noinline]] void dispatch_anew(Queue::Impl& queue, const std::shared_ptr<const Program::Impl>& program,
                                                    const Arguments::Impl& args, const Launch& launch) {
  const Program::Impl& prog = *program;
  validate_dispatch(queue.device(), prog, args, launch);
  const CarriedQuery query = query_carried(queue, prog, launch);
  const GpuAddress data = stage_dispatch(queue, prog, args, launch, query.state_carried);
  record_dispatch(queue, queue.stream(), prog, launch, [&](pm4::CommandStream& cs) {
    emit_dispatch(cs, program, prog.data_layout(), data, launch, query.wave128, query.state_carried,
                  queue.carried_program_state(), nullptr);
  });
}

}  // namespace

// Flattened: the checks, the staging and the packets in one frame, without the calls between
// them (the cold paths stay out of line).
[[gnu::flatten]] void Queue::dispatch(const Program& program, const Arguments& arguments, const Launch& launch) {
  impl_->check_not_lost();
  const Program::Impl& prog = *program.impl();
  const Arguments::Impl& args = arguments.impl();
  CarriedProgramState& carried = impl_->carried_program_state();
  // A queue dispatching one program again and again mostly repeats its launch as well: then the
  // launch was validated for the program, its state is carried, and the packets are a copy with
  // the data address put in (CarriedProgramState::emit_repeat, whose packets hold the wave size).
  if (!carried.repeats(prog, launch)) [[unlikely]] {
    dispatch_anew(*impl_, program.impl(), args, launch);
    return;
  }
  validate_dispatch(impl_->device(), prog, args, launch, true);
  const GpuAddress data = stage_dispatch(*impl_, prog, args, launch, true);
  record_dispatch(*impl_, impl_->carrying_stream(), prog, launch,
                  [&](pm4::CommandStream& cs) { carried.emit_repeat(cs, prog.data_layout(), data); });
}

Launch indirect_launch(const IndirectLaunch& shape) {
  Launch launch;
  std::copy(std::begin(shape.local_size), std::end(shape.local_size), launch.local_size);
  launch.wave_size = shape.wave_size;
  return launch;
}

void validate_indirect(const ProgramInfo& info, const BufferView& groups, const char* operation) {
  if (info.launch != LaunchPacket::exec_cs)
    throw Error(Errc::unsupported, operation,
                fmt::format("program '{}' is a Qualcomm OpenCL binary: CP_RUN_OPENCL reads no group counts from memory", info.name));
  const GpuAddress counts = groups.gpu_address();
  if (groups.size() < 12 || counts.value() % 4 != 0)
    throw Error(Errc::invalid_argument, operation,
                fmt::format("groups: a view of {} bytes at {:#x}; three 4-byte-aligned uint32 counts are needed", groups.size(),
                            counts.value()));
}

IndirectCounts emit_indirect_count_params(pm4::CommandStream& cs, pm4::Gen gen, const ProgramInfo& info, GpuAddress groups,
                                          GpuAddress data, GpuAddress params) {
  IndirectCounts indirect{groups, GpuAddress(), 0};
  // The counts the program reads as driver params come from the same memory, as in Turnip's
  // tu_emit_compute_driver_params: after a wait for earlier users, the CP copies x, y, z
  // (CP_MEM_TO_MEM) into `params`, next to the fourth dword of that constant vec4 as this
  // dispatch's constants have it, waits for those writes, invalidates UCHE and waits for idle,
  // and loads the vec4 from there over the constants. The load reads through UCHE, where an
  // earlier load of the same `params` (an earlier indirect dispatch of the submission) may have
  // left the old counts: the CP's copy bypasses it.
  // Driver-param blocks start on a vec4 (Mesa's allocation; @numwg is refused off .x).
  for (const DriverParamRange& range : info.driver_params) {
    if (range.first != DriverParam::num_work_groups_x) continue;
    pm4::wait_for_idle(cs);
    for (std::uint32_t k = 0; k < 4; ++k) {
      const GpuAddress source[] = {k < 3 ? groups + 4 * k : data + (std::uint64_t{range.const_dword} + 3) * 4};
      pm4::mem_to_mem(cs, params + 4 * k, source);
    }
    pm4::wait_mem_writes(cs);
    emit_invalidate(cs, gen);
    indirect.count_params = params;
    indirect.count_params_vec4 = range.const_dword / 4;
  }
  return indirect;
}

void Queue::dispatch_indirect(const Program& program, const Arguments& arguments, const BufferView& groups,
                              const IndirectLaunch& shape) {
  impl_->check_not_lost();
  const Program::Impl& prog = *program.impl();
  const Arguments::Impl& args = arguments.impl();
  const Launch launch = indirect_launch(shape);
  validate_dispatch(impl_->device(), prog, args, launch);
  require_same_device(impl_->device(), groups, "dispatch indirect", "groups");
  validate_indirect(prog.info(), groups, "dispatch indirect");

  const CarriedQuery carried = query_carried(*impl_, prog, launch);
  const GpuAddress data = stage_dispatch(*impl_, prog, args, launch, carried.state_carried);
  impl_->reference(groups.buffer()->block_shared(), false);

  pm4::CommandStream& cs = impl_->stream();
  const bool traced = impl_->trace() != nullptr;
  if (traced) [[unlikely]] impl_->begin_gpu_span(cs);
  const IndirectCounts indirect = emit_indirect_count_params(cs, impl_->generation(), prog.info(), groups.gpu_address(), data,
                                                             impl_->scratch() + kIndirectParamsOffset);
  emit_dispatch(cs, program.impl(), prog.data_layout(), data, launch, carried.wave128, carried.state_carried,
                impl_->carried_program_state(), &indirect);
  if (traced) [[unlikely]]
    impl_->end_gpu_span(cs, fmt::format("{} indirect groups of {}x{}x{}", prog.info().name, launch.local_size[0],
                                        launch.local_size[1], launch.local_size[2]));
}

}  // namespace adreno
