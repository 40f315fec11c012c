#include "deltacommit/catalog_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace deltacommit {
namespace {

using ::testing::HasSubstr;

TEST(ParseCatalogTableNameTest, ThreePartsWithOrWithoutTheScheme) {
  for (const char* text : {"uc://main.sales.orders", "main.sales.orders"}) {
    StatusOr<CatalogTableName> name = ParseCatalogTableName(text);
    ASSERT_TRUE(name.ok()) << text;
    EXPECT_EQ(name->catalog, "main");
    EXPECT_EQ(name->schema, "sales");
    EXPECT_EQ(name->table, "orders");
    EXPECT_EQ(name->FullName(), "main.sales.orders");
  }
}

TEST(ParseCatalogTableNameTest, AnythingElseIsRefusedNamingWhy) {
  const std::pair<const char*, const char*> cases[] = {
      {"uc://main.sales", "has 2 parts, not 3"},  {"uc://a.b.c.d", "has 4 parts, not 3"},
      {"uc://main..orders", "has an empty part"}, {"uc://main.sales.%2E%2E", "holds '%'"},
      {"uc://main.sales/../x.t", "holds '/'"},    {"uc://main.sales.or\nders", "control character"},
  };
  for (const auto& [text, want] : cases) {
    StatusOr<CatalogTableName> name = ParseCatalogTableName(text);
    ASSERT_FALSE(name.ok()) << text;
    EXPECT_EQ(name.status().code(), StatusCode::kInvalidArgument) << text;
    EXPECT_THAT(name.status().message(), HasSubstr(want)) << text;
    EXPECT_THAT(name.status().message(), HasSubstr("uc://<catalog>.<schema>.<table>")) << text;
  }
}

}  // namespace
}  // namespace deltacommit
