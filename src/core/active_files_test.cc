// ActiveFiles against a plain std::map<FileKey, AddFile>: random inserts,
// replacements and erasures, with copies carried forward and versions begun
// between them, always give the same files in the same order, the same
// size and lookups; copies never change what they were copied from; every
// field of an add comes back as it went in.
#include "deltacommit/active_files.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace deltacommit {
namespace {

using Model = std::map<FileKey, AddFile>;

AddFile Add(const std::string& path, int64_t size) {
  AddFile add;
  add.path = path;
  add.size = size;
  add.modification_time = 1700000000000 + size;
  add.partition_values = {{"part", std::to_string(size % 7)}};
  add.stats = R"({"numRecords":)" + std::to_string(size) + "}";
  return add;
}

// Every field set, some to values a naive encoding would lose (negative
// numbers, empty strings, null partition values, raw JSON of unknown fields).
AddFile EveryField() {
  AddFile add;
  add.path = "file:///tmp/t/p%20q=1/part-0.parquet";
  add.partition_values = {{"p q", "1"}, {"none", std::nullopt}, {"", ""}};
  add.size = -1;
  add.modification_time = INT64_MIN;
  add.data_change = false;
  add.stats = "";
  add.tags = NullableStringMap{{"INSERTION_TIME", "1"}, {"nil", std::nullopt}};
  DeletionVectorDescriptor dv;
  dv.storage_type = "u";
  dv.path_or_inline_dv = "ab^-aqEH.-t@S}K{vb[*k^";
  dv.offset = 4;
  dv.size_in_bytes = 40;
  dv.cardinality = INT64_MAX;
  dv.unknown_fields = {{"maxRowIndex", "41"}};
  add.deletion_vector = dv;
  add.base_row_id = 0;
  add.default_row_commit_version = 12;
  add.clustering_provider = "liquid";
  add.unknown_fields = {{"zExtra", R"({"a":[1,2]})"}, {"other", "null"}};
  return add;
}

// A version of `n` files named prefix + i, of size i.
Model Fill(ActiveFiles& files, const std::string& prefix, int n) {
  files.BeginVersion();
  Model added;
  for (int i = 0; i < n; ++i) {
    const AddFile add = Add(prefix + std::to_string(i), i);
    EXPECT_FALSE(files.InsertOrAssign(add).has_value());
    added.emplace(KeyOf(add), add);
  }
  return added;
}

Model Contents(const ActiveFiles& files) {
  Model out;
  std::vector<FileKey> order;
  for (const auto& [key, add] : files) {
    order.push_back(key);
    EXPECT_EQ(key, KeyOf(add)) << "a file is iterated under its own key";
    out.emplace(key, add);
  }
  EXPECT_TRUE(std::is_sorted(order.begin(), order.end())) << "iterated in key order";
  EXPECT_EQ(order.size(), out.size()) << "no key iterated twice";
  return out;
}

void ExpectSame(const ActiveFiles& files, const Model& want) {
  EXPECT_EQ(Contents(files), want);
  EXPECT_EQ(files.size(), want.size());
  EXPECT_EQ(files.empty(), want.empty());
  for (const auto& [key, add] : want) {
    const std::optional<AddFile> found = files.Find(key);
    ASSERT_TRUE(found.has_value()) << key.path;
    EXPECT_EQ(*found, add) << key.path;
  }
}

TEST(ActiveFilesTest, EveryFieldOfAnAddComesBackAsItWentIn) {
  ActiveFiles files;
  files.BeginVersion();
  const AddFile add = EveryField();
  EXPECT_FALSE(files.InsertOrAssign(add).has_value());
  AddFile bare;
  bare.path = "plain.parquet";
  EXPECT_FALSE(files.InsertOrAssign(bare).has_value());
  ExpectSame(files, {{KeyOf(add), add}, {KeyOf(bare), bare}});
  EXPECT_EQ(KeyOf(add).path, "/tmp/t/p%20q=1/part-0.parquet") << "keyed by the canonical path";
  EXPECT_EQ(files.begin()->second.path, add.path) << "the path as written is kept";
}

TEST(ActiveFilesTest, TellsWhatAnInsertReplacedAndWhetherInTheSameVersion) {
  ActiveFiles files;
  files.BeginVersion();
  EXPECT_FALSE(files.InsertOrAssign(Add("a", 1)).has_value());
  auto replaced = files.InsertOrAssign(Add("a", 2));
  ASSERT_TRUE(replaced.has_value());
  EXPECT_EQ(replaced->size, 1);
  EXPECT_TRUE(replaced->same_version);
  files.BeginVersion();
  replaced = files.InsertOrAssign(Add("a", 3));
  ASSERT_TRUE(replaced.has_value());
  EXPECT_EQ(replaced->size, 2);
  EXPECT_FALSE(replaced->same_version) << "replacing an earlier version's file is allowed";
  EXPECT_EQ(files.Erase(KeyOf(Add("a", 0))), std::optional<int64_t>(3));
  EXPECT_EQ(files.Erase(KeyOf(Add("a", 0))), std::nullopt) << "erasing what is absent";
  EXPECT_TRUE(files.empty());
  EXPECT_EQ(files.begin(), files.end());

  // The same, on a copy that keeps its changes beside a shared base.
  ActiveFiles base;
  base.BeginVersion();
  for (int i = 0; i < 10; ++i) ASSERT_FALSE(base.InsertOrAssign(Add("f" + std::to_string(i), i)));
  ActiveFiles next(base);
  next.BeginVersion();
  replaced = next.InsertOrAssign(Add("f1", 10));
  ASSERT_TRUE(replaced.has_value());
  EXPECT_EQ(replaced->size, 1);
  EXPECT_FALSE(replaced->same_version);
  replaced = next.InsertOrAssign(Add("f1", 11));
  ASSERT_TRUE(replaced.has_value());
  EXPECT_EQ(replaced->size, 10);
  EXPECT_TRUE(replaced->same_version);
  EXPECT_FALSE(next.InsertOrAssign(Add("new", 1)).has_value());
  EXPECT_EQ(next.size(), 11u);
  EXPECT_EQ(base.size(), 10u);
  EXPECT_EQ(base.Find(KeyOf(Add("f1", 0))).value().size, 1) << "the original is unchanged";
}

// A version larger than a shared base allows beside it is folded as it
// comes; a repeat within it is still told, before and after the fold.
TEST(ActiveFilesTest, ALargeVersionOnASharedBaseFoldsAsItGoes) {
  ActiveFiles base;
  Model want = Fill(base, "b", 100);
  ActiveFiles next(base);
  next.BeginVersion();
  for (int i = 0; i < 1000; ++i) {
    const AddFile add = Add("n" + std::to_string(i), i);
    ASSERT_FALSE(next.InsertOrAssign(add).has_value()) << i;
    want.emplace(KeyOf(add), add);
  }
  for (int i : {0, 999}) {  // folded early, and kept beside the new base
    const std::optional<ActiveFiles::Replaced> again =
        next.InsertOrAssign(Add("n" + std::to_string(i), i));
    ASSERT_TRUE(again.has_value());
    EXPECT_TRUE(again->same_version) << i;
  }
  const std::optional<ActiveFiles::Replaced> earlier = next.InsertOrAssign(Add("b5", 5));
  ASSERT_TRUE(earlier.has_value());
  EXPECT_FALSE(earlier->same_version) << "a file of the base is from an earlier version";
  ExpectSame(next, want);
  EXPECT_EQ(base.size(), 100u);
}

TEST(ActiveFilesTest, AnIteratorAdvancesLikeAnInputIterator) {
  ActiveFiles files;
  Fill(files, "i", 10);
  auto it = files.begin();
  it++;
  EXPECT_EQ(it->second.path, "i1");
  std::advance(it, 8);  // i1 + 8: "i9" (keys sort as strings: i0, i1, i2, ...)
  EXPECT_EQ(it->first.path, "i9");
  ++it;
  EXPECT_EQ(it, files.end());
}

TEST(ActiveFilesTest, FilesWithADeletionVectorAreKeyedApartFromThoseWithout) {
  ActiveFiles files;
  files.BeginVersion();
  AddFile plain = Add("x.parquet", 1);
  AddFile with_dv = EveryField();
  with_dv.path = "x.parquet";
  files.InsertOrAssign(plain);
  EXPECT_FALSE(files.InsertOrAssign(with_dv).has_value());
  ExpectSame(files, {{KeyOf(plain), plain}, {KeyOf(with_dv), with_dv}});
  EXPECT_EQ(files.Erase(KeyOf(plain)), std::optional<int64_t>(1));
  ExpectSame(files, {{KeyOf(with_dv), with_dv}});
}

// Keys are sorted by 32-byte slices of their paths, then by whole keys
// where the slices tie: paths sharing long prefixes, paths that are
// prefixes of others, NUL bytes, one path under several deletion vectors.
TEST(ActiveFilesTest, IteratesInKeyOrderWhateverThePathsShare) {
  std::mt19937 rng(11);
  const std::string shared = "date=2024-01-01/hour=00/part-00000-0123456789abcdef0123456789abcdef";
  ActiveFiles files;
  files.BeginVersion();
  Model want;
  for (int i = 0; i < 4000; ++i) {
    std::string path = shared.substr(0, rng() % (shared.size() + 1));
    for (unsigned n = rng() % 4; n > 0; --n) path.push_back("ab\0/"[rng() % 4]);
    if (path.empty()) path = "x";
    AddFile add = Add(path, i);
    if (rng() % 5 == 0) {
      add.deletion_vector = EveryField().deletion_vector;
      add.deletion_vector->offset = static_cast<int32_t>(rng() % 3);
    }
    files.InsertOrAssign(add);
    want.insert_or_assign(KeyOf(add), add);
  }
  ExpectSame(files, want);
}

// Iterating decodes each file over the one before: nothing of one file
// may show through in the next, whatever fields and partition columns
// each has.
TEST(ActiveFilesTest, EachFileIteratedHasOnlyItsOwnFields) {
  ActiveFiles files;
  files.BeginVersion();
  Model want;
  const std::vector<NullableStringMap> partitions = {
      {{"a", "1"}}, {{"b", "2"}}, {{"a", std::nullopt}}, {}, {{"a", "1"}, {"b", ""}}, {{"a", ""}}};
  for (size_t i = 0; i < 12; ++i) {
    AddFile add = i % 2 == 0 ? EveryField() : Add("", 0);
    add.path = "f" + std::to_string(i);
    add.partition_values = partitions[i % partitions.size()];
    if (i % 3 == 0) add.stats.reset();
    files.InsertOrAssign(add);
    want.emplace(KeyOf(add), add);
  }
  ExpectSame(files, want);
}

// Random changes, versions begun between them, copies carried forward
// (whose changes sit beside a shared base until folded) and a big churn
// that makes the packed store reclaim what erased files left.
TEST(ActiveFilesTest, RandomChangesAgreeWithAPlainMapThroughCopiesAndFolds) {
  std::mt19937 rng(7);
  std::vector<std::unique_ptr<ActiveFiles>> lineage;
  std::vector<Model> models;
  lineage.push_back(std::make_unique<ActiveFiles>());
  models.emplace_back();
  for (int round = 0; round < 60; ++round) {
    ActiveFiles& files = *lineage.back();
    Model& model = models.back();
    files.BeginVersion();
    const int changes = round % 10 == 0 ? 3000 : 40;
    const unsigned keys = round < 30 ? 4000 : 600;  // later rounds erase more than they add
    for (int i = 0; i < changes; ++i) {
      const std::string path = "p" + std::to_string(rng() % keys) + ".parquet";
      AddFile add = Add(path, static_cast<int64_t>(rng() % 1000));
      add.modification_time = round;  // the version that inserted it
      if (rng() % 8 == 0) add.deletion_vector = EveryField().deletion_vector;
      const FileKey key = KeyOf(add);
      if (rng() % 3 == 0) {
        const auto it = model.find(key);
        const std::optional<int64_t> erased = files.Erase(key);
        ASSERT_EQ(erased.has_value(), it != model.end()) << path;
        if (it != model.end()) {
          EXPECT_EQ(*erased, it->second.size);
          model.erase(it);
        }
      } else {
        const auto it = model.find(key);
        const auto replaced = files.InsertOrAssign(add);
        ASSERT_EQ(replaced.has_value(), it != model.end()) << path;
        if (replaced) {
          EXPECT_EQ(replaced->size, it->second.size);
          EXPECT_EQ(replaced->same_version, it->second.modification_time == round) << path;
        }
        model.insert_or_assign(key, add);
      }
    }
    ExpectSame(files, model);
    if (round % 3 == 0) {
      lineage.push_back(std::make_unique<ActiveFiles>(files));
      models.push_back(model);
    }
    if (lineage.size() > 4) {
      lineage.erase(lineage.begin());  // its base may now be the next one's alone
      models.erase(models.begin());
    }
  }
  for (size_t i = 0; i < lineage.size(); ++i) ExpectSame(*lineage[i], models[i]);
}

// Past 1,024 erased records outnumbering the live ones, the store repacks
// itself (new record ids, a new index) in the middle of a version.
TEST(ActiveFilesTest, FilesStayFoundAcrossTheRepackingThatErasuresCause) {
  ActiveFiles files;
  Model want = Fill(files, "r", 3000);
  ExpectSame(files, want);  // sorted before the repack
  for (int i = 0; i < 3000; ++i) {
    if (i % 6 == 0) continue;
    const FileKey key = KeyOf(Add("r" + std::to_string(i), 0));
    ASSERT_EQ(files.Erase(key), std::optional<int64_t>(i));
    want.erase(key);
  }
  for (int i = 0; i < 3000; i += 12) {
    const auto replaced = files.InsertOrAssign(Add("r" + std::to_string(i), -i));
    ASSERT_TRUE(replaced.has_value());
    EXPECT_TRUE(replaced->same_version) << "the version survives a repack";
    want.insert_or_assign(KeyOf(Add("r" + std::to_string(i), 0)), Add("r" + std::to_string(i), -i));
  }
  ExpectSame(files, want);
}

TEST(ActiveFilesTest, ACopyCarriedForwardLeavesItsOriginalAsItWas) {
  ActiveFiles original;
  const Model want = Fill(original, "k", 1000);
  ActiveFiles next(original);
  for (int v = 0; v < 50; ++v) {  // enough changes to fold into a new base
    next.BeginVersion();
    next.InsertOrAssign(Add("k" + std::to_string(v), -v));
    next.Erase(KeyOf(Add("k" + std::to_string(500 + v), 0)));
    next.InsertOrAssign(Add("new" + std::to_string(v), v));
  }
  ExpectSame(original, want);
  EXPECT_EQ(next.size(), 1000u);
  EXPECT_EQ(next.Find(KeyOf(Add("k3", 0))).value().size, -3);
  EXPECT_FALSE(next.Find(KeyOf(Add("k503", 0))).has_value());
}

TEST(ActiveFilesTest, ThreadsIterateAndFindInASharedSnapshotAtOnce) {
  ActiveFiles files;
  Fill(files, "t", 5000);
  ActiveFiles next(files);  // a base with changes beside it
  next.BeginVersion();
  next.InsertOrAssign(Add("t1", -1));
  next.Erase(KeyOf(Add("t2", 0)));
  const ActiveFiles& shared = next;
  std::vector<std::thread> threads;
  std::vector<int64_t> sums(4, 0);
  for (size_t t = 0; t < sums.size(); ++t) {
    threads.emplace_back([&shared, &sums, t] {
      int64_t sum = 0;
      for (const auto& [key, add] : shared) sum += add.size;  // the first sorts the base
      sum += shared.Find(KeyOf(Add("t7", 0))).value().size;
      sums[t] = sum;
    });
  }
  for (std::thread& th : threads) th.join();
  const int64_t want = 4999LL * 5000 / 2 - 1 - 1 - 2 + 7;
  for (int64_t sum : sums) EXPECT_EQ(sum, want);
}

}  // namespace
}  // namespace deltacommit
