// Loading a code object for verification: the ELF read and parsed, and its module recovered with an encoder made
// for the object's own processor and features (what the CLI, the executors and the tests all need).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "asmevo/codeobject/elf.hpp"
#include "asmevo/codeobject/module.hpp"
#include "asmevo/codeobject/recover.hpp"
#include "asmevo/support/diag.hpp"
#include "asmevo/support/file.hpp"
#include "asmevo/verify/executor.hpp"

namespace asmevo::verify {

/// Parses `bytes` as a code object and recovers it; `name` labels diagnostics and becomes CodeObject::path.
/// Errors: DiagCode::object_error for a malformed ELF, unsupported for a processor outside gfx90a/gfx942/gfx950.
[[nodiscard]] inline Expected<CodeObject> code_object_from_bytes(std::vector<std::uint8_t> bytes, std::string name) {
  auto elf = codeobject::ElfFile::parse(std::move(bytes), name);
  if (!elf) return unexpected(std::move(elf).error());
  auto enc = codeobject::encoder_for(*elf);
  if (!enc) return unexpected(std::move(enc).error());
  // The recovered module owns everything it refers to; the encoder is only needed while recovering.
  auto m = codeobject::recover(*elf, **enc);
  if (!m) return unexpected(std::move(m).error());
  return CodeObject{std::move(name), std::move(*elf), std::move(*m)};
}

/// The same for bytes in any container of bytes.
[[nodiscard]] inline Expected<CodeObject> code_object_from_bytes(std::span<const std::byte> bytes, std::string name) {
  std::vector<std::uint8_t> b(bytes.size());
  for (std::size_t i = 0; i < bytes.size(); ++i) b[i] = static_cast<std::uint8_t>(bytes[i]);
  return code_object_from_bytes(std::move(b), std::move(name));
}

/// Reads, parses and recovers the code object at `path` (io_error when it cannot be read).
[[nodiscard]] inline Expected<CodeObject> load_code_object(const std::filesystem::path& path) {
  auto text = read_file(path);
  if (!text) return unexpected(std::move(text).error());
  return code_object_from_bytes(std::vector<std::uint8_t>(text->begin(), text->end()), path.string());
}

}  // namespace asmevo::verify
