// Tests of analysis/equivalence.hpp (and the known bits it rests on, analysis/known_bits.hpp) on hand-written gfx942
// snippets: each kind of proof on an edit that is equivalent under the stated launch, and the closest edit that is not
// (which must stay unproven). Every verdict is derived by hand in the comment above it; a launch fact the proof needs
// is varied to show the same edit becoming unprovable. Corpus part: verify/launch_facts.hpp on a Triton kernel, whose
// scalar argument the known bits must see with the launch file's value, and two mutants of it.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <string>
#include <vector>

#include "asmevo/analysis/equivalence.hpp"
#include "asmevo/analysis/known_bits.hpp"
#include "asmevo/codeobject/module.hpp"
#include "asmevo/ir/parser.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/launch/launch_spec.hpp"
#include "asmevo/verify/code_object.hpp"
#include "asmevo/verify/launch_facts.hpp"
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

// Every dword of a wide load comes from memory: the upper dwords of an s_load_dwordx2 or a global_load_dwordx2 are as
// unknown as the first (they were once taken for zero, which a narrowing load's extension rule applied to every load).
constexpr const char* kWide = R"(
k:
  s_load_dwordx2 s[6:7], s[0:1], 0x0
  s_waitcnt lgkmcnt(0)
  s_load_dwordx2 s[14:15], s[6:7], 0x98
  global_load_dwordx2 v[2:3], v[4:5], off
  s_waitcnt vmcnt(0) lgkmcnt(0)
  v_mov_b32_e32 v1, s15
  v_add_u32_e32 v1, v1, v3
  global_store_dword v[4:5], v1, off
  s_endpgm
)";

TEST(KnownBits, UpperDwordsOfAWideLoadAreUnknown) {
  const Program p = parse(kWide);
  const LaunchFacts f = facts();
  auto kb = KnownBits::analyze(p, f);
  ASSERT_TRUE(kb.has_value()) << kb.error().message;
  std::size_t store = 0;
  for (std::size_t i = 0; i < p.items.size(); ++i)
    if (p.items[i].kind == Item::Kind::inst && print_inst(p.items[i].inst).starts_with("global_store")) store = i;
  const auto s = kb->state_before(store);
  ASSERT_TRUE(s.reached);
  EXPECT_EQ(s.units[15].zero | s.units[15].one, 0u) << "s15 is loaded, not known";
  const auto& v3 = s.units[static_cast<std::size_t>(detail::kb_index(detail::unit_v0 + 3))];
  EXPECT_EQ(v3.zero | v3.one, 0u) << "v3 is loaded, not known";
}

