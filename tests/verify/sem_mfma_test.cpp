// Tests of the matrix-core semantics (sem_mfma.hpp): every MFMA/SMFMAC form of gfx90a and gfx942 run on random
// operands and checked against a plain matrix product. The register/lane placement used here is an independent
// transcription of AMD's matrix instruction calculator (github ROCm/amd_matrix_instruction_calculator,
// matrix_calculator.py, InstCalcGfx9: __get_input_reg_lanes, __get_output_reg_lanes, _get_reg_name,
// _get_blgp_transformed_lane, _get_cbsz_abid_transformed_block), written in the calculator's direction
// (matrix element -> register and lane), and the form list is the calculator's dict_insts for cdna2/cdna3.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "asmevo/verify/emu/mfma_info.hpp"
#include "verify/emu_harness.hpp"

namespace {

using namespace asmevo;
using namespace asmevo::emu;
using u32 = std::uint32_t;
using u64 = std::uint64_t;

enum class Ty { f32, xf32, f16, bf16, i8, i32, f64, fp8, bf8 };

struct Case {
  const char* mnemonic;
  Target target;
  unsigned m, n, k, blocks;
  Ty a, b, cd;
  bool sparse, blgp, cbsz_abid;
  unsigned cycles;
};

// matrix_calculator.py dict_insts['cdna2'] (gfx90a) and ['cdna3'] (gfx942): in_type, in_type_src1, out_type, m, n, k,
// blocks, sparse, blgp, cbsz_abid, cycles.
const Case cases[] = {
    {"v_mfma_f32_16x16x16bf16_1k", Target::gfx90a, 16, 16, 16, 1, Ty::bf16, Ty::bf16, Ty::f32, false, true, false, 32},
    {"v_mfma_f32_16x16x16f16", Target::gfx90a, 16, 16, 16, 1, Ty::f16, Ty::f16, Ty::f32, false, true, false, 32},
    {"v_mfma_f32_16x16x1f32", Target::gfx90a, 16, 16, 1, 4, Ty::f32, Ty::f32, Ty::f32, false, true, true, 32},
    {"v_mfma_f32_16x16x2bf16", Target::gfx90a, 16, 16, 2, 4, Ty::bf16, Ty::bf16, Ty::f32, false, true, true, 32},
    {"v_mfma_f32_16x16x4bf16_1k", Target::gfx90a, 16, 16, 4, 4, Ty::bf16, Ty::bf16, Ty::f32, false, true, true, 32},
    {"v_mfma_f32_16x16x4f16", Target::gfx90a, 16, 16, 4, 4, Ty::f16, Ty::f16, Ty::f32, false, true, true, 32},
    {"v_mfma_f32_16x16x4f32", Target::gfx90a, 16, 16, 4, 1, Ty::f32, Ty::f32, Ty::f32, false, true, false, 32},
    {"v_mfma_f32_16x16x8bf16", Target::gfx90a, 16, 16, 8, 1, Ty::bf16, Ty::bf16, Ty::f32, false, true, false, 32},
    {"v_mfma_f32_32x32x1f32", Target::gfx90a, 32, 32, 1, 2, Ty::f32, Ty::f32, Ty::f32, false, true, true, 64},
    {"v_mfma_f32_32x32x2bf16", Target::gfx90a, 32, 32, 2, 2, Ty::bf16, Ty::bf16, Ty::f32, false, true, true, 64},
    {"v_mfma_f32_32x32x2f32", Target::gfx90a, 32, 32, 2, 1, Ty::f32, Ty::f32, Ty::f32, false, true, false, 64},
    {"v_mfma_f32_32x32x4bf16", Target::gfx90a, 32, 32, 4, 1, Ty::bf16, Ty::bf16, Ty::f32, false, true, false, 64},
    {"v_mfma_f32_32x32x4bf16_1k", Target::gfx90a, 32, 32, 4, 2, Ty::bf16, Ty::bf16, Ty::f32, false, true, true, 64},
    {"v_mfma_f32_32x32x4f16", Target::gfx90a, 32, 32, 4, 2, Ty::f16, Ty::f16, Ty::f32, false, true, true, 64},
    {"v_mfma_f32_32x32x8bf16_1k", Target::gfx90a, 32, 32, 8, 1, Ty::bf16, Ty::bf16, Ty::f32, false, true, false, 64},
    {"v_mfma_f32_32x32x8f16", Target::gfx90a, 32, 32, 8, 1, Ty::f16, Ty::f16, Ty::f32, false, true, false, 64},
    {"v_mfma_f32_4x4x1f32", Target::gfx90a, 4, 4, 1, 16, Ty::f32, Ty::f32, Ty::f32, false, true, true, 8},
    {"v_mfma_f32_4x4x2bf16", Target::gfx90a, 4, 4, 2, 16, Ty::bf16, Ty::bf16, Ty::f32, false, true, true, 8},
    {"v_mfma_f32_4x4x4bf16_1k", Target::gfx90a, 4, 4, 4, 16, Ty::bf16, Ty::bf16, Ty::f32, false, true, true, 8},
    {"v_mfma_f32_4x4x4f16", Target::gfx90a, 4, 4, 4, 16, Ty::f16, Ty::f16, Ty::f32, false, true, true, 8},
    {"v_mfma_f64_16x16x4f64", Target::gfx90a, 16, 16, 4, 1, Ty::f64, Ty::f64, Ty::f64, false, false, false, 32},
    {"v_mfma_f64_4x4x4f64", Target::gfx90a, 4, 4, 4, 4, Ty::f64, Ty::f64, Ty::f64, false, false, false, 16},
    {"v_mfma_i32_16x16x16i8", Target::gfx90a, 16, 16, 16, 1, Ty::i8, Ty::i8, Ty::i32, false, true, false, 32},
    {"v_mfma_i32_16x16x4i8", Target::gfx90a, 16, 16, 4, 4, Ty::i8, Ty::i8, Ty::i32, false, true, true, 32},
    {"v_mfma_i32_32x32x4i8", Target::gfx90a, 32, 32, 4, 2, Ty::i8, Ty::i8, Ty::i32, false, true, true, 64},
    {"v_mfma_i32_32x32x8i8", Target::gfx90a, 32, 32, 8, 1, Ty::i8, Ty::i8, Ty::i32, false, true, false, 64},
    {"v_mfma_i32_4x4x4i8", Target::gfx90a, 4, 4, 4, 16, Ty::i8, Ty::i8, Ty::i32, false, true, true, 8},
    {"v_mfma_f32_16x16x16_bf16", Target::gfx942, 16, 16, 16, 1, Ty::bf16, Ty::bf16, Ty::f32, false, false, false, 16},
    {"v_mfma_f32_16x16x16_f16", Target::gfx942, 16, 16, 16, 1, Ty::f16, Ty::f16, Ty::f32, false, false, false, 16},
    {"v_mfma_f32_16x16x1_4b_f32", Target::gfx942, 16, 16, 1, 4, Ty::f32, Ty::f32, Ty::f32, false, true, true, 32},
    {"v_mfma_f32_16x16x32_bf8_bf8", Target::gfx942, 16, 16, 32, 1, Ty::bf8, Ty::bf8, Ty::f32, false, false, false, 16},
    {"v_mfma_f32_16x16x32_bf8_fp8", Target::gfx942, 16, 16, 32, 1, Ty::bf8, Ty::fp8, Ty::f32, false, false, false, 16},
    {"v_mfma_f32_16x16x32_fp8_bf8", Target::gfx942, 16, 16, 32, 1, Ty::fp8, Ty::bf8, Ty::f32, false, false, false, 16},
    {"v_mfma_f32_16x16x32_fp8_fp8", Target::gfx942, 16, 16, 32, 1, Ty::fp8, Ty::fp8, Ty::f32, false, false, false, 16},
    {"v_mfma_f32_16x16x4_4b_bf16", Target::gfx942, 16, 16, 4, 4, Ty::bf16, Ty::bf16, Ty::f32, false, true, true, 32},
    {"v_mfma_f32_16x16x4_4b_f16", Target::gfx942, 16, 16, 4, 4, Ty::f16, Ty::f16, Ty::f32, false, true, true, 32},
    {"v_mfma_f32_16x16x4_f32", Target::gfx942, 16, 16, 4, 1, Ty::f32, Ty::f32, Ty::f32, false, true, false, 32},
    {"v_mfma_f32_16x16x8_xf32", Target::gfx942, 16, 16, 8, 1, Ty::xf32, Ty::xf32, Ty::f32, false, false, false, 16},
    {"v_mfma_f32_32x32x16_bf8_bf8", Target::gfx942, 32, 32, 16, 1, Ty::bf8, Ty::bf8, Ty::f32, false, false, false, 32},
    {"v_mfma_f32_32x32x16_bf8_fp8", Target::gfx942, 32, 32, 16, 1, Ty::bf8, Ty::fp8, Ty::f32, false, false, false, 32},
    {"v_mfma_f32_32x32x16_fp8_bf8", Target::gfx942, 32, 32, 16, 1, Ty::fp8, Ty::bf8, Ty::f32, false, false, false, 32},
    {"v_mfma_f32_32x32x16_fp8_fp8", Target::gfx942, 32, 32, 16, 1, Ty::fp8, Ty::fp8, Ty::f32, false, false, false, 32},
    {"v_mfma_f32_32x32x1_2b_f32", Target::gfx942, 32, 32, 1, 2, Ty::f32, Ty::f32, Ty::f32, false, true, true, 64},
    {"v_mfma_f32_32x32x2_f32", Target::gfx942, 32, 32, 2, 1, Ty::f32, Ty::f32, Ty::f32, false, true, false, 64},
    {"v_mfma_f32_32x32x4_2b_bf16", Target::gfx942, 32, 32, 4, 2, Ty::bf16, Ty::bf16, Ty::f32, false, true, true, 64},
    {"v_mfma_f32_32x32x4_2b_f16", Target::gfx942, 32, 32, 4, 2, Ty::f16, Ty::f16, Ty::f32, false, true, true, 64},
    {"v_mfma_f32_32x32x4_xf32", Target::gfx942, 32, 32, 4, 1, Ty::xf32, Ty::xf32, Ty::f32, false, false, false, 32},
    {"v_mfma_f32_32x32x8_bf16", Target::gfx942, 32, 32, 8, 1, Ty::bf16, Ty::bf16, Ty::f32, false, false, false, 32},
    {"v_mfma_f32_32x32x8_f16", Target::gfx942, 32, 32, 8, 1, Ty::f16, Ty::f16, Ty::f32, false, false, false, 32},
    {"v_mfma_f32_4x4x1_16b_f32", Target::gfx942, 4, 4, 1, 16, Ty::f32, Ty::f32, Ty::f32, false, true, true, 8},
    {"v_mfma_f32_4x4x4_16b_bf16", Target::gfx942, 4, 4, 4, 16, Ty::bf16, Ty::bf16, Ty::f32, false, true, true, 8},
    {"v_mfma_f32_4x4x4_16b_f16", Target::gfx942, 4, 4, 4, 16, Ty::f16, Ty::f16, Ty::f32, false, true, true, 8},
    {"v_mfma_f64_16x16x4_f64", Target::gfx942, 16, 16, 4, 1, Ty::f64, Ty::f64, Ty::f64, false, true, false, 32},
    {"v_mfma_f64_4x4x4_4b_f64", Target::gfx942, 4, 4, 4, 4, Ty::f64, Ty::f64, Ty::f64, false, true, false, 16},
    {"v_mfma_i32_16x16x32_i8", Target::gfx942, 16, 16, 32, 1, Ty::i8, Ty::i8, Ty::i32, false, false, false, 16},
    {"v_mfma_i32_16x16x4_4b_i8", Target::gfx942, 16, 16, 4, 4, Ty::i8, Ty::i8, Ty::i32, false, true, true, 32},
    {"v_mfma_i32_32x32x16_i8", Target::gfx942, 32, 32, 16, 1, Ty::i8, Ty::i8, Ty::i32, false, false, false, 32},
    {"v_mfma_i32_32x32x4_2b_i8", Target::gfx942, 32, 32, 4, 2, Ty::i8, Ty::i8, Ty::i32, false, true, true, 64},
    {"v_mfma_i32_4x4x4_16b_i8", Target::gfx942, 4, 4, 4, 16, Ty::i8, Ty::i8, Ty::i32, false, true, true, 8},
    {"v_smfmac_f32_16x16x32_bf16", Target::gfx942, 16, 16, 32, 1, Ty::bf16, Ty::bf16, Ty::f32, true, false, true, 16},
    {"v_smfmac_f32_16x16x32_f16", Target::gfx942, 16, 16, 32, 1, Ty::f16, Ty::f16, Ty::f32, true, false, true, 16},
    {"v_smfmac_f32_16x16x64_bf8_bf8", Target::gfx942, 16, 16, 64, 1, Ty::bf8, Ty::bf8, Ty::f32, true, false, true, 16},
    {"v_smfmac_f32_16x16x64_bf8_fp8", Target::gfx942, 16, 16, 64, 1, Ty::bf8, Ty::fp8, Ty::f32, true, false, true, 16},
    {"v_smfmac_f32_16x16x64_fp8_bf8", Target::gfx942, 16, 16, 64, 1, Ty::fp8, Ty::bf8, Ty::f32, true, false, true, 16},
    {"v_smfmac_f32_16x16x64_fp8_fp8", Target::gfx942, 16, 16, 64, 1, Ty::fp8, Ty::fp8, Ty::f32, true, false, true, 16},
    {"v_smfmac_f32_32x32x16_bf16", Target::gfx942, 32, 32, 16, 1, Ty::bf16, Ty::bf16, Ty::f32, true, false, true, 32},
    {"v_smfmac_f32_32x32x16_f16", Target::gfx942, 32, 32, 16, 1, Ty::f16, Ty::f16, Ty::f32, true, false, true, 32},
    {"v_smfmac_f32_32x32x32_bf8_bf8", Target::gfx942, 32, 32, 32, 1, Ty::bf8, Ty::bf8, Ty::f32, true, false, true, 32},
    {"v_smfmac_f32_32x32x32_bf8_fp8", Target::gfx942, 32, 32, 32, 1, Ty::bf8, Ty::fp8, Ty::f32, true, false, true, 32},
    {"v_smfmac_f32_32x32x32_fp8_bf8", Target::gfx942, 32, 32, 32, 1, Ty::fp8, Ty::bf8, Ty::f32, true, false, true, 32},
    {"v_smfmac_f32_32x32x32_fp8_fp8", Target::gfx942, 32, 32, 32, 1, Ty::fp8, Ty::fp8, Ty::f32, true, false, true, 32},
    {"v_smfmac_i32_16x16x64_i8", Target::gfx942, 16, 16, 64, 1, Ty::i8, Ty::i8, Ty::i32, true, false, true, 16},
    {"v_smfmac_i32_32x32x32_i8", Target::gfx942, 32, 32, 32, 1, Ty::i8, Ty::i8, Ty::i32, true, false, true, 32},
};

unsigned width(Ty t) {
  switch (t) {
    case Ty::f16: case Ty::bf16: return 16;
    case Ty::i8: case Ty::fp8: case Ty::bf8: return 8;
    case Ty::f64: return 64;
    default: return 32;
  }
}

// ---- calculator transcription ----------------------------------------------------------------------------------

/// _get_blgp_transformed_lane, as the calculator writes it.
unsigned calc_blgp(unsigned lane, unsigned blgp) {
  unsigned r = lane;
  if (blgp == 1) r = lane % 32;
  else if (blgp == 2 && lane < 32) r = lane + 32;
  else if (blgp == 3) r = (lane + 16) % 64;
  else if (blgp == 4) r = lane % 16;
  else if (blgp == 5) { if (lane < 16) r = lane + 16; else if (lane >= 48) r = lane - 32; else if (lane >= 32) r = lane - 16; }
  else if (blgp == 6) { if (lane >= 48) r = lane - 16; else if (lane < 16) r = lane + 32; else if (lane < 32) r = lane + 16; }
  else if (blgp == 7) r = lane + (3 - lane / 16) * 16;
  return r;
}
/// _get_cbsz_abid_transformed_block.
unsigned calc_cbsz_block(unsigned block, unsigned cbsz, unsigned abid) {
  const unsigned n = 1u << cbsz;
  return block / n * n + abid;
}
struct Loc {
  unsigned bit;   ///< bit offset in the lane's consecutive registers (register = bit / 32)
  unsigned lane;
};
/// __get_input_reg_lanes + _get_reg_name (non-index): M = outer extent, K = inner extent, i outer, k inner.
Loc calc_input(unsigned M, unsigned K, unsigned B, unsigned i, unsigned k, unsigned b, unsigned W, unsigned blgp) {
  unsigned e = 64 / (M * B);
  e = K / e;
  const unsigned local = k % e;
  unsigned lane = b * M + (k / e) * M * B + i;
  lane = calc_blgp(lane, blgp);
  return {local * W, lane};
}
/// __get_output_reg_lanes.
Loc calc_output(unsigned M, unsigned N, unsigned i, unsigned j, unsigned b, unsigned W) {
  const unsigned mpr = 64 / N, h = W == 64 ? 1 : 4;
  const unsigned bpr = static_cast<unsigned>(std::ceil(64.0 / static_cast<double>(N * M / h)));
  unsigned local = b * (M * N / 64);
  local += i / (h * mpr) * h;
  local += i % h;
  unsigned lane = (b % bpr) * N;
  lane += (i / h) % mpr * bpr * N;
  lane += j;
  return {local * W, lane};
}
/// The compression-index bits of stored value c (0-based along the compressed K) of row i: _get_reg_name with
/// compression_index=True on __get_input_reg_lanes(M, K/2, ...); the second value of a pair uses the upper 2 bits
/// of the nibble (calculator README, sparse example).
Loc calc_index(unsigned M, unsigned K, unsigned i, unsigned c, unsigned W, unsigned cbsz, unsigned abid) {
  const unsigned KA = K / 2;
  unsigned e = 64 / M;
  e = KA / e;
  unsigned regno = c % e;
  const unsigned lane = (c / e) * M + i;
  if (cbsz == 0) regno += 64 * abid / W;
  return {regno / 2 * 4 + (c % 2) * 2, lane};
}

// ---- element values ---------------------------------------------------------------------------------------------

double dec_f16(u32 h) {
  const int e = (h >> 10) & 31, m = h & 1023;
  const double v = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
  return (h & 0x8000) ? -v : v;
}
double dec_fp8(u32 v, bool bf8) {  // NUZ formats of gfx942: e4m3 bias 8, e5m2 bias 16
  const int mb = bf8 ? 2 : 3, bias = bf8 ? 16 : 8;
  const int e = (v & 0x7f) >> mb, m = v & ((1 << mb) - 1);
  const double x = e == 0 ? std::ldexp(m, 1 - bias - mb) : std::ldexp((1 << mb) + m, e - bias - mb);
  return (v & 0x80) ? -x : x;
}
/// Value of a raw element as a double (exact for every input type).
double value(Ty t, u64 raw) {
  switch (t) {
    case Ty::f32: case Ty::xf32: return std::bit_cast<float>(static_cast<u32>(raw));
    case Ty::f16: return dec_f16(static_cast<u32>(raw));
    case Ty::bf16: return std::bit_cast<float>(static_cast<u32>(raw) << 16);
    case Ty::fp8: return dec_fp8(static_cast<u32>(raw), false);
    case Ty::bf8: return dec_fp8(static_cast<u32>(raw), true);
    case Ty::f64: return std::bit_cast<double>(raw);
    case Ty::i8: return static_cast<std::int8_t>(raw & 0xff);
    case Ty::i32: return static_cast<std::int32_t>(raw);
  }
  return 0;
}
/// A random finite element of moderate magnitude (sums stay far from overflow).
u64 random_element(Ty t, std::mt19937_64& g) {
  const u64 r = g();
  const u64 s = r & 1;
  switch (t) {
    case Ty::f32: return s << 31 | (120 + (r >> 1) % 15) << 23 | ((r >> 8) & 0x7fffff);
    case Ty::xf32: return s << 31 | (120 + (r >> 1) % 15) << 23 | ((r >> 8) & 0x7fe000);  // exact in xf32
    case Ty::f16: return s << 15 | (10 + (r >> 1) % 10) << 10 | ((r >> 8) & 0x3ff);
    case Ty::bf16: return s << 15 | (120 + (r >> 1) % 15) << 7 | ((r >> 8) & 0x7f);
    case Ty::fp8: return s << 7 | (1 + (r >> 1) % 15) << 3 | ((r >> 8) & 7);
    case Ty::bf8: return s << 7 | (8 + (r >> 1) % 16) << 2 | ((r >> 8) & 3);
    case Ty::i8: return r & 0xff;
    case Ty::i32: return r & 0xffffffff;
    case Ty::f64: return s << 63 | (1013 + (r >> 1) % 20) << 52 | ((r >> 8) & 0xfffffffffffffull);
  }
  return 0;
}

// ---- registers -------------------------------------------------------------------------------------------------

/// Raw register contents of one operand: dwords x 64 lanes.
struct Regs {
  unsigned dwords = 0;
  std::vector<u32> d;  // [dword][lane]
  u32& at(unsigned r, unsigned l) { return d[r * 64 + l]; }
  u64 get(Loc x, unsigned W) const {
    const unsigned r = x.bit / 32, sh = x.bit % 32;
    if (W == 64) return d[r * 64 + x.lane] | static_cast<u64>(d[(r + 1) * 64 + x.lane]) << 32;
    const u64 mask = W == 32 ? 0xffffffffull : (1ull << W) - 1;
    return (d[r * 64 + x.lane] >> sh) & mask;
  }
  void fill(Ty t, std::mt19937_64& g) {
    const unsigned W = width(t);
    for (unsigned r = 0; r < dwords; r += (W == 64 ? 2 : 1))
      for (unsigned l = 0; l < 64; ++l) {
        if (W == 64) {
          const u64 v = random_element(t, g);
          at(r, l) = static_cast<u32>(v);
          at(r + 1, l) = static_cast<u32>(v >> 32);
        } else {
          u32 v = 0;
          for (unsigned s = 0; s < 32; s += W) v |= static_cast<u32>(random_element(t, g)) << s;
          at(r, l) = v;
        }
      }
  }
};
Regs make_regs(unsigned dwords) { Regs r; r.dwords = dwords; r.d.assign(dwords * 64, 0); return r; }

std::string reg_text(char file, unsigned first, unsigned count) {
  if (count == 1) return std::string(1, file) + std::to_string(first);
  return std::string(1, file) + "[" + std::to_string(first) + ":" + std::to_string(first + count - 1) + "]";
}

struct Variant {
  bool ab_agpr = false;   ///< SrcA/SrcB in AGPRs
  bool cd_agpr = true;    ///< SrcC/vdst in AGPRs
  bool d_is_c = true;     ///< vdst = SrcC
  bool c_zero = false;    ///< SrcC is the inline constant 0
  unsigned cbsz = 0, abid = 0, blgp = 0;
};

constexpr unsigned a_base = 0, b_base = 8, idx_reg = 16, c_base = 32, d_base = 96;

/// Runs one form with one variant on random operands; returns the number of mismatching output elements.
int run_case(const Case& cs, const Variant& v, u64 seed) {
  std::mt19937_64 g(seed);
  const unsigned M = cs.m, N = cs.n, K = cs.k, B = cs.blocks;
  const unsigned WA = width(cs.a), WB = width(cs.b), WC = width(cs.cd);
  const unsigned KA = cs.sparse ? K / 2 : K;
  const unsigned DA = M * B * KA * WA / 2048, DB = N * B * K * WB / 2048, DC = M * N * B * WC / 2048;
  Regs ra = make_regs(DA), rb = make_regs(DB), rc = make_regs(DC), ri = make_regs(1);
  ra.fill(cs.a, g);
  rb.fill(cs.b, g);
  rc.fill(cs.cd, g);
  if (v.c_zero) std::fill(rc.d.begin(), rc.d.end(), 0u);
  if (cs.sparse)  // every nibble: two distinct ascending column choices (a valid 4:2 pattern)
    for (unsigned l = 0; l < 64; ++l) {
      u32 x = 0;
      for (unsigned s = 0; s < 32; s += 4) {
        const unsigned lo = g() % 3, hi = lo + 1 + g() % (3 - lo);
        x |= (lo | hi << 2) << s;
      }
      ri.at(0, l) = x;
    }

  // The snippet.
  const char ab = v.ab_agpr ? 'a' : 'v', cdf = v.cd_agpr ? 'a' : 'v';
  const unsigned dfirst = v.d_is_c ? c_base : d_base;
  const unsigned cfirst = cs.sparse ? dfirst : c_base;  // SMFMAC accumulates into vdst
  std::string text = std::string("\t") + cs.mnemonic + " " + reg_text(cdf, dfirst, DC) + ", " +
                     reg_text(ab, a_base, DA) + ", " + reg_text(ab, b_base, DB) + ", ";
  if (cs.sparse) text += reg_text('v', idx_reg, 1);
  else text += v.c_zero ? std::string("0") : reg_text(cdf, cfirst, DC);
  if (v.cbsz) text += " cbsz:" + std::to_string(v.cbsz);
  if (v.abid) text += " abid:" + std::to_string(v.abid);
  if (v.blgp && cs.a == Ty::f64 && cs.target == Target::gfx942)  // gfx942 f64: the BLGP bits spelled neg:[a,b,c]
    text += " neg:[" + std::to_string(v.blgp & 1) + "," + std::to_string((v.blgp >> 1) & 1) + "," +
            std::to_string((v.blgp >> 2) & 1) + "]";
  else if (v.blgp)
    text += " blgp:" + std::to_string(v.blgp);
  auto s = test::make_snippet(text, cs.target);
  if (!s) return -1;
  Wave& w = s->wave();
  auto row = [&](char f, unsigned n) { return (f == 'a' ? agpr_row0 : 0u) + n; };
  for (unsigned r = 0; r < DA; ++r) for (unsigned l = 0; l < 64; ++l) w.v[row(ab, a_base + r)][l] = ra.at(r, l);
  for (unsigned r = 0; r < DB; ++r) for (unsigned l = 0; l < 64; ++l) w.v[row(ab, b_base + r)][l] = rb.at(r, l);
  for (unsigned r = 0; r < DC; ++r) for (unsigned l = 0; l < 64; ++l) w.v[row(cdf, cfirst + r)][l] = rc.at(r, l);
  for (unsigned l = 0; l < 64; ++l) w.v[idx_reg][l] = ri.at(0, l);
  const Stop& st = s->run();
  EXPECT_EQ(st.kind, Stop::Kind::none) << st.message << "\n" << text;
  if (st.kind != Stop::Kind::none) return -1;

  // The reference: D[b] = C[b] + A[cbsz/abid block] * B[b], products added in k order (the model sem_mfma.hpp
  // documents); f64 on gfx942 takes BLGP as negate flags.
  const bool neg_mode = cs.a == Ty::f64 && cs.target == Target::gfx942;
  const unsigned blgp = neg_mode ? 0 : v.blgp, neg = neg_mode ? v.blgp : 0;
  int bad = 0;
  for (unsigned b = 0; b < B; ++b)
    for (unsigned i = 0; i < M; ++i) {
      // Row i of A (dense K columns) for this block.
      std::vector<double> arow(K, 0.0);
      if (cs.sparse) {
        for (unsigned c = 0; c < KA; ++c) {
          const Loc il = calc_index(M, K, i, c, WA, v.cbsz, v.abid);
          const unsigned sel = (ri.at(il.bit / 32, il.lane) >> (il.bit % 32)) & 3;
          arow[4 * (c / 2) + sel] = value(cs.a, ra.get(calc_input(M, KA, 1, i, c, 0, WA, 0), WA));
        }
      } else {
        const unsigned ablk = calc_cbsz_block(b, v.cbsz, v.abid);
        for (unsigned k = 0; k < K; ++k) arow[k] = value(cs.a, ra.get(calc_input(M, K, B, i, k, ablk, WA, 0), WA));
      }
      for (unsigned j = 0; j < N; ++j) {
        const Loc o = calc_output(M, N, i, j, b, WC);
        const u64 craw = rc.get(o, WC);
        u64 want = 0;
        if (cs.cd == Ty::i32) {
          u32 acc = static_cast<u32>(craw);
          for (unsigned k = 0; k < K; ++k)
            acc += static_cast<u32>(static_cast<std::int32_t>(arow[k]) *
                                    static_cast<std::int32_t>(value(cs.b, rb.get(calc_input(N, K, B, j, k, b, WB, blgp), WB))));
          want = acc;
        } else if (cs.cd == Ty::f64) {
          double acc = value(Ty::f64, craw);
          if (neg & 4) acc = -acc;
          for (unsigned k = 0; k < K; ++k) {
            double x = arow[k], y = value(cs.b, rb.get(calc_input(N, K, B, j, k, b, WB, blgp), WB));
            if (neg & 1) x = -x;
            if (neg & 2) y = -y;
            acc = std::fma(x, y, acc);
          }
          want = std::bit_cast<u64>(acc);
        } else {
          float acc = std::bit_cast<float>(static_cast<u32>(craw));
          for (unsigned k = 0; k < K; ++k) {
            const double y = value(cs.b, rb.get(calc_input(N, K, B, j, k, b, WB, blgp), WB));
            if (cs.a == Ty::f32) {
              acc = std::fma(static_cast<float>(arow[k]), static_cast<float>(y), acc);
            } else {
              if (cs.sparse && arow[k] == 0.0) continue;  // a column the 4:2 pattern leaves out
              acc = acc + static_cast<float>(arow[k] * y);  // the product is exact in f32 for these inputs
            }
          }
          want = std::bit_cast<u32>(acc);
        }
        const unsigned dreg = row(cdf, dfirst) + o.bit / 32;
        const u64 got = WC == 64 ? (w.v[dreg][o.lane] | static_cast<u64>(w.v[dreg + 1][o.lane]) << 32) : w.v[dreg][o.lane];
        if (got != want) {
          if (bad < 3)
            ADD_FAILURE() << cs.mnemonic << " block " << b << " D[" << i << "][" << j << "] got 0x" << std::hex << got
                          << " want 0x" << want << std::dec << " (" << text << ", seed " << seed << ")";
          ++bad;
        }
      }
    }
  return bad;
}

std::string target_name(Target t) { return t == Target::gfx90a ? "gfx90a" : "gfx942"; }

TEST(SemMfma, TableMatchesCalculator) {
  for (const Case& c : cases) {
    const MfmaInfo* i = mfma_info(c.mnemonic, c.target);
    ASSERT_NE(i, nullptr) << c.mnemonic;
    EXPECT_EQ(i->m, c.m) << c.mnemonic;
    EXPECT_EQ(i->n, c.n) << c.mnemonic;
    EXPECT_EQ(i->k, c.k) << c.mnemonic;
    EXPECT_EQ(i->blocks, c.blocks) << c.mnemonic;
    EXPECT_EQ(i->passes * 4, c.cycles) << c.mnemonic;
    EXPECT_EQ(i->sparse, c.sparse) << c.mnemonic;
    EXPECT_EQ(i->dgemm, c.a == Ty::f64) << c.mnemonic;
  }
  // The gfx942 spellings LLVM keeps from gfx90a name the gfx942 forms (rename aliases).
  const MfmaInfo* x = mfma_info("v_mfma_f32_32x32x4bf16", Target::gfx942);
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->blocks, 2u);
  EXPECT_EQ(x->k, 4u);
  EXPECT_EQ(mfma_info("v_mfma_f32_32x32x8_f16", Target::gfx90a), nullptr);
}

