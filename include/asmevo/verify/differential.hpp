// Differential verification (DESIGN.md "Verification policy"): K1 is accepted only when it keeps K0's ABI, adds no
// static finding, keeps K0's memory-model bits, changes no kernel the launch file does not run, and behaves like K0
// on every shape and trial of the launch file under several schedules, with the same kernarg bytes and inputs; the
// answer comes with a JSON receipt saying why.
//
// The cheap rejections run first and a K1 that fails one is never run further: (a) ABI (codeobject::check_abi),
// (a'') launch versioning (verify/versioning.hpp: a K1 whose entry starts with a guard comparing kernarg dwords with
// constants, workgroup ids with bounds or EXEC with all ones must show statically, by a block-for-block walk, that the guard's mismatch edges reach K0's code
// unchanged; every later check that aligns K1's code with K0's then sees K1 without that fallback: the guard plus
// the specialized copy, while the runs execute the real K1), (b) static checks (verify/static_checks.hpp; K0's own findings are reported, and tolerated in K1 only at the same
// place: K1's instructions are aligned with K0's kernel by kernel and a finding is inherited when its instructions
// map onto a K0 finding of the same rule; this includes reads of undefined registers and hardware-decided values
// reaching memory or control), (b') approximate semantics (on the emulator, a K1 that adds or changes an
// instruction the emulator only approximates is unverified, approximate_changes), the float environment (a K1 that
// changes a descriptor's float mode or exception bits, or adds, changes or drops an s_setreg, is unverified:
// float_mode_changes), (b'') refutation (a single edited
// window for which the equivalence prover finds register values that make a later-read register differ:
// analysis::EquivalenceProver::refute), (c) memory model (verify/memory_model.hpp), (d) coverage (a kernel no
// launch runs must keep K0's code), (e) runs on an Executor, where the emulator also records, at the first
// instruction after each edited region (state_points), the registers both kernels may still read there, and K1 must
// hold K0's values in the lanes EXEC enables (the state check: an edit whose difference the outputs hide -- rounding to
// f16, a masked store, an input no draw hit -- still differs there), (f) coverage again: every instruction K1 changed in a
// launched kernel must have run (in K0 what it deleted or replaced, in K1 what it added), where the executor reports
// what ran; before it, (e') for a versioned K1: the specialized copy must have run, and K0 and K1 run once more on
// perturbed launches (the versioned kernel's first shape with one scalar argument or grid dimension the guard does not check changed, or with a
// partial wave when it does not check for full ones), where they must agree. From the second trial on (in the only trial when a shape has one), every output whose declared init is
// "zeros" or a fill starts as a per-trial canary (the same random bytes for K0 and K1), so a K1 that skips a store
// whose value K0 writes equal to the declared init still differs.
//
// Schedules: K0 runs once per trial under a random schedule; K1 runs `schedules` times, each under its own seed, and
// with two or more the last is the adversarial hold-one-wave schedule (emu/machine.hpp run_workgroup: per barrier
// phase one wave held back until the others reach their next s_barrier), which exposes races with windows far longer
// than random interleavings reach -- a load moved below the barrier that protected its bytes, overwritten by another
// wave 160 instructions later. Each K1 run's receipt entry names its schedule ("schedule": "random" or
// "hold-one-wave", the waves held in workgroup (0,0,0), or "hardware" where the executor cannot choose one). Where K1
// fails under the hold-one-wave schedule, K0 runs under the same one first: if K0 itself stops there or computes
// something else, its results depend on the schedule and that run is passed over ("passed_over" says why).
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/equivalence.hpp"
#include "asmevo/analysis/liveness.hpp"
#include "asmevo/analysis/resources.hpp"
#include "asmevo/codeobject/abi.hpp"
#include "asmevo/emu/fp.hpp"
#include "asmevo/emu/semantics.hpp"
#include "asmevo/emu/watch.hpp"
#include "asmevo/ir/op.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/launch/kernargs.hpp"
#include "asmevo/launch/launch_spec.hpp"
#include "asmevo/support/diag.hpp"
#include "asmevo/support/linkage.hpp"
#include "asmevo/support/text_diff.hpp"
#include "asmevo/verify/executor.hpp"
#include "asmevo/verify/launch_facts.hpp"
#include "asmevo/verify/memory_model.hpp"
#include "asmevo/verify/static_checks.hpp"
#include "asmevo/verify/versioning.hpp"

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
  /// K1 runs per trial, each under its own schedule seed. With 2 or more, the last one is the adversarial schedule
  /// (ScheduleKind::hold_one_wave: per barrier phase one wave held back until the others reach the next s_barrier,
  /// which random interleavings almost never do); with 1, K1's one run keeps the random schedule K0 runs under.
  std::uint32_t schedules = 2;
  bool static_checks = true;            ///< run verify::static_check on both (b)
  std::optional<std::uint32_t> trials;  ///< overrides every spec's "trials"
  std::uint64_t seed = 1;               ///< first schedule seed; each run takes the next one
  /// Compare the registers K0 and K1 hold after each edited region (state_points), where the executor can observe
  /// them (the emulator). Off when any shape declares a tolerance: such an edit may reassociate.
  bool state_check = true;
  /// Look for a counterexample to the edited window's equivalence before running (analysis::EquivalenceProver::refute).
  bool refute = true;
  /// After each shape's own trials, run its probe trials (probes_of): specials, ties, wide magnitudes and the code's
  /// own constants drawn into the data inputs, each with one K1 schedule.
  bool probes = true;
  /// Accept only a K1 the equivalence prover shows equivalent on every shape (analysis::EquivalenceProver::prove),
  /// after everything else passed; otherwise rejected_by "unproven". For a gate that must not rest on sampled inputs.
  bool require_proof = false;
};

struct Receipt {
  Verdict verdict = Verdict::equivalent;
  std::string rejected_by;  ///< "", "abi", "versioning", "static", "approximate", "float_mode", "refuted", "memory_model",
                            ///< "coverage", "run", "state", "unproven"
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

/// The group segment the metadata of `m` declares for the kernel `spec` launches (0 when it cannot be read).
[[nodiscard]] inline std::uint64_t fixed_lds_of(const codeobject::MetaJson& m, const LaunchSpec& spec) {
  auto ks = codeobject::kernels(m);
  if (!ks) return 0;
  auto k = select_kernel(*ks, spec);
  return k ? (*k)->group_segment_fixed_size : 0;
}

/// Why K1's run reached LDS that the launch may not give it, or nothing. Without "dynamic_lds" a launch spec does
/// not say how much dynamic LDS the launcher passes, and the executors then give a kernel that can use it (or that
/// declares no fixed LDS) the rest of the 64 KiB (kernargs.hpp lds_allocation); a launcher sized for K0 may pass only
/// the dynamic LDS K0's run used past its fixed segment, max(0, extent0 - fixed0). K1 then gets its own fixed segment
/// plus that, and may touch no byte beyond: a K1 that declares less fixed LDS than K0 and uses it anyway is caught,
/// and one that declares more and uses it is not. (With "dynamic_lds" the allocation is exact and the emulator
/// faults past it.)
[[nodiscard]] inline std::optional<std::string> lds_overreach(const codeobject::MetaJson& m0,
                                                              const codeobject::MetaJson& m1, const LaunchSpec& spec,
                                                              const RunOutcome& o0, const RunOutcome& o1) {
  if (spec.dynamic_lds || !o0.lds_extent || !o1.lds_extent) return std::nullopt;
  const std::uint64_t fixed0 = fixed_lds_of(m0, spec), fixed1 = fixed_lds_of(m1, spec);
  const std::uint64_t bound = fixed1 + (*o0.lds_extent > fixed0 ? *o0.lds_extent - fixed0 : 0);
  if (*o1.lds_extent <= bound) return std::nullopt;
  return "K1 touches LDS up to byte " + std::to_string(*o1.lds_extent) + ", past its fixed group segment (" +
         std::to_string(fixed1) + ") plus the dynamic LDS K0's run used (" + std::to_string(bound - fixed1) +
         "), and the launch declares no \"dynamic_lds\": a launcher passing what K0 needs gives K1 too little LDS " +
         "(declare the allocation with \"dynamic_lds\" to verify it)";
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------------------------
// Aligning K1's code with K0's
// ---------------------------------------------------------------------------------------------------------------

/// The alignment of two token sequences (support/text_diff.hpp), as the verifier aligns K0's and K1's code.
using ::asmevo::align_sequences;

namespace detail {

/// The items of kernel `name`'s code, in program order: every instruction reachable from its entry label in the
/// CFG, and every instruction between the label and its `.size` (analysis::kernel_items) even if unreachable.
/// Code reached only through a call (s_swappc_b64) is not in it: see other_code.
[[nodiscard]] inline std::vector<std::size_t> kernel_code(const Program& p, const analysis::Cfg& g, std::string_view name) {
  std::vector<std::size_t> idx;
  if (const auto e = g.block_named(name))
    for (const std::uint32_t b : g.reverse_post_order(*e))
      for (const std::size_t i : g.blocks[b].insts) idx.push_back(i);
  const auto own = analysis::kernel_items(p, name);
  if (!own.empty()) {
    const auto base = static_cast<std::size_t>(own.data() - p.items.data());
    for (std::size_t k = 0; k < own.size(); ++k)
      if (own[k].kind == Item::Kind::inst) idx.push_back(base + k);
  }
  std::sort(idx.begin(), idx.end());
  idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
  return idx;
}

/// The instructions of `m` that belong to no kernel (detail::kernel_code): what a call or an indirect jump may reach.
[[nodiscard]] inline std::vector<std::size_t> other_code(const codeobject::Module& m, const analysis::Cfg& g) {
  std::vector<bool> owned(m.program.items.size(), false);
  for (const auto& k : m.kernels)
    for (const std::size_t i : kernel_code(m.program, g, k.name)) owned[i] = true;
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < m.program.items.size(); ++i)
    if (m.program.items[i].kind == Item::Kind::inst && !owned[i]) idx.push_back(i);
  return idx;
}

/// Whether `in` is a branch with a symbolic target (a label operand): s_branch, s_cbranch_*, s_call_b64. A branch
/// without one (s_setpc_b64: LLVM marks it isBranch but not isIndirectBranch) jumps through a register.
[[nodiscard]] inline bool direct_branch(const Inst& in) {
  const auto& f = isa::forms(in.target)[in.form];
  if (!f.has(isa::prop::branch) || f.has(isa::prop::indirect_branch)) return false;
  const auto ops = isa::operands(f);
  for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k)
    if (ops[k].kind == isa::Kind::label && in.ops[k].kind == Operand::Kind::expr) return true;
  return false;
}

/// Whether any of the instructions `idx` of `p` calls (s_swappc_b64, s_call_b64) or jumps through a register
/// (a branch without a label operand, as analysis::build_cfg decides): code outside the kernel may then run.
[[nodiscard]] inline bool leaves_kernel(const Program& p, std::span<const std::size_t> idx) {
  for (const std::size_t i : idx) {
    const Inst& in = p.items[i].inst;
    const auto& f = isa::forms(in.target)[in.form];
    if (f.has(isa::prop::call) || (f.has(isa::prop::branch) && !direct_branch(in))) return true;
  }
  return false;
}

/// `in` printed without its id, each branch-target operand (a form operand of kind label) replaced by
/// `target(label text)`.
template <class F>
[[nodiscard]] std::string inst_text(const Inst& in, F&& target) {
  const auto ops = isa::operands(isa::forms(in.target)[in.form]);
  std::optional<Inst> copy;
  for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k)
    if (ops[k].kind == isa::Kind::label && in.ops[k].kind == Operand::Kind::expr) {
      if (!copy) copy = in;
      copy->ops[k].text = target(in.ops[k].text);
    }
  return print_inst(copy ? *copy : in);
}

/// For every label of `p`: the item index of the first instruction after it (p.items.size() when none).
[[nodiscard]] inline std::unordered_map<std::string, std::size_t> label_targets(const Program& p) {
  std::unordered_map<std::string, std::size_t> out;
  std::vector<std::string_view> pending;
  for (std::size_t i = 0; i < p.items.size(); ++i) {
    const Item& it = p.items[i];
    if (it.kind == Item::Kind::label) pending.push_back(it.name);
    if (it.kind != Item::Kind::inst) continue;
    for (auto l : pending) out.emplace(std::string(l), i);
    pending.clear();
  }
  for (auto l : pending) out.emplace(std::string(l), p.items.size());
  return out;
}

