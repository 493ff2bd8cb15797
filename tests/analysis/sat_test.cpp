// Tests of analysis/detail/sat.hpp (the CDCL solver) and detail/term_sat.hpp (equality of bit terms by SAT), against
// brute force: random CNF formulas over few variables, whose satisfiability is decided by trying every assignment, and
// random term DAGs, whose equality is decided by truth tables. Then the lane constructs (mux, lane) and the guard, by
// hand: each with a case that must be proven and the closest case that must not.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "asmevo/analysis/detail/bit_terms.hpp"
#include "asmevo/analysis/detail/sat.hpp"
#include "asmevo/analysis/detail/term_sat.hpp"

namespace asmevo::analysis::detail {
namespace {

// Property tests are bounded (<= 200 cases) unless RC_PARAMS says otherwise; rapidcheck prints the seed it used.
const bool rc_defaults_installed = [] {
  std::string p = std::getenv("RC_PARAMS") ? std::getenv("RC_PARAMS") : "";
  if (p.find("max_success") == std::string::npos) p += " max_success=200";
  setenv("RC_PARAMS", p.c_str(), 1);
  return true;
}();

using Clause = std::vector<int>;  // DIMACS style: +v / -v, v >= 1

bool satisfies(const std::vector<Clause>& f, std::uint32_t assignment) {
  for (const auto& c : f) {
    bool any = false;
    for (int l : c) {
      const bool v = (assignment >> (std::abs(l) - 1)) & 1;
      any = any || (l > 0 ? v : !v);
    }
    if (!any) return false;
  }
  return true;
}

RC_GTEST_PROP(SatSolver, AgreesWithBruteForce, ()) {
  const int n = *rc::gen::inRange(1, 13);
  const auto m = *rc::gen::inRange(0, 70);
  std::vector<Clause> f;
  for (int i = 0; i < m; ++i) {
    const auto len = *rc::gen::inRange(1, 5);
    Clause c;
    for (int k = 0; k < len; ++k) {
      const int v = *rc::gen::inRange(1, n + 1);
      c.push_back(*rc::gen::arbitrary<bool>() ? v : -v);
    }
    f.push_back(c);
  }
  bool brute = false;
  for (std::uint32_t a = 0; a < (1u << n) && !brute; ++a) brute = satisfies(f, a);

  Sat s;
  for (int v = 0; v < n; ++v) s.new_var();
  for (const auto& c : f) {
    std::vector<Sat::Lit> lits;
    for (int l : c) {
      const Sat::Lit p = Sat::pos(static_cast<std::uint32_t>(std::abs(l) - 1));
      lits.push_back(l > 0 ? p : Sat::neg(p));
    }
    s.add_clause(lits);
  }
  const auto r = s.solve(1000000);
  RC_ASSERT(r != Sat::Result::unknown);
  RC_ASSERT((r == Sat::Result::sat) == brute);
  if (r == Sat::Result::sat) {
    std::uint32_t a = 0;
    for (int v = 0; v < n; ++v) a |= static_cast<std::uint32_t>(s.model(static_cast<std::uint32_t>(v))) << v;
    RC_ASSERT(satisfies(f, a));
  }
}

// Pigeonhole 6 into 5: unsatisfiable, and hard enough to need learning and restarts; with a tiny conflict budget the
// answer is "unknown", never "sat".
TEST(SatSolver, PigeonholeIsUnsatAndBudgetGivesUnknown) {
  auto build = [](Sat& s) {
    const int P = 6, H = 5;
    for (int i = 0; i < P * H; ++i) s.new_var();
    auto x = [&](int p, int h) { return Sat::pos(static_cast<std::uint32_t>(p * H + h)); };
    for (int p = 0; p < P; ++p) {
      std::vector<Sat::Lit> c;
      for (int h = 0; h < H; ++h) c.push_back(x(p, h));
      s.add_clause(c);
    }
    for (int h = 0; h < H; ++h)
      for (int p = 0; p < P; ++p)
        for (int q = p + 1; q < P; ++q) s.add_clause({Sat::neg(x(p, h)), Sat::neg(x(q, h))});
  };
  Sat a;
  build(a);
  EXPECT_EQ(a.solve(1000000), Sat::Result::unsat);
  Sat b;
  build(b);
  EXPECT_EQ(b.solve(3), Sat::Result::unknown);
}

// -- term equality --

/// A random DAG of boolean operations over `nv` uniform variables; returns its nodes (the last is the root).
std::vector<Bit> random_terms(BitAlg& A, std::uint32_t sym, unsigned nv, int ops) {
  std::vector<Bit> t;
  for (unsigned j = 0; j < nv; ++j) t.push_back(A.var(sym, j));
  for (int i = 0; i < ops; ++i) {
    const auto pick = [&] { return t[static_cast<std::size_t>(*rc::gen::inRange<std::size_t>(0, t.size()))]; };
    switch (*rc::gen::inRange(0, 4)) {
      case 0: t.push_back(A.not_(pick())); break;
      case 1: t.push_back(A.and_(pick(), pick())); break;
      case 2: t.push_back(A.or_(pick(), pick())); break;
      default: t.push_back(A.xor_(pick(), pick())); break;
    }
  }
  return t;
}

/// The value of a uniform term built from var/not/and/or/xor under an assignment of the variables' bits.
bool eval(const BitAlg& A, Bit t, std::uint32_t assignment) {
  const auto& n = A.node(t);
  switch (n.k) {
    case BitAlg::K::c0: return false;
    case BitAlg::K::c1: return true;
    case BitAlg::K::var: return (assignment >> n.b) & 1;
    case BitAlg::K::not_: return !eval(A, n.a, assignment);
    case BitAlg::K::and_: return eval(A, n.a, assignment) && eval(A, n.b, assignment);
    case BitAlg::K::or_: return eval(A, n.a, assignment) || eval(A, n.b, assignment);
    case BitAlg::K::xor_: return eval(A, n.a, assignment) != eval(A, n.b, assignment);
    default: throw std::logic_error("eval: unexpected node kind");
  }
}

RC_GTEST_PROP(TermSat, EqualityMatchesTruthTables, ()) {
  BitAlg A(true);
  const unsigned nv = *rc::gen::inRange(1u, 7u);
  const auto sym = A.symbol(false);
  const auto t = random_terms(A, sym, nv, *rc::gen::inRange(1, 25));
  const Bit x = t[*rc::gen::inRange<std::size_t>(0, t.size())], y = t[*rc::gen::inRange<std::size_t>(0, t.size())];
  bool same = true;
  for (std::uint32_t a = 0; a < (1u << nv) && same; ++a) same = eval(A, x, a) == eval(A, y, a);
  SatBudget budget;
  const std::vector<Bit> xs{x}, ys{y};
  RC_ASSERT(equal_in_lanes(A, {}, xs, ys, budget) == same);
}

/// The bits of a + b + carry (ripple carry). `majority`: the carry as maj(a, b, c) instead of ab | c(a ^ b), the
/// same function by another circuit.
std::vector<Bit> add(BitAlg& A, const std::vector<Bit>& a, const std::vector<Bit>& b, Bit carry, bool majority) {
  std::vector<Bit> r;
  for (std::size_t j = 0; j < a.size(); ++j) {
    r.push_back(A.xor_(A.xor_(a[j], b[j]), carry));
    carry = majority ? A.or_(A.or_(A.and_(a[j], b[j]), A.and_(a[j], carry)), A.and_(b[j], carry))
                     : A.or_(A.and_(a[j], b[j]), A.and_(carry, A.xor_(a[j], b[j])));
  }
  return r;
}

// Two circuits of 32-bit addition (different terms, same function) are proven equal; a + b and a + b + 1 are not.
TEST(TermSat, AdditionCircuitsAgreeAndOffByOneDoesNot) {
  BitAlg A(true);
  const auto sa = A.symbol(false), sb = A.symbol(false);
  std::vector<Bit> a, b;
  for (unsigned j = 0; j < 32; ++j) a.push_back(A.var(sa, j)), b.push_back(A.var(sb, j));
  SatBudget budget;
  const auto x = add(A, a, b, bit0, false), y = add(A, a, b, bit0, true), z = add(A, a, b, bit1, false);
  ASSERT_NE(x, y) << "the two circuits should be different terms, or the test shows nothing";
  EXPECT_TRUE(equal_in_lanes(A, {}, x, y, budget));
  EXPECT_FALSE(equal_in_lanes(A, {}, x, z, budget));
  EXPECT_GT(budget.proven, 0u);
}

// Lane constructs. v is a lane-varying variable, M a lane mask whose lanes are uniform variables. mux(M, v, ~v)
// equals v exactly where M is set: proven under guard M, not without a guard, and not under a guard that includes a
// lane M misses. lane(v, 5) is v in lane 5: equal to v there, and not provably equal in lane 6.
TEST(TermSat, MuxAndLaneFollowTheLanes) {
  BitAlg A(true);
  const auto sv = A.symbol(true), sm = A.symbol(false);
  const Bit v = A.var(sv, 0);
  std::vector<Bit> m;
  for (unsigned l = 0; l < 64; ++l) m.push_back(A.var(sm, l));
  const auto M = A.vec(m);
  const Bit x = A.mux(M, v, A.not_(v));
  SatBudget budget;
  const std::vector<Bit> xs{x}, vs{v};
  EXPECT_TRUE(equal_in_lanes(A, m, xs, vs, budget));
  EXPECT_FALSE(equal_in_lanes(A, {}, xs, vs, budget));
  std::vector<Bit> wider = m;
  wider[17] = A.or_(m[17], A.var(A.symbol(false), 0));
  EXPECT_FALSE(equal_in_lanes(A, wider, xs, vs, budget));

  std::vector<Bit> only5(64, bit0), only6(64, bit0);
  only5[5] = bit1;
  only6[6] = bit1;
  const std::vector<Bit> l5{A.lane(v, 5)};
  EXPECT_TRUE(equal_in_lanes(A, only5, l5, vs, budget));
  EXPECT_FALSE(equal_in_lanes(A, only6, l5, vs, budget));
}

}  // namespace
}  // namespace asmevo::analysis::detail
