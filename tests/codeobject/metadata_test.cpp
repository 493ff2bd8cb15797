// Tests of codeobject/metadata.hpp: the metadata note of every corpus object decodes, re-encodes to the same bytes,
// agrees with llvm-readelf-22's rendering, and its YAML goes through llvm-mc-22 back to the same document; bad
// documents give errors that point at the field.
#include "asmevo/codeobject/metadata.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "support/corpus.hpp"
#include "support/process.hpp"

namespace fs = std::filesystem;
using namespace asmevo;
using namespace asmevo::codeobject;

namespace {

using asmevo::test::RunResult;
/// Runs a shell command, capturing stdout (stderr goes to the test log).
RunResult run(const std::string& cmd) { return asmevo::test::run_command(cmd); }
std::string quote(const fs::path& p) { return asmevo::test::shell_quote(p); }


fs::path scratch_path() { return fs::temp_directory_path() / ("asmevo_metadata_test_" + std::to_string(::getpid())); }

fs::path scratch() {
  static const fs::path dir = [] {
    fs::create_directories(scratch_path());
    return scratch_path();
  }();
  return dir;
}

/// Removes this process's scratch folder when the tests end.
class RemoveScratch : public ::testing::Environment {
 public:
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(scratch_path(), ec);
  }
};
[[maybe_unused]] ::testing::Environment* const remove_scratch = ::testing::AddGlobalTestEnvironment(new RemoveScratch);

/// -mattr for a target id's explicit features.
std::string mattr_for(const TargetId& t) {
  std::string m;
  auto add = [&](const char* name, FeatureSetting f) {
    if (f == FeatureSetting::on || f == FeatureSetting::off)
      m += std::string(m.empty() ? "" : ",") + (f == FeatureSetting::on ? "+" : "-") + name;
  };
  add("sramecc", t.sramecc);
  add("xnack", t.xnack);
  return m;
}

/// Assembles `.amdgcn_target` + `.amdhsa_code_object_version` + the metadata block with llvm-mc-22 and reads the
/// object back. On failure, returns llvm-mc's messages as the error.
Expected<ElfFile> assemble_metadata(const std::string& yaml, const TargetId& tid, unsigned version,
                                    const std::string& stem) {
  const fs::path src = scratch() / (stem + ".s"), obj = scratch() / (stem + ".o"), log = scratch() / (stem + ".log");
  {
    std::ofstream o(src);
    o << ".amdgcn_target \"amdgcn-amd-amdhsa--" << tid.str() << "\"\n"
      << ".amdhsa_code_object_version " << version << "\n"
      << ".amdgpu_metadata\n"
      << yaml << ".end_amdgpu_metadata\n";
  }
  const std::string mattr = mattr_for(tid);
  const std::string cmd = std::string(ASMEVO_LLVM_MC) + " -triple amdgcn-amd-amdhsa -mcpu=" + tid.processor +
                          (mattr.empty() ? "" : " -mattr=" + mattr) + " -filetype=obj " + quote(src) + " -o " +
                          quote(obj) + " 2> " + quote(log);
  if (run(cmd).status != 0) return fail(DiagCode::encode_error, "llvm-mc-22 failed: " + asmevo::test::slurp(log));
  return ElfFile::read(obj);
}

std::string strip_yaml_quotes(std::string v) {
  if (v.size() >= 2 && ((v.front() == '\'' && v.back() == '\'') || (v.front() == '"' && v.back() == '"')))
    v = v.substr(1, v.size() - 2);
  return v;
}

/// Kernel-level scalar keys and the argument count of each kernel, read from llvm-readelf-22 --notes's YAML.
struct ReadelfKernel {
  std::map<std::string, std::string> fields;
  std::size_t args = 0;
};

