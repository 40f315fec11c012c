// DynamoDbStateStore: the StateStore in one DynamoDB table (item schema in
// dynamodb_state_items.h), for several service instances sharing state.
//
// Ratify(v) (docs/protocols/service.md), every read ConsistentRead:
//   1. GetItem the table's head (latest L, published_through, L's record).
//   2. No head: PutItem the first head, condition attribute_not_exists: of
//      instances racing to start a table, one wins. (Commit items without a
//      head mean it was deleted: kDataLoss rather than start afresh.)
//      v <= L: kAlreadyExists; v > L + 1: kFailedPrecondition.
//   3. v = L + 1: PutItem L's commit item from the head (unconditional and
//      idempotent: L's record never changes once ratified), so that no
//      record is lost when the head moves on.
//   4. UpdateItem the head to v with its record, condition latest = L: the
//      commit point. A failed condition means another instance moved the
//      head: go to 1, which then reports the conflict.
// The commit point is a compare-and-swap on one item, so ratification is
// linearizable without transactions (dynalite has no TransactWriteItems).
// The simpler "query the latest commit item, then PutItem v with
// attribute_not_exists" is safe only while items are never deleted: a
// writer that read latest = 5 and stalled could ratify 6 a second time after
// ForgetPublishedBefore deleted the published 6. Here forgetting deletes
// only commit items, which ratification never consults.
//
// Costs: Ratify 1 read + 2 writes; Get and Latest 1-2 reads; ListFrom and
// Unpublished 1 read + one Query page per 1 MB of records.
//
// Errors: those of DynamoDbClient (kNotFound: the DynamoDB table does not
// exist; kUnknownOutcome: a write's reply was lost; see StateStore for
// what to do) and kDataLoss for items this code did not write.
//
// Thread-safety: safe for concurrent use (the client is); several store
// objects on one DynamoDB table, in one process or many, are safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "deltacommit/dynamodb/dynamodb_client.h"
#include "deltacommit/dynamodb/dynamodb_coordination_table.h"
#include "service/state/dynamodb_state_items.h"
#include "service/state/state_store.h"

namespace deltacommit::service {

inline constexpr char kDefaultServiceStateTable[] = "deltacommit_service";

class DynamoDbStateStore : public StateStore {
 public:
  // `client` must outlive this; `dynamodb_table` is the DynamoDB table's name.
  DynamoDbStateStore(dynamodb::DynamoDbClient& client,
                     std::string dynamodb_table);

  // "DynamoDB table deltacommit_service (us-east-1, https://...)".
  std::string Describe() const override;
  Status Ratify(const CommitRecord& record, RatifyConflict* conflict) override;
  StatusOr<std::optional<CommitRecord>> Get(const std::string& table,
                                            Version version) override;
  StatusOr<std::optional<CommitRecord>> Latest(
      const std::string& table) override;
  StatusOr<std::vector<CommitRecord>> ListFrom(const std::string& table,
                                               Version start,
                                               int64_t limit) override;
  StatusOr<std::vector<CommitRecord>> Unpublished(const std::string& table,
                                                  int64_t limit) override;
  Status MarkPublishedThrough(const std::string& table,
                              Version version) override;
  StatusOr<int64_t> ForgetPublishedBefore(const std::string& table,
                                          Version version) override;
  StatusOr<std::optional<AppliedTxn>> LatestAppTxn(const std::string& table,
                                                   std::string_view app_id) override;

 private:
  StatusOr<std::optional<TableHead>> ReadHead(const std::string& table);
  // kDataLoss when `table` has commit items (so it once had a head).
  Status CheckNoCommitItems(const std::string& table);
  // Steps 3 and 4 of Ratify; kAlreadyExists when another instance moved the
  // head first.
  Status MoveHead(const TableHead& head, const CommitRecord& record);
  StatusOr<std::optional<CommitRecord>> ReadRecord(const TableHead& head,
                                                   Version version);
  // Commit items with start <= version <= last, ascending, at most `limit`.
  StatusOr<std::vector<CommitRecord>> QueryRecords(const TableHead& head,
                                                   Version start, Version last,
                                                   int64_t limit);
  StatusOr<std::vector<CommitRecord>> ListFromHead(const TableHead& head,
                                                   Version start,
                                                   int64_t limit);

  dynamodb::DynamoDbClient& client_;
  const std::string dynamodb_table_;
};

// How long CreateServiceStateTable waits for the new table to become ACTIVE.
inline constexpr std::chrono::milliseconds kServiceStateTableActiveTimeout{
    300'000};

// Creates the DynamoDB table `name` with the state store's key schema
// (table_uri S HASH, version N RANGE) and waits until it is ACTIVE. Errors
// of CreateTable (kAlreadyExists when it exists; it is left as it is) and
// WaitForTableActive.
Status CreateServiceStateTable(dynamodb::DynamoDbClient& client,
                               const std::string& name,
                               const dynamodb::DeltaLogTableBilling& billing);

}  // namespace deltacommit::service
