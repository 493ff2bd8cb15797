// The memory-model check of differential verification: the cache-policy scope bits of every memory access decide
// which agents see a store and when, which no single-dispatch run can show, so an edit must keep them as K0 has them.
//
// Each memory instruction of a program is summarised as (kind, address space, scope bits, bytes per lane); K1 passes
// when the multiset of summaries equals K0's. Which cpol bits are scope and which are hints, from LLVM's
// SIMemoryLegalizer.cpp:
//  - gfx940+ (gfx942, gfx950) vector memory: SC0 and SC1 encode the scope (SIGfx940CacheControl::
//    enableLoadCacheBypass / enableStoreCacheBypass: workgroup SC0, agent SC1, system SC0|SC1; for atomics SC1 is the
//    scope and SC0 says whether it returns, enableRMWCacheBypass); NT is the non-temporal hint
//    (enableVolatileAndOrNonTemporal sets only NT for a nontemporal access).
//  - gfx90a vector memory: GLC bypasses the L1 for agent/system-scope loads (SIGfx90ACacheControl::
//    enableLoadCacheBypass; for atomics it says whether it returns), SCC is the system-coherence bit (the "scc"
//    spelling of CPol::SCC); SLC only selects the L2 STREAM policy (enableVolatileAndOrNonTemporal: "Setting both
//    GLC and SLC configures ... the L2 cache policy to STREAM"), a hint.
//  - scalar memory (every gfx9 target spells it glc, AMDGPUInstPrinter::printCPol): GLC counts as scope.
// Cache maintenance instructions (buffer_wbl2, buffer_inv, buffer_wbinvl1*, s_dcache_*) are counted too, with their
// scope bits: dropping a write-back before a release is exactly the edit a run cannot catch.
//
// Conservative: the summary is per instruction, not per dynamic access, so an edit that merges two dword loads into
// one dwordx2 load, or deletes a dead load, is rejected although it is safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "asmevo/ir/gen/isa_tables.hpp"
#include "asmevo/ir/isa_info.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/ir/program.hpp"

