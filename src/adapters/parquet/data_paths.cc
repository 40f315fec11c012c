#include "adapters/parquet/data_paths.h"

#include <string_view>

namespace deltacommit::data_internal {
namespace {

constexpr char kHex[] = "0123456789ABCDEF";

void AppendEscaped(unsigned char c, std::string& out) {
  out += '%';
  out += kHex[c >> 4];
  out += kHex[c & 0xF];
}

// Hive's FileUtils.charToEscape, which Spark's escapePathName uses.
bool HiveEscapes(unsigned char c) {
  return (c >= 0x01 && c <= 0x1F) || c == 0x7F ||
         std::string_view("\"#%'*/:=?\\{[]^").find(static_cast<char>(c)) != std::string_view::npos;
}

// Hadoop's URI path encoding: controls, space, non-ASCII bytes and the
// characters a URI path cannot hold raw.
bool UriEscapes(unsigned char c) {
  return c <= 0x20 || c >= 0x7F ||
         std::string_view("\"#%<>?[\\]^`{|}").find(static_cast<char>(c)) != std::string_view::npos;
}

}  // namespace

std::string EscapePartitionPathPart(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (HiveEscapes(c)) {
      AppendEscaped(c, out);
    } else {
      out += ch;
    }
  }
  return out;
}

std::string PartitionDirectory(const std::vector<std::string>& columns,
                               const NullableStringMap& values) {
  std::string out;
  for (const std::string& column : columns) {
    auto it = values.find(column);
    const bool null = it == values.end() || !it->second.has_value();
    out += EscapePartitionPathPart(column) + "=" +
           (null ? std::string(kHiveDefaultPartition) : EscapePartitionPathPart(*it->second)) + "/";
  }
  return out;
}

std::string UriEncodePath(std::string_view path) {
  std::string out;
  out.reserve(path.size());
  for (const char ch : path) {
    const auto c = static_cast<unsigned char>(ch);
    if (UriEscapes(c)) {
      AppendEscaped(c, out);
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace deltacommit::data_internal