/// The code `idx` (sorted item indexes) as text that does not depend on label names: each branch target is written
/// as `@N`, N its target's position in `idx`, or `@outside:NAME` when the target is not in it. Two such texts are
/// equal exactly when the instructions and the branch structure are.
[[nodiscard]] inline std::vector<std::string> code_text(const Program& p, std::span<const std::size_t> idx,
                                                       const std::unordered_map<std::string, std::size_t>& targets) {
  std::vector<std::string> out;
  out.reserve(idx.size());
  for (const std::size_t i : idx)
    out.push_back(inst_text(p.items[i].inst, [&](const std::string& label) {
      const auto t = targets.find(label);
      if (t != targets.end()) {
        const auto pos = std::lower_bound(idx.begin(), idx.end(), t->second);
        if (pos != idx.end() && *pos == t->second) return "@" + std::to_string(pos - idx.begin());
      }
      return "@outside:" + label;
    }));
  return out;
}

/// The instructions `idx` of `p` as tokens for align_sequences: equal tokens for equal instruction texts with every
/// branch target left out (so renamed labels still match), numbered through `tokens`, which both sides share.
[[nodiscard]] inline std::vector<std::uint32_t> tokens_of(const Program& p, std::span<const std::size_t> idx,
                                                         std::unordered_map<std::string, std::uint32_t>& tokens) {
  std::vector<std::uint32_t> seq;
  seq.reserve(idx.size());
  for (const std::size_t i : idx) {
    const std::string t = inst_text(p.items[i].inst, [](const std::string&) { return std::string("<label>"); });
    seq.push_back(tokens.emplace(t, static_cast<std::uint32_t>(tokens.size())).first->second);
  }
  return seq;
}

/// K1's program with K0's instruction ids where the two align (align_sequences over every instruction of each
/// program, branch targets left out), and fresh ids past both programs' for the rest. K1 recovered from its bytes
/// numbers its instructions anew, so after an insertion every later id shifts, and the equivalence prover, which
/// matches the two programs by id, would see a change running to the end of the code.
[[nodiscard]] inline Program with_k0_ids(const Program& p0, const Program& p1) {
  std::vector<std::size_t> c0, c1;
  for (std::size_t i = 0; i < p0.items.size(); ++i)
    if (p0.items[i].kind == Item::Kind::inst) c0.push_back(i);
  for (std::size_t i = 0; i < p1.items.size(); ++i)
    if (p1.items[i].kind == Item::Kind::inst) c1.push_back(i);
  std::unordered_map<std::string, std::uint32_t> tokens;
  const auto t0 = tokens_of(p0, c0, tokens), t1 = tokens_of(p1, c1, tokens);
  Program out = p1;
  std::vector<bool> matched(c1.size(), false);
  for (const auto& [i0, i1] : align_sequences(t0, t1)) {
    out.items[c1[i1]].inst.id = p0.items[c0[i0]].inst.id;
    matched[i1] = true;
  }
  std::uint32_t next = std::max(p0.next_id, p1.next_id);
  for (std::size_t k = 0; k < c1.size(); ++k)
    if (!matched[k]) out.items[c1[k]].inst.id = InstId{next++};
  out.next_id = next;
  return out;
}

/// `in` with every register index set to 0 (file, width and modifiers kept), printed: what an instruction computes
/// apart from which registers it names, so that renaming (vgpr-compact) or moving it keeps the text.
[[nodiscard]] inline std::string shape_text(const Inst& in) {
  Inst copy = in;
  for (auto& o : copy.ops)
    if (o.is_reg()) o.reg.index = 0;
  return inst_text(copy, [](const std::string&) { return std::string("<label>"); });
}

/// A finding about the whole kernel rather than one site: the ABI register-count rules point at the kernel's first
/// instruction only because a finding needs an `at`; their message states the counts, which identify them.
[[nodiscard]] inline bool kernel_wide(const analysis::Finding& f) {
  return f.rule.starts_with("abi:") && f.rule != "abi:scratch";
}

}  // namespace detail

/// The findings of K1 (`f1`, static_check of `m1`) that K0 (`f0`, of `m0`) does not explain, kernel by kernel.
/// K1's code of each kernel is aligned with K0's (align_sequences over the printed instructions, branch targets left
/// out so that renamed labels still match); a K1 finding is inherited when its `at` and its `other` both map onto a
/// K0 finding of the same rule, each K0 finding explaining at most one K1 finding. An identical-looking finding
/// anywhere else (a wait dropped at a second site while the first is fixed) is new. Kernel-wide ABI findings
/// (detail::kernel_wide) are inherited when K0 has one with the same rule and message. Instructions the alignment
/// leaves unmatched (edited ones, or a region past the alignment's budget) inherit nothing: the conservative side.
[[nodiscard]] inline std::vector<KernelFindings> new_static_findings(const codeobject::Module& m0,
                                                                    const std::vector<KernelFindings>& f0,
                                                                    const codeobject::Module& m1,
                                                                    const std::vector<KernelFindings>& f1) {
  std::vector<KernelFindings> out;
  std::optional<analysis::Cfg> g0, g1;
  std::unordered_map<std::string, std::uint32_t> tokens;
  auto token_seq = [&](const Program& p, std::span<const std::size_t> idx) { return detail::tokens_of(p, idx, tokens); };
  for (const auto& kf1 : f1) {
    if (kf1.findings.empty()) continue;
    KernelFindings fresh{kf1.kernel, {}};
    const KernelFindings* kf0 = nullptr;
    for (const auto& k : f0)
      if (k.kernel == kf1.kernel) kf0 = &k;
    if (!kf0 || kf0->findings.empty()) {
      out.push_back(kf1);
      continue;
    }
    if (!g0) g0 = analysis::build_cfg(m0.program);
    if (!g1) g1 = analysis::build_cfg(m1.program);
    const auto code0 = detail::kernel_code(m0.program, *g0, kf1.kernel);
    const auto code1 = detail::kernel_code(m1.program, *g1, kf1.kernel);
    const auto t0 = token_seq(m0.program, code0), t1 = token_seq(m1.program, code1);
    std::unordered_map<std::uint32_t, std::uint32_t> to_k0;  // K1 instruction id -> K0 instruction id
    for (const auto& [i0, i1] : align_sequences(t0, t1))
      to_k0.emplace(m1.program.items[code1[i1]].inst.id.value, m0.program.items[code0[i0]].inst.id.value);
    constexpr std::int64_t no_other = -1;
    std::map<std::tuple<std::string, std::uint32_t, std::int64_t>, std::size_t> sites;
    std::map<std::pair<std::string, std::string>, std::size_t> wide;
    for (const auto& f : kf0->findings) {
      if (detail::kernel_wide(f)) ++wide[{f.rule, f.message}];
      else ++sites[{f.rule, f.at.value, f.other ? std::int64_t{f.other->value} : no_other}];
    }
    for (const auto& f : kf1.findings) {
      std::size_t* left = nullptr;
      if (detail::kernel_wide(f)) {
        if (auto it = wide.find(std::pair(f.rule, f.message)); it != wide.end()) left = &it->second;
      } else if (const auto at = to_k0.find(f.at.value); at != to_k0.end()) {
        std::int64_t other = no_other;
        bool mapped = true;
        if (f.other) {
          const auto o = to_k0.find(f.other->value);
          mapped = o != to_k0.end();
          if (mapped) other = o->second;
        }
        if (mapped)
          if (auto it = sites.find(std::tuple(f.rule, at->second, other)); it != sites.end()) left = &it->second;
      }
      if (left && *left > 0) {
        --*left;
        continue;
      }
      fresh.findings.push_back(f);
    }
    if (!fresh.findings.empty()) out.push_back(std::move(fresh));
  }
  return out;
}

namespace detail {

/// The names under which the specs of `shapes` run kernels of `m` (as select_kernel picks them: by symbol without
/// ".kd" or by .name, so both are listed), or nullopt when a spec names no kernel and `m` holds several (its run then
/// fails with a usage error of its own).
[[nodiscard]] inline std::optional<std::vector<std::string>> launched_names(const codeobject::Module& m,
                                                                           std::span<const LaunchSpec> shapes) {
  std::vector<std::string> run;
  const auto metas = codeobject::kernels(m.metadata);
  for (const auto& s : shapes) {
    if (s.kernel.empty() && m.kernels.size() != 1) return std::nullopt;
    run.push_back(s.kernel.empty() ? m.kernels.front().name : s.kernel);
    if (!metas) continue;
    if (auto k = select_kernel(*metas, s)) {
      std::string_view sym = (*k)->symbol;
      if (sym.ends_with(".kd")) sym.remove_suffix(3);
      run.emplace_back(sym);
      run.push_back((*k)->name);
    }
  }
  return run;
}

}  // namespace detail

/// An instruction the emulator evaluates only approximately (emu::Exactness::approximate) that K1 adds or changes.
struct ApproximateChange {
  std::string kernel;
  InstId at{};          ///< in K1
  std::string text;     ///< K1's instruction as printed
  std::string mnemonic;
  std::string note;     ///< what the emulator does differently (emu::Semantics::note)
};

/// The approximately emulated instructions of K1 (emu::find_semantics) that K0 does not explain, per kernel: their
/// code is compared as a multiset of detail::shape_text, so moving or renaming registers of such an instruction is
/// no change, but a new one (v_exp_f32 -> v_exp_legacy_f32: the emulator evaluates both alike, hardware does not), one
/// more of the same (an unrolled v_exp_f32 reading other values), or other modifiers or constants (v_rcp_f32 with
/// `mul:2`) is. Runs cannot verify such an instruction: where K0 and K1 both run it on the same values they agree
/// whatever it computes, but on new values the emulator's answer is not the hardware's. `tolerant` names the
/// kernels whose every launch declares a tolerance for every output (then a close answer is all that is asked),
/// which are not checked. Every other kernel is, launched or not (one no spec launches may not change at all:
/// unlaunched_changes).
[[nodiscard]] inline std::vector<ApproximateChange> approximate_changes(const codeobject::Module& m0,
                                                                        const codeobject::Module& m1,
                                                                        const std::set<std::string>& tolerant) {
  std::vector<ApproximateChange> out;
  const analysis::Cfg g0 = analysis::build_cfg(m0.program), g1 = analysis::build_cfg(m1.program);
  auto approximate = [](const Inst& in) -> const emu::Semantics* {
    const auto* s = emu::find_semantics(op_of(in));
    return s && s->exactness == emu::Exactness::approximate ? s : nullptr;
  };
  for (const auto& k : m1.kernels) {
    if (tolerant.count(k.name)) continue;
    std::map<std::string, int> k0_count;
    for (const std::size_t i : detail::kernel_code(m0.program, g0, k.name))
      if (approximate(m0.program.items[i].inst)) ++k0_count[detail::shape_text(m0.program.items[i].inst)];
    for (const std::size_t i : detail::kernel_code(m1.program, g1, k.name)) {
      const Inst& in = m1.program.items[i].inst;
      const auto* sem = approximate(in);
      if (!sem) continue;
      if (int& left = k0_count[detail::shape_text(in)]; left > 0) {
        --left;
        continue;
      }
      out.push_back({k.name, in.id, print_inst(in), std::string(op_name(sem->op)), std::string(sem->note)});
    }
  }
  return out;
}

/// The floating-point environment K1 changes: a descriptor field that sets how every float instruction rounds,
/// flushes, clamps or traps (the MODE bits the CP loads from COMPUTE_PGM_RSRC1, and the exception enables of
/// COMPUTE_PGM_RSRC2), TG_SPLIT (whether a workgroup's waves may run on different CUs), or an instruction that
/// writes a hardware register (s_setreg_b32 / s_setreg_imm32_b32: MODE, TRAPSTS, ...) that K1 adds, changes or drops
/// (compared as a multiset of detail::shape_text per kernel, as approximate_changes does). Such a change alters
/// the meaning of instructions the edit never touched, on values no draw may reach (denormal flushing shows only
/// on denormals), and the emulator models only part of it (not FP16_OVFL clamping, not exception traps, not
/// TG_SPLIT); no run verifies it, so the gate refuses it. One line per change, naming the kernel.
[[nodiscard]] ASMEVO_OUTLINE std::vector<std::string> float_mode_changes(const codeobject::Module& m0,
                                                                 const codeobject::Module& m1)
