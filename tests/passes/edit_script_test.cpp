// agent/edit_script.hpp: every kind of malformed script gets a precise error at its JSON Pointer and nothing is
// applied; valid scripts apply through the Rewriter; the schema file in the repository describes the same format.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "asmevo/agent/edit_script.hpp"
#include "asmevo/ir/parser.hpp"
#include "asmevo/ir/printer.hpp"

namespace asmevo::agent {
namespace {

codeobject::Module module_of(const std::string& text, std::uint64_t max_wg = 1024) {
  codeobject::Module m;
  m.target = Target::gfx942;
  auto p = parse_program(text, m.target, "<test>");
  EXPECT_TRUE(p.has_value()) << (p ? "" : p.error().str());
  if (p) m.program = std::move(*p);
  codeobject::KernelInfo k;
  k.name = "k";
  k.metadata = nlohmann::ordered_json{{".name", "k"}, {".max_flat_workgroup_size", max_wg}};
  m.kernels.push_back(std::move(k));
  return m;
}

const char* const kProgram =
    "k:\n"
    "  global_load_dword v1, v0, s[0:1]\n"   // i0
    "  global_load_dword v2, v0, s[0:1] offset:4\n"  // i1
    "  s_waitcnt vmcnt(0)\n"                 // i2
    "  v_lshlrev_b32 v3, 2, v1\n"            // i3
    "  v_add_u32 v4, v3, v2\n"               // i4
    "  global_store_dword v0, v4, s[0:1]\n"  // i5
    "  s_endpgm\n";                          // i6

/// The pointers of a result's errors, in order.
std::vector<std::string> pointers(const ScriptResult& r) {
  std::vector<std::string> out;
  for (const auto& e : r.errors) out.push_back(e.pointer);
  return out;
}

std::string messages(const ScriptResult& r) {
  std::string s;
  for (const auto& e : r.errors) s += e.str() + "\n";
  return s;
}

TEST(EditScript, ValidScriptAppliesEveryOp) {
  const auto m = module_of(kProgram);
  const auto r = apply_edit_script_text(m, R"({"kernel": "k", "edits": [
      {"op": "replace", "at": "i4", "with": ["v_lshl_add_u32 v4, v1, 2, v2"], "why": "fuse shift and add"},
      {"op": "delete", "at": "i3"},
      {"op": "set_waitcnt", "at": "i2", "vmcnt": 0},
      {"op": "insert_before", "at": "i5", "insts": ["s_nop 0"]},
      {"op": "move", "at": "i1", "before": "i0"},
      {"op": "swap", "a": "i0", "b": "i1"}
  ]})");
  ASSERT_TRUE(r.ok()) << messages(r);
  EXPECT_EQ(r.log.size(), 6u);
  EXPECT_EQ(r.log[0].why, "fuse shift and add");
  const std::string text = print_program(r.program);
  EXPECT_NE(text.find("v_lshl_add_u32 v4, v1, 2, v2 ; i4"), std::string::npos) << text;
  EXPECT_EQ(text.find("v_lshlrev_b32"), std::string::npos) << text;
  EXPECT_NE(text.find("s_nop 0 ; i7"), std::string::npos) << text;
  EXPECT_LT(text.find("; i0"), text.find("; i1")) << text;  // moved before, then swapped back
}

// "erase" is the op's name (Edit::Op::erase, and what edits_to_script writes); "delete", its older spelling, is
// still read and does the same.
TEST(EditScript, EraseAndItsOlderSpellingDeleteRemoveTheSameInstruction) {
  const auto m = module_of(kProgram);
  const auto a = apply_edit_script_text(m, R"({"edits": [{"op": "erase", "at": "i3"}]})");
  const auto b = apply_edit_script_text(m, R"({"edits": [{"op": "delete", "at": "i3"}]})");
  ASSERT_TRUE(a.ok()) << messages(a);
  ASSERT_TRUE(b.ok()) << messages(b);
  ASSERT_EQ(a.log.size(), 1u);
  EXPECT_EQ(a.log[0].op, passes::Edit::Op::erase);
  EXPECT_EQ(to_string(a.log[0].op), "erase");
  EXPECT_EQ(print_program(a.program), print_program(b.program));
  EXPECT_EQ(print_program(a.program).find("; i3\n"), std::string::npos);
}

