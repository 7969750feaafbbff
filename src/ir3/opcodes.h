// The ir3 opcode table: the one list of every instruction this library knows, with the values
// its encoding carries and the generations it exists on. The codec, the text syntax, the
// scheduling rules and the virtual GPU's interpreter all read it.
//
// Facts from Mesa src/freedreno/isa/ir3-cat{0,1,2,3,5,6,7}.xml (bminor/mesa-mesa; cat0 at
// 065d2547e7, cat1 at 1c7c4b4807, cat2 at 0223ab01b7, cat3 at 4bc01d11b0, cat5/cat6 at
// 120f755bdb, cat7 at 329d47421b). ir3-cat4.xml is not in the index, so the cat4 numbers
// (rcp = 0 … hexp2 = 11) come from Mesa's opc_t in src/freedreno/ir3/instr-a3xx.h (4b3f58701c),
// checked against the disasm.c vector `rcp r2.z, r0.w`; the cat4 layout is the cat2 one with a
// single source (same FULL/DST_CONV/SRC_R bits), which that vector also exercises.
//
// Generations (the last column): the <gen min/max> marks of Mesa 26.0-devel's isaspec files
// (d02ba9bb9c01: ir3-cat2.xml mul.f.mul2 ..., ir3-cat3.xml mad.f32.mul2 ..., ir3-cat6.xml the
// two ldg.a/stg.a bitsets, stsc, ray_intersection, ir3-cat7.xml ccinv, lock, unlock, alias).
// `every` rows exist on both; where a form changed, each generation has its own row under the
// same text name (ldg.a, stg.a). movs, (last) and (eolm)/(eogm) carry no mark in the isaspec
// files: Mesa's disassembler decodes them for a6xx too, and so does this table.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ir3/generation.h"

