// Test helpers for checkpoint writing: a generated table whose log holds
// partition values that need escaping and nulls, deletion-vector
// descriptors, txns, domain metadata (one removed) and remove tombstones;
// snapshot comparison; and the independent reader (parquet/hyparquet.h).
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/test_servers.h"
#include "deltacommit/action_json.h"
#include "deltacommit/log_path.h"
#include "deltacommit/object_store.h"
#include "deltacommit/snapshot.h"
#include "parquet/hyparquet.h"

namespace deltacommit::checkpoint_test {

inline AddFile Add(std::string path, NullableStringMap partition_values, int64_t size) {
  AddFile a;
  a.path = std::move(path);
  a.partition_values = std::move(partition_values);
  a.size = size;
  a.modification_time = 1700000000000 + size;
  a.stats = R"({"numRecords":)" + std::to_string(size) + R"(,"nullCount":{"x":0}})";
  return a;
}

inline DeletionVectorDescriptor Dv(std::string id, std::optional<int32_t> offset) {
  DeletionVectorDescriptor dv;
  dv.storage_type = "u";
  dv.path_or_inline_dv = std::move(id);
  dv.offset = offset;
  dv.size_in_bytes = 36;
  dv.cardinality = 3;
  return dv;
}

inline RemoveFile Remove(const AddFile& add, int64_t when) {
  RemoveFile r;
  r.path = add.path;
  r.deletion_timestamp = when;
  r.extended_file_metadata = true;
  r.partition_values = add.partition_values;
  r.size = add.size;
  r.deletion_vector = add.deletion_vector;
  return r;
}

inline SetTransaction Txn(std::string app_id, int64_t version) {
  SetTransaction t;
  t.app_id = std::move(app_id);
  t.version = version;
  t.last_updated = 1700000000000 + version;
  return t;
}

inline DomainMetadata Domain(std::string domain, std::string configuration, bool removed) {
  DomainMetadata d;
  d.domain = std::move(domain);
  d.configuration = std::move(configuration);
  d.removed = removed;
  return d;
}

// Versions 0..4 of the generated table; 5 (after the checkpoint) is
// LaterCommit().
inline std::vector<std::vector<Action>> GeneratedCommits() {
  Protocol protocol;
  protocol.min_reader_version = 3;
  protocol.min_writer_version = 7;
  protocol.reader_features = std::vector<std::string>{"deletionVectors"};
  protocol.writer_features = std::vector<std::string>{"deletionVectors", "domainMetadata"};
  Metadata metadata;
  metadata.id = "0f6b5e62-5d49-4a44-9c3e-1d2b7f3a9c10";
  metadata.name = "generated";
  metadata.schema_string =
      R"({"type":"struct","fields":[{"name":"p","type":"string","nullable":true,"metadata":{}},)"
      R"({"name":"q","type":"integer","nullable":true,"metadata":{}},)"
      R"({"name":"x","type":"long","nullable":true,"metadata":{}}]})";
  metadata.partition_columns = {"p", "q"};
  metadata.created_time = 1700000000000;
  metadata.configuration = {{"delta.enableDeletionVectors", "true"},
                            {"delta.checkpointInterval", "100"}};
  AddFile plain = Add("p=a%20b/q=1/part-0.parquet", {{"p", "a b"}, {"q", "1"}}, 100);
  AddFile escaped = Add("p=x%253Dy%252F%2525/q=2/part-1.parquet",
                        {{"p", "x=y/%"}, {"q", "2"}}, 200);
  AddFile nulls = Add("p=__HIVE_DEFAULT_PARTITION__/q=__HIVE_DEFAULT_PARTITION__/part-2.parquet",
                      {{"p", std::nullopt}, {"q", std::nullopt}}, 300);
  AddFile unicode = Add("p=%C3%BCn%C3%AF%20%27%22/q=3/part-3.parquet",
                        {{"p", "\xC3\xBCn\xC3\xAF '\""}, {"q", "3"}}, 400);
  unicode.tags = NullableStringMap{{"INSERTION_TIME", "1700000000000000"}, {"none", std::nullopt}};
  AddFile with_dv = plain;
  with_dv.deletion_vector = Dv("ab^-aqEH.-t@S}K{vb[*k^", 1);
  with_dv.base_row_id = 10;
  with_dv.default_row_commit_version = 3;
  AddFile other_dv = escaped;
  other_dv.deletion_vector = Dv("vBn[lx{q8@P<9BNH/isA", std::nullopt);
  AddFile gone = Add("p=a%20b/q=1/part-4.parquet", {{"p", "a b"}, {"q", "1"}}, 500);
  AddFile gone_nulls =
      Add("p=__HIVE_DEFAULT_PARTITION__/q=__HIVE_DEFAULT_PARTITION__/part-6.parquet",
          {{"p", std::nullopt}, {"q", std::nullopt}}, 700);
  return {
      {protocol, metadata},
      {plain, escaped, nulls, unicode, gone, gone_nulls},
      {Txn("app-a", 1), Domain("myapp.config", R"({"k":"v \"q\""})", false),
       Domain("myapp.gone", "{}", false)},
      // A DV on `plain` and `escaped`: the old files become tombstones.
      {Remove(plain, 1700000003000), with_dv, Remove(escaped, 1700000003000), other_dv,
       Remove(gone, 1700000003001), Remove(gone_nulls, 1700000003002),
       Domain("myapp.gone", "{}", true)},
      {Txn("app-a", 2), Txn("app-b", 7)},
  };
}

