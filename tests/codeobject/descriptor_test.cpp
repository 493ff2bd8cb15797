// Tests of codeobject/descriptor.hpp against LLVM 22: every kernel descriptor of the corpus and of the clang-22
// examples goes bytes -> to_directives -> llvm-mc-22 -> bytes (equal but for the linker's entry offset), our
// from_directives agrees with llvm-mc, fields() agrees with llvm-objdump-22's decoding, and the metadata check is
// silent on real objects but names every mutated field.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "asmevo/codeobject/descriptor.hpp"
#include "support/corpus.hpp"

// A small ELF reader of our own (not codeobject/elf.hpp), so the oracle side stays independent of the library.
namespace asmevo::test::kd {

/// One kernel of a code object: its `.kd` bytes and its metadata map (if the note has one).
struct KernelInfo {
  std::string name;
  std::vector<std::uint8_t> kd;
  nlohmann::ordered_json meta;  // null when absent
};

/// What a test needs from an ELF code object (or a relocatable object from llvm-mc).
struct CodeObject {
  std::string error;              // non-empty: not readable
  std::uint32_t e_flags = 0;
  int abi_version = 0;
  std::string mcpu;               // gfx90a, gfx942, gfx908 ... from e_flags (EF_AMDGPU_MACH)
  std::optional<Target> target;   // asmevo's target, when it is one
  int cov = 0;                    // code object version from EI_ABIVERSION (2 -> 4, 3 -> 5, 4 -> 6)
  int xnack = 0, sramecc = 0;     // 0 unsupported/any, 1 on, -1 off
  std::vector<KernelInfo> kernels;