/// Every form, each variant: operands in VGPRs/AGPRs, C = D / C != D / C = 0, and every CBSZ/ABID and BLGP value
/// the calculator allows for the form.
TEST(SemMfma, EveryFormAgainstMatrixProduct) {
  const u64 base = 0x5eed0000ull;
  std::printf("sem_mfma_test seed base 0x%llx\n", static_cast<unsigned long long>(base));
  unsigned idx = 0, runs = 0;
  for (const Case& c : cases) {
    ++idx;
    SCOPED_TRACE(std::string(c.mnemonic) + " on " + target_name(c.target));
    std::vector<Variant> vs;
    vs.push_back({});                                  // A, B VGPR; C = D AGPR
    vs.push_back({true, true, false, false});          // A, B AGPR; D != C, AGPR
    vs.push_back({false, false, false, false});        // C, D VGPR
    if (!c.sparse) vs.push_back({true, false, true, true});  // C = inline 0, D VGPR
    if (c.sparse) {
      const unsigned sets = width(c.a) == 16 ? 4 : 2;
      for (unsigned a = 0; a < sets; ++a) { Variant v; v.abid = a; vs.push_back(v); }
      Variant v; v.cbsz = 1; v.abid = 1; vs.push_back(v);  // CBSZ != 0: ABID ignored
    } else {
      if (c.cbsz_abid)
        for (unsigned cb = 0; (1u << cb) <= c.blocks; ++cb)
          for (unsigned ab = 0; ab < (1u << cb); ++ab) { Variant v; v.cbsz = cb; v.abid = ab; v.blgp = (cb + ab) % 8; vs.push_back(v); }
      const bool neg_mode = c.a == Ty::f64 && c.target == Target::gfx942;
      if (c.blgp || neg_mode)
        for (unsigned bl = 1; bl < 8; ++bl) { Variant v; v.blgp = bl; v.ab_agpr = bl % 2; vs.push_back(v); }
    }
    unsigned vi = 0;
    for (const Variant& v : vs) {
      const u64 seed = base + idx * 1000 + vi++;
      EXPECT_EQ(run_case(c, v, seed), 0) << c.mnemonic << " variant " << vi - 1 << " seed " << seed;
      ++runs;
    }
  }
  std::printf("%zu forms, %u form/variant runs checked element by element\n", std::size(cases), runs);
}

