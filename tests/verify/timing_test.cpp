// Tests of the cost model (timing.hpp): the rankings issue 5 asks for (loads issued early vs just before use; a
// memory-bound kernel at lower vs higher occupancy; an MFMA chain with vs without independent work between dependent
// MFMAs) and those issue 27 adds (dwordx4 against dword loads on a stream; four loads in flight against one; a
// software-pipelined row reduction against the plain loop; MFMAs interleaved with loads against MFMAs apart from them;
// 8 against 2 waves per SIMD is ranking b), the cache hierarchy a working set walks, the speed-of-light bound (never
// above the modeled cycles; what binds it), trace recording, LDS occupancy in allocation granules, the accounting
// invariant (each wave's attributed cycles add up to its modeled lifetime), and a sanity run on a Triton corpus kernel
// through `emulate` with timing on.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "asmevo/codeobject/module.hpp"
#include "asmevo/codeobject/recover.hpp"
#include "asmevo/emu/launch.hpp"
#include "asmevo/launch/launch_spec.hpp"
#include "asmevo/model/timing.hpp"
#include "asmevo/verify/timed_emulation.hpp"
#include "support/corpus.hpp"
#include "verify/emu_harness.hpp"

namespace {

using namespace asmevo;
using namespace asmevo::emu;
using namespace asmevo::model;

/// A snippet run with tracing on: one workgroup of `waves` waves; `base` is the byte offset of the wave's data in a
/// 4 MiB buffer whose address is in s[0:1]; v1 = lane * 4 + wave * 256 (a coalesced dword per lane).
struct Traced {
  std::unique_ptr<emu::test::Snippet> s;
  TraceConfig config;  ///< the target's line sizes and LDS geometry (model::trace_config)
  std::vector<WaveTrace> traces;
};

std::unique_ptr<Traced> traced(const std::string& text, unsigned waves = 1, std::uint64_t base = 0,
                               RunOptions opt = emu::test::eager(), Target target = Target::gfx942) {
  auto t = std::make_unique<Traced>();
  t->s = emu::test::make_snippet(text, target, waves, 65536, opt);
  if (!t->s) return nullptr;
  Region& r = t->s->machine.memory.region(t->s->machine.memory.map("buf", 4u << 20, true));
  const std::uint64_t addr = r.base + base;
  t->config = trace_config(timing_params(target));
  t->traces.resize(waves);
  for (WaveTrace& tr : t->traces) tr.config = &t->config;
  t->s->machine.hooks.after = &trace_step;
  for (unsigned i = 0; i < waves; ++i) {
    Wave& w = t->s->wave(i);
    w.trace = &t->traces[i];
    w.set_s64(0, addr);
    for (unsigned l = 0; l < wave_lanes; ++l) w.v[1][l] = l * 4 + i * 256;
  }
  const Stop& st = t->s->run();
  EXPECT_EQ(st.kind, Stop::Kind::none) << st.message;
  return t;
}

/// The model over `groups` copies (each a vector of wave traces) on one CU: the only busy one (`cus` 1), or one of
/// `cus` equally loaded ones (each with as many workgroups: its share of HBM and the Infinity Cache is 1/cus).
TimingReport model(const emu::test::Snippet& s, const std::vector<std::vector<WaveTrace>>& groups, std::uint32_t vgprs = 32,
                   std::uint32_t lds = 0, unsigned waves_per_group = 1, std::uint32_t cus = 1) {
  TimingInput in;
  in.target = s.machine.target;
  in.code = &s.code;
  in.vgprs = vgprs;
  in.sgprs = 32;
  in.lds_bytes = lds;
  in.waves_per_group = waves_per_group;
  in.workgroups = groups.size() * cus;
  in.cus = cus;
  in.groups = groups;
  return model_timing(in);
}

/// The speed-of-light bound is a lower bound: each of its terms and their maximum are at most the modeled cycles,
/// and the headroom is modeled / bound.
void expect_bound(const TimingReport& r) {
  const Bound& b = r.bound;
  EXPECT_GT(b.cycles, 0u);
  EXPECT_LE(b.cycles, r.modeled_cycles) << "bound by " << b.kind;
  EXPECT_EQ(b.cycles, std::max({b.memory, b.issue, b.latency, b.launch}));
  EXPECT_TRUE(b.kind == "memory" || b.kind == "issue" || b.kind == "latency" || b.kind == "launch") << b.kind;
  EXPECT_NEAR(b.headroom, double(r.modeled_cycles) / double(b.cycles), 1e-9);
}

/// Every executed instruction of the traces appears in the report with the right execution count.
void expect_accounted(const TimingReport& r, const std::vector<std::vector<WaveTrace>>& groups) {
  std::map<std::uint32_t, std::uint64_t> count;
  for (const auto& g : groups)
    for (const auto& w : g)
      for (const auto& st : w.steps) ++count[st.op];
  ASSERT_EQ(r.instructions.size(), count.size());
  for (const auto& row : r.instructions) {
    EXPECT_EQ(row.executions, count[row.op_index]) << "i" << row.id.value << " " << row.mnemonic;
    EXPECT_GT(row.issue, 0u) << "every executed instruction takes at least its issue slot";
  }
  expect_bound(r);
}

/// The accounting invariant a user reads the per-instruction breakdown by: every cycle of a wave's modeled life
/// (from its first issue opportunity to the end of its last instruction's issue hold) is attributed to exactly one
/// of its executed instructions, as issue or as one kind of stall; so per wave attributed == end - start, and over
/// all waves the attributed cycles are the report's wave_cycles (the sum over its instruction rows).
void expect_lifetimes(const TimingReport& r, const std::vector<std::vector<WaveTrace>>& groups) {
  std::size_t nwaves = 0;
  for (const auto& g : groups)
    for (const auto& w : g) nwaves += !w.steps.empty();
  ASSERT_EQ(r.waves.size(), nwaves);
  const unsigned issue = timing_params(r.target).issue_interval.value;
  std::uint64_t sum = 0, last = 0;
  for (const WaveTiming& w : r.waves) {
    ASSERT_LT(w.group, groups.size());
    ASSERT_LT(w.wave, groups[w.group].size());
    const std::uint64_t steps = groups[w.group][w.wave].steps.size();
    ASSERT_GE(w.end, w.start);
    EXPECT_EQ(w.attributed, w.end - w.start) << "group " << w.group << " wave " << w.wave << ": attributed "
                                             << w.attributed << " cycles over a life of " << w.end - w.start;
    EXPECT_GE(w.end - w.start, steps * issue) << "every instruction holds the wave for at least one issue slot";
    sum += w.attributed;
    last = std::max(last, w.end);
  }
  EXPECT_EQ(sum, r.wave_cycles) << "the per-wave figures are the per-instruction rows, split by wave";
  EXPECT_EQ(last + r.drain_cycles, r.simulated_cycles) << "the launch ends with its last wave and the stores' write-back";
  // With a single wave the rows alone are that wave's: their totals must add up to its life.
  if (r.waves.size() == 1) {
    std::uint64_t rows = 0;
    for (const auto& row : r.instructions) rows += row.total();
    EXPECT_EQ(rows, r.waves[0].end - r.waves[0].start);
  }
}

// ---- trace recording ---------------------------------------------------------------------------------------------

TEST(Trace, RecordsStepsAndMemoryAccesses) {
  // Coalesced dword load: 64 lanes x 4 bytes = 256 bytes = two 128-byte lines; a stride-128 load touches 64 lines;
  // ds_read_b32 of consecutive dwords: 64 lanes over 32 banks = 2 LDS cycles, a stride of 32 dwords puts every lane
  // of a 32-lane group in one bank = 32 cycles per group.
  for (const auto completion : {Completion::eager, Completion::adversarial}) {
    RunOptions o = emu::test::eager();
    o.completion = completion;
    auto t = traced(
        "\tglobal_load_dword v10, v1, s[0:1]\n"
        "\tv_lshlrev_b32 v2, 5, v1\n"
        "\tglobal_load_dword v11, v2, s[0:1]\n"
        "\tds_read_b32 v12, v1\n"
        "\tds_read_b32 v13, v2\n"
        "\ts_waitcnt vmcnt(0) lgkmcnt(0)\n",
        1, 0, o);
    ASSERT_TRUE(t);
    const WaveTrace& w = t->traces[0];
    ASSERT_EQ(w.steps.size(), 7u);  // six instructions and s_endpgm
    for (std::uint32_t i = 0; i < 7; ++i) EXPECT_EQ(w.steps[i].op, i);
    ASSERT_EQ(w.mems.size(), 4u);
    EXPECT_EQ(w.mems[w.steps[0].mem].nlines, 2u);
    EXPECT_EQ(w.mems[w.steps[0].mem].lanes, 64u);
    EXPECT_EQ(w.mems[w.steps[2].mem].nlines, 64u);
    EXPECT_EQ(w.mems[w.steps[3].mem].lds_cycles, 2u);
    EXPECT_EQ(w.mems[w.steps[4].mem].lds_cycles, 64u);
    EXPECT_EQ(w.steps[1].mem, ~0u);
  }
}

// ---- ranking (a): loads issued early vs each just before its use -------------------------------------------------

TEST(Ranking, EarlyLoadsAreCheaper) {
  // The same eight instructions of work per load, four loads; only the order differs.
  std::string early, late;
  for (int i = 0; i < 4; ++i) early += "\tglobal_load_dword v" + std::to_string(10 + i) + ", v1, s[0:1] offset:" + std::to_string(i * 1024) + "\n";
  for (int i = 0; i < 4; ++i) {
    early += "\ts_waitcnt vmcnt(" + std::to_string(3 - i) + ")\n";
    for (int k = 0; k < 8; ++k) early += "\tv_add_u32 v20, v" + std::to_string(10 + i) + ", v20\n";
  }
  for (int i = 0; i < 4; ++i) {
    late += "\tglobal_load_dword v" + std::to_string(10 + i) + ", v1, s[0:1] offset:" + std::to_string(i * 1024) + "\n";
    late += "\ts_waitcnt vmcnt(0)\n";
    for (int k = 0; k < 8; ++k) late += "\tv_add_u32 v20, v" + std::to_string(10 + i) + ", v20\n";
  }
  for (unsigned waves : {1u, 4u}) {
    auto te = traced(early, waves), tl = traced(late, waves);
    ASSERT_TRUE(te && tl);
    const std::vector<std::vector<WaveTrace>> ge{te->traces}, gl{tl->traces};
    const TimingReport re = model(*te->s, ge, 32, 0, waves), rl = model(*tl->s, gl, 32, 0, waves);
    expect_accounted(re, ge);
    expect_accounted(rl, gl);
    EXPECT_LT(re.modeled_cycles, rl.modeled_cycles);
    std::printf("[ranking a] %u wave(s): early %llu cycles, late %llu cycles, late/early = %.2f\n", waves,
                static_cast<unsigned long long>(re.modeled_cycles), static_cast<unsigned long long>(rl.modeled_cycles),
                static_cast<double>(rl.modeled_cycles) / static_cast<double>(re.modeled_cycles));
    // The late kernel's time goes to waiting for memory: its s_waitcnt rows carry the stall.
    std::uint64_t wait_late = 0, wait_early = 0;
    for (const auto& row : rl.instructions) wait_late += row.stall_waitcnt;
    for (const auto& row : re.instructions) wait_early += row.stall_waitcnt;
    EXPECT_GT(wait_late, wait_early);
  }
}

// ---- ranking (b): memory-bound kernel at lower vs higher occupancy ----------------------------------------------

TEST(Ranking, HigherOccupancyIsCheaperWhenMemoryBound) {
  // An elementwise kernel as compiled: each wave reads 1 KiB it has not touched before (4 coalesced dword loads, each
  // waited for: one load in flight), adds, stores. 32 workgroups of 4 waves on each of MI300X's 304 CUs, so the CU
  // gets 1/304 of HBM: at 8 waves per SIMD the waves' loads in flight keep it busy (memory bound); at 2 they cannot.
  std::string text;
  for (int i = 0; i < 4; ++i)
    text += "\tglobal_load_dword v" + std::to_string(10 + i) + ", v1, s[0:1] offset:" + std::to_string(i * 1024) +
            "\n\ts_waitcnt vmcnt(0)\n\tv_add_u32 v20, v" + std::to_string(10 + i) + ", v20\n";
  text += "\tglobal_store_dword v1, v20, s[0:1] offset:3072\n";
  std::vector<std::unique_ptr<Traced>> runs;
  std::vector<std::vector<WaveTrace>> groups;
  const emu::test::Snippet* code = nullptr;
  for (unsigned g = 0; g < 32; ++g) {
    runs.push_back(traced(text, 4, std::uint64_t{g} * 4096 * 4));
    ASSERT_TRUE(runs.back());
    groups.push_back(runs.back()->traces);
    code = runs.back()->s.get();
  }
  // Occupancy cut by VGPRs: 32 VGPRs -> 8 waves per SIMD; 256 -> 2; 512 -> 1.
  const TimingReport hi = model(*code, groups, 32, 0, 4, 304), mid = model(*code, groups, 256, 0, 4, 304),
                     lo = model(*code, groups, 512, 0, 4, 304);
  EXPECT_EQ(hi.waves_per_simd, 8u);
  EXPECT_EQ(mid.waves_per_simd, 2u);
  EXPECT_EQ(lo.waves_per_simd, 1u);
  EXPECT_EQ(lo.occupancy_limiter, "vgprs");
  expect_accounted(hi, groups);
  EXPECT_EQ(hi.bound.kind, "memory");
  EXPECT_LT(hi.bound.headroom, 1.5) << "at 8 waves per SIMD the stream runs near its memory bound";
  EXPECT_LT(hi.modeled_cycles, mid.modeled_cycles);
  EXPECT_LT(mid.modeled_cycles, lo.modeled_cycles);
  // Occupancy cut by LDS instead: 64 KiB per workgroup -> one resident workgroup.
  const TimingReport lds = model(*code, groups, 32, 65536, 4, 304);
  EXPECT_EQ(lds.groups_per_cu, 1u);
  EXPECT_EQ(lds.occupancy_limiter, "lds");
  EXPECT_LT(hi.modeled_cycles, lds.modeled_cycles);
  std::printf("[ranking b] 8 waves/SIMD %llu, 2 waves/SIMD %llu, 1 wave/SIMD %llu, 1 group (LDS) %llu cycles; "
              "2 vs 8 waves = %.2f, lo/hi = %.2f, lds/hi = %.2f\n",
              static_cast<unsigned long long>(hi.modeled_cycles), static_cast<unsigned long long>(mid.modeled_cycles),
              static_cast<unsigned long long>(lo.modeled_cycles), static_cast<unsigned long long>(lds.modeled_cycles),
              static_cast<double>(mid.modeled_cycles) / static_cast<double>(hi.modeled_cycles),
              static_cast<double>(lo.modeled_cycles) / static_cast<double>(hi.modeled_cycles),
              static_cast<double>(lds.modeled_cycles) / static_cast<double>(hi.modeled_cycles));
}

// ---- ranking (c): MFMA chain with vs without independent work between dependent MFMAs -----------------------------

TEST(Ranking, InterleavedMfmaChainsAreCheaper) {
  // Two chains of 8 MFMAs; in each chain an MFMA's srcA is the previous one's result (a true dependency, which the
  // srcC forwarding path does not cover). Sequential: chain A then chain B. Interleaved: A1 B1 A2 B2 ... Same
  // instructions, same dependencies.
  auto link = [](int chain, int i) {
    const int d = chain ? 40 : 20, s = chain ? 44 : 24;  // results alternate between v[d:d+3] and v[s:s+3]
    const int dst = (i % 2) ? s : d, src = (i % 2) ? d : s;
    return "\tv_mfma_f32_16x16x16_f16 v[" + std::to_string(dst) + ":" + std::to_string(dst + 3) + "], v[" +
           std::to_string(src) + ":" + std::to_string(src + 1) + "], v[2:3], v[4:7]\n";
  };
  std::string seq, inter;
  for (int c = 0; c < 2; ++c)
    for (int i = 0; i < 8; ++i) seq += link(c, i);
  for (int i = 0; i < 8; ++i) inter += link(0, i) + link(1, i);
  auto ts = traced(seq), ti = traced(inter);
  ASSERT_TRUE(ts && ti);
  const std::vector<std::vector<WaveTrace>> gs{ts->traces}, gi{ti->traces};
  ASSERT_EQ(gs[0][0].steps.size(), 17u) << "every MFMA ran (MFMA semantics present)";
  const TimingReport rs = model(*ts->s, gs), ri = model(*ti->s, gi);
  expect_accounted(rs, gs);
  expect_accounted(ri, gi);
  EXPECT_LT(ri.modeled_cycles, rs.modeled_cycles);
  std::uint64_t dep_s = 0, dep_i = 0;
  for (const auto& row : rs.instructions) dep_s += row.stall_dependency;
  for (const auto& row : ri.instructions) dep_i += row.stall_dependency;
  EXPECT_GT(dep_s, dep_i);
  std::printf("[ranking c] sequential %llu cycles, interleaved %llu cycles, seq/inter = %.2f\n",
              static_cast<unsigned long long>(rs.modeled_cycles), static_cast<unsigned long long>(ri.modeled_cycles),
              static_cast<double>(rs.modeled_cycles) / static_cast<double>(ri.modeled_cycles));
}

TEST(Ranking, ValuWorkBetweenDependentMfmasIsCheaper) {
  // One chain of 8 MFMAs, each reading the previous result as srcA (a true dependency), and 56 VALU instructions
  // that touch none of the chain's registers. "After": the chain back to back, then the VALU work. "Between": 8 of
  // the VALU instructions between each pair of dependent MFMAs. Same instructions, same dependencies; the VALU work
  // can only hide the MFMA latency in the second order.
  auto mfma = [](int i) {
    const int dst = (i % 2) ? 24 : 20, src = (i % 2) ? 20 : 24;
    return "\tv_mfma_f32_16x16x16_f16 v[" + std::to_string(dst) + ":" + std::to_string(dst + 3) + "], v[" +
           std::to_string(src) + ":" + std::to_string(src + 1) + "], v[2:3], v[4:7]\n";
  };
  auto valu = [](int j) {
    const std::string r = "v" + std::to_string(60 + j % 8);
    return "\tv_add_u32 " + r + ", " + r + ", v1\n";
  };
  std::string after, between;
  for (int i = 0; i < 8; ++i) after += mfma(i);
  for (int j = 0; j < 56; ++j) after += valu(j);
  for (int i = 0; i < 8; ++i) {
    between += mfma(i);
    if (i < 7)
      for (int j = 0; j < 8; ++j) between += valu(i * 8 + j);
  }
  auto ta = traced(after), tb = traced(between);
  ASSERT_TRUE(ta && tb);
  const std::vector<std::vector<WaveTrace>> ga{ta->traces}, gb{tb->traces};
  ASSERT_EQ(ga[0][0].steps.size(), 65u);
  ASSERT_EQ(gb[0][0].steps.size(), 65u);
  const TimingReport ra = model(*ta->s, ga), rb = model(*tb->s, gb);
  expect_accounted(ra, ga);
  expect_accounted(rb, gb);
  expect_lifetimes(ra, ga);
  expect_lifetimes(rb, gb);
  EXPECT_LT(rb.modeled_cycles, ra.modeled_cycles);
  std::uint64_t dep_a = 0, dep_b = 0;
  for (const auto& row : ra.instructions) dep_a += row.stall_dependency;
  for (const auto& row : rb.instructions) dep_b += row.stall_dependency;
  EXPECT_GT(dep_a, dep_b) << "the dependent MFMAs wait less when VALU work sits between them";
  std::printf("[ranking c2] VALU after the chain %llu cycles, VALU between dependent MFMAs %llu cycles, after/between = "
              "%.2f (dependency stalls %llu vs %llu)\n",
              static_cast<unsigned long long>(ra.modeled_cycles), static_cast<unsigned long long>(rb.modeled_cycles),
              static_cast<double>(ra.modeled_cycles) / static_cast<double>(rb.modeled_cycles),
              static_cast<unsigned long long>(dep_a), static_cast<unsigned long long>(dep_b));
}

TEST(Model, SnopAndBarrierAreCharged) {
  // s_nop 7 holds the wave for 8 wait states; a barrier makes the fast wave wait for the slow one.
  auto a = traced("\ts_nop 0\n"), b = traced("\ts_nop 7\n");
  ASSERT_TRUE(a && b);
  const std::vector<std::vector<WaveTrace>> ga{a->traces}, gb{b->traces};
  EXPECT_LT(model(*a->s, ga).modeled_cycles, model(*b->s, gb).modeled_cycles);

  auto t = traced("\tv_cmp_eq_u32 vcc, 0, v1\n"  // lane 0 of wave 0 only: v1 = 0
                  "\ts_cbranch_vccz 2\n"
                  "\tv_exp_f32 v5, v5\n\tv_exp_f32 v5, v5\n"
                  "\ts_barrier\n", 2);
  ASSERT_TRUE(t);
  const std::vector<std::vector<WaveTrace>> g{t->traces};
  const TimingReport r = model(*t->s, g, 32, 0, 2);
  std::uint64_t barrier = 0;
  for (const auto& row : r.instructions) barrier += row.stall_barrier;
  EXPECT_GT(barrier, 0u) << "wave 1 skips the two transcendental ops and waits for wave 0";
}

TEST(Model, BarrierStallStartsAfterTheIssueHold) {
  // One wave: s_barrier issues at its first opportunity S and holds the wave one issue interval; the barrier opens
  // `barrier` cycles after the last (only) arrival, at S + barrier; s_endpgm issues then and holds one interval.
  // Life: barrier + issue_interval cycles; the s_barrier row is issue_interval of issue and the rest of the wait.
  auto t = traced("\ts_barrier\n");
  ASSERT_TRUE(t);
  const std::vector<std::vector<WaveTrace>> g{t->traces};
  const TimingReport r = model(*t->s, g);
  const TimingParams& p = timing_params(Target::gfx942);
  const std::uint64_t ii = p.issue_interval.value, bar = p.barrier.value;
  ASSERT_EQ(r.waves.size(), 1u);
  EXPECT_EQ(r.waves[0].end - r.waves[0].start, bar + ii);
  ASSERT_EQ(r.instructions.size(), 2u);
  EXPECT_EQ(r.instructions[0].mnemonic, "s_barrier");
  EXPECT_EQ(r.instructions[0].issue, ii);
  EXPECT_EQ(r.instructions[0].stall_barrier, bar - ii);
  EXPECT_EQ(r.instructions[1].total(), ii);
  expect_lifetimes(r, g);
}

TEST(Model, AttributedCyclesAddUpToEachWavesLife) {
  // Snippets covering every way a wave is held: a barrier (one wave; four waves with uneven work before two
  // barriers), s_waitcnt on global and scalar loads, an MFMA dependency chain (eight waves: two share each SIMD's
  // MFMA unit), LDS traffic with bank conflicts; each as one workgroup and as three workgroups that occupancy
  // (256 VGPRs: 2 waves per SIMD) makes partly wait for each other.
  std::string mfma_chain;
  for (int i = 0; i < 8; ++i) {
    const int dst = (i % 2) ? 24 : 20, src = (i % 2) ? 20 : 24;
    mfma_chain += "\tv_mfma_f32_16x16x16_f16 v[" + std::to_string(dst) + ":" + std::to_string(dst + 3) + "], v[" +
                  std::to_string(src) + ":" + std::to_string(src + 1) + "], v[2:3], v[4:7]\n";
  }
  const std::string uneven =  // wave w runs w iterations of a loop of two transcendental ops before the barrier
      "\tv_readfirstlane_b32 s2, v1\n"
      "\ts_lshr_b32 s3, s2, 8\n"
      ".Lloop:\n"
      "\ts_cmp_eq_u32 s3, 0\n"
      "\ts_cbranch_scc1 .Ldone\n"
      "\tv_exp_f32 v5, v5\n"
      "\tv_exp_f32 v6, v6\n"
      "\ts_sub_u32 s3, s3, 1\n"
      "\ts_branch .Lloop\n"
      ".Ldone:\n"
      "\ts_barrier\n"
      "\tv_add_u32 v7, v7, v1\n"
      "\ts_barrier\n";
  struct Case {
    const char* name;
    std::string text;
    unsigned waves;
  };
  const std::vector<Case> cases = {
      {"barrier, 1 wave", "\ts_barrier\n", 1},
      {"barrier, 4 waves of uneven work", uneven, 4},
      {"waitcnt on a global load",
       "\tglobal_load_dword v10, v1, s[0:1]\n\ts_load_dword s4, s[0:1], 0x0\n\ts_waitcnt vmcnt(0)\n"
       "\tv_add_u32 v2, v10, v10\n\ts_waitcnt lgkmcnt(0)\n\tv_add_u32 v3, s4, v2\n"
       "\tglobal_store_dword v1, v3, s[0:1] offset:2048\n",
       4},
      {"MFMA dependency chain", mfma_chain, 8},
      {"LDS traffic",
       "\tv_lshlrev_b32 v2, 5, v1\n\tds_write_b32 v1, v1\n\tds_read_b32 v3, v2\n\tds_read_b32 v4, v1\n"
       "\ts_waitcnt lgkmcnt(1)\n\tv_add_u32 v5, v3, v3\n\ts_waitcnt lgkmcnt(0)\n\tv_add_u32 v6, v4, v4\n",
       4},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto t = traced(c.text, c.waves);
    ASSERT_TRUE(t);
    if (c.text == uneven)
      for (unsigned w = 1; w < c.waves; ++w)
        EXPECT_LT(t->traces[w - 1].steps.size(), t->traces[w].steps.size()) << "wave " << w << " works longer";
    const std::vector<std::vector<WaveTrace>> one{t->traces}, three{t->traces, t->traces, t->traces};
    const TimingReport r1 = model(*t->s, one, 32, 0, c.waves), r3 = model(*t->s, three, 256, 0, c.waves);
    expect_accounted(r1, one);
    expect_lifetimes(r1, one);
    expect_lifetimes(r3, three);
    std::uint64_t min_life = ~0ull, max_life = 0;
    for (const WaveTiming& w : r1.waves) {
      min_life = std::min(min_life, w.end - w.start);
      max_life = std::max(max_life, w.end - w.start);
    }
    std::printf("[lifetimes] %-32s %u wave(s): lives %llu..%llu cycles, 1 group %llu cycles, 3 groups %llu cycles\n",
                c.name, c.waves, static_cast<unsigned long long>(min_life), static_cast<unsigned long long>(max_life),
                static_cast<unsigned long long>(r1.modeled_cycles), static_cast<unsigned long long>(r3.modeled_cycles));
  }
}

// ---- rankings hardware is known to show (issue 27) ------------------------------------------------------------

/// `groups` workgroups of `waves` waves running `text`, each workgroup at its own 64 KiB of the buffer (cold lines),
/// modeled on one CU.
struct Many {
  std::vector<std::unique_ptr<Traced>> runs;
  std::vector<std::vector<WaveTrace>> groups;
  const emu::test::Snippet* code = nullptr;
};
std::unique_ptr<Many> many(const std::string& text, unsigned groups, unsigned waves) {
  auto m = std::make_unique<Many>();
  for (unsigned g = 0; g < groups; ++g) {
    m->runs.push_back(traced(text, waves, std::uint64_t{g} * 65536));
    if (!m->runs.back()) return nullptr;
    m->groups.push_back(m->runs.back()->traces);
    m->code = m->runs.back()->s.get();
  }
  return m;
}

double ratio(const TimingReport& slow, const TimingReport& fast) {
  return static_cast<double>(slow.modeled_cycles) / static_cast<double>(fast.modeled_cycles);
}

TEST(Ranking, DwordX4LoadsBeatDwordLoadsOnAMemoryBoundStream) {
  // A stream as compiled code runs it: each wave keeps 4 loads in flight (4 loads, one wait, 4 adds, again) and reads
  // 16 KiB of its workgroup's cold 64 KiB, either as 16 global_load_dwordx4 of 1 KiB or as 64 global_load_dword of
  // 256 bytes. The CU is one of MI300X's 304, all equally loaded (16 workgroups each, 4 waves at one wave per SIMD),
  // so it gets 1/304 of HBM bandwidth: the dwordx4 stream is memory bound; the dword one moves a quarter of the
  // bytes per load in flight, and by Little's law cannot keep HBM busy (the AMD tuning guides' advice to widen loads).
  std::string x4 = "\tv_lshlrev_b32 v2, 2, v1\n", x1;
  for (int j = 0; j < 16; ++j) {
    const int r = 10 + 4 * (j % 4);
    x4 += "\tglobal_load_dwordx4 v[" + std::to_string(r) + ":" + std::to_string(r + 3) + "], v2, s[0:1]\n"
          "\tv_add_u32 v2, 0x1000, v2\n";
    if (j % 4 == 3)
      x4 += "\ts_waitcnt vmcnt(0)\n\tv_add_u32 v40, v10, v40\n\tv_add_u32 v40, v14, v40\n"
            "\tv_add_u32 v40, v18, v40\n\tv_add_u32 v40, v22, v40\n";
  }
  for (int k = 0; k < 64; ++k) {
    x1 += "\tglobal_load_dword v" + std::to_string(10 + k % 4) + ", v1, s[0:1]\n\tv_add_u32 v1, 0x400, v1\n";
    if (k % 4 == 3)
      x1 += "\ts_waitcnt vmcnt(0)\n\tv_add_u32 v40, v10, v40\n\tv_add_u32 v40, v11, v40\n"
            "\tv_add_u32 v40, v12, v40\n\tv_add_u32 v40, v13, v40\n";
  }
  auto a = many(x4, 16, 4), b = many(x1, 16, 4);
  ASSERT_TRUE(a && b);
  // 512 VGPRs: one wave per SIMD.
  const TimingReport ra = model(*a->code, a->groups, 512, 0, 4, 304), rb = model(*b->code, b->groups, 512, 0, 4, 304);
  expect_accounted(ra, a->groups);
  expect_accounted(rb, b->groups);
  EXPECT_EQ(ra.waves_per_simd, 1u);
  EXPECT_EQ(ra.memory.hbm_lines, rb.memory.hbm_lines) << "the same bytes, all from HBM";
  EXPECT_EQ(ra.memory.hbm_lines, 16u * 512) << "16 KiB a wave, 64 KiB a workgroup, 128-byte lines";
  EXPECT_EQ(ra.bound.kind, "memory");
  EXPECT_LT(ra.bound.headroom, 1.5) << "the dwordx4 stream runs near its memory bound";
  EXPECT_LT(ra.modeled_cycles, rb.modeled_cycles);
  std::printf("[ranking x4] dwordx4 %llu cycles (%.2fx its bound), dword %llu cycles (%.2fx), dword/dwordx4 = %.2f\n",
              static_cast<unsigned long long>(ra.modeled_cycles), ra.bound.headroom,
              static_cast<unsigned long long>(rb.modeled_cycles), rb.bound.headroom, ratio(rb, ra));
}

TEST(Ranking, FourLoadsInFlightBeatOne) {
  // The same 16 dwordx4 loads per wave (16 KiB, cold), waited for one at a time or four at a time; 4 workgroups of
  // 4 waves at one wave per SIMD (512 VGPRs), where nothing but the wave's own loads in flight hides the latency.
  std::string one = "\tv_lshlrev_b32 v2, 2, v1\n", four = one;
  for (int i = 0; i < 16; ++i) {
    const std::string ld = "\tglobal_load_dwordx4 v[" + std::to_string(10 + 4 * (i % 4)) + ":" +
                           std::to_string(13 + 4 * (i % 4)) + "], v2, s[0:1] offset:" + std::to_string((i % 4) * 1024) + "\n";
    one += ld + "\ts_waitcnt vmcnt(0)\n\tv_add_u32 v40, v" + std::to_string(10 + 4 * (i % 4)) + ", v40\n";
    if (i % 4 == 3) one += "\tv_add_u32 v2, 0x1000, v2\n";
  }
  for (int i = 0; i < 16; i += 4) {
    for (int k = 0; k < 4; ++k)
      four += "\tglobal_load_dwordx4 v[" + std::to_string(10 + 4 * k) + ":" + std::to_string(13 + 4 * k) +
              "], v2, s[0:1] offset:" + std::to_string(k * 1024) + "\n";
    four += "\ts_waitcnt vmcnt(0)\n";
    for (int k = 0; k < 4; ++k) four += "\tv_add_u32 v40, v" + std::to_string(10 + 4 * k) + ", v40\n";
    four += "\tv_add_u32 v2, 0x1000, v2\n";
  }
  auto a = many(four, 4, 4), b = many(one, 4, 4);
  ASSERT_TRUE(a && b);
  const TimingReport ra = model(*a->code, a->groups, 512, 0, 4), rb = model(*b->code, b->groups, 512, 0, 4);
  EXPECT_EQ(ra.waves_per_simd, 1u);
  expect_accounted(ra, a->groups);
  expect_accounted(rb, b->groups);
  EXPECT_LT(ra.modeled_cycles, rb.modeled_cycles);
  std::printf("[ranking mlp] 4 loads in flight %llu cycles, 1 load in flight %llu cycles, one/four = %.2f\n",
              static_cast<unsigned long long>(ra.modeled_cycles), static_cast<unsigned long long>(rb.modeled_cycles),
              ratio(rb, ra));
}

TEST(Ranking, SoftwarePipelinedRowReductionBeatsThePlainLoop) {
  // A row reduction of 8 chunks per wave, each chunk a dwordx4 load and 8 dependent adds. Plain: load chunk i, wait,
  // reduce it. Pipelined: chunk i+1's load is issued before chunk i is reduced (vmcnt(1)). One wave per SIMD (the
  // latency-bound case: nothing else hides the load).
  auto load = [](int i) {
    return "\tglobal_load_dwordx4 v[" + std::to_string(10 + 4 * (i % 2)) + ":" + std::to_string(13 + 4 * (i % 2)) +
           "], v2, s[0:1] offset:" + std::to_string(i % 4 * 1024) + (i % 4 == 3 ? "\n\tv_add_u32 v2, 0x1000, v2\n" : "\n");
  };
  auto reduce = [](int i) {
    std::string r;
    const int base = 10 + 4 * (i % 2);
    for (int k = 0; k < 4; ++k) r += "\tv_add_f32 v40, v" + std::to_string(base + k) + ", v40\n";
    for (int k = 0; k < 4; ++k) r += "\tv_mul_f32 v40, v40, v40\n";
    return r;
  };
  std::string plain = "\tv_lshlrev_b32 v2, 2, v1\n", piped = plain;
  for (int i = 0; i < 8; ++i) plain += load(i) + "\ts_waitcnt vmcnt(0)\n" + reduce(i);
  piped += load(0);
  for (int i = 0; i < 8; ++i) {
    if (i + 1 < 8) piped += load(i + 1) + "\ts_waitcnt vmcnt(1)\n";
    else piped += "\ts_waitcnt vmcnt(0)\n";
    piped += reduce(i);
  }
  auto a = many(piped, 1, 4), b = many(plain, 1, 4);
  ASSERT_TRUE(a && b);
  const TimingReport ra = model(*a->code, a->groups, 64, 0, 4), rb = model(*b->code, b->groups, 64, 0, 4);
  expect_accounted(ra, a->groups);
  expect_accounted(rb, b->groups);
  EXPECT_LT(ra.modeled_cycles, rb.modeled_cycles);
  EXPECT_EQ(rb.bound.kind, "latency") << "one wave per SIMD waiting on each load: the chain binds";
  std::printf("[ranking pipeline] pipelined %llu cycles, plain %llu cycles, plain/pipelined = %.2f\n",
              static_cast<unsigned long long>(ra.modeled_cycles), static_cast<unsigned long long>(rb.modeled_cycles),
              ratio(rb, ra));
}

TEST(Ranking, MfmasInterleavedWithLoadsBeatMfmasApartFromThem) {
  // One wave per SIMD computes 8 independent MFMAs on tiles it holds and loads the next 8 KiB (cold): "apart"
  // issues the MFMAs, then the loads, then waits; "interleaved" alternates them, so the loads are in flight while
  // the matrix unit works.
  auto mfma = [](int i) {
    const int d = 20 + 4 * (i % 4);
    return "\tv_mfma_f32_16x16x16_f16 v[" + std::to_string(d) + ":" + std::to_string(d + 3) + "], v[2:3], v[4:5], v[" +
           std::to_string(d) + ":" + std::to_string(d + 3) + "]\n";
  };
  auto load = [](int i) {
    return "\tglobal_load_dwordx4 v[" + std::to_string(40 + 4 * i) + ":" + std::to_string(43 + 4 * i) +
           "], v6, s[0:1] offset:" + std::to_string(i * 1024 % 4096) + (i == 3 ? "\n\tv_add_u32 v6, 0x1000, v6\n" : "\n");
  };
  std::string apart = "\tv_lshlrev_b32 v6, 2, v1\n", inter = apart;
  for (int i = 0; i < 8; ++i) apart += mfma(i);
  for (int i = 0; i < 8; ++i) apart += load(i);
  for (int i = 0; i < 8; ++i) inter += load(i) + mfma(i);
  apart += "\ts_waitcnt vmcnt(0)\n";
  inter += "\ts_waitcnt vmcnt(0)\n";
  auto a = many(inter, 1, 4), b = many(apart, 1, 4);
  ASSERT_TRUE(a && b);
  const TimingReport ra = model(*a->code, a->groups, 128, 0, 4), rb = model(*b->code, b->groups, 128, 0, 4);
  expect_accounted(ra, a->groups);
  expect_accounted(rb, b->groups);
  EXPECT_LT(ra.modeled_cycles, rb.modeled_cycles);
  std::printf("[ranking mfma+loads] interleaved %llu cycles, apart %llu cycles, apart/interleaved = %.2f\n",
              static_cast<unsigned long long>(ra.modeled_cycles), static_cast<unsigned long long>(rb.modeled_cycles),
              ratio(rb, ra));
}

// ---- the cache hierarchy and the bound -----------------------------------------------------------------------

TEST(Hierarchy, AWorkingSetWalksTheLevelsByCapacity) {
  // One wave re-reads N bytes (coalesced dwordx4 loads, each waited for): 16 KiB stays in L1, 1 MiB in L2 (this CU
  // alone has its XCD's 4 MiB), so the second pass of each is served there; the first pass of both comes from HBM.
  std::vector<double> per_load;
  for (const unsigned kib : {16u, 1024u}) {
    std::string text = "\tv_lshlrev_b32 v2, 2, v1\n\tv_mov_b32 v3, v2\n";
    for (int pass = 0; pass < 2; ++pass) {
      text += "\tv_mov_b32 v2, v3\n";
      for (unsigned k = 0; k < kib; ++k) {
        text += "\tglobal_load_dwordx4 v[10:13], v2, s[0:1]\n\ts_waitcnt vmcnt(0)\n\tv_add_u32 v2, 0x400, v2\n";
      }
    }
    auto t = traced(text, 1);
    ASSERT_TRUE(t);
    const std::vector<std::vector<WaveTrace>> g{t->traces};
    const TimingReport r = model(*t->s, g);
    expect_bound(r);
    const std::uint64_t lines = kib * 1024 / 128;
    EXPECT_EQ(r.memory.hbm_lines, lines) << kib << " KiB: the first pass is cold";
    if (kib <= 32) EXPECT_EQ(r.memory.l1_lines, lines) << "the second pass hits L1";
    else EXPECT_EQ(r.memory.l2_lines, lines) << "the second pass hits L2";
    // Each load waits for the last, so a pass costs its loads' latency: the second pass is faster than the first
    // (L1 or L2 against HBM), and an L1 pass faster per load than an L2 pass.
    per_load.push_back(double(r.modeled_cycles) / double(2 * kib));
    std::printf("[hierarchy] %u KiB: %llu HBM lines, %llu L2, %llu L1; %.1f cycles per load\n", kib,
                static_cast<unsigned long long>(r.memory.hbm_lines), static_cast<unsigned long long>(r.memory.l2_lines),
                static_cast<unsigned long long>(r.memory.l1_lines), per_load.back());
  }
  ASSERT_EQ(per_load.size(), 2u);
  const auto& p = timing_params(Target::gfx942);
  EXPECT_LT(per_load[0], per_load[1]) << "an L1-resident second pass is cheaper per load than an L2-resident one";
  // Half the loads from HBM, half from the level that keeps the set: the mean lies between the two latencies.
  EXPECT_GT(per_load[0], 0.5 * (p.hbm_latency.value + p.l1_latency.value));
  EXPECT_GT(per_load[1], 0.5 * (p.hbm_latency.value + p.l2_latency.value));
}

TEST(Bound, WritesAtomicsAndScalarLoadsAreChargedToHbmAsTheBoundCountsThem) {
  // What the bound's memory term counts (lines first read, plus lines written, each written back once) the model's
  // HBM queue is charged too. One wave, coalesced dwords: 256 bytes, two 128-byte lines per access; gfx942.
  struct Case {
    const char* what;
    std::string text;
    std::uint64_t hbm, writeback, scalar_hbm, bound_lines;
  };
  const Case cases[] = {
      {"two stores to the same lines: one write-back",
       "\tglobal_store_dword v1, v2, s[0:1]\n\tglobal_store_dword v1, v3, s[0:1]\n\ts_waitcnt vmcnt(0)\n", 0, 2, 0, 2},
      {"read then write in place: a read and a write-back",
       "\tglobal_load_dword v2, v1, s[0:1]\n\ts_waitcnt vmcnt(0)\n\tv_add_u32 v2, 1, v2\n"
       "\tglobal_store_dword v1, v2, s[0:1]\n\ts_waitcnt vmcnt(0)\n",
       2, 2, 0, 4},
      {"write then read: the read finds the line in L2, no HBM read",
       "\tglobal_store_dword v1, v2, s[0:1]\n\ts_waitcnt vmcnt(0)\n\tglobal_load_dword v3, v1, s[0:1]\n"
       "\ts_waitcnt vmcnt(0)\n",
       0, 2, 0, 2},
      {"a returning atomic on cold lines: read at L2 from HBM, then written back",
       "\tglobal_atomic_add v3, v1, v2, s[0:1] sc0\n\ts_waitcnt vmcnt(0)\n", 2, 2, 0, 4},
      {"an atomic without return: the same",
       "\tglobal_atomic_add v1, v2, s[0:1]\n\ts_waitcnt vmcnt(0)\n", 2, 2, 0, 4},
      {"a cold scalar load: one line from HBM through the scalar L1",
       "\ts_load_dwordx4 s[8:11], s[0:1], 0x0\n\ts_waitcnt lgkmcnt(0)\n", 0, 0, 1, 1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    auto t = traced(c.text, 1);
    ASSERT_TRUE(t);
    const std::vector<std::vector<WaveTrace>> g{t->traces};
    const TimingReport r = model(*t->s, g);
    expect_bound(r);
    EXPECT_EQ(r.memory.hbm_lines, c.hbm);
    EXPECT_EQ(r.memory.writeback_lines, c.writeback);
    EXPECT_EQ(r.memory.scalar_hbm_lines, c.scalar_hbm);
    // The memory term is these lines at the CU's HBM share (or a pipe's busy time, when larger).
    const auto lines_term = static_cast<std::uint64_t>(double(c.bound_lines * 128) / r.share.hbm_bytes_per_cycle);
    EXPECT_GE(r.bound.memory, lines_term);
    EXPECT_GE(r.simulated_cycles, lines_term) << "the model's HBM queue carries at least the bound's bytes";
  }
}

TEST(Bound, TheLaunchEndsWhenTheLastMfmaFinishes) {
  // A wave whose last instruction is a 16-pass MFMA nothing reads: the wave issues it and ends, but the launch ends
  // when the MFMA unit is done, so the issue term (its passes) stays below the modeled cycles.
  auto t = traced("\tv_mfma_f32_32x32x8_f16 v[16:31], v[2:3], v[4:5], v[16:31]\n", 1);
  ASSERT_TRUE(t);
  const std::vector<std::vector<WaveTrace>> g{t->traces};
  const TimingReport r = model(*t->s, g, 64);
  expect_bound(r);
  EXPECT_GT(r.drain_cycles, 0u) << "the MFMA's passes outlast the wave";
  EXPECT_GE(r.modeled_cycles, 16u * timing_params(Target::gfx942).mfma_pass.value);
}

TEST(Bound, WhatBindsFollowsTheKernel) {
  // Memory: many waves streaming cold lines. Latency: one wave, a chain of dependent loads. Issue: 16 waves of
  // independent MFMAs.
  std::string stream = "\tv_lshlrev_b32 v2, 2, v1\n";
  for (int i = 0; i < 4; ++i)
    stream += "\tglobal_load_dwordx4 v[" + std::to_string(10 + 4 * i) + ":" + std::to_string(13 + 4 * i) +
              "], v2, s[0:1] offset:" + std::to_string(i * 1024) + "\n";
  stream += "\ts_waitcnt vmcnt(0)\n";
  auto m = many(stream, 32, 4);
  ASSERT_TRUE(m);
  const TimingReport rm = model(*m->code, m->groups, 32, 0, 4);
  expect_bound(rm);
  EXPECT_EQ(rm.bound.kind, "memory");
  std::string chain = "\tv_mov_b32 v2, v1\n";
  for (int i = 0; i < 8; ++i) chain += "\tglobal_load_dword v3, v2, s[0:1]\n\ts_waitcnt vmcnt(0)\n\tv_add_u32 v2, v3, v2\n";
  auto c = traced(chain, 1);
  ASSERT_TRUE(c);
  const std::vector<std::vector<WaveTrace>> gc{c->traces};
  const TimingReport rc = model(*c->s, gc);
  expect_bound(rc);
  EXPECT_EQ(rc.bound.kind, "latency");
  EXPECT_GT(rc.bound.latency, 8u * timing_params(Target::gfx942).l1_latency.value) << "eight dependent loads";
  std::string mf;
  for (int i = 0; i < 16; ++i) {
    const int d = 20 + 4 * (i % 4);
    mf += "\tv_mfma_f32_16x16x16_f16 v[" + std::to_string(d) + ":" + std::to_string(d + 3) + "], v[2:3], v[4:5], v[" +
          std::to_string(d) + ":" + std::to_string(d + 3) + "]\n";
  }
  auto f = traced(mf, 16);
  ASSERT_TRUE(f);
  const std::vector<std::vector<WaveTrace>> gf{f->traces};
  const TimingReport rf = model(*f->s, gf, 64, 0, 16);
  expect_bound(rf);
  EXPECT_EQ(rf.bound.kind, "issue");
  std::printf("[bound] stream %s (headroom %.2f), chain %s (%.2f), MFMAs %s (%.2f)\n", rm.bound.kind.c_str(),
              rm.bound.headroom, rc.bound.kind.c_str(), rc.bound.headroom, rf.bound.kind.c_str(), rf.bound.headroom);
}

TEST(Occupancy, LdsIsAllocatedInGranules) {
  // AMDGPUUsage.rst, compute_pgm_rsrc2 table, GRANULATED_LDS_SIZE: a workgroup's LDS is allocated in granules of
  // 128 dwords = 512 B on GFX7-GFX12 (gfx90a, gfx942) and 320 dwords = 1280 B on GFX950. LDS per CU: 64 KiB on
  // gfx90a and gfx942 (MI200 / MI300 ISA, LDS chapter), 160 KiB on gfx950 (AMD CDNA 4 white paper).
  struct Case {
    Target target;
    std::uint64_t per_cu, granule;
  };
  for (const Case c : {Case{Target::gfx90a, 64 * 1024, 512}, Case{Target::gfx942, 64 * 1024, 512},
                       Case{Target::gfx950, 160 * 1024, 1280}}) {
    SCOPED_TRACE(std::string(to_string(c.target)));
    auto t = traced("\ts_nop 0\n", 4, 0, emu::test::eager(), c.target);
    ASSERT_TRUE(t);
    // Four-wave workgroups at 32 VGPRs: 8 waves per SIMD, 4 SIMDs -> 8 workgroups by wave slots, so LDS decides.
    const std::vector<std::vector<WaveTrace>> g{t->traces};
    // 25 granules fit 128 / 25 = 5 times; one byte more takes a 26th granule, which fits 128 / 26 = 4 times
    // (without the granule the figure would wrongly be per_cu / bytes = 5).
    const std::uint64_t exact = 25 * c.granule, over = exact + 1;
    const std::uint64_t over_alloc = (over + c.granule - 1) / c.granule * c.granule;
    ASSERT_EQ(over_alloc, 26 * c.granule);
    ASSERT_EQ(c.per_cu / over, 5u);
    const TimingReport re = model(*t->s, g, 32, static_cast<std::uint32_t>(exact), 4);
    const TimingReport ro = model(*t->s, g, 32, static_cast<std::uint32_t>(over), 4);
    EXPECT_EQ(re.groups_per_cu, c.per_cu / exact);
    EXPECT_EQ(re.groups_per_cu, 5u);
    EXPECT_EQ(ro.groups_per_cu, c.per_cu / over_alloc);
    EXPECT_EQ(ro.groups_per_cu, 4u);
    EXPECT_EQ(ro.occupancy_limiter, "lds");
  }
  // The reviewer's case: 13000 B on gfx942 is 26 granules of 512 B (13312 B), 65536 / 13312 = 4 per CU.
  auto t = traced("\ts_nop 0\n", 4);
  ASSERT_TRUE(t);
  const std::vector<std::vector<WaveTrace>> g{t->traces};
  EXPECT_EQ(model(*t->s, g, 32, 13000, 4).groups_per_cu, 4u);
}

TEST(Model, Deterministic) {
  auto t = traced("\tglobal_load_dword v10, v1, s[0:1]\n\ts_waitcnt vmcnt(0)\n\tv_add_u32 v2, v10, v10\n", 4);
  ASSERT_TRUE(t);
  const std::vector<std::vector<WaveTrace>> g{t->traces, t->traces};
  const TimingReport r1 = model(*t->s, g, 32, 0, 4), r2 = model(*t->s, g, 32, 0, 4);
  EXPECT_EQ(r1.modeled_cycles, r2.modeled_cycles);
  ASSERT_EQ(r1.instructions.size(), r2.instructions.size());
  for (std::size_t i = 0; i < r1.instructions.size(); ++i) EXPECT_EQ(r1.instructions[i].total(), r2.instructions[i].total());
}

TEST(Model, SubsetOfTheCuShareIsScaled) {
  // Two modeled workgroups standing for a CU share of twenty: the report says so and scales the time by 20/2.
  auto t = traced("\tglobal_load_dword v10, v1, s[0:1]\n\ts_waitcnt vmcnt(0)\n\tv_add_u32 v2, v10, v10\n", 1);
  ASSERT_TRUE(t);
  const std::vector<std::vector<WaveTrace>> g{t->traces, t->traces};
  TimingInput in;
  in.code = &t->s->code;
  in.vgprs = 32;
  in.sgprs = 32;
  in.workgroups = 20;
  in.cus = 1;
  in.groups = g;
  const TimingReport r = model_timing(in);
  EXPECT_TRUE(r.subset);
  EXPECT_EQ(r.cu_share, 20u);
  EXPECT_EQ(r.modeled_groups, 2u);
  EXPECT_EQ(r.modeled_cycles, r.simulated_cycles * 10);
  EXPECT_NE(r.note.find("scaled"), std::string::npos);
}

// ---- a Triton corpus kernel through emulate() ----------------------------------------------------------------------

TEST(Corpus, TritonSoftmaxTiming) {
  ASMEVO_REQUIRE_CORPUS(dir);
  const std::string file = (*dir_opt / "triton" / "softmax_f32.gfx942.hsaco").string();
  auto elf = codeobject::ElfFile::read(file);
  ASSERT_TRUE(elf) << elf.error().message;
  auto enc = codeobject::encoder_for(*elf);
  ASSERT_TRUE(enc) << enc.error().message;
  auto mod = codeobject::recover(*elf, **enc);
  ASSERT_TRUE(mod) << mod.error().message;
  const long rows = 8, cols = 1024;
  const std::string spec_text =
      R"({"grid": [)" + std::to_string(rows) + R"(,1,1], "args": [{"buffer": {"dtype": "f32", "count": 8192, "init": "zeros"}},
      {"buffer": {"dtype": "f32", "count": 8192, "init": {"random": {"seed": 3, "min": -4, "max": 4}}}},
      {"scalar": {"type": "i32", "value": 1024}}, {"scalar": {"type": "i32", "value": 1024}},
      {"scalar": {"type": "i32", "value": )" + std::to_string(cols) + R"(}}, {"null": true}, {"null": true}]})";
  auto spec = verify::parse_launch_spec(spec_text, "<test>", ".");
  ASSERT_TRUE(spec) << spec.error().message;
  auto r0 = emulate(*mod, *elf, *spec);
  auto r1 = verify::emulate_timed(*mod, *elf, *spec);
  ASSERT_TRUE(r0 && r1);
  ASSERT_TRUE(r0->ok() && r1->ok()) << r1->stop.message;
  EXPECT_FALSE(r0->trace.has_value());
  ASSERT_TRUE(r1->timing.has_value());
  // Timing does not change what the kernel computes.
  ASSERT_EQ(r0->buffers.size(), r1->buffers.size());
  for (std::size_t i = 0; i < r0->buffers.size(); ++i) EXPECT_EQ(r0->buffers[i].bytes, r1->buffers[i].bytes);
  const TimingReport& t = *r1->timing;
  EXPECT_GT(t.modeled_cycles, 0u);
  EXPECT_EQ(t.cu_share, 1u);  // 8 workgroups over 304 CUs
  EXPECT_EQ(t.modeled_groups, 1u);
  // Every instruction workgroup 0's waves executed is accounted: executions add up to its wave-instructions.
  std::uint64_t execs = 0;
  std::set<std::uint32_t> ids;
  for (const auto& row : t.instructions) {
    execs += row.executions;
    ids.insert(row.id.value);
  }
  EXPECT_GT(execs, 0u);
  EXPECT_EQ(execs * rows, r1->wave_instructions) << "every workgroup runs the same instruction count here";
  ASSERT_FALSE(t.hot_windows.empty());
  std::set<std::uint32_t> kernel_ids;
  for (const auto& it : mod->program.items)
    if (it.kind == Item::Kind::inst) kernel_ids.insert(it.inst.id.value);
  double share = 0;
  for (const auto& h : t.hot_windows) {
    EXPECT_TRUE(kernel_ids.count(h.first.value) && kernel_ids.count(h.last.value));
    EXPECT_LE(h.first_op, h.last_op);
    EXPECT_GT(h.cycles, 0u);
    share += h.share;
  }
  EXPECT_LE(share, 1.0 + 1e-9);
  // The accounting invariant on real compiler output: each modeled wave's attributed cycles are its life.
  ASSERT_FALSE(t.waves.empty());
  std::uint64_t sum = 0;
  for (const WaveTiming& w : t.waves) {
    ASSERT_GE(w.end, w.start);
    EXPECT_EQ(w.attributed, w.end - w.start) << "group " << w.group << " wave " << w.wave;
    sum += w.attributed;
  }
  EXPECT_EQ(sum, t.wave_cycles);
  std::printf("[corpus] softmax_f32 gfx942 %ldx%ld: %llu modeled cycles, %zu instructions, %zu hot windows (top %.0f%%)\n",
              rows, cols, static_cast<unsigned long long>(t.modeled_cycles), t.instructions.size(), t.hot_windows.size(),
              100 * t.hot_windows.front().share);
}

}  // namespace

