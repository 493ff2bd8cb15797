// Tests of verify/memory_model.hpp: hand-written K0/K1 pairs whose answer follows from the memory-model code
// sequences of AMDGPUUsage ("Memory Model GFX942": a release is `buffer_wbl2 sc1; s_waitcnt vmcnt(0)` before the
// flag store, an acquire `s_waitcnt vmcnt(0); buffer_inv sc1` after the flag load) and from which edits only move,
// add or delete plain loads. The reviewer's two false acceptances of the old per-program multiset come first.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "asmevo/ir/parser.hpp"
#include "asmevo/verify/memory_model.hpp"
#include "support/corpus.hpp"
#include "verify/corpus_object.hpp"

namespace {

using namespace asmevo;
using verify::MemoryModelDifference;

Program parse(const std::string& body, Target t) {
  auto p = parse_program(body, t, "<memory_model_test>");
  EXPECT_TRUE(p.has_value()) << (p ? std::string{} : p.error().message) << "\n" << body;
  return p ? std::move(*p) : Program{};
}

std::vector<MemoryModelDifference> compare(const std::string& k0, const std::string& k1, Target t = Target::gfx942) {
  return verify::compare_memory_model(parse("k:\n" + k0, t), parse("k:\n" + k1, t));
}

std::string all(const std::vector<MemoryModelDifference>& v) {
  std::string s;
  for (const auto& d : v) s += d.kernel + " [" + d.rule + "] " + d.message + "\n";
  return s;
}

/// The id of the n-th instruction (0-based) of a "k:" snippet: the parser numbers instructions from i0.
InstId nth(unsigned n) { return InstId{n}; }

// A release at agent scope (AMDGPUUsage "Memory Model GFX942", store atomic release agent): the data store, the
// write-back of the L2 and the wait for both, then the flag store with sc1.
const std::string release = R"(
  global_store_dword v[0:1], v2, off
  buffer_wbl2 sc1
  s_waitcnt vmcnt(0)
  global_store_dword v[4:5], v3, off sc1
  s_endpgm
)";

// ---- the reviewer's cases ----------------------------------------------------------------------------------------

TEST(MemoryModel, ScopeBitsMovedToAnotherStoreAreRejected) {
  // Two 4-byte global stores; the sc0 sc1 move from the first to the second. The per-program multiset (one scoped,
  // one plain 4-byte store on both sides) was equal; in order, the plain store now sits before the event, not after.
  const auto d = compare(R"(
  global_store_dword v[0:1], v2, off sc0 sc1
  global_store_dword v[4:5], v3, off
  s_endpgm
)", R"(
  global_store_dword v[0:1], v2, off
  global_store_dword v[4:5], v3, off sc0 sc1
  s_endpgm
)");
  ASSERT_EQ(d.size(), 1u) << all(d);
  EXPECT_EQ(d[0].kernel, "k");
  EXPECT_NE(d[0].message.find("kernel 'k'"), std::string::npos) << d[0].message;
  // Either the events (different operands) or the plain store's segment gives it away; both name K0 and K1 ids.
  EXPECT_TRUE(d[0].k0_inst.has_value() && d[0].k1_inst.has_value()) << all(d);
  EXPECT_EQ(d[0].rule, "event_order") << all(d);
  EXPECT_EQ(*d[0].k0_inst, nth(0));
  EXPECT_EQ(*d[0].k1_inst, nth(1));
  EXPECT_NE(d[0].message.find("i0"), std::string::npos) << d[0].message;
  EXPECT_NE(d[0].message.find("i1"), std::string::npos) << d[0].message;
}

TEST(MemoryModel, FlagStoreAboveTheDataStoreAndWritebackIsRejected) {
  const auto d = compare(release, R"(
  global_store_dword v[4:5], v3, off sc1
  global_store_dword v[0:1], v2, off
  buffer_wbl2 sc1
  s_waitcnt vmcnt(0)
  s_endpgm
)");
  ASSERT_EQ(d.size(), 1u) << all(d);
  EXPECT_EQ(d[0].rule, "event_order");
  // Event 0: K0's buffer_wbl2 (i1) against K1's flag store (i0).
  EXPECT_EQ(d[0].k0_inst, nth(1));
  EXPECT_EQ(d[0].k1_inst, nth(0));
  EXPECT_NE(d[0].message.find("buffer_wbl2"), std::string::npos) << d[0].message;
  EXPECT_NE(d[0].message.find("sc1"), std::string::npos) << d[0].message;
}

// ---- what must be accepted ---------------------------------------------------------------------------------------

TEST(MemoryModel, IdenticalKernelIsAccepted) {
  EXPECT_TRUE(compare(release, release).empty());
  const std::string acquire = R"(
  global_load_dword v1, v[4:5], off sc1
  s_waitcnt vmcnt(0)
  buffer_inv sc1
  global_load_dword v2, v[0:1], off
  s_waitcnt vmcnt(0)
  global_atomic_add_f32 v[6:7], v2, off
  s_barrier
  s_endpgm
)";
  EXPECT_TRUE(compare(acquire, acquire).empty()) << all(compare(acquire, acquire));
}

