// The verifier's answer: the verdict, the receipt that says why (its JSON and one-line reason), and how runs,
// schedules, buffer comparisons, static findings and buffer inits are written into it. Not here: the checks that
// decide the verdict (verify/differential.hpp and the gates it includes).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "asmevo/analysis/findings.hpp"
#include "asmevo/codeobject/compare.hpp"
#include "asmevo/launch/dtype.hpp"
#include "asmevo/launch/spec_types.hpp"
#include "asmevo/verify/compare.hpp"
#include "asmevo/verify/detail/id_text.hpp"
#include "asmevo/verify/executor.hpp"

namespace asmevo::verify {

enum class Verdict : std::uint8_t {
  equivalent,      ///< K1 behaved like K0 everywhere it was tried
  not_equivalent,  ///< K1 was rejected (rejected_by says by what)
  k0_failed,       ///< K0 itself did not run cleanly: nothing can be concluded
};

[[nodiscard]] constexpr std::string_view to_string(Verdict v) noexcept {
  switch (v) {
    case Verdict::equivalent: return "equivalent";
    case Verdict::not_equivalent: return "not_equivalent";
    case Verdict::k0_failed: return "k0_failed";
  }
  return "?";
}

struct Receipt {
  Verdict verdict = Verdict::equivalent;
  std::string rejected_by;  ///< "", "abi", "versioning", "static", "approximate", "float_mode", "refuted", "memory_model",
                            ///< "coverage", "run", "state", "unproven"
  std::string reason;       ///< one line in the user's terms
  nlohmann::ordered_json json;
};

namespace detail {

using OJson = nlohmann::ordered_json;

[[nodiscard]] inline std::string hex_bits(std::uint64_t v, std::size_t bytes) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%0*llx", static_cast<int>(bytes * 2), static_cast<unsigned long long>(v));
  return buf;
}

/// A double as JSON: a number when finite, else "nan" / "inf" / "-inf" (JSON has no such numbers).
[[nodiscard]] inline OJson number_json(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

[[nodiscard]] inline std::string number_text(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

[[nodiscard]] inline OJson comparison_json(const BufferComparison& c) {
  OJson j;
  j["arg"] = c.arg;
  j["dtype"] = std::string(dtype_name(c.dtype));
  j["output"] = c.output;
  j["verdict"] = c.ok() ? "match" : "differ";
  if (c.tolerance) j["tolerance"] = {{"abs", c.tolerance->abs}, {"rel", c.tolerance->rel}};
  else j["tolerance"] = "exact";
  j["compared"] = c.compared;
  j["differing"] = c.differing;
  if (c.k1_guard_hit) j["guard_hit"] = *c.k1_guard_hit;
  OJson first = OJson::array();
  const std::size_t sz = dtype_size(c.dtype);
  for (const auto& m : c.first)
    first.push_back({{"index", m.index}, {"k0", number_json(m.k0.value)}, {"k1", number_json(m.k1.value)},
                     {"k0_bits", hex_bits(m.k0.bits, sz)}, {"k1_bits", hex_bits(m.k1.bits, sz)}});
  j["first_differences"] = std::move(first);
  return j;
}

[[nodiscard]] inline OJson stop_json(const RunOutcome& r) {
  if (r.ok()) return nullptr;
  OJson s;
  s["kind"] = std::string(to_string(r.stop));
  if (r.inst) s["instruction"] = id_text(*r.inst);
  if (r.other) s[r.stop == StopKind::hazard ? "producer" : r.stop == StopKind::waitcnt ? "load" : "other"] = id_text(*r.other);
  if (r.lane >= 0) s["lane"] = r.lane;
  if (r.address) s["address"] = *r.address;
  s["message"] = r.message;
  return s;
}

/// How many holds of a hold-one-wave schedule a receipt lists per run (a loop with a barrier has one per iteration).
inline constexpr std::size_t listed_holds = 16;

/// The receipt's account of the schedule `rq` asked for and `r` (when the run came back) had: "schedule" is the
/// kind ("random", "hold-one-wave"), or "hardware" when the executor cannot choose one (a device), with the kind
/// that was asked for beside it; a hold-one-wave run lists which wave it held in which phase of workgroup (0,0,0).
[[nodiscard]] inline OJson schedule_json(const RunRequest& rq, const RunOutcome* r) {
  OJson j;
  if (r && !r->schedule) {
    j["schedule"] = "hardware";
    j["schedule_requested"] = std::string(to_string(rq.schedule));
    j["schedule_note"] = "the device schedules its waves itself: the requested schedule could not be applied";
    return j;
  }
  j["schedule"] = std::string(to_string(rq.schedule));
  if (!r || rq.schedule != ScheduleKind::hold_one_wave) return j;
  OJson held = OJson::array();
  for (std::size_t i = 0; i < r->schedule->held.size() && i < listed_holds; ++i) {
    const HeldWave& h = r->schedule->held[i];
    held.push_back({{"phase", h.phase}, {"wave", h.wave}, {"released", h.released}});
  }
  j["held_waves"] = {{"workgroup", {0, 0, 0}}, {"holds", r->schedule->held.size()}, {"first", std::move(held)}};
  return j;
}

/// "schedule seed 7" or "schedule seed 7 (hold-one-wave)": where a run's verdict came from.
[[nodiscard]] inline std::string schedule_text(const RunRequest& rq) {
  return "schedule seed " + std::to_string(rq.schedule_seed) +
         (rq.schedule == ScheduleKind::random ? std::string() : " (" + std::string(to_string(rq.schedule)) + ")");
}

[[nodiscard]] inline std::string stop_text(const RunOutcome& r) {
  std::string s = std::string(to_string(r.stop));
  if (r.inst) s += " at " + id_text(*r.inst);
  if (r.other) s += std::string(r.stop == StopKind::hazard ? " (producer " : r.stop == StopKind::waitcnt ? " (load " : " (with ") +
                    id_text(*r.other) + ")";
  if (r.lane >= 0) s += ", lane " + std::to_string(r.lane);
  s += ": " + r.message;
  return s;
}

/// "output arg2 (f32) differs in 3 of 1000 elements; first at [17]: K0 1.5 (0x3fc00000), K1 -0.5 (0xbf000000)".
[[nodiscard]] inline std::string comparison_text(const BufferComparison& c) {
  std::string s = std::string(c.output ? "output" : "non-output buffer") + " arg" + std::to_string(c.arg) + " (" +
                  std::string(dtype_name(c.dtype)) + ")";
  if (c.k1_guard_hit && c.differing == 0)
    return s + ": K1 wrote into its guard bytes at offset " + std::to_string(*c.k1_guard_hit);
  s += c.output ? " differs in " : " was written: differs in ";
  s += std::to_string(c.differing) + " of " + std::to_string(c.compared) + " elements";
  if (!c.first.empty()) {
    const auto& m = c.first.front();
    const std::size_t sz = dtype_size(c.dtype);
    s += "; first at [" + std::to_string(m.index) + "]: K0 " + number_text(m.k0.value) + " (" + hex_bits(m.k0.bits, sz) +
         "), K1 " + number_text(m.k1.value) + " (" + hex_bits(m.k1.bits, sz) + ")";
  }
  return s;
}

[[nodiscard]] inline OJson finding_json(const std::string& kernel, const analysis::Finding& f) {
  OJson j;
  j["kernel"] = kernel;
  j["rule"] = f.rule;
  j["at"] = id_text(f.at);
  if (f.other) j["other"] = id_text(*f.other);
  j["message"] = f.message;
  return j;
}

[[nodiscard]] inline OJson init_json(const ArgSpec& a, std::uint32_t trial) {
  const Init& in = a.buffer.init;
  switch (in.kind) {
    case Init::zeros: return {{"init", "zeros"}};
    case Init::random: {
      OJson j{{"init", "random"}, {"seed", in.seed + trial}, {"min", in.min}, {"max", in.max}};
      if (in.specials > 0) j["specials"] = in.specials;
      if (!in.constants.empty()) {
        OJson c = OJson::array();
        for (const std::uint64_t b : in.constants)
          if (std::find(c.begin(), c.end(), OJson(codeobject::detail::hex64(b))) == c.end())
            c.push_back(codeobject::detail::hex64(b));
        j["constants"] = std::move(c);
      }
      if (in.ties > 0) j["ties"] = in.ties;
      return j;
    }
    case Init::log_random:
      return {{"init", "log_random"}, {"seed", in.seed + trial}, {"min", in.min}, {"max", in.max},
              {"signed", in.signed_values}};
    case Init::iota: return {{"init", "iota"}, {"start", in.start}, {"step", in.step}};
    case Init::fill: return {{"init", "fill"}, {"value", number_json(in.value)}};
    case Init::file: return {{"init", "file"}, {"path", in.path}};
  }
  return nullptr;
}

}  // namespace detail

}  // namespace asmevo::verify