  /// The target ID as `.amdgcn_target` wants it, and the matching -mattr for llvm-mc.
  [[nodiscard]] std::string target_id() const {
    std::string s = "amdgcn-amd-amdhsa--" + mcpu;
    if (sramecc) s += sramecc > 0 ? ":sramecc+" : ":sramecc-";
    if (xnack) s += xnack > 0 ? ":xnack+" : ":xnack-";
    return s;
  }
  [[nodiscard]] std::string mattr() const {
    std::string s;
    if (sramecc) s += sramecc > 0 ? "+sramecc" : "-sramecc";
    if (xnack) s += std::string(s.empty() ? "" : ",") + (xnack > 0 ? "+xnack" : "-xnack");
    return s;
  }
  /// xnack on or "any" (what the assembler's isXnackOnOrAny answers).
  [[nodiscard]] bool xnack_on_or_any() const { return xnack >= 0; }
};

inline std::vector<std::uint8_t> read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Reads an ELF64 little-endian AMDGPU object: e_flags, `.kd` OBJECT symbols and NT_AMDGPU_METADATA.
/// Constants: llvm/BinaryFormat/ELF.h (EF_AMDGPU_MACH_*, EF_AMDGPU_FEATURE_*_V4, NT_AMDGPU_METADATA = 32).
inline CodeObject read_code_object(const std::filesystem::path& path) {
  CodeObject co;
  const auto d = read_bytes(path);
  auto u = [&](std::size_t off, int n) -> std::uint64_t {
    std::uint64_t v = 0;
    if (off + static_cast<std::size_t>(n) > d.size()) return 0;
    for (int i = 0; i < n; ++i) v |= std::uint64_t{d[off + static_cast<std::size_t>(i)]} << (8 * i);
    return v;
  };
  if (d.size() < 64 || d[0] != 0x7f || d[1] != 'E' || d[2] != 'L' || d[3] != 'F' || d[4] != 2 || d[5] != 1) {
    co.error = "not an ELF64 little-endian file";
    return co;
  }
  co.abi_version = d[8];
  co.cov = co.abi_version + 2;
  co.e_flags = static_cast<std::uint32_t>(u(0x30, 4));
  switch (co.e_flags & 0xff) {
    case 0x30: co.mcpu = "gfx908"; break;
    case 0x3f: co.mcpu = "gfx90a"; break;
    case 0x40: case 0x4b: case 0x4c: co.mcpu = "gfx942"; break;
    case 0x4f: co.mcpu = "gfx950"; break;
    default: co.mcpu = "mach" + std::to_string(co.e_flags & 0xff); break;
  }
  co.target = parse_target(co.mcpu);
  switch (co.e_flags & 0x300) { case 0x200: co.xnack = -1; break; case 0x300: co.xnack = 1; break; default: break; }
  switch (co.e_flags & 0xc00) { case 0x800: co.sramecc = -1; break; case 0xc00: co.sramecc = 1; break; default: break; }

  struct Sec { std::uint32_t name, type; std::uint64_t addr, off, size; std::uint32_t link; };
  const auto shoff = u(0x28, 8);
  const auto shentsize = u(0x3a, 2), shnum = u(0x3c, 2), shstrndx = u(0x3e, 2);
  std::vector<Sec> secs;
  for (std::uint64_t i = 0; i < shnum; ++i) {
    const auto b = shoff + i * shentsize;
    secs.push_back({static_cast<std::uint32_t>(u(b, 4)), static_cast<std::uint32_t>(u(b + 4, 4)), u(b + 16, 8),
                    u(b + 24, 8), u(b + 32, 8), static_cast<std::uint32_t>(u(b + 40, 4))});
  }
  auto cstr = [&](std::uint64_t off) {
    std::string s;
    while (off < d.size() && d[off]) s += static_cast<char>(d[off++]);
    return s;
  };
  (void)shstrndx;
  std::map<std::string, nlohmann::ordered_json> meta_by_name;
  for (const auto& s : secs) {
    if (s.type == 7) {  // SHT_NOTE
      for (std::uint64_t p = s.off; p + 12 <= s.off + s.size;) {
        const auto namesz = u(p, 4), descsz = u(p + 4, 4), type = u(p + 8, 4);
        const std::uint64_t name_off = p + 12, desc_off = name_off + ((namesz + 3) & ~std::uint64_t{3});
        if (type == 32 && cstr(name_off) == "AMDGPU" && desc_off + descsz <= d.size()) {
          try {
            auto j = nlohmann::ordered_json::from_msgpack(d.begin() + static_cast<long>(desc_off),
                                                          d.begin() + static_cast<long>(desc_off + descsz));
            if (j.contains("amdhsa.kernels"))
              for (auto& k : j["amdhsa.kernels"])
                if (k.contains(".name")) meta_by_name[k[".name"].get<std::string>()] = k;
          } catch (const std::exception& e) {
            co.error = std::string("metadata: ") + e.what();
          }
        }
        p = desc_off + ((descsz + 3) & ~std::uint64_t{3});
      }
    }
  }
  for (const auto& s : secs) {
    if (s.type != 2) continue;  // SHT_SYMTAB
    const auto& strtab = secs.at(s.link);
    for (std::uint64_t p = s.off; p + 24 <= s.off + s.size; p += 24) {
      const std::string name = cstr(strtab.off + u(p, 4));
      const auto info = d[p + 4];
      const auto shndx = u(p + 6, 2);
      const auto value = u(p + 8, 8), size = u(p + 16, 8);
      if ((info & 0xf) != 1 || name.size() < 4 || name.compare(name.size() - 3, 3, ".kd") != 0) continue;
      if (shndx == 0 || shndx >= secs.size() || size != 64) continue;
      KernelInfo k;
      k.name = name.substr(0, name.size() - 3);
      bool dup = false;
      for (const auto& e : co.kernels) dup |= e.name == k.name;
      if (dup) continue;
      const auto& sec = secs[shndx];
      const auto off = sec.off + (value - sec.addr);
      if (off + 64 > d.size()) continue;
      k.kd.assign(d.begin() + static_cast<long>(off), d.begin() + static_cast<long>(off + 64));
      if (auto it = meta_by_name.find(k.name); it != meta_by_name.end()) k.meta = it->second;
      co.kernels.push_back(std::move(k));
    }
  }
  return co;
}

/// Runs a shell command; returns its exit status and stdout+stderr.
inline std::pair<int, std::string> run(const std::string& cmd) {
  std::string out;
  FILE* f = popen((cmd + " 2>&1").c_str(), "r");
  if (!f) return {-1, "popen failed"};
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  const int st = pclose(f);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

/// A fresh scratch folder for one test.
inline std::filesystem::path scratch_dir(const std::string& tag) {
  auto p = std::filesystem::temp_directory_path() /
           ("asmevo_kd_" + tag + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p;
}

/// `.amdhsa_kernel` blocks as llvm-objdump prints them for `.rodata`: kernel -> (directive -> value).
inline std::map<std::string, std::map<std::string, std::string>> objdump_descriptors(const std::string& objdump,
                                                                                   const std::filesystem::path& co) {
  std::map<std::string, std::map<std::string, std::string>> out;
  auto [rc, text] = run("'" + objdump + "' -d -j .rodata '" + co.string() + "'");
  if (rc != 0) return out;
  std::istringstream in(text);
  std::string line, cur;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string a, b;
    ls >> a >> b;
    if (a == ".amdhsa_kernel") cur = b;
    else if (a == ".end_amdhsa_kernel") cur.clear();
    else if (!cur.empty() && a.rfind(".amdhsa_", 0) == 0) out[cur][a] = b;
  }
  return out;
}

/// How many kernels the corpus holds, counted by llvm-objdump-22 rather than by the readers under test: the
/// `.amdhsa_kernel` blocks it decodes from each code object's `.rodata`, split by whether the object's target (from
/// e_flags) is one asmevo handles. The tests below compare what they checked with this count, so the corpus may grow
/// without editing them and a kernel that a reader silently drops still fails them.
struct Census {
  int files = 0;
  int ours = 0;                        // kernels in objects for gfx90a, gfx942 or gfx950
  std::map<std::string, int> other;    // mcpu -> kernels in objects for targets asmevo does not handle
  std::vector<std::string> undecoded;  // objects llvm-objdump decoded no kernel from
};

inline Census objdump_census(const std::string& objdump, const std::vector<std::filesystem::path>& files) {
  Census c;
  for (const auto& path : files) {
    ++c.files;
    const auto n = static_cast<int>(objdump_descriptors(objdump, path).size());
    if (n == 0) c.undecoded.push_back(path.string());
    const auto co = read_code_object(path);
    if (co.target) c.ours += n;
    else c.other[co.mcpu] += n;
  }
  return c;
}

}  // namespace asmevo::test::kd

namespace {

namespace fs = std::filesystem;
namespace tk = asmevo::test::kd;
using namespace asmevo;
using namespace asmevo::codeobject;

using Pairs = std::vector<std::pair<std::string, std::string>>;

/// The code objects clang-22 builds from examples/kernels (empty when clang-22 was not found at configure time).
std::vector<fs::path> example_objects() {
  std::vector<fs::path> v;
#ifdef ASMEVO_EXAMPLES_DIR
  for (const char* t : {"gfx90a", "gfx942", "gfx950"}) {
    fs::path p = fs::path(ASMEVO_EXAMPLES_DIR) / (std::string("vec_add.") + t + ".co");
    if (fs::exists(p)) v.push_back(p);
  }
#endif
  return v;
}

/// The corpus's kernel count from llvm-objdump (see Census); fails the calling test if the corpus is empty or an
/// object holds no kernel llvm-objdump can decode, since a count of zero would make every comparison vacuous.
tk::Census corpus_census(const std::vector<fs::path>& files) {
  auto c = tk::objdump_census(ASMEVO_LLVM_OBJDUMP_KD, files);
  EXPECT_GT(c.ours, 0) << "no kernel of asmevo's targets in " << c.files << " code objects";
  for (const auto& f : c.undecoded) ADD_FAILURE() << f << ": llvm-objdump decoded no kernel descriptor";
  return c;
}

/// Bytes equal except kernel_code_entry_byte_offset (16..23); the differing byte offsets otherwise.
std::string diff_except_entry(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b) {
  std::string s;
  if (a.size() != 64 || b.size() != 64) return "size " + std::to_string(a.size()) + " vs " + std::to_string(b.size());
  for (std::size_t i = 0; i < 64; ++i)
    if ((i < 16 || i >= 24) && a[i] != b[i]) {
      char buf[64];
      std::snprintf(buf, sizeof buf, " [%zu] %02x!=%02x", i, a[i], b[i]);
      s += buf;
    }
  return s;
}

std::string block_text(const std::string& name, const Pairs& pairs) {
  std::string s = "\t.amdhsa_kernel " + name + "\n";
  for (const auto& [k, v] : pairs) s += "\t\t" + k + " " + v + "\n";
  return s + "\t.end_amdhsa_kernel\n";
}

/// Assembles `.amdhsa_kernel` blocks for one target ID with llvm-mc-22 and returns the `.kd` bytes it made,
/// or an error string (llvm-mc's diagnostics).
struct Assembled {
  std::string error;
  std::map<std::string, std::vector<std::uint8_t>> kd;
};
Assembled assemble(const tk::CodeObject& like, int cov, const std::vector<std::pair<std::string, Pairs>>& kernels,
                   const std::string& tag) {
  Assembled r;
  const auto dir = tk::scratch_dir(tag);
  std::string s = "\t.amdgcn_target \"" + like.target_id() + "\"\n\t.amdhsa_code_object_version " +
                  std::to_string(cov) + "\n\t.text\n";
  for (const auto& [name, pairs] : kernels)
    s += "\t.globl " + name + "\n\t.p2align 8\n\t.type " + name + ",@function\n" + name + ":\n\ts_endpgm\n";
  s += "\t.rodata\n";
  for (const auto& [name, pairs] : kernels) s += "\t.p2align 6\n" + block_text(name, pairs);
  std::ofstream(dir / "k.s") << s;
  std::string cmd = std::string("'") + ASMEVO_LLVM_MC + "' -triple=amdgcn-amd-amdhsa -mcpu=" + like.mcpu;
  if (!like.mattr().empty()) cmd += " -mattr=" + like.mattr();
  cmd += " -filetype=obj '" + (dir / "k.s").string() + "' -o '" + (dir / "k.o").string() + "'";
  auto [rc, out] = tk::run(cmd);
  if (rc != 0) {
    r.error = "llvm-mc failed (" + std::to_string(rc) + "): " + out + "\n--- input:\n" + s;
    return r;
  }
  const auto obj = tk::read_code_object(dir / "k.o");
  for (const auto& k : obj.kernels) r.kd[k.name] = k.kd;
  fs::remove_all(dir);
  return r;
}

struct RoundTripStats {
  int objects = 0, kernels = 0, via_llvm_mc = 0, via_from_directives = 0, skipped_gfx908 = 0;
};

/// bytes -> to_directives -> llvm-mc -> bytes, and bytes -> to_directives -> from_directives -> bytes.
void round_trip(const std::vector<fs::path>& files, RoundTripStats& st) {
  for (const auto& path : files) {
    SCOPED_TRACE(path.string());
    const auto co = tk::read_code_object(path);
    ASSERT_TRUE(co.error.empty()) << co.error;
    if (!co.target) {
      // gfx908 (MI100) is not an asmevo target: no accum_offset/tg_split, a different rsrc3. Skipped, counted.
      EXPECT_EQ(co.mcpu, "gfx908");
      st.skipped_gfx908 += static_cast<int>(co.kernels.size());
      continue;
    }
    ++st.objects;
    std::vector<std::pair<std::string, Pairs>> blocks;
    for (const auto& k : co.kernels) {
      ++st.kernels;
      auto kd = KernelDescriptor::from_bytes(k.kd);
      ASSERT_TRUE(kd) << kd.error().str();
      DescriptorExtras ex;
      ex.xnack = co.xnack_on_or_any();
      auto pairs = to_directives(*kd, *co.target, co.cov, ex);
      ASSERT_TRUE(pairs) << k.name << ": " << pairs.error().str();
      blocks.emplace_back(k.name, *pairs);
      auto ours = from_directives(KernelBlock{k.name, *pairs}, *co.target, co.cov, co.xnack_on_or_any());
      ASSERT_TRUE(ours) << ours.error().str();
      std::vector<std::uint8_t> ob(ours->bytes.begin(), ours->bytes.end());
      const auto d = diff_except_entry(k.kd, ob);
      EXPECT_EQ(d, "") << k.name << ": from_directives differs from the input\n" << block_text(k.name, *pairs);
      EXPECT_EQ(ours->kernel_code_entry_byte_offset(), 0);
      st.via_from_directives += d.empty();
    }
    const auto as = assemble(co, co.cov, blocks, "rt");
    ASSERT_TRUE(as.error.empty()) << as.error;
    for (const auto& k : co.kernels) {
      auto it = as.kd.find(k.name);
      ASSERT_NE(it, as.kd.end()) << k.name << ".kd missing from llvm-mc's output";
      const auto d = diff_except_entry(k.kd, it->second);
      EXPECT_EQ(d, "") << k.name << ": llvm-mc's bytes differ from the input";
      st.via_llvm_mc += d.empty();
    }
  }
}

TEST(KernelDescriptor, FieldTableCoversEveryBitOnce) {
  // Per target and code-object version, the entries that exist partition the 512 bits; names are unique there.
  for (auto t : all_targets)
    for (int cov = 4; cov <= 6; ++cov) {
      int cover[512] = {};
      std::map<std::string_view, int> names;
      for (const auto& f : field_table) {
        if (!f.exists_on(t, cov)) continue;
        ++names[f.name];
        ASSERT_LE(f.offset + f.size, 64) << f.name;
        ASSERT_LE(f.shift + f.width, f.size * 8) << f.name;
        for (int b = 0; b < f.width; ++b) ++cover[f.offset * 8 + f.shift + b];
      }
      for (int b = 0; b < 512; ++b) EXPECT_EQ(cover[b], 1) << to_string(t) << " v" << cov << " bit " << b;
      for (const auto& [n, c] : names) EXPECT_EQ(c, 1) << n;
    }
}

TEST(KernelDescriptor, FromBytesChecksTheSize) {
  std::vector<std::uint8_t> b(63);
  auto r = KernelDescriptor::from_bytes(b);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, DiagCode::object_error);
  EXPECT_NE(r.error().message.find("63"), std::string::npos);
  b.resize(64);
  EXPECT_TRUE(KernelDescriptor::from_bytes(b));
}

// fields() against llvm-objdump-22, which decodes `.kd` symbols into `.amdhsa_*` directives itself
// (AMDGPUDisassembler::decodeKernelDescriptor): every value field it prints must match ours, and its
// next_free_vgpr/next_free_sgpr/accum_offset are the allocated counts of our derived fields.
void check_against_objdump(const std::vector<fs::path>& files, int& checked) {
  for (const auto& path : files) {
    SCOPED_TRACE(path.string());
    const auto co = tk::read_code_object(path);
    if (!co.target) continue;
    const auto od = tk::objdump_descriptors(ASMEVO_LLVM_OBJDUMP_KD, path);
    for (const auto& k : co.kernels) {
      auto it = od.find(k.name);
      ASSERT_NE(it, od.end()) << k.name << " not decoded by llvm-objdump";
      const auto& dir = it->second;
      auto kd = KernelDescriptor::from_bytes(k.kd);
      ASSERT_TRUE(kd);
      int compared = 0;
      for (const auto& f : fields(*kd, *co.target, co.cov)) {
        EXPECT_FALSE(f.problem) << k.name << ": " << f.info->name;
        if (f.info->role != FieldRole::value || f.info->directive.empty()) continue;
        auto d = dir.find(std::string(f.info->directive));
        if (d == dir.end()) continue;  // objdump leaves some out (e.g. user_sgpr_count, zero preload offset)
        EXPECT_EQ(d->second, std::to_string(f.raw)) << k.name << ": " << f.info->name;
        ++compared;
      }
      EXPECT_GE(compared, 25) << k.name;
      EXPECT_EQ(dir.at(".amdhsa_next_free_vgpr"), std::to_string(kd->allocated_vgprs())) << k.name;
      EXPECT_EQ(dir.at(".amdhsa_next_free_sgpr"), std::to_string(kd->allocated_sgprs())) << k.name;
      EXPECT_EQ(dir.at(".amdhsa_accum_offset"), std::to_string(kd->accum_offset())) << k.name;
      ++checked;
    }
  }
}

TEST(KernelDescriptor, FieldsAgreeWithObjdumpOnCorpus) {
  ASMEVO_REQUIRE_CORPUS(corpus);
  const auto files = asmevo::test::code_objects(corpus);
  const auto census = corpus_census(files);
  int checked = 0;
  check_against_objdump(files, checked);
  std::printf("corpus: fields() agree with llvm-objdump on %d of %d kernels of asmevo's targets\n", checked,
              census.ours);
  EXPECT_EQ(checked, census.ours) << "every kernel llvm-objdump decodes for gfx90a/gfx942/gfx950 is checked";
}

TEST(KernelDescriptor, FieldsAgreeWithObjdumpOnExamples) {
  const auto files = example_objects();
  if (files.empty()) GTEST_SKIP() << "clang-22 examples not built";
  int checked = 0;
  check_against_objdump(files, checked);
  std::printf("clang-22 examples: fields() agree with llvm-objdump on %d kernels\n", checked);
  EXPECT_EQ(checked, 12);  // 4 kernels in examples/kernels/vec_add.hip x 3 targets
}

TEST(KernelDescriptor, CorpusRoundTripsThroughLlvmMc) {
  ASMEVO_REQUIRE_CORPUS(corpus);
  const auto files = asmevo::test::code_objects(corpus);
  const auto census = corpus_census(files);
  RoundTripStats st;
  round_trip(files, st);
  std::printf("corpus: %d objects, %d kernels (llvm-objdump decodes %d); llvm-mc reproduced %d, from_directives "
              "reproduced %d; %d gfx908 kernels skipped\n",
              st.objects, st.kernels, census.ours, st.via_llvm_mc, st.via_from_directives, st.skipped_gfx908);
  EXPECT_EQ(st.via_llvm_mc, st.kernels);
  EXPECT_EQ(st.via_from_directives, st.kernels);
  // Nothing skipped but the gfx908 objects, and all of their kernels are counted as skipped.
  EXPECT_EQ(st.kernels, census.ours);
  const int gfx908 = census.other.count("gfx908") ? census.other.at("gfx908") : 0;
  EXPECT_EQ(st.skipped_gfx908, gfx908);
  EXPECT_EQ(census.other.size(), gfx908 ? 1u : 0u) << "a code object for a target neither asmevo nor this test knows";
}

TEST(KernelDescriptor, ExamplesRoundTripThroughLlvmMc) {
  const auto files = example_objects();
  if (files.empty()) GTEST_SKIP() << "clang-22 examples not built";
  RoundTripStats st;
  round_trip(files, st);
  std::printf("clang-22 examples: %d objects, %d kernels; llvm-mc reproduced %d, from_directives %d\n", st.objects,
              st.kernels, st.via_llvm_mc, st.via_from_directives);
  EXPECT_EQ(st.via_llvm_mc, st.kernels);
  EXPECT_EQ(st.via_from_directives, st.kernels);
  EXPECT_EQ(st.objects, 3);
}

// Random descriptors that directives can express, for every target and xnack setting, through llvm-mc and
// through from_directives. The seed is printed; a failure names the kernel and the block.
TEST(KernelDescriptor, RandomDescriptorsRoundTrip) {
  const unsigned seed = std::random_device{}();
  std::printf("seed %u\n", seed);
  std::mt19937 rng(seed);
  auto pick = [&](std::uint64_t hi) { return std::uniform_int_distribution<std::uint64_t>(0, hi)(rng); };
  for (auto t : all_targets)
    for (int xnack : {0, 1, -1})
      for (int cov : {4, 5, 6}) {
        SCOPED_TRACE(std::string(to_string(t)) + " xnack " + std::to_string(xnack) + " v" + std::to_string(cov) +
                     " seed " + std::to_string(seed));
        tk::CodeObject like;
        like.mcpu = std::string(to_string(t));
        like.xnack = xnack;
        std::vector<std::pair<std::string, Pairs>> blocks;
        std::map<std::string, KernelDescriptor> want;
        for (int i = 0; i < 12; ++i) {
          KernelDescriptor kd;
          for (const auto& f : field_table)
            if (f.exists_on(t, cov) && f.role == FieldRole::value) kd.set(f, pick(f.mask()));
          kd.set(field::kernarg_size, pick(4096));
          kd.set(field::preload_length, pick(3) == 0 ? pick(16) : 0);
          kd.set(field::preload_offset, pick(8));
          if (kd.get(field::preload_length) && (kd.get(field::preload_length) + kd.get(field::preload_offset)) * 4 >
                                                   kd.kernarg_size())
            kd.set(field::kernarg_size, (kd.get(field::preload_length) + kd.get(field::preload_offset)) * 4 + pick(64));
          const int implied = kd.implied_user_sgprs();
          kd.set(field::user_sgpr_count, static_cast<std::uint64_t>(implied) + pick(static_cast<std::uint64_t>(31 - implied)));
          const auto vb = pick(63);
          kd.set(field::vgpr_blocks, vb);
          kd.set(field::accum_offset, pick((vb + 1) * 2 - 1 > 63 ? 63 : (vb + 1) * 2 - 1));
          kd.set(field::sgpr_blocks, pick(13));
          DescriptorExtras ex;
          ex.xnack = xnack >= 0;
          auto pairs = to_directives(kd, t, cov, ex);
          if (!pairs) continue;  // e.g. a preload that needs more SGPRs than the granule allows
          const std::string name = "k" + std::to_string(i);
          blocks.emplace_back(name, *pairs);
          want[name] = kd;
          auto ours = from_directives(KernelBlock{name, *pairs}, t, cov, xnack >= 0);
          ASSERT_TRUE(ours) << ours.error().str();
          EXPECT_EQ(*ours, kd) << block_text(name, *pairs);
        }
        ASSERT_GE(blocks.size(), 6u);
        const auto as = assemble(like, cov, blocks, "rand");
        ASSERT_TRUE(as.error.empty()) << as.error;
        for (const auto& [name, kd] : want) {
          std::vector<std::uint8_t> a(kd.bytes.begin(), kd.bytes.end());
          EXPECT_EQ(diff_except_entry(a, as.kd.at(name)), "") << name;
        }
      }
}

TEST(KernelDescriptor, ExtrasChooseTheRealCountsWhenTheyFit) {
  // A gfx942 descriptor with 24 VGPRs and 16 SGPRs allocated; the code uses 21 VGPRs and 9 SGPRs.
  KernelDescriptor kd;
  kd.set(field::vgpr_blocks, 2);
  kd.set(field::sgpr_blocks, 1);
  kd.set(field::accum_offset, 5);  // 24
  kd.set(field::user_sgpr_count, 2);
  kd.set(field::kernarg_segment_ptr, 1);
  DescriptorExtras ex;
  ex.next_free_vgpr = 24;
  ex.next_free_sgpr = 9;
  ex.xnack = true;
  auto p = to_directives(kd, Target::gfx942, 5, ex);
  ASSERT_TRUE(p) << p.error().str();
  std::map<std::string, std::string> m(p->begin(), p->end());
  EXPECT_EQ(m[".amdhsa_next_free_vgpr"], "24");
  EXPECT_EQ(m[".amdhsa_next_free_sgpr"], "9");
  // 9 + 6 extra = 15 SGPRs -> 2 blocks of 8 -> field value 1; a used count past the granule is not taken.
  ex.next_free_sgpr = 12;
  p = to_directives(kd, Target::gfx942, 5, ex);
  ASSERT_TRUE(p);
  m = std::map<std::string, std::string>(p->begin(), p->end());
  EXPECT_EQ(m[".amdhsa_next_free_sgpr"], "10");  // the largest that still gives 16 SGPRs
  tk::CodeObject like;
  like.mcpu = "gfx942";
  const auto as = assemble(like, 5, {{"k", *p}}, "extras");
  ASSERT_TRUE(as.error.empty()) << as.error;
  std::vector<std::uint8_t> a(kd.bytes.begin(), kd.bytes.end());
  EXPECT_EQ(diff_except_entry(a, as.kd.at("k")), "");
}

TEST(KernelDescriptor, NonzeroReservedBitsAreVisibleAndRefused) {
  KernelDescriptor kd;
  kd.set(field::vgpr_blocks, 1);
  kd.set(field::accum_offset, 1);

  kd.set(field::priority, 2);
  kd.bytes[61] = 0x80;  // reserved3
  kd.set(field::private_segment_buffer, 1);  // gfx942: not supported with architected flat scratch
  std::vector<std::string> flagged;
  for (const auto& f : fields(kd, Target::gfx942, 6))
    if (f.problem) flagged.emplace_back(f.info->name);
  EXPECT_EQ(flagged, (std::vector<std::string>{"compute_pgm_rsrc1.priority",
                                              "kernel_code_properties.enable_sgpr_private_segment_buffer",
                                              "reserved3"}));
  auto p = to_directives(kd, Target::gfx942, 6);
  ASSERT_FALSE(p);
  for (const char* n : {"compute_pgm_rsrc1.priority", "reserved3", "enable_sgpr_private_segment_buffer"})
    EXPECT_NE(p.error().message.find(n), std::string::npos) << p.error().message;
  // On gfx90a the private segment buffer is a real user SGPR field: only priority and reserved3 remain.
  flagged.clear();
  for (const auto& f : fields(kd, Target::gfx90a, 6))
    if (f.problem) flagged.emplace_back(f.info->name);
  EXPECT_EQ(flagged.size(), 2u);
}

// Bad blocks: LLVM's assembler rejects each one, and so does from_directives, naming the directive.
TEST(KernelDescriptor, FromDirectivesRejectsWhatLlvmMcRejects) {
  const Pairs base = {{".amdhsa_next_free_vgpr", "32"}, {".amdhsa_next_free_sgpr", "16"},
                      {".amdhsa_accum_offset", "32"}, {".amdhsa_kernarg_size", "64"},
                      {".amdhsa_user_sgpr_kernarg_segment_ptr", "1"}};
  struct Case {
    const char* what;
    Pairs extra;
    const char* drop;    // a directive of `base` to leave out
    const char* expect;  // in our message
  };
  const std::vector<Case> cases = {
      {"unknown directive", {{".amdhsa_no_such_thing", "1"}}, "", ".amdhsa_no_such_thing"},
      {"repeated", {{".amdhsa_kernarg_size", "64"}}, "", "cannot be repeated"},
      {"sgpr out of range", {{".amdhsa_next_free_sgpr", "103"}}, ".amdhsa_next_free_sgpr", ".amdhsa_next_free_sgpr"},
      {"vgpr out of range", {{".amdhsa_next_free_vgpr", "513"}}, ".amdhsa_next_free_vgpr", ".amdhsa_next_free_vgpr"},
      {"missing vgpr", {}, ".amdhsa_next_free_vgpr", ".amdhsa_next_free_vgpr directive is required"},
      {"missing accum", {}, ".amdhsa_accum_offset", ".amdhsa_accum_offset directive is required"},
      {"accum beyond allocation", {{".amdhsa_accum_offset", "36"}}, ".amdhsa_accum_offset", "exceeds"},
      {"accum not multiple of 4", {{".amdhsa_accum_offset", "30"}}, ".amdhsa_accum_offset", "increments of 4"},
      {"bit field too wide", {{".amdhsa_float_round_mode_32", "4"}}, "", ".amdhsa_float_round_mode_32"},
      {"negative", {{".amdhsa_group_segment_fixed_size", "-1"}}, "", ".amdhsa_group_segment_fixed_size"},
      {"architected flat scratch", {{".amdhsa_user_sgpr_private_segment_buffer", "1"}}, "", "architected flat scratch"},
      {"reserve_flat_scratch", {{".amdhsa_reserve_flat_scratch", "0"}}, "", "architected flat scratch"},
      {"gfx10 directive", {{".amdhsa_wavefront_size32", "0"}}, "", "gfx10"},
      {"user sgpr count too small", {{".amdhsa_user_sgpr_count", "1"}}, "", "user_sgpr_count"},
      {"preload past kernarg", {{".amdhsa_user_sgpr_kernarg_preload_length", "15"},
                                {".amdhsa_user_sgpr_kernarg_preload_offset", "2"}}, "", "preload"},
      {"preload too long", {{".amdhsa_user_sgpr_kernarg_preload_length", "17"}}, "", "preload_length"},
      {"xnack mismatch", {{".amdhsa_reserve_xnack_mask", "0"}}, "", "xnack"},
  };
  tk::CodeObject like;
  like.mcpu = "gfx942";
  int n = 0;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    Pairs p;
    for (const auto& kv : base)
      if (kv.first != c.drop) p.push_back(kv);
    for (const auto& kv : c.extra) p.push_back(kv);
    auto ours = from_directives(KernelBlock{"k", p}, Target::gfx942, 5);
    ASSERT_FALSE(ours) << block_text("k", p);
    EXPECT_NE(ours.error().message.find(c.expect), std::string::npos) << ours.error().str();
    EXPECT_NE(ours.error().message.find("'k'"), std::string::npos) << ours.error().str();
    const auto as = assemble(like, 5, {{"k", p}}, "bad");
    EXPECT_FALSE(as.error.empty()) << "llvm-mc accepted:\n" << block_text("k", p);
    ++n;
  }
  EXPECT_EQ(n, static_cast<int>(cases.size()));
  // Not an LLVM error but a limit of ours: symbolic values (llvm-mc leaves `foo+1` to a relocation).
  Pairs p = base;
  p.emplace_back(".amdhsa_private_segment_fixed_size", "foo+1");
  auto ours = from_directives(KernelBlock{"k", p}, Target::gfx942, 5);
  ASSERT_FALSE(ours);
  EXPECT_NE(ours.error().message.find("absolute integer"), std::string::npos) << ours.error().str();
}

