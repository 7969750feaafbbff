// One ir3 instruction in decoded, structured form: what decode() produces, encode() consumes,
// and the interpreter executes. Plain data, no allocation, so a program can be predecoded once.
#pragma once

#include <array>
#include <cstdint>

#include "ir3/opcodes.h"

namespace adreno::ir3 {

/// The 3-bit type field of cat1/cat5/cat6 (Mesa ir3-common.xml #type; 6 is u64 in atomics).
enum class Type : std::uint8_t { f16 = 0, f32, u16, u32, s16, s32, u8, u8_32 };

/// True for the 16-bit (and 8-bit) types whose registers are half registers.
constexpr bool is_half(Type t) noexcept {
  return t == Type::f16 || t == Type::u16 || t == Type::s16 || t == Type::u8;
}

/// log2 of the element size that scales ldg.a/stg.a offsets (ir3-cat6.xml #cat6-type-shift).
constexpr unsigned type_shift(Type t) noexcept {
  return static_cast<unsigned>(t) >= 6 ? 0 : (is_half(t) ? 1 : 2);
}

/// cat1 also treats u8_32 as a half-register type (ir3-cat1.xml #instruction-cat1-typed HALF).
constexpr bool is_cat1_half(Type t) noexcept { return is_half(t) || t == Type::u8_32; }

/// cat5 s2en/bindless descriptor modes (ir3-cat5.xml #cat5-s2en-bindless-desc-mode): whether the
/// sampler/texture come from a register, whether they are bindless, whether a1.x supplies them.
inline constexpr unsigned kDescriptorModeCount = 8;
constexpr bool desc_indirect(unsigned mode) noexcept { return mode < 6; }
constexpr bool desc_bindless(unsigned mode) noexcept { return mode != 0 && mode != 4; }
constexpr bool desc_uses_a1(unsigned mode) noexcept { return mode == 1 || mode == 3 || mode == 7; }
constexpr bool desc_uniform(unsigned mode) noexcept { return mode == 0 || mode == 1 || mode == 5; }

/// Register numbers are "regids": 4 * register + component (x=0 … w=3), as in the encoding.
constexpr std::uint16_t regid(unsigned reg, unsigned comp) noexcept {
  return static_cast<std::uint16_t>(reg * 4 + comp);
}
/// GPR numbers that name special registers instead of r61/r62.
inline constexpr unsigned kAddressReg = 61;    ///< a0.x (a1.x as a0.y) in cat1; up0 in cat2 dst
inline constexpr unsigned kPredicateReg = 62;  ///< p0.c
/// Registers from r48 up are the shared (uniform) file on a6xx: not in the per-fiber footprint.
inline constexpr unsigned kFirstSharedReg = 48;

enum class OperandKind : std::uint8_t {
  none,
  gpr,             ///< rN.c / hrN.c (also a0/p0 via kAddressReg/kPredicateReg)
  constant,        ///< cN.c / hcN.c
  immediate,       ///< an immediate value (see Operand::value)
  relative_gpr,    ///< r<a0.x + offset>
  relative_const,  ///< c<a0.x + offset>
};

struct Operand {
  OperandKind kind = OperandKind::none;
  std::uint16_t reg = 0;   ///< regid for gpr/constant
  std::int32_t value = 0;  ///< immediate bits (raw), or the relative offset
  bool half = false;       ///< half-precision register
  bool neg = false;        ///< (neg)
  bool abs = false;        ///< (abs)
  bool repeat = false;     ///< (r): advances with (rptN)
  bool last = false;       ///< (last): the register is dead after this read until written again
                           ///< (Mesa ir3.h IR3_REG_LAST_USE; introduced on a7xx)
  bool flut = false;       ///< immediate is an index into the float lookup table (cat2/cat4)

