// Semantic equality of bit terms (detail/bit_terms.hpp) by SAT: two terms with different ids may still be equal in
// every execution (E ∧ c11 and E ∧ c8 ∧ c11 when the compare c11 implies c8), and the equivalence prover asks this
// question where ids alone would refuse a proof.
//
// A term is encoded per lane (Tseitin): the value a term has in lane L is a circuit over
//   - the bits of the variables (one SAT variable per bit, and per lane when the variable is lane-varying),
//   - the bits of opaque results (likewise; nothing is assumed of an operation the terms do not model, so two opaque
//     results are independent: a proof that needs them equal fails, one that does not still holds),
//   - constants.
// mux(V, a, b) in lane L selects by the uniform bit V[L]; lane(r, L') is r encoded in lane L'. A query asserts the
// guard and that some pair differs; "unsat" proves the pairs equal wherever the guard holds. Budgets (clauses,
// conflicts) turn hard queries into "not proven", never into a wrong answer.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "asmevo/analysis/detail/bit_terms.hpp"
#include "asmevo/analysis/detail/sat.hpp"

namespace asmevo::analysis::detail {

/// Limits for one proof's SAT queries together.
struct SatBudget {
  std::size_t conflicts_per_query = 20000;
  std::size_t clauses_per_query = 400000;
  std::size_t conflicts_total = 2000000;
  std::size_t queries = 0;   ///< queries asked (for reasons and tests)
  std::size_t proven = 0;    ///< queries answered unsat
  std::size_t conflicts = 0;  ///< conflicts spent so far
};

class TermCnf {
 public:
  static constexpr unsigned uniform = 64;  ///< the "lane" of a uniform term

  TermCnf(const BitAlg& A, Sat& S, std::size_t max_clauses) : A_(A), S_(S), max_clauses_(max_clauses) {
    true_ = Sat::pos(S_.new_var());
    S_.add_clause({true_});
  }

  /// The literal of term t in lane L (0..63), or in no particular lane (`uniform`) when t is uniform. False when the
  /// encoding outgrew its clause budget, meets an unknown (top), or needs a lane it was not given.
  bool encode(Bit root, unsigned L, Sat::Lit& out) {
    struct Frame {
      Bit t;
      unsigned l;
    };
    std::vector<Frame> st{{root, norm(root, L)}};
    while (!st.empty()) {
      if (S_.num_clauses() > max_clauses_) return false;
      const Frame fr = st.back();
      const std::uint64_t k = key(fr.t, fr.l);
      if (memo_.count(k)) {
        st.pop_back();
        continue;
      }
      const auto& n = A_.node(fr.t);
      using K = BitAlg::K;
      // Children first: push the missing ones and come back.
      auto need = [&](Bit c, unsigned l) -> bool {
        const unsigned cl = norm(c, l);
        if (memo_.count(key(c, cl))) return false;
        st.push_back({c, cl});
        return true;
      };
      auto lit = [&](Bit c, unsigned l) { return memo_.at(key(c, norm(c, l))); };
      Sat::Lit r = 0;
      switch (n.k) {
        case K::c0: r = Sat::neg(true_); break;
        case K::c1: r = true_; break;
        case K::top: return false;  // an unknown (known-bits mode only): nothing can be proven of it
        case K::var:
        case K::proj: r = Sat::pos(S_.new_var()); break;
        case K::not_:
          if (need(n.a, fr.l)) continue;
          r = Sat::neg(lit(n.a, fr.l));
          break;
        case K::and_:
        case K::or_:
        case K::xor_: {
          const bool a = need(n.a, fr.l), b = need(n.b, fr.l);
          if (a || b) continue;
          const Sat::Lit x = lit(n.a, fr.l), y = lit(n.b, fr.l);
          r = n.k == K::and_ ? gate_and(x, y) : n.k == K::or_ ? Sat::neg(gate_and(Sat::neg(x), Sat::neg(y)))
                                                               : gate_xor(x, y);
          break;
        }
        case K::mux: {
          if (fr.l >= uniform) return false;  // a lane-varying term needs a lane
          const Bit sel = A_.vec_bits(n.a)[fr.l];
          const bool s = need(sel, uniform), a = need(n.b, fr.l), b = need(n.c, fr.l);
          if (s || a || b) continue;
          r = gate_ite(lit(sel, uniform), lit(n.b, fr.l), lit(n.c, fr.l));
          break;
        }
        case K::lane: {
          if (need(n.a, n.b)) continue;
          r = lit(n.a, n.b);
          break;
        }
      }
      memo_.emplace(k, r);
      st.pop_back();
    }
    out = memo_.at(key(root, norm(root, L)));
    return true;
  }

