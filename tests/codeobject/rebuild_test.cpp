// Tests of codeobject/module.hpp + rebuild.hpp: recover and rebuild every corpus code object and the project's
// own clang-22 kernels, grow code, patch in place, recount resources, refuse ABI changes.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "asmevo/codeobject/compare.hpp"
#include "asmevo/codeobject/module.hpp"
#include "asmevo/codeobject/rebuild.hpp"
#include "asmevo/codeobject/recover.hpp"
#include "asmevo/ir/parser.hpp"
#include "support/corpus.hpp"

namespace {

namespace fs = std::filesystem;
using namespace asmevo;
using namespace asmevo::codeobject;


std::vector<fs::path> example_objects() {
  std::vector<fs::path> v;
  for (const char* t : {"gfx90a", "gfx942", "gfx950", "gfx942-sramecc+xnack-"}) {
    fs::path p = fs::path(ASMEVO_EXAMPLES_DIR) / (std::string("vec_add.") + t + ".co");
    if (fs::exists(p)) v.push_back(p);
  }
  return v;
}

struct Tmp {
  fs::path dir;
  Tmp() {
    std::string pat = (fs::temp_directory_path() / "asmevo-rebuild-test-XXXXXX").string();
    dir = ::mkdtemp(pat.data());
  }
  ~Tmp() { std::error_code ec; fs::remove_all(dir, ec); }
};

/// `llvm-objdump-22 -d` of a file, without the header line that names the file.
std::string objdump(const fs::path& p) {
  const std::string cmd = std::string(ASMEVO_LLVM_OBJDUMP) + " -d '" + p.string() + "' 2>&1";
  std::FILE* pipe = popen(cmd.c_str(), "r");
  std::string out;
  char buf[65536];
  std::size_t n;
  while (pipe && (n = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  if (pipe) pclose(pipe);
  const auto nl = out.find("file format");
  if (nl != std::string::npos) out = out.substr(out.find('\n', nl) + 1);
  return out;
}

void write(const fs::path& p, std::span<const std::uint8_t> b) {
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

struct Recovered {
  ElfFile elf;
  std::unique_ptr<mc::Encoder> enc;
  Module m;
};

std::optional<Recovered> recover_file(const fs::path& p, std::string& why) {
  auto elf = ElfFile::read(p);
  if (!elf) { why = elf.error().str(); return std::nullopt; }
  auto enc = encoder_for(*elf);
  if (!enc) { why = enc.error().str(); return std::nullopt; }
  auto m = recover(*elf, **enc);
  if (!m) { why = m.error().str(); return std::nullopt; }
  return Recovered{std::move(*elf), std::move(*enc), std::move(*m)};
}

/// Roundtrip through the printed text: recover, print, parse, rebuild by relinking; everything must match.
void check_roundtrip(const fs::path& p, std::size_t& instructions) {
  SCOPED_TRACE(p.string());
  std::string why;
  auto r = recover_file(p, why);
  ASSERT_TRUE(r) << why;
  const std::string text = print_module(r->m);
  auto prog = parse_program(text, r->m.target, p.filename().string() + ".s");
  ASSERT_TRUE(prog) << prog.error().str();
  EXPECT_EQ(prog->instruction_count(), r->m.program.instruction_count());
  RebuildOptions opt;
  opt.original = &r->elf;
  opt.allow_patch = false;
  auto k1 = rebuild(std::move(*prog), *r->enc, opt);
  ASSERT_TRUE(k1) << k1.error().str();
  EXPECT_EQ(k1->path, RebuildResult::Path::relinked);
  EXPECT_TRUE(k1->changes.empty()) << k1->changes.front();
  auto e1 = ElfFile::parse(k1->bytes, "k1");
  ASSERT_TRUE(e1) << e1.error().str();
  const Comparison c = compare_objects(r->elf, *e1);
  for (const auto* v : {&c.text, &c.descriptors, &c.metadata, &c.symbols, &c.target, &c.data, &c.relocations})
    for (const auto& d : *v) ADD_FAILURE() << d;
  Tmp t;
  write(t.dir / "k1.co", k1->bytes);
  EXPECT_EQ(objdump(p), objdump(t.dir / "k1.co")) << "llvm-objdump-22 -d differs";
  instructions += r->m.program.instruction_count();
}

TEST(Roundtrip, ProjectKernels) {
  const auto files = example_objects();
  ASSERT_EQ(files.size(), 4u) << "the build makes vec_add.<target>.co for three targets and one with target-id features";
  std::size_t insts = 0;
  for (const auto& f : files) check_roundtrip(f, insts);
  std::printf("[ roundtrip ] %zu clang-22 objects, %zu instructions identical\n", files.size(), insts);
}

TEST(Roundtrip, EveryCorpusObject) {
  ASMEVO_REQUIRE_CORPUS(dir);
  std::size_t ok = 0, insts = 0, refused = 0;
  for (const auto& f : asmevo::test::code_objects(dir)) {
    auto elf = ElfFile::read(f);
    ASSERT_TRUE(elf) << elf.error().str();
    if (!elf->target()) {
      // gfx908 (one Debian blit object): outside asmevo's targets; recovery must say so, not guess.
      std::unique_ptr<mc::Encoder> enc = std::move(*mc::Encoder::create(Target::gfx90a));
      auto m = recover(*elf, *enc);
      ASSERT_FALSE(m);
      EXPECT_EQ(m.error().code, DiagCode::unsupported);
      EXPECT_NE(m.error().message.find(elf->target_info().processor), std::string::npos);
      ++refused;
      continue;
    }
    const auto before = ::testing::Test::HasFailure();
    check_roundtrip(f, insts);
    if (!before && !::testing::Test::HasFailure()) ++ok;
  }
  std::printf("[ roundtrip ] %zu corpus objects identical (%zu instructions); %zu refused as unsupported processors\n", ok,
              insts, refused);
  EXPECT_GE(ok, 60u);
}

// ---------------------------------------------------------------------------------------------------------------
// Growing code.

/// Inserts `s_nop 0` after every seventh instruction of every code region, except inside a kernarg-preload
/// prologue (up to its `.p2align 8`). Returns the ids inserted.
std::set<std::uint32_t> grow(Program& p) {
  std::set<std::uint32_t> added;
  std::vector<Item> out;
  int count = 0;
  bool in_prologue = false;
  for (auto& it : p.items) {
    if (it.kind == Item::Kind::comment && it.text.find("kernarg-preload") != std::string::npos) in_prologue = true;
    if (it.kind == Item::Kind::directive && it.name == ".p2align" && it.text == "8") in_prologue = false;
    if (it.kind == Item::Kind::directive && it.name == ".type") count = 0;
    const bool is_inst = it.kind == Item::Kind::inst;
    out.push_back(std::move(it));
    if (is_inst && !in_prologue && ++count % 7 == 0) {
      auto nop = parse_inst("s_nop 0", p.target);
      EXPECT_TRUE(nop);
      nop->id = p.fresh_id();
      added.insert(nop->id.value);
      Item n;
      n.kind = Item::Kind::inst;
      n.inst = std::move(*nop);
      out.push_back(std::move(n));
    }
  }
  p.items = std::move(out);
  return added;
}

struct Layout {
  std::map<std::uint32_t, std::uint64_t> addr_of;  // id -> address
  std::map<std::uint64_t, std::uint32_t> id_at;    // address -> id
};

/// Addresses of a program's instructions in a linked object: the program's own layout of .text (LLVM's, from
/// encode_placed) placed at the object's .text address. The branch bytes checked against it are the linked ones.
Layout layout_of(const ElfFile& e, const Program& p, mc::Encoder& enc) {
  Layout l;
  const Section* t = e.find_section(".text");
  auto placed = enc.encode_placed(p);
  EXPECT_TRUE(placed) << placed.error().str();
  if (!placed) return l;
  std::size_t k = 0;
  for (const auto& it : p.items) {
    if (it.kind != Item::Kind::inst) continue;
    const auto a = t->addr + (*placed)[k++].offset;
    l.addr_of[it.inst.id.value] = a;
    l.id_at[a] = it.inst.id.value;
  }
  return l;
}

/// Branch target address of a SOPP branch at `addr` with bytes `b` (CDNA3 ISA guide: PC + 4 + 4 * simm16).
std::optional<std::uint64_t> branch_target(const std::string& mnemonic, std::span<const std::uint8_t> b, std::uint64_t addr) {
  if (!(mnemonic.starts_with("s_branch") || mnemonic.starts_with("s_cbranch_"))) return std::nullopt;
  if (mnemonic.starts_with("s_cbranch_g_fork") || mnemonic.starts_with("s_cbranch_i_fork") || mnemonic.starts_with("s_cbranch_join"))
    return std::nullopt;
  const auto simm = static_cast<std::int16_t>(b[0] | (b[1] << 8));
  return addr + 4 + 4 * static_cast<std::int64_t>(simm);
}

/// PC-relative targets: s_getpc_b64 s[n:n+1] followed by s_add_u32 sn, sn, lit / s_addc_u32 sn+1, sn+1, lit.
std::map<std::uint32_t, std::uint64_t> pcrel_targets(const ElfFile& e, const Layout& l, const Program& p) {
  std::map<std::uint32_t, std::uint64_t> out;  // id of the s_getpc_b64 -> target address
  const Section* t = e.find_section(".text");
  const auto bytes = e.data(*t);
  std::vector<const Inst*> insts;
  for (const auto& it : p.items)
    if (it.kind == Item::Kind::inst) insts.push_back(&it.inst);
  const auto lit = [&](std::uint32_t id) -> std::optional<std::uint32_t> {
    auto a = l.addr_of.find(id);
    if (a == l.addr_of.end()) return std::nullopt;
    const auto off = a->second - t->addr + 4;
    if (off + 4 > bytes.size()) return std::nullopt;
    return bytes[off] | (bytes[off + 1] << 8) | (bytes[off + 2] << 16) | (static_cast<std::uint32_t>(bytes[off + 3]) << 24);
  };
  for (std::size_t i = 0; i < insts.size(); ++i) {
    if (mnemonic_text(*insts[i]) != "s_getpc_b64") continue;
    const std::string reg = print_inst(*insts[i]).substr(std::string("s_getpc_b64 ").size());
    // s[a:b]
    unsigned a = 0, b = 0;
    if (std::sscanf(reg.c_str(), "s[%u:%u]", &a, &b) != 2) continue;
    std::optional<std::uint32_t> lo, hi;
    for (std::size_t j = i + 1; j < insts.size() && j < i + 12 && (!lo || !hi); ++j) {
      const std::string s = print_inst(*insts[j]);
      if (s.starts_with("s_add_u32 s" + std::to_string(a) + ", s" + std::to_string(a) + ",") && insts[j]->ops.size() >= 3 &&
          insts[j]->ops[2].kind == Operand::Kind::expr)
        lo = lit(insts[j]->id.value);
      if (s.starts_with("s_addc_u32 s" + std::to_string(b) + ", s" + std::to_string(b) + ",") && insts[j]->ops.size() >= 3 &&
          insts[j]->ops[2].kind == Operand::Kind::expr)
        hi = lit(insts[j]->id.value);
    }
    if (!lo || !hi) continue;
    const std::uint64_t off = (static_cast<std::uint64_t>(*hi) << 32) | *lo;
    out[insts[i]->id.value] = l.addr_of.at(insts[i]->id.value) + 4 + off;
  }
  return out;
}

/// Where `addr` is: the allocated section holding it, the offset in it, and up to 16 of its bytes there
/// (none for SHT_NOBITS).
struct Place {
  std::string section;
  std::uint64_t offset = 0;
  std::vector<std::uint8_t> bytes;
  bool operator==(const Place&) const = default;
};
std::optional<Place> place_of(const ElfFile& e, std::uint64_t addr) {
  for (const auto& s : e.sections())
    if (s.index != 0 && (s.flags & 2) && addr >= s.addr && addr < s.addr + s.size) {
      Place p{s.name, addr - s.addr, {}};
      auto d = e.data(s);
      if (!d.empty()) {
        auto b = d.subspan(static_cast<std::size_t>(p.offset), std::min<std::size_t>(16, d.size() - p.offset));
        p.bytes.assign(b.begin(), b.end());
      }
      return p;
    }
  return std::nullopt;
}

void check_growth(const fs::path& file, std::size_t& branches, std::size_t& pcrels, std::size_t& grown) {
  SCOPED_TRACE(file.string());
  std::string why;
  auto r = recover_file(file, why);
  ASSERT_TRUE(r) << why;
  // K0: where every instruction is (from recovery), where every branch and PC-relative reference lands.
  const Program& p0 = r->m.program;
  Layout l0;
  for (std::uint32_t id = 0; id < r->m.inst_addr.size(); ++id)
    if (r->m.inst_addr[id] != ~std::uint64_t{0}) l0.addr_of[id] = r->m.inst_addr[id], l0.id_at[r->m.inst_addr[id]] = id;
  const Section* t0 = r->elf.find_section(".text");
  const auto text0 = r->elf.data(*t0);
  std::map<std::uint32_t, std::uint32_t> branch0;  // branch id -> target id in K0
  for (const auto& it : p0.items) {
    if (it.kind != Item::Kind::inst) continue;
    const auto a = l0.addr_of.at(it.inst.id.value);
    if (auto tgt = branch_target(mnemonic_text(it.inst), text0.subspan(a - t0->addr), a); tgt && l0.id_at.count(*tgt))
      branch0[it.inst.id.value] = l0.id_at.at(*tgt);
  }
  const auto pc0 = pcrel_targets(r->elf, l0, p0);

  Program p1 = p0;
  const auto added = grow(p1);
  RebuildOptions opt;
  opt.original = &r->elf;
  opt.recovered = &r->m;
  auto k1 = rebuild(p1, *r->enc, opt);
  ASSERT_TRUE(k1) << k1.error().str();
  EXPECT_EQ(k1->path, RebuildResult::Path::relinked);
  auto e1 = ElfFile::parse(k1->bytes, "grown");
  ASSERT_TRUE(e1) << e1.error().str();
  const Section* t1 = e1->find_section(".text");
  ASSERT_GT(t1->size, t0->size) << "the code did not grow";
  grown += added.size();

  // Every branch lands on the instruction it landed on in K0.
  const Layout l1 = layout_of(*e1, p1, *r->enc);
  const auto text1 = e1->data(*t1);
  for (const auto& [b, target] : branch0) {
    const auto a = l1.addr_of.at(b);
    const Inst* in = p1.find(InstId{b});
    auto tgt = branch_target(mnemonic_text(*in), text1.subspan(a - t1->addr), a);
    ASSERT_TRUE(tgt);
    auto landed = l1.id_at.find(*tgt);
    ASSERT_NE(landed, l1.id_at.end()) << "branch i" << b << " lands between instructions";
    EXPECT_EQ(landed->second, target) << "branch i" << b << " lands on i" << landed->second << ", in K0 on i" << target;
    ++branches;
  }
  // Every PC-relative reference reaches the same bytes (data: 16 bytes there; code: the same instruction).
  const auto pc1 = pcrel_targets(*e1, l1, p1);
  for (const auto& [id, a0] : pc0) {
    ASSERT_TRUE(pc1.count(id)) << "the PC-relative pair after i" << id << " is gone";
    const auto a1 = pc1.at(id);
    if (l0.id_at.count(a0)) {
      ASSERT_TRUE(l1.id_at.count(a1)) << "i" << id << " refers to code that is no longer an instruction start";
      EXPECT_EQ(l1.id_at.at(a1), l0.id_at.at(a0));
    } else {
      const auto w0 = place_of(r->elf, a0), w1 = place_of(*e1, a1);
      ASSERT_TRUE(w0) << "i" << id << ": K0's PC-relative reference is outside every section";
      ASSERT_TRUE(w1) << "i" << id << ": the grown object's PC-relative reference is outside every section";
      EXPECT_EQ(w0->section, w1->section) << "i" << id;
      EXPECT_EQ(w0->offset, w1->offset) << "i" << id;
      EXPECT_EQ(w0->bytes, w1->bytes) << "i" << id << ": PC-relative data reference reaches other bytes";
    }
    ++pcrels;
  }
  // Descriptors and metadata are still valid: read back, every descriptor's entry is its kernel's symbol,
  // descriptor and metadata agree (rebuild checks that too), the ABI is K0's.
  EXPECT_TRUE(check_abi(r->elf, *e1).empty());
  auto md = read_metadata(*e1);
  ASSERT_TRUE(md);
  auto ks = kernels(*md);
  ASSERT_TRUE(ks);
  for (const auto& k : *ks) {
    const auto kdb = codeobject::detail::descriptor_bytes(*e1, k.symbol);
    ASSERT_EQ(kdb.size(), 64u);
    auto kd = KernelDescriptor::from_bytes(kdb);
    ASSERT_TRUE(kd);
    const Symbol* kds = e1->find_symbol(k.symbol);
    const Symbol* code = e1->find_symbol(k.symbol.substr(0, k.symbol.size() - 3));
    ASSERT_TRUE(kds && code);
    EXPECT_EQ(kds->value + static_cast<std::uint64_t>(kd->kernel_code_entry_byte_offset()), code->value);
    EXPECT_EQ(code->value % 256, 0u) << "kernel entry must stay 256-byte aligned";
    EXPECT_TRUE(check_against_metadata(*kd, *e1->target(), static_cast<int>(e1->code_object_version()), k.raw).empty());
  }
}

TEST(Grow, ProjectKernels) {
  std::size_t b = 0, pc = 0, g = 0;
  for (const auto& f : example_objects()) check_growth(f, b, pc, g);
  std::printf("[ grow ] %zu s_nop inserted; %zu branches and %zu PC-relative references still reach their targets\n", g, b, pc);
  EXPECT_GT(b, 0u);
  EXPECT_GE(pc, 12u) << "poly_eval reaches poly_term, poly_coeffs and poly_bias PC-relatively in each of the four objects";
}

TEST(Grow, EveryCorpusObject) {
  ASMEVO_REQUIRE_CORPUS(dir);
  std::size_t b = 0, pc = 0, g = 0, n = 0;
  for (const auto& f : asmevo::test::code_objects(dir)) {
    auto elf = ElfFile::read(f);
    ASSERT_TRUE(elf);
    if (!elf->target()) continue;  // gfx908: see Roundtrip.EveryCorpusObject
    check_growth(f, b, pc, g);
    ++n;
  }
  std::printf("[ grow ] %zu objects, %zu s_nop inserted; %zu branches and %zu PC-relative references still reach their targets\n",
              n, g, b, pc);
  EXPECT_GT(b, 2000u) << "the corpus has over 2,000 branches";
  // The corpus objects compute no address PC-relatively (no s_getpc_b64 pair); Grow.ProjectKernels covers those.
}

// ---------------------------------------------------------------------------------------------------------------
// In-place patch, resource recount, ABI refusal.

std::optional<Recovered> vec_add_gfx942() {
  std::string why;
  return recover_file(fs::path(ASMEVO_EXAMPLES_DIR) / "vec_add.gfx942.co", why);
}

Item* first_inst(Program& p, std::string_view mnemonic) {
  for (auto& it : p.items)
    if (it.kind == Item::Kind::inst && mnemonic_text(it.inst) == mnemonic) return &it;
  return nullptr;
}

TEST(Patch, SizeNeutralEditPatchesTextOnly) {
  auto r = vec_add_gfx942();
  ASSERT_TRUE(r);
  Program p = r->m.program;
  Item* e = first_inst(p, "s_endpgm");
  ASSERT_NE(e, nullptr);
  // Replace the first s_endpgm (4 bytes) by s_nop 3 (4 bytes, new id): every K0 instruction keeps its address.
  auto nop = parse_inst("s_nop 3", p.target);
  ASSERT_TRUE(nop);
  nop->id = p.fresh_id();
  const auto at = r->m.inst_addr.at(e->inst.id.value);
  e->inst = *nop;
  RebuildOptions opt;
  opt.original = &r->elf;
  opt.recovered = &r->m;
  auto k1 = rebuild(p, *r->enc, opt);
  ASSERT_TRUE(k1) << k1.error().str();
  EXPECT_EQ(k1->path, RebuildResult::Path::patched) << k1->why_relinked;
  // Only the four bytes of that instruction differ, everywhere in the file.
  const auto k0 = r->elf.bytes();
  ASSERT_EQ(k1->bytes.size(), k0.size());
  const Section* t = r->elf.find_section(".text");
  std::vector<std::size_t> diff;
  for (std::size_t i = 0; i < k0.size(); ++i)
    if (k0[i] != k1->bytes[i]) diff.push_back(i);
  ASSERT_FALSE(diff.empty());
  for (auto i : diff) EXPECT_TRUE(i >= t->offset + (at - t->addr) && i < t->offset + (at - t->addr) + 4) << "byte " << i;
  // s_nop 3 is SOPP opcode 0, simm16 3: bytes 03 00 80 bf.
  const std::size_t o = t->offset + (at - t->addr);
  EXPECT_EQ(k1->bytes[o], 0x03);
  EXPECT_EQ(k1->bytes[o + 3], 0xbf);

  // The same edit relinked gives the same bytes in .text: the patch path and the relink path agree.
  opt.allow_patch = false;
  auto k2 = rebuild(p, *r->enc, opt);
  ASSERT_TRUE(k2) << k2.error().str();
  EXPECT_EQ(k2->path, RebuildResult::Path::relinked);
  auto e1 = ElfFile::parse(k1->bytes, "p"), e2 = ElfFile::parse(k2->bytes, "r");
  ASSERT_TRUE(e1 && e2);
  EXPECT_TRUE(compare_objects(*e1, *e2).identical());
}

TEST(Patch, GrowingEditRelinksAndSaysWhy) {
  auto r = vec_add_gfx942();
  ASSERT_TRUE(r);
  Program p = r->m.program;
  grow(p);
  RebuildOptions opt;
  opt.original = &r->elf;
  opt.recovered = &r->m;
  auto k1 = rebuild(p, *r->enc, opt);
  ASSERT_TRUE(k1) << k1.error().str();
  EXPECT_EQ(k1->path, RebuildResult::Path::relinked);
  EXPECT_NE(k1->why_relinked.find("moves"), std::string::npos) << k1->why_relinked;
}

TEST(Recount, MoreRegistersRaiseDescriptorAndMetadata) {
  auto r = vec_add_gfx942();
  ASSERT_TRUE(r);
  Program p = r->m.program;
  Item* e = first_inst(p, "s_endpgm");
  ASSERT_NE(e, nullptr);
  auto use = parse_inst("v_mov_b32_e32 v100, 0", p.target);
  ASSERT_TRUE(use);
  use->id = p.fresh_id();
  Item n;
  n.kind = Item::Kind::inst;
  n.inst = *use;
  p.items.insert(p.items.begin() + (e - p.items.data()), n);
  RebuildOptions opt;
  opt.original = &r->elf;
  opt.recovered = &r->m;
  auto k1 = rebuild(p, *r->enc, opt);
  ASSERT_TRUE(k1) << k1.error().str();
  ASSERT_FALSE(k1->changes.empty());
  auto e1 = ElfFile::parse(k1->bytes, "k1");
  ASSERT_TRUE(e1);
  auto md = read_metadata(*e1);
  ASSERT_TRUE(md);
  auto ks = kernels(*md);
  ASSERT_TRUE(ks);
  bool found = false;
  for (const auto& k : *ks) {
    if (k.name != "vec_add") continue;
    found = true;
    EXPECT_GE(k.vgpr_count, 101u);
    auto kd = KernelDescriptor::from_bytes(codeobject::detail::descriptor_bytes(*e1, k.symbol));
    ASSERT_TRUE(kd);
    EXPECT_GE(kd->allocated_vgprs(), 101);
  }
  EXPECT_TRUE(found);
}

TEST(Abi, ChangedArgumentMetadataIsRefused) {
  auto r = vec_add_gfx942();
  ASSERT_TRUE(r);
  Program p = r->m.program;
  bool edited = false;
  for (auto& it : p.items)
    if (it.kind == Item::Kind::metadata) {
      // Rename the first argument of the first kernel: harmless to the code, but host-visible metadata changes.
      auto md = r->m.metadata;
      md["amdhsa.kernels"][0][".args"][0][".name"] = "renamed_arg";
      it.text = to_yaml(md);
      edited = true;
    }
  ASSERT_TRUE(edited);
  RebuildOptions opt;
  opt.original = &r->elf;
  opt.recovered = &r->m;
  auto k1 = rebuild(p, *r->enc, opt);
  ASSERT_FALSE(k1);
  EXPECT_EQ(k1.error().code, DiagCode::abi_error) << k1.error().str();
  EXPECT_NE(k1.error().message.find(".args"), std::string::npos) << k1.error().str();
}

TEST(Abi, RemovedKernelIsRefused) {
  auto r = vec_add_gfx942();
  ASSERT_TRUE(r);
  // Drop the last kernel's descriptor block and its metadata entry: the object links, but a kernel is gone.
  Program p = r->m.program;
  const std::string victim = r->m.kernels.back().name;
  std::erase_if(p.items, [&](const Item& it) { return it.kind == Item::Kind::kernel && it.kernel.name == victim; });
  for (auto& it : p.items)
    if (it.kind == Item::Kind::metadata) {
      auto md = r->m.metadata;
      auto& ks = md["amdhsa.kernels"];
      for (std::size_t i = 0; i < ks.size(); ++i)
        if (ks[i][".name"] == victim) { ks.erase(i); break; }
      it.text = to_yaml(md);
    }
  RebuildOptions opt;
  opt.original = &r->elf;
  auto k1 = rebuild(p, *r->enc, opt);
  ASSERT_FALSE(k1);
  EXPECT_EQ(k1.error().code, DiagCode::abi_error);
  EXPECT_NE(k1.error().message.find(victim), std::string::npos) << k1.error().str();
}

Item inst_item(Program& p, const char* text) {
  auto in = parse_inst(text, p.target);
  EXPECT_TRUE(in) << text;
  in->id = p.fresh_id();
  Item n;
  n.kind = Item::Kind::inst;
  n.inst = *in;
  return n;
}

TEST(Patch, AbsoluteAddressesAndSymbolChangesAreNotPatched) {
  auto r = vec_add_gfx942();
  ASSERT_TRUE(r);
  RebuildOptions opt;
  opt.original = &r->elf;
  opt.recovered = &r->m;
  {
    Program p = r->m.program;
    Item* e = first_inst(p, "s_endpgm");
    ASSERT_NE(e, nullptr);
    *e = inst_item(p, "s_mov_b32 s4, poly_coeffs@abs32@lo");
    auto k1 = rebuild(p, *r->enc, opt);
    // An absolute address needs a dynamic relocation: the patch path leaves it to the linker, and ld.lld-22
    // refuses R_AMDGPU_ABS32_LO in a shared code object. Never silently patched with a link-time address.
    ASSERT_FALSE(k1) << "patched or relinked an absolute address: " << to_string(k1->path);
    EXPECT_NE((k1.error().message + k1.error().text).find("relocation"), std::string::npos) << k1.error().str();
  }
  {
    // Dropping `.globl vec_add` keeps every byte of .text; the patch path must still see the change, and the
    // relinked object loses a dynamic symbol: refused as an ABI change.
    Program p = r->m.program;
    const auto n = std::erase_if(p.items, [](const Item& it) {
      return it.kind == Item::Kind::directive && it.name == ".globl" && it.text == "vec_add";
    });
    ASSERT_EQ(n, 1u);
    auto k1 = rebuild(p, *r->enc, opt);
    ASSERT_FALSE(k1);
    EXPECT_EQ(k1.error().code, DiagCode::abi_error) << k1.error().str();
  }
}

TEST(Recount, ScratchWithoutAPrivateSegmentIsRefused) {
  auto r = vec_add_gfx942();
  ASSERT_TRUE(r);
  Program p = r->m.program;
  Item* e = first_inst(p, "s_endpgm");
  ASSERT_NE(e, nullptr);
  p.items.insert(p.items.begin() + (e - p.items.data()), inst_item(p, "scratch_store_dword v0, v1, off"));
  auto k1 = rebuild(p, *r->enc);
  ASSERT_FALSE(k1);
  EXPECT_NE(k1.error().message.find("private segment"), std::string::npos) << k1.error().str();
}

TEST(Prologue, GrowingTheKernargPreloadPrologueIsRefused) {
  ASMEVO_REQUIRE_CORPUS(dir);
  std::string why;
  auto r = recover_file(dir / "triton" / "vec_add_f32.gfx942.hsaco", why);
  ASSERT_TRUE(r) << why;
  Program p = r->m.program;
  // Insert 40 eight-byte instructions right after the prologue's first instruction: it no longer fits 256 bytes.
  std::size_t at = 0;
  for (; at < p.items.size(); ++at)
    if (p.items[at].kind == Item::Kind::comment && p.items[at].text.find("kernarg-preload") != std::string::npos) break;
  ASSERT_LT(at, p.items.size()) << "Triton's gfx942 kernels start with the kernarg-preload prologue (corpus README)";
  while (p.items[at].kind != Item::Kind::inst) ++at;
  for (int i = 0; i < 40; ++i) p.items.insert(p.items.begin() + static_cast<std::ptrdiff_t>(at + 1), inst_item(p, "v_mov_b32 v0, 0x12345678"));
  auto k1 = rebuild(p, *r->enc);
  ASSERT_FALSE(k1);
  EXPECT_NE(k1.error().message.find("entry + 256"), std::string::npos) << k1.error().str();
}

TEST(Recover, DynamicRelocationsAreRefused) {
  // A global initialised with another's address: the loader fills it through a dynamic relocation.
  Tmp t;
  std::ofstream(t.dir / "d.hip") << "#define KERNEL extern \"C\" __attribute__((global))\n"
                                    "__attribute__((device)) float bias[4];\n"
                                    "__attribute__((device)) float* ptr = &bias[1];\n"
                                    "KERNEL void k(float* out) { out[0] = *ptr; }\n";
  const std::string cc = std::string(ASMEVO_CLANG) + " -x hip --offload-arch=gfx942 --cuda-device-only --no-gpu-bundle-output "
                         "-nogpuinc -nogpulib -O3 -c '" + (t.dir / "d.hip").string() + "' -o '" + (t.dir / "d.co").string() + "'";
  ASSERT_EQ(std::system(cc.c_str()), 0) << cc;
  auto elf = ElfFile::read(t.dir / "d.co");
  ASSERT_TRUE(elf) << elf.error().str();
  ASSERT_FALSE(elf->relocations().empty()) << "clang-22 should have made a dynamic relocation for ptr";
  auto enc = encoder_for(*elf);
  ASSERT_TRUE(enc);
  auto m = recover(*elf, **enc);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().code, DiagCode::unsupported);
  EXPECT_NE(m.error().message.find("dynamic relocation"), std::string::npos) << m.error().str();
}

// ---------------------------------------------------------------------------------------------------------------
// Bad input.

TEST(Recover, MetadataThatDisagreesWithTheDescriptorIsNamed) {
  auto r = vec_add_gfx942();
  ASSERT_TRUE(r);
  // Change kernarg_size (descriptor bytes 8..11) of the first kernel's descriptor in a copy of K0.
  std::vector<std::uint8_t> b(r->elf.bytes().begin(), r->elf.bytes().end());
  const Symbol* kd = r->elf.find_symbol(r->m.kernels.front().name + ".kd");
  ASSERT_NE(kd, nullptr);
  const Section* ro = r->elf.find_section(".rodata");
  b[ro->offset + (kd->value - ro->addr) + 8] ^= 0x40;
  auto bad = ElfFile::parse(b, "bad.co");
  ASSERT_TRUE(bad);
  auto m = recover(*bad, *r->enc);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().code, DiagCode::object_error);
  EXPECT_NE(m.error().message.find("kernarg"), std::string::npos) << m.error().str();
  EXPECT_NE(m.error().message.find(r->m.kernels.front().name), std::string::npos) << m.error().str();
}

}  // namespace
