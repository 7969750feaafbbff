#include "ir3/assembler.h"

#include <adreno/error.hpp>
#include <bit>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <string>
#include <unordered_map>
#include <utility>

#include "ir3/codec.h"
#include "ir3/legalize.h"
#include "ir3/text.h"

namespace adreno::ir3 {
namespace {

struct Line {
  std::string_view text;  // comment removed, not trimmed
  std::size_t number;     // 1-based
  std::string_view raw;   // as written
};

[[noreturn]] void error_at(std::size_t line, std::size_t column, const std::string& message) {
  throw Error(Errc::malformed, "ir3 assemble",
              std::to_string(line) + ":" + std::to_string(column) + ": " + message);
}

std::size_t skip_space(std::string_view s, std::size_t pos) {
  while (pos < s.size() && std::isspace(static_cast<unsigned char>(s[pos]))) ++pos;
  return pos;
}

std::string_view strip_comment(std::string_view s) {
  const std::size_t semicolon = s.find(';');
  const std::size_t slashes = s.find("//");
  return s.substr(0, std::min(semicolon, slashes));
}

bool is_label_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}

// "name:" at the start of the text; returns the length of the name, 0 if there is no label.
std::size_t label_length(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && is_label_char(s[i])) ++i;
  return (i > 0 && i < s.size() && s[i] == ':' && !std::isdigit(static_cast<unsigned char>(s[0])))
             ? i
             : 0;
}

// A directive value: integer (decimal or 0x hex) or float (stored as its bits).
std::uint32_t directive_value(std::string_view token, std::size_t line, std::size_t column) {
  std::string text(token);
  char* end = nullptr;
  if (text.find_first_of(".eE") != std::string::npos && text.find("0x") == std::string::npos) {
    const float value = std::strtof(text.c_str(), &end);
    if (end != text.c_str() && *end == '\0') return std::bit_cast<std::uint32_t>(value);
  } else {
    const long long value = std::strtoll(text.c_str(), &end, 0);
    if (end != text.c_str() && *end == '\0' && value >= INT32_MIN && value <= UINT32_MAX) {
      return static_cast<std::uint32_t>(value);
    }
  }
  error_at(line, column, "expected a number, got '" + text + "'");
}

struct Cursor {
  std::string_view s;
  std::size_t pos;
  std::size_t line;

