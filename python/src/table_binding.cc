#include "table_binding.h"

#include <pybind11/stl.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "deltacommit/action_json.h"
#include "deltacommit/clock.h"
#include "deltacommit/table.h"
#include "memory_columns.h"
#include "status_error.h"

namespace py = pybind11;

namespace deltacommit::python {
namespace {

// Warnings the library gives while the GIL is released (TableOptions::
// on_warning may be called on any thread); handed to Python's `warnings`
// once the call is back on a thread holding the GIL.
class Warnings {
 public:
  void Add(std::string warning) {
    std::lock_guard lock(mu_);
    pending_.push_back(std::move(warning));
  }
  void Emit() {
    std::vector<std::string> emit;
    {
      std::lock_guard lock(mu_);
      emit.swap(pending_);
    }
    if (emit.empty()) return;
    py::object category = py::module_::import("deltacommit.errors").attr("DeltaCommitWarning");
    py::object warn = py::module_::import("warnings").attr("warn");
    for (const std::string& w : emit) warn(w, category, 3);
  }

 private:
  std::mutex mu_;
  std::vector<std::string> pending_;
};

// An opened table and where its warnings go.
struct PyTable {
  Table table;
  std::shared_ptr<Warnings> warnings;
};

// A snapshot, immutable, shared with the table that read it.
struct PySnapshot {
  std::shared_ptr<const Snapshot> snapshot;
};

// Runs `call` without the GIL, then emits the warnings it gave and raises
// its error, if any.
template <typename Call>
auto Released(PyTable& t, Call&& call) {
  auto result = [&] {
    py::gil_scoped_release release;
    return call();
  }();
  t.warnings->Emit();
  return ValueOrThrow(std::move(result));
}

// The body of a single action as JSON text ({"add": {...}} -> {...}).
std::string ActionBodyJson(const Action& action) {
  const std::string line = ActionToJson(action);
  const size_t colon = line.find(':');
  return line.substr(colon + 1, line.size() - colon - 2);
}

py::dict OutcomeDict(const CommitOutcome& outcome) {
  py::dict d;
  switch (outcome.result) {
    case CommitResult::kCommitted:
      d["result"] = "committed";
      break;
    case CommitResult::kAlreadyCommitted:
      d["result"] = "already_committed";
      break;
    case CommitResult::kConflict:
      d["result"] = "conflict";
      break;
  }
  d["version"] = outcome.version;
  d["attempts"] = outcome.attempts;
  d["rebases"] = outcome.rebases;
  d["assigned"] = outcome.assigned;
  d["merged"] = outcome.merged;
  if (outcome.conflict) {
    d["conflict_type"] = std::string(ConflictTypeName(outcome.conflict->type));
    d["winning_version"] = outcome.conflict->winning_version;
    d["conflict_detail"] = outcome.conflict->detail;
    d["conflict_message"] = outcome.conflict->Describe();
  }
  return d;
}

TransactionOptions TransactionOptionsFrom(const std::string& operation,
                                          const std::string& isolation,
                                          std::optional<int> max_attempts) {
  TransactionOptions options;
  options.operation = operation;
  std::optional<IsolationLevel> level = ParseIsolationLevel(isolation);
  if (!level) {
    throw StatusError(InvalidArgumentError(
        "isolation \"" + isolation +
        "\" is not an isolation level: Serializable, WriteSerializable or SnapshotIsolation"));
  }
  options.isolation_level = *level;
  if (max_attempts) {
    if (*max_attempts < 1) {
      throw StatusError(InvalidArgumentError("max_attempts " + std::to_string(*max_attempts) +
                                             " must be at least 1"));
    }
    options.max_attempts = *max_attempts;
  }
  return options;
}

std::optional<std::pair<std::string, int64_t>> AppTransaction(
    const std::optional<std::string>& app_id, std::optional<int64_t> app_version) {
  if (app_id.has_value() != app_version.has_value()) {
    throw StatusError(InvalidArgumentError("app_id and app_version go together: give both"));
  }
  if (!app_id) return std::nullopt;
  return std::make_pair(*app_id, *app_version);
}

// A disjunction of conjunctions: [{column: [values...]}, ...]; a value None
// is a null partition value.
std::vector<PartitionPredicate> Predicates(
    const std::vector<std::map<std::string, std::vector<std::optional<std::string>>>>& given) {
  std::vector<PartitionPredicate> predicates;
  for (const auto& conjunction : given) {
    PartitionPredicate predicate;
    for (const auto& [column, values] : conjunction) predicate.push_back({column, values});
    predicates.push_back(std::move(predicate));
  }
  return predicates;
}

void BindOptions(py::module_& m) {
  py::class_<TableOptions>(m, "_TableOptions")
      .def(py::init<>())
      .def_property(
          "mode",
          [](const TableOptions& o) -> std::optional<std::string> {
            if (!o.mode) return std::nullopt;
            return std::string(CommitModeName(*o.mode));
          },
          [](TableOptions& o, const std::optional<std::string>& name) {
            if (!name) {
              o.mode.reset();
              return;
            }
            std::optional<CommitMode> mode = ParseCommitMode(*name);
            if (!mode) {
              std::string known;
              for (CommitMode k : kCommitModes) {
                known += (known.empty() ? "" : ", ") + std::string(CommitModeName(k));
              }
              throw StatusError(
                  InvalidArgumentError("mode \"" + *name + "\" is not a commit mode: " + known));
            }
            o.mode = *mode;
          })
      .def_readwrite("endpoint_url", &TableOptions::endpoint_url)
      .def_readwrite("region", &TableOptions::region)
      .def_readwrite("profile", &TableOptions::profile)
      .def_readwrite("storage_options", &TableOptions::storage_options)
      .def_readwrite("create_dynamodb_table", &TableOptions::create_dynamodb_table)
      .def_readwrite("service_url", &TableOptions::service_url)
      .def_readwrite("service_token", &TableOptions::service_token)
      .def_readwrite("service_endpoint", &TableOptions::service_endpoint)
      .def_readwrite("catalog_url", &TableOptions::catalog_url)
      .def_readwrite("catalog_token", &TableOptions::catalog_token)
      .def_readwrite("catalog_send_credentials", &TableOptions::catalog_send_credentials)
      .def_readwrite("auto_checkpoint", &TableOptions::auto_checkpoint)
      .def_property(
          "connect_timeout_ms", [](const TableOptions& o) { return o.http.connect.count(); },
          [](TableOptions& o, int64_t ms) { o.http.connect = std::chrono::milliseconds(ms); })
      .def_property(
          "request_timeout_ms", [](const TableOptions& o) { return o.http.request.count(); },
          [](TableOptions& o, int64_t ms) { o.http.request = std::chrono::milliseconds(ms); });
}

void BindSnapshot(py::module_& m) {
  py::class_<PySnapshot>(m, "_Snapshot")
      .def_property_readonly("version", [](const PySnapshot& s) { return s.snapshot->version(); })
      .def("protocol_json",
           [](const PySnapshot& s) { return ActionBodyJson(s.snapshot->protocol()); })
      .def("metadata_json",
           [](const PySnapshot& s) { return ActionBodyJson(s.snapshot->metadata()); })
      .def("files_json",
           [](const PySnapshot& s) {
             std::vector<std::string> files;
             files.reserve(s.snapshot->active_files().size());
             for (const auto& [key, add] : s.snapshot->active_files()) {
               files.push_back(ActionBodyJson(add));
             }
             return files;
           })
      .def_property_readonly("num_files",
                             [](const PySnapshot& s) { return s.snapshot->active_files().size(); })
      .def_property_readonly("size_in_bytes",
                             [](const PySnapshot& s) { return s.snapshot->size_in_bytes(); })
      .def_property_readonly("app_versions",
                             [](const PySnapshot& s) { return s.snapshot->app_versions(); })
      .def_property_readonly("in_commit_timestamp",
                             [](const PySnapshot& s) { return s.snapshot->in_commit_timestamp(); })
      .def("txn_version", [](const PySnapshot& s, const std::string& app_id) {
        return s.snapshot->AppVersion(app_id);
      });
}

PySnapshot Held(std::shared_ptr<const Snapshot> snapshot) {
  return PySnapshot{std::move(snapshot)};
}

void BindTableClass(py::module_& m) {
  py::class_<PyTable>(m, "_Table")
      .def_property_readonly("uri", [](const PyTable& t) { return t.table.uri(); })
      .def_property_readonly(
          "mode", [](const PyTable& t) { return std::string(CommitModeName(t.table.mode())); })
      .def("update", [](PyTable& t) { return Held(Released(t, [&] { return t.table.Update(); })); })
      .def(
          "snapshot",
          [](PyTable& t, std::optional<Version> version) {
            return Held(Released(
                t, [&] { return version ? t.table.SnapshotAt(*version) : t.table.Snapshot(); }));
          },
          py::arg("version") = py::none())
      .def(
          "create",
          [](PyTable& t, NewTable spec) {
            return OutcomeDict(Released(t, [&]() -> StatusOr<CommitOutcome> {
              DC_ASSIGN_OR_RETURN(Metadata metadata,
                                  NewTableMetadata(std::move(spec), SystemClock().NowMillis()));
              return t.table.Create(std::move(metadata));
            }));
          },
          py::arg("spec"))
      .def(
          "commit",
          [](PyTable& t, const std::string& actions_jsonl, const std::string& operation,
             const std::string& isolation, std::optional<std::string> app_id,
             std::optional<int64_t> app_version,
             const std::vector<std::map<std::string, std::vector<std::optional<std::string>>>>&
                 read_predicates,
             bool read_whole_table, std::optional<int> max_attempts,
             std::optional<Version> read_version) {
            CommitOptions options;
            options.transaction = TransactionOptionsFrom(operation, isolation, max_attempts);
            options.app_transaction = AppTransaction(app_id, app_version);
            options.read_predicates = Predicates(read_predicates);
            options.read_whole_table = read_whole_table;
            options.read_version = read_version;
            return OutcomeDict(Released(t, [&]() -> StatusOr<CommitOutcome> {
              ActionParser parser;
              StatusOr<std::vector<Action>> actions = parser.ParseCommit(actions_jsonl);
              if (!actions.ok()) return actions.status().WithContext("actions");
              return t.table.Commit(*std::move(actions), std::move(options));
            }));
          },
          py::arg("actions_jsonl"), py::arg("operation"), py::arg("isolation"), py::arg("app_id"),
          py::arg("app_version"), py::arg("read_predicates"), py::arg("read_whole_table"),
          py::arg("max_attempts"), py::arg("read_version"))
      .def(
          "append",
          [](PyTable& t, const std::vector<std::pair<std::string, std::string>>& inputs,
             std::optional<py::list> frame_columns, std::optional<std::string> app_id,
             std::optional<int64_t> app_version, std::optional<int> max_attempts,
             const std::string& memory_limit) {
            AppendOptions options;
            options.transaction =
                TransactionOptionsFrom("WRITE", "WriteSerializable", max_attempts);
            options.app_transaction = AppTransaction(app_id, app_version);
            options.memory_limit = memory_limit;
            std::vector<AppendInput> files;
            for (const auto& [path, format] : inputs) files.push_back({path, format, "", {}});
            // A DataFrame: its columns, copied here while the GIL is held.
            if (frame_columns) {
              files.push_back({"", "", "the DataFrame", MemoryColumnsFrom(*frame_columns)});
            }
            AppendResult result = Released(t, [&] { return t.table.Append(files, options); });
            py::dict d = OutcomeDict(result.outcome);
            d["rows"] = result.rows;
            std::vector<std::string> adds;
            for (const AddFile& add : result.adds) adds.push_back(ActionBodyJson(add));
            d["adds_json"] = adds;
            return d;
          },
          py::arg("inputs"), py::arg("frame_columns"), py::arg("app_id"), py::arg("app_version"),
          py::arg("max_attempts"), py::arg("memory_limit"))
      .def(
          "delete",
          [](PyTable& t, const std::string& predicate, std::optional<std::string> app_id,
             std::optional<int64_t> app_version, std::optional<int> max_attempts,
             const std::string& memory_limit) {
            DeleteOptions options;
            options.transaction =
                TransactionOptionsFrom("DELETE", "WriteSerializable", max_attempts);
            options.app_transaction = AppTransaction(app_id, app_version);
            options.memory_limit = memory_limit;
            DeleteResult result = Released(t, [&] { return t.table.Delete(predicate, options); });
            py::dict d = result.outcome ? OutcomeDict(*result.outcome) : py::dict();
            if (!result.outcome) d["result"] = "nothing_matched";
            d["rows_deleted"] = result.rows_deleted;
            d["files_read"] = result.files_read;
            d["files_removed"] = result.files_removed;
            d["files_with_deletion_vectors"] = result.files_marked;
            d["files_rewritten"] = result.files_rewritten;
            d["change_data_files"] = result.change_files.size();
            return d;
          },
          py::arg("predicate"), py::arg("app_id"), py::arg("app_version"),
          py::arg("max_attempts"), py::arg("memory_limit"))
      .def(
          "checkpoint",
          [](PyTable& t, std::optional<Version> version) {
            CheckpointInfo info = Released(t, [&] { return t.table.Checkpoint(version); });
            py::dict d;
            d["version"] = info.version;
            d["size"] = info.size;
            d["size_in_bytes"] = info.size_in_bytes;
            d["num_of_add_files"] = info.num_of_add_files;
            d["parts"] = info.parts;
            d["key"] = info.key;
            return d;
          },
          py::arg("version") = py::none())
      .def(
          "history",
          [](PyTable& t, int64_t limit) {
            std::vector<HistoryEntry> entries = Released(t, [&] { return t.table.History(limit); });
            py::list out;
            for (const HistoryEntry& e : entries) {
              py::dict d;
              d["version"] = e.version;
              d["num_adds"] = e.num_adds;
              d["num_removes"] = e.num_removes;
              d["commit_info_json"] =
                  e.commit_info ? py::object(py::str(ActionBodyJson(*e.commit_info))) : py::none();
              out.append(std::move(d));
            }
            return out;
          },
          py::arg("limit"))
      .def("check",
           [](PyTable& t) {
             LogCheckReport report = Released(t, [&] { return t.table.Check(); });
             py::dict d;
             d["first_version"] = report.first_version;
             d["latest_version"] = report.latest_version;
             d["commits_checked"] = report.commits_checked;
             d["unrecognized_files"] = report.unrecognized_files;
             d["problems"] = report.problems;
             d["snapshot"] = report.snapshot ? py::cast(Held(report.snapshot)) : py::none();
             return d;
           })
      .def(
          "query",
          [](PyTable& t, const std::string& sql, std::optional<Version> version, bool json_rows,
             std::optional<std::string> output, const std::string& format, bool overwrite) {
            QueryOptions options;
            options.version = version;
            options.json_rows = json_rows;
            if (output) options.output = QueryOutputFile{*output, format, overwrite};
            QueryResult result = Released(t, [&] { return t.table.Query(sql, options); });
            return std::make_tuple(std::move(result.columns), std::move(result.column_types),
                                   std::move(result.rows), result.rows_written);
          },
          py::arg("sql"), py::arg("version"), py::arg("json_rows"), py::arg("output"),
          py::arg("format"), py::arg("overwrite"));
}

}  // namespace

void BindTable(py::module_& m) {
  BindOptions(m);
  py::class_<NewTable>(m, "_NewTable")
      .def(py::init<>())
      .def_readwrite("schema", &NewTable::schema)
      .def_readwrite("partition_columns", &NewTable::partition_columns)
      .def_readwrite("configuration", &NewTable::configuration)
      .def_readwrite("name", &NewTable::name)
      .def_readwrite("description", &NewTable::description);
  BindSnapshot(m);
  BindTableClass(m);
  m.def(
      "open_table",
      [](const std::string& uri, TableOptions options) {
        auto warnings = std::make_shared<Warnings>();
        options.on_warning = [warnings](const std::string& w) { warnings->Add(w); };
        StatusOr<Table> table = [&] {
          py::gil_scoped_release release;
          return OpenTable(uri, std::move(options));
        }();
        warnings->Emit();
        return PyTable{ValueOrThrow(std::move(table)), warnings};
      },
      py::arg("uri"), py::arg("options"));
}

}  // namespace deltacommit::python
