// specialize (passes/specialize.hpp): the guard it writes, what the copy folds, that the fallback is K0's code as it
// was, where it gives up, and a property over random programs: with the guarded values the copy computes what K0
// computes, and with any other value the fallback does (both run on the emulator, as pass_properties.hpp runs them).
//
// Cases for the property: 100 by default; RC_PARAMS overrides (rapidcheck prints its seed).
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "asmevo/analysis/known_bits.hpp"
#include "asmevo/ir/parser.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/passes/registry.hpp"
#include "asmevo/passes/specialize.hpp"
#include "passes/pass_properties.hpp"

namespace {

using namespace asmevo;
using analysis::LaunchFacts;

const bool rc_defaults_installed = [] {
  std::string p = std::getenv("RC_PARAMS") ? std::getenv("RC_PARAMS") : "";
  if (p.find("max_success") == std::string::npos) p += (p.empty() ? "" : " ") + std::string("max_success=100");
  setenv("RC_PARAMS", p.c_str(), 1);
  return true;
}();

/// A launch that preloads kernarg dword 0 into s6 and passes the kernarg pointer in s[0:1].
LaunchFacts facts(std::uint32_t n, std::uint32_t d1, std::uint32_t d2) {
  LaunchFacts f;
  f.entry = "k";
  f.block = {64, 1, 1};
  f.preload_sgpr = 6, f.preload_dword = 0, f.preload_count = 1;
  f.sgprs = {{0, LaunchFacts::SgprKind::kernarg_lo, 0, ~0u}, {1, LaunchFacts::SgprKind::kernarg_hi, 0, ~0u},
             {6, LaunchFacts::SgprKind::value, n, ~0u}};
  for (const std::uint32_t v : {n, d1, d2})
    for (unsigned b = 0; b < 4; ++b) f.kernarg.bytes.push_back(static_cast<std::uint8_t>(v >> (8 * b)));
  f.kernarg.known.assign(f.kernarg.bytes.size(), 0xff);
  return f;
}

struct Out {
  std::string text;
  std::vector<std::string> notes;
  Program program;
};

Out run(const std::string& src, std::vector<LaunchFacts> shapes, std::map<std::string, std::string> args = {}) {
  Out o;
  auto p = parse_program(src, Target::gfx942, "<test>");
  EXPECT_TRUE(p) << (p ? "" : p.error().str());
  if (!p) return o;
  o.program = std::move(*p);
  passes::Rewriter r(o.program);
  passes::PassContext c;
  c.kernels = {"k"};
  c.args = std::move(args);
  if (!shapes.empty()) c.launches = std::make_shared<const std::vector<LaunchFacts>>(std::move(shapes));
  auto st = passes::run_pass(passes::Specialize{}, r, c);
  EXPECT_TRUE(st) << (st ? "" : st.error().str());
  if (st) o.notes = st->notes;
  PrintOptions po;
  po.ids = false;
  o.text = print_program(o.program, po);
  return o;
}

bool has(const std::string& t, const std::string& n) { return t.find(n) != std::string::npos; }

// n (s6, preloaded) decides a branch; dword 1, loaded from the kernarg segment, feeds an address; dword 2 is loaded
// too but never fixed by the launch file (it differs between shapes).
const std::string kSrc =
    "k:\n"
    "  s_load_dword s8, s[0:1], 0x4\n"
    "  s_load_dword s9, s[0:1], 0x8\n"
    "  s_cmp_lt_u32 s6, 64\n"
    "  s_cbranch_scc1 .Lsmall\n"
    "  s_waitcnt lgkmcnt(0)\n"
    "  s_lshl_b32 s10, s8, 2\n"
    "  s_add_u32 s10, s10, s9\n"
    "  v_mov_b32_e32 v1, s10\n"
    "  global_store_dword v0, v1, s[2:3]\n"
    "  s_endpgm\n"
    ".Lsmall:\n"
    "  s_waitcnt lgkmcnt(0)\n"
    "  v_mov_b32_e32 v1, s9\n"
    "  global_store_dword v0, v1, s[2:3]\n"
    "  s_endpgm\n";

TEST(Specialize, GuardsWhatTheCodeReadsFoldsTheCopyAndLeavesK0sCodeAsItWas) {
  const Out o = run(kSrc, {facts(100, 7, 1), facts(100, 7, 2)});
  ASSERT_EQ(o.notes.size(), 1u);
  EXPECT_TRUE(has(o.notes[0], "specialized k on kernarg+0x0 == 100, kernarg+0x4 == 7")) << o.notes[0];
  EXPECT_FALSE(has(o.notes[0], "kernarg+0x8")) << "dword 2 differs between shapes: " << o.notes[0];
  // The guard: s6 is preloaded (compared as it is); dword 1 is loaded into a register the program never names.
  EXPECT_TRUE(has(o.text,
                  "k:\n"
                  "\ts_load_dword s4, s[0:1], 0x4\n"
                  "\ts_waitcnt lgkmcnt(0)\n"
                  "\ts_cmp_lg_u32 s6, 0x64\n"
                  "\ts_cbranch_scc1 .Lasmevo_k0_k\n"
                  "\ts_cmp_lg_u32 s4, 7\n"
                  "\ts_cbranch_scc1 .Lasmevo_k0_k\n"
                  ".Lasmevo_spec_k:\n"))
      << o.text;
  // The copy: the load of dword 1 is a move, n >= 64 decides the branch (gone, and with it nothing else), s10 is
  // folded where its inputs are known (s8 << 2) and left where they are not (+ s9).
  const auto spec = o.text.find(".Lasmevo_spec_k:");
  const auto k0 = o.text.find(".Lasmevo_k0_k:");
  ASSERT_NE(spec, std::string::npos);
  ASSERT_NE(k0, std::string::npos);
  const std::string copy = o.text.substr(spec, k0 - spec);
  EXPECT_TRUE(has(copy, "s_mov_b32 s10, 28\n") || has(copy, "s_mov_b32 s10, 0x1c\n")) << copy;
  EXPECT_FALSE(has(copy, "s_load_dword s8")) << copy;
  EXPECT_TRUE(has(copy, "s_load_dword s9, s[0:1], 0x8")) << copy;
  EXPECT_FALSE(has(copy, "s_cmp_lt_u32")) << copy;
  EXPECT_FALSE(has(copy, "s_cbranch_scc1 .Lsmall")) << copy;
  // The fallback: K0's code from its first instruction, unchanged.
  std::string body = kSrc.substr(3);
  std::string fallback = o.text.substr(k0 + std::string(".Lasmevo_k0_k:\n").size());
  for (auto* s : {&body, &fallback}) {  // compare without indentation
    std::string t;
    for (const char ch : *s)
      if (ch != '\t' && ch != ' ') t += ch;
    *s = t;
  }
  EXPECT_TRUE(fallback.starts_with(body)) << "fallback:\n" << fallback << "\nK0:\n" << body;
}

TEST(Specialize, RunsOncePerKernel) {
  auto p = parse_program(kSrc, Target::gfx942, "<test>");
  ASSERT_TRUE(p);
  passes::Rewriter r(*p);
  passes::PassContext c;
  c.kernels = {"k"};
  c.launches = std::make_shared<const std::vector<LaunchFacts>>(std::vector<LaunchFacts>{facts(100, 7, 1)});
  auto first = passes::run_pass(passes::Specialize{}, r, c);
  ASSERT_TRUE(first && first->edits == 1);
  auto second = passes::run_pass(passes::Specialize{}, r, c);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->edits, 0u);
  ASSERT_EQ(second->notes.size(), 1u);
  EXPECT_TRUE(has(second->notes[0], "already starts with a launch guard")) << second->notes[0];
}

