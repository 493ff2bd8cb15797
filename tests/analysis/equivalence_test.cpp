// Tests of analysis/equivalence.hpp (and the known bits it rests on, analysis/known_bits.hpp) on hand-written gfx942
// snippets: each kind of proof on an edit that is equivalent under the stated launch, and the closest edit that is not
// (which must stay unproven). Every verdict is derived by hand in the comment above it; a launch fact the proof needs
// is varied to show the same edit becoming unprovable. Corpus part: verify/launch_facts.hpp on a Triton kernel, whose
// scalar argument the known bits must see with the launch file's value, and two mutants of it.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "asmevo/analysis/equivalence.hpp"
#include "asmevo/analysis/known_bits.hpp"
#include "asmevo/codeobject/module.hpp"
#include "asmevo/ir/parser.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/verify/code_object.hpp"
#include "asmevo/verify/launch_facts.hpp"
#include "asmevo/verify/launch_spec.hpp"
#include "asmevo/verify/mutate.hpp"
#include "support/corpus.hpp"

namespace asmevo::analysis {
namespace {

/// `text` contains `part` (for messages: the reason is printed on failure by the caller).
bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

Program parse(const std::string& text) {
  auto p = parse_program(text, Target::gfx942, "<equivalence_test>");
  EXPECT_TRUE(p.has_value()) << (p ? std::string{} : p.error().message);
  return p ? std::move(*p) : Program{};
}

/// `text` with the first occurrence of `from` replaced by `to` (the test fails if there is none).
std::string edit(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "no '" << from << "' to edit";
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

/// The launch of these snippets: s[0:1] = kernarg segment address, s2 = workgroup id x (< grid x), s[4:5] =
/// dispatch packet address; the kernarg segment holds a pointer at 0 (unknown) and n = 1000 at 8.
LaunchFacts facts(std::array<std::uint32_t, 3> block = {256, 1, 1}, std::array<std::uint32_t, 3> grid = {4, 1, 1}) {
  LaunchFacts f;
  f.entry = "k";
  f.block = block;
  f.grid = grid;
  using K = LaunchFacts::SgprKind;
  f.sgprs = {{0, K::kernarg_lo, 0, ~0u}, {1, K::kernarg_hi, 0, ~0u}, {2, K::below, grid[0], ~0u},
             {4, K::dispatch_lo, 0, ~0u}, {5, K::dispatch_hi, 0, ~0u}};
  f.kernarg.bytes.assign(16, 0);
  f.kernarg.known.assign(16, 0);
  const std::uint32_t n = 1000;
  for (unsigned i = 0; i < 4; ++i) f.kernarg.bytes[8 + i] = static_cast<std::uint8_t>(n >> (8 * i)), f.kernarg.known[8 + i] = 0xff;
  f.dispatch.bytes.assign(64, 0);
  f.dispatch.known.assign(64, 0);
  for (unsigned d = 0; d < 3; ++d) {
    f.dispatch.bytes[4 + 2 * d] = static_cast<std::uint8_t>(block[d]);
    f.dispatch.bytes[5 + 2 * d] = static_cast<std::uint8_t>(block[d] >> 8);
    f.dispatch.known[4 + 2 * d] = f.dispatch.known[5 + 2 * d] = 0xff;
  }
  return f;
}

ProofResult prove(const std::string& k0, const std::string& k1, const LaunchFacts& f = facts(), ProofBudget b = {}) {
  const Program p0 = parse(k0), p1 = parse(k1);
  return prove_equivalent(p0, p1, std::nullopt, f, b);
}

/// K0 with the instructions printed as `order` (which appear in K0, in some other order) put in that order, keeping
/// their ids (as a swap does).
ProofResult prove_reordered(const std::string& k0, const std::vector<std::string>& order, const LaunchFacts& f = facts()) {
  const Program p0 = parse(k0);
  Program p1 = p0;
  std::vector<std::size_t> at;
  std::vector<Inst> insts;
  for (std::size_t i = 0; i < p0.items.size(); ++i)
    if (p0.items[i].kind == Item::Kind::inst &&
        std::find(order.begin(), order.end(), print_inst(p0.items[i].inst)) != order.end())
      at.push_back(i);
  EXPECT_EQ(at.size(), order.size()) << "not every instruction to reorder is in K0";
  for (const auto& text : order)
    for (std::size_t i : at)
      if (print_inst(p0.items[i].inst) == text) insts.push_back(p0.items[i].inst);
  for (std::size_t k = 0; k < at.size() && k < insts.size(); ++k) p1.items[at[k]].inst = insts[k];
  return prove_equivalent(p0, p1, std::nullopt, f);
}

/// K0 and K0 without the instruction printed as `inst`, keeping every other instruction's id (as an edit does).
ProofResult prove_deleted(const std::string& k0, const std::string& inst, const LaunchFacts& f = facts()) {
  const Program p0 = parse(k0);
  Program p1 = p0;
  bool found = false;
  for (auto it = p1.items.begin(); it != p1.items.end(); ++it)
    if (it->kind == Item::Kind::inst && print_inst(it->inst) == inst) {
      p1.items.erase(it);
      found = true;
      break;
    }
  EXPECT_TRUE(found) << "no instruction '" << inst << "'";
  return prove_equivalent(p0, p1, std::nullopt, f);
}

// ---- known bits --------------------------------------------------------------------------------------------------

// The index tid + 256 * wgid of a 256-wide block in a 4-group grid is below 1024: bits 31..10 known zero; n comes
// from the kernarg segment (1000); the dispatch packet's workgroup_size_x is 256 (bits 15..0 of dword 1).
TEST(KnownBits, LaunchFactsReachTheCode) {
  const Program p = parse(R"(
k:
  s_load_dword s8, s[0:1], 0x8
  s_load_dword s9, s[4:5], 0x4
  s_lshl_b32 s3, s2, 8
  v_add_u32_e32 v4, s3, v0
  s_waitcnt lgkmcnt(0)
  s_endpgm
)");
  const LaunchFacts f = facts();
  auto kb = KnownBits::analyze(p, f);
  ASSERT_TRUE(kb.has_value()) << kb.error().message;
  std::size_t end = 0;  // the s_endpgm item
  for (std::size_t i = 0; i < p.items.size(); ++i)
    if (p.items[i].kind == Item::Kind::inst && print_inst(p.items[i].inst) == "s_endpgm") end = i;
  const auto s = kb->state_before(end);
  ASSERT_TRUE(s.reached);
  const auto& s8 = s.units[8];
  EXPECT_EQ(s8.one, 1000u);
  EXPECT_EQ(s8.zero, ~1000u);
  const auto& s9 = s.units[9];
  EXPECT_EQ(s9.one & 0xffffu, 256u);   // workgroup_size_x
  EXPECT_EQ(s9.zero & 0xffffu, 0xfeffu);
  const auto& v4 = s.units[static_cast<std::size_t>(detail::kb_index(detail::unit_v0 + 4))];
  EXPECT_EQ(v4.zero, ~0x3ffu);  // < 1024
  EXPECT_EQ(v4.one, 0u);
  EXPECT_TRUE(KnownBits::exec_full(s));  // 256 work-items: four full waves
}

// ---- same value by known bits ------------------------------------------------------------------------------------

// v4 = 256 * wgid + tid < 1024, so v4 >> 31 and v4 >> 15 (arithmetic) are both 0.
constexpr const char* kShift = R"(
k:
  s_load_dwordx2 s[6:7], s[0:1], 0x0
  s_lshl_b32 s3, s2, 8
  v_add_u32_e32 v4, s3, v0
  v_ashrrev_i32_e32 v5, 31, v4
  v_lshlrev_b64 v[4:5], 2, v[4:5]
  s_waitcnt lgkmcnt(0)
  v_lshl_add_u64 v[4:5], s[6:7], 0, v[4:5]
  global_store_dword v[4:5], v1, off
  s_endpgm
)";

TEST(Equivalence, ShiftOfKnownNonNegativeIndex) {
  const auto r = prove(kShift, edit(kShift, "31, v4", "15, v4"));
  EXPECT_TRUE(r.proven) << r.reason;
  EXPECT_TRUE(has(r.reason, "same value")) << r.reason;
  EXPECT_TRUE(has(r.reason, "v4[31:10]=0")) << r.reason;
}

// With 256 workgroups v4 reaches 65535: bit 15 may be set, so ashr 15 may give 1 where ashr 31 gives 0.
TEST(Equivalence, ShiftNeedsTheGridBound) {
  const auto r = prove(kShift, edit(kShift, "31, v4", "15, v4"), facts({256, 1, 1}, {256, 1, 1}));
  EXPECT_FALSE(r.proven) << r.reason;
  EXPECT_TRUE(has(r.reason, "i7")) << r.reason;  // the store is where the difference shows
}

// v4 = tid - 256 * wgid may be negative. With 4 workgroups it lies in [-768, 255]: bits 31..15 are all copies of the
// sign, so ashr 15 still equals ashr 31. With 256 workgroups it reaches -65280 (0xffff0100): ashr 15 gives -2 where
// ashr 31 gives -1.
TEST(Equivalence, IndexThatMayBeNegative) {
  const std::string k0 = edit(kShift, "v_add_u32_e32 v4, s3, v0", "v_subrev_u32_e32 v4, s3, v0");
  const auto small = prove(k0, edit(k0, "31, v4", "15, v4"));
  EXPECT_TRUE(small.proven) << small.reason;
  const auto large = prove(k0, edit(k0, "31, v4", "15, v4"), facts({256, 1, 1}, {256, 1, 1}));
  EXPECT_FALSE(large.proven) << large.reason;
}

// s6 = dword 1 of the dispatch packet = workgroup_size_x | workgroup_size_y << 16 = 256 | 1 << 16: bit 0 is 0, so
// masking with 0xfffe instead of 0xffff changes nothing. With a block of 255 work-items bit 0 is 1.
constexpr const char* kMask = R"(
k:
  s_load_dword s6, s[4:5], 0x4
  s_waitcnt lgkmcnt(0)
  s_and_b32 s7, s6, 0xffff
  v_mul_lo_u32 v2, s7, v0
  global_store_dword v[8:9], v2, off
  s_endpgm
)";

TEST(Equivalence, DispatchPacketWorkgroupSize) {
  const auto r = prove(kMask, edit(kMask, "0xffff", "0xfffe"));
  EXPECT_TRUE(r.proven) << r.reason;
  EXPECT_TRUE(has(r.reason, "same value")) << r.reason;
  const auto odd = prove(kMask, edit(kMask, "0xffff", "0xfffe"), facts({255, 1, 1}, {4, 1, 1}));
  EXPECT_FALSE(odd.proven) << odd.reason;
}

// A raw buffer resource whose num_records (0x7ffffffe) is far above every offset (v1 = 4 * tid <= 1020): the range
// check passes for 0x7ffffffd too. With num_records 0x400 against 0x300 the last lanes' dwords may fall out of range
// in one and not the other.
constexpr const char* kBuffer = R"(
k:
  s_load_dwordx2 s[8:9], s[0:1], 0x0
  s_mov_b32 s10, 0x7ffffffe
  s_mov_b32 s11, 0x27000
  v_lshlrev_b32_e32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  s_and_b32 s9, s9, 0xffff
  buffer_load_dword v2, v1, s[8:11], 0 offen
  s_waitcnt vmcnt(0)
  global_store_dword v[4:5], v2, off
  s_endpgm
)";