TEST(SemMfma, Gfx90aHalfFormsFlushDenormals) {
  // MIOpen docs "MI200 matrix fused multiply-add (MFMA) behavior specifics": f16/bf16 MFMA flush subnormal inputs
  // and outputs. A = smallest f16 denormal (0x0001) times B = 2^10 would be 2^-14: flushed it contributes nothing.
  for (Target t : {Target::gfx90a, Target::gfx942}) {
    auto s = test::make_snippet(t == Target::gfx90a ? "\tv_mfma_f32_4x4x4f16 a[0:3], v[0:1], v[2:3], 0"
                                                    : "\tv_mfma_f32_4x4x4_16b_f16 a[0:3], v[0:1], v[2:3], 0", t);
    ASSERT_TRUE(s);
    for (unsigned l = 0; l < 64; ++l) {
      s->wave().v[0][l] = 0x00000001u;  // A: k0 = denormal, k1..3 = 0
      s->wave().v[1][l] = 0;
      s->wave().v[2][l] = 0x00006400u;  // B: k0 = 1024.0
      s->wave().v[3][l] = 0;
    }
    ASSERT_EQ(s->run().kind, Stop::Kind::none);
    const float want = t == Target::gfx90a ? 0.0f : std::ldexp(1.0f, -14);
    EXPECT_EQ(std::bit_cast<float>(s->wave().v[agpr_row0][0]), want) << target_name(t);
  }
}

