#include "service/config/service_config.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "deltacommit/core/message_quote.h"
#include "service/config/config_sections.h"
#include "service/config/table_uri.h"
#include "service/config/toml_section.h"

namespace deltacommit::service {
namespace {

using internal::TomlSection;

constexpr int64_t kHourMs = 3'600'000;

bool IsHostChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '.' || c == '-';
}

// "host:port" or "[v6]:port" -> host (without brackets) and port (0-65535).
bool SplitListen(const std::string& listen, std::string& host, uint16_t& port) {
  size_t colon = listen.rfind(':');
  if (colon == std::string::npos || colon + 1 == listen.size() ||
      listen.size() - colon > 6) {
    return false;
  }
  std::string_view host_part = std::string_view(listen).substr(0, colon);
  bool bracketed = host_part.size() > 2 && host_part.front() == '[' &&
                   host_part.back() == ']';
  if (bracketed) host_part = host_part.substr(1, host_part.size() - 2);
  if (host_part.empty()) return false;
  for (char c : host_part) {
    if (!IsHostChar(c) && !(bracketed && c == ':')) return false;
  }
  int value = 0;
  for (char c : std::string_view(listen).substr(colon + 1)) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  if (value > 65535) return false;
  host = std::string(host_part);
  port = static_cast<uint16_t>(value);
  return true;
}

Status ReadServer(TomlSection& section, ServerConfig& out) {
  DC_RETURN_IF_ERROR(section.GetString("listen", out.listen));
  if (!SplitListen(out.listen, out.listen_host, out.listen_port)) {
    return section.Error("listen",
                         QuoteForMessage(out.listen) +
                             " is not host:port (e.g. 127.0.0.1:8642, "
                             "0.0.0.0:8642 or [::1]:8642; port 0-65535)");
  }
  DC_RETURN_IF_ERROR(section.GetInt("io_threads", 1, 256, out.io_threads));
  DC_RETURN_IF_ERROR(section.GetInt("workers", 1, 4096, out.workers));
  DC_RETURN_IF_ERROR(
      section.GetInt("max_queued_requests", 1, 1'000'000, out.max_queued_requests));
  DC_RETURN_IF_ERROR(
      section.GetInt("max_connections", 1, 1'000'000, out.max_connections));
  DC_RETURN_IF_ERROR(section.GetInt("max_body_bytes", int64_t{1} << 10,
                                    int64_t{1} << 30, out.max_body_bytes));
  DC_RETURN_IF_ERROR(section.GetInt("request_timeout_ms", int64_t{1}, kHourMs,
                                    out.request_timeout_ms));
  DC_RETURN_IF_ERROR(section.GetInt("idle_timeout_ms", int64_t{1}, 24 * kHourMs,
                                    out.idle_timeout_ms));
  DC_RETURN_IF_ERROR(section.GetInt("drain_timeout_ms", int64_t{0}, kHourMs,
                                    out.drain_timeout_ms));
  return section.Finish();
}

std::string ResolvePath(const std::string& path, std::string_view base_dir) {
  if (base_dir.empty() || path.empty() || path.front() == '/') return path;
  return (std::filesystem::path(base_dir) / path).string();
}

Status ReadTls(TomlSection& section, std::string_view base_dir,
               TlsConfig& out) {
  section.DeclareKeys({"certificate", "private_key"});
  std::optional<std::string> certificate;
  std::optional<std::string> private_key;
  for (auto [key, value] : {std::pair{"certificate", &certificate},
                            std::pair{"private_key", &private_key}}) {
    if (!section.Has(key)) continue;
    value->emplace();
    DC_RETURN_IF_ERROR(section.GetString(key, **value));
    if ((*value)->empty()) {
      return section.Error(key, "is empty; remove [tls] to serve plain HTTP");
    }
  }
  if (certificate.has_value() != private_key.has_value()) {
    std::string_view present = certificate ? "certificate" : "private_key";
    std::string_view missing = certificate ? "private_key" : "certificate";
    return section.Error(
        present, "is set but tls." + std::string(missing) +
                     " is not; TLS needs both (or neither, for plain HTTP)");
  }
  DC_RETURN_IF_ERROR(section.Finish());
  out.certificate = ResolvePath(certificate.value_or(""), base_dir);
  out.private_key = ResolvePath(private_key.value_or(""), base_dir);
  return OkStatus();
}

bool ValidDynamoDbTableName(const std::string& name) {
  if (name.size() < 3 || name.size() > 255) return false;
  for (char c : name) {
    if (!IsHostChar(c) && c != '_') return false;
  }
  return true;
}

// The settings of kind = "dynamodb", checked at load time so that a bad URL
// stops the service at start, naming its line.
Status CheckDynamoDbState(const TomlSection& section,
                          const StateConfig& state) {
  if (!ValidDynamoDbTableName(state.dynamodb_table)) {
    return section.Error(
        "table",
        "is not a DynamoDB table name (3-255 of a-z, A-Z, 0-9, "
        "'_', '-', '.')");
  }
  internal::FileEndpoint endpoint{
      state.dynamodb_region.empty() ? "us-east-1" : state.dynamodb_region,
      state.dynamodb_endpoint, state.dynamodb_allow_http.value_or(false),
      std::nullopt};
  return internal::ResolveFromFile(section, "dynamodb", "region", "endpoint",
                                   endpoint)
      .status();
}

Status ReadSqliteState(TomlSection& section, std::string_view base_dir,
                       StateConfig& out) {
  out.kind = StateConfig::Kind::kSqlite;
  DC_RETURN_IF_ERROR(section.GetString("path", out.sqlite_path));
  if (out.sqlite_path.empty()) return section.Error("path", "is empty");
  out.sqlite_path = ResolvePath(out.sqlite_path, base_dir);
  return OkStatus();
}

Status ReadDynamoDbState(TomlSection& section, StateConfig& out) {
  out.kind = StateConfig::Kind::kDynamoDb;
  DC_RETURN_IF_ERROR(section.GetString("table", out.dynamodb_table));
  DC_RETURN_IF_ERROR(section.GetString("region", out.dynamodb_region));
  DC_RETURN_IF_ERROR(section.GetString("endpoint", out.dynamodb_endpoint));
  if (section.Has("allow_http")) {
    out.dynamodb_allow_http = false;
    DC_RETURN_IF_ERROR(section.GetBool("allow_http", *out.dynamodb_allow_http));
  }
  return CheckDynamoDbState(section, out);
}

Status ReadState(TomlSection& section, std::string_view base_dir,
                 StateConfig& out) {
  section.DeclareKeys(
      {"kind", "path", "table", "region", "endpoint", "allow_http", "keep_published_commits"});
  DC_RETURN_IF_ERROR(section.Finish());
  DC_RETURN_IF_ERROR(section.GetInt("keep_published_commits", int64_t{-1},
                                    int64_t{1'000'000'000}, out.keep_published_commits));
  std::string kind = "sqlite";
  DC_RETURN_IF_ERROR(section.GetString("kind", kind));
  if (kind != "sqlite" && kind != "dynamodb") {
    return section.Error("kind", "is " + QuoteForMessage(kind) +
                                     "; it must be \"sqlite\" or \"dynamodb\"");
  }
  // A key meant for the other kind is a mistake worth stopping for.
  const std::vector<const char*> other_kind_keys =
      kind == "sqlite" ? std::vector<const char*>{"table", "region", "endpoint",
                                                  "allow_http"}
                       : std::vector<const char*>{"path"};
  for (const char* key : other_kind_keys) {
    if (section.Has(key)) {
      return section.Error(key, "does not apply to kind = \"" + kind + "\"");
    }
  }
  return kind == "sqlite" ? ReadSqliteState(section, base_dir, out)
                          : ReadDynamoDbState(section, out);
}

Status ReadCommits(TomlSection& section, CommitsConfig& out) {
  DC_RETURN_IF_ERROR(section.GetInt("max_commit_bytes", int64_t{1} << 10,
                                    int64_t{1} << 30, out.max_commit_bytes));
  DC_RETURN_IF_ERROR(section.GetInt("max_actions", int64_t{1}, int64_t{100'000'000},
                                    out.max_actions));
  DC_RETURN_IF_ERROR(section.GetInt("min_credentials_validity_ms", int64_t{0},
                                    kHourMs, out.min_credentials_validity_ms));
  DC_RETURN_IF_ERROR(section.GetInt("pending_list_limit", int64_t{1}, int64_t{100'000},
                                    out.pending_list_limit));
  DC_RETURN_IF_ERROR(section.GetInt("max_unpublished_commits", int64_t{1}, int64_t{10'000},
                                    out.max_unpublished_commits));
  // A Unity Catalog client reads every waiting commit in one listing.
  if (out.max_unpublished_commits > out.pending_list_limit) {
    return section.Error("max_unpublished_commits",
                         "is more than pending_list_limit (" +
                             std::to_string(out.pending_list_limit) +
                             "): one listing must hold every commit waiting to be published");
  }
  return section.Finish();
}

Status ReadPublish(TomlSection& section, PublishConfig& out) {
  DC_RETURN_IF_ERROR(section.GetInt("threads", 1, 256, out.threads));
  DC_RETURN_IF_ERROR(
      section.GetInt("first_retry_ms", int64_t{1}, kHourMs, out.first_retry_ms));
  DC_RETURN_IF_ERROR(
      section.GetInt("max_retry_ms", int64_t{1}, kHourMs, out.max_retry_ms));
  if (out.max_retry_ms < out.first_retry_ms) {
    return section.Error("max_retry_ms", "is less than first_retry_ms (" +
                                             std::to_string(out.first_retry_ms) + ")");
  }
  DC_RETURN_IF_ERROR(section.GetInt("min_credentials_validity_ms", int64_t{0},
                                    kHourMs, out.min_credentials_validity_ms));
  return section.Finish();
}

Status ReadAppends(TomlSection& section, int64_t max_commit_bytes, AppendsConfig& out) {
  DC_RETURN_IF_ERROR(section.GetInt("max_batch_appends", int64_t{1}, int64_t{100'000},
                                    out.max_batch_appends));
  DC_RETURN_IF_ERROR(section.GetInt("max_batch_bytes", int64_t{1} << 10, int64_t{1} << 30,
                                    out.max_batch_bytes));
  if (out.max_batch_bytes > max_commit_bytes) {
    return section.Error("max_batch_bytes", "is more than [commits] max_commit_bytes (" +
                                                std::to_string(max_commit_bytes) + ")");
  }
  DC_RETURN_IF_ERROR(section.GetInt("max_batch_wait_ms", int64_t{0}, int64_t{10'000},
                                    out.max_batch_wait_ms));
  DC_RETURN_IF_ERROR(section.GetInt("max_queued_appends", int64_t{1}, int64_t{1'000'000},
                                    out.max_queued_appends));
  return section.Finish();
}

// Whether `a` is `b` or inside it, path segment by segment.
bool IsWithin(const std::filesystem::path& a, const std::filesystem::path& b) {
  auto [b_end, a_at] = std::mismatch(b.begin(), b.end(), a.begin(), a.end());
  return b_end == b.end();
}

// Two roots that overlap once symbolic links are resolved would give a
// table two names, and so two state records and two locks: refused.
Status CheckRootsApart(TomlSection& section, const std::vector<std::string>& roots) {
  std::vector<std::filesystem::path> real;
  for (const std::string& root : roots) {
    std::error_code ec;
    real.push_back(std::filesystem::weakly_canonical(root, ec));
    if (ec) return section.Error("roots", "\"" + root + "\" cannot be resolved: " + ec.message());
  }
  for (size_t i = 0; i < roots.size(); ++i) {
    for (size_t j = 0; j < roots.size(); ++j) {
      if (i == j || !IsWithin(real[i], real[j])) continue;
      return section.Error("roots", "\"" + roots[i] + "\" and \"" + roots[j] +
                                        "\" overlap (" + real[i].string() + " is within " +
                                        real[j].string() +
                                        " once symbolic links are resolved): a table would have "
                                        "two names; list each directory once");
    }
  }
  return OkStatus();
}

// [local] roots: directories (relative ones against the config file's),
// each spelt as a local table URI would be, so that prefix checks compare
// like with like; no two of them overlapping.
Status ReadLocal(TomlSection& section, std::string_view base_dir, LocalConfig& out) {
  std::vector<std::string> roots;
  DC_RETURN_IF_ERROR(section.GetStringArray("roots", roots));
  for (const std::string& root : roots) {
    const std::string path = ResolvePath(root, base_dir);
    if (path.empty() || path.front() != '/') {
      return section.Error("roots", "\"" + root + "\" is not an absolute directory");
    }
    StatusOr<TableUri> uri = NormalizeTableUri("file://" + path);
    if (!uri.ok()) return section.Error("roots", uri.status().message());
    out.roots.push_back(uri->local_path);
  }
  DC_RETURN_IF_ERROR(CheckRootsApart(section, out.roots));
  return section.Finish();
}

// Reads the optional table `name` of `root` with `read`.
template <typename Read>
Status ReadOptionalTable(TomlSection& root, std::string_view name, Read read) {
  DC_ASSIGN_OR_RETURN(std::optional<TomlSection> section, root.GetTable(name));
  if (!section.has_value()) return OkStatus();
  return read(*section);
}

}  // namespace

std::string_view ActionName(Action action) {
  switch (action) {
    case Action::kCommit: return "commit";
    case Action::kRead: return "read";
    case Action::kManage: return "manage";
  }
  return "unknown";
}

StatusOr<ServiceConfig> ParseServiceConfig(std::string_view text,
                                           std::string_view source_name,
                                           std::string_view base_dir) {
  ServiceConfig config;
  config.source = std::string(source_name);
  DC_ASSIGN_OR_RETURN(toml::table document,
                      internal::ParseToml(text, config.source));
  TomlSection root(document, "", "", config.source);
  DC_RETURN_IF_ERROR(ReadOptionalTable(root, "server", [&](TomlSection& s) {
    return ReadServer(s, config.server);
  }));
  DC_RETURN_IF_ERROR(ReadOptionalTable(root, "tls", [&](TomlSection& s) {
    return ReadTls(s, base_dir, config.tls);
  }));
  // Without [state] the defaults still name a file relative to the config.
  config.state.sqlite_path = ResolvePath(config.state.sqlite_path, base_dir);
  DC_RETURN_IF_ERROR(ReadOptionalTable(root, "state", [&](TomlSection& s) {
    config.state = StateConfig();
    return ReadState(s, base_dir, config.state);
  }));
  DC_RETURN_IF_ERROR(internal::ReadS3Section(root, config.s3));
  DC_RETURN_IF_ERROR(ReadOptionalTable(root, "local", [&](TomlSection& s) {
    return ReadLocal(s, base_dir, config.local);
  }));
  DC_RETURN_IF_ERROR(internal::ReadTokens(root, config.tokens));
  DC_RETURN_IF_ERROR(ReadOptionalTable(root, "commits", [&](TomlSection& s) {
    return ReadCommits(s, config.commits);
  }));
  DC_RETURN_IF_ERROR(ReadOptionalTable(root, "publish", [&](TomlSection& s) {
    return ReadPublish(s, config.publish);
  }));
  // The default batch fits a smaller max_commit_bytes.
  config.appends.max_batch_bytes =
      std::min(config.appends.max_batch_bytes, config.commits.max_commit_bytes);
  DC_RETURN_IF_ERROR(ReadOptionalTable(root, "appends", [&](TomlSection& s) {
    return ReadAppends(s, config.commits.max_commit_bytes, config.appends);
  }));
  DC_RETURN_IF_ERROR(root.Finish());
  return config;
}

StatusOr<ServiceConfig> LoadServiceConfig(const std::string& path) {
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) {
    return InvalidArgumentError("service config " + path +
                                " is a directory, not a file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    int error = errno;
    std::string why = std::strerror(error);
    if (error == ENOENT) {
      return NotFoundError("service config " + path + " does not exist");
    }
    if (error == EACCES) {
      return PermissionDeniedError("service config " + path + ": " + why);
    }
    return InvalidArgumentError("cannot read service config " + path + ": " +
                                why);
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    return InvalidArgumentError("cannot read service config " + path);
  }
  std::filesystem::path absolute = std::filesystem::absolute(path, ignored);
  return ParseServiceConfig(text.str(), path, absolute.parent_path().string());
}

StatusOr<aws::AwsServiceConfig> DynamoDbServiceConfig(
    const StateConfig& state, const aws::AwsConfigSources& sources) {
  aws::AwsConfigOverrides overrides;
  if (!state.dynamodb_region.empty()) overrides.region = state.dynamodb_region;
  if (!state.dynamodb_endpoint.empty()) {
    overrides.endpoint_url = state.dynamodb_endpoint;
  }
  overrides.allow_http = state.dynamodb_allow_http;
  return aws::ResolveServiceConfig("dynamodb", overrides, sources);
}

}  // namespace deltacommit::service
