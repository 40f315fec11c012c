// docs/examples/deltacommit-serve.toml loads, and says what it claims; and
// LoadServiceConfig's file handling.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "deltacommit/log_path.h"
#include "service/config/s3_endpoints.h"
#include "service/config/service_config.h"

namespace deltacommit::service {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(ExampleConfigTest, LoadsWithTheDocumentedSettings) {
  StatusOr<ServiceConfig> config = LoadServiceConfig(DC_EXAMPLE_SERVICE_CONFIG);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  std::filesystem::path dir =
      std::filesystem::path(DC_EXAMPLE_SERVICE_CONFIG).parent_path();
  EXPECT_EQ(config->server.listen, "127.0.0.1:8642");
  EXPECT_EQ(config->server.max_body_bytes, 8 << 20);
  EXPECT_FALSE(config->tls.enabled());
  EXPECT_EQ(config->state.kind, StateConfig::Kind::kSqlite);
  EXPECT_EQ(config->state.sqlite_path,
            (dir / "deltacommit-state.sqlite").string());
  ASSERT_EQ(config->tokens.size(), 2u);
  EXPECT_EQ(config->tokens[0].name, "etl-writer");
  EXPECT_THAT(config->tokens[1].tables, ElementsAre("s3://analytics-eu"));
  EXPECT_EQ(config->publish.threads, 2);
  EXPECT_TRUE(config->s3.default_endpoint.enforces_if_none_match);

  StatusOr<aws::AwsServiceConfig> eu =
      ResolveEndpoint(config->s3, "analytics-eu", "");
  ASSERT_TRUE(eu.ok());
  EXPECT_EQ(eu->endpoint_url, "https://s3.eu-central-1.amazonaws.com");
  StatusOr<aws::AwsServiceConfig> onprem =
      ResolveEndpoint(config->s3, "lake-onprem", "");
  ASSERT_TRUE(onprem.ok());
  EXPECT_EQ(onprem->endpoint_url, "https://rgw.storage.internal:7480");
  EXPECT_TRUE(onprem->path_style);
  // Credential vending: off by default, AWS's STS for an AWS bucket, the
  // configured one for the store that is not AWS.
  EXPECT_FALSE(config->s3.default_endpoint.vend.enabled());
  StatusOr<S3EndpointConfig> eu_vend = ResolveS3Endpoint(config->s3, "analytics-eu", "");
  ASSERT_TRUE(eu_vend.ok());
  EXPECT_EQ(eu_vend->vend.sts.endpoint_url, "https://sts.eu-central-1.amazonaws.com");
  StatusOr<S3EndpointConfig> onprem_vend = ResolveS3Endpoint(config->s3, "lake-onprem", "");
  ASSERT_TRUE(onprem_vend.ok());
  EXPECT_EQ(onprem_vend->vend.role_arn, "arn:aws:iam:::role/deltacommit-vend");
  EXPECT_EQ(onprem_vend->vend.sts.endpoint_url, "https://rgw.storage.internal:7480");
  StatusOr<aws::AwsServiceConfig> dev =
      ResolveEndpoint(config->s3, "x", "dev-minio");
  ASSERT_TRUE(dev.ok());
  EXPECT_TRUE(dev->allow_http);
  EXPECT_EQ(ResolveEndpoint(config->s3, "x", "other").status().code(),
            StatusCode::kPermissionDenied);
}

// The defaults the example shows are the defaults of the code: the example
// with its comments and every setting left at its default must load to the
// same config as an empty file (apart from the entries it adds).
TEST(ExampleConfigTest, ShowsTheCodeDefaults) {
  StatusOr<ServiceConfig> example =
      LoadServiceConfig(DC_EXAMPLE_SERVICE_CONFIG);
  StatusOr<ServiceConfig> empty = ParseServiceConfig("", "empty.toml");
  ASSERT_TRUE(example.ok() && empty.ok());
  const ServerConfig& a = example->server;
  const ServerConfig& b = empty->server;
  EXPECT_EQ(a.listen, b.listen);
  EXPECT_EQ(a.io_threads, b.io_threads);
  EXPECT_EQ(a.workers, b.workers);
  EXPECT_EQ(a.max_queued_requests, b.max_queued_requests);
  EXPECT_EQ(a.max_connections, b.max_connections);
  EXPECT_EQ(a.max_body_bytes, b.max_body_bytes);
  EXPECT_EQ(a.request_timeout_ms, b.request_timeout_ms);
  EXPECT_EQ(a.idle_timeout_ms, b.idle_timeout_ms);
  EXPECT_EQ(a.drain_timeout_ms, b.drain_timeout_ms);
  EXPECT_EQ(example->s3.default_endpoint.service.endpoint_url,
            empty->s3.default_endpoint.service.endpoint_url);
  EXPECT_EQ(example->s3.default_endpoint.service.path_style,
            empty->s3.default_endpoint.service.path_style);
  EXPECT_EQ(example->s3.default_endpoint.enforces_if_none_match,
            empty->s3.default_endpoint.enforces_if_none_match);
  const CommitsConfig& c = example->commits;
  const CommitsConfig& d = empty->commits;
  EXPECT_EQ(c.max_commit_bytes, d.max_commit_bytes);
  EXPECT_EQ(c.max_actions, d.max_actions);
  EXPECT_EQ(c.min_credentials_validity_ms, d.min_credentials_validity_ms);
  EXPECT_EQ(c.pending_list_limit, d.pending_list_limit);
  EXPECT_EQ(c.max_unpublished_commits, d.max_unpublished_commits);
  const PublishConfig& p = example->publish;
  const PublishConfig& q = empty->publish;
  EXPECT_EQ(p.threads, q.threads);
  EXPECT_EQ(p.first_retry_ms, q.first_retry_ms);
  EXPECT_EQ(p.max_retry_ms, q.max_retry_ms);
  EXPECT_EQ(p.min_credentials_validity_ms, q.min_credentials_validity_ms);
  const AppendsConfig& e = example->appends;
  const AppendsConfig& f = empty->appends;
  EXPECT_EQ(e.max_batch_appends, f.max_batch_appends);
  EXPECT_EQ(e.max_batch_bytes, f.max_batch_bytes);
  EXPECT_EQ(e.max_batch_wait_ms, f.max_batch_wait_ms);
  EXPECT_EQ(e.max_queued_appends, f.max_queued_appends);
}

class LoadServiceConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("dc-config-test-" + NewUuid());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  std::string Write(const std::string& name, const std::string& text) {
    std::filesystem::path path = dir_ / name;
    std::ofstream(path) << text;
    return path.string();
  }
  std::filesystem::path dir_;
};

