// Differential verification (DESIGN.md "Verification policy"): K1 is accepted only when it keeps K0's ABI, adds no
// static finding, keeps K0's memory-model bits, and behaves like K0 on every shape and trial of the launch file under
// several schedules, with the same kernarg bytes and inputs; the answer comes with a JSON receipt saying why.
//
// The cheap rejections run first and a K1 that fails one is never run further: (a) ABI (codeobject::check_abi),
// (b) static checks (verify/static_checks.hpp; K0's own findings are reported but tolerated when K1 has them too),
// (c) memory model (verify/memory_model.hpp), (d) runs on an Executor.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "asmevo/codeobject/abi.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/support/diag.hpp"
#include "asmevo/verify/emu/fp.hpp"
#include "asmevo/verify/executor.hpp"
#include "asmevo/verify/launch_spec.hpp"
#include "asmevo/verify/memory_model.hpp"
#include "asmevo/verify/static_checks.hpp"

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

struct VerifyOptions {
  std::uint32_t schedules = 2;          ///< K1 runs per trial, each under its own schedule seed
  bool static_checks = true;            ///< run verify::static_check on both (b)
  std::optional<std::uint32_t> trials;  ///< overrides every spec's "trials"
  std::uint64_t seed = 1;               ///< first schedule seed; each run takes the next one
};

struct Receipt {
  Verdict verdict = Verdict::equivalent;
  std::string rejected_by;  ///< "", "abi", "static", "memory_model", "run"
  std::string reason;       ///< one line in the user's terms
  nlohmann::ordered_json json;
};

// ---------------------------------------------------------------------------------------------------------------
// Element comparison
// ---------------------------------------------------------------------------------------------------------------

/// One element of a buffer: its bit pattern (zero-extended) and its value as a double (integers exactly up to 2^53).
struct Element {
  std::uint64_t bits = 0;
  double value = 0;
};

/// Element `i` of little-endian `bytes` holding `t`s. Precondition: (i + 1) * dtype_size(t) <= bytes.size().
[[nodiscard]] inline Element element_at(std::span<const std::byte> bytes, DType t, std::size_t i) {
  const std::size_t n = dtype_size(t);
  Element e;
  for (std::size_t k = 0; k < n; ++k) e.bits |= static_cast<std::uint64_t>(bytes[i * n + k]) << (8 * k);
  switch (t) {
    case DType::f64: e.value = std::bit_cast<double>(e.bits); break;
    case DType::f32: e.value = std::bit_cast<float>(static_cast<std::uint32_t>(e.bits)); break;
    case DType::f16: e.value = emu::fp::f16_to_f32(static_cast<std::uint16_t>(e.bits)); break;
    case DType::bf16: e.value = emu::fp::bf16_to_f32(static_cast<std::uint16_t>(e.bits)); break;
    case DType::fp8e4m3fnuz: case DType::fp8e5m2fnuz: case DType::fp8e4m3: case DType::fp8e5m2:
      e.value = emu::fp::fp8_to_f32(static_cast<std::uint8_t>(e.bits), detail::fp8_kind(t));
      break;
    case DType::i64: e.value = static_cast<double>(static_cast<std::int64_t>(e.bits)); break;
    case DType::i32: e.value = static_cast<std::int32_t>(e.bits); break;
    case DType::i16: e.value = static_cast<std::int16_t>(e.bits); break;
    case DType::i8: e.value = static_cast<std::int8_t>(e.bits); break;
    default: e.value = static_cast<double>(e.bits); break;  // unsigned
  }
  return e;
}

/// The comparison policy for one element (DESIGN.md "Verification policy"): integers compare their bit patterns;
/// floats compare bit patterns too (so -0 and +0 differ, and so do NaNs of another sign or payload: the buffer may
/// hold bit-cast data) unless `tol` is given, then |k1 - k0| <= abs + rel * |k0| (an infinity only matches the same
/// infinity) and a NaN matches any NaN and nothing else.
[[nodiscard]] inline bool elements_match(DType t, const Element& k0, const Element& k1,
                                         const std::optional<Tolerance>& tol) {
  if (!dtype_is_float(t) || !tol) return k0.bits == k1.bits;
  const bool n0 = std::isnan(k0.value), n1 = std::isnan(k1.value);
  if (n0 || n1) return n0 && n1;
  if (std::isinf(k0.value) || std::isinf(k1.value)) return k0.value == k1.value;
  return std::fabs(k1.value - k0.value) <= tol->abs + tol->rel * std::fabs(k0.value);
}

