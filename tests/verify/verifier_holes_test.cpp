// The verifier's holes of issue 26, each as a wrong K1 written against a corpus kernel that the gate must reject
// with a reason naming the cause: state the ISA leaves undefined (SCC, trap temporaries, FLAT_SCRATCH, LDS at
// workgroup start, kernarg bytes past the segment), values only hardware knows (HW_ID, LDS_ALLOC, clocks), an
// opcode the emulator only approximates, and edits only probe inputs (ties, specials) expose. Also what must still
// pass: K0 against itself, an approximate instruction left alone, a declared tolerance, a declared LDS allocation.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/hardware_values.hpp"
#include "asmevo/analysis/undefined_reads.hpp"
#include "asmevo/ir/parser.hpp"
#include "asmevo/launch/launch_spec.hpp"
#include "asmevo/verify/code_object.hpp"
#include "asmevo/verify/differential.hpp"
#include "asmevo/verify/emu_executor.hpp"
#include "support/corpus.hpp"
#include "verify/k1_edit.hpp"

namespace {

namespace fs = std::filesystem;
using namespace asmevo;
using asmevo::test::edited_k1;

fs::path triton_object(const fs::path& dir, const std::string& stem) { return dir / "triton" / (stem + ".gfx942.hsaco"); }
fs::path triton_launch(const std::string& stem) {
  return fs::path(ASMEVO_SOURCE_DIR) / "tests" / "data" / "launch" / "triton" / (stem + ".json");
}

/// Inserts `lines` after the first line of `t` that contains `anchor` (which must be there).
void insert_after(std::string& t, const std::string& anchor, const std::string& lines) {
  const std::size_t at = t.find(anchor);
  ASSERT_NE(at, std::string::npos) << anchor;
  t.insert(t.find('\n', at) + 1, lines);
}

/// Replaces the first occurrence of `from` in `t` (which must be there) with `to`.
void replace_first(std::string& t, const std::string& from, const std::string& to) {
  const std::size_t at = t.find(from);
  ASSERT_NE(at, std::string::npos) << from;
  t.replace(at, from.size(), to);
}

/// vec_add for gfx942, K1 made by `edit` of its printed program, the project's launch file, and a verdict.
struct VecAdd {
  verify::CodeObject k0;
  std::optional<verify::CodeObject> k1;
  std::vector<verify::LaunchSpec> shapes;
};

template <class Edit>
std::optional<VecAdd> vec_add_with(const fs::path& dir, Edit edit) {
  auto k0 = verify::load_code_object(triton_object(dir, "vec_add_f32"));
  if (!k0) { ADD_FAILURE() << k0.error().str(); return std::nullopt; }
  auto shapes = verify::read_launch_file(triton_launch("vec_add_f32"));
  if (!shapes) { ADD_FAILURE() << shapes.error().str(); return std::nullopt; }
  VecAdd v{std::move(*k0), std::nullopt, std::move(*shapes)};
  v.k1 = edited_k1(v.k0, edit);
  if (!v.k1) return std::nullopt;
  return v;
}

verify::Receipt verify_or_fail(const verify::CodeObject& k0, const verify::CodeObject& k1,
                               const std::vector<verify::LaunchSpec>& shapes, verify::VerifyOptions o = {}) {
  verify::EmuExecutor exec;
  auto r = verify::differential_verify(k0, k1, shapes, exec, o);
  EXPECT_TRUE(r) << r.error().str();
  return r ? std::move(*r) : verify::Receipt{};
}

// The store of the last quarter's sum in vec_add: `v_add_f32_e32 v4, v7, v11` (then global_store_dword ... v4).
constexpr const char* last_sum = "v_add_f32_e32 v4, v7, v11";

// ---------------------------------------------------------------------------------------------------------------
// Undefined state
// ---------------------------------------------------------------------------------------------------------------

/// A trap temporary the launch never sets, added into a stored value: a static finding (undef:read naming ttmp5),
/// and, with static checks off, the prover's counterexample (nothing constrains ttmp5), and with that off too, a run
/// that differs (ttmp5 starts as the trial's garbage, not zero).
TEST(UndefinedState, TrapTemporaryReadIsRejectedStaticallyAndByTheRuns) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto v = vec_add_with(dir, [](std::string& t) { insert_after(t, last_sum, "\tv_add_u32_e32 v4, ttmp5, v4\n"); });
  ASSERT_TRUE(v);
  auto r = verify_or_fail(v->k0, *v->k1, v->shapes);
  EXPECT_EQ(r.verdict, verify::Verdict::not_equivalent);
  EXPECT_EQ(r.rejected_by, "static") << r.reason;
  EXPECT_NE(r.reason.find("undef:read"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("ttmp5"), std::string::npos) << r.reason;

  verify::VerifyOptions o;
  o.static_checks = false;
  auto refuted = verify_or_fail(v->k0, *v->k1, v->shapes, o);
  EXPECT_EQ(refuted.rejected_by, "refuted") << refuted.reason;
  o.refute = false;
  auto runs = verify_or_fail(v->k0, *v->k1, v->shapes, o);
  EXPECT_EQ(runs.verdict, verify::Verdict::not_equivalent);
  EXPECT_EQ(runs.rejected_by, "run") << runs.reason;
}

/// SCC read before anything in the kernel sets it (s_cselect at the entry): undef:read names scc.
TEST(UndefinedState, SccNothingSetIsAStaticFinding) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto v = vec_add_with(dir, [](std::string& t) {
    insert_after(t, ".Lvec_add_preload_entry:", "\ts_cselect_b32 s40, 1, 0\n");
    insert_after(t, last_sum, "\tv_add_u32_e32 v4, s40, v4\n");
  });
  ASSERT_TRUE(v);
  auto r = verify_or_fail(v->k0, *v->k1, v->shapes);
  EXPECT_EQ(r.rejected_by, "static") << r.reason;
  EXPECT_NE(r.reason.find("reads scc"), std::string::npos) << r.reason;
}

/// FLAT_SCRATCH (vec_add enables no private segment, so the launch leaves it) and XNACK_MASK start as garbage: the
/// runs alone (the prover, which would refute it first, is off) reject a K1 that adds them into the result.
TEST(UndefinedState, FlatScratchAndXnackMaskAreGarbageInTheRuns) {
  ASMEVO_REQUIRE_CORPUS(dir);
  for (const std::string reg : {"flat_scratch_lo", "xnack_mask_hi"}) {
    SCOPED_TRACE(reg);
    auto v = vec_add_with(dir, [&](std::string& t) { insert_after(t, last_sum, "\tv_add_u32_e32 v4, " + reg + ", v4\n"); });
    ASSERT_TRUE(v);
    verify::VerifyOptions o;
    o.static_checks = false;
    o.refute = false;
    auto r = verify_or_fail(v->k0, *v->k1, v->shapes, o);
    EXPECT_EQ(r.verdict, verify::Verdict::not_equivalent);
    EXPECT_EQ(r.rejected_by, "run") << r.reason;
  }
}

