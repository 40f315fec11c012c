#include "deltacommit/aws/aws_config.h"

#include <utility>
#include <vector>

#include "deltacommit/aws/credentials_internal.h"
#include "deltacommit/core/ascii.h"

namespace deltacommit::aws {
namespace {

using internal::EnvLookup;

// A setting's value and where it came from, for messages.
struct Found {
  std::string value;
  std::string source;
};

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool HasControl(std::string_view s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f || c == ' ') return true;
  }
  return false;
}

// The chosen profile, read only if some setting falls through to it.
class LazyProfile {
 public:
  LazyProfile(const AwsConfigOverrides& overrides, const EnvLookup& env,
              const std::string& home_dir)
      : choice_(internal::ChooseProfile(overrides.profile, env)),
        files_(internal::LocateProfileFiles(env, home_dir)) {}

  StatusOr<std::optional<Found>> Get(const std::string& key) {
    if (!loaded_) {
      DC_ASSIGN_OR_RETURN(profile_, internal::LoadChosenProfile(files_, choice_));
      loaded_ = true;
    }
    const internal::ProfileSetting* setting =
        profile_.has_value() ? profile_->Find(key) : nullptr;
    if (setting == nullptr || setting->value.empty()) return std::optional<Found>();
    return std::optional<Found>(
        Found{setting->value, "profile \"" + choice_.name + "\" in " + setting->path});
  }

 private:
  const internal::ProfileChoice choice_;
  const internal::ProfileFiles files_;
  bool loaded_ = false;
  std::optional<internal::Profile> profile_;
};

std::optional<Found> FromEnv(const EnvLookup& env, const std::string& name) {
  std::optional<std::string> value = env.Get(name);
  if (!value.has_value()) return std::nullopt;
  return Found{*value, name};
}

StatusOr<bool> ParseBool(const Found& f) {
  std::string v = AsciiLower(f.value);
  if (v == "true" || v == "1") return true;
  if (v == "false" || v == "0") return false;
  return InvalidArgumentError(f.source + "=\"" + f.value + "\" is not a boolean (true or false)");
}

// ---- region -----------------------------------------------------------------

StatusOr<Found> ResolveRegion(const AwsConfigOverrides& overrides, const EnvLookup& env,
                              LazyProfile& profile) {
  std::optional<Found> found;
  if (overrides.region.has_value()) found = Found{*overrides.region, "explicit options"};
  if (!found) found = FromEnv(env, "AWS_REGION");
  if (!found) found = FromEnv(env, "AWS_DEFAULT_REGION");
  if (!found) {
    DC_ASSIGN_OR_RETURN(found, profile.Get("region"));
  }
  if (!found) return Found{"us-east-1", "default"};
  // The region becomes part of a host name: no dots, slashes or spaces.
  bool valid = !found->value.empty() && found->value.size() <= 64;
  for (char c : found->value) valid = valid && (IsAlnum(c) || c == '-' || c == '_');
  if (!valid) {
    return InvalidArgumentError("region \"" + found->value + "\" (from " + found->source +
                                ") is not a region name such as us-east-1");
  }
  return *found;
}

// ---- endpoint ---------------------------------------------------------------

Status BadEndpoint(const Found& f, const std::string& why) {
  return InvalidArgumentError("endpoint \"" + f.value + "\" (from " + f.source + ") " + why);
}

bool ValidHost(std::string_view host) {
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {  // IPv6 literal
    for (char c : host.substr(1, host.size() - 2)) {
      if (!IsAlnum(c) && c != ':' && c != '.') return false;
    }
    return true;
  }
  if (host.empty() || host.front() == '.' || host.find("..") != std::string_view::npos) {
    return false;
  }
  for (char c : host) {
    if (!IsAlnum(c) && c != '-' && c != '.' && c != '_') return false;
  }
  return true;
}

bool ValidPort(std::string_view port) {
  if (port.empty() || port.size() > 5) return false;
  int n = 0;
  for (char c : port) {
    if (!IsDigit(c)) return false;
    n = n * 10 + (c - '0');
  }
  return n >= 1 && n <= 65535;
}

