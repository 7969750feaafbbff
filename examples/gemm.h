// The tiled SGEMM of examples/kernels/sgemm.s, shared by the gemm example and the demo: C = A·B
// on random matrices of several sizes, the kernel legalized by the assembler (it is written
// without delay slots or waits), launched in 128-wide waves, every element compared with a
// host loop that adds the products in the kernel's order (k ascending, each product rounded to
// float before it is added, as the virtual GPU's unfused mad.f32 does).
#pragma once

#include <adreno/adreno.hpp>
#include <adreno/program.hpp>

#include "kernels.h"

#include <array>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace gemm {

/// M, N, K: multiples of the kernel's tile (16, 8, 16).
using Shape = std::array<std::uint32_t, 3>;
inline constexpr std::array<Shape, 4> kShapes{{{16, 8, 16}, {32, 24, 48}, {64, 64, 64}, {48, 40, 112}}};

/// The kernel for K, with its sizes as constants (c2 = N, K, K/16).
inline adreno::Program program(adreno::Device& device, const Shape& shape) {
  const std::string source = "@const(c2.x) " + std::to_string(shape[1]) + ", " + std::to_string(shape[2]) + ", " +
                             std::to_string(shape[2] / 16) + ", 0\n" + kernels::sgemm;
  return adreno::Program::from_ir3_assembly(device, source, /*legalize=*/true);
}

inline std::vector<float> reference(const std::vector<float>& a, const std::vector<float>& b, const Shape& shape) {
  const auto [m, n, k] = shape;
  std::vector<float> c(std::size_t{m} * n);
  for (std::uint32_t i = 0; i < m; ++i) {
    for (std::uint32_t j = 0; j < n; ++j) {
      float sum = 0;
      for (std::uint32_t t = 0; t < k; ++t) {
        const volatile float product = a[std::size_t{i} * k + t] * b[std::size_t{t} * n + j];
        sum = sum + product;
      }
      c[std::size_t{i} * n + j] = sum;
    }
  }
  return c;
}

/// Runs every shape on `device`; prints one line per shape; true when every element matched.
inline bool run(adreno::Device& device, std::mt19937& rng) {
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  adreno::Queue queue(device);
  bool ok = true;
  for (const Shape& shape : kShapes) {
    const auto [m, n, k] = shape;
    std::vector<float> a(std::size_t{m} * k), b(std::size_t{k} * n);
    for (float& x : a) x = value(rng);
    for (float& x : b) x = value(rng);
    adreno::Program sgemm = program(device, shape);
    adreno::Buffer buffer_a = device.allocate({.size = a.size() * 4}), buffer_b = device.allocate({.size = b.size() * 4});
    adreno::Buffer buffer_c = device.allocate({.size = std::size_t{m} * n * 4});
    std::memcpy(buffer_a.cpu_view().data(), a.data(), a.size() * 4);
    std::memcpy(buffer_b.cpu_view().data(), b.data(), b.size() * 4);
    adreno::Arguments arguments(sgemm);
    arguments.set_buffer(0, buffer_c).set_buffer(1, buffer_a).set_buffer(2, buffer_b);
    queue.dispatch(sgemm, arguments,
                   {.groups = {n / 8, m / 16, 1}, .local_size = {8, 16, 1}, .wave_size = adreno::WaveSize::thread128});
    queue.finish();
    const std::vector<float> want = reference(a, b, shape);
    const auto got = buffer_c.cpu_view().as<float>();
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < want.size(); ++i) wrong += std::memcmp(&got[i], &want[i], 4) != 0;
    std::printf("  sgemm %ux%u = %ux%u · %ux%u (legalized, 128-wide waves): %zu/%zu exact, e.g. C[0][0] = %g\n", m, n, m, k, k,
                n, want.size() - wrong, want.size(), static_cast<double>(got[0]));
    ok = ok && wrong == 0;
  }
  return ok;
}

}  // namespace gemm
