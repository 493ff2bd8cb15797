// software-pipeline (passes/software_pipeline.hpp): the code it writes for the project's row reduction loop, where
// it gives up and why, and a property over random programs (pass_properties.hpp: the emulator runs K0 and K1 on
// every case, so each generated trip count against each depth checks the trip tests, the drains and the rotation).
//
// Cases for the property: 1000 by default (a program has a streaming loop the pass takes in about one case of ten,
// and a case takes about 2 ms); RC_PARAMS overrides (rapidcheck prints its seed).
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "asmevo/ir/parser.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/passes/software_pipeline.hpp"
#include "passes/pass_properties.hpp"

namespace {

using namespace asmevo;
using asmevo::test::PropertyOptions;
using asmevo::test::check_pass_properties;

const bool rc_defaults_installed = [] {
  std::string p = std::getenv("RC_PARAMS") ? std::getenv("RC_PARAMS") : "";
  if (p.find("max_success") == std::string::npos) p += (p.empty() ? "" : " ") + std::string("max_success=1000");
  setenv("RC_PARAMS", p.c_str(), 1);
  return true;
}();

struct Out {
  std::string text;
  std::vector<std::string> notes;
  std::size_t edits = 0;
};

Out run(const std::string& src, std::map<std::string, std::string> args = {}) {
  Out o;
  auto p = parse_program(src, Target::gfx942, "<test>");
  EXPECT_TRUE(p) << (p ? "" : p.error().str());
  if (!p) return o;
  Program prog = std::move(*p);
  passes::Rewriter r(prog);
  passes::PassContext c;
  c.kernels = {"k"};
  c.args = std::move(args);
  auto st = passes::run_pass(passes::SoftwarePipeline{}, r, c);
  EXPECT_TRUE(st) << (st ? "" : st.error().str());
  if (st) o.notes = st->notes;
  o.edits = r.log().size();
  PrintOptions po;
  po.ids = false;
  o.text = print_program(prog, po);
  return o;
}

std::size_t count(const std::string& t, const std::string& n) {
  std::size_t c = 0;
  for (auto at = t.find(n); at != std::string::npos; at = t.find(n, at + 1)) ++c;
  return c;
}

/// The kernel's start: the row's address in v[pointer:pointer+1], the trip count in s6, the sum in v1, the step in s[0:1].
std::string prologue(const std::string& pointer) {
  return "k:\n"
         "  s_load_dwordx2 s[4:5], s[0:1], 0x0\n"
         "  s_load_dword s6, s[0:1], 0x8\n"
         "  v_mov_b32_e32 v1, 0\n"
         "  v_lshlrev_b32_e32 v2, 2, v0\n"
         "  v_mov_b32_e32 v3, 0\n"
         "  s_waitcnt lgkmcnt(0)\n"
         "  v_lshl_add_u64 " + pointer + ", s[4:5], 0, v[2:3]\n"
         "  s_mov_b64 s[0:1], 0x100\n";
}

/// The row reduction's loop as clang-22 builds it for gfx942 (examples/kernels/row_sum.hip): the body loads, steps the
/// counter and the pointer, compares, waits, and adds. `load`, `add` and `after` replace the load, the add and the code
/// after the loop.
std::string row_loop(const std::string& load = "global_load_dword v3, v[4:5], off",
                     const std::string& add = "v_add_f32_e32 v1, v1, v3", const std::string& after = "v_mov_b32_e32 v3, 0") {
  return prologue("v[4:5]") +
         ".Lloop:\n"
         "  " + load + "\n"
         "  s_add_i32 s6, s6, -1\n"
         "  v_lshl_add_u64 v[4:5], v[4:5], 0, s[0:1]\n"
         "  s_cmp_eq_u32 s6, 0\n"
         "  s_waitcnt vmcnt(0)\n"
         "  " + add + "\n"
         "  s_cbranch_scc0 .Lloop\n"
         "  " + after + "\n"
         "  global_store_dword v3, v1, s[4:5]\n"
         "  s_endpgm\n";
}

}  // namespace

