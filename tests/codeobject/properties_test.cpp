// Round-trip properties of code-object metadata over random valid documents, with LLVM MC 22 as the oracle:
// msgpack encode/decode identity (byte for byte), and to_yaml read back by LLVM's assembler (which verifies the
// document and writes the note) giving the same document and the same note bytes.
//
// Cases: 150 per property by default; RC_PARAMS overrides (e.g. RC_PARAMS="max_success=2000 seed=42"). rapidcheck
// prints the seed it used ("Using configuration: seed=...") and, on a failure, the shrunk document and an
// RC_PARAMS="reproduce=..." line.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "asmevo/codeobject/elf.hpp"
#include "asmevo/codeobject/metadata.hpp"
#include "asmevo/mc/llvm_mc.hpp"

namespace {

using namespace asmevo;
using namespace asmevo::codeobject;
namespace rcg = rc::gen;

const bool rc_defaults_installed = [] {
  std::string p = std::getenv("RC_PARAMS") ? std::getenv("RC_PARAMS") : "";
  if (p.find("max_success") == std::string::npos) p += " max_success=150";
  setenv("RC_PARAMS", p.c_str(), 1);
  return true;
}();

/// Strings weighted toward what trips YAML and msgpack: numbers, booleans, empty, YAML punctuation, long ones
/// (str8/str16 headers), non-ASCII UTF-8.
rc::Gen<std::string> tricky_string() {
  return rcg::weightedOneOf<std::string>({
      {4, rcg::container<std::string>(rcg::elementOf(std::string("abcxyz_019.-"))).as("plain")},
      {2, rcg::element<std::string>("12", "-7", "0x1f", "1e3", "true", "false", "null", "~", "", " lead", "trail ",
                                    "a: b", "#c", "- d", "[e]", "{f}", "'g'", "\"h\"", "i\\j", "k\tl", "×ü€",
                                    "yes", "no", "on", "off", ".inf", ".nan", "*alias", "&anchor", "!tag", "%d", "@x")},
      {1, rcg::map(rcg::inRange<std::size_t>(30, 300), [](std::size_t n) { return std::string(n, 'w'); })},
  });
}

const char* const value_kinds[] = {"by_value", "global_buffer", "dynamic_shared_pointer", "hidden_global_offset_x",
                                   "hidden_block_count_x", "hidden_group_size_x", "hidden_none"};

rc::Gen<MetaJson> arg_gen() {
  return rcg::apply(
      [](std::string name, std::uint32_t offset, std::uint32_t size, std::size_t kind, bool with_name, bool with_space) {
        MetaJson a = MetaJson::object();
        if (with_name) a[".name"] = name;
        a[".offset"] = offset;
        a[".size"] = size;
        a[".value_kind"] = value_kinds[kind];
        if (with_space && kind == 1) a[".address_space"] = "global";
        return a;
      },
      tricky_string(), rcg::inRange<std::uint32_t>(0, 70000), rcg::inRange<std::uint32_t>(1, 257),
      rcg::inRange<std::size_t>(0, std::size(value_kinds)), rcg::arbitrary<bool>(), rcg::arbitrary<bool>());
}

rc::Gen<MetaJson> kernel_gen() {
  return rcg::apply(
      [](std::string name, std::vector<MetaJson> args, std::uint32_t lds, std::uint32_t scratch, std::uint32_t sgprs,
         std::uint32_t vgprs, std::uint64_t big) {
        MetaJson k = MetaJson::object();
        k[".args"] = MetaJson(args);
        k[".group_segment_fixed_size"] = lds;
        k[".kernarg_segment_align"] = 8;
        k[".kernarg_segment_size"] = big % 4096;
        k[".max_flat_workgroup_size"] = 1024;
        k[".name"] = name;
        k[".private_segment_fixed_size"] = scratch;
        k[".sgpr_count"] = sgprs;
        k[".symbol"] = name + ".kd";
        k[".vgpr_count"] = vgprs;
        k[".wavefront_size"] = 64;
        return k;
      },
      tricky_string(), rcg::container<std::vector<MetaJson>>(arg_gen()), rcg::inRange<std::uint32_t>(0, 65537),
      rcg::inRange<std::uint32_t>(0, 1u << 20), rcg::inRange<std::uint32_t>(0, 105), rcg::inRange<std::uint32_t>(0, 513),
      rcg::arbitrary<std::uint64_t>());
}

rc::Gen<MetaJson> document_gen() {
  return rcg::apply(
      [](std::vector<MetaJson> ks, std::uint32_t minor) {
        MetaJson d = MetaJson::object();
        d["amdhsa.kernels"] = MetaJson(ks);
        d["amdhsa.target"] = "amdgcn-amd-amdhsa--gfx942";
        d["amdhsa.version"] = MetaJson::array({1, minor});
        return d;
      },
      rcg::resize(4, rcg::container<std::vector<MetaJson>>(kernel_gen())), rcg::inRange<std::uint32_t>(0, 3));
}

mc::Context& context() {
  static auto c = mc::Context::create("gfx942");
  return **c;
}

RC_GTEST_PROP(MetadataProperty, MsgpackEncodeDecodeIsIdentity, ()) {
  const MetaJson doc = *document_gen();
  const auto bytes = encode_metadata(doc);
  auto back = decode_metadata(bytes);
  RC_ASSERT(bool(back));
  RC_ASSERT(*back == doc);
  RC_ASSERT(encode_metadata(*back) == bytes);
}

RC_GTEST_PROP(MetadataProperty, YamlThroughLlvmGivesTheSameDocumentAndBytes, ()) {
  const MetaJson doc = *document_gen();
  const std::string text = "\t.amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n\t.amdhsa_code_object_version 5\n"
                           "\t.amdgpu_metadata\n" + to_yaml(doc) + "\t.end_amdgpu_metadata\n";
  auto obj = context().assemble_object(text, "<property>");
  if (!obj) RC_FAIL("LLVM refused the YAML: " + obj.error().str() + "\n" + text);
  auto elf = ElfFile::parse(std::move(*obj), "<property>");
  RC_ASSERT(bool(elf));
  auto note = find_metadata_note(*elf);
  RC_ASSERT(bool(note));
  auto back = decode_metadata(note->desc);
  RC_ASSERT(bool(back));
  // LLVM writes map keys sorted (its msgpack document keeps maps ordered by key); compare as data, then bytes
  // against the same document with sorted keys.
  RC_ASSERT(nlohmann::json::parse(back->dump()) == nlohmann::json::parse(doc.dump()));
  const auto sorted = MetaJson::parse(nlohmann::json::parse(doc.dump()).dump());
  RC_ASSERT(std::vector<std::uint8_t>(note->desc.begin(), note->desc.end()) == encode_metadata(sorted));
}

}  // namespace
