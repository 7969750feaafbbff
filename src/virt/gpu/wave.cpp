#include "virt/gpu/wave.h"

#include "ir3/half_float.h"
#include "ir3/opcodes.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
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

std::uint32_t reverse_bits(std::uint32_t x) {
  std::uint32_t v = 0;
  for (unsigned i = 0; i < 32; ++i) v |= ((x >> i) & 1) << (31 - i);
  return v;
}

// One operation over the executing lanes' values, r[i] = f(a[i], b[i]) (and c[i]): the result is
// a buffer of its own and the sources are only read (they may be register rows, or the same
// row), so the restrict qualifiers hold and the compiler vectorizes the loop.
template <typename F>
void lanewise(std::size_t n, const std::uint32_t* __restrict a, const std::uint32_t* __restrict b,
              std::uint32_t* __restrict r, F f) {
  for (std::size_t i = 0; i < n; ++i) r[i] = f(a[i], b[i]);
}
template <typename F>
void lanewise(std::size_t n, const std::uint32_t* __restrict a, const std::uint32_t* __restrict b,
              const std::uint32_t* __restrict c, std::uint32_t* __restrict r, F f) {
  for (std::size_t i = 0; i < n; ++i) r[i] = f(a[i], b[i], c[i]);
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

// Bytes per element of a memory type: u8/u8_32 one, 16-bit types two, the rest four.
unsigned type_bytes(Type type) { return 1u << ir3::type_shift(type); }

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

// Moves `components` dwords per lane between the register rows and memory, for the executing
// lanes lanes[0 .. count): component c of lane l is rows[c * stride + l], its memory at(i) + 4c
// (i the lane's position). Lane by lane, as the hardware's lanes are ordered.
// Components 1-4 are a constant of each loop, which the compiler unrolls (0: `components`).
template <unsigned Components, typename At>
void move_lane_dwords(bool load, std::uint32_t* rows, std::size_t stride, unsigned components, const std::uint16_t* lanes,
                      std::size_t count, At at) {
  const unsigned n = Components != 0 ? Components : components;
  for (std::size_t i = 0; i < count; ++i) {
    std::uint32_t* const row = rows + lanes[i];
    std::byte* const memory = at(i);
    if (load) {
      for (unsigned c = 0; c < n; ++c) std::memcpy(row + c * stride, memory + 4 * c, 4);
    } else {
      for (unsigned c = 0; c < n; ++c) std::memcpy(memory + 4 * c, row + c * stride, 4);
    }
  }
}

// The same for `count` lanes that follow each other from `rows`' lane 0, whose accesses follow
// each other in `memory`: a transpose between the lanes' vectors and the component rows, which
// the compiler vectorizes (the two never overlap: registers are not memory).
template <unsigned Components>
void move_run_dwords(bool load, std::uint32_t* __restrict rows, std::size_t stride, std::byte* __restrict memory,
                     std::size_t count) {
  if (load) {
    for (std::size_t k = 0; k < count; ++k)
      for (unsigned c = 0; c < Components; ++c) std::memcpy(rows + c * stride + k, memory + 4 * (k * Components + c), 4);
  } else {
    for (std::size_t k = 0; k < count; ++k)
      for (unsigned c = 0; c < Components; ++c) std::memcpy(memory + 4 * (k * Components + c), rows + c * stride + k, 4);
  }
}

template <typename At>
void move_dwords(bool load, std::uint32_t* rows, std::size_t stride, unsigned components, const std::uint16_t* lanes,
                 std::size_t count, At at) {
  switch (components) {
    case 1: return move_lane_dwords<1>(load, rows, stride, components, lanes, count, at);
    case 2: return move_lane_dwords<2>(load, rows, stride, components, lanes, count, at);
    case 3: return move_lane_dwords<3>(load, rows, stride, components, lanes, count, at);
    case 4: return move_lane_dwords<4>(load, rows, stride, components, lanes, count, at);
    default: return move_lane_dwords<0>(load, rows, stride, components, lanes, count, at);
  }
}

// A run of lanes' accesses that follow each other in memory from `memory`: the lanes moved
// together when they follow each other too (lanes ascend, so the span of the first and last
// says so), else lane by lane.
void move_run(bool load, std::uint32_t* rows, std::size_t stride, unsigned components, const std::uint16_t* lanes,
              std::size_t count, std::byte* memory) {
  if (count != 0 && std::size_t{lanes[count - 1]} - lanes[0] + 1 == count) {
    switch (components) {
      case 1: return move_run_dwords<1>(load, rows + lanes[0], stride, memory, count);
      case 2: return move_run_dwords<2>(load, rows + lanes[0], stride, memory, count);
      case 3: return move_run_dwords<3>(load, rows + lanes[0], stride, memory, count);
      case 4: return move_run_dwords<4>(load, rows + lanes[0], stride, memory, count);
      default: break;
    }
  }
  const std::size_t length = std::size_t{components} * 4;
  move_dwords(load, rows, stride, components, lanes, count, [&](std::size_t k) { return memory + k * length; });
}

}  // namespace

Wave::Wave(const ComputeDispatch& dispatch, unsigned index, unsigned lanes, Wave* recycled)
    : dispatch_(dispatch),
      program_(*dispatch.program),
      index_(index),
      lanes_(lanes),
      stride_(dispatch.wave_size),
      full_regids_(dispatch.full_footprint * 4),
      half_regids_(dispatch.merged_registers ? 0 : dispatch.half_footprint * 4),
      hazards_(program_, dispatch.hazards, dispatch.hazard_warnings, stride_, lanes, full_regids_, dispatch.half_footprint * 4,
               dispatch.merged_registers, dispatch.first_instruction, recycled != nullptr ? &recycled->hazards_ : nullptr) {
  if (recycled != nullptr) {
    full_ = std::move(recycled->full_);
    half_ = std::move(recycled->half_);
    a0_ = std::move(recycled->a0_);
    a1_ = std::move(recycled->a1_);
    p0_ = std::move(recycled->p0_);
    private_ = std::move(recycled->private_);
    pc_ = std::move(recycled->pc_);
    live_ = std::move(recycled->live_);
    active_ = std::move(recycled->active_);
    next_pc_ = std::move(recycled->next_pc_);
  }
  // Sized only: start() sets what a work group may read.
  full_.resize(std::size_t{full_regids_} * stride_);
  half_.resize(std::size_t{half_regids_} * stride_);
  a0_.resize(stride_);
  a1_.resize(stride_);
  p0_.resize(std::size_t{4} * stride_);
  private_.resize(std::size_t{dispatch.private_bytes} * lanes);
  pc_.resize(stride_);
  live_.resize(stride_);
  active_.reserve(stride_);
  next_pc_.resize(stride_);
}

