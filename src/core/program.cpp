#include <adreno/error.hpp>
#include <adreno/program.hpp>

#include "core/dispatch_encoder.h"
#include "core/program_impl.h"
#include "core/device_impl.h"
#include "core/qualcomm_binary.h"
#include "ir3/generation.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>

#include <fmt/format.h>

namespace adreno {
namespace {

constexpr std::uint64_t kCodeAlignment = 128;  // SP_CS_BASE and CP_LOAD_STATE6 load 128-byte units

std::uint32_t round_up(std::uint32_t value, std::uint32_t unit) { return (value + unit - 1) / unit * unit; }

std::shared_ptr<MemoryBlock> allocate_block(Device::Impl& device, const std::shared_ptr<Device::Impl>& shared,
                                            std::uint64_t size, bool gpu_read_only) {
  auto allocation = device.allocator().allocate(size, kCodeAlignment, BoFlags{MemoryType::write_combined, gpu_read_only}, true);
  return std::make_shared<MemoryBlock>(shared, std::move(allocation));
}

}  // namespace

void validate_program_info(const ProgramInfo& info, const char* operation) {
  namespace L = program_limits;
  auto check = [&](bool ok, std::string_view format, const auto&... args) {
    if (!ok) throw Error(Errc::malformed, operation, fmt::vformat(format, fmt::make_format_args(args...)));
  };
  const std::uint64_t code_bytes = std::uint64_t{info.code.size()} * 4;
  check(code_bytes != 0 && code_bytes % 8 == 0, "code: {} bytes is not a positive number of 8-byte instructions", code_bytes);
  check(info.instrlen != 0 && std::uint64_t{info.instrlen} * 128 <= round_up(static_cast<std::uint32_t>(code_bytes), 128),
        "instrlen {} (groups of 16 instructions) does not lie within the {}-byte code", info.instrlen, code_bytes);
  check(info.entry_offset < code_bytes && info.entry_offset % 8 == 0, "entry offset {} is not an instruction of the code",
        info.entry_offset);
  check(info.full_regs_vec4 <= L::kMaxFullRegsVec4, "full register footprint {} exceeds {} vec4 registers",
        info.full_regs_vec4, L::kMaxFullRegsVec4);
  check(info.half_regs_vec4 <= L::kMaxHalfRegsVec4, "half register footprint {} exceeds {} vec4 registers",
        info.half_regs_vec4, L::kMaxHalfRegsVec4);
  check(info.constlen_vec4 <= L::kMaxConstlenVec4, "constlen {} exceeds {} vec4", info.constlen_vec4, L::kMaxConstlenVec4);
  check(info.branch_stack <= L::kMaxBranchStack, "branch stack {} exceeds {}", info.branch_stack, L::kMaxBranchStack);
  check(info.shared_bytes <= L::kMaxSharedBytes, "shared memory {} bytes exceeds {}", info.shared_bytes, L::kMaxSharedBytes);
  check(info.private_bytes_per_fiber <= L::kMaxPrivateBytesPerFiber, "private memory {} bytes per fiber exceeds {}",
        info.private_bytes_per_fiber, L::kMaxPrivateBytesPerFiber);
  check(info.textures <= L::kMaxTextures, "{} textures exceed {}", info.textures, L::kMaxTextures);
  check(info.samplers <= L::kMaxSamplers, "{} samplers exceed {}", info.samplers, L::kMaxSamplers);
  check(info.storage_images <= L::kMaxStorageImages, "{} storage images exceed {}", info.storage_images, L::kMaxStorageImages);
  check(info.uniform_buffers <= L::kMaxUniformBuffers, "{} uniform buffers exceed {}", info.uniform_buffers,
        L::kMaxUniformBuffers);
  const std::pair<const char*, std::uint32_t> regids[] = {
      {"local id regid", info.local_id_regid},
      {"work-group id regid", info.work_group_id_regid},
      {"work-group size regid", info.work_group_size_regid},
      {"work-group offset regid", info.work_group_offset_regid},
  };
  for (const auto& [what, regid] : regids) check(regid <= 0xff, "{} {:#x} does not fit the 8-bit register id", what, regid);
  const std::uint64_t const_bytes = std::uint64_t{info.constlen_vec4} * 16;
  for (const DriverParamRange& params : info.driver_params)
    check(params.count >= 1 && dword_of(params.first) + params.count <= dword_of(DriverParam::count) &&
              (std::uint64_t{params.const_dword} + params.count) * 4 <= const_bytes,
          "driver params {}..{} at constant dword {} lie outside constlen {} vec4", dword_of(params.first),
          dword_of(params.first) + params.count, params.const_dword, info.constlen_vec4);
  for (const ProgramArgument& argument : info.arguments) {
    if (argument.kind == ProgramArgument::Kind::storage_buffer || argument.kind == ProgramArgument::Kind::uniform_buffer) {
      const bool uniform = argument.kind == ProgramArgument::Kind::uniform_buffer;
      const char* kind = uniform ? "uniform" : "storage";
      check(argument.slot < (uniform ? info.uniform_buffers : info.storage_images), "{} buffer '{}' slot {} lies outside {} {} slots",
            kind, argument.name, argument.slot, uniform ? info.uniform_buffers : info.storage_images, uniform ? "UBO" : "UAV");
      check(argument.const_byte == kNoConstant || std::uint64_t{argument.const_byte} + 8 <= const_bytes,
            "{} buffer '{}' address at constant byte {} lies outside constlen {} vec4", kind, argument.name,
            argument.const_byte, info.constlen_vec4);
      continue;
    }
    if (argument.kind != ProgramArgument::Kind::constant) continue;
    check(argument.size_bytes >= 1 && argument.size_bytes <= 16 &&
              std::uint64_t{argument.const_byte} + argument.size_bytes <= const_bytes,
          "argument '{}' at constant byte {} ({} bytes) lies outside constlen {} vec4", argument.name,
          argument.const_byte, argument.size_bytes, info.constlen_vec4);
  }
  for (const ProgramImmediate& immediate : info.immediates)
    check(std::uint64_t{immediate.const_byte} + immediate.size_bytes <= const_bytes,
          "immediate at constant byte {} lies outside constlen {} vec4", immediate.const_byte, info.constlen_vec4);
  for (unsigned axis = 0; axis < 3; ++axis)
    check(info.fixed_local_size[axis] <= L::kMaxInvocations, "fixed local size [{}] = {} exceeds {}", axis,
          info.fixed_local_size[axis], L::kMaxInvocations);
}

Program::Impl::Impl(Device& device, ProgramInfo info)
    : device_(device.shared_impl()), part_(&supported_part(device.info(), "load program")), info_(std::move(info)) {
  // Hardware without the early preamble would run the preamble in every wave or not at all.
  if (info_.early_preamble && !part_->has_early_preamble)
    throw Error(Errc::unsupported, "load program",
                fmt::format("{}: @earlypreamble (SP_CS_CNTL_0 EARLYPREAMBLE) on Adreno {}, which has no early preamble; "
                            "of the supported parts only the a650 and the a7xx parts have one (freedreno_devices.py has_early_preamble)",
                            info_.name.empty() ? "program" : info_.name, part_->gpu_id));
  const std::uint64_t code_bytes = std::max<std::uint64_t>(round_up(static_cast<std::uint32_t>(info_.code.size() * 4), 128),
                                                           std::uint64_t{info_.instrlen} * 128);
  code_ = allocate_block(*device_, device_, code_bytes, true);
  CpuView cpu = code_->cpu();
  std::memset(cpu.data(), 0, code_bytes);
  std::memcpy(cpu.data(), info_.code.data(), info_.code.size() * 4);
  if (info_.private_bytes_per_fiber != 0) {
    // Mesa computerator (a6xx.cc, cs_program_emit): per-SP size = fibers_per_sp × bytes per
    // fiber, 4 KiB aligned; one such area per SP core.
    private_bytes_per_fiber_ = round_up(info_.private_bytes_per_fiber, 512);
    private_bytes_per_sp_ = round_up(private_bytes_per_fiber_ * part_->fibers_per_sp, 4096);
    private_memory_ = allocate_block(*device_, device_, std::uint64_t{private_bytes_per_sp_} * part_->num_sp_cores, false);
  }
  packets_ = record_program_packets(*this);
  data_layout_ = dispatch_data_layout(info_);
}

Program::Program(std::shared_ptr<const Impl> impl) noexcept : impl_(std::move(impl)) {}
Program::Program(Program&&) noexcept = default;
Program& Program::operator=(Program&&) noexcept = default;
Program::~Program() = default;

const std::string& Program::name() const noexcept { return impl_->info().name; }
WaveSize Program::wave_size() const noexcept { return impl_->info().wave_size; }
GpuAddress Program::code_address() const noexcept { return impl_->code()->allocation().gpu; }
std::size_t Program::argument_count() const noexcept { return impl_->info().arguments.size(); }

std::optional<std::size_t> Program::argument_index(std::string_view name) const {
  const auto& arguments = impl_->info().arguments;
  for (std::size_t i = 0; i < arguments.size(); ++i)
    if (!name.empty() && arguments[i].name == name) return i;
  return std::nullopt;
}

Program Program::from_qualcomm_binary(Device& device, std::span<const std::byte> binary) {
  supported_part(device.info(), "load Qualcomm OpenCL binary");
  return Program(std::make_shared<const Impl>(device, parse_qualcomm_binary(binary)));
}

Program Program::from_ir3(Device& device, std::span<const std::uint32_t> code, const Ir3Metadata& metadata) {
  constexpr const char* kOperation = "load ir3 program";
  const GpuPart& part = supported_part(device.info(), kOperation);
  if (metadata.compiled_for_gpu_id) {
    // Mesa compiles per GPU (ir3_compiler_create takes the fd_dev_id); a6xx and a7xx encode some
    // instructions differently (isaspec <gen min/max>), so the words are not the device's.
    const auto built_for = ir3::generation_of_gpu_id(*metadata.compiled_for_gpu_id);
    const ir3::Generation device_gen = part.gen == pm4::kA7xx ? ir3::Generation::a7xx : ir3::Generation::a6xx;
    if (built_for != device_gen)
      throw Error(Errc::unsupported, kOperation,
                  fmt::format("{}: compiled for Adreno {} ({}), but the device is an Adreno {} ({})",
                              metadata.name.empty() ? "program" : metadata.name, *metadata.compiled_for_gpu_id,
                              built_for ? ir3::generation_name(*built_for) : "neither a6xx nor a7xx", part.gpu_id,
                              ir3::generation_name(device_gen)));
  }
  auto check = [&](bool ok, std::string_view format, const auto&... args) {
    if (!ok) throw Error(Errc::malformed, kOperation, fmt::vformat(format, fmt::make_format_args(args...)));
  };
  check(metadata.max_reg >= -1 && metadata.max_half_reg >= -1, "max_reg {} / max_half_reg {} below -1", metadata.max_reg,
        metadata.max_half_reg);
  ProgramInfo info;
  info.name = metadata.name;
  info.code.assign(code.begin(), code.end());
  info.launch = LaunchPacket::exec_cs;
  info.wave_size = metadata.wave_size;
  info.instrlen = metadata.instrlen;
  info.constlen_vec4 = metadata.constlen_vec4;
  info.full_regs_vec4 = static_cast<std::uint32_t>(metadata.max_reg + 1);
  info.half_regs_vec4 = static_cast<std::uint32_t>(metadata.max_half_reg + 1);
  info.merged_regs = metadata.merged_regs;
  info.branch_stack = metadata.branch_stack;
  info.local_id_regid = metadata.local_id_regid;
  info.work_group_id_regid = metadata.work_group_id_regid;
  if (metadata.local_size_const_dword)
    info.driver_params.push_back({*metadata.local_size_const_dword, DriverParam::local_group_size_x, 3});
  if (metadata.driver_params) {
    const auto [const_dword, count] = *metadata.driver_params;
    check(count >= 1 && count <= dword_of(DriverParam::count), "driver params count {} is not 1..{}", count, dword_of(DriverParam::count));
    // Turnip (tu_emit_compute_driver_params) uploads only what lies within constlen.
    const std::uint32_t within = metadata.constlen_vec4 * 4 > const_dword ? metadata.constlen_vec4 * 4 - const_dword : 0;
    check(within != 0, "driver params at constant dword {} lie outside constlen {} vec4", const_dword, metadata.constlen_vec4);
    info.driver_params.push_back({const_dword, DriverParam::num_work_groups_x, std::min(count, within)});
  }
  info.private_bytes_per_fiber = metadata.private_bytes_per_fiber;
  info.private_per_wave = metadata.private_per_wave;
  info.shared_bytes = metadata.shared_bytes;
  std::copy(std::begin(metadata.fixed_local_size), std::end(metadata.fixed_local_size), info.fixed_local_size);
  for (const auto& buffer : metadata.buffers)
    info.arguments.push_back({ProgramArgument::Kind::constant, buffer.name, buffer.const_dword * 4, 8, 0});
  for (const auto& scalar : metadata.scalars)
    info.arguments.push_back({ProgramArgument::Kind::constant, scalar.name, scalar.const_dword * 4, scalar.size_bytes, 0});
  for (const auto& buffer : metadata.storage_buffers) {
    check(buffer.slot < program_limits::kMaxStorageImages, "storage buffer '{}' slot {} exceeds {} UAV slots", buffer.name,
          buffer.slot, program_limits::kMaxStorageImages);
    info.arguments.push_back({ProgramArgument::Kind::storage_buffer, buffer.name,
                              buffer.address_const_dword ? *buffer.address_const_dword * 4 : kNoConstant, 8, buffer.slot});
    info.storage_images = std::max(info.storage_images, buffer.slot + 1);
  }
  for (const auto& buffer : metadata.uniform_buffers) {
    check(buffer.slot < program_limits::kMaxUniformBuffers, "uniform buffer '{}' slot {} exceeds {} UBO slots", buffer.name,
          buffer.slot, program_limits::kMaxUniformBuffers);
    info.arguments.push_back({ProgramArgument::Kind::uniform_buffer, buffer.name,
                              buffer.address_const_dword ? *buffer.address_const_dword * 4 : kNoConstant, 8, buffer.slot});
    info.uniform_buffers = std::max(info.uniform_buffers, buffer.slot + 1);
  }
  info.early_preamble = metadata.early_preamble;
  for (const auto& immediate : metadata.immediates) info.immediates.push_back({immediate.const_dword * 4, immediate.value, 4});
  validate_program_info(info, kOperation);
  return Program(std::make_shared<const Impl>(device, std::move(info)));
}

Program Program::from_ir3_fixture(Device& device, const std::filesystem::path& json_path) {
  const Ir3Metadata metadata = load_ir3_metadata_json(json_path);
  std::filesystem::path code_path = json_path;
  code_path.replace_extension(".code.bin");
  std::ifstream in(code_path, std::ios::binary);
  if (!in) throw Error(Errc::not_found, "load ir3 fixture", "cannot read " + code_path.string());
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() % 8 != 0)
    throw Error(Errc::malformed, "load ir3 fixture", fmt::format("{}: {} bytes is not whole 8-byte instructions",
                                                                  code_path.string(), bytes.size()));
  std::vector<std::uint32_t> code(bytes.size() / 4);
  if (!bytes.empty()) std::memcpy(code.data(), bytes.data(), bytes.size());
  return from_ir3(device, code, metadata);
}

}  // namespace adreno
