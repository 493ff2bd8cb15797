// Tests of the peephole pass and its rule DSL (passes/peephole.hpp, passes/rules.hpp): each starter rule on small
// kernels for every target, the places it must not fire, the edit log and undo, the fixed point, and the
// emulator agreeing that a rewritten kernel computes what the original did on all 64 lanes.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <ostream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "asmevo/passes/peephole.hpp"
#include "verify/emu_harness.hpp"

namespace {

using namespace asmevo;
using namespace asmevo::passes;
using namespace asmevo::passes::vars;
// `op(` is the rule DSL's; with both using-directives above it would be ambiguous with the namespace asmevo::op
// (rules.hpp, "Names").
using asmevo::passes::op;

const bool rc_defaults_installed = [] {
  std::string p = std::getenv("RC_PARAMS") ? std::getenv("RC_PARAMS") : "";
  if (p.find("max_success") == std::string::npos) p += " max_success=300";
  setenv("RC_PARAMS", p.c_str(), 1);
  return true;
}();

constexpr Target all_targets[] = {Target::gfx942, Target::gfx90a, Target::gfx950};

/// A kernel `k:` with `body` (one instruction per line) and s_endpgm.
Program kernel(const std::string& body, Target t) {
  auto p = parse_program("k:\n" + body + "\ns_endpgm\n", t);
  EXPECT_TRUE(p) << (p ? "" : p.error().message) << "\n" << body;
  return p ? std::move(*p) : Program{};
}

/// The instructions of `p`, printed one per line, without ids and without the final s_endpgm.
std::string body_of(const Program& p) {
  std::string s;
  for (const auto& it : p.items)
    if (it.kind == Item::Kind::inst) {
      const std::string line = print_inst(it.inst);
      if (line == "s_endpgm") continue;
      if (!s.empty()) s += '\n';
      s += line;
    }
  return s;
}

template <class P = Peephole>
std::string run_on(const std::string& body, Target t, PassStats* stats = nullptr, const P& pass = {}) {
  Program p = kernel(body, t);
  Rewriter r(p);
  auto st = run_pass(pass, r, PassContext{});
  EXPECT_TRUE(st) << (st ? "" : st.error().message);
  if (st && stats) *stats = *st;
  return body_of(p);
}

/// The id of the `n`-th instruction of `p`.
InstId nth(const Program& p, std::size_t n) {
  for (const auto& it : p.items)
    if (it.kind == Item::Kind::inst && n-- == 0) return it.inst.id;
  return {};
}

// ---- each rule fires, on each target -----------------------------------------------------------------------

struct Fires {
  const char* what;
  const char* before;
  const char* after;
};

const Fires fires[] = {
    {"shift+add", "v_lshlrev_b32 v1, 2, v2\nv_add_u32 v3, v1, v4", "v_lshl_add_u32 v3, v2, 2, v4"},
    {"shift+add, shifted value second", "v_lshlrev_b32 v1, 2, v2\nv_add_u32 v3, v4, v1", "v_lshl_add_u32 v3, v2, 2, v4"},
    {"shift+add, SGPR shift amount, constant addend", "v_lshlrev_b32 v1, s3, v2\nv_add_u32 v3, 7, v1",
     "v_lshl_add_u32 v3, v2, s3, 7"},
    {"shift+add, not adjacent", "v_lshlrev_b32 v1, 2, v2\nv_mov_b32 v9, v8\nv_add_u32 v3, v1, v4",
     "v_mov_b32_e32 v9, v8\nv_lshl_add_u32 v3, v2, 2, v4"},
    {"shift+add, addend written in between (read where it was)", "v_lshlrev_b32 v1, 2, v2\nv_mov_b32 v4, 5\nv_add_u32 v3, v1, v4",
     "v_mov_b32_e32 v4, 5\nv_lshl_add_u32 v3, v2, 2, v4"},
    {"shift+add into the intermediate", "v_lshlrev_b32 v1, 2, v2\nv_add_u32 v1, v1, v4", "v_lshl_add_u32 v1, v2, 2, v4"},
    {"shift+add, shift in place", "v_lshlrev_b32 v1, 2, v1\nv_add_u32 v3, v1, v4", "v_lshl_add_u32 v3, v1, 2, v4"},
    {"shift+add, intermediate overwritten later", "v_lshlrev_b32 v1, 2, v2\nv_add_u32 v3, v1, v4\nv_mov_b32 v1, 0\nv_add_u32 v5, v1, v1",
     "v_lshl_add_u32 v3, v2, 2, v4\nv_mov_b32_e32 v1, 0\nv_add_u32_e32 v5, v1, v1"},
    {"add+shift", "v_add_u32 v1, v2, v3\nv_lshlrev_b32 v4, 3, v1", "v_add_lshl_u32 v4, v2, v3, 3"},
    {"add+shift, e64 forms", "v_add_u32_e64 v1, v2, s3\nv_lshlrev_b32_e64 v4, v5, v1", "v_add_lshl_u32 v4, v2, s3, v5"},
    {"add+add", "v_add_u32 v1, v2, v3\nv_add_u32 v4, v5, v1", "v_add3_u32 v4, v2, v3, v5"},
    {"and+or", "v_and_b32 v1, v2, v3\nv_or_b32 v4, v1, v5", "v_and_or_b32 v4, v2, v3, v5"},
    {"and+or, constant mask", "v_and_b32 v1, 15, v3\nv_or_b32 v4, v5, v1", "v_and_or_b32 v4, 15, v3, v5"},
    {"or+or", "v_or_b32 v1, v2, v3\nv_or_b32 v4, v1, s5", "v_or3_b32 v4, v2, v3, s5"},
    {"self moves", "v_mov_b32 v1, v1\ns_mov_b32 s2, s2\ns_mov_b64 s[4:5], s[4:5]\nv_mov_b32 v2, v1", "v_mov_b32_e32 v2, v1"},
    {"a chain: the second add fuses with the third", "v_add_u32 v1, v2, v3\nv_add_u32 v4, v1, v5\nv_add_u32 v6, v4, v7",
     "v_add_u32_e32 v1, v2, v3\nv_add3_u32 v6, v1, v5, v7"},
    {"two pairs", "v_lshlrev_b32 v1, 2, v2\nv_add_u32 v3, v1, v4\nv_and_b32 v5, v6, v7\nv_or_b32 v8, v5, v3",
     "v_lshl_add_u32 v3, v2, 2, v4\nv_and_or_b32 v8, v6, v7, v3"},
};

TEST(Peephole, EachRuleFiresOnEveryTarget) {
  for (const Target t : all_targets)
    for (const auto& c : fires) {
      PassStats st;
      EXPECT_EQ(run_on(c.before, t, &st), c.after) << c.what << " on " << to_string(t);
      EXPECT_LT(st.insts_delta, 0) << c.what;
    }
}

// ---- and does not fire where it would change a value -------------------------------------------------------

struct Stays {
  const char* what;
  const char* body;
  const char* reason;  ///< a word of explain()'s answer for the first instruction
};

const Stays stays[] = {
    {"intermediate read later", "v_lshlrev_b32 v1, 2, v2\nv_add_u32 v3, v1, v4\nv_add_u32 v5, v1, v6", "read later"},
    {"intermediate read by a store later", "v_lshlrev_b32 v1, 2, v2\nv_add_u32 v3, v1, v4\nglobal_store_dword v[6:7], v1, off",
     "read later"},
    {"intermediate live in a later block", "v_lshlrev_b32 v1, 2, v2\nv_add_u32 v3, v1, v4\ns_branch L\nL:\nv_add_u32 v5, v1, v6",
     "after the block"},
    {"intermediate rewritten only in some lanes before a read (register liveness would call it dead)",
     "v_lshlrev_b32 v1, 2, v2\nv_add_u32 v3, v1, v4\ns_mov_b64 exec, s[0:1]\nv_mov_b32 v1, 0\ns_mov_b64 exec, -1\nv_add_u32 v5, v1, v6",
     "read later"},
    {"intermediate rewritten by SDWA that keeps bits", "v_lshlrev_b32 v1, 2, v2\nv_add_u32 v3, v1, v4\n"
     "v_mov_b32_sdwa v1, v7 dst_sel:WORD_0 dst_unused:UNUSED_PRESERVE src0_sel:DWORD\nv_add_u32 v5, v1, v6", "read later"},
    {"shifted source written in between", "v_lshlrev_b32 v1, 2, v2\nv_mov_b32 v2, 0\nv_add_u32 v3, v1, v4", "source is written"},
    {"shift amount written in between", "v_lshlrev_b32 v1, s3, v2\ns_mov_b32 s3, 0\nv_add_u32 v3, v1, v4", "source is written"},
    {"exec changes in between", "v_lshlrev_b32 v1, 2, v2\ns_mov_b64 exec, s[0:1]\nv_add_u32 v3, v1, v4", "exec changes"},
    {"exec changed by v_cmpx in between", "v_lshlrev_b32 v1, 2, v2\nv_cmpx_lt_u32 vcc, v8, v9\nv_add_u32 v3, v1, v4", "exec changes"},
    {"literal addend: gfx9 VOP3 takes no literal", "v_lshlrev_b32 v1, 2, v2\nv_add_u32 v3, 0x12345, v1", "literal"},
    {"literal and mask", "v_and_b32 v1, 0xff00ff, v3\nv_or_b32 v4, v1, v5", "literal"},
    {"two SGPRs: the constant bus", "v_lshlrev_b32 v1, s2, v2\nv_add_u32 v3, s4, v1", "constant bus"},
    {"clamp on the add", "v_add_u32_e64 v1, v2, v3\nv_add_u32_e64 v4, v5, v1 clamp", "clamp"},
    {"DPP first op", "v_add_u32_dpp v1, v2, v3 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf\nv_add_u32 v4, v5, v1", "DPP"},
    {"intermediate twice in the reader", "v_add_u32 v1, v2, v3\nv_add_u32 v4, v1, v1", "erased"},
    {"shift of the wrong operand", "v_add_u32 v1, v2, v3\nv_lshlrev_b32 v4, v1, v5", "does not match"},
    {"first reader is another instruction", "v_lshlrev_b32 v1, 2, v2\nv_mul_lo_u32 v5, v1, v1\nv_add_u32 v3, v1, v4",
     "does not match"},
    {"intermediate overwritten before the add", "v_lshlrev_b32 v1, 2, v2\nv_mov_b32 v1, 0\nv_add_u32 v3, v1, v4", "overwritten"},
    {"across blocks", "v_lshlrev_b32 v1, 2, v2\ns_branch L\nL:\nv_add_u32 v3, v1, v4", "no later instruction"},
    {"a move that is not a self move", "v_mov_b32 v1, v2", "would be"},
};

TEST(Peephole, DoesNotFireWhereItWouldChangeAValue) {
  for (const Target t : all_targets)
    for (const auto& c : stays) {
      Program p = kernel(c.body, t);
      const std::string before = body_of(p);
      // explain() names the reason for the first instruction under the rule that would apply there.
      std::string why;
      for (const Rule& ru : peephole_rules::starter) {
        const std::string w = explain(ru, p, nth(p, 0));
        EXPECT_FALSE(w.empty()) << c.what << ": " << ru.name << " would fire";
        if (w.find(c.reason) != std::string::npos) why = w;
      }
      EXPECT_FALSE(why.empty()) << c.what << " on " << to_string(t) << ": no rule says '" << c.reason << "'";
      Rewriter r(p);
      auto st = run_pass(Peephole{}, r, PassContext{});
      ASSERT_TRUE(st) << st.error().message;
      EXPECT_EQ(body_of(p), before) << c.what << " on " << to_string(t);
      EXPECT_TRUE(r.log().empty()) << c.what;
    }
}

TEST(Peephole, ExplainSaysWhenItWouldFire) {
  Program p = kernel("v_lshlrev_b32 v1, 2, v2\nv_add_u32 v3, v1, v4", Target::gfx942);
  EXPECT_EQ(explain(peephole_rules::fuse_shift_add, p, nth(p, 0)), "");
  EXPECT_NE(explain(peephole_rules::fuse_add_add, p, nth(p, 0)), "");
}

TEST(Peephole, UnreachableCodeIsLeftAlone) {
  Program p = kernel("s_endpgm\nv_lshlrev_b32 v1, 2, v2\nv_add_u32 v3, v1, v4", Target::gfx942);
  Rewriter r(p);
  ASSERT_TRUE(run_pass(Peephole{}, r, PassContext{}));
  EXPECT_TRUE(r.log().empty());
}

// ---- the edits: logged with the rule's name, undone exactly ------------------------------------------------

TEST(Peephole, LogNamesTheRuleAndUndoRestoresTheText) {
  for (const Target t : all_targets) {
    Program p = kernel("v_lshlrev_b32 v1, 2, v2 ; the shift\nv_mov_b32 v9, v8\nv_add_u32 v3, v1, v4\n"
                       "v_mov_b32 v5, v5\nv_or_b32 v6, v7, v3\nv_or_b32 v0, v6, v9",
                       t);
    const std::string original = print_program(p);
    const InstId shift = nth(p, 0), add = nth(p, 2), self = nth(p, 3);
    Rewriter r(p);
    auto st = run_pass(Peephole{}, r, PassContext{});
    ASSERT_TRUE(st) << st.error().message;
    EXPECT_EQ(st->insts_delta, -3);
    EXPECT_EQ(st->edits, r.log().size());
    EXPECT_EQ(body_of(p), "v_mov_b32_e32 v9, v8\nv_lshl_add_u32 v3, v2, 2, v4\nv_or3_b32 v0, v7, v3, v9");
    // The fused instruction keeps the add's id.
    EXPECT_EQ(print_inst(*p.find(add)), "v_lshl_add_u32 v3, v2, 2, v4");
    EXPECT_EQ(p.find(shift), nullptr);
    EXPECT_EQ(p.find(self), nullptr);
    std::multiset<std::string> whys;
    bool replaced_add = false, erased_shift = false;
    for (const Edit& e : r.log()) {
      whys.insert(e.why);
      replaced_add |= e.op == Edit::Op::replace && e.at == add && e.why == "fuse-shift-add";
      erased_shift |= e.op == Edit::Op::erase && e.at == shift && e.why == "fuse-shift-add";
    }
    EXPECT_TRUE(replaced_add && erased_shift);
    EXPECT_EQ(whys, (std::multiset<std::string>{"fuse-shift-add", "fuse-shift-add", "fuse-or-or", "fuse-or-or", "drop-self-move"}));
    // Replaying the log on a fresh copy gives the same program.
    Program q = kernel("v_lshlrev_b32 v1, 2, v2 ; the shift\nv_mov_b32 v9, v8\nv_add_u32 v3, v1, v4\n"
                       "v_mov_b32 v5, v5\nv_or_b32 v6, v7, v3\nv_or_b32 v0, v6, v9",
                       t);
    Rewriter rq(q);
    ASSERT_TRUE(rq.replay(r.log()));
    EXPECT_EQ(print_program(q), print_program(p));
    r.undo();
    EXPECT_EQ(print_program(p), original) << to_string(t);
  }
}

TEST(Peephole, SecondRunChangesNothing) {
  for (const Target t : all_targets)
    for (const auto& c : fires) {
      Program p = kernel(c.before, t);
      Rewriter r(p);
      ASSERT_TRUE(run_pass(Peephole{}, r, PassContext{}));
      const std::size_t n = r.log().size();
      auto st = run_pass(Peephole{}, r, PassContext{});
      ASSERT_TRUE(st);
      EXPECT_EQ(st->edits, 0u) << c.what;
      EXPECT_EQ(r.log().size(), n);
    }
}

TEST(Peephole, NotesCountFirings) {
  PassStats st;
  run_on("v_add_u32 v1, v2, v3\nv_add_u32 v4, v5, v1\nv_add_u32 v6, v7, v8\nv_add_u32 v9, v6, v4", Target::gfx942, &st);
  ASSERT_EQ(st.notes.size(), 1u);
  EXPECT_EQ(st.notes[0], "fuse-add-add: fired 2 time(s)");
}

// ---- rules of one's own ------------------------------------------------------------------------------------

// (x << k) | y == v_lshl_or_b32(x, k, y) (MI300 ISA V_LSHL_OR_B32: D = (S0 << S1[4:0]) | S2).
constexpr Rule fuse_shift_or =
    rule("fuse-shift-or", seq(op(op::v_lshlrev_b32, _t, _k, _x), op(op::v_or_b32, _d, _t, _y).commutative()).where(dead_after(_t)),
         emit(op::v_lshl_or_b32, _d, _x, _k, _y));
static_assert(fuse_shift_or.error.empty());
static_assert(fuse_shift_or.replacement.opcode == op::v_lshl_or_b32 && !fuse_shift_or.replacement.erases);
static_assert(peephole_rules::drop_self_move_v.replacement.erases);

TEST(Peephole, UserRules) {
  const auto pass = peephole_with(fuse_shift_or, peephole_rules::fuse_add_add);
  static_assert(Pass<decltype(pass)>);
  EXPECT_EQ(run_on("v_lshlrev_b32 v1, 4, v2\nv_or_b32 v3, v5, v1\nv_lshlrev_b32 v6, 1, v7\nv_add_u32 v8, v6, v9",
                   Target::gfx942, nullptr, pass),
            "v_lshl_or_b32 v3, v2, 4, v5\nv_lshlrev_b32_e32 v6, 1, v7\nv_add_u32_e32 v8, v6, v9");
}

TEST(Peephole, MalformedRulesMadeAtRunTimeAreRefused) {
  // These would not compile as constexpr rules; made at run time they carry the problem and the pass refuses them.
  Rule erases_live = rule("drop-move", seq(op(op::v_mov_b32, _d, _x)), erase());
  EXPECT_NE(erases_live.error.find("dead_after or unchanged"), std::string_view::npos);
  Rule grows = rule("grow", seq(op(op::v_mov_b32, _d, _x)), emit(op::v_mov_b32, _d, _x));
  EXPECT_NE(grows.error.find("must remove an instruction"), std::string_view::npos);
  Rule unbound = rule("unbound", seq(op(op::v_add_u32, _t, _a, _b), op(op::v_add_u32, _d, _t, _c)).where(dead_after(_t)),
                      emit(op::v_add3_u32, _d, _a, _b, _z));
  EXPECT_NE(unbound.error.find("does not bind"), std::string_view::npos);
  Rule undeclared = rule("undeclared", seq(op(op::v_add_u32, _t, _a, _b), op(op::v_add_u32, _d, _t, _c)),
                         emit(op::v_add3_u32, _d, _a, _b, _c));
  EXPECT_NE(undeclared.error.find("dead_after"), std::string_view::npos);
  Rule reads_dead = rule("reads-dead", seq(op(op::v_add_u32, _t, _a, _b), op(op::v_add_u32, _d, _t, _c)).where(dead_after(_t)),
                         emit(op::v_add3_u32, _d, _t, _b, _c));
  EXPECT_NE(reads_dead.error.find("dead_after"), std::string_view::npos);
  Rule unchained = rule("unchained", seq(op(op::v_add_u32, _t, _a, _b), op(op::v_add_u32, _d, _a, _c)).where(dead_after(_t)),
                        emit(op::v_add3_u32, _d, _a, _b, _c));
  EXPECT_NE(unchained.error.find("previous op"), std::string_view::npos);
  // The typed checks, against the instruction tables of all three targets.
  Rule short_op = rule("short-op", seq(op(op::v_add_u32, _t, _a), op(op::v_add_u32, _d, _t, _c)).where(dead_after(_t)),
                       emit(op::v_add3_u32, _d, _a, _a, _c));
  EXPECT_NE(short_op.error.find("an op names more or fewer placeholders"), std::string_view::npos) << short_op.error;
  Rule short_emit = rule("short-emit", seq(op(op::v_add_u32, _t, _a, _b), op(op::v_add_u32, _d, _t, _c)).where(dead_after(_t)),
                         emit(op::v_add3_u32, _d, _a, _b));
  EXPECT_NE(short_emit.error.find("the replacement names more or fewer placeholders"), std::string_view::npos) << short_emit.error;
  // _d is a VGPR (v_add_u32's vdst); s_add_u32's sdst takes SGPRs and the like only.
  Rule wrong_class = rule("wrong-class", seq(op(op::v_add_u32, _t, _a, _b), op(op::v_add_u32, _d, _t, _c)).where(dead_after(_t)),
                          emit(op::s_add_u32, _d, _a, _c));
  EXPECT_NE(wrong_class.error.find("accepts no register kind"), std::string_view::npos) << wrong_class.error;
  Rule dest_as_source = rule("dest-as-source", seq(op(op::v_add_u32, _t, _a, _b), op(op::v_add_u32, _d, _t, _c)).where(dead_after(_t)),
                             emit(op::v_add3_u32, _d, _a, _b, _d));
  EXPECT_NE(dest_as_source.error.find("destination in a source slot"), std::string_view::npos) << dest_as_source.error;
  Rule source_as_dest = rule("source-as-dest", seq(op(op::v_add_u32, _t, _a, _b), op(op::v_add_u32, _d, _t, _c)).where(dead_after(_t)),
                             emit(op::v_add3_u32, _a, _b, _c, _d));
  EXPECT_NE(source_as_dest.error.find("source in a destination slot"), std::string_view::npos) << source_as_dest.error;
  // _t would be an SGPR (s_mov_b32's sdst) and a VGPR (v_mov_b32's vdst) at once.
  Rule never = rule("never", seq(op(op::s_mov_b32, _t, _a), op(op::v_mov_b32, _t, _t)).where(dead_after(_t)), erase());
  EXPECT_NE(never.error.find("never matches"), std::string_view::npos) << never.error;
  Rule no_op = rule("no-op", seq(op(Opcode::invalid, _d, _x)).where(unchanged(_d)), erase());
  EXPECT_NE(no_op.error.find("an op needs an opcode"), std::string_view::npos) << no_op.error;

  Program p = kernel("v_mov_b32 v1, v2", Target::gfx942);
  Rewriter r(p);
  auto st = run_pass(peephole_with(erases_live), r, PassContext{});
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("drop-move"), std::string::npos);
  EXPECT_TRUE(r.log().empty());
}