// scheme://host[:port][/path] -> lower-case scheme and host, no trailing '/'.
StatusOr<std::string> NormalizeEndpoint(const Found& f) {
  size_t sep = f.value.find("://");
  std::string scheme = AsciiLower(f.value.substr(0, sep));
  if (sep == std::string::npos || (scheme != "https" && scheme != "http")) {
    return BadEndpoint(f, "must be an https:// (or http://) URL");
  }
  std::string_view rest = std::string_view(f.value).substr(sep + 3);
  size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string path(slash == std::string_view::npos ? "" : rest.substr(slash));
  // Checked before anything quotes the URL: user info may hold a password.
  if (authority.find('@') != std::string_view::npos) {
    return InvalidArgumentError("endpoint from " + f.source +
                                " must not contain user info (user@host)");
  }
  if (rest.find_first_of("?#") != std::string_view::npos) {
    return BadEndpoint(f, "must not have a query or fragment");
  }
  if (HasControl(rest)) return BadEndpoint(f, "contains spaces or control characters");
  size_t colon = authority.rfind(':');
  if (colon != std::string_view::npos && authority.find(']', colon) != std::string_view::npos) {
    colon = std::string_view::npos;  // the colon is inside an IPv6 literal
  }
  std::string_view host = authority.substr(0, colon);
  if (!ValidHost(host)) return BadEndpoint(f, "has no valid host name");
  if (colon != std::string_view::npos && !ValidPort(authority.substr(colon + 1))) {
    return BadEndpoint(f, "has an invalid port (1-65535)");
  }
  while (!path.empty() && path.back() == '/') path.pop_back();
  return scheme + "://" + AsciiLower(authority) + path;
}

std::string DefaultEndpoint(std::string_view service, const std::string& region) {
  // China regions live under their own domain.
  bool china = region.rfind("cn-", 0) == 0;
  return "https://" + std::string(service) + "." + region + ".amazonaws.com" +
         (china ? ".cn" : "");
}

StatusOr<std::optional<Found>> ConfiguredEndpoint(std::string_view service,
                                                  const EnvLookup& env, LazyProfile& profile) {
  if (std::optional<Found> ignore = FromEnv(env, "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS")) {
    DC_ASSIGN_OR_RETURN(bool ignored, ParseBool(*ignore));
    if (ignored) return std::optional<Found>();
  }
  std::string specific = service == "s3"    ? "AWS_ENDPOINT_URL_S3"
                         : service == "sts" ? "AWS_ENDPOINT_URL_STS"
                                            : "AWS_ENDPOINT_URL_DYNAMODB";
  if (std::optional<Found> found = FromEnv(env, specific)) return found;
  if (std::optional<Found> found = FromEnv(env, "AWS_ENDPOINT_URL")) return found;
  return profile.Get("endpoint_url");
}

StatusOr<Found> ResolveEndpoint(std::string_view service, const std::string& region,
                                const AwsConfigOverrides& overrides, const EnvLookup& env,
                                LazyProfile& profile) {
  std::optional<Found> found;
  if (overrides.endpoint_url.has_value()) {
    found = Found{*overrides.endpoint_url, "explicit options"};
  } else {
    DC_ASSIGN_OR_RETURN(found, ConfiguredEndpoint(service, env, profile));
  }
  if (!found) return Found{DefaultEndpoint(service, region), kAwsDefaultEndpointSource};
  DC_ASSIGN_OR_RETURN(std::string url, NormalizeEndpoint(*found));
  return Found{std::move(url), found->source};
}

// ---- http and addressing style ---------------------------------------------

StatusOr<bool> ResolveAllowHttp(const AwsConfigOverrides& overrides, const EnvLookup& env) {
  if (overrides.allow_http.has_value()) return *overrides.allow_http;
  if (std::optional<Found> found = FromEnv(env, "AWS_ALLOW_HTTP")) return ParseBool(*found);
  return false;
}

// "path" -> true, "virtual" -> false, "auto" -> nullopt.
StatusOr<std::optional<bool>> ParseAddressingStyle(const Found& f) {
  std::string v = AsciiLower(f.value);
  if (v == "path") return std::optional<bool>(true);
  if (v == "virtual") return std::optional<bool>(false);
  if (v == "auto") return std::optional<bool>();
  return InvalidArgumentError(f.source + "=\"" + f.value + "\" is not path, virtual or auto");
}