TEST(MemoryModel, SwappedPlainLoadsAreAccepted) {
  // Only s_barrier orders anything here, and both loads stay on the same side of it.
  const auto d = compare(R"(
  global_load_dword v1, v[0:1], off
  global_load_dwordx2 v[2:3], v[4:5], off
  s_waitcnt vmcnt(0)
  ds_write_b32 v6, v1
  s_waitcnt lgkmcnt(0)
  s_barrier
  s_endpgm
)", R"(
  global_load_dwordx2 v[2:3], v[4:5], off
  global_load_dword v1, v[0:1], off
  s_waitcnt vmcnt(0)
  ds_write_b32 v6, v1
  s_waitcnt lgkmcnt(0)
  s_barrier
  s_endpgm
)");
  EXPECT_TRUE(d.empty()) << all(d);
}

TEST(MemoryModel, AddedPlainLoadIsAcceptedOnlyWhereK0ReadsTheBytes) {
  // K0 reads v[0:1] + [0, 4) before the barrier and v6 + [0, 4) after it. K1 reads the global dword again before the
  // barrier (bytes K0 reads there: accepted), then bytes K0 never reads there (offset:64): rejected as added.
  const std::string k0 = R"(
  global_load_dword v1, v[0:1], off
  s_waitcnt vmcnt(0)
  ds_write_b32 v6, v1
  s_waitcnt lgkmcnt(0)
  s_barrier
  ds_read_b32 v7, v6
  s_endpgm
)";
  const auto ok = compare(k0, R"(
  global_load_dword v1, v[0:1], off
  global_load_dword v8, v[0:1], off
  s_waitcnt vmcnt(0)
  ds_write_b32 v6, v1
  s_waitcnt lgkmcnt(0)
  s_barrier
  ds_read_b32 v7, v6
  s_endpgm
)");
  EXPECT_TRUE(ok.empty()) << all(ok);
  const auto bad = compare(k0, R"(
  global_load_dword v1, v[0:1], off
  global_load_dword v8, v[0:1], off offset:64
  s_waitcnt vmcnt(1)
  ds_write_b32 v6, v1
  s_waitcnt lgkmcnt(0)
  s_barrier
  ds_read_b32 v7, v6
  s_endpgm
)");
  ASSERT_EQ(bad.size(), 1u) << all(bad);
  EXPECT_EQ(bad[0].rule, "plain_load_added");
  EXPECT_EQ(bad[0].k1_inst, nth(1));
  EXPECT_NE(bad[0].message.find("global bytes [64, 68) from vaddr=v[0:1]"), std::string::npos) << bad[0].message;
}

// ---- plain loads and s_barrier (issue 26, hole 4) ----------------------------------------------------------------

// Two waves exchange LDS slots: each writes its own slot (v1), reads the other wave's (v4) in phase 1, and, after the
// s_barrier that protects the slot, overwrites its own slot 165 instructions later. K1 moves the read below that
// barrier: it may then read the other wave's new value -- but only if that wave ran 165 instructions before this one
// ran one, which random interleavings almost never do.
std::string exchange(bool read_after_barrier) {
  const std::string read = "  ds_read_b32 v3, v4\n  s_waitcnt lgkmcnt(0)\n";
  std::string t = "  ds_write_b32 v1, v2\n  s_waitcnt lgkmcnt(0)\n  s_barrier\n";
  if (!read_after_barrier) t += read;
  t += "  s_barrier\n";
  if (read_after_barrier) t += read;
  for (int i = 0; i < 165; ++i) t += "  v_add_u32_e32 v5, 1, v5\n";
  return t + "  ds_write_b32 v1, v7\n  s_waitcnt lgkmcnt(0)\n  global_store_dword v[8:9], v3, off\n  s_endpgm\n";
}

TEST(MemoryModel, LdsReadMovedBelowTheBarrierThatProtectsItsSlotIsRejected) {
  const auto d = compare(exchange(false), exchange(true));
  ASSERT_EQ(d.size(), 1u) << all(d);
  EXPECT_EQ(d[0].kernel, "k");
  EXPECT_EQ(d[0].rule, "plain_load_moved");
  // The load is i3 in K0 (after ds_write, s_waitcnt, s_barrier) and i4 in K1 (after the second s_barrier, i3).
  EXPECT_EQ(d[0].k0_inst, nth(3));
  EXPECT_EQ(d[0].k1_inst, nth(4));
  EXPECT_EQ(d[0].access.kind, "load");
  EXPECT_EQ(d[0].access.space, "lds");
  // In the user's terms: the kernel, the load (id and text) and the barrier it crossed (event 1, K1's i3).
  const std::string& m = d[0].message;
  EXPECT_NE(m.find("kernel 'k'"), std::string::npos) << m;
  EXPECT_NE(m.find("K1 i4 (ds_read_b32 v3, v4)"), std::string::npos) << m;
  EXPECT_NE(m.find("lds bytes [0, 4) from addr=v4"), std::string::npos) << m;
  EXPECT_NE(m.find("after event 1 (K1 i3: s_barrier)"), std::string::npos) << m;
  EXPECT_NE(m.find("K0 i3: ds_read_b32 v3, v4"), std::string::npos) << m;
  // Hoisting the read above the first barrier (before the other wave wrote the slot) is caught the same way.
  // exchange(true) with its read at the very start instead (the lgkmcnt(0) after ds_write covers it).
  std::string hoisted = exchange(true);
  const std::string moved = "  s_barrier\n  ds_read_b32 v3, v4\n  s_waitcnt lgkmcnt(0)\n";
  ASSERT_NE(hoisted.find(moved), std::string::npos);
  hoisted.replace(hoisted.find(moved), moved.size(), "  s_barrier\n");
  hoisted = "  ds_read_b32 v3, v4\n" + hoisted;
  const auto u = compare(exchange(false), hoisted);
  ASSERT_EQ(u.size(), 1u) << all(u);
  EXPECT_EQ(u[0].rule, "plain_load_moved");
  EXPECT_NE(u[0].message.find("before event 0 (K1 i3: s_barrier)"), std::string::npos) << u[0].message;
}

