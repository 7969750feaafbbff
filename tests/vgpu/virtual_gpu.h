// A virtual GPU for shader-processor tests: one address space, a command processor, and a
// launcher that programs a compute dispatch the way Mesa's computerator (a6xx.cc cs_program_emit
// / emit_grid), Turnip (tu6_emit_cs_config) and tinygrad (ops_qcom.py exec) do, with the pm4
// builders and register database. The CP sees only the PM4 bytes this writes.
#pragma once

#include "core/sync_commands.h"
#include "ir3/assembler.h"
#include "pm4/a6xx_registers.h"
#include "pm4/command_stream.h"
#include "pm4/packets.h"
#include "virt/gpu/command_processor.h"

#include <array>
#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace vgpu_test {

using namespace adreno;
namespace a6xx = pm4::a6xx;

/// A 64-bit address as the two constant dwords (low, high) a program reads it from.
inline std::array<std::uint32_t, 2> split(std::uint64_t v) { return {static_cast<std::uint32_t>(v), static_cast<std::uint32_t>(v >> 32)}; }

/// What a dispatch needs besides the code; register values follow the program's metadata.
struct Launch {
  std::array<std::uint32_t, 3> local_size{1, 1, 1};
  std::array<std::uint32_t, 3> groups{1, 1, 1};
  pm4::ThreadSize thread_size = pm4::ThreadSize::THREAD64;
  std::uint32_t full_footprint = 0, half_footprint = 0;
  bool merged_registers = false;
  std::uint16_t local_id_regid = 0xfc, work_group_id_regid = 0xfc;
  std::uint16_t work_group_size_regid = 0xfc, work_group_offset_regid = 0xfc, linear_local_id_regid = 0xfc;
  std::uint32_t entry_offset = 0;  ///< SP_CS_PROGRAM_COUNTER_OFFSET, bytes
  bool run_opencl = false;         ///< CP_RUN_OPENCL instead of CP_EXEC_CS
  std::uint32_t instr_size = 0;             ///< SP_CS_INSTR_SIZE, 128-byte groups
  std::vector<std::uint32_t> constants;     ///< loaded at c0.x, padded to whole vec4s
  std::uint32_t constlen = 0;               ///< SP_CS_CONST_CONFIG CONSTLEN when more than the loaded vec4s
  std::uint32_t shared_size_field = 1;      ///< SP_CS_CNTL_1 SHARED_SIZE
  std::uint32_t private_bytes = 0;          ///< SP_CS_PVT_MEM_PARAM MEMSIZEPERITEM (private memory at kPrivate)
  std::vector<std::uint32_t> uavs;          ///< IBO descriptors, 16 dwords each (ST6_UAV)
  std::vector<std::uint32_t> textures;      ///< texture descriptors, 16 dwords each (SB6_CS_TEX)
  std::vector<std::uint32_t> ubos;          ///< UBO descriptors, 2 dwords each (ST6_UBO)
  bool early_preamble = false;              ///< SP_CS_CNTL_0 EARLYPREAMBLE
};

class VirtualGpu {
 public:
  static constexpr std::uint64_t kSize = 32ull << 20;
  static constexpr std::uint64_t kCommands = 0, kCode = 1 << 20, kConstants = 2 << 20, kDescriptors = 3 << 20,
                                   kPrivate = 3 << 20 | 1 << 19, kData = 4 << 20;

  explicit VirtualGpu(std::uint64_t va_start = 0x100000000ull, std::chrono::milliseconds hang_timeout = std::chrono::seconds(20))
      : VirtualGpu(pm4::kA6xx, virt::ExecutionModel::from_environment(), va_start, hang_timeout) {}
  /// A GPU of generation `gen` (its registers and instruction set) running streams as `model` says.
  VirtualGpu(pm4::Gen gen, virt::ExecutionModel model, std::uint64_t va_start = 0x100000000ull,
             std::chrono::milliseconds hang_timeout = std::chrono::seconds(20))
      : gen_(gen),
        memory_(std::make_shared<virt::GpuMemory>(va_start, 1ull << 34)),
        backing_(virt::Backing::create(kSize)),
        va_(*memory_->map(backing_, 0, kSize, true)),
        cp_(*memory_, hang_timeout, stop_, 0, std::move(model), gen == pm4::kA7xx ? ir3::Generation::a7xx : ir3::Generation::a6xx) {}

  std::shared_ptr<virt::GpuMemory> memory() const { return memory_; }
  std::uint64_t va(std::uint64_t offset) const { return va_ + offset; }
  std::byte* host(std::uint64_t offset) const { return backing_->host() + offset; }

