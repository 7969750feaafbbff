// Parser for Qualcomm OpenCL compiled binaries (what the Adreno OpenCL compiler's
// handle_create_binary returns for a linked program): a header, a section table, and sections
// for the program record, constants, the code image and the image descriptor with the kernel
// name, sampler records and argument records.
//
// Layout facts from tinygrad (snapshot a9069c177a9da9cca18593edf55acd2e6073cca6):
// extra/tinydreno.h (cl_lib_header, cl_lib_section, cl_lib_prog, cl_lib_img_desc) and
// QCOMProgram._parse_lib in tinygrad/runtime/ops_qcom.py (argument and constant records).
#pragma once

#include "core/program_info.h"

#include <cstddef>
#include <span>

namespace adreno {

/// Byte offsets inside the binary, named after tinydreno.h.
namespace qualcomm_binary {
inline constexpr std::size_t kNumSections = 0x18;       // cl_lib_header.num_sections
inline constexpr std::size_t kSectionTable = 0x30;      // cl_lib_header.sections
inline constexpr std::size_t kSectionBytes = 20;        // id, offset, size, count, entry_size
inline constexpr std::size_t kSectionOffset = 4, kSectionSize = 8;
inline constexpr unsigned kProgramSection = 0, kConstsSection = 6, kImageSection = 7, kCodeSection = 10,
                          kImageDescSection = 11;
inline constexpr std::size_t kProgFullRegs = 0x14, kProgHalfRegs = 0x18;  // cl_lib_prog
inline constexpr std::size_t kDescEntryOffset = 0xc4, kDescPrivateBytes = 0xc8, kDescSharedBytes = 0xd8,
                             kDescSamplerCount = 0xdc, kDescBranchStack = 0x108, kDescKernelName = 0x158;
inline constexpr std::size_t kSamplerRecordBytes = 8;
/// Argument record: eight dwords — byte length, 2 unknown, offset in dwords, 3 unknown, type.
inline constexpr std::size_t kArgumentRecordBytes = 32;
inline constexpr std::size_t kArgLength = 0, kArgOffsetDwords = 12, kArgType = 28;
inline constexpr std::uint32_t kArgBuffer = 0, kArgTexture = 1, kArgStorageImage = 2;
/// Constant record: value, 3 unknown dwords, offset in units of the constant's size, unknown,
/// is-32-bit flag (else 16-bit), 3 unknown dwords.
inline constexpr std::size_t kConstantRecordBytes = 40;
inline constexpr std::size_t kConstValue = 0, kConstOffsetUnits = 16, kConstIs32 = 24;
}  // namespace qualcomm_binary

/// Parses and validates `binary`; throws Error(malformed, "load Qualcomm OpenCL binary", ...)
/// naming the field that is truncated, out of the file or out of the hardware's range.
ProgramInfo parse_qualcomm_binary(std::span<const std::byte> binary);

}  // namespace adreno
