// verify/mutate.hpp: each mutation operator makes exactly the intended change to a hand-written program (checked
// on the printed instruction), is deterministic for a seed, and never produces an instruction its form rejects (a
// rapidcheck property over a Triton corpus kernel); plus an end-to-end run of asmevo-mutate on Triton kernels.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cstdio>
#include <cstdlib>
#include <sys/wait.h>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "asmevo/codeobject/module.hpp"
#include "asmevo/ir/parser.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/verify/mutate.hpp"
#include "support/corpus.hpp"
#include "verify/corpus_object.hpp"

namespace asmevo::verify {
namespace {

// rapidcheck reads RC_PARAMS at its first property: bound the cases (<= 200) unless the caller set a count.
[[maybe_unused]] const bool rc_bounded = [] {
  std::string p = std::getenv("RC_PARAMS") ? std::getenv("RC_PARAMS") : "";
  if (p.find("max_success") == std::string::npos) p += " max_success=150";
  setenv("RC_PARAMS", p.c_str(), 1);
  return true;
}();

// A small gfx942 kernel with one instance of each thing an operator mutates; ids are fixed by the comments.
constexpr const char* kSmall = R"(k:
	s_load_dwordx2 s[0:1], s[4:5], 0x0 ; i0
	s_waitcnt lgkmcnt(0) ; i1
	v_mov_b32_e32 v1, s0 ; i2
	global_load_dword v2, v[0:1], off offset:16 ; i3
	s_waitcnt vmcnt(0) ; i4
	v_add_f32_e32 v3, v2, v1 ; i5
	v_cmp_lt_i32_e32 vcc, 5, v3 ; i6
	s_and_saveexec_b64 s[2:3], vcc ; i7
	s_nop 1 ; i8
	global_store_dword v[0:1], v3, off offset:8 sc0 ; i9
	s_or_b64 exec, exec, s[2:3] ; i10
	v_cmp_lt_f32_e64 s[6:7], v2, 0.5 ; i11
	s_cmp_eq_u32 s0, 7 ; i12
	s_endpgm ; i13
	s_nop 0 ; i14
)";

struct Fixture {
  Program p;
  KernelScope scope;
};

Fixture small() {
  auto p = parse_program(kSmall, Target::gfx942, "small.s");
  EXPECT_TRUE(p.has_value()) << (p ? "" : p.error().message);
  auto s = kernel_scope(*p, "k");
  EXPECT_TRUE(s.has_value()) << (s ? "" : s.error().message);
  return Fixture{*p, *s};
}

std::string text_of(const Program& p, std::uint32_t id) {
  const Inst* in = p.find(InstId{id});
  return in ? print_inst(*in) : std::string("(absent)");
}

/// The ids of the program's instructions in order.
std::vector<std::uint32_t> order(const Program& p) {
  std::vector<std::uint32_t> v;
  for (const auto& it : p.items)
    if (it.kind == Item::Kind::inst) v.push_back(it.inst.id.value);
  return v;
}

/// Every instruction except `id` is unchanged (same ids in the same order, same form and operands).
void expect_only_changed(const Program& a, const Program& b, std::uint32_t id) {
  ASSERT_EQ(order(a), order(b));
  for (std::uint32_t x : order(a))
    if (x != id) EXPECT_TRUE(*a.find(InstId{x}) == *b.find(InstId{x})) << "i" << x << " changed";
}

std::vector<std::uint32_t> ids(const std::vector<InstId>& v) {
  std::vector<std::uint32_t> r;
  for (auto i : v) r.push_back(i.value);
  return r;
}

Mutant run(const Fixture& f, MutOp op, std::uint32_t site, std::uint64_t seed) {
  auto m = mutate(op, f.p, f.scope, InstId{site}, seed);
  EXPECT_TRUE(m.has_value()) << (m ? "" : m.error().message);
  return m ? *m : Mutant{};
}

TEST(MutateScope, ReachableCodeOnlyAndRegisterCounts) {
  auto f = small();
  // i14 is padding after s_endpgm: not executable, not in scope.
  EXPECT_EQ(ids(f.scope.insts), (std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}));
  EXPECT_EQ(f.scope.sgprs, 8u);  // s[6:7]
  EXPECT_EQ(f.scope.vgprs, 4u);  // v3
  EXPECT_EQ(f.scope.agprs, 0u);
}

