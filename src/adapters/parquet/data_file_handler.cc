#include "deltacommit/parquet/data_file_handler.h"

#include <utility>

#include <nlohmann/json.hpp>

#include "adapters/parquet/data_columns.h"
#include "adapters/parquet/data_input.h"
#include "adapters/parquet/data_sql.h"
#include "adapters/parquet/data_types.h"

namespace deltacommit {

using data_internal::Connection;
using data_internal::Database;

StatusOr<std::unique_ptr<DuckDbDataFileHandler>> DuckDbDataFileHandler::Create(
    const DuckDbOptions& options) {
  DC_ASSIGN_OR_RETURN(std::unique_ptr<Database> db,
                      Database::Open(options.memory_limit, options.temp_directory));
  return std::unique_ptr<DuckDbDataFileHandler>(
      new DuckDbDataFileHandler(std::move(db), options));
}

DuckDbDataFileHandler::DuckDbDataFileHandler(std::unique_ptr<Database> db,
                                             const DuckDbOptions& options)
    : db_(std::move(db)), options_(options) {}

DuckDbDataFileHandler::~DuckDbDataFileHandler() = default;

StatusOr<std::string> DuckDbDataFileHandler::InferSchemaString(const DataInput& sample) {
  using namespace data_internal;
  DC_ASSIGN_OR_RETURN(std::string format, InputFormat(sample));
  DC_ASSIGN_OR_RETURN(std::unique_ptr<Connection> connection, Connection::Open(*db_));
  const std::string source = InputSource(sample, format, /*text_columns=*/false);
  DC_ASSIGN_OR_RETURN(std::vector<InputColumn> inputs, DescribeInput(*connection, sample, source));
  if (inputs.empty()) {
    return InvalidArgumentError("input \"" + sample.label + "\": no columns found");
  }
  nlohmann::ordered_json fields = nlohmann::ordered_json::array();
  for (const InputColumn& in : inputs) {
    auto type = DeltaTypeFromDuckDb(in.type, in.name);
    if (!type.ok()) return type.status().WithContext("input \"" + sample.label + "\"");
    fields.push_back({{"name", in.name}, {"type", *type}, {"nullable", true},
                      {"metadata", nlohmann::ordered_json::object()}});
  }
  nlohmann::ordered_json schema{{"type", "struct"}, {"fields", std::move(fields)}};
  return schema.dump();
}

}  // namespace deltacommit