#if ASMEVO_BODY_VERIFY
{
  std::vector<std::string> out;
  auto mode_field = [](const codeobject::FieldInfo& f) {
    const std::string_view n = f.name;
    return f.role == codeobject::FieldRole::value &&
           (n.find("float_round_mode") != std::string_view::npos || n.find("float_denorm_mode") != std::string_view::npos ||
            n.ends_with("enable_dx10_clamp") || n.ends_with("enable_ieee_mode") || n.ends_with("fp16_ovfl") ||
            n.find("enable_exception_") != std::string_view::npos || n.ends_with("tg_split"));
  };
  auto writes_hwreg = [](const Inst& in) {
    const auto& f = isa::forms(in.target)[in.form];
    bool hw = false, def = false;
    for (const auto& o : isa::operands(f)) {
      hw |= o.kind == isa::Kind::hwreg && o.role == isa::Role::use;
      def |= o.role == isa::Role::def && o.kind == isa::Kind::reg;
    }
    return hw && !def;  // s_getreg defines an SGPR; s_setreg only reads its operands
  };
  const analysis::Cfg g0 = analysis::build_cfg(m0.program), g1 = analysis::build_cfg(m1.program);
  for (const auto& k1 : m1.kernels) {
    const auto k0 = std::find_if(m0.kernels.begin(), m0.kernels.end(), [&](const auto& k) { return k.name == k1.name; });
    if (k0 == m0.kernels.end()) continue;  // a kernel K1 added is an ABI change, refused before this
    for (const auto& f : codeobject::detail::field_rows) {
      if (!f.exists_on(m1.target, 5) || !mode_field(f)) continue;
      const auto a = k0->descriptor.get(f), b = k1.descriptor.get(f);
      if (a != b)
        out.push_back("kernel '" + k1.name + "': the descriptor's " + std::string(f.name) + " (" +
                      std::string(f.directive) + ") changes from " + std::to_string(a) + " to " + std::to_string(b));
    }
    std::map<std::string, int> count;
    for (const std::size_t i : detail::kernel_code(m0.program, g0, k1.name))
      if (writes_hwreg(m0.program.items[i].inst)) ++count[detail::shape_text(m0.program.items[i].inst)];
    for (const std::size_t i : detail::kernel_code(m1.program, g1, k1.name)) {
      const Inst& in = m1.program.items[i].inst;
      if (!writes_hwreg(in)) continue;
      if (int& left = count[detail::shape_text(in)]; left > 0) {
        --left;
        continue;
      }
      out.push_back("kernel '" + k1.name + "': K1 adds or changes " + detail::id_text(in.id) + " `" + print_inst(in) +
                    "`, which writes a hardware register");
    }
    for (const auto& [text, left] : count)
      if (left > 0)
        out.push_back("kernel '" + k1.name + "': K1 drops `" + text + "`, which writes a hardware register");
  }
  return out;
}
#else
;
#endif

/// A kernel that no launch runs and whose code K1 changed.
struct UnlaunchedChange {
  std::string kernel;
  std::string what;  ///< how it changed, in the user's terms
};

/// The kernels of K0 that no spec of `shapes` runs (a spec without a kernel runs the object's only kernel) and
/// that K1 changed: their code (detail::kernel_code, compared as detail::code_text, so renamed labels are no
/// change but a moved branch target is), their LDS or scratch size, or, when the kernel calls (s_swappc_b64) or
/// jumps through a register, the code that belongs to no kernel. Empty when a spec names no kernel and the object
/// holds several (the run then fails with a usage error of its own). A kernel K1 lost or renamed is an ABI change,
/// caught before this.
[[nodiscard]] inline std::vector<UnlaunchedChange> unlaunched_changes(const codeobject::Module& m0,
                                                                     const codeobject::Module& m1,
                                                                     std::span<const LaunchSpec> shapes) {
  std::vector<UnlaunchedChange> out;
  const auto run = detail::launched_names(m0, shapes);
  if (!run) return out;
  std::vector<const codeobject::KernelInfo*> idle;
  for (const auto& k : m0.kernels)
    if (std::find(run->begin(), run->end(), k.name) == run->end()) idle.push_back(&k);
  if (idle.empty()) return out;

  const analysis::Cfg g0 = analysis::build_cfg(m0.program), g1 = analysis::build_cfg(m1.program);
  const auto l0 = detail::label_targets(m0.program), l1 = detail::label_targets(m1.program);
  auto first_difference = [&](std::span<const std::size_t> c0, std::span<const std::size_t> c1) -> std::string {
    const auto x0 = detail::code_text(m0.program, c0, l0), x1 = detail::code_text(m1.program, c1, l1);
    std::size_t i = 0;
    while (i < x0.size() && i < x1.size() && x0[i] == x1[i]) ++i;
    if (i == x0.size() && i == x1.size()) return {};
    auto at = [](const Program& p, std::span<const std::size_t> c, const std::vector<std::string>& x, std::size_t i) {
      return i < c.size() ? detail::id_text(p.items[c[i]].inst.id) + " `" + x[i] + "`" : std::string("its end");
    };
    return "instruction " + std::to_string(i) + " is K0 " + at(m0.program, c0, x0, i) + ", K1 " +
           at(m1.program, c1, x1, i);
  };
  bool calls = false;
  for (const auto* k0 : idle) {
    const codeobject::KernelInfo* k1 = nullptr;
    for (const auto& k : m1.kernels)
      if (k.name == k0->name) k1 = &k;
    if (!k1) {
      out.push_back({k0->name, "K1 has no such kernel"});
      continue;
    }
    const auto c0 = detail::kernel_code(m0.program, g0, k0->name), c1 = detail::kernel_code(m1.program, g1, k0->name);
    calls = calls || detail::leaves_kernel(m0.program, c0);
    if (std::string d = first_difference(c0, c1); !d.empty()) {
      out.push_back({k0->name, "its code differs from K0's: " + d});
      continue;
    }
    for (const auto* fld : {&codeobject::field::group_segment_fixed_size, &codeobject::field::private_segment_fixed_size})
      if (k0->descriptor.get(*fld) != k1->descriptor.get(*fld)) {
        out.push_back({k0->name, "its descriptor's " + std::string(fld->name) + " is " +
                                     std::to_string(k1->descriptor.get(*fld)) + " in K1, " +
                                     std::to_string(k0->descriptor.get(*fld)) + " in K0"});
        break;
      }
  }
  if (calls) {
    // Code outside every kernel: what a call may reach. Compared whole, since which of it a call reaches is not known.
    if (std::string d = first_difference(detail::other_code(m0, g0), detail::other_code(m1, g1)); !d.empty())
      for (const auto* k0 : idle) {
        bool listed = false;
        for (const auto& u : out) listed = listed || u.kernel == k0->name;
        if (!listed)
          out.push_back({k0->name, "it may call code outside every kernel, and that code differs from K0's: " + d});
      }
  }
  return out;
}

/// What the runs of one side (K0's or K1's) exercised, as instruction id values: the instructions issued with an
/// effect (a vector one with some lane enabled: RunOutcome::executed), the branches taken, and the conditional
/// branches not taken.
struct Exercised {
  std::set<std::uint32_t> ran, taken, fell_through;
  bool known = true;  ///< false when some run's executor could not tell (a device)

  void add(const RunOutcome& o) {
    if (!o.executed || !o.taken || !o.fell_through) {
      known = false;
      return;
    }
    for (const InstId id : *o.executed) ran.insert(id.value);
    for (const InstId id : *o.taken) taken.insert(id.value);
    for (const InstId id : *o.fell_through) fell_through.insert(id.value);
  }
};

/// The instructions of `p` (InstId values) that `e` does not count as run: the code a pass restricted to the launch
/// leaves alone (passes::PassContext::not_exercised).
[[nodiscard]] inline std::unordered_set<std::uint32_t> not_exercised(const Program& p, const Exercised& e) {
  std::unordered_set<std::uint32_t> out;
  for (const Item& it : p.items)
    if (it.kind == Item::Kind::inst && !e.ran.contains(it.inst.id.value)) out.insert(it.inst.id.value);
  return out;
}