TEST(MutateScope, SkipsAKernargPreloadPrologue) {
  auto p = parse_program(R"(k:
	s_load_dwordx2 s[2:3], s[0:1], 0x0 ; i0
	s_waitcnt lgkmcnt(0) ; i1
	s_branch .Lk_preload_entry ; i2
	.p2align 8
.Lk_preload_entry:
	v_mov_b32_e32 v0, s2 ; i3
	s_endpgm ; i4
)", Target::gfx942);
  ASSERT_TRUE(p.has_value()) << p.error().message;
  auto s = kernel_scope(*p, "k");
  ASSERT_TRUE(s.has_value());
  EXPECT_TRUE(s->skipped_prologue);
  EXPECT_EQ(s->entry, ".Lk_preload_entry");
  EXPECT_EQ(ids(s->insts), (std::vector<std::uint32_t>{3, 4}));
  auto all = kernel_scope(*p, "k", false);
  ASSERT_TRUE(all.has_value());
  EXPECT_EQ(ids(all->insts), (std::vector<std::uint32_t>{0, 1, 2, 3, 4}));
  EXPECT_FALSE(kernel_scope(*p, "nope").has_value());
}

TEST(MutateSites, EachOperatorFindsItsInstructions) {
  auto f = small();
  auto sites = [&](MutOp op) { return ids(mutation_sites(op, f.p, f.scope)); };
  EXPECT_EQ(sites(MutOp::waitcnt_drop), (std::vector<std::uint32_t>{1, 4}));
  EXPECT_EQ(sites(MutOp::waitcnt_weaken), (std::vector<std::uint32_t>{1, 4}));
  EXPECT_EQ(sites(MutOp::nop_drop), (std::vector<std::uint32_t>{8}));  // not the padding i14
  EXPECT_EQ(sites(MutOp::cmp_flip), (std::vector<std::uint32_t>{6, 11, 12}));
  EXPECT_EQ(sites(MutOp::exec_change), (std::vector<std::uint32_t>{7, 10}));
  EXPECT_EQ(sites(MutOp::store_oob), (std::vector<std::uint32_t>{9}));
  EXPECT_EQ(sites(MutOp::cache_bit), (std::vector<std::uint32_t>{0, 3, 9}));  // SMEM has glc too
  EXPECT_EQ(sites(MutOp::offset_change), (std::vector<std::uint32_t>{0, 3, 9}));
  // i6 has the inline constant 5, i11 the fp inline constant 0.5, i12 the literal-capable 7.
  EXPECT_EQ(sites(MutOp::imm_change), (std::vector<std::uint32_t>{6, 11, 12}));
  // Adjacent dependent pairs: i0 writes s[0:1] that i1 does not touch, i2 (v1) -> i3 reads v[0:1], i3 -> i4 no,
  // i5 reads v2 written by i3? not adjacent; i5 -> i6 (v3), i6 -> i7 (vcc), i7 -> i8 no, i9 -> i10 reads exec,
  // i10 -> i11 (exec), i11 -> i12 no (SCC vs s[6:7]? no), i12 -> i13 control.
  EXPECT_EQ(sites(MutOp::swap_dependent), (std::vector<std::uint32_t>{2, 5, 6, 9, 10}));
}

TEST(MutateOps, WaitcntDropDeletesTheWait) {
  auto f = small();
  auto m = run(f, MutOp::waitcnt_drop, 4, 1);
  ASSERT_TRUE(m.valid) << m.invalid_reason;
  EXPECT_EQ(m.description, "i4 s_waitcnt vmcnt(0) -> (deleted)");
  EXPECT_EQ(m.program.find(InstId{4}), nullptr);
  EXPECT_EQ(m.program.instruction_count(), f.p.instruction_count() - 1);
  ASSERT_TRUE(m.wait_before && m.wait_after);
  EXPECT_EQ(m.wait_before->vm, 0);
  EXPECT_TRUE(m.wait_after->waits_for_nothing(Target::gfx942));
}

TEST(MutateOps, WaitcntWeakenRaisesOneCountByOne) {
  auto f = small();
  auto m = run(f, MutOp::waitcnt_weaken, 4, 1);
  ASSERT_TRUE(m.valid) << m.invalid_reason;
  EXPECT_EQ(text_of(m.program, 4), "s_waitcnt vmcnt(1)");
  EXPECT_EQ(m.description, "i4 s_waitcnt vmcnt(0) -> vmcnt(1)");
  expect_only_changed(f.p, m.program, 4);
  auto l = run(f, MutOp::waitcnt_weaken, 1, 7);
  ASSERT_TRUE(l.valid);
  EXPECT_EQ(text_of(l.program, 1), "s_waitcnt lgkmcnt(1)");
}

