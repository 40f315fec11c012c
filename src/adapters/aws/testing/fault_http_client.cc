#include "deltacommit/aws/testing/fault_http_client.h"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <utility>

#include "deltacommit/core/ascii.h"

namespace deltacommit::aws::testing {
namespace {

// "DynamoDB_20120810.PutItem" -> "PutItem"; no X-Amz-Target -> "".
std::string OperationOf(const HttpRequest& request) {
  for (const auto& [name, value] : request.headers) {
    if (!EqualsIgnoreCase(name, "X-Amz-Target")) continue;
    const size_t dot = value.rfind('.');
    return dot == std::string::npos ? value : value.substr(dot + 1);
  }
  return "";
}

bool Fires(const HttpFaultRule& rule, int64_t matched) {
  if (matched < rule.nth) return false;
  return rule.times == HttpFaultRule::kEveryRequest || matched < rule.nth + rule.times;
}

// What the injected failure says: which request, and that it was injected.
std::string Describe(const HttpRequest& request) {
  const std::string operation = OperationOf(request);
  return request.method + " " + request.url + (operation.empty() ? "" : " (" + operation + ")");
}

}  // namespace

HttpMatch HttpMatch::Operation(std::string operation) {
  HttpMatch m;
  m.operation = std::move(operation);
  return m;
}

HttpMatch HttpMatch::Request(std::string method, std::string url_contains) {
  HttpMatch m;
  m.method = std::move(method);
  m.url_contains = std::move(url_contains);
  return m;
}

HttpMatch HttpMatch::WithBody(std::string substring) const {
  HttpMatch m = *this;
  m.body_contains = std::move(substring);
  return m;
}

HttpFaultRule HttpFaultRule::FailBeforeSend(HttpMatch match, Status status) {
  HttpFaultRule r;
  r.match = std::move(match);
  r.fault = HttpFault::kFailBeforeSend;
  r.status = std::move(status);
  return r;
}

HttpFaultRule HttpFaultRule::DropReply(HttpMatch match) {
  HttpFaultRule r;
  r.match = std::move(match);
  r.fault = HttpFault::kDropReply;
  return r;
}

HttpFaultRule HttpFaultRule::CannedReply(HttpMatch match, HttpResponse reply) {
  HttpFaultRule r;
  r.match = std::move(match);
  r.fault = HttpFault::kCannedReply;
  r.reply = std::move(reply);
  return r;
}

HttpFaultRule HttpFaultRule::Times(int64_t n) const {
  HttpFaultRule r = *this;
  r.times = n;
  return r;
}

HttpFaultRule HttpFaultRule::From(int64_t nth_match) const {
  HttpFaultRule r = *this;
  r.nth = nth_match;
  return r;
}

bool HttpMatch::Matches(const HttpRequest& request) const {
  if (!method.empty() && !EqualsIgnoreCase(method, request.method)) return false;
  if (!operation.empty() && operation != OperationOf(request)) return false;
  if (request.url.find(url_contains) == std::string::npos) return false;
  return request.body.find(body_contains) != std::string::npos;
}

FaultInjectingHttpClient::FaultInjectingHttpClient(HttpClient& base) : base_(base) {}

FaultInjectingHttpClient::RuleId FaultInjectingHttpClient::AddRule(HttpFaultRule rule) {
  auto state = std::make_shared<RuleState>();
  state->rule = std::move(rule);
  std::lock_guard<std::mutex> lock(mu_);
  rules_.push_back(std::move(state));
  return static_cast<RuleId>(rules_.size() - 1);
}

void FaultInjectingHttpClient::ClearRules() {
  std::lock_guard<std::mutex> lock(mu_);
  // Kept, disarmed, so RuleIds and their counts stay valid.
  for (auto& state : rules_) state->cleared = true;
}

int64_t FaultInjectingHttpClient::FiredCount(RuleId id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return rules_.at(static_cast<size_t>(id))->fired;
}

int64_t FaultInjectingHttpClient::Count(const HttpMatch& match) const {
  std::lock_guard<std::mutex> lock(mu_);
  return std::count_if(received_.begin(), received_.end(),
                       [&](const HttpRequest& r) { return match.Matches(r); });
}

std::shared_ptr<const FaultInjectingHttpClient::RuleState> FaultInjectingHttpClient::Decide(
    const HttpRequest& request) {
  std::lock_guard<std::mutex> lock(mu_);
  received_.push_back(request);
  std::shared_ptr<const RuleState> decided;
  for (auto& state : rules_) {
    if (state->cleared || !state->rule.match.Matches(request)) continue;
    // Every matching rule counts the request, so nth means the same
    // whichever rules were added before it.
    ++state->matched;
    if (decided == nullptr && Fires(state->rule, state->matched)) {
      ++state->fired;
      decided = state;
    }
  }
  return decided;
}

StatusOr<HttpResponse> FaultInjectingHttpClient::Send(const HttpRequest& request) {
  std::shared_ptr<const RuleState> state = Decide(request);
  if (state == nullptr) return base_.Send(request);
  const HttpFaultRule& rule = state->rule;
  switch (rule.fault) {
    case HttpFault::kFailBeforeSend:
      if (!rule.status.ok()) return rule.status;
      return UnavailableError("injected: " + Describe(request) + " failed before it was sent");
    case HttpFault::kDropReply: {
      StatusOr<HttpResponse> reply = base_.Send(request);
      if (!rule.status.ok()) return rule.status;
      return UnknownOutcomeError("injected: reply to " + Describe(request) +
                                 " dropped after it was sent (HTTP " +
                                 (reply.ok() ? std::to_string(reply->status) : "none") + ")");
    }
    case HttpFault::kCannedReply:
      return rule.reply;
  }
  return InternalError("FaultInjectingHttpClient: unknown fault");
}

}  // namespace deltacommit::aws::testing
