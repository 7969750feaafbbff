// adreno-run's command-line syntax: kernel arguments (`buf:COUNTxTYPE[:FILL]`, `TYPE:VALUE`) and
// sizes (`X[,Y[,Z]]`). Apart from the tool so that fuzz/run_arguments_fuzzer.cpp parses exactly
// what the tool parses.
#pragma once

#include <adreno/error.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <string>
#include <vector>

namespace adreno_run {

using adreno::Errc;
using adreno::Error;

[[noreturn]] inline void usage_error(const std::string& what) { throw Error(Errc::invalid_argument, "adreno-run", what); }

enum class ElementType { u32, i32, f32, u16, f16, u8 };

struct ElementInfo {
  const char* name;
  ElementType type;
  std::size_t bytes;
};
constexpr ElementInfo kElements[] = {{"u32", ElementType::u32, 4}, {"i32", ElementType::i32, 4},
                                     {"f32", ElementType::f32, 4}, {"u16", ElementType::u16, 2},
                                     {"f16", ElementType::f16, 2}, {"u8", ElementType::u8, 1}};

inline const ElementInfo& element(const std::string& name) {
  for (const auto& e : kElements)
    if (name == e.name) return e;
  usage_error("unknown element type '" + name + "' (u32, i32, f32, u16, f16, u8)");
}

inline std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

// A kernel argument from the command line: `buf:COUNTxTYPE[:FILL]` or `TYPE:VALUE`.
struct ArgumentSpec {
  bool is_buffer = false;
  std::size_t count = 0;
  const ElementInfo* type = nullptr;
  std::string fill = "zeros";  // zeros | iota | random[:SEED] | file:PATH | initial
  std::vector<std::uint32_t> initial;  // fill "initial": the leading words (an @buf's values)
  std::string value;           // scalars
};

inline ArgumentSpec parse_argument(const std::string& text) {
  ArgumentSpec spec;
  const auto parts = split(text, ':');
  if (parts[0] == "buf") {
    if (parts.size() < 2) usage_error("'" + text + "': a buffer is buf:COUNTxTYPE[:FILL]");
    const auto x = parts[1].find('x');
    if (x == std::string::npos) usage_error("'" + text + "': the size is COUNTxTYPE, e.g. 1024xu32");
    spec.is_buffer = true;
    try {
      spec.count = std::stoul(parts[1].substr(0, x));
    } catch (const std::exception&) {
      usage_error("'" + text + "': '" + parts[1].substr(0, x) + "' is not an element count");
    }
    if (spec.count == 0) usage_error("'" + text + "': a buffer needs at least one element");
    spec.type = &element(parts[1].substr(x + 1));
    // The buffer's size is count × element bytes: a count whose size wraps around would allocate
    // a small buffer and fill it past its end.
    if (spec.count > std::numeric_limits<std::size_t>::max() / spec.type->bytes)
      usage_error("'" + text + "': " + std::to_string(spec.count) + " elements is more bytes than memory holds");
    if (parts.size() > 2) {
      spec.fill = parts[2];
      for (std::size_t i = 3; i < parts.size(); ++i) spec.fill += ":" + parts[i];
    }
    return spec;
  }
  if (parts.size() != 2) usage_error("'" + text + "' is neither buf:COUNTxTYPE[:FILL] nor TYPE:VALUE");
  spec.type = &element(parts[0]);
  spec.value = parts[1];
  return spec;
}

inline std::array<std::uint32_t, 3> parse_size3(const std::string& text, const char* what) {
  std::array<std::uint32_t, 3> size{1, 1, 1};
  const auto parts = split(text, ',');
  if (parts.size() > 3) usage_error(std::string(what) + " has at most three dimensions: X[,Y[,Z]]");
  for (std::size_t i = 0; i < parts.size(); ++i) {
    try {
      size[i] = static_cast<std::uint32_t>(std::stoul(parts[i]));
    } catch (const std::exception&) {
      usage_error(std::string(what) + ": '" + parts[i] + "' is not a number");
    }
  }
  return size;
}

}  // namespace adreno_run
