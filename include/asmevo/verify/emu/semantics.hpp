// The emulator's semantics registry: every implemented mnemonic, its handler and how exact it is.
#pragma once

#include <algorithm>
#include <string_view>
#include <vector>

#include "asmevo/support/linkage.hpp"
#include "asmevo/verify/emu/sem_image.hpp"
#include "asmevo/verify/emu/sem_lane.hpp"
#include "asmevo/verify/emu/sem_mem.hpp"
#include "asmevo/verify/emu/sem_mfma.hpp"
#include "asmevo/verify/emu/sem_salu.hpp"
#include "asmevo/verify/emu/sem_valu.hpp"

namespace asmevo::emu {

namespace detail {
/// Every registered entry, sorted by mnemonic. The one function that reaches every handler: outlined, so that a
/// translation unit that only looks semantics up does not compile them all.
[[nodiscard]] ASMEVO_OUTLINE const std::vector<Semantics>& semantics_index()
#if ASMEVO_BODY_EMU
{
  static const std::vector<Semantics> index = [] {
    std::vector<Semantics> all;
    for (auto table : {salu_semantics(), valu_semantics(), mem_semantics(), lane_semantics(), mfma_semantics(), image_semantics()})
      all.insert(all.end(), table.begin(), table.end());
    std::stable_sort(all.begin(), all.end(), [](const Semantics& a, const Semantics& b) { return a.mnemonic < b.mnemonic; });
    return all;
  }();
  return index;
}
#else
;
#endif
}  // namespace detail

/// The semantics of `mnemonic` (lowercase, no _e32/_e64/_sdwa/_dpp suffix), or nullptr when not implemented.
/// Tables are searched in the order salu, valu, mem, lane, mfma, image; the first entry for a mnemonic wins.
[[nodiscard]] inline const Semantics* find_semantics(std::string_view mnemonic) {
  const auto& idx = detail::semantics_index();
  auto it = std::lower_bound(idx.begin(), idx.end(), mnemonic,
                             [](const Semantics& s, std::string_view m) { return s.mnemonic < m; });
  return it != idx.end() && it->mnemonic == mnemonic ? &*it : nullptr;
}

}  // namespace asmevo::emu
