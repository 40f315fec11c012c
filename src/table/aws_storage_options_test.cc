// delta-rs's AWS storage options: every spelling, which source wins, and the
// errors for half a key pair and a boolean that is none.
#include "deltacommit/table/aws_storage_options.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltacommit/table/table_adapters.h"

namespace deltacommit {
namespace {

using ::testing::HasSubstr;

StatusOr<AwsStorageOptions> Read(std::map<std::string, std::string> given,
                                 const TableOptions& o = {}) {
  DC_ASSIGN_OR_RETURN(auto storage, CheckStorageOptions(given));
  return ReadAwsStorageOptions(o, storage);
}

TEST(AwsStorageOptionsTest, DeltaRsNamesSetEndpointRegionHttpAndCredentials) {
  auto read = Read({{"AWS_ENDPOINT_URL", "http://127.0.0.1:7480"},
                    {"AWS_REGION", "eu-west-1"},
                    {"AWS_ALLOW_HTTP", "true"},
                    {"AWS_ACCESS_KEY_ID", "AKIDEXAMPLE"},
                    {"AWS_SECRET_ACCESS_KEY", "secret"},
                    {"AWS_SESSION_TOKEN", "token"},
                    {"AWS_VIRTUAL_HOSTED_STYLE_REQUEST", "false"}});
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->s3.endpoint_url, "http://127.0.0.1:7480");
  EXPECT_EQ(read->s3.region, "eu-west-1");
  EXPECT_EQ(read->s3.allow_http, true);
  EXPECT_EQ(read->s3.path_style, true);
  ASSERT_TRUE(read->credentials.has_value());
  EXPECT_EQ(read->credentials->access_key_id, "AKIDEXAMPLE");
  EXPECT_EQ(read->credentials->secret_access_key, "secret");
  EXPECT_EQ(read->credentials->session_token, "token");
  EXPECT_EQ(read->credentials->source, "storage options (aws_access_key_id)");
  EXPECT_EQ(ChainOptions(*read).explicit_credentials->access_key_id, "AKIDEXAMPLE");
}

TEST(AwsStorageOptionsTest, ObjectStoreAliasesMeanTheSame) {
  auto read = Read({{"endpoint", "http://h:1"},
                    {"default_region", "us-west-2"},
                    {"allow_http", "1"},
                    {"access_key_id", "k"},
                    {"secret_access_key", "s"},
                    {"token", "t"},
                    {"profile", "dev"}});
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->s3.endpoint_url, "http://h:1");
  EXPECT_EQ(read->s3.region, "us-west-2");
  EXPECT_EQ(read->s3.allow_http, true);
  EXPECT_EQ(read->s3.profile, "dev");
  EXPECT_EQ(read->credentials->session_token, "t");
  EXPECT_EQ(ChainOptions(*read).profile, "dev");
}

TEST(AwsStorageOptionsTest, TableOptionsFieldsWinAndNothingGivenLeavesTheEnvironment) {
  TableOptions o;
  o.endpoint_url = "http://flag:2";
  o.region = "ap-south-1";
  o.profile = "flag";
  auto read = Read({{"aws_endpoint_url", "http://option:1"},
                    {"aws_region", "eu-west-1"},
                    {"aws_profile", "option"}},
                   o);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->s3.endpoint_url, "http://flag:2");
  EXPECT_EQ(read->s3.region, "ap-south-1");
  EXPECT_EQ(read->s3.profile, "flag");
  auto none = Read({});
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->s3.endpoint_url || none->s3.region || none->s3.allow_http ||
               none->s3.path_style || none->s3.profile || none->credentials);
}

TEST(AwsStorageOptionsTest, HalfAKeyPairAndABadBooleanAreNamed) {
  auto key_only = Read({{"AWS_ACCESS_KEY_ID", "k"}});
  EXPECT_EQ(key_only.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(key_only.status().message(), HasSubstr("aws_secret_access_key is missing"));
  auto secret_only = Read({{"aws_secret_access_key", "s"}});
  EXPECT_THAT(secret_only.status().message(), HasSubstr("aws_access_key_id is missing"));
  EXPECT_THAT(secret_only.status().message(), ::testing::Not(HasSubstr("\"s\"")));
  auto http = Read({{"AWS_ALLOW_HTTP", "yes"}});
  EXPECT_EQ(http.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(http.status().message(), HasSubstr("aws_allow_http=\"yes\": expected true or false"));
}

}  // namespace
}  // namespace deltacommit