// ---- the emulator agrees: random kernels around each rule, random inputs and exec ---------------------------

/// A generated kernel: the text and the registers whose final values the comparison skips (none: the pass's
/// erased results are added after it runs).
struct Case {
  Target target;
  std::string body;
};

void showValue(const Case& c, std::ostream& os) { os << to_string(c.target) << ":\n" << c.body; }

std::string vreg(unsigned i) { return "v" + std::to_string(i); }

/// A source operand: mostly VGPRs of a small pool (so registers collide: x == t, d == t, y == x), sometimes an SGPR,
/// an inline constant, or (where `literal_ok`) a literal.
rc::Gen<std::string> src(bool vgpr_only, bool literal_ok) {
  using namespace rc::gen;
  auto v = map(inRange(0u, 8u), vreg);
  if (vgpr_only) return v;
  auto sg = map(inRange(0u, 4u), [](unsigned i) { return "s" + std::to_string(i); });
  auto c = map(inRange(-16, 65), [](int i) { return std::to_string(i); });
  if (!literal_ok) return weightedOneOf<std::string>({{8, v}, {2, sg}, {2, c}});
  return weightedOneOf<std::string>({{8, v}, {2, sg}, {2, c}, {1, just(std::string("0x12345"))}});
}

/// Instructions placed between and after a rule's pair: they read and write the same pool, and change exec.
rc::Gen<std::string> filler() {
  using namespace rc::gen;
  return weightedOneOf<std::string>({
      {4, apply([](unsigned d, std::string s) { return "v_mov_b32 " + vreg(d) + ", " + s; }, inRange(0u, 8u), src(false, true))},
      {4, apply([](unsigned d, std::string a, unsigned b) { return "v_add_u32 " + vreg(d) + ", " + a + ", " + vreg(b); },
                inRange(0u, 8u), src(false, false), inRange(0u, 8u))},
      {2, apply([](unsigned d, std::string a, unsigned b) { return "v_xor_b32 " + vreg(d) + ", " + a + ", " + vreg(b); },
                inRange(0u, 8u), src(false, false), inRange(0u, 8u))},
      {2, just(std::string("s_mov_b64 exec, s[4:5]"))},
      // A write of some lanes only: register liveness calls the old value dead, the other lanes still hold it.
      {3, map(inRange(0u, 8u), [](unsigned i) { return "s_mov_b64 exec, s[4:5]\nv_mov_b32 " + vreg(i) + ", 0\ns_mov_b64 exec, -1"; })},
      {1, just(std::string("s_mov_b64 exec, -1"))},
      {1, map(inRange(0u, 4u), [](unsigned i) { return "s_mov_b32 s" + std::to_string(i) + ", 3"; })},
      {1, map(inRange(0u, 8u), [](unsigned i) { return "v_mov_b32 " + vreg(i) + ", " + vreg(i); })},
  });
}

