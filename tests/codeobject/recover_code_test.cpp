// Tests of codeobject/recover_code.hpp: recovered .text reassembles (LLVM MC in-process, or llvm-mc-22 + ld.lld-22
// for references into data) to the original bytes, and still means the same after code is inserted.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "asmevo/codeobject/recover_code.hpp"
#include "support/corpus.hpp"
#include "support/process.hpp"

namespace {

using namespace asmevo;
using codeobject::CodeInput;
using codeobject::CodeSymbol;
using codeobject::RecoveredCode;
using codeobject::SectionSpan;
namespace fs = std::filesystem;

#ifndef ASMEVO_LLVM_READELF
#define ASMEVO_LLVM_READELF ""
#endif
#ifndef ASMEVO_LLVM_OBJCOPY
#define ASMEVO_LLVM_OBJCOPY ""
#endif
#ifndef ASMEVO_LLVM_OBJDUMP
#define ASMEVO_LLVM_OBJDUMP ""
#endif
#ifndef ASMEVO_LLVM_MC
#define ASMEVO_LLVM_MC ""
#endif
#ifndef ASMEVO_LD_LLD
#define ASMEVO_LD_LLD ""
#endif
#ifndef ASMEVO_CLANG
#define ASMEVO_CLANG ""
#endif

mc::Encoder& encoder(Target t) {
  static std::map<Target, std::unique_ptr<mc::Encoder>> cache;
  auto& e = cache[t];
  if (!e) {
    auto c = mc::Encoder::create(t);
    EXPECT_TRUE(c) << c.error().str();
    e = std::move(*c);
  }
  return *e;
}

std::string hexs(std::uint64_t v) { return ::asmevo::detail::hex(v); }

std::uint32_t u32(std::span<const std::uint8_t> b, std::uint64_t at) { return codeobject::detail::read_u32(b, at); }

// ---- tools ------------------------------------------------------------------------------------------------------

using asmevo::test::RunResult;
/// Runs a shell command, capturing stdout and stderr.
RunResult run(const std::string& cmd) { return asmevo::test::run_command(cmd, /*with_stderr=*/true); }
std::string quote(const fs::path& p) { return asmevo::test::shell_quote(p); }

/// A scratch folder removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "asmevo_recover_XXXXXX").string();
    path = ::mkdtemp(tmpl.data()) ? fs::path(tmpl) : fs::path();
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

// ---- printing the recovered regions into one file (the caller's job; a minimal version for the tests) -------------

struct Printed {
  std::string text;
  std::map<std::uint32_t, std::uint32_t> line_of_id;  ///< instruction id -> 1-based line
  std::uint32_t lines = 0;
};

struct Printer {
  Printed p;
  void line(const std::string& s) {
    p.text += s;
    p.text += '\n';
    ++p.lines;
  }
  void item(const Item& it) {
    Program one;
    one.items.push_back(it);
    std::string s = print_program(one);
    if (!s.empty() && s.back() == '\n') s.pop_back();
    if (it.kind == Item::Kind::inst) p.line_of_id[it.inst.id.value] = p.lines + 1;
    line(s);
  }
};

unsigned log2u(std::uint32_t a) {
  unsigned k = 0;
  while ((1u << k) < a) ++k;
  return k;
}

/// Where the data sections that `rec.data_labels` point into are (for defining those labels); nobits = NOBITS ones.
struct DataSections {
  std::vector<SectionSpan> sections;
  std::vector<std::string> nobits;
};

/// Defines every data label of `rec` in its own section, `.skip` up to its offset. Returns (address, name) of those
/// sections (address 0 when the section is unknown).
std::vector<std::pair<std::uint64_t, std::string>> print_data(Printer& pr, const RecoveredCode& rec, const DataSections& ds) {
  std::map<std::string, std::vector<const codeobject::DataRef*>> by_section;
  for (const auto& d : rec.data_labels) by_section[d.section].push_back(&d);
  std::vector<std::pair<std::uint64_t, std::string>> placed;
  for (auto& [sec, refs] : by_section) {
    const SectionSpan* span = nullptr;
    for (const auto& s : ds.sections)
      if (s.name == sec) span = &s;
    const bool bss = std::find(ds.nobits.begin(), ds.nobits.end(), sec) != ds.nobits.end();
    pr.line("\t.section " + sec + (bss ? ",\"aw\",@nobits" : ",\"a\""));
    std::uint64_t pos = 0;
    for (const auto* d : refs) {
      if (d->offset > pos) pr.line("\t.skip " + std::to_string(d->offset - pos));
      pos = std::max(pos, d->offset);
      pr.line(d->label + ":");
    }
    if (span && span->size > pos) pr.line("\t.skip " + std::to_string(span->size - pos));
    placed.emplace_back(span ? span->addr : 0, sec);
  }
  return placed;
}

/// `.text` of the recovered regions, preceded by `.skip` so that section offsets are addresses - base + base % 256,
/// then the data labels' sections. `tail` lines go at the end of .text.
std::vector<std::pair<std::uint64_t, std::string>> print_text(Printer& pr, const RecoveredCode& rec, std::uint64_t text_addr,
                                                              const DataSections& ds = {}, const std::vector<std::string>& tail = {}) {
  pr.line("\t.text");
  pr.line("\t.p2align 8");
  if (text_addr % 256) pr.line("\t.skip " + std::to_string(text_addr % 256));
  for (const auto& r : rec.regions) {
    pr.line("\t.p2align " + std::to_string(log2u(r.align)));
    if (!r.symbol.empty()) {
      if (r.kind == CodeSymbol::Kind::kernel) pr.line("\t.globl " + r.symbol);  // as the caller will: a global symbol
      pr.line(r.symbol + ":");
    }
    for (const auto& it : r.items) pr.item(it);
  }
  for (const auto& l : tail) pr.line(l);
  return print_data(pr, rec, ds);
}

// ---- layout of an assembled text, checked against the original bytes ------------------------------------------------

struct Layout {
  std::map<std::uint32_t, std::uint64_t> off_of_id;              ///< id -> section offset
  std::map<std::uint64_t, std::uint32_t> id_at;                  ///< section offset -> id
  std::map<std::uint32_t, std::vector<std::uint8_t>> bytes_of_id;
};

::testing::AssertionResult assemble_layout(mc::Encoder& enc, const Printed& pr, Layout& lay) {
  auto r = enc.context().assemble_all(pr.text, "<recovered>");
  if (!r.ok()) {
    std::string where;
    const auto& d = r.errors.front();
    const auto lines = test::split_lines(pr.text);
    if (d.loc.line >= 1 && d.loc.line <= lines.size()) where = " at: " + lines[d.loc.line - 1];
    return ::testing::AssertionFailure() << r.errors.size() << " assembler errors, first: " << d.str() << where;
  }
  std::map<std::uint32_t, std::uint32_t> id_of_line;
  for (auto [id, l] : pr.line_of_id) id_of_line[l] = id;
  for (auto& e : r.instructions) {
    auto it = id_of_line.find(e.line);
    if (it == id_of_line.end()) return ::testing::AssertionFailure() << "an instruction on line " << e.line << " has no id";
    lay.off_of_id[it->second] = e.offset;
    lay.id_at[e.offset] = it->second;
    lay.bytes_of_id[it->second] = std::move(e.bytes);
  }
  if (lay.off_of_id.size() != pr.line_of_id.size())
    return ::testing::AssertionFailure() << "LLVM produced " << lay.off_of_id.size() << " instructions for " << pr.line_of_id.size();
  return ::testing::AssertionSuccess();
}

/// Prints `rec` into one text, assembles it in-process, and checks that every byte of .text comes back: each
/// instruction at LLVM's offset, each `.long`/`.byte` in the gaps, alignment padding as s_nop 0, up to the end.
/// Literals naming symbols outside .text are relocations (0 in-process): `reloc_ok` lists their ids (skipped).
::testing::AssertionResult reassembles_exactly(mc::Encoder& enc, const RecoveredCode& rec, std::span<const std::uint8_t> text,
                                               std::uint64_t text_addr, const std::set<std::uint32_t>& reloc_ok = {},
                                               const DataSections& ds = {}) {
  Printer pr;
  print_text(pr, rec, text_addr, ds, {"\ts_endpgm ; sentinel"});
  const auto lines = test::split_lines(pr.p.text);
  for (std::uint32_t i = 0; i < lines.size(); ++i)
    if (lines[i] == "\ts_endpgm ; sentinel") pr.p.line_of_id[0xffffffffu] = i + 1;
  Layout lay;
  if (auto a = assemble_layout(enc, pr.p, lay); !a) return a;
  const std::uint64_t skip = text_addr % 256;
  std::uint64_t pos = 0;  // offset into .text
  for (const auto& r : rec.regions) {
    if (r.addr - text_addr < pos) return ::testing::AssertionFailure() << "region " << r.symbol << " overlaps the one before";
    // Between regions: .p2align fills with s_nop 0 (AMDGPUAsmBackend::writeNopData).
    for (; pos < r.addr - text_addr; pos += 4)
      if (u32(text, pos) != 0xbf800000u)
        return ::testing::AssertionFailure() << "gap before region '" << r.symbol << "' at " << hexs(text_addr + pos) << " is not s_nop 0";
    for (const auto& it : r.items) {
      if (it.kind == Item::Kind::inst) {
        const auto id = it.inst.id.value;
        const std::uint64_t o = lay.off_of_id[id] - skip;
        for (; pos < o; pos += 4)  // .p2align padding inside a region (the preload prologue)
          if (u32(text, pos) != 0xbf800000u)
            return ::testing::AssertionFailure() << "padding before i" << id << " at " << hexs(text_addr + pos) << " is not s_nop 0";
        if (o != pos) return ::testing::AssertionFailure() << "i" << id << " at " << hexs(text_addr + o) << ", expected " << hexs(text_addr + pos);
        const auto& b = lay.bytes_of_id[id];
        if (pos + b.size() > text.size()) return ::testing::AssertionFailure() << "i" << id << " runs past .text";
        if (!std::equal(b.begin(), b.end(), text.begin() + static_cast<std::ptrdiff_t>(pos)) && !reloc_ok.count(id)) {
          std::string got, want;
          for (std::size_t k = 0; k < b.size(); ++k) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "%02x ", b[k]);
            got += buf;
            std::snprintf(buf, sizeof buf, "%02x ", text[pos + k]);
            want += buf;
          }
          return ::testing::AssertionFailure() << "i" << id << " at " << hexs(text_addr + pos) << " '" << print_inst(it.inst)
                                               << "' assembles to " << got << "instead of " << want;
        }
        pos += b.size();
      } else if (it.kind == Item::Kind::directive && (it.name == ".long" || it.name == ".byte")) {
        std::stringstream ss(it.text);
        std::string tok;
        while (std::getline(ss, tok, ',')) {
          const std::uint64_t v = std::stoull(std::string(::asmevo::detail::trim(tok)), nullptr, 0);
          const unsigned n = it.name == ".long" ? 4 : 1;
          for (unsigned k = 0; k < n; ++k, ++pos)
            if (pos >= text.size() || text[pos] != ((v >> (8 * k)) & 0xff))
              return ::testing::AssertionFailure() << it.name << " " << it.text << " does not match the bytes at " << hexs(text_addr + pos);
        }
      }
    }
    if (pos != r.addr - text_addr + r.size)
      return ::testing::AssertionFailure() << "region '" << r.symbol << "' ends at " << hexs(text_addr + pos) << ", expected "
                                           << hexs(r.addr + r.size);
  }
  const std::uint64_t end = lay.off_of_id[0xffffffffu] - skip;
  if (end != text.size() || pos != text.size())
    return ::testing::AssertionFailure() << "reassembled .text has " << end << " bytes, the original " << text.size();
  return ::testing::AssertionSuccess();
}

