// Helpers the analysis tests share: parse a hand-written gfx942 program, and name a CFG block by its label.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "asmevo/analysis/cfg.hpp"
#include "asmevo/ir/parser.hpp"

namespace asmevo::test {

/// `text` parsed for gfx942 (fails the test, and returns an empty program, if it does not parse).
inline Program parse_gfx942(const std::string& text, const char* file) {
  auto p = parse_program(text, Target::gfx942, file);
  EXPECT_TRUE(p.has_value()) << (p ? std::string{} : p.error().message);
  return p ? std::move(*p) : Program{};
}

/// The block a label names (fails the test if none).
inline std::uint32_t block_of(const analysis::Cfg& g, const std::string& label) {
  const auto b = g.block_named(label);
  EXPECT_TRUE(b.has_value()) << "no block for " << label;
  return b.value_or(analysis::Cfg::none);
}

}  // namespace asmevo::test
