// Unit tests of ir/op.hpp and the generated ir/gen/ops.hpp: op ids against the instruction tables (every form of
// every target, every op's forms), the mnemonic attributes against TableGen's own bits and operand widths, and the
// API in constant expressions.
#include <gtest/gtest.h>

#include <cstddef>
#include <set>
#include <string>
#include <string_view>

#include "asmevo/ir/gen/form_traits.hpp"
#include "asmevo/ir/gen/isa_tables.hpp"
#include "asmevo/ir/op.hpp"

namespace {

using namespace asmevo;

constexpr Opcode op_at(std::size_t i) { return static_cast<Opcode>(i); }

// ---- constant expressions ----------------------------------------------------------------------------------------

static_assert(op_name(op::v_add_u32) == "v_add_u32");
static_assert(op_name(Opcode::invalid).empty());
static_assert(op_of(Target::gfx942, isa::gfx942::V_ADD_U32_e32_gfx9) == op::v_add_u32);
static_assert(op_of(Target::gfx942, isa::gfx942::form_table.size()) == Opcode::invalid);
static_assert(op_info(op::global_load_dwordx4).mem_bytes == 16 && op_info(op::global_load_dwordx4).mem_dwords() == 4);
static_assert(one_of(op::s_swappc_b64, op::s_call_b64, op::s_swappc_b64));
static_assert(!one_of(Family::v_cmp, Family::v_cmpx, Family::s_cmp));
static_assert(available(Target::gfx950, op::v_mfma_f32_32x32x64_f8f6f4) &&
              !available(Target::gfx942, op::v_mfma_f32_32x32x64_f8f6f4));
static_assert(forms_of(Target::gfx942, op::v_add_u32).data() == isa::find_mnemonic(Target::gfx942, "v_add_u32").data());
static_assert(forms_of(Target::gfx90a, op::global_load_lds_dword).empty());
// Siblings by attribute: the negated compare, the wider load, the other logic op.
static_assert([] {
  OpInfo i = op_info(op::v_cmp_lt_i32);
  i.cond = CmpCond::ge;
  return find_op(i) == op::v_cmp_ge_i32;
}());
static_assert([] {
  OpInfo i = op_info(op::global_load_dwordx2);
  i.count = 4;
  i.mem_bytes = 16;
  return find_op(i) == op::global_load_dwordx4;
}());
static_assert([] {
  OpInfo i = op_info(op::s_and_saveexec_b64);
  i.base = BaseOp::s_or;
  return find_op(i) == op::s_or_saveexec_b64;
}());

// ---- the ids against the tables ------------------------------------------------------------------------------------

// (Not in a static_assert: Inst holds a std::string, which libstdc++ 12 cannot build in clang's constant evaluator.)
TEST(Opcode, OfInst) {
  Inst in;
  in.target = Target::gfx942;
  in.form = isa::gfx942::V_CMPX_EQ_U32_e64_vi;
  EXPECT_EQ(op_of(in), op::v_cmpx_eq_u32);
  EXPECT_EQ(family_of(in), Family::v_cmpx);
  EXPECT_EQ(op_info(in).cond, CmpCond::eq);
  in.form = 0xffff;  // an Inst built by hand with a bad form: no op, no attributes
  EXPECT_EQ(op_of(in), Opcode::invalid);
  EXPECT_EQ(family_of(in), Family::none);
  EXPECT_EQ(op_info(in), OpInfo{});
}

TEST(Opcode, EveryFormMapsToItsMnemonic) {
  for (Target t : all_targets) {
    const auto fs = isa::forms(t);
    ASSERT_EQ(form_ops(t).size(), fs.size()) << to_string(t);
    for (std::size_t i = 0; i < fs.size(); ++i) {
      const Opcode o = op_of(t, i);
      ASSERT_NE(o, Opcode::invalid) << to_string(t) << " form " << fs[i].name;
      EXPECT_EQ(op_name(o), fs[i].mnemonic) << to_string(t) << " form " << fs[i].name;
      Inst in;
      in.target = t;
      in.form = static_cast<std::uint16_t>(i);
      EXPECT_EQ(op_of(in), o);
    }
    EXPECT_EQ(op_of(t, fs.size()), Opcode::invalid);
  }
}

// The per-form traits the operand checks read (ir/gen/form_traits.hpp) say the same as the op ids: exactly the forms
// of v_readlane_b32/v_writelane_b32 are exempt from the constant bus limit, and exactly the gfx950 MFMAs with
// cbsz/blgp-chosen formats are f8f6f4 (none on gfx90a/gfx942).
TEST(Opcode, FormTraitsAgreeWithOps) {
  for (Target t : all_targets) {
    const auto fs = isa::forms(t);
    int exempt = 0, f8f6f4 = 0;
    for (std::size_t i = 0; i < fs.size(); ++i) {
      const Opcode o = op_of(t, i);
      const std::uint8_t bits = isa::form_traits(t, i);
      const bool want_exempt = one_of(o, op::v_readlane_b32, op::v_writelane_b32);
      const bool want_f8 = family_of(o) == Family::v_mfma && op_info(o).src_type == DataType::f8f6f4;
      EXPECT_EQ((bits & isa::ftrait::const_bus_exempt) != 0, want_exempt) << to_string(t) << " " << fs[i].name;
      EXPECT_EQ((bits & isa::ftrait::mfma_f8f6f4) != 0, want_f8) << to_string(t) << " " << fs[i].name;
      exempt += want_exempt;
      f8f6f4 += want_f8;
    }
    EXPECT_GE(exempt, 2) << to_string(t);
    if (t == Target::gfx950) EXPECT_GE(f8f6f4, 2); else EXPECT_EQ(f8f6f4, 0) << to_string(t);
    EXPECT_EQ(isa::form_traits(t, fs.size()), 0);
  }
}

TEST(Opcode, IdsAreTheSortedUnionOfTheTargetsMnemonics) {
  std::set<std::string_view> all;
  for (Target t : all_targets)
    for (const auto& m : isa::mnemonics(t)) all.insert(m.mnemonic);
  ASSERT_EQ(num_ops, all.size() + 1);
  std::size_t i = 1;
  for (std::string_view m : all) EXPECT_EQ(op_name(op_at(i++)), m);
}

TEST(Opcode, EveryOpIsOnSomeTargetAndFormsOfMatchesFindMnemonic) {
  for (std::size_t i = 1; i < num_ops; ++i) {
    const Opcode o = op_at(i);
    bool somewhere = false;
    for (Target t : all_targets) {
      const auto want = isa::find_mnemonic(t, op_name(o));
      const auto got = forms_of(t, o);
      if (!want.empty()) {  // an empty span's data() is unspecified
        EXPECT_EQ(got.data(), want.data()) << op_name(o) << " on " << to_string(t);
      }
      EXPECT_EQ(got.size(), want.size()) << op_name(o) << " on " << to_string(t);
      EXPECT_EQ(available(t, o), !want.empty()) << op_name(o) << " on " << to_string(t);
      somewhere = somewhere || available(t, o);
    }
    EXPECT_TRUE(somewhere) << op_name(o);
  }
  for (Target t : all_targets) {
    EXPECT_TRUE(forms_of(t, Opcode::invalid).empty());
    EXPECT_TRUE(forms_of(t, op_at(num_ops)).empty());
  }
}

TEST(Opcode, AttributesAreLossless) {
  for (std::size_t i = 1; i < num_ops; ++i) {
    const Opcode o = op_at(i);
    EXPECT_EQ(find_op(op_info(o)), o) << op_name(o);
    EXPECT_NE(op_info(o).family, Family::none) << op_name(o);
    EXPECT_FALSE(to_string(op_info(o).family).empty()) << op_name(o);
    EXPECT_FALSE(to_string(op_info(o).base).empty()) << op_name(o);
  }
  EXPECT_EQ(find_op(OpInfo{}), Opcode::invalid);
}

// ---- families against TableGen's bits --------------------------------------------------------------------------

// Calls `check(op, form)` for every form of every op on every target.
template <class F>
void each_form(F check) {
  for (Target t : all_targets)
    for (std::size_t i = 0; i < isa::forms(t).size(); ++i) check(op_of(t, i), isa::forms(t)[i], t);
}

std::string where(const isa::FormInfo& f, Target t) { return std::string(f.name) + " on " + std::string(to_string(t)); }

TEST(Opcode, CompareFamiliesAgreeWithImplicitExecDefs) {
  // VOPCX: Defs = [EXEC] in TableGen (VOPCInstructions.td); plain VOPC never writes EXEC.
  each_form([](Opcode o, const isa::FormInfo& f, Target t) {
    const Family fam = family_of(o);
    const bool writes_exec = (f.implicit_defs & isa::reg::exec) != 0;
    if (one_of(fam, Family::v_cmpx, Family::s_saveexec, Family::s_wrexec)) {
      EXPECT_TRUE(writes_exec) << where(f, t);
    } else if (fam == Family::v_cmp) {
      EXPECT_FALSE(writes_exec) << where(f, t);
    }
    const bool compare = one_of(fam, Family::v_cmp, Family::v_cmpx, Family::s_cmp, Family::s_cmpk);
    EXPECT_EQ(op_info(o).cond != CmpCond::none, compare) << where(f, t);
  });
}

TEST(Opcode, ControlFamiliesAgreeWithBranchBits) {
  each_form([](Opcode o, const isa::FormInfo& f, Target t) {
    const Family fam = family_of(o);
    EXPECT_EQ(f.has(isa::prop::cond_branch), one_of(fam, Family::s_cbranch, Family::s_cbranch_cdbg)) << where(f, t);
    EXPECT_EQ(f.has(isa::prop::call), fam == Family::s_call) << where(f, t);
    if (fam == Family::s_branch) {
      EXPECT_TRUE(f.has(isa::prop::branch | isa::prop::no_fallthrough)) << where(f, t);
    }
    if (fam == Family::s_endpgm) {
      EXPECT_TRUE(f.has(isa::prop::no_fallthrough)) << where(f, t);
    }
  });
}

TEST(Opcode, UnitFamiliesAgreeWithEncodingAndProperties) {
  each_form([](Opcode o, const isa::FormInfo& f, Target t) {
    const OpInfo& i = op_info(o);
    using isa::Format;
    // TableGen's IsMAI bit (prop::mfma) is also on v_accvgpr_read/write (VOP3P-MAI encodings), not only MFMAs.
    if (one_of(i.family, Family::v_mfma, Family::v_smfmac)) {
      EXPECT_TRUE(f.has(isa::prop::mfma)) << where(f, t);
    } else if (f.has(isa::prop::mfma)) {
      EXPECT_EQ(i.family, Family::v_accvgpr) << where(f, t);
    }
    // IsDOT is not set on the DPP forms of v_dotNc.
    if (i.family == Family::v_dot && f.variant != isa::Variant::dpp) {
      EXPECT_TRUE(f.has(isa::prop::dot)) << where(f, t);
    }
    if (i.family == Family::ds_gws) {
      EXPECT_TRUE(f.has(isa::prop::gws)) << where(f, t);
    }
    if (i.has(opflag::lds)) {  // LDS DMA reads and writes memory (buffer forms also carry TableGen's LDS bit)
      EXPECT_TRUE(f.has(isa::prop::lds_dma) || f.has(isa::prop::load | isa::prop::store)) << where(f, t);
    }
    switch (i.unit) {
      case OpUnit::ds: EXPECT_EQ(f.format, Format::DS) << where(f, t); break;
      case OpUnit::buffer: EXPECT_EQ(f.format, Format::MUBUF) << where(f, t); break;
      case OpUnit::tbuffer: EXPECT_EQ(f.format, Format::MTBUF) << where(f, t); break;
      case OpUnit::global: EXPECT_EQ(f.format, Format::GLOBAL) << where(f, t); break;
      case OpUnit::flat: EXPECT_EQ(f.format, Format::FLAT) << where(f, t); break;
      case OpUnit::scratch: EXPECT_EQ(f.format, Format::SCRATCH) << where(f, t); break;
      case OpUnit::image: EXPECT_EQ(f.format, Format::MIMG) << where(f, t); break;
      case OpUnit::s: EXPECT_TRUE(f.has(isa::prop::salu) || f.has(isa::prop::smem) || f.format == Format::SOPP) << where(f, t); break;
      case OpUnit::v: EXPECT_TRUE(f.has(isa::prop::valu)) << where(f, t); break;
      case OpUnit::none: ADD_FAILURE() << where(f, t);
    }
    if (one_of(i.family, Family::s_load, Family::s_store, Family::s_buffer, Family::s_scratch, Family::s_atomic)) {
      EXPECT_TRUE(f.has(isa::prop::smem)) << where(f, t);
    }
    if (i.family == Family::s_ctrl) {
      EXPECT_EQ(f.format, Format::SOPP) << where(f, t);
    }
  });
}

// opflag::accum (the destination is also a source) against TableGen: some form of the op ties a source to vdst.
TEST(Opcode, AccumulatorsTieTheirDestination) {
  for (std::size_t i = 1; i < num_ops; ++i) {
    const Opcode o = op_at(i);
    if (!op_info(o).has(opflag::accum)) continue;
    bool tied = false;
    for (Target t : all_targets)
      for (const auto& f : forms_of(t, o))
        for (const auto& op : isa::operands(f)) tied = tied || (op.role == isa::Role::use && op.tied >= 0);
    EXPECT_TRUE(tied) << op_name(o);
  }
}

// The width the mnemonic gives (mem_bytes) against the width of the data register in TableGen's operand list:
// plain loads (load, no store) and plain stores (store, no load), not LDS DMA; DS read2 loads two elements.
TEST(Opcode, MemoryWidthsAgreeWithDataOperands) {
  int checked = 0;
  each_form([&](Opcode o, const isa::FormInfo& f, Target t) {
    const OpInfo& i = op_info(o);
    if (i.mem_bytes == 0 || f.has(isa::prop::lds_dma) || i.has(opflag::lds)) return;
    const bool load = f.has(isa::prop::load), store = f.has(isa::prop::store);
    if (load == store) return;
    const isa::OperandInfo* data = nullptr;
    for (const auto& op : isa::operands(f)) {
      const bool named = load ? (op.name == "vdst" || op.name == "vdata" || op.name == "sdst")
                              : (op.name == "vdata" || op.name == "data0" || op.name == "sdata");
      if (named && op.role == (load ? isa::Role::def : isa::Role::use)) {
        data = &op;
        break;
      }
    }
    ASSERT_NE(data, nullptr) << where(f, t);
    const unsigned elems = i.base == BaseOp::ds_read2 ? 2u : 1u;
    EXPECT_EQ(data->dwords(), i.mem_dwords() * elems) << where(f, t) << " mem_bytes " << int{i.mem_bytes};
    ++checked;
  });
  EXPECT_GT(checked, 500);
}

// ---- spot checks of decoded attributes (each verified against the mnemonic tables) -----------------------------

TEST(Opcode, SpotChecks) {
  const OpInfo& g4 = op_info(op::global_load_dwordx4);
  EXPECT_EQ(g4.family, Family::global);
  EXPECT_EQ(g4.base, BaseOp::global_load);
  EXPECT_EQ(g4.type, DataType::b32);
  EXPECT_EQ(g4.count, 4);
  EXPECT_EQ(g4.mem_dwords(), 4u);

  const OpInfo& ub = op_info(op::global_load_sbyte_d16_hi);
  EXPECT_EQ(ub.type, DataType::i8);
  EXPECT_EQ(ub.mem_bytes, 1);
  EXPECT_TRUE(ub.has(opflag::d16 | opflag::d16_hi));
  EXPECT_FALSE(op_info(op::global_load_sbyte_d16).has(opflag::d16_hi));

  EXPECT_TRUE(op_info(op::global_load_lds_dwordx4).has(opflag::lds));
  EXPECT_EQ(op_info(op::global_load_lds_dwordx4).base, BaseOp::global_load);
  EXPECT_EQ(op_info(op::global_load_lds_dwordx4).mem_bytes, 16);
  EXPECT_EQ(op_info(op::scratch_load_lds_ushort).mem_bytes, 2);
  EXPECT_EQ(op_info(op::buffer_atomic_add_x2).mem_bytes, 8);
  EXPECT_EQ(op_info(op::buffer_atomic_add).mem_bytes, 4);
  EXPECT_EQ(op_info(op::ds_pk_add_f16).mem_bytes, 4);
  EXPECT_EQ(op_info(op::ds_read_b128).mem_bytes, 16);
  EXPECT_EQ(op_info(op::s_load_dwordx16).mem_bytes, 64);
  EXPECT_EQ(op_info(op::tbuffer_load_format_xyz).count, 3);
  EXPECT_EQ(op_info(op::tbuffer_load_format_xyz).mem_bytes, 0);  // the format decides
  EXPECT_TRUE(op_info(op::ds_read2st64_b64).has(opflag::st64));
  EXPECT_EQ(op_info(op::ds_read2st64_b64).base, BaseOp::ds_read2);
  EXPECT_EQ(op_info(op::v_add_f32).mem_bytes, 0);  // not a memory op

  EXPECT_EQ(op_info(op::s_and_saveexec_b64).family, Family::s_saveexec);
  EXPECT_EQ(op_info(op::s_and_saveexec_b64).base, op_info(op::s_and_b32).base);
  EXPECT_EQ(op_info(op::s_and_b64).base, BaseOp::s_and);
  EXPECT_EQ(op_info(op::s_andn2_wrexec_b64).family, Family::s_wrexec);

  EXPECT_EQ(op_info(op::v_cmp_class_f32).cond, CmpCond::class_);
  EXPECT_EQ(op_info(op::s_cmpk_lg_u32).cond, CmpCond::lg);
  EXPECT_EQ(op_info(op::s_cmpk_lg_u32).type, DataType::u32);
  EXPECT_EQ(op_info(op::s_cmp_eq_u64).type, DataType::u64);
  EXPECT_EQ(op_info(op::v_cmpx_nlt_f16).cond, CmpCond::nlt);

  const OpInfo& cvt = op_info(op::v_cvt_f32_f16);
  EXPECT_EQ(cvt.type, DataType::f32);
  EXPECT_EQ(cvt.src_type, DataType::f16);
  EXPECT_TRUE(op_info(op::v_cvt_f32_f64).mentions(DataType::f64));
  EXPECT_FALSE(op_info(op::v_add_f32).mentions(DataType::f64));
  EXPECT_EQ(bits(op_info(op::v_mul_u32_u24).src_type), 24u);

  const OpInfo& mf = op_info(op::v_mfma_f32_32x32x8_f16);
  EXPECT_EQ(mf.family, Family::v_mfma);
  EXPECT_EQ(mf.mfma_m, 32);
  EXPECT_EQ(mf.mfma_n, 32);
  EXPECT_EQ(mf.mfma_k, 8);
  EXPECT_EQ(mf.src_type, DataType::f16);
  EXPECT_TRUE(op_info(op::v_mfma_f32_32x32x8f16).has(opflag::legacy_name));
  EXPECT_EQ(op_info(op::v_mfma_f32_16x16x1_4b_f32).mfma_blocks, 4);
  EXPECT_EQ(op_info(op::v_mfma_f32_4x4x4f16).mfma_m, 4);
  EXPECT_EQ(op_info(op::v_mfma_f32_16x16x128_f8f6f4).src_type, DataType::f8f6f4);
  EXPECT_EQ(op_info(op::v_mfma_f32_16x16x32_bf8_fp8).src_type, DataType::bf8);
  EXPECT_EQ(op_info(op::v_mfma_f32_16x16x32_bf8_fp8).src2_type, DataType::fp8);
  EXPECT_EQ(op_info(op::v_mfma_f64_16x16x4_f64).type, DataType::f64);
  EXPECT_EQ(op_info(op::v_mfma_ld_scale_b32).family, Family::v_alu);

  EXPECT_EQ(family_of(op::v_fma_mix_f32), Family::v_mix);
  EXPECT_EQ(family_of(op::v_fma_mixlo_f16), Family::v_mix);
  EXPECT_EQ(family_of(op::ds_swizzle_b32), Family::ds_lane);
  EXPECT_EQ(family_of(op::ds_bpermute_b32), Family::ds_lane);
  EXPECT_EQ(family_of(op::buffer_wbinvl1_vol), Family::buffer_cache);
  EXPECT_EQ(family_of(op::buffer_inv), Family::buffer_cache);
  EXPECT_EQ(family_of(op::s_dcache_wb), Family::s_dcache);
  EXPECT_EQ(family_of(op::s_movreld_b64), Family::s_movrel);
  EXPECT_EQ(family_of(op::s_set_gpr_idx_on), Family::s_gpr_idx);
  EXPECT_EQ(family_of(op::s_cmovk_i32), Family::s_cmov);
  EXPECT_EQ(family_of(op::s_cbranch_execz), Family::s_cbranch);
  EXPECT_EQ(family_of(op::s_cbranch_i_fork), Family::s_cbranch_fork);
  EXPECT_EQ(family_of(op::s_sendmsghalt), Family::s_sendmsg);
  EXPECT_EQ(family_of(op::s_nop), Family::s_ctrl);
  EXPECT_EQ(family_of(op::v_readfirstlane_b32), Family::v_cross_lane);
  EXPECT_EQ(family_of(op::v_accvgpr_write_b32), Family::v_accvgpr);
  EXPECT_EQ(op_info(op::s_load_dword).unit, OpUnit::s);
  EXPECT_TRUE(op_info(op::v_add_co_u32).has(opflag::co));
  EXPECT_EQ(op_info(op::v_add_co_u32).base, op_info(op::v_add_u32).base);
  EXPECT_TRUE(op_info(op::v_fmac_f32).has(opflag::accum));
  EXPECT_TRUE(op_info(op::v_dot2c_f32_f16).has(opflag::accum));
  EXPECT_FALSE(op_info(op::v_dot2_f32_f16).has(opflag::accum));
  EXPECT_TRUE(op_info(op::v_smfmac_f32_16x16x32_f16).has(opflag::accum));
  EXPECT_FALSE(op_info(op::v_mfma_f32_16x16x16_f16).has(opflag::accum));
  EXPECT_TRUE(op_info(op::v_pk_add_f16).has(opflag::packed));
  EXPECT_TRUE(op_info(op::ds_add_rtn_u32).has(opflag::rtn));
}

TEST(Opcode, NamesOfAttributes) {
  EXPECT_EQ(to_string(Family::v_cmpx), "v_cmpx");
  EXPECT_EQ(to_string(BaseOp::global_load), "global_load");
  EXPECT_EQ(to_string(CmpCond::class_), "class");
  EXPECT_EQ(to_string(DataType::bf16), "bf16");
  EXPECT_EQ(to_string(OpUnit::scratch), "scratch");
  EXPECT_EQ(bits(DataType::b128), 128u);
}

}  // namespace
