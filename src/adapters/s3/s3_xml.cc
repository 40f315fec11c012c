#include "deltacommit/s3/s3_xml.h"

#include <ctime>
#include <string>

#include <pugixml.hpp>

namespace deltacommit::s3 {
namespace {

std::optional<int64_t> ToMillis(std::tm tm) {
  time_t seconds = timegm(&tm);
  if (seconds == static_cast<time_t>(-1)) return std::nullopt;
  return static_cast<int64_t>(seconds) * 1000;
}

// An object's <Size>: a byte count, digits only. A store (or a proxy) that
// sends anything else is not trusted to have listed the log correctly.
std::optional<int64_t> ParseSize(std::string_view text) {
  if (text.empty() || text.size() > 18) return std::nullopt;  // 18 digits fit int64
  int64_t size = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    size = size * 10 + (c - '0');
  }
  return size;
}

}  // namespace

StatusOr<ListPage> ParseListObjectsV2(std::string_view xml) {
  pugi::xml_document doc;
  if (!doc.load_buffer(xml.data(), xml.size())) {
    return DataLossError("S3 ListObjectsV2: the reply is not XML");
  }
  pugi::xml_node result = doc.child("ListBucketResult");
  if (!result) return DataLossError("S3 ListObjectsV2: the reply has no ListBucketResult");
  ListPage page;
  for (pugi::xml_node c : result.children("Contents")) {
    ObjectMeta meta;
    meta.key = c.child_value("Key");
    if (meta.key.empty()) return DataLossError("S3 ListObjectsV2: an object without a Key");
    const std::optional<int64_t> size = ParseSize(c.child_value("Size"));
    if (!size) {
      return DataLossError("S3 ListObjectsV2: object \"" + meta.key + "\" has Size \"" +
                           std::string(c.child_value("Size")).substr(0, 40) +
                           "\", not a byte count");
    }
    meta.size = *size;
    meta.last_modified_ms = ParseIso8601Millis(c.child_value("LastModified")).value_or(0);
    page.objects.push_back(std::move(meta));
  }
  if (std::string_view(result.child_value("IsTruncated")) == "true") {
    page.next_continuation_token = result.child_value("NextContinuationToken");
    if (page.next_continuation_token.empty()) {
      return DataLossError("S3 ListObjectsV2: truncated reply without NextContinuationToken");
    }
  }
  return page;
}

std::optional<int64_t> ParseIso8601Millis(std::string_view text) {
  std::tm tm{};
  std::string s(text);
  const char* rest = strptime(s.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (rest == nullptr) return std::nullopt;
  auto ms = ToMillis(tm);
  if (ms && *rest == '.') {
    int frac = 0, digits = 0;
    for (++rest; *rest >= '0' && *rest <= '9'; ++rest) {
      if (digits < 3) frac = frac * 10 + (*rest - '0'), ++digits;
    }
    while (digits < 3) frac *= 10, ++digits;
    *ms += frac;
  }
  return ms;
}

std::optional<int64_t> ParseHttpDateMillis(std::string_view text) {
  std::tm tm{};
  std::string s(text);
  if (strptime(s.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm) == nullptr) return std::nullopt;
  return ToMillis(tm);
}

bool IsErrorDocument(std::string_view xml) {
  pugi::xml_document doc;
  return doc.load_buffer(xml.data(), xml.size()) && doc.child("Error");
}

}  // namespace deltacommit::s3
