// The cost model's parameters for each target: issue cadences, latencies, bandwidths and occupancy limits, each
// value with the source it comes from, or the words "no authoritative figure" and why the value was chosen.
#pragma once

#include <string_view>

#include "asmevo/ir/target.hpp"

namespace asmevo::emu {

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
  // ---- memory -------------------------------------------------------------------------------------------------
  Param lds_latency;         ///< ds_read issue to data in VGPRs, no bank conflicts, idle LDS
  Param lds_bytes_per_cycle; ///< LDS bandwidth of one CU
  Param lds_banks;           ///< dword-wide banks
  Param smem_latency;        ///< s_load / s_buffer_load, scalar cache hit
  Param vmem_issue;          ///< cycles the CU's vector memory pipe spends on a wave64 instruction (address rate)
  Param cache_line;          ///< bytes per L2 cache line (the unit a wave's access is split into)
  Param l1_bytes_per_cycle;  ///< vector L1 / texture data return bandwidth of one CU
  Param l2_latency;          ///< global/buffer load that hits in L2
  Param hbm_latency;         ///< global/buffer load that misses every cache
  Param hbm_bytes_per_cycle_per_cu;  ///< the device's HBM bandwidth divided evenly over its CUs
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
  p.lds_latency = {64, "no authoritative figure for CDNA: LLVM SISchedule.td WriteLDS says 'can be between 2 and 64'; "
                       "the upper end, since microbenchmarks of GCN/CDNA LDS measure tens of cycles"};
  p.lds_bytes_per_cycle = {128, "derived: 32 banks x 4 bytes, one access per bank per clock (bank count: MI300 ISA, Data Share Operations)"};
  p.lds_banks = {32, "MI300 ISA (CDNA3) Data Share Operations: 32 banks, each one dword wide"};
  p.smem_latency = {100, "no authoritative figure: LLVM SISchedule.td WriteSMEM = 5 scheduler units; the scalar L1 "
                         "is measured by pointer chasing in Tee et al., 'The MALL is Open' (SC'25 workshops), whose "
                         "figures are not recorded here; 100 cycles chosen"};
  p.vmem_issue = {4, "no authoritative figure: the texture addresser takes a wave64's 64 addresses at 16 per cycle "
                     "(one quarter-wave per cycle, as the SIMD delivers them)"};
  p.l2_latency = {300, "no authoritative figure: measured by pointer chasing on MI300X/MI250X (Tee et al., 'The MALL "
                       "is Open', SC'25 workshops; chips and cheese 'Testing AMD's Giant MI300X'), figures not "
                       "recorded here; 300 cycles (about 140 ns at 2.1 GHz) chosen"};
  p.hbm_latency = {800, "no authoritative figure: measured by the same studies (HBM behind L2 and, on MI300, the "
                        "Infinity Cache); 800 cycles (about 380 ns at 2.1 GHz) chosen"};
  p.barrier = {16, "no authoritative figure: LLVM SISchedule.td WriteBarrier = 500 is marked 'Guessed'; 16 cycles "
                   "for the release after the last arrival (the waiting itself is modeled)"};
  p.workgroup_launch = {64, "no authoritative figure: wave launch (SPI register initialisation) cost; 64 cycles"};
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
  p.cache_line = {128, "128-byte L2 cache lines on MI300X (MrRoy09/AMD-CDNA3-Cache-MicroBenchmarking 'granularity': "
                       "coherence is tracked at the 128 B L2 line)"};
  p.l1_bytes_per_cycle = {64, "no authoritative figure: one 64-byte vL1D access per clock per CU"};
  p.hbm_bytes_per_cycle_per_cu = {8, "derived: 5.3 TB/s (CDNA 3 white paper) / 304 CUs / 2.1 GHz = 8.3 B/clk/CU"};
  return p;
}

[[nodiscard]] constexpr TimingParams gfx90a_params() {
  TimingParams p = cdna_common();
  p.target = Target::gfx90a;
  p.device = "MI250X (one GCD)";
  p.clock_mhz = {1700, "AMD CDNA 2 white paper / MI250X data sheet: 1700 MHz peak engine clock"};
  p.cus = {110, "AMD CDNA 2 white paper: MI250X has 220 CUs on two GCDs, each GCD a device of 110 CUs; MI210 has 104"};
  p.cache_line = {128, "no authoritative figure: the same 128 B as gfx942 (a 64 B vL1D line would split a "
                       "coalesced access more finely than modeled)"};
  p.l1_bytes_per_cycle = {64, "no authoritative figure: one 64-byte vL1D access per clock per CU"};
  p.hbm_bytes_per_cycle_per_cu = {9, "derived: 3.2 TB/s per MI250X (CDNA 2 white paper) / 2 GCDs / 110 CUs / "
                                     "1.7 GHz = 8.6 B/clk/CU"};
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
  p.hbm_bytes_per_cycle_per_cu = {13, "derived: 8 TB/s (CDNA 4 white paper) / 256 CUs / 2.4 GHz = 13 B/clk/CU"};
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

}  // namespace asmevo::emu
