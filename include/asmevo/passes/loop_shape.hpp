// The loop shape that unroll and software-pipeline rebuild, and the pieces of code both emit for it.
//
// A counted single-block loop: a natural loop of one block (analysis/loops.hpp), tested at the bottom by
// s_cbranch_scc0/scc1 back to its own label on an s_cmp of a scalar induction variable (s0..s101) with a constant
// step against a constant or an invariant SGPR; nothing between the compare and the branch touches SCC; the rest of
// the body writes SCC before it reads it; the loop is entered only by falling into it from the block before it;
// control leaves it by falling through into a block that has instructions; and the kernel does not index registers
// through M0 (then no register is known to be free, and both passes need fresh ones).
//
// Trip tests: at the start of iteration 0 of a group, "iteration m of the group runs" is decided by the loop's
// compares at the ends of iterations 0..m-1, which read iv + (j + a)*step (a = 1 when the compare reads the IV after
// its update), wrapped to 32 bits as the loop's own update wraps. `trip_tests` emits, for m = 1..k-1, that compare on
// a temporary SGPR and a branch to `stop` when it says the loop ends, so code after them knows k iterations run.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/detail/reg_units.hpp"
#include "asmevo/analysis/loops.hpp"
#include "asmevo/ir/parser.hpp"
#include "asmevo/passes/pass.hpp"

