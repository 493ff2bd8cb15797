// The emulator's sandboxed device memory: named allocations separated by guard zones, address translation that
// faults on anything outside them, and nothing that ever reaches host memory.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace asmevo::emu {

/// One allocation of device memory. `base` is the device address of byte 0; the `guard` bytes on each side are
/// never backed: an access there is reported as hitting this allocation's guard.
struct Region {
  std::string name;            ///< "arg2", "kernarg segment", "dispatch packet", "code object"
  std::uint64_t base = 0;
  std::uint64_t size = 0;
  std::uint64_t guard = 0;
  bool writable = true;
  std::uint64_t read_only_end = 0;  ///< bytes [0, read_only_end) of a writable region may not be written (code)
  std::vector<std::byte> bytes;
};

/// Where a failed translation landed, for the fault message.
struct MemoryFault {
  std::string message;
};

/// Device address space of one launch. Regions are laid out at increasing addresses from `first_address`, each
/// aligned to 4 KiB (map), or across a 4 GiB boundary downward from the top of the user address space
/// (map_straddling), and surrounded by `guard` unbacked
/// bytes (so two buffers are never adjacent: an access that runs off the end of one never lands in the next).
/// Placement is deterministic: the same sequence of calls gives the same addresses, so K0 and K1 see identical
/// pointers.
class Memory {
 public:
  static constexpr std::uint64_t first_address = 0x0000'1000'0000'0000ull;
  static constexpr std::uint64_t default_guard = 64 * 1024;

  /// Maps `size` zeroed bytes (size 0 still gets a distinct address) and returns the region index.
  std::size_t map(std::string name, std::uint64_t size, bool writable, std::uint64_t guard = default_guard) {
    const std::uint64_t base = align_up(next_ + guard, 4096);
    next_ = base + std::max<std::uint64_t>(size, 1) + guard;
    return add_region(std::move(name), base, size, writable, guard);
  }
  /// Maps `size` zeroed bytes for a buffer argument so that it straddles a 4 GiB boundary: the region starts in a
  /// 4 GiB window (address bits 63:32) that no earlier region touches, about half of it below the boundary and the
  /// rest above, so every buffer has high dwords of its own and a 64-bit address computation that mixes up the high
  /// halves of two pointers, or drops the carry from the low half (v_add_co_u32 without its v_addc_co_u32), lands
  /// in a guard or unmapped memory instead of in the right bytes by luck. Real allocations can sit anywhere (hipMalloc
  /// promises only alignment), so a correct kernel runs the same. The base stays 256-byte aligned (the alignment
  /// hipMalloc guarantees, HIP Programming Guide "Memory allocation") when at least 256 bytes lie below the boundary;
  /// a buffer under 512 bytes keeps 16-byte alignment (what Triton's pointer specialization assumes, tt.divisibility
  /// = 16), and one under 32 bytes starts at the boundary. Deterministic like map(): the same calls give the same
  /// addresses. Returns the region index.
  ///
  /// These buffers are placed from the top of the 47-bit user address space downward, as hipMalloc's allocations
  /// sit high (0x7f.. on Linux): the k-th straddles the boundary at high dword 0x7ffe - 6k, so the high dwords of its
  /// bytes (that value and the one below) have nearly all of their 15 bits set, and code that masks or drops one of
  /// them (a V#'s 16-bit base_hi ANDed with the wrong constant, say) leaves the buffer. Windows of two buffers differ
  /// by 6k + {-1, 0, 1}, never a power of two, so flipping any single one of bits 32..46 never lands in another
  /// buffer either, but in unmapped memory. A buffer too large for its two windows, or one that would come down to
  /// the regions mapped upward, is placed upward after them instead.
  ///
  /// `phase` (a multiple of 16 below 256) moves the boundary that many bytes further into the buffer, when the
  /// buffer has room for it: the base is then only 16-byte aligned. With phase 0 every base is 256-byte aligned and
  /// the boundary sits at a multiple of 256 from it, so address arithmetic on 256-byte rows never carries into the
  /// high half inside a row; a phase puts the boundary mid-row (see verify::buffer_phase).
  ///
  /// `eighths` (1..7) puts the boundary that many eighths into the buffer instead of at the middle (4), rounded down
  /// as above; where that leaves nothing below it, the middle is used (see verify::buffer_split).
  std::size_t map_straddling(std::string name, std::uint64_t size, bool writable, std::uint64_t guard = default_guard,
                             std::uint64_t phase = 0, unsigned eighths = 4) {
    constexpr std::uint64_t window = 1ull << 32;
    auto split = [size](unsigned e) {
      const std::uint64_t at = size / 8 * e + size % 8 * e / 8;  // size * e / 8 without overflow
      const std::uint64_t b = at & ~std::uint64_t{255};
      return b != 0 ? b : at & ~std::uint64_t{15};
    };
    std::uint64_t below = split(eighths >= 1 && eighths <= 7 ? eighths : 4);
    if (below == 0) below = split(4);
    phase &= 0xf0;
    if (below + phase < size) below += phase;
    const std::uint64_t above = std::max<std::uint64_t>(size - below, 1);
    constexpr std::uint64_t top_boundary = 0x7ffe'0000'0000ull, spacing = 6;
    if (below + guard <= window && above + guard <= window && high_count_ * spacing * window < top_boundary) {
      const std::uint64_t boundary = top_boundary - high_count_ * spacing * window;
      if (boundary - window >= next_ + window) {
        ++high_count_;
        return add_region(std::move(name), boundary - below, size, writable, guard);
      }
    }
    // The first boundary that leaves the guard and the low part inside a window no earlier region reaches.
    const std::uint64_t fresh = align_up(next_, window);
    const std::uint64_t boundary = align_up(fresh + guard + below, window);
    next_ = boundary - below + std::max<std::uint64_t>(size, 1) + guard;
    return add_region(std::move(name), boundary - below, size, writable, guard);
  }
  /// Makes the next region start in a 4 GiB window of its own (after buffers placed by map_straddling).
  void skip_to_next_window() noexcept { next_ = align_up(next_, 1ull << 32); }

