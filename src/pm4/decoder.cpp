#include "pm4/decoder.h"
#include "pm4/packets.h"

#include <vector>

#include <fmt/format.h>

#include "pm4/enums.h"
#include "pm4/packet.h"
#include "pm4/packet_layouts.h"
#include "pm4/register_database.h"

namespace adreno::pm4 {
namespace {

// A register that is one hex value or address: its raw value already says everything.
bool is_plain_hex(const Register& reg) {
  return reg.fields.size() == 1 && reg.fields[0].name.empty() && reg.fields[0].low == 0 &&
         reg.fields[0].high == 32 * reg.dwords - 1 &&
         (reg.fields[0].type == FieldType::hex || reg.fields[0].type == FieldType::address);
}

std::string suffix_for(const Register& reg, std::uint64_t value, Gen gen) {
  return is_plain_hex(reg) ? std::string() : " " + format_fields(reg, value, gen);
}

std::string format_value(const Field& field, std::uint64_t value, GenMask gens) {
  switch (field.type) {
    case FieldType::uint: return fmt::format("{}", value);
    case FieldType::boolean: return value != 0 ? "true" : "false";
    case FieldType::regid: return regid_name(static_cast<std::uint32_t>(value));
    case FieldType::enumeration:
      if (const EnumValue* e = field.enum_type->find(static_cast<std::uint32_t>(value), gens)) return std::string(e->name);
      return fmt::format("{:#x} (not in {})", value, field.enum_type->name);
    case FieldType::address: return fmt::format("{:#018x}", value);
    case FieldType::hex: break;
  }
  return fmt::format("{:#x}", value);
}

struct Decoder {
  const ReadGpuMemory& read;
  const DecodeOptions& options;
  std::string out;

  void line(unsigned depth, GpuAddress at, std::string_view text) {
    out += fmt::format("{:{}}{:#014x}: {}\n", "", depth * 4, at.value(), text);
  }

  void follow(unsigned depth, std::string_view what, GpuAddress target, std::uint32_t dwords) {
    if (depth + 1 >= options.max_ib_depth) {
      out += fmt::format("{:{}}({} to {:#x} not followed: depth limit {})\n", "", (depth + 1) * 4, what,
                         target.value(), options.max_ib_depth);
      return;
    }
    std::vector<std::uint32_t> words(dwords);
    if (!read(target, words)) {
      out += fmt::format("{:{}}(cannot read {} dwords at {:#x})\n", "", (depth + 1) * 4, dwords, target.value());
      return;
    }
    out += fmt::format("{:{}}{} {:#x}, {} dwords:\n", "", (depth + 1) * 4, what, target.value(), dwords);
    stream(words, target, depth + 1);
  }

  void type4(std::span<const std::uint32_t> values, std::uint32_t first, GpuAddress at, unsigned depth) {
    for (std::size_t i = 0; i < values.size(); ++i) {
      GpuAddress here = at + 4 * (1 + i);
      std::uint32_t offset = first + static_cast<std::uint32_t>(i);
      std::optional<RegisterHit> hit = find_register(offset, options.gen);
      if (!hit) {
        line(depth, here, fmt::format("write {:#07x} = {:#010x}", offset, values[i]));
        continue;
      }
      if (hit->reg->dwords == 2 && hit->dword == 0 && i + 1 < values.size()) {
        std::uint64_t value = values[i] | (std::uint64_t{values[i + 1]} << 32);
        line(depth, here, fmt::format("write {} = {:#018x}{}", register_name(*hit), value, suffix_for(*hit->reg, value, options.gen)));
        ++i;
        continue;
      }
      std::string suffix = hit->reg->dwords == 1 ? suffix_for(*hit->reg, values[i], options.gen) : "";
      line(depth, here, fmt::format("write {} = {:#010x}{}", register_name(*hit), values[i], suffix));
    }
  }

  void type7(Opcode opcode, std::span<const std::uint32_t> payload, GpuAddress at, unsigned depth) {
    const EnumValue* name = enums::kOpcode.find(static_cast<std::uint32_t>(opcode), options.gen);
    line(depth, at,
         fmt::format("{} ({:#04x}), {} dwords", name ? name->name : std::string_view("CP_UNKNOWN"),
                     static_cast<unsigned>(opcode), payload.size()));
    std::size_t described = 0;
    if (const PacketLayout* layout = find_packet_layout(opcode, options.gen)) {
      for (const Register& entry : layout->payload) {
        if (entry.offset + entry.dwords > payload.size()) break;
        std::uint64_t value = payload[entry.offset];
        if (entry.dwords == 2) value |= std::uint64_t{payload[entry.offset + 1]} << 32;
        out += fmt::format("{:{}}{} = {}\n", "", depth * 4 + 16, entry.name, format_fields(entry, value, options.gen));
        described = entry.offset + entry.dwords;
      }
    }
    for (std::size_t i = described; i < payload.size(); ++i)
      out += fmt::format("{:{}}[{}] {:#010x}\n", "", depth * 4 + 16, i, payload[i]);

    if (options.disassemble_shader && is_load_state(opcode) && payload.size() >= 3) shader(payload, depth);

    bool is_call = opcode == Opcode::CP_INDIRECT_BUFFER;
    bool is_chain = opcode == Opcode::CP_INDIRECT_BUFFER_CHAIN;
    if ((is_call || is_chain) && payload.size() >= 3) {
      const Field& size = payload_entry(Opcode::CP_INDIRECT_BUFFER, "2").field("IB_SIZE");
      GpuAddress target(payload[0] | (std::uint64_t{payload[1]} << 32));
      auto dwords = static_cast<std::uint32_t>(size.extract(payload[2]));
      // A chain continues at the same level; printing it one level deeper keeps the nesting visible.
      follow(depth, is_chain ? "chain" : "IB", target, dwords);
    }
  }

