// .rd command-stream dumps, the format Mesa's cffdump and replay read: a sequence of sections,
// each a little-endian u32 type, a u32 payload size in bytes, then the payload. Section numbers
// are Mesa's enum rd_sect_type (src/freedreno/common/redump.h, MIT, Rob Clark 2012); payload
// layouts follow what Turnip writes (tu_knl / tu_queue: RD_GPUADDR = {iova_lo, size_bytes,
// iova_hi}, RD_CMDSTREAM_ADDR = {iova_lo, size_dwords, iova_hi}, RD_CHIP_ID = u64) and what
// cffdump accepts (RD_GPU_ID = u32, e.g. 630).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include <adreno/address.hpp>

#include "pm4/command_stream.h"

namespace adreno::pm4 {

enum class RdSectionType : std::uint32_t {
  RD_NONE = 0,
  RD_TEST = 1,
  RD_CMD = 2,
  RD_GPUADDR = 3,
  RD_CONTEXT = 4,
  RD_CMDSTREAM = 5,
  RD_CMDSTREAM_ADDR = 6,
  RD_PARAM = 7,
  RD_FLUSH = 8,
  RD_PROGRAM = 9,
  RD_VERT_SHADER = 10,
  RD_FRAG_SHADER = 11,
  RD_BUFFER_CONTENTS = 12,
  RD_GPU_ID = 13,
  RD_CHIP_ID = 14,
  RD_SHADER_LOG_BUFFER = 15,
  RD_CP_LOG_BUFFER = 16,
  RD_WRBUFFER = 17,
};

class RdWriter {
 public:
  void section(RdSectionType type, std::span<const std::byte> payload);
  void gpu_id(std::uint32_t id);           // RD_GPU_ID, e.g. 630
  void chip_id(std::uint64_t id);          // RD_CHIP_ID, e.g. 0x06030001
  void command(std::string_view text);     // RD_CMD: what produced the dump
  /// RD_GPUADDR followed by RD_BUFFER_CONTENTS.
  void buffer(GpuAddress address, std::span<const std::byte> contents);
  /// RD_CMDSTREAM_ADDR: an IB the kernel was asked to execute.
  void cmdstream(GpuAddress address, std::uint32_t dwords);

  const std::vector<std::byte>& bytes() const { return bytes_; }
  /// Writes the dump to `path`; throws adreno::Error with the errno on failure.
  void save(const std::filesystem::path& path) const;

 private:
  std::vector<std::byte> bytes_;
};

struct RdSection {
  RdSectionType type;
  std::span<const std::byte> payload;
};

/// Splits a dump into sections; throws adreno::Error(malformed) on a truncated section.
std::vector<RdSection> parse_rd(std::span<const std::byte> bytes);

struct RdGpuAddr {
  GpuAddress address;
  std::uint32_t size_bytes;
};
struct RdCmdstreamAddr {
  GpuAddress address;
  std::uint32_t dwords;
};
RdGpuAddr parse_gpuaddr(const RdSection& section);             // 8-byte (old) or 12-byte form
RdCmdstreamAddr parse_cmdstream_addr(const RdSection& section);  // 8-byte (old) or 12-byte form

/// The buffers of a parsed dump as GPU memory, for decode_ib.
class RdMemory {
 public:
  explicit RdMemory(std::span<const RdSection> sections);
  bool read(GpuAddress address, std::span<std::uint32_t> out) const;
  std::span<const RdCmdstreamAddr> cmdstreams() const { return cmdstreams_; }

 private:
  struct Buffer {
    GpuAddress address;
    std::span<const std::byte> contents;
  };
  std::vector<Buffer> buffers_;
  std::vector<RdCmdstreamAddr> cmdstreams_;
};

/// One buffer object of a submission: its GPU address and a CPU view of all of it.
struct DumpBuffer {
  GpuAddress address;
  CpuView contents;
};

struct SubmissionDump {
  std::uint32_t gpu_id;   // 630
  std::uint64_t chip_id;  // as the kernel reports it
  std::span<const DumpBuffer> buffers;
  std::span<const IbRange> ibs;
};

/// Appends a submission: ids, every buffer, then the IB list.
void write_submission(RdWriter& writer, const SubmissionDump& submission);

/// When ADRENO_DUMP=<dir> is set, writes the submission to <dir>/adreno-<pid>-<n>.rd and returns
/// the path; otherwise does nothing. Called by the queue for every submission.
std::optional<std::filesystem::path> dump_submission_if_requested(const SubmissionDump& submission);

}  // namespace adreno::pm4
