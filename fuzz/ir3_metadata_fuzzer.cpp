// ir3 binary + metadata JSON loader: the input is the metadata JSON, then a NUL byte, then the
// code bytes. The JSON goes through load_ir3_metadata_json (from a memfd, since the loader reads
// a file); what it accepts is loaded with the code by Program::from_ir3 on a virtual device,
// which validates the metadata against the code. Only adreno::Error may come out.
#include <adreno/error.hpp>
#include <adreno/program.hpp>
#include <adreno/testing.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

// One device for the whole run: opening one per input would cost more than the parse.
adreno::Device& device() {
  static adreno::testing::VirtualDevice virtual_device;
  return virtual_device.device();
}

// The metadata as a file the loader can open.
class MemoryFile {
 public:
  MemoryFile(const std::uint8_t* data, std::size_t size) : fd_(memfd_create("ir3-metadata", 0)) {
    if (fd_ < 0 || write(fd_, data, size) != static_cast<ssize_t>(size)) std::abort();
  }
  ~MemoryFile() { close(fd_); }
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

 private:
  int fd_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::uint8_t* const end = data + size;
  const std::uint8_t* const separator = std::find(data, end, std::uint8_t{0});
  const MemoryFile json(data, static_cast<std::size_t>(separator - data));
  std::vector<std::uint32_t> code;
  if (separator != end) {
    code.resize(static_cast<std::size_t>(end - separator - 1) / 4);
    if (!code.empty()) std::memcpy(code.data(), separator + 1, code.size() * 4);
  }
  try {
    const auto metadata = adreno::load_ir3_metadata_json(json.path());
    (void)adreno::Program::from_ir3(device(), code, metadata);
  } catch (const adreno::Error&) {
  }
  return 0;
}
