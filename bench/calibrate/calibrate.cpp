// Benchmark: the cost model's calibration table (issue 27). For gfx942 (MI300X) and gfx90a (MI250X, one GCD; the
// measurements are of MI210, the same CDNA 2 CU and HBM per die), every row runs a calibration kernel through the
// emulator and the cost model and prints the modeled figure beside the published one, its source and the ratio. The
// peer is the hardware as published: no AMD GPU is here. Not a test (tests/verify/calibration_test.cpp checks the
// same rows' tolerances).
//
// Usage: calibrate [--target gfx942|gfx90a] [--only ID] [--markdown]
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "calibrate/calibration.hpp"

int main(int argc, char** argv) {
  using namespace asmevo;
  std::string only, target;
  bool markdown = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else if (!std::strcmp(argv[i], "--target") && i + 1 < argc) target = argv[++i];
    else if (!std::strcmp(argv[i], "--markdown")) markdown = true;
    else {
      std::fprintf(stderr, "usage: calibrate [--target gfx942|gfx90a] [--only ID] [--markdown]\n");
      return 2;
    }
  }
  if (!target.empty() && target != "gfx942" && target != "gfx90a") {
    std::fprintf(stderr, "calibrate: --target '%s' is not calibrated; the targets are gfx942 and gfx90a\n", target.c_str());
    return 2;
  }
  if (!only.empty()) {
    bool known = false;
    std::string ids;
    for (Target t : {Target::gfx942, Target::gfx90a})
      if (target.empty() || target == to_string(t))
        for (const auto& s : calibrate::rows_for(t)) {
          known = known || s.id == only;
          if (ids.find(" " + s.id + ",") == std::string::npos) ids += " " + s.id + ",";
        }
    if (!known) {
      if (!ids.empty()) ids.pop_back();
      std::fprintf(stderr, "calibrate: --only '%s' names no row%s; the rows are:%s\n", only.c_str(),
                   target.empty() ? "" : (" of " + target).c_str(), ids.c_str());
      return 2;
    }
  }
  int bad = 0;
  for (Target t : {Target::gfx942, Target::gfx90a}) {
    if (!target.empty() && target != to_string(t)) continue;
    const auto co = std::filesystem::path(ASMEVO_CALIBRATE_DIR) / ("calibrate." + std::string(to_string(t)) + ".co");
    auto k = calibrate::load_kernels(co);
    if (!k) {
      std::fprintf(stderr, "calibrate: %s: %s (build the calibrate_kernels target)\n", co.string().c_str(),
                   k.error().str().c_str());
      return 2;
    }
    auto specs = calibrate::rows_for(t);
    if (!only.empty()) {
      std::vector<calibrate::RowSpec> keep;
      for (auto& s : specs)
        if (s.id == only || (only == "tlb_miss" && (s.id == "pages_latency" || s.id == "mall_latency" || s.id == "l2_latency")))
          keep.push_back(s);
      specs = keep;
    }
    const auto& p = model::timing_params(t);
    const auto t0 = std::chrono::steady_clock::now();
    const auto rows = calibrate::run_rows(specs, *k, std::filesystem::path(ASMEVO_SOURCE_DIR) / "bench" / "calibrate" / "launch");
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("\n== %s: %s, %u CUs at %u MHz (modeled figures; published figures with their sources)\n",
                std::string(to_string(t)).c_str(), std::string(p.device).c_str(), p.cus.value, p.clock_mhz.value);
    if (markdown)
      std::printf("| row | quantity | modeled | published | ratio | within | source | how measured, other sources |\n"
                  "|---|---|---|---|---|---|---|---|\n");
    else std::printf("%-20s %-62s %12s %20s %7s %6s\n", "row", "quantity", "modeled", "published", "ratio", "ok");
    unsigned with = 0, ok = 0;
    for (const auto& r : rows) {
      char mod[64], pub[64], ratio[32];
      if (!r.error.empty()) std::snprintf(mod, sizeof mod, "error");
      else std::snprintf(mod, sizeof mod, "%.4g %s", r.modeled, r.unit.c_str());
      if (r.spec.published) {
        ++with;
        ok += r.within();
        if (r.spec.published->lo == r.spec.published->hi) std::snprintf(pub, sizeof pub, "%.4g", r.spec.published->lo);
        else std::snprintf(pub, sizeof pub, "%.4g-%.4g", r.spec.published->lo, r.spec.published->hi);
        std::snprintf(ratio, sizeof ratio, "%.2f", r.ratio());
      } else {
        std::snprintf(pub, sizeof pub, "none");
        std::snprintf(ratio, sizeof ratio, "-");
      }
      const char* verdict = !r.spec.published ? "-" : r.within() ? "yes" : "NO";
      if ((r.spec.published && !r.within()) || !r.error.empty()) ++bad;
      // The source of the published figure, then the note: how it was measured, the sources that disagree, or
      // (without a figure) what was searched.
      const std::string src = r.spec.published ? r.spec.published->source : std::string("-");
      if (markdown)
        std::printf("| %s | %s | %s | %s | %s | %s | %s | %s |\n", r.spec.id.c_str(), r.spec.quantity.c_str(), mod, pub,
                    ratio, verdict, src.c_str(), r.spec.note.c_str());
      else
        std::printf("%-20s %-62s %12s %20s %7s %6s\n%s%s%s    %s%s%s\n", r.spec.id.c_str(), r.spec.quantity.c_str(), mod,
                    pub, ratio, verdict, r.spec.published ? "    " : "", r.spec.published ? src.c_str() : "",
                    r.spec.published ? "\n" : "", r.spec.note.c_str(), r.error.empty() ? "" : "\n    error: ",
                    r.error.c_str());
    }
    std::printf("%s: %u of %u rows with a published figure are within it (inside its range or within 25%% of its "
                "nearer end); %zu rows have none; %.1f s\n",
                std::string(to_string(t)).c_str(), ok, with, rows.size() - with, secs);
  }
  return bad ? 1 : 0;
}