void Wave::start(WorkGroup& group, unsigned first_fiber) {
  group_ = &group;
  std::fill(full_.begin(), full_.end(), 0);
  std::fill(half_.begin(), half_.end(), 0);
  shared_full_ = {};
  shared_half_ = {};
  std::fill(a0_.begin(), a0_.end(), 0);
  std::fill(a1_.begin(), a1_.end(), 0);
  std::fill(p0_.begin(), p0_.end(), 0);
  std::fill(private_.begin(), private_.end(), 0);
  std::fill(live_.begin(), live_.begin() + lanes_, 1);
  active_.clear();
  uniform_pc_ = dispatch_.first_instruction;
  diverged_ = active_is_live_ = dense_ = at_barrier_ = in_preamble_ = false;
  fiber_instructions_ = 0;
  since_watchdog_ = 0;
  pc_now_ = 0;
  hazards_.reset();
  const ComputeDispatch& dispatch = dispatch_;
  const auto& size = dispatch.local_size;
  // System values, written as the hardware does before the first instruction: values[c][lane]
  // into component c for every lane (a register row at a time).
  std::array<Lanes, 3> values;
  auto preload = [&](std::uint16_t regid, unsigned count) {
    check_full_range(regid, count);
    for (unsigned c = 0; c < count; ++c) {
      if (regid + c < kFirstSharedRegid) {
        std::copy_n(values[c].begin(), lanes_, &full_[std::size_t{regid + c} * stride_]);
      } else if (regid + c < kFirstSharedRegid + kSharedRegids) {
        write_full(regid + c, lanes_ - 1, values[c][lanes_ - 1]);  // uniform: the last lane's value stays
      } else {
        for (unsigned lane = 0; lane < lanes_; ++lane) write_full(regid + c, lane, values[c][lane]);
      }
    }
  };
  // The same value in every lane.
  auto preload_uniform = [&](std::uint16_t regid, unsigned count, const std::array<std::uint32_t, 3>& value) {
    if (regid == kNoRegid) return;
    for (unsigned c = 0; c < count; ++c) std::fill_n(values[c].begin(), lanes_, value[c]);
    preload(regid, count);
  };
  if (dispatch.local_id_regid != kNoRegid) {
    // The fibers' local ids, counted on from the first fiber's rather than divided out per lane:
    // a run of lanes along x at a time.
    std::uint32_t x = first_fiber % size[0], y = first_fiber / size[0] % size[1], z = first_fiber / (size[0] * size[1]);
    for (unsigned lane = 0; lane < lanes_;) {
      const unsigned run = std::min(lanes_ - lane, size[0] - x);
      std::iota(values[0].begin() + lane, values[0].begin() + lane + run, x);
      std::fill_n(values[1].begin() + lane, run, y);
      std::fill_n(values[2].begin() + lane, run, z);
      lane += run;
      x = 0;
      if (++y == size[1]) {
        y = 0;
        ++z;
      }
    }
    preload(dispatch.local_id_regid, 3);
  }
  if (dispatch.linear_local_id_regid != kNoRegid) {
    std::iota(values[0].begin(), values[0].begin() + lanes_, first_fiber);
    preload(dispatch.linear_local_id_regid, 1);
  }
  preload_uniform(dispatch.work_group_id_regid, 3, group.id);
  preload_uniform(dispatch.work_group_size_regid, 3, size);
  preload_uniform(dispatch.work_group_offset_regid, 3, {group.id[0] * size[0], group.id[1] * size[1], group.id[2] * size[2]});
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
  if (regid >= kP0Regid && regid < kP0Regid + 4) return p0_[(regid - kP0Regid) * stride_ + lane];
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
    p0_[(regid - kP0Regid) * stride_ + lane] = value != 0;
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
    const int regid = a0_[lane] + op.value + static_cast<int>(rpt);  // (rptN) always advances the destination
    if (regid < 0) fail(pc_now_, "relative register index " + std::to_string(regid) + " is negative");
    op.half ? check_half_range(static_cast<unsigned>(regid), 1) : check_full_range(static_cast<unsigned>(regid), 1);
    return op.half ? write_half(static_cast<unsigned>(regid), lane, value) : write_full(static_cast<unsigned>(regid), lane, value);
  }
  if (op.kind != OperandKind::gpr) fail(pc_now_, "destination is not a register");
  op.half ? write_half(op.reg + rpt, lane, value) : write_full(op.reg + rpt, lane, value);
}

