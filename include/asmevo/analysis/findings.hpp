// What a static check reports: one broken rule at one instruction, named by stable instruction ids.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "asmevo/ir/program.hpp"

namespace asmevo::analysis {

/// How sure a finding is that the code is wrong.
enum class Severity : std::uint8_t {
  error,    ///< the code breaks a rule the hardware documentation and LLVM agree on, with no known exception
  warning,  ///< the code breaks a documented rule that AMD's own production kernels are known to break the same
            ///< way (the rule row says where); reported, but not taken as proof that the code is wrong
};

/// One problem a static check found. `rule` is stable and machine-readable ("waitcnt", "hazard:<row name>",
/// "abi:<what>"); the message says it in the user's terms and names the instructions by id and mnemonic.
struct Finding {
  std::string rule;
  Severity severity = Severity::error;
  InstId at{};                  ///< the instruction that breaks the rule (the reader, the consumer, the user)
  std::optional<InstId> other;  ///< the instruction it conflicts with (the load not waited for, the producer)
  std::string message;
};

using Findings = std::vector<Finding>;

}  // namespace asmevo::analysis