// Good blocks written by hand (expressions, hex, defaults left out) give what llvm-mc gives.
TEST(KernelDescriptor, FromDirectivesAgreesWithLlvmMcOnHandWrittenBlocks) {
  const std::vector<std::pair<Target, Pairs>> cases = {
      {Target::gfx942, {{".amdhsa_next_free_vgpr", "4*8+1"}, {".amdhsa_next_free_sgpr", "0x10"},
                        {".amdhsa_accum_offset", "(8 + 4)"}}},
      {Target::gfx90a, {{".amdhsa_next_free_vgpr", "0"}, {".amdhsa_next_free_sgpr", "0"},
                        {".amdhsa_accum_offset", "4"}, {".amdhsa_reserve_vcc", "0"},
                        {".amdhsa_reserve_flat_scratch", "0"}, {".amdhsa_user_sgpr_private_segment_buffer", "1"},
                        {".amdhsa_system_sgpr_private_segment_wavefront_offset", "1"}}},
      {Target::gfx950, {{".amdhsa_next_free_vgpr", "512"}, {".amdhsa_next_free_sgpr", "102"},
                        {".amdhsa_accum_offset", "256"}, {".amdhsa_kernarg_size", "24"},
                        {".amdhsa_user_sgpr_kernarg_preload_length", "4"},
                        {".amdhsa_user_sgpr_kernarg_preload_offset", "2"}, {".amdhsa_tg_split", "1"},
                        {".amdhsa_enable_private_segment", "1"}, {".amdhsa_uses_dynamic_stack", "1"}}},
      {Target::gfx942, {{".amdhsa_next_free_vgpr", "8"}, {".amdhsa_next_free_sgpr", "2"},
                        {".amdhsa_accum_offset", "8"}, {".amdhsa_user_sgpr_kernarg_preload_length", "16"},
                        {".amdhsa_user_sgpr_kernarg_segment_ptr", "1"}}},
  };
  int i = 0;
  for (const auto& [t, p] : cases) {
    SCOPED_TRACE(block_text("k", p));
    tk::CodeObject like;
    like.mcpu = std::string(to_string(t));
    auto ours = from_directives(KernelBlock{"k", p}, t, 5);
    ASSERT_TRUE(ours) << ours.error().str();
    const auto as = assemble(like, 5, {{"k", p}}, "good" + std::to_string(i++));
    ASSERT_TRUE(as.error.empty()) << as.error;
    std::vector<std::uint8_t> a(ours->bytes.begin(), ours->bytes.end());
    EXPECT_EQ(diff_except_entry(a, as.kd.at("k")), "");
  }
}

