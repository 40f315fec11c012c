// [s3], [[s3.bucket]], [[s3.allowed_endpoint]] and ResolveEndpoint.
#include "service/config/s3_endpoints.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace deltacommit::service {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

S3Config Parsed(std::string_view text) {
  StatusOr<ServiceConfig> config = ParseServiceConfig(text, "test.toml");
  EXPECT_TRUE(config.ok()) << config.status().ToString();
  return config.ok() ? config->s3 : S3Config();
}

std::string Error(std::string_view text) {
  StatusOr<ServiceConfig> config = ParseServiceConfig(text, "test.toml");
  EXPECT_FALSE(config.ok()) << "accepted:\n" << text;
  if (config.ok()) return "";
  EXPECT_EQ(config.status().code(), StatusCode::kInvalidArgument);
  return config.status().message();
}

aws::AwsServiceConfig Resolved(const S3Config& config, std::string_view bucket,
                               std::string_view name = {}) {
  StatusOr<aws::AwsServiceConfig> resolved =
      ResolveEndpoint(config, bucket, name);
  EXPECT_TRUE(resolved.ok()) << resolved.status().ToString();
  return resolved.ok() ? *resolved : aws::AwsServiceConfig();
}

TEST(S3ConfigTest, DefaultIsAwsInUsEast1VirtualHosted) {
  aws::AwsServiceConfig s3 = Resolved(Parsed(""), "any-bucket");
  EXPECT_EQ(s3.region, "us-east-1");
  EXPECT_EQ(s3.endpoint_url, "https://s3.us-east-1.amazonaws.com");
  EXPECT_FALSE(s3.path_style);
  EXPECT_FALSE(s3.allow_http);
  EXPECT_EQ(s3.region_source, "[s3] in test.toml");
  EXPECT_EQ(s3.endpoint_source,
            "AWS's endpoint for the region ([s3] in test.toml)");
}

TEST(S3ConfigTest, RegionPicksAwsEndpoint) {
  EXPECT_EQ(
      Resolved(Parsed("[s3]\nregion = \"eu-west-1\"\n"), "b").endpoint_url,
      "https://s3.eu-west-1.amazonaws.com");
  EXPECT_EQ(
      Resolved(Parsed("[s3]\nregion = \"cn-north-1\"\n"), "b").endpoint_url,
      "https://s3.cn-north-1.amazonaws.com.cn");
}

TEST(S3ConfigTest, CustomEndpointIsNormalisedAndPathStyleByDefault) {
  aws::AwsServiceConfig s3 =
      Resolved(Parsed("[s3]\nendpoint = \"HTTPS://RGW.Example:7480/\"\nregion "
                      "= \"default\"\n"),
               "b");
  EXPECT_EQ(s3.endpoint_url, "https://rgw.example:7480");
  EXPECT_EQ(s3.region, "default");
  EXPECT_TRUE(s3.path_style);
  EXPECT_EQ(s3.endpoint_source, "[s3] in test.toml");
  EXPECT_FALSE(Resolved(Parsed("[s3]\nendpoint = \"https://rgw.example\"\n"
                               "addressing = \"virtual\"\n"),
                        "b")
                   .path_style);
  EXPECT_TRUE(
      Resolved(Parsed("[s3]\naddressing = \"path\"\n"), "b").path_style);
}

TEST(S3ConfigTest, HttpOnlyWithAllowHttp) {
  EXPECT_EQ(Error("[s3]\nendpoint = \"http://127.0.0.1:9000\"\n"),
            "test.toml:2:12: s3.endpoint: is plain http; set allow_http = true "
            "in [s3] to allow "
            "unencrypted connections, or use https");
  aws::AwsServiceConfig s3 = Resolved(
      Parsed("[s3]\nendpoint = \"http://127.0.0.1:9000\"\nallow_http = true\n"),
      "b");
  EXPECT_EQ(s3.endpoint_url, "http://127.0.0.1:9000");
  EXPECT_TRUE(s3.allow_http);
}