/// LDS nobody wrote in this workgroup holds garbage: a K1 that adds an LDS dword it never stored is rejected by the
/// runs (vec_add declares no LDS; the launch declares 1 KiB of dynamic LDS, so the read is inside the allocation
/// and the rejection is about its value, not its reach).
TEST(UndefinedState, LdsAWorkgroupNeverWroteIsGarbage) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto v = vec_add_with(dir, [](std::string& t) {
    insert_after(t, last_sum,
                 "\tv_mov_b32_e32 v14, 0\n\tds_read_b32 v14, v14 offset:64\n\ts_waitcnt lgkmcnt(0)\n"
                 "\tv_add_u32_e32 v4, v14, v4\n");
  });
  ASSERT_TRUE(v);
  for (auto& s : v->shapes) s.dynamic_lds = 1024;
  auto r = verify_or_fail(v->k0, *v->k1, v->shapes);
  EXPECT_EQ(r.verdict, verify::Verdict::not_equivalent);
  EXPECT_EQ(r.rejected_by, "run") << r.reason;
  EXPECT_NE(r.reason.find("differs"), std::string::npos) << r.reason;
}

/// vec_add's kernarg segment is 48 bytes; the emulator maps 64. A K1 that loads the dword at 52 (past the segment,
/// where a real kernarg pool holds an earlier dispatch's bytes) and adds it in is rejected by the runs.
TEST(UndefinedState, KernargBytesPastTheSegmentAreGarbage) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto v = vec_add_with(dir, [](std::string& t) {
    insert_after(t, ".Lvec_add_preload_entry:", "\ts_load_dword s40, s[0:1], 0x34\n\ts_waitcnt lgkmcnt(0)\n");
    insert_after(t, last_sum, "\tv_add_u32_e32 v4, s40, v4\n");
  });
  ASSERT_TRUE(v);
  auto r = verify_or_fail(v->k0, *v->k1, v->shapes);
  EXPECT_EQ(r.verdict, verify::Verdict::not_equivalent);
  EXPECT_EQ(r.rejected_by, "run") << r.reason;
  // K0 against itself is still equivalent: the garbage is the same for both.
  auto same = verify_or_fail(v->k0, v->k0, v->shapes);
  EXPECT_EQ(same.verdict, verify::Verdict::equivalent) << same.rejected_by << ": " << same.reason;
}

/// vec_add's i32 `n` sits at kernarg offset 24 and the next pointer at 32: bytes 28..31 are padding no argument
/// describes, which the launcher never writes (the red-team round's case: the preloaded s9 holds them). A K1 that
/// adds s9 into the stored sum used to pass, the padding being zero here; it is garbage now, and the runs reject it.
TEST(UndefinedState, KernargPaddingBetweenArgumentsIsGarbage) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto v = vec_add_with(dir, [](std::string& t) {
    insert_after(t, "s_lshl_b32 s0, s14, 10", "\ts_mov_b32 s40, s9\n");
    insert_after(t, last_sum, "\tv_add_u32_e32 v4, s40, v4\n");
  });
  ASSERT_TRUE(v);
  auto r = verify_or_fail(v->k0, *v->k1, v->shapes);
  EXPECT_EQ(r.verdict, verify::Verdict::not_equivalent);
  EXPECT_EQ(r.rejected_by, "run") << r.reason;
}

/// K0's own reads of undefined registers are findings (hand-written programs, analysis::check_undefined_reads with
/// what a launch sets: s[0:1] and v0): an accumulator nothing zeroed and a DPP move that keeps old lanes are reads;
/// a d16 load into a fresh register, a full-mask bound_ctrl DPP move and reads after a write are not.
TEST(UndefinedState, AnalysisReportsRealReadsOnly) {
  auto run = [](const std::string& body) {
    auto p = parse_program("k:\n" + body + "\ts_endpgm\n", Target::gfx942, "<undef>");
    EXPECT_TRUE(p) << p.error().str();
    const auto g = analysis::build_cfg(*p);
    analysis::UnitSet defined;
    defined.set(0);
    defined.set(1);
    defined.set(analysis::detail::unit_v0);
    defined.set(analysis::detail::unit_exec);
    defined.set(analysis::detail::unit_exec + 1);
    defined.set(analysis::detail::unit_mode);
    return analysis::check_undefined_reads(*p, g, *g.block_named("k"), defined, "k");
  };
  auto mac = run("\tv_fmac_f32_e32 v3, v0, v0\n");
  ASSERT_EQ(mac.size(), 1u);
  EXPECT_NE(mac[0].message.find("reads v3"), std::string::npos) << mac[0].message;
  EXPECT_EQ(mac[0].rule, "undef:read");

  EXPECT_EQ(run("\tv_mov_b32_e32 v3, 0\n\tv_fmac_f32_e32 v3, v0, v0\n").size(), 0u);
  EXPECT_EQ(run("\tglobal_load_short_d16 v2, v0, s[0:1]\n\ts_waitcnt vmcnt(0)\n").size(), 0u);
  EXPECT_EQ(run("\tv_mov_b32_dpp v2, v0 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1\n").size(), 0u);
  const auto dpp = run("\tv_mov_b32_dpp v2, v0 row_shr:1 row_mask:0xf bank_mask:0x3\n");
  ASSERT_EQ(dpp.size(), 1u);
  EXPECT_NE(dpp[0].message.find("reads v2"), std::string::npos) << dpp[0].message;
  // On one path only: the join makes it maybe-undefined.
  const auto join = run("\ts_cmp_eq_u32 s0, 0\n\ts_cbranch_scc1 .Lskip\n\tv_mov_b32_e32 v5, 1\n.Lskip:\n"
                        "\tv_add_u32_e32 v6, v5, v0\n");
  ASSERT_EQ(join.size(), 1u);
  EXPECT_NE(join[0].message.find("reads v5"), std::string::npos) << join[0].message;
}

// ---------------------------------------------------------------------------------------------------------------
// Values only hardware knows
// ---------------------------------------------------------------------------------------------------------------

/// HW_ID's CU_ID field added into a stored value: hwvalue:memory statically; with static checks off the runs
/// differ, since the emulator places workgroups on seeded CUs (it used to report CU 0, so K1 matched K0).
TEST(HardwareValues, HwIdReachingAStoreIsRejected) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto v = vec_add_with(dir, [](std::string& t) {
    insert_after(t, ".Lvec_add_preload_entry:", "\ts_getreg_b32 s40, hwreg(HW_REG_HW_ID, 8, 4)\n");
    insert_after(t, last_sum, "\tv_add_u32_e32 v4, s40, v4\n");
  });
  ASSERT_TRUE(v);
  auto r = verify_or_fail(v->k0, *v->k1, v->shapes);
  EXPECT_EQ(r.rejected_by, "static") << r.reason;
  EXPECT_NE(r.reason.find("hwvalue:memory"), std::string::npos) << r.reason;
  verify::VerifyOptions o;
  o.static_checks = false;
  auto runs = verify_or_fail(v->k0, *v->k1, v->shapes, o);
  EXPECT_EQ(runs.rejected_by, "run") << runs.reason;
}