TEST(Equivalence, BufferRangeAboveEveryOffset) {
  const auto r = prove(kBuffer, edit(kBuffer, "0x7ffffffe", "0x7ffffffd"));
  EXPECT_TRUE(r.proven) << r.reason;
  const std::string k0 = edit(kBuffer, "0x7ffffffe", "0x400");
  const auto small = prove(k0, edit(k0, "0x400", "0x300"));
  EXPECT_FALSE(small.proven) << small.reason;
}

// Triton's masked loads: lanes with tid >= 100 use offset 0x80000000, out of range for num_records 0x7ffffffe and
// 0x7ffffffd alike (those lanes read 0 in both). With 0x80000001 they would read memory instead.
TEST(Equivalence, BufferMaskedOffsetOutOfRangeInBoth) {
  const std::string k0 = edit(kBuffer, "  v_lshlrev_b32_e32 v1, 2, v0\n",
                              "  v_lshlrev_b32_e32 v1, 2, v0\n  v_cmp_gt_u32_e32 vcc, 0x64, v0\n"
                              "  v_bfrev_b32_e32 v3, 1\n  v_cndmask_b32_e32 v1, v3, v1, vcc\n");
  const auto r = prove(k0, edit(k0, "0x7ffffffe", "0x7ffffffd"));
  EXPECT_TRUE(r.proven) << r.reason;
  const auto bad = prove(k0, edit(k0, "0x7ffffffe", "0x80000001"));
  EXPECT_FALSE(bad.proven) << bad.reason;
}

// ---- swaps -------------------------------------------------------------------------------------------------------

// ashr v5 = v4 >> 31 then v[4:5] <<= 2, against v[4:5] <<= 2 then v5 = (v4 << 2) >> 31: with v4 < 2^10 both leave
// v4 << 2 and 0.
TEST(Equivalence, SwapWithTheSameCombinedEffect) {
  const auto r = prove_reordered(kShift, {"v_lshlrev_b64 v[4:5], 2, v[4:5]", "v_ashrrev_i32_e32 v5, 31, v4"});
  EXPECT_TRUE(r.proven) << r.reason;
  // With v4 loaded from memory (any value) bit 29 of v4 becomes bit 31 of v4 << 2: not the old sign.
  const std::string k0 = edit(kShift, "v_add_u32_e32 v4, s3, v0", "global_load_dword v4, v[10:11], off");
  const auto bad = prove_reordered(k0, {"v_lshlrev_b64 v[4:5], 2, v[4:5]", "v_ashrrev_i32_e32 v5, 31, v4"});
  EXPECT_FALSE(bad.proven) << bad.reason;
}

// A load and an ALU instruction that do not touch each other's registers commute; a load and a store to addresses
// that may be the same do not (the load may see the stored value or not).
constexpr const char* kLoadStore = R"(
k:
  global_load_dword v1, v[2:3], off
  v_add_u32_e32 v7, 1, v0
  v_mov_b32_e32 v10, 2
  global_store_dword v[4:5], v6, off
  v_mov_b32_e32 v11, 3
  s_waitcnt vmcnt(0)
  global_store_dword v[4:5], v1, off offset:4
  v_add_u32_e32 v7, v7, v10
  global_store_dword v[4:5], v7, off offset:8
  s_endpgm
)";

