// Recovers a code object's .text bytes as IR: one region per code symbol, labels for branch targets, symbolic
// PC-relative address computations and an exact kernarg-preload prologue, so that the code may grow and still
// reassemble to the same meaning (and, when nothing moved, to the same bytes).
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "asmevo/ir/inst_form.hpp"
#include "asmevo/ir/op.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/ir/program.hpp"
#include "asmevo/mc/encode.hpp"
#include "asmevo/support/diag.hpp"
#include "asmevo/support/linkage.hpp"

namespace asmevo::codeobject {

/// A symbol that names code: a kernel (a FUNC symbol with a `.kd`), another function, or a local label.
struct CodeSymbol {
  enum class Kind : std::uint8_t { kernel, function, label };
  std::string name;
  std::uint64_t addr = 0;  ///< virtual address
  std::uint64_t size = 0;  ///< bytes; 0 = unknown (the symbol then reaches the next code symbol)
  Kind kind = Kind::label;
};

/// An allocated section of the object, used to resolve PC-relative targets.
struct SectionSpan {
  std::string name;
  std::uint64_t addr = 0;
  std::uint64_t size = 0;
  bool code = false;  ///< executable (SHF_EXECINSTR)
};

/// What recover_code reads: plain data, independent of how the ELF was read.
struct CodeInput {
  Target target = Target::gfx942;
  std::span<const std::uint8_t> text;  ///< the bytes of .text
  std::uint64_t text_addr = 0;         ///< its virtual address
  std::vector<CodeSymbol> symbols;     ///< kernels, other FUNC symbols, local labels (any section)
  std::vector<SectionSpan> sections;   ///< every allocated section
  /// Kernarg-preload length in dwords from the kernel's descriptor (KERNARG_PRELOAD_SPEC_LENGTH); nullopt (or an
  /// empty function) when there is none.
  std::function<std::optional<std::uint32_t>(std::string_view kernel)> preload_dwords;
};

/// A label that the data printer must define at `offset` bytes into `section` (code refers to it PC-relatively).
struct DataRef {
  std::string section;
  std::uint64_t offset = 0;
  std::string label;
};

/// The code of one symbol (or of bytes no symbol covers). `items` is what follows `NAME:` in an assembly file;
/// the caller prints `.globl`/`.type`, `.p2align` (see `align`) and the `NAME:` line itself. Labels come right
/// before the instruction they name and belong to it: insert code before an instruction's labels, never between.
/// A kernel with the kernarg-preload prologue reads: a comment, the s_load*s, s_waitcnt, `s_branch LABEL`,
/// `.p2align 8` (in place of the s_nop padding), `LABEL:` and the rest; the s_nop padding has no instructions.
struct CodeRegion {
  std::string symbol;  ///< empty for bytes that no kernel or function symbol covers (padding, orphan code)
  CodeSymbol::Kind kind = CodeSymbol::Kind::label;  ///< `label` for an unnamed region
  std::uint64_t addr = 0;
  std::uint64_t size = 0;
  std::uint32_t align = 1;  ///< largest power of two <= 256 that divides `addr`: print `.p2align log2(align)`
  bool kernarg_preload_prologue = false;  ///< the region starts with the kernarg-preload compatibility prologue
  std::vector<Item> items;
  /// Parallel to `items`: the address of each instruction or data word, and for labels, comments and
  /// directives the address of the byte that follows them.
  std::vector<std::uint64_t> item_addr;
};

/// One PC-relative address computation made symbolic: s_getpc_b64 then s_add_u32/s_addc_u32 (or sub/subb).
struct PcRelRef {
  InstId getpc, lo, hi;
  std::uint64_t target = 0;  ///< the address it computes in the original object
  std::string label;         ///< the label it names (a code label, or a DataRef label)
  bool data = false;         ///< the target is outside .text (a DataRef)
};

/// Counts of what recovery did, for reports.
struct RecoverStats {
  std::size_t instructions = 0;      ///< instructions in the regions (ids 0 .. instructions-1)
  std::size_t branches = 0;          ///< branches whose target became a label
  std::size_t numeric_branches = 0;  ///< branches left numeric (target outside .text or inside an instruction)
  std::size_t pc_pairs = 0;          ///< PC-relative add/addc pairs made symbolic
  std::size_t numeric_pc_pairs = 0;  ///< recognised pairs left numeric (see notes)
  std::size_t data_words = 0;        ///< dwords (or tail bytes) emitted as `.long` / `.byte`
  std::size_t preload_prologues = 0; ///< kernarg-preload prologues kept with `.p2align 8`
};

/// Everything recovered from one .text.
struct RecoveredCode {
  std::vector<CodeRegion> regions;  ///< address order; together they cover .text exactly
  std::vector<DataRef> data_labels; ///< labels outside .text that the code refers to (sorted by section, offset)
  std::vector<PcRelRef> pc_refs;
  std::uint32_t next_id = 0;        ///< ids i0 .. i(next_id-1) are in address order across all regions
  RecoverStats stats;
  std::vector<Diag> notes;          ///< what could not be made symbolic or decoded, and why (not errors)
};

namespace detail {

inline constexpr std::size_t no_slot = static_cast<std::size_t>(-1);

/// One piece of .text after decoding: an instruction, or a word LLVM does not decode (kept as data).
struct Slot {
  std::uint64_t off = 0;  ///< from the start of .text
  std::uint32_t size = 0;
  bool is_inst = false;
  bool dropped = false;   ///< s_nop padding of a preload prologue, replaced by `.p2align 8`
  Inst inst;
  std::string why;        ///< for data: why it is not an instruction (kept as the directive's comment)
};

struct Span {
  std::string symbol;
  CodeSymbol::Kind kind = CodeSymbol::Kind::label;
  std::uint64_t begin = 0, end = 0;  ///< offsets into .text
};

[[nodiscard]] inline std::uint32_t read_u32(std::span<const std::uint8_t> b, std::uint64_t at) {
  return static_cast<std::uint32_t>(b[at]) | static_cast<std::uint32_t>(b[at + 1]) << 8 |
         static_cast<std::uint32_t>(b[at + 2]) << 16 | static_cast<std::uint32_t>(b[at + 3]) << 24;
}

/// Largest power of two <= 256 that divides `addr` (256 for address 0).
[[nodiscard]] inline std::uint32_t alignment_of(std::uint64_t addr) {
  std::uint32_t a = 1;
  while (a < 256 && addr % (2ull * a) == 0) a *= 2;
  return a;
}

/// A symbol name reduced to characters a `.L` label may hold.
[[nodiscard]] inline std::string label_stem(std::string_view s) {
  std::string r;
  for (char c : s) r += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$') ? c : '_';
  while (!r.empty() && r.front() == '.') r.erase(r.begin());
  return r.empty() ? std::string("sec") : r;
}

using asmevo::form_of;

[[nodiscard]] inline bool is_nop0(std::span<const std::uint8_t> text, const Slot& s) {
  // s_nop 0 is the SOPP word 0xbf800000 (MI300 ISA guide, SOPP: encoding 0x17f << 23, op 0, simm16 0); it is also
  // what LLVM's AMDGPUAsmBackend::writeNopData fills code alignment with.
  return s.is_inst && s.size == 4 && read_u32(text, s.off) == 0xbf800000u;
}

/// Decodes [begin, end) of .text into slots. Words LLVM refuses, instructions whose text cannot be read back and
/// instructions that do not re-encode exactly become data (one slot per dword, a shorter tail as bytes).
inline void decode_span(mc::Encoder& enc, std::span<const std::uint8_t> text, std::uint64_t text_addr, std::uint64_t begin,
                        std::uint64_t end, std::vector<Slot>& out, std::vector<std::pair<Diag, std::size_t>>& notes) {
  auto& ctx = enc.context();
  auto push_data = [&](std::uint64_t off, std::uint64_t n, const std::string& why) {
    for (std::uint64_t k = 0; k < n; k += 4) {
      Slot s;
      s.off = off + k;
      s.size = static_cast<std::uint32_t>(std::min<std::uint64_t>(4, n - k));
      s.why = why;
      out.push_back(std::move(s));
    }
  };
  auto push_decoded = [&](std::uint64_t base, std::vector<mc::DecodedInst>& ds) {
    for (auto& d : ds) {
      const std::uint64_t off = base + d.offset;
      if (!d.exact) {
        const std::string txt = print_inst(d.inst);
        const std::size_t at = out.size();
        push_data(off, d.size, "not re-encodable: " + txt);
        notes.emplace_back(make_diag(DiagCode::decode_error,
                                     "instruction at " + ::asmevo::detail::hex(text_addr + off) + " kept as data: " + d.note, {},
                                     txt, "its bytes are emitted with .long so that they stay exact"),
                           at);
        continue;
      }
      Slot s;
      s.off = off;
      s.size = d.size;
      s.is_inst = true;
      s.inst = std::move(d.inst);
      out.push_back(std::move(s));
    }
  };
  std::size_t refused_note = no_slot;  // the note of the current run of refused words
  std::uint64_t refused_first = 0, refused_end = 0;
  std::size_t refused_count = 0;
  std::string refused_first_why;
  std::uint64_t off = begin;
  while (off < end) {
    // The longest run LLVM's disassembler accepts (sizes only), then the typed decode of that run.
    const std::uint64_t run = off;
    std::optional<Diag> refused;
    while (off < end) {
      auto d = ctx.decode_one(text.subspan(off, end - off), text_addr + off);
      if (!d) {
        refused = std::move(d).error();
        break;
      }
      off += d->size;
    }
    if (off > run) {
      auto ds = enc.decode(text.subspan(run, off - run), text_addr + run);
      if (ds) {
        push_decoded(run, *ds);
      } else {
        // Some instruction of the run cannot be read back as IR: find it one instruction at a time.
        for (std::uint64_t at = run; at < off;) {
          auto one = ctx.decode_one(text.subspan(at, off - at), text_addr + at);
          const std::uint64_t n = one ? one->size : 4;
          auto d = enc.decode(text.subspan(at, std::min(n, off - at)), text_addr + at);
          if (d) {
            push_decoded(at, *d);
          } else {
            const std::string txt = one ? one->text : std::string();
            const std::size_t slot = out.size();
            push_data(at, std::min(n, off - at), "not readable as IR: " + txt);
            notes.emplace_back(make_diag(DiagCode::decode_error,
                                         "instruction at " + ::asmevo::detail::hex(text_addr + at) +
                                             " kept as data: " + d.error().message,
                                         {}, txt, "its bytes are emitted with .long so that they stay exact"),
                               slot);
          }
          at += n;
        }
      }
    }
    if (refused && off < end) {
      // Resume at the next dword: AMDGPU instructions are whole dwords. Consecutive refused words share one note.
      const std::uint64_t n = std::min<std::uint64_t>(4, end - off);
      const std::size_t slot = out.size();
      push_data(off, n, "not an instruction");
      const std::string tgt(to_string(enc.target()));
      if (refused_note != no_slot && refused_end == off) {
        ++refused_count;
        notes[refused_note].first.message = std::to_string(refused_count) + " dwords at " + ::asmevo::detail::hex(text_addr + refused_first) +
                                            ".." + ::asmevo::detail::hex(text_addr + off + n - 1) + " are not instructions for " +
                                            tgt + " (kept as data); at the first: " + refused_first_why;
      } else {
        refused_note = notes.size();
        refused_first = off;
        refused_count = 1;
        refused_first_why = refused->message;
        notes.emplace_back(make_diag(DiagCode::decode_error,
                                     "bytes at " + ::asmevo::detail::hex(text_addr + off) + " are not an instruction for " + tgt +
                                         " (kept as data): " + refused->message,
                                     {}, refused->text, "data in .text, or an instruction this LLVM does not know"),
                           slot);
      }
      off += n;
      refused_end = off;
    }
  }
}

}  // namespace detail

/// Recovers .text as regions of IR. Never fails on odd bytes: what cannot be decoded or made symbolic is kept
/// exact (as data or as numbers) and explained in `notes`. Fails only on unusable input (the encoder is for
/// another target, .text wraps around the address space).
///
/// Labels: a branch target gets the object's own `label` symbol name when one sits there, else a generated
/// `.L<region>_<n>` (unique in the module). A branch to the first instruction of a kernel or function gets a
/// local alias label too: a branch to a global symbol would become a relocation instead of resolved bytes.
///
/// PC-relative pairs (s_getpc_b64 s[a:a+1]; s_add_u32 d, s[a], lit; s_addc_u32 d', s[a+1], lit) become, with
/// `.Lpc` labelling the s_getpc_b64 itself (PC = .Lpc+4, MI300 ISA guide S_GETPC_B64: D = PC + 4) and `.Llo`/`.Lhi`
/// labelling the add/addc (their literal dword is at .Llo+4 / .Lhi+4):
///   target in .text:  `T-.Lpc-4` / `(T-.Lpc-4)>>32`
///   target elsewhere: `SYM@rel32@lo+(.Llo-.Lpc)` / `SYM@rel32@hi+(.Lhi-.Lpc)`, since R_AMDGPU_REL32_LO/HI compute
///                     S + A - P with P the literal's address (AMDGPUUsage, "Relocation Records"):
///                     S + (.Llo - .Lpc) - (.Llo + 4) = S - PC.
/// Every label sits before the instruction it describes, so inserting code anywhere (also right after the
/// s_getpc_b64) keeps the computed address.
[[nodiscard]] ASMEVO_OUTLINE Expected<RecoveredCode> recover_code(const CodeInput& in, mc::Encoder& enc)
#if ASMEVO_BODY_CODEOBJECT
{
  using detail::Slot;
  using ::asmevo::detail::hex;
  if (enc.target() != in.target)
    return fail(DiagCode::usage, "recover_code: the encoder is for " + std::string(to_string(enc.target())) +
                                     " but the code object is " + std::string(to_string(in.target)));
  const std::span<const std::uint8_t> text = in.text;
  const std::uint64_t base = in.text_addr;
  const std::uint64_t size = text.size();
  if (base + size < base)
    return fail(DiagCode::object_error, ".text at " + hex(base) + " with " + std::to_string(size) + " bytes wraps around the address space");

  RecoveredCode out;
  std::vector<std::pair<Diag, std::size_t>> notes;  // note, slot index it concerns (npos: none)
  constexpr std::size_t no_slot = detail::no_slot;
  auto note = [&](DiagCode c, std::string msg, std::size_t slot = detail::no_slot, std::string txt = {}, std::string hint = {}) {
    notes.emplace_back(make_diag(c, std::move(msg), {}, std::move(txt), std::move(hint)), slot);
  };
  auto in_text = [&](std::uint64_t a) { return a >= base && a - base < size; };

  // ---- regions --------------------------------------------------------------------------------------------
  std::vector<const CodeSymbol*> code_syms;
  for (const auto& s : in.symbols) {
    if (s.kind == CodeSymbol::Kind::label) continue;
    if (!in_text(s.addr)) {
      note(DiagCode::object_error, "symbol '" + s.name + "' at " + hex(s.addr) + " is outside .text (" + hex(base) + ", " +
                                       std::to_string(size) + " bytes); ignored");
      continue;
    }
    code_syms.push_back(&s);
  }
  std::sort(code_syms.begin(), code_syms.end(), [](const CodeSymbol* a, const CodeSymbol* b) {
    return a->addr != b->addr ? a->addr < b->addr : a->name < b->name;
  });
  std::vector<detail::Span> spans;
  std::uint64_t cursor = 0;
  for (std::size_t i = 0; i < code_syms.size(); ++i) {
    const CodeSymbol& s = *code_syms[i];
    const std::uint64_t b = s.addr - base;
    std::uint64_t next = size;
    for (std::size_t j = i + 1; j < code_syms.size(); ++j)
      if (code_syms[j]->addr > s.addr) { next = code_syms[j]->addr - base; break; }
    if (i + 1 < code_syms.size() && code_syms[i + 1]->addr == s.addr) next = b;  // an alias: empty, the next one holds the code
    std::uint64_t e = next;
    if (s.size != 0 && s.size < next - b) e = b + s.size;
    if (b > cursor) spans.push_back({std::string(), CodeSymbol::Kind::label, cursor, b});
    spans.push_back({s.name, s.kind, b, e});
    cursor = std::max(cursor, e);
  }
  if (cursor < size || spans.empty()) spans.push_back({std::string(), CodeSymbol::Kind::label, cursor, size});

  // ---- decode ---------------------------------------------------------------------------------------------
  std::vector<Slot> slots;
  std::vector<std::pair<std::size_t, std::size_t>> region_slots;  // [first, last) per span
  for (const auto& sp : spans) {
    const std::size_t first = slots.size();
    detail::decode_span(enc, text, base, sp.begin, sp.end, slots, notes);
    region_slots.emplace_back(first, slots.size());
  }
  // Offsets that start a slot, plus the end of .text: the places a label can stand.
  auto slot_at = [&](std::uint64_t off) -> std::size_t {
    auto it = std::lower_bound(slots.begin(), slots.end(), off, [](const Slot& s, std::uint64_t o) { return s.off < o; });
    return it != slots.end() && it->off == off ? static_cast<std::size_t>(it - slots.begin()) : no_slot;
  };
  auto boundary = [&](std::uint64_t off) {  // dropped preload padding is no place for a label
    const std::size_t k = slot_at(off);
    return off == size || (k != no_slot && !slots[k].dropped);
  };
  auto region_of_off = [&](std::uint64_t off) -> std::size_t {  // the region whose bytes hold `off` (end: the last)
    for (std::size_t r = 0; r < spans.size(); ++r)
      if (off >= spans[r].begin && off < spans[r].end) return r;
    return spans.size() - 1;
  };

  // ---- names ----------------------------------------------------------------------------------------------
  std::set<std::string> taken;
  for (const auto& s : in.symbols) taken.insert(s.name);
  auto fresh = [&](std::string want) {
    std::string n = want;
    for (int k = 1; taken.count(n); ++k) n = want + "_" + std::to_string(k);
    taken.insert(n);
    return n;
  };
  auto region_stem = [&](std::size_t r) {
    return spans[r].symbol.empty() ? "text_" + hex(base + spans[r].begin).substr(2) : detail::label_stem(spans[r].symbol);
  };
  // Object label symbols in .text, emitted where they stand (each name once).
  std::map<std::uint64_t, std::vector<std::string>> sym_labels;  // offset -> names
  {
    std::set<std::string> seen;
    for (const auto& s : in.symbols) {
      if (s.kind != CodeSymbol::Kind::label || !(in_text(s.addr) || s.addr == base + size)) continue;
      if (!seen.insert(s.name).second) {
        note(DiagCode::object_error, "label symbol '" + s.name + "' is defined more than once; only the first is kept");
        continue;
      }
      if (!boundary(s.addr - base)) {
        note(DiagCode::object_error, "label symbol '" + s.name + "' at " + hex(s.addr) + " is inside an instruction; not emitted");
        continue;
      }
      sym_labels[s.addr - base].push_back(s.name);
    }
  }
  // Generated labels per offset; code-ref names may use a region's own symbol.
  std::map<std::uint64_t, std::vector<std::string>> gen_labels;  // offset -> names emitted before that slot
  std::map<std::uint64_t, std::string> branch_name;             // offset -> label branches use
  std::map<std::size_t, int> region_counter;                    // region -> next generated label number
  auto branch_label = [&](std::uint64_t off) -> std::string {
    if (auto it = branch_name.find(off); it != branch_name.end()) return it->second;
    std::string n;
    if (auto it = sym_labels.find(off); it != sym_labels.end()) n = it->second.front();
    else {
      const std::size_t r = region_of_off(off);
      const int k = region_counter[r]++;
      n = fresh(".L" + region_stem(r) + "_" + std::to_string(k));
      gen_labels[off].push_back(n);
    }
    branch_name[off] = n;
    return n;
  };
  auto code_ref_label = [&](std::uint64_t off) -> std::string {
    for (const auto& sp : spans)
      if (sp.begin == off && !sp.symbol.empty()) return sp.symbol;  // a region start: its symbol (differences fold)
    return branch_label(off);
  };
  // Branch targets are named in address order so that `.L<region>_<n>` counts upwards through a region.
  struct BranchUse { std::size_t slot; std::size_t op; std::uint64_t target; };
  std::vector<BranchUse> branches;
  std::set<std::uint64_t> branch_targets;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    Slot& s = slots[i];
    if (!s.is_inst) continue;
    const auto ops = isa::operands(detail::form_of(s.inst));
    for (std::size_t k = 0; k < ops.size(); ++k) {
      if (ops[k].kind != isa::Kind::label || s.size != 4) continue;
      // SOPP/SOPK branch target = address of the branch + 4 + 4 * simm16 (MI300 ISA guide, SOPP S_BRANCH:
      // PC = PC + signext(SIMM16 * 4) + 4; S_CALL_B64 likewise). simm16 is bits 15:0 of the word.
      const auto simm = static_cast<std::int16_t>(detail::read_u32(text, s.off) & 0xffffu);
      const std::int64_t t = static_cast<std::int64_t>(s.off) + 4 + 4 * static_cast<std::int64_t>(simm);
      const std::uint64_t taddr = base + static_cast<std::uint64_t>(t);
      if (t < 0 || static_cast<std::uint64_t>(t) > size || !boundary(static_cast<std::uint64_t>(t))) {
        const bool outside = t < 0 || static_cast<std::uint64_t>(t) > size;
        note(DiagCode::object_error,
             "branch at " + hex(base + s.off) + " targets " + hex(taddr) + (outside ? ", outside .text" : ", inside an instruction") +
                 "; its offset is kept as a number",
             i, print_inst(s.inst), "if code around it moves, fix this branch by hand");
        ++out.stats.numeric_branches;
        continue;
      }
      branches.push_back({i, k, static_cast<std::uint64_t>(t)});
      branch_targets.insert(static_cast<std::uint64_t>(t));
    }
  }
  // Kernarg-preload prologues (before naming, so their entry label gets its own name).
  struct Prologue { std::size_t region; std::size_t first_pad, last_pad; std::uint64_t entry; bool has_branch; };
  std::vector<Prologue> prologues;
  for (std::size_t r = 0; r < spans.size(); ++r) {
    const auto& sp = spans[r];
    if (sp.kind != CodeSymbol::Kind::kernel || !in.preload_dwords) continue;
    const auto n = in.preload_dwords(sp.symbol);
    if (!n || *n == 0) continue;
    auto [first, last] = region_slots[r];
    const std::uint64_t entry = sp.begin + 256;  // firmware that preloads starts at the kernel entry + 256 bytes
    std::size_t i = first;
    auto op_at = [&](std::size_t k) { return slots[k].is_inst ? op_of(slots[k].inst) : Opcode::invalid; };
    bool has_branch = false;
    bool ok = false;
    // LLVM's AMDGPUPreloadKernArgProlog: s_load* of the preloaded SGPRs, s_waitcnt, s_branch to entry + 256.
    while (i < last && family_of(op_at(i)) == Family::s_load) ++i;
    if (i > first && i + 1 < last && op_at(i) == op::s_waitcnt && op_at(i + 1) == op::s_branch) {
      auto it = std::find_if(branches.begin(), branches.end(), [&](const BranchUse& b) { return b.slot == i + 1; });
      if (it != branches.end() && it->target == entry) { has_branch = true; ok = true; i += 2; }
    }
    // Older LLVM (AMDGPUTargetStreamer::EmitKernargPreloadHeader): s_trap 2 or s_endpgm, then s_nop fill.
    if (!ok && first < last && one_of(op_at(first), op::s_trap, op::s_endpgm)) { i = first + 1; ok = true; }
    if (!ok) continue;
    std::size_t k = i;
    while (k < last && slots[k].off < entry && detail::is_nop0(text, slots[k])) ++k;
    const bool exact_fill = (base + sp.begin) % 256 == 0 && entry <= sp.end && (k < last ? slots[k].off == entry : entry == sp.end);
    // A label inside the padding would vanish with it.
    bool labelled = false;
    if (k > i)
      for (std::uint64_t o = slots[i].off; o < entry; o += 4) labelled = labelled || branch_targets.count(o) || sym_labels.count(o);
    if (!exact_fill || k == i || labelled) {
      note(DiagCode::object_error,
           "kernel '" + sp.symbol + "' preloads " + std::to_string(*n) +
               " kernarg dwords and starts like a compatibility prologue, but its padding is not s_nop 0 up to entry + 256"
               " (or the kernel is not 256-byte aligned, or a label points into the padding); the padding is kept as"
               " instructions",
           first, {}, "do not insert code before entry + 256, or the preloading entry point moves");
      continue;
    }
    prologues.push_back({r, i, k, entry, has_branch});
    for (std::size_t q = i; q < k; ++q) slots[q].dropped = true;
    if (has_branch && !sym_labels.count(entry) && !branch_name.count(entry)) {
      const std::string nme = fresh(".L" + region_stem(r) + "_preload_entry");
      branch_name[entry] = nme;
      gen_labels[entry].push_back(nme);
    }
  }
  for (std::uint64_t t : branch_targets) (void)branch_label(t);
  for (const auto& b : branches) {
    slots[b.slot].inst.ops[b.op] = Operand::make_expr(branch_label(b.target));
    ++out.stats.branches;
  }