// ---- the grow test: insert s_nop 0 after every 7th instruction ---------------------------------------------------------

struct GrowReport {
  std::size_t branches = 0, pc_refs = 0, inserted = 0;
};

/// Branch targets by id, read from assembled bytes with Encoder::decode: branch id -> target id (or none).
std::map<std::uint32_t, std::optional<std::uint32_t>> branch_targets(mc::Encoder& enc, const Layout& lay, const std::set<std::uint32_t>& ids) {
  std::map<std::uint32_t, std::optional<std::uint32_t>> out;
  for (auto id : ids) {
    const auto& b = lay.bytes_of_id.at(id);
    auto d = enc.decode(b);
    EXPECT_TRUE(d && d->size() == 1) << "i" << id;
    if (!d || d->size() != 1) continue;
    const Inst& in = (*d)[0].inst;
    const auto ops = isa::operands(isa::forms(in.target)[in.form]);
    std::optional<std::int64_t> simm;
    for (std::size_t k = 0; k < ops.size(); ++k)
      if (ops[k].kind == isa::Kind::label && in.ops[k].kind == Operand::Kind::imm) simm = static_cast<std::int16_t>(in.ops[k].imm & 0xffff);
    EXPECT_TRUE(simm.has_value()) << print_inst(in);
    if (!simm) continue;
    const auto target = static_cast<std::int64_t>(lay.off_of_id.at(id)) + 4 + 4 * *simm;
    auto it = lay.id_at.find(static_cast<std::uint64_t>(target));
    out[id] = it == lay.id_at.end() ? std::nullopt : std::optional<std::uint32_t>(it->second);
  }
  return out;
}

/// The code address a symbolic PC-relative pair computes, from assembled bytes (section offsets).
std::uint64_t pc_target(const Layout& lay, const codeobject::PcRelRef& p, bool sub) {
  const auto& lo = lay.bytes_of_id.at(p.lo.value);
  const auto& hi = lay.bytes_of_id.at(p.hi.value);
  const std::uint64_t delta = static_cast<std::uint64_t>(u32(hi, 4)) << 32 | u32(lo, 4);
  const std::uint64_t pc = lay.off_of_id.at(p.getpc.value) + 4;
  return sub ? pc - delta : pc + delta;
}

bool is_sub(const RecoveredCode& rec, InstId lo) {
  for (const auto& r : rec.regions)
    for (const auto& it : r.items)
      if (it.kind == Item::Kind::inst && it.inst.id == lo) return isa::forms(it.inst.target)[it.inst.form].mnemonic == "s_sub_u32";
  return false;
}

/// A copy of `rec` with `s_nop 0` after every `every`-th instruction (never inside a preload prologue).
RecoveredCode grown(const RecoveredCode& rec, Target t, std::size_t every, std::size_t& inserted) {
  RecoveredCode g = rec;
  auto nop = parse_inst("s_nop 0", t);
  EXPECT_TRUE(nop);
  std::uint32_t next = rec.next_id;
  std::size_t count = 0;
  for (auto& r : g.regions) {
    bool in_prologue = r.kernarg_preload_prologue;
    std::vector<Item> items;
    for (auto& it : r.items) {
      if (it.kind == Item::Kind::directive && it.name == ".p2align") in_prologue = false;
      items.push_back(it);
      if (it.kind == Item::Kind::inst && ++count % every == 0 && !in_prologue) {
        Item n;
        n.kind = Item::Kind::inst;
        n.inst = *nop;
        n.inst.id = InstId{next++};
        items.push_back(std::move(n));
        ++inserted;
      }
    }
    r.items = std::move(items);
  }
  g.next_id = next;
  return g;
}

/// Every branch lands on the instruction (by id) it landed on before the insertions; every symbolic PC-relative pair
/// into .text still computes the address of the same instruction; preload entries stay at kernel + 256.
::testing::AssertionResult survives_growth(mc::Encoder& enc, const RecoveredCode& rec, std::uint64_t text_addr, GrowReport& rep,
                                            const DataSections& ds = {}) {
  std::set<std::uint32_t> branch_ids;
  for (const auto& r : rec.regions)
    for (const auto& it : r.items) {
      if (it.kind != Item::Kind::inst) continue;
      const auto ops = isa::operands(isa::forms(it.inst.target)[it.inst.form]);
      for (std::size_t k = 0; k < ops.size(); ++k)
        if (ops[k].kind == isa::Kind::label && it.inst.ops[k].kind == Operand::Kind::expr) branch_ids.insert(it.inst.id.value);
    }
  Printer p0;
  print_text(p0, rec, text_addr, ds);
  Layout before;
  if (auto a = assemble_layout(enc, p0.p, before); !a) return a;
  RecoveredCode g = grown(rec, enc.target(), 7, rep.inserted);
  Printer p1;
  print_text(p1, g, text_addr, ds);
  Layout after;
  if (auto a = assemble_layout(enc, p1.p, after); !a) return a;
  const auto t0 = branch_targets(enc, before, branch_ids);
  const auto t1 = branch_targets(enc, after, branch_ids);
  for (const auto& [id, tgt] : t0) {
    if (!tgt) return ::testing::AssertionFailure() << "branch i" << id << " does not land on an instruction before growth";
    const auto it = t1.find(id);
    if (it == t1.end() || it->second != tgt)
      return ::testing::AssertionFailure() << "branch i" << id << " landed on i" << *tgt << " and now on "
                                           << (it == t1.end() || !it->second ? std::string("no instruction") : "i" + std::to_string(*it->second));
    ++rep.branches;
  }
  for (const auto& p : rec.pc_refs) {
    if (p.data) continue;  // a relocation: checked by linking (see the data-reference tests)
    const bool sub = is_sub(rec, p.lo);
    const auto b0 = before.id_at.find(pc_target(before, p, sub));
    const auto b1 = after.id_at.find(pc_target(after, p, sub));
    if (b0 == before.id_at.end() || b1 == after.id_at.end() || b0->second != b1->second)
      return ::testing::AssertionFailure() << "the address computed by s_getpc_b64 i" << p.getpc.value << " moved to another instruction";
    ++rep.pc_refs;
  }
  for (const auto& r : g.regions) {
    if (!r.kernarg_preload_prologue) continue;
    // The first instruction after the prologue's .p2align is the preloading entry: kernel + 256.
    bool after_align = false;
    for (const auto& it : r.items) {
      if (it.kind == Item::Kind::directive && it.name == ".p2align") after_align = true;
      if (after_align && it.kind == Item::Kind::inst) {
        const std::uint64_t skip = text_addr % 256;
        const std::uint64_t entry = after.off_of_id.at(it.inst.id.value) - skip + text_addr;
        // The kernel's own address after growth: its first instruction.
        std::uint64_t start = 0;
        for (const auto& x : r.items)
          if (x.kind == Item::Kind::inst) { start = after.off_of_id.at(x.inst.id.value) - skip + text_addr; break; }
        if (entry != start + 256) return ::testing::AssertionFailure() << "preload entry of " << r.symbol << " moved";
        break;
      }
    }
  }
  return ::testing::AssertionSuccess();
}

