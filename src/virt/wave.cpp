#include "virt/wave.h"

#include "ir3/half_float.h"
#include "ir3/opcodes.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

namespace adreno::virt {
namespace {

using ir3::Opcode;
using ir3::OperandKind;
using ir3::Type;

constexpr unsigned kFirstSharedRegid = ir3::kFirstSharedReg * 4;
constexpr unsigned kSharedRegids = 32;  // r48.x .. r55.w (Mesa ir3: the a6xx shared file)
constexpr unsigned kA0Regid = ir3::kAddressReg * 4;
constexpr unsigned kA1Regid = kA0Regid + 1;
constexpr unsigned kP0Regid = ir3::kPredicateReg * 4;

// The float lookup table of cat2/cat3 immediates, in index order (Mesa ir3-common.xml #flut).
constexpr float kFlut[] = {0.0f,
                           0.5f,
                           1.0f,
                           2.0f,
                           2.718281828459045f,
                           3.141592653589793f,
                           0.3183098861837907f,
                           0.6931471805599453f,  // 1/log2(e) = ln 2
                           1.4426950408889634f,
                           0.3010299956639812f,  // 1/log2(10) = log10 2
                           3.321928094887362f,
                           4.0f};

std::int32_t sext(std::uint32_t value, unsigned bits) {
  const unsigned shift = 32 - bits;
  return static_cast<std::int32_t>(value << shift) >> shift;
}
std::uint32_t mask_of(unsigned bits) { return bits == 32 ? 0xffffffffu : (1u << bits) - 1; }

float to_float(std::uint32_t raw, bool half) { return half ? ir3::half_to_float(static_cast<std::uint16_t>(raw)) : std::bit_cast<float>(raw); }
std::uint32_t from_float(float value, bool half) { return half ? ir3::float_to_half(value) : std::bit_cast<std::uint32_t>(value); }

bool compare(unsigned cond, auto a, auto b) {
  switch (cond) {
    case 0: return a < b;
    case 1: return a <= b;
    case 2: return a > b;
    case 3: return a >= b;
    case 4: return a == b;
    default: return a != b;
  }
}

enum class Domain { floating, integer, bitwise };

Domain cat2_domain(Opcode op) {
  switch (op) {
    case Opcode::add_f: case Opcode::min_f: case Opcode::max_f: case Opcode::mul_f: case Opcode::sign_f:
    case Opcode::cmps_f: case Opcode::absneg_f: case Opcode::floor_f: case Opcode::ceil_f: case Opcode::rndne_f:
    case Opcode::rndaz_f: case Opcode::trunc_f:
      return Domain::floating;
    case Opcode::and_b: case Opcode::or_b: case Opcode::not_b: case Opcode::xor_b: case Opcode::shl_b:
    case Opcode::shr_b: case Opcode::ashr_b: case Opcode::bfrev_b: case Opcode::clz_b: case Opcode::cbits_b:
    case Opcode::getbit_b:
      return Domain::bitwise;
    default:
      return Domain::integer;
  }
}

// (abs)/(neg) mean float sign operations, integer abs/negate, or bitwise not (Mesa ir3.h:
// IR3_REG_FABS/FNEG, SABS/SNEG and BNOT share the encoding bits).
std::uint32_t modify(std::uint32_t raw, const ir3::Operand& op, Domain domain, unsigned bits) {
  if (!op.abs && !op.neg) return raw;
  const std::uint32_t mask = mask_of(bits);
  switch (domain) {
    case Domain::floating: {
      const std::uint32_t sign = 1u << (bits - 1);
      if (op.abs) raw &= ~sign;
      if (op.neg) raw ^= sign;
      return raw;
    }
    case Domain::integer: {
      std::int64_t value = sext(raw, bits);
      if (op.abs) value = value < 0 ? -value : value;
      if (op.neg) value = -value;
      return static_cast<std::uint32_t>(value) & mask;
    }
    case Domain::bitwise:
      return op.neg ? ~raw & mask : raw;
  }
  return raw;
}

unsigned type_bytes(Type type) {
  switch (type) {
    case Type::f16: case Type::u16: case Type::s16: return 2;
    case Type::u8: case Type::u8_32: return 1;
    default: return 4;
  }
}

// Converts between the cat1 types: float sources to integers truncate toward zero and saturate
// (NaN gives 0), integers to floats round to nearest even, integers to integers extend from the
// source width and truncate to the destination width (Mesa lowers nir f2i/i2f/u2u to plain cov).
std::uint32_t convert(std::uint32_t raw, Type from, Type to) {
  if (from == to) return raw;
  const bool source_float = from == Type::f16 || from == Type::f32;
  const bool destination_float = to == Type::f16 || to == Type::f32;
  const unsigned destination_bits = type_bytes(to) * 8;
  if (source_float) {
    const float value = to_float(raw, from == Type::f16);
    if (destination_float) return from_float(value, to == Type::f16);
    if (std::isnan(value)) return 0;
    const bool is_signed = to == Type::s32 || to == Type::s16;
    const double high = is_signed ? std::ldexp(1.0, static_cast<int>(destination_bits) - 1) - 1
                                  : std::ldexp(1.0, static_cast<int>(destination_bits)) - 1;
    const double low = is_signed ? -high - 1 : 0.0;
    const double clamped = std::clamp(std::trunc(static_cast<double>(value)), low, high);
    return static_cast<std::uint32_t>(static_cast<std::int64_t>(clamped)) & mask_of(destination_bits);
  }
  std::int64_t value = 0;
  switch (from) {
    case Type::s16: value = sext(raw, 16); break;
    case Type::s32: value = static_cast<std::int32_t>(raw); break;
    case Type::u16: value = raw & 0xffff; break;
    case Type::u8: case Type::u8_32: value = raw & 0xff; break;
    default: value = raw; break;
  }
  if (destination_float) return from_float(static_cast<float>(value), to == Type::f16);
  return static_cast<std::uint32_t>(value) & mask_of(destination_bits);
}

}  // namespace

Wave::Wave(const ComputeDispatch& dispatch, WorkGroup& group, unsigned index, unsigned first_fiber, unsigned lanes)
    : dispatch_(dispatch),
      group_(group),
      program_(*dispatch.program),
      index_(index),
      lanes_(lanes),
      stride_(dispatch.wave_size),
      full_regids_(dispatch.full_footprint * 4),
      half_regids_(dispatch.merged_registers ? 0 : dispatch.half_footprint * 4),
      full_(std::size_t{full_regids_} * stride_),
      half_(std::size_t{half_regids_} * stride_),
      a0_(stride_),
      a1_(stride_),
      p0_(std::size_t{4} * stride_),
      pc_(stride_),
      live_(stride_),
      next_pc_(stride_),
      uniform_pc_(dispatch.first_instruction) {
  std::fill(live_.begin(), live_.begin() + lanes_, 1);
  const auto& size = dispatch.local_size;
  if (dispatch.local_id_regid != kNoRegid) {
    check_full_range(dispatch.local_id_regid, 3);
    for (unsigned lane = 0; lane < lanes_; ++lane) {
      const unsigned fiber = first_fiber + lane;
      write_full(dispatch.local_id_regid + 0, lane, fiber % size[0]);
      write_full(dispatch.local_id_regid + 1, lane, fiber / size[0] % size[1]);
      write_full(dispatch.local_id_regid + 2, lane, fiber / (size[0] * size[1]));
    }
  }
  if (dispatch.work_group_id_regid != kNoRegid) {
    if (dispatch.work_group_id_regid < kFirstSharedRegid) check_full_range(dispatch.work_group_id_regid, 3);
    for (unsigned lane = 0; lane < lanes_; ++lane)
      for (unsigned c = 0; c < 3; ++c) write_full(dispatch.work_group_id_regid + c, lane, group.id[c]);
  }
}

void Wave::fail(std::uint32_t pc, const std::string& what) const {
  throw GpuFault(FaultKind::shader_error, program_.address() + std::uint64_t{pc} * 8,
                 "instruction " + std::to_string(pc) + " (wave " + std::to_string(index_) + "): " + what);
}

void Wave::check_full_range(unsigned regid, unsigned count) const {
  if (regid < kFirstSharedRegid && regid + count > full_regids_) {
    fail(pc_now_, "r" + std::to_string((regid + count - 1) / 4) + " is outside FULLREGFOOTPRINT " +
                      std::to_string(full_regids_ / 4));
  }
  if (regid >= kFirstSharedRegid && regid + count > kFirstSharedRegid + kSharedRegids && regid < kA0Regid) {
    fail(pc_now_, "shared register regid " + std::to_string(regid + count - 1) + " does not exist");
  }
}

void Wave::check_half_range(unsigned regid, unsigned count) const {
  if (regid >= kFirstSharedRegid) return check_full_range(regid, count);
  if (dispatch_.merged_registers) {
    if ((regid + count - 1) / 2 >= full_regids_)
      fail(pc_now_, "hr" + std::to_string((regid + count - 1) / 4) + " is outside the merged FULLREGFOOTPRINT " +
                        std::to_string(full_regids_ / 4));
  } else if (regid + count > half_regids_) {
    fail(pc_now_, "hr" + std::to_string((regid + count - 1) / 4) + " is outside HALFREGFOOTPRINT " +
                      std::to_string(half_regids_ / 4));
  }
}

std::uint32_t Wave::read_full(unsigned regid, unsigned lane) const {
  if (regid < kFirstSharedRegid) return full_[regid * stride_ + lane];
  if (regid < kFirstSharedRegid + kSharedRegids) return shared_full_[regid - kFirstSharedRegid];
  if (regid == kA0Regid) return static_cast<std::uint32_t>(a0_[lane]);
  if (regid == kA1Regid) return static_cast<std::uint32_t>(a1_[lane]);
  if (regid >= kP0Regid && regid < kP0Regid + 4) return p0_[lane * 4 + regid - kP0Regid];
  fail(pc_now_, "regid " + std::to_string(regid) + " names no register");
}

std::uint32_t Wave::read_half(unsigned regid, unsigned lane) const {
  if (regid < kFirstSharedRegid) {
    if (dispatch_.merged_registers) return (full_[(regid >> 1) * stride_ + lane] >> (16 * (regid & 1))) & 0xffff;
    return half_[regid * stride_ + lane];
  }
  if (regid < kFirstSharedRegid + kSharedRegids) return shared_half_[regid - kFirstSharedRegid];
  return read_full(regid, lane) & 0xffff;
}

void Wave::write_full(unsigned regid, unsigned lane, std::uint32_t value) {
  if (regid < kFirstSharedRegid) {
    full_[regid * stride_ + lane] = value;
  } else if (regid < kFirstSharedRegid + kSharedRegids) {
    shared_full_[regid - kFirstSharedRegid] = value;  // uniform: the last lane written wins
  } else if (regid == kA0Regid) {
    a0_[lane] = sext(value, 16);  // a0.x is a signed 16-bit index
  } else if (regid == kA1Regid) {
    a1_[lane] = static_cast<std::int32_t>(value & 0xffff);
  } else if (regid >= kP0Regid && regid < kP0Regid + 4) {
    p0_[lane * 4 + regid - kP0Regid] = value != 0;
  } else {
    fail(pc_now_, "regid " + std::to_string(regid) + " names no writable register");
  }
}

void Wave::write_half(unsigned regid, unsigned lane, std::uint32_t value) {
  value &= 0xffff;
  if (regid < kFirstSharedRegid) {
    if (dispatch_.merged_registers) {
      std::uint32_t& full = full_[(regid >> 1) * stride_ + lane];
      const unsigned shift = 16 * (regid & 1);
      full = (full & ~(0xffffu << shift)) | (value << shift);
    } else {
      half_[regid * stride_ + lane] = static_cast<std::uint16_t>(value);
    }
  } else if (regid < kFirstSharedRegid + kSharedRegids) {
    shared_half_[regid - kFirstSharedRegid] = static_cast<std::uint16_t>(value);
  } else {
    write_full(regid, lane, value);
  }
}

std::uint32_t Wave::read_const(int regid) const {
  if (regid < 0 || static_cast<std::size_t>(regid) >= dispatch_.constants.size()) {
    fail(pc_now_, "c" + std::to_string(regid / 4) + " is outside CONSTLEN " + std::to_string(dispatch_.constants.size() / 4));
  }
  if (!dispatch_.constant_loaded[static_cast<std::size_t>(regid) / 4]) {
    fail(pc_now_, "c" + std::to_string(regid / 4) + " was never loaded (CP_LOAD_STATE6 ST6_CONSTANTS)");
  }
  return dispatch_.constants[static_cast<std::size_t>(regid)];
}

int Wave::relative(const ir3::Operand& operand, unsigned lane, unsigned rpt) const {
  return a0_[lane] + operand.value + static_cast<int>(operand.repeat ? rpt : 0);
}

std::uint32_t Wave::read(const ir3::Operand& op, unsigned lane, unsigned rpt) const {
  const unsigned step = op.repeat ? rpt : 0;
  switch (op.kind) {
    case OperandKind::gpr:
      return op.half ? read_half(op.reg + step, lane) : read_full(op.reg + step, lane);
    case OperandKind::constant: {
      const std::uint32_t value = read_const(op.reg + static_cast<int>(step));
      return op.half ? value & 0xffff : value;
    }
    case OperandKind::immediate:
      if (op.flut) return from_float(kFlut[op.value], op.half);
      return op.half ? static_cast<std::uint32_t>(op.value) & 0xffff : static_cast<std::uint32_t>(op.value);
    case OperandKind::relative_gpr: {
      const int regid = relative(op, lane, rpt);
      if (regid < 0) fail(pc_now_, "relative register index " + std::to_string(regid) + " is negative");
      if (op.half) {
        check_half_range(static_cast<unsigned>(regid), 1);
        return read_half(static_cast<unsigned>(regid), lane);
      }
      check_full_range(static_cast<unsigned>(regid), 1);
      return read_full(static_cast<unsigned>(regid), lane);
    }
    case OperandKind::relative_const: {
      const std::uint32_t value = read_const(relative(op, lane, rpt));
      return op.half ? value & 0xffff : value;
    }
    case OperandKind::none:
      break;
  }
  fail(pc_now_, "missing source operand");
}

void Wave::write(const ir3::Operand& op, unsigned lane, unsigned rpt, std::uint32_t value) {
  if (op.kind == OperandKind::relative_gpr) {
    const int regid = relative(op, lane, rpt);
    if (regid < 0) fail(pc_now_, "relative register index " + std::to_string(regid) + " is negative");
    op.half ? check_half_range(static_cast<unsigned>(regid), 1) : check_full_range(static_cast<unsigned>(regid), 1);
    return op.half ? write_half(static_cast<unsigned>(regid), lane, value) : write_full(static_cast<unsigned>(regid), lane, value);
  }
  if (op.kind != OperandKind::gpr) fail(pc_now_, "destination is not a register");
  op.half ? write_half(op.reg + rpt, lane, value) : write_full(op.reg + rpt, lane, value);
}

Wave::Stop Wave::run() {
  at_barrier_ = false;
  std::uint32_t since_check = 0;
  for (;;) {
    if (++since_check == 4096) {
      since_check = 0;
      if (std::chrono::steady_clock::now() > dispatch_.deadline || (dispatch_.stop && dispatch_.stop->load(std::memory_order_relaxed))) {
        throw GpuFault(FaultKind::hang, program_.address() + std::uint64_t{pc_now_} * 8,
                       "shader still running at instruction " + std::to_string(pc_now_) + " when the hang detector fired");
      }
    }
    std::uint32_t pc = uniform_pc_;
    active_.clear();
    if (!diverged_) {
      for (unsigned lane = 0; lane < lanes_; ++lane)
        if (live_[lane]) active_.push_back(static_cast<std::uint16_t>(lane));
    } else {
      std::uint32_t low = std::numeric_limits<std::uint32_t>::max(), high = 0;
      for (unsigned lane = 0; lane < lanes_; ++lane) {
        if (!live_[lane]) continue;
        low = std::min(low, pc_[lane]);
        high = std::max(high, pc_[lane]);
      }
      pc = low;
      if (low == high) {
        diverged_ = false;
        uniform_pc_ = low;
      }
      for (unsigned lane = 0; lane < lanes_; ++lane)
        if (live_[lane] && pc_[lane] == pc) active_.push_back(static_cast<std::uint16_t>(lane));
    }
    if (active_.empty()) return Stop::ended;
    pc_now_ = pc;
    if (pc >= program_.size()) {
      throw GpuFault(FaultKind::hang, program_.address() + std::uint64_t{pc} * 8,
                     "shader ran past the end of its SP_CS_INSTR_SIZE program without reaching `end`");
    }
    for (std::uint16_t lane : active_) next_pc_[lane] = pc + 1;
    execute(program_[pc], pc);
    fiber_instructions_ += active_.size();

    // Commit where each lane goes next; lanes that ended are no longer live.
    bool same = true;
    const std::uint32_t first = next_pc_[active_.front()];
    for (std::uint16_t lane : active_) same = same && next_pc_[lane] == first;
    if (!diverged_ && same) {
      uniform_pc_ = first;
    } else {
      if (!diverged_) {
        for (unsigned lane = 0; lane < lanes_; ++lane) pc_[lane] = pc;
        diverged_ = true;
      }
      for (std::uint16_t lane : active_) pc_[lane] = next_pc_[lane];
    }
    if (at_barrier_) return Stop::barrier;
  }
}

void Wave::execute(const DecodedInstruction& decoded, std::uint32_t pc) {
  if (!decoded.illegal.empty()) fail(pc, "illegal instruction word: " + decoded.illegal);
  if (decoded.max_full_regid >= 0) check_full_range(0, static_cast<unsigned>(decoded.max_full_regid) + 1);
  if (decoded.max_half_regid >= 0) check_half_range(0, static_cast<unsigned>(decoded.max_half_regid) + 1);
  const ir3::Instruction& in = decoded.instruction;
  switch (ir3::info(in.opcode).category) {
    case 0: return branch(in, pc);
    case 1: return move(in);
    case 2: return alu2(in);
    case 3: return alu3(in);
    case 4: return sfu(in);
    case 6: return memory(in);
    case 7:
      switch (in.opcode) {
        case Opcode::bar:
          at_barrier_ = true;
          return;
        case Opcode::fence: case Opcode::sleep: case Opcode::icinv: case Opcode::dccln: case Opcode::dcinv:
        case Opcode::dcflu:
          return;  // memory is coherent and in order here: nothing to wait for or write back
        default:
          break;
      }
      break;
    default:
      break;
  }
  fail(pc, std::string(ir3::info(in.opcode).name) + " is not modelled by the virtual shader processor");
}

void Wave::branch(const ir3::Instruction& in, std::uint32_t pc) {
  auto predicate = [&](unsigned lane, unsigned which) {
    return (p0_[lane * 4 + in.flow.comp[which]] != 0) != in.flow.invert[which];
  };
  const std::uint32_t target = pc + static_cast<std::uint32_t>(in.flow.target);
  switch (in.opcode) {
    case Opcode::nop:
      return;
    case Opcode::end:
      for (std::uint16_t lane : active_) live_[lane] = 0;
      return;
    case Opcode::jump:
      for (std::uint16_t lane : active_) next_pc_[lane] = target;
      return;
    case Opcode::br:
      for (std::uint16_t lane : active_)
        if (predicate(lane, 0)) next_pc_[lane] = target;
      return;
    case Opcode::brao:
      for (std::uint16_t lane : active_)
        if (predicate(lane, 0) || predicate(lane, 1)) next_pc_[lane] = target;
      return;
    case Opcode::braa:
      for (std::uint16_t lane : active_)
        if (predicate(lane, 0) && predicate(lane, 1)) next_pc_[lane] = target;
      return;
    case Opcode::bany:
    case Opcode::ball: {
      // The whole wave takes these or not: any / all of the executing lanes decide.
      bool any = false, all = true;
      for (std::uint16_t lane : active_) {
        const bool p = predicate(lane, 0);
        any = any || p;
        all = all && p;
      }
      if (in.opcode == Opcode::bany ? any : all)
        for (std::uint16_t lane : active_) next_pc_[lane] = target;
      return;
    }
    default:
      fail(pc, std::string(ir3::info(in.opcode).name) + " is not modelled by the virtual shader processor");
  }
}

void Wave::move(const ir3::Instruction& in) {
  if (in.opcode == Opcode::movmsk) {
    // One bit per executing lane, (rptN) + 1 registers of 32 lanes each.
    for (unsigned r = 0; r <= in.repeat; ++r) {
      std::uint32_t mask = 0;
      for (std::uint16_t lane : active_)
        if (lane / 32 == r) mask |= 1u << (lane % 32);
      for (std::uint16_t lane : active_) write(in.dst, lane, r, mask);
    }
    return;
  }
  if (in.opcode != Opcode::mov) fail(pc_now_, std::string(ir3::info(in.opcode).name) + " is not modelled by the virtual shader processor");
  if (in.round != 0) fail(pc_now_, "cat1 rounding mode " + std::to_string(in.round) + " is not modelled");
  for (unsigned r = 0; r <= in.repeat; ++r)
    for (std::uint16_t lane : active_) write(in.dst, lane, r, convert(read(in.src[0], lane, r), in.src_type, in.type));
}

void Wave::alu2(const ir3::Instruction& in) {
  const Domain domain = cat2_domain(in.opcode);
  const bool two = ir3::info(in.opcode).form != ir3::Form::alu_1src;
  const ir3::Operand& precision_source =
      in.src[0].kind == OperandKind::immediate && !in.src[0].flut && two ? in.src[1] : in.src[0];
  const bool half = precision_source.half;
  const unsigned bits = half ? 16 : 32;
  const std::uint32_t mask = mask_of(bits);
  const bool compare_op = ir3::info(in.opcode).form == ir3::Form::alu_cmp;

  auto f = [&](float x) { return from_float(x, half); };
  auto op = [&](std::uint32_t a, std::uint32_t b) -> std::uint32_t {
    const float fa = domain == Domain::floating ? to_float(a, half) : 0.0f;
    const float fb = domain == Domain::floating && two ? to_float(b, half) : 0.0f;
    const std::int32_t sa = sext(a, bits), sb = sext(b, bits);
    const unsigned shift = b & (bits - 1);  // the shifters use the low bits of the amount
    switch (in.opcode) {
      case Opcode::add_f: return f(fa + fb);
      case Opcode::min_f: return f(std::fmin(fa, fb));
      case Opcode::max_f: return f(std::fmax(fa, fb));
      case Opcode::mul_f: return f(fa * fb);
      case Opcode::sign_f: return f(fa > 0 ? 1.0f : fa < 0 ? -1.0f : fa);
      case Opcode::cmps_f: return compare(in.cond, fa, fb);
      case Opcode::absneg_f: return a;
      case Opcode::floor_f: return f(std::floor(fa));
      case Opcode::ceil_f: return f(std::ceil(fa));
      case Opcode::rndne_f: return f(std::nearbyint(fa));
      case Opcode::rndaz_f: return f(std::round(fa));
      case Opcode::trunc_f: return f(std::trunc(fa));
      case Opcode::add_u: case Opcode::add_s: return (a + b) & mask;
      case Opcode::sub_u: case Opcode::sub_s: return (a - b) & mask;
      case Opcode::cmps_u: return compare(in.cond, a, b);
      case Opcode::cmps_s: return compare(in.cond, sa, sb);
      case Opcode::min_u: return std::min(a, b);
      case Opcode::max_u: return std::max(a, b);
      case Opcode::min_s: return static_cast<std::uint32_t>(std::min(sa, sb)) & mask;
      case Opcode::max_s: return static_cast<std::uint32_t>(std::max(sa, sb)) & mask;
      case Opcode::absneg_s: return a;
      case Opcode::and_b: return a & b;
      case Opcode::or_b: return a | b;
      case Opcode::xor_b: return a ^ b;
      case Opcode::not_b: return ~a & mask;
      case Opcode::mul_u24: return static_cast<std::uint32_t>(std::uint64_t{a & 0xffffff} * (b & 0xffffff)) & mask;
      case Opcode::mul_s24:
        return static_cast<std::uint32_t>(std::int64_t{sext(a & 0xffffff, 24)} * sext(b & 0xffffff, 24)) & mask;
      // Mesa ir3_nir_imul.py: umul_low is the product of the low 16 bits of each source.
      case Opcode::mull_u: return (a & 0xffff) * (b & 0xffff) & mask;
      case Opcode::bfrev_b: {
        std::uint32_t v = 0;
        for (unsigned i = 0; i < bits; ++i) v |= ((a >> i) & 1) << (bits - 1 - i);
        return v;
      }
      case Opcode::clz_b: return static_cast<std::uint32_t>(std::min(std::countl_zero(a << (32 - bits)), static_cast<int>(bits)));
      case Opcode::clz_s: {
        // Leading bits equal to the sign bit (Mesa: ifind_msb = 31 - clz.s).
        const std::uint32_t v = sa < 0 ? ~a & mask : a;
        const int n = std::countl_zero(v << (32 - bits));
        return static_cast<std::uint32_t>(std::min(n, static_cast<int>(bits)));
      }
      case Opcode::shl_b: return (a << shift) & mask;
      case Opcode::shr_b: return a >> shift;
      case Opcode::ashr_b: return static_cast<std::uint32_t>(sa >> shift) & mask;
      case Opcode::getbit_b: return (a >> shift) & 1;
      case Opcode::cbits_b: return static_cast<std::uint32_t>(std::popcount(a));
      default:
        fail(pc_now_, std::string(ir3::info(in.opcode).name) + " is not modelled by the virtual shader processor");
    }
  };

  for (unsigned r = 0; r <= in.repeat; ++r) {
    for (std::uint16_t lane : active_) {
      const std::uint32_t a = modify(read(in.src[0], lane, r), in.src[0], domain, bits);
      const std::uint32_t b = two ? modify(read(in.src[1], lane, r), in.src[1], domain, bits) : 0;
      std::uint32_t result = op(a, b);
      if (!compare_op && domain == Domain::floating) {
        float value = to_float(result, half);
        if (in.sat) value = std::clamp(value, 0.0f, 1.0f);
        if (in.dst.half != half || in.sat) result = from_float(value, in.dst.half);
      }
      write(in.dst, lane, r, result);
    }
  }
}

void Wave::alu3(const ir3::Instruction& in) {
  const ir3::OpcodeInfo& info = ir3::info(in.opcode);
  const bool half = info.form == ir3::Form::tri_alt ? in.src[1].half : (info.attr & 1) == 0;
  const unsigned bits = half ? 16 : 32;
  const std::uint32_t mask = mask_of(bits);
  const bool floating = in.opcode == Opcode::mad_f16 || in.opcode == Opcode::mad_f32;
  const Domain domain = floating ? Domain::floating : info.form == ir3::Form::tri_alt ? Domain::bitwise : Domain::integer;

  for (unsigned r = 0; r <= in.repeat; ++r) {
    for (std::uint16_t lane : active_) {
      // sel takes its condition as read, without modifiers applied to the value operands.
      const std::uint32_t a = modify(read(in.src[0], lane, r), in.src[0], domain, bits);
      const std::uint32_t b = modify(read(in.src[1], lane, r), in.src[1], domain, bits);
      const std::uint32_t c = modify(read(in.src[2], lane, r), in.src[2], domain, bits);
      const unsigned shift = a & (bits - 1);
      std::uint32_t result = 0;
      switch (in.opcode) {
        case Opcode::mad_f16:
        case Opcode::mad_f32: {
          // Modelled unfused: the product is rounded to the operand precision, then the sum.
          const float product = to_float(from_float(to_float(a, half) * to_float(b, half), half), half);
          float value = product + to_float(c, half);
          if (in.sat) value = std::clamp(value, 0.0f, 1.0f);
          result = from_float(value, half);
          if (in.dst.half != half) result = from_float(value, in.dst.half);
          break;
        }
        case Opcode::mad_u16: result = ((a & 0xffff) * (b & 0xffff) + c) & mask; break;
        case Opcode::mad_s16:
          result = static_cast<std::uint32_t>(sext(a, 16) * sext(b, 16) + static_cast<std::int32_t>(c)) & mask;
          break;
        // Mesa nir_opcodes.py imadsh_mix16: the high half of src0 times the low half of src1,
        // shifted up 16, plus src2.
        case Opcode::madsh_m16: result = (((a >> 16) * (b & 0xffff)) << 16) + c; break;
        case Opcode::mad_u24:
          result = static_cast<std::uint32_t>(std::uint64_t{a & 0xffffff} * (b & 0xffffff)) + c;
          break;
        case Opcode::mad_s24:
          result = static_cast<std::uint32_t>(std::int64_t{sext(a & 0xffffff, 24)} * sext(b & 0xffffff, 24)) + c;
          break;
        // sel: src1 chooses src0 (true) or src2 (false).
        case Opcode::sel_b16: case Opcode::sel_b32: result = b ? a : c; break;
        case Opcode::sel_f16: case Opcode::sel_f32: result = to_float(b, half) != 0.0f ? a : c; break;
        // Mesa ir3-cat3.xml: shrm (src2 >> src1) & src3, shlm, shrg (| src3), shlg, andg.
        case Opcode::shrm: result = (b >> shift) & c; break;
        case Opcode::shlm: result = ((b << shift) & mask) & c; break;
        case Opcode::shrg: result = (b >> shift) | c; break;
        case Opcode::shlg: result = ((b << shift) & mask) | c; break;
        case Opcode::andg: result = (b & a) | c; break;
        default:
          fail(pc_now_, std::string(info.name) + " is not modelled by the virtual shader processor");
      }
      write(in.dst, lane, r, result & (in.dst.half ? 0xffffu : 0xffffffffu));
    }
  }
}

void Wave::sfu(const ir3::Instruction& in) {
  const bool half = in.src[0].half;
  for (unsigned r = 0; r <= in.repeat; ++r) {
    for (std::uint16_t lane : active_) {
      const float x = to_float(modify(read(in.src[0], lane, r), in.src[0], Domain::floating, half ? 16 : 32), half);
      float y = 0;
      switch (in.opcode) {
        case Opcode::rcp: y = 1.0f / x; break;
        case Opcode::rsq: case Opcode::hrsq: y = 1.0f / std::sqrt(x); break;
        case Opcode::log2: case Opcode::hlog2: y = std::log2(x); break;
        case Opcode::exp2: case Opcode::hexp2: y = std::exp2(x); break;
        case Opcode::sin: y = std::sin(x); break;
        case Opcode::cos: y = std::cos(x); break;
        case Opcode::sqrt: y = std::sqrt(x); break;
        default:
          fail(pc_now_, std::string(ir3::info(in.opcode).name) + " is not modelled by the virtual shader processor");
      }
      if (in.sat) y = std::clamp(y, 0.0f, 1.0f);
      write(in.dst, lane, r, from_float(y, in.dst.half));
    }
  }
}

std::uint64_t Wave::address64(const ir3::Operand& base, unsigned lane) const {
  if (base.kind != OperandKind::gpr || base.half) fail(pc_now_, "a global address must be a full register pair");
  check_full_range(base.reg, 2);
  return read_full(base.reg, lane) | (std::uint64_t{read_full(base.reg + 1u, lane)} << 32);
}

void Wave::memory(const ir3::Instruction& in) {
  switch (in.opcode) {
    case Opcode::ldg: case Opcode::ldg_a: case Opcode::stg: case Opcode::stg_a:
      return global_access(in);
    case Opcode::ldl: case Opcode::ldlw: case Opcode::stl: case Opcode::stlw:
      return local_access(in);
    case Opcode::getfiberid:
      for (std::uint16_t lane : active_) write(in.dst, lane, 0, lane);
      return;
    case Opcode::getwid:
      for (std::uint16_t lane : active_) write(in.dst, lane, 0, index_);
      return;
    case Opcode::getspid:
      for (std::uint16_t lane : active_) write(in.dst, lane, 0, 0);  // one SP
      return;
    default:
      if (in.opcode >= Opcode::atomic_add && in.opcode <= Opcode::atomic_g_xor) return atomic(in);
      fail(pc_now_, std::string(ir3::info(in.opcode).name) + " is not modelled by the virtual shader processor");
  }
}

void Wave::global_access(const ir3::Instruction& in) {
  const bool load = in.opcode == Opcode::ldg || in.opcode == Opcode::ldg_a;
  const bool indexed = in.opcode == Opcode::ldg_a || in.opcode == Opcode::stg_a;
  const unsigned bytes = type_bytes(in.type);
  const bool half_regs = ir3::is_half(in.type);
  const unsigned components = in.mem.size;
  const ir3::Operand& data = load ? in.dst : in.src[indexed ? 2 : 1];
  if (data.kind == OperandKind::gpr) {
    half_regs ? check_half_range(data.reg, components) : check_full_range(data.reg, components);
  }
  for (std::uint16_t lane : active_) {
    std::uint64_t address = address64(in.src[0], lane);
    if (indexed) {
      const std::uint64_t index = read(in.src[1], lane, 0);
      address += ((index << in.mem.shift) + static_cast<std::uint64_t>(static_cast<std::int64_t>(in.mem.offset)))
                 << std::countr_zero(bytes);
    } else {
      address += static_cast<std::uint64_t>(static_cast<std::int64_t>(in.mem.offset));
    }
    for (unsigned c = 0; c < components; ++c) {
      const std::uint64_t at = address + std::uint64_t{c} * bytes;
      if (load) {
        std::uint32_t value = 0;
        dispatch_.memory->read(at, &value, bytes);
        if (in.type == Type::s16) value = static_cast<std::uint32_t>(sext(value, 16)) & 0xffff;
        half_regs ? write_half(data.reg + c, lane, value) : write_full(data.reg + c, lane, value);
      } else {
        ir3::Operand component = data;
        if (component.kind == OperandKind::gpr) component.reg = static_cast<std::uint16_t>(component.reg + c);
        const std::uint32_t value = read(component, lane, 0);
        dispatch_.memory->write(at, &value, bytes);
      }
    }
  }
}

void Wave::local_access(const ir3::Instruction& in) {
  const bool load = in.opcode == Opcode::ldl || in.opcode == Opcode::ldlw;
  const unsigned bytes = type_bytes(in.type);
  const bool half_regs = ir3::is_half(in.type);
  const unsigned components = in.mem.size;
  const ir3::Operand& data = load ? in.dst : in.src[1];
  if (data.kind == OperandKind::gpr) {
    half_regs ? check_half_range(data.reg, components) : check_full_range(data.reg, components);
  }
  auto& local = group_.local_memory;
  for (std::uint16_t lane : active_) {
    const std::uint64_t address = std::uint64_t{read(in.src[0], lane, 0)} + static_cast<std::uint64_t>(static_cast<std::int64_t>(in.mem.offset));
    if (address + std::uint64_t{components} * bytes > local.size()) {
      fail(pc_now_, "local memory access at byte " + std::to_string(address) + " is outside the " +
                        std::to_string(local.size()) + " bytes of SP_CS_CNTL_1 SHARED_SIZE");
    }
    for (unsigned c = 0; c < components; ++c) {
      std::uint8_t* at = local.data() + address + std::size_t{c} * bytes;
      if (load) {
        std::uint32_t value = 0;
        std::memcpy(&value, at, bytes);
        half_regs ? write_half(data.reg + c, lane, value) : write_full(data.reg + c, lane, value);
      } else {
        ir3::Operand component = data;
        if (component.kind == OperandKind::gpr) component.reg = static_cast<std::uint16_t>(component.reg + c);
        const std::uint32_t value = read(component, lane, 0);
        std::memcpy(at, &value, bytes);
      }
    }
  }
}

void Wave::atomic(const ir3::Instruction& in) {
  const bool global = in.opcode >= Opcode::atomic_g_add;
  const auto op = static_cast<Opcode>(static_cast<unsigned>(in.opcode) -
                                      (global ? static_cast<unsigned>(Opcode::atomic_g_add) - static_cast<unsigned>(Opcode::atomic_add) : 0));
  if (in.type != Type::u32 && in.type != Type::s32) fail(pc_now_, "atomics are modelled on 32-bit types only");
  if (op == Opcode::atomic_cmpxchg) fail(pc_now_, "atomic.cmpxchg is not modelled by the virtual shader processor");
  const bool is_signed = in.type == Type::s32;
  auto combine = [&](std::uint32_t old, std::uint32_t operand) -> std::uint32_t {
    switch (op) {
      case Opcode::atomic_add: return old + operand;
      case Opcode::atomic_sub: return old - operand;
      case Opcode::atomic_xchg: return operand;
      case Opcode::atomic_inc: return old + 1;
      case Opcode::atomic_dec: return old - 1;
      case Opcode::atomic_min:
        return is_signed ? static_cast<std::uint32_t>(std::min(static_cast<std::int32_t>(old), static_cast<std::int32_t>(operand)))
                         : std::min(old, operand);
      case Opcode::atomic_max:
        return is_signed ? static_cast<std::uint32_t>(std::max(static_cast<std::int32_t>(old), static_cast<std::int32_t>(operand)))
                         : std::max(old, operand);
      case Opcode::atomic_and: return old & operand;
      case Opcode::atomic_or: return old | operand;
      default: return old ^ operand;
    }
  };
  for (std::uint16_t lane : active_) {
    const std::uint32_t operand = read(in.src[1], lane, 0);
    std::uint32_t old = 0;
    if (global) {
      const std::uint64_t address = address64(in.src[0], lane);
      if (address % 4 != 0) fail(pc_now_, "unaligned global atomic");
      auto* host = reinterpret_cast<std::uint32_t*>(dispatch_.memory->translate(address, 4, true));
      std::atomic_ref<std::uint32_t> cell(*host);
      old = cell.load();
      while (!cell.compare_exchange_weak(old, combine(old, operand))) {
      }
    } else {
      const std::uint64_t address = read(in.src[0], lane, 0);
      if (address % 4 != 0 || address + 4 > group_.local_memory.size())
        fail(pc_now_, "local atomic at byte " + std::to_string(address) + " is unaligned or outside SHARED_SIZE");
      std::memcpy(&old, group_.local_memory.data() + address, 4);
      const std::uint32_t updated = combine(old, operand);
      std::memcpy(group_.local_memory.data() + address, &updated, 4);
    }
    if (in.dst.kind != OperandKind::none) write(in.dst, lane, 0, old);
  }
}

}  // namespace adreno::virt