/// One differing element.
struct Mismatch {
  std::size_t index = 0;
  Element k0, k1;
};

/// How one buffer argument of K1 compared with K0's.
struct BufferComparison {
  std::size_t arg = 0;
  DType dtype = DType::u8;
  bool output = false;                 ///< listed in "outputs" (compared by policy), else compared exactly
  std::optional<Tolerance> tolerance;  ///< the tolerance applied (outputs of a float dtype the spec declares)
  std::size_t compared = 0;            ///< elements
  std::size_t differing = 0;
  std::vector<Mismatch> first;         ///< the first few differing elements, in index order
  std::optional<std::int64_t> k0_guard_hit, k1_guard_hit;
  [[nodiscard]] bool ok() const noexcept { return differing == 0 && !k1_guard_hit; }
};

/// How many differing elements a comparison keeps.
inline constexpr std::size_t kept_mismatches = 8;

/// Compares two buffers of `t` element by element (`tol`: see elements_match). The sizes must be equal.
[[nodiscard]] inline BufferComparison compare_buffer(DType t, std::span<const std::byte> k0,
                                                     std::span<const std::byte> k1,
                                                     const std::optional<Tolerance>& tol) {
  BufferComparison c;
  c.dtype = t;
  c.tolerance = tol;
  const std::size_t n = std::min(k0.size(), k1.size()) / dtype_size(t);
  c.compared = n;
  const bool bytewise = !tol && !dtype_is_float(t);
  for (std::size_t i = 0; i < n; ++i) {
    if (bytewise) {
      const std::size_t s = dtype_size(t);
      if (std::memcmp(k0.data() + i * s, k1.data() + i * s, s) == 0) continue;
    }
    const Element a = element_at(k0, t, i), b = element_at(k1, t, i);
    if (elements_match(t, a, b, tol)) continue;
    ++c.differing;
    if (c.first.size() < kept_mismatches) c.first.push_back({i, a, b});
  }
  return c;
}

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

[[nodiscard]] inline std::string id_text(InstId id) { return "i" + std::to_string(id.value); }

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

/// A finding's identity across an edit: its rule and the text of both instructions without ids.
[[nodiscard]] inline std::string finding_key(const analysis::Finding& f, const Program& p) {
  auto text = [&](std::optional<InstId> id) -> std::string {
    if (!id) return "-";
    const Inst* in = p.find(*id);
    return in ? print_inst(*in) : "?" + id_text(*id);
  };
  return f.rule + "\x1f" + text(f.at) + "\x1f" + text(f.other);
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
    case Init::random: return {{"init", "random"}, {"seed", in.seed + trial}, {"min", in.min}, {"max", in.max}};
    case Init::iota: return {{"init", "iota"}, {"start", in.start}, {"step", in.step}};
    case Init::fill: return {{"init", "fill"}, {"value", number_json(in.value)}};
    case Init::file: return {{"init", "file"}, {"path", in.path}};
  }
  return nullptr;
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------------------------
// The verifier
// ---------------------------------------------------------------------------------------------------------------

