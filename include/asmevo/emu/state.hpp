// The emulator's machine state: predecoded instructions (Op), operand slots, waves, workgroups and stop reasons.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "asmevo/ir/gen/isa_tables.hpp"
#include "asmevo/ir/op.hpp"
#include "asmevo/ir/program.hpp"

namespace asmevo::emu {

inline constexpr unsigned wave_lanes = 64;  ///< every supported target runs wave64 (DESIGN.md)
using LaneMask = std::uint64_t;

/// Rows of a wave's vector register file: v0..v255 are rows 0..255, a0..a255 rows 256..511 (gfx90a+ has a
/// unified 512-entry file per lane: MI300 ISA §3.6.5 "Accumulation VGPRs"), and a few rows the emulator uses
/// as scratch for DPP/SDWA source and destination rewriting (never visible to a program).
inline constexpr unsigned agpr_row0 = 256;
inline constexpr unsigned temp_row0 = 512;
inline constexpr unsigned temp_rows = 8;
inline constexpr unsigned vector_rows = temp_row0 + temp_rows;

/// The scalar file is indexed by the hardware scalar-source code (MI300 ISA §3.6 / the SSRC table):
/// 0..101 SGPRs, 102/103 flat_scratch, 104/105 xnack_mask, 106/107 vcc, 108..123 ttmp0..15, 124 m0,
/// 126/127 exec, 235..238 the aperture registers (constants of a launch). Codes that are not registers
/// (inline constants, src_scc, src_execz …) are resolved by the decoder into Slot kinds.
inline constexpr unsigned scalar_codes = 256;
namespace sc {
inline constexpr unsigned flat_scratch = 102, xnack_mask = 104, vcc = 106, ttmp0 = 108, m0 = 124, exec = 126,
                          shared_base = 235, shared_limit = 236, private_base = 237, private_limit = 238;
}  // namespace sc

/// Canonical operand names: an Op maps each to the slot that holds it (LLVM operand names, see isa_info.hpp).
enum class Name : std::uint8_t {
  vdst, sdst, src0, src1, src2, vaddr, vdata, saddr, sbase, sdata, srsrc, soffset, offset, offset0, offset1,
  addr, data0, data1, simm16, clamp, omod, op_sel, op_sel_hi, neg_lo, neg_hi, dpp_ctrl, row_mask, bank_mask,
  bound_ctrl, fi, dst_sel, dst_unused, src0_sel, src1_sel, cpol, gds, vdst_in, old, imm, idx, swz, d16, abid,
  cbsz, blgp, count_
};
inline constexpr std::size_t name_count = static_cast<std::size_t>(Name::count_);
inline constexpr std::string_view name_text[name_count] = {
    "vdst", "sdst", "src0", "src1", "src2", "vaddr", "vdata", "saddr", "sbase", "sdata", "srsrc", "soffset",
    "offset", "offset0", "offset1", "addr", "data0", "data1", "simm16", "clamp", "omod", "op_sel", "op_sel_hi",
    "neg_lo", "neg_hi", "dpp_ctrl", "row_mask", "bank_mask", "bound_ctrl", "fi", "dst_sel", "dst_unused",
    "src0_sel", "src1_sel", "cpol", "gds", "vdst_in", "old", "imm", "idx", "swz", "d16", "abid", "cbsz", "blgp"};

/// One resolved operand. Registers are row (vector) or scalar-code (scalar) indexes; constants carry their bits
/// as the instruction reads them (inline constants and literals already expanded for the operand's type).
struct Slot {
  enum class Kind : std::uint8_t {
    absent,    ///< optional operand not written
    vgpr,      ///< vector register row(s): `index` .. index+dwords-1 (AGPRs at agpr_row0 + n)
    scalar,    ///< scalar file entries by hardware code: `index` .. index+dwords-1
    constant,  ///< an inline constant, literal, immediate or modifier value: `value`
    scc,       ///< src_scc (code 253) or the SCC bit as an operand
    vccz,      ///< src_vccz (251)
    execz,     ///< src_execz (252)
    label,     ///< a branch target: `index` = Op index of the target
  };
  Kind kind = Kind::absent;
  std::uint8_t mods = 0;     ///< SrcMod bits (neg 1, abs 2, sext 4)
  std::uint16_t dwords = 0;  ///< register width (1, 2, 4 …)
  std::uint32_t index = 0;
  std::uint64_t value = 0;

