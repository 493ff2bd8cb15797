// `asmevo optimize-dir`: `asmevo optimize` over every kernel of a capture folder (what `python -m asmevo_triton
// capture` writes: DIR/<HASH>/<kernel>.hsaco beside <kernel>.launch.json, an array of the captured launches, and
// Triton's stage files), one child process per kernel, and the improved kernels written as a Triton override tree
// (OUT/override/<HASH>/, the dump's hash folders and file names); `--merge` joins the outputs of several shards.
//
// OUT/work/<HASH>/<kernel>/ holds each kernel's search: its log (log/log.jsonl, so a killed run resumes where the
// search stopped), K1, the child's output (optimize.json, optimize.stderr), and result.json, written last and
// atomically when the kernel is done; a rerun skips every kernel that has one. A kernel's result depends only on K0,
// its launch file and the search's flags (the same --seed for every kernel, --jobs 1 in each child, no wall-clock
// limit unless --time), so a run split into shards and merged gives the bytes a single run gives.
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "asmevo/codeobject/link.hpp"
#include "asmevo/codeobject/module.hpp"
#include "asmevo/support/file.hpp"
#include "asmevo/support/process.hpp"
#include "asmevo/verify/code_object.hpp"
#include "cli.hpp"
#include "verbs.hpp"


namespace asmevo::cli {

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

/// JSON text of `j`; bytes that are not UTF-8 (a path, a child's stderr) become U+FFFD rather than an exception.
std::string json_text(const Json& j, int indent = -1) { return j.dump(indent, ' ', false, Json::error_handler_t::replace); }

constexpr std::string_view launch_suffix = ".launch.json";
constexpr std::string_view summary_format = "asmevo-optimize-dir";
/// The most shards --shard takes (nine digits) and a merge believes.
constexpr std::uint64_t max_shards = 999'999'999;

/// One kernel of the capture folder.
struct Capture {
  std::string hash, kernel;
  fs::path folder;             ///< DIR/<HASH>
  std::size_t launches = 0;    ///< shapes in its launch file (0 when it does not parse: the child says why)
  [[nodiscard]] fs::path hsaco() const { return folder / (kernel + ".hsaco"); }
  [[nodiscard]] fs::path launch() const { return folder / (kernel + std::string(launch_suffix)); }
};

/// The search's flags, validated, as they are passed on to every child.
struct Flags {
  std::string executor = "emu";
  std::vector<std::string> forwarded;  ///< --budget, --seed, --time as given
};

/// `p` made absolute and resolved (`..`, symbolic links of the part that exists), without a trailing separator.
fs::path resolved(const fs::path& p) {
  std::error_code ec;
  fs::path r = fs::weakly_canonical(fs::absolute(p, ec), ec);
  if (ec) r = fs::absolute(p).lexically_normal();
  if (!r.has_filename() && r.has_parent_path() && r != r.root_path()) r = r.parent_path();
  return r;
}

/// True when `inner` is `outer` or lies under it.
bool within(const fs::path& inner, const fs::path& outer) {
  const fs::path i = resolved(inner), o = resolved(outer);
  return std::mismatch(o.begin(), o.end(), i.begin(), i.end()).first == o.end();
}

/// A Triton dump hash as a folder name: base32 letters and digits only (A-Z, 2-7), so that no name read from a
/// capture folder or an output's result.json can reach outside the folder it names a part of.
bool is_hash_name(std::string_view s) {
  return !s.empty() && s.size() <= 128 &&
         std::all_of(s.begin(), s.end(), [](char c) { return (c >= 'A' && c <= 'Z') || (c >= '2' && c <= '7'); });
}

/// A kernel symbol as Triton names kernels (a Python identifier): the same reason.
bool is_kernel_name(std::string_view s) {
  const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  return !s.empty() && s.size() <= 512 && !std::isdigit(static_cast<unsigned char>(s.front())) &&
         std::all_of(s.begin(), s.end(), word);
}

/// The (hash, kernel) pairs capture.json lists as "ambiguous": another compiled variant of the kernel (other
/// num_warps or num_stages) has the same dump hash, so an override written for one would be loaded for both. A
/// capture.json that is there but cannot be read is an error (its list would be lost); none at all (a capture
/// killed before it wrote its manifest, or a folder made by hand) is a note.
Expected<std::set<std::pair<std::string, std::string>>> ambiguous_of(const fs::path& dir, std::vector<std::string>& notes) {
  std::set<std::pair<std::string, std::string>> out;
  const fs::path file = dir / "capture.json";
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    notes.push_back("no " + file.string() + ": no kernel is known to share its dump hash with another variant (a capture "
                    "writes the list when the program exits)");
    return out;
  }
  auto text = read_file(file);
  if (!text) return unexpected(std::move(text).error());
  const auto j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_object() || (j.contains("ambiguous") && !j["ambiguous"].is_array()))
    return fail(DiagCode::parse_error, "not a capture manifest: a JSON object whose \"ambiguous\" is a list", Loc{file.string()});
  if (!j.contains("ambiguous")) return out;
  for (const auto& a : j["ambiguous"]) {
    if (!(a.is_object() && a.contains("hash") && a["hash"].is_string() && a.contains("kernel") && a["kernel"].is_string()))
      return fail(DiagCode::parse_error, "an \"ambiguous\" entry without its \"hash\" and \"kernel\" strings", Loc{file.string()},
                  a.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    out.emplace(a["hash"].get<std::string>(), a["kernel"].get<std::string>());
  }
  return out;
}