/// LDS_SIZE minus 128 granules is zero when the emulator reports the whole 64 KiB, as it used to for every kernel
/// that may use dynamic LDS; a real launcher passes what it chose. Without a declared allocation the size is now a
/// seeded choice and the runs reject K1; with "dynamic_lds" declared (64 KiB) the size is exact and K1 matches.
TEST(HardwareValues, LdsAllocReportsTheLaunchsAllocation) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto v = vec_add_with(dir, [](std::string& t) {
    // After the entry's first instruction: code at the preload entry itself would move the compatibility
    // prologue's branch target, a change no run exercises.
    insert_after(t, "s_lshl_b32 s0, s14, 10", "\ts_getreg_b32 s40, hwreg(HW_REG_LDS_ALLOC, 12, 9)\n\ts_sub_u32 s40, s40, 0x80\n");
    insert_after(t, last_sum, "\tv_add_u32_e32 v4, s40, v4\n");
  });
  ASSERT_TRUE(v);
  verify::VerifyOptions o;
  o.static_checks = false;
  auto r = verify_or_fail(v->k0, *v->k1, v->shapes, o);
  EXPECT_EQ(r.rejected_by, "run") << r.reason;
  for (auto& s : v->shapes) s.dynamic_lds = 65536;
  auto declared = verify_or_fail(v->k0, *v->k1, v->shapes, o);
  EXPECT_EQ(declared.verdict, verify::Verdict::equivalent) << declared.rejected_by << ": " << declared.reason;
}

/// A clock read whose value reaches an address: hwvalue:address statically, and with static checks off the
/// approximate-semantics gate (s_memtime is a made-up clock on the emulator).
TEST(HardwareValues, ClockReachingAnAddressIsRejected) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto v = vec_add_with(dir, [](std::string& t) {
    insert_after(t, ".Lvec_add_preload_entry:", "\ts_memtime s[40:41]\n\ts_waitcnt lgkmcnt(0)\n\ts_and_b32 s40, s40, 0\n"
                                "\ts_add_u32 s2, s2, s40\n");
  });
  ASSERT_TRUE(v);
  auto r = verify_or_fail(v->k0, *v->k1, v->shapes);
  EXPECT_EQ(r.rejected_by, "static") << r.reason;
  EXPECT_NE(r.reason.find("hwvalue:address"), std::string::npos) << r.reason;
  verify::VerifyOptions o;
  o.static_checks = false;
  auto runs = verify_or_fail(v->k0, *v->k1, v->shapes, o);
  EXPECT_EQ(runs.rejected_by, "approximate") << runs.reason;
  EXPECT_NE(runs.reason.find("s_memtime"), std::string::npos) << runs.reason;
}

/// Where the wave's registers sit in the SIMD (GPR_ALLOC's VGPR_BASE), where the loader put the code (s_getpc_b64)
/// and the exception status (TRAPSTS) added into the stored sum: the red-team round's cases, which passed because
/// the emulator gives a constant for each. All three are hardware values now: hwvalue:memory.
TEST(HardwareValues, PlacementPcAndTrapStatusReachingAStoreAreRejected) {
  ASMEVO_REQUIRE_CORPUS(dir);
  for (const char* source : {"\ts_getreg_b32 s40, hwreg(HW_REG_GPR_ALLOC, 0, 6)\n", "\ts_getpc_b64 s[40:41]\n",
                             "\ts_getreg_b32 s40, hwreg(HW_REG_TRAPSTS, 0, 9)\n"}) {
    auto v = vec_add_with(dir, [&](std::string& t) {
      insert_after(t, "s_lshl_b32 s0, s14, 10", source);
      insert_after(t, last_sum, "\tv_add_u32_e32 v4, s40, v4\n");
    });
    ASSERT_TRUE(v);
    auto r = verify_or_fail(v->k0, *v->k1, v->shapes);
    EXPECT_EQ(r.rejected_by, "static") << source << r.reason;
    EXPECT_NE(r.reason.find("hwvalue:memory"), std::string::npos) << source << r.reason;
  }
}

/// The taint analysis on hand-written code: sources (s_memtime, s_getreg of HW_ID/XCC_ID) reach a store's data,
/// an address and a branch; s_getreg of MODE and a value overwritten before use are not sources.
TEST(HardwareValues, AnalysisFollowsTheValueToItsSinks) {
  auto run = [](const std::string& body) {
    auto p = parse_program("k:\n" + body + "\ts_endpgm\n", Target::gfx942, "<hw>");
    EXPECT_TRUE(p) << p.error().str();
    const auto g = analysis::build_cfg(*p);
    return analysis::check_hardware_values(*p, g, *g.block_named("k"), "k");
  };
  auto data = run("\ts_getreg_b32 s4, hwreg(HW_REG_HW_ID)\n\tv_mov_b32_e32 v1, s4\n"
                  "\tglobal_store_dword v0, v1, s[0:1]\n");
  ASSERT_EQ(data.size(), 1u);
  EXPECT_EQ(data[0].rule, "hwvalue:memory");
  auto addr = run("\ts_getreg_b32 s4, hwreg(HW_REG_XCC_ID)\n\ts_add_u32 s0, s0, s4\n"
                  "\tglobal_store_dword v0, v0, s[0:1]\n");
  ASSERT_EQ(addr.size(), 1u);
  EXPECT_EQ(addr[0].rule, "hwvalue:address");
  auto ctl = run("\ts_memtime s[4:5]\n\ts_waitcnt lgkmcnt(0)\n\ts_cmp_eq_u32 s4, 0\n\ts_cbranch_scc1 .Lx\n.Lx:\n");
  ASSERT_EQ(ctl.size(), 1u);
  EXPECT_EQ(ctl[0].rule, "hwvalue:control");
  EXPECT_TRUE(run("\ts_getreg_b32 s4, hwreg(HW_REG_MODE)\n\tv_mov_b32_e32 v1, s4\n"
                  "\tglobal_store_dword v0, v1, s[0:1]\n").empty());
  // GPR_ALLOC: the base fields are placement, the size fields the kernel's own; the raw simm16 form too
  // (id 5 | offset 16 << 6 | (size 6 - 1) << 11 = SGPR_BASE).
  EXPECT_EQ(run("\ts_getreg_b32 s4, hwreg(HW_REG_GPR_ALLOC, 0, 6)\n\tv_mov_b32_e32 v1, s4\n"
                "\tglobal_store_dword v0, v1, s[0:1]\n").size(), 1u);
  EXPECT_TRUE(run("\ts_getreg_b32 s4, hwreg(HW_REG_GPR_ALLOC, 8, 6)\n\tv_mov_b32_e32 v1, s4\n"
                  "\tglobal_store_dword v0, v1, s[0:1]\n").empty());
  EXPECT_EQ(run("\ts_getreg_b32 s4, 0x2c05\n\tv_mov_b32_e32 v1, s4\n"
                "\tglobal_store_dword v0, v1, s[0:1]\n").size(), 1u);
  // The PC, through the usual relocation arithmetic, into an address.
  auto pc = run("\ts_getpc_b64 s[4:5]\n\ts_add_u32 s4, s4, 0x100\n\ts_addc_u32 s5, s5, 0\n"
                "\tglobal_load_dword v1, v0, s[4:5]\n");
  ASSERT_EQ(pc.size(), 1u);
  EXPECT_EQ(pc[0].rule, "hwvalue:address");
  EXPECT_TRUE(run("\ts_getreg_b32 s4, hwreg(HW_REG_HW_ID)\n\ts_mov_b32 s4, 0\n\tv_mov_b32_e32 v1, s4\n"
                  "\tglobal_store_dword v0, v1, s[0:1]\n").empty());
}

