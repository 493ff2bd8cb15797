// Bit terms: hash-consed boolean expressions over the bits of register values, the value domain of the known-bits
// analysis and of the equivalence prover (analysis/known_bits.hpp, analysis/equivalence.hpp).
//
// A register value is a vector of bit terms, one per bit. A term is a constant, an unknown ("top", known-bits mode
// only), a variable (bit j of a register's value at some point, or of a pointer the launch sets), a boolean
// combination, an opaque operation result (bit j of node n: the same operation on the same operand terms gives the
// same node, so both sides of a proof that compute it agree), or one of two lane constructs:
//   mux(V, a, b)  per lane L: V[L] ? a : b, where V is an interned 64-bit lane mask (exec, vcc, an SGPR pair);
//   lane(r, L)    the uniform bit that the lane-varying term r has in lane L.
// Every term denotes a function of the lane (uniform terms are the same in all lanes), so the boolean operators are
// pointwise and two terms with the same id are equal in every lane of every execution. Terms with different ids may
// still be equal: equality of ids is sound, never complete.
//
// Known-bits mode (symbolic = false) uses the same operations but keeps only constants, top and the variables marked
// persistent (the kernarg and dispatch-packet base addresses); anything else collapses to top, which is the
// three-valued logic of a known-zero/known-one analysis.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace asmevo::analysis::detail {

using Bit = std::uint32_t;
inline constexpr Bit bit0 = 0, bit1 = 1, top = 2;

/// 32 bits of one register (bit j at index j).
using Word = std::array<Bit, 32>;

class BitAlg {
 public:
  enum class K : std::uint8_t { c0, c1, top, var, not_, and_, or_, xor_, mux, lane, proj };
  struct Node {
    K k;
    bool lane;        ///< the term may differ between lanes
    std::uint32_t a, b, c;
  };

  explicit BitAlg(bool symbolic) : symbolic_(symbolic) {
    nodes_.push_back({K::c0, false, 0, 0, 0});
    nodes_.push_back({K::c1, false, 0, 0, 0});
    nodes_.push_back({K::top, false, 0, 0, 0});
  }

  [[nodiscard]] bool symbolic() const noexcept { return symbolic_; }
  [[nodiscard]] const Node& node(Bit b) const { return nodes_[b]; }
  [[nodiscard]] static constexpr bool is_const(Bit b) noexcept { return b <= 1; }
  [[nodiscard]] bool is_lane(Bit b) const { return nodes_[b].lane; }
  [[nodiscard]] std::size_t size() const noexcept { return nodes_.size(); }

  /// A new variable symbol (a register's value at some point, a pointer base). `lane`: its bits vary by lane.
  /// `persistent`: kept in known-bits mode too (only for values both analyses must name: launch pointers).
  std::uint32_t symbol(bool lane, bool persistent = false) {
    syms_.push_back({lane, persistent});
    return static_cast<std::uint32_t>(syms_.size() - 1);
  }
  /// Bit j of symbol s.
  Bit var(std::uint32_t s, std::uint32_t j) {
    const auto& si = syms_.at(s);
    if (!symbolic_ && !si.persistent) return top;
    return make({K::var, si.lane, s, j, 0});
  }
  [[nodiscard]] bool is_var_of(Bit b, std::uint32_t s, std::uint32_t j) const {
    const Node& n = nodes_[b];
    return n.k == K::var && n.a == s && n.b == j;
  }

  Bit not_(Bit a) {
    if (a == bit0) return bit1;
    if (a == bit1) return bit0;
    if (a == top) return top;
    if (nodes_[a].k == K::not_) return nodes_[a].a;
    return keep({K::not_, nodes_[a].lane, a, 0, 0});
  }

