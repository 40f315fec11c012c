// POSIX-specific guarantees beyond the shared contract: no temp file is left
// behind, a crashed writer's temp file never becomes the key, directories are
// created as needed, and errno maps to the documented codes.
#include "deltacommit/posix/posix_object_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <latch>
#include <string>
#include <thread>
#include <vector>

#include "deltacommit/log_path.h"
#include "deltacommit/logstore/object_store_log_store.h"
#include "temp_dir.h"

namespace deltacommit {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

class PosixObjectStoreTest : public ::testing::Test {
 protected:
  // Every file under the root, relative, sorted (what a crash would leave).
  std::vector<std::string> FilesOnDisk() const {
    std::vector<std::string> files;
    for (const auto& entry : fs::recursive_directory_iterator(dir_.path())) {
      if (entry.is_regular_file()) {
        files.push_back(fs::relative(entry.path(), dir_.path()).string());
      }
    }
    std::sort(files.begin(), files.end());
    return files;
  }

  void WriteRawFile(const std::string& relative, const std::string& data) {
    const fs::path path = fs::path(dir_.path()) / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << data;
  }

  TempDir dir_;
  PosixObjectStore store_{dir_.path()};
};

TEST_F(PosixObjectStoreTest, DescribeIsFileUrlOfAbsoluteRoot) {
  EXPECT_EQ(store_.Describe(), "file://" + dir_.path());
  EXPECT_EQ(PosixObjectStore(dir_.path() + "///").Describe(),
            "file://" + dir_.path());
  PosixObjectStore relative("some/table");
  EXPECT_EQ(relative.Describe(),
            "file://" + fs::current_path().string() + "/some/table");
}

TEST_F(PosixObjectStoreTest,
       PutIfAbsentLeavesNoTempFileOnSuccessOrAlreadyExists) {
  ASSERT_TRUE(
      store_.PutIfAbsent("_delta_log/00000000000000000000.json", "v0").ok());
  EXPECT_THAT(FilesOnDisk(),
              ElementsAre("_delta_log/00000000000000000000.json"));
  EXPECT_TRUE(store_.PutIfAbsent("_delta_log/00000000000000000000.json", "x")
                  .IsAlreadyExists());
  EXPECT_THAT(FilesOnDisk(),
              ElementsAre("_delta_log/00000000000000000000.json"));
}

TEST_F(PosixObjectStoreTest, RacingPutIfAbsentLeavesNoTempFiles) {
  // Losers that got past the existence check fail at link(2) with EEXIST;
  // they too must remove their temp files.
  constexpr int kThreads = 16;
  for (int round = 0; round < 20; ++round) {
    std::latch start(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        start.arrive_and_wait();
        store_.PutIfAbsent("k" + std::to_string(round), std::to_string(t))
            .IgnoreError();
      });
    }
    for (auto& thread : threads) thread.join();
  }
  for (const std::string& file : FilesOnDisk()) {
    EXPECT_THAT(file, ::testing::Not(HasSubstr(".tmp"))) << file;
  }
  EXPECT_EQ(FilesOnDisk().size(), 20u);
}

TEST_F(PosixObjectStoreTest, PutAndCopyLeaveNoTempFile) {
  ASSERT_TRUE(store_.Put("a/x", "1").ok());
  ASSERT_TRUE(store_.Put("a/x", "2").ok());
  ASSERT_TRUE(store_.Copy("a/x", "b/y", /*if_absent=*/true).ok());
  ASSERT_TRUE(store_.Copy("a/x", "b/y", /*if_absent=*/false).ok());
  EXPECT_TRUE(store_.Copy("a/x", "b/y", /*if_absent=*/true).IsAlreadyExists());
  EXPECT_THAT(FilesOnDisk(), ElementsAre("a/x", "b/y"));
}

