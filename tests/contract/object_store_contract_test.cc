// The ObjectStore contract (include/deltacommit/object_store.h), run against
// every implementation: the in-memory fake, the POSIX adapter, and the fault
// wrapper (with no rules it must be invisible) over each.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <latch>
#include <string>
#include <thread>
#include <vector>

#include "common/test_servers.h"
#include "deltacommit/posix/posix_object_store.h"
#include "deltacommit/testing/fault_object_store.h"
#include "deltacommit/testing/memory_object_store.h"
#include "temp_dir.h"

namespace deltacommit {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::IsEmpty;

class MemoryEnv {
 public:
  static constexpr const char* kName = "Memory";
  ObjectStore& store() { return store_; }

 private:
  MemoryObjectStore store_;
};

class PosixEnv {
 public:
  static constexpr const char* kName = "Posix";
  ObjectStore& store() { return store_; }

 private:
  TempDir dir_;
  PosixObjectStore store_{dir_.path()};
};

// The store the commit service uses for local tables: confined beneath a
// [local] root, following no symbolic link.
class PosixConfinedEnv {
 public:
  static constexpr const char* kName = "PosixConfined";
  ObjectStore& store() { return store_; }

 private:
  TempDir dir_;
  PosixObjectStore store_{dir_.path() + "/tenant/table", {dir_.path()}};
};

// The real S3 server (Ceph RGW here), under a fresh prefix per test.
class S3Env {
 public:
  static constexpr const char* kName = "S3";
  static bool Available() { return !testing::S3Unavailable().has_value(); }
  ObjectStore& store() { return *s3_.store; }

 private:
  testing::S3TestStore s3_ =
      Available() ? testing::NewS3TestStore("contract") : testing::S3TestStore{};
};

template <typename Base>
class FaultEnv {
 public:
  static std::string Name() { return std::string("FaultOver") + Base::kName; }
  ObjectStore& store() { return store_; }

 private:
  Base base_;
  FaultInjectingObjectStore store_{base_.store()};
};

struct EnvName {
  template <typename Env>
  static std::string GetName(int /*index*/) {
    if constexpr (requires { Env::Name(); }) {
      return Env::Name();
    } else {
      return Env::kName;
    }
  }
};

template <typename Env>
class ObjectStoreContractTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if constexpr (requires { Env::Available(); }) {
      if (!Env::Available()) DC_REQUIRE_S3();
    }
  }

  ObjectStore& store() { return env_.store(); }

  std::vector<std::string> Keys(std::string_view prefix,
                                std::string_view start_after = {}) {
    StatusOr<std::vector<ObjectMeta>> listed =
        store().List(prefix, start_after);
    EXPECT_TRUE(listed.ok()) << listed.status().ToString();
    std::vector<std::string> keys;
    if (!listed.ok()) return keys;
    for (const ObjectMeta& meta : *listed) keys.push_back(meta.key);
    return keys;
  }

  void PutAll(const std::vector<std::string>& keys) {
    for (const std::string& key : keys) {
      ASSERT_TRUE(store().Put(key, "data of " + key).ok()) << key;
    }
  }

  Env env_;
};

using Envs = ::testing::Types<MemoryEnv, PosixEnv, PosixConfinedEnv, S3Env,
                              FaultEnv<MemoryEnv>, FaultEnv<PosixEnv>>;
TYPED_TEST_SUITE(ObjectStoreContractTest, Envs, EnvName);

std::string AllBytes() {
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes.push_back(static_cast<char>(i));
  return bytes + std::string("\0\0tail\0", 7);
}

