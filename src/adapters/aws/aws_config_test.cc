#include "deltacommit/aws/aws_config.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <gtest/gtest.h>

namespace deltacommit::aws {
namespace {

bool Mentions(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class AwsConfigTest : public ::testing::Test {
 protected:
  AwsConfigTest() {
    std::string pattern = (std::filesystem::temp_directory_path() / "dc_config_XXXXXX").string();
    home_ = ::mkdtemp(pattern.data());
    env_ = {{"HOME", home_}};
  }
  ~AwsConfigTest() override { std::filesystem::remove_all(home_); }

  void WriteConfig(const std::string& text) {
    std::filesystem::create_directories(home_ + "/.aws");
    std::ofstream(home_ + "/.aws/config") << text;
  }

  StatusOr<AwsServiceConfig> Resolve(std::string_view service = "s3") {
    return ResolveServiceConfig(service, overrides_, AwsConfigSources{&env_, ""});
  }

  AwsServiceConfig MustResolve(std::string_view service = "s3") {
    StatusOr<AwsServiceConfig> got = Resolve(service);
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    return got.ok() ? *got : AwsServiceConfig{};
  }

  std::string home_;
  std::map<std::string, std::string> env_;
  AwsConfigOverrides overrides_;
};

// ---- region -------------------------------------------------------------------

TEST_F(AwsConfigTest, NothingConfiguredMeansUsEast1OnAwsVirtualHosted) {
  AwsServiceConfig c = MustResolve();
  EXPECT_EQ(c.region, "us-east-1");
  EXPECT_EQ(c.region_source, "default");
  EXPECT_EQ(c.endpoint_url, "https://s3.us-east-1.amazonaws.com");
  EXPECT_EQ(c.endpoint_source, "AWS default for the region");
  EXPECT_FALSE(c.allow_http);
  EXPECT_FALSE(c.path_style);
}

TEST_F(AwsConfigTest, DynamoDbGetsItsOwnDefaultEndpoint) {
  env_["AWS_REGION"] = "eu-central-1";
  AwsServiceConfig c = MustResolve("dynamodb");
  EXPECT_EQ(c.endpoint_url, "https://dynamodb.eu-central-1.amazonaws.com");
  EXPECT_FALSE(c.path_style);
}

TEST_F(AwsConfigTest, ChinaRegionsUseTheirOwnDomain) {
  env_["AWS_REGION"] = "cn-north-1";
  EXPECT_EQ(MustResolve().endpoint_url, "https://s3.cn-north-1.amazonaws.com.cn");
}

TEST_F(AwsConfigTest, RegionPrecedenceExplicitThenEnvironmentThenProfile) {
  WriteConfig("[default]\nregion = ap-south-1\n");
  EXPECT_EQ(MustResolve().region, "ap-south-1");
  EXPECT_EQ(MustResolve().region_source, "profile \"default\" in " + home_ + "/.aws/config");
  env_["AWS_DEFAULT_REGION"] = "eu-west-3";
  EXPECT_EQ(MustResolve().region, "eu-west-3");
  EXPECT_EQ(MustResolve().region_source, "AWS_DEFAULT_REGION");
  env_["AWS_REGION"] = "us-west-2";
  EXPECT_EQ(MustResolve().region, "us-west-2");
  EXPECT_EQ(MustResolve().region_source, "AWS_REGION");
  overrides_.region = "sa-east-1";
  EXPECT_EQ(MustResolve().region, "sa-east-1");
  EXPECT_EQ(MustResolve().region_source, "explicit options");
}

TEST_F(AwsConfigTest, NamedProfileSuppliesRegionAndEndpoint) {
  WriteConfig("[profile minio]\nregion = garage\nendpoint_url = http://localhost:9000/\n");
  env_["AWS_PROFILE"] = "minio";
  env_["AWS_ALLOW_HTTP"] = "true";
  AwsServiceConfig c = MustResolve();
  EXPECT_EQ(c.region, "garage");
  EXPECT_EQ(c.endpoint_url, "http://localhost:9000");
  EXPECT_TRUE(Mentions(c.endpoint_source, "profile \"minio\""));
  EXPECT_TRUE(c.path_style);
}

TEST_F(AwsConfigTest, RegionThatCannotBeAHostLabelIsRejected) {
  for (const char* bad : {"us-east-1.evil.com", "us east", "a/b"}) {
    env_["AWS_REGION"] = bad;
    StatusOr<AwsServiceConfig> got = Resolve();
    EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_TRUE(Mentions(got.status().message(), "AWS_REGION")) << got.status().message();
  }
}

TEST_F(AwsConfigTest, MissingProfileAskedForByNameIsAnError) {
  env_["AWS_PROFILE"] = "nope";
  StatusOr<AwsServiceConfig> got = Resolve();
  EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Mentions(got.status().message(), "profile \"nope\"")) << got.status().message();
  // ...unless nothing needed the profile.
  overrides_.region = "us-east-1";
  overrides_.endpoint_url = "https://s3.example.com";
  overrides_.path_style = true;
  EXPECT_TRUE(Resolve().ok());
}

// ---- endpoint ---------------------------------------------------------------

TEST_F(AwsConfigTest, EndpointPrecedenceExplicitThenServiceVariableThenGenericThenProfile) {
  WriteConfig("[default]\nendpoint_url = https://profile.example.com\n");
  EXPECT_EQ(MustResolve().endpoint_url, "https://profile.example.com");
  env_["AWS_ENDPOINT_URL"] = "https://generic.example.com";
  EXPECT_EQ(MustResolve().endpoint_url, "https://generic.example.com");
  env_["AWS_ENDPOINT_URL_S3"] = "https://s3.example.com";
  EXPECT_EQ(MustResolve().endpoint_url, "https://s3.example.com");
  EXPECT_EQ(MustResolve().endpoint_source, "AWS_ENDPOINT_URL_S3");
  overrides_.endpoint_url = "https://explicit.example.com";
  EXPECT_EQ(MustResolve().endpoint_url, "https://explicit.example.com");
  EXPECT_EQ(MustResolve().endpoint_source, "explicit options");
}

TEST_F(AwsConfigTest, DynamoDbUsesItsOwnVariableNotS3s) {
  env_["AWS_ENDPOINT_URL_S3"] = "https://s3.example.com";
  env_["AWS_ENDPOINT_URL"] = "https://generic.example.com";
  EXPECT_EQ(MustResolve("dynamodb").endpoint_url, "https://generic.example.com");
  env_["AWS_ENDPOINT_URL_DYNAMODB"] = "https://ddb.example.com:8443";
  EXPECT_EQ(MustResolve("dynamodb").endpoint_url, "https://ddb.example.com:8443");
}

TEST_F(AwsConfigTest, StsHasItsOwnVariableAndDefaultEndpoint) {
  env_["AWS_REGION"] = "eu-west-1";
  env_["AWS_ENDPOINT_URL_S3"] = "https://s3.example.com";
  EXPECT_EQ(MustResolve("sts").endpoint_url, "https://sts.eu-west-1.amazonaws.com");
  EXPECT_EQ(MustResolve("sts").endpoint_source, "AWS default for the region");
  env_["AWS_ENDPOINT_URL_STS"] = "https://sts.example.com";
  EXPECT_EQ(MustResolve("sts").endpoint_url, "https://sts.example.com");
  EXPECT_EQ(MustResolve("sts").endpoint_source, "AWS_ENDPOINT_URL_STS");
  EXPECT_FALSE(MustResolve("sts").path_style);  // S3 only
}

TEST_F(AwsConfigTest, IgnoreConfiguredEndpointUrlsFallsBackToAws) {
  env_["AWS_ENDPOINT_URL"] = "https://generic.example.com";
  env_["AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"] = "true";
  EXPECT_EQ(MustResolve().endpoint_url, "https://s3.us-east-1.amazonaws.com");
}

TEST_F(AwsConfigTest, HttpEndpointNeedsAllowHttpAndSaysWhatToSet) {
  env_["AWS_ENDPOINT_URL"] = "http://localhost:9000";
  StatusOr<AwsServiceConfig> got = Resolve();
  EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Mentions(got.status().message(), "AWS_ALLOW_HTTP=true")) << got.status().message();
  EXPECT_TRUE(Mentions(got.status().message(), "from AWS_ENDPOINT_URL"));
  for (const char* yes : {"true", "1", "TRUE"}) {
    env_["AWS_ALLOW_HTTP"] = yes;
    EXPECT_TRUE(MustResolve().allow_http) << yes;
  }
  env_["AWS_ALLOW_HTTP"] = "yes please";
  EXPECT_EQ(Resolve().status().code(), StatusCode::kInvalidArgument);
  overrides_.allow_http = true;
  EXPECT_TRUE(MustResolve().allow_http);
}

TEST_F(AwsConfigTest, EndpointUrlsAreValidatedAndNormalized) {
  overrides_.endpoint_url = "HTTPS://MinIO.Example.com:9000/";
  EXPECT_EQ(MustResolve().endpoint_url, "https://minio.example.com:9000");
  overrides_.endpoint_url = "https://[::1]:9000";
  EXPECT_EQ(MustResolve().endpoint_url, "https://[::1]:9000");
  overrides_.endpoint_url = "https://proxy.example.com/s3/";
  EXPECT_EQ(MustResolve().endpoint_url, "https://proxy.example.com/s3");

  for (const char* bad : {"minio:9000", "ftp://example.com", "https://", "https://:9000",
                          "https://example.com:0", "https://example.com:99999",
                          "https://example.com:", "https://example.com/?x=1",
                          "https://example.com#frag", "https://exa mple.com",
                          "https://a..b.com"}) {
    overrides_.endpoint_url = bad;
    StatusOr<AwsServiceConfig> got = Resolve();
    EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument) << bad;
  }
}