// Depth 2 on the row loop: one trip test to K0's loop, two prologue loads (the second into a fresh VGPR), two copies
// that each wait for the older load only, and two drains that run the last pending add.
TEST(SoftwarePipeline, RotatesTheRowLoopsLoadsThroughFreshRegisters) {
  const auto o = run(row_loop(), {{"depth", "2"}});
  ASSERT_EQ(o.notes.size(), 1u);
  EXPECT_EQ(o.notes[0], "pipelined the loop at .Lloop to depth 2, 1 load(s) per iteration, 1 in flight while it computes");
  // The trip test: s2 is the lowest SGPR the kernel never names; the compare reads the IV after its update.
  EXPECT_NE(o.text.find("s_add_u32 s2, s6, -1\n\ts_cmp_eq_u32 s2, 0\n\ts_cbranch_scc1 .Lloop"), std::string::npos) << o.text;
  // K0's load, the prologue's two, and one per copy; v6 is the second register set.
  EXPECT_EQ(count(o.text, "global_load_dword v3, v[4:5], off"), 3u) << o.text;
  EXPECT_EQ(count(o.text, "global_load_dword v6, v[4:5], off"), 2u) << o.text;
  EXPECT_EQ(count(o.text, "s_waitcnt vmcnt(1)"), 2u) << o.text;
  EXPECT_EQ(count(o.text, "v_add_f32_e32 v1, v1, v6"), 2u) << o.text;  // copy 1 and drain 0
  EXPECT_EQ(count(o.text, "v_add_f32_e32 v1, v1, v3"), 3u) << o.text;  // K0, copy 0 and drain 1
  EXPECT_EQ(count(o.text, "s_branch .Lasmevo_pipe2__Lloop_exit"), 2u) << o.text;
  // The copies leave on SCC = 1 (K0 goes on while it is 0), to their drains.
  EXPECT_NE(o.text.find("v_add_f32_e32 v1, v1, v3\n\ts_cbranch_scc1 .Lasmevo_pipe2__Lloop_drain0"), std::string::npos) << o.text;
  // Drain 0 ends with iteration N-1 in v6: copied back into v3 (the code after the loop may read it, in the lanes a
  // masked write after the loop leaves alone); drain 1's last set is v3 itself.
  EXPECT_EQ(count(o.text, "v_mov_b32_e32 v3, v6\n\ts_branch .Lasmevo_pipe2__Lloop_exit"), 1u) << o.text;
  // K0's loop is still there, unchanged, for loops shorter than the depth.
  EXPECT_NE(o.text.find(".Lloop:\n\tglobal_load_dword v3, v[4:5], off\n\ts_add_i32 s6, s6, -1"), std::string::npos) << o.text;
}

// A load into its own address register (log_softmax's `global_load_dwordx2 v[4:5], v[4:5], off`, its address
// computed afresh before it): the next address is written while the load may be in flight, so every register set is
// fresh, K0's included.
TEST(SoftwarePipeline, ALoadIntoItsAddressRegisterGetsFreshRegistersInEverySet) {
  const std::string src =
      prologue("v[6:7]") +
      ".Lloop:\n"
      "  v_mov_b32_e32 v4, v6\n"
      "  v_mov_b32_e32 v5, v7\n"
      "  global_load_dword v4, v[4:5], off\n"
      "  s_add_i32 s6, s6, -1\n"
      "  v_lshl_add_u64 v[6:7], v[6:7], 0, s[0:1]\n"
      "  s_cmp_eq_u32 s6, 0\n"
      "  s_waitcnt vmcnt(0)\n"
      "  v_add_f32_e32 v1, v1, v4\n"
      "  s_cbranch_scc0 .Lloop\n"
      "  v_mov_b32_e32 v4, 0\n"
      "  global_store_dword v4, v1, s[4:5]\n"
      "  s_endpgm\n";
  const auto o = run(src, {{"depth", "3"}});
  ASSERT_EQ(o.notes.size(), 1u);
  EXPECT_EQ(o.notes[0].rfind("pipelined the loop at .Lloop to depth 3", 0), 0u) << o.notes[0];
  for (const char* v : {"v8", "v9", "v10"})
    EXPECT_EQ(count(o.text, std::string("global_load_dword ") + v + ", v[4:5], off"), 2u) << v << "\n" << o.text;
  EXPECT_EQ(count(o.text, "global_load_dword v4, v[4:5], off"), 1u) << o.text;  // K0's loop only
  EXPECT_EQ(count(o.text, "s_waitcnt vmcnt(2)"), 3u) << o.text;
  // Every set is fresh, so every drain copies its last set back into v4.
  for (const char* v : {"v8", "v9", "v10"})
    EXPECT_EQ(count(o.text, std::string("v_mov_b32_e32 v4, ") + v + "\n\ts_branch"), 1u) << v << "\n" << o.text;
}