TEST(Equivalence, UpperDwordOfAWideLoadIsNotZero) {
  EXPECT_FALSE(prove(kWide, edit(kWide, "v_mov_b32_e32 v1, s15", "v_mov_b32_e32 v1, 0")).proven);
  EXPECT_FALSE(prove(kWide, edit(kWide, "v_add_u32_e32 v1, v1, v3", "v_add_u32_e32 v1, 0, v1")).proven);
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
  // The same for a use moved above its wait (the values agree only if the load had landed); refuting across a
  // wait stays possible (RedTeam2's relu case in tests/verify), proving does not. A deleted s_nop is proven only
  // where K1 adds no hazard finding: not where it separates a VALU write from the DPP read of it.
  const std::string ld = R"(
k:
  global_load_dword v1, v[10:11], off
  v_mov_b32_e32 v7, 0
  s_waitcnt vmcnt(0)
  v_add_u32_e32 v2, 1, v1
  s_nop 1
  v_mov_b32_dpp v8, v2 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1
  global_store_dword v[10:11], v8, off
  s_endpgm
)";
  const auto moved = prove(ld, edit(ld, "  s_waitcnt vmcnt(0)\n  v_add_u32_e32 v2, 1, v1\n",
                                    "  v_add_u32_e32 v2, 1, v1\n  s_waitcnt vmcnt(0)\n"));
  EXPECT_FALSE(moved.proven) << moved.reason;
  EXPECT_TRUE(has(moved.reason, "proves no window that holds one")) << moved.reason;
  const auto nop = prove_deleted(ld, "s_nop 1");
  EXPECT_FALSE(nop.proven) << nop.reason;
  EXPECT_TRUE(has(nop.reason, "static rule")) << nop.reason;
  const std::string idle = edit(ld, "  v_mov_b32_e32 v7, 0\n", "  v_mov_b32_e32 v7, 0\n  s_nop 2\n");
  const auto spare = prove_deleted(idle, "s_nop 2");
  EXPECT_TRUE(spare.proven) << spare.reason;
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
  EXPECT_TRUE(has(r.reason, "descriptor")) << r.reason;
  // Register counts are not a change the prover refuses: `assemble` recounts them for any edit that uses another
  // register, and what the registers hold is the same. A K1 differing only there is identical to K0 for the prover.
  const auto counts = prove(kDescriptor, edit(edit(kDescriptor, ".amdhsa_next_free_sgpr 16", ".amdhsa_next_free_sgpr 40"),
                                              ".amdhsa_next_free_vgpr 16", ".amdhsa_next_free_vgpr 24"));
  EXPECT_TRUE(counts.proven) << counts.reason;
  // The same in the metadata: a count's value is blanked, every other key compares.
  EXPECT_EQ(detail::without_register_counts("  - .sgpr_count: 16\n    .vgpr_count: 8\n    .wavefront_size: 64\n"),
            detail::without_register_counts("  - .sgpr_count: 40\n    .vgpr_count: 24\n    .wavefront_size: 64\n"));
  EXPECT_NE(detail::without_register_counts("    .vgpr_count: 8\n    .wavefront_size: 64\n"),
            detail::without_register_counts("    .vgpr_count: 8\n    .wavefront_size: 32\n"));
}

// ---- f32 compares as circuits (detail/int_semantics.hpp) -----------------------------------------------------------

// Every VOPC f32 predicate, evaluated by the semantics on constant operands (denormals kept, exec all ones), against
// the host's IEEE comparison (x86 SSE compares denormals exactly and every NaN unordered) on values that stress the
// circuit: signed zeros, the smallest and largest denormals, normals around 1 and -126, the extremes, infinities,
// quiet and signalling NaNs of both signs.
TEST(F32Compare, EveryPredicateMatchesIeee) {
  const std::uint32_t vals[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u, 0x007fffffu, 0x807fffffu,
                                0x00800000u, 0x3f800000u, 0xbf800000u, 0x3f800001u, 0xc2fc0000u, 0xc2fbffffu,
                                0x7f7fffffu, 0xff7fffffu, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u,
                                0x7f800001u, 0x7fbfffffu};
  struct P {
    const char* name;
    bool (*f)(float, float);
  };
  const P preds[] = {
      {"f", [](float, float) { return false; }},      {"lt", [](float a, float b) { return a < b; }},
      {"eq", [](float a, float b) { return a == b; }}, {"le", [](float a, float b) { return a <= b; }},
      {"gt", [](float a, float b) { return a > b; }},  {"lg", [](float a, float b) { return a < b || a > b; }},
      {"ge", [](float a, float b) { return a >= b; }}, {"o", [](float a, float b) { return a == a && b == b; }},
      {"u", [](float a, float b) { return a != a || b != b; }},
      {"nge", [](float a, float b) { return !(a >= b); }}, {"nlg", [](float a, float b) { return !(a < b || a > b); }},
      {"ngt", [](float a, float b) { return !(a > b); }},  {"nle", [](float a, float b) { return !(a <= b); }},
      {"neq", [](float a, float b) { return !(a == b); }}, {"nlt", [](float a, float b) { return !(a < b); }},
      {"tru", [](float, float) { return true; }},
  };
  detail::BitAlg A(true);
  detail::EvalEnv env;
  env.f32_mode = 3 | 4;
  std::vector<detail::Word> init(detail::num_units);
  for (auto& w : init) w.fill(detail::bit0);
  init[detail::unit_exec].fill(detail::bit1);
  init[detail::unit_exec + 1].fill(detail::bit1);
  std::size_t checked = 0;
  for (const P& p : preds) {
    auto in = parse_inst(std::string("v_cmp_") + p.name + "_f32_e64 s[10:11], s6, v7", Target::gfx942);
    ASSERT_TRUE(in.has_value()) << p.name << ": " << in.error().message;
    for (std::uint32_t a : vals)
      for (std::uint32_t b : vals) {
        detail::SymState st{&init, {}, 0};
        detail::Word wa, wb;
        for (unsigned j = 0; j < 32; ++j) wa[j] = (a >> j & 1) ? detail::bit1 : detail::bit0;
        for (unsigned j = 0; j < 32; ++j) wb[j] = (b >> j & 1) ? detail::bit1 : detail::bit0;
        st.set(6, wa);
        st.set(detail::unit_v0 + 7, wb);
        const auto r = detail::step(A, st, env, *in);
        ASSERT_FALSE(r.refused) << r.why;
        const detail::Word s10 = st.get(10);
        const bool want = p.f(std::bit_cast<float>(a), std::bit_cast<float>(b));
        for (unsigned j = 0; j < 32; ++j)
          ASSERT_EQ(s10[j], want ? detail::bit1 : detail::bit0)
              << "v_cmp_" << p.name << "_f32 " << std::hex << a << ", " << b << " lane " << std::dec << j;
        ++checked;
      }
  }
  EXPECT_EQ(checked, std::size(preds) * std::size(vals) * std::size(vals));
}

