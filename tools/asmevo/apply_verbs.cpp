// `asmevo passes` and `asmevo apply`: list the built-in passes; apply passes or a JSON edit script to a code object
// and rebuild it (or, with --dry-run, print what would change).
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "asmevo/agent/edit_script.hpp"
#include "asmevo/codeobject/rebuild.hpp"
#include "asmevo/ir/printer.hpp"
#include "asmevo/passes/registry.hpp"
#include "asmevo/support/file.hpp"
#include "asmevo/verify/static_checks.hpp"
#include "cli.hpp"
#include "loaded.hpp"
#include "verbs.hpp"

namespace asmevo::cli {

namespace {

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < s.size()) {
    const auto nl = s.find('\n', at);
    out.push_back(s.substr(at, nl == std::string::npos ? std::string::npos : nl - at));
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  return out;
}

/// A unified diff of two texts (3 lines of context), from a longest-common-subsequence alignment of the lines that
/// differ after the common prefix and suffix are set aside.
std::string unified_diff(const std::string& a_text, const std::string& b_text, const std::string& a_name,
                         const std::string& b_name) {
  const auto a = lines_of(a_text), b = lines_of(b_text);
  std::size_t pre = 0;
  while (pre < a.size() && pre < b.size() && a[pre] == b[pre]) ++pre;
  std::size_t suf = 0;
  while (suf < a.size() - pre && suf < b.size() - pre && a[a.size() - 1 - suf] == b[b.size() - 1 - suf]) ++suf;
  const std::size_t n = a.size() - pre - suf, m = b.size() - pre - suf;
  if (n == 0 && m == 0) return {};
  // ops: ' ' common, '-' only in a, '+' only in b; over the whole texts.
  std::vector<std::pair<char, std::string>> ops;
  for (std::size_t i = 0; i < pre; ++i) ops.emplace_back(' ', a[i]);
  if (n * m <= 64u * 1024 * 1024) {
    std::vector<std::uint32_t> L((n + 1) * (m + 1), 0);
    auto at = [&](std::size_t i, std::size_t j) -> std::uint32_t& { return L[i * (m + 1) + j]; };
    for (std::size_t i = n; i-- > 0;)
      for (std::size_t j = m; j-- > 0;)
        at(i, j) = a[pre + i] == b[pre + j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
    std::size_t i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a[pre + i] == b[pre + j]) ops.emplace_back(' ', a[pre + i]), ++i, ++j;
      else if (j < m && (i == n || at(i, j + 1) >= at(i + 1, j))) ops.emplace_back('+', b[pre + j++]);
      else ops.emplace_back('-', a[pre + i++]);
    }
  } else {  // too large to align: the whole middle as removed then added
    for (std::size_t i = 0; i < n; ++i) ops.emplace_back('-', a[pre + i]);
    for (std::size_t j = 0; j < m; ++j) ops.emplace_back('+', b[pre + j]);
  }
  for (std::size_t i = a.size() - suf; i < a.size(); ++i) ops.emplace_back(' ', a[i]);
  std::string out = "--- " + a_name + "\n+++ " + b_name + "\n";
  constexpr std::size_t ctx = 3;
  std::size_t k = 0;
  while (k < ops.size()) {
    while (k < ops.size() && ops[k].first == ' ') ++k;
    if (k == ops.size()) break;
    std::size_t start = k >= ctx ? k - ctx : 0, end = k;
    // Extend the hunk while changes are within 2*ctx lines of each other.
    for (std::size_t gap = 0; end < ops.size(); ++end) {
      if (ops[end].first != ' ') gap = 0;
      else if (++gap > 2 * ctx) break;
    }
    std::size_t stop = end;
    while (stop > start && ops[stop - 1].first == ' ' && stop > k) --stop;
    stop = std::min(ops.size(), stop + ctx);
    std::size_t la = 1, lb = 1;
    for (std::size_t q = 0; q < start; ++q) la += ops[q].first != '+', lb += ops[q].first != '-';
    std::size_t na = 0, nb = 0;
    for (std::size_t q = start; q < stop; ++q) na += ops[q].first != '+', nb += ops[q].first != '-';
    out += "@@ -" + std::to_string(la) + "," + std::to_string(na) + " +" + std::to_string(lb) + "," + std::to_string(nb) + " @@\n";
    for (std::size_t q = start; q < stop; ++q) out += std::string(1, ops[q].first) + ops[q].second + "\n";
    k = stop;
  }
  return out;
}

}  // namespace

int cmd_passes(int argc, char** argv) {
  auto a = parse_args(argc, argv, {}, {"--json"});
  if (!a.errors.empty()) return usage_error(a.errors.front());
  if (!a.pos.empty()) return usage_error("passes takes no arguments");
  if (a.opt.count("--json")) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& p : passes::builtin_passes())
      j.push_back({{"name", p.name}, {"summary", p.summary}, {"idempotent", p.idempotent}});
    std::cout << j.dump(2) << "\n";
    return exit_ok;
  }
  std::size_t w = 0;
  for (const auto& p : passes::builtin_passes()) w = std::max(w, p.name.size());
  for (const auto& p : passes::builtin_passes())
    std::cout << p.name << std::string(w + 2 - p.name.size(), ' ') << p.summary << "\n";
  return exit_ok;
}

