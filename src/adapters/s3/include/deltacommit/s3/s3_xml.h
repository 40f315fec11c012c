// Parsing of S3 replies other than errors: ListObjectsV2 pages and dates.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltacommit/object_store.h"
#include "deltacommit/status.h"

namespace deltacommit::s3 {

struct ListPage {
  std::vector<ObjectMeta> objects;  // keys as S3 returned them (full keys)
  std::string next_continuation_token;  // empty when the listing is complete
};

// kDataLoss if the body is not a ListBucketResult.
StatusOr<ListPage> ParseListObjectsV2(std::string_view xml);

// "2009-10-12T17:50:30.000Z" -> epoch ms.
std::optional<int64_t> ParseIso8601Millis(std::string_view text);
// "Wed, 12 Oct 2009 17:50:00 GMT" (RFC 7231 IMF-fixdate) -> epoch ms.
std::optional<int64_t> ParseHttpDateMillis(std::string_view text);

// CopyObject can answer 200 with an <Error> body; true if `xml` is one.
bool IsErrorDocument(std::string_view xml);

}  // namespace deltacommit::s3
