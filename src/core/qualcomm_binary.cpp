#include "core/qualcomm_binary.h"

#include <adreno/error.hpp>

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

namespace adreno {
namespace {

using namespace qualcomm_binary;
constexpr const char* kOperation = "load Qualcomm OpenCL binary";

[[noreturn]] void malformed(const std::string& detail) { throw Error(Errc::malformed, kOperation, detail); }

// Bounds-checked little-endian reads that name the field they read.
class Reader {
 public:
  explicit Reader(std::span<const std::byte> bytes) : bytes_(bytes) {}
  std::size_t size() const { return bytes_.size(); }

  std::uint32_t u32(std::size_t offset, std::string_view field) const {
    if (offset > bytes_.size() || bytes_.size() - offset < 4)
      malformed(fmt::format("{} at byte {:#x} lies past the end of the {}-byte file", field, offset, bytes_.size()));
    std::uint32_t value;
    std::memcpy(&value, bytes_.data() + offset, 4);
    return value;
  }
  void check_range(std::size_t offset, std::size_t length, std::string_view field) const {
    if (offset > bytes_.size() || length > bytes_.size() - offset)
      malformed(fmt::format("{} [{:#x}, +{:#x}) lies outside the {}-byte file", field, offset, length, bytes_.size()));
  }
  std::string c_string(std::size_t offset, std::string_view field) const {
    check_range(offset, 0, field);
    const auto* begin = reinterpret_cast<const char*>(bytes_.data()) + offset;
    const void* nul = std::memchr(begin, 0, bytes_.size() - offset);
    if (nul == nullptr) malformed(fmt::format("{} at byte {:#x} is not NUL-terminated inside the file", field, offset));
    return std::string(begin, static_cast<const char*>(nul));
  }
  std::span<const std::byte> bytes(std::size_t offset, std::size_t length) const { return bytes_.subspan(offset, length); }

