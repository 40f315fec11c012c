// FileMap against a plain std::map: random inserts, replacements and
// erasures, with copies carried forward and compactions between versions,
// always give the same contents, size and lookups; copies never change
// what they were copied from; the callbacks see the values replaced.
#include "deltacommit/file_map.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace deltacommit {
namespace {

using Map = FileMap<std::string, int>;

void ExpectSame(const Map& files, const std::map<std::string, int>& want) {
  EXPECT_EQ(files.map(), want);
  EXPECT_EQ(files.size(), want.size());
  EXPECT_EQ(files.empty(), want.empty());
  for (const auto& [key, value] : want) {
    const int* found = files.Find(key);
    ASSERT_NE(found, nullptr) << key;
    EXPECT_EQ(*found, value) << key;
  }
}

TEST(FileMapTest, ChangesAFreshMapInPlaceAndReportsWhatItReplaces) {
  Map files;
  int replaced = -1, removed = -1;
  const auto on_replaced = [&](const int& old) { replaced = old; };
  const auto on_removed = [&](const int& old) { removed = old; };
  EXPECT_EQ(files.InsertOrAssign("a", 1, on_replaced), "a");
  EXPECT_EQ(replaced, -1);
  files.InsertOrAssign("a", 2, on_replaced);
  EXPECT_EQ(replaced, 1);
  files.InsertOrAssign("b", 3, on_replaced);
  files.Erase("a", on_removed);
  EXPECT_EQ(removed, 2);
  removed = -1;
  files.Erase("zz", on_removed);
  EXPECT_EQ(removed, -1) << "erasing what is absent calls nothing";
  ExpectSame(files, {{"b", 3}});
  EXPECT_EQ(files.Find("a"), nullptr);
}

TEST(FileMapTest, ACopyCarriedForwardLeavesItsOriginalAsItWas) {
  Map original;
  const auto ignore = [](const int&) {};
  for (int i = 0; i < 1000; ++i) original.InsertOrAssign("k" + std::to_string(i), i, ignore);
  const std::map<std::string, int> before = original.map();
  Map next(original);
  next.InsertOrAssign("k5", -5, ignore);
  next.Erase("k6", ignore);
  next.InsertOrAssign("new", 1, ignore);
  ExpectSame(original, before);
  std::map<std::string, int> want = before;
  want["k5"] = -5;
  want.erase("k6");
  want["new"] = 1;
  ExpectSame(next, want);
  // A copy of the copy, after its merged map was asked for.
  Map third(next);
  third.Erase("new", ignore);
  want.erase("new");
  ExpectSame(third, want);
  EXPECT_NE(next.Find("new"), nullptr);
}

TEST(FileMapTest, RandomVersionsMatchAPlainMap) {
  std::mt19937 rng(20261205);
  const auto ignore = [](const int&) {};
  auto files = std::make_unique<Map>();
  std::map<std::string, int> want;
  std::vector<std::pair<std::unique_ptr<Map>, std::map<std::string, int>>> kept;
  for (int version = 0; version < 400; ++version) {
    // Carried forward, as a writer's next snapshot is.
    auto next = std::make_unique<Map>(*files);
    next->Compact();
    const int changes = version == 0 ? 3000 : static_cast<int>(rng() % 40);
    for (int c = 0; c < changes; ++c) {
      const std::string key = "f" + std::to_string(rng() % 4000);
      if (rng() % 3 == 0) {
        int old = -1;
        next->Erase(key, [&](const int& v) { old = v; });
        auto it = want.find(key);
        EXPECT_EQ(old, it == want.end() ? -1 : it->second);
        if (it != want.end()) want.erase(it);
      } else {
        const int value = static_cast<int>(rng() % 100000);
        next->InsertOrAssign(key, value, ignore);
        want[key] = value;
      }
    }
    ASSERT_NO_FATAL_FAILURE(ExpectSame(*next, want)) << "version " << version;
    if (version % 50 == 0) kept.emplace_back(std::make_unique<Map>(*next), want);
    files = std::move(next);
  }
  for (const auto& [old, contents] : kept) ExpectSame(*old, contents);
}

TEST(FileMapTest, ThreadsReadOneMapAtOnce) {
  Map base;
  const auto ignore = [](const int&) {};
  for (int i = 0; i < 2000; ++i) base.InsertOrAssign("k" + std::to_string(i), i, ignore);
  Map shared(base);
  shared.InsertOrAssign("k1", -1, ignore);  // a delta: map() merges on first use
  std::vector<std::thread> readers;
  std::vector<size_t> sizes(4);
  for (int t = 0; t < 4; ++t) {
    readers.emplace_back([&, t] { sizes[static_cast<size_t>(t)] = shared.map().size(); });
  }
  for (std::thread& r : readers) r.join();
  for (size_t n : sizes) EXPECT_EQ(n, 2000u);
  EXPECT_EQ(shared.map().at("k1"), -1);
}

}  // namespace
}  // namespace deltacommit