TEST(MutateOps, SwapDependentSwapsTheAdjacentPair) {
  auto f = small();
  auto m = run(f, MutOp::swap_dependent, 2, 1);
  ASSERT_TRUE(m.valid);
  auto o = order(m.program);
  EXPECT_EQ(o[2], 3u);
  EXPECT_EQ(o[3], 2u);
  EXPECT_EQ(m.description, "i2 v_mov_b32_e32 v1, s0 <-> i3 global_load_dword v2, v[0:1], off offset:16");
}

TEST(MutateOps, RegChangeKeepsFileWidthAndAlignment) {
  auto f = small();
  std::set<std::string> seen;
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    // i3 global_load_dword v2, v[0:1]: a 1-dword destination and an aligned 64-bit address pair.
    auto m = run(f, MutOp::reg_change, 3, seed);
    ASSERT_TRUE(m.valid) << m.invalid_reason;
    expect_only_changed(f.p, m.program, 3);
    const std::string t = text_of(m.program, 3);
    std::smatch g;
    ASSERT_TRUE(std::regex_match(t, g, std::regex(R"(global_load_dword v(\d+), v\[(\d+):(\d+)\], off offset:16)"))) << t;
    const int d = std::stoi(g[1]), lo = std::stoi(g[2]), hi = std::stoi(g[3]);
    EXPECT_EQ(hi, lo + 1) << t;
    EXPECT_EQ(lo % 2, 0) << t;  // gfx90a+ VGPR tuples are even-aligned
    EXPECT_TRUE((d == 2) != (lo == 0)) << "exactly one operand changes: " << t;
    EXPECT_LT(hi, 256);
    seen.insert(t);
  }
  EXPECT_GT(seen.size(), 3u);
}

TEST(MutateOps, ImmChangeKeepsInlineConstantsInVop3) {
  auto f = small();
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    auto m = run(f, MutOp::imm_change, 6, seed);
    ASSERT_TRUE(m.valid) << m.invalid_reason;
    std::smatch g;
    const std::string t = text_of(m.program, 6);
    ASSERT_TRUE(std::regex_match(t, g, std::regex(R"(v_cmp_lt_i32_e32 vcc, (-?\d+|0x[0-9a-f]+), v3)"))) << t;
    EXPECT_NE(g[1].str(), "5");
    // VOP3 on gfx9 takes no literal: the e64 compare's fp constant stays one of the inline ones.
    auto e = run(f, MutOp::imm_change, 11, seed);
    if (!e.valid) continue;
    const std::string te = text_of(e.program, 11);
    EXPECT_TRUE(std::regex_match(te, std::regex(R"(v_cmp_lt_f32_e64 s\[6:7\], v2, -?(0\.5|1\.0|2\.0|4\.0))"))) << te;
    EXPECT_NE(te, "v_cmp_lt_f32_e64 s[6:7], v2, 0.5");
  }
}

TEST(MutateOps, OffsetChangeMovesByWholeElements) {
  auto f = small();
  std::set<std::string> seen;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    auto m = run(f, MutOp::offset_change, 3, seed);
    ASSERT_TRUE(m.valid) << m.invalid_reason;
    expect_only_changed(f.p, m.program, 3);
    seen.insert(text_of(m.program, 3));
  }
  // 16 +- 4 or 8 bytes (a dword load).
  for (const auto& t : seen)
    EXPECT_TRUE(t == "global_load_dword v2, v[0:1], off offset:12" || t == "global_load_dword v2, v[0:1], off offset:20" ||
                t == "global_load_dword v2, v[0:1], off offset:8" || t == "global_load_dword v2, v[0:1], off offset:24")
        << t;
  EXPECT_GE(seen.size(), 2u);
}

TEST(MutateOps, CmpFlipNegatesThePredicate) {
  auto f = small();
  EXPECT_EQ(text_of(run(f, MutOp::cmp_flip, 6, 1).program, 6), "v_cmp_ge_i32_e32 vcc, 5, v3");
  EXPECT_EQ(text_of(run(f, MutOp::cmp_flip, 11, 1).program, 11), "v_cmp_nlt_f32_e64 s[6:7], v2, 0.5");
  EXPECT_EQ(text_of(run(f, MutOp::cmp_flip, 12, 1).program, 12), "s_cmp_lg_u32 s0, 7");
  expect_only_changed(f.p, run(f, MutOp::cmp_flip, 6, 1).program, 6);
}

