// The cost model against published hardware figures (issue 27): every row of bench/calibrate's table, for gfx942
// (MI300X) and gfx90a (MI250X, one GCD, with MI210's measurements), is modeled from the calibration kernels
// (bench/calibrate/calibrate.hip, built by clang-22) and must be inside its published range or within 25% of its
// nearer end; each published figure is one named source's (see calibration.hpp). Rows without a published figure must
// say what was searched. Bandwidth must rise with the loads in flight as measured. The whole table is printed, so a
// run shows every figure beside its source.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <set>

#include "calibrate/calibration.hpp"

namespace {

using namespace asmevo;

class Calibration : public ::testing::TestWithParam<Target> {};

TEST_P(Calibration, EveryRowWithAPublishedFigureIsWithinIt) {
  const Target t = GetParam();
  const auto co = std::filesystem::path(ASMEVO_CALIBRATE_DIR) / ("calibrate." + std::string(to_string(t)) + ".co");
  if (!std::filesystem::exists(co)) GTEST_SKIP() << co << " is not built (clang-22 missing?)";
  auto k = calibrate::load_kernels(co);
  ASSERT_TRUE(k) << k.error().str();
  const auto specs = calibrate::rows_for(t);
  std::set<std::string> ids;
  for (const auto& s : specs) EXPECT_TRUE(ids.insert(s.id).second) << "duplicate row " << s.id;
  const auto rows =
      calibrate::run_rows(specs, *k, std::filesystem::path(ASMEVO_SOURCE_DIR) / "bench" / "calibrate" / "launch");
  ASSERT_EQ(rows.size(), specs.size());
  unsigned with = 0, within = 0;
  for (const auto& r : rows) {
    EXPECT_TRUE(r.error.empty()) << r.spec.id << ": " << r.error;
    EXPECT_GT(r.modeled, 0) << r.spec.id;
    if (r.spec.published) {
      ++with;
      within += r.within();
      EXPECT_TRUE(r.within()) << r.spec.id << " (" << r.spec.quantity << "): modeled " << r.modeled << " " << r.unit
                              << ", published " << r.spec.published->lo << "-" << r.spec.published->hi << " ("
                              << r.spec.published->source << ")";
      EXPECT_FALSE(r.spec.published->source.empty()) << r.spec.id;
      std::printf("[calibration %s] %-20s modeled %10.4g %-9s published %9.4g-%-9.4g ratio %.2f  %s\n    %s\n",
                  std::string(to_string(t)).c_str(), r.spec.id.c_str(), r.modeled, r.unit.c_str(),
                  r.spec.published->lo, r.spec.published->hi, r.ratio(), r.spec.published->source.c_str(),
                  r.spec.note.c_str());
    } else {
      // A row without a figure says what was searched, or that it is a helper of another row.
      EXPECT_TRUE(r.spec.note.find("searched") != std::string::npos || r.spec.id == "pages_latency")
          << r.spec.id << " has no published figure and its note does not say what was searched: " << r.spec.note;
      std::printf("[calibration %s] %-20s modeled %10.4g %-9s published none: %s\n", std::string(to_string(t)).c_str(),
                  r.spec.id.c_str(), r.modeled, r.unit.c_str(), r.spec.note.c_str());
    }
  }
  std::printf("[calibration %s] %u of %u rows with a published figure within it; %zu rows without one\n",
              std::string(to_string(t)).c_str(), within, with, rows.size() - with);
  // Memory-level parallelism, as measured on MI300X: at one wave per SIMD, a stream with 4 loads in flight per wave
  // gets far more of HBM than one with a single load in flight ([FLEET]: 2.60-2.71 TB/s with 1, 3.74-4.30 with 8,
  // a ratio of 1.38-1.65; the issue: about 2.6 against 3.8-4.3 with four or more). A model without memory-level
  // parallelism gives a ratio near 1, one that ignores the bandwidth share far more. No MI210 figure was found; the
  // same CDNA memory pipeline is held to the same range there.
  {
    auto figure = [&](const char* id) {
      for (const auto& r : rows)
        if (r.spec.id == id) return r.modeled;
      return 0.0;
    };
    const double one = figure("read_1_w1"), four = figure("read_4_w1"), eight = figure("read_8_w1");
    ASSERT_GT(one, 0);
    EXPECT_GE(four / one, 1.3) << "read_4_w1 " << four << " / read_1_w1 " << one;
    EXPECT_LE(four / one, 1.8) << "read_4_w1 " << four << " / read_1_w1 " << one;
    EXPECT_GE(eight, four * 0.98) << "more loads in flight never lose bandwidth";
    std::printf("[calibration %s] memory-level parallelism: 4 loads in flight / 1 = %.2f, 8 / 1 = %.2f\n",
                std::string(to_string(t)).c_str(), four / one, eight / one);
  }
  // The table covers what the issue lists: latencies of every level, bandwidths, compute rates.
  for (const char* must : {"scalar_l1_latency", "l1_latency", "l2_latency", "hbm_latency", "tlb_miss", "lds_latency",
                           "atomic_latency", "barrier", "read_1_w1", "read_8_w8", "copy", "l1_bandwidth",
                           "l2_bandwidth", "lds_bandwidth_s1", "lds_bandwidth_s32", "pk_fma_f32", "fma_f64", "exp_f32",
                           "mfma_f16", "mfma_bf16"})
    EXPECT_TRUE(ids.count(must)) << must;
  if (t == Target::gfx942)
    for (const char* must : {"mall_latency", "mall_bandwidth", "mfma_fp8"}) EXPECT_TRUE(ids.count(must)) << must;
}

INSTANTIATE_TEST_SUITE_P(Targets, Calibration, ::testing::Values(Target::gfx942, Target::gfx90a),
                         [](const auto& info) { return std::string(to_string(info.param)); });

}  // namespace
