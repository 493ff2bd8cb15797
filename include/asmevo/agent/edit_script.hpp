// JSON edit scripts: what agents and people send to change a kernel, validated field by field and applied all or
// nothing through the Rewriter (passes/rewriter.hpp). The format's JSON Schema is schema/edit-script.schema.json.
//
//   {"kernel": "vec_add",                                 optional: which kernel named passes run on
//    "edits": [
//      {"op": "insert_before", "at": "i7",  "insts": ["s_nop 1"]},
//      {"op": "insert_after",  "at": "i7",  "insts": ["v_mov_b32 v3, 0"]},
//      {"op": "replace",       "at": "i42", "with": ["v_lshl_add_u32 v1, v2, 2, v4"]},
//      {"op": "erase",         "at": "i9"},                    ("delete" is read as "erase")
//      {"op": "move",          "at": "i12", "before": "i10"},        (or "after")
//      {"op": "swap",          "a": "i12",  "b": "i13"},
//      {"op": "set_waitcnt",   "at": "i9",  "vmcnt": 1, "lgkmcnt": 0}, (an absent counter waits for nothing)
//      {"op": "insert_code",   "at": "i20", "code": [".Lmine:", "s_add_u32 s9, s6, 3", "s_cbranch_scc1 .Lmine"]},
//                                           (a region with new labels and branches, before the block i20 starts)
//      {"op": "insert_entry_code", "at": "i0", "code": ["s_cmp_lg_u32 s6, 64", "s_cbranch_scc1 .Lk0", ".Lk0:"]},
//                                           (the same right after the labels of i0's block, a kernel entry
//                                            included; it ends with a new label that then starts that block)
//      {"op": "pass",          "name": "waitcnt-min", "args": {"window": 64}}
//    ]}
//
// Ids are those of `asmevo disasm` (the trailing `; i<N>`): always ids of the original program; an instruction an
// earlier edit inserted has no id the author can know, and one an earlier edit deleted is gone.
//
// Validation gathers every problem, each with the JSON Pointer of the offending field and a message saying what was
// expected and what was found: structure (unknown op, missing or extra field, wrong type), ids (no such
// instruction), instruction text (does not parse for the target, with the parser's reason), Rewriter refusals (an
// edit that would change the CFG's shape or reach no code), and ABI (an edit that makes the kernel need what its
// launch contract does not give: scratch without a private segment, more VGPRs than its declared maximum workgroup
// size can launch with, SGPRs beyond the architectural limit). The edits are applied to a copy; the caller gets the
// new program only when there is no problem at all.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "asmevo/analysis/resources.hpp"
#include "asmevo/codeobject/module.hpp"
#include "asmevo/ir/parser.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/passes/registry.hpp"
#include "asmevo/passes/rewriter.hpp"
#include "asmevo/support/diag.hpp"
#include "asmevo/support/json_pointer.hpp"
#include "asmevo/support/linkage.hpp"

namespace asmevo::agent {

/// One problem of a script: the JSON Pointer of the field and what is wrong with it.
struct ScriptError {
  std::string pointer;  ///< RFC 6901, e.g. `/edits/3/with/0`; "" for the whole document
  std::string message;  ///< what was expected and what was found