/// Every `<HASH>/<kernel>.launch.json` of `dir` with `<kernel>.hsaco` beside it, sorted by (hash, kernel). A launch
/// file without its code object (the capture ran the kernel on another backend, without --amd-target) is left out
/// with a line in `notes`; a hash folder that cannot be listed goes to `problems`. Error: `dir` cannot be read.
Expected<std::vector<Capture>> find_captures(const fs::path& dir, std::vector<std::string>& notes, std::vector<Diag>& problems) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return fail(DiagCode::io_error, "no capture folder '" + dir.string() + "'" + (ec ? ": " + ec.message() : std::string()),
                Loc{dir.string()});
  std::vector<Capture> out;
  const auto ambiguous_or = ambiguous_of(dir, notes);
  if (!ambiguous_or) return unexpected(std::move(ambiguous_or).error());
  const auto& ambiguous = *ambiguous_or;
  for (fs::directory_iterator h(dir, ec), end; !ec && h != end; h.increment(ec)) {
    std::error_code le, ce;
    if (!h->is_directory(ce)) continue;
    for (fs::directory_iterator f(h->path(), le), fend; !le && f != fend; f.increment(le)) {
      const std::string name = f->path().filename().string();
      if (!name.ends_with(launch_suffix) || name.size() == launch_suffix.size()) continue;
      Capture c{h->path().filename().string(), name.substr(0, name.size() - launch_suffix.size()), h->path(), 0};
      if (!is_hash_name(c.hash) || !is_kernel_name(c.kernel)) {
        notes.push_back(f->path().string() + ": not a Triton dump hash folder and kernel name (A-Z2-7 / an identifier): left out");
        continue;
      }
      if (ambiguous.count({c.hash, c.kernel})) {
        notes.push_back(f->path().string() + ": capture.json lists it as ambiguous (another compiled variant has the same dump "
                        "hash, and Triton would load one override for both): left out");
        continue;
      }
      if (!fs::is_regular_file(c.hsaco(), ce)) {
        notes.push_back(f->path().string() + ": no " + c.kernel + ".hsaco beside it (captured without an AMD code object): left out");
        continue;
      }
      if (auto text = read_file(c.launch())) {
        const auto j = nlohmann::json::parse(*text, nullptr, false);
        c.launches = j.is_array() ? j.size() : j.is_object() ? 1 : 0;
      }
      out.push_back(std::move(c));
    }
    if (le) problems.push_back(make_diag(DiagCode::io_error, "cannot list the folder: " + le.message(), Loc{h->path().string()}));
  }
  if (ec) return fail(DiagCode::io_error, "cannot list '" + dir.string() + "': " + ec.message(), Loc{dir.string()});
  std::sort(out.begin(), out.end(), [](const Capture& x, const Capture& y) { return std::tie(x.hash, x.kernel) < std::tie(y.hash, y.kernel); });
  return out;
}

/// FNV-1a of a file's bytes, as 16 hex digits ("" when it cannot be read): enough to tell that a kernel's K0 or
/// launch file changed since its result was written (not a cryptographic hash).
void fnv1a(std::uint64_t& h, std::string_view bytes) {
  for (const char ch : bytes) h = (h ^ static_cast<unsigned char>(ch)) * 1099511628211ull;
}
std::string hex16(std::uint64_t h) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}
std::string fingerprint(const fs::path& p) {
  auto bytes = read_file(p);
  if (!bytes) return {};
  std::uint64_t h = 14695981039346656037ull;
  fnv1a(h, *bytes);
  return hex16(h);
}

/// The same over every file of a folder (names and bytes, in name order; "" when there is none): the data files a
/// launch file's inits name (`data/l<i>.arg<j>.bin`), which a new capture rewrites under an unchanged launch file.
std::string folder_fingerprint(const fs::path& dir) {
  std::error_code ec;
  std::vector<fs::path> files;
  for (fs::recursive_directory_iterator f(dir, ec), end; !ec && f != end; f.increment(ec))
    if (std::error_code fe; f->is_regular_file(fe)) files.push_back(f->path());
  if (files.empty()) return {};
  std::sort(files.begin(), files.end());
  std::uint64_t h = 14695981039346656037ull;
  for (const auto& f : files) {
    fnv1a(h, fs::relative(f, dir, ec).string());
    fnv1a(h, std::string_view("\0", 1));
    auto bytes = read_file(f);
    fnv1a(h, bytes ? std::string_view(*bytes) : std::string_view("\x01unreadable"));
  }
  return hex16(h);
}

/// What a kernel's result depends on: K0, its launch file and the data files beside it, the executor and the search's
/// flags. A rerun keeps a result only when these are the same.
Json inputs_of(const Capture& c, const Flags& flags) {
  std::string forwarded;
  for (const auto& f : flags.forwarded) forwarded += (forwarded.empty() ? "" : " ") + f;
  return Json{{"k0", fingerprint(c.hsaco())}, {"launch", fingerprint(c.launch())}, {"data", folder_fingerprint(c.folder / "data")},
              {"executor", flags.executor}, {"flags", forwarded}};
}

/// The last line of `text` that is not blank and, when `needle` is given, holds it ("" when there is none).
std::string last_line(std::string_view text, std::string_view needle = {}) {
  while (!text.empty()) {
    const auto nl = text.find_last_of("\r\n");
    const std::string_view line = nl == std::string_view::npos ? text : text.substr(nl + 1);
    if (line.find_first_not_of(" \t") != std::string_view::npos && line.find(needle) != std::string_view::npos)
      return std::string(line);
    if (nl == std::string_view::npos) break;
    text = text.substr(0, nl);
  }
  return {};
}