  Bit and_(Bit a, Bit b) {
    if (a == bit0 || b == bit0) return bit0;
    if (a == bit1) return b;
    if (b == bit1) return a;
    if (a == b) return a;
    if (a == top || b == top) return top;
    if (complement(a, b)) return bit0;
    if (has_operand(b, K::or_, a)) return a;  // a & (a | x) = a
    if (has_operand(a, K::or_, b)) return b;
    if (has_operand(a, K::and_, b)) return a;  // (b & x) & b = b & x
    if (has_operand(b, K::and_, a)) return b;
    if (a > b) std::swap(a, b);
    return keep({K::and_, nodes_[a].lane || nodes_[b].lane, a, b, 0});
  }

  Bit or_(Bit a, Bit b) {
    if (a == bit1 || b == bit1) return bit1;
    if (a == bit0) return b;
    if (b == bit0) return a;
    if (a == b) return a;
    if (a == top || b == top) return top;
    if (complement(a, b)) return bit1;
    if (has_operand(b, K::and_, a)) return a;  // a | (a & x) = a
    if (has_operand(a, K::and_, b)) return b;
    if (has_operand(a, K::or_, b)) return a;
    if (has_operand(b, K::or_, a)) return b;
    if (a > b) std::swap(a, b);
    return keep({K::or_, nodes_[a].lane || nodes_[b].lane, a, b, 0});
  }

  Bit xor_(Bit a, Bit b) {
    if (a == bit0) return b;
    if (b == bit0) return a;
    if (a == top || b == top) return top;  // before a == b: two unknowns need not be the same unknown
    if (a == bit1) return not_(b);
    if (b == bit1) return not_(a);
    if (a == b) return bit0;
    if (complement(a, b)) return bit1;
    // Negations move outside, so that x ^ ~y and ~(x ^ y) are one term.
    if (nodes_[a].k == K::not_) return not_(xor_(nodes_[a].a, b));
    if (nodes_[b].k == K::not_) return not_(xor_(a, nodes_[b].a));
    if (a > b) std::swap(a, b);
    return keep({K::xor_, nodes_[a].lane || nodes_[b].lane, a, b, 0});
  }

  /// Uniform select: c ? a : b (c, a, b are bits of the same lane).
  Bit ite(Bit c, Bit a, Bit b) {
    if (c == bit1 || a == b) return a;
    if (c == bit0) return b;
    if (a == bit1 && b == bit0) return c;
    if (a == bit0 && b == bit1) return not_(c);
    return or_(and_(c, a), and_(not_(c), b));
  }

  /// Interns a vector of bits (a lane mask, an operation's operand) and returns its id; equal contents, equal ids.
  std::uint32_t vec(std::span<const Bit> v) {
    std::vector<Bit> key(v.begin(), v.end());
    const auto it = vec_ids_.find(key);
    if (it != vec_ids_.end()) return it->second;
    const auto id = static_cast<std::uint32_t>(vecs_.size());
    vecs_.push_back(key);
    vec_ids_.emplace(std::move(key), id);
    return id;
  }
  [[nodiscard]] const std::vector<Bit>& vec_bits(std::uint32_t id) const { return vecs_[id]; }

  /// Per lane L: mask[L] ? a : b, with `mask` an interned 64-bit vector.
  Bit mux(std::uint32_t mask, Bit a, Bit b) {
    const auto& m = vecs_[mask];
    if (a == b) return a;
    if (all_equal(m, bit1)) return a;
    if (all_equal(m, bit0)) return b;
    if (!symbolic_) return top;
    // Only lanes where the mask is 1 see a: a mux inside it whose mask covers `mask` is its first arm there, one whose
    // mask misses it entirely is its second arm. Likewise b is seen only where the mask is 0.
    for (int guard = 0; guard < 8 && nodes_[a].k == K::mux; ++guard) {
      const Node n = nodes_[a];
      if (subset(mask, n.a)) a = n.b;
      else if (disjoint_vec(mask, n.a)) a = n.c;
      else break;
    }
    for (int guard = 0; guard < 8 && nodes_[b].k == K::mux; ++guard) {
      const Node n = nodes_[b];
      if (subset(n.a, mask)) b = n.c;          // where mask is 0, n.a is 0
      else if (covers(mask, n.a)) b = n.b;     // where mask is 0, n.a is 1
      else break;
    }
    if (a == b) return a;
    return make({K::mux, true, mask, a, b});
  }