std::vector<ReadelfKernel> readelf_kernels(const fs::path& p) {
  auto r = run(std::string(ASMEVO_LLVM_READELF) + " --notes " + quote(p));
  std::vector<ReadelfKernel> ks;
  bool in_kernels = false;
  static const std::regex kernel_key(R"(^(  - |    )(\.[a-z_]+):\s*(.*)$)");
  static const std::regex arg_start(R"(^      - \.)");  // a map item: reqd_workgroup_size items are numbers
  for (const auto& line : asmevo::test::split_lines(r.out)) {
    if (line.rfind("amdhsa.kernels:", 0) == 0) { in_kernels = true; continue; }
    if (!line.empty() && line[0] != ' ') in_kernels = false;
    if (!in_kernels) continue;
    std::smatch m;
    if (std::regex_match(line, m, kernel_key)) {
      if (m[1] == "  - ") ks.emplace_back();
      if (!ks.empty()) ks.back().fields[m[2]] = strip_yaml_quotes(m[3]);
    } else if (std::regex_search(line, arg_start) && !ks.empty()) {
      ++ks.back().args;
    }
  }
  return ks;
}

/// "amdhsa.version" as llvm-readelf-22 prints it.
std::vector<std::uint64_t> readelf_version(const fs::path& p) {
  auto r = run(std::string(ASMEVO_LLVM_READELF) + " --notes " + quote(p));
  std::vector<std::uint64_t> v;
  bool in = false;
  for (const auto& line : asmevo::test::split_lines(r.out)) {
    if (line.rfind("amdhsa.version:", 0) == 0) { in = true; continue; }
    if (in && line.rfind("  - ", 0) == 0) v.push_back(std::strtoull(line.c_str() + 4, nullptr, 10));
    else if (in) break;
  }
  return v;
}

#define EXPECT_HAS(hay, needle) EXPECT_NE((hay).find(needle), std::string::npos) << "message: " << (hay)

// ----------------------------------------------------------------------------------------------------------------

TEST(MetadataCorpus, DecodeThenEncodeGivesTheNoteBytes) {
  ASMEVO_REQUIRE_CORPUS(dir);
  const auto files = asmevo::test::code_objects(dir);
  ASSERT_FALSE(files.empty());
  std::size_t identical = 0, kernels_total = 0, args_total = 0, hidden_total = 0;
  for (const auto& p : files) {
    SCOPED_TRACE(p.string());
    auto f = ElfFile::read(p);
    ASSERT_TRUE(f.has_value()) << f.error().str();
    auto note = find_metadata_note(*f);
    ASSERT_TRUE(note.has_value()) << note.error().str();
    auto doc = read_metadata(*f);
    ASSERT_TRUE(doc.has_value()) << doc.error().str();
    const auto bytes = encode_metadata(*doc);
    const bool same = std::equal(bytes.begin(), bytes.end(), note->desc.begin(), note->desc.end());
    EXPECT_TRUE(same) << "re-encoded metadata differs (" << bytes.size() << " vs " << note->desc.size() << " bytes)";
    identical += same;

    // The typed view agrees with llvm-readelf-22's rendering of the same note.
    Diags all;
    auto ks = kernels(*doc, &all);
    ASSERT_TRUE(ks.has_value()) << ks.error().str();
    EXPECT_TRUE(all.empty());
    const auto theirs = readelf_kernels(p);
    ASSERT_EQ(ks->size(), theirs.size());
    for (std::size_t i = 0; i < ks->size(); ++i) {
      const KernelMeta& k = (*ks)[i];
      const auto& t = theirs[i].fields;
      auto u = [&](const char* key) { return std::strtoull(t.at(key).c_str(), nullptr, 10); };
      EXPECT_EQ(k.name, t.at(".name"));
      EXPECT_EQ(k.symbol, t.at(".symbol"));
      EXPECT_EQ(k.kernarg_segment_size, u(".kernarg_segment_size"));
      EXPECT_EQ(k.kernarg_segment_align, u(".kernarg_segment_align"));
      EXPECT_EQ(k.group_segment_fixed_size, u(".group_segment_fixed_size"));
      EXPECT_EQ(k.private_segment_fixed_size, u(".private_segment_fixed_size"));
      EXPECT_EQ(k.sgpr_count, u(".sgpr_count"));
      EXPECT_EQ(k.vgpr_count, u(".vgpr_count"));
      EXPECT_EQ(k.wavefront_size, u(".wavefront_size"));
      EXPECT_EQ(k.max_flat_workgroup_size, u(".max_flat_workgroup_size"));
      EXPECT_EQ(k.agpr_count.has_value(), t.count(".agpr_count") == 1);
      if (k.agpr_count) EXPECT_EQ(*k.agpr_count, u(".agpr_count"));
      EXPECT_EQ(k.uses_dynamic_stack, t.count(".uses_dynamic_stack") && t.at(".uses_dynamic_stack") == "true");
      EXPECT_EQ(k.args.size(), theirs[i].args);
      // The kernel descriptor the metadata names is a 64-byte object symbol of the file.
      const Symbol* kd = f->find_symbol(k.symbol);
      ASSERT_NE(kd, nullptr) << k.symbol;
      EXPECT_EQ(kd->size, 64u);
      // Arguments are laid out inside the kernarg segment.
      for (const auto& a : k.args) {
        EXPECT_LE(a.offset + a.size, k.kernarg_segment_size) << k.name << " arg at " << a.offset;
        hidden_total += a.is_hidden();
      }
      args_total += k.args.size();
    }
    kernels_total += ks->size();

    auto v = hsa_version(*doc);
    ASSERT_TRUE(v.has_value()) << v.error().str();
    EXPECT_EQ((std::vector<std::uint64_t>{(*v)[0], (*v)[1]}), readelf_version(p));
    if (auto t = hsa_target(*doc)) EXPECT_EQ(*t, "amdgcn-amd-amdhsa--" + f->target_id());
  }
  std::cout << "[ corpus   ] " << files.size() << " objects: re-encoded metadata identical for " << identical << "; "
            << kernels_total << " kernels, " << args_total << " args (" << hidden_total << " hidden)\n";
  EXPECT_EQ(identical, files.size());
}