TEST(MutateOps, NopDropDeletesOrLowers) {
  auto f = small();
  std::set<std::string> seen;
  for (std::uint64_t seed = 0; seed < 16; ++seed) {
    auto m = run(f, MutOp::nop_drop, 8, seed);
    ASSERT_TRUE(m.valid);
    seen.insert(text_of(m.program, 8));
  }
  EXPECT_EQ(seen, (std::set<std::string>{"(absent)", "s_nop 0"}));
}

TEST(MutateOps, ExecChangeSwapsFamilyChangesSourceOrDrops) {
  auto f = small();
  std::set<std::string> seen7, seen10;
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    auto a = run(f, MutOp::exec_change, 7, seed);
    ASSERT_TRUE(a.valid) << a.invalid_reason;
    seen7.insert(text_of(a.program, 7));
    auto b = run(f, MutOp::exec_change, 10, seed);
    ASSERT_TRUE(b.valid) << b.invalid_reason;
    seen10.insert(text_of(b.program, 10));
  }
  EXPECT_TRUE(seen7.count("s_or_saveexec_b64 s[2:3], vcc"));
  EXPECT_FALSE(seen7.count("(absent)")) << "s_and_saveexec also writes s[2:3]: never dropped";
  for (const auto& t : seen7) EXPECT_TRUE(std::regex_match(t, std::regex(R"(s_(and|or)_saveexec_b64 s\[2:3\], (vcc|s\[\d+:\d+\]))"))) << t;
  EXPECT_TRUE(seen10.count("s_and_b64 exec, exec, s[2:3]"));
  EXPECT_TRUE(seen10.count("(absent)"));
  EXPECT_TRUE(seen10.count("s_or_b64 exec, exec, vcc") || seen10.count("s_or_b64 exec, exec, s[0:1]"));
}

TEST(MutateOps, ImmChangeNeverOffersTheSameShiftCount) {
  // Shift counts are read modulo their field (MI300 ISA: v_lshl_add_u64 shifts by S1[2:0], v_lshlrev_b32 by
  // S0[4:0], s_lshl_b32 by S1[4:0]): 2 -> 18 or 1 -> 17 would be the same instruction, so it is never offered.
  auto p = parse_program("k:\n\tv_lshl_add_u64 v[0:1], v[0:1], 2, v[2:3] ; i0\n\tv_lshlrev_b32_e32 v4, 1, v4 ; i1\n"
                         "\ts_lshl_b32 s0, s1, 1 ; i2\n\ts_endpgm ; i3\n",
                         Target::gfx942);
  ASSERT_TRUE(p.has_value()) << p.error().message;
  auto s = kernel_scope(*p, "k");
  ASSERT_TRUE(s.has_value());
  const std::regex counts[] = {std::regex(R"(v_lshl_add_u64 v\[0:1\], v\[0:1\], (\d+), v\[2:3\])"),
                               std::regex(R"(v_lshlrev_b32_e32 v4, (\d+), v4)"), std::regex(R"(s_lshl_b32 s0, s1, (\d+))")};
  const unsigned masks[] = {7, 31, 31}, old[] = {2, 1, 1};
  for (unsigned site = 0; site < 3; ++site)
    for (std::uint64_t seed = 0; seed < 40; ++seed) {
      auto m = mutate(MutOp::imm_change, *p, *s, InstId{site}, seed);
      ASSERT_TRUE(m && m->valid);
      const std::string t = text_of(m->program, site);
      std::smatch g;
      ASSERT_TRUE(std::regex_match(t, g, counts[site])) << t;
      EXPECT_NE(std::stoul(g[1].str()) & masks[site], old[site]) << t;
    }
}

