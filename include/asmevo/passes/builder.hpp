// The typed builders' sink for editing an existing program: each instruction a builder builds is inserted through a
// Rewriter, so that it is an Edit in Rewriter::log(), undo() takes it out again, and the Rewriter's checks apply
// (well-formed for the target, no code where no path reaches, no new branch).
//
//   namespace isa = asmevo::gfx942;
//   passes::Rewriter r(program);
//   passes::RewriterSink at{r, passes::before(InstId{42}), "my-pass"};
//   isa::Builder b{at};
//   b.s_waitcnt(isa::vmcnt<0>);                         // Inst (.id: its new id); an insert_before edit of i42
//   b.v_add_f32(isa::v<0>, some_reg, 2);                // Expected<Inst>
//   r.undo(2);                                          // the program is as it was
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "asmevo/ir/builder.hpp"
#include "asmevo/passes/rewriter.hpp"

namespace asmevo::passes {

/// Where a RewriterSink inserts: before or after an instruction (by stable id). A sequence of builds stays in call
/// order: `before(i)` keeps inserting just before i, `after(i)` moves the anchor to each new instruction.
struct Where {
  enum class Kind : std::uint8_t { before, after };
  Kind kind = Kind::before;
  InstId anchor{};
};
[[nodiscard]] constexpr Where before(InstId id) noexcept { return Where{Where::Kind::before, id}; }
[[nodiscard]] constexpr Where after(InstId id) noexcept { return Where{Where::Kind::after, id}; }

/// Inserts each instruction through a Rewriter at a Where, one insert_before / insert_after edit per instruction,
/// with `why` as the edit's reason (a pass or rule name). A refused edit (the anchor is gone, the place is one no path
/// reaches, the instruction is a branch) puts the builder in its failed state with the Rewriter's Diag.
class RewriterSink final : public InstSink {
 public:
  RewriterSink(Rewriter& r, Where w, std::string why = "builder") : r_(&r), where_(w), why_(std::move(why)) {}

  /// Where the next instruction goes.
  [[nodiscard]] Where where() const noexcept { return where_; }

  [[nodiscard]] std::optional<Target> program_target() const override { return r_->program().target; }
  [[nodiscard]] Expected<InstId> take(Inst in) override {
    const bool follow = where_.kind == Where::Kind::after;
    auto e = follow ? r_->insert_after(where_.anchor, {std::move(in)}, why_)
                    : r_->insert_before(where_.anchor, {std::move(in)}, why_);
    if (!e) return unexpected(std::move(e).error());
    // The logged edit carries the id the Rewriter gave the instruction.
    const InstId id = r_->log().back().insts.front().id;
    if (follow) where_.anchor = id;
    return id;
  }

 private:
  Rewriter* r_;
  Where where_;
  std::string why_;
};

}  // namespace asmevo::passes