  template <typename T>
  void put(std::uint64_t offset, const std::vector<T>& values) {
    std::memcpy(host(offset), values.data(), values.size() * sizeof(T));
  }
  template <typename T>
  std::vector<T> get(std::uint64_t offset, std::size_t count) const {
    std::vector<T> out(count);
    std::memcpy(out.data(), host(offset), count * sizeof(T));
    return out;
  }

  /// Writes the dispatch's PM4 (code at kCode, constants at kConstants), then what `after`
  /// records, and returns the IB.
  template <typename After>
  virt::IbSpan record(std::span<const std::uint64_t> code, const Launch& launch, After&& after) {
    std::memcpy(host(kCode), code.data(), code.size_bytes());
    std::vector<std::uint32_t> constants = launch.constants;
    constants.resize((constants.size() + 3) / 4 * 4);
    if (!constants.empty()) std::memcpy(host(kConstants), constants.data(), constants.size() * 4);

    Chunks chunks(*this);
    pm4::CommandStream cs(chunks);
    // The host wrote the code, constants and descriptors, maybe over what an earlier stream on
    // this GPU loaded into UCHE: like the library's prologue (Turnip's tu6_init_hw), the stream
    // invalidates it first, since nothing does between one context's submissions (uche.h).
    emit_invalidate(cs, gen_);
    using pm4::write_register;
    const a6xx::ComputeRegisters& compute = a6xx::compute_registers(gen_);
    const std::uint32_t instr_size = launch.instr_size ? launch.instr_size : static_cast<std::uint32_t>((code.size() + 15) / 16);
    const auto constlen = std::max(launch.constlen, static_cast<std::uint32_t>((constants.size() / 4 + 3) / 4 * 4));
    write_register(cs, *compute.update_cntl, {{"CS_STATE", 1}, {"CS_UAV", 1}});
    write_register(cs, *compute.update_cntl, 0);
    write_register(cs, a6xx::SP_CS_CNTL_0,
                   {{"THREADSIZE", pm4::raw(launch.thread_size)},
                    {"HALFREGFOOTPRINT", launch.half_footprint},
                    {"FULLREGFOOTPRINT", launch.full_footprint},
                    {"EARLYPREAMBLE", launch.early_preamble},
                    {"MERGEDREGS", launch.merged_registers}});
    write_register(cs, a6xx::SP_CS_CNTL_1, {{"SHARED_SIZE", launch.shared_size_field}});
    const auto nuav = static_cast<std::uint32_t>(launch.uavs.size() / 16);
    const auto ntex = static_cast<std::uint32_t>(launch.textures.size() / 16);
    write_register(cs, a6xx::SP_CS_CONFIG, {{"ENABLED", 1}, {"NUAV", nuav}, {"NTEX", ntex}});
    if (nuav != 0) {
      std::memcpy(host(kDescriptors), launch.uavs.data(), launch.uavs.size() * 4);
      pm4::load_state6_frag(cs, {pm4::StateType::ST6_UAV, pm4::StateBlock::SB6_CS_SHADER, 0, nuav}, GpuAddress(va(kDescriptors)));
      write_register(cs, *compute.uav_base, va(kDescriptors));
    }
    if (ntex != 0) {
      std::memcpy(host(kDescriptors + 0x8000), launch.textures.data(), launch.textures.size() * 4);
      pm4::load_state6_frag(cs, {pm4::StateType::ST6_CONSTANTS, pm4::StateBlock::SB6_CS_TEX, 0, ntex},
                            GpuAddress(va(kDescriptors + 0x8000)));
      write_register(cs, a6xx::SP_CS_TEXMEMOBJ_BASE, va(kDescriptors + 0x8000));
    }
    if (!launch.ubos.empty()) {
      std::memcpy(host(kDescriptors + 0xc000), launch.ubos.data(), launch.ubos.size() * 4);
      pm4::load_state6_frag(cs, {pm4::StateType::ST6_UBO, pm4::StateBlock::SB6_CS_SHADER, 0,
                                 static_cast<std::uint32_t>(launch.ubos.size() / 2)},
                            GpuAddress(va(kDescriptors + 0xc000)));
    }
    write_register(cs, *compute.const_config, {{"CONSTLEN", constlen}, {"ENABLED", 1}});
    write_register(cs, a6xx::SP_CS_INSTR_SIZE, instr_size);
    write_register(cs, a6xx::SP_CS_BASE, va(kCode));
    write_register(cs, *compute.ndrange[0],
                   {{"KERNELDIM", 3},
                    {"LOCALSIZEX", launch.local_size[0] - 1},
                    {"LOCALSIZEY", launch.local_size[1] - 1},
                    {"LOCALSIZEZ", launch.local_size[2] - 1}});
    write_register(cs, *compute.ndrange[1], launch.local_size[0] * launch.groups[0]);
    write_register(cs, *compute.ndrange[3], launch.local_size[1] * launch.groups[1]);
    write_register(cs, *compute.ndrange[5], launch.local_size[2] * launch.groups[2]);
    write_register(cs, *compute.work_item_ids,
                   {{"WGIDCONSTID", launch.work_group_id_regid},
                    {"WGSIZECONSTID", launch.work_group_size_regid},
                    {"WGOFFSETCONSTID", launch.work_group_offset_regid},
                    {"LOCALIDREGID", launch.local_id_regid}});
    write_register(cs, *compute.wave_control, {{"LINEARLOCALIDREGID", launch.linear_local_id_regid}, {"THREADSIZE", pm4::raw(launch.thread_size)}});
    if (gen_ == pm4::kA7xx) write_register(cs, a6xx::SP_CS_WIE_CNTL_1_A7XX, {{"THREADSIZE", pm4::raw(launch.thread_size)}});
    write_register(cs, a6xx::SP_CS_PROGRAM_COUNTER_OFFSET, launch.entry_offset);
    write_register(cs, a6xx::SP_CS_PVT_MEM_PARAM, {{"MEMSIZEPERITEM", launch.private_bytes}});
    write_register(cs, a6xx::SP_CS_PVT_MEM_BASE, launch.private_bytes ? va(kPrivate) : 0);
    if (!constants.empty()) {
      pm4::load_state6_frag(cs, {pm4::StateType::ST6_CONSTANTS, pm4::StateBlock::SB6_CS_SHADER, 0,
                                 static_cast<std::uint32_t>(constants.size() / 4)},
                            GpuAddress(va(kConstants)));
    }
    pm4::load_state6_frag(cs, {pm4::StateType::ST6_SHADER, pm4::StateBlock::SB6_CS_SHADER, 0, instr_size},
                          GpuAddress(va(kCode)));
    if (launch.run_opencl) {
      pm4::run_opencl(cs);
    } else {
      pm4::exec_cs(cs, launch.groups[0], launch.groups[1], launch.groups[2]);
    }
    after(cs);
    auto ibs = cs.finish();
    return virt::IbSpan{ibs[0].gpu.value(), ibs[0].dwords};
  }
  virt::IbSpan record(std::span<const std::uint64_t> code, const Launch& launch) {
    return record(code, launch, [](pm4::CommandStream&) {});
  }