  [[nodiscard]] constexpr bool present() const noexcept { return kind != Kind::absent; }
  [[nodiscard]] constexpr bool is_vgpr() const noexcept { return kind == Kind::vgpr; }
};

/// A register range an instruction reads or writes, for the waitcnt scoreboard.
struct RegRange {
  bool vector = false;
  std::uint16_t first = 0, count = 0;
};

struct Wave;
struct Op;
struct HazardState;  // hazards.hpp
struct WaveTrace;    // trace.hpp
/// An instruction's semantics. Runs one wave-instruction; reports problems through Wave::stop_with.
using Exec = void (*)(Wave&, const Op&);

/// How faithfully the emulator implements an opcode (`asmevo emulate --coverage`).
enum class Exactness : std::uint8_t { exact, approximate };

/// The semantics of one op (all its encodings: e32, e64, SDWA and DPP share them; the decoder wraps
/// SDWA/DPP forms). `note` says what differs from hardware for approximate entries.
struct Semantics {
  asmevo::Opcode op = asmevo::Opcode::invalid;  ///< op_name(op) is the mnemonic
  Exec fn = nullptr;
  Exactness exactness = Exactness::exact;
  std::string_view note = {};
};

/// One predecoded instruction. Handlers reach operands by canonical name: `op.at(Name::src0)`.
struct Op {
  static constexpr std::uint8_t none = 0xff;
  Exec fn = nullptr;
  Exec base = nullptr;             ///< the plain VALU semantics under a DPP/SDWA wrapper
  const isa::FormInfo* info = nullptr;
  InstId id{};
  std::uint32_t index = 0;         ///< position in the kernel's Op array (branch targets are Op indexes)
  std::uint64_t addr = 0;          ///< byte address in the loaded image (s_getpc_b64 returns the next one)
  std::uint8_t size = 0;           ///< encoded bytes, literal included
  std::uint8_t nslots = 0;
  std::array<std::uint8_t, name_count> pos{};  ///< Name -> slot index, or `none`
  std::array<Slot, 14> slots{};
  std::array<RegRange, 8> reads{}, writes{};
  std::uint8_t nreads = 0, nwrites = 0;
  asmevo::Opcode opcode = asmevo::Opcode::invalid;  ///< the typed op id of `info` (op_info(opcode) says what it is)
  std::uint32_t aux = 0;           ///< handler-specific constant chosen at decode time (e.g. a data width)

  [[nodiscard]] bool has(Name n) const noexcept {
    const auto p = pos[static_cast<std::size_t>(n)];
    return p != none && slots[p].present();
  }
  /// The slot named `n`; an absent Slot when the form has no such operand.
  [[nodiscard]] const Slot& at(Name n) const noexcept {
    static constexpr Slot absent{};
    const auto p = pos[static_cast<std::size_t>(n)];
    return p == none ? absent : slots[p];
  }
  /// Integer value of a modifier/immediate operand (0 when absent).
  [[nodiscard]] std::uint64_t imm(Name n) const noexcept { return at(n).value; }
  [[nodiscard]] std::string_view mnemonic() const noexcept { return info ? info->mnemonic : std::string_view{}; }
};

/// Why a run stopped early. Every stop names the instruction (and lane/address where one applies).
struct Stop {
  enum class Kind : std::uint8_t {
    none,
    fault,        ///< memory access outside every allocation, into a guard, or a write to read-only memory
    waitcnt,      ///< a register read or overwritten before the s_waitcnt that covers its pending load
    unsupported,  ///< an instruction (or operand form) the emulator does not implement
    illegal,      ///< an instruction the hardware would not run this way (bad register, s_trap, bad resource)
    limit,        ///< the instruction budget ran out (a hang guard)
    hazard,       ///< an instruction issued fewer wait states after its producer than a hazard rule requires
  };
  Kind kind = Kind::none;
  InstId inst{};
  std::int32_t lane = -1;
  std::uint64_t address = 0;
  InstId other{};               ///< waitcnt: the load whose result was not waited for; hazard: the producer
  bool has_other = false;
  std::string message;
};

[[nodiscard]] constexpr std::string_view to_string(Stop::Kind k) noexcept {
  switch (k) {
    case Stop::Kind::none: return "none";
    case Stop::Kind::fault: return "fault";
    case Stop::Kind::waitcnt: return "waitcnt violation";
    case Stop::Kind::unsupported: return "unsupported instruction";
    case Stop::Kind::illegal: return "illegal instruction";
    case Stop::Kind::limit: return "instruction limit";
    case Stop::Kind::hazard: return "hazard violation";
  }
  return "?";
}

struct Machine;
struct Workgroup;
struct MemOp;

/// One wave64's architectural state plus its outstanding memory operations.
struct Wave {
  // Vector registers: row-major, one row of 64 lanes per register (lane loops are contiguous).
  std::unique_ptr<std::uint32_t[][wave_lanes]> v;
  std::array<std::uint32_t, scalar_codes> s{};
  bool scc = false;
  std::uint32_t mode = 0;     ///< HW_REG_MODE (MI300 ISA §3.3 "MODE register")
  /// Modes that change how vector instructions issue, tested once per step (machine.hpp step_special):
  /// gpr_idx mirrors MODE.GPR_IDX_EN (bit 27), vskip is set by s_setvskip.
  static constexpr std::uint8_t gpr_idx_on = 1, vskip_on = 2;
  std::uint8_t vector_mode = 0;
  std::uint32_t trapsts = 0;  ///< HW_REG_TRAPSTS
  std::uint32_t pc = 0;       ///< Op index of the next instruction
  std::uint32_t wave_id = 0;  ///< wave index within its workgroup
  bool ended = false;
  bool at_barrier = false;
  Machine* machine = nullptr;
  Workgroup* group = nullptr;
  const Op* ops = nullptr;    ///< the kernel's Op array
  std::uint32_t nops = 0;
  std::uint32_t vgpr_limit = 0, agpr_limit = 0, sgpr_limit = 0;  ///< allocated registers