TEST(MetadataCorpus, YamlReassemblesWithLlvmMcToTheSameDocument) {
  ASMEVO_REQUIRE_CORPUS(dir);
  const auto files = asmevo::test::code_objects(dir);
  ASSERT_FALSE(files.empty());
  std::size_t equal_docs = 0, equal_bytes = 0, n = 0;
  for (const auto& p : files) {
    SCOPED_TRACE(p.string());
    auto f = ElfFile::read(p);
    ASSERT_TRUE(f.has_value());
    auto doc = read_metadata(*f);
    ASSERT_TRUE(doc.has_value());
    const std::string yaml = to_yaml(*doc);
    auto back = assemble_metadata(yaml, f->target_info(), f->code_object_version(), "corpus" + std::to_string(n++));
    ASSERT_TRUE(back.has_value()) << back.error().str() << "\n" << yaml.substr(0, 2000);
    EXPECT_EQ(back->target_id(), f->target_id());
    auto doc2 = read_metadata(*back);
    ASSERT_TRUE(doc2.has_value()) << doc2.error().str();
    const bool same = *doc2 == *doc;  // ordered: key order too
    EXPECT_TRUE(same) << "first difference: " << nlohmann::json::diff(nlohmann::json(*doc), nlohmann::json(*doc2)).dump();
    equal_docs += same;
    auto a = find_metadata_note(*f), b = find_metadata_note(*back);
    equal_bytes += std::equal(a->desc.begin(), a->desc.end(), b->desc.begin(), b->desc.end());
  }
  std::cout << "[ corpus   ] " << files.size() << " objects through to_yaml + llvm-mc-22: " << equal_docs
            << " equal documents, " << equal_bytes << " byte-identical notes\n";
  EXPECT_EQ(equal_docs, files.size());
  EXPECT_EQ(equal_bytes, files.size());
}