namespace asmevo::verify {

/// One memory instruction as the memory model sees it.
struct MemoryAccess {
  std::string kind;       ///< "load", "store", "atomic", "cache" (cache maintenance)
  std::string space;      ///< "global", "flat", "scratch", "buffer", "image", "lds", "gds", "scalar"
  std::uint32_t scope = 0;  ///< the scope bits of cpol (LLVM CPol: GLC/SC0 = 1, SCC/SC1 = 16), hints masked out
  std::uint32_t bytes = 0;  ///< bytes per lane (scalar memory: per wave); 0 when the mnemonic does not say
  std::string mnemonic;   ///< kept only where bytes is 0 (then the mnemonic is part of the identity)
  friend auto operator<=>(const MemoryAccess&, const MemoryAccess&) = default;
};

/// "store global sc0 sc1 4B" (gfx940 spelling of the scope bits) or "load global glc 4B" (gfx90a).
[[nodiscard]] inline std::string describe(const MemoryAccess& a, Target t) {
  std::string s = a.kind + " " + a.space;
  const bool g940 = t != Target::gfx90a && a.space != "scalar";
  if (a.scope & 1) s += g940 ? " sc0" : " glc";
  if (a.scope & 16) s += g940 ? " sc1" : " scc";
  if (!(a.scope & 17)) s += " (no scope bits)";
  if (a.bytes) s += " " + std::to_string(a.bytes) + "B";
  else if (!a.mnemonic.empty()) s += " " + a.mnemonic;
  return s;
}

namespace detail {

/// Bytes per lane a memory mnemonic moves, from its width suffix (MI300 ISA (CDNA3) §9 "Vector Memory Operations",
/// §10 "Flat Memory Instructions", §11 "Data Share Operations": dword, dwordx2..x16, ubyte/sbyte/byte,
/// ushort/sshort/short, b8..b128, u8/i8/u16/i16, _x2 for 64-bit atomics, f64/u64/i64). 0 when none is found.
[[nodiscard]] inline std::uint32_t access_bytes(std::string_view m) {
  struct W { std::string_view token; std::uint32_t bytes; };
  static constexpr W widths[] = {
      {"dwordx16", 64}, {"dwordx8", 32}, {"dwordx4", 16}, {"dwordx3", 12}, {"dwordx2", 8}, {"dword", 4},
      {"b128", 16}, {"b96", 12}, {"b64", 8}, {"b32", 4}, {"b16", 2}, {"b8", 1}, {"ubyte", 1}, {"sbyte", 1},
      {"byte", 1}, {"ushort", 2}, {"sshort", 2}, {"short", 2}, {"u8", 1}, {"i8", 1}, {"u16", 2}, {"i16", 2},
      {"x2", 8}, {"f64", 8}, {"u64", 8}, {"i64", 8}, {"f32", 4}, {"u32", 4}, {"i32", 4}, {"f16", 4}, {"bf16", 4}};
  // Tokens from the end: "global_load_ubyte_d16_hi" -> d16? no -> ubyte (1).
  std::size_t end = m.size();
  while (end > 0) {
    const std::size_t b = m.rfind('_', end - 1);
    const std::size_t start = b == std::string_view::npos ? 0 : b + 1;
    const std::string_view tok = m.substr(start, end - start);
    for (const W& w : widths)
      if (tok == w.token) return w.bytes;
    if (b == std::string_view::npos) break;
    end = b;
  }
  return 0;
}

[[nodiscard]] inline bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

}  // namespace detail

/// The memory access `in` makes, or an empty kind when it makes none.
[[nodiscard]] inline MemoryAccess memory_access(const Inst& in) {
  MemoryAccess a;
  const auto& f = isa::forms(in.target)[in.form];
  const std::string_view m = f.mnemonic;
  using detail::starts_with;
  const bool cache_op = starts_with(m, "buffer_wbl2") || starts_with(m, "buffer_inv") ||
                        starts_with(m, "buffer_wbinvl1") || starts_with(m, "s_dcache_") ||
                        starts_with(m, "s_icache_");
  const bool mem = f.has(isa::prop::vmem) || f.has(isa::prop::flat) || f.has(isa::prop::ds) ||
                   f.has(isa::prop::smem) || cache_op;
  if (!mem) return a;
  if (cache_op) a.kind = "cache";
  else if (f.has(isa::prop::atomic) || f.has(isa::prop::atomic_ret) || f.has(isa::prop::atomic_noret)) a.kind = "atomic";
  else if (f.has(isa::prop::store)) a.kind = "store";
  else if (f.has(isa::prop::load)) a.kind = "load";
  else a.kind = "other";
  if (f.has(isa::prop::smem) || starts_with(m, "s_")) a.space = "scalar";
  else if (f.has(isa::prop::ds)) a.space = f.has(isa::prop::gws) || m.find("gws") != std::string_view::npos ? "gds" : "lds";
  else if (starts_with(m, "global_")) a.space = "global";
  else if (starts_with(m, "scratch_")) a.space = "scratch";
  else if (starts_with(m, "flat_")) a.space = "flat";
  else if (starts_with(m, "image_")) a.space = "image";
  else a.space = "buffer";
  const auto ops = isa::operands(f);
  for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k) {
    const auto kind = ops[k].kind;
    if (kind != isa::Kind::cpol && kind != isa::Kind::cpol_glc && kind != isa::Kind::cpol_noglc) continue;
    if (in.ops[k].kind == Operand::Kind::imm) a.scope |= static_cast<std::uint32_t>(in.ops[k].imm) & (1u | 16u);
  }
  a.bytes = a.kind == "cache" ? 0 : detail::access_bytes(m);
  if (a.bytes == 0) a.mnemonic = std::string(m);
  return a;
}

/// One way K1's memory accesses differ from K0's.
struct MemoryModelDifference {
  MemoryAccess access;
  std::size_t k0_count = 0, k1_count = 0;
  std::optional<InstId> example;  ///< one instruction with this access (in K1 when it has more, else in K0)
  std::string example_text;       ///< that instruction printed
};

/// Every (kind, space, scope, bytes) whose count differs between the two programs (empty: the same multiset).
[[nodiscard]] inline std::vector<MemoryModelDifference> compare_memory_model(const Program& k0, const Program& k1) {
  struct Tally { std::size_t n0 = 0, n1 = 0; const Inst* first0 = nullptr; const Inst* first1 = nullptr; };
  std::map<MemoryAccess, Tally> all;
  for (int side = 0; side < 2; ++side)
    for (const auto& it : (side ? k1 : k0).items) {
      if (it.kind != Item::Kind::inst) continue;
      auto a = memory_access(it.inst);
      if (a.kind.empty()) continue;
      Tally& t = all[a];
      (side ? t.n1 : t.n0) += 1;
      const Inst*& first = side ? t.first1 : t.first0;
      if (!first) first = &it.inst;
    }
  std::vector<MemoryModelDifference> out;
  for (const auto& [a, t] : all) {
    if (t.n0 == t.n1) continue;
    MemoryModelDifference d{a, t.n0, t.n1, std::nullopt, {}};
    const Inst* ex = t.n1 > t.n0 ? t.first1 : t.first0;
    if (ex) d.example = ex->id, d.example_text = print_inst(*ex);
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace asmevo::verify
