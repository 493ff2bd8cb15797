// libFuzzer target for agent/edit_script.hpp: any text, applied as an edit script to a small real kernel, must give
// a new program or errors that each carry a message and a JSON Pointer to the field at fault, never a crash; a
// rejected script leaves the program untouched, and an accepted one prints as a program that parses again and is
// reproduced by replaying its own log (edits_to_script).
// Built and run by scripts/fuzz.sh edit_script (not part of CI).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "asmevo/agent/edit_script.hpp"
#include "asmevo/ir/parser.hpp"
#include "asmevo/ir/printer.hpp"
#include "small_module.hpp"

using namespace asmevo;

namespace {

/// The field a pointer names exists in `doc`, or its parent does (a missing field is named where it belongs).
bool points_into(const nlohmann::json& doc, const std::string& ptr) {
  try {
    const nlohmann::json::json_pointer p(ptr);  // throws on a malformed pointer (an unescaped '~')
    return doc.contains(p) || doc.contains(p.parent_pointer());
  } catch (const nlohmann::json::exception&) {
    return false;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto& m = fuzz::small_module();
  static const std::string original = print_program(m.program);
  passes::PassContext base;
  base.xnack = true;
  base.not_exercised = fuzz::small_not_exercised();

  const auto r = agent::apply_edit_script_text(m, text, base);
  const auto doc = nlohmann::json::parse(text, nullptr, false);
  if (!r.ok()) {
    for (const auto& e : r.errors) {
      if (e.message.empty()) __builtin_trap();
      // Only a document that is not JSON, or not an object, is blamed as a whole.
      if (e.pointer.empty()) {
        if (!doc.is_discarded() && doc.is_object()) __builtin_trap();
      } else if (doc.is_discarded() || !points_into(doc, e.pointer)) {
        __builtin_trap();
      }
    }
    // All or nothing: a rejected script changes nothing.
    if (!r.log.empty() || !r.pass_stats.empty() || print_program(r.program) != original) __builtin_trap();
    return 0;
  }
  if (doc.is_discarded()) __builtin_trap();

  // The new program prints as text that parses again, to the same program.
  const std::string printed = print_program(r.program);
  auto again = parse_program_all(printed, m.target, "edited.s");
  if (!again.diags.empty() || print_program(again.program) != printed) __builtin_trap();

  // Replaying the log as a script reproduces the change, when the log names only ids of the original program (see
  // edits_to_script: an id the log itself made is one no script can name).
  bool originals = true;
  for (const auto& e : r.log) {
    using O = passes::Edit::Op;
    if (e.at.value >= m.program.next_id) originals = false;
    const bool two = e.op == O::swap || e.op == O::move_before || e.op == O::move_after;
    if (two && e.other.value >= m.program.next_id) originals = false;
  }
  if (originals) {
    const auto replay = agent::apply_edit_script(m, agent::edits_to_script(r.log, "k"), base);
    if (!replay.ok() || print_program(replay.program) != printed) __builtin_trap();
  }
  return 0;
}