/// A minimal valid metadata document with one kernel.
MetaJson minimal_doc() {
  return MetaJson::parse(R"({
    "amdhsa.kernels": [{
      ".args": [
        {".address_space": "global", ".name": "out", ".offset": 0, ".size": 8, ".value_kind": "global_buffer"},
        {".name": "n", ".offset": 8, ".size": 4, ".value_kind": "by_value"},
        {".offset": 16, ".size": 8, ".value_kind": "hidden_block_count_x"}
      ],
      ".group_segment_fixed_size": 0, ".kernarg_segment_align": 8, ".kernarg_segment_size": 24,
      ".max_flat_workgroup_size": 256, ".name": "k", ".private_segment_fixed_size": 0, ".sgpr_count": 8,
      ".symbol": "k.kd", ".vgpr_count": 4, ".wavefront_size": 64
    }],
    "amdhsa.target": "amdgcn-amd-amdhsa--gfx942",
    "amdhsa.version": [1, 2]
  })");
}

TEST(MetadataYaml, TrickyScalarsSurviveLlvmMc) {
  // Strings that LLVM's YAML reader would otherwise type as numbers, booleans or floats, strings that need
  // quoting or escapes (including the assembler's comment characters), and every other scalar and nesting form.
  MetaJson doc = minimal_doc();
  const std::vector<std::string> strings = {
      "12", "-3", "0x10", "0b101", "0o17", "007", "1e5", ".5", "+1", "nan", "inf", "-Infinity", "true", "false",
      "", " ", " lead", "trail ", "a  b", "-dash", "- dash", ": colon", "a: b", "a #b", "a;b", "semi;colon # hash",
      "with \"quotes\" and \\ backslash", "line\nbreak\ttab\rcr", "~", "null", "Null", "---", "...", "'single'",
      "[x]", "{y}", "*alias", "&anchor", "!tag", "%pct", "@at", "`tick", "|pipe", ">fold", "?q", ",comma",
      "\x01\x1f\x7f", "caf\xc3\xa9", "0", "00", "1.", "y", "n", "yes", "no", "on", "off", "plain.text_ok/1+2-3"};
  MetaJson extra = MetaJson::object();
  extra["strings"] = strings;
  extra["ints"] = {0, 1, 127, 128, 255, 256, 65535, 65536, 4294967295ull, 4294967296ull, 18446744073709551615ull,
                   -1, -32, -33, -128, -129, -32768, -32769, -2147483648ll, -2147483649ll,
                   std::numeric_limits<std::int64_t>::min()};
  extra["bools"] = {true, false};
  extra["nil"] = nullptr;
  extra["floats"] = {0.5, 1.0, -2.25, 1e10, 1e-3f};  // values exact in float32 (LLVM stores such doubles as float32)
  extra["empty_list"] = MetaJson::array();
  extra["empty_map"] = MetaJson::object();
  extra["nested"] = MetaJson::parse(R"([[1, [2, [3, []]]], [{"a": [{"b": {}}]}], {"k": [[], {}]}])");
  extra["key with spaces"] = 1;
  extra["key: colon"] = 2;
  extra["key#hash;semi"] = 3;
  doc["asmevo.test"] = extra;
  doc["amdhsa.kernels"][0][".args"][0][".name"] = "12";
  doc["amdhsa.kernels"][0][".args"][1][".type_name"] = "int*";
  // LLVM stores map keys sorted; sort ours the same way so that the comparison can keep key order.
  const MetaJson sorted = MetaJson::parse(nlohmann::json(doc).dump());

  TargetId tid = decode_flags(elf::ef_amdgpu_feature_xnack_any_v4 | elf::ef_amdgpu_feature_sramecc_any_v4 | 0x4c);
  const std::string yaml = to_yaml(sorted);
  auto back = assemble_metadata(yaml, tid, 5, "tricky");
  ASSERT_TRUE(back.has_value()) << back.error().str() << "\n" << yaml;
  auto doc2 = read_metadata(*back);
  ASSERT_TRUE(doc2.has_value()) << doc2.error().str();
  EXPECT_EQ(*doc2, sorted) << nlohmann::json::diff(nlohmann::json(sorted), nlohmann::json(*doc2)).dump(1) << "\n"
                           << yaml;
  auto note = find_metadata_note(*back);
  const auto mine = encode_metadata(sorted);
  EXPECT_TRUE(std::equal(mine.begin(), mine.end(), note->desc.begin(), note->desc.end()))
      << "llvm-mc's msgpack bytes differ from encode_metadata's";
}

