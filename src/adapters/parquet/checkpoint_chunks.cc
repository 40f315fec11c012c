#include "adapters/parquet/checkpoint_chunks.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace deltacommit::parquet_internal {
namespace {

// One vector of the chunk being filled, a STRUCT's fields bound likewise.
// Every row starts null (its validity bit clear, in the STRUCT's fields
// too, so a null action leaves null fields, as DuckDB expects); writing a
// value marks its row valid.
struct Out {
  const FieldType* type = nullptr;
  duckdb_vector vector = nullptr;
  void* data = nullptr;
  uint64_t* validity = nullptr;
  std::vector<Out> fields;

  void MarkValid(idx_t row) { validity[row / 64] |= uint64_t{1} << (row % 64); }
};

Out BindAllNull(const FieldType& type, duckdb_vector vector, idx_t rows) {
  Out out;
  out.type = &type;
  out.vector = vector;
  duckdb_vector_ensure_validity_writable(vector);
  out.validity = duckdb_vector_get_validity(vector);
  std::memset(out.validity, 0, (rows + 63) / 64 * sizeof(uint64_t));
  out.data = duckdb_vector_get_data(vector);
  if (type.id == DUCKDB_TYPE_LIST || type.id == DUCKDB_TYPE_MAP) {
    std::memset(out.data, 0, rows * sizeof(duckdb_list_entry));
  } else if (type.id == DUCKDB_TYPE_STRUCT) {
    out.fields.reserve(type.children.size());
    for (idx_t i = 0; i < type.children.size(); ++i) {
      out.fields.push_back(
          BindAllNull(type.children[i], duckdb_struct_vector_get_child(vector, i), rows));
    }
  }
  return out;
}

// Finds the fields of STRUCT vectors by name and type. A field that is not
// there is bound to a stand-in and remembered: the chunk is then not filled.
class Binder {
 public:
  Out& Field(Out& parent, std::string_view name, duckdb_type id) {
    for (Out& field : parent.fields) {
      if (field.type->name == name && field.type->id == id) return field;
    }
    if (status_.ok()) {
      status_ = InternalError("the checkpoint schema's column " + parent.type->path +
                              " has no field " + std::string(name) + " of DuckDB type " +
                              std::to_string(static_cast<int>(id)));
    }
    return missing_;
  }
  const Status& status() const { return status_; }

 private:
  Status status_;
  Out missing_;
};

void Put(Out& out, idx_t row, std::string_view value) {
  duckdb_vector_assign_string_element_len(out.vector, row, value.data(), value.size());
  out.MarkValid(row);
}

template <typename T>
requires std::is_arithmetic_v<T>
void Put(Out& out, idx_t row, T value) {
  static_cast<T*>(out.data)[row] = value;
  out.MarkValid(row);
}

// A LIST (of VARCHAR) or a MAP (of VARCHAR to VARCHAR) at `row`: its
// entries go after those of the rows before it.
template <typename Each>
void PutEntries(Out& out, idx_t row, idx_t count, Each&& each) {
  const idx_t offset = duckdb_list_vector_get_size(out.vector);
  static_cast<duckdb_list_entry*>(out.data)[row] = {offset, count};
  out.MarkValid(row);
  if (count == 0) return;
  // Cannot fail: the vector is a LIST or MAP (checked when bound).
  duckdb_list_vector_reserve(out.vector, offset + count);
  each(duckdb_list_vector_get_child(out.vector), offset);
  duckdb_list_vector_set_size(out.vector, offset + count);
}

void Put(Out& out, idx_t row, const std::vector<std::string>& list) {
  PutEntries(out, row, list.size(), [&](duckdb_vector elements, idx_t at) {
    for (const std::string& element : list) {
      duckdb_vector_assign_string_element_len(elements, at++, element.data(), element.size());
    }
  });
}

template <typename Value>
void Put(Out& out, idx_t row, const std::map<std::string, Value>& map) {
  PutEntries(out, row, map.size(), [&](duckdb_vector entries, idx_t at) {
    duckdb_vector keys = duckdb_struct_vector_get_child(entries, 0);
    duckdb_vector values = duckdb_struct_vector_get_child(entries, 1);
    duckdb_vector_ensure_validity_writable(values);
    uint64_t* valid = duckdb_vector_get_validity(values);
    for (const auto& [key, value] : map) {
      duckdb_vector_assign_string_element_len(keys, at, key.data(), key.size());
      std::optional<std::string_view> text;
      if constexpr (std::is_same_v<Value, std::string>) {
        text = value;
      } else if (value) {
        text = *value;
      }
      if (text) duckdb_vector_assign_string_element_len(values, at, text->data(), text->size());
      duckdb_validity_set_row_validity(valid, at, text.has_value());
      ++at;
    }
  });
}

template <typename T>
void Put(Out& out, idx_t row, const std::optional<T>& value) {
  if (value) Put(out, row, *value);
}

// The deletion vector's maxRowIndex, kept among its unknown fields (the
// descriptor does not model it; the checkpoint schema has it).
std::optional<int64_t> MaxRowIndex(const DeletionVectorDescriptor& dv) {
  for (const auto& [name, raw] : dv.unknown_fields) {
    if (name != "maxRowIndex") continue;
    int64_t value = 0;
    auto [end, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), value);
    if (ec == std::errc() && end == raw.data() + raw.size()) return value;
  }
  return std::nullopt;
}