TEST_F(AwsConfigTest, EndpointWithUserInfoIsRejectedWithoutQuotingIt) {
  overrides_.endpoint_url = "https://user:hunter2@example.com";
  StatusOr<AwsServiceConfig> got = Resolve();
  EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(Mentions(got.status().message(), "hunter2"));
}

// ---- addressing style -------------------------------------------------------------

TEST_F(AwsConfigTest, CustomEndpointDefaultsToPathStyleAwsToVirtualHosted) {
  overrides_.endpoint_url = "https://minio.example.com";
  EXPECT_TRUE(MustResolve().path_style);
  overrides_.endpoint_url = "https://s3.eu-west-1.amazonaws.com";
  EXPECT_FALSE(MustResolve().path_style);
  overrides_.path_style = true;
  EXPECT_TRUE(MustResolve().path_style);
}

TEST_F(AwsConfigTest, AddressingStyleVariables) {
  env_["AWS_S3_FORCE_PATH_STYLE"] = "true";
  EXPECT_TRUE(MustResolve().path_style);
  env_.erase("AWS_S3_FORCE_PATH_STYLE");

  env_["AWS_ENDPOINT_URL"] = "https://minio.example.com";
  env_["AWS_VIRTUAL_HOSTED_STYLE_REQUEST"] = "true";
  EXPECT_FALSE(MustResolve().path_style);
  env_.erase("AWS_VIRTUAL_HOSTED_STYLE_REQUEST");

  env_["AWS_S3_ADDRESSING_STYLE"] = "virtual";
  EXPECT_FALSE(MustResolve().path_style);
  env_["AWS_S3_ADDRESSING_STYLE"] = "auto";
  EXPECT_TRUE(MustResolve().path_style);
  env_["AWS_S3_ADDRESSING_STYLE"] = "sideways";
  EXPECT_EQ(Resolve().status().code(), StatusCode::kInvalidArgument);
}