// ---- building inputs from assembly snippets ----------------------------------------------------------------------

/// Assembles `lines` (no alignment directives; `.long V` lines are raw words) into contiguous bytes at `base`.
/// A line `NAME:` with NAME in `kinds` becomes a CodeSymbol at that address.
struct Snippet {
  std::vector<std::uint8_t> bytes;
  std::vector<CodeSymbol> symbols;
  std::map<std::string, std::uint64_t> addr_of;  ///< every `NAME:` line
};

Snippet build(mc::Encoder& enc, const std::vector<std::string>& lines, std::uint64_t base,
              const std::map<std::string, CodeSymbol::Kind>& kinds) {
  Snippet s;
  std::string src;
  for (const auto& l : lines) src += l + "\n";
  auto r = enc.context().assemble(src, "<snippet>");
  EXPECT_TRUE(r) << r.error().str();
  if (!r) return s;
  std::map<std::uint32_t, const mc::Encoded*> by_line;
  for (const auto& e : *r) by_line[e.line] = &e;
  std::vector<std::pair<std::string, std::uint64_t>> marks;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string_view l = ::asmevo::detail::trim(lines[i]);
    if (l.empty()) continue;
    if (l.back() == ':') {
      marks.emplace_back(std::string(l.substr(0, l.size() - 1)), s.bytes.size());
      continue;
    }
    if (l.rfind(".long ", 0) == 0) {
      const auto v = static_cast<std::uint32_t>(std::stoull(std::string(l.substr(6)), nullptr, 0));
      for (int k = 0; k < 4; ++k) s.bytes.push_back(static_cast<std::uint8_t>(v >> (8 * k)));
      continue;
    }
    if (l.rfind(".byte ", 0) == 0) {
      s.bytes.push_back(static_cast<std::uint8_t>(std::stoul(std::string(l.substr(6)), nullptr, 0)));
      continue;
    }
    if (l.front() == '.' || l.front() == ';') continue;
    auto it = by_line.find(static_cast<std::uint32_t>(i + 1));
    EXPECT_NE(it, by_line.end()) << "no bytes for line " << i + 1 << ": " << l;
    if (it == by_line.end()) continue;
    EXPECT_EQ(it->second->offset, s.bytes.size()) << "snippet layout is not contiguous at: " << l;
    s.bytes.insert(s.bytes.end(), it->second->bytes.begin(), it->second->bytes.end());
  }
  for (auto& [name, off] : marks) {
    s.addr_of[name] = base + off;
    if (auto k = kinds.find(name); k != kinds.end()) s.symbols.push_back({name, base + off, 0, k->second});
  }
  return s;
}

CodeInput input_of(Target t, const Snippet& s, std::uint64_t base) {
  CodeInput in;
  in.target = t;
  in.text = s.bytes;
  in.text_addr = base;
  in.symbols = s.symbols;
  in.sections.push_back({".text", base, s.bytes.size(), true});
  return in;
}

std::string all_notes(const RecoveredCode& rec) {
  std::string s;
  for (const auto& d : rec.notes) s += d.str() + "\n";
  return s;
}

std::string printed(const RecoveredCode& rec) {
  std::string s;
  for (const auto& r : rec.regions) {
    s += r.symbol.empty() ? "<unnamed>:\n" : r.symbol + ":\n";
    Program p;
    p.items = r.items;
    s += print_program(p);
  }
  return s;
}

const Inst* find_inst(const RecoveredCode& rec, std::string_view mnemonic, std::size_t nth = 0) {
  for (const auto& r : rec.regions)
    for (const auto& it : r.items)
      if (it.kind == Item::Kind::inst && isa::forms(it.inst.target)[it.inst.form].mnemonic == mnemonic && nth-- == 0) return &it.inst;
  return nullptr;
}

constexpr std::uint64_t kBase = 0x1000;

// ---- branches ------------------------------------------------------------------------------------------------------

TEST(RecoverCode, BranchesBecomeLabelsAndReassemble) {
  auto& enc = encoder(Target::gfx942);
  const std::vector<std::string> src = {
      "k0:",
      "  s_mov_b32 s0, 0",
      ".Ltop:",
      "  s_add_u32 s0, s0, 1",
      "  s_cmp_lt_u32 s0, 10",
      "  s_cbranch_scc1 .Ltop",     // backward
      "  s_cbranch_scc0 .Lfwd",     // forward
      "  s_cbranch_vccz .Lfwd",
      "  s_cbranch_vccnz .Lfwd",
      "  s_cbranch_execz .Lmid",    // to a label symbol of the object
      "  s_cbranch_execnz k0",      // to the start of its own kernel (a global symbol)
      "  s_mov_b32 s1, 0x12345678", // 8 bytes
      "mid_label:",
      ".Lmid:",
      "  s_nop 1",
      ".Lfwd:",
      "  s_branch fn",              // to another region
      "  s_endpgm",
      "fn:",
      "  s_cbranch_scc1 k0",        // into another kernel
      "  s_setpc_b64 s[30:31]",
  };
  auto s = build(enc, src, kBase, {{"k0", CodeSymbol::Kind::kernel}, {"fn", CodeSymbol::Kind::function}, {"mid_label", CodeSymbol::Kind::label}});
  auto in = input_of(Target::gfx942, s, kBase);
  auto rec = codeobject::recover_code(in, enc);
  ASSERT_TRUE(rec) << rec.error().str();
  EXPECT_TRUE(rec->notes.empty()) << all_notes(*rec);
  ASSERT_EQ(rec->regions.size(), 2u) << printed(*rec);
  EXPECT_EQ(rec->regions[0].symbol, "k0");
  EXPECT_EQ(rec->regions[1].symbol, "fn");
  EXPECT_EQ(rec->regions[0].align, 256u);  // 0x1000
  EXPECT_EQ(rec->stats.branches, 8u);
  // Ids in address order, one per instruction, over both regions.
  std::uint32_t want = 0;
  for (const auto& r : rec->regions)
    for (const auto& it : r.items)
      if (it.kind == Item::Kind::inst) {
        EXPECT_EQ(it.inst.id.value, want++);
      }
  EXPECT_EQ(rec->next_id, want);
  // Every branch names a label; the object's label symbol is used by name, a kernel or function start gets a
  // local alias (a branch to a global symbol would be a relocation).
  for (const auto& r : rec->regions)
    for (const auto& it : r.items)
      if (it.kind == Item::Kind::inst && isa::forms(it.inst.target)[it.inst.form].has(isa::prop::branch))
        for (const auto& o : it.inst.ops)
          if (o.kind == Operand::Kind::expr) {
            EXPECT_TRUE(o.text == "mid_label" || o.text.rfind(".L", 0) == 0) << print_inst(it.inst);
          }
  EXPECT_NE(printed(*rec).find("s_cbranch_execz mid_label"), std::string::npos) << printed(*rec);
  EXPECT_EQ(printed(*rec).find("s_cbranch_execnz k0"), std::string::npos) << printed(*rec);
  EXPECT_TRUE(reassembles_exactly(enc, *rec, s.bytes, kBase)) << printed(*rec);
  GrowReport g;
  EXPECT_TRUE(survives_growth(enc, *rec, kBase, g)) << printed(*rec);
  EXPECT_EQ(g.branches, 8u);
}