TEST(Equivalence, SwapOfLoadAndStore) {
  const auto alu = prove_reordered(kLoadStore, {"v_add_u32_e32 v7, 1, v0", "global_load_dword v1, v[2:3], off"});
  EXPECT_TRUE(alu.proven) << alu.reason;
  EXPECT_TRUE(has(alu.reason, "same value")) << alu.reason;
  const auto mem = prove_reordered(kLoadStore, {"global_store_dword v[4:5], v6, off", "v_add_u32_e32 v7, 1, v0",
                                                "v_mov_b32_e32 v10, 2", "global_load_dword v1, v[2:3], off"});
  EXPECT_FALSE(mem.proven) << mem.reason;
  EXPECT_TRUE(has(mem.reason, "memory")) << mem.reason;
}

// ---- dead results ------------------------------------------------------------------------------------------------

// v6 = 0 is overwritten under a full exec before anything reads it; if something reads it first, it is not dead.
constexpr const char* kDead = R"(
k:
  v_mov_b32_e32 v6, 0
  v_add_u32_e32 v7, 1, v0
  v_mov_b32_e32 v6, v7
  global_store_dword v[8:9], v6, off
  s_endpgm
)";

TEST(Equivalence, DeadWrite) {
  const auto r = prove(kDead, edit(kDead, "v6, 0", "v6, 16"));
  EXPECT_TRUE(r.proven) << r.reason;
  EXPECT_TRUE(has(r.reason, "v6")) << r.reason;
  const std::string k0 = edit(kDead, "v_add_u32_e32 v7, 1, v0", "v_add_u32_e32 v7, v6, v0");
  const auto read = prove(k0, edit(k0, "v6, 0", "v6, 16"));
  EXPECT_FALSE(read.proven) << read.reason;
  EXPECT_TRUE(has(read.reason, "i3")) << read.reason;  // the store of the value that depends on v6
}

// A result that reaches a store is never equivalent.
TEST(Equivalence, DifferenceReachesAStore) {
  constexpr const char* k0 = "k:\n  v_mov_b32_e32 v6, 0\n  global_store_dword v[8:9], v6, off\n  s_endpgm\n";
  const auto r = prove(k0, edit(k0, "v6, 0", "v6, 16"));
  EXPECT_FALSE(r.proven) << r.reason;
  EXPECT_TRUE(has(r.reason, "i1")) << r.reason;
}

// The overwrite happens under exec = (tid < 100): lanes 100..255 keep 0 (K0) or 16 (K1) and store it.
constexpr const char* kMasked = R"(
k:
  v_mov_b32_e32 v6, 0
  v_cmp_gt_u32_e32 vcc, 100, v0
  s_and_saveexec_b64 s[10:11], vcc
  v_mov_b32_e32 v6, v7
  s_or_b64 exec, exec, s[10:11]
  global_store_dword v[8:9], v6, off
  s_endpgm
)";

TEST(Equivalence, OverwriteUnderAnotherExec) {
  const auto r = prove(kMasked, edit(kMasked, "v6, 0", "v6, 16"));
  EXPECT_FALSE(r.proven) << r.reason;
}

// The vec_add pattern: v6 = 0 is the value of the lanes the masked load skips, and only those same lanes store:
// the lanes where K0 and K1 differ never store (exec at the store is a subset of the load's mask).
constexpr const char* kMaskedLoadStore = R"(
k:
  v_mov_b32_e32 v6, 0
  v_cmp_gt_u32_e32 vcc, 0x64, v0
  s_mov_b64 s[12:13], vcc
  s_and_saveexec_b64 s[10:11], s[12:13]
  s_cbranch_execz .Lskip
  global_load_dword v6, v[2:3], off
.Lskip:
  s_or_b64 exec, exec, s[10:11]
  s_and_saveexec_b64 s[10:11], s[12:13]
  s_cbranch_execz .Lend
  s_waitcnt vmcnt(0)
  v_add_f32_e32 v4, v6, v6
  global_store_dword v[8:9], v4, off
.Lend:
  s_endpgm
)";

TEST(Equivalence, MaskedLoadAndMaskedStore) {
  const auto r = prove(kMaskedLoadStore, edit(kMaskedLoadStore, "v6, 0", "v6, 16"));
  EXPECT_TRUE(r.proven) << r.reason;
  EXPECT_TRUE(has(r.reason, "never observed")) << r.reason;
  // Store under exec = (tid < 200): lanes 100..199 store v6 + v6 = 0 or 32.
  const std::string wide = edit(kMaskedLoadStore, "  s_and_saveexec_b64 s[10:11], s[12:13]\n  s_cbranch_execz .Lend",
                                "  v_cmp_gt_u32_e32 vcc, 0xc8, v0\n  s_and_saveexec_b64 s[10:11], vcc\n  s_cbranch_execz .Lend");
  const auto w = prove(wide, edit(wide, "v6, 0", "v6, 16"));
  EXPECT_FALSE(w.proven) << w.reason;
}

// With the symbolic phase cut off at once, the taint analysis alone shows the write dead (full exec overwrite), and
// refuses when the value is read first.
TEST(Equivalence, TaintAnalysisFallback) {
  ProofBudget tiny;
  tiny.max_steps = 1;
  const auto r = prove(kDead, edit(kDead, "v6, 0", "v6, 16"), facts(), tiny);
  EXPECT_TRUE(r.proven) << r.reason;
  EXPECT_TRUE(has(r.reason, "dead result")) << r.reason;
  const std::string k0 = edit(kDead, "v_add_u32_e32 v7, 1, v0", "v_add_u32_e32 v7, v6, v0");
  const auto read = prove(k0, edit(k0, "v6, 0", "v6, 16"), facts(), tiny);
  EXPECT_FALSE(read.proven) << read.reason;
  // Under a partial exec the taint analysis cannot kill the difference (inactive lanes keep it).
  const auto masked = prove(kMasked, edit(kMasked, "v6, 0", "v6, 16"), facts(), tiny);
  EXPECT_FALSE(masked.proven) << masked.reason;
}

// A loop whose trip count is a kernel argument: the write in the body is dead in every iteration; accumulating it
// into a stored sum is not.
constexpr const char* kLoop = R"(
k:
  s_load_dword s8, s[0:1], 0x8
  v_mov_b32_e32 v7, 0
  s_waitcnt lgkmcnt(0)
.Lloop:
  v_mov_b32_e32 v6, 0
  v_add_u32_e32 v6, 1, v0
  v_add_u32_e32 v7, v7, v6
  s_sub_u32 s8, s8, 1
  s_cmp_lg_u32 s8, 0
  s_cbranch_scc1 .Lloop
  global_store_dword v[8:9], v7, off
  s_endpgm
)";

TEST(Equivalence, LoopBody) {
  const auto r = prove(kLoop, edit(kLoop, "v6, 0", "v6, 16"));
  EXPECT_TRUE(r.proven) << r.reason;
  const std::string k0 = edit(kLoop, "v_add_u32_e32 v6, 1, v0", "v_add_u32_e32 v6, 1, v6");
  const auto acc = prove(k0, edit(k0, "v6, 0", "v6, 16"));
  EXPECT_FALSE(acc.proven) << acc.reason;
}

// ---- exec ----------------------------------------------------------------------------------------------------------

// tid < 256 holds in every lane of a 256-wide block, so the saveexec keeps exec all ones and the restore is a no-op;
// with tid < 100 the restore matters (the store would run on fewer lanes).
constexpr const char* kRestore = R"(
k:
  v_cmp_gt_u32_e32 vcc, 0x100, v0
  s_and_saveexec_b64 s[10:11], vcc
  v_add_u32_e32 v6, 1, v0
  s_or_b64 exec, exec, s[10:11]
  global_store_dword v[8:9], v6, off
  s_endpgm
)";

