#include "snapshot_load/log_gen.h"

#include <malloc.h>
#include <simdjson.h>

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "deltacommit/action_json.h"

namespace deltacommit::bench {

std::string BenchCommit(int version, int adds) {
  std::vector<Action> actions;
  CommitInfo info;
  info.timestamp = 1700000000000 + version;
  info.operation = "WRITE";
  info.is_blind_append = true;
  actions.emplace_back(info);
  if (version == 0) {
    actions.emplace_back(Protocol{});
    Metadata m;
    m.id = "bench";
    m.schema_string =
        R"({"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}}]})";
    m.partition_columns = {"part"};
    actions.emplace_back(m);
  }
  for (int i = 0; i < adds; ++i) {
    AddFile a;
    a.path = "part=" + std::to_string(i % 10) + "/part-" + std::to_string(version) + "-" +
             std::to_string(i) + "-c000.snappy.parquet";
    a.partition_values["part"] = std::to_string(i % 10);
    a.size = 123456 + i;
    a.modification_time = 1700000000000 + version;
    a.stats = R"({"numRecords":1000,"minValues":{"id":0},"maxValues":{"id":999},"nullCount":{"id":0}})";
    actions.emplace_back(std::move(a));
  }
  return ActionsToCommit(actions);
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double HeapInUse() {
  const struct mallinfo2 m = mallinfo2();
  return static_cast<double>(m.uordblks + m.hblkhd);
}

double RawParseSeconds(const std::vector<std::string>& commits, size_t first, size_t end) {
  end = std::min(end, commits.size());
  static simdjson::dom::parser parser;
  auto start = std::chrono::steady_clock::now();
  size_t docs = 0;
  for (size_t i = first; i < end; ++i) {
    const std::string& c = commits[i];
    simdjson::dom::document_stream stream;
    if (parser.parse_many(c.data(), c.size(), 1 << 20).get(stream)) std::abort();
    for (auto doc : stream) {
      if (doc.error()) std::abort();
      ++docs;
    }
  }
  double s = SecondsSince(start);
  if (docs == 0 && first < end) std::abort();
  return s;
}

}  // namespace deltacommit::bench
