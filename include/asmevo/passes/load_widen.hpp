// load-widen: merges two memory instructions of one block into one wider instruction where that is provably the
// same accesses, as LLVM's SILoadStoreOptimizer does for the code it compiles:
//  - global_load_dword{,x2,x3} + global_load_dword{,x2,x3} -> global_load_dword{x2,x3,x4}, and the same for
//    global_store_*: same address operands and cache-policy bits, the second's offset right after the first's bytes,
//    destinations (or store data) in consecutive registers, the merged tuple starting at an even register on gfx90a+
//    (the AV_*_Align2 classes; the typed builders' operand check refuses an odd start). Global memory needs dword alignment only for multi-dword
//    accesses under the unaligned access mode ROCm sets (SH_MEM_CONFIG.alignment_mode), and the two accesses already
//    were dword-aligned, so the merged one touches exactly the same bytes.
//  - ds_read_b32 + ds_read_b32 -> ds_read2_b32 (destinations v[d], v[d+1]), ds_write_b32 + ds_write_b32 ->
//    ds_write2_b32 (any data registers): same address register, byte offsets multiples of 4 below 1024 (the 8-bit
//    offset0/offset1 fields count dwords, MI300 ISA (CDNA3) DS_READ2_B32 / DS_WRITE2_B32).
// Independence: nothing between the two reads or writes any register either one names, and no memory instruction,
// s_waitcnt, barrier or branch lies between them; the merged instruction takes the first one's place (and id).
// Buffer instructions are not merged (their range check applies per access, and one out-of-range half would change
// what the other half returns). Merging removes one counted memory event, so the next wait on that counter in the
// block must drain it (count 0) or the wave must end first: a non-zero count would retire one operation fewer, which
// could leave a store a barrier relied on in flight (no register check sees that). Every merge is also kept only if
// the waitcnt and hazard checkers find nothing new, else undone. Idempotent on what it produced; never adds instructions.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/analysis/detail/reg_units.hpp"
#include "asmevo/analysis/waitcnt_check.hpp"
#include "asmevo/ir/op.hpp"
#include "asmevo/ir/op_builder.hpp"
#include "asmevo/passes/nop_min.hpp"
#include "asmevo/passes/pass.hpp"
#include "asmevo/passes/waitcnt_min.hpp"