  [[nodiscard]] std::string str() const { return (pointer.empty() ? std::string("(document)") : pointer) + ": " + message; }
};

/// A script applied: the new program, the Rewriter's log (every primitive edit, pass edits included) and each
/// pass's stats. `errors` is empty on success; otherwise `program` is the untouched original.
struct ScriptResult {
  Program program;
  std::vector<passes::Edit> log;
  std::vector<passes::PassStats> pass_stats;
  std::vector<ScriptError> errors;
  [[nodiscard]] bool ok() const noexcept { return errors.empty(); }
};

namespace detail {

[[nodiscard]] inline std::string type_name(const nlohmann::json& j) {
  if (j.is_null()) return "null";
  if (j.is_boolean()) return "a boolean";
  if (j.is_number_integer() || j.is_number_unsigned()) return "an integer";
  if (j.is_number()) return "a number";
  if (j.is_string()) return "the string " + j.dump();
  if (j.is_array()) return "an array";
  return "an object";
}

/// The fields each op takes (besides "op" and the optional "why").
struct OpShape {
  std::string_view op;
  std::vector<std::string_view> required, optional;
};
[[nodiscard]] inline const std::vector<OpShape>& op_shapes() {
  static const std::vector<OpShape> s{
      {"insert_before", {"at", "insts"}, {}},
      {"insert_after", {"at", "insts"}, {}},
      {"replace", {"at", "with"}, {}},
      {"erase", {"at"}, {}},
      {"delete", {"at"}, {}},  // the older spelling of "erase", still read
      {"move", {"at"}, {"before", "after"}},
      {"swap", {"a", "b"}, {}},
      {"set_waitcnt", {"at"}, {"vmcnt", "expcnt", "lgkmcnt"}},
      {"insert_code", {"at", "code"}, {}},
      {"insert_entry_code", {"at", "code"}, {}},
      {"pass", {"name"}, {"args"}},
  };
  return s;
}

/// Collects the problems of one script.
struct Checker {
  std::vector<ScriptError>& errs;
  /// The instructions the launch does not exercise (passes::PassContext::not_exercised), when restricted to it.
  const std::unordered_set<std::uint32_t>* cold = nullptr;
  void add(std::string ptr, std::string msg) { errs.push_back(ScriptError{std::move(ptr), std::move(msg)}); }

  /// An instruction id ("i42") of the original program.
  std::optional<InstId> id(const nlohmann::json& j, const std::string& ptr, const Program& p) {
    if (!j.is_string()) {
      add(ptr, "expected an instruction id such as \"i42\", found " + type_name(j));
      return std::nullopt;
    }
    const std::string s = j.get<std::string>();
    std::uint64_t v = 0;
    // Ids are what the parser reads from `; i<N>` comments: below 2^31 (ir/line_parser.hpp).
    bool good = s.size() > 1 && s.size() <= 11 && s[0] == 'i';
    for (std::size_t k = 1; good && k < s.size(); ++k) {
      good = s[k] >= '0' && s[k] <= '9';
      if (good) v = v * 10 + static_cast<unsigned>(s[k] - '0');
    }
    if (!good || v >= 0x80000000u) {
      add(ptr, "expected an instruction id such as \"i42\" (the trailing '; i<N>' of asmevo disasm), found \"" + s + "\"");
      return std::nullopt;
    }
    const InstId id{static_cast<std::uint32_t>(v)};
    if (!p.find(id)) {
      add(ptr, "no instruction " + s + " in the kernel's program (ids run below i" + std::to_string(p.next_id) +
                   "; an id is never reused)");
      return std::nullopt;
    }
    if (cold && cold->contains(id.value)) {
      add(ptr, s + " lies in code the launch does not exercise (no run of K0 issues it with a lane enabled): the "
                   "verifier could not check a change there; edit code the launch runs");
      return std::nullopt;
    }
    return id;
  }

  /// A non-empty array of instruction texts, each parsed for `t`.
  std::optional<std::vector<Inst>> insts(const nlohmann::json& j, const std::string& ptr, Target t) {
    auto l = lines(j, ptr, t, false);
    if (!l) return std::nullopt;
    std::vector<Inst> out;
    for (auto& it : *l) out.push_back(std::move(it.inst));
    return out;
  }

  /// A non-empty array of region lines: labels ("name:") and instruction texts parsed for `t`.
  std::optional<std::vector<Item>> code(const nlohmann::json& j, const std::string& ptr, Target t) {
    return lines(j, ptr, t, true);
  }