TEST(SemMfma, PartialExecAndBadModifiersStop) {
  auto s = test::make_snippet("\tv_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[0:15]", Target::gfx942);
  ASSERT_TRUE(s);
  s->wave().set_exec(0xffffffffull);
  EXPECT_EQ(s->run().kind, Stop::Kind::unsupported);
  auto s2 = test::make_snippet("\tv_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[0:15] cbsz:1", Target::gfx942);
  if (s2) EXPECT_EQ(s2->run().kind, Stop::Kind::illegal);
}

/// Informational: emulated MFMA rate (printed, not asserted; the matrix work per instruction is 2K-16K MACs).
TEST(SemMfma, Rate) {
  std::string text;
  for (int i = 0; i < 200; ++i) text += "\tv_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[0:15]\n";
  for (int i = 0; i < 200; ++i) text += "\tv_mfma_f32_16x16x16_f16 a[16:19], v[0:1], v[2:3], a[16:19]\n";
  double best = 1e9;
  for (int rep = 0; rep < 5; ++rep) {  // best of 5: the machine is shared
    auto s = test::make_snippet(text, Target::gfx942);
    ASSERT_TRUE(s);
    const auto t0 = std::chrono::steady_clock::now();
    ASSERT_EQ(s->run().kind, Stop::Kind::none);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::printf("400 MFMA wave-instructions (32x32x8, 16x16x16 f16) in %.3f ms: %.0f per second\n", best * 1e3, 400 / best);
}

}  // namespace