// ---- refutation: counterexamples to the window's equivalence ---------------------------------------------------

/// The snippets' launch with MODE known to keep f32 denormals (FLOAT_DENORM_MODE_32 = 3, IEEE on), under which f32
/// compares are exact circuits.
LaunchFacts float_facts() {
  LaunchFacts f = facts();
  f.f32_mode = 3 | 4;
  return f;
}

Refutation refute(const std::string& k0, const std::string& k1, const LaunchFacts& f = facts()) {
  const Program p0 = parse(k0), p1 = parse(k1);
  return refute_equivalence(p0, p1, std::nullopt, f);
}

/// The input named `reg` of a counterexample, or nullptr.
const Counterexample::Input* input(const Counterexample& c, const std::string& reg) {
  for (const auto& in : c.inputs)
    if (in.reg == reg) return &in;
  return nullptr;
}

// Softmax's exp underflow test, v_cmp_gt_f32 s[10:11], s6, v9 with s6 = -126.0, turned into v_cmp_ge_f32: the two
// differ only where v9 = -126.0 exactly (s6 > v9 is false there, s6 >= v9 true). With 256 work-items exec is all
// ones, so every lane's bit of s10 is 0 in K0 and 1 in K1; s[10:11] is read by the v_cndmask after the window
// (2 wait states after the VALU write of its lane mask, as in softmax).
constexpr const char* kExpTest = R"(
k:
  s_mov_b32 s6, 0xc2fc0000
  v_mul_f32_e32 v9, v0, v1
  v_cmp_gt_f32_e64 s[10:11], s6, v9
  s_nop 1
  v_cndmask_b32_e64 v2, 0, 1, s[10:11]
  global_store_dword v[4:5], v2, off
  s_endpgm
)";