// ---------------------------------------------------------------------------------------------------------------
// Approximate semantics
// ---------------------------------------------------------------------------------------------------------------

/// softmax's first v_exp_f32 becomes v_exp_legacy_f32, which the emulator evaluates as v_exp_f32: the runs agree,
/// so only the approximate-semantics gate can reject it, naming the opcode. With a tolerance declared for the
/// outputs, a close answer is all that is asked, and the gate lets it through to the runs.
TEST(Approximate, ALegacyTranscendentalIsUnverified) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto k0 = verify::load_code_object(triton_object(dir, "softmax_f32"));
  ASSERT_TRUE(k0);
  auto k1 = edited_k1(*k0, [](std::string& t) { replace_first(t, "v_exp_f32_e32 v6, v9", "v_exp_legacy_f32_e32 v6, v9"); });
  ASSERT_TRUE(k1);
  auto shapes = verify::read_launch_file(triton_launch("softmax_f32"));
  ASSERT_TRUE(shapes);
  auto r = verify_or_fail(*k0, *k1, *shapes);
  EXPECT_EQ(r.verdict, verify::Verdict::not_equivalent);
  EXPECT_EQ(r.rejected_by, "approximate") << r.reason;
  EXPECT_NE(r.reason.find("unverified: `v_exp_legacy_f32` is emulated approximately"), std::string::npos) << r.reason;
  ASSERT_TRUE(r.json["approximate"].is_array());
  EXPECT_EQ(r.json["approximate"].size(), 1u);

  // K0's own v_exp_f32s are no change.
  auto same = verify_or_fail(*k0, *k0, *shapes);
  EXPECT_EQ(same.verdict, verify::Verdict::equivalent) << same.rejected_by << ": " << same.reason;

  for (auto& s : *shapes) s.tolerance[static_cast<std::size_t>(verify::DType::f32)] = verify::Tolerance{1e-6, 1e-5};
  auto tolerated = verify_or_fail(*k0, *k1, *shapes);
  EXPECT_NE(tolerated.rejected_by, "approximate") << tolerated.reason;
  EXPECT_TRUE(tolerated.json.contains("approximate_tolerated"));
}

// ---------------------------------------------------------------------------------------------------------------
// Refutation
// ---------------------------------------------------------------------------------------------------------------

/// softmax's exp() underflow test `v_cmp_gt_f32 s[4:5], s6, v9` (s6 = -126.0) becomes v_cmp_ge_f32: the two differ
/// only when v9 is exactly -126.0, which no input of the launch file (nor a probe) produces, so the runs pass it.
/// The equivalence prover's counterexample rejects it, naming the value.
TEST(Refutation, ACompareThatDiffersOnlyAtItsBoundIsRefuted) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto k0 = verify::load_code_object(triton_object(dir, "softmax_f32"));
  ASSERT_TRUE(k0);
  auto k1 = edited_k1(*k0, [](std::string& t) {
    replace_first(t, "v_cmp_gt_f32_e64 s[4:5], s6, v9", "v_cmp_ge_f32_e64 s[4:5], s6, v9");
  });
  ASSERT_TRUE(k1);
  auto shapes = verify::read_launch_file(triton_launch("softmax_f32"));
  ASSERT_TRUE(shapes);
  auto r = verify_or_fail(*k0, *k1, *shapes);
  EXPECT_EQ(r.verdict, verify::Verdict::not_equivalent);
  EXPECT_EQ(r.rejected_by, "refuted") << r.reason;
  EXPECT_NE(r.reason.find("-126.0"), std::string::npos) << r.reason;
  // Without the refutation the runs (probes included) find nothing: the hole this closes.
  verify::VerifyOptions o;
  o.refute = false;
  auto runs = verify_or_fail(*k0, *k1, *shapes, o);
  EXPECT_EQ(runs.verdict, verify::Verdict::equivalent) << runs.rejected_by << ": " << runs.reason;
  // K0 against itself: nothing to refute.
  auto same = verify_or_fail(*k0, *k0, *shapes);
  EXPECT_EQ(same.verdict, verify::Verdict::equivalent) << same.rejected_by << ": " << same.reason;
}

/// The same compare edit with an `s_nop 0` inserted before it: K1 grows, so the relinked object pads its tail with
/// another alignment and every later instruction is renumbered. The red-team round got it accepted that way (the
/// prover said "unknown": a changed directive, then a change running to the end). K1 is now aligned with K0 by
/// instruction before the prover sees it, alignment directives are no change, and an s_nop in K1's window computes
/// nothing: it is refuted as before.
TEST(Refutation, AnInsertedNopDoesNotHideTheChange) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto k0 = verify::load_code_object(triton_object(dir, "softmax_f32"));
  ASSERT_TRUE(k0);
  auto k1 = edited_k1(*k0, [](std::string& t) {
    replace_first(t, "v_cmp_gt_f32_e64 s[4:5], s6, v9", "s_nop 0\n\tv_cmp_ge_f32_e64 s[4:5], s6, v9");
  });
  ASSERT_TRUE(k1);
  auto shapes = verify::read_launch_file(triton_launch("softmax_f32"));
  ASSERT_TRUE(shapes);
  auto r = verify_or_fail(*k0, *k1, *shapes);
  EXPECT_EQ(r.rejected_by, "refuted") << r.reason;
  EXPECT_NE(r.reason.find("-126.0"), std::string::npos) << r.reason;
  // An inserted s_nop alone changes nothing the prover or the runs see.
  auto nop = edited_k1(*k0, [](std::string& t) {
    replace_first(t, "v_cmp_gt_f32_e64 s[4:5], s6, v9", "s_nop 0\n\tv_cmp_gt_f32_e64 s[4:5], s6, v9");
  });
  ASSERT_TRUE(nop);
  auto same = verify_or_fail(*k0, *nop, *shapes);
  EXPECT_EQ(same.verdict, verify::Verdict::equivalent) << same.rejected_by << ": " << same.reason;
}

// ---------------------------------------------------------------------------------------------------------------
// The floating-point environment
// ---------------------------------------------------------------------------------------------------------------

