// Corpus code objects recovered for the emulator tests: read, encoder chosen, module recovered (test failures name
// what went wrong); a fresh copy for tests that edit the program, or a per-file cached one for tests that only run it.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "asmevo/codeobject/module.hpp"
#include "asmevo/codeobject/recover.hpp"
#include "asmevo/emu/decode.hpp"

namespace asmevo::emu::test {

/// A recovered code object. Recovery needs the LLVM-backed encoder; it is kept alive with the module.
struct RecoveredObject {
  codeobject::ElfFile elf;
  std::unique_ptr<mc::Encoder> enc;
  codeobject::Module module;
};

/// A fresh recovery of `file` (callers may edit module.program); nullptr after recording a test failure.
[[nodiscard]] inline std::unique_ptr<RecoveredObject> recover_object(const std::string& file) {
  auto elf = codeobject::ElfFile::read(file);
  if (!elf) { ADD_FAILURE() << elf.error().message; return nullptr; }
  auto enc = codeobject::encoder_for(*elf);
  if (!enc) { ADD_FAILURE() << enc.error().message; return nullptr; }
  auto m = codeobject::recover(*elf, **enc);
  if (!m) { ADD_FAILURE() << m.error().message; return nullptr; }
  return std::make_unique<RecoveredObject>(RecoveredObject{std::move(*elf), std::move(*enc), std::move(*m)});
}

/// The same, recovered once per file and shared by the tests of one binary (read-only use).
[[nodiscard]] inline const RecoveredObject* cached_object(const std::string& file) {
  static std::map<std::string, std::unique_ptr<RecoveredObject>> cache;
  if (auto it = cache.find(file); it != cache.end()) return it->second.get();
  auto l = recover_object(file);
  if (!l) return nullptr;
  return cache.emplace(file, std::move(l)).first->second.get();
}

/// The recovered program decoded for the emulator (as a launch decodes it), or nullopt after recording a test
/// failure naming `obj`'s file.
[[nodiscard]] inline std::optional<Code> decode_object(const RecoveredObject& obj) {
  DecodeInput in;
  in.program = &obj.module.program;
  in.inst_addr = obj.module.inst_addr;
  auto code = decode_program(in);
  if (!code) {
    ADD_FAILURE() << obj.module.program.file << ": " << code.error().message;
    return std::nullopt;
  }
  return std::move(*code);
}

}  // namespace asmevo::emu::test
