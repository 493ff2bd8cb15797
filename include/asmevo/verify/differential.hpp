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
//
// This header holds the driver (differential_verify) and its options; the pieces it runs are headers of their own,
// all included here: verify/compare.hpp (buffer comparison), verify/receipt.hpp (verdict and receipt),
// verify/code_alignment.hpp, verify/code_gates.hpp (static findings, approximate semantics, float environment),
// verify/coverage_gate.hpp, verify/state_check.hpp and verify/probes.hpp (canaries and probe trials).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "asmevo/analysis/equivalence.hpp"
#include "asmevo/codeobject/abi.hpp"
#include "asmevo/codeobject/descriptor.hpp"
#include "asmevo/codeobject/metadata.hpp"
#include "asmevo/codeobject/module.hpp"
#include "asmevo/emu/watch.hpp"
#include "asmevo/ir/program.hpp"
#include "asmevo/ir/target.hpp"
#include "asmevo/launch/dtype.hpp"
#include "asmevo/launch/kernargs.hpp"
#include "asmevo/launch/spec_types.hpp"
#include "asmevo/support/diag.hpp"
#include "asmevo/verify/code_alignment.hpp"
#include "asmevo/verify/code_gates.hpp"
#include "asmevo/verify/compare.hpp"
#include "asmevo/verify/coverage_gate.hpp"
#include "asmevo/verify/detail/id_text.hpp"
#include "asmevo/verify/executor.hpp"
#include "asmevo/verify/launch_facts.hpp"
#include "asmevo/verify/memory_model.hpp"
#include "asmevo/verify/probes.hpp"
#include "asmevo/verify/receipt.hpp"
#include "asmevo/verify/state_check.hpp"
#include "asmevo/verify/static_checks.hpp"
#include "asmevo/verify/versioning.hpp"

namespace asmevo::verify {

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

namespace detail {

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

}  // namespace detail

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
