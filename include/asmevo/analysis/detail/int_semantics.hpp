// The value semantics of gfx9 instructions over bit terms (detail/bit_terms.hpp): one step of one wave's register
// state, shared by the known-bits dataflow (analysis/known_bits.hpp) and the equivalence prover
// (analysis/equivalence.hpp).
//
// What is modelled exactly, bit by bit: SALU moves, bitwise operations, shifts by a known amount, bit-field
// extracts, add/sub with carry, multiplies when the operands allow (constants, or a few set bits), selects, compares
// (decided from known bits when they can be), the exec-mask idioms (s_*_saveexec_b64), and the VALU integer
// counterparts (v_mov, v_cndmask, v_and/or/xor/not, v_lshl/lshr/ashr, v_add/sub with carries, v_lshl_add_u64,
// v_mad_u64_u32, v_add3/xad/lshl_or/and_or/or3, v_bfe, v_cmp/v_cmpx on integers, v_cmp/v_cmpx on f32 as bit
// circuits (the order compares only where MODE keeps f32 input denormals, see valu());
// byte and short loads zero- or sign-extended; v_max_f32/v_min_f32 x, x of a canonical x, see canonical()). A VALU
// result goes to the active lanes only: the register becomes mux(exec, new, old) (MI300 ISA §3.3 "EXEC": "inactive
// lanes are not written").
// A VALU lane-mask result (v_cmp, carry-out) has 0 in inactive lanes (MI300 ISA §6.3 "VOPC": "the compare result
// of inactive threads is zero"; the emulator's carry_op writes `cout & exec` the same way).
//
// Everything else is an opaque result identified by the operation and its exact operands, so the same operation on
// the same inputs is the same value on both sides of a proof, and nothing is assumed about what it computes:
//  - lane-wise VALU operations (one lane's result depends on that lane's operands only; SDWA with dst_sel:DWORD
//    too) on operands specialised to the active lanes (BitAlg::spec), written through mux(exec, ...);
//  - everything that may read other lanes (DPP, readlane, permlane, MFMA) or keep part of its destination (other
//    SDWA, 16-bit results, d16 loads, s_cmov, s_bitset, v_writelane) on all its operands, the whole old destination
//    and exec;
//  - loads: also the wave's memory-operation count, so two loads are one value only if they are the same dynamic
//    load of the same address on both sides (kernarg bytes the launch fixes are constants instead).
// Stores, atomics, barriers and other side effects are reported as observations (a key naming the instruction, its
// operand terms and exec) that a caller compares between the sides; instructions whose register effects cannot be
// named (s_setpc, s_movrel, gpr-index mode, lds_direct) are refused.
//
// Results are written at issue: a caller relies on the waitcnt checker (analysis/waitcnt_check.hpp) for a load's
// destination not being read or overwritten before its wait, and on the hazard checker for wait states.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "asmevo/analysis/detail/bit_terms.hpp"
#include "asmevo/analysis/detail/reg_units.hpp"
#include "asmevo/ir/gen/isa_tables.hpp"
#include "asmevo/ir/op.hpp"
#include "asmevo/ir/program.hpp"
#include "asmevo/ir/reg.hpp"

namespace asmevo::analysis {

/// Bytes of a read-only region the launch fixes (the kernarg segment, the dispatch packet): the bits set in known[i]
/// are those of bytes[i] in every launch the facts describe (0xff: the whole byte; 0x80 alone: its top bit, as for
/// bit 47 of a buffer address); the other bits are unknown.
struct FixedBytes {
  std::vector<std::uint8_t> bytes;
  std::vector<std::uint8_t> known;
};

}  // namespace asmevo::analysis

namespace asmevo::analysis::detail {


// ---- launch-fixed memory ----------------------------------------------------------------------------------------

using ConstRegion = FixedBytes;

/// What one evaluation may use besides the state.
struct EvalEnv {
  const ConstRegion* kernarg = nullptr;
  const ConstRegion* dispatch = nullptr;
  std::uint32_t kernarg_sym = ~0u, dispatch_sym = ~0u;  ///< persistent 64-bit symbols of the two base addresses
  unsigned side = 0;  ///< 0 or 1: results that depend on timing or code placement differ between sides
  /// MODE's f32 fields when they hold throughout the run (the kernel descriptor's values, and no instruction of
  /// either kernel writes MODE): bit 0 keeps f32 input denormals, bit 1 keeps output denormals (the MODE.FP_DENORM
  /// encoding: FLOAT_DENORM_MODE_32 = 3 keeps both), bit 2 is IEEE mode. -1: not known, and no rule that needs it
  /// applies (see Evaluator::canonical).
  int f32_mode = -1;
};

/// How an instruction leaves its block.
struct Control {
  enum class Kind : std::uint8_t { none, branch, cbranch, endpgm } kind = Kind::none;
  enum class Cond : std::uint8_t { scc0, scc1, vccz, vccnz, execz, execnz } cond = Cond::scc0;
  std::string label;
};

/// What one step did besides changing registers.
struct StepOut {
  std::vector<std::string> obs;  ///< observable effects (stores, barriers, messages) in order, as comparable keys
  /// A vector store whose register operands, on the active lanes, are uniform terms: every active lane writes the
  /// same value to the same address, so the store has one effect under any exec that is not zero. `key` is its
  /// observation without exec, `index` the observation's place in `obs`.
  struct UniformStore {
    std::size_t index;
    std::string key;
    std::uint32_t exec;
  };
  std::vector<UniformStore> uniform_stores;
  Control ctl;
  bool refused = false;          ///< the instruction's effect cannot be modelled
  std::string why;
};

// ---- helpers ----------------------------------------------------------------------------------------------------


/// A signed integer type (iN): compares of it are signed, loads of it sign-extend.
[[nodiscard]] constexpr bool is_signed_int(DataType t) noexcept {
  using T = DataType;
  return one_of(t, T::i4, T::i8, T::i16, T::i24, T::i32, T::i64);
}

/// Instructions whose register effects are not a function of their named operands: they are refused. Register
/// indexing by M0 (s_movrel*, s_set_gpr_idx_*), calls, indirect jumps and trap returns, the legacy fork/join and
/// the conditional-debug branches, traps; and hidden control state: VSKIP (no vector instruction issues while set,
/// MI300 ISA S_SETVSKIP), a fork that writes EXEC and the PC (S_CBRANCH_I_FORK is SOPK with no branch property in
/// the tables), returns from a trap (S_RFE_RESTORE_B64), the wave's kill bit.
[[nodiscard]] constexpr bool unmodelable(Opcode o) noexcept {
  using F = Family;
  return one_of(family_of(o), F::s_movrel, F::s_gpr_idx, F::s_call, F::s_rfe, F::s_cbranch_fork, F::s_cbranch_cdbg) ||
         one_of(o, op::s_setpc_b64, op::s_trap, op::s_setvskip, op::s_setkill);
}

/// Results that depend on time, code placement or wave placement: different on each side.
[[nodiscard]] constexpr bool side_specific(Opcode o) noexcept {
  return one_of(family_of(o), Family::s_memtime, Family::s_getreg) || o == op::s_getpc_b64;
}

/// VALU operations whose result in one lane may depend on other lanes: DPP, lane reads and writes, permlane swaps,
/// MFMA and SMFMAC (and v_mfma_ld_scale_b32, which sets the scales of the MFMA that follows it). `f` is a form of `o`.
[[nodiscard]] inline bool cross_lane(const isa::FormInfo& f, Opcode o) {
  return f.variant == isa::Variant::dpp || f.has(isa::prop::dpp) || f.has(isa::prop::mfma) ||
         one_of(family_of(o), Family::v_cross_lane, Family::v_mfma, Family::v_smfmac) || o == op::v_mfma_ld_scale_b32;
}
[[nodiscard]] inline bool cross_lane(const Inst& in) { return cross_lane(form_of(in), op_of(in)); }

/// Value bits of a constant operand in a slot of value type t (MI300 ISA §3.6 "Scalar and vector source operands":
/// integer inline constants -16..64 are sign-extended to the operand width; a 32-bit literal is the operand value
/// for 32-bit slots). Float constants and 64-bit literals are not decoded here (the caller makes them opaque).
[[nodiscard]] inline std::optional<std::uint64_t> int_constant(const Operand& o, const isa::OperandInfo& oi) {
  if (o.kind != Operand::Kind::imm) return std::nullopt;
  const unsigned bits = oi.bits ? oi.bits : 32;
  const std::int64_t v = o.imm;
  if (v >= -16 && v <= 64)
    return bits >= 64 ? static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(static_cast<std::uint32_t>(v));
  if (bits > 32) return std::nullopt;
  using VT = isa::ValueType;
  if (oi.type == VT::i16 || oi.type == VT::f16 || oi.type == VT::bf16 || oi.type == VT::v2i16 ||
      oi.type == VT::v2f16 || oi.type == VT::v2bf16 || oi.type == VT::v2f16_splat)
    return std::nullopt;
  if (v < -0x80000000ll || v > 0xffffffffll) return std::nullopt;
  return static_cast<std::uint64_t>(static_cast<std::uint32_t>(v));
}

/// The evaluator refuses `in` (its effect on registers or control cannot be named): see Evaluator::run.
[[nodiscard]] inline bool refuses(const Inst& in) {
  const auto& f = form_of(in);
  const Opcode id = op_of(in);
  if (unmodelable(id)) return true;
  for (const Operand& o : in.ops)
    if (o.is_reg() && o.reg.file == RegFile::special &&
        (o.reg.index == special::src_lds_direct || o.reg.index == special::src_pops_exiting_wave_id))
      return true;
  if (f.has(isa::prop::branch) || f.has(isa::prop::terminator) || f.has(isa::prop::no_fallthrough)) {
    if (family_of(id) == Family::s_endpgm) return false;
    bool label = false;
    const auto ops = isa::operands(f);
    for (std::size_t k = 0; k < ops.size() && k < in.ops.size(); ++k)
      label |= ops[k].name == "simm16" && in.ops[k].kind == Operand::Kind::expr;
    if (!label) return true;
    // s_branch and the six s_cbranch_* on SCC, VCCZ or EXECZ are followed (Evaluator::control).
    return !one_of(family_of(id), Family::s_branch, Family::s_cbranch);
  }
  return false;
}

// ---- the evaluator ----------------------------------------------------------------------------------------------

/// One step of `in` on state `S` (get(unit) -> Word, set(unit, Word), seq() -> std::uint64_t& memory-op count).
template <class S>
class Evaluator {
 public:
  Evaluator(BitAlg& a, S& s, const EvalEnv& env, const Inst& in)
      : A(a), st(s), env(env), in(in), f(form_of(in)), op_id(op_of(in)), info(op_info(op_id)) {
    ops_info = isa::operands(f);
  }

