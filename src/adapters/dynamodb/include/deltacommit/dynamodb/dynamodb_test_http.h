// Test doubles for the DynamoDB unit tests: scripted replies of the JSON
// protocol, replayed by aws::testing::ScriptedHttpClient. Header-only; for
// tests that link deltacommit_dynamodb.
#pragma once

#include <string>
#include <utility>

#include "deltacommit/aws/http.h"
#include "deltacommit/aws/testing/scripted_http_client.h"

namespace deltacommit::dynamodb::testing {

inline aws::HttpResponse Reply(long status, std::string body) {
  aws::HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  r.headers = {{"x-amzn-requestid", "REQ123"}};
  return r;
}

inline aws::HttpResponse Ok(std::string body = "{}") { return Reply(200, std::move(body)); }

// DynamoDB's error body for `code`.
inline aws::HttpResponse Error(long status, const std::string& code,
                               const std::string& message = "") {
  return Reply(status, R"({"__type":"com.amazonaws.dynamodb.v20120810#)" + code +
                           R"(","message":")" + message + R"("})");
}

using aws::testing::HeaderOf;

// aws::testing::ScriptedHttpClient answering "{}" while nothing is scripted.
class ScriptedHttpClient : public aws::testing::ScriptedHttpClient {
 public:
  ScriptedHttpClient() : aws::testing::ScriptedHttpClient(Ok()) {}
};

}  // namespace deltacommit::dynamodb::testing