/// Every corpus kernel with metadata: check_against_metadata is silent; mutated metadata is reported field by field.
void metadata_checks(const std::vector<fs::path>& files, int& clean, int& mutated) {
  for (const auto& path : files) {
    SCOPED_TRACE(path.string());
    const auto co = tk::read_code_object(path);
    if (!co.target) continue;
    for (const auto& k : co.kernels) {
      ASSERT_FALSE(k.meta.is_null()) << k.name << " has no metadata";
      auto kd = KernelDescriptor::from_bytes(k.kd);
      ASSERT_TRUE(kd);
      const auto diags = check_against_metadata(*kd, *co.target, co.cov, k.meta);
      for (const auto& d : diags) ADD_FAILURE() << d.str();
      clean += diags.empty();

      // Mutations a user could make: each must be one Diag naming the field, both values and the kernel.
      struct Mut {
        const char* key;
        nlohmann::ordered_json value;
      };
      std::vector<Mut> muts = {
          {".group_segment_fixed_size", kd->group_segment_fixed_size() + 16},
          {".private_segment_fixed_size", kd->private_segment_fixed_size() + 4},
          {".wavefront_size", 32},
          {".sgpr_count", kd->allocated_sgprs() + 1},
          {".vgpr_count", kd->allocated_vgprs() + 1},
      };
      if (kd->kernarg_size()) muts.push_back({".kernarg_segment_size", kd->kernarg_size() + 8});
      // (.agpr_count is dropped: with AGPRs a larger .vgpr_count is also an accum_offset overlap, a second Diag.)
      for (const auto& m : muts) {
        auto meta = k.meta;
        meta.erase(".agpr_count");
        meta[m.key] = m.value;
        const auto ds = check_against_metadata(*kd, *co.target, co.cov, meta);
        ASSERT_EQ(ds.size(), 1u) << k.name << " " << m.key;
        EXPECT_NE(ds[0].message.find(m.key), std::string::npos) << ds[0].message;
        EXPECT_NE(ds[0].message.find(k.name), std::string::npos) << ds[0].message;
        EXPECT_NE(ds[0].message.find(m.value.dump()), std::string::npos) << ds[0].message;
      }
      // All at once: all reported (gathered, not stopping at the first).
      auto meta = k.meta;
      meta.erase(".agpr_count");
      for (const auto& m : muts) meta[m.key] = m.value;
      EXPECT_EQ(check_against_metadata(*kd, *co.target, co.cov, meta).size(), muts.size());
      ++mutated;
    }
  }
}