struct DeletionVectorOut {
  DeletionVectorOut(Binder& b, Out& parent)
      : self(b.Field(parent, "deletionVector", DUCKDB_TYPE_STRUCT)),
        storage_type(b.Field(self, "storageType", DUCKDB_TYPE_VARCHAR)),
        path_or_inline_dv(b.Field(self, "pathOrInlineDv", DUCKDB_TYPE_VARCHAR)),
        offset(b.Field(self, "offset", DUCKDB_TYPE_INTEGER)),
        size_in_bytes(b.Field(self, "sizeInBytes", DUCKDB_TYPE_INTEGER)),
        cardinality(b.Field(self, "cardinality", DUCKDB_TYPE_BIGINT)),
        max_row_index(b.Field(self, "maxRowIndex", DUCKDB_TYPE_BIGINT)) {}

  void Fill(idx_t row, const std::optional<DeletionVectorDescriptor>& dv) {
    if (!dv) return;
    self.MarkValid(row);
    Put(storage_type, row, dv->storage_type);
    Put(path_or_inline_dv, row, dv->path_or_inline_dv);
    Put(offset, row, dv->offset);
    Put(size_in_bytes, row, dv->size_in_bytes);
    Put(cardinality, row, dv->cardinality);
    Put(max_row_index, row, MaxRowIndex(*dv));
  }

  Out& self;
  Out &storage_type, &path_or_inline_dv, &offset, &size_in_bytes, &cardinality, &max_row_index;
};

// The fields add and remove share.
struct FileActionOut {
  FileActionOut(Binder& b, Out& column)
      : self(column),
        path(b.Field(column, "path", DUCKDB_TYPE_VARCHAR)),
        partition_values(b.Field(column, "partitionValues", DUCKDB_TYPE_MAP)),
        size(b.Field(column, "size", DUCKDB_TYPE_BIGINT)),
        data_change(b.Field(column, "dataChange", DUCKDB_TYPE_BOOLEAN)),
        stats(b.Field(column, "stats", DUCKDB_TYPE_VARCHAR)),
        tags(b.Field(column, "tags", DUCKDB_TYPE_MAP)),
        deletion_vector(b, column),
        base_row_id(b.Field(column, "baseRowId", DUCKDB_TYPE_BIGINT)),
        default_row_commit_version(b.Field(column, "defaultRowCommitVersion", DUCKDB_TYPE_BIGINT)) {
  }

  template <typename FileAction>
  void Fill(idx_t row, const FileAction& a) {
    self.MarkValid(row);
    Put(path, row, a.path);
    Put(partition_values, row, a.partition_values);
    Put(size, row, a.size);
    Put(data_change, row, a.data_change);
    Put(stats, row, a.stats);
    Put(tags, row, a.tags);
    deletion_vector.Fill(row, a.deletion_vector);
    Put(base_row_id, row, a.base_row_id);
    Put(default_row_commit_version, row, a.default_row_commit_version);
  }

  Out& self;
  Out &path, &partition_values, &size, &data_change, &stats, &tags;
  DeletionVectorOut deletion_vector;
  Out &base_row_id, &default_row_commit_version;
};

struct AddOut {
  AddOut(Binder& b, Out& column)
      : file(b, column),
        modification_time(b.Field(column, "modificationTime", DUCKDB_TYPE_BIGINT)),
        clustering_provider(b.Field(column, "clusteringProvider", DUCKDB_TYPE_VARCHAR)) {}
  void Fill(idx_t row, const AddFile& a) {
    file.Fill(row, a);
    Put(modification_time, row, a.modification_time);
    Put(clustering_provider, row, a.clustering_provider);
  }
  FileActionOut file;
  Out &modification_time, &clustering_provider;
};