TEST(Refute, FloatCompareAtTheBoundary) {
  const auto r = refute(kExpTest, edit(kExpTest, "v_cmp_gt_f32", "v_cmp_ge_f32"), float_facts());
  ASSERT_TRUE(r.refuted()) << r.reason;
  const Counterexample& c = *r.cex;
  const auto* v9 = input(c, "v9");
  const auto* s6 = input(c, "s6");
  ASSERT_TRUE(v9 && s6) << c.text();
  EXPECT_EQ(v9->value, 0xc2fc0000u) << c.text();
  EXPECT_EQ(v9->f32(), "-126.0");
  EXPECT_FALSE(v9->known);  // chosen by the solver
  EXPECT_EQ(s6->value, 0xc2fc0000u);
  EXPECT_TRUE(s6->known);  // the s_mov before the window
  EXPECT_EQ(c.reg, "s10");
  EXPECT_EQ(c.k0, 0u);
  EXPECT_EQ(c.k1, 0xffffffffu);
  EXPECT_FALSE(c.lane.has_value());
  EXPECT_EQ(c.where, "i2");
  EXPECT_EQ(c.at, InstId{2});
  EXPECT_TRUE(has(c.text(), "v9 = 0xc2fc0000 (-126.0)")) << c.text();
  EXPECT_TRUE(has(c.text(), "at i2, K0 leaves s10 = 0x0 and K1 s10 = 0xffffffff")) << c.text();
  // The other direction of the same compare (v9 < s6 is s6 > v9) is the same circuit, and prove() sees it.
  const std::string swapped = edit(kExpTest, "v_cmp_gt_f32_e64 s[10:11], s6, v9", "v_cmp_lt_f32_e64 s[10:11], v9, s6");
  const auto same = refute(kExpTest, swapped, float_facts());
  EXPECT_EQ(same.kind, Refutation::Kind::none) << same.reason;
  const auto pr = prove(kExpTest, swapped, float_facts());
  EXPECT_TRUE(pr.proven) << pr.reason;
}

// Where MODE may flush f32 input denormals (or is not known), whether a compare flushes is not relied on, so the
// compare is opaque and nothing is refuted: the same edit as above, under facts without MODE and with flushing.
TEST(Refute, FloatCompareNeedsTheDenormalMode) {
  const std::string k1 = edit(kExpTest, "v_cmp_gt_f32", "v_cmp_ge_f32");
  const auto unknown_mode = refute(kExpTest, k1);
  EXPECT_EQ(unknown_mode.kind, Refutation::Kind::unknown) << unknown_mode.reason;
  EXPECT_TRUE(has(unknown_mode.reason, "opaque")) << unknown_mode.reason;
  LaunchFacts flush = facts();
  flush.f32_mode = 0 | 4;
  const auto flushed = refute(kExpTest, k1, flush);
  EXPECT_EQ(flushed.kind, Refutation::Kind::unknown) << flushed.reason;
}

// v_cmp_nle_f32 is "not (a <= b)": true where an operand is a NaN, unlike v_cmp_gt_f32, which is "a > b" otherwise.
// The only counterexamples have v9 a NaN (s6 is -126.0).
TEST(Refute, UnorderedCompareDiffersOnNaN) {
  const auto r = refute(edit(kExpTest, "v_cmp_gt_f32", "v_cmp_nle_f32"), kExpTest,
                        float_facts());
  ASSERT_TRUE(r.refuted()) << r.reason;
  const auto* v9 = input(*r.cex, "v9");
  ASSERT_NE(v9, nullptr);
  EXPECT_EQ(v9->value & 0x7f800000u, 0x7f800000u) << r.cex->text();  // exponent all ones
  EXPECT_NE(v9->value & 0x007fffffu, 0u) << r.cex->text();            // and a fraction: a NaN
  EXPECT_EQ(v9->f32(), "nan");
  EXPECT_EQ(r.cex->k0, 0xffffffffu);  // nle: unordered is true
  EXPECT_EQ(r.cex->k1, 0u);
}

// v_cmp_gt_u32 vcc, s8, v3 with s8 = n = 1000 (the kernarg segment) turned into v_cmp_ge_u32: differs only where
// v3 = 1000, and vcc is read by the v_cndmask.
constexpr const char* kBound = R"(
k:
  s_load_dword s8, s[0:1], 0x8
  s_waitcnt lgkmcnt(0)
  v_cmp_gt_u32_e32 vcc, s8, v3
  v_cndmask_b32_e64 v2, 0, 1, vcc
  global_store_dword v[4:5], v2, off
  s_endpgm
)";