  [[nodiscard]] Region& region(std::size_t i) noexcept { return regions_[i]; }
  [[nodiscard]] const Region& region(std::size_t i) const noexcept { return regions_[i]; }
  [[nodiscard]] const std::vector<Region>& regions() const noexcept { return regions_; }

  /// Host pointer for `size` bytes at device address `addr`, or nullptr when any byte lies outside a region or
  /// the access writes read-only memory. `hint` caches the last region hit (per wave) and is updated.
  [[nodiscard]] std::byte* translate(std::uint64_t addr, std::uint64_t size, bool write, std::size_t& hint) noexcept {
    if (hint < regions_.size()) {
      Region& r = regions_[hint];
      if (addr - r.base < r.size && size <= r.size - (addr - r.base) && (!write || writable_at(r, addr - r.base)))
        return r.bytes.data() + (addr - r.base);
    }
    const std::size_t i = find(addr);
    if (i == npos) return nullptr;
    Region& r = regions_[i];
    if (addr - r.base >= r.size || size > r.size - (addr - r.base) || (write && !writable_at(r, addr - r.base))) return nullptr;
    hint = i;
    return r.bytes.data() + (addr - r.base);
  }
  [[nodiscard]] std::byte* translate(std::uint64_t addr, std::uint64_t size, bool write) noexcept {
    std::size_t h = npos;
    return translate(addr, size, write, h);
  }

  /// Says why an access of `size` bytes at `addr` is not allowed (for fault messages).
  [[nodiscard]] std::string describe(std::uint64_t addr, std::uint64_t size, bool write) const {
    auto hex = [](std::uint64_t v) {
      char b[24];
      std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
      return std::string(b);
    };
    const std::string what = std::string(write ? "write" : "read") + " of " + std::to_string(size) + " byte(s) at " + hex(addr);
    for (const Region& r : regions_) {
      const std::uint64_t end = r.base + r.size;
      if (addr >= r.base && addr < end) {
        if (write && !writable_at(r, addr - r.base))
          return what + " writes read-only " + (r.writable ? "code or constant data in " : "") + r.name;
        return what + " runs " + std::to_string(addr + size - end) + " byte(s) past the end of " + r.name +
               " (" + std::to_string(r.size) + " bytes at " + hex(r.base) + ")";
      }
      if (addr < r.base && addr + r.guard >= r.base)
        return what + " hits the guard " + std::to_string(r.base - addr) + " byte(s) before " + r.name + " (at " + hex(r.base) + ")";
      if (addr >= end && addr < end + r.guard)
        return what + " hits the guard " + std::to_string(addr - end) + " byte(s) past the end of " + r.name + " (" +
               std::to_string(r.size) + " bytes at " + hex(r.base) + ")";
    }
    return what + " is outside every allocation";
  }

  static constexpr std::size_t npos = ~std::size_t{0};

 private:
  /// Writes start at or above read_only_end (a write that begins in the writable part cannot reach back into it).
  [[nodiscard]] static bool writable_at(const Region& r, std::uint64_t offset) noexcept {
    return r.writable && offset >= r.read_only_end;
  }
  [[nodiscard]] static std::uint64_t align_up(std::uint64_t v, std::uint64_t a) noexcept { return (v + a - 1) & ~(a - 1); }
  /// Appends a region at `base` (which the callers chose outside every other region and its guards) and keeps
  /// `by_base_` sorted.
  std::size_t add_region(std::string name, std::uint64_t base, std::uint64_t size, bool writable, std::uint64_t guard) {
    Region r;
    r.name = std::move(name);
    r.guard = guard;
    r.base = base;
    r.size = size;
    r.writable = writable;
    r.bytes.assign(static_cast<std::size_t>(size), std::byte{0});
    regions_.push_back(std::move(r));
    const std::size_t i = regions_.size() - 1;
    by_base_.insert(std::upper_bound(by_base_.begin(), by_base_.end(), base,
                                     [&](std::uint64_t b, std::size_t k) { return b < regions_[k].base; }),
                    i);
    return i;
  }
  [[nodiscard]] std::size_t find(std::uint64_t addr) const noexcept {
    // The candidate is the last region (by base) starting at or below addr.
    std::size_t lo = 0, hi = by_base_.size();
    while (lo < hi) {
      const std::size_t mid = (lo + hi) / 2;
      if (regions_[by_base_[mid]].base <= addr) lo = mid + 1; else hi = mid;
    }
    return lo == 0 ? npos : by_base_[lo - 1];
  }

  std::vector<Region> regions_;
  std::vector<std::size_t> by_base_;  ///< region indexes by ascending base
  std::uint64_t next_ = first_address;
  std::uint64_t high_count_ = 0;  ///< buffers map_straddling placed downward from the top
};

}  // namespace asmevo::emu