TEST(Equivalence, DeletedExecRestore) {
  const auto r = prove_deleted(kRestore, "s_or_b64 exec, exec, s[10:11]");
  EXPECT_TRUE(r.proven) << r.reason;
  const std::string k0 = edit(kRestore, "0x100, v0", "0x64, v0");
  const auto partial = prove_deleted(k0, "s_or_b64 exec, exec, s[10:11]");
  EXPECT_FALSE(partial.proven) << partial.reason;
}

// A Triton store epilogue: column base c = 32 * tid (low five bits 0), bound n unknown (kernarg bytes 12..15), one
// store per column under exec = E & (c + k < n), E restored in between. Dropping the first restore leaves
// exec = E & (c|8 < n) at the second compare, so the second store runs under E & (c|8 < n) & (c|9 < n), which is
// E & (c|9 < n) because c|9 = (c|8) + 1 (no wrap: signed c|9 < n). Neither the compares' terms nor the masks are
// the same terms on the two sides; the proof needs the SAT query on the compare circuits. With c|7 second, the
// first compare does not follow (n = c + 8), and the proof must fail.
constexpr const char* kChain = R"(
k:
  s_load_dwordx2 s[8:9], s[0:1], 0x0
  s_load_dword s10, s[0:1], 0xc
  v_lshlrev_b32_e32 v1, 5, v0
  v_mov_b32_e32 v5, 0
  s_waitcnt lgkmcnt(0)
  v_or_b32_e32 v2, 8, v1
  v_cmp_gt_i32_e32 vcc, s10, v2
  s_and_saveexec_b64 s[2:3], vcc
  s_cbranch_execz .L1
  v_lshlrev_b32_e32 v3, 2, v2
  global_store_dword v3, v5, s[8:9]
.L1:
  s_or_b64 exec, exec, s[2:3]
  v_or_b32_e32 v2, 9, v1
  v_cmp_gt_i32_e32 vcc, s10, v2
  s_and_saveexec_b64 s[2:3], vcc
  s_cbranch_execz .L2
  v_lshlrev_b32_e32 v3, 2, v2
  global_store_dword v3, v5, s[8:9]
.L2:
  s_or_b64 exec, exec, s[2:3]
  s_endpgm
)";

TEST(Equivalence, MonotoneMaskChainNeedsTheCompareRelation) {
  const auto r = prove_deleted(kChain, "s_or_b64 exec, exec, s[2:3]");
  EXPECT_TRUE(r.proven) << r.reason;
  EXPECT_TRUE(has(r.reason, "shown by SAT")) << r.reason;
  const std::string down = edit(kChain, "v_or_b32_e32 v2, 9, v1", "v_or_b32_e32 v2, 7, v1");
  const auto d = prove_deleted(down, "s_or_b64 exec, exec, s[2:3]");
  EXPECT_FALSE(d.proven) << d.reason;
  // c|16 = c + 16 > c|8 = c + 8 because bits 3 and 4 of c are known 0 (c = 32 * tid). With c = 8 * tid they are
  // not: c = 16 gives c|16 = 16 < c|8 = 24, so with n = 20 the second store runs in K0 and not in K1.
  const std::string up = edit(kChain, "v_or_b32_e32 v2, 9, v1", "v_or_b32_e32 v2, 16, v1");
  const auto u = prove_deleted(up, "s_or_b64 exec, exec, s[2:3]");
  EXPECT_TRUE(u.proven) << u.reason;
  const std::string up8 = edit(up, "v_lshlrev_b32_e32 v1, 5, v0", "v_lshlrev_b32_e32 v1, 3, v0");
  const auto u8 = prove_deleted(up8, "s_or_b64 exec, exec, s[2:3]");
  EXPECT_FALSE(u8.proven) << u8.reason;
}

// A changed constant that is stored, behind a loop of 1000 iterations (n from the kernarg segment): the symbolic
// phase is cut inside the loop, where nothing differs yet, and the taint analysis must still visit the blocks after
// it and find the store. (It once queued only blocks whose taint changed, so it never reached the window.)
TEST(Equivalence, TaintAnalysisReachesAWindowBehindACut) {
  constexpr const char* k0 = R"(
k:
  s_load_dword s11, s[0:1], 0x8
  s_waitcnt lgkmcnt(0)
.Lloop:
  s_sub_u32 s11, s11, 1
  s_cmp_lg_u32 s11, 0
  s_cbranch_scc1 .Lloop
  v_mov_b32_e32 v6, 0
  global_store_dword v[8:9], v6, off
  s_endpgm
)";
  const auto r = prove(k0, edit(k0, "v6, 0", "v6, 16"));
  EXPECT_FALSE(r.proven) << r.reason;
}

// The same chain behind a loop whose trip count is a kernel argument: from the kernel entry the loop is cut before
// the window, and from the window's own block the masks are symbols without their compares; from the block after
// the loop (the highest dominator with no loop on the way) the relation is there again.
TEST(Equivalence, MonotoneMaskChainAfterALoop) {
  const std::string k0 = edit(kChain, "  v_mov_b32_e32 v5, 0\n",
                              "  v_mov_b32_e32 v5, 0\n  s_load_dword s11, s[0:1], 0x8\n  s_waitcnt lgkmcnt(0)\n"
                              ".Lloop:\n  v_add_u32_e32 v5, 1, v5\n  s_sub_u32 s11, s11, 1\n  s_cmp_lg_u32 s11, 0\n"
                              "  s_cbranch_scc1 .Lloop\n");
  const auto r = prove_deleted(k0, "s_or_b64 exec, exec, s[2:3]");
  EXPECT_TRUE(r.proven) << r.reason;
  const auto d = prove_deleted(edit(k0, "v_or_b32_e32 v2, 9, v1", "v_or_b32_e32 v2, 7, v1"), "s_or_b64 exec, exec, s[2:3]");
  EXPECT_FALSE(d.proven) << d.reason;
}

// The masks computed before the main loop (matmul epilogues keep their column masks in SGPRs across it). The loop
// does not write them, and both sides enter it in the same state, so it is summarised (what it writes becomes
// fresh symbols on both sides) and the masks keep their compares: the dropped restore is shown harmless. Neither
// unrolling (cut at the visit limit) nor a start after the loop (masks as plain symbols) could show it. With the
// second mask c|7 < n it is not harmless, and must stay unproven.
constexpr const char* kMasksBeforeLoop = R"(
k:
  s_load_dwordx2 s[8:9], s[0:1], 0x0
  s_load_dword s10, s[0:1], 0xc
  s_load_dword s11, s[0:1], 0x8
  v_lshlrev_b32_e32 v1, 5, v0
  v_mov_b32_e32 v5, 0
  s_waitcnt lgkmcnt(0)
  v_or_b32_e32 v2, 8, v1
  v_cmp_gt_i32_e64 s[20:21], s10, v2
  v_or_b32_e32 v2, 9, v1
  v_cmp_gt_i32_e64 s[22:23], s10, v2
.Lloop:
  v_add_u32_e32 v5, 1, v5
  s_sub_u32 s11, s11, 1
  s_cmp_lg_u32 s11, 0
  s_cbranch_scc1 .Lloop
  s_and_saveexec_b64 s[2:3], s[20:21]
  s_cbranch_execz .L1
  v_or_b32_e32 v2, 8, v1
  v_lshlrev_b32_e32 v3, 2, v2
  global_store_dword v3, v5, s[8:9]
.L1:
  s_or_b64 exec, exec, s[2:3]
  s_and_saveexec_b64 s[2:3], s[22:23]
  s_cbranch_execz .L2
  v_or_b32_e32 v2, 9, v1
  v_lshlrev_b32_e32 v3, 2, v2
  global_store_dword v3, v5, s[8:9]