namespace {

// ---- the bound on every corpus kernel (issue 27) ---------------------------------------------------------------

/// The modeled timing of `co` under the first launch of `launch_file` on gfx942, or an error text.
std::optional<TimingReport> time_kernel(const std::filesystem::path& co, const std::filesystem::path& launch_file,
                                        std::string& why) {
  auto elf = codeobject::ElfFile::read(co.string());
  if (!elf) return why = elf.error().message, std::nullopt;
  auto enc = codeobject::encoder_for(*elf);
  if (!enc) return why = enc.error().message, std::nullopt;
  auto mod = codeobject::recover(*elf, **enc);
  if (!mod) return why = mod.error().message, std::nullopt;
  auto specs = verify::read_launch_file(launch_file);
  if (!specs || specs->empty()) return why = specs ? "no launch" : specs.error().message, std::nullopt;
  EmulateOptions o;
  o.run.completion = Completion::eager;
  auto r = verify::emulate_timed(*mod, *elf, specs->front(), o);
  if (!r) return why = r.error().message, std::nullopt;
  if (!r->ok() || !r->timing) return why = "stopped: " + r->stop.message, std::nullopt;
  return *r->timing;
}

TEST(Corpus, TheBoundIsNeverAboveTheModeledCyclesOnAnyKernel) {
  // Every kernel of inductor-dev/ (its own launch file) and of triton/ with a launch file in tests/data/launch/triton
  // (first shape), on gfx942: bound <= modeled, and each kernel found runs (none skipped). scripts/headroom.sh prints
  // the same kernels' headroom as a table.
  ASMEVO_REQUIRE_CORPUS(dir);
  namespace fs = std::filesystem;
  std::vector<std::pair<fs::path, fs::path>> kernels;
  for (const auto& e : fs::directory_iterator(dir / "inductor-dev")) {
    const std::string name = e.path().filename().string();
    if (e.path().extension() != ".json" || name.ends_with(".meta.json") || name == "SUMMARY.json") continue;
    const fs::path co = dir / "inductor-dev" / (e.path().stem().string() + ".gfx942.hsaco");
    EXPECT_TRUE(fs::exists(co)) << name << " has no gfx942 code object";
    if (fs::exists(co)) kernels.emplace_back(co, e.path());
  }
  for (const auto& e : fs::directory_iterator(fs::path(ASMEVO_SOURCE_DIR) / "tests" / "data" / "launch" / "triton")) {
    if (e.path().extension() != ".json") continue;
    const fs::path co = dir / "triton" / (e.path().stem().string() + ".gfx942.hsaco");
    EXPECT_TRUE(fs::exists(co)) << e.path().filename() << " has no gfx942 code object in the corpus";
    if (fs::exists(co)) kernels.emplace_back(co, e.path());
  }
  std::sort(kernels.begin(), kernels.end());
  ASSERT_FALSE(kernels.empty());
  std::map<std::string, unsigned> kinds;
  unsigned ran = 0;
  double tightest = 1e30;
  for (const auto& [co, launch] : kernels) {
    SCOPED_TRACE(co.filename().string());
    std::string why;
    const auto t = time_kernel(co, launch, why);
    ASSERT_TRUE(t) << why;
    ++ran;
    ++kinds[t->bound.kind];
    tightest = std::min(tightest, t->bound.headroom);
    expect_bound(*t);
  }
  EXPECT_EQ(ran, kernels.size()) << "every kernel found was modeled";
  // Not a vacuous floor: some kernel runs within 25% of its bound.
  EXPECT_LT(tightest, 1.25) << "the tightest kernel's headroom";
  std::printf("[bound corpus] %u gfx942 kernels, bound <= modeled on each, tightest headroom %.2f; bound by:", ran,
              tightest);
  for (const auto& [k, n] : kinds) std::printf(" %s %u", k.c_str(), n);
  std::printf("\n");
}

}  // namespace
