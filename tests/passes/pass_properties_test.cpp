// Properties of every built-in pass on random well-formed programs (pass_properties.hpp, random_program.hpp): same
// output memory on the emulator, checker-clean result, idempotence where claimed, no more instructions or modeled
// cycles, exact undo and replay. Also: the generator makes clean programs, and the harness catches wrong passes.
//
// Cases: 100 per property by default (the whole file runs in about a minute on the 2-core CI machine). RC_PARAMS
// overrides, e.g. RC_PARAMS="max_success=1000" for a longer soak, or RC_PARAMS="seed=42" to repeat a run. rapidcheck
// prints "Using configuration: seed=..." for every property and, on a failure, the shrunk program (its segments
// and its text), the inputs, and an RC_PARAMS="reproduce=..." line that replays exactly that case.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cstdlib>
#include <iostream>
#include <map>
#include <set>
#include <string>

#include "asmevo/ir/parser.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/passes/batch_loads.hpp"
#include "asmevo/passes/dce.hpp"
#include "asmevo/passes/hazard_fix.hpp"
#include "asmevo/passes/load_widen.hpp"
#include "asmevo/passes/nop_min.hpp"
#include "asmevo/passes/peephole.hpp"
#include "asmevo/passes/pipeline.hpp"
#include "asmevo/passes/schedule.hpp"
#include "asmevo/passes/unroll.hpp"
#include "asmevo/passes/vgpr_compact.hpp"
#include "asmevo/passes/waitcnt_min.hpp"
#include "passes/pass_properties.hpp"