TEST(S3ConfigTest, BadUrlsAreRefusedAtTheirKey) {
  EXPECT_THAT(
      Error("[s3]\nendpoint = \"ftp://host\"\n"),
      AllOf(
          StartsWith(
              "test.toml:2:12: s3.endpoint: endpoint \"ftp://host\" must be an "
              "https:// (or http://) URL"),
          Not(HasSubstr("explicit options"))));
  EXPECT_THAT(Error("[s3]\nendpoint = \"host.example\"\n"),
              HasSubstr("must be an https://"));
  EXPECT_THAT(Error("[s3]\nendpoint = \"https://host.example?x=1\"\n"),
              HasSubstr("must not have a query or fragment"));
  EXPECT_THAT(Error("[s3]\nendpoint = \"https://host.example:0\"\n"),
              HasSubstr("invalid port"));
  EXPECT_THAT(Error("[s3]\nendpoint = \"https://\"\n"),
              HasSubstr("no valid host name"));
  std::string userinfo =
      Error("[s3]\nendpoint = \"https://AKIA:hunter2@rgw.example\"\n");
  EXPECT_THAT(userinfo,
              AllOf(StartsWith("test.toml:2:12: s3.endpoint: "),
                    HasSubstr("must not contain user info"),
                    Not(HasSubstr("hunter2")), Not(HasSubstr("AKIA"))));
}

TEST(S3ConfigTest, BadRegionAndAddressingAreNamed) {
  EXPECT_EQ(Error("[s3]\nregion = \"eu/west\"\n"),
            "test.toml:2:10: s3.region: region \"eu/west\" is not a region "
            "name such as "
            "us-east-1");
  EXPECT_EQ(Error("[s3]\naddressing = \"host\"\n"),
            "test.toml:2:14: s3.addressing: is \"host\"; it must be "
            "\"virtual\" (bucket in the "
            "host name), \"path\" (bucket in the path) or \"auto\"");
  EXPECT_THAT(Error("[s3]\nendpont = \"https://x\"\n"),
              StartsWith("test.toml:2:1: unknown key s3.endpont ([s3] takes: "
                         "endpoint, region, "
                         "addressing, allow_http, enforces_if_none_match, vend_credentials, "
                         "vend_role_arn, vend_external_id, vend_sts_endpoint, "
                         "vend_duration_seconds, bucket, allowed_endpoint)"));
}

constexpr std::string_view kFull = R"(
[s3]
endpoint = "https://rgw.internal:7480"
region = "default"
allow_http = false

[[s3.bucket]]
name = "aws-bucket"
endpoint = "https://s3.eu-central-1.amazonaws.com"
region = "eu-central-1"

[[s3.bucket]]
name = "local-bucket"
addressing = "virtual"

[[s3.allowed_endpoint]]
name = "eu-minio"
url = "https://minio.eu.example:9000"
region = "eu-west-1"

[[s3.allowed_endpoint]]
name = "dev"
url = "http://127.0.0.1:9000"
allow_http = true
)";

TEST(ResolveEndpointTest, DefaultForAnyOtherBucket) {
  aws::AwsServiceConfig s3 = Resolved(Parsed(kFull), "other");
  EXPECT_EQ(s3.endpoint_url, "https://rgw.internal:7480");
  EXPECT_EQ(s3.region, "default");
  EXPECT_TRUE(s3.path_style);
}

TEST(ResolveEndpointTest, BucketOverrideWinsAndInheritsWhatItDoesNotSet) {
  S3Config config = Parsed(kFull);
  aws::AwsServiceConfig aws_bucket = Resolved(config, "aws-bucket");
  EXPECT_EQ(aws_bucket.endpoint_url, "https://s3.eu-central-1.amazonaws.com");
  EXPECT_EQ(aws_bucket.region, "eu-central-1");
  EXPECT_FALSE(aws_bucket.path_style);  // auto, and an AWS host
  EXPECT_EQ(aws_bucket.endpoint_source,
            "[[s3.bucket]] \"aws-bucket\" in test.toml");

  aws::AwsServiceConfig local = Resolved(config, "local-bucket");
  EXPECT_EQ(local.endpoint_url, "https://rgw.internal:7480");  // from [s3]
  EXPECT_EQ(local.region, "default");
  EXPECT_FALSE(local.path_style);  // its own addressing
}

