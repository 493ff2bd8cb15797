// The cost model's parameters for each target: issue cadences, latencies, bandwidths and occupancy limits, each
// value with the source it comes from, or the words "no authoritative figure" and why the value was chosen.
//
// The memory figures are calibrated against published measurements (bench/calibrate prints the model's figure
// beside each one). The sources, by the tags the parameters cite:
//  [RRZE]  D. Ernst et al., RRZE-HPC gpu-benches (github.com/RRZE-HPC/gpu-benches): gpu-latency (single-lane pointer
//          chase in random order, its elements 64 bytes apart: skip_factor 8 of 8-byte elements, so a chase step
//          within one 128-byte line hits more often than ours, which steps a whole line), gpu-stream, gpu-cache,
//          gpu-l2-stream; result files for MI300X and MI210.
//  [MT4G]  caps-tum mt4g (github.com/caps-tum/mt4g), sample results for "AMD Instinct MI300X VF" and "AMD Instinct
//          MI210": pointer-chase latencies timed with s_memtime, cache sizes, bandwidths.
//  [CC]    Chips and Cheese: "Testing AMD's Giant MI300X" (C. Lam, G. Cozma, 2024), "AMD's Radeon Instinct MI210:
//          GCN Lives On" (C. Lam, 2023), "AMD's CDNA 3 Compute Architecture" (2023).
//  [FLEET] github.com/GolfOscarr/fleet-amd-task, the hardware collections under env/hw/20260915, env/hw/20260916 and
//          env/hw/20260917 (MI300X, ROCm 7.2.4, one VM a day): stream_read with N loads in flight, chase latencies,
//          BabelStream.
//  [WP3]   AMD, "Introducing AMD CDNA 3 Architecture" white paper; [DS] AMD Instinct data sheets (MI300X, MI250X,
//          MI210).
//  [SHARK] J. Kuderski, "AMDGPU Kernel Optimization Guide" (nod-ai/amd-shark-ai docs).
// A latency here is load-to-use of one idle access, in cycles of the peak clock (clock_mhz): a figure published in
// ns is converted at that clock, a figure in cycles is taken as it is.
#pragma once

#include <string_view>

#include "asmevo/ir/target.hpp"

