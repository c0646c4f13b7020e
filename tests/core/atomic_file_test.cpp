// SPDX-License-Identifier: Apache-2.0
#include "cityforge/core/atomic_file.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

namespace cityforge {
namespace {

namespace fs = std::filesystem;

/// A fresh, empty folder for one test, removed afterwards.
class TempDir {
 public:
  explicit TempDir(const std::string& name)
      : m_path(fs::temp_directory_path() /
               ("cityforge-" + name + "-" + std::to_string(::getpid()))) {
    fs::remove_all(m_path);
    fs::create_directories(m_path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(m_path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return m_path; }

 private:
  fs::path m_path;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::size_t entries(const fs::path& dir) {
  return static_cast<std::size_t>(
      std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

TEST(WriteFileAtomic, WritesAndReplacesWithoutLeavingTemporaries) {
  TempDir dir("atomic");
  const std::string path = (dir.path() / "map.svg").string();
  ASSERT_TRUE(write_file_atomic(path, std::string("first")).ok());
  EXPECT_EQ(slurp(path), "first");
  const std::string binary("a\0b\xff", 4);
  ASSERT_TRUE(write_file_atomic(path, binary).ok());
  EXPECT_EQ(slurp(path), binary);
  ASSERT_TRUE(write_file_atomic(path, std::string()).ok());
  EXPECT_EQ(slurp(path), "");
  EXPECT_EQ(entries(dir.path()), 1U);  // no "<path>.tmp-<pid>" left behind
}

TEST(WriteFileAtomic, FailsCleanlyOnAMissingFolder) {
  TempDir dir("atomic-missing");
  const std::string path = (dir.path() / "no-such-folder" / "city.glb").string();
  const Status s = write_file_atomic(path, std::string("x"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::io);
  EXPECT_EQ(s.error().where, path);
  EXPECT_NE(s.error().to_string().find("No such file or directory"), std::string::npos)
      << s.error().to_string();
  EXPECT_EQ(entries(dir.path()), 0U);
}

TEST(WriteFileAtomic, FailsCleanlyWhenTheTargetIsAFolder) {
  TempDir dir("atomic-folder");
  const fs::path target = dir.path() / "taken";
  fs::create_directories(target);
  const Status s = write_file_atomic(target.string(), std::string("x"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().where, target.string());
  EXPECT_EQ(entries(dir.path()), 1U);  // the temporary file was removed again
  EXPECT_TRUE(fs::is_directory(target));
}

}  // namespace
}  // namespace cityforge