TEST(ResolveEndpointTest, AllowedEndpointByName) {
  S3Config config = Parsed(kFull);
  aws::AwsServiceConfig eu = Resolved(config, "aws-bucket", "eu-minio");
  EXPECT_EQ(eu.endpoint_url, "https://minio.eu.example:9000");
  EXPECT_EQ(eu.region, "eu-west-1");
  EXPECT_TRUE(eu.path_style);
  EXPECT_EQ(eu.endpoint_source,
            "[[s3.allowed_endpoint]] \"eu-minio\" in test.toml");

  aws::AwsServiceConfig dev = Resolved(config, "other", "dev");
  EXPECT_EQ(dev.endpoint_url, "http://127.0.0.1:9000");
  EXPECT_TRUE(dev.allow_http);
  // Only [s3]'s region is inherited, not its endpoint or http setting.
  EXPECT_EQ(dev.region, "default");
}

// Each endpoint says whether it enforces `If-None-Match: *` (default: yes);
// a bucket override inherits [s3]'s setting, an allowed endpoint does not.
TEST(ResolveEndpointTest, EnforcesIfNoneMatchPerEndpoint) {
  S3Config defaults = Parsed(kFull);
  for (std::pair<std::string_view, std::string_view> request :
       {std::pair{"other", ""}, {"aws-bucket", ""}, {"b", "dev"}}) {
    StatusOr<S3EndpointConfig> endpoint =
        ResolveS3Endpoint(defaults, request.first, request.second);
    ASSERT_TRUE(endpoint.ok()) << endpoint.status().ToString();
    EXPECT_TRUE(endpoint->enforces_if_none_match) << request.first;
  }
  S3Config config = Parsed(R"(
[s3]
endpoint = "https://store.internal"
enforces_if_none_match = false
[[s3.bucket]]
name = "inherits"
[[s3.bucket]]
name = "enforcing"
enforces_if_none_match = true
[[s3.allowed_endpoint]]
name = "own-setting"
url = "https://other.internal"
[[s3.allowed_endpoint]]
name = "legacy"
url = "https://legacy.internal"
enforces_if_none_match = false
)");
  auto enforces = [&](std::string_view bucket, std::string_view name) {
    StatusOr<S3EndpointConfig> endpoint = ResolveS3Endpoint(config, bucket, name);
    EXPECT_TRUE(endpoint.ok()) << endpoint.status().ToString();
    return endpoint.ok() && endpoint->enforces_if_none_match;
  };
  EXPECT_FALSE(enforces("any", ""));
  EXPECT_FALSE(enforces("inherits", ""));
  EXPECT_TRUE(enforces("enforcing", ""));
  EXPECT_TRUE(enforces("any", "own-setting"));
  EXPECT_FALSE(enforces("any", "legacy"));
  StatusOr<S3EndpointConfig> named = ResolveS3Endpoint(config, "any", "legacy");
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(named->name, "legacy");
  EXPECT_EQ(ResolveS3Endpoint(config, "any", "")->name, "default");
  EXPECT_EQ(ResolveS3Endpoint(config, "inherits", "")->name, "inherits");
  EXPECT_EQ(Error("[s3]\nenforces_if_none_match = \"yes\"\n"),
            "test.toml:2:26: s3.enforces_if_none_match: must be a boolean (true or false), not a string");
}