namespace {

using namespace asmevo;
using namespace asmevo::test;

// Bounded by default for CI; RC_PARAMS still wins. rapidcheck reads RC_PARAMS lazily at the first property, after
// static initialisation.
const bool rc_defaults_installed = [] {
  std::string p = std::getenv("RC_PARAMS") ? std::getenv("RC_PARAMS") : "";
  if (p.find("max_success") == std::string::npos) p += " max_success=100";
  setenv("RC_PARAMS", p.c_str(), 1);
  return true;
}();

// ---- passes for testing the harness ------------------------------------------------------------------------------

/// Makes no edit: every property must hold, with equal cycles.
struct Identity {
  static constexpr std::string_view name = "identity";
  static constexpr std::string_view summary = "changes nothing";
  static constexpr bool idempotent = true;
  [[nodiscard]] Expected<passes::PassStats> run(passes::Rewriter&, const passes::PassContext&) const {
    return passes::PassStats{};
  }
};
static_assert(passes::Pass<Identity>);

[[nodiscard]] std::string_view mnemonic(const Inst& in) { return isa::forms(in.target)[in.form].mnemonic; }

/// Wrong: erases every s_waitcnt (loads' results are read before they arrive, LDS writes are not complete at the
/// barrier).
struct EraseWaits {
  static constexpr std::string_view name = "erase-waits";
  static constexpr std::string_view summary = "wrong on purpose";
  [[nodiscard]] Expected<passes::PassStats> run(passes::Rewriter& r, const passes::PassContext&) const {
    std::vector<InstId> ids;
    for (const auto& it : r.program().items)
      if (it.kind == Item::Kind::inst && mnemonic(it.inst) == "s_waitcnt") ids.push_back(it.inst.id);
    for (const auto id : ids)
      if (auto e = r.erase(id, std::string(name)); !e) return unexpected(std::move(e).error());
    return passes::PassStats{};
  }
};

/// Wrong: turns every v_add_u32 that writes a value register into v_sub_u32.
struct AddToSub {
  static constexpr std::string_view name = "add-to-sub";
  static constexpr std::string_view summary = "wrong on purpose";
  [[nodiscard]] Expected<passes::PassStats> run(passes::Rewriter& r, const passes::PassContext&) const {
    std::vector<std::pair<InstId, Inst>> todo;
    for (const auto& it : r.program().items) {
      if (it.kind != Item::Kind::inst || mnemonic(it.inst) != "v_add_u32") continue;
      std::string t = print_inst(it.inst);
      const auto d = t.find(' ') + 2;  // "v_add_u32 v<N>, ..." (an _e32/_e64 suffix stays: same length)
      if (std::stoul(t.substr(d)) < kValue0) continue;
      t.replace(0, 9, "v_sub_u32");
      auto in = parse_inst(t, r.program().target);
      if (!in) return unexpected(std::move(in).error());
      todo.emplace_back(it.inst.id, *in);
    }
    for (auto& [id, in] : todo)
      if (auto e = r.replace(id, {in}, std::string(name)); !e) return unexpected(std::move(e).error());
    return passes::PassStats{};
  }
};

/// Wrong: erases every s_nop (MFMA results are then read too early, VCC forwarding is too close on gfx942).
struct EraseNops {
  static constexpr std::string_view name = "erase-nops";
  static constexpr std::string_view summary = "wrong on purpose";
  [[nodiscard]] Expected<passes::PassStats> run(passes::Rewriter& r, const passes::PassContext&) const {
    std::vector<InstId> ids;
    for (const auto& it : r.program().items)
      if (it.kind == Item::Kind::inst && mnemonic(it.inst) == "s_nop") ids.push_back(it.inst.id);
    for (const auto id : ids)
      if (auto e = r.erase(id, std::string(name)); !e) return unexpected(std::move(e).error());
    return passes::PassStats{};
  }
};

/// Wrong for its claims: adds an `s_nop 0` at the top on every run, and says it is idempotent.
struct AddNop {
  static constexpr std::string_view name = "add-nop";
  static constexpr std::string_view summary = "wrong on purpose";
  static constexpr bool idempotent = true;
  [[nodiscard]] Expected<passes::PassStats> run(passes::Rewriter& r, const passes::PassContext&) const {
    for (const auto& it : r.program().items)
      if (it.kind == Item::Kind::inst) {
        auto nop = parse_inst("s_nop 0", r.program().target);
        if (auto e = r.insert_before(it.inst.id, {*nop}, std::string(name)); !e)
          return unexpected(std::move(e).error());
        break;
      }
    return passes::PassStats{};
  }
};

/// The generated programs of seeds 1..n at rapidcheck sizes spread over 0..99 (what a property sees).
std::vector<std::pair<RandomProgram, ProgramInputs>> fixed_cases(int n) {
  std::vector<std::pair<RandomProgram, ProgramInputs>> out;
  const auto gp = gen_random_program();
  const auto gi = gen_inputs();
  for (int i = 0; i < n; ++i)
    out.emplace_back(gp(rc::Random(static_cast<std::uint64_t>(i) + 1), (i * 37) % 100).value(),
                     gi(rc::Random(static_cast<std::uint64_t>(i) + 1000)).value());
  return out;
}

/// Runs check_pass_once of `pass` over fixed cases; returns how many cases the pass edited and, per broken
/// property, how many of those it caught.
template <class P>
std::pair<int, std::map<Broken, int>> catches(const P& pass, const PropertyOptions& opt, int n = 40) {
  int edited = 0;
  std::map<Broken, int> caught;
  for (const auto& [rp, in] : fixed_cases(n)) {
    CaseReport rep;
    const auto f = check_pass_once(pass, rp, in, opt, &rep);
    edited += rep.edits > 0;
    if (f) {
      ++caught[f->broken];
      EXPECT_GT(rep.edits, 0u) << "a failure without an edit: " << to_string(f->broken) << ": " << f->message;
    }
  }
  return {edited, caught};
}

std::string show(const std::map<Broken, int>& m);

/// catches() with its counts printed, so that the log shows how strong each check is.
template <class P>
std::pair<int, std::map<Broken, int>> catches_logged(const P& pass, const PropertyOptions& opt, int n = 40) {
  auto r = catches(pass, opt, n);
  std::cout << "  " << P::name << (opt.static_checks_after ? "" : " (static checks off)") << ": " << n << " cases, "
            << r.first << " edited, caught: " << show(r.second) << "\n";
  return r;
}

std::string show(const std::map<Broken, int>& m) {
  std::string s;
  for (const auto& [b, n] : m) s += std::string(to_string(b)) + " " + std::to_string(n) + "; ";
  return s;
}

// ---- the generator -----------------------------------------------------------------------------------------------

// The precondition of every property, asserted rather than assumed: a generated program parses, is clean under
// both static checkers, runs to s_endpgm on the emulator (adversarial completion, hazard check on) under two
// schedules with different register garbage, and writes the same output both times (so nothing it stores depends
// on a register it never wrote, or on the order memory completes in).
TEST(RandomProgram, IsCleanAndDeterministic) {
  EXPECT_TRUE(rc::check("generated programs are checker-clean and run cleanly", [] {
    const RandomProgram rp = *gen_random_program();
    RC_ASSERT(rp.parse_error.empty());
    const auto f = static_findings(rp.program);
    if (!f.empty()) RC_FAIL("static findings:\n" + findings_text(f));
    const ProgramInputs in = *gen_inputs();
    const RunResult a = run_random_program(rp.program, rp.spec.waves, in, in.seed_before);
    if (!a.ok()) RC_FAIL("run 1 stops: " + stop_text(a));
    const RunResult b = run_random_program(rp.program, rp.spec.waves, in, in.seed_after);
    if (!b.ok()) RC_FAIL("run 2 stops: " + stop_text(b));
    const auto d = compare_words(a.out, b.out, 0, kOutBytesPerLane, "output");
    if (!d.empty()) RC_FAIL(d);
    // The cost model follows each wave's own instruction stream: the schedule does not change it.
    RC_ASSERT(a.cycles == b.cycles);
    RC_ASSERT(a.cycles > 0u);
    RC_TAG(to_string(rp.spec.target));
  }));
}

// Every shape the generator promises shows up in a modest sample, so a weight or an emitter bug that drops one is
// seen here rather than as silently weaker properties.
TEST(RandomProgram, CoversEveryShape) {
  std::map<std::string, int> seen;
  const char* wanted[] = {"global_load_dword ", "global_load_dwordx2", "global_load_dwordx4", "ds_write_b32",
                          "ds_read_b32",        "s_barrier",           "s_load_dword ",       "s_load_dwordx2",
                          "v_mul_lo_u32",       "v_fma_f32",           "v_add_f32",           "s_and_saveexec_b64",
                          "s_cbranch_execz",    "v_mfma_f32_16x16x16", "v_mfma_f32_32x32x8",  "v_accvgpr_read_b32",
                          "s_cbranch_scc1",     "v_readlane_b32",      "v_writelane_b32",     "vmcnt(0)",
                          "vmcnt(1)",           "lgkmcnt(1)"};
  std::set<Target> targets;
  std::set<unsigned> waves;
  for (const auto& [rp, in] : fixed_cases(200)) {
    ASSERT_TRUE(rp.parse_error.empty()) << rp.parse_error;
    targets.insert(rp.spec.target);
    waves.insert(rp.spec.waves);
    for (const char* w : wanted) seen[w] += rp.text.find(w) != std::string::npos;
  }
  for (const char* w : wanted) EXPECT_GT(seen[w], 0) << w << " never generated";
  EXPECT_EQ(targets.size(), 3u);
  EXPECT_EQ(waves.size(), 4u);
}

// ---- the harness catches wrong passes ----------------------------------------------------------------------------

TEST(PassProperties, IdentityHoldsOnFixedCases) {
  const auto [edited, caught] = catches_logged(Identity{}, {});
  EXPECT_EQ(edited, 0);
  EXPECT_TRUE(caught.empty()) << show(caught);
}

TEST(PassProperties, CatchesMissingWaits) {
  // With the static checkers on, they see it first. Without them, the emulator's adversarial completion must see it
  // as a waitcnt stop (or, for an LDS write not complete at a barrier, as an LDS race stop or wrong data). A program
  // whose only wait is for an SMEM result nothing reads (the final wait before the stores) is edited but not wrong:
  // hence "most", and both must agree case by case.
  const auto [edited, caught] = catches_logged(EraseWaits{}, {});
  int total = 0;
  for (const auto& [b, n] : caught) {
    total += n;
    EXPECT_TRUE(b == Broken::static_check) << show(caught);
  }
  EXPECT_GT(edited, 20);
  EXPECT_GE(4 * total, 3 * edited) << show(caught);

  PropertyOptions dyn;
  dyn.static_checks_after = false;
  const auto [edited2, caught2] = catches_logged(EraseWaits{}, dyn);
  int total2 = 0;
  for (const auto& [b, n] : caught2) {
    total2 += n;
    EXPECT_TRUE(b == Broken::run_stopped || b == Broken::outputs) << show(caught2);
  }
  EXPECT_GE(4 * total2, 3 * edited2) << show(caught2);
  EXPECT_EQ(total, total2) << "the emulator and the checkers do not catch as many cases";
}

TEST(PassProperties, CatchesWrongArithmetic) {
  const auto [edited, caught] = catches_logged(AddToSub{}, {});
  EXPECT_GT(edited, 10);
  const int outputs = caught.count(Broken::outputs) ? caught.at(Broken::outputs) : 0;
  // A changed add can be dead (overwritten before any store): most are not.
  EXPECT_GE(4 * outputs, 3 * edited) << show(caught);
}

TEST(PassProperties, CatchesMissingWaitStates) {
  PropertyOptions dyn;
  dyn.static_checks_after = false;
  const auto [edited, caught] = catches_logged(EraseNops{}, dyn);
  EXPECT_GT(edited, 10);
  EXPECT_GT(caught.count(Broken::run_stopped) ? caught.at(Broken::run_stopped) : 0, 0) << show(caught);
  const auto [edited2, caught2] = catches_logged(EraseNops{}, {});
  EXPECT_GT(caught2.count(Broken::static_check) ? caught2.at(Broken::static_check) : 0, 0) << show(caught2);
}

TEST(PassProperties, CatchesGrowthSlowdownAndFalseIdempotence) {
  const auto [edited, caught] = catches_logged(AddNop{}, {}, 10);
  EXPECT_EQ(edited, 10);
  EXPECT_EQ(caught.count(Broken::growth) ? caught.at(Broken::growth) : 0, 10) << show(caught);

  PropertyOptions grow;
  grow.may_grow = "inserts s_nop";
  const auto [e2, c2] = catches_logged(AddNop{}, grow, 10);
  EXPECT_EQ(c2.count(Broken::cycles) ? c2.at(Broken::cycles) : 0, 10) << show(c2);

  grow.may_slow = "inserts s_nop";
  const auto [e3, c3] = catches_logged(AddNop{}, grow, 10);
  EXPECT_EQ(c3.count(Broken::idempotence) ? c3.at(Broken::idempotence) : 0, 10) << show(c3);
}

// ---- the properties of every pass --------------------------------------------------------------------------------

TEST(PassProperties, Identity) { EXPECT_TRUE(check_pass_properties(Identity{})); }

TEST(PassProperties, Dce) { EXPECT_TRUE(check_pass_properties(passes::Dce{})); }

TEST(PassProperties, NopMin) { EXPECT_TRUE(check_pass_properties(passes::NopMin{})); }

// hazard-fix on clean code makes no edit (its doc comment); the generated programs are clean.
TEST(PassProperties, HazardFix) { EXPECT_TRUE(check_pass_properties(passes::HazardFix{})); }

TEST(PassProperties, WaitcntMin) { EXPECT_TRUE(check_pass_properties(passes::WaitcntMin{})); }

// The generated programs leave v5, v46 and v47 (unless a loop streams loads through them) and (with AGPR
// accumulators) v48..v63 unnamed: there is work.
TEST(PassProperties, VgprCompact) { EXPECT_TRUE(check_pass_properties(passes::VgprCompact{})); }

// The generator's split load pairs and paired LDS reads are what it merges.
TEST(PassProperties, LoadWiden) { EXPECT_TRUE(check_pass_properties(passes::LoadWiden{})); }

// The scheduler's latencies are the cost model's figures (its file comment), not the whole model (issue ports, memory
// queueing), so a region it reorders can lose a few cycles: measured on one wave, 3 of 1000 cases, at most 0.07%
// (4 cycles); one gfx950 case with four waves and an exec region loses 1.03% (56 of 5456 cycles; rapidcheck seed
// 10585765942664823157). 2% keeps the property a check that the schedule does not make code meaningfully slower.
TEST(PassProperties, Schedule) {
  PropertyOptions o;
  o.may_slow = "list-scheduling latencies are not the full cost model";
  o.cycle_slack = 0.02;
  EXPECT_TRUE(check_pass_properties(passes::Schedule{}, o));
}

// The generator's loads followed by waits and the code that reads them are what batch-loads hoists; each crossed
// wait's vmcnt goes up by one, so the emulator's waitcnt tracking checks the counts on every run. A load issued
// earlier can meet the memory queue at a worse moment: measured on one wave, at most 1.1% more cycles (60 of 5464);
// 2% keeps the property a check that hoisting does not make code meaningfully slower (the search times every K1).
TEST(PassProperties, BatchLoads) {
  PropertyOptions o;
  o.may_slow = "an earlier load can meet the memory queue at a worse moment";
  o.cycle_slack = 0.02;
  EXPECT_TRUE(check_pass_properties(passes::BatchLoads{}, o));
}

// The generator's counted loops (s_mov_b32 s30, N; body; s_sub_u32; s_cmp_lg_u32; s_cbranch_scc1) are what unroll
// takes, with every kind of body the generator makes: the emulator runs K0 and K1 on every case, so each trip count
// against each factor checks the trip tests, the remainder path and the renamed locals. It adds code, and a loop
// whose group never completes pays the tests for nothing.
TEST(PassProperties, Unroll) {
  for (const char* f : {"2", "3", "4"}) {
    SCOPED_TRACE(std::string("factor ") + f);
    PropertyOptions o;
    o.context.args["factor"] = f;
    o.may_grow = "it copies the loop body and adds trip tests";
    o.may_slow = "a loop too short for one group runs the trip tests and then the loop itself";
    EXPECT_TRUE(check_pass_properties(passes::Unroll{}, o));
  }
}

// peephole undoes any firing that would bring a VALU write and its reader closer than a hazard allows.
TEST(PassProperties, Peephole) { EXPECT_TRUE(check_pass_properties(passes::Peephole{})); }

// A compile-time pipeline (Boost.Hana) is itself a Pass: the whole optimizing sequence keeps every property. The
// composition is not claimed idempotent (a later pass can open work for an earlier one).
TEST(PassProperties, CompileTimePipeline) {
  PropertyOptions o;
  o.may_slow = "it schedules (see Schedule)";
  o.cycle_slack = 0.02;
  EXPECT_TRUE(check_pass_properties(
      passes::pipeline(passes::Peephole{}, passes::Dce{}, passes::LoadWiden{}, passes::Schedule{}, passes::WaitcntMin{},
                       passes::NopMin{}),
      o));
}

}  // namespace