/// A result.json (or a summary row) with nothing known yet but the kernel.
Json blank_result(const Capture& c, const std::string& executor) {
  return Json{{"kernel", c.kernel},   {"hash", c.hash},         {"launches", c.launches}, {"executor", executor},
              {"status", "failed"},   {"cost_before", nullptr}, {"cost_after", nullptr},  {"speedup", nullptr},
              {"verified", false},    {"why_not", nullptr},     {"exit_code", nullptr},   {"stderr_last", nullptr},
              {"override", nullptr}};
}

/// True when `r` has what the summary reads of a result.json this tool wrote.
bool is_result(const Json& r) {
  const auto has = [&](const char* key, auto is) { return r.contains(key) && is(r[key]); };
  const auto str = [](const Json& v) { return v.is_string(); };
  const auto num_or_null = [](const Json& v) { return v.is_number() || v.is_null(); };
  const auto num = [](const Json& v) { return v.is_number(); };
  if (!(r.is_object() && has("kernel", str) && has("hash", str) && has("status", str) &&
        has("launches", [](const Json& v) { return v.is_number_unsigned(); }) &&
        has("verified", [](const Json& v) { return v.is_boolean(); }) &&
        has("why_not", [](const Json& v) { return v.is_string() || v.is_null(); }) && has("cost_before", num_or_null) &&
        has("cost_after", num_or_null) && has("speedup", num_or_null) && has("exit_code", num_or_null)))
    return false;
  const std::string status = r["status"].get<std::string>();
  if (status != "improved" && status != "unchanged" && status != "failed") return false;
  // What the summary table and the progress line read of an improved kernel, and what a rerun reads.
  if (status == "improved" && !(has("cost_before", num) && has("cost_after", num) && has("speedup", num))) return false;
  return !r.contains("failed_attempts") || r["failed_attempts"].is_number_unsigned();
}

/// Reads what a child that exited with `code` left in `work` (its --json output and its stderr).
Json result_of(const Capture& c, const std::string& executor, int code, const fs::path& work) {
  Json r = blank_result(c, executor);
  r["exit_code"] = code;
  const auto err = read_file(work / "optimize.stderr");
  const std::string_view err_text = err ? std::string_view(*err) : std::string_view();
  r["stderr_last"] = last_line(err_text);
  if (code != exit_ok && code != exit_negative) {
    // The message, not the hint lines under it (Diag::str's first line says "error:").
    std::string why = last_line(err_text, "error:");
    r["why_not"] = "optimize failed (exit " + std::to_string(code) + "): " + (why.empty() ? r["stderr_last"].get<std::string>() : why);
    return r;
  }
  auto text = read_file(work / "optimize.json");
  const auto j = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json(nlohmann::json::value_t::discarded);
  const bool modeled = executor == "emu";
  const char* before = modeled ? "modeled_cycles_before" : "measured_us_before";
  const char* after = modeled ? "modeled_cycles_after" : "measured_us_after";
  const auto number = [&](const char* key) { return j.contains(key) && j[key].is_number(); };
  if (!j.is_object() || !number(before) || !number(after) || !number("speedup") || !j.contains("verified") || !j["verified"].is_boolean()) {
    r["why_not"] = "optimize's --json output (" + (work / "optimize.json").string() + ") could not be read";
    return r;
  }
  r["cost_before"] = j[before].get<double>();
  r["cost_after"] = j[after].get<double>();
  r["speedup"] = j["speedup"].get<double>();
  r["verified"] = j["verified"].get<bool>();
  r["status"] = code == exit_ok && r["verified"].get<bool>() ? "improved" : "unchanged";
  if (r["status"] == "unchanged")
    r["why_not"] = j.contains("why_not") && j["why_not"].is_string() ? j["why_not"].get<std::string>()
                                                                      : std::string("no verified candidate was faster than K0");
  // Attempts that failed (a rebuild or a run that could not be done: a tool's failure, not the candidate's) make a
  // rerun optimize the kernel again rather than keep this result.
  if (j.contains("outcomes") && j["outcomes"].is_object() && j["outcomes"].contains("failed") && j["outcomes"]["failed"].is_number_unsigned())
    r["failed_attempts"] = j["outcomes"]["failed"];
  return r;
}

/// Writes the kernel's override folder (`dest` = OUT/override/<HASH>): K1, its disassembly (what `asmevo disasm`
/// prints), and every other stage file `<kernel>.<ext>` of the capture's hash folder, so that the folder reads as
/// Triton's dump of the kernel.
Expected<void> write_override(const Capture& c, const fs::path& k1, const fs::path& dest) {
  auto bytes = read_file(k1);
  if (!bytes) return unexpected(std::move(bytes).error());
  // Named as it sits in the override folder, which its disassembly's header names: the same bytes whichever OUT (or
  // shard's OUT) the search ran in.
  auto co = verify::code_object_from_bytes(std::vector<std::uint8_t>(bytes->begin(), bytes->end()), c.kernel + ".hsaco");
  if (!co) {
    Diag d = std::move(co).error();
    d.loc.file = k1.string();
    return unexpected(std::move(d));
  }
  std::error_code ec;
  fs::create_directories(dest, ec);
  if (ec) return fail(DiagCode::io_error, "cannot create the folder: " + ec.message(), Loc{dest.string()});
  if (auto w = write_file_atomic(dest / (c.kernel + ".hsaco"), *bytes); !w) return w;
  if (auto w = write_file_atomic(dest / (c.kernel + ".amdgcn"), codeobject::print_module(co->module)); !w) return w;
  // The code object and its assembly are K1's; the capture's own files (launch, capture notes, data) are not stages.
  for (fs::directory_iterator f(c.folder, ec), end; !ec && f != end; f.increment(ec)) {
    const std::string name = f->path().filename().string();
    const std::string ext = f->path().extension().string();
    std::error_code fe;
    if (!name.starts_with(c.kernel + ".") || !f->is_regular_file(fe) || ext == ".hsaco" || ext == ".amdgcn" || ext == ".json" ||
        ext == ".bin")
      continue;
    auto text = read_file(f->path());
    if (!text) return unexpected(std::move(text).error());
    if (auto w = write_file_atomic(dest / name, *text); !w) return w;
  }
  if (ec) return fail(DiagCode::io_error, "cannot list the folder: " + ec.message(), Loc{c.folder.string()});
  return {};
}