struct RemoveOut {
  RemoveOut(Binder& b, Out& column)
      : file(b, column),
        deletion_timestamp(b.Field(column, "deletionTimestamp", DUCKDB_TYPE_BIGINT)),
        extended_file_metadata(b.Field(column, "extendedFileMetadata", DUCKDB_TYPE_BOOLEAN)) {}
  void Fill(idx_t row, const RemoveFile& r) {
    file.Fill(row, r);
    Put(deletion_timestamp, row, r.deletion_timestamp);
    Put(extended_file_metadata, row, r.extended_file_metadata);
  }
  FileActionOut file;
  Out &deletion_timestamp, &extended_file_metadata;
};

struct TxnOut {
  TxnOut(Binder& b, Out& column)
      : self(column),
        app_id(b.Field(column, "appId", DUCKDB_TYPE_VARCHAR)),
        version(b.Field(column, "version", DUCKDB_TYPE_BIGINT)),
        last_updated(b.Field(column, "lastUpdated", DUCKDB_TYPE_BIGINT)) {}
  void Fill(idx_t row, const SetTransaction& t) {
    self.MarkValid(row);
    Put(app_id, row, t.app_id);
    Put(version, row, t.version);
    Put(last_updated, row, t.last_updated);
  }
  Out& self;
  Out &app_id, &version, &last_updated;
};

struct MetadataOut {
  MetadataOut(Binder& b, Out& column)
      : self(column),
        id(b.Field(column, "id", DUCKDB_TYPE_VARCHAR)),
        name(b.Field(column, "name", DUCKDB_TYPE_VARCHAR)),
        description(b.Field(column, "description", DUCKDB_TYPE_VARCHAR)),
        format(b.Field(column, "format", DUCKDB_TYPE_STRUCT)),
        provider(b.Field(format, "provider", DUCKDB_TYPE_VARCHAR)),
        options(b.Field(format, "options", DUCKDB_TYPE_MAP)),
        schema_string(b.Field(column, "schemaString", DUCKDB_TYPE_VARCHAR)),
        partition_columns(b.Field(column, "partitionColumns", DUCKDB_TYPE_LIST)),
        configuration(b.Field(column, "configuration", DUCKDB_TYPE_MAP)),
        created_time(b.Field(column, "createdTime", DUCKDB_TYPE_BIGINT)) {}
  void Fill(idx_t row, const Metadata& m) {
    self.MarkValid(row);
    Put(id, row, m.id);
    Put(name, row, m.name);
    Put(description, row, m.description);
    format.MarkValid(row);
    Put(provider, row, m.format.provider);
    Put(options, row, m.format.options);
    Put(schema_string, row, m.schema_string);
    Put(partition_columns, row, m.partition_columns);
    Put(configuration, row, m.configuration);
    Put(created_time, row, m.created_time);
  }
  Out& self;
  Out &id, &name, &description, &format, &provider, &options, &schema_string, &partition_columns,
      &configuration, &created_time;
};

struct ProtocolOut {
  ProtocolOut(Binder& b, Out& column)
      : self(column),
        min_reader_version(b.Field(column, "minReaderVersion", DUCKDB_TYPE_INTEGER)),
        min_writer_version(b.Field(column, "minWriterVersion", DUCKDB_TYPE_INTEGER)),
        reader_features(b.Field(column, "readerFeatures", DUCKDB_TYPE_LIST)),
        writer_features(b.Field(column, "writerFeatures", DUCKDB_TYPE_LIST)) {}
  void Fill(idx_t row, const Protocol& p) {
    self.MarkValid(row);
    Put(min_reader_version, row, p.min_reader_version);
    Put(min_writer_version, row, p.min_writer_version);
    Put(reader_features, row, p.reader_features);
    Put(writer_features, row, p.writer_features);
  }
  Out& self;
  Out &min_reader_version, &min_writer_version, &reader_features, &writer_features;
};

struct DomainMetadataOut {
  DomainMetadataOut(Binder& b, Out& column)
      : self(column),
        domain(b.Field(column, "domain", DUCKDB_TYPE_VARCHAR)),
        configuration(b.Field(column, "configuration", DUCKDB_TYPE_VARCHAR)),
        removed(b.Field(column, "removed", DUCKDB_TYPE_BOOLEAN)) {}
  void Fill(idx_t row, const DomainMetadata& d) {
    self.MarkValid(row);
    Put(domain, row, d.domain);
    Put(configuration, row, d.configuration);
    Put(removed, row, d.removed);
  }
  Out& self;
  Out &domain, &configuration, &removed;
};

