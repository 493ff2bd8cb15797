// A small CDCL SAT solver for the equivalence prover's bit-level queries (analysis/detail/term_sat.hpp): two
// watched literals, first-UIP clause learning, activity-ordered decisions with saved phases, geometric restarts and
// a conflict budget. It answers "unsat" only with a refutation behind it; out of budget it answers "unknown", which
// a caller treats like "sat" (nothing proven).
//
// The queries are miters of two circuits of a few thousand gates (two compares of one lane, two lane masks), so the
// solver keeps every learnt clause and is built fresh for each query.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace asmevo::analysis::detail {

class Sat {
 public:
  /// A literal: 2 * variable + 1 when negated.
  using Lit = std::uint32_t;
  enum class Result { sat, unsat, unknown };

  [[nodiscard]] static constexpr Lit pos(std::uint32_t v) noexcept { return 2 * v; }
  [[nodiscard]] static constexpr Lit neg(Lit l) noexcept { return l ^ 1u; }

  std::uint32_t new_var() {
    const auto v = static_cast<std::uint32_t>(assign_.size());
    assign_.push_back(-1);
    level_.push_back(0);
    reason_.push_back(-1);
    activity_.push_back(0.0);
    phase_.push_back(0);
    seen_.push_back(0);
    heap_pos_.push_back(-1);
    watches_.emplace_back();
    watches_.emplace_back();
    heap_insert(v);
    return v;
  }
  [[nodiscard]] std::size_t num_vars() const noexcept { return assign_.size(); }
  [[nodiscard]] std::size_t num_clauses() const noexcept { return clauses_.size(); }

  /// Adds a clause (before solve). Duplicate literals are dropped; a tautology is ignored.
  void add_clause(std::vector<Lit> c) {
    if (!ok_) return;
    std::vector<Lit> out;
    for (Lit l : c) {
      bool dup = false, taut = false;
      for (Lit m : out) dup = dup || m == l, taut = taut || m == neg(l);
      if (taut) return;
      if (dup) continue;
      const int v = value(l);
      if (v == 1) return;   // satisfied at level 0
      if (v == 0) continue;  // false at level 0
      out.push_back(l);
    }
    if (out.empty()) {
      ok_ = false;
      return;
    }
    if (out.size() == 1) {
      enqueue(out[0], -1);
      if (propagate() >= 0) ok_ = false;
      return;
    }
    attach(std::move(out));
  }

  /// Solves with at most `max_conflicts` conflicts.
  Result solve(std::size_t max_conflicts) {
    if (!ok_) return Result::unsat;
    if (propagate() >= 0) return ok_ = false, Result::unsat;
    std::size_t& conflicts = conflicts_;
    std::size_t restart_at = 64, since_restart = 0;
    for (;;) {
      const int confl = propagate();
      if (confl >= 0) {
        ++conflicts;
        ++since_restart;
        if (decision_level() == 0) return ok_ = false, Result::unsat;
        if (conflicts > max_conflicts) return Result::unknown;
        int back = 0;
        std::vector<Lit> learnt = analyze(confl, back);
        cancel_until(back);
        if (learnt.size() == 1) {
          enqueue(learnt[0], -1);
        } else {
          const int ci = attach(std::move(learnt));
          enqueue(clauses_[static_cast<std::size_t>(ci)][0], ci);
        }
        decay();
        continue;
      }
      if (since_restart >= restart_at) {
        since_restart = 0;
        restart_at += restart_at / 2;
        cancel_until(0);
        continue;
      }
      const int v = pick();
      if (v < 0) return Result::sat;
      trail_lim_.push_back(trail_.size());
      enqueue(phase_[static_cast<std::size_t>(v)] ? pos(static_cast<std::uint32_t>(v))
                                                   : neg(pos(static_cast<std::uint32_t>(v))),
              -1);
    }
  }

  /// Conflicts met by solve so far.
  [[nodiscard]] std::size_t conflicts() const noexcept { return conflicts_; }

  /// The value of variable v in the model (after Result::sat).
  [[nodiscard]] bool model(std::uint32_t v) const { return assign_[v] == 1; }

 private:
  /// 1 true, 0 false, -1 unassigned.
  [[nodiscard]] int value(Lit l) const {
    const int a = assign_[l >> 1];
    return a < 0 ? -1 : (a ^ static_cast<int>(l & 1));
  }
  [[nodiscard]] int decision_level() const { return static_cast<int>(trail_lim_.size()); }

  int attach(std::vector<Lit> c) {
    const int ci = static_cast<int>(clauses_.size());
    watches_[c[0]].push_back(ci);
    watches_[c[1]].push_back(ci);
    clauses_.push_back(std::move(c));
    return ci;
  }

  void enqueue(Lit l, int reason) {
    const auto v = l >> 1;
    assign_[v] = static_cast<std::int8_t>(!(l & 1));
    level_[v] = decision_level();
    reason_[v] = reason;
    trail_.push_back(l);
  }

