// Loading a code object named on the command line: read, recover, and keep the encoder that recovered it.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "asmevo/codeobject/elf.hpp"
#include "asmevo/codeobject/module.hpp"
#include "asmevo/mc/encode.hpp"

namespace asmevo::cli {

/// A code object read and recovered, with the encoder that recovered it.
struct Loaded {
  codeobject::ElfFile elf;
  std::unique_ptr<mc::Encoder> enc;
  codeobject::Module m;
};

/// Reads a code object; prints the problem and sets rc on failure.
std::optional<codeobject::ElfFile> load_object(const std::string& path, int& rc);
/// Recovers a code object (the target comes from its e_flags).
std::optional<codeobject::Module> load_module(const codeobject::ElfFile& elf, std::unique_ptr<mc::Encoder>& enc, int& rc);
/// Both.
std::optional<Loaded> load_recovered(const std::string& path, int& rc);

}  // namespace asmevo::cli
