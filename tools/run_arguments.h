// adreno-run's command-line syntax: kernel arguments (`buf:COUNTxTYPE[:FILL]`, `TYPE:VALUE`),
// sizes (`X[,Y[,Z]]`), `--print N[:FORMAT]` and `--save N:PATH`. Everything the tool reads from
// its command line is parsed here, into typed values, with an adreno::Error(invalid_argument)
// naming the option, the field and the text that is wrong — apart from the tool so that
// fuzz/run_arguments_fuzzer.cpp and tests/tools parse exactly what the tool parses.
#pragma once

#include <adreno/error.hpp>

#include <array>
#include <bit>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <system_error>
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

/// `text` as a whole decimal number no greater than `max`; otherwise an error that says
/// `context`: 'text' is not `what`. (Unlike std::stoul: no sign, no spaces, nothing after it.)
inline std::uint64_t parse_number(const std::string& text, std::uint64_t max, const std::string& context,
                                  const std::string& what) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || value > max) {
    usage_error(context + ": '" + text + "' is not " + what);
  }
  return value;
}

/// How a buffer is filled before the dispatch.
enum class FillKind { zeros, iota, random, file, initial };
struct Fill {
  FillKind kind = FillKind::zeros;
  std::uint32_t seed = 1;  ///< random
  std::string path;        ///< file
};

// A kernel argument from the command line: `buf:COUNTxTYPE[:FILL]` or `TYPE:VALUE`.
struct ArgumentSpec {
  bool is_buffer = false;
  std::size_t count = 0;
  const ElementInfo* type = nullptr;
  Fill fill;
  std::vector<std::uint32_t> initial;  // fill "initial": the leading words (an @buf's values)
  std::uint32_t bits = 0;              // scalars: the value's bits, in the low `type->bytes`
};

/// FILL of `buf:COUNTxTYPE:FILL`: zeros | iota | random[:SEED] | file:PATH.
inline Fill parse_fill(const std::string& text, const ElementInfo& type, const std::string& context) {
  Fill fill;
  if (text == "zeros") return fill;
  if (text == "iota") {
    if (type.type == ElementType::f16) usage_error(context + ": iota is not defined for f16 buffers; use random or a file");
    fill.kind = FillKind::iota;
    return fill;
  }
  if (text == "random" || text.starts_with("random:")) {
    fill.kind = FillKind::random;
    if (text.size() > 6) {
      fill.seed = static_cast<std::uint32_t>(parse_number(text.substr(7), std::numeric_limits<std::uint32_t>::max(), context,
                                                          "a random seed (0 to 4294967295)"));
    }
    return fill;
  }
  if (text.starts_with("file:")) {
    fill.kind = FillKind::file;
    fill.path = text.substr(5);
    if (fill.path.empty()) usage_error(context + ": file: needs a path");
    return fill;
  }
  usage_error(context + ": unknown fill '" + text + "' (zeros, iota, random[:SEED], file:PATH)");
}

/// VALUE of `TYPE:VALUE`: a float for f32; otherwise an integer (decimal, 0x hex or 0 octal)
/// that fits the type — i32 from -2^31, the others from 0, f16 as its bit pattern.
inline std::uint32_t parse_scalar(const std::string& text, const ElementInfo& type, const std::string& context) {
  const char* begin = text.data();
  const char* const end = text.data() + text.size();
  if (type.type == ElementType::f32) {
    float value = 0;
    const auto [stop, error] = std::from_chars(begin, end, value);
    if (text.empty() || error != std::errc() || stop != end) usage_error(context + ": '" + text + "' is not an f32 value");
    return std::bit_cast<std::uint32_t>(value);
  }
  const bool negative = begin != end && *begin == '-';
  if (negative) ++begin;
  int base = 10;
  if (end - begin > 2 && begin[0] == '0' && (begin[1] == 'x' || begin[1] == 'X')) {
    base = 16;
    begin += 2;
  } else if (end - begin > 1 && begin[0] == '0') {
    base = 8;
    ++begin;
  }
  std::uint64_t magnitude = 0;
  const auto [stop, error] = std::from_chars(begin, end, magnitude, base);
  const std::uint64_t max = type.bytes == 4 ? std::numeric_limits<std::uint32_t>::max() : (std::uint64_t{1} << (8 * type.bytes)) - 1;
  const bool is_signed = type.type == ElementType::i32;
  const bool fits = negative ? is_signed && magnitude <= std::uint64_t{1} << 31
                             : magnitude <= (is_signed ? std::uint64_t{std::numeric_limits<std::int32_t>::max()} : max);
  if (begin == end || error != std::errc() || stop != end || !fits) {
    usage_error(context + ": '" + text + "' is not " + (is_signed ? "an " : "a ") + type.name + " value");
  }
  return static_cast<std::uint32_t>(negative ? 0 - magnitude : magnitude);
}

