// The gates that reject K1 from its code alone, before anything runs: static findings K0 does not explain at the
// same place, instructions the emulator only approximates that K1 adds or changes, and changes to the floating-point
// environment. Not here: the ABI check (codeobject/abi.hpp), the memory model (verify/memory_model.hpp), the
// coverage gate (verify/coverage_gate.hpp), the runs (verify/differential.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/findings.hpp"
#include "asmevo/codeobject/descriptor.hpp"
#include "asmevo/codeobject/module.hpp"
#include "asmevo/emu/semantics.hpp"
#include "asmevo/ir/gen/isa_tables.hpp"
#include "asmevo/ir/op.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/support/linkage.hpp"
#include "asmevo/verify/code_alignment.hpp"
#include "asmevo/verify/detail/id_text.hpp"
#include "asmevo/verify/static_checks.hpp"

namespace asmevo::verify {

namespace detail {

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

}  // namespace asmevo::verify
