// Multi-part classic checkpoints (PROTOCOL.md "Multi-part checkpoint"):
// "<v>.checkpoint.<i>.<n>.parquet", i = 1..n. The protocol requires the
// parts to be clustered by Spark-style hash partitioning of the logical file
// identifier (path, deletion vector unique id), so that every writer of the
// same checkpoint puts the same actions in the same part, even when writers
// race or retry. This reproduces Spark's repartition(n, keys): Murmur3
// (Spark's variant) seeded 42, null keys skipped, pmod n; part i holds
// partition i-1.
//
// Thread-safety: pure functions, except WriteMultiPartCheckpoint (through
// the store and handler, which are thread-safe).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/actions.h"
#include "deltacommit/object_store.h"
#include "deltacommit/parquet_handler.h"
#include "deltacommit/status.h"

namespace deltacommit {

// Spark's Murmur3_x86_32.hashUnsafeBytes (what Spark's hash() applies to a
// string's UTF-8 bytes): the reference Murmur3 on whole 4-byte words, but
// each trailing byte (sign-extended) mixed in as a word of its own.
int32_t SparkMurmur3(std::string_view bytes, int32_t seed);

// The partition Spark's repartition(num_partitions, keys...) gives a row:
// pmod(h, num_partitions), h starting at 42 and folding in each non-null
// key in turn. num_partitions >= 1.
int32_t SparkHashPartition(const std::vector<std::optional<std::string>>& keys,
                           int32_t num_partitions);

// How many parts Spark writes for `file_actions` adds and removes with
// partSize `part_size` (>= 1): ceil(file_actions / part_size), at least 1.
int32_t CheckpointPartCount(int64_t file_actions, int64_t part_size);

// `actions` in `num_parts` parts, as Spark clusters them: an add or remove
// by (path, deletion vector unique id); every other action (protocol,
// metaData, txn, domainMetadata) has a null key, so all of them land in
// part (42 mod num_parts) + 1, wherever Spark would put them. Order within a
// part is kept.
std::vector<std::vector<Action>> SplitIntoParts(std::vector<Action> actions, int32_t num_parts);

// Writes `parts` as the multi-part checkpoint of `version`, each part
// through `parquet` (which never replaces an object), and returns their
// total size in bytes. A part that exists already (a crashed or concurrent
// writer of the same checkpoint) is kept when it holds the same add files
// as ours, which hash partitioning makes deterministic; otherwise
// kFailedPrecondition naming it (nothing is replaced). kAlreadyExists when
// every part existed: the checkpoint was there before.
StatusOr<int64_t> WriteMultiPartCheckpoint(ObjectStore& store, ParquetHandler& parquet,
                                           Version version,
                                           const std::vector<std::vector<Action>>& parts);

}  // namespace deltacommit
