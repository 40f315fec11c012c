#include "table/service_access.h"

#include <charconv>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "deltacommit/aws/session_credentials.h"
#include "deltacommit/core/ascii.h"
#include "deltacommit/logstore/coordinated_log_store.h"
#include "deltacommit/logstore/service_log_store.h"
#include "deltacommit/service_client/http_commit_service_client.h"
#include "deltacommit/service_client/service_client_options.h"

namespace deltacommit {
namespace {

// The storage options as users spell them; CheckStorageOptions lower-cases
// keys.
constexpr char kStsEndpointOption[] = "deltacommit.sts.endpointUrl";
constexpr char kSessionDurationOption[] = "deltacommit.sts.durationSeconds";
constexpr char kAssignVersionsOption[] = "deltacommit.service.assignVersions";

std::optional<std::string> Option(const std::map<std::string, std::string>& storage,
                                  std::string_view key) {
  auto it = storage.find(AsciiLower(key));
  if (it == storage.end()) return std::nullopt;
  return it->second;
}

StatusOr<aws::SessionCredentialsOptions> SessionOptions(
    const std::map<std::string, std::string>& storage) {
  aws::SessionCredentialsOptions options;
  std::optional<std::string> text = Option(storage, kSessionDurationOption);
  if (!text) return options;
  auto [end, ec] =
      std::from_chars(text->data(), text->data() + text->size(), options.duration_seconds);
  if (ec != std::errc() || end != text->data() + text->size()) {
    return InvalidArgumentError(std::string(kSessionDurationOption) + "=\"" + *text +
                                "\": expected a number of seconds");
  }
  DC_RETURN_IF_ERROR(aws::CheckSessionDuration(options.duration_seconds, kSessionDurationOption));
  return options;
}

// Whether blind appends let the service assign their version (default).
StatusOr<bool> AssignVersions(const std::map<std::string, std::string>& storage) {
  std::optional<std::string> text = Option(storage, kAssignVersionsOption);
  if (!text || *text == "true") return true;
  if (*text == "false") return false;
  return InvalidArgumentError(std::string(kAssignVersionsOption) + "=\"" + *text +
                              "\": expected true or false");
}

// STS for the writer's long-term keys: its own endpoint settings, else the
// table's S3-compatible endpoint, else AWS's (aws::ResolveStsConfig).
StatusOr<aws::StsClientConfig> StsConfig(const TableOptions& o,
                                         const std::map<std::string, std::string>& storage,
                                         const aws::AwsServiceConfig& s3) {
  aws::AwsConfigOverrides overrides;
  if (auto url = Option(storage, kStsEndpointOption)) overrides.endpoint_url = *url;
  if (!o.region.empty()) overrides.region = o.region;
  if (!o.profile.empty()) overrides.profile = o.profile;
  StatusOr<aws::AwsServiceConfig> sts = aws::ResolveStsConfig(overrides, s3);
  if (!sts.ok()) {
    return sts.status().WithContext(
        "STS endpoint for the commit service's temporary "
        "credentials (" +
        std::string(kStsEndpointOption) + ", AWS_ENDPOINT_URL_STS)");
  }
  return aws::StsClientConfig{*sts, {}};
}

// open.log: the service's or the coordinated log store of `table_uri`.
void AttachServiceLogStore(bool assign_versions, const std::string& table_uri,
                           TableAdapters& open) {
  if (open.mode == CommitMode::kService) {
    auto log = std::make_unique<ServiceLogStore>(*open.store, *open.service, table_uri);
    if (!assign_versions) log->DisableAssignedVersions();
    open.log = std::move(log);
  } else {
    auto log = std::make_unique<CoordinatedLogStore>(*open.store, *open.service, table_uri);
    if (!assign_versions) log->DisableAssignedVersions();
    open.log = std::move(log);
  }
}

}  // namespace

StatusOr<std::unique_ptr<aws::CredentialsProvider>> WriterSession(
    const TableOptions& o, const std::map<std::string, std::string>& storage,
    const aws::AwsServiceConfig& s3, aws::CredentialsProvider& chain, TableAdapters& open) {
  DC_ASSIGN_OR_RETURN(aws::SessionCredentialsOptions session, SessionOptions(storage));
  DC_ASSIGN_OR_RETURN(aws::StsClientConfig sts, StsConfig(o, storage, s3));
  open.sts = std::make_unique<aws::StsClient>(std::move(sts), *open.http);
  aws::StsClient* client = open.sts.get();
  return std::unique_ptr<aws::CredentialsProvider>(
      std::make_unique<aws::SessionCredentialsProvider>(
          chain,
          [client](const aws::Credentials& long_term, int64_t seconds) {
            return client->GetSessionToken(long_term, seconds);
          },
          session));
}

Status AttachCommitService(const TableOptions& o, const std::map<std::string, std::string>& storage,
                           const aws::AwsServiceConfig& s3, TableAdapters& open) {
  DC_ASSIGN_OR_RETURN(service_client::CommitServiceOptions options,
                      service_client::ResolveCommitServiceOptions(o.service_url, o.service_token,
                                                                  o.service_endpoint));
  DC_ASSIGN_OR_RETURN(const bool assign_versions, AssignVersions(storage));
  DC_ASSIGN_OR_RETURN(open.service_credentials,
                      WriterSession(o, storage, s3, *open.credentials, open));
  open.service = open.Metered(std::make_unique<service_client::HttpCommitServiceClient>(
      std::move(options), *open.http, *open.service_credentials));
  open.service_table = open.uri;
  AttachServiceLogStore(assign_versions, open.service_table, open);
  return OkStatus();
}

Status AttachLocalCommitService(const TableOptions& o, const aws::HttpOptions& http,
                                TableAdapters& open) {
  if (!o.service_endpoint.empty()) {
    return InvalidArgumentError(
        "--service-endpoint: only for s3:// tables (a local table has no "
        "S3 endpoint)");
  }
  DC_ASSIGN_OR_RETURN(service_client::CommitServiceOptions options,
                      service_client::ResolveCommitServiceOptions(o.service_url, o.service_token,
                                                                  o.service_endpoint));
  open.http = aws::NewCurlHttpClient(http);
  open.credentials = aws::StaticCredentialsProvider(aws::Credentials{});
  open.service = open.Metered(std::make_unique<service_client::HttpCommitServiceClient>(
      std::move(options), *open.http, *open.credentials));
  open.service_table = "file://" + open.uri;
  AttachServiceLogStore(/*assign_versions=*/true, open.service_table, open);
  return OkStatus();
}

Status CheckNoServiceOptions(const TableOptions& o, const std::string& mode) {
  const char* given = !o.service_url.empty()        ? "--service-url"
                      : !o.service_token.empty()    ? "--service-token"
                      : !o.service_endpoint.empty() ? "--service-endpoint"
                                                    : nullptr;
  if (given == nullptr) return OkStatus();
  return InvalidArgumentError(std::string(given) +
                              ": only for --log-store service or coordinated (this table "
                              "commits with " +
                              mode + ")");
}

}  // namespace deltacommit
