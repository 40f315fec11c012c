// RatifiedLog: reading a log whose newest commits a coordinator has ratified
// but may not have published yet, and writing a staged commit for it. The
// `coordinated` log store (the commit service ratifies) and the catalog log
// store (a catalog-managed table's catalog ratifies) share it; each brings
// the call that asks its coordinator for the ratified commits.
//
// List(from) asks the coordinator first (latest ratified version L,
// ratified commits >= from), then lists _delta_log/: asking first means a
// commit published between the two calls is in the listing. From the
// listing it drops every staged file (only the coordinator knows which were
// ratified), every file of a version above L when L >= 0 (not ratified), and
// the v.json of each commit the coordinator returned (the coordinator's
// commit is authoritative: PROTOCOL.md "Reading Catalog-managed Tables"); it
// adds each returned commit under its staged key. L = -1: the coordinator
// has ratified nothing for the table yet, and the listing is the log. The
// merge is MergeCoordinatedListing (logstore/coordinated_log_store.h).
//
// Read(v.json) of a version known to be published reads v.json; otherwise
// it asks the coordinator: above L -> kNotFound; returned -> the staged
// object ratified as v; else v.json. Read of a staged key that is gone
// (cleaned up after publishing) reads v.json.
//
// Thread-safety: safe for concurrent use when the store and the fetch are
// (the published-through version seen is an atomic that only grows).
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/commit_service_client.h"
#include "deltacommit/object_store.h"
#include "deltacommit/status.h"
#include "deltacommit/step_hooks.h"

namespace deltacommit {

class RatifiedLog {
 public:
  // The coordinator's ratified, unpublished commits >= start (at most one
  // page of them) and its latest ratified version.
  using FetchPending = std::function<StatusOr<PendingCommits>(Version start)>;

  // `store` must outlive this object; `describe` names the log store in
  // messages.
  RatifiedLog(ObjectStore& store, FetchPending fetch, std::function<std::string()> describe);

  // Every ratified commit >= start, asking again while a page ends below
  // the latest version.
  StatusOr<PendingCommits> Pending(Version start);
  StatusOr<std::vector<ObjectMeta>> List(Version from);
  StatusOr<std::string> Read(std::string_view key);

  // Every version up to this one is published as v.json.
  Version published_through() const { return published_through_.load(); }
  void NotePublishedThrough(Version version);

  // Puts `content` as a new staged commit for `version` (hook steps
  // `<step_prefix>/before-staged-put` and `/after-staged-put`) and returns
  // its key. Nothing is committed until the coordinator ratifies the name,
  // so even a put whose reply was lost is a plain failure (kUnavailable).
  StatusOr<std::string> PutStaged(Version version, std::string_view content, StepHooks* hooks,
                                  std::string_view step_prefix);
  // After the coordinator refused `staged` for good: it is never sent
  // again, so it can never be ratified; deleted, best effort (leftovers are
  // harmless: readers ignore staged files the coordinator does not name).
  void DropRefused(const std::string& staged, const Status& refusal);

 private:
  StatusOr<std::string> ReadCommit(Version version);

  ObjectStore& store_;
  const FetchPending fetch_;
  const std::function<std::string()> describe_;
  std::atomic<Version> published_through_{-1};
};

}  // namespace deltacommit