TEST(KernelDescriptor, MetadataAgreesOnCorpusAndMutationsAreReported) {
  ASMEVO_REQUIRE_CORPUS(corpus);
  const auto files = asmevo::test::code_objects(corpus);
  const auto census = corpus_census(files);
  int clean = 0, mutated = 0;
  metadata_checks(files, clean, mutated);
  std::printf("corpus metadata: %d of %d kernels without a diagnostic; mutations reported on %d\n", clean,
              census.ours, mutated);
  EXPECT_EQ(clean, census.ours);
  EXPECT_EQ(mutated, census.ours);
}

TEST(KernelDescriptor, MetadataAgreesOnExamplesAndMutationsAreReported) {
  const auto files = example_objects();
  if (files.empty()) GTEST_SKIP() << "clang-22 examples not built";
  int clean = 0, mutated = 0;
  metadata_checks(files, clean, mutated);
  std::printf("clang-22 examples metadata: %d kernels without a diagnostic; mutations reported on %d\n", clean,
              mutated);
  EXPECT_EQ(clean, 12);  // 4 kernels x 3 targets
  EXPECT_EQ(mutated, 12);
}

TEST(KernelDescriptor, MetadataAgprChecks) {
  // 256 VGPRs allocated, AccVGPRs from 128: 100 AGPRs fit, 200 do not; 150 arch VGPRs overlap the AGPRs.
  KernelDescriptor kd;
  kd.set(field::vgpr_blocks, 31);
  kd.set(field::accum_offset, 31);
  nlohmann::ordered_json m = {{".name", "k"}, {".agpr_count", 100}, {".vgpr_count", 228}};
  EXPECT_TRUE(check_against_metadata(kd, Target::gfx942, 5, m).empty());
  m[".agpr_count"] = 200;
  m[".vgpr_count"] = 328;
  EXPECT_EQ(check_against_metadata(kd, Target::gfx942, 5, m).size(), 2u);  // AGPRs and total both too many
  m[".agpr_count"] = 100;
  m[".vgpr_count"] = 250;
  const auto ds = check_against_metadata(kd, Target::gfx942, 5, m);
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_NE(ds[0].message.find("accum_offset"), std::string::npos) << ds[0].message;
  m[".vgpr_count"] = "many";
  const auto bad = check_against_metadata(kd, Target::gfx942, 5, m);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].code, DiagCode::object_error);
}

}  // namespace
