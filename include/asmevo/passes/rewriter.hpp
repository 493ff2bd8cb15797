// Rewriter: the only way a pass or an edit script changes a Program. Every change is an Edit addressed by stable
// instruction id, recorded in a log that can be undone (last first) and replayed on a copy of the original.
//
// Invariants the Rewriter keeps (each refused edit is a Diag naming the id and the rule):
//  - Ids are stable: an untouched instruction keeps its id; `replace` keeps the id on the first new instruction (the
//    DESIGN.md example "replace i42 with [...]" still names i42 afterwards); inserted instructions get fresh ids from
//    Program::next_id, so replaying the same log on the same original gives the same ids.
//  - Existing labels, directives, kernel blocks and metadata are never edited: only instruction items move.
//  - Instruction by instruction, the CFG keeps its shape: a branch or terminator (s_branch, s_cbranch_*, s_endpgm,
//    s_setpc_b64 ...) is never inserted, moved, swapped or erased, and may only be replaced by one of the same kind
//    (conditional, fall-through, terminator: detail::same_control), so only a branch's target label may change;
//    nothing is inserted or moved between an instruction control never falls out of (s_branch, s_endpgm) and the next
//    label (code no path reaches); a new branch target must name a label of the program. Code inserted right after a
//    conditional branch starts its fall-through successor.
//  - New control flow comes only as a region (`insert_code`): straight-line code, new labels and branches, placed
//    just before the labels of the block an instruction starts. What fell through into that block now falls into
//    the region; branches to the block's labels still reach the block. Every label of the region is new to the
//    program, every branch in it names a label of the program or of the region (no indirect branch), its code is
//    reachable (after an instruction control never falls out of, only a new label starts more), and it does not
//    cut off a block that only fall-through reaches. No region goes before a kernel or function symbol; before an
//    aligned block it goes ahead of the alignment directive, and not at all where nothing falls into that directive
//    (the kernarg-preload entry at +256, which firmware enters directly). Loop
//    transformations (unroll, software pipelining) are built from it.
//  - Versioning needs code where those cannot go: at a kernel's entry. `insert_entry_code` places a region right after
//    the labels of the block an instruction starts (a symbol or a pinned entry among them is fine), so that the
//    block's labels, and every branch to them, now lead into the region; the region must end with a new label, which
//    then starts what was the block. The same checks hold otherwise.
//  - Every new instruction is well-formed for the program's target: it prints to text that the parser reads back as
//    the same form and operands (register class, width, alignment, immediate ranges).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "asmevo/ir/gen/isa_tables.hpp"
#include "asmevo/ir/op.hpp"
#include "asmevo/ir/parser.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/ir/program.hpp"
#include "asmevo/ir/waitcnt.hpp"
#include "asmevo/support/diag.hpp"

