// Example: an edit script built in C++ (nlohmann::json, the same format agents send; schema/edit-script.schema.json)
// and applied to a code object's recovered program: a rejected script says which field is wrong, and an accepted one
// yields the new program and its edit log.
#include <iostream>

#include <nlohmann/json.hpp>

#include <asmevo/agent/edit_script.hpp>
#include <asmevo/ir/printer.hpp>
#include <asmevo/verify/code_object.hpp>

using namespace asmevo;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: edit_script_example K.co\n";
    return 2;
  }
  auto k0 = verify::load_code_object(argv[1]);
  if (!k0) {
    std::cerr << k0.error().str() << "\n";
    return 2;
  }
  const codeobject::Module& m = k0->module;
  // The first s_waitcnt of the program, by its stable id.
  const Inst* wait = nullptr;
  for (const auto& it : m.program.items)
    if (!wait && it.kind == Item::Kind::inst && print_inst(it.inst).starts_with("s_waitcnt")) wait = &it.inst;
  if (!wait) return 1;
  const std::string id = "i" + std::to_string(wait->id.value);

  // A script with a mistake: a count too large for the field. Nothing is applied; the error names the field.
  nlohmann::json bad = {{"edits", {{{"op", "set_waitcnt"}, {"at", id}, {"vmcnt", 99}}}}};
  const auto rejected = agent::apply_edit_script(m, bad);
  for (const auto& e : rejected.errors) std::cout << "rejected: " << e.str() << "\n";

  // A good one: a nop before the wait, then the waitcnt-min pass over the kernel.
  nlohmann::json good = {{"edits", {{{"op", "insert_before"}, {"at", id}, {"insts", {"s_nop 0"}}},
                                    {{"op", "pass"}, {"name", "waitcnt-min"}}}}};
  const auto applied = agent::apply_edit_script(m, good);
  if (!applied.ok()) {
    for (const auto& e : applied.errors) std::cerr << e.str() << "\n";
    return 1;
  }
  std::cout << "applied " << applied.log.size() << " edit(s): " << m.program.instruction_count() << " -> "
            << applied.program.instruction_count() << " instructions\n";
  return rejected.ok() ? 1 : 0;
}