/// One of the starter rules' pairs with random operands (either source order where the op commutes).
rc::Gen<std::string> pair() {
  using namespace rc::gen;
  return apply(
      [](unsigned kind, unsigned t, std::string a, std::string b, unsigned d, std::string other, bool swap) {
        static const char* first[] = {"v_lshlrev_b32", "v_add_u32", "v_add_u32", "v_and_b32", "v_or_b32"};
        static const char* second[] = {"v_add_u32", "v_lshlrev_b32", "v_add_u32", "v_or_b32", "v_or_b32"};
        // The second op reads the first's destination; src1 of an e32 form must be a VGPR.
        std::string x = other, y = vreg(t);
        if (swap && kind != 1) std::swap(x, y);
        if (y.front() != 'v') std::swap(x, y);
        return std::string(first[kind]) + " " + vreg(t) + ", " + a + ", " + b + "\n" + second[kind] + " " + vreg(d) + ", " + x +
               ", " + y;
      },
      inRange(0u, 5u), inRange(0u, 8u), src(false, true), src(true, false), inRange(0u, 8u), src(false, false),
      arbitrary<bool>());
}

/// Up to `max` filler lines.
rc::Gen<std::vector<std::string>> lines(std::size_t max) {
  using namespace rc::gen;
  return mapcat(inRange<std::size_t>(0, max + 1), [](std::size_t n) { return container<std::vector<std::string>>(n, filler()); });
}

