// EXPECT-ERROR: is not a member of
// A rule names its ops by typed id (asmevo::op): a misspelt op (v_lshlrev_b3 for v_lshlrev_b32) is an unknown name,
// which the compiler reports with its correction, where a mnemonic string would have compiled and never fired.
#include "asmevo/passes/rules.hpp"

namespace asmevo::passes {
using namespace vars;
constexpr Rule typo =
    rule("fuse-shift-add",
         seq(op(op::v_lshlrev_b3, _t, _k, _x), op(op::v_add_u32, _d, _t, _y).commutative()).where(dead_after(_t)),
         emit(op::v_lshl_add_u32, _d, _x, _k, _y));
}  // namespace asmevo::passes