/// Denormal flushing turned on in the descriptor, FP16 overflow clamping or an exception enable turned on with
/// s_setreg: each changes what float instructions the edit never touched compute (or whether they trap), on values
/// the launch file's draws may never reach, and the emulator models only part of it. Rejected "float_mode", naming
/// the field or the instruction. (The red-team round had all of them accepted.)
TEST(FloatMode, ModeChangesAreUnverified) {
  ASMEVO_REQUIRE_CORPUS(dir);
  struct Case { const char* from; const char* to; const char* named; };
  for (const Case& c : {Case{".amdhsa_float_denorm_mode_32 3", ".amdhsa_float_denorm_mode_32 0", "float_denorm_mode_32"},
                        Case{".amdhsa_exception_fp_ieee_inexact 0", ".amdhsa_exception_fp_ieee_inexact 1", "inexact"},
                        Case{"s_lshl_b32 s0, s14, 10", "s_lshl_b32 s0, s14, 10\n\ts_setreg_imm32_b32 hwreg(HW_REG_MODE, 23, 1), 1",
                             "writes a hardware register"}}) {
    auto v = vec_add_with(dir, [&](std::string& t) { replace_first(t, c.from, c.to); });
    ASSERT_TRUE(v);
    auto r = verify_or_fail(v->k0, *v->k1, v->shapes);
    EXPECT_EQ(r.rejected_by, "float_mode") << c.to << ": " << r.reason;
    EXPECT_NE(r.reason.find(c.named), std::string::npos) << r.reason;
    EXPECT_NE(r.reason.find("unverified"), std::string::npos) << r.reason;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Probe trials
// ---------------------------------------------------------------------------------------------------------------

fs::path inductor(const fs::path& dir, const std::string& file) { return dir / "inductor-dev" / file; }

/// inductor's argmin over rows of f32 for gfx942 (file inputs, continuous values: no two elements of a row are
/// equal, none is NaN) with one instruction of K1 replaced, and its launch file.
struct Argmin {
  std::optional<verify::CodeObject> k0, k1;
  std::vector<verify::LaunchSpec> shapes;
};
Argmin argmin_with(const fs::path& dir, const std::string& from, const std::string& to) {
  Argmin a;
  auto k0 = verify::load_code_object(inductor(dir, "L1_argmin.k0.gfx942.hsaco"));
  EXPECT_TRUE(k0) << k0.error().str();
  auto shapes = verify::read_launch_file(inductor(dir, "L1_argmin.k0.json"));
  EXPECT_TRUE(shapes) << shapes.error().str();
  if (!k0 || !shapes) return a;
  a.k1 = edited_k1(*k0, [&](std::string& t) { replace_first(t, from, to); });
  a.k0 = std::move(*k0);
  a.shapes = std::move(*shapes);
  return a;
}

/// What a one-instruction edit that only probe inputs expose gets: "refuted" by the prover first (its window is one
/// compare); with the prover off, "equivalent" from the launch file's own trial, and rejected by a probe trial,
/// whose kind the reason names. Returns the last receipt.
verify::Receipt only_probes_catch(const Argmin& a, const std::string& probe_in_reason) {
  verify::VerifyOptions o;
  o.trials = 1;
  o.schedules = 1;
  auto refuted = verify_or_fail(*a.k0, *a.k1, a.shapes, o);
  EXPECT_EQ(refuted.rejected_by, "refuted") << refuted.reason;
  o.refute = false;
  o.probes = false;
  auto without = verify_or_fail(*a.k0, *a.k1, a.shapes, o);
  EXPECT_EQ(without.verdict, verify::Verdict::equivalent) << without.rejected_by << ": " << without.reason;
  o.probes = true;
  auto with = verify_or_fail(*a.k0, *a.k1, a.shapes, o);
  EXPECT_EQ(with.verdict, verify::Verdict::not_equivalent);
  EXPECT_TRUE(with.rejected_by == "run" || with.rejected_by == "state") << with.rejected_by << ": " << with.reason;
  EXPECT_NE(with.reason.find(probe_in_reason), std::string::npos) << with.reason;
  return with;
}

/// K1 turns argmin's tie-break around: the equality test of the first pairwise step never holds (v_cmp_f), so on a
/// tie the larger index wins. The launch file's inputs never tie; a probe rejects it (the specials probe already
/// ties +0 with -0 and repeats its special values; the ties probe draws four values), and the receipt lists it.
TEST(Probes, ATieBreakTurnedAroundIsCaughtByTheTiesProbe) {
  ASMEVO_REQUIRE_CORPUS(dir);
  const auto a = argmin_with(dir, "v_cmp_eq_f32_e64 s[10:11], v10, v4", "v_cmp_f_f32_e64 s[10:11], v10, v4");
  ASSERT_TRUE(a.k0 && a.k1);
  const auto with = only_probes_catch(a, "(probe: ");
  bool listed = false;
  for (const auto& tr : with.json["shapes"][0]["trials"]) listed = listed || tr.contains("probe");
  EXPECT_TRUE(listed) << with.json["shapes"][0]["trials"].dump();

  // The ties probe alone catches it too: the shape's inputs replaced by the ties probe's, no probes after.
  auto ties_only = a.shapes;
  const auto probes = verify::probes_of(ties_only[0]);
  ASSERT_EQ(probes.size(), 4u);
  ASSERT_EQ(probes[1].kind, "ties");
  ties_only[0] = probes[1].spec;
  verify::VerifyOptions o;
  o.trials = 1;
  o.schedules = 1;
  o.refute = false;
  o.probes = false;
  auto tied = verify_or_fail(*a.k0, *a.k1, ties_only, o);
  EXPECT_EQ(tied.verdict, verify::Verdict::not_equivalent) << tied.reason;
}

/// argmin lets a NaN win (torch.argmin propagates NaN): where v10 is NaN and its neighbour v4 is not, the pairwise
/// step picks v10 through `isnan(v10) & !isnan(v4)` (i35 tests that v4 is ordered). K1 tests v10 there instead, so
/// the term is never true and the NaN loses: a wrong index, but only for inputs with NaN. The specials probe (5%
/// NaN, infinities, signed zeros ...) rejects it. K0 against itself passes every probe.
/// (Testing v10 for v4 in i34's `isnan(v4)` instead would be no such edit: the prover shows the final choice the
/// same, since the NaN case is decided by the other term.)
TEST(Probes, ANanTestOnTheWrongOperandIsCaughtByTheSpecialsProbe) {
  ASMEVO_REQUIRE_CORPUS(dir);
  const auto a = argmin_with(dir, "v_cmp_o_f32_e64 s[14:15], v4, v4", "v_cmp_o_f32_e64 s[14:15], v10, v10");
  ASSERT_TRUE(a.k0 && a.k1);
  (void)only_probes_catch(a, "(probe: specials)");
  verify::VerifyOptions o;
  o.trials = 1;
  o.schedules = 1;
  auto same = verify_or_fail(*a.k0, *a.k0, a.shapes, o);
  EXPECT_EQ(same.verdict, verify::Verdict::equivalent) << same.rejected_by << ": " << same.reason;
  EXPECT_GE(same.json["probe_trials"].get<int>(), 3);
}

/// probes_of: scalars, zero outputs and integer file buffers are never redrawn; integer random buffers only in
/// the ties probe and inside their declared range; a shape with a tolerance gets only the ties probe.
TEST(Probes, OnlyDataInputsAreRedrawn) {
  verify::LaunchSpec s;
  auto buffer = [](verify::DType t, verify::Init in) {
    verify::ArgSpec a;
    a.kind = verify::ArgSpec::Kind::buffer;
    a.buffer.dtype = t;
    a.buffer.count = 64;
    a.buffer.init = in;
    return a;
  };
  verify::Init rnd;
  rnd.kind = verify::Init::random;
  rnd.min = -3;
  rnd.max = 5;
  s.args.push_back(buffer(verify::DType::f32, rnd));   // 0: float data
  s.args.push_back(buffer(verify::DType::i32, rnd));   // 1: integer data with a range
  s.args.push_back(buffer(verify::DType::f32, {}));    // 2: zeros (an output)
  verify::ArgSpec sc;
  sc.kind = verify::ArgSpec::Kind::scalar;
  s.args.push_back(sc);                                 // 3: a size
  s.outputs = {2};
  const auto probes = verify::probes_of(s);
  ASSERT_EQ(probes.size(), 4u);
  EXPECT_EQ(probes[0].kind, "specials");
  EXPECT_EQ(probes[0].args, (std::vector<std::size_t>{0}));
  EXPECT_EQ(probes[1].kind, "ties");
  EXPECT_EQ(probes[1].args, (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(probes[1].spec.args[1].buffer.init.min, -3);
  EXPECT_EQ(probes[1].spec.args[1].buffer.init.max, 5);
  EXPECT_EQ(probes[2].kind, "binades");
  // Without code constants the constants probe draws NaNs into the float buffer only.
  EXPECT_EQ(probes[3].kind, "constants");
  EXPECT_EQ(probes[3].args, (std::vector<std::size_t>{0}));
  // The ties probe's buffer holds at most 4 distinct values, all inside [-3, 5].
  auto bytes = verify::materialize(probes[1].spec.args[1].buffer, 0);
  ASSERT_TRUE(bytes);
  std::set<std::int32_t> seen;
  for (std::size_t i = 0; i < 64; ++i) {
    std::int32_t x;
    std::memcpy(&x, bytes->data() + 4 * i, 4);
    EXPECT_GE(x, -3);
    EXPECT_LE(x, 5);
    seen.insert(x);
  }
  EXPECT_LE(seen.size(), 4u);
  // With constants, the integer buffer takes those inside its range (2 and its neighbours; 7's are outside), and the
  // float buffer the f32 constant itself, among NaNs of both signs and two payloads.
  const std::uint32_t magic = 0x3f9d70a4;  // 1.23f
  const std::vector<std::uint32_t> constants{2, 7, magic};
  const auto with = verify::probes_of(s, constants);
  ASSERT_EQ(with.size(), 4u);
  EXPECT_EQ(with[3].args, (std::vector<std::size_t>{0, 1}));
  auto ints = verify::materialize(with[3].spec.args[1].buffer, 0);
  auto floats = verify::materialize(with[3].spec.args[0].buffer, 0);
  ASSERT_TRUE(ints && floats);
  std::set<std::uint32_t> iseen, fseen;
  for (std::size_t i = 0; i < 64; ++i) {
    std::int32_t x;
    std::uint32_t f;
    std::memcpy(&x, ints->data() + 4 * i, 4);
    std::memcpy(&f, floats->data() + 4 * i, 4);
    EXPECT_GE(x, -3);
    EXPECT_LE(x, 5);
    iseen.insert(static_cast<std::uint32_t>(x));
    fseen.insert(f);
  }
  EXPECT_TRUE(iseen.count(2)) << "the integer constant is drawn";
  EXPECT_TRUE(fseen.count(magic)) << "the float constant is drawn";
  std::set<std::uint32_t> nans;
  for (const auto f : fseen)
    if ((f & 0x7f800000u) == 0x7f800000u && (f & 0x7fffffu) != 0) nans.insert(f);
  EXPECT_GE(nans.size(), 2u) << "NaNs of different payloads meet";
  s.tolerance[static_cast<std::size_t>(verify::DType::f32)] = verify::Tolerance{0, 1e-3};
  const auto tol = verify::probes_of(s);
  ASSERT_EQ(tol.size(), 1u);
  EXPECT_EQ(tol[0].kind, "ties");
}

}  // namespace

namespace {

/// inductor's relu over f32 for gfx942 with `lines` inserted before its store, and its launch file.
Argmin relu_with(const fs::path& dir, const std::string& lines) {
  Argmin a;
  auto k0 = verify::load_code_object(inductor(dir, "L1_relu.k0.gfx942.hsaco"));
  EXPECT_TRUE(k0) << k0.error().str();
  auto shapes = verify::read_launch_file(inductor(dir, "L1_relu.k0.json"));
  EXPECT_TRUE(shapes) << shapes.error().str();
  if (!k0 || !shapes) return a;
  a.k1 = edited_k1(*k0, [&](std::string& t) { insert_after(t, "v_cndmask_b32_e32 v2, 0, v2, vcc", lines); });
  a.k0 = std::move(*k0);
  a.shapes = std::move(*shapes);
  return a;
}

}  // namespace

/// The red-team round's relu edits that passed the runs: `v_max_f32 v2, v2, v2` before the store quiets a signaling
/// NaN (K0 stores it bit for bit), which only an sNaN input shows; zeroing results above 2^30 shows only on inputs
/// that large. The specials probe now draws signaling NaNs and the binades probe every binade of f32, so the runs
/// reject both even with the prover off.
TEST(Probes, SignalingNansAndHugeMagnitudesAreDrawn) {
  ASMEVO_REQUIRE_CORPUS(dir);
  verify::VerifyOptions o;
  o.refute = false;
  auto quiet = relu_with(dir, "\tv_max_f32_e32 v2, v2, v2\n");
  ASSERT_TRUE(quiet.k1);
  auto r = verify_or_fail(*quiet.k0, *quiet.k1, quiet.shapes, o);
  EXPECT_EQ(r.rejected_by, "run") << r.reason;
  auto huge = relu_with(dir, "\ts_mov_b32 s16, 0x4e800000\n\tv_cmp_lt_f32_e64 vcc, s16, v2\n\ts_nop 1\n"
                             "\tv_cndmask_b32_e64 v2, v2, 0, vcc\n");
  ASSERT_TRUE(huge.k1);
  r = verify_or_fail(*huge.k0, *huge.k1, huge.shapes, o);
  EXPECT_EQ(r.rejected_by, "run") << r.reason;
  // Both are refuted by the prover too, with its counterexample.
  r = verify_or_fail(*huge.k0, *huge.k1, huge.shapes);
  EXPECT_EQ(r.verdict, verify::Verdict::not_equivalent) << r.reason;
}

// ---------------------------------------------------------------------------------------------------------------
// Red-team round 2: the prover switched off by a register count, a wait or a float in its window; NaN payloads;
// the buffer descriptor's num_records and ADD_TID_ENABLE; LDS and scratch beyond the target's limits
// ---------------------------------------------------------------------------------------------------------------

namespace {

/// A Triton kernel for gfx942 (`stem`), K1 made by `edit`, and the project's launch file for it.
template <class Edit>
std::optional<VecAdd> triton_with(const fs::path& dir, const std::string& stem, Edit edit) {
  auto k0 = verify::load_code_object(triton_object(dir, stem));
  if (!k0) { ADD_FAILURE() << k0.error().str(); return std::nullopt; }
  auto shapes = verify::read_launch_file(triton_launch(stem));
  if (!shapes) { ADD_FAILURE() << shapes.error().str(); return std::nullopt; }
  VecAdd v{std::move(*k0), std::nullopt, std::move(*shapes)};
  v.k1 = edited_k1(v.k0, edit);
  if (!v.k1) return std::nullopt;
  return v;
}

// vec_add's sum of the second quarter (i81), and the magic value 1.23f no uniform draw hits.
constexpr const char* quarter_sum = "v_add_f32_e32 v4, v8, v12";
constexpr const char* magic = "0x3f9d70a4";

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// softmax's four loads of a row through the input's buffer descriptor s[16:19].
constexpr const char* loads[] = {"buffer_load_dword v5, v1, s[16:19], 0 offen", "buffer_load_dword v7, v2, s[16:19], 0 offen",
                                 "buffer_load_dword v8, v3, s[16:19], 0 offen", "buffer_load_dword v10, v4, s[16:19], 0 offen"};

/// `t` with `nt` on every load of `loads` (one edited region covers them all), `before` inserted before the first and
/// `after` after the last.
void around_loads(std::string& t, const std::string& before, const std::string& after) {
  for (const char* l : loads) replace_first(t, l, std::string(l) + " nt");
  replace_first(t, std::string("\t") + loads[0], before + "\t" + loads[0]);
  insert_after(t, loads[3], after);
}

}  // namespace

/// A1: out = 0 where x == 1.23f, written with s16..s20, past K0's SGPR allocation, so `assemble` raises the
/// descriptor's SGPR count. Register counts no longer switch the prover off: it refutes at 1.23. With the prover off,
/// the constants probe (the code's literals drawn into the inputs) shows it in the runs.
TEST(RedTeam2, ARaisedRegisterCountKeepsTheProverLooking) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto v = triton_with(dir, "vec_add_f32", [](std::string& t) {
    insert_after(t, quarter_sum, std::string("\ts_mov_b32 s20, ") + magic +
                                     "\n\tv_cmp_eq_f32_e64 s[16:17], s20, v8\n\ts_nop 1\n"
                                     "\tv_cndmask_b32_e64 v4, v4, 0, s[16:17]\n");
  });
  ASSERT_TRUE(v);
  ASSERT_NE(v->k0.module.kernels[0].descriptor.get(codeobject::field::sgpr_blocks),
            v->k1->module.kernels[0].descriptor.get(codeobject::field::sgpr_blocks))
      << "the edit is meant to raise the SGPR count";
  auto r = verify_or_fail(v->k0, *v->k1, v->shapes);
  EXPECT_EQ(r.rejected_by, "refuted") << r.reason;
  EXPECT_TRUE(has(r.reason, magic)) << r.reason;
  verify::VerifyOptions o;
  o.refute = false;
  r = verify_or_fail(v->k0, *v->k1, v->shapes, o);
  EXPECT_EQ(r.verdict, verify::Verdict::not_equivalent) << r.reason;
  EXPECT_TRUE(has(r.reason, "(probe: constants)")) << r.rejected_by << ": " << r.reason;
}

/// A2: the same edit around the unchanged sum, so a float result lies inside the window and the prover cannot look
/// (its note says so). The constants probe rejects it; with probes off it would pass the runs, and --require-proof
/// turns that into a rejection ("unproven").
TEST(RedTeam2, AFloatInsideTheWindowIsLeftToTheConstantsProbe) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto v = triton_with(dir, "vec_add_f32", [](std::string& t) {
    replace_first(t, std::string("\t") + quarter_sum,
                  std::string("\ts_mov_b32 s14, ") + magic + "\n\tv_cmp_eq_f32_e64 s[12:13], s14, v8\n\t" + quarter_sum);
    insert_after(t, quarter_sum, "\ts_nop 1\n\tv_cndmask_b32_e64 v4, v4, 0, s[12:13]\n");
  });
  ASSERT_TRUE(v);
  auto r = verify_or_fail(v->k0, *v->k1, v->shapes);
  EXPECT_EQ(r.verdict, verify::Verdict::not_equivalent) << r.reason;
  EXPECT_TRUE(has(r.reason, "(probe: constants)")) << r.rejected_by << ": " << r.reason;
  verify::VerifyOptions o;
  o.probes = false;
  o.trials = 1;
  r = verify_or_fail(v->k0, *v->k1, v->shapes, o);
  EXPECT_EQ(r.verdict, verify::Verdict::equivalent) << "no draw hits 1.23f: " << r.reason;
  o.require_proof = true;
  r = verify_or_fail(v->k0, *v->k1, v->shapes, o);
  EXPECT_EQ(r.rejected_by, "unproven") << r.reason;
  EXPECT_TRUE(r.json.contains("proof"));
  // K0 against itself is proven, so --require-proof accepts it.
  r = verify_or_fail(v->k0, v->k0, v->shapes, o);
  EXPECT_EQ(r.verdict, verify::Verdict::equivalent) << r.rejected_by << ": " << r.reason;
}

/// A3: relu with its result zeroed at 1.23f, the constant set before the s_waitcnt and the test after it: a window
/// that holds a wait. Waits are no-ops for values, so the prover looks, and refutes. (Set before the load, as the
/// red team did, the window holds the load, whose result the prover does not model: the constants probe rejects
/// that one, RedTeam2.AFloatInsideTheWindowIsLeftToTheConstantsProbe's case.)
TEST(RedTeam2, AWindowAcrossAWaitIsRefuted) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto k0 = verify::load_code_object(inductor(dir, "L1_relu.k0.gfx942.hsaco"));
  ASSERT_TRUE(k0) << k0.error().str();
  auto shapes = verify::read_launch_file(inductor(dir, "L1_relu.k0.json"));
  ASSERT_TRUE(shapes) << shapes.error().str();
  auto k1 = edited_k1(*k0, [](std::string& t) {
    insert_after(t, "v_lshl_add_u64 v[0:1], s[4:5], 0, v[0:1]", std::string("\ts_mov_b32 s13, ") + magic + "\n");
    insert_after(t, "v_cmp_ngt_f32_e32 vcc, 0, v2",
                 "\ts_nop 1\n\tv_cmp_neq_f32_e64 s[14:15], s13, v2\n\ts_and_b64 vcc, vcc, s[14:15]\n");
  });
  ASSERT_TRUE(k1);
  auto r = verify_or_fail(*k0, *k1, *shapes);
  EXPECT_EQ(r.rejected_by, "refuted") << r.reason;
  EXPECT_TRUE(has(r.reason, magic)) << r.reason;
}

