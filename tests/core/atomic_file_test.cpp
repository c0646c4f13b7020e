// SPDX-License-Identifier: Apache-2.0
#include "cityforge/core/atomic_file.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

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

TEST(StagedFiles, NothingMovesUntilCommitThenEverythingDoes) {
  TempDir dir("staged");
  const fs::path a = dir.path() / "lanes.json";
  const fs::path b = dir.path() / "map.svg";
  ASSERT_TRUE(write_file_atomic(a.string(), std::string("old lanes")).ok());
  StagedFiles staged;
  ASSERT_TRUE(staged.write(a.string(), std::string("new lanes")).ok());
  ASSERT_TRUE(staged.write(b.string(), std::string("new map")).ok());
  EXPECT_EQ(slurp(a), "old lanes");  // the old file stays until the commit
  EXPECT_FALSE(fs::exists(b));
  EXPECT_EQ(entries(dir.path()), 3U);  // lanes.json and two temporaries
  ASSERT_TRUE(staged.write((dir.path() / "sumo" / "city.nod.xml").string(), std::string("n")).ok());
  ASSERT_TRUE(staged.commit().ok());
  EXPECT_EQ(slurp(dir.path() / "sumo" / "city.nod.xml"), "n");
  EXPECT_EQ(slurp(a), "new lanes");
  EXPECT_EQ(slurp(b), "new map");
  EXPECT_EQ(entries(dir.path()), 3U);  // lanes.json, map.svg, sumo/
}

TEST(StagedFiles, WithoutCommitTheOldFilesStayAndNoTemporaryIsLeft) {
  TempDir dir("staged-dropped");
  const fs::path a = dir.path() / "stats.json";
  ASSERT_TRUE(write_file_atomic(a.string(), std::string("old")).ok());
  {
    StagedFiles staged;
    ASSERT_TRUE(staged.write(a.string(), std::string("new")).ok());
    ASSERT_TRUE(
        staged.write((dir.path() / "points" / "props" / "tree.ply").string(), std::string("p"))
            .ok());
    EXPECT_TRUE(fs::is_directory(dir.path() / "points" / "props"));  // made as needed
    // A failure later in the run: the object goes without a commit.
  }
  EXPECT_EQ(slurp(a), "old");
  EXPECT_EQ(entries(dir.path()), 1U);  // no temporary, no folder made for the files
}

// Point clouds of millions of points are written in parts as they are made: the parts join up,
// and a writer that fails half way (a bad value) leaves no temporary and stages nothing.
TEST(StagedFiles, AFileWrittenInPartsJoinsThemAndAFailedOneLeavesNothing) {
  TempDir dir("staged-parts");
  const fs::path a = dir.path() / "points.ply";
  const fs::path b = dir.path() / "bad.ply";
  StagedFiles staged;
  ASSERT_TRUE(staged
                  .write_parts(a.string(),
                               [](const ByteSink& sink) -> Status {
                                 for (const char* part : {"ply\n", "two ", "parts"}) {
                                   if (Status st = sink(part, std::strlen(part)); !st) return st;
                                 }
                                 return Ok{};
                               })
                  .ok());
  const Status bad = staged.write_parts(b.string(), [](const ByteSink& sink) -> Status {
    if (Status st = sink("half", 4); !st) return st;
    return Error::invalid_input("items[7]", "expected finite values");
  });
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().where, "items[7]");
  EXPECT_EQ(entries(dir.path()), 1U);  // the first file's temporary alone
  ASSERT_TRUE(staged.commit().ok());
  EXPECT_EQ(slurp(a), "ply\ntwo parts");
  EXPECT_FALSE(fs::exists(b));
  Result<std::vector<std::uint8_t>> bytes = collect_bytes([](const ByteSink& sink) {
    if (Status st = sink("ab", 2); !st) return st;
    return sink("c", 1);
  });
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(std::string(bytes->begin(), bytes->end()), "abc");
}

TEST(StagedFiles, AFailedRenameNamesTheFileAndRemovesTheRest) {
  TempDir dir("staged-fail");
  const fs::path taken = dir.path() / "taken";
  StagedFiles staged;
  ASSERT_TRUE(staged.write((dir.path() / "first").string(), std::string("1")).ok());
  ASSERT_TRUE(staged.write(taken.string(), std::string("2")).ok());
  ASSERT_TRUE(staged.write((dir.path() / "third").string(), std::string("3")).ok());
  fs::create_directories(taken / "inside");  // a non-empty folder where a file should go
  const Status s = staged.commit();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().where, taken.string());
  EXPECT_EQ(slurp(dir.path() / "first"), "1");
  EXPECT_FALSE(fs::exists(dir.path() / "third"));
  EXPECT_EQ(entries(dir.path()), 2U);  // "first" and the folder: no temporaries
}

TEST(RemoveStaleTemporaries, RemovesWhatDeadProcessesLeftAndNothingElse) {
  TempDir dir("stale");
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);  // a process id that no longer runs
  const std::string dead = std::to_string(child), alive = std::to_string(::getpid());
  const std::vector<std::string> names = {"lanes.json.tmp-" + dead, "map.svg.tmp-" + alive,
                                          "notes.tmp-x", "city.glb", ".tmp-" + dead};
  for (const std::string& name : names)
    std::ofstream(dir.path() / name) << "x";
  fs::create_directories(dir.path() / "sumo");
  std::ofstream(dir.path() / "sumo" / ("city.nod.xml.tmp-" + dead)) << "x";
  remove_stale_temporaries(dir.path().string());
  EXPECT_FALSE(fs::exists(dir.path() / ("lanes.json.tmp-" + dead)));
  EXPECT_TRUE(fs::exists(dir.path() / ("map.svg.tmp-" + alive)));  // a run still writing
  EXPECT_TRUE(fs::exists(dir.path() / "notes.tmp-x"));
  EXPECT_TRUE(fs::exists(dir.path() / "city.glb"));
  EXPECT_TRUE(fs::exists(dir.path() / (".tmp-" + dead)));  // not a temporary of a file
  EXPECT_TRUE(fs::exists(dir.path() / "sumo" / ("city.nod.xml.tmp-" + dead)));  // not deeper
}

TEST(ProcessGone, AZombieIsGoneAndThisProcessIsNot) {
  EXPECT_FALSE(process_gone(::getpid()));
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  // Not reaped yet: a zombie, as a rank that mpirun's job ended can be for a while.
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    gone = process_gone(child);
    if (!gone) ::usleep(10000);
  }
  EXPECT_TRUE(gone);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(process_gone(child));
}

}  // namespace
}  // namespace cityforge
