// PackedFiles with hashes chosen to collide: a handful of values, some
// placing keys in the index's last slots so that probes wrap around. Random
// puts, removes (backward-shift deletion), copies and the repacking that
// removals cause agree with a std::map on every lookup, present or absent,
// on the size and on the key order; blobs larger than a chunk too.
#include "packed_files.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>
#include <string>

namespace deltacommit::internal {
namespace {

struct Stored {
  int64_t size;
  uint32_t batch;
};

// Few distinct hashes; with `wrap`, all in the top slots of any index.
uint32_t CollidingHash(const std::string& path, bool wrap) {
  const auto h = static_cast<uint32_t>(std::hash<std::string>()(path) % 5);
  return wrap ? (0xfffffff0u | h) : h;
}

void ExpectAgrees(const PackedFiles& packed, const std::map<std::string, Stored>& model,
                  unsigned keys, bool wrap) {
  ASSERT_EQ(packed.size(), model.size());
  for (unsigned i = 0; i < keys; ++i) {
    const std::string path = "k" + std::to_string(i);
    const uint32_t id = packed.Find({path, {}}, CollidingHash(path, wrap));
    const auto it = model.find(path);
    ASSERT_EQ(id != PackedFiles::kNone, it != model.end()) << path;
    if (id != PackedFiles::kNone) {
      EXPECT_EQ(DecodeSize(packed.Blob(id)), it->second.size) << path;
    }
  }
  const std::vector<uint32_t>& order = packed.Order();
  ASSERT_EQ(order.size(), model.size());
  auto expected = model.begin();
  for (uint32_t id : order) EXPECT_EQ(DecodeKey(packed.Blob(id)).path, (expected++)->first);
}

TEST(PackedFilesTest, CollidingKeysStayFoundThroughRemovesCopiesAndRepacks) {
  for (int seed = 0; seed < 8; ++seed) {
    std::mt19937 rng(static_cast<unsigned>(seed));
    const bool wrap = seed % 2 == 1;
    const unsigned keys = 300 + 400 * static_cast<unsigned>(seed);
    auto packed = std::make_unique<PackedFiles>();
    std::map<std::string, Stored> model;
    for (int step = 0; step < 6000; ++step) {
      const std::string path = "k" + std::to_string(rng() % keys);
      const FileKeyView key{path, {}};
      const uint32_t hash = CollidingHash(path, wrap);
      const auto it = model.find(path);
      if (rng() % 10 < 6) {
        AddFile add;
        add.path = path;
        add.size = static_cast<int64_t>(rng() % 100000) - 50000;
        // Now and then a blob larger than a chunk: a chunk of its own.
        if (rng() % 400 == 0) add.stats = std::string(300000, 'x');
        std::string blob;
        EncodeAddFile(key, add, blob);
        const auto batch = static_cast<uint32_t>(step / 100);
        const std::optional<PackedFiles::Old> old = packed->Put(key, hash, blob, batch);
        ASSERT_EQ(old.has_value(), it != model.end()) << path;
        if (old) {
          EXPECT_EQ(old->size, it->second.size);
          EXPECT_EQ(old->batch, it->second.batch);
        }
        model.insert_or_assign(path, Stored{add.size, batch});
      } else {
        const std::optional<PackedFiles::Old> old = packed->Remove(key, hash);
        ASSERT_EQ(old.has_value(), it != model.end()) << path;
        if (old) {
          EXPECT_EQ(old->size, it->second.size);
          model.erase(it);
        }
      }
      if (rng() % 1000 == 0) packed = packed->Copy();
      if (step % 1500 == 1499) ExpectAgrees(*packed, model, keys, wrap);
    }
  }
}

}  // namespace
}  // namespace deltacommit::internal