// edits_to_script turns an edit log back into a script: replayed on the original, it gives the same program, and it
// spells each op as the script format does ("erase", not the older "delete").
TEST(EditScript, EditsToScriptReplaysTheLogToTheSameProgram) {
  const auto m = module_of(kProgram);
  const auto r = apply_edit_script_text(m, R"({"kernel": "k", "edits": [
      {"op": "replace", "at": "i4", "with": ["v_lshl_add_u32 v4, v1, 2, v2"], "why": "fuse"},
      {"op": "delete", "at": "i3"},
      {"op": "set_waitcnt", "at": "i2", "vmcnt": 0},
      {"op": "move", "at": "i1", "before": "i0"}
  ]})");
  ASSERT_TRUE(r.ok()) << messages(r);
  const nlohmann::json script = edits_to_script(r.log, "k");
  ASSERT_EQ(script["edits"].size(), r.log.size()) << script.dump();
  EXPECT_EQ(script["edits"][1]["op"], "erase") << script.dump();
  const auto replay = apply_edit_script(m, script);
  ASSERT_TRUE(replay.ok()) << messages(replay) << script.dump();
  EXPECT_EQ(print_program(replay.program), print_program(r.program));
}

TEST(EditScript, PassEditRunsANamedPass) {
  const auto m = module_of(kProgram);
  const auto r = apply_edit_script_text(m, R"({"edits": [{"op": "pass", "name": "waitcnt-min"}]})");
  ASSERT_TRUE(r.ok()) << messages(r);
  ASSERT_EQ(r.pass_stats.size(), 1u);
  EXPECT_EQ(r.pass_stats[0].pass, "waitcnt-min");
  // i3 reads v1 (vmcnt(1) would do), but i4 reads v2 with no wait in between: the one wait must stay vmcnt(0).
  EXPECT_NE(print_program(r.program).find("s_waitcnt vmcnt(0) ; i2"), std::string::npos);
}

// insert_code: a region with a label and branches applies before the block; every malformed line, a reused label
// and a region that would cut off the next block are each reported at their pointer, and nothing is applied.
TEST(EditScript, InsertCodeAppliesARegionAndReportsEachBadLine) {
  const auto m = module_of(
      "  .globl k\n"
      "k:\n"
      "  v_mov_b32 v1, 0\n"          // i0
      "  s_cbranch_scc1 .Lx\n"       // i1
      "  v_mov_b32 v2, 0\n"          // i2
      ".Lx:\n"
      "  s_endpgm\n");               // i3
  // After the conditional branch: the fall-through block now starts with the region.
  const auto ok = apply_edit_script_text(m, R"({"kernel": "k", "edits": [
      {"op": "insert_code", "at": "i2", "code": [".Lr:", "s_nop 0", "s_cbranch_scc0 .Lx", "s_nop 1"]}]})");
  ASSERT_TRUE(ok.ok()) << messages(ok);
  const std::string text = print_program(ok.program);
  EXPECT_LT(text.find(".Lr:"), text.find("v_mov_b32_e32 v2")) << text;
  EXPECT_GT(text.find(".Lr:"), text.find("s_cbranch_scc1 .Lx")) << text;
  const auto bad = apply_edit_script_text(m, R"({"kernel": "k", "edits": [
      {"op": "insert_code", "at": "i3", "code": ["9bad:", 7, "s_nop 0", "not_an_instruction"]},
      {"op": "insert_code", "at": "i3", "code": []},
      {"op": "insert_code", "at": "i3", "code": ["k:", "s_nop 0"]},
      {"op": "insert_code", "at": "i1", "code": ["s_nop 0"]},
      {"op": "insert_code", "at": "i0", "code": ["s_nop 0"]},
      {"op": "insert_code", "at": "i2", "code": ["s_branch .Lx"]}
  ]})");
  ASSERT_FALSE(bad.ok());
  const std::vector<std::string> want{"/edits/0/code/0", "/edits/0/code/1", "/edits/0/code/3", "/edits/1/code",
                                      "/edits/2", "/edits/3", "/edits/4", "/edits/5"};
  EXPECT_EQ(pointers(bad), want) << messages(bad);
  const std::string all = messages(bad);
  for (const char* needle : {"is not a label", "expected a label or an instruction text", "not a gfx942 instruction",
                             "expected a non-empty array of labels", "label 'k' is not new",
                             "does not start a basic block", "symbol 'k'", "nothing would reach that block"})
    EXPECT_NE(all.find(needle), std::string::npos) << needle << "\n" << all;
}

