// The prompt of the LLM path: the system message (task, rules, passes, edit-script schema) and the user message built
// from a ProposalRequest (the hot window with its timing, ISA facts with their sources, diagnosis, earlier attempts),
// bounded in size. Not here: sending it (agent/llm_client.hpp) and reading the reply (agent/llm_reply.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "asmevo/agent/detail/llm_util.hpp"
#include "asmevo/agent/diagnosis.hpp"
#include "asmevo/agent/llm_client.hpp"
#include "asmevo/agent/proposer.hpp"
#include "asmevo/analysis/mfma_info.hpp"
#include "asmevo/ir/gen/isa_tables.hpp"
#include "asmevo/ir/op.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/model/params.hpp"
#include "asmevo/passes/registry.hpp"
#include "asmevo/support/linkage.hpp"

namespace asmevo::agent {

// ---- the prompt --------------------------------------------------------------------------------------------------

/// What goes into a prompt besides the request, and how large it may grow.
struct PromptOptions {
  std::string schema;             ///< the edit-script JSON Schema text (schema/edit-script.schema.json), embedded
  std::size_t context = 4;        ///< instructions shown before and after the hot window
  std::size_t max_window = 64;    ///< instructions of the window listed; a longer window is cut (and says so)
  std::size_t max_history = 8;    ///< earlier attempts listed, the latest ones
  std::size_t max_field = 400;    ///< bytes of one attempt's reason or script
};

namespace detail::llm {

[[nodiscard]] constexpr std::string_view format_name(isa::Format f) noexcept {
  constexpr std::array<std::string_view, 20> names{"SOP1", "SOP2", "SOPK", "SOPC",  "SOPP",    "SMEM",  "VOP1",
                                                   "VOP2", "VOPC", "VOP3", "VOP3P", "VINTRP",  "DS",    "FLAT",
                                                   "GLOBAL", "SCRATCH", "MUBUF", "MTBUF", "MIMG", "EXP"};
  static_assert(static_cast<std::size_t>(isa::Format::EXP) + 1 == names.size(), "a Format without a name");
  const auto k = static_cast<std::size_t>(f);
  return k < names.size() ? names[k] : "?";
}

/// The sources of the figures a prompt's ISA facts cite, each once, by name.
struct FactSources {
  std::vector<std::pair<std::string, std::string_view>> list;
  void add(std::string name, std::string_view source) {
    for (const auto& [n, s] : list)
      if (n == name) return;
    list.emplace_back(std::move(name), source);
  }
};

/// One line of what asmevo knows about `in`'s form: its encoding and size (ir/gen tables, from LLVM's AMDGPU target
/// description), the unit and cycle figures the cost model charges it (the classification follows
/// model::detail::op_cost; figures from model::TimingParams and analysis::mfma_info, each cited by name), the waitcnt
/// counters it increments and the implicit registers it reads and writes.
[[nodiscard]] inline std::string isa_fact(const Inst& in, const model::TimingParams& p, FactSources& src) {
  namespace pr = isa::prop;
  const auto& f = isa::forms(in.target)[in.form];
  const std::string_view mn = f.mnemonic;
  const Opcode o = op_of(in);
  auto cyc = [&](std::string_view name, const model::Param& q) {
    src.add(std::string(name), q.source);
    return std::to_string(q.value) + " cycles [" + std::string(name) + "]";
  };
  std::string s = std::string(format_name(f.format)) + " encoding, " + std::to_string(f.size) + " bytes";
  if (o == op::s_nop) {
    s += "; holds the wave for (count & 15) + 1 wait states of " + cyc("wait_state", p.wait_state);
  } else if (o == op::s_sleep) {
    s += "; sleeps count x " + cyc("sleep_unit", p.sleep_unit);
  } else if (o == op::s_waitcnt) {
    s += "; stalls the wave until its outstanding vmcnt / expcnt / lgkmcnt drop to the counts given (a counter not "
         "named is not waited for)";
  } else if (o == op::s_barrier) {
    s += "; waits for every wave of the workgroup, released " + cyc("barrier", p.barrier) + " after the last arrives";
  } else if (o == op::s_endpgm) {
    s += "; ends the wave after its outstanding memory operations";
  } else if (f.has(pr::mfma)) {
    s += "; matrix core (MFMA)";
    if (const auto* m = analysis::mfma_info(o, in.target); m && m->passes) {
      src.add(std::string(mn) + " passes", m->source);
      s += " " + std::to_string(m->m) + "x" + std::to_string(m->n) + "x" + std::to_string(m->k) +
           (m->blocks > 1 ? ", " + std::to_string(m->blocks) + " blocks" : std::string{}) + ", " +
           std::to_string(m->passes) + " passes [" + std::string(mn) + " passes] of " +
           cyc("mfma_pass", p.mfma_pass) + " each; the result is read by a VALU or as srcA/B " +
           cyc("mfma_writeback", p.mfma_writeback) + " after the last pass";
    } else {
      s += "; its pass count is not in asmevo's MFMA table (analysis/mfma_info.hpp): the cost model guesses it";
    }
  } else if (f.has(pr::smem)) {
    s += "; scalar memory: data after " + cyc("smem_latency", p.smem_latency) + " on a scalar-L1 hit, " +
         cyc("smem_miss", p.smem_miss) + " more on a miss";
  } else if (f.has(pr::ds)) {
    s += "; LDS: data after " + cyc("lds_latency", p.lds_latency) + " without bank conflicts (" +
         std::to_string(p.lds_banks.value) + " dword banks [lds_banks]; a conflict serialises)";
    src.add("lds_banks", p.lds_banks.source);
  } else if (f.props & (pr::vmem | pr::flat)) {
    s += "; vector memory: holds the memory pipe " + cyc("vmem_issue", p.vmem_issue);
    if (f.has(pr::load) || f.has(pr::atomic_ret))
      s += "; data after " + cyc("l1_latency", p.l1_latency) + " on an L1 hit, " + cyc("l2_latency", p.l2_latency) +
           " from L2, " + (p.mall_bytes.value ? cyc("mall_latency", p.mall_latency) + " from the Infinity Cache, " : "") +
           cyc("hbm_latency", p.hbm_latency) + " from HBM (a TLB miss adds " + cyc("tlb_miss", p.tlb_miss) + ")";
  } else if (f.has(pr::valu)) {
    const bool f64 = op_info(o).mentions(DataType::f64);
    s += "; VALU ";
    if (f.has(pr::trans))
      s += f64 ? "f64 transcendental, " + cyc("valu_trans_f64", p.valu_trans_f64)
               : "transcendental, " + cyc("valu_trans", p.valu_trans);
    else
      s += f64 ? "f64, " + cyc("valu_f64", p.valu_f64) : "full rate, " + cyc("valu", p.valu);
    s += " per wave64; result usable after at least " + cyc("valu_latency", p.valu_latency);
  } else if (f.has(pr::branch)) {
    s += "; branch: a taken branch costs " + cyc("branch_taken", p.branch_taken) + " more";
  } else if (f.has(pr::salu)) {
    s += "; SALU: result usable after " + cyc("salu", p.salu);
  }
  std::string counters;
  for (const auto& [bit, name] : {std::pair{pr::vm_cnt, "vmcnt"}, std::pair{pr::lgkm_cnt, "lgkmcnt"},
                                  std::pair{pr::exp_cnt, "expcnt"}})
    if (f.props & bit) counters += (counters.empty() ? "" : ", ") + std::string(name);
  if (!counters.empty()) s += "; increments " + counters + " (an s_waitcnt on it waits for the result)";
  auto regs = [](std::uint32_t bits) {
    std::string r;
    for (const auto& [bit, name] : {std::pair{isa::reg::exec, "exec"}, std::pair{isa::reg::vcc, "vcc"},
                                    std::pair{isa::reg::scc, "scc"}, std::pair{isa::reg::m0, "m0"}})
      if (bits & bit) r += (r.empty() ? "" : ", ") + std::string(name);
    return r;
  };
  if (auto u = regs(f.implicit_uses); !u.empty()) s += "; reads " + u;
  if (auto d = regs(f.implicit_defs); !d.empty()) s += "; writes " + d;
  if (f.variant == isa::Variant::e64 && f.has(pr::has_e32)) s += "; a 4-byte e32 form exists for some operands";
  return s;
}

/// The window's lines, the context around it and the instructions in it (for the ISA facts).
struct WindowText {
  std::string before, window, after;
  std::vector<const Inst*> insts;
};

[[nodiscard]] inline std::string stall_note(const HotInst& h) {
  return "; exec=" + std::to_string(h.executions) + " issue=" + std::to_string(h.issue) +
         " stall: waitcnt=" + std::to_string(h.stall_waitcnt) + " dep=" + std::to_string(h.stall_dependency) +
         " barrier=" + std::to_string(h.stall_barrier) + " resource=" + std::to_string(h.stall_resource);
}

[[nodiscard]] inline std::string inst_line(std::string_view id, std::string_view text, const std::string& note) {
  std::string s = "  " + std::string(id);
  s.append(id.size() < 7 ? 7 - id.size() : 1, ' ');
  s += text;
  if (!note.empty()) {
    if (text.size() < 44) s.append(44 - text.size(), ' ');
    s += "  " + note;
  }
  return s + "\n";
}

/// Lists `hs` (or, without one, the program's first instructions) with `opt.context` instructions around it.
[[nodiscard]] inline WindowText window_text(const ProposalRequest& req, const HotSpot* hs, const PromptOptions& opt) {
  WindowText w;
  const Program* prog = req.module ? &req.module->program : nullptr;
  std::unordered_map<std::uint32_t, const HotInst*> timing;
  if (hs)
    for (const auto& h : hs->insts) timing.emplace(h.id.value, &h);
  std::optional<std::size_t> lo, hi;
  if (prog) {
    for (std::size_t k = 0; k < prog->items.size(); ++k) {
      const auto& it = prog->items[k];
      if (it.kind != Item::Kind::inst) continue;
      if (!hs) {
        if (!lo) lo = k;
        hi = k;
      } else {
        if (it.inst.id == hs->first) lo = k;
        if (it.inst.id == hs->last) hi = k;
      }
    }
  }
  auto id_of = [](InstId id) { return "i" + std::to_string(id.value); };
  if (!prog || !lo || !hi || *lo > *hi) {
    // The ids are not in the module's program: list what the hot spot itself carries.
    if (hs) {
      std::size_t n = 0;
      for (const auto& h : hs->insts) {
        if (n++ == opt.max_window) {
          w.window += "  ... " + std::to_string(hs->insts.size() - opt.max_window) + " more instructions\n";
          break;
        }
        w.window += inst_line(id_of(h.id), clip(h.text, 160), stall_note(h));
      }
    }
    return w;
  }
  const auto& items = prog->items;
  std::size_t listed = 0, cut = 0;
  for (std::size_t k = *lo; k <= *hi; ++k) {
    const auto& it = items[k];
    if (it.kind == Item::Kind::label) {
      if (listed < opt.max_window) w.window += it.name + ":\n";
    } else if (it.kind == Item::Kind::inst) {
      if (listed++ >= opt.max_window) {
        ++cut;
        continue;
      }
      const auto t = timing.find(it.inst.id.value);
      w.window += inst_line(id_of(it.inst.id), print_inst(it.inst),
                            t != timing.end() ? stall_note(*t->second) : hs ? "; (no modeled time)" : "");
      w.insts.push_back(&it.inst);
    }
  }
  if (cut) w.window += "  ... " + std::to_string(cut) + " more instructions of the window, not shown\n";
  std::vector<std::string> before;
  std::size_t n = 0;
  for (std::size_t k = *lo; k-- > 0 && n < opt.context;) {
    const auto& it = items[k];
    if (it.kind == Item::Kind::label) before.push_back(it.name + ":\n");
    else if (it.kind == Item::Kind::inst) before.push_back(inst_line(id_of(it.inst.id), print_inst(it.inst), "")), ++n;
  }
  for (auto r = before.rbegin(); r != before.rend(); ++r) w.before += *r;
  n = 0;
  for (std::size_t k = *hi + 1; k < items.size() && n < opt.context; ++k) {
    const auto& it = items[k];
    if (it.kind == Item::Kind::label) w.after += it.name + ":\n";
    else if (it.kind == Item::Kind::inst) w.after += inst_line(id_of(it.inst.id), print_inst(it.inst), ""), ++n;
  }
  return w;
}

[[nodiscard]] inline std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace detail::llm

/// The system message: the model's task, the rules of the answer, the passes a "pass" edit may run and the edit-script
/// schema (`opt.schema`, embedded as given).
[[nodiscard]] inline std::string system_prompt(const PromptOptions& opt) {
  std::string s =
      "You optimize one compiled AMD GPU kernel at the assembly level for asmevo. You propose a JSON edit script over "
      "its instructions; asmevo validates the script, applies it, runs the original and the edited kernel on its "
      "emulator with the same inputs and rejects any difference, then times the edited kernel with its cost model.\n"
      "\n"
      "Rules:\n"
      "1. Answer with exactly one JSON edit script in one ```json fenced block. Put a one-line \"comment\" in the "
      "script saying what you try, and a short \"why\" in each edit.\n"
      "2. Address instructions only by the ids shown as iN (the instruction's stable id, not a line number). An "
      "instruction you insert has no id you can name; an id never changes when other code moves.\n"
      "3. Only edit instructions of the hot window. The context lines before and after it are for reading.\n"
      "4. Keep the kernel's semantics exactly: every value it writes to memory must stay bit-for-bit the same for "
      "every input and launch. Keep every s_waitcnt and s_nop that a later instruction needs to read a result "
      "safely.\n"
      "5. Write instructions in LLVM's AMDGPU assembly syntax for the kernel's target, as in the listing.\n"
      "6. If a reply is rejected you get every problem with the JSON Pointer of its field: send the whole corrected "
      "script again.\n"
      "\n"
      "A \"pass\" edit runs one of asmevo's passes on the kernel:\n";
  for (const auto& p : passes::builtin_passes())
    s += "  " + std::string(p.name) + ": " + std::string(p.summary) + "\n";
  s += "A pass takes its arguments by name in \"args\"; calling a transformation this way costs far fewer tokens than "
       "writing its instructions, and the diagnosis in the request names the ones that fit.\n";
  s += "\nExample answer:\n```json\n{\"comment\": \"wait only for the first load before its use\", \"edits\": [\n"
       "  {\"op\": \"set_waitcnt\", \"at\": \"i9\", \"vmcnt\": 1, \"why\": \"i10 needs only the older load\"}]}\n```\n";
  s += "\nExample answer calling transformations:\n```json\n{\"comment\": \"four loads of the loop in flight\", "
       "\"edits\": [\n  {\"op\": \"pass\", \"name\": \"unroll\", \"args\": {\"factor\": 4, \"loop\": \".LBB0_2\"}, "
       "\"why\": \"the loop waits on its one load\"},\n  {\"op\": \"pass\", \"name\": \"batch-loads\"}]}\n```\n";
  s += "\nThe edit-script format (JSON Schema):\n";
  s += opt.schema.empty() ? std::string("(not provided: use the ops of the example and of the rules above)\n")
                          : opt.schema + (opt.schema.ends_with('\n') ? "" : "\n");
  return s;
}

/// The user message: the kernel and target, the parent's modeled cycles, the focused hot window as lines
/// `iN  <text>  ; exec=.. issue=.. stall: waitcnt=.. dep=.. barrier=.. resource=..` with context around it, the ISA
/// facts of each distinct instruction in it (with the sources of their figures), and the lineage's latest attempts.
/// Its size is bounded by `opt`.
[[nodiscard]] ASMEVO_OUTLINE std::string user_prompt(const ProposalRequest& req, const PromptOptions& opt)
#if ASMEVO_BODY_AGENT
{
  const HotSpot* hs = req.hot.empty() ? nullptr : &req.hot[std::min(req.focus, req.hot.size() - 1)];
  const Target t = req.module ? req.module->target : Target::gfx942;
  std::string s = "Kernel: " + detail::llm::clip(req.kernel, 120) + " (target " + std::string(to_string(t)) + ")\n";
  s += "Modeled cycles of the current version: " + detail::llm::fixed(req.parent_cost, 0) + "\n";
  if (req.bound_cycles > 0)
    s += "Speed-of-light bound of the original on this launch (cost model): " + std::to_string(req.bound_cycles) +
         " cycles, bound by " + detail::llm::clip(req.bound_kind, 20) + " (memory " + std::to_string(req.bound_memory) +
         ", issue " + std::to_string(req.bound_issue) + ", latency of one wave's longest chain " +
         std::to_string(req.bound_latency) + "); the current version is at " +
         detail::llm::fixed(req.parent_cost / static_cast<double>(req.bound_cycles), 2) + "x the bound and " +
         detail::llm::fixed(req.parent_cost / static_cast<double>(std::max<std::uint64_t>(req.bound_memory, 1)), 2) +
         "x the memory bound\n";
  if (!req.strategy.empty()) s += "Strategy of this line of attempts: " + detail::llm::clip(req.strategy, 200) + "\n";
  const auto w = detail::llm::window_text(req, hs, opt);
  if (hs) {
    s += "\nHot window " + std::to_string(std::min(req.focus, req.hot.size() - 1) + 1) + " of " +
         std::to_string(req.hot.size()) + ": i" + std::to_string(hs->first.value) + "..i" +
         std::to_string(hs->last.value) + ", " + detail::llm::fixed(hs->share * 100, 1) +
         "% of the modeled wave-cycles. Per instruction, summed over the modeled waves: exec = executions, issue = "
         "cycles it held the wave, stall = cycles the wave waited before issuing it, by cause (waitcnt: an s_waitcnt "
         "or s_endpgm waiting on memory; dep: a register not yet produced; barrier: s_barrier; resource: a unit "
         "another wave held).\n";
  } else {
    s += "\nNo modeled hot window was given: the kernel's first instructions follow, without timing.\n";
  }
  if (!w.before.empty()) s += "\nContext before the window (do not edit):\n" + w.before;
  s += "\nThe hot window (edit only these):\n" + (w.window.empty() ? std::string("  (no instructions)\n") : w.window);
  if (!w.after.empty()) s += "\nContext after the window (do not edit):\n" + w.after;
  if (req.hot.size() > 1) {
    s += "\nOther hot windows (not this attempt's):";
    for (std::size_t k = 0, shown = 0; k < req.hot.size() && shown < 4; ++k)
      if (&req.hot[k] != hs)
        s += " i" + std::to_string(req.hot[k].first.value) + "..i" + std::to_string(req.hot[k].last.value) + " (" +
             detail::llm::fixed(req.hot[k].share * 100, 1) + "%)", ++shown;
    s += "\n";
  }
  if (req.module && (!req.hot.empty() || req.launches)) {
    std::vector<Diagnosis> ds;
    if (auto l = diagnose_launch(req.module->program, req.kernel, req.launches)) ds.push_back(std::move(*l));
    for (auto& d : diagnose(req.module->program, req.kernel, req.hot)) ds.push_back(std::move(d));
    if (!ds.empty()) {
      s += "\nDiagnosis (the cost model's reading of the hot windows; call a named pass with a \"pass\" edit):\n";
      for (std::size_t k = 0; k < ds.size() && k < 4; ++k) s += "- " + detail::llm::clip(ds[k].text, opt.max_field) + "\n";
    }
  }
  if (!w.insts.empty()) {
    const auto& p = model::timing_params(t);
    detail::llm::FactSources src;
    std::map<std::string, std::string> facts;  // printed mnemonic -> fact, sorted for a stable prompt
    for (const Inst* in : w.insts) {
      auto key = mnemonic_text(*in);
      if (!facts.contains(key)) facts.emplace(std::move(key), detail::llm::isa_fact(*in, p, src));
    }
    s += "\nISA facts of the instructions in the window (asmevo's instruction tables, generated from LLVM's AMDGPU "
         "target description; cycle figures are the cost model's for " + std::string(p.device) +
         ", which times your version):\n";
    for (const auto& [mn, fact] : facts) s += "  " + mn + ": " + fact + "\n";
    if (!src.list.empty()) {
      s += "Where the figures in [brackets] come from:\n";
      for (const auto& [name, from] : src.list) s += "  " + name + ": " + detail::llm::clip(from, 240) + "\n";
    }
  }
  if (!req.history.empty()) {
    const std::size_t n = std::min(req.history.size(), opt.max_history);
    s += "\nEarlier attempts of this line (" +
         (n < req.history.size() ? "the last " + std::to_string(n) + " of " + std::to_string(req.history.size())
                                 : std::string("all ") + std::to_string(n)) +
         ", oldest first); do not repeat a failed one:\n";
    for (std::size_t k = req.history.size() - n; k < req.history.size(); ++k) {
      const auto& a = req.history[k];
      s += "- attempt " + std::to_string(a.index) + ": " + detail::llm::clip(a.outcome, 40);
      if (a.cycles) s += " (modeled cycles " + detail::llm::fixed(*a.cycles, 0) + ")";
      if (!a.summary.empty()) s += ": " + detail::llm::clip(a.summary, 200);
      s += "\n";
      if (!a.reason.empty()) s += "  why: " + detail::llm::clip(a.reason, opt.max_field) + "\n";
      if (!a.script.is_null()) s += "  script: " + detail::llm::clip(detail::llm::dump(a.script), opt.max_field) + "\n";
    }
  }
  s += "\nPropose one edit script that makes the hot window faster without changing what the kernel computes. "
       "Answer with one ```json block.\n";
  return s;
}
#else
;
#endif

/// The first messages of a proposal's conversation: system_prompt and user_prompt.
[[nodiscard]] inline std::vector<ChatMessage> build_prompt(const ProposalRequest& req, const PromptOptions& opt) {
  return {ChatMessage{"system", system_prompt(opt)}, ChatMessage{"user", user_prompt(req, opt)}};
}

}  // namespace asmevo::agent