TEST(Refute, UnsignedCompareAtTheBound) {
  const auto r = refute(kBound, edit(kBound, "v_cmp_gt_u32", "v_cmp_ge_u32"));
  ASSERT_TRUE(r.refuted()) << r.reason;
  const auto* v3 = input(*r.cex, "v3");
  const auto* s8 = input(*r.cex, "s8");
  ASSERT_TRUE(v3 && s8) << r.cex->text();
  EXPECT_EQ(v3->value, 1000u) << r.cex->text();
  EXPECT_EQ(s8->value, 1000u);
  EXPECT_TRUE(s8->known);
  EXPECT_EQ(r.cex->reg, "vcc_lo");
  EXPECT_EQ(r.cex->k0, 0u);
  EXPECT_EQ(r.cex->k1, 0xffffffffu);
  EXPECT_GE(r.sat_queries, 1u);
}

// An off-by-one constant: every input differs. The counterexample is checked arithmetic: K0 leaves v3 + 1, K1 v3 + 2.
constexpr const char* kAddOne = R"(
k:
  v_add_u32_e32 v2, 1, v3
  global_store_dword v[4:5], v2, off
  s_endpgm
)";

TEST(Refute, OffByOneConstant) {
  const auto r = refute(kAddOne, edit(kAddOne, "v_add_u32_e32 v2, 1, v3", "v_add_u32_e32 v2, 2, v3"));
  ASSERT_TRUE(r.refuted()) << r.reason;
  const Counterexample& c = *r.cex;
  const auto* v3 = input(c, "v3");
  ASSERT_NE(v3, nullptr) << c.text();
  EXPECT_EQ(c.reg, "v2");
  EXPECT_EQ(c.k0, v3->value + 1u) << c.text();
  EXPECT_EQ(c.k1, v3->value + 2u) << c.text();
  ASSERT_TRUE(c.lane.has_value());
  EXPECT_LT(*c.lane, 64u);
  EXPECT_TRUE(has(c.text(), "(lane ")) << c.text();
}

// The same edit with v2 overwritten right after the window: the difference is dead, so there is no counterexample
// (the one above shows the edit itself differs).
TEST(Refute, DeadDifferenceIsNoCounterexample) {
  const std::string k0 = edit(kAddOne, "  global_store", "  v_mov_b32_e32 v2, 0\n  global_store");
  const auto r = refute(k0, edit(k0, "v_add_u32_e32 v2, 1, v3", "v_add_u32_e32 v2, 2, v3"));
  EXPECT_EQ(r.kind, Refutation::Kind::none) << r.reason;
  EXPECT_TRUE(has(r.reason, "live")) << r.reason;
  EXPECT_FALSE(r.cex.has_value());
}

// Equivalent rewrites: x << 1 = x + x, and 5 > x = 4 >= x (different circuits, shown equal by SAT in every lane).
TEST(Refute, EquivalentRewritesHaveNoCounterexample) {
  const auto shl = refute(kAddOne, edit(kAddOne, "v_add_u32_e32 v2, 1, v3", "v_lshlrev_b32_e32 v2, 1, v3"));
  ASSERT_TRUE(shl.refuted()) << shl.reason;  // x << 1 is not x + 1 ...
  const std::string k0 = edit(kAddOne, "v_add_u32_e32 v2, 1, v3", "v_add_u32_e32 v2, v3, v3");
  const auto r = refute(k0, edit(k0, "v_add_u32_e32 v2, v3, v3", "v_lshlrev_b32_e32 v2, 1, v3"));
  EXPECT_EQ(r.kind, Refutation::Kind::none) << r.reason;  // ... but it is x + x
  const std::string c0 = edit(kBound, "v_cmp_gt_u32_e32 vcc, s8, v3", "v_cmp_gt_u32_e32 vcc, 5, v3");
  const auto c = refute(c0, edit(c0, "v_cmp_gt_u32_e32 vcc, 5, v3", "v_cmp_ge_u32_e32 vcc, 4, v3"));
  EXPECT_EQ(c.kind, Refutation::Kind::none) << c.reason;
  EXPECT_GE(c.sat_queries, 1u) << c.reason;  // the terms differ: SAT had to show it
  const auto c6 = refute(c0, edit(c0, "v_cmp_gt_u32_e32 vcc, 5, v3", "v_cmp_ge_u32_e32 vcc, 6, v3"));
  ASSERT_TRUE(c6.refuted()) << c6.reason;  // 5 > x and 6 >= x differ at x = 5 or 6
  const auto* v3 = input(*c6.cex, "v3");
  ASSERT_NE(v3, nullptr);
  EXPECT_TRUE(v3->value == 5u || v3->value == 6u) << c6.cex->text();
}