  friend bool operator==(const Operand&, const Operand&) = default;
};

/// Fields specific to one category live in small groups; the rest is shared.
///
/// Where the operands of each form go (the order Mesa prints them in, unless noted):
///   cat1 mov/cov/mova : dst, src[0]                      (types: src_type -> type)
///        movs         : dst, src[0] the value, src[1] the fiber (immediate, or a0.x)
///        swz          : dst = dst0, src = {src0, src1, dst1}
///        gat          : dst, src = {src0, src1, src2, src3}
///        sct          : dst = dst0, src = {src0, dst1, dst2, dst3}
///        movmsk       : dst; width = (repeat + 1) * 32
///   cat2/cat4         : dst, src[0], src[1]
///   cat3              : dst, src[0..2]                    (src[1] is always a register)
///   cat5              : dst, src[0] coordinate, src[1] second coordinate / offset register
///                       (an immediate for isam's offset), src[2] the s2en descriptor register
///   cat6 ldg, ldl/ldp/ldlw : dst, src[0] address;        mem.offset, mem.size
///        ldg.a        : dst, src[0] base, src[1] index;  byte offset =
///                       ((index << mem.shift) + mem.offset) << log2(type size)
///        ldg.a (a7xx) : dst, src[0] base (register or const), src[1] index; byte offset =
///                       index + mem.offset
///        ldg.k, stc   : dst is constant (dst.value = c[] offset, mem.const_dst_a1 adds a1.x)
///        stg, stl/stp/stlw : src[0] address, src[1] value
///        stg.a        : src[0] base, src[1] index, src[2] value (a7xx: as ldg.a)
///        stsc         : dst is constant (dst.value = c[] offset), src[0] the immediate first
///                       shared const, mem.size dwords
///        ldlv         : dst; mem.offset
///        atomic.*     : dst, src[0] address (l[] for local), src[1] operand
///        ldib.b/stib.b, atomic.b.* : src[0] value register (ldib: its destination),
///                       src[1] coordinate, src[2] descriptor (immediate in .imm mode)
///        ldc          : dst, src[0] offset, src[1] descriptor; ldc.k: mem.size vec4s
///        resinfo.b    : dst, src[0] descriptor
///        shfl         : dst, src[0] value, src[1] lane delta/mask
///        ray_intersection : dst, src[0] the acceleration structure address (register or
///                       const), src[1..3] SRC2..SRC4
///   cat7 alias        : dst (a register, or with alias.scope 1 a render target rtN.c in
///                       dst.reg), src[0] a register, const or immediate
///   cat0 branches     : flow.target relative to the branch; predicates in flow.invert/comp
struct Instruction {
  Opcode opcode = Opcode::nop;

  // Scheduling and control flags.
  bool sy = false, ss = false, jp = false, ul = false, sat = false, eq = false, ei = false;
  std::uint8_t repeat = 0;  ///< (rptN)
  std::uint8_t nop = 0;     ///< (nopN) on cat2/cat3

  Operand dst;
  std::array<Operand, 4> src{};

  Type src_type = Type::f16;  ///< cat1 source type
  Type type = Type::f16;      ///< cat1 destination type, cat5/cat6 data type
  std::uint8_t round = 0;     ///< cat1 rounding mode
  std::uint8_t cond = 0;      ///< cat2 compare: lt le gt ge eq ne

  struct Flow {               // cat0
    std::int32_t target = 0;  ///< branch offset in instructions, relative to this one
    std::array<bool, 2> invert{};
    std::array<std::uint8_t, 2> comp{};  ///< p0 component of each predicate source
    std::uint8_t index = 0;              ///< brac index / getlast cluster size log2 - 1
    bool eolm = false, eogm = false, eostsc = false;
    friend bool operator==(const Flow&, const Flow&) = default;
  } flow;

  struct Dot {  // cat3 dp2acc/dp4acc
    bool mixed = false, high = false;
    friend bool operator==(const Dot&, const Dot&) = default;
  } dot;

  struct Tex {  // cat5
    std::uint8_t wrmask = 0, samp = 0, tex = 0, base = 0, desc_mode = 0, cluster = 0;
    bool is_3d = false, array = false, offset = false, proj = false, sv = false;
    bool s2en_bindless = false, not_1d = false, full = false;
    friend bool operator==(const Tex&, const Tex&) = default;
  } tex;

  struct Mem {                // cat6
    std::uint8_t size = 0;    ///< components (SIZE / TYPE_SIZE)
    std::int32_t offset = 0;  ///< immediate byte/element offset
    std::uint8_t shift = 0;   ///< ldg.a/stg.a SRC2_SHIFT
    std::uint8_t dim = 1;     ///< 1d..4d
    bool typed = false, bindless = false, rck = false, uniform_u = false;
    std::uint8_t mode = 0;       ///< 0 imm, 1 uniform, 2 nonuniform
    std::uint8_t base = 0;       ///< bindless base
    std::uint8_t shfl_mode = 0;  ///< 1 xor, 2 up, 3 down, 6 rup, 7 rdown
    bool const_dst_a1 = false;   ///< c[a1.x + N] destination (stc/ldg.k)
    friend bool operator==(const Mem&, const Mem&) = default;
  } mem;

  struct Sync {  // cat7
    bool g = false, l = false, r = false, w = false;
    bool flag = false;  ///< sleep .l / cache .all
    friend bool operator==(const Sync&, const Sync&) = default;
  } sync;

  struct Alias {  // cat7 alias (a7xx)
    std::uint8_t scope = 0;       ///< 0 tex, 1 rt, 2 and 3 mem (#alias-scope)
    std::uint8_t table_size_minus_one = 0;
    bool integer = false;         ///< TYPE: b rather than f (only changes how immediates show)
    bool size32 = false;          ///< TYPE_SIZE: 32 rather than 16 bits
    friend bool operator==(const Alias&, const Alias&) = default;
  } alias;

  friend bool operator==(const Instruction&, const Instruction&) = default;
};

}  // namespace adreno::ir3