TYPED_TEST(ObjectStoreContractTest, GetAndHeadOfMissingKeyAreNotFound) {
  EXPECT_EQ(this->store().Get("missing").status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(this->store().Head("missing").status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(this->store().Get("no/such/dir/x").status().code(),
            StatusCode::kNotFound);
}

TYPED_TEST(ObjectStoreContractTest, PutThenGetRoundTripsTextBinaryAndEmpty) {
  const std::vector<std::pair<std::string, std::string>> objects = {
      {"_delta_log/00000000000000000000.json", "{\"commitInfo\":{}}\n"},
      {"binary", AllBytes()},
      {"empty", ""},
  };
  for (const auto& [key, data] : objects) {
    ASSERT_TRUE(this->store().Put(key, data).ok()) << key;
  }
  for (const auto& [key, data] : objects) {
    StatusOr<std::string> got = this->store().Get(key);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, data) << key;
    StatusOr<ObjectMeta> head = this->store().Head(key);
    ASSERT_TRUE(head.ok()) << head.status().ToString();
    EXPECT_EQ(head->key, key);
    EXPECT_EQ(head->size, static_cast<int64_t>(data.size()));
    EXPECT_GT(head->last_modified_ms, 0);
  }
}

TYPED_TEST(ObjectStoreContractTest, PutReplacesExistingObject) {
  ASSERT_TRUE(this->store().Put("k", "first version").ok());
  ASSERT_TRUE(this->store().Put("k", "second").ok());
  EXPECT_EQ(*this->store().Get("k"), "second");
}

TYPED_TEST(ObjectStoreContractTest, RangeGetReturnsSliceShorterAtEof) {
  ASSERT_TRUE(this->store().Put("r", "0123456789").ok());
  auto get = [&](int64_t offset, int64_t length) {
    StatusOr<std::string> got =
        this->store().Get("r", ByteRange{offset, length});
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    return got.ok() ? *got : std::string("<error>");
  };
  EXPECT_EQ(get(0, 3), "012");
  EXPECT_EQ(get(4, 2), "45");
  EXPECT_EQ(get(7, 100), "789");
  EXPECT_EQ(get(0, 10), "0123456789");
  EXPECT_EQ(get(3, 0), "");
  EXPECT_EQ(get(10, 5), "");
  EXPECT_EQ(get(1000, 5), "");
  EXPECT_EQ(this->store().Get("missing", ByteRange{0, 1}).status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(this->store().Get("r", ByteRange{-1, 1}).status().code(),
            StatusCode::kInvalidArgument);
}

TYPED_TEST(ObjectStoreContractTest, RangeGetOfBinaryData) {
  const std::string data = AllBytes();
  ASSERT_TRUE(this->store().Put("bin", data).ok());
  EXPECT_EQ(*this->store().Get("bin", ByteRange{250, 10}),
            data.substr(250, 10));
}

TYPED_TEST(ObjectStoreContractTest, ListOfEmptyStoreIsEmpty) {
  EXPECT_THAT(this->Keys(""), IsEmpty());
  EXPECT_THAT(this->Keys("_delta_log/"), IsEmpty());
  EXPECT_THAT(this->Keys("no/such/dir/"), IsEmpty());
}

TYPED_TEST(ObjectStoreContractTest, ListIsRecursiveAndSortedByBytes) {
  // Byte order: '.' < '/' < '0' < 'A' < '_' < 'a' < 0xC3 (UTF-8 lead byte).
  this->PutAll({"b", "a/c", "a/b", "_x", ".y", "A", "a.b", "a0", "a/d/e/f",
                "\xc3\xa9t\xc3\xa9"});
  EXPECT_THAT(this->Keys(""),
              ElementsAre(".y", "A", "_x", "a.b", "a/b", "a/c", "a/d/e/f", "a0",
                          "b", "\xc3\xa9t\xc3\xa9"));
}

TYPED_TEST(ObjectStoreContractTest, ListReportsSizes) {
  ASSERT_TRUE(this->store().Put("d/one", "1").ok());
  ASSERT_TRUE(this->store().Put("d/three", "333").ok());
  StatusOr<std::vector<ObjectMeta>> listed = this->store().List("d/");
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0].key, "d/one");
  EXPECT_EQ((*listed)[0].size, 1);
  EXPECT_EQ((*listed)[1].size, 3);
}