// K1's compare differs from K0's only where v1 = 256, and v1 was masked with 0xff before the window: K0's known
// bits there (bits 31:8 zero) rule it out. Without the mask (v_mov instead) the same edit is refuted with v1 = 256.
TEST(Refute, KnownBitsRuleTheDifferenceOut) {
  constexpr const char* k0 = R"(
k:
  v_and_b32_e32 v1, 0xff, v3
  v_cmp_gt_u32_e32 vcc, 0x100, v1
  v_cndmask_b32_e64 v2, 0, 1, vcc
  global_store_dword v[4:5], v2, off
  s_endpgm
)";
  const auto r = refute(k0, edit(k0, "vcc, 0x100, v1", "vcc, 0x101, v1"));
  EXPECT_EQ(r.kind, Refutation::Kind::none) << r.reason;
  const std::string unmasked = edit(k0, "v_and_b32_e32 v1, 0xff, v3", "v_mov_b32_e32 v1, v3");
  const auto u = refute(unmasked, edit(unmasked, "vcc, 0x100, v1", "vcc, 0x101, v1"));
  ASSERT_TRUE(u.refuted()) << u.reason;
  const auto* v1 = input(*u.cex, "v1");
  ASSERT_NE(v1, nullptr);
  EXPECT_EQ(v1->value, 0x100u) << u.cex->text();
}

// Float arithmetic is opaque: v_add_f32 and v_sub_f32 surely differ, but not in a way the circuits can show, so the
// answer is "cannot decide", never a counterexample that rests on an opaque value's freedom.
TEST(Refute, OpaqueResultsAreNotRefuted) {
  constexpr const char* k0 = "k:\n  v_add_f32_e32 v2, v3, v6\n  global_store_dword v[4:5], v2, off\n  s_endpgm\n";
  const auto r = refute(k0, edit(k0, "v_add_f32", "v_sub_f32"), float_facts());
  EXPECT_EQ(r.kind, Refutation::Kind::unknown) << r.reason;
  EXPECT_TRUE(has(r.reason, "opaque")) << r.reason;
  EXPECT_FALSE(r.cex.has_value());
}

