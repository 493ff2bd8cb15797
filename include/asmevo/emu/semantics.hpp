// The emulator's semantics registry: every implemented op, its handler and how exact it is.
#pragma once

#include <array>
#include <cstddef>

#include "asmevo/emu/state.hpp"
#include "asmevo/ir/op.hpp"
#include "asmevo/support/linkage.hpp"

// The semantics tables, which hold every handler, are needed only where semantics_index is compiled: in header-only
// mode, and under ASMEVO_SEPARATE_COMPILATION only in the translation unit that compiles the emulator (src/separate/
// emu.cpp). Elsewhere a lookup needs no more than Semantics (emu/state.hpp), and skips parsing the sem_*.hpp headers;
// code that calls a table or a handler directly includes its sem_*.hpp.
#if ASMEVO_BODY_EMU
#include "asmevo/emu/sem_image.hpp"
#include "asmevo/emu/sem_lane.hpp"
#include "asmevo/emu/sem_mem.hpp"
#include "asmevo/emu/sem_mfma.hpp"
#include "asmevo/emu/sem_salu.hpp"
#include "asmevo/emu/sem_valu.hpp"
#endif

namespace asmevo::emu {

namespace detail {
/// The registered entry of each op, indexed by Opcode value (nullptr: not implemented); points into the tables.
/// Tables are merged in the order salu, valu, mem, lane, mfma, image and the first entry for an op wins. The one
/// function that reaches every handler: outlined, so that a translation unit that only looks semantics up does
/// not compile them all.
[[nodiscard]] ASMEVO_OUTLINE const std::array<const Semantics*, num_ops>& semantics_index()
#if ASMEVO_BODY_EMU
{
  static const std::array<const Semantics*, num_ops> index = [] {
    std::array<const Semantics*, num_ops> all{};
    for (auto table : {salu_semantics(), valu_semantics(), mem_semantics(), lane_semantics(), mfma_semantics(), image_semantics()})
      for (const Semantics& s : table) {
        const auto i = static_cast<std::size_t>(s.op);
        if (i < all.size() && !all[i]) all[i] = &s;
      }
    return all;
  }();
  return index;
}
#else
;
#endif
}  // namespace detail

/// The semantics of `o` (every encoding of the op: e32, e64, SDWA and DPP), or nullptr when not implemented. O(1).
/// Tables are searched in the order salu, valu, mem, lane, mfma, image; the first entry for an op wins.
[[nodiscard]] inline const Semantics* find_semantics(Opcode o) {
  const auto i = static_cast<std::size_t>(o);
  return i < num_ops ? detail::semantics_index()[i] : nullptr;
}

}  // namespace asmevo::emu