TEST(MutateOps, StoreOobShiftsByTheStoreWidth) {
  auto f = small();
  auto m = run(f, MutOp::store_oob, 9, 3);
  ASSERT_TRUE(m.valid) << m.invalid_reason;
  EXPECT_EQ(text_of(m.program, 9), "global_store_dword v[0:1], v3, off offset:12 sc0");
  expect_only_changed(f.p, m.program, 9);
  auto p = parse_program("k:\n\tglobal_store_dwordx4 v[0:1], v[4:7], off ; i0\n\tglobal_store_short v[0:1], v4, off offset:-2 ; i1\n\ts_endpgm ; i2\n",
                         Target::gfx90a);
  ASSERT_TRUE(p.has_value()) << p.error().message;
  auto s = kernel_scope(*p, "k");
  ASSERT_TRUE(s.has_value());
  auto x4 = mutate(MutOp::store_oob, *p, *s, InstId{0}, 1);
  ASSERT_TRUE(x4 && x4->valid);
  EXPECT_EQ(text_of(x4->program, 0), "global_store_dwordx4 v[0:1], v[4:7], off offset:16");
  auto sh = mutate(MutOp::store_oob, *p, *s, InstId{1}, 1);
  ASSERT_TRUE(sh && sh->valid);
  EXPECT_EQ(text_of(sh->program, 1), "global_store_short v[0:1], v4, off offset:0");
}

TEST(MutateOps, CacheBitFlipsOneBit) {
  auto f = small();
  std::set<std::string> seen;
  for (std::uint64_t seed = 0; seed < 30; ++seed) {
    auto m = run(f, MutOp::cache_bit, 9, seed);
    ASSERT_TRUE(m.valid) << m.invalid_reason;
    seen.insert(text_of(m.program, 9));
  }
  EXPECT_EQ(seen, (std::set<std::string>{"global_store_dword v[0:1], v3, off offset:8",
                                         "global_store_dword v[0:1], v3, off offset:8 sc0 nt",
                                         "global_store_dword v[0:1], v3, off offset:8 sc0 sc1"}));
}

TEST(MutateOps, DeterministicForASeedAndRejectsNonSites) {
  auto f = small();
  for (MutOp op : all_mut_ops)
    for (InstId s : mutation_sites(op, f.p, f.scope))
      for (std::uint64_t seed : {1ull, 99ull}) {
        auto a = run(f, op, s.value, seed), b = run(f, op, s.value, seed);
        EXPECT_EQ(a.description, b.description);
        EXPECT_EQ(a.valid, b.valid);
        EXPECT_EQ(print_program(a.program), print_program(b.program));
      }
  auto bad = mutate(MutOp::cmp_flip, f.p, f.scope, InstId{0}, 1);
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("i0"), std::string::npos);
  EXPECT_FALSE(mutate(MutOp::nop_drop, f.p, f.scope, InstId{99}, 1).has_value());
  for (MutOp op : all_mut_ops) EXPECT_EQ(parse_mut_op(to_string(op)), op);
  EXPECT_FALSE(parse_mut_op("waitcnt").has_value());
}

TEST(MutateOps, InvalidMutantsAreReportedNotProduced) {
  // A kernel that uses s[0:3] only: for the 4-dword destination no other 4-aligned tuple fits inside that
  // allocation (invalid, reported), while the base pair s[0:1] can become s[2:3] (valid).
  auto p = parse_program("k:\n\ts_load_dwordx4 s[0:3], s[0:1], 0x0 ; i0\n\ts_endpgm ; i1\n", Target::gfx942);
  ASSERT_TRUE(p.has_value());
  auto s = kernel_scope(*p, "k");
  ASSERT_TRUE(s.has_value());
  int invalid = 0, valid = 0;
  for (std::uint64_t seed = 0; seed < 64; ++seed) {
    auto m = mutate(MutOp::reg_change, *p, *s, InstId{0}, seed);
    ASSERT_TRUE(m.has_value());
    if (!m->valid) {
      ++invalid;
      EXPECT_FALSE(m->invalid_reason.empty());
      EXPECT_FALSE(m->description.empty());
    } else {
      ++valid;
      EXPECT_TRUE(detail::check_inst(*m->program.find(InstId{0})).empty());
    }
  }
  EXPECT_GT(invalid, 0);
  EXPECT_GT(valid, 0);
}