  /// A non-empty array of instruction texts parsed for `t`, and label lines ("name:") when `labels`, as items.
  std::optional<std::vector<Item>> lines(const nlohmann::json& j, const std::string& ptr, Target t, bool labels) {
    if (!j.is_array() || j.empty()) {
      add(ptr, labels ? "expected a non-empty array of labels (\".Lname:\") and instruction texts, found " + type_name(j)
                      : "expected a non-empty array of instruction texts such as [\"s_nop 0\"], found " + type_name(j));
      return std::nullopt;
    }
    std::vector<Item> out;
    bool good = true;
    for (std::size_t k = 0; k < j.size(); ++k) {
      const std::string kp = ptr + "/" + std::to_string(k);
      if (!j[k].is_string()) {
        add(kp, std::string(labels ? "expected a label or an instruction text" : "expected an instruction text") +
                    ", found " + type_name(j[k]));
        good = false;
        continue;
      }
      const std::string text = j[k].get<std::string>();
      Item it;
      if (labels && !text.empty() && text.back() == ':') {
        const std::string name = text.substr(0, text.size() - 1);
        const bool ident = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
          return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '$';
        }) && !(name[0] >= '0' && name[0] <= '9');
        if (!ident) {
          add(kp, "\"" + printable(text) + "\" is not a label: letters, digits, '_', '.', '$', not starting with a digit");
          good = false;
          continue;
        }
        it.kind = Item::Kind::label;
        it.name = name;
      } else {
        auto in = parse_inst(text, t);
        if (!in) {
          add(kp, "\"" + printable(text) + "\" is not a " + std::string(to_string(t)) + " instruction: " +
                      in.error().message + (in.error().hint.empty() ? std::string{} : " (" + in.error().hint + ")"));
          good = false;
          continue;
        }
        it.kind = Item::Kind::inst;
        it.inst = std::move(*in);
      }
      out.push_back(std::move(it));
    }
    if (!good) return std::nullopt;
    return out;
  }
};

/// An edit that needs registers or resources the kernel's launch contract does not give (see the file comment), or
/// empty.
[[nodiscard]] inline std::string abi_problem(const Inst& in, const codeobject::KernelInfo& k, Target t) {
  const auto& kd = k.descriptor;
  const auto& f = isa::forms(t)[in.form];
  if (f.format == isa::Format::SCRATCH && !kd.get(codeobject::field::enable_private_segment))
    return "'" + print_inst(in) + "' uses scratch, but kernel '" + k.name +
           "' has no private segment (enable_private_segment 0): its launch would have to change";
  Item it;
  it.kind = Item::Kind::inst;
  it.inst = in;
  const auto use = analysis::scan(std::span<const Item>(&it, 1));
  if (use.sgprs > 102)
    return "'" + print_inst(in) + "' names s" + std::to_string(use.sgprs - 1) + ", beyond the 102 SGPRs of " +
           std::string(to_string(t));
  std::uint64_t wg = 0;
  if (k.metadata.contains(".max_flat_workgroup_size") && k.metadata[".max_flat_workgroup_size"].is_number_unsigned())
    wg = k.metadata[".max_flat_workgroup_size"].get<std::uint64_t>();
  if (wg == 0) wg = 1024;
  // A workgroup's waves share the CU's 4 SIMDs; each SIMD has 512 VGPRs per lane in granules of 8 (resources.hpp).
  const std::uint64_t waves_per_simd = ((wg + 63) / 64 + 3) / 4;
  const int budget = static_cast<int>(512 / waves_per_simd) / 8 * 8;
  const int accum = kd.accum_offset();
  const int need = use.agprs > 0 ? std::max(accum, (use.vgprs + 3) / 4 * 4) + use.agprs : use.vgprs;
  if (need > budget)
    return "'" + print_inst(in) + "' needs " + std::to_string(need) + " VGPRs per lane, but kernel '" + k.name +
           "' declares max_flat_workgroup_size " + std::to_string(wg) + ", which can launch with at most " +
           std::to_string(budget) + ": its launch contract would have to change";
  return {};
}

}  // namespace detail

