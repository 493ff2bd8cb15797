// Reading what Triton leaves on disk, kernel by kernel, for `asmevo triton list`: a cache folder (TRITON_CACHE_DIR:
// per kernel a hash folder with Triton's `<name>.json` metadata beside the stage files) or a dump folder
// (TRITON_DUMP_DIR: the stage files only, so the target comes from the `.hsaco`'s own metadata).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "asmevo/codeobject/elf.hpp"
#include "asmevo/codeobject/metadata.hpp"
#include "asmevo/support/diag.hpp"
#include "asmevo/support/file.hpp"

namespace asmevo::cli::triton {

/// One parameter of a kernel's entry function, as Triton's IR declares it.
struct Param {
  std::string name;  ///< without the `%`: the Python parameter's name ("x"), or "arg0" where Triton kept none
  std::string type;  ///< the MLIR type as written ("!tt.ptr<f32>", "i32")
};

/// One compiled kernel of a cache or dump folder.
struct Kernel {
  std::string name;                    ///< Triton's kernel name (the metadata's "name"; in a dump, the file stem)
  std::filesystem::path folder;        ///< its hash folder
  bool from_metadata = false;          ///< target facts from Triton's `<name>.json` (cache), else from the .hsaco (dump)
  std::string backend, arch;           ///< "hip", "gfx942"
  std::uint64_t warp_size = 0;         ///< work-items per wave
  std::uint64_t num_warps = 0;         ///< waves per workgroup
  /// Bytes of LDS: Triton's "shared" (what the launch requests, dynamic) in a cache; in a dump, the code object's fixed
  /// group segment, which leaves out the dynamic shared memory Triton requests at launch (row_sum: 16 vs 0).
  std::uint64_t shared = 0;
  std::optional<std::vector<Param>> signature;  ///< nullopt: the folder has neither `<name>.source` nor `<name>.ttir`
  std::string triton_version;          ///< empty in a dump
  std::string symbol;                  ///< the code object's kernel symbol; empty without a .hsaco
  std::filesystem::path hsaco;         ///< empty when the folder has none
};

/// What a folder holds: the kernels read whole, and one problem for each that could not be (those are left out).
struct Listing {
  std::vector<Kernel> kernels;  ///< by hash folder, then name
  std::vector<Diag> problems;
};

namespace detail {

inline std::string trimmed(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  return std::string(s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1));
}

/// Splits the text between the parentheses of a parameter list at its top-level commas. Brackets of every kind nest,
/// and quoted strings (`loc("x")`) are skipped. `close`: where the list's `)` is (npos when it is unbalanced).
inline std::vector<std::string_view> split_params(std::string_view s, std::size_t open, std::size_t& close) {
  std::vector<std::string_view> parts;
  int depth = 0;
  std::size_t start = open + 1;
  close = std::string_view::npos;
  for (std::size_t i = open; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"') {
      for (++i; i < s.size() && s[i] != '"'; ++i)
        if (s[i] == '\\') ++i;
      continue;
    }
    if (c == '(' || c == '<' || c == '{' || c == '[') ++depth;
    else if (c == ')' || c == '>' || c == '}' || c == ']') {
      if (c == '>' && i > 0 && s[i - 1] == '-') continue;  // `->` is no bracket
      if (--depth == 0) {
        parts.push_back(s.substr(start, i - start));
        close = i;
        return parts;
      }
    } else if (c == ',' && depth == 1) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}

/// The type of one parameter: the text after `:` up to its attribute dictionary (`{tt.divisibility = 16 : i32}`) or
/// its location (`loc(...)`), whichever comes first at the top level.
inline std::string param_type(std::string_view s) {
  int depth = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (depth == 0 && (c == '{' || (s.substr(i).starts_with("loc(") && (i == 0 || s[i - 1] == ' '))))
      return trimmed(s.substr(0, i));
    if (c == '<' || c == '(' || c == '[') ++depth;
    else if ((c == '>' || c == ')' || c == ']') && depth > 0) --depth;
  }
  return trimmed(s);
}

inline std::uint32_t line_of(std::string_view text, std::size_t at) {
  return static_cast<std::uint32_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n') + 1);
}

}  // namespace detail