  /// The uniform bit that term r has in lane L.
  Bit lane(Bit r, unsigned L) {
    if (r <= top || !nodes_[r].lane) return r;
    const Node n = nodes_[r];
    if (n.k == K::not_) return not_(lane(n.a, L));
    if (n.k == K::mux) {
      const Bit sel = vecs_[n.a][L];
      if (sel == bit1) return lane(n.b, L);
      if (sel == bit0) return lane(n.c, L);
      if (!symbolic_) return top;
      return ite(sel, lane(n.b, L), lane(n.c, L));
    }
    if (!symbolic_) return top;
    return make({K::lane, false, r, L, 0});
  }

  /// An opaque operation result, identified by `key` (which must name the operation and every input exactly).
  std::uint32_t opaque(const std::string& key, bool lane) {
    if (!symbolic_) return 0;  // its bits are top anyway
    const auto it = opaque_ids_.find(key);
    if (it != opaque_ids_.end()) return it->second;
    const auto id = static_cast<std::uint32_t>(opaque_lane_.size());
    opaque_lane_.push_back(lane);
    opaque_facts_.push_back(0);
    opaque_ids_.emplace(key, id);
    return id;
  }
  /// Facts about an opaque result's value that an evaluator may record and later rely on. A fact must be a function
  /// of the result's key (the operation and its inputs), so that the same key always carries the same facts.
  enum Fact : std::uint8_t {
    canonical_f32 = 1,  ///< every lane's low 32 bits x satisfy v_max_f32(x, x) = x under the kernel's MODE
  };
  void add_fact(std::uint32_t n, Fact f) {
    if (symbolic_ && n < opaque_facts_.size()) opaque_facts_[n] |= f;
  }
  [[nodiscard]] bool has_fact(std::uint32_t n, Fact f) const {
    return n < opaque_facts_.size() && (opaque_facts_[n] & f) != 0;
  }

  /// Bit j of opaque result n.
  Bit proj(std::uint32_t n, std::uint32_t j) {
    if (!symbolic_) return top;
    return make({K::proj, static_cast<bool>(opaque_lane_[n]), n, j, 0});
  }

  /// Every lane of mask a implies the same lane of mask b (a ⊆ b). Sound, not complete.
  bool subset(std::uint32_t a, std::uint32_t b) {
    if (a == b) return true;
    const std::uint64_t key = (std::uint64_t{a} << 32) | b;
    if (auto it = subset_memo_.find(key); it != subset_memo_.end()) return it->second;
    bool r = true;
    for (unsigned l = 0; l < 64 && r; ++l) r = implies(vecs_[a][l], vecs_[b][l], 6);
    subset_memo_.emplace(key, r);
    return r;
  }
  /// No lane is set in both masks.
  bool disjoint_vec(std::uint32_t a, std::uint32_t b) {
    bool r = true;
    for (unsigned l = 0; l < 64 && r; ++l) r = disjoint(vecs_[a][l], vecs_[b][l], 6);
    return r;
  }
  /// Every lane is set in a or in b.
  bool covers(std::uint32_t a, std::uint32_t b) {
    bool r = true;
    for (unsigned l = 0; l < 64 && r; ++l) r = implies(not_(vecs_[a][l]), vecs_[b][l], 6);
    return r;
  }

