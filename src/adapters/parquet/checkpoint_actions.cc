#include "adapters/parquet/checkpoint_actions.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "adapters/parquet/checkpoint_rows.h"
#include "adapters/parquet/checkpoint_vectors.h"
#include "deltacommit/action_json.h"

namespace deltacommit::parquet_internal {
namespace {

// What one field of a file action holds, and the DuckDB type it must have
// to be read typed (a STRUCT is checked field by field, below).
enum class Slot {
  kUnknown,  // not a field of the action: read typed only while it is null
  kPath,
  kPartitionValues,
  kSize,
  kModificationTime,
  kDataChange,
  kStats,
  kTags,
  kDeletionVector,
  kBaseRowId,
  kDefaultRowCommitVersion,
  kClusteringProvider,    // add only
  kDeletionTimestamp,     // remove only
  kExtendedFileMetadata,  // remove only
};

enum class DvSlot { kUnknown, kStorageType, kPathOrInlineDv, kOffset, kSizeInBytes, kCardinality };

// A field read typed: its name, where it goes, and the DuckDB type it must
// have.
template <typename SlotT>
struct NamedSlot {
  std::string_view name;
  SlotT slot;
  duckdb_type id;
};

using FieldSlot = NamedSlot<Slot>;
using DvFieldSlot = NamedSlot<DvSlot>;

constexpr FieldSlot kFileFields[] = {
    {"path", Slot::kPath, DUCKDB_TYPE_VARCHAR},
    {"partitionValues", Slot::kPartitionValues, DUCKDB_TYPE_MAP},
    {"size", Slot::kSize, DUCKDB_TYPE_BIGINT},
    {"modificationTime", Slot::kModificationTime, DUCKDB_TYPE_BIGINT},
    {"dataChange", Slot::kDataChange, DUCKDB_TYPE_BOOLEAN},
    {"stats", Slot::kStats, DUCKDB_TYPE_VARCHAR},
    {"tags", Slot::kTags, DUCKDB_TYPE_MAP},
    {"deletionVector", Slot::kDeletionVector, DUCKDB_TYPE_STRUCT},
    {"baseRowId", Slot::kBaseRowId, DUCKDB_TYPE_BIGINT},
    {"defaultRowCommitVersion", Slot::kDefaultRowCommitVersion, DUCKDB_TYPE_BIGINT},
    {"clusteringProvider", Slot::kClusteringProvider, DUCKDB_TYPE_VARCHAR},
    {"deletionTimestamp", Slot::kDeletionTimestamp, DUCKDB_TYPE_BIGINT},
    {"extendedFileMetadata", Slot::kExtendedFileMetadata, DUCKDB_TYPE_BOOLEAN},
};

constexpr DvFieldSlot kDvFields[] = {
    {"storageType", DvSlot::kStorageType, DUCKDB_TYPE_VARCHAR},
    {"pathOrInlineDv", DvSlot::kPathOrInlineDv, DUCKDB_TYPE_VARCHAR},
    {"offset", DvSlot::kOffset, DUCKDB_TYPE_INTEGER},
    {"sizeInBytes", DvSlot::kSizeInBytes, DUCKDB_TYPE_INTEGER},
    {"cardinality", DvSlot::kCardinality, DUCKDB_TYPE_BIGINT},
};

bool IsStringMap(const FieldType& t) {
  return t.id == DUCKDB_TYPE_MAP && t.children.size() == 2 &&
         t.children[0].id == DUCKDB_TYPE_VARCHAR && t.children[1].id == DUCKDB_TYPE_VARCHAR;
}

// The slot of each field of `action` ("add" or "remove"), or nullopt when a
// field the action has is of another type than the one read typed (then
// every cell of the column goes through JSON).
std::optional<std::vector<Slot>> FileSlots(const FieldType& action, bool is_add,
                                           std::vector<std::vector<DvSlot>>& dv_slots) {
  std::vector<Slot> slots;
  for (const FieldType& field : action.children) {
    Slot slot = Slot::kUnknown;
    for (const FieldSlot& known : kFileFields) {
      if (known.name != field.name) continue;
      const bool for_add =
          known.slot != Slot::kDeletionTimestamp && known.slot != Slot::kExtendedFileMetadata;
      const bool for_remove = known.slot != Slot::kClusteringProvider;
      if (is_add ? !for_add : !for_remove) break;  // another action's field
      if (field.id != known.id) return std::nullopt;
      if (known.id == DUCKDB_TYPE_MAP && !IsStringMap(field)) return std::nullopt;
      slot = known.slot;
    }
    if (slot == Slot::kDeletionVector) {
      std::vector<DvSlot> dv;
      for (const FieldType& dv_field : field.children) {
        DvSlot s = DvSlot::kUnknown;
        for (const DvFieldSlot& known : kDvFields) {
          if (known.name != dv_field.name) continue;
          if (dv_field.id != known.id) return std::nullopt;
          s = known.slot;
        }
        dv.push_back(s);
      }
      dv_slots.push_back(std::move(dv));
    }
    slots.push_back(slot);
  }
  return slots;
}

// A checkpoint column and how its cells are read.
struct Column {
  const FieldType* type = nullptr;
  bool is_add = false;
  std::optional<std::vector<Slot>> slots;     // set: read typed
  std::vector<std::vector<DvSlot>> dv_slots;  // per deletionVector field (one)
};

bool ReadMap(const BoundVector& v, idx_t row, NullableStringMap& out) {
  const auto entry = v.At<duckdb_list_entry>(row);
  const BoundVector& keys = v.children[0];
  const BoundVector& values = v.children[1];
  for (idx_t i = entry.offset; i < entry.offset + entry.length; ++i) {
    std::optional<std::string> value;
    if (values.IsValid(i)) value.emplace(values.StringAt(i));
    // A repeated key: the parser decides what that means.
    if (!out.emplace(std::string(keys.StringAt(i)), std::move(value)).second) return false;
  }
  return true;
}

// The deletion vector at `row`, or false when the parser must decide (a
// required field null, or a field this reader does not know set).
bool ReadDv(const BoundVector& v, const std::vector<DvSlot>& slots, idx_t row,
            DeletionVectorDescriptor& dv) {
  bool storage = false, path = false, size = false, cardinality = false;
  for (size_t f = 0; f < slots.size(); ++f) {
    const BoundVector& field = v.children[f];
    if (!field.IsValid(row)) continue;
    switch (slots[f]) {
      case DvSlot::kUnknown:
        return false;
      case DvSlot::kStorageType:
        dv.storage_type = field.StringAt(row);
        storage = true;
        break;
      case DvSlot::kPathOrInlineDv:
        dv.path_or_inline_dv = field.StringAt(row);
        path = true;
        break;
      case DvSlot::kOffset:
        dv.offset = field.At<int32_t>(row);
        break;
      case DvSlot::kSizeInBytes:
        dv.size_in_bytes = field.At<int32_t>(row);
        size = true;
        break;
      case DvSlot::kCardinality:
        dv.cardinality = field.At<int64_t>(row);
        cardinality = true;
        break;
    }
  }
  return storage && path && size && cardinality;
}

// The fields an add and a remove share, read into `action`; false when the
// parser must decide.
template <typename FileAction>
bool ReadFileField(const BoundVector& field, Slot slot, const std::vector<DvSlot>* dv_slots,
                   idx_t row, FileAction& action) {
  switch (slot) {
    case Slot::kPath:
      action.path = field.StringAt(row);
      return true;
    case Slot::kStats:
      action.stats.emplace(field.StringAt(row));
      return true;
    case Slot::kTags:
      return ReadMap(field, row, action.tags.emplace());
    case Slot::kDataChange:
      action.data_change = field.At<bool>(row);
      return true;
    case Slot::kBaseRowId:
      action.base_row_id = field.At<int64_t>(row);
      return true;
    case Slot::kDefaultRowCommitVersion:
      action.default_row_commit_version = field.At<int64_t>(row);
      return true;
    case Slot::kDeletionVector:
      return dv_slots != nullptr && ReadDv(field, *dv_slots, row, action.deletion_vector.emplace());
    default:
      return false;
  }
}

// An add at `row`, or nullopt when the parser must decide.
std::optional<AddFile> ReadAdd(const BoundVector& v, const Column& c, idx_t row) {
  AddFile add;
  bool path = false, values = false, size = false, time = false, change = false;
  for (size_t f = 0; f < c.slots->size(); ++f) {
    const BoundVector& field = v.children[f];
    if (field.type->dropped || !field.IsValid(row)) continue;
    const Slot slot = (*c.slots)[f];
    switch (slot) {
      case Slot::kPartitionValues:
        if (!ReadMap(field, row, add.partition_values)) return std::nullopt;
        values = true;
        break;
      case Slot::kSize:
        add.size = field.At<int64_t>(row);
        size = true;
        break;
      case Slot::kModificationTime:
        add.modification_time = field.At<int64_t>(row);
        time = true;
        break;
      case Slot::kClusteringProvider:
        add.clustering_provider.emplace(field.StringAt(row));
        break;
      default:
        if (!ReadFileField(field, slot, c.dv_slots.empty() ? nullptr : &c.dv_slots[0], row, add)) {
          return std::nullopt;
        }
        path = path || slot == Slot::kPath;
        change = change || slot == Slot::kDataChange;
    }
  }
  if (!(path && values && size && time && change)) return std::nullopt;
  return add;
}

// A remove at `row`, or nullopt when the parser must decide.
std::optional<RemoveFile> ReadRemove(const BoundVector& v, const Column& c, idx_t row) {
  RemoveFile remove;
  bool path = false, change = false;
  for (size_t f = 0; f < c.slots->size(); ++f) {
    const BoundVector& field = v.children[f];
    if (field.type->dropped || !field.IsValid(row)) continue;
    const Slot slot = (*c.slots)[f];
    switch (slot) {
      case Slot::kPartitionValues:
        if (!ReadMap(field, row, remove.partition_values.emplace())) return std::nullopt;
        break;
      case Slot::kSize:
        remove.size = field.At<int64_t>(row);
        break;
      case Slot::kDeletionTimestamp:
        remove.deletion_timestamp = field.At<int64_t>(row);
        break;
      case Slot::kExtendedFileMetadata:
        remove.extended_file_metadata = field.At<bool>(row);
        break;
      default:
        if (!ReadFileField(field, slot, c.dv_slots.empty() ? nullptr : &c.dv_slots[0], row,
                           remove)) {
          return std::nullopt;
        }
        path = path || slot == Slot::kPath;
        change = change || slot == Slot::kDataChange;
    }
  }
  if (!(path && change)) return std::nullopt;
  return remove;
}

// The columns of `result`, add and remove marked for typed reading when
// their types allow it.
std::vector<Column> Columns(const std::vector<FieldType>& types) {
  std::vector<Column> columns(types.size());
  for (size_t i = 0; i < types.size(); ++i) {
    Column& c = columns[i];
    c.type = &types[i];
    if (types[i].id != DUCKDB_TYPE_STRUCT) continue;
    const bool add = types[i].name == "add";
    if (add || types[i].name == "remove") {
      c.is_add = add;
      c.slots = FileSlots(types[i], add, c.dv_slots);
    }
  }
  return columns;
}

class ChunkReader {
 public:
  explicit ChunkReader(std::vector<Action>& out) : out_(out) {}

