// agent/edit_script.hpp, stateful: random sequences of one-edit JSON scripts (insert, replace, delete, move, swap,
// set_waitcnt, and malformed ones) applied to a module, each checked against a plain list model. A valid script
// changes the program exactly as the model says; a malformed one (unknown id, text that does not parse, a count out
// of range, a terminator edit) is rejected with an error at the right JSON Pointer and changes nothing.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <rapidcheck/state.h>

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "asmevo/agent/edit_script.hpp"
#include "asmevo/ir/parser.hpp"
#include "asmevo/ir/printer.hpp"

namespace asmevo::agent {
namespace {

const std::vector<std::string> kPool{"v_mov_b32 v1, 0", "v_add_u32 v2, v1, v0", "s_nop 1", "s_mov_b32 s4, 7",
                                     "v_xor_b32 v3, v2, v1", "s_waitcnt vmcnt(0)"};

std::string printed(const std::string& text) { return print_inst(*parse_inst(text, Target::gfx942)); }

struct Model {
  std::vector<std::pair<std::uint32_t, std::string>> insts;  // (id, printed text); the last is s_endpgm
  std::uint32_t next_id = 0;
  [[nodiscard]] std::size_t pos_of(std::uint32_t id) const {
    for (std::size_t k = 0; k < insts.size(); ++k)
      if (insts[k].first == id) return k;
    return insts.size();
  }
};

struct Sut {
  codeobject::Module module;
};

std::vector<std::string> listing(const Program& p) {
  std::vector<std::string> out;
  for (const auto& it : p.items)
    if (it.kind == Item::Kind::inst) out.push_back("i" + std::to_string(it.inst.id.value) + " " + print_inst(it.inst));
  return out;
}

void expect_same(const Model& m, const Sut& s) {
  std::vector<std::string> want;
  for (const auto& [id, text] : m.insts) want.push_back("i" + std::to_string(id) + " " + text);
  RC_ASSERT(listing(s.module.program) == want);
}

std::string id(std::uint32_t v) { return "i" + std::to_string(v); }

/// Applies a one-edit script; on success the module takes the new program.
ScriptResult apply(Sut& s, const nlohmann::json& edit) {
  auto r = apply_edit_script(s.module, nlohmann::json{{"edits", nlohmann::json::array({edit})}});
  if (r.ok()) s.module.program = r.program;
  return r;
}

using Cmd = rc::state::Command<Model, Sut>;

std::size_t body_pos(const Model& m) { return *rc::gen::inRange<std::size_t>(0, m.insts.size() - 1); }

/// insert_before / insert_after / replace with one or two instructions from the pool.
struct Insert : Cmd {
  int kind = *rc::gen::inRange(0, 3);  // 0 before, 1 after, 2 replace
  std::size_t pos;
  std::vector<std::string> texts;
  explicit Insert(const Model& m)
      : pos(body_pos(m)), texts(*rc::gen::container<std::vector<std::string>>(*rc::gen::inRange(1, 3), rc::gen::elementOf(kPool))) {}
  void checkPreconditions(const Model& m) const override { RC_PRE(pos + 1 < m.insts.size()); }
  void apply(Model& m) const override {
    std::vector<std::pair<std::uint32_t, std::string>> add;
    for (std::size_t k = 0; k < texts.size(); ++k)
      add.emplace_back(kind == 2 && k == 0 ? m.insts[pos].first : m.next_id++, printed(texts[k]));
    auto at = m.insts.begin() + static_cast<std::ptrdiff_t>(pos + (kind == 1 ? 1 : 0));
    if (kind == 2) at = m.insts.erase(at);
    m.insts.insert(at, add.begin(), add.end());
  }
  void run(const Model& m, Sut& s) const override {
    const char* op = kind == 0 ? "insert_before" : kind == 1 ? "insert_after" : "replace";
    const auto r = agent::apply(s, {{"op", op}, {"at", id(m.insts[pos].first)}, {kind == 2 ? "with" : "insts", texts}});
    RC_ASSERT(r.ok());
    Model next = m;
    apply(next);
    expect_same(next, s);
  }
  void show(std::ostream& os) const override { os << "insert kind " << kind << " #" << pos << " x" << texts.size(); }
};

struct Delete : Cmd {
  std::size_t pos;
  explicit Delete(const Model& m) : pos(*rc::gen::inRange<std::size_t>(0, m.insts.size())) {}
  void checkPreconditions(const Model& m) const override { RC_PRE(pos < m.insts.size()); }
  void apply(Model& m) const override {
    if (pos + 1 < m.insts.size()) m.insts.erase(m.insts.begin() + static_cast<std::ptrdiff_t>(pos));
  }
  void run(const Model& m, Sut& s) const override {
    const bool endpgm = pos + 1 == m.insts.size();
    const auto r = agent::apply(s, {{"op", "delete"}, {"at", id(m.insts[pos].first)}});
    RC_ASSERT(r.ok() == !endpgm);
    if (endpgm) RC_ASSERT(r.errors.size() == 1u && r.errors[0].pointer == "/edits/0");
    Model next = m;
    apply(next);
    expect_same(next, s);
  }
  void show(std::ostream& os) const override { os << "delete #" << pos; }
};

struct MoveSwap : Cmd {
  int kind = *rc::gen::inRange(0, 3);  // 0 before, 1 after, 2 swap
  std::size_t a, b;
  explicit MoveSwap(const Model& m) : a(body_pos(m)), b(body_pos(m)) {}
  void checkPreconditions(const Model& m) const override {
    RC_PRE(m.insts.size() > 2 && a + 1 < m.insts.size() && b + 1 < m.insts.size() && a != b);
  }
  void apply(Model& m) const override {
    auto& v = m.insts;
    if (kind == 2) return std::swap(v[a], v[b]);
    const auto moved = v[a];
    const auto anchor = v[b].first;
    v.erase(v.begin() + static_cast<std::ptrdiff_t>(a));
    v.insert(v.begin() + static_cast<std::ptrdiff_t>(m.pos_of(anchor) + (kind == 1 ? 1 : 0)), moved);
  }
  void run(const Model& m, Sut& s) const override {
    nlohmann::json e = kind == 2 ? nlohmann::json{{"op", "swap"}, {"a", id(m.insts[a].first)}, {"b", id(m.insts[b].first)}}
                                 : nlohmann::json{{"op", "move"}, {"at", id(m.insts[a].first)},
                                                  {kind == 0 ? "before" : "after", id(m.insts[b].first)}};
    RC_ASSERT(agent::apply(s, e).ok());
    Model next = m;
    apply(next);
    expect_same(next, s);
  }
  void show(std::ostream& os) const override { os << "move/swap kind " << kind << " #" << a << " #" << b; }
};

struct SetWait : Cmd {
  unsigned vm = *rc::gen::inRange(0u, 70u);  // 64..69 are out of range: rejected at /edits/0/vmcnt
  explicit SetWait(const Model&) {}
  void checkPreconditions(const Model& m) const override {
    bool any = false;
    for (const auto& [i, t] : m.insts) any = any || t.starts_with("s_waitcnt");
    RC_PRE(any);
  }
  void apply(Model& m) const override {
    if (vm > 63) return;
    for (auto& [i, t] : m.insts)
      if (t.starts_with("s_waitcnt")) {
        Waitcnt w = Waitcnt::none(Target::gfx942);
        w.vm = static_cast<std::uint8_t>(vm);
        t = "s_waitcnt " + to_string(Target::gfx942, w);
        return;
      }
  }
  void run(const Model& m, Sut& s) const override {
    std::uint32_t at = 0;
    for (const auto& [i, t] : m.insts)
      if (t.starts_with("s_waitcnt")) { at = i; break; }
    const auto r = agent::apply(s, {{"op", "set_waitcnt"}, {"at", id(at)}, {"vmcnt", vm}});
    RC_ASSERT(r.ok() == (vm <= 63));
    if (vm > 63) RC_ASSERT(r.errors.size() == 1u && r.errors[0].pointer == "/edits/0/vmcnt");
    Model next = m;
    apply(next);
    expect_same(next, s);
  }
  void show(std::ostream& os) const override { os << "set_waitcnt vmcnt " << vm; }
};

/// Malformed edits: each is rejected at its pointer and changes nothing.
struct Malformed : Cmd {
  int kind = *rc::gen::inRange(0, 4);
  std::size_t pos;
  explicit Malformed(const Model& m) : pos(body_pos(m)) {}
  void checkPreconditions(const Model& m) const override { RC_PRE(pos + 1 < m.insts.size()); }
  void apply(Model&) const override {}
  void run(const Model& m, Sut& s) const override {
    const std::string at = id(m.insts[pos].first);
    nlohmann::json e;
    std::string want;
    switch (kind) {
      case 0: e = {{"op", "delete"}, {"at", id(m.next_id + 5)}}, want = "/edits/0/at"; break;
      case 1: e = {{"op", "replace"}, {"at", at}, {"with", {"v_add_u32 v1,"}}}, want = "/edits/0/with/0"; break;
      case 2: e = {{"op", "teleport"}, {"at", at}}, want = "/edits/0/op"; break;
      default: e = {{"op", "insert_before"}, {"at", at}, {"insts", {"s_endpgm"}}}, want = "/edits/0"; break;
    }
    const auto r = agent::apply(s, e);
    RC_ASSERT(!r.ok());
    RC_ASSERT(r.errors.size() == 1u);
    RC_ASSERT(r.errors[0].pointer == want);
    expect_same(m, s);
  }
  void show(std::ostream& os) const override { os << "malformed kind " << kind << " #" << pos; }
};

RC_GTEST_PROP(EditScriptStateful, OneEditScriptsMatchTheModelAndMalformedOnesChangeNothing, ()) {
  Sut sut;
  sut.module.target = Target::gfx942;
  auto p = parse_program("k:\n  v_mov_b32 v1, 0\n  s_waitcnt vmcnt(0)\n  v_add_u32 v2, v1, v0\n  s_endpgm\n",
                         Target::gfx942, "<test>");
  RC_ASSERT(p.has_value());
  sut.module.program = std::move(*p);
  codeobject::KernelInfo k;
  k.name = "k";
  k.metadata = nlohmann::ordered_json{{".name", "k"}, {".max_flat_workgroup_size", 256}};
  sut.module.kernels.push_back(std::move(k));
  Model m0;
  for (const auto& it : sut.module.program.items)
    if (it.kind == Item::Kind::inst) m0.insts.emplace_back(it.inst.id.value, print_inst(it.inst));
  m0.next_id = sut.module.program.next_id;
  rc::state::check(m0, sut, rc::state::gen::execOneOfWithArgs<Insert, Delete, MoveSwap, SetWait, Malformed>());
}

}  // namespace
}  // namespace asmevo::agent
