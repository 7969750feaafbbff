#include "pm4/rd.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include <adreno/error.hpp>

namespace adreno::pm4 {
namespace {

void append_u32(std::vector<std::byte>& out, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::byte>(value >> (8 * i)));
}

std::uint32_t read_u32(std::span<const std::byte> bytes, std::size_t at) {
  std::uint32_t value = 0;
  for (int i = 0; i < 4; ++i) value |= std::to_integer<std::uint32_t>(bytes[at + i]) << (8 * i);
  return value;
}

std::span<const std::byte> as_bytes_of(const std::uint32_t (&words)[3]) { return std::as_bytes(std::span(words)); }

// The 12-byte {lo, size, hi} form Turnip writes, or the older 8-byte {lo, size}.
std::pair<GpuAddress, std::uint32_t> address_and_size(const RdSection& section, std::string_view what) {
  if (section.payload.size() != 8 && section.payload.size() != 12)
    throw Error(Errc::malformed, "parse .rd section",
                fmt::format("{} payload is {} bytes; expected 8 or 12", what, section.payload.size()));
  std::uint64_t hi = section.payload.size() == 12 ? read_u32(section.payload, 8) : 0;
  return {GpuAddress(read_u32(section.payload, 0) | (hi << 32)), read_u32(section.payload, 4)};
}

}  // namespace

void RdWriter::section(RdSectionType type, std::span<const std::byte> payload) {
  append_u32(bytes_, static_cast<std::uint32_t>(type));
  append_u32(bytes_, static_cast<std::uint32_t>(payload.size()));
  bytes_.insert(bytes_.end(), payload.begin(), payload.end());
}

void RdWriter::gpu_id(std::uint32_t id) { section(RdSectionType::RD_GPU_ID, std::as_bytes(std::span(&id, 1))); }

void RdWriter::chip_id(std::uint64_t id) { section(RdSectionType::RD_CHIP_ID, std::as_bytes(std::span(&id, 1))); }

void RdWriter::command(std::string_view text) {
  std::vector<std::byte> payload(text.size() + 1);  // NUL-terminated, as cffdump prints it
  std::memcpy(payload.data(), text.data(), text.size());
  section(RdSectionType::RD_CMD, payload);
}

void RdWriter::buffer(GpuAddress address, std::span<const std::byte> contents) {
  if (contents.size() > 0xffffffffu)
    throw Error(Errc::invalid_argument, "write .rd buffer",
                fmt::format("buffer at {:#x} is {} bytes; .rd sizes are 32-bit", address.value(), contents.size()));
  const std::uint32_t gpuaddr[3] = {address.lo(), static_cast<std::uint32_t>(contents.size()), address.hi()};
  section(RdSectionType::RD_GPUADDR, as_bytes_of(gpuaddr));
  section(RdSectionType::RD_BUFFER_CONTENTS, contents);
}

void RdWriter::cmdstream(GpuAddress address, std::uint32_t dwords) {
  const std::uint32_t cmdstream_addr[3] = {address.lo(), dwords, address.hi()};
  section(RdSectionType::RD_CMDSTREAM_ADDR, as_bytes_of(cmdstream_addr));
}

void RdWriter::save(const std::filesystem::path& path) const {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) throw Error(Errc::kernel_error, "open .rd dump", path.string(), errno);
  bool written = std::fwrite(bytes_.data(), 1, bytes_.size(), file) == bytes_.size();
  int write_errno = errno;
  bool closed = std::fclose(file) == 0;
  if (!written || !closed)
    throw Error(Errc::kernel_error, "write .rd dump", path.string(), written ? errno : write_errno);
}

std::vector<RdSection> parse_rd(std::span<const std::byte> bytes) {
  std::vector<RdSection> sections;
  std::size_t at = 0;
  while (at < bytes.size()) {
    if (bytes.size() - at < 8)
      throw Error(Errc::malformed, "parse .rd dump",
                  fmt::format("{} trailing bytes at offset {} are too short for a section header", bytes.size() - at, at));
    std::uint32_t type = read_u32(bytes, at);
    std::uint32_t size = read_u32(bytes, at + 4);
    if (bytes.size() - at - 8 < size)
      throw Error(Errc::malformed, "parse .rd dump",
                  fmt::format("section type {} at offset {} claims {} bytes; {} remain", type, at, size,
                              bytes.size() - at - 8));
    sections.push_back(RdSection{static_cast<RdSectionType>(type), bytes.subspan(at + 8, size)});
    at += 8 + size;
  }
  return sections;
}

RdGpuAddr parse_gpuaddr(const RdSection& section) {
  auto [address, size] = address_and_size(section, "RD_GPUADDR");
  return {address, size};
}

RdCmdstreamAddr parse_cmdstream_addr(const RdSection& section) {
  auto [address, dwords] = address_and_size(section, "RD_CMDSTREAM_ADDR");
  return {address, dwords};
}

RdMemory::RdMemory(std::span<const RdSection> sections) {
  std::optional<RdGpuAddr> pending;  // RD_GPUADDR waiting for its RD_BUFFER_CONTENTS
  for (const RdSection& section : sections) {
    switch (section.type) {
      case RdSectionType::RD_GPUADDR: pending = parse_gpuaddr(section); break;
      case RdSectionType::RD_BUFFER_CONTENTS:
        if (pending) buffers_.push_back(Buffer{pending->address, section.payload.first(
                                                                     std::min<std::size_t>(pending->size_bytes, section.payload.size()))});
        pending.reset();
        break;
      case RdSectionType::RD_CMDSTREAM_ADDR: cmdstreams_.push_back(parse_cmdstream_addr(section)); break;
      default: break;
    }
  }
}

bool RdMemory::read(GpuAddress address, std::span<std::uint32_t> out) const {
  std::size_t bytes = out.size_bytes();
  for (const Buffer& buffer : buffers_) {
    if (address < buffer.address || address - buffer.address > buffer.contents.size() ||
        buffer.contents.size() - (address - buffer.address) < bytes)
      continue;
    if (bytes != 0) std::memcpy(out.data(), buffer.contents.data() + (address - buffer.address), bytes);
    return true;
  }
  return false;
}

void write_submission(RdWriter& writer, const SubmissionDump& submission) {
  writer.gpu_id(submission.gpu_id);
  writer.chip_id(submission.chip_id);
  writer.command("adreno");
  for (const DumpBuffer& buffer : submission.buffers)
    writer.buffer(buffer.address, std::span<const std::byte>(buffer.contents.data(), buffer.contents.size()));
  for (const IbRange& ib : submission.ibs) writer.cmdstream(ib.gpu, ib.dwords);
}

std::optional<std::filesystem::path> dump_submission_if_requested(const SubmissionDump& submission) {
  const char* directory = std::getenv("ADRENO_DUMP");
  if (directory == nullptr || *directory == '\0') return std::nullopt;
  static std::atomic<std::uint32_t> sequence{0};
  std::filesystem::path path =
      std::filesystem::path(directory) / fmt::format("adreno-{}-{:05}.rd", ::getpid(), sequence.fetch_add(1));
  RdWriter writer;
  write_submission(writer, submission);
  writer.save(path);
  return path;
}

}  // namespace adreno::pm4