// Every mutant of a real kernel is either reported invalid or prints to text that parses back to the same program.
TEST(MutateCorpus, MutantsReparseToTheSameProgram) {
  ASMEVO_REQUIRE_CORPUS(dir);
  for (const char* target : {"gfx942", "gfx90a"}) {
    const auto file = (dir / "triton" / (std::string("layer_norm_f16.") + target + ".hsaco")).string();
    const auto* obj = emu::test::cached_object(file);
    ASSERT_NE(obj, nullptr);
    const Program& p = obj->module.program;
    auto scope = kernel_scope(p, obj->module.kernels.at(0).name);
    ASSERT_TRUE(scope.has_value()) << scope.error().message;
    std::map<MutOp, std::vector<InstId>> sites;
    for (MutOp op : all_mut_ops) sites[op] = mutation_sites(op, p, *scope);
    const bool ok = rc::check(std::string("mutants of ") + file + " re-parse or are invalid", [&] {
      const MutOp op = *rc::gen::elementOf(std::vector<MutOp>(all_mut_ops.begin(), all_mut_ops.end()));
      const auto& s = sites[op];
      RC_PRE(!s.empty());
      const InstId site = *rc::gen::elementOf(s);
      const auto seed = *rc::gen::arbitrary<std::uint64_t>();
      auto m = mutate(op, p, *scope, site, seed);
      RC_ASSERT(m.has_value());
      if (!m->valid) {
        RC_ASSERT(!m->invalid_reason.empty());
        return;
      }
      auto back = parse_program(print_program(m->program), p.target, "mutant.s");
      if (!back) RC_FAIL(m->description + ": " + back.error().message);
      RC_ASSERT(order(*back) == order(m->program));
      for (std::uint32_t x : order(m->program))
        if (!(*back->find(InstId{x}) == *m->program.find(InstId{x}))) RC_FAIL(m->description + ": i" + std::to_string(x) + " differs");
    });
    EXPECT_TRUE(ok);
  }
}

