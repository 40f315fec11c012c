// An HttpClient for unit tests that replays scripted results in order (the
// last one repeats) and records what it was sent; and HeaderOf, to look at a
// sent request's headers. Header-only.
//
// Thread-safety: not for concurrent use.
#pragma once

#include <algorithm>
#include <cctype>
#include <deque>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "deltacommit/aws/http.h"

namespace deltacommit::aws::testing {

// The first header `name` (case-insensitive) of `request`, or "<absent>".
inline std::string HeaderOf(const HttpRequest& request, std::string_view name) {
  auto same = [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) ==
           std::tolower(static_cast<unsigned char>(b));
  };
  for (const auto& [n, v] : request.headers) {
    if (n.size() == name.size() && std::equal(n.begin(), n.end(), name.begin(), same)) return v;
  }
  return "<absent>";
}

class ScriptedHttpClient : public HttpClient {
 public:
  // `when_unscripted` answers every request while nothing is scripted.
  explicit ScriptedHttpClient(HttpResponse when_unscripted = {200, {}, "{}"})
      : when_unscripted_(std::move(when_unscripted)) {}

  void Script(std::vector<StatusOr<HttpResponse>> script) {
    script_.assign(script.begin(), script.end());
  }
  StatusOr<HttpResponse> Send(const HttpRequest& request) override {
    sent_.push_back(request);
    if (script_.empty()) return when_unscripted_;
    StatusOr<HttpResponse> next = script_.front();
    if (script_.size() > 1) script_.pop_front();
    return next;
  }
  const std::vector<HttpRequest>& sent() const { return sent_; }

 private:
  const HttpResponse when_unscripted_;
  std::deque<StatusOr<HttpResponse>> script_;
  std::vector<HttpRequest> sent_;
};

}  // namespace deltacommit::aws::testing