TEST(RecoverCode, BranchesThatCannotBeSymbolicStayNumbers) {
  auto& enc = encoder(Target::gfx90a);
  const std::vector<std::string> src = {
      "k:",
      "  s_branch 1",                 // into the literal of the next instruction
      "  s_mov_b32 s1, 0x12345678",
      "  s_cbranch_scc0 32767",       // far outside .text
      "  s_branch 65535",             // to itself: fine
      "  s_endpgm",
  };
  auto s = build(enc, src, kBase, {{"k", CodeSymbol::Kind::kernel}});
  auto in = input_of(Target::gfx90a, s, kBase);
  auto rec = codeobject::recover_code(in, enc);
  ASSERT_TRUE(rec) << rec.error().str();
  EXPECT_EQ(rec->stats.numeric_branches, 2u);
  EXPECT_EQ(rec->stats.branches, 1u);
  ASSERT_EQ(rec->notes.size(), 2u) << all_notes(*rec);
  EXPECT_NE(rec->notes[0].message.find("inside an instruction"), std::string::npos) << rec->notes[0].str();
  EXPECT_NE(rec->notes[1].message.find("outside .text"), std::string::npos) << rec->notes[1].str();
  EXPECT_EQ(rec->notes[0].loc.inst_id, std::optional<std::uint32_t>(0));
  EXPECT_TRUE(reassembles_exactly(enc, *rec, s.bytes, kBase)) << printed(*rec);
}

// ---- undecodable words, regions without symbols ---------------------------------------------------------------------

TEST(RecoverCode, UndecodableWordsAreKeptAsData) {
  auto& enc = encoder(Target::gfx942);
  const std::vector<std::string> src = {
      "  s_nop 0",                    // before the first symbol: an unnamed region
      "k:",
      "  s_branch .Lafter",
      ".Ldata:",
      ".long 0xbfff0000",             // SOPP opcode 0x7f: not an instruction
      ".long 0xffffffff",
      ".Lafter:",
      "  s_cbranch_scc0 .Ldata",      // a branch to the data words
      "  s_endpgm",
      ".byte 0x7",                    // a tail shorter than a dword
  };
  auto s = build(enc, src, kBase + 0x100 - 4, {{"k", CodeSymbol::Kind::kernel}});
  s.symbols[0].size = 16;  // k covers branch, data, cbranch; s_endpgm is outside every symbol
  auto in = input_of(Target::gfx942, s, kBase + 0x100 - 4);
  auto rec = codeobject::recover_code(in, enc);
  ASSERT_TRUE(rec) << rec.error().str();
  ASSERT_EQ(rec->regions.size(), 3u) << printed(*rec);
  EXPECT_EQ(rec->regions[0].symbol, "");
  EXPECT_EQ(rec->regions[0].size, 4u);
  EXPECT_EQ(rec->regions[1].symbol, "k");
  EXPECT_EQ(rec->regions[1].align, 256u);
  EXPECT_EQ(rec->regions[2].symbol, "");
  EXPECT_EQ(rec->regions[2].align, 16u);  // 0x1110
  EXPECT_EQ(rec->stats.data_words, 3u);
  EXPECT_EQ(rec->stats.branches, 2u);
  // One note for the two consecutive words, one for the tail.
  ASSERT_EQ(rec->notes.size(), 2u) << all_notes(*rec);
  for (const auto& d : rec->notes) EXPECT_EQ(d.code, DiagCode::decode_error) << d.str();
  EXPECT_NE(rec->notes[0].message.find("2 dwords at 0x1104..0x110b"), std::string::npos) << rec->notes[0].str();
  const std::string p = printed(*rec);
  EXPECT_NE(p.find(".long 0xbfff0000"), std::string::npos) << p;
  EXPECT_NE(p.find(".byte 0x07"), std::string::npos) << p;
  EXPECT_TRUE(reassembles_exactly(enc, *rec, s.bytes, kBase + 0x100 - 4)) << p;
}

TEST(RecoverCode, RejectsAnEncoderForAnotherTarget) {
  auto& enc = encoder(Target::gfx90a);
  std::vector<std::uint8_t> bytes = {0x00, 0x00, 0x81, 0xbf};
  CodeInput in;
  in.target = Target::gfx942;
  in.text = bytes;
  auto rec = codeobject::recover_code(in, enc);
  ASSERT_FALSE(rec);
  EXPECT_EQ(rec.error().code, DiagCode::usage);
}

TEST(RecoverCode, OddInputDoesNotCrash) {
  auto& enc = encoder(Target::gfx942);
  std::vector<std::uint8_t> bytes = {0x00, 0x00, 0x82, 0xbf, 0xff, 0x00, 0x80, 0xbe, 0x01};  // s_branch 0, cut literal, 1 byte
  CodeInput in;
  in.target = Target::gfx942;
  in.text = bytes;
  in.text_addr = 0x2000;
  in.symbols = {{"k", 0x2000, 1000, CodeSymbol::Kind::kernel},       // larger than .text
                {"inner", 0x2002, 0, CodeSymbol::Kind::function},    // not at an instruction
                {"away", 0x9000, 4, CodeSymbol::Kind::function},     // outside .text
                {"lab", 0x2001, 0, CodeSymbol::Kind::label}};
  auto rec = codeobject::recover_code(in, enc);
  ASSERT_TRUE(rec) << rec.error().str();
  EXPECT_FALSE(rec->notes.empty());
  std::uint64_t covered = 0;
  for (const auto& r : rec->regions) covered += r.size;
  EXPECT_EQ(covered, bytes.size());
  CodeInput empty;
  empty.target = Target::gfx942;
  auto e = codeobject::recover_code(empty, enc);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->next_id, 0u);
  CodeInput wrap;
  wrap.target = Target::gfx942;
  wrap.text = bytes;
  wrap.text_addr = ~0ull - 2;
  EXPECT_FALSE(codeobject::recover_code(wrap, enc));
}

// ---- PC-relative address computations into .text ------------------------------------------------------------------

TEST(RecoverCode, GetpcIntoTextBecomesLabelDifference) {
  auto& enc = encoder(Target::gfx942);
  const std::vector<std::string> src = {
      "helper:",
      "  v_mov_b32 v0, 1",
      "  s_setpc_b64 s[30:31]",
      "k:",
      "  s_mov_b32 s4, 0",
      ".Lg0:",
      "  s_getpc_b64 s[16:17]",
      "  v_mov_b32 v1, 2",                                  // not adjacent
      "  s_add_u32 s16, s16, helper-.Lg0-4",                // backward: a function
      "  s_addc_u32 s17, s17, (helper-.Lg0-4)>>32",
      "  s_swappc_b64 s[30:31], s[16:17]",
      ".Lg1:",
      "  s_getpc_b64 s[18:19]",
      "  s_add_u32 s20, s18, .Ltail-.Lg1-4",                // writes other registers; forward into the kernel
      "  s_addc_u32 s21, s19, (.Ltail-.Lg1-4)>>32",
      ".Lg2:",
      "  s_getpc_b64 s[22:23]",
      "  s_sub_u32 s22, s22, .Lg2+4-helper",                // subtraction form
      "  s_subb_u32 s23, s23, (.Lg2+4-helper)>>32",
      ".Lg3:",
      "  s_getpc_b64 s[24:25]",
      "  s_add_u32 s24, s24, 12",                           // inline constant: not symbolized
      "  s_addc_u32 s25, s25, 0",
      "  s_setpc_b64 s[20:21]",
      ".Ltail:",
      "  s_endpgm",
  };
  auto s = build(enc, src, kBase, {{"helper", CodeSymbol::Kind::function}, {"k", CodeSymbol::Kind::kernel}});
  auto in = input_of(Target::gfx942, s, kBase);
  auto rec = codeobject::recover_code(in, enc);
  ASSERT_TRUE(rec) << rec.error().str();
  EXPECT_TRUE(rec->notes.empty()) << all_notes(*rec);
  ASSERT_EQ(rec->pc_refs.size(), 3u) << printed(*rec);
  EXPECT_EQ(rec->stats.pc_pairs, 3u);
  EXPECT_EQ(rec->pc_refs[0].target, s.addr_of["helper"]);
  EXPECT_EQ(rec->pc_refs[0].label, "helper");  // a region start: its own symbol
  EXPECT_EQ(rec->pc_refs[1].target, s.addr_of[".Ltail"]);
  EXPECT_EQ(rec->pc_refs[2].target, s.addr_of["helper"]);
  for (const auto& p : rec->pc_refs) EXPECT_FALSE(p.data);
  const std::string p = printed(*rec);
  EXPECT_NE(p.find("s_add_u32 s16, s16, helper-.Lk_pc0-4"), std::string::npos) << p;
  EXPECT_NE(p.find("s_addc_u32 s17, s17, (helper-.Lk_pc0-4)>>32"), std::string::npos) << p;
  EXPECT_NE(p.find("s_add_u32 s24, s24, 12"), std::string::npos) << p;
  // The printed text reads back through asmevo's own parser, too.
  auto back = parse_program(p, Target::gfx942);
  EXPECT_TRUE(back) << back.error().str();
  EXPECT_TRUE(reassembles_exactly(enc, *rec, s.bytes, kBase)) << p;
  GrowReport g;
  EXPECT_TRUE(survives_growth(enc, *rec, kBase, g)) << p;
  EXPECT_EQ(g.pc_refs, 3u);
}