namespace asmevo::passes::loop_shape {

namespace ad = analysis::detail;

/// What the loop passes need to know of one counted single-block loop of `p` (see the file comment).
struct CountedLoop {
  std::uint32_t block = analysis::Cfg::none;  ///< the loop's block
  std::string header;                         ///< its label (the back edge's target)
  std::size_t cmp_k = 0;                      ///< the compare's place among the block's instructions
  bool after_update = false;                  ///< the compare reads the IV after this iteration's update
  bool go_on_scc1 = true;                     ///< K0 branches back when SCC is 1
  unsigned iv_unit = 0;                       ///< the induction variable (an SGPR unit)
  std::uint32_t step = 0;                     ///< its constant step, as the 32-bit value added
  Inst cmp;                                   ///< the compare
  std::vector<std::size_t> body;              ///< items of the block without the compare and the branch, in order
  InstId loop_first;                          ///< the block's first instruction
  std::uint32_t exit_block = analysis::Cfg::none;  ///< the block control falls into when the loop ends
};

/// The loop whose header is labelled `h`, in a kernel the pass edits; nullopt (and `why`) when it is not one of the
/// shape above. Errors are those of kernel_entries.
[[nodiscard]] inline Expected<std::optional<CountedLoop>> find(const Program& p, const analysis::Cfg& g,
                                                               const PassContext& c, const std::string& h,
                                                               std::string& why) {
  using loops_op = analysis::loops_detail::Op;
  auto entries = kernel_entries(p, g, c);
  if (!entries) return unexpected(std::move(entries).error());
  const std::optional<CountedLoop> no;
  const auto hb = g.block_named(h);
  if (!hb) return why = "its label is gone", no;
  const analysis::Loop* loop = nullptr;
  analysis::LoopInfo li;
  for (const auto e : *entries) {
    li = analysis::find_loops(p, g, e);
    for (const auto& l : li.loops)
      if (l.header == *hb) loop = &l;
    if (loop) break;
  }
  if (!loop) return why = "not a loop of an edited kernel", no;
  const auto live = editable_blocks(p, g, *entries, c);
  if (!live[*hb]) return why = "its block is not editable (not exercised by the launch, or not reachable)", no;
  if (loop->blocks.size() != 1) return why = "it has more than one block", no;
  if (!loop->trip) return why = "no trip count: " + loop->no_trip, no;
  const analysis::TripCount& trip = *loop->trip;
  const analysis::Induction& iv = loop->ivs[trip.iv];
  if (iv.vector || iv.unit >= 102) return why = "its induction variable is not an SGPR (s0..s101)", no;
  if (!iv.step.is_const) return why = "its step is a register, not a constant", no;
  const auto& blk = g.blocks[*hb];
  const std::size_t n = blk.insts.size();
  if (n < 3) return why = "its body is empty", no;
  const Inst& br = p.items[blk.insts[n - 1]].inst;
  if (br.id != trip.branch || !blk.target || *blk.target != h || !blk.falls_through)
    return why = "its last instruction is not the conditional back edge that tests the trip count", no;
  const auto bop = analysis::loops_detail::loop_op(br).op;
  if (bop != loops_op::cbranch_scc0 && bop != loops_op::cbranch_scc1) return why = "not an SCC branch", no;
  CountedLoop cl;
  cl.block = *hb;
  cl.header = h;
  cl.cmp_k = n;
  for (std::size_t q = 0; q + 1 < n; ++q)
    if (p.items[blk.insts[q]].inst.id == trip.compare) cl.cmp_k = q;
  if (cl.cmp_k == n) return why = "the compare is not in the loop's block", no;
  auto touches_scc = [&](const Inst& in, bool& reads, bool& writes) {
    std::vector<unsigned> rd, wr;
    ad::unit_rw(in, rd, wr);
    reads = std::find(rd.begin(), rd.end(), ad::unit_scc) != rd.end();
    writes = std::find(wr.begin(), wr.end(), ad::unit_scc) != wr.end();
  };
  for (std::size_t q = cl.cmp_k + 1; q + 1 < n; ++q) {
    bool rd = false, wr = false;
    touches_scc(p.items[blk.insts[q]].inst, rd, wr);
    if (rd || wr) return why = "an instruction between the compare and the branch touches SCC", no;
  }
  for (std::size_t q = 0; q + 1 < n; ++q) {
    if (q == cl.cmp_k) continue;
    bool rd = false, wr = false;
    touches_scc(p.items[blk.insts[q]].inst, rd, wr);
    if (rd) return why = "the body reads SCC before writing it", no;
    if (wr) break;
  }
  for (const auto pb : g.pred[*hb]) {
    if (pb == *hb) continue;
    if (pb + 1 != *hb || !g.blocks[pb].falls_through || (g.blocks[pb].target && *g.blocks[pb].target == h))
      return why = "it is entered by a branch, not by falling into it", no;
  }
  if (*hb + 1 >= g.blocks.size() || g.blocks[*hb + 1].insts.empty())
    return why = "the code after it has no instruction to branch to", no;
  // M0-relative register access (s_movrel*, v_movrel*, GPR indexing) reaches registers the program never names.
  for (const auto& it : p.items)
    if (it.kind == Item::Kind::inst) {
      const auto& f = isa::forms(it.inst.target)[it.inst.form];
      if ((f.has(isa::prop::salu) || f.has(isa::prop::valu)) && (f.implicit_uses & isa::reg::m0))
        return why = "the kernel indexes registers through M0: no register is known to be free", no;
    }
  // The update writes SCC and nothing between the compare and the branch may, so in practice it comes first.
  for (std::size_t q = 0; q < cl.cmp_k; ++q)
    if (p.items[blk.insts[q]].inst.id == iv.update) cl.after_update = true;
  cl.go_on_scc1 = bop == loops_op::cbranch_scc1;
  cl.iv_unit = iv.unit;
  cl.step = iv.step.value;
  cl.cmp = p.items[blk.insts[cl.cmp_k]].inst;
  for (std::size_t q = 0; q + 1 < n; ++q)
    if (q != cl.cmp_k) cl.body.push_back(blk.insts[q]);
  cl.loop_first = p.items[blk.insts.front()].inst.id;
  cl.exit_block = *hb + 1;
  return std::optional<CountedLoop>(std::move(cl));
}

/// Header labels of the single-block loops of the kernels the pass edits, in program order.
[[nodiscard]] inline Expected<std::vector<std::string>> single_block_headers(const Program& p, const PassContext& c) {
  const analysis::Cfg g = analysis::build_cfg(p);
  auto entries = kernel_entries(p, g, c);
  if (!entries) return unexpected(std::move(entries).error());
  std::vector<std::string> headers;
  for (const auto e : *entries)
    for (const auto& l : analysis::find_loops(p, g, e).loops)
      if (l.blocks.size() == 1 && !g.blocks[l.header].labels.empty()) headers.push_back(g.blocks[l.header].labels.front());
  return headers;
}

/// The header labels a loop pass works on: every single-block loop's, or only the one its argument `loop` names (a
/// usage error when no single-block loop has that header label).
[[nodiscard]] inline Expected<std::vector<std::string>> selected_headers(const Program& p, const PassContext& c) {
  auto headers = single_block_headers(p, c);
  const auto want = c.args.find("loop");
  if (!headers || want == c.args.end()) return headers;
  if (std::find(headers->begin(), headers->end(), want->second) == headers->end())
    return fail(DiagCode::usage, "argument 'loop': no single-block loop has header label '" + want->second + "'", {},
                {}, "the header label is the label the loop's back edge branches to");
  return std::vector<std::string>{want->second};
}

/// A label stem from a pass's prefix and a loop's header: the header's characters outside [A-Za-z0-9] become '_'.
[[nodiscard]] inline std::string stem(const std::string& prefix, const std::string& header) {
  std::string s = prefix;
  for (const char ch : header) s += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return s;
}

/// Builds regions of Program items: labels, and instructions parsed from text for the program's target.
struct Region {
  Target target;
  std::vector<Item> items;