/// The instructions of launched kernels that K1 changed (inserted, deleted, replaced, moved, or a branch whose target
/// moved) and that the runs did not exercise: in K0 for what K1 deleted or replaced (`e0`), in K1 for what it
/// inserted (`e1`). An instruction is exercised when some run issued it with an effect (a vector one with EXEC != 0);
/// a changed branch, when some run also took it and, for a conditional one, some run fell through it -- a moved
/// target that no run jumps to is not verified by the runs. A change not exercised is unverified -- the runs cannot
/// tell it from K0 -- so the gate rejects it (the launch file must exercise it) rather than accept it on the strength
/// of other code. When a launched kernel calls or jumps through a register, the code outside every kernel
/// (detail::other_code) is checked the same way, as one more unit.
/// Each unit's code is aligned as new_static_findings aligns it (detail::tokens_of, branch targets left out of the
/// text); a matched instruction counts as changed when it names a label (a branch target, or a label in an
/// expression: s_add_u32 s0, s0, L@rel32@lo+4) whose first instruction is not matched to that of K0's label of
/// the same operand. At most `max` changes are listed per unit.
/// For a versioned K1 (verify/versioning.hpp): a K0 branch in `decided0` (its direction fixed by the guard) needs only
/// to have run, and the instructions in `skip0` / `skip1` (a preload prologue proven the same, K0 code the guard
/// makes unreachable) are not changes.
[[nodiscard]] inline std::vector<UnlaunchedChange> unexercised_changes(
    const codeobject::Module& m0, const codeobject::Module& m1, std::span<const LaunchSpec> shapes, const Exercised& e0,
    const Exercised& e1, std::size_t max = 3, const std::unordered_set<std::uint32_t>* decided0 = nullptr,
    const std::unordered_set<std::uint32_t>* skip0 = nullptr, const std::unordered_set<std::uint32_t>* skip1 = nullptr) {
  std::vector<UnlaunchedChange> out;
  const auto run = detail::launched_names(m0, shapes);
  if (!run) return out;
  const analysis::Cfg g0 = analysis::build_cfg(m0.program), g1 = analysis::build_cfg(m1.program);
  const auto l0 = detail::label_targets(m0.program), l1 = detail::label_targets(m1.program);
  std::unordered_map<std::string, std::uint32_t> tokens;
  auto token_seq = [&](const Program& p, std::span<const std::size_t> idx) { return detail::tokens_of(p, idx, tokens); };
  // The item indexes (first instruction after the label) of the labels `in` names (others are skipped), in
  // operand order: its branch target, and every label an expression operand mentions.
  auto targets_of = [](const Inst& in, const std::unordered_map<std::string, std::size_t>& labels) {
    std::vector<std::size_t> t;
    for (const auto& o : in.ops) {
      if (o.kind != Operand::Kind::expr) continue;
      detail::for_each_symbol(o.text, [&](std::string_view name) {
        if (const auto l = labels.find(std::string(name)); l != labels.end()) t.push_back(l->second);
      });
    }
    return t;
  };
  auto is_branch = [](const Inst& in) { return detail::direct_branch(in); };
  auto is_vector = [](const Inst& in) {
    using namespace isa::prop;
    return (isa::forms(in.target)[in.form].props & (valu | vmem | flat | ds | mfma)) != 0;
  };
  // The item index of the first instruction after item `i` of `p` (p.items.size() when none).
  auto next_inst = [](const Program& p, std::size_t i) {
    while (++i < p.items.size() && p.items[i].kind != Item::Kind::inst) {
    }
    return i;
  };
  // Whether the runs of one side exercised item `item` of `p` (see above). A branch to the instruction right after
  // it has one edge only (the emulator records it as falling through): ran is enough.
  auto exercised = [&](const Program& p, std::size_t item, const Exercised& e,
                       const std::unordered_map<std::string, std::size_t>& labels) {
    const Inst& in = p.items[item].inst;
    if (!e.ran.contains(in.id.value)) return false;
    if (!is_branch(in)) return true;
    const auto t = targets_of(in, labels);
    if (!t.empty() && t.front() == next_inst(p, item)) return true;
    if (!e.taken.contains(in.id.value)) return false;
    return !isa::forms(in.target)[in.form].has(isa::prop::cond_branch) || e.fell_through.contains(in.id.value);
  };
  // Every unit is aligned first, so that a label in one unit named from another (a callee's entry, named by the
  // caller's s_add_u32) is compared through the one map of matched items.
  struct Unit {
    std::string name;
    std::vector<std::size_t> c0, c1;
    std::vector<std::uint8_t> kept0, kept1;
    std::vector<std::pair<std::size_t, std::size_t>> pairs;
  };
  std::vector<Unit> units;
  bool calls = false;
  for (const auto& k : m0.kernels) {
    if (std::find(run->begin(), run->end(), k.name) == run->end()) continue;
    Unit u{k.name, detail::kernel_code(m0.program, g0, k.name), detail::kernel_code(m1.program, g1, k.name), {}, {}, {}};
    calls = calls || detail::leaves_kernel(m0.program, u.c0) || detail::leaves_kernel(m1.program, u.c1);
    units.push_back(std::move(u));
  }
  if (calls) units.push_back(Unit{"(code outside every kernel)", detail::other_code(m0, g0), detail::other_code(m1, g1), {}, {}, {}});
  std::unordered_map<std::size_t, std::size_t> item0_to_item1;
  for (Unit& u : units) {
    u.pairs = align_sequences(token_seq(m0.program, u.c0), token_seq(m1.program, u.c1));
    u.kept0.assign(u.c0.size(), 0);
    u.kept1.assign(u.c1.size(), 0);
    for (const auto& [a, b] : u.pairs) u.kept0[a] = u.kept1[b] = 1, item0_to_item1[u.c0[a]] = u.c1[b];
  }
  for (Unit& u : units) {
    for (const auto& [a, b] : u.pairs) {
      const auto t0 = targets_of(m0.program.items[u.c0[a]].inst, l0), t1 = targets_of(m1.program.items[u.c1[b]].inst, l1);
      bool same = t0.size() == t1.size();
      for (std::size_t n = 0; same && n < t0.size(); ++n) {
        const auto it = item0_to_item1.find(t0[n]);
        // A label past the last instruction (item count) matches the same position on the other side.
        same = it != item0_to_item1.end() ? it->second == t1[n]
                                          : t0[n] == m0.program.items.size() && t1[n] == m1.program.items.size();
      }
      if (!same) u.kept0[a] = u.kept1[b] = 0;
    }
    std::size_t listed = 0;
    auto report = [&](const Program& p, std::size_t item, bool k1) {
      const Inst& in = p.items[item].inst;
      if (listed++ < max)
        out.push_back({u.name, std::string(k1 ? "K1 adds or changes " : "K1 deletes or changes K0's ") +
                                   detail::id_text(in.id) + " `" + print_inst(in) + "`, which no run of " +
                                   (k1 ? "K1" : "K0") +
                                   (is_branch(in)   ? " both took and (if conditional) fell through"
                                    : is_vector(in) ? " executed with a lane enabled"
                                                    : " executed") +
                                   ": the launch file does not exercise the change"});
    };
    auto in = [](const std::unordered_set<std::uint32_t>* set, const Inst& i) { return set && set->contains(i.id.value); };
    for (std::size_t a = 0; a < u.c0.size(); ++a) {
      const Inst& i0 = m0.program.items[u.c0[a]].inst;
      if (u.kept0[a] || in(skip0, i0) || (in(decided0, i0) && e0.ran.contains(i0.id.value))) continue;
      if (!exercised(m0.program, u.c0[a], e0, l0)) report(m0.program, u.c0[a], false);
    }
    for (std::size_t b = 0; b < u.c1.size(); ++b)
      if (!u.kept1[b] && !in(skip1, m1.program.items[u.c1[b]].inst) && !exercised(m1.program, u.c1[b], e1, l1))
        report(m1.program, u.c1[b], true);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// State check
// ---------------------------------------------------------------------------------------------------------------

namespace detail {
/// The register units both kernels allocate: s0..s101 up to the smaller SGPR allocation, VCC, M0, EXEC, SCC, MODE,
/// and the arch and acc VGPRs below both allocations (CDNA's unified file: AccVGPRs from accum_offset on; AMDGPUUsage,
/// "compute_pgm_rsrc3 for GFX90A, GFX942"). FLAT_SCRATCH, XNACK_MASK, trap temporaries and codes that name no
/// register are left out: a call makes every unit live, and only registers a kernel owns may be compared.
[[nodiscard]] inline analysis::UnitSet registers_both_allocate(const codeobject::KernelDescriptor& d0,
                                                               const codeobject::KernelDescriptor& d1) {
  namespace ad = analysis::detail;
  analysis::UnitSet u;
  const int sgprs = std::min({102, d0.allocated_sgprs(), d1.allocated_sgprs()});
  for (int i = 0; i < sgprs; ++i) u.set(static_cast<std::size_t>(i));
  for (const unsigned x : {ad::unit_vcc, ad::unit_vcc + 1, ad::unit_m0, ad::unit_exec, ad::unit_exec + 1, ad::unit_scc,
                           ad::unit_mode})
    u.set(x);
  const int total = std::min(d0.allocated_vgprs(), d1.allocated_vgprs());
  const int arch = std::min({256, total, d0.accum_offset(), d1.accum_offset()});
  const int acc = std::clamp(total - std::max(d0.accum_offset(), d1.accum_offset()), 0, 256);
  for (int i = 0; i < arch; ++i) u.set(ad::unit_v0 + static_cast<unsigned>(i));
  for (int i = 0; i < acc; ++i) u.set(ad::unit_a0 + static_cast<unsigned>(i));
  return u;
}
}  // namespace detail

/// Where the state check compares registers: the first instruction of K0 and of K1 after an edited region, and the
/// registers live there in both.
struct StatePoint {
  std::string kernel;
  InstId at0{}, at1{};
  std::vector<std::uint16_t> units;  ///< analysis units (detail/reg_units.hpp), EXEC always among them
};

/// The state points of every launched kernel: its code is aligned as new_static_findings aligns it, and each
/// matched pair that follows an unmatched region (an insertion, deletion or replacement) is a point, except the
/// pairs a moved instruction passes over (it is unmatched on both sides, in two hunks: the pairs between them see
/// it moved on one side only; the pair after the second hunk is the point). At a point, the registers both kernels
/// may still read (analysis::Liveness) must hold what K0 holds, in every lane EXEC enables, at every visit of every wave: an edit whose difference the
/// output rounding or a masked-off store would hide (a reassociated float sum, a changed exp() range step) shows
/// there. The units are those live at the point in K0 and in K1 (a register renamed in K1 is live in neither
/// under its old name at the point, and the outputs still compare its effect), that both kernels allocate
/// (detail::registers_both_allocate), plus EXEC. At most `max` points, the first in program order.
[[nodiscard]] inline std::vector<StatePoint> state_points(const codeobject::Module& m0, const codeobject::Module& m1,
                                                          std::span<const LaunchSpec> shapes, std::size_t max = 512) {
  std::vector<StatePoint> out;
  const auto run = detail::launched_names(m0, shapes);
  if (!run) return out;
  const analysis::Cfg g0 = analysis::build_cfg(m0.program), g1 = analysis::build_cfg(m1.program);
  std::optional<analysis::Liveness> live0, live1;
  std::unordered_map<std::string, std::uint32_t> tokens;
  for (const auto& k : m0.kernels) {
    if (std::find(run->begin(), run->end(), k.name) == run->end()) continue;
    const auto k1 = std::find_if(m1.kernels.begin(), m1.kernels.end(), [&](const auto& x) { return x.name == k.name; });
    if (k1 == m1.kernels.end()) continue;
    const analysis::UnitSet real = detail::registers_both_allocate(k.descriptor, k1->descriptor);
    const auto c0 = detail::kernel_code(m0.program, g0, k.name), c1 = detail::kernel_code(m1.program, g1, k.name);
    const auto t0 = detail::tokens_of(m0.program, c0, tokens), t1 = detail::tokens_of(m1.program, c1, tokens);
    const auto pairs = align_sequences(t0, t1);
    // Per instruction of each side: the index of the first matched pair after it (pairs.size() past the last).
    auto next_pair = [&](bool k1) {
      std::vector<std::size_t> np(k1 ? c1.size() : c0.size(), pairs.size());
      std::size_t n = pairs.size();
      for (std::size_t i = np.size(); i-- > 0;) {
        while (n > 0 && (k1 ? pairs[n - 1].second : pairs[n - 1].first) >= i) --n;
        np[i] = n;
      }
      return np;
    };
    const auto np0 = next_pair(false), np1 = next_pair(true);
    // A moved instruction is unmatched on both sides (deleted in one hunk, inserted in another): the pairs between
    // the two hunks see it done on one side only, so none of them is a point. Each unmatched K0 instruction is
    // paired with the nearest unmatched K1 instruction of the same text (each used once).
    std::vector<std::uint8_t> matched0(c0.size(), 0), matched1(c1.size(), 0), inside(pairs.size() + 1, 0);
    for (const auto& [a, b] : pairs) matched0[a] = matched1[b] = 1;
    std::unordered_map<std::uint32_t, std::vector<std::size_t>> unmatched1;
    for (std::size_t b = 0; b < c1.size(); ++b)
      if (!matched1[b]) unmatched1[t1[b]].push_back(b);
    for (std::size_t a = 0; a < c0.size(); ++a) {
      if (matched0[a]) continue;
      const auto it = unmatched1.find(t0[a]);
      if (it == unmatched1.end() || it->second.empty()) continue;
      auto& cands = it->second;
      std::size_t best = 0;
      for (std::size_t k = 1; k < cands.size(); ++k)
        if (std::llabs(static_cast<long long>(np1[cands[k]]) - static_cast<long long>(np0[a])) <
            std::llabs(static_cast<long long>(np1[cands[best]]) - static_cast<long long>(np0[a])))
          best = k;
      const std::size_t lo = std::min(np0[a], np1[cands[best]]), hi = std::max(np0[a], np1[cands[best]]);
      for (std::size_t n = lo; n < hi; ++n) inside[n] = 1;
      cands.erase(cands.begin() + static_cast<std::ptrdiff_t>(best));
    }
    for (std::size_t n = 0; n < pairs.size() && out.size() < max; ++n) {
      const auto [a, b] = pairs[n];
      const bool after_edit = n == 0 ? (a > 0 || b > 0) : (pairs[n - 1].first + 1 != a || pairs[n - 1].second + 1 != b);
      if (!after_edit || inside[n]) continue;
      if (!live0) live0 = analysis::Liveness::compute(m0.program, g0);
      if (!live1) live1 = analysis::Liveness::compute(m1.program, g1);
      analysis::UnitSet units = live0->live_in(c0[a]) & live1->live_in(c1[b]) & real;
      units.set(analysis::detail::unit_exec).set(analysis::detail::unit_exec + 1);
      StatePoint p{k.name, m0.program.items[c0[a]].inst.id, m1.program.items[c1[b]].inst.id, {}};
      for (unsigned u = 0; u < units.size(); ++u)
        if (units.test(u)) p.units.push_back(static_cast<std::uint16_t>(u));
      out.push_back(std::move(p));
    }
  }
  return out;
}

/// The first difference between what K0's run (`l0`) and K1's (`l1`) recorded at `points`, in the user's terms, or
/// nothing. A unit a load still owed on either side is not compared. A wave that visits a point a different number
/// of times in K0 and K1 (an unrolled or peeled loop) is not compared there: its visits do not correspond. With
/// `again` (a second run of K0 under another schedule), what K0 itself does not reproduce is not compared either:
/// a value an atomic returned, or that depends on which wave ran first, is the schedule's, not the edit's.
[[nodiscard]] inline std::optional<std::string> state_difference(std::span<const StatePoint> points,
                                                                 const emu::WatchLog& l0, const emu::WatchLog& l1,
                                                                 const emu::WatchLog* again = nullptr) {
  auto where = [&](const emu::WatchKey& k) {
    const StatePoint& p = points[k.point];
    return "at K0 " + detail::id_text(p.at0) + " / K1 " + detail::id_text(p.at1) + " (the first instruction after an "
           "edited region of '" + p.kernel + "'), workgroup (" + std::to_string(k.group[0]) + "," +
           std::to_string(k.group[1]) + "," + std::to_string(k.group[2]) + ") wave " + std::to_string(k.wave);
  };
  static const std::vector<emu::WatchVisit> none;
  auto visits_of = [](const emu::WatchLog& l, const emu::WatchKey& k) -> const std::vector<emu::WatchVisit>& {
    const auto it = l.visits.find(k);
    return it == l.visits.end() ? none : it->second;
  };
  std::set<emu::WatchKey> keys;
  for (const auto& [k, v] : l0.visits) keys.insert(k);
  for (const auto& [k, v] : l1.visits) keys.insert(k);
  for (const auto& k : keys) {
    const auto& v0 = visits_of(l0, k);
    const auto& v1 = visits_of(l1, k);
    const auto* vb = again ? &visits_of(*again, k) : nullptr;
    // A log cut short holds a prefix of the visits; otherwise the counts must agree for the visits to correspond.
    if (!l0.truncated && !l1.truncated && v0.size() != v1.size()) continue;
    if (vb && !again->truncated && !l0.truncated && vb->size() != v0.size()) continue;
    const StatePoint& p = points[k.point];
    for (std::size_t n = 0; n < std::min(v0.size(), v1.size()); ++n)
      for (std::size_t u = 0; u < p.units.size() && u < v0[n].values.size() && u < v1[n].values.size(); ++u) {
        if (v0[n].pending[u] || v1[n].pending[u] || v0[n].values[u] == v1[n].values[u]) continue;
        if (vb && (n >= vb->size() || u >= (*vb)[n].values.size() || (*vb)[n].pending[u] ||
                   (*vb)[n].values[u] != v0[n].values[u]))
          continue;
        const unsigned unit = p.units[u];
        const std::string name = analysis::detail::unit_name(unit);
        std::string what;
        if (unit >= emu::watch_unit::v0) {
          what = name + " differs in the lanes EXEC enables";
        } else {
          char buf[64];
          std::snprintf(buf, sizeof buf, ": K0 0x%llx, K1 0x%llx", static_cast<unsigned long long>(v0[n].values[u]),
                        static_cast<unsigned long long>(v1[n].values[u]));
          what = name + buf;
        }
        return where(k) + ", visit " + std::to_string(n + 1) + ": " + what +
               ", and both kernels may still read it (live there)";
      }
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------------------------
// Output canaries
// ---------------------------------------------------------------------------------------------------------------

/// The init an output buffer of `dtype` (argument `arg`) starts from in canary trials when its declared
/// init is "zeros" or a fill: uniform random over a range every element of the dtype can hold ([-100, 100] for the
/// float dtypes, within even fp8 e4m3's; the whole range for 8- to 32-bit integers; [-2^53, 2^53] or [0, 2^53] for
/// 64-bit ones), drawn from seed + trial like any random init. With a declared zero or constant, a K1 that skips a
/// store of a value equal to it would leave the same bytes as K0; with a canary it leaves random ones.
[[nodiscard]] inline Init canary_init(DType dtype, std::size_t arg) {
  Init in;
  in.kind = Init::random;
  in.seed = detail::SplitMix64{0xca4a11e5ull + arg}.next();
  if (dtype_is_float(dtype)) {
    in.min = -100, in.max = 100;
  } else if (dtype_size(dtype) == 8) {
    in.min = dtype_is_signed(dtype) ? -0x1p53 : 0, in.max = 0x1p53;
  } else {
    const auto [lo, hi] = detail::int_range(dtype);
    in.min = static_cast<double>(lo), in.max = static_cast<double>(hi);
  }
  return in;
}

/// Whether an output declared with `in` gets a canary in canary trials.
[[nodiscard]] inline bool takes_canary(const Init& in) { return in.kind == Init::zeros || in.kind == Init::fill; }

// ---------------------------------------------------------------------------------------------------------------
// The verifier
// ---------------------------------------------------------------------------------------------------------------

/// An extra trial the verifier runs after a shape's own: the same launch with its data inputs redrawn to expose
/// edits that the launch file's draws never meet (an off-by-one compare, a NaN test on the wrong operand, a
/// tie-break turned around, a scale constant of a rare underflow path).
struct Probe {
  std::string kind;  ///< "specials", "ties", "binades" or "constants"
  LaunchSpec spec;   ///< the shape with the probed inputs
  std::vector<std::size_t> args;  ///< the arguments redrawn
};

namespace detail {

/// The finite range the values of buffer `b` take in trial 0: [min, max] of a random init, +-max of a signed
/// log_random one, else the smallest and largest finite element of its bytes (file, iota). Nullopt when there is
/// no finite element or the bytes cannot be made.
[[nodiscard]] inline std::optional<std::pair<double, double>> value_range(const BufferArg& b) {
  switch (b.init.kind) {
    case Init::random: return std::pair{b.init.min, b.init.max};
    case Init::log_random: return std::pair{b.init.signed_values ? -b.init.max : b.init.min, b.init.max};
    case Init::zeros:
    case Init::fill: return std::nullopt;
    default: break;
  }
  const auto bytes = materialize(b, 0);
  if (!bytes) return std::nullopt;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (std::size_t i = 0; i < b.count; ++i) {
    const double v = element_at(*bytes, b.dtype, i).value;
    if (!std::isfinite(v)) continue;
    lo = std::min(lo, v), hi = std::max(hi, v);
  }
  if (!(lo <= hi)) return std::nullopt;
  return std::pair{lo, hi};
}

/// Why a kernel of `m` that `spec` launches cannot be launched on `m`'s target: a group segment (fixed, plus the
/// spec's "dynamic_lds") beyond the LDS a workgroup can have, or a private segment beyond what a work-item can have
/// (ir/target.hpp limits; the descriptor's and the metadata's sizes, the larger of each). Empty when it can.
[[nodiscard]] inline std::vector<std::string> launch_limit_problems(const codeobject::Module& m, const LaunchSpec& spec) {
  std::vector<std::string> out;
  const auto lim = limits(m.target);
  for (const auto& k : m.kernels) {
    if (k.name != spec.kernel && !(spec.kernel.empty() && m.kernels.size() == 1)) continue;
    auto meta = [&](const char* key) -> std::uint64_t {
      const auto it = k.metadata.find(key);
      return it != k.metadata.end() && it->is_number_unsigned() ? it->get<std::uint64_t>() : 0;
    };
    const std::uint64_t group = std::max<std::uint64_t>(k.descriptor.get(codeobject::field::group_segment_fixed_size),
                                                        meta(".group_segment_fixed_size"));
    const std::uint64_t priv = std::max<std::uint64_t>(k.descriptor.private_segment_fixed_size(),
                                                       meta(".private_segment_fixed_size"));
    const std::uint64_t dyn = spec.dynamic_lds.value_or(0);
    if (group + dyn > lim.lds_bytes)
      out.push_back("kernel '" + k.name + "' asks for " + std::to_string(group) + " bytes of LDS" +
                    (dyn ? " plus the launch's " + std::to_string(dyn) + " dynamic" : std::string()) + ", more than the " +
                    std::to_string(lim.lds_bytes) + " a workgroup can have on " + std::string(asmevo::to_string(m.target)));
    if (priv > lim.private_lane_bytes)
      out.push_back("kernel '" + k.name + "' asks for " + std::to_string(priv) +
                    " bytes of private memory per work-item, more than the " + std::to_string(lim.private_lane_bytes) +
                    " a wave's scratch can give on " + std::string(asmevo::to_string(m.target)));
  }
  return out;
}

/// The 32-bit constants K0's and K1's code names: the literals and inline constants of their source operands (an
/// f32 constant as its bits; an f16/bf16 one is left out) and the immediates of SOPK (s_movk_i32, s_cmpk_*),
/// K1's values that K0 lacks first, then K0's that K1 lacks, then the rest, each once, at most `cap`. A compare
/// against one of them (x == 1.23f) is what no uniform draw hits.
[[nodiscard]] inline std::vector<std::uint32_t> code_constants(const Program& p0, const Program& p1,
                                                               std::size_t cap = 32) {
  auto collect = [](const Program& p) {
    std::vector<std::uint32_t> out;
    for (const Item& it : p.items) {
      if (it.kind != Item::Kind::inst) continue;
      const auto& f = isa::forms(it.inst.target)[it.inst.form];
      const auto info = isa::operands(f);
      for (std::size_t i = 0; i < it.inst.ops.size() && i < info.size(); ++i) {
        const Operand& o = it.inst.ops[i];
        const isa::OperandInfo& oi = info[i];
        const bool source = oi.role == isa::Role::use &&
                            (oi.accepts(isa::reg::literal | isa::reg::inline_const) ||
                             (f.format == isa::Format::SOPK && oi.name == "simm16"));
        if (!source) continue;
        if (o.kind == Operand::Kind::imm) out.push_back(static_cast<std::uint32_t>(o.imm));
        else if (o.kind == Operand::Kind::real && (oi.type == isa::ValueType::f32 || oi.type == isa::ValueType::v2f32))
          out.push_back(std::bit_cast<std::uint32_t>(static_cast<float>(o.real)));
      }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  };
  const auto c0 = collect(p0), c1 = collect(p1);
  auto in = [](const std::vector<std::uint32_t>& v, std::uint32_t x) { return std::binary_search(v.begin(), v.end(), x); };
  std::vector<std::uint32_t> out;
  for (const auto x : c1)
    if (!in(c0, x)) out.push_back(x);
  for (const auto x : c0)
    if (!in(c1, x)) out.push_back(x);
  for (const auto x : c0)
    if (in(c1, x)) out.push_back(x);
  if (out.size() > cap) out.resize(cap);
  return out;
}

/// The bit patterns of dtype `t` that the constants probe draws for buffer values `range` from the code's 32-bit
/// `constants`: each constant and its neighbours (+-1 in the last place for a float, +-1 for an integer) in the
/// dtype's width -- the halves of a 32-bit word for a 16-bit dtype, and the f32 value rounded to it for f16/bf16, the
/// f32 value as an f64 -- then, for float dtypes, four NaNs (two payloads, both signs) given as much weight as all
/// the constants together, so that two different NaNs meet often. Integers stay inside `range` (an index stays an
/// index). Empty when there is nothing to draw.
[[nodiscard]] inline std::vector<std::uint64_t> constant_bits(DType t, std::span<const std::uint32_t> constants,
                                                              std::pair<double, double> range) {
  const bool is_float = dtype_is_float(t);
  const unsigned width = static_cast<unsigned>(dtype_size(t)) * 8;
  const std::uint64_t mask = width == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
  std::vector<std::uint64_t> out;
  auto add = [&](std::uint64_t b) {
    b &= mask;
    if (!is_float) {
      const double v = dtype_is_signed(t) && width < 64 && (b >> (width - 1) & 1)
                           ? static_cast<double>(static_cast<std::int64_t>(b | ~mask))
                           : static_cast<double>(b);
      if (v < range.first || v > range.second) return;
    }
    if (std::find(out.begin(), out.end(), b) == out.end()) out.push_back(b);
  };
  auto near = [&](std::uint64_t b) { add(b), add(b + 1), add(b - 1); };
  for (const std::uint32_t c : constants) {
    const auto f = std::bit_cast<float>(c);
    if (width == 32) near(c);
    else if (width == 16) {
      near(c & 0xffffu), near(c >> 16);
      if (is_float && std::isfinite(f)) near(round_float_bits(t, f));
    } else if (width == 64) {
      if (is_float) {
        if (std::isfinite(f)) near(std::bit_cast<std::uint64_t>(static_cast<double>(f)));
      } else {
        near(c), near(static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int32_t>(c))));
      }
    } else {
      near(c & 0xffu);
    }
  }
  if (is_float) {
    const auto specials = special_bits(t, range.first, range.second);
    std::vector<std::uint64_t> nans;
    for (const std::uint64_t b : specials) {
      // NaN: not equal to itself as the dtype decodes it (the fp8 formats included).
      std::vector<std::byte> e(dtype_size(t));
      detail::store_le(e.data(), b, e.size());
      const double v = element_at(e, t, 0).value;
      if (v != v) nans.push_back(b);
    }
    const std::size_t reps = nans.empty() ? 0 : std::max<std::size_t>(1, out.size() / nans.size());
    for (std::size_t r = 0; r < reps; ++r) out.insert(out.end(), nans.begin(), nans.end());
  }
  return out;
}

}  // namespace detail

/// The probe trials of `spec` (VerifyOptions::probes), in order, each only when it redraws some argument. Only
/// buffers that carry data are redrawn -- float buffers whose init draws or reads values (random, log_random, file,
/// iota), and integer buffers with a random init, kept inside their declared [min, max] so that an index stays an
/// index -- never a scalar (sizes, strides, flags), a zero or filled buffer (an output, or a counter), or an integer
/// buffer read from a file (it may hold indexes). Seeds are fixed, so a probe draws the same inputs every time.
///  - specials: floats uniform over the argument's own range with 5% of elements from special_bits (signed zeros,
///    infinities, NaN, subnormals, the extremes, values far outside the range);
///  - ties: floats and integers drawn from 4 values of the argument's range, so compares, max and argmax tie;
///  - binades: floats log-uniform over every binade from the dtype's smallest normal to a quarter of its largest
///    finite value, both signs (an edit that changes only values above 2^30 or below 2^-30 shows there);
///  - constants: the argument's own range with half the elements from detail::constant_bits of `constants` (the
///    kernels' literals, detail::code_constants, and their neighbours; NaNs of several payloads), so that a compare
///    against a magic number and an edit that passes on the other operand's NaN show; integer buffers only where a
///    constant lies in their range.
/// A shape that declares a tolerance gets only the ties probe: specials and wide magnitudes make a reassociated
/// sum differ by more than any tolerance allows, which says nothing about the edit.
[[nodiscard]] inline std::vector<Probe> probes_of(const LaunchSpec& spec, std::span<const std::uint32_t> constants = {}) {
  bool tolerance = false;
  for (const auto& t : spec.tolerance) tolerance = tolerance || t.has_value();
  // Each buffer's range once: for a file init it means reading the file.
  std::vector<std::optional<std::pair<double, double>>> ranges(spec.args.size());
  for (std::size_t a = 0; a < spec.args.size(); ++a)
    if (spec.args[a].kind == ArgSpec::Kind::buffer &&
        (dtype_is_float(spec.args[a].buffer.dtype) || spec.args[a].buffer.init.kind == Init::random))
      ranges[a] = detail::value_range(spec.args[a].buffer);
  std::vector<Probe> out;
  for (const std::string_view kind : {"specials", "ties", "binades", "constants"}) {
    if (tolerance && kind != "ties") continue;
    Probe p{std::string(kind), spec, {}};
    for (std::size_t a = 0; a < spec.args.size(); ++a) {
      if (spec.args[a].kind != ArgSpec::Kind::buffer) continue;
      BufferArg& b = p.spec.args[a].buffer;
      const bool is_float = dtype_is_float(b.dtype);
      if (!is_float && (b.init.kind != Init::random || (kind != "ties" && kind != "constants"))) continue;
      const auto& range = ranges[a];
      if (!range) continue;
      Init in;
      in.seed = 0x5eed0000ull + 0x100ull * (kind == "specials" ? 1 : kind == "ties" ? 2 : kind == "binades" ? 3 : 4) + a;
      if (kind == "constants") {
        in.kind = Init::random;
        in.min = range->first;
        in.max = range->second;
        in.constants = detail::constant_bits(b.dtype, constants, *range);
        if (in.constants.empty()) continue;
        in.specials = 0.5;
      } else if (kind == "binades") {
        // The smallest normal is 2^(1 - bias) (fnuz formats have a bias one larger: launch_spec.hpp float_layout).
        const auto f = detail::float_layout(b.dtype);
        const int bias = (1 << (f.exp_bits - 1)) - (f.flavor == detail::FloatLayout::fnuz ? 0 : 1);
        in.kind = Init::log_random;
        in.min = std::ldexp(1.0, 1 - bias);
        in.max = std::max(in.min, detail::dtype_info(b.dtype).max_finite / 4);
        in.signed_values = true;
      } else {
        in.kind = Init::random;
        in.min = range->first;
        in.max = range->second;
        if (kind == "specials") in.specials = 0.05;
        else in.ties = 4;
      }
      b.init = in;
      p.args.push_back(a);
    }
    if (!p.args.empty()) out.push_back(std::move(p));
  }
  return out;
}

/// What the runs the verifier makes of K0 exercise: `k` on every shape of `shapes`, every trial (opt.trials or the
/// shape's), schedule seeds from opt.seed on. Up to canary outputs and schedule order these are K0's runs in
/// differential_verify, so a change confined to code they ran with a lane enabled passes its coverage gate. Errors are those of a run
/// that cannot start (the launch does not fit the kernel). Exercised::known is false when the executor cannot tell.
template <Executor E>
[[nodiscard]] Expected<Exercised> exercised_by(const CodeObject& k, std::span<const LaunchSpec> shapes, E& exec,
                                               const VerifyOptions& opt = {}) {
  Exercised ex;
  std::uint64_t seed = opt.seed;
  for (const LaunchSpec& spec : shapes) {
    const std::uint32_t trials = opt.trials ? *opt.trials : spec.trials;
    for (std::uint32_t t = 0; t < trials; ++t) {
      auto o = exec.run(k, spec, RunRequest{t, seed++, nullptr});
      if (!o) return unexpected(std::move(o).error());
      ex.add(*o);
    }
  }
  return ex;
}

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
  j["options"] = {{"schedules", opt.schedules}, {"static_checks", opt.static_checks}, {"seed", opt.seed},
                  {"probes", opt.probes}, {"refute", opt.refute}};
  j["options"]["adversarial_schedule"] =
      opt.schedules >= 2 ? "hold-one-wave: the last K1 schedule of each trial"
                         : "off: with one schedule per trial K1 runs under a random schedule only";
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

  // (a') Launch limits: a kernel whose LDS or scratch the target cannot give is not launched by the runtime at all
  // (the emulator would allocate whatever it asks for).
  {
    for (const LaunchSpec& s : shapes)
      if (const auto p0 = detail::launch_limit_problems(k0.module, s); !p0.empty())
        return fail(DiagCode::usage, "K0 (" + k0.path + ") cannot launch: " + p0.front());
    for (const LaunchSpec& s : shapes)
      if (const auto p1 = detail::launch_limit_problems(k1.module, s); !p1.empty()) {
        OJson list = OJson::array();
        for (const auto& p : p1) list.push_back(p);
        j["launch_limits"] = std::move(list);
        return finish(Verdict::not_equivalent, "abi", "K1 cannot launch: " + p1.front());
      }
  }

  // (a'') Launch versioning (verify/versioning.hpp): a K1 whose entry starts with a guard on kernarg values must show
  // statically that the guard's mismatch edges lead to K0's own code, unchanged. Every check below that aligns K1's
  // code with K0's then sees K1's view (`k1s`): the guard and the specialized copy, the fallback deleted (instruction
  // ids kept, so the runs of the real K1 still name them). The runs always execute the real K1.
  const VersioningAnalysis versioning = find_versioning(k0.module, k1.module, shapes);
  std::optional<CodeObject> k1_view;
  if (!versioning.rejection.empty()) {
    j["versioning"] = versioning.rejection;
    return finish(Verdict::not_equivalent, "versioning", versioning.rejection);
  }
  if (versioning.view) {
    k1_view = CodeObject{k1.path, k1.elf, k1.module};
    k1_view->module.program = *versioning.view;
  }
  const CodeObject& k1s = k1_view ? *k1_view : k1;
  {
    OJson vj = versioning.kernels.empty() ? OJson("none") : OJson::object();
    for (const auto& vk : versioning.kernels) {
      OJson g = OJson::array();
      for (const auto& d : vk.guard)
        switch (d.kind) {
          case GuardedDword::Kind::kernarg: g.push_back({{"offset", d.offset}, {"value", d.value}}); break;
          case GuardedDword::Kind::wgid:
            g.push_back({{"workgroup_id", std::string(1, "xyz"[d.dim % 3])}, {"sgpr", d.offset}, {"below", d.value}});
            break;
          case GuardedDword::Kind::exec: g.push_back({{"exec", "all ones"}}); break;
        }
      vj[vk.kernel] = {{"guard", std::move(g)},
                       {"fallback", "K0's code, unchanged: " + std::to_string(vk.fallback_insts) + " instructions in " +
                                        std::to_string(vk.fallback_blocks) + " blocks"},
                       {"copy", detail::id_text(vk.copy_first)},
                       {"decided_branches", vk.decided0.size()},
                       {"infeasible_instructions", vk.infeasible0.size()},
                       {"perturbations", OJson::array()}};
    }
    j["versioning"] = std::move(vj);
  }

  // (b) Static checks: K0's findings are known and reported; K1 may keep them where they were (new_static_findings
  // aligns K1's code with K0's), but adds none.
  if (opt.static_checks) {
    auto f0 = static_check(k0.module);
    if (!f0) {
      Diag d = std::move(f0).error();
      d.message = "static checks of K0 (" + k0.path + "): " + d.message;
      return unexpected(std::move(d));
    }
    OJson s;
    OJson k0_list = OJson::array(), k1_new = OJson::array();
    for (const auto& kf : *f0)
      for (const auto& f : kf.findings) k0_list.push_back(detail::finding_json(kf.kernel, f));
    auto f1 = static_check(k1.module);
    if (!f1) {
      s["k0"] = std::move(k0_list);
      s["k1_error"] = f1.error().message;
      j["static"] = std::move(s);
      return finish(Verdict::not_equivalent, "static", "K1 cannot be checked statically: " + f1.error().message);
    }
    std::string first;
    std::size_t k1_all = 0;
    for (const auto& kf : *f1) k1_all += kf.findings.size();
    // A versioned kernel's fallback is K0's code (find_versioning): a finding there is inherited when K0 has it at
    // the corresponding instructions; the rest are new (the view has no such instruction to align).
    std::vector<KernelFindings> f1s = *f1;
    for (const auto& vk : versioning.kernels)
      for (auto& kf : f1s) {
        if (kf.kernel != vk.kernel) continue;
        const KernelFindings* kf0 = nullptr;
        for (const auto& k : *f0)
          if (k.kernel == kf.kernel) kf0 = &k;
        std::erase_if(kf.findings, [&](const analysis::Finding& f) {
          const auto at = vk.fallback_to_k0.find(f.at.value);
          if (at == vk.fallback_to_k0.end() || !kf0) return false;
          std::optional<std::uint32_t> other;
          if (f.other) {
            const auto o = vk.fallback_to_k0.find(f.other->value);
            if (o == vk.fallback_to_k0.end()) return false;
            other = o->second;
          }
          for (const auto& g : kf0->findings)
            if (g.rule == f.rule && g.at.value == at->second &&
                (g.other ? std::optional<std::uint32_t>(g.other->value) : std::nullopt) == other)
              return true;
          return false;
        });
      }
    for (const auto& kf : new_static_findings(k0.module, *f0, k1s.module, f1s))
      for (const auto& f : kf.findings) {
        if (first.empty()) first = kf.kernel + ": " + f.rule + " at " + detail::id_text(f.at) + ": " + f.message;
        k1_new.push_back(detail::finding_json(kf.kernel, f));
      }
    s["k0"] = std::move(k0_list);
    s["k1_new"] = k1_new;
    s["k1_inherited"] = k1_all - k1_new.size();
    j["static"] = std::move(s);
    if (!k1_new.empty())
      return finish(Verdict::not_equivalent, "static",
                    "K1 has " + std::to_string(k1_new.size()) + " static finding(s) K0 does not have at the same place; "
                    "the first: " + first);
  }

  // (b') Approximate semantics: the runs below verify nothing about an instruction the emulator only approximates
  // and that K1 adds or changes (approximate_changes), unless every launch of its kernel declares a tolerance for
  // every output. Hardware runs evaluate the real instructions, so only an emulating executor needs this.
  if constexpr (requires { E::emulated_semantics; }) {
    std::set<std::string> launched, intolerant;
    for (const auto& s : shapes) {
      const std::string name = s.kernel.empty() && k1.module.kernels.size() == 1 ? k1.module.kernels[0].name : s.kernel;
      launched.insert(name);
      bool all = !s.outputs.empty();
      for (const auto a : s.outputs)
        all = all && a < s.args.size() && s.args[a].kind == ArgSpec::Kind::buffer &&
              dtype_is_float(s.args[a].buffer.dtype) && s.tolerance_for(s.args[a].buffer.dtype).has_value();
      if (!all) intolerant.insert(name);
    }
    std::set<std::string> tolerant;
    for (const auto& n : launched)
      if (!intolerant.count(n)) tolerant.insert(n);
    const auto changes = approximate_changes(k0.module, k1s.module, tolerant);
    OJson list = OJson::array();
    for (const auto& c : changes)
      list.push_back({{"kernel", c.kernel}, {"at", detail::id_text(c.at)}, {"instruction", c.text}, {"note", c.note}});
    j["approximate"] = std::move(list);
    if (!tolerant.empty()) {
      OJson t = OJson::array();
      for (const auto& n : tolerant) t.push_back(n);
      j["approximate_tolerated"] = std::move(t);
    }
    if (!changes.empty()) {
      const auto& c = changes.front();
      return finish(Verdict::not_equivalent, "approximate",
                    "unverified: `" + c.mnemonic + "` is emulated approximately (" + c.note + "); K1 adds or changes " +
                        detail::id_text(c.at) + " `" + c.text + "` in kernel '" + c.kernel +
                        "' (declare a tolerance for the outputs to accept a close answer)" +
                        (changes.size() > 1 ? "; " + std::to_string(changes.size() - 1) + " more" : std::string()));
    }
  } else {
    j["approximate"] = "not checked: the executor runs the instructions themselves";
  }

  // (b') The floating-point environment: K1 may not change the modes under which K0's float instructions run
  // (float_mode_changes). Sampled inputs cannot show such a change harmless, on hardware or here.
  {
    const auto changes = float_mode_changes(k0.module, k1s.module);
    OJson list = OJson::array();
    for (const auto& c : changes) list.push_back(c);
    j["float_mode"] = std::move(list);
    if (!changes.empty())
      return finish(Verdict::not_equivalent, "float_mode",
                    "unverified: K1 changes the floating-point environment: " + changes.front() +
                        (changes.size() > 1 ? "; " + std::to_string(changes.size() - 1) + " more" : std::string()) +
                        " (a mode change alters every float instruction after it, on values the trials may never draw)");
  }

  // (b'') Refutation: where K1 differs from K0 in one window, the equivalence prover looks for register values at the
  // window's entry (consistent with what the launch fixes, per shape) under which a register still read after the
  // window differs (analysis::EquivalenceProver::refute). Such a counterexample rejects K1 even when no input of the
  // runs below meets it (v_cmp_gt_f32 -> v_cmp_ge_f32 against -126.0). Several windows, or a window the prover does
  // not model, leave this to the runs.
  j["prover"] = "off";
  if (opt.refute) {
    OJson rj = OJson::array();
    std::optional<std::string> refuted;
    std::optional<Program> k1_aligned;  // K1 numbered as K0 where they align (detail::with_k0_ids), made once
    for (std::size_t si = 0; si < shapes.size() && !refuted; ++si) {
      OJson e;
      e["shape"] = si;
      auto facts = launch_facts(k0.module, shapes[si]);
      if (!facts) {
        e["result"] = "not tried: " + facts.error().message;
        rj.push_back(std::move(e));
        continue;
      }
      auto pv = analysis::EquivalenceProver::make(k0.module.program, *facts);
      if (!pv) {
        e["result"] = "not tried: " + pv.error().message;
        rj.push_back(std::move(e));
        continue;
      }
      if (!k1_aligned) k1_aligned = detail::with_k0_ids(k0.module.program, k1s.module.program);
      analysis::Refutation ref = pv->refute(*k1_aligned);
      // A counterexample's inputs are only consistent with K0's known bits at the window, not shown reachable: when
      // the prover shows K1 equivalent from the entry under the same facts (v_mov_b32 v6, 0 -> 16 for a high half
      // the launch bounds), the counterexample cannot occur and rejects nothing.
      if (ref.refuted()) {
        const analysis::ProofResult proof = pv->prove(*k1_aligned);
        if (proof.proven) {
          e["unreachable_counterexample"] = ref.cex->text();
          ref.kind = analysis::Refutation::Kind::none;
          ref.reason = "the window differs for some inputs, but K1 is proven equivalent: " + proof.reason;
        }
      }
      e["result"] = ref.refuted() ? "refuted" : ref.kind == analysis::Refutation::Kind::none ? "none" : "unknown";
      if (ref.refuted()) {
        e["counterexample"] = ref.cex->text();
        refuted = (shapes.size() > 1 ? "shape " + std::to_string(si) + ": " : std::string()) + ref.cex->text();
      } else {
        e["reason"] = ref.reason;
      }
      rj.push_back(std::move(e));
      if (ref.kind == analysis::Refutation::Kind::unknown) break;  // not one window: no other shape decides
    }
    // One word for scripts: whether the prover looked at the change at all ("could not check" leaves the verdict to
    // the runs; --require-proof makes that a rejection).
    std::string summary = refuted ? "refuted" : "no counterexample";
    for (const auto& e : rj)
      if (const std::string res = e.value("result", ""); !refuted && (res == "unknown" || res.starts_with("not tried"))) {
        summary = "could not check: " + e.value("reason", res);
        break;
      }
    j["prover"] = summary;
    j["refutation"] = std::move(rj);
    if (refuted)
      return finish(Verdict::not_equivalent, "refuted",
                    "K1's edited window computes a different value that is read later: " + *refuted);
  }

  // (c) Memory model: the scope bits of every memory access.
  {
    const auto diffs = compare_memory_model(k0.module.program, k1s.module.program);
    OJson list = OJson::array();
    for (const auto& d : diffs) {
      OJson e;
      e["kernel"] = d.kernel;
      e["rule"] = d.rule;
      e["message"] = d.message;
      e["access"] = describe(d.access, k1.module.target);
      e["k0_count"] = d.k0_count;
      e["k1_count"] = d.k1_count;
      if (d.example) e["example"] = detail::id_text(*d.example) + " " + d.example_text;
      list.push_back(std::move(e));
    }
    j["memory_model"] = list;
    if (!diffs.empty()) {
      const auto& d = diffs.front();
      return finish(Verdict::not_equivalent, "memory_model",
                    "K1 does not keep K0's memory ordering (which a single run cannot check): " + d.message +
                        (diffs.size() > 1 ? "; " + std::to_string(diffs.size() - 1) + " more kernel(s) differ" : ""));
    }
  }

  // (d) Coverage: the runs below only show what the launched kernels do; any other kernel must keep K0's code.
  {
    const auto changes = unlaunched_changes(k0.module, k1s.module, shapes);
    OJson list = OJson::array();
    for (const auto& c : changes) list.push_back({{"kernel", c.kernel}, {"change", c.what}});
    j["unlaunched_changes"] = list;
    if (!changes.empty()) {
      const auto& c = changes.front();
      return finish(Verdict::not_equivalent, "coverage",
                    "kernel '" + c.kernel + "' changed but no launch in the launch file runs it (" + c.what + ")" +
                        (changes.size() > 1 ? "; " + std::to_string(changes.size() - 1) + " more such kernel(s)"
                                            : std::string()));
    }
  }

  // (e) Runs. With the state check, the runs also record the registers live after each edited region.
  std::vector<StatePoint> points;
  emu::Watch watch0, watch1;
  {
    bool tolerance = false;
    for (const auto& s : shapes)
      for (const auto& t : s.tolerance) tolerance = tolerance || t.has_value();
    OJson sc;
    if (!opt.state_check) {
      sc["status"] = "off";
    } else if (tolerance) {
      sc["status"] = "off: a shape declares a tolerance, so K1 may reassociate";
    } else {
      points = state_points(k0.module, k1s.module, shapes);
      for (const auto& p : points) {
        watch0.points.push_back({p.at0, p.units});
        watch1.points.push_back({p.at1, p.units});
      }
      sc["status"] = "checked";
      sc["points"] = points.size();
    }
    j["state_check"] = std::move(sc);
  }
  bool state_unobserved = false;
  std::uint64_t next_seed = opt.seed;
  // What the runs executed, per side (instruction id values), while every run of that side can tell (the emulator).
  Exercised ran0, ran1;
  OJson shapes_json = OJson::array();
  bool verdict = false;  // a run decided (the receipt's verdict fields are set)
  std::size_t probe_trials = 0;
  const std::vector<std::uint32_t> constants =
      opt.probes ? detail::code_constants(k0.module.program, k1.module.program) : std::vector<std::uint32_t>{};
  // The wave-uniform operands the compares met in the shape's own runs (RunRequest::log_compares), where the executor
  // reports them: a constant the kernel computes (x == (c1 ^ c2)) is no literal, but the compare sees it.
  std::vector<std::uint32_t> compared;
  auto note_compared = [&](const RunOutcome& o) {
    for (const std::uint32_t v : o.compared)
      if (compared.size() < 64 && std::find(compared.begin(), compared.end(), v) == compared.end() &&
          std::find(constants.begin(), constants.end(), v) == constants.end())
        compared.push_back(v);
  };
  for (std::size_t si = 0; si < shapes.size() && !verdict; ++si) {
    const LaunchSpec& declared = shapes[si];
    OJson sj;
    sj["shape"] = si;
    sj["kernel"] = declared.kernel;
    sj["grid"] = declared.grid;
    if (declared.block) sj["block"] = *declared.block;
    else sj["block"] = "from the kernel's metadata";
    OJson trials_json = OJson::array();
    const std::uint32_t trials = opt.trials ? *opt.trials : declared.trials;
    std::vector<Probe> probes = opt.probes ? probes_of(declared, constants) : std::vector<Probe>{};
    const std::string where_shape = shapes.size() > 1 ? "shape " + std::to_string(si) + ", " : std::string();
    for (std::uint32_t t = 0; t < trials + probes.size() && !verdict; ++t) {
      // Trials from `trials` on are the probes: the shape with redrawn data inputs (probes_of). The constants probe
      // draws, after the code's literals, the values the compares of the runs so far met.
      if (t == trials && opt.probes && !compared.empty()) {
        std::vector<std::uint32_t> all = constants;
        all.insert(all.end(), compared.begin(), compared.end());
        probes = probes_of(declared, all);
      }
      if (t >= trials + probes.size()) break;
      const Probe* probe = t < trials ? nullptr : &probes[t - trials];
      const LaunchSpec& spec = probe ? probe->spec : declared;
      OJson tj;
      tj["trial"] = t;
      if (probe) {
        tj["probe"] = probe->kind;
        tj["probed_args"] = probe->args;
      }
      const std::string where =
          where_shape + "trial " + std::to_string(t) + (probe ? " (probe: " + probe->kind + ")" : std::string());
      auto is_output = [&](std::size_t a) {
        return std::find(spec.outputs.begin(), spec.outputs.end(), a) != spec.outputs.end();
      };

      // From the second trial on, and in the only trial when there is one, the outputs declared "zeros" or a fill
      // start as canaries (canary_init), the same bytes for K0 and K1, so that every verification has a canary run.
      // A K0 that does not run cleanly then reads them (as indexes or flags, say): that trial keeps the declared
      // inits, and the receipt says so.
      std::optional<LaunchSpec> canary;
      if (t > 0 || trials == 1)
        for (std::size_t a = 0; a < spec.args.size(); ++a)
          if (is_output(a) && spec.args[a].kind == ArgSpec::Kind::buffer && takes_canary(spec.args[a].buffer.init)) {
            if (!canary) canary = spec;
            canary->args[a].buffer.init = canary_init(spec.args[a].buffer.dtype, a);
          }
      RunRequest rq0{t, next_seed++, points.empty() ? nullptr : &watch0};
      rq0.log_compares = !probe && opt.probes;
      auto o0 = exec.run(k0, canary ? *canary : spec, rq0);
      if (o0) note_compared(*o0);
      std::string canary_dropped;
      if (canary && o0) {
        const OutBuffer* hit = nullptr;
        for (const auto& b : o0->buffers)
          if (b.guard_hit && !hit) hit = &b;
        if (!o0->ok() || hit) {
          canary_dropped = "K0 does not run cleanly with canary outputs (" +
                           (o0->ok() ? "it writes into the guard bytes of arg" + std::to_string(hit->arg)
                                     : detail::stop_text(*o0)) +
                           "), so it reads them: this trial keeps the declared inits";
          canary.reset();
          o0 = exec.run(k0, spec, rq0);
        }
      }
      const LaunchSpec& run_spec = canary ? *canary : spec;
      OJson inputs = OJson::array();
      for (std::size_t a = 0; a < spec.args.size(); ++a)
        if (spec.args[a].kind == ArgSpec::Kind::buffer) {
          OJson in;
          in["arg"] = a;
          in["output"] = is_output(a);
          const Init& used = run_spec.args[a].buffer.init;
          if (canary && is_output(a) && takes_canary(spec.args[a].buffer.init)) {
            in["init"] = "canary";
            in["seed"] = used.seed + t;
            in["min"] = used.min;
            in["max"] = used.max;
            in["declared"] = detail::init_json(spec.args[a], t);
          } else {
            in.update(detail::init_json(spec.args[a], t));
          }
          inputs.push_back(std::move(in));
        }
      tj["inputs"] = std::move(inputs);
      if (!canary_dropped.empty()) tj["canary_dropped"] = canary_dropped;
      if (!o0) {
        Diag d = std::move(o0).error();
        d.message = "running K0 (" + where + "): " + d.message;
        return unexpected(std::move(d));
      }
      tj["k0"] = {{"schedule_seed", rq0.schedule_seed}};
      tj["k0"].update(detail::schedule_json(rq0, &*o0));
      tj["k0"]["stop"] = detail::stop_json(*o0);
      // A probe's inputs are the verifier's, not the launch file's: K0 may not be meant for them (a value used as
      // a count, say). Such a probe is skipped, and the receipt says so.
      bool probe_unusable = probe && !o0->ok();
      for (const auto& b : o0->buffers) probe_unusable = probe_unusable || (probe && b.guard_hit);
      if (probe_unusable) {
        tj["skipped"] = "K0 does not run cleanly on these inputs (" +
                        (o0->ok() ? std::string("it writes into guard bytes") : detail::stop_text(*o0)) + ")";
        trials_json.push_back(std::move(tj));
        continue;
      }
      if (probe) ++probe_trials;
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
      ran0.add(*o0);
      OJson k1_runs = OJson::array();
      // A probe aims at the data, not at the schedule: one K1 schedule, a random one.
      const std::uint32_t k1_schedules = probe ? 1u : opt.schedules;
      for (std::uint32_t s = 0; s < k1_schedules && !verdict; ++s) {
        const bool adversarial = !probe && opt.schedules >= 2 && s + 1 == opt.schedules;
        RunRequest rq1{t, next_seed++, points.empty() ? nullptr : &watch1,
                       adversarial ? ScheduleKind::hold_one_wave : ScheduleKind::random};
        rq1.log_compares = !probe && opt.probes && s == 0;
        OJson kj;
        kj["schedule_seed"] = rq1.schedule_seed;
        auto o1 = exec.run(k1, run_spec, rq1);
        if (o1) note_compared(*o1);
        kj.update(detail::schedule_json(rq1, o1 ? &*o1 : nullptr));
        // K1 failed under the adversarial schedule: K0 runs under the very same one. If K0 itself stops there or
        // computes something else than under its random schedule, K0's results depend on the schedule (a race of
        // K0's own) and this run proves nothing about K1: it is recorded and passed over.
        auto k0_differs_under_it = [&]() -> std::optional<std::string> {
          if (!adversarial) return std::nullopt;
          auto again = exec.run(k0, run_spec, RunRequest{t, rq1.schedule_seed, nullptr, rq1.schedule});
          if (!again) return "K0 cannot be run under it: " + again.error().message;
          if (!again->ok()) return "K0 itself stops under it: " + detail::stop_text(*again);
          if (again->buffers.size() != o0->buffers.size()) return "K0 returns other buffers under it";
          for (std::size_t b = 0; b < o0->buffers.size(); ++b)
            if (again->buffers[b].bytes != o0->buffers[b].bytes)
              return "K0's arg" + std::to_string(o0->buffers[b].arg) + " differs from its run under schedule seed " +
                     std::to_string(rq0.schedule_seed);
          return std::nullopt;
        };
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
          if (const auto k0_too = k0_differs_under_it()) {
            kj["passed_over"] = *k0_too;
            k1_runs.push_back(std::move(kj));
            continue;
          }
          k1_runs.push_back(std::move(kj));
          (void)finish(Verdict::not_equivalent, "run", "K1 stopped (" + where + ", " + detail::schedule_text(rq1) +
                                                           "): " + detail::stop_text(*o1));
          verdict = true;
          break;
        }
        ran1.add(*o1);
        if (!o0->lds_extent || !o1->lds_extent) j["lds_bound"] = "not checked: the executor cannot tell how far a run reached into LDS";
        else if (!j.contains("lds_bound")) j["lds_bound"] = "checked";
        if (const auto why = detail::lds_overreach(k0.module.metadata, k1.module.metadata, run_spec, *o0, *o1)) {
          k1_runs.push_back(std::move(kj));
          (void)finish(Verdict::not_equivalent, "run", *why + " (" + where + ")");
          verdict = true;
          break;
        }
        // Every kernarg byte must match but hidden_dynamic_lds_size's, which follows each object's own fixed LDS size
        // (launch/kernargs.hpp kernarg_difference).
        if (const auto why = launch_kernarg_difference(k0.module.metadata, spec, o0->kernarg, o1->kernarg))
          return fail(DiagCode::internal, "the executor gave K0 and K1 different kernarg bytes (" + where + "): " +
                                              *why + "; verification needs identical launches");
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
        if (first_bad)
          if (const auto k0_too = k0_differs_under_it()) {
            kj["passed_over"] = *k0_too;
            k1_runs.push_back(std::move(kj));
            continue;
          }
        k1_runs.push_back(std::move(kj));
        if (first_bad) {
          std::size_t n_bad = 0;
          for (const auto& c : cmps) n_bad += c.ok() ? 0 : 1;
          (void)finish(Verdict::not_equivalent, "run",
                       where + ", " + detail::schedule_text(rq1) + ": " + detail::comparison_text(*first_bad) +
                           (n_bad > 1 ? " (" + std::to_string(n_bad - 1) + " more buffer(s) differ)" : ""));
          verdict = true;
        } else if (!points.empty()) {
          if (!o0->watched || !o1->watched) {
            state_unobserved = true;
          } else if (state_difference(points, *o0->watched, *o1->watched)) {
            // Confirm against a second run of K0 under K1's schedule seed: only what K0 reproduces is compared.
            RunRequest again{t, rq1.schedule_seed, &watch0, rq1.schedule};
            auto o0b = exec.run(k0, run_spec, again);
            if (!o0b) {
              Diag d = std::move(o0b).error();
              d.message = "running K0 again for the state check (" + where + "): " + d.message;
              return unexpected(std::move(d));
            }
            if (o0b->watched && o0b->watched->truncated) j["state_check"]["truncated"] = true;
            if (!o0b->ok() || !o0b->watched) {
              j["state_check"]["status"] = "not checked: K0's second run under schedule seed " +
                                           std::to_string(rq1.schedule_seed) + " did not run cleanly";
            } else if (const auto d = state_difference(points, *o0->watched, *o1->watched, &*o0b->watched)) {
              (void)finish(Verdict::not_equivalent, "state",
                           where + ", " + detail::schedule_text(rq1) +
                               ": the outputs match, but K1's registers after an edit differ from K0's " + *d +
                               " (K0 reproduces its value under K1's schedule seed)");
              verdict = true;
            }
          }
          if (o0->watched && o1->watched && (o0->watched->truncated || o1->watched->truncated))
            j["state_check"]["truncated"] = true;
        }
      }
      tj["k1"] = std::move(k1_runs);
      trials_json.push_back(std::move(tj));
    }
    sj["trials"] = std::move(trials_json);
    shapes_json.push_back(std::move(sj));
  }
  j["shapes"] = std::move(shapes_json);
  if (state_unobserved) j["state_check"]["status"] = "not checked: the executor cannot observe registers";
  if (verdict) return std::move(r);
  // (e') Versioned kernels: the specialized copy must have run on the launch file's shapes, and must agree with K0
  // on launches the guard lets through but the shapes do not show (perturbations: one unguarded scalar argument or
  // grid dimension changed), one K0 and one K1 run each. A perturbation K0 does not run cleanly on is skipped.
  for (const auto& vk : versioning.kernels) {
    j["versioning"][vk.kernel]["copy_ran"] = ran1.known ? OJson(ran1.ran.contains(vk.copy_first.value))
                                                          : OJson("not known: the executor cannot tell");
    if (ran1.known && !ran1.ran.contains(vk.copy_first.value))
      return finish(Verdict::not_equivalent, "coverage",
                    "kernel '" + vk.kernel + "': the guard (" + vk.guard_text() +
                        ") matched no shape of the launch file: the specialized copy never ran");
    OJson list = OJson::array();
    std::optional<std::string> bad;
    for (const Perturbation& pt : perturbations(k0.module, shapes[vk.shape], vk)) {
      OJson e;
      e["change"] = pt.what;
      const RunRequest rq0{0, next_seed++, nullptr};
      auto o0 = exec.run(k0, pt.spec, rq0);
      const OutBuffer* hit = nullptr;
      if (o0)
        for (const auto& b : o0->buffers)
          if (b.guard_hit && !hit) hit = &b;
      if (!o0 || !o0->ok() || hit) {
        e["skipped"] = "K0 does not run cleanly (" +
                       (!o0 ? o0.error().message
                            : !o0->ok() ? detail::stop_text(*o0)
                                        : "it writes into the guard bytes of arg" + std::to_string(hit->arg)) +
                       ")";
        list.push_back(std::move(e));
        continue;
      }
      const RunRequest rq1{0, next_seed++, nullptr};
      auto o1 = exec.run(k1, pt.spec, rq1);
      const std::string off_guard = " when " + pt.what + ", a value the guard does not check";
      if (!o1 || !o1->ok()) {
        e["k1_stop"] = o1 ? detail::stop_json(*o1) : OJson(o1.error().message);
        bad = "kernel '" + vk.kernel + "': the specialized copy " + (o1 ? "stops" : "cannot be launched") + off_guard +
              " (" + detail::schedule_text(rq1) + "): " + (o1 ? detail::stop_text(*o1) : o1.error().message);
      } else if (o1->buffers.size() != o0->buffers.size()) {
        return fail(DiagCode::internal, "the executor returned different buffer sets for K0 and K1 (" + pt.what + ")");
      } else {
        for (std::size_t b = 0; b < o0->buffers.size() && !bad; ++b) {
          const OutBuffer& b0 = o0->buffers[b];
          const OutBuffer& b1 = o1->buffers[b];
          if (b0.arg != b1.arg || b0.bytes.size() != b1.bytes.size() || b0.arg >= pt.spec.args.size() ||
              pt.spec.args[b0.arg].kind != ArgSpec::Kind::buffer)
            return fail(DiagCode::internal, "the executor returned mismatched buffers for K0 and K1 (arg" +
                                                std::to_string(b0.arg) + ")");
          const DType dt = pt.spec.args[b0.arg].buffer.dtype;
          const bool is_out = std::find(pt.spec.outputs.begin(), pt.spec.outputs.end(), b0.arg) != pt.spec.outputs.end();
          BufferComparison c = compare_buffer(dt, b0.bytes, b1.bytes,
                                              is_out && dtype_is_float(dt) ? pt.spec.tolerance_for(dt) : std::nullopt);
          c.arg = b0.arg;
          c.output = is_out;
          c.k0_guard_hit = b0.guard_hit;
          c.k1_guard_hit = b1.guard_hit;
          if (!c.ok()) {
            e["buffer"] = detail::comparison_json(c);
            bad = "kernel '" + vk.kernel + "': the specialized copy disagrees with K0" + off_guard + ": " +
                  detail::comparison_text(c);
          }
        }
      }
      if (o1 && o1->executed)
        e["copy_ran"] = std::find(o1->executed->begin(), o1->executed->end(), vk.copy_first) != o1->executed->end();
      e["verdict"] = bad ? "differ" : "match";
      list.push_back(std::move(e));
      if (bad) break;
    }
    j["versioning"][vk.kernel]["perturbations"] = std::move(list);
    if (bad) return finish(Verdict::not_equivalent, "run", *bad);
  }
  // (f) Every change must have run: code no run executes is not verified by them.
  if (!ran0.known || !ran1.known) {
    j["coverage"] = "not checked: the executor cannot tell which instructions ran";
  } else {
    j["coverage"] = "checked";
    std::unordered_set<std::uint32_t> decided0, skip0, skip1;
    for (const auto& vk : versioning.kernels) {
      decided0.insert(vk.decided0.begin(), vk.decided0.end());
      skip0.insert(vk.prologue0.begin(), vk.prologue0.end());
      skip0.insert(vk.infeasible0.begin(), vk.infeasible0.end());
      skip1.insert(vk.prologue1.begin(), vk.prologue1.end());
    }
    const auto unexercised = unexercised_changes(k0.module, k1s.module, shapes, ran0, ran1, 3, &decided0, &skip0, &skip1);
    OJson uj = OJson::array();
    for (const auto& u : unexercised) uj.push_back({{"kernel", u.kernel}, {"what", u.what}});
    j["unexercised_changes"] = std::move(uj);
    if (!unexercised.empty())
      return finish(Verdict::not_equivalent, "coverage",
                    "kernel '" + unexercised.front().kernel + "': " + unexercised.front().what +
                        (unexercised.size() > 1 ? " (" + std::to_string(unexercised.size() - 1) + " more)" : ""));
  }
  std::size_t runs = 0;
  for (const auto& s : shapes) runs += opt.trials ? *opt.trials : s.trials;
  j["probe_trials"] = probe_trials;
  // (g) On request, a proof: the runs and probes passed, but only the prover covers the inputs they did not draw.
  if (opt.require_proof) {
    OJson pj = OJson::array();
    std::optional<std::string> unproven;
    const Program k1_aligned = detail::with_k0_ids(k0.module.program, k1s.module.program);
    for (std::size_t si = 0; si < shapes.size() && !unproven; ++si) {
      OJson e;
      e["shape"] = si;
      auto facts = launch_facts(k0.module, shapes[si]);
      auto pv = facts ? analysis::EquivalenceProver::make(k0.module.program, *facts)
                      : Expected<analysis::EquivalenceProver>(unexpected(facts.error()));
      analysis::ProofResult pr;
      if (pv) pr = pv->prove(k1_aligned);
      else pr.reason = pv.error().message;
      e["proven"] = pr.proven;
      e["reason"] = pr.reason;
      pj.push_back(std::move(e));
      if (!pr.proven) unproven = (shapes.size() > 1 ? "shape " + std::to_string(si) + ": " : std::string()) + pr.reason;
    }
    j["proof"] = std::move(pj);
    if (unproven)
      return finish(Verdict::not_equivalent, "unproven",
                    "K1 passed every run, but a proof was required and the equivalence prover could not give one: " +
                        *unproven);
  }
  return finish(Verdict::equivalent, "",
                "K1 matches K0 on " + std::to_string(shapes.size()) + " shape(s), " + std::to_string(runs) +
                    " input draw(s), " + std::to_string(opt.schedules) + " K1 schedule(s) each" +
                    (opt.schedules >= 2 ? " (the last holding one wave back in every barrier phase)" : "") + ", and " +
                    std::to_string(probe_trials) + " probe trial(s)");
}

}  // namespace asmevo::verify

#if defined(ASMEVO_SEPARATE_COMPILATION)
// Under separate compilation (support/linkage.hpp) the verifier with the emulator as its executor, the one nearly
// every caller uses, is instantiated once, in src/separate/verify.cpp.
#include "asmevo/verify/emu_executor.hpp"
namespace asmevo::verify {
extern template Expected<Receipt> differential_verify<EmuExecutor>(const CodeObject&, const CodeObject&,
                                                                   std::span<const LaunchSpec>, EmuExecutor&,
                                                                   const VerifyOptions&);
}  // namespace asmevo::verify
#endif