TEST(RecoverCode, NopBetweenGetpcAndAddKeepsTheTarget) {
  auto& enc = encoder(Target::gfx90a);
  const std::vector<std::string> src = {
      "k:",
      ".Lg:",
      "  s_getpc_b64 s[0:1]",
      "  s_add_u32 s0, s0, .Lt-.Lg-4",
      "  s_addc_u32 s1, s1, (.Lt-.Lg-4)>>32",
      "  s_setpc_b64 s[0:1]",
      "  s_nop 0",
      ".Lt:",
      "  s_endpgm",
  };
  auto s = build(enc, src, kBase, {{"k", CodeSymbol::Kind::kernel}});
  auto in = input_of(Target::gfx90a, s, kBase);
  auto rec = codeobject::recover_code(in, enc);
  ASSERT_TRUE(rec) << rec.error().str();
  ASSERT_EQ(rec->pc_refs.size(), 1u) << printed(*rec);
  const auto ref = rec->pc_refs[0];
  auto nop = parse_inst("s_nop 0", Target::gfx90a);
  ASSERT_TRUE(nop);
  // Insert right after the s_getpc_b64, and (separately) right before the add.
  for (int where = 0; where < 2; ++where) {
    RecoveredCode g = *rec;
    auto& items = g.regions[0].items;
    std::size_t at = 0;
    for (std::size_t i = 0; i < items.size(); ++i)
      if (items[i].kind == Item::Kind::inst && items[i].inst.id == (where == 0 ? ref.getpc : ref.lo)) at = i;
    if (where == 0) ++at;  // after the getpc
    Item n;
    n.kind = Item::Kind::inst;
    n.inst = *nop;
    n.inst.id = InstId{g.next_id++};
    items.insert(items.begin() + static_cast<std::ptrdiff_t>(at), n);
    Printer pr;
    print_text(pr, g, kBase);
    Layout lay;
    ASSERT_TRUE(assemble_layout(enc, pr.p, lay)) << pr.p.text;
    const auto target = lay.id_at.find(pc_target(lay, ref, false));
    ASSERT_NE(target, lay.id_at.end()) << pr.p.text;
    const Inst* endpgm = find_inst(g, "s_endpgm");
    ASSERT_NE(endpgm, nullptr);
    EXPECT_EQ(target->second, endpgm->id.value) << "insertion " << where << "\n" << pr.p.text;
  }
}

TEST(RecoverCode, BrokenGetpcPairsStayNumbersWithANote) {
  auto& enc = encoder(Target::gfx942);
  const std::vector<std::string> src = {
      "k:",
      ".Lg0:",
      "  s_getpc_b64 s[0:1]",
      "  s_add_u32 s0, s0, .Lt-.Lg0-4",
      "  s_cmp_eq_u32 s5, 0",                     // writes SCC: the carry is lost
      "  s_addc_u32 s1, s1, (.Lt-.Lg0-4)>>32",
      ".Lg1:",
      "  s_getpc_b64 s[2:3]",
      "  s_mov_b32 s2, 7",                        // s2 redefined before the add
      "  s_add_u32 s2, s2, .Lt-.Lg1-4",
      "  s_addc_u32 s3, s3, (.Lt-.Lg1-4)>>32",
      ".Lg2:",
      "  s_getpc_b64 s[4:5]",
      "  s_add_u32 s4, s4, .Lt-.Lg2-4",
      "  s_endpgm",                               // no high half
      ".Lt:",
      "  s_endpgm",
  };
  auto s = build(enc, src, kBase, {{"k", CodeSymbol::Kind::kernel}});
  auto in = input_of(Target::gfx942, s, kBase);
  auto rec = codeobject::recover_code(in, enc);
  ASSERT_TRUE(rec) << rec.error().str();
  EXPECT_TRUE(rec->pc_refs.empty()) << printed(*rec);
  EXPECT_EQ(rec->stats.numeric_pc_pairs, 2u) << all_notes(*rec);
  ASSERT_EQ(rec->notes.size(), 2u) << all_notes(*rec);
  for (const auto& d : rec->notes) EXPECT_NE(d.message.find("no matching high half"), std::string::npos) << d.str();
  EXPECT_TRUE(reassembles_exactly(enc, *rec, s.bytes, kBase)) << printed(*rec);
}

TEST(RecoverCode, ForcedLiteralsDecodeAndReencode) {
  // LLVM prints a literal dword whose value is also an inline constant as lit(N) (the high half of most PC-relative
  // offsets); asmevo reads it as a symbolic literal and re-encodes the same 8 bytes.
  for (Target t : all_targets) {
    auto& enc = encoder(t);
    auto bytes = enc.context().assemble("s_addc_u32 s1, s1, lit(0xffffffff)\ns_add_u32 s0, s0, lit(0x30)\nv_add_f32 v0, lit(1.0), v1\n");
    ASSERT_TRUE(bytes) << bytes.error().str();
    std::vector<std::uint8_t> all;
    for (const auto& e : *bytes) all.insert(all.end(), e.bytes.begin(), e.bytes.end());
    ASSERT_EQ(all.size(), 24u);
    auto d = enc.decode(all);
    ASSERT_TRUE(d) << d.error().str();
    ASSERT_EQ(d->size(), 3u);
    for (const auto& x : *d) {
      EXPECT_TRUE(x.exact) << print_inst(x.inst) << " " << x.note;
      EXPECT_NE(print_inst(x.inst).find("lit("), std::string::npos) << print_inst(x.inst);
      auto again = enc.encode(x.inst);
      ASSERT_TRUE(again) << again.error().str();
      EXPECT_EQ(again->size(), 8u);
    }
    // Where no literal is allowed (VOP3 on gfx9), lit() is refused like any literal.
    EXPECT_FALSE(parse_inst("v_add_f32_e64 v0, lit(0x30), v1", t));
  }
}

// ---- PC-relative references into data sections (checked by linking with ld.lld-22) --------------------------------------

bool have(std::string_view tool) { return !tool.empty(); }
bool have_link_tools() { return have(ASMEVO_LLVM_MC) && have(ASMEVO_LD_LLD) && have(ASMEVO_LLVM_OBJCOPY); }

/// Assembles the printed regions plus the data sections that define `rec.data_labels` with llvm-mc-22, links them with
/// ld.lld-22 so that every section sits at its original address, and returns the linked .text.
::testing::AssertionResult link_text(const RecoveredCode& rec, Target t, std::uint64_t text_addr,
                                     const std::vector<SectionSpan>& sections, const std::vector<std::string>& nobits,
                                     std::vector<std::uint8_t>& out, std::string* listing = nullptr) {
  TempDir tmp;
  Printer pr;
  auto placed = print_text(pr, rec, text_addr, DataSections{sections, nobits});
  for (const auto& [a, sec] : placed)
    if (a == 0) return ::testing::AssertionFailure() << "data label in unknown section " << sec;
  std::string script = "SECTIONS {\n";
  placed.emplace_back(text_addr - text_addr % 256, ".text");
  std::sort(placed.begin(), placed.end());
  for (auto& [a, sec] : placed) script += "  . = " + hexs(a) + ";\n  " + sec + " : { *(" + sec + ") }\n";
  script += "}\n";
  if (listing) *listing = pr.p.text;
  std::ofstream(tmp.path / "r.s") << pr.p.text;
  std::ofstream(tmp.path / "r.ld") << script;
  auto as = run(std::string(ASMEVO_LLVM_MC) + " -triple=amdgcn-amd-amdhsa -mcpu=" + std::string(to_string(t)) + " -filetype=obj " +
                quote(tmp.path / "r.s") + " -o " + quote(tmp.path / "r.o"));
  if (as.status != 0) return ::testing::AssertionFailure() << "llvm-mc: " << as.out.substr(0, 2000);
  auto ld = run(std::string(ASMEVO_LD_LLD) + " -T " + quote(tmp.path / "r.ld") + " " + quote(tmp.path / "r.o") + " -o " +
                quote(tmp.path / "r.elf"));
  if (ld.status != 0) return ::testing::AssertionFailure() << "ld.lld: " << ld.out.substr(0, 2000);
  auto oc = run(std::string(ASMEVO_LLVM_OBJCOPY) + " -O binary --only-section=.text " + quote(tmp.path / "r.elf") + " " +
                quote(tmp.path / "r.bin"));
  if (oc.status != 0) return ::testing::AssertionFailure() << "llvm-objcopy: " << oc.out;
  const std::string b = test::slurp(tmp.path / "r.bin");
  out.assign(b.begin(), b.end());
  if (text_addr % 256) out.erase(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(out.size(), text_addr % 256)));
  return ::testing::AssertionSuccess();
}