/// Validates and applies `script` (parsed JSON) to module `m`'s program. See the file comment.
/// `base` supplies what every pass the script names is told beyond its kernel and arguments: xnack, and
/// not_exercised (then an edit addressing an instruction in it is an error, like an unknown id).
[[nodiscard]] ASMEVO_OUTLINE ScriptResult apply_edit_script(const codeobject::Module& m, const nlohmann::json& script,
                                                    const passes::PassContext& base)
#if ASMEVO_BODY_AGENT
{
  ScriptResult res;
  res.program = m.program;
  detail::Checker ck{res.errors, base.not_exercised.get()};
  if (!script.is_object()) {
    ck.add("", "expected an object {\"edits\": [...]}, found " + detail::type_name(script));
    return res;
  }
  for (const auto& [key, v] : script.items())
    if (key != "kernel" && key != "edits" && key != "$schema" && key != "comment")
      ck.add("/" + pointer_token(key), "unknown field \"" + key + "\" (expected \"kernel\", \"edits\", \"comment\")");
  const codeobject::KernelInfo* kernel = nullptr;
  if (script.contains("kernel")) {
    const auto& kj = script["kernel"];
    if (!kj.is_string()) {
      ck.add("/kernel", "expected a kernel name, found " + detail::type_name(kj));
    } else {
      for (const auto& k : m.kernels)
        if (k.name == kj.get<std::string>()) kernel = &k;
      if (!kernel) {
        std::string names;
        for (const auto& k : m.kernels) names += (names.empty() ? "" : ", ") + k.name;
        ck.add("/kernel", "no kernel \"" + kj.get<std::string>() + "\" in the code object (it has: " + names + ")");
      }
    }
  } else if (m.kernels.size() == 1) {
    kernel = &m.kernels[0];
  }
  if (!script.contains("edits") || !script["edits"].is_array()) {
    ck.add("/edits", script.contains("edits") ? "expected an array of edits, found " + detail::type_name(script["edits"])
                                              : "missing: the list of edits");
    return res;
  }
  const auto& edits = script["edits"];
  Program work = m.program;
  passes::Rewriter rw(work);
  passes::PassContext ctx;
  ctx.xnack = base.xnack;
  ctx.not_exercised = base.not_exercised;
  ctx.launches = base.launches;
  if (kernel) ctx.kernels.push_back(kernel->name);
  else
    for (const auto& k : m.kernels) ctx.kernels.push_back(k.name);

  for (std::size_t i = 0; i < edits.size(); ++i) {
    const std::string ptr = "/edits/" + std::to_string(i);
    const auto& e = edits[i];
    if (!e.is_object()) {
      ck.add(ptr, "expected an edit object {\"op\": ...}, found " + detail::type_name(e));
      continue;
    }
    if (!e.contains("op") || !e["op"].is_string()) {
      ck.add(ptr + "/op", e.contains("op") ? "expected an op name, found " + detail::type_name(e["op"]) : "missing: the edit's op");
      continue;
    }
    const std::string op = e["op"].get<std::string>();
    const detail::OpShape* shape = nullptr;
    std::string ops;
    for (const auto& s : detail::op_shapes()) {
      if (s.op == op) shape = &s;
      ops += (ops.empty() ? "" : ", ") + std::string(s.op);
    }
    if (!shape) {
      ck.add(ptr + "/op", "unknown op \"" + op + "\" (expected one of: " + ops + ")");
      continue;
    }
    const std::size_t before = res.errors.size();
    for (const auto& [key, v] : e.items()) {
      const bool known = key == "op" || key == "why" ||
                         std::find(shape->required.begin(), shape->required.end(), key) != shape->required.end() ||
                         std::find(shape->optional.begin(), shape->optional.end(), key) != shape->optional.end();
      if (!known) ck.add(ptr + "/" + pointer_token(key), "op \"" + op + "\" takes no field \"" + key + "\"");
    }
    for (const auto r : shape->required)
      if (!e.contains(std::string(r))) ck.add(ptr + "/" + std::string(r), "missing: op \"" + op + "\" needs it");
    if (res.errors.size() != before) continue;

    passes::Edit ed;
    ed.why = "script";
    if (e.contains("why")) {
      if (!e["why"].is_string()) {
        ck.add(ptr + "/why", "expected a string saying why, found " + detail::type_name(e["why"]));
        continue;
      }
      ed.why = e["why"].get<std::string>();
    }
    using O = passes::Edit::Op;
    if (op == "pass") {
      const auto& nj = e["name"];
      const passes::PassInfo* pass = nj.is_string() ? passes::find_pass(nj.get<std::string>()) : nullptr;
      if (!pass) {
        std::string names;
        for (const auto& p : passes::builtin_passes()) names += (names.empty() ? "" : ", ") + std::string(p.name);
        ck.add(ptr + "/name", "expected a pass name (one of: " + names + "), found " + detail::type_name(nj));
        continue;
      }
      passes::PassContext pc = ctx;
      if (e.contains("args")) {
        if (!e["args"].is_object()) {
          ck.add(ptr + "/args", "expected an object of arguments, found " + detail::type_name(e["args"]));
          continue;
        }
        bool bad = false;
        for (const auto& [key, v] : e["args"].items()) {
          if (v.is_string()) pc.args[key] = v.get<std::string>();
          else if (v.is_number_unsigned() || v.is_number_integer() || v.is_boolean()) pc.args[key] = v.dump();
          else ck.add(ptr + "/args/" + pointer_token(key), "expected a string, number or boolean, found " + detail::type_name(v)), bad = true;
        }
        if (bad) continue;
      }
      auto st = pass->run(rw, pc);
      if (!st) {
        // A pass names a bad argument as "argument 'key' ...": point at that argument.
        std::string where = ptr;
        const std::string& msg = st.error().message;
        if (msg.starts_with("argument '"))
          if (const auto end = msg.find('\'', 10); end != std::string::npos && pc.args.count(msg.substr(10, end - 10)))
            where += "/args/" + pointer_token(msg.substr(10, end - 10));
        ck.add(where, "pass \"" + std::string(pass->name) + "\" failed: " + msg);
      }
      else res.pass_stats.push_back(std::move(*st));
      continue;
    }
    if (op == "swap") {
      auto a = ck.id(e["a"], ptr + "/a", m.program);
      auto b = ck.id(e["b"], ptr + "/b", m.program);
      if (!a || !b) continue;
      ed.op = O::swap, ed.at = *a, ed.other = *b;
    } else {
      auto at = ck.id(e["at"], ptr + "/at", m.program);
      if (op == "insert_before" || op == "insert_after" || op == "replace") {
        const char* field = op == "replace" ? "with" : "insts";
        auto ins = ck.insts(e[field], ptr + "/" + field, m.target);
        if (!at || !ins) continue;
        ed.op = op == "replace" ? O::replace : op == "insert_before" ? O::insert_before : O::insert_after;
        ed.at = *at;
        ed.insts = std::move(*ins);
        // The launch contract of the named kernel, or of every kernel when the script names none (an instruction
        // may sit in code any of them runs).
        for (std::size_t k = 0; k < ed.insts.size(); ++k)
          for (const auto& kern : m.kernels) {
            if (kernel && &kern != kernel) continue;
            if (auto why = detail::abi_problem(ed.insts[k], kern, m.target); !why.empty()) {
              ck.add(ptr + "/" + field + "/" + std::to_string(k), why);
              break;
            }
          }
        if (res.errors.size() != before) continue;
      } else if (op == "insert_code" || op == "insert_entry_code") {
        auto code = ck.code(e["code"], ptr + "/code", m.target);
        if (!at || !code) continue;
        ed.op = op == "insert_code" ? O::insert_code : O::insert_entry_code, ed.at = *at, ed.code = std::move(*code);
        for (std::size_t k = 0; k < ed.code.size(); ++k)
          for (const auto& kern : m.kernels) {
            if (ed.code[k].kind != Item::Kind::inst || (kernel && &kern != kernel)) continue;
            if (auto why = detail::abi_problem(ed.code[k].inst, kern, m.target); !why.empty()) {
              ck.add(ptr + "/code/" + std::to_string(k), why);
              break;
            }
          }
        if (res.errors.size() != before) continue;
      } else if (op == "erase" || op == "delete") {
        if (!at) continue;
        ed.op = O::erase, ed.at = *at;
      } else if (op == "move") {
        const bool b = e.contains("before"), a = e.contains("after");
        if (b == a) {
          ck.add(ptr, "op \"move\" needs exactly one of \"before\" and \"after\" (the id it goes next to)");
          continue;
        }
        auto other = ck.id(e[b ? "before" : "after"], ptr + (b ? "/before" : "/after"), m.program);
        if (!at || !other) continue;
        ed.op = b ? O::move_before : O::move_after, ed.at = *at, ed.other = *other;
      } else if (op == "set_waitcnt") {
        if (!at) continue;
        Waitcnt w = Waitcnt::none(m.target);
        bool bad = false;
        for (const auto& [name, c] : {std::pair{"vmcnt", Counter::vm}, std::pair{"expcnt", Counter::exp},
                                      std::pair{"lgkmcnt", Counter::lgkm}}) {
          if (!e.contains(name)) continue;
          const auto& v = e[name];
          const unsigned max = max_count(m.target, c);
          if (!v.is_number_unsigned() || v.get<std::uint64_t>() > max) {
            ck.add(ptr + "/" + name, "expected an integer 0.." + std::to_string(max) + " (the " + name + " field on " +
                                         std::string(to_string(m.target)) + "), found " + detail::type_name(v) +
                                         (v.is_number() ? " " + v.dump() : std::string{}));
            bad = true;
            continue;
          }
          w.set(c, static_cast<unsigned>(v.get<std::uint64_t>()));
        }
        if (bad) continue;
        ed.op = O::set_waitcnt, ed.at = *at, ed.wait = w;
      }
    }
    if (auto r = rw.apply(ed); !r) {
      std::string msg = r.error().message;
      if (!r.error().hint.empty()) msg += " (" + r.error().hint + ")";
      // Point at the field the refusal is about: the other id of a move or swap, else the edit.
      std::string where = ptr;
      const auto about = r.error().loc.inst_id;
      if (ed.op == O::swap) where += about && *about == ed.other.value ? "/b" : "/a";
      else if ((ed.op == O::move_before || ed.op == O::move_after) && about && *about == ed.other.value)
        where += ed.op == O::move_before ? "/before" : "/after";
      ck.add(where, msg);
    }
  }
  if (!res.errors.empty()) {
    res.pass_stats.clear();  // nothing was applied
    return res;
  }
  res.log = rw.log();
  res.program = std::move(work);
  return res;
}
#else
;
#endif