inline ArgumentSpec parse_argument(const std::string& text) {
  ArgumentSpec spec;
  const std::string context = "'" + text + "'";
  const auto parts = split(text, ':');
  if (parts[0] == "buf") {
    if (parts.size() < 2) usage_error(context + ": a buffer is buf:COUNTxTYPE[:FILL]");
    const auto x = parts[1].find('x');
    if (x == std::string::npos) usage_error(context + ": the size is COUNTxTYPE, e.g. 1024xu32");
    spec.is_buffer = true;
    spec.type = &element(parts[1].substr(x + 1));
    // The buffer's size is count × element bytes: a count whose size wraps around would allocate
    // a small buffer and fill it past its end.
    const std::string count = parts[1].substr(0, x);
    spec.count = static_cast<std::size_t>(parse_number(count, std::numeric_limits<std::uint64_t>::max(), context, "an element count"));
    if (spec.count == 0) usage_error(context + ": a buffer needs at least one element");
    if (spec.count > std::numeric_limits<std::size_t>::max() / spec.type->bytes)
      usage_error(context + ": " + count + " elements is more bytes than memory holds");
    if (parts.size() > 2) {
      std::string fill = parts[2];
      for (std::size_t i = 3; i < parts.size(); ++i) fill += ":" + parts[i];
      spec.fill = parse_fill(fill, *spec.type, context);
    }
    return spec;
  }
  if (parts.size() != 2) usage_error(context + " is neither buf:COUNTxTYPE[:FILL] nor TYPE:VALUE");
  spec.type = &element(parts[0]);
  spec.bits = parse_scalar(parts[1], *spec.type, context);
  return spec;
}

inline std::array<std::uint32_t, 3> parse_size3(const std::string& text, const char* what) {
  std::array<std::uint32_t, 3> size{1, 1, 1};
  const auto parts = split(text, ',');
  if (parts.size() > 3) usage_error(std::string(what) + " has at most three dimensions: X[,Y[,Z]]");
  for (std::size_t i = 0; i < parts.size(); ++i) {
    size[i] = static_cast<std::uint32_t>(
        parse_number(parts[i], std::numeric_limits<std::uint32_t>::max(), what, "a number below 2^32"));
  }
  return size;
}

/// How --print shows each element: the element type's own way, or as asked.
enum class PrintFormat { natural, hex, integer, floating };
struct PrintSpec {
  std::size_t index = 0;
  PrintFormat format = PrintFormat::natural;
};
struct SaveSpec {
  std::size_t index = 0;
  std::string path;
};

/// `--print N[:hex|int|float]`.
inline PrintSpec parse_print(const std::string& text) {
  const std::string context = "--print " + text;
  const auto colon = text.find(':');
  PrintSpec spec;
  spec.index = static_cast<std::size_t>(parse_number(text.substr(0, colon), std::numeric_limits<std::uint32_t>::max(), context, "an argument index"));
  if (colon == std::string::npos) return spec;
  const std::string format = text.substr(colon + 1);
  if (format == "hex") {
    spec.format = PrintFormat::hex;
  } else if (format == "int") {
    spec.format = PrintFormat::integer;
  } else if (format == "float") {
    spec.format = PrintFormat::floating;
  } else {
    usage_error(context + ": '" + format + "' is not a format (hex, int, float)");
  }
  return spec;
}

/// `--save N:PATH`.
inline SaveSpec parse_save(const std::string& text) {
  const std::string context = "--save " + text;
  const auto colon = text.find(':');
  if (colon == std::string::npos) usage_error(context + ": expected N:PATH");
  SaveSpec spec;
  spec.index = static_cast<std::size_t>(parse_number(text.substr(0, colon), std::numeric_limits<std::uint32_t>::max(), context, "an argument index"));
  spec.path = text.substr(colon + 1);
  if (spec.path.empty()) usage_error(context + ": the path is empty");
  return spec;
}

/// The buffer argument `index` of `specs`, for the option `context`.
inline const ArgumentSpec& buffer_argument(const std::vector<ArgumentSpec>& specs, std::size_t index, const std::string& context) {
  if (index >= specs.size()) {
    usage_error(context + ": there is no argument " + std::to_string(index) + " (the kernel takes " + std::to_string(specs.size()) + ")");
  }
  if (!specs[index].is_buffer) usage_error(context + ": argument " + std::to_string(index) + " is not a buffer");
  return specs[index];
}

}  // namespace adreno_run