TEST(ResolveEndpointTest, EndpointNotOnTheAllowlistIsForbidden) {
  S3Config config = Parsed(kFull);
  StatusOr<aws::AwsServiceConfig> resolved =
      ResolveEndpoint(config, "aws-bucket", "evil");
  ASSERT_FALSE(resolved.ok());
  EXPECT_EQ(resolved.status().code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(resolved.status().message(),
            "S3 endpoint \"evil\" is not on this service's allowlist (allowed: "
            "eu-minio, dev); "
            "leave \"endpoint\" out to use the bucket's endpoint, or ask the "
            "operator to add an "
            "[[s3.allowed_endpoint]] entry (name, url, region) to the service "
            "config");
  // Names are exact: no case folding, no URLs in place of names.
  for (std::string_view name :
       {"EU-MINIO", "eu-minio ", "https://minio.eu.example:9000",
        "http://127.0.0.1:9000"}) {
    EXPECT_EQ(ResolveEndpoint(config, "b", name).status().code(),
              StatusCode::kPermissionDenied)
        << name;
  }
}

TEST(ResolveEndpointTest, NoAllowlistMeansNoRequestedEndpoint) {
  StatusOr<aws::AwsServiceConfig> resolved =
      ResolveEndpoint(Parsed(""), "b", std::string("x\ny", 3));
  ASSERT_FALSE(resolved.ok());
  EXPECT_EQ(resolved.status().code(), StatusCode::kPermissionDenied);
  EXPECT_THAT(
      resolved.status().message(),
      AllOf(
          StartsWith(
              "S3 endpoint \"x\\x0ay\" is not on this service's allowlist (it "
              "allows none)"),
          Not(HasSubstr("\n"))));
  std::string long_name(500, 'n');
  EXPECT_LT(
      ResolveEndpoint(Parsed(""), "b", long_name).status().message().size(),
      400u);
}

TEST(S3ConfigTest, BucketEntryErrors) {
  EXPECT_EQ(Error("[[s3.bucket]]\nregion = \"eu-west-1\"\n"),
            "test.toml:1:1: s3.bucket[0]: missing required key name");
  EXPECT_THAT(
      Error("[[s3.bucket]]\nname = \"Bad_Bucket\"\n"),
      AllOf(StartsWith("test.toml:2:8: s3.bucket[0].name: invalid bucket name "
                       "\"Bad_Bucket\""),
            HasSubstr("lower-case letters")));
  EXPECT_EQ(
      Error("[[s3.bucket]]\nname = \"bkt/prefix\"\n"),
      "test.toml:2:8: s3.bucket[0].name: \"bkt/prefix\" is not a bucket name");
  EXPECT_EQ(
      Error("[[s3.bucket]]\nname = \"bkt\"\n[[s3.bucket]]\nname = \"bkt\"\n"),
      "test.toml:4:8: s3.bucket[1].name: \"bkt\" is already used by an earlier "
      "[[s3.bucket]]");
  EXPECT_THAT(
      Error("[[s3.bucket]]\nname = \"bkt\"\nendpiont = \"https://x\"\n"),
      StartsWith("test.toml:3:1: unknown key s3.bucket[0].endpiont "
                 "([[s3.bucket]] takes: "
                 "name, endpoint, region, addressing, allow_http, enforces_if_none_match, "
                 "vend_credentials, vend_role_arn, vend_external_id, vend_sts_endpoint, "
                 "vend_duration_seconds)"));
  EXPECT_EQ(Error("[[s3.bucket]]\nname = \"bkt\"\nendpoint = \"http://x\"\n"),
            "test.toml:3:12: s3.bucket[0].endpoint: is plain http; set "
            "allow_http = true in "
            "[[s3.bucket]] to allow unencrypted connections, or use https");
  // An http endpoint inherited from [s3] with its allow_http is fine...
  EXPECT_TRUE(
      ParseServiceConfig("[s3]\nendpoint = \"http://x\"\nallow_http = true\n"
                         "[[s3.bucket]]\nname = \"bkt\"\n",
                         "test.toml")
          .ok());
  // ...but not when the bucket turns allow_http off.
  EXPECT_THAT(
      Error("[s3]\nendpoint = \"http://x\"\nallow_http = true\n"
            "[[s3.bucket]]\nname = \"bkt\"\nallow_http = false\n"),
      StartsWith("test.toml:4:1: s3.bucket[0].endpoint: is plain http"));
  EXPECT_EQ(Error("[s3]\nbucket = \"x\"\n"),
            "test.toml:2:10: s3.bucket: must be an array of tables "
            "([[s3.bucket]]), not a string");
}

TEST(S3ConfigTest, AllowedEndpointErrors) {
  EXPECT_EQ(Error("[[s3.allowed_endpoint]]\nname = \"x\"\n"),
            "test.toml:1:1: s3.allowed_endpoint[0].url: missing or empty; give "
            "the endpoint's URL");
  EXPECT_EQ(Error("[[s3.allowed_endpoint]]\nurl = \"https://x\"\n"),
            "test.toml:1:1: s3.allowed_endpoint[0]: missing required key name");
  EXPECT_EQ(
      Error("[[s3.allowed_endpoint]]\nname = \"a b\"\nurl = \"https://x\"\n"),
      "test.toml:2:8: s3.allowed_endpoint[0].name: \"a b\" is not an endpoint "
      "name (1-64 "
      "of a-z, A-Z, 0-9, '.', '_', '-')");
  EXPECT_EQ(
      Error("[[s3.allowed_endpoint]]\nname = \"a\"\nurl = \"https://x\"\n"
            "[[s3.allowed_endpoint]]\nname = \"a\"\nurl = \"https://y\"\n"),
      "test.toml:5:8: s3.allowed_endpoint[1].name: \"a\" is already used by an "
      "earlier "
      "[[s3.allowed_endpoint]]");
  EXPECT_EQ(
      Error("[[s3.allowed_endpoint]]\nname = \"a\"\nurl = \"http://x\"\n"),
      "test.toml:3:7: s3.allowed_endpoint[0].url: is plain http; set "
      "allow_http = true in "
      "[[s3.allowed_endpoint]] to allow unencrypted connections, or use https");
  EXPECT_THAT(
      Error(
          "[[s3.allowed_endpoint]]\nname = \"a\"\nendpoint = \"https://x\"\n"),
      StartsWith(
          "test.toml:3:1: unknown key s3.allowed_endpoint[0].endpoint "
          "([[s3.allowed_endpoint]] takes: name, url, region, addressing, "
          "allow_http, enforces_if_none_match)"));
  EXPECT_THAT(
      Error(
          "[[s3.allowed_endpoint]]\nname = \"a\"\nurl = \"https://u:pw@x\"\n"),
      AllOf(HasSubstr("s3.allowed_endpoint[0].url:"), HasSubstr("user info"),
            Not(HasSubstr("pw@"))));
}

// ---- vend_*: credential vending ------------------------------------------------

StatusOr<S3EndpointConfig> Endpoint(const S3Config& config, std::string_view bucket) {
  return ResolveS3Endpoint(config, bucket, {});
}

TEST(VendConfigTest, NoneByDefault) {
  StatusOr<S3EndpointConfig> e = Endpoint(Parsed(""), "b");
  ASSERT_TRUE(e.ok());
  EXPECT_FALSE(e->vend.enabled());
}

TEST(VendConfigTest, AssumeRoleOnAwsUsesTheRegionsSts) {
  S3Config config = Parsed(
      "[s3]\nregion = \"eu-west-1\"\nvend_credentials = \"assume_role\"\n"
      "vend_role_arn = \"arn:aws:iam::123456789012:role/vend\"\n"
      "vend_external_id = \"x-1\"\nvend_duration_seconds = 1800\n");
  StatusOr<S3EndpointConfig> e = Endpoint(config, "b");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->vend.source, VendConfig::Source::kAssumeRole);
  EXPECT_EQ(e->vend.role_arn, "arn:aws:iam::123456789012:role/vend");
  EXPECT_EQ(e->vend.external_id, "x-1");
  EXPECT_EQ(e->vend.duration_seconds, 1800);
  EXPECT_EQ(e->vend.sts.endpoint_url, "https://sts.eu-west-1.amazonaws.com");
  EXPECT_EQ(e->vend.sts.region, "eu-west-1");
  EXPECT_THAT(e->vend.sts.endpoint_source, HasSubstr("AWS's STS for the region ([s3]"));
}