// After specialize, every other pass edits only the copy: the verifier requires the guard and K0's code behind it
// as they were (passes::editable_blocks leaves them out).
TEST(Specialize, OtherPassesLeaveTheGuardAndK0sCodeAlone) {
  // K0's code has a wait stronger than needed (vmcnt(0) before a use of the first of two loads) in both paths.
  const std::string src =
      "k:\n"
      "  s_cmp_lt_u32 s6, 64\n"
      "  s_cbranch_scc1 .Lsmall\n"
      "  global_load_dword v1, v0, s[2:3]\n"
      "  global_load_dword v2, v0, s[2:3] offset:4\n"
      "  s_waitcnt vmcnt(0)\n"
      "  v_add_u32_e32 v3, v1, v1\n"
      "  s_waitcnt vmcnt(0)\n"
      "  v_add_u32_e32 v3, v3, v2\n"
      "  global_store_dword v0, v3, s[2:3]\n"
      "  s_endpgm\n"
      ".Lsmall:\n"
      "  s_endpgm\n";
  auto p = parse_program(src, Target::gfx942, "<test>");
  ASSERT_TRUE(p);
  passes::Rewriter r(*p);
  passes::PassContext c;
  c.kernels = {"k"};
  c.launches = std::make_shared<const std::vector<LaunchFacts>>(std::vector<LaunchFacts>{facts(100, 7, 1)});
  ASSERT_TRUE(passes::run_pass(passes::Specialize{}, r, c));
  PrintOptions po;
  po.ids = false;
  const std::string before = print_program(*p, po);
  const auto k0_at = before.find(".Lasmevo_k0_k:");
  ASSERT_NE(k0_at, std::string::npos) << before;
  for (const char* name : {"waitcnt-min", "schedule", "nop-min", "dce", "batch-loads"}) {
    const auto* info = passes::find_pass(name);
    ASSERT_NE(info, nullptr);
    ASSERT_TRUE(info->run(r, c)) << name;
  }
  const std::string after = print_program(*p, po);
  EXPECT_EQ(after.substr(after.find(".Lasmevo_k0_k:")), before.substr(k0_at)) << "K0's code changed:\n" << after;
  EXPECT_EQ(after.substr(0, after.find(".Lasmevo_spec_k:")), before.substr(0, before.find(".Lasmevo_spec_k:")));
  // The copy did change: waitcnt-min weakened its first wait.
  const std::string copy = after.substr(after.find(".Lasmevo_spec_k:"), after.find(".Lasmevo_k0_k:") - after.find(".Lasmevo_spec_k:"));
  EXPECT_TRUE(has(copy, "s_waitcnt vmcnt(1)")) << copy;
}

