// passes/rewriter.hpp: edits by stable id, refusals that keep the CFG's shape, undo and replay; typed builders that
// insert through it (passes/builder.hpp); a stateful rapidcheck test drives random edit sequences against a plain
// list model.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <rapidcheck/state.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/ir/gen/builders_gfx942.hpp"
#include "asmevo/ir/parser.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/passes/builder.hpp"
#include "asmevo/passes/rewriter.hpp"

namespace asmevo::passes {
namespace {

Program parse(const std::string& text, Target t = Target::gfx942) {
  auto p = parse_program(text, t, "<test>");
  EXPECT_TRUE(p.has_value()) << (p ? "" : p.error().str());
  return p ? std::move(*p) : Program{};
}

Inst inst(const std::string& text, Target t = Target::gfx942) {
  auto in = parse_inst(text, t);
  EXPECT_TRUE(in.has_value()) << text << ": " << (in ? "" : in.error().str());
  return in ? *in : Inst{};
}

/// The instructions in order as "i<id> text".
std::vector<std::string> listing(const Program& p) {
  std::vector<std::string> out;
  for (const auto& it : p.items)
    if (it.kind == Item::Kind::inst) out.push_back("i" + std::to_string(it.inst.id.value) + " " + print_inst(it.inst));
  return out;
}

const char* const kLoop =
    "k:\n"
    "  v_mov_b32 v1, 0\n"          // i0
    "  s_mov_b32 s2, 4\n"          // i1
    ".Lloop:\n"
    "  v_add_u32 v1, v1, v0\n"     // i2
    "  s_sub_u32 s2, s2, 1\n"      // i3
    "  s_cmp_lg_u32 s2, 0\n"       // i4
    "  s_cbranch_scc1 .Lloop\n"    // i5
    "  v_mov_b32 v2, v1\n"         // i6
    "  s_endpgm\n";                // i7

TEST(Rewriter, ReplaceKeepsTheIdAndInsertGetsFreshOnes) {
  Program p = parse(kLoop);
  Rewriter r(p);
  ASSERT_TRUE(r.replace(InstId{2}, {inst("v_add_u32 v1, v0, v1"), inst("v_mov_b32 v3, v1")}));
  ASSERT_TRUE(r.insert_before(InstId{0}, {inst("s_nop 0")}));
  const auto l = listing(p);
  EXPECT_EQ(l[0], "i9 s_nop 0");
  EXPECT_EQ(l[3], "i2 v_add_u32_e32 v1, v0, v1");
  EXPECT_EQ(l[4], "i8 v_mov_b32_e32 v3, v1");
  EXPECT_EQ(r.log().size(), 2u);
  EXPECT_EQ(r.log()[0].insts[1].id.value, 8u);  // the log records the ids it handed out
}

TEST(Rewriter, RefusesEditsThatChangeTheCfgShape) {
  Program p = parse(kLoop);
  const auto before = listing(p);
  Rewriter r(p);
  auto e1 = r.erase(InstId{5});
  ASSERT_FALSE(e1);
  EXPECT_NE(e1.error().message.find("branch or terminator"), std::string::npos) << e1.error().message;
  EXPECT_FALSE(r.erase(InstId{7}));                               // s_endpgm
  EXPECT_FALSE(r.insert_after(InstId{7}, {inst("s_nop 0")}));     // after s_endpgm
  EXPECT_FALSE(r.move_before(InstId{5}, InstId{0}));              // a branch never moves
  EXPECT_FALSE(r.swap(InstId{4}, InstId{5}));
  EXPECT_FALSE(r.insert_before(InstId{2}, {inst("s_branch .Lloop")}));
  auto bad_label = r.replace(InstId{5}, {inst("s_cbranch_scc0 .Lnowhere")});
  ASSERT_FALSE(bad_label);
  EXPECT_NE(bad_label.error().message.find(".Lnowhere"), std::string::npos);
  EXPECT_FALSE(r.replace(InstId{5}, {inst("s_endpgm")}));               // would make the fall-through dead
  EXPECT_FALSE(r.replace(InstId{7}, {inst("s_cbranch_scc0 .Lloop")}));  // would fall out of s_endpgm's place
  EXPECT_FALSE(r.replace(InstId{5}, {inst("s_branch .Lloop")}));         // conditional for unconditional
  EXPECT_TRUE(r.replace(InstId{5}, {inst("s_cbranch_scc0 .Lloop")}));  // a conditional branch for another
  auto missing = r.erase(InstId{99});
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("no instruction i99"), std::string::npos);
  auto notwait = r.set_waitcnt(InstId{0}, Waitcnt{});
  ASSERT_FALSE(notwait);
  EXPECT_NE(notwait.error().message.find("not s_waitcnt"), std::string::npos);
  EXPECT_EQ(r.log().size(), 1u);  // refused edits are not logged and change nothing
  r.undo();
  EXPECT_EQ(listing(p), before);
}

TEST(Rewriter, InsertAfterAConditionalBranchFallsThroughAndIsAllowed) {
  // s_cbranch_scc1 falls through into i6: code inserted after it is reached.
  Program p = parse(kLoop);
  Rewriter r(p);
  ASSERT_TRUE(r.insert_after(InstId{5}, {inst("s_nop 0")}));
  ASSERT_TRUE(r.insert_before(InstId{6}, {inst("s_nop 1")}));
  const auto l = listing(p);
  EXPECT_EQ(l[5], "i5 s_cbranch_scc1 .Lloop");
  EXPECT_EQ(l[6], "i8 s_nop 0");
  EXPECT_EQ(l[7], "i9 s_nop 1");
  EXPECT_EQ(l[8], "i6 v_mov_b32_e32 v2, v1");
}

TEST(Rewriter, NothingMovesIntoOrOutOfCodeNoPathReaches) {
  Program p = parse("k:\n  v_mov_b32 v1, 0\n  global_store_dword v0, v1, s[0:1]\n  s_endpgm\n  s_nop 0\n");
  Rewriter r(p);
  EXPECT_FALSE(r.swap(InstId{0}, InstId{3}));        // the padding after s_endpgm
  EXPECT_FALSE(r.move_before(InstId{0}, InstId{3}));
  EXPECT_FALSE(r.insert_before(InstId{3}, {inst("v_mov_b32 v2, 0")}));
  EXPECT_TRUE(r.log().empty());
}

TEST(Rewriter, MoveSwapAndSetWaitcnt) {
  Program p = parse("k:\n  global_load_dword v1, v0, s[0:1]\n  v_mov_b32 v2, 1\n  s_waitcnt vmcnt(0)\n"
                    "  v_add_u32 v3, v1, v2\n  s_endpgm\n");
  Rewriter r(p);
  ASSERT_TRUE(r.move_before(InstId{1}, InstId{0}));
  ASSERT_TRUE(r.swap(InstId{0}, InstId{1}));
  ASSERT_TRUE(r.move_after(InstId{0}, InstId{1}));
  Waitcnt w = Waitcnt::none(Target::gfx942);
  w.vm = 1;
  ASSERT_TRUE(r.set_waitcnt(InstId{2}, w));
  const auto l = listing(p);
  EXPECT_EQ(l[0], "i1 v_mov_b32_e32 v2, 1");
  EXPECT_EQ(l[1], "i0 global_load_dword v1, v0, s[0:1]");
  EXPECT_EQ(l[2], "i2 s_waitcnt vmcnt(1)");
}

TEST(Rewriter, ReplayReproducesIdsAndText) {
  const Program orig = parse(kLoop);
  Program a = orig;
  Rewriter ra(a);
  ASSERT_TRUE(ra.insert_before(InstId{3}, {inst("v_mov_b32 v4, 7")}));
  ASSERT_TRUE(ra.replace(InstId{6}, {inst("v_mov_b32 v2, v0"), inst("v_mov_b32 v5, 1")}));
  ASSERT_TRUE(ra.erase(InstId{0}));
  Program b = orig;
  Rewriter rb(b);
  ASSERT_TRUE(rb.replay(ra.log()));
  EXPECT_EQ(print_program(a), print_program(b));
  EXPECT_EQ(listing(a), listing(b));
  // A log that does not apply is rejected whole, naming the edit.
  Program c = orig;
  Rewriter rc(c);
  std::vector<Edit> bad = ra.log();
  bad.push_back(Edit{Edit::Op::erase, InstId{0}, {}, {}, {}, "again"});
  auto res = rc.replay(bad);
  ASSERT_FALSE(res);
  EXPECT_NE(res.error().message.find("edit 3 (erase)"), std::string::npos) << res.error().message;
  EXPECT_EQ(print_program(c), print_program(orig));
}

Item label_item(const std::string& name) {
  Item it;
  it.kind = Item::Kind::label;
  it.name = name;
  return it;
}
Item inst_item(const std::string& text) {
  Item it;
  it.kind = Item::Kind::inst;
  it.inst = inst(text);
  return it;
}

TEST(Rewriter, InsertCodeBringsLabelsAndBranchesBeforeABlockAndUndoes) {
  Program p = parse(kLoop);
  const Program before = p;
  Rewriter r(p);
  // A region before .Lloop: what fell into .Lloop (i1's block) now falls into .Lpre; the back edge still reaches .Lloop.
  ASSERT_TRUE(r.insert_code(InstId{2}, {label_item(".Lpre"), inst_item("s_add_u32 s3, s2, -1"),
                                         inst_item("s_cmp_eq_u32 s3, 0"), inst_item("s_cbranch_scc1 .Lloop"),
                                         inst_item("s_branch .Lpre")}, "test"));
  EXPECT_TRUE(r.has_label(".Lpre"));
  const auto l = listing(p);
  ASSERT_EQ(l.size(), 12u);
  EXPECT_EQ(l[2], "i8 s_add_u32 s3, s2, -1");
  EXPECT_EQ(l[5], "i11 s_branch .Lpre");
  EXPECT_EQ(l[6], "i2 v_add_u32_e32 v1, v1, v0");
  const auto g = analysis::build_cfg(p);
  const auto pre = g.block_named(".Lpre"), loop = g.block_named(".Lloop");
  ASSERT_TRUE(pre && loop);
  // The region is two blocks (its conditional branch ends the first), right before the loop's.
  EXPECT_EQ(*pre + 2, *loop) << "the region sits right before the block, its labels ahead of the block's";
  EXPECT_EQ(g.succ[*pre].size(), 2u);
  // Replay on the original gives the same program; undo gives the original back, label included.
  Program copy = before;
  Rewriter r2(copy);
  ASSERT_TRUE(r2.replay(r.log()));
  EXPECT_EQ(listing(copy), l);
  EXPECT_EQ(r.undo(), 1u);
  EXPECT_FALSE(r.has_label(".Lpre"));
  EXPECT_EQ(listing(p), listing(before));
  EXPECT_EQ(p.items.size(), before.items.size());
  EXPECT_EQ(r.fresh_label(".Lloop"), ".Lloop_1");
}

TEST(Rewriter, InsertCodeRefusesWhatWouldBreakTheCfg) {
  Program p = parse(kLoop);
  Rewriter r(p);
  auto refused = [&](InstId at, std::vector<Item> code, const std::string& why) {
    auto e = r.insert_code(at, std::move(code));
    ASSERT_FALSE(e.has_value()) << why;
    EXPECT_NE(e.error().message.find(why), std::string::npos) << e.error().message;
  };
  refused(InstId{2}, {label_item(".Lloop"), inst_item("s_nop 0")}, "is not new");
  refused(InstId{2}, {inst_item("s_branch .Lnowhere")}, "is a label of neither");
  refused(InstId{3}, {inst_item("s_nop 0")}, "does not start a basic block");
  refused(InstId{2}, {inst_item("s_branch .Lloop"), inst_item("s_nop 0")}, "no path reaches it");
  refused(InstId{2}, {}, "nothing to insert");
  refused(InstId{99}, {inst_item("s_nop 0")}, "no instruction i99");
  EXPECT_TRUE(r.log().empty());
  // A region that ends where control never falls out would cut off the unlabelled block after the loop.
  refused(InstId{6}, {label_item(".Ldead"), inst_item("s_branch .Lloop")}, "nothing would reach that block");
  // Right after a conditional branch (a block start without a label) a region is allowed.
  EXPECT_TRUE(r.insert_code(InstId{6}, {label_item(".Lexit"), inst_item("s_nop 0")}));
}

// insert_entry_code: at a kernel symbol and at the kernarg-preload entry (where insert_code may not go), the region
// goes after the labels, so the entry (and the prologue's branch to it) leads into it; it must end with a new label.
TEST(Rewriter, InsertEntryCodeGoesAfterTheLabelsOfAPinnedEntry) {
  const std::string src =
      "  .globl k\n"
      "  .type k,@function\n"
      "k:\n"
      "  s_load_dwordx2 s[2:3], s[0:1], 0x0\n"   // i0
      "  s_waitcnt lgkmcnt(0)\n"                 // i1
      "  s_branch .Lentry\n"                     // i2
      "  .p2align 8\n"
      ".Lentry:\n"
      "  v_mov_b32 v1, 0\n"                      // i3
      "  s_endpgm\n";                            // i4
  for (const unsigned at : {0u, 3u}) {
    Program p = parse(src);
    const Program before = p;
    Rewriter r(p);
    ASSERT_TRUE(r.insert_entry_code(InstId{at}, {inst_item("s_cmp_lg_u32 s6, 4"), inst_item("s_cbranch_scc1 .Lold"),
                                                 inst_item("s_nop 0"), label_item(".Lold")}));
    std::vector<std::string> order;
    for (const auto& it : p.items)
      if (it.kind == Item::Kind::label) order.push_back(it.name + ":");
      else if (it.kind == Item::Kind::inst) order.push_back(print_inst(it.inst));
    const std::string entry = at == 0 ? "k:" : ".Lentry:";
    const auto e = std::find(order.begin(), order.end(), entry);
    ASSERT_NE(e, order.end());
    EXPECT_EQ(*(e + 1), "s_cmp_lg_u32 s6, 4") << "the region follows the entry's label";
    EXPECT_EQ(*(e + 4), ".Lold:");
    EXPECT_NE((e + 5)->find(at == 0 ? "s_load_dwordx2" : "v_mov_b32"), std::string::npos) << *(e + 5);
    Program copy = before;
    Rewriter r2(copy);
    ASSERT_TRUE(r2.replay(r.log()));
    EXPECT_EQ(print_program(copy), print_program(p));
    EXPECT_EQ(r.undo(), 1u);
    EXPECT_EQ(print_program(p), print_program(before));
  }
  Program p = parse(src);
  Rewriter r(p);
  auto no_label = r.insert_entry_code(InstId{3}, {inst_item("s_nop 0")});
  ASSERT_FALSE(no_label);
  EXPECT_NE(no_label.error().message.find("must end with a new label"), std::string::npos) << no_label.error().message;
  auto mid = r.insert_entry_code(InstId{1}, {inst_item("s_nop 0"), label_item(".Lx")});
  ASSERT_FALSE(mid);
  EXPECT_NE(mid.error().message.find("does not directly follow a label"), std::string::npos) << mid.error().message;
  auto old = r.insert_entry_code(InstId{3}, {inst_item("s_nop 0"), label_item(".Lentry")});
  ASSERT_FALSE(old);
  EXPECT_NE(old.error().message.find("is not new"), std::string::npos) << old.error().message;
  EXPECT_TRUE(r.log().empty());
}

TEST(Rewriter, InsertCodeNeverMovesAPinnedBlockStart) {
  // A kernel symbol, and a label an alignment directive places (the kernarg-preload entry at +256).
  Program p = parse(
      "  .globl k\n"
      "  .type k,@function\n"
      "k:\n"
      "  s_load_dwordx2 s[2:3], s[0:1], 0x0\n"   // i0
      "  s_waitcnt lgkmcnt(0)\n"                 // i1
      "  s_branch .Lentry\n"                     // i2
      "  .p2align 8\n"
      ".Lentry:\n"
      "  .loc 1 2 3\n"
      "  v_mov_b32 v1, 0\n"                      // i3
      "  s_endpgm\n");                           // i4
  Rewriter r(p);
  auto e = r.insert_code(InstId{0}, {inst_item("s_nop 0")});
  ASSERT_FALSE(e.has_value());
  EXPECT_NE(e.error().message.find("symbol 'k'"), std::string::npos) << e.error().message;
  auto f = r.insert_code(InstId{3}, {inst_item("s_nop 0")});
  ASSERT_FALSE(f.has_value());
  EXPECT_NE(f.error().message.find("alignment directive (.p2align 8)"), std::string::npos) << f.error().message;
  EXPECT_TRUE(r.log().empty());
  // A loop header aligned by the compiler, reached by falling through: the region goes before the directive.
  Program q = parse(
      "k:\n"
      "  s_mov_b32 s2, 4\n"          // i0
      "  .p2align 6\n"
      ".Lloop:\n"
      "  s_sub_u32 s2, s2, 1\n"      // i1
      "  s_cmp_lg_u32 s2, 0\n"       // i2
      "  s_cbranch_scc1 .Lloop\n"    // i3
      "  s_endpgm\n");               // i4
  Rewriter rq(q);
  ASSERT_TRUE(rq.insert_code(InstId{1}, {label_item(".Lpre"), inst_item("s_nop 0")}));
  std::vector<std::string> order;
  for (const auto& it : q.items)
    if (it.kind == Item::Kind::label) order.push_back(it.name);
    else if (it.kind == Item::Kind::directive) order.push_back(it.name);
  EXPECT_EQ(order, (std::vector<std::string>{"k", ".Lpre", ".p2align", ".Lloop"}));
}

TEST(Rewriter, EveryTargetChecksWellFormedness) {
  for (const Target t : {Target::gfx90a, Target::gfx942, Target::gfx950}) {
    Program p = parse("k:\n  v_mov_b32 v1, 0\n  s_endpgm\n", t);
    Rewriter r(p);
    Inst bad = inst("v_mov_b32 v1, 0", t);
    bad.ops[0].reg.dwords = 2;  // a 64-bit destination for a 32-bit move
    auto e = r.insert_before(InstId{0}, {bad});
    ASSERT_FALSE(e) << to_string(t);
    EXPECT_NE(e.error().message.find("not well-formed"), std::string::npos) << e.error().message;
  }
}

// An instruction built for another target is refused, not read as whatever the program's target has at its form
// index (a gfx90a value in a gfx942 program), by every edit that takes new instructions.
TEST(Rewriter, RefusesAnInstructionBuiltForAnotherTarget) {
  Program p = parse("k:\n  v_mov_b32 v1, 0\n  s_endpgm\n", Target::gfx942);
  Rewriter r(p);
  const Inst foreign = inst("v_mov_b32 v1, 0", Target::gfx90a);
  for (int k = 0; k < 3; ++k) {
    auto e = k == 0 ? r.insert_before(InstId{0}, {foreign}) : k == 1 ? r.insert_after(InstId{0}, {foreign})
                                                                     : r.replace(InstId{0}, {foreign});
    ASSERT_FALSE(e) << k;
    EXPECT_NE(e.error().message.find("the instruction is for gfx90a, the program for gfx942"), std::string::npos)
        << e.error().message;
  }
  EXPECT_TRUE(r.log().empty());
}

// ---- typed builders through the Rewriter (passes/builder.hpp) ----------------------------------------------------

namespace g = asmevo::gfx942;

TEST(RewriterSink, BuilderInsertsAreLoggedEditsAndUndoRestoresTheProgram) {
  Program p = parse(kLoop);
  const Program original = p;
  Rewriter r(p);
  {
    RewriterSink at{r, before(InstId{6}), "test"};
    g::Builder b{at};
    const Inst w = b.s_waitcnt(g::vmcnt<0>);                    // compile-time: the Inst, with its new id
    auto mov = b.v_mov_b32(Reg{RegFile::vgpr, 3, 1}, g::v<1>);  // run-time: Expected<Inst>
    ASSERT_TRUE(mov) << mov.error().str();
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(w.id, InstId{8});
    EXPECT_EQ(mov->id, InstId{9});
    // The returned values are the instructions the Rewriter inserted.
    ASSERT_NE(p.find(w.id), nullptr);
    EXPECT_TRUE(*p.find(w.id) == w);
    EXPECT_TRUE(*p.find(mov->id) == *mov);
  }
  {
    RewriterSink at{r, after(InstId{0}), "test"};  // after(): each instruction goes after the one before
    g::Builder b{at};
    EXPECT_EQ(b.s_nop(imm<1>).id, InstId{10});
    EXPECT_EQ(b.s_nop(imm<2>).id, InstId{11});
    EXPECT_EQ(at.where().anchor, InstId{11});
  }
  const std::vector<std::string> want{"i0 v_mov_b32_e32 v1, 0", "i10 s_nop 1", "i11 s_nop 2", "i1 s_mov_b32 s2, 4",
                                      "i2 v_add_u32_e32 v1, v1, v0", "i3 s_sub_u32 s2, s2, 1", "i4 s_cmp_lg_u32 s2, 0",
                                      "i5 s_cbranch_scc1 .Lloop", "i8 s_waitcnt vmcnt(0)", "i9 v_mov_b32_e32 v3, v1",
                                      "i6 v_mov_b32_e32 v2, v1", "i7 s_endpgm"};
  EXPECT_EQ(listing(p), want);
  // One edit per instruction, with the builder's reason and the new id.
  ASSERT_EQ(r.log().size(), 4u);
  const Edit::Op ops[] = {Edit::Op::insert_before, Edit::Op::insert_before, Edit::Op::insert_after, Edit::Op::insert_after};
  const std::uint32_t at[] = {6, 6, 0, 10}, ids[] = {8, 9, 10, 11};
  for (std::size_t k = 0; k < 4; ++k) {
    const Edit& e = r.log()[k];
    EXPECT_EQ(e.op, ops[k]) << k;
    EXPECT_EQ(e.at, InstId{at[k]}) << k;
    ASSERT_EQ(e.insts.size(), 1u);
    EXPECT_EQ(e.insts[0].id, InstId{ids[k]}) << k;
    EXPECT_EQ(e.why, "test");
  }
  // The log replays on the original to the same program.
  Program copy = original;
  Rewriter rc(copy);
  ASSERT_TRUE(rc.replay(r.log()));
  EXPECT_EQ(listing(copy), want);
  // Undo restores the program exactly: text, ids, and the next fresh id.
  EXPECT_EQ(r.undo(), 4u);
  EXPECT_TRUE(r.log().empty());
  EXPECT_EQ(print_program(p), print_program(original));
  EXPECT_EQ(listing(p), listing(original));
  EXPECT_EQ(p.next_id, original.next_id);
}

TEST(RewriterSink, ARefusedInsertPutsTheBuilderInItsFailedState) {
  Program p = parse(kLoop);
  const Program original = p;
  Rewriter r(p);
  RewriterSink nowhere{r, before(InstId{99})};
  g::Builder gone{nowhere};
  EXPECT_EQ(gone.s_nop(imm<0>).id, no_inst);
  EXPECT_FALSE(gone.ok());
  ASSERT_NE(gone.error(), nullptr);
  EXPECT_NE(gone.error()->message.find("no instruction i99"), std::string::npos) << gone.error()->str();
  EXPECT_FALSE(gone.s_nop(1));
  // After s_endpgm no path reaches: the Rewriter refuses, the builder stops.
  RewriterSink unreached{r, after(InstId{7})};
  g::Builder dead{unreached};
  EXPECT_EQ(dead.s_nop(imm<0>).id, no_inst);
  ASSERT_NE(dead.error(), nullptr);
  EXPECT_NE(dead.error()->message.find("no path reaches"), std::string::npos) << dead.error()->str();
  EXPECT_TRUE(r.log().empty());
  EXPECT_EQ(print_program(p), print_program(original));
}

TEST(RewriterSink, InstBuilderValuesGoIntoRewriterEdits) {
  Program p = parse(kLoop);
  Rewriter r(p);
  g::InstBuilder mk;
  ASSERT_TRUE(r.replace(InstId{6}, {mk.v_mov_b32(g::v<2>, g::v<0>), mk.v_mov_b32(g::v<5>, imm<1>)}));
  auto add = mk.v_add_u32(g::v<4>, Reg{RegFile::sgpr, 2, 1}, g::v<1>);
  ASSERT_TRUE(add) << add.error().str();
  ASSERT_TRUE(r.insert_before(InstId{7}, {*add}));
  ASSERT_TRUE(mk.ok());
  const auto l = listing(p);
  EXPECT_EQ(l[6], "i6 v_mov_b32_e32 v2, v0");
  EXPECT_EQ(l[7], "i8 v_mov_b32_e32 v5, 1");
  EXPECT_EQ(l[8], "i9 v_add_u32_e32 v4, s2, v1");
  // The Inst a failed value builder returns has no form: the Rewriter refuses it, even in place of a branch.
  const Inst failed = mk.global_load_dword(g::v<1>, g::v<2, 3>, g::off, g::offset(5000));
  ASSERT_FALSE(mk.ok());
  for (const InstId at : {InstId{0}, InstId{5}}) {
    auto e = r.replace(at, {failed});
    ASSERT_FALSE(e);
    EXPECT_NE(e.error().message.find("no such instruction form"), std::string::npos) << e.error().message;
  }
}

// ---- stateful: random edit sequences against a model ------------------------------------------------------------

const std::vector<std::string> kPool{"v_mov_b32 v1, 0", "v_add_u32 v2, v1, v0", "s_nop 1", "s_mov_b32 s4, 7",
                                     "v_xor_b32 v3, v2, v1"};

struct Model {
  std::vector<std::pair<std::uint32_t, std::string>> insts;  // (id, text); the last is s_endpgm
  std::uint32_t next_id = 0;
  std::vector<std::pair<decltype(insts), std::uint32_t>> history;  // for undo
  [[nodiscard]] std::size_t pos_of(std::uint32_t id) const {
    for (std::size_t k = 0; k < insts.size(); ++k)
      if (insts[k].first == id) return k;
    return insts.size();
  }
  void save() { history.emplace_back(insts, next_id); }
};

struct Sut {
  Program program;
  Rewriter rewriter;
  explicit Sut(Program p) : program(std::move(p)), rewriter(program) {}
};

using Cmd = rc::state::Command<Model, Sut>;

void expect_same(const Model& m, const Sut& s) {
  std::vector<std::string> want;
  for (const auto& [id, text] : m.insts) want.push_back("i" + std::to_string(id) + " " + text);
  RC_ASSERT(listing(s.program) == want);
  RC_ASSERT(s.program.next_id == m.next_id);
}

std::string printed(const std::string& text) { return print_inst(*parse_inst(text, Target::gfx942)); }

/// Picks an instruction position other than s_endpgm (the model's last).
std::size_t pick_body(const Model& m) { return *rc::gen::inRange<std::size_t>(0, m.insts.size() - 1); }

struct Insert : Cmd {
  bool after = *rc::gen::arbitrary<bool>();
  std::size_t pos;
  std::string text = printed(*rc::gen::elementOf(kPool));
  explicit Insert(const Model& m) : pos(after ? pick_body(m) : *rc::gen::inRange<std::size_t>(0, m.insts.size())) {}
  void checkPreconditions(const Model& m) const override { RC_PRE(pos < m.insts.size() && (!after || pos + 1 < m.insts.size())); }
  void apply(Model& m) const override {
    m.save();
    m.insts.insert(m.insts.begin() + static_cast<std::ptrdiff_t>(after ? pos + 1 : pos), {m.next_id++, text});
  }
  void run(const Model& m, Sut& s) const override {
    const InstId at{m.insts[pos].first};
    auto in = *parse_inst(text, Target::gfx942);
    const bool ok = after ? s.rewriter.insert_after(at, {in}).has_value() : s.rewriter.insert_before(at, {in}).has_value();
    RC_ASSERT(ok);
    Model next = m;
    apply(next);
    expect_same(next, s);
  }
  void show(std::ostream& os) const override { os << (after ? "insert_after #" : "insert_before #") << pos << " " << text; }
};

struct Erase : Cmd {
  std::size_t pos;
  explicit Erase(const Model& m) : pos(*rc::gen::inRange<std::size_t>(0, m.insts.size())) {}
  void checkPreconditions(const Model& m) const override { RC_PRE(pos < m.insts.size()); }
  void apply(Model& m) const override {
    if (pos + 1 == m.insts.size()) return;  // s_endpgm: refused, nothing changes
    m.save();
    m.insts.erase(m.insts.begin() + static_cast<std::ptrdiff_t>(pos));
  }
  void run(const Model& m, Sut& s) const override {
    const bool refused = pos + 1 == m.insts.size();
    RC_ASSERT(s.rewriter.erase(InstId{m.insts[pos].first}).has_value() == !refused);
    Model next = m;
    apply(next);
    expect_same(next, s);
  }
  void show(std::ostream& os) const override { os << "erase #" << pos; }
};

struct MoveOrSwap : Cmd {
  int kind = *rc::gen::inRange(0, 3);  // 0 move_before, 1 move_after, 2 swap
  std::size_t a, b;
  explicit MoveOrSwap(const Model& m) : a(pick_body(m)), b(pick_body(m)) {}
  void checkPreconditions(const Model& m) const override { RC_PRE(m.insts.size() > 2 && a + 1 < m.insts.size() && b + 1 < m.insts.size() && a != b); }
  void apply(Model& m) const override {
    m.save();
    auto& v = m.insts;
    if (kind == 2) {
      std::swap(v[a], v[b]);
      return;
    }
    const auto moved = v[a];
    const auto anchor = v[b].first;
    v.erase(v.begin() + static_cast<std::ptrdiff_t>(a));
    const std::size_t at = m.pos_of(anchor) + (kind == 1 ? 1 : 0);
    v.insert(v.begin() + static_cast<std::ptrdiff_t>(at), moved);
  }
  void run(const Model& m, Sut& s) const override {
    const InstId x{m.insts[a].first}, y{m.insts[b].first};
    auto r = kind == 0 ? s.rewriter.move_before(x, y) : kind == 1 ? s.rewriter.move_after(x, y) : s.rewriter.swap(x, y);
    RC_ASSERT(r.has_value());
    Model next = m;
    apply(next);
    expect_same(next, s);
  }
  void show(std::ostream& os) const override { os << (kind == 0 ? "move_before #" : kind == 1 ? "move_after #" : "swap #") << a << " #" << b; }
};

struct Undo : Cmd {
  explicit Undo(const Model&) {}
  void checkPreconditions(const Model& m) const override { RC_PRE(!m.history.empty()); }
  void apply(Model& m) const override {
    m.insts = m.history.back().first;
    m.next_id = m.history.back().second;
    m.history.pop_back();
  }
  void run(const Model& m, Sut& s) const override {
    RC_ASSERT(s.rewriter.undo(1) == 1u);
    Model next = m;
    apply(next);
    expect_same(next, s);
  }
  void show(std::ostream& os) const override { os << "undo"; }
};

RC_GTEST_PROP(RewriterStateful, RandomEditSequencesMatchTheModelAndReplay, ()) {
  const Program orig = parse("k:\n  v_mov_b32 v1, 0\n  v_add_u32 v2, v1, v0\n  s_mov_b32 s4, 7\n  s_endpgm\n");
  Model m0;
  for (const auto& it : orig.items)
    if (it.kind == Item::Kind::inst) m0.insts.emplace_back(it.inst.id.value, print_inst(it.inst));
  m0.next_id = orig.next_id;
  Sut sut(orig);
  rc::state::check(m0, sut, rc::state::gen::execOneOfWithArgs<Insert, Erase, MoveOrSwap, Undo>());
  // The log replays on the original to the same program, ids included; undoing everything restores the original.
  Program again = orig;
  Rewriter r(again);
  RC_ASSERT(r.replay(sut.rewriter.log()).has_value());
  RC_ASSERT(listing(again) == listing(sut.program));
  sut.rewriter.undo();
  RC_ASSERT(print_program(sut.program) == print_program(orig));
  RC_ASSERT(sut.program.next_id == orig.next_id);
}

}  // namespace
}  // namespace asmevo::passes