namespace asmevo::passes {

namespace detail {

[[nodiscard]] inline const Operand* op_named(const Inst& in, std::string_view name) {
  const auto ops = isa::operands(isa::forms(in.target)[in.form]);
  for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k)
    if (ops[k].name == name) return &in.ops[k];
  return nullptr;
}

/// The operands other than `skip` (data and offset) are equal: same form, same address, same cache bits.
[[nodiscard]] inline bool same_but(const Inst& a, const Inst& b, std::initializer_list<std::string_view> skip) {
  if (a.form != b.form) return false;
  const auto ops = isa::operands(isa::forms(a.target)[a.form]);
  for (std::size_t k = 0; k < ops.size() && k < a.ops.size() && k < b.ops.size(); ++k) {
    bool skipped = false;
    for (const auto s : skip) skipped = skipped || ops[k].name == s || (ops[k].tied >= 0 && !ops[k].is_printed());
    if (!skipped && !(a.ops[k] == b.ops[k])) return false;
  }
  return true;
}

/// A global_load_dword{,x2,x3,x4} or global_store_dword{,x2,x3,x4}: dwords to or from VGPRs (not the LDS DMA
/// global_load_lds_* loads, which have no destination register). Its `count` is the number of dwords.
[[nodiscard]] inline bool global_dwords(const OpInfo& i) {
  return one_of(i.base, BaseOp::global_load, BaseOp::global_store) && i.type == DataType::b32 && !i.has(opflag::lds);
}

/// The merged instruction for the pair (a first in program order, b second), or nullopt. Built as the typed builders
/// build (asmevo/ir/op_builder.hpp): the wide global op, picked at run time with find_op, from the lower access's
/// address, offset and cache-policy operands; ds_read2_b32 / ds_write2_b32 from typed arguments.
[[nodiscard]] inline std::optional<Inst> widened(const Inst& a, const Inst& b, Target t) {
  const Opcode op_a = op_of(t, a.form), op_b = op_of(t, b.form);
  const OpInfo &ia = op_info(op_a), &ib = op_info(op_b);
  const auto fmt = isa::forms(t)[a.form].format;
  auto reg = [](const Operand* o) -> std::optional<Reg> {
    if (!o || !o->is_reg() || o->reg.file != RegFile::vgpr) return std::nullopt;
    return o->reg;
  };
  auto imm = [](const Operand* o) -> std::optional<std::int64_t> {
    if (!o) return std::int64_t{0};
    if (o->kind == Operand::Kind::absent) return std::int64_t{0};
    if (o->kind != Operand::Kind::imm) return std::nullopt;
    return o->imm;
  };
  auto built = [](Expected<Inst> in) { return in ? std::optional<Inst>(std::move(*in)) : std::nullopt; };
  if (fmt == isa::Format::GLOBAL && global_dwords(ia)) {
    const bool load = ia.base == BaseOp::global_load;
    // Both loads or both stores, at most 4 dwords together (a dwordx4 never merges).
    const unsigned na = ia.count, nb = ib.count;
    if (!global_dwords(ib) || ib.base != ia.base || na + nb > 4) return std::nullopt;
    const char* data = load ? "vdst" : "vdata";
    const auto ra = reg(op_named(a, data)), rb = reg(op_named(b, data));
    const auto oa = imm(op_named(a, "offset")), ob = imm(op_named(b, "offset"));
    if (!ra || !rb || !oa || !ob) return std::nullopt;
    // Same address and cache bits: compare with the forms' operands minus data and offset (forms differ by width,
    // so compare the address operands by name).
    for (const char* n : {"vaddr", "saddr", "cpol"}) {
      const Operand *x = op_named(a, n), *y = op_named(b, n);
      if ((x == nullptr) != (y == nullptr) || (x && !(*x == *y))) return std::nullopt;
    }
    const Inst* lo = nullptr;
    unsigned first = 0;
    if (*ob == *oa + 4 * na && rb->index == ra->index + na) lo = &a, first = ra->index;
    else if (*oa == *ob + 4 * nb && ra->index == rb->index + nb) lo = &b, first = rb->index;
    if (!lo) return std::nullopt;
    const unsigned n = na + nb;
    // The same load or store with n dwords: global_load_dword + global_load_dwordx2 -> global_load_dwordx3.
    OpInfo want = ia;
    want.count = static_cast<std::uint8_t>(n);
    want.mem_bytes = static_cast<std::uint8_t>(4 * n);
    const Opcode wide = find_op(want);
    if (wide == Opcode::invalid) return std::nullopt;
    // Its arguments: lo's, with the merged data tuple (`global_load_dwordx3 v[4:6], v[2:3], s[0:1] offset:16 sc0`).
    using Arg = asmevo::detail::RtArg;
    const Operand* vaddr = op_named(*lo, "vaddr");
    const Operand* saddr = op_named(*lo, "saddr");
    const Operand* offset = op_named(*lo, "offset");
    const Operand* cpol = op_named(*lo, "cpol");
    if (!vaddr || !vaddr->is_reg() || (saddr && saddr->present() && !saddr->is_reg())) return std::nullopt;
    const Arg wide_data = Arg::of(Reg{RegFile::vgpr, static_cast<std::uint16_t>(first), static_cast<std::uint16_t>(n)});
    std::vector<Arg> args{load ? wide_data : Arg::of(vaddr->reg), load ? Arg::of(vaddr->reg) : wide_data,
                          saddr && saddr->present() ? Arg::of(saddr->reg) : Arg::off()};
    if (offset && offset->kind == Operand::Kind::imm) args.push_back(Arg::modifier("offset", offset->imm));
    if (cpol && cpol->kind == Operand::Kind::imm)
      for (const auto& w : asmevo::detail::cpol_words(t, /*smem=*/false))
        if (cpol->imm & w.bit) args.push_back(Arg::modifier(w.word));
    return built(build_inst(t, wide, args));
  }
  if (fmt == isa::Format::DS && op_a == op_b && one_of(op_a, op::ds_read_b32, op::ds_write_b32)) {
    if (!same_but(a, b, {"vdst", "data0", "offset"})) return std::nullopt;
    const Operand* gds = op_named(a, "gds");
    if (gds && gds->kind == Operand::Kind::imm && gds->imm) return std::nullopt;
    const auto oa = imm(op_named(a, "offset")), ob = imm(op_named(b, "offset"));
    if (!oa || !ob || *oa % 4 || *ob % 4 || *oa / 4 > 255 || *ob / 4 > 255 || *oa == *ob) return std::nullopt;
    const auto addr = op_named(a, "addr");
    if (!addr || !addr->is_reg()) return std::nullopt;
    const auto off0 = mods::offset0(*oa / 4);
    const auto off1 = mods::offset1(*ob / 4);
    if (op_a == op::ds_read_b32) {
      const auto ra = reg(op_named(a, "vdst")), rb = reg(op_named(b, "vdst"));
      if (!ra || !rb || rb->index != ra->index + 1) return std::nullopt;
      const Reg pair{RegFile::vgpr, ra->index, 2};
      return built(build_inst<op::ds_read2_b32>(t, pair, addr->reg, off0, off1));
    }
    const auto ra = reg(op_named(a, "data0")), rb = reg(op_named(b, "data0"));
    if (!ra || !rb) return std::nullopt;
    return built(build_inst<op::ds_write2_b32>(t, addr->reg, *ra, *rb, off0, off1));
  }
  return std::nullopt;
}

/// Nothing between items `i` and `j` of block `insts` (exclusive) touches a register of `a` or `b`, accesses memory,
/// waits, or synchronises.
[[nodiscard]] inline bool independent_between(const Program& p, const Inst& a, const Inst& b, std::size_t i, std::size_t j) {
  std::vector<unsigned> rd, wr, mine;
  analysis::detail::unit_rw(a, rd, wr);
  mine.insert(mine.end(), rd.begin(), rd.end());
  mine.insert(mine.end(), wr.begin(), wr.end());
  rd.clear(), wr.clear();
  analysis::detail::unit_rw(b, rd, wr);
  mine.insert(mine.end(), rd.begin(), rd.end());
  mine.insert(mine.end(), wr.begin(), wr.end());
  for (std::size_t k = i + 1; k < j; ++k) {
    if (p.items[k].kind != Item::Kind::inst) continue;
    const Inst& in = p.items[k].inst;
    const auto& f = isa::forms(in.target)[in.form];
    using namespace isa::prop;
    if (f.has(vm_cnt) || f.has(lgkm_cnt) || f.has(exp_cnt) || f.has(load) || f.has(store) || f.has(side_effects) ||
        f.has(branch) || one_of(op_of(in), op::s_waitcnt, op::s_barrier))
      return false;
    rd.clear(), wr.clear();
    analysis::detail::unit_rw(in, rd, wr);
    // Exec decides which lanes access memory: the two must run under the same exec.
    for (const unsigned u : wr)
      if (u == analysis::detail::unit_exec || u == analysis::detail::unit_exec + 1) return false;
    for (const unsigned u : wr)
      for (const unsigned m : mine)
        if (u == m) return false;
    for (const unsigned u : rd)
      for (const unsigned m : mine)
        if (u == m && u >= analysis::detail::unit_v0) return false;  // a read of a pending destination, or of data
  }
  return true;
}

/// True if, after position `y` of block `insts`, the first s_waitcnt that waits on counter `c` drains it (count 0),
/// or the wave ends first. A merge removes one counted event, so a later non-zero count would retire one operation
/// fewer than before: a store (or LDS access) it fenced for a barrier or a later access could be left in flight,
/// which no register check sees.
[[nodiscard]] inline bool drained_next(const Program& p, const std::vector<std::size_t>& insts, std::size_t y, Counter c) {
  for (std::size_t k = y + 1; k < insts.size(); ++k) {
    const Inst& in = p.items[insts[k]].inst;
    const Opcode o = op_of(in);
    if (o == op::s_endpgm) return true;
    if (o != op::s_waitcnt) continue;
    const auto w = analysis::waitcnt_detail::facts_of(in, p.target).wait;
    if (!w) return false;
    if (w->get(c) == 0) return true;
    if (w->get(c) < max_count(p.target, c)) return false;
  }
  return false;  // the block ends first: the waits that follow are not known here
}

}  // namespace detail