.L2:
  s_or_b64 exec, exec, s[2:3]
  s_endpgm
)";

TEST(Equivalence, LoopSummaryKeepsMasksComputedBeforeIt) {
  const auto r = prove_deleted(kMasksBeforeLoop, "s_or_b64 exec, exec, s[2:3]");
  EXPECT_TRUE(r.proven) << r.reason;
  const std::string down = edit(kMasksBeforeLoop, "v_or_b32_e32 v2, 9, v1\n  v_cmp", "v_or_b32_e32 v2, 7, v1\n  v_cmp");
  const auto d = prove_deleted(down, "s_or_b64 exec, exec, s[2:3]");
  EXPECT_FALSE(d.proven) << d.reason;
  // A loop that writes a mask: s[22:23] recomputed from v5 (which the loop changes) is a fresh symbol after it.
  const std::string written = edit(kMasksBeforeLoop, "  s_cbranch_scc1 .Lloop\n",
                                   "  s_cbranch_scc1 .Lloop\n  v_cmp_gt_i32_e64 s[22:23], s10, v5\n");
  const auto w = prove_deleted(written, "s_or_b64 exec, exec, s[2:3]");
  EXPECT_FALSE(w.proven) << w.reason;
}

// The wave-leader store of a reduction (softmax, layer_norm): lane 0 of each wave (tid & 63 == 0) writes a uniform
// value to the wave's LDS slot ((tid >> 6) * 4). Flipping the leader compare makes lanes 1..63 write it instead:
// the same value to the same address, and in a 256-wide block (a multiple of 64) both masks have a lane in every
// wave, so the memory ends the same. Not so when the value depends on the lane, when the compare is on the whole
// tid (K0 stores in wave 0 only, K1 in every other wave), or when the block's X size is not a multiple of 64
// (lane numbers are not known).
constexpr const char* kLeader = R"(
k:
  s_load_dword s10, s[0:1], 0xc
  v_and_b32_e32 v6, 63, v0
  v_cmp_eq_u32_e32 vcc, 0, v6
  v_lshrrev_b32_e32 v8, 4, v0
  v_and_b32_e32 v8, 12, v8
  s_waitcnt lgkmcnt(0)
  s_and_saveexec_b64 s[2:3], vcc
  v_mov_b32_e32 v5, s10
  ds_write_b32 v8, v5
  s_or_b64 exec, exec, s[2:3]
  s_endpgm
)";

TEST(Equivalence, UniformStoreByAnotherLaneOfTheWave) {
  const auto r = prove(kLeader, edit(kLeader, "v_cmp_eq_u32_e32", "v_cmp_ne_u32_e32"));
  EXPECT_TRUE(r.proven) << r.reason;
  EXPECT_TRUE(has(r.reason, "uniform stores")) << r.reason;
  const std::string lane = edit(kLeader, "v_mov_b32_e32 v5, s10", "v_mov_b32_e32 v5, v0");
  const auto l = prove(lane, edit(lane, "v_cmp_eq_u32_e32", "v_cmp_ne_u32_e32"));
  EXPECT_FALSE(l.proven) << l.reason;
  const std::string tid = edit(kLeader, "v_cmp_eq_u32_e32 vcc, 0, v6", "v_cmp_eq_u32_e32 vcc, 0, v0");
  const auto t = prove(tid, edit(tid, "v_cmp_eq_u32_e32", "v_cmp_ne_u32_e32"));
  EXPECT_FALSE(t.proven) << t.reason;
  const auto odd = prove(kLeader, edit(kLeader, "v_cmp_eq_u32_e32", "v_cmp_ne_u32_e32"), facts({96, 1, 1}));
  EXPECT_FALSE(odd.proven) << odd.reason;
}

// A loop that writes MODE (round toward zero) changes what the same float operation gives after it: the loop's
// summary must not keep MODE's term from before the loop. K1 recomputes v1's sum after the loop instead of copying it.
TEST(Equivalence, LoopSummaryForgetsModeTheLoopWrites) {
  constexpr const char* k0 = R"(
k:
  s_load_dword s11, s[0:1], 0x8
  v_add_f32_e32 v1, v2, v3
  s_waitcnt lgkmcnt(0)
.Lloop:
  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 15
  s_sub_u32 s11, s11, 1
  s_cmp_lg_u32 s11, 0
  s_cbranch_scc1 .Lloop
  v_mov_b32_e32 v4, v1
  global_store_dword v[8:9], v4, off
  s_endpgm
)";
  const auto r = prove(k0, edit(k0, "v_mov_b32_e32 v4, v1", "v_add_f32_e32 v4, v2, v3"));
  EXPECT_FALSE(r.proven) << r.reason;
}

// Code after the window that reads its own address: a window whose difference dies still moves that code when it
// changes size (an inline constant for a 32-bit literal), so equal states (here at .Lnext, where a path would end
// as converged) are not equal values after s_getpc.
TEST(Equivalence, EqualStatesBeforeGetpcAreNotEnough) {
  constexpr const char* k0 = R"(
k:
  s_mov_b32 s7, 1
  s_mov_b32 s7, 0
.Lnext:
  s_getpc_b64 s[2:3]
  v_mov_b32_e32 v6, s2
  global_store_dword v[8:9], v6, off
  s_endpgm
)";
  const auto r = prove(k0, edit(k0, "s_mov_b32 s7, 1", "s_mov_b32 s7, 0x12345678"));
  EXPECT_FALSE(r.proven) << r.reason;
}

// v_pk_fmac_f16 accumulates into its destination (the SDWA form lists no tied input for it): the old v2 is an input
// even with dst_sel:DWORD.
TEST(Equivalence, FmacReadsItsDestination) {
  constexpr const char* k0 = R"(
k:
  v_mov_b32_e32 v2, 0
  v_pk_fmac_f16_sdwa v2, v0, v1 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:DWORD
  global_store_dword v[8:9], v2, off
  s_endpgm
)";
  const auto r = prove(k0, edit(k0, "v_mov_b32_e32 v2, 0", "v_mov_b32_e32 v2, 1"));
  EXPECT_FALSE(r.proven) << r.reason;
}

// SDWA with dst_sel:DWORD writes the whole dword (lane-wise, like any VALU result): the earlier write to v6 is dead.
// With dst_sel:WORD_0 and UNUSED_PRESERVE the upper half of the old v6 reaches the store.
TEST(Equivalence, SdwaWholeDwordOverwrites) {
  const std::string k0 = edit(kDead, "v_mov_b32_e32 v6, v7",
                              "v_mov_b32_sdwa v6, v7 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1");
  const auto r = prove(k0, edit(k0, "v6, 0", "v6, 0x10000"));
  EXPECT_TRUE(r.proven) << r.reason;
  const std::string keep = edit(kDead, "v_mov_b32_e32 v6, v7",
                                "v_mov_b32_sdwa v6, v7 dst_sel:WORD_0 dst_unused:UNUSED_PRESERVE src0_sel:WORD_1");
  const auto k = prove(keep, edit(keep, "v6, 0", "v6, 0x10000"));
  EXPECT_FALSE(k.proven) << k.reason;
}

// ---- what is not the prover's to decide ------------------------------------------------------------------------------

