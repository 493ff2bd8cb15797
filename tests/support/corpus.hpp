// Finds the shared test corpus (ASMEVO_CORPUS_DIR, else ../shared/corpus beside the checkout) for corpus tests.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace asmevo::test {

/// The corpus folder, or nullopt when it is absent (the calling test then skips, visibly).
inline std::optional<std::filesystem::path> corpus_dir() {
  namespace fs = std::filesystem;
  if (const char* e = std::getenv("ASMEVO_CORPUS_DIR"); e && *e) {
    fs::path p(e);
    if (fs::is_directory(p)) return p;
    return std::nullopt;
  }
#ifdef ASMEVO_SOURCE_DIR
  fs::path p = fs::path(ASMEVO_SOURCE_DIR) / ".." / "shared" / "corpus";
  if (fs::is_directory(p)) return fs::canonical(p);
#endif
  return std::nullopt;
}

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur)) {
    if (!cur.empty() && cur.back() == '\r') cur.pop_back();
    out.push_back(cur);
  }
  return out;
}

/// Files under `dir` with extension `ext`, sorted (deterministic test order).
inline std::vector<std::filesystem::path> files_with_ext(const std::filesystem::path& dir, const std::string& ext) {
  std::vector<std::filesystem::path> v;
  if (!std::filesystem::is_directory(dir)) return v;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ext) v.push_back(e.path());
  std::sort(v.begin(), v.end());
  return v;
}

/// Every code object (`.co`, `.hsaco`) under `dir`, sorted.
inline std::vector<std::filesystem::path> code_objects(const std::filesystem::path& dir) {
  auto v = files_with_ext(dir, ".co");
  auto h = files_with_ext(dir, ".hsaco");
  v.insert(v.end(), h.begin(), h.end());
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace asmevo::test

#define ASMEVO_REQUIRE_CORPUS(var)                                                                   \
  auto var##_opt = ::asmevo::test::corpus_dir();                                                      \
  if (!var##_opt) GTEST_SKIP() << "corpus not found: set ASMEVO_CORPUS_DIR or place ../shared/corpus"; \
  const std::filesystem::path var = *var##_opt
