// Starting a child process with its standard streams in files: the linker (codeobject/link.hpp) and the
// `optimize` children of `asmevo optimize-dir`. POSIX only; nothing here reads what the child writes.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "asmevo/support/diag.hpp"

extern char** environ;  // POSIX: the process environment, passed on to the child

namespace asmevo {

/// Starts `argv` (argv[0] a path, not looked up on PATH) with the process environment, stdin from /dev/null,
/// stdout into `out` and stderr into `err`, or into `out` too when `err` is empty; the files are created with
/// `mode` or truncated. Returns the child's pid; the caller waits for it.
[[nodiscard]] inline Expected<pid_t> spawn_redirected(const std::vector<std::string>& argv, const std::filesystem::path& out,
                                                      const std::filesystem::path& err = {}, mode_t mode = 0644) {
  if (argv.empty()) return fail(DiagCode::internal, "spawn_redirected: no program to start");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, mode);
  if (err.empty()) posix_spawn_file_actions_adddup2(&fa, 1, 2);
  else posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, mode);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawn(&pid, argv[0].c_str(), &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return fail(DiagCode::io_error, "cannot start " + argv[0] + ": " + std::strerror(rc), Loc{(err.empty() ? out : err).string()});
  return pid;
}

/// Waits for the child `pid` (through EINTR): its exit status, 128 + the signal that killed it, or 255.
[[nodiscard]] inline Expected<int> wait_exit_code(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return fail(DiagCode::io_error, "waiting for process " + std::to_string(pid) + ": " + std::strerror(errno));
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 255;
}

}  // namespace asmevo
