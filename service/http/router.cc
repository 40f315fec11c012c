#include "service/http/router.h"

#include <algorithm>
#include <set>
#include <utility>

#include "service/http/url_codec.h"

namespace deltacommit::http {
namespace {

// "/a/b" -> {"a", "b"}; "/" -> {""}. REQUIRES: path starts with '/'.
std::vector<std::string_view> SplitPath(std::string_view path) {
  std::vector<std::string_view> parts;
  path.remove_prefix(1);
  while (true) {
    size_t slash = path.find('/');
    parts.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return parts;
}

bool IsParamName(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_';
  });
}

}  // namespace

Status Router::Add(std::string method, std::string pattern, Handler handler) {
  if (method.empty()) {
    return InvalidArgumentError("route '" + pattern + "': empty method");
  }
  if (pattern.empty() || pattern.front() != '/') {
    return InvalidArgumentError("route '" + pattern +
                                "': a pattern must start with '/'");
  }
  Route route{method, pattern, {}, std::move(handler)};
  std::set<std::string, std::less<>> names;
  for (std::string_view part : SplitPath(pattern)) {
    if (part.find_first_of("{}") == std::string_view::npos) {
      route.segments.push_back({std::string(part), false});
      continue;
    }
    std::string_view name =
        part.size() >= 2 ? part.substr(1, part.size() - 2) : std::string_view();
    if (!part.starts_with('{') || !part.ends_with('}') || !IsParamName(name)) {
      return InvalidArgumentError(
          "route '" + pattern + "': segment '" + std::string(part) +
          "' is neither literal text nor a {name} of letters, digits and _");
    }
    if (!names.emplace(name).second) {
      return InvalidArgumentError("route '" + pattern + "': parameter {" +
                                  std::string(name) + "} appears twice");
    }
    route.segments.push_back({std::string(name), true});
  }
  for (const Route& existing : routes_) {
    if (existing.method == method && existing.pattern == pattern) {
      return AlreadyExistsError("route " + method + " " + pattern +
                                " is registered twice");
    }
  }
  routes_.push_back(std::move(route));
  return OkStatus();
}

bool Router::Matches(const Route& route,
                     const std::vector<std::string_view>& parts) {
  if (route.segments.size() != parts.size()) return false;
  for (size_t i = 0; i < parts.size(); ++i) {
    const Segment& segment = route.segments[i];
    if (segment.is_param ? parts[i].empty() : segment.text != parts[i]) {
      return false;
    }
  }
  return true;
}

// At the first segment where one is a literal and the other a parameter,
// the literal is more specific.
bool Router::MoreSpecific(const Route& a, const Route& b) {
  for (size_t i = 0; i < a.segments.size(); ++i) {
    if (a.segments[i].is_param != b.segments[i].is_param) {
      return !a.segments[i].is_param;
    }
  }
  return false;
}

Router::Match Router::Find(std::string_view method,
                           std::string_view path) const {
  Match match;
  if (path.empty() || path.front() != '/') return match;
  std::vector<std::string_view> parts = SplitPath(path);
  const Route* best = nullptr;
  std::set<std::string> allowed;
  for (const Route& route : routes_) {
    if (!Matches(route, parts)) continue;
    allowed.insert(route.method);
    if (route.method == method &&
        (best == nullptr || MoreSpecific(route, *best))) {
      best = &route;
    }
  }
  if (best == nullptr) {
    if (allowed.empty()) return match;
    match.kind = MatchKind::kMethodNotAllowed;
    for (const std::string& m : allowed) {
      match.allow += (match.allow.empty() ? "" : ", ") + m;
    }
    return match;
  }
  for (size_t i = 0; i < parts.size(); ++i) {
    const Segment& segment = best->segments[i];
    if (!segment.is_param) continue;
    StatusOr<std::string> value = PercentDecode(parts[i]);
    if (!value.ok()) {
      match.kind = MatchKind::kBadPath;
      match.error =
          "path parameter {" + segment.text + "}: " + value.status().message();
      return match;
    }
    match.params[segment.text] = *std::move(value);
  }
  match.kind = MatchKind::kFound;
  match.handler = &best->handler;
  match.route = best->pattern;
  return match;
}

}  // namespace deltacommit::http