/// The edit script that makes the changes of `log` (a Rewriter's log): each entry as its op, instructions as text,
/// a wait with all three counts. Applied to the program the log was made on, it reproduces the log's changes when
/// every id it names is one of that program's originals (an instruction the log itself inserted has an id no script
/// can name, so such an entry fails validation rather than change the wrong instruction).
[[nodiscard]] inline nlohmann::json edits_to_script(const std::vector<passes::Edit>& log, std::string_view kernel = {}) {
  using O = passes::Edit::Op;
  nlohmann::json edits = nlohmann::json::array();
  auto id = [](InstId i) { return "i" + std::to_string(i.value); };
  for (const auto& e : log) {
    nlohmann::json j;
    auto texts = [&] {
      nlohmann::json t = nlohmann::json::array();
      for (const auto& in : e.insts) t.push_back(print_inst(in));
      return t;
    };
    switch (e.op) {
      case O::insert_before: j = {{"op", "insert_before"}, {"at", id(e.at)}, {"insts", texts()}}; break;
      case O::insert_after: j = {{"op", "insert_after"}, {"at", id(e.at)}, {"insts", texts()}}; break;
      case O::replace: j = {{"op", "replace"}, {"at", id(e.at)}, {"with", texts()}}; break;
      case O::erase: j = {{"op", "erase"}, {"at", id(e.at)}}; break;
      case O::move_before: j = {{"op", "move"}, {"at", id(e.at)}, {"before", id(e.other)}}; break;
      case O::move_after: j = {{"op", "move"}, {"at", id(e.at)}, {"after", id(e.other)}}; break;
      case O::swap: j = {{"op", "swap"}, {"a", id(e.at)}, {"b", id(e.other)}}; break;
      case O::insert_code:
      case O::insert_entry_code: {
        nlohmann::json c = nlohmann::json::array();
        for (const auto& it : e.code) c.push_back(it.kind == Item::Kind::label ? it.name + ":" : print_inst(it.inst));
        j = {{"op", std::string(to_string(e.op))}, {"at", id(e.at)}, {"code", std::move(c)}};
        break;
      }
      case O::set_waitcnt:
        j = {{"op", "set_waitcnt"}, {"at", id(e.at)}, {"vmcnt", e.wait.get(Counter::vm)},
             {"expcnt", e.wait.get(Counter::exp)}, {"lgkmcnt", e.wait.get(Counter::lgkm)}};
        break;
    }
    if (!e.why.empty() && e.why != "script") j["why"] = e.why;
    edits.push_back(std::move(j));
  }
  nlohmann::json out{{"edits", std::move(edits)}};
  if (!kernel.empty()) out["kernel"] = std::string(kernel);
  return out;
}