/// See the file comment.
struct LoadWiden {
  static constexpr std::string_view name = "load-widen";
  static constexpr std::string_view summary =
      "merge adjacent global loads/stores and LDS dword accesses into wider ones where provably the same bytes";
  static constexpr bool idempotent = true;

  [[nodiscard]] Expected<PassStats> run(Rewriter& r, const PassContext& c) const {
    PassStats st;
    const Program& p = r.program();
    std::size_t refused = 0;
    std::set<std::pair<std::uint32_t, std::uint32_t>> tried;  // (first, second) pairs already attempted
    for (bool progress = true; progress;) {
      progress = false;
      const analysis::Cfg g = analysis::build_cfg(p);
      auto entries = kernel_entries(p, g, c);
      if (!entries) return unexpected(std::move(entries).error());
      const auto reach = editable_blocks(p, g, *entries, c);
      std::optional<std::pair<InstId, InstId>> pick;
      std::optional<Inst> merged;
      for (std::uint32_t b = 0; b < g.blocks.size() && !pick; ++b) {
        if (!reach[b]) continue;
        const auto& insts = g.blocks[b].insts;
        for (std::size_t x = 0; x < insts.size() && !pick; ++x) {
          const Inst& a = p.items[insts[x]].inst;
          // Its partner: the next memory instruction of the block.
          for (std::size_t y = x + 1; y < insts.size(); ++y) {
            const Inst& bb = p.items[insts[y]].inst;
            const auto& f = isa::forms(bb.target)[bb.form];
            if (!(f.has(isa::prop::load) || f.has(isa::prop::store) || f.has(isa::prop::vm_cnt) || f.has(isa::prop::lgkm_cnt)))
              continue;
            if (tried.count({a.id.value, bb.id.value})) break;
            auto w = detail::widened(a, bb, p.target);
            const Counter ctr = isa::forms(p.target)[a.form].format == isa::Format::DS ? Counter::lgkm : Counter::vm;
            if (w && detail::independent_between(p, a, bb, insts[x], insts[y]) && detail::drained_next(p, insts, y, ctr))
              pick = {a.id, bb.id}, merged = *w;
            break;
          }
        }
      }
      if (!pick) break;
      tried.insert({pick->first.value, pick->second.value});
      const auto wait0 = detail::waitcnt_keys(p, analysis::build_cfg(p), *entries);
      const auto haz0 = detail::hazard_keys(p, c);
      const std::size_t mark = r.log().size();
      if (auto e = r.replace(pick->first, {*merged}, "load-widen"); !e) return unexpected(std::move(e).error());
      if (auto e = r.erase(pick->second, "load-widen"); !e) return unexpected(std::move(e).error());
      const analysis::Cfg g2 = analysis::build_cfg(p);
      auto e2 = kernel_entries(p, g2, c);
      if (!e2) return unexpected(std::move(e2).error());
      if (!detail::no_new(wait0, detail::waitcnt_keys(p, g2, *e2)) || !detail::no_new(haz0, detail::hazard_keys(p, c))) {
        r.undo(r.log().size() - mark);
        ++refused;
      }
      progress = true;
    }
    if (refused) st.notes.push_back(std::to_string(refused) + " merge(s) undone: a wait's count or a hazard distance relied on the separate instructions");
    return st;
  }
};

}  // namespace asmevo::passes