namespace asmevo::passes {

/// One entry of an edit script (the in-memory form of agent/edit_script.hpp's JSON).
struct Edit {
  enum class Op : std::uint8_t {
    insert_before,  ///< `insts` before `at`
    insert_after,   ///< `insts` after `at`
    replace,        ///< `at` by `insts` (the first keeps `at`'s id); an empty list is not a replace (use erase)
    erase,          ///< remove `at`
    move_before,    ///< move `at` to just before `other`
    move_after,     ///< move `at` to just after `other`
    swap,           ///< exchange the places of `at` and `other`
    set_waitcnt,    ///< give the s_waitcnt `at` the counts `wait`
    insert_code,    ///< `code` (instructions and new labels) just before the labels of the block `at` starts
    insert_entry_code,  ///< `code` just after the labels of the block `at` starts, ending with a new label
  };
  Op op = Op::erase;
  InstId at{};
  InstId other{};
  std::vector<Inst> insts;
  Waitcnt wait{};
  std::string why;  ///< who asked for it: a rule or pass name, or "script"
  /// insert_code: the region, in order; each Item::Kind::inst or Item::Kind::label (the ids are assigned on insert).
  std::vector<Item> code;
};

[[nodiscard]] constexpr std::string_view to_string(Edit::Op op) noexcept {
  switch (op) {
    case Edit::Op::insert_before: return "insert_before";
    case Edit::Op::insert_after: return "insert_after";
    case Edit::Op::replace: return "replace";
    case Edit::Op::erase: return "erase";
    case Edit::Op::move_before: return "move_before";
    case Edit::Op::move_after: return "move_after";
    case Edit::Op::swap: return "swap";
    case Edit::Op::set_waitcnt: return "set_waitcnt";
    case Edit::Op::insert_code: return "insert_code";
    case Edit::Op::insert_entry_code: return "insert_entry_code";
  }
  return "?";
}

namespace detail {

[[nodiscard]] inline const isa::FormInfo& rw_form(const Inst& in) { return isa::forms(in.target)[in.form]; }

/// Ends a basic block (ir/blocks.hpp's rule): a branch, a terminator, or an instruction control never falls out of.
[[nodiscard]] inline bool ends_block(const Inst& in) {
  const auto& f = rw_form(in);
  return f.has(isa::prop::branch) || f.has(isa::prop::terminator) || f.has(isa::prop::no_fallthrough);
}

/// Control never falls out of it (LLVM isBarrier: s_branch, s_endpgm, s_setpc_b64 ...): code right after it, before
/// the next label, is unreachable.
[[nodiscard]] inline bool no_fallthrough(const Inst& in) { return rw_form(in).has(isa::prop::no_fallthrough); }

/// Same control kind: both fall through or neither, both conditional or neither, same branch/terminator/call
/// flags. Replacing one with the other keeps every block's fall-through edge; only a branch target may change.
[[nodiscard]] inline bool same_control(const Inst& a, const Inst& b) {
  using namespace isa::prop;
  const auto& fa = rw_form(a);
  const auto& fb = rw_form(b);
  for (const std::uint64_t bit : {branch, cond_branch, indirect_branch, terminator, isa::prop::no_fallthrough, call, return_})
    if (fa.has(bit) != fb.has(bit)) return false;
  return true;
}

/// The symbolic label operand of a branch, if any.
[[nodiscard]] inline std::optional<std::string> branch_label(const Inst& in) {
  const auto ops = isa::operands(rw_form(in));
  for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k)
    if (ops[k].kind == isa::Kind::label && in.ops[k].kind == Operand::Kind::expr) return in.ops[k].text;
  return std::nullopt;
}

}  // namespace detail

/// Why `in` is not a well-formed instruction of target `t`, or empty (see the file comment).
[[nodiscard]] inline std::string check_well_formed(const Inst& in, Target t) {
  if (in.target != t) return "the instruction is for " + std::string(to_string(in.target)) + ", the program for " +
                             std::string(to_string(t));
  if (in.form >= isa::forms(t).size()) return "no such instruction form";
  const std::string text = print_inst(in);
  auto back = parse_inst(text, t);
  if (!back) return "'" + text + "' does not read back: " + back.error().message;
  if (back->form != in.form || back->ops != in.ops) return "'" + text + "' reads back as a different instruction";
  return {};
}

/// Edits one Program; owns nothing. Every method either applies its edit fully (and logs it) or changes nothing and
/// returns the reason.
class Rewriter {
 public:
  explicit Rewriter(Program& p) : p_(&p) {
    for (const auto& it : p.items)
      if (it.kind == Item::Kind::label) labels_.insert(it.name);
  }

  /// The program as edited so far. Read-only: every change goes through the methods below, so that it is logged.
  [[nodiscard]] const Program& program() const noexcept { return *p_; }
  /// The edits applied so far (undone ones removed), in order: an edit script that replays them. Each logged
  /// instruction carries the id the edit gave it.
  [[nodiscard]] const std::vector<Edit>& log() const noexcept { return log_; }

  /// Program::items index of instruction `id`, or -1.
  [[nodiscard]] std::ptrdiff_t index_of(InstId id) const noexcept {
    for (std::size_t i = 0; i < p_->items.size(); ++i)
      if (p_->items[i].kind == Item::Kind::inst && p_->items[i].inst.id == id) return static_cast<std::ptrdiff_t>(i);
    return -1;
  }