  // ---- PC-relative pairs ----------------------------------------------------------------------------------
  struct PendingRef { std::size_t getpc, lo, hi; std::uint64_t target; bool sub; };
  std::vector<PendingRef> pairs;
  auto sgpr_is = [](const Operand& o, unsigned idx) {
    return o.kind == Operand::Kind::reg && o.reg.file == RegFile::sgpr && o.reg.index == idx && o.reg.dwords == 1;
  };
  // The index of the literal operand and whether the other source is s[idx] (src0 only when `src0_only`).
  auto literal_with = [&](const Slot& s, unsigned idx, bool src0_only) -> std::optional<std::size_t> {
    const auto& f = detail::form_of(s.inst);
    if (s.size != f.size + 4u) return std::nullopt;  // no literal dword (an inline constant is not symbolized)
    const auto ops = isa::operands(f);
    std::vector<std::size_t> srcs;
    for (std::size_t k = 0; k < ops.size(); ++k)
      if (ops[k].kind == isa::Kind::src && ops[k].role == isa::Role::use) srcs.push_back(k);
    if (srcs.size() != 2) return std::nullopt;
    const Operand& a = s.inst.ops[srcs[0]];
    const Operand& b = s.inst.ops[srcs[1]];
    if (sgpr_is(a, idx) && b.kind != Operand::Kind::reg) return srcs[1];
    if (!src0_only && sgpr_is(b, idx) && a.kind != Operand::Kind::reg) return srcs[0];
    return std::nullopt;
  };
  auto overlaps = [](const Reg& r, unsigned idx) { return r.file == RegFile::sgpr && idx >= r.index && idx < r.index + r.dwords; };
  for (std::size_t r = 0; r < spans.size(); ++r) {
    auto [first, last] = region_slots[r];
    for (std::size_t g = first; g < last; ++g) {
      const Slot& gs = slots[g];
      if (!gs.is_inst || op_of(gs.inst) != op::s_getpc_b64) continue;
      const Operand& dst = gs.inst.ops.empty() ? Operand{} : gs.inst.ops[0];
      if (dst.kind != Operand::Kind::reg || dst.reg.file != RegFile::sgpr || dst.reg.dwords != 2) continue;
      const unsigned a = dst.reg.index;
      bool clob_lo = false, clob_hi = false;
      std::optional<std::size_t> pending;  // the lo instruction waiting for its hi
      bool pending_sub = false;
      auto orphan = [&]() {  // a literal added to the PC that no matching high half completes
        note(DiagCode::object_error,
             "s_getpc_b64 at " + hex(base + gs.off) + " feeds a literal " + std::string(pending_sub ? "s_sub_u32" : "s_add_u32") +
                 " at " + hex(base + slots[*pending].off) + " that no matching high half completes; its literal is kept as a number",
             *pending, print_inst(slots[*pending].inst), "if code between them moves, the address will be wrong");
        ++out.stats.numeric_pc_pairs;
        pending.reset();
      };
      for (std::size_t j = g + 1; j < last && !(clob_lo && clob_hi); ++j) {
        const Slot& s = slots[j];
        if (!s.is_inst) break;
        const auto& f = detail::form_of(s.inst);
        if (f.has(isa::prop::branch) || f.has(isa::prop::terminator) || f.has(isa::prop::no_fallthrough) ||
            f.has(isa::prop::call) || f.has(isa::prop::return_))
          break;
        const Opcode o = op_of(s.inst);
        bool consumed = false;
        if (one_of(o, op::s_add_u32, op::s_sub_u32) && !clob_lo && literal_with(s, a, o == op::s_sub_u32)) {
          if (pending) orphan();
          pending = j;
          pending_sub = o == op::s_sub_u32;
          consumed = true;
        } else if (one_of(o, op::s_addc_u32, op::s_subb_u32) && pending && !clob_hi && pending_sub == (o == op::s_subb_u32) &&
                   literal_with(s, a + 1, pending_sub)) {
          const Slot& lo = slots[*pending];
          const std::uint64_t lo_lit = detail::read_u32(text, lo.off + detail::form_of(lo.inst).size);
          const std::uint64_t hi_lit = detail::read_u32(text, s.off + f.size);
          const std::uint64_t delta = hi_lit << 32 | lo_lit;
          const std::uint64_t pc = base + gs.off + 4;  // S_GETPC_B64: D = PC + 4 (the next instruction's address)
          pairs.push_back({g, *pending, j, pending_sub ? pc - delta : pc + delta, pending_sub});
          pending.reset();
          consumed = true;
        }
        // SCC carries the low half's carry into s_addc_u32: anything else that writes SCC breaks the pair.
        if (!consumed && pending && (f.implicit_defs & isa::reg::scc)) orphan();
        const auto ops = isa::operands(f);
        for (std::size_t k = 0; k < ops.size() && k < s.inst.ops.size(); ++k) {
          const Operand& o = s.inst.ops[k];
          if (ops[k].role != isa::Role::def || o.kind != Operand::Kind::reg) continue;
          if (overlaps(o.reg, a)) clob_lo = true;
          if (overlaps(o.reg, a + 1)) clob_hi = true;
        }
        if (pending && clob_hi) orphan();
      }
      if (pending) orphan();
    }
  }
  std::map<std::pair<std::string, std::uint64_t>, std::string> data_label;  // (section, offset) -> label
  std::vector<std::pair<std::size_t, std::string>> slot_labels;             // getpc/lo/hi labels: slot, name
  std::map<std::size_t, std::string> pc_label;                               // getpc slot -> its label
  std::map<std::size_t, int> pc_counter;
  for (const auto& p : pairs) {
    const Slot& gs = slots[p.getpc];
    const std::size_t r = region_of_off(gs.off);
    std::string sym;
    bool data = false;
    std::string why;
    if (p.target >= base && p.target - base <= size) {
      if (boundary(p.target - base)) sym = code_ref_label(p.target - base);
      else why = "inside an instruction";
    } else {
      const SectionSpan* sec = nullptr;
      for (const auto& s : in.sections)
        if (p.target >= s.addr && p.target - s.addr < s.size && !(s.addr == base && s.size == size)) {
          if (!sec || (sec->code && !s.code)) sec = &s;
        }
      if (!sec) why = "outside every section";
      else if (p.sub) why = "in " + sec->name + ", reached by subtraction (no relocation expresses PC - symbol)";
      else {
        data = true;
        const std::uint64_t off = p.target - sec->addr;
        auto key = std::pair(sec->name, off);
        auto it = data_label.find(key);
        if (it == data_label.end()) {
          std::string n;
          for (const auto& s : in.symbols)
            if (s.addr == p.target && !in_text(s.addr)) { n = s.name; break; }
          if (n.empty()) n = fresh(".L" + detail::label_stem(sec->name) + "_" + hex(off).substr(2));
          it = data_label.emplace(key, n).first;
          out.data_labels.push_back({sec->name, off, n});
        }
        sym = it->second;
      }
    }
    if (sym.empty()) {
      note(DiagCode::object_error,
           "s_getpc_b64 at " + hex(base + gs.off) + " computes " + hex(p.target) + ", " + why + "; its literals are kept as numbers",
           p.getpc, print_inst(gs.inst), "if code between s_getpc_b64 and the literal moves, the address will be wrong");
      ++out.stats.numeric_pc_pairs;
      continue;
    }
    auto pit = pc_label.find(p.getpc);
    if (pit == pc_label.end()) {
      const int k = pc_counter[r]++;
      pit = pc_label.emplace(p.getpc, fresh(".L" + region_stem(r) + "_pc" + std::to_string(k))).first;
      slot_labels.emplace_back(p.getpc, pit->second);
    }
    const std::string& G = pit->second;
    Slot& lo = slots[p.lo];
    Slot& hi = slots[p.hi];
    auto lit_index = [&](const Slot& s, unsigned idx) { return *literal_with(s, idx, p.sub); };
    const unsigned a = slots[p.getpc].inst.ops[0].reg.index;
    const std::size_t lk = lit_index(lo, a), hk = lit_index(hi, a + 1);
    if (data) {
      const std::string L = fresh(G + "_lo"), H = fresh(G + "_hi");
      slot_labels.emplace_back(p.lo, L);
      slot_labels.emplace_back(p.hi, H);
      lo.inst.ops[lk] = Operand::make_expr(sym + "@rel32@lo+(" + L + "-" + G + ")");
      hi.inst.ops[hk] = Operand::make_expr(sym + "@rel32@hi+(" + H + "-" + G + ")");
    } else {
      const std::string d = p.sub ? G + "+4-" + sym : sym + "-" + G + "-4";
      lo.inst.ops[lk] = Operand::make_expr(d);
      hi.inst.ops[hk] = Operand::make_expr("(" + d + ")>>32");
    }
    out.pc_refs.push_back({InstId{static_cast<std::uint32_t>(p.getpc)}, InstId{static_cast<std::uint32_t>(p.lo)},
                           InstId{static_cast<std::uint32_t>(p.hi)}, p.target, sym, data});  // slot indexes for now
    ++out.stats.pc_pairs;
  }
  std::sort(out.data_labels.begin(), out.data_labels.end(),
            [](const DataRef& x, const DataRef& y) { return std::tie(x.section, x.offset) < std::tie(y.section, y.offset); });

