// A gtest fixture for tests of the commit service client and the service
// and coordinated log stores: a ScriptedCommitService over a
// MemoryObjectStore, reached through the real libcurl client, with a fake
// clock for credential expiry and a recording sleeper for backoff.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "deltacommit/aws/credentials.h"
#include "deltacommit/aws/http.h"
#include "deltacommit/service_client/http_commit_service_client.h"
#include "deltacommit/testing/fake_clock.h"
#include "deltacommit/testing/memory_object_store.h"
#include "service/testing/scripted_commit_service.h"

namespace deltacommit::testing {

inline constexpr std::string_view kTable = "s3://bucket/events";
inline constexpr std::string_view kSecretKey = "wJalrXUtnFEMI-SECRET-bPxRfiCYEXAMPLEKEY";
inline constexpr std::string_view kSessionToken = "FwoGZXIvYXdzEXAMPLE-SESSION-TOKEN";

class ServiceFixture : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(service_.Start().ok()); }

  // Temporary credentials valid for an hour from the fake clock's now.
  aws::Credentials Credentials() {
    aws::Credentials c;
    c.access_key_id = "ASIAEXAMPLEKEY123456";
    c.secret_access_key = std::string(kSecretKey);
    c.session_token = std::string(kSessionToken);
    c.expiration_ms = clock_.NowMillis() + 3'600'000;
    c.source = "test credentials";
    return c;
  }

  // A client of the scripted service; `request_timeout` bounds each send.
  std::unique_ptr<service_client::HttpCommitServiceClient> MakeClient(
      std::string endpoint = "",
      std::chrono::milliseconds request_timeout = std::chrono::milliseconds(5000)) {
    aws::HttpOptions http_options;
    http_options.request_timeout = request_timeout;
    http_ = aws::NewCurlHttpClient(http_options);
    provider_ = aws::StaticCredentialsProvider(Credentials(), clock_);
    service_client::CommitServiceOptions options;
    options.url = service_.url();
    options.token = std::string(ScriptedCommitService::kToken);
    options.endpoint = std::move(endpoint);
    return std::make_unique<service_client::HttpCommitServiceClient>(options, *http_, *provider_,
                                                                     clock_, sleeper_);
  }

  static nlohmann::json Body(const RecordedRequest& r) { return nlohmann::json::parse(r.body); }

  FakeClock clock_;
  RecordingSleeper sleeper_{&clock_};
  MemoryObjectStore store_;
  ScriptedCommitService service_{std::string(kTable), &store_};
  std::unique_ptr<aws::HttpClient> http_;
  std::unique_ptr<aws::CredentialsProvider> provider_;
};

}  // namespace deltacommit::testing