 private:
  std::span<const std::byte> bytes_;
};

struct Section {
  std::uint32_t offset, size;
};

Section section(const Reader& file, unsigned index) {
  const std::size_t at = kSectionTable + index * kSectionBytes;
  const std::string name = fmt::format("section[{}]", index);
  Section s{file.u32(at + kSectionOffset, name + ".offset"), file.u32(at + kSectionSize, name + ".size")};
  file.check_range(s.offset, s.size, name);
  return s;
}

}  // namespace

ProgramInfo parse_qualcomm_binary(std::span<const std::byte> binary) {
  const Reader file(binary);
  const std::uint32_t sections = file.u32(kNumSections, "num_sections");
  if (sections <= kImageDescSection)
    malformed(fmt::format("num_sections is {}; the image descriptor is section {}", sections, kImageDescSection));
  file.check_range(kSectionTable, std::size_t{sections} * kSectionBytes, "section table");

  ProgramInfo info;
  info.launch = LaunchPacket::run_opencl;
  info.opencl_isa_mode = true;
  info.private_per_wave = false;  // tinygrad leaves PERWAVEMEMLAYOUT clear for these programs

  // The code: placed by the IMAGE section, sized by the CODE section (ops_qcom.py reads the
  // offset at 0xc0 and the size at 0x100, i.e. sections[7].offset and sections[10].size).
  const Section image = section(file, kImageSection);
  const Section code = section(file, kCodeSection);
  file.check_range(image.offset, code.size, "code image (sections[7].offset, sections[10].size)");
  if (code.size == 0 || code.size % 8 != 0)
    malformed(fmt::format("code size {} is not a positive multiple of the 8-byte instruction", code.size));
  info.code.resize(code.size / 4);
  std::memcpy(info.code.data(), file.bytes(image.offset, code.size).data(), code.size);
  // The binary carries no instruction count that any reference reads; the code section is the
  // compiler's loadable image, and SP_CS_INSTR_SIZE covers it in 128-byte groups as tinygrad does.
  info.instrlen = (code.size + 127) / 128;

  const Section program = section(file, kProgramSection);
  info.full_regs_vec4 = file.u32(program.offset + kProgFullRegs, "program.fregs");
  info.half_regs_vec4 = file.u32(program.offset + kProgHalfRegs, "program.hregs");

  const Section desc = section(file, kImageDescSection);
  const std::size_t name_at = desc.offset + kDescKernelName;
  info.name = file.c_string(name_at, "image_desc.kernel_name");
  info.entry_offset = file.u32(desc.offset + kDescEntryOffset, "image_desc.prg_offset");
  if (info.entry_offset >= code.size || info.entry_offset % 8 != 0)
    malformed(fmt::format("image_desc.prg_offset {:#x} is not an instruction inside the {}-byte code",
                          info.entry_offset, code.size));
  info.private_bytes_per_fiber = file.u32(desc.offset + kDescPrivateBytes, "image_desc.pvtmem");
  info.shared_bytes = file.u32(desc.offset + kDescSharedBytes, "image_desc.shmem");
  // The file stores twice the hardware's branch-stack depth (ops_qcom.py halves it).
  info.branch_stack = file.u32(desc.offset + kDescBranchStack, "image_desc.brnchstck") / 2;
  const std::uint32_t sampler_records = file.u32(desc.offset + kDescSamplerCount, "image_desc.samp_cnt");
  if (sampler_records > program_limits::kMaxSamplers)
    malformed(fmt::format("image_desc.samp_cnt {} exceeds {} samplers", sampler_records, program_limits::kMaxSamplers));

  // The Qualcomm compiler's fixed system-value registers (the SP_CS_CONST_CONFIG_0 value
  // 0x00ccc0cf tinygrad writes for these programs): work-group id r51.w, size r48.x, offset
  // r51.x, local id r0.x.
  info.work_group_id_regid = 0xcf;
  info.work_group_size_regid = 0xc0;
  info.work_group_offset_regid = 0xcc;
  info.local_id_regid = 0x00;
  // Launch values: these registers are all the kernel gets. tinygrad writes no driver params into
  // the constants of a Qualcomm binary (QCOMComputeQueue.exec writes the local size only for
  // Mesa-compiled programs, at their wgsz constant); the grid reaches the kernel through
  // SP_CS_NDRANGE_* and SP_CS_KERNEL_GROUP_* with CP_RUN_OPENCL. Where the compiler would expect
  // the number of work-groups, work_dim or a global offset in constants is not among the records
  // tinygrad reads, so driver_params stays empty, and a base group is refused for these programs
  // (it would need SP_CS_NDRANGE GLOBALOFF, which we leave 0 as tinygrad does).
  // The binary states no constant length; the kernel arguments may sit anywhere in the 4 KiB a
  // compute constant file holds, which is what tinygrad loads (256 vec4).
  info.constlen_vec4 = program_limits::kMaxConstlenVec4;

  // One sampler argument per sampler record. tinygrad uploads one more, all-zero sampler than
  // the file declares, without saying why; it is not reproduced here.
  for (std::uint32_t i = 0; i < sampler_records; ++i)
    info.arguments.push_back({ProgramArgument::Kind::sampler, {}, 0, 0, info.samplers++});

  // Argument records follow the name (padded to 4 bytes) and the sampler records.
  std::size_t record = ((name_at + info.name.size() + 3) & ~std::size_t{3}) + kSamplerRecordBytes * sampler_records;
  while (record + kArgumentRecordBytes <= file.size()) {
    const std::string field = fmt::format("argument record at {:#x}", record);
    const std::uint32_t length = file.u32(record + kArgLength, field + ".length");
    if (length == 0) break;
    if (length < kArgumentRecordBytes || length % 4 != 0) malformed(fmt::format("{}.length {} is not a whole record", field, length));
    file.check_range(record, length, field);
    const std::uint32_t offset_dwords = file.u32(record + kArgOffsetDwords, field + ".offset");
    switch (file.u32(record + kArgType, field + ".type")) {
      case kArgBuffer:
        if (offset_dwords > (program_limits::kMaxConstlenVec4 * 16 - 8) / 4)
          malformed(fmt::format("{}.offset {} dwords lies outside the constant file", field, offset_dwords));
        info.arguments.push_back({ProgramArgument::Kind::constant, {}, offset_dwords * 4, 8, 0});
        break;
      case kArgTexture: info.arguments.push_back({ProgramArgument::Kind::texture, {}, 0, 0, info.textures++}); break;
      case kArgStorageImage:
        info.arguments.push_back({ProgramArgument::Kind::storage_image, {}, 0, 0, info.storage_images++});
        break;
      default: malformed(fmt::format("{}.type {} is not buffer (0), texture (1) or storage image (2)", field,
                                     file.u32(record + kArgType, field + ".type")));
    }
    record += length;
  }

  const Section consts = section(file, kConstsSection);
  if (consts.size != 0) {
    if (consts.offset > image.offset) malformed("constant records (sections[6]) start after the code image");
    // tinygrad reads records up to the image; records also stay inside their own section here,
    // so padding between the two is never taken for constants.
    const std::size_t end = std::min<std::size_t>(image.offset, std::size_t{consts.offset} + consts.size);
    for (std::size_t at = consts.offset; at + kConstantRecordBytes <= end; at += kConstantRecordBytes) {
      const std::string field = fmt::format("constant record at {:#x}", at);
      const std::uint32_t is32 = file.u32(at + kConstIs32, field + ".is32");
      if (is32 > 1) malformed(fmt::format("{}.is32 is {}; 0 (16-bit) or 1 (32-bit)", field, is32));
      const std::uint32_t size = 2u << is32;
      const std::uint64_t byte = std::uint64_t{file.u32(at + kConstOffsetUnits, field + ".offset")} * size;
      if (byte + size > program_limits::kMaxConstlenVec4 * 16)
        malformed(fmt::format("{}.offset puts it at byte {} outside the constant file", field, byte));
      info.immediates.push_back({static_cast<std::uint32_t>(byte), file.u32(at + kConstValue, field + ".value"), size});
    }
  }
  validate_program_info(info, kOperation);
  return info;
}

}  // namespace adreno