TEST(MemoryModel, GlobalLoadMovedAcrossABarrierIsRejected) {
  // A workgroup-shared global buffer: wave k stores its slot, the barrier, then the load of another wave's slot.
  const std::string k0 = R"(
  global_store_dword v[0:1], v2, off
  s_waitcnt vmcnt(0)
  s_barrier
  global_load_dwordx2 v[4:5], v[6:7], off offset:8
  s_waitcnt vmcnt(0)
  s_endpgm
)";
  const auto d = compare(k0, R"(
  global_store_dword v[0:1], v2, off
  global_load_dwordx2 v[4:5], v[6:7], off offset:8
  s_waitcnt vmcnt(0)
  s_barrier
  s_endpgm
)");
  ASSERT_EQ(d.size(), 1u) << all(d);
  EXPECT_EQ(d[0].rule, "plain_load_moved");
  EXPECT_EQ(d[0].access.space, "global");
  EXPECT_NE(d[0].message.find("K1 i1 (global_load_dwordx2 v[4:5], v[6:7], off offset:8)"), std::string::npos)
      << d[0].message;
  EXPECT_NE(d[0].message.find("global bytes [8, 16) from vaddr=v[6:7]"), std::string::npos) << d[0].message;
  EXPECT_NE(d[0].message.find("before event 0 (K1 i3: s_barrier)"), std::string::npos) << d[0].message;
}

TEST(MemoryModel, LoadEditsWithinASegmentAreAccepted) {
  // What load-widen, schedule and dce do: loads merged, reordered and deleted between the same two barriers.
  const std::string k0 = R"(
  s_barrier
  ds_read_b32 v2, v0
  ds_read_b32 v3, v0 offset:4
  global_load_dword v6, v[8:9], off
  global_load_dword v7, v[8:9], off offset:4
  ds_read_b32 v10, v11 offset:256
  s_waitcnt vmcnt(0) lgkmcnt(0)
  s_barrier
  ds_write_b32 v0, v2
  s_endpgm
)";
  struct Case { const char* what; const char* k1; };
  const Case cases[] = {
      {"widened to ds_read2_b32 and global_load_dwordx2", R"(
  s_barrier
  ds_read2_b32 v[2:3], v0 offset1:1
  global_load_dwordx2 v[6:7], v[8:9], off
  ds_read_b32 v10, v11 offset:256
  s_waitcnt vmcnt(0) lgkmcnt(0)
  s_barrier
  ds_write_b32 v0, v2
  s_endpgm
)"},
      {"widened to ds_read_b64", R"(
  s_barrier
  ds_read_b64 v[2:3], v0
  global_load_dword v6, v[8:9], off
  global_load_dword v7, v[8:9], off offset:4
  ds_read_b32 v10, v11 offset:256
  s_waitcnt vmcnt(0) lgkmcnt(0)
  s_barrier
  ds_write_b32 v0, v2
  s_endpgm
)"},
      {"reordered", R"(
  s_barrier
  global_load_dword v7, v[8:9], off offset:4
  ds_read_b32 v10, v11 offset:256
  ds_read_b32 v3, v0 offset:4
  global_load_dword v6, v[8:9], off
  ds_read_b32 v2, v0
  s_waitcnt vmcnt(0) lgkmcnt(0)
  s_barrier
  ds_write_b32 v0, v2
  s_endpgm
)"},
      {"one deleted", R"(
  s_barrier
  ds_read_b32 v2, v0
  ds_read_b32 v3, v0 offset:4
  global_load_dword v6, v[8:9], off
  global_load_dword v7, v[8:9], off offset:4
  s_waitcnt vmcnt(0) lgkmcnt(0)
  s_barrier
  ds_write_b32 v0, v2
  s_endpgm
)"},
      {"registers renamed (vgpr-compact)", R"(
  s_barrier
  ds_read_b32 v2, v0
  ds_read_b32 v3, v0 offset:4
  global_load_dword v4, v[6:7], off
  global_load_dword v5, v[6:7], off offset:4
  ds_read_b32 v8, v9 offset:256
  s_waitcnt vmcnt(0) lgkmcnt(0)
  s_barrier
  ds_write_b32 v0, v2
  s_endpgm
)"},
  };
  for (const Case& c : cases) {
    const auto d = compare(k0, c.k1);
    EXPECT_TRUE(d.empty()) << c.what << "\n" << all(d);
  }
  // Widened past what K0 reads (ds_read_b64 at offset 4 reads [4, 12)): bytes [8, 12) are new.
  const auto d = compare(k0, R"(
  s_barrier
  ds_read_b32 v2, v0
  ds_read_b64 v[4:5], v0 offset:4
  global_load_dword v6, v[8:9], off
  global_load_dword v7, v[8:9], off offset:4
  ds_read_b32 v10, v11 offset:256
  s_waitcnt vmcnt(0) lgkmcnt(0)
  s_barrier
  ds_write_b32 v0, v2
  s_endpgm
)");
  ASSERT_EQ(d.size(), 1u) << all(d);
  EXPECT_EQ(d[0].rule, "plain_load_added");
  EXPECT_NE(d[0].message.find("lds bytes [4, 12) from addr=v0"), std::string::npos) << d[0].message;
}

