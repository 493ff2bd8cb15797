// What the emulator implements, per target and mnemonic: exact, approximate (with what differs) or unsupported.
#pragma once

#include <string_view>
#include <vector>

#include "asmevo/emu/semantics.hpp"
#include "asmevo/ir/gen/isa_tables.hpp"
#include "asmevo/ir/op.hpp"

namespace asmevo::emu {

struct CoverageRow {
  enum class Status : std::uint8_t { exact, approximate, unsupported };
  std::string_view mnemonic;
  Status status = Status::unsupported;
  std::string_view note;  ///< what differs (approximate), empty otherwise
};

[[nodiscard]] constexpr std::string_view to_string(CoverageRow::Status s) noexcept {
  switch (s) {
    case CoverageRow::Status::exact: return "exact";
    case CoverageRow::Status::approximate: return "approximate";
    case CoverageRow::Status::unsupported: return "unsupported";
  }
  return "?";
}

/// One row per mnemonic the target's instruction table holds (the decoder looks semantics up the same way).
[[nodiscard]] inline std::vector<CoverageRow> coverage(Target t) {
  std::vector<CoverageRow> rows;
  for (const auto& m : isa::mnemonics(t)) {
    CoverageRow r;
    r.mnemonic = m.mnemonic;
    if (const Semantics* s = find_semantics(op_of(t, m.first))) {
      r.status = s->exactness == Exactness::exact ? CoverageRow::Status::exact : CoverageRow::Status::approximate;
      r.note = s->note;
    }
    rows.push_back(r);
  }
  return rows;
}

}  // namespace asmevo::emu
