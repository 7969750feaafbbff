// The instruction texts of a Mesa fixture's disassembly listing, as assembler source: for tests
// that assemble Mesa's a630 kernels again (without their waits, or for another generation).
#pragma once

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

/// The listing's instruction texts ("  12[hi_lo] text") through `end`, one a line.
inline std::string fixture_listing_source(const std::filesystem::path& disasm) {
  std::ifstream in(disasm);
  REQUIRE(in);
  std::string source;
  static const std::regex line(R"(^\s*\d+\[[0-9a-f_]+\]\s(.*)$)");
  for (std::string text; std::getline(in, text);) {
    std::smatch m;
    if (!std::regex_match(text, m, line)) continue;
    source += m[1].str() + "\n";
    if (m[1].str() == "end") break;
  }
  return source;
}