  /// Records and runs one dispatch on the command processor, followed by what `after` records;
  /// a GpuFault propagates.
  template <typename After>
  void run(std::span<const std::uint64_t> code, const Launch& launch, After&& after) {
    const virt::IbSpan ib = record(code, launch, after);
    cp_.execute(std::span(&ib, 1));
  }
  void run(std::span<const std::uint64_t> code, const Launch& launch) {
    run(code, launch, [](pm4::CommandStream&) {});
  }

 private:
  // Hands the command stream the command area of the one backing buffer.
  struct Chunks : pm4::ChunkSource {
    explicit Chunks(VirtualGpu& gpu) : gpu(gpu) {}
    pm4::Chunk acquire(std::uint32_t min_dwords) override {
      if (used) throw std::runtime_error("test command area exhausted");
      used = true;
      const std::uint32_t dwords = std::max<std::uint32_t>(min_dwords, (kCode - kCommands) / 4);
      return {CpuView(gpu.host(kCommands), dwords * 4ull), GpuAddress(gpu.va(kCommands)), dwords, 0};
    }
    VirtualGpu& gpu;
    bool used = false;
  };

  pm4::Gen gen_;
  std::shared_ptr<virt::GpuMemory> memory_;
  std::shared_ptr<virt::Backing> backing_;
  std::uint64_t va_;
  std::atomic<bool> stop_{false};
  virt::CommandProcessor cp_;
};

/// A launch whose footprint and instruction size come from the assembler's metadata.
inline Launch launch_for(const ir3::Program& program) {
  Launch launch;
  launch.full_footprint = program.info.full_footprint_vec4();
  launch.half_footprint = program.info.half_footprint_vec4();
  launch.merged_registers = program.info.register_file == ir3::RegisterFile::merged;
  launch.local_size = program.launch.local_size;
  launch.local_id_regid = program.launch.local_id_regid;
  launch.work_group_id_regid = program.launch.work_group_id_regid;
  launch.instr_size = program.info.instrlen;
  return launch;
}