  StepOut run() {
    const auto m = f.mnemonic;  // for messages only
    if (unmodelable(op_id)) return refuse(std::string(m) + " changes control or registers in ways not modelled");
    for (std::size_t k = 0; k < in.ops.size() && k < ops_info.size(); ++k)
      if (in.ops[k].is_reg() && in.ops[k].reg.file == RegFile::special &&
          (in.ops[k].reg.index == special::src_lds_direct || in.ops[k].reg.index == special::src_pops_exiting_wave_id))
        return refuse("reads " + to_string(in.ops[k].reg));
    if (f.implicit_defs & isa::reg::mode) {
      out.obs.push_back(key("mode"));  // s_setreg and friends: MODE (float rounding/denormals) must agree
      // The new MODE: a value of the operands and the old MODE (key() names it), so that a float operation after
      // the write is not the same value as the same operation before it.
      if (A.symbolic()) {
        const auto n = A.opaque(key("mode-write"), false);
        Word w;
        for (unsigned j = 0; j < 32; ++j) w[j] = A.proj(n, j);
        st.set(unit_mode, w);
      }
      write_defs_opaque(false);
      return std::move(out);
    }
    if (f.has(isa::prop::branch) || f.has(isa::prop::terminator) || f.has(isa::prop::no_fallthrough)) return control();
    if (is_memory()) { memory(); return std::move(out); }
    if (f.format == isa::Format::SOPP) {
      // Waits, nops, barriers, messages, priorities: no register results. Anything that orders memory or talks to
      // the outside is observable.
      if (one_of(info.family, Family::s_sendmsg, Family::s_dcache, Family::s_icache) ||
          one_of(op_id, op::s_barrier, op::s_sethalt, op::s_ttracedata, op::s_incperflevel, op::s_decperflevel)) {
        out.obs.push_back(key("sopp"));
        if (op_id == op::s_barrier) ++st.seq();
      }
      return std::move(out);
    }
    if (side_specific(op_id)) { write_defs_opaque(true); return std::move(out); }
    if (f.has(isa::prop::salu)) {
      if (!salu()) write_defs_opaque(false);
      return std::move(out);
    }
    if (f.has(isa::prop::valu)) {
      if (!valu()) valu_generic();
      return std::move(out);
    }
    // Anything else (exports, unknown formats): observable, results opaque.
    out.obs.push_back(key("other"));
    write_defs_opaque(false);
    return std::move(out);
  }

 private:
  using Bits = std::vector<Bit>;

  BitAlg& A;
  S& st;
  const EvalEnv& env;
  const Inst& in;
  const isa::FormInfo& f;
  const Opcode op_id;
  const OpInfo& info;  ///< what the mnemonic says: family, base operation, compare condition, data types
  std::span<const isa::OperandInfo> ops_info;
  StepOut out;
  std::optional<std::pair<int, std::vector<Bit>>> override_;  ///< an operand's value as key() should name it
  bool skip_old_ = false;  ///< key() leaves out DPP's `old` operand (write_defs_opaque with old_dst = false)

  StepOut refuse(std::string why) {
    out.refused = true;
    out.why = std::move(why);
    return std::move(out);
  }

  // -- operand access --

  [[nodiscard]] int find(std::string_view name) const {
    for (std::size_t k = 0; k < ops_info.size() && k < in.ops.size(); ++k)
      if (ops_info[k].name == name) return static_cast<int>(k);
    return -1;
  }
  [[nodiscard]] bool present(int k) const { return k >= 0 && in.ops[static_cast<std::size_t>(k)].present(); }
  /// A flag/modifier operand is absent or zero.
  [[nodiscard]] bool zero_or_absent(std::string_view name) const {
    const int k = find(name);
    if (k < 0 || !in.ops[static_cast<std::size_t>(k)].present()) return true;
    const Operand& o = in.ops[static_cast<std::size_t>(k)];
    return (o.kind == Operand::Kind::imm || o.kind == Operand::Kind::list) && o.imm == 0;
  }
  /// No source modifiers and no clamp/omod/op_sel/DPP/SDWA: the plain integer operation.
  [[nodiscard]] bool plain() const {
    if (f.variant == isa::Variant::dpp || f.variant == isa::Variant::sdwa || f.has(isa::prop::dpp) || f.has(isa::prop::sdwa))
      return false;
    for (std::size_t k = 0; k < in.ops.size() && k < ops_info.size(); ++k)
      if (in.ops[k].mods != 0) return false;
    for (std::string_view n : {"clamp", "omod", "op_sel", "op_sel_hi", "neg_lo", "neg_hi"})
      if (!zero_or_absent(n)) return false;
    return true;
  }

  Word word(unsigned u) { return st.get(u); }

  Bits read_reg(const Reg& r) {
    Bits b;
    if (r.file == RegFile::special) {
      if (r.index == special::scc || r.index == special::src_scc) {
        const Bit s = st.get(unit_scc)[0];
        b.assign(32 * r.dwords, bit0);
        b[0] = s;
        return b;
      }
      if (r.index == special::src_execz || r.index == special::src_vccz) {
        const unsigned base = r.index == special::src_execz ? unit_exec : unit_vcc;
        Bit any = bit0;
        for (unsigned h = 0; h < 2; ++h) {
          const Word w = st.get(base + h);
          for (Bit x : w) any = A.or_(any, x);
        }
        b.assign(32 * r.dwords, bit0);
        b[0] = A.not_(any);
        return b;
      }
      if (r.index >= 128) {
        // Apertures (src_shared_base ...): fixed for the launch, the same on both sides.
        const auto n = A.opaque("aperture:" + std::to_string(r.index), false);
        for (unsigned j = 0; j < 32u * r.dwords; ++j) b.push_back(A.proj(n, j));
        return b;
      }
    }
    for (unsigned u : units_of(r)) {
      const Word w = st.get(u);
      b.insert(b.end(), w.begin(), w.end());
    }
    return b;
  }

  /// Value of operand k as `width` bits (its slot width when 0). Constants the semantics does not decode become an
  /// opaque value keyed by their spelling.
  Bits val(int k, unsigned width = 0) {
    const Operand& o = in.ops[static_cast<std::size_t>(k)];
    const auto& oi = ops_info[static_cast<std::size_t>(k)];
    const unsigned w = width ? width : (oi.bits ? oi.bits : 32);
    Bits b;
    if (o.kind == Operand::Kind::reg) {
      b = read_reg(o.reg);
    } else if (auto c = int_constant(o, oi)) {
      for (unsigned j = 0; j < 64; ++j) b.push_back((*c >> j) & 1 ? bit1 : bit0);
    } else if (o.kind == Operand::Kind::absent) {
      b.assign(w, bit0);
      return b;
    } else {
      // Float constants, 64-bit literals, expressions: opaque. An expression (a relocation, a label difference)
      // may resolve differently where code moved, so it is side-specific.
      std::string k2 = "const:" + std::to_string(oi.bits) + ":" + std::to_string(static_cast<int>(oi.type)) + ":" +
                       std::to_string(static_cast<int>(o.kind)) + ":" + std::to_string(o.imm) + ":" + o.text + ":";
      if (o.kind == Operand::Kind::real) {
        std::uint64_t rb;
        std::memcpy(&rb, &o.real, 8);
        k2 += std::to_string(rb);
      }
      if (o.kind == Operand::Kind::expr) k2 += "side" + std::to_string(env.side);
      const auto n = A.opaque(k2, false);
      for (unsigned j = 0; j < w; ++j) b.push_back(A.proj(n, j));
      return b;
    }
    b.resize(w, bit0);
    return b;
  }

  Bits exec_bits() {
    Bits b;
    for (unsigned h = 0; h < 2; ++h) {
      const Word w = st.get(unit_exec + h);
      b.insert(b.end(), w.begin(), w.end());
    }
    return b;
  }

  void write_units(const std::vector<unsigned>& us, const Bits& v) {
    for (std::size_t i = 0; i < us.size(); ++i) {
      Word w;
      for (unsigned j = 0; j < 32; ++j) {
        const std::size_t x = i * 32 + j;
        w[j] = x < v.size() ? v[x] : bit0;
      }
      if (us[i] == unit_scc)
        for (unsigned j = 1; j < 32; ++j) w[j] = bit0;
      st.set(us[i], w);
    }
  }
  void write_op(int k, const Bits& v) {
    const Operand& o = in.ops[static_cast<std::size_t>(k)];
    if (!o.is_reg()) return;
    write_units(units_of(o.reg), v);
  }
  void write_scc(Bit b) {
    Word w{};
    w.fill(bit0);
    w[0] = b;
    st.set(unit_scc, w);
  }
  /// VALU write of lane-wise result v to the active lanes of operand k.
  void write_lanes(int k, const Bits& v, std::uint32_t exec_vec) {
    const Operand& o = in.ops[static_cast<std::size_t>(k)];
    if (!o.is_reg()) return;
    const auto us = units_of(o.reg);
    for (std::size_t i = 0; i < us.size(); ++i) {
      Word old = st.get(us[i]);
      Word w;
      for (unsigned j = 0; j < 32; ++j) {
        const std::size_t x = i * 32 + j;
        w[j] = A.mux(exec_vec, x < v.size() ? v[x] : bit0, old[j]);
      }
      st.set(us[i], w);
    }
  }
  /// A lane mask (64 bits) from a lane-wise condition bit: r in active lanes, 0 elsewhere.
  Bits lane_mask(Bit r, const Bits& exec) {
    Bits m(64);
    for (unsigned l = 0; l < 64; ++l) m[l] = A.and_(exec[l], A.lane(r, l));
    return m;
  }

  // -- keys of opaque results and observations --

  std::string vkey(const Bits& b) { return std::to_string(A.vec(b)); }

  /// The instruction's form and every operand: register operands by the value of their terms (vector ids; use
  /// operands only unless `with_defs`), everything else by its spelling. Implicit uses by value too.
  std::string key(std::string_view tag, bool spec_lanes = false, std::uint32_t exec_vec = 0, bool with_defs = false,
                  bool skip_exec = false) {
    std::string k(tag);
    k += ":" + std::to_string(in.form);
    for (std::size_t i = 0; i < ops_info.size() && i < in.ops.size(); ++i) {
      const Operand& o = in.ops[i];
      const auto& oi = ops_info[i];
      k += "|";
      if (!o.present()) { k += "-"; continue; }
      if (oi.role == isa::Role::def && !with_defs) { k += "d"; continue; }
      if (skip_old_ && oi.name == "old") { k += "o"; continue; }  // DPP's tied old destination, when not an input
      if (o.is_reg()) {
        Bits b = read_reg(o.reg);
        if (spec_lanes)
          for (Bit& x : b) x = A.spec(x, exec_vec);
        if (override_ && override_->first == static_cast<int>(i)) b = override_->second;
        k += "r" + vkey(b);
      } else if (o.kind == Operand::Kind::imm || o.kind == Operand::Kind::list) {
        k += "i" + std::to_string(o.imm) + "/" + std::to_string(o.count);
      } else if (o.kind == Operand::Kind::real) {
        std::uint64_t rb;
        std::memcpy(&rb, &o.real, 8);
        k += "f" + std::to_string(rb);
      } else if (o.kind == Operand::Kind::expr) {
        k += "e" + o.text + "@" + std::to_string(env.side);
      } else {
        k += "t" + o.text;
      }
      k += "m" + std::to_string(o.mods);
    }
    // A lane-wise value does not depend on exec (exec only decides which lanes are written: write_lanes).
    const std::uint32_t iu = f.implicit_uses & ~isa::reg::mode & (skip_exec ? ~isa::reg::exec : ~0u);
    for (unsigned u : implicit_units(iu)) {
      const Word w = st.get(u);
      Bits b(w.begin(), w.end());
      k += "|u" + std::to_string(u) + ":" + vkey(b);
    }
    // MODE, read by every floating-point operation (the tables list it for few of them).
    {
      const Word w = st.get(unit_mode);
      k += "|mode:" + vkey(Bits(w.begin(), w.end()));
    }
    return k;
  }

