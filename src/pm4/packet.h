// PM4 packet headers for a5xx and later (type 4: register writes, type 7: opcodes). Each header
// carries odd-parity bits over its count and its register/opcode fields; the CP rejects a header
// whose parity is wrong. Layout from Mesa src/freedreno/common/freedreno_pm4.h (pm4_pkt4_hdr,
// pm4_pkt7_hdr, pm4_odd_parity_bit) and adreno_pm4.xml (adreno_pm4_packet_type).
#pragma once

#include <bit>
#include <cstdint>
#include <optional>

namespace adreno::pm4 {

inline constexpr std::uint32_t kType4 = 0x40000000;  // CP_TYPE4_PKT
inline constexpr std::uint32_t kType7 = 0x70000000;  // CP_TYPE7_PKT
inline constexpr std::uint32_t kType4MaxCount = 0x7f;    // 7-bit count
inline constexpr std::uint32_t kType7MaxCount = 0x3fff;  // 14-bit count
inline constexpr std::uint32_t kMaxRegister = 0x3ffff;   // 18-bit register offset
inline constexpr std::uint32_t kMaxOpcode = 0x7f;        // 7-bit opcode

/// The bit that makes the number of set bits in (value, bit) odd.
constexpr std::uint32_t odd_parity_bit(std::uint32_t value) { return (std::popcount(value) & 1) ^ 1; }

/// Type-4 header: write `count` consecutive registers starting at `reg`.
constexpr std::uint32_t type4_header(std::uint32_t reg, std::uint32_t count) {
  return kType4 | count | (odd_parity_bit(count) << 7) | ((reg & kMaxRegister) << 8) |
         (odd_parity_bit(reg) << 27);
}

/// Type-7 header: opcode `opcode` followed by `count` payload dwords.
constexpr std::uint32_t type7_header(std::uint32_t opcode, std::uint32_t count) {
  return kType7 | count | (odd_parity_bit(count) << 15) | ((opcode & kMaxOpcode) << 16) |
         (odd_parity_bit(opcode) << 23);
}

struct Header {
  enum class Type { type4, type7 } type;
  std::uint32_t reg_or_opcode;  // register offset for type 4, opcode for type 7
  std::uint32_t count;          // payload dwords
};

/// Decodes a header; nullopt when the type is unknown, a parity bit is wrong or a reserved bit
/// is set — what the CP treats as an illegal packet.
constexpr std::optional<Header> decode_header(std::uint32_t dword) {
  if ((dword & 0xf0000000) == kType4) {
    std::uint32_t count = dword & 0x7f;
    std::uint32_t reg = (dword >> 8) & kMaxRegister;
    if (((dword >> 7) & 1) != odd_parity_bit(count)) return std::nullopt;
    if (((dword >> 27) & 1) != odd_parity_bit(reg)) return std::nullopt;
    if (dword & 0x04000000) return std::nullopt;  // bit 26 is not part of the header
    return Header{Header::Type::type4, reg, count};
  }
  if ((dword & 0xf0000000) == kType7) {
    std::uint32_t count = dword & 0x3fff;
    std::uint32_t opcode = (dword >> 16) & kMaxOpcode;
    if (((dword >> 15) & 1) != odd_parity_bit(count)) return std::nullopt;
    if (((dword >> 23) & 1) != odd_parity_bit(opcode)) return std::nullopt;
    if (dword & 0x0f004000) return std::nullopt;  // bits 24-27 and 14 are not part of the header
    return Header{Header::Type::type7, opcode, count};
  }
  return std::nullopt;
}

}  // namespace adreno::pm4