  /// Returns the index of a conflicting clause, or -1.
  int propagate() {
    while (qhead_ < trail_.size()) {
      const Lit p = trail_[qhead_++];
      const Lit fl = neg(p);  // now false
      auto& ws = watches_[fl];
      std::size_t i = 0, j = 0;
      while (i < ws.size()) {
        const int ci = ws[i++];
        auto& c = clauses_[static_cast<std::size_t>(ci)];
        if (c[0] == fl) std::swap(c[0], c[1]);
        if (value(c[0]) == 1) {
          ws[j++] = ci;
          continue;
        }
        bool moved = false;
        for (std::size_t k = 2; k < c.size(); ++k)
          if (value(c[k]) != 0) {
            std::swap(c[1], c[k]);
            watches_[c[1]].push_back(ci);
            moved = true;
            break;
          }
        if (moved) continue;
        ws[j++] = ci;
        if (value(c[0]) == 0) {
          while (i < ws.size()) ws[j++] = ws[i++];
          ws.resize(j);
          qhead_ = trail_.size();
          return ci;
        }
        enqueue(c[0], ci);
      }
      ws.resize(j);
    }
    return -1;
  }

  /// First-UIP learning; `back` receives the level to return to. The asserting literal is first, the literal of the
  /// highest remaining level second (it is watched).
  std::vector<Lit> analyze(int confl, int& back) {
    std::vector<Lit> learnt{0};
    int counter = 0;
    Lit p = 0;
    bool have_p = false;
    std::size_t idx = trail_.size();
    for (;;) {
      const auto& c = clauses_[static_cast<std::size_t>(confl)];
      for (std::size_t k = have_p ? 1 : 0; k < c.size(); ++k) {
        const Lit q = c[k];
        const auto v = q >> 1;
        if (seen_[v] || level_[v] == 0) continue;
        seen_[v] = 1;
        bump(v);
        if (level_[v] == decision_level()) ++counter;
        else learnt.push_back(q);
      }
      do --idx;
      while (!seen_[trail_[idx] >> 1]);
      p = trail_[idx];
      have_p = true;
      seen_[p >> 1] = 0;
      if (--counter == 0) break;
      confl = reason_[p >> 1];
    }
    learnt[0] = neg(p);
    back = 0;
    std::size_t hi = 1;
    for (std::size_t k = 1; k < learnt.size(); ++k) {
      seen_[learnt[k] >> 1] = 0;
      if (level_[learnt[k] >> 1] > back) back = level_[learnt[k] >> 1], hi = k;
    }
    if (learnt.size() > 1) std::swap(learnt[1], learnt[hi]);
    return learnt;
  }

  void cancel_until(int lvl) {
    if (decision_level() <= lvl) return;
    const std::size_t to = trail_lim_[static_cast<std::size_t>(lvl)];
    for (std::size_t k = trail_.size(); k-- > to;) {
      const auto v = trail_[k] >> 1;
      phase_[v] = static_cast<std::int8_t>(assign_[v]);
      assign_[v] = -1;
      reason_[v] = -1;
      if (heap_pos_[v] < 0) heap_insert(v);
    }
    trail_.resize(to);
    trail_lim_.resize(static_cast<std::size_t>(lvl));
    qhead_ = to;
  }

  int pick() {
    while (!heap_.empty()) {
      const auto v = heap_pop();
      if (assign_[v] < 0) return static_cast<int>(v);
    }
    return -1;
  }

  // -- activity heap (max-heap on activity) --
  void bump(std::uint32_t v) {
    activity_[v] += inc_;
    if (activity_[v] > 1e100) {
      for (double& a : activity_) a *= 1e-100;
      inc_ *= 1e-100;
    }
    if (heap_pos_[v] >= 0) sift_up(static_cast<std::size_t>(heap_pos_[v]));
  }
  void decay() { inc_ /= 0.95; }
  void heap_insert(std::uint32_t v) {
    heap_pos_[v] = static_cast<int>(heap_.size());
    heap_.push_back(v);
    sift_up(heap_.size() - 1);
  }
  std::uint32_t heap_pop() {
    const auto top = heap_[0];
    heap_pos_[top] = -1;
    const auto last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) {
      heap_[0] = last;
      heap_pos_[last] = 0;
      sift_down(0);
    }
    return top;
  }
  void sift_up(std::size_t i) {
    const auto v = heap_[i];
    while (i > 0) {
      const std::size_t up = (i - 1) / 2;
      if (activity_[heap_[up]] >= activity_[v]) break;
      heap_[i] = heap_[up];
      heap_pos_[heap_[i]] = static_cast<int>(i);
      i = up;
    }
    heap_[i] = v;
    heap_pos_[v] = static_cast<int>(i);
  }
  void sift_down(std::size_t i) {
    const auto v = heap_[i];
    for (;;) {
      std::size_t c = 2 * i + 1;
      if (c >= heap_.size()) break;
      if (c + 1 < heap_.size() && activity_[heap_[c + 1]] > activity_[heap_[c]]) ++c;
      if (activity_[heap_[c]] <= activity_[v]) break;
      heap_[i] = heap_[c];
      heap_pos_[heap_[i]] = static_cast<int>(i);
      i = c;
    }
    heap_[i] = v;
    heap_pos_[v] = static_cast<int>(i);
  }

  bool ok_ = true;
  std::vector<std::int8_t> assign_;
  std::vector<int> level_;
  std::vector<int> reason_;
  std::vector<double> activity_;
  std::vector<std::int8_t> phase_;
  std::vector<std::int8_t> seen_;
  std::vector<int> heap_pos_;
  std::vector<std::uint32_t> heap_;
  std::vector<std::vector<Lit>> clauses_;
  std::vector<std::vector<int>> watches_;
  std::vector<Lit> trail_;
  std::vector<std::size_t> trail_lim_;
  std::size_t qhead_ = 0;
  std::size_t conflicts_ = 0;
  double inc_ = 1.0;
};

}  // namespace asmevo::analysis::detail
