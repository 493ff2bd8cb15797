// Trip counts under a launch (analysis/loop_trips.hpp) against the emulator: the calibration kernels (clang-22's
// loops over a step count from a kernel argument: a guard, an unrolled body, a remainder loop) run their latency rows'
// launches with the step count set to a few values, and for every loop whose trip count the analysis works out from
// the launch, the header's executions per entry in the emulator's run must be exactly that count. Loops without one
// are counted and printed, so a regression in recognition shows.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "asmevo/analysis/loop_trips.hpp"
#include "asmevo/verify/launch_facts.hpp"
#include "asmevo/verify/timed_emulation.hpp"
#include "calibrate/calibration.hpp"

namespace {

using namespace asmevo;

TEST(LoopTrips, ConcreteTripCountsMatchTheEmulatorOnTheCalibrationKernels) {
  const Target t = Target::gfx942;
  const auto co = std::filesystem::path(ASMEVO_CALIBRATE_DIR) / ("calibrate." + std::string(to_string(t)) + ".co");
  if (!std::filesystem::exists(co)) GTEST_SKIP() << co << " is not built (clang-22 missing?)";
  auto k = calibrate::load_kernels(co);
  ASSERT_TRUE(k) << k.error().str();
  const auto launch_dir = std::filesystem::path(ASMEVO_SOURCE_DIR) / "bench" / "calibrate" / "launch" / "gfx942";
  std::set<std::string> seen;
  unsigned checked = 0, loops = 0, unknown = 0;
  for (const auto& row : calibrate::rows_for(t)) {
    if ((row.measure != calibrate::Measure::chase_step && row.measure != calibrate::Measure::load_to_use) || row.launch.empty() || !seen.insert(row.launch).second) continue;
    SCOPED_TRACE(row.launch);
    auto specs = verify::read_launch_file(launch_dir / (row.launch + ".json"));
    ASSERT_TRUE(specs && specs->size() == 1) << (specs ? "not one launch" : specs.error().str());
    for (const std::uint32_t steps : {1u, 7u, 37u, 200u}) {
      SCOPED_TRACE("steps " + std::to_string(steps));
      verify::LaunchSpec spec = specs->front();
      ASSERT_LT(row.vary, spec.args.size());
      spec.args[row.vary].scalar.bits = steps;
      auto facts = verify::launch_facts(k->module, spec);
      ASSERT_TRUE(facts) << facts.error().str();
      const Program& p = k->module.program;
      auto kb = analysis::KnownBits::analyze(p, *facts);
      ASSERT_TRUE(kb) << kb.error().str();
      const auto li = analysis::find_loops(p, kb->cfg(), kb->entry_block());
      const auto counts = analysis::concrete_trip_counts(li, *kb);
      emu::EmulateOptions o;
      o.run.completion = emu::Completion::eager;
      auto r = verify::emulate_timed(k->module, k->elf, spec, o);
      ASSERT_TRUE(r && r->ok() && r->timing) << (r ? r->stop.message : r.error().str());
      std::map<std::uint32_t, std::uint64_t> exec;  // InstId -> executions over all waves
      for (const auto& row2 : r->timing->instructions) exec[row2.id.value] = row2.executions;
      const auto& g = kb->cfg();
      for (std::size_t i = 0; i < li.loops.size(); ++i) {
        const auto& l = li.loops[i];
        ++loops;
        if (!counts[i]) {
          ++unknown;
          continue;
        }
        const auto head = p.items[g.blocks[l.header].insts.front()].inst.id.value;
        const auto& from = g.blocks[*l.entered_from].insts;
        ASSERT_FALSE(from.empty());
        const std::uint64_t entries = exec[p.items[from.back()].inst.id.value];
        const std::uint64_t runs = exec[head];
        // Every wave reaches the loop's entering block once (uniform control flow: the step count is a kernel
        // argument), so the header runs count times per wave.
        const std::uint64_t waves = r->timing->waves.size();
        ASSERT_EQ(entries, waves) << "each wave passes the block that enters the loop once";
        EXPECT_EQ(runs, *counts[i] * waves) << "loop at block " << l.header << ": the analysis says " << *counts[i]
                                            << " per entry, the emulator ran the header " << runs << " times over "
                                            << waves << " wave(s)";
        ++checked;
      }
    }
  }
  EXPECT_GE(checked, 10u) << "loops whose trip count was checked";
  std::printf("[loop trips] %u loops over the calibration launches: %u concrete trip counts, each equal to the "
              "emulator's; %u without one\n",
              loops, checked, unknown);
}

}  // namespace