TEST(Specialize, TakesTheBranchItCanDecideAndDropsWhatFollowsIt) {
  const Out o = run(kSrc, {facts(10, 7, 1)});
  const auto spec = o.text.find(".Lasmevo_spec_k:");
  const auto k0 = o.text.find(".Lasmevo_k0_k:");
  ASSERT_NE(spec, std::string::npos) << o.text;
  const std::string copy = o.text.substr(spec, k0 - spec);
  // n < 64: the branch to .Lsmall always goes; the code after it up to the next label is unreachable and gone.
  EXPECT_TRUE(has(copy, "s_branch .Lsmall_spec")) << copy;
  EXPECT_FALSE(has(copy, "s_lshl_b32")) << copy;
}

TEST(Specialize, GivesUpAndSaysWhy) {
  {
    const Out o = run(kSrc, {});
    ASSERT_EQ(o.notes.size(), 1u);
    EXPECT_TRUE(has(o.notes[0], "needs the launch file")) << o.notes[0];
  }
  {
    const Out o = run(kSrc, {facts(100, 7, 1), facts(101, 8, 2)});
    ASSERT_EQ(o.notes.size(), 1u);
    EXPECT_TRUE(has(o.notes[0], "fold nothing") || has(o.notes[0], "nothing it reads")) << o.notes[0];
    EXPECT_FALSE(has(o.text, "asmevo_spec"));
  }
  {
    // The entry is a loop header: the guard would run on every trip.
    const std::string loop =
        "k:\n"
        "  s_add_u32 s6, s6, -1\n"
        "  s_cmp_lg_u32 s6, 0\n"
        "  s_cbranch_scc1 k\n"
        "  s_endpgm\n";
    const Out o = run(loop, {facts(4, 0, 0)});
    ASSERT_EQ(o.notes.size(), 1u);
    EXPECT_TRUE(has(o.notes[0], "loop header")) << o.notes[0];
  }
}