/// The absolute address a PC-relative pair computes in linked bytes (`text` at `text_addr`); the instructions are
/// found by decoding, in order, from `getpc_off`.
std::uint64_t linked_target(std::span<const std::uint8_t> text, std::uint64_t text_addr, std::uint64_t getpc_off, std::uint64_t lo_off,
                            std::uint64_t hi_off) {
  const std::uint64_t delta = static_cast<std::uint64_t>(u32(text, hi_off + 4)) << 32 | u32(text, lo_off + 4);
  return text_addr + getpc_off + 4 + delta;
}

TEST(RecoverCode, GetpcIntoDataBecomesRel32Relocation) {
  if (!have_link_tools()) GTEST_SKIP() << "llvm-mc-22, ld.lld-22 or llvm-objcopy-22 not found";
  auto& enc = encoder(Target::gfx942);
  const std::uint64_t base = 0x1700, rodata = 0x5c0, bss = 0x3d30;
  // Literal values as a linker writes them: offsets from PC to .rodata+0x40 and .bss+0x8 (PC = getpc + 4).
  auto lit = [](std::uint64_t v) { return "lit(" + hexs(v & 0xffffffffull) + ")"; };
  std::vector<std::string> src = {"k:", "  s_nop 0", "  s_getpc_b64 s[0:1]"};
  const std::uint64_t pc0 = base + 8;
  const std::uint64_t d0 = rodata + 0x40 - pc0;  // negative
  src.push_back("  s_add_u32 s0, s0, " + lit(d0));
  src.push_back("  s_addc_u32 s1, s1, " + lit(d0 >> 32));
  src.push_back("  s_load_dword s2, s[0:1], 0x0");
  src.push_back("  s_getpc_b64 s[4:5]");
  const std::uint64_t pc1 = base + 4 + 4 + 8 + 8 + 8 + 4;
  const std::uint64_t d1 = bss + 0x8 - pc1;  // positive
  src.push_back("  s_add_u32 s6, s4, " + lit(d1));
  src.push_back("  s_addc_u32 s7, s5, " + lit(d1 >> 32));
  src.push_back("  s_getpc_b64 s[8:9]");
  const std::uint64_t pc2 = pc1 + 16 + 4;
  const std::uint64_t d2 = 0x90000000 - pc2;  // outside every section: stays numeric
  src.push_back("  s_add_u32 s8, s8, " + lit(d2));
  src.push_back("  s_addc_u32 s9, s9, " + lit(d2 >> 32));
  src.push_back("  s_endpgm");
  auto s = build(enc, src, base, {{"k", CodeSymbol::Kind::kernel}});
  auto in = input_of(Target::gfx942, s, base);
  in.sections = {{".rodata", rodata, 0x140, false}, {".text", base, s.bytes.size(), true}, {".bss", bss, 0x41, false}};
  auto rec = codeobject::recover_code(in, enc);
  ASSERT_TRUE(rec) << rec.error().str();
  ASSERT_EQ(rec->pc_refs.size(), 2u) << printed(*rec) << all_notes(*rec);
  EXPECT_EQ(rec->stats.numeric_pc_pairs, 1u);
  EXPECT_EQ(rec->notes.size(), 1u) << all_notes(*rec);
  EXPECT_TRUE(rec->pc_refs[0].data && rec->pc_refs[1].data);
  EXPECT_EQ(rec->pc_refs[0].target, rodata + 0x40);
  EXPECT_EQ(rec->pc_refs[1].target, bss + 0x8);
  ASSERT_EQ(rec->data_labels.size(), 2u);
  EXPECT_EQ(rec->data_labels[0].section, ".bss");
  EXPECT_EQ(rec->data_labels[0].offset, 0x8u);
  EXPECT_EQ(rec->data_labels[1].section, ".rodata");
  EXPECT_EQ(rec->data_labels[1].offset, 0x40u);
  const std::string p = printed(*rec);
  EXPECT_NE(p.find("@rel32@lo+(.Lk_pc0_lo-.Lk_pc0)"), std::string::npos) << p;
  EXPECT_NE(p.find("@rel32@hi+(.Lk_pc0_hi-.Lk_pc0)"), std::string::npos) << p;
  // In-process, a relocation's literal is 0: every other byte must come back.
  std::set<std::uint32_t> relocs;
  for (const auto& r : rec->pc_refs) relocs.insert({r.lo.value, r.hi.value});
  EXPECT_TRUE(reassembles_exactly(enc, *rec, s.bytes, base, relocs, DataSections{in.sections, {".bss"}})) << p;
  // Linked at the original addresses, the bytes are the original ones.
  std::vector<std::uint8_t> linked;
  std::string listing;
  ASSERT_TRUE(link_text(*rec, Target::gfx942, base, in.sections, {".bss"}, linked, &listing)) << p;
  EXPECT_EQ(linked, s.bytes) << listing;
  // With s_nop 0 inserted after every 2nd instruction (also between each getpc and its add), the linked code still
  // computes the same data addresses.
  std::size_t inserted = 0;
  RecoveredCode g = grown(*rec, Target::gfx942, 2, inserted);
  std::vector<std::uint8_t> glinked;
  ASSERT_TRUE(link_text(g, Target::gfx942, base, in.sections, {".bss"}, glinked, &listing)) << p;
  EXPECT_EQ(glinked.size(), s.bytes.size() + 4 * inserted);
  auto dec = enc.decode(glinked, base);
  ASSERT_TRUE(dec) << dec.error().str();
  std::vector<std::uint64_t> getpc, lo, hi;
  for (const auto& d : *dec) {
    const auto m = isa::forms(d.inst.target)[d.inst.form].mnemonic;
    if (m == "s_getpc_b64") getpc.push_back(d.offset);
    if (m == "s_add_u32") lo.push_back(d.offset);
    if (m == "s_addc_u32") hi.push_back(d.offset);
  }
  ASSERT_EQ(getpc.size(), 3u);
  ASSERT_EQ(lo.size(), 3u);
  EXPECT_EQ(linked_target(glinked, base, getpc[0], lo[0], hi[0]), rodata + 0x40) << listing;
  EXPECT_EQ(linked_target(glinked, base, getpc[1], lo[1], hi[1]), bss + 0x8) << listing;
}

// ---- the kernarg-preload prologue -------------------------------------------------------------------------------

std::vector<std::string> preload_kernel(bool with_branch) {
  std::vector<std::string> src = {"k:"};
  std::size_t used = 0;
  if (with_branch) {
    src.insert(src.end(), {"  s_load_dwordx2 s[2:3], s[0:1], 0x0", "  s_load_dwordx8 s[4:11], s[0:1], 0x8",
                           "  s_waitcnt lgkmcnt(0)", "  s_branch .Lentry"});
    used = 8 + 8 + 4 + 4;
  } else {
    src.push_back("  s_trap 2");
    used = 4;
  }
  for (; used < 256; used += 4) src.push_back("  s_nop 0");
  src.insert(src.end(), {".Lentry:", "  s_cmp_eq_u32 s2, 0", "  s_cbranch_scc1 .Lentry", "  s_nop 0", "  s_endpgm"});
  return src;
}

