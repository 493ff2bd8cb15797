// Per-pass property harness: runs any Pass on random well-formed programs (random_program.hpp) with random inputs
// and checks what every pass must keep: same output memory on the CPU emulator, checker-clean output, idempotence
// where claimed, no growth in instructions or modeled cycles, and an edit log that undoes and replays exactly.
//
// Use: `EXPECT_TRUE(check_pass_properties(MyPass{}, opts))` inside a TEST; rapidcheck prints its seed and, on a
// failure, the shrunk program and an RC_PARAMS="reproduce=..." line. check_pass_once is the body of one case: it
// returns the first broken property instead of asserting, so a test can check that the harness catches a bad pass.
//
// How a program runs (run_random_program): one workgroup of 1..4 full waves on the emulator's run-time core
// (emu/machine.hpp), with adversarial memory completion (outstanding operations complete as late and in whatever
// order the ISA permits, so a missing s_waitcnt stops the run), the wait-state check on (emu/hazards.hpp: a hazard
// stops the run) and the cost model's step hook (model/timing.hpp trace_step) tracing every wave; the modeled cycles
// are model::model_timing of those traces, as verify::EmuExecutor::time gets them for a whole launch. Registers the
// layout does not set start as seeded garbage, different for the original and the transformed run, so a pass that
// makes the program read a register nothing wrote changes the output.
#pragma once

#include <rapidcheck.h>

#include <cmath>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/hazard_check.hpp"
#include "asmevo/analysis/waitcnt_check.hpp"
#include "asmevo/emu/decode.hpp"
#include "asmevo/emu/hazards.hpp"
#include "asmevo/emu/machine.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/model/timing.hpp"
#include "asmevo/passes/pass.hpp"
#include "asmevo/passes/rewriter.hpp"
#include "passes/random_program.hpp"

