// rapidcheck generator of random well-formed kernels for gfx90a/gfx942/gfx950 (one label `k:`, loads and their uses,
// LDS phases with barriers, SMEM, VALU chains, exec-masked regions, MFMA chains and counted loops), emitted as
// assembly text with correct s_waitcnt and hazard padding, for the per-pass properties (pass_properties.hpp).
//
// The generated value is a ProgramSpec (target, wave count, a list of Segments) drawn field by field and weighted
// toward the cases passes get wrong; a deterministic emitter (emit_program) turns any spec, including every shrunk
// one, into text that parses and is clean under analysis::check_waitcnt and analysis::check_hazards. So a failure
// shrinks to a short list of segments, and rapidcheck prints the spec and the text.
//
// Weights: see gen_segment. The program is `k:`, a prologue (addresses from v0 and the SGPR arguments, every value
// register defined), 0..~35 segments, then a wait for everything outstanding, one global_store_dword per value
// register and s_endpgm.
//
// Layout every program follows (the harness sets these registers and buffers up; the names are for reading text):
//   v0        flat work-item id in the workgroup (wave * 64 + lane)
//   s[0:1]    input buffer, kInBytesPerLane (64) bytes per lane, read by global loads
//   s[2:3]    output buffer, kOutBytesPerLane (4 * kValues) bytes per lane: each value register is stored there
//   s[4:5]    a 256-byte read-only buffer read by SMEM;  s6, s7: scalar arguments
//   v1 in-offset, v2 out-offset, v3 own LDS address, v4 a neighbour lane's LDS address, v[6:7] / v[8:9] the 64-bit
//   input / output addresses; v10..v41 the kValues "value registers" (every result lives in one); v[42:45] MFMA A/B;
//   v46, v47 a streaming loop's loads and address (never stored);
//   v[48:63] or a[0:15] MFMA accumulators; s8..s19 SMEM results, s20..s21 saved exec, s24..s27 scalar temps, s30 a
//   loop counter, s31 a v_readlane result.
#pragma once

#include <rapidcheck.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <ostream>
#include <string>
#include <vector>

#include "asmevo/ir/parser.hpp"
#include "asmevo/ir/program.hpp"
#include "asmevo/ir/target.hpp"