namespace asmevo::model {

/// One model parameter: its value (cycles of the shader clock, bytes, or a count, as the field says) and where it
/// comes from. Values marked "no authoritative figure" are choices; change them here and nowhere else.
struct Param {
  unsigned value = 0;
  std::string_view source;
};

/// Everything the per-CU cost model (timing.hpp) knows about a target. Cycles are shader-engine clock cycles.
struct TimingParams {
  Target target = Target::gfx942;
  std::string_view device;   ///< the device whose counts are used (the CU count in particular)
  Param clock_mhz;           ///< peak engine clock, only to turn modeled cycles into a time estimate
  // ---- the compute unit -------------------------------------------------------------------------------------
  Param cus;                 ///< compute units of the device: a launch's workgroups are spread over them
  Param simds_per_cu;
  Param issue_interval;      ///< cycles between two instructions of one wave (one issue opportunity per SIMD)
  // ---- issue cost per instruction class (cycles a wave64 instruction holds its unit) ---------------------------
  Param valu;                ///< full-rate VALU (f32, i32, f16, packed f16/f32, dot, 64-bit moves/shifts)
  Param valu_trans;          ///< transcendental (v_exp/v_log/v_rcp/v_rsq/v_sqrt/v_sin/v_cos, f32 and f16)
  Param valu_f64;            ///< f64 FMA/add/mul
  Param valu_trans_f64;      ///< v_rcp_f64 / v_rsq_f64 / v_sqrt_f64
  Param valu_latency;        ///< a VALU result is usable by a dependent instruction this many cycles after issue
  Param salu;                ///< SALU issue cost and result latency
  Param branch_taken;        ///< extra cycles of a taken branch (instruction fetch restarts)
  Param wait_state;          ///< cycles per s_nop wait state
  Param sleep_unit;          ///< cycles per s_sleep count
  Param mfma_pass;           ///< cycles per MFMA pass (MfmaInfo::passes counts passes)
  Param mfma_writeback;      ///< cycles after the last pass before a VALU / srcA/B reader may use the result
  // ---- memory: LDS and the scalar cache ---------------------------------------------------------------------
  Param lds_latency;         ///< ds_read issue to data in VGPRs, no bank conflicts, idle LDS
  Param lds_bytes_per_cycle; ///< LDS bandwidth of one CU
  Param lds_banks;           ///< dword-wide banks
  Param smem_latency;        ///< s_load / s_buffer_load that hits the scalar L1
  Param smem_miss;           ///< added when the scalar L1 misses and the line comes from L2
  Param scalar_cache_bytes;  ///< scalar L1 of one CU's share
  Param scalar_line;         ///< bytes per scalar-L1 line
  // ---- memory: the vector hierarchy a working set walks, L1 -> L2 -> MALL -> HBM ----------------------------------
  Param vmem_issue;          ///< cycles the CU's vector memory pipe spends on a wave64 instruction (address rate)
  Param cache_line;          ///< bytes per L2 cache line (the unit a wave's access is split into)
  Param l1_bytes;            ///< vector L1 of one CU
  Param l1_bytes_per_cycle;  ///< vector L1 data return bandwidth of one CU; also caps what one CU gets from below
  Param l1_latency;          ///< load-to-use of a vector L1 hit, idle
  Param l2_bytes;            ///< one L2 (one per XCD on gfx942/gfx950, one per GCD on gfx90a)
  Param cus_per_l2;          ///< CUs that share one L2 (and one TLB)
  Param l2_bytes_per_cycle;  ///< one L2's bandwidth to its CUs
  Param l2_latency;          ///< load-to-use of an L2 hit (an L1 miss), idle; also a global atomic's round trip
  Param mall_bytes;          ///< the device's Infinity Cache (memory-attached last level); 0: none
  Param mall_bytes_per_cycle;  ///< the device's Infinity Cache bandwidth
  Param mall_latency;        ///< load-to-use of an Infinity Cache hit, idle
  Param hbm_latency;         ///< load-to-use of an access that misses every cache, idle, TLB hit
  Param hbm_bytes_per_cycle;       ///< the device's HBM bandwidth as measured: the model uses this one
  Param hbm_peak_bytes_per_cycle;  ///< the device's HBM bandwidth on the data sheet: kept beside, not used
  Param page_bytes;          ///< the translation granule the TLB holds
  Param tlb_entries;         ///< translations one L2 domain keeps (shared by its CUs)
  Param tlb_miss;            ///< cycles a TLB miss adds to an access
  Param barrier;             ///< s_barrier release after the last wave of the workgroup arrives
  Param workgroup_launch;    ///< cycles from a workgroup slot freeing to its successor's first issue
  // ---- occupancy ----------------------------------------------------------------------------------------------
  Param vgprs_per_simd;      ///< VGPRs (+ AGPRs: one unified file) per lane per SIMD
  Param vgpr_granule;        ///< allocation granule of the unified VGPR/AGPR file
  Param lds_per_cu;          ///< bytes of LDS per CU
  Param lds_granule;         ///< bytes: a workgroup's LDS is allocated in whole granules of this size
  Param max_waves_per_simd;
  Param max_workgroups_per_cu;  ///< for workgroups of more than one wave (barrier resources)
};

namespace detail {

/// Parameters shared by gfx90a, gfx942 and gfx950 (all GCN-family CDNA compute units); the target-specific
/// ones are overwritten below.
[[nodiscard]] constexpr TimingParams cdna_common() {
  TimingParams p;
  p.simds_per_cu = {4, "AMD CDNA 3 white paper and CDNA 2 white paper: a compute unit has four SIMD units"};
  p.issue_interval = {4, "GCN-family issue: each SIMD gets an issue opportunity every 4 cycles and issues at most one "
                         "instruction per wave in it (AMD GCN architecture white paper, kept by CDNA)"};
  p.valu = {4, "16-lane SIMD runs a wave64 over 4 cycles (CDNA 3 white paper: 16-wide SIMDs); LLVM SISchedule.td "
               "SIDPFullSpeedModel / SIDPGFX940FullSpeedModel give Write32Bit, WriteFloatFMA, Write64Bit and "
               "WriteIntMul all rate 1"};
  p.valu_trans = {16, "quarter rate: LLVM SISchedule.td SICommonWriteRes WriteTrans32 = 4 x Write32Bit"};
  p.valu_f64 = {4, "full-rate FP64 on gfx90a/gfx94x: LLVM SISchedule.td SIDPFullSpeedModel and "
                   "SIDPGFX940FullSpeedModel WriteDouble = 1 (same as Write32Bit)"};
  p.valu_trans_f64 = {16, "LLVM SISchedule.td SIDPFullSpeedModel / SIDPGFX940FullSpeedModel WriteTrans64 = 4 "
                          "(quarter rate)"};
  p.valu_latency = {4, "no authoritative figure: GCN-family VALUs need no wait states between a VALU write and a "
                       "dependent VALU read (LLVM GCNHazardRecognizer has no such rule), so one issue interval"};
  p.salu = {4, "LLVM SISchedule.td WriteSALU = 1 (one issue opportunity); SALU results are usable by the next "
               "instruction (no SALU->SALU wait states in the ISA guide's table of required waits)"};
  p.branch_taken = {16, "no authoritative figure: LLVM SISchedule.td WriteBranch = 8 scheduler units, whose "
                        "comment says the numbers 'may not be accurate'; 16 cycles for the instruction refetch"};
  p.wait_state = {4, "MI300 ISA (CDNA3) S_NOP inserts SIMM16[3:0]+1 wait states; no authoritative cycle figure: "
                     "a wait state is taken as one of the wave's issue slots (issue_interval), which is what makes the "
                     "MFMA table's distances (below) cover an MFMA's passes"};
  p.sleep_unit = {64, "MI300 ISA (CDNA3) S_SLEEP: sleeps approximately 64 x SIMM16 clocks"};
  p.mfma_pass = {4, "MI300 ISA (CDNA3) §7.1 'passes': one MFMA pass is 4 cycles (the unit of MfmaInfo::passes "
                    "and of the dependency tables); LLVM SISchedule.td Write{2,4,8,16}PassMAI"};
  p.mfma_writeback = {12, "MI300 ISA (CDNA3) MFMA dependency-resolution table / LLVM GCNHazardRecognizer::checkMAIVALUHazards: "
                          "an XDL result read as srcA/B or by a VALU needs passes + 3 wait states (e.g. 11 after an "
                          "8-pass op); the 3 beyond the passes at 4 cycles per wait state"};
  p.lds_latency = {50, "[MT4G] LDS pointer chase: 51 cycles on MI300X, 50 on MI210 (one access of a chase, a "
                       "conflict-free dword); the model adds the access's LDS pipeline cycle"};
  p.lds_bytes_per_cycle = {128, "[SHARK] 'Workgroup Memory (LDS)': 128 bytes per clock per CU on MI300X (32 banks x 4 "
                                "bytes, one access per bank per clock; bank count: MI300 ISA, Data Share Operations)"};
  p.lds_banks = {32, "MI300 ISA (CDNA3) Data Share Operations: 32 banks, each one dword wide"};
  p.smem_latency = {48, "[MT4G] scalar L1 pointer chase: 48 cycles on MI300X and on MI210 (mean = median)"};
  p.smem_miss = {124, "[MT4G] scalar L1 miss penalty: 123.9 cycles on MI300X (127-132 on MI210)"};
  p.scalar_cache_bytes = {16384, "[WP3] / ROCm 'GPU hardware specifications': 16 KB of scalar L1 shared by two CUs "
                                 "(the model gives each busy CU half; a CU alone gets all of it)"};
  p.scalar_line = {64, "[MT4G] scalar L1 line and fetch granularity: 64 bytes (MI300X and MI210)"};
  p.vmem_issue = {4, "no authoritative figure (searched: CDNA 3 white paper and MI300 ISA for the texture addresser's "
                     "rate, LLVM SISchedule.td, whose WriteVMEM is a latency, not a rate; CC and RRZE publish "
                     "bandwidths, not address rates): 64 addresses at 16 per cycle, one quarter-wave per cycle as the "
                     "SIMD delivers them; the calibration's L1 row (~61 B/clk/CU measured) is consistent with it"};
  p.page_bytes = {4096, "[CC] MI300X: the TLB step of a 4 KB-stride chase; the translation granule the published "
                        "chases see"};
  p.tlb_entries = {16384, "[CC] MI300X: a single-workgroup chase jumps at 64 MB, which CC reads as about 16384 TLB "
                          "entries of 4 KB per XCD; [RRZE] MI210's chase rises past 64 MB the same way"};
  p.barrier = {16, "no authoritative figure: LLVM SISchedule.td WriteBarrier = 500 is marked 'Guessed'; 16 cycles "
                   "for the release after the last arrival (the waiting itself is modeled)"};
  p.workgroup_launch = {64, "no authoritative figure (searched: AMD's CDNA 3 white paper and ISA guides, ROCm's "
                           "MI300X tuning guides, CC's MI300X articles for wave launch or dispatch rates; they give "
                           "kernel launch overhead in microseconds, not per-workgroup SPI cost): 64 cycles for the SPI's "
                           "register initialisation of a workgroup's waves"};
  p.vgprs_per_simd = {512, "gfx90a/gfx94x unified VGPR+AGPR file of 512 registers per lane (MI300 ISA §3.6.5 "
                           "'Accumulation VGPRs'; LLVM AMDGPUBaseInfo getTotalNumVGPRs with FeatureGFX90AInsts)"};
  p.vgpr_granule = {8, "LLVM AMDGPUBaseInfo getVGPRAllocGranule: 8 on gfx90a/gfx94x (AMDGPUUsage compute_pgm_rsrc1 "
                       "GRANULATED_WORKITEM_VGPR_COUNT)"};
  p.lds_per_cu = {65536, "MI300 ISA (CDNA3) and MI200 ISA (LDS chapter): 64 KiB of LDS per CU (LLVM AMDGPU "
                         "FeatureLocalMemorySize65536)"};
  p.lds_granule = {512, "LLVM AMDGPUUsage.rst, compute_pgm_rsrc2 table, GRANULATED_LDS_SIZE (bits 23:15): LDS is "
                        "allocated per work-group in granules of 128 dwords on GFX7-GFX12 (roundup(lds-size / "
                        "(128 * 4))), which covers gfx90a and gfx942"};
  p.max_waves_per_simd = {8, "LLVM AMDGPUBaseInfo getMaxWavesPerEU: 8 for gfx90a and gfx94x"};
  p.max_workgroups_per_cu = {16, "LLVM AMDGPUBaseInfo getMaxWorkGroupsPerCU: 16 barrier resources per CU (single-wave "
                                 "workgroups need none)"};
  return p;
}

[[nodiscard]] constexpr TimingParams gfx942_params() {
  TimingParams p = cdna_common();
  p.target = Target::gfx942;
  p.device = "MI300X";
  p.clock_mhz = {2100, "AMD CDNA 3 white paper / MI300X data sheet: 2100 MHz peak engine clock"};
  p.cus = {304, "AMD CDNA 3 white paper: MI300X has 304 CUs (8 XCDs x 38); MI300A 228, MI308X 80"};
  p.cache_line = {128, "[WP3] MI300X: 128-byte lines in L1 and L2 ([MT4G] measures 128 B lines and fetches in both)"};
  p.l1_bytes = {32768, "[WP3] / [MT4G]: 32 KB of vector L1 per CU on MI300X"};
  p.l1_bytes_per_cycle = {64, "[RRZE] gpu-cache MI300X: 38.8 TB/s over 304 CUs at 4-32 kB, about 61 bytes per clock "
                              "per CU at 2.1 GHz (the design figure is 128, [CC] 'AMD's CDNA 3 Compute Architecture')"};
  p.l1_latency = {116, "[RRZE] gpu-latency MI300X: 116 cycles median at 2-29 kB; [MT4G] 116 cycles"};
  p.l2_bytes = {4u << 20, "[WP3]: 4 MB of L2 per XCD, 16 channels of 256 KB, 128 B lines"};
  p.cus_per_l2 = {38, "[WP3]: MI300X has 8 XCDs of 38 active CUs, each XCD with its own L2"};
  p.l2_bytes_per_cycle = {1600, "[RRZE] gpu-cache MI300X: 27-28 TB/s aggregate from L2-resident buffers, about 1600 "
                                "bytes per clock per XCD at 2.1 GHz ([WP3] peak: 2048 B/clk per XCD; [MT4G] measures "
                                "15.4 TB/s)"};
  p.l2_latency = {213, "[RRZE] gpu-latency MI300X: 213 cycles median at 46 kB-3.4 MB (published range: [FLEET] 81-85 "
                       "ns, [MT4G] 287.5 cycles)"};
  p.mall_bytes = {256u << 20, "[WP3]: 256 MB of Infinity Cache (128 channels of 2 MB)"};
  p.mall_bytes_per_cycle = {5667, "[CC] MI300X: 11.9 TB/s measured from the Infinity Cache (peak 17.2 TB/s, [WP3]), "
                                  "5667 bytes per clock at 2.1 GHz"};
  p.mall_latency = {458, "[CC] MI300X: 'around 218 ns' (458 cycles at 2.1 GHz); [RRZE] 454-460 cycles at 4.7-66 MB"};
  p.hbm_latency = {700, "a choice between disagreeing sources: the published 1 GiB chases ([FLEET] 341-353 ns, i.e. "
                        "716-741 cycles; [RRZE] 414-427 ns and [MT4G] 876-900 cycles) include a TLB miss per access; "
                        "800 cycles (381 ns, between them) less tlb_miss. The calibration row holds it to [FLEET]"};
  p.hbm_bytes_per_cycle = {1905, "measured read bandwidth: [RRZE] gpu-stream 4.20 TB/s, [MT4G] 3.96 TB/s, [FLEET] "
                                 "3.49-3.94 TB/s: 4.0 TB/s, 1905 bytes per clock at 2.1 GHz"};
  p.hbm_peak_bytes_per_cycle = {2536, "[WP3] / [DS]: 5.325 TB/s peak (8192-bit HBM3 at 5.2 Gbps), 2536 bytes per "
                                      "clock at 2.1 GHz"};
  p.tlb_miss = {99, "[CC] MI300X: a TLB miss adds 47.1 ns (99 cycles at 2.1 GHz)"};
  return p;
}

[[nodiscard]] constexpr TimingParams gfx90a_params() {
  TimingParams p = cdna_common();
  p.target = Target::gfx90a;
  p.device = "MI250X (one GCD)";
  p.clock_mhz = {1700, "AMD CDNA 2 white paper / MI250X data sheet: 1700 MHz peak engine clock"};
  p.cus = {110, "AMD CDNA 2 white paper: MI250X has 220 CUs on two GCDs, each GCD a device of 110 CUs; MI210 has 104"};
  // The measurements are of MI210 (104 CUs of the same CDNA 2 design, one die, the same 1.6 TB/s HBM2e as one
  // MI250X GCD); no measurement of MI250X itself was found.
  p.cache_line = {128, "[MT4G] MI210: 128-byte L2 lines (64 B L1 lines; the model splits accesses by L2 line)"};
  p.l1_bytes = {16384, "ROCm 'GPU hardware specifications' / [MT4G] MI210: 16 KB of vector L1 per CU"};
  p.l1_bytes_per_cycle = {64, "[RRZE] gpu-cache README: up to 64 bytes per clock per CU on MI210 (10.5 TB/s over 104 "
                              "CUs at 1.7 GHz)"};
  p.l1_latency = {124, "[RRZE] gpu-latency MI210: 125 cycles median; [MT4G] 120-124 cycles ([CC] 'just over 85 ns')"};
  p.l2_bytes = {8u << 20, "ROCm 'GPU hardware specifications': 8 MB of L2 per GCD (MI210 and each MI250X GCD)"};
  p.cus_per_l2 = {110, "one L2 per GCD, shared by its 110 CUs (MI250X)"};
  p.l2_bytes_per_cycle = {2529, "[MT4G] MI210: 4.31 TB/s from L2 ([CC] 3.7, [RRZE] about 5.1 TB/s), 2529 bytes per "
                                "clock at 1.7 GHz"};
  p.l2_latency = {260, "[RRZE] gpu-latency MI210: 246-264 cycles; [MT4G] 292-302 cycles"};
  p.mall_bytes = {0, "CDNA 2 has no Infinity Cache"};
  p.mall_bytes_per_cycle = {0, "CDNA 2 has no Infinity Cache"};
  p.mall_latency = {0, "CDNA 2 has no Infinity Cache"};
  p.hbm_latency = {590, "[RRZE] gpu-latency MI210: 583-595 cycles (343-350 ns) at 11-70 MB, inside the TLB's reach"};
  p.hbm_bytes_per_cycle = {806, "[RRZE] gpu-stream MI210: 1.37 TB/s read at full occupancy ([MT4G] 1.17 TB/s), 806 "
                                "bytes per clock at 1.7 GHz"};
  p.hbm_peak_bytes_per_cycle = {941, "[DS] MI210, and one MI250X GCD: 1.6 TB/s of HBM2e, 941 bytes per clock at 1.7 "
                                     "GHz"};
  p.tlb_miss = {80, "no CDNA 2 figure: MI300X's 47.1 ns ([CC]) at 1.7 GHz; [RRZE]'s MI210 chase rises by about 55 ns "
                    "past 64 MB, which agrees"};
  p.smem_miss = {130, "[MT4G] MI210: scalar L1 miss penalty 127-132 cycles"};
  return p;
}

[[nodiscard]] constexpr TimingParams gfx950_params() {
  TimingParams p = gfx942_params();
  p.target = Target::gfx950;
  p.device = "MI355X";
  p.clock_mhz = {2400, "AMD CDNA 4 white paper / MI355X data sheet: 2400 MHz peak engine clock"};
  p.cus = {256, "AMD CDNA 4 white paper: MI350 series has 256 CUs (8 XCDs x 32)"};
  p.lds_per_cu = {163840, "AMD CDNA 4 white paper: 160 KB of LDS per CU (LLVM FeatureLocalMemorySize163840)"};
  p.lds_granule = {1280, "LLVM AMDGPUUsage.rst, compute_pgm_rsrc2 table, GRANULATED_LDS_SIZE (bits 23:15): GFX950 "
                         "allocates LDS in granules of 320 dwords (roundup(lds-size / (320 * 4)))"};
  p.cus_per_l2 = {32, "AMD CDNA 4 white paper: 8 XCDs of 32 CUs, each XCD with its own 4 MB L2"};
  p.hbm_peak_bytes_per_cycle = {3333, "AMD CDNA 4 white paper / MI355X data sheet: 8 TB/s, 3333 bytes per clock at "
                                      "2.4 GHz"};
  p.hbm_bytes_per_cycle = {2516, "no measured figure for MI355X: the data sheet's 8 TB/s scaled by MI300X's measured / "
                                 "peak ratio (4.0 / 5.3), 2516 bytes per clock at 2.4 GHz; not calibrated"};
  // The rest of the memory hierarchy is MI300X's, in cycles, uncalibrated for CDNA 4: no MI355X latency or cache
  // bandwidth measurement was found (searched: MI355X / CDNA 4 pointer-chase latency, cache bandwidth, Chips and
  // Cheese, RRZE gpu-benches and mt4g result files).
  constexpr std::string_view un = "uncalibrated for MI355X: MI300X's figure in cycles (see gfx942_params)";
  for (Param* q : {&p.l1_latency, &p.l1_bytes_per_cycle, &p.l2_latency, &p.l2_bytes_per_cycle, &p.mall_latency,
                   &p.mall_bytes_per_cycle, &p.hbm_latency, &p.tlb_miss, &p.smem_latency, &p.smem_miss, &p.lds_latency})
    q->source = un;
  return p;
}

inline constexpr TimingParams params_gfx90a = gfx90a_params();
inline constexpr TimingParams params_gfx942 = gfx942_params();
inline constexpr TimingParams params_gfx950 = gfx950_params();

}  // namespace detail

/// The parameters of `t` (gfx942's for a target without its own table).
[[nodiscard]] inline const TimingParams& timing_params(Target t) noexcept {
  switch (t) {
    case Target::gfx90a: return detail::params_gfx90a;
    case Target::gfx950: return detail::params_gfx950;
    default: return detail::params_gfx942;
  }
}

/// Waves per SIMD that the SGPR file allows for a wave of `sgprs` allocated SGPRs (VCC, FLAT_SCRATCH and XNACK_MASK
/// included): LLVM GCNSubtarget::getOccupancyWithNumSGPRs for gfx8+ (<= 80: 10, <= 88: 9, <= 100: 8, else 7).
[[nodiscard]] constexpr unsigned sgpr_limited_waves(unsigned sgprs) noexcept {
  return sgprs <= 80 ? 10 : sgprs <= 88 ? 9 : sgprs <= 100 ? 8 : 7;
}

}  // namespace asmevo::model