TYPED_TEST(ObjectStoreContractTest,
           ListFiltersByPrefixIncludingPartialSegments) {
  this->PutAll({"_delta_log/00000000000000000000.json",
                "_delta_log/00000000000000000001.json",
                "_delta_log/00000000000000000010.json",
                "_delta_log/_last_checkpoint", "_delta_logx", "part-0.parquet",
                "sub/_delta_log/00000000000000000000.json"});
  EXPECT_THAT(this->Keys("_delta_log/"),
              ElementsAre("_delta_log/00000000000000000000.json",
                          "_delta_log/00000000000000000001.json",
                          "_delta_log/00000000000000000010.json",
                          "_delta_log/_last_checkpoint"));
  EXPECT_THAT(this->Keys("_delta_log/0000000000000000000"),
              ElementsAre("_delta_log/00000000000000000000.json",
                          "_delta_log/00000000000000000001.json"));
  EXPECT_THAT(this->Keys("_delta"),
              ElementsAre("_delta_log/00000000000000000000.json",
                          "_delta_log/00000000000000000001.json",
                          "_delta_log/00000000000000000010.json",
                          "_delta_log/_last_checkpoint", "_delta_logx"));
  EXPECT_THAT(this->Keys("part-0.parquet"), ElementsAre("part-0.parquet"));
  EXPECT_THAT(this->Keys("_delta_log/9"), IsEmpty());
  EXPECT_THAT(this->Keys("zzz"), IsEmpty());
}

TYPED_TEST(ObjectStoreContractTest, ListStartAfterIsExclusiveAndByteOrdered) {
  this->PutAll({"_delta_log/.tmp/x", "_delta_log/00000000000000000000.json",
                "_delta_log/00000000000000000001.json",
                "_delta_log/00000000000000000002.json",
                "_delta_log/_last_checkpoint"});
  EXPECT_THAT(this->Keys("_delta_log/", "_delta_log/00000000000000000001.json"),
              ElementsAre("_delta_log/00000000000000000002.json",
                          "_delta_log/_last_checkpoint"));
  EXPECT_THAT(this->Keys("_delta_log/", "_delta_log/00000000000000000000~"),
              ElementsAre("_delta_log/00000000000000000001.json",
                          "_delta_log/00000000000000000002.json",
                          "_delta_log/_last_checkpoint"));
  // start_after before the prefix: everything under the prefix.
  EXPECT_THAT(
      this->Keys("_delta_log/", "A"),
      ElementsAre("_delta_log/.tmp/x", "_delta_log/00000000000000000000.json",
                  "_delta_log/00000000000000000001.json",
                  "_delta_log/00000000000000000002.json",
                  "_delta_log/_last_checkpoint"));
  EXPECT_THAT(this->Keys("_delta_log/", "_delta_log/~"), IsEmpty());
  EXPECT_THAT(this->Keys("", "_delta_log/00000000000000000002.json"),
              ElementsAre("_delta_log/_last_checkpoint"));
}

TYPED_TEST(ObjectStoreContractTest, ListStartAfterInsideOrPastADirectory) {
  this->PutAll({"_delta_log/.tmp/x", "_delta_log/00000000000000000001.json",
                "_delta_log/_sidecars/a", "_delta_log/_sidecars/c", "_delta_log/zz"});
  // From inside a directory: its later keys, then what follows it.
  EXPECT_THAT(this->Keys("_delta_log/", "_delta_log/_sidecars/b"),
              ElementsAre("_delta_log/_sidecars/c", "_delta_log/zz"));
  // Past a directory: none of its keys.
  EXPECT_THAT(this->Keys("_delta_log/", "_delta_log/_sidecars0"), ElementsAre("_delta_log/zz"));
  // Just before it: all of them.
  EXPECT_THAT(this->Keys("_delta_log/", "_delta_log/_sidecars"),
              ElementsAre("_delta_log/_sidecars/a", "_delta_log/_sidecars/c", "_delta_log/zz"));
  EXPECT_THAT(this->Keys("_delta_log/_sidecars/", "_delta_log/_sidecars/a"),
              ElementsAre("_delta_log/_sidecars/c"));
}