// insert_entry_code: at the kernel symbol itself, where insert_code is refused, the region follows the label; it must
// end with a new label; the log it leaves prints back as the same op.
TEST(EditScript, InsertEntryCodeGuardsTheKernelEntry) {
  const auto m = module_of(
      "  .globl k\n"
      "k:\n"
      "  v_mov_b32 v1, 0\n"          // i0
      "  s_endpgm\n");               // i1
  const auto ok = apply_edit_script_text(m, R"({"kernel": "k", "edits": [
      {"op": "insert_entry_code", "at": "i0", "code": ["s_cmp_lg_u32 s6, 4", "s_cbranch_scc1 .Lk0", "s_nop 0", ".Lk0:"]}]})");
  ASSERT_TRUE(ok.ok()) << messages(ok);
  const std::string text = print_program(ok.program);
  EXPECT_LT(text.find("k:"), text.find("s_cmp_lg_u32 s6, 4")) << text;
  EXPECT_LT(text.find(".Lk0:"), text.find("v_mov_b32_e32 v1, 0")) << text;
  ASSERT_EQ(ok.log.size(), 1u);
  EXPECT_EQ(ok.log[0].op, passes::Edit::Op::insert_entry_code);
  const auto bad = apply_edit_script_text(m, R"({"kernel": "k", "edits": [
      {"op": "insert_entry_code", "at": "i0", "code": ["s_nop 0"]},
      {"op": "insert_entry_code", "at": "i1", "code": ["s_nop 0", ".Lz:"]}]})");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(pointers(bad), (std::vector<std::string>{"/edits/0", "/edits/1"})) << messages(bad);
  const std::string all = messages(bad);
  for (const char* needle : {"must end with a new label", "does not directly follow a label"})
    EXPECT_NE(all.find(needle), std::string::npos) << needle << "\n" << all;
}

TEST(EditScript, EveryProblemIsReportedWithItsPointerAndNothingIsApplied) {
  const auto m = module_of(kProgram);
  const auto r = apply_edit_script_text(m, R"({"edits": [
      {"op": "frobnicate", "at": "i1"},
      {"op": "delete", "at": "i99"},
      {"op": "replace", "at": "i4", "with": ["v_add_u32 v4, v3"]},
      {"op": "insert_after", "at": "i2", "insts": ["v_mov_b32 v1, 0", "not_an_instruction v1"]},
      {"op": "set_waitcnt", "at": "i2", "vmcnt": 64},
      {"op": "delete", "at": "i6"},
      {"op": "delete", "at": 3},
      {"op": "move", "at": "i3"},
      {"op": "delete", "at": "i3", "with": []},
      {"op": "insert_before", "at": "i3", "insts": ["v_mov_b32 v200, 0"]},
      {"op": "insert_before", "at": "i3", "insts": ["scratch_store_dword v0, v1, off"]},
      {"op": "pass", "name": "no-such-pass"}
  ], "extra": 1})");
  ASSERT_FALSE(r.ok());
  const std::vector<std::string> want{"/extra",          "/edits/0/op",     "/edits/1/at",        "/edits/2/with/0",
                                      "/edits/3/insts/1", "/edits/4/vmcnt", "/edits/5",           "/edits/6/at",
                                      "/edits/7",         "/edits/8/with",  "/edits/9/insts/0",   "/edits/10/insts/0",
                                      "/edits/11/name"};
  EXPECT_EQ(pointers(r), want) << messages(r);
  const std::string all = messages(r);
  for (const char* needle : {"unknown op \"frobnicate\"", "no instruction i99", "not a gfx942 instruction",
                             "expected an integer 0..63", "branch or terminator", "expected an instruction id such as",
                             "exactly one of \"before\" and \"after\"", "takes no field \"with\"",
                             "max_flat_workgroup_size 1024", "no private segment", "unknown field \"extra\""})
    EXPECT_NE(all.find(needle), std::string::npos) << needle << "\n" << all;
  EXPECT_EQ(print_program(r.program), print_program(m.program));  // nothing applied
  EXPECT_TRUE(r.log.empty());
}

TEST(EditScript, TextThatIsNotJsonNamesTheLineAndColumn) {
  const auto m = module_of(kProgram);
  const auto r = apply_edit_script_text(m, "{\"edits\": [\n  {\"op\": \"delete\", \"at\": \"i3\"},,\n]}");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].pointer, "");
  EXPECT_NE(r.errors[0].message.find("not valid JSON: line 2"), std::string::npos) << r.errors[0].message;
  const auto wrong_top = apply_edit_script_text(m, "[1, 2]");
  ASSERT_EQ(wrong_top.errors.size(), 1u);
  EXPECT_NE(wrong_top.errors[0].message.find("expected an object"), std::string::npos);
  const auto no_edits = apply_edit_script_text(m, "{\"kernel\": \"nope\"}");
  EXPECT_EQ(pointers(no_edits), (std::vector<std::string>{"/kernel", "/edits"})) << messages(no_edits);
}

