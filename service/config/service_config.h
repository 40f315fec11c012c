// The commit service's configuration (`deltacommit serve --config FILE`), a
// TOML file. docs/examples/deltacommit-serve.toml shows and explains every
// setting; the defaults below are the ones it documents.
//
// Loading is strict: an unknown section or key, a value of the wrong type or
// out of range is an error naming the file, line and key, because a
// misspelt security setting must never be silently ignored.
//
// Thread-safety: plain values; loading is a pure function of the text (and,
// for LoadServiceConfig, of the file).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/aws/aws_config.h"
#include "deltacommit/status.h"

namespace deltacommit::service {

// [server]
struct ServerConfig {
  std::string listen =
      "127.0.0.1:8642";  // host:port, [v6]:port; port 0 = any free port
  std::string listen_host = "127.0.0.1";  // from `listen`, without brackets
  uint16_t listen_port = 8642;            // from `listen`
  int io_threads = 2;          // event loops accepting and reading requests
  int workers = 16;            // threads running commits (they wait on S3)
  // Requests read but waiting for a worker; beyond that, 503 at once (a
  // client retries later) rather than a queue whose wait outlives timeouts.
  int max_queued_requests = 256;
  int max_connections = 4096;  // open connections, idle keep-alive included
  int64_t max_body_bytes =
      8 << 20;  // 8 MiB; a larger request is refused with 413
  int64_t request_timeout_ms = 30'000;  // to read a request and answer it
  int64_t idle_timeout_ms =
      60'000;  // an idle keep-alive connection is closed after
  int64_t drain_timeout_ms =
      30'000;  // on SIGTERM: wait this long for in-flight requests
};

// [tls]: both paths or neither (plain HTTP).
struct TlsConfig {
  std::string
      certificate;  // PEM chain; relative paths are relative to the config file
  std::string private_key;  // PEM key
  bool enabled() const { return !certificate.empty(); }
};

// [state]: where ratified versions are kept.
struct StateConfig {
  enum class Kind { kSqlite, kDynamoDb };
  Kind kind = Kind::kSqlite;
  // kind = "sqlite": one file for one service instance; relative to the
  // config file.
  std::string sqlite_path = "deltacommit-state.sqlite";
  // kind = "dynamodb": shared by several instances. Empty region/endpoint
  // fall back to the AWS environment and profile (see DynamoDbServiceConfig).
  std::string dynamodb_table = "deltacommit_service";
  std::string dynamodb_region;
  std::string dynamodb_endpoint;
  std::optional<bool> dynamodb_allow_http;  // unset: AWS_ALLOW_HTTP, else false
  // Records of published commits kept per table below its published version
  // (older ones are forgotten: service/commits/state_retention.h); -1: all.
  int64_t keep_published_commits = 1000;
};

// How the Unity Catalog API vends temporary credentials for the tables of
// a bucket (the vend_* keys of [s3] and [[s3.bucket]]; docs/unity-catalog.md).
struct VendConfig {
  enum class Source {
    kNone,        // no vending: the credentials endpoints answer 400
    kAssumeRole,  // STS AssumeRole of `role_arn` at `sts`, narrowed by a
                  // session policy to the table's prefix and operation
    kPassThrough,  // the writer's own temporary credentials, sent with the
                   // request (X-Deltacommit-* headers), handed back and used
                   // unchanged: for stores without STS
  };
  Source source = Source::kNone;
  std::string role_arn;     // required for kAssumeRole (the rest: kAssumeRole only)
  std::string external_id;  // sent when non-empty
  // STS, resolved: vend_sts_endpoint, else AWS's STS for the region (only
  // when the bucket is on AWS: for any other store it must be configured).
  aws::AwsServiceConfig sts;
  int64_t duration_seconds = 3600;  // 900 to 43,200
  bool enabled() const { return source != Source::kNone; }
};

// Where one S3 endpoint is, resolved from the file alone. `service` is what
// the S3 adapter takes; its *_source fields name the config entry.
struct S3EndpointConfig {
  // allowed endpoint: its name; bucket override: the bucket; [s3]: "default"
  std::string name;
  aws::AwsServiceConfig service;
  // `enforces_if_none_match`: the store refuses a PUT with `If-None-Match:
  // *` on an existing key, atomically (AWS S3 since 2024, Ceph RGW, MinIO,
  // Cloudflare R2). Then the service publishes <v>.json put-if-absent;
  // otherwise it checks with HEAD before a plain PUT, and only its own state
  // store keeps two commits of one version apart, so every writer of such a
  // table must go through the service.
  bool enforces_if_none_match = true;
  // [s3] and [[s3.bucket]] only (an allowed endpoint vends nothing).
  VendConfig vend;
};

// [s3]: the default endpoint, per-bucket overrides and the endpoints a
// request may name. The environment (AWS_ENDPOINT_URL, profiles) is never
// consulted: what the service may reach is exactly what this file says.
struct S3Config {
  S3EndpointConfig default_endpoint;      // [s3]; us-east-1, AWS's endpoint
  std::vector<S3EndpointConfig> buckets;  // [[s3.bucket]]; unset keys inherit [s3]
  std::vector<S3EndpointConfig> allowed;  // [[s3.allowed_endpoint]]
};

// [local]: directories on this host under which local (file:///path)
// tables are served (local_tables.h). None by default: a service for S3
// tables writes nothing on its own disk but its state.
struct LocalConfig {
  std::vector<std::string> roots;  // absolute, no trailing '/', no ".." etc.
};

// kManage: create and delete the catalogs, schemas and tables of the Unity
// Catalog API (creating a table and committing to it are kCommit).
enum class Action { kCommit, kRead, kManage };
std::string_view ActionName(Action action);  // "commit", "read", "manage"

// [[token]]: a bearer token, stored as the SHA-256 of the token.
struct TokenConfig {
  std::string name;        // shown in messages and logs instead of the token
  std::string sha256_hex;  // 64 lower-case hex digits
  std::vector<std::string> tables;  // normalised table-URI prefixes
  // Unity Catalog name prefixes ("main", "main.sales", "*"; catalog_names.h)
  // the token may use through the Unity Catalog API; none: no access.
  std::vector<std::string> catalogs;
  bool may_commit = false;
  bool may_read = false;
  bool may_manage = false;
  bool Allows(Action action) const {
    switch (action) {
      case Action::kCommit: return may_commit;
      case Action::kRead: return may_read;
      case Action::kManage: return may_manage;
    }
    return false;
  }
};

// [commits]: what one commit request may be.
struct CommitsConfig {
  int64_t max_commit_bytes = 16 << 20;  // one commit file; larger: 413
  int64_t max_actions = 200'000;        // lines of one commit file; more: 413
  // A request's credentials must stay valid this long after it arrives
  // (else 422): a commit takes a few S3 calls.
  int64_t min_credentials_validity_ms = 10'000;
  // Most commits one GET /v1/tables/{table}/commits answer lists.
  int64_t pending_list_limit = 1'000;
  // Most ratified, unpublished commits a table may have when a commit
  // arrives through the Unity Catalog API (its server's cap: 10); more: 429.
  int64_t max_unpublished_commits = 10;
};

// [publish]: the background publisher, which copies ratified commits to
// _delta_log/<v>.json (coordinated mode, and service-mode commits whose
// publishing failed) with the credentials of the table's latest request.
struct PublishConfig {
  int threads = 2;
  int64_t first_retry_ms = 250;  // a failed table is retried after this,
  int64_t max_retry_ms = 30'000;  // doubling up to this
  // Credentials closer than this to their expiration are dropped.
  int64_t min_credentials_validity_ms = 5'000;
};

// [appends]: server-assigned versions and group commit for blind appends
// (docs/protocols/group-commit.md).
struct AppendsConfig {
  // Most appends merged into one version (1: every append its own version,
  // no group commit) and most bytes of their actions.
  int64_t max_batch_appends = 1'000;
  int64_t max_batch_bytes = int64_t{8} << 20;
  // How long a batch leader waits for more appends (0: merges only what is
  // queued already, adding no latency).
  int64_t max_batch_wait_ms = 0;
  int64_t max_queued_appends = 1'024;  // per table; more: 503
};

struct ServiceConfig {
  std::string source;  // the file (or name) it was read from
  ServerConfig server;
  TlsConfig tls;
  StateConfig state;
  S3Config s3;
  LocalConfig local;
  std::vector<TokenConfig> tokens;
  CommitsConfig commits;
  PublishConfig publish;
  AppendsConfig appends;
};

// Reads and checks a config file. kNotFound / kPermissionDenied if it cannot
// be read; kInvalidArgument "<path>:<line>:<column>: <key>: <what is wrong>"
// for anything else.
StatusOr<ServiceConfig> LoadServiceConfig(const std::string& path);

// The same for text in memory; `source_name` stands for the file in
// messages, and relative paths are resolved against `base_dir` (empty: kept
// as they are).
StatusOr<ServiceConfig> ParseServiceConfig(std::string_view text,
                                           std::string_view source_name,
                                           std::string_view base_dir = {});

// The DynamoDB endpoint for kind = "dynamodb": the file's region, endpoint
// and allow_http where set, else the AWS environment and profile, as
// aws::ResolveServiceConfig does. kInvalidArgument as it returns.
StatusOr<aws::AwsServiceConfig> DynamoDbServiceConfig(
    const StateConfig& state, const aws::AwsConfigSources& sources = {});

}  // namespace deltacommit::service
