// `asmevo triton list`: the kernels of a Triton cache or dump folder (triton_cache.hpp), as a table or as JSON.
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "triton_cache.hpp"
#include "verbs.hpp"

namespace asmevo::cli {

namespace {

std::string signature_text(const triton::Kernel& k) {
  if (!k.signature) return "(no .source or .ttir)";
  std::string s = "(";
  for (std::size_t i = 0; i < k.signature->size(); ++i)
    s += (i ? ", " : "") + (*k.signature)[i].name + ": " + (*k.signature)[i].type;
  return s + ")";
}

nlohmann::ordered_json kernel_json(const triton::Kernel& k) {
  using Json = nlohmann::ordered_json;
  Json sig = nullptr;
  if (k.signature) {
    sig = Json::array();
    for (const auto& p : *k.signature) sig.push_back({{"name", p.name}, {"type", p.type}});
  }
  const auto or_null = [](const std::string& s) { return s.empty() ? Json() : Json(s); };
  return {{"name", k.name},
          {"hash", k.folder.filename().string()},
          {"folder", k.folder.string()},
          {"from", k.from_metadata ? "metadata" : "code object"},
          {"target", {{"backend", k.backend}, {"arch", k.arch}, {"warp_size", k.warp_size}}},
          {"num_warps", k.num_warps},
          {"shared", k.shared},
          {"signature", std::move(sig)},
          {"triton_version", or_null(k.triton_version)},
          {"symbol", or_null(k.symbol)},
          {"hsaco", or_null(k.hsaco.string())}};
}

}  // namespace

int cmd_triton(int argc, char** argv) {
  auto a = parse_args(argc, argv, {}, {"--json"});
  if (!a.errors.empty()) return usage_error(a.errors.front());
  if (a.pos.empty() || a.pos[0] != "list") return usage_error("triton takes a sub-verb: asmevo triton list DIR [--json]");
  if (a.pos.size() != 2)
    return usage_error("triton list takes one folder: a Triton cache (TRITON_CACHE_DIR) or dump (TRITON_DUMP_DIR)");
  const std::string& dir = a.pos[1];
  auto listing = triton::list_folder(dir);
  if (!listing) return report(listing.error());
  // Every kernel that could not be read is named (file and reason) on stderr; the others are still listed.
  int rc = exit_ok;
  for (const auto& d : listing->problems) {
    std::cerr << d.str() << "\n";
    rc = std::max(rc, d.code == DiagCode::internal ? exit_internal : exit_bad_input);
  }
  if (listing->kernels.empty() && listing->problems.empty()) {
    std::cerr << "asmevo: no Triton kernels under '" << dir
              << "' (a cache or dump folder holds one hash folder per kernel, with <name>.json, <name>.hsaco or "
                 "<name>.ttir in it)\n";
    return exit_bad_input;
  }
  if (a.opt.count("--json")) {
    nlohmann::ordered_json j{{"dir", dir}, {"kernels", nlohmann::ordered_json::array()}, {"errors", nlohmann::ordered_json::array()}};
    for (const auto& k : listing->kernels) j["kernels"].push_back(kernel_json(k));
    for (const auto& d : listing->problems) j["errors"].push_back({{"file", d.loc.file}, {"message", d.message}});
    std::cout << j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
    return rc;
  }
  std::vector<std::vector<std::string>> rows{{"kernel", "hash", "target", "warp", "warps", "shared", "triton", "signature", "hsaco"}};
  bool from_code_object = false;
  for (const auto& k : listing->kernels) {
    from_code_object = from_code_object || !k.from_metadata;
    rows.push_back({k.name, k.folder.filename().string().substr(0, 8), k.backend + " " + k.arch, std::to_string(k.warp_size),
                    std::to_string(k.num_warps), std::to_string(k.shared) + (k.from_metadata ? "" : "*"),
                    k.triton_version.empty() ? "-" : k.triton_version, signature_text(k),
                    k.hsaco.empty() ? "-" : k.hsaco.string()});
  }
  print_table(std::cout, rows);
  if (from_code_object)
    std::cout << "* no Triton metadata (a dump folder): target, warps and shared come from the .hsaco; shared is its fixed "
                 "group segment, without the dynamic shared memory Triton requests at launch\n";
  return rc;
}

}  // namespace asmevo::cli
