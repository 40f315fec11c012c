#include "service_load/commit_methods.h"

#include <algorithm>
#include <utility>

#include "deltacommit/aws/http.h"
#include "deltacommit/log_path.h"
#include "deltacommit/logstore/s3_conditional_log_store.h"
#include "deltacommit/service_wire/answers.h"
#include "service_load/table_store.h"

namespace deltacommit::bench {
namespace {

// Under contention a commit request waits for the table's lock behind the
// others; a timeout is then a finding, not noise.
constexpr std::chrono::seconds kServiceRequestTimeout{120};

aws::HttpOptions ServiceHttpOptions() {
  aws::HttpOptions options;
  options.request_timeout = kServiceRequestTimeout;
  return options;
}

class ServiceCommitMethod : public CommitMethod {
 public:
  ServiceCommitMethod(const ServiceTarget& target, std::string table, bool append)
      : target_(target),
        table_(std::move(table)),
        append_(append),
        http_(aws::NewCurlHttpClient(ServiceHttpOptions())) {}

  Attempt Try(Version version, const std::string& content) override {
    service_wire::CommitBody body;
    body.table = table_;
    body.actions = content;
    body.credentials = target_.credentials;
    if (append_) {
      body.append = true;
      body.read_version = 0;  // the bench's tables never change metadata
    } else {
      body.version = version;
    }
    aws::HttpRequest request;
    request.method = "POST";
    request.url = target_.commits_url;
    request.headers = {{"Authorization", "Bearer " + target_.token},
                       {"Content-Type", "application/json"}};
    request.body = service_wire::SerializeCommitBody(body);
    StatusOr<aws::HttpResponse> response = http_->Send(request);
    Attempt attempt;
    if (!response.ok()) {
      // No answer at all (refused, reset, timed out): the service did not
      // take the request, as far as the client can tell.
      attempt.error =
          "transport " + std::string(StatusCodeName(response.status().code()));
      attempt.refusal = true;
      return attempt;
    }
    if (response->status == 200) {
      // Committed, whatever the body says; without a readable answer, the
      // commit counts as unpublished and an append's version as unknown.
      const StatusOr<service_wire::CommitAnswer> answer =
          service_wire::ParseCommitAnswer(response->body);
      attempt.kind = Attempt::Kind::kCommitted;
      attempt.unpublished = !(answer.ok() && answer->published);
      if (append_ && answer.ok()) attempt.version = answer->version;
      return attempt;
    }
    const service_wire::ErrorBody error = service_wire::ParseErrorBody(response->body);
    if (response->status == 409 && error.latest_version) {
      attempt.kind = Attempt::Kind::kConflict;
      attempt.latest = *error.latest_version;
      return attempt;
    }
    attempt.error = std::to_string(response->status) + " " +
                    (error.code.empty() ? "?" : error.code);
    attempt.refusal = response->status == 503;
    return attempt;
  }

 private:
  const ServiceTarget& target_;
  const std::string table_;
  const bool append_;
  std::unique_ptr<aws::HttpClient> http_;
};

class DirectCommitMethod : public CommitMethod {
 public:
  DirectCommitMethod(TableStore table, const std::string& bucket)
      : table_(std::move(table)),
        log_(*table_.store, table_.store->config().service.endpoint_url,
             bucket) {}

  Attempt Try(Version version, const std::string& content) override {
    Status written = log_.Write(version, content);
    Attempt attempt;
    if (written.ok() ||
        (written.IsAlreadyExists() && OursAfterLostReply(version, content))) {
      uncertain_version_ = -1;
      attempt.kind = Attempt::Kind::kCommitted;
      return attempt;
    }
    uncertain_version_ = -1;
    if (written.IsAlreadyExists()) return Rebase(version);
    attempt.error = "S3 " + std::string(StatusCodeName(written.code()));
    attempt.refusal = written.code() == StatusCode::kUnavailable;
    if (written.IsUnknownOutcome()) uncertain_version_ = version;
    return attempt;
  }

 private:
  // After a write whose reply was lost, a taken version may be our own.
  bool OursAfterLostReply(Version version, const std::string& content) {
    if (uncertain_version_ != version) return false;
    StatusOr<std::string> existing = table_.store->Get(CommitPath(version));
    return existing.ok() && *existing == content;
  }

  // The latest version is the highest commit after the one we lost.
  Attempt Rebase(Version lost) {
    Attempt attempt;
    StatusOr<std::vector<ObjectMeta>> listing = log_.List(lost + 1);
    if (!listing.ok()) {
      attempt.error =
          "S3 list " + std::string(StatusCodeName(listing.status().code()));
      return attempt;
    }
    attempt.kind = Attempt::Kind::kConflict;
    attempt.latest = lost;
    for (const ObjectMeta& meta : *listing) {
      std::string_view key = meta.key;
      if (!key.starts_with(kLogDir)) continue;
      const ParsedLogPath parsed = ParseLogPath(key.substr(kLogDir.size()));
      if (parsed.type == LogFileType::kCommit) {
        attempt.latest = std::max(attempt.latest, parsed.version);
      }
    }
    return attempt;
  }

  TableStore table_;
  S3ConditionalLogStore log_;
  Version uncertain_version_ = -1;
};

// When the table cannot even be opened: every attempt is that error.
class FailingCommitMethod : public CommitMethod {
 public:
  explicit FailingCommitMethod(const Status& status)
      : error_("cannot open the table: " +
               std::string(StatusCodeName(status.code()))) {}
  Attempt Try(Version, const std::string&) override {
    Attempt attempt;
    attempt.error = error_;
    return attempt;
  }

 private:
  const std::string error_;
};

}  // namespace

std::unique_ptr<CommitMethod> NewServiceCommitMethod(
    const ServiceTarget& target, const std::string& table) {
  return std::make_unique<ServiceCommitMethod>(target, table, false);
}

std::unique_ptr<CommitMethod> NewServiceAppendMethod(
    const ServiceTarget& target, const std::string& table) {
  return std::make_unique<ServiceCommitMethod>(target, table, true);
}

std::unique_ptr<CommitMethod> NewDirectCommitMethod(const std::string& table) {
  StatusOr<TableStore> store = OpenTableStore(table);
  if (!store.ok()) return std::make_unique<FailingCommitMethod>(store.status());
  const std::string bucket = store->store->config().bucket;
  return std::make_unique<DirectCommitMethod>(std::move(store).value(), bucket);
}

}  // namespace deltacommit::bench