TEST_F(PosixObjectStoreTest, StrayTempFileFromCrashNeverBecomesTheKey) {
  // A writer that crashed after writing part of its temp file, before link.
  const std::string key = CommitPath(0);
  const std::string stray =
      "_delta_log/"
      ".00000000000000000000.json.6f1c2a1e-0000-4000-8000-000000000000.tmp";
  WriteRawFile(stray, "{\"torn");
  EXPECT_TRUE(store_.Get(key).status().IsNotFound());
  EXPECT_TRUE(store_.Head(key).status().IsNotFound());
  // List reports what is there, so the stray file shows under its own name...
  StatusOr<std::vector<ObjectMeta>> listed = store_.List("_delta_log/");
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].key, stray);
  EXPECT_EQ(ParseLogPath(stray.substr(kLogDir.size())).type,
            LogFileType::kTemp);
  // ...the log store skips it past version 0, and the version is still free.
  ObjectStoreLogStore log(store_, "local");
  EXPECT_THAT(*log.List(1), IsEmpty());
  ASSERT_TRUE(log.Write(0, "{\"complete\":true}\n").ok());
  EXPECT_EQ(*store_.Get(key), "{\"complete\":true}\n");
}

TEST_F(PosixObjectStoreTest, WritesCreateMissingDirectoriesIncludingRoot) {
  PosixObjectStore nested(dir_.path() + "/not/yet/there");
  EXPECT_THAT(*nested.List(""), IsEmpty());
  ASSERT_TRUE(nested.PutIfAbsent("a/b/c/d.json", "x").ok());
  EXPECT_EQ(*nested.Get("a/b/c/d.json"), "x");
  EXPECT_THAT(FilesOnDisk(), ElementsAre("not/yet/there/a/b/c/d.json"));
}

TEST_F(PosixObjectStoreTest, FileWhereDirectoryIsNeededIsFailedPrecondition) {
  ASSERT_TRUE(store_.Put("a", "file").ok());
  Status status = store_.Put("a/b", "x");
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition)
      << status.ToString();
  EXPECT_TRUE(store_.Get("a/b").status().IsNotFound());
  EXPECT_TRUE(store_.Delete("a/b").ok());
  EXPECT_THAT(FilesOnDisk(), ElementsAre("a"));
}

TEST_F(PosixObjectStoreTest,
       UnwritableDirectoryIsPermissionDeniedNamingThePath) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores directory permissions";
  ASSERT_TRUE(store_.Put("locked/x", "x").ok());
  ASSERT_EQ(::chmod((dir_.path() + "/locked").c_str(), 0555), 0);
  Status status = store_.PutIfAbsent("locked/y", "y");
  EXPECT_EQ(status.code(), StatusCode::kPermissionDenied) << status.ToString();
  EXPECT_THAT(status.message(), HasSubstr(dir_.path() + "/locked"));
  EXPECT_EQ(store_.Delete("locked/x").code(), StatusCode::kPermissionDenied);
  ASSERT_EQ(::chmod((dir_.path() + "/locked").c_str(), 0755), 0);
}

TEST_F(PosixObjectStoreTest,
       ListFollowsFileLinksButNotDanglingOrDirectoryLinks) {
  ASSERT_TRUE(store_.Put("real", "data").ok());
  ASSERT_EQ(::symlink("real", (dir_.path() + "/link").c_str()), 0);
  ASSERT_EQ(::symlink("nowhere", (dir_.path() + "/dangling").c_str()), 0);
  // A link back to the root would loop forever if List followed it.
  ASSERT_EQ(::symlink(".", (dir_.path() + "/loop").c_str()), 0);
  StatusOr<std::vector<ObjectMeta>> listed = store_.List("");
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0].key, "link");
  EXPECT_EQ((*listed)[0].size, 4);
  EXPECT_EQ((*listed)[1].key, "real");
}

TEST_F(PosixObjectStoreTest, LargeObjectRoundTripsAndCopies) {
  std::string big(3 * 1024 * 1024 + 17, '\0');
  for (size_t i = 0; i < big.size(); ++i)
    big[i] = static_cast<char>(i * 31 % 251);
  ASSERT_TRUE(store_.PutIfAbsent("big", big).ok());
  ASSERT_TRUE(store_.Copy("big", "big2", true).ok());
  EXPECT_EQ(*store_.Get("big2"), big);
  EXPECT_EQ(*store_.Get("big", ByteRange{1 << 20, 10}),
            big.substr(1 << 20, 10));
}

}  // namespace
}  // namespace deltacommit
