// Reads [s3], [[s3.bucket]] and [[s3.allowed_endpoint]] into resolved
// endpoints at load time (so a bad URL stops the service at start, naming
// its line), and picks one per request.
#include "service/config/s3_endpoints.h"

#include <array>
#include <map>
#include <utility>

#include "deltacommit/aws/sts_client.h"
#include "deltacommit/core/message_quote.h"
#include "service/config/config_sections.h"
#include "service/config/table_uri.h"

namespace deltacommit::service {
namespace internal {
namespace {

// The resolver says where a setting came from; here that is always the
// section the error is reported at.
std::string WithoutSource(std::string message) {
  constexpr std::string_view kSource = " (from explicit options)";
  for (size_t at = message.find(kSource); at != std::string::npos;
       at = message.find(kSource)) {
    message.erase(at, kSource.size());
  }
  return message;
}

// The S3 endpoint keys of one section, before resolution.
struct EndpointFields {
  std::string region = "us-east-1";
  std::string url;
  std::string addressing = "auto";
  bool allow_http = false;
  bool enforces_if_none_match = true;
  // vend_*: credential vending (inherited by buckets as a whole).
  std::string vend_credentials = "none";
  std::string vend_role_arn;
  std::string vend_external_id;
  std::string vend_sts_endpoint;
  int64_t vend_duration_seconds = 3600;
};

constexpr std::array<std::string_view, 5> kVendKeys = {
    "vend_credentials", "vend_role_arn", "vend_external_id", "vend_sts_endpoint",
    "vend_duration_seconds"};

// The vend_* keys `section` sets over `fields`. A section that sets
// vend_credentials sets vending as a whole: the other keys are not mixed
// with the inherited ones.
Status ReadVendFields(TomlSection& section, EndpointFields& fields) {
  if (section.Has("vend_credentials")) {
    const EndpointFields defaults;
    fields.vend_role_arn = defaults.vend_role_arn;
    fields.vend_external_id = defaults.vend_external_id;
    fields.vend_sts_endpoint = defaults.vend_sts_endpoint;
    fields.vend_duration_seconds = defaults.vend_duration_seconds;
  }
  DC_RETURN_IF_ERROR(section.GetString("vend_credentials", fields.vend_credentials));
  DC_RETURN_IF_ERROR(section.GetString("vend_role_arn", fields.vend_role_arn));
  DC_RETURN_IF_ERROR(section.GetString("vend_external_id", fields.vend_external_id));
  DC_RETURN_IF_ERROR(section.GetString("vend_sts_endpoint", fields.vend_sts_endpoint));
  DC_RETURN_IF_ERROR(section.GetInt("vend_duration_seconds", aws::kMinSessionDurationSeconds,
                                    aws::kMaxRoleSessionDurationSeconds,
                                    fields.vend_duration_seconds));
  if (fields.vend_credentials != "none" && fields.vend_credentials != "assume_role" &&
      fields.vend_credentials != "pass_through") {
    return section.Error("vend_credentials",
                         "is " + QuoteForMessage(fields.vend_credentials) +
                             "; it must be \"assume_role\" (STS AssumeRole of vend_role_arn, "
                             "scoped to each table), \"pass_through\" (the writer's own temporary "
                             "credentials, sent with each request) or \"none\"");
  }
  if (fields.vend_credentials != "assume_role") {
    // The other keys configure AssumeRole; without it they would mean
    // nothing, and a typo would go unseen.
    for (std::string_view key : kVendKeys) {
      if (key != "vend_credentials" && section.Has(key)) {
        return section.Error(key, "is set but vend_credentials is " +
                                      QuoteForMessage(fields.vend_credentials) +
                                      "; it is read only with vend_credentials = \"assume_role\"");
      }
    }
  }
  return OkStatus();
}

// Resolves the vend fields of `section` (the S3 endpoint `s3` resolved).
StatusOr<VendConfig> ResolveVend(const TomlSection& section, const EndpointFields& fields,
                                 const aws::AwsServiceConfig& s3, const std::string& describe) {
  VendConfig vend;
  if (fields.vend_credentials == "none") return vend;
  if (fields.vend_credentials == "pass_through") {
    vend.source = VendConfig::Source::kPassThrough;
    return vend;
  }
  vend.source = VendConfig::Source::kAssumeRole;
  if (fields.vend_role_arn.empty()) {
    return section.Error("vend_role_arn",
                         "missing; vend_credentials = \"assume_role\" needs the ARN of the role "
                         "whose sessions are vended");
  }
  if (Status arn = aws::CheckRoleArn(fields.vend_role_arn); !arn.ok()) {
    return section.Error("vend_role_arn", arn.message());
  }
  vend.role_arn = fields.vend_role_arn;
  vend.external_id = fields.vend_external_id;
  vend.duration_seconds = fields.vend_duration_seconds;
  if (fields.vend_sts_endpoint.empty() && !fields.url.empty() &&
      !aws::IsAwsEndpoint(s3.endpoint_url)) {
    // UC's own server asks AWS's STS here and vends tokens the store
    // refuses: where STS is must be said, never guessed.
    return section.Error("vend_sts_endpoint",
                         "missing; the S3 endpoint " + s3.endpoint_url +
                             " is not AWS's, so the service does not know where its STS is (Ceph "
                             "RGW and MinIO serve STS on their S3 endpoint: vend_sts_endpoint = \"" +
                             s3.endpoint_url + "\")");
  }
  DC_ASSIGN_OR_RETURN(vend.sts,
                      ResolveFromFile(section, "sts", "region", "vend_sts_endpoint",
                                      FileEndpoint{fields.region, fields.vend_sts_endpoint,
                                                   fields.allow_http, std::nullopt}));
  vend.sts.region_source = describe;
  vend.sts.endpoint_source = fields.vend_sts_endpoint.empty()
                                 ? "AWS's STS for the region (" + describe + ")"
                                 : "vend_sts_endpoint of " + describe;
  return vend;
}

// Reads the keys `section` sets over `fields` (unset keys keep the value
// they have, e.g. the one inherited from [s3]).
Status ReadEndpointFields(TomlSection& section, std::string_view url_key,
                          EndpointFields& fields) {
  DC_RETURN_IF_ERROR(section.GetString(url_key, fields.url));
  DC_RETURN_IF_ERROR(section.GetString("region", fields.region));
  DC_RETURN_IF_ERROR(section.GetString("addressing", fields.addressing));
  DC_RETURN_IF_ERROR(section.GetBool("allow_http", fields.allow_http));
  DC_RETURN_IF_ERROR(
      section.GetBool("enforces_if_none_match", fields.enforces_if_none_match));
  if (fields.addressing != "auto" && fields.addressing != "path" &&
      fields.addressing != "virtual") {
    return section.Error(
        "addressing", "is " + QuoteForMessage(fields.addressing) +
                          "; it must be \"virtual\" (bucket in the host "
                          "name), \"path\" (bucket in the path) or \"auto\"");
  }
  return OkStatus();
}

StatusOr<S3EndpointConfig> ResolveFields(const TomlSection& section,
                                   std::string_view url_key,
                                   const EndpointFields& fields,
                                   std::string name,
                                   const std::string& describe) {
  std::optional<bool> path_style;
  if (fields.addressing != "auto") path_style = fields.addressing == "path";
  DC_ASSIGN_OR_RETURN(
      aws::AwsServiceConfig service,
      ResolveFromFile(section, "s3", "region", url_key,
                      FileEndpoint{fields.region, fields.url, fields.allow_http,
                                   path_style}));
  service.region_source = describe;
  service.endpoint_source =
      fields.url.empty() ? "AWS's endpoint for the region (" + describe + ")"
                         : describe;
  DC_ASSIGN_OR_RETURN(VendConfig vend, ResolveVend(section, fields, service, describe));
  return S3EndpointConfig{std::move(name), std::move(service),
                          fields.enforces_if_none_match, std::move(vend)};
}

bool ValidEndpointName(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// `name` of an entry: present and not used by an earlier entry.
Status ReadEntryName(TomlSection& section,
                     const std::vector<S3EndpointConfig>& earlier,
                     std::string_view what, std::string& name) {
  if (!section.Has("name")) {
    return section.SectionError("missing required key name");
  }
  DC_RETURN_IF_ERROR(section.GetString("name", name));
  for (const S3EndpointConfig& other : earlier) {
    if (other.name == name) {
      return section.Error("name", QuoteForMessage(name) +
                                       " is already used by an earlier " +
                                       std::string(what));
    }
  }
  return OkStatus();
}

Status ReadBucket(TomlSection& section, const EndpointFields& inherited,
                  S3Config& out) {
  section.DeclareKeys(
      {"name", "endpoint", "region", "addressing", "allow_http",
       "enforces_if_none_match", "vend_credentials", "vend_role_arn",
       "vend_external_id", "vend_sts_endpoint", "vend_duration_seconds"});
  DC_RETURN_IF_ERROR(section.Finish());
  std::string name;
  DC_RETURN_IF_ERROR(
      ReadEntryName(section, out.buckets, "[[s3.bucket]]", name));
  StatusOr<aws::S3Location> location = aws::ParseS3Uri("s3://" + name);
  if (!location.ok() || location->bucket != name) {
    return section.Error(
        "name", location.ok() ? QuoteForMessage(name) + " is not a bucket name"
                              : location.status().message());
  }
  EndpointFields fields = inherited;
  DC_RETURN_IF_ERROR(ReadEndpointFields(section, "endpoint", fields));
  DC_RETURN_IF_ERROR(ReadVendFields(section, fields));
  DC_ASSIGN_OR_RETURN(
      S3EndpointConfig endpoint,
      ResolveFields(section, "endpoint", fields, name,
                    "[[s3.bucket]] \"" + name + "\" in " + section.file()));
  out.buckets.push_back(std::move(endpoint));
  return OkStatus();
}

Status ReadAllowedEndpoint(TomlSection& section, const EndpointFields& defaults,
                           S3Config& out) {
  section.DeclareKeys({"name", "url", "region", "addressing", "allow_http",
                       "enforces_if_none_match"});
  DC_RETURN_IF_ERROR(section.Finish());
  std::string name;
  DC_RETURN_IF_ERROR(
      ReadEntryName(section, out.allowed, "[[s3.allowed_endpoint]]", name));
  if (!ValidEndpointName(name)) {
    return section.Error("name", QuoteForMessage(name) +
                                     " is not an endpoint name (1-64 of a-z, "
                                     "A-Z, 0-9, '.', '_', '-')");
  }
  // Only the region is inherited: an allowed endpoint is its own host (and
  // says itself whether it enforces If-None-Match).
  EndpointFields fields;
  fields.region = defaults.region;
  DC_RETURN_IF_ERROR(ReadEndpointFields(section, "url", fields));
  if (fields.url.empty()) {
    return section.Error("url", "missing or empty; give the endpoint's URL");
  }
  DC_ASSIGN_OR_RETURN(S3EndpointConfig endpoint,
                      ResolveFields(section, "url", fields, name,
                                    "[[s3.allowed_endpoint]] \"" + name +
                                        "\" in " + section.file()));
  out.allowed.push_back(std::move(endpoint));
  return OkStatus();
}

}  // namespace

StatusOr<aws::AwsServiceConfig> ResolveFromFile(const TomlSection& section,
                                                std::string_view service,
                                                std::string_view region_key,
                                                std::string_view url_key,
                                                const FileEndpoint& settings) {
  // No variables and no HOME: the resolver reads no profile file, and the
  // environment cannot redirect what this file says.
  std::map<std::string, std::string> no_environment;
  aws::AwsConfigSources sources{&no_environment, ""};
  aws::AwsConfigOverrides overrides;
  overrides.region = settings.region;
  overrides.allow_http = true;  // checked below, in this file's terms
  overrides.path_style = settings.path_style;
  // The region alone first, so that its error is reported at its key.
  StatusOr<aws::AwsServiceConfig> resolved =
      aws::ResolveServiceConfig(service, overrides, sources);
  if (!resolved.ok()) {
    return section.Error(region_key,
                         WithoutSource(resolved.status().message()));
  }
  if (settings.url.empty()) {
    resolved->allow_http = settings.allow_http;
    return resolved;
  }
  overrides.endpoint_url = settings.url;
  resolved = aws::ResolveServiceConfig(service, overrides, sources);
  if (!resolved.ok()) {
    return section.Error(url_key, WithoutSource(resolved.status().message()));
  }
  if (resolved->endpoint_url.rfind("http://", 0) == 0 && !settings.allow_http) {
    return section.Error(url_key,
                         "is plain http; set allow_http = true in " +
                             section.heading() +
                             " to allow unencrypted connections, or use https");
  }
  resolved->allow_http = settings.allow_http;
  return resolved;
}

Status ReadS3Section(TomlSection& root, S3Config& out) {
  static const toml::table kEmpty;
  DC_ASSIGN_OR_RETURN(std::optional<TomlSection> s3, root.GetTable("s3"));
  if (!s3.has_value()) s3.emplace(kEmpty, "s3", "[s3]", root.file());
  EndpointFields defaults;
  DC_RETURN_IF_ERROR(ReadEndpointFields(*s3, "endpoint", defaults));
  DC_RETURN_IF_ERROR(ReadVendFields(*s3, defaults));
  DC_ASSIGN_OR_RETURN(
      out.default_endpoint,
      ResolveFields(*s3, "endpoint", defaults, "default",
                    "[s3] in " + root.file()));
  DC_ASSIGN_OR_RETURN(std::vector<TomlSection> buckets,
                      s3->GetTableArray("bucket"));
  for (TomlSection& bucket : buckets) {
    DC_RETURN_IF_ERROR(ReadBucket(bucket, defaults, out));
  }
  DC_ASSIGN_OR_RETURN(std::vector<TomlSection> allowed,
                      s3->GetTableArray("allowed_endpoint"));
  for (TomlSection& endpoint : allowed) {
    DC_RETURN_IF_ERROR(ReadAllowedEndpoint(endpoint, defaults, out));
  }
  return s3->Finish();
}

}  // namespace internal

StatusOr<S3EndpointConfig> ResolveS3Endpoint(const S3Config& config,
                                             std::string_view bucket,
                                             std::string_view requested_name) {
  if (!requested_name.empty()) {
    std::string names;
    for (const S3EndpointConfig& endpoint : config.allowed) {
      if (endpoint.name == requested_name) return endpoint;
      names += (names.empty() ? "" : ", ") + endpoint.name;
    }
    return PermissionDeniedError(
        "S3 endpoint " + QuoteForMessage(requested_name, 64) +
        " is not on this service's allowlist (" +
        (names.empty() ? std::string("it allows none") : "allowed: " + names) +
        "); leave \"endpoint\" out to use the bucket's endpoint, or ask the "
        "operator to add an [[s3.allowed_endpoint]] entry (name, url, region) "
        "to the service config");
  }
  for (const S3EndpointConfig& endpoint : config.buckets) {
    if (endpoint.name == bucket) return endpoint;
  }
  return config.default_endpoint;
}

StatusOr<aws::AwsServiceConfig> ResolveEndpoint(
    const S3Config& config, std::string_view bucket,
    std::string_view requested_name) {
  DC_ASSIGN_OR_RETURN(S3EndpointConfig endpoint,
                      ResolveS3Endpoint(config, bucket, requested_name));
  return endpoint.service;
}

}  // namespace deltacommit::service
