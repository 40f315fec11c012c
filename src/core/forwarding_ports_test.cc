// ForwardingObjectStore: a subclass that overrides one call still forwards
// the others.
#include "deltacommit/forwarding_ports.h"

#include <gtest/gtest.h>

#include <string>

#include "testing/memory_object_store.h"

namespace deltacommit {
namespace {

// Overrides Get only; every other call is the forwarding one.
class CountingGets : public ForwardingObjectStore {
 public:
  using ForwardingObjectStore::ForwardingObjectStore;
  StatusOr<std::string> Get(
      std::string_view key,
      std::optional<ByteRange> range = std::nullopt) override {
    ++gets;
    return ForwardingObjectStore::Get(key, range);
  }
  int gets = 0;
};

TEST(ForwardingObjectStoreTest, SubclassOverridesOnlyWhatItNeeds) {
  MemoryObjectStore base;
  CountingGets store(base);
  ASSERT_TRUE(store.Put("k", "v").ok());
  EXPECT_EQ(*store.Get("k"), "v");
  EXPECT_EQ(store.gets, 1);
  EXPECT_EQ(&store.base(), &base);
}

}  // namespace
}  // namespace deltacommit