  /// Every register operand, specialised to the lanes of exec vector `xv`, is a uniform term, and none is written.
  bool uniform_operands(std::uint32_t xv) {
    for (std::size_t i = 0; i < ops_info.size() && i < in.ops.size(); ++i) {
      const Operand& o = in.ops[i];
      if (!o.present() || !o.is_reg()) continue;
      if (ops_info[i].role == isa::Role::def) return false;
      for (Bit x : read_reg(o.reg))
        if (A.is_lane(A.spec(x, xv))) return false;
    }
    return true;
  }

  /// Every def (explicit and implicit) gets bits of one opaque result of all operands, exec and old destinations.
  /// Gives the units `us`, 32 bits each in order, the bits of opaque node `n` (SCC keeps only bit 0).
  void write_projections(std::uint32_t n, const std::vector<unsigned>& us) {
    unsigned off = 0;
    for (unsigned u : us) {
      Word w;
      for (unsigned j = 0; j < 32; ++j) w[j] = A.proj(n, off + j);
      if (u == unit_scc)
        for (unsigned j = 1; j < 32; ++j) w[j] = bit0;
      off += 32;
      st.set(u, w);
    }
  }

  /// `old_dst`: the old values of the destinations are inputs (the operation may keep some of their bits). Returns the
  /// opaque result's id (meaningless in known-bits mode).
  std::uint32_t write_defs_opaque(bool per_side, bool old_dst = true) {
    if (!A.symbolic()) {
      // Known-bits mode: every result unknown.
      Word t;
      t.fill(top);
      for (std::size_t i = 0; i < ops_info.size() && i < in.ops.size(); ++i)
        if (ops_info[i].role == isa::Role::def && in.ops[i].is_reg())
          for (unsigned u : units_of(in.ops[i].reg)) st.set(u, t);
      for (unsigned u : implicit_units(f.implicit_defs)) st.set(u, t);
      return 0;
    }
    skip_old_ = !old_dst;
    std::string k = key(per_side ? "side" + std::to_string(env.side) : "op", false, 0, false);
    skip_old_ = false;
    k += "|x" + vkey(exec_bits());
    // Old values of every destination: the operation may keep some of them.
    std::vector<unsigned> dst;
    for (std::size_t i = 0; i < ops_info.size() && i < in.ops.size(); ++i)
      if (ops_info[i].role == isa::Role::def && in.ops[i].is_reg())
        for (unsigned u : units_of(in.ops[i].reg)) dst.push_back(u);
    for (unsigned u : implicit_units(f.implicit_defs)) dst.push_back(u);
    bool vector_dst = false;
    for (unsigned u : dst) {
      const Word w = st.get(u);
      if (old_dst) k += "|o" + vkey(Bits(w.begin(), w.end()));
      vector_dst = vector_dst || u >= unit_v0;
    }
    // Scalar destinations only (v_readlane, v_readfirstlane, s_getpc): one value for the whole wave, a uniform term.
    const auto n = A.opaque(k, vector_dst);
    write_projections(n, dst);
    return n;
  }

  // -- word arithmetic --

