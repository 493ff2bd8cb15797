// Tests of analysis/resources.hpp against the compiler: on every kernel of the Triton corpus `.s` files and the clang-22
// examples, scan() equals LLVM's own resource analysis (the `.set K.num_vgpr ...` lines it writes), requirements()
// and recount(exact) reproduce the `.amdhsa_kernel` block and the metadata counts, and waves_per_simd() equals the
// "; Occupancy:" LLVM prints (also for LDS-limited kernels compiled here with clang-22).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "asmevo/analysis/resources.hpp"
#include "asmevo/codeobject/descriptor.hpp"
#include "asmevo/codeobject/recount.hpp"
#include "asmevo/ir/parser.hpp"
#include "support/corpus.hpp"

namespace {

namespace fs = std::filesystem;
using namespace asmevo;
using namespace asmevo::analysis;
using namespace asmevo::codeobject;
namespace co = asmevo::codeobject;

/// What the compiler says about one kernel in its `.s`: the block, LLVM's resource symbols, its comments, metadata.
struct CompilerView {
  std::string name;
  KernelBlock block;
  std::map<std::string, long> set;      // `.set K.num_vgpr, 8` -> set["num_vgpr"] = 8
  std::map<std::string, long> comment;  // `; NumVgprs: 8` -> comment["NumVgprs"] = 8
  std::map<std::string, long> meta;     // `.sgpr_count: 14` in K's metadata map
};

struct Parsed {
  Target target = Target::gfx942;
  int cov = 5;
  bool xnack_any_or_on = true;
  Program program;
  std::vector<CompilerView> kernels;
};

/// Parses a compiler-written `.s` and collects, per kernel, what the compiler wrote about it.
std::optional<Parsed> parse_compiler_output(const fs::path& path, std::string& error) {
  const std::string text = test::slurp(path);
  std::smatch m;
  if (!std::regex_search(text, m, std::regex(R"(\.amdgcn_target "amdgcn-amd-amdhsa--(gfx[0-9a-z]+)([^"]*)\")"))) {
    error = "no .amdgcn_target";
    return std::nullopt;
  }
  Parsed p;
  auto t = parse_target(m[1].str());
  if (!t) {
    error = "target " + m[1].str();
    return std::nullopt;
  }
  p.target = *t;
  p.xnack_any_or_on = m[2].str().find("xnack-") == std::string::npos;
  if (std::regex_search(text, m, std::regex(R"(\.amdhsa_code_object_version ([0-9]+))"))) p.cov = std::stoi(m[1].str());
  auto r = parse_program_all(text, *t, path.string());
  if (!r.diags.empty()) {
    error = r.diags.front().str();
    return std::nullopt;
  }
  p.program = std::move(r.program);
  std::string yaml;
  for (const auto& it : p.program.items)
    if (it.kind == Item::Kind::metadata) yaml += it.text;
  for (const auto& it : p.program.items) {
    if (it.kind != Item::Kind::kernel) continue;
    CompilerView v;
    v.name = it.kernel.name;
    v.block = it.kernel;
    // The function's text runs from its label to the next "-- Begin function" (or the end of the file); LLVM writes
    // the `.set` resource symbols and the "; Kernel info:" comments after `.size`.
    const auto b = text.find("\n" + v.name + ":");
    const auto e = text.find("-- Begin function", b);
    const std::string chunk = text.substr(b, e == std::string::npos ? std::string::npos : e - b);
    const std::regex set_re("\\.set " + v.name + "\\.([a-z_]+), ([0-9]+)");
    for (std::sregex_iterator i(chunk.begin(), chunk.end(), set_re), end; i != end; ++i)
      v.set[(*i)[1]] = std::stol((*i)[2]);
    const std::regex c_re("\n; ([A-Za-z]+): ([0-9]+)");
    for (std::sregex_iterator i(chunk.begin(), chunk.end(), c_re), end; i != end; ++i)
      v.comment[(*i)[1]] = std::stol((*i)[2]);
    // The kernel's map in amdhsa.kernels: list entries start at "  - " and name the kernel at 4 spaces.
    std::istringstream ys(yaml);
    std::string line, entry, found;
    auto flush = [&] {
      if (std::regex_search(entry, std::regex("\n    \\.name: +" + v.name + "\n"))) found = entry;
      entry = "\n";
    };
    while (std::getline(ys, line)) {
      if (line.rfind("  - ", 0) == 0) flush();
      entry += (line.rfind("  - ", 0) == 0 ? "    " + line.substr(4) : line) + "\n";
    }
    flush();
    const std::regex meta_re("\n    (\\.[a-z_]+): +([0-9]+)");
    for (std::sregex_iterator i(found.begin(), found.end(), meta_re), end; i != end; ++i)
      v.meta[(*i)[1]] = std::stol((*i)[2]);
    p.kernels.push_back(std::move(v));
  }
  return p;
}

std::string field(const KernelBlock& b, const std::string& key) {
  for (const auto& [k, v] : b.fields)
    if (k == key) return v;
  return "";
}

std::vector<fs::path> example_outputs() {
  std::vector<fs::path> v;
#ifdef ASMEVO_EXAMPLES_DIR
  for (const char* t : {"gfx90a", "gfx942", "gfx950"}) {
    fs::path p = fs::path(ASMEVO_EXAMPLES_DIR) / (std::string("vec_add.") + t + ".s");
    if (fs::exists(p)) v.push_back(p);
  }
#endif
  return v;
}

struct Tally {
  int kernels = 0, scan_equal = 0, block_equal = 0, recount_equal = 0, occupancy_equal = 0;
  int with_calls = 0;  ///< kernels that call functions: LLVM writes their counts as max() over callees
};

/// Checks one compiler output file kernel by kernel. See the file comment for what "agrees" means.
void check_file(const fs::path& path, Tally& tally) {
  SCOPED_TRACE(path.string());
  std::string error;
  auto parsed = parse_compiler_output(path, error);
  ASSERT_TRUE(parsed) << error;
  const Target t = parsed->target;
  ASSERT_FALSE(parsed->kernels.empty());
  for (const auto& k : parsed->kernels) {
    SCOPED_TRACE(k.name);
    // A kernel that calls a function gets symbolic counts (`.set K.num_vgpr, max(6, callee.num_vgpr)`): the
    // registers of its callees are counted by codeobject/resources_update.hpp (tests/codeobject/rebuild_test.cpp
    // checks the rebuilt descriptors of such a kernel), not by scan() of its own items.
    if (!k.set.count("num_vgpr") &&
        test::slurp(path).find(".set " + k.name + ".num_vgpr, max(") != std::string::npos) {
      ++tally.with_calls;
      continue;
    }
    ++tally.kernels;
    const auto items = kernel_items(parsed->program, k.name);
    ASSERT_FALSE(items.empty());
    const RegisterUsage u = scan(items);
    EXPECT_FALSE(u.indirect);

    // 1. scan() is LLVM's AMDGPUResourceUsageAnalysis: NumVGPR, NumAGPR, NumExplicitSGPR, UsesVCC, UsesFlatScratch.
    ASSERT_TRUE(k.set.count("num_vgpr") && k.set.count("numbered_sgpr")) << "no .set resource symbols";
    const bool scan_ok = u.vgprs == k.set.at("num_vgpr") && u.agprs == k.set.at("num_agpr") &&
                         u.sgprs == k.set.at("numbered_sgpr") && u.vcc == (k.set.at("uses_vcc") != 0) &&
                         u.flat_scratch == (k.set.at("uses_flat_scratch") != 0);
    EXPECT_TRUE(scan_ok) << "scan v" << u.vgprs << " a" << u.agprs << " s" << u.sgprs << " vcc " << u.vcc << " fs "
                         << u.flat_scratch << " vs LLVM v" << k.set.at("num_vgpr") << " a" << k.set.at("num_agpr")
                         << " s" << k.set.at("numbered_sgpr") << " vcc " << k.set.at("uses_vcc") << " fs "
                         << k.set.at("uses_flat_scratch");
    tally.scan_equal += scan_ok;

    // 2. The block's register directives from the usage. next_free_vgpr is NumVGPRsForWavesPerEU, which LLVM pads
    //    up to getMinNumVGPRs(amdgpu-waves-per-eu) when a kernel asks for a minimum occupancy; none here does.
    auto k0 = co::from_directives(k.block, t, parsed->cov, parsed->xnack_any_or_on);
    ASSERT_TRUE(k0) << k0.error().str();
    const Requirements need = requirements(u, *k0, t, parsed->xnack_any_or_on);
    const long nfv = std::stol(field(k.block, ".amdhsa_next_free_vgpr"));
    const long nfs = std::stol(field(k.block, ".amdhsa_next_free_sgpr"));
    const long acc = std::stol(field(k.block, ".amdhsa_accum_offset"));
    EXPECT_EQ(nfv, k.comment.at("NumVGPRsForWavesPerEU"));
    EXPECT_GE(nfv, need.total_vgprs);
    const bool block_ok = acc == need.accum_offset && nfv == need.total_vgprs && nfs == need.next_free_sgpr &&
                          field(k.block, ".amdhsa_reserve_vcc") == (u.vcc ? "1" : "0") &&
                          k.comment.at("TotalNumSgprs") == need.total_sgprs &&
                          k.comment.at("NumSGPRsForWavesPerEU") == need.total_sgprs;
    EXPECT_TRUE(block_ok) << "accum " << acc << "/" << need.accum_offset << " nfv " << nfv << "/" << need.total_vgprs
                          << " nfs " << nfs << "/" << need.next_free_sgpr << " total sgprs "
                          << k.comment.at("TotalNumSgprs") << "/" << need.total_sgprs;
    tally.block_equal += block_ok;

    // 3. recount(exact) from the code gives back the compiler's descriptor and its metadata counts.
    RecountOptions opt;
    opt.xnack = parsed->xnack_any_or_on;
    auto rc = recount(*k0, t, u, RecountPolicy::exact, opt);
    ASSERT_TRUE(rc) << rc.error().str();
    EXPECT_EQ(rc->descriptor, *k0);
    EXPECT_TRUE(rc->changes.empty());
    MetadataCounts want;
    want.sgpr_count = static_cast<int>(k.meta.at(".sgpr_count"));
    want.vgpr_count = static_cast<int>(k.meta.at(".vgpr_count"));
    want.agpr_count = static_cast<int>(k.meta.at(".agpr_count"));
    EXPECT_EQ(rc->metadata, want) << "metadata sgpr " << *rc->metadata.sgpr_count << "/" << *want.sgpr_count << " vgpr "
                                  << *rc->metadata.vgpr_count << "/" << *want.vgpr_count << " agpr "
                                  << *rc->metadata.agpr_count << "/" << *want.agpr_count;
    tally.recount_equal += rc->descriptor == *k0 && rc->metadata == want;
    // keep_at_least_original on unchanged code changes nothing either.
    auto keep = recount(*k0, t, u, RecountPolicy::keep_at_least_original, opt);
    ASSERT_TRUE(keep);
    EXPECT_EQ(keep->descriptor, *k0);

    // 4. Occupancy as LLVM prints it, for the kernel's max flat workgroup size and LDS.
    const int occ = waves_per_simd(t, static_cast<int>(nfv), 0, static_cast<int>(k.comment.at("NumSGPRsForWavesPerEU")),
                                   k0->group_segment_fixed_size(),
                                   static_cast<std::uint32_t>(k.meta.at(".max_flat_workgroup_size")));
    EXPECT_EQ(occ, k.comment.at("Occupancy"));
    EXPECT_EQ(waves_per_simd(t, u.vgprs, u.agprs, need.total_sgprs, k0->group_segment_fixed_size(),
                             static_cast<std::uint32_t>(k.meta.at(".max_flat_workgroup_size"))),
              k.comment.at("Occupancy"));
    tally.occupancy_equal += occ == k.comment.at("Occupancy");
  }
}

void agree(const std::vector<fs::path>& files, const char* what) {
  Tally t;
  for (const auto& f : files) check_file(f, t);
  std::printf("%s: %d kernels with calls skipped\n", what, t.with_calls);
  std::printf("%s: %zu files, %d kernels: scan == LLVM resource usage on %d, block registers on %d, "
              "recount(exact) == descriptor + metadata on %d, occupancy on %d\n",
              what, files.size(), t.kernels, t.scan_equal, t.block_equal, t.recount_equal, t.occupancy_equal);
  EXPECT_EQ(t.scan_equal, t.kernels);
  EXPECT_EQ(t.block_equal, t.kernels);
  EXPECT_EQ(t.recount_equal, t.kernels);
  EXPECT_EQ(t.occupancy_equal, t.kernels);
}

TEST(Resources, AgreesWithTheCompilerOnTritonCorpus) {
  ASMEVO_REQUIRE_CORPUS(corpus);
  const auto files = test::files_with_ext(corpus / "triton", ".s");
  EXPECT_EQ(files.size(), 33u);  // 11 kernels x 3 targets (corpus README)
  agree(files, "triton");
}

TEST(Resources, AgreesWithTheCompilerOnExamples) {
  const auto files = example_outputs();
  if (files.empty()) GTEST_SKIP() << "clang-22 examples not built";
  EXPECT_EQ(files.size(), 3u);
  agree(files, "clang-22 examples");  // vec_add.hip: poly_eval calls poly_term (skipped above, one per target)
}

Program parse(const std::string& text, Target t = Target::gfx942) {
  auto p = parse_program(text, t);
  EXPECT_TRUE(p) << p.error().str();
  return p ? std::move(*p) : Program{};
}

TEST(Resources, ScanCountsRangesImplicitOperandsAndSpecials) {
  // Ranges count their last register; special registers are flags, not SGPRs.
  auto u = scan(parse("v_mov_b32 v3, s7\nglobal_load_dwordx4 v[8:11], v[0:1], off\ns_load_dwordx8 s[16:23], s[0:1], 0x0\n"
                      "v_accvgpr_write_b32 a5, v0\ns_mov_b64 exec, vcc\ns_mov_b32 m0, s2\ns_endpgm\n"));
  EXPECT_EQ(u.vgprs, 12);
  EXPECT_EQ(u.agprs, 6);
  EXPECT_EQ(u.sgprs, 24);
  EXPECT_TRUE(u.vcc);
  EXPECT_FALSE(u.flat_scratch);
  // VOPC e32 writes VCC and v_cndmask_b32 e32 reads it without naming it (implicit defs/uses of the form).
  EXPECT_TRUE(scan(parse("v_cmp_eq_u32_e32 v0, v1\n")).vcc);
  EXPECT_TRUE(scan(parse("v_cndmask_b32_e32 v0, v1, v2\n")).vcc);
  EXPECT_FALSE(scan(parse("v_cmp_eq_u32_e64 s[4:5], v0, v1\n")).vcc);
  // FLAT's implicit FLAT_SCRATCH does not count (LLVM does not count it); naming flat_scratch does.
  EXPECT_FALSE(scan(parse("flat_load_dword v0, v[0:1]\n")).flat_scratch);
  EXPECT_TRUE(scan(parse("s_mov_b64 s[0:1], flat_scratch\n")).flat_scratch);
  EXPECT_TRUE(scan(parse("s_mov_b32 xnack_mask_lo, 0\n", Target::gfx90a)).xnack_mask);
  EXPECT_TRUE(scan(parse("s_mov_b32 s0, ttmp5\n")).ttmp);
  EXPECT_EQ(scan(parse("s_mov_b32 s0, ttmp5\n")).sgprs, 1);
}

TEST(Resources, RelativeIndexingMakesExactRecountRefuse) {
  auto p = parse("s_mov_b32 m0, 4\ns_movrels_b32 s0, s10\ns_endpgm\n");
  const auto u = scan(p);
  ASSERT_TRUE(u.indirect);
  ASSERT_TRUE(u.first_indirect);
  EXPECT_EQ(u.first_indirect->value, 1u);
  co::KernelDescriptor k0;
  k0.set(co::field::accum_offset, 1);
  auto r = recount(k0, Target::gfx942, u, RecountPolicy::exact);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().loc.inst_id, std::optional<std::uint32_t>(1));
  EXPECT_TRUE(recount(k0, Target::gfx942, u, RecountPolicy::keep_at_least_original));
  EXPECT_TRUE(scan(parse("s_set_gpr_idx_on s0, gpr_idx(SRC0)\nv_mov_b32 v0, v1\ns_set_gpr_idx_off\n")).indirect);
}

TEST(Resources, RecountPoliciesAndLimits) {
  // K0: 128 VGPRs allocated with AccVGPRs from 64, 32 SGPRs, kernarg pointer in s[0:1], workgroup id x.
  co::KernelDescriptor k0;
  k0.set(co::field::vgpr_blocks, 15);
  k0.set(co::field::accum_offset, 15);
  k0.set(co::field::sgpr_blocks, 3);
  k0.set(co::field::kernarg_segment_ptr, 1);
  k0.set(co::field::user_sgpr_count, 2);
  k0.set(co::field::workgroup_id_x, 1);
  RecountOptions opt;
  opt.k0_metadata = MetadataCounts{100, 30, 26};

  // Fewer registers: keep changes nothing and keeps the metadata floors; exact shrinks and reports what changed.
  RegisterUsage small;
  small.vgprs = 10;
  small.sgprs = 4;
  auto keep = recount(k0, Target::gfx942, small, RecountPolicy::keep_at_least_original, opt);
  ASSERT_TRUE(keep);
  EXPECT_EQ(keep->descriptor, k0);
  EXPECT_TRUE(keep->changes.empty());
  EXPECT_EQ(keep->metadata, opt.k0_metadata);
  auto exact = recount(k0, Target::gfx942, small, RecountPolicy::exact, opt);
  ASSERT_TRUE(exact);
  EXPECT_EQ(exact->descriptor.allocated_vgprs(), 16);  // 10 -> 2 blocks of 8
  EXPECT_EQ(exact->descriptor.accum_offset(), 12);
  EXPECT_EQ(exact->descriptor.allocated_sgprs(), 16);  // 4 named + 6 extra (architected flat scratch) = 10
  EXPECT_EQ(exact->metadata, (MetadataCounts{10, 0, 10}));
  std::vector<std::string> changed;
  for (const auto& c : exact->changes) changed.push_back(c.field);
  EXPECT_EQ(changed, (std::vector<std::string>{"compute_pgm_rsrc1.granulated_workitem_vgpr_count",
                                              "compute_pgm_rsrc1.granulated_wavefront_sgpr_count",
                                              "compute_pgm_rsrc3.accum_offset", ".sgpr_count", ".vgpr_count",
                                              ".agpr_count"}));
  // As in LLVM, SGPRs the code never names do not count, except the user SGPRs of a kernarg preload.
  RegisterUsage none;
  EXPECT_EQ(requirements(none, k0, Target::gfx942).next_free_sgpr, 0);
  co::KernelDescriptor pre = k0;
  pre.set(co::field::preload_length, 6);
  pre.set(co::field::user_sgpr_count, 8);
  EXPECT_EQ(requirements(none, pre, Target::gfx942).next_free_sgpr, 8);

  // More registers: both policies grow; AGPRs sit above K0's accum_offset under keep, above the code's under exact.
  RegisterUsage big;
  big.vgprs = 70;
  big.agprs = 100;
  big.sgprs = 90;
  big.vcc = true;
  keep = recount(k0, Target::gfx942, big, RecountPolicy::keep_at_least_original, opt);
  ASSERT_TRUE(keep);
  EXPECT_EQ(keep->descriptor.accum_offset(), 72);
  EXPECT_EQ(keep->descriptor.allocated_vgprs(), 176);  // 72 + 100 = 172 -> 176
  EXPECT_EQ(keep->descriptor.allocated_sgprs(), 96);   // 90 + 6 = 96
  EXPECT_EQ(keep->metadata, (MetadataCounts{172, 100, 96}));
  // Every recount result is a descriptor the assembler can express.
  co::DescriptorExtras ex;
  ex.next_free_vgpr = keep->needed.total_vgprs;
  ex.next_free_sgpr = keep->needed.next_free_sgpr;
  auto dirs = co::to_directives(keep->descriptor, Target::gfx942, 5, ex);
  ASSERT_TRUE(dirs) << dirs.error().str();
  auto back = co::from_directives(KernelBlock{"k", *dirs}, Target::gfx942, 5);
  ASSERT_TRUE(back) << back.error().str();
  EXPECT_EQ(*back, keep->descriptor);

  // Beyond the target: 257+ AGPRs cannot be named; 300 AGPRs above AccVGPR 256; 103 SGPRs.
  RegisterUsage over = big;
  over.vgprs = 256;
  over.agprs = 257;
  EXPECT_FALSE(recount(k0, Target::gfx942, over, RecountPolicy::exact));
  over.agprs = 256;
  over.vgprs = 253;  // accum 256 + 256 AGPRs = 512: fits exactly
  EXPECT_TRUE(recount(k0, Target::gfx942, over, RecountPolicy::exact));
  over.sgprs = 103;
  auto e = recount(k0, Target::gfx942, over, RecountPolicy::exact);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("SGPRs"), std::string::npos);
  // Keep with K0's accum_offset 256: the AGPRs go above it, the whole file is allocated; exact moves them down.
  co::KernelDescriptor hi = k0;
  hi.set(co::field::vgpr_blocks, 63);
  hi.set(co::field::accum_offset, 63);
  RegisterUsage few;
  few.agprs = 8;
  few.vgprs = 20;
  auto r = recount(hi, Target::gfx942, few);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->descriptor.accum_offset(), 256);
  EXPECT_EQ(r->descriptor.allocated_vgprs(), 512);
  EXPECT_EQ(r->metadata.vgpr_count, 264);
  r = recount(hi, Target::gfx942, few, RecountPolicy::exact);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->descriptor.accum_offset(), 20);
  EXPECT_EQ(r->descriptor.allocated_vgprs(), 32);  // 20 + 8 = 28 -> 32
}

