#include "dynamodb/inspect.h"

#include <utility>

#include "deltacommit/aws/aws_config.h"
#include "deltacommit/log_path.h"
#include "deltacommit/logstore/object_store_log_store.h"

namespace deltacommit::cli {
namespace {

std::string InLog(const std::string& relative) { return std::string(kLogDir) + relative; }

// The greatest commit version in _delta_log. Listing from `from` (the
// latest entry's version) keeps a long log from being listed whole; only
// when nothing is there (entries ahead of the log) is it listed from 0.
StatusOr<std::optional<Version>> LatestCommit(ObjectStore& store, std::optional<Version> from) {
  std::optional<Version> latest;
  for (Version start : {from.value_or(0), Version{0}}) {
    DC_ASSIGN_OR_RETURN(std::vector<ObjectMeta> listing,
                        store.List(kLogDir, LogListStartAfter(start)));
    for (const ObjectMeta& meta : listing) {
      ParsedLogPath parsed = ParseLogPath(std::string_view(meta.key).substr(kLogDir.size()));
      if (parsed.type == LogFileType::kCommit && (!latest || parsed.version > *latest)) {
        latest = parsed.version;
      }
    }
    if (latest || start == 0) break;
  }
  return latest;
}

// Files one entry into `state`. Objects are headed now, not taken from the
// log listing, so a commit landing meanwhile is not reported missing.
Status Classify(ObjectStore& store, const ExternalCommitEntry& entry, EntriesState& state) {
  ++state.count;
  state.latest = entry;
  ParsedLogPath parsed = ParseLogPath(entry.file_name);
  if (parsed.type != LogFileType::kCommit) {
    state.foreign_names.push_back(entry.file_name);
    return OkStatus();
  }
  if (!entry.complete) {
    IncompleteEntry incomplete{entry, parsed.version};
    DC_ASSIGN_OR_RETURN(incomplete.temp_exists, ObjectExists(store, InLog(entry.temp_path)));
    DC_ASSIGN_OR_RETURN(incomplete.commit_exists, ObjectExists(store, InLog(entry.file_name)));
    state.incomplete.push_back(std::move(incomplete));
    return OkStatus();
  }
  if (state.latest_commit && parsed.version <= *state.latest_commit) return OkStatus();
  DC_ASSIGN_OR_RETURN(bool exists, ObjectExists(store, InLog(entry.file_name)));
  if (!exists) state.complete_without_commit.push_back(parsed.version);
  return OkStatus();
}

}  // namespace

StatusOr<bool> ObjectExists(ObjectStore& store, const std::string& key) {
  StatusOr<ObjectMeta> head = store.Head(key);
  if (head.ok()) return true;
  if (head.status().IsNotFound()) return false;
  return head.status();
}

StatusOr<DynamoDbTarget> OpenDynamoDbTarget(const std::string& table, TableFlags options) {
  // Checked first so that a local path is not blamed on --log-store.
  DC_RETURN_IF_ERROR(
      aws::ParseS3Uri(table).status().WithContext("the s3-dynamodb mode is for S3 tables"));
  if (!options.log_store.empty() && options.log_store != "s3-dynamodb") {
    return InvalidArgumentError("--log-store \"" + options.log_store +
                                "\": the dynamodb commands look at the s3-dynamodb mode only");
  }
  options.log_store = "s3-dynamodb";
  DynamoDbTarget target;
  DC_ASSIGN_OR_RETURN(Table opened, OpenCliTable(table, options));
  target.table.emplace(std::move(opened));
  target.open = &target.table->adapters();
  target.coordination = target.open->dynamodb_table;
  target.log = dynamic_cast<S3DynamoDbLogStore*>(target.open->log.get());
  if (target.coordination == nullptr || target.log == nullptr) {
    return InternalError("table " + table + " did not open in the s3-dynamodb mode");
  }
  // As the log store keys its entries (AttachDynamoDb).
  target.table_path = table;
  while (!target.table_path.empty() && target.table_path.back() == '/') {
    target.table_path.pop_back();
  }
  return target;
}

StatusOr<DeltaLogTableState> DescribeDeltaLogTable(const DynamoDbTarget& target) {
  dynamodb::DynamoDbClient& client = *target.open->dynamodb;
  DeltaLogTableState state;
  state.name = target.coordination->table();
  state.region = client.config().service.region;
  state.endpoint = client.config().service.endpoint_url;
  DC_ASSIGN_OR_RETURN(dynamodb::TableDescription table, client.DescribeTable(state.name));
  state.status = table.status;
  state.billing_mode = table.billing_mode;
  state.hash_key = table.hash_key;
  state.range_key = table.range_key;
  StatusOr<dynamodb::TimeToLiveDescription> ttl = client.DescribeTimeToLive(state.name);
  if (ttl.ok()) {
    state.ttl_status = ttl->status;
    state.ttl_attribute = ttl->attribute_name;
  } else if (ttl.status().code() != StatusCode::kUnimplemented) {
    return ttl.status();
  }
  return state;
}

StatusOr<EntriesState> InspectEntries(const DynamoDbTarget& target, int page_size) {
  EntriesState state;
  DC_ASSIGN_OR_RETURN(std::optional<ExternalCommitEntry> latest,
                      target.coordination->GetLatest(target.table_path));
  std::optional<Version> hint;
  if (latest) {
    ParsedLogPath parsed = ParseLogPath(latest->file_name);
    if (parsed.type == LogFileType::kCommit) hint = parsed.version;
  }
  ObjectStore& store = *target.open->store;
  DC_ASSIGN_OR_RETURN(state.latest_commit, LatestCommit(store, hint));
  DC_RETURN_IF_ERROR(ForEachCommitEntry(
      *target.coordination, target.table_path, page_size,
      [&](const ExternalCommitEntry& entry) { return Classify(store, entry, state); }));
  return state;
}

}  // namespace deltacommit::cli