TEST_F(AwsConfigTest, ConflictingAddressingVariablesAreAnError) {
  env_["AWS_S3_FORCE_PATH_STYLE"] = "true";
  env_["AWS_VIRTUAL_HOSTED_STYLE_REQUEST"] = "true";
  StatusOr<AwsServiceConfig> got = Resolve();
  EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Mentions(got.status().message(), "AWS_S3_FORCE_PATH_STYLE=true and "
                                               "AWS_VIRTUAL_HOSTED_STYLE_REQUEST=true"))
      << got.status().message();
  env_["AWS_VIRTUAL_HOSTED_STYLE_REQUEST"] = "false";  // agrees: path-style
  EXPECT_TRUE(MustResolve().path_style);
}

TEST_F(AwsConfigTest, ProfileS3AddressingStyleSubProperty) {
  WriteConfig("[default]\ns3 =\n  addressing_style = path\n");
  EXPECT_TRUE(MustResolve().path_style);
}

TEST_F(AwsConfigTest, UnknownServiceIsRejected) {
  EXPECT_EQ(Resolve("sqs").status().code(), StatusCode::kInvalidArgument);
}

// ---- ParseS3Uri -----------------------------------------------------------------

TEST(ParseS3UriTest, AcceptsS3SchemesAndTrimsSlashes) {
  StatusOr<S3Location> got = ParseS3Uri("s3://my-bucket/tables/events/");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->scheme, "s3");
  EXPECT_EQ(got->bucket, "my-bucket");
  EXPECT_EQ(got->key_prefix, "tables/events");

  got = ParseS3Uri("s3a://data.lake-01/x");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->scheme, "s3a");
  EXPECT_EQ(got->bucket, "data.lake-01");
  EXPECT_EQ(got->key_prefix, "x");

  got = ParseS3Uri("S3N://bucket");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->scheme, "s3n");
  EXPECT_EQ(got->key_prefix, "");
  EXPECT_EQ(ParseS3Uri("s3://bucket/")->key_prefix, "");
}