// The three variable names in use (delta-rs, object_store, other tools); all
// that are set must agree.
StatusOr<std::optional<Found>> PathStyleFromEnv(const EnvLookup& env) {
  std::vector<std::pair<Found, bool>> votes;  // (setting, wants path-style)
  if (std::optional<Found> f = FromEnv(env, "AWS_S3_FORCE_PATH_STYLE")) {
    DC_ASSIGN_OR_RETURN(bool path, ParseBool(*f));
    votes.emplace_back(*f, path);
  }
  if (std::optional<Found> f = FromEnv(env, "AWS_VIRTUAL_HOSTED_STYLE_REQUEST")) {
    DC_ASSIGN_OR_RETURN(bool virtual_hosted, ParseBool(*f));
    votes.emplace_back(*f, !virtual_hosted);
  }
  if (std::optional<Found> f = FromEnv(env, "AWS_S3_ADDRESSING_STYLE")) {
    DC_ASSIGN_OR_RETURN(std::optional<bool> path, ParseAddressingStyle(*f));
    if (path.has_value()) votes.emplace_back(*f, *path);
  }
  if (votes.empty()) return std::optional<Found>();
  for (const auto& [f, path] : votes) {
    if (path != votes.front().second) {
      const Found& first = votes.front().first;
      return InvalidArgumentError(first.source + "=" + first.value + " and " + f.source + "=" +
                                  f.value + " ask for different S3 addressing styles; "
                                  "unset one of them");
    }
  }
  return std::optional<Found>(Found{votes.front().second ? "path" : "virtual",
                                    votes.front().first.source});
}

StatusOr<bool> ResolvePathStyle(const AwsConfigOverrides& overrides, const EnvLookup& env,
                                LazyProfile& profile, const std::string& endpoint_url) {
  if (overrides.path_style.has_value()) return *overrides.path_style;
  DC_ASSIGN_OR_RETURN(std::optional<Found> style, PathStyleFromEnv(env));
  if (!style) {
    DC_ASSIGN_OR_RETURN(style, profile.Get("s3.addressing_style"));
  }
  if (style) {
    DC_ASSIGN_OR_RETURN(std::optional<bool> path, ParseAddressingStyle(*style));
    if (path.has_value()) return *path;
  }
  // MinIO, LocalStack and friends rarely have wildcard DNS for buckets.
  return !IsAwsEndpoint(endpoint_url);
}

}  // namespace

bool IsAwsEndpoint(const std::string& endpoint_url) {
  std::string_view rest = std::string_view(endpoint_url).substr(endpoint_url.find("://") + 3);
  std::string_view authority = rest.substr(0, rest.find('/'));
  std::string_view host = authority.substr(0, authority.rfind(':'));
  for (std::string_view domain : {".amazonaws.com", ".amazonaws.com.cn"}) {
    if (host.size() > domain.size() && host.substr(host.size() - domain.size()) == domain) {
      return true;
    }
  }
  return false;
}

StatusOr<AwsServiceConfig> ResolveServiceConfig(std::string_view service,
                                                const AwsConfigOverrides& explicit_options,
                                                const AwsConfigSources& sources) {
  if (service != "s3" && service != "dynamodb" && service != "sts") {
    return InvalidArgumentError("unknown AWS service \"" + std::string(service) +
                                "\" (expected s3, dynamodb or sts)");
  }
  EnvLookup env(sources.environment);
  LazyProfile profile(explicit_options, env, sources.home_dir);
  AwsServiceConfig config;
  DC_ASSIGN_OR_RETURN(Found region, ResolveRegion(explicit_options, env, profile));
  config.region = region.value;
  config.region_source = region.source;
  DC_ASSIGN_OR_RETURN(Found endpoint,
                      ResolveEndpoint(service, config.region, explicit_options, env, profile));
  config.endpoint_url = endpoint.value;
  config.endpoint_source = endpoint.source;
  DC_ASSIGN_OR_RETURN(config.allow_http, ResolveAllowHttp(explicit_options, env));
  if (config.endpoint_url.rfind("http://", 0) == 0 && !config.allow_http) {
    return InvalidArgumentError("endpoint " + config.endpoint_url + " (from " + endpoint.source +
                                ") is plain http; set AWS_ALLOW_HTTP=true (or allow_http in "
                                "the options) to allow unencrypted connections, or use https");
  }
  if (service == "s3") {
    DC_ASSIGN_OR_RETURN(config.path_style, ResolvePathStyle(explicit_options, env, profile,
                                                            config.endpoint_url));
  }
  return config;
}