TEST(MemoryModel, AnAddressFoldedIntoTheOffsetIsLeftToTheRunsOnlyWithoutABarrier) {
  // `v_add_u32 v1, 16, v0; ds_read_b32 v2, v1` -> `ds_read_b32 v2, v0 offset:16` reads the same bytes through other
  // address operands. Without an s_barrier no load can cross one: the loads are the runs' business. With one, the
  // coverage is compared by address operands as printed, and the folded load is a (conservative) rejection.
  const std::string k0 = "  v_add_u32_e32 v1, 16, v0\n  ds_read_b32 v2, v1\n  s_waitcnt lgkmcnt(0)\n";
  const std::string k1 = "  v_add_u32_e32 v1, 16, v0\n  ds_read_b32 v2, v0 offset:16\n  s_waitcnt lgkmcnt(0)\n";
  const std::string tail = "  global_store_dword v[4:5], v2, off\n  s_endpgm\n";
  const auto free = compare(k0 + tail, k1 + tail);
  EXPECT_TRUE(free.empty()) << all(free);
  const auto d = compare("  s_barrier\n" + k0 + tail, "  s_barrier\n" + k1 + tail);
  ASSERT_EQ(d.size(), 1u) << all(d);
  EXPECT_EQ(d[0].rule, "plain_load_added");
}

TEST(MemoryModel, WeakerWaitForALoadIsAcceptedForAnLdsStoreIsNot) {
  // K0 waits for everything before the barrier. Waiting only for LDS leaves the global load outstanding across the
  // barrier (a plain load: free in a kernel whose only events are barriers) -- accepted; waiting only for vmcnt
  // leaves the ds_write outstanding when the barrier issues, so other waves may read LDS before it lands -- rejected.
  const std::string k0 = R"(
  global_load_dword v1, v[0:1], off
  ds_write_b32 v6, v2
  s_waitcnt vmcnt(0) lgkmcnt(0)
  s_barrier
  s_endpgm
)";
  const auto ok = compare(k0, R"(
  global_load_dword v1, v[0:1], off
  ds_write_b32 v6, v2
  s_waitcnt lgkmcnt(0)
  s_barrier
  s_endpgm
)");
  EXPECT_TRUE(ok.empty()) << all(ok);
  const auto bad = compare(k0, R"(
  global_load_dword v1, v[0:1], off
  ds_write_b32 v6, v2
  s_waitcnt vmcnt(0)
  s_barrier
  s_endpgm
)");
  ASSERT_EQ(bad.size(), 1u) << all(bad);
  EXPECT_EQ(bad[0].rule, "fence");
  EXPECT_EQ(bad[0].k1_inst, nth(3));  // the barrier
  EXPECT_NE(bad[0].message.find("i1 (ds_write_b32"), std::string::npos) << bad[0].message;
}

TEST(MemoryModel, NonTemporalHintIsNotAScopeBit) {
  // NT selects a cache policy (SIGfx940CacheControl::enableVolatileAndOrNonTemporal); the store stays plain.
  const auto d = compare(release, R"(
  global_store_dword v[0:1], v2, off nt
  buffer_wbl2 sc1
  s_waitcnt vmcnt(0)
  global_store_dword v[4:5], v3, off sc1
  s_endpgm
)");
  EXPECT_TRUE(d.empty()) << all(d);
}

// ---- what must be rejected ---------------------------------------------------------------------------------------

TEST(MemoryModel, DroppedWritebackIsRejected) {
  const auto d = compare(release, R"(
  global_store_dword v[0:1], v2, off
  s_waitcnt vmcnt(0)
  global_store_dword v[4:5], v3, off sc1
  s_endpgm
)");
  ASSERT_EQ(d.size(), 1u) << all(d);
  EXPECT_EQ(d[0].rule, "event_order");
  EXPECT_EQ(d[0].k0_inst, nth(1));  // K0's buffer_wbl2 ...
  EXPECT_EQ(d[0].k1_inst, nth(2));  // ... where K1 already has its flag store
  EXPECT_EQ(d[0].access.kind, "store");
  EXPECT_EQ(d[0].access.scope, 16u);  // sc1 (CPol::SC1 = 16)
}

