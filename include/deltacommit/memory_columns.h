// Rows handed over in memory, column by column (Table::Append of a pandas
// DataFrame, say): each column's values in one of a few kinds, with a null
// mask. The data path writes them to a Parquet file and appends that as it
// appends any input: matched to the table's schema by name, every value
// cast to its column's type.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace deltacommit {

struct MemoryColumn {
  enum class Kind {
    kInt64,            // ints
    kDouble,           // doubles
    kBool,             // bools (0 or 1)
    kTimestampMicros,  // ints: microseconds since 1970-01-01 00:00 UTC
    kString,           // strings (UTF-8; the value's text, e.g. a date's ISO form)
  };
  std::string name;
  Kind kind = Kind::kString;
  std::vector<int64_t> ints;
  std::vector<double> doubles;
  std::vector<uint8_t> bools;
  std::vector<std::string> strings;
  // Per row, 1 for NULL (the value there is ignored); empty: no NULL.
  std::vector<uint8_t> nulls;

  // The rows it holds: the length of its kind's values.
  size_t size() const {
    switch (kind) {
      case Kind::kInt64:
      case Kind::kTimestampMicros:
        return ints.size();
      case Kind::kDouble:
        return doubles.size();
      case Kind::kBool:
        return bools.size();
      case Kind::kString:
        break;
    }
    return strings.size();
  }
};

}  // namespace deltacommit