#ifdef ASMEVO_MUTATE_CLI
/// Runs asmevo-mutate and parses its --json report; the exit status goes to `rc`.
nlohmann::json run_cli(const std::string& args, int& rc) {
  const std::string cmd = std::string(ASMEVO_MUTATE_CLI) + " " + args + " --json";
  FILE* f = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  while (f && std::fgets(buf, sizeof buf, f)) out += buf;
  const int st = f ? pclose(f) : -1;
  rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  auto j = nlohmann::json::parse(out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << cmd << " printed: " << out;
  return j;
}

// End to end on vec_add (gfx942): its four s_waitcnt vmcnt(0) (i80, i86, i92, i98) each sit right before the
// v_add_f32 that first reads two loaded registers, so deleting any one is a static waitcnt finding; each of its four
// stores, shifted by one element, writes past the end of the output under the launch file's exact-size buffers or
// moves outputs (caught by a run); flipping a scope bit is a memory-model rejection and flipping NT a proven hint.
TEST(MutateCli, VecAddKnownOutcomes) {
  ASMEVO_REQUIRE_CORPUS(dir);
  const auto co = (dir / "triton" / "vec_add_f32.gfx942.hsaco").string();
  const std::string launch = std::string(ASMEVO_SOURCE_DIR) + "/tests/data/launch/triton/vec_add_f32.json";
  int rc = 0;
  auto j = run_cli(co + " --launch " + launch + " --ops waitcnt_drop,store_oob,cache_bit --per-op 4 --seed 7", rc);
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(rc, 0) << j.dump(1);
  std::set<std::string> drops, stores;
  for (const auto& m : j["mutants"]) {
    const std::string op = m["op"], outcome = m["outcome"];
    if (op == "waitcnt_drop") {
      EXPECT_EQ(outcome, "caught_static") << m.dump();
      drops.insert(m["site"].get<std::string>());
    } else if (op == "store_oob") {
      EXPECT_EQ(outcome, "caught_run") << m.dump();
      stores.insert(m["site"].get<std::string>());
    } else {
      // sc0/sc1 are scope bits (memory model); nt is a hint, whose flip is proven equivalent.
      const std::string d = m["description"];
      if (outcome == "survived") {
        EXPECT_EQ(m["equivalence"], "cache hint") << m.dump();
        EXPECT_NE(d.find(" nt"), std::string::npos) << d;
      } else {
        EXPECT_EQ(outcome, "caught_memory_model") << m.dump();
      }
    }
  }
  EXPECT_EQ(drops, (std::set<std::string>{"i80", "i86", "i92", "i98"}));
  EXPECT_EQ(stores, (std::set<std::string>{"i82", "i88", "i94", "i101"}));
  EXPECT_EQ(j["misses"], 0);
}

// The equivalence prover classifies survivors: vec_add's `v_mov_b32 v6, 0` (i10, the high half of a 64-bit offset
// that is only ever added to registers whose sum the launch bounds) changed to 16 survives every run, and
// analysis/equivalence.hpp proves it equivalent on all three shapes. No mutant the gate caught is called proven.
TEST(MutateCli, SurvivorsAreProvenOrMisses) {
  ASMEVO_REQUIRE_CORPUS(dir);
  const auto co = (dir / "triton" / "vec_add_f32.gfx942.hsaco").string();
  const std::string launch = std::string(ASMEVO_SOURCE_DIR) + "/tests/data/launch/triton/vec_add_f32.json";
  int rc = 0;
  auto j = run_cli(co + " --launch " + launch + " --ops imm_change --per-op 1000 --seed 1", rc);
  ASSERT_TRUE(j.is_object());
  bool saw_i10 = false;
  for (const auto& m : j["mutants"]) {
    const std::string outcome = m["outcome"];
    if (outcome != "survived") {
      EXPECT_FALSE(m.contains("equivalence")) << m.dump();
      continue;
    }
    const std::string eq = m["equivalence"];
    EXPECT_TRUE(eq == "proven" || eq == "miss" || eq == "identical code") << m.dump();
    if (eq == "proven") EXPECT_FALSE(m.value("reason", std::string()).empty()) << m.dump();
    if (m["site"] == "i10" && m["description"].get<std::string>().find("v_mov_b32_e32 v6, 16") != std::string::npos) {
      saw_i10 = true;
      EXPECT_EQ(eq, "proven") << m.dump();
    }
  }
  EXPECT_TRUE(saw_i10) << j.dump(1);
  EXPECT_EQ(j["summary"]["imm_change"]["equivalent_proven"].get<int>() > 0, true) << j["summary"].dump();
}

TEST(MutateCli, BadInputExitsTwo) {
  int rc = 0;
  const std::string launch = std::string(ASMEVO_SOURCE_DIR) + "/tests/data/launch/triton/vec_add_f32.json";
  FILE* f = popen((std::string(ASMEVO_MUTATE_CLI) + " /nonexistent.co --launch " + launch + " 2>&1").c_str(), "r");
  std::string out;
  char buf[512];
  while (f && std::fgets(buf, sizeof buf, f)) out += buf;
  const int st = f ? pclose(f) : -1;
  rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("/nonexistent.co"), std::string::npos) << out;
  f = popen((std::string(ASMEVO_MUTATE_CLI) + " x.co --launch " + launch + " --ops waitcnt 2>&1").c_str(), "r");
  out.clear();
  while (f && std::fgets(buf, sizeof buf, f)) out += buf;
  EXPECT_EQ(WEXITSTATUS(pclose(f)), 2);
  EXPECT_NE(out.find("unknown operator 'waitcnt'"), std::string::npos) << out;
}
// --site keeps only the mutant a full run draws at that instruction: on softmax (gfx942) the swap at i63 of a DPP
// copy and its canonicalization (v_max_f32 v8, v8, v8) in the cross-lane max reduction. Every value in that
// reduction is already canonical (a max result, or 0 from bound_ctrl), so the swap changes no bit and the prover
// shows it; a bad site id is a usage error.
TEST(MutateCli, SiteSelectsOneDrawnMutant) {
  ASMEVO_REQUIRE_CORPUS(dir);
  const auto co = (dir / "triton" / "softmax_f32.gfx942.hsaco").string();
  const std::string launch = std::string(ASMEVO_SOURCE_DIR) + "/tests/data/launch/triton/softmax_f32.json";
  int rc = 0;
  auto j = run_cli(co + " --launch " + launch + " --ops swap_dependent --per-op 8 --seed 1 --site i63", rc);
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(rc, 0) << j.dump(1);
  ASSERT_EQ(j["mutants"].size(), 1u) << j.dump(1);
  const auto& m = j["mutants"][0];
  EXPECT_EQ(m["site"], "i63") << m.dump();
  EXPECT_EQ(m["outcome"], "survived") << m.dump();
  EXPECT_EQ(m["equivalence"], "proven") << m.dump();
  const std::string cmd = std::string(ASMEVO_MUTATE_CLI) + " " + co + " --launch " + launch + " --site x63 >/dev/null 2>&1";
  const int st = std::system(cmd.c_str());
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 2) << st;
}

#endif

}  // namespace
}  // namespace asmevo::verify
