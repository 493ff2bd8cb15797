// Tests of the cost model (timing.hpp): the rankings issue 5 asks for (loads issued early vs just before use; a
// memory-bound kernel at lower vs higher occupancy; an MFMA chain with vs without independent work between dependent
// MFMAs), trace recording, and a sanity run on a Triton corpus kernel through `emulate` with timing on.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "asmevo/codeobject/module.hpp"
#include "asmevo/verify/emu/launch.hpp"
#include "asmevo/verify/emu/timing.hpp"
#include "support/corpus.hpp"
#include "verify/emu_harness.hpp"

namespace {

using namespace asmevo;
using namespace asmevo::emu;

/// A snippet run with tracing on: one workgroup of `waves` waves; `base` is the byte offset of the wave's data in a
/// 4 MiB buffer whose address is in s[0:1]; v1 = lane * 4 + wave * 256 (a coalesced dword per lane).
struct Traced {
  std::unique_ptr<emu::test::Snippet> s;
  std::vector<WaveTrace> traces;
};

std::unique_ptr<Traced> traced(const std::string& text, unsigned waves = 1, std::uint64_t base = 0,
                               RunOptions opt = emu::test::eager()) {
  auto t = std::make_unique<Traced>();
  t->s = emu::test::make_snippet(text, Target::gfx942, waves, 65536, opt);
  if (!t->s) return nullptr;
  Region& r = t->s->machine.memory.region(t->s->machine.memory.map("buf", 4u << 20, true));
  const std::uint64_t addr = r.base + base;
  t->traces.resize(waves);
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

/// The model over `groups` copies (each a vector of wave traces) on a single CU.
TimingReport model(const emu::test::Snippet& s, const std::vector<std::vector<WaveTrace>>& groups, std::uint32_t vgprs = 32,
                   std::uint32_t lds = 0, unsigned waves_per_group = 1) {
  TimingInput in;
  in.target = Target::gfx942;
  in.code = &s.code;
  in.vgprs = vgprs;
  in.sgprs = 32;
  in.lds_bytes = lds;
  in.waves_per_group = waves_per_group;
  in.workgroups = groups.size();
  in.cus = 1;
  in.groups = groups;
  return model_timing(in);
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
  // Each wave streams 4 KiB it has not touched before (16 coalesced dword loads), adds, stores: memory bound. 32
  // workgroups of 4 waves, each at its own addresses, on one CU.
  std::string text;
  for (int i = 0; i < 4; ++i)
    text += "\tglobal_load_dword v" + std::to_string(10 + i) + ", v1, s[0:1] offset:" + std::to_string(i * 1024) + "\n";
  text += "\ts_waitcnt vmcnt(0)\n\tv_add_u32 v20, v10, v11\n\tv_add_u32 v21, v12, v13\n\tv_add_u32 v20, v20, v21\n";
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
  const TimingReport hi = model(*code, groups, 32, 0, 4), mid = model(*code, groups, 256, 0, 4),
                     lo = model(*code, groups, 512, 0, 4);
  EXPECT_EQ(hi.waves_per_simd, 8u);
  EXPECT_EQ(mid.waves_per_simd, 2u);
  EXPECT_EQ(lo.waves_per_simd, 1u);
  EXPECT_EQ(lo.occupancy_limiter, "vgprs");
  expect_accounted(hi, groups);
  EXPECT_LT(hi.modeled_cycles, mid.modeled_cycles);
  EXPECT_LT(mid.modeled_cycles, lo.modeled_cycles);
  // Occupancy cut by LDS instead: 64 KiB per workgroup -> one resident workgroup.
  const TimingReport lds = model(*code, groups, 32, 65536, 4);
  EXPECT_EQ(lds.groups_per_cu, 1u);
  EXPECT_EQ(lds.occupancy_limiter, "lds");
  EXPECT_LT(hi.modeled_cycles, lds.modeled_cycles);
  std::printf("[ranking b] 8 waves/SIMD %llu, 2 waves/SIMD %llu, 1 wave/SIMD %llu, 1 group (LDS) %llu cycles; "
              "lo/hi = %.2f, lds/hi = %.2f\n",
              static_cast<unsigned long long>(hi.modeled_cycles), static_cast<unsigned long long>(mid.modeled_cycles),
              static_cast<unsigned long long>(lo.modeled_cycles), static_cast<unsigned long long>(lds.modeled_cycles),
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
  EmulateOptions off, on;
  on.timing = true;
  auto r0 = emulate(*mod, *elf, *spec, off);
  auto r1 = emulate(*mod, *elf, *spec, on);
  ASSERT_TRUE(r0 && r1);
  ASSERT_TRUE(r0->ok() && r1->ok()) << r1->stop.message;
  EXPECT_FALSE(r0->timing.has_value());
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
  std::printf("[corpus] softmax_f32 gfx942 %ldx%ld: %llu modeled cycles, %zu instructions, %zu hot windows (top %.0f%%)\n",
              rows, cols, static_cast<unsigned long long>(t.modeled_cycles), t.instructions.size(), t.hot_windows.size(),
              100 * t.hot_windows.front().share);
}

}  // namespace