  void label(const std::string& l) {
    Item it;
    it.kind = Item::Kind::label;
    it.name = l;
    items.push_back(std::move(it));
  }
  void inst(Inst in) {
    Item it;
    it.kind = Item::Kind::inst;
    in.comment.clear();
    it.inst = std::move(in);
    items.push_back(std::move(it));
  }
  [[nodiscard]] Expected<void> text(const std::string& t) {
    auto in = parse_inst(t, target);
    if (!in) return unexpected(std::move(in).error());
    inst(std::move(*in));
    return {};
  }
};

/// The branch mnemonic that leaves (`stop`) or continues (!stop) the loop `l` after its compare.
[[nodiscard]] inline std::string branch_on(const CountedLoop& l, bool stop) {
  return (l.go_on_scc1 != stop) ? "s_cbranch_scc1 " : "s_cbranch_scc0 ";
}

/// Emits into `r` the trip tests for m = 1..k-1 (see the file comment), each branching to `stop_label` when the loop
/// would end before iteration m; `tmp` is a free SGPR. False (and `why`) when the compare does not read the IV as one
/// operand.
[[nodiscard]] inline Expected<bool> trip_tests(Region& r, const CountedLoop& l, unsigned k, const Reg& tmp,
                                               const std::string& stop_label, std::string& why) {
  const std::string iv_name = ad::unit_name(l.iv_unit), tmp_name = "s" + std::to_string(tmp.index);
  for (unsigned m = 1; m < k; ++m) {
    const std::uint32_t add = static_cast<std::uint32_t>(m - 1 + (l.after_update ? 1 : 0)) * l.step;
    Inst test = l.cmp;
    if (add != 0) {
      if (auto e = r.text("s_add_u32 " + tmp_name + ", " + iv_name + ", " +
                          std::to_string(static_cast<std::int64_t>(static_cast<std::int32_t>(add))));
          !e)
        return unexpected(std::move(e).error());
      unsigned replaced = 0;
      for (auto& o : test.ops)
        if (o.is_reg() && ad::units_of(o.reg) == std::vector<unsigned>{l.iv_unit}) o.reg = tmp, ++replaced;
      if (replaced != 1) return why = "the compare does not read the induction variable as one operand", false;
    }
    r.inst(test);
    if (auto e = r.text(branch_on(l, true) + stop_label); !e) return unexpected(std::move(e).error());
  }
  return true;
}

}  // namespace asmevo::passes::loop_shape