TEST(Equivalence, IdenticalAndRefusedWindows) {
  const auto same = prove(kDead, kDead);
  EXPECT_TRUE(same.proven);
  EXPECT_TRUE(has(same.reason, "identical")) << same.reason;
  // Waits and wait states are timing: a dropped s_waitcnt or s_nop is left to the static checkers.
  const auto wait = prove_deleted(kShift, "s_waitcnt lgkmcnt(0)");
  EXPECT_FALSE(wait.proven);
  EXPECT_TRUE(has(wait.reason, "wait")) << wait.reason;
  // A changed branch is control flow.
  const auto br = prove(kLoop, edit(kLoop, "s_cbranch_scc1", "s_cbranch_scc0"));
  EXPECT_FALSE(br.proven);
}

// ---- adversarial: edits that are not equivalent -----------------------------------------------------------------

// A dead scalar write (s20 is never read) is the slot each test below puts another instruction in, so that K1 has the
// same instruction count and ids as K0 (one changed instruction).
constexpr const char* kSlot = R"(
k:
  s_mov_b32 s20, 0
  v_add_u32_e32 v1, 1, v0
  s_cmp_eq_u32 s2, 0
  global_store_dword v[8:9], v1, off
  s_endpgm
)";

// S_SETVSKIP: "VSKIP = S0.u[S1.u[4:0]]"; while VSKIP is set no vector instruction is issued (MI300 ISA, SOPC; the
// emulator's s_setvskip and machine.hpp step_special). K1 turns VSKIP on: the v_add and the store are skipped. The
// only register it names is SCC (LLVM's SOPC Defs), which s_cmp overwrites.
TEST(EquivalenceAdversarial, SetVskipIsNotANop) {
  const auto r = prove(kSlot, edit(kSlot, "s_mov_b32 s20, 0", "s_setvskip 1, 0"));
  EXPECT_FALSE(r.proven) << r.reason;
}

// S_CBRANCH_I_FORK (SOPK, no branch property in the tables): a conditional fork that changes EXEC and the PC.
TEST(EquivalenceAdversarial, IForkIsNotANop) {
  const std::string k0 = std::string(kSlot) + ".Lx:\n  s_endpgm\n";
  const auto r = prove(k0, edit(k0, "s_mov_b32 s20, 0", "s_cbranch_i_fork s[10:11], .Lx"));
  EXPECT_FALSE(r.proven) << r.reason;
}

// S_RFE_RESTORE_B64: return from exception (sets the PC); not a no-op.
TEST(EquivalenceAdversarial, RfeRestoreIsNotANop) {
  const auto r = prove(kSlot, edit(kSlot, "s_mov_b32 s20, 0", "s_rfe_restore_b64 s[10:11], s12"));
  EXPECT_FALSE(r.proven) << r.reason;
}

// 0.0 and -0.0 are different bits (0x00000000, 0x80000000): the stored value changes.
TEST(EquivalenceAdversarial, NegativeZeroIsAnotherConstant) {
  constexpr const char* k0 = "k:\n  v_mov_b32_e32 v6, 0.0\n  global_store_dword v[8:9], v6, off\n  s_endpgm\n";
  const auto r = prove(k0, edit(k0, "0.0", "-0.0"));
  EXPECT_FALSE(r.proven) << r.reason;
}

// The same float operation on the same operands before and after a MODE write is not the same value: MODE.FP_DENORM
// (bits 7:4) and FP_ROUND decide f32 results (MI300 ISA "MODE register"; the emulator's fp_env reads w.mode). LLVM
// brackets f32 division with such s_setreg writes. K1 stores v1 (computed before the write) instead of v4 (after).
constexpr const char* kMode = R"(
k:
  v_mul_f32_e32 v1, v2, v3
  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 3
  v_mul_f32_e32 v4, v2, v3
  v_mov_b32_e32 v5, v4
  global_store_dword v[8:9], v5, off
  s_endpgm
)";

TEST(EquivalenceAdversarial, FloatResultDependsOnMode) {
  const auto r = prove(kMode, edit(kMode, "v_mov_b32_e32 v5, v4", "v_mov_b32_e32 v5, v1"));
  EXPECT_FALSE(r.proven) << r.reason;
}

// A load of a byte or a short into a whole dword zero-extends it (unsigned forms) or sign-extends it (signed forms;
// MI300 ISA GLOBAL_LOAD_USHORT / _SSHORT ...), so masking a ushort load with 0xffff changes nothing, and masking an
// sshort or a dword load does.
constexpr const char* kUshort = R"(
k:
  global_load_ushort v1, v[8:9], off
  s_waitcnt vmcnt(0)
  v_and_b32_e32 v2, 0xffff, v1
  global_store_dword v[10:11], v2, off
  s_endpgm
)";

TEST(Equivalence, SubDwordLoadsExtend) {
  const auto r = prove(kUshort, edit(kUshort, "v_and_b32_e32 v2, 0xffff, v1", "v_mov_b32_e32 v2, v1"));
  EXPECT_TRUE(r.proven) << r.reason;
  const std::string ds = edit(kUshort, "global_load_ushort v1, v[8:9], off", "ds_read_u16 v1, v8");
  const std::string ds_w = edit(ds, "vmcnt(0)", "lgkmcnt(0)");
  EXPECT_TRUE(prove(ds_w, edit(ds_w, "v_and_b32_e32 v2, 0xffff, v1", "v_mov_b32_e32 v2, v1")).proven);
  for (const char* load : {"global_load_sshort v1, v[8:9], off", "global_load_dword v1, v[8:9], off",
                           "global_load_short_d16 v1, v[8:9], off"}) {
    SCOPED_TRACE(load);
    const std::string k0 = edit(kUshort, "global_load_ushort v1, v[8:9], off", load);
    EXPECT_FALSE(prove(k0, edit(k0, "v_and_b32_e32 v2, 0xffff, v1", "v_mov_b32_e32 v2, v1")).proven);
  }
  // A signed byte: bits 31:7 are all copies of its sign, so an arithmetic shift right by 7 or by 31 gives one value.
  const std::string sb = edit(kUshort, "global_load_ushort v1, v[8:9], off", "global_load_sbyte v1, v[8:9], off");
  const std::string sb0 = edit(sb, "v_and_b32_e32 v2, 0xffff, v1", "v_ashrrev_i32_e32 v2, 7, v1");
  EXPECT_TRUE(prove(sb0, edit(sb0, "v_ashrrev_i32_e32 v2, 7, v1", "v_ashrrev_i32_e32 v2, 31, v1")).proven);
}

// v_max_f32 x, x is how LLVM canonicalizes a float on gfx9: it quiets a signalling NaN (IEEE mode) and flushes a
// denormal that MODE flushes, and otherwise returns x bit for bit. Here x is a v_add_f32 result, which is a quiet NaN
// for any NaN and has MODE's output flushing applied already, so replacing the canonicalization by a plain move changes no bit: proven
// under FLOAT_DENORM_MODE_32 = 3 (keep) and 0 (flush) with IEEE mode. Not under mode 2 (flush input denormals, keep
// output ones: the add may return a denormal that max(x, x) flushes to 0), nor when MODE is not known, nor when the
// kernel writes MODE, nor for a loaded x (it may be a signalling NaN, which max(x, x) quiets).
constexpr const char* kCanon = R"(
k:
  v_add_f32_e32 v1, v2, v3
  v_max_f32_e32 v1, v1, v1
  global_store_dword v[8:9], v1, off
  s_endpgm
)";