TEST(MemoryModel, DroppedReleaseWaitIsRejected) {
  const auto d = compare(release, R"(
  global_store_dword v[0:1], v2, off
  buffer_wbl2 sc1
  global_store_dword v[4:5], v3, off sc1
  s_endpgm
)");
  ASSERT_EQ(d.size(), 1u) << all(d);
  EXPECT_EQ(d[0].rule, "fence");
  EXPECT_EQ(d[0].k0_inst, nth(3));  // the flag store in K0 ...
  EXPECT_EQ(d[0].k1_inst, nth(2));  // ... and in K1
}

TEST(MemoryModel, WeakenedReleaseWaitIsRejected) {
  // vmcnt(1) completes the data store but not the write-back (vmcnt is in order: the newest stays outstanding).
  const auto d = compare(release, R"(
  global_store_dword v[0:1], v2, off
  buffer_wbl2 sc1
  s_waitcnt vmcnt(1)
  global_store_dword v[4:5], v3, off sc1
  s_endpgm
)");
  ASSERT_EQ(d.size(), 1u) << all(d);
  EXPECT_EQ(d[0].rule, "fence");
  EXPECT_NE(d[0].message.find("i1 (buffer_wbl2"), std::string::npos) << d[0].message;
}

TEST(MemoryModel, DataStoreMovedBelowTheReleaseIsRejected) {
  // Same events, same waits; the data store now follows the flag store.
  const auto d = compare(release, R"(
  buffer_wbl2 sc1
  s_waitcnt vmcnt(0)
  global_store_dword v[4:5], v3, off sc1
  global_store_dword v[0:1], v2, off
  s_endpgm
)");
  ASSERT_EQ(d.size(), 1u) << all(d);
  EXPECT_EQ(d[0].rule, "plain_access_moved");
  EXPECT_EQ(d[0].access.kind, "store");
  EXPECT_EQ(d[0].k0_count, 1u);  // segment 0 (before the write-back): one plain store in K0 ...
  EXPECT_EQ(d[0].k1_count, 0u);  // ... none in K1
}

TEST(MemoryModel, FlagAndDataSwappingRegistersIsRejected) {
  // The same shape -- a plain store, then a scoped one -- but K1 stores the flag plainly and releases the data.
  const auto d = compare(release, R"(
  global_store_dword v[4:5], v3, off
  buffer_wbl2 sc1
  s_waitcnt vmcnt(0)
  global_store_dword v[0:1], v2, off sc1
  s_endpgm
)");
  ASSERT_EQ(d.size(), 1u) << all(d);
  EXPECT_EQ(d[0].rule, "event_order");
  EXPECT_EQ(d[0].k1_inst, nth(3));
}

TEST(MemoryModel, LoadHoistedAboveAnAcquireIsRejected) {
  // With an acquire in the kernel, plain loads keep their place: the data load may not run before the flag load.
  const std::string k0 = R"(
  global_load_dword v1, v[4:5], off sc1
  s_waitcnt vmcnt(0)
  buffer_inv sc1
  global_load_dword v2, v[0:1], off
  s_waitcnt vmcnt(0)
  s_endpgm
)";
  const auto d = compare(k0, R"(
  global_load_dword v2, v[0:1], off
  global_load_dword v1, v[4:5], off sc1
  s_waitcnt vmcnt(0)
  buffer_inv sc1
  s_endpgm
)");
  ASSERT_EQ(d.size(), 1u) << all(d);
  EXPECT_EQ(d[0].rule, "plain_access_moved");
  EXPECT_EQ(d[0].access.kind, "load");
  // Dropping the wait between the flag load and buffer_inv is a fence difference.
  const auto w = compare(k0, R"(
  global_load_dword v1, v[4:5], off sc1
  buffer_inv sc1
  global_load_dword v2, v[0:1], off
  s_waitcnt vmcnt(0)
  s_endpgm
)");
  ASSERT_EQ(w.size(), 1u) << all(w);
  EXPECT_EQ(w[0].rule, "fence");
}

TEST(MemoryModel, Gfx90aScopeBitsAreGlcAndScc) {
  // gfx90a: glc and scc are scope (SIGfx90ACacheControl), slc a hint.
  const std::string k0 = "  global_store_dword v[0:1], v2, off\n  s_endpgm\n";
  auto d = compare(k0, "  global_store_dword v[0:1], v2, off glc\n  s_endpgm\n", Target::gfx90a);
  ASSERT_EQ(d.size(), 1u) << all(d);
  EXPECT_EQ(verify::describe(d[0].access, Target::gfx90a), "store global glc 4B");
  d = compare(k0, "  global_store_dword v[0:1], v2, off scc\n  s_endpgm\n", Target::gfx90a);
  ASSERT_EQ(d.size(), 1u) << all(d);
  EXPECT_EQ(verify::describe(d[0].access, Target::gfx90a), "store global scc 4B");
  d = compare(k0, "  global_store_dword v[0:1], v2, off slc\n  s_endpgm\n", Target::gfx90a);
  EXPECT_TRUE(d.empty()) << all(d);
}