TEST_F(LoadServiceConfigTest, ErrorsNameThePathAndLine) {
  std::string path = Write("bad.toml", "[server]\n\nworkers = \"many\"\n");
  StatusOr<ServiceConfig> config = LoadServiceConfig(path);
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().message(),
            path + ":3:11: server.workers: must be an integer, not a string");
}

TEST_F(LoadServiceConfigTest, RelativePathsAreRelativeToTheFile) {
  std::string path = Write("ok.toml", "[state]\npath = \"state/db.sqlite\"\n");
  StatusOr<ServiceConfig> config = LoadServiceConfig(path);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->source, path);
  EXPECT_EQ(config->state.sqlite_path, (dir_ / "state/db.sqlite").string());
}

TEST_F(LoadServiceConfigTest, MissingFileIsNotFound) {
  std::string path = (dir_ / "absent.toml").string();
  StatusOr<ServiceConfig> config = LoadServiceConfig(path);
  EXPECT_EQ(config.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(config.status().message(),
            "service config " + path + " does not exist");
}

TEST_F(LoadServiceConfigTest, UnreadableFileIsPermissionDenied) {
  if (geteuid() == 0) GTEST_SKIP() << "root reads any file";
  std::string path = Write("secret.toml", "");
  std::filesystem::permissions(path, std::filesystem::perms::none);
  StatusOr<ServiceConfig> config = LoadServiceConfig(path);
  EXPECT_EQ(config.status().code(), StatusCode::kPermissionDenied);
  EXPECT_THAT(config.status().message(), StartsWith("service config " + path));
}

TEST_F(LoadServiceConfigTest, ADirectoryIsNotAConfig) {
  StatusOr<ServiceConfig> config = LoadServiceConfig(dir_.string());
  EXPECT_FALSE(config.ok());
  EXPECT_THAT(config.status().message(), HasSubstr(dir_.string()));
}

}  // namespace
}  // namespace deltacommit::service
