// [[token]] entries of the service config.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "service/config/auth.h"
#include "service/config/service_config.h"

namespace deltacommit::service {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

const std::string kHashA = HashToken("token-a");
const std::string kHashB = HashToken("token-b");

std::string TokenEntry(std::string_view name, std::string_view sha256,
                       std::string_view tables = R"(["s3://lake/sales"])",
                       std::string_view actions = R"(["commit"])") {
  return "[[token]]\nname = \"" + std::string(name) + "\"\nsha256 = \"" +
         std::string(sha256) + "\"\ntables = " + std::string(tables) +
         "\nactions = " + std::string(actions) + "\n";
}

std::string Error(std::string_view text) {
  StatusOr<ServiceConfig> config = ParseServiceConfig(text, "test.toml");
  EXPECT_FALSE(config.ok()) << "accepted:\n" << text;
  if (config.ok()) return "";
  EXPECT_EQ(config.status().code(), StatusCode::kInvalidArgument);
  return config.status().message();
}

TEST(TokenConfigTest, ReadsTokensAndNormalisesTheirPrefixes) {
  std::string upper_hash = kHashB;
  for (char& c : upper_hash) {
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  StatusOr<ServiceConfig> config = ParseServiceConfig(
      TokenEntry("etl", kHashA, R"(["s3a://lake/sales/", "s3://other"])",
                 R"(["commit", "read"])") +
          TokenEntry("dash.board@team", upper_hash, R"(["s3://lake"])",
                     R"(["read", "read"])"),
      "test.toml");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  ASSERT_EQ(config->tokens.size(), 2u);
  const TokenConfig& etl = config->tokens[0];
  EXPECT_EQ(etl.name, "etl");
  EXPECT_EQ(etl.sha256_hex, kHashA);
  EXPECT_THAT(etl.tables, ElementsAre("s3://lake/sales", "s3://other"));
  EXPECT_TRUE(etl.may_commit);
  EXPECT_TRUE(etl.may_read);
  const TokenConfig& dash = config->tokens[1];
  EXPECT_EQ(dash.name, "dash.board@team");
  EXPECT_EQ(dash.sha256_hex, kHashB);  // lower-cased
  EXPECT_FALSE(dash.may_commit);
  EXPECT_TRUE(dash.may_read);

  // The loaded entries authenticate the tokens they hash.
  Authenticator auth(config->tokens);
  StatusOr<const TokenConfig*> found = auth.Authenticate("Bearer token-b");
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ((*found)->name, "dash.board@team");
}

TEST(TokenConfigTest, RequiredKeysAreNamed) {
  EXPECT_EQ(Error("[[token]]\nsha256 = \"" + kHashA + "\"\n"),
            "test.toml:1:1: token[0]: missing required key name");
  EXPECT_EQ(Error("[[token]]\nname = \"a\"\n"),
            "test.toml:1:1: token[0]: missing required key sha256");
  EXPECT_EQ(
      Error(TokenEntry("a", kHashA) + "[[token]]\nname = \"b\"\nsha256 = \"" +
            kHashB + "\"\nactions = [\"read\"]\n"),
      "test.toml:6:1: token[1]: missing required key tables");
  EXPECT_EQ(Error("[[token]]\nname = \"a\"\nsha256 = \"" + kHashA +
                  "\"\ntables = [\"s3://lake\"]\n"),
            "test.toml:1:1: token[0]: missing required key actions");
}

TEST(TokenConfigTest, MisspeltKeyIsReportedAsUnknownNotAsMissing) {
  EXPECT_EQ(Error("[[token]]\nname = \"a\"\nsha256 = \"" + kHashA +
                  "\"\ntable = [\"s3://lake\"]\nactions = [\"read\"]\n"),
            "test.toml:4:1: unknown key token[0].table ([[token]] takes: name, "
            "sha256, tables, actions, catalogs)");
}

TEST(TokenConfigTest, Sha256MustBeAHashAndIsNeverQuoted) {
  for (std::string_view bad :
       {"my-plain-secret-token", "abc",
        "zz06d3b46a3d7e7cf70ff9fc48bf69899544511e9f87feb771b604161b4630427",
        "630427196d3b46a3d7e7cf70ff9fc48bf69899544511e9f87feb771b604161b"}) {
    std::string message = Error(TokenEntry("a", bad));
    EXPECT_THAT(
        message,
        AllOf(StartsWith("test.toml:3:10: token[0].sha256: must be the token's "
                         "SHA-256 as 64 hex digits"),
              Not(HasSubstr(std::string(bad)))))
        << bad;
  }
}

TEST(TokenConfigTest, NamesAndHashesMustBeUnique) {
  EXPECT_EQ(Error(TokenEntry("a", kHashA) + TokenEntry("a", kHashB)),
            "test.toml:7:8: token[1].name: \"a\" is already used by an earlier "
            "[[token]]");
  EXPECT_EQ(Error(TokenEntry("a", kHashA) + TokenEntry("b", kHashA)),
            "test.toml:8:10: token[1].sha256: is the same as that of token "
            "\"a\"; each token "
            "must be different");
}

TEST(TokenConfigTest, NameMustBePlain) {
  // (TOML text of the name, how the message quotes it)
  for (auto [toml, quoted] :
       {std::pair{"", "\"\""}, std::pair{"has space", "\"has space\""},
        std::pair{"new\\nline", "\"new\\x0aline\""},
        std::pair{"quote'", "\"quote'\""}}) {
    EXPECT_EQ(
        Error(TokenEntry(toml, kHashA)),
        "test.toml:2:8: token[0].name: " + std::string(quoted) +
            " is not a token name (1-64 of a-z, A-Z, 0-9, '.', '_', '-', '@')")
        << toml;
  }
  EXPECT_THAT(Error(TokenEntry(std::string(65, 'n'), kHashA)),
              HasSubstr("is not a token name"));
}

TEST(TokenConfigTest, TablePrefixesAreCheckedLikeTableUris) {
  EXPECT_EQ(
      Error(TokenEntry("a", kHashA, R"(["s3://lake/ok", "s3://lake/../x"])")),
      "test.toml:4:10: token[0].tables: path of s3://lake/../x has an empty, "
      "\".\" or "
      "\"..\" segment; give the table's path plainly, e.g. "
      "s3://bucket/tables/events");
  EXPECT_THAT(Error(TokenEntry("a", kHashA, R"(["https://lake/x"])")),
              AllOf(StartsWith("test.toml:4:10: token[0].tables:"),
                    HasSubstr("is not a table URI the service takes")));
  EXPECT_THAT(
      Error(TokenEntry("a", kHashA, R"(["s3://lake/a%2Fb"])")),
      AllOf(StartsWith("test.toml:4:10: token[0].tables:"), HasSubstr("%2F")));
  EXPECT_EQ(Error(TokenEntry("a", kHashA, "[]")),
            "test.toml:4:10: token[0].tables: is empty; list the table URI "
            "prefixes the token "
            "may use (e.g. \"s3://bucket/prefix\")");
  EXPECT_EQ(Error(TokenEntry("a", kHashA, "\"s3://lake\"")),
            "test.toml:4:10: token[0].tables: must be an array of strings, not "
            "a string");
  EXPECT_EQ(Error(TokenEntry("a", kHashA, "[\"s3://lake\", 7]")),
            "test.toml:4:24: token[0].tables: must be an array of strings, but "
            "has an integer");
}

TEST(TokenConfigTest, ActionsAreCommitReadAndManage) {
  EXPECT_EQ(Error(TokenEntry("a", kHashA, R"(["s3://lake"])",
                             R"(["commit", "write"])")),
            "test.toml:5:11: token[0].actions: has \"write\"; the actions are "
            "\"commit\", \"read\" and \"manage\"");
  EXPECT_EQ(Error(TokenEntry("a", kHashA, R"(["s3://lake"])", "[]")),
            "test.toml:5:11: token[0].actions: is empty; give \"commit\", "
            "\"read\", \"manage\" or several");
  EXPECT_THAT(
      Error(TokenEntry("a", kHashA, R"(["s3://lake"])", R"(["Commit"])")),
      HasSubstr("has \"Commit\""));
  StatusOr<ServiceConfig> config = ParseServiceConfig(
      TokenEntry("admin", kHashA, R"(["s3://lake"])", R"(["manage"])"), "test.toml");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_TRUE(config->tokens[0].Allows(Action::kManage));
  EXPECT_FALSE(config->tokens[0].Allows(Action::kCommit));
  EXPECT_FALSE(config->tokens[0].Allows(Action::kRead));
}

// `catalogs`: the Unity Catalog names a token may use; none without it.
TEST(TokenConfigTest, CatalogPrefixesAreCheckedNames) {
  StatusOr<ServiceConfig> config = ParseServiceConfig(
      TokenEntry("a", kHashA) + "catalogs = [\"main\", \"lake.sales\", \"x.y.z\", \"*\"]\n" +
          TokenEntry("b", kHashB),
      "test.toml");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_THAT(config->tokens[0].catalogs, ElementsAre("main", "lake.sales", "x.y.z", "*"));
  EXPECT_TRUE(config->tokens[1].catalogs.empty());
  EXPECT_THAT(Error(TokenEntry("a", kHashA) + "catalogs = [\"main.\"]\n"),
              HasSubstr("token[0].catalogs: schema name is empty"));
  EXPECT_THAT(Error(TokenEntry("a", kHashA) + "catalogs = [\"a/b\"]\n"),
              HasSubstr("token[0].catalogs: catalog name \"a/b\" has '/'"));
  EXPECT_THAT(Error(TokenEntry("a", kHashA) + "catalogs = [\"a.b.c.d\"]\n"),
              HasSubstr("has more than three names"));
}

TEST(TokenConfigTest, NamesAreAuthorisedByPrefixAtDotBoundaries) {
  TokenConfig token;
  token.name = "etl";
  token.catalogs = {"main.sales"};
  token.may_read = true;
  EXPECT_TRUE(AuthorizeName(token, "main.sales", Action::kRead).ok());
  EXPECT_TRUE(AuthorizeName(token, "main.sales.orders", Action::kRead).ok());
  Status s = AuthorizeName(token, "main.salesforce.x", Action::kRead);
  EXPECT_EQ(s.code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(s.message(),
            "token \"etl\" may not read \"main.salesforce.x\": the name is not under any of the "
            "token's catalog prefixes; ask the operator to add it to the token's `catalogs`");
  EXPECT_FALSE(AuthorizeName(token, "main", Action::kRead).ok());
  EXPECT_THAT(AuthorizeName(token, "main.sales.orders", Action::kCommit).message(),
              HasSubstr("the token's actions do not include \"commit\""));
  token.catalogs = {"*"};
  EXPECT_TRUE(AuthorizeName(token, "anything.at.all", Action::kRead).ok());
}

}  // namespace
}  // namespace deltacommit::service
