// Links a relocatable AMDGPU object into a loadable code object (a shared ELF) with LLVM's ld.lld.
//
// The linker is located at run time, never hard-coded: $ASMEVO_LLD if set, else `ld.lld-22` or `ld.lld` on
// PATH, else LLVM 22's own bin folder as Debian installs it. Arguments are the ones clang-22's AMDGPU
// toolchain passes for a device link (`clang -###` shows them): -m elf64_amdgpu --no-undefined -shared.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "asmevo/support/diag.hpp"
#include "asmevo/support/file.hpp"
#include "asmevo/support/process.hpp"

namespace asmevo::codeobject {

namespace detail {

/// An executable file named `name` in one of the PATH folders, or empty.
[[nodiscard]] inline std::filesystem::path find_on_path(std::string_view name) {
  const char* path = std::getenv("PATH");
  std::string_view rest = path ? path : "";
  while (!rest.empty()) {
    const auto colon = rest.find(':');
    const std::string_view dir = rest.substr(0, colon);
    rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
    if (dir.empty()) continue;
    std::filesystem::path p = std::filesystem::path(dir) / name;
    if (::access(p.c_str(), X_OK) == 0) return p;
  }
  return {};
}

/// A private temporary folder, removed when this goes out of scope.
class TempDir {
 public:
  [[nodiscard]] static Expected<TempDir> create() {
    std::error_code ec;
    std::filesystem::path base = std::filesystem::temp_directory_path(ec);
    if (ec) base = "/tmp";
    std::string pattern = (base / "asmevo-link-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
      return fail(DiagCode::io_error, "cannot create a temporary folder: " + std::string(std::strerror(errno)), {}, pattern);
    return TempDir(pattern);
  }
  TempDir(TempDir&& o) noexcept : path_(std::move(o.path_)) { o.path_.clear(); }
  TempDir& operator=(TempDir&&) = delete;
  TempDir(const TempDir&) = delete;
  ~TempDir() {
    if (path_.empty()) return;
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }

 private:
  explicit TempDir(std::filesystem::path p) : path_(std::move(p)) {}
  std::filesystem::path path_;
};

/// Runs `argv` with stdout and stderr sent to `log`; returns the exit status (or a Diag if it could not run).
[[nodiscard]] inline Expected<int> run_logged(const std::vector<std::string>& argv, const std::filesystem::path& log) {
  auto pid = spawn_redirected(argv, log, {}, 0600);
  if (!pid) return unexpected(std::move(pid).error());
  return wait_exit_code(*pid);
}

}  // namespace detail

/// The ld.lld to use: $ASMEVO_LLD, else ld.lld-22 / ld.lld on PATH, else /usr/lib/llvm-22/bin/ld.lld.
[[nodiscard]] inline Expected<std::filesystem::path> find_lld() {
  if (const char* e = std::getenv("ASMEVO_LLD"); e && *e) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(e, ec) && ::access(e, X_OK) == 0) return std::filesystem::path(e);
    return fail(DiagCode::usage, "ASMEVO_LLD names a file that is not executable", {}, e);
  }
  for (const char* name : {"ld.lld-22", "ld.lld"})
    if (auto p = detail::find_on_path(name); !p.empty()) return p;
  // Debian's llvm-22 package keeps the unversioned tools here; not on PATH by default.
  if (::access("/usr/lib/llvm-22/bin/ld.lld", X_OK) == 0) return std::filesystem::path("/usr/lib/llvm-22/bin/ld.lld");
  return fail(DiagCode::usage, "cannot find ld.lld (LLVM's linker) to link the rebuilt code object", {}, {},
              "install lld-22 (scripts/install-deps.sh does), or set ASMEVO_LLD to an ld.lld (a ROCm install has one "
              "in /opt/rocm/llvm/bin)");
}

/// Links one relocatable object (the bytes `llvm-mc -filetype=obj` or mc::Context::assemble_object make)
/// into a shared code object and returns its bytes. Nothing is written outside a private temporary folder.
[[nodiscard]] inline Expected<std::vector<std::uint8_t>> link_shared(std::span<const std::uint8_t> object) {
  auto lld = find_lld();
  if (!lld) return unexpected(std::move(lld).error());
  auto dir = detail::TempDir::create();
  if (!dir) return unexpected(std::move(dir).error());
  const auto in = dir->path() / "in.o";
  const auto out = dir->path() / "out.co";
  const auto log = dir->path() / "lld.log";
  {
    std::ofstream f(in, std::ios::binary);
    f.write(reinterpret_cast<const char*>(object.data()), static_cast<std::streamsize>(object.size()));
    if (!f) return fail(DiagCode::io_error, "cannot write the object for the linker", {}, in.string());
  }
  auto rc = detail::run_logged({lld->string(), "-flavor", "gnu", "-m", "elf64_amdgpu", "--no-undefined", "-shared",
                                "-o", out.string(), in.string()},
                               log);
  // `-flavor gnu` is what clang passes to the multi-flavour `lld` binary; ld.lld accepts and ignores it.
  if (!rc) return unexpected(std::move(rc).error());
  if (*rc != 0) {
    auto msg = read_file(log);
    std::string text = msg ? *msg : std::string{};
    while (!text.empty() && text.back() == '\n') text.pop_back();
    return fail(DiagCode::encode_error, "ld.lld failed (exit status " + std::to_string(*rc) + ")", {}, text,
                "the linker's own message is shown above");
  }
  auto bytes = read_file(out);
  if (!bytes) return unexpected(std::move(bytes).error());
  return std::vector<std::uint8_t>(bytes->begin(), bytes->end());
}

}  // namespace asmevo::codeobject
