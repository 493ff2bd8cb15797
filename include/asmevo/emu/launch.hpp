// Launching a kernel of a recovered code object on the emulator as the HSA runtime would: kernarg segment,
// dispatch packet, initial SGPRs/VGPRs from the kernel descriptor, LDS per workgroup, and the run itself.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "asmevo/codeobject/elf.hpp"
#include "asmevo/codeobject/metadata.hpp"
#include "asmevo/codeobject/module.hpp"
#include "asmevo/emu/decode.hpp"
#include "asmevo/emu/detail/mem_private.hpp"
#include "asmevo/emu/hazards.hpp"
#include "asmevo/emu/trace.hpp"
#include "asmevo/emu/watch.hpp"
#include "asmevo/launch/buffer_init.hpp"
#include "asmevo/launch/kernargs.hpp"
#include "asmevo/launch/spec_types.hpp"
#include "asmevo/support/diag.hpp"
#include "asmevo/support/linkage.hpp"

namespace asmevo::emu {

/// Extra private memory per lane for a kernel with a dynamic stack (see emulate()).
inline constexpr std::uint64_t dynamic_stack_bytes = 16 * 1024;

/// How to run a launch.
struct EmulateOptions {
  RunOptions run;
  std::uint32_t trial = 0;     ///< input draw: random inits use seed + trial
  /// Start where firmware that preloads kernel arguments starts (entry + 256, with the preload SGPRs filled);
  /// false runs the kernel's compatibility prologue instead, as older firmware does (AMDGPUUsage "Preloaded
  /// Kernel Arguments").
  bool kernarg_preload = true;
  /// Record the executed instruction stream of every wave of one CU's share of the workgroups (trace.hpp), for
  /// the cost model (verify/timed_emulation.hpp emulate_timed); EmulateResult::trace holds it. Null: the step hook stays
  /// null and costs nothing.
  const TraceConfig* trace = nullptr;
  /// Check the wait-state rules (analysis/hazard_rules.hpp) as instructions run: an instruction issued closer to its
  /// producer than a rule allows stops the run with a hazard violation naming both. Off: no before hook.
  bool hazards = true;
  /// Start what the ISA leaves undefined as seeded garbage of the trial (the default; see emulate): the registers
  /// the initial state does not set (VGPRs, AGPRs, SGPRs, VCC, M0, SCC, FLAT_SCRATCH where the launch does not set
  /// it, XNACK_MASK, the trap temporaries), LDS at the start of every workgroup, and the kernarg bytes past the
  /// segment the metadata declares. False: zeros (what a test of pure semantics may want).
  bool garbage_undefined = true;
  /// Record the registers these instructions find when a wave issues them (watch.hpp); EmulateResult::watched
  /// holds what was recorded. Null: nothing is recorded.
  const Watch* watch = nullptr;
};

/// One argument's buffer after the run.
struct BufferResult {
  std::size_t arg = 0;             ///< explicit argument index
  std::uint64_t address = 0;       ///< device address it had
  std::vector<std::byte> bytes;    ///< contents after the run
};

/// What a launch did.
struct EmulateResult {
  Stop stop;                       ///< kind none when every wave ended cleanly
  std::vector<BufferResult> buffers;
  std::vector<std::byte> kernarg;  ///< the kernarg segment the launch ran with (explicit and hidden arguments)
  std::uint64_t wave_instructions = 0;
  /// One past the highest LDS byte any access touched in any workgroup (0: no LDS access), up to the stop.
  std::uint64_t lds_extent = 0;
  /// The instructions some wave issued with an effect (ids, in address order), up to the stop: a vector
  /// instruction counts only when some lane was enabled (EXEC != 0, no VSKIP).
  std::vector<InstId> executed;
  /// The branches (isa::prop::branch) some wave took, and the conditional ones some wave did not take.
  std::vector<InstId> taken, fell_through;
  std::uint64_t workgroups = 0;
  std::uint64_t waves = 0;
  double seconds = 0;              ///< host time spent running waves (not setup)
  std::string kernel;
  std::optional<LaunchTrace> trace;    ///< with EmulateOptions::trace, for a run that ended cleanly
  std::optional<WatchLog> watched;     ///< with EmulateOptions::watch, up to the stop
  /// With RunOptions::schedule == Schedule::hold_one_wave: the holds of workgroup (0,0,0), in order (machine.hpp
  /// run_workgroup); every workgroup draws its own from its seed.
  std::vector<Hold> holds;
  /// With RunOptions::log_compares: the wave-uniform operand values the VALU compares met (Machine::compared).
  std::vector<std::uint32_t> compared;
  [[nodiscard]] bool ok() const noexcept { return stop.kind == Stop::Kind::none; }
};

namespace detail {

/// Descriptor facts the launch needs (AMDGPUUsage "Kernel Descriptor" and "Initial Kernel Execution State").
struct LaunchLayout {
  std::uint32_t user_sgpr_count = 0;
  bool private_segment_buffer = false, dispatch_ptr = false, queue_ptr = false, kernarg_ptr = false,
       dispatch_id = false, flat_scratch_init = false, private_segment_size = false;
  bool wg_id[3] = {false, false, false};
  bool wg_info = false, private_segment = false;
  unsigned workitem_id_dims = 0;   ///< enable_vgpr_workitem_id: 0 = x, 1 = x,y, 2 = x,y,z
  std::uint32_t preload_length = 0, preload_offset = 0;  ///< dwords
  std::uint32_t vgprs = 0, agprs = 0, sgprs = 0;
  std::uint32_t mode = 0;
};

[[nodiscard]] inline LaunchLayout layout_of(const codeobject::KernelDescriptor& kd, Target t) {
  using namespace codeobject;
  LaunchLayout l;
  l.user_sgpr_count = static_cast<std::uint32_t>(kd.get(field::user_sgpr_count));
  l.private_segment_buffer = kd.get(field::private_segment_buffer);
  l.dispatch_ptr = kd.get(field::dispatch_ptr);
  l.queue_ptr = kd.get(field::queue_ptr);
  l.kernarg_ptr = kd.get(field::kernarg_segment_ptr);
  l.dispatch_id = kd.get(field::dispatch_id);
  l.flat_scratch_init = !has_architected_flat_scratch(t) && kd.get(field::flat_scratch_init);
  l.private_segment_size = kd.get(field::private_segment_size);
  l.wg_id[0] = kd.get(field::workgroup_id_x);
  l.wg_id[1] = kd.get(field::workgroup_id_y);
  l.wg_id[2] = kd.get(field::workgroup_id_z);
  l.wg_info = kd.get(field::workgroup_info);
  l.private_segment = kd.get(field::enable_private_segment);
  l.workitem_id_dims = static_cast<unsigned>(kd.get(field::vgpr_workitem_id));
  l.preload_length = static_cast<std::uint32_t>(kd.get(field::preload_length));
  l.preload_offset = static_cast<std::uint32_t>(kd.get(field::preload_offset));
  // gfx90a+: VGPR blocks count the unified VGPR+AGPR allocation in granules of 8; accum_offset (in units of 4,
  // minus one) splits it (AMDGPUUsage compute_pgm_rsrc1 / compute_pgm_rsrc3 for GFX90A, GFX942).
  const std::uint32_t total = static_cast<std::uint32_t>((kd.get(field::vgpr_blocks) + 1) * vgpr_encoding_granule);
  const std::uint32_t accum = static_cast<std::uint32_t>((kd.get(field::accum_offset) + 1) * 4);
  l.vgprs = std::min(accum, total);
  l.agprs = total > accum ? total - accum : 0;
  l.sgprs = static_cast<std::uint32_t>((kd.get(field::sgpr_blocks) + 1) * sgpr_encoding_granule);
  // MODE from compute_pgm_rsrc1: FLOAT_ROUND_MODE_32 bits 13:12, _16_64 15:14, FLOAT_DENORM_MODE_32 17:16,
  // _16_64 19:18, ENABLE_DX10_CLAMP bit 21, ENABLE_IEEE_MODE bit 23 (AMDGPUUsage compute_pgm_rsrc1), placed as
  // the MODE register holds them: FP_ROUND 3:0, FP_DENORM 7:4, DX10_CLAMP 8, IEEE 9 (MI300 ISA §3.3).
  const std::uint32_t r1 = kd.compute_pgm_rsrc1();
  l.mode = ((r1 >> 12) & 0xff) | ((r1 >> 21) & 1) << 8 | ((r1 >> 23) & 1) << 9;
  return l;
}

inline void put(std::vector<std::byte>& b, std::size_t off, std::uint64_t v, unsigned n) {
  for (unsigned i = 0; i < n && off + i < b.size(); ++i) b[off + i] = static_cast<std::byte>(v >> (8 * i));
}

/// Stops any instruction that names a register beyond the kernel's allocation (hardware would read or clobber
/// another wave's registers): replaced by a handler that reports it when — and only if — it runs.
inline void guard_register_limits(Code& code, const LaunchLayout& l) {
  static constexpr auto beyond = +[](Wave& w, const Op& op) {
    w.stop_with(Stop::Kind::illegal, op,
                std::string(op.mnemonic()) + " names a register beyond the kernel's allocation (" +
                    std::to_string(w.vgpr_limit) + " VGPRs, " + std::to_string(w.agpr_limit) + " AGPRs, " +
                    std::to_string(w.sgpr_limit) + " SGPRs)");
  };
  for (Op& op : code.ops) {
    if (!op.info) continue;
    for (unsigned k = 0; k < op.nslots; ++k) {
      const Slot& s = op.slots[k];
      bool bad = false;
      if (s.kind == Slot::Kind::vgpr) {
        const std::uint32_t last = s.index + s.dwords - 1;
        bad = s.index < agpr_row0 ? last >= l.vgprs : last - agpr_row0 >= l.agprs;
      } else if (s.kind == Slot::Kind::scalar && s.index <= 101) {
        bad = s.index + s.dwords - 1 >= std::max<std::uint32_t>(l.sgprs, 102) ;
      }
      if (bad) { op.fn = beyond; break; }
    }
  }
}

}  // namespace detail

/// Runs `spec` on `module` (recovered from `elf`). Bad input (unknown kernel, argument mismatch, a file that
/// cannot be read) is an error; a kernel that faults or violates waitcnt rules is a result with `stop` set.
[[nodiscard]] ASMEVO_OUTLINE Expected<EmulateResult> emulate(const codeobject::Module& module, const codeobject::ElfFile& elf,
                                                     const verify::LaunchSpec& spec, const EmulateOptions& opt = {})
#if ASMEVO_BODY_EMU
{
  using namespace codeobject;
  // The kernel.
  const KernelInfo* ki = nullptr;
  if (spec.kernel.empty()) {
    if (module.kernels.size() != 1)
      return fail(DiagCode::usage, "the code object holds " + std::to_string(module.kernels.size()) +
                                       " kernels; name one with \"kernel\" in the launch spec");
    ki = &module.kernels[0];
  } else {
    for (const auto& k : module.kernels)
      if (k.name == spec.kernel) ki = &k;
    if (!ki) {
      std::string names;
      for (const auto& k : module.kernels) names += (names.empty() ? "" : ", ") + k.name;
      return fail(DiagCode::usage, "no kernel '" + spec.kernel + "' in " + module.file + " (it has: " + names + ")");
    }
  }
  auto metas = kernels(module.metadata);
  if (!metas) return unexpected(metas.error());
  const KernelMeta* meta = nullptr;
  for (const auto& m : *metas)
    if (m.symbol == ki->name + ".kd" || m.name == ki->name) meta = &m;
  if (!meta) return fail(DiagCode::object_error, "the metadata has no entry for kernel '" + ki->name + "'");
  const detail::LaunchLayout lay = detail::layout_of(ki->descriptor, module.target);

  // Code.
  const Section* text = elf.find_section(".text");
  if (!text) return fail(DiagCode::object_error, module.file + " has no .text section");
  DecodeInput din;
  din.program = &module.program;
  din.inst_addr = module.inst_addr;
  din.text = elf.data(*text);
  din.text_addr = text->addr;
  auto code = decode_program(din);
  if (!code) return unexpected(code.error());
  detail::guard_register_limits(*code, lay);
  const std::uint64_t entry_addr = ki->code_addr + ((opt.kernarg_preload && lay.preload_length) ? 256 : 0);
  std::uint32_t entry = ~0u;
  for (const auto& [a, i] : code->by_addr)
    if (a == entry_addr) entry = i;
  if (entry == ~0u)
    return fail(DiagCode::object_error, "no instruction starts at kernel '" + ki->name + "' entry " + std::to_string(entry_addr));

  // Geometry.
  auto block = verify::resolve_block(spec, *meta);
  if (!block) return unexpected(block.error());
  const auto grid = spec.grid;
  const std::uint64_t items = std::uint64_t{(*block)[0]} * (*block)[1] * (*block)[2];
  const std::uint32_t waves_per_group = static_cast<std::uint32_t>((items + wave_lanes - 1) / wave_lanes);
  if (waves_per_group == 0 || waves_per_group > 16)
    return fail(DiagCode::usage, "a workgroup of " + std::to_string(items) + " work-items is not 1..1024");

  Machine m;
  m.target = module.target;
  m.options = opt.run;
  m.code = &*code;

  // Buffers, in argument order, each across a 4 GiB boundary in windows of its own (Memory::map_straddling), so
  // that an edit that gets the high half of a 64-bit address wrong faults; from trial 1 on only 16-byte aligned
  // (verify::buffer_phase), so that the boundary also falls inside rows that start 256-byte aligned, and at another
  // point of the buffer (verify::buffer_split). Mapped first, and the kernarg segment right after them: neither
  // depends on the code's size.
  std::vector<std::uint64_t> arg_addr(spec.args.size(), 0);
  std::vector<std::pair<std::size_t, std::size_t>> buffer_regions;  // (arg, region)
  for (std::size_t i = 0; i < spec.args.size(); ++i) {
    if (spec.args[i].kind != verify::ArgSpec::Kind::buffer) continue;
    auto bytes = verify::materialize(spec.args[i].buffer, opt.trial);
    if (!bytes) return unexpected(bytes.error());
    const std::size_t r = m.memory.map_straddling("arg" + std::to_string(i), bytes->size(), true, Memory::default_guard,
                                                  verify::buffer_phase(opt.trial, i), verify::buffer_split(opt.trial, i));
    std::memcpy(m.memory.region(r).bytes.data(), bytes->data(), bytes->size());
    arg_addr[i] = m.memory.region(r).base;
    // verify::launch_facts states bits 47..63 of every buffer address are zero, as in a user address space.
    if (arg_addr[i] + bytes->size() > (std::uint64_t{1} << 47))
      return fail(DiagCode::usage, "buffer argument " + std::to_string(i) + " (" + std::to_string(bytes->size()) +
                                       " bytes) does not fit below 2^47 beside the others");
    buffer_regions.emplace_back(i, r);
  }
  verify::LaunchGeometry geo{grid, *block};
  verify::HiddenValues hv;
  // LDS per workgroup: the fixed group segment plus the dynamic part, by the rule the HIP executor's launches use
  // too (launch/kernargs.hpp lds_allocation).
  const verify::LdsAllocation lds = verify::lds_allocation(*meta, spec);
  const std::uint32_t fixed_lds = lds.fixed, lds_bytes = lds.total();
  hv.dynamic_lds_size = lds.dynamic;
  // What LDS_ALLOC reports (Machine::lds_alloc_reported): exact when the launch fixes the allocation (a declared
  // "dynamic_lds", or a kernel that cannot use dynamic LDS), else a seeded size in 512-byte granules (the gfx9
  // LDS_SIZE granule) from the fixed segment up to the whole allocation the emulator gives.
  if (spec.dynamic_lds || lds.dynamic == 0) {
    m.lds_alloc_reported = lds_bytes;
  } else {
    Rng pick(opt.run.seed * 0x94d049bb133111ebull ^ (opt.trial + 1ull) * 0x9e3779b97f4a7c15ull);
    const std::uint32_t lo = std::max(1u, (fixed_lds + 511) / 512), hi = std::max(lo, (lds_bytes + 511) / 512);
    m.lds_alloc_reported = 512 * (lo + pick.below(hi - lo + 1));
  }
  auto karg = verify::layout_kernargs(*meta, spec, arg_addr, geo, hv);
  if (!karg) return unexpected(karg.error());
  // The segment is mapped a little larger than the metadata says: a gfx942 kernarg-preload prologue loads whole
  // dwordx8 groups that may run past .kernarg_segment_size, which the runtime's kernarg pool makes harmless.
  std::size_t kbytes = (karg->size() + 63) & ~std::size_t{63};
  kbytes = std::max<std::size_t>(kbytes, (std::size_t{lay.preload_offset} + lay.preload_length) * 4 + 32);
  m.memory.skip_to_next_window();
  const std::size_t kr = m.memory.map("the kernarg segment", kbytes, false);
  std::memcpy(m.memory.region(kr).bytes.data(), karg->data(), karg->size());
  // The bytes past the declared segment are whatever the runtime's kernarg pool held (an earlier dispatch's
  // arguments): seeded garbage of the trial, the same for K0 and K1, so a K1 that reads past the segment computes
  // with it. Hidden arguments are part of the segment (layout_kernargs sizes it from the metadata), so only bytes
  // that no argument of the metadata describes are garbage: the tail, and the padding between arguments (an i32
  // followed by a pointer leaves 4 bytes the launcher never writes; HIP copies each argument to its offset in a
  // buffer from the kernarg pool, and what the padding holds is what the pool held).
  if (opt.garbage_undefined) {
    Rng g(0x2545f4914f6cdd1dull * (opt.trial + 1) ^ 0x6a09e667f3bcc909ull);
    auto& kb = m.memory.region(kr).bytes;
    std::vector<bool> described(karg->size(), false);
    for (const auto& a : meta->args)
      for (std::uint64_t b = a.offset; b < a.offset + a.size && b < described.size(); ++b) described[b] = true;
    for (std::size_t off = 0; off < kb.size(); ++off) {
      const auto byte = static_cast<std::byte>(g.next());
      if (off >= described.size() || !described[off]) kb[off] = byte;
    }
  }
  const std::uint64_t kernarg_addr = m.memory.region(kr).base;

  // The code object image: every allocated section at its address (ELF vaddr 0 = load base). Mapped after the
  // buffers and the kernarg segment, so that their addresses — and so the kernarg bytes — do not depend on the
  // code's size: an edited kernel (K1) runs with the same kernarg bytes as K0 (DESIGN.md "Verification policy").
  std::uint64_t image_end = 0;
  for (const auto& s : elf.sections())
    if ((s.flags & 2) && s.size) image_end = std::max(image_end, s.addr + s.size);  // SHF_ALLOC
  const std::size_t img = m.memory.map("the code object image", image_end, true);
  {
    // Code and read-only data (every allocated section below the first writable one) may not be written: the
    // emulator runs predecoded instructions, so a store into .text would otherwise change nothing it could see.
    std::uint64_t first_writable = image_end, ro_end = 0;
    for (const auto& s : elf.sections())
      if ((s.flags & 2) && (s.flags & 1) && s.size) first_writable = std::min(first_writable, s.addr);  // SHF_WRITE
    for (const auto& s : elf.sections())
      if ((s.flags & 2) && !(s.flags & 1) && s.size && s.addr + s.size <= first_writable) ro_end = std::max(ro_end, s.addr + s.size);
    m.memory.region(img).read_only_end = ro_end;
  }
  for (const auto& s : elf.sections()) {
    if (!(s.flags & 2) || s.type == 8 /* SHT_NOBITS */ || !s.size) continue;
    const auto d = elf.data(s);
    std::memcpy(m.memory.region(img).bytes.data() + s.addr, d.data(), std::min<std::size_t>(d.size(), s.size));
  }
  code->load_base = m.memory.region(img).base;

  // The AQL dispatch packet (HSA Platform System Architecture spec, hsa_kernel_dispatch_packet_t).
  const std::size_t pr = m.memory.map("the dispatch packet", 64, false);
  {
    auto& b = m.memory.region(pr).bytes;
    const unsigned dims = grid[2] * (*block)[2] > 1 ? 3 : grid[1] * (*block)[1] > 1 ? 2 : 1;
    detail::put(b, 0, 2 /* HSA_PACKET_TYPE_KERNEL_DISPATCH */, 2);
    detail::put(b, 2, dims, 2);
    for (int d = 0; d < 3; ++d) {
      detail::put(b, 4 + 2 * d, (*block)[d], 2);
      detail::put(b, 12 + 4 * d, std::uint64_t{grid[d]} * (*block)[d], 4);
    }
    detail::put(b, 24, meta->private_segment_fixed_size, 4);
    detail::put(b, 28, meta->group_segment_fixed_size, 4);
    detail::put(b, 32, code->load_base + ki->descriptor_addr, 8);
    detail::put(b, 40, kernarg_addr, 8);
  }
  const std::uint64_t packet_addr = m.memory.region(pr).base;
  const std::size_t qr = m.memory.map("the queue descriptor", 256, false);
  const std::uint64_t queue_addr = m.memory.region(qr).base;
  // Private memory: one slot per wave that can be resident at once (threads x waves of a workgroup), mapped now
  // because Memory::map is not thread-safe; each slot holds private_size bytes per lane in the swizzled layout
  // (detail/mem_private.hpp). A kernel with a dynamic stack (.amdhsa_uses_dynamic_stack) gets a fixed extra
  // dynamic_stack_bytes per lane on top of its fixed size: an emulator choice, not what a runtime does (HIP sizes
  // it from the stack-size limit); a kernel that needs more stops with a private overrun fault.
  {
    std::uint64_t per_lane = std::max<std::uint64_t>(meta->private_segment_fixed_size, ki->descriptor.private_segment_fixed_size());
    if (ki->descriptor.get(field::uses_dynamic_stack)) per_lane += dynamic_stack_bytes;
    const std::uint32_t slots = std::max(1u, opt.run.threads) * waves_per_group;
    map_private_slots(m, per_lane, slots);
    // The Scratch Wavefront Offset SGPR is 32 bits (AMDGPUUsage "Initial Kernel Execution State").
    if (private_span(m) > 0xffffffffull)
      return fail(DiagCode::usage, "kernel '" + ki->name + "' needs " + std::to_string(m.private_size) +
                                       " bytes of private memory per lane; " + std::to_string(slots) +
                                       " resident waves do not fit the 32-bit scratch wave offset (use fewer --threads)");
  }
  const std::array<std::uint32_t, 4> private_vsharp = private_segment_vsharp(m);
  const bool arch_flat_scratch = has_architected_flat_scratch(module.target);

  // The registers the initial state leaves undefined (AMDGPUUsage "Initial Kernel Execution State" sets only the
  // enabled user and system SGPRs, EXEC, MODE, the work-item-id VGPRs and, with architected flat scratch and a
  // private segment, FLAT_SCRATCH) start as garbage, as on hardware, where they hold whatever an earlier wave left:
  // a kernel that reads one before writing it (a dropped `v_mov_b32 v76, 0` before an accumulation, an AGPR never
  // zeroed, a carry-in VCC or an SCC nothing set, a trap temporary) computes with garbage here too instead of a
  // convenient zero. The garbage is a splitmix64 stream of the trial laid out for the whole file (256 VGPR rows,
  // 256 AGPR rows, then SGPRs s0..s101, VCC and M0, then FLAT_SCRATCH, XNACK_MASK, ttmp0..15 and SCC), whatever the
  // kernel allocates, so K0 and K1, and K1's schedules, start from the same bits in the same register even when K1
  // allocates another count. static_checks.hpp reports K0's own reads of them (undef:read).
  std::vector<std::uint32_t> garbage_v, garbage_s;
  if (opt.garbage_undefined) {
    Rng g(0x9e3779b97f4a7c15ull * (opt.trial + 1) ^ 0x7f4a7c159e3779b9ull);
    garbage_v.resize(std::size_t{wave_lanes} * 512);
    for (auto& v : garbage_v) v = static_cast<std::uint32_t>(g.next());
    garbage_s.resize(126);  // s0..s101, vcc_lo, vcc_hi, m0, flat_scratch lo/hi, xnack_mask lo/hi, ttmp0..15, scc
    for (auto& v : garbage_s) v = static_cast<std::uint32_t>(g.next());
  }

  // Initial state of one wave (AMDGPUUsage "Initial Kernel Execution State": user SGPRs in the order of the
  // descriptor's enable bits, then kernarg preload SGPRs, then from USER_SGPR_COUNT the system SGPRs).
  // At most 2^32 workgroups (each dimension is already < 2^32; the product could overflow 64 bits).
  const std::uint64_t groups_xy = std::uint64_t{grid[0]} * grid[1];  // < 2^64: each factor is < 2^32
  if (grid[2] != 0 && groups_xy > (1ull << 32) / grid[2])
    return fail(DiagCode::usage, "the grid has more than 2^32 workgroups; the emulator runs at most 2^32 in one launch");
  const std::uint64_t group_count = groups_xy * grid[2];
  auto setup_wave = [&](Wave& w, Workgroup& g, std::uint32_t wid, const std::array<std::uint32_t, 3>& gid) {
    init_wave(w, m, g, entry, wid, lay.vgprs, lay.agprs);
    if (!garbage_v.empty()) {
      const std::size_t nv = std::min<std::uint32_t>(lay.vgprs, 256), na = std::min<std::uint32_t>(lay.agprs, 256);
      for (std::size_t r = 0; r < nv; ++r)
        std::memcpy(w.row(static_cast<unsigned>(r)), garbage_v.data() + r * wave_lanes, sizeof(std::uint32_t) * wave_lanes);
      for (std::size_t r = 0; r < na; ++r)
        std::memcpy(w.row(static_cast<unsigned>(agpr_row0 + r)), garbage_v.data() + (256 + r) * wave_lanes,
                    sizeof(std::uint32_t) * wave_lanes);
      std::memcpy(w.s.data(), garbage_s.data(), sizeof(std::uint32_t) * 102);
      w.s[sc::vcc] = garbage_s[102];
      w.s[sc::vcc + 1] = garbage_s[103];
      w.s[sc::m0] = garbage_s[104];
      w.s[sc::flat_scratch] = garbage_s[105];
      w.s[sc::flat_scratch + 1] = garbage_s[106];
      w.s[sc::xnack_mask] = garbage_s[107];
      w.s[sc::xnack_mask + 1] = garbage_s[108];
      for (unsigned k = 0; k < 16; ++k) w.s[sc::ttmp0 + k] = garbage_s[109 + k];
      w.scc = garbage_s[125] & 1u;
    }
    // What only hardware knows (sem_salu.hpp read_hwreg, sem_mem.hpp s_memtime): where the workgroup and the wave
    // were placed and what the clocks read, seeded from the schedule seed, the trial and the workgroup, so that
    // they differ between all of them, within the ranges a device has. HW_ID fields (ROCm-Device-Libs
    // hip/src/smid.cl, "HW_ID Register bit structure"): WAVE_ID[3:0] (slot 0..9), SIMD_ID[5:4], PIPE_ID[7:6],
    // CU_ID[11:8], SH_ID[12], SE_ID[14:13], TG_ID[19:16], VM_ID[23:20], QUEUE_ID[26:24], STATE_ID[29:27]
    // (graphics only: 0), ME_ID[31:30] (compute micro-engines 1 and 2). XCC_ID[3:0]: one of the 8 XCDs of an
    // MI300X or MI355X (AMD CDNA 3 white paper, "8 XCDs").
    {
      const std::uint64_t flat = gid[0] + std::uint64_t{grid[0]} * (gid[1] + std::uint64_t{grid[1]} * gid[2]);
      Rng hw((opt.run.seed * 0x9e3779b97f4a7c15ull ^ (opt.trial + 1ull) * 0xbf58476d1ce4e5b9ull) + flat);
      w.group_seed = hw.next();
      const std::uint32_t simd0 = hw.below(4), slot0 = hw.below(8), pipe = hw.below(4), cu = hw.below(16),
                          sh = hw.below(2), se = hw.below(4), tg = hw.below(16), vm = hw.below(16),
                          queue = hw.below(8), me = 1 + hw.below(2);
      const std::uint32_t simd = (simd0 + wid) & 3u, slot = (slot0 + wid / 4) % 10u;
      w.hw_id = slot | simd << 4 | pipe << 6 | cu << 8 | sh << 12 | se << 13 | tg << 16 | vm << 20 | queue << 24 |
                me << 30;
      w.xcc_id = hw.below(8);
      const std::uint64_t clock0 = hw.next() & ((1ull << 46) - 1);  // about nine hours at 2.1 GHz
      w.clock = clock0 + std::uint64_t{wid} * hw.below(256);
      w.realtime = clock0 / 21 + hw.below(16);  // 100 MHz beside a ~2.1 GHz shader clock
    }
    w.vgpr_limit = lay.vgprs;
    w.agpr_limit = lay.agprs;
    w.sgpr_limit = lay.sgprs;
    w.mode = lay.mode;
    unsigned s = 0;
    auto put64 = [&](std::uint64_t v) { w.s[s] = static_cast<std::uint32_t>(v); w.s[s + 1] = static_cast<std::uint32_t>(v >> 32); s += 2; };
    // The wave's private slot: the Private Segment Buffer V# (gfx90a: the scratch V# of ROCR-Runtime
    // InitScratchSRD, with the queue's scratch base, to which the kernel adds its Scratch Wavefront Offset), Flat
    // Scratch Init (gfx90a, Absolute flat scratch: the 64-bit scratch base), the Scratch Wavefront Offset system
    // SGPR (not on Architected flat scratch targets), and on gfx942/gfx950 FLAT_SCRATCH = the wave's private base
    // when ENABLE_PRIVATE_SEGMENT is set (AMDGPUUsage "Initial Kernel Execution State", "Flat Scratch", "Private
    // Segment Buffer").
    const std::uint64_t private_base = wid < g.private_base.size() ? g.private_base[wid] : 0;
    const std::uint32_t wave_offset = static_cast<std::uint32_t>(private_base ? private_base - m.private_scratch_base : 0);
    if (lay.private_segment_buffer) {
      for (unsigned k = 0; k < 4; ++k) w.s[s + k] = private_vsharp[k];
      s += 4;
    }
    if (arch_flat_scratch && lay.private_segment) w.set_s64(sc::flat_scratch, private_base);
    if (lay.dispatch_ptr) put64(packet_addr);
    if (lay.queue_ptr) put64(queue_addr);
    if (lay.kernarg_ptr) put64(kernarg_addr);
    if (lay.dispatch_id) put64(0);
    if (lay.flat_scratch_init) put64(m.private_scratch_base);
    if (lay.private_segment_size) w.s[s++] = static_cast<std::uint32_t>(m.private_size);
    if (opt.kernarg_preload)
      for (std::uint32_t k = 0; k < lay.preload_length && s < 102; ++k) {
        const std::size_t off = (lay.preload_offset + k) * 4u;
        // Past the segment the firmware copies what the kernarg pool holds there: the mapped tail (garbage).
        std::uint32_t v = 0;
        if (off + 4 <= kbytes) std::memcpy(&v, m.memory.region(kr).bytes.data() + off, 4);
        w.s[s++] = v;
      }
    s = lay.user_sgpr_count;
    for (int d = 0; d < 3; ++d)
      if (lay.wg_id[d]) w.s[s++] = gid[d];
    if (lay.wg_info) w.s[s++] = wid;  // not used by compute kernels; a stable value
    if (lay.private_segment && !arch_flat_scratch) w.s[s++] = wave_offset;  // Scratch Wavefront Offset
    // v0: work-item ids packed as x | y << 10 | z << 20 (gfx90a+: AMDGPUUsage "VGPR work-item ID" packed TID).
    std::uint32_t* v0 = w.row(0);
    LaneMask live = 0;
    for (unsigned l = 0; l < wave_lanes; ++l) {
      const std::uint64_t flat = std::uint64_t{wid} * wave_lanes + l;
      if (flat >= items) { v0[l] = 0; continue; }
      live |= 1ull << l;
      const std::uint32_t x = static_cast<std::uint32_t>(flat % (*block)[0]);
      const std::uint32_t y = static_cast<std::uint32_t>(flat / (*block)[0] % (*block)[1]);
      const std::uint32_t z = static_cast<std::uint32_t>(flat / (std::uint64_t{(*block)[0]} * (*block)[1]));
      v0[l] = x | (lay.workitem_id_dims >= 1 ? y << 10 : 0) | (lay.workitem_id_dims >= 2 ? z << 20 : 0);
    }
    w.set_exec(live);
  };

  // What LDS holds when a workgroup starts (see the worker below): the trial's garbage, or zeros.
  std::vector<std::byte> lds_initial(lds_bytes, std::byte{0});
  if (opt.garbage_undefined) {
    Rng g(0xd1b54a32d192ed03ull * (opt.trial + 1) ^ 0x3c6ef372fe94f82bull);
    for (std::size_t off = 0; off < lds_initial.size(); off += 8) {
      const std::uint64_t v = g.next();
      std::memcpy(lds_initial.data() + off, &v, std::min<std::size_t>(8, lds_initial.size() - off));
    }
  }

  // Workgroup order: a seeded permutation, so a different seed is a different legal dispatch order (a seeded
  // rotation when the grid is too large to shuffle in memory).
  constexpr std::uint64_t shuffle_limit = 1ull << 22;
  std::vector<std::uint64_t> order;
  Rng order_rng(opt.run.seed ^ 0x5eedull);
  const std::uint64_t rotation = group_count ? order_rng.next() % group_count : 0;
  if (group_count <= shuffle_limit) {
    order.resize(group_count);
    std::iota(order.begin(), order.end(), 0);
    for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[order_rng.below(static_cast<std::uint32_t>(i))]);
  }
  auto group_at = [&](std::uint64_t k) { return order.empty() ? (k + rotation) % group_count : order[k]; };


