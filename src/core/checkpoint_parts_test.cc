// Multi-part checkpoints: Spark's hash (checked against published values),
// the part count, and the split (a file's add and remove together, every
// non-file action where a null key hashes, nothing lost).
#include "deltacommit/core/checkpoint_parts.h"

#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

#include "deltacommit/action_json.h"

namespace deltacommit {
namespace {

// Spark's Murmur3_x86_32.hashInt, to fold ints as Spark's hash() does.
int32_t SparkHashInt(int32_t value, int32_t seed) {
  auto rotl = [](uint32_t x, int r) { return (x << r) | (x >> (32 - r)); };
  uint32_t k1 = static_cast<uint32_t>(value) * 0xcc9e2d51u;
  k1 = rotl(k1, 15) * 0x1b873593u;
  uint32_t h1 = static_cast<uint32_t>(seed) ^ k1;
  h1 = rotl(h1, 13) * 5 + 0xe6546b64u;
  h1 ^= 4;
  h1 ^= h1 >> 16;
  h1 *= 0x85ebca6bu;
  h1 ^= h1 >> 13;
  h1 *= 0xc2b2ae35u;
  return static_cast<int32_t>(h1 ^ (h1 >> 16));
}

TEST(SparkMurmur3Test, MatchesPublishedValues) {
  // Whole words: the reference Murmur3_x86_32 vectors.
  EXPECT_EQ(static_cast<uint32_t>(SparkMurmur3("", 0)), 0u);
  EXPECT_EQ(static_cast<uint32_t>(SparkMurmur3("", 1)), 0x514E28B7u);
  EXPECT_EQ(static_cast<uint32_t>(SparkMurmur3("test", 0)), 0xBA6BD213u);
  // Spark's own tail handling: the example of Spark SQL's hash() function,
  // hash('Spark', array(123), 2) = -1321691492 ("Spark" has a 1-byte tail;
  // the array's element and 2 fold in as ints; the seed is 42).
  EXPECT_EQ(SparkHashInt(2, SparkHashInt(123, SparkMurmur3("Spark", 42))), -1321691492);
}

TEST(SparkHashPartitionTest, IsPmodOfTheFoldedHashSkippingNulls) {
  const int32_t h = SparkMurmur3("part-0.parquet", 42);
  EXPECT_EQ(SparkHashPartition({std::string("part-0.parquet")}, 7), ((h % 7) + 7) % 7);
  EXPECT_EQ(SparkHashPartition({std::string("part-0.parquet"), std::nullopt}, 7),
            SparkHashPartition({std::string("part-0.parquet")}, 7));
  const int32_t h2 = SparkMurmur3("u123@4", h);
  EXPECT_EQ(SparkHashPartition({std::string("part-0.parquet"), std::string("u123@4")}, 5),
            ((h2 % 5) + 5) % 5);
  EXPECT_EQ(SparkHashPartition({std::nullopt}, 5), 42 % 5);
  EXPECT_EQ(SparkHashPartition({std::nullopt}, 1), 0);
}

TEST(CheckpointPartCountTest, SplitsOnlyAbovePartSize) {
  EXPECT_EQ(CheckpointPartCount(0, 10), 1);
  EXPECT_EQ(CheckpointPartCount(10, 10), 1);
  EXPECT_EQ(CheckpointPartCount(11, 10), 2);
  EXPECT_EQ(CheckpointPartCount(25, 10), 3);
  EXPECT_EQ(CheckpointPartCount(7, 1), 7);
}

AddFile Add(std::string path) {
  AddFile a;
  a.path = std::move(path);
  a.size = 1;
  return a;
}

TEST(SplitIntoPartsTest, ClustersFilesByPathAndDeletionVectorAsSparkDoes) {
  Metadata metadata;
  metadata.id = "id";
  std::vector<Action> actions{Protocol{}, metadata};
  for (int i = 0; i < 40; ++i) actions.emplace_back(Add("f" + std::to_string(i) + ".parquet"));
  AddFile with_dv = Add("dv.parquet");
  with_dv.deletion_vector = DeletionVectorDescriptor{"u", "ab^-aqEH.-t@S}K{vb[*k^", 4, 40, 1, {}};
  actions.emplace_back(with_dv);
  RemoveFile removed;
  removed.path = "f3.parquet";
  actions.emplace_back(removed);

  const std::vector<std::vector<Action>> parts = SplitIntoParts(actions, 4);
  ASSERT_EQ(parts.size(), 4u);
  size_t total = 0;
  for (size_t p = 0; p < parts.size(); ++p) {
    total += parts[p].size();
    for (const Action& a : parts[p]) {
      if (const auto* add = std::get_if<AddFile>(&a)) {
        std::vector<std::optional<std::string>> key{add->path};
        if (add->deletion_vector) key.emplace_back(add->deletion_vector->UniqueId());
        EXPECT_EQ(SparkHashPartition(key, 4), static_cast<int32_t>(p)) << add->path;
      } else if (const auto* remove = std::get_if<RemoveFile>(&a)) {
        // Same key as the add of f3: the same part.
        EXPECT_EQ(SparkHashPartition({remove->path}, 4), static_cast<int32_t>(p));
      } else {
        EXPECT_EQ(p, 42u % 4) << ActionToJson(a);  // null key: 42 mod n
      }
    }
  }
  EXPECT_EQ(total, actions.size());
  // 40 paths spread over every part (none left empty by a constant hash).
  for (const auto& part : parts) EXPECT_GE(part.size(), 3u);
  // Order within a part is kept: protocol before metaData.
  EXPECT_TRUE(std::holds_alternative<Protocol>(parts[42 % 4][0]));
  EXPECT_TRUE(std::holds_alternative<Metadata>(parts[42 % 4][1]));
}

}  // namespace
}  // namespace deltacommit
