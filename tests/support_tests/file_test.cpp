// support/file.hpp: atomic replacement keeps the old file's mode and leaves no temporary behind; errors name the path.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "asmevo/support/file.hpp"

namespace {

namespace fs = std::filesystem;

TEST(File, AtomicWriteReplacesKeepsModeAndLeavesNoTemporary) {
  const fs::path dir = fs::temp_directory_path() / ("asmevo_file_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path p = dir / "out.s";
  ASSERT_TRUE(asmevo::write_file_atomic(p, "first\n"));
  fs::permissions(p, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read, fs::perm_options::replace);
  ASSERT_TRUE(asmevo::write_file_atomic(p, "second\n"));
  auto back = asmevo::read_file(p);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, "second\n");
  EXPECT_EQ(fs::status(p).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 1u);  // no temporary left behind
  fs::remove_all(dir);
}

TEST(File, ErrorsNameThePath) {
  auto w = asmevo::write_file_atomic("/nonexistent-dir/asmevo/out.s", "x");
  ASSERT_FALSE(w);
  EXPECT_NE(w.error().message.find("/nonexistent-dir/asmevo"), std::string::npos) << w.error().message;
  auto r = asmevo::read_file("/nonexistent-dir/in.s");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("/nonexistent-dir/in.s"), std::string::npos);
}

}  // namespace
