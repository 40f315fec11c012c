#include "service/vend/session_policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace deltacommit::service {
namespace {

using nlohmann::json;

TableUri Location(const std::string& uri) {
  StatusOr<TableUri> t = NormalizeTableUri(uri);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? *t : TableUri{};
}

TEST(SessionPolicyTest, ReadGetsAndListsTheTablesPrefixOnly) {
  json policy =
      json::parse(SessionPolicy(Location("s3://lake/sales/orders"), VendOperation::kRead));
  EXPECT_EQ(policy["Version"], "2012-10-17");
  ASSERT_EQ(policy["Statement"].size(), 2u);
  const json& objects = policy["Statement"][0];
  EXPECT_EQ(objects["Effect"], "Allow");
  EXPECT_EQ(objects["Action"], json({"s3:GetObject"}));
  EXPECT_EQ(objects["Resource"],
            json({"arn:aws:s3:::lake/sales/orders", "arn:aws:s3:::lake/sales/orders/*"}));
  const json& list = policy["Statement"][1];
  EXPECT_EQ(list["Action"], json({"s3:ListBucket"}));
  EXPECT_EQ(list["Resource"], json({"arn:aws:s3:::lake"}));
  EXPECT_EQ(list["Condition"]["StringLike"]["s3:prefix"],
            json({"sales/orders/", "sales/orders/*"}));
}

TEST(SessionPolicyTest, ReadWriteAlsoPutsAndDeletes) {
  json policy = json::parse(SessionPolicy(Location("s3://lake/t"), VendOperation::kReadWrite));
  ASSERT_EQ(policy["Statement"].size(), 3u);
  EXPECT_EQ(policy["Statement"][0]["Action"], json({"s3:GetObject"}));
  EXPECT_EQ(policy["Statement"][1]["Action"],
            json({"s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload",
                  "s3:ListMultipartUploadParts"}));
  // Writes stay inside "t/": the key "t" itself is its parent's.
  EXPECT_EQ(policy["Statement"][1]["Resource"], json({"arn:aws:s3:::lake/t/*"}));
  EXPECT_EQ(policy["Statement"][2]["Action"], json({"s3:ListBucket"}));
}

TEST(SessionPolicyTest, WildcardsInAPrefixAreLiteral) {
  EXPECT_EQ(IamLiteral("a*b?c$d"), "a${*}b${?}c${$}d");
  EXPECT_EQ(IamLiteral("${aws:username}"), "${$}{aws:username}");
  json policy = json::parse(SessionPolicy(Location("s3://lake/t*"), VendOperation::kRead));
  EXPECT_EQ(policy["Statement"][0]["Resource"][0], "arn:aws:s3:::lake/t${*}");
  EXPECT_EQ(policy["Statement"][1]["Condition"]["StringLike"]["s3:prefix"][1], "t${*}/*");
}

TEST(SessionPolicyTest, OperationNamesAreUnityCatalogs) {
  EXPECT_EQ(VendOperationName(VendOperation::kRead), "READ");
  EXPECT_EQ(VendOperationName(VendOperation::kReadWrite), "READ_WRITE");
}

}  // namespace
}  // namespace deltacommit::service
