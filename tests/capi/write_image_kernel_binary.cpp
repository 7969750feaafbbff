// Writes the dispatch tests' Qualcomm binary with a sampler, buffers, a texture, a storage image
// and a scalar (program_fixtures.h image_kernel_binary) to argv[1], for the C API tests: the
// only program format whose arguments include images and samplers.
#include "../dispatch/program_fixtures.h"

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::vector<std::byte> binary = image_kernel_binary().build();
  std::FILE* file = std::fopen(argv[1], "wb");
  if (file == nullptr) return 1;
  const bool written = std::fwrite(binary.data(), 1, binary.size(), file) == binary.size();
  return std::fclose(file) == 0 && written ? 0 : 1;
}
