// EXPECT-ERROR: rule_replacement_operand_has_the_wrong_register_class
// The pattern binds _d to v_add_u32's destination, a VGPR; s_add_u32's destination takes SGPRs (and other scalar
// registers) only, on every target, so the replacement could never be built.
#include "asmevo/passes/rules.hpp"

namespace asmevo::passes {
using namespace vars;
constexpr Rule wrong_class =
    rule("fuse-add-add",
         seq(op(op::v_add_u32, _t, _a, _b), op(op::v_add_u32, _d, _t, _c).commutative()).where(dead_after(_t)),
         emit(op::s_add_u32, _d, _a, _c));
}  // namespace asmevo::passes