  /// a implies b (a & ~b is 0), shown by structure up to `depth` levels; false when not shown.
  bool implies(Bit a, Bit b, int depth) {
    if (a == b || a == bit0 || b == bit1) return true;
    if (a == top || b == top || depth <= 0) return false;
    const Node na = nodes_[a], nb = nodes_[b];
    if (na.k == K::and_ && (implies(na.a, b, depth - 1) || implies(na.b, b, depth - 1))) return true;
    if (na.k == K::or_ && implies(na.a, b, depth - 1) && implies(na.b, b, depth - 1)) return true;
    if (nb.k == K::or_ && (implies(a, nb.a, depth - 1) || implies(a, nb.b, depth - 1))) return true;
    if (nb.k == K::and_ && implies(a, nb.a, depth - 1) && implies(a, nb.b, depth - 1)) return true;
    if (nb.k == K::not_ && disjoint(a, nb.a, depth - 1)) return true;
    return false;
  }

  /// a & b is 0, shown by structure; false when not shown.
  bool disjoint(Bit a, Bit b, int depth) {
    if (a == bit0 || b == bit0) return true;
    if (a == top || b == top) return false;
    if (complement(a, b)) return true;
    if (depth <= 0) return false;
    const Node na = nodes_[a], nb = nodes_[b];
    if (na.k == K::and_ && (disjoint(na.a, b, depth - 1) || disjoint(na.b, b, depth - 1))) return true;
    if (nb.k == K::and_ && (disjoint(a, nb.a, depth - 1) || disjoint(a, nb.b, depth - 1))) return true;
    if (na.k == K::or_ && disjoint(na.a, b, depth - 1) && disjoint(na.b, b, depth - 1)) return true;
    if (nb.k == K::or_ && disjoint(a, nb.a, depth - 1) && disjoint(a, nb.b, depth - 1)) return true;
    if (na.k == K::not_ && implies(b, na.a, depth - 1)) return true;
    if (nb.k == K::not_ && implies(a, nb.a, depth - 1)) return true;
    return false;
  }

  /// Replaces the terms in `m` (keys) by their values everywhere inside t: used on a path where a branch condition
  /// fixed some terms (exec = 0 on the taken arm of s_cbranch_execz). Opaque results keep their operands (their
  /// identity is their key), which loses precision, never soundness.
  struct Subst {
    std::unordered_map<Bit, Bit> map;
    std::unordered_map<Bit, Bit> memo;
    std::unordered_map<std::uint32_t, std::uint32_t> vmemo;
    std::size_t budget = 200000;
  };
  Bit subst(Bit t, Subst& s) {
    if (t <= top) return t;
    if (auto it = s.map.find(t); it != s.map.end()) return it->second;
    if (auto it = s.memo.find(t); it != s.memo.end()) return it->second;
    if (s.budget == 0) return t;
    --s.budget;
    const Node n = nodes_[t];
    Bit r = t;
    switch (n.k) {
      case K::not_: r = not_(subst(n.a, s)); break;
      case K::and_: r = and_(subst(n.a, s), subst(n.b, s)); break;
      case K::or_: r = or_(subst(n.a, s), subst(n.b, s)); break;
      case K::xor_: r = xor_(subst(n.a, s), subst(n.b, s)); break;
      case K::mux: r = mux(subst_vec(n.a, s), subst(n.b, s), subst(n.c, s)); break;
      case K::lane: r = lane(subst(n.a, s), n.b); break;
      default: break;
    }
    s.memo.emplace(t, r);
    return r;
  }
  std::uint32_t subst_vec(std::uint32_t v, Subst& s) {
    if (auto it = s.vmemo.find(v); it != s.vmemo.end()) return it->second;
    std::vector<Bit> b = vecs_[v];
    for (Bit& x : b) x = subst(x, s);
    const auto r = vec(b);
    s.vmemo.emplace(v, r);
    return r;
  }

  /// A term equal to t in every lane where `ctx` (an interned lane mask) is set: muxes whose mask covers ctx are
  /// replaced by their first arm, those whose mask misses ctx by their second. Used for the operands of a lane-wise
  /// operation executed under exec = ctx, whose other lanes are not written.
  Bit spec(Bit t, std::uint32_t ctx) {
    if (!symbolic_) return t;
    std::unordered_map<Bit, Bit> memo;
    std::size_t budget = 20000;
    return spec_rec(t, ctx, memo, budget);
  }