  Status Read(const std::vector<Column>& columns, duckdb_data_chunk chunk) {
    std::vector<std::pair<const Column*, BoundVector>> bound;
    for (idx_t i = 0; i < columns.size(); ++i) {
      if (columns[i].type->id != DUCKDB_TYPE_STRUCT) continue;
      bound.emplace_back(&columns[i],
                         Bind(*columns[i].type, duckdb_data_chunk_get_vector(chunk, i)));
    }
    const idx_t rows = duckdb_data_chunk_get_size(chunk);
    for (idx_t row = 0; row < rows; ++row) {
      for (const auto& [column, vector] : bound) {
        if (!vector.IsValid(row)) continue;
        DC_RETURN_IF_ERROR(ReadCell(*column, vector, row));
      }
    }
    return OkStatus();
  }

 private:
  Status ReadCell(const Column& c, const BoundVector& v, idx_t row) {
    if (c.slots) {
      if (c.is_add) {
        if (std::optional<AddFile> add = ReadAdd(v, c, row)) {
          out_.emplace_back(std::move(*add));
          return OkStatus();
        }
      } else if (std::optional<RemoveFile> remove = ReadRemove(v, c, row)) {
        out_.emplace_back(std::move(*remove));
        return OkStatus();
      }
    }
    line_.clear();
    DC_RETURN_IF_ERROR(WriteActionLine(v, row, line_));
    DC_ASSIGN_OR_RETURN(Action action, parser_.ParseLine(line_));
    out_.push_back(std::move(action));
    return OkStatus();
  }

  std::vector<Action>& out_;
  ActionParser parser_;
  std::string line_;
};

}  // namespace

Status AppendActions(duckdb_result& result, std::vector<Action>& out,
                     const ParquetHandler::ActionBatch* batch, size_t batch_rows) {
  const std::vector<FieldType> types = DescribeColumns(result);
  const std::vector<Column> columns = Columns(types);
  ChunkReader reader(out);
  while (true) {
    DataChunk chunk(duckdb_fetch_chunk(result));
    if (chunk.get() == nullptr) break;
    DC_RETURN_IF_ERROR(reader.Read(columns, chunk.get()));
    if (batch != nullptr && out.size() >= batch_rows) {
      DC_RETURN_IF_ERROR((*batch)(out));
      out.clear();
    }
  }
  return OkStatus();
}

}  // namespace deltacommit::parquet_internal
