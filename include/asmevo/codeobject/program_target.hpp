// What a program says about its code object: the `.amdgcn_target` id, the code object version, and the metadata
// block read the way LLVM's assembler reads it.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "asmevo/codeobject/elf.hpp"
#include "asmevo/codeobject/metadata.hpp"
#include "asmevo/ir/program.hpp"
#include "asmevo/mc/llvm_mc.hpp"

namespace asmevo::codeobject {

/// The `.amdgcn_target` id and `.amdhsa_code_object_version` a program declares.
struct ProgramTarget {
  std::string target_id;  ///< "gfx942" or "gfx942:sramecc+:xnack-"
  int code_object_version = 0;
};

[[nodiscard]] inline Expected<ProgramTarget> program_target(const Program& p) {
  ProgramTarget t;
  for (const auto& it : p.items) {
    if (it.kind != Item::Kind::directive) continue;
    if (it.name == ".amdgcn_target") {
      std::string v = it.text;
      if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
      constexpr std::string_view prefix = "amdgcn-amd-amdhsa--";
      if (!v.starts_with(prefix))
        return fail(DiagCode::parse_error, ".amdgcn_target must be \"amdgcn-amd-amdhsa--<processor>[:features]\"",
                    Loc{p.file, it.line, 0, {}}, it.text);
      t.target_id = v.substr(prefix.size());
    } else if (it.name == ".amdhsa_code_object_version") {
      try {
        t.code_object_version = std::stoi(it.text);
      } catch (...) {
        return fail(DiagCode::parse_error, "bad .amdhsa_code_object_version", Loc{p.file, it.line, 0, {}}, it.text);
      }
      if (t.code_object_version < 4 || t.code_object_version > 6)
        return fail(DiagCode::unsupported, "code object version " + it.text + " is not supported (4, 5 or 6)",
                    Loc{p.file, it.line, 0, {}}, it.text);
    }
  }
  if (t.target_id.empty())
    return fail(DiagCode::parse_error, "the program has no .amdgcn_target directive", Loc{p.file, 0, 0, {}}, {},
                "a code object needs one: `.amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"` (asmevo disasm writes it)");
  if (t.code_object_version == 0)
    return fail(DiagCode::parse_error, "the program has no .amdhsa_code_object_version directive", Loc{p.file, 0, 0, {}}, {},
                "e.g. `.amdhsa_code_object_version 5` (asmevo disasm writes it)");
  return t;
}

/// Reads the YAML of an `.amdgpu_metadata` block the way the assembler does: LLVM MC turns it into the
/// NT_AMDGPU_METADATA note, which is decoded. So what asmevo edits is exactly what the rebuilt object will hold.
[[nodiscard]] inline Expected<nlohmann::ordered_json> metadata_from_yaml(std::string_view yaml, const ProgramTarget& t,
                                                                         mc::Context& ctx, const Loc& where) {
  std::string text = "\t.amdgcn_target \"amdgcn-amd-amdhsa--" + t.target_id + "\"\n\t.amdhsa_code_object_version " +
                     std::to_string(t.code_object_version) + "\n\t.amdgpu_metadata\n" + std::string(yaml);
  if (!text.empty() && text.back() != '\n') text += '\n';
  text += "\t.end_amdgpu_metadata\n";
  auto obj = ctx.assemble_object(text, where.file.empty() ? "<metadata>" : where.file);
  if (!obj) {
    Diag d = std::move(obj).error();
    d.message = "the .amdgpu_metadata block is not valid: " + d.message;
    // Lines of the wrapper are 3 before the YAML's first line.
    if (d.loc.line > 3 && where.line != 0) d.loc.line = where.line + (d.loc.line - 3);
    else d.loc.line = where.line;
    return unexpected(std::move(d));
  }
  auto elf = ElfFile::parse(std::move(*obj), "<metadata>");
  if (!elf) return unexpected(std::move(elf).error());
  return read_metadata(*elf);
}

}  // namespace asmevo::codeobject