  // Traces for the cost model: one CU's share of the workgroups (flat ids 0, cus, 2*cus, ...), at most
  // TraceConfig::max_groups of them.
  const std::uint64_t tcus = opt.trace ? std::max(1u, opt.trace->cus) : 1;
  std::vector<std::vector<WaveTrace>> traces;
  if (opt.trace) {
    const std::uint64_t share = (group_count + tcus - 1) / tcus;
    WaveTrace empty;
    empty.config = opt.trace;
    traces.assign(std::min<std::uint64_t>(share, std::max(1u, opt.trace->max_groups)), std::vector<WaveTrace>(waves_per_group, empty));
    m.hooks.after = &trace_step;
  }

  // Wait-state rules: one table per launch, one HazardState per resident wave (reset at each wave start).
  HazardTable htable;
  if (opt.hazards) {
    htable = build_hazard_table(*code, module.target, analysis::xnack_enabled(module.target_id));
    m.hooks.before = &hazard_check;
  }
  detail::WatchRecorder watch_rec;
  if (opt.watch) detail::install_watch(watch_rec, *opt.watch, *code, m);

  EmulateResult res;
  res.kernel = ki->name;
  res.kernarg.assign(karg->begin(), karg->end());
  res.workgroups = group_count;
  res.waves = group_count * waves_per_group;
  std::atomic<std::uint64_t> next{0}, executed{0}, lds_extent{0};
  std::atomic<bool> stopped{false};
  std::vector<Stop> stops(std::max(1u, opt.run.threads));
  // Which instructions ran: one flag per Op and host thread, ORed after the threads join.
  std::vector<std::vector<std::uint8_t>> ran(std::max(1u, opt.run.threads), std::vector<std::uint8_t>(code->ops.size(), 0));
  auto worker = [&](unsigned t) {
    Workgroup g;
    for (std::uint32_t i = 0; i < waves_per_group; ++i) g.waves.push_back(std::make_unique<Wave>());
    std::vector<HazardState> hstates(opt.hazards ? waves_per_group : 0);
    std::uint64_t local = 0;
    while (!stopped.load(std::memory_order_relaxed)) {
      const std::uint64_t k = next.fetch_add(1);
      if (k >= group_count) break;
      const std::uint64_t flat = group_at(k);
      const std::array<std::uint32_t, 3> gid{static_cast<std::uint32_t>(flat % grid[0]),
                                              static_cast<std::uint32_t>(flat / grid[0] % grid[1]),
                                              static_cast<std::uint32_t>(flat / (std::uint64_t{grid[0]} * grid[1]))};
      g.id = gid;
      // LDS starts as the trial's garbage for every workgroup (hardware leaves what the previous workgroup on the CU
      // wrote; a kernel must not read LDS it has not written), the same bytes for K0 and K1 and whichever workgroup
      // ran before on this host thread: only the bytes that may have been written are restored.
      if (g.lds.size() != lds_bytes) g.lds.assign(lds_initial.begin(), lds_initial.end());
      else std::memcpy(g.lds.data(), lds_initial.data(), std::min<std::uint64_t>(g.lds_dirty, g.lds.size()));
      g.lds_dirty = 0;
      g.stop = Stop{};
      g.seq = 0;
      g.lds_writes = g.lds_reads = 0;  // a stopped workgroup's waves left their queues behind (init_wave recycles them)
      g.rng = Rng(opt.run.seed * 0x9e3779b97f4a7c15ull + flat);
      // This thread's private slots, zeroed for every workgroup so that a run never depends on which workgroup
      // used a slot before (hardware leaves stale data; reading private memory before writing it is a kernel bug).
      g.private_base.assign(m.private_slots.empty() ? 0 : waves_per_group, 0);
      for (std::uint32_t i = 0; i < g.private_base.size(); ++i) {
        g.private_base[i] = m.private_slots[std::size_t{t} * waves_per_group + i];
        std::size_t h = Memory::npos;
        if (std::byte* p = m.memory.translate(g.private_base[i], m.private_size * wave_lanes, true, h))
          std::memset(p, 0, m.private_size * wave_lanes);
      }
      for (std::uint32_t i = 0; i < waves_per_group; ++i) {
        setup_wave(*g.waves[i], g, i, gid);
        g.waves[i]->ran = ran[t].data();
      }
      for (std::uint32_t i = 0; i < hstates.size(); ++i) {
        hstates[i].reset(&htable);
        g.waves[i]->hazards = &hstates[i];
      }
      for (std::uint32_t i = 0; i < waves_per_group; ++i) {
        WaveTrace* tr = nullptr;
        if (!traces.empty() && flat % tcus == 0 && flat / tcus < traces.size()) (tr = &traces[flat / tcus][i])->clear();
        g.waves[i]->trace = tr;
      }
      run_workgroup(g, m);
      if (flat == 0) res.holds = g.holds;  // one thread runs workgroup 0; read after the threads join
      for (auto& w : g.waves) local += w->executed;
      if (g.stop.kind != Stop::Kind::none) {
        g.stop.message += " (workgroup " + std::to_string(gid[0]) + "," + std::to_string(gid[1]) + "," +
                          std::to_string(gid[2]) + ")";
        stops[t] = g.stop;
        stopped = true;
      }
    }
    executed += local;
    std::uint64_t seen = lds_extent.load();
    while (g.lds_extent > seen && !lds_extent.compare_exchange_weak(seen, g.lds_extent)) {
    }
  };
  const auto t0 = std::chrono::steady_clock::now();
  if (opt.run.threads <= 1) {
    worker(0);
  } else {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < opt.run.threads; ++t) pool.emplace_back(worker, t);
    for (auto& th : pool) th.join();
  }
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  res.wave_instructions = executed.load();
  res.lds_extent = lds_extent.load();
  res.compared = m.compared;
  for (std::size_t k = 0; k + 1 < code->ops.size(); ++k) {  // the last Op is the sentinel (decode.hpp)
    std::uint8_t bits = 0;
    for (const auto& r : ran) bits |= r[k];
    if (bits & ran_bit::effect) res.executed.push_back(code->ops[k].id);
    const isa::FormInfo* info = code->ops[k].info;
    if (info && info->has(isa::prop::branch)) {
      if (bits & ran_bit::jumped) res.taken.push_back(code->ops[k].id);
      if ((bits & ran_bit::fell) && info->has(isa::prop::cond_branch)) res.fell_through.push_back(code->ops[k].id);
    }
  }
  for (const auto& s : stops)
    if (s.kind != Stop::Kind::none) { res.stop = s; break; }
  if (opt.watch) res.watched = std::move(watch_rec.log);
  for (const auto& [arg, r] : buffer_regions)
    res.buffers.push_back({arg, m.memory.region(r).base, m.memory.region(r).bytes});
  if (opt.trace && res.ok()) {
    LaunchTrace ti;
    ti.target = module.target;
    ti.vgprs = lay.vgprs;
    ti.agprs = lay.agprs;
    ti.sgprs = lay.sgprs;
    // Occupancy counts the LDS the kernel asks for (fixed segment plus the launch's "dynamic_lds"), not the 64 KiB
    // the emulator gives a kernel that may use dynamic LDS.
    ti.lds_bytes = spec.dynamic_lds ? lds_bytes : fixed_lds;
    ti.waves_per_group = waves_per_group;
    ti.workgroups = group_count;
    ti.cus = static_cast<std::uint32_t>(tcus);
    ti.config = *opt.trace;
    // The traces outlive the caller's TraceConfig: they keep no pointer to it (LaunchTrace::config has a copy).
    for (auto& g : traces)
      for (WaveTrace& w : g) w.config = nullptr;
    ti.groups = std::move(traces);
    ti.code = std::move(*code);
    res.trace = std::move(ti);
  }
  return res;
}
#else
;
#endif

}  // namespace asmevo::emu