TEST(MemoryModel, LoopCarriedStoreMustBeCompleteAtTheBarrier) {
  // The LDS store at the bottom of the loop reaches the barrier at its top along the back edge; K0 waits before
  // branching back, K1 does not.
  const std::string k0 = R"(
  s_mov_b32 s0, 4
.Lloop:
  s_barrier
  ds_write_b32 v6, v2
  s_sub_u32 s0, s0, 1
  s_waitcnt lgkmcnt(0)
  s_cmp_lg_u32 s0, 0
  s_cbranch_scc1 .Lloop
  s_endpgm
)";
  EXPECT_TRUE(compare(k0, k0).empty());
  const auto d = compare(k0, R"(
  s_mov_b32 s0, 4
.Lloop:
  s_barrier
  ds_write_b32 v6, v2
  s_sub_u32 s0, s0, 1
  s_cmp_lg_u32 s0, 0
  s_cbranch_scc1 .Lloop
  s_waitcnt lgkmcnt(0)
  s_endpgm
)");
  ASSERT_EQ(d.size(), 1u) << all(d);
  EXPECT_EQ(d[0].rule, "fence");
  EXPECT_EQ(d[0].k1_inst, nth(1));  // the barrier
}

TEST(MemoryModel, CodeNoKernelReachesIsComparedToo) {
  // `f` follows s_endpgm and no branch of `k` reaches it (a callee, say): its scoped store still counts, and there
  // an s_waitcnt is compared as it is written.
  const std::string k0 = "k:\n  s_endpgm\nf:\n  global_store_dword v[0:1], v2, off sc1\n  s_waitcnt vmcnt(0)\n"
                         "  s_setpc_b64 s[30:31]\n";
  const std::string k1 = "k:\n  s_endpgm\nf:\n  global_store_dword v[0:1], v2, off sc0\n  s_waitcnt vmcnt(0)\n"
                         "  s_setpc_b64 s[30:31]\n";
  auto d = verify::compare_memory_model(parse(k0, Target::gfx942), parse(k1, Target::gfx942));
  ASSERT_EQ(d.size(), 1u) << all(d);
  EXPECT_EQ(d[0].kernel, "(code no kernel entry reaches)");
  const std::string k2 = "k:\n  s_endpgm\nf:\n  global_store_dword v[0:1], v2, off sc1\n  s_waitcnt vmcnt(1)\n"
                         "  s_setpc_b64 s[30:31]\n";
  d = verify::compare_memory_model(parse(k0, Target::gfx942), parse(k2, Target::gfx942));
  ASSERT_EQ(d.size(), 1u) << all(d);
  EXPECT_EQ(d[0].access.kind, "wait");
}

TEST(MemoryModel, BranchAroundTheWritebackInACalleeIsRejected) {
  // The release of BranchAroundTheWritebackIsRejected in code no kernel entry reaches (a callee `f` after k's
  // s_endpgm, whose entry is a loop header so that it has a predecessor): K1 keeps the events' program order and
  // skips buffer_wbl2 on an always-taken branch. The path relations hold from where control may enter that code.
  const std::string head = "k:\n  s_endpgm\nf:\n  s_add_u32 s0, s0, -1\n  s_cmp_lg_u32 s0, 0\n"
                           "  s_cbranch_scc1 f\n  global_store_dword v[0:1], v2, off\n";
  const std::string tail = "  s_waitcnt vmcnt(0)\n  global_store_dword v[4:5], v3, off sc1\n  s_setpc_b64 s[30:31]\n";
  const std::string k0 = head + "  buffer_wbl2 sc1\n" + tail;
  const std::string k1 = head + "  s_cmp_eq_u32 0, 0\n  s_cbranch_scc1 .Lskip\n  buffer_wbl2 sc1\n.Lskip:\n" + tail;
  auto d = verify::compare_memory_model(parse(k0, Target::gfx942), parse(k1, Target::gfx942));
  ASSERT_EQ(d.size(), 1u) << all(d);
  EXPECT_EQ(d[0].kernel, "(code no kernel entry reaches)");
  EXPECT_EQ(d[0].rule, "event_path") << all(d);
  EXPECT_NE(d[0].message.find("buffer_wbl2"), std::string::npos) << d[0].message;
  // A diamond of plain code there changes no relation, and K0 against itself has no difference.
  const std::string k2 = head + "  buffer_wbl2 sc1\n  s_cmp_eq_u32 s1, 0\n  s_cbranch_scc1 .Lelse\n  v_mov_b32 v7, 1\n"
                                "  s_branch .Ljoin\n.Lelse:\n  v_mov_b32 v7, 2\n.Ljoin:\n" + tail;
  d = verify::compare_memory_model(parse(k0, Target::gfx942), parse(k2, Target::gfx942));
  EXPECT_TRUE(d.empty()) << all(d);
  d = verify::compare_memory_model(parse(k0, Target::gfx942), parse(k0, Target::gfx942));
  EXPECT_TRUE(d.empty()) << all(d);

  // The release in a second callee `g` after another callee `f`: the CFG joins f's s_setpc_b64 to every labelled
  // block, g's entry included, yet g is still a place control enters, and the skip is still caught.
  const std::string f = "k:\n  s_endpgm\nf:\n  v_mov_b32 v7, 1\n  s_setpc_b64 s[30:31]\ng:\n"
                        "  global_store_dword v[0:1], v2, off\n";
  d = verify::compare_memory_model(parse(f + "  buffer_wbl2 sc1\n" + tail, Target::gfx942),
                                   parse(f + "  s_cmp_eq_u32 0, 0\n  s_cbranch_scc1 .Lskip\n  buffer_wbl2 sc1\n"
                                             ".Lskip:\n" + tail, Target::gfx942));
  ASSERT_EQ(d.size(), 1u) << all(d);
  EXPECT_EQ(d[0].rule, "event_path") << all(d);
}

