// A recovered code object: one editable Program that prints as a reassemblable `.s`, plus what recovery knew.
//
// recover() (recover.hpp) turns an AMDGPU code object (K0) into a Module whose Program holds, in order: the target and
// code-object-version directives, every code region of .text (kernels, local functions, labels, branches
// and PC-relative references made symbolic), the data sections with the labels code refers to, the
// `.amdhsa_kernel` blocks (every descriptor field), the absolute symbols, and the metadata as YAML.
// print_module() is what `asmevo disasm` writes; assembling that text (rebuild.hpp) gives back K0's .text,
// descriptors, metadata and symbols.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "asmevo/codeobject/descriptor.hpp"
#include "asmevo/codeobject/elf.hpp"
#include "asmevo/codeobject/metadata.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/ir/program.hpp"

namespace asmevo::codeobject {

/// One kernel of a module, as K0 declared it.
struct KernelInfo {
  std::string name;                   ///< the kernel symbol (the descriptor is `name.kd`)
  std::uint64_t code_addr = 0;        ///< in K0
  std::uint64_t descriptor_addr = 0;  ///< in K0
  KernelDescriptor descriptor;        ///< K0's 64 bytes
  nlohmann::ordered_json metadata;    ///< K0's map in `amdhsa.kernels`
};

/// A recovered code object.
struct Module {
  std::string file;                ///< where it came from
  std::string target_id;           ///< LLVM's spelling, e.g. `gfx942:sramecc+:xnack-` (features only when set)
  Target target = Target::gfx942;
  int code_object_version = 5;
  Program program;                 ///< everything the `.s` holds, in order
  std::vector<KernelInfo> kernels; ///< in address order
  nlohmann::ordered_json metadata; ///< the whole NT_AMDGPU_METADATA document
  std::uint64_t text_addr = 0;     ///< K0's .text address
  /// K0 address of each instruction by id (~0 for none); the in-place patch path checks edits against it.
  std::vector<std::uint64_t> inst_addr;
  Diags notes;                     ///< what recovery kept as numbers or raw words, and why
};

/// The module as assembly text (what `asmevo disasm` writes).
[[nodiscard]] inline std::string print_module(const Module& m) { return print_program(m.program); }

}  // namespace asmevo::codeobject
