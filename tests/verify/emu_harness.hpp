// Test harness: runs a snippet of assembly text on emulated waves of one workgroup, with registers and memory
// set up by the test.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>

#include "asmevo/emu/decode.hpp"
#include "asmevo/ir/parser.hpp"

namespace asmevo::emu::test {

/// Options for semantics tests: memory completes at issue.
[[nodiscard]] inline RunOptions eager() {
  RunOptions o;
  o.completion = Completion::eager;
  return o;
}

/// One workgroup of `waves` waves running a parsed snippet. Set registers (wave(i).row(r)[lane], wave(i).s[code],
/// set_exec) and memory (machine.memory.map + region bytes, group.lds) before `run()`.
struct Snippet {
  Program program;
  Code code;
  Machine machine;
  Workgroup group;

  [[nodiscard]] Wave& wave(std::size_t i = 0) { return *group.waves.at(i); }
  /// Runs every wave from the first instruction until all end (or one stops). Returns the stop (kind none if clean).
  const Stop& run() {
    run_workgroup(group, machine);
    return group.stop;
  }
};

/// Parses `text` for `t` (an `s_endpgm` is appended), decodes it and prepares `waves` waves with exec = all
/// lanes, all registers 0, and `lds_bytes` of LDS. Fails the calling test on a parse or decode error.
[[nodiscard]] inline std::unique_ptr<Snippet> make_snippet(std::string_view text, Target t = Target::gfx942,
                                                           unsigned waves = 1, std::size_t lds_bytes = 65536,
                                                           RunOptions options = eager()) {
  auto s = std::make_unique<Snippet>();
  std::string src(text);
  src += "\n\ts_endpgm\n";
  auto p = parse_program(src, t, "<snippet>");
  if (!p) {
    ADD_FAILURE() << "snippet does not parse: " << p.error().message << "\n" << src;
    return nullptr;
  }
  s->program = std::move(*p);
  DecodeInput in;
  in.program = &s->program;
  auto c = decode_program(in);
  if (!c) {
    ADD_FAILURE() << "snippet does not decode: " << c.error().message;
    return nullptr;
  }
  s->code = std::move(*c);
  s->machine.target = t;
  s->machine.code = &s->code;
  s->machine.options = options;
  s->group.lds.assign(lds_bytes, std::byte{0});
  s->group.rng = Rng(options.seed);
  for (unsigned i = 0; i < waves; ++i) {
    s->group.waves.push_back(std::make_unique<Wave>());
    init_wave(*s->group.waves.back(), s->machine, s->group, 0, i);
    s->group.waves.back()->set_exec(~0ull);
    // MODE as a HIP kernel starts: round to nearest even, f32 and f16/f64 denormals kept, DX10 clamp and IEEE
    // mode on (MI300 ISA §3.3 MODE register: FP_DENORM bits 7:4, DX10_CLAMP bit 8, IEEE bit 9).
    s->group.waves.back()->mode = 0x3f0;
    s->group.waves.back()->vgpr_limit = 256;
    s->group.waves.back()->agpr_limit = 256;
    s->group.waves.back()->sgpr_limit = 102;
  }
  return s;
}

/// A one-wave snippet for `t` with MODE `mode`, `init` applied to the wave before it runs to the end; a stop fails
/// the calling test. Returns the snippet (null after a parse or decode failure).
template <class Init>
[[nodiscard]] std::unique_ptr<Snippet> run_clean(std::string_view text, Init init, Target t = Target::gfx942,
                                                 std::uint32_t mode = 0x3f0) {
  auto s = make_snippet(text, t);
  if (!s) return s;
  s->wave().mode = mode;
  init(s->wave());
  const Stop& st = s->run();
  EXPECT_EQ(st.kind, Stop::Kind::none) << st.message << "\n" << text;
  return s;
}

/// Runs wave 0 through the snippet's own instructions (not the appended s_endpgm, whose semantics live elsewhere),
/// then completes whatever is outstanding. Returns the stop (kind none when clean).
inline const Stop& run_body(Snippet& s) {
  Wave& w = s.wave();
  const std::size_t n = s.code.ops.size() - 2;
  while (w.pc < n && s.group.stop.kind == Stop::Kind::none) step(w);
  if (s.group.stop.kind == Stop::Kind::none) drain(w);
  return s.group.stop;
}

}  // namespace asmevo::emu::test
