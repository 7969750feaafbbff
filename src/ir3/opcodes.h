// The a6xx ir3 opcode table: the one list of every instruction this library knows, with the
// values its encoding carries. The codec, the text syntax and (later) the interpreter all read it.
//
// Facts from Mesa src/freedreno/isa/ir3-cat{0,1,2,3,5,6,7}.xml (bminor/mesa-mesa; cat0 at
// 065d2547e7, cat1 at 1c7c4b4807, cat2 at 0223ab01b7, cat3 at 4bc01d11b0, cat5/cat6 at
// 120f755bdb, cat7 at 329d47421b). ir3-cat4.xml is not in the index, so the cat4 numbers
// (rcp = 0 … hexp2 = 11) come from Mesa's opc_t in src/freedreno/ir3/instr-a3xx.h (4b3f58701c),
// checked against the disasm.c vector `rcp r2.z, r0.w`; the cat4 layout is the cat2 one with a
// single source (same FULL/DST_CONV/SRC_R bits), which that vector also exercises.
#pragma once

#include <cstdint>

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
  // cat7: barriers and caches
  barrier, sleep, icinv, cache,
};

// X(id, text name, category, opcode value, sub-opcode, form, attributes)
//  cat0: value = OPC_HI<<4 | OPC (bits 49, 55..58), sub = BRTYPE (bits 37..39)
//  cat1: value = OPC (bits 57..58), sub = SUB_OPC (bits 40..41) of swz/gat/sct
//  cat2: value = OPC (bits 53..58), sub = bit 50 of bary.f/flat.b
//  cat3: value = OPC (bits 55..58), sub = bit 46 of dp2acc/dp4acc, attr = 1 for full precision
//  cat4: value = OPC (bits 53..58)
//  cat5: value = OPC (bits 54..58) (+ bit 53 for brcst/quad_shuffle: sub = bits 19..20),
//        attr = NUM_SRC | has sampler <<2 | has texture <<3 | has type <<4
//  cat6: value = OPC at bits 54..58 (a3xx-style forms) or bits 14..19 (a6xx forms)
//  cat7: value = OPC (bits 55..58)
#define ADRENO_IR3_OPCODES(X)                                              \
  X(nop, "nop", 0, 0, 0, flow_bare, 0)                                     \
  X(br, "br", 0, 1, 0, flow_branch, 0)                                     \
  X(brao, "brao", 0, 1, 1, flow_branch2, 0)                                \
  X(braa, "braa", 0, 1, 2, flow_branch2, 0)                                \
  X(brac, "brac", 0, 1, 3, flow_brac, 0)                                   \
  X(bany, "bany", 0, 1, 4, flow_branch, 0)                                 \
  X(ball, "ball", 0, 1, 5, flow_branch, 0)                                 \
  X(jump, "jump", 0, 2, 0, flow_immed, 0)                                  \
  X(call, "call", 0, 3, 0, flow_immed, 0)                                  \
  X(ret, "ret", 0, 4, 0, flow_bare, 0)                                     \
  X(kill, "kill", 0, 5, 0, flow_kill, 0)                                   \
  X(end, "end", 0, 6, 0, flow_bare, 0)                                     \
  X(emit, "emit", 0, 7, 0, flow_bare, 0)                                   \
  X(cut, "cut", 0, 8, 0, flow_bare, 0)                                     \
  X(chmask, "chmask", 0, 9, 0, flow_bare, 0)                               \
  X(chsh, "chsh", 0, 10, 0, flow_bare, 0)                                  \
  X(flow_rev, "flow_rev", 0, 11, 0, flow_bare, 0)                          \
  X(bkt, "bkt", 0, 16, 0, flow_immed, 0)                                   \
  X(getlast, "getlast", 0, 20, 0, flow_getlast, 0)                         \
  X(getone, "getone", 0, 21, 0, flow_immed, 0)                             \
  X(shps, "shps", 0, 23, 0, flow_immed, 0)                                 \
  X(shpe, "shpe", 0, 24, 0, flow_bare, 0)                                  \
  X(predt, "predt", 0, 29, 0, flow_bare, 0)                                \
  X(predf, "predf", 0, 30, 0, flow_bare, 0)                                \
  X(prede, "prede", 0, 31, 0, flow_bare, 0)                                \
  X(mov, "mov", 1, 0, 0, mov, 0)                                           \
  X(swz, "swz", 1, 2, 0, mov_multi, 0)                                     \
  X(gat, "gat", 1, 2, 1, mov_multi, 0)                                     \
  X(sct, "sct", 1, 2, 2, mov_multi, 0)                                     \
  X(movmsk, "movmsk", 1, 3, 0, movmsk, 0)                                  \
  X(add_f, "add.f", 2, 0, 0, alu_2src, 0)                                  \
  X(min_f, "min.f", 2, 1, 0, alu_2src, 0)                                  \
  X(max_f, "max.f", 2, 2, 0, alu_2src, 0)                                  \
  X(mul_f, "mul.f", 2, 3, 0, alu_2src, 0)                                  \
  X(sign_f, "sign.f", 2, 4, 0, alu_1src, 0)                                \
  X(cmps_f, "cmps.f", 2, 5, 0, alu_cmp, 0)                                 \
  X(absneg_f, "absneg.f", 2, 6, 0, alu_1src, 0)                            \
  X(cmpv_f, "cmpv.f", 2, 7, 0, alu_cmp, 0)                                 \
  X(floor_f, "floor.f", 2, 9, 0, alu_1src, 0)                              \
  X(ceil_f, "ceil.f", 2, 10, 0, alu_1src, 0)                               \
  X(rndne_f, "rndne.f", 2, 11, 0, alu_1src, 0)                             \
  X(rndaz_f, "rndaz.f", 2, 12, 0, alu_1src, 0)                             \
  X(trunc_f, "trunc.f", 2, 13, 0, alu_1src, 0)                             \
  X(add_u, "add.u", 2, 16, 0, alu_2src, 0)                                 \
  X(add_s, "add.s", 2, 17, 0, alu_2src, 0)                                 \
  X(sub_u, "sub.u", 2, 18, 0, alu_2src, 0)                                 \
  X(sub_s, "sub.s", 2, 19, 0, alu_2src, 0)                                 \
  X(cmps_u, "cmps.u", 2, 20, 0, alu_cmp, 0)                                \
  X(cmps_s, "cmps.s", 2, 21, 0, alu_cmp, 0)                                \
  X(min_u, "min.u", 2, 22, 0, alu_2src, 0)                                 \
  X(min_s, "min.s", 2, 23, 0, alu_2src, 0)                                 \
  X(max_u, "max.u", 2, 24, 0, alu_2src, 0)                                 \
  X(max_s, "max.s", 2, 25, 0, alu_2src, 0)                                 \
  X(absneg_s, "absneg.s", 2, 26, 0, alu_1src, 0)                           \
  X(and_b, "and.b", 2, 28, 0, alu_2src, 0)                                 \
  X(or_b, "or.b", 2, 29, 0, alu_2src, 0)                                   \
  X(not_b, "not.b", 2, 30, 0, alu_1src, 0)                                 \
  X(xor_b, "xor.b", 2, 31, 0, alu_2src, 0)                                 \
  X(cmpv_u, "cmpv.u", 2, 33, 0, alu_cmp, 0)                                \
  X(cmpv_s, "cmpv.s", 2, 34, 0, alu_cmp, 0)                                \
  X(mul_u24, "mul.u24", 2, 48, 0, alu_2src, 0)                             \
  X(mul_s24, "mul.s24", 2, 49, 0, alu_2src, 0)                             \
  X(mull_u, "mull.u", 2, 50, 0, alu_2src, 0)                               \
  X(bfrev_b, "bfrev.b", 2, 51, 0, alu_1src, 0)                             \
  X(clz_s, "clz.s", 2, 52, 0, alu_1src, 0)                                 \
  X(clz_b, "clz.b", 2, 53, 0, alu_1src, 0)                                 \
  X(shl_b, "shl.b", 2, 54, 0, alu_2src, 0)                                 \
  X(shr_b, "shr.b", 2, 55, 0, alu_2src, 0)                                 \
  X(ashr_b, "ashr.b", 2, 56, 0, alu_2src, 0)                               \
  X(bary_f, "bary.f", 2, 57, 0, alu_input, 0)                              \
  X(flat_b, "flat.b", 2, 57, 1, alu_input, 0)                              \
  X(mgen_b, "mgen.b", 2, 58, 0, alu_2src, 0)                               \
  X(getbit_b, "getbit.b", 2, 59, 0, alu_2src, 0)                           \
  X(setrm, "setrm", 2, 60, 0, alu_1src, 0)                                 \
  X(cbits_b, "cbits.b", 2, 61, 0, alu_1src, 0)                             \
  X(shb, "shb", 2, 62, 0, alu_2src, 0)                                     \
  X(msad, "msad", 2, 63, 0, alu_2src, 0)                                   \
  X(mad_u16, "mad.u16", 3, 0, 0, tri, 0)                                   \
  X(madsh_u16, "madsh.u16", 3, 1, 0, tri, 1)                               \
  X(mad_s16, "mad.s16", 3, 2, 0, tri, 0)                                   \
  X(madsh_m16, "madsh.m16", 3, 3, 0, tri, 1)                               \
  X(mad_u24, "mad.u24", 3, 4, 0, tri, 1)                                   \
  X(mad_s24, "mad.s24", 3, 5, 0, tri, 1)                                   \
  X(mad_f16, "mad.f16", 3, 6, 0, tri, 0)                                   \
  X(mad_f32, "mad.f32", 3, 7, 0, tri, 1)                                   \
  X(sel_b16, "sel.b16", 3, 8, 0, tri, 0)                                   \
  X(sel_b32, "sel.b32", 3, 9, 0, tri, 1)                                   \
  X(sel_s16, "sel.s16", 3, 10, 0, tri, 0)                                  \
  X(sel_s32, "sel.s32", 3, 11, 0, tri, 1)                                  \
  X(sel_f16, "sel.f16", 3, 12, 0, tri, 0)                                  \
  X(sel_f32, "sel.f32", 3, 13, 0, tri, 1)                                  \
  X(sad_s16, "sad.s16", 3, 14, 0, tri, 0)                                  \
  X(sad_s32, "sad.s32", 3, 15, 0, tri, 1)                                  \
  X(shrm, "shrm", 3, 8, 0, tri_alt, 0)                                     \
  X(shlm, "shlm", 3, 9, 0, tri_alt, 0)                                     \
  X(shrg, "shrg", 3, 10, 0, tri_alt, 0)                                    \
  X(shlg, "shlg", 3, 11, 0, tri_alt, 0)                                    \
  X(andg, "andg", 3, 12, 0, tri_alt, 0)                                    \
  X(dp2acc, "dp2acc", 3, 13, 0, tri_dot, 1)                                \
  X(dp4acc, "dp4acc", 3, 13, 1, tri_dot, 1)                                \
  X(rcp, "rcp", 4, 0, 0, sfu, 0)                                           \
  X(rsq, "rsq", 4, 1, 0, sfu, 0)                                           \
  X(log2, "log2", 4, 2, 0, sfu, 0)                                         \
  X(exp2, "exp2", 4, 3, 0, sfu, 0)                                         \
  X(sin, "sin", 4, 4, 0, sfu, 0)                                           \
  X(cos, "cos", 4, 5, 0, sfu, 0)                                           \
  X(sqrt, "sqrt", 4, 6, 0, sfu, 0)                                         \
  X(hrsq, "hrsq", 4, 9, 0, sfu, 0)                                         \
  X(hlog2, "hlog2", 4, 10, 0, sfu, 0)                                      \
  X(hexp2, "hexp2", 4, 11, 0, sfu, 0)                                      \
  X(isam, "isam", 5, 0, 0, tex_isam, 0x1d)                                 \
  X(isaml, "isaml", 5, 1, 0, tex, 0x1e)                                    \
  X(isamm, "isamm", 5, 2, 0, tex, 0x1d)                                    \
  X(sam, "sam", 5, 3, 0, tex, 0x1d)                                        \
  X(samb, "samb", 5, 4, 0, tex, 0x1e)                                      \
  X(saml, "saml", 5, 5, 0, tex, 0x1e)                                      \
  X(samgq, "samgq", 5, 6, 0, tex, 0x1d)                                    \
  X(getlod, "getlod", 5, 7, 0, tex, 0x1d)                                  \
  X(conv, "conv", 5, 8, 0, tex, 0x1e)                                      \
  X(convm, "convm", 5, 9, 0, tex, 0x1e)                                    \
  X(getsize, "getsize", 5, 10, 0, tex, 0x19)                               \
  X(getbuf, "getbuf", 5, 11, 0, tex, 0x18)                                 \
  X(getpos, "getpos", 5, 12, 0, tex, 0x19)                                 \
  X(getinfo, "getinfo", 5, 13, 0, tex, 0x18)                               \
  X(dsx, "dsx", 5, 14, 0, tex, 0x11)                                       \
  X(dsy, "dsy", 5, 15, 0, tex, 0x11)                                       \
  X(gather4r, "gather4r", 5, 16, 0, tex, 0x1d)                             \
  X(gather4g, "gather4g", 5, 17, 0, tex, 0x1d)                             \
  X(gather4b, "gather4b", 5, 18, 0, tex, 0x1d)                             \
  X(gather4a, "gather4a", 5, 19, 0, tex, 0x1d)                             \
  X(samgp0, "samgp0", 5, 20, 0, tex, 0x1d)                                 \
  X(samgp1, "samgp1", 5, 21, 0, tex, 0x1d)                                 \
  X(samgp2, "samgp2", 5, 22, 0, tex, 0x1d)                                 \
  X(samgp3, "samgp3", 5, 23, 0, tex, 0x1d)                                 \
  X(dsxpp_1, "dsxpp.1", 5, 24, 0, tex, 0x01)                               \
  X(dsypp_1, "dsypp.1", 5, 25, 0, tex, 0x01)                               \
  X(rgetpos, "rgetpos", 5, 26, 0, tex, 0x11)                               \
  X(rgetinfo, "rgetinfo", 5, 27, 0, tex, 0x10)                             \
  X(tcinv, "tcinv", 5, 28, 0, tex_tcinv, 0)                                \
  X(brcst_active, "brcst.active", 5, 31, 0, tex_brcst, 0x11)               \
  X(quad_shuffle_brcst, "quad_shuffle.brcst", 5, 31, 0, tex_quad, 0x12)    \
  X(quad_shuffle_horiz, "quad_shuffle.horiz", 5, 31, 1, tex_quad, 0x11)    \
  X(quad_shuffle_vert, "quad_shuffle.vert", 5, 31, 2, tex_quad, 0x11)      \
  X(quad_shuffle_diag, "quad_shuffle.diag", 5, 31, 3, tex_quad, 0x11)      \
  X(ldg, "ldg", 6, 0, 0, ldg, 0)                                           \
  X(ldg_a, "ldg.a", 6, 0, 0, ldg_a, 0)                                     \
  X(ldg_k, "ldg.k", 6, 0, 0, ldg_k, 0)                                     \
  X(ldl, "ldl", 6, 1, 0, ld_local, 0)                                      \
  X(ldp, "ldp", 6, 2, 0, ld_local, 0)                                      \
  X(stg, "stg", 6, 3, 0, stg, 0)                                           \
  X(stg_a, "stg.a", 6, 3, 0, stg_a, 0)                                     \
  X(stl, "stl", 6, 4, 0, st_local, 0)                                      \
  X(stp, "stp", 6, 5, 0, st_local, 0)                                      \
  X(ldlw, "ldlw", 6, 10, 0, ld_local, 0)                                   \
  X(stlw, "stlw", 6, 11, 0, st_local, 0)                                   \
  X(atomic_add, "atomic.add", 6, 16, 0, atomic_local, 0)                   \
  X(atomic_sub, "atomic.sub", 6, 17, 0, atomic_local, 0)                   \
  X(atomic_xchg, "atomic.xchg", 6, 18, 0, atomic_local, 0)                 \
  X(atomic_inc, "atomic.inc", 6, 19, 0, atomic_local, 0)                   \
  X(atomic_dec, "atomic.dec", 6, 20, 0, atomic_local, 0)                   \
  X(atomic_cmpxchg, "atomic.cmpxchg", 6, 21, 0, atomic_local, 0)           \
  X(atomic_min, "atomic.min", 6, 22, 0, atomic_local, 0)                   \
  X(atomic_max, "atomic.max", 6, 23, 0, atomic_local, 0)                   \
  X(atomic_and, "atomic.and", 6, 24, 0, atomic_local, 0)                   \
  X(atomic_or, "atomic.or", 6, 25, 0, atomic_local, 0)                     \
  X(atomic_xor, "atomic.xor", 6, 26, 0, atomic_local, 0)                   \
  X(atomic_g_add, "atomic.g.add", 6, 16, 0, atomic_global, 0)              \
  X(atomic_g_sub, "atomic.g.sub", 6, 17, 0, atomic_global, 0)              \
  X(atomic_g_xchg, "atomic.g.xchg", 6, 18, 0, atomic_global, 0)            \
  X(atomic_g_inc, "atomic.g.inc", 6, 19, 0, atomic_global, 0)              \
  X(atomic_g_dec, "atomic.g.dec", 6, 20, 0, atomic_global, 0)              \
  X(atomic_g_cmpxchg, "atomic.g.cmpxchg", 6, 21, 0, atomic_global, 0)      \
  X(atomic_g_min, "atomic.g.min", 6, 22, 0, atomic_global, 0)              \
  X(atomic_g_max, "atomic.g.max", 6, 23, 0, atomic_global, 0)              \
  X(atomic_g_and, "atomic.g.and", 6, 24, 0, atomic_global, 0)              \
  X(atomic_g_or, "atomic.g.or", 6, 25, 0, atomic_global, 0)                \
  X(atomic_g_xor, "atomic.g.xor", 6, 26, 0, atomic_global, 0)              \
  X(shfl, "shfl", 6, 27, 0, shfl, 0)                                       \
  X(stc, "stc", 6, 28, 0, stc, 0)                                          \
  X(ldlv, "ldlv", 6, 31, 0, ldlv, 0)                                       \
  X(ldib_b, "ldib.b", 6, 6, 0, ibo_ldst, 0)                                \
  X(resbase, "resbase", 6, 12, 0, res_1src, 0)                             \
  X(resinfo_b, "resinfo.b", 6, 15, 0, res_1src, 0)                         \
  X(atomic_b_add, "atomic.b.add", 6, 16, 0, ibo_atomic, 0)                 \
  X(atomic_b_sub, "atomic.b.sub", 6, 17, 0, ibo_atomic, 0)                 \
  X(atomic_b_xchg, "atomic.b.xchg", 6, 18, 0, ibo_atomic, 0)               \
  X(atomic_b_cmpxchg, "atomic.b.cmpxchg", 6, 21, 0, ibo_atomic, 0)         \
  X(atomic_b_min, "atomic.b.min", 6, 22, 0, ibo_atomic, 0)                 \
  X(atomic_b_max, "atomic.b.max", 6, 23, 0, ibo_atomic, 0)                 \
  X(atomic_b_and, "atomic.b.and", 6, 24, 0, ibo_atomic, 0)                 \
  X(atomic_b_or, "atomic.b.or", 6, 25, 0, ibo_atomic, 0)                   \
  X(atomic_b_xor, "atomic.b.xor", 6, 26, 0, ibo_atomic, 0)                 \
  X(stib_b, "stib.b", 6, 29, 0, ibo_ldst, 0)                               \
  X(ldc, "ldc", 6, 30, 0, ldc, 0)                                          \
  X(ldc_k, "ldc.k", 6, 30, 0, ldc_k, 0)                                    \
  X(getspid, "getspid", 6, 36, 0, sysid, 0)                                \
  X(getwid, "getwid", 6, 37, 0, sysid, 0)                                  \
  X(getfiberid, "getfiberid", 6, 38, 0, sysid, 0)                          \
  X(bar, "bar", 7, 0, 0, barrier, 0)                                       \
  X(fence, "fence", 7, 1, 0, barrier, 0)                                   \
  X(sleep, "sleep", 7, 2, 0, sleep, 0)                                     \
  X(icinv, "icinv", 7, 3, 0, icinv, 0)                                     \
  X(dccln, "dccln", 7, 4, 0, cache, 0)                                     \
  X(dcinv, "dcinv", 7, 5, 0, cache, 0)                                     \
  X(dcflu, "dcflu", 7, 6, 0, cache, 0)

enum class Opcode : std::uint16_t {
#define ADRENO_IR3_ENUM(id, name, cat, value, sub, form, attr) id,
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
};

// The attribute bits, by category (see the table header).
constexpr bool full_precision(const OpcodeInfo& row) noexcept { return row.attr != 0; }  // cat3
constexpr unsigned texture_sources(const OpcodeInfo& row) noexcept { return row.attr & 3; }
constexpr bool has_sampler(const OpcodeInfo& row) noexcept { return (row.attr & 4) != 0; }
constexpr bool has_texture(const OpcodeInfo& row) noexcept { return (row.attr & 8) != 0; }
constexpr bool shows_type(const OpcodeInfo& row) noexcept { return (row.attr & 0x10) != 0; }

const OpcodeInfo& info(Opcode opcode) noexcept;

/// The opcode spelled `name` (the table's text name), if there is one.
const OpcodeInfo* find_opcode(const char* name, std::size_t length) noexcept;

/// All table entries, in table order.
const OpcodeInfo* opcode_table_begin() noexcept;
const OpcodeInfo* opcode_table_end() noexcept;

}  // namespace adreno::ir3