TEST(EditScript, ABadPassArgumentIsPointedAt) {
  const auto m = module_of(kProgram);
  const auto r = apply_edit_script_text(m, R"({"edits": [{"op": "pass", "name": "schedule", "args": {"window": 0}}]})");
  EXPECT_EQ(pointers(r), std::vector<std::string>{"/edits/0/args/window"}) << messages(r);
  EXPECT_TRUE(r.pass_stats.empty());
}

TEST(EditScript, RestrictedToTheLaunchAnEditOfCodeNoRunExercisesIsRejected) {
  const auto m = module_of(kProgram);
  passes::PassContext base;
  base.not_exercised = std::make_shared<const std::unordered_set<std::uint32_t>>(std::unordered_set<std::uint32_t>{3, 4});
  const auto r = apply_edit_script_text(m, R"({"edits": [{"op": "set_waitcnt", "at": "i2", "vmcnt": 0},
      {"op": "delete", "at": "i3"}, {"op": "move", "at": "i1", "after": "i4"}]})", base);
  EXPECT_EQ(pointers(r), (std::vector<std::string>{"/edits/1/at", "/edits/2/after"})) << messages(r);
  EXPECT_NE(messages(r).find("i3 lies in code the launch does not exercise"), std::string::npos) << messages(r);
  EXPECT_TRUE(r.log.empty());
  // A pass the script runs is told the same: waitcnt-min leaves the block holding i3 and i4 alone.
  const auto p = apply_edit_script_text(m, R"({"edits": [{"op": "pass", "name": "dce"}, {"op": "pass", "name": "nop-min"}]})", base);
  ASSERT_TRUE(p.ok()) << messages(p);
  EXPECT_TRUE(p.log.empty());
}

TEST(EditScript, AnEditThatRefersToAnErasedIdFailsAtThatEdit) {
  const auto m = module_of(kProgram);
  const auto r = apply_edit_script_text(m, R"({"edits": [{"op": "delete", "at": "i3"}, {"op": "delete", "at": "i3"}]})");
  EXPECT_EQ(pointers(r), std::vector<std::string>{"/edits/1"}) << messages(r);
}

TEST(EditScript, TheSchemaInTheRepositoryNamesEveryOpTheValidatorTakes) {
  std::ifstream f(std::string(ASMEVO_SOURCE_DIR) + "/schema/edit-script.schema.json");
  ASSERT_TRUE(f.good());
  std::stringstream ss;
  ss << f.rdbuf();
  const auto schema = nlohmann::json::parse(ss.str());
  std::set<std::string> in_schema;
  for (const auto& alt : schema["$defs"]["edit"]["oneOf"]) {
    // An alternative names its op with "const", or the spellings of one op with "enum" ("erase", "delete").
    const auto& opdef = alt["properties"]["op"];
    std::vector<std::string> spellings;
    if (opdef.contains("const")) spellings.push_back(opdef["const"].get<std::string>());
    for (const auto& e : opdef.value("enum", nlohmann::json::array())) spellings.push_back(e.get<std::string>());
    ASSERT_FALSE(spellings.empty()) << alt.dump();
    for (const std::string& op : spellings) {
      in_schema.insert(op);
      // Every field the schema allows for an op is one the validator accepts, and the required ones match.
      const detail::OpShape* shape = nullptr;
      for (const auto& s : detail::op_shapes())
        if (s.op == op) shape = &s;
      ASSERT_NE(shape, nullptr) << op;
      std::set<std::string> req;
      for (const auto& r : alt["required"]) req.insert(r.get<std::string>());
      req.erase("op");
      EXPECT_EQ(req, std::set<std::string>(shape->required.begin(), shape->required.end())) << op;
      for (const auto& [key, v] : alt["properties"].items()) {
        if (key == "op" || key == "why") continue;
        const bool known = std::count(shape->required.begin(), shape->required.end(), key) +
                           std::count(shape->optional.begin(), shape->optional.end(), key);
        EXPECT_TRUE(known) << op << "." << key;
      }
    }
  }
  std::set<std::string> in_code;
  for (const auto& s : detail::op_shapes()) in_code.insert(std::string(s.op));
  EXPECT_EQ(in_schema, in_code);
}

}  // namespace
}  // namespace asmevo::agent
