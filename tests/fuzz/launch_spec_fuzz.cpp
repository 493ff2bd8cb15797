// libFuzzer target for launch/launch_spec.hpp: any text must give launch specs or a Diag, never a crash or an
// exception; every problem of a document that is JSON is named by a JSON Pointer into it; an accepted spec keeps
// the limits the header states, and its buffers (the small ones) materialize to exactly their size, the same bytes
// on every call.
// Built and run by scripts/fuzz.sh launch_spec (not part of CI).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "asmevo/launch/launch_spec.hpp"

using namespace asmevo;
using namespace asmevo::verify;

namespace {

/// Where relative `{"file": ...}` inits resolve: $ASMEVO_FUZZ_LAUNCH_DIR (scripts/fuzz.sh puts a 64-byte `f.bin`
/// there), else a folder that does not exist.
const std::string& base_dir() {
  static const std::string d = [] {
    const char* e = std::getenv("ASMEVO_FUZZ_LAUNCH_DIR");
    return std::string(e ? e : "/nonexistent/asmevo-fuzz");
  }();
  return d;
}

/// Each problem of a document that parsed names its place: "(root): ..." or a JSON Pointer into the document
/// whose field, or whose parent (for a missing key), exists.
bool named(const Diags& all, const nlohmann::json* doc) {
  for (const auto& d : all) {
    if (d.message.empty()) return false;
    if (!doc || d.code != DiagCode::usage) continue;  // syntax and depth errors are located by line and column
    if (d.message.starts_with("(root): ")) continue;
    if (d.message[0] != '/') return false;
    // The pointer ends at a ": " (a key may hold one too, so try each).
    bool found = false;
    for (auto colon = d.message.find(": "); colon != std::string::npos && !found;
         colon = d.message.find(": ", colon + 1)) {
      try {
        const nlohmann::json::json_pointer p(d.message.substr(0, colon));
        found = doc->contains(p) || doc->contains(p.parent_pointer());
      } catch (const nlohmann::json::exception&) {
      }
    }
    if (!found) return false;
  }
  return true;
}

/// What the header promises of an accepted spec.
bool sound(const LaunchSpec& s) {
  for (auto g : s.grid)
    if (g == 0) return false;
  if (s.block && std::uint64_t{(*s.block)[0]} * (*s.block)[1] * (*s.block)[2] > 1024) return false;
  if (s.trials == 0) return false;
  if (s.dynamic_lds && *s.dynamic_lds > 65536) return false;
  for (std::size_t i = 0; i < s.outputs.size(); ++i) {
    if (s.outputs[i] >= s.args.size() || s.args[s.outputs[i]].kind != ArgSpec::Kind::buffer) return false;
    for (std::size_t j = 0; j < i; ++j)
      if (s.outputs[j] == s.outputs[i]) return false;
  }
  for (const auto& a : s.args) {
    if (a.kind != ArgSpec::Kind::buffer) continue;
    const auto& b = a.buffer;
    if (b.bytes() > max_buffer_bytes) return false;
    // Reading files and building large buffers is not what is fuzzed here.
    if (b.init.kind == Init::file || b.bytes() > (64u << 10)) continue;
    auto x = materialize(b, 0), y = materialize(b, 0);
    if (x.has_value() != y.has_value()) return false;
    if (!x) {
      if (x.error().message.empty()) return false;
      continue;
    }
    if (x->size() != b.bytes() || *x != *y) return false;
    if (auto z = materialize(b, s.trials); !z || z->size() != b.bytes()) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // Deep documents are refused before nlohmann (whose dump is recursive) sees them.
  std::size_t deep_at = 0;
  nlohmann::json doc;
  const bool parsed = verify::detail::json_depth(text, deep_at) <= verify::detail::max_spec_depth &&
                      !(doc = nlohmann::json::parse(text, nullptr, false)).is_discarded();

  Diags one, all;
  auto s = parse_launch_spec(text, "fuzz.json", base_dir(), &one);
  // DiagCode::internal is an exception parse_launch_spec caught: never how bad input should be reported.
  if (!s) {
    if (s.error().message.empty() || s.error().code == DiagCode::internal || !named(one, parsed ? &doc : nullptr))
      __builtin_trap();
  } else if (!one.empty() || !sound(*s)) {
    __builtin_trap();
  }
  auto f = parse_launch_file(text, "fuzz.json", base_dir(), &all);
  if (!f) {
    if (f.error().message.empty() || f.error().code == DiagCode::internal || !named(all, parsed ? &doc : nullptr))
      __builtin_trap();
  } else {
    if (!all.empty() || f->empty()) __builtin_trap();
    for (const auto& x : *f)
      if (!sound(x)) __builtin_trap();
  }
  // A single object is the same launch either way.
  if (parsed && doc.is_object() && s.has_value() != f.has_value()) __builtin_trap();
  return 0;
}