// ---- s3:// URIs ---------------------------------------------------------------

namespace {

bool LooksLikeIpAddress(std::string_view name) {
  int dots = 0;
  for (char c : name) {
    if (c == '.') {
      ++dots;
    } else if (!IsDigit(c)) {
      return false;
    }
  }
  return dots == 3;
}

// S3's rules for general purpose buckets. Suffixes S3 reserves for access
// point aliases and directory buckets are accepted: those names are
// addressable like bucket names.
Status ValidateBucket(std::string_view bucket, std::string_view uri) {
  auto bad = [&](const std::string& why) {
    return InvalidArgumentError("invalid bucket name \"" + std::string(bucket) + "\" in " +
                                std::string(uri) + ": " + why);
  };
  if (bucket.size() < 3 || bucket.size() > 63) return bad("must be 3 to 63 characters long");
  for (char c : bucket) {
    bool lower_or_digit = (c >= 'a' && c <= 'z') || IsDigit(c);
    if (!lower_or_digit && c != '-' && c != '.') {
      return bad("may contain only lower-case letters, digits, '.' and '-'");
    }
  }
  if (!IsAlnum(bucket.front()) || !IsAlnum(bucket.back())) {
    return bad("must begin and end with a letter or digit");
  }
  if (bucket.find("..") != std::string_view::npos) return bad("must not contain \"..\"");
  if (LooksLikeIpAddress(bucket)) return bad("must not look like an IP address");
  if (bucket.rfind("xn--", 0) == 0 || bucket.rfind("sthree-", 0) == 0) {
    return bad("must not begin with \"xn--\" or \"sthree-\"");
  }
  return OkStatus();
}

Status ValidateKeyPrefix(std::string_view prefix, std::string_view uri) {
  if (prefix.empty()) return OkStatus();
  for (size_t start = 0;;) {
    size_t end = prefix.find('/', start);
    std::string_view segment = prefix.substr(start, end - start);
    if (segment.empty() || segment == "." || segment == "..") {
      return InvalidArgumentError("path of " + std::string(uri) +
                                  " has an empty, \".\" or \"..\" segment; give the table's "
                                  "path plainly, e.g. s3://bucket/tables/events");
    }
    if (end == std::string_view::npos) return OkStatus();
    start = end + 1;
  }
}

}  // namespace

StatusOr<S3Location> ParseS3Uri(std::string_view uri) {
  size_t sep = uri.find("://");
  std::string scheme = AsciiLower(uri.substr(0, sep));
  if (sep == std::string_view::npos || (scheme != "s3" && scheme != "s3a" && scheme != "s3n")) {
    return InvalidArgumentError("\"" + std::string(uri) +
                                "\" is not an S3 URI (s3://bucket/path; s3a:// and s3n:// "
                                "are accepted too)");
  }
  if (HasControl(uri)) {
    return InvalidArgumentError("S3 URI \"" + std::string(uri) +
                                "\" contains spaces or control characters");
  }
  if (uri.find_first_of("?#") != std::string_view::npos) {
    return InvalidArgumentError("S3 URI \"" + std::string(uri) +
                                "\" has a query or fragment ('?' or '#')");
  }
  std::string_view rest = uri.substr(sep + 3);
  std::string_view bucket = rest.substr(0, rest.find('/'));
  if (bucket.empty()) {
    return InvalidArgumentError("S3 URI \"" + std::string(uri) + "\" has no bucket name");
  }
  DC_RETURN_IF_ERROR(ValidateBucket(bucket, uri));
  std::string_view prefix = rest.substr(bucket.size());
  if (!prefix.empty()) prefix.remove_prefix(1);  // the '/' after the bucket
  while (!prefix.empty() && prefix.back() == '/') prefix.remove_suffix(1);
  DC_RETURN_IF_ERROR(ValidateKeyPrefix(prefix, uri));
  return S3Location{scheme, std::string(bucket), std::string(prefix)};
}

}  // namespace deltacommit::aws
