// File input and atomic file output for asmevo's tools: read whole files, write through a temporary and rename.
#pragma once

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <string_view>
#include <system_error>

#include <unistd.h>

#include "asmevo/support/diag.hpp"

namespace asmevo {

/// Reads a whole file. The error names the path and the operating system's reason.
[[nodiscard]] inline Expected<std::string> read_file(const std::filesystem::path& p) {
  std::error_code ec;
  if (std::filesystem::is_directory(p, ec))
    return fail(DiagCode::io_error, "cannot read '" + p.string() + "': it is a directory", Loc{p.string()});
  std::ifstream in(p, std::ios::binary);
  if (!in) return fail(DiagCode::io_error, "cannot open '" + p.string() + "': " + std::strerror(errno), Loc{p.string()});
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return fail(DiagCode::io_error, "error while reading '" + p.string() + "'", Loc{p.string()});
  return data;
}

/// True if `a` and `b` name the same existing file (so an output would overwrite an input).
[[nodiscard]] inline bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) {
  std::error_code ec;
  return std::filesystem::exists(a, ec) && std::filesystem::exists(b, ec) && std::filesystem::equivalent(a, b, ec);
}

/// Writes `data` to `p` atomically: a temporary file in the same folder, flushed to disk (fsync), given the
/// permissions of the file it replaces, then renamed over `p`. Readers never see a half-written file, and a
/// failure leaves any previous `p` untouched.
[[nodiscard]] inline Expected<void> write_file_atomic(const std::filesystem::path& p, std::string_view data) {
  namespace fs = std::filesystem;
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  std::random_device rd;
  const fs::path tmp = dir / ("." + p.filename().string() + ".tmp" + std::to_string(rd()));
  {
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f) return fail(DiagCode::io_error, "cannot create '" + tmp.string() + "': " + std::strerror(errno), Loc{p.string()});
    const bool ok = std::fwrite(data.data(), 1, data.size(), f) == data.size() && std::fflush(f) == 0 &&
                    ::fsync(::fileno(f)) == 0;
    const bool closed = std::fclose(f) == 0;
    if (!ok || !closed) {
      std::error_code ec;
      fs::remove(tmp, ec);
      return fail(DiagCode::io_error, "cannot write '" + p.string() + "'", Loc{p.string()});
    }
  }
  std::error_code ec;
  if (const auto st = fs::status(p, ec); !ec && fs::exists(st))
    fs::permissions(tmp, st.permissions(), fs::perm_options::replace, ec);  // best effort: keep the old mode
  ec.clear();
  fs::rename(tmp, p, ec);
  if (ec) {
    std::error_code ec2;
    fs::remove(tmp, ec2);
    return fail(DiagCode::io_error, "cannot replace '" + p.string() + "': " + ec.message(), Loc{p.string()});
  }
  return {};
}

}  // namespace asmevo
