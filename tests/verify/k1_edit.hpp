// Test support: K1 candidates made from a recovered K0 by editing its printed program and rebuilding it, as a user
// does with `asmevo disasm`, an editor and `asmevo assemble --original K0`.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>

#include "asmevo/codeobject/rebuild.hpp"
#include "asmevo/codeobject/recover.hpp"
#include "asmevo/ir/parser.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/verify/code_object.hpp"

namespace asmevo::test {

/// Rebuilds `p` for K0 (relinked, never patched in place, so that K1 is a genuinely different object).
inline std::optional<verify::CodeObject> rebuild_as_k1(const verify::CodeObject& k0, Program p,
                                                       const std::string& name) {
  auto enc = codeobject::encoder_for(k0.elf);
  if (!enc) { ADD_FAILURE() << enc.error().message; return std::nullopt; }
  codeobject::RebuildOptions ro;
  ro.original = &k0.elf;
  ro.recovered = &k0.module;
  ro.allow_patch = false;
  auto built = codeobject::rebuild(std::move(p), **enc, ro);
  if (!built) { ADD_FAILURE() << built.error().str(); return std::nullopt; }
  auto k1 = verify::code_object_from_bytes(std::move(built->bytes), name);
  if (!k1) { ADD_FAILURE() << k1.error().str(); return std::nullopt; }
  return std::move(*k1);
}

/// K0's program printed (ids kept), edited by `edit` (which must change it), parsed back and rebuilt.
template <class Edit>
std::optional<verify::CodeObject> edited_k1(const verify::CodeObject& k0, Edit edit) {
  std::string text = print_program(k0.module.program);
  const std::string before = text;
  edit(text);
  EXPECT_NE(text, before) << "the edit changed nothing";
  auto p = parse_program(text, k0.module.target, "k1.s");
  if (!p) { ADD_FAILURE() << p.error().str(); return std::nullopt; }
  return rebuild_as_k1(k0, std::move(*p), "k1.co");
}

}  // namespace asmevo::test