// Where the pass leaves a loop, it says why, and changes nothing.
TEST(SoftwarePipeline, SaysWhyItLeavesALoop) {
  struct Case {
    std::string src, why;
  };
  const std::vector<Case> cases = {
      {row_loop("global_load_dword v3, v[4:5], off", "v_add_f32_e32 v1, v1, v3\n  v_mfma_f32_4x4x1f32 v[8:11], v3, v3, v[8:11]"),
       "the compute has a cross-lane instruction (v_mfma_f32_4x4x1"},
      {row_loop("global_load_dword v3, v[4:5], off", "v_add_u32_e32 v1, s6, v3"),
       "the compute reads s6, which the address or trip code computes"},
      {row_loop("global_load_dword v3, v[4:5], off", "v_add_f32_e32 v1, v1, v3\n  global_store_dword v[4:5], v1, off"),
       "the body has global_store_dword"},
      {row_loop("global_load_dword v3, v[4:5], off", "v_add_f32_e32 v1, v1, v3\n  v_mov_b32_dpp v1, v1 row_shl:1"),
       "the compute has a cross-lane instruction (v_mov_b32_dpp v1, v1 row_shl:1"},
      {row_loop("global_load_dword v3, v[4:5], off\n  v_add_co_u32_e32 v6, vcc, 1, v6",
                "v_cmp_gt_f32_e32 vcc, v3, v1\n  v_add_f32_e32 v1, v1, v3"),
       "the compute and the address or trip code both write vcc"},
      {row_loop("global_load_dword v3, v[4:5], off", "v_add_f32_e32 v1, v1, v3\n  v_mov_b32_e32 v2, v3",
                "v_mov_b32_e32 v3, 0"),
       ""},  // v2 is written by C only: fine (control: the pass fires)
      {"k:\n  s_mov_b32 s6, 4\n  v_mov_b32_e32 v1, 0\n.Lloop:\n  global_load_dwordx2 v[2:3], v[2:3], off\n"
       "  s_sub_u32 s6, s6, 1\n  s_cmp_lg_u32 s6, 0\n  s_waitcnt vmcnt(0)\n  v_add_f32_e32 v1, v1, v2\n"
       "  s_cbranch_scc1 .Lloop\n  v_mov_b32_e32 v2, 0\n  global_store_dword v2, v1, s[0:1]\n  s_endpgm\n",
       "a load's address depends on a loaded value (a pointer chase)"},
      {"k:\n  s_mov_b32 s6, 4\n  v_mov_b32_e32 v1, 0\n.Lloop:\n  s_add_u32 s6, s6, -1\n  s_cmp_lg_u32 s6, 0\n"
       "  v_add_f32_e32 v1, 1.0, v1\n  s_cbranch_scc1 .Lloop\n  global_store_dword v0, v1, s[0:1]\n  s_endpgm\n",
       "it has no global or buffer load to pipeline"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.src);
    const auto o = run(c.src, {{"depth", "2"}});
    ASSERT_EQ(o.notes.size(), 1u);
    if (c.why.empty()) {
      EXPECT_EQ(o.notes[0].rfind("pipelined", 0), 0u) << o.notes[0];
      continue;
    }
    EXPECT_EQ(o.notes[0].rfind("left the loop at .Lloop: " + c.why, 0), 0u) << o.notes[0];
    EXPECT_EQ(o.edits, 0u);
  }
}

TEST(SoftwarePipeline, BadArgumentsNameThemselves) {
  auto p = parse_program(row_loop(), Target::gfx942, "<test>");
  ASSERT_TRUE(p);
  passes::Rewriter r(*p);
  passes::PassContext c;
  c.kernels = {"k"};
  c.args = {{"depth", "9"}};
  auto st = passes::run_pass(passes::SoftwarePipeline{}, r, c);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("'depth' must be 2..8, got 9"), std::string::npos) << st.error().str();
  c.args = {{"loop", ".Lnothere"}};
  auto st2 = passes::run_pass(passes::SoftwarePipeline{}, r, c);
  ASSERT_FALSE(st2);
  EXPECT_NE(st2.error().message.find("no single-block loop has header label '.Lnothere'"), std::string::npos);
}

// The generator's counted loops against each depth: its streaming loops (1..9 trips; one load at a fixed address,
// two loads, or one whose address the loop steps) are what the pass takes, so trips below the depth run K0's loop and
// the others the back edge and every drain. The pass adds code, and a loop shorter than the depth pays the trip tests
// for nothing.
TEST(PassProperties, SoftwarePipeline) {
  for (const char* d : {"2", "3", "4"}) {
    SCOPED_TRACE(std::string("depth ") + d);
    PropertyOptions o;
    o.context.args["depth"] = d;
    o.may_grow = "it copies the loop body into a prologue, copies and drains";
    o.may_slow = "a loop shorter than the depth runs the trip tests and then the loop itself";
    EXPECT_TRUE(check_pass_properties(passes::SoftwarePipeline{}, o));
  }
}