  static bool is_load_state(Opcode opcode) {
    return opcode == Opcode::CP_LOAD_STATE6_FRAG || opcode == Opcode::CP_LOAD_STATE6_GEOM;
  }

  // Shows the code a CP_LOAD_STATE6 of ST6_SHADER loads: inline (SS6_DIRECT) or from memory
  // (SS6_INDIRECT), NUM_UNIT units of 128 bytes (16 instructions).
  void shader(std::span<const std::uint32_t> payload, unsigned depth) {
    using packet_field::kNumUnit, packet_field::kStateSrc, packet_field::kStateType;
    if (static_cast<StateType>(kStateType.extract(payload[0])) != StateType::ST6_SHADER) return;
    const auto source = static_cast<StateSrc>(kStateSrc.extract(payload[0]));
    const auto dwords = static_cast<std::uint32_t>(kNumUnit.extract(payload[0])) * 32;
    std::vector<std::uint32_t> code;
    if (source == StateSrc::SS6_DIRECT) {
      code.assign(payload.begin() + 3, payload.end());
    } else if (source == StateSrc::SS6_INDIRECT) {
      code.resize(dwords);
      if (!read(GpuAddress(payload[1] | (std::uint64_t{payload[2]} << 32)), code)) {
        out += fmt::format("{:{}}(shader code not readable)\n", "", depth * 4 + 16);
        return;
      }
    } else {
      return;
    }
    std::string text = options.disassemble_shader(code);
    std::size_t start = 0;
    while (start < text.size()) {
      std::size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      out += fmt::format("{:{}}{}\n", "", depth * 4 + 16, std::string_view(text).substr(start, end - start));
      start = end + 1;
    }
  }

  void stream(std::span<const std::uint32_t> dwords, GpuAddress base, unsigned depth) {
    std::size_t i = 0;
    while (i < dwords.size()) {
      GpuAddress at = base + 4 * i;
      std::optional<Header> header = decode_header(dwords[i]);
      if (!header) {
        line(depth, at, fmt::format("{:#010x} is not a valid type-4/type-7 header; stopping", dwords[i]));
        return;
      }
      if (i + 1 + header->count > dwords.size()) {
        line(depth, at, fmt::format("{:#010x}: packet of {} dwords runs past the end of the buffer ({} left)",
                                    dwords[i], header->count, dwords.size() - i - 1));
        return;
      }
      std::span<const std::uint32_t> payload = dwords.subspan(i + 1, header->count);
      if (header->type == Header::Type::type4)
        type4(payload, header->reg_or_opcode, at, depth);
      else
        type7(static_cast<Opcode>(header->reg_or_opcode), payload, at, depth);
      i += 1 + header->count;
    }
  }
};

}  // namespace

std::string format_fields(const Register& reg, std::uint64_t value, GenMask gens) {
  std::string text;
  std::uint64_t known = 0;
  for (const Field& field : reg.fields) {
    known |= field.mask();
    std::uint64_t v = field.extract(value);
    if (field.name.empty()) {
      text += format_value(field, v, gens);
      continue;
    }
    if (field.type == FieldType::boolean) {
      if (v != 0) text += fmt::format("{}{}", text.empty() ? "" : " | ", field.name);
      continue;
    }
    text += fmt::format("{}{} = {}", text.empty() ? "" : " | ", field.name, format_value(field, v, gens));
  }
  std::uint64_t width_mask = reg.dwords == 2 ? ~0ull : 0xffffffffull;
  if (std::uint64_t unknown = value & width_mask & ~known; unknown != 0)
    text += fmt::format("{}unknown bits {:#x}", text.empty() ? "" : " | ", unknown);
  bool whole = reg.fields.size() == 1 && reg.fields[0].name.empty();
  return whole ? text : "{ " + text + " }";
}

std::string decode_stream(std::span<const std::uint32_t> dwords, GpuAddress base, const ReadGpuMemory& read,
                          const DecodeOptions& options) {
  Decoder decoder{read, options, {}};
  decoder.stream(dwords, base, 0);
  return std::move(decoder.out);
}

std::string decode_ib(GpuAddress address, std::uint32_t dwords, const ReadGpuMemory& read,
                      const DecodeOptions& options) {
  // No IB the CP can run is longer than IB_SIZE expresses; a longer one (a damaged .rd dump's
  // command stream size) is reported instead of read, which would allocate up to 16 GiB.
  const Field& size = payload_entry(Opcode::CP_INDIRECT_BUFFER, "2").field("IB_SIZE");
  if (dwords >> size.width() != 0)
    return fmt::format("(an IB of {} dwords at {:#x} is longer than IB_SIZE can express)\n", dwords, address.value());
  std::vector<std::uint32_t> words(dwords);
  if (!read(address, words)) return fmt::format("(cannot read {} dwords at {:#x})\n", dwords, address.value());
  return decode_stream(words, address, read, options);
}

}  // namespace adreno::pm4