TEST(RecoverCode, PreloadPrologueKeepsEntryAt256) {
  for (bool with_branch : {true, false}) {
    SCOPED_TRACE(with_branch ? "s_load/s_waitcnt/s_branch prologue" : "s_trap header");
    auto& enc = encoder(Target::gfx942);
    auto s = build(enc, preload_kernel(with_branch), kBase, {{"k", CodeSymbol::Kind::kernel}});
    auto in = input_of(Target::gfx942, s, kBase);
    in.preload_dwords = [](std::string_view k) -> std::optional<std::uint32_t> {
      return k == "k" ? std::optional<std::uint32_t>(10) : std::nullopt;
    };
    auto rec = codeobject::recover_code(in, enc);
    ASSERT_TRUE(rec) << rec.error().str();
    EXPECT_TRUE(rec->notes.empty()) << all_notes(*rec);
    ASSERT_EQ(rec->regions.size(), 1u);
    const auto& r = rec->regions[0];
    EXPECT_TRUE(r.kernarg_preload_prologue);
    EXPECT_EQ(rec->stats.preload_prologues, 1u);
    // The padding is one .p2align 8, not s_nop instructions; a comment says why.
    EXPECT_EQ(rec->next_id, with_branch ? 4u + 4u : 1u + 4u) << printed(*rec);
    std::size_t align_at = 0, comments = 0;
    for (std::size_t i = 0; i < r.items.size(); ++i) {
      if (r.items[i].kind == Item::Kind::directive && r.items[i].name == ".p2align" && r.items[i].text == "8") align_at = i;
      if (r.items[i].kind == Item::Kind::comment && r.items[i].text.find("kernarg-preload") != std::string::npos) ++comments;
    }
    EXPECT_EQ(comments, 1u);
    ASSERT_GT(align_at, 0u) << printed(*rec);
    if (with_branch) {
      ASSERT_EQ(r.items[align_at + 1].kind, Item::Kind::label) << printed(*rec);
      const Inst* br = find_inst(*rec, "s_branch");
      ASSERT_NE(br, nullptr);
      EXPECT_EQ(print_inst(*br), "s_branch " + r.items[align_at + 1].name);
    }
    EXPECT_TRUE(reassembles_exactly(enc, *rec, s.bytes, kBase)) << printed(*rec);
    GrowReport g;
    EXPECT_TRUE(survives_growth(enc, *rec, kBase, g)) << printed(*rec);
    // Without a preload length, the same bytes are ordinary code: the s_nop padding stays as instructions.
    in.preload_dwords = nullptr;
    auto plain = codeobject::recover_code(in, enc);
    ASSERT_TRUE(plain);
    EXPECT_FALSE(plain->regions[0].kernarg_preload_prologue);
    EXPECT_EQ(plain->next_id * 4 + (with_branch ? 8u : 0u), s.bytes.size());
    EXPECT_TRUE(reassembles_exactly(enc, *plain, s.bytes, kBase));
  }
}

TEST(RecoverCode, PreloadPaddingThatIsABranchTargetIsKept) {
  auto& enc = encoder(Target::gfx950);
  auto src = preload_kernel(true);
  src.insert(src.begin() + 10, ".Lpad:");  // a label in the s_nop padding, used below
  src.insert(src.end() - 1, "  s_cbranch_scc0 .Lpad");
  auto s = build(enc, src, kBase, {{"k", CodeSymbol::Kind::kernel}});
  auto in = input_of(Target::gfx950, s, kBase);
  in.preload_dwords = [](std::string_view) -> std::optional<std::uint32_t> { return 12; };
  auto rec = codeobject::recover_code(in, enc);
  ASSERT_TRUE(rec) << rec.error().str();
  EXPECT_FALSE(rec->regions[0].kernarg_preload_prologue);
  ASSERT_EQ(rec->notes.size(), 1u) << all_notes(*rec);
  EXPECT_NE(rec->notes[0].message.find("padding"), std::string::npos);
  EXPECT_TRUE(reassembles_exactly(enc, *rec, s.bytes, kBase)) << printed(*rec);
}

// ---- reading code objects with LLVM's tools (the project's ELF reader is tested elsewhere) ----------------------------

struct ObjectText {
  Target target = Target::gfx942;
  std::vector<std::uint8_t> text;
  CodeInput input;
  std::map<std::string, std::uint32_t> preload;
  std::vector<std::string> nobits;
  std::string error;
};

std::uint64_t parse_num(const std::string& s) { return std::stoull(s, nullptr, s.rfind("0x", 0) == 0 ? 16 : 10); }

/// Target, .text bytes and address, allocated sections and code symbols of `path`, from llvm-readelf-22 -h -S -s,
/// llvm-objcopy-22 -O binary, and the kernarg-preload length from llvm-objdump-22's descriptor disassembly.
bool read_object(const fs::path& path, ObjectText& o) {
  auto re = run(std::string(ASMEVO_LLVM_READELF) + " -h -S -s --wide " + quote(path));
  if (re.status != 0) { o.error = re.out; return false; }
  static const std::regex flags(R"(Flags:\s+0x[0-9a-f]+,\s*(gfx[0-9a-z]+))");
  static const std::regex sec(R"(^\s*\[\s*(\d+)\]\s+(\S+)\s+(\S+)\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([A-Za-z]*)\s)");
  static const std::regex sym(R"(^\s*\d+:\s+([0-9a-f]+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*$)");
  std::smatch m;
  std::map<std::string, std::string> sec_of_index;
  struct Sym { std::uint64_t addr, size; std::string type, ndx, name; };
  std::vector<Sym> syms;
  bool in_symtab = false;
  std::string text_index;
  std::optional<Target> t;
  for (const auto& l : test::split_lines(re.out)) {
    if (std::regex_search(l, m, flags)) t = parse_target(m[1].str());
    if (l.find("Symbol table '") != std::string::npos) {
      in_symtab = l.find("'.symtab'") != std::string::npos;  // .dynsym repeats a subset
      continue;
    }
    if (std::regex_search(l, m, sec)) {
      const std::string name = m[2], type = m[3], fl = m[6];
      sec_of_index[m[1]] = name;
      const std::uint64_t addr = std::stoull(m[4].str(), nullptr, 16), size = std::stoull(m[5].str(), nullptr, 16);
      if (fl.find('A') != std::string::npos && size != 0) {
        o.input.sections.push_back({name, addr, size, fl.find('X') != std::string::npos});
        if (type == "NOBITS") o.nobits.push_back(name);
      }
      if (name == ".text") {
        text_index = m[1];
        o.input.text_addr = addr;
      }
      continue;
    }
    // Num: Value Size Type Bind Vis Ndx Name
    if (in_symtab && std::regex_match(l, m, sym)) syms.push_back({std::stoull(m[1].str(), nullptr, 16), parse_num(m[2]), m[3], m[6], m[7]});
  }
  if (!t) { o.error = "no supported target in the ELF flags"; return false; }
  if (text_index.empty()) { o.error = "no .text"; return false; }
  o.target = *t;
  o.input.target = *t;
  std::set<std::string> kds, kd_sections;
  for (const auto& s : syms)
    if (s.name.size() > 3 && s.name.ends_with(".kd")) {
      kds.insert(s.name.substr(0, s.name.size() - 3));
      if (sec_of_index.count(s.ndx)) kd_sections.insert(sec_of_index[s.ndx]);
    }
  for (const auto& s : syms) {
    if (s.ndx != text_index) continue;
    if (s.type == "FUNC") o.input.symbols.push_back({s.name, s.addr, s.size, kds.count(s.name) ? CodeSymbol::Kind::kernel : CodeSymbol::Kind::function});
    else if (s.type == "NOTYPE") o.input.symbols.push_back({s.name, s.addr, s.size, CodeSymbol::Kind::label});
  }
  TempDir tmp;
  auto oc = run(std::string(ASMEVO_LLVM_OBJCOPY) + " -O binary --only-section=.text " + quote(path) + " " + quote(tmp.path / "t.bin"));
  if (oc.status != 0) { o.error = oc.out; return false; }
  const std::string b = test::slurp(tmp.path / "t.bin");
  o.text.assign(b.begin(), b.end());
  // `.amdhsa_user_sgpr_kernarg_preload_length N` under `<name.kd>:` in llvm-objdump's descriptor disassembly.
  static const std::regex kd_head(R"(^[0-9a-f]+ <(.+)\.kd>:)");
  static const std::regex pre(R"(\.amdhsa_user_sgpr_kernarg_preload_length\s+(\d+))");
  for (const auto& ks : kd_sections) {
    auto od = run(std::string(ASMEVO_LLVM_OBJDUMP) + " -d --section=" + ks + " " + quote(path));
    std::string cur;
    for (const auto& l : test::split_lines(od.out)) {
      if (std::regex_search(l, m, kd_head)) cur = m[1];
      else if (!cur.empty() && std::regex_search(l, m, pre)) o.preload[cur] = static_cast<std::uint32_t>(std::stoul(m[1].str()));
    }
  }
  o.input.text = o.text;
  const auto* pl = &o.preload;
  o.input.preload_dwords = [pl](std::string_view k) -> std::optional<std::uint32_t> {
    auto it = pl->find(std::string(k));
    return it == pl->end() ? std::nullopt : std::optional<std::uint32_t>(it->second);
  };
  return true;
}

