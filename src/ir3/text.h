// The text syntax of one instruction: the syntax Mesa's ir3 disassembler prints (isaspec display
// templates in src/freedreno/isa/ir3-cat*.xml), so listings round-trip with Mesa's tools.
#pragma once

#include <adreno/error.hpp>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "ir3/generation.h"
#include "ir3/instruction.h"

namespace adreno::ir3 {

/// Prints one instruction of `gen` exactly as Mesa's disassembler does (branch targets as
/// `#offset`).
std::string to_text(const Instruction& instruction, Generation gen = Generation::a6xx);

/// Resolves a `#name` branch target to an offset relative to the branch; nullopt if unknown.
using LabelResolver = std::function<std::optional<std::int32_t>(std::string_view name)>;

/// A syntax error at a column (1-based) of the parsed text, naming the offending token. It is an
/// adreno::Error (malformed) whose detail reads "column N: message 'token'".
class SyntaxError : public Error {
 public:
  SyntaxError(std::size_t column, std::string message)
      : Error(Errc::malformed, "ir3 parse", "column " + std::to_string(column) + ": " + message),
        column_(column),
        message_(std::move(message)) {}
  std::size_t column() const noexcept { return column_; }
  const std::string& message() const noexcept { return message_; }

 private:
  std::size_t column_;
  std::string message_;
};

/// Parses one instruction (no label, no comment) of `gen`. Throws SyntaxError, also for an
/// instruction or form that exists only on the other generation, naming the token.
Instruction parse_instruction(std::string_view text, const LabelResolver& labels = {},
                              Generation gen = Generation::a6xx);

/// "rN.c" (file 'r') or "cN.c" (file 'c'): the regid, or nullopt if `text` is not one.
std::optional<std::uint16_t> parse_register(std::string_view text, char file);

/// Text helpers shared by the printer and the parser.
const char* type_name(Type type, bool atomic = false);
std::string register_name(std::uint16_t regid);

}  // namespace adreno::ir3