/// Verifies `k1` against `k0` on every shape of `shapes` with `exec` (see the file comment for the order).
/// Errors (the Expected's Diag) are bad input that concerns K0 or the launch (an unknown kernel, arguments that do
/// not match K0's metadata, K0's static checks that cannot run) and internal errors (the executor gave K0 and K1
/// different kernarg bytes, or different buffer sets): nothing about K1's behaviour is an error, it is a verdict.
template <Executor E>
[[nodiscard]] Expected<Receipt> differential_verify(const CodeObject& k0, const CodeObject& k1,
                                                    std::span<const LaunchSpec> shapes, E& exec,
                                                    const VerifyOptions& opt = {}) {
  using detail::OJson;
  Receipt r;
  OJson& j = r.json;
  j["verdict"] = "";
  j["rejected_by"] = "";
  j["reason"] = "";
  j["executor"] = std::string(std::string_view(exec.name()));
  j["k0"] = k0.path;
  j["k1"] = k1.path;
  {
    OJson names = OJson::array();
    for (const auto& s : shapes)
      if (std::find(names.begin(), names.end(), OJson(s.kernel)) == names.end()) names.push_back(s.kernel);
    if (names.size() == 1) j["kernel"] = names[0];
    else j["kernel"] = std::move(names);
  }
  j["options"] = {{"schedules", opt.schedules}, {"static_checks", opt.static_checks}, {"seed", opt.seed}};
  if (opt.trials) j["options"]["trials"] = *opt.trials;

  // Records the verdict; the caller returns `r` (moved) once nothing more goes into the receipt.
  auto finish = [&](Verdict v, std::string by, std::string reason) -> Receipt&& {
    r.verdict = v;
    r.rejected_by = std::move(by);
    r.reason = std::move(reason);
    j["verdict"] = std::string(to_string(r.verdict));
    j["rejected_by"] = r.rejected_by;
    j["reason"] = r.reason;
    return std::move(r);
  };

  if (shapes.empty()) return fail(DiagCode::usage, "the launch file holds no launch spec");
  if (opt.schedules == 0) return fail(DiagCode::usage, "schedules must be at least 1");
  if (opt.trials && *opt.trials == 0) return fail(DiagCode::usage, "trials must be at least 1");

  // (a) ABI: any difference the host or runtime could see.
  {
    const Diags abi = codeobject::check_abi(k0.elf, k1.elf);
    OJson list = OJson::array();
    for (const auto& d : abi) list.push_back(d.message);
    j["abi"] = list;
    if (!abi.empty())
      return finish(Verdict::not_equivalent, "abi",
                    "K1 changes the ABI: " + abi.front().message +
                        (abi.size() > 1 ? " (and " + std::to_string(abi.size() - 1) + " more)" : ""));
  }

  // (b) Static checks: K0's findings are known and reported; K1 may keep them (matched by rule and instruction
  // text, as a multiset, since an edit renumbers nothing but moves and adds instructions), but adds none.
  if (opt.static_checks) {
    auto f0 = static_check(k0.module);
    if (!f0) {
      Diag d = std::move(f0).error();
      d.message = "static checks of K0 (" + k0.path + "): " + d.message;
      return unexpected(std::move(d));
    }
    OJson s;
    OJson k0_list = OJson::array(), k1_new = OJson::array();
    std::map<std::string, std::size_t> known;
    for (const auto& kf : *f0)
      for (const auto& f : kf.findings) {
        ++known[kf.kernel + "\x1e" + detail::finding_key(f, k0.module.program)];
        k0_list.push_back(detail::finding_json(kf.kernel, f));
      }
    auto f1 = static_check(k1.module);
    if (!f1) {
      s["k0"] = std::move(k0_list);
      s["k1_error"] = f1.error().message;
      j["static"] = std::move(s);
      return finish(Verdict::not_equivalent, "static", "K1 cannot be checked statically: " + f1.error().message);
    }
    std::string first;
    for (const auto& kf : *f1)
      for (const auto& f : kf.findings) {
        auto it = known.find(kf.kernel + "\x1e" + detail::finding_key(f, k1.module.program));
        if (it != known.end() && it->second > 0) {
          --it->second;
          continue;
        }
        if (first.empty()) first = kf.kernel + ": " + f.rule + " at " + detail::id_text(f.at) + ": " + f.message;
        k1_new.push_back(detail::finding_json(kf.kernel, f));
      }
    s["k0"] = std::move(k0_list);
    s["k1_new"] = k1_new;
    j["static"] = std::move(s);
    if (!k1_new.empty())
      return finish(Verdict::not_equivalent, "static",
                    "K1 has " + std::to_string(k1_new.size()) + " static finding(s) K0 does not have; the first: " + first);
  }

  // (c) Memory model: the scope bits of every memory access.
  {
    const auto diffs = compare_memory_model(k0.module.program, k1.module.program);
    OJson list = OJson::array();
    for (const auto& d : diffs) {
      OJson e;
      e["access"] = describe(d.access, k1.module.target);
      e["k0_count"] = d.k0_count;
      e["k1_count"] = d.k1_count;
      if (d.example) e["example"] = detail::id_text(*d.example) + " " + d.example_text;
      list.push_back(std::move(e));
    }
    j["memory_model"] = list;
    if (!diffs.empty()) {
      // Name what K1 added (a new scope bit) before what it lost.
      const MemoryModelDifference* pick = &diffs.front();
      for (const auto& d : diffs)
        if (d.k1_count > d.k0_count) { pick = &d; break; }
      const auto& d = *pick;
      return finish(Verdict::not_equivalent, "memory_model",
                    "K1's memory accesses differ from K0's in kind, width or cache scope bits (which a single run "
                    "cannot check): " + describe(d.access, k1.module.target) + " occurs " + std::to_string(d.k1_count) +
                        " time(s) in K1 and " + std::to_string(d.k0_count) + " in K0" +
                        (d.example ? " (" + std::string(d.k1_count > d.k0_count ? "K1 " : "K0 ") +
                                         detail::id_text(*d.example) + ": " + d.example_text + ")"
                                   : std::string()) +
                        (diffs.size() > 1 ? "; " + std::to_string(diffs.size() - 1) + " more difference(s)" : ""));
    }
  }

  // (d) Runs.
  std::uint64_t next_seed = opt.seed;
  OJson shapes_json = OJson::array();
  bool verdict = false;  // a run decided (the receipt's verdict fields are set)
  for (std::size_t si = 0; si < shapes.size() && !verdict; ++si) {
    const LaunchSpec& spec = shapes[si];
    OJson sj;
    sj["shape"] = si;
    sj["kernel"] = spec.kernel;
    sj["grid"] = spec.grid;
    if (spec.block) sj["block"] = *spec.block;
    else sj["block"] = "from the kernel's metadata";
    OJson trials_json = OJson::array();
    const std::uint32_t trials = opt.trials ? *opt.trials : spec.trials;
    const std::string where_shape = shapes.size() > 1 ? "shape " + std::to_string(si) + ", " : std::string();
    for (std::uint32_t t = 0; t < trials && !verdict; ++t) {
      OJson tj;
      tj["trial"] = t;
      OJson inputs = OJson::array();
      for (std::size_t a = 0; a < spec.args.size(); ++a)
        if (spec.args[a].kind == ArgSpec::Kind::buffer) {
          OJson in;
          in["arg"] = a;
          in.update(detail::init_json(spec.args[a], t));
          inputs.push_back(std::move(in));
        }
      tj["inputs"] = std::move(inputs);
      const std::string where = where_shape + "trial " + std::to_string(t);

      RunRequest rq0{t, next_seed++};
      auto o0 = exec.run(k0, spec, rq0);
      if (!o0) {
        Diag d = std::move(o0).error();
        d.message = "running K0 (" + where + "): " + d.message;
        return unexpected(std::move(d));
      }
      tj["k0"] = {{"schedule_seed", rq0.schedule_seed}, {"stop", detail::stop_json(*o0)}};
      if (!o0->ok()) {
        trials_json.push_back(std::move(tj));
        sj["trials"] = std::move(trials_json);
        shapes_json.push_back(std::move(sj));
        j["shapes"] = std::move(shapes_json);
        return finish(Verdict::k0_failed, "run", "K0 itself does not run cleanly (" + where + ", schedule seed " +
                                                     std::to_string(rq0.schedule_seed) + "): " + detail::stop_text(*o0));
      }
      for (const auto& b : o0->buffers)
        if (b.guard_hit) {
          trials_json.push_back(std::move(tj));
          sj["trials"] = std::move(trials_json);
          shapes_json.push_back(std::move(sj));
          j["shapes"] = std::move(shapes_json);
          return finish(Verdict::k0_failed, "run", "K0 itself writes into the guard bytes of arg" + std::to_string(b.arg) +
                                                       " (" + where + ", offset " + std::to_string(*b.guard_hit) + ")");
        }
      OJson k1_runs = OJson::array();
      for (std::uint32_t s = 0; s < opt.schedules && !verdict; ++s) {
        RunRequest rq1{t, next_seed++};
        OJson kj;
        kj["schedule_seed"] = rq1.schedule_seed;
        auto o1 = exec.run(k1, spec, rq1);
        if (!o1) {
          // K0 ran with this spec, so the launch is fine: whatever K1 makes of it is K1's failure.
          kj["stop"] = nullptr;
          kj["error"] = o1.error().message;
          k1_runs.push_back(std::move(kj));
          (void)finish(Verdict::not_equivalent, "run", "K1 cannot be launched (" + where + "): " + o1.error().message);
          verdict = true;
          break;
        }
        // A K1 that stopped is not equivalent, whatever the executor could still hand back (a device clears the
        // buffers of a failed run), so this comes before the consistency checks below.
        kj["stop"] = detail::stop_json(*o1);
        if (!o1->ok()) {
          k1_runs.push_back(std::move(kj));
          (void)finish(Verdict::not_equivalent, "run", "K1 stopped (" + where + ", schedule seed " +
                                                           std::to_string(rq1.schedule_seed) + "): " + detail::stop_text(*o1));
          verdict = true;
          break;
        }
        if (o1->kernarg != o0->kernarg)
          return fail(DiagCode::internal, "the executor gave K0 and K1 different kernarg bytes (" + where +
                                              "): verification needs identical launches");
        if (o1->buffers.size() != o0->buffers.size())
          return fail(DiagCode::internal, "the executor returned " + std::to_string(o0->buffers.size()) +
                                              " buffers for K0 and " + std::to_string(o1->buffers.size()) + " for K1");
        OJson bufs = OJson::array();
        const BufferComparison* first_bad = nullptr;
        std::vector<BufferComparison> cmps;
        cmps.reserve(o0->buffers.size());
        for (std::size_t b = 0; b < o0->buffers.size(); ++b) {
          const OutBuffer& b0 = o0->buffers[b];
          const OutBuffer& b1 = o1->buffers[b];
          if (b0.arg != b1.arg || b0.bytes.size() != b1.bytes.size() || b0.arg >= spec.args.size() ||
              spec.args[b0.arg].kind != ArgSpec::Kind::buffer)
            return fail(DiagCode::internal, "the executor returned mismatched buffers for K0 and K1 (arg" +
                                                std::to_string(b0.arg) + ")");
          const DType dt = spec.args[b0.arg].buffer.dtype;
          const bool is_out = std::find(spec.outputs.begin(), spec.outputs.end(), b0.arg) != spec.outputs.end();
          // Outputs by the policy; every other buffer exactly (an edit may not write where K0 did not).
          const std::optional<Tolerance> tol = is_out && dtype_is_float(dt) ? spec.tolerance_for(dt) : std::nullopt;
          BufferComparison c = compare_buffer(dt, b0.bytes, b1.bytes, tol);
          c.arg = b0.arg;
          c.output = is_out;
          c.k0_guard_hit = b0.guard_hit;
          c.k1_guard_hit = b1.guard_hit;
          bufs.push_back(detail::comparison_json(c));
          cmps.push_back(std::move(c));
        }
        for (const auto& c : cmps)
          if (!c.ok() && (!first_bad || (c.output && !first_bad->output))) first_bad = &c;  // outputs first
        kj["buffers"] = std::move(bufs);
        k1_runs.push_back(std::move(kj));
        if (first_bad) {
          std::size_t n_bad = 0;
          for (const auto& c : cmps) n_bad += c.ok() ? 0 : 1;
          (void)finish(Verdict::not_equivalent, "run",
                       where + ", schedule seed " + std::to_string(rq1.schedule_seed) + ": " +
                           detail::comparison_text(*first_bad) +
                           (n_bad > 1 ? " (" + std::to_string(n_bad - 1) + " more buffer(s) differ)" : ""));
          verdict = true;
        }
      }
      tj["k1"] = std::move(k1_runs);
      trials_json.push_back(std::move(tj));
    }
    sj["trials"] = std::move(trials_json);
    shapes_json.push_back(std::move(sj));
  }
  j["shapes"] = std::move(shapes_json);
  if (verdict) return std::move(r);
  std::size_t runs = 0;
  for (const auto& s : shapes) runs += opt.trials ? *opt.trials : s.trials;
  return finish(Verdict::equivalent, "",
                "K1 matches K0 on " + std::to_string(shapes.size()) + " shape(s), " + std::to_string(runs) +
                    " input draw(s), " + std::to_string(opt.schedules) + " K1 schedule(s) each");
}

}  // namespace asmevo::verify
