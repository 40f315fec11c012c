// Protocol versions and table features (PROTOCOL.md "Protocol Evolution",
// "Table Features", "Reader/Writer Version Requirements"): which tables this
// build may read and write, which features a protocol enables, and which
// protocol a new table gets.
//
// This build reads and writes the Delta *log*; it never rewrites data files,
// and data written later through the Parquet adapter is not checked against
// SQL expressions. So features whose rules are about row values (invariants,
// CHECK constraints, generated, identity and default columns) are refused for
// writing whenever they are *active* (as Spark decides it: the schema or the
// configuration uses them), and allowed while merely supported, which legacy
// writer versions 2-6 imply. The full support table, with the reason for
// each entry, is in table_features.cc.
//
// Error codes: a feature or version this build does not implement is
// Unimplemented (the table is fine, this client is too old or too small); a
// malformed protocol, a bad property or a protocol downgrade is
// InvalidArgument.
//
// Thread-safety: free functions on values; all thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/actions.h"
#include "deltacommit/status.h"

namespace deltacommit {

inline constexpr int32_t kMaxReaderVersion = 3;
inline constexpr int32_t kMaxWriterVersion = 7;

// OK when this build can replay the table's log: minReaderVersion <= 3 and,
// for reader version 3, every name in readerFeatures is one we read.
// Returns Unimplemented naming every unsupported reader feature and the
// version, e.g. "table requires reader features [futureFeature] that
// deltacommit does not support (minReaderVersion=3)"; InvalidArgument for a
// malformed protocol (version < 1, reader 3 without readerFeatures).
Status CheckReadSupported(const Protocol& p);

// OK when this build may commit to the table: CheckReadSupported, writer
// version <= 7, and every enabled feature (explicit for writer 7, implied by
// the versions below 7) is one we write, or is a row-value feature that `m`
// does not use. Returns Unimplemented naming every refused feature (with the
// column or property that makes it active) and minWriterVersion;
// InvalidArgument for a malformed protocol (reader 3 with writer < 7, writer
// 7 without writerFeatures, a reader feature missing from writerFeatures) or
// a schema that does not parse. Append-only is allowed here: the commit must
// still honour IsAppendOnly.
Status CheckWriteSupported(const Protocol& p, const Metadata& m);

// True when `feature` (a PROTOCOL.md name) is supported by `p`: listed in
// readerFeatures or writerFeatures, or implied by legacy versions (protocols
// without feature lists): writer 2: appendOnly, invariants; 3: +
// checkConstraints; 4: + changeDataFeed, generatedColumns; 5: + columnMapping
// (which also needs reader >= 2); 6: + identityColumns.
bool IsFeatureEnabled(const Protocol& p, std::string_view feature);

// Every feature IsFeatureEnabled reports for `p`, sorted.
std::vector<std::string> EnabledFeatures(const Protocol& p);

// appendOnly is supported and configuration delta.appendOnly is "true"
// (case-insensitive, as Spark parses booleans): commits must then not remove
// or change data (remove actions need dataChange=false).
bool IsAppendOnly(const Protocol& p, const Metadata& m);

// deletionVectors is supported and delta.enableDeletionVectors is "true"
// (Spark's deletionVectorsWritable): deletes mark rows with DVs rather than
// rewriting files. Readers must apply DVs wherever the feature is supported.
bool DeletionVectorsWritable(const Protocol& p, const Metadata& m);

// delta.enableChangeDataFeed is "true": a commit that removes some rows of
// a file (not whole files) owes change data files (cdc actions).
bool ChangeDataFeedEnabled(const Metadata& m);

// inCommitTimestamp is supported and delta.enableInCommitTimestamps is
// "true": every commit must start with a commitInfo holding inCommitTimestamp.
bool InCommitTimestampsEnabled(const Protocol& p, const Metadata& m);

// The protocol for a new table with metadata `m`: (1,2) unless the
// configuration or schema needs more:
//   delta.appendOnly=true            -> appendOnly
//   delta.enableChangeDataFeed=true  -> changeDataFeed
//   delta.columnMapping.mode=name|id -> columnMapping (none: nothing)
//   delta.enableDeletionVectors=true -> deletionVectors
//   delta.enableInCommitTimestamps=true -> inCommitTimestamp
//   delta.enableTypeWidening=true    -> typeWidening
//   delta.checkpointPolicy=v2        -> v2Checkpoint
//   delta.enableVariantShredding=true -> variantShredding (+ variantType)
//   delta.coordinatedCommits.commitCoordinator-preview=<any name>
//                                    -> coordinatedCommits-preview (+
//                                       inCommitTimestamp, vacuumProtocolCheck)
//   a timestamp_ntz / variant column -> timestampNtz / variantType
//   delta.feature.<name>=supported   -> <name> (any feature we can write)
// When only legacy features are needed and no delta.feature.* is set the
// result is the smallest legacy pair ((1,2), (1,4), (2,5)); otherwise it is
// the table-features form: writer 7 with every feature (and its
// dependencies) in writerFeatures, plus reader 3 with the reader-writer ones
// in readerFeatures when there are any. Lists are sorted.
// Returns Unimplemented naming what we cannot write (rowTracking, iceberg
// compatibility, an unknown delta.feature.*, or a schema/property that makes
// invariants, CHECK constraints, generated, identity or default columns
// active); InvalidArgument for a delta.feature.* value other than
// "supported", an unknown column mapping mode, or a bad schema.
// delta.feature.* are protocol properties: the caller drops them from the
// configuration it commits.
StatusOr<Protocol> ProtocolForNewTable(const Metadata& m);

// OK when a commit may replace `old_p` by `new_p`: `new_p` is well formed,
// neither version decreases, and every feature enabled by `old_p` (explicit
// or implied) stays enabled. Returns InvalidArgument naming the downgraded
// version or the dropped features. Whether we can write `new_p` is
// CheckWriteSupported's question.
Status CheckProtocolTransition(const Protocol& old_p, const Protocol& new_p);

}  // namespace deltacommit