namespace asmevo::test {

inline constexpr unsigned kValue0 = 10;        ///< first value register (v10)
inline constexpr unsigned kValues = 32;        ///< value registers v10..v41, each stored at the end
inline constexpr unsigned kInBytesPerLane = 64;
inline constexpr unsigned kOutBytesPerLane = 4 * kValues;
inline constexpr unsigned kSmemBytes = 256;
inline constexpr unsigned kMaxSegments = 40;   ///< the emitter ignores segments past this many

/// What one segment of a program does (see emit_program for the exact instructions).
enum class SegKind : std::uint8_t {
  global_load,  ///< global_load_dword/x2/x4 (or a split pair) into value registers, outstanding for a later `use`
  use,          ///< waits for one outstanding load (a precise count or a conservative 0) and computes with it
  lds,          ///< ds_write_b32 phase, s_waitcnt lgkmcnt(0), s_barrier, ds_read_b32 of a neighbour lane (outstanding)
  smem,         ///< s_load_dword/x2 from s[4:5] (outstanding; its use waits lgkmcnt(0) and runs SALU on it)
  valu,         ///< a VALU chain with dead writes, redundant moves and fusable pairs
  exec_region,  ///< v_cmp, s_and_saveexec_b64, (s_cbranch_execz), VALU body, s_or_b64 exec restore
  mfma,         ///< MFMA chain on AGPR or VGPR accumulators, padded, results read into value registers
  loop,         ///< counted loop: s_mov_b32 counter, body, s_sub_u32, s_cmp_lg_u32, s_cbranch_scc1
  lane,         ///< v_readlane_b32 / v_writelane_b32 (and SALU on the lane value)
  nop,          ///< an s_nop nothing needs
  wait,         ///< an s_waitcnt nothing needs (or one stronger than needed)
  dpp,          ///< a VALU write, then a DPP read of it, the two wait states between made of s_nop and waits for nothing
  count_
};

[[nodiscard]] constexpr const char* to_string(SegKind k) noexcept {
  constexpr const char* names[] = {"global_load", "use",  "lds",  "smem", "valu", "exec_region",
                                   "mfma",        "loop", "lane", "nop",  "wait", "dpp"};
  return names[static_cast<unsigned>(k)];
}

/// One segment: its kind and the structural choices that matter for shrinking; `seed` drives the operand choices
/// (which registers, which constants) so that the spec stays small.
struct Segment {
  SegKind kind = SegKind::valu;
  unsigned size = 1;     ///< chain length, loop body length, body length, width choice (interpreted per kind)
  unsigned variant = 0;  ///< kind-specific flags (precise wait, skip branch, AGPR vs VGPR accumulators, ...)
  std::uint32_t seed = 0;
};

/// A program before emission: what rapidcheck generates and shrinks.
struct ProgramSpec {
  Target target = Target::gfx942;
  unsigned waves = 1;  ///< 1..4 waves of one workgroup
  std::vector<Segment> segments;
  std::uint32_t seed = 0;  ///< prologue choices (how the value registers start)
};

/// A generated program: its spec, its text and the parsed Program (parse_error non-empty if it did not parse,
/// which is a generator bug the properties report).
struct RandomProgram {
  ProgramSpec spec;
  std::string text;
  Program program;
  std::string parse_error;
  [[nodiscard]] unsigned lanes() const noexcept { return spec.waves * 64; }
};

namespace detail {

/// splitmix64 (Steele, Lea, Flood 2014): operand choices inside a segment.
struct SegRng {
  std::uint64_t x;
  explicit SegRng(std::uint64_t s) : x(s * 0x9e3779b97f4a7c15ull + 0x1234567ull) {}
  std::uint64_t next() noexcept {
    std::uint64_t z = (x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  unsigned below(unsigned n) noexcept { return n ? static_cast<unsigned>(next() % n) : 0; }
  bool chance(unsigned percent) noexcept { return below(100) < percent; }
};

/// Turns a ProgramSpec into text, keeping the model of outstanding memory operations that decides every s_waitcnt.
///
/// Waits follow analysis/waitcnt_check.hpp's model: vmcnt completes in order, so waiting for the i-th oldest of n
/// outstanding loads is vmcnt(n - 1 - i); lgkmcnt is in order only while nothing but LDS is outstanding (an SMEM
/// load makes it out of order, and then only lgkmcnt(0) retires anything). Hazard padding follows
/// analysis/hazard_rules.hpp (each site names its rule); where the generator pads more than a rule needs, that is
/// deliberate work for a nop-minimising pass.
class Emitter {
 public:
  explicit Emitter(const ProgramSpec& s) : spec_(s), t_(s.target) {}

  std::string run() {
    out_ = "k:\n";
    prologue();
    const std::size_t n = std::min<std::size_t>(spec_.segments.size(), kMaxSegments);
    for (std::size_t i = 0; i < n; ++i) segment(spec_.segments[i]);
    epilogue();
    return out_;
  }

 private:
  struct Pending {
    unsigned first = 0, count = 0;  ///< VGPRs (vector) or SGPRs (scalar)
    bool scalar = false;
    bool smem = false;              ///< lgkm: an SMEM load (out of order)
  };

  const ProgramSpec& spec_;
  Target t_;
  std::string out_;
  std::deque<Pending> vm_, lgkm_;
  std::array<bool, 64> vpend_{};
  std::array<bool, 32> spend_{};
  std::array<bool, 12> sdef_{};  ///< s8..s19 hold an SMEM result that has been waited for
  unsigned labels_ = 0, lds_regions_ = 0;

  void line(const std::string& s) {
    out_ += '\t';
    out_ += s;
    out_ += '\n';
  }
  static std::string v(unsigned r) { return "v" + std::to_string(r); }
  static std::string vr(unsigned r, unsigned n) {
    return n == 1 ? v(r) : "v[" + std::to_string(r) + ":" + std::to_string(r + n - 1) + "]";
  }
  static std::string s(unsigned r) { return "s" + std::to_string(r); }
  [[nodiscard]] unsigned lanes() const { return spec_.waves * 64; }
  [[nodiscard]] bool gfx940_plus() const { return t_ != Target::gfx90a; }

  // ---- the outstanding-operation model -------------------------------------------------------------------------

  void mark(const Pending& p, bool on) {
    for (unsigned k = 0; k < p.count; ++k) {
      if (p.scalar) spend_[p.first + k] = on;
      else vpend_[p.first + k] = on;
    }
  }
  void retire_vm(std::size_t keep) {
    while (vm_.size() > keep) {
      mark(vm_.front(), false);
      vm_.pop_front();
    }
  }
  void retire_lgkm(std::size_t keep) {
    while (lgkm_.size() > keep) {
      const Pending p = lgkm_.front();
      mark(p, false);
      if (p.smem)
        for (unsigned k = 0; k < p.count; ++k) sdef_[p.first + k - 8] = true;
      lgkm_.pop_front();
    }
  }
  [[nodiscard]] bool lgkm_in_order() const {
    return std::none_of(lgkm_.begin(), lgkm_.end(), [](const Pending& p) { return p.smem; });
  }
  /// Waits until vm entry `i` (0 = oldest) has completed: vmcnt(n - 1 - i) when precise, else vmcnt(0).
  void wait_vm_for(std::size_t i, bool precise) {
    const std::size_t keep = precise ? vm_.size() - 1 - i : 0;
    line("s_waitcnt vmcnt(" + std::to_string(keep) + ")");
    retire_vm(keep);
  }
  void wait_lgkm_for(std::size_t i, bool precise) {
    const std::size_t keep = precise && lgkm_in_order() ? lgkm_.size() - 1 - i : 0;
    line("s_waitcnt lgkmcnt(" + std::to_string(keep) + ")");
    retire_lgkm(keep);
  }
  void wait_all() {
    if (vm_.empty() && lgkm_.empty()) return;
    if (!vm_.empty() && !lgkm_.empty()) line("s_waitcnt vmcnt(0) lgkmcnt(0)");
    else if (!vm_.empty()) line("s_waitcnt vmcnt(0)");
    else line("s_waitcnt lgkmcnt(0)");
    retire_vm(0);
    retire_lgkm(0);
  }
  /// Keeps counters well below their field maxima (vmcnt 63, lgkmcnt 15) so that no count saturates.
  void make_room() {
    if (vm_.size() >= 24) wait_vm_for(vm_.size() - 12, true);
    if (lgkm_.size() >= 12) wait_lgkm_for(lgkm_.size() - 1, false);
  }

  // ---- register choices ----------------------------------------------------------------------------------------

  /// Value registers with an outstanding load: kept at most kMaxPendingValues so that a free one always exists
  /// (a wait the emitter had to add inside a skippable region would make its model wrong on the skip path).
  static constexpr unsigned kMaxPendingValues = 20;
  [[nodiscard]] unsigned pending_values() const {
    return static_cast<unsigned>(std::count(vpend_.begin() + kValue0, vpend_.begin() + kValue0 + kValues, true));
  }
  /// A value register with no outstanding load.
  unsigned ready_value(SegRng& r) {
    std::array<unsigned, kValues> free{};
    unsigned n = 0;
    for (unsigned x = kValue0; x < kValue0 + kValues; ++x)
      if (!vpend_[x]) free[n++] = x;
    return free[r.below(n)];  // n > 0: at most kMaxPendingValues are outstanding
  }
  /// `n` consecutive value registers, aligned to 2 when n > 1 (gfx90a+ VGPR tuples), none outstanding; 0 if none.
  unsigned ready_tuple(SegRng& r, unsigned n) {
    for (int tries = 0; tries < 64; ++tries) {
      unsigned x = kValue0 + r.below(kValues - n + 1);
      if (n > 1) x &= ~1u;
      bool ok = x >= kValue0 && x + n <= kValue0 + kValues;
      for (unsigned k = 0; ok && k < n; ++k) ok = !vpend_[x + k];
      if (ok) return x;
    }
    return 0;
  }
  /// A 32-bit VOP2 src0: a value register, v0, s6/s7, an inline constant or a literal.
  std::string src0(SegRng& r) {
    switch (r.below(8)) {
      case 0: return s(6 + r.below(2));
      case 1: return std::to_string(static_cast<int>(r.below(81)) - 16);  // inline constants -16..64
      case 2: return "0x" + to_hex(static_cast<std::uint32_t>(r.next()) | 0x100u);  // a literal (not inline)
      case 3: return v(0);
      default: return v(ready_value(r));
    }
  }
  /// A VOP3 source: a value register, or an inline constant (gfx9 VOP3 takes no literal).
  std::string src3(SegRng& r, bool f32) {
    if (r.below(5) == 0) {
      if (f32) {
        static constexpr const char* fc[] = {"1.0", "-1.0", "0.5", "2.0", "-4.0", "0"};
        return fc[r.below(6)];
      }
      return std::to_string(r.below(65));
    }
    return v(ready_value(r));
  }
  static std::string to_hex(std::uint32_t x) {
    static constexpr char d[] = "0123456789abcdef";
    std::string h;
    for (int i = 28; i >= 0; i -= 4) h += d[(x >> i) & 15];
    return h;
  }

  // ---- instructions -----------------------------------------------------------------------------------------

  /// One VALU instruction from the set the task names, writing `dst`.
  void valu_op(SegRng& r, unsigned dst) {
    static constexpr const char* vop2[] = {"v_add_u32", "v_xor_b32", "v_and_b32", "v_or_b32", "v_add_f32"};
    const std::string d = v(dst);
    switch (r.below(10)) {
      case 0:
      case 1: line(std::string(vop2[r.below(5)]) + " " + d + ", " + src0(r) + ", " + v(ready_value(r))); break;
      case 2: line(std::string(vop2[r.below(4)]) + " " + d + ", " + src0(r) + ", " + v(ready_value(r))); break;
      case 3: line("v_mul_lo_u32 " + d + ", " + src3(r, false) + ", " + v(ready_value(r))); break;
      case 4: line("v_lshlrev_b32 " + d + ", " + std::to_string(r.below(32)) + ", " + v(ready_value(r))); break;
      case 5: line("v_lshlrev_b32 " + d + ", " + v(ready_value(r)) + ", " + v(ready_value(r))); break;
      case 6: line("v_fma_f32 " + d + ", " + src3(r, true) + ", " + v(ready_value(r)) + ", " + src3(r, true)); break;
      case 7: line("v_mov_b32 " + d + ", " + src0(r)); break;
      case 8: line("v_add_u32 " + d + ", " + v(ready_value(r)) + ", " + d); break;  // accumulate
      default: line("v_xor_b32 " + d + ", " + src0(r) + ", " + d); break;
    }
  }

  /// A VALU chain of `n` steps; `variant` (2 bits per step) picks a plain op, a dead write, a redundant move or a
  /// fusable pair.
  void valu_chain(SegRng& r, unsigned n, unsigned variant) {
    for (unsigned i = 0; i < n; ++i) {
      const unsigned dst = ready_value(r);
      switch ((variant >> (2 * (i % 4))) & 3u) {
        case 1:  // a dead write: overwritten at once without being read (dst is not read by the next op)
          line("v_mov_b32 " + v(dst) + ", " + src0(r));
          line("v_mul_lo_u32 " + v(dst) + ", " + src3(r, false) + ", " + v(other_than(r, dst)));
          break;
        case 2: {  // a redundant move pair (the second copies what the first did) or a self move
          const unsigned src = other_than(r, dst);
          line("v_mov_b32 " + v(dst) + ", " + v(src));
          line(r.chance(50) ? "v_mov_b32 " + v(dst) + ", " + v(src) : "v_mov_b32 " + v(dst) + ", " + v(dst));
          break;
        }
        case 3: idiom(r, dst); break;
        default: valu_op(r, dst); break;
      }
    }
  }
  /// A pair compilers emit for address and mask arithmetic, through `dst` (so the temporary dies at once): the
  /// shapes a peephole fuses (shift+add, add+shift, add+add, and+or, or+or).
  void idiom(SegRng& r, unsigned dst) {
    const std::string d = v(dst), x = v(ready_value(r)), y = v(other_than(r, dst));
    const std::string k = std::to_string(1 + r.below(6));
    switch (r.below(5)) {
      case 0: line("v_lshlrev_b32 " + d + ", " + k + ", " + x); line("v_add_u32 " + d + ", " + d + ", " + y); break;
      case 1: line("v_add_u32 " + d + ", " + x + ", " + y); line("v_lshlrev_b32 " + d + ", " + k + ", " + d); break;
      case 2: line("v_add_u32 " + d + ", " + x + ", " + y); line("v_add_u32 " + d + ", " + src0(r) + ", " + d); break;
      case 3: line("v_and_b32 " + d + ", " + src0(r) + ", " + x); line("v_or_b32 " + d + ", " + d + ", " + y); break;
      default: line("v_or_b32 " + d + ", " + x + ", " + y); line("v_or_b32 " + d + ", " + src0(r) + ", " + d); break;
    }
  }
  unsigned other_than(SegRng& r, unsigned x) {
    for (int k = 0; k < 64; ++k)
      if (const unsigned y = ready_value(r); y != x) return y;
    return x;  // 12 or more registers are free: practically unreachable, and still a valid program
  }

  /// `choice` % 8: 0-2 one dword, 3-4 dwordx2, 5 dwordx4, 6-7 a split pair: two loads of adjacent bytes into
  /// adjacent registers with the same address operands (what a load-widening pass merges).
  void global_load(SegRng& r, unsigned choice) {
    static constexpr unsigned widths[] = {1, 1, 1, 2, 2, 4, 1, 2};
    const unsigned n = widths[choice % 8];
    const unsigned parts = choice % 8 >= 6 ? 2 : 1;
    if (pending_values() + n * parts > kMaxPendingValues) return;
    const unsigned dst = ready_tuple(r, n * parts);
    if (!dst) return;
    make_room();
    const unsigned off = 4 * r.below((kInBytesPerLane - 4 * n * parts) / 4 + 1);
    const std::string mn = n == 1 ? "global_load_dword " : n == 2 ? "global_load_dwordx2 " : "global_load_dwordx4 ";
    const std::string addr = r.chance(50) ? v(1) + ", s[0:1]" : "v[6:7], off";
    for (unsigned k = 0; k < parts; ++k) {
      const unsigned o = off + 4 * n * k;
      line(mn + vr(dst + n * k, n) + ", " + addr + (o ? " offset:" + std::to_string(o) : std::string()));
      vm_.push_back({dst + n * k, n, false, false});
      mark(vm_.back(), true);
    }
  }

  void use(SegRng& r, unsigned variant) {
    const std::size_t total = vm_.size() + lgkm_.size();
    if (total == 0) {
      valu_chain(r, 1, 0);
      return;
    }
    const std::size_t pick = r.below(static_cast<unsigned>(total));
    const bool precise = (variant & 1) == 0;
    if (pick < vm_.size()) {
      const Pending p = vm_[pick];
      wait_vm_for(pick, precise);
      const unsigned got = p.first + r.below(p.count);
      const unsigned dst = r.chance(30) ? got : ready_value(r);
      use_vector(r, dst, got);
      return;
    }
    const std::size_t li = pick - vm_.size();
    const Pending p = lgkm_[li];
    wait_lgkm_for(li, precise);
    if (p.scalar) {
      use_scalar(r, p.first + r.below(p.count));
    } else {
      use_vector(r, ready_value(r), p.first);
    }
  }
  void use_vector(SegRng& r, unsigned dst, unsigned got) {
    switch (r.below(4)) {
      case 0: line("v_add_u32 " + v(dst) + ", " + v(got) + ", " + v(ready_value(r))); break;
      case 1: line("v_fma_f32 " + v(dst) + ", " + v(got) + ", " + src3(r, true) + ", " + v(ready_value(r))); break;
      case 2: line("v_xor_b32 " + v(dst) + ", " + src0(r) + ", " + v(got)); break;
      default: line("v_mul_lo_u32 " + v(dst) + ", " + v(got) + ", " + v(got)); break;
    }
  }
  /// SALU on an SMEM result, then into a value register through the constant bus.
  void use_scalar(SegRng& r, unsigned sreg) {
    const unsigned t = 24 + r.below(4);
    static constexpr const char* salu[] = {"s_add_u32", "s_mul_i32", "s_xor_b32", "s_and_b32", "s_lshl_b32"};
    line(std::string(salu[r.below(5)]) + " " + s(t) + ", " + s(sreg) + ", " + s(6 + r.below(2)));
    if (r.chance(50)) line("s_add_u32 " + s(t) + ", " + s(t) + ", " + std::to_string(r.below(65)));
    const unsigned dst = ready_value(r);
    line((r.chance(50) ? "v_add_u32 " : "v_xor_b32 ") + v(dst) + ", " + s(t) + ", " + v(dst));
  }

  void smem(SegRng& r, unsigned width_choice) {
    const unsigned n = width_choice % 2 ? 2 : 1;
    unsigned dst = 0;
    for (int tries = 0; tries < 16 && !dst; ++tries) {
      unsigned x = 8 + r.below(12 - n + 1);
      if (n == 2) x &= ~1u;
      bool ok = x >= 8;
      for (unsigned k = 0; ok && k < n; ++k) ok = !spend_[x + k];
      if (ok) dst = x;
    }
    if (!dst) return;
    make_room();
    const unsigned off = 4 * r.below((kSmemBytes - 4 * n) / 4 + 1);
    line(std::string(n == 1 ? "s_load_dword " : "s_load_dwordx2 ") +
         (n == 1 ? s(dst) : "s[" + std::to_string(dst) + ":" + std::to_string(dst + 1) + "]") + ", s[4:5], 0x" +
         to_hex(off).substr(5));
    lgkm_.push_back({dst, n, true, true});
    mark(lgkm_.back(), true);
  }

  /// LDS phase: every wave writes its lanes' words of a fresh region, waits for its writes, meets the others at the
  /// barrier, then reads a neighbour lane's word (perhaps another wave's), left outstanding for a later use.
  void lds(SegRng& r, unsigned size) {
    const unsigned region_bytes = lanes() * 4;
    const unsigned writes = 1 + size % 2;
    if ((lds_regions_ + writes) * region_bytes > 65535 - region_bytes) return;  // ds offset is 16 bits
    if (pending_values() + writes > kMaxPendingValues) return;
    make_room();
    std::array<unsigned, 2> region{};
    for (unsigned w = 0; w < writes; ++w) {
      region[w] = lds_regions_++ * region_bytes;
      line("ds_write_b32 " + v(3) + ", " + v(ready_value(r)) +
           (region[w] ? " offset:" + std::to_string(region[w]) : std::string()));
    }
    // MI300 ISA §4.4: LDS writes complete before the barrier only once lgkmcnt says so.
    line("s_waitcnt lgkmcnt(0)");
    retire_lgkm(0);
    line("s_barrier");
    // Two reads either from independent addresses and registers, or (size & 4) from one address register into an
    // aligned register pair (what ds_read2_b32 does in one instruction).
    const bool paired = writes == 2 && (size & 4);
    const unsigned pair = paired ? ready_tuple(r, 2) : 0;
    const std::string pair_addr = r.chance(75) ? v(4) : v(3);
    for (unsigned w = 0; w < writes; ++w) {
      const unsigned dst = pair ? pair + w : ready_value(r);
      const std::string addr = pair ? pair_addr : r.chance(75) ? v(4) : v(3);
      const std::string off = region[w] ? " offset:" + std::to_string(region[w]) : std::string();
      line("ds_read_b32 " + v(dst) + ", " + addr + off);
      lgkm_.push_back({dst, 1, false, false});
      mark(lgkm_.back(), true);
    }
  }

  /// v_cmp then s_and_saveexec_b64 s[20:21]; a VALU body (with a waited-for load when there is no skip branch);
  /// s_or_b64 exec, exec, s[20:21].
  void exec_region(SegRng& r, unsigned size, unsigned variant) {
    static constexpr const char* cmps[] = {"lt", "gt", "eq", "ne", "le", "ge"};
    const std::string cmp = std::string("v_cmp_") + cmps[r.below(6)] + "_u32 ";
    const bool e64 = variant & 2;
    const bool skip = variant & 1;
    const bool load = !skip && (variant & 4);
    if (e64) {
      line(cmp + "s[26:27], " + v(ready_value(r)) + ", " + v(ready_value(r)));
      line("s_and_saveexec_b64 s[20:21], s[26:27]");
    } else {
      line(cmp + "vcc, " + src0(r) + ", " + v(ready_value(r)));
      line("s_and_saveexec_b64 s[20:21], vcc");
    }
    const std::string label = "L_skip" + std::to_string(labels_++);
    if (skip) line("s_cbranch_execz " + label);
    valu_chain(r, 1 + size % 6, variant >> 3);
    if (load) {
      global_load(r, r.below(4));
      wait_vm_for(vm_.size() - 1, false);
      valu_chain(r, 1, 0);
    }
    if (skip) out_ += label + ":\n";
    line("s_or_b64 exec, exec, s[20:21]");
  }

  /// MFMA chain: A/B in v[42:43] / v[44:45] from value registers, accumulators zeroed (AGPRs or v[48:63]), `n`
  /// dependent MFMAs, then a few accumulator dwords read into value registers.
  void mfma(SegRng& r, unsigned size, unsigned variant) {
    const bool big = variant & 1;  // 32x32x8 f16 (16 passes, 16 accumulator dwords) vs 16x16x16 f16 (8 passes, 4)
    const bool agpr = !(variant & 2);
    const unsigned accs = big ? 16 : 4;
    const std::string mn = big ? (t_ == Target::gfx90a ? "v_mfma_f32_32x32x8f16 " : "v_mfma_f32_32x32x8_f16 ")
                               : (t_ == Target::gfx90a ? "v_mfma_f32_16x16x16f16 " : "v_mfma_f32_16x16x16_f16 ");
    for (unsigned k = 0; k < 4; ++k) line("v_mov_b32 " + v(42 + k) + ", " + v(ready_value(r)));
    for (unsigned k = 0; k < accs; ++k) {
      const std::string init = k == 0 && r.chance(50) ? v(ready_value(r)) : "0";
      if (agpr) line("v_accvgpr_write_b32 a" + std::to_string(k) + ", " + init);
      else line("v_mov_b32 " + v(48 + k) + ", 0");
    }
    // A VALU (or v_accvgpr_write) result read by an MFMA as SrcA/B/C: 2 wait states on gfx90a/gfx940 (LLVM
    // checkMAIHazards90A / GFX940 VALUWriteVGPR -> MFMA read); padded with 2..4.
    line("s_nop " + std::to_string(1 + r.below(3)));
    const std::string acc = agpr ? (big ? "a[0:15]" : "a[0:3]") : (big ? "v[48:63]" : "v[48:51]");
    const unsigned n = 1 + size % 3;
    for (unsigned i = 0; i < n; ++i) {
      const bool swap = r.chance(30);
      line(mn + acc + ", " + (swap ? "v[44:45], v[42:43], " : "v[42:43], v[44:45], ") + acc);
    }
    // An MFMA result read by a VALU or v_accvgpr_read: passes + 2 wait states at most (16 passes -> 18; LLVM
    // checkMAIVALUHazards XDL write VGPR -> VALU read). Padded with 24 or 32 (s_nop 7 = 8 wait states).
    const unsigned nops = (big ? 3 : 2) + r.below(2);
    for (unsigned k = 0; k < nops; ++k) line("s_nop 7");
    const unsigned reads = 2 + r.below(3);
    for (unsigned k = 0; k < reads; ++k) {
      const unsigned a = r.below(accs);
      const unsigned dst = ready_value(r);
      if (agpr) line("v_accvgpr_read_b32 " + v(dst) + ", a" + std::to_string(a));
      else line("v_mov_b32 " + v(dst) + ", " + v(48 + a));
    }
  }

  /// A counted loop (1..4 trips, so the body always runs): VALU accumulation, and sometimes a load waited for
  /// inside the body (vmcnt(0): nothing the body issues is outstanding at the back edge). Half of the loops with a
  /// load stream instead (1..9 trips, the shape software-pipeline takes): loads into v46 (and v47), which no value
  /// register holds, added into a value register; one load at a fixed address, two, or one whose address the loop
  /// steps (v47 = v1 + 4 * s30).
  void loop(SegRng& r, unsigned size, unsigned variant) {
    const bool stream = (variant & 1) && r.chance(50);
    const unsigned trips = 1 + r.below(stream ? 9 : 4);
    const std::string label = "L_loop" + std::to_string(labels_++);
    line("s_mov_b32 s30, " + std::to_string(trips));
    out_ += label + ":\n";
    valu_chain(r, 1 + size % 5, variant >> 2);
    if (stream) {
      make_room();
      const unsigned mode = r.below(3);
      const std::string fixed = r.chance(50) ? v(1) + ", s[0:1]" : std::string("v[6:7], off");
      auto offset = [&](unsigned max_bytes) {
        const unsigned off = 4 * r.below(max_bytes / 4 + 1);
        return off ? " offset:" + std::to_string(off) : std::string();
      };
      if (mode == 2) {  // 4 * s30 <= 36 bytes past v1, so the offset stays below 24 to keep inside the lane's 64
        line("v_lshl_add_u32 v47, s30, 2, v1");
        line("global_load_dword v46, v47, s[0:1]" + offset(24));
      } else {
        line("global_load_dword v46, " + fixed + offset(kInBytesPerLane - 4));
        if (mode == 1) line("global_load_dword v47, " + fixed + offset(kInBytesPerLane - 4));
      }
      for (const unsigned reg : mode == 1 ? std::vector<unsigned>{46, 47} : std::vector<unsigned>{46}) {
        vm_.push_back({reg, 1, false, false});
        mark(vm_.back(), true);
      }
      wait_vm_for(vm_.size() - 1, false);
      const unsigned a = ready_value(r);
      line("v_add_u32 " + v(a) + ", v46, " + v(a));
      if (mode == 1) line("v_add_u32 " + v(a) + ", v47, " + v(a));
    } else if (variant & 1) {
      global_load(r, r.below(4));
      wait_vm_for(vm_.size() - 1, false);
      valu_chain(r, 1, 0);
    }
    if (variant & 2) {  // an accumulation the loop carries
      const unsigned a = ready_value(r);
      line("v_add_u32 " + v(a) + ", s30, " + v(a));
    }
    line("s_sub_u32 s30, s30, 1");
    line("s_cmp_lg_u32 s30, 0");
    line("s_cbranch_scc1 " + label);
  }

  void lane(SegRng& r, unsigned variant) {
    // gfx940+: a VGPR a VALU wrote, read by v_readlane: 1 wait state (valu_vgpr_readlane, LLVM checkVALUHazards).
    if (gfx940_plus()) line("s_nop 0");
    line("v_readlane_b32 s31, " + v(ready_value(r)) + ", " + std::to_string(r.below(64)));
    // gfx940+: an SGPR a VALU wrote, read by a VALU: 2 wait states (LLVM checkVALUHazards,
    // VALUWriteSGPRVALUReadWaitstates); gfx90a needs none, the padding is then work for a nop pass.
    if (gfx940_plus() || (variant & 1)) line("s_nop 1");
    if (variant & 2) {
      line("s_add_u32 s31, s31, s7");
      const unsigned dst = ready_value(r);
      line("v_add_u32 " + v(dst) + ", s31, " + v(dst));
    } else {
      line("v_writelane_b32 " + v(ready_value(r)) + ", s31, " + std::to_string(r.below(64)));
    }
  }

  void extra_wait(SegRng& r, unsigned variant) {
    if ((variant & 1) && !vm_.empty()) {  // stronger than needed: retires everything outstanding on vmcnt
      wait_vm_for(vm_.size() - 1, false);
      return;
    }
    // A count no lower than what is outstanding: waits for nothing.
    const std::size_t vm_keep = vm_.size() + r.below(3);
    const std::size_t lgkm_keep = std::min<std::size_t>(15, lgkm_.size() + r.below(3));
    line("s_waitcnt vmcnt(" + std::to_string(vm_keep) + ") lgkmcnt(" + std::to_string(lgkm_keep) + ")");
  }

  /// A VALU writes a value register and a DPP move reads it (vgpr_write_dpp_read: 2 wait states, MI300 ISA §4.5).
  /// The wait states are what compiled code shows between such a pair: an s_nop, an s_waitcnt that waits for nothing
  /// (it still takes an issue slot: a wait state), or an unrelated VALU. A pass that drops one of them breaks the rule.
  void dpp(SegRng& r, unsigned variant) {
    const unsigned a = ready_value(r);
    unsigned d = ready_value(r);
    for (int k = 0; k < 8 && d == a; ++k) d = ready_value(r);
    if (d == a && variant % 4 == 3) variant -= 1;  // the unrelated VALU must write another register than the DPP source
    if (variant & 4) line("v_max3_f32 " + v(a) + ", " + src3(r, true) + ", " + src3(r, true) + ", " + v(a));
    else line("v_add_u32 " + v(a) + ", " + src0(r) + ", " + v(a));
    const auto nothing = [&] {  // counts no lower than what is outstanding
      line("s_waitcnt vmcnt(" + std::to_string(std::min<std::size_t>(63, vm_.size() + 1)) + ") lgkmcnt(" +
           std::to_string(std::min<std::size_t>(15, lgkm_.size() + 1)) + ")");
    };
    switch (variant % 4) {
      case 0: line("s_nop 1"); break;
      case 1: nothing(); line("s_nop 0"); break;
      case 2: nothing(); nothing(); break;
      default: nothing(); line("v_xor_b32 " + v(d) + ", " + src0(r) + ", " + v(d)); break;
    }
    static constexpr const char* ctrl[] = {"row_shr:1", "row_ror:7", "quad_perm:[1,0,3,2]", "row_mirror"};
    line("v_mov_b32_dpp " + v(d) + ", " + v(a) + " " + ctrl[r.below(4)] + " row_mask:0xf bank_mask:0xf" +
         (r.chance(50) ? " bound_ctrl:0" : ""));
  }

  void segment(const Segment& g) {
    SegRng r(g.seed);
    switch (g.kind) {
      case SegKind::global_load: global_load(r, g.size); break;
      case SegKind::use: use(r, g.variant); break;
      case SegKind::lds: lds(r, g.size); break;
      case SegKind::smem: smem(r, g.size); break;
      case SegKind::valu: valu_chain(r, 1 + g.size % 8, g.variant); break;
      case SegKind::exec_region: exec_region(r, g.size, g.variant); break;
      case SegKind::mfma: mfma(r, g.size, g.variant); break;
      case SegKind::loop: loop(r, g.size, g.variant); break;
      case SegKind::lane: lane(r, g.variant); break;
      case SegKind::nop: line("s_nop " + std::to_string(g.size % 8)); break;
      case SegKind::wait: extra_wait(r, g.variant); break;
      case SegKind::dpp: dpp(r, g.variant); break;
      case SegKind::count_: break;
    }
  }

  void prologue() {
    SegRng r(spec_.seed);
    line("v_lshlrev_b32 v1, 6, v0");  // input byte offset: kInBytesPerLane per lane
    line("v_lshlrev_b32 v2, 7, v0");  // output byte offset: kOutBytesPerLane per lane
    line("v_lshlrev_b32 v3, 2, v0");  // own LDS word
    // The neighbour lane: (id + 1) mod lanes, with v_cmp/v_cndmask so that 3 waves (192 lanes) work too.
    line("v_add_u32 v4, 1, v0");
    line("v_cmp_ne_u32 vcc, " + std::to_string(lanes()) + ", v4");
    line("s_nop 1");  // gfx940+: VCC written by a VALU, read as a mask by a VALU: 2 wait states
    line("v_cndmask_b32 v4, 0, v4, vcc");
    line("v_lshlrev_b32 v4, 2, v4");
    // 64-bit addresses for the `off` forms: base + offset with carry (the buffers straddle 4 GiB boundaries).
    line("v_mov_b32 v7, s1");
    line("v_add_co_u32 v6, vcc, s0, v1");
    line("s_nop 1");  // carry-in VCC from a VALU: 2 wait states on gfx940+
    line("v_addc_co_u32 v7, vcc, 0, v7, vcc");
    line("v_mov_b32 v9, s3");
    line("v_add_co_u32 v8, vcc, s2, v2");
    line("s_nop 1");
    line("v_addc_co_u32 v9, vcc, 0, v9, vcc");
    // Every value register starts defined (a masked write keeps inactive lanes); some of these are dead.
    for (unsigned k = 0; k < kValues; ++k) {
      const std::string d = v(kValue0 + k);
      switch (r.below(6)) {
        case 0: line("v_mov_b32 " + d + ", " + s(6 + r.below(2))); break;
        case 1: line("v_add_u32 " + d + ", " + s(6 + r.below(2)) + ", v0"); break;
        case 2: line("v_mul_u32_u24 " + d + ", " + std::to_string(1 + r.below(64)) + ", v0"); break;
        case 3: line("v_xor_b32 " + d + ", 0x" + to_hex(static_cast<std::uint32_t>(r.next()) | 0x100u) + ", v0"); break;
        case 4: line("v_cvt_f32_u32 " + d + ", v0"); break;
        default: line("v_mov_b32 " + d + ", " + std::to_string(static_cast<int>(r.below(81)) - 16)); break;
      }
    }
  }

  void epilogue() {
    wait_all();
    for (unsigned k = 0; k < kValues; ++k) {
      const std::string off = k ? " offset:" + std::to_string(4 * k) : std::string();
      if (k % 3 == 2) line("global_store_dword v[8:9], " + v(kValue0 + k) + ", off" + off);
      else line("global_store_dword v2, " + v(kValue0 + k) + ", s[2:3]" + off);
    }
    line("s_endpgm");
  }
};

}  // namespace detail

/// The text of `spec` (see the file comment for its layout).
[[nodiscard]] inline std::string emit_program(const ProgramSpec& spec) { return detail::Emitter(spec).run(); }

/// Emits and parses `spec`.
[[nodiscard]] inline RandomProgram make_random_program(ProgramSpec spec) {
  RandomProgram p;
  p.text = emit_program(spec);
  p.spec = std::move(spec);
  auto parsed = parse_program(p.text, p.spec.target, "<random>");
  if (parsed) p.program = std::move(*parsed);
  else p.parse_error = parsed.error().message + " (line " + std::to_string(parsed.error().loc.line) + ")";
  return p;
}

/// One segment, field by field. The kind's weights favour loads with their uses, LDS phases, SMEM and VALU chains
/// (what STYLE.md asks the generators to stress); the rest keep every other shape present in most programs.
[[nodiscard]] inline rc::Gen<Segment> gen_segment() {
  using K = SegKind;
  return rc::gen::build<Segment>(
      rc::gen::set(&Segment::kind, rc::gen::weightedElement<SegKind>({{18, K::global_load},
                                                                      {16, K::use},
                                                                      {8, K::lds},
                                                                      {8, K::smem},
                                                                      {16, K::valu},
                                                                      {9, K::exec_region},
                                                                      {7, K::mfma},
                                                                      {7, K::loop},
                                                                      {4, K::lane},
                                                                      {4, K::nop},
                                                                      {3, K::wait},
                                                                      {3, K::dpp}})),
      // Full-range fields whatever the size: rapidcheck's inRange and arbitrary scale with it, and the program's
      // length (gen_program_spec) already takes the size; shrinking still moves each toward 0.
      rc::gen::set(&Segment::size, rc::gen::resize(100, rc::gen::inRange(0u, 8u))),
      rc::gen::set(&Segment::variant, rc::gen::resize(100, rc::gen::inRange(0u, 256u))),
      rc::gen::set(&Segment::seed, rc::gen::resize(100, rc::gen::arbitrary<std::uint32_t>())));
}

/// A program for `target` (any of gfx90a/gfx942/gfx950 when empty) of 1..4 waves and 0..~35 segments.
[[nodiscard]] inline rc::Gen<ProgramSpec> gen_program_spec(std::vector<Target> targets = {}) {
  if (targets.empty()) targets = {Target::gfx90a, Target::gfx942, Target::gfx950};
  return rc::gen::build<ProgramSpec>(
      rc::gen::set(&ProgramSpec::target, rc::gen::elementOf(targets)),
      // One wave is the common case; several exercise the barrier and cross-wave LDS reads.
      rc::gen::set(&ProgramSpec::waves, rc::gen::weightedElement<unsigned>({{4, 1u}, {2, 2u}, {1, 3u}, {2, 4u}})),
      rc::gen::set(&ProgramSpec::segments,
                   rc::gen::scale(0.35, rc::gen::container<std::vector<Segment>>(gen_segment()))),
      rc::gen::set(&ProgramSpec::seed, rc::gen::resize(100, rc::gen::arbitrary<std::uint32_t>())));
}

[[nodiscard]] inline rc::Gen<RandomProgram> gen_random_program(std::vector<Target> targets = {}) {
  return rc::gen::map(gen_program_spec(std::move(targets)),
                      [](ProgramSpec s) { return make_random_program(std::move(s)); });
}

// rapidcheck prints generated values through showValue (found by ADL).
inline void showValue(const Segment& s, std::ostream& os) {
  os << to_string(s.kind) << "(size " << s.size << ", variant " << s.variant << ", seed " << s.seed << ")";
}
inline void showValue(const RandomProgram& p, std::ostream& os) {
  os << to_string(p.spec.target) << ", " << p.spec.waves << " wave(s), prologue seed " << p.spec.seed << ", "
     << p.spec.segments.size() << " segments:";
  for (const auto& s : p.spec.segments) {
    os << "\n  ";
    showValue(s, os);
  }
  os << "\n" << p.text;
  if (!p.parse_error.empty()) os << "parse error: " << p.parse_error << "\n";
}

}  // namespace asmevo::test