rc::Gen<Case> kernels() {
  using namespace rc::gen;
  return apply(
      [](unsigned t, std::vector<std::string> pre, std::string p, std::vector<std::string> mid, std::vector<std::string> post) {
        Case c{all_targets[t], {}};
        auto add = [&](const std::string& l) { c.body += (c.body.empty() ? "" : "\n") + l; };
        for (auto& l : pre) add(l);
        const auto nl = p.find('\n');
        add(p.substr(0, nl));
        for (auto& l : mid) add(l);
        add(p.substr(nl + 1));
        for (auto& l : post) add(l);
        return c;
      },
      inRange(0u, 3u), lines(1), pair(), lines(2), lines(4));
}

/// Runs `text` with the given inputs; the final state of v0..v7, s0..s5 and exec.
std::vector<std::uint32_t> emulate(const std::string& text, Target t, std::uint64_t seed, std::uint64_t exec) {
  auto s = emu::test::make_snippet("k:\n" + text, t);
  RC_ASSERT(s != nullptr);
  emu::Wave& w = s->wave();
  std::mt19937_64 g(seed);
  for (unsigned r = 0; r < 8; ++r)
    for (unsigned l = 0; l < 64; ++l) w.row(r)[l] = static_cast<std::uint32_t>(g());
  for (unsigned r = 0; r < 6; ++r) w.s[r] = static_cast<std::uint32_t>(g());
  w.set_exec(exec);
  const auto& st = s->run();
  RC_ASSERT(st.kind == emu::Stop::Kind::none);
  std::vector<std::uint32_t> out;
  for (unsigned r = 0; r < 8; ++r) out.insert(out.end(), w.row(r), w.row(r) + 64);
  for (unsigned r = 0; r < 6; ++r) out.push_back(w.s[r]);
  out.push_back(w.s[126]);
  out.push_back(w.s[127]);
  return out;
}