/// The parameters of `tt.func public @name(...)` in Triton IR text (a cache's `.source`, a `.ttir` or `.ttgir`).
/// Errors name `file` and the line of the header: no such function, an unbalanced list, a parameter without a type.
[[nodiscard]] inline Expected<std::vector<Param>> parse_signature(std::string_view ir, std::string_view name,
                                                                  const std::string& file) {
  std::size_t at = std::string_view::npos, open = 0;
  for (const std::string& head : {"tt.func public @" + std::string(name) + "(", "tt.func public @\"" + std::string(name) + "\"("}) {
    if (at = ir.find(head); at != std::string_view::npos) {
      open = at + head.size() - 1;
      break;
    }
  }
  if (at == std::string_view::npos)
    return fail(DiagCode::parse_error, "no `tt.func public @" + std::string(name) + "(...)`: not the Triton IR of kernel '" +
                                           std::string(name) + "'",
                Loc{file});
  const Loc loc{file, detail::line_of(ir, at), 0, {}};
  std::size_t close = 0;
  const auto parts = detail::split_params(ir, open, close);
  if (close == std::string_view::npos) return fail(DiagCode::parse_error, "the parameter list of @" + std::string(name) + " never closes", loc);
  std::vector<Param> params;
  if (parts.size() == 1 && detail::trimmed(parts[0]).empty()) return params;  // `()`
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const std::string p = detail::trimmed(parts[k]);
    const auto colon = p.find(':');
    if (p.empty() || p[0] != '%' || colon == std::string::npos)
      return fail(DiagCode::parse_error, "parameter " + std::to_string(k) + " of @" + std::string(name) + " is not `%name: type`", loc, p);
    Param q{detail::trimmed(std::string_view(p).substr(1, colon - 1)), detail::param_type(std::string_view(p).substr(colon + 1))};
    if (q.name.empty() || q.type.empty())
      return fail(DiagCode::parse_error, "parameter " + std::to_string(k) + " of @" + std::string(name) + " has no name or no type", loc, p);
    params.push_back(std::move(q));
  }
  return params;
}

namespace detail {

using Json = nlohmann::json;

/// Fills the kernel's facts from Triton's `<name>.json` (a cache entry).
inline Expected<void> read_metadata_json(const std::filesystem::path& file, Kernel& k) {
  auto text = read_file(file);
  if (!text) return unexpected(std::move(text).error());
  Json j;
  try {
    j = Json::parse(*text);
  } catch (const Json::parse_error& e) {
    return fail(DiagCode::parse_error, "Triton's kernel metadata is not valid JSON: " + std::string(e.what()), Loc{file.string()});
  }
  const auto missing = [&](const char* what) {
    return fail(DiagCode::parse_error, std::string("Triton's kernel metadata has no ") + what, Loc{file.string()}, {},
                "Triton writes `<name>.json` with \"name\", \"target\": {\"backend\", \"arch\", \"warp_size\"}, "
                "\"num_warps\" and \"shared\"");
  };
  if (!j.is_object()) return missing("object at the top level");
  const auto str = [](const Json& o, const char* key) -> const Json* {
    const auto it = o.find(key);
    return it != o.end() && it->is_string() ? &*it : nullptr;
  };
  const auto num = [](const Json& o, const char* key) -> const Json* {
    const auto it = o.find(key);
    return it != o.end() && it->is_number_unsigned() ? &*it : nullptr;
  };
  const auto t = j.find("target");
  if (t == j.end() || !t->is_object()) return missing("\"target\" object");
  if (!str(j, "name")) return missing("\"name\" string");
  if (!str(*t, "backend") || !t->contains("arch") || !((*t)["arch"].is_string() || (*t)["arch"].is_number_unsigned()))
    return missing("\"target\" backend and arch (a name or a compute capability)");
  if (!num(*t, "warp_size")) return missing("\"target\".\"warp_size\" count");
  if (!num(j, "num_warps")) return missing("\"num_warps\" count");
  if (!num(j, "shared")) return missing("\"shared\" byte count");
  // The file is `<name>.json`, and the kernel's other files are found by the name: a name that is not the file's
  // is a metadata file that does not describe the files beside it.
  if (const std::string name = j["name"].get<std::string>(); name != file.stem().string())
    return fail(DiagCode::parse_error, "Triton's kernel metadata names the kernel '" + name + "', not the file's '" + file.stem().string() + "'",
                Loc{file.string()});
  k.name = j["name"].get<std::string>();
  k.backend = (*t)["backend"].get<std::string>();
  // The arch is a string on AMD ("gfx942") and a compute capability number on NVIDIA (90).
  k.arch = (*t)["arch"].is_string() ? (*t)["arch"].get<std::string>() : (*t)["arch"].dump();
  k.warp_size = (*t)["warp_size"].get<std::uint64_t>();
  k.num_warps = j["num_warps"].get<std::uint64_t>();
  k.shared = j["shared"].get<std::uint64_t>();
  if (const Json* v = str(j, "triton_version")) k.triton_version = v->get<std::string>();
  k.from_metadata = true;
  return {};
}

/// Reads the kernel's entry in its `.hsaco`'s metadata note; without Triton's metadata (a dump), the target facts too.
inline Expected<void> read_code_object(const std::filesystem::path& file, Kernel& k) {
  auto elf = codeobject::ElfFile::read(file);
  if (!elf) return unexpected(std::move(elf).error());
  auto doc = codeobject::read_metadata(*elf);
  if (!doc) return unexpected(std::move(doc).error());
  auto metas = codeobject::kernels(*doc);
  if (!metas) return unexpected(std::move(metas).error());
  const codeobject::KernelMeta* km = nullptr;
  std::string held;
  for (const auto& m : *metas) {
    if (m.name == k.name) km = &m;
    held += (held.empty() ? "" : ", ") + m.name;
  }
  if (km == nullptr)
    return fail(DiagCode::object_error, "the code object holds no kernel '" + k.name + "' (it holds: " + held + ")",
                Loc{file.string()});
  k.symbol = km->name;
  k.hsaco = file;
  if (k.from_metadata) return {};
  k.backend = "hip";  // an AMDGPU code object is what Triton's HIP backend produces
  k.arch = elf->target_info().processor;
  k.warp_size = km->wavefront_size;
  // Triton's HIP backend sets amdgpu-flat-work-group-size to "1,num_warps*warp_size" (see the dump's .llir).
  k.num_warps = km->wavefront_size ? km->max_flat_workgroup_size / km->wavefront_size : 0;
  k.shared = km->group_segment_fixed_size;
  return {};
}

/// The stage files Triton writes for a kernel (the IR stages and the code object); a `<name>.json` with one of these
/// (or Triton's `__grp__<name>.json`) beside it is the kernel's metadata, any other `.json` is not Triton's.
inline constexpr std::string_view stage_extensions[] = {".source", ".ttir", ".ttgir", ".llir", ".amdgcn", ".hsaco"};

}  // namespace detail