/// The same, with only the XNACK mode given.
[[nodiscard]] inline ScriptResult apply_edit_script(const codeobject::Module& m, const nlohmann::json& script,
                                                    bool xnack = true) {
  passes::PassContext base;
  base.xnack = xnack;
  return apply_edit_script(m, script, base);
}

/// Parses `text` as JSON and applies it; a syntax error is one ScriptError at "" naming the byte offset.
[[nodiscard]] inline ScriptResult apply_edit_script_text(const codeobject::Module& m, std::string_view text,
                                                         const passes::PassContext& base) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) {
    ScriptResult res;
    res.program = m.program;
    // nlohmann's non-throwing parse gives no position; find it with the SAX parser's error callback.
    struct Pos : nlohmann::json_sax<nlohmann::json> {
      std::size_t at = 0;
      std::string what;
      bool null() override { return true; }
      bool boolean(bool) override { return true; }
      bool number_integer(number_integer_t) override { return true; }
      bool number_unsigned(number_unsigned_t) override { return true; }
      bool number_float(number_float_t, const string_t&) override { return true; }
      bool string(string_t&) override { return true; }
      bool binary(binary_t&) override { return true; }
      bool start_object(std::size_t) override { return true; }
      bool key(string_t&) override { return true; }
      bool end_object() override { return true; }
      bool start_array(std::size_t) override { return true; }
      bool end_array() override { return true; }
      bool parse_error(std::size_t pos, const std::string&, const nlohmann::detail::exception& ex) override {
        at = pos;
        what = ex.what();
        return false;
      }
    } sax;
    (void)nlohmann::json::sax_parse(text, &sax, nlohmann::json::input_format_t::json, true);
    std::size_t line = 1, col = 1;
    for (std::size_t k = 0; k + 1 < sax.at && k < text.size(); ++k) {
      if (text[k] == '\n') ++line, col = 1;
      else ++col;
    }
    res.errors.push_back(ScriptError{"", "the script is not valid JSON: line " + std::to_string(line) + ", column " +
                                             std::to_string(col) + " (byte " + std::to_string(sax.at) + "): " + sax.what});
    return res;
  }
  return apply_edit_script(m, j, base);
}

/// The same, with only the XNACK mode given.
[[nodiscard]] inline ScriptResult apply_edit_script_text(const codeobject::Module& m, std::string_view text,
                                                         bool xnack = true) {
  passes::PassContext base;
  base.xnack = xnack;
  return apply_edit_script_text(m, text, base);
}

}  // namespace asmevo::agent