TEST(Equivalence, CanonicalizeOfACanonicalValue) {
  const std::string k1 = edit(kCanon, "v_max_f32_e32 v1, v1, v1", "v_mov_b32_e32 v1, v1");
  auto f = facts();
  f.f32_mode = 3 | 4;
  const auto keep = prove(kCanon, k1, f);
  EXPECT_TRUE(keep.proven) << keep.reason;
  f.f32_mode = 0 | 4;
  EXPECT_TRUE(prove(kCanon, k1, f).proven);
  f.f32_mode = 2 | 4;
  EXPECT_FALSE(prove(kCanon, k1, f).proven);
  EXPECT_FALSE(prove(kCanon, k1, facts()).proven);  // MODE not known
  f.f32_mode = 3 | 4;
  const std::string set = edit(kCanon, "k:\n", "k:\n  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 3\n");
  EXPECT_FALSE(prove(set, edit(set, "v_max_f32_e32 v1, v1, v1", "v_mov_b32_e32 v1, v1"), f).proven);
  const std::string ld = edit(kCanon, "v_add_f32_e32 v1, v2, v3", "global_load_dword v1, v[10:11], off\n  s_waitcnt vmcnt(0)");
  EXPECT_FALSE(prove(ld, edit(ld, "v_max_f32_e32 v1, v1, v1", "v_mov_b32_e32 v1, v1"), f).proven);
  // With IEEE mode off, max passes a signalling NaN through: max of a loaded value is not canonical, max of an add is.
  f.f32_mode = 3;
  const std::string mx = edit(ld, "s_waitcnt vmcnt(0)", "s_waitcnt vmcnt(0)\n  v_max_f32_e32 v1, v1, v4");
  EXPECT_FALSE(prove(mx, edit(mx, "v_max_f32_e32 v1, v1, v1", "v_mov_b32_e32 v1, v1"), f).proven);
  const std::string ma = edit(kCanon, "v_add_f32_e32 v1, v2, v3", "v_add_f32_e32 v1, v2, v3\n  v_mul_f32_e32 v4, v2, v2\n  v_min_f32_e32 v1, v4, v1");
  EXPECT_TRUE(prove(ma, edit(ma, "v_max_f32_e32 v1, v1, v1", "v_mov_b32_e32 v1, v1"), f).proven);
}

// Softmax's cross-lane max reduction (Triton, gfx942): a DPP copy of a canonical value, canonicalized, then combined.
// Swapping the copy and the canonicalization leaves v5 = max(v5, copy) without the canonicalization, which is the
// same value when every lane of the copy is canonical: with a full exec, all row and bank masks and bound_ctrl (an
// invalid source lane reads 0), each lane gets some lane of v5 or 0. With row_mask 0x5 the rows it leaves out keep
// the old v8, which may be anything (a signalling NaN): unproven.
constexpr const char* kDppMax = R"(
k:
  v_max_f32_e32 v5, v2, v3
  s_nop 1
  v_mov_b32_dpp v8, v5 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1
  v_max_f32_e32 v8, v8, v8
  v_max_f32_e32 v5, v5, v8
  global_store_dword v[10:11], v5, off
  s_endpgm
)";

TEST(Equivalence, CanonicalizeOfADppCopy) {
  auto f = facts();
  f.f32_mode = 3 | 4;
  const std::vector<std::string> order = {"v_max_f32_e32 v8, v8, v8",
                                          "v_mov_b32_dpp v8, v5 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1"};
  const auto r = prove_reordered(kDppMax, order, f);
  EXPECT_TRUE(r.proven) << r.reason;
  const std::string part = edit(kDppMax, "row_mask:0xf", "row_mask:0x5");
  const auto p = prove_reordered(part, {"v_max_f32_e32 v8, v8, v8",
                                        "v_mov_b32_dpp v8, v5 row_shr:1 row_mask:0x5 bank_mask:0xf bound_ctrl:1"}, f);
  EXPECT_FALSE(p.proven) << p.reason;
}

// Two selects into one register swapped (Triton's fp8 decode, gfx90a): K0 = m1 ? (m0 ? v : 0) : w and K1 =
// m0 ? (m1 ? v : w) : 0 differ only in lanes where both masks are clear, and m0 = (x != 0), m1 = (x != 1) are never
// both clear. The select result then goes through an opaque operation (a float conversion) before the store, so the
// two sides' terms differ there; SAT shows the conversion's operands equal, and both sides get one result. With
// m1 = (y != 1) on another value both masks may be clear (x = 0, y = 1): K0 stores cvt(w), K1 cvt(0).
constexpr const char* kSelects = R"(
k:
  global_load_dword v2, v[8:9], off
  global_load_dword v3, v[8:9], off offset:4
  s_waitcnt vmcnt(0)
  v_cmp_ne_u16_e64 s[28:29], 0, v2
  v_cmp_ne_u16_e64 s[30:31], 1, v2
  s_nop 1
  v_mov_b32_e32 v14, v5
  v_cndmask_b32_e64 v14, 0, v14, s[28:29]
  v_cndmask_b32_e64 v14, v6, v14, s[30:31]
  v_cvt_f32_f16_e32 v12, v14
  global_store_dword v[10:11], v12, off
  s_endpgm
)";

TEST(Equivalence, SwappedSelectsWithMasksNeverBothClear) {
  const std::vector<std::string> swapped = {"v_cndmask_b32_e64 v14, v6, v14, s[30:31]",
                                            "v_cndmask_b32_e64 v14, 0, v14, s[28:29]"};
  const auto r = prove_reordered(kSelects, swapped);
  EXPECT_TRUE(r.proven) << r.reason;
  EXPECT_TRUE(has(r.reason, "SAT")) << r.reason;
  const std::string other = edit(kSelects, "v_cmp_ne_u16_e64 s[30:31], 1, v2", "v_cmp_ne_u16_e64 s[30:31], 1, v3");
  const auto bad = prove_reordered(other, swapped);
  EXPECT_FALSE(bad.proven) << bad.reason;
}

// A DPP instruction with a full exec, all row and bank masks and bound_ctrl writes every lane, so the old value of
// its destination is no input of v_mov_b32_dpp: the edited v1 before it is overwritten everywhere (proven). It still
// is one of v_pk_fmac_f16_dpp, which adds the destination (D = S0 * S1 + D): there the edit reaches the store.
TEST(EquivalenceAdversarial, DppAccumulatorReadsItsDestination) {
  constexpr const char* mov = R"(
k:
  v_mov_b32_e32 v1, 0
  s_nop 1
  v_mov_b32_dpp v1, v2 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1
  global_store_dword v[4:5], v1, off
  s_endpgm
)";
  const auto r = prove(mov, edit(mov, "v1, 0\n", "v1, 0x3c003c00\n"));
  EXPECT_TRUE(r.proven) << r.reason;
  const std::string fmac = edit(mov, "v_mov_b32_dpp v1, v2", "v_pk_fmac_f16_dpp v1, v2, v3");
  const auto bad = prove(fmac, edit(fmac, "v1, 0\n", "v1, 0x3c003c00\n"));
  EXPECT_FALSE(bad.proven) << bad.reason;
}

// A call through a function pointer from the kernel arguments: the callee stores v1. The taint analysis takes over
// at the s_swappc (not modelled) and must follow the difference into whatever the call may reach.
constexpr const char* kCall = R"(
k:
  s_load_dwordx2 s[16:17], s[0:1], 0x0
  v_mov_b32_e32 v1, 0
  s_waitcnt lgkmcnt(0)
  s_swappc_b64 s[30:31], s[16:17]
  s_endpgm
f:
  global_store_dword v[8:9], v1, off
  s_setpc_b64 s[30:31]
)";

TEST(EquivalenceAdversarial, DifferenceReachesACallee) {
  const auto r = prove(kCall, edit(kCall, "v1, 0", "v1, 16"));
  EXPECT_FALSE(r.proven) << r.reason;
}