  // Outstanding memory operations (see pending.hpp): a per-register scoreboard of destinations not yet
  // written, and which instruction they wait for.
  std::uint32_t outstanding = 0;
  std::uint32_t vm_count = 0, lgkm_count = 0;  ///< outstanding ops per s_waitcnt counter (FLAT counts in both)
  std::array<std::uint64_t, (vector_rows + 63) / 64> vpending{};
  std::array<std::uint64_t, 2> spending{};  ///< scalar codes 0..127
  std::vector<InstId> vpending_by, spending_by;
  std::vector<std::unique_ptr<MemOp>> queue;     ///< in issue order
  std::vector<std::unique_ptr<MemOp>> free_ops;  ///< recycled records
  /// Destinations of loads the emulator completed at an s_waitcnt that did not guarantee them (several ops could
  /// have been the one that completed, as with out-of-order scalar loads and lgkmcnt(N > 0)): they stay marked in
  /// the scoreboard until their counter reaches zero, so a program that relies on one particular order stops.
  struct Uncertain {
    std::uint32_t seq;  ///< the scoreboard mark
    InstId load;        ///< the load
    RegRange dst;
    bool lgkm;          ///< which counter must reach zero to settle it
  };
  std::vector<Uncertain> uncertain;

  std::uint64_t executed = 0;  ///< wave-instructions run
  /// What only hardware knows, made up per wave (see launch.hpp and sem_salu.hpp read_hwreg): HW_ID as s_getreg
  /// reads it, the XCC the wave runs on, and the last value its clocks (s_memtime, s_memrealtime) returned. Seeded
  /// from the schedule seed, the trial, the workgroup and the wave, so they differ between all four, as on hardware.
  std::uint32_t hw_id = 0, xcc_id = 0;
  std::uint64_t clock = 0, realtime = 0;
  std::uint64_t group_seed = 0;  ///< the same for every wave of a workgroup: where the CU placed its LDS
  Stop* stop = nullptr;        ///< set when the wave must stop (points into the Machine's result)
  /// State of the optional step hooks (Machine::hooks), owned by the launch; null when the hook is off.
  HazardState* hazards = nullptr;  ///< recent producers, for the wait-state rules (hazards.hpp)
  WaveTrace* trace = nullptr;      ///< the executed instruction stream, for the cost model (trace.hpp)
  std::uint8_t* ran = nullptr;     ///< per Op index: ran_bit flags ORed in when the wave issues it (the launch's, per host thread)