  Expected<void> insert_before(InstId at, std::vector<Inst> insts, std::string why = {}) {
    return apply(Edit{Edit::Op::insert_before, at, {}, std::move(insts), {}, std::move(why)});
  }
  Expected<void> insert_after(InstId at, std::vector<Inst> insts, std::string why = {}) {
    return apply(Edit{Edit::Op::insert_after, at, {}, std::move(insts), {}, std::move(why)});
  }
  Expected<void> replace(InstId at, std::vector<Inst> insts, std::string why = {}) {
    return apply(Edit{Edit::Op::replace, at, {}, std::move(insts), {}, std::move(why)});
  }
  Expected<void> erase(InstId at, std::string why = {}) {
    return apply(Edit{Edit::Op::erase, at, {}, {}, {}, std::move(why)});
  }
  Expected<void> move_before(InstId at, InstId anchor, std::string why = {}) {
    return apply(Edit{Edit::Op::move_before, at, anchor, {}, {}, std::move(why)});
  }
  Expected<void> move_after(InstId at, InstId anchor, std::string why = {}) {
    return apply(Edit{Edit::Op::move_after, at, anchor, {}, {}, std::move(why)});
  }
  Expected<void> swap(InstId a, InstId b, std::string why = {}) {
    return apply(Edit{Edit::Op::swap, a, b, {}, {}, std::move(why)});
  }
  Expected<void> set_waitcnt(InstId at, Waitcnt w, std::string why = {}) {
    return apply(Edit{Edit::Op::set_waitcnt, at, {}, {}, w, std::move(why)});
  }
  /// Inserts a region of code with its own labels and branches before the block `at` starts (see the file comment).
  Expected<void> insert_code(InstId at, std::vector<Item> code, std::string why = {}) {
    Edit e{Edit::Op::insert_code, at, {}, {}, {}, std::move(why)};
    e.code = std::move(code);
    return apply(std::move(e));
  }

  /// Inserts a region right after the labels of the block `at` starts -- a kernel's entry, say -- so that they and
  /// every branch to them lead into it; the region ends with a new label, which then starts `at` (file comment).
  Expected<void> insert_entry_code(InstId at, std::vector<Item> code, std::string why = {}) {
    Edit e{Edit::Op::insert_entry_code, at, {}, {}, {}, std::move(why)};
    e.code = std::move(code);
    return apply(std::move(e));
  }

  /// True if `name` is a label of the program.
  [[nodiscard]] bool has_label(const std::string& name) const { return labels_.contains(name); }
  /// A label name of the form `stem`, `stem_1`, `stem_2` ... that the program does not have yet.
  [[nodiscard]] std::string fresh_label(const std::string& stem) const {
    std::string n = stem;
    for (unsigned k = 1; labels_.contains(n); ++k) n = stem + "_" + std::to_string(k);
    return n;
  }

  /// Applies one edit (checked as the file comment says) and logs it.
  Expected<void> apply(Edit e) {
    Journal j;
    j.next_id = p_->next_id;
    auto r = apply_raw(e, j);
    if (!r) {
      rollback(j);
      return r;
    }
    log_.push_back(std::move(e));
    journal_.push_back(std::move(j));
    return {};
  }

  /// Undoes the last `n` edits (all of them by default), newest first. Returns how many were undone.
  std::size_t undo(std::size_t n = ~std::size_t{0}) {
    std::size_t k = 0;
    for (; k < n && !journal_.empty(); ++k) {
      rollback(journal_.back());
      journal_.pop_back();
      log_.pop_back();
    }
    return k;
  }

  /// Replays `edits` (a log, possibly from another Rewriter) on this program, all or nothing: on the first refusal
  /// everything replayed so far is undone and the error names the edit's index.
  Expected<void> replay(const std::vector<Edit>& edits) {
    const std::size_t mark = log_.size();
    for (std::size_t i = 0; i < edits.size(); ++i) {
      if (auto r = apply(edits[i]); !r) {
        undo(log_.size() - mark);
        Diag d = std::move(r).error();
        d.message = "edit " + std::to_string(i) + " (" + std::string(to_string(edits[i].op)) + "): " + d.message;
        return unexpected(std::move(d));
      }
    }
    return {};
  }