// The kernel descriptor sets the initial MODE (float denormal handling here) and the user SGPR layout the launch
// facts rest on: a K1 that changes it is not the same kernel, though every instruction and label is.
constexpr const char* kDescriptor = R"(
k:
  v_mul_f32_e32 v6, v2, v3
  global_store_dword v[8:9], v6, off
  s_endpgm
.amdhsa_kernel k
  .amdhsa_next_free_vgpr 16
  .amdhsa_next_free_sgpr 16
  .amdhsa_float_denorm_mode_32 3
.end_amdhsa_kernel
)";

TEST(EquivalenceAdversarial, DescriptorChange) {
  const auto r = prove(kDescriptor, edit(kDescriptor, ".amdhsa_float_denorm_mode_32 3", ".amdhsa_float_denorm_mode_32 0"));
  EXPECT_FALSE(r.proven) << r.reason;
}

// ---- corpus: launch facts of a Triton kernel ----------------------------------------------------------------------

// vec_add (gfx942) reads n with s_load_dwordx8 s[4:11], s[0:1], 0x8 (n is s8, kernarg offset 0x18) and compares
// v_cmp_gt_i32 vcc, s8, v0: the known bits there must hold each launch shape's n from the launch file. Mutant
// i10 v_mov_b32 v6, 0 -> 16 (the value of skipped lanes) is equivalent in every shape: only lanes that loaded v6 store
// v6 + v10. Mutant i16 (v_or v4, 0x100 -> 0x101 ... ) and a store's data register change are not.
TEST(EquivalenceCorpus, VecAddLaunchFactsAndMutants) {
  ASMEVO_REQUIRE_CORPUS(corpus);
  const auto co = corpus / "triton" / "vec_add_f32.gfx942.hsaco";
  const auto launch = std::filesystem::path(ASMEVO_SOURCE_DIR) / "tests/data/launch/triton/vec_add_f32.json";
  auto k0 = verify::load_code_object(co.string());
  ASSERT_TRUE(k0.has_value()) << k0.error().message;
  auto shapes = verify::read_launch_file(launch);
  ASSERT_TRUE(shapes.has_value()) << shapes.error().message;
  const Program& p0 = k0->module.program;
  auto scope = verify::kernel_scope(p0, "vec_add");
  ASSERT_TRUE(scope.has_value());
  // The compare against n.
  std::size_t cmp = 0;
  for (std::size_t i = 0; i < p0.items.size() && !cmp; ++i)
    if (p0.items[i].kind == Item::Kind::inst && print_inst(p0.items[i].inst) == "v_cmp_gt_i32_e32 vcc, s8, v0") cmp = i;
  ASSERT_NE(cmp, 0u);
  const std::uint32_t ns[] = {2048, 1000, 1030, 1300};  // n of each shape of the launch file
  ASSERT_EQ(shapes->size(), 4u);
  std::vector<LaunchFacts> fs;
  for (std::size_t k = 0; k < 4; ++k) {
    auto f = verify::launch_facts(k0->module, (*shapes)[k]);
    ASSERT_TRUE(f.has_value()) << f.error().message;
    fs.push_back(std::move(*f));
  }
  for (std::size_t k = 0; k < 4; ++k) {
    auto kb = KnownBits::analyze(p0, fs[k]);
    ASSERT_TRUE(kb.has_value()) << kb.error().message;
    const auto s = kb->state_before(cmp);
    EXPECT_EQ(s.units[8].one, ns[k]) << "shape " << k;
    EXPECT_EQ(s.units[8].zero, ~ns[k]) << "shape " << k;
  }
  auto all_shapes = [&](const Program& p1, InstId site) {
    for (const auto& f : fs) {
      auto r = prove_equivalent(p0, p1, site, f);
      if (!r.proven) return r;
    }
    return ProofResult{true, "all shapes"};
  };
  auto mutant = [&](verify::MutOp op, std::uint32_t id) {
    auto m = verify::mutate(op, p0, *scope, InstId{id}, 1);
    EXPECT_TRUE(m.has_value() && m->valid);
    return m ? m->program : Program{};
  };
  // i10 v_mov_b32_e32 v6, 0 -> v_mov_b32_e32 v6, 16 (a miss of the seed-1 report).
  {
    const Program p1 = mutant(verify::MutOp::imm_change, 10);
    ASSERT_NE(print_inst(*p1.find(InstId{10})), print_inst(*p0.find(InstId{10})));
    const auto r = all_shapes(p1, InstId{10});
    EXPECT_TRUE(r.proven) << r.reason;
  }
  // i81 v_add_f32 v4, v8, v12 with another register: the stored sum changes.
  {
    const Program p1 = mutant(verify::MutOp::reg_change, 81);
    const auto r = all_shapes(p1, InstId{81});
    EXPECT_FALSE(r.proven) << r.reason;
  }
}

// A buffer address lies below 2^47 (verify/launch_facts.hpp marks bits 47..63 of every buffer argument zero, as in
// a 47-bit user address space), so the high dword of a pointer plus a 32-bit-range offset keeps bits 31:16 clear, and
// the rope kernel's s_and_b32 s1, s1, 0xffff (a V#'s 16-bit base_hi) changes nothing: moving it after the load that
// uses s[0:3] is equivalent under every shape. The facts themselves: the first buffer argument's pointer bytes 5..7
// are known (bit 47, then whole bytes) and zero.
TEST(EquivalenceCorpus, RopeBufferAddressBelow2To47) {
  ASMEVO_REQUIRE_CORPUS(corpus);
  const auto co = corpus / "triton" / "rope_bf16_d128.gfx90a.hsaco";
  const auto launch = std::filesystem::path(ASMEVO_SOURCE_DIR) / "tests/data/launch/triton/rope_bf16_d128.json";
  auto k0 = verify::load_code_object(co.string());
  ASSERT_TRUE(k0.has_value()) << k0.error().message;
  auto shapes = verify::read_launch_file(launch);
  ASSERT_TRUE(shapes.has_value()) << shapes.error().message;
  const Program& p0 = k0->module.program;
  auto scope = verify::kernel_scope(p0, "rope");
  ASSERT_TRUE(scope.has_value());
  ASSERT_EQ(print_inst(*p0.find(InstId{38})), "s_and_b32 s1, s1, 0xffff");
  auto m = verify::mutate(verify::MutOp::swap_dependent, p0, *scope, InstId{38}, 1);
  ASSERT_TRUE(m.has_value() && m->valid);
  ASSERT_EQ(print_inst(*m->program.find(InstId{38})), "s_and_b32 s1, s1, 0xffff");
  for (std::size_t k = 0; k < shapes->size(); ++k) {
    SCOPED_TRACE("shape " + std::to_string(k));
    auto f = verify::launch_facts(k0->module, (*shapes)[k]);
    ASSERT_TRUE(f.has_value()) << f.error().message;
    ASSERT_GE(f->kernarg.known.size(), 8u);
    EXPECT_EQ(f->kernarg.known[5], 0x80);
    EXPECT_EQ(f->kernarg.known[6], 0xff);
    EXPECT_EQ(f->kernarg.known[7], 0xff);
    EXPECT_EQ(f->kernarg.bytes[5] & 0x80, 0);
    EXPECT_EQ(f->kernarg.bytes[6] | f->kernarg.bytes[7], 0);
    EXPECT_EQ(f->kernarg.known[0], 0) << "the low bytes of a pointer are not fixed";
    const auto r = prove_equivalent(p0, m->program, InstId{38}, *f);
    EXPECT_TRUE(r.proven) << r.reason;
  }
}

}  // namespace
}  // namespace asmevo::analysis