  // ---- ids and items --------------------------------------------------------------------------------------
  std::vector<std::uint32_t> id_of(slots.size(), 0);
  std::uint32_t next = 0;
  for (std::size_t i = 0; i < slots.size(); ++i)
    if (slots[i].is_inst && !slots[i].dropped) {
      id_of[i] = next;
      slots[i].inst.id = InstId{next++};
    }
  for (auto& p : out.pc_refs) {
    p.getpc = InstId{id_of[p.getpc.value]};
    p.lo = InstId{id_of[p.lo.value]};
    p.hi = InstId{id_of[p.hi.value]};
  }
  std::map<std::size_t, std::vector<std::string>> labels_of_slot;
  for (auto& [s, n] : slot_labels) labels_of_slot[s].push_back(n);
  auto label_item = [](const std::string& n) {
    Item it;
    it.kind = Item::Kind::label;
    it.name = n;
    return it;
  };
  auto offset_labels = [&](std::uint64_t off, std::vector<Item>& items) {
    if (auto it = sym_labels.find(off); it != sym_labels.end())
      for (const auto& n : it->second) items.push_back(label_item(n));
    if (auto it = gen_labels.find(off); it != gen_labels.end())
      for (const auto& n : it->second) items.push_back(label_item(n));
  };
  for (std::size_t r = 0; r < spans.size(); ++r) {
    CodeRegion cr;
    cr.symbol = spans[r].symbol;
    cr.kind = spans[r].kind;
    cr.addr = base + spans[r].begin;
    cr.size = spans[r].end - spans[r].begin;
    cr.align = detail::alignment_of(cr.addr);
    const Prologue* pro = nullptr;
    for (const auto& p : prologues)
      if (p.region == r) pro = &p;
    auto [first, last] = region_slots[r];
    for (std::size_t i = first; i < last; ++i) {
      Slot& s = slots[i];
      const auto push = [&](Item&& x) {
        cr.items.push_back(std::move(x));
        cr.item_addr.push_back(base + s.off);
      };
      if (pro && i == first) {
        Item c;
        c.kind = Item::Kind::comment;
        c.text = "; kernarg-preload compatibility prologue: loads the preloaded kernarg SGPRs for firmware that does not "
                 "preload; firmware that does starts at entry + 256, so these 256 bytes must keep their size";
        push(std::move(c));
      }
      if (pro && i == pro->first_pad) {
        Item d;
        d.kind = Item::Kind::directive;
        d.name = ".p2align";
        d.text = "8";
        d.comment = "s_nop padding up to entry + 256, where preloading firmware starts";
        push(std::move(d));
      }
      if (s.dropped) continue;
      offset_labels(s.off, cr.items);
      cr.item_addr.resize(cr.items.size(), base + s.off);
      if (auto it = labels_of_slot.find(i); it != labels_of_slot.end())
        for (const auto& n : it->second) push(label_item(n));
      Item it;
      if (s.is_inst) {
        it.kind = Item::Kind::inst;
        it.inst = std::move(s.inst);
      } else {
        it.kind = Item::Kind::directive;
        char buf[16];
        if (s.size == 4) {
          it.name = ".long";
          std::snprintf(buf, sizeof buf, "0x%08x", detail::read_u32(text, s.off));
          it.text = buf;
        } else {
          it.name = ".byte";
          for (std::uint32_t k = 0; k < s.size; ++k) {
            std::snprintf(buf, sizeof buf, "%s0x%02x", k ? ", " : "", text[s.off + k]);
            it.text += buf;
          }
        }
        it.comment = s.why;
        ++out.stats.data_words;
      }
      push(std::move(it));
    }
    if (r + 1 == spans.size()) offset_labels(size, cr.items);  // labels at the end of .text
    cr.item_addr.resize(cr.items.size(), base + size);
    if (pro) {
      cr.kernarg_preload_prologue = true;
      ++out.stats.preload_prologues;
    }
    out.regions.push_back(std::move(cr));
  }
  out.next_id = next;
  out.stats.instructions = next;
  for (auto& [d, s] : notes) {
    if (s != no_slot && s < slots.size()) {
      if (slots[s].is_inst && !slots[s].dropped) d.loc.inst_id = id_of[s];
      if (d.message.find(hex(base + slots[s].off)) == std::string::npos) d.message += " (at " + hex(base + slots[s].off) + ")";
    }
    out.notes.push_back(std::move(d));
  }
  return out;
}
#else
;
#endif

}  // namespace asmevo::codeobject