  // ---- register access -------------------------------------------------------------------------
  [[nodiscard]] LaneMask exec() const noexcept { return s[sc::exec] | static_cast<std::uint64_t>(s[sc::exec + 1]) << 32; }
  void set_exec(LaneMask m) noexcept { s[sc::exec] = static_cast<std::uint32_t>(m); s[sc::exec + 1] = static_cast<std::uint32_t>(m >> 32); }
  [[nodiscard]] LaneMask vcc() const noexcept { return s[sc::vcc] | static_cast<std::uint64_t>(s[sc::vcc + 1]) << 32; }
  void set_vcc(LaneMask m) noexcept { s[sc::vcc] = static_cast<std::uint32_t>(m); s[sc::vcc + 1] = static_cast<std::uint32_t>(m >> 32); }
  [[nodiscard]] std::uint64_t s64(unsigned code) const noexcept { return s[code] | static_cast<std::uint64_t>(s[code + 1]) << 32; }
  void set_s64(unsigned code, std::uint64_t x) noexcept { s[code] = static_cast<std::uint32_t>(x); s[code + 1] = static_cast<std::uint32_t>(x >> 32); }
  [[nodiscard]] std::uint32_t* row(unsigned r) noexcept { return v[r]; }
  [[nodiscard]] const std::uint32_t* row(unsigned r) const noexcept { return v[r]; }

  /// Reads a scalar-valued source (scalar register, constant or condition source) as 32 bits.
  [[nodiscard]] std::uint32_t scalar32(const Slot& x) const noexcept {
    switch (x.kind) {
      case Slot::Kind::scalar: return s[x.index];
      case Slot::Kind::constant: return static_cast<std::uint32_t>(x.value);
      case Slot::Kind::scc: return scc ? 1u : 0u;
      case Slot::Kind::vccz: return vcc() == 0 ? 1u : 0u;
      case Slot::Kind::execz: return exec() == 0 ? 1u : 0u;
      default: return 0;
    }
  }
  /// Reads a scalar-valued source as 64 bits (a register pair, or a 64-bit constant).
  [[nodiscard]] std::uint64_t scalar64(const Slot& x) const noexcept {
    if (x.kind == Slot::Kind::scalar) {
      // The aperture sources read as 64 bits give an address: base = {0, aperture_hi}, limit = {~0, aperture_hi}
      // (LLVM SIISelLowering getSegmentAperture reads src_shared_base / src_private_base with s_mov_b64 and uses
      // the high half); read as 32 bits they give aperture_hi.
      if (x.index >= sc::shared_base && x.index <= sc::private_limit) {
        const bool limit = x.index == sc::shared_limit || x.index == sc::private_limit;
        return static_cast<std::uint64_t>(s[x.index]) << 32 | (limit ? 0xffffffffull : 0);
      }
      return s64(x.index);
    }
    if (x.kind == Slot::Kind::constant) return x.value;
    return scalar32(x);
  }
  /// Writes a scalar destination of `x.dwords` registers (1 or 2) from the low bits of `val`.
  void write_scalar(const Slot& x, std::uint64_t val) noexcept {
    if (x.kind != Slot::Kind::scalar) return;  // `null`-like destinations are dropped
    s[x.index] = static_cast<std::uint32_t>(val);
    if (x.dwords >= 2) s[x.index + 1] = static_cast<std::uint32_t>(val >> 32);
  }
  /// The 64 lane values of a 32-bit source: a pointer to the register row, or `tmp` filled with the
  /// broadcast scalar value. `dword` selects the dword of a multi-dword operand.
  [[nodiscard]] const std::uint32_t* lanes(const Slot& x, std::uint32_t* tmp, unsigned dword = 0) const noexcept {
    if (x.kind == Slot::Kind::vgpr) return v[x.index + dword];
    std::uint32_t val;
    if (x.kind == Slot::Kind::scalar) val = s[x.index + dword];
    else if (x.kind == Slot::Kind::constant) val = static_cast<std::uint32_t>(x.value >> (32 * (dword & 1)));
    else val = scalar32(x);
    for (unsigned l = 0; l < wave_lanes; ++l) tmp[l] = val;
    return tmp;
  }

  /// Stops the wave (and the run) with `why`. The first stop of a run wins.
  void stop_with(Stop why);
  void stop_with(Stop::Kind k, const Op& op, std::string message, std::int32_t lane = -1, std::uint64_t address = 0);
};

}  // namespace asmevo::emu