TEST(ParseS3UriTest, RejectsOtherSchemesAndEmptyBucket) {
  for (const char* bad : {"https://bucket/x", "bucket/x", "s3:/bucket/x", "s3://", "s3:///x"}) {
    EXPECT_EQ(ParseS3Uri(bad).status().code(), StatusCode::kInvalidArgument) << bad;
  }
  EXPECT_TRUE(Mentions(ParseS3Uri("s3:///x").status().message(), "no bucket name"));
}

TEST(ParseS3UriTest, RejectsInvalidBucketNamesSayingWhy) {
  struct Case {
    const char* uri;
    const char* why;
  };
  for (const Case& c : {Case{"s3://ab/x", "3 to 63"},
                        Case{"s3://My-Bucket/x", "lower-case"},
                        Case{"s3://my_bucket/x", "lower-case"},
                        Case{"s3://-bucket/x", "begin and end"},
                        Case{"s3://bucket./x", "begin and end"},
                        Case{"s3://my..bucket/x", "\"..\""},
                        Case{"s3://192.168.5.4/x", "IP address"},
                        Case{"s3://xn--bucket/x", "xn--"}}) {
    StatusOr<S3Location> got = ParseS3Uri(c.uri);
    EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument) << c.uri;
    EXPECT_TRUE(Mentions(got.status().message(), c.why)) << got.status().message();
  }
  EXPECT_TRUE(ParseS3Uri("s3://" + std::string(63, 'a') + "/x").ok());
  EXPECT_FALSE(ParseS3Uri("s3://" + std::string(64, 'a') + "/x").ok());
}

TEST(ParseS3UriTest, RejectsDotSegmentsEmptySegmentsQueriesAndControlCharacters) {
  for (const char* bad : {"s3://bucket/a/../b", "s3://bucket/..", "s3://bucket/./a",
                          "s3://bucket/a//b", "s3://bucket//a", "s3://bucket/a?versionId=1",
                          "s3://bucket/a#b", "s3://bucket/a b", "s3://bucket/a\nb"}) {
    EXPECT_EQ(ParseS3Uri(bad).status().code(), StatusCode::kInvalidArgument) << bad;
  }
  EXPECT_TRUE(Mentions(ParseS3Uri("s3://bucket/a/../b").status().message(), "\"..\""));
}

}  // namespace
}  // namespace deltacommit::aws