TYPED_TEST(ObjectStoreContractTest, KeyThatIsOnlyADirectoryIsNotAnObject) {
  ASSERT_TRUE(this->store().Put("a/b/c", "x").ok());
  EXPECT_EQ(this->store().Get("a/b").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(this->store().Head("a").status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(this->store().Delete("a/b").ok());
  EXPECT_THAT(this->Keys(""), ElementsAre("a/b/c"));
}

TYPED_TEST(ObjectStoreContractTest,
           PutIfAbsentSecondTimeIsAlreadyExistsAndKeepsContent) {
  ASSERT_TRUE(this->store().PutIfAbsent("_delta_log/0.json", "first").ok());
  Status second = this->store().PutIfAbsent("_delta_log/0.json", "second");
  EXPECT_EQ(second.code(), StatusCode::kAlreadyExists) << second.ToString();
  EXPECT_EQ(*this->store().Get("_delta_log/0.json"), "first");
  // Also when the existing object was written by Put.
  ASSERT_TRUE(this->store().Put("p", "put").ok());
  EXPECT_EQ(this->store().PutIfAbsent("p", "other").code(),
            StatusCode::kAlreadyExists);
  EXPECT_EQ(*this->store().Get("p"), "put");
}

TYPED_TEST(ObjectStoreContractTest, PutIfAbsentOfEmptyAndBinaryData) {
  ASSERT_TRUE(this->store().PutIfAbsent("e", "").ok());
  ASSERT_TRUE(this->store().PutIfAbsent("b", AllBytes()).ok());
  EXPECT_EQ(*this->store().Get("e"), "");
  EXPECT_EQ(*this->store().Get("b"), AllBytes());
}

TYPED_TEST(ObjectStoreContractTest,
           ConcurrentPutIfAbsentSameKeyExactlyOneWins) {
  constexpr int kThreads = 16;
  constexpr int kRounds = 50;
  for (int round = 0; round < kRounds; ++round) {
    const std::string key = "_delta_log/" + std::to_string(round) + ".json";
    std::vector<std::string> contents;
    for (int t = 0; t < kThreads; ++t) {
      // Large enough that a torn or interleaved write would show.
      contents.push_back("writer " + std::to_string(t) + "\n" +
                         std::string(8192, static_cast<char>('a' + t)));
    }
    std::vector<Status> results(kThreads);
    std::latch start(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        start.arrive_and_wait();
        results[static_cast<size_t>(t)] =
            this->store().PutIfAbsent(key, contents[static_cast<size_t>(t)]);
      });
    }
    for (auto& thread : threads) thread.join();
    int winner = -1;
    for (int t = 0; t < kThreads; ++t) {
      const Status& result = results[static_cast<size_t>(t)];
      if (result.ok()) {
        ASSERT_EQ(winner, -1) << "two winners in round " << round;
        winner = t;
      } else {
        ASSERT_EQ(result.code(), StatusCode::kAlreadyExists)
            << result.ToString();
      }
    }
    ASSERT_NE(winner, -1) << "no winner in round " << round;
    EXPECT_EQ(*this->store().Get(key), contents[static_cast<size_t>(winner)]);
  }
  EXPECT_EQ(this->Keys("_delta_log/").size(), static_cast<size_t>(kRounds));
}

TYPED_TEST(ObjectStoreContractTest, CopyCreatesOrReplacesDestination) {
  ASSERT_TRUE(this->store().Put("src", AllBytes()).ok());
  ASSERT_TRUE(this->store().Copy("src", "dir/dst", /*if_absent=*/false).ok());
  EXPECT_EQ(*this->store().Get("dir/dst"), AllBytes());
  ASSERT_TRUE(this->store().Put("other", "other").ok());
  ASSERT_TRUE(this->store().Copy("other", "dir/dst", /*if_absent=*/false).ok());
  EXPECT_EQ(*this->store().Get("dir/dst"), "other");
  EXPECT_EQ(*this->store().Get("src"), AllBytes());
}