/// One kernel of a hash folder: `has_metadata` says whether `<name>.json` is there (a cache) or not (a dump).
[[nodiscard]] inline Expected<Kernel> read_kernel(const std::filesystem::path& folder, const std::string& name, bool has_metadata) {
  namespace fs = std::filesystem;
  Kernel k;
  k.name = name;
  k.folder = folder;
  std::error_code ec;
  if (has_metadata) {
    if (auto r = detail::read_metadata_json(folder / (name + ".json"), k); !r) return unexpected(std::move(r).error());
  }
  const fs::path hsaco = folder / (k.name + ".hsaco");
  if (fs::exists(hsaco, ec)) {
    if (auto r = detail::read_code_object(hsaco, k); !r) return unexpected(std::move(r).error());
  } else if (!has_metadata) {
    return fail(DiagCode::io_error, "no " + k.name + ".hsaco and no Triton metadata (" + k.name + ".json): nothing says its target",
                Loc{(folder / (k.name + ".ttir")).string()});
  }
  for (const char* ext : {".source", ".ttir"}) {
    const fs::path ir = folder / (k.name + ext);
    if (!fs::exists(ir, ec)) continue;
    auto text = read_file(ir);
    if (!text) return unexpected(std::move(text).error());
    auto sig = parse_signature(*text, k.name, ir.string());
    if (!sig) return unexpected(std::move(sig).error());
    k.signature = std::move(*sig);
    break;
  }
  return k;
}

/// Every kernel under `dir`, a cache or a dump folder: each subfolder is a hash folder, and its kernels are the
/// `<name>.json` files that are Triton's metadata or, where there are none, the stems of its `.hsaco` and `.ttir`
/// files. Folders with neither (Triton's launcher builds) are passed over. Error: `dir` cannot be read.
[[nodiscard]] inline Expected<Listing> list_folder(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return fail(DiagCode::io_error, "cannot read '" + dir.string() + "': " + (ec ? ec.message() : std::string("not a folder")), Loc{dir.string()});
  std::vector<fs::path> folders;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (std::error_code e2; it->is_directory(e2)) folders.push_back(it->path());
  if (ec) return fail(DiagCode::io_error, "cannot list '" + dir.string() + "': " + ec.message(), Loc{dir.string()});
  std::sort(folders.begin(), folders.end());
  Listing out;
  for (const auto& folder : folders) {
    std::set<std::string> files;
    std::error_code fe;
    for (fs::directory_iterator it(folder, fe), end; !fe && it != end; it.increment(fe)) files.insert(it->path().filename().string());
    if (fe) {
      out.problems.push_back(make_diag(DiagCode::io_error, "cannot list the folder: " + fe.message(), Loc{folder.string()}));
      continue;
    }
    const auto has = [&](const std::string& f) { return files.count(f) != 0; };
    std::set<std::string> meta, dump;
    for (const auto& f : files) {
      const fs::path p(f);
      const std::string stem = p.stem().string();
      if (p.extension() == ".json" && !f.starts_with("__grp__")) {
        bool stage = has("__grp__" + f);
        for (auto ext : detail::stage_extensions) stage = stage || has(stem + std::string(ext));
        if (stage) meta.insert(stem);
      } else if (p.extension() == ".hsaco" || p.extension() == ".ttir") {
        dump.insert(stem);
      }
    }
    const bool cache = !meta.empty();
    for (const auto& name : cache ? meta : dump) {
      auto k = read_kernel(folder, name, cache);
      if (k) out.kernels.push_back(std::move(*k));
      else out.problems.push_back(std::move(k).error());
    }
  }
  return out;
}

}  // namespace asmevo::cli::triton