  /// Every variable bit encoded so far, with the lane it was encoded in (`uniform` for a uniform one) and its
  /// literal: what a model assigns the inputs (detail::term_sat's callers that want a counterexample read it).
  struct Leaf {
    Bit t;
    unsigned lane;
    Sat::Lit lit;
  };
  [[nodiscard]] std::vector<Leaf> variables() const {
    std::vector<Leaf> out;
    for (const auto& [k, l] : memo_) {
      const auto t = static_cast<Bit>(k >> 7);
      if (A_.node(t).k == BitAlg::K::var) out.push_back({t, static_cast<unsigned>(k & 0x7f), l});
    }
    return out;
  }

  [[nodiscard]] Sat::Lit gate_and(Sat::Lit x, Sat::Lit y) {
    const Sat::Lit g = Sat::pos(S_.new_var());
    S_.add_clause({Sat::neg(g), x});
    S_.add_clause({Sat::neg(g), y});
    S_.add_clause({g, Sat::neg(x), Sat::neg(y)});
    return g;
  }
  [[nodiscard]] Sat::Lit gate_xor(Sat::Lit x, Sat::Lit y) {
    const Sat::Lit g = Sat::pos(S_.new_var());
    S_.add_clause({Sat::neg(g), x, y});
    S_.add_clause({Sat::neg(g), Sat::neg(x), Sat::neg(y)});
    S_.add_clause({g, Sat::neg(x), y});
    S_.add_clause({g, x, Sat::neg(y)});
    return g;
  }
  [[nodiscard]] Sat::Lit gate_ite(Sat::Lit s, Sat::Lit a, Sat::Lit b) {
    const Sat::Lit g = Sat::pos(S_.new_var());
    S_.add_clause({Sat::neg(s), Sat::neg(a), g});
    S_.add_clause({Sat::neg(s), a, Sat::neg(g)});
    S_.add_clause({s, Sat::neg(b), g});
    S_.add_clause({s, b, Sat::neg(g)});
    return g;
  }

 private:
  /// Uniform terms have one encoding for all lanes.
  [[nodiscard]] unsigned norm(Bit t, unsigned l) const { return A_.is_lane(t) ? l : uniform; }
  [[nodiscard]] static std::uint64_t key(Bit t, unsigned l) { return (std::uint64_t{t} << 7) | l; }

  const BitAlg& A_;
  Sat& S_;
  std::size_t max_clauses_;
  Sat::Lit true_ = 0;
  std::unordered_map<std::uint64_t, Sat::Lit> memo_;
};

/// Proves that in every lane L of `lanes` where guard[L] holds (every listed lane when `guard` is empty), xs[i] and
/// ys[i] have the same value, for every i. Uniform pairs are checked once. One SAT query per lane.
[[nodiscard]] inline bool equal_in_lanes(const BitAlg& A, std::span<const Bit> guard, std::span<const Bit> xs,
                                         std::span<const Bit> ys, SatBudget& budget) {
  bool any_lane = false, differ = false;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    if (xs[i] == ys[i]) continue;
    differ = true;
    any_lane = any_lane || A.is_lane(xs[i]) || A.is_lane(ys[i]);
  }
  if (!differ) return true;
  const unsigned nl = any_lane || !guard.empty() ? 64u : 1u;
  for (unsigned L = 0; L < nl; ++L) {
    const Bit g = guard.empty() ? bit1 : guard[L];
    if (g == bit0) continue;
    if (budget.conflicts >= budget.conflicts_total) return false;
    Sat S;
    TermCnf cnf(A, S, budget.clauses_per_query);
    const unsigned lane = any_lane ? L : TermCnf::uniform;
    std::vector<Sat::Lit> diffs;
    for (std::size_t i = 0; i < xs.size(); ++i) {
      if (xs[i] == ys[i]) continue;
      Sat::Lit x = 0, y = 0;
      if (!cnf.encode(xs[i], lane, x) || !cnf.encode(ys[i], lane, y)) return false;
      diffs.push_back(cnf.gate_xor(x, y));
    }
    if (diffs.empty()) continue;
    if (g != bit1) {
      Sat::Lit gl = 0;
      if (!cnf.encode(g, TermCnf::uniform, gl)) return false;
      S.add_clause({gl});
    }
    S.add_clause(diffs);
    ++budget.queries;
    const auto r = S.solve(budget.conflicts_per_query);
    budget.conflicts += S.conflicts();
    if (r != Sat::Result::unsat) return false;
    ++budget.proven;
  }
  return true;
}

}  // namespace asmevo::analysis::detail
