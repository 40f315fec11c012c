// Where data files go in a table: Hive-style partition directories with
// values escaped as Delta Spark escapes them (Hive's escapePathName), and
// the URI encoding of such a path for add.path (PROTOCOL.md: add.path is a
// URI; Hadoop's Path.toUri encoding). So the value "a/b c" of column p is
// the directory "p=a%2Fb c" and the add.path "p=a%252Fb%20c/...".
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/actions.h"

namespace deltacommit::data_internal {

// The directory name for a null partition value (Hive's).
inline constexpr std::string_view kHiveDefaultPartition = "__HIVE_DEFAULT_PARTITION__";

// Escapes a partition column name or value for a directory name.
std::string EscapePartitionPathPart(std::string_view text);

// "c1=v1/c2=v2/" for `columns` in order (empty for none).
std::string PartitionDirectory(const std::vector<std::string>& columns,
                               const NullableStringMap& values);

// Percent-encodes what a URI path may not hold raw (space, '%', '#', '?',
// controls, ...); '/' stays.
std::string UriEncodePath(std::string_view path);

}  // namespace deltacommit::data_internal