 private:
  // A journal entry is one primitive change: an item inserted at `index` (undo removes it), an item removed from
  // `index` (undo puts `item` back), or an item changed in place (undo restores `item`).
  struct Step {
    enum class Kind : std::uint8_t { inserted, removed, changed } kind;
    std::size_t index;
    Item item;
  };
  struct Journal {
    std::vector<Step> steps;
    std::uint32_t next_id = 0;
  };

  void rollback(Journal& j) {
    for (auto s = j.steps.rbegin(); s != j.steps.rend(); ++s) {
      auto& items = p_->items;
      switch (s->kind) {
        case Step::Kind::inserted:
          if (items[s->index].kind == Item::Kind::label) labels_.erase(items[s->index].name);
          items.erase(items.begin() + static_cast<std::ptrdiff_t>(s->index));
          break;
        case Step::Kind::removed: items.insert(items.begin() + static_cast<std::ptrdiff_t>(s->index), std::move(s->item)); break;
        case Step::Kind::changed: items[s->index] = std::move(s->item); break;
      }
    }
    j.steps.clear();
    p_->next_id = j.next_id;
  }

  void put(std::size_t index, Item it, Journal& j) {
    p_->items.insert(p_->items.begin() + static_cast<std::ptrdiff_t>(index), std::move(it));
    j.steps.push_back(Step{Step::Kind::inserted, index, {}});
  }
  Item take(std::size_t index, Journal& j) {
    Item it = p_->items[index];
    p_->items.erase(p_->items.begin() + static_cast<std::ptrdiff_t>(index));
    j.steps.push_back(Step{Step::Kind::removed, index, it});
    return it;
  }

  [[nodiscard]] Diag refuse(const Edit& e, InstId id, std::string msg, std::string hint = {}) const {
    Loc l{p_->file, 0, 0, id.value};
    std::string text;
    if (const auto i = index_of(id); i >= 0) text = print_inst(p_->items[static_cast<std::size_t>(i)].inst);
    return make_diag(DiagCode::usage, std::string(to_string(e.op)) + " i" + std::to_string(id.value) + ": " + msg,
                     std::move(l), std::move(text), std::move(hint));
  }

  /// The index of `id`, or an error naming it.
  Expected<std::size_t> locate(const Edit& e, InstId id) const {
    const auto i = index_of(id);
    if (i < 0)
      return unexpected(make_diag(DiagCode::usage,
                                  std::string(to_string(e.op)) + ": no instruction i" + std::to_string(id.value) +
                                      " in the program",
                                  Loc{p_->file, 0, 0, id.value}, {},
                                  "ids are the trailing '; i<N>' comments of `asmevo disasm`; an erased id is gone"));
    return static_cast<std::size_t>(i);
  }

  /// True if item position `pos` (an insertion point: before items[pos]) lies after an instruction control never
  /// falls out of, with no label in between: code placed there would be unreachable.
  [[nodiscard]] bool dead_spot(std::size_t pos) const {
    for (std::size_t k = pos; k-- > 0;) {
      const Item& it = p_->items[k];
      if (it.kind == Item::Kind::label) return false;
      if (it.kind == Item::Kind::inst) return detail::no_fallthrough(it.inst);
    }
    return false;
  }

  Expected<void> check_new(const Edit& e, const Inst& in, bool may_end_block) const {
    if (auto why = check_well_formed(in, p_->target); !why.empty())
      return unexpected(refuse(e, e.at, "the new instruction is not well-formed: " + why));
    if (detail::ends_block(in) && !may_end_block)
      return unexpected(refuse(e, e.at, "'" + print_inst(in) + "' is a branch or terminator: inserting it would change the CFG",
                               "only a branch may replace a branch; control flow is not edited instruction by instruction"));
    if (auto l = detail::branch_label(in); l && !labels_.count(*l))
      return unexpected(refuse(e, e.at, "branch target '" + *l + "' is not a label of the program"));
    return {};
  }

