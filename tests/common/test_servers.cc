#include "common/test_servers.h"

#include <cstdlib>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <optional>

#include "deltacommit/aws/aws_config.h"
#include "deltacommit/aws/sts_client.h"
#include "deltacommit/log_path.h"

namespace deltacommit::testing {

bool InCi() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && *ci != '\0' && std::string(ci) != "false";
}

namespace {

std::optional<std::string> FirstUnset(std::initializer_list<const char*> variables) {
  for (const char* var : variables) {
    const char* v = std::getenv(var);
    if (v == nullptr || *v == '\0') {
      return std::string(var) + " is not set: start the servers with "
             "`eval \"$(scripts/test-servers up)\"` (scripts/test.sh does)";
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> S3Unavailable() {
  return FirstUnset({"AWS_ENDPOINT_URL_S3", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
                     "DELTACOMMIT_TEST_BUCKET"});
}

std::optional<std::string> DynamoDbUnavailable() {
  return FirstUnset({"AWS_ENDPOINT_URL_DYNAMODB", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"});
}

std::optional<std::string> StsUnavailable() {
  if (std::optional<std::string> why = S3Unavailable()) return why;
  if (FirstUnset({"AWS_ENDPOINT_URL_STS"})) {
    return std::string("AWS_ENDPOINT_URL_STS is not set: these servers have S3 without STS "
                       "(an older scripts/test-servers); restart them with "
                       "`scripts/test-servers down` and `eval \"$(scripts/test-servers up)\"`");
  }
  return std::nullopt;
}

StatusOr<aws::Credentials> TestSessionCredentials() {
  static std::mutex mu;
  static std::optional<aws::Credentials> session;  // guarded by mu
  std::lock_guard<std::mutex> lock(mu);
  const int64_t now = SystemClock().NowMillis();
  if (session && *session->expiration_ms - now > 5 * 60 * 1000) return *session;
  DC_ASSIGN_OR_RETURN(aws::AwsServiceConfig service, aws::ResolveServiceConfig("sts", {}));
  static std::unique_ptr<aws::HttpClient> http = aws::NewCurlHttpClient();
  aws::StsClient sts({service, {}}, *http);
  DC_ASSIGN_OR_RETURN(aws::Credentials long_term, aws::DefaultCredentialsChain({})->GetCredentials());
  DC_ASSIGN_OR_RETURN(session, sts.GetSessionToken(long_term, aws::kMinSessionDurationSeconds));
  session->source = "test session";
  return *session;
}

S3TestStore NewS3TestStore(const std::string& purpose) {
  S3TestStore t;
  S3StoreConfig config;
  config.bucket = std::getenv("DELTACOMMIT_TEST_BUCKET");
  config.key_prefix = "tests/" + purpose + "-" + NewUuid();
  auto service = aws::ResolveServiceConfig("s3", {});
  if (!service.ok()) std::abort();  // the environment is the test's own
  config.service = *service;
  t.http = aws::NewCurlHttpClient();
  t.credentials = aws::DefaultCredentialsChain({});
  t.uri = "s3://" + config.bucket + "/" + config.key_prefix;
  t.store = std::make_unique<S3ObjectStore>(std::move(config), *t.http, *t.credentials);
  return t;
}

}  // namespace deltacommit::testing