TEST(MemoryModel, BranchToALabelledBlockInACalleeBesideAnotherIsRejected) {
  // Callee f releases (buffer_wbl2) and then loops on an atomic at the labelled .Lloop; callee g follows. The CFG
  // joins both s_setpc_b64 returns to .Lloop, yet the returns are no way into .Lloop: in K0 the write-back comes
  // before the atomic on every path, and K1's branch from before the write-back straight to .Lloop breaks that.
  const std::string head = "k:\n  s_endpgm\nf:\n  s_cmp_eq_u32 s0, 0\n  s_cbranch_scc1 .Ldone\n";
  const std::string tail = "  buffer_wbl2 sc1\n  s_waitcnt vmcnt(0)\n.Lloop:\n  global_atomic_add v[0:1], v2, off sc1\n"
                           "  s_cmp_eq_u32 s1, 0\n  s_cbranch_scc1 .Lloop\n.Ldone:\n  s_setpc_b64 s[30:31]\n"
                           "g:\n  v_mov_b32 v7, 1\n  s_setpc_b64 s[30:31]\n";
  auto d = verify::compare_memory_model(parse(head + tail, Target::gfx942),
                                        parse(head + "  s_cbranch_vccz .Lloop\n" + tail, Target::gfx942));
  ASSERT_EQ(d.size(), 1u) << all(d);
  EXPECT_EQ(d[0].kernel, "(code no kernel entry reaches)");
  EXPECT_EQ(d[0].rule, "event_path") << all(d);
  d = verify::compare_memory_model(parse(head + tail, Target::gfx942), parse(head + tail, Target::gfx942));
  EXPECT_TRUE(d.empty()) << all(d);
}

TEST(MemoryModel, ScratchIsPrivate) {
  // Spill code (scratch) is per work-item: moving a scratch store across a release is no ordering change.
  const auto d = compare(R"(
  scratch_store_dword off, v9, s0
  global_store_dword v[0:1], v2, off
  buffer_wbl2 sc1
  s_waitcnt vmcnt(0)
  global_store_dword v[4:5], v3, off sc1
  s_endpgm
)", R"(
  global_store_dword v[0:1], v2, off
  buffer_wbl2 sc1
  s_waitcnt vmcnt(0)
  global_store_dword v[4:5], v3, off sc1
  scratch_store_dword off, v9, s0
  s_endpgm
)");
  EXPECT_TRUE(d.empty()) << all(d);
}

TEST(MemoryModel, BranchAroundTheWritebackIsRejected) {
  // K1 keeps every event in program order but branches around the write-back on a condition that always holds:
  // s_cmp_eq_u32 0, 0 sets SCC. In K0 every path from the entry passes buffer_wbl2; in K1 the taken arm skips it.
  const auto d = compare(release, R"(
  global_store_dword v[0:1], v2, off
  s_cmp_eq_u32 0, 0
  s_cbranch_scc1 .Lskip
  buffer_wbl2 sc1
.Lskip:
  s_waitcnt vmcnt(0)
  global_store_dword v[4:5], v3, off sc1
  s_endpgm
)");
  ASSERT_EQ(d.size(), 1u) << all(d);
  EXPECT_EQ(d[0].rule, "event_path") << all(d);
  EXPECT_EQ(d[0].k1_inst, nth(3));  // the write-back
  EXPECT_NE(d[0].message.find("buffer_wbl2"), std::string::npos) << d[0].message;
}

TEST(MemoryModel, BranchAroundTheFlagStoreAfterTheReleaseIsRejected) {
  // The release's flag store is reached only on one arm in K1: the order "write-back, then flag" no longer holds on
  // every path onward from the write-back (post-dominance), though both events keep their program order.
  const auto d = compare(release, R"(
  global_store_dword v[0:1], v2, off
  buffer_wbl2 sc1
  s_waitcnt vmcnt(0)
  s_cmp_eq_u32 s0, 0
  s_cbranch_scc1 .Lend
  global_store_dword v[4:5], v3, off sc1
.Lend:
  s_endpgm
)");
  ASSERT_EQ(d.size(), 1u) << all(d);
  EXPECT_EQ(d[0].rule, "event_path") << all(d);
  EXPECT_EQ(d[0].k1_inst, nth(5));
}

