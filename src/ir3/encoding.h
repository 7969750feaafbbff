// Bit positions of the ir3 instruction word, from Mesa src/freedreno/isa/ir3-common.xml and
// ir3-cat*.xml (commits listed in opcodes.h); the a7xx-only fields come from Mesa 26.0-devel
// (d02ba9bb9c01). A field is [low, high], inclusive, bit 0 = LSB of the 64-bit word (the low
// dword comes first in memory).
#pragma once

#include <cstdint>

namespace adreno::ir3::bits {

struct Field {
  unsigned low, high;
  constexpr unsigned width() const { return high - low + 1; }
  constexpr std::uint64_t mask() const { return (std::uint64_t{1} << width()) - 1; }
  constexpr std::uint64_t get(std::uint64_t word) const { return (word >> low) & mask(); }
};
constexpr Field bit(unsigned pos) { return {pos, pos}; }

// Shared by every category.
inline constexpr Field kCategory{61, 63};
inline constexpr Field kSy = bit(60);
inline constexpr Field kJp = bit(59);
inline constexpr Field kSs = bit(44);  // cat0-4 and cat7
inline constexpr Field kUl = bit(45);  // cat1-4

namespace cat0 {
inline constexpr Field kImmed{0, 31};
inline constexpr Field kIndex{32, 36};  // brac
inline constexpr Field kEolm = bit(32);
inline constexpr Field kEogm = bit(33);
inline constexpr Field kEostsc = bit(34);
inline constexpr Field kBareZero{35, 36};  // 0src forms: must be 0
inline constexpr Field kBrType{37, 39};
inline constexpr Field kRepeat{40, 42};
inline constexpr Field kInv2 = bit(45);
inline constexpr Field kComp2{46, 47};
inline constexpr Field kEq = bit(48);
inline constexpr Field kOpcHi = bit(49);
inline constexpr Field kInv1 = bit(52);
inline constexpr Field kComp1{53, 54};
inline constexpr Field kClusterW{52, 54};  // getlast
inline constexpr Field kOpc{55, 58};
}  // namespace cat0

namespace cat1 {
inline constexpr Field kSrc{0, 31};
inline constexpr Field kSrcReg{0, 7};
inline constexpr Field kSrcConst{0, 10};
inline constexpr Field kSrcRelOffset{0, 9};
inline constexpr Field kSrcRelConst = bit(10);
inline constexpr Field kSrcLast = bit(10);
inline constexpr Field kSrcRel = bit(11);
inline constexpr Field kMulti1{8, 15};
inline constexpr Field kMulti2{16, 23};
inline constexpr Field kMulti3{24, 31};
inline constexpr Field kDst{32, 39};
inline constexpr Field kRepeat{40, 41};  // also SUB_OPC of swz/gat/sct
inline constexpr Field kSat = bit(42);
inline constexpr Field kSrcR = bit(43);
inline constexpr Field kDstType{46, 48};
inline constexpr Field kDstRel = bit(49);
inline constexpr Field kSrcType{50, 52};
inline constexpr Field kSrcKind{53, 54};  // 0 gpr/relative, 1 const, 2 immediate
inline constexpr Field kRound{55, 56};
inline constexpr Field kOpc{57, 58};
// movs (ir3-cat1.xml #instruction-cat1-movs): a gpr source with bit 31 set, the fiber in
// bits 23..29 or (bit 30) in a0.x; bits 8..9 and 11..22 are 0.
inline constexpr Field kMovsMarker = bit(31);
inline constexpr Field kMovsFromA0 = bit(30);
inline constexpr Field kMovsFiber{23, 29};
inline constexpr std::uint64_t kMovsZeroBits = 0x7ffb00;  // bits 8, 9 and 11..22
}  // namespace cat1

namespace cat2 {  // cat4 shares the layout of the first source and the flags
inline constexpr Field kSrc1{0, 15};
inline constexpr Field kSrc2{16, 31};
inline constexpr Field kDst{32, 39};
inline constexpr Field kRepeat{40, 41};
inline constexpr Field kSat = bit(42);
inline constexpr Field kSrc1R = bit(43);
inline constexpr Field kDstConv = bit(46);
inline constexpr Field kEi = bit(47);
inline constexpr Field kCond{48, 50};
inline constexpr Field kInputSub = bit(50);  // bary.f / flat.b
inline constexpr Field kSrc2R = bit(51);
inline constexpr Field kFull = bit(52);
inline constexpr Field kOpc{53, 58};
}  // namespace cat2

namespace multisrc {  // the 16-bit cat2/cat4 source (ir3-common.xml #multisrc)
inline constexpr Field kReg{0, 7};
inline constexpr Field kConst{0, 10};
inline constexpr Field kImmed{0, 10};
inline constexpr Field kFlut{0, 9};
inline constexpr Field kRelOffset{0, 9};
inline constexpr Field kRelConst = bit(10);  // relative: 1 = const
inline constexpr Field kFlutHalf = bit(10);
inline constexpr Field kLast = bit(10);
inline constexpr Field kKind{11, 13};  // 000 gpr, x10 const, 100 immed, 101 flut, 001 relative
inline constexpr Field kAbsNeg{14, 15};
}  // namespace multisrc

namespace cat3 {
inline constexpr Field kSrc1{0, 12};
inline constexpr Field kAlt = bit(13);
inline constexpr Field kSrc1Neg = bit(14);  // dp: signedness
inline constexpr Field kSrc2R = bit(15);
inline constexpr Field kSrc3{16, 28};
inline constexpr Field kSrc3R = bit(29);
inline constexpr Field kSrc2Neg = bit(30);  // dp: pack
inline constexpr Field kSrc3Neg = bit(31);
inline constexpr Field kDst{32, 39};
inline constexpr Field kRepeat{40, 41};
inline constexpr Field kSatOrFull = bit(42);  // SAT, or FULL for the alt forms
inline constexpr Field kSrc1R = bit(43);
inline constexpr Field kDstConv = bit(46);  // dp: 0 dp2acc, 1 dp4acc
inline constexpr Field kSrc2{47, 54};
inline constexpr Field kOpc{55, 58};
}  // namespace cat3

namespace cat3src {  // the 13-bit cat3 src1/src3
inline constexpr Field kReg{0, 7};
inline constexpr Field kLast = bit(10);
inline constexpr Field kConst{0, 10};
inline constexpr Field kImmed{0, 11};
inline constexpr Field kRelOffset{0, 9};
inline constexpr Field kRelConst = bit(10);
inline constexpr Field kRel = bit(11);
inline constexpr Field kConstOrImmed = bit(12);
}  // namespace cat3src

namespace cat5 {
inline constexpr Field kFull = bit(0);
inline constexpr Field kSrc1{1, 8};
inline constexpr Field kSrc2{9, 16};
inline constexpr Field kNot1d = bit(18);
inline constexpr Field kW{19, 20};  // brcst cluster / quad_shuffle variant / BASE_HI
inline constexpr Field kSamp{21, 24};
inline constexpr Field kTex{25, 31};
inline constexpr Field kSrc3{21, 28};
inline constexpr Field kDescMode{29, 31};
inline constexpr Field kDst{32, 39};
inline constexpr Field kWrmask{40, 43};
inline constexpr Field kType{44, 46};
inline constexpr Field kBaseLo = bit(47);
inline constexpr Field k3d = bit(48);
inline constexpr Field kA = bit(49);
inline constexpr Field kSv = bit(50);
inline constexpr Field kS2enBindless = bit(51);
inline constexpr Field kO = bit(52);
inline constexpr Field kP = bit(53);  // isam: SRC2 is an immediate offset; brcst/quad: opcode
inline constexpr Field kOpc{54, 58};
}  // namespace cat5

namespace cat6 {
inline constexpr Field kBit0 = bit(0);
inline constexpr Field kLdOffset{1, 13};  // ldg, ldg.k, ldl/ldp/ldlw, ldlv
inline constexpr Field kLdSrc{14, 21};
inline constexpr Field kRegForm = bit(22);  // ldg: 1 = ldg.a
inline constexpr Field kBit23 = bit(23);
inline constexpr Field kSize3{24, 26};
inline constexpr Field kSize4{23, 26};  // ldg.k
inline constexpr Field kSize8{24, 31};
inline constexpr Field kDst{32, 39};
inline constexpr Field kConstDst{32, 39};  // c[...] destination of stc / ldg.k
inline constexpr Field kConstDstA1 = bit(40);
inline constexpr Field kStValue{1, 8};  // stg SRC3, stl/stp SRC
inline constexpr Field kStOffsetHi{9, 13};
inline constexpr Field kStOffsetLo{32, 39};
inline constexpr Field kDstOff = bit(40);
inline constexpr Field kStBase{41, 48};
inline constexpr Field kAddrSrc2{1, 8};  // ldg.a
inline constexpr Field kAddrOffset{9, 10};
inline constexpr Field kAddrShift{12, 13};
inline constexpr Field kStAddrSrc2{32, 39};  // stg.a
inline constexpr Field kType{49, 51};
inline constexpr Field kBit52 = bit(52);
inline constexpr Field kBit53 = bit(53);
inline constexpr Field kOpc{54, 58};
// atomics (local/global) and the a6xx forms
inline constexpr Field kDimMinus1{9, 10};
inline constexpr Field kTyped = bit(11);
inline constexpr Field kTypeSizeMinus1{12, 13};
inline constexpr Field kAtomicSrc1{14, 21};
inline constexpr Field kAtomicSrc1Im = bit(22);
inline constexpr Field kSrc2Im = bit(23);
inline constexpr Field kSrc2{24, 31};
inline constexpr Field kBase{1, 3};
inline constexpr Field kOffsetHi{4, 5};
inline constexpr Field kMode{6, 7};
inline constexpr Field kBindless = bit(8);
inline constexpr Field kA6Opc{14, 19};
inline constexpr Field kA6Sub{20, 23};
// Fixed values of bits 20..23 in the a6xx forms (ir3-cat6.xml patterns, bit 20 first here).
inline constexpr unsigned kSubLdc = 0x4;         // 1xx at 20..22: bit 22
inline constexpr unsigned kSubSysId = 0x4;       // x1xx: bit 22
inline constexpr unsigned kSubFiberId = 0xc;     // 11xx: bits 22 and 23
inline constexpr unsigned kSubDescriptor = 0x6;  // 110 at 20..22 (resinfo.b, ibo ops)
inline constexpr unsigned kOpcFiberId = 38;      // getfiberid in bits 14..19
inline constexpr Field kRck = bit(40);
inline constexpr Field kSsbo{41, 48};
inline constexpr Field kOffsetLo{54, 58};
inline constexpr Field kLdcU = bit(11);
inline constexpr Field kLdcOffset{9, 10};
inline constexpr Field kShflMode{45, 47};
// a7xx ldg.a / stg.a: base + index + OFF; the base may be a const (SRC1_CONST).
inline constexpr Field kSrc1Const = bit(13);
inline constexpr Field kA7LdgOffset{41, 48};
inline constexpr Field kA7StgOffset{14, 21};
// a7xx stsc: c[DST_HI << 8 | DST_LO] <- SIZE dwords of the shared consts from SRC.
inline constexpr Field kStscDstHi{9, 13};
inline constexpr Field kStscDstLo{32, 39};
inline constexpr Field kStscSrc{1, 8};
// a7xx ray_intersection
inline constexpr Field kRaySrc2{1, 8};
inline constexpr Field kRaySrc3{24, 31};
inline constexpr Field kRaySrc4{41, 48};
}  // namespace cat6

namespace cat7 {
inline constexpr Field kBarrierMarker = bit(49);
inline constexpr Field kW = bit(51);  // also sleep duration and cache .all
inline constexpr Field kR = bit(52);
inline constexpr Field kL = bit(53);
inline constexpr Field kG = bit(54);
inline constexpr Field kOpc{55, 58};
inline constexpr Field kControl{45, 54};   // lock/unlock: a fixed pattern
inline constexpr Field kCcinvFixed{51, 54};  // ccinv: 1010 here and bit 49 set
inline constexpr unsigned kCcinvPattern = 0xa;
inline constexpr unsigned kLockPattern = 0x210, kUnlockPattern = 0x250;  // bits 45..54
// alias (ir3-cat7.xml): DST, TABLE_SIZE_MINUS_ONE, scope in bits 47 (low) and 49 (high), TYPE,
// TYPE_SIZE and SRC_REG_TYPE.
inline constexpr Field kAliasSrc{0, 31};
inline constexpr Field kAliasDst{32, 39};
inline constexpr Field kAliasTableSize{40, 43};
inline constexpr Field kAliasScopeLo = bit(47);
inline constexpr Field kAliasTypeInt = bit(48);
inline constexpr Field kAliasScopeHi = bit(49);
inline constexpr Field kAliasSize32 = bit(50);
inline constexpr Field kAliasSrcKind{51, 52};  // 0 gpr, 1 const, 2 immediate
}  // namespace cat7

}  // namespace adreno::ir3::bits