/// c[i] = OP(a[i], b[i]) for every lane of one work-group of a.size() fibers (a multiple of 64,
/// at most 1024): `op_line` reads r3.x (a) and r3.y (b) and writes r3.z (c); a, b, c are 32-bit
/// buffers at c0.xy, c0.zw, c1.xy. They lie inside one mapping well below 4 GiB of it, so the low
/// address dword does not carry.
inline std::vector<std::uint32_t> run_per_lane(const std::string& op_line, const std::vector<std::uint32_t>& a,
                                               const std::vector<std::uint32_t>& b) {
  const ir3::Program program = ir3::assemble(R"(
    (nop3) shl.b r0.y, r0.x, 2
    add.u r1.x, c0.x, r0.y
    mov.u32u32 r1.y, c0.y
    add.u r1.z, c0.z, r0.y
    mov.u32u32 r1.w, c0.w
    add.u r2.x, c1.x, r0.y
    mov.u32u32 r2.y, c1.y
    (rpt1)nop
    ldg.u32 r3.x, g[r1.x], 1
    (rpt1)nop
    ldg.u32 r3.y, g[r1.z], 1
    (sy)nop
    )" + op_line + R"(
    (ss)(rpt5)nop
    stg.u32 g[r2.x], r3.z, 1
    end
  )");
  VirtualGpu gpu;
  const std::uint64_t at_a = VirtualGpu::kData, at_b = at_a + 0x10000, at_c = at_b + 0x10000;
  gpu.put(at_a, a);
  gpu.put(at_b, b);
  Launch launch = launch_for(program);
  launch.local_size = {static_cast<std::uint32_t>(a.size()), 1, 1};
  launch.local_id_regid = ir3::regid(0, 0);
  launch.constants = {split(gpu.va(at_a))[0], split(gpu.va(at_a))[1], split(gpu.va(at_b))[0], split(gpu.va(at_b))[1],
                      split(gpu.va(at_c))[0], split(gpu.va(at_c))[1], 0, 0};
  gpu.run(program.words, launch);
  return gpu.get<std::uint32_t>(at_c, a.size());
}

/// c[i] = a[i] + b[i] over 32-bit words, a vec4 per fiber: work groups of 128 fibers (local id
/// in r0.x, work-group id in r48.x), each covering 2 KiB of every array (the multigroup shape);
/// c, a and b are at c0.xy, c0.zw and c1.xy.
inline ir3::Program vector_add_vec4_program() {
  return ir3::assemble(R"(
    shl.b r0.y, r48.x, 11
    (nop3) shl.b r0.z, r0.x, 4
    (nop3) add.u r0.y, r0.y, r0.z
    add.u r1.x, c0.z, r0.y
    mov.u32u32 r1.y, c0.w
    add.u r1.z, c1.x, r0.y
    mov.u32u32 r1.w, c1.y
    add.u r2.x, c0.x, r0.y
    mov.u32u32 r2.y, c0.y
    (rpt1)nop
    ldg.u32 r3.x, g[r1.x], 4
    (rpt1)nop
    ldg.u32 r4.x, g[r1.z], 4
    (sy)(rpt3)add.u r5.x, (r)r3.x, (r)r4.x
    (rpt5)nop
    stg.u32 g[r2.x], r5.x, 4
    end
  )");
}

/// The launch of vector_add_vec4_program() over `groups` work groups, for arrays at the GPU
/// addresses of c, a and b (offsets into `gpu`'s data, as VirtualGpu::put takes them).
inline Launch vector_add_vec4_launch(const ir3::Program& program, VirtualGpu& gpu, std::uint64_t c, std::uint64_t a,
                                     std::uint64_t b, std::uint32_t groups) {
  Launch launch = launch_for(program);
  launch.local_size = {128, 1, 1};
  launch.groups = {groups, 1, 1};
  launch.local_id_regid = ir3::regid(0, 0);
  launch.work_group_id_regid = ir3::regid(48, 0);
  launch.constants = {split(gpu.va(c))[0], split(gpu.va(c))[1], split(gpu.va(a))[0], split(gpu.va(a))[1],
                      split(gpu.va(b))[0], split(gpu.va(b))[1], 0, 0};
  return launch;
}

}  // namespace vgpu_test
