// How the verifier names an instruction in its messages and receipts: "i42", its stable id (DESIGN.md "Stable
// instruction ids"). Nothing else.
#pragma once

#include <string>

#include "asmevo/ir/program.hpp"

namespace asmevo::verify::detail {

[[nodiscard]] inline std::string id_text(InstId id) { return "i" + std::to_string(id.value); }

}  // namespace asmevo::verify::detail