  /// True if `name` is a symbol of the code object (named by .globl/.type/.size, or a kernel's), not a local label.
  [[nodiscard]] bool is_symbol(const std::string& name) const {
    for (const auto& it : p_->items) {
      if (it.kind == Item::Kind::kernel && it.kernel.name == name) return true;
      if (it.kind != Item::Kind::directive) continue;
      if (it.name != ".globl" && it.name != ".type" && it.name != ".size" && it.name != ".global") continue;
      const auto end = it.text.find_first_of(", \t");
      if (it.text.substr(0, end) == name) return true;
    }
    return false;
  }

  /// insert_code (see the file comment): checks the whole region before it changes anything.
  Expected<void> insert_region(Edit& e, std::size_t at, Journal& j) {
    if (e.code.empty()) return unexpected(refuse(e, e.at, "nothing to insert"));
    if (e.op == Edit::Op::insert_entry_code) return insert_after_labels(e, at, j);
    // Before the labels (and the comments, blank lines and debug-line directives among them) that directly precede
    // `at`. Where the block's start is pinned -- an alignment directive before its labels (the kernarg-preload entry
    // at +256), a symbol of the code object among them (a kernel or function entry) -- nothing may go before it.
    std::size_t pos = at;
    bool labelled = false;
    auto transparent = [](const Item& it) {
      return it.kind == Item::Kind::blank || it.kind == Item::Kind::comment ||
             (it.kind == Item::Kind::directive && (it.name == ".loc" || it.name.rfind(".cfi_", 0) == 0));
    };
    std::vector<std::string> names;
    for (std::size_t k = at; k-- > 0;) {
      const Item& it = p_->items[k];
      if (it.kind == Item::Kind::label) labelled = true, pos = k, names.push_back(it.name);
      else if (transparent(it)) continue;
      else break;
    }
    for (const auto& n : names)
      if (is_symbol(n))
        return unexpected(refuse(e, e.at, "the block starts at symbol '" + n + "' (a kernel or function entry): code "
                                          "before it would not run", "insert before a later block"));
    // An alignment directive before the labels: the region goes before it (control falls through the padding into
    // the block), unless nothing falls into it there -- the kernarg-preload entry, which firmware enters at +256.
    for (std::size_t k = pos; k-- > 0;) {
      const Item& it = p_->items[k];
      if (transparent(it)) continue;
      if (it.kind == Item::Kind::directive && (it.name == ".p2align" || it.name == ".align" || it.name == ".balign")) {
        if (dead_spot(k))
          return unexpected(refuse(e, e.at, "an alignment directive (" + it.name + " " + it.text + ") pins where this "
                                            "block starts and no code falls into it: a region there would never run",
                                   "insert before a later block"));
        pos = k;
      }
      break;
    }
    if (!labelled && at > 0 && !dead_spot(at)) {
      // `at` must start a block: a branch or terminator precedes it, or it is the first instruction of the program.
      bool starts = true;
      for (std::size_t k = at; k-- > 0;)
        if (p_->items[k].kind == Item::Kind::inst) {
          starts = detail::ends_block(p_->items[k].inst);
          break;
        } else if (!transparent(p_->items[k])) {
          starts = false;  // a directive between the branch and `at`: the region would not start the block
          break;
        }
      if (!starts)
        return unexpected(refuse(e, e.at, "it does not start a basic block: a region goes before a block's labels",
                                 "name the first instruction of a block"));
    }
    return check_and_put(e, pos, j, labelled);
  }