 private:
  struct Key {
    K k;
    std::uint32_t a, b, c;
    friend bool operator==(const Key&, const Key&) = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const noexcept {
      std::uint64_t h = static_cast<std::uint64_t>(k.k) * 0x9E3779B97F4A7C15ull;
      h ^= k.a + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
      h ^= k.b + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
      h ^= k.c + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
      return static_cast<std::size_t>(h);
    }
  };
  struct VecHash {
    std::size_t operator()(const std::vector<Bit>& v) const noexcept {
      std::uint64_t h = v.size();
      for (Bit b : v) h = (h ^ b) * 0x100000001B3ull + (h >> 29);
      return static_cast<std::size_t>(h);
    }
  };
  struct Sym {
    bool lane, persistent;
  };

  static bool all_equal(const std::vector<Bit>& v, Bit b) {
    for (Bit x : v)
      if (x != b) return false;
    return true;
  }

  [[nodiscard]] bool complement(Bit a, Bit b) const {
    return (nodes_[a].k == K::not_ && nodes_[a].a == b) || (nodes_[b].k == K::not_ && nodes_[b].a == a);
  }
  /// t is a node of kind k with x as one of its two operands.
  [[nodiscard]] bool has_operand(Bit t, K k, Bit x) const {
    return nodes_[t].k == k && (nodes_[t].a == x || nodes_[t].b == x);
  }

  Bit make(const Node& n) {
    const Key key{n.k, n.a, n.b, n.c};
    const auto it = ids_.find(key);
    if (it != ids_.end()) return it->second;
    const auto id = static_cast<Bit>(nodes_.size());
    nodes_.push_back(n);
    ids_.emplace(key, id);
    return id;
  }
  /// A compound term: in known-bits mode anything that is not already a constant or a persistent variable is top.
  Bit keep(const Node& n) {
    if (!symbolic_) return top;
    return make(n);
  }

  Bit spec_rec(Bit t, std::uint32_t ctx, std::unordered_map<Bit, Bit>& memo, std::size_t& budget) {
    if (t <= top || !nodes_[t].lane) return t;
    if (auto it = memo.find(t); it != memo.end()) return it->second;
    if (budget == 0) return t;
    --budget;
    const Node n = nodes_[t];
    Bit r = t;
    switch (n.k) {
      case K::not_: r = not_(spec_rec(n.a, ctx, memo, budget)); break;
      case K::and_: r = and_(spec_rec(n.a, ctx, memo, budget), spec_rec(n.b, ctx, memo, budget)); break;
      case K::or_: r = or_(spec_rec(n.a, ctx, memo, budget), spec_rec(n.b, ctx, memo, budget)); break;
      case K::xor_: r = xor_(spec_rec(n.a, ctx, memo, budget), spec_rec(n.b, ctx, memo, budget)); break;
      case K::mux:
        if (subset(ctx, n.a)) r = spec_rec(n.b, ctx, memo, budget);
        else if (disjoint_vec(ctx, n.a)) r = spec_rec(n.c, ctx, memo, budget);
        else r = mux(n.a, spec_rec(n.b, ctx, memo, budget), spec_rec(n.c, ctx, memo, budget));
        break;
      default: break;
    }
    memo.emplace(t, r);
    return r;
  }

  bool symbolic_;
  std::vector<Node> nodes_;
  std::unordered_map<Key, Bit, KeyHash> ids_;
  std::vector<Sym> syms_;
  std::vector<std::vector<Bit>> vecs_;
  std::unordered_map<std::vector<Bit>, std::uint32_t, VecHash> vec_ids_;
  std::vector<std::uint8_t> opaque_lane_;
  std::vector<std::uint8_t> opaque_facts_;  ///< Fact bits per opaque result
  std::unordered_map<std::string, std::uint32_t> opaque_ids_;
  std::unordered_map<std::uint64_t, bool> subset_memo_;
};

}  // namespace asmevo::analysis::detail
