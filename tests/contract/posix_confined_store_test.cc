// The confined PosixObjectStore (what the commit service writes local tables
// through): below its confinement no symbolic link is followed by any call,
// whether the link was there before the call or is swapped in during it.
#include <fcntl.h>
#include <stdio.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "deltacommit/posix/beneath.h"
#include "deltacommit/posix/posix_object_store.h"
#include "temp_dir.h"

namespace deltacommit {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// Runs each test with openat2 and with the O_NOFOLLOW walk.
class PosixConfinedStoreTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    before_ = posix::UseOpenat2ForTesting(GetParam());
    fs::create_directories(root() + "/t/_delta_log");
    fs::create_directories(outside());
    std::ofstream(outside() + "/secret.json") << "{\"commitInfo\":{}}\n";
  }
  void TearDown() override { posix::UseOpenat2ForTesting(before_); }

  std::string root() const { return dir_.path() + "/root"; }
  std::string outside() const { return dir_.path() + "/outside"; }
  std::vector<std::string> OutsideFiles() const {
    std::vector<std::string> files;
    for (const auto& entry : fs::recursive_directory_iterator(outside())) {
      files.push_back(fs::relative(entry.path(), outside()).string());
    }
    std::sort(files.begin(), files.end());
    return files;
  }

  TempDir dir_;
  bool before_ = true;
  PosixObjectStore store_{dir_.path() + "/root/t", {dir_.path() + "/root"}};
};

INSTANTIATE_TEST_SUITE_P(Openat2AndWalk, PosixConfinedStoreTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& param) { return param.param ? "Openat2" : "Walk"; });

TEST_P(PosixConfinedStoreTest, ALinkedFileIsRefusedUnreadNamingIt) {
  ASSERT_EQ(::symlink((outside() + "/secret.json").c_str(),
                      (root() + "/t/_delta_log/00000000000000000000.json").c_str()),
            0);
  StatusOr<std::string> got = store_.Get("_delta_log/00000000000000000000.json");
  EXPECT_EQ(got.status().code(), StatusCode::kPermissionDenied);
  EXPECT_THAT(got.status().message(),
              AllOf(HasSubstr("_delta_log/00000000000000000000.json"),
                    HasSubstr("symbolic link")));
  EXPECT_EQ(store_.Head("_delta_log/00000000000000000000.json").status().code(),
            StatusCode::kPermissionDenied);
  EXPECT_EQ(store_.Copy("_delta_log/00000000000000000000.json", "copy.json", true).code(),
            StatusCode::kPermissionDenied);
  StatusOr<std::vector<ObjectMeta>> listed = store_.List("_delta_log/");
  ASSERT_TRUE(listed.ok());
  EXPECT_THAT(*listed, IsEmpty()) << "a link is no object";
  // Deleting removes the link itself, never its target.
  EXPECT_TRUE(store_.Delete("_delta_log/00000000000000000000.json").ok());
  EXPECT_TRUE(fs::exists(outside() + "/secret.json"));
}

TEST_P(PosixConfinedStoreTest, ALinkedDirectoryIsNeitherReadNorWrittenThrough) {
  fs::remove_all(root() + "/t/_delta_log");
  ASSERT_EQ(::symlink(outside().c_str(), (root() + "/t/_delta_log").c_str()), 0);
  EXPECT_EQ(store_.Get("_delta_log/secret.json").status().code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(store_.PutIfAbsent("_delta_log/00000000000000000001.json", "x").code(),
            StatusCode::kPermissionDenied);
  EXPECT_EQ(store_.Put("_delta_log/x.json", "x").code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(store_.List("_delta_log/").status().code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(OutsideFiles(), std::vector<std::string>{"secret.json"});
}

TEST_P(PosixConfinedStoreTest, ALinkAboveTheTableBelowTheRootIsRefused) {
  ASSERT_EQ(::symlink((root() + "/t").c_str(), (root() + "/alias").c_str()), 0);
  PosixObjectStore alias(root() + "/alias", {root()});
  EXPECT_EQ(alias.PutIfAbsent("_delta_log/00000000000000000000.json", "x").code(),
            StatusCode::kPermissionDenied);
  EXPECT_FALSE(fs::exists(root() + "/t/_delta_log/00000000000000000000.json"));
}

TEST_P(PosixConfinedStoreTest, AFifoIsRefusedNotWaitedOn) {
  ASSERT_EQ(::mkfifo((root() + "/t/_delta_log/fifo.json").c_str(), 0644), 0);
  StatusOr<std::string> got = store_.Get("_delta_log/fifo.json");
  EXPECT_EQ(got.status().code(), StatusCode::kPermissionDenied);
  EXPECT_THAT(got.status().message(), HasSubstr("not a regular file"));
}

// The check and the write are one system call: while one thread keeps
// swapping the log directory between a real directory and a link out of the
// root, every write either lands in the real directory or is refused, and
// nothing ever appears outside.
TEST_P(PosixConfinedStoreTest, ALinkSwappedInWhileWritingIsNeverWrittenThrough) {
  const std::string log = root() + "/t/_delta_log";
  const std::string other = root() + "/t/other";
  ASSERT_EQ(::symlink(outside().c_str(), other.c_str()), 0);
  std::atomic<bool> done{false};
  std::thread swapper([&] {
    // RENAME_EXCHANGE swaps the two names atomically: at every instant
    // _delta_log is either the real directory or the link out of the root.
    while (!done.load()) {
      ::renameat2(AT_FDCWD, log.c_str(), AT_FDCWD, other.c_str(), RENAME_EXCHANGE);
    }
  });
  int written = 0, refused = 0;
  std::vector<std::string> other_outcomes;
  for (int i = 0; i < 2000; ++i) {
    Status put = store_.PutIfAbsent("_delta_log/" + std::to_string(i) + ".json", "x");
    if (put.ok()) {
      ++written;
    } else if (put.code() == StatusCode::kPermissionDenied) {
      ++refused;
    } else {
      other_outcomes.push_back(put.ToString());
    }
  }
  done = true;
  swapper.join();
  EXPECT_EQ(OutsideFiles(), std::vector<std::string>{"secret.json"}) << "written through a link";
  EXPECT_THAT(other_outcomes, IsEmpty());
  // Whatever name the real directory has now, it holds every write that
  // succeeded, and nothing else (no temp file left either).
  const std::string real = fs::is_symlink(log) ? other : log;
  size_t files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(real)) ++files;
  EXPECT_EQ(files, static_cast<size_t>(written));
  std::cout << "written " << written << ", refused " << refused << " of 2000\n";
}

}  // namespace
}  // namespace deltacommit