int cmd_apply(int argc, char** argv) {
  auto a = parse_args(argc, argv, {"-o", "--pass", "--edits", "--kernel"}, {"--dry-run", "--json"});
  if (!a.errors.empty()) return usage_error(a.errors.front());
  if (a.pos.size() != 1) return usage_error("apply takes exactly one code object");
  const bool by_pass = a.opt.count("--pass") != 0, by_script = a.opt.count("--edits") != 0;
  if (by_pass == by_script) return usage_error("apply needs exactly one of --pass NAMES and --edits E.json");
  const bool dry = a.opt.count("--dry-run") != 0, json = a.opt.count("--json") != 0;
  const auto out = a.opt.find("-o");
  if (!dry && out == a.opt.end()) return usage_error("apply needs -o K1.co (or --dry-run)");
  if (out != a.opt.end() && same_file(out->second, a.pos[0])) return usage_error("-o '" + out->second + "' would overwrite the input");
  if (by_script && out != a.opt.end() && same_file(out->second, a.opt["--edits"]))
    return usage_error("-o '" + out->second + "' would overwrite the edit script");
  int rc = 0;
  auto k0 = load_recovered(a.pos[0], rc);
  if (!k0) return rc;
  const bool xnack = verify::detail::xnack_on_or_any(k0->m.target_id);

  Program p1;
  std::vector<passes::Edit> log;
  std::vector<passes::PassStats> stats;
  if (by_script) {
    auto text = read_file(a.opt["--edits"]);
    if (!text) return report(text.error());
    auto res = agent::apply_edit_script_text(k0->m, *text, xnack);
    if (!res.ok()) {
      if (json) {
        nlohmann::json errs = nlohmann::json::array();
        for (const auto& e : res.errors) errs.push_back({{"pointer", e.pointer}, {"message", e.message}});
        std::cout << nlohmann::json{{"applied", false}, {"errors", errs}}.dump(2) << "\n";
      }
      for (const auto& e : res.errors) std::cerr << a.opt["--edits"] << ": error: " << e.str() << "\n";
      std::cerr << "asmevo: " << res.errors.size() << " problem(s) in " << a.opt["--edits"] << "; nothing was applied\n";
      return exit_bad_input;
    }
    p1 = std::move(res.program);
    log = std::move(res.log);
    stats = std::move(res.pass_stats);
  } else {
    auto calls = passes::parse_pass_list(a.opt["--pass"]);
    if (!calls) return report(calls.error());
    p1 = k0->m.program;
    passes::Rewriter rw(p1);
    passes::PassContext ctx;
    ctx.xnack = xnack;
    if (auto k = a.opt.find("--kernel"); k != a.opt.end()) ctx.kernels.push_back(k->second);
    else
      for (const auto& k : k0->m.kernels) ctx.kernels.push_back(k.name);
    auto st = passes::run_pass_list(*calls, rw, ctx);
    if (!st) return report(st.error());
    stats = std::move(*st);
    log = rw.log();
  }

  const auto n0 = k0->m.program.instruction_count(), n1 = p1.instruction_count();
  if (dry) {
    const std::string diff = unified_diff(print_program(k0->m.program), print_program(p1), a.pos[0], a.pos[0] + " (edited)");
    if (json) {
      nlohmann::json j{{"applied", false}, {"dry_run", true}, {"edits", log.size()}, {"instructions_before", n0},
                       {"instructions_after", n1}, {"diff", diff}};
      std::cout << j.dump(2) << "\n";
    } else {
      std::cout << diff;
      std::cerr << "asmevo: dry run: " << log.size() << " edit(s), " << n0 << " -> " << n1 << " instructions; nothing written\n";
    }
    return exit_ok;
  }
  codeobject::RebuildOptions ro;
  ro.original = &k0->elf;
  ro.recovered = &k0->m;
  for (const auto& s : stats)
    if (s.shrinks_resources) ro.policy = codeobject::RecountPolicy::exact;
  auto built = codeobject::rebuild(std::move(p1), *k0->enc, ro);
  if (!built) return report(built.error());
  if (auto w = write_file_atomic(out->second, std::string_view(reinterpret_cast<const char*>(built->bytes.data()), built->bytes.size())); !w)
    return report(w.error());
  if (json) {
    nlohmann::json ps = nlohmann::json::array();
    for (const auto& s : stats) ps.push_back({{"pass", s.pass}, {"edits", s.edits}, {"insts_delta", s.insts_delta}, {"notes", s.notes}});
    std::cout << nlohmann::json{{"applied", true}, {"output", out->second}, {"edits", log.size()}, {"instructions_before", n0},
                                {"instructions_after", n1}, {"passes", ps}, {"path", std::string(codeobject::to_string(built->path))}}
                     .dump(2)
              << "\n";
  } else {
    for (const auto& s : stats) {
      std::cerr << "asmevo: " << s.pass << ": " << s.edits << " edit(s), " << (s.insts_delta >= 0 ? "+" : "") << s.insts_delta
                << " instructions\n";
      for (const auto& n : s.notes) std::cerr << "asmevo:   " << n << "\n";
    }
    std::cerr << "asmevo: " << out->second << ": " << log.size() << " edit(s), " << n0 << " -> " << n1 << " instructions\n";
  }
  return exit_ok;
}

}  // namespace asmevo::cli