// The property: on random programs (s6 and s7 are their scalar arguments, here preloaded kernarg dwords 0 and 1),
// specialized on the inputs' own s6/s7, the result is checker-clean, undoes and replays exactly, and writes what the
// original writes both with those inputs (the copy runs) and with s6 changed (the fallback runs).
TEST(Specialize, PropertyCopyAndFallbackComputeWhatK0Computes) {
  using namespace asmevo::test;
  const bool ok = rc::check("specialize: copy and fallback agree with K0, checkers clean, undo/replay", [] {
    RandomProgram rp = *gen_random_program({});
    const ProgramInputs in = *gen_inputs();
    RC_PRE(rp.parse_error.empty());
    // Before the stores: code the launch decides (shifts, adds and a branch on s6 and s7), so that the copy has
    // something to fold in every case, into v10, which is stored.
    {
      const auto sh = *rc::gen::inRange<unsigned>(0, 31);
      const auto bound = *rc::gen::oneOf(rc::gen::just(in.s6), rc::gen::just(in.s6 + 1), gen_scalar_arg());
      const auto mask = *gen_scalar_arg();
      const std::string pre = "  s_lshl_b32 s90, s6, " + std::to_string(sh) + "\n  s_add_u32 s90, s90, s7\n"
                              "  s_cmp_lt_u32 s6, " + std::to_string(bound) + "\n  s_cbranch_scc1 .Lspecpre\n"
                              "  s_xor_b32 s90, s90, " + std::to_string(mask) + "\n.Lspecpre:\n"
                              "  v_add_u32_e32 v10, s90, v10\n";
      const auto at = rp.text.find("\tglobal_store_dword");
      RC_PRE(at != std::string::npos);
      rp.text.insert(at, pre);
      auto parsed = parse_program(rp.text, rp.spec.target, "<random>");
      if (!parsed) RC_FAIL("the extended program does not parse: " + parsed.error().str() + "\n" + rp.text);
      rp.program = std::move(*parsed);
    }
    LaunchFacts f;
    f.entry = "k";
    f.block = {64, 1, 1};
    f.preload_sgpr = 6, f.preload_dword = 0, f.preload_count = 2;
    f.sgprs = {{6, LaunchFacts::SgprKind::value, in.s6, ~0u}, {7, LaunchFacts::SgprKind::value, in.s7, ~0u}};
    for (const std::uint32_t v : {in.s6, in.s7})
      for (unsigned b = 0; b < 4; ++b) f.kernarg.bytes.push_back(static_cast<std::uint8_t>(v >> (8 * b)));
    f.kernarg.known.assign(8, 0xff);
    passes::PassContext c;
    c.kernels = {"k"};
    c.launches = std::make_shared<const std::vector<LaunchFacts>>(std::vector<LaunchFacts>{f});
    Program work = rp.program;
    passes::Rewriter r(work);
    auto st = passes::run_pass(passes::Specialize{}, r, c);
    RC_ASSERT(st.has_value());
    const bool specialized = st->edits > 0;
    RC_CLASSIFY(specialized, "specialized");
    const std::string text1 = print_program(work);
    if (auto fs = static_findings(work); !fs.empty()) RC_FAIL("findings after specialize:\n" + findings_text(fs) + text1);
    {
      const auto log = r.log();
      Program again = rp.program;
      passes::Rewriter r2(again);
      RC_ASSERT(r2.replay(log).has_value());
      RC_ASSERT(print_program(again) == text1);
      r.undo();
      RC_ASSERT(print_program(work) == print_program(rp.program));
      RC_ASSERT(r.replay(log).has_value());
    }
    // With s6 changed the fallback runs where the guard checks s6; where minimization left s6 out of the guard (the
    // copy gains nothing from it), the copy runs and must still agree.
    const bool guards_s6 = text1.find("s_cmp_lg_u32 s6,") != std::string::npos;
    RC_CLASSIFY(specialized && guards_s6, "s6 guarded: the changed s6 runs the fallback");
    ProgramInputs other = in;
    other.s6 ^= 0x10;
    for (const ProgramInputs* x : std::initializer_list<const ProgramInputs*>{&in, &other}) {
      const RunResult r0 = run_random_program(rp.program, rp.spec.waves, *x, x->seed_before);
      RC_PRE(r0.ok());
      const RunResult r1 = run_random_program(work, rp.spec.waves, *x, x->seed_after);
      if (!r1.ok()) RC_FAIL("specialized program stops: " + stop_text(r1) + "\n" + text1);
      if (auto d = compare_words(r0.out, r1.out, 0, kOutBytesPerLane, "output"); !d.empty())
        RC_FAIL(std::string(x == &in         ? "copy (guard matches)"
                            : guards_s6      ? "fallback (s6 changed, the guard checks it)"
                                             : "copy (s6 changed, the guard does not check it)") +
                ": " + d + "\n" + text1);
    }
  });
  EXPECT_TRUE(ok);
}

}  // namespace