RC_GTEST_PROP(PeepholeEmu, RewrittenKernelsComputeTheSameOnAllLanes, ()) {
  const Case c = *kernels();
  const auto seed = *rc::gen::arbitrary<std::uint64_t>();
  const auto exec = *rc::gen::weightedOneOf<std::uint64_t>({{2, rc::gen::just(~std::uint64_t{0})}, {3, rc::gen::arbitrary<std::uint64_t>()}});
  auto parsed = parse_program("k:\n" + c.body + "\ns_endpgm\n", c.target);
  RC_PRE(parsed.has_value());  // a generated operand the target cannot encode
  Program p = std::move(*parsed);
  const Program original = p;
  Rewriter r(p);
  auto st = run_pass(Peephole{}, r, PassContext{});
  RC_ASSERT(st.has_value());
  RC_TAG(st->edits ? "fired" : "did not fire");
  // The results of erased instructions were declared dead: their final values may differ, unless the fused
  // instruction writes the same register (then it must hold the same value). Self moves change nothing at all.
  std::set<unsigned> skip, rewritten;
  auto vgpr_defs = [](const Inst& in) {
    std::vector<unsigned> out;
    const auto ops = isa::operands(isa::forms(in.target)[in.form]);
    for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k)
      if (ops[k].role == isa::Role::def && in.ops[k].is_reg() && in.ops[k].reg.file == RegFile::vgpr) out.push_back(in.ops[k].reg.index);
    return out;
  };
  for (const Edit& e : r.log()) {
    if (e.op == Edit::Op::replace) {
      rewritten.clear();
      for (const unsigned v : vgpr_defs(e.insts.at(0))) rewritten.insert(v);
    }
    if (e.op != Edit::Op::erase || e.why == "drop-self-move") continue;
    const Inst* in = original.find(e.at);
    RC_ASSERT(in != nullptr);
    for (const unsigned v : vgpr_defs(*in))
      if (!rewritten.count(v)) skip.insert(v);
  }
  const std::string after = body_of(p);
  const auto a = emulate(c.body, c.target, seed, exec);
  const auto b = emulate(after, c.target, seed, exec);
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (i < 8 * 64 && skip.count(static_cast<unsigned>(i / 64))) continue;
    if (a[i] != b[i]) {
      RC_FAIL("differs at " + (i < 512 ? "v" + std::to_string(i / 64) + " lane " + std::to_string(i % 64) : "scalar " + std::to_string(i - 512)) +
              "\nbefore:\n" + c.body + "\nafter:\n" + after);
    }
  }
  // Idempotent.
  auto again = run_pass(Peephole{}, r, PassContext{});
  RC_ASSERT(again.has_value());
  RC_ASSERT(again->edits == 0u);
}

}  // namespace
