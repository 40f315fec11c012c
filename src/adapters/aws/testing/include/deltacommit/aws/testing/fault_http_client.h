// FaultInjectingHttpClient: an aws::HttpClient decorator for tests against
// real servers. By rules a test installs, chosen requests fail before they
// are sent, lose their reply after the server applied them, or get a canned
// reply (a throttling error, say) without reaching the server; every other
// request is forwarded unchanged. Wrap the client of one adapter (the
// DynamoDB client's) to fault only its calls.
//
// A rule matches a request by method, X-Amz-Target operation and substrings
// of its URL and body (an empty field matches anything), and fires on the
// nth..(nth+times-1)th request it matches. Rules are tried in the order they
// were added; the first that fires decides the request.
//
// Thread-safety: safe for concurrent use; rules may be added or cleared
// while requests are in flight. The wrapped client is called without the
// lock held.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "deltacommit/aws/http.h"

namespace deltacommit::aws::testing {

struct HttpMatch {
  std::string method;         // "POST"; empty: any
  std::string operation;      // X-Amz-Target after its '.', e.g. "PutItem"; empty: any
  std::string url_contains;   // empty: any
  std::string body_contains;  // e.g. "attribute_not_exists"; empty: any

  // Shorthands: HttpMatch::Operation("PutItem").WithBody("attribute_not_exists").
  static HttpMatch Operation(std::string operation);
  static HttpMatch Request(std::string method, std::string url_contains);
  HttpMatch WithBody(std::string substring) const;

  bool Matches(const HttpRequest& request) const;
};

enum class HttpFault {
  kFailBeforeSend,  // return `status` (default kUnavailable); nothing is sent
  kDropReply,       // send, then return `status` (default kUnknownOutcome)
  kCannedReply,     // return `reply`; nothing is sent
};

struct HttpFaultRule {
  static constexpr int64_t kEveryRequest = -1;

  HttpMatch match;
  HttpFault fault = HttpFault::kFailBeforeSend;
  int64_t nth = 1;     // first matching request it fires on, 1-based
  int64_t times = 1;   // matching requests it fires on from nth, or kEveryRequest
  Status status;       // kFailBeforeSend and kDropReply; OK means the default
  HttpResponse reply;  // kCannedReply

  // Shorthands: HttpFaultRule::CannedReply(match, throttled).Times(3).
  static HttpFaultRule FailBeforeSend(HttpMatch match, Status status = OkStatus());
  static HttpFaultRule DropReply(HttpMatch match);
  static HttpFaultRule CannedReply(HttpMatch match, HttpResponse reply);
  HttpFaultRule Times(int64_t n) const;
  HttpFaultRule From(int64_t nth_match) const;
};

class FaultInjectingHttpClient : public HttpClient {
 public:
  using RuleId = int;

  // `base` must outlive this object.
  explicit FaultInjectingHttpClient(HttpClient& base);

  RuleId AddRule(HttpFaultRule rule);
  // Removes every rule: from now on every request is forwarded.
  void ClearRules();

  // How many requests rule `id` has fired on.
  int64_t FiredCount(RuleId id) const;
  // How many requests received so far (faulted or not) `match` matches.
  int64_t Count(const HttpMatch& match) const;

  StatusOr<HttpResponse> Send(const HttpRequest& request) override;

 private:
  struct RuleState {
    HttpFaultRule rule;
    int64_t matched = 0;
    int64_t fired = 0;
    bool cleared = false;  // ClearRules() ran: matches nothing
  };

  // The rule that fires on `request`, counting the match; null: forward.
  std::shared_ptr<const RuleState> Decide(const HttpRequest& request);

  HttpClient& base_;
  mutable std::mutex mu_;
  // Guarded by mu_; index = RuleId. Send reads a rule's `rule` after
  // unlocking: it never changes once added.
  std::vector<std::shared_ptr<RuleState>> rules_;
  std::vector<HttpRequest> received_;  // guarded by mu_
};

}  // namespace deltacommit::aws::testing