/// Branch instructions (SOPP/SOPK with a label operand) in llvm-objdump-22's disassembly of .text: the outside count.
std::size_t objdump_branches(const fs::path& path, Target t) {
  auto od = run(std::string(ASMEVO_LLVM_OBJDUMP) + " -d --section=.text --mcpu=" + std::string(to_string(t)) + " " + quote(path));
  std::size_t n = 0;
  static const std::regex br(R"(^\s+(s_branch|s_cbranch_[a-z0-9_]+|s_call_b64)\s)");
  for (const auto& l : test::split_lines(od.out))
    if (std::regex_search(l, br)) ++n;
  return n;
}

bool have_object_tools() { return have(ASMEVO_LLVM_READELF) && have(ASMEVO_LLVM_OBJCOPY) && have(ASMEVO_LLVM_OBJDUMP); }

// ---- a kernel compiled by clang-22 that calls a function and reads a constant table and a global ------------------------

TEST(RecoverCode, ClangKernelWithCallsAndDataReferencesRelinksExactly) {
  if (!have(ASMEVO_CLANG) || !have_link_tools() || !have_object_tools()) GTEST_SKIP() << "clang-22, llvm-mc-22, ld.lld-22 or llvm binutils not found";
  for (Target t : all_targets) {
    SCOPED_TRACE(std::string(to_string(t)));
    TempDir tmp;
    std::ofstream(tmp.path / "k.hip") << R"(
#define KERNEL extern "C" __attribute__((global))
__attribute__((constant)) float table[64] = {1, 2, 3, 4, 5, 6, 7, 8};
__attribute__((device)) float gtab[16];
__attribute__((device, noinline)) float helper(float x, int i) { return x * table[i & 63] + gtab[i & 15]; }
KERNEL void kern(float* out, const float* in, int n) {
  int i = __builtin_amdgcn_workitem_id_x() + __builtin_amdgcn_workgroup_id_x() * 256;
  for (; i < n; i += 4096) out[i] = helper(in[i], i) + table[(i * 7) & 63];
}
)";
    auto cc = run(std::string(ASMEVO_CLANG) + " -x hip --offload-arch=" + std::string(to_string(t)) +
                  " --cuda-device-only --no-gpu-bundle-output -nogpuinc -nogpulib -O3 -c " + quote(tmp.path / "k.hip") + " -o " +
                  quote(tmp.path / "k.co"));
    ASSERT_EQ(cc.status, 0) << cc.out;
    ObjectText o;
    ASSERT_TRUE(read_object(tmp.path / "k.co", o)) << o.error;
    auto& enc = encoder(o.target);
    auto rec = codeobject::recover_code(o.input, enc);
    ASSERT_TRUE(rec) << rec.error().str();
    EXPECT_TRUE(rec->notes.empty()) << all_notes(*rec);
    // clang reaches `helper` with s_getpc_b64 + s_add_u32/s_addc_u32 + s_swappc_b64, and both arrays PC-relatively.
    std::size_t code = 0, data = 0;
    for (const auto& p : rec->pc_refs) (p.data ? data : code)++;
    EXPECT_GE(code, 1u) << printed(*rec);
    EXPECT_GE(data, 2u) << printed(*rec);
    std::set<std::string> sections;
    for (const auto& d : rec->data_labels) sections.insert(d.section);
    EXPECT_TRUE(sections.count(".rodata") && sections.count(".bss")) << printed(*rec);
    EXPECT_EQ(rec->stats.branches + rec->stats.numeric_branches, objdump_branches(tmp.path / "k.co", o.target));
    std::vector<std::uint8_t> linked;
    std::string listing;
    ASSERT_TRUE(link_text(*rec, o.target, o.input.text_addr, o.input.sections, o.nobits, linked, &listing));
    EXPECT_EQ(linked, o.text) << listing;
    const DataSections ds{o.input.sections, o.nobits};
    GrowReport g;
    EXPECT_TRUE(survives_growth(enc, *rec, o.input.text_addr, g, ds)) << printed(*rec);
    // Grown and relinked: each data reference still computes its original address.
    std::size_t inserted = 0;
    RecoveredCode gr = grown(*rec, o.target, 3, inserted);
    std::vector<std::uint8_t> glinked;
    ASSERT_TRUE(link_text(gr, o.target, o.input.text_addr, o.input.sections, o.nobits, glinked, &listing));
    Printer pr;
    print_text(pr, gr, o.input.text_addr, ds);
    Layout lay;
    ASSERT_TRUE(assemble_layout(enc, pr.p, lay));
    const std::uint64_t skip = o.input.text_addr % 256;
    for (const auto& p : rec->pc_refs) {
      if (!p.data) continue;
      const std::uint64_t at = linked_target(glinked, o.input.text_addr, lay.off_of_id.at(p.getpc.value) - skip,
                                             lay.off_of_id.at(p.lo.value) - skip, lay.off_of_id.at(p.hi.value) - skip);
      EXPECT_EQ(at, p.target) << "s_getpc_b64 i" << p.getpc.value << "\n" << listing;
    }
  }
}

// ---- the corpus ----------------------------------------------------------------------------------------------------

TEST(RecoverCode, CorpusReassemblesExactlyAndSurvivesGrowth) {
  ASMEVO_REQUIRE_CORPUS(corpus);
  if (!have_object_tools()) GTEST_SKIP() << "llvm-readelf-22, llvm-objcopy-22 or llvm-objdump-22 not found";
  std::vector<fs::path> files;
  for (const char* ext : {".co", ".hsaco"})
    for (auto& p : test::files_with_ext(corpus, ext)) files.push_back(p);
  std::sort(files.begin(), files.end());
  std::size_t objects = 0, skipped = 0, insts = 0, branches = 0, numeric_branches = 0, pairs = 0, numeric_pairs = 0, words = 0,
              prologues = 0, preload_kernels = 0, grown_branches = 0, inserted = 0, notes = 0;
  for (const auto& f : files) {
    ObjectText o;
    if (!read_object(f, o)) {
      ++skipped;  // not gfx90a/gfx942/gfx950 (the corpus also holds gfx908)
      continue;
    }
    SCOPED_TRACE(f.string());
    ++objects;
    auto& enc = encoder(o.target);
    auto rec = codeobject::recover_code(o.input, enc);
    ASSERT_TRUE(rec) << rec.error().str();
    insts += rec->stats.instructions;
    branches += rec->stats.branches;
    numeric_branches += rec->stats.numeric_branches;
    pairs += rec->stats.pc_pairs;
    numeric_pairs += rec->stats.numeric_pc_pairs;
    words += rec->stats.data_words;
    prologues += rec->stats.preload_prologues;
    notes += rec->notes.size();
    for (std::size_t i = 0; i < rec->notes.size() && i < 3; ++i)
      std::printf("  note: %s: %s%s\n", f.filename().c_str(), rec->notes[i].message.c_str(),
                  i == 2 && rec->notes.size() > 3 ? (" (and " + std::to_string(rec->notes.size() - 3) + " more)").c_str() : "");
    for (const auto& [k, n] : o.preload) preload_kernels += n > 0;
    if (rec->stats.data_words == 0) {  // words kept as data may hide branches llvm-objdump counts
      EXPECT_EQ(rec->stats.branches + rec->stats.numeric_branches, objdump_branches(f, o.target));
    }
    // Every kernel that preloads kernargs and begins with the prologue is recognised.
    for (const auto& r : rec->regions)
      if (r.kind == CodeSymbol::Kind::kernel && o.preload[r.symbol] > 0) {
        const Inst* first = nullptr;
        for (const auto& it : r.items)
          if (it.kind == Item::Kind::inst) { first = &it.inst; break; }
        if (first && isa::forms(first->target)[first->form].mnemonic.starts_with("s_load_")) {
          EXPECT_TRUE(r.kernarg_preload_prologue) << r.symbol;
        }
      }
    std::set<std::uint32_t> relocs;
    for (const auto& p : rec->pc_refs)
      if (p.data) relocs.insert({p.lo.value, p.hi.value});
    const DataSections ds{o.input.sections, o.nobits};
    EXPECT_TRUE(reassembles_exactly(enc, *rec, o.text, o.input.text_addr, relocs, ds));
    GrowReport g;
    EXPECT_TRUE(survives_growth(enc, *rec, o.input.text_addr, g, ds));
    grown_branches += g.branches;
    inserted += g.inserted;
  }
  std::printf("[ recover_code corpus ] %zu objects (%zu skipped: other targets), %zu instructions, %zu branches symbolic "
              "(%zu numeric), %zu getpc pairs symbolic (%zu numeric), %zu undecodable words, %zu preload prologues "
              "(%zu kernels preload kernargs), %zu notes; growth: %zu nops inserted, %zu branches still on their target\n",
              objects, skipped, insts, branches, numeric_branches, pairs, numeric_pairs, words, prologues, preload_kernels, notes,
              inserted, grown_branches);
  EXPECT_GT(objects, 0u);
  EXPECT_GT(prologues, 0u);
}

}  // namespace