/// The signal that asked this process to stop (SIGINT, SIGTERM, SIGHUP), 0 while none has.
volatile std::sig_atomic_t stop_signal = 0;
void on_stop(int sig) { stop_signal = sig; }

/// While alive, SIGINT, SIGTERM and SIGHUP interrupt waitpid and are passed on to the children (so that none is left
/// writing its log when a rerun resumes it).
struct StopSignals {
  struct sigaction old[3]{};
  static constexpr int sigs[3] = {SIGINT, SIGTERM, SIGHUP};
  StopSignals() {
    struct sigaction sa{};
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;  // no SA_RESTART: waitpid returns EINTR
    for (int i = 0; i < 3; ++i) sigaction(sigs[i], &sa, &old[i]);
  }
  ~StopSignals() {
    for (int i = 0; i < 3; ++i) sigaction(sigs[i], &old[i], nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
};

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

/// One word on a finished kernel, for the progress line.
std::string outcome_text(const Json& r) {
  if (r["status"] == "improved") return fixed(r["speedup"].get<double>(), 3) + "x, verified";
  if (r["status"] == "unchanged")
    return "no gain" + (r.value("failed_attempts", 0u) ? "; " + std::to_string(r.value("failed_attempts", 0u)) + " attempt(s) failed" : std::string());
  return "failed: " + (r["why_not"].is_string() ? r["why_not"].get<std::string>() : std::string("?"));
}

/// The progress line: rewritten in place on a terminal, one line per finished kernel otherwise.
void progress(const Json& r, const std::string& what, std::size_t done, std::size_t total, std::size_t running, bool tty) {
  const std::string line = "optimize-dir: [" + std::to_string(done) + "/" + std::to_string(total) + "] " +
                           r["kernel"].get<std::string>() + " " + r["hash"].get<std::string>().substr(0, 8) + ": " + what;
  if (tty) std::cerr << "\r" << line << (running ? " (" + std::to_string(running) + " running)" : std::string()) << "\x1b[K" << std::flush;
  else std::cerr << line << "\n";
}

/// A result.json's row of the summary (what does not depend on the run: no stderr, no executor).
Json summary_row(Json r) {
  r.erase("executor");
  r.erase("stderr_last");
  return r;
}

/// summary.json: the rows (sorted by hash, then kernel) and their counts.
Json summary_json(const Json& dir, const std::string& executor, const Json& shard, const std::vector<Json>& rows) {
  Json s{{"format", summary_format}, {"version", 1}, {"dir", dir}, {"executor", executor}, {"modeled", executor == "emu"},
         {"unit", executor == "emu" ? "modeled cycles" : "us (measured median)"}, {"shard", shard}};
  std::size_t improved = 0, failed = 0;
  Json ks = Json::array();
  for (const auto& r : rows) {
    improved += r["status"] == "improved";
    failed += r["status"] == "failed";
    ks.push_back(summary_row(r));
  }
  s["kernels"] = std::move(ks);
  s["counts"] = {{"kernels", rows.size()}, {"improved", improved}, {"unchanged", rows.size() - improved - failed}, {"failed", failed}};
  return s;
}

/// Prints the summary (the table, or its JSON) and returns the exit code it means: 2 when a kernel failed (3 when a
/// child met an internal error), else 0 when one improved, else 1.
int finish(const Json& summary, const fs::path& out, bool json, std::string_view scope) {
  int rc = summary["counts"]["improved"].get<std::size_t>() ? exit_ok : exit_negative;
  for (const auto& r : summary["kernels"])
    if (r["status"] == "failed")
      rc = std::max(rc == exit_negative ? exit_ok : rc, r["exit_code"] == exit_internal ? exit_internal : exit_bad_input);
  if (json) {
    std::cout << json_text(summary, 2) << "\n";
    return rc;
  }
  const std::string unit = summary["unit"].get<std::string>();
  const int digits = summary["modeled"].get<bool>() ? 0 : 2;
  std::vector<std::vector<std::string>> rows{{"kernel", "hash", "launches", "K0 -> K1 (" + unit + ")", "speedup", "verified", "why not"}};
  for (const auto& r : summary["kernels"]) {
    const bool timed = r["cost_before"].is_number();
    rows.push_back({r["kernel"].get<std::string>(), r["hash"].get<std::string>().substr(0, 8), std::to_string(r["launches"].get<std::size_t>()),
                    timed ? fixed(r["cost_before"].get<double>(), digits) + " -> " + fixed(r["cost_after"].get<double>(), digits) : "-",
                    timed ? fixed(r["speedup"].get<double>(), 3) + "x" : "-", r["verified"].get<bool>() ? "yes" : "no",
                    r["why_not"].is_string() ? r["why_not"].get<std::string>() : ""});
  }
  print_table(std::cout, rows);
  const auto& n = summary["counts"];
  std::cout << "optimize-dir: " << n["kernels"] << " kernel(s)" << scope << ": " << n["improved"] << " improved, " << n["unchanged"]
            << " unchanged, " << n["failed"] << " failed; override tree " << (out / "override").string() << ", summary "
            << (out / "summary.json").string() << "\n";
  return rc;
}

int merge(Args& a) {
  for (const char* flag : {"--executor", "--jobs", "--budget", "--seed", "--time", "--shard", "--resume"})
    if (a.opt.count(flag)) return usage_error(std::string("optimize-dir --merge takes only OUT folders, -o OUT and --json; not ") + flag);
  if (a.pos.empty()) return usage_error("optimize-dir --merge needs the outputs to join: --merge OUT1 OUT2 ... -o OUT");
  if (!a.opt.count("-o")) return usage_error("optimize-dir --merge needs -o OUT");
  const fs::path out = a.opt["-o"];
  for (const auto& in : a.pos)
    if (resolved(in) == resolved(out)) return usage_error("-o '" + out.string() + "' is one of the outputs to merge");
  std::error_code ec;
  if (fs::exists(out, ec) && !fs::is_empty(out, ec))
    return usage_error("-o '" + out.string() + "' is not empty; --merge writes a new folder");

  struct Entry {
    Json result;
    fs::path from;                 ///< the output it comes from
    std::optional<std::string> k1; ///< its K1's bytes (none: not improved)
  };
  std::map<std::pair<std::string, std::string>, Entry> entries;  // by (hash, kernel): the summary's order
  std::optional<std::pair<std::string, fs::path>> executor;  // the executor that timed the kernels, and who said so
  std::optional<Json> dir;
  std::optional<std::pair<Json, fs::path>> flags;  // the search flags the results were made with, and where seen
  bool whole_run = false;                             // an input ran every kernel (no --shard)
  std::map<std::size_t, std::set<std::size_t>> shards;  // shard count -> the indexes given
  for (const fs::path in : a.pos) {
    const fs::path sp = in / "summary.json";
    auto text = read_file(sp);
    const auto s = text ? Json::parse(*text, nullptr, false) : Json(Json::value_t::discarded);
    if (!s.is_object() || !s.contains("format") || s["format"] != summary_format || !s.contains("executor") || !s["executor"].is_string())
      return report(make_diag(DiagCode::usage, "not an optimize-dir output: no summary.json with \"format\": \"" + std::string(summary_format) + "\"",
                              Loc{in.string()}));
    const std::string ex = s["executor"].get<std::string>();
    if (executor && executor->first != ex)
      return report(make_diag(DiagCode::usage, "its kernels were timed by " + ex + " and those of " + executor->second.string() + " by " +
                                                   executor->first + ": their costs cannot share one summary", Loc{in.string()}));
    executor = {ex, in};
    const Json sh = s.contains("shard") ? s["shard"] : Json();
    if (sh.is_object() && sh.contains("index") && sh["index"].is_number_unsigned() && sh.contains("count") &&
        sh["count"].is_number_unsigned()) {
      const auto index = sh["index"].get<std::uint64_t>(), count = sh["count"].get<std::uint64_t>();
      if (index >= count || count > max_shards)
        return report(make_diag(DiagCode::parse_error, "its \"shard\" is not I/N with 0 <= I < N <= " + std::to_string(max_shards),
                                Loc{sp.string()}, json_text(sh)));
      shards[count].insert(index);
    } else if (sh.is_null()) {
      whole_run = true;
    } else {
      return report(make_diag(DiagCode::parse_error, "its \"shard\" is neither null nor {\"index\": I, \"count\": N}", Loc{sp.string()}));
    }
    // Outputs of one capture folder only: the summary of another folder's kernels is not this one's.
    const Json sdir = s.contains("dir") ? s["dir"] : Json();
    if (dir && *dir != sdir)
      return report(make_diag(DiagCode::usage, "it optimized the capture folder " + json_text(sdir) + ", and " + a.pos.front() +
                                                   " optimized " + json_text(*dir) + ": outputs of different folders do not merge",
                              Loc{in.string()}));
    dir = sdir;
    std::vector<fs::path> results;
    for (fs::recursive_directory_iterator it(in / "work", ec), end; !ec && it != end; it.increment(ec))
      if (it->path().filename() == "result.json" && it.depth() == 2) results.push_back(it->path());
    if (ec && fs::exists(in / "work")) return report(make_diag(DiagCode::io_error, "cannot list: " + ec.message(), Loc{(in / "work").string()}));
    ec.clear();
    for (const auto& rp : results) {
      auto rt = read_file(rp);
      if (!rt) return report(rt.error());
      Json r = Json::parse(*rt, nullptr, false);
      if (!is_result(r)) return report(make_diag(DiagCode::parse_error, "not a result optimize-dir wrote", Loc{rp.string()}));
      const std::string hash = r["hash"].get<std::string>(), kernel = r["kernel"].get<std::string>();
      // The names come from the file: they must be the folders it was found in (work/<hash>/<kernel>/), so that
      // the paths built from them stay inside the outputs.
      if (!is_hash_name(hash) || !is_kernel_name(kernel) || rp.parent_path().filename() != kernel ||
          rp.parent_path().parent_path().filename() != hash)
        return report(make_diag(DiagCode::parse_error, "its hash and kernel are not the folders it lies in (work/<hash>/<kernel>/)",
                                Loc{rp.string()}));
      // One search: the same flags in every output (the merge promises a single run's bytes).
      const Json rflags = r.contains("inputs") && r["inputs"].is_object() && r["inputs"].contains("flags") ? r["inputs"]["flags"] : Json();
      if (flags && flags->first != rflags)
        return report(make_diag(DiagCode::usage, "made with the search flags " + json_text(rflags) + ", and " + flags->second.string() +
                                                     " with " + json_text(flags->first) + ": results of different searches do not merge",
                                Loc{rp.string()}));
      if (!flags) flags = {rflags, rp};
      Entry e{r, in, std::nullopt};
      if (r["status"] == "improved") {
        auto k1 = read_file(in / "override" / hash / (kernel + ".hsaco"));
        if (!k1) return report(k1.error());
        e.k1 = std::move(*k1);
      }
      const auto [at, fresh] = entries.try_emplace({hash, kernel}, std::move(e));
      if (!fresh && at->second.k1 != e.k1) {
        const auto k1_of = [&](const Entry& x) {
          return x.k1 ? (x.from / "override" / hash / (kernel + ".hsaco")).string() : x.from.string() + " (no K1: " + x.result["status"].get<std::string>() + ")";
        };
        return report(make_diag(DiagCode::usage, "kernel " + kernel + " (" + hash + ") has different K1 bytes in two outputs: " +
                                                     k1_of(at->second) + " and " + k1_of(e), Loc{rp.string()}));
      }
    }
  }
  // Shards join to the whole only when every one of them is there (a run without --shard covers them all).
  if (!whole_run) {
    if (shards.size() > 1)
      return usage_error("the outputs are shards of different counts (" + std::to_string(shards.begin()->first) + " and " +
                         std::to_string(std::prev(shards.end())->first) + "): they do not split one list of kernels");
    const auto& [count, given] = *shards.begin();
    std::string missing;
    std::size_t listed = 0;
    for (std::size_t i = 0; i < count && listed <= 16; ++i)
      if (!given.count(i))
        missing += (missing.empty() ? "" : ", ") + (++listed > 16 ? std::string("…") : std::to_string(i) + "/" + std::to_string(count));
    if (!missing.empty())
      return usage_error("shard(s) " + missing + " missing: the merged summary would leave their kernels out");
  }
  std::vector<Json> rows;
  for (const auto& [key, e] : entries) {
    const auto& [hash, kernel] = key;
    const fs::path work = out / "work" / hash / kernel;
    fs::create_directories(work, ec);
    if (ec) return report(make_diag(DiagCode::io_error, "cannot create the folder: " + ec.message(), Loc{work.string()}));
    if (e.k1) {
      const fs::path from = e.from / "override" / hash, to = out / "override" / hash;
      fs::create_directories(to, ec);
      for (fs::directory_iterator f(from, ec), end; !ec && f != end; f.increment(ec)) {
        if (!f->path().filename().string().starts_with(kernel + ".")) continue;
        auto bytes = read_file(f->path());
        if (!bytes) return report(bytes.error());
        if (auto w = write_file_atomic(to / f->path().filename(), *bytes); !w) return report(w.error());
      }
      if (ec) return report(make_diag(DiagCode::io_error, "cannot copy the override files: " + ec.message(), Loc{from.string()}));
    }
    if (auto w = write_file_atomic(work / "result.json", json_text(e.result, 2) + "\n"); !w) return report(w.error());
    rows.push_back(e.result);
  }
  Json summary = summary_json(dir.value_or(Json()), executor ? executor->first : std::string("emu"), nullptr, rows);
  Json from = Json::array();
  for (const auto& in : a.pos) from.push_back(in);
  summary["merged_from"] = std::move(from);
  if (auto w = write_file_atomic(out / "summary.json", json_text(summary, 2) + "\n"); !w) return report(w.error());
  return finish(summary, out, a.opt.count("--json") != 0, " merged from " + std::to_string(a.pos.size()) + " outputs");
}

}  // namespace

int cmd_optimize_dir(int argc, char** argv) {
  auto a = parse_args(argc, argv, {"-o", "--executor", "--jobs", "--budget", "--seed", "--time", "--shard"},
                      {"--merge", "--resume", "--json"});
  if (!a.errors.empty()) return usage_error(a.errors.front());
  if (a.opt.count("--merge")) return merge(a);
  if (a.pos.size() != 1)
    return usage_error("optimize-dir takes one capture folder: asmevo optimize-dir DIR -o OUT [--executor emu|hip] [--jobs N] "
                       "[--budget N] [--seed S] [--time SEC] [--shard I/N] [--json]");
  if (!a.opt.count("-o")) return usage_error("optimize-dir needs -o OUT (the override tree and the work go there)");
  const fs::path dir = a.pos[0], out = a.opt["-o"];
  if (within(out, dir)) return usage_error("-o '" + out.string() + "' is inside the capture folder '" + dir.string() + "'; optimize-dir never writes there");
  // The other way round, OUT's own clean-up of stale overrides and work folders would delete the capture's files.
  if (within(dir, out))
    return usage_error("the capture folder '" + dir.string() + "' is inside -o '" + out.string() + "'; give an OUT outside it");
  int rc = 0;
  Flags flags;
  if (auto e = a.opt.find("--executor"); e != a.opt.end()) flags.executor = e->second;
  if (flags.executor != "emu" && flags.executor != "hip") return usage_error("--executor takes emu or hip; got '" + flags.executor + "'");
  // Kernels at once: every core on the emulator; one on a GPU, where searches side by side would disturb each
  // other's timings.
  const auto jobs = number_opt(a, "--jobs", flags.executor == "hip" ? 1u : std::max(1u, std::thread::hardware_concurrency()), 1, 256, rc);
  if (!jobs) return rc;
  for (const char* flag : {"--budget", "--seed"}) {
    if (!a.opt.count(flag)) continue;
    const auto v = number_opt(a, flag, 0, 0, flag == std::string_view("--budget") ? std::uint64_t{1} << 24 : ~std::uint64_t{0}, rc);
    if (!v) return rc;
    flags.forwarded.insert(flags.forwarded.end(), {flag, std::to_string(*v)});
  }
  if (a.opt.count("--time")) {
    char* end = nullptr;
    const double v = std::strtod(a.opt["--time"].c_str(), &end);
    if (!end || *end || !(v > 0)) return usage_error("--time takes a positive number of seconds; got '" + a.opt["--time"] + "'");
    flags.forwarded.insert(flags.forwarded.end(), {"--time", a.opt["--time"]});
  }
  std::size_t shard = 0, shards = 1;
  if (a.opt.count("--shard")) {
    const std::string& s = a.opt["--shard"];
    const auto slash = s.find('/');
    const auto digits = [](std::string_view t) { return !t.empty() && t.size() < 10 && t.find_first_not_of("0123456789") == std::string_view::npos; };
    if (slash == std::string::npos || !digits(std::string_view(s).substr(0, slash)) || !digits(std::string_view(s).substr(slash + 1)) ||
        (shard = std::stoul(s.substr(0, slash))) >= (shards = std::stoul(s.substr(slash + 1))))
      return usage_error("--shard takes I/N with 0 <= I < N (this process takes the kernels whose index is I mod N); got '" + s + "'");
  }

  std::vector<std::string> notes;
  std::vector<Diag> problems;
  auto all = find_captures(dir, notes, problems);
  if (!all) return report(all.error());
  for (const auto& n : notes) std::cerr << "asmevo: note: " << n << "\n";
  for (const auto& d : problems) std::cerr << d.str() << "\n";
  if (all->empty())
    return usage_error("'" + dir.string() + "' holds no kernel to optimize: no <HASH>/<kernel>.launch.json beside a <kernel>.hsaco "
                       "(is it a capture folder?)");
  std::vector<Capture> mine;
  for (std::size_t i = 0; i < all->size(); ++i)
    if (i % shards == shard) mine.push_back((*all)[i]);

  // Every child's search links its candidates with ld.lld: without one, say so once (before OUT is made) rather than
  // in every kernel's row.
  if (auto lld = codeobject::find_lld(); !lld) return report(lld.error());

  std::error_code ec;
  fs::create_directories(out / "work", ec);
  if (ec) return report(make_diag(DiagCode::io_error, "cannot create the folder: " + ec.message(), Loc{(out / "work").string()}));
  // One run at a time per OUT: two would resume the same logs and write the same results. The lock is inherited by
  // the children (no close-on-exec), so that children left running by a killed run still hold it.
  const int lock_fd = ::open((out / ".lock").c_str(), O_RDWR | O_CREAT, 0644);
  if (lock_fd < 0 || ::flock(lock_fd, LOCK_EX | LOCK_NB) != 0)
    return usage_error("'" + out.string() + "' is in use by another optimize-dir run (or by optimize children a killed run " +
                       "left behind): " + (lock_fd < 0 ? std::string(std::strerror(errno)) : "its .lock is held"));
  // This very executable, even when a rebuild has replaced the file since it started.
  const std::string exe = "/proc/self/exe";

  const bool tty = ::isatty(2) != 0;
  std::vector<Json> rows(mine.size());
  std::vector<std::size_t> todo;
  std::size_t done = 0;
  const auto work_of = [&](const Capture& c) { return out / "work" / c.hash / c.kernel; };
  for (std::size_t i = 0; i < mine.size(); ++i) {
    const fs::path rp = work_of(mine[i]) / "result.json";
    if (!fs::exists(rp, ec)) {
      todo.push_back(i);
      continue;
    }
    auto text = read_file(rp);
    Json r = text ? Json::parse(*text, nullptr, false) : Json(Json::value_t::discarded);
    if (!is_result(r)) {
      std::cerr << "asmevo: " << rp.string() << ": not a result this tool wrote; optimizing the kernel again\n";
      todo.push_back(i);
      continue;
    }
    if (!r.contains("inputs") || r["inputs"] != inputs_of(mine[i], flags)) {
      // K0, the launch file, the executor or the flags changed: the result, its log and its override are stale.
      std::cerr << "asmevo: " << rp.string() << ": written for another K0, launch file, data, executor or flags; optimizing the "
                << "kernel again\n";
      fs::remove_all(work_of(mine[i]), ec);
      ec.clear();
      todo.push_back(i);
      continue;
    }
    if (r["status"] == "failed" || r.value("failed_attempts", 0u) != 0) {
      // What failed was a tool's doing (a linker, a child, a run) and may be mended since: try the kernel again, from
      // the start (its log would replay the same failures).
      std::cerr << "asmevo: " << rp.string() << ": " << (r["status"] == "failed" ? "the kernel failed" : "some attempts failed")
                << " in the earlier run (" << (r["why_not"].is_string() ? r["why_not"].get<std::string>() : std::string("?"))
                << "); optimizing the kernel again\n";
      fs::remove_all(work_of(mine[i]), ec);
      ec.clear();
      todo.push_back(i);
      continue;
    }
    rows[i] = std::move(r);
    progress(rows[i], "skipped (done in an earlier run: " + outcome_text(rows[i]) + ")", ++done, mine.size(), 0, tty);
  }

  // Up to --jobs children at once; each kernel's outcome is settled when its child exits.
  const auto start = [&](std::size_t i) -> Expected<pid_t> {
    const Capture& c = mine[i];
    const fs::path work = work_of(c);
    fs::create_directories(work, ec);
    if (ec) return fail(DiagCode::io_error, "cannot create the folder: " + ec.message(), Loc{work.string()});
    // A log without a whole header line (killed as it started) holds nothing to resume.
    const fs::path log = work / "log" / "log.jsonl";
    auto head = fs::exists(log, ec) ? read_file(log) : Expected<std::string>(std::string());
    const bool resume = head && head->find('\n') != std::string::npos;
    if (!resume) fs::remove(log, ec);
    std::vector<std::string> argv{exe, "optimize", c.hsaco().string(), "--launch", c.launch().string(), "-o", (work / "k1.hsaco").string(),
                                  resume ? "--resume" : "--log", (work / "log").string(), "--jobs", "1", "--executor", flags.executor, "--json"};
    argv.insert(argv.end(), flags.forwarded.begin(), flags.forwarded.end());
    return spawn_redirected(argv, work / "optimize.json", work / "optimize.stderr");
  };
  const auto settle = [&](std::size_t i, int status) {
    const Capture& c = mine[i];
    const fs::path work = work_of(c);
    // An override of an earlier run of this kernel goes first, every file of it (a kernel that no longer improves
    // gets no override folder at all, so Triton compiles it as before): what is written below is this run's.
    const fs::path old = out / "override" / c.hash;
    std::vector<fs::path> stale;
    for (fs::directory_iterator f(old, ec), end; !ec && f != end; f.increment(ec))
      if (f->path().filename().string().starts_with(c.kernel + ".")) stale.push_back(f->path());
    for (const auto& p : stale) fs::remove(p, ec);
    if (fs::is_empty(old, ec)) fs::remove(old, ec);
    ec.clear();
    if (!WIFEXITED(status)) {  // killed: nothing settled, a rerun resumes its log
      rows[i] = blank_result(c, flags.executor);
      rows[i]["why_not"] = "optimize was killed by signal " + std::to_string(WTERMSIG(status)) + "; rerun to resume it";
      return;
    }
    rows[i] = result_of(c, flags.executor, WEXITSTATUS(status), work);
    rows[i]["inputs"] = inputs_of(c, flags);
    if (rows[i]["status"] == "improved") {
      if (auto w = write_override(c, work / "k1.hsaco", out / "override" / c.hash); !w) {
        rows[i]["status"] = "failed";
        rows[i]["why_not"] = "cannot write the override: " + w.error().str();
        return;  // not settled: a rerun writes it again
      }
      rows[i]["override"] = (fs::path("override") / c.hash / (c.kernel + ".hsaco")).string();
    }
    if (auto w = write_file_atomic(work / "result.json", json_text(rows[i], 2) + "\n"); !w) {
      rows[i]["status"] = "failed";
      rows[i]["why_not"] = "cannot write the result: " + w.error().str();
    }
  };
  {
    const StopSignals guard;
    std::map<pid_t, std::size_t> running;
    std::size_t next = 0;
    while (!stop_signal && (next < todo.size() || !running.empty())) {
      while (!stop_signal && running.size() < *jobs && next < todo.size()) {
        const std::size_t i = todo[next++];
        if (auto pid = start(i)) {
          running[*pid] = i;
        } else {
          rows[i] = blank_result(mine[i], flags.executor);
          rows[i]["why_not"] = pid.error().str();
          progress(rows[i], outcome_text(rows[i]), ++done, mine.size(), running.size(), tty);
        }
      }
      if (running.empty()) continue;
      int status = 0;
      const pid_t p = ::waitpid(-1, &status, 0);
      if (p < 0) {
        if (errno == EINTR) continue;
        return report(make_diag(DiagCode::internal, std::string("waitpid: ") + std::strerror(errno)));
      }
      const auto it = running.find(p);
      if (it == running.end()) continue;
      const std::size_t i = it->second;
      running.erase(it);
      settle(i, status);
      progress(rows[i], outcome_text(rows[i]), ++done, mine.size(), running.size(), tty);
    }
    if (const int sig = stop_signal) {
      for (const auto& [pid, i] : running) ::kill(pid, SIGTERM);
      for (const auto& [pid, i] : running) ::waitpid(pid, nullptr, 0);
      std::cerr << (tty ? "\n" : "") << "optimize-dir: stopped by signal " << sig << "; run the same command again to resume\n";
      std::signal(sig, SIG_DFL);
      std::raise(sig);
      return exit_internal;
    }
  }
  if (tty && done) std::cerr << "\n";

  const Json shard_json = a.opt.count("--shard") ? Json{{"index", shard}, {"count", shards}} : Json();
  const Json summary = summary_json(resolved(dir).string(), flags.executor, shard_json, rows);
  if (auto w = write_file_atomic(out / "summary.json", json_text(summary, 2) + "\n"); !w) return report(w.error());
  const std::string scope = a.opt.count("--shard") ? " (shard " + std::to_string(shard) + "/" + std::to_string(shards) + ", " +
                                                         std::to_string(mine.size()) + " of " + std::to_string(all->size()) + ")"
                                                   : std::string();
  const int code = finish(summary, out, a.opt.count("--json") != 0, scope);
  return problems.empty() ? code : std::max(code == exit_negative ? exit_ok : code, exit_bad_input);
}

}  // namespace asmevo::cli