TEST(MetadataYaml, SelfMadeObjectRoundTripsForEachVersionAndTarget) {
  // Without the corpus: metadata written by hand, assembled by llvm-mc-22, then through to_yaml and llvm-mc-22
  // again, for code object v4, v5 and v6 and the three targets.
  const std::pair<std::uint32_t, const char*> machs[] = {{0x3f, "gfx90a"}, {0x4c, "gfx942"}, {0x4f, "gfx950"}};
  for (auto [mach, name] : machs)
    for (unsigned v : {4u, 5u, 6u}) {
      SCOPED_TRACE(std::string(name) + " v" + std::to_string(v));
      TargetId tid = decode_flags(mach | elf::ef_amdgpu_feature_xnack_off_v4 | elf::ef_amdgpu_feature_sramecc_on_v4);
      ASSERT_EQ(tid.processor, name);
      MetaJson doc = minimal_doc();
      doc["amdhsa.target"] = "amdgcn-amd-amdhsa--" + tid.str();
      doc["amdhsa.version"] = {1, v - 3};
      auto first = assemble_metadata(to_yaml(doc), tid, v, std::string("self_") + name + std::to_string(v));
      ASSERT_TRUE(first.has_value()) << first.error().str();
      EXPECT_EQ(first->code_object_version(), v);
      EXPECT_EQ(first->target_id(), tid.str());
      auto d1 = read_metadata(*first);
      ASSERT_TRUE(d1.has_value()) << d1.error().str();
      EXPECT_EQ(*d1, doc);
      auto second = assemble_metadata(to_yaml(*d1), first->target_info(), v, std::string("self2_") + name + std::to_string(v));
      ASSERT_TRUE(second.has_value()) << second.error().str();
      auto n1 = find_metadata_note(*first), n2 = find_metadata_note(*second);
      EXPECT_TRUE(std::equal(n1->desc.begin(), n1->desc.end(), n2->desc.begin(), n2->desc.end()));
      auto ks = kernels(*d1);
      ASSERT_TRUE(ks.has_value()) << ks.error().str();
      ASSERT_EQ(ks->size(), 1u);
      EXPECT_EQ((*ks)[0].explicit_args().size(), 2u);
      EXPECT_TRUE((*ks)[0].args[2].is_hidden());
    }
}

TEST(MetadataYaml, TagsOnlyWhatLlvmWouldMistype) {
  // The text itself, for a reader: ordinary strings are plain, ambiguous ones tagged, floats tagged.
  MetaJson d = MetaJson::object();
  d["a"] = "global_buffer";
  d["b"] = "12";
  d["c"] = 1.5;
  d["d"] = "a;b";
  d["e"] = MetaJson::array();
  const std::string y = to_yaml(d);
  EXPECT_EQ(y, "---\na: global_buffer\nb: !str \"12\"\nc: !float 1.5\nd: \"a;b\"\ne: []\n...\n");
}

// ----------------------------------------------------------------------------------------------------------------