/// A4: the sum's operands swapped. IEEE addition commutes, but with two NaN inputs the result carries src0's
/// payload: the constants probe draws NaNs of two payloads into both inputs, so they meet.
TEST(RedTeam2, SwappedOperandsPassOnAnotherNanPayload) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto v = triton_with(dir, "vec_add_f32", [](std::string& t) { replace_first(t, quarter_sum, "v_add_f32_e32 v4, v12, v8"); });
  ASSERT_TRUE(v);
  verify::VerifyOptions o;
  o.refute = false;
  auto r = verify_or_fail(v->k0, *v->k1, v->shapes, o);
  EXPECT_EQ(r.rejected_by, "run") << r.reason;
  EXPECT_TRUE(has(r.reason, "(probe: constants)")) << r.reason;
}

/// A5, A6: num_records lowered so that the last column's dword straddles it (4n - 2 for the loads, 4n - 1 for the
/// stores), with `nt` on the accesses so that one edited region covers every use. Which bytes hardware keeps is
/// chipset-dependent; the emulator stops on such an access, so K1 is rejected.
TEST(RedTeam2, ADwordStraddlingNumRecordsStopsTheRun) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto ld = triton_with(dir, "softmax_f32", [&](std::string& t) {
    around_loads(t, "\ts_lshl_b32 s18, s8, 2\n\ts_sub_u32 s18, s18, 2\n", "\ts_mov_b32 s18, 0x7ffffffe\n");
  });
  ASSERT_TRUE(ld);
  auto r = verify_or_fail(ld->k0, *ld->k1, ld->shapes);
  EXPECT_EQ(r.rejected_by, "run") << r.reason;
  EXPECT_TRUE(has(r.reason, "num_records")) << r.reason;

  const char* stores[] = {"buffer_store_dword v8, v1, s[0:3], 0 offen", "buffer_store_dword v7, v2, s[0:3], 0 offen",
                          "buffer_store_dword v6, v3, s[0:3], 0 offen", "buffer_store_dword v0, v4, s[0:3], 0 offen"};
  auto st = triton_with(dir, "softmax_f32", [&](std::string& t) {
    insert_after(t, ".Lsoftmax_rows_preload_entry:", "\ts_mov_b32 s30, s8\n");
    for (const char* l : stores) replace_first(t, l, std::string(l) + " nt");
    replace_first(t, std::string("\t") + stores[0],
                  std::string("\ts_lshl_b32 s2, s30, 2\n\ts_sub_u32 s2, s2, 1\n\t") + stores[0]);
  });
  ASSERT_TRUE(st);
  r = verify_or_fail(st->k0, *st->k1, st->shapes);
  EXPECT_EQ(r.rejected_by, "run") << r.reason;
  EXPECT_TRUE(has(r.reason, "num_records")) << r.reason;
}

