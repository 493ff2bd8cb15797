// An instruction's row of the generated instruction table: what its form is (mnemonic, format, properties,
// operands, implicit registers). The one way library code asks what an instruction is.
#pragma once

#include "asmevo/ir/gen/isa_tables.hpp"
#include "asmevo/ir/program.hpp"

namespace asmevo {

/// The table row of `in`'s form (isa::forms(in.target)[in.form]). A form index outside the target's table (an
/// Inst built by hand, never by the parser or a builder) gives an empty row: no properties, no mnemonic, so no
/// query about it matches.
[[nodiscard]] inline const isa::FormInfo& form_of(const Inst& in) noexcept {
  static constexpr isa::FormInfo none{};
  const auto forms = isa::forms(in.target);
  return in.form < forms.size() ? forms[in.form] : none;
}

}  // namespace asmevo