struct CheckpointMetadataOut {
  CheckpointMetadataOut(Binder& b, Out& column)
      : self(column),
        version(b.Field(column, "version", DUCKDB_TYPE_BIGINT)),
        tags(b.Field(column, "tags", DUCKDB_TYPE_MAP)) {}
  void Fill(idx_t row, const CheckpointMetadata& c) {
    self.MarkValid(row);
    Put(version, row, c.version);
    Put(tags, row, c.tags);
  }
  Out& self;
  Out &version, &tags;
};

// One chunk's columns, each bound when an action first needs it.
class ChunkOut {
 public:
  ChunkOut(const std::vector<FieldType>& types, duckdb_data_chunk chunk, idx_t rows) {
    columns_.reserve(types.size());
    for (idx_t c = 0; c < types.size(); ++c) {
      columns_.push_back(BindAllNull(types[c], duckdb_data_chunk_get_vector(chunk, c), rows));
    }
  }

  // Writes `action` as row `row`, in the column named by its type (the
  // checkpoint schema names its columns as actions are keyed). Errors as
  // FillNext's.
  Status Fill(idx_t row, const Action& action) {
    const std::string_view type = ActionType(action);
    return std::visit([&](const auto& a) { return FillAs(row, a, type); }, action);
  }

 private:
  template <typename A, typename Bound>
  Status FillWith(std::unique_ptr<Bound>& bound, idx_t row, const A& a, std::string_view type) {
    if (bound == nullptr) {
      Out* column = Column(type);
      if (column == nullptr) {
        return InvalidArgumentError("a " + std::string(type) +
                                    " action, but this checkpoint has no " + std::string(type) +
                                    " column");
      }
      Binder binder;
      bound = std::make_unique<Bound>(binder, *column);
      if (!binder.status().ok()) {
        bound.reset();
        return binder.status();
      }
    }
    bound->Fill(row, a);
    return OkStatus();
  }

  using Type = std::string_view;
  Status FillAs(idx_t row, const SetTransaction& a, Type t) { return FillWith(txn_, row, a, t); }
  Status FillAs(idx_t row, const AddFile& a, Type t) { return FillWith(add_, row, a, t); }
  Status FillAs(idx_t row, const RemoveFile& a, Type t) { return FillWith(remove_, row, a, t); }
  Status FillAs(idx_t row, const Metadata& a, Type t) { return FillWith(metadata_, row, a, t); }
  Status FillAs(idx_t row, const Protocol& a, Type t) { return FillWith(protocol_, row, a, t); }
  Status FillAs(idx_t row, const DomainMetadata& a, Type t) { return FillWith(domain_, row, a, t); }
  Status FillAs(idx_t row, const CheckpointMetadata& a, Type t) {
    return FillWith(checkpoint_metadata_, row, a, t);
  }
  template <typename Other>
  Status FillAs(idx_t /*row*/, const Other& /*a*/, Type t) {
    return InvalidArgumentError("a checkpoint holds no " + std::string(t) + " action");
  }

  Out* Column(std::string_view name) {
    for (Out& column : columns_) {
      if (column.type->name == name && column.type->id == DUCKDB_TYPE_STRUCT) return &column;
    }
    return nullptr;
  }

  std::vector<Out> columns_;
  std::unique_ptr<TxnOut> txn_;
  std::unique_ptr<AddOut> add_;
  std::unique_ptr<RemoveOut> remove_;
  std::unique_ptr<MetadataOut> metadata_;
  std::unique_ptr<ProtocolOut> protocol_;
  std::unique_ptr<DomainMetadataOut> domain_;
  std::unique_ptr<CheckpointMetadataOut> checkpoint_metadata_;
};

}  // namespace

CheckpointChunkWriter::CheckpointChunkWriter(std::vector<FieldType> columns,
                                             std::span<const Action> actions)
    : columns_(std::move(columns)), actions_(actions) {}

StatusOr<idx_t> CheckpointChunkWriter::FillNext(duckdb_data_chunk chunk) {
  const idx_t rows = std::min<size_t>(duckdb_vector_size(), actions_.size() - next_);
  ChunkOut out(columns_, chunk, rows);
  for (idx_t row = 0; row < rows; ++row) {
    Status filled = out.Fill(row, actions_[next_ + row]);
    if (!filled.ok()) return filled.WithContext("checkpoint row " + std::to_string(next_ + row));
  }
  duckdb_data_chunk_set_size(chunk, rows);
  next_ += rows;
  return rows;
}

}  // namespace deltacommit::parquet_internal