  std::size_t column() const { return pos + 1; }
  bool done() {
    pos = skip_space(s, pos);
    return pos >= s.size();
  }
  void expect(char c) {
    if (done() || s[pos] != c) {
      error_at(line, column(),
               std::string("expected '") + c + "' at '" + std::string(rest()) + "'");
    }
    ++pos;
  }
  bool accept(char c) {
    if (!done() && s[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  std::string_view rest() const { return s.substr(std::min(pos, s.size())); }
  // A token up to whitespace, ',' or ')'.
  std::pair<std::string_view, std::size_t> token() {
    done();
    const std::size_t start = pos;
    while (pos < s.size() && !std::isspace(static_cast<unsigned char>(s[pos])) && s[pos] != ',' &&
           s[pos] != ')') {
      ++pos;
    }
    if (pos == start) error_at(line, column(), "expected a value at '" + std::string(rest()) + "'");
    return {s.substr(start, pos - start), start + 1};
  }
  std::uint32_t value() {
    auto [text, col] = token();
    return directive_value(text, line, col);
  }
  std::uint16_t reg(char file) {
    auto [text, col] = token();
    const auto id = parse_register(text, file);
    if (!id) {
      error_at(line, col,
               std::string("expected a ") + (file == 'r' ? "register" : "const") + " such as " +
                   file + "0.x, got '" + std::string(text) + "'");
    }
    return *id;
  }
  void end() {
    if (!done()) error_at(line, column(), "unexpected '" + std::string(rest()) + "'");
  }
};

// The instruction sections of Mesa's parser (ir3_parser_support.c new_instr): inside them each
// instruction gets a nop placed before it.
struct Sections {
  bool full_nop = false;   // (rpt5)nop: every delay slot an ALU result can need
  bool full_sync = false;  // (ss)(sy)nop: every outstanding load complete
};

void directive(const Line& line, std::size_t start, LaunchInfo& launch, Sections& sections) {
  Cursor c{line.text, start + 1, line.number};
  std::size_t name_end = c.pos;
  while (name_end < line.text.size() &&
         std::isalpha(static_cast<unsigned char>(line.text[name_end]))) {
    ++name_end;
  }
  const std::string_view name = line.text.substr(c.pos, name_end - c.pos);
  c.pos = name_end;
  if (name == "fullnopstart" || name == "fullnopend") {
    sections.full_nop = name == "fullnopstart";
  } else if (name == "fullsyncstart" || name == "fullsyncend") {
    sections.full_sync = name == "fullsyncstart";
  } else if (name == "localsize") {
    for (std::size_t i = 0; i < 3; ++i) {
      if (i) c.expect(',');
      launch.local_size[i] = c.value();
    }
  } else if (name == "buf" || name == "ubo") {
    BufferSlot buffer;
    buffer.uniform = name == "ubo";
    buffer.size_dwords = c.value();
    if (c.accept('(')) {
      buffer.address_const = c.reg('c');
      c.expect(')');
    }
    if (!c.done()) {
      do {
        buffer.initial.push_back(c.value());
      } while (c.accept(','));
    }
    launch.buffers.push_back(std::move(buffer));
  } else if (name == "const") {
    ConstValues values;
    c.expect('(');
    values.regid = c.reg('c');
    c.expect(')');
    for (std::size_t i = 0; i < 4; ++i) {
      if (i) c.expect(',');
      values.values[i] = c.value();
    }
    launch.constants.push_back(values);
  } else if (name == "branchstack") {
    launch.branch_stack = c.value();
  } else if (name == "localmem") {
    launch.local_memory_bytes = c.value();
  } else if (name == "pvtmem") {
    launch.private_memory_bytes = c.value();
  } else if (name == "in" || name == "out" || name == "tex") {
    error_at(line.number, start + 1,
             "@" + std::string(name) + " declares a graphics-stage " +
                 (name == "tex" ? "texture prefetch" : name == "in" ? "input" : "output") +
                 ", which a compute kernel has none of (Mesa's parser accepts it and ignores it)");
  } else if (name == "earlypreamble") {
    launch.early_preamble = true;
  } else if (name == "invocationid" || name == "wgid" || name == "numwg") {
    c.expect('(');
    const std::uint16_t reg = c.reg(name == "numwg" ? 'c' : 'r');
    c.expect(')');
    if (name == "invocationid") {
      launch.local_id_regid = reg;
    } else if (name == "wgid") {
      launch.work_group_id_regid = reg;
    } else {
      launch.num_work_groups_const = reg;
    }
  } else {
    error_at(line.number, start + 1, "unknown directive '@" + std::string(name) + "'");
  }
  c.end();
}

std::uint64_t raw_word(std::string_view text, std::size_t line, std::size_t column) {
  std::string_view hex = text;
  std::uint64_t value = 0;
  const bool prefixed = hex.substr(0, 2) == "0x" || hex.substr(0, 2) == "0X";
  if (prefixed) hex.remove_prefix(2);
  auto [end, error] = std::from_chars(hex.data(), hex.data() + hex.size(), value, 16);
  if (!prefixed || error != std::errc() || end != hex.data() + hex.size()) {
    error_at(line, column, "expected raw 0x<hex word>, got '" + std::string(text) + "'");
  }
  return value;
}


struct Pending {
  Line line;
  std::size_t start;  // offset of the instruction in the line
  std::string carried;  // flags written after the previous instruction, which Mesa gives this one
};

// Mesa's lexer skips line ends, so flags written after an instruction — computerator's
// stg_ldg_offset.asm has "nop(sy)" — belong to the next one ("nop" then "(sy)ldg.a…"). Returns
// how many trailing characters of `text` are such flags ("(sy)", "(ss)(sy)", …).
std::size_t trailing_flags(std::string_view text) {
  std::size_t keep = text.size();
  while (keep > 0 && std::isspace(static_cast<unsigned char>(text[keep - 1]))) --keep;
  std::size_t flags_from = text.size();
  while (keep > 0 && text[keep - 1] == ')') {
    const std::size_t open = text.rfind('(', keep - 1);
    if (open == std::string_view::npos) break;
    const std::string_view name = text.substr(open + 1, keep - 1 - open - 1);
    const bool counted = (name.substr(0, 3) == "rpt" || name.substr(0, 3) == "nop") && name.size() == 4 &&
                         std::isdigit(static_cast<unsigned char>(name[3]));
    if (!counted && name != "sy" && name != "ss" && name != "jp" && name != "ul" && name != "sat" && name != "eq") break;
    flags_from = open;
    keep = open;
  }
  return text.size() - flags_from;
}

// The instructions of a source, in order, with the line each came from.
struct Parsed {
  Program program;  // launch info only
  std::vector<Pending> pending;
  std::vector<Instruction> code;
  std::vector<std::uint64_t> raw;  // the word of each `raw` line, else 0
  std::vector<bool> is_raw;
};

Parsed parse(std::string_view source, Generation gen) {
  Parsed parsed;
  Program& program = parsed.program;
  std::vector<Pending>& pending = parsed.pending;
  std::unordered_map<std::string, std::int32_t> labels;
  std::size_t number = 0;
  Sections sections;
  std::string carried;  // trailing flags waiting for the next instruction
  for (std::size_t begin = 0; begin <= source.size();) {
    std::size_t end = source.find('\n', begin);
    if (end == std::string_view::npos) end = source.size();
    const Line line{strip_comment(source.substr(begin, end - begin)), ++number, source.substr(begin, end - begin)};
    begin = end + 1;
    std::size_t pos = skip_space(line.text, 0);
    while (std::size_t length = label_length(line.text.substr(pos))) {
      const std::string name(line.text.substr(pos, length));
      if (!labels.emplace(name, static_cast<std::int32_t>(pending.size())).second) {
        error_at(line.number, pos + 1, "label '" + name + "' defined twice");
      }
      pos = skip_space(line.text, pos + length + 1);
    }
    if (pos >= line.text.size()) continue;
    if (line.text[pos] == '@') {
      directive(line, pos, program.launch, sections);
      continue;
    }
    if (line.text.substr(pos, 4) != "raw ") {
      if (sections.full_nop) pending.push_back({Line{"(rpt5)nop", line.number, line.raw}, 0, {}});
      if (sections.full_sync) pending.push_back({Line{"(ss)(sy)nop", line.number, line.raw}, 0, {}});
    }
    const bool raw = line.text.substr(pos, 4) == "raw ";
    if (raw && !carried.empty()) error_at(line.number, pos + 1, "flags '" + carried + "' cannot go on a raw word");
    const std::size_t flags = raw ? 0 : trailing_flags(line.text.substr(pos));
    const std::string_view own = line.text.substr(0, line.text.size() - flags);
    std::string flags_text(line.text.substr(own.size()));
    if (skip_space(own, pos) < own.size()) pending.push_back({Line{own, line.number, line.raw}, pos, std::move(carried)});
    else flags_text = carried + flags_text;  // a line of flags only: they go on too
    carried = std::move(flags_text);
    while (!carried.empty() && std::isspace(static_cast<unsigned char>(carried.back()))) carried.pop_back();
  }
  if (!carried.empty()) error_at(number, 1, "flags '" + carried + "' at the end, with no instruction after them");

  for (std::size_t index = 0; index < pending.size(); ++index) {
    const auto& [line, start, carried_flags] = pending[index];
    const std::string joined = carried_flags + std::string(line.text.substr(start));
    std::string_view text = joined;
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
      text.remove_suffix(1);
    if (text.substr(0, 4) == "raw ") {
      const std::size_t value_at = skip_space(text, 4);
      parsed.raw.push_back(raw_word(text.substr(value_at), line.number, start + value_at + 1));
      parsed.is_raw.push_back(true);
      parsed.code.emplace_back();
      continue;
    }
    LabelResolver resolve = [&](std::string_view name) -> std::optional<std::int32_t> {
      auto found = labels.find(std::string(name));
      if (found == labels.end()) return std::nullopt;
      return found->second - static_cast<std::int32_t>(index);
    };
    try {
      const Instruction in = parse_instruction(text, resolve, gen);
      encode(in, gen);  // an instruction the encoding cannot hold is refused here, on its line
      parsed.code.push_back(in);
      parsed.raw.push_back(0);
      parsed.is_raw.push_back(false);
    } catch (const SyntaxError& e) {
      // A column inside carried flags points at where this instruction's own text starts.
      error_at(line.number, start + std::max<std::size_t>(e.column(), carried_flags.size() + 1) - carried_flags.size(), e.message());
    } catch (const Error& e) {
      error_at(line.number, start + 1, e.detail() + " in '" + std::string(text) + "'");
    }
  }
  return parsed;
}

// The instructions to schedule: parsed ones as they are, raw words decoded.
std::vector<Instruction> decoded(const Parsed& parsed, Generation gen) {
  std::vector<Instruction> code = parsed.code;
  for (std::size_t i = 0; i < code.size(); ++i) {
    if (!parsed.is_raw[i]) continue;
    try {
      code[i] = decode(parsed.raw[i], gen);
    } catch (const Error& e) {
      error_at(parsed.pending[i].line.number, parsed.pending[i].start + 1, "the legalizer needs every word decodable: " + e.detail());
    }
  }
  return code;
}

}  // namespace

Program assemble(std::string_view source, RegisterFile file, Scheduling scheduling, Generation gen) {
  Parsed parsed = parse(source, gen);
  Program program = std::move(parsed.program);
  program.generation = gen;
  if (scheduling == Scheduling::legalize) {
    for (const Placed& placed : legalize(decoded(parsed, gen), file, gen)) program.words.push_back(encode(placed.instruction, gen));
  } else {
    for (std::size_t i = 0; i < parsed.code.size(); ++i)
      program.words.push_back(parsed.is_raw[i] ? parsed.raw[i] : encode(parsed.code[i], gen));
  }
  program.info = analyze(program.words, file, gen);
  return program;
}

std::string legalize_source(std::string_view source, RegisterFile file, Generation gen) {
  const Parsed parsed = parse(source, gen);
  const std::vector<Placed> placed = legalize(decoded(parsed, gen), file, gen);
  // What goes in front of each original instruction (before its label, and after it), and the
  // flags each gained.
  const std::vector<Instruction> original = decoded(parsed, gen);
  std::vector<std::string> outside(original.size()), inside(original.size()), prefix(original.size()),
      rewritten(original.size());
  std::string outside_nops, inside_nops;
  for (const Placed& p : placed) {
    if (p.origin < 0) {
      (p.before_label ? outside_nops : inside_nops) += "    " + to_text(p.instruction, gen) + "\n";
      continue;
    }
    const auto index = static_cast<std::size_t>(p.origin);
    outside[index] = std::exchange(outside_nops, {});
    inside[index] = std::exchange(inside_nops, {});
    const Instruction& was = original[index];
    if (p.instruction.sy && !was.sy) prefix[index] += "(sy)";
    if (p.instruction.ss && !was.ss) prefix[index] += "(ss)";
    // More slots on the instruction itself, or its (jp) handed to a nop before it: it is written
    // out again whole (it is no branch).
    if (p.instruction.nop != was.nop || p.instruction.repeat != was.repeat || p.instruction.jp != was.jp) {
      rewritten[index] = to_text(p.instruction, gen);
    }
  }
  std::string out;
  std::size_t index = 0;
  for (std::size_t begin = 0; begin <= source.size();) {
    std::size_t end = source.find('\n', begin);
    if (end == std::string_view::npos) end = source.size();
    const std::string_view raw = source.substr(begin, end - begin);
    begin = end + 1;
    const bool labelled = label_length(strip_comment(raw).substr(skip_space(strip_comment(raw), 0))) > 0;
    // The nops only the fall-through path runs go before the first label of the instruction.
    if (index < parsed.pending.size() && (labelled || parsed.pending[index].line.raw.data() == raw.data())) {
      out += std::exchange(outside[index], {});
    }
    if (index < parsed.pending.size() && parsed.pending[index].line.raw.data() == raw.data()) {
      // Labels stay in front of the other inserted nops, so branches to them wait too.
      const std::size_t at = parsed.pending[index].start;
      if (raw.substr(0, at).find_first_not_of(" \t") != std::string_view::npos) out += std::string(raw.substr(0, at)) + "\n";
      const std::string text = rewritten[index].empty() ? prefix[index] + std::string(raw.substr(at)) : rewritten[index];
      out += inside[index] + std::string(at, ' ') + text + "\n";
      ++index;
    } else {
      out += std::string(raw) + "\n";
    }
  }
  out.pop_back();  // the newline after the last line, which the source ends with or not
  return out;
}

}  // namespace adreno::ir3