  /// The region checks every insertion shares (fresh labels, well-formed code, known branch targets, no unreachable
  /// code, no block cut off), then the region at item position `pos`.
  Expected<void> check_and_put(Edit& e, std::size_t pos, Journal& j, bool labelled) {
    std::unordered_set<std::string> fresh;
    for (const Item& it : e.code) {
      if (it.kind == Item::Kind::label) {
        if (it.name.empty() || labels_.contains(it.name) || !fresh.insert(it.name).second)
          return unexpected(refuse(e, e.at, "label '" + it.name + "' is not new: a region brings labels of its own"));
      } else if (it.kind != Item::Kind::inst) {
        return unexpected(refuse(e, e.at, "a region holds instructions and labels only"));
      }
    }
    // Well-formed instructions, branches to known labels, no code where no path reaches.
    bool dead = dead_spot(pos) && e.code.front().kind != Item::Kind::label;
    if (dead) return unexpected(refuse(e, e.at, "the region starts where no path reaches and has no label of its own"));
    for (std::size_t k = 0; k < e.code.size(); ++k) {
      const Item& it = e.code[k];
      if (it.kind == Item::Kind::label) {
        dead = false;
        continue;
      }
      if (dead)
        return unexpected(refuse(e, e.at, "region entry " + std::to_string(k) + " follows an instruction control never "
                                          "falls out of, with no label in between: no path reaches it"));
      const Inst& in = it.inst;  // check_well_formed refuses an instruction built for another target
      if (auto why = check_well_formed(in, p_->target); !why.empty())
        return unexpected(refuse(e, e.at, "region entry " + std::to_string(k) + " is not well-formed: " + why));
      if (auto l = detail::branch_label(in); l && !labels_.count(*l) && !fresh.count(*l))
        return unexpected(refuse(e, e.at, "branch target '" + *l + "' is a label of neither the program nor the region"));
      if ((detail::ends_block(in) && !detail::branch_label(in) && !detail::no_fallthrough(in)) ||
          detail::rw_form(in).has(isa::prop::indirect_branch))
        return unexpected(refuse(e, e.at, "'" + print_inst(in) + "' transfers control without a label operand",
                                 "a region's branches name labels"));
      dead = detail::no_fallthrough(in);
    }
    // A block only fall-through reaches must stay reachable: the region may not end where control never falls out.
    if (dead && !labelled)
      return unexpected(refuse(e, e.at, "the region ends in an instruction control never falls out of, and the block "
                                        "after it has no label: nothing would reach that block"));
    for (std::size_t k = 0; k < e.code.size(); ++k) {
      Item it = e.code[k];
      it.line = 0;
      if (it.kind == Item::Kind::inst) {
        it.inst.target = p_->target;
        it.inst.id = p_->fresh_id();
        e.code[k].inst.id = it.inst.id;
      } else {
        labels_.insert(it.name);
      }
      put(pos + k, std::move(it), j);
    }
    return {};
  }

  /// insert_entry_code: `at` must start a labelled block; the region goes between its labels and `at` and must end
  /// with a label of its own (so `at` still starts a block: the region's last instruction may end one).
  Expected<void> insert_after_labels(Edit& e, std::size_t at, Journal& j) {
    bool labelled = false;
    for (std::size_t k = at; k-- > 0;) {
      const Item& it = p_->items[k];
      if (it.kind == Item::Kind::label) {
        labelled = true;
        break;
      }
      if (it.kind == Item::Kind::inst) break;
      if (it.kind == Item::Kind::directive && it.name != ".loc" && it.name.rfind(".cfi_", 0) != 0) break;
    }
    if (!labelled)
      return unexpected(refuse(e, e.at, "it does not directly follow a label: entry code goes right after the labels "
                                        "of a block", "name the first instruction of a labelled block"));
    if (e.code.back().kind != Item::Kind::label)
      return unexpected(refuse(e, e.at, "entry code must end with a new label, which then starts the block it was "
                                        "inserted into"));
    return check_and_put(e, at, j, /*labelled=*/true);
  }

