// Test doubles for the DynamoDB unit tests: scripted replies of the JSON
// protocol and an HttpClient that replays them and records what it was
// sent. Header-only; for tests that link deltacommit_dynamodb.
#pragma once

#include <algorithm>
#include <cctype>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/aws/http.h"

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

// The first header `name` (case-insensitive) of `request`, or "<absent>".
inline std::string HeaderOf(const aws::HttpRequest& request, std::string_view name) {
  auto same = [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) ==
           std::tolower(static_cast<unsigned char>(b));
  };
  for (const auto& [n, v] : request.headers) {
    if (n.size() == name.size() && std::equal(n.begin(), n.end(), name.begin(), same)) return v;
  }
  return "<absent>";
}

// Replays scripted results in order (the last one repeats; none: "{}") and
// records what it was sent.
class ScriptedHttpClient : public aws::HttpClient {
 public:
  void Script(std::vector<StatusOr<aws::HttpResponse>> script) {
    script_.assign(script.begin(), script.end());
  }
  StatusOr<aws::HttpResponse> Send(const aws::HttpRequest& request) override {
    sent_.push_back(request);
    if (script_.empty()) return Ok();
    StatusOr<aws::HttpResponse> next = script_.front();
    if (script_.size() > 1) script_.pop_front();
    return next;
  }
  const std::vector<aws::HttpRequest>& sent() const { return sent_; }

 private:
  std::deque<StatusOr<aws::HttpResponse>> script_;
  std::vector<aws::HttpRequest> sent_;
};

}  // namespace deltacommit::dynamodb::testing