  /// a + b + cin, n = a.size() bits; returns the sum and the carry out.
  std::pair<Bits, Bit> add(const Bits& a, const Bits& b, Bit cin) {
    Bits s(a.size());
    Bit c = cin;
    for (std::size_t j = 0; j < a.size(); ++j) {
      const Bit x = a[j], y = b[j];
      const Bit t = A.xor_(x, y);
      s[j] = A.xor_(t, c);
      c = A.or_(A.and_(x, y), A.and_(c, t));
    }
    return {s, c};
  }
  /// a - b - bin; returns the difference and the borrow out.
  std::pair<Bits, Bit> sub(const Bits& a, const Bits& b, Bit bin) {
    Bits nb(b.size());
    for (std::size_t j = 0; j < b.size(); ++j) nb[j] = A.not_(b[j]);
    auto [s, c] = add(a, nb, A.not_(bin));
    return {s, A.not_(c)};
  }
  static Bits low(const Bits& v, unsigned n) { return Bits(v.begin(), v.begin() + n); }
  Bits shl(const Bits& v, unsigned k) {
    Bits r(v.size(), bit0);
    for (std::size_t j = k; j < v.size(); ++j) r[j] = v[j - k];
    return r;
  }
  Bits lshr(const Bits& v, unsigned k) {
    Bits r(v.size(), bit0);
    for (std::size_t j = 0; j + k < v.size(); ++j) r[j] = v[j + k];
    return r;
  }
  Bits ashr(const Bits& v, unsigned k) {
    Bits r(v.size(), v.back());
    for (std::size_t j = 0; j + k < v.size(); ++j) r[j] = v[j + k];
    return r;
  }
  Bit any(const Bits& v) {
    Bit r = bit0;
    for (Bit x : v) r = A.or_(r, x);
    return r;
  }
  /// The value of the low `n` bits when they are all constants.
  static std::optional<std::uint64_t> known(const Bits& v, unsigned n) {
    std::uint64_t r = 0;
    for (unsigned j = 0; j < n && j < v.size(); ++j) {
      if (!BitAlg::is_const(v[j])) return std::nullopt;
      r |= static_cast<std::uint64_t>(v[j]) << j;
    }
    return r;
  }
  /// Unsigned bounds of v from its constant bits.
  static std::pair<std::uint64_t, std::uint64_t> urange(const Bits& v) {
    std::uint64_t lo = 0, hi = 0;
    for (std::size_t j = 0; j < v.size() && j < 64; ++j) {
      if (v[j] == bit1) lo |= 1ull << j, hi |= 1ull << j;
      else if (v[j] != bit0) hi |= 1ull << j;
    }
    return {lo, hi};
  }
  /// Signed bounds of v (as two's complement of v.size() bits).
  static std::pair<std::int64_t, std::int64_t> srange(const Bits& v) {
    const std::size_t n = v.size();
    auto [lo, hi] = urange(Bits(v.begin(), v.end() - 1));
    const Bit s = v.back();
    const std::int64_t base = -(std::int64_t{1} << (n - 1));
    if (s == bit0) return {static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi)};
    if (s == bit1) return {base + static_cast<std::int64_t>(lo), base + static_cast<std::int64_t>(hi)};
    return {base + static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi)};
  }

  enum class Cmp { eq, ne, lt, le, gt, ge, t, f };
  /// A compare decided from constant bits, or nothing.
  static std::optional<bool> decide(Cmp c, const Bits& a, const Bits& b, bool sign) {
    if (c == Cmp::t) return true;
    if (c == Cmp::f) return false;
    if (c == Cmp::eq || c == Cmp::ne) {
      bool differ = false, same = true;
      for (std::size_t j = 0; j < a.size(); ++j) {
        if (BitAlg::is_const(a[j]) && BitAlg::is_const(b[j]) && a[j] != b[j]) differ = true;
        if (a[j] != b[j] || a[j] == top) same = false;
      }
      if (differ) return c == Cmp::ne;
      if (same) return c == Cmp::eq;  // the same term on both sides is the same value
      return std::nullopt;
    }
    if (a.size() > 32 || b.size() != a.size()) return std::nullopt;
    std::int64_t alo, ahi, blo, bhi;
    if (sign) {
      std::tie(alo, ahi) = srange(a);
      std::tie(blo, bhi) = srange(b);
    } else {
      auto [x, y] = urange(a);
      auto [z, w] = urange(b);
      alo = static_cast<std::int64_t>(x), ahi = static_cast<std::int64_t>(y);
      blo = static_cast<std::int64_t>(z), bhi = static_cast<std::int64_t>(w);
    }
    switch (c) {
      case Cmp::lt: if (ahi < blo) return true; if (alo >= bhi) return false; break;
      case Cmp::le: if (ahi <= blo) return true; if (alo > bhi) return false; break;
      case Cmp::gt: if (alo > bhi) return true; if (ahi <= blo) return false; break;
      case Cmp::ge: if (alo >= bhi) return true; if (ahi < blo) return false; break;
      default: break;
    }
    return std::nullopt;
  }
  /// The integer compare of condition `c` (v_cmp, v_cmpx, s_cmp, s_cmpk; s_cmp's lg is !=); nothing for the float
  /// conditions (o, u, nge ..., tru, class).
  static std::optional<Cmp> cmp_of(CmpCond c) {
    switch (c) {
      case CmpCond::eq: return Cmp::eq;
      case CmpCond::ne:
      case CmpCond::lg: return Cmp::ne;
      case CmpCond::lt: return Cmp::lt;
      case CmpCond::le: return Cmp::le;
      case CmpCond::gt: return Cmp::gt;
      case CmpCond::ge: return Cmp::ge;
      case CmpCond::t: return Cmp::t;
      case CmpCond::f: return Cmp::f;
      default: return std::nullopt;
    }
  }

  /// Low bits of a product: exact when either factor is a constant with few set bits, else an opaque lane-wise
  /// or uniform result whose known low zeros (trailing zeros add) and high zeros (bit lengths add) are kept.
  Bits mul(const Bits& a, const Bits& b, unsigned n, const std::string& tag, bool lane) {
    auto ka = known(a, static_cast<unsigned>(a.size())), kb = known(b, static_cast<unsigned>(b.size()));
    const Bits* var = nullptr;
    std::uint64_t c = 0;
    if (ka && kb) {
      const unsigned __int128 p = static_cast<unsigned __int128>(*ka) * *kb;
      Bits r(n);
      for (unsigned j = 0; j < n; ++j) r[j] = (j < 128 && ((p >> j) & 1)) ? bit1 : bit0;
      return r;
    }
    if (ka) var = &b, c = *ka;
    if (kb) var = &a, c = *kb;
    if (var && std::popcount(c) <= 3) {
      Bits acc(n, bit0);
      Bits x(n, bit0);
      for (unsigned j = 0; j < n && j < var->size(); ++j) x[j] = (*var)[j];
      for (unsigned s = 0; s < 64 && s < n; ++s)
        if ((c >> s) & 1) acc = add(acc, shl(x, s), bit0).first;
      return acc;
    }
    const auto node = A.opaque(tag + ":" + vkey(a) + "*" + vkey(b) + ":" + std::to_string(n), lane);
    Bits r(n);
    for (unsigned j = 0; j < n; ++j) r[j] = A.proj(node, j);
    auto tz = [](const Bits& v) {
      unsigned z = 0;
      while (z < v.size() && v[z] == bit0) ++z;
      return z;
    };
    auto len = [](const Bits& v) {
      unsigned l = static_cast<unsigned>(v.size());
      while (l > 0 && v[l - 1] == bit0) --l;
      return l;
    };
    const unsigned zeros = tz(a) + tz(b), bits = len(a) + len(b);
    for (unsigned j = 0; j < n; ++j)
      if (j < zeros || j >= bits) r[j] = bit0;
    return r;
  }

  // -- control --

  StepOut control() {
    const auto m = f.mnemonic;  // for messages only
    if (info.family == Family::s_endpgm) { out.ctl.kind = Control::Kind::endpgm; return std::move(out); }
    const int k = find("simm16");
    std::string label;
    if (k >= 0 && in.ops[static_cast<std::size_t>(k)].kind == Operand::Kind::expr)
      label = in.ops[static_cast<std::size_t>(k)].text;
    if (label.empty()) return refuse(std::string(m) + " without a symbolic target");
    out.ctl.label = label;
    if (op_id == op::s_branch) { out.ctl.kind = Control::Kind::branch; return std::move(out); }
    using C = Control::Cond;
    std::optional<C> cond;
    switch (op_id) {
      case op::s_cbranch_scc0: cond = C::scc0; break;
      case op::s_cbranch_scc1: cond = C::scc1; break;
      case op::s_cbranch_vccz: cond = C::vccz; break;
      case op::s_cbranch_vccnz: cond = C::vccnz; break;
      case op::s_cbranch_execz: cond = C::execz; break;
      case op::s_cbranch_execnz: cond = C::execnz; break;
      default: break;
    }
    if (!cond) return refuse(std::string(m) + " is a branch this analysis does not follow");
    out.ctl.kind = Control::Kind::cbranch;
    out.ctl.cond = *cond;
    return std::move(out);
  }

  // -- memory --

  [[nodiscard]] bool is_memory() const {
    using F = isa::Format;
    return f.format == F::FLAT || f.format == F::GLOBAL || f.format == F::SCRATCH || f.format == F::MUBUF ||
           f.format == F::MTBUF || f.format == F::DS || f.format == F::SMEM || f.format == F::MIMG;
  }

  /// A scalar load from the kernarg segment or the dispatch packet at a fixed offset: its dwords, where the launch
  /// fixes them constants, else one opaque value per dword shared by both sides (the segment is read-only).
  bool smem_const_load() {
    const int kb = find("sbase"), ko = find("offset"), kd = find("sdst");
    if (kb < 0 || ko < 0 || kd < 0 || find("soffset") >= 0 || !in.ops[static_cast<std::size_t>(ko)].present() ||
        in.ops[static_cast<std::size_t>(ko)].kind != Operand::Kind::imm || !in.ops[static_cast<std::size_t>(kd)].is_reg())
      return false;
    const Bits base = read_reg(in.ops[static_cast<std::size_t>(kb)].reg);
    const ConstRegion* region = nullptr;
    std::uint32_t sym = ~0u;
    for (auto [r, s] : {std::pair{env.kernarg, env.kernarg_sym}, std::pair{env.dispatch, env.dispatch_sym}}) {
      if (!r || s == ~0u || base.size() != 64) continue;
      bool match = true;
      for (unsigned j = 0; j < 64 && match; ++j) match = A.is_var_of(base[j], s, j);
      if (match) region = r, sym = s;
    }
    if (!region) return false;
    // Observed like any access (its cache-policy bits included), so that a change to it is not hidden by the value.
    out.obs.push_back(key("smem-const"));
    // SMEM addresses are dword-aligned: the low two bits of the byte offset are ignored (MI300 ISA §5 "Scalar
    // Memory Operations", the address is forced to dword alignment); the base is a dword-aligned segment address.
    const std::int64_t off = in.ops[static_cast<std::size_t>(ko)].imm & ~std::int64_t{3};
    const auto units = units_of(in.ops[static_cast<std::size_t>(kd)].reg);
    for (std::size_t d = 0; d < units.size(); ++d) {
      const std::int64_t at = off + static_cast<std::int64_t>(4 * d);
      Word w;
      std::uint32_t v = 0, known = 0;  // known: the bits the launch fixes, per FixedBytes::known
      for (unsigned by = 0; by < 4 && at >= 0; ++by) {
        const auto i = static_cast<std::size_t>(at) + by;
        if (i >= region->known.size() || i >= region->bytes.size()) continue;
        known |= std::uint32_t{region->known[i]} << (8 * by);
        v |= std::uint32_t{region->bytes[i]} << (8 * by);
      }
      if (known == ~0u) {
        for (unsigned j = 0; j < 32; ++j) w[j] = (v >> j) & 1 ? bit1 : bit0;
      } else {
        const auto n = A.opaque("region" + std::to_string(sym) + "@" + std::to_string(at), false);
        for (unsigned j = 0; j < 32; ++j) w[j] = (known >> j) & 1 ? ((v >> j) & 1 ? bit1 : bit0) : A.proj(n, j);
      }
      st.set(units[d], w);
    }
    return true;
  }

  void memory() {
    const bool vector = f.format != isa::Format::SMEM;
    const Bits ex = exec_bits();
    const auto xv = A.vec(ex);
    // ds_append/ds_consume and GWS operations count or synchronise through LDS/GDS: writes.
    const bool counter = one_of(info.family, Family::ds_append, Family::ds_gws);
    const bool writes_memory = f.has(isa::prop::store) || f.has(isa::prop::atomic) || f.has(isa::prop::lds_dma) ||
                               counter || !f.has(isa::prop::load);
    if (vector && info.family == Family::ds_lane) {
      // ds_permute/bpermute/swizzle move data between lanes and touch no memory.
      write_defs_opaque(false);
      return;
    }
    if (!vector && f.has(isa::prop::load) && !writes_memory && smem_const_load()) return;
    // A vector memory instruction with no active lane accesses nothing and writes no register (LLVM
    // SIInstrInfo::hasUnwantedEffectsWhenEXECEmpty names the exceptions: GWS, ordered count, and scalar stores; gfx9
    // has no ds_ordered_count; ds_append/ds_consume are kept out too).
    if (vector && !counter) {
      bool none = true;
      for (Bit b : ex) none = none && b == bit0;
      if (none) {
        out.obs.push_back("noexec");
        ++st.seq();
        return;
      }
    }
    if (f.format == isa::Format::MUBUF) buffer_in_range(ex, xv);
    // The access: operands specialised to the active lanes (inactive lanes do not access memory), exec, order.
    // Loads are observed too: a load from another address may fault even when its result is never used.
    const std::string k = key("mem", vector, xv) + "|x" + std::to_string(xv) + (writes_memory ? "|w" : "|r");
    out.obs.push_back(k);
    // Only plain LDS writes and global stores: their address is what the operands say. (Buffer descriptors may add
    // the lane id, ADD_TID_ENABLE; scratch and flat may address per-lane private memory; ds_write_addtid adds the
    // lane id; the tables mark DS writes atomic, so the base operation decides there: ds_write and ds_write2.)
    const bool plain_store =
        (f.format == isa::Format::DS && one_of(info.base, BaseOp::ds_write, BaseOp::ds_write2)) ||
        (f.format == isa::Format::GLOBAL && info.base == BaseOp::global_store && !f.has(isa::prop::atomic));
    if (plain_store && !f.has(isa::prop::load) && !f.has(isa::prop::lds_dma) && !(f.implicit_defs & ~isa::reg::mode) &&
        uniform_operands(xv))
      out.uniform_stores.push_back({out.obs.size() - 1, key("mem", vector, xv, false, true) + "|w", xv});
    const std::uint64_t seq = st.seq()++;
    // Results.
    std::vector<int> defs;
    for (std::size_t i = 0; i < ops_info.size() && i < in.ops.size(); ++i)
      if (ops_info[i].role == isa::Role::def && in.ops[i].is_reg()) defs.push_back(static_cast<int>(i));
    if (defs.empty() && !(f.implicit_defs & ~isa::reg::mode)) return;
    const bool tfe = !zero_or_absent("tfe") || !zero_or_absent("lwe");
    // A plain load writes whole destination dwords (in the active lanes for vector memory).
    const bool full = !partial_def(in) && !tfe && !f.has(isa::prop::atomic) && !(f.implicit_defs & ~isa::reg::mode);
    const bool lanewise = vector && full;
    // The value of the seq-th memory operation of the wave, given its access: both sides agree on every access in
    // order (their observations are compared), so equal keys are the same load of the same memory.
    std::string rk = "load#" + std::to_string(seq) + ":" + k;
    if (!full) {
      // Old destinations are inputs too (partial writes, atomics' lane order).
      for (int d : defs) {
        const Bits old = read_reg(in.ops[static_cast<std::size_t>(d)].reg);
        rk += "|o" + vkey(old);
      }
      for (unsigned u : implicit_units(f.implicit_defs)) {
        const Word w = st.get(u);
        rk += "|o" + vkey(Bits(w.begin(), w.end()));
      }
    }
    const auto n = A.opaque(rk, vector);
    // A whole-dword load of a byte or a short zero- or sign-extends it (MI300 ISA GLOBAL_LOAD_UBYTE / _SBYTE /
    // _USHORT / _SSHORT and their BUFFER, FLAT and SCRATCH forms; DS_READ_U8 / I8 / U16 / I16): the bits above it are
    // 0 or copies of its top bit. (The _d16 forms keep half the register and are not `full`.) Any other load sets
    // every bit of every destination dword from memory: a dwordx2 .. x16 load's upper dwords are loaded too.
    unsigned narrow = ~0u;
    bool sext = false;
    if (full && defs.size() == 1 && f.has(isa::prop::load) && !info.has(opflag::d16)) {
      using T = DataType;
      if (one_of(info.type, T::u8, T::u16, T::i8, T::i16)) {
        narrow = bits(info.type);
        sext = one_of(info.type, T::i8, T::i16);  // the sign is in the type: sbyte is i8, sshort i16
      }
    }
    unsigned off = 0;
    for (int d : defs) {
      const auto us = units_of(in.ops[static_cast<std::size_t>(d)].reg);
      Bits v(32 * us.size());
      for (std::size_t j = 0; j < v.size(); ++j)
        v[j] = j < narrow ? A.proj(n, off + static_cast<unsigned>(j)) : sext ? v[narrow - 1] : bit0;
      off += static_cast<unsigned>(v.size());
      if (lanewise) write_lanes(d, v, xv);
      else write_units(us, v);
    }
    for (unsigned u : implicit_units(f.implicit_defs)) {
      Word w;
      for (unsigned j = 0; j < 32; ++j) w[j] = A.proj(n, off + j);
      off += 32;
      st.set(u, w);
    }
  }

  /// The alternatives of a 32-bit lane value made of per-bit muxes on one lane mask (a v_cndmask of two values, as
  /// Triton selects an in-bounds offset or 0x80000000 for masked lanes): up to 2^depth leaves.
  void leaves(const Bits& v, int depth, std::vector<Bits>& out) {
    std::optional<std::uint32_t> sel;
    for (Bit b : v)
      if (A.node(b).k == BitAlg::K::mux) {
        sel = A.node(b).a;
        break;
      }
    if (!sel || depth == 0) {
      out.push_back(v);
      return;
    }
    Bits x(v.size()), y(v.size());
    for (std::size_t j = 0; j < v.size(); ++j) {
      const auto& n = A.node(v[j]);
      if (n.k == BitAlg::K::mux && n.a == *sel) x[j] = n.b, y[j] = n.c;
      else x[j] = y[j] = v[j];  // the same in both arms
    }
    leaves(x, depth - 1, out);
    leaves(y, depth - 1, out);
  }

  /// A raw buffer access (MUBUF without index, linear resource: stride 0, no swizzle, no add_tid) is out of range in
  /// a lane when inst_offset + voffset (+ 4k for dword k) >= num_records; soffset is not part of the test ([ISA]
  /// MI300 §9.1.5 "Range Checking"; the emulator's buffer_addresses). When every alternative of the offset is
  /// either wholly in range (below num_records by 16 bytes or more) or wholly out of it, num_records matters only
  /// through that classification: the access is named with a canonical num_records that classifies the same way (the
  /// largest in-range end), so two resources that differ only in num_records but agree on it make the same access.
  void buffer_in_range(const Bits& ex, std::uint32_t xv) {
    (void)ex;
    const auto name = f.name;
    if (contains(name, "IDXEN") || contains(name, "BOTHEN") || contains(name, "ADDR64") || f.has(isa::prop::lds_dma))
      return;
    const int kr = find("srsrc"), ko = find("offset"), kv = find("vaddr");
    if (kr < 0 || !in.ops[static_cast<std::size_t>(kr)].is_reg() || !zero_or_absent("swz")) return;
    const bool offen = contains(name, "OFFEN");
    if (offen && (kv < 0 || !in.ops[static_cast<std::size_t>(kv)].is_reg())) return;
    Bits r = read_reg(in.ops[static_cast<std::size_t>(kr)].reg);
    if (r.size() != 128) return;
    for (unsigned j = 48; j < 62; ++j)
      if (r[j] != bit0) return;  // stride
    if (r[63] != bit0 || r[96 + 23] != bit0) return;  // swizzle_enable, add_tid_enable
    const auto nr = known(Bits(r.begin() + 64, r.begin() + 96), 32);
    if (!nr) return;
    const std::uint64_t ioff = (ko >= 0 && in.ops[static_cast<std::size_t>(ko)].kind == Operand::Kind::imm)
                                   ? static_cast<std::uint64_t>(in.ops[static_cast<std::size_t>(ko)].imm) & 0xfffu
                                   : 0;
    std::vector<Bits> alts;
    if (offen) {
      Bits v = read_reg(in.ops[static_cast<std::size_t>(kv)].reg);
      v.resize(32);
      for (Bit& x : v) x = A.spec(x, xv);
      leaves(v, 4, alts);
    } else {
      alts.push_back(Bits(32, bit0));
    }
    constexpr std::uint64_t widest = 16;  // dwordx4: enough for every narrower access
    std::uint64_t canon = 0;
    for (const Bits& a : alts) {
      const auto [lo, hi] = urange(a);
      if (ioff + hi + widest <= *nr) canon = std::max(canon, ioff + hi + widest);  // every lane in range
      else if (ioff + lo < *nr) return;                                            // may straddle the bound
    }
    for (unsigned j = 0; j < 32; ++j) r[64 + j] = (canon >> j) & 1 ? bit1 : bit0;
    override_ = std::pair<int, std::vector<Bit>>{kr, std::move(r)};
  }

  // -- SALU --

  /// The SALU bitwise operations, plain (s_and_b32 ...) or on EXEC (s_and_saveexec_b64 ...): `logic` knows them.
  static constexpr bool is_logic(BaseOp b) {
    using B = BaseOp;
    return one_of(b, B::s_and, B::s_or, B::s_xor, B::s_andn2, B::s_orn2, B::s_nand, B::s_nor, B::s_xnor, B::s_andn1,
                  B::s_orn1);
  }
  /// Bitwise operation `b` (is_logic) of x and y.
  Bit logic(BaseOp b, Bit x, Bit y) {
    switch (b) {
      case BaseOp::s_and: return A.and_(x, y);
      case BaseOp::s_or: return A.or_(x, y);
      case BaseOp::s_xor: return A.xor_(x, y);
      case BaseOp::s_andn2: return A.and_(x, A.not_(y));
      case BaseOp::s_orn2: return A.or_(x, A.not_(y));
      case BaseOp::s_nand: return A.not_(A.and_(x, y));
      case BaseOp::s_nor: return A.not_(A.or_(x, y));
      case BaseOp::s_xnor: return A.not_(A.xor_(x, y));
      case BaseOp::s_andn1: return A.and_(A.not_(x), y);
      case BaseOp::s_orn1: return A.or_(A.not_(x), y);
      default: return top;  // not reached: callers ask is_logic first
    }
  }

  bool salu() {
    const int kd = find("sdst"), k0 = find("src0"), k1 = find("src1");
    for (std::size_t k = 0; k < in.ops.size() && k < ops_info.size(); ++k)
      if (in.ops[k].mods) return false;
    // Operand width: 64 bits where the mnemonic's last data type is (s_and_b64, s_lshl_b64, s_not_b64 ...).
    const unsigned n = bits(info.src2_type) == 64 ? 64u : 32u;

    // Exec-mask idioms (MI300 ISA §4.? SOP1 S_*_SAVEEXEC_B64: D = EXEC; EXEC = op(S0, EXEC); SCC = EXEC != 0;
    // the *_wrexec forms write the new EXEC to D as well).
    if (one_of(info.family, Family::s_saveexec, Family::s_wrexec)) {
      if (kd < 0 || k0 < 0) return false;
      const Bits s = val(k0, 64), e = exec_bits();
      if (!is_logic(info.base)) return false;
      Bits r(64);
      for (unsigned j = 0; j < 64; ++j) r[j] = logic(info.base, s[j], e[j]);
      const bool wr = info.family == Family::s_wrexec;
      write_op(kd, wr ? r : e);
      write_units({unit_exec, unit_exec + 1}, r);
      write_scc(any(r));
      return true;
    }
    if (one_of(op_id, op::s_movk_i32, op::s_addk_i32, op::s_mulk_i32) || info.family == Family::s_cmpk) {
      const int ki = find("simm16");
      if (ki < 0 || in.ops[static_cast<std::size_t>(ki)].kind != Operand::Kind::imm) return false;
      const std::int64_t raw = in.ops[static_cast<std::size_t>(ki)].imm;
      // The _i32 ops sign-extend the 16-bit immediate; the _u32 compares zero-extend it.
      const bool sext = info.type == DataType::i32;
      const auto lo16 = static_cast<std::uint16_t>(raw & 0xffff);
      const std::uint32_t imm = sext ? static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<std::int16_t>(lo16)))
                                     : std::uint32_t{lo16};
      Bits c(32);
      for (unsigned j = 0; j < 32; ++j) c[j] = (imm >> j) & 1 ? bit1 : bit0;
      if (op_id == op::s_movk_i32) { write_op(kd, c); return true; }
      if (op_id == op::s_addk_i32) {
        const Bits d = read_reg(in.ops[static_cast<std::size_t>(kd)].reg);
        auto [r, carry] = add(d, c, bit0);
        (void)carry;
        const Bit ovf = A.and_(A.not_(A.xor_(d[31], c[31])), A.xor_(r[31], d[31]));
        write_op(kd, r);
        write_scc(ovf);
        return true;
      }
      if (op_id == op::s_mulk_i32) {
        const Bits d = read_reg(in.ops[static_cast<std::size_t>(kd)].reg);
        write_op(kd, mul(d, c, 32, "smul", false));
        return true;
      }
      // s_cmpk_<cond>_<i32|u32>: SCC = S0 cond imm.
      const int ks = find("src0") >= 0 ? find("src0") : find("sdst");
      if (ks < 0) return false;
      const Bits a = val(ks, 32);
      const auto c2 = cmp_of(info.cond);
      if (!c2) return false;
      write_scc(compare(*c2, a, c, is_signed_int(info.type), "scmpk"));
      return true;
    }
    if (info.family == Family::s_cmp) {
      // s_cmp_<cond>_<i32|u32|u64>: SCC = S0 cond S1.
      if (k0 < 0 || k1 < 0) return false;
      const unsigned w = bits(info.type) == 64 ? 64 : 32;
      const Bits a = val(k0, w), b = val(k1, w);
      const auto c = cmp_of(info.cond);
      if (!c) return false;
      write_scc(compare(*c, a, b, is_signed_int(info.type), "scmp"));
      return true;
    }
    if (info.family == Family::s_bitcmp) {
      if (k0 < 0 || k1 < 0) return false;
      const unsigned w = info.type == DataType::b64 ? 64 : 32;
      const Bits a = val(k0, w), b = val(k1, 32);
      const auto idx = known(b, w == 64 ? 6 : 5);
      if (!idx) return false;
      const Bit bit = a[*idx];
      write_scc(info.base == BaseOp::s_bitcmp1 ? bit : A.not_(bit));
      return true;
    }
    if (kd < 0) return false;
    if (one_of(op_id, op::s_mov_b32, op::s_mov_b64)) { write_op(kd, val(k0, n)); return true; }
    if (one_of(op_id, op::s_cselect_b32, op::s_cselect_b64)) {
      const Bits a = val(k0, n), b = val(k1, n);
      const Bit c = st.get(unit_scc)[0];
      Bits r(n);
      for (unsigned j = 0; j < n; ++j) r[j] = A.ite(c, a[j], b[j]);
      write_op(kd, r);
      return true;
    }
    if (one_of(op_id, op::s_not_b32, op::s_not_b64)) {
      Bits a = val(k0, n);
      for (Bit& x : a) x = A.not_(x);
      write_op(kd, a);
      write_scc(any(a));
      return true;
    }
    if (op_id == op::s_brev_b32) {
      const Bits a = val(k0, 32);
      Bits r(32);
      for (unsigned j = 0; j < 32; ++j) r[j] = a[31 - j];
      write_op(kd, r);
      return true;
    }
    if (k0 < 0 || k1 < 0) return false;
    if (is_logic(info.base)) {  // s_and_b32 ... s_xnor_b64 (the saveexec and wrexec forms are above)
      const Bits a = val(k0, n), b = val(k1, n);
      Bits r(n);
      for (unsigned j = 0; j < n; ++j) r[j] = logic(info.base, a[j], b[j]);
      write_op(kd, r);
      write_scc(any(r));
      return true;
    }
    if (one_of(info.base, BaseOp::s_lshl, BaseOp::s_lshr, BaseOp::s_ashr)) {
      const Bits a = val(k0, n), b = val(k1, 32);
      // Shift amount S1[4:0] (S1[5:0] for 64-bit); SCC = result != 0 (MI300 ISA SOP2 S_LSHL_B32 ...).
      const auto sh = known(b, n == 64 ? 6 : 5);
      if (!sh) return false;
      const auto k = static_cast<unsigned>(*sh);
      const Bits r = info.base == BaseOp::s_lshl ? shl(a, k) : info.base == BaseOp::s_lshr ? lshr(a, k) : ashr(a, k);
      write_op(kd, r);
      write_scc(any(r));
      return true;
    }
    if (one_of(op_id, op::s_bfe_u32, op::s_bfe_i32)) {
      // D = (S0 >> S1[4:0]) & ((1 << S1[22:16]) - 1), sign-extended for _i32; SCC = D != 0 (MI300 ISA S_BFE_U32).
      const Bits a = val(k0, 32), b = val(k1, 32);
      const auto off = known(b, 5);
      const auto wid = known(Bits(b.begin() + 16, b.begin() + 23), 7);
      if (!off || !wid || *wid > 32) return false;
      // The _i32 form shifts arithmetically (S0.i >> offset), as the emulator's bfe<T, true> does.
      const bool sgn = op_id == op::s_bfe_i32;
      Bits r = sgn ? ashr(a, static_cast<unsigned>(*off)) : lshr(a, static_cast<unsigned>(*off));
      const unsigned w = static_cast<unsigned>(*wid);
      for (unsigned j = w; j < 32; ++j) r[j] = (sgn && w > 0) ? r[w - 1] : bit0;
      if (w == 0) std::fill(r.begin(), r.end(), bit0);
      write_op(kd, r);
      write_scc(any(r));
      return true;
    }
    if (one_of(op_id, op::s_add_u32, op::s_addc_u32, op::s_sub_u32, op::s_subb_u32, op::s_add_i32, op::s_sub_i32)) {
      const Bits a = val(k0, 32), b = val(k1, 32);
      const Bit scc = st.get(unit_scc)[0];
      const bool is_add = one_of(op_id, op::s_add_u32, op::s_addc_u32, op::s_add_i32);
      const Bit cin = one_of(op_id, op::s_addc_u32, op::s_subb_u32) ? scc : bit0;
      auto [r, c] = is_add ? add(a, b, cin) : sub(a, b, cin);
      Bit s = c;  // carry / borrow for _u32
      if (op_id == op::s_add_i32) s = A.and_(A.not_(A.xor_(a[31], b[31])), A.xor_(r[31], a[31]));
      if (op_id == op::s_sub_i32) s = A.and_(A.xor_(a[31], b[31]), A.xor_(r[31], a[31]));
      write_op(kd, r);
      write_scc(s);
      return true;
    }
    if (op_id == op::s_mul_i32) {
      write_op(kd, mul(val(k0, 32), val(k1, 32), 32, "smul", false));
      return true;
    }
    if (one_of(op_id, op::s_pack_ll_b32_b16, op::s_pack_lh_b32_b16, op::s_pack_hh_b32_b16)) {
      // D = {S1 half, S0 half} (MI300 ISA S_PACK_*_B32_B16): ll takes both low halves, lh S0's low and S1's high
      // half, hh both high halves.
      const Bits a = val(k0, 32), b = val(k1, 32);
      Bits r(32);
      const unsigned ha = op_id == op::s_pack_hh_b32_b16 ? 16 : 0;
      const unsigned hb = one_of(op_id, op::s_pack_lh_b32_b16, op::s_pack_hh_b32_b16) ? 16 : 0;
      for (unsigned j = 0; j < 16; ++j) r[j] = a[ha + j], r[16 + j] = b[hb + j];
      write_op(kd, r);
      return true;
    }
    return false;
  }

  /// a < b as unsigned numbers of equal width: the borrow out of a - b, bit by bit.
  Bit less_unsigned(const Bits& a, const Bits& b) {
    Bit borrow = bit0;
    for (std::size_t j = 0; j < a.size(); ++j) {
      // borrow out = (~a & b) | (~(a ^ b) & borrow in)
      const Bit same = A.not_(A.xor_(a[j], b[j]));
      borrow = A.or_(A.and_(A.not_(a[j]), b[j]), A.and_(same, borrow));
    }
    return borrow;
  }

  /// A compare: decided from constant bits when it can be; in the prover (symbolic terms) the exact circuit, so that
  /// relations between compares (x | 9 < n implies x | 8 < n) are there for detail/term_sat.hpp to find; otherwise
  /// (known bits) an opaque result.
  Bit compare(Cmp c, const Bits& a, const Bits& b, bool sign, const char* tag) {
    if (auto d = decide(c, a, b, sign)) return *d ? bit1 : bit0;
    if (A.symbolic() && a.size() == b.size() && !a.empty()) {
      if (c == Cmp::eq || c == Cmp::ne) {
        Bit eq = bit1;
        for (std::size_t j = 0; j < a.size(); ++j) eq = A.and_(eq, A.not_(A.xor_(a[j], b[j])));
        return c == Cmp::eq ? eq : A.not_(eq);
      }
      Bits x = a, y = b;
      if (sign) {  // two's complement order = unsigned order with the sign bits inverted
        x.back() = A.not_(x.back());
        y.back() = A.not_(y.back());
      }
      switch (c) {
        case Cmp::lt: return less_unsigned(x, y);
        case Cmp::gt: return less_unsigned(y, x);
        case Cmp::le: return A.not_(less_unsigned(y, x));
        case Cmp::ge: return A.not_(less_unsigned(x, y));
        default: break;
      }
    }
    bool lane = false;  // a lane-varying operand makes a lane-varying result; marking more is only less precise
    for (Bit x : a) lane = lane || A.is_lane(x);
    for (Bit x : b) lane = lane || A.is_lane(x);
    const auto node = A.opaque(std::string(tag) + std::to_string(static_cast<int>(c)) + (sign ? "s" : "u") + ":" +
                                   vkey(a) + ":" + vkey(b),
                               lane);
    return A.proj(node, 0);
  }

  // -- canonical f32 values --
  //
  // v_max_f32 x, x (and v_min_f32 x, x) is how LLVM canonicalizes a float on gfx9 (SIISelLowering, fcanonicalize):
  // it quiets a signalling NaN in IEEE mode and flushes a denormal where MODE flushes; otherwise it returns x bit for
  // bit (MI300 ISA V_MAX_F32: "if IEEE_MODE and S0 is sNaN, D = quiet(S0); else if S0 is NaN, D = S1; ..."; -0 and
  // +0 are ordered, so x, x gives x). A value that is already canonical therefore passes unchanged, which lets the
  // prover see that dropping or moving such a canonicalization changes nothing. "Canonical" here means exactly
  // that: max(x, x) = x in every lane under the MODE the run keeps (EvalEnv::f32_mode).

  /// A constant is canonical: not a signalling NaN in IEEE mode, not a denormal that MODE flushes on input or output.
  [[nodiscard]] bool canonical_const(std::uint32_t v) const {
    const bool nan = (v & 0x7f800000u) == 0x7f800000u && (v & 0x007fffffu) != 0;
    if (nan && (v & 0x00400000u) == 0 && (env.f32_mode & 4)) return false;
    const bool denormal = (v & 0x7f800000u) == 0 && (v & 0x007fffffu) != 0;
    return !denormal || (env.f32_mode & 3) == 3;
  }

  /// Term x (32 bits, every lane) is canonical: a constant that is, a projection of an opaque result recorded as
  /// canonical, or a per-lane select between two canonical terms.
  bool canonical(const Bits& x, int depth = 6) {
    if (env.f32_mode < 0 || !A.symbolic() || x.size() != 32) return false;
    std::uint32_t v = 0;
    bool all_const = true;
    for (unsigned j = 0; j < 32 && all_const; ++j) {
      all_const = BitAlg::is_const(x[j]);
      v |= (x[j] == bit1 ? 1u : 0u) << j;
    }
    if (all_const) return canonical_const(v);
    const auto& n0 = A.node(x[0]);
    if (n0.k == BitAlg::K::proj) {
      for (unsigned j = 0; j < 32; ++j) {
        const auto& n = A.node(x[j]);
        if (n.k != BitAlg::K::proj || n.a != n0.a || n.b != j) return false;
      }
      return A.has_fact(n0.a, BitAlg::canonical_f32);
    }
    // A select: the bits that are not a mux of the same mask are the same in both arms (mux(m, a, a) = a).
    std::uint32_t mask = ~0u;
    for (unsigned j = 0; j < 32 && mask == ~0u; ++j)
      if (A.node(x[j]).k == BitAlg::K::mux) mask = A.node(x[j]).a;
    if (mask == ~0u || depth == 0) return false;
    Bits a(32), b(32);
    for (unsigned j = 0; j < 32; ++j) {
      const auto& n = A.node(x[j]);
      if (n.k == BitAlg::K::mux && n.a == mask) a[j] = n.b, b[j] = n.c;
      else a[j] = b[j] = x[j];
    }
    return canonical(a, depth - 1) && canonical(b, depth - 1);
  }

  /// This lane-wise instruction's result is canonical in every lane, whatever lanes it is computed for. IEEE
  /// arithmetic (add, sub, mul, fma) returns a quiet NaN for any NaN (MI300 ISA "NaN handling") and flushes output
  /// denormals where MODE says so; its result is canonical unless MODE keeps output denormals but flushes input
  /// ones (FLOAT_DENORM_MODE_32 = 2), where max(x, x) would flush a denormal x. min / max / min3 / max3 / med3 return
  /// one of their (input-flushed) operands or a quiet NaN in IEEE mode, so they are canonical there under any denormal
  /// mode; with IEEE mode off they pass a signalling NaN through, so only canonical operands make a canonical result.
  /// omod is left out (it scales the result).
  bool canonical_result(std::uint32_t xv) {
    if (env.f32_mode < 0 || !A.symbolic() || f.variant == isa::Variant::sdwa || f.has(isa::prop::sdwa) ||
        !zero_or_absent("omod"))
      return false;
    if (one_of(op_id, op::v_add_f32, op::v_sub_f32, op::v_subrev_f32, op::v_mul_f32, op::v_fma_f32, op::v_fmac_f32))
      return (env.f32_mode & 3) != 2;  // 2: flush input denormals, keep output ones
    if (!one_of(op_id, op::v_max_f32, op::v_min_f32, op::v_max3_f32, op::v_min3_f32, op::v_med3_f32)) return false;
    if (env.f32_mode & 4) return true;
    for (const char* n : {"src0", "src1", "src2"}) {
      const int k = find(n);
      if (present(k) && !canonical(sval(k, xv, 32))) return false;
    }
    return true;
  }

  /// A DPP instruction writes every lane: exec is all ones, the row and bank masks enable every lane, and bound_ctrl
  /// makes an invalid source lane read 0 instead of leaving its lane unwritten (MI300 ISA "DPP"). Its old destination
  /// is then not an input.
  bool dpp_writes_every_lane() {
    if (f.variant != isa::Variant::dpp || !present(find("bound_ctrl"))) return false;
    auto all_lanes = [&](std::string_view n) {
      const int k = find(n);
      if (k < 0 || !in.ops[static_cast<std::size_t>(k)].present()) return true;  // the default is 0xf
      const Operand& o = in.ops[static_cast<std::size_t>(k)];
      return (o.kind == Operand::Kind::imm || o.kind == Operand::Kind::list) && (o.imm & 0xf) == 0xf;
    };
    const Bits ex = exec_bits();
    return std::all_of(ex.begin(), ex.end(), [](Bit b) { return b == bit1; }) && all_lanes("row_mask") &&
           all_lanes("bank_mask");
  }

  /// v_mov_b32_dpp copies some lane of src0 (or 0 for an invalid source lane under bound_ctrl) into each lane its row
  /// and bank masks enable; the other lanes keep their old value. The result is canonical when src0 is in every lane
  /// and either the old value is too or every lane is written.
  bool dpp_mov_canonical() {
    if (env.f32_mode < 0 || !A.symbolic() || op_id != op::v_mov_b32 || f.variant != isa::Variant::dpp) return false;
    const int k0 = find("src0"), kd = find("vdst");
    if (k0 < 0 || kd < 0 || !in.ops[static_cast<std::size_t>(kd)].is_reg() || !canonical(val(k0, 32))) return false;
    return dpp_writes_every_lane() || canonical(read_reg(in.ops[static_cast<std::size_t>(kd)].reg));
  }

  // -- VALU --

  /// Lane-wise operands of a VALU instruction: values specialised to the active lanes.
  Bits sval(int k, std::uint32_t xv, unsigned width = 0) {
    Bits b = val(k, width);
    for (Bit& x : b) x = A.spec(x, xv);
    return b;
  }

  /// An f32 source of a lane-wise operation as 32 bits: a register or an integer constant (its bits), or a float
  /// constant the assembler encodes exactly as an f32 (inline 0.5, 1.0, 2.0, 4.0 and their negatives, or a literal
  /// that is exactly an f32). Anything else (1/(2*pi), a rounded literal, an expression): nothing.
  std::optional<Bits> f32_operand(int k, std::uint32_t xv) {
    const Operand& o = in.ops[static_cast<std::size_t>(k)];
    if (o.kind == Operand::Kind::real) {
      const auto x = static_cast<float>(o.real);
      if (!(static_cast<double>(x) == o.real)) return std::nullopt;  // not exact (or a NaN, whose payload is not kept)
      const auto v = std::bit_cast<std::uint32_t>(x);
      Bits b(32);
      for (unsigned j = 0; j < 32; ++j) b[j] = (v >> j) & 1 ? bit1 : bit0;
      return b;
    }
    if (o.kind != Operand::Kind::reg && !int_constant(o, ops_info[static_cast<std::size_t>(k)])) return std::nullopt;
    return sval(k, xv, 32);
  }

  /// The f32 compare of condition `pred` (VOPC: f lt eq le gt lg ge o u nge nlg ngt nle neq nlt tru) of a and b, as a
  /// circuit; nothing for a condition not listed (class). Valid where denormal inputs are kept (see valu()).
  std::optional<Bit> f32_compare(CmpCond pred, const Bits& a, const Bits& b) {
    constexpr unsigned fb = 23;
    auto is_nan = [&](const Bits& x) {
      Bit e = bit1, fr = bit0;
      for (unsigned j = fb; j < 31; ++j) e = A.and_(e, x[j]);
      for (unsigned j = 0; j < fb; ++j) fr = A.or_(fr, x[j]);
      return A.and_(e, fr);
    };
    const Bit unordered = A.or_(is_nan(a), is_nan(b));
    using C = CmpCond;
    if (pred == C::o) return A.not_(unordered);
    if (pred == C::u) return unordered;
    if (pred == C::f) return bit0;
    if (pred == C::tru) return bit1;
    // Ordered values: +0 and -0 are equal; otherwise the order of sign-magnitude numbers is the unsigned order of
    // the key that flips the sign bit of a positive value and every bit of a negative one.
    Bit both_zero = bit1;
    for (unsigned j = 0; j < 31; ++j) both_zero = A.and_(both_zero, A.and_(A.not_(a[j]), A.not_(b[j])));
    auto key = [&](const Bits& x) {
      Bits k(32);
      for (unsigned j = 0; j < 31; ++j) k[j] = A.xor_(x[j], x[31]);
      k[31] = A.not_(x[31]);
      return k;
    };
    const Bits ka = key(a), kb = key(b);
    Bit same = bit1;
    for (unsigned j = 0; j < 32; ++j) same = A.and_(same, A.not_(A.xor_(a[j], b[j])));
    const Bit eq = A.or_(same, both_zero);
    const Bit lt = A.and_(A.not_(both_zero), less_unsigned(ka, kb));
    const Bit gt = A.and_(A.not_(both_zero), less_unsigned(kb, ka));
    Bit r;
    // nge, nlg, ngt, nle, neq, nlt: the negation of the ordered compare, so true when unordered.
    bool negated = true;
    C p = pred;
    switch (pred) {
      case C::nge: p = C::ge; break;
      case C::nlg: p = C::lg; break;
      case C::ngt: p = C::gt; break;
      case C::nle: p = C::le; break;
      case C::neq: p = C::eq; break;
      case C::nlt: p = C::lt; break;
      default: negated = false; break;
    }
    if (p == C::lt) r = lt;
    else if (p == C::eq) r = eq;
    else if (p == C::le) r = A.or_(lt, eq);
    else if (p == C::gt) r = gt;
    else if (p == C::lg) r = A.not_(eq);
    else if (p == C::ge) r = A.or_(gt, eq);
    else return std::nullopt;
    r = A.and_(A.not_(unordered), r);
    return negated ? A.not_(r) : r;
  }

  bool valu() {
    if (!plain()) return false;
    const Opcode o = op_id;
    const int kd = find("vdst"), k0 = find("src0"), k1 = find("src1"), k2 = find("src2");
    const Bits ex = exec_bits();
    const auto xv = A.vec(ex);

    if (one_of(info.family, Family::v_cmp, Family::v_cmpx)) {
      using T = DataType;
      const CmpCond pred = info.cond;
      const DataType ty = info.type;
      // f32 compares are functions of the operands' bits: NaN is exponent all ones and a nonzero fraction, and
      // ordered values compare as sign-magnitude numbers with +0 = -0 (IEEE 754-2019 §5.11; MI300 ISA V_CMP_*_F32),
      // so they are exact circuits, with no floating-point arithmetic in them. Ordered / unordered never look past
      // the NaN test. The order compares are exact only where MODE keeps f32 input denormals throughout
      // (EvalEnv::f32_mode bit 0): whether a compare flushes a denormal input under FP_DENORM flush modes is not
      // relied on, so there (or when MODE is not known) they stay opaque; e.g. v_cmp_lt_f32 of 0x1 and 0 is 1 with
      // denormals kept and perhaps 0 when they are flushed. (f32 only: a constant operand's bits are its f32
      // encoding whatever the instruction's type, which is not so for f16 and f64.)
      if (ty == T::f32 && k0 >= 0 && k1 >= 0 &&
          (one_of(pred, CmpCond::o, CmpCond::u) || (env.f32_mode >= 0 && (env.f32_mode & 1)))) {
        const auto a = f32_operand(k0, xv), b = f32_operand(k1, xv);
        const auto r = a && b ? f32_compare(pred, *a, *b) : std::nullopt;
        if (r) {
          const Bits mask = lane_mask(*r, ex);
          const int ks = find("sdst");
          if (ks >= 0) write_op(ks, mask);
          if (f.implicit_defs & isa::reg::vcc) write_units({unit_vcc, unit_vcc + 1}, mask);
          if (f.implicit_defs & isa::reg::exec) write_units({unit_exec, unit_exec + 1}, mask);
          return true;
        }
      }
      if (!one_of(ty, T::i16, T::i32, T::i64, T::u16, T::u32, T::u64)) return false;
      const auto c = cmp_of(pred);
      if (!c || k0 < 0 || k1 < 0) return false;
      const unsigned w = bits(ty);
      const Bits a = low(sval(k0, xv, w < 32 ? 32 : w), w), b = low(sval(k1, xv, w < 32 ? 32 : w), w);
      const Bit r = compare(*c, a, b, is_signed_int(ty), "vcmp");
      const Bits mask = lane_mask(r, ex);
      const int ks = find("sdst");
      if (ks >= 0) write_op(ks, mask);
      if (f.implicit_defs & isa::reg::vcc) write_units({unit_vcc, unit_vcc + 1}, mask);
      if (f.implicit_defs & isa::reg::exec) write_units({unit_exec, unit_exec + 1}, mask);
      return true;
    }
    if (kd < 0 || !in.ops[static_cast<std::size_t>(kd)].is_reg() || partial_def(in)) return false;
    const auto dst_file = in.ops[static_cast<std::size_t>(kd)].reg.file;
    if (dst_file != RegFile::vgpr && dst_file != RegFile::agpr) return false;

    if (one_of(o, op::v_max_f32, op::v_min_f32) && k0 >= 0 && k1 >= 0) {
      // max(x, x) = min(x, x) = x for a canonical x (see canonical()); anything else is an opaque result.
      const Bits a = sval(k0, xv, 32);
      if (a != sval(k1, xv, 32) || !canonical(a)) return false;
      write_lanes(kd, a, xv);
      return true;
    }
    if (o == op::v_mov_b32 || info.family == Family::v_accvgpr) {  // v_accvgpr_read_b32, _write_b32, _mov_b32
      if (k0 < 0) return false;
      write_lanes(kd, sval(k0, xv, 32), xv);
      return true;
    }
    if (o == op::v_cndmask_b32) {
      // D = mask[lane] ? S1 : S0, mask = VCC (e32) or src2 (e64) (MI300 ISA V_CNDMASK_B32).
      if (k0 < 0 || k1 < 0) return false;
      Bits mask;
      if (k2 >= 0) mask = val(k2, 64);
      else {
        mask = read_reg(Reg{RegFile::special, special::vcc_lo, 2});
      }
      const auto mv = A.vec(mask);
      const Bits a = sval(k0, xv, 32), b = sval(k1, xv, 32);
      Bits r(32);
      for (unsigned j = 0; j < 32; ++j) r[j] = A.mux(mv, b[j], a[j]);
      write_lanes(kd, r, xv);
      return true;
    }
    if (k0 < 0) return false;
    if (one_of(o, op::v_not_b32, op::v_bfrev_b32)) {
      const Bits a = sval(k0, xv, 32);
      Bits r(32);
      for (unsigned j = 0; j < 32; ++j) r[j] = o == op::v_not_b32 ? A.not_(a[j]) : a[31 - j];
      write_lanes(kd, r, xv);
      return true;
    }
    if (k1 < 0) return false;
    if (one_of(o, op::v_and_b32, op::v_or_b32, op::v_xor_b32, op::v_xnor_b32)) {
      const Bits a = sval(k0, xv, 32), b = sval(k1, xv, 32);
      Bits r(32);
      for (unsigned j = 0; j < 32; ++j)
        r[j] = o == op::v_and_b32 ? A.and_(a[j], b[j]) : o == op::v_or_b32 ? A.or_(a[j], b[j])
               : o == op::v_xor_b32 ? A.xor_(a[j], b[j]) : A.not_(A.xor_(a[j], b[j]));
      write_lanes(kd, r, xv);
      return true;
    }
    if (one_of(o, op::v_lshlrev_b32, op::v_lshrrev_b32, op::v_ashrrev_i32, op::v_lshlrev_b64, op::v_lshrrev_b64,
               op::v_ashrrev_i64)) {
      // D = S1 shifted by S0[4:0] (S0[5:0] for 64-bit) (MI300 ISA V_LSHLREV_B32, V_LSHLREV_B64 ...).
      const bool w64 = bits(info.type) == 64;
      const Bits sh = sval(k0, xv, 32), a = sval(k1, xv, w64 ? 64 : 32);
      const auto amt = known(sh, w64 ? 6 : 5);
      if (!amt) return false;
      const auto s = static_cast<unsigned>(*amt);
      write_lanes(kd, info.base == BaseOp::v_lshlrev ? shl(a, s) : info.base == BaseOp::v_lshrrev ? lshr(a, s) : ashr(a, s),
                  xv);
      return true;
    }
    if (one_of(o, op::v_add_u32, op::v_sub_u32, op::v_subrev_u32)) {
      const Bits a = sval(k0, xv, 32), b = sval(k1, xv, 32);
      const Bits r = o == op::v_add_u32   ? add(a, b, bit0).first
                     : o == op::v_sub_u32 ? sub(a, b, bit0).first
                                          : sub(b, a, bit0).first;
      write_lanes(kd, r, xv);
      return true;
    }
    if (one_of(o, op::v_add_co_u32, op::v_addc_co_u32, op::v_sub_co_u32, op::v_subb_co_u32, op::v_subrev_co_u32,
               op::v_subbrev_co_u32)) {
      // D = S0 op S1 (op carry-in from VCC/src2 per lane); carry-out to VCC/sdst, 0 in inactive lanes.
      const Bits a = sval(k0, xv, 32), b = sval(k1, xv, 32);
      Bit cin = bit0;
      if (one_of(o, op::v_addc_co_u32, op::v_subb_co_u32, op::v_subbrev_co_u32)) {
        Bits cm = k2 >= 0 ? val(k2, 64) : read_reg(Reg{RegFile::special, special::vcc_lo, 2});
        cin = A.mux(A.vec(cm), bit1, bit0);
      }
      std::pair<Bits, Bit> r;
      if (one_of(o, op::v_add_co_u32, op::v_addc_co_u32)) r = add(a, b, cin);
      else if (one_of(o, op::v_subrev_co_u32, op::v_subbrev_co_u32)) r = sub(b, a, cin);
      else r = sub(a, b, cin);
      const Bits mask = lane_mask(r.second, ex);
      write_lanes(kd, r.first, xv);
      const int ks = find("sdst");
      if (ks >= 0) write_op(ks, mask);
      else if (f.implicit_defs & isa::reg::vcc) write_units({unit_vcc, unit_vcc + 1}, mask);
      return true;
    }
    if (one_of(o, op::v_mul_lo_u32, op::v_mul_u32_u24, op::v_mul_i32_i24)) {
      Bits a = sval(k0, xv, 32), b = sval(k1, xv, 32);
      if (o == op::v_mul_i32_i24) return false;
      if (o == op::v_mul_u32_u24)
        for (unsigned j = 24; j < 32; ++j) a[j] = bit0, b[j] = bit0;
      write_lanes(kd, mul(a, b, 32, "vmul", true), xv);
      return true;
    }
    if (k2 < 0) return false;
    if (o == op::v_lshl_add_u64) {
      // D = (S0 << S1[2:0]) + S2 on 64 bits (MI300 ISA V_LSHL_ADD_U64). LLVM selects it only for shifts 0..4
      // (llvm/test/CodeGen/AMDGPU/lshl-add-u64.ll: a shift of 5 becomes v_lshlrev_b64 + a shift of 0), and the
      // hardware's behaviour for other amounts is not relied on: a shift amount above 4 stays opaque.
      const Bits a = sval(k0, xv, 64), s = sval(k1, xv, 32), c = sval(k2, xv, 64);
      const auto amt = known(s, 32);
      if (!amt || *amt > 4) return false;
      write_lanes(kd, add(shl(a, static_cast<unsigned>(*amt)), c, bit0).first, xv);
      return true;
    }
    if (o == op::v_mad_u64_u32) {
      // {sdst carry, D} = S0.u32 * S1.u32 + S2.u64 (MI300 ISA V_MAD_U64_U32).
      const Bits a = sval(k0, xv, 32), b = sval(k1, xv, 32), c = sval(k2, xv, 64);
      Bits a64 = a, b64 = b;
      a64.resize(64, bit0), b64.resize(64, bit0);
      const Bits p = mul(a64, b64, 64, "vmad64", true);
      auto [r, carry] = add(p, c, bit0);
      (void)carry;
      // The carry-out lane mask is an opaque value of the operands, exec and its old value (what inactive lanes get
      // is not relied on).
      const int ks = find("sdst");
      if (ks >= 0 && in.ops[static_cast<std::size_t>(ks)].is_reg()) {
        const Bits old = read_reg(in.ops[static_cast<std::size_t>(ks)].reg);
        const auto n = A.opaque(key("mad64carry") + "|x" + std::to_string(xv) + "|o" + vkey(old), false);
        Bits cm(64);
        for (unsigned j = 0; j < 64; ++j) cm[j] = A.proj(n, j);
        write_op(ks, cm);
      }
      write_lanes(kd, r, xv);
      return true;
    }
    {
      const Bits a = sval(k0, xv, 32), b = sval(k1, xv, 32), c = sval(k2, xv, 32);
      Bits r(32);
      if (o == op::v_add3_u32) r = add(add(a, b, bit0).first, c, bit0).first;
      else if (o == op::v_xad_u32) {
        Bits x(32);
        for (unsigned j = 0; j < 32; ++j) x[j] = A.xor_(a[j], b[j]);
        r = add(x, c, bit0).first;
      } else if (one_of(o, op::v_lshl_add_u32, op::v_lshl_or_b32, op::v_add_lshl_u32)) {
        const Bits& shv = o == op::v_add_lshl_u32 ? c : b;
        const auto amt = known(shv, 5);
        if (!amt) return false;
        const auto s = static_cast<unsigned>(*amt);
        if (o == op::v_lshl_add_u32) r = add(shl(a, s), c, bit0).first;
        else if (o == op::v_add_lshl_u32) r = shl(add(a, b, bit0).first, s);
        else {
          const Bits t = shl(a, s);
          for (unsigned j = 0; j < 32; ++j) r[j] = A.or_(t[j], c[j]);
        }
      } else if (o == op::v_and_or_b32) {
        for (unsigned j = 0; j < 32; ++j) r[j] = A.or_(A.and_(a[j], b[j]), c[j]);
      } else if (o == op::v_or3_b32) {
        for (unsigned j = 0; j < 32; ++j) r[j] = A.or_(A.or_(a[j], b[j]), c[j]);
      } else if (o == op::v_bfi_b32) {
        for (unsigned j = 0; j < 32; ++j) r[j] = A.ite(a[j], b[j], c[j]);
      } else if (one_of(o, op::v_bfe_u32, op::v_bfe_i32)) {
        // D = (S0 >> S1[4:0]) & ((1 << S2[4:0]) - 1), for _i32 with S0.i >> (arithmetic) and the field
        // sign-extended from bit width-1 (MI300 ISA V_BFE_U32/V_BFE_I32; the emulator's fp.hpp bfe_i32).
        const auto off = known(b, 5), wid = known(c, 5);
        if (!off || !wid) return false;
        const bool sgn = o == op::v_bfe_i32;
        r = sgn ? ashr(a, static_cast<unsigned>(*off)) : lshr(a, static_cast<unsigned>(*off));
        const auto w = static_cast<unsigned>(*wid);
        for (unsigned j = w; j < 32; ++j) r[j] = (sgn && w > 0) ? r[w - 1] : bit0;
        if (w == 0) std::fill(r.begin(), r.end(), bit0);
      } else if (o == op::v_mad_u32_u24) {
        Bits x = a, y = b;
        for (unsigned j = 24; j < 32; ++j) x[j] = bit0, y[j] = bit0;
        r = add(mul(x, y, 32, "vmul", true), c, bit0).first;
      } else {
        return false;
      }
      write_lanes(kd, r, xv);
      return true;
    }
  }

  /// Any other VALU instruction: an opaque result. Lane-wise full writes go through mux(exec, ...); others take
  /// exec and their old destinations as inputs.
  void valu_generic() {
    const Bits ex = exec_bits();
    const auto xv = A.vec(ex);
    std::vector<int> vdefs, sdefs;
    for (std::size_t i = 0; i < ops_info.size() && i < in.ops.size(); ++i) {
      if (ops_info[i].role != isa::Role::def || !in.ops[i].is_reg()) continue;
      const auto file = in.ops[i].reg.file;
      (file == RegFile::vgpr || file == RegFile::agpr ? vdefs : sdefs).push_back(static_cast<int>(i));
    }
    const bool lanewise = !cross_lane(in) && !partial_def(in);  // SDWA: lane-wise when it writes the whole dword
    if (!lanewise) {
      const bool canon = dpp_mov_canonical();
      // Old destinations are inputs unless every bit of them is written: every lane (dpp_writes_every_lane) and the
      // whole dword (not a 16-bit result, nor v_pk_fmac_f16, whose addend is the destination: partial_def).
      const auto n = write_defs_opaque(false, partial_def(in) || !dpp_writes_every_lane());
      if (canon) A.add_fact(n, BitAlg::canonical_f32);
      return;
    }
    // Vector results: one lane-wise value of the specialised operands.
    if (!vdefs.empty()) {
      const bool canon = vdefs.size() == 1 && canonical_result(xv);
      const auto n = A.opaque(key("lw", true, xv, false, true), true);
      if (canon) A.add_fact(n, BitAlg::canonical_f32);
      unsigned off = 0;
      for (int d : vdefs) {
        const auto us = units_of(in.ops[static_cast<std::size_t>(d)].reg);
        Bits v(32 * us.size());
        for (std::size_t j = 0; j < v.size(); ++j) v[j] = A.proj(n, off + static_cast<unsigned>(j));
        off += static_cast<unsigned>(v.size());
        write_lanes(d, v, xv);
      }
    }
    // Scalar results (carry-outs, vcc of v_div_scale ...): a value of all operands and exec.
    std::vector<unsigned> su;
    for (int d : sdefs)
      for (unsigned u : units_of(in.ops[static_cast<std::size_t>(d)].reg)) su.push_back(u);
    for (unsigned u : implicit_units(f.implicit_defs & ~isa::reg::mode)) su.push_back(u);
    if (!su.empty()) {
      write_projections(A.opaque(key("ls") + "|x" + std::to_string(xv), false), su);
    }
  }
};

/// Evaluates one instruction on state `st`.
template <class S>
StepOut step(BitAlg& A, S& st, const EvalEnv& env, const Inst& in) {
  return Evaluator<S>(A, st, env, in).run();
}

}  // namespace asmevo::analysis::detail