TEST(MetadataKernels, ErrorsCarryJsonPointers) {
  MetaJson doc = minimal_doc();
  ASSERT_TRUE(kernels(doc).has_value());

  auto one = [](MetaJson d) {
    auto r = kernels(d);
    EXPECT_FALSE(r.has_value());
    return r ? std::string() : r.error().message;
  };
  MetaJson d = doc;
  d["amdhsa.kernels"][0][".args"][2][".size"] = "8";
  EXPECT_EQ(one(d), "/amdhsa.kernels/0/.args/2/.size: expected an unsigned integer, got a string");
  d = doc;
  d["amdhsa.kernels"][0][".args"][1][".offset"] = -4;
  EXPECT_EQ(one(d), "/amdhsa.kernels/0/.args/1/.offset: expected an unsigned integer, got a negative integer");
  d = doc;
  d["amdhsa.kernels"][0].erase(".symbol");
  EXPECT_EQ(one(d), "/amdhsa.kernels/0/.symbol: required key is missing");
  d = doc;
  d["amdhsa.kernels"][0][".args"][0][".value_kind"] = "global_bufer";
  {
    auto r = kernels(d);
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().message, "/amdhsa.kernels/0/.args/0/.value_kind: unknown value \"global_bufer\"");
    EXPECT_HAS(r.error().hint, "global_buffer");
    EXPECT_EQ(r.error().text, "\"global_bufer\"");
    EXPECT_EQ(r.error().code, DiagCode::object_error);
  }
  d = doc;
  d["amdhsa.kernels"][0][".reqd_workgroup_size"] = {64, 1};
  EXPECT_EQ(one(d), "/amdhsa.kernels/0/.reqd_workgroup_size: expected an array of 3 unsigned integers, got an array of 2");
  d = doc;
  d["amdhsa.kernels"][0][".uses_dynamic_stack"] = 0;
  EXPECT_EQ(one(d), "/amdhsa.kernels/0/.uses_dynamic_stack: expected a boolean, got an integer");
  d = doc;
  d["amdhsa.kernels"] = MetaJson::object();
  EXPECT_EQ(one(d), "/amdhsa.kernels: expected an array of kernels, got a map");
  d = doc;
  d.erase("amdhsa.kernels");
  EXPECT_EQ(one(d), "/amdhsa.kernels: required key is missing");
  d = doc;
  d["amdhsa.kernels"][0]["a/b~c"] = 1;  // unknown keys are fine (kept in raw) ...
  d["amdhsa.kernels"][0][".args"][0]["x/y"] = 1;
  ASSERT_TRUE(kernels(d).has_value());
  EXPECT_EQ((*kernels(d))[0].raw["a/b~c"], 1);
  d["amdhsa.kernels"][0][".args"][0][".name"] = 5;  // ... but known keys are typed
  EXPECT_EQ(one(d), "/amdhsa.kernels/0/.args/0/.name: expected a string, got an integer");

  // Every problem in one pass.
  d = doc;
  d["amdhsa.kernels"][0][".args"][2][".size"] = "8";
  d["amdhsa.kernels"][0].erase(".vgpr_count");
  d["amdhsa.kernels"][0][".args"][0][".address_space"] = "far";
  Diags all;
  auto r = kernels(d, &all);
  ASSERT_FALSE(r.has_value());
  ASSERT_EQ(all.size(), 3u);
  EXPECT_HAS(r.error().message, "(and 2 more problems in the metadata)");
  EXPECT_EQ(all[0].message, "/amdhsa.kernels/0/.args/0/.address_space: unknown value \"far\"");
  EXPECT_EQ(all[1].message, "/amdhsa.kernels/0/.args/2/.size: expected an unsigned integer, got a string");
  EXPECT_EQ(all[2].message, "/amdhsa.kernels/0/.vgpr_count: required key is missing");

  auto v = hsa_version(doc);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ((*v)[1], 2u);
  d = doc;
  d["amdhsa.version"] = "1.2";
  ASSERT_FALSE(hsa_version(d).has_value());
  EXPECT_EQ(hsa_version(d).error().message, "/amdhsa.version: expected an array of 2 unsigned integers, got a string");
  EXPECT_EQ(hsa_target(doc), "amdgcn-amd-amdhsa--gfx942");
  d.erase("amdhsa.target");
  EXPECT_EQ(hsa_target(d), std::nullopt);
}