namespace asmevo::test {

// ---- inputs ------------------------------------------------------------------------------------------------------

/// What a run reads besides the program: buffer contents (from a fill style and a seed), the scalar arguments,
/// and the seeds of the two runs (wave interleaving, completion order and register garbage).
struct ProgramInputs {
  enum class Fill : std::uint8_t { bits, small_ints, floats, sparse };
  Fill fill = Fill::bits;
  std::uint64_t data_seed = 0;
  std::uint32_t s6 = 0, s7 = 0;
  std::uint64_t seed_before = 1, seed_after = 2;
};

[[nodiscard]] inline const char* to_string(ProgramInputs::Fill f) noexcept {
  constexpr const char* n[] = {"bits", "small_ints", "floats", "sparse"};
  return n[static_cast<unsigned>(f)];
}

inline void showValue(const ProgramInputs& in, std::ostream& os) {
  os << "fill " << to_string(in.fill) << " seed " << in.data_seed << ", s6 " << in.s6 << ", s7 " << in.s7
     << ", schedule seeds " << in.seed_before << " / " << in.seed_after;
}

/// Scalar arguments weighted toward the values arithmetic gets wrong (0, 1, all ones, the sign bit, 1.0f).
[[nodiscard]] inline rc::Gen<std::uint32_t> gen_scalar_arg() {
  return rc::gen::weightedOneOf<std::uint32_t>({{3, rc::gen::resize(100, rc::gen::arbitrary<std::uint32_t>())},
                                                {2, rc::gen::inRange<std::uint32_t>(0, 65)},
                                                {1, rc::gen::element<std::uint32_t>(0u, 1u, 0xffffffffu, 0x80000000u,
                                                                                    0x3f800000u, 0x7fffffffu)}});
}

[[nodiscard]] inline rc::Gen<ProgramInputs> gen_inputs() {
  using F = ProgramInputs::Fill;
  return rc::gen::build<ProgramInputs>(
      rc::gen::set(&ProgramInputs::fill,
                   rc::gen::weightedElement<F>({{3, F::bits}, {2, F::small_ints}, {2, F::floats}, {1, F::sparse}})),
      rc::gen::set(&ProgramInputs::data_seed, rc::gen::resize(100, rc::gen::arbitrary<std::uint64_t>())),
      rc::gen::set(&ProgramInputs::s6, gen_scalar_arg()), rc::gen::set(&ProgramInputs::s7, gen_scalar_arg()),
      rc::gen::set(&ProgramInputs::seed_before, rc::gen::resize(100, rc::gen::arbitrary<std::uint64_t>())),
      rc::gen::set(&ProgramInputs::seed_after, rc::gen::resize(100, rc::gen::arbitrary<std::uint64_t>())));
}

namespace detail {
[[nodiscard]] inline std::uint64_t mix64(std::uint64_t& x) noexcept {  // splitmix64
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
/// `bytes` of input in the fill style of `in` (`salt` tells buffers apart).
[[nodiscard]] inline std::vector<std::byte> fill_bytes(const ProgramInputs& in, std::size_t bytes, std::uint64_t salt) {
  std::vector<std::byte> b(bytes);
  std::uint64_t x = in.data_seed ^ (salt * 0x632be59bd9b4e019ull);
  for (std::size_t i = 0; i + 4 <= bytes; i += 4) {
    const std::uint64_t r = mix64(x);
    std::uint32_t w = static_cast<std::uint32_t>(r);
    switch (in.fill) {
      case ProgramInputs::Fill::bits: break;
      case ProgramInputs::Fill::small_ints:
        w = static_cast<std::uint32_t>(static_cast<std::int32_t>(r % 33) - 16);
        break;
      case ProgramInputs::Fill::floats: {  // f32 in [-4, 4), and now and then an f16 pair of small values
        float f = static_cast<float>(static_cast<double>(r >> 40) / static_cast<double>(1ull << 24) * 8.0 - 4.0);
        std::memcpy(&w, &f, 4);
        if ((r & 7) == 0) w = 0x3c003800u;  // f16 (1.0, 0.5)
        break;
      }
      case ProgramInputs::Fill::sparse: w = (r & 3) == 0 ? static_cast<std::uint32_t>(r >> 32) : 0; break;
    }
    std::memcpy(b.data() + i, &w, 4);
  }
  return b;
}
}  // namespace detail

// ---- one run -----------------------------------------------------------------------------------------------------

/// What one run of a program did.
struct RunResult {
  emu::Stop stop;                   ///< kind none: every wave reached s_endpgm
  std::string error;                ///< the program could not be decoded (not a run at all)
  std::vector<std::byte> out, in;   ///< the output and input buffers after the run
  std::uint64_t wave_instructions = 0;  ///< dynamic instructions over all waves
  std::uint64_t cycles = 0;         ///< model::model_timing modeled cycles (0 when the run stopped)
  [[nodiscard]] bool ok() const noexcept { return error.empty() && stop.kind == emu::Stop::Kind::none; }
};

/// Runs `p` (a program with random_program.hpp's layout, entered at its first instruction) as one workgroup of
/// `waves` waves with inputs `in`; `seed` picks the wave interleaving, the completion order and the garbage the
/// registers the layout does not set start with.
[[nodiscard]] inline RunResult run_random_program(const Program& p, unsigned waves, const ProgramInputs& in,
                                                  std::uint64_t seed) {
  using namespace emu;
  RunResult res;
  DecodeInput din;
  din.program = &p;
  auto code = decode_program(din);
  if (!code) {
    res.error = "does not decode: " + code.error().message;
    return res;
  }
  Machine m;
  m.target = p.target;
  m.code = &*code;
  m.options.seed = seed;
  m.options.completion = Completion::adversarial;
  m.options.instruction_limit = 1u << 20;  // the generator's loops run at most 4 trips: a hang is a bug
  m.options.threads = 1;
  const unsigned lanes = waves * wave_lanes;
  // Both buffers across a 4 GiB boundary (as emu::emulate places them), so a lost carry in an address faults.
  const std::size_t rin = m.memory.map_straddling("in", std::size_t{lanes} * kInBytesPerLane, true);
  const std::size_t rout = m.memory.map_straddling("out", std::size_t{lanes} * kOutBytesPerLane, true);
  m.memory.skip_to_next_window();
  const std::size_t rsm = m.memory.map("smem", kSmemBytes, false);
  {
    const auto a = detail::fill_bytes(in, m.memory.region(rin).bytes.size(), 1);
    std::memcpy(m.memory.region(rin).bytes.data(), a.data(), a.size());
    const auto c = detail::fill_bytes(in, kSmemBytes, 3);
    std::memcpy(m.memory.region(rsm).bytes.data(), c.data(), c.size());
  }
  const std::uint64_t in_base = m.memory.region(rin).base, out_base = m.memory.region(rout).base,
                      sm_base = m.memory.region(rsm).base;

  HazardTable htable = build_hazard_table(*code, p.target, analysis::program_xnack(p));
  m.hooks.before = &hazard_check;
  m.hooks.after = &trace_step;
  std::vector<HazardState> hstates(waves);
  const TraceConfig tcfg = model::trace_config(model::timing_params(p.target));
  WaveTrace blank;
  blank.config = &tcfg;
  std::vector<WaveTrace> traces(waves, blank);

  Workgroup g;
  g.lds.assign(65536, std::byte{0});
  g.rng = Rng(seed * 0x9e3779b97f4a7c15ull);
  std::uint64_t garbage = seed ^ 0x5bd1e995u;
  for (unsigned i = 0; i < waves; ++i) {
    g.waves.push_back(std::make_unique<Wave>());
    Wave& w = *g.waves.back();
    init_wave(w, m, g, 0, i, 256, 256);
    for (unsigned r = 0; r < 256; ++r)
      for (unsigned l = 0; l < wave_lanes; ++l) {
        w.row(r)[l] = static_cast<std::uint32_t>(detail::mix64(garbage));
        w.row(agpr_row0 + r)[l] = static_cast<std::uint32_t>(detail::mix64(garbage));
      }
    for (unsigned s = 0; s < 102; ++s) w.s[s] = static_cast<std::uint32_t>(detail::mix64(garbage));
    w.set_vcc(detail::mix64(garbage));
    w.s[sc::m0] = static_cast<std::uint32_t>(detail::mix64(garbage));
    // The layout's arguments (random_program.hpp): v0 = flat id, s[0:1] in, s[2:3] out, s[4:5] smem, s6, s7.
    for (unsigned l = 0; l < wave_lanes; ++l) w.row(0)[l] = i * wave_lanes + l;
    w.set_s64(0, in_base);
    w.set_s64(2, out_base);
    w.set_s64(4, sm_base);
    w.s[6] = in.s6;
    w.s[7] = in.s7;
    w.set_exec(~0ull);
    // MODE as a HIP kernel starts (tests/verify/emu_harness.hpp): round to nearest even, denormals kept, DX10 clamp
    // and IEEE on (MI300 ISA §3.3).
    w.mode = 0x3f0;
    w.vgpr_limit = 256;
    w.agpr_limit = 256;
    w.sgpr_limit = 102;
    hstates[i].reset(&htable);
    w.hazards = &hstates[i];
    w.trace = &traces[i];
  }
  run_workgroup(g, m);
  res.stop = g.stop;
  for (const auto& w : g.waves) res.wave_instructions += w->executed;
  res.out = m.memory.region(rout).bytes;
  res.in = m.memory.region(rin).bytes;
  if (res.stop.kind == Stop::Kind::none) {
    model::TimingInput ti;
    ti.target = p.target;
    ti.code = &*code;
    // The same allocation for every run, so that occupancy never differs between the original and the result.
    ti.vgprs = 64;
    ti.agprs = 16;
    ti.sgprs = 48;
    ti.lds_bytes = 65536;
    ti.waves_per_group = waves;
    ti.workgroups = 1;
    std::vector<std::vector<WaveTrace>> groups{std::move(traces)};
    ti.groups = groups;
    res.cycles = model::model_timing(ti).modeled_cycles;
  }
  return res;
}

// ---- the properties ----------------------------------------------------------------------------------------------

/// What a pass claims, and how to test it.
struct PropertyOptions {
  /// What the pass is told. Empty kernels: {"k"}, the generated programs' one kernel.
  passes::PassContext context;
  /// Check that a second run makes zero edits. Unset: what the pass declares (`static constexpr bool idempotent`,
  /// which the built-in passes state next to the doc comment that claims it), false if it declares nothing.
  std::optional<bool> idempotent;
  /// Tests of the harness itself turn this off to see property (1) catch what the static checkers would (2).
  bool static_checks_after = true;
  /// Non-empty: why the pass may add instructions (e.g. it inserts s_nop); property (4) is skipped.
  std::string may_grow;
  /// Non-empty: why the pass may add modeled cycles. Property (5) then allows `cycle_slack` (a fraction: 0.01 is
  /// 1% more), or any growth when cycle_slack is 0.
  std::string may_slow;
  double cycle_slack = 0;
  /// 0: output memory must match bit for bit. Otherwise output dwords are compared as f32 with this relative
  /// tolerance (NaN matches NaN): for a pass that reassociates floating-point arithmetic.
  double f32_tolerance = 0;
  /// Targets to generate for (empty: gfx90a, gfx942, gfx950).
  std::vector<Target> targets;
};

/// Which property a case broke.
enum class Broken : std::uint8_t {
  generator,     ///< the generated program itself is not clean (a generator bug, reported as such)
  pass_error,    ///< the pass returned an error
  undo,          ///< undoing the log did not restore the original text (with ids) and next id
  replay,        ///< replaying the log on the original did not give the same program
  static_check,  ///< check_waitcnt or check_hazards reports a finding after the pass
  run_stopped,   ///< the transformed program stopped (fault, waitcnt, hazard, ...) on the emulator
  outputs,       ///< output (or input) memory differs
  idempotence,   ///< a second run made edits
  growth,        ///< more instructions
  cycles,        ///< more modeled cycles
};

[[nodiscard]] constexpr const char* to_string(Broken b) noexcept {
  constexpr const char* n[] = {"generator", "pass error", "undo", "replay", "static check", "run stopped",
                               "outputs differ", "idempotence", "more instructions", "more modeled cycles"};
  return n[static_cast<unsigned>(b)];
}

struct PropertyFailure {
  Broken broken;
  std::string message;
};

/// What one case measured (for classification and the test's own checks).
struct CaseReport {
  std::size_t edits = 0;
  std::size_t insts_before = 0, insts_after = 0;
  std::uint64_t cycles_before = 0, cycles_after = 0;  ///< modeled, on one wave (see check_pass_once)
  std::uint64_t dyn_before = 0, dyn_after = 0;
};

// Helpers the tests of the generator use too.

/// One line per finding.
[[nodiscard]] inline std::string findings_text(const analysis::Findings& f) {
  std::string s;
  for (const auto& x : f) s += "  " + x.rule + ": " + x.message + "\n";
  return s;
}
/// Both static checkers on the kernel entered at `k`.
[[nodiscard]] inline analysis::Findings static_findings(const Program& p) {
  const analysis::Cfg g = analysis::build_cfg(p);
  const auto entry = g.block_named("k");
  if (!entry) return {analysis::Finding{"no-kernel", analysis::Severity::error, {}, {}, "no block starts at label k"}};
  analysis::Findings f = analysis::check_waitcnt(p, g, *entry, p.target);
  for (auto& h : analysis::check_hazards(p, g, *entry, p.target, analysis::program_xnack(p))) f.push_back(std::move(h));
  return f;
}
/// Why a run did not end cleanly.
[[nodiscard]] inline std::string stop_text(const RunResult& r) {
  if (!r.error.empty()) return r.error;
  return std::string(emu::to_string(r.stop.kind)) + " at i" + std::to_string(r.stop.inst.value) + ": " + r.stop.message;
}
/// The first differing dword of two buffers, or empty.
[[nodiscard]] inline std::string compare_words(const std::vector<std::byte>& a, const std::vector<std::byte>& b,
                                               double tol, unsigned bytes_per_lane, const char* what) {
  if (a.size() != b.size()) return std::string(what) + " sizes differ";
  for (std::size_t i = 0; i + 4 <= a.size(); i += 4) {
    std::uint32_t x, y;
    std::memcpy(&x, a.data() + i, 4);
    std::memcpy(&y, b.data() + i, 4);
    if (x == y) continue;
    if (tol > 0) {
      float fx, fy;
      std::memcpy(&fx, &x, 4);
      std::memcpy(&fy, &y, 4);
      if (std::isnan(fx) && std::isnan(fy)) continue;
      const double dx = fx, dy = fy;
      if (std::fabs(dx - dy) <= tol * std::max(std::fabs(dx), std::fabs(dy))) continue;
    }
    const std::size_t dword = (i % bytes_per_lane) / 4;
    std::ostringstream os;
    os << what << " differs at byte " << i << " (lane " << i / bytes_per_lane << ", dword " << dword << " of the lane"
       << (bytes_per_lane == kOutBytesPerLane ? ": v" + std::to_string(kValue0 + dword) : std::string()) << "): 0x"
       << std::hex << x << " before, 0x" << y << " after";
    return os.str();
  }
  return {};
}

/// Whether the idempotence property applies (PropertyOptions::idempotent).
template <passes::Pass P>
[[nodiscard]] bool claims_idempotence(const P&, const PropertyOptions& opt) {
  if (opt.idempotent) return *opt.idempotent;
  if constexpr (requires { { P::idempotent } -> std::convertible_to<bool>; }) return P::idempotent;
  return false;
}

/// One case: `pass` on `rp` with inputs `in`. Returns the first property it breaks, or nothing. Checks, in order:
/// the original is clean (static checkers, emulator); (6) undo restores the original text and ids exactly, and the
/// log replays on a fresh copy to the same result; (2) static checkers clean after; (4) no more instructions;
/// (1) the result runs cleanly and writes the same memory; (5) no more modeled cycles (on one wave; see below);
/// (3) idempotence if claimed.
template <passes::Pass P>
[[nodiscard]] std::optional<PropertyFailure> check_pass_once(const P& pass, const RandomProgram& rp,
                                                             const ProgramInputs& in, const PropertyOptions& opt,
                                                             CaseReport* report = nullptr) {
  using B = Broken;
  auto fail = [](B b, std::string m) { return std::optional<PropertyFailure>(PropertyFailure{b, std::move(m)}); };
  if (!rp.parse_error.empty()) return fail(B::generator, "the generated text does not parse: " + rp.parse_error);
  const Program& original = rp.program;
  if (auto f = static_findings(original); !f.empty())
    return fail(B::generator, "the generated program is not checker-clean:\n" + findings_text(f));

  passes::PassContext ctx = opt.context;
  if (ctx.kernels.empty()) ctx.kernels = {"k"};
  const std::string text0 = print_program(original);

  // Run the pass on a copy; keep its log and result, then undo it all.
  Program work = original;
  passes::Rewriter rw(work);
  auto stats = passes::run_pass(pass, rw, ctx);
  if (!stats) return fail(B::pass_error, std::string(P::name) + " failed: " + stats.error().message);
  const std::vector<passes::Edit> log = rw.log();
  const Program after = work;
  const std::string text1 = print_program(after);
  if (report) {
    report->edits = log.size();
    report->insts_before = original.instruction_count();
    report->insts_after = after.instruction_count();
  }
  rw.undo();
  if (const std::string t = print_program(work); t != text0 || work.next_id != original.next_id)
    return fail(B::undo, "undoing " + std::to_string(log.size()) + " edits gives\n" + t + "\ninstead of the original");
  {
    Program again = original;
    passes::Rewriter r2(again);
    if (auto r = r2.replay(log); !r)
      return fail(B::replay, "the log does not replay on the original: " + r.error().message);
    if (print_program(again) != text1)
      return fail(B::replay, "replaying the log gives\n" + print_program(again) + "\ninstead of\n" + text1);
  }

  if (auto f = static_findings(after); opt.static_checks_after && !f.empty())
    return fail(B::static_check, "after " + std::string(P::name) + ":\n" + findings_text(f) + text1);
  if (opt.may_grow.empty() && after.instruction_count() > original.instruction_count())
    return fail(B::growth, std::to_string(original.instruction_count()) + " instructions before, " +
                               std::to_string(after.instruction_count()) + " after:\n" + text1);

  const RunResult r0 = run_random_program(original, rp.spec.waves, in, in.seed_before);
  if (!r0.ok()) return fail(B::generator, "the generated program stops: " + stop_text(r0));
  const RunResult r1 = run_random_program(after, rp.spec.waves, in, in.seed_after);
  if (report) {
    report->dyn_before = r0.wave_instructions;
    report->dyn_after = r1.wave_instructions;
  }
  if (!r1.ok()) return fail(B::run_stopped, "after " + std::string(P::name) + ": " + stop_text(r1) + "\n" + text1);
  if (auto d = compare_words(r0.out, r1.out, opt.f32_tolerance, kOutBytesPerLane, "output"); !d.empty())
    return fail(B::outputs, d + "\n" + text1);
  if (auto d = compare_words(r0.in, r1.in, 0, kInBytesPerLane, "input buffer"); !d.empty())
    return fail(B::outputs, d + "\n" + text1);
  // (5) on one wave. With several, the cost model issues the waves' instructions greedily, and a greedy schedule is
  // not monotone (Graham 1969, "Bounds on multiprocessing timing anomalies"): a wave that gets shorter can make the
  // workgroup finish later. Measured before this choice: nop-min, which only shrinks s_nops, made 3 of 1500
  // multi-wave cases up to 1.3% slower, and none of 1500 single-wave ones. One wave still sees every instruction.
  std::uint64_t c0 = r0.cycles, c1 = r1.cycles;
  if (rp.spec.waves > 1) {
    const RunResult t0 = run_random_program(original, 1, in, in.seed_before);
    const RunResult t1 = run_random_program(after, 1, in, in.seed_after);
    if (!t0.ok()) return fail(B::generator, "the generated program stops on one wave: " + stop_text(t0));
    if (!t1.ok())
      return fail(B::run_stopped, "after " + std::string(P::name) + ", on one wave: " + stop_text(t1) + "\n" + text1);
    c0 = t0.cycles;
    c1 = t1.cycles;
  }
  if (report) {
    report->cycles_before = c0;
    report->cycles_after = c1;
  }
  const double allowed = static_cast<double>(c0) * (1 + opt.cycle_slack);
  const bool too_slow = opt.may_slow.empty() ? c1 > c0 : opt.cycle_slack > 0 && static_cast<double>(c1) > allowed;
  if (too_slow)
    return fail(B::cycles, std::to_string(c0) + " modeled cycles before, " + std::to_string(c1) + " after (one wave)" +
                               (opt.may_slow.empty() ? std::string() : ", beyond the slack for: " + opt.may_slow) +
                               ":\n" + text1);

  if (claims_idempotence(pass, opt)) {
    Program twice = after;
    passes::Rewriter r3(twice);
    auto s2 = passes::run_pass(pass, r3, ctx);
    if (!s2) return fail(B::pass_error, "second run of " + std::string(P::name) + " failed: " + s2.error().message);
    if (!r3.log().empty()) {
      std::string edits;
      for (const auto& e : r3.log())
        edits += "  " + std::string(passes::to_string(e.op)) + " i" + std::to_string(e.at.value) + " (" + e.why + ")\n";
      return fail(B::idempotence, "a second run made " + std::to_string(r3.log().size()) + " edits:\n" + edits + text1);
    }
  }
  return std::nullopt;
}

/// The property over random programs and inputs: rc::check of check_pass_once. Returns rapidcheck's verdict
/// (false after a failure, which rapidcheck has printed with its seed and the shrunk case). Cases per property come
/// from RC_PARAMS (the test file sets a small default; RC_PARAMS="max_success=2000" raises it).
template <passes::Pass P>
bool check_pass_properties(const P& pass, PropertyOptions opt = {}) {
  return rc::check(std::string(P::name) + ": semantics, checkers, size, cycles, undo" +
                       (claims_idempotence(pass, opt) ? ", idempotence" : ""),
                   [&] {
                     const RandomProgram rp = *gen_random_program(opt.targets);
                     const ProgramInputs in = *gen_inputs();
                     CaseReport rep;
                     const auto f = check_pass_once(pass, rp, in, opt, &rep);
                     RC_TAG(to_string(rp.spec.target));
                     RC_CLASSIFY(rep.edits > 0, "edited");
                     if (f) RC_FAIL(std::string(to_string(f->broken)) + ": " + f->message);
                   });
}

}  // namespace asmevo::test