TEST(VendConfigTest, AnS3CompatibleStoreNeedsItsStsEndpointSaid) {
  const std::string base =
      "[s3]\nendpoint = \"http://127.0.0.1:7480\"\nallow_http = true\n"
      "vend_credentials = \"assume_role\"\nvend_role_arn = \"arn:aws:iam:::role/vend\"\n";
  EXPECT_THAT(Error(base), AllOf(HasSubstr("s3.vend_sts_endpoint: missing"),
                                 HasSubstr("is not AWS's"),
                                 HasSubstr("vend_sts_endpoint = \"http://127.0.0.1:7480\"")));
  S3Config config = Parsed(base + "vend_sts_endpoint = \"http://127.0.0.1:7480\"\n");
  StatusOr<S3EndpointConfig> e = Endpoint(config, "b");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->vend.sts.endpoint_url, "http://127.0.0.1:7480");
  EXPECT_TRUE(e->vend.sts.allow_http);
  EXPECT_EQ(e->vend.sts.endpoint_source, "vend_sts_endpoint of [s3] in test.toml");
  // Plain http needs allow_http, as for S3.
  EXPECT_THAT(Error("[s3]\nvend_credentials = \"assume_role\"\n"
                    "vend_role_arn = \"arn:aws:iam:::role/vend\"\n"
                    "vend_sts_endpoint = \"http://127.0.0.1:7480\"\n"),
              HasSubstr("s3.vend_sts_endpoint: is plain http"));
}