namespace adreno::ir3 {

/// How an instruction's fields are laid out in its 64-bit word (one layout per form).
enum class Form : std::uint8_t {
  // cat0: flow control
  flow_bare,     ///< no operands: nop, end, shpe, predt ...
  flow_immed,    ///< `#imm` target: jump, getone, shps ...
  flow_branch,   ///< `p0.c, #imm`: br, bany, ball
  flow_branch2,  ///< `p0.c, p0.c, #imm`: brao, braa
  flow_brac,     ///< `.N #imm`
  flow_kill,     ///< `p0.c`
  flow_getlast,  ///< `.wN #imm`
  // cat1: moves
  mov,        ///< mov/cov/mova/mova1 (one encoding, the name follows the types and dst)
  mov_multi,  ///< swz/gat/sct
  movmsk,
  movs,       ///< broadcast of one fiber's register (ir3-cat1.xml #instruction-cat1-movs)
  // cat2: one/two-source ALU
  alu_1src,
  alu_2src,
  alu_cmp,    ///< two sources and a condition code
  alu_input,  ///< bary.f / flat.b
  // cat3: three-source ALU
  tri,      ///< const-capable sources; the opcode fixes the precision
  tri_alt,  ///< immediate-capable sources (shrm ...); bit 42 selects the precision
  tri_dot,  ///< dp2acc / dp4acc
  // cat4: special function unit
  sfu,
  // cat5: texture and subgroup
  tex,
  tex_isam,
  tex_brcst,
  tex_quad,
  tex_tcinv,
  // cat6: memory
  ldg, ldg_a, ldg_k, stg, stg_a,
  ldg_a_a7xx, stg_a_a7xx,  ///< a7xx: base (gpr or const) + index + 8-bit offset
  stsc,                    ///< a7xx: shared consts to c[]
  ld_local,   ///< ldl, ldp, ldlw
  st_local,   ///< stl, stp, stlw
  ldlv, stc,
  atomic_local, atomic_global,
  ldc, ldc_k,
  sysid,      ///< getspid, getwid, getfiberid
  res_1src,   ///< resinfo.b, resbase
  ibo_ldst,   ///< ldib.b, stib.b
  ibo_atomic, ///< atomic.b.*
  shfl,
  ray_intersection,  ///< a7xx
  // cat7: barriers and caches
  barrier, sleep, icinv, cache,
  cache_wide,  ///< a7xx ccinv: a fixed pattern in bits 45..54 of the dcinv opcode
  lock,        ///< a7xx lock/unlock: sub = bit 51
  alias,       ///< a7xx alias table entry
};
inline constexpr std::size_t kFormCount = static_cast<std::size_t>(Form::alias) + 1;

// X(id, text name, category, opcode value, sub-opcode, form, attributes, generations)
//  cat0: value = OPC_HI<<4 | OPC (bits 49, 55..58), sub = BRTYPE (bits 37..39)
//  cat1: value = OPC (bits 57..58), sub = SUB_OPC (bits 40..41) of swz/gat/sct; movs: 1 (bit 31)
//  cat2: value = OPC (bits 53..58), sub = bit 50 of bary.f/flat.b
//  cat3: value = OPC (bits 55..58), sub = bit 46 of dp2acc/dp4acc, or 1 for the a7xx
//        mad.*.mul2/div2 (plain sources with the AL bit 13 set), attr = 1 for full precision
//  cat4: value = OPC (bits 53..58)
//  cat5: value = OPC (bits 54..58) (+ bit 53 for brcst/quad_shuffle: sub = bits 19..20),
//        attr = NUM_SRC | has sampler <<2 | has texture <<3 | has type <<4
//  cat6: value = OPC at bits 54..58 (a3xx-style forms) or bits 14..19 (a6xx forms)
//  cat7: value = OPC (bits 55..58), sub = which of the rows sharing it (ccinv/dcinv, lock/unlock)
//  generations: every, a6xx or a7xx
#define ADRENO_IR3_OPCODES(X)                                                             \
  X(nop, "nop", 0, 0, 0, flow_bare, 0, every)                                             \
  X(br, "br", 0, 1, 0, flow_branch, 0, every)                                             \
  X(brao, "brao", 0, 1, 1, flow_branch2, 0, every)                                        \
  X(braa, "braa", 0, 1, 2, flow_branch2, 0, every)                                        \
  X(brac, "brac", 0, 1, 3, flow_brac, 0, every)                                           \
  X(bany, "bany", 0, 1, 4, flow_branch, 0, every)                                         \
  X(ball, "ball", 0, 1, 5, flow_branch, 0, every)                                         \
  X(jump, "jump", 0, 2, 0, flow_immed, 0, every)                                          \
  X(call, "call", 0, 3, 0, flow_immed, 0, every)                                          \
  X(ret, "ret", 0, 4, 0, flow_bare, 0, every)                                             \
  X(kill, "kill", 0, 5, 0, flow_kill, 0, every)                                           \
  X(end, "end", 0, 6, 0, flow_bare, 0, every)                                             \
  X(emit, "emit", 0, 7, 0, flow_bare, 0, every)                                           \
  X(cut, "cut", 0, 8, 0, flow_bare, 0, every)                                             \
  X(chmask, "chmask", 0, 9, 0, flow_bare, 0, every)                                       \
  X(chsh, "chsh", 0, 10, 0, flow_bare, 0, every)                                          \
  X(flow_rev, "flow_rev", 0, 11, 0, flow_bare, 0, every)                                  \
  X(bkt, "bkt", 0, 16, 0, flow_immed, 0, every)                                           \
  X(getlast, "getlast", 0, 20, 0, flow_getlast, 0, every)                                 \
  X(getone, "getone", 0, 21, 0, flow_immed, 0, every)                                     \
  X(shps, "shps", 0, 23, 0, flow_immed, 0, every)                                         \
  X(shpe, "shpe", 0, 24, 0, flow_bare, 0, every)                                          \
  X(predt, "predt", 0, 29, 0, flow_bare, 0, every)                                        \
  X(predf, "predf", 0, 30, 0, flow_bare, 0, every)                                        \
  X(prede, "prede", 0, 31, 0, flow_bare, 0, every)                                        \
  X(mov, "mov", 1, 0, 0, mov, 0, every)                                                   \
  X(swz, "swz", 1, 2, 0, mov_multi, 0, every)                                             \
  X(gat, "gat", 1, 2, 1, mov_multi, 0, every)                                             \
  X(sct, "sct", 1, 2, 2, mov_multi, 0, every)                                             \
  X(movmsk, "movmsk", 1, 3, 0, movmsk, 0, every)                                          \
  X(movs, "movs", 1, 0, 1, movs, 0, every)                                                \
  X(add_f, "add.f", 2, 0, 0, alu_2src, 0, every)                                          \
  X(min_f, "min.f", 2, 1, 0, alu_2src, 0, every)                                          \
  X(max_f, "max.f", 2, 2, 0, alu_2src, 0, every)                                          \
  X(mul_f, "mul.f", 2, 3, 0, alu_2src, 0, every)                                          \
  X(sign_f, "sign.f", 2, 4, 0, alu_1src, 0, every)                                        \
  X(cmps_f, "cmps.f", 2, 5, 0, alu_cmp, 0, every)                                         \
  X(absneg_f, "absneg.f", 2, 6, 0, alu_1src, 0, every)                                    \
  X(cmpv_f, "cmpv.f", 2, 7, 0, alu_cmp, 0, every)                                         \
  X(floor_f, "floor.f", 2, 9, 0, alu_1src, 0, every)                                      \
  X(ceil_f, "ceil.f", 2, 10, 0, alu_1src, 0, every)                                       \
  X(rndne_f, "rndne.f", 2, 11, 0, alu_1src, 0, every)                                     \
  X(rndaz_f, "rndaz.f", 2, 12, 0, alu_1src, 0, every)                                     \
  X(trunc_f, "trunc.f", 2, 13, 0, alu_1src, 0, every)                                     \
  X(add_u, "add.u", 2, 16, 0, alu_2src, 0, every)                                         \
  X(add_s, "add.s", 2, 17, 0, alu_2src, 0, every)                                         \
  X(sub_u, "sub.u", 2, 18, 0, alu_2src, 0, every)                                         \
  X(sub_s, "sub.s", 2, 19, 0, alu_2src, 0, every)                                         \
  X(cmps_u, "cmps.u", 2, 20, 0, alu_cmp, 0, every)                                        \
  X(cmps_s, "cmps.s", 2, 21, 0, alu_cmp, 0, every)                                        \
  X(min_u, "min.u", 2, 22, 0, alu_2src, 0, every)                                         \
  X(min_s, "min.s", 2, 23, 0, alu_2src, 0, every)                                         \
  X(max_u, "max.u", 2, 24, 0, alu_2src, 0, every)                                         \
  X(max_s, "max.s", 2, 25, 0, alu_2src, 0, every)                                         \
  X(absneg_s, "absneg.s", 2, 26, 0, alu_1src, 0, every)                                   \
  X(and_b, "and.b", 2, 28, 0, alu_2src, 0, every)                                         \
  X(or_b, "or.b", 2, 29, 0, alu_2src, 0, every)                                           \
  X(not_b, "not.b", 2, 30, 0, alu_1src, 0, every)                                         \
  X(xor_b, "xor.b", 2, 31, 0, alu_2src, 0, every)                                         \
  X(cmpv_u, "cmpv.u", 2, 33, 0, alu_cmp, 0, every)                                        \
  X(cmpv_s, "cmpv.s", 2, 34, 0, alu_cmp, 0, every)                                        \
  X(mul_f_mul2, "mul.f.mul2", 2, 35, 0, alu_cmp, 0, a7xx)                                 \
  X(add_f_mul2, "add.f.mul2", 2, 36, 0, alu_cmp, 0, a7xx)                                 \
  X(mul_f_div2, "mul.f.div2", 2, 37, 0, alu_cmp, 0, a7xx)                                 \
  X(add_f_div2, "add.f.div2", 2, 38, 0, alu_cmp, 0, a7xx)                                 \
  X(mul_u24, "mul.u24", 2, 48, 0, alu_2src, 0, every)                                     \
  X(mul_s24, "mul.s24", 2, 49, 0, alu_2src, 0, every)                                     \
  X(mull_u, "mull.u", 2, 50, 0, alu_2src, 0, every)                                       \
  X(bfrev_b, "bfrev.b", 2, 51, 0, alu_1src, 0, every)                                     \
  X(clz_s, "clz.s", 2, 52, 0, alu_1src, 0, every)                                         \
  X(clz_b, "clz.b", 2, 53, 0, alu_1src, 0, every)                                         \
  X(shl_b, "shl.b", 2, 54, 0, alu_2src, 0, every)                                         \
  X(shr_b, "shr.b", 2, 55, 0, alu_2src, 0, every)                                         \
  X(ashr_b, "ashr.b", 2, 56, 0, alu_2src, 0, every)                                       \
  X(bary_f, "bary.f", 2, 57, 0, alu_input, 0, every)                                      \
  X(flat_b, "flat.b", 2, 57, 1, alu_input, 0, every)                                      \
  X(mgen_b, "mgen.b", 2, 58, 0, alu_2src, 0, every)                                       \
  X(getbit_b, "getbit.b", 2, 59, 0, alu_2src, 0, every)                                   \
  X(setrm, "setrm", 2, 60, 0, alu_1src, 0, every)                                         \
  X(cbits_b, "cbits.b", 2, 61, 0, alu_1src, 0, every)                                     \
  X(shb, "shb", 2, 62, 0, alu_2src, 0, every)                                             \
  X(msad, "msad", 2, 63, 0, alu_2src, 0, every)                                           \
  X(mad_u16, "mad.u16", 3, 0, 0, tri, 0, every)                                           \
  X(madsh_u16, "madsh.u16", 3, 1, 0, tri, 1, every)                                       \
  X(mad_s16, "mad.s16", 3, 2, 0, tri, 0, every)                                           \
  X(madsh_m16, "madsh.m16", 3, 3, 0, tri, 1, every)                                       \
  X(mad_u24, "mad.u24", 3, 4, 0, tri, 1, every)                                           \
  X(mad_s24, "mad.s24", 3, 5, 0, tri, 1, every)                                           \
  X(mad_f16, "mad.f16", 3, 6, 0, tri, 0, every)                                           \
  X(mad_f32, "mad.f32", 3, 7, 0, tri, 1, every)                                           \
  X(sel_b16, "sel.b16", 3, 8, 0, tri, 0, every)                                           \
  X(sel_b32, "sel.b32", 3, 9, 0, tri, 1, every)                                           \
  X(sel_s16, "sel.s16", 3, 10, 0, tri, 0, every)                                          \
  X(sel_s32, "sel.s32", 3, 11, 0, tri, 1, every)                                          \
  X(sel_f16, "sel.f16", 3, 12, 0, tri, 0, every)                                          \
  X(sel_f32, "sel.f32", 3, 13, 0, tri, 1, every)                                          \
  X(sad_s16, "sad.s16", 3, 14, 0, tri, 0, every)                                          \
  X(sad_s32, "sad.s32", 3, 15, 0, tri, 1, every)                                          \
  X(mad_f16_mul2, "mad.f16.mul2", 3, 4, 1, tri, 0, a7xx)                                  \
  X(mad_f32_mul2, "mad.f32.mul2", 3, 5, 1, tri, 1, a7xx)                                  \
  X(mad_f16_div2, "mad.f16.div2", 3, 6, 1, tri, 0, a7xx)                                  \
  X(mad_f32_div2, "mad.f32.div2", 3, 7, 1, tri, 1, a7xx)                                  \
  X(shrm, "shrm", 3, 8, 0, tri_alt, 0, every)                                             \
  X(shlm, "shlm", 3, 9, 0, tri_alt, 0, every)                                             \
  X(shrg, "shrg", 3, 10, 0, tri_alt, 0, every)                                            \
  X(shlg, "shlg", 3, 11, 0, tri_alt, 0, every)                                            \
  X(andg, "andg", 3, 12, 0, tri_alt, 0, every)                                            \
  X(dp2acc, "dp2acc", 3, 13, 0, tri_dot, 1, every)                                        \
  X(dp4acc, "dp4acc", 3, 13, 1, tri_dot, 1, every)                                        \
  X(rcp, "rcp", 4, 0, 0, sfu, 0, every)                                                   \
  X(rsq, "rsq", 4, 1, 0, sfu, 0, every)                                                   \
  X(log2, "log2", 4, 2, 0, sfu, 0, every)                                                 \
  X(exp2, "exp2", 4, 3, 0, sfu, 0, every)                                                 \
  X(sin, "sin", 4, 4, 0, sfu, 0, every)                                                   \
  X(cos, "cos", 4, 5, 0, sfu, 0, every)                                                   \
  X(sqrt, "sqrt", 4, 6, 0, sfu, 0, every)                                                 \
  X(hrsq, "hrsq", 4, 9, 0, sfu, 0, every)                                                 \
  X(hlog2, "hlog2", 4, 10, 0, sfu, 0, every)                                              \
  X(hexp2, "hexp2", 4, 11, 0, sfu, 0, every)                                              \
  X(isam, "isam", 5, 0, 0, tex_isam, 0x1d, every)                                         \
  X(isaml, "isaml", 5, 1, 0, tex, 0x1e, every)                                            \
  X(isamm, "isamm", 5, 2, 0, tex, 0x1d, every)                                            \
  X(sam, "sam", 5, 3, 0, tex, 0x1d, every)                                                \
  X(samb, "samb", 5, 4, 0, tex, 0x1e, every)                                              \
  X(saml, "saml", 5, 5, 0, tex, 0x1e, every)                                              \
  X(samgq, "samgq", 5, 6, 0, tex, 0x1d, every)                                            \
  X(getlod, "getlod", 5, 7, 0, tex, 0x1d, every)                                          \
  X(conv, "conv", 5, 8, 0, tex, 0x1e, every)                                              \
  X(convm, "convm", 5, 9, 0, tex, 0x1e, every)                                            \
  X(getsize, "getsize", 5, 10, 0, tex, 0x19, every)                                       \
  X(getbuf, "getbuf", 5, 11, 0, tex, 0x18, every)                                         \
  X(getpos, "getpos", 5, 12, 0, tex, 0x19, every)                                         \
  X(getinfo, "getinfo", 5, 13, 0, tex, 0x18, every)                                       \
  X(dsx, "dsx", 5, 14, 0, tex, 0x11, every)                                               \
  X(dsy, "dsy", 5, 15, 0, tex, 0x11, every)                                               \
  X(gather4r, "gather4r", 5, 16, 0, tex, 0x1d, every)                                     \
  X(gather4g, "gather4g", 5, 17, 0, tex, 0x1d, every)                                     \
  X(gather4b, "gather4b", 5, 18, 0, tex, 0x1d, every)                                     \
  X(gather4a, "gather4a", 5, 19, 0, tex, 0x1d, every)                                     \
  X(samgp0, "samgp0", 5, 20, 0, tex, 0x1d, every)                                         \
  X(samgp1, "samgp1", 5, 21, 0, tex, 0x1d, every)                                         \
  X(samgp2, "samgp2", 5, 22, 0, tex, 0x1d, every)                                         \
  X(samgp3, "samgp3", 5, 23, 0, tex, 0x1d, every)                                         \
  X(dsxpp_1, "dsxpp.1", 5, 24, 0, tex, 0x01, every)                                       \
  X(dsypp_1, "dsypp.1", 5, 25, 0, tex, 0x01, every)                                       \
  X(rgetpos, "rgetpos", 5, 26, 0, tex, 0x11, every)                                       \
  X(rgetinfo, "rgetinfo", 5, 27, 0, tex, 0x10, every)                                     \
  X(tcinv, "tcinv", 5, 28, 0, tex_tcinv, 0, every)                                        \
  X(brcst_active, "brcst.active", 5, 31, 0, tex_brcst, 0x11, every)                       \
  X(quad_shuffle_brcst, "quad_shuffle.brcst", 5, 31, 0, tex_quad, 0x12, every)            \
  X(quad_shuffle_horiz, "quad_shuffle.horiz", 5, 31, 1, tex_quad, 0x11, every)            \
  X(quad_shuffle_vert, "quad_shuffle.vert", 5, 31, 2, tex_quad, 0x11, every)              \
  X(quad_shuffle_diag, "quad_shuffle.diag", 5, 31, 3, tex_quad, 0x11, every)              \
  X(ldg, "ldg", 6, 0, 0, ldg, 0, every)                                                   \
  X(ldg_a, "ldg.a", 6, 0, 0, ldg_a, 0, a6xx)                                              \
  X(ldg_a_a7xx, "ldg.a", 6, 0, 0, ldg_a_a7xx, 0, a7xx)                                    \
  X(ldg_k, "ldg.k", 6, 0, 0, ldg_k, 0, every)                                             \
  X(ldl, "ldl", 6, 1, 0, ld_local, 0, every)                                              \
  X(ldp, "ldp", 6, 2, 0, ld_local, 0, every)                                              \
  X(stg, "stg", 6, 3, 0, stg, 0, every)                                                   \
  X(stg_a, "stg.a", 6, 3, 0, stg_a, 0, a6xx)                                              \
  X(stg_a_a7xx, "stg.a", 6, 3, 0, stg_a_a7xx, 0, a7xx)                                    \
  X(stl, "stl", 6, 4, 0, st_local, 0, every)                                              \
  X(stp, "stp", 6, 5, 0, st_local, 0, every)                                              \
  X(ldlw, "ldlw", 6, 10, 0, ld_local, 0, every)                                           \
  X(stlw, "stlw", 6, 11, 0, st_local, 0, every)                                           \
  X(atomic_add, "atomic.add", 6, 16, 0, atomic_local, 0, every)                           \
  X(atomic_sub, "atomic.sub", 6, 17, 0, atomic_local, 0, every)                           \
  X(atomic_xchg, "atomic.xchg", 6, 18, 0, atomic_local, 0, every)                         \
  X(atomic_inc, "atomic.inc", 6, 19, 0, atomic_local, 0, every)                           \
  X(atomic_dec, "atomic.dec", 6, 20, 0, atomic_local, 0, every)                           \
  X(atomic_cmpxchg, "atomic.cmpxchg", 6, 21, 0, atomic_local, 0, every)                   \
  X(atomic_min, "atomic.min", 6, 22, 0, atomic_local, 0, every)                           \
  X(atomic_max, "atomic.max", 6, 23, 0, atomic_local, 0, every)                           \
  X(atomic_and, "atomic.and", 6, 24, 0, atomic_local, 0, every)                           \
  X(atomic_or, "atomic.or", 6, 25, 0, atomic_local, 0, every)                             \
  X(atomic_xor, "atomic.xor", 6, 26, 0, atomic_local, 0, every)                           \
  X(atomic_g_add, "atomic.g.add", 6, 16, 0, atomic_global, 0, every)                      \
  X(atomic_g_sub, "atomic.g.sub", 6, 17, 0, atomic_global, 0, every)                      \
  X(atomic_g_xchg, "atomic.g.xchg", 6, 18, 0, atomic_global, 0, every)                    \
  X(atomic_g_inc, "atomic.g.inc", 6, 19, 0, atomic_global, 0, every)                      \
  X(atomic_g_dec, "atomic.g.dec", 6, 20, 0, atomic_global, 0, every)                      \
  X(atomic_g_cmpxchg, "atomic.g.cmpxchg", 6, 21, 0, atomic_global, 0, every)              \
  X(atomic_g_min, "atomic.g.min", 6, 22, 0, atomic_global, 0, every)                      \
  X(atomic_g_max, "atomic.g.max", 6, 23, 0, atomic_global, 0, every)                      \
  X(atomic_g_and, "atomic.g.and", 6, 24, 0, atomic_global, 0, every)                      \
  X(atomic_g_or, "atomic.g.or", 6, 25, 0, atomic_global, 0, every)                        \
  X(atomic_g_xor, "atomic.g.xor", 6, 26, 0, atomic_global, 0, every)                      \
  X(shfl, "shfl", 6, 27, 0, shfl, 0, every)                                               \
  X(stc, "stc", 6, 28, 0, stc, 0, every)                                                  \
  X(stsc, "stsc", 6, 29, 0, stsc, 0, a7xx)                                                \
  X(ray_intersection, "ray_intersection", 6, 14, 0, ray_intersection, 0, a7xx)            \
  X(ldlv, "ldlv", 6, 31, 0, ldlv, 0, every)                                               \
  X(ldib_b, "ldib.b", 6, 6, 0, ibo_ldst, 0, every)                                        \
  X(resbase, "resbase", 6, 12, 0, res_1src, 0, every)                                     \
  X(resinfo_b, "resinfo.b", 6, 15, 0, res_1src, 0, every)                                 \
  X(atomic_b_add, "atomic.b.add", 6, 16, 0, ibo_atomic, 0, every)                         \
  X(atomic_b_sub, "atomic.b.sub", 6, 17, 0, ibo_atomic, 0, every)                         \
  X(atomic_b_xchg, "atomic.b.xchg", 6, 18, 0, ibo_atomic, 0, every)                       \
  X(atomic_b_cmpxchg, "atomic.b.cmpxchg", 6, 21, 0, ibo_atomic, 0, every)                 \
  X(atomic_b_min, "atomic.b.min", 6, 22, 0, ibo_atomic, 0, every)                         \
  X(atomic_b_max, "atomic.b.max", 6, 23, 0, ibo_atomic, 0, every)                         \
  X(atomic_b_and, "atomic.b.and", 6, 24, 0, ibo_atomic, 0, every)                         \
  X(atomic_b_or, "atomic.b.or", 6, 25, 0, ibo_atomic, 0, every)                           \
  X(atomic_b_xor, "atomic.b.xor", 6, 26, 0, ibo_atomic, 0, every)                         \
  X(stib_b, "stib.b", 6, 29, 0, ibo_ldst, 0, every)                                       \
  X(ldc, "ldc", 6, 30, 0, ldc, 0, every)                                                  \
  X(ldc_k, "ldc.k", 6, 30, 0, ldc_k, 0, every)                                            \
  X(getspid, "getspid", 6, 36, 0, sysid, 0, every)                                        \
  X(getwid, "getwid", 6, 37, 0, sysid, 0, every)                                          \
  X(getfiberid, "getfiberid", 6, 38, 0, sysid, 0, every)                                  \
  X(bar, "bar", 7, 0, 0, barrier, 0, every)                                               \
  X(fence, "fence", 7, 1, 0, barrier, 0, every)                                           \
  X(sleep, "sleep", 7, 2, 0, sleep, 0, every)                                             \
  X(icinv, "icinv", 7, 3, 0, icinv, 0, every)                                             \
  X(dccln, "dccln", 7, 4, 0, cache, 0, every)                                             \
  X(dcinv, "dcinv", 7, 5, 0, cache, 0, every)                                             \
  X(dcflu, "dcflu", 7, 6, 0, cache, 0, every)                                             \
  X(ccinv, "ccinv", 7, 5, 1, cache_wide, 0, a7xx)                                         \
  X(lock, "lock", 7, 7, 0, lock, 0, a7xx)                                                 \
  X(unlock, "unlock", 7, 7, 1, lock, 0, a7xx)                                             \
  X(alias, "alias", 7, 8, 0, alias, 0, a7xx)

enum class Opcode : std::uint16_t {
#define ADRENO_IR3_ENUM(id, name, cat, value, sub, form, attr, gens) id,
  ADRENO_IR3_OPCODES(ADRENO_IR3_ENUM)
#undef ADRENO_IR3_ENUM
};

/// What the table says about one opcode.
struct OpcodeInfo {
  Opcode opcode;
  const char* name;
  std::uint8_t category;
  std::uint8_t value;  ///< the opcode field value (see the table header for which bits)
  std::uint8_t sub;    ///< sub-opcode bits, per category
  Form form;
  std::uint8_t attr;   ///< per-category attributes (see the table header)
  GenerationMask gens;  ///< the generations the row exists on
};

// The attribute bits, by category (see the table header).
constexpr bool full_precision(const OpcodeInfo& row) noexcept { return row.attr != 0; }  // cat3
constexpr unsigned texture_sources(const OpcodeInfo& row) noexcept { return row.attr & 3; }
constexpr bool has_sampler(const OpcodeInfo& row) noexcept { return (row.attr & 4) != 0; }
constexpr bool has_texture(const OpcodeInfo& row) noexcept { return (row.attr & 8) != 0; }
constexpr bool shows_type(const OpcodeInfo& row) noexcept { return (row.attr & 0x10) != 0; }

const OpcodeInfo& info(Opcode opcode) noexcept;

/// The row spelled `name` (the table's text name) on `gen`, if there is one.
const OpcodeInfo* find_opcode(const char* name, std::size_t length, Generation gen) noexcept;

/// A row spelled `name` on any generation (to say which generation an instruction belongs to).
const OpcodeInfo* find_opcode_any_generation(const char* name, std::size_t length) noexcept;

/// "a6xx" / "a7xx" / "a6xx and a7xx": where a row exists, for messages.
const char* generations_text(GenerationMask gens) noexcept;

/// All table entries, in table order.
const OpcodeInfo* opcode_table_begin() noexcept;
const OpcodeInfo* opcode_table_end() noexcept;

}  // namespace adreno::ir3
