// The invariants checked after each schedule (model_check.h), read from the
// in-memory stores underneath every fault.
#include <map>

#include "deltacommit/action_json.h"
#include "deltacommit/log_path.h"
#include "model/model_world.h"

namespace deltacommit::model {
namespace {

std::string V(Version v) { return std::to_string(v); }

}  // namespace

void World::CheckLedger() {
  for (const auto& [key, writes] : ledger_.writes()) {
    if (options_.mode != Mode::kS3DynamoDb) {
      if (writes.size() != 1) {
        Problem(key + " written " + std::to_string(writes.size()) + " times (must be once)");
      }
      continue;
    }
    // s3-dynamodb copies the temp object with a plain copy: racing
    // recoverers may each copy it, but only ever the same bytes.
    for (const std::string& bytes : writes) {
      if (bytes != writes.front()) Problem(key + " overwritten with different bytes");
    }
  }
}

void World::CheckEntries() {
  std::vector<ExternalCommitEntry> entries;
  Status listed = ForEachCommitEntry(ddb_, "s3a://bucket/model", 100,
                                     [&](const ExternalCommitEntry& e) {
                                       entries.push_back(e);
                                       return OkStatus();
                                     });
  if (!listed.ok()) return Problem("cannot list the entries: " + listed.ToString());
  for (const ExternalCommitEntry& e : entries) {
    if (!e.complete) Problem("entry " + e.file_name + " still incomplete after recovery");
    auto commit = memory_.Get(std::string(kLogDir) + e.file_name);
    if (!commit.ok()) {
      Problem("entry " + e.file_name + " has no commit file: " + commit.status().ToString());
      continue;
    }
    auto temp = memory_.Get(std::string(kLogDir) + e.temp_path);
    if (temp.ok() && *temp != *commit) {
      Problem(e.file_name + " differs from its entry's temp object " + e.temp_path);
    }
  }
}

void World::CheckRatified(Version latest) {
  auto unpublished = state_->Unpublished(table_uri_, 1000);
  if (!unpublished.ok()) return Problem("state store: " + unpublished.status().ToString());
  if (!unpublished->empty()) {
    Problem(std::to_string(unpublished->size()) + " ratified commits left unpublished from " +
            V(unpublished->front().version));
  }
  auto ratified = state_->Latest(table_uri_);
  if (!ratified.ok()) return Problem("state store: " + ratified.status().ToString());
  if (*ratified && (*ratified)->version != latest) {
    Problem("the service ratified up to " + V((*ratified)->version) + " but the log ends at " +
            V(latest));
  }
}

void World::CheckInvariants(ScheduleReport& report) {
  CheckLedger();
  if (options_.mode == Mode::kS3DynamoDb) CheckEntries();
  // Versions contiguous from 0, every commit parses, where each marker is.
  auto listing = memory_.List(kLogDir);
  if (!listing.ok()) {
    Problem("cannot list the log: " + listing.status().ToString());
  } else {
    std::map<std::string, std::vector<Version>> found;
    Version expected = 0;
    for (const ObjectMeta& meta : *listing) {
      const ParsedLogPath p = ParseLogPath(std::string_view(meta.key).substr(kLogDir.size()));
      if (p.type != LogFileType::kCommit) continue;
      if (p.version != expected) {
        Problem("versions not contiguous: " + meta.key + " where version " + V(expected) +
                " was due");
      }
      expected = p.version + 1;
      ActionParser parser;
      auto actions = parser.ParseCommit(*memory_.Get(meta.key));
      if (!actions.ok()) {
        Problem("torn or unparseable " + meta.key + ": " + actions.status().ToString());
        continue;
      }
      for (const Action& a : *actions) {
        if (auto* add = std::get_if<AddFile>(&a)) found[add->path].push_back(p.version);
      }
    }
    report.latest = expected - 1;
    for (const auto& [marker, versions] : found) {
      if (versions.size() > 1) {
        Problem(marker + " committed " + std::to_string(versions.size()) + " times (versions " +
                V(versions[0]) + ", " + V(versions[1]) + ")");
      }
    }
    std::lock_guard lock(mu_);
    report.acknowledged = static_cast<int64_t>(acks_.size());
    for (const Ack& ack : acks_) {
      auto it = found.find(ack.marker);
      if (it == found.end()) {
        problems_.push_back("acknowledged commit " + ack.marker + " (version " + V(ack.version) +
                            ") is not in the log");
      } else if (ack.exact && it->second.front() != ack.version) {
        problems_.push_back("commit " + ack.marker + " acknowledged at version " + V(ack.version) +
                            " is at version " + V(it->second.front()));
      }
    }
  }
  if (state_ != nullptr) CheckRatified(report.latest);
  std::lock_guard lock(mu_);
  report.problems = problems_;
}

}  // namespace deltacommit::model
