// Router: maps a method and a request path to a handler.
//
// A pattern is '/'-separated segments, each a literal or "{name}", which
// matches exactly one non-empty segment and hands the handler its
// percent-decoded value: "/v1/tables/{table}/commits" matches
// "/v1/tables/s3%3A%2F%2Fb%2Fp/commits" with table = "s3://b/p". Matching is
// on the raw path, so an encoded '/' (%2F) stays inside its segment.
// When several patterns match, the one whose first differing segment is a
// literal wins ("/v1/tables/names" before "/v1/tables/{table}").
//
// Thread-safety: Add() before the server starts; Find() is const and safe to
// call concurrently once registration is over.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/status.h"
#include "service/http/http_message.h"

namespace deltacommit::http {

// A blocking request handler; runs on the server's worker pool. An exception
// it throws is answered 500 (and logged); the server stays up.
using Handler = std::function<Response(const Request&)>;

class Router {
 public:
  enum class MatchKind { kFound, kNotFound, kMethodNotAllowed, kBadPath };

  struct Match {
    MatchKind kind = MatchKind::kNotFound;
    const Handler* handler = nullptr;           // kFound: owned by Router
    std::string route;                          // kFound: the pattern
    std::map<std::string, std::string> params;  // kFound: decoded
    std::string allow;  // kMethodNotAllowed: "GET, POST"
    std::string error;  // kBadPath: which segment is malformed
  };

  // kInvalidArgument: a pattern not starting with '/', a malformed or
  // repeated {name}, an empty method; kAlreadyExists: the same method and
  // pattern twice.
  Status Add(std::string method, std::string pattern, Handler handler);

  // kFound, kNotFound (no pattern matches the path), kMethodNotAllowed (some
  // pattern matches, none for this method) or kBadPath (a {name} segment has
  // a malformed percent-escape).
  Match Find(std::string_view method, std::string_view path) const;

 private:
  struct Segment {
    std::string text;  // literal text, or the parameter name
    bool is_param = false;
  };
  struct Route {
    std::string method;
    std::string pattern;
    std::vector<Segment> segments;
    Handler handler;
  };

  static bool Matches(const Route& route,
                      const std::vector<std::string_view>& parts);
  static bool MoreSpecific(const Route& a, const Route& b);

  std::vector<Route> routes_;
};

}  // namespace deltacommit::http