// Refusals: an edit across a label is not one window, and a site outside the window is refused.
TEST(Refute, NotOneWindow) {
  const std::string k1 = edit(kAddOne, "v_add_u32_e32 v2, 1, v3", "v_add_u32_e32 v2, 2, v3");
  const Program p0 = parse(kAddOne), p1 = parse(k1);
  const auto wrong_site = refute_equivalence(p0, p1, InstId{1}, facts());
  EXPECT_EQ(wrong_site.kind, Refutation::Kind::unknown) << wrong_site.reason;
  EXPECT_TRUE(refute_equivalence(p0, p1, InstId{0}, facts()).refuted());
  const auto label = refute(kAddOne, edit(k1, "  global_store", "l:\n  global_store"));
  EXPECT_EQ(label.kind, Refutation::Kind::unknown) << label.reason;
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

// The adversarial edit that the runs missed: softmax (gfx942) tests exp's argument for underflow with
// v_cmp_gt_f32_e64 s[4:5], s6, v9 (s6 = -126.0 from s_mov_b32 s6, 0xc2fc0000); as v_cmp_ge_f32 it differs only where
// v9 = -126.0, which no input drew. The kernel descriptor keeps f32 denormals (float_denorm_mode_32 3), so the compare
// is exact and refute finds v9 = -126.0 under every launch shape; s[4:5] is the v_cndmask's lane mask after it.
TEST(EquivalenceCorpus, SoftmaxExpUnderflowTestRefuted) {
  ASMEVO_REQUIRE_CORPUS(corpus);
  const auto co = corpus / "triton" / "softmax_f32.gfx942.hsaco";
  const auto launch = std::filesystem::path(ASMEVO_SOURCE_DIR) / "tests/data/launch/triton/softmax_f32.json";
  auto k0 = verify::load_code_object(co.string());
  ASSERT_TRUE(k0.has_value()) << k0.error().message;
  auto shapes = verify::read_launch_file(launch);
  ASSERT_TRUE(shapes.has_value()) << shapes.error().message;
  const Program& p0 = k0->module.program;
  std::size_t at = 0;
  for (std::size_t i = 0; i < p0.items.size() && !at; ++i)
    if (p0.items[i].kind == Item::Kind::inst && print_inst(p0.items[i].inst) == "v_cmp_gt_f32_e64 s[4:5], s6, v9")
      at = i;
  ASSERT_NE(at, 0u);
  const InstId site = p0.items[at].inst.id;
  auto ge = parse_inst("v_cmp_ge_f32_e64 s[4:5], s6, v9", p0.target);
  ASSERT_TRUE(ge.has_value()) << ge.error().message;
  Program p1 = p0;
  p1.items[at].inst = *ge;
  p1.items[at].inst.id = site;
  ASSERT_FALSE(shapes->empty());
  for (std::size_t k = 0; k < shapes->size(); ++k) {
    SCOPED_TRACE("shape " + std::to_string(k));
    auto f = verify::launch_facts(k0->module, (*shapes)[k]);
    ASSERT_TRUE(f.has_value()) << f.error().message;
    ASSERT_GE(f->f32_mode, 0);
    EXPECT_FALSE(prove_equivalent(p0, p1, site, *f).proven);
    const auto r = refute_equivalence(p0, p1, site, *f);
    ASSERT_TRUE(r.refuted()) << r.reason;
    const auto* v9 = input(*r.cex, "v9");
    const auto* s6 = input(*r.cex, "s6");
    ASSERT_TRUE(v9 && s6) << r.cex->text();
    EXPECT_EQ(v9->value, 0xc2fc0000u) << r.cex->text();
    EXPECT_EQ(s6->value, 0xc2fc0000u) << r.cex->text();
    EXPECT_TRUE(s6->known);
    EXPECT_TRUE(r.cex->reg == "s4" || r.cex->reg == "s5") << r.cex->text();
    EXPECT_EQ(r.cex->k0, 0u) << r.cex->text();  // -126 > -126 is false in every lane
    EXPECT_NE(r.cex->k1, 0u) << r.cex->text();  // -126 >= -126 is true in the active ones
    EXPECT_EQ(r.cex->at, site);
    if (k == 0) std::printf("softmax gt -> ge: %s (%zu SAT queries)\n", r.cex->text().c_str(), r.sat_queries);
  }
  // The unedited compare and an equivalent spelling of it (v9 < s6) are not refuted.
  auto lt = parse_inst("v_cmp_lt_f32_e64 s[4:5], v9, s6", p0.target);
  ASSERT_TRUE(lt.has_value());
  Program p2 = p0;
  p2.items[at].inst = *lt;
  p2.items[at].inst.id = site;
  auto f = verify::launch_facts(k0->module, (*shapes)[0]);
  ASSERT_TRUE(f.has_value());
  const auto same = refute_equivalence(p0, p2, site, *f);
  EXPECT_EQ(same.kind, Refutation::Kind::none) << same.reason;
}

}  // namespace
}  // namespace asmevo::analysis
