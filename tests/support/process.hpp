// Runs an outside tool from a test (llvm-readelf-22, llvm-mc-22, clang-22, ...) and captures what it prints.
#pragma once

#include <cstdio>
#include <filesystem>
#include <string>

namespace asmevo::test {

struct RunResult {
  int status = -1;  ///< as pclose returns it (0 = exited with 0); -1 when the command could not be started
  std::string out;  ///< standard output (and standard error when `with_stderr`)
};

/// Runs `cmd` through the shell. Standard error goes to the test log unless `with_stderr` folds it into `out`.
inline RunResult run_command(const std::string& cmd, bool with_stderr = false) {
  RunResult r;
  std::FILE* p = ::popen((with_stderr ? cmd + " 2>&1" : cmd).c_str(), "r");
  if (!p) return r;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  r.status = ::pclose(p);
  return r;
}

/// A path as one shell word.
inline std::string shell_quote(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

}  // namespace asmevo::test