TEST(MemoryModel, BranchesThatKeepEveryEventOnEveryPathAreAccepted) {
  // A diamond of plain code between the events (a scheduling or if-conversion edit) changes no must-precede relation.
  const auto d = compare(release, R"(
  global_store_dword v[0:1], v2, off
  buffer_wbl2 sc1
  s_cmp_eq_u32 s0, 0
  s_cbranch_scc1 .Lelse
  v_mov_b32 v7, 1
  s_branch .Ljoin
.Lelse:
  v_mov_b32 v7, 2
.Ljoin:
  s_waitcnt vmcnt(0)
  global_store_dword v[4:5], v3, off sc1
  s_endpgm
)");
  EXPECT_TRUE(d.empty()) << all(d);
}

TEST(MemoryModel, CallInPlaceOfTheReleaseWaitIsRejected) {
  // K1 calls a callee (here one that returns at once) where K0 waited for the data store and the write-back. A call
  // is an event and clears no fence state, so both its presence and the missing wait are differences.
  const std::string k1 = R"(
  global_store_dword v[0:1], v2, off
  buffer_wbl2 sc1
  s_getpc_b64 s[30:31]
  s_add_u32 s30, s30, 8
  s_addc_u32 s31, s31, 0
  s_swappc_b64 s[30:31], s[30:31]
  global_store_dword v[4:5], v3, off sc1
  s_endpgm
)";
  const auto d = compare(release, k1);
  ASSERT_EQ(d.size(), 1u) << all(d);
  EXPECT_EQ(d[0].rule, "event_order") << all(d);
  EXPECT_EQ(d[0].k1_inst, nth(5));
  // With the same call in K0 (which waits after it), K1 dropping the wait is still a fence difference.
  const std::string k0c = R"(
  global_store_dword v[0:1], v2, off
  buffer_wbl2 sc1
  s_getpc_b64 s[30:31]
  s_add_u32 s30, s30, 8
  s_addc_u32 s31, s31, 0
  s_swappc_b64 s[30:31], s[30:31]
  s_waitcnt vmcnt(0)
  global_store_dword v[4:5], v3, off sc1
  s_endpgm
)";
  const auto e = compare(k0c, k1);
  ASSERT_EQ(e.size(), 1u) << all(e);
  EXPECT_EQ(e[0].rule, "fence") << all(e);
}

// ---- corpus ------------------------------------------------------------------------------------------------------

/// Every Triton and aiter kernel against itself: no difference (recovery is deterministic, so K1 == K0 must pass),
/// and the production kernels' events (aiter's scoped and atomic accesses, barriers) are found. A store that gains sc1
/// in a copy is caught. Also the time it takes: the gate runs it on every candidate.
TEST(MemoryModel, CorpusKernelsMatchThemselves) {
  ASMEVO_REQUIRE_CORPUS(dir);
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir / "triton"))
    if (e.path().extension() == ".hsaco") files.push_back(e.path());
  for (const char* t : {"gfx942", "gfx950"})
    if (fs::is_directory(dir / "aiter-co" / t))
      for (const auto& e : fs::recursive_directory_iterator(dir / "aiter-co" / t))
        if (e.is_regular_file() && e.path().extension() == ".co") files.push_back(e.path());
  ASSERT_GT(files.size(), 33u);
  double worst_ms = 0;
  fs::path worst;
  std::size_t planted = 0;
  for (const auto& f : files) {
    auto obj = emu::test::recover_object(f.string());
    ASSERT_NE(obj, nullptr) << f;
    const Program& p = obj->module.program;
    const auto t0 = std::chrono::steady_clock::now();
    const auto d = verify::compare_memory_model(p, p);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (ms > worst_ms) worst_ms = ms, worst = f;
    EXPECT_TRUE(d.empty()) << f << "\n" << all(d);
    // Plant: the first plain global store gets sc1 (CPol::SC1 = 16; gfx90a spells it scc, the same bit).
    if (f.parent_path().filename() != "triton") continue;
    Program q = p;
    bool done = false;
    for (auto& it : q.items) {
      if (done || it.kind != Item::Kind::inst) continue;
      const auto [role, a] = verify::ordering_role(it.inst);
      if (role != verify::OrderingRole::plain_store || a.space != "global") continue;
      const auto ops = isa::operands(isa::forms(it.inst.target)[it.inst.form]);
      for (std::size_t k = 0; k < ops.size() && k < it.inst.ops.size(); ++k)
        if (ops[k].kind == isa::Kind::cpol) it.inst.ops[k] = Operand::make_imm(16), done = true;
    }
    if (!done) continue;
    ++planted;
    const auto d2 = verify::compare_memory_model(p, q);
    ASSERT_EQ(d2.size(), 1u) << f << "\n" << all(d2);
    EXPECT_EQ(d2[0].rule, "event_order") << f;
  }
  EXPECT_GT(planted, 20u);
  std::printf("compare_memory_model(K0, K0): slowest %.1f ms (%s)\n", worst_ms, worst.filename().c_str());
}

}  // namespace