TEST(MetadataDecode, CorruptMsgpackNamesTheByte) {
  const auto good = encode_metadata(minimal_doc());
  ASSERT_TRUE(decode_metadata(good).has_value());
  auto msg = [](std::vector<std::uint8_t> b) {
    auto r = decode_metadata(b);
    EXPECT_FALSE(r.has_value());
    return r ? std::string() : r.error().message;
  };
  // Truncated anywhere: never a crash, always the offset of the end.
  for (std::size_t cut = 0; cut < good.size(); ++cut) {
    std::vector<std::uint8_t> t(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(cut));
    const std::string m = msg(t);
    EXPECT_TRUE(m.find("runs past the end") != std::string::npos || m.find("unexpected end") != std::string::npos ||
                m.find("truncated") != std::string::npos)
        << "cut " << cut << ": " << m;
  }
  EXPECT_HAS(msg({0xc1}), "msgpack type byte 0xc1 (never used) at byte 0");
  EXPECT_HAS(msg({0x81, 0x01, 0x02}), "a map key at byte 1 (0x1) is not a string");
  EXPECT_HAS(msg({0x90, 0x00}), "1 trailing bytes after the msgpack document, at byte 1");
  EXPECT_HAS(msg({0xdb, 0xff, 0xff, 0xff, 0xff, 'a'}), "runs past the end of the msgpack data (6 bytes)");
  EXPECT_HAS(msg({0xdf, 0xff, 0xff, 0xff, 0xff}), "unexpected end of the msgpack data at byte 5");
  std::vector<std::uint8_t> deep(100000, 0x91);
  deep.push_back(0xc0);
  EXPECT_HAS(msg(deep), "msgpack nesting deeper than 64 levels at byte 64");
  // Fine at the limit.
  std::vector<std::uint8_t> ok(64, 0x91);
  ok.push_back(0xc0);
  EXPECT_TRUE(decode_metadata(ok).has_value());
}

TEST(MetadataDecode, CorruptNoteInAnObject) {
  // An object made here; its note's descriptor is damaged in place (same size) through replace_section_bytes.
  TargetId tid = decode_flags(0x4c | elf::ef_amdgpu_feature_xnack_any_v4 | elf::ef_amdgpu_feature_sramecc_any_v4);
  auto f = assemble_metadata(to_yaml(minimal_doc()), tid, 6, "corrupt");
  ASSERT_TRUE(f.has_value()) << f.error().str();
  auto note = find_metadata_note(*f);
  ASSERT_TRUE(note.has_value());
  const Section& sec = f->sections()[note->section];
  std::vector<std::uint8_t> body(f->data(sec).begin(), f->data(sec).end());
  const auto at = note->desc_offset - sec.offset;
  body[at] = 0xc1;
  auto patched = replace_section_bytes(*f, sec.name, body);
  ASSERT_TRUE(patched.has_value());
  auto g = ElfFile::parse(*patched, "corrupt.o");
  ASSERT_TRUE(g.has_value());
  auto m = read_metadata(*g);
  ASSERT_FALSE(m.has_value());
  EXPECT_EQ(m.error().loc.file, "corrupt.o");
  EXPECT_HAS(m.error().message, "metadata note at file offset " + codeobject::detail::to_hex(note->offset));
  EXPECT_HAS(m.error().message, "invalid msgpack: msgpack type byte 0xc1 (never used) at byte 0");

  // No metadata note at all.
  const fs::path src = scratch() / "nonote.s", obj = scratch() / "nonote.o";
  {
    std::ofstream o(src);
    o << ".text\ns_endpgm\n";
  }
  ASSERT_EQ(run(std::string(ASMEVO_LLVM_MC) + " -triple amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj " + quote(src) +
                " -o " + quote(obj))
                .status,
            0);
  auto h = ElfFile::read(obj);
  ASSERT_TRUE(h.has_value());
  auto none = read_metadata(*h);
  ASSERT_FALSE(none.has_value());
  EXPECT_HAS(none.error().message, "no NT_AMDGPU_METADATA note");
}

}  // namespace
