#include "service/config/auth.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace deltacommit::service {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr std::string_view kEtlToken =
    "etl-SECRET-9f8e7d6c5b4a39281706f5e4d3c2b1a0";
constexpr std::string_view kReaderToken =
    "reader-SECRET-0123456789abcdef0123456789abcdef";

TEST(HashTokenTest, IsLowerHexSha256OfTheTokenBytes) {
  // FIPS 180-2 test vectors.
  EXPECT_EQ(HashToken("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(HashToken(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

Status BearerError(std::optional<std::string_view> header) {
  StatusOr<std::string_view> token = ParseBearerToken(header);
  EXPECT_FALSE(token.ok()) << (header ? *header : "(none)");
  if (token.ok()) return OkStatus();
  EXPECT_EQ(token.status().code(), StatusCode::kUnauthenticated);
  return token.status();
}

TEST(ParseBearerTokenTest, TakesTheTokenAfterTheScheme) {
  for (std::string_view header :
       {"Bearer abc.DEF-123_~+/==", "bearer abc.DEF-123_~+/==",
        "BEARER   abc.DEF-123_~+/==  "}) {
    StatusOr<std::string_view> token = ParseBearerToken(header);
    ASSERT_TRUE(token.ok()) << header << ": " << token.status().ToString();
    EXPECT_EQ(*token, "abc.DEF-123_~+/==");
  }
}

TEST(ParseBearerTokenTest, MissingHeader) {
  EXPECT_THAT(BearerError(std::nullopt).message(),
              AllOf(HasSubstr("missing Authorization header"),
                    HasSubstr("Authorization: Bearer <token>")));
}

TEST(ParseBearerTokenTest,
     OtherSchemesAreNamedOnlyWhenTheyCannotBeACredential) {
  EXPECT_THAT(BearerError("Basic dXNlcjpwYXNz").message(),
              AllOf(HasSubstr("not a bearer token (scheme \"Basic\")"),
                    Not(HasSubstr("dXNlcjpwYXNz"))));
  EXPECT_THAT(
      BearerError("AWS4-HMAC-SHA256 Credential=AKIA/x").message(),
      AllOf(HasSubstr("scheme \"AWS4-HMAC-SHA256\""), Not(HasSubstr("AKIA"))));
  // A bare token (no scheme) must not be echoed as if it were a scheme.
  EXPECT_THAT(BearerError(kEtlToken).message(),
              AllOf(HasSubstr("not a bearer token"), Not(HasSubstr("SECRET")),
                    Not(HasSubstr("scheme"))));
  EXPECT_THAT(BearerError("Bearertoken123").message(),
              HasSubstr("not a bearer token"));
  EXPECT_THAT(BearerError("").message(), HasSubstr("not a bearer token"));
  EXPECT_THAT(BearerError("Token:SECRET rest").message(),
              Not(HasSubstr("SECRET")));
}

TEST(ParseBearerTokenTest, EmptyOverlongAndMalformedTokens) {
  EXPECT_THAT(BearerError("Bearer").message(),
              HasSubstr("bearer token is empty"));
  EXPECT_THAT(BearerError("Bearer    ").message(),
              HasSubstr("bearer token is empty"));
  std::string at_limit = "Bearer " + std::string(kMaxBearerTokenLength, 'a');
  EXPECT_TRUE(ParseBearerToken(at_limit).ok());
  EXPECT_THAT(BearerError(at_limit + "a").message(),
              AllOf(HasSubstr("4097 bytes long; the limit is 4096"),
                    Not(HasSubstr("aaaa"))));
  for (std::string_view header :
       {"Bearer SECRET token", "Bearer SECRET\"", "Bearer =SECRET",
        "Bearer SECRET=x", "Bearer SEC\x01RET", "Bearer SECRET,x"}) {
    EXPECT_THAT(
        BearerError(header).message(),
        AllOf(HasSubstr("bearer token is malformed"), Not(HasSubstr("SECRET"))))
        << header;
  }
}

TokenConfig Token(std::string name, std::string_view token,
                  std::vector<std::string> tables, bool commit, bool read) {
  TokenConfig config;
  config.name = std::move(name);
  config.sha256_hex = HashToken(token);
  config.tables = std::move(tables);
  config.may_commit = commit;
  config.may_read = read;
  return config;
}

Authenticator TwoTokens() {
  return Authenticator(
      {Token("etl", kEtlToken, {"s3://lake/sales"}, true, true),
       Token("reader", kReaderToken, {"s3://lake"}, false, true)});
}

TEST(AuthenticatorTest, FindsTheEntryOfTheToken) {
  Authenticator auth = TwoTokens();
  StatusOr<const TokenConfig*> etl =
      auth.Authenticate("Bearer " + std::string(kEtlToken));
  ASSERT_TRUE(etl.ok()) << etl.status().ToString();
  EXPECT_EQ((*etl)->name, "etl");
  StatusOr<const TokenConfig*> reader =
      auth.Authenticate("Bearer " + std::string(kReaderToken));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->name, "reader");
}

TEST(AuthenticatorTest, UnknownTokensAreRefusedWithoutEchoingThem) {
  Authenticator auth = TwoTokens();
  std::string almost(kEtlToken);
  almost.back() = 'X';
  for (const std::string& token :
       {almost, std::string(kEtlToken) + "0", std::string(kEtlToken.substr(1)),
        HashToken(kEtlToken)}) {
    StatusOr<const TokenConfig*> found = auth.Authenticate("Bearer " + token);
    ASSERT_FALSE(found.ok()) << token;
    EXPECT_EQ(found.status().code(), StatusCode::kUnauthenticated);
    EXPECT_THAT(
        found.status().message(),
        AllOf(HasSubstr("unknown bearer token"), Not(HasSubstr("SECRET")),
              Not(HasSubstr(HashToken(kEtlToken)))));
  }
}

TEST(AuthenticatorTest, ReportsHeaderProblemsBeforeLookingUp) {
  Authenticator auth = TwoTokens();
  EXPECT_THAT(auth.Authenticate(std::nullopt).status().message(),
              HasSubstr("missing Authorization header"));
  EXPECT_THAT(
      auth.Authenticate("Basic " + std::string(kEtlToken)).status().message(),
      AllOf(HasSubstr("not a bearer token"), Not(HasSubstr("SECRET"))));
}

TEST(AuthenticatorTest, NoTokensConfiguredRefusesEveryone) {
  Authenticator auth({});
  EXPECT_EQ(
      auth.Authenticate("Bearer " + std::string(kEtlToken)).status().code(),
      StatusCode::kUnauthenticated);
}

TableUri Table(std::string_view uri) {
  StatusOr<TableUri> table = NormalizeTableUri(uri);
  EXPECT_TRUE(table.ok()) << table.status().ToString();
  return table.ok() ? *table : TableUri{};
}

TEST(AuthorizeTest, PrefixAndActionMustBothAllow) {
  TokenConfig etl =
      Token("etl", kEtlToken, {"s3://lake/sales", "s3://other/t"}, true, false);
  EXPECT_TRUE(Authorize(etl, Table("s3://lake/sales"), Action::kCommit).ok());
  EXPECT_TRUE(
      Authorize(etl, Table("s3://lake/sales/eu"), Action::kCommit).ok());
  EXPECT_TRUE(Authorize(etl, Table("s3://other/t"), Action::kCommit).ok());

  Status wrong_table =
      Authorize(etl, Table("s3://lake/salesforce"), Action::kCommit);
  EXPECT_EQ(wrong_table.code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(wrong_table.message(),
            "token \"etl\" may not commit to table s3://lake/salesforce: the "
            "table is not under "
            "any of the token's table prefixes; ask the operator to add it to "
            "the token's "
            "`tables`");

  Status wrong_action = Authorize(etl, Table("s3://lake/sales"), Action::kRead);
  EXPECT_EQ(wrong_action.code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(wrong_action.message(),
            "token \"etl\" may not read table s3://lake/sales: the token's "
            "actions do not "
            "include \"read\"");
}

TEST(AuthorizeTest, BucketPrefixCoversTheBucketOnly) {
  TokenConfig reader =
      Token("reader", kReaderToken, {"s3://lake"}, false, true);
  EXPECT_TRUE(Authorize(reader, Table("s3://lake/a/b"), Action::kRead).ok());
  EXPECT_TRUE(Authorize(reader, Table("s3://lake"), Action::kRead).ok());
  EXPECT_EQ(Authorize(reader, Table("s3://lakehouse/a"), Action::kRead).code(),
            StatusCode::kPermissionDenied);
  EXPECT_EQ(Authorize(reader, Table("s3://lake/a"), Action::kCommit).code(),
            StatusCode::kPermissionDenied);
}

TEST(AuthorizeTest, TokenWithoutTablesMayDoNothing) {
  TokenConfig none = Token("none", kEtlToken, {}, true, true);
  EXPECT_EQ(Authorize(none, Table("s3://lake/a"), Action::kCommit).code(),
            StatusCode::kPermissionDenied);
}

}  // namespace
}  // namespace deltacommit::service
