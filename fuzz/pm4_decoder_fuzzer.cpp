// PM4 decoder: a stream of any dwords decodes to text. The input is also the GPU memory the
// decoder reads through its callback (at the same base), so indirect buffers and CP_LOAD_STATE6
// shader code pointing back into it are followed and disassembled.
#include <adreno/error.hpp>

#include "ir3/disassembler.h"
#include "pm4/decoder.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {
constexpr std::uint64_t kBase = 0x100000;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::uint32_t> dwords(size / 4);
  if (!dwords.empty()) std::memcpy(dwords.data(), data, dwords.size() * 4);
  auto read = [&](adreno::GpuAddress address, std::span<std::uint32_t> out) {
    const std::uint64_t at = address.value();
    if (at < kBase || at % 4 != 0) return false;
    const std::uint64_t index = (at - kBase) / 4;
    if (index > dwords.size() || out.size() > dwords.size() - index) return false;
    if (!out.empty()) std::memcpy(out.data(), dwords.data() + index, out.size() * 4);
    return true;
  };
  adreno::pm4::DecodeOptions options;
  options.disassemble_shader = [](std::span<const std::uint32_t> code) {
    std::vector<std::uint64_t> words(code.size() / 2);
    if (!words.empty()) std::memcpy(words.data(), code.data(), words.size() * sizeof(std::uint64_t));
    return adreno::ir3::disassemble(words, adreno::ir3::ListingStyle::indexed);
  };
  try {
    (void)adreno::pm4::decode_stream(dwords, adreno::GpuAddress(kBase), read, options);
  } catch (const adreno::Error&) {
  }
  return 0;
}
