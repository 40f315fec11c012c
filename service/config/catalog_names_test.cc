// The names a Unity Catalog request may use, and token prefixes over them.
#include "service/config/catalog_names.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace deltacommit::service {
namespace {

using ::testing::HasSubstr;

TEST(CatalogNamesTest, NamesAreAsciiLettersDigitsUnderscoreAndDash) {
  for (const char* name : {"main", "Sales_2024", "a-b", "_", "x"}) {
    EXPECT_TRUE(ValidateCatalogName("table", name).ok()) << name;
  }
  EXPECT_TRUE(ValidateCatalogName("table", std::string(255, 'a')).ok());
  struct Case {
    std::string name;
    std::string names;
  };
  const Case refused[] = {
      {"", "table name is empty"},
      {std::string(256, 'a'), "256 bytes, more than 255"},
      {"a.b", "has '.'"},
      {"a/b", "has '/'"},
      {"a%2E", "has '%'"},
      {"a b", "has byte 0x20"},
      {std::string("a\x01", 2), "has byte 0x01"},
      {"caf\xC3\xA9", "has byte 0xC3"},
      {"a\\b", "has '\\'"},
  };
  for (const Case& c : refused) {
    Status s = ValidateCatalogName("table", c.name);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << c.name;
    EXPECT_THAT(s.message(), HasSubstr(c.names)) << c.name;
  }
}

TEST(CatalogNamesTest, UuidsAreCanonicalLowerCase) {
  EXPECT_TRUE(ValidateUuid("id", "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0").ok());
  for (const char* text :
       {"0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0", "0f1e2d3c4b5a-6978-8796-a5b4c3d2e1f0-",
        "0f1e2d3c-4b5a-6978-8796", "", "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1fg"}) {
    Status s = ValidateUuid("table id", text);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << text;
    EXPECT_THAT(s.message(), HasSubstr("is not a UUID")) << text;
  }
}

TEST(CatalogNamesTest, PrefixesCoverAtDotBoundaries) {
  EXPECT_TRUE(CatalogPrefixCovers("main", "main"));
  EXPECT_TRUE(CatalogPrefixCovers("main", "main.sales.orders"));
  EXPECT_FALSE(CatalogPrefixCovers("main", "mainframe"));
  EXPECT_FALSE(CatalogPrefixCovers("main.sales", "main"));
  EXPECT_TRUE(CatalogPrefixCovers("*", "any.thing"));
  EXPECT_TRUE(ValidateCatalogPrefix("a.b.c").ok());
  EXPECT_TRUE(ValidateCatalogPrefix("*").ok());
  EXPECT_THAT(ValidateCatalogPrefix("a.*").message(), HasSubstr("schema name \"*\" has '*'"));
  EXPECT_THAT(ValidateCatalogPrefix("a.b.c.d").message(), HasSubstr("more than three names"));
}

}  // namespace
}  // namespace deltacommit::service