/// A7: ADD_TID_ENABLE set on the input descriptor around the loads (word1's stride is 0). Untyped accesses take
/// DATA_FORMAT (4 here) as stride bits 17:14, so lane L reads 65536 * L bytes further on: the runs differ.
TEST(RedTeam2, AddTidTakesItsStrideFromTheDataFormat) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto v = triton_with(dir, "softmax_f32", [&](std::string& t) {
    around_loads(t, "\ts_mov_b32 s19, 0x827000\n", "\ts_mov_b32 s19, 0x27000\n");
  });
  ASSERT_TRUE(v);
  auto r = verify_or_fail(v->k0, *v->k1, v->shapes);
  EXPECT_EQ(r.rejected_by, "run") << r.reason;
}

/// A8, A9: a group segment over the 64 KiB a gfx942 workgroup can have, and a private segment over what a wave's
/// scratch can hold: the runtime would not launch either, so K1 is rejected before anything runs.
TEST(RedTeam2, LdsAndScratchBeyondTheTargetsLimitsAreRejected) {
  ASMEVO_REQUIRE_CORPUS(dir);
  for (const auto& [directive, key, value] :
       {std::tuple{".amdhsa_group_segment_fixed_size 0", ".group_segment_fixed_size: 0", "131072"},
        std::tuple{".amdhsa_private_segment_fixed_size 0", ".private_segment_fixed_size: 0", "1048576"}}) {
    auto v = triton_with(dir, "softmax_f32", [&](std::string& t) {
      std::string d = directive, k = key;
      replace_first(t, d, d.substr(0, d.size() - 1) + value);
      replace_first(t, k, k.substr(0, k.size() - 1) + value);
    });
    ASSERT_TRUE(v);
    auto r = verify_or_fail(v->k0, *v->k1, v->shapes);
    EXPECT_EQ(r.rejected_by, "abi") << r.reason;
    EXPECT_TRUE(has(r.reason, "cannot launch")) << r.reason;
    EXPECT_TRUE(has(r.reason, value)) << r.reason;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Red-team round 3: a magic value the kernel computes, and shift amounts hardware does not define
// ---------------------------------------------------------------------------------------------------------------

/// out = 0 where bits(a) == 0x12345678 ^ 0x52ac0e16, in two windows (the prover checks one) and computed, so no
/// literal names it. The compares of the shape's own runs meet the value (the emulator logs a compare's
/// wave-uniform operand), and the constants probe draws it into the inputs.
TEST(RedTeam3, AComputedMagicValueIsDrawnFromTheComparesTheRunsMet) {
  ASMEVO_REQUIRE_CORPUS(dir);
  const std::string trigger = "\ts_mov_b32 s12, 0x12345678\n\ts_xor_b32 s12, s12, 0x52ac0e16\n";
  auto v = triton_with(dir, "vec_add_f32", [&](std::string& t) {
    insert_after(t, quarter_sum, trigger + "\tv_cmp_eq_u32_e64 s[4:5], s12, v8\n\ts_nop 1\n\tv_cndmask_b32_e64 v4, v4, 0, s[4:5]\n");
    insert_after(t, last_sum, trigger + "\tv_cmp_eq_u32_e64 s[4:5], s12, v7\n\ts_nop 1\n\tv_cndmask_b32_e64 v4, v4, 0, s[4:5]\n");
  });
  ASSERT_TRUE(v);
  auto r = verify_or_fail(v->k0, *v->k1, v->shapes);
  EXPECT_EQ(r.rejected_by, "run") << r.reason;
  EXPECT_TRUE(has(r.reason, "(probe: constants)")) << r.reason;
  EXPECT_TRUE(has(r.json.dump(), "0x4098586e")) << "the probe's receipt lists the computed value";
}

/// v_lshl_add_u64 with a shift of 10 where K0 shifts by 2: the encoding reads S1[2:0] (10 & 7 = 2), so a model of
/// the field alone calls them equal, but LLVM uses only 0..4 and hardware's behaviour beyond is undocumented. The
/// emulator stops on such a shift, so K1 is rejected by its runs.
TEST(RedTeam3, AShiftBeyondFourOfLshlAddU64StopsTheRun) {
  ASMEVO_REQUIRE_CORPUS(dir);
  auto v = triton_with(dir, "vec_add_f32", [](std::string& t) {
    replace_first(t, "v_lshl_add_u64 v[0:1], v[0:1], 2, s[6:7]", "v_lshl_add_u64 v[0:1], v[0:1], 10, s[6:7]");
  });
  ASSERT_TRUE(v);
  auto r = verify_or_fail(v->k0, *v->k1, v->shapes);
  EXPECT_EQ(r.rejected_by, "run") << r.reason;
  EXPECT_TRUE(has(r.reason, "shifts by 10")) << r.reason;
}
