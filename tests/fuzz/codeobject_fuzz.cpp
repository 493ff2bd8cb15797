// libFuzzer target for codeobject/elf.hpp and metadata.hpp: any input must give an ElfFile or a Diag, never a
// crash, and everything a parsed file exposes (notes, metadata, kernels, symbols, relocations) must be readable.
// Built and run by scripts/fuzz-codeobject.sh (not part of CI).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "asmevo/codeobject/elf.hpp"
#include "asmevo/codeobject/metadata.hpp"

using namespace asmevo::codeobject;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto f = ElfFile::parse(std::vector<std::uint8_t>(data, data + size), "fuzz.co");
  if (!f) {
    // Every refusal says something.
    if (f.error().message.empty()) __builtin_trap();
    return 0;
  }
  std::size_t sink = 0;
  for (const auto& s : f->sections()) {
    auto d = f->data(s);
    if (!d.empty()) sink += d.front() + d.back();
    sink += f->find_section(s.name) != nullptr;
  }
  for (const auto& n : f->notes()) {
    if (!n.desc.empty()) sink += n.desc.front() + n.desc.back();
    // Descriptors point into the file's own bytes.
    if (n.desc.data() < f->bytes().data() || n.desc.data() + n.desc.size() > f->bytes().data() + f->bytes().size())
      __builtin_trap();
  }
  for (const auto& y : f->symbols()) sink += y.name.size() + y.section_name.size();
  for (const auto& y : f->dynamic_symbols()) sink += y.name.size() + y.section_name.size();
  for (const auto& r : f->relocations()) sink += r.symbol_name.size() + r.type;
  for (const auto& p : f->program_headers()) sink += p.type;
  sink += f->target_id().size() + describe_flags(f->e_flags()).size();
  if (auto doc = read_metadata(*f)) {
    // Whatever decodes re-encodes, and decoding that gives the same document (compared as bytes: a NaN float is
    // not equal to itself as JSON); its YAML text is produced without trouble.
    const auto bytes = encode_metadata(*doc);
    auto again = decode_metadata(bytes);
    if (!again || encode_metadata(*again) != bytes) __builtin_trap();
    sink += to_yaml(*doc).size();
    asmevo::Diags all;
    if (auto ks = kernels(*doc, &all)) {
      for (const auto& k : *ks) sink += k.args.size() + k.explicit_args().size();
    } else if (all.empty()) {
      __builtin_trap();
    }
    (void)hsa_version(*doc);
    (void)hsa_target(*doc);
  }
  if (!f->sections().empty()) {
    const auto& s = f->sections().back();
    auto d = f->data(s);
    (void)replace_section_bytes(*f, s.name, d);
  }
  volatile std::size_t keep = sink;
  (void)keep;
  return 0;
}