inline std::vector<Action> LaterCommit() {
  AddFile with_dv = Add("p=a%20b/q=1/part-0.parquet", {{"p", "a b"}, {"q", "1"}}, 100);
  with_dv.deletion_vector = Dv("ab^-aqEH.-t@S}K{vb[*k^", 1);
  return {Add("p=later/q=9/part-5.parquet", {{"p", "later"}, {"q", "9"}}, 600),
          // The DV file (a remove after the checkpoint).
          Remove(with_dv, 1700000005000),
          Txn("app-c", 1)};
}

inline void WriteCommits(ObjectStore& store, const std::vector<std::vector<Action>>& commits,
                         Version first) {
  for (size_t i = 0; i < commits.size(); ++i) {
    const Version v = first + static_cast<Version>(i);
    ASSERT_TRUE(store.PutIfAbsent(CommitPath(v), ActionsToCommit(commits[i])).ok()) << v;
  }
}

// The values of a snapshot map as action JSON lines (readable diffs). A
// checkpoint restates files with dataChange false while replay keeps what
// the commit said, so files are compared with dataChange false.
template <typename M>
std::vector<std::string> Lines(const M& map) {
  std::vector<std::string> out;
  for (const auto& [key, value] : map) {
    auto copy = value;
    if constexpr (requires { copy.data_change; }) copy.data_change = false;
    out.push_back(ActionToJson(Action(copy)));
  }
  return out;
}

template <typename M>
auto WithoutDataChange(const M& files) {
  using Key = std::remove_const_t<typename M::value_type::first_type>;
  std::map<Key, typename M::value_type::second_type> out;
  for (const auto& [key, file] : files) {
    auto copy = file;
    copy.data_change = false;
    out.emplace(key, std::move(copy));
  }
  return out;
}

inline void ExpectSameSnapshot(const Snapshot& from_checkpoint, const Snapshot& from_json) {
  EXPECT_EQ(from_checkpoint.version(), from_json.version());
  EXPECT_EQ(ActionToJson(from_checkpoint.protocol()), ActionToJson(from_json.protocol()));
  EXPECT_EQ(ActionToJson(from_checkpoint.metadata()), ActionToJson(from_json.metadata()));
  EXPECT_EQ(Lines(from_checkpoint.active_files()), Lines(from_json.active_files()));
  EXPECT_EQ(Lines(from_checkpoint.tombstones()), Lines(from_json.tombstones()));
  EXPECT_EQ(from_checkpoint.app_versions(), from_json.app_versions());
  EXPECT_EQ(Lines(from_checkpoint.transactions()), Lines(from_json.transactions()));
  EXPECT_EQ(Lines(from_checkpoint.domain_metadata()), Lines(from_json.domain_metadata()));
  // And as values (fields the JSON form could hide, e.g. unknown fields).
  EXPECT_EQ(from_checkpoint.protocol(), from_json.protocol());
  EXPECT_EQ(from_checkpoint.metadata(), from_json.metadata());
  EXPECT_TRUE(WithoutDataChange(from_checkpoint.active_files()) ==
              WithoutDataChange(from_json.active_files()));
  EXPECT_TRUE(WithoutDataChange(from_checkpoint.tombstones()) ==
              WithoutDataChange(from_json.tombstones()));
  EXPECT_TRUE(from_checkpoint.transactions() == from_json.transactions());
  EXPECT_TRUE(from_checkpoint.domain_metadata() == from_json.domain_metadata());
}

using hyparquet::ReadWithHyparquet;

}  // namespace deltacommit::checkpoint_test