TYPED_TEST(ObjectStoreContractTest, CopyIfAbsentRefusesTakenDestination) {
  ASSERT_TRUE(this->store().Put("src", "new").ok());
  ASSERT_TRUE(this->store().Put("dst", "old").ok());
  EXPECT_EQ(this->store().Copy("src", "dst", /*if_absent=*/true).code(),
            StatusCode::kAlreadyExists);
  EXPECT_EQ(*this->store().Get("dst"), "old");
  ASSERT_TRUE(this->store().Copy("src", "fresh", /*if_absent=*/true).ok());
  EXPECT_EQ(*this->store().Get("fresh"), "new");
}

TYPED_TEST(ObjectStoreContractTest, CopyOfMissingSourceIsNotFound) {
  EXPECT_EQ(this->store().Copy("missing", "dst", false).code(),
            StatusCode::kNotFound);
  EXPECT_EQ(this->store().Copy("missing", "dst", true).code(),
            StatusCode::kNotFound);
  EXPECT_EQ(this->store().Head("dst").status().code(), StatusCode::kNotFound);
}

TYPED_TEST(ObjectStoreContractTest, CopyOfEmptyObject) {
  ASSERT_TRUE(this->store().Put("empty", "").ok());
  ASSERT_TRUE(this->store().Copy("empty", "copy", true).ok());
  EXPECT_EQ(*this->store().Get("copy"), "");
}

TYPED_TEST(ObjectStoreContractTest, DeleteIsIdempotent) {
  ASSERT_TRUE(this->store().Put("d/k", "x").ok());
  EXPECT_TRUE(this->store().Delete("d/k").ok());
  EXPECT_EQ(this->store().Get("d/k").status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(this->store().Delete("d/k").ok());
  EXPECT_TRUE(this->store().Delete("never/was").ok());
  EXPECT_THAT(this->Keys(""), IsEmpty());
  // The key can be created again after a delete.
  EXPECT_TRUE(this->store().PutIfAbsent("d/k", "again").ok());
}

TYPED_TEST(ObjectStoreContractTest, InvalidKeysAreRejectedByEveryCall) {
  ASSERT_TRUE(this->store().Put("ok", "x").ok());
  constexpr auto kInvalid = StatusCode::kInvalidArgument;
  for (const std::string key :
       {"../x", "/abs", "a//b", "a/./b", "", "a/..", "x/"}) {
    SCOPED_TRACE("key \"" + key + "\"");
    ObjectStore& store = this->store();
    EXPECT_EQ(store.Get(key).status().code(), kInvalid);
    EXPECT_EQ(store.Get(key, ByteRange{0, 1}).status().code(), kInvalid);
    EXPECT_EQ(store.Head(key).status().code(), kInvalid);
    EXPECT_EQ(store.PutIfAbsent(key, "x").code(), kInvalid);
    EXPECT_EQ(store.Put(key, "x").code(), kInvalid);
    EXPECT_EQ(store.Copy(key, "dst", false).code(), kInvalid);
    EXPECT_EQ(store.Copy("ok", key, false).code(), kInvalid);
    EXPECT_EQ(store.Copy("ok", key, true).code(), kInvalid);
    EXPECT_EQ(store.Delete(key).code(), kInvalid);
    Status status = store.Put(key, "x");
    EXPECT_NE(status.message().find("path outside the table"),
              std::string::npos)
        << status.message();
  }
  // A List prefix may end mid-segment, but its directory part obeys the rules.
  for (const std::string prefix :
       {"../x", "/abs", "a//b", "a/./b", "../", "/"}) {
    EXPECT_EQ(this->store().List(prefix).status().code(), kInvalid) << prefix;
  }
  EXPECT_THAT(this->Keys(""), ElementsAre("ok"));
  EXPECT_FALSE(this->store().Describe().empty());
}

}  // namespace
}  // namespace deltacommit