Wave::Stop Wave::run() {
  at_barrier_ = false;
  for (;;) {
    // The count survives barriers, so a loop around a barrier still meets the hang detector.
    if (++since_watchdog_ == 4096) {
      since_watchdog_ = 0;
      if (std::chrono::steady_clock::now() > dispatch_.deadline || (dispatch_.stop && dispatch_.stop->load(std::memory_order_relaxed))) {
        throw GpuFault(FaultKind::hang, program_.address() + std::uint64_t{pc_now_} * 8,
                       "shader still running at instruction " + std::to_string(pc_now_) + " when the hang detector fired");
      }
    }
    std::uint32_t pc = uniform_pc_;
    if (!diverged_) {
      // Converged: the executing lanes are the live ones, unchanged until a lane ends or splits.
      if (!active_is_live_) {
        active_.clear();
        for (unsigned lane = 0; lane < lanes_; ++lane)
          if (live_[lane]) active_.push_back(static_cast<std::uint16_t>(lane));
        active_is_live_ = true;
      }
    } else {
      active_is_live_ = false;
      active_.clear();
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
    dense_ = active_.size() == lanes_;
    pc_now_ = pc;
    if (pc >= program_.size()) {
      throw GpuFault(FaultKind::hang, program_.address() + std::uint64_t{pc} * 8,
                     "shader ran past the end of its SP_CS_INSTR_SIZE program without reaching `end`");
    }
    const DecodedInstruction& decoded = program_[pc];
    fiber_instructions_ += active_.size();
    if (decoded.illegal.empty() &&
        (ir3::info(decoded.instruction.opcode).category != 0 || decoded.instruction.opcode == Opcode::nop)) {
      // Not a flow instruction (a nop only waits): every executing lane moves on to the next one.
      execute(decoded, pc);
      if (!diverged_) {
        uniform_pc_ = pc + 1;
      } else {
        for (std::uint16_t lane : active_) pc_[lane] = pc + 1;
      }
      if (at_barrier_) return Stop::barrier;
      continue;
    }
    if (dense_) {
      std::fill_n(next_pc_.begin(), lanes_, pc + 1);
    } else {
      for (std::uint16_t lane : active_) next_pc_[lane] = pc + 1;
    }
    execute(decoded, pc);

    // Commit where each lane goes next; lanes that ended are no longer live.
    const std::uint32_t first = next_pc_[active_.front()];
    std::uint32_t differ = 0;  // a lane's next pc xor the first's, or-ed: one pass the compiler vectorizes when dense
    if (dense_) {
      for (unsigned lane = 0; lane < lanes_; ++lane) differ |= next_pc_[lane] ^ first;
    } else {
      for (std::uint16_t lane : active_) differ |= next_pc_[lane] ^ first;
    }
    const bool same = differ == 0;
    if (!diverged_ && same) {
      uniform_pc_ = first;
    } else {
      active_is_live_ = false;
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
  if (in_preamble_ && dispatch_.early_preamble && (decoded.max_full_regid >= 0 || decoded.max_half_regid >= 0)) {
    // Mesa enables the early preamble only when it touches no GPR (ir3_legalize.c, early_preamble):
    // it runs in the HLSQ, before any wave has registers.
    fail(pc, "an early preamble (SP_CS_CNTL_0 EARLYPREAMBLE) reaches a per-fiber register; it may use only the shared "
             "registers, a1.x and constants");
  }
  hazards_.issue(pc, active_, !diverged_, a0_);
  const ir3::Instruction& in = decoded.instruction;
  switch (ir3::info(in.opcode).category) {
    case 0: return branch(in, pc);
    case 1: return move(in);
    case 2: return alu2(in);
    case 3: return alu3(in);
    case 4: return sfu(in);
    case 5:
      if (in.opcode == Opcode::isam) return texture_fetch(in);
      break;
    case 6: return memory(in);
    case 7:
      switch (in.opcode) {
        case Opcode::bar:
          if (in_preamble_) fail(pc, "bar inside the preamble, which one fiber runs");
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
  // The predicate rows and inversions in locals: the stores to next_pc_ below cannot change them.
  const std::array<const std::uint8_t*, 2> rows{&p0_[std::size_t{in.flow.comp[0]} * stride_],
                                                &p0_[std::size_t{in.flow.comp[1]} * stride_]};
  const std::array<bool, 2> invert = in.flow.invert;
  auto predicate = [rows, invert](unsigned lane, unsigned which) { return (rows[which][lane] != 0) != invert[which]; };
  const std::uint32_t target = pc + static_cast<std::uint32_t>(in.flow.target);
  // Sends the executing lanes for which taken(lane) holds to the target. Every lane of a dense
  // wave is at its own position: one select per lane, which the compiler vectorizes.
  auto branch_where = [&](auto&& taken) {
    std::uint32_t* next = next_pc_.data();
    if (dense_) {
      for (unsigned lane = 0, n = lanes_; lane < n; ++lane) next[lane] = taken(lane) ? target : next[lane];
    } else {
      for (std::uint16_t lane : active_)
        if (taken(lane)) next[lane] = target;
    }
  };
  switch (in.opcode) {
    case Opcode::nop:
      return;
    case Opcode::end:
      if (in_preamble_) fail(pc, "end inside the preamble: shpe never ran");
      for (std::uint16_t lane : active_) live_[lane] = 0;
      active_is_live_ = false;
      return;
    case Opcode::jump:
      for (std::uint16_t lane : active_) next_pc_[lane] = target;
      return;
    case Opcode::br:
      return branch_where([&](unsigned lane) { return predicate(lane, 0); });
    case Opcode::brao:
      return branch_where([&](unsigned lane) { return predicate(lane, 0) || predicate(lane, 1); });
    case Opcode::braa:
      return branch_where([&](unsigned lane) { return predicate(lane, 0) && predicate(lane, 1); });
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
    case Opcode::getone:
    case Opcode::shps:
    case Opcode::shpe:
      return preamble_flow(in, pc, target);
    default:
      fail(pc, std::string(ir3::info(in.opcode).name) + " is not modelled by the virtual shader processor");
  }
}

void Wave::preamble_flow(const ir3::Instruction& in, std::uint32_t pc, std::uint32_t target) {
  switch (in.opcode) {
    case Opcode::getone: {
      // One fiber of those executing goes on, the others branch (Mesa ir3.c: getone ends a block
      // whose condition is divergent, the body run by a single fiber).
      for (std::size_t i = 1; i < active_.size(); ++i) next_pc_[active_[i]] = target;
      return;
    }
    case Opcode::shps: {
      // The first wave to arrive runs the preamble; every later one branches past it
      // (ir3_create_empty_preamble: shps falls through to the preamble, else jumps to main).
      Preamble& preamble = *group_->preamble;  // there is one: the program has an shps
      if (preamble.claimed) {
        for (std::uint16_t lane : active_) next_pc_[lane] = target;
        return;
      }
      if (!group_->runs_alone) {
        fail(pc, "shps: the first work group never reached the preamble; the virtual GPU runs the preamble there, "
                 "before the other work groups start");
      }
      preamble.claimed = true;
      in_preamble_ = true;
      return;
    }
    default: {  // shpe
      if (!in_preamble_) fail(pc, "shpe outside a preamble: no shps of this wave started one");
      // Mesa's legalizer always gives shpe both (ir3_required_sync_flags): the preamble's constant
      // writes (stc, ldc.k) must have landed before the main shader reads them.
      if (!in.ss || !in.sy) fail(pc, "shpe without (ss)(sy): the preamble's constant writes may not have landed");
      in_preamble_ = false;
      group_->preamble->done = true;
      return;
    }
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
  Lanes buffer;
  for (unsigned rpt = 0; rpt <= in.repeat; ++rpt) {
    const std::uint32_t* values = gather(in.src[0], rpt, buffer);
    if (in.src_type != in.type) {
      for (std::size_t i = 0; i < active_.size(); ++i) buffer[i] = convert(values[i], in.src_type, in.type);
      values = buffer.data();
    }
    scatter(in.dst, rpt, values);
  }
}

const std::uint32_t* Wave::gather(const ir3::Operand& op, unsigned rpt, Lanes& out) const {
  const std::size_t n = active_.size();
  const unsigned regid = op.reg + (op.repeat ? rpt : 0);
  if (op.kind == OperandKind::gpr && regid < kFirstSharedRegid && (!op.half || !dispatch_.merged_registers)) {
    if (op.half) {
      const std::uint16_t* row = &half_[std::size_t{regid} * stride_];
      if (dense_) {
        std::copy_n(row, n, out.begin());
      } else {
        for (std::size_t i = 0; i < n; ++i) out[i] = row[active_[i]];
      }
      return out.data();
    }
    const std::uint32_t* row = &full_[std::size_t{regid} * stride_];
    if (dense_) return row;
    for (std::size_t i = 0; i < n; ++i) out[i] = row[active_[i]];
    return out.data();
  }
  const bool shared = op.kind == OperandKind::gpr && regid >= kFirstSharedRegid && regid < kFirstSharedRegid + kSharedRegids;
  if (op.kind == OperandKind::constant || op.kind == OperandKind::immediate || shared) {
    std::fill_n(out.begin(), n, read(op, active_[0], rpt));  // the same for every lane
    return out.data();
  }
  for (std::size_t i = 0; i < n; ++i) out[i] = read(op, active_[i], rpt);
  return out.data();
}

void Wave::scatter(const ir3::Operand& op, unsigned rpt, const std::uint32_t* values) {
  const std::size_t n = active_.size();
  const unsigned regid = op.reg + rpt;
  if (op.kind == OperandKind::gpr && !op.half && regid < kFirstSharedRegid) {
    std::uint32_t* row = &full_[std::size_t{regid} * stride_];
    if (dense_) {
      std::memmove(row, values, n * sizeof *row);  // values may be this row (mov r1.x, r1.x)
    } else {
      for (std::size_t i = 0; i < n; ++i) row[active_[i]] = values[i];
    }
    return;
  }
  if (op.kind == OperandKind::gpr && regid >= kP0Regid && regid < kP0Regid + 4) {
    // A predicate is set when the (half: low 16) bits written are not zero.
    const std::uint32_t mask = op.half ? 0xffffu : 0xffffffffu;
    std::uint8_t* row = &p0_[std::size_t{regid - kP0Regid} * stride_];
    if (dense_) {
      for (std::size_t i = 0; i < n; ++i) row[i] = (values[i] & mask) != 0;
    } else {
      for (std::size_t i = 0; i < n; ++i) row[active_[i]] = (values[i] & mask) != 0;
    }
    return;
  }
  for (std::size_t i = 0; i < n; ++i) write(op, active_[i], rpt, values[i]);
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
  const std::size_t n = active_.size();

  Lanes a_buffer, b_buffer, r;
  const std::uint32_t* a = nullptr;
  const std::uint32_t* b = nullptr;
  // The opcode is chosen once per instruction; the lambdas inline into one loop per case.
  auto each = [&](auto f) { lanewise(n, a, b, r.data(), f); };
  auto each_float = [&](auto f) {
    if (half) {
      each([&](std::uint32_t x, std::uint32_t y) { return from_float(f(to_float(x, true), two ? to_float(y, true) : 0.0f), true); });
    } else {  // a one-source f ignores y
      each([&](std::uint32_t x, std::uint32_t y) { return std::bit_cast<std::uint32_t>(f(std::bit_cast<float>(x), std::bit_cast<float>(y))); });
    }
  };
  // cond chosen once too: lt le gt ge eq ne of the values `value` makes of the raw bits.
  auto each_compare = [&](auto value) {
    switch (in.cond) {
      case 0: return each([&](std::uint32_t x, std::uint32_t y) { return std::uint32_t{value(x) < value(y)}; });
      case 1: return each([&](std::uint32_t x, std::uint32_t y) { return std::uint32_t{value(x) <= value(y)}; });
      case 2: return each([&](std::uint32_t x, std::uint32_t y) { return std::uint32_t{value(x) > value(y)}; });
      case 3: return each([&](std::uint32_t x, std::uint32_t y) { return std::uint32_t{value(x) >= value(y)}; });
      case 4: return each([&](std::uint32_t x, std::uint32_t y) { return std::uint32_t{value(x) == value(y)}; });
      default: return each([&](std::uint32_t x, std::uint32_t y) { return std::uint32_t{value(x) != value(y)}; });
    }
  };
  auto s = [&](std::uint32_t x) { return sext(x, bits); };
  for (unsigned rpt = 0; rpt <= in.repeat; ++rpt) {
    a = gather(in.src[0], rpt, a_buffer);
    if (in.src[0].abs || in.src[0].neg) {
      for (std::size_t i = 0; i < n; ++i) a_buffer[i] = modify(a[i], in.src[0], domain, bits);
      a = a_buffer.data();
    }
    b = a;  // read, unused, by one-source operations
    if (two) {
      b = gather(in.src[1], rpt, b_buffer);
      if (in.src[1].abs || in.src[1].neg) {
        for (std::size_t i = 0; i < n; ++i) b_buffer[i] = modify(b[i], in.src[1], domain, bits);
        b = b_buffer.data();
      }
    }
    switch (in.opcode) {
      case Opcode::add_f: each_float([](float x, float y) { return x + y; }); break;
      case Opcode::min_f: each_float([](float x, float y) { return std::fmin(x, y); }); break;
      case Opcode::max_f: each_float([](float x, float y) { return std::fmax(x, y); }); break;
      case Opcode::mul_f: each_float([](float x, float y) { return x * y; }); break;
      case Opcode::sign_f: each_float([](float x, float) { return x > 0 ? 1.0f : x < 0 ? -1.0f : x; }); break;
      case Opcode::floor_f: each_float([](float x, float) { return std::floor(x); }); break;
      case Opcode::ceil_f: each_float([](float x, float) { return std::ceil(x); }); break;
      case Opcode::rndne_f: each_float([](float x, float) { return std::nearbyint(x); }); break;
      case Opcode::rndaz_f: each_float([](float x, float) { return std::round(x); }); break;
      case Opcode::trunc_f: each_float([](float x, float) { return std::trunc(x); }); break;
      case Opcode::absneg_f: case Opcode::absneg_s: each([](std::uint32_t x, std::uint32_t) { return x; }); break;
      case Opcode::cmps_f:
        if (half) {
          each_compare([](std::uint32_t x) { return to_float(x, true); });
        } else {
          each_compare([](std::uint32_t x) { return std::bit_cast<float>(x); });
        }
        break;
      case Opcode::add_u: case Opcode::add_s: each([&](std::uint32_t x, std::uint32_t y) { return (x + y) & mask; }); break;
      case Opcode::sub_u: case Opcode::sub_s: each([&](std::uint32_t x, std::uint32_t y) { return (x - y) & mask; }); break;
      case Opcode::cmps_u: each_compare([](std::uint32_t x) { return x; }); break;
      case Opcode::cmps_s: each_compare(s); break;
      case Opcode::min_u: each([](std::uint32_t x, std::uint32_t y) { return std::min(x, y); }); break;
      case Opcode::max_u: each([](std::uint32_t x, std::uint32_t y) { return std::max(x, y); }); break;
      case Opcode::min_s: each([&](std::uint32_t x, std::uint32_t y) { return static_cast<std::uint32_t>(std::min(s(x), s(y))) & mask; }); break;
      case Opcode::max_s: each([&](std::uint32_t x, std::uint32_t y) { return static_cast<std::uint32_t>(std::max(s(x), s(y))) & mask; }); break;
      case Opcode::and_b: each([](std::uint32_t x, std::uint32_t y) { return x & y; }); break;
      case Opcode::or_b: each([](std::uint32_t x, std::uint32_t y) { return x | y; }); break;
      case Opcode::xor_b: each([](std::uint32_t x, std::uint32_t y) { return x ^ y; }); break;
      case Opcode::not_b: each([&](std::uint32_t x, std::uint32_t) { return ~x & mask; }); break;
      case Opcode::mul_u24:
        each([&](std::uint32_t x, std::uint32_t y) { return static_cast<std::uint32_t>(std::uint64_t{x & 0xffffff} * (y & 0xffffff)) & mask; });
        break;
      case Opcode::mul_s24:
        each([&](std::uint32_t x, std::uint32_t y) {
          return static_cast<std::uint32_t>(std::int64_t{sext(x & 0xffffff, 24)} * sext(y & 0xffffff, 24)) & mask;
        });
        break;
      // Mesa ir3_nir_imul.py: umul_low is the product of the low 16 bits of each source.
      case Opcode::mull_u: each([&](std::uint32_t x, std::uint32_t y) { return (x & 0xffff) * (y & 0xffff) & mask; }); break;
      case Opcode::bfrev_b:
        each([&](std::uint32_t x, std::uint32_t) { return reverse_bits(x) >> (32 - bits); });
        break;
      case Opcode::clz_b:
        each([&](std::uint32_t x, std::uint32_t) { return static_cast<std::uint32_t>(std::min(std::countl_zero(x << (32 - bits)), static_cast<int>(bits))); });
        break;
      case Opcode::clz_s:
        // Leading bits equal to the sign bit (Mesa: ifind_msb = 31 - clz.s).
        each([&](std::uint32_t x, std::uint32_t) {
          const std::uint32_t v = s(x) < 0 ? ~x & mask : x;
          return static_cast<std::uint32_t>(std::min(std::countl_zero(v << (32 - bits)), static_cast<int>(bits)));
        });
        break;
      // The shifters use the low bits of the amount (NIR's shift semantics, which Mesa emits as is).
      case Opcode::shl_b: each([&](std::uint32_t x, std::uint32_t y) { return (x << (y & (bits - 1))) & mask; }); break;
      case Opcode::shr_b: each([&](std::uint32_t x, std::uint32_t y) { return x >> (y & (bits - 1)); }); break;
      case Opcode::ashr_b:
        each([&](std::uint32_t x, std::uint32_t y) { return static_cast<std::uint32_t>(s(x) >> (y & (bits - 1))) & mask; });
        break;
      case Opcode::getbit_b: each([&](std::uint32_t x, std::uint32_t y) { return (x >> (y & (bits - 1))) & 1; }); break;
      case Opcode::cbits_b: each([](std::uint32_t x, std::uint32_t) { return static_cast<std::uint32_t>(std::popcount(x)); }); break;
      default:
        fail(pc_now_, std::string(ir3::info(in.opcode).name) + " is not modelled by the virtual shader processor");
    }
    if (!compare_op && domain == Domain::floating && (in.sat || in.dst.half != half)) {
      for (std::size_t i = 0; i < n; ++i) {
        float value = to_float(r[i], half);
        if (in.sat) value = std::clamp(value, 0.0f, 1.0f);
        r[i] = from_float(value, in.dst.half);
      }
    }
    scatter(in.dst, rpt, r.data());
  }
}

void Wave::alu3(const ir3::Instruction& in) {
  const ir3::OpcodeInfo& info = ir3::info(in.opcode);
  const bool half = info.form == ir3::Form::tri_alt ? in.src[1].half : !ir3::full_precision(info);
  const unsigned bits = half ? 16 : 32;
  const std::uint32_t mask = mask_of(bits);
  const bool floating = in.opcode == Opcode::mad_f16 || in.opcode == Opcode::mad_f32;
  const Domain domain = floating ? Domain::floating : info.form == ir3::Form::tri_alt ? Domain::bitwise : Domain::integer;
  const std::size_t n = active_.size();

  std::array<Lanes, 3> buffers;
  std::array<const std::uint32_t*, 3> sources{};
  Lanes r;
  auto each = [&](auto f) { lanewise(n, sources[0], sources[1], sources[2], r.data(), f); };
  using U = std::uint32_t;
  for (unsigned rpt = 0; rpt <= in.repeat; ++rpt) {
    for (unsigned k = 0; k < 3; ++k) {
      sources[k] = gather(in.src[k], rpt, buffers[k]);
      if (in.src[k].abs || in.src[k].neg) {
        for (std::size_t i = 0; i < n; ++i) buffers[k][i] = modify(sources[k][i], in.src[k], domain, bits);
        sources[k] = buffers[k].data();
      }
    }
    switch (in.opcode) {
      case Opcode::mad_f32:
        if (!in.dst.half && !in.sat) {  // the common case, in one loop the compiler vectorizes
          each([](U x, U y, U z) {
            const float product = std::bit_cast<float>(x) * std::bit_cast<float>(y);
            return std::bit_cast<U>(product + std::bit_cast<float>(z));
          });
          break;
        }
        [[fallthrough]];
      case Opcode::mad_f16:
        // Modelled unfused: the product is rounded to the operand precision, then the sum.
        each([&](U x, U y, U z) {
          const float product = to_float(from_float(to_float(x, half) * to_float(y, half), half), half);
          float value = product + to_float(z, half);
          if (in.sat) value = std::clamp(value, 0.0f, 1.0f);
          return from_float(value, in.dst.half);
        });
        break;
      case Opcode::mad_u16: each([&](U x, U y, U z) { return ((x & 0xffff) * (y & 0xffff) + z) & mask; }); break;
      case Opcode::mad_s16:
        each([&](U x, U y, U z) { return static_cast<U>(std::int64_t{sext(x, 16)} * sext(y, 16) + z) & mask; });
        break;
      // Mesa nir_opcodes.py imadsh_mix16: the high half of src0 times the low half of src1,
      // shifted up 16, plus src2.
      case Opcode::madsh_m16: each([](U x, U y, U z) { return (((x >> 16) * (y & 0xffff)) << 16) + z; }); break;
      case Opcode::mad_u24:
        each([](U x, U y, U z) { return static_cast<U>(std::uint64_t{x & 0xffffff} * (y & 0xffffff)) + z; });
        break;
      case Opcode::mad_s24:
        each([](U x, U y, U z) { return static_cast<U>(std::int64_t{sext(x & 0xffffff, 24)} * sext(y & 0xffffff, 24)) + z; });
        break;
      // sel: src1 chooses src0 (true) or src2 (false).
      case Opcode::sel_b16: case Opcode::sel_b32: each([](U x, U y, U z) { return y ? x : z; }); break;
      case Opcode::sel_f16: case Opcode::sel_f32:
        each([&](U x, U y, U z) { return to_float(y, half) != 0.0f ? x : z; });
        break;
      // Mesa ir3-cat3.xml: shrm (src2 >> src1) & src3, shlm, shrg (| src3), shlg, andg.
      case Opcode::shrm: each([&](U x, U y, U z) { return (y >> (x & (bits - 1))) & z; }); break;
      case Opcode::shlm: each([&](U x, U y, U z) { return ((y << (x & (bits - 1))) & mask) & z; }); break;
      case Opcode::shrg: each([&](U x, U y, U z) { return (y >> (x & (bits - 1))) | z; }); break;
      case Opcode::shlg: each([&](U x, U y, U z) { return ((y << (x & (bits - 1))) & mask) | z; }); break;
      case Opcode::andg: each([](U x, U y, U z) { return (y & x) | z; }); break;
      default:
        fail(pc_now_, std::string(info.name) + " is not modelled by the virtual shader processor");
    }
    if (in.dst.half) {
      for (std::size_t i = 0; i < n; ++i) r[i] &= 0xffff;
    }
    scatter(in.dst, rpt, r.data());
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

const std::uint64_t* Wave::global_addresses(const ir3::Operand& base, LaneAddresses& out) const {
  if (base.kind != OperandKind::gpr || base.half) fail(pc_now_, "a global address must be a full register pair");
  check_full_range(base.reg, 2);
  ir3::Operand high = base;
  high.reg = static_cast<std::uint16_t>(high.reg + 1);
  Lanes low_buffer, high_buffer;
  const std::uint32_t* __restrict low_values = gather(base, 0, low_buffer);
  const std::uint32_t* __restrict high_values = gather(high, 0, high_buffer);
  for (std::size_t i = 0; i < active_.size(); ++i) out[i] = low_values[i] | (std::uint64_t{high_values[i]} << 32);
  return out.data();
}

void Wave::memory(const ir3::Instruction& in) {
  switch (in.opcode) {
    case Opcode::ldg: case Opcode::ldg_a: case Opcode::stg: case Opcode::stg_a:
    case Opcode::ldg_a_a7xx: case Opcode::stg_a_a7xx:
      return global_access(in);
    case Opcode::ldl: case Opcode::ldlw: case Opcode::stl: case Opcode::stlw: case Opcode::ldp: case Opcode::stp:
      return local_access(in);
    case Opcode::ldib_b: case Opcode::stib_b:
      return image_access(in);
    case Opcode::ldc: case Opcode::ldc_k:
      return uniform_load(in);
    case Opcode::stc:
      return constant_store(in);
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

std::uint32_t* Wave::data_rows(const ir3::Operand& data, Type type, unsigned components) {
  if (type_bytes(type) != 4 || ir3::is_half(type) || data.kind != OperandKind::gpr || data.half ||
      data.reg + components > kFirstSharedRegid) {
    return nullptr;
  }
  return &full_[std::size_t{data.reg} * stride_];
}

std::byte* Wave::lane_bytes(std::uint64_t address, std::size_t length, bool write, TranslationMemo& memo) const {
  try {
    return dispatch_.memory->translate(address, length, write, memo);
  } catch (const GpuFault&) {
    return nullptr;  // the byte-wise path reports it, or splits it across mappings or lines
  }
}

void Wave::global_access(const ir3::Instruction& in) {
  const bool load = in.opcode == Opcode::ldg || in.opcode == Opcode::ldg_a || in.opcode == Opcode::ldg_a_a7xx;
  // a7xx's ldg.a/stg.a (base + index + offset) take the index in units of the type, as a6xx's
  // with shift 0: Mesa's ir3 emits both from the same LDG_A/STG_A of nir's load/store_global_ir3
  // dword offset with shift 0 and offset 0 (ir3_a6xx.c emit_intrinsic_load_global_ir3, shared by
  // a6xx and a7xx). The unit of the a7xx 8-bit offset has no such source: a nonzero one is refused.
  const bool a7xx_indexed = in.opcode == Opcode::ldg_a_a7xx || in.opcode == Opcode::stg_a_a7xx;
  if (a7xx_indexed && in.mem.offset != 0)
    fail(pc_now_, "an a7xx ldg.a/stg.a with a nonzero offset is not modelled by the virtual shader processor");
  const bool indexed = in.opcode == Opcode::ldg_a || in.opcode == Opcode::stg_a || a7xx_indexed;
  const unsigned bytes = type_bytes(in.type);
  const bool half_regs = ir3::is_half(in.type);
  const unsigned components = in.mem.size;
  const ir3::Operand& data = load ? in.dst : in.src[indexed ? 2 : 1];
  if (data.kind == OperandKind::gpr) {
    half_regs ? check_half_range(data.reg, components) : check_full_range(data.reg, components);
  }
  // Every executing lane's address at once.
  LaneAddresses addresses;
  std::uint64_t* const address = addresses.data();
  global_addresses(in.src[0], addresses);
  const std::size_t n = active_.size();
  const auto offset = static_cast<std::uint64_t>(static_cast<std::int64_t>(in.mem.offset));
  if (indexed) {
    Lanes index_buffer;
    const std::uint32_t* index = gather(in.src[1], 0, index_buffer);
    const unsigned shift = in.mem.shift, type_shift = ir3::type_shift(in.type);
    for (std::size_t i = 0; i < n; ++i) address[i] += ((std::uint64_t{index[i]} << shift) + offset) << type_shift;
  } else if (offset != 0) {
    for (std::size_t i = 0; i < n; ++i) address[i] += offset;
  }
  const std::size_t length = std::size_t{components} * bytes;
  // Whether every lane's access follows the one before it in memory (a wave reading or writing
  // consecutive vectors, the usual case): one pass the compiler vectorizes, rather than a
  // search for the end of each run.
  std::uint64_t gaps = 0;
  for (std::size_t i = 1; i < n; ++i) gaps |= address[i] - address[i - 1] - length;
  // 32-bit data in general registers moves straight between memory and the register rows, and
  // lanes whose accesses follow each other in memory move together: one translation and one
  // cache lookup for all of them while they stay in one buffer and cache block.
  std::uint32_t* const rows = data_rows(data, in.type, components);
  TranslationMemo& memo = global_memos_[pc_now_ % global_memos_.size()];
  alignas(16) std::array<std::byte, 2048> staged;  // a wave of 128 lanes' vec4 stores
  for (std::size_t i = 0; i < n;) {
    if (rows != nullptr) {
      std::size_t end = gaps == 0 ? n : i + 1;
      while (end < n && address[end] == address[end - 1] + length) ++end;
      std::size_t run = 0;
      if (load) {
        std::byte* const host = dispatch_.memory->load_run(address[i], (end - i) * length, length, memo, run);
        move_run(true, rows, stride_, components, active_.data() + i, run, host);
      } else {
        // The run's bytes staged in memory order, so that the lines it writes whole need no fill.
        end = std::min(end, i + sizeof staged / length);
        move_run(false, rows, stride_, components, active_.data() + i, end - i, staged.data());
        run = dispatch_.memory->store_run(address[i], staged.data(), (end - i) * length, length, memo);
      }
      if (run > 0) {
        i += run;
        continue;
      }
    }
    // One lane.
    const std::uint16_t lane = active_[i];
    const std::uint64_t lane_address = address[i++];
    std::byte* const host = lane_bytes(lane_address, length, !load, memo);
    if (rows != nullptr && host != nullptr) {
      move_dwords(load, rows, stride_, components, &lane, 1, [&](std::size_t) { return host; });
      continue;
    }
    for (unsigned c = 0; c < components; ++c) {
      const std::uint64_t at = lane_address + std::uint64_t{c} * bytes;
      if (load) {
        std::uint32_t value = 0;
        if (host) {
          std::memcpy(&value, host + std::size_t{c} * bytes, bytes);
        } else {
          dispatch_.memory->read(at, &value, bytes);
        }
        if (in.type == Type::s16) value = static_cast<std::uint32_t>(sext(value, 16)) & 0xffff;
        half_regs ? write_half(data.reg + c, lane, value) : write_full(data.reg + c, lane, value);
      } else {
        ir3::Operand component = data;
        if (component.kind == OperandKind::gpr) component.reg = static_cast<std::uint16_t>(component.reg + c);
        const std::uint32_t value = read(component, lane, 0);
        if (host) {
          std::memcpy(host + std::size_t{c} * bytes, &value, bytes);
        } else {
          dispatch_.memory->write(at, &value, bytes);
        }
      }
    }
  }
}

void Wave::local_access(const ir3::Instruction& in) {
  // l[] is the work group's local memory; p[] the fiber's private memory.
  const bool is_private = in.opcode == Opcode::ldp || in.opcode == Opcode::stp;
  const bool load = in.opcode == Opcode::ldl || in.opcode == Opcode::ldlw || in.opcode == Opcode::ldp;
  const unsigned bytes = type_bytes(in.type);
  const bool half_regs = ir3::is_half(in.type);
  const unsigned components = in.mem.size;
  const ir3::Operand& data = load ? in.dst : in.src[1];
  if (data.kind == OperandKind::gpr) {
    half_regs ? check_half_range(data.reg, components) : check_full_range(data.reg, components);
  }
  std::uint32_t* const rows = data_rows(data, in.type, components);
  const std::size_t size = is_private ? dispatch_.private_bytes : group_->local_memory.size();
  const std::size_t n = active_.size();
  const std::uint64_t length = std::uint64_t{components} * bytes;
  // Every executing lane's byte address, offsets[i] + offset, all of them checked before any
  // moves (a fault ends the dispatch, so no lane's access is observable after one): the lowest
  // and highest offset decide.
  Lanes offset_buffer;
  const std::uint32_t* const offsets = gather(in.src[0], 0, offset_buffer);
  const auto signed_offset = static_cast<std::int64_t>(in.mem.offset);
  // Below 0 too, with a negative offset (an access outside, as one past the end).
  auto byte_of = [&](std::size_t i) { return std::int64_t{offsets[i]} + signed_offset; };
  std::uint32_t lowest = offsets[0], highest = offsets[0];
  for (std::size_t i = 1; i < n; ++i) {
    lowest = std::min(lowest, offsets[i]);
    highest = std::max(highest, offsets[i]);
  }
  if (std::int64_t{lowest} + signed_offset < 0 || std::int64_t{highest} + signed_offset + static_cast<std::int64_t>(length) >
                                                       static_cast<std::int64_t>(size)) {
    for (std::size_t i = 0; i < n; ++i) {
      const std::int64_t at = byte_of(i);
      if (at < 0 || at + static_cast<std::int64_t>(length) > static_cast<std::int64_t>(size)) {
        fail(pc_now_, std::string(is_private ? "private" : "local") + " memory access at byte " + std::to_string(at) +
                          " is outside the " + std::to_string(size) + " bytes of " +
                          (is_private ? "SP_CS_PVT_MEM_PARAM MEMSIZEPERITEM" : "SP_CS_CNTL_1 SHARED_SIZE"));
      }
    }
  }
  // Private memory is per lane, local memory the group's.
  std::uint8_t* const base = is_private ? private_.data() : group_->local_memory.data();
  if (!is_private && !load) group_->local_written = true;
  const std::size_t lane_bytes = is_private ? size : 0;
  auto memory_of = [&](std::uint16_t lane) { return base + std::size_t{lane} * lane_bytes; };
  if (rows != nullptr) {
    const std::uint16_t* const lanes = active_.data();
    return move_dwords(load, rows, stride_, components, lanes, n,
                       [&](std::size_t i) { return reinterpret_cast<std::byte*>(memory_of(lanes[i]) + byte_of(i)); });
  }
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint16_t lane = active_[i];
    std::uint8_t* memory = memory_of(lane);
    const auto address = static_cast<std::size_t>(byte_of(i));
    for (unsigned c = 0; c < components; ++c) {
      std::uint8_t* at = memory + address + std::size_t{c} * bytes;
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
  LaneAddresses global_address_buffer;
  const std::uint64_t* global_address = global ? global_addresses(in.src[0], global_address_buffer) : nullptr;
  for (std::size_t i = 0; i < active_.size(); ++i) {
    const std::uint16_t lane = active_[i];
    const std::uint32_t operand = read(in.src[1], lane, 0);
    std::uint32_t old = 0;
    if (global) {
      const std::uint64_t address = global_address[i];
      if (address % 4 != 0) fail(pc_now_, "unaligned global atomic");
      auto* host = reinterpret_cast<std::uint32_t*>(dispatch_.memory->translate(address, 4, true));
      std::atomic_ref<std::uint32_t> cell(*host);
      old = cell.load();
      while (!cell.compare_exchange_weak(old, combine(old, operand))) {
      }
    } else {
      const std::uint64_t address = read(in.src[0], lane, 0);
      if (address % 4 != 0 || address + 4 > group_->local_memory.size())
        fail(pc_now_, "local atomic at byte " + std::to_string(address) + " is unaligned or outside SHARED_SIZE");
      std::memcpy(&old, group_->local_memory.data() + address, 4);
      const std::uint32_t updated = combine(old, operand);
      group_->local_written = true;
      std::memcpy(group_->local_memory.data() + address, &updated, 4);
    }
    if (in.dst.kind != OperandKind::none) write(in.dst, lane, 0, old);
  }
}

const ImageDescriptor& Wave::image(const std::vector<BoundImage>& slots, std::uint32_t slot, const char* kind) const {
  if (slot >= slots.size()) {
    fail(pc_now_, std::string(kind) + " slot " + std::to_string(slot) + " is beyond the " + std::to_string(slots.size()) +
                      " that SP_CS_CONFIG declares");
  }
  if (!slots[slot].image) fail(pc_now_, std::string(kind) + " slot " + std::to_string(slot) + ": " + slots[slot].error);
  return *slots[slot].image;
}

// Value <-> register conversion for typed access: texels travel as 32-bit values (f32 bits for
// float formats, extended integers otherwise); 16-bit instruction types narrow them.
namespace {
std::uint32_t texel_to_register(std::uint32_t value, Type type, ComponentKind kind) {
  const bool float_format = kind == ComponentKind::float_ || kind == ComponentKind::unorm_;
  switch (type) {
    case Type::f16: return float_format ? ir3::float_to_half(std::bit_cast<float>(value)) : value & 0xffff;
    case Type::u16: case Type::s16: return value & 0xffff;
    default: return value;
  }
}
std::uint32_t register_to_texel(std::uint32_t value, Type type, ComponentKind kind) {
  const bool float_format = kind == ComponentKind::float_ || kind == ComponentKind::unorm_;
  switch (type) {
    case Type::f16: return float_format ? std::bit_cast<std::uint32_t>(ir3::half_to_float(static_cast<std::uint16_t>(value))) : value;
    case Type::s16: return static_cast<std::uint32_t>(sext(value, 16));
    default: return value;
  }
}
}  // namespace

void Wave::image_access(const ir3::Instruction& in) {
  // ldib.b / stib.b (Mesa ir3-cat6.xml #instruction-cat6-a6xx-ibo): src[0] the value registers,
  // src[1] the coordinate, src[2] the IBO slot.
  if (in.mem.bindless) fail(pc_now_, "bindless IBO access is not modelled");
  const bool load = in.opcode == Opcode::ldib_b;
  const bool half_regs = ir3::is_half(in.type);
  const unsigned components = in.mem.size;
  const ir3::Operand& data = in.src[0];
  if (data.kind != OperandKind::gpr) fail(pc_now_, "the ldib/stib value must be registers");
  half_regs ? check_half_range(data.reg, components) : check_full_range(data.reg, components);
  if (in.src[1].kind == OperandKind::gpr) check_full_range(in.src[1].reg, in.mem.dim);
  TranslationMemo memo;
  for (std::uint16_t lane : active_) {
    const ImageDescriptor& ibo = image(dispatch_.uavs, read(in.src[2], lane, 0), "IBO");
    std::array<std::uint32_t, 3> xyz{0, 0, 0};
    for (unsigned i = 0; i < std::min(in.mem.dim, std::uint8_t{3}); ++i) {
      ir3::Operand c = in.src[1];
      if (c.kind == OperandKind::gpr) c.reg = static_cast<std::uint16_t>(c.reg + i);
      xyz[i] = read(c, lane, 0);
    }
    xyz[0] += static_cast<std::uint32_t>(in.mem.offset);
    if (!in.mem.typed) {
      // Untyped: the buffer as an array of elements of the instruction's type, 1D.
      const unsigned bytes = type_bytes(in.type);
      const std::uint64_t size = std::uint64_t{ibo.width} * ibo.format.bytes();
      for (unsigned c = 0; c < components; ++c) {
        const std::uint64_t offset = (std::uint64_t{xyz[0]} + c) * bytes;
        if (offset + bytes > size) {
          if (load) half_regs ? write_half(data.reg + c, lane, 0) : write_full(data.reg + c, lane, 0);
          continue;
        }
        std::uint32_t value = 0;
        std::byte* const host = lane_bytes(ibo.base + offset, bytes, !load, memo);
        if (load) {
          if (host) {
            std::memcpy(&value, host, bytes);
          } else {
            dispatch_.memory->read(ibo.base + offset, &value, bytes);
          }
          half_regs ? write_half(data.reg + c, lane, value) : write_full(data.reg + c, lane, value);
        } else {
          value = half_regs ? read_half(data.reg + c, lane) : read_full(data.reg + c, lane);
          if (host) {
            std::memcpy(host, &value, bytes);
          } else {
            dispatch_.memory->write(ibo.base + offset, &value, bytes);
          }
        }
      }
      continue;
    }
    const auto address = ibo.texel_address(xyz[0], xyz[1], xyz[2]);
    if (load) {
      std::array<std::uint32_t, 4> texel{0, 0, 0, 0};
      if (address) texel = read_texel(*dispatch_.memory, *address, ibo.format);
      for (unsigned c = 0; c < components; ++c) {
        const std::uint32_t value = texel_to_register(texel[c], in.type, ibo.format.kind);
        half_regs ? write_half(data.reg + c, lane, value) : write_full(data.reg + c, lane, value);
      }
    } else if (address) {
      std::array<std::uint32_t, 4> texel{0, 0, 0, 0};
      for (unsigned c = 0; c < std::min(components, 4u); ++c) {
        texel[c] = register_to_texel(half_regs ? read_half(data.reg + c, lane) : read_full(data.reg + c, lane), in.type,
                                     ibo.format.kind);
      }
      write_texel(*dispatch_.memory, *address, ibo.format, texel);
    }
  }
}

const UniformBuffer& Wave::uniform_buffer(std::uint32_t slot) const {
  if (slot >= dispatch_.ubos.size() || !dispatch_.ubos[slot]) {
    fail(pc_now_, "UBO slot " + std::to_string(slot) + " is not bound (no CP_LOAD_STATE6 ST6_UBO loaded it)");
  }
  return *dispatch_.ubos[slot];
}

std::uint32_t Wave::uniform_dword(const UniformBuffer& ubo, std::uint64_t dword) const {
  // Beyond the descriptor's SIZE a read returns 0: the bounds check Turnip relies on when it
  // writes a size-0 descriptor for a null UBO, whose reads Vulkan's nullDescriptor requires to
  // be zero (tu_descriptor_set.cc write_ubo_descriptor_addr).
  if (dword >= std::uint64_t{ubo.size_vec4s} * 4) return 0;
  std::uint32_t value = 0;
  dispatch_.memory->read(ubo.base + dword * 4, &value, 4);
  return value;
}

void Wave::write_constant(std::uint64_t dword, std::uint32_t value) {
  Preamble& preamble = *group_->preamble;  // only preambles write constants, and a preamble runs
  if (dword >= preamble.constants.size()) {
    fail(pc_now_, "constant write to c" + std::to_string(dword / 4) + " is outside CONSTLEN " +
                      std::to_string(preamble.constants.size() / 4));
  }
  preamble.constants[dword] = value;
  preamble.constant_loaded[dword / 4] = 1;
}

void Wave::uniform_load(const ir3::Instruction& in) {
  // ldc (Mesa ir3-cat6.xml): src[0] the offset in vec4s (nir_lower_ubo_vec4), src[1] the UBO slot;
  // mem.offset the first component, mem.size the components. ldc.k copies mem.size vec4s to the
  // constant file at a1.x (in components) instead: "like CP_LOAD_STATE with a UBO source", both
  // offsets multiples of 4 vec4s.
  if (in.mem.bindless) fail(pc_now_, "bindless UBO access is not modelled");
  const bool to_constants = in.opcode == Opcode::ldc_k;
  if (to_constants && !in_preamble_) fail(pc_now_, "ldc.k outside a preamble: only a preamble writes the constant file");
  if (!to_constants) check_full_range(in.dst.reg, in.mem.size);
  for (std::uint16_t lane : active_) {
    const UniformBuffer& ubo = uniform_buffer(read(in.src[1], lane, 0));
    const std::uint64_t vec4 = read(in.src[0], lane, 0);
    if (to_constants) {
      const auto at = static_cast<std::uint32_t>(a1_[lane]);
      if (vec4 % 4 != 0 || at % 16 != 0) {
        fail(pc_now_, "ldc.k from vec4 " + std::to_string(vec4) + " to c[a1.x = " + std::to_string(at) +
                          "]: both must be multiples of 4 vec4s");
      }
      for (std::uint64_t d = 0; d < std::uint64_t{in.mem.size} * 4; ++d) write_constant(at + d, uniform_dword(ubo, vec4 * 4 + d));
      continue;
    }
    for (unsigned c = 0; c < in.mem.size; ++c)
      write_full(in.dst.reg + c, lane, uniform_dword(ubo, vec4 * 4 + static_cast<std::uint64_t>(in.mem.offset) + c));
  }
}

void Wave::constant_store(const ir3::Instruction& in) {
  // stc (Mesa ir3-cat6.xml): mem.size consecutive registers from src[0] to the constant file at
  // dst.value components, plus a1.x with mem.const_dst_a1; "used for shader prolog".
  if (!in_preamble_) fail(pc_now_, "stc outside a preamble: only a preamble writes the constant file");
  if (ir3::is_half(in.type)) fail(pc_now_, "stc of 16-bit values is not modelled");
  check_full_range(in.src[0].reg, in.mem.size);
  for (std::uint16_t lane : active_) {
    const std::uint64_t at = static_cast<std::uint64_t>(in.dst.value) + (in.mem.const_dst_a1 ? static_cast<std::uint32_t>(a1_[lane]) : 0);
    for (unsigned c = 0; c < in.mem.size; ++c) write_constant(at + c, read_full(in.src[0].reg + c, lane));
  }
}

void Wave::texture_fetch(const ir3::Instruction& in) {
  // isam: an unfiltered fetch at integer texel coordinates from src[0] (x, y, z as the texture
  // type needs), components chosen by wrmask into dst + component.
  if (in.tex.s2en_bindless) fail(pc_now_, "s2en / bindless texture selection is not modelled");
  if (in.src[1].kind != OperandKind::none && !(in.src[1].kind == OperandKind::immediate && in.src[1].value == 0)) {
    fail(pc_now_, "isam with an offset is not modelled");
  }
  const ImageDescriptor& texture = image(dispatch_.textures, in.tex.tex, "texture");
  const unsigned dims = texture.type == 3 ? 3 : texture.type == 1 ? 2 : 1;
  const bool half_regs = ir3::is_half(in.type);
  if (in.src[0].kind != OperandKind::gpr) fail(pc_now_, "the isam coordinate must be registers");
  check_full_range(in.src[0].reg, dims);
  const auto written = static_cast<unsigned>(std::bit_width(unsigned{in.tex.wrmask}));
  half_regs ? check_half_range(in.dst.reg, written) : check_full_range(in.dst.reg, written);
  for (std::uint16_t lane : active_) {
    std::array<std::uint32_t, 3> xyz{0, 0, 0};
    for (unsigned i = 0; i < dims; ++i) xyz[i] = read_full(in.src[0].reg + i, lane);
    std::array<std::uint32_t, 4> texel{0, 0, 0, 0};
    if (const auto address = texture.texel_address(xyz[0], xyz[1], xyz[2])) texel = read_texel(*dispatch_.memory, *address, texture.format);
    for (unsigned c = 0; c < 4; ++c) {
      if (!((in.tex.wrmask >> c) & 1)) continue;
      const std::uint32_t value = texel_to_register(texel[c], in.type, texture.format.kind);
      half_regs ? write_half(in.dst.reg + c, lane, value) : write_full(in.dst.reg + c, lane, value);
    }
  }
}

}  // namespace adreno::virt