  Expected<void> apply_raw(Edit& e, Journal& j) {
    auto at = locate(e, e.at);
    if (!at) return unexpected(std::move(at).error());
    Inst& cur = p_->items[*at].inst;
    const bool cur_ends = detail::ends_block(cur);
    using O = Edit::Op;
    switch (e.op) {
      case O::insert_code:
      case O::insert_entry_code: return insert_region(e, *at, j);
      case O::insert_before:
      case O::insert_after: {
        if (e.insts.empty()) return unexpected(refuse(e, e.at, "nothing to insert"));
        const std::size_t pos = e.op == O::insert_before ? *at : *at + 1;
        if (dead_spot(pos))
          return unexpected(refuse(e, e.at, "no path reaches that place (it follows an instruction control never falls out of)",
                                   "insert before the instruction instead"));
        for (std::size_t k = 0; k < e.insts.size(); ++k) {
          Inst in = e.insts[k];
          if (auto r = check_new(e, in, false); !r) return r;  // refuses one built for another target
          in.id = p_->fresh_id();
          e.insts[k].id = in.id;
          Item it;
          it.kind = Item::Kind::inst;
          it.inst = std::move(in);
          put(pos + k, std::move(it), j);
        }
        return {};
      }
      case O::replace: {
        if (e.insts.empty()) return unexpected(refuse(e, e.at, "a replacement needs at least one instruction", "use delete"));
        // Well-formed first: same_control reads the new instruction's form.
        for (std::size_t k = 0; k < e.insts.size(); ++k) {
          if (auto r = check_new(e, e.insts[k], cur_ends); !r) return r;  // refuses one built for another target
        }
        if (cur_ends && (e.insts.size() != 1 || !detail::same_control(cur, e.insts[0])))
          return unexpected(refuse(e, e.at, "a branch or terminator can only be replaced by one instruction of the same kind",
                                   "conditional for conditional, unconditional for unconditional, s_endpgm for s_endpgm"));
        const InstId keep = cur.id;
        Item old = p_->items[*at];
        take(*at, j);
        for (std::size_t k = 0; k < e.insts.size(); ++k) {
          Inst in = e.insts[k];
          in.id = k == 0 ? keep : p_->fresh_id();
          if (k == 0 && in.comment.empty()) in.comment = old.inst.comment;
          e.insts[k].id = in.id;
          Item it = old;
          it.line = 0;
          it.inst = std::move(in);
          put(*at + k, std::move(it), j);
        }
        return {};
      }
      case O::erase:
        if (cur_ends)
          return unexpected(refuse(e, e.at, "it is a branch or terminator: erasing it would change the CFG"));
        take(*at, j);
        return {};
      case O::move_before:
      case O::move_after:
      case O::swap: {
        auto ot = locate(e, e.other);
        if (!ot) return unexpected(std::move(ot).error());
        if (*ot == *at) return unexpected(refuse(e, e.at, "an instruction cannot be moved relative to itself"));
        const Inst& oth = p_->items[*ot].inst;
        if (cur_ends || (e.op == O::swap && detail::ends_block(oth)))
          return unexpected(refuse(e, cur_ends ? e.at : e.other, "a branch or terminator never moves: the CFG would change"));
        if (e.op == O::swap) {
          if (dead_spot(*at) || dead_spot(*ot))
            return unexpected(refuse(e, dead_spot(*at) ? e.at : e.other,
                                     "it lies where no path reaches (after an instruction control never falls out of)"));
          Item a = p_->items[*at], b = p_->items[*ot];
          j.steps.push_back(Step{Step::Kind::changed, *at, a});
          j.steps.push_back(Step{Step::Kind::changed, *ot, b});
          p_->items[*at] = std::move(b);
          p_->items[*ot] = std::move(a);
          return {};
        }
        Item it = take(*at, j);
        std::size_t anchor = *ot > *at ? *ot - 1 : *ot;
        const std::size_t pos = e.op == O::move_before ? anchor : anchor + 1;
        if (dead_spot(pos))
          return unexpected(refuse(e, e.other, "no path reaches that place (it follows an instruction control never falls out of)"));
        put(pos, std::move(it), j);
        return {};
      }
      case O::set_waitcnt: {
        if (op_of(cur) != op::s_waitcnt)
          return unexpected(refuse(e, e.at, "it is " + std::string(detail::rw_form(cur).mnemonic) + ", not s_waitcnt"));
        const auto ops = isa::operands(detail::rw_form(cur));
        Item old = p_->items[*at];
        for (std::size_t k = 0; k < ops.size() && k < cur.ops.size(); ++k)
          if (ops[k].kind == isa::Kind::waitcnt) {
            j.steps.push_back(Step{Step::Kind::changed, *at, old});
            cur.ops[k] = Operand::make_imm(encode_waitcnt(p_->target, e.wait));
            return {};
          }
        return unexpected(refuse(e, e.at, "the s_waitcnt has no count operand"));
      }
    }
    return unexpected(make_diag(DiagCode::internal, "unknown edit kind"));
  }

  Program* p_;
  std::unordered_set<std::string> labels_;
  std::vector<Edit> log_;
  std::vector<Journal> journal_;
};

}  // namespace asmevo::passes