TEST(VendConfigTest, ABucketInheritsVendingOrSetsItAsAWhole) {
  S3Config config = Parsed(
      "[s3]\nvend_credentials = \"assume_role\"\n"
      "vend_role_arn = \"arn:aws:iam::1:role/default\"\nvend_external_id = \"e\"\n"
      "[[s3.bucket]]\nname = \"inherits\"\n"
      "[[s3.bucket]]\nname = \"own\"\nvend_credentials = \"assume_role\"\n"
      "vend_role_arn = \"arn:aws:iam::1:role/own\"\n"
      "[[s3.bucket]]\nname = \"off\"\nvend_credentials = \"none\"\n");
  EXPECT_EQ(Endpoint(config, "inherits")->vend.role_arn, "arn:aws:iam::1:role/default");
  EXPECT_EQ(Endpoint(config, "inherits")->vend.external_id, "e");
  EXPECT_EQ(Endpoint(config, "own")->vend.role_arn, "arn:aws:iam::1:role/own");
  EXPECT_EQ(Endpoint(config, "own")->vend.external_id, "");  // not mixed in
  EXPECT_FALSE(Endpoint(config, "off")->vend.enabled());
  EXPECT_EQ(Endpoint(config, "other")->vend.role_arn, "arn:aws:iam::1:role/default");
}

TEST(VendConfigTest, ABucketPassesWritersCredentialsThroughWithNoOtherKey) {
  S3Config config = Parsed(
      "[s3]\nvend_credentials = \"pass_through\"\n"
      "[[s3.bucket]]\nname = \"sts\"\nvend_credentials = \"assume_role\"\n"
      "vend_role_arn = \"arn:aws:iam::1:role/own\"\n");
  EXPECT_EQ(Endpoint(config, "any")->vend.source, VendConfig::Source::kPassThrough);
  EXPECT_TRUE(Endpoint(config, "any")->vend.role_arn.empty());
  EXPECT_EQ(Endpoint(config, "sts")->vend.source, VendConfig::Source::kAssumeRole);
  // AssumeRole's keys mean nothing here: a typo would go unseen.
  EXPECT_THAT(Error("[s3]\nvend_credentials = \"pass_through\"\n"
                    "vend_role_arn = \"arn:aws:iam::1:role/v\"\n"),
              HasSubstr("s3.vend_role_arn: is set but vend_credentials is \"pass_through\""));
  EXPECT_THAT(Error("[[s3.bucket]]\nname = \"bkt\"\nvend_credentials = \"pass_through\"\n"
                    "vend_duration_seconds = 900\n"),
              HasSubstr("vend_duration_seconds: is set but vend_credentials is \"pass_through\""));
}

TEST(VendConfigTest, MistakesAreNamedAtTheirKey) {
  EXPECT_THAT(Error("[s3]\nvend_credentials = \"static\"\n"),
              AllOf(HasSubstr("s3.vend_credentials: is \"static\""), HasSubstr("assume_role"),
                    HasSubstr("pass_through")));
  EXPECT_THAT(Error("[s3]\nvend_credentials = \"assume_role\"\n"),
              HasSubstr("s3.vend_role_arn: missing"));
  EXPECT_THAT(Error("[s3]\nvend_credentials = \"assume_role\"\nvend_role_arn = \"vend\"\n"),
              HasSubstr("is not an IAM role ARN"));
  EXPECT_THAT(Error("[s3]\nvend_credentials = \"assume_role\"\n"
                    "vend_role_arn = \"arn:aws:iam::1:role/v\"\nvend_duration_seconds = 60\n"),
              HasSubstr("s3.vend_duration_seconds"));
  EXPECT_THAT(Error("[s3]\nvend_role_arn = \"arn:aws:iam::1:role/v\"\n"),
              HasSubstr("s3.vend_role_arn: is set but vend_credentials is \"none\""));
  EXPECT_THAT(Error("[[s3.bucket]]\nname = \"bkt\"\nvend_role_arn = \"arn:aws:iam::1:role/v\"\n"),
              HasSubstr("vend_role_arn: is set but vend_credentials is \"none\""));
  // An allowed endpoint vends nothing: its vend keys are unknown.
  EXPECT_THAT(Error("[[s3.allowed_endpoint]]\nname = \"e\"\nurl = \"https://s3.example.com\"\n"
                    "vend_credentials = \"assume_role\"\n"),
              HasSubstr("vend_credentials"));
}

}  // namespace
}  // namespace deltacommit::service