TEST(Resources, KernelItemsSplitsAFileOfSeveralKernels) {
#ifdef ASMEVO_EXAMPLES_DIR
  const fs::path p = fs::path(ASMEVO_EXAMPLES_DIR) / "vec_add.gfx942.s";
  if (!fs::exists(p)) GTEST_SKIP() << "clang-22 examples not built";
  auto prog = parse(test::slurp(p));
  std::size_t total = 0;
  for (const char* k : {"vec_add", "saxpy_fma", "row_sum"}) {
    const auto items = kernel_items(prog, k);
    ASSERT_FALSE(items.empty()) << k;
    const Item* last = nullptr;
    for (const auto& it : items)
      if (it.kind == Item::Kind::inst) last = &it;
    ASSERT_NE(last, nullptr);
    EXPECT_EQ(isa::forms(last->inst.target)[last->inst.form].mnemonic, "s_endpgm") << k;
    total += items.size();
  }
  EXPECT_LT(total, prog.items.size());
  EXPECT_TRUE(kernel_items(prog, "no_such_kernel").empty());
#else
  GTEST_SKIP() << "no examples";
#endif
}

// LDS-limited occupancy: kernels compiled here with clang-22, LLVM's "; Occupancy:" is the oracle.
TEST(Resources, OccupancyWithLdsMatchesClang) {
#ifndef ASMEVO_CLANG_EXE
  GTEST_SKIP() << "clang-22 not found at configure time";
#else
  const auto dir = fs::temp_directory_path() / ("asmevo_occ_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string src = "#define KERNEL extern \"C\" __attribute__((global))\n";
  struct K {
    const char* name;
    int lds_floats, wg;
  };
  const std::vector<K> ks = {{"lds48k_256", 12288, 256}, {"lds20k_256", 5120, 256}, {"lds20k_64", 5120, 64},
                             {"lds9k_128", 2304, 128},   {"lds1k_1024", 256, 1024}, {"lds40k_512", 10240, 512},
                             {"lds30k_64", 7680, 64},    {"lds60k_192", 15360, 192}};
  for (const auto& k : ks) {
    src += "KERNEL void __attribute__((amdgpu_flat_work_group_size(" + std::to_string(k.wg) + "," +
           std::to_string(k.wg) + "))) " + k.name + "(float* out) {\n  static __attribute__((shared)) float b[" +
           std::to_string(k.lds_floats) + "];\n  int t = __builtin_amdgcn_workitem_id_x();\n  b[t] = out[t];\n" +
           "  __builtin_amdgcn_s_barrier();\n  out[t] = b[" + std::to_string(k.lds_floats - 1) + " - t];\n}\n";
  }
  std::ofstream(dir / "occ.hip") << src;
  int checked = 0;
  std::set<int> seen;
  for (const char* tgt : {"gfx90a", "gfx942", "gfx950"}) {
    SCOPED_TRACE(tgt);
    const fs::path out = dir / (std::string("occ.") + tgt + ".s");
    const std::string cmd = std::string("'") + ASMEVO_CLANG_EXE + "' -x hip --offload-arch=" + tgt +
                            " --cuda-device-only -nogpuinc -nogpulib -O3 -S '" + (dir / "occ.hip").string() +
                            "' -o '" + out.string() + "' 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    std::string error;
    auto parsed = parse_compiler_output(out, error);
    ASSERT_TRUE(parsed) << error;
    ASSERT_EQ(parsed->kernels.size(), ks.size());
    for (const auto& k : parsed->kernels) {
      auto k0 = co::from_directives(k.block, parsed->target, parsed->cov);
      ASSERT_TRUE(k0) << k0.error().str();
      const int occ = waves_per_simd(parsed->target, static_cast<int>(k.comment.at("NumVGPRsForWavesPerEU")), 0,
                                     static_cast<int>(k.comment.at("NumSGPRsForWavesPerEU")),
                                     k0->group_segment_fixed_size(),
                                     static_cast<std::uint32_t>(k.meta.at(".max_flat_workgroup_size")));
      EXPECT_EQ(occ, k.comment.at("Occupancy")) << k.name << " lds " << k0->group_segment_fixed_size();
      seen.insert(occ);
      ++checked;
    }
  }
  fs::remove_all(dir);
  EXPECT_EQ(checked, 24);
  EXPECT_GE(seen.size(), 4u) << "the kernels should exercise several LDS-limited occupancies";
#endif
}

// The documented case where the compiler's numbers exceed the use: a kernel that asks for at most 2 waves per EU
// (amdgpu_waves_per_eu(1, 2), with a flat workgroup size that allows it) gets its allocation padded to getMinNumVGPRs/getMinNumSGPRs(2) (AMDGPUAsmPrinter
// getSIProgramInfo: NumVGPRsForWavesPerEU = max(NumVGPR, 1, MinNumVGPRs)), so `.amdhsa_next_free_vgpr` and
// `.amdhsa_next_free_sgpr` are larger than what the code names, while LLVM's resource symbols (and scan) are not.
TEST(Resources, CompilerPadsForWavesPerEu) {
#ifndef ASMEVO_CLANG_EXE
  GTEST_SKIP() << "clang-22 not found at configure time";
#else
  const auto dir = fs::temp_directory_path() / ("asmevo_pad_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "pad.hip")
      << "extern \"C\" __attribute__((global)) __attribute__((amdgpu_waves_per_eu(1, 2)))\n"
         "__attribute__((amdgpu_flat_work_group_size(1, 256)))\n"
         "void padded(float* out) { int t = __builtin_amdgcn_workitem_id_x(); out[t] = out[t] * 2.0f; }\n";
  const fs::path out = dir / "pad.s";
  const std::string cmd = std::string("'") + ASMEVO_CLANG_EXE +
                          "' -x hip --offload-arch=gfx942 --cuda-device-only -nogpuinc -nogpulib -O3 -S '" +
                          (dir / "pad.hip").string() + "' -o '" + out.string() + "' 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::string error;
  auto parsed = parse_compiler_output(out, error);
  fs::remove_all(dir);
  ASSERT_TRUE(parsed) << error;
  ASSERT_EQ(parsed->kernels.size(), 1u);
  const auto& k = parsed->kernels[0];
  const auto u = scan(kernel_items(parsed->program, k.name));
  EXPECT_EQ(u.vgprs, k.set.at("num_vgpr"));
  EXPECT_EQ(u.sgprs, k.set.at("numbered_sgpr"));
  auto k0 = co::from_directives(k.block, parsed->target, parsed->cov);
  ASSERT_TRUE(k0);
  const auto need = requirements(u, *k0, parsed->target);
  const long nfv = std::stol(field(k.block, ".amdhsa_next_free_vgpr"));
  const long nfs = std::stol(field(k.block, ".amdhsa_next_free_sgpr"));
  EXPECT_GT(nfv, need.total_vgprs);        // padded: 169 for at most 2 waves, the code names a handful
  EXPECT_GT(nfs, need.next_free_sgpr);     // padded to 102 - 6
  EXPECT_EQ(k.comment.at("Occupancy"), 2);
  // keep_at_least_original keeps the padding (and the occupancy cap); exact drops it.
  auto keep = recount(*k0, parsed->target, u);
  ASSERT_TRUE(keep);
  EXPECT_EQ(keep->descriptor, *k0);
  auto exact = recount(*k0, parsed->target, u, RecountPolicy::exact);
  ASSERT_TRUE(exact);
  EXPECT_LT(exact->descriptor.allocated_vgprs(), k0->allocated_vgprs());
  EXPECT_LT(exact->descriptor.allocated_sgprs(), k0->allocated_sgprs());
  // The metadata counts are the unpadded ones, as recount(exact) computes them.
  EXPECT_EQ(exact->metadata.vgpr_count, k.meta.at(".vgpr_count"));
  EXPECT_EQ(exact->metadata.sgpr_count, k.meta.at(".sgpr_count"));
#endif
}

TEST(Resources, OccupancyLimits) {
  EXPECT_EQ(waves_per_simd(Target::gfx942, 512, 0, 100, 0, 256), 1);
  EXPECT_EQ(waves_per_simd(Target::gfx942, 513, 0, 100, 0, 256), 0);      // more than the VGPR file
  EXPECT_EQ(waves_per_simd(Target::gfx942, 8, 0, 16, 65537, 256), 0);     // more LDS than a CU has
  EXPECT_EQ(waves_per_simd(Target::gfx950, 8, 0, 16, 65537, 256), 2);     // gfx950 has 160 KiB: 2 groups of 4 waves
  EXPECT_EQ(waves_per_simd(Target::gfx942, 8, 0, 16, 0, 0), 0);
  EXPECT_EQ(waves_per_simd(Target::gfx942, 8, 0, 16, 0, 1025), 0);
  EXPECT_EQ(waves_per_simd(Target::gfx942, 128, 128, 16, 0, 256), 2);     // 256 unified VGPRs
  co::KernelDescriptor kd;
  kd.set(co::field::vgpr_blocks, 31);  // 256 VGPRs
  EXPECT_EQ(waves_per_simd(Target::gfx942, kd, 256), 2);
}

}  // namespace
