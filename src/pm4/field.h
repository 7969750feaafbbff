// The schema of the register database: enums, bit fields, registers and the chip generations
// they exist on. The same schema describes MMIO registers (offset = register offset) and PM4
// packet payloads (offset = dword index in the payload), as Mesa's rules-ng XML does with
// <domain>s. Packing is constexpr so that an encode with constant field descriptors folds into a
// few shifts and ors; a value that does not fit its field is rejected, never truncated into a
// neighbouring field.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>

namespace adreno::pm4 {

/// Chip generations an entry exists on (the XML's variants="A6XX", "A7XX-").
enum Gen : std::uint8_t { kA6xx = 1u << 0, kA7xx = 1u << 1 };
using GenMask = std::uint8_t;
inline constexpr GenMask kA6xxA7xx = kA6xx | kA7xx;

struct EnumValue {
  std::uint32_t value;
  std::string_view name;
  std::string_view former_name = {};  // name used by older Mesa, tinygrad and docs, if it changed
  GenMask gens = kA6xxA7xx;           // the generations the value has this meaning on
};

struct EnumType {
  std::string_view name;
  std::span<const EnumValue> values;

  /// The value's meaning on `gens` (a value can name different things per generation, as
  /// vgt_event_type 0x31 is CACHE_INVALIDATE on a6xx and CACHE_CLEAN on a7xx).
  constexpr const EnumValue* find(std::uint32_t value, GenMask gens = kA6xxA7xx) const {
    for (const EnumValue& v : values)
      if (v.value == value && (v.gens & gens) != 0) return &v;
    return nullptr;
  }
};

/// How a field's value is shown; `regid` is an ir3 register number (r<n>.<xyzw>).
enum class FieldType : std::uint8_t { uint, hex, boolean, enumeration, regid, address };

struct Field;
[[noreturn]] void throw_field_out_of_range(const Field& field, std::uint64_t value);

/// Bits [low, high] of a 32- or 64-bit register. `shr` is the XML's shift: the field stores
/// value >> shr, so values must be multiples of 1 << shr.
struct Field {
  std::string_view name;  // empty for a register that is one whole value
  std::uint8_t low;
  std::uint8_t high;
  std::uint8_t shr = 0;
  FieldType type = FieldType::hex;
  const EnumType* enum_type = nullptr;

  constexpr unsigned width() const { return high - low + 1u; }
  constexpr std::uint64_t stored_max() const { return width() >= 64 ? ~0ull : (1ull << width()) - 1; }
  constexpr std::uint64_t mask() const { return stored_max() << low; }
  /// The largest value pack() accepts.
  constexpr std::uint64_t max_value() const { return stored_max() << shr; }

  constexpr bool fits(std::uint64_t value) const {
    std::uint64_t misaligned = value & ((1ull << shr) - 1);
    return misaligned == 0 && (value >> shr) <= stored_max();
  }
  /// The field's bits for `value`; throws adreno::Error(invalid_argument) when it does not fit.
  constexpr std::uint64_t pack(std::uint64_t value) const {
    if (!fits(value)) throw_field_out_of_range(*this, value);
    return (value >> shr) << low;
  }
  constexpr std::uint64_t extract(std::uint64_t raw) const { return ((raw & mask()) >> low) << shr; }
};

struct FieldValue {
  std::string_view field;
  std::uint64_t value;
};

struct Register;
[[noreturn]] void throw_no_such_field(const Register& reg, std::string_view field);

/// A 32- or 64-bit register, or an array of them (<array> in the XML), or one payload dword
/// (or dword pair) of a PM4 packet.
struct Register {
  std::uint32_t offset;
  std::string_view name;
  std::string_view former_names;  // space-separated names older Mesa, tinygrad and docs use
  std::span<const Field> fields;
  std::uint8_t dwords = 1;  // 2 for reg64: low dword at offset, high at offset + 1
  std::uint16_t array_length = 1;
  std::uint16_t array_stride = 0;
  GenMask gens = kA6xx;

  constexpr std::uint32_t offset_of(unsigned index) const { return offset + index * array_stride; }
  constexpr std::uint32_t end() const { return offset_of(array_length - 1u) + dwords; }

  constexpr const Field* find_field(std::string_view field_name) const {
    for (const Field& f : fields)
      if (f.name == field_name) return &f;
    return nullptr;
  }
  constexpr const Field& field(std::string_view field_name) const {
    // Loops itself rather than null-checking find_field(): GCC cannot constant-evaluate that
    // comparison under -fsanitize=undefined.
    for (const Field& f : fields)
      if (f.name == field_name) return f;
    throw_no_such_field(*this, field_name);
  }
  /// Packs named fields; unnamed fields are zero. Throws on an unknown field or a bad value.
  constexpr std::uint64_t pack(std::initializer_list<FieldValue> values) const {
    std::uint64_t raw = 0;
    for (const FieldValue& v : values) raw |= field(v.field).pack(v.value);
    return raw;
  }
};

}  // namespace adreno::pm4
